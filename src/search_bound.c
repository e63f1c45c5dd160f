/* search_bound.c — the planner's bounds: the pipeline LP, its floors,
 * the data-parallel terms, the whole-replica step and the cost bound. */
#include "search_int.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lp.h"

/* The fewest micro-batches a replica of layout L takes under setting g:
 * one, or under the interleaved schedule a multiple of its depth
 * (plan_validate), so at least pp. */
static int layout_min_mb(const struct gset *g, const struct layout *L)
{
	return g->sched == SCHED_INTERLEAVED ? L->pp : 1;
}

static double term_a(const struct layout *L, const struct dp_terms *dt, int i)
{
	return L->A + (dt ? dt->a[i] : 0);
}

static double term_b(const struct layout *L, const struct dp_terms *dt, int i)
{
	return L->B + (dt ? dt->b[i] : 0);
}

/* lp_pipe_bound's answers for one setting's layouts, by programme. A
 * setting's bound meets the same LP again (a DP range solved again after
 * a refinement that changed none of its terms, a floor whose layouts are
 * those of another floor: on 65,536 GPUs about a quarter of the LPs), and
 * GLPK, given the same model built in the same order, gives the same
 * answer, so an answer is looked up instead of solved again. The model is
 * built from the setting's fixed data (M, the pools, the objective and
 * budget, and per layout its GPUs, fewest micro-batches and price, none
 * of which changes while ls lives) and from what the key holds: whether
 * there are DP terms, their replica range, whether sup takes shares, and
 * per column, in order, its layout's index and its two terms. (tau only
 * picks the columns, so it is not in the key.) An LP GLPK failed on is
 * not kept: it is solved again, as before. */
struct pipe_memo {
	struct pipe_answer {
		unsigned long long h;
		double *key;
		int n_key, n_sup;
		double val;
		int sup[DP_SUP_MAX];
	} *v;
	int n, cap;
	long keys;                /* doubles held by the keys */
};

/* Keys held per setting at most (doubles): 8 MB. */
#define PIPE_MEMO_KEYS (1L << 20)

/* A hash of the key's doubles as 64-bit words, two lanes of multiplies
 * (FNV-1a over the bytes before: 6.7M instructions of the 70B search on
 * 1,024 GPUs, one multiply per byte; the whole key is compared on a
 * match, so the hash only has to spread). */
static unsigned long long key_hash(const double *k, int n)
{
	unsigned long long a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull;
	int i = 0;
	for (; i + 1 < n; i += 2) {
		unsigned long long u, v;
		memcpy(&u, &k[i], sizeof u);
		memcpy(&v, &k[i + 1], sizeof v);
		a = (a ^ u) * 0x9e3779b97f4a7c15ull;
		b = (b ^ v) * 0xc2b2ae3d27d4eb4full;
	}
	if (i < n) {
		unsigned long long u;
		memcpy(&u, &k[i], sizeof u);
		a = (a ^ u) * 0x9e3779b97f4a7c15ull;
	}
	unsigned long long h = (a ^ (b >> 29) ^ (b << 23) ^ (unsigned long long)n) *
			       0xff51afd7ed558ccdull;
	return h ^ (h >> 31);
}

static const struct pipe_answer *pipe_memo_find(const struct pipe_memo *m, const double *key,
						 int n_key, unsigned long long h)
{
	for (int i = 0; m && i < m->n; i++)
		if (m->v[i].h == h && m->v[i].n_key == n_key &&
		    !memcmp(m->v[i].key, key, (size_t)n_key * sizeof *key))
			return &m->v[i];
	return NULL;
}

