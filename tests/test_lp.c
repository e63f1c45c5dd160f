/* test_lp.c — the GLPK layer on problems solved by hand (in comments). */
#include "t.h"
#include "lp.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* max 3x + 2y  s.t. x + y <= 4, x + 3y <= 6, 0 <= x <= 3, y >= 0.
 * Vertices: (0,0) 0, (3,0) 9, (3,1) 11, (1.5,1.5) 7.5, (0,2) 4: the
 * optimum is 11 at (3, 1). */
TEST(lp_by_hand)
{
	struct lp *lp = lp_new(1);
	int x = lp_add_col(lp, 0, 3, 3, 0), y = lp_add_col(lp, 0, -1, 2, 0);
	int idx[2] = { x, y };
	double r1[2] = { 1, 1 }, r2[2] = { 1, 3 };
	CHECK(lp_add_row(lp, 2, idx, r1, -HUGE_VAL, 4) >= 0);
	CHECK(lp_add_row(lp, 2, idx, r2, -HUGE_VAL, 6) >= 0);
	struct lp_result r;
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_EQ_INT(r.status, LP_OPTIMAL);
	CHECK_NEAR(r.obj, 11, 1e-9);
	CHECK_NEAR(lp_value(lp, x), 3, 1e-9);
	CHECK_NEAR(lp_value(lp, y), 1, 1e-9);
	lp_free(lp);
}

/* The same LP unscaled (lp_set_scale, as the planner's whole-replica
 * feasibility tests solve theirs), with the rows' coefficients of the
 * range those tests use (GPUs a replica up to 64, pool capacities in the
 * thousands): max 3x + 2y s.t. 64x + 64y <= 256, 1000x + 3000y <= 6000,
 * 0 <= x <= 3 is the LP above with its rows multiplied by 64 and 1000,
 * so again 11 at (3, 1). */
TEST(lp_unscaled_by_hand)
{
	struct lp *lp = lp_new(1);
	lp_set_scale(lp, 0);
	int x = lp_add_col(lp, 0, 3, 3, 0), y = lp_add_col(lp, 0, -1, 2, 0);
	int idx[2] = { x, y };
	double r1[2] = { 64, 64 }, r2[2] = { 1000, 3000 };
	CHECK(lp_add_row(lp, 2, idx, r1, -HUGE_VAL, 256) >= 0);
	CHECK(lp_add_row(lp, 2, idx, r2, -HUGE_VAL, 6000) >= 0);
	struct lp_result r;
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_EQ_INT(r.status, LP_OPTIMAL);
	CHECK_NEAR(r.obj, 11, 1e-9);
	CHECK_NEAR(lp_value(lp, x), 3, 1e-9);
	CHECK_NEAR(lp_value(lp, y), 1, 1e-9);
	lp_free(lp);
}

/* The LP of lp_by_hand solved again after changes (lp_set_col,
 * lp_set_row), from its last basis, as the whole-replica feasibility
 * tests do: x fixed at 0 leaves max 2y, y <= 4 and 3y <= 6, so 4 at
 * y = 2; then the first row's bound raised to 10 and x freed to [0, 3]
 * with objective 1: the vertices of x + y <= 10, x + 3y <= 6, x <= 3 are
 * (0,0) 0, (3,0) 3, (3,1) 5, (0,2) 4: 5 at (3, 1); last, the second row
 * made free: x + y <= 10 and x <= 3 with y unbounded above, so
 * x + 2y is maximal at y = 10 - x: 20 - x at x = 0, 20. */
