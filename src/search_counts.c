/* search_counts.c — replica counts of a layout set: enumeration, the
 * greedy fills and the capacity MILP ladder. */
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lp.h"

int cmp_rate(const void *a, const void *b)
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
int fit_count(const struct ctx *x, const struct layout *L, const int *left)
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
	/* the table reads the low bits, which FNV's multiplier leaves depending
	 * on the counts' low bits alone: mixed down (murmur3's finaliser) they
	 * spread the node mixes' vectors (a DeepSeek-V3 lookup probed about 10
	 * slots). Only where an entry sits changes, not which entry a vector
	 * finds, nor the list's order. */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
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
 * never estimated. ep | dp cp holds exactly when the EP step
 * ep / gcd(ep, cp) (capmilp_ep_step, the caller's, once per set)
 * divides dp: by a mask when the step is a power of two (EP and CP
 * degrees are), else by the remainder. The 64-bit division it replaces,
 * one per node mix, was a tenth of the node mixes' cycles on
 * DeepSeek-V3, 16,384 GPUs (perf, sixteenth round). */
static inline int ep_divides(long step, long dp)
{
	return (step & (step - 1)) == 0 ? (dp & (step - 1)) == 0 : dp % step == 0;
}

static void cl_add_valid(struct count_list *cl, long step, const int *counts, int n)
{
	long dp = 0;
	for (int i = 0; i < n; i++)
		dp += counts[i];
	if (ep_divides(step, dp))
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
 * up after CAPMILP_STEPS_DEADLINE or _BUDGET steps (capmilp.h). stop
 * (NAN: none) is the *value of the last rung's answer where this rung
 * only tightens its row (capmilp.h, have_stop); hint (NULL: none) the
 * last rung's counts, a seed where they are still feasible (have_hint:
 * the same answer, fewer steps). Returns 0 with counts and *value (NAN
 * when GLPK answered), -1 when infeasible. */
static int milp_counts(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
		       double R, double lambda, double stop, const int *hint, int *counts,
		       double *value)
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
	m.have_stop = !isnan(stop);
	m.stop = m.have_stop ? stop : 0;
	m.have_hint = hint != NULL;
	if (hint)
		memcpy(m.hint, hint, (size_t)n * sizeof *hint);
	x->res->stats.lp_solves++;
	double t0 = hp_now();
	int rc;
	*value = NAN;
	if (!capmilp_memo_get(x->milp_memo, &m, &rc, counts, value)) {
		/* GLPK's model is built from the same fields as m */
		rc = capmilp_solve_value(&m, counts, NULL, value);
		if (rc == -2) {
			rc = milp_counts_glpk(x, g, Ls, n, R, lambda, counts);
			*value = NAN;
		}
		capmilp_memo_put(x->milp_memo, &m, rc, counts, *value);
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
	long M = x->o->gbs / g->mbs, total = 0, ep_step = capmilp_ep_step(g->ep, g->cp);
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
				cl_add_valid(cl, ep_step, counts, n);
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
			cl_add_valid(cl, ep_step, counts, n);
	}
	if (total > M) {
		for (int i = 0; i < n; i++)
			limit[i] = (int)HP_MAX(1, full[i] * M / total);
		if (fill_counts(x, Ls, n, limit, counts) == 0)
			cl_add_valid(cl, ep_step, counts, n);
	}
	if (x->o->objective == OBJ_COST) {
		/* per token, few replicas waste least on bubbles and syncs */
		for (int a = 1; a <= 4; a *= 2)
			for (int i = 0; i < n; i++) {
				for (int k = 0; k < n; k++)
					limit[k] = k == i ? a : 1;
				if (fill_counts(x, Ls, n, limit, counts) == 0)
					cl_add_valid(cl, ep_step, counts, n);
			}
	}
}

/* Mixes of whole nodes tried per layout set: beyond this many the ladder
 * below becomes a neighbourhood (every pool on one rung, or one pool off
 * the top rung). 4,096 = 6 rungs on 4 pools plus room; a set spans at
 * most n_pools + 1 layouts. */
#define NODE_MIXES_MAX 4096

/* fill_counts_in without a limit, for the node mixes: each layout's
 * pools (at most two, once each, those it has GPUs on) as indices into
 * the set's pools, read once a set instead of from the layouts each mix
 * (fit_count and the subtraction read the same pools and GPUs; the
 * pools the set does not use are read by neither). */
