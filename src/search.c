/* search.c — the planner (see search.h for the pipeline).
 *
 * Plan space searched (stated in README "Planner"):
 *   global settings  micro-batch 1,2,4,8 (dividing the global batch);
 *                    recompute none/full (selective too when attention is
 *                    unfused: with flash attention it changes nothing in
 *                    the model); ZeRO 1 (distributed optimizer) and 3
 *                    (ZeRO 0 and 2 only when asked: in the model ZeRO-1
 *                    moves fewer bytes than 0, and 2 is 1 with sharded
 *                    gradients); 1F1B, and interleaved with 2 chunks;
 *                    CP 1..8 for sequences of 16K and longer; EP over the
 *                    divisors of the expert count for MoE models.
 *   replica layouts  a pipeline on one pool (TP a power of two inside a
 *                    node, PP from a fixed ladder up to 128), or a pipeline
 *                    whose first stages sit on one pool and the rest on
 *                    another (two pools per pipeline at most);
 *   plans            up to one single-pool layout per pool plus up to one
 *                    two-pool layout, each with a replica count.
 * Layer partition: per stage, time and memory are affine in the layers it
 * holds (exactly so in perf.c), probed from two or three perf_estimate()
 * calls; a bisection on the bottleneck with a greedy fill is exact for
 * ordered stages. Batch split: bisection on the step's pipeline time with
 * integer micro-batches per replica. Every ranked plan is re-scored with
 * perf_estimate(). The LP bound (lp.c) relaxes the replica counts and
 * drops the data-parallel and optimizer terms, so it never under-states
 * what the searched space can reach; the gap of the best plan to it is
 * what "optimality" reports. */
#include "search.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capmilp.h"
#include "lp.h"
#include "perf_memo.h"
#include "runs_on.h"

struct ctx;
static int estimate(struct ctx *x, const struct plan *p, struct estimate *e, struct hp_err *err);

void search_opts_init(struct search_opts *o)
{
	memset(o, 0, sizeof *o);
	o->precision = HP_BF16;
	o->top_k = 10;
	o->fix_zero = -1;
	o->fix_recompute = -1;
	o->fix_sched = -1;
	o->objective = OBJ_THROUGHPUT;
	o->framework = FW_ANY;
	/* 5% of usable memory kept free: PyTorch's caching allocator and NCCL
	 * grow past a steady-state estimate (fragmentation, late workspaces);
	 * a range of 0-0.5 is accepted (cmd_plan.c). */
	o->mem_headroom = 0.05;
}

const char *search_objective_name(enum search_objective o)
{
	static const char *const n[] = { "throughput", "cost", "deadline", "budget" };
	return n[o];
}

int search_objective_parse(const char *s, enum search_objective *o)
{
	for (int i = 0; i <= OBJ_BUDGET; i++)
		if (hp_strieq(s, search_objective_name((enum search_objective)i))) {
			*o = (enum search_objective)i;
			return 0;
		}
	return -1;
}

const char *search_optimality_name(enum search_optimality o)
{
	static const char *const n[] = { "optimal", "within-gap", "heuristic" };
	return n[o];
}

enum search_mem search_mem_state(const struct estimate *e, double headroom, double *need,
				 double *cap)
{
	enum search_mem st = MEM_FITS;
	double worst = -1, nb = 0, cb = 0;
	for (int i = 0; i < e->n_stages; i++) {
		const struct perf_stage *ps = &e->stages[i];
		double r = ps->capacity > 0 ? ps->total / ps->capacity : HUGE_VAL;
		if (r > worst) {
			worst = r;
			nb = ps->total - ps->slack;
			cb = ps->capacity;
		}
		if (!ps->fits)
			st = MEM_NOFIT;
		else if (st == MEM_FITS && ps->total > (1 - headroom) * ps->capacity)
			st = MEM_RISKY;
	}
	if (need)
		*need = nb;
	if (cap)
		*cap = cb;
	return st;
}

const char *search_mem_name(enum search_mem s)
{
	static const char *const n[] = { "fits", "fits-with-risk", "does-not-fit" };
	return n[s];
}

static void search_plan_memory(struct search_plan *sp, double headroom)
{
	sp->risky = search_mem_state(&sp->est, headroom, &sp->mem_need_bytes,
				     &sp->mem_capacity_bytes) == MEM_RISKY;
}

static void sp_free(struct search_plan *s)
{
	plan_free(&s->plan);
	estimate_free(&s->est);
}

void search_result_free(struct search_result *res)
{
	for (int i = 0; i < res->n_plans; i++)
		sp_free(&res->plans[i]);
	free(res->plans);
	for (int i = 0; i < res->n_pareto; i++)
		sp_free(&res->pareto[i]);
	free(res->pareto);
	for (int i = 0; i < HP_MAX_POOLS; i++)
		if (res->has_single[i])
			sp_free(&res->single[i]);
	if (res->has_nearest)
		sp_free(&res->nearest);
	if (res->has_stock)
		sp_free(&res->stock);
	if (res->has_mem_miss)
		sp_free(&res->mem_miss);
	memset(res, 0, sizeof *res);
}

/* ------------------------------------------------------------------ */

/* The deepest pipeline searched: the last rung of pp_ladder (solve_layout
 * refuses deeper ones rather than overrun its per-stage arrays). */
#define MAX_STAGES 128

struct gset {
	int mbs;
	enum hp_recompute rc;
	int zero;
	enum hp_schedule sched;
	int vpp;
	int cp, ep;
};

struct seg {
	int pool, tp, stages;
};

struct layout {
	int nseg;
	struct seg seg[2];
	int pp;
	int gpus[HP_MAX_POOLS];   /* per replica */
	int size;
	int max_count;            /* replicas that fit on the cluster alone */
	/* solved for the current global settings */
	int fits;
	int k[MAX_STAGES];        /* layers per stage */
	double B, A;              /* pipeline time = m*B + A per step */
	double B_lo, A_lo;        /* the same without PP/CP/EP communication,
				   * whose links depend on the DP degree
				   * (dispatch.c): a lower bound at any degree */
	double rate;              /* micro-batches per second per GPU */
	double usd_h;             /* per replica (GPU share of node prices) */
	int price_known;
};

struct ctx {
	const struct cluster *c;
	const struct model_spec *m;
	const struct search_opts *o;
	struct search_result *res;
	int seq;
	double tokens;
	int cap[HP_MAX_POOLS];    /* GPUs available per pool */
	int exhaustive;
	double mem_miss;          /* nearest memory miss: need / capacity */
	char mem_desc[200];
	double mem_frac;          /* share of each GPU's capacity a layer split may fill:
				   * 1 - the headroom, or 1 when no plan keeps it */
	int max_dp;               /* most replicas any plan can have */
	/* the ranked list kept while searching */
	struct search_plan *top;
	int n_top, keep;
	/* every scored plan's (time, cost) for the Pareto front */
	struct search_plan *front;
	int n_front, cap_front;
	double best_miss;         /* nearest miss: how far over the limit */
	double bound;             /* objective bound over the searched space */
	int have_bound;
	/* A worker's context (one global setting) reads the shared one's
	 * kept plans, frozen for the batch, to prune and screen; NULL for
	 * the shared context itself. */
	const struct ctx *glob;
	/* Set while the replica counts of one layout set are tried: no plan
	 * of the set runs on a stock framework (set_no_stock), so the best
	 * stock plan cannot change and does not hold back screening. */
	int no_stock;
	unsigned long n_estimates;   /* estimate() calls, for its time sample */
	struct capmilp_memo *milp_memo;  /* answered capacity MILPs, shared by the
					  * search's threads (capmilp.h) */
};

/* perf_estimate() of p on the search's cluster and model. Its time goes
 * to the statistics (estimate_s) from one call in ESTIMATE_SAMPLE,
 * scaled up: the calls are alike enough for a sample, and reading the
 * clock costs about 0.1 us on the shared machine (a thread's CPU clock,
 * a system call there, about 5 us: more than half an estimate). */
#define ESTIMATE_SAMPLE 16
/* One call in ESTIMATE_SAMPLE is timed: its start (hp_now), else -1. */
static double sample_begin(struct ctx *x)
{
	return x->n_estimates++ % ESTIMATE_SAMPLE ? -1 : hp_now();
}

/* A timed call counts for the ESTIMATE_SAMPLE calls it stands for. */
static void sample_end(struct ctx *x, double t0)
{
	if (t0 >= 0)
		x->res->stats.estimate_s += ESTIMATE_SAMPLE * (hp_now() - t0);
}

static int estimate(struct ctx *x, const struct plan *p, struct estimate *e, struct hp_err *err)
{
	double t0 = sample_begin(x);
	int rc = perf_estimate(x->c, x->m, p, NULL, e, err);
	sample_end(x, t0);
	return rc;
}

/* The same, for a layout probe: perf_stage_times (the stage records
 * alone), sampled into the same statistic. */
static int estimate_stages(struct ctx *x, const struct plan *p, struct estimate *e,
			   struct hp_err *err)
{
	double t0 = sample_begin(x);
	int rc = perf_stage_times(x->c, x->m, p, NULL, e, err);
	sample_end(x, t0);
	return rc;
}

/* The same, for the bound's DP terms: perf_dp_exposed (dp_comm alone). */
static int estimate_dp(struct ctx *x, const struct plan *p, double *dp_s, struct hp_err *err)
{
	double t0 = sample_begin(x);
	int rc = perf_dp_exposed(x->c, x->m, p, NULL, dp_s, err);
	sample_end(x, t0);
	return rc;
}

/* The score a plan must beat to enter the ranked list: the last kept
 * plan's, once the list is full, here or in the shared context (frozen
 * during a batch, so the answer does not depend on the thread count).
 * Returns 0 while neither list is full. */
static int top_worst(const struct ctx *x, double *w)
{
	int have = 0;
	*w = HUGE_VAL;
	for (const struct ctx *y = x; y; y = y->glob)
		if (y->n_top == y->keep) {
			*w = fmin(*w, y->top[y->n_top - 1].score);
			have = 1;
		}
	return have;
}

/* The best stock-framework plan's score here or in the shared context;
 * 0 when neither has one. */
static int stock_best(const struct ctx *x, double *w)
{
	int have = 0;
	*w = HUGE_VAL;
	for (const struct ctx *y = x; y; y = y->glob)
		if (y->res->has_stock) {
			*w = fmin(*w, y->res->stock.score);
			have = 1;
		}
	return have;
}

/* Does a kept Pareto point dominate (or equal) every plan with time to
 * train >= t and cost >= usd? */
static int front_dominates(const struct ctx *x, double t, double usd)
{
	for (const struct ctx *y = x; y; y = y->glob)
		for (int i = 0; i < y->n_front; i++)
			if (y->front[i].time_to_train_s <= t && y->front[i].cost_to_train_usd <= usd)
				return 1;
	return 0;
}

/* The nearest memory miss so far (need / capacity), here or shared; 0
 * when there is none. */
static double mem_miss_now(const struct ctx *x)
{
	double r = 0;
	for (const struct ctx *y = x; y; y = y->glob)
		if (y->mem_miss > 0 && (r == 0 || y->mem_miss < r))
			r = y->mem_miss;
	return r;
}

static int layout_dense_layers(const struct model_spec *m)
{
	return m->moe.experts ? m->moe.dense_layers : m->layers;
}

static void plan_globals(struct plan *p, const struct ctx *x, const struct gset *g)
{
	plan_init(p);
	p->mbs = g->mbs;
	p->gbs = x->o->gbs;
	p->seq_len = x->o->seq_len;
	p->precision = x->o->precision;
	p->recompute = g->rc;
	p->zero = g->zero;
	p->schedule = g->sched;
	p->vpp = g->vpp;
	p->cp = g->cp;
	p->ep = g->ep;
	p->flash = !x->o->unfused_attention;
	p->framework = x->o->framework;
}

static void layout_stage(const struct layout *L, int s, int *pool, int *tp)
{
	if (s < L->seg[0].stages) {
		*pool = L->seg[0].pool;
		*tp = L->seg[0].tp;
	} else {
		*pool = L->seg[1].pool;
		*tp = L->seg[1].tp;
	}
}

/* Per stage: time and memory as alpha + dense*bd + moe*bm; c: time
 * without PP/CP/EP communication. */
struct fit {
	double ta, tbd, tbm;
	double ca, cbd, cbm;
	double ma, mbd, mbm;
	double cap;
};

static double fit_time(const struct fit *f, int a, int b, int dense)
{
	int nd = dense > a ? HP_MIN(b, dense - 1) - a + 1 : 0;
	int nm = b - a + 1 - nd;
	return f->ta + nd * f->tbd + nm * f->tbm;
}

static double fit_comp(const struct fit *f, int a, int b, int dense)
{
	int nd = dense > a ? HP_MIN(b, dense - 1) - a + 1 : 0;
	int nm = b - a + 1 - nd;
	return f->ca + nd * f->cbd + nm * f->cbm;
}

static double fit_mem(const struct fit *f, int a, int b, int dense)
{
	int nd = dense > a ? HP_MIN(b, dense - 1) - a + 1 : 0;
	int nm = b - a + 1 - nd;
	return f->ma + nd * f->mbd + nm * f->mbm;
}

/* One probe: every stage holds layers [a, b] (ranges may overlap; perf
 * only looks at the layer kinds). */
static int probe_once(struct ctx *x, const struct gset *g, const struct layout *L, int count,
		      int a, int b, double *t, double *tc, double *mem, double *cap)
{
	struct plan p;
	plan_globals(&p, x, g);
	int mb = 4 * L->pp;           /* enough micro-batches for a full pipeline */
	p.gbs = g->mbs * count * mb;
	p.n_replicas = 1;
	struct replica rep = { count, 1.0 / count, L->pp, NULL };
	struct stage st[MAX_STAGES];
	for (int s = 0; s < L->pp; s++) {
		layout_stage(L, s, &st[s].pool, &st[s].tp);
		st[s].first_layer = a;
		st[s].last_layer = b;
	}
	rep.stages = st;
	p.replicas = &rep;
	struct estimate e;
	struct hp_err err = { 0 };
	/* the stage records alone (perf_stage_times): a probe reads nothing
	 * else (docs/planner.md, sixth round) */
	if (estimate_stages(x, &p, &e, &err) < 0)
		return -1;
	x->res->stats.evaluated++;
	x->res->stats.probes++;
	for (int s = 0; s < L->pp; s++) {
		t[s] = e.stages[s].t_total;
		tc[s] = t[s] - e.stages[s].t_pp - e.stages[s].t_cp - e.stages[s].t_ep;
		mem[s] = e.stages[s].total;
		cap[s] = e.stages[s].capacity * x->mem_frac;
	}
	estimate_free(&e);
	return 0;
}

/* Do n layers from layer a fit stage f at bottleneck C (time and memory)? */
static int fill_fits(const struct fit *f, int a, int n, int dense, double C)
{
	return fit_time(f, a, a + n - 1, dense) <= C && fit_mem(f, a, a + n - 1, dense) <= f->cap;
}

/* The most layers (a multiple of v, at most limit) stage f takes from
 * layer a at bottleneck C: the last n = v, 2v, ... before the first that
 * does not fit; 0 when v does not. With no negative slope the test is
 * monotone in n (the dense and MoE counts only grow with n, and
 * IEEE-754 rounding is monotone, so ta + nd tbd + nm tbm cannot fall), so
 * the first misfit is the last fit plus v and a binary search finds the
 * same n as the scan in log2(limit / v) tests instead of limit / v (the
 * scan was 6% of a Mixtral 8x22B search: solve_layout's bisection calls
 * fill about 45 times per layout). A negative or NaN slope (probes of
 * unusual stages) scans. */
static int fill_take(const struct fit *f, int a, int limit, int dense, int v, double C)
{
	int take = 0;
	if (!(f->tbd >= 0 && f->tbm >= 0 && f->mbd >= 0 && f->mbm >= 0)) {
		for (int n = v; n <= limit; n += v) {
			if (!fill_fits(f, a, n, dense, C))
				break;
			take = n;
		}
		return take;
	}
	int lo = 0, hi = limit / v;   /* fits at lo * v (lo = 0: none yet) */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (fill_fits(f, a, mid * v, dense, C))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo * v;
}

/* Greedy fill at bottleneck C: each stage takes as many layers as fit
 * (time <= C, memory <= capacity), leaving v per later stage. */
static int fill(const struct fit *f, int S, int layers, int dense, int v, double C, int *k)
{
	int a = 0;
	for (int s = 0; s < S; s++) {
		int left = S - 1 - s;
		int limit = layers - a - left * v;
		if (limit < v)
			return -1;
		int take = 0;
		if (s == S - 1) {
			take = limit;
			if (fit_time(&f[s], a, a + take - 1, dense) > C ||
			    fit_mem(&f[s], a, a + take - 1, dense) > f[s].cap)
				return -1;
		} else {
			take = fill_take(&f[s], a, limit, dense, v, C);
			if (!take)
				return -1;
		}
		k[s] = take;
		a += take;
	}
	return 0;
}

static int fit_count(const struct ctx *x, const struct layout *L, const int *left);
static void sp_move(struct search_plan *dst, struct search_plan *src);
static void add_replica(struct plan *p, const struct layout *L, int count, int m, int mbs,
			int gbs);
static void finish_plan(const struct ctx *x, struct search_plan *sp);
static void finish_plan_on(const struct ctx *x, struct search_plan *sp, unsigned runs_on);
static void sp_label(const struct ctx *x, struct search_plan *sp);

/* While plans must keep the memory headroom (x->mem_frac < 1), one that
 * fits only by eating into it is left out like one that does not fit. */
static int over_headroom(const struct ctx *x, const struct estimate *e)
{
	double need, cap;
	return x->mem_frac < 1 &&
	       search_mem_state(e, x->o->mem_headroom, &need, &cap) == MEM_RISKY;
}

/* A plan that does not fit in memory (sp, estimated; taken over): keep it
 * as the nearest memory miss when its fullest stage, as a share of its
 * GPU, comes closer than the nearest so far. */
static void mem_miss_offer(struct ctx *x, struct search_plan *sp)
{
	double need, cap;
	search_mem_state(&sp->est, x->o->mem_headroom, &need, &cap);
	double ratio = cap > 0 ? need / cap : HUGE_VAL;
	double now = mem_miss_now(x);
	if (now > 0 && ratio >= now) {
		sp_free(sp);
		return;
	}
	x->mem_miss = ratio;
	finish_plan(x, sp);
	sp_label(x, sp);
	struct search_result *res = x->res;
	if (res->has_mem_miss)
		sp_free(&res->mem_miss);
	sp_move(&res->mem_miss, sp);
	res->has_mem_miss = 1;
	const struct plan *p = &res->mem_miss.plan;
	char nb[32], cb[32];
	snprintf(x->mem_desc, sizeof x->mem_desc,
		 "%.60s, dp%d, recompute %s, ZeRO-%d, micro-batch %d: its fullest stage needs %s of %s",
		 res->mem_miss.label, plan_dp(p), plan_recompute_name(p->recompute), p->zero, p->mbs,
		 hp_fmt_bytes(nb, sizeof nb, need), hp_fmt_bytes(cb, sizeof cb, cap));
}

/* Nothing fits on this layout: remember how close it came. The probe's
 * memory (at the largest DP degree, where ZeRO shards are smallest) is a
 * lower bound; a layout that could beat the nearest miss so far is
 * estimated as the plan it would really be (as many replicas as the
 * cluster holds with an even batch split, layers split evenly), so the
 * nearest miss names a plan whose memory `estimate --plan` confirms. */
static void note_memory_miss(struct ctx *x, const struct gset *g, const struct layout *L,
			     const struct fit *f, int S, int layers, int dense)
{
	double worst = 0;
	int a = 0;
	struct layout E = *L;
	for (int s = 0; s < S; s++) {
		int k = layers / S + (s < layers % S);
		E.k[s] = k;
		worst = fmax(worst, fit_mem(&f[s], a, a + k - 1, dense) / f[s].cap);
		a += k;
	}
	double now = mem_miss_now(x);
	if (now > 0 && worst >= now)
		return;
	long M = x->o->gbs / g->mbs;
	int count = HP_MAX(1, (int)HP_MIN((long)fit_count(x, L, x->cap), M));
	int q = g->sched == SCHED_INTERLEAVED ? S : 1;
	while (count > 1 && (M % count || (M / count) % q))
		count--;
	if ((M / count) % q)
		return;
	struct search_plan sp;
	memset(&sp, 0, sizeof sp);
	plan_globals(&sp.plan, x, g);
	add_replica(&sp.plan, &E, count, (int)(M / count), g->mbs, x->o->gbs);
	struct hp_err err = { 0 };
	if (plan_validate(&sp.plan, x->c, x->m, "planner", &err) < 0 ||
	    estimate(x, &sp.plan, &sp.est, &err) < 0) {
		plan_free(&sp.plan);
		return;
	}
	x->res->stats.evaluated++;
	mem_miss_offer(x, &sp);
}

/* The memory check before a whole estimate (issue 13, ninth round): the
 * layer splits are fitted at a layout's largest DP degree, and the cost
 * and deadline objectives try mixes of few nodes, whose lower degree
 * leaves more optimizer state per GPU; on Mixtral 8x22B's cost search
 * 60% of the whole estimates were dropped for memory afterwards.
 * perf_stage_memories gives the memory fields of p's whole estimate's
 * stage records bit for bit (perf.c says why), and search_mem_state
 * reads nothing else of an estimate (fits, total, slack, capacity), so
 * the verdict here is the one try_combo would reach after the whole
 * estimate:
 *   - over the headroom while plans keep it: over_headroom on the same
 *     records, dropped (pruned) with nothing else done;
 *   - does not fit, and mem_miss_offer would free it: its ratio need /
 *     capacity (search_mem_state on the same records) is no nearer than
 *     the nearest miss so far (mem_miss_now reads this thread's own
 *     context and the parent's, which no other thread writes meanwhile);
 *   - does not fit but nearer than the nearest miss: the whole estimate
 *     runs, for mem_miss_offer keeps the plan with its times.
 * Returns 1 when p is dropped, 0 when it needs its whole estimate, -1
 * when the model refuses it (perf_estimate would fail the same way:
 * same checks). A dropped plan counts in evaluated and in probes
 * (stage records alone), so evaluated stays the number of plans the
 * model judged and evaluated - probes - dp_terms the whole estimates. */
static int mem_first(struct ctx *x, const struct plan *p, struct hp_err *err)
{
	/* nothing it could drop: risky plans are kept, and a first miss is
	 * kept whatever its ratio */
	if (x->mem_frac >= 1 && mem_miss_now(x) == 0)
		return 0;
	struct estimate e;
	double t0 = sample_begin(x);
	int rc = perf_stage_memories(x->c, x->m, p, NULL, &e, err);
	sample_end(x, t0);
	if (rc < 0)
		return -1;
	double need, cap;
	enum search_mem st = search_mem_state(&e, x->o->mem_headroom, &need, &cap);
	estimate_free(&e);
	int drop = 0;
	if (st == MEM_RISKY)
		drop = x->mem_frac < 1;
	else if (st == MEM_NOFIT) {
		double ratio = cap > 0 ? need / cap : HUGE_VAL, now = mem_miss_now(x);
		drop = now > 0 && ratio >= now;
	}
	if (drop) {
		x->res->stats.evaluated++;
		x->res->stats.probes++;
		x->res->stats.pruned++;
	}
	return drop;
}

/* The per-stage affine fits of layout L (f[0..pp-1]) from two probes (one
 * layer, two layers) and, for a MoE model with dense layers, a third (a
 * dense layer). Returns 0, or -1 when a probe fails. */
static int probe_fits(struct ctx *x, const struct gset *g, const struct layout *L,
		      struct fit *f, int at)
{
	const struct model_spec *m = x->m;
	int S = L->pp, layers = m->layers, dense = layout_dense_layers(m);
	/* Memory is probed at the largest data-parallel degree the cluster
	 * and batch allow (ZeRO shards shrink with it), so no layout is lost
	 * that fits beside other pools' replicas; every plan is checked at
	 * its real degree afterwards. */
	int count = at > 0 ? at : HP_MAX(1, HP_MIN(x->max_dp, (int)(x->o->gbs / g->mbs)));
	double t1[MAX_STAGES], m1[MAX_STAGES], t2[MAX_STAGES], m2[MAX_STAGES], cap[MAX_STAGES];
	double c1[MAX_STAGES], c2[MAX_STAGES];
	int moe = m->moe.experts > 0;
	/* Probe with MoE layers at the end (or dense ones for a dense model). */
	if (probe_once(x, g, L, count, layers - 1, layers - 1, t1, c1, m1, cap) < 0)
		return -1;
	if (layers >= 2) {
		if (probe_once(x, g, L, count, layers - 2, layers - 1, t2, c2, m2, cap) < 0)
			return -1;
	} else {
		memcpy(t2, t1, sizeof t1);
		memcpy(m2, m1, sizeof m1);
		memcpy(c2, c1, sizeof c1);
		for (int s = 0; s < S; s++)
			t2[s] *= 2, m2[s] *= 2, c2[s] *= 2;
	}
	for (int s = 0; s < S; s++) {
		double bt = t2[s] - t1[s], bm = m2[s] - m1[s];
		f[s].ta = t1[s] - bt;
		f[s].ma = m1[s] - bm;
		f[s].tbm = f[s].tbd = bt;
		f[s].mbm = f[s].mbd = bm;
		f[s].cbm = f[s].cbd = c2[s] - c1[s];
		f[s].ca = c1[s] - f[s].cbm;
		f[s].cap = cap[s];
	}
	if (moe && dense > 0 && dense < layers) {
		double t3[MAX_STAGES], m3[MAX_STAGES], c3[MAX_STAGES];
		if (probe_once(x, g, L, count, 0, 0, t3, c3, m3, cap) < 0)
			return -1;
		for (int s = 0; s < S; s++) {
			f[s].cbd = c3[s] - f[s].ca;
			f[s].tbd = t3[s] - f[s].ta;
			f[s].mbd = m3[s] - f[s].ma;
		}
	}
	return 0;
}

