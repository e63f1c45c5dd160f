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
#include <string.h>

#include <cjson/cJSON.h>

#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"
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

/* The screen's early "no" (search_combo.c curve_no) against the plain
 * halvings. By hand, the one-layout set of hand_one_layout over 7..15 s:
 * the least is 30 (one replica at 15 s, 15 s x 2 USD/h), so want 31 is a
 * "no" and want 29 a "yes" either way; the early "no" sees 15 x 2 = 30
 * at the interval's top, one knapsack (2 counted), where the halvings
 * go down the left end (16 levels). Random sets (1 to 5 layouts, a
 * random EP step, wants from half to twice the interval's bound): the
 * verdicts must be the same, and the early "no" must save knapsacks on
 * most "no"s. */
TEST(curve_early_no)
{
	double a[] = { 3 }, b[] = { 1 }, u[] = { 2 };
	int ub[] = { 10 };
	long ev_fast, ev_plain;
	CHECK(!search_curve_reaches(1, a, b, u, ub, 12, 1, 7, 15, 31, 0, &ev_fast));
	CHECK(!search_curve_reaches(1, a, b, u, ub, 12, 1, 7, 15, 31, 1, &ev_plain));
	CHECK(ev_fast == 2);
	CHECK(ev_plain > 20);
	CHECK(search_curve_reaches(1, a, b, u, ub, 12, 1, 7, 15, 29, 0, &ev_fast));
	CHECK(search_curve_reaches(1, a, b, u, ub, 12, 1, 7, 15, 29, 1, &ev_plain));
	CHECK(ev_fast == ev_plain);
	int yes = 0, no = 0, saved = 0;
	for (int it = 0; it < 20000; it++) {
		int n = 1 + (int)rnd(5);
		double A[5], B[5], U[5], M = 1 + (int)rnd(4000), s_max = 0;
		int UB[5], step = rnd(2) ? 1 : 1 << rnd(4);
		for (int i = 0; i < n; i++) {
			A[i] = rnd(4) ? urand(0, 50) : 0;
			B[i] = urand(0.01, 3);
			U[i] = urand(0.5, 100);
			UB[i] = 1 + (int)rnd(300);
			s_max = fmax(s_max, A[i] + B[i] * M);
		}
		double s = urand(0, s_max), lo = s * urand(0.05, 1), hi = s * urand(1, 4);
		double bound = search_curve_bound(n, A, B, U, UB, M, step, lo, hi);
		if (!isfinite(bound))
			continue;
		double want = bound * urand(0.5, 2);
		int f = search_curve_reaches(n, A, B, U, UB, M, step, lo, hi, want, 0, &ev_fast);
		int p = search_curve_reaches(n, A, B, U, UB, M, step, lo, hi, want, 1, &ev_plain);
		if (f != p) {
			CHECK(f == p);
			fprintf(stderr, "  case %d: early %d, plain %d, want %.17g\n", it, f, p, want);
			break;
		}
		CHECK(ev_fast <= ev_plain);
		yes += p;
		no += !p;
		saved += !p && ev_fast < ev_plain;
	}
	CHECK(yes > 1000);
	CHECK(no > 1000);
	CHECK(saved > no / 2);
	printf("  early no: %d yes, %d no, knapsacks saved on %d of the no\n", yes, no, saved);
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


/* The candidates' DP screen (search_combo.c dp_screened) adds to a
 * plan's pipeline term its exposed DP time, perf_dp_exposed, and the
 * fixed step overhead. It rests on four facts of perf_estimate, checked
 * here on random plans against full estimates:
 *   1. step = pipeline + dp_comm + optimizer + step_overhead_s, with the
 *      pipeline the slowest group's m max_i t_i + (sum_i t_i - max_i t_i)
 *      / v over its stage records (so step >= the bound's three terms);
 *   2. perf_dp_exposed, and perf_dp_exposed_memo (a miss or a hit of the
 *      DP memo), are bd.dp_comm to the bit;
 *   3. two groups with the same stages may be one group of both counts
 *      (the DP degree and the pools unchanged): the same dp_comm;
 *   4. under ZeRO 3 every group at the plan's fewest micro-batches gives
 *      a dp_comm no larger.
 * Hand case (fact 1 with no DP term): one replica (DP degree 1) of Llama
 * 3.1 8B on one H100, 4 micro-batches, 1F1B, one stage: dp_comm = 0 (no
 * DP group), the pipeline is 4 t, so step = 4 t + optimizer +
 * step_overhead_s, the fitted constant as data/calibration.json on disk
 * states it (read here with cJSON, not through perf.c's parser, so a refit
 * that rewrites the file moves the expectation with it). */
static struct catalog dp_cat;

/* The "value" of constant `name` in data/calibration.json (run from the
 * repository root), or NAN when the file or the entry is missing. */
static double calib_file_value(const char *name)
{
	struct hp_err err = { 0 };
	size_t len;
	char *text = hp_read_file("data/calibration.json", &len, &err);
	cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
	free(text);
	double v = NAN;
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "constants")) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
		const cJSON *val = cJSON_GetObjectItemCaseSensitive(c, "value");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name) && cJSON_IsNumber(val))
			v = val->valuedouble;
	}
	cJSON_Delete(root);
	return v;
}

