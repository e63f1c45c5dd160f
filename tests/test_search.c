/* test_search.c — the planner against independent references:
 *   - a brute-force enumerator (every layer partition, every replica count,
 *     every integer batch split, plans of up to two layouts) on small
 *     two-type clusters: nothing it finds beats the planner by > 0.5%;
 *   - the published Narayanan et al. 2021 Table 1 configurations, scored by
 *     the same model: the planner's best is at least as fast;
 *   - a mixed cluster: uneven layer and batch splits where types differ,
 *     and the per-pool comparison;
 *   - capacity: the deadline answer against planning every mix of nodes;
 *   - infeasible inputs explain the nearest miss; determinism. */
#include "t.h"
#include "calib_rows.h"
#include "runs_on.h"
#include "search.h"

#include <cjson/cJSON.h>

static struct catalog cat;

static unsigned long long rng_state;
static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng_state >> 33) % n);
}

/* ------------------------------------------------------------------ */
/* Brute force */

static char bf_best_text[2048];

#define BF_MAXS 8

struct bf_layout {
	int S;
	int pool[BF_MAXS], tp[BF_MAXS], k[BF_MAXS];
	int gpus[HP_MAX_POOLS];
};

struct bf {
	const struct cluster *c;
	const struct model_spec *m;
	struct plan proto;        /* global settings */
	int cap[HP_MAX_POOLS];
	struct bf_layout *v;
	int n, alloc;
	double best;
	long evaluated;
	char best_text[2048];
};

static int bf_tp_ok(const struct model_spec *m, const struct pool *p, int tp)
{
	return tp <= p->gpus_per_node && p->gpus_per_node % tp == 0 && m->heads % tp == 0 &&
	       (tp <= m->kv_heads || tp % m->kv_heads == 0);
}

/* Every composition of the layers into S parts. */
static void bf_compose(struct bf *b, struct bf_layout *L, int s, int left)
{
	if (s == L->S - 1) {
		L->k[s] = left;
		if (b->n == b->alloc) {
			b->alloc = b->alloc ? 2 * b->alloc : 256;
			b->v = realloc(b->v, (size_t)b->alloc * sizeof *b->v);
		}
		b->v[b->n++] = *L;
		return;
	}
	for (int k = 1; k <= left - (L->S - 1 - s); k++) {
		L->k[s] = k;
		bf_compose(b, L, s + 1, left - k);
	}
}

static void bf_layouts(struct bf *b)
{
	const struct cluster *c = b->c;
	int Ly = b->m->layers;
	static const int tps[] = { 1, 2, 4, 8 };
	for (int p = 0; p < c->n_pools; p++)
		for (int t = 0; t < 4; t++) {
			if (!bf_tp_ok(b->m, &c->pools[p], tps[t]))
				continue;
			for (int S = 1; S <= Ly && S <= BF_MAXS && S * tps[t] <= b->cap[p]; S++) {
				struct bf_layout L = { .S = S };
				for (int s = 0; s < S; s++) {
					L.pool[s] = p;
					L.tp[s] = tps[t];
				}
				L.gpus[p] = S * tps[t];
				bf_compose(b, &L, 0, Ly);
			}
		}
	for (int a = 0; a < c->n_pools; a++)
		for (int bb = 0; bb < c->n_pools; bb++) {
			if (a == bb)
				continue;
			for (int ta = 0; ta < 4; ta++)
				for (int tb = 0; tb < 4; tb++) {
					if (!bf_tp_ok(b->m, &c->pools[a], tps[ta]) ||
					    !bf_tp_ok(b->m, &c->pools[bb], tps[tb]))
						continue;
					for (int sa = 1; sa < Ly && sa <= BF_MAXS; sa++)
						for (int sb = 1; sa + sb <= Ly && sa + sb <= BF_MAXS; sb++) {
							if (sa * tps[ta] > b->cap[a] || sb * tps[tb] > b->cap[bb])
								continue;
							struct bf_layout L = { .S = sa + sb };
							for (int s = 0; s < sa + sb; s++) {
								L.pool[s] = s < sa ? a : bb;
								L.tp[s] = s < sa ? tps[ta] : tps[tb];
							}
							L.gpus[a] = sa * tps[ta];
							L.gpus[bb] = sb * tps[tb];
							bf_compose(b, &L, 0, Ly);
						}
				}
		}
}

static void bf_add_group(struct plan *p, const struct bf_layout *L, int count, int m)
{
	struct replica *r = &p->replicas[p->n_replicas++];
	r->count = count;
	r->batch_share = (double)m * p->mbs / p->gbs;
	r->n_stages = L->S;
	r->stages = calloc((size_t)L->S, sizeof *r->stages);
	int a = 0;
	for (int s = 0; s < L->S; s++) {
		r->stages[s] = (struct stage){ L->pool[s], L->tp[s], a, a + L->k[s] - 1 };
		a += L->k[s];
	}
}

/* Whether a pool of c is older than Ampere (no flash-attn 2: V100, T4). */
static int bf_pre_ampere(const struct cluster *c)
{
	for (int i = 0; i < c->n_pools; i++)
		if (c->pools[i].gpu.gen == GEN_VOLTA || c->pools[i].gpu.gen == GEN_TURING)
			return 1;
	return 0;
}

static void bf_eval_flash(struct bf *b, const struct bf_layout *X, int nx, int mx,
			  const struct bf_layout *Y, int ny, int my, int flash);

/* One plan of the space at each attention kernel it may have: fused,
 * and on a cluster with a pre-Ampere pool also unfused (the frameworks
 * whose fused kernel needs Ampere run V100s unfused). */
static void bf_eval(struct bf *b, const struct bf_layout *X, int nx, int mx,
		    const struct bf_layout *Y, int ny, int my)
{
	bf_eval_flash(b, X, nx, mx, Y, ny, my, 1);
	if (bf_pre_ampere(b->c))
		bf_eval_flash(b, X, nx, mx, Y, ny, my, 0);
}

static void bf_eval_flash(struct bf *b, const struct bf_layout *X, int nx, int mx,
			  const struct bf_layout *Y, int ny, int my, int flash)
{
	struct plan p = b->proto;
	struct replica reps[2];
	p.replicas = reps;
	p.n_replicas = 0;
	p.flash = flash;
	bf_add_group(&p, X, nx, mx);
	if (Y)
		bf_add_group(&p, Y, ny, my);
	/* a plan is in the space when something runs it (runs_on.h), and
	 * is estimated as the framework that does */
	unsigned mask = runs_on_mask(&p, b->c, NULL, 0);
	p.framework = runs_on_pick(mask);
	struct hp_err err = { 0 };
	struct estimate e;
	if (runs_on_runnable(&p, b->c) && plan_validate(&p, b->c, b->m, "bf", &err) == 0 &&
	    perf_estimate(b->c, b->m, &p, NULL, &e, &err) == 0) {
		b->evaluated++;
		if (e.fits && e.step_time_s < b->best) {
			b->best = e.step_time_s;
			cJSON *j = plan_to_json(&p, b->c);
			char *txt = cJSON_PrintUnformatted(j);
			snprintf(b->best_text, sizeof b->best_text, "%s", txt);
			free(txt);
			cJSON_Delete(j);
		}
		estimate_free(&e);
	}
	for (int i = 0; i < p.n_replicas; i++)
		free(reps[i].stages);
}

