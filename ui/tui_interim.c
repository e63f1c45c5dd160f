/* tui_interim.c — stand-in plans until the planner lands: every uniform
 * TP x PP plan on each single pool, estimated and ranked by tokens/s.
 * Removed when search_run() answers. */
#include "tui_int.h"

#include <stdlib.h>
#include <string.h>

int tui_interim_search(const struct cluster *c, const struct model_spec *m,
		       const struct search_opts *o, struct search_result *res,
		       struct hp_err *err);

static int by_rate(const void *a, const void *b)
{
	const struct search_plan *x = a, *y = b;
	return x->est.tokens_per_s < y->est.tokens_per_s ? 1 :
	       x->est.tokens_per_s > y->est.tokens_per_s ? -1 : 0;
}

int tui_interim_search(const struct cluster *c, const struct model_spec *m,
		       const struct search_opts *o, struct search_result *res,
		       struct hp_err *err)
{
	memset(res, 0, sizeof *res);
	int cap = 64;
	res->plans = xcalloc((size_t)cap, sizeof *res->plans);
	double tokens = o->tokens > 0 ? o->tokens : 1e12;
	for (int pool = 0; pool < c->n_pools; pool++) {
		if (o->progress)
			o->progress(o->progress_arg, (double)pool / c->n_pools);
		const struct pool *pp = &c->pools[pool];
		int gpus = pp->nodes * pp->gpus_per_node;
		for (int tp = 1; tp <= pp->gpus_per_node; tp *= 2)
			for (int ppd = 1; ppd <= m->layers && ppd <= 16; ppd++) {
				if (o->cancel && *o->cancel)
					goto done;
				int dp = gpus / (tp * ppd);
				while (dp > 0 && o->gbs % dp)
					dp--;
				if (dp < 1 || m->layers % ppd)
					continue;
				for (int rc = RC_NONE; rc <= RC_FULL; rc++) {
					struct plan p;
					plan_init(&p);
					p.mbs = 1;
					p.gbs = o->gbs;
					p.seq_len = o->seq_len;
					p.precision = o->precision;
					p.recompute = (enum hp_recompute)rc;
					p.zero = 1;
					struct hp_err e2 = { 0 };
					struct estimate est;
					if (plan_uniform(&p, c, m, pool, tp, ppd, dp, &e2) < 0 ||
					    plan_validate(&p, c, m, "plan", &e2) < 0 ||
					    perf_estimate(c, m, &p, NULL, &est, &e2) < 0) {
						plan_free(&p);
						continue;
					}
					res->stats.evaluated++;
					if (!est.fits) {
						estimate_free(&est);
						plan_free(&p);
						continue;
					}
					if (res->n_plans == cap) {
						cap *= 2;
						res->plans = xrealloc(res->plans, (size_t)cap * sizeof *res->plans);
					}
					struct search_plan *sp = &res->plans[res->n_plans++];
					memset(sp, 0, sizeof *sp);
					sp->plan = p;
					sp->est = est;
					plan_gpus(&p, sp->gpus_used);
					sp->nodes_used[pool] = (sp->gpus_used[pool] + pp->gpus_per_node - 1) /
							       pp->gpus_per_node;
					sp->time_to_train_s = tokens / est.tokens_per_s;
					sp->cost_to_train_usd = est.price_known ?
						est.usd_per_hour * sp->time_to_train_s / 3600 : 0;
					sp->score = sp->time_to_train_s;
					sp->optimality = OPTIMAL_HEURISTIC;
					sp->single_pool = pool;
					snprintf(sp->label, sizeof sp->label, "%.20s: TP%d PP%d DP%d%s",
						 pp->name, tp, ppd, dp,
						 rc == RC_FULL ? " rc" : rc == RC_SELECTIVE ? " sel" : "");
					break;
				}
			}
	}
done:
	res->stats.candidates = res->stats.evaluated;
	qsort(res->plans, (size_t)res->n_plans, sizeof *res->plans, by_rate);
	for (int i = 0; i < res->n_plans; i++) {
		struct search_plan *a = &res->plans[i];
		int pool = a->single_pool;
		if (!res->has_single[pool]) {
			res->has_single[pool] = 1;
			res->single[pool] = *a;
			plan_copy(&res->single[pool].plan, &a->plan);
			perf_estimate(c, m, &a->plan, NULL, &res->single[pool].est, err);
		}
		a->pareto = 1;
		for (int j = 0; j < res->n_plans; j++) {
			struct search_plan *b = &res->plans[j];
			if (j != i && b->time_to_train_s <= a->time_to_train_s &&
			    b->cost_to_train_usd < a->cost_to_train_usd)
				a->pareto = 0;
		}
	}
	int top = o->top_k > 0 ? o->top_k : 10;
	while (res->n_plans > top) {
		res->n_plans--;
		plan_free(&res->plans[res->n_plans].plan);
		estimate_free(&res->plans[res->n_plans].est);
	}
	if (o->cancel && *o->cancel)
		res->stats.cancelled = 1;
	if (!res->n_plans)
		return hp_err_set(err, HP_EXIT_NOFIT, "no uniform plan fits in memory");
	return 0;
}
