/* table.h — a small table value and its four renderers (Markdown, HTML,
 * CSV, terminal), so that a report section is built once and every output
 * sink shows the same rows.
 *
 * A table is a title, columns (name, unit, alignment) and rows of cells.
 * A cell holds the text people read ("3.4 s", "$12.3k") and, when it
 * stands for a quantity, the exact number behind it in the column's unit
 * (3.4183, 12345.6). The Markdown and terminal renderers print the text;
 * the HTML renderer prints the text and puts the number in a data-v
 * attribute (so a script reads exact values from the page); the CSV
 * renderer prints the text, which for machine tables (report_csv_table)
 * is the number itself.
 *
 * Every renderer escapes every cell and header with its sink's one
 * function from escape.h (esc_md, esc_html, esc_csv, esc_term), so a
 * builder adds raw text and never escapes.
 *
 * Memory: table_init/table_done; the table copies every string it is
 * given. Appends never fail (xmalloc policy, util.h). */
#ifndef HP_TABLE_H
#define HP_TABLE_H

#include <stddef.h>
#include "sbuf.h"

/* A dollar amount (usd finite and >= 0) as every view and report writes
 * it, into buf (n bytes); returns buf. Below $10k, cents ("$23.57",
 * "$1043.35"); from $10k, three significant figures and a unit ("$41.2k",
 * "$4.36M", "$258M", "$1.23B", "$12.3T"), then "$2e+15". A column of
 * width w columns (0: no limit) gets fewer decimals below $10k when cents
 * would not fit ("$1043" in 6): the one figure a narrow screen rounds.
 * What an unknown amount reads as ("-", "?", "unknown") is the caller's. */
char *table_usd(char *buf, size_t n, double usd, int w);

/* A unit price (usd finite and >= 0) as every view and report writes it:
 * dollars per million tokens (training and serving), per GPU-hour and per
 * instance-hour of the price book; the "$" is the caller's (a column head
 * that names it, or "$%s"). Below 10,000, three decimals ("0.310",
 * "3.200", "113.933": a tenth of a cent, where two rates of a few dollars
 * differ); from 10,000, table_usd's three figures and unit ("45.7k",
 * "1.23M"). A column of width w columns (0: no limit) gets fewer decimals
 * when three would not fit ("12.35" in 5). */
char *table_rate(char *buf, size_t n, double usd, int w);

/* The most columns a table has (the CSV plan table has 26). */
#define TABLE_MAX_COLS 32

enum table_align { TABLE_LEFT, TABLE_RIGHT };

/* Cell flags. */
#define TABLE_STRONG 1u   /* Markdown **text**, HTML <b> */
#define TABLE_CODE   2u   /* Markdown `text`, HTML <code> */
#define TABLE_GOOD   4u   /* HTML class "good" (a headroom that fits) */
#define TABLE_BAD    8u   /* HTML class "bad" */
/* Row flags. */
#define TABLE_ROW_CHOSEN 1u   /* HTML class "chosen" (the plan the report details) */

struct table_col {
	const char *name;          /* header text; a CSV column name for machine tables */
	const char *unit;          /* the unit of the cells' numbers ("s", "USD"), or NULL */
	enum table_align align;
};

struct table_cell {
	char *text;                /* never NULL once added ("" for an empty cell) */
	double num;                /* valid when has_num */
	int has_num;
	unsigned flags;
	const char *color;         /* HTML: a colour swatch before the text, or NULL */
	char *note;                /* HTML: a title (tooltip) on the cell, or NULL */
};

struct table {
	char *title;               /* may be NULL */
	int n_cols;
	struct table_col cols[TABLE_MAX_COLS];
	int n_rows, cap_rows;
	struct table_cell *cells;  /* n_rows x n_cols, row-major */
	unsigned *row_flags;
	int cur;                   /* cells added to the last row */
};

/* An empty table titled title (NULL for none). Free with table_done. */
void table_init(struct table *t, const char *title);
void table_done(struct table *t);
/* Append a column; name and unit are not copied (string literals).
 * Columns come before the first row; at most TABLE_MAX_COLS (asserted). */
void table_col(struct table *t, const char *name, const char *unit, enum table_align align);
/* Append the n columns of cols (a static table of them). */
void table_cols(struct table *t, const struct table_col *cols, int n);
/* Start a row with flags (TABLE_ROW_*). Cells not given stay empty. */
void table_row(struct table *t, unsigned row_flags);
/* Append a text cell to the current row and return it (for flags and
 * colour). Asserts that the row has room. */
struct table_cell *table_text(struct table *t, const char *text);
/* printf-style text cell (the text is cut at 511 bytes). */
struct table_cell *table_textf(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A cell showing text and standing for the number v. */
struct table_cell *table_num(struct table *t, const char *text, double v);
/* A cell showing v in printf format fmt ("%.3f", "%d" is not allowed:
 * fmt takes one double). */
struct table_cell *table_numf(struct table *t, const char *fmt, double v);
/* Give cell c a note (copied): HTML shows it as the cell's tooltip. */
void table_note(struct table_cell *c, const char *note);
/* Leave the next n cells of the current row empty. */
void table_skip(struct table *t, int n);
/* The cell at row r, column c (0-based), or NULL outside the table. */
const struct table_cell *table_at(const struct table *t, int r, int c);

/* Renderers: append t to b. Markdown: a pipe table ("| a | b |", then
 * "|---|---:|" from the alignments), no title. HTML: <table> with <th>,
 * class "n" on right-aligned columns, data-v="%.17g" on number cells.
 * CSV (RFC 4180): a header line of the column names, then the rows.
 * Terminal: columns padded to their widest cell, two spaces apart, a
 * header line first, control characters shown as esc_term shows them. */
void table_render_md(struct sbuf *b, const struct table *t);
void table_render_html(struct sbuf *b, const struct table *t);
void table_render_csv(struct sbuf *b, const struct table *t);
void table_render_term(struct sbuf *b, const struct table *t);

#endif