TEST(lp_resolve_by_hand)
{
	struct lp *lp = lp_new(1);
	int x = lp_add_col(lp, 0, 3, 3, 0), y = lp_add_col(lp, 0, -1, 2, 0);
	int idx[2] = { x, y };
	double r1[2] = { 1, 1 }, r2[2] = { 1, 3 };
	int row1 = lp_add_row(lp, 2, idx, r1, -HUGE_VAL, 4);
	int row2 = lp_add_row(lp, 2, idx, r2, -HUGE_VAL, 6);
	struct lp_result r;
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_NEAR(r.obj, 11, 1e-9);
	CHECK_EQ_INT(lp_set_col(lp, x, 0, 0, 3), 0);
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_NEAR(r.obj, 4, 1e-9);
	CHECK_NEAR(lp_value(lp, y), 2, 1e-9);
	CHECK_EQ_INT(lp_set_row(lp, row1, -HUGE_VAL, 10), 0);
	CHECK_EQ_INT(lp_set_col(lp, x, 0, 3, 1), 0);
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_NEAR(r.obj, 5, 1e-9);
	CHECK_NEAR(lp_value(lp, x), 3, 1e-9);
	CHECK_NEAR(lp_value(lp, y), 1, 1e-9);
	CHECK_EQ_INT(lp_set_row(lp, row2, -HUGE_VAL, HUGE_VAL), 0);
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_NEAR(r.obj, 20, 1e-9);
	CHECK_NEAR(lp_value(lp, y), 10, 1e-9);
	CHECK_EQ_INT(lp_set_col(lp, 2, 0, 1, 1), -1);   /* no such column */
	CHECK_EQ_INT(lp_set_row(lp, -1, 0, 1), -1);
	lp_free(lp);
}

/* lp_solve scales a model itself (lp.c, scl_auto) with the factors
 * GLPK's glp_scale_prob(GLP_SF_AUTO) would give, bit for bit: checked
 * against GLPK on models shaped like the planner's bound LPs (a few rows,
 * tens of columns, |a_ij| from 1e-3 to 1e4, some entries left out), on a
 * well-scaled one (every |a_ij| in [0.1, 10]: GLPK skips, factors 1),
 * and on one with an empty column. */
TEST(scaling_is_glpks)
{
	unsigned long long st = 12345;
	for (int trial = 0; trial < 200; trial++) {
		int m = 1 + trial % 9, n = 1 + (trial * 7) % 60, well = trial % 10 == 3;
		struct lp *lp = lp_new(trial % 2);
		for (int j = 0; j < n + 1; j++)
			lp_add_col(lp, 0, -1, 1, 0);   /* column n stays empty */
		int idx[64];
		double cf[64];
		for (int i = 0; i < m; i++) {
			int k = 0;
			for (int j = 0; j < n; j++) {
				st = st * 6364136223846793005ull + 1442695040888963407ull;
				double u = (double)(st >> 11) / 9007199254740992.0;   /* [0, 1) */
				if (u < 0.2 && j)
					continue;
				idx[k] = j;
				cf[k++] = (u < 0.6 ? 1 : -1) *
					  (well ? 0.1 + 9.9 * u : pow(10, -3 + 7 * u));
			}
			CHECK(lp_add_row(lp, k, idx, cf, -HUGE_VAL, 1) >= 0);
		}
		CHECK_EQ_INT(lp_scale_check(lp), 0);
		lp_free(lp);
	}
}

/* 0-1 knapsack: max 5a + 4b + 3c, 2a + 3b + c <= 5. Feasible sets and
 * values: {a,b} 9, {a,c} 8, {b,c} 7, {a,b,c} weighs 6: the optimum is 9. */
TEST(knapsack_by_hand)
{
	struct lp *lp = lp_new(1);
	int a = lp_add_col(lp, 0, 1, 5, 1), b = lp_add_col(lp, 0, 1, 4, 1),
	    c = lp_add_col(lp, 0, 1, 3, 1);
	int idx[3] = { a, b, c };
	double w[3] = { 2, 3, 1 };
	lp_add_row(lp, 3, idx, w, -HUGE_VAL, 5);
	struct lp_result r;
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_EQ_INT(r.status, LP_OPTIMAL);
	CHECK_NEAR(r.obj, 9, 1e-9);
	CHECK_NEAR(lp_value(lp, a), 1, 1e-9);
	CHECK_NEAR(lp_value(lp, b), 1, 1e-9);
	CHECK_NEAR(lp_value(lp, c), 0, 1e-9);
	CHECK(r.gap <= 1e-12);
	lp_free(lp);
}

