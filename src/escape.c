/* escape.c — output sanitising, one function per sink (see escape.h).
 *
 * UTF-8 validity follows RFC 3629 section 4 (the syntax of UTF-8 byte
 * sequences): no overlong forms, no surrogates D800..DFFF, nothing above
 * U+10FFFF. Control characters are C0 (0x00..0x1F), DEL (0x7F) and C1
 * (U+0080..U+009F), the ranges ECMA-48 gives meaning to on a terminal. */
#include "escape.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int esc_utf8_len(const char *str, unsigned *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0], v, min;
	int n;
	if (c < 0x80) {
		if (cp)
			*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2; v = c & 0x1F; min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3; v = c & 0x0F; min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4; v = c & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;   /* also stops at the NUL of a cut sequence */
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	if (cp)
		*cp = v;
	return n;
}

static int is_control(unsigned cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

int esc_is_printable(const char *s, size_t max_bytes)
{
	size_t len = 0;
	while (s[len]) {
		unsigned cp;
		int n = esc_utf8_len(s + len, &cp);
		if (!n || is_control(cp))
			return 0;
		len += (size_t)n;
		if (len > max_bytes)
			return 0;
	}
	return 1;
}

void esc_scrub(char *s)
{
	while (*s) {
		unsigned cp;
		int n = esc_utf8_len(s, &cp);
		if (!n || is_control(cp)) {
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
	while (*s) {
		unsigned cp;
		int n = esc_utf8_len(s, &cp);
		if (!n) {
			add_hex(b, (unsigned char)*s++);
			continue;
		}
		if (cp < 0x20) {
			sbuf_addc(b, '^');
			sbuf_addc(b, (char)(cp + 0x40));
		} else if (cp == 0x7F) {
			sbuf_add(b, "^?");
		} else if (cp >= 0x80 && cp <= 0x9F) {
			for (int i = 0; i < n; i++)
				add_hex(b, (unsigned char)s[i]);
		} else {
			sbuf_addn(b, s, (size_t)n);
		}
		s += n;
	}
}

char *esc_term_buf(char *dst, size_t n, const char *s)
{
	if (!n)
		return dst;
	struct sbuf b;
	sbuf_init(&b);
	esc_term(&b, s);
	size_t len = b.len;
	if (len >= n) {
		len = n - 1;
		/* Do not cut a UTF-8 sequence in two. */
		while (len > 0 && ((unsigned char)b.s[len] & 0xC0) == 0x80)
			len--;
	}
	if (len)
		memcpy(dst, b.s, len);
	dst[len] = '\0';
	sbuf_done(&b);
	return dst;
}

static int shell_safe(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._-+/:@%,=", c) != NULL;
}

void esc_shell(struct sbuf *b, const char *s)
{
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

void esc_csv(struct sbuf *b, const char *s)
{
	int guard = strchr("=+-@\t\r", *s) && *s && !plain_number(s);
	if (!guard && !strpbrk(s, ",\"\r\n")) {
		sbuf_add(b, s);
		return;
	}
	sbuf_addc(b, '"');
	if (guard)
		sbuf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '"')
			sbuf_addc(b, '"');
		sbuf_addc(b, *s);
	}
	sbuf_addc(b, '"');
}

void esc_html(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': sbuf_add(b, "&amp;"); break;
		case '<': sbuf_add(b, "&lt;"); break;
		case '>': sbuf_add(b, "&gt;"); break;
		case '"': sbuf_add(b, "&quot;"); break;
		case '\'': sbuf_add(b, "&#39;"); break;
		default: sbuf_addc(b, *s);
		}
	}
}

void esc_md(struct sbuf *b, const char *s)
{
	while (*s) {
		unsigned cp;
		int n = esc_utf8_len(s, &cp);
		char one[2] = { *s, 0 };
		if (n == 1 && (*s == '\n' || *s == '\r'))
			sbuf_addc(b, ' ');
		else if (n == 1 && *s == '|')
			sbuf_add(b, "\\|");
		else if (n == 1 && strchr("&<>\"'", *s))
			esc_html(b, one);
		else if (!n || is_control(cp)) {
			char t[8];
			memcpy(t, s, n ? (size_t)n : 1);
			t[n ? n : 1] = '\0';
			esc_term(b, t);
		} else {
			sbuf_addn(b, s, (size_t)n);
		}
		s += n ? n : 1;
	}
}

void esc_json(struct sbuf *b, const char *s)
{
	while (*s) {
		int n = esc_utf8_len(s, NULL);
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
