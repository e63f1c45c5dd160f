/* lpsmall.c — a dense dual simplex for the planner's small LPs (lp.h,
 * lp_small_solve).
 *
 * Issue 13, fourteenth round: the bound's pipeline LPs (search_bound.c,
 * pipe_lp_solve) have 5 to 9 rows and tens to hundreds of columns on up
 * to 4 pools (up to 21 rows and thousands of columns on 16), every column
 * >= 0 and unbounded above, every cost >= 0, and GLPK spent about 200,000
 * instructions on each of the 70B search's (scaling, its sparse LU,
 * steepest-edge updates, 8.5 dual simplex iterations). Here the basis
 * (m <= LPS_MAX_ROWS) is held as an explicit inverse: inverted anew
 * (Gauss-Jordan with partial pivoting, m^3 operations: 350 for 7 rows) at
 * the start, every LPS_REINVERT iterations and before an optimum is
 * declared, and updated in product form between (m^2). The matrix is
 * kept by rows, nonzero entries only (a pool's row holds only the
 * layouts on that pool), so a pivot row costs the nonzeros, not m n.
 *
 * The variables are GLPK's: an auxiliary r_i = a_i x per row with the
 * row's bounds [lo_i, hi_i], and the structural x_j in [0, inf); the
 * rows say r - A x = 0. The first basis is every auxiliary (x = 0),
 * dual feasible because every cost is >= 0 (a model with a negative cost
 * is refused: LP_ERROR, and the caller asks GLPK). Then the textbook
 * bounded dual simplex (Koberstein, "The dual simplex method, techniques
 * for a fast and stable implementation", 2005, ch. 3):
 *   - leaving row: the basic variable out of its bounds by most, in
 *     the dual steepest-edge measure infeasibility^2 / ||e_p B^-1||^2
 *     (the weights are the rows of the explicit inverse, exact here,
 *     not updated approximations); ties go to the lower row;
 *   - entering column: the least dual ratio |d_j| / |alpha_pj| among the
 *     columns that move the leaving variable toward its bound; among
 *     ratios within 1e-12 of the least, the largest |alpha_pj| (a stable
 *     pivot), then the lower index;
 *   - no entering column: the dual is unbounded and the LP infeasible;
 *   - the reduced costs are updated by each pivot and computed afresh
 *     before an optimum is declared, which must find them dual feasible
 *     (else LP_ERROR).
 * Dual feasibility is kept by the ratio test, so the LP is never
 * unbounded (costs >= 0 on x >= 0: the objective is at least 0). An
 * iteration limit (degenerate cycling), a pivot too small or a singular
 * basis end in LP_ERROR, for the caller to ask GLPK instead.
 *
 * On well-scaled LPs the optimum's value agrees with GLPK's to 1e-9
 * relative (tests/test_lp.c, 4,000 random LPs of the bound's shape; badly
 * scaled ones to 1e-6, where GLPK leaves rows broken by up to 3e-4; on the
 * bench's 29,725 LPs the largest difference was 5.8e-11, where GLPK's own
 * optimum left its equality row at 0.99999999986 and this one's at 1 to
 * the last bit). Where the optimum is not unique the vertex may differ
 * from GLPK's: r->tie_col and r->tie_row say when (pipe_lp_solve then
 * asks GLPK). */
#include "lp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Feasibility: a basic variable within 1e-9 (1 + |bound|) of its bound
 * is feasible (GLPK: 1e-7 on its scaled model); a pivot under 1e-9 of
 * the row's largest |alpha_pj| is not taken. */
#define LPS_TOL_P 1e-9
#define LPS_TOL_PIV 1e-9
/* A right-signed entry above this fraction of the row's largest, dropped
 * by LPS_TOL_PIV, makes "no entering variable" unproven (lps_entering). */
#define LPS_TOL_TINY 1e-12
#define LPS_TIES 1e-12
/* The basis is inverted anew every LPS_REINVERT iterations, and before
 * an optimum is declared; between, the inverse is updated. */
#define LPS_REINVERT 16

