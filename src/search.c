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
 *                    divisors of the expert count for MoE models; flash
 *                    attention, and under framework "any" on a cluster
 *                    with a Volta or Turing pool unfused too
 *                    (gset_flash_values). Under "any" a plan that no
 *                    stock framework runs for its own reasons (not the
 *                    heterogeneity hetplan launch splits into pieces) is
 *                    dropped (runs_on_runnable).
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
 * what "optimality" reports.
 *
 * Files: search.c (settings, layouts, layer split, the ranked list,
 * threads), search_combo.c (batch split, screening, scoring one
 * combination), search_counts.c (the replica counts of a
 * layout set: greedy fills, enumeration, the MILP ladder), search_bound.c
 * (the LP bounds, their floors and DP terms, the whole-replica step, the
 * cost bound); search_int.h holds what they share. */
#include "search_int.h"
#include "utf8.h"

#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capmilp.h"
#include "lp.h"
#include "perf_memo.h"
#include "runs_on.h"

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
	o->opt_impl = o->compile = o->ga_fusion = -1;
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

const char *search_optimality_text(const struct search_plan *sp, char *buf, size_t n)
{
	if (sp->optimality == OPTIMAL_GAP)
		snprintf(buf, n, "gap %.1f%%", 100 * sp->gap);
	else
		snprintf(buf, n, "%s", search_optimality_name(sp->optimality));
	return buf;
}

/* The memory summary of stage records ps[0..n-1] (struct perf_group_mem,
 * perf_memo.h): search_mem_state's tests, kept so that the summaries of
 * consecutive runs of records combine (mem_combine) into the summary of
 * them all. */
static void mem_summary(const struct perf_stage *ps, int n, double headroom,
			struct perf_group_mem *g)
{
	g->worst = -1;
	g->need = g->cap = 0;
	g->nofit = g->risky = 0;
	for (int i = 0; i < n; i++) {
		double r = ps[i].capacity > 0 ? ps[i].total / ps[i].capacity : HUGE_VAL;
		if (r > g->worst) {
			g->worst = r;
			g->need = ps[i].total - ps[i].slack;
			g->cap = ps[i].capacity;
		}
		if (!ps[i].fits)
			g->nofit = 1;
		else if (ps[i].total > (1 - headroom) * ps[i].capacity)
			g->risky = 1;
	}
}

/* Summary a of earlier records and b of the records after them into a:
 * the first largest ratio stays the first (b's only when greater), and
 * a stage of either that does not fit, or fits within the headroom,
 * counts as in one pass over all of them. */
static void mem_combine(struct perf_group_mem *a, const struct perf_group_mem *b)
{
	if (b->worst > a->worst) {
		a->worst = b->worst;
		a->need = b->need;
		a->cap = b->cap;
	}
	a->nofit |= b->nofit;
	a->risky |= b->risky;
}

/* A summary's state: does not fit when a stage does not; else risky when
 * a stage is within the headroom (in one pass, a stage within it is
 * looked at only while no earlier stage failed, but any failure makes
 * the state MEM_NOFIT whatever came before). */
static enum search_mem mem_of_summary(const struct perf_group_mem *g)
{
	return g->nofit ? MEM_NOFIT : g->risky ? MEM_RISKY : MEM_FITS;
}

enum search_mem search_gpu_mem_state(const struct estimate *e, double headroom, double *need,
				     double *cap)
{
	struct perf_group_mem g;
	mem_summary(e->stages, e->n_stages, headroom, &g);
	if (need)
		*need = g.need;
	if (cap)
		*cap = g.cap;
	return mem_of_summary(&g);
}

enum search_mem search_mem_state(const struct estimate *e, double headroom, double *need,
				 double *cap)
{
	enum search_mem s = search_gpu_mem_state(e, headroom, need, cap);
	return e->offload.host_over ? MEM_NOFIT : s;
}

const char *search_mem_name(enum search_mem s)
{
	static const char *const n[] = { "fits", "fits-with-risk", "does-not-fit" };
	return n[s];
}

const char *search_mem_verdict(const struct estimate *e, double headroom)
{
	enum search_mem s = search_mem_state(e, headroom, NULL, NULL);
	if (s == MEM_RISKY && search_mem_state(e, 0, NULL, NULL) == MEM_RISKY)
		return "over-gpu";
	return search_mem_name(s);
}

const char *search_plan_verdict(const struct search_plan *sp)
{
	if (!sp->est.fits)
		return search_mem_name(MEM_NOFIT);
	return sp->risky == 2 ? "over-gpu" : search_mem_name(sp->risky ? MEM_RISKY : MEM_FITS);
}

double search_train_steps(double tokens, double per_step)
{
	return fmax(1, ceil(tokens / per_step));
}

void search_plan_memory(struct search_plan *sp, double headroom)
{
	sp->risky = search_mem_state(&sp->est, headroom, &sp->mem_need_bytes,
				     &sp->mem_capacity_bytes) == MEM_RISKY;
	if (sp->risky && search_mem_state(&sp->est, 0, NULL, NULL) == MEM_RISKY)
		sp->risky = 2;
}

void sp_free(struct search_plan *s)
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

int estimate(struct ctx *x, const struct plan *p, struct estimate *e, struct hp_err *err)
{
	double t0 = sample_begin(x);
	int rc = perf_estimate(x->c, x->m, p, NULL, e, err);
	sample_end(x, t0);
	return rc;
}

/* For the bound's DP terms: perf_dp_exposed (dp_comm alone) of p at n
 * pairs of overlap keys (perf_dp_exposed_each), sampled as n calls: timed when one of them would be, for as many as
 * would. */
int estimate_dp_each(struct ctx *x, const struct plan *p, const int *grad, const int *param,
		     int n, double *dp_s, struct hp_err *err)
{
	int timed = 0;
	for (int v = 0; v < n; v++)
		timed += x->n_estimates++ % ESTIMATE_SAMPLE == 0;
	double t0 = timed ? hp_now() : 0;
	int rc = perf_dp_exposed_each(x->c, x->m, p, grad, param, n, dp_s, err);
	if (timed)
		x->res->stats.estimate_s += (double)ESTIMATE_SAMPLE * timed * (hp_now() - t0) / n;
	return rc;
}

/* The score a plan must beat to enter the ranked list: the last kept
 * plan's, once the list is full, here or in the shared context (frozen
 * during a batch, so the answer does not depend on the thread count).
 * Returns 0 while neither list is full. */
int top_worst(const struct ctx *x, double *w)
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
int stock_best(const struct ctx *x, double *w)
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
int front_dominates(const struct ctx *x, double t, double usd)
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

int layout_dense_layers(const struct model_spec *m)
{
	return m->moe.experts ? m->moe.dense_layers : m->layers;
}

/* A pool whose GPU has no flash-attn 2 kernel (hp_gen_sm80: Volta,
 * Turing): a framework marked flash_sm80 runs unfused attention there,
 * and its one --use-flash-attn switch is for every rank. */
static int cluster_has_pre_flash2(const struct cluster *c)
{
	for (int i = 0; i < c->n_pools; i++)
		if (!hp_gen_sm80(c->pools[i].gpu.gen))
			return 1;
	return 0;
}

/* Whether some stock framework runs a fused-attention plan on pool i at
 * the search's precision: one replica of one stage, TP 1, ZeRO-3, no
 * recomputation (the settings the frameworks without flash_sm80 need
 * least), asked of runs_on.c's rules. */
static int flash_runs_on_pool(const struct ctx *x, int i)
{
	struct stage st;
	memset(&st, 0, sizeof st);
	st.pool = i;
	st.tp = 1;
	st.first_layer = 0;
	st.last_layer = x->m->layers - 1;
	struct replica r = { 1, 1.0, 1, &st };
	struct plan p;
	plan_init(&p);
	p.precision = x->o->precision;
	p.recompute = RC_NONE;
	p.zero = 3;
	p.flash = 1;
	p.n_replicas = 1;
	p.replicas = &r;
	return (runs_on_mask(&p, x->c, NULL, 0) & RUNS_ON_STOCK) != 0;
}

/* The attention kernels the search tries, into v (at most 2), flash
 * first; returns how many. A framework without a fused attention kernel
 * (unfused_only), or one whose kernel needs Ampere on a cluster with
 * older GPUs (flash_sm80), runs unfused-attention plans only: those are
 * built for it. Under "any" the row's flags are megatron-core's settings
 * with no kernel of its own (framework.c: flash_sm80 0 there), so on a
 * cluster with a Volta or Turing pool both are tried: a fused-attention
 * plan there runs only on the rows without flash_sm80 (torchtitan's SDPA
 * keeps a memory-efficient kernel on sm70 and sm75) and is estimated as
 * the row that runs it (try_combo: runs_on_pick), an unfused one on every
 * stock row, Megatron-Core first. Before, "any" built fused plans only
 * there, and Megatron-Core, Megatron-LM and DeepSpeed, which run V100s
 * only unfused, were never offered (docs/runnable.md). */
static int gset_flash_values(const struct ctx *x, int *v)
{
	const struct framework_info *fw = framework_get(x->o->framework);
	if (x->o->unfused_attention || fw->unfused_only ||
	    (fw->flash_sm80 && cluster_has_pre_flash2(x->c))) {
		v[0] = 0;
		return 1;
	}
	v[0] = 1;
	if (x->o->framework == FW_ANY && cluster_has_pre_flash2(x->c)) {
		v[1] = 0;
		/* fused attention only where something runs it: a pool of
		 * Ampere or newer, or a stock row's fused kernel on an older
		 * pool at this precision (torchtitan's SDPA in bf16 or fp32;
		 * not fp16, which V100 and T4 plans train in) */
		for (int i = 0; i < x->c->n_pools; i++)
			if (hp_gen_sm80(x->c->pools[i].gpu.gen) || flash_runs_on_pool(x, i))
				return 2;
		v[0] = 0;
		return 1;
	}
	return 1;
}

void plan_globals(struct plan *p, const struct ctx *x, const struct gset *g)
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
	/* the setting's attention kernel (gset_flash_values) */
	p->flash = g->flash;
	/* and one without sequence parallelism (no_sp) runs SP-off plans */
	if (framework_get(x->o->framework)->no_sp)
		p->sp = 0;
	p->framework = x->o->framework;
	p->opt_impl = x->o->opt_impl;
	p->compile = x->o->compile;
	p->grad_accum_fusion = x->o->ga_fusion;
	p->recompute_modules = g->rc == RC_SELECTIVE ? x->o->rc_modules : 0;
}

void layout_stage(const struct layout *L, int s, int *pool, int *tp)
{
	if (s < L->seg[0].stages) {
		*pool = L->seg[0].pool;
		*tp = L->seg[0].tp;
	} else {
		*pool = L->seg[1].pool;
		*tp = L->seg[1].tp;
	}
}

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

/* A layout's probes into its fits f (probe_fits): the first probe's
 * per-stage time (t), time but for the PP, CP and EP transfers (tc),
 * memory (mem) and the memory a plan may use of its GPU (cap) kept, the
 * second's and third's taken into f as they come (two: a second probe
 * runs). Issue 13, nineteenth round: the fits are what probe_fits
 * computed from rows of all three, by the same expressions. */
struct probe_out {
	struct ctx *x;
	int S, two;
	struct fit *f;
	double t[MAX_STAGES], tc[MAX_STAGES], mem[MAX_STAGES], cap[MAX_STAGES];
};

/* A stage's time but for its PP, CP and EP transfers (probe_out's tc). */
static double probe_tc(const struct perf_stage *st)
{
	return st->t_total - st->t_pp - st->t_cp - st->t_ep;
}

/* Stage s's fit f from the first probe's values (one layer, in o) and a
 * second point one layer further (time t2, memory m2, tc c2), with the
 * memory a plan may use of its GPU, cap: slopes and intercepts. */
static void fit_two(struct fit *f, const struct probe_out *o, int s, double t2, double m2,
		    double c2, double cap)
{
	double bt = t2 - o->t[s], bm = m2 - o->mem[s];
	f->ta = o->t[s] - bt;
	f->ma = o->mem[s] - bm;
	f->tbm = f->tbd = bt;
	f->mbm = f->mbd = bm;
	f->cbm = f->cbd = c2 - o->tc[s];
	f->ca = o->tc[s] - f->cbm;
	f->cap = cap;
}

