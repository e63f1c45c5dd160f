/* tui_draw.c — the TUI's drawing vocabulary: a theme table (each meaning
 * has a colour pair and a monochrome attribute, so NO_COLOR loses nothing
 * but colour), glyph tables for UTF-8 and plain ASCII, clipped text, bars,
 * list scrolling and a one-line editor. Only the main thread calls these. */
#define _XOPEN_SOURCE 700   /* wcwidth: the cells a character takes */
#include "tui_int.h"
#include "escape.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

static const struct {
	short fg, bg;
	int attr;          /* added in colour */
	int mono;          /* used alone without colour */
} theme[C_COUNT] = {
	[C_NORMAL]  = { -1, -1, 0, 0 },
	[C_HEADER]  = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[C_TAB]     = { -1, -1, 0, 0 },
	[C_TAB_ON]  = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD },
	[C_KEY]     = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[C_HINT]    = { -1, -1, 0, 0 },
	[C_SEL]     = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[C_SEL_DIM] = { -1, -1, A_REVERSE, A_UNDERLINE },
	[C_TITLE]   = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[C_GOOD]    = { COLOR_GREEN, -1, 0, 0 },
	[C_BAD]     = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[C_WARN]    = { COLOR_YELLOW, -1, 0, A_BOLD },
	[C_DIM]     = { COLOR_BLUE, -1, A_BOLD, 0 },
	[C_PARETO]  = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[C_BUSY]    = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE },
	/* step-time segments: compute first, comm in cool colours, waste warm */
	[C_SEG0]    = { COLOR_GREEN, -1, 0, 0 },
	[C_SEG1]    = { COLOR_CYAN, -1, 0, 0 },
	[C_SEG2]    = { COLOR_BLUE, -1, A_BOLD, 0 },
	[C_SEG3]    = { COLOR_MAGENTA, -1, 0, 0 },
	[C_SEG4]    = { COLOR_YELLOW, -1, 0, 0 },
	[C_SEG5]    = { COLOR_RED, -1, 0, 0 },
	[C_SEG6]    = { COLOR_WHITE, -1, 0, 0 },
	[C_SEG7]    = { COLOR_CYAN, -1, A_BOLD, 0 },
	[C_SEG8]    = { COLOR_YELLOW, -1, A_BOLD, 0 },
	[C_SEG9]    = { COLOR_BLACK, -1, A_BOLD, 0 },
	/* host offload: a wait like the bubble's, apart from the optimizer
	 * (both show in one activation-offload step) */
	[C_SEG10]   = { COLOR_MAGENTA, -1, A_BOLD, 0 },
};

/* Glyphs: UTF-8 and ASCII side by side. Bar segments (step time, memory)
 * are solid blocks told apart by colour; without colour each needs a shape
 * of its own, so they take the ASCII letters in either set. */
static const char *const glyph_utf8[G_COUNT] = {
	[G_BAR] = "\xe2\x96\x88", [G_BAR_EMPTY] = "\xc2\xb7", [G_PARETO] = "\xe2\x98\x85",
	[G_MARK] = "\xe2\x97\x8f", [G_HLINE] = "\xe2\x94\x80", [G_VLINE] = "\xe2\x94\x82",
	[G_ARROW] = "\xe2\x96\xb6", [G_DOT] = "\xc2\xb7", [G_UP] = "\xe2\x96\xb2",
	[G_DOWN] = "\xe2\x96\xbc", [G_MID] = "\xe2\x80\xa6",
	[G_TL] = "\xe2\x94\x8c", [G_TR] = "\xe2\x94\x90", [G_BL] = "\xe2\x94\x94",
	[G_BR] = "\xe2\x94\x98",
};
static const char *const glyph_ascii[G_COUNT] = {
	[G_BAR] = "#", [G_BAR_EMPTY] = ".", [G_PARETO] = "*", [G_MARK] = "o",
	[G_HLINE] = "-", [G_VLINE] = "|", [G_ARROW] = ">", [G_DOT] = ".",
	[G_UP] = "^", [G_DOWN] = "v", [G_MID] = "~",
	[G_SEG0] = "#", [G_SEG1] = "=", [G_SEG2] = "%", [G_SEG3] = "+",
	[G_SEG4] = "@", [G_SEG5] = "x", [G_SEG6] = "o", [G_SEG7] = "~",
	[G_SEG8] = "&", [G_SEG9] = ":", [G_SEG10] = "h",
	[G_TL] = "+", [G_TR] = "+", [G_BL] = "+", [G_BR] = "+",
};