static int fits_caps(const struct bf *b, const struct bf_layout *X, int nx,
		     const struct bf_layout *Y, int ny)
{
	for (int p = 0; p < b->c->n_pools; p++)
		if (X->gpus[p] * nx + (Y ? Y->gpus[p] * ny : 0) > b->cap[p])
			return 0;
	return 1;
}

/* The planner's options for the brute force's space: the prototype's
 * batch, precision, ZeRO and recomputation fixed, any schedule, one plan. */
static void opts_as_proto(struct search_opts *o, const struct plan *proto)
{
	search_opts_init(o);
	o->gbs = proto->gbs;
	o->fix_mbs = proto->mbs;
	o->precision = proto->precision;
	o->fix_zero = proto->zero;
	o->fix_recompute = proto->recompute;
	o->fix_sched = 0;
	o->top_k = 1;
}

static double brute_force(const struct cluster *c, const struct model_spec *m,
			  const struct plan *proto, long *evaluated)
{
	struct bf b = { .c = c, .m = m, .proto = *proto, .best = HUGE_VAL };
	for (int p = 0; p < c->n_pools; p++)
		b.cap[p] = c->pools[p].nodes * c->pools[p].gpus_per_node;
	bf_layouts(&b);
	int M = proto->gbs / proto->mbs;
	for (int i = 0; i < b.n; i++) {
		const struct bf_layout *X = &b.v[i];
		for (int nx = 1; nx <= M && fits_caps(&b, X, nx, NULL, 0); nx++) {
			if (M % nx == 0)
				bf_eval(&b, X, nx, M / nx, NULL, 0, 0);
			for (int j = i + 1; j < b.n; j++) {
				const struct bf_layout *Y = &b.v[j];
				for (int ny = 1; nx + ny <= M && fits_caps(&b, X, nx, Y, ny); ny++)
					for (int mx = 1; nx * mx < M; mx++) {
						int rest = M - nx * mx;
						if (rest % ny == 0)
							bf_eval(&b, X, nx, mx, Y, ny, rest / ny);
					}
			}
		}
	}
	free(b.v);
	*evaluated = b.evaluated;
	snprintf(bf_best_text, sizeof bf_best_text, "%s", b.best_text);
	return b.best;
}

static void tiny_model(struct model_spec *m, int layers, int hidden, int seq)
{
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "tiny-%dx%d", layers, hidden);
	snprintf(m->display, sizeof m->display, "%s", m->name);
	m->layers = layers;
	m->hidden = hidden;
	m->head_dim = 128;
	m->heads = hidden / 128;
	m->kv_heads = 8;
	m->ffn = hidden / 2 * 7;
	m->vocab = 32000;
	m->seq_len = seq;
	m->gated_mlp = 1;
	m->norm = NORM_RMS;
	m->position = POS_ROPE;
}

TEST(brute_force_small_clusters)
{
	static const char *const gpus[] = { "H100-SXM", "A100-80GB", "A100-40GB", "L40S",
					    "H20", "V100-SXM2-32GB" };
	static const int hiddens[] = { 4096, 8192, 12288 };
	static const int gbss[] = { 8, 16, 24, 32 };
	int cases = 0;
	double worst = 0;
	long total_bf = 0;
	double worst_bound = 0;
	for (int seed = 1; cases < 20; seed++) {
		rng_state = (unsigned long long)seed * 0x9E3779B97F4A7C15ULL;
		struct cluster c;
		cluster_init(&c);
		int ga = (int)rnd(HP_ARRAY_LEN(gpus)), gb = (int)rnd(HP_ARRAY_LEN(gpus));
		if (ga == gb)
			continue;
		char spec[96];
		struct hp_err err = { 0 };
		int gpn_a = rnd(2) ? 4 : 8, gpn_b = rnd(2) ? 4 : 8;
		int na = 1 + (int)rnd(2), nb = 1 + (int)rnd(2);
		/* the first 14 cases up to 16 GPUs (searched exhaustively), the
		 * last 6 from 17 to 32 (the planner's pruned search) */
		int big = cases >= 14;
		if (big) {
			gpn_a = gpn_b = 8;
			na = 1 + (int)rnd(2);
			nb = na == 1 ? 2 : 1 + (int)rnd(2);
		} else if (na * gpn_a + nb * gpn_b > 16) {
			na = 1;
			nb = 1;
		}
		snprintf(spec, sizeof spec, "%dx%dx%s,name=a", na, gpn_a, gpus[ga]);
		if (cluster_add_pool_spec(&c, spec, &cat, &err) < 0) {
			T_FAILF("%s", err.msg);
			return;
		}
		snprintf(spec, sizeof spec, "%dx%dx%s,name=b", nb, gpn_b, gpus[gb]);
		if (cluster_add_pool_spec(&c, spec, &cat, &err) < 0) {
			T_FAILF("%s", err.msg);
			return;
		}
		struct model_spec m;
		tiny_model(&m, big ? 3 : 3 + (int)rnd(3), hiddens[rnd(3)], rnd(2) ? 2048 : 4096);
		struct plan proto;
		plan_init(&proto);
		proto.gbs = gbss[rnd(4)];
		proto.mbs = rnd(2) ? 1 : 2;
		proto.recompute = rnd(2) ? RC_FULL : RC_NONE;
		proto.zero = rnd(2) ? 3 : 1;
		/* fp16 runs on every GPU of the menu (V100 has no bf16 units,
		 * and a plan asking for them is refused). */
		proto.precision = HP_FP16;

		long ev = 0;
		double bf = brute_force(&c, &m, &proto, &ev);
		total_bf += ev;

		struct search_opts o;
		opts_as_proto(&o, &proto);
		struct search_result res;
		int rc = search_run(&c, &m, &o, &res, &err);
		cases++;
		if (!isfinite(bf)) {
			/* nothing fits: the planner must say so too */
			if (rc == 0)
				T_FAILF("case %d: brute force finds nothing that fits, planner found %s",
					seed, res.plans[0].label);
			search_result_free(&res);
			continue;
		}
		if (rc < 0) {
			T_FAILF("case %d: planner failed (%s) where brute force found %.4f s", seed,
				err.msg, bf);
			search_result_free(&res);
			continue;
		}
		double got = res.plans[0].est.step_time_s;
		double over = got / bf - 1;
		/* The bound holds for every plan of the searched space, the
		 * brute force's best among them: its step time per token can
		 * be no more than the brute force's (1e-9 for rounding). */
		double bf_score = bf / ((double)proto.gbs * m.seq_len);
		if (!res.has_bound || res.bound > bf_score * (1 + 1e-9))
			T_FAILF("case %d: bound %.6g s per token over the brute force's %.6g", seed,
				res.bound, bf_score);
		if (res.has_bound && res.bound > 0 && bf_score / res.bound - 1 > worst_bound)
			worst_bound = bf_score / res.bound - 1;
		if (over > worst)
			worst = over;
		printf("  case %2d: %-9s %dx%d + %-9s %dx%d, %-13s gbs %2d mbs %d rc %-4s zero %d: brute %.4f s (%ld plans), planner %.4f s (%+.2f%%) %s\n",
		       seed, gpus[ga], na, gpn_a, gpus[gb], nb, gpn_b, m.name, proto.gbs, proto.mbs,
		       proto.recompute == RC_FULL ? "full" : "none", proto.zero, bf, ev, got,
		       100 * over, res.plans[0].label);
		if (over > 0.005) {
			cJSON *j = plan_to_json(&res.plans[0].plan, &c);
			char *txt = cJSON_PrintUnformatted(j);
			printf("    brute: %s\n    planner: %s\n", bf_best_text, txt);
			free(txt);
			cJSON_Delete(j);
		}
		if (over > 0.005)
			T_FAILF("case %d: brute force found %.4f s, planner %.4f s (%+.2f%%)", seed, bf,
				got, 100 * over);
		search_result_free(&res);
	}
	printf("  %d cases, %ld brute-force plans, planner at most %+.2f%% slower; the brute "
	       "force's best at most %.1f%% over the bound\n", cases, total_bf, 100 * worst,
	       100 * worst_bound);
}

