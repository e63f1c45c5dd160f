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
 * invisible format characters U+180E, U+200B..U+200D, U+2060 and U+FEFF,
 * which show nothing at all. 0 otherwise. */
int utf8_is_blank(unsigned cp);

/* Longest terminal form of one character: a two-byte C1 control as two
 * \xNN escapes (8 bytes). */
#define UTF8_TERM_MAX 8

/* The terminal form of the character at s (s non-empty, asserted): C0
 * controls and DEL as caret notation (ESC -> ^[, LF -> ^J, DEL -> ^?), C1
 * controls and each byte that is not valid UTF-8 as \xNN, anything else
 * copied. Writes *out_len (<= UTF8_TERM_MAX) bytes to out, unterminated;
 * returns how many bytes of s it consumed (1 to 4). */
size_t utf8_term_char(const char *s, char *out, size_t *out_len);

/* s in terminal form into dst, always NUL-terminated when n > 0, cut at
 * a character boundary of the output when dst is too small (so never in
 * the middle of a multi-byte character). Returns dst. Nothing is written
 * when n is 0. */
char *utf8_term_buf(char *dst, size_t n, const char *s);

/* Characters of s: one per valid sequence and one per byte that is not
 * part of one (the columns a terminal gives s when no character is wide,
 * the simplification every table of hetplan makes). */
int utf8_cols(const char *s);

/* Bytes of the longest prefix of s that holds at most max bytes and ends
 * on a character boundary: cut there, a label never ends inside a
 * multi-byte character. */
size_t utf8_cut(const char *s, size_t max);

/* Bytes of the prefix of s that holds its first cols characters (all of
 * s when it has fewer). */
size_t utf8_cut_cols(const char *s, int cols);

/* s as a table cell of exactly cols characters into dst (n bytes, always
 * NUL-terminated when n > 0): padded with spaces, or, when longer, its
 * first cols - 1 characters and "~" (ASCII, so every terminal shows the
 * cut at the same width). Cut short, never mid-character, when n is too
 * small for the cell. */
void utf8_cell(char *dst, size_t n, const char *s, int cols);

#endif
