/* lp.h — a thin layer over GLPK for the planner's small LPs and MILPs.
 *
 * Models are built column by column in a fixed order (deterministic),
 * solved with terminal output off, an error hook installed (a GLPK fatal
 * error becomes a status, never an abort), a branch-and-bound node budget
 * instead of a wall-clock limit (same input, same answer), and the status
 * and gap recorded. Coefficients must be finite; callers scale units so
 * they stay within about [1e-3, 1e4]. */
#ifndef HP_LP_H
#define HP_LP_H

enum lp_status {
	LP_OPTIMAL,       /* proven optimal (MILP: gap closed) */
	LP_FEASIBLE,      /* MILP stopped by the node budget: incumbent + gap */
	LP_INFEASIBLE,
	LP_UNBOUNDED,
	LP_ERROR,         /* GLPK failed; msg says why */
};

struct lp;

/* An empty model; maximise != 0: maximise the objective. Returns a model
 * the caller frees with lp_free(); allocation failure aborts (xmalloc).
 * A model belongs to the thread that made it. */
struct lp *lp_new(int maximise);
/* Free a model; NULL is ignored. */
void lp_free(struct lp *lp);

/* Add a column with bounds [lo, hi] (hi < 0: no upper bound), objective
 * coefficient (a non-finite one counts as 0), integer or not. Returns its
 * 0-based index. Cannot fail. */
int lp_add_col(struct lp *lp, double lo, double hi, double obj, int integer);
/* Add a row sum_j coef[j] * x[idx[j]] in [lo, hi]; use -HUGE_VAL/HUGE_VAL
 * for a free side. Returns its index, or -1 (nothing added) on a
 * non-finite coefficient or a column index out of range. */
int lp_add_row(struct lp *lp, int n, const int *idx, const double *coef, double lo,
	       double hi);

struct lp_result {
	enum lp_status status;
	double obj;
	double bound;         /* best bound (MILP), = obj when optimal */
	double gap;           /* relative |obj - bound| / |obj| */
	int nodes;            /* branch-and-bound nodes */
	/* lp_small_solve at an optimum: the least |reduced cost| of a
	 * nonbasic column over 1 + its cost, and of a nonbasic row that is
	 * not an equality (0: another optimal vertex may exist) */
	double tie_col, tie_row;
	char msg[128];
};

/* Solve (simplex, then branch and bound when a column is integer); the
 * primal values are read with lp_value(). node_budget <= 0: a default of
 * 20000 nodes. Returns 0 when r->status is LP_OPTIMAL or LP_FEASIBLE
 * (r->obj, bound and gap set), else -1 with r->status and r->msg saying
 * why (infeasible, unbounded, or a GLPK error, after which the model is
 * unusable but must still be freed). r belongs to the caller. */
int lp_solve(struct lp *lp, int node_budget, struct lp_result *r);
/* Column col's value in the last solve (0 before one, or out of range). */
double lp_value(const struct lp *lp, int col);

/* Scale the model before the simplex (GLPK's automatic scaling: the
 * default) or not (on == 0). Scaling moves the answer's last bits, so a
 * caller turns it off only where it reads no more of the answer than a
 * comparison with a tolerance far above those bits (and gains its time:
 * about 40% of a small LP's). Cannot fail. */
void lp_set_scale(struct lp *lp, int on);

/* Branch a MILP on its most fractional column (on != 0) instead of
 * GLPK's default, the Driebeck-Tomlin heuristic, whose per-node cost
 * (a simplex tableau row for each fractional candidate) grows with the
 * integer columns: on the serving placement's 4,600 it took seconds a
 * node, so 500 nodes ran for minutes. Same answer wherever the root
 * solves without branching. Cannot fail. */
void lp_set_cheap_branching(struct lp *lp, int on);

/* Change column col's bounds and objective coefficient after it was
 * added (the same conventions as lp_add_col), or row row's bounds (those
 * of lp_add_row), so that a model is solved again from its last basis
 * (warm start) instead of built anew. Returns 0, or -1 (nothing changed)
 * for an index out of range or a model the solver failed on. */
int lp_set_col(struct lp *lp, int col, double lo, double hi, double obj);
int lp_set_row(struct lp *lp, int row, double lo, double hi);
/* For tests: load the model's matrix (not yet solved), compute lp_solve's
 * scale factors and GLPK's own (glp_scale_prob, GLP_SF_AUTO), and return
 * how many rows and columns have factors that differ in any bit (0: the
 * same), or -1 when the model has no matrix to load. */
int lp_scale_check(struct lp *lp);
/* Write the model in CPLEX LP format to path (for debugging a model by
 * hand, and tests). Returns 0, or -1 when GLPK cannot write it. */
int lp_write(struct lp *lp, const char *path);

/* Release the solver's per-thread memory; call before a thread that
 * planned exits (the main thread's is released at process exit). */
void lp_thread_done(void);

/* A dense LP of the bound's shape solved without GLPK (lpsmall.c):
 * min c x subject to lo_i <= sum_j a[i n + j] x_j <= hi_i (i < m; a
 * side may be infinite, lo_i = hi_i an equality) and x_j >= 0, with
 * every c_j >= 0 and finite and m <= LPS_MAX_ROWS. Returns 0 with
 * r->status LP_OPTIMAL, r->obj the optimum and x (n values) a vertex
 * where it is reached; else -1 with r->status LP_INFEASIBLE, or LP_ERROR
 * when the model is not of that shape or the solver gave up (a singular
 * basis, a cycle): r->msg says why, and the caller solves the model with
 * GLPK instead. r->nodes counts the simplex iterations. On well-scaled
 * LPs the optimum's value agrees with GLPK's to 1e-9 relative (the
 * bench's LPs: 6e-11 at most, GLPK's own error); on badly scaled ones
 * (stages of minutes, pools of 65,536 GPUs) GLPK may leave rows broken by
 * up to 3e-4 and the two differ by up to about 1e-5, GLPK's exact
 * rational solver siding with this one; where the optimum is not unique (r->tie_col
 * or r->tie_row 0), x may be another optimal vertex than GLPK's. */
#define LPS_MAX_ROWS 32
int lp_small_solve(int m, int n, const double *a, const double *lo, const double *hi,
		   const double *c, double *x, struct lp_result *r);

#endif
