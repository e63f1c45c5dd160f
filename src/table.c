/* table.c — the table value of table.h and its renderers. Each renderer
 * escapes with its sink's function from escape.h and nothing else. */
#include "table.h"
#include "escape.h"
#include "utf8.h"
#include "util.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void table_init(struct table *t, const char *title)
{
	memset(t, 0, sizeof *t);
	t->title = title ? xstrdup(title) : NULL;
}

void table_done(struct table *t)
{
	for (int i = 0; i < t->n_rows * t->n_cols; i++) {
		free(t->cells[i].text);
		free(t->cells[i].note);
	}
	free(t->cells);
	free(t->row_flags);
	free(t->title);
	memset(t, 0, sizeof *t);
}

void table_col(struct table *t, const char *name, const char *unit, enum table_align align)
{
	assert(t->n_rows == 0 && t->n_cols < TABLE_MAX_COLS);
	t->cols[t->n_cols++] = (struct table_col){ name, unit, align };
}

void table_cols(struct table *t, const struct table_col *cols, int n)
{
	for (int i = 0; i < n; i++)
		table_col(t, cols[i].name, cols[i].unit, cols[i].align);
}

void table_row(struct table *t, unsigned row_flags)
{
	assert(t->n_cols > 0);
	if (t->n_rows == t->cap_rows) {
		t->cap_rows = t->cap_rows ? 2 * t->cap_rows : 16;
		t->cells = xrealloc(t->cells, (size_t)t->cap_rows * (size_t)t->n_cols * sizeof *t->cells);
		t->row_flags = xrealloc(t->row_flags, (size_t)t->cap_rows * sizeof *t->row_flags);
	}
	struct table_cell *row = &t->cells[(size_t)t->n_rows * (size_t)t->n_cols];
	memset(row, 0, (size_t)t->n_cols * sizeof *row);
	for (int c = 0; c < t->n_cols; c++)
		row[c].text = xstrdup("");
	t->row_flags[t->n_rows++] = row_flags;
	t->cur = 0;
}

struct table_cell *table_text(struct table *t, const char *text)
{
	assert(t->n_rows > 0 && t->cur < t->n_cols);
	struct table_cell *c = &t->cells[(size_t)(t->n_rows - 1) * (size_t)t->n_cols + (size_t)t->cur++];
	free(c->text);
	c->text = xstrdup(text ? text : "");
	return c;
}

struct table_cell *table_textf(struct table *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return table_text(t, buf);
}

struct table_cell *table_num(struct table *t, const char *text, double v)
{
	struct table_cell *c = table_text(t, text);
	c->num = v;
	c->has_num = 1;
	return c;
}

struct table_cell *table_numf(struct table *t, const char *fmt, double v)
{
	char buf[64];
	snprintf(buf, sizeof buf, fmt, v);
	return table_num(t, buf, v);
}

void table_note(struct table_cell *c, const char *note)
{
	free(c->note);
	c->note = note && *note ? xstrdup(note) : NULL;
}

void table_skip(struct table *t, int n)
{
	assert(n >= 0 && t->cur + n <= t->n_cols);
	t->cur += n;
}

const struct table_cell *table_at(const struct table *t, int r, int c)
{
	if (r < 0 || r >= t->n_rows || c < 0 || c >= t->n_cols)
		return NULL;
	return &t->cells[(size_t)r * (size_t)t->n_cols + (size_t)c];
}

/* ---- Markdown ------------------------------------------------------------ */

/* A TABLE_CODE cell goes between backticks only when it holds nothing a
 * code span would show differently: backslash escapes and entities are
 * literal inside one (CommonMark 0.31, 6.1 "Code spans"), so esc_md's
 * "test\_accuracy.c" read as a backslash there. A cell of letters,
 * digits and "/._-:+,()" needs no escape and is written as it is; any
 * other is written through esc_md without the backticks. */
static int md_code_plain(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("/._-:+,()", *s)))
			return 0;
	return 1;
}

static void md_cell(struct sbuf *b, const struct table_cell *x)
{
	if (!*x->text)
		return;
	if ((x->flags & TABLE_CODE) && !(x->flags & TABLE_STRONG) && md_code_plain(x->text)) {
		sbuf_addf(b, " `%s`", x->text);
		return;
	}
	const char *wrap = x->flags & TABLE_STRONG ? "**" : "";
	sbuf_add(b, " ");
	sbuf_add(b, wrap);
	esc_md(b, x->text);
	sbuf_add(b, wrap);
}

void table_render_md(struct sbuf *b, const struct table *t)
{
	sbuf_add(b, "|");
	for (int c = 0; c < t->n_cols; c++) {
		sbuf_add(b, " ");
		esc_md(b, t->cols[c].name);
		sbuf_add(b, " |");
	}
	sbuf_add(b, "\n|");
	for (int c = 0; c < t->n_cols; c++)
		sbuf_add(b, t->cols[c].align == TABLE_RIGHT ? "---:|" : "---|");
	sbuf_add(b, "\n");
	for (int r = 0; r < t->n_rows; r++) {
		sbuf_add(b, "|");
		for (int c = 0; c < t->n_cols; c++) {
			md_cell(b, table_at(t, r, c));
			sbuf_add(b, " |");
		}
		sbuf_add(b, "\n");
	}
}

/* ---- HTML ---------------------------------------------------------------- */