/* Integer cover, the shape of the capacity question: min 3 n1 + 5 n2 with
 * 2 n1 + 4 n2 >= 7. (4,0) 12, (2,1) 11, (0,2) 10, (1,2) 13: optimum 10,
 * where the LP relaxation would say 8.75 (n2 = 1.75). */
TEST(cover_by_hand)
{
	struct lp *lp = lp_new(0);
	int n1 = lp_add_col(lp, 0, 100, 3, 1), n2 = lp_add_col(lp, 0, 100, 5, 1);
	int idx[2] = { n1, n2 };
	double cf[2] = { 2, 4 };
	lp_add_row(lp, 2, idx, cf, 7, HUGE_VAL);
	struct lp_result r;
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_NEAR(r.obj, 10, 1e-9);
	CHECK_NEAR(lp_value(lp, n2), 2, 1e-9);
	lp_free(lp);
}

TEST(infeasible_unbounded_bad_input)
{
	struct lp_result r;
	/* x in [0, 1] and x >= 2 */
	struct lp *lp = lp_new(0);
	int x = lp_add_col(lp, 0, 1, 1, 0);
	double one = 1;
	lp_add_row(lp, 1, &x, &one, 2, HUGE_VAL);
	CHECK(lp_solve(lp, 0, &r) < 0);
	CHECK_EQ_INT(r.status, LP_INFEASIBLE);
	lp_free(lp);
	/* max x with x >= 0 unbounded above */
	lp = lp_new(1);
	x = lp_add_col(lp, 0, -1, 1, 0);
	lp_add_row(lp, 1, &x, &one, 0, HUGE_VAL);
	CHECK(lp_solve(lp, 0, &r) < 0);
	CHECK_EQ_INT(r.status, LP_UNBOUNDED);
	lp_free(lp);
	/* a NaN coefficient or an unknown column never reaches GLPK */
	lp = lp_new(0);
	x = lp_add_col(lp, 0, 1, 1, 0);
	double nan = NAN;
	CHECK_EQ_INT(lp_add_row(lp, 1, &x, &nan, 0, 1), -1);
	int bad = 7;
	CHECK_EQ_INT(lp_add_row(lp, 1, &bad, &one, 0, 1), -1);
	lp_free(lp);
}

/* The model can be written out for glpsol or any LP reader. */
TEST(write_lp_file)
{
	struct lp *lp = lp_new(1);
	int x = lp_add_col(lp, 0, 3, 1, 1);
	double one = 1;
	lp_add_row(lp, 1, &x, &one, -HUGE_VAL, 2.5);
	char path[] = "/tmp/hetplan-lp-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_INT(lp_write(lp, path), 0);
	struct hp_err err = { 0 };
	size_t len;
	char *text = hp_read_file(path, &len, &err);
	CHECK_CONTAINS(text, "Maximize");
	CHECK_CONTAINS(text, "Generals");
	free(text);
	unlink(path);
	struct lp_result r;
	CHECK_EQ_INT(lp_solve(lp, 0, &r), 0);
	CHECK_NEAR(r.obj, 2, 1e-9);   /* x integer <= 2.5 */
	lp_free(lp);
}

/* lp_small_solve on the bound's LP by hand (search_bound.c's
 * pipe_lp_solve): M = 8 micro-batches, layout 1 with A = 1 s, B = 0.5 s
 * on 4 GPUs of pool 1 (8 GPUs), layout 2 with A = 2 s, B = 1 s on 4 GPUs
 * of pool 2 (4 GPUs), one micro-batch each at least. Over n1 <= 2,
 * n2 <= 1 the step (M + sum n A / B) / sum (n / B) is 14/5 = 2.8 s at
 * (2, 1), 3 s at (2, 0) and 10 s at (0, 1): the optimum is 2.8 at
 * t = 1/5, y = n t = (2/5, 1/5). The LP: min 8t + 2y1 + 2y2 with
 * 2y1 + y2 = 1, 4y1 - 8t <= 0, 4y2 - 4t <= 0, y1 + y2 - 8t <= 0. */
