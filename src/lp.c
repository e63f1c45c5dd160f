/* lp.c — GLPK behind lp.h. */
#include "lp.h"

#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct lp {
	glp_prob *P;
	int n_cols, n_rows, n_int;
	/* the matrix, 1-based as GLPK wants it */
	int *ia, *ja;
	double *ar;
	int ne, cap;
	double *x;            /* solution, 0-based */
	int no_scale;         /* lp_set_scale(lp, 0) */
	int mfv;              /* lp_set_cheap_branching(lp, 1) */
	struct scl *scl;      /* the scaling being loaded: freed by lp_solve's
			       * error path when GLPK stops inside the load */
	/* columns added since GLPK last got them (cols_flush): one
	 * glp_add_cols for them all instead of one a column (issue 13,
	 * thirteenth round: 5.6M instructions of the 70B search's bound
	 * LPs on 1,024 GPUs); GLPK ends with the same columns, bounds,
	 * objective and kinds in the same order */
	int n_glp;            /* columns GLPK has */
	struct pend_col {
		double lo, hi, obj;
		int integer;
	} *pend;
	int cap_pend;
};

struct lp *lp_new(int maximise)
{
	struct lp *lp = xcalloc(1, sizeof *lp);
	lp->P = glp_create_prob();
	glp_set_obj_dir(lp->P, maximise ? GLP_MAX : GLP_MIN);
	lp->cap = 512;   /* a bound LP's entries (about 400) without a realloc */
	lp->ia = xmalloc((size_t)(lp->cap + 1) * sizeof *lp->ia);
	lp->ja = xmalloc((size_t)(lp->cap + 1) * sizeof *lp->ja);
	lp->ar = xmalloc((size_t)(lp->cap + 1) * sizeof *lp->ar);
	return lp;
}

void lp_free(struct lp *lp)
{
	if (!lp)
		return;
	if (lp->P)
		glp_delete_prob(lp->P);
	free(lp->ia);
	free(lp->ja);
	free(lp->ar);
	free(lp->x);
	free(lp->pend);
	free(lp);
}

static void col_bnds(glp_prob *P, int j, double lo, double hi)
{
	if (hi < 0)
		glp_set_col_bnds(P, j, GLP_LO, lo, 0);
	else if (hi == lo)
		glp_set_col_bnds(P, j, GLP_FX, lo, lo);
	else
		glp_set_col_bnds(P, j, GLP_DB, lo, hi);
}

static void row_bnds(glp_prob *P, int i, double lo, double hi)
{
	int lo_inf = !isfinite(lo), hi_inf = !isfinite(hi);
	if (lo_inf && hi_inf)
		glp_set_row_bnds(P, i, GLP_FR, 0, 0);
	else if (lo_inf)
		glp_set_row_bnds(P, i, GLP_UP, 0, hi);
	else if (hi_inf)
		glp_set_row_bnds(P, i, GLP_LO, lo, 0);
	else if (lo == hi)
		glp_set_row_bnds(P, i, GLP_FX, lo, lo);
	else
		glp_set_row_bnds(P, i, GLP_DB, lo, hi);
}

int lp_add_col(struct lp *lp, double lo, double hi, double obj, int integer)
{
	int k = lp->n_cols - lp->n_glp;
	if (k == lp->cap_pend) {
		lp->cap_pend = lp->cap_pend ? 2 * lp->cap_pend : 64;
		lp->pend = xrealloc(lp->pend, (size_t)lp->cap_pend * sizeof *lp->pend);
	}
	lp->pend[k] = (struct pend_col){ lo, hi, isfinite(obj) ? obj : 0, integer };
	lp->n_int += integer != 0;
	return lp->n_cols++;
}

/* Give GLPK the columns added since it last got them, as lp_add_col
 * would have one by one: bounds, objective, then kind. */
static void cols_flush(struct lp *lp)
{
	int k = lp->n_cols - lp->n_glp;
	if (k <= 0 || !lp->P)
		return;
	int j0 = glp_add_cols(lp->P, k);
	for (int t = 0; t < k; t++) {
		const struct pend_col *c = &lp->pend[t];
		col_bnds(lp->P, j0 + t, c->lo, c->hi);
		glp_set_obj_coef(lp->P, j0 + t, c->obj);
		if (c->integer)
			glp_set_col_kind(lp->P, j0 + t, GLP_IV);
	}
	lp->n_glp = lp->n_cols;
}

