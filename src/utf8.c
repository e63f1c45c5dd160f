/* utf8.c — UTF-8 decoding and terminal notation (see utf8.h). */
#include "utf8.h"

#include <assert.h>
#include <string.h>

int utf8_len(const char *str, unsigned *cp)
{
	assert(str);
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

int utf8_is_control(unsigned cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

int utf8_is_bidi_control(unsigned cp)
{
	/* Bidi_Control (PropList.txt, Unicode 14.0): ALM, LRM, RLM, the
	 * embeddings and overrides U+202A..U+202E and the isolates
	 * U+2066..U+2069. */
	return cp == 0x61C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

int utf8_is_blank(unsigned cp)
{
	/* White_Space (PropList.txt) merged with Default_Ignorable_Code_Point
	 * (DerivedCoreProperties.txt), both Unicode 14.0; Python's unicodedata
	 * carries neither property, so the ranges are written here. The Hangul
	 * fillers U+115F, U+1160, U+3164 and U+FFA0 are in the latter. */
	static const unsigned blank[][2] = {
		{ 0x09, 0x0D }, { 0x20, 0x20 }, { 0x85, 0x85 }, { 0xA0, 0xA0 },
		{ 0xAD, 0xAD }, { 0x34F, 0x34F }, { 0x61C, 0x61C },
		{ 0x115F, 0x1160 }, { 0x1680, 0x1680 }, { 0x17B4, 0x17B5 },
		{ 0x180B, 0x180F }, { 0x2000, 0x200F }, { 0x2028, 0x202F },
		{ 0x205F, 0x206F }, { 0x3000, 0x3000 }, { 0x3164, 0x3164 },
		{ 0xFE00, 0xFE0F }, { 0xFEFF, 0xFEFF }, { 0xFFA0, 0xFFA0 },
		{ 0xFFF0, 0xFFF8 }, { 0x1BCA0, 0x1BCA3 }, { 0x1D173, 0x1D17A },
		{ 0xE0000, 0xE0FFF },
	};
	for (size_t i = 0; i < sizeof blank / sizeof *blank; i++)
		if (cp >= blank[i][0] && cp <= blank[i][1])
			return 1;
	return 0;
}

static size_t hex(char *out, unsigned char c)
{
	static const char digits[] = "0123456789ABCDEF";
	out[0] = '\\';
	out[1] = 'x';
	out[2] = digits[c >> 4];
	out[3] = digits[c & 15];
	return 4;
}

size_t utf8_term_char(const char *s, char *out, size_t *out_len)
{
	assert(s && *s && out && out_len);
	unsigned cp;
	int n = utf8_len(s, &cp);
	if (!n) {
		*out_len = hex(out, (unsigned char)*s);
		return 1;
	}
	if (cp < 0x20) {
		out[0] = '^';
		out[1] = (char)(cp + 0x40);
		*out_len = 2;
	} else if (cp == 0x7F) {
		out[0] = '^';
		out[1] = '?';
		*out_len = 2;
	} else if (cp >= 0x80 && cp <= 0x9F) {
		*out_len = hex(out, (unsigned char)s[0]);
		*out_len += hex(out + *out_len, (unsigned char)s[1]);
	} else if (utf8_is_bidi_control(cp)) {
		/* Shown, not obeyed: a name from a feed or a file must not
		 * reorder the rest of the row (CVE-2021-42574). */
		static const char digits[] = "0123456789ABCDEF";
		memcpy(out, "<U+", 3);
		for (int i = 0; i < 4; i++)
			out[3 + i] = digits[(cp >> (12 - 4 * i)) & 15];
		out[7] = '>';
		*out_len = 8;
	} else {
		memcpy(out, s, (size_t)n);
		*out_len = (size_t)n;
	}
	return (size_t)n;
}

char *utf8_term_buf(char *dst, size_t n, const char *s)
{
	if (!n)
		return dst;
	assert(dst && s);
	size_t len = 0;
	char one[UTF8_TERM_MAX];
	while (*s) {
		size_t k;
		s += utf8_term_char(s, one, &k);
		if (len + k <= n - 1) {
			memcpy(dst + len, one, k);
			len += k;
			continue;
		}
		/* Too long: the character, or its escape ("\xE2", "^["),
		 * is left out whole; a part of an escape kept "\x" at the
		 * end of a cut message. */
		break;
	}
	dst[len] = '\0';
	return dst;
}

/* One step over s: a valid sequence, or one byte that is not in one. */
static size_t utf8_step(const char *s)
{
	int l = utf8_len(s, NULL);
	return l > 0 ? (size_t)l : 1;
}

int utf8_char_cols(const char *s, size_t *len)
{
	assert(s && *s && len);
	unsigned cp;
	int l = utf8_len(s, &cp);
	if (l <= 0) {
		*len = 1;
		return 1;
	}
	*len = (size_t)l;
	return utf8_cp_cols(cp);
}

int utf8_cols_n(const char *s, size_t n)
{
	int w = 0;
	size_t len;
	for (size_t o = 0; o < n && s[o]; o += len)
		w += utf8_char_cols(s + o, &len);
	return w;
}

int utf8_cols(const char *s)
{
	return utf8_cols_n(s, (size_t)-1);
}

size_t utf8_cut(const char *s, size_t max)
{
	size_t o = 0;
	while (s[o]) {
		size_t l = utf8_step(s + o);
		if (o + l > max)
			break;
		o += l;
	}
	return o;
}

size_t utf8_cut_cols(const char *s, int cols)
{
	size_t o = 0, len;
	for (int w = 0; s[o]; o += len) {
		int c = utf8_char_cols(s + o, &len);
		if (w + c > cols)
			break;
		w += c;
	}
	return o;
}

size_t utf8_tail_cols(const char *s, int cols)
{
	int left = utf8_cols(s);
	size_t o = 0, len;
	while (s[o] && left > cols) {
		left -= utf8_char_cols(s + o, &len);
		o += len;
	}
	return o;
}

void utf8_cell(char *dst, size_t n, const char *s, int cols)
{
	if (!n)
		return;
	int cut = cols > 0 && utf8_cols(s) > cols;
	size_t take = utf8_cut_cols(s, cut ? cols - 1 : cols);
	take = utf8_cut(s, take < n - 1 ? take : n - 1);
	memcpy(dst, s, take);
	dst[take] = 0;
	size_t o = take;
	int w = utf8_cols(dst);
	if (cut && o + 1 < n) {
		dst[o++] = '~';
		w++;
	}
	for (; w < cols && o + 1 < n; w++)
		dst[o++] = ' ';
	dst[o] = 0;
}

size_t utf8_copy(char *dst, size_t n, const char *s)
{
	size_t k = utf8_cut(s, n - 1);
	memcpy(dst, s, k);
	dst[k] = '\0';
	return strlen(s);
}