/* Narayanan et al. 2021, Table 1: ten GPT models on 32 to 3,072 A100-80GB
 * GPUs with their published TP, PP, interleaving, micro and global batch
 * (tests/data/training.csv rows N21-T1-01..10). Under hetplan's own model
 * the planner's best plan must be at least as fast as the published one on
 * the same GPUs, model and global batch. */
TEST(narayanan_table1)
{
	struct calib_row *rows = NULL;
	int n = rows_load(&cat, "tests/data/training.csv", &rows);
	int seen = 0;
	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		struct calib_row *r = &rows[i];
		if (strncmp(r->id, "N21-T1-", 7) || r->kind != ROW_TIME)
			continue;
		seen++;
		struct estimate e;
		struct hp_err err = { 0 };
		double pub = row_predict(r, NULL);
		(void)e;
		struct search_opts o;
		search_opts_init(&o);
		o.gbs = r->plan.gbs;
		o.seq_len = r->plan.seq_len;
		o.precision = r->plan.precision;
		o.unfused_attention = !r->plan.flash;
		o.top_k = 1;
		struct search_result res;
		if (search_run(&r->cluster, &r->model, &o, &res, &err) < 0) {
			T_FAILF("%s: planner failed: %s", r->id, err.msg);
			search_result_free(&res);
			continue;
		}
		const struct search_plan *b = &res.plans[0];
		printf("  %s %-10s %4d GPUs: published tp %d pp %d mbs %d: %.2f s; planner %s mbs %d rc %s zero %d: %.2f s (%+.1f%%), %.2f s search\n",
		       r->id, r->model.name, b->est.n_gpus, r->plan.replicas[0].stages[0].tp,
		       r->plan.replicas[0].n_stages, r->plan.mbs, pub, b->label, b->plan.mbs,
		       plan_recompute_name(b->plan.recompute), b->plan.zero, b->est.step_time_s,
		       100 * (b->est.step_time_s / pub - 1), res.stats.seconds);
		if (b->est.step_time_s > pub * (1 + 1e-9))
			T_FAILF("%s: planner %.3f s slower than the published %.3f s", r->id,
				b->est.step_time_s, pub);
		search_result_free(&res);
	}
	CHECK_EQ_INT(seen, 10);
	for (int i = 0; i < n; i++)
		plan_free(&rows[i].plan);
	free(rows);
}


/* Plans, Pareto front and statistics of two searches, field by field. */
static void check_same_result(const char *what, const struct search_result *a,
			      const struct search_result *b)
{
	CHECK_EQ_INT(a->n_plans, b->n_plans);
	CHECK_EQ_INT(a->n_pareto, b->n_pareto);
	CHECK(a->stats.candidates == b->stats.candidates);
	CHECK(a->stats.evaluated == b->stats.evaluated);
	CHECK(a->stats.screened == b->stats.screened);
	CHECK(a->stats.pruned == b->stats.pruned);
	CHECK(a->stats.probes == b->stats.probes);
	CHECK(a->stats.dp_terms == b->stats.dp_terms);
	CHECK(a->stats.sub_candidates == b->stats.sub_candidates);
	CHECK_EQ_INT(a->stats.lp_solves, b->stats.lp_solves);
	for (int i = 0; i < a->n_plans && i < b->n_plans; i++) {
		if (!plan_equal(&a->plans[i].plan, &b->plans[i].plan) ||
		    a->plans[i].score != b->plans[i].score ||
		    a->plans[i].gap != b->plans[i].gap || strcmp(a->plans[i].label, b->plans[i].label))
			T_FAILF("%s: plan %d differs: %s vs %s", what, i + 1, a->plans[i].label,
				b->plans[i].label);
	}
	for (int i = 0; i < a->n_pareto && i < b->n_pareto; i++)
		if (!plan_equal(&a->pareto[i].plan, &b->pareto[i].plan))
			T_FAILF("%s: Pareto point %d differs", what, i + 1);
	for (int i = 0; i < HP_MAX_POOLS; i++) {
		CHECK_EQ_INT(a->has_single[i], b->has_single[i]);
		if (a->has_single[i] && b->has_single[i] &&
		    !plan_equal(&a->single[i].plan, &b->single[i].plan))
			T_FAILF("%s: best plan on pool %d differs", what, i);
	}
	CHECK_EQ_INT(a->has_stock, b->has_stock);
}

/* The same input gives the same plans for 1, 2 and 3 threads and across
 * runs: settings are searched in fixed batches and merged in order. */
TEST(threads_same_plans)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "4x8xH100-SXM,name=h100", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "4x8xA100-80GB,name=a100", &cat, &err) == 0);
	const struct model_spec *m = catalog_model(&cat, "llama3.1-70b");
	static const enum search_objective objs[] = { OBJ_THROUGHPUT, OBJ_DEADLINE };
	for (size_t k = 0; k < HP_ARRAY_LEN(objs); k++) {
		struct search_opts o;
		search_opts_init(&o);
		o.gbs = 512;
		o.objective = objs[k];
		/* 100B tokens in 60 days: 19.3K tokens/s, which 64 of these
		 * GPUs exceed (a 70B model takes 6 x 70.6e9 = 4.2e11 FLOP per
		 * token; 40% of the A100's 312 TFLOP/s is 300 tokens/s, of
		 * the H100's 989 about 940: 32 of each give ~40K) */
		o.tokens = 100e9;
		o.deadline_s = 60 * 86400.0;
		struct search_result r[4];
		static const int threads[] = { 1, 2, 3, 2 };
		for (int t = 0; t < 4; t++) {
			o.threads = threads[t];
			CHECK(search_run(&c, m, &o, &r[t], &err) == 0);
		}
		for (int t = 1; t < 4; t++)
			check_same_result(search_objective_name(objs[k]), &r[0], &r[t]);
		for (int t = 0; t < 4; t++)
			search_result_free(&r[t]);
	}
}

/* The best plan on each pool (search_result.single) is the best plan of
 * a search on a cluster of that pool alone, its stages moved to the
 * pool's index (docs/planner.md, "Threads": those searches run as side
 * tasks of the shared search's threads, and their answers are taken in
 * pool order). Checked against searches run here one pool at a time, on
 * three pools of different GPUs and with 1 and 2 threads, so an answer
 * taken for the wrong pool or lost between threads fails. */
