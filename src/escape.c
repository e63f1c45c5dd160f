/* escape.c — output sanitising, one function per sink (see escape.h).
 *
 * UTF-8 validity and what counts as a control character are utf8.h's
 * (RFC 3629, ECMA-48). */
#include "escape.h"
#include "utf8.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The explicit directional formatting characters (UAX #9, section 2: the
 * embeddings and overrides U+202A..U+202E and the isolates U+2066..U+2069),
 * the ones CVE-2021-42574 names: each reorders the text after it up to
 * the end of the paragraph. The marks (U+061C, U+200E, U+200F) only
 * steer the characters around them and stay allowed inside a name. */
static int bidi_override(unsigned cp)
{
	return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

int esc_is_printable(const char *s, size_t max_bytes)
{
	assert(s);
	size_t len = 0;
	while (s[len]) {
		unsigned cp;
		int n = utf8_len(s + len, &cp);
		if (!n || utf8_is_control(cp) || bidi_override(cp))
			return 0;
		len += (size_t)n;
		if (len > max_bytes)
			return 0;
	}
	return 1;
}

void esc_scrub(char *s)
{
	assert(s);
	while (*s) {
		unsigned cp;
		int n = utf8_len(s, &cp);
		if (!n || utf8_is_control(cp) || bidi_override(cp)) {
			for (int i = 0; i < (n ? n : 1); i++)
				s[i] = '?';
			n = n ? n : 1;
		}
		s += n;
	}
}

static void add_hex(struct sbuf *b, unsigned char c)
{
	sbuf_addf(b, "\\x%02X", c);
}

void esc_term(struct sbuf *b, const char *s)
{
	assert(b && s);
	char one[UTF8_TERM_MAX];
	while (*s) {
		size_t k;
		s += utf8_term_char(s, one, &k);
		sbuf_addn(b, one, k);
	}
}

char *esc_term_buf(char *dst, size_t n, const char *s)
{
	return utf8_term_buf(dst, n, s);
}

static int shell_safe(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._-+/:@%,=", c) != NULL;
}

void esc_shell(struct sbuf *b, const char *s)
{
	assert(b && s);
	int plain = *s != '\0', printable = esc_is_printable(s, (size_t)-1);
	for (const char *p = s; *p && plain; p++)
		plain = shell_safe(*p);
	if (plain) {
		sbuf_add(b, s);
	} else if (printable) {
		sbuf_addc(b, '\'');
		for (; *s; s++) {
			if (*s == '\'')
				sbuf_add(b, "'\\''");
			else
				sbuf_addc(b, *s);
		}
		sbuf_addc(b, '\'');
	} else {
		/* bash ANSI-C quoting: every byte that is not printable ASCII
		 * as \xNN, so the word never spans lines. */
		sbuf_add(b, "$'");
		for (; *s; s++) {
			unsigned char c = (unsigned char)*s;
			if (c == '\'' || c == '\\') {
				sbuf_addc(b, '\\');
				sbuf_addc(b, (char)c);
			} else if (c < 0x20 || c >= 0x7F) {
				add_hex(b, c);
			} else {
				sbuf_addc(b, (char)c);
			}
		}
		sbuf_addc(b, '\'');
	}
}

/* A cell that is only a number is data, not a formula, even with a sign. */
static int plain_number(const char *s)
{
	char *end;
	if (!*s)
		return 0;
	strtod(s, &end);
	return *end == '\0' && !strpbrk(s, "xXpP(nN");  /* no hex, inf, nan */
}

/* One character of s (or one byte that is no UTF-8, as U+FFFD, as
 * esc_json does) into b; returns the bytes of s it took. A text cut
 * inside a multi-byte character (a name cut by a bounded buffer) stays
 * UTF-8 in a spreadsheet and a web page. */
static size_t add_char_or_fffd(struct sbuf *b, const char *s)
{
	int n = utf8_len(s, NULL);
	if (n) {
		sbuf_addn(b, s, (size_t)n);
		return (size_t)n;
	}
	sbuf_add(b, "\xEF\xBF\xBD");   /* U+FFFD REPLACEMENT CHARACTER */
	return 1;
}

void esc_csv(struct sbuf *b, const char *s)
{
	assert(b && s);
	int guard = strchr("=+-@\t\r", *s) && *s && !plain_number(s);
	int quote = guard || strpbrk(s, ",\"\r\n");
	if (quote)
		sbuf_addc(b, '"');
	if (guard)
		sbuf_addc(b, '\'');
	while (*s) {
		if (*s == '"')
			sbuf_addc(b, '"');
		s += add_char_or_fffd(b, s);
	}
	if (quote)
		sbuf_addc(b, '"');
}

void esc_html(struct sbuf *b, const char *s)
{
	assert(b && s);
	while (*s) {
		switch (*s) {
		case '&': sbuf_add(b, "&amp;"); break;
		case '<': sbuf_add(b, "&lt;"); break;
		case '>': sbuf_add(b, "&gt;"); break;
		case '"': sbuf_add(b, "&quot;"); break;
		case '\'': sbuf_add(b, "&#39;"); break;
		default: s += add_char_or_fffd(b, s); continue;
		}
		s++;
	}
}

/* 1 when the character at s would start or end Markdown markup: a code
 * span (`), emphasis or strike (*, _, ~), a link or image ([ ]), a
 * backslash escape (\\) or, in a heading, a closing sequence (CommonMark
 * 4.2 drops a trailing " #"). "_" is escaped everywhere: CommonMark 6.2
 * makes emphasis of it beside any Unicode punctuation or space ("«_x_»"),
 * and a test for those classes would need their tables; an escaped "_"
 * inside a word shows the same. CommonMark 2.4 lets a backslash escape any
 * ASCII punctuation, which then shows as itself. */
static int md_markup(char c)
{
	return c && strchr("`*_~[]\\#", c);
}

/* A control character or a byte that is no UTF-8 goes into Markdown as
 * "\\xNN" per byte (the backslash itself escaped, so it shows as \xNN):
 * the terminal's caret forms ^[, ^], ^_ and ^\\ are live Markdown. */
static void md_bytes(struct sbuf *b, const char *s, int n)
{
	static const char digits[] = "0123456789ABCDEF";
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char t[6] = { '\\', '\\', 'x', digits[c >> 4], digits[c & 15], 0 };
		sbuf_add(b, t);
	}
}

