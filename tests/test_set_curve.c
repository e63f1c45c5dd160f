/* test_set_curve.c — the bound behind the cost, deadline and budget
 * set screen (search_curve_bound, search.c set_curve_screened) against
 * independent references:
 *   - hand-worked cases, where the bound equals the best plan;
 *   - brute force: every replica count (a multiple of a random EP step)
 *     and every split of the micro-batches over the replicas of 3,000
 *     random small layout sets;
 *     for random step intervals the bound is never above the least
 *     (step x USD per hour) of the plans whose step lies in the interval.
 * A bound above a real plan would let the planner skip a set holding a
 * better plan, so the brute force is the test that matters; the hand
 * cases show the bound is not vacuous. */
#include <stdlib.h>
#include "t.h"
#include "search.h"
#include "search_int.h"

static unsigned long long rng_state = 4242;
static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng_state >> 33) % n);
}

static double urand(double lo, double hi)
{
	return lo + (hi - lo) * rnd(1000001) / 1e6;
}

/* One layout, a = 3 s of fill and drain, b = 1 s per micro-batch, 2 USD/h
 * a replica, up to 10 replicas, M = 12 micro-batches. The plans: n
 * replicas with ceil(12 / n) micro-batches on the busiest, step 3 +
 * ceil(12 / n): n = 1 -> 15 s x 2 USD/h = 30; n = 2 -> 9 x 4 = 36;
 * n = 3 -> 7 x 6 = 42; n = 4 -> 6 x 8 = 48. */
TEST(hand_one_layout)
{
	double a[] = { 3 }, b[] = { 1 }, u[] = { 2 };
	int ub[] = { 10 };
	CHECK_NEAR(search_curve_bound(1, a, b, u, ub, 12, 1, 7, 7), 42, 1e-12);
	CHECK_NEAR(search_curve_bound(1, a, b, u, ub, 12, 1, 15, 15), 30, 1e-12);
	/* the least over 7..15 s is the one-replica plan, 30 */
	CHECK_NEAR(search_curve_bound(1, a, b, u, ub, 12, 1, 7, 15), 30, 1e-12);
	/* under 4 s no replica holds one micro-batch; at 4 s twelve
	 * replicas would be needed and only 10 fit */
	CHECK(!isfinite(search_curve_bound(1, a, b, u, ub, 12, 1, 3.5, 3.9)));
	CHECK(!isfinite(search_curve_bound(1, a, b, u, ub, 12, 1, 4, 4)));
	/* with EP asking for a multiple of 4 replicas: n = 4 (3 micro-batches
	 * each, 6 s x 8 USD/h = 48) is the least; n = 1, 2, 3 are not plans */
	CHECK_NEAR(search_curve_bound(1, a, b, u, ub, 12, 4, 6, 15), 48, 1e-12);
}

/* Two layouts of the same speed (a = 0, b = 1), 1 and 10 USD/h, M = 4,
 * step 2 s: every plan has a replica of each, each runs 2 micro-batches,
 * so one of each: 11 USD/h x 2 s = 22. Without the "at least one of
 * each" rule the cheap layout alone (2 replicas, 4 USD/h) would give 8. */
TEST(hand_every_layout_once)
{
	double a[] = { 0, 0 }, b[] = { 1, 1 }, u[] = { 1, 10 };
	int ub[] = { 5, 5 };
	CHECK_NEAR(search_curve_bound(2, a, b, u, ub, 4, 1, 2, 2), 22, 1e-12);
}

/* The least step x price over plans whose step is in [lo, hi]:
 * replicas counts n_i in 1..ub_i, micro-batches m_r >= 1 per replica
 * summing to M, step max_r (a_i + b_i m_r). Recursion over replicas. */
struct brute {
	int n, ub[3], step;
	double a[3], b[3], u[3];
	int M;
	double lo, hi, best;
};

static void split_mb(struct brute *br, const int *cnt, int i, int r, int left, double step,
		     double usd)
{
	while (i < br->n && r == cnt[i]) {
		i++;
		r = 0;
	}
	if (i == br->n) {
		if (left == 0 && step >= br->lo && step <= br->hi && step * usd < br->best)
			br->best = step * usd;
		return;
	}
	int later = -1;   /* replicas after this one, each needing one */
	for (int j = i; j < br->n; j++)
		later += cnt[j];
	later -= r;
	for (int m = 1; m <= left - later; m++) {
		double t = br->a[i] + br->b[i] * m;
		split_mb(br, cnt, i, r + 1, left - m, t > step ? t : step, usd);
	}
}

static void counts(struct brute *br, int *cnt, int i, int total)
{
	if (i == br->n) {
		double usd = 0;
		if (total % br->step)
			return;   /* the EP rule: a multiple of the step */
		for (int j = 0; j < br->n; j++)
			usd += cnt[j] * br->u[j];
		split_mb(br, cnt, 0, 0, br->M, 0, usd);
		return;
	}
	for (int k = 1; k <= br->ub[i] && total + k <= br->M; k++) {
		cnt[i] = k;
		counts(br, cnt, i + 1, total + k);
	}
}