struct mix_fill {
	int n, np;
	int gpn[HP_MAX_POOLS];
	int nq[HP_MAX_POOLS + 1], q[HP_MAX_POOLS + 1][2], gpus[HP_MAX_POOLS + 1][2];
	int dep[HP_MAX_POOLS + 1];   /* the least set pool that layouts 0..i use */
};

static void mix_fill_init(struct mix_fill *f, const struct ctx *x, const struct layout **Ls,
			  int n, const int *pools, int np)
{
	f->n = n;
	f->np = np;
	for (int q = 0; q < np; q++)
		f->gpn[q] = x->c->pools[pools[q]].gpus_per_node;
	for (int i = 0; i < n; i++) {
		const struct layout *L = Ls[i];
		f->dep[i] = i ? f->dep[i - 1] : np;
		f->nq[i] = 0;
		for (int s = 0; s < L->nseg; s++) {
			int p = L->seg[s].pool;
			if ((s && p == L->seg[0].pool) || !L->gpus[p])
				continue;
			for (int q = 0; q < np; q++)
				if (pools[q] == p) {
					f->q[i][f->nq[i]] = q;
					f->gpus[i][f->nq[i]++] = L->gpus[p];
					f->dep[i] = HP_MIN(f->dep[i], q);
				}
		}
	}
}

/* The fill of the set's layouts in order, each as many replicas as fit
 * in cap (GPUs per set pool); -1 when every layout gets at least one,
 * else the first layout that gets none. */
static int mix_fill(const struct mix_fill *f, const int *cap, int *counts)
{
	/* every slot (the caller zeroes those past np): a copy of fixed
	 * size, inlined, where np of them was a call to memcpy per mix */
	int left[HP_MAX_POOLS];
	memcpy(left, cap, sizeof left);
	for (int i = 0; i < f->n; i++) {
		int k = 1 << 30;
		for (int j = 0; j < f->nq[i]; j++)
			k = HP_MIN(k, left[f->q[i][j]] / f->gpus[i][j]);
		if (k < 1)
			return i;
		counts[i] = k;
		for (int j = 0; j < f->nq[i]; j++)
			left[f->q[i][j]] -= k * f->gpus[i][j];
	}
	return -1;
}

/* The node mixes walked layout by layout, from this many set pools up
 * (counts_node_mixes): a search setting. The odometer fills every mix
 * from the first layout, and the set's first layouts use the pools that
 * turn fastest: DeepSeek-V3's deadline search on 16,384 GPUs of 4 types
 * fills about 20M mixes, each from scratch, and the 4.7M that fail
 * all fail with dep 0, where the skip below cannot apply. The walk
 * gives each pool its rung where the first layout that uses it is
 * filled, so layouts 0..i are filled once for all the rungs of the
 * pools they do not use, and a failure at layout i cuts all those
 * mixes at once. On 3 pools it saves nothing (Mixtral 8x22B's deadline
 * search: 10,870.2M -> 10,868.0M instructions; fifteenth round's walk
 * of this kind cost more there), nor with its blocks' screen
 * (walk_block_screened: 10,716.1M -> 10,932.9M, docs/planner.md
 * "Seventeenth round"). */
#define MIX_WALK_POOLS 4

/* The walk's state: the set's fill (mix_fill), each pool's rungs in GPUs
 * and their count, each pool's stride in the odometer's numbering (pool
 * 0 turns fastest), the pools each layout is the first to use, and the
 * table of filled mixes by their odometer number. */