struct lps {
	int m, n;
	const double *a, *lo, *hi, *c;
	int head[LPS_MAX_ROWS];        /* basic variable of each basis row */
	signed char *st;               /* per variable: 0 basic, 1 at lo, 2 at hi */
	signed char *fixed;            /* per variable: lo == hi */
	int *cand;                     /* the ratio test's candidates */
	/* a's nonzero entries by row (row i's are rp[i] .. rp[i + 1] - 1,
	 * in column order): a pool's row holds only the layouts on that
	 * pool, so on 16 pools most of a row is zeros. A row at least half
	 * full is read from a itself (dense[i]: contiguous, no index); both
	 * ways add the same nonzero products in the same order */
	int rp[LPS_MAX_ROWS + 1], *rj;
	char dense[LPS_MAX_ROWS];
	double *rv;
	double *ratio;                 /* and their ratios */
	double binv[LPS_MAX_ROWS][LPS_MAX_ROWS];
	double beta[LPS_MAX_ROWS];     /* basic values */
	double *d;                     /* reduced costs (nonbasic) */
	double *alpha;                 /* the leaving row of B^-1 [I, -A] */
};

static double var_lo(const struct lps *s, int v)
{
	return v < s->m ? s->lo[v] : 0;
}

static double var_hi(const struct lps *s, int v)
{
	return v < s->m ? s->hi[v] : HUGE_VAL;
}

/* y_j -= r x_j for j < n: two entries at a time as GCC's and Clang's
 * vector extension (SSE2 on x86-64), each the same IEEE-754 multiply and
 * subtract as the scalar loop, so the same bits. Issue 13, fifteenth
 * round: the pivot row's loop was 2.3% of the 70B search (GCC 12 at -O2
 * vectorises neither loop: their pointers may alias). */
typedef double lps_v2 __attribute__((vector_size(2 * sizeof(double))));
static void lps_axpy(double *y, const double *x, double r, int n)
{
	lps_v2 rv = { r, r };
	int j = 0;
	for (; j + 4 <= n; j += 4) {
		lps_v2 y0, y1, x0, x1;
		memcpy(&y0, y + j, sizeof y0);
		memcpy(&y1, y + j + 2, sizeof y1);
		memcpy(&x0, x + j, sizeof x0);
		memcpy(&x1, x + j + 2, sizeof x1);
		y0 -= rv * x0;
		y1 -= rv * x1;
		memcpy(y + j, &y0, sizeof y0);
		memcpy(y + j + 2, &y1, sizeof y1);
	}
	for (; j < n; j++)
		y[j] -= r * x[j];
}

/* B^-1 by Gauss-Jordan with partial pivoting; B's column k is [I, -A]'s
 * column head[k]. Returns -1 for a singular basis. */
static int lps_invert(struct lps *s)
{
	int m = s->m;
	double b[LPS_MAX_ROWS][LPS_MAX_ROWS];
	for (int k = 0; k < m; k++) {
		int v = s->head[k];
		for (int i = 0; i < m; i++) {
			b[i][k] = v < m ? (double)(i == v) : -s->a[(size_t)i * s->n + (v - m)];
			s->binv[i][k] = i == k;
		}
	}
	for (int k = 0; k < m; k++) {
		int piv = k;
		for (int i = k + 1; i < m; i++)
			if (fabs(b[i][k]) > fabs(b[piv][k]))
				piv = i;
		if (!(fabs(b[piv][k]) > 1e-12))
			return -1;
		if (piv != k)
			for (int j = 0; j < m; j++) {
				double t = b[k][j];
				b[k][j] = b[piv][j];
				b[piv][j] = t;
				t = s->binv[k][j];
				s->binv[k][j] = s->binv[piv][j];
				s->binv[piv][j] = t;
			}
		double f = 1.0 / b[k][k];
		for (int j = 0; j < m; j++) {
			b[k][j] *= f;
			s->binv[k][j] *= f;
		}
		for (int i = 0; i < m; i++) {
			double g = b[i][k];
			if (i == k || g == 0)
				continue;
			for (int j = 0; j < m; j++) {
				b[i][j] -= g * b[k][j];
				s->binv[i][j] -= g * s->binv[k][j];
			}
		}
	}
	return 0;
}

/* The basic values: -B^-1 times the nonbasic auxiliaries at their
 * bounds (nonbasic structurals are at 0). */
static void lps_beta(struct lps *s)
{
	int m = s->m;
	double w[LPS_MAX_ROWS];
	for (int i = 0; i < m; i++)
		w[i] = s->st[i] == 1 ? s->lo[i] : s->st[i] == 2 ? s->hi[i] : 0;
	for (int k = 0; k < m; k++) {
		double v = 0;
		for (int i = 0; i < m; i++)
			v -= s->binv[k][i] * w[i];
		s->beta[k] = v;
	}
}

/* The reduced costs computed afresh: y = c_B B^-1, d_j = c_j - y
 * [I, -A]_j (between, the pivots update them: lps_pivot). */