TEST(pool_bests_are_the_pools_alone)
{
	static const char *const pools[] = { "2x8xH100-SXM,name=h100", "2x8xA100-80GB,name=a100",
					     "2x8xL40S,name=l40s" };
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	for (int i = 0; i < 3; i++)
		CHECK(cluster_add_pool_spec(&c, pools[i], &cat, &err) == 0);
	const struct model_spec *m = catalog_model(&cat, "llama3.1-8b");
	struct search_opts o;
	search_opts_init(&o);
	o.gbs = 64;
	for (int th = 1; th <= 2; th++) {
		o.threads = th;
		struct search_result r;
		CHECK(search_run(&c, m, &o, &r, &err) == 0);
		for (int i = 0; i < 3; i++) {
			struct cluster one;
			cluster_init(&one);
			CHECK(cluster_add_pool_spec(&one, pools[i], &cat, &err) == 0);
			struct search_opts so = o;
			so.top_k = 1;
			struct search_result a;
			CHECK(search_run(&one, m, &so, &a, &err) == 0);
			CHECK(a.n_plans == 1 && r.has_single[i]);
			if (a.n_plans == 1 && r.has_single[i]) {
				struct plan p;
				plan_copy(&p, &a.plans[0].plan);
				for (int g = 0; g < p.n_replicas; g++)
					for (int s = 0; s < p.replicas[g].n_stages; s++)
						p.replicas[g].stages[s].pool = i;
				if (!plan_equal(&p, &r.single[i].plan))
					T_FAILF("%d threads, pool %s: best plan %s, alone %s", th, pools[i],
						r.single[i].label, a.plans[0].label);
				plan_free(&p);
			}
			search_result_free(&a);
		}
		search_result_free(&r);
	}
}

/* Every global setting is searched, however many there are. A MoE model
 * with 64 experts at 32K context: micro-batch 1, 2, 4, 8 x recompute
 * none/full x ZeRO 1/3 x 1F1B/interleaved x CP 1, 2, 4, 8 (sequences of
 * 16K and longer) x EP 1, 2, 4, 8, 16, 32, 64 = 4 x 2 x 2 x 2 x 4 x 7 =
 * 896, as DeepSeek-V3 at --seq-len 32768 --gbs 1024 (the planner once
 * stopped at 512 and never searched micro-batch 8). */
TEST(no_settings_cap)
{
	struct model_spec m;
	tiny_model(&m, 4, 1024, 32768);
	m.heads = 8;
	m.moe.experts = 64;
	m.moe.top_k = 2;
	m.moe.expert_ffn = 512;
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "4x8xH100-SXM", &cat, &err) == 0);
	struct search_opts o;
	search_opts_init(&o);
	o.gbs = 1024;
	o.top_k = 1;
	struct search_result res;
	search_run(&c, &m, &o, &res, &err);
	CHECK_EQ_INT(res.stats.settings, 896);
	search_result_free(&res);
}

/* --framework constrains the overlap keys the planner searches: the
 * Megatron-LM code of 2021-22 (SC21) has no TP overlap, no gradient-reduce
 * overlap and no parameter-gather overlap; DeepSpeed has no TP
 * communication overlap (its TP is Megatron-DeepSpeed's, without
 * userbuffers). */
TEST(framework_constrains_overlaps)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "4x8xH100-SXM", &cat, &err) == 0);
	const struct model_spec *m = catalog_model(&cat, "llama3.1-70b");
	struct search_opts o;
	search_opts_init(&o);
	o.gbs = 256;
	o.framework = FW_MEGATRON_LM;
	struct search_result res;
	CHECK(search_run(&c, m, &o, &res, &err) == 0);
	CHECK(res.n_plans > 0);
	for (int i = 0; i < res.n_plans; i++) {
		const struct plan *p = &res.plans[i].plan;
		CHECK_EQ_INT(plan_tp_overlap(p) + plan_grad_overlap(p) + plan_param_overlap(p), 0);
	}
	search_result_free(&res);
	o.framework = FW_DEEPSPEED;
	CHECK(search_run(&c, m, &o, &res, &err) == 0);
	CHECK(res.n_plans > 0);
	for (int i = 0; i < res.n_plans; i++)
		CHECK_EQ_INT(plan_tp_overlap(&res.plans[i].plan), 0);
	search_result_free(&res);
}

/* The throughput bound's data-parallel terms (issue 13) against the brute
 * force, on clusters whose network makes gradient synchronisation costly:
 * one NIC of 25 or 100 Gb/s per node (a sixteenth to a sixty-fourth of the
 * usual 8x400G). The brute force runs every gradient-reduce and
 * parameter-gather overlap setting (on and off), as the planner's overlap
 * search may. The bound must stay at or under every plan it finds (sound);
 * the brute force's best is the best plan of the space, so best / bound - 1
 * is the gap the bound leaves. Without the DP terms it was 54% to 202% on
 * these cases (measured with bound_finish's raise taken out, 2026-12: the
 * relaxed optimum spread the batch over many replicas whose
 * synchronisation it did not count); with them 4% to 67%, and at most 10%
 * where the best plan spends 15% of its step or more synchronising. What
 * remains on the others is memory (layouts probed at the largest DP
 * degree fit in the bound but not in the plans) and integrality. */
TEST(dp_bound_brute_force)
{
	static const struct {
		const char *a, *b;
		int layers, hidden, seq, gbs, mbs, zero;
		enum hp_recompute rc;
	} cases[] = {
		{ "4x4xH20,name=a,nics=1,nic_gbps=100", NULL, 4, 4096, 4096, 16, 1, 1, RC_NONE },
		{ "4x4xH20,name=a,nics=1,nic_gbps=100", NULL, 4, 4096, 4096, 16, 1, 3, RC_NONE },
		{ "4x4xA100-80GB,name=a,nics=1,nic_gbps=25", NULL, 3, 4096, 4096, 32, 1, 1, RC_NONE },
		{ "4x4xA100-80GB,name=a,nics=1,nic_gbps=25", NULL, 3, 4096, 4096, 32, 1, 3, RC_FULL },
		{ "2x4xH100-SXM,name=a,nics=1,nic_gbps=100", "2x4xA100-80GB,name=b,nics=1,nic_gbps=100",
		  3, 4096, 4096, 32, 1, 1, RC_NONE },
		{ "2x4xH100-SXM,name=a,nics=1,nic_gbps=25", "2x4xL40S,name=b,nics=1,nic_gbps=25",
		  3, 4096, 4096, 16, 2, 3, RC_NONE },
		{ "4x4xL40S,name=a,nics=1,nic_gbps=100", NULL, 4, 4096, 4096, 32, 2, 1, RC_FULL },
		{ "2x8xH100-SXM,name=a,nics=1,nic_gbps=25", NULL, 3, 4096, 4096, 32, 1, 1, RC_NONE },
	};
	double worst = 0, worst_dp = 0;
	for (size_t k = 0; k < HP_ARRAY_LEN(cases); k++) {
		struct cluster c;
		struct hp_err err = { 0 };
		cluster_init(&c);
		if (cluster_add_pool_spec(&c, cases[k].a, &cat, &err) < 0 ||
		    (cases[k].b && cluster_add_pool_spec(&c, cases[k].b, &cat, &err) < 0)) {
			T_FAILF("%s", err.msg);
			return;
		}
		struct model_spec m;
		tiny_model(&m, cases[k].layers, cases[k].hidden, cases[k].seq);
		struct plan proto;
		plan_init(&proto);
		proto.gbs = cases[k].gbs;
		proto.mbs = cases[k].mbs;
		proto.recompute = cases[k].rc;
		proto.zero = cases[k].zero;
		proto.precision = HP_FP16;
		double bf = HUGE_VAL;
		long ev = 0;
		for (int v = 0; v < 4; v++) {
			long n = 0;
			proto.grad_overlap = v & 1;
			proto.param_overlap = v >> 1;
			bf = fmin(bf, brute_force(&c, &m, &proto, &n));
			ev += n;
		}
		struct search_opts o;
		opts_as_proto(&o, &proto);
		struct search_result res;
		int rc = search_run(&c, &m, &o, &res, &err);
		if (rc < 0 || !isfinite(bf)) {
			T_FAILF("case %zu: planner rc %d (%s), brute force %.4f s", k, rc, err.msg, bf);
			if (rc == 0)
				search_result_free(&res);
			continue;
		}
		double bf_score = bf / ((double)proto.gbs * m.seq_len);
		if (!res.has_bound || res.bound > bf_score * (1 + 1e-9))
			T_FAILF("case %zu: bound %.6g s per token over the brute force's %.6g", k,
				res.bound, bf_score);
		double gap = res.has_bound && res.bound > 0 ? bf_score / res.bound - 1 : HUGE_VAL;
		double dp_share = res.plans[0].est.bd.dp_comm / res.plans[0].est.step_time_s;
		worst = fmax(worst, gap);
		if (dp_share >= 0.15)
			worst_dp = fmax(worst_dp, gap);
		printf("  dp case %zu: %s%s%s, %s gbs %d mbs %d zero %d: brute %.4f s (%ld plans, DP %.0f%% of the planner's step), over the bound by %.1f%%\n",
		       k, cases[k].a, cases[k].b ? " + " : "", cases[k].b ? cases[k].b : "", m.name,
		       proto.gbs, proto.mbs, proto.zero, bf, ev,
		       100 * dp_share, 100 * gap);
		search_result_free(&res);
	}
	printf("  the brute force's best at most %.1f%% over the bound with DP terms (%.1f%% "
	       "where DP is 15%% of the step or more)\n", 100 * worst, 100 * worst_dp);
	CHECK(worst <= 0.70);
	/* 0.12: case 0's H20 runs its GEMMs at its measured sweep relative to
	 * the H100 (clock_frac: 0.948 / 0.710 of hopper.gemm16), 1.34x faster
	 * than before; its plans' DP went from 30% to 18% of the step and the
	 * bound's gap from 0.2% to 10.9%: the bound's DP terms are loosest
	 * where DP and compute are both large (docs/planner.md, fifteenth
	 * round). The L40S case, DP 29%, is at 0.6%. */
	CHECK(worst_dp <= 0.12);
}