struct mix_walk {
	const struct mix_fill *f;
	const int (*lv_gpus)[8];
	const int *nl;
	long stride[HP_MAX_POOLS];
	int n_new[HP_MAX_POOLS + 1], newq[HP_MAX_POOLS + 1][2];
	int *out;             /* mix at's counts at out + at * n */
	uint64_t *ok;         /* bit at % 64 of word at / 64: mix at filled
			       * and a plan's DP degree (the EP step) */
	long ep_step;         /* the EP step (capmilp_ep_step) */
	/* the blocks' screen (walk_block_screened; x NULL: none) */
	struct ctx *x;
	const struct layout **Ls;
	unsigned set_before[HP_MAX_POOLS + 1];  /* set pools layouts 0..i-1 use */
	int branches[HP_MAX_POOLS + 1];         /* a layout from i on is the
						 * first on a pool */
	int top_gpus[HP_MAX_POOLS];             /* each pool's highest rung */
	double M, floor_t;
	/* per layout, read once a set: its fits A_lo, B_lo and the GPUs
	 * one replica adds to the pools (cluster pool, GPUs; a pool once
	 * each, as fit_count counts them) */
	double A[HP_MAX_POOLS + 1], B[HP_MAX_POOLS + 1];
	int nu[HP_MAX_POOLS + 1], up[HP_MAX_POOLS + 1][2], ug[HP_MAX_POOLS + 1][2];
};

double search_block_pipe_bound(int n, int i, const double *A, const double *B, const int *counts,
			       const int *ub, double M)
{
	double num = M, den = 0;
	int idx[HP_MAX_POOLS + 1], k = 0;
	for (int j = 0; j < n; j++) {
		int c = j < i ? counts[j] : 1;
		num += c * A[j] / B[j];
		den += c / B[j];
		if (j < i || ub[j] <= 1)
			continue;
		/* the free layouts by A, the least first (insertion: n <= 5) */
		int at = k++;
		while (at > 0 && A[idx[at - 1]] > A[j]) {
			idx[at] = idx[at - 1];
			at--;
		}
		idx[at] = j;
	}
	if (!(den > 0))
		return -HUGE_VAL;
	double t = num / den;
	for (int a = 0; a < k && A[idx[a]] < t; a++) {
		int j = idx[a];
		num += (ub[j] - 1) * A[j] / B[j];
		den += (ub[j] - 1) / B[j];
		t = num / den;
	}
	return t - 1e-9 * fabs(t);
}

/* Does try_combo's first screen skip every mix of the walk's block at
 * layout i (layouts 0..i-1 at counts[], the set pools they use left
 * with left[] GPUs)? Every mix of the block has counts[j] replicas of
 * each layout j < i and 1 <= n_j <= ub_j of each later one, ub_j the
 * replicas that fit on its pools' GPUs left, or on their highest rung
 * where no layout before i uses them. So each pool holds at least the
 * GPUs of counts[] and of one replica of each later layout (used), and
 * the pipeline bound is at least search_block_pipe_bound's, and at
 * least floor_t (the set's largest A_lo + q B_lo, in every mix's bound);
 * combo_screens_all then decides the block. */
static int walk_block_screened(const struct mix_walk *w, int i, const int *left,
			       const int *counts)
{
	const struct mix_fill *f = w->f;
	int used[HP_MAX_POOLS] = { 0 }, ub[HP_MAX_POOLS + 1];
	for (int j = 0; j < f->n; j++) {
		ub[j] = 1 << 30;
		for (int k = 0; j >= i && k < f->nq[j]; k++) {
			int q = f->q[j][k];
			int cap = w->set_before[i] >> q & 1 ? left[q] : w->top_gpus[q];
			ub[j] = HP_MIN(ub[j], cap / f->gpus[j][k]);
		}
		if (ub[j] < 1)
			return 0;   /* the walk finds the block empty itself */
	}
	for (int j = 0; j < f->n; j++) {
		int c = j < i ? counts[j] : 1;
		for (int k = 0; k < w->nu[j]; k++)
			used[w->up[j][k]] += c * w->ug[j][k];
	}
	double pipe = search_block_pipe_bound(f->n, i, w->A, w->B, counts, ub, w->M);
	return combo_screens_all(w->x, used, fmax(pipe, w->floor_t));
}

/* Layouts i.. of every mix that agrees with mix number idx on the pools
 * layouts 0..i-1 use, given the GPUs left_in those leave (and dp
 * replicas in layouts 0..i-1): the same arithmetic as mix_fill, each
 * layout's new pools put at each of their rungs first. A filled mix is
 * kept only where its DP degree is a multiple of the EP step (the test of
 * cl_add_valid, made here on the running sum: about 70% of DeepSeek-V3's
 * filled mixes fail it on 16,384 GPUs, and were copied out and scanned
 * before). */