static void probe_take(void *arg, int v, const struct estimate *e)
{
	struct probe_out *o = arg;
	struct ctx *x = o->x;
	x->res->stats.evaluated++;
	x->res->stats.probes++;
	const struct perf_stage *st = e->stages;
	struct fit *f = o->f;
	if (v == 0) {
		for (int s = 0; s < o->S; s++) {
			o->t[s] = st[s].t_total;
			o->tc[s] = probe_tc(&st[s]);
			o->mem[s] = st[s].total;
			o->cap[s] = st[s].capacity * x->mem_frac;
		}
	} else if (v == 1 && o->two) {
		/* one layer (row 0) and two: slopes and intercepts */
		for (int s = 0; s < o->S; s++)
			fit_two(&f[s], o, s, st[s].t_total, st[s].total, probe_tc(&st[s]),
				st[s].capacity * x->mem_frac);
	} else {
		/* a dense layer (probe_fits: after the two-layer probe) */
		for (int s = 0; s < o->S; s++) {
			f[s].cbd = probe_tc(&st[s]) - f[s].ca;
			f[s].tbd = st[s].t_total - f[s].ta;
			f[s].mbd = st[s].total - f[s].ma;
		}
	}
}

/* L's probes at count replicas: probe v has every stage on layers
 * [first[v], last[v]] (ranges may overlap; perf only looks at the layer
 * kinds), its stage records alone (perf_stage_times_each: a probe reads
 * nothing else, docs/planner.md, sixth round), sampled into the
 * estimates' time as n calls. */
