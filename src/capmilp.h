/* capmilp.h — the planner's capacity MILP over replica counts, solved
 * exactly by branch and bound on the counts (no LP library).
 *
 * For one layout set (a few layouts, each with a replica rate and the
 * GPUs it takes per pool) the planner asks, on the deadline and budget
 * objectives, for integer replica counts n_i with nodes billed whole:
 *
 *   deadline: min  sum_q P_q ceil(G_q / gpn_q) - lambda sum_i r_i n_i
 *             s.t. sum_i r_i n_i >= R
 *   budget:   max  sum_i r_i n_i
 *             s.t. sum_q P_q ceil(G_q / gpn_q) / 3600 <= lambda sum_i r_i n_i
 *
 * with G_q = sum_i g_iq n_i <= gpn_q nodes_q, 1 <= n_i <= ub_i and
 * sum_i n_i <= max_total, sum_i n_i a multiple of total_step. These
 * are the models that search.c used to hand to GLPK (lp.c) with an
 * integer node-count column per pool; the node
 * count of a pool is at its least, ceil(G_q / gpn_q), at every optimum
 * (its price is >= 0 and nothing else depends on it), so it is computed,
 * not branched on. The dimension is small (at most one single-pool layout
 * per pool plus one two-pool layout), the search space is not: 4 layouts
 * of up to 512 replicas each. */
#ifndef HP_CAPMILP_H
#define HP_CAPMILP_H

#include "cluster.h"

#define CAPMILP_MAX_VARS (HP_MAX_POOLS + 1)

enum capmilp_kind { CAPMILP_DEADLINE, CAPMILP_BUDGET };

struct capmilp {
	enum capmilp_kind kind;
	int n;                                  /* layouts, 1..CAPMILP_MAX_VARS */
	int np;                                 /* pools, 1..HP_MAX_POOLS */
	double r[CAPMILP_MAX_VARS];             /* micro-batches/s of one replica, > 0 */
	int ub[CAPMILP_MAX_VARS];               /* most replicas of layout i */
	int g[CAPMILP_MAX_VARS][HP_MAX_POOLS];  /* GPUs per replica on pool q, >= 0 */
	int gpn[HP_MAX_POOLS];                  /* GPUs per node, >= 1 */
	int nodes[HP_MAX_POOLS];                /* nodes of the pool, >= 0 */
	double usd_node_h[HP_MAX_POOLS];        /* node price, >= 0 */
	long max_total;                         /* sum_i n_i at most */
	long total_step;                        /* sum_i n_i a multiple of this
						 * (0 or 1: any sum); the planner's
						 * EP rule, see capmilp_ep_step */
	double R;                               /* deadline: micro-batches/s asked */
	double lambda;                          /* deadline: USD/h per micro-batch/s;
						 * budget: USD per micro-batch */
	long node_limit;                        /* steps (nodes, bound evaluations and
						 * values of the last count), then give up */
	/* A bound on the optimum the caller knows (0: none): the search
	 * stops once its incumbent reaches stop (deadline: is at most it;
	 * budget: at least it). stop must be the value (capmilp_solve_value)
	 * of the answer to a programme that differs from this one only in a
	 * looser row: deadline, R at most this R with the same lambda;
	 * budget, lambda at least this lambda. Its feasible points are a
	 * superset of these, so this optimum is no better than that answer
	 * (which is within the tolerance of its optimum); an incumbent that
	 * reaches it is never replaced later (a point must beat the
	 * incumbent by more than the tolerance), so the answer is the one
	 * the whole search would end on, in fewer steps, whenever the whole
	 * search would not give up at node_limit. Part of the memo's key. */
	int have_stop;
	double stop;
	/* A count vector the caller knows (have_hint 0: none), such as the
	 * last rung's answer. When it is feasible here (the boxes, the GPUs,
	 * the replicas row, the EP step and the rate or budget row within
	 * the tolerance below), its value seeds the search: subtrees that
	 * cannot come within twice the tolerance of it are cut, which never
	 * changes the answer (capmilp.c, cut_at), only the steps. So the
	 * answer is the same with or without it; whether the search gives
	 * up at node_limit is not, so the hint is part of the memo's key. */
	int have_hint;
	int hint[CAPMILP_MAX_VARS];
};