/* '>' is Markdown only as a block quote marker: first on a line after at
 * most 3 spaces (CommonMark 0.31, 5.1 "Block quotes"). esc_md's text has
 * no line break of its own (CR and LF become spaces), so only a '>' that
 * only spaces precede in s can be one, when a caller starts a line with
 * s; it is written "\>" (2.4: shows as ">"). Anywhere else '>' starts
 * nothing, '<' being escaped, and is written as it is: "&gt;" is an
 * entity only where a viewer decodes HTML, and showed as "&gt;" in plan
 * labels ("west>east pp2") in a title in other viewers. */
void esc_md(struct sbuf *b, const char *s)
{
	assert(b && s);
	int lead = 1;   /* only spaces so far */
	while (*s) {
		unsigned cp;
		int n = utf8_len(s, &cp);
		char one[2] = { *s, 0 };
		if (n == 1 && (*s == '\n' || *s == '\r'))
			sbuf_addc(b, ' ');
		else if (n == 1 && (*s == '|' || md_markup(*s) || (*s == '>' && lead))) {
			sbuf_addc(b, '\\');
			sbuf_addc(b, *s);
		}
		else if (n == 1 && *s == '>')
			sbuf_addc(b, '>');
		else if (n == 1 && strchr("&<\"'", *s))
			esc_html(b, one);
		else if (!n || utf8_is_control(cp))
			md_bytes(b, s, n ? n : 1);
		else
			sbuf_addn(b, s, (size_t)n);
		lead = lead && n == 1 && strchr(" \n\r", *s);   /* CR and LF show as spaces */
		s += n ? n : 1;
	}
}

void esc_json(struct sbuf *b, const char *s)
{
	assert(b && s);
	while (*s) {
		int n = utf8_len(s, NULL);
		if (n) {
			sbuf_addn(b, s, (size_t)n);
			s += n;
		} else {
			sbuf_add(b, "\xEF\xBF\xBD");   /* U+FFFD REPLACEMENT CHARACTER */
			s++;
		}
	}
}

char *esc_json_print(const struct cJSON *o)
{
	char *raw = cJSON_Print(o);
	struct sbuf b;
	sbuf_init(&b);
	esc_json(&b, raw ? raw : "null");
	free(raw);
	return sbuf_take(&b, NULL);
}

/* The older sbuf_add_* names (declared in sbuf.h so the report renderers
 * need no new include; defined here so that sbuf.c stays below escape.c). */
void sbuf_add_html(struct sbuf *b, const char *s)
{
	esc_html(b, s);
}

void sbuf_add_md(struct sbuf *b, const char *s)
{
	esc_md(b, s);
}

void sbuf_add_csv(struct sbuf *b, const char *s)
{
	esc_csv(b, s);
}