static void mix_walk(struct mix_walk *w, int i, const int *left_in, long idx, long dp,
		     int *counts)
{
	const struct mix_fill *f = w->f;
	if (w->x && i > 0 && w->branches[i] && walk_block_screened(w, i, left_in, counts)) {
		w->x->res->stats.screened++;
		return;
	}
	int a = w->n_new[i], left[HP_MAX_POOLS];
	int q0 = a > 0 ? w->newq[i][0] : 0, q1 = a > 1 ? w->newq[i][1] : 0;
	int n0 = a > 0 ? w->nl[q0] : 1, n1 = a > 1 ? w->nl[q1] : 1;
	for (int j1 = 0; j1 < n1; j1++)
		for (int j0 = 0; j0 < n0; j0++) {
			memcpy(left, left_in, sizeof left);
			long at = idx;
			if (a > 0) {
				left[q0] = w->lv_gpus[q0][j0];
				at += j0 * w->stride[q0];
			}
			if (a > 1) {
				left[q1] = w->lv_gpus[q1][j1];
				at += j1 * w->stride[q1];
			}
			int k = 1 << 30;
			for (int j = 0; j < f->nq[i]; j++)
				k = HP_MIN(k, left[f->q[i][j]] / f->gpus[i][j]);
			if (k < 1)
				continue;
			counts[i] = k;
			for (int j = 0; j < f->nq[i]; j++)
				left[f->q[i][j]] -= k * f->gpus[i][j];
			if (i < f->n - 1) {
				mix_walk(w, i + 1, left, at, dp + k, counts);
			} else if (ep_divides(w->ep_step, dp + k)) {
				w->ok[at >> 6] |= 1ull << (at & 63);
				memcpy(w->out + at * f->n, counts, (size_t)f->n * sizeof *counts);
			}
		}
}

/* The mixes the odometer of counts_node_mixes fills, handed to cl in its
 * order (mix_walk, then the table by number): the same list. */
static void node_mixes_walked(struct ctx *x, const struct gset *g, const struct layout **Ls,
			      const struct mix_fill *f, const int (*lv_gpus)[8], const int *nl,
			      long ep_step, struct count_list *cl)
{
	struct mix_walk w;
	memset(&w, 0, sizeof w);
	w.f = f;
	w.lv_gpus = lv_gpus;
	w.nl = nl;
	long total = 1;
	for (int q = 0; q < f->np; q++) {
		w.stride[q] = total;
		total *= nl[q];
		for (int j = 0; j < nl[q]; j++)
			w.top_gpus[q] = HP_MAX(w.top_gpus[q], lv_gpus[q][j]);
	}
	unsigned seen = 0;
	for (int i = 0; i < f->n; i++) {
		w.set_before[i] = seen;
		for (int j = 0; j < f->nq[i]; j++) {
			int q = f->q[i][j];
			if (!(seen & 1u << q)) {
				seen |= 1u << q;
				w.newq[i][w.n_new[i]++] = q;
			}
		}
	}
	for (int i = f->n - 1; i >= 0; i--)
		w.branches[i] = w.n_new[i] > 0 || (i + 1 < f->n && w.branches[i + 1]);
	/* the blocks' screen where its thresholds exist (a ranked list) */
	if (!x->exhaustive) {
		w.x = x;
		w.Ls = Ls;
		w.M = (double)(x->o->gbs / g->mbs);
		for (int i = 0; i < f->n; i++) {
			const struct layout *L = Ls[i];
			int q = g->sched == SCHED_INTERLEAVED ? L->pp : 1;
			w.floor_t = fmax(w.floor_t, L->A_lo + L->B_lo * q);
			w.A[i] = L->A_lo;
			w.B[i] = L->B_lo;
			for (int sg = 0; sg < L->nseg; sg++) {
				int p = L->seg[sg].pool;
				if (!sg || p != L->seg[0].pool) {
					w.up[i][w.nu[i]] = p;
					w.ug[i][w.nu[i]++] = L->gpus[p];
				}
			}
		}
	}
	w.out = xmalloc((size_t)total * (size_t)f->n * sizeof *w.out);
	w.ok = xcalloc((size_t)(total + 63) / 64, sizeof *w.ok);
	w.ep_step = ep_step;
	int left[HP_MAX_POOLS] = { 0 }, counts[HP_MAX_POOLS + 1];
	mix_walk(&w, 0, left, 0, 0, counts);
	/* the filled mixes by number, a word of the bitmap at a time */
	for (long word = 0; word < (total + 63) / 64; word++)
		for (uint64_t bits = w.ok[word]; bits; bits &= bits - 1) {
			long at = word * 64 + __builtin_ctzll(bits);
			cl_add(cl, w.out + at * f->n);
		}
	free(w.out);
	free(w.ok);
}

