/* search.c — the planner (see search.h). */
#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void search_opts_init(struct search_opts *o)
{
	memset(o, 0, sizeof *o);
	o->precision = HP_BF16;
	o->top_k = 10;
	o->fix_zero = -1;
	o->fix_recompute = -1;
	o->objective = OBJ_THROUGHPUT;
}

const char *search_objective_name(enum search_objective o)
{
	static const char *const n[] = { "throughput", "cost", "deadline", "budget" };
	return n[o];
}

int search_objective_parse(const char *s, enum search_objective *o)
{
	for (int i = 0; i <= OBJ_BUDGET; i++)
		if (hp_strieq(s, search_objective_name((enum search_objective)i))) {
			*o = (enum search_objective)i;
			return 0;
		}
	return -1;
}

const char *search_optimality_name(enum search_optimality o)
{
	static const char *const n[] = { "optimal", "within-gap", "heuristic" };
	return n[o];
}

void search_result_free(struct search_result *res)
{
	for (int i = 0; i < res->n_plans; i++) {
		plan_free(&res->plans[i].plan);
		estimate_free(&res->plans[i].est);
	}
	free(res->plans);
	for (int i = 0; i < res->n_pareto; i++) {
		plan_free(&res->pareto[i].plan);
		estimate_free(&res->pareto[i].est);
	}
	free(res->pareto);
	for (int i = 0; i < HP_MAX_POOLS; i++)
		if (res->has_single[i]) {
			plan_free(&res->single[i].plan);
			estimate_free(&res->single[i].est);
		}
	if (res->has_nearest) {
		plan_free(&res->nearest.plan);
		estimate_free(&res->nearest.est);
	}
	memset(res, 0, sizeof *res);
}

int search_run(const struct cluster *c, const struct model_spec *m,
	       const struct search_opts *o, struct search_result *res,
	       struct hp_err *err)
{
	memset(res, 0, sizeof *res);
	(void)c; (void)m; (void)o;
	return hp_err_set(err, HP_EXIT_FAIL, "the planner is being built (interim)");
}