void table_render_html(struct sbuf *b, const struct table *t)
{
	sbuf_add(b, "<table><tr>");
	for (int c = 0; c < t->n_cols; c++) {
		sbuf_add(b, t->cols[c].align == TABLE_RIGHT ? "<th class=\"n\"" : "<th");
		if (t->cols[c].unit) {
			sbuf_add(b, " title=\"");
			esc_html(b, t->cols[c].unit);
			sbuf_add(b, "\"");
		}
		sbuf_add(b, ">");
		esc_html(b, t->cols[c].name);
		sbuf_add(b, "</th>");
	}
	sbuf_add(b, "</tr>\n");
	for (int r = 0; r < t->n_rows; r++) {
		sbuf_add(b, t->row_flags[r] & TABLE_ROW_CHOSEN ? "<tr class=\"chosen\">" : "<tr>");
		for (int c = 0; c < t->n_cols; c++) {
			const struct table_cell *x = table_at(t, r, c);
			const char *cls = x->flags & TABLE_GOOD ? " good" : x->flags & TABLE_BAD ? " bad" : "";
			if (t->cols[c].align == TABLE_RIGHT)
				sbuf_addf(b, "<td class=\"n%s\"", cls);
			else
				sbuf_addf(b, *cls ? "<td class=\"%s\"" : "<td", cls + 1);
			if (x->has_num)
				sbuf_addf(b, " data-v=\"%.17g\"", x->num);
			if (x->note) {
				sbuf_add(b, " title=\"");
				esc_html(b, x->note);
				sbuf_add(b, "\"");
			}
			sbuf_add(b, ">");
			if (x->color) {
				sbuf_add(b, "<span style=\"color:");
				esc_html(b, x->color);
				sbuf_add(b, "\">&#9632;</span> ");
			}
			sbuf_add(b, x->flags & TABLE_STRONG ? "<b>" : x->flags & TABLE_CODE ? "<code>" : "");
			esc_html(b, x->text);
			sbuf_add(b, x->flags & TABLE_STRONG ? "</b>" : x->flags & TABLE_CODE ? "</code>" : "");
			sbuf_add(b, "</td>");
		}
		sbuf_add(b, "</tr>\n");
	}
	sbuf_add(b, "</table>\n");
}

/* ---- CSV ----------------------------------------------------------------- */

void table_render_csv(struct sbuf *b, const struct table *t)
{
	for (int c = 0; c < t->n_cols; c++) {
		if (c)
			sbuf_add(b, ",");
		esc_csv(b, t->cols[c].name);
	}
	sbuf_add(b, "\n");
	for (int r = 0; r < t->n_rows; r++) {
		for (int c = 0; c < t->n_cols; c++) {
			if (c)
				sbuf_add(b, ",");
			esc_csv(b, table_at(t, r, c)->text);
		}
		sbuf_add(b, "\n");
	}
}

/* ---- terminal ------------------------------------------------------------ */

/* Columns on a terminal: wide (CJK, emoji) characters take two, combining
 * marks none (utf8_cols). */
static int term_width(const char *s)
{
	return utf8_cols(s);
}

static void term_cell(struct sbuf *b, const char *s, int width, enum table_align a, int last)
{
	struct sbuf e;
	sbuf_init(&e);
	esc_term(&e, s);
	const char *txt = e.s ? e.s : "";
	int pad = width - term_width(txt);
	if (a == TABLE_RIGHT)
		for (int i = 0; i < pad; i++)
			sbuf_addc(b, ' ');
	sbuf_add(b, txt);
	if (a == TABLE_LEFT && !last)
		for (int i = 0; i < pad; i++)
			sbuf_addc(b, ' ');
	sbuf_done(&e);
}

void table_render_term(struct sbuf *b, const struct table *t)
{
	int w[TABLE_MAX_COLS];
	for (int c = 0; c < t->n_cols; c++) {
		struct sbuf e;
		sbuf_init(&e);
		esc_term(&e, t->cols[c].name);
		w[c] = term_width(e.s ? e.s : "");
		sbuf_done(&e);
		for (int r = 0; r < t->n_rows; r++) {
			sbuf_init(&e);
			esc_term(&e, table_at(t, r, c)->text);
			int cw = term_width(e.s ? e.s : "");
			w[c] = cw > w[c] ? cw : w[c];
			sbuf_done(&e);
		}
	}
	for (int r = -1; r < t->n_rows; r++) {
		for (int c = 0; c < t->n_cols; c++) {
			if (c)
				sbuf_add(b, "  ");
			term_cell(b, r < 0 ? t->cols[c].name : table_at(t, r, c)->text, w[c],
				  t->cols[c].align, c == t->n_cols - 1);
		}
		sbuf_add(b, "\n");
	}
}

char *table_rate(char *buf, size_t n, double usd, int w)
{
	if (usd >= 9999.9995) {
		char t[32];
		table_usd(t, sizeof t, usd, 0);
		snprintf(buf, n, "%s", t + 1);   /* without its "$" */
		return buf;
	}
	for (int dec = 3; dec >= 0; dec--) {
		snprintf(buf, n, "%.*f", dec, usd);
		if (w <= 0 || (int)strlen(buf) <= w)
			break;
	}
	return buf;
}

char *table_usd(char *buf, size_t n, double usd, int w)
{
	static const char *const unit[] = { "k", "M", "B", "T" };
	if (usd >= 9999.995) {
		double v = usd / 1e3;
		int u = 0;
		while (v >= 999.5 && u < 3) {
			v /= 1e3;
			u++;
		}
		if (v >= 999.5)
			snprintf(buf, n, "$%.0e", usd);
		else
			snprintf(buf, n, "$%.*f%s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, unit[u]);
		return buf;
	}
	for (int dec = 2; dec >= 0; dec--) {
		snprintf(buf, n, "$%.*f", dec, usd);
		if (w <= 0 || (int)strlen(buf) <= w)
			break;
	}
	return buf;
}