TEST(small_by_hand)
{
	double a[4][3] = { { 0, 2, 1 }, { -8, 4, 0 }, { -4, 0, 4 }, { -8, 1, 1 } };
	double lo[4] = { 1, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL }, hi[4] = { 1, 0, 0, 0 };
	double c[3] = { 8, 2, 2 }, x[3];
	struct lp_result r;
	CHECK_EQ_INT(lp_small_solve(4, 3, &a[0][0], lo, hi, c, x, &r), 0);
	CHECK_EQ_INT(r.status, LP_OPTIMAL);
	CHECK_NEAR(r.obj, 2.8, 1e-12);
	CHECK_NEAR(x[0], 0.2, 1e-12);
	CHECK_NEAR(x[1], 0.4, 1e-12);
	CHECK_NEAR(x[2], 0.2, 1e-12);
	/* the optimum is unique: every column basic, and the two pool rows
	 * (nonbasic, binding) price the GPUs: no reduced cost is 0 */
	CHECK(r.tie_row > 1e-9 && r.tie_col > 1e-9);
	/* layout 2 twice (a twin pool's copy: the same column): the step is
	 * the same 2.8, but y2 may be split between the two copies, so the
	 * optimum is not unique and a reduced cost says so */
	double a3[4][4] = { { 0, 2, 1, 1 }, { -8, 4, 0, 0 }, { -4, 0, 4, 4 }, { -8, 1, 1, 1 } };
	double c3[4] = { 8, 2, 2, 2 }, x3[4];
	CHECK_EQ_INT(lp_small_solve(4, 4, &a3[0][0], lo, hi, c3, x3, &r), 0);
	CHECK_NEAR(r.obj, 2.8, 1e-12);
	CHECK_NEAR(x3[2] + x3[3], 0.2, 1e-12);
	CHECK(r.tie_col < 1e-12);
	/* at least 4 replicas in all (y1 + y2 - 4t >= 0): the pools hold
	 * 3, so no point */
	double a2[5][3] = { { 0, 2, 1 }, { -8, 4, 0 }, { -4, 0, 4 }, { -8, 1, 1 }, { -4, 1, 1 } };
	double lo2[5] = { 1, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL, 0 };
	double hi2[5] = { 1, 0, 0, 0, HUGE_VAL };
	CHECK(lp_small_solve(5, 3, &a2[0][0], lo2, hi2, c, x, &r) < 0);
	CHECK_EQ_INT(r.status, LP_INFEASIBLE);
	/* a negative cost (not dual feasible at the first basis) and too
	 * many rows are refused, for the caller to ask GLPK */
	double cn[3] = { 8, -2, 2 };
	CHECK(lp_small_solve(4, 3, &a[0][0], lo, hi, cn, x, &r) < 0);
	CHECK_EQ_INT(r.status, LP_ERROR);
	CHECK(lp_small_solve(LPS_MAX_ROWS + 1, 3, &a[0][0], lo, hi, c, x, &r) < 0);
	CHECK_EQ_INT(r.status, LP_ERROR);
	/* so is a NaN coefficient */
	a[1][1] = NAN;
	CHECK(lp_small_solve(4, 3, &a[0][0], lo, hi, c, x, &r) < 0);
	CHECK_EQ_INT(r.status, LP_ERROR);
}

static double lcg_u(unsigned long long *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*st >> 11) / 9007199254740992.0;   /* [0, 1) */
}

/* A random LP of the bound's shape (pipe_lp_solve): column 0 is t (cost
 * M), columns 1..k layouts y_L (cost A/B); rows: sum y / B = 1, with DP
 * terms n_lo t <= sum y <= n_hi t, per pool sum y gpus <= cap t, sum y q
 * <= M t, maybe a budget row (price - lambda / B, either sign). Some
 * layouts repeat another's column exactly, some share its ratio A/B (ties:
 * several optimal vertices). Returns the rows; a is m x n. */
