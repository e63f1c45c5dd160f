/* serve_search.h — serving plans: which instances, how many, where.
 *
 * Three layers, each usable alone:
 *   1. serve_enumerate: per pool, every feasible instance configuration
 *      (TP inside a node, PP when the model needs it), each scored by
 *      serve_perf for every request bucket: the largest rate it sustains
 *      within the SLOs (bisection on the rate).
 *   2. serve_fleet_solve (Mélange-style, reference optimizers.md §5.2):
 *      integer instance counts y_k, continuous routing z_kr of bucket r to
 *      configuration k; min sum cost_k y_k (or max the served share alpha)
 *      s.t. sum_k z_kr = alpha lambda_r, sum_r z_kr / mu_kr <= y_k,
 *      per-pool GPU limits. GLPK MILP.
 *   3. serve_place_solve (Helix-style, optimizers.md §5.3, the class-
 *      aggregated boundary-flow MILP): owned machines of each class hold
 *      contiguous ranges of layer blocks; n_qs machines of class q hold
 *      segment s and carry flow f_qs <= theta_q(|s|) n_qs; flow is
 *      conserved at every block boundary; max the flow F from the first
 *      block to the last. GLPK MILP with its LP-relaxation bound.
 * serve_plan() runs them for the CLI and the TUI.
 * Nothing here prints. */
#ifndef HP_SERVE_SEARCH_H
#define HP_SERVE_SEARCH_H

#include "cluster.h"
#include "serve_perf.h"

/* --- request buckets ------------------------------------------------------ */

enum serve_dist_kind { DIST_FIXED, DIST_LOGNORMAL, DIST_UNIFORM, DIST_EXP };

/* A length distribution: "1500" (fixed), "lognormal:MEAN:CV",
 * "uniform:LO:HI", "exp:MEAN". */
struct serve_dist {
	enum serve_dist_kind kind;
	double a, b;          /* fixed: a; lognormal: mean, cv; uniform: lo, hi;
			       * exp: mean */
};
int serve_dist_parse(const char *s, struct serve_dist *d, struct hp_err *err);
double serve_dist_mean(const struct serve_dist *d);
/* Quantile p (0 < p < 1). */
double serve_dist_quantile(const struct serve_dist *d, double p);

#define SERVE_MAX_BUCKETS 64

struct serve_bucket {
	double isl, osl;      /* representative lengths (bin medians) */
	double share;         /* of the requests */
};

/* Split independent ISL and OSL distributions into n_isl x n_osl
 * equal-probability bins (a fixed length gives one bin). Returns the
 * number of buckets (at most SERVE_MAX_BUCKETS). */
int serve_buckets(const struct serve_dist *isl, const struct serve_dist *osl, int n_isl,
		  int n_osl, struct serve_bucket *out);

/* --- instance candidates -------------------------------------------------- */

/* Highest utilisation of an instance when no SLO bounds it (neither p99
 * target given): an M/D/c queue at 0.9 of its slots waits a fraction of a
 * service time (Erlang C for c >= 8 slots); a choice, stated in the man
 * page and, under the latencies it gives, in serve's output. */
#define SERVE_MAX_UTIL 0.9

struct serve_slo {
	double ttft_p99_s;    /* 0: none */
	double tpot_p99_s;    /* 0: none */
};

#define SERVE_MAX_CANDS 256

/* Roles of an instance: both phases, or one side of a disaggregated
 * prefill/decode pair (DistServe / Splitwise; the KV cache of each prompt
 * moves from the prefill instance to a decode instance over the network). */
enum serve_role { ROLE_BOTH, ROLE_PREFILL, ROLE_DECODE };

/* 1 when the search loads an instance of `role` to SERVE_MAX_UTIL of its
 * saturation rate because no target bounds it: a unified (both-phase)
 * instance without either p99 target, a prefill instance without a TTFT
 * target, a decode instance always (its batch is set by the TPOT target,
 * its rate then capped). The rule serve_search.c applies and serve's
 * output states (serve_report.c). */
int serve_role_capped(int role, const struct serve_slo *slo);

struct serve_cand {
	int pool;
	int role;                     /* enum serve_role */
	struct serve_config cfg;
	int gpus;
	double usd_per_hour;          /* the instance's GPUs at the pool's price */
	struct serve_result res;      /* at the mean lengths, offline */
	double mu[SERVE_MAX_BUCKETS]; /* max req/s of each bucket within the SLOs */
};

/* Every feasible configuration of m on c: per pool, TP in 1, 2, 4, 8 (up to
 * the node), PP from 1 up to what the model needs to fit (at most 8), or
 * only fix_tp/fix_pp when > 0. Scored for each bucket. Returns the number
 * of candidates (0: nothing fits anywhere; *nearest gets the configuration
 * that came closest, with its why). */
