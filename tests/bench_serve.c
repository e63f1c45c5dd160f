/* bench_serve.c — timings of the serving planner (make bench). Prints,
 * never fails: issue 16's targets are stated next to each number. */
#include <stdio.h>
#include <stdlib.h>
#include "serve_cases.h"
#include "util.h"

/* The fleet case of issue 16 (serve_cases.h); best of `reps` solves. */
static void bench_fleet(const struct catalog *cat, int reps)
{
	struct cluster c;
	struct hp_err err = { 0 };
	if (serve_case_pools(&c, cat, serve_fleet_pools, 6, &err) < 0) {
		fprintf(stderr, "bench_serve: %s\n", err.msg);
		return;
	}
	const struct model_spec *m = catalog_model(cat, "llama3.1-70b");
	if (!m) {
		fprintf(stderr, "bench_serve: no llama3.1-70b preset\n");
		return;
	}
	struct serve_opts o;
	serve_fleet_opts(&o, &err);
	struct serve_plan_result *res = xcalloc(1, sizeof *res);
	double best = 1e9, ilp = 0;
	int ok = 1;
	for (int r = 0; r < reps; r++) {
		double t0 = hp_now();
		ok = serve_plan(&c, m, &o, NULL, res, &err) == 0 && ok;
		double t = hp_now() - t0;
		if (t < best) {
			best = t;
			ilp = res->ilp_seconds;
		}
	}
	printf("  fleet sizing, 6 GPU types x %d configurations x %d buckets  %6.3f s wall (ILP %.3f s)"
	       "  target < 1 s (%s)%s\n",
	       res->n_cands, res->n_buckets, best, ilp, best < 1 ? "met" : "MISSED",
	       ok ? "" : "  [no plan]");
	free(res);
}

/* The placement case of issue 16: 4 x A100-40GB + 8 x L4 + 12 x T4
 * serving Llama-2 70B in fp16 (Helix's cluster). No target in the issue
 * beyond completing; the time is printed. */
static void bench_place(const struct catalog *cat)
{
	static const char *const pools[] = { "4x1xA100-SXM4-40GB", "8x1xL4", "12x1xT4" };
	struct cluster c;
	struct hp_err err = { 0 };
	if (serve_case_pools(&c, cat, pools, 3, &err) < 0) {
		fprintf(stderr, "bench_serve: %s\n", err.msg);
		return;
	}
	const struct model_spec *m = catalog_model(cat, "llama2-70b");
	if (!m) {
		fprintf(stderr, "bench_serve: no llama2-70b preset\n");
		return;
	}
	struct serve_opts o;
	serve_opts_init(&o);
	o.offline = 1;
	o.place = 1;
	o.objective = SERVE_OBJ_THROUGHPUT;
	o.base.wprec = SW_FP16;
	o.base.kvprec = SKV_FP16;
	serve_dist_parse("512", &o.isl, &err);
	serve_dist_parse("128", &o.osl, &err);
	struct serve_plan_result *res = xcalloc(1, sizeof *res);
	double t0 = hp_now();
	int rc = serve_plan(&c, m, &o, NULL, res, &err);
	printf("  placement, 4 A100 + 8 L4 + 12 T4, llama2-70b fp16         %6.3f s wall  %s\n",
	       hp_now() - t0, rc == 0 ? "placed" : err.msg);
	free(res);
}

int main(void)
{
	struct catalog cat;
	struct hp_err err = { 0 };
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	printf("\nserving planner (wall: best of 3 runs)\n");
	bench_fleet(&cat, 3);
	bench_place(&cat);
	catalog_done(&cat);
	return 0;
}
