/* serve_search.c — instance enumeration, the fleet ILP and the placement
 * MILP for serving (the formulations are in serve_search.h and reference
 * optimizers.md §5.2-5.3).
 *
 * Simplifications, stated:
 * - An instance's capacity for a mix of buckets is linear in the routed
 *   rates (sum_r z_kr / mu_kr <= 1 per copy, Mélange's load model); mu_kr
 *   is measured alone, at the SLO, by bisection on the rate.
 * - The plan's p99 TTFT/TPOT is the worst over its instances at their
 *   routed loads (each copy gets an equal share); the mean and p50 are
 *   weighted by rate.
 * - Without SLOs an instance is loaded to at most SERVE_MAX_UTIL of its
 *   saturation rate, so its queue stays finite.
 * - Disaggregated prefill/decode (DistServe/Splitwise): PP 1 only; prefill
 *   and decode instances always on different nodes (the KV crosses the
 *   NICs); the prefill wait is M/D/1 with an exponential tail for the p99.
 * - Placement: every machine's memory also holds the embedding and output
 *   matrices (only the first and last stage need them: conservative), the
 *   logits' compute is not charged, and layer blocks are equal (dense
 *   layers; an MoE model's first dense layers are averaged in). Machines
 *   of a pool are interchangeable (one integer count per class and
 *   segment, no symmetry), and the cross-machine activation traffic is
 *   bounded by each machine's share of its node's NICs. */
#include "serve_search.h"
#include "lp.h"
#include "model.h"
#include "utf8.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- distributions ---------------------------------------------------------- */

static int parse_num(const char *s, double *v)
{
	char *end;
	double d = strtod(s, &end);
	if (end == s || (*end && *end != ':') || !isfinite(d))
		return -1;
	/* decimal only, as util.h's parsers: strtod also takes leading
	 * space, '+' and hex ("--isl 0x100" was 256 tokens) */
	if (!(isdigit((unsigned char)*s) || *s == '.' || *s == '-') ||
	    memchr(s, 'x', (size_t)(end - s)) || memchr(s, 'X', (size_t)(end - s)))
		return -1;
	*v = d;
	return 0;
}

int serve_dist_parse(const char *s, struct serve_dist *d, struct hp_err *err)
{
	memset(d, 0, sizeof *d);
	const char *c = strchr(s, ':');
	double a = 0, b = 0;
	if (!c) {
		/* A fixed length is a whole number of tokens (a mean need not be). */
		if (parse_num(s, &a) || a < 1 || a > 1e7 || a != floor(a))
			goto bad;
		d->kind = DIST_FIXED;
		d->a = a;
		return 0;
	}
	size_t n = (size_t)(c - s);
	const char *c2 = strchr(c + 1, ':');
	/* at most two numbers: parse_num stops at a ':', so the second
	 * one's would let "lognormal:500:0.5:junk" through */
	if (c2 && strchr(c2 + 1, ':'))
		goto bad;
	if (n == 9 && !strncmp(s, "lognormal", n)) {
		if (!c2 || parse_num(c + 1, &a) || parse_num(c2 + 1, &b) || a < 1 || a > 1e7 ||
		    b <= 0 || b > 10)
			goto bad;
		d->kind = DIST_LOGNORMAL;
	} else if (n == 7 && !strncmp(s, "uniform", n)) {
		if (!c2 || parse_num(c + 1, &a) || parse_num(c2 + 1, &b) || a < 1 || b < a ||
		    b > 1e7 || a != floor(a) || b != floor(b))
			goto bad;
		d->kind = DIST_UNIFORM;
	} else if (n == 3 && !strncmp(s, "exp", n)) {
		if (c2 || parse_num(c + 1, &a) || a < 1 || a > 1e7)
			goto bad;
		d->kind = DIST_EXP;
	} else {
		goto bad;
	}
	d->a = a;
	d->b = b;
	return 0;
bad:
	return hp_err_set(err, HP_EXIT_USAGE,
			  "expected a whole token count from 1 to 1e7, lognormal:MEAN:CV "
			  "(CV above 0, at most 10), uniform:LO:HI (whole counts) or exp:MEAN, "
			  "got '%s'", s);
}

double serve_dist_mean(const struct serve_dist *d)
{
	switch (d->kind) {
	case DIST_UNIFORM: return 0.5 * (d->a + d->b);
	default: return d->a;
	}
}

/* Inverse of the standard normal CDF: Abramowitz & Stegun 26.2.23
 * (absolute error < 4.5e-4). */