/* Keep an answer; takes key (freed here when it is not kept). */
static void pipe_memo_add(struct layouts *ls, double *key, int n_key, unsigned long long h,
			  double val, const int *sup, int n_sup)
{
	if (!ls->memo)
		ls->memo = xcalloc(1, sizeof *ls->memo);
	struct pipe_memo *m = ls->memo;
	if (m->keys + n_key > PIPE_MEMO_KEYS) {
		free(key);
		return;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->v = xrealloc(m->v, (size_t)m->cap * sizeof *m->v);
	}
	struct pipe_answer *a = &m->v[m->n++];
	a->h = h;
	a->key = key;
	a->n_key = n_key;
	a->val = val;
	a->n_sup = n_sup;
	memcpy(a->sup, sup, (size_t)n_sup * sizeof *sup);
	m->keys += n_key;
}

void bound_memo_free(struct layouts *ls)
{
	struct pipe_memo *m = ls->memo;
	if (!m)
		return;
	for (int i = 0; i < m->n; i++)
		free(m->v[i].key);
	free(m->v);
	free(m);
	ls->memo = NULL;
}

/* The pipeline LP's rows go to one of two sinks: GLPK's model, or a
 * dense m x n matrix for lp_small_solve (column 0 is t, column 1 + k the
 * k-th layout of col). */
struct pipe_model {
	struct lp *lp;                   /* GLPK's model, or NULL: dense */
	int m, n;
	double *a, *c;                   /* m x n, row-major; n costs */
	double lo[LPS_MAX_ROWS], hi[LPS_MAX_ROWS];
};

/* Row lo <= sum_j cf[j] x[idx[j]] <= hi into the sink. */
static void pm_row(struct pipe_model *pm, int k, const int *idx, const double *cf, double lo,
		   double hi)
{
	if (pm->lp) {
		lp_add_row(pm->lp, k, idx, cf, lo, hi);
		return;
	}
	double *r = pm->a + (size_t)pm->m * pm->n;
	memset(r, 0, (size_t)pm->n * sizeof *r);
	for (int j = 0; j < k; j++)
		r[idx[j]] = cf[j];
	pm->lo[pm->m] = lo;
	pm->hi[pm->m++] = hi;
}

/* The rows of pipe_lp_solve's comment in their order (the objective's
 * row, with dt the replicas' two rows, the pools used, the micro-batches,
 * with a budget the budget's row), each row's layouts first and t last:
 * GLPK's model is the one it was before lpsmall.c, call for call. At
 * most n_pools + 5 rows. */
static void pipe_rows(const struct ctx *x, const struct gset *g, const struct layouts *ls,
		      const int *col, const struct dp_terms *dt, struct pipe_model *pm)
{
	double M = (double)(x->o->gbs / g->mbs);
	int *idx = xmalloc((size_t)(ls->n + 1) * sizeof *idx), k = 0;
	double *cf = xmalloc((size_t)(ls->n + 1) * sizeof *cf);
	for (int i = 0; i < ls->n; i++)
		if (col[i] >= 0) {
			idx[k] = col[i];
			cf[k++] = 1.0 / term_b(&ls->v[i], dt, i);
		}
	pm_row(pm, k, idx, cf, 1, 1);
	if (dt) {
		/* the replicas in all, sum n_L = sum y_L / t, within
		 * [n_lo, n_hi] */
		for (int i = 0; i < k; i++)
			cf[i] = 1;
		idx[k] = 0;
		cf[k] = -dt->n_lo;
		pm_row(pm, k + 1, idx, cf, 0, HUGE_VAL);
		cf[k] = -dt->n_hi;
		pm_row(pm, k + 1, idx, cf, -HUGE_VAL, 0);
	}
	for (int p = 0; p < x->c->n_pools; p++) {
		k = 0;
		for (int i = 0; i < ls->n; i++)
			if (col[i] >= 0 && ls->v[i].gpus[p]) {
				idx[k] = col[i];
				cf[k++] = ls->v[i].gpus[p];
			}
		if (k) {
			idx[k] = 0;
			cf[k++] = -x->cap[p];
			pm_row(pm, k, idx, cf, -HUGE_VAL, 0);
		}
	}
	k = 0;
	for (int i = 0; i < ls->n; i++)
		if (col[i] >= 0) {
			idx[k] = col[i];
			cf[k++] = layout_min_mb(g, &ls->v[i]);
		}
	idx[k] = 0;
	cf[k++] = -M;
	pm_row(pm, k, idx, cf, -HUGE_VAL, 0);
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
					? ls->v[i].usd_h / 3600 - lambda / term_b(&ls->v[i], dt, i)
					: 1e3;   /* unpriced: cannot be used */
			}
		pm_row(pm, k, idx, cf, -HUGE_VAL, 0);
	}
	free(idx);
	free(cf);
}
_Static_assert(HP_MAX_POOLS + 5 <= LPS_MAX_ROWS, "the pipeline LP's rows fit lpsmall.c");