/* The rungs of each pool's ladder (lv, nl) on which the set can fill:
 * every layout gets at least one replica (fill_counts_in), so pool p
 * holds at least sum_i gpus_ip of its GPUs, and a mix giving it fewer
 * fails to fill whatever the other pools hold. Dropping those rungs
 * keeps the other mixes in their order (the odometer below runs over a
 * product of lists, each filtered alike). Returns -1 when a pool has no
 * rung left (no mix fills). */
static int node_rungs_kept(const struct ctx *x, const struct layout **Ls, int n, const int *pools,
			   int np, int (*lv)[8], int *nl)
{
	for (int q = 0; q < np; q++) {
		long need = 0;
		int gpn = x->c->pools[pools[q]].gpus_per_node, k = 0;
		for (int i = 0; i < n; i++)
			need += Ls[i]->gpus[pools[q]];
		for (int j = 0; j < nl[q]; j++)
			if ((long)lv[q][j] * gpn >= need)
				lv[q][k++] = lv[q][j];
		nl[q] = k;
		if (!k)
			return -1;
	}
	return 0;
}

/* Whole-node mixes: for each pool the set uses, a ladder of node counts
 * (N, 3N/4, N/2, N/4, 2, 1; every count up to 6 nodes), the layouts
 * filled inside them. Costs are billed by the node, and integer
 * micro-batches make some mixes finish together where the linear model
 * cannot see it. */