TEST(brute_force_small)
{
	int compared = 0, tight = 0;
	for (int it = 0; it < 3000; it++) {
		struct brute br;
		br.n = 1 + (int)rnd(3);
		br.M = 1 + (int)rnd(8);
		br.step = rnd(2) ? 1 : 1 << rnd(3);
		for (int i = 0; i < br.n; i++) {
			br.a[i] = rnd(4) ? urand(0, 5) : 0;
			br.b[i] = urand(0.2, 3);
			br.u[i] = urand(0.5, 10);
			br.ub[i] = 1 + (int)rnd(4);
		}
		/* an interval around a random step of the plans' range */
		double s_max = 0;
		for (int i = 0; i < br.n; i++)
			s_max = fmax(s_max, br.a[i] + br.b[i] * br.M);
		double s = urand(0, s_max);
		br.lo = s * urand(0.3, 1);
		br.hi = rnd(5) ? s * urand(1, 3) : br.lo;
		br.best = HUGE_VAL;
		int cnt[3];
		counts(&br, cnt, 0, 0);
		double bound = search_curve_bound(br.n, br.a, br.b, br.u, br.ub, br.M, br.step, br.lo,
						  br.hi);
		if (!isfinite(br.best))
			continue;
		compared++;
		tight += bound >= br.best * (1 - 1e-9);
		if (!(bound <= br.best * (1 + 1e-12))) {
			CHECK(bound <= br.best * (1 + 1e-12));
			fprintf(stderr, "  case %d: bound %.12g, best plan %.12g\n", it, bound,
				br.best);
			break;
		}
	}
	/* most intervals hold a plan; the bound is exact on some of them */
	CHECK(compared > 1000);
	CHECK(tight > 50);
	printf("  brute force: %d intervals with a plan, bound exact on %d\n", compared, tight);
}

/* The budget ladder's rate bound (search_counts.c,
 * search_budget_rate_bound) by hand and against every integer count
 * vector of 3,000 random small sets: no vector meeting the cost row runs
 * faster (at B_lo) than the bound. */
TEST(budget_rate_bound)
{
	/* hand: two layouts. A: 36 USD/h, B = 1 s (B_lo 0.5 s), up to 4;
	 * B: 72 USD/h, B = 1 s (B_lo 1 s), up to 3; lambda = 0.015 USD per
	 * micro-batch. c_A = 0.01 - 0.015 = -0.005, c_B = 0.02 - 0.015 =
	 * 0.005 a replica: A at 4 leaves 0.02 of slack, B once uses 0.005,
	 * 0.015 more buys 3 more of B but only 2 fit: rate 4 / 0.5 + 3 / 1
	 * = 11. At lambda 0.01: c_A = 0, c_B = 0.01, slack -0.01 < 0: -1. */
	double usd[] = { 36, 72 }, B[] = { 1, 1 }, Bl[] = { 0.5, 1 }, ub[] = { 4, 3 };
	CHECK_NEAR(search_budget_rate_bound(2, usd, B, Bl, ub, 0.015), 11, 1e-9);
	CHECK(search_budget_rate_bound(2, usd, B, Bl, ub, 0.01) < 0);
	int violations = 0, feasible = 0;
	for (int iter = 0; iter < 3000; iter++) {
		int n = 1 + (int)rnd(3), cnt[3] = { 1, 1, 1 };
		double u[3], b[3], bl[3], up[3];
		for (int i = 0; i < n; i++) {
			u[i] = urand(1, 100);
			b[i] = urand(0.1, 2);
			bl[i] = b[i] * urand(0.5, 1);
			up[i] = 1 + rnd(5);
		}
		double lambda = urand(0.001, 0.05), bound = search_budget_rate_bound(n, u, b, bl, up, lambda);
		for (;;) {
			double row = 0, rate = 0;
			for (int i = 0; i < n; i++) {
				row += cnt[i] * (u[i] / 3600 - lambda / b[i]);
				rate += cnt[i] / bl[i];
			}
			if (row <= 0) {
				feasible++;
				violations += bound < 0 || rate > bound * (1 + 1e-12);
			}
			int i = 0;
			while (i < n && ++cnt[i] > up[i])
				cnt[i++] = 1;
			if (i == n)
				break;
		}
	}
	CHECK(feasible > 1000);
	CHECK(violations == 0);
	printf("  budget rate bound: %d feasible vectors, %d above the bound\n", feasible, violations);
}

int main(void)
{
	RUN(hand_one_layout);
	RUN(hand_every_layout_once);
	RUN(brute_force_small);
	RUN(budget_rate_bound);
	return t_done("set_curve");
}