/* Idle GPUs that the batch does not explain (issue 13): 32 H100 and a
 * node of 8 V100-32GB for Llama 3.1 70B in fp16. On the V100 node alone
 * no plan fits: mixed-precision Adam keeps 16 bytes per parameter
 * (fp16 weights and gradients, fp32 master weights and two moments), 70.6B
 * x 16 B = 1.13 TB, 141 GB per GPU even sharded 8 ways under ZeRO-3,
 * against 32 GB. Plan 1 leaves the node idle with its one replica holding
 * all 512 micro-batches, far more than twice its depth, so the note must
 * not blame the batch; it names the idle pool and says nothing fits on it
 * alone. */
TEST(idle_note_without_batch_limit)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "4x8xH100-SXM,name=h", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x8xV100-SXM2-32GB,name=v", &cat, &err) == 0);
	struct search_opts o;
	search_opts_init(&o);
	o.gbs = 512;
	o.precision = HP_FP16;
	o.top_k = 1;
	struct search_result res;
	int rc = search_run(&c, catalog_model(&cat, "llama3.1-70b"), &o, &res, &err);
	CHECK(rc == 0);
	if (rc == 0) {
		CHECK(res.plans[0].est.n_gpus == 32);
		CHECK(!res.has_single[1]);
		CHECK(strstr(res.idle_note, "plan 1 uses 32 of 40 GPUs") == res.idle_note);
		CHECK(strstr(res.idle_note, "no plan searched that adds the idle pool") != NULL);
		CHECK(strstr(res.idle_note, "V100-SXM2-32GB none fits") != NULL);
		CHECK(strstr(res.idle_note, "--gbs") == NULL);
		printf("  idle note: %s\n", res.idle_note);
	}
	search_result_free(&res);
}

/* QA: with --mem-headroom 0 (or 0.2, which no plan of this case keeps)
 * the search listed first a plan whose fullest stage held 101% of its
 * A100-40GB with the allocator's reserve (its live tensors fitting),
 * above plans within the GPU. The facts checked, from each listed plan's
 * own stage records: no stage's total exceeds its GPU while plans within
 * it exist (the same case lists some at 99%: 3 asked, 3 listed), and
 * ranks never put a riskier plan first. */
TEST(headroom_ranks_fitting_first)
{
	const double hs[2] = { 0, 0.2 };
	for (int k = 0; k < 2; k++) {
		struct cluster c;
		struct hp_err err = { 0 };
		cluster_init(&c);
		CHECK(cluster_add_pool_spec(&c, "4x8xA100-SXM4-40GB", &cat, &err) == 0);
		struct search_opts o;
		search_opts_init(&o);
		o.gbs = 64;
		o.top_k = 3;
		o.mem_headroom = hs[k];
		struct search_result res;
		int rc = search_run(&c, catalog_model(&cat, "llama2-70b"), &o, &res, &err);
		CHECK(rc == 0);
		if (rc == 0) {
			CHECK_EQ_INT(res.n_plans, 3);
			for (int i = 0; i < res.n_plans; i++) {
				const struct search_plan *sp = &res.plans[i];
				int over = 0, within = 0;
				for (int s = 0; s < sp->est.n_stages; s++) {
					const struct perf_stage *st = &sp->est.stages[s];
					over |= st->total > st->capacity;
					within |= st->total > (1 - hs[k]) * st->capacity;
				}
				CHECK(!over);
				CHECK_EQ_INT(sp->risky, within);
				if (i)
					CHECK(res.plans[i - 1].risky <= sp->risky);
			}
		}
		search_result_free(&res);
	}
}

/* QA: --tokens below one global batch gave a time to train under one
 * step. Steps are ceil(tokens / (gbs x seq)), at least 1. Hand cases at
 * gbs 64 x 4096 = 262,144 tokens a step: 1,000 tokens -> 1 step; 0 -> 1;
 * 524,288 -> 2 exactly; 524,289 -> 3. A search's time to train is those
 * steps times the plan's own step time. */
TEST(train_steps_whole)
{
	CHECK(search_train_steps(1000, 262144) == 1);
	CHECK(search_train_steps(0, 262144) == 1);
	CHECK(search_train_steps(524288, 262144) == 2);
	CHECK(search_train_steps(524289, 262144) == 3);
	const double toks[2] = { 1000, 2.5 * 262144 }, steps[2] = { 1, 3 };
	for (int k = 0; k < 2; k++) {
		struct cluster c;
		struct hp_err err = { 0 };
		cluster_init(&c);
		CHECK(cluster_add_pool_spec(&c, "1x8xA100-SXM4-80GB", &cat, &err) == 0);
		struct search_opts o;
		search_opts_init(&o);
		o.gbs = 64;
		o.seq_len = 4096;
		o.top_k = 2;
		o.tokens = toks[k];
		struct search_result res;
		int rc = search_run(&c, catalog_model(&cat, "llama2-7b"), &o, &res, &err);
		CHECK(rc == 0);
		for (int i = 0; rc == 0 && i < res.n_plans; i++)
			CHECK_NEAR(res.plans[i].time_to_train_s,
				   steps[k] * res.plans[i].est.step_time_s, 1e-12);
		search_result_free(&res);
	}
}