/* The steps (node_limit) after which the planner hands a programme to
 * GLPK, per kind: search settings, chosen where the CPU time of capmilp
 * and GLPK together was least. Replayed (2026-12) on every programme of
 * one make bench run of DeepSeek-V3 on 16,384 GPUs (the memo on, user
 * seconds of two runs each on the shared machine): deadline, limits
 * 4,096 / 16,384 / 32,768 / 65,536 steps: 38.8M / 51.0M / 54.8M / 56.8M
 * steps, 2,593 / 395 / 138 / 20 programmes to GLPK, 5.6-5.7 / 3.8-4.2 /
 * 4.4-4.5 / 3.4-3.6 s (GLPK takes about 1.2 ms on the programmes capmilp
 * gives up on, about 20,000 steps); budget, 4,096 / 16,384: 3,053 / 1,822
 * to GLPK, 5.3-6.3 / 5.9-6.2 s (its GLPK solves are cheaper, 0.4 ms).
 * After the MoE round changed DeepSeek-V3's step times (EP overlap), the
 * same bench's deadline search (idle, whole search, wall) took 21.8 s at
 * 65,536 steps (1,058 to GLPK), 17.2 s at 4,096 (8,259) and 16.0 s at
 * 16,384 (2,892), with byte-identical results; 405B 2.53 / 2.42 s. So
 * 16,384. */
#define CAPMILP_STEPS_DEADLINE 16384
#define CAPMILP_STEPS_BUDGET 4096

/* Solve m. Returns 0 with the optimum in counts[0..n-1] (among optima
 * within the tolerance below, the first found in a fixed order, so the
 * same input gives the same answer; GLPK's choice among them was as
 * arbitrary: budget, larger n_0 first, then larger n_1, ...; deadline,
 * the same over the layouts reordered, those on two pools first, then
 * by ub, fewest first);
 * -1 when no integer point is feasible; -2 when node_limit steps were
 * taken first (counts untouched: the caller falls back to a general
 * solver). *nodes (may be NULL) gets the steps taken. Feasibility
 * allows a relative 1e-9 on the rate and budget rows (GLPK's own
 * tolerance is 1e-7). */
int capmilp_solve(const struct capmilp *m, int *counts, long *nodes);

/* capmilp_solve, with the answer's objective (deadline: whole-node price
 * less lambda times the rate; budget: the rate, as the search sums them)
 * in *value when it returns 0 (value may be NULL): the stop of a tighter
 * programme (struct capmilp, have_stop). */
int capmilp_solve_value(const struct capmilp *m, int *counts, long *nodes, double *value);

/* For the tests: on = 0 turns off the memo of the search's LP points
 * within a solve (capmilp.c, relaxed_argmin_memo), for every thread, until
 * called again with 1 (the default). Answers, values and steps are the
 * same either way; only the work differs. Not for use while another
 * thread solves. */
void capmilp_argmin_memo_set(int on);

/* The total_step of a setting with expert parallelism ep and context
 * parallelism cp (both >= 1): ep / gcd(ep, cp). A plan's data-parallel
 * degree dp (the sum of the replica counts) must have dp * cp a multiple
 * of ep (search.c prunes every other count vector before estimating it);
 * with h = gcd(ep, cp), ep | dp * cp <=> (ep / h) | dp * (cp / h) <=>
 * (ep / h) | dp, as ep / h and cp / h are coprime. So the count vectors
 * this step removes from the programme are exactly those that are never
 * plans. Returns 1 for ep or cp < 1 (no constraint). */
long capmilp_ep_step(int ep, int cp);

/* A memo of answered programmes for one search, shared by its threads.
 * The planner poses the same programme again where two global settings
 * give a layout set the same rates and boxes (settings that differ only
 * in what the MILP does not read, such as ZeRO where the memory fit is
 * the same): 14% of DeepSeek-V3's deadline programmes on 16,384 GPUs,
 * 13% of its budget ones. The key is every field of struct capmilp the
 * answer depends on, compared byte for byte, so a hit returns exactly
 * what solving again would (capmilp_solve and the caller's fallback are
 * deterministic functions of the programme). Direct-mapped over
 * CAPMILP_MEMO_SLOTS slots: a newer programme replaces the one in its
 * slot, so what is remembered depends on the order the threads pose
 * programmes in, the answers never do. */
struct capmilp_memo;

/* A new, empty memo; free with capmilp_memo_free. Cannot fail (xmalloc). */
struct capmilp_memo *capmilp_memo_new(void);
/* Free mm and its keys; NULL is a no-op. No thread may be using it. */
void capmilp_memo_free(struct capmilp_memo *mm);
/* The answer stored for m: returns 1 with *rc and, when *rc is 0,
 * counts[0..m->n-1] and *value (value may be NULL) as they were put; 0
 * when m is not stored (counts, *rc and *value untouched) or mm is NULL.
 * Thread-safe. */
int capmilp_memo_get(struct capmilp_memo *mm, const struct capmilp *m, int *rc, int *counts,
		     double *value);
/* Store the answer to m (rc, and counts[0..m->n-1] when rc is 0, as the
 * caller's whole solve gave them, and the caller's value for it, any
 * double, NAN for none), replacing the programme in its slot. NULL mm is
 * a no-op. Thread-safe. */
void capmilp_memo_put(struct capmilp_memo *mm, const struct capmilp *m, int rc, const int *counts,
		      double value);

#endif
