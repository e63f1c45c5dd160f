/* bench.c — timings of the engine's hot paths (make bench). Prints, never
 * fails: targets are stated next to each number. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "catalog.h"
#include "cluster.h"
#include "comm.h"
#include "perf.h"
#include "plan.h"
#include "report.h"
#include "search.h"
#include <cjson/cJSON.h>

static volatile double sink;

/* `bench CASE [OBJECTIVE]` runs only the planner cases whose name holds
 * CASE (and only that objective), for profiling one of them. For
 * callgrind, BENCH_THREADS=N runs the objective cases, and the
 * evaluation rate's second run, on N threads (0: the online cores, the
 * default) and BENCH_REPS=N runs each search N times instead of the
 * case's own count. */
static const char *only_case, *only_obj;
static int env_threads, env_reps;

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
}

static int wanted(const char *what, const char *obj)
{
	return (!only_case || strstr(what, only_case)) && (!only_obj || !strcmp(obj, only_obj));
}

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


/* BENCH_JSON=DIR writes every planner case's result (ranked plans, Pareto
 * front, per-pool bests, stock plan, bound, why and notes; no counters or
 * times) to DIR/CASE-OBJECTIVE.json, so runs before and after a change of
 * the search can be compared byte for byte. */
static void dump_result(const char *what, const char *obj, const struct search_result *res,
			const struct cluster *c, const struct model_spec *m)
{
	const char *dir = getenv("BENCH_JSON");
	if (!dir || !*dir)
		return;
	char path[512];
	int n = snprintf(path, sizeof path, "%s/", dir);
	for (const char *s = what; *s && n < (int)sizeof path - 40; s++)
		path[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			    (*s >= '0' && *s <= '9') ? *s : '_';
	snprintf(path + n, sizeof path - n, "-%s.json", obj);
	cJSON *o = cJSON_CreateObject();
	cJSON *pl = cJSON_AddArrayToObject(o, "plans");
	for (int i = 0; i < res->n_plans; i++)
		cJSON_AddItemToArray(pl, report_plan_json(&res->plans[i], i + 1, res, c, m));
	cJSON *pa = cJSON_AddArrayToObject(o, "pareto");
	for (int i = 0; i < res->n_pareto; i++)
		cJSON_AddItemToArray(pa, report_plan_json(&res->pareto[i], 0, res, c, m));
	cJSON *si = cJSON_AddArrayToObject(o, "single");
	for (int i = 0; i < c->n_pools; i++)
		cJSON_AddItemToArray(si, res->has_single[i]
				     ? report_plan_json(&res->single[i], 0, res, c, m) : cJSON_CreateNull());
	if (res->has_stock)
		cJSON_AddItemToObject(o, "stock", report_plan_json(&res->stock, 0, res, c, m));
	if (res->has_nearest)
		cJSON_AddItemToObject(o, "nearest", report_plan_json(&res->nearest, 0, res, c, m));
	char b[64];
	snprintf(b, sizeof b, "%.17g", res->has_bound ? res->bound : -1.0);
	cJSON_AddStringToObject(o, "bound", b);
	cJSON_AddStringToObject(o, "why", res->why);
	cJSON_AddStringToObject(o, "idle_note", res->idle_note);
	char *txt = cJSON_Print(o);
	FILE *f = fopen(path, "w");
	if (f && txt) {
		fputs(txt, f);
		fputc('\n', f);
	}
	if (f)
		fclose(f);
	cJSON_free(txt);
	cJSON_Delete(o);
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct run {
	double wall, cpu;
	double median;  /* median wall over the runs: the spread a loaded machine adds */
	int reps;
	struct search_stats st;
	int ok;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Best (by wall time) of `reps` searches; res keeps the last one. */
static struct run plan_run(const struct cluster *c, const struct model_spec *m,
			   const struct search_opts *o, int reps, struct search_result *res)
{
	struct run best = { 1e9, 0, 0, 0, { 0 }, 0 };
	struct hp_err err = { 0 };
	double walls[16];
	if (reps > (int)HP_ARRAY_LEN(walls))
		reps = (int)HP_ARRAY_LEN(walls);
	if (reps < 1)
		reps = 1;
	for (int r = 0; r < reps; r++) {
		if (r)
			search_result_free(res);
		double w0 = hp_now(), c0 = cpu_now();
		int rc = search_run(c, m, o, res, &err);
		double w = hp_now() - w0, cpu = cpu_now() - c0;
		walls[r] = w;
		if (w < best.wall) {
			best.wall = w;
			best.cpu = cpu;
			best.st = res->stats;
			best.ok = rc == 0;
		}
	}
	qsort(walls, (size_t)reps, sizeof walls[0], cmp_double);
	best.reps = reps;
	best.median = reps % 2 ? walls[reps / 2] : 0.5 * (walls[reps / 2 - 1] + walls[reps / 2]);
	return best;
}

/* One search's line. "model evaluations" is search_stats.evaluated:
 * whole estimates of plans, layout probes and the bound's DP terms, each
 * counted once where it ran (a layout probe the per-pool searches share
 * with the whole cluster's is counted by the search that ran it, not
 * again on each reuse), the per-pool searches' included. */
static void print_run(const char *what, const char *obj, const struct run *r, double target)
{
	printf("  %-34s %-10s %7.3f s wall %7.3f s cpu  target < %.1f s wall (%s, %.2fx)  "
	       "median of %d %.3f s  "
	       "%ld cand, %ld screened, %ld model evaluations, %d LPs (%d MILPs to GLPK)%s\n",
	       what, obj, r->wall, r->cpu, target, r->wall < target ? "met" : "MISSED",
	       target / r->wall, r->reps, r->median, r->st.candidates, r->st.screened, r->st.evaluated,
	       r->st.lp_solves, r->st.milp_glpk, r->ok ? "" : " (no plan)");
	/* where the time went (seconds summed over threads, search_stats) */
	const struct search_stats *t = &r->st;
	double rest = r->cpu - t->estimate_s - t->candidate_s - t->milp_s - t->lp_s;
	printf("    time: estimates %.2f s (%.1f us each), candidates %.2f s (%.2f us each), "
	       "MILPs %.2f s, bound LPs %.2f s, rest %.2f s (layouts, DP terms' fits, merge); "
	       "recompute_layers post-pass %.4f s (%ld estimates)\n",
	       t->estimate_s, t->evaluated ? 1e6 * t->estimate_s / t->evaluated : 0, t->candidate_s,
	       t->candidates ? 1e6 * t->candidate_s / t->candidates : 0, t->milp_s, t->lp_s,
	       rest > 0 ? rest : 0, t->recompute_s, t->recompute_evals);
}

static void add_pools(struct cluster *c, const char *const *pools, int n, struct catalog *cat)
{
	struct hp_err err = { 0 };
	cluster_init(c);
	for (int i = 0; i < n && pools[i]; i++)
		if (cluster_add_pool_spec(c, pools[i], cat, &err) < 0)
			fprintf(stderr, "bench: %s: %s\n", pools[i], err.msg);
}

/* Every objective on one cluster and model: throughput first; the
 * deadline is 1.5x the fastest plan's time to train and the budget 1.5x
 * its cost, so both can be met. */
static void bench_objectives(const char *what, const struct cluster *c,
			     const struct model_spec *m, int gbs, int reps, double t_thr,
			     double t_other)
{
	struct search_opts o;
	search_opts_init(&o);
	o.gbs = gbs;
	o.threads = env_threads;
	reps = env_reps > 0 ? env_reps : reps;
	struct search_result res;
	if (only_case && !strstr(what, only_case))
		return;
	struct run r = plan_run(c, m, &o, reps, &res);
	if (wanted(what, "throughput")) {
		print_run(what, "throughput", &r, t_thr);
		dump_result(what, "throughput", &res, c, m);
	}
	double T = res.n_plans ? res.plans[0].time_to_train_s : 0;
	double C = res.n_plans ? res.plans[0].cost_to_train_usd : 0;
	search_result_free(&res);
	if (!(T > 0 && C > 0)) {
		printf("  %-34s (no priced plan: cost, deadline and budget skipped)\n", what);
		return;
	}
	static const enum search_objective objs[] = { OBJ_COST, OBJ_DEADLINE, OBJ_BUDGET };
	for (size_t i = 0; i < HP_ARRAY_LEN(objs); i++) {
		if (!wanted(what, search_objective_name(objs[i])))
			continue;
		o.objective = objs[i];
		o.deadline_s = 1.5 * T;
		o.budget_usd = 1.5 * C;
		r = plan_run(c, m, &o, reps, &res);
		dump_result(what, search_objective_name(objs[i]), &res, c, m);
		search_result_free(&res);
		print_run(what, search_objective_name(objs[i]), &r, t_other);
	}
}

static void bench_planner(struct catalog *cat)
{
	struct cluster c;
	int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	printf("planner (wall: best of the runs, their median beside it; all %d online cores; cpu: every thread; "
	       "targets from issue 13 for 2 cores)\n", cores);

	static const char *const p64[] = { "4x8xH100-SXM,name=h100", "4x8xA100-80GB,name=a100" };
	add_pools(&c, p64, 2, cat);
	struct search_opts o;
	search_opts_init(&o);
	o.gbs = 512;
	struct search_result res;
	struct run r;
	if (wanted("70B, 64 GPUs of 2 types", "throughput")) {
		r = plan_run(&c, catalog_model(cat, "llama3.1-70b"), &o, 3, &res);
		search_result_free(&res);
		print_run("70B, 64 GPUs of 2 types", "throughput", &r, 0.2);
	}

	/* Evaluation rate and thread scaling on the 1,024-GPU 3-type case. */
	static const char *const p1k[] = { "32x8xH100-SXM,name=h100", "64x8xA100-80GB,name=a100",
					   "32x8xL40S,name=l40s" };
	add_pools(&c, p1k, 3, cat);
	const struct model_spec *m70 = catalog_model(cat, "llama3.1-70b");
	o.gbs = 1024;
	o.threads = 1;
	if (!wanted("evaluation rate", "throughput"))
		goto objectives;
	/* BENCH_REPS and BENCH_THREADS (callgrind) as for the objective
	 * cases: the second run on BENCH_THREADS threads */
	int rate_reps = env_reps > 0 ? env_reps : 3;
	struct run r1 = plan_run(&c, m70, &o, rate_reps, &res);
	search_result_free(&res);
	o.threads = env_threads;
	struct run rn = plan_run(&c, m70, &o, rate_reps, &res);
	search_result_free(&res);
	printf("  70B, 1,024 GPUs of 3 types, throughput: 1 thread %.3f s, %d threads %.3f s "
	       "(%.2fx)\n", r1.wall, env_threads > 0 ? env_threads : cores, rn.wall,
	       r1.wall / rn.wall);
	/* Counted separately (issue 13): candidates screened on their
	 * bounds without an estimate (a layout set skipped whole counts
	 * once), and model evaluations (search_stats.evaluated: whole
	 * estimates of plans, layout probes and the bound's DP terms, the
	 * per-pool searches' included); each per CPU second of the 1-thread
	 * run. */
	const struct search_stats *s1 = &r1.st;
	long whole = s1->evaluated - s1->probes - s1->dp_terms;
	printf("    per core: %.0f screened/s (%ld) and %.0f full estimates/s (%ld), "
	       "%.0f evaluations/s in all; target >= 1e6 evaluations/s (%s)\n",
	       s1->screened / r1.cpu, s1->screened, s1->evaluated / r1.cpu, s1->evaluated,
	       (s1->screened + s1->evaluated) / r1.cpu,
	       (s1->screened + s1->evaluated) / r1.cpu >= 1e6 ? "met" : "MISSED");
	printf("    the full estimates: %ld whole estimates of plans (%.0f/s), %ld layout probes "
	       "(stage records only), %ld DP terms of the bound (DP sync only)\n",
	       whole, whole / r1.cpu, s1->probes, s1->dp_terms);
	/* The same counts per second of the time each kind itself takes:
	 * candidates (screened or not: building, splitting and screening
	 * each; the per-pool searches' too) over the time spent on
	 * candidates outside their estimates, model evaluations over the
	 * time inside the model. */
	long cands = s1->candidates + s1->sub_candidates;
	if (s1->candidate_s > 0 && s1->estimate_s > 0 && cands > 0)
		printf("    own rates: %.0f candidates/s (%ld, %.2f us each), %.0f full estimates/s "
		       "(%.1f us each); the rest of the search is layouts, LPs and DP terms\n",
		       cands / s1->candidate_s, cands, 1e6 * s1->candidate_s / cands,
		       s1->evaluated / s1->estimate_s, 1e6 * s1->estimate_s / s1->evaluated);
	/* What the target asks of the rest (issue 13, thirteenth round):
	 * the rate if everything but the model's own evaluations took no
	 * time (estimate_s is sampled, search.c's ESTIMATE_SAMPLE), and the
	 * CPU time the rest took. */
	/* estimate_s is sampled wall time: on a loaded machine it can exceed
	 * the CPU time, and the rest is then not measured */
	if (s1->estimate_s > 0 && r1.cpu >= s1->estimate_s)
		printf("    ceiling: %.0f evaluations/s if the estimates' %.3f s were all the search "
		       "took; the rest took %.3f s (1e6/s would leave it %.3f s)\n",
		       (s1->screened + s1->evaluated) / s1->estimate_s, s1->estimate_s,
		       r1.cpu - s1->estimate_s,
		       fmax(0, (s1->screened + s1->evaluated) / 1e6 - s1->estimate_s));
	else if (s1->estimate_s > 0)
		printf("    ceiling: not measured (the estimates' sampled %.3f s exceed the search's "
		       "%.3f s of CPU: a loaded machine)\n", s1->estimate_s, r1.cpu);

objectives:
	o.threads = 0;
	bench_objectives("70B, 1,024 GPUs of 3 types", &c, m70, 1024, 5, 0.3, 0.5);
	bench_objectives("Mixtral 8x22B, 1,024 GPUs of 3 types", &c,
			 catalog_model(cat, "mixtral-8x22b"), 1024, 5, 0.3, 0.5);

	static const char *const p16k[] = { "512x8xH100-SXM,name=h100", "768x8xA100-80GB,name=a100",
					    "512x8xH200,name=h200", "256x8xB200,name=b200" };
	add_pools(&c, p16k, 4, cat);
	bench_objectives("405B, 16,384 GPUs of 4 types", &c, catalog_model(cat, "llama3.1-405b"),
			 2048, 3, 3.0, 3.0);
	bench_objectives("DeepSeek-V3, 16,384 GPUs of 4 types", &c,
			 catalog_model(cat, "deepseek-v3"), 2048, 3, 3.0, 3.0);

	/* 65,536 GPUs in 16 pools of 4,096: the plan against the best plan
	 * on the largest pool alone, and the printed gap. */
	static const char *const gpus[] = { "H100-SXM", "A100-80GB", "H200", "B200" };
	char specs[16][64];
	const char *p65k[16];
	for (int i = 0; i < 16; i++) {
		snprintf(specs[i], sizeof specs[i], "512x8x%s,name=p%d", gpus[i % 4], i);
		p65k[i] = specs[i];
	}
	if (!wanted("405B, 65,536 GPUs in 16 pools", "throughput"))
		return;
	add_pools(&c, p65k, 16, cat);
	search_opts_init(&o);
	o.gbs = 4096;
	o.top_k = 3;
	const struct model_spec *m405 = catalog_model(cat, "llama3.1-405b");
	r = plan_run(&c, m405, &o, 1, &res);
	print_run("405B, 65,536 GPUs in 16 pools", "throughput", &r, 30);
	dump_result("405B, 65,536 GPUs in 16 pools", "throughput", &res, &c, m405);
	if (res.n_plans) {
		const struct search_plan *b = &res.plans[0];
		double single = 0;
		for (int i = 0; i < c.n_pools; i++)
			if (res.has_single[i])
				single = fmax(single, res.single[i].est.tokens_per_s);
		printf("    best plan %.3gM tokens/s on %d GPUs, gap %.1f%% to the bound's %.3gM "
		       "(target <= 5%%); best single pool %.3gM tokens/s (%s)\n",
		       b->est.tokens_per_s / 1e6, b->est.n_gpus, 100 * b->gap,
		       res.has_bound && res.bound > 0 ? 1e-6 / res.bound : 0, single / 1e6,
		       b->est.tokens_per_s >= single ? "met" : "MISSED");
	}
	search_result_free(&res);
}

int main(int argc, char **argv)
{
	only_case = argc > 1 ? argv[1] : NULL;
	only_obj = argc > 2 ? argv[2] : NULL;
	env_threads = env_int("BENCH_THREADS", 0);
	env_reps = env_int("BENCH_REPS", 0);
	setvbuf(stdout, NULL, _IOLBF, 0);   /* figures as they come */
	struct catalog cat;
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	printf("hetplan bench (estimates: one core, best of 5 runs each)\n\n");
	if (only_case) {
		bench_planner(&cat);
		catalog_done(&cat);
		return 0;
	}

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

	/* The planner. */
	bench_planner(&cat);
	plan_free(&p);
	catalog_done(&cat);
	return 0;
}