int lp_set_col(struct lp *lp, int col, double lo, double hi, double obj)
{
	if (!lp->P || col < 0 || col >= lp->n_cols)
		return -1;
	cols_flush(lp);
	col_bnds(lp->P, col + 1, lo, hi);
	glp_set_obj_coef(lp->P, col + 1, isfinite(obj) ? obj : 0);
	return 0;
}

int lp_set_row(struct lp *lp, int row, double lo, double hi)
{
	if (!lp->P || row < 0 || row >= lp->n_rows)
		return -1;
	row_bnds(lp->P, row + 1, lo, hi);
	return 0;
}

int lp_add_row(struct lp *lp, int n, const int *idx, const double *coef, double lo,
	       double hi)
{
	for (int k = 0; k < n; k++)
		if (!isfinite(coef[k]) || idx[k] < 0 || idx[k] >= lp->n_cols)
			return -1;
	int i = glp_add_rows(lp->P, 1);
	row_bnds(lp->P, i, lo, hi);
	if (lp->ne + n > lp->cap) {   /* room for the row at once, not per entry */
		while (lp->ne + n > lp->cap)
			lp->cap *= 2;
		lp->ia = xrealloc(lp->ia, (size_t)(lp->cap + 1) * sizeof *lp->ia);
		lp->ja = xrealloc(lp->ja, (size_t)(lp->cap + 1) * sizeof *lp->ja);
		lp->ar = xrealloc(lp->ar, (size_t)(lp->cap + 1) * sizeof *lp->ar);
	}
	int ne = lp->ne;
	for (int k = 0; k < n; k++) {
		if (coef[k] == 0)
			continue;
		ne++;
		lp->ia[ne] = i;
		lp->ja[ne] = idx[k] + 1;
		lp->ar[ne] = coef[k];
	}
	lp->ne = ne;
	return lp->n_rows++;
}

/* GLPK reports a fatal error through the hook; jump back to lp_solve. The
 * environment is then unusable and is freed (every GLPK object of this
 * thread with it), so the problem pointer is dropped. */
struct guard {
	jmp_buf env;
};

static void on_glpk_error(void *info)
{
	longjmp(((struct guard *)info)->env, 1);
}

static int term_hook(void *info, const char *s)
{
	(void)info;
	(void)s;
	return 1;     /* swallow GLPK's terminal output */
}

struct mip_ctl {
	int node_budget;
	int nodes;
};

static void mip_callback(glp_tree *T, void *info)
{
	struct mip_ctl *c = info;
	if (glp_ios_reason(T) == GLP_ISELECT) {
		int a, n, t;
		glp_ios_tree_size(T, &a, &n, &t);
		c->nodes = t;
		if (t >= c->node_budget)
			glp_ios_terminate(T);
	}
}

/* GLPK's automatic scaling, glp_scale_prob(P, GLP_SF_AUTO), computed on
 * the model's own arrays. GLPK 5.0 (glpscl.c) takes every |a_ij| with the
 * factors applied as |a_ij| * (r_i * s_j); skips scaling when every
 * |a_ij| lies in [0.1, 10]; else scales by geometric means (each row, or
 * each column first when the rows' largest max/min ratio exceeds the
 * columns', divides its factor by sqrt(min * max)) up to 15 times, while
 * the matrix's max/min ratio stays at or under 0.9 of the last; then
 * equilibrates once (each row's or column's factor divided by its
 * largest scaled |a_ij|, the same order rule). Here each row and column
 * is one contiguous run instead of a linked list walked twice per
 * statistic, and min and max come from one pass; the products, square
 * roots and divisions are the same in the same order, so the factors are
 * GLPK's bit for bit (tests/test_lp.c compares them with glp_scale_prob,
 * so a GLPK that scales otherwise fails it) and so is every answer.
 * glp_scale_prob was 16% of a Mixtral 8x22B throughput search's
 * instructions (1,024 GPUs), more than its bound LPs' simplex. An empty
 * row or column counts min = max = 1, as in GLPK. */