/* The costs: M for t, A_L / B_L for a layout. */
static void pipe_costs(const struct ctx *x, const struct gset *g, const struct layouts *ls,
		       const int *col, const struct dp_terms *dt, double *c)
{
	c[0] = (double)(x->o->gbs / g->mbs);
	for (int i = 0; i < ls->n; i++)
		if (col[i] >= 0)
			c[col[i]] = term_a(&ls->v[i], dt, i) / term_b(&ls->v[i], dt, i);
}

/* The LP by lp_small_solve on the dense model (n columns). */
static int pipe_lp_small(const struct ctx *x, const struct gset *g, const struct layouts *ls,
			 const int *col, const struct dp_terms *dt, int n, double *xv,
			 struct lp_result *r)
{
	struct pipe_model pm = { .n = n };
	pm.a = xmalloc((size_t)(x->c->n_pools + 5) * n * sizeof *pm.a);
	pm.c = xmalloc((size_t)n * sizeof *pm.c);
	pipe_costs(x, g, ls, col, dt, pm.c);
	pipe_rows(x, g, ls, col, dt, &pm);
	int rc = lp_small_solve(pm.m, pm.n, pm.a, pm.lo, pm.hi, pm.c, xv, r);
	free(pm.a);
	free(pm.c);
	return rc;
}

/* The LP by GLPK, the model built as before lpsmall.c (n columns). */
static int pipe_lp_glpk(const struct ctx *x, const struct gset *g, const struct layouts *ls,
			const int *col, const struct dp_terms *dt, int n, double *xv,
			struct lp_result *r)
{
	struct pipe_model pm = { .lp = lp_new(0), .n = n };
	double *c = xmalloc((size_t)n * sizeof *c);
	pipe_costs(x, g, ls, col, dt, c);
	for (int j = 0; j < n; j++)
		lp_add_col(pm.lp, 0, -1, c[j], 0);
	pipe_rows(x, g, ls, col, dt, &pm);
	int rc = lp_solve(pm.lp, 0, r);
	for (int j = 0; j < n; j++)
		xv[j] = rc == 0 ? lp_value(pm.lp, j) : 0;
	free(c);
	lp_free(pm.lp);
	return rc;
}

/* Is lp_small_solve's optimum the vertex GLPK finds, and its support
 * the one GLPK's gives? Yes when the optimum is unique (every nonbasic
 * column's and inequality row's reduced cost clear of 0: the optimum is
 * not dual degenerate) and no layout's replicas y_L / t lie within 1e-9
 * relative of the support's threshold (one replica, or 1e-9 of one with
 * shares), where the last bits of either solver decide. Otherwise GLPK
 * solves the LP again, so that the support, which decides which DP terms
 * and which layout sets the search computes next, is the one it was
 * (issue 13, fourteenth round: on 1,024 GPUs of 3 types 1.3% of the LPs,
 * on the 65,536-GPU bench case of 16 pools, four of each GPU type, 37%:
 * its layouts on pools of one type tie). Below 1e-9 the bench's ties were
 * all exact zeros, the rest 1e-5 or more. */