/* The FLOPs an estimate reports (MFU and HFU come from them) are exactly
 * model.c's model_step_flops and model_step_hw_flops of the step's
 * tokens, compared with == (perf_memo.c keeps them per token, issue 13,
 * fifth round; its rounding argument must hold bit for bit): every
 * recompute setting, batches from 1 to 2^20 sequences in an order that
 * revisits them, odd batches, and the plans a search ranks. A memo that
 * mixed up recompute settings fails here (tried: 126 of 174 differ). */
TEST(estimate_flops_exact)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM,name=h", &cat, &err) == 0);
	const char *models[] = { "mixtral-8x7b", "llama3.1-8b" };
	static const enum hp_recompute rcs[] = { RC_NONE, RC_SELECTIVE, RC_FULL, RC_SELECTIVE_OP };
	int bad = 0, n = 0;
	for (size_t mi = 0; mi < HP_ARRAY_LEN(models); mi++) {
		const struct model_spec *m = catalog_model(&cat, models[mi]);
		CHECK(m != NULL);
		if (!m)
			continue;
		struct plan p;
		plan_init(&p);
		CHECK(plan_uniform(&p, &c, m, 0, 8, 2, 1, &err) == 0);
		for (int i = 0; i < 84; i++) {
			p.recompute = rcs[i % 4];
			p.gbs = i < 42 ? 1 << (i * 7 % 21) : 1 + (i * 7919) % 100003;
			struct estimate e;
			if (perf_estimate(&c, m, &p, NULL, &e, &err) < 0) {
				bad++;
				continue;
			}
			double s = e.seq_len, tokens = (double)p.gbs * s;
			bad += e.model_flops != model_step_flops(m, tokens, s) ||
			       e.hw_flops != model_step_hw_flops(m, tokens, s, p.recompute);
			n++;
			estimate_free(&e);
		}
		plan_free(&p);
		struct search_opts o;
		search_opts_init(&o);
		o.gbs = 64;
		o.top_k = 3;
		struct search_result res;
		if (search_run(&c, m, &o, &res, &err) == 0)
			for (int i = 0; i < res.n_plans; i++) {
				const struct search_plan *sp = &res.plans[i];
				double s = sp->est.seq_len, tokens = (double)sp->plan.gbs * s;
				bad += sp->est.model_flops != model_step_flops(m, tokens, s) ||
				       sp->est.hw_flops !=
					       model_step_hw_flops(m, tokens, s, sp->plan.recompute);
				n++;
			}
		search_result_free(&res);
	}
	printf("  %d estimates' FLOPs against model.c: %d differ\n", n, bad);
	CHECK(n >= 2 * 84);
	CHECK_EQ_INT(bad, 0);
}

/* Does any stage record of a differ from b's (every field, ==)? */
static int stages_differ(const struct estimate *a, const struct estimate *b)
{
	if (a->n_stages != b->n_stages)
		return 1;
	int d = 0;
	for (int i = 0; i < a->n_stages; i++) {
		const struct perf_stage *x = &a->stages[i], *y = &b->stages[i];
		d += x->group != y->group || x->index != y->index || x->pool != y->pool ||
		     x->tp != y->tp || x->layers != y->layers || x->first_layer != y->first_layer ||
		     x->last_layer != y->last_layer || x->t_fwd != y->t_fwd ||
		     x->t_bwd != y->t_bwd || x->t_recompute != y->t_recompute ||
		     x->t_tp != y->t_tp || x->t_pp != y->t_pp || x->t_cp != y->t_cp ||
		     x->t_ep != y->t_ep || x->t_total != y->t_total ||
		     x->t_host_stall != y->t_host_stall || x->weights != y->weights ||
		     x->grads != y->grads || x->optimizer != y->optimizer ||
		     x->activations != y->activations || x->other != y->other ||
		     x->total != y->total || x->capacity != y->capacity ||
		     x->outside != y->outside || x->slack != y->slack || x->fits != y->fits;
	}
	return d > 0;
}

/* The plan shapes dp_exposed_matches_estimate and
 * memory_check_matches_estimate run over, on their cluster of a 2x8
 * H100 pool and a 2x8 A100 pool: TP x PP x DP uniform on the first pool,
 * shape 3 spanning both (8 replicas of 2 GPUs, stage s on pool s % 2).
 * Returns 0 with *p built, or -1 (p freed) when the shape does not fit
 * the model. */
enum { N_SHAPES = 4 };
static const int shape_tp[N_SHAPES] = { 8, 4, 2, 1 }, shape_pp[N_SHAPES] = { 1, 2, 4, 2 },
		 shape_dp[N_SHAPES] = { 2, 2, 2, 8 };

static int shape_plan(struct plan *p, const struct cluster *c, const struct model_spec *m,
		      int shape)
{
	struct hp_err err = { 0 };
	plan_init(p);
	if (plan_uniform(p, c, m, 0, shape_tp[shape], shape_pp[shape], shape_dp[shape], &err) < 0) {
		plan_free(p);
		return -1;
	}
	if (shape == 3)
		for (int s = 0; s < p->replicas[0].n_stages; s++)
			p->replicas[0].stages[s].pool = s % 2;
	return 0;
}

/* perf_dp_exposed (the planner's bound takes its DP terms from it, issue
 * 13, sixth round) returns exactly perf_estimate's bd.dp_comm, compared
 * with ==: cold (before any estimate of the plan: the memo misses and it
 * computes the stages itself) and warm (after the estimate: the memo's
 * entries), over ZeRO 0-3, every overlap choice, frameworks with their
 * own DP rules (DeepSpeed with a pipeline, InternLM's broadcasts, apex
 * DDP's bucket copies), a MoE model with expert parallelism, a model with
 * tied embeddings (their sync between pipeline ends), pipelines of 1, 2
 * and 4 stages and a DP group over two pools. A DP path that skipped an
 * input of perf_stage_dp fails here (tried: without perf_stage_compute on
 * a miss, all 876 differ, and dp_bound_brute_force fails too). The same
 * for perf_stage_times (the layout probes' path, whose memo entries lack
 * the DP sync: taken first here, so the DP sync and the estimate after it
 * must not be served from them; tried: a whole estimate served from one,
 * 867 of the 876 DP figures differ): every field of every stage record
 * equals perf_estimate's, cold and warm. */