static int random_bound_lp_of(unsigned long long *st, int n, double *a, double *lo, double *hi,
			      double *c, int max_pools, double a_max, int cap_max)
{
	int m = 0, pools = 1 + (int)(lcg_u(st) * max_pools), dt = lcg_u(st) < 0.6,
	    budget = lcg_u(st) < 0.3;
	static double A[1024], B[1024], gpus[1024][16], q[1024];
	double M = (double)(1 << (int)(lcg_u(st) * 11)), cap[16];
	for (int p = 0; p < pools; p++)
		cap[p] = 8 * (double)(1 + (int)(lcg_u(st) * cap_max));
	for (int j = 1; j < n; j++) {
		int same = j > 1 && lcg_u(st) < 0.15, ratio = j > 1 && lcg_u(st) < 0.15;
		A[j] = same ? A[j - 1] : 0.01 + a_max * lcg_u(st);
		B[j] = same ? B[j - 1] : 0.001 + 0.5 * lcg_u(st);
		if (ratio && !same) {
			double f = 0.5 + lcg_u(st);
			A[j] = A[j - 1] * f;
			B[j] = B[j - 1] * f;
		}
		for (int p = 0; p < pools; p++)
			gpus[j][p] = same ? gpus[j - 1][p] : lcg_u(st) < 0.4 ? 0
				     : (double)(1 << (int)(lcg_u(st) * 8));
		q[j] = same ? q[j - 1] : lcg_u(st) < 0.7 ? 1 : 2 + (int)(lcg_u(st) * 8);
	}
#define ROW(l, h) (lo[m] = (l), hi[m] = (h), memset(a + (size_t)m * n, 0, (size_t)n * sizeof *a), \
		   a + (size_t)m++ * n)
	double *r = ROW(1, 1);
	c[0] = M;
	for (int j = 1; j < n; j++) {
		c[j] = A[j] / B[j];
		r[j] = 1 / B[j];
	}
	if (dt) {
		double nlo = 1 + (int)(lcg_u(st) * 64), nhi = nlo + (int)(lcg_u(st) * 256);
		r = ROW(0, HUGE_VAL);
		for (int j = 1; j < n; j++)
			r[j] = 1;
		r[0] = -nlo;
		r = ROW(-HUGE_VAL, 0);
		for (int j = 1; j < n; j++)
			r[j] = 1;
		r[0] = -nhi;
	}
	for (int p = 0; p < pools; p++) {
		r = ROW(-HUGE_VAL, 0);
		for (int j = 1; j < n; j++)
			r[j] = gpus[j][p];
		r[0] = -cap[p];
	}
	r = ROW(-HUGE_VAL, 0);
	for (int j = 1; j < n; j++)
		r[j] = q[j];
	r[0] = -M;
	if (budget) {
		double lambda = 0.5 + 20 * lcg_u(st);
		r = ROW(-HUGE_VAL, 0);
		for (int j = 1; j < n; j++)
			r[j] = (0.5 + 40 * lcg_u(st)) / 3600 - lambda / 3600 / B[j];
	}
#undef ROW
	return m;
}

/* The bench's scale: up to 4 pools of up to 1,024 GPUs, stages up to 2 s. */
static int random_bound_lp(unsigned long long *st, int n, double *a, double *lo, double *hi,
			   double *c)
{
	return random_bound_lp_of(st, n, a, lo, hi, c, 4, 2, 128);
}

/* lp_small_solve against GLPK (lp_solve, the same model) on 4,000 random
 * LPs of the bound's shape: the same status (optimal or infeasible:
 * costs >= 0 on x >= 0 cannot be unbounded), optima equal to 1e-9
 * relative (GLPK's own answers are off by up to about 1e-10: in the 70B
 * search one of its optima left the equality row at 0.99999999986), and
 * lp_small_solve's vertex feasible to 1e-9 with c x its optimum. */