static double pipe_of(const struct plan *p, const struct estimate *e)
{
	double worst = 0;
	int si = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		double sum = 0, mx = 0;
		for (int s = 0; s < p->replicas[r].n_stages; s++, si++) {
			sum += e->stages[si].t_total;
			mx = fmax(mx, e->stages[si].t_total);
		}
		int v = p->schedule == SCHED_INTERLEAVED ? p->vpp : 1;
		worst = fmax(worst, plan_replica_microbatches(p, r) * mx + (sum - mx) / v);
	}
	return worst;
}

/* A random group: pp stages of tp GPUs on pool `pool` over `layers`. */
static void rand_group(struct replica *r, int pool, int tp, int pp, int layers, int count,
		       double share)
{
	r->count = count;
	r->batch_share = share;
	r->n_stages = pp;
	r->stages = calloc((size_t)pp, sizeof *r->stages);
	int a = 0;
	for (int s = 0; s < pp; s++) {
		int k = (layers - a) / (pp - s);
		r->stages[s].pool = pool;
		r->stages[s].tp = tp;
		r->stages[s].first_layer = a;
		r->stages[s].last_layer = a + k - 1;
		a += k;
	}
}

/* The catalog (loaded once) and a cluster of three pools. */
static void dp_cluster(struct cluster *c)
{
	static int loaded;
	struct hp_err err = { 0 };
	if (!loaded)
		CHECK(catalog_load(&dp_cat, "/nonexistent", &err) == 0);
	loaded = 1;
	cluster_init(c);
	CHECK(cluster_add_pool_spec(c, "8x8xH100-SXM,name=h100", &dp_cat, &err) == 0);
	CHECK(cluster_add_pool_spec(c, "8x8xA100-80GB,name=a100", &dp_cat, &err) == 0);
	CHECK(cluster_add_pool_spec(c, "8x8xL40S,name=l40s", &dp_cat, &err) == 0);
}

/* The hand case of fact 1 (above). */
TEST(dp_screen_hand)
{
	struct hp_err err = { 0 };
	const double ovh = perf_calib_default()->step_overhead_s;
	/* the embedded constant is the file's, and positive (else the hand
	 * case below would not see the term) */
	CHECK(ovh == calib_file_value("step_overhead_s"));
	CHECK(ovh > 0);
	struct cluster c;
	dp_cluster(&c);
	struct plan p;
	struct estimate e;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 4;
	p.seq_len = 4096;
	p.n_replicas = 1;
	p.replicas = calloc(1, sizeof *p.replicas);
	const struct model_spec *m = catalog_model(&dp_cat, "llama3.1-8b");
	rand_group(&p.replicas[0], 0, 1, 1, m->layers, 1, 1.0);
	double dp = -1;
	CHECK(perf_dp_exposed(&c, m, &p, NULL, &dp, &err) == 0 && dp == 0);
	CHECK(perf_estimate(&c, m, &p, NULL, &e, &err) == 0);
	CHECK(e.bd.dp_comm == 0);
	CHECK_NEAR(e.step_time_s, 4 * e.stages[0].t_total + e.bd.optimizer + ovh,
		   1e-12 * e.step_time_s);
	estimate_free(&e);
	plan_free(&p);
}

