/* escape.h — one function per output sink for text that came from outside
 * (cluster, model, plan and workspace files, --pool, price feeds).
 *
 * Names are validated where they are read (jx_str and the --pool and price
 * parsers accept printable UTF-8 only), so in practice these functions see
 * clean text; they are the second line, at the point where text leaves the
 * program, so that no path that skipped validation can retitle a terminal,
 * run a command from a launch script, start a spreadsheet formula or break
 * a JSON document. Each appends to a struct sbuf (appends never fail);
 * esc_term_buf is the fixed-buffer form of esc_term for printf and curses.
 *
 * Contract for all: s is a NUL-terminated string and b a buffer from
 * sbuf_init, neither NULL (asserted); the sinks append and never fail
 * (memory as util.h); nothing returned needs freeing except by
 * esc_json_print's caller. */
#ifndef HP_ESCAPE_H
#define HP_ESCAPE_H

#include <stddef.h>
#include "sbuf.h"

/* 1 when s is printable UTF-8 (no C0/C1 control characters, no DEL, no
 * bidirectional embeddings, overrides or isolates, no invalid sequences) of
 * at most max_bytes bytes; 0 otherwise. U+202A..U+202E and U+2066..U+2069
 * are refused because the CLI prints names, labels and launch comments with
 * printf and the reports copy them: one would reorder the rest of a row in
 * a terminal, a `cat`ed Markdown or CSV file, or a comment of a launch
 * script (CVE-2021-42574). */
int esc_is_printable(const char *s, size_t max_bytes);

/* Input: replace each control character, each bidi embedding, override
 * or isolate (as esc_is_printable) and each byte that is not valid UTF-8 in s with '?'
 * (one per byte), in place (for text from remote price feeds). */
void esc_scrub(char *s);

/* Terminal: C0 controls and DEL as caret notation (ESC -> ^[, LF -> ^J,
 * DEL -> ^?); C1 controls (U+0080..U+009F) and bytes that are not valid
 * UTF-8 as \xNN, one per byte. Everything else is copied. */
void esc_term(struct sbuf *b, const char *s);
/* esc_term into dst (always NUL-terminated; truncated at a character
 * boundary when dst is too small). Returns dst. */
char *esc_term_buf(char *dst, size_t n, const char *s);

/* Shell (bash): s as one word. Text of safe characters (letters, digits
 * and . _ - + / : @ % , =) is copied; other printable text is put in
 * single quotes ('it'\''s'); text with control characters or invalid UTF-8
 * uses bash's $'...' with \xNN escapes, so the word is always on one line
 * and a comment that holds it stays one comment. */
void esc_shell(struct sbuf *b, const char *s);

/* CSV (RFC 4180): quoted when s holds , " CR or LF, with " doubled. A
 * cell that starts with = + - @ (a formula in spreadsheets; tab and CR
 * too, OWASP's list) gets a leading ' unless it is a plain number such
 * as -4 or +1.5e3. */
void esc_csv(struct sbuf *b, const char *s);

/* HTML text and attributes (and SVG): & < > " ' as entities. */
void esc_html(struct sbuf *b, const char *s);

/* Markdown text and table cells: & < " ' as HTML entities (Markdown
 * passes raw HTML through), '>' as it is but "\>" where only spaces
 * precede it in s (a block quote marker when s starts a line), | as \|,
 * CR and LF as spaces, other control characters and
 * bytes that are no UTF-8 as \\xNN per byte (showing \xNN), and the
 * characters that start markup (` * _ ~ [ ] \ #) after a backslash, so a
 * name makes no link, image, code span, emphasis or heading change. */
void esc_md(struct sbuf *b, const char *s);

/* JSON text (already escaped by cJSON): every byte sequence that is not
 * valid UTF-8 becomes U+FFFD, so the document stays valid JSON (RFC 8259
 * section 8.1). */
void esc_json(struct sbuf *b, const char *s);
/* cJSON_Print(o) through esc_json: the JSON sink for whole documents.
 * Never NULL ("null" when o is NULL or cJSON cannot print it); caller
 * frees. */
struct cJSON;
char *esc_json_print(const struct cJSON *o);

#endif
