/* search_int.h — the planner's private types and the functions its
 * files share (search.c, search_combo.c, search_counts.c,
 * search_bound.c). */
#ifndef SEARCH_INT_H
#define SEARCH_INT_H

#include "search.h"

#include "capmilp.h"

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
	int flash;      /* fused attention (plan key flash): enum_gsets sets it
			 * from the framework row, and under framework "any" on
			 * a cluster with a Volta or Turing pool tries both
			 * (search.c gset_flash_values) */
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
	/* pool_price_known of each pool, once a search (try_combo's price
	 * asked it about 3M times a Mixtral 8x22B deadline search) */
	unsigned char priced[HP_MAX_POOLS];
	int exhaustive;
	double mem_miss;          /* nearest memory miss: need / capacity */
	char mem_desc[320];
	double mem_frac;          /* share of each GPU's capacity a layer split may fill:
				   * 1 - the headroom, or 1 when no plan keeps it */
	double keep_h;            /* headroom every kept plan must leave free in
				   * this pass (0: its total within the GPU), or
				   * -1 when a plan need only fit (search_run) */
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
	/* single-pool layout probes shared by a search and its per-pool
	 * searches (search.c, struct probe_share; NULL: none), and the
	 * shared search's index of this search's pool 0 (-1: the same) */
	struct probe_share *share;
	int share_pool0;
};

/* Per stage: time and memory as alpha + dense*bd + moe*bm; c: time
 * without PP/CP/EP communication. */
struct fit {
	double ta, tbd, tbm;
	double ca, cbd, cbm;
	double ma, mbd, mbm;
	double cap;
};

struct group_in {
	const struct layout *L;
	int count;
	int q;              /* micro-batch granularity (pp when interleaved) */
	/* out */
	int m, n_lo;        /* count - n_lo replicas run m, n_lo run m - q */
};

struct layouts {
	struct layout *v;
	int n, cap;
	struct pipe_memo *memo;   /* the bound LPs' answers (search_bound.c) */
};

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

/* search.c: shared with the combinations, the counts and the bounds. */
void sp_free(struct search_plan *s);
int estimate(struct ctx *x, const struct plan *p, struct estimate *e, struct hp_err *err);
int stock_best(const struct ctx *x, double *w);
int front_dominates(const struct ctx *x, double t, double usd);
void layout_stage(const struct layout *L, int s, int *pool, int *tp);
int over_headroom(const struct ctx *x, const struct estimate *e);
void mem_miss_offer(struct ctx *x, struct search_plan *sp);
int mem_first(struct ctx *x, const struct plan *p, struct hp_err *err);
void finish_plan_on(const struct ctx *x, struct search_plan *sp, unsigned runs_on);
void keep_plan(struct ctx *x, struct search_plan *sp);
int top_worst(const struct ctx *x, double *w);
int layout_dense_layers(const struct model_spec *m);
void plan_globals(struct plan *p, const struct ctx *x, const struct gset *g);
int estimate_dp_each(struct ctx *x, const struct plan *p, const int *grad, const int *param,
		     int n, double *dp_s, struct hp_err *err);
int sr_fill(const struct fit *f, int S, int layers, int dense, int v, double C, int *k);
int probe_fits(struct ctx *x, const struct gset *g, const struct layout *L, struct fit *f,
	       int at);
int search_cancelled(const struct ctx *x);
int overlap_values(const struct plan *p, int k, int *v);

/* search_combo.c: batch split, screening and scoring of a combination. */
void add_replica(struct plan *p, const struct layout *L, int count, int m, int mbs, int gbs);
int set_screened(struct ctx *x, const struct gset *g, const struct layout **Ls, int n);
int set_curve_screened(struct ctx *x, const struct gset *g, const struct layout **Ls, int n);
/* set_curve_screened over the plans of the set whose pipeline term (the
 * step's lower bound, combo_split) is at least s_min and at most s_cap
 * and whose counts run at least rate_min micro-batches per second at the
 * layouts' B (sum n_i / B_i): 1 when none of them can change what the
 * search reports. */
int set_curve_screened_below(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
			     double s_min, double s_cap, double rate_min);
int try_combo(struct ctx *x, const struct gset *g, const struct layout **Ls, const int *counts,
	      int n, int screen, double *time_s, double *cost_usd);