static int probe_run(struct ctx *x, const struct gset *g, const struct layout *L, int count,
		     const int *first, const int *last, int n, struct probe_out *o)
{
	struct plan p;
	plan_globals(&p, x, g);
	int mb = 4 * L->pp;           /* enough micro-batches for a full pipeline */
	p.gbs = g->mbs * count * mb;
	p.n_replicas = 1;
	struct replica rep = { count, 1.0 / count, L->pp, NULL };
	struct stage st[MAX_STAGES];
	for (int s = 0; s < L->pp; s++)
		layout_stage(L, s, &st[s].pool, &st[s].tp);
	rep.stages = st;
	p.replicas = &rep;
	/* an empty error, not a zeroed one: the 1 KB message buffer cleared
	 * for every probe was 4M instructions of the 70B search on 1,024
	 * GPUs, and nothing reads past the terminator */
	struct hp_err err;
	err.code = 0;
	err.msg[0] = '\0';
	o->x = x;
	o->S = L->pp;
	int timed = 0;
	for (int v = 0; v < n; v++)
		timed += x->n_estimates++ % ESTIMATE_SAMPLE == 0;
	double t0 = timed ? hp_now() : 0;
	int rc = perf_stage_times_each(x->c, x->m, &p, first, last, n, probe_take, o, &err);
	if (timed)
		x->res->stats.estimate_s += (double)ESTIMATE_SAMPLE * timed * (hp_now() - t0) / n;
	return rc;
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
	/* First a guess from the slopes (the MoE ones; exact for a stage of
	 * one kind of layer up to rounding), kept only when the test itself
	 * says it is the last fit (it fits and one more multiple of v does
	 * not), which by the monotony above is what the search finds. Issue
	 * 13, thirteenth round: two tests instead of log2(limit / v). */
	double gt = f->tbm > 0 ? (C - f->ta) / f->tbm : HUGE_VAL;
	double gm = f->mbm > 0 ? (f->cap - f->ma) / f->mbm : HUGE_VAL;
	double g = perf_fmin(gt, gm) / v;
	if (g >= 0 && g <= hi) {
		int m = (int)g;
		if ((m == 0 || fill_fits(f, a, m * v, dense, C)) &&
		    (m == hi || !fill_fits(f, a, (m + 1) * v, dense, C)))
			return m * v;
	}
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
int sr_fill(const struct fit *f, int S, int layers, int dense, int v, double C, int *k)
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

/* The bottleneck of a fill k: its stages' largest fitted time. */
static double fill_peak(const struct fit *f, int S, int dense, const int *k)
{
	double peak = -HUGE_VAL;
	for (int s = 0, a = 0; s < S; a += k[s++])
		peak = perf_fmax(peak, fit_time(&f[s], a, a + k[s] - 1, dense));
	return peak;
}

/* solve_layout's bisection on the bottleneck C: from [0, the slowest
 * stage's time for every layer] to within 1e-7, hi where the greedy fill
 * succeeds. Returns hi; k is scratch. Issue 13, thirteenth round: every
 * test of the bisection is decided as sr_fill(mid) == 0 decides it, but
 * not always by calling it (120,465 calls were 8% of the 70B search on
 * 1,024 GPUs):
 *   - A fill that succeeds at C with bottleneck b (fill_peak <= C)
 *     succeeds at every C' in [b, C] with the same layers: each stage's
 *     take fits at C' (its time is at most b), the next multiple of v did
 *     not fit at C >= C', and with no negative slope fill_take finds the
 *     largest take that fits (the test is monotone in the count), so each
 *     stage takes the same from the same first layer. The bisection's
 *     later tests all lie under C (hi = C), so one at b or above
 *     succeeds.
 *   - When a stage's time and memory depend on its count of layers only
 *     (one kind of layer: every layer dense or none), success is
 *     monotone in C: at C' > C each stage ends no earlier than at C (a
 *     stage starting later has left fewer layers of the same kind, and v
 *     layers fit where more did). Then a fill that fails at b's
 *     predecessor (nextafter towards 0) proves that the least C that
 *     succeeds is b itself, and every later test is a comparison with
 *     b. A fill that succeeds there gives a lower b (one such step per
 *     success of the bisection: four cost more fills than they saved).
 * A negative or NaN slope (fill_take scans) calls sr_fill for every test,
 * as before. */
static double fill_bisect(const struct fit *f, int S, int layers, int dense, int v, int *k)
{
	int nonneg = 1;
	for (int s = 0; s < S; s++)
		nonneg &= f[s].tbd >= 0 && f[s].tbm >= 0 && f[s].mbd >= 0 && f[s].mbm >= 0;
	int mono = nonneg && (dense <= 0 || dense >= layers);
	double hi = 0;
	for (int s = 0; s < S; s++)
		hi = perf_fmax(hi, fit_time(&f[s], 0, layers - 1, dense));
	/* k holds the fill at C = HUGE_VAL, which succeeded: so does every
	 * C from its bottleneck up */
	double lo = 0, ok_at = nonneg ? fill_peak(f, S, dense, k) : HUGE_VAL;
	double least = 0;                              /* the least C that fills */
	int known = 0;                                 /* ... once found */
	for (int it = 0; it < 60 && hi - lo > 1e-7 * hi; it++) {
		double mid = 0.5 * (lo + hi);
		int ok;
		if (known)
			ok = mid >= least;
		else if (nonneg && mid >= ok_at)
			ok = 1;
		else if ((ok = sr_fill(f, S, layers, dense, v, mid, k) == 0) && nonneg) {
			ok_at = fill_peak(f, S, dense, k);
			if (mono && sr_fill(f, S, layers, dense, v, nextafter(ok_at, -HUGE_VAL), k) < 0) {
				least = ok_at;
				known = 1;
			} else if (mono) {
				ok_at = fill_peak(f, S, dense, k);
			}
		}
		if (ok)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static void sp_move(struct search_plan *dst, struct search_plan *src);
static void finish_plan(const struct ctx *x, struct search_plan *sp);
static void sp_label(const struct ctx *x, struct search_plan *sp);

/* While plans must keep a headroom (x->keep_h >= 0: search_run's first
 * passes), one that fits only by eating into it is left out like one
 * that does not fit. */
int over_headroom(const struct ctx *x, const struct estimate *e)
{
	double need, cap;
	return x->keep_h >= 0 && search_mem_state(e, x->keep_h, &need, &cap) == MEM_RISKY;
}

/* A plan that does not fit in memory (sp, estimated; taken over): keep it
 * as the nearest memory miss when its fullest stage, as a share of its
 * GPU, comes closer than the nearest so far. */
void mem_miss_offer(struct ctx *x, struct search_plan *sp)
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
	char nb[32], cb[32], tb[32], lb[32], what[200];
	/* The fullest stage as mem_summary picks it (total over capacity),
	 * for its total with the allocator's reserve; and the stage whose
	 * live bytes exceed its GPU the most, which is what makes a plan
	 * that does not fit (perf_stage.fits) fail, and may be another. */
	double total = 0, worst = -1, live = 0, lcap = 0, lworst = -1;
	for (int i = 0; i < res->mem_miss.est.n_stages; i++) {
		const struct perf_stage *st = &res->mem_miss.est.stages[i];
		double r = st->capacity > 0 ? st->total / st->capacity : HUGE_VAL;
		double rl = st->capacity > 0 ? (st->total - st->slack) / st->capacity : HUGE_VAL;
		if (r > worst) {
			worst = r;
			total = st->total;
		}
		if (rl > lworst) {
			lworst = rl;
			live = st->total - st->slack;
			lcap = st->capacity;
		}
	}
	double keep = (1 - x->o->mem_headroom) * cap;
	if (search_mem_state(&res->mem_miss.est, x->o->mem_headroom, NULL, NULL) == MEM_NOFIT ||
	    !(keep > 0))
		snprintf(what, sizeof what, "needs %s of %s (%.0f%% over)",
			 hp_fmt_bytes(nb, sizeof nb, live), hp_fmt_bytes(cb, sizeof cb, lcap),
			 100 * (lworst - 1));
	else
		/* it fits, but only in the headroom a plan must leave free */
		snprintf(what, sizeof what,
			 "holds %s with the allocator's reserve (%s live), above the %s that "
			 "--mem-headroom %g leaves of %s (%.0f%% over)",
			 hp_fmt_bytes(tb, sizeof tb, total), hp_fmt_bytes(nb, sizeof nb, need),
			 hp_fmt_bytes(lb, sizeof lb, keep), x->o->mem_headroom,
			 hp_fmt_bytes(cb, sizeof cb, cap), 100 * (total / keep - 1));
	snprintf(x->mem_desc, sizeof x->mem_desc,
		 "%.*s, dp%d, recompute %s, ZeRO-%d, micro-batch %d: its fullest stage %s",
		 UTF8_CUT(res->mem_miss.label, 60), plan_dp(p), plan_recompute_name(p->recompute), p->zero, p->mbs,
		 what);
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
	/* the largest ratio never falls (perf_fmax passes a NaN by): once
	 * it reaches the nearest miss so far, the layout is no nearer
	 * (issue 13, nineteenth round: most layouts probed are misses) */
	double worst = 0, now = mem_miss_now(x);
	int a = 0;
	for (int s = 0; s < S; s++) {
		int k = layers / S + (s < layers % S);
		worst = perf_fmax(worst, fit_mem(&f[s], a, a + k - 1, dense) / f[s].cap);
		if (now > 0 && worst >= now)
			return;
		a += k;
	}
	/* the layout with its even split, copied only past the test above,
	 * which most misses fail (issue 13, fifteenth round: 1.3M fewer
	 * instructions in the 70B search on 1,024 GPUs) */
	struct layout E = *L;
	for (int s = 0; s < S; s++)
		E.k[s] = layers / S + (s < layers % S);
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
	/* under --framework NAME only a plan it runs is a miss worth naming
	 * (try_combo's test): a PP layout is no nearest miss for apex DDP */
	if (plan_validate(&sp.plan, x->c, x->m, "planner", &err) < 0 ||
	    (x->o->framework != FW_ANY &&
	     !(runs_on_mask(&sp.plan, x->c, NULL, 0) & (1u << x->o->framework))) ||
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
/* The memory summary of replica group r of p (a well-formed group of a
 * plan of DP degree dp) into g: from the group memo, else from
 * perf_stage_memories on the plan of that group alone with its count set
 * to dp, whose records are group r's in p: a group's records are a
 * function of the plan's settings, the DP degree and the group itself
 * (perf_memo.h; perf_stage_memories evaluates each group on its own, and
 * of the other groups reads only the DP degree and the pools used, whose
 * other-site pool no memory input reads: perf_int.h, struct
 * stage_mem_in and stage_mem_state). Returns perf_stage_memories' status. */
static int group_memory(struct ctx *x, const struct plan *p, int r, int dp,
			struct perf_group_mem *g, struct hp_err *err)
{
	double h = x->keep_h >= 0 ? x->keep_h : x->o->mem_headroom;
	const struct perf_group_mem *hit = perf_memo_group_mem(x->c, x->m, p, r, h);
	if (hit) {
		*g = *hit;
		return 0;
	}
	struct plan one = *p;
	struct replica rep = p->replicas[r];
	rep.count = dp;
	one.n_replicas = 1;
	one.replicas = &rep;
	struct estimate e;
	double t0 = sample_begin(x);
	int rc = perf_stage_memories(x->c, x->m, &one, NULL, &e, err);
	sample_end(x, t0);
	if (rc < 0)
		return -1;
	mem_summary(e.stages, e.n_stages, h, g);
	estimate_free(&e);
	perf_memo_group_mem_put(x->c, x->m, p, r, h, g);
	return 0;
}

int mem_first(struct ctx *x, const struct plan *p, struct hp_err *err)
{
	/* nothing it could drop: risky plans are kept, and a first miss is
	 * kept whatever its ratio */
	if (x->keep_h < 0 && mem_miss_now(x) == 0)
		return 0;
	/* the memory of each replica group (issue 13, fourteenth round: a
	 * DeepSeek-V3 plan of the deadline search checked about 90 stages
	 * in 4 groups, most of them met before at the same DP degree), in
	 * the order of the records, so their summaries combine into the
	 * records' (mem_summary); a plan perf_stage_memories would refuse
	 * for a group (check_plan) is checked whole, for its message */
	int ok = p->replicas && p->n_replicas >= 1, dp = 0;
	for (int r = 0; ok && r < p->n_replicas; r++) {
		const struct replica *rp = &p->replicas[r];
		ok = rp->count >= 0 && rp->n_stages >= 1 && rp->stages;
		dp += ok ? rp->count : 0;
	}
	struct perf_group_mem all = { -1, 0, 0, 0, 0 };
	if (!ok) {
		struct estimate e;
		if (perf_stage_memories(x->c, x->m, p, NULL, &e, err) < 0)
			return -1;
		mem_summary(e.stages, e.n_stages,
			    x->keep_h >= 0 ? x->keep_h : x->o->mem_headroom, &all);
		estimate_free(&e);
	}
	for (int r = 0; ok && r < p->n_replicas; r++) {
		struct perf_group_mem g;
		if (group_memory(x, p, r, dp, &g, err) < 0)
			return -1;
		mem_combine(&all, &g);
	}
	enum search_mem st = mem_of_summary(&all);
	int drop = 0;
	if (st == MEM_RISKY)
		drop = x->keep_h >= 0;
	else if (st == MEM_NOFIT) {
		double ratio = all.cap > 0 ? all.need / all.cap : HUGE_VAL, now = mem_miss_now(x);
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
int probe_fits(struct ctx *x, const struct gset *g, const struct layout *L,
		      struct fit *f, int at)
{
	const struct model_spec *m = x->m;
	int S = L->pp, layers = m->layers, dense = layout_dense_layers(m);
	/* Memory is probed at the largest data-parallel degree the cluster
	 * and batch allow (ZeRO shards shrink with it), so no layout is lost
	 * that fits beside other pools' replicas; every plan is checked at
	 * its real degree afterwards. */
	int count = at > 0 ? at : HP_MAX(1, HP_MIN(x->max_dp, (int)(x->o->gbs / g->mbs)));
	int moe = m->moe.experts > 0;
	/* Probe with MoE layers at the end (or dense ones for a dense
	 * model): one layer, two, and a dense one where both kinds are */
	int first[3] = { layers - 1 }, last[3] = { layers - 1 }, n = 1;
	int two = layers >= 2, three = moe && dense > 0 && dense < layers;
	if (two)
		first[n] = layers - 2, last[n++] = layers - 1;
	if (three)
		first[n] = last[n] = 0, n++;
	struct probe_out o;
	o.two = two;
	o.f = f;
	if (probe_run(x, g, L, count, first, last, n, &o) < 0)
		return -1;
	if (!two) {
		/* one layer: a second probe's values as twice the first's
		 * (three is 0: one layer is of one kind) */
		for (int s = 0; s < S; s++)
			fit_two(&f[s], &o, s, 2 * o.t[s], 2 * o.mem[s], 2 * o.tc[s], o.cap[s]);
	}
	return 0;
}

/* Single-pool layout probes shared by a search and its per-pool searches
 * (pool_search_run: the best plan on each pool alone, on a cluster of
 * that pool only). A probe reads of the cluster only its pool's record
 * and the cluster-wide network fields the per-pool cluster copies (a
 * one-pool plan has no other pool: perf.c's plan_pools gives other_pool
 * -1), and of the search the model, the options the per-pool search
 * copies, the setting, the layout, the probe's replica count and the
 * memory fraction: so the same fits, bit for bit, in both searches where
 * the count is the same, the batch's micro-batches (gbs / mbs) when
 * neither cluster caps it. Keyed by the setting, the shared search's
 * pool index, TP, PP and count; an entry keeps probe_fits's return, the
 * probes it counted (a hit counts them again: the same counters whichever
 * search probed first, on any thread count) and the fits. Issue 13,
 * fifteenth round: 70B on 1,024 GPUs of 3 pools, whose per-pool searches
 * probed 9,426 times beside the shared search's 20,661. */
struct probe_key {
	struct gset g;
	int pool, tp, pp, count;
};
_Static_assert(sizeof(struct probe_key) == sizeof(struct gset) + 4 * sizeof(int),
	       "struct probe_key compares as bytes");

struct probe_entry {
	struct probe_key k;
	int rc, n_probes;
	struct fit *f;                  /* k.pp of them when rc is 0 */
	int fill;                       /* layout_fill's return when rc is 0 */
	int *split;                     /* its layers per stage when fill is 1 */
	double A, B, A_lo, B_lo;
	struct probe_entry *next;
};

/* Buckets (a power of two): 4,096 held chains of cold entries a lookup
 * walked (issue 13, seventeenth round: probe_find 2.2% of the 70B rate
 * search's samples, 1.5% at 16,384 buckets, 128 KB a search). */
#define PROBE_SHARE_BUCKETS 16384
struct probe_share {
	pthread_mutex_t mu;
	struct probe_entry *bucket[PROBE_SHARE_BUCKETS];
};

static struct probe_share *probe_share_new(void)
{
	struct probe_share *sh = xcalloc(1, sizeof *sh);
	pthread_mutex_init(&sh->mu, NULL);
	return sh;
}

static void probe_share_free(struct probe_share *sh)
{
	if (!sh)
		return;
	for (size_t i = 0; i < PROBE_SHARE_BUCKETS; i++)
		for (struct probe_entry *e = sh->bucket[i], *n; e; e = n) {
			n = e->next;
			free(e->f);
			free(e->split);
			free(e);
		}
	pthread_mutex_destroy(&sh->mu);
	free(sh);
}

/* The key's bucket: its 32-bit words mixed a word at a time (a byte at
 * a time, FNV-1a's chain of 44 dependent multiplies was most of a
 * lookup). */
static size_t probe_bucket(const struct probe_key *k)
{
	uint32_t w[sizeof *k / sizeof(uint32_t)];
	_Static_assert(sizeof *k % sizeof(uint32_t) == 0, "a probe key is whole words");
	memcpy(w, k, sizeof w);
	uint64_t h = 0;
	for (size_t i = 0; i < HP_ARRAY_LEN(w); i++)
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	return (size_t)(h >> 32) % PROBE_SHARE_BUCKETS;
}

/* The entry of k in sh, or NULL (sh->mu held). */
static struct probe_entry *probe_find(struct probe_share *sh, const struct probe_key *k)
{
	for (struct probe_entry *e = sh->bucket[probe_bucket(k)]; e; e = e->next)
		if (!memcmp(&e->k, k, sizeof *k))
			return e;
	return NULL;
}

static int layout_fill(const struct fit *f, int S, int layers, int dense, int v,
		       struct layout *L);

/* L's fits into f (probe_fits(x, g, L, f, 0)) and its layer split from
 * them (layout_fill's return into *fill, L's split and terms set when
 * 1), through x's shared probes for a single-pool layout probed at the
 * batch's micro-batches (when this search's DP cap does not lower them):
 * a hit copies what the first search found and counts the probes it
 * counted; a miss probes, fills and keeps both. Returns probe_fits's
 * return. */
static int solve_shared(struct ctx *x, const struct gset *g, struct layout *L, struct fit *f,
			int *fill)
{
	const struct model_spec *m = x->m;
	int S = L->pp, layers = m->layers, v = g->sched == SCHED_INTERLEAVED ? g->vpp : 1;
	int dense = layout_dense_layers(m);
	struct probe_share *sh = x->share;
	int M = (int)(x->o->gbs / g->mbs);
	if (!sh || L->nseg != 1 || HP_MAX(1, HP_MIN(x->max_dp, M)) != M) {
		int rc = probe_fits(x, g, L, f, 0);
		if (rc == 0)
			*fill = layout_fill(f, S, layers, dense, v, L);
		return rc;
	}
	struct probe_key k;
	memset(&k, 0, sizeof k);
	k.g = *g;
	k.pool = x->share_pool0 >= 0 ? x->share_pool0 : L->seg[0].pool;
	k.tp = L->seg[0].tp;
	k.pp = S;
	k.count = M;
	pthread_mutex_lock(&sh->mu);
	const struct probe_entry *e = probe_find(sh, &k);
	if (e) {
		int rc = e->rc;
		if (rc == 0) {
			memcpy(f, e->f, (size_t)S * sizeof *f);
			*fill = e->fill;
			if (e->fill == 1) {
				memcpy(L->k, e->split, (size_t)S * sizeof *L->k);
				L->A = e->A;
				L->B = e->B;
				L->A_lo = e->A_lo;
				L->B_lo = e->B_lo;
				L->rate = 1.0 / (L->B * L->size);
			}
		}
		pthread_mutex_unlock(&sh->mu);
		/* its probes ran once, counted where they ran: a hit runs
		 * none (it once added n here too, so that the counts of a
		 * layout probed for the whole cluster and again for its pool
		 * alone came out twice) */
		return rc;
	}
	pthread_mutex_unlock(&sh->mu);
	long p0 = x->res->stats.probes;
	int rc = probe_fits(x, g, L, f, 0);
	struct probe_entry *ne = xcalloc(1, sizeof *ne);
	ne->k = k;
	ne->rc = rc;
	ne->n_probes = (int)(x->res->stats.probes - p0);
	if (rc == 0) {
		*fill = layout_fill(f, S, layers, dense, v, L);
		ne->fill = *fill;
		ne->f = xmalloc((size_t)S * sizeof *ne->f);
		memcpy(ne->f, f, (size_t)S * sizeof *f);
		if (*fill == 1) {
			ne->split = xmalloc((size_t)S * sizeof *ne->split);
			memcpy(ne->split, L->k, (size_t)S * sizeof *L->k);
			ne->A = L->A;
			ne->B = L->B;
			ne->A_lo = L->A_lo;
			ne->B_lo = L->B_lo;
		}
	}
	pthread_mutex_lock(&sh->mu);
	if (probe_find(sh, &k)) {       /* another thread's, the same */
		/* probed twice at once: the one kept is counted where it
		 * ran, so that each key's probes count once whatever the
		 * threads' timing */
		x->res->stats.evaluated -= ne->n_probes;
		x->res->stats.probes -= ne->n_probes;
		free(ne->f);
		free(ne->split);
		free(ne);
	} else {
		size_t b = probe_bucket(&k);
		ne->next = sh->bucket[b];
		sh->bucket[b] = ne;
	}
	pthread_mutex_unlock(&sh->mu);
	return rc;
}

/* A layout that fits nowhere, met while a setting's layouts were solved
 * ahead (struct pre_layouts): note_memory_miss's inputs, for the setting
 * to note when it runs. */
struct miss_note {
	struct layout L;
	struct fit *f;              /* L.pp of them */
};

/* A setting's layouts solved ahead by a thread that would otherwise wait
 * (issue 13, fourteenth round; layouts_ahead). The layouts, the pools'
 * TPs and the layout probes' counts are what search_gset would compute
 * (nothing it has kept is read: layouts_solve); the memory misses among
 * them wait in miss[] for the setting, which reads and sets the nearest
 * miss. state: PRE_NONE, PRE_RUNNING (a thread solves them), PRE_DONE
 * (solved; valid 0 when cut short by a cancel), PRE_OWN (the setting
 * began first and solves its own). */
enum { PRE_NONE, PRE_RUNNING, PRE_DONE, PRE_OWN };
struct pre_layouts {
	int state, valid;
	struct layouts ls;
	int n_single, best_tp[HP_MAX_POOLS], wide_tp[HP_MAX_POOLS];
	long evaluated, probes;
	double estimate_s;
	struct miss_note *miss;
	int n_miss, cap_miss;
};

/* Keep L's memory miss (fits f) for the setting (solve_layout ahead). */
static void miss_defer(struct pre_layouts *pr, const struct layout *L, const struct fit *f)
{
	if (pr->n_miss == pr->cap_miss) {
		pr->cap_miss = pr->cap_miss ? 2 * pr->cap_miss : 8;
		pr->miss = xrealloc(pr->miss, (size_t)pr->cap_miss * sizeof *pr->miss);
	}
	struct miss_note *n = &pr->miss[pr->n_miss++];
	n->L = *L;
	n->f = xmalloc((size_t)L->pp * sizeof *n->f);
	memcpy(n->f, f, (size_t)L->pp * sizeof *n->f);
}

/* The layer split of layout L (S stages, v virtual stages each) from its
 * fits f: 1 with L's split (k) and terms (A, B, A_lo, B_lo, rate) set,
 * -1 when the greedy fill fails at every bottleneck (a memory miss), 0
 * when the fill at the bisection's bottleneck and at none both fail. */
static int layout_fill(const struct fit *f, int S, int layers, int dense, int v,
		       struct layout *L)
{
	int k[MAX_STAGES];
	if (sr_fill(f, S, layers, dense, v, HUGE_VAL, k) < 0)
		return -1;
	double hi = fill_bisect(f, S, layers, dense, v, k);
	if (sr_fill(f, S, layers, dense, v, hi, k) < 0 &&
	    sr_fill(f, S, layers, dense, v, HUGE_VAL, k) < 0)
		return 0;
	double sum = 0, mx = 0, csum = 0, cmx = 0;
	int a = 0;
	for (int s = 0; s < S; s++) {
		L->k[s] = k[s];
		double t = fit_time(&f[s], a, a + k[s] - 1, dense);
		double tc = fit_comp(&f[s], a, a + k[s] - 1, dense);
		sum += t;
		mx = perf_fmax(mx, t);
		csum += tc;
		cmx = perf_fmax(cmx, tc);
		a += k[s];
	}
	L->B = mx;
	L->A = (sum - mx) / v;
	L->B_lo = cmx;
	L->A_lo = (csum - cmx) / v;
	L->rate = 1.0 / (mx * L->size);
	return 1;
}

/* Solve the layer partition of layout L under global settings g; a
 * layout that fits nowhere is noted (note_memory_miss), or kept in
 * defer's misses when not NULL. */
static void solve_layout(struct ctx *x, const struct gset *g, struct layout *L,
			 struct pre_layouts *defer)
{
	const struct model_spec *m = x->m;
	int S = L->pp, layers = m->layers, v = g->sched == SCHED_INTERLEAVED ? g->vpp : 1;
	int dense = layout_dense_layers(m);
	L->fits = 0;
	if (S * v > layers || layers % v || S > MAX_STAGES)
		return;
	struct fit f[MAX_STAGES];
	int fill = 0;
	if (solve_shared(x, g, L, f, &fill) < 0)
		return;
	if (fill < 0) {
		if (defer)
			miss_defer(defer, L, f);
		else
			note_memory_miss(x, g, L, f, S, layers, dense);
		return;
	}
	L->fits = fill == 1;
}

static void layout_price(const struct cluster *c, struct layout *L)
{
	L->usd_h = 0;
	L->price_known = 1;
	for (int i = 0; i < c->n_pools; i++) {
		if (!L->gpus[i])
			continue;
		const struct pool *p = &c->pools[i];
		if (!pool_price_known(p))
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
	/* a plan with its memory headroom intact ranks above a risky one,
	 * and one within its GPUs above one over them (search_plan.risky),
	 * whatever their scores; then scores within a part in 1e9 are equal */
	if (a->risky != b->risky)
		return a->risky < b->risky;
	if (fabs(a->score - b->score) > 1e-9 * fmax(fabs(a->score), fabs(b->score)))
		return a->score < b->score;
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
		/* pool names cut on a character boundary (utf8_cut), never
		 * inside a multi-byte character */
		const char *na = x->c->pools[pa].name, *nb = x->c->pools[pb].name;
		if (pa == pb)
			w = snprintf(buf + n, sizeof buf - n, "%s%.*s tp%d pp%d", n ? " + " : "",
				     (int)utf8_cut(na, 12), na, rep->stages[0].tp, rep->n_stages);
		else
			w = snprintf(buf + n, sizeof buf - n, "%s%.*s>%.*s pp%d", n ? " + " : "",
				     (int)utf8_cut(na, 10), na, (int)utf8_cut(nb, 10), nb,
				     rep->n_stages);
		n = w < 0 ? n : HP_MIN(n + (size_t)w, sizeof buf - 1);
	}
	if (n >= sizeof sp->label)
		memcpy(buf + utf8_cut(buf, sizeof sp->label - 4), "...", 4);
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
void finish_plan_on(const struct ctx *x, struct search_plan *sp, unsigned runs_on)
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
	sp->time_to_train_s = search_train_steps(x->tokens, (double)sp->plan.gbs * sp->est.seq_len) *
			      sp->est.step_time_s;
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

void keep_plan(struct ctx *x, struct search_plan *sp)
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

/* Has the caller asked the search to stop (search_opts.cancel)? Polled
 * between layouts, layout sets and DP terms inside a global setting, so
 * that a cancel is honoured within a few milliseconds even on clusters
 * where one setting takes seconds (issue 13: 65,536 GPUs); a setting cut
 * short merges what it found and marks the search cancelled. */
int search_cancelled(const struct ctx *x)
{
	return x->o->cancel && atomic_load(x->o->cancel);
}

/* The most layouts a setting's list grew to on this thread: a later
 * setting's list starts at that size. Doubling from 64 copied a list of
 * 680-byte layouts up to three times (the 70B search on 1,024 GPUs
 * grows them to 512, two-pool layouts that do not fit pushed and
 * dropped again): 1.2% of its instructions (issue 13, fifteenth round).
 * Only the capacity depends on it. */
static _Thread_local int layouts_cap_seen;

static struct layout *layouts_push(struct layouts *ls)
{
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : HP_MAX(64, layouts_cap_seen);
		layouts_cap_seen = HP_MAX(layouts_cap_seen, ls->cap);
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
static void single_pool_layouts(struct ctx *x, const struct gset *g, struct layouts *ls,
				struct pre_layouts *defer)
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
				solve_layout(x, g, L, defer);
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
			 int ta, int tb, struct pre_layouts *defer)
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
			solve_layout(x, g, L, defer);
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
			       const int *best_tp, const int *wide_tp, struct pre_layouts *defer)
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
					pair_layouts(x, g, ls, a, b, ta, tb, defer);
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

/* Where each pool plausibly stands once the setting's layouts are
 * combined (shortlist_pool's share rate): the micro-batches of the batch
 * it takes, in proportion to its steady rate (its steadiest layout's
 * replicas that fit, over that layout's B: micro-batches per second with
 * every replica busy), and the replicas it runs on that layout at that
 * share. */
struct pool_view {
	const struct layout *best[HP_MAX_POOLS];
	const struct layout *light[HP_MAX_POOLS];
	double share[HP_MAX_POOLS];
	int reps[HP_MAX_POOLS];
};

/* The fewest micro-batches a replica of L takes: one, or under the
 * interleaved schedule its depth (plan_validate). */
static int view_q(const struct gset *g, const struct layout *L)
{
	return g->sched == SCHED_INTERLEAVED ? L->pp : 1;
}

/* Replicas of single-pool layout L on a share of micro-batches: as many
 * as fit, each taking at least its fewest, and at least one. */
static int view_reps(const struct gset *g, const struct layout *L, double share)
{
	return HP_MAX(1, (int)fmin(L->max_count, floor(share / view_q(g, L))));
}

/* Micro-batches a replica of L takes when n of them share `share`: the
 * share over n rounded up to a multiple of its fewest. */
static int view_mb(const struct gset *g, const struct layout *L, double share, int n)
{
	int q = view_q(g, L);
	return HP_MAX(q, (int)ceil(share / n / q - 1e-9) * q);
}

/* The pools' view (struct pool_view) of setting g's single-pool layouts. */
static void pool_view_init(const struct ctx *x, const struct gset *g, const struct layouts *ls,
			   int n_single, struct pool_view *v)
{
	double R[HP_MAX_POOLS] = { 0 }, tot = 0, M = (double)(x->o->gbs / g->mbs);
	memset(v, 0, sizeof *v);
	for (int i = 0; i < n_single; i++) {
		const struct layout *L = &ls->v[i];
		int p = L->seg[0].pool;
		if (!L->fits || L->max_count < 1)
			continue;
		if (L->max_count / L->B > R[p]) {
			R[p] = L->max_count / L->B;
			v->best[p] = L;
		}
		if (!v->light[p] || L->size > v->light[p]->size ||
		    (L->size == v->light[p]->size && L->pp > v->light[p]->pp))
			v->light[p] = L;
	}
	for (int p = 0; p < x->c->n_pools; p++)
		tot += R[p];
	for (int p = 0; p < x->c->n_pools; p++)
		if (v->best[p] && tot > 0) {
			v->share[p] = M * R[p] / tot;
			v->reps[p] = view_reps(g, v->best[p], v->share[p]);
		}
}

/* The exposed DP synchronisation of L's n replicas of m micro-batches
 * each beside the pool of the largest share other than L's, on its
 * lightest layout (the most GPUs a replica: the fewest parameters a GPU)
 * at its share: a stage's DP group spans the pools that hold its layers,
 * and a plan's step pays its worst stage's sync, which the other pool's
 * lightest stages leave to L's wherever L's are the heavier. 0 when
 * the estimate fails. */
static double view_dp(struct ctx *x, const struct gset *g, const struct layout *L, int n, int m,
		      const struct pool_view *v)
{
	int p = L->seg[0].pool, o = -1;
	for (int q = 0; q < x->c->n_pools; q++)
		if (q != p && v->light[q] && (o < 0 || v->share[q] > v->share[o]))
			o = q;
	const struct layout *Lo = o >= 0 ? v->light[o] : NULL;
	int no = Lo ? view_reps(g, Lo, v->share[o]) : 0;
	int mo = Lo ? view_mb(g, Lo, v->share[o], no) : 0;
	/* a DP degree EP divides (combo_groups): the other pool's
	 * replicas, or L's when there is none, rounded up */
	int d = n + no;
	while ((long)d * g->cp % g->ep)
		d++;
	if (Lo)
		no += d - n - no;
	else
		n = d;
	struct plan pl;
	plan_globals(&pl, x, g);
	pl.gbs = g->mbs * (n * m + no * mo);
	add_replica(&pl, L, n, m, g->mbs, pl.gbs);
	if (Lo)
		add_replica(&pl, Lo, no, mo, g->mbs, pl.gbs);
	double dp = search_plan_dp_least(x, &pl);
	plan_free(&pl);
	return HP_MAX(dp, 0.0);
}

/* Layout L's micro-batches per second on scale times its pool's share
 * of the batch (struct pool_view; at most the batch), into r[0] and r[1]
 * for scale 1 and 2: its replicas at that share (view_reps), each the
 * share over them (view_mb), over a step of its pipeline m B + A and,
 * with dp, the exposed DP synchronisation of a plan of it beside another
 * pool (view_dp, at scale 1; without, the rates bound those with it from
 * above). What the per-GPU rate leaves out and the combination pays: the
 * pipeline's fill and drain when the batch gives each replica few
 * micro-batches, the GPUs a layout leaves idle on its pool, and the DP
 * sync across the pools, which a plan pays at its worst stage. Scale 2:
 * the share when the plan leaves some pools out. */
static void share_rates(struct ctx *x, const struct gset *g, const struct layout *L,
			const struct pool_view *v, int dp, double *r)
{
	double M = (double)(x->o->gbs / g->mbs), sync = 0;
	for (int s = 0; s < 2; s++) {
		double share = fmin((s + 1) * v->share[L->seg[0].pool], M);
		int n = view_reps(g, L, share), m = view_mb(g, L, share, n);
		if (!s && dp)
			sync = view_dp(x, g, L, n, m, v);
		r[s] = (double)n * m / (m * L->B + L->A + sync);
	}
}

/* A pool's share rates, their DP terms estimated only where a pick needs
 * them: up[s][i] without DP, ex[s][i] with (done[i] once estimated). */
struct share_memo {
	double *up[2], *ex[2];
	char *done;
};

/* The layout of all[] (n of them, skip[i]: left out) of the best share
 * rate at scale s + 1, the lowest index among equals, as a scan of every
 * layout's rate with DP would pick: a layout's rate without DP bounds it
 * from above, so one whose bound is under the best rate found needs no
 * DP estimate (on the bench's DeepSeek-V3 case about half were not
 * needed). -1 when every layout is left out. */
static int share_best(struct ctx *x, const struct gset *g, const struct layout **all, int n,
		      const char *skip, struct share_memo *sm, int s, const struct pool_view *v)
{
	for (;;) {
		int bi = -1, ui = -1;
		for (int i = 0; i < n; i++) {
			if (skip[i])
				continue;
			if (sm->done[i]) {
				if (bi < 0 || sm->ex[s][i] > sm->ex[s][bi])
					bi = i;
			} else if (ui < 0 || sm->up[s][i] > sm->up[s][ui]) {
				ui = i;
			}
		}
		if (ui < 0 || (bi >= 0 && sm->up[s][ui] < sm->ex[s][bi]))
			return bi;
		double r[2];
		share_rates(x, g, all[ui], v, 1, r);
		sm->ex[0][ui] = r[0];
		sm->ex[1][ui] = r[1];
		sm->done[ui] = 1;
	}
}

/* Shortlist of pool p's single-pool layouts (n_single first in ls), best
 * rate first; more than keep are cut to keep, chosen in this order: the
 * best by rate per GPU, the best by its rate on the pool's plausible
 * share of the batch and the best on twice that share (share_rates:
 * fill and drain, idle GPUs and DP included; wider layouts win when the
 * share gives each replica few micro-batches), and the best at
 * min(replicas that fit, micro-batches) / B, in turn; then the best of
 * each TP degree. Before, the order was rate per GPU and min(replicas
 * that fit, micro-batches) / B in turn, neither with fill and drain or
 * DP: beside 16 x 8 H100, 40 x 8
 * A100-40GB and 4 x 8 L40S, a 4-node H100 pool's shortlist of three
 * missed tp8 pp4, and the best plan was 258.2K tokens/s where a
 * shortlist of seven found 266.6K (tests/test_search_shortlist.sh).
 * Returns a new array (caller frees) and its length in *n. */
static const struct layout **shortlist_pool(struct ctx *x, const struct gset *g,
					    struct layouts *ls, int n_single, int p, int keep,
					    const struct pool_view *view, int *n)
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
	int k = 0;
	const struct layout **sel = xmalloc((size_t)n_all * sizeof *sel);
	double *buf = xmalloc((size_t)4 * n_all * sizeof *buf);
	char *skip = xcalloc((size_t)n_all, 2);
	struct share_memo sm = { { buf, buf + n_all }, { buf + 2 * n_all, buf + 3 * n_all },
				 skip + n_all };
	for (int i = 0; i < n_all; i++) {
		double r[2];
		share_rates(x, g, all[i], view, 0, r);
		sm.up[0][i] = r[0];
		sm.up[1][i] = r[1];
	}
	long M = x->o->gbs / g->mbs;
	for (int step = 0; step < 5 * n_all && k < keep; step++) {
		int kind = step < 4 * n_all ? step % 4 : 4;
		const struct layout *best = NULL;
		if (kind == 1 || kind == 2) {
			int b = share_best(x, g, all, n_all, skip, &sm, kind - 1, view);
			best = b >= 0 ? all[b] : NULL;
		}
		double bv = -1;
		for (int i = 0; i < n_all && kind != 1 && kind != 2; i++) {
			const struct layout *L = all[i];
			int have_tp = 0;
			for (int j = 0; j < k; j++)
				have_tp |= sel[j]->seg[0].tp == L->seg[0].tp;
			if (skip[i] || (kind == 4 && have_tp))
				continue;
			double v = kind == 3 ? HP_MIN(L->max_count, M) / L->B : L->rate;
			if (v > bv) {
				bv = v;
				best = L;
			}
		}
		if (best) {
			for (int i = 0; i < n_all; i++)
				skip[i] |= all[i] == best;
			sel[k++] = best;
		}
	}
	free(all);
	free(buf);
	free(skip);
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
/* Setting g's layouts into ls (single-pool ones first, n_single of them),
 * each pool's TPs in two-pool layouts into best_tp and wide_tp; memory
 * misses noted, or kept in defer when not NULL. Reads of x only the
 * cluster, model, options, capacities and the DP cap (the layout probes
 * count into x->res->stats): nothing a setting keeps, so the same
 * layouts whenever and on whichever thread they are solved. */
static void layouts_solve(struct ctx *x, const struct gset *g, struct layouts *ls,
			  int *n_single, int *best_tp, int *wide_tp, struct pre_layouts *defer)
{
	single_pool_layouts(x, g, ls, defer);
	*n_single = ls->n;
	pair_tps(x, ls, *n_single, best_tp, wide_tp);
	cross_pool_layouts(x, g, ls, best_tp, wide_tp, defer);
}

struct worker_pool;
static int layouts_taken(struct worker_pool *pl, struct pre_layouts *pr);

/* Setting g's layouts (layouts_solve): those solved ahead in pr when
 * there are (their probes counted and their memory misses noted now, in
 * the order they were met: between them a solve reads and sets nothing
 * else a miss reads or sets), else solved here. */
static void gset_layouts(struct ctx *x, const struct gset *g, struct layouts *ls, int *n_single,
			 int *best_tp, int *wide_tp, struct worker_pool *pl,
			 struct pre_layouts *pr)
{
	if (!pr || !layouts_taken(pl, pr)) {
		layouts_solve(x, g, ls, n_single, best_tp, wide_tp, NULL);
		return;
	}
	*ls = pr->ls;
	memset(&pr->ls, 0, sizeof pr->ls);
	*n_single = pr->n_single;
	memcpy(best_tp, pr->best_tp, sizeof pr->best_tp);
	memcpy(wide_tp, pr->wide_tp, sizeof pr->wide_tp);
	x->res->stats.evaluated += pr->evaluated;
	x->res->stats.probes += pr->probes;
	x->res->stats.estimate_s += pr->estimate_s;
	int layers = x->m->layers, dense = layout_dense_layers(x->m);
	for (int i = 0; i < pr->n_miss; i++) {
		struct miss_note *n = &pr->miss[i];
		note_memory_miss(x, g, &n->L, n->f, n->L.pp, layers, dense);
		free(n->f);
	}
	free(pr->miss);
	pr->miss = NULL;
	pr->n_miss = pr->cap_miss = 0;
}

static int search_gset(struct ctx *x, const struct gset *g, struct worker_pool *pl,
		       struct pre_layouts *pr)
{
	const struct cluster *c = x->c;
	struct layouts ls = { 0 };
	/* the cluster and model stay as they are for the whole search
	 * (search_run's contract): estimates skip comparing them */
	struct perf_memo_pin saved;
	perf_memo_pin(c, x->m, &saved);
	int best_tp[HP_MAX_POOLS], wide_tp[HP_MAX_POOLS], n_single;
	gset_layouts(x, g, &ls, &n_single, best_tp, wide_tp, pl, pr);
	int sup[HP_MAX_POOLS + 1], n_sup = 0;
	double b = search_cancelled(x) ? -1 : bound_update(x, g, &ls, sup, &n_sup);

	/* layouts kept per pool: the sets grow as (keep + 1)^pools */
	static const int keep_by_pools[] = { 0, 12, 8, 5, 3, 2 };
	/* counted over the pools with a layout of their own: a pool that
	 * nothing fits on alone adds only "unused" to every set, and
	 * counted it cut every other pool's shortlist (a 1-node L40S pool
	 * beside H100 and A100 pools dropped the best H100 layout) */
	int n_live = 0;
	for (int q = 0; q < c->n_pools; q++)
		for (int i = 0; i < n_single; i++)
			if (ls.v[i].seg[0].pool == q && ls.v[i].fits && ls.v[i].max_count >= 1) {
				n_live++;
				break;
			}
	int keep_h = x->exhaustive ? 1 << 20
				   : keep_by_pools[HP_MIN(n_live, (int)HP_ARRAY_LEN(keep_by_pools) - 1)];
	int keep_m = x->exhaustive ? 1 << 20 : 4;
	const struct layout **per_pool[HP_MAX_POOLS];
	int n_pp[HP_MAX_POOLS], n_het;
	struct pool_view view;
	pool_view_init(x, g, &ls, n_single, &view);
	for (int p = 0; p < c->n_pools; p++)
		per_pool[p] = shortlist_pool(x, g, &ls, n_single, p, keep_h, &view, &n_pp[p]);
	const struct layout **het = shortlist_cross(x, g, &ls, n_single, wide_tp, keep_m, &n_het);
	/* the candidates' time (candidate_s): the sets' trials less their
	 * estimates, MILPs and LPs, read once a setting (read per set, the
	 * clock's reads were 0.9-1.8% of the Mixtral 8x22B deadline
	 * search's perf samples, 0.2% after: sixteenth round) */
	struct search_stats *st = &x->res->stats;
	double t_sets = hp_now(), other = st->estimate_s + st->milp_s + st->lp_s;
	for (int h = -1; h < n_het; h++)
		layout_set_trials(x, g, h >= 0 ? het[h] : NULL, per_pool, n_pp);
	lp_support_set(x, g, &ls, sup, n_sup, per_pool, n_pp);
	st->candidate_s += hp_now() - t_sets - (st->estimate_s + st->milp_s + st->lp_s - other);
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
	bound_memo_free(&ls);
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
	/* The largest EP degree first: settings are searched in batches of
	 * 1, 2, 4, then GSET_BATCH (search_gsets), and each batch's
	 * candidates are screened against the lists the batches before it
	 * left. On the bench's MoE cases the best plans use the largest EP
	 * (DeepSeek-V3 64, Mixtral 8x22B 8); searched first, they fill the
	 * ranked list and the (time, cost) front that screen the rest. With
	 * EP 1 first, 72% of DeepSeek-V3 deadline's 120,672 full estimates
	 * fell in its first five settings (EP 1 to 16), and all but 56 of
	 * the 120,672, at their estimated time and cost, would have been
	 * screened by the final lists (issue 13, twenty-third round). The
	 * screens are sound, so the plans reported are the same in any
	 * order. Only the nearest miss may differ where plans are found:
	 * the screens then skip misses, and it is reported (CLI, TUI) only
	 * where no plan is found, when they skip no miss that could be
	 * nearer. */
	for (int a = 0, b = n_ep - 1; a < b; a++, b--) {
		int t = eps[a];
		eps[a] = eps[b];
		eps[b] = t;
	}
	int fls[2], n_fl = gset_flash_values(x, fls);
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
							for (int f = 0; f < n_fl; f++) {
								if (out)
									out[n] = (struct gset){
										mbs, (enum hp_recompute)rcs[r],
										zeros[z],
										s ? SCHED_INTERLEAVED : SCHED_1F1B,
										v, cps[cpi], eps[e], fls[f] };
								n++;
							}
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

/* No plan --framework NAME runs came near: the plans that reached its
 * rules (fw_checked of the candidates), how many it refused, the first
 * refusal's reason, and what became of the rest. */
static void explain_fw_refusal(struct ctx *x)
{
	struct search_result *res = x->res;
	const struct search_stats *st = &res->stats;
	const char *fw = framework_name(x->o->framework);
	char rest[160] = "";
	long kept = st->fw_checked - st->fw_denied;
	long before = st->candidates - st->fw_checked;
	if (kept > 0)
		snprintf(rest, sizeof rest, "; none of the %ld it runs fits (memory)", kept);
	if (before > 0) {
		size_t k = strlen(rest);
		snprintf(rest + k, sizeof rest - k,
			 "; %ld more candidates were dropped before its rules (GPU counts, layout checks)",
			 before);
	}
	snprintf(res->why, sizeof res->why,
		 "no plan fits: --framework %s's rules refuse %ld of the %ld candidate plans for %s "
		 "that reach them (first: %s)%s (its rules: docs/runnable.md)",
		 fw, st->fw_denied, st->fw_checked, x->m->name,
		 st->fw_first_why[0] ? st->fw_first_why : "no reason recorded", rest);
}

/* Append "; " (after the first) and a reason to buf (n bytes), cut at n. */
static void why_add(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(__printf__, 3, 4)));
static void why_add(char *buf, size_t n, const char *fmt, ...)
{
	size_t k = strlen(buf);
	if (k && k + 2 < n) {
		memcpy(buf + k, "; ", 3);
		k += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + k, n - k, fmt, ap);
	va_end(ap);
}

/* No layout was even tried: say which of the fixed choices rule them all
 * out, each test the one the layout enumeration applies (tp_ok,
 * pp_ladder, the GPUs a pipeline needs, solve_layout's chunks per
 * layer, the interleaved schedule's micro-batches per replica: plan.c
 * plan_validate), or, when none of them does alone, the choices. */
static void explain_no_layout(struct ctx *x)
{
	const struct search_opts *o = x->o;
	const struct model_spec *m = x->m;
	const struct cluster *c = x->c;
	char r[sizeof x->res->why - 160] = "";
	int total = 0, node = 0, tp_min = 0;
	for (int i = 0; i < c->n_pools; i++) {
		total += x->cap[i];
		node = HP_MAX(node, c->pools[i].gpus_per_node);
		for (int tp = 1; tp <= c->pools[i].gpus_per_node; tp *= 2)
			if (tp_ok(m, &c->pools[i], tp) && (!o->fix_tp || tp == o->fix_tp)) {
				tp_min = tp_min ? HP_MIN(tp_min, tp) : tp;
				break;
			}
	}
	int t = o->fix_tp;
	if (t && !tp_min) {
		if (t & (t - 1))
			why_add(r, sizeof r, "--tp %d is not a power of two", t);
		if (m->heads % t)
			why_add(r, sizeof r, "--tp %d does not divide the %d attention heads", t,
				m->heads);
		if (t > m->kv_heads && t % m->kv_heads)
			why_add(r, sizeof r, "--tp %d is neither a divisor nor a multiple of the %d KV heads",
				t, m->kv_heads);
		if (t > node)
			why_add(r, sizeof r, "--tp %d is wider than a node (%d GPUs)", t, node);
		else if (!r[0])
			why_add(r, sizeof r, "--tp %d does not divide the GPUs of a node of any pool", t);
	}
	int pp = o->fix_pp, on_ladder = !pp;
	for (size_t j = 0; j < HP_ARRAY_LEN(pp_ladder); j++)
		on_ladder |= pp_ladder[j] == pp;
	if (!on_ladder) {
		char depths[128] = "";
		for (size_t j = 0, k = 0; j < HP_ARRAY_LEN(pp_ladder) && k + 1 < sizeof depths; j++)
			k += (size_t)snprintf(depths + k, sizeof depths - k, "%s%d", j ? " " : "",
					      pp_ladder[j]);
		why_add(r, sizeof r, "--pp %d is not a depth the planner tries (%s)", pp, depths);
	}
	else if (pp && tp_min && (long)pp * tp_min > total)
		why_add(r, sizeof r, "--pp %d at TP %d needs %ld GPUs a replica; the cluster has %d",
			pp, tp_min, (long)pp * tp_min, total);
	int v = o->fix_sched;
	if (v >= 2) {
		int lo = pp ? pp : 2;
		if (pp == 1)
			why_add(r, sizeof r, "--schedule interleaved:%d needs --pp 2 or more", v);
		else if (m->layers % v)
			why_add(r, sizeof r, "interleaved:%d needs the %d layers of %s in %d equal chunks",
				v, m->layers, m->name, v);
		else if ((long)lo * v > m->layers)
			why_add(r, sizeof r, "%s%d stages x interleaved:%d = %ld chunks, more than the %d layers",
				pp ? "--pp " : "", lo, v, (long)lo * v, m->layers);
		else if (pp) {
			int most = 0, ok = 0;
			for (int b = 1; b <= 8; b *= 2) {
				int mbs = o->fix_mbs ? o->fix_mbs : b;
				if (o->gbs % mbs == 0) {
					most = HP_MAX(most, o->gbs / mbs);
					ok |= (o->gbs / mbs) % pp == 0;
				}
				if (o->fix_mbs)
					break;
			}
			if (!ok)
				why_add(r, sizeof r, "the interleaved schedule needs a replica's micro-batches "
					"to be a multiple of --pp %d; --gbs %d%s gives %d at most", pp,
					o->gbs, o->fix_mbs ? " with --mbs" : "", most);
		}
	}
	if (r[0])
		snprintf(x->res->why, sizeof x->res->why,
			 "no plan fits: %s has no layout on this cluster: %s", m->name, r);
	else
		snprintf(x->res->why, sizeof x->res->why,
			 "no plan fits: %s has no layout on this cluster within the fixed choices "
			 "(--tp %d, --pp %d, --mbs %d, --schedule %s; 0: free)", m->name, o->fix_tp,
			 o->fix_pp, o->fix_mbs,
			 o->fix_sched < 0 ? "free" : o->fix_sched == 0 ? "1f1b" : "interleaved");
}

/* Money for explain_miss: cents below USD 1,000 (a budget of USD 0.40
 * printed as "0" read as no budget at all), else hp_fmt_count's 3 or 4
 * figures. up: rounded up at the precision printed, for an amount that
 * must be enough (the budget that the cheapest plan meets). */
static char *fmt_money(char *buf, size_t n, double v, int up)
{
	if (v > 0 && v < 0.01) {
		/* under a cent: two figures */
		snprintf(buf, n, "%.2g", v);
		return buf;
	}
	if (v < 1000) {
		snprintf(buf, n, "%.2f", up ? ceil(v * 100 - 1e-9) / 100 : v);
		return buf;
	}
	if (up) {
		double d = v >= 1e15 ? 1e15 : v >= 1e12 ? 1e12 : v >= 1e9 ? 1e9 : v >= 1e6 ? 1e6 : 1e3;
		double q = d * (v / d < 10 ? 0.01 : 0.1);
		v = ceil(v / q) * q;
	}
	return hp_fmt_count(buf, n, v);
}

static void explain_miss(struct ctx *x)
{
	struct search_result *res = x->res;
	const struct search_opts *o = x->o;
	char b1[32], b2[32], tk[32], rate[32], usd[32], usd2[32];
	hp_fmt_count(tk, sizeof tk, x->tokens);
	if (!res->has_nearest) {
		/* no plan --framework NAME runs came near: its rules refused
		 * them (the memory misses are of plans it runs only) */
		if (res->stats.fw_denied > 0 && x->mem_miss <= 0)
			explain_fw_refusal(x);
		else if (x->mem_miss > 0)
			snprintf(res->why, sizeof res->why,
				 "no plan fits in memory: %s needs more GPU memory than this cluster offers; the nearest miss is %s",
				 x->m->name, x->mem_desc);
		else
			explain_no_layout(x);
		return;
	}
	const struct search_plan *n = &res->nearest;
	switch (o->objective) {
	case OBJ_DEADLINE:
		snprintf(res->why, sizeof res->why,
			 "no plan trains %s tokens within %s: the fastest reaches %s (%.0f%% over), on %d GPU%s at %s tokens/s",
			 tk, hp_fmt_duration(b1, sizeof b1, o->deadline_s),
			 hp_fmt_duration(b2, sizeof b2, n->time_to_train_s),
			 100 * (n->time_to_train_s / o->deadline_s - 1), n->est.n_gpus,
			 n->est.n_gpus == 1 ? "" : "s", hp_fmt_count(rate, sizeof rate, n->est.tokens_per_s));
		break;
	case OBJ_BUDGET: {
		/* what the budget buys of the cheapest plan: whole steps
		 * (search_train_steps), each at its price */
		double per_step = (double)n->plan.gbs * n->est.seq_len;
		double step_usd = n->est.usd_per_hour * n->est.step_time_s / 3600;
		double steps = step_usd > 0 ? floor(o->budget_usd / step_usd) : 0;
		char buys[96];
		if (steps >= 1)
			snprintf(buys, sizeof buys, "or %s tokens (%.0f steps) within this one",
				 hp_fmt_count(b2, sizeof b2, steps * per_step), steps);
		else
			snprintf(buys, sizeof buys, "while this one buys not one step (USD %s a step)",
				 fmt_money(b2, sizeof b2, step_usd, 1));
		snprintf(res->why, sizeof res->why,
			 "no plan trains %s tokens within USD %s: the cheapest costs USD %s (%.0f%% over), on %d GPU%s; "
			 "a budget of USD %s would be met by it, %s",
			 tk, fmt_money(usd, sizeof usd, o->budget_usd, 0),
			 fmt_money(usd2, sizeof usd2, n->cost_to_train_usd, 1),
			 100 * (n->cost_to_train_usd / o->budget_usd - 1), n->est.n_gpus,
			 n->est.n_gpus == 1 ? "" : "s", usd2, buys);
		break;
	}
	default:
		snprintf(res->why, sizeof res->why,
			 "plans fit, but none has a known price for every pool it uses (set price_per_node_hour in the cluster file or --pool ...,price=USD)");
		break;
	}
}

static int search_inner(const struct cluster *c, const struct model_spec *m,
			const struct search_opts *o, struct search_result *res,
			struct hp_err *err, int sub, double mem_frac, double keep_h);

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
	int order[GSET_BATCH]; /* the order settings are handed out in */
	int next;             /* settings handed out (under the pool's lock) */
	int finished;         /* settings searched */
	atomic_int *cancel;
	struct pre_layouts *pre;  /* the batch's settings' layouts solved ahead, or NULL */
};

/* Settings' layouts solved ahead (struct pre_layouts), by threads that
 * find nothing else to take: those of settings next to [next, limit)
 * (in setting order; the batch's own settings are left to it), on a
 * context of the search's constants alone (tmpl: no kept plans, no
 * result; each solve gets a result of its own for its counts). Issue 13,
 * thirteenth round: on two threads a quarter of the thread time of the
 * DeepSeek-V3 deadline and budget searches went idle, two thirds of it
 * in the first batches (one setting, then two); solving the layouts
 * (some 7-9% of the search's work on DeepSeek-V3) is what can be done
 * for a later setting before the earlier ones are merged. */
struct pre_ahead {
	struct ctx tmpl;
	const struct gset *gs;
	struct pre_layouts *v;
	int next, limit;
};
/* How far past the batch in progress layouts are solved ahead: memory (a
 * setting's layouts, 0.68 KB each, shrunk to those kept: DeepSeek-V3 on
 * 16,384 GPUs keeps 342 a setting on average, 581 at most, 0.23-0.4 MB)
 * against the idle time of the first batches. Replayed on the thread CPU
 * times of a DeepSeek-V3 deadline search (224 settings, 2 threads): 16
 * settings ahead cut its span by 2.1%, 64 by 2.8%, all of them by 3.8%
 * (some 50 MB held). */
#define PRE_AHEAD 64

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
	struct pre_ahead *ahead;  /* NULL: nothing solved ahead (one thread) */
	int quit;
};

/* Solve setting g's layouts ahead into pr (p->mu not held). */
static void layouts_ahead(const struct ctx *tmpl, const struct gset *g, struct pre_layouts *pr)
{
	struct search_result res;
	memset(&res, 0, sizeof res);
	struct ctx y = *tmpl;
	y.res = &res;
	struct perf_memo_pin saved;
	perf_memo_pin(y.c, y.m, &saved);
	layouts_solve(&y, g, &pr->ls, &pr->n_single, pr->best_tp, pr->wide_tp, pr);
	perf_memo_unpin(&saved);
	if (pr->ls.n && pr->ls.n < pr->ls.cap) {
		pr->ls.v = xrealloc(pr->ls.v, (size_t)pr->ls.n * sizeof *pr->ls.v);
		pr->ls.cap = pr->ls.n;
	}
	pr->evaluated = res.stats.evaluated;
	pr->probes = res.stats.probes;
	pr->estimate_s = res.stats.estimate_s;
	/* a cancel may have cut the solve short: the setting solves again
	 * (and is itself cut short) */
	pr->valid = !search_cancelled(&y);
}

/* Whether the setting of pr may use layouts solved ahead: it waits for
 * a solve in progress; one not begun is the setting's own from now. */
static int layouts_taken(struct worker_pool *pl, struct pre_layouts *pr)
{
	pthread_mutex_lock(&pl->mu);
	if (pr->state == PRE_NONE)
		pr->state = PRE_OWN;
	while (pr->state == PRE_RUNNING)
		pthread_cond_wait(&pl->done, &pl->mu);
	int ok = pr->state == PRE_DONE && pr->valid;
	pthread_mutex_unlock(&pl->mu);
	return ok;
}

/* A setting's layouts to solve ahead, with p->mu held: solved (released
 * meanwhile). Returns 0 when there is none. */
static int pool_take_ahead(struct worker_pool *p)
{
	struct pre_ahead *a = p->ahead;
	while (a && a->next < a->limit) {
		struct pre_layouts *pr = &a->v[a->next];
		const struct gset *g = &a->gs[a->next++];
		if (pr->state != PRE_NONE)
			continue;
		pr->state = PRE_RUNNING;
		pthread_mutex_unlock(&p->mu);
		layouts_ahead(&a->tmpl, g, pr);
		pthread_mutex_lock(&p->mu);
		pr->state = PRE_DONE;
		pthread_cond_broadcast(&p->done);
		return 1;
	}
	return 0;
}

/* Take and run one piece of work with p->mu held (released while it
 * runs): the batch's next setting, else a side task, else a later
 * setting's layouts (pool_take_ahead). Returns 0 when there was none. */
static int pool_take(struct worker_pool *p)
{
	struct batch *b = p->b;
	if (b && b->next < b->n) {
		int i = b->order[b->next++];
		pthread_mutex_unlock(&p->mu);
		if (!(b->cancel && atomic_load(b->cancel)))
			b->t[i].done = search_gset(&b->t[i].x, b->t[i].g, p,
						   b->pre ? &b->pre[i] : NULL);
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
	return pool_take_ahead(p);
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
	res->stats.fw_denied += r->stats.fw_denied;
	res->stats.any_denied += r->stats.any_denied;
	res->stats.fw_checked += r->stats.fw_checked;
	if (!res->stats.fw_first_why[0])
		snprintf(res->stats.fw_first_why, sizeof res->stats.fw_first_why, "%s",
			 r->stats.fw_first_why);
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

/* The order a batch's settings are taken in: longest first, so that a
 * thread finding the batch empty waits on a short setting rather than a
 * long one (issue 13: with 2 threads, DeepSeek-V3's batches of 8 ended on
 * their longest setting). Which thread takes a setting changes nothing
 * but the time (above), so any order gives the same answer; this one is
 * still deterministic, from counts, not clocks. A setting's predicted
 * work is that of the last earlier setting of the same shape (schedule,
 * VPP, CP, EP: those that differ within a run of settings; the micro-
 * batch, recomputation and ZeRO stage change less often, enum_gsets),
 * one with the same recomputation and ZeRO stage if there is one (a
 * batch can straddle two of those, whose work differs tenfold),
 * in counts weighted by rough costs per item (bench's time lines, 2
 * cores: ~1 us a candidate, ~5 us an estimate; LPs and capacity MILPs
 * ~100 us, twice that for a MILP GLPK solves, a guess from the MILP
 * seconds over the counts). Only the ranking matters, and only within a
 * batch. Settings with no earlier one of their shape, or the same
 * prediction, keep their index order. */
static double gset_work(const struct search_stats *st)
{
	return 1.0 * (double)st->candidates + 5.0 * (double)st->evaluated +
	       100.0 * (double)(st->lp_solves + st->milp_glpk);
}

static int same_shape(const struct gset *a, const struct gset *b, int close)
{
	return a->sched == b->sched && a->vpp == b->vpp && a->cp == b->cp && a->ep == b->ep &&
	       (!close || (a->rc == b->rc && a->zero == b->zero));
}

/* The work of the last setting before b0 of g's shape, closest first
 * (the same recomputation and ZeRO stage too), else 0. */
static double gset_predict(const struct gset *gs, int b0, const struct gset *g, const double *work)
{
	for (int close = 1; close >= 0; close--)
		for (int j = b0 - 1; j >= 0; j--)
			if (same_shape(&gs[j], g, close))
				return work[j];
	return 0;
}

static void batch_order(struct batch *b, const struct gset *gs, int b0, const double *work)
{
	double pred[GSET_BATCH];
	for (int i = 0; i < b->n; i++) {
		pred[i] = gset_predict(gs, b0, &gs[b0 + i], work);
		/* insertion sort: descending prediction, then index */
		int k = i;
		while (k > 0 && pred[b->order[k - 1]] < pred[i]) {
			b->order[k] = b->order[k - 1];
			k--;
		}
		b->order[k] = i;
	}
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
	double *work = xcalloc((size_t)ng, sizeof *work);
	pthread_t th[GSET_BATCH];
	struct worker_pool pl;
	memset(&pl, 0, sizeof pl);
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.work, NULL);
	pthread_cond_init(&pl.done, NULL);
	pl.side = side;
	pl.n_side = n_side;
	/* later settings' layouts solved ahead on threads that would wait:
	 * only with a second thread (one thread never waits) */
	struct pre_ahead ahead;
	memset(&ahead, 0, sizeof ahead);
	if (nt > 1 && ng > 1) {
		ahead.tmpl = *x;
		ahead.tmpl.res = NULL;
		ahead.tmpl.glob = NULL;
		ahead.tmpl.top = ahead.tmpl.front = NULL;
		ahead.tmpl.n_top = ahead.tmpl.n_front = ahead.tmpl.cap_front = 0;
		ahead.gs = gs;
		ahead.v = xcalloc((size_t)ng, sizeof *ahead.v);
		pl.ahead = &ahead;
	}
	int started = 0;
	for (int k = 1; k < HP_MIN(nt, ng + n_side); k++)
		if (hp_thread_start(&th[started], pool_thread, &pl) == 0)
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
		batch_order(&b, gs, b0, work);
		b.pre = ahead.v ? ahead.v + b0 : NULL;
		/* this thread searches settings too, and takes a side task only
		 * while the batch's last settings are still being searched */
		pthread_mutex_lock(&pl.mu);
		if (pl.ahead) {
			ahead.next = HP_MAX(ahead.next, b0 + b.n);
			ahead.limit = HP_MIN(ng, b0 + b.n + PRE_AHEAD);
		}
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
			work[b0 + i] = gset_work(&t[i].res.stats);
			task_merge(x, &t[i]);
		}
		if (o->progress)
			o->progress(o->progress_arg, (double)(b0 + b.n) / ng);
	}
	pthread_mutex_lock(&pl.mu);
	ahead.limit = 0;   /* no setting left to solve ahead for */
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
	/* layouts solved ahead for settings never searched (a cancel) */
	for (int i = 0; ahead.v && i < ng; i++) {
		free(ahead.v[i].ls.v);
		for (int j = 0; j < ahead.v[i].n_miss; j++)
			free(ahead.v[i].miss[j].f);
		free(ahead.v[i].miss);
	}
	free(ahead.v);
	free(work);
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

static int search_inner_shared(const struct cluster *c, const struct model_spec *m,
			       const struct search_opts *o, struct search_result *res,
			       struct hp_err *err, int sub, double mem_frac, double keep_h,
			       struct probe_share *share, int share_pool0);

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
	search_inner_shared(sc, x->m, &so, &ps->sr, &err, 1, x->mem_frac, x->keep_h, x->share,
			    ps->i);
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
	res->stats.recompute_s += sr->stats.recompute_s;
	res->stats.recompute_evals += sr->stats.recompute_evals;
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
 *    overlap at ZeRO 1-3; at ZeRO 0 the engine reduces after the backward
 *    and plan_grad_overlap is 0 whatever the key (framework.c, plan.c),
 *    so an "on" variant there equals its base plan and is dropped; no TP
 *    overlap; ZeRO-3 always prefetches parameters;
 *  - torchtitan: async TP is opt-in (experimental.enable_async_tensor_
 *    parallel); FSDP2 always overlaps its reduce-scatter and prefetches
 *    its all-gathers;
 *  - the estimate-only rows (plan --framework NAME): eager PyTorch with
 *    apex DDP has no TP overlap and no sharded optimizer; apex's
 *    DistributedDataParallel overlaps its bucketed all-reduce unless
 *    delay_allreduce is set (both run). InternLM has no TP overlap; its
 *    hybrid ZeRO optimizer's overlap_sync_grad and overlap_sync_param
 *    are config switches (both run). llm.c has no switch for either DP
 *    overlap: its gradient reduce always runs on its own stream during
 *    the backward, its ZeRO-1 gather always after the update (llmc/
 *    zero.cuh, train_gpt2.cu @f1e2ace; framework.c); no TP.
 *    DeepSpeed 0.3 with the 2019 Megatron-LM: no TP overlap; its ZeRO
 *    0-1 paths reduce the gradients after the backward (the overlapping
 *    reduce is ZeRO-2's, grad_overlap_min_zero) and stage1.py gathers
 *    the parameters after optimizer.step(): off only.
 *    NeMo AutoModel: FSDP2 as torchtitan, and enable_async_tensor_parallel
 *    (its async TP) is opt-in (framework.c). hf-transformers: torch DDP
 *    always reduces its buckets during the backward; no TP, no sharding.
 *    hf-deepspeed: DeepSpeed's engine under the Trainer, as deepspeed:
 *    overlap_comm is a config switch (both run) and ZeRO-3 always
 *    prefetches parameters (framework.c, docs/hf-deepspeed.md).
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
	[FW_LLMC] = { 1, 2, 1 },
	[FW_DEEPSPEED_03] = { 1, 1, 1 },
	[FW_AUTOMODEL] = { 3, 2, 2 },
	[FW_HF] = { 1, 2, 1 },
	[FW_HF_DEEPSPEED] = { 1, 3, 2 },
};

/* The values key k may take in plan p: those the framework allows where
 * the dimension exists (TP > 1 with sequence parallelism for TP overlap;
 * DP > 1 for the DP overlaps; a sharded optimizer for the parameter
 * gather); else only the framework's default. Returns how many (1-2). */
int overlap_values(const struct plan *p, int k, int *v)
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

/* A post-pass variant takes its base plan's place in the ranked list: the
 * base leaves it (when still there) and the variant is kept as any plan. */
static void replace_ranked(struct ctx *x, const struct plan *base, struct search_plan *variant)
{
	for (int j = 0; j < x->n_top; j++)
		if (plan_equal(&x->top[j].plan, base)) {
			sp_free(&x->top[j]);
			memmove(&x->top[j], &x->top[j + 1],
				(size_t)(x->n_top - j - 1) * sizeof *x->top);
			x->n_top--;
			break;
		}
	keep_plan(x, variant);
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
		if (have) /* the variant replaces its plan in the ranked list */
			replace_ranked(x, &base[i].plan, &best);
		sp_free(&base[i]);
	}
	free(base);
}

/* Partial recomputation on the ranked plans (recompute_layers, plan.h):
 * a plan under recompute full may keep the activations of some layers
 * of each stage's model chunk and recompute only the first N (Megatron
 * --recompute-method block --recompute-num-layers N). Less recomputation
 * is less work each step and more activation memory, so the least N at
 * which the plan still fits, by the same memory test every kept plan
 * passes (the estimate's stages, the pass's headroom: over_headroom), is
 * the fastest and cheapest of them. Tried on the ranked plans only, after
 * the search, as the overlap keys are (search_overlaps); the layer and
 * batch splits stay those found under full recomputation. */

/* Layers per model chunk above which recompute_layers N is plain full
 * recomputation on every stage of p: N x vpp at least the largest
 * stage's layers (plan_recompute_count). */
static int recomp_full_n(const struct plan *p)
{
	int max_l = 0, v = p->vpp > 1 ? p->vpp : 1;
	for (int r = 0; r < p->n_replicas; r++)
		for (int s = 0; s < p->replicas[r].n_stages; s++) {
			const struct stage *st = &p->replicas[r].stages[s];
			max_l = HP_MAX(max_l, st->last_layer - st->first_layer + 1);
		}
	return (max_l + v - 1) / v;
}

/* A copy of plan `from` recomputing N layers a chunk, estimated; 1 when
 * it fits (the pass's memory test) and the search's --framework runs it,
 * 0 when it does not fit, -1 when it cannot be had at all (model refusal
 * or framework). sp is set (finished and scored) only on 1. */
static int recomp_variant(struct ctx *x, const struct search_plan *from, int n,
			  struct search_plan *sp)
{
	memset(sp, 0, sizeof *sp);
	plan_copy(&sp->plan, &from->plan);
	sp->plan.recompute_layers = n;
	unsigned mask = runs_on_mask(&sp->plan, x->c, NULL, 0);
	/* under "any": estimated as a framework that runs the variant (its
	 * parent's may not: DeepSpeed's pipeline engine recomputes nothing
	 * with the block method), and not made when none does for reasons
	 * of its own (try_combo's rule) */
	if (x->o->framework == FW_ANY && !(mask & (1u << sp->plan.framework)) &&
	    sp->plan.framework != FW_ANY) {
		if (!(mask & RUNS_ON_STOCK) && !runs_on_runnable(&sp->plan, x->c)) {
			sp_free(sp);
			return -1;
		}
		sp->plan.framework = runs_on_pick(mask);
	}
	struct hp_err err = { 0 };
	if ((x->o->framework != FW_ANY && !(mask & (1u << x->o->framework))) ||
	    perf_estimate(x->c, x->m, &sp->plan, NULL, &sp->est, &err) < 0) {
		sp_free(sp);
		return -1;
	}
	x->res->stats.evaluated++;
	x->res->stats.recompute_evals++;
	if (!sp->est.fits || over_headroom(x, &sp->est)) {
		sp_free(sp);
		return 0;
	}
	finish_plan_on(x, sp, mask);
	return 1;
}

/* The post-pass itself. Each ranked plan under recompute full (not when
 * --recompute fixes it) gets the least N in 1 .. (full - 1) that fits,
 * found by bisection: activation memory only grows as N falls (each
 * layer taken out of the recomputed block keeps its whole activations
 * instead of its input, perf_mem.c), so the bisection's answer is
 * verified by its own estimate and no smaller N it skipped fits. The
 * variant replaces its plan when it ranks above it (sp_better: the
 * objective's score). Plans it replaces leave the ranked list; the
 * bound, which covers recompute none and full, is lowered to the best
 * variant's score where one beats it, so it bounds every plan searched,
 * these included (docs/planner.md). */
static void search_recompute_layers(struct ctx *x)
{
	if (x->o->fix_recompute >= 0)
		return;
	double t0 = hp_now();
	int n = x->n_top;
	struct search_plan *base = xcalloc((size_t)(n ? n : 1), sizeof *base);
	for (int i = 0; i < n; i++)
		sp_clone(&base[i], &x->top[i]);
	for (int i = 0; i < n; i++) {
		const struct plan *p = &base[i].plan;
		int hi = p->recompute == RC_FULL && p->recompute_layers <= 0 ? recomp_full_n(p) - 1
									      : 0;
		struct search_plan best;
		int have = 0, rc = 1;
		if (hi >= 1) {
			/* the largest N short of full first: nothing smaller
			 * fits when it does not */
			rc = recomp_variant(x, &base[i], hi, &best);
			have = rc == 1;
		}
		for (int lo = 1; have && lo < hi;) {
			int mid = lo + (hi - lo) / 2;
			struct search_plan sp;
			rc = recomp_variant(x, &base[i], mid, &sp);
			if (rc < 0)
				break;
			if (rc == 1) {
				sp_free(&best);
				best = sp;
				hi = mid;
			} else {
				lo = mid + 1;
			}
		}
		if (have) {
			int ok;
			double miss;
			best.score = objective_score(x, &best, &ok, &miss);
			if (!ok || !sp_better(x, &best, &base[i])) {
				sp_free(&best);
				have = 0;
			}
		}
		if (have) {
			if (x->have_bound && best.score < x->bound)
				x->bound = best.score;
			replace_ranked(x, &base[i].plan, &best);
		}
		sp_free(&base[i]);
	}
	free(base);
	x->res->stats.recompute_s += hp_now() - t0;
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
	 * to 1 - headroom of its capacity, and a plan whose total (with the
	 * caching allocator's reserve) is above that is dropped. Only when
	 * no plan keeps it does the search run again, the split up to the
	 * whole capacity, keeping plans whose total stays within the GPU
	 * (marked risky: fits-with-risk); and only when none does, a third
	 * time keeping every plan whose live tensors fit (its total above
	 * the GPU: it runs only if the allocator frees its cached blocks,
	 * perf_mem.c). So a plan over 100% of its GPU is listed only when
	 * no plan within it exists, whatever the headroom (with
	 * --mem-headroom 0 the first pass is the second one). */
	double h = o->mem_headroom > 0 && o->mem_headroom < 1 ? o->mem_headroom : 0;
	const double pass_frac[3] = { 1 - h, 1, 1 }, pass_keep[3] = { h, 0, -1 };
	int first = h > 0 ? 0 : 1;
	int rc = search_inner(c, m, o, res, err, 0, pass_frac[first], pass_keep[first]);
	for (int k = first + 1; k < 3; k++) {
		if (rc == 0 || err->code != HP_EXIT_NOFIT || res->stats.cancelled)
			return rc;
		struct search_result again;
		struct hp_err err2 = { 0 };
		if (search_inner(c, m, o, &again, &err2, 0, pass_frac[k], pass_keep[k]) < 0) {
			search_result_free(&again);
			continue;   /* the first answer explains what fits nowhere */
		}
		search_result_free(res);
		*res = again;
		memset(err, 0, sizeof *err);
		return 0;
	}
	return rc;
}

static int search_inner(const struct cluster *c, const struct model_spec *m,
			const struct search_opts *o, struct search_result *res,
			struct hp_err *err, int sub, double mem_frac, double keep_h)
{
	return search_inner_shared(c, m, o, res, err, sub, mem_frac, keep_h, NULL, -1);
}

/* The search's results from its context x: the ranked plans with their
 * gap to the bound, and the Pareto front (sorted, its members marked in
 * both lists). */
static void results_take(struct ctx *x, struct search_result *res)
{
	res->n_plans = x->n_top;
	res->plans = x->top;
	res->has_bound = x->have_bound && !res->stats.cancelled;
	res->bound = res->has_bound ? x->bound : 0;
	for (int i = 0; i < res->n_plans; i++) {
		struct search_plan *sp = &res->plans[i];
		if (res->stats.cancelled || !x->have_bound) {
			sp->optimality = OPTIMAL_HEURISTIC;
		} else {
			double gap = sp->score > 0 ? (sp->score - x->bound) / sp->score : 0;
			sp->gap = gap < 0 ? 0 : gap;
			sp->optimality = sp->gap <= 1e-3 ? OPTIMAL_PROVEN : OPTIMAL_GAP;
		}
	}
	if (x->n_front)
		qsort(x->front, (size_t)x->n_front, sizeof *x->front, cmp_front);
	res->pareto = x->front;
	res->n_pareto = x->n_front;
	for (int i = 0; i < res->n_plans; i++)
		for (int j = 0; j < res->n_pareto; j++)
			if (res->plans[i].time_to_train_s == res->pareto[j].time_to_train_s &&
			    res->plans[i].cost_to_train_usd == res->pareto[j].cost_to_train_usd)
				res->plans[i].pareto = res->pareto[j].pareto = 1;
	for (int j = 0; j < res->n_pareto; j++)
		res->pareto[j].pareto = 1;
}

/* search_inner; share (NULL: none) the shared search's probes when this
 * is one of its per-pool searches, share_pool0 that pool's index there. */
static int search_inner_shared(const struct cluster *c, const struct model_spec *m,
			       const struct search_opts *o, struct search_result *res,
			       struct hp_err *err, int sub, double mem_frac, double keep_h,
			       struct probe_share *share, int share_pool0)
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
		if (plan_check_precision(c, i, o->precision,
					 o->precision_from[0] ? o->precision_from : "--precision",
					 err) < 0)
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
	x.keep_h = keep_h;
	x.seq = o->seq_len ? o->seq_len : m->seq_len;
	x.tokens = model_train_tokens(m, o->tokens);
	int total = 0;
	for (int i = 0; i < c->n_pools; i++) {
		x.cap[i] = c->pools[i].nodes * c->pools[i].gpus_per_node;
		x.priced[i] = (unsigned char)(pool_price_known(&c->pools[i]) != 0);
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
	/* the count MILPs' memo (search_counts.c, milp_counts): deadline
	 * and budget searches only; its 16,384 cleared slots were 0.8% of
	 * a throughput search's instructions (four searches: the shared
	 * one and each pool's), for no lookup */
	x.milp_memo = o->objective == OBJ_DEADLINE || o->objective == OBJ_BUDGET
			      ? capmilp_memo_new() : NULL;
	/* the best plan on each pool alone, searched while the settings are
	 * (side tasks) and taken in pool order after them */
	int n_side = !sub && c->n_pools > 1 ? c->n_pools : 0;
	struct probe_share *own_share = n_side ? probe_share_new() : NULL;
	x.share = n_side ? own_share : share;
	x.share_pool0 = n_side ? -1 : share_pool0;
	/* on the heap: 16 results of about 29 KB each are too much for a
	 * stack that a user's ulimit or a C library may keep small */
	struct pool_search *ps = n_side ? xcalloc((size_t)n_side, sizeof *ps) : NULL;
	struct side_task side[HP_MAX_POOLS];
	for (int i = 0; i < n_side; i++) {
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
	free(ps);
	probe_share_free(own_share);
	x.share = NULL;
	if (!res->stats.cancelled) {
		search_recompute_layers(&x);
		search_overlaps(&x);
	}
	capmilp_memo_free(x.milp_memo);
	x.milp_memo = NULL;

	results_take(&x, res);
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
	int ok = search_inner(c, m, &so, &r, &err, 1, 1, -1) == 0 && r.n_plans &&
		 (o->deadline_s <= 0 || r.plans[0].time_to_train_s <= o->deadline_s);
	search_result_free(&r);
	return ok;
}

int search_capacity_answer(const struct cluster *c, const struct model_spec *m,
			   const struct search_opts *o, const struct search_result *res,
			   int *add_nodes, char *text, size_t n)
{
	int answers = 0, beyond = 0, limit = 0;
	size_t k = 0;
	text[0] = '\0';
	if (c->n_pools < 1 || (o->deadline_s <= 0 && res->n_plans))
		return 0;
	double tokens = model_train_tokens(m, o->tokens);
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
		limit = 64 * HP_MAX(total_nodes, 1);
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
				beyond++;
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
	/* Every pool tried up to the search's limit and none met it: say so
	 * (not an answer: nothing to add), rather than nothing at all. */
	if (!answers && beyond)
		snprintf(text, n, "no pool grown alone by up to %d nodes meets it (the capacity "
			 "search stops at 64 times the cluster's %d nodes)", limit, total_nodes);
	return answers;
}
