/* utf8.h — UTF-8 decoding and the terminal's notation for control
 * characters: the bottom of the engine, below util.h (whose error messages
 * pass through utf8_term_buf) and escape.h (whose sinks are built on these
 * functions). Nothing here allocates, prints or fails: every function is
 * total over NUL-terminated input.
 *
 * UTF-8 validity follows RFC 3629 section 4: no overlong forms, no
 * surrogates D800..DFFF, nothing above U+10FFFF. Control characters are C0
 * (0x00..0x1F), DEL (0x7F) and C1 (U+0080..U+009F), the ranges ECMA-48
 * gives meaning to on a terminal. */
#ifndef HP_UTF8_H
#define HP_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1 to 4 bytes), or 0 when the
 * bytes there are not one: a stray continuation byte, an overlong form, a
 * surrogate, a code point over U+10FFFF, or a sequence cut by the NUL.
 * *cp gets the code point when cp is not NULL and the result is not 0.
 * s must not be NULL (asserted); at its NUL the result is 1, cp 0. */
int utf8_len(const char *s, unsigned *cp);

/* 1 when cp is a C0 control, DEL or a C1 control; 0 otherwise. */
int utf8_is_control(unsigned cp);

/* 1 when cp shows as blank space or as nothing: the Unicode White_Space
 * property (PropList.txt: U+0009..U+000D, U+0020, U+0085, U+00A0, U+1680,
 * U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000) and the
 * Default_Ignorable_Code_Point property (DerivedCoreProperties.txt, Unicode
 * 14.0: U+00AD, the zero-width spaces and joiners, the bidirectional marks
 * U+200E/U+200F and controls, variation selectors, the Hangul fillers
 * U+115F, U+1160, U+3164, U+FFA0, the tag characters), which a renderer
 * shows as nothing. 0 otherwise. */
int utf8_is_blank(unsigned cp);

/* 1 for the Bidi_Control characters (U+061C, U+200E, U+200F,
 * U+202A..U+202E, U+2066..U+2069), which make a terminal reorder the text
 * around them; 0 otherwise. */
int utf8_is_bidi_control(unsigned cp);

/* Longest terminal form of one character: a two-byte C1 control as two
 * \xNN escapes (8 bytes). */
#define UTF8_TERM_MAX 8

/* The terminal form of the character at s (s non-empty, asserted): C0
 * controls and DEL as caret notation (ESC -> ^[, LF -> ^J, DEL -> ^?), C1
 * controls and each byte that is not valid UTF-8 as \xNN, a Bidi_Control
 * character as <U+XXXX> (8 bytes), anything else copied. Writes *out_len (<= UTF8_TERM_MAX) bytes to out, unterminated;
 * returns how many bytes of s it consumed (1 to 4). */
size_t utf8_term_char(const char *s, char *out, size_t *out_len);

/* s in terminal form into dst, always NUL-terminated when n > 0, cut at
 * a character boundary of the output when dst is too small (so never in
 * the middle of a multi-byte character). Returns dst. Nothing is written
 * when n is 0. */
char *utf8_term_buf(char *dst, size_t n, const char *s);

/* Terminal columns of code point cp, the rules of wcwidth (POSIX): 0 for
 * a combining mark, a format character (U+200B ZERO WIDTH SPACE, U+FEFF)
 * or a Hangul medial vowel, 2 for an East Asian wide or fullwidth
 * character (CJK, Hangul syllables, emoji in emoji style; UAX #11), 1 for
 * anything else, controls included (every sink shows a control in an
 * escaped form before it is measured). Unlike wcwidth it does not depend
 * on the locale, so every table of hetplan lines up the same way under
 * every LANG. The tables are generated from the Unicode Character
 * Database (src/utf8_width.c, tools/utf8_width_gen.py). */
int utf8_cp_cols(unsigned cp);

/* Terminal columns of the character at s and, in *len, its bytes: a
 * valid sequence takes utf8_cp_cols of its code point; a byte that is not
 * part of one takes 1 column and 1 byte. s non-empty (asserted). */
int utf8_char_cols(const char *s, size_t *len);

/* Terminal columns of s (utf8_char_cols summed), and of its first n bytes
 * (a character that crosses byte n counts whole). */
int utf8_cols(const char *s);
int utf8_cols_n(const char *s, size_t n);

/* Bytes of the longest prefix of s that holds at most max bytes and ends
 * on a character boundary: cut there, a label never ends inside a
 * multi-byte character. */
size_t utf8_cut(const char *s, size_t max);
/* The arguments of "%.*s" that print at most max bytes of s, cut on a
 * character: a byte precision alone ("%.24s") can split a UTF-8 name, and
 * the split byte is drawn as \xE6 or, in a name, saved as invalid UTF-8. */
#define UTF8_CUT(s, max) (int)utf8_cut((s), (max)), (s)

/* s into dst (n > 0 bytes, always NUL-terminated), cut by utf8_cut to
 * n - 1 bytes: a copy never ends inside a character. Returns strlen(s),
 * as strlcpy does, so a caller tells a cut by the result >= n. */
size_t utf8_copy(char *dst, size_t n, const char *s);

/* Bytes of the longest prefix of s that takes at most cols terminal
 * columns (all of s when it takes fewer); zero-width characters after the
 * last one that fits stay with it. */
size_t utf8_cut_cols(const char *s, int cols);

/* The byte offset where the longest suffix of s that takes at most cols
 * terminal columns begins (always a character boundary). */
size_t utf8_tail_cols(const char *s, int cols);

/* s as a table cell of exactly cols terminal columns into dst (n bytes,
 * always NUL-terminated when n > 0): padded with spaces, or, when wider,
 * the characters of its start that fit in cols - 1 columns, "~" (ASCII, so
 * every terminal shows the cut at the same width) and a space when a wide
 * character did not fit. Cut short, never mid-character, when n is too
 * small for the cell. */
void utf8_cell(char *dst, size_t n, const char *s, int cols);

#endif