TEST(dp_screen_terms)
{
	struct hp_err err = { 0 };
	const double ovh = perf_calib_default()->step_overhead_s;
	struct cluster c;
	dp_cluster(&c);
	const char *models[] = { "llama3.1-8b", "mixtral-8x7b", "llama3.1-70b" };
	int checked = 0, zero3 = 0, with_dp = 0;
	for (int it = 0; it < 400; it++) {
		const struct model_spec *m = catalog_model(&dp_cat, models[rnd(3)]);
		struct plan p;
		plan_init(&p);
		p.mbs = 1 + (int)rnd(2);
		p.seq_len = 4096;
		p.zero = (int)rnd(4);
		p.framework = (enum hp_framework)(1 + rnd(4));
		p.ep = m->moe.experts > 0 ? 1 << rnd(3) : 1;
		int ng = 1 + (int)rnd(3), pp = 1 + (int)rnd(4), mb = 0;
		p.replicas = calloc((size_t)ng * 2, sizeof *p.replicas);
		int tot = 0;
		for (int i = 0; i < ng; i++) {
			int pool = (int)rnd(3), tp = 1 << rnd(3), cnt = 1 + (int)rnd(4);
			int m_hi = 1 + (int)rnd(6);
			rand_group(&p.replicas[p.n_replicas++], pool, tp, pp, m->layers, cnt, m_hi);
			tot += cnt;
			mb += cnt * m_hi;
			if (rnd(2) && m_hi > 1) {   /* the same stages, one micro-batch fewer */
				rand_group(&p.replicas[p.n_replicas++], pool, tp, pp, m->layers, 1,
					   m_hi - 1);
				tot++;
				mb += m_hi - 1;
			}
		}
		if ((tot % p.ep) != 0) {
			plan_free(&p);
			continue;
		}
		p.gbs = mb * p.mbs;
		for (int r = 0; r < p.n_replicas; r++)
			p.replicas[r].batch_share *= (double)p.mbs / p.gbs;
		struct estimate e;
		double dp;
		if (plan_validate(&p, &c, m, "test", &err) < 0 ||
		    perf_estimate(&c, m, &p, NULL, &e, &err) < 0) {
			plan_free(&p);
			continue;
		}
		checked++;
		with_dp += e.bd.dp_comm > 0;
		/* 1 */
		double pipe = pipe_of(&p, &e);
		CHECK_NEAR(e.step_time_s, pipe + e.bd.dp_comm + e.bd.optimizer + ovh,
			   1e-12 * e.step_time_s);
		CHECK(e.step_time_s >= (pipe + e.bd.dp_comm + ovh) * (1 - 1e-12));
		/* 2, and through the DP memo (a miss, then a hit) */
		CHECK(perf_dp_exposed(&c, m, &p, NULL, &dp, &err) == 0 && dp == e.bd.dp_comm);
		for (int k = 0; k < 2; k++)
			CHECK(perf_dp_exposed_memo(&c, m, &p, &dp, &err) == 0 && dp == e.bd.dp_comm);
		/* 3: groups with the same stages as one */
		struct replica rep[6];
		struct plan q = p;
		q.replicas = rep;
		q.n_replicas = 0;
		int m_min = 1 << 30;
		for (int r = 0; r < p.n_replicas; r++) {
			m_min = HP_MIN(m_min, plan_replica_microbatches(&p, r));
			if (q.n_replicas && rep[q.n_replicas - 1].stages[0].pool ==
			    p.replicas[r].stages[0].pool && rep[q.n_replicas - 1].stages[0].tp ==
			    p.replicas[r].stages[0].tp && p.replicas[r].count == 1 &&
			    r > 0 && p.replicas[r - 1].stages == rep[q.n_replicas - 1].stages) {
				rep[q.n_replicas - 1].count += p.replicas[r].count;
				continue;
			}
			rep[q.n_replicas++] = p.replicas[r];
		}
		/* ZeRO 0-2 but DeepSpeed's ZeRO 2 never read the micro-batches */
		if (!framework_dp_reads_mb(p.framework, p.zero)) {
			CHECK(perf_dp_exposed(&c, m, &q, NULL, &dp, &err) == 0 && dp == e.bd.dp_comm);
			CHECK(perf_dp_exposed_memo(&c, m, &q, &dp, &err) == 0 && dp == e.bd.dp_comm);
		} else {
			/* 4 */
			zero3++;
			for (int r = 0; r < q.n_replicas; r++)
				rep[r].batch_share = (double)m_min * p.mbs / p.gbs;
			CHECK(perf_dp_exposed(&c, m, &q, NULL, &dp, &err) == 0);
			CHECK(dp <= e.bd.dp_comm);
		}
		estimate_free(&e);
		plan_free(&p);
	}
	CHECK(checked > 100);
	CHECK(with_dp > 50);
	CHECK(zero3 > 10);
	printf("  DP screen terms: %d random plans (%d with DP time, %d ZeRO 3)\n", checked, with_dp,
	       zero3);
	catalog_done(&dp_cat);
}