struct scl {
	int m, n;
	int *rp, *rj, *cp, *ci;   /* row i's entries rp[i]..rp[i+1]-1; columns' */
	double *rv, *cv;          /* |a_ij| in row and column order */
	double *r, *s;            /* factors, 1-based */
	/* each row's and column's least and largest scaled |a_ij| under the
	 * factors now (rows_ok, cols_ok: computed since they last changed);
	 * GLPK computes them again at every use, to the same values */
	double *rmn, *rmx, *cmn, *cmx;
	int rows_ok, cols_ok;
	int full;                 /* no row and no column is empty */
};

/* Row i's least and largest scaled |a_ij| (GLPK's min_row_aij and
 * max_row_aij: the first entry, then any smaller or larger one). */
static void scl_row(const struct scl *c, int i, double *mn, double *mx)
{
	int k = c->rp[i], end = c->rp[i + 1];
	double ri = c->r[i], lo = 1.0, hi = 1.0;
	if (k < end)
		lo = hi = c->rv[k] * (ri * c->s[c->rj[k]]);
	for (k++; k < end; k++) {
		double t = c->rv[k] * (ri * c->s[c->rj[k]]);
		if (lo > t)
			lo = t;
		if (hi < t)
			hi = t;
	}
	*mn = lo;
	*mx = hi;
}

/* Column j's, the same way. */
static void scl_col(const struct scl *c, int j, double *mn, double *mx)
{
	int k = c->cp[j], end = c->cp[j + 1];
	double sj = c->s[j], lo = 1.0, hi = 1.0;
	if (k < end)
		lo = hi = c->cv[k] * (c->r[c->ci[k]] * sj);
	for (k++; k < end; k++) {
		double t = c->cv[k] * (c->r[c->ci[k]] * sj);
		if (lo > t)
			lo = t;
		if (hi < t)
			hi = t;
	}
	*mn = lo;
	*mx = hi;
}

static void scl_rows(struct scl *c)
{
	for (int i = 1; !c->rows_ok && i <= c->m; i++)
		scl_row(c, i, &c->rmn[i], &c->rmx[i]);
	c->rows_ok = 1;
}

static void scl_cols(struct scl *c)
{
	for (int j = 1; !c->cols_ok && j <= c->n; j++)
		scl_col(c, j, &c->cmn[j], &c->cmx[j]);
	c->cols_ok = 1;
}

/* The matrix's scaled min and max |a_ij| over its rows (min_mat_aij,
 * max_mat_aij). by_cols: from the columns' statistics instead, when no
 * row or column is empty (an empty one counts 1 in GLPK's, and rows and
 * columns would then differ), for a caller whose next pass starts with
 * the columns: the least and largest of the same products (each
 * |a_ij| * (r_i * s_j), the same operations in either order) are the
 * same numbers, and the pass then reuses the columns' statistics instead
 * of computing them again (issue 13, thirteenth round: a third of the
 * geometric-mean passes' products, columns first being the bound LPs'
 * usual order). */
static void scl_mat(struct scl *c, double *mn, double *mx, int by_cols)
{
	*mn = *mx = 1.0;
	if (by_cols && c->full && !c->rows_ok) {
		scl_cols(c);
		for (int j = 1; j <= c->n; j++) {
			if (j == 1 || *mn > c->cmn[j])
				*mn = c->cmn[j];
			if (j == 1 || *mx < c->cmx[j])
				*mx = c->cmx[j];
		}
		return;
	}
	scl_rows(c);
	for (int i = 1; i <= c->m; i++) {
		if (i == 1 || *mn > c->rmn[i])
			*mn = c->rmn[i];
		if (i == 1 || *mx < c->rmx[i])
			*mx = c->rmx[i];
	}
}