static int pipe_support_sure(const struct lp_result *r, const double *xv,
			     const struct layouts *ls, const int *col, int shares)
{
	if (r->tie_col < 1e-9 || r->tie_row < 1e-9)
		return 0;
	double th = shares ? 1e-9 : 1;
	for (int i = 0; xv[0] > 0 && i < ls->n; i++)
		if (col[i] >= 0 && fabs(xv[col[i]] / (xv[0] * th) - 1) < 1e-9)
			return 0;
	return 1;
}

/* Does the cluster hold two pools of the same GPUs, nodes and network
 * (they may differ in name, site and price)? Their layouts then come in
 * twins of equal cost, and the pipeline LPs' optima are often dual
 * degenerate: on the bench's 65,536 GPUs in 16 pools, four of each GPU
 * type, 1,214 of 3,239 LPs, which pipe_support_sure sends to GLPK after
 * lp_small_solve, so that the two solves cost more than GLPK alone did
 * (5.4 -> 6.9 s of CPU on the loaded machine). On such a cluster GLPK
 * solves them first. Only the solver is chosen here, never the answer:
 * GLPK's is the one the search always had. */
static int twin_pools(const struct cluster *c)
{
	for (int p = 0; p < c->n_pools; p++)
		for (int q = p + 1; q < c->n_pools; q++) {
			const struct pool *a = &c->pools[p], *b = &c->pools[q];
			if (!strcmp(a->gpu.name, b->gpu.name) && a->gpus_per_node == b->gpus_per_node &&
			    a->nodes == b->nodes && a->nodes_max == b->nodes_max &&
			    a->intra == b->intra && a->intra_Bps == b->intra_Bps &&
			    a->intra_gbyte_s == b->intra_gbyte_s &&
			    a->nvl_domain == b->nvl_domain && a->nics == b->nics &&
			    a->nic_gbps == b->nic_gbps && a->transport == b->transport)
				return 1;
		}
	return 0;
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
 * Every cost is >= 0 and every column >= 0, so lpsmall.c's dense dual
 * simplex takes it (issue 13, fourteenth round: GLPK took about 200,000
 * instructions an LP); GLPK solves it when that one gives up
 * (LP_ERROR: a cycle, a singular basis).
 * Returns the minimum (seconds), HUGE_VAL when no layout qualifies or the
 * programme is infeasible, and -1 when the solvers fail otherwise. sup
 * (may be NULL) gets the indices in ls of the optimum's layouts with at
 * least one replica (n_sup of them, at most HP_MAX_POOLS + 1); with dt
 * and not whole, of any share of one (at most DP_SUP_MAX). */
static double pipe_lp_solve(struct ctx *x, const struct gset *g, const struct layouts *ls,
			    const int *col, const struct dp_terms *dt, int shares, int *sup,
			    int *n_sup)
{
	double val = HUGE_VAL;
	int n = 1;
	for (int i = 0; i < ls->n; i++)
		n += col[i] >= 0;
	double *xv = xmalloc((size_t)n * sizeof *xv);
	struct lp_result r;
	double t0 = hp_now();
	int rc = -1;
	r.status = LP_ERROR;
	if (!twin_pools(x->c))
		rc = pipe_lp_small(x, g, ls, col, dt, n, xv, &r);
	if ((rc != 0 && r.status == LP_ERROR) || (rc == 0 && !pipe_support_sure(&r, xv, ls, col, shares)))
		rc = pipe_lp_glpk(x, g, ls, col, dt, n, xv, &r);
	x->res->stats.lp_s += hp_now() - t0;
	if (rc == 0 && r.obj > 0)
		val = r.obj;
	else if (r.status != LP_INFEASIBLE)
		val = -1;
	/* the relaxed optimum's layouts: those of at least one replica
	 * (of any share of one with dt: the layouts whose terms
	 * dp_bound computes next) */
	double t = rc == 0 ? xv[0] : 0;
	int cap_sup = shares ? DP_SUP_MAX : HP_MAX_POOLS + 1;
	for (int i = 0; t > 0 && i < ls->n; i++)
		if (col[i] >= 0 && xv[col[i]] >= (shares ? 1e-9 : 1) * t && *n_sup < cap_sup)
			sup[(*n_sup)++] = i;
	x->res->stats.lp_solves++;
	free(xv);
	return val;
}

/* Does the range's LP surely hold no point? With y_L = n_L t its rows
 * give sum_L y_L >= n_lo t, sum_L y_L gpus_L <= (the pools' GPUs) t (the
 * pool rows summed) and sum_L y_L q_L <= M t, and its first row needs
 * t > 0; so n_lo replicas of the smallest layout must fit in the
 * cluster's GPUs and take no more than M micro-batches. Issue 13,
 * thirteenth round: a tenth of the 70B search's bound LPs (1,024 GPUs)
 * were ranges of more replicas than the cluster holds, which GLPK found
 * infeasible (every one of them at 1.5x the GPUs or more). Only a range
 * out by more than 1% is skipped, far above GLPK's tolerances, so the
 * answer is the one GLPK gives: HUGE_VAL and no support. */
static int range_surely_empty(const struct ctx *x, const struct gset *g,
			      const struct layouts *ls, const int *col, const struct dp_terms *dt)
{
	double gpus = 0, least = HUGE_VAL, q = HUGE_VAL;
	for (int p = 0; p < x->c->n_pools; p++)
		gpus += x->cap[p];
	for (int i = 0; i < ls->n; i++) {
		if (col[i] < 0)
			continue;
		double sz = 0;
		for (int p = 0; p < x->c->n_pools; p++)
			sz += ls->v[i].gpus[p];
		least = fmin(least, sz);
		q = fmin(q, layout_min_mb(g, &ls->v[i]));
	}
	double M = (double)(x->o->gbs / g->mbs);
	return dt->n_lo * least > 1.01 * gpus || dt->n_lo * q > 1.01 * M;
}

static double lp_pipe_bound(struct ctx *x, const struct gset *g, struct layouts *ls, double tau,
			    const struct dp_terms *dt, int whole, int *sup, int *n_sup)
{
	int n = 0, shares = dt && !whole;
	int *col = xmalloc((size_t)(ls->n ? ls->n : 1) * sizeof *col);
	double *key = xmalloc((size_t)(4 + 3 * ls->n) * sizeof *key);
	int n_key = 0;
	key[n_key++] = dt != NULL;
	key[n_key++] = shares;
	key[n_key++] = dt ? dt->n_lo : 0;
	key[n_key++] = dt ? dt->n_hi : 0;
	for (int i = 0; i < ls->n; i++) {
		const struct layout *L = &ls->v[i];
		col[i] = -1;
		if (!L->fits || L->max_count < 1 || (dt && dt->no_fit[i]) ||
		    term_a(L, dt, i) + term_b(L, dt, i) * layout_min_mb(g, L) > tau)
			continue;
		col[i] = 1 + n;   /* t is column 0 */
		key[n_key++] = i;
		key[n_key++] = term_a(L, dt, i);
		key[n_key++] = term_b(L, dt, i);
		n++;
	}
	double val = HUGE_VAL;
	int ms[DP_SUP_MAX], n_ms = 0;
	if (n && dt && range_surely_empty(x, g, ls, col, dt)) {
		free(key);
		free(col);
		return HUGE_VAL;   /* what GLPK answers: infeasible, no support */
	}
	unsigned long long h = key_hash(key, n_key);
	const struct pipe_answer *a = n ? pipe_memo_find(ls->memo, key, n_key, h) : NULL;
	if (a) {
		val = a->val;
		n_ms = a->n_sup;
		memcpy(ms, a->sup, (size_t)n_ms * sizeof *ms);
		free(key);
	} else if (n) {
		val = pipe_lp_solve(x, g, ls, col, dt, shares, ms, &n_ms);
		if (val != -1)
			pipe_memo_add(ls, key, n_key, h, val, ms, n_ms);
		else
			free(key);
	} else {
		free(key);
	}
	int cap_sup = shares ? DP_SUP_MAX : HP_MAX_POOLS + 1;
	for (int i = 0; sup && i < n_ms; i++)
		if (*n_sup < cap_sup)
			sup[(*n_sup)++] = ms[i];
	free(col);
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
double step_score(const struct ctx *x, const struct gset *g, double step)
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

/* The programme of whole_feasible for one call of search_whole_step,
 * built once and solved again at each step T from its last basis (a warm
 * start: the bisection's steps differ in a few capacities c_L(T), and a
 * fresh model took about a hundred simplex iterations each). Every layout
 * that could be used at some T (b > 0, q >= 1, max_count >= 1) has a
 * column; at T one that cannot (c_L(T) < q_L) is fixed at 0, which is the
 * programme without it. Per pool, the capacity row and one
 * Chvatal-Gomory row per distinct replica size g > 1 on it; a cut row is
 * on (at most floor(cap_p / g)) at T only when a layout used at T has
 * that size, and free otherwise, so the rows in force at T are exactly
 * those the programme at T has (a row over columns fixed at 0 holds
 * anyway). The same programme, so the same optimum value; only the
 * simplex path differs, and the test obj >= M (1 - 1e-9) reads the value
 * with a tolerance far above that path's last bits. */
struct whole_lp {
	struct lp *lp;
	const struct whole_layout *L;
	int n, n_pools;
	const int *cap;
	long M, n_lo, n_hi;
	int *col;                 /* layout i's column, -1: none */
	char *on;                 /* layout i used at the last T */
	int n_cut;
	struct whole_cut {
		int p, row;
		long g;
	} *cut;
};

/* Add the rows of one pool: its capacity row, then a cut per size. */
static void whole_pool_rows(struct whole_lp *w, int p, int *idx, double *cf)
{
	const struct whole_layout *L = w->L;
	for (int s = -1; s < w->n; s++) {
		/* s = -1: the plain row (divisor 1); else the divisor
		 * gpus[p] of layout s, once per distinct value */
		long d = s < 0 ? 1 : L[s].gpus[p];
		if (s >= 0) {
			int dup = d <= 1 || w->col[s] < 0;
			for (int j = 0; j < s && !dup; j++)
				dup = w->col[j] >= 0 && L[j].gpus[p] == d;
			if (dup)
				continue;
		}
		int k = 0;
		for (int i = 0; i < w->n; i++)
			if (w->col[i] >= 0 && L[i].gpus[p] / d > 0) {
				idx[k] = w->col[i];
				cf[k++] = (double)(L[i].gpus[p] / d);
			}
		if (!k)
			continue;
		int row = lp_add_row(w->lp, k, idx, cf, -HUGE_VAL, (double)(w->cap[p] / d));
		if (s >= 0)
			w->cut[w->n_cut++] = (struct whole_cut){ p, row, d };
	}
}

static void whole_lp_build(struct whole_lp *w)
{
	const struct whole_layout *L = w->L;
	int n = w->n;
	w->lp = lp_new(1);
	lp_set_scale(w->lp, 0);   /* only obj >= M (1 - 1e-9) is read */
	int *idx = xmalloc((size_t)(n ? n : 1) * sizeof *idx);
	double *cf = xmalloc((size_t)(n ? n : 1) * sizeof *cf);
	for (int i = 0; i < n; i++)
		w->col[i] = L[i].b > 0 && L[i].q >= 1 && L[i].max_count >= 1
			    ? lp_add_col(w->lp, 0, 0, 0, 0) : -1;
	w->n_cut = 0;
	for (int p = 0; p < w->n_pools; p++)
		whole_pool_rows(w, p, idx, cf);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (w->col[i] >= 0) {
			idx[k] = w->col[i];
			cf[k++] = L[i].q;
		}
	if (k) {
		lp_add_row(w->lp, k, idx, cf, -HUGE_VAL, (double)w->M);
		for (int i = 0; i < k; i++)
			cf[i] = 1;
		lp_add_row(w->lp, k, idx, cf, (double)w->n_lo, (double)w->n_hi);
	}
	free(idx);
	free(cf);
}

/* Set the programme at step T: the columns used and their capacities,
 * the cut rows in force. Returns how many layouts are used. */
static int whole_lp_at(struct whole_lp *w, double T)
{
	const struct whole_layout *L = w->L;
	int used = 0;
	for (int i = 0; i < w->n; i++) {
		double c = w->col[i] >= 0 ? whole_cap(&L[i], T) : 0;
		w->on[i] = c >= 1;
		used += w->on[i];
		if (w->col[i] >= 0)
			lp_set_col(w->lp, w->col[i], 0, w->on[i] ? L[i].max_count : 0,
				   w->on[i] ? c : 0);
	}
	for (int k = 0; k < w->n_cut; k++) {
		const struct whole_cut *u = &w->cut[k];
		int in = 0;
		for (int i = 0; i < w->n && !in; i++)
			in = w->on[i] && L[i].gpus[u->p] == u->g;
		lp_set_row(w->lp, u->row, -HUGE_VAL,
			   in ? (double)(w->cap[u->p] / u->g) : HUGE_VAL);
	}
	return used;
}

/* Is step T feasible (the programme above reaches M)? 1 also when GLPK
 * fails (no proof), 0 when proven not. *lps counts the LPs. Should GLPK
 * fail on the warm-started model, a fresh one is solved instead. */
static int whole_feasible(struct whole_lp *w, double T, int *lps)
{
	struct lp_result r;
	int rc = -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!w->lp)
			whole_lp_build(w);
		if (!whole_lp_at(w, T))
			return 0;
		rc = lp_solve(w->lp, 0, &r);
		(*lps)++;
		if (rc == 0 || r.status != LP_ERROR)
			break;
		lp_free(w->lp);
		w->lp = NULL;
	}
	if (rc == 0)
		return r.obj >= (double)w->M * (1 - 1e-9);
	return r.status != LP_INFEASIBLE;
}