void tui_theme_init(struct tui *t)
{
	if (!t->color)
		return;
	start_color();
	use_default_colors();
	for (int i = 1; i < C_COUNT; i++)
		init_pair((short)i, theme[i].fg, theme[i].bg);
}

int tui_attr(const struct tui *t, enum tui_color c)
{
	if (!t->color)
		return theme[c].mono;
	return c == C_NORMAL ? 0 : (int)COLOR_PAIR(c) | theme[c].attr;
}

const char *tui_glyph(const struct tui *t, enum tui_glyph g)
{
	if (g >= G_SEG0 && g <= G_SEG10)
		return t->color && t->utf8 ? glyph_utf8[G_BAR] : glyph_ascii[g];
	return t->utf8 ? glyph_utf8[g] : glyph_ascii[g];
}

/* The character at s: its bytes in *len and the terminal cells it takes
 * (wcwidth in the locale: 2 for a wide CJK character, 0 for a combining
 * mark). A byte that starts no character of the locale takes 1 cell, with
 * any continuation bytes after it (as ncurses shows a stray byte). */
static int char_cells(const char *s, int *len)
{
	if ((unsigned char)*s < 0x80) {   /* ASCII: the common case, no decoding */
		*len = 1;
		return 1;
	}
	mbstate_t st;
	memset(&st, 0, sizeof st);
	wchar_t wc;
	size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
	if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
		int k = 1;
		while (((unsigned char)s[k] & 0xc0) == 0x80)
			k++;
		*len = k;
		return 1;
	}
	*len = (int)n;
	int w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

int tui_cells(const char *s, size_t n)
{
	int w = 0, len;
	for (size_t i = 0; i < n && s[i]; i += (size_t)len)
		w += char_cells(s + i, &len);
	return w;
}

size_t tui_cut_cells(const char *s, int cells)
{
	size_t i = 0;
	int w = 0, len;
	while (s[i]) {
		int c = char_cells(s + i, &len);
		if (w + c > cells)
			break;
		w += c;
		i += (size_t)len;
	}
	return i;
}

int tui_width(const char *s)
{
	return tui_cells(s, (size_t)-1);
}

void tui_cell(char *dst, size_t n, const char *s, int cols)
{
	/* escaped first (tui_put would): "^[" takes the cells it shows in */
	char safe[512];
	if (!esc_is_printable(s, (size_t)-1))
		s = esc_term_buf(safe, sizeof safe, s);
	size_t o = 0;
	int w = 0, len;
	const char *p = s;
	int whole = tui_width(s) <= cols;
	while (*p) {
		int c = char_cells(p, &len);
		if (w + c > cols - (whole ? 0 : 1) || o + (size_t)len + 1 >= n)
			break;
		memcpy(dst + o, p, (size_t)len);
		o += (size_t)len;
		w += c;
		p += len;
	}
	if (!whole && w < cols && o + 2 < n) {
		dst[o++] = '~';
		w++;
	}
	while (w < cols && o + 1 < n) {
		dst[o++] = ' ';
		w++;
	}
	if (n)
		dst[o] = 0;
}

int tui_put(int y, int x, int w, int attr, const char *s)
{
	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + w > COLS)
		w = COLS - x;
	/* Text from files and feeds: a newline or escape would move the
	 * cursor and spoof other rows, so it is drawn as ^J, ^[ (escape.h). */
	char safe[1024];
	if (!esc_is_printable(s, (size_t)-1))
		s = esc_term_buf(safe, sizeof safe, s);
	/* Whole characters up to w cells: a wide one that would cross the
	 * edge stays out. */
	int cols = 0, len;
	const char *p = s;
	while (*p) {
		int c = char_cells(p, &len);
		if (cols + c > w)
			break;
		cols += c;
		p += len;
	}
	if (attr)
		attron(attr);
	mvaddnstr(y, x, s, (int)(p - s));
	if (attr)
		attroff(attr);
	return cols;
}

