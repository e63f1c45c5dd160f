/* search.h — the planner: the best ways to train a model on a cluster.
 *
 * enumerate -> score -> prune -> solve -> map -> verify:
 *   enumerate  global settings (micro-batch, recompute, ZeRO, schedule, CP,
 *              EP) and replica layouts: a pipeline on one pool (TP x PP) or
 *              a pipeline whose stages sit on two or more pools;
 *   score      every layout's stage times and memory with the performance
 *              model (perf.c), probing it so the layer split is exact;
 *   prune      layouts that do not fit in memory, and dominated ones;
 *   solve      layer partition across unequal stages (exact dynamic
 *              programme: minimise the slowest stage under each stage's
 *              memory limit), the batch split across unequal replicas
 *              (exact: integer micro-batches so all finish together), and
 *              for capacity questions how many replicas of each layout to
 *              rent (MILP through lp.c, GLPK);
 *   map        dispatch.c places the plan on nodes;
 *   verify     every reported plan is re-scored with perf_estimate(), so
 *              any printed plan fed to `hetplan estimate --plan` gives the
 *              same numbers.
 * Deterministic: the same input gives the same output, byte for byte. */
#ifndef HP_SEARCH_H
#define HP_SEARCH_H

#include <stdatomic.h>
#include "perf.h"

enum search_objective {
	OBJ_THROUGHPUT,   /* tokens per second */
	OBJ_COST,         /* USD per token */
	OBJ_DEADLINE,     /* cheapest plan that trains `tokens` by `deadline_s` */
	OBJ_BUDGET,       /* fastest plan that trains `tokens` within `budget_usd` */
};

enum search_optimality {
	OPTIMAL_PROVEN,   /* optimal within the searched plan space */
	OPTIMAL_GAP,      /* within `gap` of the best bound */
	OPTIMAL_HEURISTIC,/* no bound: a good plan, not proven */
};

struct search_opts {
	int gbs;                  /* global batch, sequences (required) */
	int seq_len;              /* 0: the model's */
	double tokens;            /* tokens to train (0: model_train_tokens, 20 per parameter) */
	enum search_objective objective;
	double deadline_s;        /* OBJ_DEADLINE */
	double budget_usd;        /* OBJ_BUDGET */
	enum hp_dtype precision;  /* default HP_BF16 */
	int top_k;                /* plans to return (default 10) */
	/* Restrictions (0 / -1: free). */
	int fix_tp, fix_pp, fix_mbs, fix_zero;   /* fix_zero: -1 free */
	int fix_recompute;                        /* -1 free, else enum hp_recompute */
	int fix_sched;                            /* -1 free, 0 1F1B, V>=2 interleaved:V */
	int opt_impl, compile;    /* the plan keys optimizer_impl and compile of
				   * every plan (plan.h; -1: the framework's);
				   * the planner searches neither */
	int ga_fusion;            /* the plan key grad_accum_fusion of every plan
				   * (-1: the framework's); not searched */
	unsigned rc_modules;      /* the plan key recompute_modules of every
				   * plan with selective recompute (0: unset);
				   * not searched */
	int no_hetero;            /* only single-pool plans */
	int unfused_attention;    /* plans without flash attention (older stacks) */
	enum hp_framework framework;  /* FW_ANY: any; else only plans it runs as one job
				       * (runs_on.h), estimated with its defaults */
	int threads;              /* worker threads (0: the online cores); the
				   * answer does not depend on it */
	char precision_from[160]; /* where precision was set, for its messages: a
				   * file's key as "FILE: workload" (workspace.c),
				   * "" for the --precision flag */
	double mem_headroom;      /* fraction of each GPU's usable memory kept free;
				   * plans above 1 - headroom are "risky" (default 0.05) */
	/* Interactive use: set *cancel non-zero to stop early (the result then
	 * holds the best found so far, marked heuristic); progress in [0,1]. */
	atomic_int *cancel;
	void (*progress)(void *arg, double done);
	void *progress_arg;
};

/* Defaults: bf16, top 10, every choice free, any framework, 5% headroom,
 * threads 0 (the online cores). Cannot fail; o is owned by the caller. */
void search_opts_init(struct search_opts *o);