/* 1 when the rows' largest max/min ratio exceeds the columns'. */
static int scl_rows_worse(struct scl *c)
{
	double rr = 1.0, cr = 1.0;
	scl_rows(c);
	scl_cols(c);
	for (int i = 1; i <= c->m; i++)
		if (i == 1 || rr < c->rmx[i] / c->rmn[i])
			rr = c->rmx[i] / c->rmn[i];
	for (int j = 1; j <= c->n; j++)
		if (j == 1 || cr < c->cmx[j] / c->cmn[j])
			cr = c->cmx[j] / c->cmn[j];
	return rr > cr;
}

/* One geometric-mean (gm 1) or equilibration (gm 0) pass over the rows
 * and the columns, rows first unless flag. A row's statistics do not
 * read the other rows' factors, so taking them all before changing any
 * is what GLPK's row-by-row loop computes; the same for columns. */
static void scl_pass(struct scl *c, int flag, int gm)
{
	for (int pass = 0; pass <= 1; pass++) {
		if (pass == flag) {
			scl_rows(c);
			for (int i = 1; i <= c->m; i++)
				c->r[i] = gm ? c->r[i] / sqrt(c->rmn[i] * c->rmx[i])
					     : c->r[i] / c->rmx[i];
		} else {
			scl_cols(c);
			for (int j = 1; j <= c->n; j++)
				c->s[j] = gm ? c->s[j] / sqrt(c->cmn[j] * c->cmx[j])
					     : c->s[j] / c->cmx[j];
		}
		c->rows_ok = c->cols_ok = 0;
	}
}

/* Row and column runs of the model's ne entries (1-based arrays). */
static void scl_init(struct scl *c, const struct lp *lp)
{
	int m = c->m = lp->n_rows, n = c->n = lp->n_cols, ne = lp->ne;
	c->rp = xcalloc((size_t)m + 2, sizeof *c->rp);
	c->cp = xcalloc((size_t)n + 2, sizeof *c->cp);
	c->rj = xmalloc(((size_t)ne + 1) * sizeof *c->rj);
	c->ci = xmalloc(((size_t)ne + 1) * sizeof *c->ci);
	c->rv = xmalloc(((size_t)ne + 1) * sizeof *c->rv);
	c->cv = xmalloc(((size_t)ne + 1) * sizeof *c->cv);
	c->r = xmalloc(((size_t)m + 1) * sizeof *c->r);
	c->s = xmalloc(((size_t)n + 1) * sizeof *c->s);
	c->rmn = xmalloc(((size_t)m + 1) * sizeof *c->rmn);
	c->rmx = xmalloc(((size_t)m + 1) * sizeof *c->rmx);
	c->cmn = xmalloc(((size_t)n + 1) * sizeof *c->cmn);
	c->cmx = xmalloc(((size_t)n + 1) * sizeof *c->cmx);
	c->rows_ok = c->cols_ok = 0;
	for (int k = 1; k <= ne; k++) {
		c->rp[lp->ia[k] + 1]++;
		c->cp[lp->ja[k] + 1]++;
	}
	for (int i = 1; i <= m; i++)
		c->rp[i + 1] += c->rp[i];
	for (int j = 1; j <= n; j++)
		c->cp[j + 1] += c->cp[j];
	int *rf = xmalloc(((size_t)m + 2) * sizeof *rf), *cf = xmalloc(((size_t)n + 2) * sizeof *cf);
	memcpy(rf, c->rp, ((size_t)m + 2) * sizeof *rf);
	memcpy(cf, c->cp, ((size_t)n + 2) * sizeof *cf);
	for (int k = 1; k <= ne; k++) {
		int i = lp->ia[k], j = lp->ja[k], a = rf[i]++, b = cf[j]++;
		c->rj[a] = j;
		c->rv[a] = fabs(lp->ar[k]);
		c->ci[b] = i;
		c->cv[b] = fabs(lp->ar[k]);
	}
	free(rf);
	free(cf);
	for (int i = 0; i <= m; i++)
		c->r[i] = 1.0;
	for (int j = 0; j <= n; j++)
		c->s[j] = 1.0;
	c->full = m > 0 && n > 0;
	for (int i = 1; i <= m && c->full; i++)
		c->full = c->rp[i + 1] > c->rp[i];
	for (int j = 1; j <= n && c->full; j++)
		c->full = c->cp[j + 1] > c->cp[j];
}