TEST(dp_exposed_matches_estimate)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM,name=h", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "2x8xA100-SXM4-80GB,name=a", &cat, &err) == 0);
	const char *models[] = { "mixtral-8x7b", "gpt-1.7b", "llama3.1-8b" };
	static const enum hp_framework fws[] = { FW_ANY, FW_DEEPSPEED, FW_TORCHTITAN,
						 FW_INTERNLM, FW_PYTORCH_DDP };
	int bad = 0, bad_st = 0, n = 0, nonzero = 0, gbs = 64;
	for (size_t mi = 0; mi < HP_ARRAY_LEN(models); mi++) {
		const struct model_spec *m = catalog_model(&cat, models[mi]);
		CHECK(m != NULL);
		if (!m)
			continue;
		for (int shape = 0; shape < N_SHAPES; shape++) {
			for (int v = 0; v < 4 * 3 * 3 * 5; v++) {
				struct plan p;
				if (shape_plan(&p, &c, m, shape) < 0)
					continue;
				p.zero = v % 4;
				p.grad_overlap = (v / 4) % 3 - 1;
				p.param_overlap = (v / 12) % 3 - 1;
				p.framework = fws[v / 36];
				p.ep = m->moe.experts > 0 && shape != 3 ? 2 : 1;
				p.gbs = gbs++;   /* a batch not seen before: the memo misses */
				struct hp_err e1 = { 0 };
				if (plan_validate(&p, &c, m, "test", &e1) < 0) {
					plan_free(&p);
					continue;
				}
				/* stage records first (their entries lack the DP sync),
				 * then the DP sync over them, the whole estimate, both
				 * again over its entries */
				double cold = -1, warm = -1;
				struct estimate e, sc, sw;
				if (perf_stage_times(&c, m, &p, NULL, &sc, &err) < 0 ||
				    perf_dp_exposed(&c, m, &p, NULL, &cold, &err) < 0 ||
				    perf_estimate(&c, m, &p, NULL, &e, &err) < 0 ||
				    perf_dp_exposed(&c, m, &p, NULL, &warm, &err) < 0 ||
				    perf_stage_times(&c, m, &p, NULL, &sw, &err) < 0) {
					bad++;
					plan_free(&p);
					continue;
				}
				bad += cold != e.bd.dp_comm || warm != e.bd.dp_comm;
				bad_st += stages_differ(&sc, &e) + stages_differ(&sw, &e);
				nonzero += e.bd.dp_comm > 0;
				n++;
				estimate_free(&e);
				estimate_free(&sc);
				estimate_free(&sw);
				plan_free(&p);
			}
		}
	}
	printf("  %d plans' exposed DP sync against perf_estimate: %d differ (%d nonzero); "
	       "stage records: %d differ\n", n, bad, nonzero, bad_st);
	CHECK(n >= 300);
	CHECK(nonzero >= n / 2);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(bad_st, 0);
}

/* One perf_stage_memories result against the whole estimate e: the
 * memory fields of every stage record (perf.c lists them) and the
 * verdict fields, compared with ==. 1 when any differs. */
static int memories_differ(const struct estimate *a, const struct estimate *e)
{
	if (a->n_stages != e->n_stages)
		return 1;
	int d = a->fits != e->fits || a->worst_over_bytes != e->worst_over_bytes ||
		a->worst_stage != e->worst_stage;
	for (int i = 0; i < a->n_stages; i++) {
		const struct perf_stage *x = &a->stages[i], *y = &e->stages[i];
		d += x->group != y->group || x->index != y->index || x->weights != y->weights ||
		     x->grads != y->grads || x->optimizer != y->optimizer ||
		     x->activations != y->activations || x->other != y->other ||
		     x->outside != y->outside || x->slack != y->slack || x->total != y->total ||
		     x->capacity != y->capacity || x->fits != y->fits;
	}
	return d > 0;
}

/* The planner drops a plan on perf_stage_memories' records before its
 * whole estimate (search.c, mem_first; issue 13, ninth round), which is
 * only sound if its memory is perf_estimate's, bit for bit: compared
 * with ==, every memory field of every stage and fits, worst_over_bytes,
 * worst_stage: cold (it computes the memory inputs and puts them), over
 * the memory inputs it put (and those of the plans before, at other
 * batches: the entries are kept without the micro-batches), and after
 * perf_stage_times and a whole estimate have filled the other tables. The plans are
 * dp_exposed_matches_estimate's and Llama 3.1 70B's, whose model state
 * alone (70.6B parameters, 18 bytes each under ZeRO-0: 16-bit weights,
 * the fp32 gradient buffer, fp32 master and moments; 159 GB a GPU at TP
 * 8) is over an 80 GB GPU in the
 * unsharded plans: plans that fit and plans that do not must both
 * occur. Tried: the check at half the plan's DP degree (a split fitted
 * at another degree, the case the planner must not get wrong): 424 of
 * the 544 checks differ (and brute_force_small_clusters fails). */
TEST(memory_check_matches_estimate)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM,name=h", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "2x8xA100-SXM4-80GB,name=a", &cat, &err) == 0);
	const char *models[] = { "mixtral-8x7b", "gpt-1.7b", "llama3.1-8b", "llama3.1-70b" };
	int bad = 0, n = 0, nofit = 0, gbs = 96;
	for (size_t mi = 0; mi < HP_ARRAY_LEN(models); mi++) {
		const struct model_spec *m = catalog_model(&cat, models[mi]);
		CHECK(m != NULL);
		if (!m)
			continue;
		for (int shape = 0; shape < N_SHAPES; shape++) {
			for (int v = 0; v < 4 * 2 * 3; v++) {
				struct plan p;
				if (shape_plan(&p, &c, m, shape) < 0)
					continue;
				p.zero = v % 4;
				p.recompute = v / 4 % 2 ? RC_FULL : RC_NONE;
				p.schedule = v / 8 == 1 && shape_pp[shape] > 1 ? SCHED_INTERLEAVED : p.schedule;
				p.vpp = p.schedule == SCHED_INTERLEAVED ? 2 : p.vpp;
				p.ep = m->moe.experts > 0 && shape != 3 ? 2 : 1;
				p.gbs = gbs++;   /* a batch not seen before: the memo misses */
				struct hp_err e1 = { 0 };
				if (plan_validate(&p, &c, m, "test", &e1) < 0) {
					plan_free(&p);
					continue;
				}
				struct estimate mm[4], e, st;
				int rc = perf_stage_memories(&c, m, &p, NULL, &mm[0], &err) |
					 perf_stage_memories(&c, m, &p, NULL, &mm[1], &err) |
					 perf_stage_times(&c, m, &p, NULL, &st, &err) |
					 perf_stage_memories(&c, m, &p, NULL, &mm[2], &err) |
					 perf_estimate(&c, m, &p, NULL, &e, &err) |
					 perf_stage_memories(&c, m, &p, NULL, &mm[3], &err);
				CHECK_EQ_INT(rc, 0);
				for (int k = 0; k < 4; k++) {
					bad += memories_differ(&mm[k], &e);
					estimate_free(&mm[k]);
				}
				nofit += !e.fits;
				n++;
				estimate_free(&st);
				estimate_free(&e);
				plan_free(&p);
			}
		}
	}
	printf("  %d plans' memory checks (4 paths each) against perf_estimate: %d differ; "
	       "%d do not fit\n", n, bad, nofit);
	CHECK(n >= 120);
	CHECK(nofit >= 20 && nofit <= n - 20);
	CHECK_EQ_INT(bad, 0);
}

/* 65,536 GPUs in 16 pools of 4,096 (H100, A100, H200, B200 in turn),
 * Llama 3.1 405B, --gbs 4080. A plan built by hand: 170 interleaved
 * (2 chunks) pipelines on each of 4 disjoint H200 > B200 pool pairs
 * (4,080 of each pool's 4,096 GPUs), three TP-8 stages on each side
 * (14 layers each on H200, 28 on B200: the split the planner solves for
 * this layout), 6 micro-batches each: 680 x 6 = 4,080. It fits and runs
 * at 5.70M tokens/s. The planner must find a plan at least as fast (0.5%
 * slack, as against the brute force). Before it tried the largest
 * disjoint subsets of its bound's relaxed optima (search.c,
 * lp_support_set: both optima here spread the pools over 7 overlapping
 * pairs) and the optimum with the data-parallel terms as a set, its best
 * plan ran at 4.17M tokens/s. */