TEST(small_matches_glpk)
{
	unsigned long long st = 2026;
	enum { NMAX = 61 };
	double a[LPS_MAX_ROWS * NMAX], lo[LPS_MAX_ROWS], hi[LPS_MAX_ROWS], c[NMAX], x[NMAX];
	int idx[NMAX], opt = 0, infeas = 0, bad = 0;
	for (int j = 0; j < NMAX; j++)
		idx[j] = j;
	for (int trial = 0; trial < 4000; trial++) {
		int n = 2 + (int)(lcg_u(&st) * (NMAX - 1));
		int m = random_bound_lp(&st, n, a, lo, hi, c);
		struct lp_result rs, rg;
		int rc = lp_small_solve(m, n, a, lo, hi, c, x, &rs);
		struct lp *lp = lp_new(0);
		for (int j = 0; j < n; j++)
			lp_add_col(lp, 0, -1, c[j], 0);
		for (int i = 0; i < m; i++)
			lp_add_row(lp, n, idx, a + (size_t)i * n, lo[i], hi[i]);
		int gc = lp_solve(lp, 0, &rg);
		lp_free(lp);
		if (rs.status != rg.status || rc != gc) {
			bad++;
			T_FAILF("trial %d: lp_small_solve status %d, GLPK %d", trial, rs.status,
				rg.status);
			continue;
		}
		if (rc != 0) {
			infeas += rs.status == LP_INFEASIBLE;
			continue;
		}
		opt++;
		CHECK(fabs(rs.obj - rg.obj) <= 1e-9 * fabs(rg.obj));
		double cx = 0;
		for (int j = 0; j < n; j++) {
			CHECK(x[j] >= -1e-12);
			cx += c[j] * x[j];
		}
		CHECK_NEAR(cx, rs.obj, 1e-12);
		for (int i = 0; i < m; i++) {
			double v = 0, s = 0;
			for (int j = 0; j < n; j++) {
				v += a[(size_t)i * n + j] * x[j];
				s += fabs(a[(size_t)i * n + j] * x[j]);
			}
			CHECK(v >= lo[i] - 1e-9 * (1 + s) && v <= hi[i] + 1e-9 * (1 + s));
		}
	}
	/* both kinds met often enough to count */
	CHECK(opt > 1000);
	CHECK(infeas > 100);
	CHECK_EQ_INT(bad, 0);
}

/* An LP of the bound's shape (14 rows, 50 columns) found by a stress run:
 * at its 33rd pivot the leaving row's only right-signed entry was -9.6e-4
 * beside a largest entry of 9.8e5, under the pivot tolerance, and the
 * solver called the LP infeasible, which would have pruned a range that
 * holds plans. GLPK (and its exact rational solver) finds it feasible
 * with optimum 64354.74. lp_small_solve must not say infeasible: it may
 * solve it (then to GLPK's optimum) or hand it to GLPK (LP_ERROR). */