/* The set's pipeline keeper (search_combo.c, search_group_terms) on
 * random plans: two plans P and Q of one layout set (1-3 layouts, each a
 * pool, TP and pipeline depth, the same stages in both), the same
 * settings, framework and batch, replica counts drawn apart (the same DP
 * degree half the time), whole estimates of both. For each group of P
 * (m_P micro-batches) and each group of Q of the same layout:
 *   1. P's group pipeline m_P B + A from its own records is perf's: the
 *      largest over P's groups is the step less DP, optimizer and the
 *      fixed overhead (perf.c breakdown);
 *   2. Q's DP-free terms (PP hand-offs left out) give m_P B_free + A_free
 *      at most P's group pipeline, whatever the DP degrees, where the
 *      stage times do not read the micro-batches or the two groups run
 *      as many (search_pipe_mb_read): the bound the keeper screens on;
 *   3. at the same DP degree Q's whole terms give P's group pipeline
 *      (to rounding): the keeper's exact entry;
 *   4. where the stage times read the micro-batches (the EP overlap), a
 *      group of Q running more of them than P's gives a bound at most
 *      P's group pipeline, at the same DP degree and DP-free.
 * Hand fact behind 2: at PP 1 a stage has no hand-off (t_pp = 0), so the
 * DP-free terms are the whole ones. A bound above a real plan's would
 * let the planner skip a plan it must keep, so 2 is the check that
 * matters. */
static int keeper_plan(struct plan *p, const struct plan *glob, int ng, const int *pool,
		       const int *tp, const int *pp, const int *cnt, int layers, int M, int *lay)
{
	*p = *glob;
	p->replicas = calloc((size_t)ng * 2, sizeof *p->replicas);
	p->n_replicas = 0;
	int N = 0;
	for (int i = 0; i < ng; i++)
		N += cnt[i];
	int base = M / N, rem = M % N;
	for (int i = 0; i < ng; i++) {
		int hi = HP_MIN(cnt[i], rem);
		rem -= hi;
		if (hi > 0) {
			lay[p->n_replicas] = i;
			rand_group(&p->replicas[p->n_replicas++], pool[i], tp[i], pp[i], layers, hi,
				   base + 1);
		}
		if (cnt[i] - hi > 0) {
			lay[p->n_replicas] = i;
			rand_group(&p->replicas[p->n_replicas++], pool[i], tp[i], pp[i], layers,
				   cnt[i] - hi, base);
		}
	}
	for (int r = 0; r < p->n_replicas; r++)
		p->replicas[r].batch_share *= (double)p->mbs / p->gbs;
	return N;
}