/* try_combo's first screen, before the batch split, for every count
 * vector of a layout set whose GPUs per pool are at least used[] (every
 * pool the set's layouts use non-zero) and whose pipeline bound is at
 * least pipe: 1 when it screens them all, now and whenever it is asked
 * later in the search (search_combo.c). */
int combo_screens_all(struct ctx *x, const int *used, double pipe);
/* The batch split (split_batch) of M micro-batches over n groups of
 * count[i] replicas with pipeline time A[i] + B[i] m, m a multiple of
 * q[i]: count[i] - n_lo[i] replicas run m[i], n_lo[i] run m[i] - q[i];
 * -1 when the replicas need more than M. For the tests. */
int search_split(int n, const double *A, const double *B, const int *q, const int *count, long M,
		 int *m, int *n_lo);

/* The set's pipeline keeper (search_combo.c): whether the stage times of
 * plan p's groups of pp stages read their micro-batches (the EP overlap
 * or ZeRO 3: perf.c key0.mb), and a group's pipeline terms from its pp
 * stage records st (v chunks a stage): its pipeline at m micro-batches is
 * m B + A (perf.c replica_eval), and m B_free + A_free, the same without
 * the PP hand-offs (t_pp), is at most that of a group of the same stages
 * at any DP degree, in a plan of the same pools, settings and framework
 * (and micro-batches, where they are read). */
int search_pipe_mb_read(const struct plan *p, int pp);
void search_group_terms(const struct perf_stage *st, int pp, int v, double *A, double *B,
			double *A_free, double *B_free);

/* search_counts.c: the replica counts of a layout set. */
int cmp_rate(const void *a, const void *b);
int fit_count(const struct ctx *x, const struct layout *L, const int *left);
void counts_for_set(struct ctx *x, const struct gset *g, const struct layout **Ls, int n);
/* The most sum n_i / B_lo[i] over real 1 <= n_i <= ub[i] with
 * sum n_i (usd_h[i] / 3600 - lambda / B[i]) <= 0 (the budget ladder's
 * cost row at GPU shares, relaxed); -1 when no counts meet the row. */
double search_budget_rate_bound(int n, const double *usd_h, const double *B,
				const double *B_lo, const double *ub, double lambda);

/* The set screen's verdict (set_curve_screened_below's curve_min) for
 * tests: 1 when its bound on s times USD per hour over [s_lo, s_hi]
 * (as search_curve_bound) reaches want; plain 1 without the early "no"
 * (the reference it must agree with). *evals: the knapsacks it took. */
int search_curve_reaches(int n, const double *a, const double *b, const double *usd_h,
			 const int *ub, double M, int min_total, double s_lo, double s_hi,
			 double want, int plain, long *evals);

/* The least of try_combo's pipeline bound (M + sum_j n_j A[j] / B[j]) /
 * (sum_j n_j / B[j]) over the count vectors with n_j = counts[j] for
 * j < i and 1 <= n_j <= ub[j] for j >= i, less a relative 1e-9 (the
 * order of the sums); -HUGE_VAL when no B term is left. Exact: a
 * layout at its most replicas lowers the ratio while its A is under
 * the ratio, so the free layouts go to ub in order of A while that
 * holds (the node mixes' block screen, search_counts.c). */
double search_block_pipe_bound(int n, int i, const double *A, const double *B, const int *counts,
			       const int *ub, double M);

/* search_bound.c: the bounds of a global setting. */
double step_score(const struct ctx *x, const struct gset *g, double step);
double search_cut(const struct ctx *x);
double lp_rate_bound(struct ctx *x, const struct gset *g, struct layouts *ls, int *sup,
		     int *n_sup);
double dp_bound(struct ctx *x, const struct gset *g, struct layouts *ls, double cut, int *cut_hit,
		int *fsup, int *n_fsup);
double cost_bound(const struct ctx *x, const struct gset *g, const struct layouts *ls);
/* The least exposed DP synchronisation of plan p over the gradient and
 * parameter overlaps the framework allows (perf.c's dp_comm: the worst
 * stage's); -1 when the estimate fails. Counts its estimates into x's
 * stats (evaluated, dp_terms). */
double search_plan_dp_least(struct ctx *x, const struct plan *p);
/* Free the bound LPs' answers kept for ls (before its layouts go). */
void bound_memo_free(struct layouts *ls);

#endif