struct search_plan {
	struct plan plan;
	struct estimate est;          /* perf_estimate() of plan */
	int gpus_used[HP_MAX_POOLS];
	int nodes_used[HP_MAX_POOLS];
	double time_to_train_s;       /* tokens / tokens_per_s */
	double cost_to_train_usd;     /* 0 when a price is unknown */
	double score;                 /* the objective's value (lower is better) */
	enum search_optimality optimality;
	double gap;                   /* relative, for OPTIMAL_GAP */
	int pareto;                   /* on the (time, cost) Pareto front */
	int single_pool;              /* -1: uses several pools */
	char label[256];              /* "h100 tp4 pp2", "h100>l40s pp4 + a100 tp8 pp1";
				       * plan_label_result writes the lists' layout
				       * here: at most PLAN_LAYOUT_MAX bytes
				       * (plan_label.h asserts it), longer ones end
				       * in "..." */
	unsigned runs_on;             /* frameworks that run it as one job (runs_on.h) */
	char runs_on_why[320];        /* why the others cannot; "" when all can */
	int risky;                    /* 0: every stage within 1 - headroom of its GPU;
				       * 1: a stage above that (fits-with-risk);
				       * 2: a stage's total above its whole GPU (its
				       * live tensors fit: it runs only if the caching
				       * allocator frees cached blocks) */
	double mem_need_bytes;        /* the fullest stage (by share of its GPU): need */
	double mem_capacity_bytes;    /* and that GPU's capacity */
};

struct search_stats {
	long candidates;      /* plans considered */
	long evaluated;       /* perf_estimate() calls */
	long pruned;          /* dropped by memory or dominance */
	int lp_solves;        /* LPs and capacity MILPs solved (either solver) */
	double seconds;
	int cancelled;
	int settings;         /* global settings searched (micro-batch, recompute,
			       * ZeRO, schedule, CP, EP): all of them, no cap */
	long screened;        /* candidates skipped on their affine-fit bounds,
			       * without a perf_estimate() call (search.c) */
	int milp_glpk;        /* capacity MILPs that capmilp.c gave up on and
			       * GLPK solved (counted in lp_solves too) */
	/* Of evaluated: layout probes (perf_stage_times: the stage records
	 * alone) and the bound's DP terms (perf_dp_exposed: the exposed DP
	 * time alone); the rest are whole estimates of plans. A layout
	 * probe shared between the whole cluster's search and a per-pool one
	 * (search.c solve_shared) counts once, in the search that ran it. */
	long probes, dp_terms;
	long fw_denied;       /* of candidates: plans --framework NAME cannot
			       * run (runs_on.c), dropped before any estimate */
	long any_denied;      /* of candidates: plans under framework "any"
			       * that no stock framework runs for reasons of
			       * its own (runs_on_runnable), dropped before
			       * any estimate */
	long fw_checked;      /* of candidates: plans that reached that test
			       * (past the pool sizes and plan_validate) */
	char fw_first_why[160];  /* the first refused plan's reason
				  * (runs_on_why_row; setting order, the
				  * same for any thread count), "" when none */
	/* Candidates of the per-pool searches (the best plan on each pool
	 * alone), which candidates leaves out; their screened candidates,
	 * estimates, probes and DP terms are in the fields above. */
	long sub_candidates;
	/* Where the time went, seconds summed over the search's threads (for
	 * `make bench`; the monotonic clock, so a loaded machine inflates
	 * them; estimate_s from a sample of the calls, search.c):
	 * perf_estimate() calls of every kind; the capacity
	 * MILPs (capmilp.c and GLPK); the bound's LPs (GLPK); and handling
	 * candidates outside those (building the count vectors, the batch
	 * split, screening, building the plans). */
	double estimate_s, milp_s, lp_s, candidate_s;
	/* The partial-recomputation post-pass on the ranked plans
	 * (search.c, search_recompute_layers): its estimates (counted in
	 * evaluated too) and its seconds, the per-pool searches' included. */
	long recompute_evals;
	double recompute_s;
};