static void lps_duals(struct lps *s)
{
	int m = s->m, n = s->n;
	double y[LPS_MAX_ROWS];
	for (int i = 0; i < m; i++) {
		double v = 0;
		for (int k = 0; k < m; k++) {
			int h = s->head[k];
			if (h >= m)
				v += s->c[h - m] * s->binv[k][i];
		}
		y[i] = v;
	}
	for (int i = 0; i < m; i++)
		s->d[i] = -y[i];
	for (int j = 0; j < n; j++)
		s->d[m + j] = s->c[j];
	for (int i = 0; i < m; i++) {
		double yi = y[i];
		const double *ai = s->a + (size_t)i * n;
		if (yi != 0 && s->dense[i])
			for (int j = 0; j < n; j++)
				s->d[m + j] += yi * ai[j];
		else if (yi != 0)
			for (int k = s->rp[i]; k < s->rp[i + 1]; k++)
				s->d[m + s->rj[k]] += yi * s->rv[k];
	}
}

/* The leaving row: the basic variable out of its bounds by most in the
 * steepest-edge measure, or -1 when every one is within them. *dir: +1
 * above its upper bound, -1 below its lower. */
static int lps_leaving(const struct lps *s, int *dir)
{
	int m = s->m, p = -1;
	double best = 0;
	for (int k = 0; k < m; k++) {
		int v = s->head[k];
		double lo = var_lo(s, v), hi = var_hi(s, v), x = s->beta[k], e = 0;
		int sg = 0;
		if (x < lo - LPS_TOL_P * (1 + fabs(lo))) {
			e = lo - x;
			sg = -1;
		} else if (x > hi + LPS_TOL_P * (1 + fabs(hi))) {
			e = x - hi;
			sg = 1;
		}
		if (!sg)
			continue;
		double w = 0;
		for (int i = 0; i < m; i++)
			w += s->binv[k][i] * s->binv[k][i];
		double score = e * e / w;
		if (score > best) {
			best = score;
			p = k;
			*dir = sg;
		}
	}
	return p;
}

/* The entering variable for leaving row p moving in direction dir; -1
 * when none moves it (the LP is infeasible), -2 when the only ones that
 * would were dropped as pivots too small to trust beside the row's largest
 * entry: no proof of infeasibility, so the caller gives the model to
 * GLPK. */
static int lps_entering(struct lps *s, int p, int dir)
{
	int m = s->m, n = s->n, nv = m + n;
	double amax = 0;
	for (int i = 0; i < m; i++)
		s->alpha[i] = s->binv[p][i];
	for (int j = 0; j < n; j++)
		s->alpha[m + j] = 0;
	for (int i = 0; i < m; i++) {
		double r = s->binv[p][i];
		const double *ai = s->a + (size_t)i * n;
		double *al = s->alpha + m;
		if (r != 0 && s->dense[i]) {
			lps_axpy(al, ai, r, n);
		} else if (r != 0) {
			for (int k = s->rp[i]; k < s->rp[i + 1]; k++)
				s->alpha[m + s->rj[k]] -= r * s->rv[k];
		}
	}
	for (int v = 0; v < nv; v++)
		if (s->st[v] && fabs(s->alpha[v]) > amax)
			amax = fabs(s->alpha[v]);
	double tol = LPS_TOL_PIV * amax, least = HUGE_VAL;
	/* pass 1: the candidates and the least ratio; pass 2: the largest
	 * pivot among the candidates near it */
	int nc = 0, dropped = 0;
	for (int v = 0; v < nv; v++) {
		if (!s->st[v] || s->fixed[v])
			continue;   /* basic, or fixed: never enters */
		double t = dir * s->alpha[v], dv = s->d[v], ratio;
		if (s->st[v] == 1 && t > tol)
			ratio = (dv > 0 ? dv : 0) / t;
		else if (s->st[v] == 2 && t < -tol)
			ratio = (dv < 0 ? dv : 0) / t;
		else {
			dropped |= (s->st[v] == 1 ? t : -t) > LPS_TOL_TINY * amax;
			continue;
		}
		s->cand[nc] = v;
		s->ratio[nc++] = ratio;
		if (ratio < least)
			least = ratio;
	}
	int q = -1;
	double big = 0, near = least + LPS_TIES * (1 + least);
	for (int k = 0; k < nc; k++) {
		double t = fabs(s->alpha[s->cand[k]]);
		if (s->ratio[k] <= near && t > big) {
			big = t;
			q = s->cand[k];
		}
	}
	return q < 0 && dropped ? -2 : q;
}

/* Pivot: row p's variable leaves to its bound (dir), q enters; the
 * reduced costs follow (d_j -= theta alpha_pj, theta = d_q / alpha_pq;
 * the leaving variable's is -theta). */
