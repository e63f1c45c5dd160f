/* t.h — hetplan's tiny test runner.
 *
 *   TEST(name) { CHECK(cond); CHECK_NEAR(got, want, rel_tol); ... }
 *   int main(void) { RUN(name); ...; return t_done("suite"); }
 *
 * Each CHECK failure prints file:line and the expression; a test passes when
 * none of its checks failed. t_done prints "suite: N passed, N failed" and
 * returns the exit status. tests/run.sh adds the suites up. */
#ifndef HP_T_H
#define HP_T_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int t_pass, t_fail, t_cur_failed;
static const char *t_cur;

#define TEST(name) static void name(void)
#define RUN(name)                                                        \
	do {                                                             \
		t_cur = #name;                                           \
		t_cur_failed = 0;                                        \
		name();                                                  \
		if (t_cur_failed)                                        \
			t_fail++;                                        \
		else                                                     \
			t_pass++;                                        \
	} while (0)

#define T_FAILF(...)                                                     \
	do {                                                             \
		if (!t_cur_failed)                                       \
			fprintf(stderr, "FAIL %s\n", t_cur);             \
		fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);        \
		fprintf(stderr, __VA_ARGS__);                            \
		fprintf(stderr, "\n");                                   \
		t_cur_failed = 1;                                        \
	} while (0)

#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond))                                             \
			T_FAILF("%s", #cond);                            \
	} while (0)

/* |got - want| <= rel * |want| (or <= rel when want is 0). */
#define CHECK_NEAR(got, want, rel)                                       \
	do {                                                             \
		double g_ = (double)(got), w_ = (double)(want);          \
		double tol_ = (rel) * (w_ != 0 ? fabs(w_) : 1.0);        \
		if (!(fabs(g_ - w_) <= tol_))                            \
			T_FAILF("%s = %.9g, want %.9g (within %g%%)",    \
				#got, g_, w_, (rel) * 100.0);            \
	} while (0)

#define CHECK_EQ_INT(got, want)                                          \
	do {                                                             \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		if (g_ != w_)                                            \
			T_FAILF("%s = %lld, want %lld", #got, g_, w_);   \
	} while (0)

#define CHECK_STR(got, want)                                             \
	do {                                                             \
		const char *g_ = (got), *w_ = (want);                    \
		if (!g_ || strcmp(g_, w_))                               \
			T_FAILF("%s = \"%s\", want \"%s\"", #got,        \
				g_ ? g_ : "(null)", w_);                 \
	} while (0)

#define CHECK_CONTAINS(hay, needle)                                      \
	do {                                                             \
		const char *h_ = (hay), *n_ = (needle);                  \
		if (!h_ || !strstr(h_, n_))                              \
			T_FAILF("%s = \"%s\" does not contain \"%s\"",   \
				#hay, h_ ? h_ : "(null)", n_);           \
	} while (0)

static inline int t_done(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, t_pass, t_fail);
	return t_fail ? 1 : 0;
}

#endif