struct search_result {
	int n_plans;
	struct search_plan *plans;            /* ranked, best first */
	int n_pareto;
	struct search_plan *pareto;           /* by time to train, ascending */
	/* The best plan confined to each pool (for comparison); has_single[i]
	 * is 0 when nothing fits on pool i alone. */
	int has_single[HP_MAX_POOLS];
	struct search_plan single[HP_MAX_POOLS];
	struct search_stats stats;
	/* The objective's bound over the searched space (the same unit as a
	 * plan's score: for throughput, seconds per token); has_bound is 0
	 * when the search was cancelled or no setting gave one. */
	int has_bound;
	double bound;
	/* The best plan a stock framework runs as one job (runs_on != 0);
	 * has_stock is 0 when no kept plan qualifies. */
	int has_stock;
	struct search_plan stock;
	/* When nothing meets the constraints: why, and the nearest miss. A
	 * deadline/budget miss is a plan that fits (nearest); when nothing
	 * fits in memory, mem_miss is the plan whose fullest stage came
	 * closest to its GPU's capacity, estimated at its real DP degree. */
	char why[512];
	/* Throughput on a cluster the best plan leaves partly idle because the
	 * global batch runs out of micro-batches: how many GPUs it uses and
	 * about which --gbs would use them all; "" otherwise. */
	char idle_note[800];   /* explain_idle: up to 782 bytes */
	int has_nearest;
	struct search_plan nearest;
	int has_mem_miss;
	struct search_plan mem_miss;
};

/* Plan model m on cluster c. Returns 0 with at least one plan; or -1 with
 * err: HP_EXIT_USAGE/INPUT for bad options, HP_EXIT_NOFIT when nothing fits
 * or the deadline/budget cannot be met (res->why and res->nearest then say
 * how close the nearest miss came; call search_result_free anyway).
 * res is filled (every array in it allocated here) on every return and
 * the caller frees it with search_result_free(). Runs o->threads worker
 * threads (each releases its GLPK memory before it exits); reentrant:
 * several searches may run at once. The plans do not depend on the
 * thread count. o->cancel is polled between layouts and layout sets
 * inside each global setting (honoured within milliseconds); o->progress
 * is called from the calling thread after each batch of settings. c and m
 * must not change until it returns: its estimates skip comparing them
 * with the estimate memo's copies (perf_memo.h). */
int search_run(const struct cluster *c, const struct model_spec *m,
	       const struct search_opts *o, struct search_result *res,
	       struct hp_err *err);
/* Free everything search_run() allocated in res and zero it; res itself
 * belongs to the caller. Safe on a zeroed or already freed result. */
void search_result_free(struct search_result *res);

/* sp's memory fields from its estimate: risky (0, 1 or 2: struct
 * search_plan) under the headroom, and the fullest stage's need and
 * capacity (search_mem_state). */
void search_plan_memory(struct search_plan *sp, double headroom);

/* Optimizer steps that train `tokens` at `per_step` tokens a step (global
 * batch x sequence): ceil(tokens / per_step), at least 1, for a step
 * runs whole (a last partial batch still costs a full step, and a run
 * shorter than one batch is one step). per_step > 0. Every time and cost
 * to train is this times the step time (plan, report, the TUI). */
double search_train_steps(double tokens, double per_step);

/* Memory verdict of an estimate under a headroom (fraction of each GPU's
 * capacity kept free): MEM_NOFIT when a stage's live bytes (without the
 * caching allocator's reserve, perf_stage.slack) exceed its GPU, or when
 * an offload's host side exceeds its node (perf_offload.host_over),
 * MEM_RISKY when they fit but a stage, reserve included, uses more than
 * 1 - headroom of its GPU, else MEM_FITS. need/cap (may be NULL) get the
 * fullest stage's live bytes and its GPU's capacity, the stage with the
 * largest share of its GPU. */
enum search_mem { MEM_FITS, MEM_RISKY, MEM_NOFIT };
enum search_mem search_mem_state(const struct estimate *e, double headroom, double *need,
				 double *cap);
/* The GPUs' verdict alone: search_mem_state says MEM_NOFIT besides when
 * an offload's host side does not fit its node (perf_offload.host_over),
 * whatever the GPUs hold; this one reads the stages only (estimate's
 * activation-offload lever weighs the two apart). */
enum search_mem search_gpu_mem_state(const struct estimate *e, double headroom, double *need,
				     double *cap);
/* "fits", "fits-with-risk", "does-not-fit": a static string; s must be a
 * valid enum value. */
const char *search_mem_name(enum search_mem s);
/* The verdict a user reads (memory_verdict in JSON and CSV, the memory
 * lines of estimate, plan and the TUI): search_mem_name's, except that a
 * MEM_RISKY plan whose fullest stage's total, the allocator's reserve
 * included, is over its whole GPU (search_plan.risky 2) is "over-gpu":
 * it does not fit as the driver counts it, and runs only if PyTorch's
 * caching allocator frees cached blocks. A static string. */