/* search_whole_step's search over T with the programme w. */
static double whole_search(struct whole_lp *w, double t_min, double t_max, int *lps)
{
	const struct whole_layout *L = w->L;
	int n = w->n;
	long M = w->M;
	/* lo: proven infeasible (-1: below every floor, where no replica
	 * fits in a step); hi: feasible */
	double lo = -1, hi = HUGE_VAL, first = whole_next(L, n, lo);
	if (!isfinite(first))
		return HUGE_VAL;
	double h = first;
	if (isfinite(t_min) && t_min >= first) {
		if (whole_feasible(w, t_min, lps))
			return t_min;
		lo = h = t_min;
	}
	/* infeasible at t_max: the least feasible step is above it, which
	 * is all the caller asks */
	if (t_max > h && isfinite(t_max)) {
		if (!whole_feasible(w, t_max, lps))
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
		if (whole_feasible(w, t, lps)) {
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
		if (whole_feasible(w, mid, lps)) {
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

double search_whole_step(const struct whole_layout *L, int n, const int *cap, int n_pools,
			 long M, long n_lo, long n_hi, double t_min, double t_max, int *lps)
{
	if (M < 1 || n_pools > HP_MAX_POOLS || n_lo > n_hi)
		return HUGE_VAL;
	struct whole_lp w = { .L = L, .n = n, .n_pools = n_pools, .cap = cap, .M = M,
			      .n_lo = n_lo, .n_hi = n_hi };
	w.col = xmalloc((size_t)(n ? n : 1) * sizeof *w.col);
	w.on = xmalloc((size_t)(n ? n : 1));
	w.cut = xmalloc((size_t)(n_pools * n + 1) * sizeof *w.cut);
	double t = whole_search(&w, t_min, t_max, lps);
	lp_free(w.lp);
	free(w.col);
	free(w.on);
	free(w.cut);
	return t;
}

/* The exposed DP synchronisation of plan p at each pair of gradient and
 * parameter overlaps the framework allows (overlap_values), into D (*n
 * pairs, at most PERF_DP_PAIRS): every pair at once (estimate_dp_each:
 * each stage computed once; the pairs fail or not together, perf.c
 * check_plan reads neither overlap). Counts the estimates into x's
 * stats. Returns 0, or -1 when the estimate fails. */
static int plan_dp_pairs(struct ctx *x, const struct plan *p, double *D, int *n)
{
	int vg[2], vp[2];
	int ng = overlap_values(p, 1, vg), np = overlap_values(p, 2, vp);
	int gv[PERF_DP_PAIRS], pv[PERF_DP_PAIRS];
	for (int v = 0; v < ng * np; v++) {
		gv[v] = vg[v % ng];
		pv[v] = vp[v / ng];
	}
	struct hp_err err;   /* empty (probe_once says why not zeroed) */
	err.code = 0;
	err.msg[0] = '\0';
	*n = ng * np;
	if (estimate_dp_each(x, p, gv, pv, ng * np, D, &err) < 0)
		return -1;
	x->res->stats.evaluated += ng * np;
	x->res->stats.dp_terms += ng * np;
	return 0;
}

double search_plan_dp_least(struct ctx *x, const struct plan *p)
{
	double D[PERF_DP_PAIRS], least = HUGE_VAL;
	int n;
	if (plan_dp_pairs(x, p, D, &n) < 0)
		return -1;
	for (int v = 0; v < n; v++)
		least = fmin(least, D[v]);
	return least;
}

/* The DP terms of layout L (its layer split solved) at d replicas in all:
 * a + b m is at most the exposed data-parallel synchronisation (perf.c's
 * dp_comm: the worst stage's gradient reduce and parameter gather after
 * overlap, and the tied-embedding sum) of one replica group of L with m
 * micro-batches per replica, for every m the setting allows (q, 2q, ...)
 * and every gradient/parameter overlap the framework allows (the least
 * over them). Under ZeRO-1/2 the sync does not depend on m (b = 0; but
 * DeepSpeed's ZeRO-2 reduces every micro-batch: its sync only grows with
 * m, so D(q) still bounds it from below at every m >= q); under
 * ZeRO-3 every micro-batch gathers again: dp_comm is the largest of the
 * stages' affine functions of m, so convex, and the chord through m = q
 * and 2q stays under it at q and at every m >= 2q. Adds the estimates to
 * the search's count; a and b stay 0 when one fails. */
static void layout_dp_terms(struct ctx *x, const struct gset *g, const struct layout *L, int d,
			    double *a, double *b)
{
	int q = layout_min_mb(g, L), nm = g->zero == 3 ? 2 : 1, n = 0;
	double D[2][PERF_DP_PAIRS];
	*a = *b = 0;
	for (int j = 0; j < nm; j++) {
		int m = q * (j + 1);
		struct plan p;
		plan_globals(&p, x, g);
		p.gbs = g->mbs * d * m;
		add_replica(&p, L, d, m, g->mbs, p.gbs);
		int rc = plan_dp_pairs(x, &p, D[j], &n);
		plan_free(&p);
		if (rc < 0)
			return;
	}
	double ca = HUGE_VAL, cb = HUGE_VAL;
	for (int v = 0; v < n; v++) {
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
	return sr_fill(f, L->pp, x->m->layers, layout_dense_layers(x->m), v, HUGE_VAL, k) == 0;
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
double dp_bound(struct ctx *x, const struct gset *g, struct layouts *ls, double cut,
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
double search_cut(const struct ctx *x)
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
double lp_rate_bound(struct ctx *x, const struct gset *g, struct layouts *ls, int *sup,
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
double cost_bound(const struct ctx *x, const struct gset *g, const struct layouts *ls)
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
