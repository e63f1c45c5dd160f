/* serve_cases.h — issue 16's fleet case, shared by the serving test
 * (tests/test_serve_search.c, fleet_six_types) and make bench
 * (tests/bench_serve.c), so both time and check the same problem. */
#ifndef HP_SERVE_CASES_H
#define HP_SERVE_CASES_H

#include "catalog.h"
#include "cluster.h"
#include "serve_search.h"

/* pools[0..n) added to c (after cluster_init); 0 or -1 with err set. */
static inline int serve_case_pools(struct cluster *c, const struct catalog *cat,
				   const char *const *pools, int n, struct hp_err *err)
{
	cluster_init(c);
	for (int i = 0; i < n; i++)
		if (cluster_add_pool_spec(c, pools[i], cat, err) < 0)
			return -1;
	return 0;
}

/* Six GPU types, up to 8 nodes each, with their instance configurations;
 * Llama 3.1 70B at 40 req/s, lognormal prompts (1,500, cv 0.8) and
 * outputs (300, cv 0.8) cut into 4 x 5 buckets, p99 TTFT 2 s and TPOT
 * 50 ms. */
static const char *const serve_fleet_pools[6] = {
	"2x8xH100-SXM,max=8", "2x8xH200-SXM,max=8", "2x8xA100-SXM4-80GB,max=8",
	"2x8xL40S,max=8",     "2x8xB200,max=8",     "2x8xH20,max=8",
};

static inline void serve_fleet_opts(struct serve_opts *o, struct hp_err *err)
{
	serve_opts_init(o);
	o->rate = 40;
	serve_dist_parse("lognormal:1500:0.8", &o->isl, err);
	serve_dist_parse("lognormal:300:0.8", &o->osl, err);
	o->slo.ttft_p99_s = 2;
	o->slo.tpot_p99_s = 0.05;
}

#endif
