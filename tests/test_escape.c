/* test_escape.c — the output sinks of escape.h and the launch scripts that
 * use them. Every expected string is written out by hand from the rule it
 * tests (caret notation: ESC = 0x1B = '[' - 0x40; RFC 4180 quoting; HTML
 * entities; U+FFFD = EF BF BD in UTF-8, RFC 3629). */
#include "t.h"
#include "escape.h"
#include "utf8.h"
#include "catalog.h"
#include "cluster.h"
#include "launch.h"
#include "plan.h"
#include "pricing.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>

#define SINK(fn, in, want)                                               \
	do {                                                             \
		struct sbuf b_;                                          \
		sbuf_init(&b_);                                          \
		fn(&b_, in);                                             \
		const char *g_ = b_.s ? b_.s : "";                       \
		if (strcmp(g_, want))                                    \
			T_FAILF("%s(%s) = [%s], want [%s]", #fn, #in, g_, want); \
		sbuf_done(&b_);                                          \
	} while (0)

TEST(terminal)
{
	/* The review's payloads: a title change (ESC ] 0 ; ... BEL) and a
	 * screen clear (ESC [ 2 J). */
	SINK(esc_term, "a\x1b]0;pwn\x07z", "a^[]0;pwn^Gz");
	SINK(esc_term, "\x1b[2J", "^[[2J");
	SINK(esc_term, "a\nb\rc\x7f", "a^Jb^Mc^?");
	/* C1 CSI (U+009B, C2 9B) and a lone 0xFF byte. */
	SINK(esc_term, "x\xc2\x9b" "2J\xff", "x\\xC2\\x9B2J\\xFF");
	SINK(esc_term, "H100 \xe2\x80\x94 80 GB", "H100 \xe2\x80\x94 80 GB");
	char small[8];
	/* "ab^[cdef" cut to 7 bytes; a 3-byte dash is never cut in two. */
	CHECK(!strcmp(esc_term_buf(small, sizeof small, "ab\x1b" "cdef"), "ab^[cde"));
	CHECK(!strcmp(esc_term_buf(small, 6, "abcd\xe2\x80\x94"), "abcd"));
}

/* utf8.h, from RFC 3629 section 4's table of well-formed sequences:
 * C0 and C1 lead bytes and F5..FF never start one, E0 needs A0..BF next
 * (overlong otherwise), ED needs 80..9F (D800..DFFF are surrogates), F4
 * needs 80..8F (nothing above U+10FFFF). */
TEST(utf8)
{
	unsigned cp = 0;
	CHECK(utf8_len("A", &cp) == 1 && cp == 0x41);
	CHECK(utf8_len("\xc3\xa9", &cp) == 2 && cp == 0xE9);            /* e acute */
	CHECK(utf8_len("\xe2\x80\x94", &cp) == 3 && cp == 0x2014);      /* em dash */
	CHECK(utf8_len("\xf4\x8f\xbf\xbf", &cp) == 4 && cp == 0x10FFFF);
	CHECK(utf8_len("\xc0\xaf", NULL) == 0);          /* overlong '/' */
	CHECK(utf8_len("\xe0\x80\xaf", NULL) == 0);      /* overlong, 3 bytes */
	CHECK(utf8_len("\xed\xa0\x80", NULL) == 0);      /* U+D800 */
	CHECK(utf8_len("\xf4\x90\x80\x80", NULL) == 0);  /* U+110000 */
	CHECK(utf8_len("\xf5\x80\x80\x80", NULL) == 0);
	CHECK(utf8_len("\x80", NULL) == 0);               /* stray continuation */
	CHECK(utf8_len("\xe2\x80", NULL) == 0);          /* cut by the NUL */
	CHECK(utf8_is_control(0x1B) && utf8_is_control(0x7F) && utf8_is_control(0x9F));
	CHECK(!utf8_is_control(0x20) && !utf8_is_control(0xA0));
	/* The longest terminal form: a C1 control, two \xNN escapes. */
	char one[UTF8_TERM_MAX];
	size_t k = 0;
	CHECK(utf8_term_char("\xc2\x85z", one, &k) == 2 && k == 8 &&
	      !memcmp(one, "\\xC2\\x85", 8));
	CHECK(utf8_term_char("\x1b[", one, &k) == 1 && k == 2 && !memcmp(one, "^[", 2));
	/* Bidi_Control characters are shown by name, not obeyed: RLO
	 * (U+202E, E2 80 AE) would make a terminal print the rest of a row
	 * right to left (CVE-2021-42574). U+2066 (LRI) too; U+202F (narrow
	 * no-break space, E2 80 AF) is not one and is copied. */
	CHECK(utf8_term_char("\xe2\x80\xae" "evil", one, &k) == 3 && k == 8 &&
	      !memcmp(one, "<U+202E>", 8));
	CHECK(utf8_term_char("\xe2\x81\xa6", one, &k) == 3 && k == 8 &&
	      !memcmp(one, "<U+2066>", 8));
	CHECK(utf8_term_char("\xe2\x80\xaf", one, &k) == 3 && k == 3 &&
	      !memcmp(one, "\xe2\x80\xaf", 3));
	/* A cut never leaves half of a character: "ab" + a 3-byte dash in 5
	 * bytes keeps "ab"; in 6 it keeps all of it. */
	char buf[8];
	CHECK(!strcmp(utf8_term_buf(buf, 5, "ab\xe2\x80\x94"), "ab"));
	CHECK(!strcmp(utf8_term_buf(buf, 6, "ab\xe2\x80\x94"), "ab\xe2\x80\x94"));
	CHECK(!strcmp(utf8_term_buf(buf, 1, "abc"), ""));
}

/* The Unicode White_Space property (PropList.txt) and the
 * Default_Ignorable_Code_Point property (DerivedCoreProperties.txt 14.0:
 * U+00AD SOFT HYPHEN, U+200E LEFT-TO-RIGHT MARK, U+2066 LRI, U+FE0F
 * VARIATION SELECTOR-16, the Hangul fillers U+115F, U+1160, U+3164,
 * U+FFA0, U+E0041 TAG LATIN CAPITAL LETTER A, U+E01EF VARIATION
 * SELECTOR-256) are blank; a letter, a combining accent (it shows on its
 * letter), U+2010 HYPHEN, U+3001 IDEOGRAPHIC COMMA, U+FF01 FULLWIDTH
 * EXCLAMATION MARK, U+1BCA4 and U+E1000 (just past ranges of the set) are
 * not. */
TEST(utf8_blank)
{
	const unsigned blank[] = { ' ', '\t', 0x85, 0xA0, 0x1680, 0x2000, 0x2003, 0x200A,
				   0x200B, 0x2028, 0x202F, 0x205F, 0x2060, 0x3000, 0xFEFF,
				   0xAD, 0x200E, 0x2066, 0xFE0F, 0x115F, 0x1160, 0x3164,
				   0xFFA0, 0xE0041, 0xE01EF };
	for (size_t i = 0; i < sizeof blank / sizeof *blank; i++)
		CHECK_EQ_INT(utf8_is_blank(blank[i]), 1);
	const unsigned not_blank[] = { 'a', '_', 0x301, 0x2010, 0x3001, 0xFF01, 0x1BCA4,
				       0xE1000 };
	for (size_t i = 0; i < sizeof not_blank / sizeof *not_blank; i++)
		CHECK_EQ_INT(utf8_is_blank(not_blank[i]), 0);
}

/* Cutting labels on character boundaries and terminal columns:
 * "a\xe6\x97\xa5\xe6\x9c\xac" is "a", U+65E5 and U+672C, 7 bytes in 3
 * characters. The two CJK characters are East_Asian_Width W
 * (EastAsianWidth.txt: 4E00..9FFF is W), so a terminal gives them 2
 * columns each: 1 + 2 + 2 = 5 columns. A cut at
 * 5 bytes must drop the second CJK character whole (keeping 4 bytes), and
 * a 3-byte cut keeps only "a"; a cut at 2 columns keeps only "a" (U+65E5
 * would end in column 3), one at 3 columns keeps "a" and U+65E5. A cell of
 * 7 pads with 2 spaces; a cell of 4 holds "a", U+65E5 and "~"; a cell of 3
 * holds "a~" and a space (U+65E5 and "~" need 3 columns after "a"). A stray
 * continuation byte takes one column. */
TEST(utf8_cuts)
{
	const char *s = "a\xe6\x97\xa5\xe6\x9c\xac";
	CHECK_EQ_INT(utf8_cols(s), 5);
	CHECK_EQ_INT(utf8_cols_n(s, 4), 3);
	CHECK_EQ_INT((int)utf8_cut(s, 7), 7);
	CHECK_EQ_INT((int)utf8_cut(s, 6), 4);
	CHECK_EQ_INT((int)utf8_cut(s, 5), 4);
	CHECK_EQ_INT((int)utf8_cut(s, 3), 1);
	CHECK_EQ_INT((int)utf8_cut(s, 0), 0);
	CHECK_EQ_INT((int)utf8_cut_cols(s, 2), 1);
	CHECK_EQ_INT((int)utf8_cut_cols(s, 3), 4);
	CHECK_EQ_INT((int)utf8_cut_cols(s, 9), 7);
	CHECK_EQ_INT((int)utf8_tail_cols(s, 2), 4);
	CHECK_EQ_INT((int)utf8_tail_cols(s, 3), 4);
	CHECK_EQ_INT((int)utf8_tail_cols(s, 5), 0);
	CHECK_EQ_INT(utf8_cols("\x80x"), 2);
	char c[32];
	utf8_cell(c, sizeof c, s, 7);
	CHECK_STR(c, "a\xe6\x97\xa5\xe6\x9c\xac  ");
	utf8_cell(c, sizeof c, s, 2);
	CHECK_STR(c, "a~");
	utf8_cell(c, sizeof c, s, 3);
	CHECK_STR(c, "a~ ");
	utf8_cell(c, sizeof c, s, 4);
	CHECK_STR(c, "a\xe6\x97\xa5~");
	utf8_cell(c, sizeof c, s, 5);
	CHECK_STR(c, s);
	/* a buffer too small for the cell: cut short, still whole characters
	 * (then padded as far as the buffer goes) */
	utf8_cell(c, 4, s, 7);
	CHECK_STR(c, "a  ");
}

/* Columns of single code points, against the wcwidth rules (POSIX) and
 * the Unicode data: U+00E9 (Latin, 1), U+0301 COMBINING ACUTE ACCENT (Mn,
 * 0), U+200B ZERO WIDTH SPACE (Cf, 0), U+00AD SOFT HYPHEN (1, as wcwidth
 * gives it), U+3000 IDEOGRAPHIC SPACE (F, 2), U+AC00 HANGUL SYLLABLE GA
 * (W, 2), U+1160 HANGUL JUNGSEONG FILLER (0), U+FF21 FULLWIDTH LATIN
 * CAPITAL LETTER A (F, 2), U+FF61 HALFWIDTH IDEOGRAPHIC FULL STOP (H, 1),
 * U+1F600 GRINNING FACE (W, 2), U+2603 SNOWMAN (N, text style: 1),
 * U+20000 (CJK Extension B, W, 2), U+E000 (private use, 1). "e" and
 * U+0301 are one column: the accent sits on the e. */
TEST(utf8_code_point_cols)
{
	CHECK_EQ_INT(utf8_cp_cols('a'), 1);
	CHECK_EQ_INT(utf8_cp_cols(0xE9), 1);
	CHECK_EQ_INT(utf8_cp_cols(0x301), 0);
	CHECK_EQ_INT(utf8_cp_cols(0x200B), 0);
	CHECK_EQ_INT(utf8_cp_cols(0xAD), 1);
	CHECK_EQ_INT(utf8_cp_cols(0x3000), 2);
	CHECK_EQ_INT(utf8_cp_cols(0xAC00), 2);
	CHECK_EQ_INT(utf8_cp_cols(0x1160), 0);
	CHECK_EQ_INT(utf8_cp_cols(0xFF21), 2);
	CHECK_EQ_INT(utf8_cp_cols(0xFF61), 1);
	CHECK_EQ_INT(utf8_cp_cols(0x1F600), 2);
	CHECK_EQ_INT(utf8_cp_cols(0x2603), 1);
	CHECK_EQ_INT(utf8_cp_cols(0x20000), 2);
	CHECK_EQ_INT(utf8_cp_cols(0xE000), 1);
	CHECK_EQ_INT(utf8_cols("e\xcc\x81"), 1);
	CHECK_EQ_INT((int)utf8_cut_cols("e\xcc\x81x", 1), 3);
}

TEST(printable)
{
	CHECK(esc_is_printable("Llama-3.1 8B", 64));
	CHECK(esc_is_printable("Gr\xc3\xb6\xc3\x9f" "e", 64));
	CHECK(!esc_is_printable("a\nb", 64));
	CHECK(!esc_is_printable("\xc0\xaf", 64));          /* overlong '/' */
	CHECK(!esc_is_printable("\xed\xa0\x80", 64));      /* surrogate D800 */
	CHECK(!esc_is_printable("\xf4\x90\x80\x80", 64));  /* U+110000 */
	CHECK(!esc_is_printable("\xe2\x80", 64));          /* cut sequence */
	CHECK(!esc_is_printable("abcde", 4));
	/* the explicit directional formatting characters (UAX #9 section 2,
	 * the ones CVE-2021-42574 names) inside a name: U+202A LEFT-TO-RIGHT
	 * EMBEDDING, U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT
	 * ISOLATE, U+2069 POP DIRECTIONAL ISOLATE */
	CHECK(!esc_is_printable("a\xe2\x80\xaa" "b", 64));
	CHECK(!esc_is_printable("a\xe2\x80\xae" "b", 64));
	CHECK(!esc_is_printable("a\xe2\x81\xa6" "b", 64));
	CHECK(!esc_is_printable("a\xe2\x81\xa9" "b", 64));
	/* allowed: the marks U+200F RIGHT-TO-LEFT MARK and U+061C ARABIC
	 * LETTER MARK, U+202F NARROW NO-BREAK SPACE, U+2065 (unassigned),
	 * Hebrew alef U+05D0 */
	CHECK(esc_is_printable("a\xe2\x80\x8f" "b", 64));
	CHECK(esc_is_printable("a\xd8\x9c" "b", 64));
	CHECK(esc_is_printable("a\xe2\x80\xaf" "b", 64));
	CHECK(esc_is_printable("a\xe2\x81\xa5" "b", 64));
	CHECK(esc_is_printable("\xd7\x90", 64));
}

TEST(scrub)
{
	/* one '?' per byte of what is refused: ESC (1 byte), U+202E (3
	 * bytes), a lone continuation byte (1) */
	char s[] = "a\x1b[b\xe2\x80\xae" "c\x80" "d\xc3\xa9";
	esc_scrub(s);
	CHECK_STR(s, "a?[b???c?d\xc3\xa9");
}

TEST(shell)
{
	SINK(esc_shell, "h100-sxm_2", "h100-sxm_2");
	SINK(esc_shell, "", "''");
	SINK(esc_shell, "$(touch x)", "'$(touch x)'");
	SINK(esc_shell, "it's", "'it'\\''s'");
	SINK(esc_shell, "a\nb'\\", "$'a\\x0Ab\\'\\\\'");
}

TEST(csv)
{
	SINK(esc_csv, "h100", "h100");
	SINK(esc_csv, "a,b", "\"a,b\"");
	SINK(esc_csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
	SINK(esc_csv, "=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"");
	SINK(esc_csv, "@SUM(A1)", "\"'@SUM(A1)\"");
	SINK(esc_csv, "+1+cmd", "\"'+1+cmd\"");
	SINK(esc_csv, "-4", "-4");
	SINK(esc_csv, "-1.5e3", "-1.5e3");
}

TEST(markdown_html)
{
	/* '<' as an entity: no raw HTML tag; '>' after text starts nothing
	 * (CommonMark 0.31, 6.6 "Raw HTML" needs the '<') and stays as it is */
	SINK(esc_md, "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>");
	/* '>' first on a line after at most 3 spaces is a block quote
	 * marker (5.1): escaped where only spaces (or CR/LF, written as
	 * spaces) precede it, "\>" showing as ">" (2.4); not elsewhere */
	SINK(esc_md, "west>east pp2", "west>east pp2");
	SINK(esc_md, ">east", "\\>east");
	SINK(esc_md, "  >x>y", "  \\>x>y");
	SINK(esc_md, "\n>x", " \\>x");
	SINK(esc_md, "a >x", "a >x");
	SINK(esc_md, "a|b\nc", "a\\|b c");
	/* Controls as \\xNN (shown as \xNN): the caret forms ^[ ^] ^_ ^\ are
	 * live Markdown (a link bracket, an emphasis mark, an escape). */
	SINK(esc_md, "x\x1b[2J", "x\\\\x1B\\[2J");
	SINK(esc_md, "a\x1d\x1f\x1c" "b", "a\\\\x1D\\\\x1F\\\\x1C" "b");
	SINK(esc_md, "c\xc2\x85" "d\xff", "c\\\\xC2\\\\x85" "d\\\\xFF");   /* U+0085 NEL; a stray byte */
	/* Inline markup shows as text (CommonMark 2.4: a backslash before
	 * ASCII punctuation makes it literal): no link, emphasis, code span or
	 * strike from a name. "_" is escaped everywhere: beside non-ASCII
	 * punctuation (CommonMark 6.2) "«_docs_»" is emphasis. A trailing " #"
	 * ends a heading (CommonMark 4.2), so # is escaped too. */
	SINK(esc_md, "[a](javascript:b) *x* `y` ~~z~~ _u_ snake_case \\",
	     "\\[a\\](javascript:b) \\*x\\* \\`y\\` \\~\\~z\\~\\~ \\_u\\_ snake\\_case \\\\");
	SINK(esc_md, "\xc2\xab_docs_\xc2\xbb", "\xc2\xab\\_docs\\_\xc2\xbb");
	SINK(esc_md, "pool #", "pool \\#");
	SINK(esc_html, "\"&'", "&quot;&amp;&#39;");
}

TEST(json)
{
	SINK(esc_json, "ok \xc3\xa9", "ok \xc3\xa9");
	SINK(esc_json, "a\xff" "b", "a\xef\xbf\xbd" "b");
	SINK(esc_json, "\xe2\x80", "\xef\xbf\xbd\xef\xbf\xbd");
}

/* A Slurm script for names holding $(), backticks, quotes and newlines:
 * bash -n accepts it and running its comment block runs nothing. */
TEST(launch_names)
{
	struct catalog cat;
	struct hp_err err = {0};
	CHECK(catalog_load(&cat, "/nonexistent", &err) == 0);
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM", &cat, &err) == 0);
	hp_strlcpy(c.pools[0].name, "p\n/usr/bin/touch PWNED1\n#", sizeof c.pools[0].name);
	hp_strlcpy(c.pools[0].gpu.name, "g`touch PWNED2`'\"\r", sizeof c.pools[0].gpu.name);
	struct model_spec m = *catalog_model(&cat, "llama3.1-8b");
	hp_strlcpy(m.display, "Evil\n$(/usr/bin/touch PWNED3)\n", sizeof m.display);
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 16;
	CHECK(plan_uniform(&p, &c, &m, 0, 8, 1, 2, &err) == 0);
	char *out = NULL, *notes = NULL;
	size_t len = 0;
	CHECK(launch_render(&c, &m, &p, LAUNCH_SLURM, 0, "test", &out, &len, &notes, &err) == 0);
	char dir[] = "/tmp/hp-escape-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[64], cmd[256];
	snprintf(path, sizeof path, "%s/job.sh", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f && out) {
		/* Everything up to "set -euo pipefail" is the comment block. */
		char *end = strstr(out, "set -euo pipefail");
		CHECK(end != NULL);
		fwrite(out, 1, end ? (size_t)(end - out) : len, f);
		fclose(f);
	}
	snprintf(cmd, sizeof cmd, "bash -n %s/job.sh", dir);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof cmd, "cd %s && bash job.sh && test ! -e PWNED1 && "
		 "test ! -e PWNED2 && test ! -e PWNED3", dir);
	CHECK(system(cmd) == 0);
	/* The whole script parses too. */
	if (out && (f = fopen(path, "w"))) {
		fwrite(out, 1, len, f);
		fclose(f);
	}
	snprintf(cmd, sizeof cmd, "bash -n %s/job.sh", dir);
	CHECK(system(cmd) == 0);
	CHECK(out && strstr(out, "# Pool $'p\\x0A/usr/bin/touch PWNED1\\x0A#' "));
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	free(out);
	free(notes);
	plan_free(&p);
	catalog_done(&cat);
}

/* pricing_add_source on a full table: it returned the last source's
 * index, so a 17th cached source silently took over the 16th's offers. The
 * table holds PRICE_MAX_SOURCES + 1 = 17 (pricing.h). */
TEST(price_sources_full)
{
	struct price_book pb;
	memset(&pb, 0, sizeof pb);
	for (int i = 0; i < PRICE_MAX_SOURCES + 1; i++)
		CHECK_EQ_INT(pricing_add_source(&pb, "s", "", PRICE_LIVE, 1), i);
	CHECK_EQ_INT(pricing_add_source(&pb, "one too many", "", PRICE_LIVE, 1), -1);
	CHECK_EQ_INT(pb.n_src, PRICE_MAX_SOURCES + 1);
	pricing_free(&pb);
}

/* Checked ranges of the shared parsers: 1e306 weeks and an overflowing
 * quantity are refused; 100 years (3,155,760,000 s) is the longest
 * duration. */
TEST(parser_ranges)
{
	double v = 0;
	CHECK(hp_parse_duration("1e306w", &v) < 0);
	CHECK(hp_parse_duration("100000000000000000000s", &v) < 0);
	CHECK(hp_parse_duration("36525d", &v) == 0 && v == 3155760000.0);
	CHECK(hp_parse_duration("36526d", &v) < 0);
	CHECK(hp_parse_quantity("1e308T", &v) < 0);
	CHECK(hp_parse_bytes("1e308TiB", &v) < 0);
}

int main(void)
{
	RUN(terminal);
	RUN(utf8);
	RUN(utf8_blank);
	RUN(utf8_cuts);
	RUN(utf8_code_point_cols);
	RUN(printable);
	RUN(scrub);
	RUN(shell);
	RUN(csv);
	RUN(markdown_html);
	RUN(json);
	RUN(launch_names);
	RUN(price_sources_full);
	RUN(parser_ranges);
	return t_done("escape");
}