static double norm_inv(double p)
{
	double q = p < 0.5 ? p : 1 - p;
	double t = sqrt(-2 * log(q));
	double x = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
			       (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
	return p < 0.5 ? -x : x;
}

double serve_dist_quantile(const struct serve_dist *d, double p)
{
	switch (d->kind) {
	case DIST_FIXED: return d->a;
	case DIST_UNIFORM: return d->a + p * (d->b - d->a);
	case DIST_EXP: return -d->a * log(1 - p);
	case DIST_LOGNORMAL: {
		double s2 = log(1 + d->b * d->b), mu = log(d->a) - s2 / 2;
		return exp(mu + sqrt(s2) * norm_inv(p));
	}
	}
	return d->a;
}

int serve_buckets(const struct serve_dist *isl, const struct serve_dist *osl, int n_isl,
		  int n_osl, struct serve_bucket *out)
{
	if (isl->kind == DIST_FIXED || n_isl < 1)
		n_isl = 1;
	if (osl->kind == DIST_FIXED || n_osl < 1)
		n_osl = 1;
	while (n_isl * n_osl > SERVE_MAX_BUCKETS) {
		if (n_isl >= n_osl)
			n_isl--;
		else
			n_osl--;
	}
	int n = 0;
	for (int i = 0; i < n_isl; i++)
		for (int j = 0; j < n_osl; j++) {
			double a = serve_dist_quantile(isl, (i + 0.5) / n_isl);
			double b = serve_dist_quantile(osl, (j + 0.5) / n_osl);
			out[n].isl = fmax(1, round(a));
			out[n].osl = fmax(1, round(b));
			out[n].share = 1.0 / (n_isl * n_osl);
			n++;
		}
	return n;
}

/* --- candidates -------------------------------------------------------------- */

static int slo_met(const struct serve_result *r, const struct serve_slo *slo)
{
	if (slo->ttft_p99_s > 0 && !(r->ttft_s.p99 <= slo->ttft_p99_s))
		return 0;
	if (slo->tpot_p99_s > 0 && !(r->tpot_s.p99 <= slo->tpot_p99_s))
		return 0;
	return 1;
}

int serve_role_capped(int role, const struct serve_slo *slo)
{
	return role == ROLE_DECODE || (role == ROLE_PREFILL && slo->ttft_p99_s <= 0) ||
	       (role == ROLE_BOTH && slo->ttft_p99_s <= 0 && slo->tpot_p99_s <= 0);
}

double serve_max_rate(const struct pool *p, const struct model_spec *m,
		      const struct serve_config *cfg, double isl, double osl,
		      const struct serve_slo *slo, const struct serve_calib *k)
{
	struct serve_load ld = { isl, osl, 0, 0, 0, 0 };
	struct serve_result r;
	if (serve_evaluate(p, m, cfg, &ld, k, &r, NULL) < 0 || !r.fits)
		return 0;
	double sat = r.req_s_max;
	if (serve_role_capped(ROLE_BOTH, slo))
		return SERVE_MAX_UTIL * sat;
	double lo = 0, hi = 0.999 * sat;
	ld.rate = hi;
	if (serve_evaluate(p, m, cfg, &ld, k, &r, NULL) == 0 && slo_met(&r, slo))
		return hi;
	ld.rate = 1e-3 * sat;
	if (serve_evaluate(p, m, cfg, &ld, k, &r, NULL) < 0 || !slo_met(&r, slo))
		return 0;
	lo = ld.rate;
	for (int i = 0; i < 14; i++) {
		double mid = 0.5 * (lo + hi);
		ld.rate = mid;
		if (serve_evaluate(p, m, cfg, &ld, k, &r, NULL) == 0 && slo_met(&r, slo))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int pool_gpus(const struct pool *p)
{
	return p->gpus_per_node * (p->nodes_max > 0 ? p->nodes_max : p->nodes);
}

int serve_enumerate(const struct cluster *c, const struct model_spec *m,
		    const struct serve_config *base, int fix_tp, int fix_pp,
		    const struct serve_bucket *b, int nb, const struct serve_slo *slo,
		    const struct serve_calib *k, struct serve_cand *out, int max_out,
		    struct serve_result *nearest, struct serve_cand *nearest_cand)
{
	int n = 0, near_fits = 0;
	double best_near = -1;
	double isl = 0, osl = 0;
	for (int r = 0; r < nb; r++) {
		isl += b[r].share * b[r].isl;
		osl += b[r].share * b[r].osl;
	}
	if (nearest)
		memset(nearest, 0, sizeof *nearest);
	for (int pi = 0; pi < c->n_pools; pi++) {
		const struct pool *p = &c->pools[pi];
		int total = pool_gpus(p);
		for (int tp = 1; tp <= p->gpus_per_node; tp *= 2) {
			if (fix_tp && tp != fix_tp)
				continue;
			for (int pp = 1; pp <= 8; pp *= 2) {
				if (fix_pp && pp != fix_pp)
					continue;
				/* an engine that refuses its overlap
				 * scheduler with pipelines (vLLM
				 * --async-scheduling) */
				if (pp > 1 && serve_overlap_on(base) &&
				    serve_engine(base->engine)->overlap_no_pp)
					break;
				if (tp * pp > total || pp > m->layers)
					break;
				struct serve_config cfg = *base;
				cfg.tp = tp;
				cfg.pp = pp;
				struct serve_load ld = { isl, osl, 0, 0, 0, 0 };
				struct serve_result r;
				struct pool pc = *p;
				if (pc.nodes_max > 0)
					pc.nodes = pc.nodes_max;
				if (serve_evaluate(&pc, m, &cfg, &ld, k, &r, NULL) < 0)
					continue;
				if (!r.fits) {
					/* nearest miss: the most memory per instance,
					 * unless one that fits missed only the SLOs */
					double mem = r.capacity_bytes_gpu * tp * pp;
					if (nearest && !near_fits && mem > best_near) {
						best_near = mem;
						*nearest = r;
						if (nearest_cand) {
							memset(nearest_cand, 0, sizeof *nearest_cand);
							nearest_cand->pool = pi;
							nearest_cand->cfg = cfg;
							nearest_cand->gpus = tp * pp;
						}
					}
					continue;
				}
				if (n == max_out)
					return n;
				struct serve_cand *cd = &out[n];
				memset(cd, 0, sizeof *cd);
				cd->pool = pi;
				cd->cfg = cfg;
				cd->gpus = tp * pp;
				cd->usd_per_hour = p->usd_per_node_h / p->gpus_per_node * tp * pp;
				cd->res = r;
				int any = 0;
				for (int j = 0; j < nb; j++) {
					cd->mu[j] = serve_max_rate(&pc, m, &cfg, b[j].isl, b[j].osl,
								   slo, k);
					any |= cd->mu[j] > 0;
				}
				if (any) {
					n++;
				} else if (nearest && (!near_fits || r.tpot_min_s < nearest->tpot_min_s)) {
					/* fits, misses the SLOs even alone: nearer
					 * than any that does not fit; the fastest */
					near_fits = 1;
					*nearest = r;
					if (nearest_cand)
						*nearest_cand = *cd;
				}
				/* a larger pp for the same tp only adds GPUs to an
				 * instance that already fits */
				if (!fix_pp)
					break;
			}
		}
	}
	return n;
}

/* What the plan's instances cost an hour rented as whole nodes, as a cloud
 * sells them (an H100 instance, p5.48xlarge, is 8 GPUs) and as training
 * prices a plan (perf.c): per pool, its instances' GPUs rounded up to
 * nodes at the node price. Sets pl->nodes, pl->usd_per_hour and
 * pl->price_known; usd_per_mtok from pl->out_tps. */
static void plan_price_nodes(const struct cluster *c, struct serve_plan *pl)
{
	long gpus[HP_MAX_POOLS] = { 0 };
	for (int i = 0; i < pl->n_inst; i++) {
		const struct serve_plan_inst *in = &pl->inst[i];
		if (in->pool >= 0 && in->pool < c->n_pools)
			gpus[in->pool] += (long)in->tp * in->pp * in->count;
	}
	pl->usd_per_hour = 0;
	pl->price_known = 1;
	for (int p = 0; p < c->n_pools; p++) {
		const struct pool *po = &c->pools[p];
		int gpn = po->gpus_per_node > 0 ? po->gpus_per_node : 1;
		pl->nodes[p] = (int)((gpus[p] + gpn - 1) / gpn);
		if (!pl->nodes[p])
			continue;
		if (!pool_price_known(po))
			pl->price_known = 0;
		pl->usd_per_hour += pl->nodes[p] * po->usd_per_node_h;
	}
	pl->usd_per_mtok = pl->out_tps > 0 ? pl->usd_per_hour / (pl->out_tps * 3600) * 1e6 : 0;
}

/* --- fleet ILP --------------------------------------------------------------- */

/* The fleet ILP under construction: y_k (copies of configuration k),
 * z_kr (req/s of bucket r routed to k; -1 where k cannot serve r), alpha
 * (the served share, throughput objective only), and scratch rows. */
struct fleet_lp {
	struct lp *lp;
	int K, R, thr;
	int *ycol, *zcol, acol;
	int ncol[HP_MAX_POOLS];  /* n_p, whole nodes of pool p; -1: per instance */
	int *idx;
	double *cf;
};

static void fleet_columns(const struct fleet_problem *fp, struct fleet_lp *f)
{
	int K = f->K, R = f->R;
	double cost_sum = 0;
	for (int k = 0; k < K; k++)
		cost_sum += fp->cost[k];
	/* throughput: max alpha, cost a tie-break worth less than 1e-4 of a
	 * unit of alpha over the whole candidate list */
	double eps = cost_sum > 0 ? 1e-4 / cost_sum : 0;
	/* Whole nodes: n_p costs the node price; an instance on such a pool
	 * costs 1e-4 of its own share, so the fewest instances fill the
	 * nodes paid for (idle copies are never free). */
	for (int p = 0; p < HP_MAX_POOLS; p++) {
		f->ncol[p] = -1;
		if (p >= fp->n_pools || !fp->node_cost || !(fp->node_cost[p] > 0) ||
		    !fp->node_gpus || fp->node_gpus[p] < 1)
			continue;
		double hi = fp->pool_gpus[p] >= 0
				    ? ceil((double)fp->pool_gpus[p] / fp->node_gpus[p]) : -1;
		double c = fp->node_cost[p];
		f->ncol[p] = lp_add_col(f->lp, 0, hi, f->thr ? -eps * c : c, 1);
	}
	for (int k = 0; k < K; k++) {
		double hi = -1;
		int pl = fp->pool[k];
		if (pl >= 0 && pl < fp->n_pools && fp->pool_gpus[pl] >= 0)
			hi = fp->pool_gpus[pl] / (fp->gpus[k] > 0 ? fp->gpus[k] : 1);
		double c = pl >= 0 && pl < HP_MAX_POOLS && f->ncol[pl] >= 0 ? 1e-4 * fp->cost[k]
									       : fp->cost[k];
		f->ycol[k] = lp_add_col(f->lp, 0, hi, f->thr ? -eps * c : c, 1);
	}
	for (int k = 0; k < K; k++)
		for (int r = 0; r < R; r++)
			f->zcol[k * R + r] = fp->mu[k * R + r] > 0 ? lp_add_col(f->lp, 0, -1, 0, 0) : -1;
	f->acol = f->thr ? lp_add_col(f->lp, 0, -1, 1, 0) : -1;
}

/* Disaggregated pairs: what prefill instances take of bucket r, decode
 * instances take too. */
static void fleet_pair_row(const struct fleet_problem *fp, struct fleet_lp *f, int r)
{
	int K = f->K, R = f->R, nb = 0;
	int *ib = xmalloc((size_t)(K + 1) * sizeof *ib);
	double *cb = xmalloc((size_t)(K + 1) * sizeof *cb);
	for (int k = 0; k < K; k++)
		if (f->zcol[k * R + r] >= 0 && fp->role[k] != ROLE_BOTH) {
			ib[nb] = f->zcol[k * R + r];
			cb[nb++] = fp->role[k] == ROLE_PREFILL ? 1 : -1;
		}
	if (nb)
		lp_add_row(f->lp, nb, ib, cb, 0, 0);
	free(ib);
	free(cb);
}

/* Demand: sum_k z_kr = lambda_r (cost) or alpha lambda_r (throughput). */
static void fleet_demand_rows(const struct fleet_problem *fp, struct fleet_lp *f)
{
	int K = f->K, R = f->R, any_split = 0;
	for (int k = 0; k < K; k++)
		any_split |= fp->role && fp->role[k] != ROLE_BOTH;
	for (int r = 0; r < R; r++) {
		int n = 0;
		for (int k = 0; k < K; k++)
			if (f->zcol[k * R + r] >= 0 && (!fp->role || fp->role[k] != ROLE_DECODE)) {
				f->idx[n] = f->zcol[k * R + r];
				f->cf[n++] = 1;
			}
		if (any_split)
			fleet_pair_row(fp, f, r);
		if (f->thr) {
			f->idx[n] = f->acol;
			f->cf[n++] = -fp->rate[r];
			lp_add_row(f->lp, n, f->idx, f->cf, 0, 0);
		} else {
			lp_add_row(f->lp, n, f->idx, f->cf, fp->rate[r], fp->rate[r]);
		}
	}
}

/* Capacity: sum_r z_kr / mu_kr <= y_k; GPUs per pool within its limit. */
static void fleet_capacity_rows(const struct fleet_problem *fp, struct fleet_lp *f)
{
	int K = f->K, R = f->R;
	for (int k = 0; k < K; k++) {
		int n = 0;
		for (int r = 0; r < R; r++)
			if (f->zcol[k * R + r] >= 0) {
				f->idx[n] = f->zcol[k * R + r];
				f->cf[n++] = 1 / fp->mu[k * R + r];
			}
		f->idx[n] = f->ycol[k];
		f->cf[n++] = -1;
		lp_add_row(f->lp, n, f->idx, f->cf, -HUGE_VAL, 0);
	}
	for (int p = 0; p < fp->n_pools; p++) {
		if (fp->pool_gpus[p] < 0)
			continue;
		int n = 0;
		for (int k = 0; k < K && n < K; k++)
			if (fp->pool[k] == p) {
				f->idx[n] = f->ycol[k];
				f->cf[n++] = fp->gpus[k];
			}
		if (n)
			lp_add_row(f->lp, n, f->idx, f->cf, -HUGE_VAL, fp->pool_gpus[p]);
	}
	/* whole nodes: sum_k gpus_k y_k - node_gpus_p n_p <= 0 */
	for (int p = 0; p < fp->n_pools && p < HP_MAX_POOLS; p++) {
		if (f->ncol[p] < 0)
			continue;
		int n = 0;
		for (int k = 0; k < K; k++)
			if (fp->pool[k] == p) {
				f->idx[n] = f->ycol[k];
				f->cf[n++] = fp->gpus[k];
			}
		f->idx[n] = f->ncol[p];
		f->cf[n++] = -fp->node_gpus[p];
		lp_add_row(f->lp, n, f->idx, f->cf, -HUGE_VAL, 0);
	}
}

/* The solution: counts (rounded up to the load they carry), routes, cost. */
static void fleet_read(const struct fleet_problem *fp, const struct fleet_lp *f,
		       const struct lp_result *lr, double unscale, struct fleet_solution *sol)
{
	int K = f->K, R = f->R;
	long gpus[HP_MAX_POOLS] = { 0 };
	sol->alpha = f->thr ? lp_value(f->lp, f->acol) : 1;
	sol->obj = 0;
	for (int k = 0; k < K; k++) {
		sol->count[k] = (int)llround(lp_value(f->lp, f->ycol[k]));
		double load = 0;
		for (int r = 0; r < R; r++) {
			int zc = f->zcol[k * R + r];
			sol->route[k][r] = zc >= 0 ? lp_value(f->lp, zc) * unscale : 0;
			if (sol->route[k][r] > 0)
				load += sol->route[k][r] / fp->mu[k * R + r];
		}
		/* GLPK takes y within 1e-5 of an integer as integral, so a
		 * configuration loaded to 1e-6 of one copy (a tiny rate on a
		 * fast instance) can come back with y = 0: it needs one */
		if (load > sol->count[k] + 1e-9)
			sol->count[k] = (int)ceil(load - 1e-9);
		/* below the tolerance altogether (1e-9 req/s on an instance
		 * that serves 300): a configuration that carries any load
		 * is at least one copy */
		if (!f->thr && load > 0 && sol->count[k] < 1) {
			double share = 0;
			for (int r = 0; r < R; r++)
				if (fp->rate[r] > 0)
					share += sol->route[k][r] / fp->rate[r];
			if (share > 1e-6)
				sol->count[k] = 1;
		}
		int pl = fp->pool[k];
		if (pl >= 0 && pl < HP_MAX_POOLS && f->ncol[pl] >= 0)
			gpus[pl] += fp->gpus[k] * sol->count[k];
		else
			sol->obj += fp->cost[k] * sol->count[k];
	}
	for (int p = 0; p < HP_MAX_POOLS; p++)
		if (f->ncol[p] >= 0)
			sol->obj += fp->node_cost[p] * ceil((double)gpus[p] / fp->node_gpus[p]);
	if (f->thr)
		sol->obj = sol->alpha;
	sol->bound = lr->bound;
}

int serve_fleet_solve(const struct fleet_problem *fp, struct fleet_solution *sol,
		      struct hp_err *err)
{
	memset(sol, 0, sizeof *sol);
	int K = fp->n_cands, R = fp->n_buckets;
	if (K < 1 || K > SERVE_MAX_CANDS || R < 1 || R > SERVE_MAX_BUCKETS)
		return hp_err_set(err, HP_EXIT_USAGE, "fleet: %d candidates, %d buckets (limits %d, %d)",
				  K, R, SERVE_MAX_CANDS, SERVE_MAX_BUCKETS);
	double t0 = hp_now();
	struct fleet_lp f = { .K = K, .R = R, .thr = fp->objective == SERVE_OBJ_THROUGHPUT };
	f.lp = lp_new(f.thr);
	f.ycol = xcalloc((size_t)K, sizeof *f.ycol);
	f.zcol = xmalloc((size_t)K * R * sizeof *f.zcol);
	f.idx = xmalloc((size_t)(K + R + 2) * sizeof *f.idx);
	f.cf = xmalloc((size_t)(K + R + 2) * sizeof *f.cf);
	/* A tiny demand (1e-6 req/s: one request in 11 days) puts every
	 * route below GLPK's feasibility tolerance (1e-7), and the solver
	 * answered "infeasible" where one instance serves it. The rows are
	 * solved in units that make the cost-mode demand 1 req/s: the rates
	 * and the instances' capacities scaled alike leave the capacity
	 * rows (z / mu <= y) and the answer unchanged; routes come back in
	 * req/s. */
	struct fleet_problem sp = *fp;
	double unscale = 1, tot = 0;
	double *rs = NULL, *ms = NULL;
	for (int r = 0; r < R; r++)
		tot += fp->rate[r] > 0 ? fp->rate[r] : 0;
	if (!f.thr && tot > 0 && tot < 1) {
		/* shares of the demand (no overflow). A capacity above 1e9
		 * shares a second is infinite, its row coefficient 0 (GLPK
		 * fails on coefficients near 1e-20): one copy of it serves
		 * the whole demand, and fleet_read gives a configuration
		 * that carries any its one copy */
		unscale = tot;
		rs = xmalloc((size_t)R * sizeof *rs);
		ms = xmalloc((size_t)K * R * sizeof *ms);
		for (int r = 0; r < R; r++)
			rs[r] = fp->rate[r] / tot;
		for (int i = 0; i < K * R; i++)
			ms[i] = fp->mu[i] / tot > 1e9 ? INFINITY : fp->mu[i] / tot;
		sp.rate = rs;
		sp.mu = ms;
	}
	fleet_columns(&sp, &f);
	fleet_demand_rows(&sp, &f);
	fleet_capacity_rows(&sp, &f);
	struct lp_result lr;
	lp_solve(f.lp, 50000, &lr);
	sol->status = lr.status;
	sol->gap = lr.gap;
	if (lr.status == LP_OPTIMAL || lr.status == LP_FEASIBLE)
		fleet_read(fp, &f, &lr, unscale, sol);
	free(rs);
	free(ms);
	free(f.idx);
	free(f.cf);
	free(f.ycol);
	free(f.zcol);
	lp_free(f.lp);
	sol->seconds = hp_now() - t0;
	return 0;
}

/* --- placement MILP -------------------------------------------------------- */

/* The placement MILP under construction: per segment s (class sq[s]
 * holding blocks sa[s] .. sa[s] + sl[s] - 1) the machine count ncol[s];
 * per edge (blocks a .. a + len - 1, whatever the class) the flow
 * ecol[a * (B + 1) + len] (-1: no segment there), fcol[s] the edge of
 * segment s; the total flow Fcol; scratch rows. Machines of every class
 * on one edge are parallel arcs between the same two boundaries, so one
 * flow per edge, at most the sum of their capacities, is the same max
 * flow as one per segment, with fewer rows and columns: 70B over an
 * H100 and an L40S node, 2,000 segments on 820 edges. */
struct place_lp {
	struct lp *lp;
	double ub;                   /* no machine carries more (place_upper_bound) */
	int S, Fcol;
	int *sq, *sa, *sl, *ncol, *fcol;
	int *ecol;
	int *idx;
	double *cf;
};

/* Units of its group's inventory one machine of pc takes (at least 1). */
static int place_cls_units(const struct place_class *pc)
{
	return pc->units > 0 ? pc->units : 1;
}

/* 1 when group gr is a shared inventory with a limit (group_cap). */
static int place_group_shared(const struct place_problem *pp, int gr)
{
	return gr >= 0 && gr < PLACE_MAX_CLASSES && pp->group_cap[gr] > 0;
}

/* 1 when a machine of class q holding len blocks is never needed (its
 * columns are left out with pp->prune; serve_search.h): a
 * class r of the same inventory group whose machines take a whole
 * fraction of q's units (TP 1 against TP 2 of one pool) holds len blocks
 * too, and units(q) / units(r) of them carry at least q's tokens/s. Any
 * placement with a q machine on a segment of that length keeps its flow,
 * its cover and its inventory with those r machines on the same segment
 * in its place (r's own machine count is bounded by the group's units,
 * which do not change), so the MILP's optimum is the same without q's
 * columns of that length, and a third to two thirds of the columns go
 * (tests/test_serve_search.c: placement_prune_sound). */
int place_column_pruned(const struct place_problem *pp, int q, int len)
{
	const struct place_class *pc = &pp->cls[q];
	int uq = place_cls_units(pc);
	if (pp->group_cap[pc->group] <= 0)
		return 0;   /* no shared inventory: nothing stands in */
	for (int r = 0; r < pp->n_classes; r++) {
		const struct place_class *rc = &pp->cls[r];
		int ur = place_cls_units(rc);
		if (r == q || rc->group != pc->group || ur >= uq || uq % ur || rc->count <= 0 ||
		    len > rc->max_blocks || !(rc->theta[len] > 0))
			continue;
		if ((double)(uq / ur) * rc->theta[len] >= pc->theta[len] &&
		    (long long)rc->count * ur >= (long long)pc->count * uq)
			return 1;
	}
	return 0;
}

static void place_columns(const struct place_problem *pp, struct place_lp *g)
{
	int Q = pp->n_classes, B = pp->n_blocks;
	for (int q = 0; q < Q; q++) {
		const struct place_class *pc = &pp->cls[q];
		if (pc->count <= 0)
			continue;
		for (int len = 1; len <= pc->max_blocks && len <= B; len++) {
			if (!(pc->theta[len] > 0) || (pp->prune && place_column_pruned(pp, q, len)))
				continue;
			for (int a = 0; a + len <= B; a++) {
				int S = g->S++;
				g->sq[S] = q;
				g->sa[S] = a;
				g->sl[S] = len;
				/* a machine costs 1e-6 of a token/s: idle ones are
				 * left out, never at the expense of flow */
				g->ncol[S] = lp_add_col(g->lp, 0, pc->count, -1e-6, 1);
			}
		}
	}
	for (int s = 0; s < g->S; s++) {
		int *e = &g->ecol[g->sa[s] * (B + 1) + g->sl[s]];
		if (*e < 0)
			*e = lp_add_col(g->lp, 0, -1, 0, 0);
		g->fcol[s] = *e;
	}
	g->Fcol = lp_add_col(g->lp, 0, -1, 1, 0);
}

/* Machines per class, and per shared inventory group. */
static void place_inventory_rows(const struct place_problem *pp, struct place_lp *g)
{
	for (int q = 0; q < pp->n_classes; q++) {
		int n = 0;
		for (int s = 0; s < g->S; s++)
			if (g->sq[s] == q) {
				g->idx[n] = g->ncol[s];
				g->cf[n++] = 1;
			}
		if (n)
			lp_add_row(g->lp, n, g->idx, g->cf, -HUGE_VAL, pp->cls[q].count);
	}
	for (int gr = 0; gr < PLACE_MAX_CLASSES; gr++) {
		if (pp->group_cap[gr] <= 0)
			continue;
		int n = 0;
		for (int s = 0; s < g->S; s++) {
			const struct place_class *pc = &pp->cls[g->sq[s]];
			if (pc->group == gr) {
				g->idx[n] = g->ncol[s];
				g->cf[n++] = place_cls_units(pc);
			}
		}
		if (n)
			lp_add_row(g->lp, n, g->idx, g->cf, -HUGE_VAL, pp->group_cap[gr]);
	}
}

/* Capacity f_e <= sum of theta(len) n_s over the segments s on edge e;
 * conservation at boundaries 0..B: into boundary b = edges ending at b-1
 * (or the source at 0), out = edges starting at b (or the sink at B). */
static void place_flow_rows(const struct place_problem *pp, struct place_lp *g)
{
	int B = pp->n_blocks;
	for (int a = 0; a < B; a++)
		for (int len = 1; a + len <= B; len++) {
			int e = g->ecol[a * (B + 1) + len], n = 0;
			if (e < 0)
				continue;
			g->idx[n] = e;
			g->cf[n++] = 1;
			for (int s = 0; s < g->S; s++)
				if (g->fcol[s] == e) {
					g->idx[n] = g->ncol[s];
					g->cf[n++] = -fmin(pp->cls[g->sq[s]].theta[len], g->ub);
				}
			lp_add_row(g->lp, n, g->idx, g->cf, -HUGE_VAL, 0);
		}
	for (int bd = 0; bd <= B; bd++) {
		int n = 0;
		for (int a = 0; a < B; a++)
			for (int len = 1; a + len <= B; len++) {
				int e = g->ecol[a * (B + 1) + len];
				if (e < 0 || (a + len != bd && a != bd))
					continue;
				g->idx[n] = e;
				g->cf[n++] = a + len == bd ? 1 : -1;
			}
		if (bd == 0 || bd == B) {
			g->idx[n] = g->Fcol;
			g->cf[n++] = bd == 0 ? 1 : -1;
		}
		lp_add_row(g->lp, n, g->idx, g->cf, 0, 0);
	}
}

/* Cover: every block is held by some machine (valid once F > 0). */
static void place_cover_rows(const struct place_problem *pp, struct place_lp *g)
{
	for (int bl = 0; bl < pp->n_blocks; bl++) {
		int n = 0;
		for (int s = 0; s < g->S; s++)
			if (g->sa[s] <= bl && bl < g->sa[s] + g->sl[s]) {
				g->idx[n] = g->ncol[s];
				g->cf[n++] = 1;
			}
		lp_add_row(g->lp, n, g->idx, g->cf, 1, HUGE_VAL);
	}
}

static void place_read(const struct place_problem *pp, const struct place_lp *g,
		       const struct lp_result *lr, struct place_solution *sol)
{
	sol->flow = lp_value(g->lp, g->Fcol);
	sol->bound = lr->bound;
	sol->gap = lr->gap;
	for (int s = 0; s < g->S && sol->n_segs < PLACE_MAX_SEGS; s++) {
		int cnt = (int)llround(lp_value(g->lp, g->ncol[s]));
		if (cnt <= 0)
			continue;
		/* the edge's flow, shared by the segments on it by capacity */
		double own = cnt * pp->cls[g->sq[s]].theta[g->sl[s]], all = 0;
		for (int t = 0; t < g->S; t++)
			if (g->fcol[t] == g->fcol[s])
				all += llround(lp_value(g->lp, g->ncol[t])) *
				       pp->cls[g->sq[t]].theta[g->sl[t]];
		double f = all > 0 ? lp_value(g->lp, g->fcol[s]) * own / all : 0;
		struct place_seg *sg = &sol->seg[sol->n_segs++];
		sg->cls = g->sq[s];
		sg->first = g->sa[s];
		sg->last = g->sa[s] + g->sl[s] - 1;
		sg->count = cnt;
		sg->flow = f > 0 ? f : 0;
	}
}

/* --- placement: the bound and the staged start ------------------------------ */

/* The flow F* of any placement is at most the U of place_upper, and a
 * staged placement (place_staged) reaches close to it; the MILP only has
 * the gap between them to close, and none when they meet.
 *
 * The bound. Blocks take no part in a machine's tokens/s but their number
 * (a class's theta depends on the length it holds, not where), and every
 * request crosses every block once: at each block the machines holding it
 * carry F* between them. So F* x B = sum over machines of (its flow x its
 * length), and a machine's flow is at most its theta at that length and at
 * most F* (it is one of the machines every request meets at its blocks).
 * Hence F* x B <= A(F*), A(F) the most that sum of min(theta(len), F) x len
 * reaches over the machines the inventory allows. A(F) / F does not grow
 * with F, so every F with F x B <= A(F) is at most U = the largest such F
 * (bisection). Without the "at most F*" the bound is the LP relaxation's
 * (a machine of short layers counts its full tokens/s though no request
 * needs it). A(F): each group's units to its machines of the best value
 * per unit (a fractional knapsack, an upper bound of the whole-machine
 * one and equal to it when every class alone fills the group, as a pool's
 * TP degrees do). */
static double place_machine_area(const struct place_class *pc, int B, double F)
{
	double v = 0;
	for (int len = 1; len <= pc->max_blocks && len <= B; len++) {
		double a = (pc->theta[len] < F ? pc->theta[len] : F) * len;
		if (pc->theta[len] > 0 && a > v)
			v = a;
	}
	return v;
}

static double place_area(const struct place_problem *pp, double F)
{
	double tot = 0;
	int done[PLACE_MAX_CLASSES] = { 0 };
	for (int q = 0; q < pp->n_classes; q++) {
		const struct place_class *pc = &pp->cls[q];
		if (done[q] || pc->count <= 0)
			continue;
		int gr = pc->group;
		if (!place_group_shared(pp, gr)) {
			tot += pc->count * place_machine_area(pc, pp->n_blocks, F);
			done[q] = 1;
			continue;
		}
		/* the group: its units to the best value per unit first */
		double left = pp->group_cap[gr];
		for (;;) {
			int best = -1;
			double bv = 0;
			for (int r = 0; r < pp->n_classes; r++) {
				const struct place_class *rc = &pp->cls[r];
				if (done[r] || rc->group != gr || rc->count <= 0)
					continue;
				double v = place_machine_area(rc, pp->n_blocks, F) / place_cls_units(rc);
				if (best < 0 || v > bv) {
					best = r;
					bv = v;
				}
			}
			if (best < 0)
				break;
			const struct place_class *bc = &pp->cls[best];
			double u = (double)bc->count * place_cls_units(bc);
			double take = u < left ? u : left;
			tot += take * bv;
			left -= take;
			done[best] = 1;
		}
	}
	return tot;
}

double place_upper_bound(const struct place_problem *pp)
{
	double hi = 0;
	for (int q = 0; q < pp->n_classes; q++)
		for (int len = 1; len <= pp->cls[q].max_blocks && len <= pp->n_blocks; len++)
			hi += pp->cls[q].count * (pp->cls[q].theta[len] > 0 ? pp->cls[q].theta[len] : 0);
	double lo = 0;
	if (!(place_area(pp, hi) >= hi * pp->n_blocks))
		for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
			double mid = 0.5 * (lo + hi);
			if (place_area(pp, mid) >= mid * pp->n_blocks)
				lo = mid;
			else
				hi = mid;
		}
	return hi;
}

/* The staged start: blocks [0, B) cut into stages, each held by parallel
 * machines of one group that all hold the stage's blocks, the flow the
 * least stage's tokens/s. For a target F, a stage of l blocks is a set of
 * at most PLACE_STAGE_MIX machines (or k of one class) whose thetas at l
 * add to F or more; per group the fewest units that cover exactly b
 * blocks (an unbounded knapsack over b), then the groups' block counts
 * summed to exactly B. Bisection on F. A heuristic: it never exceeds the
 * optimum, and the MILP or the bound says how far below it is. */
#define PLACE_STAGE_MIX 3
/* Relative distance at which a flow meets the bound: the bisections' */
#define PLACE_GAP_CLOSED 1e-9
/* Past this many machine columns the MILP does not run after a staged
 * start: 70B over two 8-GPU pools has 2,000 and GLPK spent 2-5 s of
 * CPU on 500 nodes there without finding a better placement (qa6
 * round), where small problems (the tests' brute-force cases, under
 * 200) close in milliseconds. */
#define PLACE_MILP_MAX_COLS 1000

struct place_item {
	int units, len;
	int cls[PLACE_STAGE_MIX], n;   /* machines: n classes, or k of cls[0] */
	int k;                         /* > 0: k machines of cls[0] */
};

struct place_stager {
	const struct place_problem *pp;
	int B, n_items;
	struct place_item *item;
	int *grp;                      /* item's group */
	long long *minu;               /* [group][b]: fewest units for b blocks */
	int *pick;                     /* [group][b]: last item */
	int *reach;                    /* [group + 1][b]: blocks of group g (-1 no) */
};

static int place_item_units(const struct place_problem *pp, const struct place_item *it)
{
	int u = 0;
	for (int i = 0; i < it->n; i++)
		u += (it->k > 0 ? it->k : 1) * place_cls_units(&pp->cls[it->cls[i]]);
	return u;
}

static double place_item_theta(const struct place_problem *pp, const struct place_item *it, int len)
{
	double th = 0;
	for (int i = 0; i < it->n; i++) {
		const struct place_class *pc = &pp->cls[it->cls[i]];
		if (len > pc->max_blocks || !(pc->theta[len] > 0))
			return 0;
		th += (it->k > 0 ? it->k : 1) * pc->theta[len];
	}
	return th;
}

static int place_group_units(const struct place_problem *pp, int gr, int q)
{
	if (place_group_shared(pp, gr))
		return pp->group_cap[gr];
	return pp->cls[q].count * place_cls_units(&pp->cls[q]);
}

/* The classes of q's group (or q alone without a shared inventory). */
static int place_group_classes(const struct place_problem *pp, int q, int *out)
{
	int gr = pp->cls[q].group, n = 0;
	if (!place_group_shared(pp, gr)) {
		out[n++] = q;
		return n;
	}
	for (int r = 0; r < pp->n_classes; r++)
		if (pp->cls[r].group == gr && pp->cls[r].count > 0)
			out[n++] = r;
	return n;
}

/* Items at target F into st (the combinations are the same at every F;
 * the lengths that reach F are not). */
static void place_stage_items(struct place_stager *st, double F)
{
	const struct place_problem *pp = st->pp;
	st->n_items = 0;
	int seen[PLACE_MAX_CLASSES] = { 0 };
	for (int q = 0; q < pp->n_classes; q++) {
		if (seen[q] || pp->cls[q].count <= 0)
			continue;
		int cl[PLACE_MAX_CLASSES], nc = place_group_classes(pp, q, cl);
		for (int i = 0; i < nc; i++)
			seen[cl[i]] = 1;
		int gid = q;   /* the group's first class names it */
		int cap = place_group_units(pp, pp->cls[q].group, q);
		/* mixes of up to PLACE_STAGE_MIX machines (a multiset) */
		int idx[PLACE_STAGE_MIX];
		for (int m = 1; m <= PLACE_STAGE_MIX; m++) {
			for (int i = 0; i < m; i++)
				idx[i] = 0;
			for (;;) {
				struct place_item it = { .n = m };
				for (int i = 0; i < m; i++)
					it.cls[i] = cl[idx[i]];
				it.units = place_item_units(pp, &it);
				int ok = it.units <= cap;
				for (int i = 0; i < m && ok; i++) {
					int same = 0;
					for (int j = 0; j < m; j++)
						same += it.cls[j] == it.cls[i];
					ok = same <= pp->cls[it.cls[i]].count;
				}
				for (int len = 1; ok && len <= st->B; len++)
					if (place_item_theta(pp, &it, len) >= F) {
						it.len = len;
						st->item[st->n_items] = it;
						st->grp[st->n_items++] = gid;
					}
				/* next multiset: idx non-decreasing */
				int i = m - 1;
				while (i >= 0 && idx[i] == nc - 1)
					i--;
				if (i < 0)
					break;
				idx[i]++;
				for (int j = i + 1; j < m; j++)
					idx[j] = idx[i];
			}
		}
		/* k machines of one class, the fewest that reach F */
		for (int i = 0; i < nc; i++) {
			const struct place_class *pc = &pp->cls[cl[i]];
			for (int len = 1; len <= pc->max_blocks && len <= st->B; len++) {
				if (!(pc->theta[len] > 0))
					continue;
				double k = ceil(F / pc->theta[len]);
				if (k <= PLACE_STAGE_MIX || k > pc->count)
					continue;
				struct place_item it = { .n = 1, .k = (int)k, .len = len };
				it.cls[0] = cl[i];
				it.units = place_item_units(pp, &it);
				if (it.units > cap)
					continue;
				st->item[st->n_items] = it;
				st->grp[st->n_items++] = gid;
			}
		}
	}
}

/* 1 when stages at target F cover exactly B blocks within every group's
 * units; st's tables then hold the choice. */
static int place_stage_feasible(struct place_stager *st, double F)
{
	const struct place_problem *pp = st->pp;
	int B = st->B, Q = pp->n_classes;
	place_stage_items(st, F);
	for (int g = 0; g < Q; g++)
		for (int b = 0; b <= B; b++) {
			st->minu[g * (B + 1) + b] = b ? LLONG_MAX : 0;
			st->pick[g * (B + 1) + b] = -1;
		}
	for (int b = 1; b <= B; b++)
		for (int i = 0; i < st->n_items; i++) {
			const struct place_item *it = &st->item[i];
			int g = st->grp[i];
			if (it->len > b)
				continue;
			long long p = st->minu[g * (B + 1) + b - it->len];
			if (p == LLONG_MAX)
				continue;
			if (p + it->units < st->minu[g * (B + 1) + b]) {
				st->minu[g * (B + 1) + b] = p + it->units;
				st->pick[g * (B + 1) + b] = i;
			}
		}
	/* the groups in class order: reach[g + 1][b] = blocks group g takes */
	for (int b = 0; b <= B; b++)
		st->reach[b] = b ? -2 : 0;
	for (int g = 0; g < Q; g++) {
		int *prv = &st->reach[g * (B + 1)], *cur = &st->reach[(g + 1) * (B + 1)];
		int cap = pp->cls[g].count > 0 ? place_group_units(pp, pp->cls[g].group, g) : -1;
		for (int b = 0; b <= B; b++)
			cur[b] = prv[b] != -2 ? 0 : -2;
		int first = 1;   /* g names its group when no earlier class shares it */
		for (int r = 0; r < g; r++)
			if (pp->cls[r].count > 0 && pp->cls[r].group == pp->cls[g].group &&
			    place_group_shared(pp, pp->cls[g].group))
				first = 0;
		if (cap < 0 || !first)
			continue;
		for (int b = 0; b <= B; b++) {
			if (cur[b] != -2)
				continue;
			for (int x = 1; x <= b; x++)
				if (prv[b - x] != -2 && st->minu[g * (B + 1) + x] <= cap) {
					cur[b] = x;
					break;
				}
		}
	}
	return st->reach[Q * (B + 1) + B] != -2;
}

/* The stages of the last feasible check as segments of ps (one per
 * class on a stage); 1, or 0 when they break a class's count (the check
 * bounds units only). The flow: an exact max flow of the layout. */
static int place_stage_layout(struct place_stager *st, struct place_solution *ps)
{
	const struct place_problem *pp = st->pp;
	int B = st->B, Q = pp->n_classes, b = B, at = 0;
	int used[PLACE_MAX_CLASSES] = { 0 };
	memset(ps, 0, sizeof *ps);
	for (int g = Q - 1; g >= 0; g--) {
		int x = st->reach[(g + 1) * (B + 1) + b];
		b -= x;
		/* group g's x blocks, item by item */
		for (int y = x; y > 0;) {
			const struct place_item *it = &st->item[st->pick[g * (B + 1) + y]];
			for (int i = 0; i < it->n; i++) {
				int q = it->cls[i], k = it->k > 0 ? it->k : 1, found = 0;
				used[q] += k;
				for (int s = 0; s < ps->n_segs; s++)
					if (ps->seg[s].cls == q && ps->seg[s].first == at) {
						ps->seg[s].count += k;
						found = 1;
					}
				if (!found) {
					if (ps->n_segs >= PLACE_MAX_SEGS)
						return 0;
					struct place_seg *sg = &ps->seg[ps->n_segs++];
					sg->cls = q;
					sg->first = at;
					sg->last = at + it->len - 1;
					sg->count = k;
				}
			}
			at += it->len;
			y -= it->len;
		}
	}
	for (int q = 0; q < Q; q++)
		if (used[q] > pp->cls[q].count)
			return 0;
	/* each stage carries the least stage's tokens/s, shared by capacity */
	double F = HUGE_VAL;
	for (int a = 0; a < B;) {
		double c = 0;
		int next = B;
		for (int s = 0; s < ps->n_segs; s++)
			if (ps->seg[s].first == a) {
				c += ps->seg[s].count * pp->cls[ps->seg[s].cls].theta[ps->seg[s].last - a + 1];
				next = ps->seg[s].last + 1;
			}
		F = c < F ? c : F;
		a = next;
	}
	for (int s = 0; s < ps->n_segs; s++) {
		struct place_seg *sg = &ps->seg[s];
		double c = 0;
		for (int t = 0; t < ps->n_segs; t++)
			if (ps->seg[t].first == sg->first)
				c += ps->seg[t].count * pp->cls[ps->seg[t].cls].theta[ps->seg[t].last - sg->first + 1];
		sg->flow = F * sg->count * pp->cls[sg->cls].theta[sg->last - sg->first + 1] / c;
	}
	ps->flow = F;
	return 1;
}

/* The best staged placement below ub into ps: its flow, 0 without one. */
static double place_staged(const struct place_problem *pp, double ub, struct place_solution *ps)
{
	struct place_stager st = { .pp = pp, .B = pp->n_blocks };
	int Q = pp->n_classes, B = st.B;
	/* a group of n classes has C(n + 2, 3) + C(n + 1, 2) + n mixes and n
	 * single-class items, each at up to B lengths: at most those of one
	 * group of all Q classes */
	size_t mixes = (size_t)(Q + 2) * (Q + 1) * Q / 6 + (size_t)(Q + 1) * Q / 2 + 2 * (size_t)Q;
	size_t cap = mixes * (size_t)B + 1;
	st.item = xmalloc(cap * sizeof *st.item);
	st.grp = xmalloc(cap * sizeof *st.grp);
	st.minu = xmalloc((size_t)Q * (size_t)(B + 1) * sizeof *st.minu);
	st.pick = xmalloc((size_t)Q * (size_t)(B + 1) * sizeof *st.pick);
	st.reach = xmalloc((size_t)(Q + 1) * (size_t)(B + 1) * sizeof *st.reach);
	double lo = 0, hi = ub * (1 + 1e-9), best = 0;
	for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (place_stage_feasible(&st, mid) && place_stage_layout(&st, ps))
			lo = mid;
		else
			hi = mid;
	}
	if (lo > 0 && place_stage_feasible(&st, lo) && place_stage_layout(&st, ps))
		best = ps->flow;
	else
		memset(ps, 0, sizeof *ps);
	free(st.item);
	free(st.grp);
	free(st.minu);
	free(st.pick);
	free(st.reach);
	return best;
}

int serve_place_solve(const struct place_problem *pp, struct place_solution *sol,
		      struct hp_err *err)
{
	memset(sol, 0, sizeof *sol);
	int Q = pp->n_classes, B = pp->n_blocks;
	if (Q < 1 || Q > PLACE_MAX_CLASSES || B < 1 || B > PLACE_MAX_BLOCKS)
		return hp_err_set(err, HP_EXIT_USAGE, "placement: %d classes, %d blocks (limits %d, %d)",
				  Q, B, PLACE_MAX_CLASSES, PLACE_MAX_BLOCKS);
	double t0 = hp_now();
	/* the bound and the staged start; met, nothing is left to search */
	double ub = place_upper_bound(pp);
	struct place_solution *st = xmalloc(sizeof *st);
	double inc = place_staged(pp, ub, st);
	if (inc > 0 && inc >= ub * (1 - PLACE_GAP_CLOSED)) {
		*sol = *st;
		free(st);
		sol->status = LP_OPTIMAL;
		sol->bound = ub;
		sol->seconds = hp_now() - t0;
		return 0;
	}
	struct place_lp g = { .lp = lp_new(1), .ub = ub };
	/* segments of each class: [a, a + len - 1] */
	size_t cap = (size_t)Q * B * B;
	g.sq = xmalloc(cap * sizeof *g.sq);
	g.sa = xmalloc(cap * sizeof *g.sa);
	g.sl = xmalloc(cap * sizeof *g.sl);
	g.ncol = xmalloc(cap * sizeof *g.ncol);
	g.fcol = xmalloc(cap * sizeof *g.fcol);
	g.ecol = xmalloc((size_t)B * (size_t)(B + 1) * sizeof *g.ecol);
	for (int i = 0; i < B * (B + 1); i++)
		g.ecol[i] = -1;
	place_columns(pp, &g);
	g.idx = xmalloc((size_t)(g.S + 2) * sizeof *g.idx);
	g.cf = xmalloc((size_t)(g.S + 2) * sizeof *g.cf);
	if (inc > 0 && g.S > PLACE_MILP_MAX_COLS) {
		/* too large to close the gap within a second: the staged
		 * placement and the gap to the bound */
		*sol = *st;
		sol->status = LP_FEASIBLE;
		sol->bound = ub;
		sol->gap = (ub - sol->flow) / sol->flow;
		goto done;
	}
	/* only a placement better than the staged one is sought: none
	 * (infeasible) proves the staged one optimal */
	if (inc > 0)
		lp_set_col(g.lp, g.Fcol, inc * (1 + PLACE_GAP_CLOSED), -1, 1);
	place_inventory_rows(pp, &g);
	place_flow_rows(pp, &g);
	place_cover_rows(pp, &g);
	struct lp_result lr;
	lp_set_cheap_branching(g.lp, 1);
	lp_solve(g.lp, pp->node_budget > 0 ? pp->node_budget : 5000, &lr);
	sol->status = lr.status;
	sol->nodes = lr.nodes;
	if (lr.status == LP_OPTIMAL || lr.status == LP_FEASIBLE) {
		place_read(pp, &g, &lr, sol);
		if (sol->bound > ub)
			sol->bound = ub;
		sol->gap = sol->flow > 0 && sol->bound > sol->flow ? (sol->bound - sol->flow) / sol->flow : 0;
	} else if (inc > 0) {
		/* nothing better: proven (infeasible), or the budget ran out
		 * (the gap to the bound stands) */
		int nodes = sol->nodes;
		*sol = *st;
		sol->nodes = nodes;
		sol->status = lr.status == LP_INFEASIBLE ? LP_OPTIMAL : LP_FEASIBLE;
		sol->bound = sol->status == LP_OPTIMAL ? sol->flow : ub;
		sol->gap = sol->status == LP_OPTIMAL ? 0 : (ub - sol->flow) / sol->flow;
	}
done:
	free(st);
	free(g.idx);
	free(g.cf);
	free(g.sq);
	free(g.sa);
	free(g.sl);
	free(g.ncol);
	free(g.fcol);
	free(g.ecol);
	lp_free(g.lp);
	sol->seconds = hp_now() - t0;
	return 0;
}

/* --- plans ------------------------------------------------------------------ */

void serve_opts_init(struct serve_opts *o)
{
	memset(o, 0, sizeof *o);
	o->isl.kind = o->osl.kind = DIST_FIXED;
	o->isl.a = 1024;
	o->osl.a = 256;
	o->base.engine = ENGINE_VLLM;
	o->base.wprec = SW_BF16;
	o->base.kvprec = SKV_BF16;
	o->n_isl_buckets = 4;
	o->n_osl_buckets = 5;
	o->top_k = 5;
}

/* Latencies of instance copy k carrying `rate` req/s of the routed mix. */
static void inst_latency(const struct cluster *c, const struct model_spec *m,
			 const struct serve_cand *cd, double rate, double isl, double osl,
			 const struct serve_calib *k, struct serve_result *r)
{
	struct pool p = c->pools[cd->pool];
	if (p.nodes_max > 0)
		p.nodes = p.nodes_max;
	struct serve_load ld = { isl, osl, rate, 0, 0, 0 };
	if (serve_evaluate(&p, m, &cd->cfg, &ld, k, r, NULL) < 0)
		memset(r, 0, sizeof *r);
}

/* 1 when another pool of c has pool q's GPU type: a label then names
 * the pool, so that two plans on different pools of one GPU type (on
 * demand and spot, two providers) do not read alike. */
static int gpu_shared(const struct cluster *c, int q)
{
	for (int j = 0; j < c->n_pools; j++)
		if (j != q && !strcmp(c->pools[j].gpu.name, c->pools[q].gpu.name))
			return 1;
	return 0;
}

/* "2x H100-SXM tp4 + 3x L40S tp1", with the pool's name after the GPU's
 * where the cluster has that GPU in more than one pool ("2x H100-SXM
 * (spot) tp4"). */
static void plan_label(struct serve_plan *pl, const struct cluster *c)
{
	/* Built whole, then cut on a character boundary: pool names are
	 * UTF-8 (cluster.c), and a byte cut could split one of their
	 * characters and leave invalid UTF-8 in the JSON. */
	char full[4 * sizeof pl->label];
	size_t o = 0;
	full[0] = 0;
	for (int i = 0; i < pl->n_inst && o < sizeof full - 1; i++) {
		const struct serve_plan_inst *in = &pl->inst[i];
		const struct pool *q = &c->pools[in->pool];
		int shared = gpu_shared(c, in->pool);
		char pp[16] = "";
		if (in->pp > 1)
			snprintf(pp, sizeof pp, "pp%d", in->pp);
		int w = snprintf(full + o, sizeof full - o, "%s%dx %s%s%s%s%s tp%d%s",
				 i ? " + " : "", in->count, q->gpu.name, shared ? " (" : "",
				 shared ? q->name : "", shared ? ")" : "",
				 in->role == ROLE_PREFILL ? " P" : in->role == ROLE_DECODE ? " D" : "",
				 in->tp, pp);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (o >= sizeof full)
		full[sizeof full - 1] = 0;
	size_t keep = utf8_cut(full, sizeof pl->label - 1);
	memcpy(pl->label, full, keep);
	pl->label[keep] = 0;
}

/* --- disaggregated prefill / decode ------------------------------------------ */

/* Bandwidth a prefill instance ships its KV caches with: its GPUs' share
 * of the node's NICs (decode instances sit on other nodes), else the
 * scale-up fabric. */
static double kv_link_Bps(const struct pool *p, int tp)
{
	double nic = p->nics * p->nic_gbps * 1e9 / 8 * tp / (p->gpus_per_node > 0 ? p->gpus_per_node : 1);
	double up = p->intra_gbyte_s > 0 ? p->intra_gbyte_s * 1e9 : p->intra_Bps;   /* measured first */
	return nic > 0 ? nic : up * tp;
}

struct pd_prefill {
	double S;           /* one prefill iteration, s */
	double n;           /* prompts per iteration */
	double kvx;         /* KV transfer of one prompt, s */
	double mu_max;      /* prompts/s at full load */
	double mu_link;     /* prompts/s the link carries */
	double ahead;       /* iterations an overlap scheduler has launched
			     * ahead (0 or 1: serve_overlap_on) */
};

/* A prefill-only instance: iterations of floor(chunk / ISL) whole prompts
 * (a longer prompt takes ceil(ISL / chunk) iterations). */
static void pd_prefill_eval(const struct pool *p, const struct model_spec *m,
			    const struct serve_config *cfg, double isl, const struct serve_calib *k,
			    struct pd_prefill *o)
{
	const struct serve_engine_profile *e = serve_engine(cfg->engine);
	double chunk = cfg->chunk_tokens > 0 ? cfg->chunk_tokens : e->chunk_tokens;
	double n = floor(chunk / isl), iters = 1, tok = isl;
	if (n < 1) {
		n = 1;
		iters = ceil(isl / chunk);
		tok = isl / iters;
	}
	struct serve_iter it = { 0, 0, n * tok, isl / 2, n, cfg->eager, 0 };
	double t = serve_stage_time(p, m, 0, m->layers, 1, cfg->tp, cfg->wprec, cfg->kvprec, &it, k,
				    NULL, NULL, NULL) + serve_step_overhead(cfg) + serve_per_seq_overhead(cfg) * n;
	o->S = t * iters;
	o->n = n;
	double bytes = isl * serve_kv_bytes_per_token(m, cfg->kvprec);
	double bw = kv_link_Bps(p, cfg->tp);
	o->kvx = bw > 0 ? bytes / bw : 0;
	o->mu_max = n / o->S;
	o->mu_link = bytes > 0 && bw > 0 ? bw / bytes : HUGE_VAL;
	o->ahead = serve_overlap_on(cfg);
}

/* TTFT of a prefill instance at `rate` prompts/s: an M/D/1 queue of
 * iterations (service S, utilisation rate / mu_max); the p99 of the wait
 * is taken as ln(100) x its mean (an exponential tail). An overlap
 * scheduler adds, while the instance is busy (probability rho), the
 * iteration it has launched ahead (serve_perf.c, "Scheduling ahead"),
 * taken as fixed. */
static void pd_prefill_ttft(const struct pd_prefill *o, double rate, double frontend,
			    struct serve_quantiles *q)
{
	double rho = rate / o->mu_max;
	if (rho >= 1 || rate >= o->mu_link) {
		q->mean = q->p50 = q->p99 = HUGE_VAL;
		return;
	}
	double w = rho * o->S / (2 * (1 - rho));
	double base = frontend + o->S + o->kvx + rho * o->ahead * o->S;
	q->mean = base + w;
	q->p50 = base + w * log(2);
	q->p99 = base + w * log(100);
}

/* Largest prompts/s within the TTFT target. */
static double pd_prefill_mu(const struct pd_prefill *o, const struct serve_slo *slo, double frontend)
{
	double rho;
	if (!serve_role_capped(ROLE_PREFILL, slo)) {
		double a = slo->ttft_p99_s - frontend - o->S - o->kvx;
		if (a <= 0)
			return 0;
		/* base + rho A + ln(100) rho S / (2 (1 - rho)) <= slo, A the
		 * iteration launched ahead: with g = ln(100) S / 2, rho A (1 -
		 * rho) + g rho <= a (1 - rho), i.e. A rho^2 - (A + g + a) rho +
		 * a >= 0, whose smaller root bounds rho; written 2a / (b +
		 * sqrt(b^2 - 4Aa)), b = A + g + a, it has no cancellation for
		 * small A and is a / (a + g) at A = 0 */
		double g = log(100) * o->S / 2, A = o->ahead * o->S, bsum = A + g + a;
		rho = 2 * a / (bsum + sqrt(bsum * bsum - 4 * A * a));
		if (rho > 0.999)
			rho = 0.999;
	} else {
		rho = SERVE_MAX_UTIL;
	}
	double mu = rho * o->mu_max;
	return mu < 0.999 * o->mu_link ? mu : 0.999 * o->mu_link;
}

/* Decode-only iteration time at batch B. */
static double pd_decode_t(const struct pool *p, const struct model_spec *m,
			  const struct serve_config *cfg, double B, double isl, double osl,
			  const struct serve_calib *k)
{
	struct serve_iter it = { B, isl + osl / 2, 0, 0, 0, cfg->eager,
				 serve_dec_attn_x(cfg, &p->gpu, m) };
	return serve_stage_time(p, m, 0, m->layers, 1, cfg->tp, cfg->wprec, cfg->kvprec, &it, k, NULL,
				NULL, NULL) + serve_step_overhead(cfg) + serve_per_seq_overhead(cfg) * B;
}

/* The decode batch limit: the engine's running-sequence limit and the KV
 * cache holding ISL + OSL per sequence (the whole prompt arrives at once). */
static double pd_decode_bmax(const struct pool *p, const struct serve_config *cfg,
			     const struct serve_result *res, double isl, double osl)
{
	const struct serve_engine_profile *e = serve_engine(cfg->engine);
	double lim = cfg->max_batch > 0 ? cfg->max_batch : e->max_batch;
	if (!(cfg->max_batch > 0) && cfg->engine == ENGINE_VLLM &&
	    serve_gpu_mem_bytes(&p->gpu) >= 70 * 1073741824.0 && p->gpu.gen != GEN_AMPERE)
		lim = 1024;
	double kvb = floor(res->kv_capacity_tokens / (isl + osl));
	return kvb < lim ? kvb : lim;
}

/* Largest requests/s a decode-only instance serves within the TPOT
 * target: the largest batch whose iteration meets it (bisection), at
 * SERVE_MAX_UTIL of that batch's rate. */
static double pd_decode_mu(const struct pool *p, const struct model_spec *m,
			   const struct serve_config *cfg, const struct serve_result *res, double isl,
			   double osl, const struct serve_slo *slo, const struct serve_calib *k)
{
	double bmax = pd_decode_bmax(p, cfg, res, isl, osl);
	if (bmax < 1)
		return 0;
	double b = bmax;
	if (slo->tpot_p99_s > 0 && pd_decode_t(p, m, cfg, bmax, isl, osl, k) > slo->tpot_p99_s) {
		if (pd_decode_t(p, m, cfg, 1, isl, osl, k) > slo->tpot_p99_s)
			return 0;
		double lo = 1, hi = bmax;
		while (hi - lo > 1) {
			double mid = floor((lo + hi) / 2);
			if (pd_decode_t(p, m, cfg, mid, isl, osl, k) <= slo->tpot_p99_s)
				lo = mid;
			else
				hi = mid;
		}
		b = lo;
	}
	return SERVE_MAX_UTIL * b / (osl * pd_decode_t(p, m, cfg, b, isl, osl, k));
}

/* TPOT of a decode instance at `rate` requests/s: the batch from Little's
 * law (fixed point), its p99 at the Poisson p99 of the batch. */
static void pd_decode_tpot(const struct pool *p, const struct model_spec *m,
			   const struct serve_config *cfg, const struct serve_result *res, double rate,
			   double isl, double osl, const struct serve_calib *k, struct serve_quantiles *q)
{
	double bmax = pd_decode_bmax(p, cfg, res, isl, osl);
	double b = 1, t = pd_decode_t(p, m, cfg, 1, isl, osl, k);
	for (int i = 0; i < 50; i++) {
		double b2 = rate * osl * t;
		if (b2 < 1)
			b2 = 1;
		if (b2 > bmax) {
			q->mean = q->p50 = q->p99 = HUGE_VAL;
			return;
		}
		double t2 = pd_decode_t(p, m, cfg, b2, isl, osl, k);
		if (fabs(b2 - b) < 1e-4 * b) {
			b = b2;
			t = t2;
			break;
		}
		b = 0.5 * (b + b2);
		t = t2;
	}
	q->mean = q->p50 = t;
	double b99 = b + 2.326 * sqrt(b);
	q->p99 = pd_decode_t(p, m, cfg, b99 < bmax ? b99 : bmax, isl, osl, k);
}

/* Add prefill-only and decode-only copies of every colocated candidate
 * with pp = 1. Returns the new count. */
static int pd_candidates(const struct cluster *c, const struct model_spec *m,
			 const struct serve_bucket *b, int R, const struct serve_slo *slo,
			 const struct serve_calib *k, struct serve_cand *cand, int K)
{
	const struct serve_calib *kk = k ? k : serve_calib_default();
	int n = K;
	for (int i = 0; i < K && n + 2 <= SERVE_MAX_CANDS; i++) {
		if (cand[i].role != ROLE_BOTH || cand[i].cfg.pp != 1)
			continue;
		struct pool p = c->pools[cand[i].pool];
		if (p.nodes_max > 0)
			p.nodes = p.nodes_max;
		struct serve_cand pc = cand[i], dc = cand[i];
		pc.role = ROLE_PREFILL;
		dc.role = ROLE_DECODE;
		int anyp = 0, anyd = 0;
		for (int r = 0; r < R; r++) {
			struct pd_prefill o;
			pd_prefill_eval(&p, m, &cand[i].cfg, b[r].isl, kk, &o);
			pc.mu[r] = pd_prefill_mu(&o, slo, kk->frontend_s);
			/* the KV capacity at this bucket's lengths */
			struct serve_load ld = { b[r].isl, b[r].osl, 0, 0, 0, 0 };
			struct serve_result res;
			if (serve_evaluate(&p, m, &cand[i].cfg, &ld, k, &res, NULL) < 0 || !res.fits)
				dc.mu[r] = 0;
			else
				dc.mu[r] = pd_decode_mu(&p, m, &cand[i].cfg, &res, b[r].isl, b[r].osl, slo, kk);
			anyp |= pc.mu[r] > 0;
			anyd |= dc.mu[r] > 0;
		}
		if (anyp && anyd) {
			cand[n++] = pc;
			cand[n++] = dc;
		}
	}
	return n;
}

/* Turn a fleet solution into a plan. */
/* viol (may be NULL) gets 1 for each candidate whose instances miss a
 * latency target at their routed load. */
static void fleet_plan(const struct cluster *c, const struct model_spec *m,
		       const struct serve_cand *cand, int K, const struct serve_bucket *b, int R,
		       const double *rate, const struct fleet_solution *fs, const struct serve_opts *o,
		       const struct serve_calib *k, struct serve_plan *pl, int *viol)
{
	if (viol)
		memset(viol, 0, sizeof(int) * (size_t)K);
	memset(pl, 0, sizeof *pl);
	pl->lp_status = fs->status;
	pl->gap = fs->gap;
	pl->price_known = 1;
	double tot_rate = 0, tot_out = 0, w_ttft = 0, w_ttft50 = 0, w_tpot = 0;
	for (int kk = 0; kk < K && pl->n_inst < SERVE_MAX_INST; kk++) {
		if (fs->count[kk] <= 0)
			continue;
		const struct serve_cand *cd = &cand[kk];
		double rr = 0, isl = 0, osl = 0;
		for (int r = 0; r < R; r++) {
			rr += fs->route[kk][r];
			isl += fs->route[kk][r] * b[r].isl;
			osl += fs->route[kk][r] * b[r].osl;
		}
		if (rr > 0) {
			isl /= rr;
			osl /= rr;
		} else {
			isl = cd->res.kv_capacity_tokens > 0 ? b[0].isl : 1;
			osl = b[0].osl;
		}
		struct serve_result lr;
		inst_latency(c, m, cd, cd->role == ROLE_BOTH ? rr / fs->count[kk] : 0, isl, osl, k, &lr);
		struct serve_quantiles ttft = lr.ttft_s, tpot = lr.tpot_s;
		double load = cd->role == ROLE_BOTH && isfinite(lr.utilisation) ? lr.utilisation : 0;
		if (cd->role != ROLE_BOTH) {
			const struct serve_calib *kc = k ? k : serve_calib_default();
			struct pool p = c->pools[cd->pool];
			if (p.nodes_max > 0)
				p.nodes = p.nodes_max;
			if (cd->role == ROLE_PREFILL) {
				struct pd_prefill pf;
				pd_prefill_eval(&p, m, &cd->cfg, isl, kc, &pf);
				pd_prefill_ttft(&pf, rr / fs->count[kk], kc->frontend_s, &ttft);
				memset(&tpot, 0, sizeof tpot);
				/* prompts/s per copy over the most it prefills (or
				 * its link carries): pd_prefill_ttft's rho */
				double mu = fmin(pf.mu_max, pf.mu_link);
				load = mu > 0 ? rr / fs->count[kk] / mu : 0;
			} else {
				pd_decode_tpot(&p, m, &cd->cfg, &lr, rr / fs->count[kk], isl, osl, kc, &tpot);
				memset(&ttft, 0, sizeof ttft);
				lr.max_batch = (int)pd_decode_bmax(&p, &cd->cfg, &lr, isl, osl);
				/* requests/s per copy over the rate at its batch limit
				 * (bmax sequences of osl tokens, one token each per
				 * iteration) */
				double bmax = lr.max_batch, mu = bmax >= 1
					? bmax / (osl * pd_decode_t(&p, m, &cd->cfg, bmax, isl, osl, kc)) : 0;
				load = mu > 0 ? rr / fs->count[kk] / mu : 0;
			}
		}
		struct serve_plan_inst *in = &pl->inst[pl->n_inst++];
		in->pool = cd->pool;
		in->role = cd->role;
		in->tp = cd->cfg.tp;
		in->pp = cd->cfg.pp;
		in->count = fs->count[kk];
		in->max_batch = lr.max_batch;
		in->kv_capacity_tokens = lr.kv_capacity_tokens;
		in->first_layer = 0;
		in->last_layer = m->layers - 1;
		in->rate = rr;
		in->tokens_per_s = rr * osl;
		in->load = isfinite(load) ? load : 0;
		/* a request counts once: at its prefill side (or its only one) */
		if (cd->role != ROLE_DECODE) {
			tot_rate += rr;
			tot_out += rr * osl;
		}
		pl->gpus += cd->gpus * fs->count[kk];
		if (viol && ((o->slo.ttft_p99_s > 0 && cd->role != ROLE_DECODE &&
			      !(ttft.p99 <= o->slo.ttft_p99_s * 1.0001)) ||
			     (o->slo.tpot_p99_s > 0 && cd->role != ROLE_PREFILL &&
			      !(tpot.p99 <= o->slo.tpot_p99_s * 1.0001))))
			viol[kk] = 1;
		if (rr > 0) {
			if (cd->role != ROLE_DECODE) {
				w_ttft += rr * ttft.mean;
				w_ttft50 += rr * ttft.p50;
				if (ttft.p99 > pl->ttft.p99)
					pl->ttft.p99 = ttft.p99;
			}
			if (cd->role != ROLE_PREFILL) {
				w_tpot += rr * tpot.mean;
				if (tpot.p99 > pl->tpot.p99)
					pl->tpot.p99 = tpot.p99;
			}
		}
	}
	pl->req_s = tot_rate;
	pl->out_tps = tot_out;
	plan_price_nodes(c, pl);
	if (tot_rate > 0) {
		pl->ttft.mean = w_ttft / tot_rate;
		pl->ttft.p50 = w_ttft50 / tot_rate;
		pl->tpot.mean = pl->tpot.p50 = w_tpot / tot_rate;
	}
	pl->fits = pl->n_inst > 0 && (o->offline || fs->alpha >= 0.999) &&
		   (o->slo.ttft_p99_s <= 0 || pl->ttft.p99 <= o->slo.ttft_p99_s * 1.0001) &&
		   (o->slo.tpot_p99_s <= 0 || pl->tpot.p99 <= o->slo.tpot_p99_s * 1.0001);
	plan_label(pl, c);
}

static int plan_better(const struct serve_plan *a, const struct serve_plan *b, int thr)
{
	if (a->fits != b->fits)
		return a->fits > b->fits;
	if (thr)
		return a->out_tps > b->out_tps * (1 + 1e-9);
	return a->usd_per_hour < b->usd_per_hour * (1 - 1e-9);
}

static int plan_same(const struct serve_plan *a, const struct serve_plan *b)
{
	if (a->n_inst != b->n_inst)
		return 0;
	for (int i = 0; i < a->n_inst; i++)
		if (a->inst[i].pool != b->inst[i].pool || a->inst[i].tp != b->inst[i].tp ||
		    a->inst[i].pp != b->inst[i].pp || a->inst[i].count != b->inst[i].count)
			return 0;
	return 1;
}

static void add_plan(struct serve_plan_result *res, const struct serve_plan *pl, int thr, int top)
{
	for (int i = 0; i < res->n_plans; i++)
		if (plan_same(&res->plans[i], pl))
			return;
	int cap = top < 16 ? top : 16;
	int pos = res->n_plans;
	while (pos > 0 && plan_better(pl, &res->plans[pos - 1], thr))
		pos--;
	if (pos >= cap)
		return;
	int last = res->n_plans < cap ? res->n_plans : cap - 1;
	memmove(&res->plans[pos + 1], &res->plans[pos], (size_t)(last - pos) * sizeof *pl);
	res->plans[pos] = *pl;
	if (res->n_plans < cap)
		res->n_plans++;
}

/* Solves of a placement at most: the first at the estimated pipeline
 * depth (place_depth), the next at the depth the first solution runs;
 * a layout whose depth still moves is then scored at its own depth
 * (place_rescore). Each solve takes about 0.35 s on the issue's
 * 24-machine case. */
#define PLACE_DEPTH_PASSES 2

/* Placement plan over every pool's GPUs (Helix-style). */
/* What place_plan's steps share: the inputs, the block count, and per
 * machine class its pool, TP and iteration time by blocks held. */
struct place_meta {
	const struct cluster *c;
	const struct model_spec *m;
	const struct serve_opts *o;
	const struct serve_calib *k;
	const struct serve_engine_profile *e;
	double isl, osl, depth;
	double demand;   /* tokens/s to carry (--rate x mean output); 0 offline */
	int L, B, Q;
	int cpool[PLACE_MAX_CLASSES], ctp[PLACE_MAX_CLASSES];
	double ct[PLACE_MAX_CLASSES][PLACE_MAX_BLOCKS + 1];
};

/* The engine's memory share for its KV cache: the setting, else the
 * profile's. */
static double place_util(const struct place_meta *pm)
{
	return pm->o->base.mem_util > 0 ? pm->o->base.mem_util : pm->e->mem_util;
}

/* Weight bytes per GPU of a machine (tp GPUs) holding `layers` layers;
 * every machine is charged the embedding and output matrices. */
static double place_weight_bytes(const struct place_meta *pm, int layers, int tp)
{
	const struct model_spec *m = pm->m;
	double vh2 = (double)m->vocab * m->hidden * 2 * (m->tied_embeddings ? 1 : 2);
	return serve_stage_weight_bytes(m, 0, layers, 0, 0, tp, pm->o->base.wprec) + vh2 / tp;
}

/* The share of that cache the router fills with reservations. */
static double place_fill(const struct place_meta *pm)
{
	double f = pm->o->place_kv_fill;
	return f > 0 && f < 1 ? f : 1;
}

/* KV tokens of a machine (tp GPUs of pool p) holding `layers` layers,
 * by vLLM's rule (vLLM 0.4.0.post1 vllm/worker/worker.py
 * profile_num_available_blocks, kept since): the memory share `util` of
 * the GPU's memory less the weights it holds, the peak activations of
 * the engine's profiling pass (serve_act_bytes at its tokens per
 * iteration and running-sequence limit) and the runtime, as the instance
 * model (serve_perf.c kv_capacity) charges them. Helix's prototype sizes
 * its per-stage caches the same way (its workers build vLLM 0.4.0.post1
 * engines). */
static double place_kv_tokens(const struct place_meta *pm, const struct pool *p, int layers, int tp,
			      double util)
{
	int max_batch = 0, chunk = 0;
	serve_batch_limits(p, &pm->o->base, &max_batch, &chunk);
	double wb = place_weight_bytes(pm, layers, tp) + serve_act_bytes(pm->m, tp, chunk, max_batch);
	double kvt = serve_stage_kv_bytes_per_token(pm->m, 0, layers, tp, pm->o->base.kvprec);
	double mem = serve_gpu_mem_bytes(&p->gpu);
	double fixed = pm->k->mem_fixed_bytes + serve_nvls_bytes(p, pm->o->base.engine, tp);
	double kv = pm->e->util_of_free ? (mem - wb - fixed) * util : mem * util - wb - fixed;
	return kv > 0 && kvt > 0 ? floor(kv / kvt) : 0;
}

/* Requests in flight through one machine holding `layers` layers: as many
 * as the router's view of its cache admits at ISL + OSL tokens each
 * (place_fill of it; the router's cache is the engine's unless
 * place_router_util names the share its capacities were computed at), and
 * no more than the engine's own cache holds at their mean context (ISL +
 * OSL / 2; vLLM allocates blocks as tokens arrive). Whole requests: the
 * router admits requests, not parts of a micro-batch. */
static double place_in_flight(const struct place_meta *pm, const struct pool *p, int layers, int tp)
{
	double kv = place_kv_tokens(pm, p, layers, tp, place_util(pm));
	double ru = pm->o->place_router_util;
	double kv_rt = ru > 0 && ru <= 1 ? place_kv_tokens(pm, p, layers, tp, ru) : kv;
	double n = floor(place_fill(pm) * kv_rt / (pm->isl + pm->osl));
	double n_eng = floor(kv / (pm->isl + pm->osl / 2));
	return n < n_eng ? n : n_eng;
}

/* Host time of one iteration on a machine holding `layers` layers: the
 * engine's step, and with an engine stepped once per layer (Helix's
 * prototype: llm_sys/worker.py calls engine.step for each local layer,
 * each a scheduler pass and an input preparation) a further step per
 * layer after the first. */
static double place_host_s(const struct place_meta *pm, int layers)
{
	double per = pm->o->place_layer_step_s > 0 ? pm->o->place_layer_step_s : 0;
	return serve_step_overhead(&pm->o->base) + (layers > 1 ? layers - 1 : 0) * per;
}

/* Helix's rule (optimizers.md §2.1): half of a machine's memory for
 * weights, the rest for the KV cache. A sequence's KV lives on every machine
 * of its pipeline, and a pipeline of D machines keeps D micro-batches in
 * flight, so a machine's batch is its KV tokens / (ISL + OSL) / D. D is
 * estimated before the solve as the model's weights over the mean per-GPU
 * weight half of the cluster. */
static double place_depth(const struct place_meta *pm)
{
	const struct cluster *c = pm->c;
	double wtot = serve_stage_weight_bytes(pm->m, 0, pm->L, 1, 1, 1, pm->o->base.wprec);
	double memsum = 0;
	int gsum = 0;
	for (int pi = 0; pi < c->n_pools; pi++) {
		memsum += serve_gpu_mem_bytes(&c->pools[pi].gpu) * pool_gpus(&c->pools[pi]);
		gsum += pool_gpus(&c->pools[pi]);
	}
	double depth = gsum > 0 ? ceil(wtot / (0.5 * pm->e->mem_util * memsum / gsum)) : 1;
	return depth < 1 ? 1 : depth;
}

/* Tokens/s of one machine (tp GPUs of pool p) holding `layers` layers,
 * its iteration time in *t; 0 when its KV cache holds no request. The
 * memory rule for the weights is the caller's. */
static double place_theta_layers(const struct place_meta *pm, const struct pool *p, int tp, int layers,
				 double *t)
{
	const struct model_spec *m = pm->m;
	const struct serve_opts *o = pm->o;
	const struct serve_engine_profile *e = pm->e;
	double isl = pm->isl, osl = pm->osl;
	/* NIC share of one machine: activations of h 16-bit values per token
	 * cross to the next machine */
	double nic = p->nics * p->nic_gbps * 1e9 / 8 * tp / p->gpus_per_node;
	double nic_tok = nic > 0 ? nic / (2.0 * m->hidden) : HUGE_VAL;
	/* the requests in flight spread over the pipeline's depth of
	 * micro-batches: a machine's batch is their share, on average */
	double batch = place_in_flight(pm, p, layers, tp) / pm->depth;
	if (batch > e->max_batch)
		batch = e->max_batch;
	if (batch < 1)
		return 0;
	struct serve_iter it = { batch, isl + osl / 2, batch * isl / osl, isl / 2, batch / osl,
				 o->base.eager, serve_dec_attn_x(&o->base, &p->gpu, m) };
	*t = serve_stage_time(p, m, 0, layers, 0, tp, o->base.wprec, o->base.kvprec, &it, pm->k, NULL, NULL,
			      NULL) +
	     place_host_s(pm, layers) + serve_per_seq_overhead(&o->base) * batch;
	double th = batch / *t;
	return th > nic_tok ? nic_tok : th;
}

/* Tokens/s of one machine (tp GPUs of pool p) holding 1, 2, ... blocks,
 * as far as the weights fit in half its memory; the iteration times in
 * ct. Sets pc->theta and pc->max_blocks. */
static void place_theta(const struct place_meta *pm, const struct pool *p, int tp,
			struct place_class *pc, double *ct)
{
	/* the layout's rule uses the profile's share: which layers a machine
	 * may hold does not follow the engine's memory setting */
	double half = 0.5 * serve_gpu_mem_bytes(&p->gpu) * pm->e->mem_util - pm->k->mem_fixed_bytes / 2;
	for (int len = 1; len <= pm->B; len++) {
		int layers = (int)ceil((double)pm->L * len / pm->B);
		double t = 0;
		if (place_weight_bytes(pm, layers, tp) > half)
			break;
		double th = place_theta_layers(pm, p, tp, layers, &t);
		if (!(th > 0))
			break;
		pc->theta[len] = th;
		pc->max_blocks = len;
		ct[len] = t;
	}
}

/* The machine classes: every pool that can be scored, at each TP. */
static void place_classes(struct place_meta *pm, struct place_problem *pp)
{
	const struct cluster *c = pm->c;
	for (int pi = 0; pi < c->n_pools; pi++) {
		const struct pool *p = &c->pools[pi];
		if (serve_prec_supported(&p->gpu, &pm->o->base, NULL) < 0 || !(p->gpu.hbm_Bps > 0) ||
		    !(p->gpu.flops[HP_BF16] > 0 || p->gpu.flops[HP_FP16] > 0))
			continue;   /* no figures to score it with */
		pp->group_cap[pi] = pool_gpus(p);
		for (int tp = 1; tp <= p->gpus_per_node && pm->Q < PLACE_MAX_CLASSES; tp *= 2) {
			if (pm->o->fix_tp && tp != pm->o->fix_tp)
				continue;
			struct place_class *pc = &pp->cls[pm->Q];
			pc->count = pool_gpus(p) / tp;
			pc->group = pi;
			pc->units = tp;
			/* the pool's price per GPU-hour (0: unknown or owned),
			 * and 0.001 $/h a GPU so the fewest GPUs win a tie */
			pc->usd_per_h = tp * (p->usd_per_node_h / p->gpus_per_node + 1e-3);
			place_theta(pm, p, tp, pc, pm->ct[pm->Q]);
			if (pc->max_blocks > 0) {
				pm->cpool[pm->Q] = pi;
				pm->ctp[pm->Q] = tp;
				pm->Q++;
			}
		}
	}
}

/* Layers [first, last] of a segment of blocks. */
static void seg_layers(const struct place_meta *pm, const struct place_seg *g, int *l0, int *l1)
{
	*l0 = (int)((double)pm->L * g->first / pm->B);
	*l1 = (int)ceil((double)pm->L * (g->last + 1) / pm->B) - 1;
	if (*l1 >= pm->L)
		*l1 = pm->L - 1;
}

/* Segments that carry no traffic dropped: the MILP (or a rescore at
 * another depth, whose max flow routes around a segment) can leave a
 * machine placed that no request passes through, and a plan would have
 * the user rent it for nothing. A path never takes one (place_paths
 * skips residuals under 1e-6 of the flow), so nothing else changes. */
static void place_drop_idle(struct place_solution *ps)
{
	int n = 0;
	for (int s = 0; s < ps->n_segs; s++)
		if (ps->seg[s].flow > 1e-6 * ps->flow)
			ps->seg[n++] = ps->seg[s];
	ps->n_segs = n;
}

/* One plan instance per segment of the solution; the price. */
static void place_instances(const struct place_meta *pm, const struct place_problem *pp,
			    const struct place_solution *ps, struct serve_plan *pl)
{
	for (int s = 0; s < ps->n_segs && pl->n_inst < SERVE_MAX_INST; s++) {
		const struct place_seg *g = &ps->seg[s];
		int q = g->cls;
		const struct pool *p = &pm->c->pools[pm->cpool[q]];
		struct serve_plan_inst *in = &pl->inst[pl->n_inst++];
		in->pool = pm->cpool[q];
		in->tp = pm->ctp[q];
		in->pp = 1;
		in->count = g->count;
		seg_layers(pm, g, &in->first_layer, &in->last_layer);
		in->tokens_per_s = g->flow;
		in->rate = g->flow / pm->osl;
		int len = g->last - g->first + 1;
		double th = pp->cls[q].theta[len];
		in->max_batch = (int)(th * pm->ct[q][len] + 0.5);
		/* each machine's share of the flow over the tokens/s it runs at
		 * its batch (theta) */
		in->load = th > 0 ? g->flow / (g->count * th) : 0;
		/* the cache of the layers the machine is shown to hold */
		in->kv_capacity_tokens = place_kv_tokens(pm, p, in->last_layer - in->first_layer + 1, in->tp,
							 place_util(pm));
		pl->gpus += in->tp * g->count;
	}
	pl->out_tps = ps->flow;
	plan_price_nodes(pm->c, pl);
}

/* The flow decomposed into paths (per-request routing weights, at most
 * 8, widest first); TPOT mean and p99 over them. The path index refers
 * to plan instances in segment order. */
static void place_paths(const struct place_meta *pm, const struct place_solution *ps,
			struct serve_plan *pl)
{
	double resid[PLACE_MAX_SEGS];
	for (int s = 0; s < ps->n_segs; s++)
		resid[s] = ps->seg[s].flow;
	double worst_tpot = 0, sum_tpot = 0, wsum = 0;
	while (pl->n_paths < 8) {
		int path[64], np = 0, bd = 0;
		double bott = HUGE_VAL;
		while (bd < pm->B && np < 64) {
			int best = -1;
			for (int s = 0; s < ps->n_segs; s++)
				if (ps->seg[s].first == bd && resid[s] > 1e-6 * ps->flow &&
				    (best < 0 || resid[s] > resid[best]))
					best = s;
			if (best < 0)
				break;
			path[np++] = best;
			if (resid[best] < bott)
				bott = resid[best];
			bd = ps->seg[best].last + 1;
		}
		if (bd < pm->B || np == 0)
			break;
		double tpot = 0;
		for (int i = 0; i < np; i++) {
			resid[path[i]] -= bott;
			const struct place_seg *g = &ps->seg[path[i]];
			tpot += pm->ct[g->cls][g->last - g->first + 1];
		}
		/* one network hop between consecutive machines (~10 us); each
		 * machine's own host step is in ct (place_theta) */
		tpot += (np - 1) * 10e-6;
		int w = pl->n_paths++;
		memcpy(pl->path[w].seg, path, sizeof(int) * (size_t)np);
		for (int i = 0; i < np; i++)
			if (path[i] >= pl->n_inst)
				pl->path[w].seg[i] = -1;   /* beyond the listed instances */
		pl->path[w].n = np;
		pl->path[w].weight = bott / ps->flow;
		if (tpot > worst_tpot)
			worst_tpot = tpot;
		sum_tpot += bott * tpot;
		wsum += bott;
	}
	pl->tpot.mean = pl->tpot.p50 = wsum > 0 ? sum_tpot / wsum : worst_tpot;
	pl->tpot.p99 = worst_tpot;
}

/* TTFT: the prompt through the first path, one machine at a time. */
static double place_ttft(const struct place_meta *pm, const struct place_solution *ps,
			 const struct serve_plan *pl)
{
	double ttft = pm->k->frontend_s;
	if (!pl->n_paths)
		return ttft;
	for (int i = 0; i < pl->path[0].n; i++) {
		if (pl->path[0].seg[i] < 0)
			continue;   /* beyond the listed instances */
		const struct place_seg *g = &ps->seg[pl->path[0].seg[i]];
		int q = g->cls, l0, l1;
		seg_layers(pm, g, &l0, &l1);
		struct serve_iter it = { 0, 0, pm->isl, pm->isl / 2, 1, pm->o->base.eager, 0 };
		ttft += serve_stage_time(&pm->c->pools[pm->cpool[q]], pm->m, l0, l1 + 1,
					 g->last == pm->B - 1, pm->ctp[q], pm->o->base.wprec,
					 pm->o->base.kvprec, &it, pm->k, NULL, NULL, NULL) +
			place_host_s(pm, l1 - l0 + 1);
	}
	return ttft;
}

/* Max flow from node 0 to node n-1 over cap[u * n + v] (Edmonds-Karp;
 * cap is consumed as the residual). */
static double place_maxflow(int n, double *cap)
{
	int *prev = xcalloc((size_t)n, sizeof *prev), *q = xcalloc((size_t)n, sizeof *q);
	double total = 0;
	for (;;) {
		for (int i = 0; i < n; i++)
			prev[i] = -1;
		prev[0] = 0;
		int h = 0, t = 0;
		q[t++] = 0;
		while (h < t && prev[n - 1] < 0) {
			int u = q[h++];
			for (int v = 0; v < n; v++)
				if (prev[v] < 0 && cap[(size_t)u * n + v] > 1e-12) {
					prev[v] = u;
					q[t++] = v;
				}
		}
		if (prev[n - 1] < 0)
			break;
		double f = HUGE_VAL;
		for (int v = n - 1; v; v = prev[v])
			f = fmin(f, cap[(size_t)prev[v] * n + v]);
		for (int v = n - 1; v; v = prev[v]) {
			cap[(size_t)prev[v] * n + v] -= f;
			cap[(size_t)v * n + prev[v]] += f;
		}
		total += f;
	}
	free(prev);
	free(q);
	return total;
}

/* The placement's shared inputs (blocks and depth are the caller's). */
static struct place_meta *place_meta_new(const struct cluster *c, const struct model_spec *m,
					 const struct serve_opts *o, const struct serve_calib *k)
{
	struct place_meta *pm = xcalloc(1, sizeof *pm);
	pm->c = c;
	pm->m = m;
	pm->o = o;
	pm->k = k ? k : serve_calib_default();
	pm->e = serve_engine(o->base.engine);
	pm->isl = serve_dist_mean(&o->isl);
	pm->osl = serve_dist_mean(&o->osl);
	pm->L = m->layers;
	return pm;
}

/* Flow-weighted mean number of machines a request crosses: the machines'
 * flows (cap0 less the residual cap on the forward edges u < v of n
 * nodes) over the total. */
static double place_route_depth(int n, const double *cap0, const double *cap, double total)
{
	double sum = 0;
	for (int u = 0; u < n; u++)
		for (int v = u + 1; v < n; v++) {
			double f = cap0[(size_t)u * n + v] - cap[(size_t)u * n + v];
			if (f > 0)
				sum += f;
		}
	return total > 0 ? sum / total : 0;
}

int serve_place_eval(const struct cluster *c, const struct model_spec *m, const struct serve_opts *o,
		     const struct serve_calib *k, int n, const struct serve_place_machine *mach,
		     double *tok_s, struct hp_err *err)
{
	struct place_meta *pm = place_meta_new(c, m, o, k);
	pm->B = pm->L;
	pm->depth = place_depth(pm);
	int nn = pm->L + 1, rc = 0;
	size_t cells = (size_t)nn * (size_t)nn;
	double *cap = xcalloc(cells, sizeof *cap), *cap0 = xcalloc(cells, sizeof *cap0);
	/* the batch follows the depth of the routes the flow takes: start
	 * from the estimate, then from the flow's own depth */
	for (int pass = 0; pass < PLACE_DEPTH_PASSES && rc == 0; pass++) {
		memset(cap0, 0, cells * sizeof *cap0);
		for (int i = 0; i < n && rc == 0; i++) {
			const struct serve_place_machine *x = &mach[i];
			double t = 0, th = 0;
			if (x->pool < 0 || x->pool >= c->n_pools || x->first < 0 || x->end > pm->L ||
			    x->first >= x->end || x->tp < 1)
				rc = hp_err_set(err, HP_EXIT_USAGE, "placement machine %d: pool %d, layers [%d, %d), "
						"tp %d out of range", i, x->pool, x->first, x->end, x->tp);
			else if (!((th = place_theta_layers(pm, &c->pools[x->pool], x->tp, x->end - x->first,
							    &t)) > 0))
				rc = hp_err_set(err, HP_EXIT_NOFIT, "placement machine %d: its KV cache holds no "
						"request with layers [%d, %d)", i, x->first, x->end);
			else
				cap0[(size_t)x->first * nn + x->end] += th;
		}
		if (rc)
			break;
		memcpy(cap, cap0, cells * sizeof *cap);
		*tok_s = place_maxflow(nn, cap);
		double d = place_route_depth(nn, cap0, cap, *tok_s);
		if (!(d > 0) || fabs(d - pm->depth) < 0.5)
			break;
		pm->depth = d;
	}
	free(cap);
	free(cap0);
	free(pm);
	return rc;
}

/* The solution's flow-weighted mean number of machines per route: the
 * segments' flows over the total (each unit of flow crosses one segment
 * per machine on its route). */
static double place_sol_depth(const struct place_solution *ps)
{
	double sum = 0;
	for (int s = 0; s < ps->n_segs; s++)
		sum += ps->seg[s].flow;
	return ps->flow > 0 ? sum / ps->flow : 0;
}

/* One solve of the placement MILP at pm's blocks and depth: 1 with a
 * placement in ps, 0 without one, -1 with err on a malformed problem. */
static int place_solve_at(struct place_meta *pm, struct place_problem *pp, struct place_solution *ps,
			  struct hp_err *err)
{
	memset(pp, 0, sizeof *pp);
	pm->Q = 0;
	pp->n_blocks = pm->B;
	pp->prune = 1;
	pp->node_budget = 500;   /* the incumbent settles early; more nodes only move the bound */
	place_classes(pm, pp);
	if (!pm->Q)
		return 0;
	pp->n_classes = pm->Q;
	if (serve_place_solve(pp, ps, err) < 0)
		return -1;
	return (ps->status == LP_OPTIMAL || ps->status == LP_FEASIBLE) && ps->flow > 0;
}

/* The layout of ps scored at depth d: each segment's machines' tokens/s
 * and iteration time at that depth (into pp's classes and pm->ct), the
 * flow by an exact max flow over the layout, a segment's flow its share
 * of the flow between its boundaries by capacity. */
static void place_rescore(struct place_meta *pm, struct place_problem *pp, struct place_solution *ps,
			  double d)
{
	pm->depth = d;
	int nn = pm->B + 1;
	size_t cells = (size_t)nn * (size_t)nn;
	double *cap = xcalloc(cells, sizeof *cap), *cap0 = xcalloc(cells, sizeof *cap0);
	for (int s = 0; s < ps->n_segs; s++) {
		const struct place_seg *g = &ps->seg[s];
		int q = g->cls, len = g->last - g->first + 1;
		double t = 0, th = place_theta_layers(pm, &pm->c->pools[pm->cpool[q]], pm->ctp[q],
						      (int)ceil((double)pm->L * len / pm->B), &t);
		pp->cls[q].theta[len] = th;
		pm->ct[q][len] = t;
		cap0[(size_t)g->first * nn + g->last + 1] += g->count * th;
	}
	memcpy(cap, cap0, cells * sizeof *cap);
	ps->flow = place_maxflow(nn, cap);
	for (int s = 0; s < ps->n_segs; s++) {
		struct place_seg *g = &ps->seg[s];
		size_t e = (size_t)g->first * nn + g->last + 1;
		double own = g->count * pp->cls[g->cls].theta[g->last - g->first + 1];
		g->flow = cap0[e] > 0 ? (cap0[e] - cap[e]) * own / cap0[e] : 0;
	}
	free(cap);
	free(cap0);
}

/* The most tokens/s the layout of ps carries at pp's thetas: an exact
 * max flow over its segments (parallel machines add up). */
static double place_capacity(const struct place_meta *pm, const struct place_problem *pp,
			     const struct place_solution *ps)
{
	int nn = pm->B + 1;
	double *cap = xcalloc((size_t)nn * (size_t)nn, sizeof *cap);
	for (int s = 0; s < ps->n_segs; s++) {
		const struct place_seg *g = &ps->seg[s];
		cap[(size_t)g->first * nn + g->last + 1] +=
			g->count * pp->cls[g->cls].theta[g->last - g->first + 1];
	}
	double f = place_maxflow(nn, cap);
	free(cap);
	return f;
}

/* With a rate: the machines the rate needs. The MILP places every machine
 * it can use for the most flow; here machines are taken out one at a
 * time, the dearest first (price per hour, then GPUs; a tie: the one
 * that leaves the most capacity), while the layout's exact max flow at
 * SERVE_MAX_UTIL still carries the demand: the fleet ILP's rule for an
 * instance without targets (its queue stays finite), and like it only
 * the replicas a rate needs are bought. Greedy, so not always the
 * cheapest subset; never short of the demand. Then every segment's flow
 * is the layout's max flow scaled to the demand, so a machine's load is
 * its share of the rate. Returns 1 when the layout carries the demand
 * (ps->flow is then the demand), 0 when it falls short (ps keeps its
 * capacity: the nearest miss). */
static int place_carry(struct place_meta *pm, struct place_problem *pp, struct place_solution *ps)
{
	place_rescore(pm, pp, ps, pm->depth);
	double need = pm->demand / SERVE_MAX_UTIL * (1 - 1e-9);
	if (!(ps->flow > 0) || ps->flow < need)
		return 0;
	for (;;) {
		int best = -1;
		double best_usd = 0, best_cap = 0;
		for (int s = 0; s < ps->n_segs; s++) {
			struct place_seg *g = &ps->seg[s];
			if (g->count <= 0)
				continue;
			g->count--;
			double cap = place_capacity(pm, pp, ps);
			g->count++;
			double usd = pp->cls[g->cls].usd_per_h;
			if (cap >= need &&
			    (best < 0 || usd > best_usd * (1 + 1e-12) ||
			     (usd >= best_usd * (1 - 1e-12) && cap > best_cap))) {
				best = s;
				best_usd = usd;
				best_cap = cap;
			}
		}
		if (best < 0)
			break;
		/* then as many more of that segment as the demand allows (a
		 * bisection on the count), so a cluster of hundreds of machines
		 * takes a few max flows a segment, not one a machine */
		struct place_seg *g = &ps->seg[best];
		int lo = 1, hi = g->count, keep = g->count;
		while (lo < hi) {
			int mid = lo + (hi - lo + 1) / 2;
			g->count = keep - mid;
			if (place_capacity(pm, pp, ps) >= need)
				lo = mid;
			else
				hi = mid - 1;
		}
		g->count = keep - lo;
	}
	int n = 0;
	for (int s = 0; s < ps->n_segs; s++)
		if (ps->seg[s].count > 0)
			ps->seg[n++] = ps->seg[s];
	ps->n_segs = n;
	place_rescore(pm, pp, ps, pm->depth);
	double f = pm->demand / ps->flow;
	for (int s = 0; s < ps->n_segs; s++)
		ps->seg[s].flow *= f;
	ps->flow = pm->demand;
	return 1;
}

static int place_plan(const struct cluster *c, const struct model_spec *m, const struct serve_opts *o,
		      const struct serve_calib *k, struct serve_plan *pl, struct hp_err *err)
{
	struct place_meta *pm = place_meta_new(c, m, o, k);
	pm->B = o->place_blocks > 0 ? o->place_blocks : pm->L;
	if (pm->B > (o->place_blocks > 0 ? PLACE_MAX_BLOCKS : PLACE_DEFAULT_BLOCKS))
		pm->B = o->place_blocks > 0 ? PLACE_MAX_BLOCKS : PLACE_DEFAULT_BLOCKS;
	if (pm->B > pm->L)
		pm->B = pm->L;
	pm->depth = place_depth(pm);
	pm->demand = !o->offline && o->rate > 0 ? o->rate * pm->osl : 0;
	struct place_problem *pp = xcalloc(1, sizeof *pp);
	struct place_solution *ps = xcalloc(1, sizeof *ps);
	int rc = 0, passes = 0;
	for (;;) {
		int solved = place_solve_at(pm, pp, ps, err);
		if (solved < 0) {
			rc = -1;
			goto out;
		}
		/* the batch per machine follows the pipeline's depth: solve
		 * again at the depth this solution runs; past the last pass,
		 * score the layout at its own depth */
		double d = solved ? place_sol_depth(ps) : 0;
		int moved = d > 0 && fabs(d - pm->depth) >= 0.5;
		if (moved && ++passes < PLACE_DEPTH_PASSES) {
			pm->depth = d;
			continue;
		}
		if (moved)
			place_rescore(pm, pp, ps, d);
		if (solved)
			break;
		/* coarse blocks waste memory at their edges: once more with one
		 * layer per block, unless the user chose the blocks */
		if (o->place_blocks <= 0 && pm->B < pm->L && pm->L <= PLACE_MAX_BLOCKS) {
			pm->B = pm->L;
			continue;
		}
		if (!pm->Q)
			rc = hp_err_set(err, HP_EXIT_NOFIT, "no GPU of the cluster holds even one layer block");
		else
			rc = hp_err_set(err, HP_EXIT_NOFIT,
					"the cluster's GPUs cannot hold the model's layers together (placement infeasible)");
		goto out;
	}
	int carried = pm->demand > 0 && place_carry(pm, pp, ps);
	memset(pl, 0, sizeof *pl);
	pl->how = "placement";
	pl->lp_status = ps->status;
	pl->gap = ps->gap;
	place_drop_idle(ps);
	place_instances(pm, pp, ps, pl);
	place_paths(pm, ps, pl);
	pl->out_tps = ps->flow;
	pl->req_s = carried ? o->rate : ps->flow / pm->osl;
	pl->ttft.mean = pl->ttft.p50 = pl->ttft.p99 = place_ttft(pm, ps, pl);
	pl->fits = pm->demand > 0 ? carried : 1;
	snprintf(pl->label, sizeof pl->label, "placement over %d GPU%s, %d segment%s", pl->gpus,
		 pl->gpus == 1 ? "" : "s", pl->n_inst, pl->n_inst == 1 ? "" : "s");
out:
	free(ps);
	free(pp);
	free(pm);
	return rc;
}

/* An overlap scheduler setting the engine can take: one its launch line
 * can express (serve_overlap_flag), and not forced on with pipeline
 * parallelism where the engine refuses that (vLLM). pp: the fixed
 * pipeline degree (0: any), place: a placement (pipelines across
 * machines). */
static int check_overlap(const struct serve_config *b, int pp, int place, struct hp_err *err)
{
	const struct serve_engine_profile *e = serve_engine(b->engine);
	if (!serve_overlap_flag(b))
		return hp_err_set(err, HP_EXIT_USAGE,
				  "--overlap-sched %s: %s has no command-line switch for it "
				  "(docs/serving.md); give engine (its default)",
				  b->overlap_sched == OVERLAP_ON ? "on" : "off", e->name);
	if (serve_overlap_on(b) && e->overlap_no_pp && (pp > 1 || place))
		return hp_err_set(err, HP_EXIT_USAGE,
				  "--overlap-sched on: %s refuses its overlap scheduler with "
				  "pipeline parallelism (%s)", e->name,
				  place ? "--place runs pipelines" : "--pp above 1");
	return 0;
}

int serve_estimate_plan(const struct cluster *c, const struct model_spec *m,
			const struct serve_opts *o, const struct serve_calib *k,
			struct serve_plan *pl, struct serve_result *r, struct hp_err *err)
{
	if (c->n_pools < 1)
		return hp_err_set(err, HP_EXIT_USAGE, "--estimate needs a pool");
	if (check_overlap(&o->base, o->fix_pp, 0, err) < 0)
		return -1;
	struct pool p = c->pools[0];
	if (p.nodes_max > 0)
		p.nodes = p.nodes_max;
	struct serve_config cfg = o->base;
	cfg.tp = o->fix_tp > 0 ? o->fix_tp : 1;
	cfg.pp = o->fix_pp > 0 ? o->fix_pp : 1;
	struct serve_load ld = { serve_dist_mean(&o->isl), serve_dist_mean(&o->osl),
				 o->offline ? 0 : o->rate, 0, 0, 0 };
	if (serve_evaluate(&p, m, &cfg, &ld, k, r, err) < 0)
		return -1;
	memset(pl, 0, sizeof *pl);
	pl->how = "estimate";
	pl->n_inst = 1;
	struct serve_plan_inst *in = &pl->inst[0];
	in->pool = 0;
	in->tp = cfg.tp;
	in->pp = cfg.pp;
	in->count = 1;
	in->max_batch = r->max_batch;
	in->kv_capacity_tokens = r->kv_capacity_tokens;
	in->first_layer = 0;
	in->last_layer = m->layers - 1;
	in->rate = r->rate;
	in->tokens_per_s = r->out_tps;
	in->load = isfinite(r->utilisation) ? r->utilisation : 0;
	pl->gpus = cfg.tp * cfg.pp;
	pl->out_tps = r->out_tps;
	pl->req_s = r->rate;
	plan_price_nodes(c, pl);
	pl->ttft = r->ttft_s;
	pl->tpot = r->tpot_s;
	pl->fits = r->fits && (o->offline || o->rate < r->req_s_max) &&
		   (o->slo.ttft_p99_s <= 0 || r->ttft_s.p99 <= o->slo.ttft_p99_s) &&
		   (o->slo.tpot_p99_s <= 0 || r->tpot_s.p99 <= o->slo.tpot_p99_s);
	plan_label(pl, c);
	return 0;
}

/* The nearest miss when no configuration qualifies: one copy of the
 * configuration serve_enumerate kept, with its latencies alone when it
 * fits (it missed only the SLOs), else none (+inf). */
static void nearest_single(struct serve_plan *pl, const struct cluster *c,
			   const struct model_spec *m, const struct serve_result *near,
			   const struct serve_cand *nc)
{
	memset(pl, 0, sizeof *pl);
	pl->how = "nearest miss";
	pl->n_inst = 1;
	pl->inst[0].pool = nc->pool;
	pl->inst[0].tp = nc->cfg.tp;
	pl->inst[0].pp = nc->cfg.pp;
	pl->inst[0].count = 1;
	pl->inst[0].last_layer = m->layers - 1;
	pl->gpus = nc->gpus;
	pl->ttft.mean = pl->ttft.p50 = pl->ttft.p99 = near->fits ? near->ttft_min_s : HUGE_VAL;
	pl->tpot.mean = pl->tpot.p50 = pl->tpot.p99 = near->fits ? near->tpot_min_s : HUGE_VAL;
	if (near->fits) {
		pl->inst[0].max_batch = near->max_batch;
		pl->inst[0].kv_capacity_tokens = near->kv_capacity_tokens;
	}
	plan_label(pl, c);
}

/* The weight and KV precisions on the cluster's GPUs: an input error (exit
 * 3) naming the GPU and --precision or --kv-precision when no pool can run
 * them, as training refuses fp8 on an A100. A pool that cannot, beside one
 * that can, only gets no instances (its evaluations fail). */
static int check_prec(const struct cluster *c, const struct serve_config *cfg,
		       struct hp_err *err)
{
	struct hp_err first = { 0 };
	for (int i = 0; i < c->n_pools; i++) {
		struct hp_err e = { 0 };
		const struct gpu_spec *g = &c->pools[i].gpu;
		if (serve_prec_supported(g, cfg, &e) == 0)
			return 0;
		if (i == 0)
			first = e;
	}
	if (c->n_pools > 0) {
		if (err)
			*err = first;
		return -1;
	}
	return 0;
}

/* The options make sense for this cluster and model: 0, or -1 with err. */
static int check_opts(const struct cluster *c, const struct model_spec *m,
		      const struct serve_opts *o, struct hp_err *err)
{
	if (check_overlap(&o->base, o->fix_pp, o->place, err) < 0)
		return -1;
	if (c->n_pools < 1)
		return hp_err_set(err, HP_EXIT_USAGE, "no pools: give -c CLUSTER or --pool");
	if (!o->offline && !(o->rate > 0))
		return hp_err_set(err, HP_EXIT_USAGE, "--rate R (requests/s) or --offline is required");
	if (check_prec(c, &o->base, err) < 0)
		return -1;
	if (o->fix_pp > m->layers)
		return hp_err_set(err, HP_EXIT_USAGE, "--pp %d: %s has %d layers", o->fix_pp, m->name,
				  m->layers);
	if (o->fix_tp) {
		int widest = 0;
		for (int i = 0; i < c->n_pools; i++)
			if (c->pools[i].gpus_per_node > widest)
				widest = c->pools[i].gpus_per_node;
		if (o->fix_tp > widest)
			return hp_err_set(err, HP_EXIT_USAGE,
					  "--tp %d: no pool has nodes of %d GPUs (TP stays inside a node)",
					  o->fix_tp, o->fix_tp);
	}
	return 0;
}

/* --place: one plan, or the nearest miss when it falls short. */
static int plan_placed(const struct cluster *c, const struct model_spec *m,
		       const struct serve_opts *o, const struct serve_calib *k,
		       struct serve_plan_result *res, struct hp_err *err, double t0)
{
	struct serve_plan pl;
	double tp0 = hp_now();
	int prc = place_plan(c, m, o, k, &pl, err);
	res->ilp_seconds = hp_now() - tp0;
	if (prc < 0) {
		hp_strlcpy(res->why, err->msg, sizeof res->why);
		return -1;
	}
	if (!o->offline && o->rate > 0 && pl.req_s < o->rate)
		pl.fits = 0;
	if (o->slo.tpot_p99_s > 0 && pl.tpot.p99 > o->slo.tpot_p99_s)
		pl.fits = 0;
	if (o->slo.ttft_p99_s > 0 && pl.ttft.p99 > o->slo.ttft_p99_s)
		pl.fits = 0;
	res->plans[0] = pl;
	res->n_plans = 1;
	res->seconds = hp_now() - t0;
	if (!pl.fits) {
		res->has_nearest = 1;
		res->nearest = pl;
		res->n_plans = 0;
		/* every target the placement misses, each by name (a latency
		 * miss read as "short of the target" beside a request rate) */
		char *w = res->why;
		size_t wn = sizeof res->why, at = 0;
		w[0] = '\0';
		if (!o->offline && o->rate > 0 && pl.req_s >= o->rate)
			at += (size_t)snprintf(w, wn, "the placement serves at most %.2f req/s; loaded to %.0f%% of "
					       "that (%.2f req/s) it is short of --rate %g",
					       pl.req_s, 100 * SERVE_MAX_UTIL, SERVE_MAX_UTIL * pl.req_s, o->rate);
		else if (!o->offline && o->rate > 0 && pl.req_s < o->rate)
			at += (size_t)snprintf(w, wn, "the placement serves at most %.2f req/s, short of --rate %g",
					       pl.req_s, o->rate);
		if (o->slo.tpot_p99_s > 0 && pl.tpot.p99 > o->slo.tpot_p99_s && at < wn)
			at += (size_t)snprintf(w + at, wn - at, "%sTPOT p99 %.1f ms, over --tpot-p99 %g s",
					       at ? "; its " : "the placement's ", pl.tpot.p99 * 1e3,
					       o->slo.tpot_p99_s);
		if (o->slo.ttft_p99_s > 0 && pl.ttft.p99 > o->slo.ttft_p99_s && at < wn)
			at += (size_t)snprintf(w + at, wn - at, "%sTTFT p99 %.1f ms, over --ttft-p99 %g s",
					       at ? "; its " : "the placement's ", pl.ttft.p99 * 1e3,
					       o->slo.ttft_p99_s);
		if (at == 0)   /* no named target missed: never an empty reason */
			snprintf(w, wn, "the placement serves %.2f req/s (TPOT p99 %.1f ms), short of "
				 "the target", pl.req_s, pl.tpot.p99 * 1e3);
		err->code = HP_EXIT_NOFIT;
		return -1;
	}
	return 0;
}

/* No candidate configuration: why, and the nearest miss if there is one. */
static void no_candidates(const struct cluster *c, const struct model_spec *m,
			  const struct serve_config *base, const struct serve_result *near,
			  const struct serve_cand *near_cand, struct serve_plan_result *res)
{
	const char *nopp = serve_overlap_on(base) && serve_engine(base->engine)->overlap_no_pp
				   ? " (pipeline parallelism is off: --overlap-sched on)"
				   : "";
	char nm[41], nw[201];
	/* on a whole character ("%.40s" of a model name of euro signs cut
	 * one, and stderr was no UTF-8) */
	utf8_copy(nm, sizeof nm, m->name);
	utf8_copy(nw, sizeof nw, near->why);
	if (near->fits)
		snprintf(res->why, sizeof res->why,
			 "no configuration of %s meets the SLOs on any pool: the fastest takes "
			 "TTFT %.0f ms and TPOT %.1f ms with one request alone", nm,
			 near->ttft_min_s * 1e3, near->tpot_min_s * 1e3);
	else if (near->why[0])
		snprintf(res->why, sizeof res->why, "%s fits nowhere: %s%s", nm, nw, nopp);
	else
		snprintf(res->why, sizeof res->why,
			 "no configuration of %s meets the SLOs on any pool", m->name);
	if (near->fits || near->why[0]) {
		res->has_nearest = 1;
		nearest_single(&res->nearest, c, m, near, near_cand);
	}
}

/* The candidates as a fleet problem, and what the steps below share. */
struct fleet_in {
	const struct cluster *c;
	const struct model_spec *m;
	const struct serve_opts *o;
	const struct serve_calib *k;
	const struct serve_cand *cand;
	int K, R;
	const struct serve_bucket *b;
};

struct fleet_run {
	struct fleet_in in;
	double rate[SERVE_MAX_BUCKETS];
	double cost[SERVE_MAX_CANDS], mu[SERVE_MAX_CANDS * SERVE_MAX_BUCKETS];
	int gp[SERVE_MAX_CANDS], pool[SERVE_MAX_CANDS], lim[HP_MAX_POOLS], role[SERVE_MAX_CANDS];
	double node_cost[HP_MAX_POOLS];
	int node_gpus[HP_MAX_POOLS];
	struct fleet_problem fp;
	struct fleet_solution fs;
};

static void fleet_run_init(struct fleet_run *fr, int thr)
{
	const struct serve_cand *cand = fr->in.cand;
	int K = fr->in.K, R = fr->in.R;
	for (int r = 0; r < R; r++)
		fr->rate[r] = (fr->in.o->offline ? 1 : fr->in.o->rate) * fr->in.b[r].share;
	for (int kk = 0; kk < K; kk++) {
		fr->role[kk] = cand[kk].role;
		fr->cost[kk] = cand[kk].usd_per_hour > 0 ? cand[kk].usd_per_hour : 1e-3 * cand[kk].gpus;
		fr->gp[kk] = cand[kk].gpus;
		fr->pool[kk] = cand[kk].pool;
		for (int r = 0; r < R; r++)
			fr->mu[kk * R + r] = cand[kk].mu[r];
	}
	for (int p = 0; p < fr->in.c->n_pools; p++) {
		const struct pool *po = &fr->in.c->pools[p];
		fr->lim[p] = pool_gpus(po);
		/* priced pools rent whole nodes (plan_price_nodes) */
		fr->node_cost[p] = po->usd_per_node_h > 0 ? po->usd_per_node_h : 0;
		fr->node_gpus[p] = po->gpus_per_node;
	}
	struct fleet_problem fp = { K, R, fr->in.c->n_pools, fr->cost, fr->gp, fr->pool, fr->mu,
				    fr->rate, fr->lim, thr ? SERVE_OBJ_THROUGHPUT : SERVE_OBJ_COST,
				    fr->role, fr->node_cost, fr->node_gpus };
	fr->fp = fp;
}

/* The SLO loop of the reference (optimizers.md §5.2) with the pools
 * limited to lim2: mu comes from each bucket alone; a copy carrying a mix
 * may miss a target, so the capacities of the copies that miss shrink by
 * 10% and the ILP runs again, at most 3 more times. Returns 1 with *pl,
 * 0 when no ILP was solved, -1 on an error. */
static int fleet_slo_loop(struct fleet_run *fr, const int *lim2, struct serve_plan *pl,
			  struct serve_plan_result *res, struct hp_err *err)
{
	int K = fr->in.K, R = fr->in.R, solved = 0, rc = 0;
	double mu2[SERVE_MAX_CANDS * SERVE_MAX_BUCKETS];
	int viol[SERVE_MAX_CANDS];
	memcpy(mu2, fr->mu, sizeof(double) * (size_t)(K * R));
	fr->fp.pool_gpus = lim2;
	fr->fp.mu = mu2;
	for (int round = 0; round < 4; round++) {
		if (serve_fleet_solve(&fr->fp, &fr->fs, err) < 0) {
			rc = -1;
			break;
		}
		res->ilp_seconds += fr->fs.seconds;
		if (fr->fs.status != LP_OPTIMAL && fr->fs.status != LP_FEASIBLE)
			break;
		solved = 1;
		fleet_plan(fr->in.c, fr->in.m, fr->in.cand, K, fr->in.b, R, fr->rate, &fr->fs, fr->in.o, fr->in.k, pl, viol);
		if (pl->fits)
			break;
		int any = 0;
		for (int kk = 0; kk < K; kk++)
			if (viol[kk] && fr->fs.count[kk] > 0) {
				any = 1;
				for (int r = 0; r < R; r++)
					mu2[kk * R + r] *= 0.9;
			}
		if (!any)
			break;
	}
	fr->fp.mu = fr->mu;
	return rc < 0 ? -1 : solved;
}

/* In cost mode with nothing feasible: the most the cluster can serve, as
 * the nearest miss. */
static void fleet_nearest(struct fleet_run *fr, struct serve_plan_result *res,
			  struct hp_err *err)
{
	struct serve_plan pl;
	fr->fp.pool_gpus = fr->lim;
	fr->fp.objective = SERVE_OBJ_THROUGHPUT;
	for (int r = 0; r < fr->in.R; r++)
		fr->rate[r] = fr->in.b[r].share;
	if (serve_fleet_solve(&fr->fp, &fr->fs, err) == 0 &&
	    (fr->fs.status == LP_OPTIMAL || fr->fs.status == LP_FEASIBLE)) {
		fleet_plan(fr->in.c, fr->in.m, fr->in.cand, fr->in.K, fr->in.b, fr->in.R, fr->rate, &fr->fs, fr->in.o, fr->in.k,
			   &pl, NULL);
		pl.how = "nearest miss";
		pl.fits = 0;
		res->has_nearest = 1;
		res->nearest = pl;
	}
	/* "the SLOs" only when there are some: without --ttft-p99 or
	 * --tpot-p99 the rate alone is out of reach. */
	int slo = fr->in.o->slo.ttft_p99_s > 0 || fr->in.o->slo.tpot_p99_s > 0;
	snprintf(res->why, sizeof res->why, "no fleet within the pool limits serves %.3g req/s%s%s",
		 fr->in.o->rate, slo ? " within the SLOs" : "",
		 res->has_nearest ? "" : slo ? " (no configuration meets them)"
					     : " (no configuration serves a request)");
	res->n_plans = 0;
	err->code = HP_EXIT_NOFIT;
}

/* Labels are what a reader (and a script) tells plans apart by. Pools of
 * one GPU type are named in them (plan_label); a label cut at its buffer
 * could still repeat an earlier one: it then ends in its plan number,
 * "... #3", in place of its last characters. */
static void plan_labels_unique(struct serve_plan_result *res)
{
	for (int i = 1; i < res->n_plans; i++)
		for (int j = 0; j < i; j++) {
			if (strcmp(res->plans[i].label, res->plans[j].label))
				continue;
			char tag[16];
			int n = snprintf(tag, sizeof tag, " #%d", i + 1);
			char *l = res->plans[i].label;
			size_t cut = utf8_cut(l, sizeof res->plans[i].label - 1 - (size_t)n);
			hp_strlcpy(l + cut, tag, (size_t)n + 1);
			break;
		}
}

/* Every pool together, then each pool alone: the plans, best first. */
static int plan_fleets(struct fleet_run *fr, int thr, int top, struct serve_plan_result *res,
		       struct hp_err *err)
{
	const struct cluster *c = fr->in.c;
	struct serve_plan pl;
	for (int only = -1; only < c->n_pools; only++) {
		if (only >= 0 && c->n_pools == 1)
			break;
		int lim2[HP_MAX_POOLS];
		for (int p = 0; p < c->n_pools; p++)
			lim2[p] = only < 0 || p == only ? fr->lim[p] : 0;
		int got = fleet_slo_loop(fr, lim2, &pl, res, err);
		if (got < 0)
			return -1;
		if (!got)
			continue;
		pl.how = only < 0 ? "fleet ILP" : "single pool";
		if (thr && !fr->in.o->offline)
			pl.fits = pl.fits && pl.req_s >= fr->in.o->rate * 0.999;
		if (pl.n_inst)
			add_plan(res, &pl, thr, top);
	}
	if (res->n_plans == 0 || !res->plans[0].fits) {
		fleet_nearest(fr, res, err);
		return -1;
	}
	return 0;
}

int serve_plan(const struct cluster *c, const struct model_spec *m, const struct serve_opts *o,
	       const struct serve_calib *k, struct serve_plan_result *res, struct hp_err *err)
{
	memset(res, 0, sizeof *res);
	double t0 = hp_now();
	int thr = o->offline || o->objective == SERVE_OBJ_THROUGHPUT;
	if (check_opts(c, m, o, err) < 0)
		return -1;
	int top = o->top_k > 0 ? o->top_k : 5;
	if (o->place)
		return plan_placed(c, m, o, k, res, err, t0);
	struct serve_bucket b[SERVE_MAX_BUCKETS];
	int R = serve_buckets(&o->isl, &o->osl, o->n_isl_buckets, o->n_osl_buckets, b);
	res->n_buckets = R;
	struct serve_cand *cand = xcalloc(SERVE_MAX_CANDS, sizeof *cand);
	struct serve_result near;
	struct serve_cand near_cand;
	memset(&near_cand, 0, sizeof near_cand);
	int K = serve_enumerate(c, m, &o->base, o->fix_tp, o->fix_pp, b, R, &o->slo, k, cand,
				SERVE_MAX_CANDS, &near, &near_cand);
	if (o->disagg && K > 0)
		K = pd_candidates(c, m, b, R, &o->slo, k, cand, K);
	res->n_cands = K;
	if (K == 0) {
		no_candidates(c, m, &o->base, &near, &near_cand, res);
		err->code = HP_EXIT_NOFIT;
		free(cand);
		return -1;
	}
	struct fleet_run *fr = xcalloc(1, sizeof *fr);
	fr->in = (struct fleet_in){ c, m, o, k, cand, K, R, b };
	fleet_run_init(fr, thr);
	int rc = plan_fleets(fr, thr, top, res, err);
	plan_labels_unique(res);
	free(fr);
	free(cand);
	res->seconds = hp_now() - t0;
	return rc;
}