const char *search_mem_verdict(const struct estimate *e, double headroom);
/* The same for a planned plan, from sp->est.fits and sp->risky. */
const char *search_plan_verdict(const struct search_plan *sp);

/* When res missed the deadline (o->deadline_s set): for each pool, the
 * fewest whole nodes to add to it alone so that the fastest plan trains
 * o->tokens within o->deadline_s; with no deadline and no plan (nothing
 * fits in memory), the fewest so that a plan fits. Found by growing a first guess (the
 * missing rate at the pool's best rate per GPU) by quarters and bisecting
 * back; every answer is a cluster the planner verified. add_nodes[i] = 0
 * where nothing up to 64 times the cluster's nodes does it (or nothing
 * fits on pool i). The planner is not monotone in nodes in every corner
 * (batch divisibility), so "fewest" is fewest along that bisection.
 * Returns how many pools have an answer; text (n bytes) gets
 * "needs 208 more H100-SXM (26 nodes) or 416 A100-SXM4-80GB (52 nodes)",
 * truncated to n; with no answer because every pool was tried up to that
 * limit, 0 and text says so ("no pool grown alone by up to 128 nodes
 * meets it ..."). Cannot fail (a search that fails counts as "not met");
 * allocates nothing the caller frees. add_nodes holds c->n_pools ints. */
int search_capacity_answer(const struct cluster *c, const struct model_spec *m,
			   const struct search_opts *o, const struct search_result *res,
			   int *add_nodes, char *text, size_t n);

/* One layout for search_whole_step: a replica of it with m micro-batches
 * steps in at least a + b m seconds, m a positive multiple of q (1, or
 * the pipeline depth under the interleaved schedule); it holds gpus[p]
 * GPUs of pool p, and at most max_count replicas fit. */
struct whole_layout {
	double a, b;
	int q;
	int gpus[HP_MAX_POOLS];
	int max_count;
};

/* A lower bound on the step (seconds) of every plan that runs M
 * micro-batches on whole replicas of the n layouts, with n_lo to n_hi
 * replicas in all and at most cap[p] GPUs of pool p: the larger of t_min
 * and the least T at which whole replicas taking whole micro-batches
 * (multiples of q) can hold M, with the replica counts relaxed to reals
 * under Chvatal-Gomory cuts on the pool rows (search.c proves it valid).
 * One LP when t_min is already feasible (the caller's bound stands);
 * t_max (HUGE_VAL: none) when it is still infeasible there (the caller
 * needs nothing above it).
 * HUGE_VAL when no count of replicas fits the rows at any step. *lps gets
 * the LPs solved added. Cannot fail: a solver failure counts as
 * feasible. */
double search_whole_step(const struct whole_layout *L, int n, const int *cap, int n_pools,
			 long M, long n_lo, long n_hi, double t_min, double t_max, int *lps);

/* The set screen of cost, deadline and budget (search.c,
 * set_curve_screened), for tests: a lower bound on s times the least USD
 * per hour of any plan whose pipeline term s lies in [s_lo, s_hi] and
 * that runs M micro-batches on n layouts, replicas of layout i costing
 * usd_h[i] per hour, 1 to ub[i] of them and min_total or more in all,
 * each taking m >= 1 micro-batches in a + b m <= s seconds (a[i] >= 0,
 * b[i] > 0). HUGE_VAL when no such plan exists. Cannot fail;
 * n <= HP_MAX_POOLS + 1. */
double search_curve_bound(int n, const double *a, const double *b, const double *usd_h,
			  const int *ub, double M, int min_total, double s_lo, double s_hi);

/* Names: static strings ("throughput", "within-gap", ...); the argument
 * must be a valid enum value. */
const char *search_objective_name(enum search_objective o);
/* "throughput", "cost", "deadline" or "budget" (any case) into *o.
 * Returns 0, or -1 (o untouched) for anything else. */
int search_objective_parse(const char *s, enum search_objective *o);
const char *search_optimality_name(enum search_optimality o);
/* What people read: "gap 1.0%" for a plan within the planner's gap (its
 * bound's distance), else the status name; into buf, returned. */
const char *search_optimality_text(const struct search_plan *sp, char *buf, size_t n);

#endif