int tui_putf(int y, int x, int w, int attr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return tui_put(y, x, w, attr, buf);
}

void tui_putr(int y, int x, int w, int attr, const char *s)
{
	int n = tui_width(s);
	if (n > w)
		n = w;
	tui_put(y, x + w - n, n, attr, s);
}

void tui_fill(int y, int x, int w, int attr)
{
	if (w <= 0 || y < 0 || y >= LINES)
		return;
	if (x + w > COLS)
		w = COLS - x;
	if (attr)
		attron(attr);
	mvhline(y, x, ' ', w);
	if (attr)
		attroff(attr);
}

void tui_section(const struct tui *t, int y, int x, int w, const char *title)
{
	const char *h = tui_glyph(t, G_HLINE);
	int a = tui_attr(t, C_DIM);
	tui_put(y, x, 2, a, h);
	tui_put(y, x + 1, 1, a, h);
	int n = tui_putf(y, x + 3, w - 3, tui_attr(t, C_TITLE), "%s", title);
	for (int i = x + 4 + n; i < x + w; i++)
		tui_put(y, i, 1, a, h);
}

void tui_bar(const struct tui *t, int y, int x, int w, double frac, int attr)
{
	if (frac < 0)
		frac = 0;
	int full = (int)(frac * w + 0.5);
	if (full > w)
		full = w;
	for (int i = 0; i < w; i++)
		tui_put(y, x + i, 1, i < full ? attr : tui_attr(t, C_DIM),
			tui_glyph(t, i < full ? G_BAR : G_BAR_EMPTY));
}

void tui_list_fix(struct tui_list *l, int n, int h)
{
	if (l->sel >= n)
		l->sel = n - 1;
	if (l->sel < 0)
		l->sel = 0;
	if (h < 1)
		h = 1;
	if (l->top > l->sel)
		l->top = l->sel;
	if (l->sel >= l->top + h)
		l->top = l->sel - h + 1;
	if (l->top > n - h)
		l->top = n - h;
	if (l->top < 0)
		l->top = 0;
}

int tui_list_move(struct tui_list *l, int action, int n, int h)
{
	switch (action) {
	case ACT_UP: l->sel--; break;
	case ACT_DOWN: l->sel++; break;
	case ACT_PGUP: l->sel -= h > 1 ? h - 1 : 1; break;
	case ACT_PGDN: l->sel += h > 1 ? h - 1 : 1; break;
	case ACT_TOP: l->sel = 0; break;
	case ACT_BOTTOM: l->sel = n - 1; break;
	default: return 0;
	}
	tui_list_fix(l, n, h);
	return 1;
}

int tui_match(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return n == 0;
}

void lineedit_set(struct lineedit *e, const char *s)
{
	/* cut on a character: the buffer always holds whole UTF-8 ones */
	size_t n = utf8_cut(s, sizeof e->buf - 1);
	memcpy(e->buf, s, n);
	e->buf[n] = 0;
	e->len = e->cur = (int)n;
	e->npend = e->need = 0;
}

static int is_cont(int c)
{
	return (c & 0xc0) == 0x80;
}

/* The start of the character before byte i, and the byte after the one at
 * i: the cursor and the deletions move by whole characters. */
static int char_prev(const struct lineedit *e, int i)
{
	do
		i--;
	while (i > 0 && is_cont((unsigned char)e->buf[i]));
	return i;
}

static int char_next(const struct lineedit *e, int i)
{
	do
		i++;
	while (i < e->len && is_cont((unsigned char)e->buf[i]));
	return i;
}

static void cut_range(struct lineedit *e, int from, int to)
{
	memmove(e->buf + from, e->buf + to, (size_t)(e->len - to + 1));
	e->len -= to - from;
	e->cur = from;
}

/* The bytes of one character at the cursor, when they fit. */
static void insert_bytes(struct lineedit *e, const char *b, int n)
{
	if (e->len + n >= (int)sizeof e->buf)
		return;
	memmove(e->buf + e->cur + n, e->buf + e->cur, (size_t)(e->len - e->cur + 1));
	memcpy(e->buf + e->cur, b, (size_t)n);
	e->cur += n;
	e->len += n;
}