/* Solve the layer partition of layout L under global settings g. */
static void solve_layout(struct ctx *x, const struct gset *g, struct layout *L)
{
	const struct model_spec *m = x->m;
	int S = L->pp, layers = m->layers, v = g->sched == SCHED_INTERLEAVED ? g->vpp : 1;
	int dense = layout_dense_layers(m);
	L->fits = 0;
	if (S * v > layers || layers % v || S > MAX_STAGES)
		return;
	struct fit f[MAX_STAGES];
	if (probe_fits(x, g, L, f, 0) < 0)
		return;
	int k[MAX_STAGES];
	if (fill(f, S, layers, dense, v, HUGE_VAL, k) < 0) {
		note_memory_miss(x, g, L, f, S, layers, dense);
		return;
	}
	double hi = 0;
	for (int s = 0; s < S; s++)
		hi = fmax(hi, fit_time(&f[s], 0, layers - 1, dense));
	double lo = 0;
	for (int it = 0; it < 60 && hi - lo > 1e-7 * hi; it++) {
		double mid = 0.5 * (lo + hi);
		if (fill(f, S, layers, dense, v, mid, k) == 0)
			hi = mid;
		else
			lo = mid;
	}
	if (fill(f, S, layers, dense, v, hi, k) < 0 &&
	    fill(f, S, layers, dense, v, HUGE_VAL, k) < 0)
		return;
	double sum = 0, mx = 0, csum = 0, cmx = 0;
	int a = 0;
	for (int s = 0; s < S; s++) {
		L->k[s] = k[s];
		double t = fit_time(&f[s], a, a + k[s] - 1, dense);
		double tc = fit_comp(&f[s], a, a + k[s] - 1, dense);
		sum += t;
		mx = fmax(mx, t);
		csum += tc;
		cmx = fmax(cmx, tc);
		a += k[s];
	}
	L->B = mx;
	L->A = (sum - mx) / v;
	L->B_lo = cmx;
	L->A_lo = (csum - cmx) / v;
	L->rate = 1.0 / (mx * L->size);
	L->fits = 1;
}

static void layout_price(const struct cluster *c, struct layout *L)
{
	L->usd_h = 0;
	L->price_known = 1;
	for (int i = 0; i < c->n_pools; i++) {
		if (!L->gpus[i])
			continue;
		const struct pool *p = &c->pools[i];
		if (p->usd_per_node_h <= 0)
			L->price_known = 0;
		L->usd_h += L->gpus[i] * p->usd_per_node_h / p->gpus_per_node;
	}
}

static int tp_ok(const struct model_spec *m, const struct pool *p, int tp)
{
	if (tp > p->gpus_per_node || p->gpus_per_node % tp)
		return 0;
	if (m->heads % tp)
		return 0;
	if (tp > m->kv_heads && tp % m->kv_heads)
		return 0;
	return 1;
}

static const int pp_ladder[] = { 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 24, 28,
				 32, 36, 40, 48, 56, 64, 72, 80, 96, 112, 128 };

/* ------------------------------------------------------------------ */
/* Scoring and keeping plans */

static double objective_score(const struct ctx *x, const struct search_plan *sp, int *ok,
			      double *miss)
{
	const struct search_opts *o = x->o;
	*ok = 1;
	*miss = 0;
	switch (o->objective) {
	case OBJ_THROUGHPUT:
		return sp->est.step_time_s / ((double)o->gbs * x->seq);
	case OBJ_COST:
		if (!sp->est.price_known) {
			*ok = 0;
			*miss = HUGE_VAL;
			return HUGE_VAL;
		}
		return sp->est.usd_per_mtok;
	case OBJ_DEADLINE:
		if (!sp->est.price_known) {
			*ok = 0;
			*miss = HUGE_VAL;
			return HUGE_VAL;
		}
		if (sp->time_to_train_s > o->deadline_s) {
			*ok = 0;
			*miss = sp->time_to_train_s / o->deadline_s - 1;
		}
		return sp->cost_to_train_usd;
	case OBJ_BUDGET:
		if (!sp->est.price_known) {
			*ok = 0;
			*miss = HUGE_VAL;
			return HUGE_VAL;
		}
		if (sp->cost_to_train_usd > o->budget_usd) {
			*ok = 0;
			*miss = sp->cost_to_train_usd / o->budget_usd - 1;
		}
		return sp->time_to_train_s;
	}
	return HUGE_VAL;
}

/* Deterministic order: score, then fewer GPUs, then the plan's text (made
 * here when a plan has none yet: sp_label). */
static int sp_better(const struct ctx *x, struct search_plan *a, struct search_plan *b)
{
	/* scores within a part in 1e9 are equal: then a plan with its memory
	 * headroom intact ranks above a risky one */
	if (fabs(a->score - b->score) > 1e-9 * fmax(fabs(a->score), fabs(b->score)))
		return a->score < b->score;
	if (a->risky != b->risky)
		return b->risky;
	if (a->score != b->score)
		return a->score < b->score;
	if (a->est.n_gpus != b->est.n_gpus)
		return a->est.n_gpus < b->est.n_gpus;
	sp_label(x, a);
	sp_label(x, b);
	return strcmp(a->label, b->label) < 0;
}

static void sp_move(struct search_plan *dst, struct search_plan *src)
{
	*dst = *src;
	memset(src, 0, sizeof *src);
}

static void sp_clone(struct search_plan *dst, const struct search_plan *src)
{
	*dst = *src;
	plan_copy(&dst->plan, &src->plan);
	dst->est.stages = xmalloc((size_t)src->est.n_stages * sizeof *src->est.stages);
	memcpy(dst->est.stages, src->est.stages,
	       (size_t)src->est.n_stages * sizeof *src->est.stages);
}

/* The plan's layouts as text (one per replica group, subgroups of one
 * layout once); cut with "..." where it does not fit in sp->label. */
static void make_label(const struct ctx *x, struct search_plan *sp)
{
	const struct plan *p = &sp->plan;
	char buf[512];
	size_t n = 0;
	buf[0] = '\0';
	for (int r = 0; r < p->n_replicas && n < sizeof buf - 1; r++) {
		const struct replica *rep = &p->replicas[r];
		/* subgroups of one layout share the first stage's pool/tp */
		if (r > 0 && rep->n_stages == p->replicas[r - 1].n_stages &&
		    rep->stages[0].pool == p->replicas[r - 1].stages[0].pool &&
		    rep->stages[0].tp == p->replicas[r - 1].stages[0].tp &&
		    rep->stages[rep->n_stages - 1].pool ==
			    p->replicas[r - 1].stages[rep->n_stages - 1].pool)
			continue;
		int pa = rep->stages[0].pool, pb = rep->stages[rep->n_stages - 1].pool;
		int w;
		if (pa == pb)
			w = snprintf(buf + n, sizeof buf - n, "%s%.12s tp%d pp%d", n ? " + " : "",
				     x->c->pools[pa].name, rep->stages[0].tp, rep->n_stages);
		else
			w = snprintf(buf + n, sizeof buf - n, "%s%.10s>%.10s pp%d", n ? " + " : "",
				     x->c->pools[pa].name, x->c->pools[pb].name, rep->n_stages);
		n = w < 0 ? n : HP_MIN(n + (size_t)w, sizeof buf - 1);
	}
	if (n >= sizeof sp->label) {
		memcpy(buf + sizeof sp->label - 4, "...", 4);
		n = sizeof sp->label - 1;
	}
	hp_strlcpy(sp->label, buf, sizeof sp->label);
}

/* The label of a plan that has none yet, and with it the sentence of
 * why frameworks cannot run it (runs_on_why). finish_plan leaves both
 * empty (a plan has at least one replica, so a made label never is):
 * most scored plans are dropped without being kept or compared on it,
 * and formatting the label for each was 1.5% of a search's instructions,
 * the sentence (runs_on.c's verdict again, with its reasons) about 1%
 * (issue 13: no string formatting in the search). Both are made before
 * a plan is kept anywhere (ranked list, Pareto front, per-pool, stock
 * and nearest plans) and before sp_better compares labels; the verdict's
 * mask (finish_plan) does not read the sentence. */
static void sp_label(const struct ctx *x, struct search_plan *sp)
{
	if (!sp->label[0]) {
		make_label(x, sp);
		runs_on_mask(&sp->plan, x->c, sp->runs_on_why, sizeof sp->runs_on_why);
	}
}

static void finish_plan(const struct ctx *x, struct search_plan *sp)
{
	finish_plan_on(x, sp, runs_on_mask(&sp->plan, x->c, NULL, 0));
}

/* finish_plan, given the plan's runs_on_mask (which reads neither the
 * plan's framework nor its overlaps: try_combo's, made before it names
 * the framework, is the same). */
static void finish_plan_on(const struct ctx *x, struct search_plan *sp, unsigned runs_on)
{
	int used[HP_MAX_POOLS];
	plan_gpus(&sp->plan, used);
	int pools = 0, last = -1;
	for (int i = 0; i < HP_MAX_POOLS; i++) {
		sp->gpus_used[i] = used[i];
		sp->nodes_used[i] = i < x->c->n_pools
			? (used[i] + x->c->pools[i].gpus_per_node - 1) / x->c->pools[i].gpus_per_node
			: 0;
		if (used[i]) {
			pools++;
			last = i;
		}
	}
	sp->single_pool = pools == 1 ? last : -1;
	sp->runs_on = runs_on;
	sp->runs_on_why[0] = '\0';   /* made with the label: sp_label */
	search_plan_memory(sp, x->o->mem_headroom);
	sp->time_to_train_s = x->tokens / sp->est.tokens_per_s;
	sp->cost_to_train_usd = sp->est.price_known ? sp->est.usd_per_hour *
						       sp->time_to_train_s / 3600 : 0;
	sp->label[0] = '\0';   /* made when needed: sp_label */
}

/* The Pareto front of (time to train, cost to train) over every plan that
 * fits; kept small by construction. */
static void front_add(struct ctx *x, struct search_plan *sp)
{
	if (!sp->est.price_known)
		return;
	double t = sp->time_to_train_s, c = sp->cost_to_train_usd;
	for (int i = 0; i < x->n_front; i++) {
		const struct search_plan *f = &x->front[i];
		if (f->time_to_train_s <= t && f->cost_to_train_usd <= c)
			return;   /* dominated (or equal) */
	}
	int w = 0;
	for (int i = 0; i < x->n_front; i++) {
		struct search_plan *f = &x->front[i];
		if (t <= f->time_to_train_s && c <= f->cost_to_train_usd)
			sp_free(f);
		else
			x->front[w++] = *f;
	}
	x->n_front = w;
	if (x->n_front == x->cap_front) {
		x->cap_front = x->cap_front ? 2 * x->cap_front : 16;
		x->front = xrealloc(x->front, (size_t)x->cap_front * sizeof *x->front);
	}
	sp_label(x, sp);
	sp_clone(&x->front[x->n_front++], sp);
}

static void top_insert(struct ctx *x, struct search_plan *sp);

static void keep_plan(struct ctx *x, struct search_plan *sp)
{
	struct search_result *res = x->res;
	int ok;
	double miss;
	sp->score = objective_score(x, sp, &ok, &miss);
	front_add(x, sp);
	/* best confined to one pool, by the same objective (throughput when
	 * the objective cannot be scored) */
	if (sp->single_pool >= 0) {
		int i = sp->single_pool;
		struct search_plan *cur = &res->single[i];
		double s = ok ? sp->score : HUGE_VAL;
		double cs = res->has_single[i] ? cur->score : HUGE_VAL;
		int better = !res->has_single[i] || s < cs ||
			     (s == cs && sp->est.step_time_s < cur->est.step_time_s);
		if (better) {
			if (res->has_single[i])
				sp_free(cur);
			sp_label(x, sp);
			sp_clone(cur, sp);
			cur->score = s;
			res->has_single[i] = 1;
		}
	}
	if (ok && sp->runs_on && (!res->has_stock || sp_better(x, sp, &res->stock))) {
		if (res->has_stock)
			sp_free(&res->stock);
		sp_label(x, sp);
		sp_clone(&res->stock, sp);
		res->has_stock = 1;
	}
	if (!ok) {
		if (!res->has_nearest || miss < x->best_miss ||
		    (miss == x->best_miss && sp_better(x, sp, &res->nearest))) {
			if (res->has_nearest)
				sp_free(&res->nearest);
			sp_label(x, sp);
			sp_clone(&res->nearest, sp);
			res->has_nearest = 1;
			x->best_miss = miss;
		}
		sp_free(sp);
		return;
	}
	top_insert(x, sp);
}

/* Insert a plan that meets the constraints into the ranked list (taken
 * over; freed when it does not make the list or is already there). */
static void top_insert(struct ctx *x, struct search_plan *sp)
{
	/* the same plan can come from two routes (a fill and the MILP) */
	for (int i = 0; i < x->n_top; i++)
		if (x->top[i].score == sp->score && plan_equal(&x->top[i].plan, &sp->plan)) {
			sp_free(sp);
			return;
		}
	if (x->n_top == x->keep && !sp_better(x, sp, &x->top[x->n_top - 1])) {
		sp_free(sp);
		return;
	}
	if (x->n_top == x->keep)
		sp_free(&x->top[--x->n_top]);
	int i = x->n_top;
	while (i > 0 && sp_better(x, sp, &x->top[i - 1])) {
		x->top[i] = x->top[i - 1];
		i--;
	}
	sp_label(x, sp);
	sp_move(&x->top[i], sp);
	x->n_top++;
}

/* ------------------------------------------------------------------ */
/* Batch split: integer micro-batches per replica, all finishing together. */

struct group_in {
	const struct layout *L;
	int count;
	int q;              /* micro-batch granularity (pp when interleaved) */
	/* out */
	int m, n_lo;        /* count - n_lo replicas run m, n_lo run m - q */
};

/* Micro-batches each replica of the groups can run within T (a multiple
 * of its q), into k[]; returns their total, or -1 when a group cannot run
 * q. Monotone in T, group by group: (T - A) / B and floor are. */
static long groups_capacity(const struct group_in *g, int n, double T, long *k)
{
	long tot = 0;
	int short_of_q = 0;
	for (int i = 0; i < n; i++) {
		double f = (T - g[i].L->A) / g[i].L->B;
		/* f + 1e-9 > 0 here, where the conversion's truncation is
		 * floor's value (without libm's call: split_batch makes about
		 * 45 of these per candidate) */
		k[i] = f < 0 ? 0 : (long)(f + 1e-9);
		if (g[i].q > 1)
			k[i] -= k[i] % g[i].q;
		short_of_q |= k[i] < g[i].q;
		tot += k[i] * g[i].count;
	}
	return short_of_q ? -1 : tot;
}

/* Between lo (short of M) and hi (M or more), does a single group step
 * up, by one q? Then the least T with M or more is that step, and every
 * T from it up to hi gives hi's micro-batches to every group: the
 * bisection below may stop there with the answer it would reach. */
static int one_step_between(const struct group_in *g, int n, const long *klo, const long *khi)
{
	int steps = 0;
	for (int i = 0; i < n; i++)
		if (khi[i] != klo[i]) {
			if (khi[i] - klo[i] != g[i].q)
				return 0;
			steps++;
		}
	return steps == 1;
}

static int split_batch(struct group_in *g, int n, long M)
{
	long need = 0;
	double lo = 0, hi = 0;
	for (int i = 0; i < n; i++) {
		need += (long)g[i].q * g[i].count;
		lo = perf_fmax(lo, g[i].L->A + g[i].L->B * g[i].q);
		hi = perf_fmax(hi, g[i].L->A + g[i].L->B * ((double)M + g[i].q));
	}
	if (need > M)
		return -1;
	long klo[HP_MAX_POOLS + 1], khi[HP_MAX_POOLS + 1], kmid[HP_MAX_POOLS + 1];
	if (groups_capacity(g, n, lo, klo) >= M) {
		hi = lo;
	} else {
		/* the least T with M micro-batches, to 1e-13; stopped early
		 * (one_step_between) only when hi holds M or more, so the
		 * split below is the same as at the end of the halvings */
		int early = groups_capacity(g, n, hi, khi) >= M;
		for (int it = 0; it < 100 && hi - lo > 1e-13 * hi; it++) {
			if (early && one_step_between(g, n, klo, khi))
				break;
			double mid = 0.5 * (lo + hi);
			if (groups_capacity(g, n, mid, kmid) >= M) {
				hi = mid;
				memcpy(khi, kmid, (size_t)n * sizeof *kmid);
			} else {
				lo = mid;
				memcpy(klo, kmid, (size_t)n * sizeof *kmid);
			}
		}
	}
	long tot = 0;
	for (int i = 0; i < n; i++) {
		double f = (hi - g[i].L->A) / g[i].L->B;
		long k = (long)floor(f + 1e-9);
		k -= k % g[i].q;
		g[i].m = (int)k;
		g[i].n_lo = 0;
		tot += k * g[i].count;
	}
	long excess = tot - M;
	/* Take the excess from the replicas that finish last, q micro-
	 * batches from one replica at a time. The group chosen stays the
	 * one that finishes last (its time changes only once all its
	 * replicas have given q: then its mm falls), so its replicas give
	 * in one step as many as one at a time would: the same split, in
	 * one pass a group instead of one a replica (11 million passes in a
	 * Mixtral 8x22B budget search). */
	while (excess > 0) {
		int best = -1;
		double bt = -1;
		for (int i = 0; i < n; i++) {
			int cur_hi = g[i].count - g[i].n_lo;
			int mm = cur_hi > 0 ? g[i].m : g[i].m - g[i].q;
			if (mm - g[i].q < g[i].q || g[i].q > excess)
				continue;
			double t = g[i].L->A + g[i].L->B * mm;
			if (t > bt) {
				bt = t;
				best = i;
			}
		}
		if (best < 0)
			return -1;
		struct group_in *b = &g[best];
		if (b->n_lo == b->count) {
			b->m -= b->q;
			b->n_lo = 0;
		}
		long take = HP_MIN((long)(b->count - b->n_lo), excess / b->q);
		b->n_lo += (int)take;
		excess -= take * b->q;
	}
	return 0;
}

/* Fill r as count replicas of layout L running m micro-batches each. */
static void replica_fill(struct replica *r, const struct layout *L, int count, int m, int mbs,
			 int gbs)
{
	r->count = count;
	r->batch_share = (double)m * mbs / gbs;
	r->n_stages = L->pp;
	r->stages = xcalloc((size_t)L->pp, sizeof *r->stages);
	int a = 0;
	for (int s = 0; s < L->pp; s++) {
		layout_stage(L, s, &r->stages[s].pool, &r->stages[s].tp);
		r->stages[s].first_layer = a;
		r->stages[s].last_layer = a + L->k[s] - 1;
		a += L->k[s];
	}
}

static void add_replica(struct plan *p, const struct layout *L, int count, int m, int mbs,
			int gbs)
{
	p->replicas = xrealloc(p->replicas, (size_t)(p->n_replicas + 1) * sizeof *p->replicas);
	replica_fill(&p->replicas[p->n_replicas++], L, count, m, mbs, gbs);
}

/* The replica groups of one combination (layouts with a non-zero count),
 * the GPUs they use per pool, and a lower bound on their pipeline time
 * before the batch split: with c_i replicas of layout i taking m_i >= q_i
 * micro-batches each and sum c_i m_i = M, the step's pipeline term
 * max_i (A_i + B_i m_i) is at least T where sum c_i (T - A_i) / B_i = M,
 * and at least every A_i + B_i q_i. Returns how many groups, or -1 when
 * the counts are invalid (EP does not divide the DP degree). */
static int combo_groups(struct ctx *x, const struct gset *g, const struct layout **Ls,
			const int *counts, int n, struct group_in *gi, int *used,
			double *pipe_lb)
{
	int k = 0, dp = 0;
	double num = (double)(x->o->gbs / g->mbs), den = 0, floor_t = 0;
	memset(used, 0, HP_MAX_POOLS * sizeof *used);
	for (int i = 0; i < n; i++)
		if (counts[i] > 0) {
			const struct layout *L = Ls[i];
			gi[k].L = L;
			gi[k].count = counts[i];
			gi[k].q = g->sched == SCHED_INTERLEAVED ? L->pp : 1;
			dp += counts[i];
			num += counts[i] * L->A_lo / L->B_lo;
			den += counts[i] / L->B_lo;
			floor_t = perf_fmax(floor_t, L->A_lo + L->B_lo * gi[k].q);
			/* the layout's pools once each (fit_count) */
			for (int s = 0; s < L->nseg; s++) {
				int p = L->seg[s].pool;
				if (!s || p != L->seg[0].pool)
					used[p] += counts[i] * L->gpus[p];
			}
			k++;
		}
	if (!k)
		return -1;
	x->res->stats.candidates++;
	if ((dp * g->cp) % g->ep) {
		x->res->stats.pruned++;
		return -1;
	}
	*pipe_lb = perf_fmax(num / den, floor_t);
	return k;
}

/* Screening: from the layouts' affine fits alone (no perf_estimate), is
 * the combination sure to change nothing the search reports? pipe is a
 * lower bound on the step's pipeline term max(A + B m) over the groups,
 * which is exactly perf.c's (stage times do not depend on the DP degree,
 * and the fits are exact in the layers); the step adds DP
 * synchronisation, the optimizer and a fixed overhead to it, so pipe
 * bounds the step time from below; node prices (used: GPUs per pool)
 * are exact. A plan whose bounds cannot beat the last ranked plan nor
 * the best stock-framework plan, and whose (time, cost) is dominated on
 * the Pareto front, is skipped. A relative margin of 1e-6 covers
 * rounding in the fits (they hold to ~1e-12). Returns 1 to skip. */
static int bounds_screened(struct ctx *x, double lb, double t, double usd, int priced,
			   double margin)
{
	int kept = 0;
	for (const struct ctx *y = x; y; y = y->glob)
		kept |= y->n_top > 0;
	if (!kept)
		return 0;
	/* sure to miss the deadline or the budget (or unpriced): it can
	 * only be a nearest miss, which is reported only when no plan is
	 * kept, and a plan is kept here */
	int misses = !priced || (x->o->objective == OBJ_DEADLINE && t > x->o->deadline_s / margin) ||
		     (x->o->objective == OBJ_BUDGET && usd > x->o->budget_usd / margin);
	if (x->o->objective != OBJ_THROUGHPUT && misses)
		;   /* neither ranked nor stock, whatever the lists hold */
	else {
		/* the lists only where they decide (most of a budget search's
		 * candidates are sure misses) */
		double worst, stock;
		int have_worst = top_worst(x, &worst);
		if (!have_worst || !(lb > worst / margin))
			return 0;
		if (!x->no_stock && (!stock_best(x, &stock) || !(lb > stock / margin)))
			return 0;
	}
	if (priced && !front_dominates(x, t, usd))
		return 0;
	return 1;
}

static int combo_screened(struct ctx *x, const int *used, double pipe)
{
	const double margin = 1 - 1e-6;
	double step = pipe * margin, tok_step = (double)x->o->gbs * x->seq;
	double usd_h = 0;
	int priced = 1;
	for (int p = 0; p < x->c->n_pools; p++) {
		const struct pool *pl = &x->c->pools[p];
		if (!used[p])
			continue;
		if (pl->usd_per_node_h <= 0)
			priced = 0;
		usd_h += (used[p] + pl->gpus_per_node - 1) / pl->gpus_per_node * pl->usd_per_node_h;
	}
	double t = x->tokens * step / tok_step, usd = usd_h * t / 3600;
	double lb;
	switch (x->o->objective) {
	case OBJ_THROUGHPUT: lb = step / tok_step; break;
	case OBJ_COST: lb = priced ? usd_h / 3600 * step / tok_step * 1e6 : HUGE_VAL; break;
	case OBJ_DEADLINE: lb = priced ? usd : HUGE_VAL; break;
	default: lb = priced ? t : HUGE_VAL; break;
	}
	if (!bounds_screened(x, lb, t, usd, priced, margin))
		return 0;
	x->res->stats.screened++;
	return 1;
}

/* The same screen for every replica-count vector of a layout set at
 * once: with n_i replicas of layout i (at most as many as fit alone,
 * maxc_i), the step is at least M / sum(n_i / B_i) (B without PP/CP/EP
 * communication, fill and drain dropped), and USD per step at least
 * min_i(usd_h_i B_i) M / 3600 (GPU shares of node prices; rounding up to
 * whole nodes only adds). Every candidate uses every layout of the set
 * (counts >= 1), so one unpriced layout makes them all unpriced. Returns
 * 1 to skip the set. */