TEST(pipe_keeper_terms)
{
	struct hp_err err = { 0 };
	const double ovh = perf_calib_default()->step_overhead_s;
	struct cluster c;
	dp_cluster(&c);
	const char *models[] = { "mixtral-8x7b", "llama3.1-8b" };
	int checked = 0, pairs = 0, same_n = 0, ep_pairs = 0, pp_differs = 0, mb_read = 0;
	int more_mb = 0;
	unsigned long long saved = rng_state;   /* the other tests' draws stay */
	rng_state = 1311;
	for (int it = 0; it < 600; it++) {
		const struct model_spec *m = catalog_model(&dp_cat, models[rnd(4) == 0]);
		struct plan glob;
		plan_init(&glob);
		glob.mbs = 1;
		glob.seq_len = 4096;
		glob.zero = (int)rnd(4);
		glob.framework = (enum hp_framework)(1 + rnd(4));
		glob.ep = m->moe.experts > 0 ? 1 << rnd(4) : 1;
		glob.cp = rnd(4) == 0 ? 2 : 1;
		glob.ep_overlap = (int)rnd(3) - 1;
		int M = 24 + (int)rnd(24);
		glob.gbs = M * glob.mbs;
		int ng = 1 + (int)rnd(3), pool[3], tp[3], pp[3], cp_[3], cq[3];
		for (int i = 0; i < ng; i++) {
			pool[i] = (int)rnd(3);
			tp[i] = 1 << rnd(3);
			pp[i] = 1 + (int)rnd(4);
			cp_[i] = 1 + (int)rnd(4);
			cq[i] = 1 + (int)rnd(4);
		}
		if (rnd(2)) {   /* the same DP degree: the counts permuted */
			for (int i = 0; i < ng; i++)
				cq[i] = cp_[(i + 1) % ng];
		}
		struct plan P, Q;
		int layP[6], layQ[6];
		int NP = keeper_plan(&P, &glob, ng, pool, tp, pp, cp_, m->layers, M, layP);
		int NQ = keeper_plan(&Q, &glob, ng, pool, tp, pp, cq, m->layers, M, layQ);
		struct estimate eP, eQ;
		int okP = (NP * P.cp) % P.ep == 0 && plan_validate(&P, &c, m, "test", &err) == 0 &&
			  perf_estimate(&c, m, &P, NULL, &eP, &err) == 0;
		int okQ = okP && (NQ * Q.cp) % Q.ep == 0 &&
			  plan_validate(&Q, &c, m, "test", &err) == 0 &&
			  perf_estimate(&c, m, &Q, NULL, &eQ, &err) == 0;
		if (!okQ) {
			if (okP)
				estimate_free(&eP);
			plan_free(&P);
			plan_free(&Q);
			continue;
		}
		checked++;
		int v = P.schedule == SCHED_INTERLEAVED ? P.vpp : 1;
		/* 1 */
		double worst = 0;
		for (int r = 0, si = 0; r < P.n_replicas; si += P.replicas[r].n_stages, r++) {
			double A, B, Af, Bf;
			search_group_terms(&eP.stages[si], P.replicas[r].n_stages, v, &A, &B, &Af, &Bf);
			worst = fmax(worst, plan_replica_microbatches(&P, r) * B + A);
			if (P.replicas[r].n_stages == 1)
				CHECK(Af == A && Bf == B);
		}
		CHECK_NEAR(worst, eP.step_time_s - eP.bd.dp_comm - eP.bd.optimizer - ovh,
			   1e-9);
		CHECK_NEAR(worst, pipe_of(&P, &eP), 1e-12);
		/* 2, 3 */
		for (int r = 0, si = 0; r < P.n_replicas; si += P.replicas[r].n_stages, r++) {
			int S = P.replicas[r].n_stages, mP = plan_replica_microbatches(&P, r);
			int reads = search_pipe_mb_read(&P, S);
			mb_read += reads;
			double A, B, Af, Bf;
			search_group_terms(&eP.stages[si], S, v, &A, &B, &Af, &Bf);
			double own = mP * B + A;
			for (int q = 0, sq = 0; q < Q.n_replicas; sq += Q.replicas[q].n_stages, q++) {
				if (layQ[q] != layP[r])
					continue;
				int mQ = plan_replica_microbatches(&Q, q);
				if (reads && mQ < mP)
					continue;   /* a stage time at more micro-batches is no larger */
				double qA, qB, qAf, qBf;
				search_group_terms(&eQ.stages[sq], S, v, &qA, &qB, &qAf, &qBf);
				pairs++;
				ep_pairs += P.ep > 1;
				pp_differs += qA != qAf || qB != qBf;
				CHECK(mP * qBf + qAf <= own * (1 + 1e-12));
				CHECK(mP * qBf + qAf + eP.bd.dp_comm + ovh <= eP.step_time_s * (1 + 1e-12));
				if (NP == NQ) {
					same_n++;
					CHECK(mP * qB + qA <= own * (1 + 1e-12));
					if (!reads || mQ == mP)
						CHECK_NEAR(mP * qB + qA, own, 1e-12);
				}
				more_mb += reads && mQ > mP;
			}
		}
		estimate_free(&eP);
		estimate_free(&eQ);
		plan_free(&P);
		plan_free(&Q);
	}
	rng_state = saved;
	CHECK(checked > 150);
	CHECK(same_n > 100);
	CHECK(ep_pairs > 100);
	CHECK(pp_differs > 100);
	CHECK(more_mb > 20);
	printf("  pipeline keeper: %d plan pairs, %d group pairs (%d at one DP degree, %d with EP, "
	       "%d with PP hand-offs, %d of groups reading micro-batches, %d read at more)\n",
	       checked, pairs, same_n, ep_pairs, pp_differs, mb_read, more_mb);
}