static void scl_free(struct scl *c)
{
	free(c->rp);
	free(c->cp);
	free(c->rj);
	free(c->ci);
	free(c->rv);
	free(c->cv);
	free(c->r);
	free(c->s);
	free(c->rmn);
	free(c->rmx);
	free(c->cmn);
	free(c->cmx);
}

/* The factors of GLP_SF_AUTO for the model's entries (not yet loaded
 * into GLPK's matrix: lp->ne of them), into c (caller frees). */
static void scl_auto(struct scl *c, const struct lp *lp)
{
	scl_init(c, lp);
	double mn, mx;
	scl_mat(c, &mn, &mx, 0);
	if (mn >= 0.10 && mx <= 10.0)
		return;   /* well scaled: GLPK skips */
	int flag = scl_rows_worse(c);
	double ratio = 0.0;
	for (int k = 1; k <= 15; k++) {
		double r_old = ratio;
		scl_mat(c, &mn, &mx, flag);   /* flag: scl_pass starts with the columns */
		ratio = mx / mn;
		if (k > 1 && ratio > 0.90 * r_old)
			break;
		scl_pass(c, flag, 1);
	}
	scl_pass(c, scl_rows_worse(c), 0);
}

/* Free the scaling lp holds, if any. */
static void lp_drop_scl(struct lp *lp)
{
	if (lp->scl) {
		scl_free(lp->scl);
		free(lp->scl);
		lp->scl = NULL;
	}
}

/* Load the model's entries into GLPK's matrix, scaled unless no_scale. */
static void load_scaled(struct lp *lp)
{
	if (!lp->no_scale) {
		/* held by lp, not on this stack, so that a GLPK error inside the
		 * load (a longjmp to lp_solve) can still free it */
		lp->scl = xcalloc(1, sizeof *lp->scl);
		scl_auto(lp->scl, lp);
	}
	glp_load_matrix(lp->P, lp->ne, lp->ia, lp->ja, lp->ar);
	if (lp->scl) {
		const struct scl *c = lp->scl;
		for (int i = 1; i <= c->m; i++)
			glp_set_rii(lp->P, i, c->r[i]);
		for (int j = 1; j <= c->n; j++)
			glp_set_sjj(lp->P, j, c->s[j]);
		lp_drop_scl(lp);
	}
}

int lp_scale_check(struct lp *lp)
{
	if (!lp->P || !lp->ne)
		return -1;
	struct scl c;
	scl_auto(&c, lp);
	glp_term_hook(term_hook, NULL);
	cols_flush(lp);
	glp_load_matrix(lp->P, lp->ne, lp->ia, lp->ja, lp->ar);
	lp->ne = 0;
	glp_scale_prob(lp->P, GLP_SF_AUTO);
	glp_term_hook(NULL, NULL);
	int bad = 0;
	for (int i = 1; i <= c.m; i++)
		bad += memcmp(&(double){ glp_get_rii(lp->P, i) }, &c.r[i], sizeof c.r[i]) != 0;
	for (int j = 1; j <= c.n; j++)
		bad += memcmp(&(double){ glp_get_sjj(lp->P, j) }, &c.s[j], sizeof c.s[j]) != 0;
	scl_free(&c);
	return bad;
}