static int set_screened(struct ctx *x, const struct gset *g, const struct layout **Ls, int n)
{
	const double margin = 1 - 1e-6;
	double M = (double)(x->o->gbs / g->mbs), rate = 0, cps = HUGE_VAL;
	int priced = 1;
	for (int i = 0; i < n; i++) {
		rate += fit_count(x, Ls[i], x->cap) / Ls[i]->B_lo;
		priced &= Ls[i]->price_known;
		cps = fmin(cps, Ls[i]->usd_h * Ls[i]->B_lo);
	}
	double tok_step = (double)x->o->gbs * x->seq, step = M / rate * margin;
	double usd_step = cps * M / 3600 * margin;
	double t = x->tokens * step / tok_step, usd = usd_step * x->tokens / tok_step;
	double lb;
	switch (x->o->objective) {
	case OBJ_THROUGHPUT: lb = step / tok_step; break;
	case OBJ_COST: lb = priced ? usd_step / tok_step * 1e6 : HUGE_VAL; break;
	case OBJ_DEADLINE: lb = priced ? usd : HUGE_VAL; break;
	default: lb = priced ? t : HUGE_VAL; break;
	}
	return rate > 0 && bounds_screened(x, lb, t, usd, priced, margin);
}

/* Halvings of a step interval where its ends alone do not prove the
 * screen (curve_min), and the knapsacks one set's screen may evaluate
 * (past them it gives up and the set is searched, as without the
 * screen). Candidates left in the bench's deadline searches by depth:
 * Llama 3.1 405B 416,046 (0), 406,210 (4), 371,503 (8); DeepSeek-V3
 * 6,892,376 (4), 6,465,404 (8), 5,967,713 (12), 5,924,216 (20). At 16
 * the screen is near its limit; 4,096 knapsacks (well under a
 * millisecond) bound a set whose curve runs close to the line it must
 * clear. */
#ifndef CURVE_DEPTH
#define CURVE_DEPTH 16
#endif
#define CURVE_EVALS 4096

/* A layout set's cost as a function of its step, for the screen below.
 * A plan of the set runs n_i >= 1 replicas of layout i, each replica r
 * m_r >= 1 micro-batches (split_batch), sum m_r = M; its pipeline term
 * s = max_r (A_lo_i + B_lo_i m_r) is a lower bound on its step
 * (combo_split), so every replica of layout i runs at most
 * c_i(s) = (s - A_lo_i) / B_lo_i micro-batches and sum n_i c_i(s) >= M.
 * Its price (whole nodes) is at least the GPU shares sum n_i usd_h_i.
 * So USD per hour is at least the least sum n_i usd_h_i over real
 * 1 <= n_i <= ub_i (replicas that fit the cluster alone) with
 * sum n_i c_i(s) >= M: a covering knapsack whose LP is filled greedily
 * by USD per micro-batch. */
struct set_curve {
	int n;
	double A[HP_MAX_POOLS + 1], B[HP_MAX_POOLS + 1], usd_h[HP_MAX_POOLS + 1];
	double ub[HP_MAX_POOLS + 1];
	double M;
	double min_total;   /* replicas every plan has at least: the EP step
			     * (capmilp_ep_step; the EP degree divides dp cp) */
};

/* The knapsack's LP value at step s, with n_i >= lo (0 or 1): HUGE_VAL
 * when no count vector runs M micro-batches within s. Nonincreasing in s
 * (the c_i(s) grow). With lo = 0, s times it is nonincreasing too: the
 * counts n_i (s - A_i) / (s' - A_i) run the same micro-batches within
 * s' > s, and s' (s - A_i) <= s (s' - A_i) when A_i >= 0. */