/* The batch split (search_combo.c split_batch) against brute force: the
 * least pipeline term of any split of M micro-batches over the replicas
 * (each a positive multiple of its group's q) is the least T at which
 * the replicas can run M in all, each as many multiples of q as end by
 * T; T is one of the values A_i + B_i m. The split must give every
 * replica whole multiples of q, M in all, and a term within 1e-12 of
 * that least T (no split is below it); with every q 1 it must always
 * split. Groups of equal fits and ties
 * between groups' steps are drawn on purpose (the early stops of the
 * bisection must give what the halvings give there too). */
static long fill_at(int n, const double *A, const double *B, const int *q, const int *cnt,
		    double T)
{
	long tot = 0;
	for (int i = 0; i < n; i++) {
		long k = 0;
		while (A[i] + B[i] * (double)(k + q[i]) <= T)
			k += q[i];
		if (k < q[i])
			return -1;
		tot += k * cnt[i];
	}
	return tot;
}

static void split_brute_force(void)
{
	int checked = 0, ties = 0;
	for (int t = 0; t < 3000; t++) {
		int n = 1 + (int)rnd(4), q[5], cnt[5], m[5], n_lo[5];
		double A[5], B[5];
		long need = 0;
		for (int i = 0; i < n; i++) {
			int same = i > 0 && rnd(4) == 0;
			A[i] = same ? A[i - 1] : (rnd(3) ? urand(0, 2) : (double)rnd(3));
			B[i] = same ? B[i - 1] : (rnd(3) ? urand(0.05, 1) : 0.25 * (1 + rnd(4)));
			q[i] = rnd(3) ? 1 : 1 + (int)rnd(4);
			cnt[i] = 1 + (int)rnd(5);
			need += (long)q[i] * cnt[i];
			ties += same;
		}
		long M = need + (long)rnd(80);
		/* with q > 1 the split may find no way to hand out exactly M
		 * (M not a sum of the replicas' multiples, or its excess not
		 * taken q at a time): only the splits it makes are checked */
		if (search_split(n, A, B, q, cnt, M, m, n_lo) < 0) {
			int all_one = 1;
			for (int i = 0; i < n; i++)
				all_one &= q[i] == 1;
			CHECK(!all_one);
			continue;
		}
		double best = HUGE_VAL;
		for (int i = 0; i < n; i++)
			for (long k = q[i]; k <= M; k += q[i]) {
				double T = A[i] + B[i] * (double)k;
				if (T < best && fill_at(n, A, B, q, cnt, T) >= M)
					best = T;
			}
		long tot = 0;
		double term = 0;
		for (int i = 0; i < n; i++) {
			CHECK(n_lo[i] >= 0 && n_lo[i] <= cnt[i]);
			CHECK(m[i] % q[i] == 0);
			if (cnt[i] - n_lo[i] > 0) {
				CHECK(m[i] >= q[i]);
				term = fmax(term, A[i] + B[i] * m[i]);
			}
			if (n_lo[i] > 0) {
				CHECK(m[i] - q[i] >= q[i]);
				term = fmax(term, A[i] + B[i] * (m[i] - q[i]));
			}
			tot += (long)(cnt[i] - n_lo[i]) * m[i] + (long)n_lo[i] * (m[i] - q[i]);
		}
		CHECK(tot == M);
		CHECK(fabs(term - best) <= 1e-12 * best);
		checked++;
	}
	int m1[1], lo1[1], q1[1] = { 2 }, c1[1] = { 3 };
	double A1[1] = { 1 }, B1[1] = { 0.5 };
	/* by hand: 3 replicas, q 2, 10 micro-batches: 4 + 4 + 2 (term
	 * 1 + 0.5 x 4 = 3); 7 replicas need 14 */
	CHECK(search_split(1, A1, B1, q1, c1, 10, m1, lo1) == 0);
	CHECK(m1[0] == 4 && lo1[0] == 1);
	c1[0] = 7;
	CHECK(search_split(1, A1, B1, q1, c1, 10, m1, lo1) < 0);
	printf("  batch split: %d random splits (%d groups sharing a fit) at the least term\n",
	       checked, ties);
}