int serve_enumerate(const struct cluster *c, const struct model_spec *m,
		    const struct serve_config *base, int fix_tp, int fix_pp,
		    const struct serve_bucket *b, int nb, const struct serve_slo *slo,
		    const struct serve_calib *k, struct serve_cand *out, int max_out,
		    struct serve_result *nearest, struct serve_cand *nearest_cand);

/* Largest rate of one bucket that configuration cfg sustains on pool p
 * within the SLOs (0 if none; bisection to 0.5%). */
double serve_max_rate(const struct pool *p, const struct model_spec *m,
		      const struct serve_config *cfg, double isl, double osl,
		      const struct serve_slo *slo, const struct serve_calib *k);

/* --- fleet ILP ------------------------------------------------------------ */

enum serve_objective { SERVE_OBJ_COST, SERVE_OBJ_THROUGHPUT };

/* The abstract problem, so tests can pose it by hand. */
struct fleet_problem {
	int n_cands, n_buckets, n_pools;
	const double *cost;          /* [k] USD/h per instance */
	const int *gpus;             /* [k] GPUs per instance */
	const int *pool;             /* [k] pool index */
	const double *mu;            /* [k * n_buckets + r] req/s, 0 = cannot */
	const double *rate;          /* [r] req/s demanded */
	const int *pool_gpus;        /* [p] GPUs available; < 0: unlimited */
	enum serve_objective objective;
	const int *role;             /* [k] enum serve_role; NULL: all ROLE_BOTH.
				      * Demand is met by BOTH + PREFILL instances,
				      * and what PREFILL takes DECODE takes too */
	const double *node_cost;     /* [p] USD/h per node, > 0: pool p is rented
				      * in whole nodes (an integer node count
				      * n_p >= its instances' GPUs / node_gpus[p]
				      * carries the cost; cost[k] only breaks
				      * ties); NULL or <= 0: cost[k] per instance */
	const int *node_gpus;        /* [p] GPUs per node, with node_cost */
};

struct fleet_solution {
	int status;                  /* enum lp_status */
	double obj, bound, gap;
	double alpha;                /* served share of the demand */
	int count[SERVE_MAX_CANDS];  /* y_k */
	double route[SERVE_MAX_CANDS][SERVE_MAX_BUCKETS]; /* z_kr, req/s */
	double seconds;
};

/* Solve; returns 0 (sol->status says optimal/feasible/infeasible) or -1
 * with err on a malformed problem. */
int serve_fleet_solve(const struct fleet_problem *fp, struct fleet_solution *sol,
		      struct hp_err *err);

/* --- placement MILP ------------------------------------------------------- */

#define PLACE_MAX_CLASSES 16
/* Layer blocks of a placement: min(layers, PLACE_DEFAULT_BLOCKS) by
 * default (2-layer blocks for an 80-layer model keep the MILP small); one
 * layer per block, up to PLACE_MAX_BLOCKS, when the coarser blocks leave
 * the cluster unable to hold the model (a 60-layer model cut into 40
 * blocks charges a machine 5 layers for 3 blocks and 6 for 4). */
#define PLACE_DEFAULT_BLOCKS 40
#define PLACE_MAX_BLOCKS 128

struct place_class {
	int count;                   /* machines */
	int max_blocks;              /* most blocks one machine holds (memory) */
	double theta[PLACE_MAX_BLOCKS + 1]; /* tokens/s of one machine holding
					     * k blocks, k = 1..max_blocks */
	int group;                   /* machines of classes with the same group
				      * share an inventory of group_cap units */
	int units;                   /* units of the group one machine uses */
	double usd_per_h;            /* one machine's price per hour: with a
				      * rate, the dearest are left out first */
};

struct place_problem {
	int n_classes, n_blocks;
	struct place_class cls[PLACE_MAX_CLASSES];
	int group_cap[PLACE_MAX_CLASSES];   /* < 0 or 0 unused: no group limit */
	int node_budget;
	int prune;                   /* 1: leave out the columns of a TP degree
				      * that machines of a smaller one of the
				      * same pool match (the same optimum) */
};

#define PLACE_MAX_SEGS 512

struct place_seg {
	int cls, first, last;        /* blocks [first, last] */
	int count;
	double flow;                 /* tokens/s */
};

struct place_solution {
	int status;                  /* enum lp_status */
	double flow, bound, gap;     /* F, LP-relaxation bound, relative gap */
	int n_segs;
	struct place_seg seg[PLACE_MAX_SEGS];
	int nodes;
	double seconds;
};

int serve_place_solve(const struct place_problem *pp, struct place_solution *sol,
		      struct hp_err *err);
/* 1 when pp->prune leaves out the columns of class q holding len blocks:
 * a class of the same group with a whole fraction of q's units holds
 * len blocks, and units(q) / units(r) of its machines carry at least
 * q's tokens/s (the same optimum without them). */