static double curve_usd_h(const struct set_curve *sc, double s, int lo)
{
	int idx[HP_MAX_POOLS + 1], k = 0;
	double per[HP_MAX_POOLS + 1], c[HP_MAX_POOLS + 1], need = sc->M, usd = 0;
	for (int i = 0; i < sc->n; i++) {
		c[i] = (s - sc->A[i]) / sc->B[i];
		if (c[i] < lo || !(c[i] > 0)) {
			if (lo)
				return HUGE_VAL;   /* a replica cannot run one micro-batch */
			continue;
		}
		usd += lo * sc->usd_h[i];
		need -= lo * c[i];
		per[i] = sc->usd_h[i] / c[i];
		int j = k++;
		while (j > 0 && per[idx[j - 1]] > per[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	double cheapest = HUGE_VAL, n_lo = lo * sc->n;
	for (int j = 0; j < k && need > 0; j++) {
		int i = idx[j];
		double take = fmin(sc->ub[i] - lo, need / c[i]);
		usd += take * sc->usd_h[i];
		need -= take * c[i];
	}
	if (need > 1e-9 * sc->M)
		return HUGE_VAL;
	if (!lo || n_lo >= sc->min_total)
		return usd;
	/* with n_i >= 1, min_total replicas cost at least one of each and
	 * the rest at the least price (a second relaxation; s times it is
	 * not monotone, so the n_i >= 0 curve leaves it out) */
	for (int i = 0; i < sc->n; i++)
		cheapest = fmin(cheapest, sc->usd_h[i]);
	double base = 0;
	for (int i = 0; i < sc->n; i++)
		base += sc->usd_h[i];
	return fmax(usd, base + (sc->min_total - n_lo) * cheapest);
}

/* The least step at which the knapsack with n_i >= 1 is feasible: every
 * c_i(s) >= 1 and sum ub_i c_i(s) >= M (nondecreasing in s, linear
 * between the A_i; bisected to 1e-12). */
static double curve_first_step(const struct set_curve *sc, double s_hi)
{
	double lo = 0;
	for (int i = 0; i < sc->n; i++)
		lo = fmax(lo, sc->A[i] + sc->B[i]);
	double hi = fmax(lo, s_hi);
	for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
		double mid = 0.5 * (lo + hi), f = 0;
		for (int i = 0; i < sc->n; i++)
			f += sc->ub[i] * (mid - sc->A[i]) / sc->B[i];
		if (f >= sc->M)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* A lower bound on s usd_h(s) (USD per hour times seconds) for s in
 * [a, b]: a times the knapsack with n_i >= 1 at b (it is nonincreasing),
 * and b times the one with n_i >= 0 at b (s times it is nonincreasing);
 * where neither reaches `want`, the interval is halved geometrically up
 * to `depth` times while *evals (knapsacks left) lasts, and the least
 * over the pieces returned. The caller asks only whether it reaches
 * want, so the pieces stop at the first one under it (want HUGE_VAL:
 * every piece, for the tests). */
static double curve_min(const struct set_curve *sc, double a, double b, double want, int depth,
			long *evals)
{
	double v = fmax(a * curve_usd_h(sc, b, 1), b * curve_usd_h(sc, b, 0));
	*evals -= 2;
	if (v >= want || depth <= 0 || *evals <= 0 || !(b > a * (1 + 1e-9)))
		return v;
	double mid = sqrt(a * b);
	double l = curve_min(sc, a, mid, want, depth - 1, evals);
	if (l < want && want < HUGE_VAL)
		return l;
	return fmin(l, curve_min(sc, mid, b, want, depth - 1, evals));
}

double search_curve_bound(int n, const double *a, const double *b, const double *usd_h,
			  const int *ub, double M, int min_total, double s_lo, double s_hi)
{
	struct set_curve sc;
	sc.n = n;
	sc.M = M;
	sc.min_total = min_total;
	for (int i = 0; i < n; i++) {
		sc.A[i] = a[i];
		sc.B[i] = b[i];
		sc.usd_h[i] = usd_h[i];
		sc.ub[i] = ub[i];
	}
	long evals = CURVE_EVALS;
	return curve_min(&sc, s_lo, s_hi, HUGE_VAL, CURVE_DEPTH, &evals);
}

/* Does the kept Pareto front dominate every plan whose pipeline term is
 * s in [s_lo, s_hi] (time to train at least kt s, cost at least kt s
 * usd_h(s) / 3600)? The front's points sorted by time, each point's
 * cost the least up to it: between two points' times the plans' cost
 * bound must reach that cost. *evals: knapsacks left (curve_min). */
static int curve_front_dominated(const struct ctx *x, const struct set_curve *sc, double kt,
				 double s_lo, double s_hi, long *evals)
{
	int np = 0;
	for (const struct ctx *y = x; y; y = y->glob)
		np += y->n_front;
	if (!np)
		return 0;
	double (*pt)[2] = xmalloc((size_t)np * sizeof *pt);
	np = 0;
	for (const struct ctx *y = x; y; y = y->glob)
		for (int i = 0; i < y->n_front; i++) {
			/* insertion by time: fronts hold tens of points */
			double t = y->front[i].time_to_train_s, c = y->front[i].cost_to_train_usd;
			int j = np++;
			while (j > 0 && pt[j - 1][0] > t) {
				pt[j][0] = pt[j - 1][0];
				pt[j][1] = pt[j - 1][1];
				j--;
			}
			pt[j][0] = t;
			pt[j][1] = c;
		}
	int ok = pt[0][0] <= kt * s_lo;
	for (int j = 0; ok && j < np; j++) {
		if (j)
			pt[j][1] = fmin(pt[j][1], pt[j - 1][1]);
		double a = fmax(s_lo, pt[j][0] / kt);
		double b = j + 1 < np ? fmin(s_hi, pt[j + 1][0] / kt) : s_hi;
		if (b <= a && j + 1 < np)
			continue;
		double want = pt[j][1] * 3600 / kt;
		ok = curve_min(sc, a, fmax(a, b), want, CURVE_DEPTH, evals) >= want;
		if (b >= s_hi)
			break;
	}
	free(pt);
	return ok;
}

/* set_screened on the set's cost curve, for cost, deadline and budget:
 * its corner (every layout at full count for the time, the cheapest
 * layout's USD per micro-batch for the cost) is far from any plan of the
 * set, whose step also holds the pipeline fill and drain of the few
 * micro-batches each replica runs when many run. With s a plan's
 * pipeline term (curve_usd_h), its time to train is at least kt s and
 * its cost kt s usd_h(s) / 3600; the set is skipped when no s in
 * [s_lo, s_hi] gives a plan that can enter the ranked list or be the
 * stock plan (as bounds_screened: the deadline's plans within it cost
 * more than the last ranked, the budget's plans within it take longer)
 * and the front dominates them all. s_hi bounds every plan's term (a
 * replica runs at most M micro-batches). The same 1e-6 margin as the
 * candidates' screen. Returns 1 to skip the set. */
static int set_curve_screened(struct ctx *x, const struct gset *g, const struct layout **Ls,
			      int n)
{
	const double margin = 1 - 1e-6;
	const struct search_opts *o = x->o;
	struct set_curve sc;
	double worst, stock, tok_step = (double)o->gbs * x->seq, s_hi = 0;
	if (!top_worst(x, &worst) || (!x->no_stock && !stock_best(x, &stock)))
		return 0;
	double thr = x->no_stock ? worst : fmax(worst, stock);
	sc.n = n;
	sc.M = (double)(o->gbs / g->mbs);
	sc.min_total = (double)capmilp_ep_step(g->ep, g->cp);
	for (int i = 0; i < n; i++) {
		if (!Ls[i]->price_known)
			return 0;
		sc.A[i] = Ls[i]->A_lo;
		sc.B[i] = Ls[i]->B_lo;
		sc.usd_h[i] = Ls[i]->usd_h;
		sc.ub[i] = fit_count(x, Ls[i], x->cap);
		s_hi = fmax(s_hi, sc.A[i] + sc.B[i] * sc.M);
	}
	double s_lo = curve_first_step(&sc, s_hi), kt = x->tokens / tok_step * margin;
	double top_hi = s_hi, want = HUGE_VAL;   /* plans with s <= top_hi cost want or more */
	switch (o->objective) {
	case OBJ_COST:
		want = thr / margin / 1e6 * tok_step * 3600 / margin;
		break;
	case OBJ_DEADLINE:
		top_hi = fmin(s_hi, o->deadline_s / margin / kt);
		want = thr / margin * 3600 / kt;
		break;
	case OBJ_BUDGET:
		top_hi = fmin(s_hi, thr / margin / kt);
		want = o->budget_usd / margin * 3600 / kt;
		break;
	default:
		return 0;
	}
	long evals = CURVE_EVALS;
	if (top_hi >= s_lo && !(curve_min(&sc, s_lo, top_hi, want, CURVE_DEPTH, &evals) > want))
		return 0;
	return curve_front_dominated(x, &sc, kt, s_lo, s_hi, &evals);
}

/* The batch split of groups gi (split_batch) and its pipeline term.
 * Returns -1 when there are fewer micro-batches than the replicas need. */
static int combo_split(struct ctx *x, const struct gset *g, struct group_in *gi, int k,
		       double *pipe)
{
	if (split_batch(gi, k, x->o->gbs / g->mbs) < 0) {
		x->res->stats.pruned++;
		return -1;
	}
	*pipe = 0;
	for (int i = 0; i < k; i++) {
		int m = gi[i].count - gi[i].n_lo > 0 ? gi[i].m : gi[i].m - gi[i].q;
		*pipe = perf_fmax(*pipe, gi[i].L->A_lo + gi[i].L->B_lo * m);
	}
	return 0;
}

/* Score one combination of layouts and counts: build the plan, check it
 * (validity, --framework), estimate it and keep it. Returns 0 when it was
 * scored (time_s/cost_usd, when not NULL, get its time and cost to train;
 * cost HUGE_VAL when unpriced), 1 when screened out (only when screen), -1 when invalid or
 * it does not fit. */
static int try_combo(struct ctx *x, const struct gset *g, const struct layout **Ls,
		     const int *counts, int n, int screen, double *time_s, double *cost_usd)
{
	struct group_in gi[HP_MAX_POOLS + 1];
	int used[HP_MAX_POOLS];
	double pipe;
	int k = combo_groups(x, g, Ls, counts, n, gi, used, &pipe);
	if (k < 0)
		return -1;
	if (screen && combo_screened(x, used, pipe))
		return 1;
	if (combo_split(x, g, gi, k, &pipe) < 0)
		return -1;
	if (screen && combo_screened(x, used, pipe))
		return 1;
	/* more GPUs of a pool than it has: plan_validate would refuse the
	 * plan (with a message, 11,000 instructions each, for the 48,000
	 * MILP neighbours of a Mixtral 8x22B budget search that overrun);
	 * refused here before the plan is built, counted as it counts them */
	for (int p = 0; p < x->c->n_pools; p++)
		if (used[p] > x->cap[p]) {
			x->res->stats.pruned++;
			return -1;
		}
	struct search_plan sp;
	memset(&sp, 0, sizeof sp);
	plan_globals(&sp.plan, x, g);
	/* the replica groups in one allocation (add_replica grows it by one) */
	int n_rep = 0;
	for (int i = 0; i < k; i++)
		n_rep += (gi[i].count - gi[i].n_lo > 0) + (gi[i].n_lo > 0);
	sp.plan.replicas = xmalloc((size_t)n_rep * sizeof *sp.plan.replicas);
	for (int i = 0; i < k; i++) {
		struct replica *r = sp.plan.replicas;
		int hi_n = gi[i].count - gi[i].n_lo;
		if (hi_n > 0)
			replica_fill(&r[sp.plan.n_replicas++], gi[i].L, hi_n, gi[i].m, g->mbs,
				     x->o->gbs);
		if (gi[i].n_lo > 0)
			replica_fill(&r[sp.plan.n_replicas++], gi[i].L, gi[i].n_lo,
				     gi[i].m - gi[i].q, g->mbs, x->o->gbs);
	}
	struct hp_err err = { 0 };
	if (plan_validate(&sp.plan, x->c, x->m, "planner", &err) < 0) {
		plan_free(&sp.plan);
		x->res->stats.pruned++;
		return -1;
	}
	/* --framework: only plans it runs; else the plan names the framework
	 * that runs it (Megatron-Core first, whose row FW_ANY estimates with,
	 * so the numbers do not move), or stays FW_ANY when none does */
	unsigned fw = runs_on_mask(&sp.plan, x->c, NULL, 0);
	if (x->o->framework != FW_ANY && !(fw & (1u << x->o->framework))) {
		plan_free(&sp.plan);
		x->res->stats.pruned++;
		return -1;
	}
	if (x->o->framework == FW_ANY)
		sp.plan.framework = runs_on_pick(fw);
	int mf = mem_first(x, &sp.plan, &err);
	if (mf != 0) {
		plan_free(&sp.plan);
		x->res->stats.pruned += mf < 0;
		return -1;
	}
	if (estimate(x, &sp.plan, &sp.est, &err) < 0) {
		plan_free(&sp.plan);
		x->res->stats.pruned++;
		return -1;
	}
	x->res->stats.evaluated++;
	if (!sp.est.fits) {
		/* fitted at the probe's DP degree, not at this one's */
		x->res->stats.pruned++;
		mem_miss_offer(x, &sp);
		return -1;
	}
	if (over_headroom(x, &sp.est)) {
		x->res->stats.pruned++;
		sp_free(&sp);
		return -1;
	}
	finish_plan_on(x, &sp, fw);
	if (time_s)
		*time_s = sp.time_to_train_s;
	if (cost_usd)
		*cost_usd = sp.est.price_known ? sp.cost_to_train_usd : HUGE_VAL;
	keep_plan(x, &sp);
	return 0;
}

/* ------------------------------------------------------------------ */

static int cmp_rate(const void *a, const void *b)
{
	const struct layout *const *x = a, *const *y = b;
	if ((*x)->rate != (*y)->rate)
		return (*x)->rate > (*y)->rate ? -1 : 1;
	if ((*x)->size != (*y)->size)
		return (*x)->size < (*y)->size ? -1 : 1;
	return (*x)->pp - (*y)->pp;
}

static int fill_counts_in(const struct ctx *x, const struct layout **Ls, int n,
			  const int *limit, const int *cap, int *counts);

static int fill_counts(const struct ctx *x, const struct layout **Ls, int n, const int *limit,
		       int *counts)
{
	return fill_counts_in(x, Ls, n, limit, x->cap, counts);
}

/* Replicas of L that fit in the GPUs left. A layout's GPUs are on its
 * segments' pools (layout_size), at most two, so only those are read:
 * the loop over every pool was a tenth of a deadline search's candidate
 * handling. */
static int fit_count(const struct ctx *x, const struct layout *L, const int *left)
{
	(void)x;
	int n = 1 << 30;
	for (int s = 0; s < L->nseg; s++) {
		int p = L->seg[s].pool;
		if (L->gpus[p])
			n = HP_MIN(n, left[p] / L->gpus[p]);
	}
	return n;
}

/* Fill the layouts in order, each as many replicas as fit (or limit[i]
 * when >= 0). Returns 0 if every layout gets at least one. */
static int fill_counts_in(const struct ctx *x, const struct layout **Ls, int n,
			  const int *limit, const int *cap, int *counts)
{
	int left[HP_MAX_POOLS];
	memcpy(left, cap, sizeof left);
	for (int i = 0; i < n; i++) {
		int k = fit_count(x, Ls[i], left);
		if (limit && limit[i] >= 0)
			k = HP_MIN(k, limit[i]);
		if (k < 1)
			return -1;
		counts[i] = k;
		/* the layout's pools once each (fit_count) */
		for (int s = 0; s < Ls[i]->nseg; s++) {
			int p = Ls[i]->seg[s].pool;
			if (!s || p != Ls[i]->seg[0].pool)
				left[p] -= k * Ls[i]->gpus[p];
		}
	}
	return 0;
}

/* The count vectors of one layout set, each tried once: a candidate
 * list that grows as needed, hashed so that the MILP ladder's repeats
 * and neighbours are looked up, not re-estimated. */
struct combo {
	int v[HP_MAX_POOLS + 1];
	int state;            /* 0 untried, 1 screened out, 2 tried */
	int rc;               /* try_combo()'s answer when tried */
	double t, cost;
};

struct count_list {
	struct combo *v;
	int n, cap, width;
	int *slot;            /* open addressing: index + 1, 0 empty */
	int n_slot;           /* a power of two, > 2 n */
};

static unsigned cl_hash(const int *v, int w)
{
	unsigned h = 2166136261u;   /* FNV-1a */
	for (int i = 0; i < w; i++)
		h = (h ^ (unsigned)v[i]) * 16777619u;
	return h;
}

static void cl_rehash(struct count_list *cl)
{
	free(cl->slot);
	cl->n_slot = cl->n_slot ? 2 * cl->n_slot : 64;
	cl->slot = xcalloc((size_t)cl->n_slot, sizeof *cl->slot);
	for (int i = 0; i < cl->n; i++) {
		unsigned h = cl_hash(cl->v[i].v, cl->width) & (unsigned)(cl->n_slot - 1);
		while (cl->slot[h])
			h = (h + 1) & (unsigned)(cl->n_slot - 1);
		cl->slot[h] = i + 1;
	}
}

/* The entry for counts, added (untried) when new. */
static struct combo *cl_add(struct count_list *cl, const int *counts)
{
	if (2 * (cl->n + 1) > cl->n_slot)
		cl_rehash(cl);
	unsigned h = cl_hash(counts, cl->width) & (unsigned)(cl->n_slot - 1);
	while (cl->slot[h]) {
		struct combo *e = &cl->v[cl->slot[h] - 1];
		int i = 0;
		while (i < cl->width && e->v[i] == counts[i])
			i++;
		if (i == cl->width)
			return e;
		h = (h + 1) & (unsigned)(cl->n_slot - 1);
	}
	if (cl->n == cl->cap) {
		cl->cap = cl->cap ? 2 * cl->cap : 64;
		cl->v = xrealloc(cl->v, (size_t)cl->cap * sizeof *cl->v);
	}
	struct combo *e = &cl->v[cl->n];
	memset(e, 0, sizeof *e);
	memcpy(e->v, counts, (size_t)cl->width * sizeof *counts);
	cl->slot[h] = ++cl->n;
	return e;
}

static void cl_free(struct count_list *cl)
{
	free(cl->v);
	free(cl->slot);
}

/* cl_add, for a vector that can be a plan: the EP degree must divide
 * the data-parallel degree times CP (combo_groups prunes the others), so
 * the candidate lists of MoE settings do not grow with vectors that are
 * never estimated. */
static void cl_add_valid(struct count_list *cl, const struct gset *g, const int *counts, int n)
{
	long dp = 0;
	for (int i = 0; i < n; i++)
		dp += counts[i];
	if ((dp * g->cp) % g->ep == 0)
		cl_add(cl, counts);
}

/* try_combo() once per count vector; want_time: the MILP ladder needs
 * the time and cost, so a screened entry is estimated after all. */
static int cl_try(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
		  struct combo *e, int want_time)
{
	if (e->state == 2 || (e->state == 1 && !want_time))
		return e->rc;
	e->t = e->cost = HUGE_VAL;
	e->rc = try_combo(x, g, Ls, e->v, n, !want_time, &e->t, &e->cost);
	e->state = e->rc == 1 ? 1 : 2;
	return e->rc;
}

static void all_counts(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
		       int i, int *left, int *counts)
{
	if (i == n) {
		try_combo(x, g, Ls, counts, n, 1, NULL, NULL);
		return;
	}
	for (int k = fit_count(x, Ls[i], left); k >= 1; k--) {
		counts[i] = k;
		for (int p = 0; p < x->c->n_pools; p++)
			left[p] -= k * Ls[i]->gpus[p];
		all_counts(x, g, Ls, n, i + 1, left, counts);
		for (int p = 0; p < x->c->n_pools; p++)
			left[p] += k * Ls[i]->gpus[p];
	}
}

/* Capacity MILP over the replica counts of one layout set (lp.c). Integer
 * n_i replicas of layout i and N_p nodes of pool p (billed whole):
 *   deadline: min sum N_p P_p - lambda sum n_i r_i   s.t. sum n_i r_i >= R
 *             (Dinkelbach: lambda is moved to the ratio of the last answer,
 *             so the optimum minimises USD per micro-batch, i.e. the cost
 *             to train, among mixes fast enough for the deadline)
 *   budget:   max sum n_i r_i   s.t. sum N_p P_p / 3600 <= lambda sum n_i r_i
 *             (cost to train within the budget, exactly linear)
 * with sum_i n_i gpus_ip <= gpn_p N_p, N_p <= nodes_p, n_i >= 1 and at
 * most one replica per micro-batch. r_i = 1/B_i: micro-batches per second
 * of a replica; P_p: USD per node-hour. */
static int milp_counts_glpk(struct ctx *x, const struct gset *g, const struct layout **Ls,
			    int n, double R, double lambda, int *counts)
{
	int deadline = x->o->objective == OBJ_DEADLINE;
	const struct cluster *c = x->c;
	struct lp *lp = lp_new(!deadline);
	int col[HP_MAX_POOLS + 1], ncol[HP_MAX_POOLS];
	int idx[2 * HP_MAX_POOLS + 2];
	double cf[2 * HP_MAX_POOLS + 2];
	for (int i = 0; i < n; i++) {
		int cap = fit_count(x, Ls[i], x->cap);
		double r = 1.0 / Ls[i]->B;
		col[i] = lp_add_col(lp, 1, cap, deadline ? -lambda * r : r, 1);
	}
	for (int p = 0; p < c->n_pools; p++) {
		ncol[p] = -1;
		int used = 0;
		for (int i = 0; i < n; i++)
			used |= Ls[i]->gpus[p] > 0;
		if (!used)
			continue;
		ncol[p] = lp_add_col(lp, 0, c->pools[p].nodes,
				     deadline ? c->pools[p].usd_per_node_h : 0, 1);
		int k = 0;
		for (int i = 0; i < n; i++)
			if (Ls[i]->gpus[p]) {
				idx[k] = col[i];
				cf[k++] = Ls[i]->gpus[p];
			}
		idx[k] = ncol[p];
		cf[k++] = -c->pools[p].gpus_per_node;
		lp_add_row(lp, k, idx, cf, -HUGE_VAL, 0);
	}
	int k = 0;
	for (int i = 0; i < n; i++) {
		idx[k] = col[i];
		cf[k++] = 1.0 / Ls[i]->B;
	}
	if (deadline) {
		lp_add_row(lp, k, idx, cf, R, HUGE_VAL);
	} else {
		for (int i = 0; i < k; i++)
			cf[i] *= -lambda;
		for (int p = 0; p < c->n_pools; p++)
			if (ncol[p] >= 0) {
				idx[k] = ncol[p];
				cf[k++] = c->pools[p].usd_per_node_h / 3600;
			}
		lp_add_row(lp, k, idx, cf, -HUGE_VAL, 0);
	}
	for (int i = 0; i < n; i++) {
		idx[i] = col[i];
		cf[i] = 1;
	}
	lp_add_row(lp, n, idx, cf, -HUGE_VAL, (double)(x->o->gbs / g->mbs));
	long step = capmilp_ep_step(g->ep, g->cp);
	if (step > 1) {
		/* sum_i n_i = step k, k integer: the EP rule (capmilp.h) */
		idx[n] = lp_add_col(lp, 0, (double)(x->o->gbs / g->mbs / step), 0, 1);
		cf[n] = -(double)step;
		lp_add_row(lp, n + 1, idx, cf, 0, 0);
	}
	struct lp_result r;
	int rc = lp_solve(lp, 5000, &r);
	x->res->stats.milp_glpk++;
	if (rc == 0)
		for (int i = 0; i < n; i++)
			counts[i] = (int)lround(lp_value(lp, col[i]));
	lp_free(lp);
	return rc;
}

/* The MILP above, solved by capmilp.c (exact branch and bound on the
 * counts, node counts of pools computed); GLPK takes it when that gives
 * up after CAPMILP_STEPS_DEADLINE or _BUDGET steps (capmilp.h). Returns
 * 0 with counts, -1 when infeasible. */
static int milp_counts(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
		       double R, double lambda, int *counts)
{
	const struct cluster *c = x->c;
	struct capmilp m;
	memset(&m, 0, sizeof m);
	m.kind = x->o->objective == OBJ_DEADLINE ? CAPMILP_DEADLINE : CAPMILP_BUDGET;
	m.n = n;
	for (int p = 0; p < c->n_pools; p++) {
		int used = 0;
		for (int i = 0; i < n; i++)
			used |= Ls[i]->gpus[p] > 0;
		if (!used)
			continue;
		int q = m.np++;
		m.gpn[q] = c->pools[p].gpus_per_node;
		m.nodes[q] = c->pools[p].nodes;
		m.usd_node_h[q] = c->pools[p].usd_per_node_h;
		for (int i = 0; i < n; i++)
			m.g[i][q] = Ls[i]->gpus[p];
	}
	for (int i = 0; i < n; i++) {
		m.r[i] = 1.0 / Ls[i]->B;
		m.ub[i] = fit_count(x, Ls[i], x->cap);
	}
	m.max_total = x->o->gbs / g->mbs;
	m.total_step = capmilp_ep_step(g->ep, g->cp);
	m.R = R;
	m.lambda = lambda;
	m.node_limit = m.kind == CAPMILP_DEADLINE ? CAPMILP_STEPS_DEADLINE : CAPMILP_STEPS_BUDGET;
	x->res->stats.lp_solves++;
	double t0 = hp_now();
	int rc;
	if (!capmilp_memo_get(x->milp_memo, &m, &rc, counts)) {
		/* GLPK's model is built from the same fields as m */
		rc = capmilp_solve(&m, counts, NULL);
		if (rc == -2)
			rc = milp_counts_glpk(x, g, Ls, n, R, lambda, counts);
		capmilp_memo_put(x->milp_memo, &m, rc, counts);
	}
	x->res->stats.milp_s += hp_now() - t0;
	return rc;
}

/* Branch and bound over layout sets: a bound on the set's best score
 * (every layout at its asymptotic rate, as many replicas as fit, no
 * fill/drain, synchronisation or optimizer time). Sets that cannot beat
 * the last of the kept plans are skipped; single-pool sets never are, so
 * the per-pool comparison stays exact. */
static int set_pruned(const struct ctx *x, const struct gset *g, const struct layout **Ls,
		      int n, const int *full)
{
	double worst;
	if (!top_worst(x, &worst) || (n == 1 && Ls[0]->nseg == 1))
		return 0;
	double tok_mb = (double)g->mbs * x->seq, rate = 0, best_cost = HUGE_VAL;
	for (int i = 0; i < n; i++) {
		rate += full[i] / Ls[i]->B;
		if (Ls[i]->price_known)
			best_cost = fmin(best_cost, Ls[i]->usd_h / 3600 * Ls[i]->B / tok_mb);
	}
	double tok_s = rate * tok_mb, bound;
	switch (x->o->objective) {
	case OBJ_THROUGHPUT: bound = 1.0 / tok_s; break;
	case OBJ_COST: bound = best_cost * 1e6; break;
	case OBJ_DEADLINE: bound = best_cost * x->tokens; break;
	default: bound = x->tokens / tok_s; break;
	}
	return bound >= worst;
}

/* Count candidates around "every layout as many replicas as fit" (full):
 * one replica fewer of each layout, fractions of the first (the two-pool
 * layout when the set has one), fewer replicas so the micro-batches
 * divide evenly, and no more replicas than micro-batches. */
static void counts_around_full(const struct ctx *x, const struct gset *g,
			       const struct layout **Ls, int n, const int *full,
			       struct count_list *cl)
{
	int counts[HP_MAX_POOLS + 1], limit[HP_MAX_POOLS + 1] = { 0 };
	long M = x->o->gbs / g->mbs, total = 0;
	for (int i = 0; i < n; i++)
		total += full[i];
	for (int j = 0; j < n; j++) {
		int fr[] = { full[j] - 1, (3 * full[j]) / 4, full[j] / 2, full[j] / 4, 1 };
		for (size_t f = 0; f < HP_ARRAY_LEN(fr); f++) {
			if (fr[f] < 1 || (f > 0 && j > 0))
				continue;
			for (int i = 0; i < n; i++)
				limit[i] = -1;
			limit[j] = fr[f];
			if (fill_counts(x, Ls, n, limit, counts) == 0)
				cl_add_valid(cl, g, counts, n);
		}
	}
	/* the largest R <= total (down to half) with M % R == 0, every
	 * layout scaled alike, the remainder handed out in order */
	long R = HP_MIN(total, M);
	while (R > total / 2 && M % R)
		R--;
	if (R >= 1 && R < total && M % R == 0) {
		long given = 0;
		for (int i = 0; i < n; i++) {
			limit[i] = (int)HP_MAX(1, full[i] * R / total);
			given += limit[i];
		}
		for (int i = 0; i < n && given < R; i++) {
			long add = HP_MIN(full[i] - limit[i], R - given);
			limit[i] += (int)add;
			given += add;
		}
		if (given == R && fill_counts(x, Ls, n, limit, counts) == 0)
			cl_add_valid(cl, g, counts, n);
	}
	if (total > M) {
		for (int i = 0; i < n; i++)
			limit[i] = (int)HP_MAX(1, full[i] * M / total);
		if (fill_counts(x, Ls, n, limit, counts) == 0)
			cl_add_valid(cl, g, counts, n);
	}
	if (x->o->objective == OBJ_COST) {
		/* per token, few replicas waste least on bubbles and syncs */
		for (int a = 1; a <= 4; a *= 2)
			for (int i = 0; i < n; i++) {
				for (int k = 0; k < n; k++)
					limit[k] = k == i ? a : 1;
				if (fill_counts(x, Ls, n, limit, counts) == 0)
					cl_add_valid(cl, g, counts, n);
			}
	}
}

/* Mixes of whole nodes tried per layout set: beyond this many the ladder
 * below becomes a neighbourhood (every pool on one rung, or one pool off
 * the top rung). 4,096 = 6 rungs on 4 pools plus room; a set spans at
 * most n_pools + 1 layouts. */
#define NODE_MIXES_MAX 4096

/* Whole-node mixes: for each pool the set uses, a ladder of node counts
 * (N, 3N/4, N/2, N/4, 2, 1; every count up to 6 nodes), the layouts
 * filled inside them. Costs are billed by the node, and integer
 * micro-batches make some mixes finish together where the linear model
 * cannot see it. */
static void counts_node_mixes(const struct ctx *x, const struct gset *g,
			      const struct layout **Ls, int n, struct count_list *cl)
{
	int pools[HP_MAX_POOLS], np = 0, lv[HP_MAX_POOLS][8], nl[HP_MAX_POOLS];
	double mixes = 1;
	for (int p = 0; p < x->c->n_pools; p++) {
		int used = 0;
		for (int i = 0; i < n; i++)
			used |= Ls[i]->gpus[p] > 0;
		if (!used)
			continue;
		int N = x->c->pools[p].nodes, k = 0;
		int lad[] = { N, (3 * N) / 4, N / 2, N / 4, 2, 1 };
		if (N <= 6)
			for (int v = N; v >= 1; v--)
				lv[np][k++] = v;
		else
			for (size_t j = 0; j < HP_ARRAY_LEN(lad); j++) {
				int dup = 0;
				for (int q = 0; q < k; q++)
					dup |= lv[np][q] == lad[j];
				if (lad[j] >= 1 && !dup)
					lv[np][k++] = lad[j];
			}
		nl[np] = k;
		mixes *= k;
		pools[np++] = p;
	}
	int at[HP_MAX_POOLS] = { 0 }, counts[HP_MAX_POOLS + 1], cap[HP_MAX_POOLS];
	/* every pool the set uses is set below for each mix; the others stay */
	memcpy(cap, x->cap, sizeof cap);
	for (long it = 0;; it++) {
		for (int q = 0; q < np; q++)
			cap[pools[q]] = lv[q][at[q]] * x->c->pools[pools[q]].gpus_per_node;
		if (fill_counts_in(x, Ls, n, NULL, cap, counts) == 0)
			cl_add_valid(cl, g, counts, n);
		if (mixes > NODE_MIXES_MAX) {
			/* neighbourhood: rung r on every pool (it < 8), then pool
			 * q alone on rung r */
			long r = it + 1, q = 0;
			if (r < 8) {
				for (int j = 0; j < np; j++)
					at[j] = (int)HP_MIN(r, nl[j] - 1);
				continue;
			}
			r -= 8;
			q = r / 8;
			if (q >= np)
				break;
			memset(at, 0, sizeof at);
			at[q] = (int)HP_MIN(r % 8, nl[q] - 1);
			continue;
		}
		int q = 0;
		for (; q < np; q++) {
			if (++at[q] < nl[q])
				break;
			at[q] = 0;
		}
		if (q == np)
			break;
	}
}

/* Is the budget MILP (milp_counts) surely infeasible? Its cost row is
 * sum N_p P_p / 3600 - lambda sum n_i / B_i <= 0, and whole nodes cost
 * at least the GPU shares, sum N_p P_p >= sum n_i usd_h_i; so the row's
 * left side is at least sum n_i c_i with c_i = usd_h_i / 3600 -
 * lambda / B_i, whose least value over 1 <= n_i <= (replicas that fit)
 * takes each positive c_i once and each negative one at the most
 * replicas. When that is still above zero by more than a relative 1e-4
 * (far above GLPK's 1e-7 feasibility tolerance) the solve would only say
 * "infeasible". */
static int budget_infeasible(const struct ctx *x, const struct layout **Ls, int n,
			     double lambda)
{
	double pos = 0, neg = 0;
	for (int i = 0; i < n; i++) {
		double ci = Ls[i]->usd_h / 3600 - lambda / Ls[i]->B;
		if (ci > 0)
			pos += ci;
		else
			neg -= ci * fit_count(x, Ls[i], x->cap);
	}
	return pos > neg * (1 + 1e-4);
}

/* Deadline and budget: the capacity MILP and its Dinkelbach / budget
 * ladder (milp_counts), each answer and its +-1 neighbours tried. */
static void counts_milp_ladder(struct ctx *x, const struct gset *g, const struct layout **Ls,
			       int n, struct count_list *cl)
{
	const struct search_opts *o = x->o;
	int counts[HP_MAX_POOLS + 1];
	for (int i = 0; i < n; i++)
		if (!Ls[i]->price_known)
			return;
	double tok_mb = (double)g->mbs * x->seq;
	double R = o->objective == OBJ_DEADLINE ? x->tokens / o->deadline_s / tok_mb : 0;
	double lambda = o->objective == OBJ_BUDGET ? o->budget_usd * tok_mb / x->tokens : 0;
	/* the most micro-batches per second the MILP can reach: every layout
	 * at as many replicas as fit alone (an upper bound on its rate row) */
	double rate_max = 0;
	for (int i = 0; i < n; i++)
		rate_max += fit_count(x, Ls[i], x->cap) / Ls[i]->B;
	for (int round = 0; round < 8; round++) {
		/* surely infeasible (the margin is far above GLPK's 1e-7
		 * feasibility tolerance): skip the solve that would say so */
		if (o->objective == OBJ_DEADLINE && rate_max < R * (1 - 1e-4))
			return;
		if (o->objective == OBJ_BUDGET && budget_infeasible(x, Ls, n, lambda))
			return;
		if (milp_counts(x, g, Ls, n, R, lambda, counts) < 0)
			return;
		/* the optimum and its neighbours (integer rounding of the
		 * step's fill/drain and synchronisation) */
		struct combo *e = cl_add(cl, counts);
		int rc = cl_try(x, g, Ls, n, e, 1);
		double t = e->t, cost = e->cost;
		/* neighbours that keep the sum a multiple of the EP step:
		 * +-step on one count (+-1 without EP), and with EP one replica
		 * moved from a count to another */
		long step = capmilp_ep_step(g->ep, g->cp);
		for (int i = 0; i < n; i++)
			for (int d = -1; d <= 1; d += 2) {
				int save = counts[i];
				counts[i] += d * (int)step;
				if (counts[i] >= 1)
					cl_try(x, g, Ls, n, cl_add(cl, counts), 0);
				counts[i] = save;
				for (int j = 0; j < n && step > 1 && d > 0; j++) {
					if (j == i || counts[j] <= 1)
						continue;
					counts[i]++;
					counts[j]--;
					cl_try(x, g, Ls, n, cl_add(cl, counts), 0);
					counts[i]--;
					counts[j]++;
				}
			}
		if (rc != 0)
			return;
		if (o->objective == OBJ_DEADLINE) {
			if (t > o->deadline_s) {
				/* slower than the linear model said: ask for more */
				R *= t / o->deadline_s * 1.0005;
				continue;
			}
			/* Dinkelbach step: USD/h per micro-batch/s of this answer */
			double rate = 0, usd_h = cost / t * 3600;
			for (int i = 0; i < n; i++)
				rate += counts[i] / Ls[i]->B;
			double next = usd_h / rate;
			if (fabs(next - lambda) <= 1e-6 * next)
				return;
			lambda = next;
		} else {
			if (cost <= o->budget_usd)
				return;
			lambda *= o->budget_usd / cost * 0.9995;
		}
	}
}

/* Can a plan of this layout set run on a stock framework (runs_on.c)?
 * Every count vector of the set has at least one replica of each layout,
 * and every framework refuses mixed GPU types (in a pipeline or across
 * replicas), mixed TP degrees in a pipeline and replicas of different
 * layouts (stage count, TP, layer split). Returns 0 only when one of
 * those holds for every plan of the set; 1 otherwise. */
static int set_may_stock(const struct ctx *x, const struct layout **Ls, int n)
{
	const struct pool *pools = x->c->pools;
	const struct layout *L0 = Ls[0];
	const char *gpu = pools[L0->seg[0].pool].gpu.name;
	for (int i = 0; i < n; i++) {
		const struct layout *L = Ls[i];
		for (int s = 0; s < L->nseg; s++)
			if (strcmp(pools[L->seg[s].pool].gpu.name, gpu) || L->seg[s].tp != L0->seg[0].tp)
				return 0;
		if (L->pp != L0->pp || memcmp(L->k, L0->k, (size_t)L->pp * sizeof *L->k))
			return 0;
	}
	return 1;
}

/* Replica counts for one layout set: every vector when the cluster is
 * tiny, else the candidates above (bound-pruned first), each tried once. */
static void counts_for_set_in(struct ctx *x, const struct gset *g, const struct layout **Ls,
			      int n)
{
	int counts[HP_MAX_POOLS + 1], full[HP_MAX_POOLS + 1];
	if (x->exhaustive) {
		int left[HP_MAX_POOLS];
		memcpy(left, x->cap, sizeof left);
		all_counts(x, g, Ls, n, 0, left, counts);
		return;
	}
	if (fill_counts(x, Ls, n, NULL, full) < 0)
		return;
	if (set_pruned(x, g, Ls, n, full)) {
		x->res->stats.pruned++;
		return;
	}
	if (set_screened(x, g, Ls, n) ||
	    (x->o->objective != OBJ_THROUGHPUT && set_curve_screened(x, g, Ls, n))) {
		x->res->stats.screened++;
		return;
	}
	struct count_list cl = { 0 };
	cl.width = n;
	cl_add(&cl, full);
	counts_around_full(x, g, Ls, n, full, &cl);
	if (x->o->objective != OBJ_THROUGHPUT)
		counts_node_mixes(x, g, Ls, n, &cl);
	for (int i = 0; i < cl.n; i++)
		cl_try(x, g, Ls, n, &cl.v[i], 0);
	if (x->o->objective == OBJ_DEADLINE || x->o->objective == OBJ_BUDGET)
		counts_milp_ladder(x, g, Ls, n, &cl);
	cl_free(&cl);
}

/* counts_for_set_in, screening without the stock plan where no plan of
 * the set can be one. */
static void counts_for_set(struct ctx *x, const struct gset *g, const struct layout **Ls, int n)
{
	struct search_stats *st = &x->res->stats;
	double t0 = hp_now(), other = st->estimate_s + st->milp_s;
	x->no_stock = !set_may_stock(x, Ls, n);
	counts_for_set_in(x, g, Ls, n);
	x->no_stock = 0;
	st->candidate_s += hp_now() - t0 - (st->estimate_s + st->milp_s - other);
}

/* Has the caller asked the search to stop (search_opts.cancel)? Polled
 * between layouts, layout sets and DP terms inside a global setting, so
 * that a cancel is honoured within a few milliseconds even on clusters
 * where one setting takes seconds (issue 13: 65,536 GPUs); a setting cut
 * short merges what it found and marks the search cancelled. */
static int search_cancelled(const struct ctx *x)
{
	return x->o->cancel && atomic_load(x->o->cancel);
}

struct layouts {
	struct layout *v;
	int n, cap;
};

static struct layout *layouts_push(struct layouts *ls)
{
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 64;
		ls->v = xrealloc(ls->v, (size_t)ls->cap * sizeof *ls->v);
	}
	struct layout *L = &ls->v[ls->n++];
	memset(L, 0, sizeof *L);
	return L;
}

static void layout_size(const struct ctx *x, const struct gset *g, struct layout *L)
{
	memset(L->gpus, 0, sizeof L->gpus);
	L->pp = 0;
	for (int i = 0; i < L->nseg; i++) {
		L->gpus[L->seg[i].pool] += L->seg[i].tp * g->cp * L->seg[i].stages;
		L->pp += L->seg[i].stages;
	}
	L->size = 0;
	L->max_count = 1 << 30;
	for (int i = 0; i < x->c->n_pools; i++)
		if (L->gpus[i]) {
			L->size += L->gpus[i];
			L->max_count = HP_MIN(L->max_count, x->cap[i] / L->gpus[i]);
		}
	layout_price(x->c, L);
}

/* The fewest micro-batches a replica of layout L takes under setting g:
 * one, or under the interleaved schedule a multiple of its depth
 * (plan_validate), so at least pp. */
static int layout_min_mb(const struct gset *g, const struct layout *L)
{
	return g->sched == SCHED_INTERLEAVED ? L->pp : 1;
}

/* Data-parallel terms of the throughput bound (dp_bound): per layout i,
 * a[i] + b[i] m seconds is at most the exposed DP synchronisation of any
 * plan that uses it with m micro-batches per replica and between n_lo and
 * n_hi replicas in all. NULL: no terms, any number of replicas. */
struct dp_terms {
	double *a, *b;
	char *done;               /* a[i], b[i] computed at n_lo */
	char *no_fit;             /* layout i fits in memory at no split with
				   * n_hi replicas or fewer */
	double n_lo, n_hi;
};

/* Layouts of the relaxed optimum dp_bound computes terms for per LP. */
#define DP_SUP_MAX 64

static double term_a(const struct layout *L, const struct dp_terms *dt, int i)
{
	return L->A + (dt ? dt->a[i] : 0);
}

static double term_b(const struct layout *L, const struct dp_terms *dt, int i)
{
	return L->B + (dt ? dt->b[i] : 0);
}

/* LP bound on the pipeline time of one global setting, over the layouts
 * whose one-replica floor A_L + B_L q_L (q_L its fewest micro-batches) is
 * at most tau. With n_L replicas of layout L taking m_L >= q_L
 * micro-batches each, the step is at least A_L + B_L m_L for every L
 * (fill/drain plus the bottleneck stage), and sum n_L m_L = M, so
 * T >= (M + sum n_L A_L / B_L) / sum (n_L / B_L), and sum n_L q_L <= M.
 * Minimising that ratio over real n_L >= 0 within each pool's GPUs is a
 * linear-fractional programme; with y_L = n_L t and t = 1 / sum(n_L / B_L)
 * (Charnes-Cooper) it is the LP
 *   min M t + sum y_L A_L / B_L
 *   s.t. sum y_L / B_L = 1,  sum y_L gpus_Lp <= cap_p t,  sum y_L q_L <= M t.
 * With dt, each layout's step is at least A_L + a_L + (B_L + b_L) m_L
 * (its DP terms added, the same algebra with A_L + a_L and B_L + b_L), and
 * n_lo <= sum n_L <= n_hi, i.e. n_lo t <= sum y_L <= n_hi t.
 * Returns the minimum (seconds), HUGE_VAL when no layout qualifies or the
 * programme is infeasible, and -1 when GLPK fails otherwise. sup (may be
 * NULL) gets the indices in ls of the optimum's layouts with at least one
 * replica (n_sup of them, at most HP_MAX_POOLS + 1); with dt and not
 * whole, of any share of one (at most DP_SUP_MAX). */
static double lp_pipe_bound(struct ctx *x, const struct gset *g, struct layouts *ls, double tau,
			    const struct dp_terms *dt, int whole, int *sup, int *n_sup)
{
	struct lp *lp = lp_new(0);
	int n = 0;
	double M = (double)(x->o->gbs / g->mbs);
	int *col = xmalloc((size_t)(ls->n ? ls->n : 1) * sizeof *col);
	int tcol = lp_add_col(lp, 0, -1, M, 0);
	for (int i = 0; i < ls->n; i++) {
		struct layout *L = &ls->v[i];
		col[i] = -1;
		if (!L->fits || L->max_count < 1 || (dt && dt->no_fit[i]) ||
		    term_a(L, dt, i) + term_b(L, dt, i) * layout_min_mb(g, L) > tau)
			continue;
		col[i] = lp_add_col(lp, 0, -1, term_a(L, dt, i) / term_b(L, dt, i), 0);
		n++;
	}
	double val = HUGE_VAL;
	if (n) {
		int *idx = xmalloc((size_t)(n + 1) * sizeof *idx);
		double *cf = xmalloc((size_t)(n + 1) * sizeof *cf);
		int k = 0;
		for (int i = 0; i < ls->n; i++)
			if (col[i] >= 0) {
				idx[k] = col[i];
				cf[k++] = 1.0 / term_b(&ls->v[i], dt, i);
			}
		lp_add_row(lp, k, idx, cf, 1, 1);
		if (dt) {
			/* the replicas in all, sum n_L = sum y_L / t, within
			 * [n_lo, n_hi] */
			k = 0;
			for (int i = 0; i < ls->n; i++)
				if (col[i] >= 0) {
					idx[k] = col[i];
					cf[k++] = 1;
				}
			idx[k] = tcol;
			cf[k++] = -dt->n_lo;
			lp_add_row(lp, k, idx, cf, 0, HUGE_VAL);
			cf[k - 1] = -dt->n_hi;
			lp_add_row(lp, k, idx, cf, -HUGE_VAL, 0);
		}
		for (int p = 0; p < x->c->n_pools; p++) {
			k = 0;
			for (int i = 0; i < ls->n; i++)
				if (col[i] >= 0 && ls->v[i].gpus[p]) {
					idx[k] = col[i];
					cf[k++] = ls->v[i].gpus[p];
				}
			if (k) {
				idx[k] = tcol;
				cf[k++] = -x->cap[p];
				lp_add_row(lp, k, idx, cf, -HUGE_VAL, 0);
			}
		}
		k = 0;
		for (int i = 0; i < ls->n; i++)
			if (col[i] >= 0) {
				idx[k] = col[i];
				cf[k++] = layout_min_mb(g, &ls->v[i]);
			}
		idx[k] = tcol;
		cf[k++] = -M;
		lp_add_row(lp, k, idx, cf, -HUGE_VAL, 0);
		if (x->o->objective == OBJ_BUDGET) {
			/* within the budget: USD per second <= lambda x micro-batches
			 * per second, homogeneous in n, so it stays linear in y; GPU
			 * shares of node prices make it a relaxation */
			double lambda = x->o->budget_usd * g->mbs * x->seq / x->tokens;
			k = 0;
			for (int i = 0; i < ls->n; i++)
				if (col[i] >= 0) {
					idx[k] = col[i];
					cf[k++] = ls->v[i].price_known
						? ls->v[i].usd_h / 3600 -
						  lambda / term_b(&ls->v[i], dt, i)
						: 1e3;   /* unpriced: cannot be used */
				}
			lp_add_row(lp, k, idx, cf, -HUGE_VAL, 0);
		}
		struct lp_result r;
		double t0 = hp_now();
		int rc = lp_solve(lp, 0, &r);
		x->res->stats.lp_s += hp_now() - t0;
		if (rc == 0 && r.obj > 0)
			val = r.obj;
		else if (r.status != LP_INFEASIBLE)
			val = -1;
		/* the relaxed optimum's layouts: those of at least one replica
		 * (of any share of one with dt: the layouts whose terms
		 * dp_bound computes next) */
		double t = rc == 0 ? lp_value(lp, tcol) : 0;
		int shares = dt && !whole;
		int cap_sup = shares ? DP_SUP_MAX : HP_MAX_POOLS + 1;
		for (int i = 0; sup && t > 0 && i < ls->n; i++)
			if (col[i] >= 0 && lp_value(lp, col[i]) >= (shares ? 1e-9 : 1) * t &&
			    *n_sup < cap_sup)
				sup[(*n_sup)++] = i;
		x->res->stats.lp_solves++;
		free(idx);
		free(cf);
	}
	free(col);
	lp_free(lp);
	return val;
}

static int cmp_double(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;
	return (u > v) - (u < v);
}

/* The throughput or budget score (seconds per token, or seconds to
 * train) of a setting whose plans step at least step seconds (the fixed
 * per-step overhead added): increasing in step. */
static double step_score(const struct ctx *x, const struct gset *g, double step)
{
	double r = (double)(x->o->gbs / g->mbs) * g->mbs * x->seq /
		   (step + perf_calib_default()->step_overhead_s);
	return x->o->objective == OBJ_THROUGHPUT ? 1.0 / r : x->tokens / r;
}

/* The LPs pipe_floor has solved: f at the floor of index i, its value
 * and the layouts of at least one replica in its optimum. */
struct floor_lps {
	int n;
	struct floor_lp {
		int i, n_sup;
		double f;
		int sup[HP_MAX_POOLS + 1];
	} v[64];
};

/* f(fl[i]) (lp_pipe_bound over the layouts of floor fl[i] or less), from
 * memo when pipe_floor solved that LP already: the same programme gives
 * the same answer, so no floor's LP is solved twice. Returns the entry
 * (its f < 0: GLPK failed), or NULL when the memo is full and sup is
 * wanted (never at its size: a search takes about log2 of the layouts). */
static const struct floor_lp *floor_lp_at(struct ctx *x, const struct gset *g,
					  struct layouts *ls, const struct dp_terms *dt,
					  const double *fl, int i, struct floor_lps *memo)
{
	for (int k = 0; k < memo->n; k++)
		if (memo->v[k].i == i)
			return &memo->v[k];
	assert(memo->n < (int)HP_ARRAY_LEN(memo->v));
	struct floor_lp *e = &memo->v[memo->n++];
	e->i = i;
	e->n_sup = 0;
	e->f = lp_pipe_bound(x, g, ls, fl[i], dt, 1, e->sup, &e->n_sup);
	return e;
}

/* A lower bound on the pipeline term of every plan of one global setting
 * (seconds; with dt, DP terms added and the replicas in dt's range). A
 * plan's step is at least its pipeline term, which is at least f(S) =
 * lp_pipe_bound over the layouts S it uses, and at least the largest
 * floor A_L + B_L q_L among them (every replica takes q_L micro-batches or
 * more). With tau the largest floor a plan uses, its step is at least
 * max(tau, f(tau)) where f(tau) bounds over the layouts of floor <= tau;
 * the bound is the least of these over the floors. f falls as tau grows,
 * so where f(tau) first drops to tau or below (binary search, a few LPs)
 * the least is either that tau or f at the floor before it. Returns
 * HUGE_VAL when no plan qualifies, 0 when there is no layout or GLPK fails
 * on the whole set. sup (may be NULL) gets the layouts of
 * at least one replica in the optimum of the LP the least came from (at
 * most HP_MAX_POOLS + 1, *n_sup of them). cut (a score, step_score's
 * unit; HUGE_VAL: none), only without sup: when the whole set's LP alone
 * scores cut or more, it is returned as it is (the least is no lower, and
 * the caller needs no more than "cut or more"; the floor search would
 * only decide which LP a support came from).
 *
 * The search solves no LP whose answer is known (issue 13, eighth round):
 * f(tau) >= f(whole set), so a floor under the whole set's LP fails the
 * test and the search starts above it; a floor that fails with f(fl[i])
 * = v makes every floor at or above v pass (f only falls), so the upper
 * end moves down to the first of those without an LP; equal floors are
 * one LP; and the floor before the answer reuses the search's LP there.
 * The answer is the first floor that passes, as the plain binary search
 * finds it. */
static double pipe_floor(struct ctx *x, const struct gset *g, struct layouts *ls,
			 const struct dp_terms *dt, double cut, int *sup, int *n_sup)
{
	if (n_sup)
		*n_sup = 0;
	int n = 0;
	double *fl = xmalloc((size_t)(ls->n ? ls->n : 1) * sizeof *fl);
	for (int i = 0; i < ls->n; i++) {
		const struct layout *L = &ls->v[i];
		if (L->fits && L->max_count >= 1 && !(dt && dt->no_fit[i]))
			fl[n++] = term_a(L, dt, i) + term_b(L, dt, i) * layout_min_mb(g, L);
	}
	if (!n) {
		free(fl);
		return 0;
	}
	qsort(fl, (size_t)n, sizeof *fl, cmp_double);
	struct floor_lps *memo = xmalloc(sizeof *memo);
	memo->n = 1;
	struct floor_lp *whole = &memo->v[0];   /* the largest floor's LP has every layout */
	whole->i = n - 1;
	whole->n_sup = 0;
	whole->f = lp_pipe_bound(x, g, ls, HUGE_VAL, dt, 1, whole->sup, &whole->n_sup);
	double all = whole->f;
	if (!(all > 0) || !isfinite(all)) {
		free(fl);
		free(memo);
		return all < 0 ? 0 : HUGE_VAL;
	}
	const struct floor_lp *at = whole;   /* the LP the least came from */
	double best = all, best_tau = HUGE_VAL;
	if (fl[n - 1] >= all && (sup || !(step_score(x, g, all) >= cut))) {
		/* f(fl[i]) <= fl[i] holds from some i on; find the first.
		 * Should GLPK fail on a subset, all's value stands. */
		int lo = 0, hi = n - 1, failed = 0;   /* the predicate holds at hi */
		while (fl[lo] < all)
			lo++;
		while (lo < hi && !failed) {
			int mid = lo + (hi - lo) / 2;
			const struct floor_lp *e = floor_lp_at(x, g, ls, dt, fl, mid, memo);
			failed = e->f < 0;
			if (failed)
				break;
			if (e->f <= fl[mid]) {
				hi = mid;
				continue;
			}
			for (lo = mid + 1; lo < hi && fl[lo] == fl[mid]; lo++)
				;
			int j = lo;
			while (j < hi && fl[j] < e->f)
				j++;
			hi = j;
		}
		const struct floor_lp *before = hi > 0 && !failed
			? floor_lp_at(x, g, ls, dt, fl, hi - 1, memo) : NULL;
		if (before && before->f < 0)
			failed = 1;
		if (!failed) {
			/* the least of fl[hi] (its LP at or under it) and the
			 * LP over the floors before it */
			best = fl[hi];
			best_tau = fl[hi];
			if (before && fmax(before->f, fl[hi - 1]) < best) {
				best = fmax(before->f, fl[hi - 1]);
				best_tau = fl[hi - 1];
			}
			if (best < all) {   /* rounding: all is a bound too */
				best = all;
				best_tau = HUGE_VAL;
			}
			if (sup && best_tau == fl[hi])
				at = floor_lp_at(x, g, ls, dt, fl, hi, memo);
			else if (before && best_tau == fl[hi - 1])
				at = before;
			if (at->f < 0) {   /* GLPK failed: all's value stands */
				best = all;
				best_tau = HUGE_VAL;
				at = whole;
			}
		}
	}
	if (sup) {
		memcpy(sup, at->sup, (size_t)at->n_sup * sizeof *sup);
		*n_sup = at->n_sup;
	}
	free(fl);
	free(memo);
	return best;
}

/* Whole replicas and whole micro-batches (issue 13). Every plan of a
 * setting satisfies, with n_L its replicas of layout L (an integer) and
 * m_r the micro-batches of replica r (a positive multiple of q_L):
 *   (i)   T >= a_L + b_L m_r for every replica r of L, so m_r <=
 *         c_L(T) = q_L floor((T - a_L) / (b_L q_L)), the most whole
 *         micro-batches a replica of L can take within a step of T;
 *   (ii)  sum_r m_r = M, so M <= sum_L n_L c_L(T), and M >= sum_L n_L q_L;
 *   (iii) sum_L n_L gpus_Lp <= cap_p for every pool p, n_L <= max_count_L,
 *         and n_lo <= sum_L n_L <= n_hi.
 * So T is feasible only when the programme max sum n_L c_L(T) over (ii)
 * and (iii) reaches M. It is solved with n_L real, which relaxes it, and
 * with one Chvatal-Gomory cut per pool and replica size g used on it:
 *   sum_L floor(gpus_Lp / g) n_L <= floor(cap_p / g).
 * Valid for integer n_L >= 0: floor(gpus_Lp / g) <= gpus_Lp / g, so the
 * left side is at most cap_p / g, and it is an integer, so at most the
 * floor. (With one layout of g GPUs per replica on a pool, it says
 * n_L <= floor(cap_p / g): the pool holds whole replicas only.)
 * c_L(T) only grows with T and a layout joins when c_L(T) >= q_L, so
 * feasibility is monotone in T and changes only at a breakpoint
 * a_L + b_L q_L k (k = 1, 2, ...). Should T be infeasible, the least
 * feasible T is at least the first breakpoint above it.
 * The real-n LP of lp_pipe_bound relaxes m_r to real shares; this one
 * rounds them to whole micro-batches and caps the replicas at whole
 * ones. dp_bound takes the larger of the two (whole_ranges).
 *
 * Which a_L, b_L: the LP's A, B are probed at the largest DP degree, and
 * a plan of fewer replicas may place a pipeline's neighbours closer
 * (dispatch.c), so its pipeline can be faster than A + B m: in the brute
 * force of tests/test_search.c a lone replica (L40S tp 4 pp 2, 24
 * micro-batches) runs its pipeline and sync in 0.798 s where A + 24 B is
 * 0.805 s. The real relaxation hides that; whole micro-batches expose it.
 * So a_L, b_L here are A_lo, B_lo (computation only, a lower bound at
 * any degree) plus the range's DP terms. */

/* Floor of x with a relative tolerance upward (a capacity that rounding
 * would lose is kept: the bound may only stay low). */
static double whole_floor_tol(double x)
{
	return floor(x + 1e-9 * fmax(1, fabs(x)));
}

/* c_L(T) (0 when a replica cannot take q_L within T). */
static double whole_cap(const struct whole_layout *L, double T)
{
	if (!(L->b > 0) || L->q < 1 || T < L->a)
		return 0;
	double k = whole_floor_tol((T - L->a) / (L->b * L->q));
	return k >= 1 ? k * L->q : 0;
}

/* The first breakpoint a + b q k (k >= 1) above T over the layouts
 * (HUGE_VAL: none). whole_cap reaches k at it (its tolerance may reach k
 * up to 1e-9 of it earlier, so a caller that takes it as the least
 * feasible step lowers it by that much). */
static double whole_next(const struct whole_layout *L, int n, double T)
{
	double best = HUGE_VAL;
	for (int i = 0; i < n; i++) {
		if (!(L[i].b > 0) || L[i].q < 1 || L[i].max_count < 1)
			continue;
		double w = L[i].b * L[i].q;
		double k = T < L[i].a ? 1 : fmax(1, floor((T - L[i].a) / w) + 1);
		while (L[i].a + w * k <= T)
			k++;
		best = fmin(best, L[i].a + w * k);
	}
	return best;
}

/* One pool's rows: the capacity row and its Chvatal-Gomory cuts. */
static void whole_pool_rows(struct lp *lp, const struct whole_layout *L, const int *col, int n,
			    int p, long cap, int *idx, double *cf)
{
	for (int s = -1; s < n; s++) {
		/* s = -1: the plain row (divisor 1); else the divisor
		 * gpus[p] of layout s, once per distinct value */
		long d = s < 0 ? 1 : L[s].gpus[p];
		if (s >= 0) {
			int dup = d <= 1 || col[s] < 0;
			for (int j = 0; j < s && !dup; j++)
				dup = col[j] >= 0 && L[j].gpus[p] == d;
			if (dup)
				continue;
		}
		int k = 0;
		for (int i = 0; i < n; i++)
			if (col[i] >= 0 && L[i].gpus[p] / d > 0) {
				idx[k] = col[i];
				cf[k++] = (double)(L[i].gpus[p] / d);
			}
		if (k)
			lp_add_row(lp, k, idx, cf, -HUGE_VAL, (double)(cap / d));
	}
}

/* Is step T feasible (the programme above reaches M)? 1 also when GLPK
 * fails (no proof), 0 when proven not. *lps counts the LPs. */
static int whole_feasible(const struct whole_layout *L, int n, const int *cap, int n_pools,
			  long M, long n_lo, long n_hi, double T, int *lps)
{
	struct lp *lp = lp_new(1);
	lp_set_scale(lp, 0);   /* only obj >= M (1 - 1e-9) is read */
	int *col = xmalloc((size_t)(n ? n : 1) * sizeof *col);
	int *idx = xmalloc((size_t)(n ? n : 1) * sizeof *idx);
	double *cf = xmalloc((size_t)(n ? n : 1) * sizeof *cf);
	int used = 0;
	for (int i = 0; i < n; i++) {
		double c = whole_cap(&L[i], T);
		col[i] = c >= 1 && L[i].max_count >= 1
			 ? lp_add_col(lp, 0, L[i].max_count, c, 0) : -1;
		used += col[i] >= 0;
	}
	int ok = 0;
	if (used) {
		for (int p = 0; p < n_pools; p++)
			whole_pool_rows(lp, L, col, n, p, cap[p], idx, cf);
		int k = 0;
		for (int i = 0; i < n; i++)
			if (col[i] >= 0) {
				idx[k] = col[i];
				cf[k++] = L[i].q;
			}
		lp_add_row(lp, k, idx, cf, -HUGE_VAL, (double)M);
		for (int i = 0; i < k; i++)
			cf[i] = 1;
		lp_add_row(lp, k, idx, cf, (double)n_lo, (double)n_hi);
		struct lp_result r;
		int rc = lp_solve(lp, 0, &r);
		(*lps)++;
		if (rc == 0)
			ok = r.obj >= (double)M * (1 - 1e-9);
		else
			ok = r.status != LP_INFEASIBLE;
	}
	free(col);
	free(idx);
	free(cf);
	lp_free(lp);
	return ok;
}

double search_whole_step(const struct whole_layout *L, int n, const int *cap, int n_pools,
			 long M, long n_lo, long n_hi, double t_min, double t_max, int *lps)
{
	if (M < 1 || n_pools > HP_MAX_POOLS || n_lo > n_hi)
		return HUGE_VAL;
	/* lo: proven infeasible (-1: below every floor, where no replica
	 * fits in a step); hi: feasible */
	double lo = -1, hi = HUGE_VAL, first = whole_next(L, n, lo);
	if (!isfinite(first))
		return HUGE_VAL;
	double h = first;
	if (isfinite(t_min) && t_min >= first) {
		if (whole_feasible(L, n, cap, n_pools, M, n_lo, n_hi, t_min, lps))
			return t_min;
		lo = h = t_min;
	}
	/* infeasible at t_max: the least feasible step is above it, which
	 * is all the caller asks */
	if (t_max > h && isfinite(t_max)) {
		if (!whole_feasible(L, n, cap, n_pools, M, n_lo, n_hi, t_max, lps))
			return t_max;
		hi = t_max;
	}
	/* at tbig every replica could take all M micro-batches, so past it
	 * only the rows decide: infeasible there, infeasible everywhere */
	double tbig = 0;
	for (int i = 0; i < n; i++)
		if (L[i].b > 0 && L[i].q >= 1 && L[i].max_count >= 1)
			tbig = fmax(tbig, L[i].a + L[i].b * L[i].q * ceil((double)M / L[i].q));
	for (double d = lo < 0 ? 0 : 0.01 * h; !isfinite(hi) && lo < tbig;
	     d = d > 0 ? 2 * d : 0.01 * h) {
		double t = fmin(h + d, tbig);
		if (whole_feasible(L, n, cap, n_pools, M, n_lo, n_hi, t, lps)) {
			hi = t;
			break;
		}
		lo = t;
	}
	if (!isfinite(hi))
		return HUGE_VAL;
	/* bisect; a test at the first breakpoint above lo that is feasible
	 * is the least feasible step itself. Within 1e-4 of it the
	 * breakpoint above lo is taken (still a bound: lo is infeasible) */
	for (int it = 0; it < 24 && isfinite(hi) && hi - lo > 1e-4 * hi; it++) {
		double nb = whole_next(L, n, lo);
		if (!(nb < hi))
			break;
		double mid = fmax(nb, lo + (hi - lo) / 2);
		if (whole_feasible(L, n, cap, n_pools, M, n_lo, n_hi, mid, lps)) {
			if (mid == nb)
				return fmax(t_min, nb * (1 - 1e-8));
			hi = mid;
		} else {
			lo = mid;
		}
	}
	/* lo is infeasible and feasibility is constant up to the next
	 * breakpoint: the least feasible step is at least that, less
	 * whole_cap's tolerance */
	return fmax(t_min, whole_next(L, n, lo) * (1 - 1e-8));
}

static int overlap_values(const struct plan *p, int k, int *v);

/* The DP terms of layout L (its layer split solved) at d replicas in all:
 * a + b m is at most the exposed data-parallel synchronisation (perf.c's
 * dp_comm: the worst stage's gradient reduce and parameter gather after
 * overlap, and the tied-embedding sum) of one replica group of L with m
 * micro-batches per replica, for every m the setting allows (q, 2q, ...)
 * and every gradient/parameter overlap the framework allows (the least
 * over them). Under ZeRO-1/2 the sync does not depend on m (b = 0); under
 * ZeRO-3 every micro-batch gathers again: dp_comm is the largest of the
 * stages' affine functions of m, so convex, and the chord through m = q
 * and 2q stays under it at q and at every m >= 2q. Adds the estimates to
 * the search's count; a and b stay 0 when one fails. */
static void layout_dp_terms(struct ctx *x, const struct gset *g, const struct layout *L, int d,
			    double *a, double *b)
{
	int q = layout_min_mb(g, L), nm = g->zero == 3 ? 2 : 1;
	double D[2][4];
	int vg[2], vp[2], ng = 0, np = 0;
	*a = *b = 0;
	for (int j = 0; j < nm; j++) {
		int m = q * (j + 1);
		struct plan p;
		plan_globals(&p, x, g);
		p.gbs = g->mbs * d * m;
		add_replica(&p, L, d, m, g->mbs, p.gbs);
		if (!j) {
			ng = overlap_values(&p, 1, vg);
			np = overlap_values(&p, 2, vp);
		}
		for (int v = 0; v < ng * np; v++) {
			p.grad_overlap = vg[v % ng];
			p.param_overlap = vp[v / ng];
			struct hp_err err = { 0 };
			if (estimate_dp(x, &p, &D[j][v], &err) < 0) {
				plan_free(&p);
				return;
			}
			x->res->stats.evaluated++;
			x->res->stats.dp_terms++;
		}
		plan_free(&p);
	}
	double ca = HUGE_VAL, cb = HUGE_VAL;
	for (int v = 0; v < ng * np; v++) {
		double slope = 0;
		if (nm == 2)
			slope = fmin(fmax(0, (D[1][v] - D[0][v]) / q), D[0][v] / q);
		ca = fmin(ca, D[0][v] - slope * q);
		cb = fmin(cb, slope);
	}
	if (isfinite(ca) && isfinite(cb) && ca >= 0 && cb >= 0) {
		*a = ca;
		*b = cb;
	}
}

/* Does layout L fit in memory at d replicas in all with some layer split?
 * The probes and greedy fill of solve_layout, at degree d instead of the
 * largest: memory only falls as the DP degree grows (ZeRO shards divide
 * by it, perf_mem.c), so a layout that fits at no split with d replicas
 * fits with no fewer either, and the bound need not count it for plans of
 * d replicas or fewer (issue 13: DeepSeek-V3 at EP 1, whose layouts fit
 * only at thousands of replicas). 1 when it fits or a probe fails. */
static int layout_fits_at(struct ctx *x, const struct gset *g, const struct layout *L, int d)
{
	int v = g->sched == SCHED_INTERLEAVED ? g->vpp : 1, k[MAX_STAGES];
	struct fit f[MAX_STAGES];
	if (probe_fits(x, g, L, f, d) < 0)
		return 1;
	return fill(f, L->pp, x->m->layers, layout_dense_layers(x->m), v, HUGE_VAL, k) == 0;
}

/* Range t's terms of layout i: whether it fits with t's most replicas,
 * and when it does its DP terms at t's fewest. */
static void range_terms(struct ctx *x, const struct gset *g, struct layouts *ls,
			struct dp_terms *t, int i)
{
	const struct layout *L = &ls->v[i];
	t->done[i] = 1;
	if ((double)HP_MIN(x->max_dp, (int)(x->o->gbs / g->mbs)) > t->n_hi &&
	    !layout_fits_at(x, g, L, (int)t->n_hi)) {
		t->no_fit[i] = 1;
		return;
	}
	layout_dp_terms(x, g, L, (int)t->n_lo, &t->a[i], &t->b[i]);
}

/* Where one range's lazy refinement (dp_range_run) stands. */
struct range_run {
	int waiting;              /* not started: its LP is surely at cut
				   * (range_lp_floor) */
	int round;                /* the next round, 0 to 5 */
	int paused;               /* stopped after its LP at round `round`:
				   * sup, n_sup hold that LP's optimum */
	int n_sup;
	int sup[DP_SUP_MAX];
};

/* One range's LP (no floor search) with its terms refined lazily: the
 * layouts of the relaxed optimum without terms at the range's degree get
 * them, and the LP is solved again, up to six times. *u gets the LP's
 * value, 0 when GLPK fails (no information), HUGE_VAL when the range
 * holds no plan. cut > 0 (a score, step_score's unit): stop after an LP
 * that scores cut or more (returns 0, s->paused set; terms only raise the
 * LP, so the refined value would score that much too); a later call with
 * cut 0 resumes where it stopped and ends as one uninterrupted run would
 * have (the rounds read only t and the layouts). Returns 1 when done. */
static int dp_range_run(struct ctx *x, const struct gset *g, struct layouts *ls,
			struct dp_terms *t, struct range_run *s, double cut, double *u)
{
	for (; s->round < 6 && !search_cancelled(x); s->round++) {
		if (!s->paused) {
			s->n_sup = 0;
			*u = lp_pipe_bound(x, g, ls, HUGE_VAL, t, 0, s->sup, &s->n_sup);
			if (!(*u > 0) || !isfinite(*u))
				break;
			if (cut > 0 && step_score(x, g, *u) >= cut) {
				s->paused = 1;
				return 0;
			}
		}
		s->paused = 0;
		int added = 0;
		for (int i = 0; i < s->n_sup; i++)
			if (!t->done[s->sup[i]]) {
				range_terms(x, g, ls, t, s->sup[i]);
				added++;
			}
		if (!added)
			break;
		if (s->round == 5)
			*u = lp_pipe_bound(x, g, ls, HUGE_VAL, t, 0, NULL, NULL);
	}
	s->paused = 0;
	s->round = 6;
	if (*u < 0)
		*u = 0;
	return 1;
}

/* dp_range_run from its first round to its end. */
static double dp_range_lp(struct ctx *x, const struct gset *g, struct layouts *ls,
			  struct dp_terms *t, struct range_run *s)
{
	double u = 0;
	memset(s, 0, sizeof *s);
	dp_range_run(x, g, ls, t, s, 0, &u);
	return u;
}

/* dp_bound's DP ranges ([1,1], [2,3], [4,7], ...): at most this many. */
enum { DP_MAX_RANGES = 40 };

/* The range not yet seen whose LP bound u is least (marked seen), or -1
 * when every one of the nr has been: dp_bound and whole_ranges visit the
 * ranges in this order. */
static int next_range(const double *u, int nr, char *seen)
{
	int r = -1;
	for (int i = 0; i < nr; i++)
		if (!seen[i] && (r < 0 || u[i] < u[r]))
			r = i;
	if (r >= 0)
		seen[r] = 1;
	return r;
}

/* search_whole_step over the setting's layouts for one DP range dt (or
 * none), at least t_min and at most t_max (search_whole_step). The
 * pipeline terms are A_lo, B_lo (no PP, CP or
 * EP communication, a lower bound at any DP degree; the A, B of the LPs
 * are probed at the largest degree, where a pipeline's neighbours may sit
 * farther apart than in a plan of fewer replicas), plus dt's DP terms.
 * Throughput only: under a budget the budget row would shrink as T grows,
 * so feasibility would not be monotone. HUGE_VAL: no plan in the range. */
static double whole_step(struct ctx *x, const struct gset *g, const struct layouts *ls,
			 const struct dp_terms *dt, double t_min, double t_max)
{
	struct whole_layout *W = xcalloc((size_t)(ls->n ? ls->n : 1), sizeof *W);
	int n = 0;
	for (int i = 0; i < ls->n; i++) {
		const struct layout *L = &ls->v[i];
		if (!L->fits || L->max_count < 1 || (dt && dt->no_fit[i]))
			continue;
		W[n].a = L->A_lo + (dt ? dt->a[i] : 0);
		W[n].b = L->B_lo + (dt ? dt->b[i] : 0);
		W[n].q = layout_min_mb(g, L);
		memcpy(W[n].gpus, L->gpus, sizeof W[n].gpus);
		W[n].max_count = L->max_count;
		n++;
	}
	long M = x->o->gbs / g->mbs;
	long n_lo = dt ? (long)dt->n_lo : 1;
	long n_hi = dt ? (long)dt->n_hi : HP_MIN(M, (long)x->max_dp);
	int lps = 0;
	double t0 = hp_now();
	double t = search_whole_step(W, n, x->cap, x->c->n_pools, M, n_lo, n_hi, t_min, t_max,
				     &lps);
	x->res->stats.lp_s += hp_now() - t0;
	x->res->stats.lp_solves += lps;
	free(W);
	return t;
}

/* The whole-replica bound of a setting over dp_bound's nr ranges: the
 * least over the ranges of search_whole_step (every plan lies in one
 * range, so the least holds for every plan). It only matters when it is
 * above lp_step (dp_bound's LP bound), so the ranges are visited in order
 * of their LP and the visit stops at the first one at or under floor.
 * Ranges whose LP holds no plan (u HUGE_VAL: the same rows, fewer
 * columns) are skipped. */
static double whole_ranges(struct ctx *x, const struct gset *g, const struct layouts *ls,
			   const struct dp_terms *dt, const double *u, int nr, double lp_step)
{
	if (x->o->objective != OBJ_THROUGHPUT)
		return 0;
	double least = HUGE_VAL;
	char seen[DP_MAX_RANGES] = { 0 };
	assert(nr <= DP_MAX_RANGES);
	while (least > lp_step) {
		int r = next_range(u, nr, seen);
		if (r < 0 || !isfinite(u[r]) || search_cancelled(x))
			break;
		double wr = whole_step(x, g, ls, &dt[r], lp_step, least);
		least = fmin(least, wr);
	}
	return isfinite(least) ? least : 0;
}

/* A lower bound on range t's LP (lp_pipe_bound with t, every floor)
 * without solving it: the LP with only its first row and the most
 * replicas' row, min M t + sum y_L A_L / B_L over sum y_L / B_L = 1 and
 * sum y_L <= n_hi t. With w_L = y_L / B_L its value is the least over the
 * LP's layouts of A_L + B_L M / n_hi (every replica of one layout, as
 * many as the range allows; A, B with t's terms); dropping rows only
 * lowers an LP. HUGE_VAL when no layout qualifies (the LP then holds no
 * plan either). */
static double range_lp_floor(const struct ctx *x, const struct gset *g,
			     const struct layouts *ls, const struct dp_terms *t)
{
	double M = (double)(x->o->gbs / g->mbs), least = HUGE_VAL;
	for (int i = 0; i < ls->n; i++) {
		const struct layout *L = &ls->v[i];
		if (!L->fits || L->max_count < 1 || t->no_fit[i])
			continue;
		least = fmin(least, term_a(L, t, i) + term_b(L, t, i) * M / t->n_hi);
	}
	return least;
}

/* Would dp_bound's last loop stop at its first range with the LPs u
 * now? That is, is the least of them finite and does it score cut or
 * more? Refining a range's terms only raises its LP (terms are added, a
 * layout that does not fit leaves), so once this holds it holds for the
 * refined LPs too, and the setting's bound is cut or more whatever else
 * is computed. */
static int ranges_at_cut(const struct ctx *x, const struct gset *g, const double *u, int nr,
			 double cut)
{
	double least = HUGE_VAL;
	for (int i = 0; i < nr; i++)
		least = fmin(least, u[i]);
	return isfinite(least) && step_score(x, g, least) >= cut;
}

/* dp_bound's refinement after every range's lazy terms: up to five
 * times, all terms at one range's degree, then the ranges from there up
 * solved again. Returns 1 as soon as every range's LP scores cut or more
 * (ranges_at_cut), else 0. */
static int dp_refine(struct ctx *x, const struct gset *g, struct layouts *ls,
		     struct dp_terms *dt, struct range_run *rs, double *u, int nr, double cut)
{
	char full[DP_MAX_RANGES] = { 0 };
	for (int pass = 0; pass < 5 && !search_cancelled(x); pass++) {
		int r = -1;
		for (int i = 0; i < nr; i++)
			if (u[i] > 0 && isfinite(u[i]) && (r < 0 || u[i] < u[r]))
				r = i;
		/* first the fewest replicas whose LP is within half again of
		 * the least: its terms hold for every range above it */
		for (int i = 0; !pass && r >= 0 && i < r; i++)
			if (u[i] > 0 && u[i] <= 1.5 * u[r]) {
				r = i;
				break;
			}
		if (r < 0 || full[r])
			break;
		full[r] = 1;
		for (int i = 0; i < ls->n && !search_cancelled(x); i++) {
			if (dt[r].done[i] || !ls->v[i].fits || ls->v[i].max_count < 1)
				continue;
			range_terms(x, g, ls, &dt[r], i);
			for (int j = 0; j < r && dt[r].no_fit[i]; j++)
				dt[j].no_fit[i] = dt[j].done[i] = 1;   /* fewer replicas: more memory */
			int q = layout_min_mb(g, &ls->v[i]);
			for (int j = r + 1; j < nr; j++)
				if (!dt[j].done[i] &&
				    dt[r].a[i] + dt[r].b[i] * q > dt[j].a[i] + dt[j].b[i] * q) {
					dt[j].a[i] = dt[r].a[i];
					dt[j].b[i] = dt[r].b[i];
				}
		}
		for (int j = r; j < nr && !search_cancelled(x); j++)
			if (u[j] > 0 && isfinite(u[j]))
				u[j] = dp_range_lp(x, g, ls, &dt[j], &rs[j]);
		if (ranges_at_cut(x, g, u, nr, cut))
			return 1;
	}
	return 0;
}

/* dp_bound's last step: the ranges in order of their LP, each with its
 * floor search, and the whole-replica bound; see dp_bound. */
static double dp_least(struct ctx *x, const struct gset *g, struct layouts *ls,
		       struct dp_terms *dt, const double *u, int nr, double cut, int *cut_hit,
		       int *fsup, int *n_fsup)
{
	/* the ranges in order of their LP; each one's floor is at least its LP,
	 * so once an LP reaches the least floor so far, no later range is
	 * lower */
	double best = HUGE_VAL;
	char seen[DP_MAX_RANGES] = { 0 };
	for (;;) {
		int r = next_range(u, nr, seen);
		if (r < 0 || u[r] >= best || search_cancelled(x))
			break;
		if (step_score(x, g, u[r]) >= cut) {
			/* this range and every later one give cut or more */
			*cut_hit = 1;
			break;
		}
		int s_r[HP_MAX_POOLS + 1], n_r = 0;
		double f = u[r] > 0 && isfinite(u[r]) ? pipe_floor(x, g, ls, &dt[r], HUGE_VAL, s_r, &n_r)
						      : u[r];
		f = fmax(f, u[r]);
		if (f < best) {
			memcpy(fsup, s_r, (size_t)n_r * sizeof *fsup);
			*n_fsup = n_r;
		}
		best = fmin(best, f);
	}
	if (!*cut_hit && isfinite(best) && step_score(x, g, best) < cut && !search_cancelled(x))
		best = fmax(best, whole_ranges(x, g, ls, dt, u, nr, best));
	if (!*cut_hit && !isfinite(best) && !search_cancelled(x))
		*cut_hit = 1;   /* no range holds a plan */
	return best;
}

/* The throughput bound with data-parallel synchronisation (issue 13: on
 * 65,536 GPUs it is a quarter of the plan's step). The replicas in all, N,
 * set the DP degree; split N into ranges [1], [2, 3], [4, 7], ... For N in
 * [lo, hi], every plan's step is at least A_L + a_L + (B_L + b_L) m_L for
 * each layout L it uses, with a_L + b_L m the DP terms at lo replicas
 * (layout_dp_terms): a stage's synchronisation grows with the DP degree
 * (the ring's (d-1)/d share, its latency steps and Megatron-Core's bucket
 * of max(40M, 1M x d) parameters, whose last one stays exposed, all grow
 * with d), so terms at a lower degree hold too. A layout without terms
 * counts 0, which stays a lower bound, and a layout that fits at no split
 * with a range's most replicas leaves that range and every lower one
 * (range_terms). Terms are computed lazily (dp_range_lp), then, up to
 * five times, for every layout at one range's degree (first the fewest
 * replicas whose LP is within 1.5x of the least, then the least): every
 * range above it takes them where it has none of its own, and the ranges
 * from there up are solved again; the relaxed optimum otherwise drifts to
 * layouts without terms. Last, the ranges whose LP could still give the
 * least get the floor search (pipe_floor). Returns the least over the
 * ranges (seconds, like pipe_floor), or 0 when there is nothing to add.
 *
 * Assumed, not proven for every cluster: the sync grows with the DP
 * degree (perf_comm.c's collectives and buckets do for a fixed message);
 * the terms are estimated on L's replicas alone, whose DP groups cross
 * L's own pools' links, and beside other pools a group runs at its
 * slowest member's link (comm_fabric_min), which is taken to be no
 * faster, although NCCL's tables then follow the older generation. The
 * brute-force tests check the bound (tests/test_search.c).
 *
 * cut (a score, step_score's unit): the search's bound so far. Only a
 * setting whose bound is under it can lower the search's bound, so the
 * ranges are visited in order of their LP and the visit stops, with
 * *cut_hit = 1, at the first range whose LP alone scores cut or more
 * (its floor and every later range's only add): then the setting's
 * bound is at least cut, and the caller takes cut for it. Ranges under
 * cut are solved in full, so a returned step under cut is exact. The
 * refinement stops as soon as every range's LP scores cut or more (terms
 * only raise an LP, so the visit would stop at its first range), and so
 * does a range's own refinement while others may still be under cut
 * (dp_range_run; finished when they are). A setting none of whose ranges
 * holds a plan (every LP or floor infeasible) has no plan: *cut_hit = 1. */
static double dp_bound(struct ctx *x, const struct gset *g, struct layouts *ls, double cut,
		       int *cut_hit, int *fsup, int *n_fsup)
{
	*cut_hit = 0;
	long M = x->o->gbs / g->mbs;
	long nmax = HP_MIN(M, (long)x->max_dp);
	if (nmax < 1 || !ls->n)
		return 0;
	struct dp_terms dt[DP_MAX_RANGES];
	double u[DP_MAX_RANGES], best = HUGE_VAL;
	int nr = 0;
	struct range_run *rs = xcalloc(DP_MAX_RANGES, sizeof *rs);
	for (long lo = 1; lo <= nmax && nr < DP_MAX_RANGES; lo *= 2, nr++) {
		struct dp_terms *t = &dt[nr];
		t->n_lo = (double)lo;
		t->n_hi = (double)HP_MIN(2 * lo - 1, nmax);
		t->a = xcalloc((size_t)ls->n, sizeof *t->a);
		t->b = xcalloc((size_t)ls->n, sizeof *t->b);
		t->done = xcalloc((size_t)ls->n, 1);
		t->no_fit = xcalloc((size_t)ls->n, 1);
		/* a range whose LP surely scores cut (with a margin far above
		 * GLPK's last bits) waits: solved only if another is under */
		u[nr] = range_lp_floor(x, g, ls, t);
		rs[nr].waiting = step_score(x, g, u[nr]) >= cut * (1 + 1e-9);
		if (!rs[nr].waiting) {
			u[nr] = 0;
			dp_range_run(x, g, ls, t, &rs[nr], cut, &u[nr]);
		}
	}
	*cut_hit = ranges_at_cut(x, g, u, nr, cut);
	for (int r = 0; r < nr && !*cut_hit; r++)
		if (rs[r].paused || rs[r].waiting) {
			if (rs[r].waiting)
				u[r] = 0;
			rs[r].waiting = 0;
			dp_range_run(x, g, ls, &dt[r], &rs[r], 0, &u[r]);
		}
	if (!*cut_hit)
		*cut_hit = dp_refine(x, g, ls, dt, rs, u, nr, cut);
	if (!*cut_hit)
		best = dp_least(x, g, ls, dt, u, nr, cut, cut_hit, fsup, n_fsup);
	free(rs);
	for (int i = 0; i < nr; i++) {
		free(dt[i].a);
		free(dt[i].b);
		free(dt[i].done);
		free(dt[i].no_fit);
	}
	return isfinite(best) ? best : 0;
}

/* The search's bound so far (a score; HUGE_VAL: none yet): the least
 * over the settings merged, here and in the shared context, whose bound
 * is frozen during a batch, so it is the same for every thread count. */
static double search_cut(const struct ctx *x)
{
	double cut = HUGE_VAL;
	for (const struct ctx *y = x; y; y = y->glob)
		if (y->have_bound)
			cut = fmin(cut, y->bound);
	return cut;
}

/* LP bound on tokens/s for one global setting: pipe_floor's least step
 * (no DP terms; bound_finish may add them) plus the fixed per-step
 * overhead (perf.c, step_overhead_s); synchronisation, the optimizer and
 * integrality only add time, so the bound holds for every plan of this
 * setting the planner can build. sup gets the layouts of the relaxed
 * optimum, for search_gset to try as a set. Without sup, a
 * setting whose bound is the search's bound so far or more gets the whole
 * set's LP alone (pipe_floor's cut): bound_finish raises it no further
 * and the search's bound, the least over the settings, is the same. */
static double lp_rate_bound(struct ctx *x, const struct gset *g, struct layouts *ls, int *sup,
			    int *n_sup)
{
	int n = 0;
	double best = pipe_floor(x, g, ls, NULL, search_cut(x), sup, &n);
	if (sup)
		*n_sup = n;
	if (best == 0)
		return 0;
	if (!isfinite(best))
		return HUGE_VAL;   /* no bound from this setting */
	best += perf_calib_default()->step_overhead_s;
	return (double)(x->o->gbs / g->mbs) * g->mbs * x->seq / best;
}

/* Lower bound on USD per token for one setting: the cheapest layout's cost
 * rate over its asymptotic token rate (node rounding only adds cost). */
static double cost_bound(const struct ctx *x, const struct gset *g, const struct layouts *ls)
{
	double best = HUGE_VAL;
	for (int i = 0; i < ls->n; i++) {
		const struct layout *L = &ls->v[i];
		if (!L->fits || L->max_count < 1 || !L->price_known)
			continue;
		double tok_s = g->mbs * (double)x->seq / L->B;
		best = fmin(best, L->usd_h / 3600 / tok_s);
	}
	return best;
}

/* Score one layout set: the two-pool layout H (or none) and, per pool,
 * choice[p] - 1 into its kept layouts (0: the pool is not used). */
static void try_set(struct ctx *x, const struct gset *g, const struct layout *H,
		    const struct layout **const *per_pool, const int *choice, int n_pools)
{
	const struct layout *Ls[HP_MAX_POOLS + 1];
	int n = 0;
	if (H)
		Ls[n++] = H;
	for (int p = 0; p < n_pools; p++)
		if (choice[p])
			Ls[n++] = per_pool[p][choice[p] - 1];
	if (n && !search_cancelled(x))
		counts_for_set(x, g, Ls, n);
}

/* Single-pool layouts: per pool, TP a power of two in a node, PP up the
 * ladder; deeper pipelines than the shallowest that fits only add bubble
 * and p2p, so two more rungs are kept (memory and batch-split effects). */
static void single_pool_layouts(struct ctx *x, const struct gset *g, struct layouts *ls)
{
	const struct cluster *c = x->c;
	const struct search_opts *o = x->o;
	for (int p = 0; p < c->n_pools; p++)
		for (int tp = 1; tp <= c->pools[p].gpus_per_node; tp *= 2) {
			if (!tp_ok(x->m, &c->pools[p], tp) || (o->fix_tp && tp != o->fix_tp))
				continue;
			int since_fit = -1;
			for (size_t j = 0; j < HP_ARRAY_LEN(pp_ladder); j++) {
				int pp = pp_ladder[j];
				if (pp > x->m->layers || (long)pp * tp * g->cp > x->cap[p])
					break;
				if (!x->exhaustive && !o->fix_pp && since_fit >= 2)
					break;
				if ((o->fix_pp && pp != o->fix_pp) ||
				    (g->sched == SCHED_INTERLEAVED && pp < 2))
					continue;
				if (search_cancelled(x))
					return;
				struct layout *L = layouts_push(ls);
				L->nseg = 1;
				L->seg[0] = (struct seg){ p, tp, pp };
				layout_size(x, g, L);
				solve_layout(x, g, L);
				if (since_fit >= 0 || L->fits)
					since_fit++;
			}
		}
}

/* Each pool's TP in two-pool layouts: that of its fastest single-pool
 * layout (best_tp), or the largest valid one when nothing fits on it
 * alone, and the largest valid one besides (wide_tp). A layout's rate
 * leaves out the data-parallel terms, which fall with the number of
 * replicas: under ZeRO-3 every micro-batch gathers the weights across the
 * replicas, and a single wide pipeline over both pools (no DP group at
 * all) can beat many narrow replicas that each run faster per GPU. */
static void pair_tps(const struct ctx *x, const struct layouts *ls, int n_single,
		     int *best_tp, int *wide_tp)
{
	const struct cluster *c = x->c;
	for (int p = 0; p < c->n_pools; p++) {
		double br = -1;
		best_tp[p] = wide_tp[p] = 0;
		for (int tp = 1; tp <= c->pools[p].gpus_per_node; tp *= 2)
			if (tp_ok(x->m, &c->pools[p], tp) && (!x->o->fix_tp || tp == x->o->fix_tp))
				wide_tp[p] = tp;
		for (int i = 0; i < n_single; i++) {
			const struct layout *L = &ls->v[i];
			if (L->fits && L->seg[0].pool == p && L->max_count >= 1 && L->rate > br) {
				br = L->rate;
				best_tp[p] = L->seg[0].tp;
			}
		}
		if (!best_tp[p])
			best_tp[p] = wide_tp[p];
	}
}

/* Two-pool layouts of pools a (first stages, TP ta) and b (TP tb): PP up
 * the ladder, the split point every stage while PP <= 4 (or exhaustive),
 * else in quarters. Only layouts that fit are kept. */
static void pair_layouts(struct ctx *x, const struct gset *g, struct layouts *ls, int a, int b,
			 int ta, int tb)
{
	const struct search_opts *o = x->o;
	int since_fit = -1;
	for (size_t j = 1; j < HP_ARRAY_LEN(pp_ladder); j++) {
		int pp = pp_ladder[j];
		if (pp > x->m->layers || (!x->exhaustive && !o->fix_pp && since_fit >= 2))
			break;
		if (o->fix_pp && pp != o->fix_pp)
			continue;
		int fit_here = 0;
		int step = x->exhaustive || pp <= 4 ? 1 : (pp + 3) / 4;
		for (int sa = 1; sa < pp; sa += step) {
			int sb = pp - sa;
			if ((long)sa * ta * g->cp > x->cap[a] || (long)sb * tb * g->cp > x->cap[b])
				continue;
			if (search_cancelled(x))
				return;
			struct layout *L = layouts_push(ls);
			L->nseg = 2;
			L->seg[0] = (struct seg){ a, ta, sa };
			L->seg[1] = (struct seg){ b, tb, sb };
			layout_size(x, g, L);
			solve_layout(x, g, L);
			if (!L->fits)
				ls->n--;
			else
				fit_here = 1;
		}
		if (since_fit >= 0 || fit_here)
			since_fit++;
	}
}

/* Cross-pool layouts: every ordered pair of pools, each pool's TP among
 * best_tp and wide_tp (every TP when exhaustive). */
static void cross_pool_layouts(struct ctx *x, const struct gset *g, struct layouts *ls,
			       const int *best_tp, const int *wide_tp)
{
	const struct cluster *c = x->c;
	const struct search_opts *o = x->o;
	if (o->no_hetero || c->n_pools < 2)
		return;
	for (int a = 0; a < c->n_pools; a++)
		for (int b = 0; b < c->n_pools; b++) {
			if (a == b)
				continue;
			for (int ta = 1; ta <= c->pools[a].gpus_per_node; ta *= 2)
				for (int tb = 1; tb <= c->pools[b].gpus_per_node; tb *= 2) {
					if (!tp_ok(x->m, &c->pools[a], ta) ||
					    !tp_ok(x->m, &c->pools[b], tb) ||
					    (o->fix_tp && (ta != o->fix_tp || tb != o->fix_tp)))
						continue;
					if (!x->exhaustive &&
					    ((ta != best_tp[a] && ta != wide_tp[a]) ||
					     (tb != best_tp[b] && tb != wide_tp[b])))
						continue;
					pair_layouts(x, g, ls, a, b, ta, tb);
				}
		}
}

/* Bound update: the best objective this setting's layouts could reach
 * (LP rate bound for throughput and budget, cheapest layout otherwise).
 * Returns it, or -1 when the setting gives none; bound_finish merges it
 * into the search's bound (the best over settings). sup gets the relaxed
 * optimum's layouts for throughput, and only where lp_support_set could
 * use them: a support of two or more two-pool layouts needs two in ls
 * (else *n_sup = 0, and the LP bound may skip its floor search). */
static double bound_update(struct ctx *x, const struct gset *g, struct layouts *ls, int *sup,
			   int *n_sup)
{
	const struct search_opts *o = x->o;
	*n_sup = 0;
	if (o->objective == OBJ_THROUGHPUT || o->objective == OBJ_BUDGET) {
		int cross = 0;
		for (int i = 0; i < ls->n && cross < 2; i++)
			cross += ls->v[i].nseg == 2;
		double r = lp_rate_bound(x, g, ls, o->objective == OBJ_THROUGHPUT && cross >= 2
						   ? sup : NULL, n_sup);
		if (!(r > 0) || !isfinite(r))
			return -1;
		return o->objective == OBJ_THROUGHPUT ? 1.0 / r : x->tokens / r;
	}
	double cb = cost_bound(x, g, ls);
	if (!isfinite(cb))
		return -1;
	return o->objective == OBJ_COST ? cb * 1e6 : cb * x->tokens;
}

/* After the setting's layout sets are tried: for throughput and budget,
 * when the setting's bound b still beats the best plan kept so far (here
 * or in the shared context, frozen during a batch, so the same for every
 * thread count), raise it by the data-parallel terms (dp_bound); then
 * merge it into the search's bound. A setting whose bound the best plan
 * already reaches cannot set the search's bound (the best plan's own
 * setting bounds it from above), so it is left as it is: the search's
 * bound is the same as with every setting raised, for a fraction of the
 * LPs and estimates. fsup gets the layouts of the optimum the raised
 * bound came from (*n_fsup of them, at most HP_MAX_POOLS + 1; none when
 * it was not raised). */
static void bound_finish(struct ctx *x, const struct gset *g, struct layouts *ls, double b,
			 int *fsup, int *n_fsup)
{
	*n_fsup = 0;
	const struct search_opts *o = x->o;
	if (b < 0)
		return;
	if (o->objective == OBJ_THROUGHPUT || o->objective == OBJ_BUDGET) {
		double best = HUGE_VAL, cut = search_cut(x);
		for (const struct ctx *y = x; y; y = y->glob)
			if (y->n_top)
				best = fmin(best, y->top[0].score);
		/* b >= cut: raising b cannot lower the search's bound, which
		 * is cut or less already (frozen during a batch, so the same
		 * for every thread count) */
		int cut_hit = 0;
		double step = b < best && b < cut && !search_cancelled(x)
			      ? dp_bound(x, g, ls, cut, &cut_hit, fsup, n_fsup) : 0;
		if (cut_hit) {
			b = fmax(b, cut);
			*n_fsup = 0;
		}
		else if (step > 0)
			b = fmax(b, step_score(x, g, step));
	}
	if (!x->have_bound || b < x->bound)
		x->bound = b;
	x->have_bound = 1;
}

/* Shortlist of pool p's single-pool layouts (n_single first in ls), best
 * rate first; more than keep are cut to keep, chosen in this order: the
 * best by rate per GPU and the best when the batch limits the replicas
 * (wider layouts win when there are fewer micro-batches than replicas),
 * alternately; then the best of each TP degree. Returns a new array
 * (caller frees) and its length in *n. */
static const struct layout **shortlist_pool(struct ctx *x, const struct gset *g,
					    struct layouts *ls, int n_single, int p, int keep,
					    int *n)
{
	const struct layout **all = xmalloc((size_t)(n_single + 1) * sizeof *all);
	int n_all = 0;
	for (int i = 0; i < n_single; i++)
		if (ls->v[i].fits && ls->v[i].seg[0].pool == p && ls->v[i].max_count >= 1)
			all[n_all++] = &ls->v[i];
		else
			x->res->stats.pruned += ls->v[i].seg[0].pool == p && !ls->v[i].fits;
	qsort(all, (size_t)n_all, sizeof *all, cmp_rate);
	*n = n_all;
	if (n_all <= keep)
		return all;
	long M = x->o->gbs / g->mbs;
	int k = 0;
	const struct layout **sel = xmalloc((size_t)n_all * sizeof *sel);
	for (int step = 0; step < 3 * n_all && k < keep; step++) {
		int kind = step < 2 * n_all ? step % 2 : 2;
		const struct layout *best = NULL;
		double bv = -1;
		for (int i = 0; i < n_all; i++) {
			const struct layout *L = all[i];
			int dup = 0, have_tp = 0;
			for (int j = 0; j < k; j++) {
				dup |= sel[j] == L;
				have_tp |= sel[j]->seg[0].tp == L->seg[0].tp;
			}
			if (dup || (kind == 2 && have_tp))
				continue;
			double v = kind == 1 ? HP_MIN(L->max_count, M) / L->B : L->rate;
			if (v > bv) {
				bv = v;
				best = L;
			}
		}
		if (best)
			sel[k++] = best;
	}
	free(all);
	*n = k;
	return sel;
}

/* Shortlist of the two-pool layouts (from first in ls): the best keep by
 * rate, and of those with the widest TP on both pools (fewest replicas:
 * least DP traffic, see pair_tps) the best when the batch limits the
 * replicas. Returns a new array (caller frees), its length in *n. */
static const struct layout **shortlist_cross(const struct ctx *x, const struct gset *g,
					     struct layouts *ls, int first, const int *wide_tp,
					     int keep, int *n)
{
	int n_het = ls->n - first;
	const struct layout **het = xmalloc((size_t)(n_het + 1) * sizeof *het);
	for (int i = 0; i < n_het; i++)
		het[i] = &ls->v[first + i];
	qsort(het, (size_t)n_het, sizeof *het, cmp_rate);
	if (n_het > keep) {
		long M = x->o->gbs / g->mbs;
		int wide = -1;
		double bv = -1;
		for (int i = 0; i < n_het; i++) {
			const struct layout *L = het[i];
			double v = HP_MIN(L->max_count, M) / L->B;
			if (L->seg[0].tp == wide_tp[L->seg[0].pool] &&
			    L->seg[1].tp == wide_tp[L->seg[1].pool] && v > bv) {
				bv = v;
				wide = i;
			}
		}
		if (wide >= keep)
			het[keep++] = het[wide];
		n_het = keep;
	}
	*n = n_het;
	return het;
}

/* Layout-set trials with the two-pool layout H (or none): every
 * combination of "each pool one of its shortlisted layouts or none"
 * while there are at most 4,096, else a neighbourhood of "every pool on
 * its best layout": every pool on its j-th, each pool alone, all but one
 * pool, and each pool switched to one of its other layouts. */
static void layout_set_trials(struct ctx *x, const struct gset *g, const struct layout *H,
			      const struct layout **const *per_pool, const int *n_pp)
{
	int np = x->c->n_pools, choice[HP_MAX_POOLS] = { 0 }, best[HP_MAX_POOLS], most = 0;
	double n_sets = 1;
	for (int p = 0; p < np; p++)
		n_sets *= n_pp[p] + 1;
	if (n_sets <= 4096) {
		for (;;) {
			if (search_cancelled(x))
				return;
			try_set(x, g, H, per_pool, choice, np);
			int p = 0;
			for (; p < np; p++) {
				if (++choice[p] <= n_pp[p])
					break;
				choice[p] = 0;
			}
			if (p == np)
				return;
		}
	}
	for (int p = 0; p < np; p++) {
		best[p] = n_pp[p] ? 1 : 0;
		most = HP_MAX(most, n_pp[p]);
	}
	for (int j = 1; j <= most; j++) {
		for (int p = 0; p < np; p++)
			choice[p] = HP_MIN(j, n_pp[p]);
		try_set(x, g, H, per_pool, choice, np);
	}
	for (int q = 0; q < np && !H; q++) {
		if (!n_pp[q])
			continue;
		memset(choice, 0, sizeof choice);
		choice[q] = 1;
		try_set(x, g, NULL, per_pool, choice, np);
	}
	for (int q = 0; q < np; q++) {
		if (!n_pp[q])
			continue;
		memcpy(choice, best, sizeof choice);
		choice[q] = 0;
		try_set(x, g, H, per_pool, choice, np);
		for (int j = 2; j <= n_pp[q]; j++) {
			choice[q] = j;
			try_set(x, g, H, per_pool, choice, np);
		}
	}
}

/* The pools layout L runs on, one bit each. */
static unsigned layout_pools(const struct ctx *x, const struct layout *L)
{
	unsigned m = 0;
	for (int p = 0; p < x->c->n_pools; p++)
		if (L->gpus[p] > 0)
			m |= 1u << p;
	return m;
}

/* A subset of layouts that share no pool (pools[i]: layout i's pools,
 * w[i]: its weight) and the search for the best one. */
struct packing {
	const unsigned *pools;
	const double *w;
	int n;
	int cur[HP_MAX_POOLS + 1], best[HP_MAX_POOLS + 1];
	int n_best;
	double w_best;
};

/* The largest subset of layouts i..n-1 that share no pool, given the
 * pools taken already (cur holds n_cur of them, weighing wsum); at equal
 * size the heaviest, at equal weight the first found. Exhaustive with a
 * size cut: n is at most HP_MAX_POOLS + 1, and a support's layouts
 * conflict little. */
static void packing_search(struct packing *k, int i, unsigned taken, int n_cur, double wsum)
{
	if (n_cur + (k->n - i) < k->n_best)
		return;
	if (i == k->n) {
		if (n_cur > k->n_best || wsum > k->w_best) {
			memcpy(k->best, k->cur, (size_t)n_cur * sizeof *k->best);
			k->n_best = n_cur;
			k->w_best = wsum;
		}
		return;
	}
	if (!(k->pools[i] & taken)) {
		k->cur[n_cur] = i;
		packing_search(k, i + 1, taken | k->pools[i], n_cur + 1, wsum + k->w[i]);
	}
	packing_search(k, i + 1, taken, n_cur, wsum);
}

/* Layout set Ls (n layouts) tried alone and with each pool it leaves
 * unused on that pool's best layout. */
static void support_set_try(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
			    const struct layout **const *per_pool, const int *n_pp)
{
	unsigned used = 0;
	for (int i = 0; i < n; i++)
		used |= layout_pools(x, Ls[i]);
	counts_for_set(x, g, Ls, n);
	int more = n;
	for (int p = 0; p < x->c->n_pools && more < HP_MAX_POOLS + 1; p++)
		if (!(used & 1u << p) && n_pp[p])
			Ls[more++] = per_pool[p][0];
	if (more > n && !search_cancelled(x))
		counts_for_set(x, g, Ls, more);
}

/* The layouts of the throughput bound's relaxed optimum as one set, when
 * it holds two or more two-pool layouts (the sets above hold at most
 * one): on clusters of many pools the optimum often pairs them up (a
 * pipeline from each pool of one type into one of another), and those
 * plans are the ones that use the GPUs the batch can keep busy. Tried
 * alone and with each pool it leaves unused on its best layout.
 *
 * A relaxed optimum may be degenerate: it can split a pool's GPUs between
 * layouts that pair it with different partners (p2>p3 and p2>p15), and
 * replica counts filled greedily over such a set leave some layouts short
 * (issue 13, 65,536 GPUs at --gbs 4080: the support held 7 overlapping
 * pairs, and the plans it gave reached 4.17M tokens/s where 1,020
 * pipelines over 4 disjoint pairs run at about 5.2M). So the largest
 * subset of the support whose layouts share no pool is tried as well,
 * when it is smaller than the support and still holds two two-pool
 * layouts; at equal size the one whose layouts can hold the most GPUs
 * (each as many replicas as fit on the cluster alone), so that a pool
 * is not left idle for want of its partner. */
static void lp_support_set(struct ctx *x, const struct gset *g, const struct layouts *ls,
			   const int *sup, int n_sup, const struct layout **const *per_pool,
			   const int *n_pp)
{
	const struct layout *Ls[HP_MAX_POOLS + 1];
	unsigned pools[HP_MAX_POOLS + 1];
	double w[HP_MAX_POOLS + 1];
	int n = 0, cross = 0;
	for (int i = 0; i < n_sup; i++) {
		const struct layout *L = &ls->v[sup[i]];
		pools[n] = layout_pools(x, L);
		w[n] = (double)L->max_count * L->size;
		Ls[n++] = L;
		cross += L->nseg == 2;
	}
	if (cross < 2 || search_cancelled(x))
		return;
	struct packing k = { .pools = pools, .w = w, .n = n, .n_best = 0, .w_best = -1 };
	packing_search(&k, 0, 0, 0, 0);
	const struct layout *D[HP_MAX_POOLS + 1];
	int d_cross = 0;
	for (int i = 0; i < k.n_best; i++) {
		D[i] = Ls[k.best[i]];
		d_cross += D[i]->nseg == 2;
	}
	int n_pick = k.n_best;
	support_set_try(x, g, Ls, n, per_pool, n_pp);
	if (n_pick < n && d_cross >= 2 && !search_cancelled(x))
		support_set_try(x, g, D, n_pick, per_pool, n_pp);
}

/* One global setting: enumerate and solve the layouts, update the bound,
 * shortlist, and try the layout sets (each with its replica counts).
 * Returns 1 when it finished, 0 when a cancel cut it short (what it found
 * stands; its bound is not merged). */
static int search_gset(struct ctx *x, const struct gset *g)
{
	const struct cluster *c = x->c;
	struct layouts ls = { 0 };
	/* the cluster and model stay as they are for the whole search
	 * (search_run's contract): estimates skip comparing them */
	struct perf_memo_pin saved;
	perf_memo_pin(c, x->m, &saved);
	int best_tp[HP_MAX_POOLS], wide_tp[HP_MAX_POOLS];
	single_pool_layouts(x, g, &ls);
	int n_single = ls.n;
	pair_tps(x, &ls, n_single, best_tp, wide_tp);
	cross_pool_layouts(x, g, &ls, best_tp, wide_tp);
	int sup[HP_MAX_POOLS + 1], n_sup = 0;
	double b = search_cancelled(x) ? -1 : bound_update(x, g, &ls, sup, &n_sup);

	/* layouts kept per pool: the sets grow as (keep + 1)^pools */
	static const int keep_by_pools[] = { 0, 12, 8, 5, 3, 2 };
	int keep_h = x->exhaustive ? 1 << 20
				   : keep_by_pools[HP_MIN(c->n_pools, (int)HP_ARRAY_LEN(keep_by_pools) - 1)];
	int keep_m = x->exhaustive ? 1 << 20 : 4;
	const struct layout **per_pool[HP_MAX_POOLS];
	int n_pp[HP_MAX_POOLS], n_het;
	for (int p = 0; p < c->n_pools; p++)
		per_pool[p] = shortlist_pool(x, g, &ls, n_single, p, keep_h, &n_pp[p]);
	const struct layout **het = shortlist_cross(x, g, &ls, n_single, wide_tp, keep_m, &n_het);
	for (int h = -1; h < n_het; h++)
		layout_set_trials(x, g, h >= 0 ? het[h] : NULL, per_pool, n_pp);
	lp_support_set(x, g, &ls, sup, n_sup, per_pool, n_pp);
	int done = !search_cancelled(x);
	int fsup[HP_MAX_POOLS + 1], n_fsup = 0;
	if (done)
		bound_finish(x, g, &ls, b, fsup, &n_fsup);
	/* the optimum with the data-parallel terms can pick other layouts
	 * than the one without them (fewer replicas, each a deeper pipeline,
	 * whose DP sync costs less: issue 13, 65,536 GPUs), and it is the one
	 * closer to the plans that can be built: tried as a set too */
	if (done && x->o->objective == OBJ_THROUGHPUT && n_fsup &&
	    !(n_fsup == n_sup && !memcmp(fsup, sup, (size_t)n_sup * sizeof *sup)))
		lp_support_set(x, g, &ls, fsup, n_fsup, per_pool, n_pp);
	for (int p = 0; p < c->n_pools; p++)
		free(per_pool[p]);
	free(het);
	free(ls.v);
	perf_memo_unpin(&saved);
	return done;
}

/* ------------------------------------------------------------------ */

/* The global settings to search, in a fixed order; out NULL: count them.
 * Returns how many. */
static int enum_gsets(const struct ctx *x, struct gset *out)
{
	const struct search_opts *o = x->o;
	const struct model_spec *m = x->m;
	int n = 0;
	static const int mbs_v[] = { 1, 2, 4, 8 };
	int rcs[3], n_rc = 0;
	if (o->fix_recompute >= 0) {
		rcs[n_rc++] = o->fix_recompute;
	} else {
		rcs[n_rc++] = RC_NONE;
		rcs[n_rc++] = RC_FULL;
	}
	int zeros[4], n_z = 0;
	if (o->fix_zero >= 0) {
		zeros[n_z++] = o->fix_zero;
	} else {
		/* ZeRO 1 and 3 (ZeRO 0 only when asked: it holds more memory
		 * for the same traffic); an estimate-only framework's stages
		 * are those it runs (runs_on_zero_ok: apex DDP 0, InternLM 0
		 * or 1) */
		static const int tries[] = { 0, 1, 3 };
		for (int i = 0; i < 3; i++)
			if (framework_launchable(o->framework) ? tries[i] != 0
							       : runs_on_zero_ok(o->framework, tries[i]))
				zeros[n_z++] = tries[i];
	}
	int cps[4] = { 1 }, n_cp = 1;
	if (x->seq >= 16384)
		for (int v = 2; v <= 8; v *= 2)
			if (x->seq % v == 0)
				cps[n_cp++] = v;
	int eps[16] = { 1 }, n_ep = 1;
	if (m->moe.experts)
		for (int v = 2; v <= 64 && v <= m->moe.experts && n_ep < 16; v *= 2)
			if (m->moe.experts % v == 0)
				eps[n_ep++] = v;
	for (size_t a = 0; a < HP_ARRAY_LEN(mbs_v); a++) {
		int mbs = o->fix_mbs ? o->fix_mbs : mbs_v[a];
		if (o->fix_mbs && a > 0)
			break;
		if (o->gbs % mbs)
			continue;
		for (int r = 0; r < n_rc; r++)
			for (int z = 0; z < n_z; z++)
				for (int s = 0; s < 2; s++)
					for (int cpi = 0; cpi < n_cp; cpi++)
						for (int e = 0; e < n_ep; e++) {
							int v = s ? (o->fix_sched >= 2 ? o->fix_sched : 2) : 1;
							if (o->fix_sched == 0 && s)
								continue;
							if (o->fix_sched >= 2 && !s)
								continue;
							if (out)
								out[n] = (struct gset){
									mbs, (enum hp_recompute)rcs[r],
									zeros[z],
									s ? SCHED_INTERLEAVED : SCHED_1F1B,
									v, cps[cpi], eps[e] };
							n++;
						}
	}
	return n;
}

static int cmp_front(const void *a, const void *b)
{
	const struct search_plan *x = a, *y = b;
	if (x->time_to_train_s != y->time_to_train_s)
		return x->time_to_train_s < y->time_to_train_s ? -1 : 1;
	return x->cost_to_train_usd < y->cost_to_train_usd ? -1 :
	       x->cost_to_train_usd > y->cost_to_train_usd;
}

static void explain_miss(struct ctx *x)
{
	struct search_result *res = x->res;
	const struct search_opts *o = x->o;
	char b1[32], b2[32], tk[32], rate[32], usd[32], usd2[32];
	hp_fmt_count(tk, sizeof tk, x->tokens);
	if (!res->has_nearest) {
		if (x->mem_miss > 0)
			snprintf(res->why, sizeof res->why,
				 "no plan fits in memory: %s needs more GPU memory than this cluster offers; the nearest miss is %s (%.0f%% over)",
				 x->m->name, x->mem_desc, 100 * (x->mem_miss - 1));
		else
			snprintf(res->why, sizeof res->why,
				 "no plan fits: %s has no layout on this cluster within the fixed choices (TP must divide the %d heads and stay in a node)",
				 x->m->name, x->m->heads);
		return;
	}
	const struct search_plan *n = &res->nearest;
	switch (o->objective) {
	case OBJ_DEADLINE:
		snprintf(res->why, sizeof res->why,
			 "no plan trains %s tokens within %s: the fastest reaches %s (%.0f%% over), on %d GPUs at %s tokens/s",
			 tk, hp_fmt_duration(b1, sizeof b1, o->deadline_s),
			 hp_fmt_duration(b2, sizeof b2, n->time_to_train_s),
			 100 * (n->time_to_train_s / o->deadline_s - 1), n->est.n_gpus,
			 hp_fmt_count(rate, sizeof rate, n->est.tokens_per_s));
		break;
	case OBJ_BUDGET:
		snprintf(res->why, sizeof res->why,
			 "no plan trains %s tokens within USD %s: the cheapest costs USD %s (%.0f%% over), on %d GPUs; "
			 "a budget of USD %s, or %s tokens within this one, would be met by it",
			 tk, hp_fmt_count(usd, sizeof usd, o->budget_usd),
			 hp_fmt_count(usd2, sizeof usd2, n->cost_to_train_usd),
			 100 * (n->cost_to_train_usd / o->budget_usd - 1), n->est.n_gpus, usd2,
			 hp_fmt_count(b2, sizeof b2, x->tokens * o->budget_usd / n->cost_to_train_usd));
		break;
	default:
		snprintf(res->why, sizeof res->why,
			 "plans fit, but none has a known price for every pool it uses (set price_per_node_hour in the cluster file or --pool ...,price=USD)");
		break;
	}
}

static int search_inner(const struct cluster *c, const struct model_spec *m,
			const struct search_opts *o, struct search_result *res,
			struct hp_err *err, int sub, double mem_frac);

/* ------------------------------------------------------------------ */
/* Threads: global settings are searched in batches of GSET_BATCH, each
 * setting in its own context that prunes against the shared kept plans
 * as they stood when the batch began; after the batch the contexts are
 * merged into the shared one in setting order. The batch size, not the
 * thread count, decides what each setting sees, so the answer is the
 * same byte for byte for any --threads. 8: enough settings to keep
 * 2-8 cores busy (a setting takes 1-100 ms), few enough that the bound
 * from earlier batches still prunes most of the later ones. */
#define GSET_BATCH 8

struct gset_task {
	struct ctx x;
	struct search_result res;
	const struct gset *g;
	int done;
};

struct batch {
	struct gset_task *t;
	int n;
	int next;             /* settings handed out (under the pool's lock) */
	int finished;         /* settings searched */
	atomic_int *cancel;
};

/* Work for a thread that would otherwise wait for a batch's last setting:
 * the per-pool searches (single_pool_best), which depend on the pool
 * alone, not on anything the batches keep. Each is run once, by whichever
 * thread takes it; its answer is used after the batches, in pool order,
 * so when it ran changes nothing but the time. */
struct side_task {
	void (*run)(void *arg);
	void *arg;
};

/* The search's worker threads live as long as search_gsets: each batch
 * is handed to them through the pool, so a thread's estimate memo
 * (perf_memo.c, one per thread) stays warm from one batch to the next
 * instead of starting empty in a new thread every batch. A thread takes
 * the batch's next setting; with none left it takes a side task (the
 * calling thread too, while it waits for the batch's last setting). */
struct worker_pool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct batch *b;      /* the batch in progress, NULL between batches */
	struct side_task *side;
	int n_side, side_next, side_done;
	int quit;
};

/* Take and run one piece of work with p->mu held (released while it
 * runs): the batch's next setting, else a side task. Returns 0 when
 * there was none. */
static int pool_take(struct worker_pool *p)
{
	struct batch *b = p->b;
	if (b && b->next < b->n) {
		int i = b->next++;
		pthread_mutex_unlock(&p->mu);
		if (!(b->cancel && atomic_load(b->cancel)))
			b->t[i].done = search_gset(&b->t[i].x, b->t[i].g);
		pthread_mutex_lock(&p->mu);
		if (++b->finished == b->n)
			pthread_cond_broadcast(&p->done);
		return 1;
	}
	if (p->side_next < p->n_side) {
		struct side_task *t = &p->side[p->side_next++];
		pthread_mutex_unlock(&p->mu);
		t->run(t->arg);
		pthread_mutex_lock(&p->mu);
		p->side_done++;
		pthread_cond_broadcast(&p->done);
		return 1;
	}
	return 0;
}

static void *pool_thread(void *arg)
{
	struct worker_pool *p = arg;
	pthread_mutex_lock(&p->mu);
	while (!p->quit)
		if (!pool_take(p))
			pthread_cond_wait(&p->work, &p->mu);
	pthread_mutex_unlock(&p->mu);
	lp_thread_done();
	return NULL;
}

static void task_init(struct gset_task *t, const struct ctx *x, const struct gset *g)
{
	memset(t, 0, sizeof *t);
	t->x = *x;
	t->x.res = &t->res;
	t->x.glob = x;
	t->x.top = xcalloc((size_t)x->keep + 1, sizeof *t->x.top);
	t->x.n_top = 0;
	t->x.front = NULL;
	t->x.n_front = t->x.cap_front = 0;
	t->x.mem_miss = 0;
	t->x.best_miss = 0;
	t->x.have_bound = 0;
	t->x.bound = 0;
	t->g = g;
}

/* Merge one setting's context into the shared one (and free it): the
 * same choices keep_plan() and mem_miss_offer() make, in setting order. */
static void task_merge(struct ctx *x, struct gset_task *t)
{
	struct ctx *y = &t->x;
	struct search_result *res = x->res, *r = &t->res;
	res->stats.candidates += r->stats.candidates;
	res->stats.evaluated += r->stats.evaluated;
	res->stats.pruned += r->stats.pruned;
	res->stats.screened += r->stats.screened;
	res->stats.probes += r->stats.probes;
	res->stats.dp_terms += r->stats.dp_terms;
	res->stats.sub_candidates += r->stats.sub_candidates;
	res->stats.lp_solves += r->stats.lp_solves;
	res->stats.milp_glpk += r->stats.milp_glpk;
	res->stats.estimate_s += r->stats.estimate_s;
	res->stats.milp_s += r->stats.milp_s;
	res->stats.lp_s += r->stats.lp_s;
	res->stats.candidate_s += r->stats.candidate_s;
	if (y->have_bound && (!x->have_bound || y->bound < x->bound))
		x->bound = y->bound;
	x->have_bound |= y->have_bound;
	for (int i = 0; i < y->n_front; i++)
		front_add(x, &y->front[i]);
	for (int i = 0; i < y->n_front; i++)
		sp_free(&y->front[i]);
	free(y->front);
	for (int i = 0; i < y->n_top; i++)
		top_insert(x, &y->top[i]);
	free(y->top);
	for (int i = 0; i < HP_MAX_POOLS; i++) {
		if (!r->has_single[i])
			continue;
		struct search_plan *cur = &res->single[i], *sp = &r->single[i];
		if (!res->has_single[i] || sp->score < cur->score ||
		    (sp->score == cur->score && sp->est.step_time_s < cur->est.step_time_s)) {
			if (res->has_single[i])
				sp_free(cur);
			sp_move(cur, sp);
			res->has_single[i] = 1;
		} else {
			sp_free(sp);
		}
	}
	if (r->has_stock) {
		if (!res->has_stock || sp_better(x, &r->stock, &res->stock)) {
			if (res->has_stock)
				sp_free(&res->stock);
			sp_move(&res->stock, &r->stock);
			res->has_stock = 1;
		} else {
			sp_free(&r->stock);
		}
	}
	if (r->has_nearest) {
		if (!res->has_nearest || y->best_miss < x->best_miss ||
		    (y->best_miss == x->best_miss && sp_better(x, &r->nearest, &res->nearest))) {
			if (res->has_nearest)
				sp_free(&res->nearest);
			sp_move(&res->nearest, &r->nearest);
			res->has_nearest = 1;
			x->best_miss = y->best_miss;
		} else {
			sp_free(&r->nearest);
		}
	}
	if (r->has_mem_miss) {
		if (!res->has_mem_miss || y->mem_miss < x->mem_miss) {
			if (res->has_mem_miss)
				sp_free(&res->mem_miss);
			sp_move(&res->mem_miss, &r->mem_miss);
			res->has_mem_miss = 1;
			x->mem_miss = y->mem_miss;
			memcpy(x->mem_desc, y->mem_desc, sizeof x->mem_desc);
		} else {
			sp_free(&r->mem_miss);
		}
	}
}

/* Worker threads: --threads, or the online cores; at most one per
 * setting of a batch. */
static int search_threads(const struct search_opts *o)
{
	long n = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	return (int)HP_MAX(1, HP_MIN(n, GSET_BATCH));
}

/* Search the settings gs in batches (above), and run the side tasks on
 * threads that would otherwise wait; every side task has run when it
 * returns. */
static void search_gsets(struct ctx *x, const struct gset *gs, int ng, struct side_task *side,
			 int n_side)
{
	const struct search_opts *o = x->o;
	int nt = search_threads(o);
	struct gset_task *t = xcalloc(GSET_BATCH, sizeof *t);
	pthread_t th[GSET_BATCH];
	struct worker_pool pl;
	memset(&pl, 0, sizeof pl);
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.work, NULL);
	pthread_cond_init(&pl.done, NULL);
	pl.side = side;
	pl.n_side = n_side;
	int started = 0;
	for (int k = 1; k < HP_MIN(nt, ng + n_side); k++)
		if (pthread_create(&th[started], NULL, pool_thread, &pl) == 0)
			started++;
	int size = 1;
	for (int b0 = 0; b0 < ng && !x->res->stats.cancelled; b0 += size) {
		/* batches of 1, 2, 4, then GSET_BATCH settings: the first ones
		 * set the bound the later ones prune against */
		size = b0 == 0 ? 1 : HP_MIN(GSET_BATCH, 2 * size);
		struct batch b;
		memset(&b, 0, sizeof b);
		b.t = t;
		b.n = HP_MIN(size, ng - b0);
		b.cancel = o->cancel;
		for (int i = 0; i < b.n; i++)
			task_init(&t[i], x, &gs[b0 + i]);
		/* this thread searches settings too, and takes a side task only
		 * while the batch's last settings are still being searched */
		pthread_mutex_lock(&pl.mu);
		pl.b = &b;
		pthread_cond_broadcast(&pl.work);
		while (b.finished < b.n)
			if (!pool_take(&pl))
				pthread_cond_wait(&pl.done, &pl.mu);
		pl.b = NULL;
		pthread_mutex_unlock(&pl.mu);
		for (int i = 0; i < b.n; i++) {
			if (!t[i].done)
				x->res->stats.cancelled = 1;
			task_merge(x, &t[i]);
		}
		if (o->progress)
			o->progress(o->progress_arg, (double)(b0 + b.n) / ng);
	}
	pthread_mutex_lock(&pl.mu);
	while (pl.side_done < pl.n_side)
		if (!pool_take(&pl))
			pthread_cond_wait(&pl.done, &pl.mu);
	pl.quit = 1;
	pthread_cond_broadcast(&pl.work);
	pthread_mutex_unlock(&pl.mu);
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	pthread_cond_destroy(&pl.work);
	pthread_cond_destroy(&pl.done);
	pthread_mutex_destroy(&pl.mu);
	free(t);
}

/* The best plan on pool i alone, planned on a cluster of that pool only,
 * so that it depends on the pool alone (the shared search keeps fewer
 * layouts per pool as pools are added, and probes memory at the whole
 * cluster's DP degree). Re-scored on the full cluster. The search on
 * the pool runs as a side task of the shared search's threads
 * (pool_search_run), on one thread: its answer is the same for any
 * thread count (tests/test_threads.sh). */
struct pool_search {
	const struct ctx *x;
	int i;
	struct search_result sr;
};

static void pool_search_run(void *arg)
{
	struct pool_search *ps = arg;
	const struct ctx *x = ps->x;
	struct cluster *sc = xmalloc(sizeof *sc);
	*sc = *x->c;
	sc->n_pools = 1;
	sc->pools[0] = x->c->pools[ps->i];
	struct search_opts so = *x->o;
	so.top_k = 1;
	so.progress = NULL;
	so.threads = 1;
	struct hp_err err = { 0 };
	search_inner(sc, x->m, &so, &ps->sr, &err, 1, x->mem_frac);
	free(sc);
}

/* Take pool i's answer sr (freed) into the shared search's results. */
static void single_pool_best(struct ctx *x, int i, struct search_result *sr)
{
	struct search_result *res = x->res;
	struct hp_err err = { 0 };
	/* A cancel raised during the sub-search (the TUI's preview timer)
	 * leaves its answer short: the whole search is then cut short too,
	 * so that its caller plans again instead of showing a partial
	 * single-pool list as complete. */
	if (sr->stats.cancelled)
		res->stats.cancelled = 1;
	res->stats.evaluated += sr->stats.evaluated;
	res->stats.screened += sr->stats.screened;
	res->stats.probes += sr->stats.probes;
	res->stats.dp_terms += sr->stats.dp_terms;
	res->stats.sub_candidates += sr->stats.candidates + sr->stats.sub_candidates;
	res->stats.lp_solves += sr->stats.lp_solves;
	res->stats.milp_glpk += sr->stats.milp_glpk;
	res->stats.estimate_s += sr->stats.estimate_s;
	res->stats.milp_s += sr->stats.milp_s;
	res->stats.lp_s += sr->stats.lp_s;
	res->stats.candidate_s += sr->stats.candidate_s;
	const struct search_plan *src = sr->n_plans ? &sr->plans[0] : sr->has_nearest ? &sr->nearest : NULL;
	if (res->has_single[i]) {
		sp_free(&res->single[i]);
		res->has_single[i] = 0;
	}
	if (src) {
		struct search_plan sp;
		memset(&sp, 0, sizeof sp);
		plan_copy(&sp.plan, &src->plan);
		for (int r = 0; r < sp.plan.n_replicas; r++)
			for (int s = 0; s < sp.plan.replicas[r].n_stages; s++)
				sp.plan.replicas[r].stages[s].pool = i;
		if (perf_estimate(x->c, x->m, &sp.plan, NULL, &sp.est, &err) == 0) {
			finish_plan(x, &sp);
			sp_label(x, &sp);
			int ok;
			double miss;
			sp.score = objective_score(x, &sp, &ok, &miss);
			if (!ok)
				sp.score = HUGE_VAL;
			sp.optimality = src->optimality;
			sp.gap = src->gap;
			sp_move(&res->single[i], &sp);
			res->has_single[i] = 1;
			/* it may beat what the shared search kept */
			struct search_plan cp;
			sp_clone(&cp, &res->single[i]);
			keep_plan(x, &cp);
		} else {
			plan_free(&sp.plan);
		}
	}
	search_result_free(sr);
}

/* Overlap keys the planner may set, per framework (bit 0: off allowed,
 * bit 1: on allowed), for TP, gradient reduce and parameter gather:
 *  - Megatron-Core (and "any", estimated as it): --tp-comm-overlap,
 *    --overlap-grad-reduce and --overlap-param-gather are each opt-in
 *    flags of megatron/training/arguments.py, so both values run;
 *  - Megatron-LM 2021-22: the SC21 code has none of them: off only;
 *  - DeepSpeed: zero_optimization.overlap_comm switches the gradient
 *    overlap; no TP overlap; ZeRO-3 always prefetches parameters;
 *  - torchtitan: async TP is opt-in (experimental.enable_async_tensor_
 *    parallel); FSDP2 always overlaps its reduce-scatter and prefetches
 *    its all-gathers;
 *  - the estimate-only rows (plan --framework NAME): eager PyTorch with
 *    apex DDP has no TP overlap and no sharded optimizer; apex's
 *    DistributedDataParallel overlaps its bucketed all-reduce unless
 *    delay_allreduce is set (both run). InternLM has no TP overlap; its
 *    hybrid ZeRO optimizer's overlap_sync_grad and overlap_sync_param
 *    are config switches (both run).
 * Values outside the mask are the framework's default (framework.c). */
static const unsigned char overlap_allowed[FW_ROWS][3] = {
	[FW_ANY] = { 3, 3, 3 },
	[FW_MEGATRON_CORE] = { 3, 3, 3 },
	[FW_MEGATRON_LM] = { 1, 1, 1 },
	[FW_DEEPSPEED] = { 1, 3, 2 },
	[FW_TORCHTITAN] = { 3, 2, 2 },
	[FW_PYTORCH_DDP] = { 1, 3, 1 },
	[FW_PYTORCH_DDP_2020] = { 1, 3, 1 },
	[FW_INTERNLM] = { 1, 3, 3 },
};

/* The values key k may take in plan p: those the framework allows where
 * the dimension exists (TP > 1 with sequence parallelism for TP overlap;
 * DP > 1 for the DP overlaps; a sharded optimizer for the parameter
 * gather); else only the framework's default. Returns how many (1-2). */
static int overlap_values(const struct plan *p, int k, int *v)
{
	int max_tp = 1;
	for (int r = 0; r < p->n_replicas; r++)
		for (int s = 0; s < p->replicas[r].n_stages; s++)
			max_tp = HP_MAX(max_tp, p->replicas[r].stages[s].tp);
	int has = k == 0 ? max_tp > 1 && p->sp : k == 1 ? plan_dp(p) * p->cp > 1
							: plan_dp(p) * p->cp > 1 && p->zero >= 1;
	unsigned mask = overlap_allowed[(unsigned)p->framework < FW_ROWS ? p->framework : FW_ANY][k];
	int n = 0;
	if (has)
		for (int b = 0; b < 2; b++)
			if (mask & (1u << b))
				v[n++] = b;
	if (!n)
		v[n++] = -1;   /* the framework's default */
	return n;
}

/* A copy of plan `from` with the overlap keys t, g, q, estimated and
 * finished. Returns 0, or -1 (nothing to free) when it does not fit. */
static int overlap_variant(const struct ctx *x, const struct search_plan *from, int t, int g,
			   int q, struct search_plan *sp)
{
	memset(sp, 0, sizeof *sp);
	plan_copy(&sp->plan, &from->plan);
	sp->plan.tp_overlap = t;
	sp->plan.grad_overlap = g;
	sp->plan.param_overlap = q;
	struct hp_err err = { 0 };
	if (plan_equal(&sp->plan, &from->plan) ||
	    perf_estimate(x->c, x->m, &sp->plan, NULL, &sp->est, &err) < 0 || !sp->est.fits ||
	    over_headroom(x, &sp->est)) {
		sp_free(sp);
		return -1;
	}
	finish_plan(x, sp);
	int ok;
	double miss;
	sp->score = objective_score(x, sp, &ok, &miss);
	if (!ok) {
		sp_free(sp);
		return -1;
	}
	return 0;
}

/* The overlap keys searched on the ranked plans: every allowed
 * combination of each kept plan is estimated, and the best, when it
 * beats the plan, takes its place (the layer and batch splits stay those
 * found with the framework's defaults; overlaps move stage times by a few
 * percent, never the memory). */
static void search_overlaps(struct ctx *x)
{
	int n = x->n_top;
	struct search_plan *base = xcalloc((size_t)(n ? n : 1), sizeof *base);
	for (int i = 0; i < n; i++)
		sp_clone(&base[i], &x->top[i]);
	for (int i = 0; i < n; i++) {
		int v[3][2], nv[3], have = 0;
		struct search_plan best;
		for (int k = 0; k < 3; k++)
			nv[k] = overlap_values(&base[i].plan, k, v[k]);
		for (int a = 0; a < nv[0] * nv[1] * nv[2]; a++) {
			struct search_plan sp;
			if (overlap_variant(x, &base[i], v[0][a % nv[0]], v[1][a / nv[0] % nv[1]],
					    v[2][a / nv[0] / nv[1]], &sp) < 0)
				continue;
			x->res->stats.evaluated++;
			if (!sp_better(x, &sp, have ? &best : &base[i])) {
				sp_free(&sp);
				continue;
			}
			if (have)
				sp_free(&best);
			best = sp;
			have = 1;
		}
		if (have) {
			/* the variant replaces its plan in the ranked list */
			for (int j = 0; j < x->n_top; j++)
				if (plan_equal(&x->top[j].plan, &base[i].plan)) {
					sp_free(&x->top[j]);
					memmove(&x->top[j], &x->top[j + 1],
						(size_t)(x->n_top - j - 1) * sizeof *x->top);
					x->n_top--;
					break;
				}
			keep_plan(x, &best);
		}
		sp_free(&base[i]);
	}
	free(base);
}

/* Quality at scale: when the fastest plan leaves more than a tenth of the
 * GPUs idle, say why. When its replicas hold few micro-batches (at most
 * twice their pipeline depth, so fill and drain take a third of the step
 * or more), the global batch is what stops more replicas from helping:
 * each one added takes micro-batches from the others. Say so, and which
 * global batch would give every GPU's replica as many micro-batches.
 * Otherwise (issue 13: --gbs 8192 on 65,536 GPUs in 16 pools) the batch
 * is not the limit, and what the search knows is that no plan it scored
 * with the idle pools was faster: name them, their GPUs' speed alone
 * (each pool's best plan on its own, tokens/s per GPU) against plan 1's,
 * and plan 1's data-parallel share of the step, which every replica
 * added lengthens (a larger ring, over the slower pools' links), and the
 * gap, which says how much a better plan could still hold. */
static void explain_idle(const struct ctx *x)
{
	struct search_result *res = x->res;
	if (x->o->objective != OBJ_THROUGHPUT || !res->n_plans)
		return;
	const struct search_plan *b = &res->plans[0];
	int total = 0, max_pp = 1;
	for (int i = 0; i < x->c->n_pools; i++)
		total += x->cap[i];
	long mb_max = 0;
	for (int r = 0; r < b->plan.n_replicas; r++) {
		max_pp = HP_MAX(max_pp, b->plan.replicas[r].n_stages);
		mb_max = HP_MAX(mb_max, (long)plan_replica_microbatches(&b->plan, r));
	}
	if (b->est.n_gpus >= 0.9 * total)
		return;
	if (mb_max <= 2L * max_pp) {
		long gbs = (long)ceil((double)x->o->gbs * total / b->est.n_gpus);
		snprintf(res->idle_note, sizeof res->idle_note,
			 "plan 1 uses %d of %d GPUs: --gbs %d at micro-batch %d leaves each replica at most %ld micro-batches, and more replicas would each get fewer (more pipeline fill and drain); a global batch of about %ld sequences keeps that many on every GPU",
			 b->est.n_gpus, total, x->o->gbs, b->plan.mbs, mb_max, gbs);
		return;
	}
	int used[HP_MAX_POOLS] = { 0 };
	for (int r = 0; r < b->plan.n_replicas; r++)
		for (int s = 0; s < b->plan.replicas[r].n_stages; s++)
			used[b->plan.replicas[r].stages[s].pool] = 1;
	/* the idle pools' GPU types, each with its best rate per GPU alone */
	const char *type[HP_MAX_POOLS];
	double rate[HP_MAX_POOLS];
	int n_type = 0, n_idle = 0;
	for (int i = 0; i < x->c->n_pools; i++) {
		if (used[i] || !x->cap[i])
			continue;
		n_idle++;
		const char *t = x->c->pools[i].gpu.name;
		double r = res->has_single[i] && res->single[i].est.n_gpus > 0
				   ? res->single[i].est.tokens_per_s / res->single[i].est.n_gpus
				   : 0;
		int k = 0;
		while (k < n_type && strcmp(type[k], t))
			k++;
		if (k == n_type) {
			type[n_type] = t;
			rate[n_type++] = r;
		} else {
			rate[k] = fmax(rate[k], r);
		}
	}
	if (!n_idle)
		return;
	char types[160] = "", pools[32], dp[96] = "";
	size_t len = 0;
	for (int k = 0; k < n_type && len < sizeof types; k++) {
		char r[32];
		if (rate[k] > 0)
			snprintf(r, sizeof r, "%.0f", rate[k]);
		else
			snprintf(r, sizeof r, "none fits");
		int w = snprintf(types + len, sizeof types - len, "%s%s %s",
				 k ? (k == n_type - 1 ? " and " : ", ") : "", type[k], r);
		len += w > 0 ? (size_t)w : 0;
	}
	if (n_idle == 1)
		snprintf(pools, sizeof pools, "the idle pool");
	else
		snprintf(pools, sizeof pools, "the %d idle pools", n_idle);
	double dp_share = b->est.bd.dp_comm / b->est.step_time_s;
	if (dp_share >= 0.01)
		snprintf(dp, sizeof dp,
			 "; each replica added lengthens the data-parallel sync (%.0f%% of its step)",
			 100 * dp_share);
	snprintf(res->idle_note, sizeof res->idle_note,
		 "plan 1 uses %d of %d GPUs; no plan searched that adds %s was faster. Tokens/s per GPU of each pool's best plan alone: %s (plan 1: %.0f)%s%s",
		 b->est.n_gpus, total, pools, types, b->est.tokens_per_s / b->est.n_gpus, dp,
		 b->optimality == OPTIMAL_GAP && b->gap > 0.05 ? "; the gap says a better plan may use them" : "");
}

int search_run(const struct cluster *c, const struct model_spec *m,
	       const struct search_opts *o, struct search_result *res,
	       struct hp_err *err)
{
	/* Plans keep the memory headroom: the layer split fills each GPU up
	 * to 1 - headroom of its capacity. Only when no plan can keep it
	 * does the search run again up to the whole capacity; those plans
	 * are marked risky (fits-with-risk). */
	double frac = o->mem_headroom > 0 && o->mem_headroom < 1 ? 1 - o->mem_headroom : 1;
	int rc = search_inner(c, m, o, res, err, 0, frac);
	if (rc == 0 || frac >= 1 || err->code != HP_EXIT_NOFIT || res->stats.cancelled)
		return rc;
	struct search_result again;
	struct hp_err err2 = { 0 };
	if (search_inner(c, m, o, &again, &err2, 0, 1) < 0) {
		search_result_free(&again);
		return rc;   /* nothing fits at all: the first answer explains it */
	}
	search_result_free(res);
	*res = again;
	memset(err, 0, sizeof *err);
	return 0;
}

static int search_inner(const struct cluster *c, const struct model_spec *m,
			const struct search_opts *o, struct search_result *res,
			struct hp_err *err, int sub, double mem_frac)
{
	memset(res, 0, sizeof *res);
	double t0 = hp_now();
	if (o->gbs <= 0)
		return hp_err_set(err, HP_EXIT_USAGE, "--gbs: a global batch (sequences) is required");
	if (o->objective == OBJ_DEADLINE && o->deadline_s <= 0)
		return hp_err_set(err, HP_EXIT_USAGE,
				  "--objective deadline needs --deadline (e.g. 30d)");
	if (o->objective == OBJ_BUDGET && o->budget_usd <= 0)
		return hp_err_set(err, HP_EXIT_USAGE,
				  "--objective budget needs --budget (e.g. 2.5M)");
	if (c->n_pools < 1)
		return hp_err_set(err, HP_EXIT_USAGE, "no pools: give -c CLUSTER.json or --pool");
	for (int i = 0; i < c->n_pools; i++)
		if (plan_check_precision(c, i, o->precision, "--precision", err) < 0)
			return -1;
	if (o->fix_pp > m->layers)
		return hp_err_set(err, HP_EXIT_USAGE,
				  "--pp %d: more pipeline stages than the %d layers of %s", o->fix_pp,
				  m->layers, m->name);
	if (o->fix_mbs && o->gbs % o->fix_mbs)
		return hp_err_set(err, HP_EXIT_USAGE, "--mbs %d does not divide --gbs %d",
				  o->fix_mbs, o->gbs);

	struct ctx x;
	memset(&x, 0, sizeof x);
	x.c = c;
	x.m = m;
	x.o = o;
	x.res = res;
	x.mem_frac = mem_frac;
	x.seq = o->seq_len ? o->seq_len : m->seq_len;
	struct param_count pc;
	model_params(m, &pc);
	x.tokens = o->tokens > 0 ? o->tokens : 20 * pc.total;
	int total = 0;
	for (int i = 0; i < c->n_pools; i++) {
		x.cap[i] = c->pools[i].nodes * c->pools[i].gpus_per_node;
		total += x.cap[i];
	}
	x.exhaustive = total <= 16;
	x.max_dp = total;
	x.keep = HP_MAX(o->top_k > 0 ? o->top_k : 10, 1);
	x.top = xcalloc((size_t)x.keep + 1, sizeof *x.top);

	int ng = enum_gsets(&x, NULL);
	if (!ng) {
		free(x.top);
		return hp_err_set(err, HP_EXIT_USAGE,
				  "--gbs %d: no micro-batch of 1, 2, 4 or 8 divides it%s", o->gbs,
				  o->fix_mbs ? " (or --mbs does not divide it)" : "");
	}
	struct gset *gs = xmalloc((size_t)ng * sizeof *gs);
	enum_gsets(&x, gs);
	res->stats.settings = ng;
	x.milp_memo = capmilp_memo_new();
	/* the best plan on each pool alone, searched while the settings are
	 * (side tasks) and taken in pool order after them */
	int n_side = !sub && c->n_pools > 1 ? c->n_pools : 0;
	struct pool_search ps[HP_MAX_POOLS];
	struct side_task side[HP_MAX_POOLS];
	for (int i = 0; i < n_side; i++) {
		memset(&ps[i], 0, sizeof ps[i]);
		ps[i].x = &x;
		ps[i].i = i;
		side[i] = (struct side_task){ pool_search_run, &ps[i] };
	}
	search_gsets(&x, gs, ng, side, n_side);
	free(gs);
	for (int i = 0; i < n_side; i++)
		if (!res->stats.cancelled)
			single_pool_best(&x, i, &ps[i].sr);
		else
			search_result_free(&ps[i].sr);
	if (!res->stats.cancelled)
		search_overlaps(&x);
	capmilp_memo_free(x.milp_memo);
	x.milp_memo = NULL;

	/* results */
	res->n_plans = x.n_top;
	res->plans = x.top;
	res->has_bound = x.have_bound && !res->stats.cancelled;
	res->bound = res->has_bound ? x.bound : 0;
	for (int i = 0; i < res->n_plans; i++) {
		struct search_plan *sp = &res->plans[i];
		if (res->stats.cancelled || !x.have_bound) {
			sp->optimality = OPTIMAL_HEURISTIC;
		} else {
			double gap = sp->score > 0 ? (sp->score - x.bound) / sp->score : 0;
			sp->gap = gap < 0 ? 0 : gap;
			sp->optimality = sp->gap <= 1e-3 ? OPTIMAL_PROVEN : OPTIMAL_GAP;
		}
	}
	if (x.n_front)
		qsort(x.front, (size_t)x.n_front, sizeof *x.front, cmp_front);
	res->pareto = x.front;
	res->n_pareto = x.n_front;
	for (int i = 0; i < res->n_plans; i++)
		for (int j = 0; j < res->n_pareto; j++)
			if (res->plans[i].time_to_train_s == res->pareto[j].time_to_train_s &&
			    res->plans[i].cost_to_train_usd == res->pareto[j].cost_to_train_usd)
				res->plans[i].pareto = res->pareto[j].pareto = 1;
	for (int j = 0; j < res->n_pareto; j++)
		res->pareto[j].pareto = 1;
	res->stats.seconds = hp_now() - t0;
	explain_idle(&x);
	if (!res->n_plans) {
		explain_miss(&x);
		return hp_err_set(err, HP_EXIT_NOFIT, "%s", res->why);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Capacity answers */

/* Does the fastest plan on c train the tokens by the deadline? */
static int meets_deadline(const struct cluster *c, const struct model_spec *m,
			  const struct search_opts *o)
{
	struct search_opts so = *o;
	so.objective = OBJ_THROUGHPUT;
	so.top_k = 1;
	so.progress = NULL;
	struct search_result r;
	struct hp_err err = { 0 };
	/* no deadline: a plan that fits in memory is enough */
	int ok = search_inner(c, m, &so, &r, &err, 1, 1) == 0 && r.n_plans &&
		 (o->deadline_s <= 0 || r.plans[0].time_to_train_s <= o->deadline_s);
	search_result_free(&r);
	return ok;
}

int search_capacity_answer(const struct cluster *c, const struct model_spec *m,
			   const struct search_opts *o, const struct search_result *res,
			   int *add_nodes, char *text, size_t n)
{
	int answers = 0;
	size_t k = 0;
	text[0] = '\0';
	if (c->n_pools < 1 || (o->deadline_s <= 0 && res->n_plans))
		return 0;
	struct param_count pc;
	model_params(m, &pc);
	double tokens = o->tokens > 0 ? o->tokens : 20 * pc.total;
	double need_rate = o->deadline_s > 0 ? tokens / o->deadline_s : 0;
	double have_rate = res->has_nearest ? res->nearest.est.tokens_per_s
			   : res->n_plans ? res->plans[0].est.tokens_per_s : 0;
	int total_nodes = 0;
	for (int i = 0; i < c->n_pools; i++)
		total_nodes += c->pools[i].nodes;
	struct cluster *g = xmalloc(sizeof *g);
	for (int i = 0; i < c->n_pools; i++) {
		add_nodes[i] = 0;
		/* first guess: the missing rate at this pool's best rate per GPU,
		 * then grow by a quarter until the grown cluster meets the
		 * deadline, and bisect back down to the fewest nodes */
		const struct pool *p = &c->pools[i];
		/* (nothing fits on the pool alone: the nearest plan's rate per GPU) */
		double per_gpu = res->has_single[i] && res->single[i].est.n_gpus > 0
			? res->single[i].est.tokens_per_s / res->single[i].est.n_gpus
			: res->has_nearest && res->nearest.est.n_gpus > 0
			? res->nearest.est.tokens_per_s / res->nearest.est.n_gpus : 0;
		if (o->deadline_s > 0 && !(per_gpu > 0))
			continue;
		/* nothing fits in memory: start from one node more */
		double guess = o->deadline_s > 0
			? (need_rate - have_rate) / per_gpu / p->gpus_per_node : 1;
		int lo = 0, hi = HP_MAX(1, (int)ceil(guess));
		int limit = 64 * HP_MAX(total_nodes, 1);
		*g = *c;
		for (;;) {
			g->pools[i].nodes = p->nodes + hi;
			if (g->pools[i].nodes_max)
				g->pools[i].nodes_max = g->pools[i].nodes;
			if (meets_deadline(g, m, o))
				break;
			lo = hi;
			if (hi >= limit) {
				hi = 0;
				break;
			}
			hi = HP_MIN(limit, hi + HP_MAX(1, hi / 4));
		}
		if (!hi)
			continue;
		for (int it = 0; it < 40 && hi - lo > 1; it++) {
			int mid = lo + (hi - lo) / 2;
			g->pools[i].nodes = p->nodes + mid;
			if (g->pools[i].nodes_max)
				g->pools[i].nodes_max = g->pools[i].nodes;
			if (meets_deadline(g, m, o))
				hi = mid;
			else
				lo = mid;
		}
		add_nodes[i] = hi;
		int w = snprintf(text + k, n - k, "%s%d %s%s (%d node%s)",
				 answers ? " or " : "needs ", hi * p->gpus_per_node,
				 p->nodes ? "more " : "", p->gpu.name, hi, hi == 1 ? "" : "s");
		if (w > 0 && (size_t)w < n - k)
			k += (size_t)w;
		answers++;
	}
	free(g);
	return answers;
}