/* The node mixes' block screen (search_counts.c walk_block_screened)
 * bounds the pipeline term of every mix of a block from below by
 * search_block_pipe_bound: the least of (M + sum n_j A_j / B_j) /
 * sum n_j / B_j over the counts the block allows (layouts before i
 * fixed, the others 1..ub_j). By hand: M = 12, layout 0 fixed at 3
 * replicas (A 2 s, B 1 s), layout 1 free in 1..4 (B 0.5 s). With its
 * A at 0 the ratio falls with n_1, least at 4: (12 + 3 x 2) /
 * (3 + 4 / 0.5) = 18 / 11 s. With A 3 s: at n_1 = 1 the ratio is
 * (12 + 6 + 6) / 5 = 4.8 s, above 3, so more replicas lower it, least
 * at 4: (12 + 6 + 24) / 11 = 42 / 11 s. With A 7 s: at n_1 = 1,
 * (12 + 6 + 14) / 5 = 6.4 s, under 7, so more replicas raise it
 * (n_1 = 4: 74 / 11 = 6.73 s): 6.4 s. Then 3,000 random blocks against
 * every count vector the block allows: never above the least (a bound
 * above a mix would skip a mix the screen keeps), and within 1e-6 of
 * it (the bound is exact, less its 1e-9 margin). */
static double pipe_ratio(int n, const double *A, const double *B, const int *c, double M)
{
	double num = M, den = 0;
	for (int j = 0; j < n; j++) {
		num += c[j] * A[j] / B[j];
		den += c[j] / B[j];
	}
	return num / den;
}

static double least_ratio(int n, int j, const double *A, const double *B, int *c, const int *ub,
			  double M)
{
	if (j == n)
		return pipe_ratio(n, A, B, c, M);
	if (ub[j] == 0)   /* fixed at c[j] */
		return least_ratio(n, j + 1, A, B, c, ub, M);
	double best = HUGE_VAL;
	for (int v = 1; v <= ub[j]; v++) {
		c[j] = v;
		best = fmin(best, least_ratio(n, j + 1, A, B, c, ub, M));
	}
	c[j] = 0;
	return best;
}

TEST(block_pipe_bound)
{
	double A[5] = { 2, 0 }, B[5] = { 1, 0.5 };
	int c[5] = { 3, 0 }, ub[5] = { 0, 4 };
	CHECK_NEAR(search_block_pipe_bound(2, 1, A, B, c, ub, 12), 18.0 / 11, 1e-8);
	A[1] = 3;
	CHECK_NEAR(search_block_pipe_bound(2, 1, A, B, c, ub, 12), 42.0 / 11, 1e-8);
	A[1] = 7;
	CHECK_NEAR(search_block_pipe_bound(2, 1, A, B, c, ub, 12), 6.4, 1e-8);
	int tight = 0;
	for (int t = 0; t < 3000; t++) {
		int n = 1 + (int)rnd(5), i = (int)rnd((unsigned)n + 1), cnt[5], up[5];
		for (int j = 0; j < n; j++) {
			A[j] = rnd(4) ? urand(0, 3) : (double)rnd(3);
			B[j] = urand(0.01, 1);
			cnt[j] = j < i ? 1 + (int)rnd(20) : 0;
			up[j] = j < i ? 0 : 1 + (int)rnd(6);
		}
		double M = 1 + rnd(200);
		double got = search_block_pipe_bound(n, i, A, B, cnt, up, M);
		double want = least_ratio(n, 0, A, B, cnt, up, M);
		CHECK(got <= want);
		CHECK(got >= want * (1 - 1e-6));
		tight += got >= want * (1 - 1e-8);
	}
	printf("  block pipeline bound: %d of 3000 random blocks within 1e-8 of the least\n", tight);
}

int main(void)
{
	RUN(hand_one_layout);
	RUN(hand_every_layout_once);
	RUN(brute_force_small);
	RUN(curve_early_no);
	RUN(budget_rate_bound);
	RUN(dp_screen_hand);
	RUN(pipe_keeper_terms);
	RUN(dp_screen_terms);
	RUN(split_brute_force);
	RUN(block_pipe_bound);
	return t_done("set_curve");
}