static void lps_pivot(struct lps *s, int p, int q, int dir)
{
	int nv = s->m + s->n, out = s->head[p];
	double theta = s->d[q] / s->alpha[q];
	/* every variable's, basic ones too: a basic variable's d is never
	 * read (it is set when the variable leaves: -theta below), so the
	 * test per variable bought nothing */
	lps_axpy(s->d, s->alpha, theta, nv);
	s->d[q] = 0;
	s->d[out] = -theta;
	s->st[out] = dir > 0 ? 2 : 1;
	s->st[q] = 0;
	s->head[p] = q;
}

/* B^-1 after column q entered row p (product form: with u = B^-1 [I,
 * -A]_q, row p is divided by u_p and u_i times it taken from every
 * other row), instead of inverting anew: m^2 operations, not m^3. */
static void lps_update(struct lps *s, int p, int q)
{
	int m = s->m;
	double u[LPS_MAX_ROWS];
	for (int i = 0; i < m; i++) {
		double v = 0;
		if (q < m)
			v = s->binv[i][q];
		else
			for (int k = 0; k < m; k++)
				v -= s->binv[i][k] * s->a[(size_t)k * s->n + (q - m)];
		u[i] = v;
	}
	double f = 1.0 / u[p];
	for (int k = 0; k < m; k++)
		s->binv[p][k] *= f;
	for (int i = 0; i < m; i++)
		if (i != p && u[i] != 0)
			for (int k = 0; k < m; k++)
				s->binv[i][k] -= u[i] * s->binv[p][k];
}

/* At a primal feasible basis: the reduced costs afresh (the pivots'
 * updates may have drifted) and 1 when they are dual feasible, so the
 * basis is optimal; 0 when one is off by more than 1e-9 (1 + |c_j|),
 * for GLPK to solve the LP instead. */
static int lps_optimal(struct lps *s)
{
	lps_duals(s);
	for (int v = 0; v < s->m + s->n; v++) {
		if (!s->st[v] || s->fixed[v])
			continue;
		double tol = 1e-9 * (1 + (v < s->m ? 0 : s->c[v - s->m]));
		if ((s->st[v] == 1 && s->d[v] < -tol) || (s->st[v] == 2 && s->d[v] > tol))
			return 0;
	}
	return 1;
}

/* At an optimum: the least reduced cost of a nonbasic structural
 * relative to its cost (r->tie_col) and the least of a nonbasic
 * auxiliary (r->tie_row) that is not fixed. 0: another optimal vertex
 * may exist (the optimum is dual degenerate). */
static void lps_ties(const struct lps *s, struct lp_result *r)
{
	r->tie_col = r->tie_row = HUGE_VAL;
	for (int v = 0; v < s->m + s->n; v++) {
		if (!s->st[v] || s->fixed[v])
			continue;
		if (v < s->m)
			r->tie_row = fmin(r->tie_row, fabs(s->d[v]));
		else
			r->tie_col = fmin(r->tie_col, fabs(s->d[v]) / (1 + s->c[v - s->m]));
	}
}

/* a's rows, nonzeros only (rp, rj, rv) and which are dense. Returns -1
 * for a non-finite coefficient. */
static int lps_rows(struct lps *s)
{
	int m = s->m, n = s->n;
	s->rp[0] = 0;
	for (int i = 0; i < m; i++) {
		int k = s->rp[i];
		const double *ai = s->a + (size_t)i * n;
		for (int j = 0; j < n; j++)
			if (ai[j] != 0) {
				if (!isfinite(ai[j]))
					return -1;
				s->rj[k] = j;
				s->rv[k++] = ai[j];
			}
		s->rp[i + 1] = k;
		s->dense[i] = 2 * (k - s->rp[i]) >= n;
	}
	return 0;
}

/* Check the model is of the shape this solver takes (but for its
 * coefficients, which lps_rows checks). */
static const char *lps_refuse(int m, int n, const double *a, const double *lo,
			      const double *hi, const double *c)
{
	if (m < 1 || m > LPS_MAX_ROWS || n < 1)
		return "outside the small solver's size";
	for (int j = 0; j < n; j++)
		if (!(c[j] >= 0) || !isfinite(c[j]))
			return "a negative or non-finite cost";
	for (int i = 0; i < m; i++) {
		if (isnan(lo[i]) || isnan(hi[i]) || lo[i] > hi[i] || lo[i] == HUGE_VAL ||
		    hi[i] == -HUGE_VAL)
			return "a row's bounds are empty";
	}
	return NULL;   /* the coefficients: lps_rows */
}

