/* bench.c — timings of the engine's hot paths (make bench). Prints, never
 * fails: targets are stated next to each number. */
#include <stdio.h>
#include "catalog.h"
#include "cluster.h"
#include "comm.h"
#include "perf.h"
#include "plan.h"
#include "search.h"

static volatile double sink;

static double time_estimate(const struct cluster *c, const struct model_spec *m,
			    const struct plan *p, int iters)
{
	struct estimate e;
	struct hp_err err = { 0 };
	double t0 = hp_now();
	for (int i = 0; i < iters; i++) {
		perf_estimate(c, m, p, NULL, &e, &err);
		sink += e.step_time_s;
		estimate_free(&e);
	}
	return (hp_now() - t0) / iters;
}

/* Best of 5 runs of `iters` estimates, seconds per estimate. */
static double best_estimate(const struct cluster *c, const struct model_spec *m,
			    const struct plan *p, int iters)
{
	double best = 1e9;
	for (int r = 0; r < 5; r++) {
		double t = time_estimate(c, m, p, iters);
		if (t < best)
			best = t;
	}
	return best;
}

int main(void)
{
	struct catalog cat;
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	printf("hetplan bench (one core; best of 5 runs each)\n\n");

	/* One estimate: Llama-3.1 70B, 64 H100, TP8 PP4 DP2 interleaved. */
	struct cluster c;
	cluster_init(&c);
	cluster_add_pool_spec(&c, "8x8xH100-SXM", &cat, &err);
	cluster_add_pool_spec(&c, "16x8xA100-40GB", &cat, &err);
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 512;
	p.recompute = RC_SELECTIVE;
	p.schedule = SCHED_INTERLEAVED;
	p.vpp = 5;
	const struct model_spec *m70 = catalog_model(&cat, "llama3.1-70b");
	plan_uniform(&p, &c, m70, 0, 8, 4, 2, &err);
	double best = best_estimate(&c, m70, &p, 20000);
	printf("estimate, 70B on 64 GPUs (TP8 PP4 DP2):   %8.2f us   target < 20 us  (%.1fx under)\n",
	       best * 1e6, 20e-6 / best);

	/* A 405B pipeline of 14 stages: the per-stage loop dominates. */
	const struct model_spec *m405 = catalog_model(&cat, "llama3.1-405b");
	plan_uniform(&p, &c, m405, 0, 8, 14, 1, &err);
	p.vpp = 1;
	p.schedule = SCHED_1F1B;
	best = best_estimate(&c, m405, &p, 5000);
	printf("estimate, 405B PP14 (14 stages):          %8.2f us   target < 20 us  (%.1fx under)\n",
	       best * 1e6, 20e-6 / best);

	/* One collective. */
	struct comm_group g = { 0 };
	comm_fabric_init(&g.fab, catalog_gpu(&cat, "H100"), INTRA_NVSWITCH, 8, 400);
	g.ranks = 512;
	g.ranks_per_node = 8;
	g.oversub = 1;
	struct comm_result cr;
	int n = 1000000;
	best = 1e9;
	for (int r = 0; r < 5; r++) {
		double t0 = hp_now();
		for (int i = 0; i < n; i++) {
			comm_time(&g, (enum comm_coll)(i % 3), (double)(1 << (i % 30)),
				  COMM_ALGO_AUTO, COMM_PROTO_AUTO, &cr, NULL);
			sink += cr.time_s;
		}
		double t = (hp_now() - t0) / n;
		if (t < best)
			best = t;
	}
	printf("comm_time, 512 ranks, 1 B - 512 MiB:      %8.3f us   target < 2 us   (%.1fx under)\n",
	       best * 1e6, 2e-6 / best);

	/* The planner: best of 3 full searches each. */
	printf("\n");
	struct {
		const char *what, *model;
		const char *pools[4];
		int gbs;
		double target;
	} cases[] = {
		{ "plan, 70B on 64 GPUs of 2 types", "llama3.1-70b",
		  { "4x8xH100-SXM,name=h100", "4x8xA100-80GB,name=a100" }, 512, 0.2 },
		{ "plan, 70B on 1,024 GPUs of 3 types", "llama3.1-70b",
		  { "32x8xH100-SXM,name=h100", "64x8xA100-80GB,name=a100", "32x8xL40S,name=l40s" },
		  1024, 1.0 },
		{ "plan, 405B on 16,384 GPUs of 4 types", "llama3.1-405b",
		  { "512x8xH100-SXM,name=h100", "768x8xA100-80GB,name=a100", "512x8xH200,name=h200",
		    "256x8xB200,name=b200" }, 2048, 10.0 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct cluster cc;
		cluster_init(&cc);
		for (int i = 0; i < 4 && cases[k].pools[i]; i++)
			cluster_add_pool_spec(&cc, cases[k].pools[i], &cat, &err);
		const struct model_spec *mm = catalog_model(&cat, cases[k].model);
		struct search_opts o;
		search_opts_init(&o);
		o.gbs = cases[k].gbs;
		double bt = 1e9;
		long cand = 0, ev = 0;
		for (int r = 0; r < 3; r++) {
			struct search_result res;
			double t0 = hp_now();
			search_run(&cc, mm, &o, &res, &err);
			double t = hp_now() - t0;
			if (t < bt) {
				bt = t;
				cand = res.stats.candidates;
				ev = res.stats.evaluated;
			}
			search_result_free(&res);
		}
		printf("%-38s %8.3f s    target < %4.1f s (%.1fx under); %ld candidates, %.0f model evaluations/s\n",
		       cases[k].what, bt, cases[k].target, cases[k].target / bt, cand, ev / bt);
	}
	plan_free(&p);
	catalog_done(&cat);
	return 0;
}