TEST(disjoint_pairs_large_cluster)
{
	static const char *const gpus[] = { "H100-SXM", "A100-80GB", "H200", "B200" };
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	for (int i = 0; i < 16; i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "512x8x%s,name=p%d", gpus[i % 4], i);
		CHECK(cluster_add_pool_spec(&c, spec, &cat, &err) == 0);
	}
	const struct model_spec *m = catalog_model(&cat, "llama3.1-405b");
	CHECK(m != NULL);
	if (!m)
		return;
	static const int pairs[4][2] = { { 2, 11 }, { 6, 15 }, { 10, 3 }, { 14, 7 } };
	static const int k[6] = { 14, 14, 14, 28, 28, 28 };
	struct plan p;
	plan_init(&p);
	p.gbs = 4080;
	p.schedule = SCHED_INTERLEAVED;
	p.vpp = 2;
	p.n_replicas = 4;
	p.replicas = xcalloc(4, sizeof *p.replicas);
	for (int r = 0; r < 4; r++) {
		struct replica *rep = &p.replicas[r];
		rep->count = 170;
		rep->batch_share = 6.0 / 4080;
		rep->n_stages = 6;
		rep->stages = xcalloc(6, sizeof *rep->stages);
		for (int s = 0, a = 0; s < 6; a += k[s], s++) {
			rep->stages[s].pool = pairs[r][s / 3];
			rep->stages[s].tp = 8;
			rep->stages[s].first_layer = a;
			rep->stages[s].last_layer = a + k[s] - 1;
		}
	}
	struct estimate e;
	CHECK(perf_estimate(&c, m, &p, NULL, &e, &err) == 0);
	CHECK(e.fits);
	double hand = e.tokens_per_s;
	estimate_free(&e);
	plan_free(&p);
	struct search_opts o;
	search_opts_init(&o);
	o.gbs = 4080;
	o.top_k = 1;
	struct search_result res;
	CHECK(search_run(&c, m, &o, &res, &err) == 0);
	double got = res.n_plans ? res.plans[0].est.tokens_per_s : 0;
	printf("  65,536 GPUs, --gbs 4080: hand-built plan %.4gM tokens/s, planner %.4gM (%s)\n",
	       hand / 1e6, got / 1e6, res.n_plans ? res.plans[0].label : "no plan");
	if (!(got >= hand * (1 - 0.005)))
		T_FAILF("planner %.4gM tokens/s, below the hand-built %.4gM", got / 1e6, hand / 1e6);
	search_result_free(&res);
}

/* search_whole_step on hand-built cases where the real-valued LP's step
 * is fractional and the whole-replica step is known by hand. A replica of
 * a layout steps in a + b m seconds with m micro-batches (a multiple of
 * q); the LP lets replicas and micro-batches be real.
 *
 * 1. One pool of 10 GPUs, layouts X and Y of 3 GPUs each, both a = 1,
 *    b = 1, q = 1, M = 10 micro-batches. Real: 10/3 replicas of 3
 *    micro-batches, T = 1 + 3 = 4. Whole: the pool holds 3 replicas in all
 *    (3 x 3 = 9 <= 10 < 12; the Chvatal-Gomory cut n_X + n_Y <= 3, which
 *    each column's own limit of 3 does not give), so one takes
 *    ceil(10/3) = 4 micro-batches: T = 1 + 4 = 5, and the plan 4 + 3 + 3
 *    reaches it.
 * 2. Interleaved: one pool of 12 GPUs, a layout of 4 GPUs, a = 0.5, b = 1,
 *    q = 2 (multiples of its depth 2), M = 10. Real: 3 replicas of 10/3,
 *    T = 3.83. Whole: 3 replicas of multiples of 2 hold 10 only with one
 *    of 4 (4 + 4 + 2): T = 0.5 + 4 = 4.5; with 2 replicas, 6: 6.5.
 * 3. Two layouts' breakpoints: F (pool 0, 8 GPUs, a = 0, b = 1, 1 fits)
 *    and S (pool 1 of 3 GPUs, 1 GPU, a = 0, b = 3, 3 fit), M = 10. Real:
 *    T + 3 (T / 3) = 10, T = 5. Whole: at T in [5, 6) F takes 5 and each
 *    S 1, 8 < 10; at 6, 6 + 3 x 2 = 12: T = 6 (plan: F 4, S 2 + 2 + 2).
 *    The answer must not depend on where the search starts (t_min at
 *    or under 6); a t_min over it is returned as it is, and so is a
 *    t_max under it (5.5: no plan steps in 5.5 s).
 * 4. Case 1 with exactly 4 replicas in all: only 3 fit, no plan. */
TEST(whole_step_hand_cases)
{
	int lps = 0;
	struct whole_layout xy[2] = {
		{ .a = 1, .b = 1, .q = 1, .gpus = { 3 }, .max_count = 3 },
		{ .a = 1, .b = 1, .q = 1, .gpus = { 3 }, .max_count = 3 },
	};
	int cap1[1] = { 10 };
	CHECK_NEAR(search_whole_step(xy, 2, cap1, 1, 10, 1, 10, 4.0, HUGE_VAL, &lps), 5.0, 1e-7);
	CHECK(lps > 0);

	struct whole_layout il = { .a = 0.5, .b = 1, .q = 2, .gpus = { 4 }, .max_count = 3 };
	int cap2[1] = { 12 };
	CHECK_NEAR(search_whole_step(&il, 1, cap2, 1, 10, 1, 10, 10.0 / 3 + 0.5, HUGE_VAL, &lps), 4.5,
		   1e-7);

	struct whole_layout fs[2] = {
		{ .a = 0, .b = 1, .q = 1, .gpus = { 8, 0 }, .max_count = 1 },
		{ .a = 0, .b = 3, .q = 1, .gpus = { 0, 1 }, .max_count = 3 },
	};
	int cap3[2] = { 8, 3 };
	static const double t_min[] = { 5.0, 0.0, 5.99, 6.0 };
	for (size_t i = 0; i < HP_ARRAY_LEN(t_min); i++)
		CHECK_NEAR(search_whole_step(fs, 2, cap3, 2, 10, 1, 10, t_min[i], HUGE_VAL, &lps), 6.0, 1e-7);
	CHECK_NEAR(search_whole_step(fs, 2, cap3, 2, 10, 1, 10, 100.0, HUGE_VAL, &lps), 100.0, 1e-12);
	CHECK_NEAR(search_whole_step(fs, 2, cap3, 2, 10, 1, 10, 0.0, 5.5, &lps), 5.5, 1e-12);
	CHECK_NEAR(search_whole_step(fs, 2, cap3, 2, 10, 1, 10, 0.0, 7.0, &lps), 6.0, 1e-7);

	CHECK(!isfinite(search_whole_step(xy, 2, cap1, 1, 10, 4, 4, 4.0, HUGE_VAL, &lps)));
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(brute_force_small_clusters);
	RUN(narayanan_table1);
	RUN(threads_same_plans);
	RUN(pool_bests_are_the_pools_alone);
	RUN(no_settings_cap);
	RUN(framework_constrains_overlaps);
	RUN(dp_bound_brute_force);
	RUN(idle_note_without_batch_limit);
	RUN(headroom_ranks_fitting_first);
	RUN(train_steps_whole);
	RUN(estimate_flops_exact);
	RUN(dp_exposed_matches_estimate);
	RUN(memory_check_matches_estimate);
	RUN(disjoint_pairs_large_cluster);
	RUN(whole_step_hand_cases);
	catalog_done(&cat);
	return t_done("search");
}
