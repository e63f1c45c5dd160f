/* sbuf.h — a growing text buffer for renderers that build a whole document
 * in memory (reports, launch scripts) before anything is written.
 *
 * Memory follows util.h's policy: appends never fail (xrealloc aborts on
 * out-of-memory). The buffer is always NUL-terminated once anything was
 * appended. sbuf_take() hands the text to the caller, who frees it. */
#ifndef HP_SBUF_H
#define HP_SBUF_H

#include <stddef.h>

struct sbuf {
	char *s;
	size_t len, cap;
};

/* An empty buffer (s NULL until the first append); cannot fail. */
void sbuf_init(struct sbuf *b);
/* Free the text and leave b empty, ready for reuse. */
void sbuf_done(struct sbuf *b);
/* Append the string s, the n bytes at s (NULs included), the byte c, or
 * printf-style text. Never fail; b and s must not be NULL (asserted; s
 * may be NULL when n is 0). */
void sbuf_add(struct sbuf *b, const char *s);
void sbuf_addn(struct sbuf *b, const char *s, size_t n);
void sbuf_addc(struct sbuf *b, char c);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The output sinks of escape.h under their older names, kept for the
 * report renderers; defined in escape.c (sbuf.c stays below escape.c).
 * New code calls esc_html, esc_md and esc_csv. */
/* s with & < > " ' replaced by entities (HTML text and attributes, SVG). */
void sbuf_add_html(struct sbuf *b, const char *s);
/* s for a Markdown table cell: HTML-escaped, | escaped, newlines as spaces. */
void sbuf_add_md(struct sbuf *b, const char *s);
/* s as one CSV field (RFC 4180), with a leading ' before = + - @ (esc_csv). */
void sbuf_add_csv(struct sbuf *b, const char *s);
/* Detach the text (never NULL; "" when empty; the caller frees it) and its
 * length into *len when len is not NULL; b is left empty. */
char *sbuf_take(struct sbuf *b, size_t *len);

#endif