static void counts_node_mixes(struct ctx *x, const struct gset *g,
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
	/* cap[q]: the GPUs of pool q's rung at[q] (lv_gpus), set for the
	 * pools the odometer moved since the last mix (pools 0..moved-1: the
	 * one it stepped and those below it, which it turned over or the
	 * skip below set), the others kept; zero past np (mix_fill copies
	 * every slot) */
	int at[HP_MAX_POOLS] = { 0 }, counts[HP_MAX_POOLS + 1], cap[HP_MAX_POOLS] = { 0 };
	if (mixes <= NODE_MIXES_MAX && node_rungs_kept(x, Ls, n, pools, np, lv, nl) < 0)
		return;
	struct mix_fill mf;
	mix_fill_init(&mf, x, Ls, n, pools, np);
	int lv_gpus[HP_MAX_POOLS][8], moved = np;
	long ep_step = capmilp_ep_step(g->ep, g->cp);
	for (int q = 0; q < np; q++)
		for (int j = 0; j < nl[q]; j++)
			lv_gpus[q][j] = lv[q][j] * mf.gpn[q];
	if (mixes <= NODE_MIXES_MAX && np >= MIX_WALK_POOLS) {
		node_mixes_walked(x, g, Ls, &mf, (const int (*)[8])lv_gpus, nl, ep_step, cl);
		return;
	}
	for (long it = 0;; it++) {
		for (int q = 0; q < moved; q++)
			cap[q] = lv_gpus[q][at[q]];
		int fail = mix_fill(&mf, cap, counts);
		if (fail < 0)
			cl_add_valid(cl, ep_step, counts, n);
		else if (mixes <= NODE_MIXES_MAX)
			/* the fill up to layout fail reads the pools of layouts
			 * 0..fail alone, the least of them dep: every mix that
			 * differs from this one below dep fails there too, and
			 * those after it are the rest of its block of the
			 * odometer (pools below dep turn fastest): skipped */
			for (int q = 0; q < mf.dep[fail]; q++)
				at[q] = nl[q] - 1;
		if (mixes > NODE_MIXES_MAX) {
			/* neighbourhood: rung r on every pool (it < 8), then pool
			 * q alone on rung r */
			moved = np;
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
		moved = q + 1;
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

/* Can the deadline ladder below try nothing that changes what the search
 * reports? Each of its answers has a rate row of at least R (the first
 * rung's; R only grows), sum_i n_i / B_i >= R, and each neighbour loses
 * at most step (the EP step) replicas of one layout: rate at least
 * R' = R (1 - 1e-4) - step max_i 1/B_i. Such counts split M micro-batches within
 * T = M / R' + max_i (A_i + q_i B_i): each group runs at least
 * (T - A_i) / B_i - q_i micro-batches a replica within T (split_batch),
 * and sum_i n_i ((T - A_i) / B_i - q_i) >= M there as
 * sum_i n_i (A_i + q_i B_i) / B_i <= R' max_i (A_i + q_i B_i); the
 * split's time is the least with M, and the pipeline term (A_lo, B_lo
 * at most A, B) is at most it. So every plan the ladder can try has a
 * pipeline term of at most T (a relative 1e-6 above for the split's
 * rounding), and pays at least the least USD an hour of counts that
 * reach R' (rate_floor); the set's cost curve with those decides them
 * all at once (set_curve_screened_below). Returns 1 to skip the
 * ladder. */
static int ladder_screened(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
			   double R)
{
	double r_max = 0, a_max = 0, M = (double)(x->o->gbs / g->mbs);
	for (int i = 0; i < n; i++) {
		int q = g->sched == SCHED_INTERLEAVED ? Ls[i]->pp : 1;
		r_max = fmax(r_max, 1 / Ls[i]->B);
		a_max = fmax(a_max, Ls[i]->A + q * Ls[i]->B);
	}
	/* R less 1e-4 of it: the solvers' feasibility tolerances on the rate
	 * row (capmilp 1e-9, GLPK's rows 1e-7) and GLPK's integrality
	 * tolerance (1e-5 per count) before lround, which can leave a GLPK
	 * answer's rounded counts short of R by about 1e-5 of it; the same
	 * margin as the rate_max check */
	double Rn = R * (1 - 1e-4) - (double)capmilp_ep_step(g->ep, g->cp) * r_max;
	if (!(Rn > 0))
		return 0;
	return set_curve_screened_below(x, g, Ls, n, 0, (M / Rn + a_max) * (1 + 1e-6), Rn);
}

/* The budget ladder's version. Each answer of the ladder is feasible for
 * a rung's cost row, sum N_p P_p / 3600 <= lambda sum n_i / B_i, at a
 * lambda no higher than the first rung's (lambda only falls); whole
 * nodes cost at least the GPU shares, so sum n_i c_i <= 0 with
 * c_i = usd_h_i / 3600 - lambda' / B_i, lambda' the first rung's raised
 * by a relative 1e-4 (as budget_infeasible: far above the solvers'
 * feasibility tolerances). Their rate at the fits without PP/CP/EP
 * communication, sum n_i / B_lo_i, is then at most the LP's greatest
 * over 1 <= n_i <= (replicas that fit): each layout once, the ones with
 * c_i <= 0 at the most replicas, then the others by rate per unit of c
 * while the row's slack lasts; a neighbour adds at most one EP step of
 * one layout (or moves one replica). A plan of rate R_lo at B_lo splits
 * M micro-batches in no less than M / R_lo (combo_split: each replica
 * runs at most (s - A_lo_i) / B_lo_i within pipeline term s, and
 * A_lo_i >= 0), so every plan the ladder can try has a pipeline term of
 * at least M / R_lo: the set's cost curve from there decides them all
 * (set_curve_screened_below). Returns 1 to skip the ladder. */
double search_budget_rate_bound(int n, const double *usd_h, const double *B,
				const double *B_lo, const double *ub, double lambda)
{
	int idx[HP_MAX_POOLS + 1], k = 0;
	double slack = 0, rate = 0, c[HP_MAX_POOLS + 1];
	for (int i = 0; i < n; i++) {
		c[i] = usd_h[i] / 3600 - lambda / B[i];
		if (c[i] <= 0) {
			rate += ub[i] / B_lo[i];
			slack -= ub[i] * c[i];
			continue;
		}
		rate += 1 / B_lo[i];
		slack -= c[i];
		int j = k++;
		/* by rate per unit of c, the most first */
		while (j > 0 && B_lo[idx[j - 1]] * c[idx[j - 1]] > B_lo[i] * c[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	if (slack < 0)
		return -1;
	for (int j = 0; j < k && slack > 0; j++) {
		int i = idx[j];
		double take = fmin(ub[i] - 1, slack / c[i]);
		if (take > 0) {
			rate += take / B_lo[i];
			slack -= take * c[i];
		}
	}
	return rate;
}

/* The screen itself, from search_budget_rate_bound's rate (see above). */
static int budget_ladder_screened(struct ctx *x, const struct gset *g, const struct layout **Ls,
				  int n, double lambda)
{
	double usd_h[HP_MAX_POOLS + 1], B[HP_MAX_POOLS + 1], B_lo[HP_MAX_POOLS + 1];
	double ub[HP_MAX_POOLS + 1], r_max = 0, M = (double)(x->o->gbs / g->mbs);
	for (int i = 0; i < n; i++) {
		usd_h[i] = Ls[i]->usd_h;
		B[i] = Ls[i]->B;
		B_lo[i] = Ls[i]->B_lo;
		ub[i] = fit_count(x, Ls[i], x->cap);
		r_max = fmax(r_max, 1 / B_lo[i]);
	}
	double rate = search_budget_rate_bound(n, usd_h, B, B_lo, ub, lambda * (1 + 1e-4));
	if (!(rate > 0))
		return 0;   /* budget_infeasible decides an empty row */
	rate += (double)capmilp_ep_step(g->ep, g->cp) * r_max;
	return set_curve_screened_below(x, g, Ls, n, M / rate * (1 - 1e-6), HUGE_VAL, 0);
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
	/* the last rung's answer value, where the next rung only tightens
	 * the row: the next search stops on reaching it (capmilp.h) */
	double stop = NAN, value;
	int last[HP_MAX_POOLS + 1], have_last = 0;
	for (int round = 0; round < 8; round++) {
		/* surely infeasible (the margin is far above GLPK's 1e-7
		 * feasibility tolerance): skip the solve that would say so */
		if (o->objective == OBJ_DEADLINE && rate_max < R * (1 - 1e-4))
			return;
		/* the rungs left, whose R is at least this one's, screened
		 * whole (once more each rung: R grows, the kept plans too) */
		if (o->objective == OBJ_DEADLINE && ladder_screened(x, g, Ls, n, R)) {
			x->res->stats.screened++;
			return;
		}
		if (o->objective == OBJ_BUDGET && budget_infeasible(x, Ls, n, lambda))
			return;
		if (o->objective == OBJ_BUDGET && budget_ladder_screened(x, g, Ls, n, lambda)) {
			x->res->stats.screened++;
			return;
		}
		if (milp_counts(x, g, Ls, n, R, lambda, stop, have_last ? last : NULL, counts,
				&value) < 0)
			return;
		memcpy(last, counts, (size_t)n * sizeof *counts);
		have_last = 1;
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
				stop = value;   /* R only grows, lambda stays */
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
			stop = NAN;
		} else {
			if (cost <= o->budget_usd)
				return;
			lambda *= o->budget_usd / cost * 0.9995;
			stop = value;   /* lambda only falls (cost > budget) */
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
	int from = 0;
	if (x->o->objective != OBJ_THROUGHPUT) {
		/* the vectors before the node mixes tried first (they are
		 * first in the list, tried in its order either way), so that
		 * the mixes' blocks are screened against the plans they kept */
		for (; from < cl.n; from++)
			cl_try(x, g, Ls, n, &cl.v[from], 0);
		counts_node_mixes(x, g, Ls, n, &cl);
	}
	for (int i = from; i < cl.n; i++)
		cl_try(x, g, Ls, n, &cl.v[i], 0);
	if (x->o->objective == OBJ_DEADLINE || x->o->objective == OBJ_BUDGET)
		counts_milp_ladder(x, g, Ls, n, &cl);
	cl_free(&cl);
}

/* counts_for_set_in, screening without the stock plan where no plan of
 * the set can be one. (Its time is the candidates' statistic, read
 * around a setting's sets by search_gset.) */
void counts_for_set(struct ctx *x, const struct gset *g, const struct layout **Ls, int n)
{
	x->no_stock = !set_may_stock(x, Ls, n);
	counts_for_set_in(x, g, Ls, n);
	x->no_stock = 0;
}