TEST(small_tiny_pivot_is_not_infeasible)
{
	FILE *f = fopen("tests/data/lp_tiny_pivot.txt", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	int m = 0, n = 0;
	static double a[LPS_MAX_ROWS * 64], lo[LPS_MAX_ROWS], hi[LPS_MAX_ROWS], c[64], x[64];
	int ok = fscanf(f, "%d %d", &m, &n) == 2 && m > 0 && m <= LPS_MAX_ROWS && n > 0 && n <= 64;
	char tok[64];
	for (int i = 0; ok && i < m; i++)
		for (int k = -2; ok && k < n; k++) {
			ok = fscanf(f, "%63s", tok) == 1;
			double v = !strcmp(tok, "-inf") ? -HUGE_VAL : !strcmp(tok, "inf") ? HUGE_VAL
				 : strtod(tok, NULL);
			if (k == -2)
				lo[i] = v;
			else if (k == -1)
				hi[i] = v;
			else
				a[(size_t)i * n + k] = v;
		}
	for (int j = 0; ok && j < n; j++)
		ok = fscanf(f, "%lf", &c[j]) == 1;
	fclose(f);
	CHECK(ok);
	if (!ok)
		return;
	struct lp_result rs;
	int idx[64];
	for (int j = 0; j < n; j++)
		idx[j] = j;
	lp_small_solve(m, n, a, lo, hi, c, x, &rs);
	CHECK(rs.status != LP_INFEASIBLE);
	struct lp *lp = lp_new(0);
	for (int j = 0; j < n; j++)
		lp_add_col(lp, 0, -1, c[j], 0);
	for (int i = 0; i < m; i++)
		lp_add_row(lp, n, idx, a + (size_t)i * n, lo[i], hi[i]);
	struct lp_result rg;
	CHECK_EQ_INT(lp_solve(lp, 0, &rg), 0);
	lp_free(lp);
	CHECK_NEAR(rg.obj, 64354.74, 0.01);
	if (rs.status == LP_OPTIMAL)
		CHECK(fabs(rs.obj - rg.obj) <= 1e-9 * fabs(rg.obj));
}

/* Badly scaled LPs of the bound's shape (up to 16 pools, 65,536 GPUs a
 * pool, stages up to 200 s, up to 600 layouts): whatever lp_small_solve answers must be
 * GLPK's. It may give up (LP_ERROR, and the search asks GLPK), but an
 * infeasible from it must be GLPK's infeasible and an optimum GLPK's to
 * 1e-6 relative (on these scales GLPK leaves rows broken by up to
 * 3e-4). Reaches rows beyond 9 and runs of 9-16 pivots on the updated
 * inverse; the pivots stay under about one a row, so the refresh every
 * 16 pivots is not reached here. */
TEST(small_badly_scaled_never_wrong)
{
	unsigned long long st = 77;
	enum { NMAX = 601 };
	static double a[LPS_MAX_ROWS * NMAX];
	static double lo[LPS_MAX_ROWS], hi[LPS_MAX_ROWS], c[NMAX], x[NMAX];
	static int idx[NMAX];
	int wrong = 0, gave_up = 0, long_runs = 0;
	for (int j = 0; j < NMAX; j++)
		idx[j] = j;
	for (int trial = 0; trial < 1500; trial++) {
		int n = 2 + (int)(lcg_u(&st) * (NMAX - 1));
		int m = random_bound_lp_of(&st, n, a, lo, hi, c, 16, 200, 8192);
		struct lp_result rs, rg;
		lp_small_solve(m, n, a, lo, hi, c, x, &rs);
		long_runs += rs.nodes > 8;
		if (rs.status == LP_ERROR) {
			gave_up++;
			continue;
		}
		struct lp *lp = lp_new(0);
		for (int j = 0; j < n; j++)
			lp_add_col(lp, 0, -1, c[j], 0);
		for (int i = 0; i < m; i++)
			lp_add_row(lp, n, idx, a + (size_t)i * n, lo[i], hi[i]);
		lp_solve(lp, 0, &rg);
		lp_free(lp);
		if (rs.status != rg.status ||
		    (rs.status == LP_OPTIMAL && fabs(rs.obj - rg.obj) > 1e-6 * fabs(rg.obj))) {
			wrong++;
			T_FAILF("trial %d: lp_small_solve status %d obj %.17g, GLPK %d obj %.17g",
				trial, rs.status, rs.obj, rg.status, rg.obj);
		}
	}
	CHECK_EQ_INT(wrong, 0);
	CHECK(gave_up < 300);      /* it solves most of them itself */
	CHECK(long_runs > 30);    /* the updated inverse ran for 9+ pivots */
}

int main(void)
{
	RUN(lp_by_hand);
	RUN(lp_unscaled_by_hand);
	RUN(lp_resolve_by_hand);
	RUN(scaling_is_glpks);
	RUN(knapsack_by_hand);
	RUN(cover_by_hand);
	RUN(infeasible_unbounded_bad_input);
	RUN(write_lp_file);
	RUN(small_by_hand);
	RUN(small_tiny_pivot_is_not_infeasible);
	RUN(small_badly_scaled_never_wrong);
	RUN(small_matches_glpk);
	return t_done("lp");
}