int lp_solve(struct lp *lp, int node_budget, struct lp_result *r)
{
	memset(r, 0, sizeof *r);
	if (!lp->P) {
		r->status = LP_ERROR;
		snprintf(r->msg, sizeof r->msg, "the solver failed earlier on this model");
		return -1;
	}
	struct guard g;
	struct mip_ctl ctl = { node_budget > 0 ? node_budget : 20000, 0 };
	glp_term_hook(term_hook, NULL);
	glp_error_hook(on_glpk_error, &g);
	if (setjmp(g.env)) {
		glp_error_hook(NULL, NULL);
		lp_drop_scl(lp);
		lp->P = NULL;
		glp_free_env();
		r->status = LP_ERROR;
		snprintf(r->msg, sizeof r->msg, "GLPK stopped with an internal error");
		return -1;
	}
	cols_flush(lp);
	if (lp->ne)
		load_scaled(lp);
	lp->ne = 0;      /* loaded (and scaled): a second solve must not load again */
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	sp.meth = GLP_DUALP;
	sp.it_lim = 100000;
	int rc = glp_simplex(lp->P, &sp);
	int st = glp_get_status(lp->P);
	int ok = 0;
	if (rc != 0 && rc != GLP_EITLIM) {
		r->status = LP_ERROR;
		snprintf(r->msg, sizeof r->msg, "simplex failed (GLPK code %d)", rc);
	} else if (st == GLP_NOFEAS) {
		r->status = LP_INFEASIBLE;
		snprintf(r->msg, sizeof r->msg, "no feasible solution");
	} else if (st == GLP_UNBND) {
		r->status = LP_UNBOUNDED;
		snprintf(r->msg, sizeof r->msg, "unbounded");
	} else if (st != GLP_OPT) {
		r->status = LP_ERROR;
		snprintf(r->msg, sizeof r->msg, "simplex ended without an optimum (status %d)", st);
	} else {
		ok = 1;
	}
	free(lp->x);
	lp->x = xcalloc((size_t)(lp->n_cols ? lp->n_cols : 1), sizeof *lp->x);
	if (ok && lp->n_int == 0) {
		r->status = LP_OPTIMAL;
		r->obj = r->bound = glp_get_obj_val(lp->P);
		for (int j = 0; j < lp->n_cols; j++)
			lp->x[j] = glp_get_col_prim(lp->P, j + 1);
	} else if (ok) {
		double root = glp_get_obj_val(lp->P);
		glp_iocp ip;
		glp_init_iocp(&ip);
		ip.msg_lev = GLP_MSG_OFF;
		ip.presolve = GLP_OFF;
		ip.cb_func = mip_callback;
		ip.cb_info = &ctl;
		ip.mip_gap = 0;
		if (lp->mfv)
			ip.br_tech = GLP_BR_MFV;
		glp_intopt(lp->P, &ip);
		int ms = glp_mip_status(lp->P);
		if (ms == GLP_OPT || ms == GLP_FEAS) {
			r->obj = glp_mip_obj_val(lp->P);
			r->bound = ms == GLP_OPT ? r->obj : root;
			r->status = ms == GLP_OPT ? LP_OPTIMAL : LP_FEASIBLE;
			for (int j = 0; j < lp->n_cols; j++)
				lp->x[j] = glp_mip_col_val(lp->P, j + 1);
		} else if (ms == GLP_NOFEAS) {
			r->status = LP_INFEASIBLE;
			snprintf(r->msg, sizeof r->msg, "no integer solution");
		} else {
			r->status = LP_ERROR;
			snprintf(r->msg, sizeof r->msg, "no integer solution within %d nodes",
				 ctl.node_budget);
		}
		r->nodes = ctl.nodes;
	}
	if (r->status == LP_OPTIMAL || r->status == LP_FEASIBLE)
		r->gap = fabs(r->obj) > 0 ? fabs(r->obj - r->bound) / fabs(r->obj) : 0;
	glp_error_hook(NULL, NULL);
	glp_term_hook(NULL, NULL);
	return r->status == LP_OPTIMAL || r->status == LP_FEASIBLE ? 0 : -1;
}

void lp_set_scale(struct lp *lp, int on)
{
	lp->no_scale = !on;
}

void lp_set_cheap_branching(struct lp *lp, int on)
{
	lp->mfv = on != 0;
}

double lp_value(const struct lp *lp, int col)
{
	return lp->x && col >= 0 && col < lp->n_cols ? lp->x[col] : 0;
}

void lp_thread_done(void)
{
	glp_free_env();
}

int lp_write(struct lp *lp, const char *path)
{
	if (!lp->P)
		return -1;
	cols_flush(lp);
	if (lp->ne) {
		glp_load_matrix(lp->P, lp->ne, lp->ia, lp->ja, lp->ar);
		lp->ne = 0;
	}
	glp_term_hook(term_hook, NULL);
	int rc = glp_write_lp(lp->P, NULL, path) ? -1 : 0;
	glp_term_hook(NULL, NULL);
	return rc;
}