int lp_small_solve(int m, int n, const double *a, const double *lo, const double *hi,
		   const double *c, double *x, struct lp_result *r)
{
	memset(r, 0, sizeof *r);
	const char *why = lps_refuse(m, n, a, lo, hi, c);
	if (why) {
		r->status = LP_ERROR;
		snprintf(r->msg, sizeof r->msg, "%s", why);
		return -1;
	}
	struct lps s;   /* not zeroed whole: binv alone is 8 KB */
	s.m = m;
	s.n = n;
	s.a = a;
	s.lo = lo;
	s.hi = hi;
	s.c = c;
	int nv = m + n;
	size_t nz = (size_t)m * n;
	s.d = xmalloc((size_t)nv * (3 * sizeof *s.d + sizeof *s.cand + 2) +
		      nz * (sizeof *s.rv + sizeof *s.rj));
	s.alpha = s.d + nv;
	s.ratio = s.alpha + nv;
	s.rv = s.ratio + nv;
	s.cand = (int *)(s.rv + nz);
	s.rj = s.cand + nv;
	s.st = (signed char *)(s.rj + nz);
	s.fixed = s.st + nv;
	if (lps_rows(&s) < 0) {
		free(s.d);
		r->status = LP_ERROR;
		snprintf(r->msg, sizeof r->msg, "a non-finite coefficient");
		return -1;
	}
	for (int i = 0; i < m; i++) {
		s.head[i] = i;
		s.st[i] = 0;
		s.fixed[i] = lo[i] == hi[i];
	}
	for (int j = 0; j < n; j++) {
		s.st[m + j] = 1;
		s.fixed[m + j] = 0;
	}
	/* the bench's LPs took at most 140 iterations (20 rows); a cycle
	 * costs no more than this before GLPK is asked */
	int it = 0, limit = 100 + 20 * m;
	r->status = LP_ERROR;
	if (lps_invert(&s) < 0) {   /* the identity: cannot fail */
		free(s.d);
		snprintf(r->msg, sizeof r->msg, "a singular basis");
		return -1;
	}
	lps_duals(&s);   /* c: every auxiliary basic, y = 0 */
	int fresh = 1;   /* binv inverted anew since the last pivot */
	for (; it < limit; it++) {
		if (!fresh && (it % LPS_REINVERT == 0) && lps_invert(&s) < 0) {
			snprintf(r->msg, sizeof r->msg, "a singular basis");
			break;
		}
		fresh |= it % LPS_REINVERT == 0;
		lps_beta(&s);
		int dir = 0, p = lps_leaving(&s, &dir);
		if (p < 0 && !fresh) {
			/* feasible on the updated inverse: decide on a fresh one */
			if (lps_invert(&s) < 0) {
				snprintf(r->msg, sizeof r->msg, "a singular basis");
				break;
			}
			fresh = 1;
			lps_beta(&s);
			p = lps_leaving(&s, &dir);
		}
		if (p < 0) {
			r->status = lps_optimal(&s) ? LP_OPTIMAL : LP_ERROR;
			if (r->status != LP_OPTIMAL)
				snprintf(r->msg, sizeof r->msg, "dual feasibility lost");
			break;
		}
		int q = lps_entering(&s, p, dir);
		if (q == -1 && !fresh) {
			/* infeasible on the updated inverse: decide on a fresh one */
			if (lps_invert(&s) < 0) {
				snprintf(r->msg, sizeof r->msg, "a singular basis");
				break;
			}
			fresh = 1;
			continue;
		}
		if (q == -2) {
			snprintf(r->msg, sizeof r->msg, "a pivot too small to trust");
			break;
		}
		if (q < 0) {
			r->status = LP_INFEASIBLE;
			snprintf(r->msg, sizeof r->msg, "no feasible solution");
			break;
		}
		lps_pivot(&s, p, q, dir);
		lps_update(&s, p, q);
		fresh = 0;
	}
	if (it == limit)
		snprintf(r->msg, sizeof r->msg, "no optimum within %d iterations", limit);
	r->nodes = it;   /* iterations, for tests */
	for (int j = 0; j < n; j++)
		x[j] = 0;
	if (r->status == LP_OPTIMAL) {
		double obj = 0;
		for (int k = 0; k < m; k++)
			if (s.head[k] >= m)
				x[s.head[k] - m] = s.beta[k];
		for (int j = 0; j < n; j++)
			obj += c[j] * x[j];
		r->obj = r->bound = obj;
		lps_ties(&s, r);
	}
	free(s.d);
	return r->status == LP_OPTIMAL ? 0 : -1;
}