int place_column_pruned(const struct place_problem *pp, int q, int len);
/* An upper bound of the placement's flow (serve_search.c explains it):
 * the largest F with F x blocks <= the most that sum of min(theta, F) x
 * blocks held reaches over the machines the inventory allows. */
double place_upper_bound(const struct place_problem *pp);

/* --- plans for the front ends ---------------------------------------------- */

struct serve_opts {
	struct serve_dist isl, osl;
	double rate;                 /* req/s; 0 with offline */
	int offline;                 /* max throughput of what the cluster has */
	struct serve_slo slo;
	enum serve_objective objective;
	struct serve_config base;    /* precisions, engine, limits */
	int fix_tp, fix_pp;
	int n_isl_buckets, n_osl_buckets;   /* default 4 x 5 for distributions */
	int top_k;
	int place;                   /* Helix-style placement across pools */
	int disagg;                  /* also prefill-only and decode-only instances */
	int place_blocks;            /* layer blocks (default: min(layers, 40), or one
				      * per layer when those do not fit) */
	double place_kv_fill;        /* placement: share (0, 1] of a machine's KV cache
				      * that the request router fills, reserving ISL +
				      * OSL tokens per request in flight; 0: all of it */
	double place_router_util;    /* placement: the memory share (0, 1] at which the
				      * router's view of each machine's KV cache was
				      * computed (Helix: its offline profiles of vLLM
				      * at vLLM's default); 0: the engine's own */
	double place_layer_step_s;   /* placement: host time of each engine step after
				      * a machine's first when its engine steps once per
				      * layer (Helix's prototype); 0: one step per
				      * iteration */
};

/* One machine of a given placement: tp GPUs of pool `pool` holding
 * layers [first, end). */
struct serve_place_machine {
	int pool, tp, first, end;
};

/* Decode tokens/s of a given placement (not searched): each machine
 * carries at most the placement model's throughput for its layer count
 * (as `--place` scores a machine, without its memory rule for the
 * weights), and the flow from layer 0 to the last through the machines'
 * layer ranges is maximised. Returns 0 and sets *tok_s, or fails with
 * err (an index or range out of bounds, or a machine whose KV cache
 * holds no request). */
int serve_place_eval(const struct cluster *c, const struct model_spec *m, const struct serve_opts *o,
		     const struct serve_calib *k, int n, const struct serve_place_machine *mach,
		     double *tok_s, struct hp_err *err);

void serve_opts_init(struct serve_opts *o);

#define SERVE_MAX_INST 32

struct serve_plan_inst {
	int pool;
	int role;                    /* enum serve_role */
	int tp, pp;
	int count;
	int max_batch;
	double kv_capacity_tokens;
	int first_layer, last_layer; /* layers held (placement), else all */
	double rate;                 /* req/s routed here (all copies) */
	double tokens_per_s;         /* placement: flow through these machines */
	double load;                 /* the share of its saturation rate each
				      * copy serves (serve_result.utilisation at
				      * rate / count; a prefill copy's prompts/s
				      * over the most it prefills, a decode
				      * copy's requests/s over the rate at its
				      * batch limit, a placement machine's flow
				      * over its tokens/s): 1 - load is its
				      * headroom; 0 where unknown */
};

struct serve_plan {
	char label[192];
	int n_inst;
	struct serve_plan_inst inst[SERVE_MAX_INST];
	double out_tps, req_s, usd_per_hour, usd_per_mtok;
	int price_known;
	struct serve_quantiles ttft, tpot;
	int fits;                    /* meets the rate and the SLOs */
	int gpus;
	int nodes[HP_MAX_POOLS];     /* whole nodes rented per pool: the GPUs
				      * of its instances, rounded up to nodes;
				      * usd_per_hour prices these */
	const char *how;             /* "fleet ILP", "single pool", "placement" */
	int lp_status;
	double gap;
	/* placement: flow paths (per-request routing weights) */
	int n_paths;
	struct { int seg[64]; int n; double weight; } path[8];
};

struct serve_plan_result {
	int n_plans;
	struct serve_plan plans[16];
	int has_nearest;
	struct serve_plan nearest;
	char why[320];
	int n_cands, n_buckets;
	double seconds;               /* in all */
	double ilp_seconds;           /* of which in the fleet ILPs / placement MILP */
};

/* Plan serving of m on c. Returns 0 with at least one plan, or -1: err set
 * (usage/input problem) or res->why set (nothing fits or meets the SLOs:
 * HP_EXIT_NOFIT, res->nearest the closest miss when there is one). */
int serve_plan(const struct cluster *c, const struct model_spec *m, const struct serve_opts *o,
	       const struct serve_calib *k, struct serve_plan_result *res, struct hp_err *err);

/* Evaluate one configuration on the first pool as a plan (--estimate). */
int serve_estimate_plan(const struct cluster *c, const struct model_spec *m,
			const struct serve_opts *o, const struct serve_calib *k,
			struct serve_plan *plan, struct serve_result *r, struct hp_err *err);

#endif