/* A typed byte: ASCII, or one byte of a UTF-8 character (getch gives a
 * multi-byte key byte by byte). The bytes of a multi-byte character wait
 * in pend and go in only once it is whole and valid UTF-8 (utf8_len: no
 * overlong form, no surrogate, nothing over U+10FFFF) and fits; one cut
 * short by another key or byte is dropped, as are stray continuation
 * bytes and bytes that start no character, so the buffer stays valid
 * UTF-8. */
static void insert_byte(struct lineedit *e, int ch)
{
	if (is_cont(ch)) {
		if (!e->npend)
			return;
		e->pend[e->npend++] = (char)ch;
		if (e->npend < e->need)
			return;
		char whole[sizeof e->pend + 1];
		memcpy(whole, e->pend, (size_t)e->npend);
		whole[e->npend] = 0;
		int n = e->npend;
		e->npend = e->need = 0;
		if (utf8_len(whole, NULL) == n)
			insert_bytes(e, whole, n);
		return;
	}
	e->npend = e->need = 0;   /* a character cut short is dropped */
	if (ch < 0x80) {
		char c = (char)ch;
		insert_bytes(e, &c, 1);
		return;
	}
	/* lead bytes: C2..DF start 2 bytes, E0..EF 3, F0..F4 4 (RFC 3629
	 * section 4; C0, C1 and F5..FF start nothing valid) */
	int need = ch >= 0xc2 && ch < 0xe0 ? 2 : ch >= 0xe0 && ch < 0xf0 ? 3
		: ch >= 0xf0 && ch < 0xf5 ? 4 : 0;
	if (!need)
		return;
	e->pend[0] = (char)ch;
	e->npend = 1;
	e->need = need;
}

int lineedit_key(struct lineedit *e, int ch)
{
	if (!(ch >= 0x80 && ch < 0x100))
		e->npend = e->need = 0;   /* any other key ends a character */
	switch (ch) {
	case '\n': case '\r': case KEY_ENTER:
		return 1;
	case 27:
		return -1;
	case KEY_LEFT: if (e->cur > 0) e->cur = char_prev(e, e->cur); break;
	case KEY_RIGHT: if (e->cur < e->len) e->cur = char_next(e, e->cur); break;
	case KEY_HOME: case 1: e->cur = 0; break;
	case KEY_END: case 5: e->cur = e->len; break;
	case 21:   /* C-u: clear */
		e->len = e->cur = 0;
		e->buf[0] = 0;
		break;
	case KEY_BACKSPACE: case 127: case 8:
		if (e->cur > 0)
			cut_range(e, char_prev(e, e->cur), e->cur);
		break;
	case KEY_DC:
		if (e->cur < e->len)
			cut_range(e, e->cur, char_next(e, e->cur));
		break;
	default:
		if ((ch >= 32 && ch < 127) || (ch >= 0x80 && ch < 0x100))
			insert_byte(e, ch);
	}
	return 0;
}

int tui_put_wrapped(int y, int x, int w, int maxl, int attr, const char *s)
{
	int lines = 0;
	while (*s && lines < maxl && w > 0) {
		int len = (int)strlen(s), cut = len;
		if (len > w) {
			cut = w;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = w;
		}
		char buf[256];
		snprintf(buf, sizeof buf, "%.*s", HP_MIN(cut, (int)sizeof buf - 1), s);
		tui_put(y + lines++, x, w, attr, buf);
		s += cut;
		while (*s == ' ')
			s++;
	}
	return lines;
}

void tui_notes_add(struct tui_notes *nt, const char *label, const char *text)
{
	/* a label wider than its column pushes the text along one space */
	int lw = HP_MAX(TUI_NOTE_LABEL, tui_width(label) + 1);
	int first = 1;
	while (nt->n < TUI_NOTES_MAX) {
		int room = TUI_NOTE_WRAP - lw, len = (int)strlen(text), cut = len;
		if (len > room) {
			cut = room;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = room;
		}
		snprintf(nt->buf[nt->n], TUI_NOTE_W, "%-*s%.*s", lw, first ? label : "", cut, text);
		nt->line[nt->n] = nt->buf[nt->n];
		nt->n++;
		first = 0;
		text += cut;
		while (*text == ' ')
			text++;
		if (!*text)
			break;
	}
}
