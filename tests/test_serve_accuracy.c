/* test_serve_accuracy.c — the serving model against measured results.
 *
 * Rows: tests/data/serving.csv, every row of the team's measured serving
 * set (../shared/data/serving/measured.csv) with its id, normalised to one
 * GPU and model name per row (the names as the source spelt them are kept
 * in the last two columns). Four sources:
 *   trtllm-0.17         TensorRT-LLM perf-overview, offline max throughput
 *   trtllm-1.0          the same page at a later commit (PyTorch backend)
 *   trtllm-0.14-online  the same page, online serving through Triton at
 *                       2-32 QPS and unlimited (500 requests)
 *   vllm-lambda         Lambda Labs' vLLM 0.5.4/0.6.0 benchmark (ShareGPT,
 *                       bursts of 320 prompts)
 * Models missing from the presets are in tests/data/serving_models.json
 * (from their Hugging Face config.json files).
 *
 * Scenarios and what is compared:
 *   offline   output tokens/s at saturation (trtllm-bench);
 *   online    mean TTFT and mean ITL below saturation, i.e. at a rate at
 *             most 0.8 x the rate the source itself measured at unlimited
 *             QPS (a rule on the measured data, not on the prediction);
 *   sat       the saturation rate: requests/s at unlimited QPS;
 *   burst     vLLM output tokens/s and ITL of a 320-prompt burst,
 *             predicted as saturated throughput with ISL 202 / OSL 214
 *             (an assumption: ShareGPT's lengths are not in the source;
 *             these are the lengths of the TensorRT-LLM online table's
 *             ShareGPT-like pair), max_num_seqs 256 as the runs set,
 *             vLLM 0.5.4's host time (serve_vllm_v0).
 * Constants fitted: gemm_eff and hbm_eff (serve_perf.c) by grid search.
 * Leave-one-source-out: for each source, the two are fitted on the other
 * sources and that source is predicted with them; the table prints the
 * in-sample error (the shipped constants) and the cross-validated one.
 * Rows that cannot be run are listed with the reason (GPU not in the
 * catalog, a model the preset schema cannot express).
 *
 * `blind` (at the end) predicts tests/data/serving_blind.csv, results from
 * eighteen other sources (AMD MI300X and MI325X with vLLM, NVIDIA NIM,
 * TensorRT-LLM 0.5 and 0.12, TensorRT Model Optimizer on H200, MLPerf
 * Inference v4.1, v5.0 and v5.1, MangoBoost's v5.1 heterogeneous MI300X +
 * MI325X clusters, vLLM's own CI, DataCrunch's and SGLang's SGLang runs,
 * LLM-Inference-Bench's vLLM on MI300X and A100-40GB, dstack's 405B on
 * H100, MLPerf v5.1 on RTX PRO 6000 and H200 NVL), with the shipped
 * constants: nothing is fitted on them. `hetero_place` predicts the
 * measured placements of tests/data/serving_hetero.csv (Helix). */
#include "t.h"
#include "cluster.h"
#include "jsonx.h"
#include "serve_accuracy.h"
#include "serve_perf.h"
#include "serve_search.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdlib.h>

/* The serving report quotes these figures from src/serve_accuracy.h;
 * a model change that moves one fails here until the header is
 * regenerated (the pipeline in its header), so no report quotes a stale
 * accuracy. Compared as printed, to 0.1. */
#define CHECK_QUOTED(got, quoted)                                                          \
	do {                                                                               \
		char g_[32], q_[32];                                                       \
		snprintf(g_, sizeof g_, "%.1f", (double)(got));                            \
		snprintf(q_, sizeof q_, "%.1f", (double)(quoted));                         \
		if (strcmp(g_, q_))                                                        \
			T_FAILF("src/serve_accuracy.h quotes %s = %s, measured %s: run "   \
				"build/tests/test_serve_accuracy | python3 "               \
				"tools/serve_accuracy_update.py", #quoted, q_, g_);        \
	} while (0)

#define MAX_ROWS 1300

struct row {
	char id[16], source[24], scen[16], model[32], w[8], kv[8], engine[16], gpu[24];
	char load[16], metric[16], conf[8];
	int tp, pp;
	double isl, osl, value;
	/* filled */
	const struct model_spec *m;
	int pool;           /* index into pools[] */
	char skip[80];
	int use;            /* scenario class, below */
	double qps;         /* online rate */
};

enum { U_NONE, U_OFFLINE, U_TTFT, U_ITL, U_SAT, U_BURST_TPS, U_BURST_ITL, U_COUNT };
static const char *const use_name[U_COUNT] = { "", "offline tok/s", "TTFT <sat", "ITL <sat",
					      "saturation", "burst tok/s", "burst ITL" };

static struct catalog cat;
static struct model_spec extra[16];
static int n_extra;
static struct row rows[MAX_ROWS];
static int n_rows;
static struct pool pools[16];
static int n_pools;

static const char *const sources[] = { "trtllm-0.17", "trtllm-1.0", "trtllm-0.14-online",
				       "vllm-lambda" };
#define N_SRC 4

static int split(char *line, char **f, int max)
{
	int n = 0;
	char *s = line;
	while (n < max) {
		f[n++] = s;
		char *c = strchr(s, ',');
		if (!c)
			break;
		*c = 0;
		s = c + 1;
	}
	char *nl = strchr(f[n - 1], '\n');
	if (nl)
		*nl = 0;
	return n;
}

static const struct model_spec *find_model(const char *name)
{
	for (int i = 0; i < n_extra; i++)
		if (!strcmp(extra[i].name, name))
			return &extra[i];
	return catalog_model(&cat, name);
}

static int find_pool(const char *gpu)
{
	for (int i = 0; i < n_pools; i++)
		if (!strcmp(pools[i].name, gpu))
			return i;
	const struct gpu_spec *g = catalog_gpu(&cat, gpu);
	if (!g || n_pools == 16)
		return -1;
	serve_pool_from_gpu(&pools[n_pools], g, 1);
	hp_strlcpy(pools[n_pools].name, gpu, sizeof pools[n_pools].name);
	return n_pools++;
}

static void load(void)
{
	struct hp_err err = { 0 };
	CHECK(catalog_load(&cat, "/nonexistent", &err) == 0);
	size_t len;
	char *txt = hp_read_file("tests/data/serving_models.json", &len, &err);
	CHECK(txt != NULL);
	cJSON *a = txt ? cJSON_Parse(txt) : NULL;
	cJSON *o;
	cJSON_ArrayForEach(o, a)
	{
		if (n_extra < 16 &&
		    catalog_parse_model(o, "serving_models.json", "[]", &extra[n_extra], &err) == 0)
			n_extra++;
		else
			T_FAILF("serving_models.json: %s", err.msg);
	}
	cJSON_Delete(a);
	free(txt);
	FILE *f = fopen("tests/data/serving.csv", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char line[1024];
	if (!fgets(line, sizeof line, f))
		return;
	while (fgets(line, sizeof line, f) && n_rows < MAX_ROWS) {
		char *c[20];
		if (split(line, c, 20) < 16)
			continue;
		struct row *r = &rows[n_rows++];
		memset(r, 0, sizeof *r);
		hp_strlcpy(r->id, c[0], sizeof r->id);
		hp_strlcpy(r->source, c[1], sizeof r->source);
		hp_strlcpy(r->scen, c[2], sizeof r->scen);
		hp_strlcpy(r->model, c[3], sizeof r->model);
		hp_strlcpy(r->w, c[4], sizeof r->w);
		hp_strlcpy(r->kv, c[5], sizeof r->kv);
		hp_strlcpy(r->engine, c[6], sizeof r->engine);
		hp_strlcpy(r->gpu, c[7], sizeof r->gpu);
		r->tp = atoi(c[8]);
		r->pp = atoi(c[9]);
		r->isl = strcmp(c[10], "sharegpt") ? atof(c[10]) : 202;
		r->osl = strcmp(c[11], "sharegpt") ? atof(c[11]) : 214;
		hp_strlcpy(r->load, c[12], sizeof r->load);
		hp_strlcpy(r->metric, c[13], sizeof r->metric);
		r->value = atof(c[14]);
		hp_strlcpy(r->conf, c[15], sizeof r->conf);
		r->m = find_model(r->model);
		r->pool = find_pool(r->gpu);
		char why[80];
		if (!r->m)
			snprintf(why, sizeof why,
				 "model %s: interleaved MoE layers, not in the preset schema", c[3]);
		else if (r->pool < 0)
			snprintf(why, sizeof why, "GPU %s not in the catalog", c[7]);
		else
			why[0] = 0;
		hp_strlcpy(r->skip, why, sizeof r->skip);
	}
	fclose(f);
}

/* Measured saturation (req/s at unlimited QPS) of the row's online group. */
static double measured_sat(const struct row *r)
{
	for (int i = 0; i < n_rows; i++) {
		const struct row *q = &rows[i];
		if (!strcmp(q->source, r->source) && !strcmp(q->model, r->model) &&
		    !strcmp(q->gpu, r->gpu) && q->tp == r->tp && q->isl == r->isl &&
		    q->osl == r->osl && !strcmp(q->load, "inf") && !strcmp(q->metric, "req_s"))
			return q->value;
	}
	return 0;
}

static void classify(void)
{
	for (int i = 0; i < n_rows; i++) {
		struct row *r = &rows[i];
		if (r->skip[0])
			continue;
		if (!strcmp(r->scen, "offline") && !strcmp(r->metric, "out_tps"))
			r->use = U_OFFLINE;
		else if (!strcmp(r->scen, "online")) {
			r->qps = atof(r->load);
			double sat = measured_sat(r);
			if (sat > 0 && r->qps <= 0.8 * sat) {
				if (!strcmp(r->metric, "ttft_ms"))
					r->use = U_TTFT;
				else if (!strcmp(r->metric, "itl_ms"))
					r->use = U_ITL;
			}
		} else if (!strcmp(r->scen, "online-inf") && !strcmp(r->metric, "req_s")) {
			if (r->isl == 467)
				r->use = U_SAT;
			else
				hp_strlcpy(r->skip, "saturation of the 202/214 pair: see docs/serving.md",
					   sizeof r->skip);
		}
		else if (!strcmp(r->scen, "burst") && !strcmp(r->load, "burst320")) {
			if (!strcmp(r->metric, "out_tps"))
				r->use = U_BURST_TPS;
			else if (!strcmp(r->metric, "itl_ms"))
				r->use = U_BURST_ITL;
		}
	}
}

/* The vLLM rows of the calibration (vllm-lambda: the "Tensor Parallel v.s.
 * Data Parallel" table, 96 rows) ran vllm/vllm-openai:v0.5.4 (measured.csv's
 * engine_version column). That version processed each step's output
 * synchronously: the host work of a call sits in series with the GPU.
 * They take the V0 engine's host time (serve_vllm_v0: 8 ms a call plus
 * 35 us a running sequence, from tests/data/serving_v0_host.csv; until
 * round 50 a fixed 9 ms, RFC #6854's midpoint); set from the version,
 * not fitted on these rows. */

/* Prediction for a row under calibration k; NAN when it does not fit. */
static double predict(const struct row *r, const struct serve_calib *k)
{
	struct serve_config cfg = { 0 };
	cfg.tp = r->tp;
	cfg.pp = r->pp;
	if (serve_wprec_parse(r->w, &cfg.wprec))
		return NAN;
	if (serve_kvprec_parse(r->kv, &cfg.kvprec))
		return NAN;
	/* the 1.0 tables ran the PyTorch backend, the older ones TensorRT engines */
	if (!strcmp(r->engine, "vllm"))
		cfg.engine = ENGINE_VLLM;
	else
		cfg.engine = strcmp(r->source, "trtllm-1.0") ? ENGINE_TRTLLM_ENGINE : ENGINE_TRTLLM;
	if (cfg.engine == ENGINE_VLLM) {
		cfg.max_batch = 256;     /* the runs' max-num-seqs */
		serve_vllm_v0(&cfg);
	}
	struct pool p = pools[r->pool];
	int need = r->tp * r->pp;
	if (need > p.gpus_per_node)
		p.nodes = (need + p.gpus_per_node - 1) / p.gpus_per_node;
	struct serve_load ld = { r->isl, r->osl, 0, 0, 0, 0 };
	if (r->use == U_TTFT || r->use == U_ITL)
		ld.rate = r->qps;
	struct serve_result res;
	struct hp_err err = { 0 };
	if (serve_evaluate(&p, r->m, &cfg, &ld, k, &res, &err) < 0 || !res.fits)
		return NAN;
	switch (r->use) {
	case U_OFFLINE:
	case U_BURST_TPS: return res.out_tps_max;
	case U_TTFT: return res.ttft_s.mean * 1e3;
	case U_ITL: return res.tpot_s.mean * 1e3;
	case U_SAT: return res.req_s_max;
	case U_BURST_ITL: return res.tpot_sat_s * 1e3;
	}
	return NAN;
}

struct acc {
	double sum;
	int n, miss;    /* miss: the model says it does not fit */
};

static double mape(const struct acc *a) { return a->n ? a->sum / a->n : 0; }

/* Error sums per (source, use) for calibration k over rows whose source is
 * (or, with exclude, is not) src; src NULL: all rows. */
static void score(const struct serve_calib *k, const char *src, int exclude,
		  struct acc out[N_SRC][U_COUNT])
{
	memset(out, 0, sizeof(struct acc) * N_SRC * U_COUNT);
	for (int i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		if (!r->use)
			continue;
		if (src && (strcmp(r->source, src) == 0) == exclude)
			continue;
		int s = 0;
		while (s < N_SRC && strcmp(sources[s], r->source))
			s++;
		if (s == N_SRC)
			continue;
		double p = predict(r, k);
		if (isnan(p)) {
			out[s][r->use].miss++;
			continue;
		}
		out[s][r->use].sum += 100 * fabs(p - r->value) / r->value;
		out[s][r->use].n++;
	}
}

/* The fit objective: the mean over the scenario classes offline, TTFT,
 * ITL and saturation (ISL-467 groups) of each class's MAPE over the
 * training rows, a row predicted not to fit counting 100%. Classes weigh
 * the same, so 12 saturation rows count as much as 558 offline ones. */
static double objective(const struct serve_calib *k, const char *held_out)
{
	struct acc a[N_SRC][U_COUNT];
	score(k, held_out, held_out != NULL, a);
	double tot = 0;
	int classes = 0;
	for (int u = U_OFFLINE; u <= U_SAT; u++) {
		double sum = 0;
		int n = 0;
		for (int s = 0; s < N_SRC; s++) {
			sum += a[s][u].sum + 100 * a[s][u].miss;
			n += a[s][u].n + a[s][u].miss;
		}
		if (n) {
			tot += sum / n;
			classes++;
		}
	}
	return classes ? tot / classes : 0;
}

/* The fitted constants and the physical range each is searched in (the
 * ranges of serve_perf.c's comments). */
static const struct {
	const char *name;
	size_t off;
	double lo, hi;
} fitted[] = {
	{ "gemm_eff", offsetof(struct serve_calib, gemm_eff), 0.45, 0.85 },
	{ "gemm_eff_lowp", offsetof(struct serve_calib, gemm_eff_lowp), 0.35, 0.80 },
	{ "hbm_eff", offsetof(struct serve_calib, hbm_eff), 0.60, 0.92 },
	{ "moe_eff", offsetof(struct serve_calib, moe_eff), 0.30, 1.00 },
	{ "gemm_dim_half", offsetof(struct serve_calib, gemm_dim_half), 64, 1024 },
	{ "overlap", offsetof(struct serve_calib, overlap), 0, 1 },
};
#define N_FIT 6
#define FIT_STEPS 8

/* Coordinate descent from the middle of every range (not from the shipped
 * values, so a fold never sees them): each constant in turn over
 * FIT_STEPS + 1 points of its range, three rounds. */
static void fit(const char *held_out, struct serve_calib *best)
{
	*best = *serve_calib_default();
	for (int f = 0; f < N_FIT; f++)
		*(double *)((char *)best + fitted[f].off) = 0.5 * (fitted[f].lo + fitted[f].hi);
	double bo = objective(best, held_out);
	for (int round = 0; round < 3; round++)
		for (int f = 0; f < N_FIT; f++)
			for (int i = 0; i <= FIT_STEPS; i++) {
				struct serve_calib k = *best;
				double v = fitted[f].lo + (fitted[f].hi - fitted[f].lo) * i / FIT_STEPS;
				*(double *)((char *)&k + fitted[f].off) = v;
				double o = objective(&k, held_out);
				if (o < bo) {
					bo = o;
					*best = k;
				}
			}
}

static struct acc insample[N_SRC][U_COUNT], cv[N_SRC][U_COUNT];
static void dump(void);

TEST(table)
{
	load();
	classify();
	dump();
	int skipped = 0;
	for (int i = 0; i < n_rows; i++)
		if (rows[i].skip[0]) {
			if (skipped < 3 || strcmp(rows[i].skip, rows[i - 1].skip))
				printf("skipped %s: %s\n", rows[i].id, rows[i].skip);
			skipped++;
		}
	printf("%d rows, %d skipped (GPU or model not expressible)\n\n", n_rows, skipped);
	score(NULL, NULL, 0, insample);
	if (getenv("HETPLAN_SERVE_FIT")) {
		struct serve_calib k;
		fit(NULL, &k);
		printf("fitted on every source:");
		for (int f = 0; f < N_FIT; f++)
			printf(" %s %.3f", fitted[f].name, *(double *)((char *)&k + fitted[f].off));
		printf("\n");
	}
	for (int s = 0; s < N_SRC; s++) {
		struct serve_calib k;
		fit(sources[s], &k);
		printf("fold %-20s fitted on the others:", sources[s]);
		for (int f = 0; f < N_FIT; f++)
			printf(" %s %.3f", fitted[f].name, *(double *)((char *)&k + fitted[f].off));
		printf("\n");
		struct acc a[N_SRC][U_COUNT];
		score(&k, sources[s], 0, a);
		for (int u = 0; u < U_COUNT; u++)
			cv[s][u] = a[s][u];
	}
	printf("\n%-20s %-14s %5s %6s %12s %12s\n", "source", "scenario", "rows", "nofit",
	       "MAPE shipped", "MAPE LOSO-CV");
	for (int s = 0; s < N_SRC; s++)
		for (int u = 1; u < U_COUNT; u++) {
			if (!insample[s][u].n && !insample[s][u].miss)
				continue;
			printf("%-20s %-14s %5d %6d %11.1f%% %11.1f%%\n", sources[s], use_name[u],
			       insample[s][u].n, insample[s][u].miss, mape(&insample[s][u]),
			       mape(&cv[s][u]));
		}
}

/* HETPLAN_SERVE_DUMP=1: every compared row with its prediction (for
 * studying the errors; not part of the test). */
static void dump(void)
{
	if (!getenv("HETPLAN_SERVE_DUMP"))
		return;
	for (int i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		if (!r->use)
			continue;
		printf("DUMP,%s,%s,%s,%s,%s,%s,%s,%d,%d,%.0f,%.0f,%s,%s,%g,%g\n", r->id, r->source,
		       use_name[r->use], r->model, r->w, r->kv, r->gpu, r->tp, r->pp, r->isl, r->osl,
		       r->load, r->metric, r->value, predict(r, NULL));
	}
}

/* Per-row listing of the online rows (small) for the docs. */
TEST(online_rows)
{
	const struct serve_calib *k = serve_calib_default();
	printf("\nonline rows below saturation (TensorRT-LLM 0.14 + Triton):\n");
	for (int i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		if (r->use != U_TTFT && r->use != U_ITL && r->use != U_SAT)
			continue;
		double p = predict(r, k);
		printf("  %s %-13s %-9s tp%d %4.0f/%-4.0f qps %-4s %-7s measured %8.1f predicted %8.1f %+6.1f%%\n",
		       r->id, r->model, r->gpu, r->tp, r->isl, r->osl, r->load, r->metric, r->value,
		       p, 100 * (p - r->value) / r->value);
	}
}

/* The bounds the model holds, cross-validated by source. They are set at
 * the errors measured when this test was written (docs/serving.md) plus a
 * small margin, so a change that makes the model worse fails here. */
TEST(bounds)
{
	struct acc off = { 0 }, ttft = { 0 }, itl = { 0 }, sat = { 0 };
	for (int s = 0; s < N_SRC; s++) {
		off.sum += cv[s][U_OFFLINE].sum;
		off.n += cv[s][U_OFFLINE].n;
		off.miss += cv[s][U_OFFLINE].miss;
		ttft.sum += cv[s][U_TTFT].sum;
		ttft.n += cv[s][U_TTFT].n;
		itl.sum += cv[s][U_ITL].sum;
		itl.n += cv[s][U_ITL].n;
		sat.sum += cv[s][U_SAT].sum;
		sat.n += cv[s][U_SAT].n;
	}
	printf("\ncross-validated: offline %.1f%% (%d rows, %d predicted not to fit), TTFT %.1f%% "
	       "(%d), ITL %.1f%% (%d), saturation %.1f%% (%d)\n",
	       mape(&off), off.n, off.miss, mape(&ttft), ttft.n, mape(&itl), itl.n, mape(&sat),
	       sat.n);
	CHECK(off.n > 500);
	CHECK(ttft.n >= 20 && itl.n >= 20);
	/* The targets: 20% / 25% / 25%. Cross-validated when this
	 * was written: offline 18.8% (trtllm-0.17 17.2%, trtllm-1.0 21.9%),
	 * TTFT 13.2%, ITL 21.2%. */
	CHECK(mape(&off) <= 20);
	CHECK(mape(&ttft) <= 25);
	CHECK(mape(&itl) <= 25);
	CHECK_QUOTED(mape(&off), SACC_OFFLINE_MAPE);
	CHECK_QUOTED(off.n, SACC_OFFLINE_ROWS);
	CHECK_QUOTED(mape(&ttft), SACC_TTFT_MAPE);
	CHECK_QUOTED(ttft.n, SACC_TTFT_ROWS);
	CHECK_QUOTED(mape(&itl), SACC_ITL_MAPE);
	CHECK_QUOTED(itl.n, SACC_ITL_ROWS);
	CHECK_QUOTED(mape(&sat), SACC_SAT_MAPE);
	CHECK_QUOTED(sat.n, SACC_SAT_ROWS);
	CHECK(off.miss == 0);
	/* every vLLM row runs too (70B FP8 on one A100-80GB fits) */
	CHECK(cv[3][U_BURST_TPS].miss == 0);
}

/* Saturation: requests/s at unlimited QPS. Held to +-20% for the
 * ISL-467 groups (8 rows; within 12% when written). The ISL 202 / OSL 214
 * groups measure 16-17 req/s for 70B, the same as 467/256, although their
 * prompts are less than half as long; the model predicts 30 and the rows
 * are reported, not asserted (docs/serving.md discusses them). These rows
 * take no part in the fit. */
TEST(saturation)
{
	int n = 0;
	for (int i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		if (r->use != U_SAT || r->isl != 467)
			continue;
		double p = predict(r, NULL);
		n++;
		if (!(fabs(p - r->value) <= 0.2 * r->value))
			T_FAILF("%s: saturation %.1f req/s predicted, %.1f measured", r->id, p,
				r->value);
	}
	CHECK_EQ_INT(n, 8);
}

/* ---- bursts: what a request rate "at unlimited QPS" measures -------------
 *
 * The online source's INF rows are 500 requests sent at once; its req/s is
 * 500 / the time the last one took (the makespan), and its TTFT and ITL are
 * means over those requests. Little's law on the source's own columns says
 * how spread the requests' latencies were: the mean latency of a request
 * is TTFT + (OSL - 1) x ITL, and makespan / mean latency is at most about
 * 1.3 when every request has the same lengths (they all start within the
 * first prefill wave and decode together). The ISL-467 groups show
 * 1.01-1.03; the 202/214 groups 2.0-2.1, which only unequal output lengths
 * explain: the pair is a variable-length set (ShareGPT-like, as the Lambda
 * runs), and the last, longest requests run nearly alone at the end. So
 * the 202/214 rows measure the tail of the length distribution, not the
 * steady-state rate serve_evaluate predicts (30 req/s for 70B on H100).
 *
 * serve_burst (serve_perf.c) runs the burst iteration by iteration. With
 * fixed lengths it must match the ISL-467 groups; for the variable-length
 * sets the output lengths are lognormal with mean OSL and a CV that is a
 * property of the workload, not of the model: it is fitted on one source's
 * bursts and used to predict the other's (cross-validated by source). */

static const double burst_cvs[] = { 0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0 };
#define N_BURST_CV 8

/* The lengths of a burst of n requests of the row: fixed, or output
 * lengths at n equal-probability quantiles of lognormal(OSL, ocv), shuffled
 * (a fixed permutation) so the admission order is not sorted by length. */
static void burst_lengths(const struct row *r, int n, double ocv, double *isl, double *osl)
{
	unsigned s = 12345;
	for (int i = 0; i < n; i++) {
		isl[i] = r->isl;
		osl[i] = r->osl;
	}
	if (ocv <= 0)
		return;
	/* quantile p of lognormal(mean, ocv): exp(mu + sigma z(p)), sigma^2 =
	 * ln(1 + ocv^2), mu = ln(mean) - sigma^2 / 2; z by bisection on erfc */
	double s2 = log(1 + ocv * ocv), sg = sqrt(s2), mu = log(r->osl) - s2 / 2;
	for (int i = 0; i < n; i++) {
		double p = (i + 0.5) / n, lo = -8, hi = 8;
		for (int it = 0; it < 60; it++) {
			double z = 0.5 * (lo + hi);
			if (0.5 * erfc(-z / sqrt(2)) < p)
				lo = z;
			else
				hi = z;
		}
		osl[i] = fmax(1, round(exp(mu + sg * 0.5 * (lo + hi))));
	}
	for (int i = n - 1; i > 0; i--) {
		s = s * 1103515245u + 12345u;
		int j = (int)((s >> 8) % (unsigned)(i + 1));
		double t = osl[i];
		osl[i] = osl[j];
		osl[j] = t;
	}
}

/* A burst row's prediction (req/s, output tok/s, TTFT ms or ITL ms, as
 * the row measures) with output-length CV ocv; NAN if it does not fit. */
static double predict_burst(const struct row *r, double ocv)
{
	struct serve_config cfg = { 0 };
	cfg.tp = r->tp;
	cfg.pp = r->pp;
	if (serve_wprec_parse(r->w, &cfg.wprec) || serve_kvprec_parse(r->kv, &cfg.kvprec))
		return NAN;
	int vllm = !strcmp(r->engine, "vllm");
	cfg.engine = vllm ? ENGINE_VLLM : ENGINE_TRTLLM_ENGINE;
	if (vllm) {
		cfg.max_batch = 256;     /* the runs' max-num-seqs */
		serve_vllm_v0(&cfg);
	}
	/* the online table: 500 requests; Lambda: --num-prompts 320 */
	int n = vllm ? 320 : 500;
	double isl[500], osl[500];
	burst_lengths(r, n, ocv, isl, osl);
	struct pool p = pools[r->pool];
	int need = r->tp * r->pp;
	if (need > p.gpus_per_node)
		p.nodes = (need + p.gpus_per_node - 1) / p.gpus_per_node;
	struct serve_burst_result b;
	struct hp_err err = { 0 };
	if (serve_burst(&p, r->m, &cfg, n, isl, osl, NULL, &b, &err) < 0 || !b.fits)
		return NAN;
	if (!strcmp(r->metric, "req_s"))
		return b.req_s;
	if (!strcmp(r->metric, "out_tps"))
		return b.out_tps;
	if (!strcmp(r->metric, "ttft_ms"))
		return b.ttft_mean_s * 1e3;
	if (!strcmp(r->metric, "itl_ms"))
		return b.itl_mean_s * 1e3;
	return NAN;
}

/* A value of the row's INF group. */
static double group_value(const struct row *r, const char *metric)
{
	for (int i = 0; i < n_rows; i++) {
		const struct row *q = &rows[i];
		if (!strcmp(q->scen, "online-inf") && !strcmp(q->model, r->model) &&
		    !strcmp(q->gpu, r->gpu) && q->isl == r->isl && q->osl == r->osl &&
		    !strcmp(q->metric, metric))
			return q->value;
	}
	return NAN;
}

static int variable_set(const struct row *r)
{
	return !strcmp(r->source, "vllm-lambda") || r->isl != 467;
}

/* The burst rows a CV is fitted on or scored on: the Lambda runs' output
 * tok/s (320 prompts), or the online table's 202/214 req/s. */
static int burst_row(const struct row *r, const char *src)
{
	if (r->skip[0] && strcmp(r->scen, "online-inf"))
		return 0;
	if (!r->m || r->pool < 0 || strcmp(r->source, src))
		return 0;
	if (!strcmp(src, "vllm-lambda"))
		return r->use == U_BURST_TPS;
	return !strcmp(r->scen, "online-inf") && !strcmp(r->metric, "req_s") && variable_set(r);
}

static double burst_mape(const char *src, double ocv, int *n)
{
	double sum = 0;
	*n = 0;
	for (int i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		if (!burst_row(r, src))
			continue;
		double p = predict_burst(r, ocv);
		sum += isnan(p) ? 100 : 100 * fabs(p - r->value) / r->value;
		(*n)++;
	}
	return *n ? sum / *n : 0;
}

static double fit_burst_cv(const char *src)
{
	double best = 0, bo = HUGE_VAL;
	for (int c = 0; c < N_BURST_CV; c++) {
		int n;
		double e = burst_mape(src, burst_cvs[c], &n);
		if (e < bo) {
			bo = e;
			best = burst_cvs[c];
		}
	}
	return best;
}

TEST(burst)
{
	printf("\nbursts of 500 requests at unlimited QPS (TensorRT-LLM 0.14 + Triton):\n");
	/* The CV of the variable-length sets' output lengths, fitted on each
	 * source's bursts and tried on the other's. */
	double ocv_lambda = fit_burst_cv("vllm-lambda");
	double ocv_online = fit_burst_cv("trtllm-0.14-online");
	int n_l, n_o;
	double e_online_in = burst_mape("trtllm-0.14-online", ocv_online, &n_o);
	double e_online = burst_mape("trtllm-0.14-online", ocv_lambda, &n_o);
	double e_online0 = burst_mape("trtllm-0.14-online", 0, &n_o);
	double e_lambda_in = burst_mape("vllm-lambda", ocv_lambda, &n_l);
	double e_lambda = burst_mape("vllm-lambda", ocv_online, &n_l);
	double e_lambda0 = burst_mape("vllm-lambda", 0, &n_l);
	printf("  output-length CV fitted on the online 202/214 rows %.2f, on vllm-lambda %.2f\n",
	       ocv_online, ocv_lambda);
	printf("  online 202/214 req/s (%d rows): MAPE %.1f%% in-sample, %.1f%% with lambda's CV, "
	       "%.1f%% fixed lengths\n", n_o, e_online_in, e_online, e_online0);
	printf("  vllm-lambda burst tok/s (%d rows): MAPE %.1f%% in-sample, %.1f%% with the online "
	       "CV, %.1f%% fixed lengths\n", n_l, e_lambda_in, e_lambda, e_lambda0);
	int n_fixed = 0;
	for (int i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		if (strcmp(r->scen, "online-inf") || !r->m || r->pool < 0 ||
		    (strcmp(r->metric, "req_s") && strcmp(r->metric, "ttft_ms") &&
		     strcmp(r->metric, "itl_ms")))
			continue;
		/* variable-length groups at the CV fitted on them (in-sample:
		 * a description of the set, not a prediction) */
		double ocv = variable_set(r) ? ocv_online : 0;
		double p = predict_burst(r, ocv);
		printf("  %s %-12s %-8s tp%d %3.0f/%-3.0f %-7s measured %7.1f burst %7.1f %+6.1f%%",
		       r->id, r->model, r->gpu, r->tp, r->isl, r->osl, r->metric, r->value, p,
		       100 * (p - r->value) / r->value);
		if (strcmp(r->metric, "req_s")) {
			printf("\n");
			continue;
		}
		/* the source's own spread: makespan over the mean latency */
		double lat = (group_value(r, "ttft_ms") + (r->osl - 1) * group_value(r, "itl_ms")) / 1e3;
		double ratio = 500 / r->value / lat;
		printf("  makespan/latency %.2f\n", ratio);
		if (variable_set(r)) {
			CHECK(ratio > 1.5);
		} else {
			CHECK(ratio < 1.1);
			n_fixed++;
			/* fixed lengths: the burst must match with nothing fitted
			 * (within 11% when written) */
			if (!(fabs(p - r->value) <= 0.2 * r->value))
				T_FAILF("%s: burst %.1f req/s predicted, %.1f measured", r->id, p, r->value);
		}
	}
	CHECK_EQ_INT(n_fixed, 8);
	CHECK_EQ_INT(n_o, 4);
	/* Not asserted: the CV does not carry over between the two sources
	 * (docs/serving.md says why), so the 202/214 rate is described, not
	 * predicted. */
}

/* ---- vLLM versions: the Lambda table the calibration leaves out ----------
 *
 * Lambda's "vLLM v0.5.4 v.s. v0.6.0" table (measured.csv C1158-C1184;
 * benchmark_v0.md @ 0e8fc5d) runs one ShareGPT burst per model (5,000
 * prompts for 8B and 70B, 1,280 for 405B FP8; max-num-seqs 256,
 * max-seq-len 2048) three ways, the settings in measured.csv's
 * engine_version column:
 *   0.5.4, chunked prefill on, one decode step per call;
 *   0.6.0, chunked prefill off, --num-scheduler-steps 1;
 *   0.6.0, chunked prefill off, --num-scheduler-steps 10.
 * No constant is fitted on these rows: they are a holdout for the host
 * work per iteration of each version (serve_step_overhead). Settings
 * from the versions: 0.5.4 processes each step's output synchronously
 * (the V0 engine's host time, serve_vllm_v0: 8 ms a call and 35 us a
 * running sequence; a fixed 9 ms, RFC #6854's midpoint, until round 50),
 * and with chunked prefill and no --max-num-batched-tokens its
 * SchedulerConfig budget is 512 tokens; 0.6.0 runs prompts apart with
 * --num-scheduler-steps decode steps per call and keeps V0's host time
 * (the same two terms, once per call; its async output processing, which
 * overlaps part of it with the GPU, is not modelled).
 * Lengths: the calibration's ShareGPT pair (202/214), fixed and at the
 * online table's output-length CV (a cross-source value); the bursts
 * are cut at SERVE_BURST_MAX prompts (4,096 of 5,000: the 256-request
 * waves are the same, the tail's share a little larger). The ITL and
 * TPOT columns are not scored: the table does not say which statistic
 * they are, and with ten steps per call tokens arrive ten at a time. */
static const struct {
	const char *id;
	int v054, steps;
} version_rows[] = {
	{ "C1158", 1, 1 }, { "C1161", 0, 1 }, { "C1164", 0, 10 },
	{ "C1167", 1, 1 }, { "C1170", 0, 1 }, { "C1173", 0, 10 },
	{ "C1176", 1, 1 }, { "C1179", 0, 1 }, { "C1182", 0, 10 },
};
#define N_VERSION_ROWS 9

static double predict_version(const struct row *r, int v054, int steps, double ocv)
{
	struct serve_config cfg = { 0 };
	cfg.tp = r->tp;
	cfg.pp = r->pp;
	if (serve_wprec_parse(r->w, &cfg.wprec) || serve_kvprec_parse(r->kv, &cfg.kvprec))
		return NAN;
	cfg.engine = ENGINE_VLLM;
	cfg.max_batch = 256;
	if (v054) {
		serve_vllm_v0(&cfg);
		cfg.chunk_tokens = 512;
	} else {
		cfg.prefill_apart = 1;
		cfg.sched_steps = steps;
		/* 0.6.0 is still the V0 engine: its host time, once per
		 * call (serve_perf.c amortises it over the steps) */
		serve_vllm_v0(&cfg);
	}
	int n = !strcmp(r->load, "burst1280") ? 1280 : 5000;
	if (n > SERVE_BURST_MAX)
		n = SERVE_BURST_MAX;
	static double isl[SERVE_BURST_MAX], osl[SERVE_BURST_MAX];
	burst_lengths(r, n, ocv, isl, osl);
	struct pool p = pools[r->pool];
	int need = r->tp * r->pp;
	if (need > p.gpus_per_node)
		p.nodes = (need + p.gpus_per_node - 1) / p.gpus_per_node;
	struct serve_burst_result b;
	struct hp_err err = { 0 };
	if (serve_burst(&p, r->m, &cfg, n, isl, osl, NULL, &b, &err) < 0 || !b.fits)
		return NAN;
	return b.out_tps;
}

TEST(versions)
{
	printf("\nvLLM 0.5.4 / 0.6.0 bursts (vllm-lambda C1158-C1184, not in the fit):\n");
	double ocv = fit_burst_cv("trtllm-0.14-online");
	struct acc a0 = { 0 }, ac = { 0 };
	int seen = 0;
	double m1 = 0, p1 = 0;
	for (int v = 0; v < N_VERSION_ROWS; v++)
		for (int i = 0; i < n_rows; i++) {
			const struct row *r = &rows[i];
			if (strcmp(r->id, version_rows[v].id))
				continue;
			seen++;
			CHECK(!strcmp(r->source, "vllm-lambda") && !strcmp(r->metric, "out_tps"));
			double f = predict_version(r, version_rows[v].v054, version_rows[v].steps, 0);
			double c = predict_version(r, version_rows[v].v054, version_rows[v].steps, ocv);
			printf("  %s %-13s tp%d %-5s steps %2d  measured %7.1f  fixed lengths %7.1f "
			       "%+6.1f%%  CV %.2f %7.1f %+6.1f%%",
			       r->id, r->model, r->tp, version_rows[v].v054 ? "0.5.4" : "0.6.0",
			       version_rows[v].steps, r->value, f, 100 * (f - r->value) / r->value, ocv,
			       c, 100 * (c - r->value) / r->value);
			if (!isnan(f)) {
				a0.sum += 100 * fabs(f - r->value) / r->value;
				a0.n++;
			}
			if (!isnan(c)) {
				ac.sum += 100 * fabs(c - r->value) / r->value;
				ac.n++;
			}
			/* the ten-step speed-up over one step, measured and
			 * predicted (the host step's share of an iteration) */
			if (!version_rows[v].v054 && version_rows[v].steps == 1) {
				m1 = r->value;
				p1 = c;
			} else if (!version_rows[v].v054 && m1 > 0)
				printf("  10 steps / 1: measured %.2fx, predicted %.2fx", r->value / m1,
				       c / p1);
			printf("\n");
		}
	CHECK_EQ_INT(seen, N_VERSION_ROWS);
	/* and at the CV fitted on the same source's 320-prompt bursts (the
	 * same ShareGPT set; in-source, so not a cross-validated figure) */
	double ocv_l = fit_burst_cv("vllm-lambda");
	struct acc al = { 0 };
	for (int v = 0; v < N_VERSION_ROWS; v++)
		for (int i = 0; i < n_rows; i++) {
			const struct row *r = &rows[i];
			if (strcmp(r->id, version_rows[v].id))
				continue;
			double c = predict_version(r, version_rows[v].v054, version_rows[v].steps, ocv_l);
			if (!isnan(c)) {
				al.sum += 100 * fabs(c - r->value) / r->value;
				al.n++;
			}
		}
	printf("vLLM version bursts: %d rows MAPE %.1f%% fixed lengths, %.1f%% at CV %.2f, "
	       "%.1f%% at Lambda's CV %.2f\n", a0.n, mape(&a0), mape(&ac), ocv, mape(&al), ocv_l);
}

/* ---- vLLM's V0 host time: the non-blind measurements that set it ----------
 *
 * tests/data/serving_v0_host.csv (sources in its README): vLLM 0.5.x
 * step times at batch 1 and 32 (RFC #6913, Llama 3 70B FP8, 4 x H100), an
 * offline run at 256 running sequences (PR #7117, Llama 3 8B, one H100)
 * and two host-only times. V01 set the fixed term (8 ms: 19 ms measured
 * less this model's 11.0 ms of GPU time) and V05 the per-sequence term
 * (35 us with that 8 ms), so both are predicted within 5% by construction;
 * V02 is a check on the form (a fixed 13 ms a call, the value that best
 * reproduces Lambda's version table with no per-sequence term, would put
 * V01 26% over). Hand calculation for V06: 8 ms + 200 x 35 us = 15 ms of
 * host time against the 20 ms quoted (-25%, inside the 30-150 us range's
 * 14-38 ms). V07-V08 (AMD's ROCm blog, one MI300X, batch 8) were recorded
 * after the two terms were set and are printed as a holdout, with no bar. */
/* TensorRT-LLM before XQA (serve_trtllm_pre_xqa): a check of the
 * physical rule against the one measured pair, not a fit (no constant is
 * set from it). NVIDIA/TensorRT-LLM docs/source/blogs/XQA-kernel.md,
 * "H200 2.4x with XQA": Llama-70B (the H200 launch's llama_70b, Llama 2
 * 70B), FP8, 128 in / 2,048 out, out tok/s/GPU without / with XQA: one
 * GPU 1,227 / 2,941 (2.4x); eight 13,232 / 25,300 (1.9x, read as one TP 8
 * engine: the blog's other figure is "8xH100 GPUs, Single Engine"). The
 * eight-GPU pair is read as the whole engine's tokens/s although the
 * column says per GPU: per GPU it would be 8.6x the one-GPU rate, more
 * than eight H200 hold weights and KV for (docs/serve-round50.md).
 * Batch not stated: the engine's default limit and the KV pool decide;
 * FP8 KV as the H200 launch rows (tests/data/serving_blind_README.md). */
TEST(xqa)
{
	const struct model_spec *m = find_model("llama2-70b");
	int pi = find_pool("H200-SXM");
	CHECK(m && pi >= 0);
	if (!m || pi < 0)
		return;
	static const struct { int tp; double without, with; } xq[] = {
		{ 1, 1227, 2941 }, { 8, 13232, 25300 } };
	printf("\nTensorRT-LLM before XQA (XQA-kernel.md, Llama-70B FP8 on H200, 128/2048, "
	       "out tok/s of the engine):\n");
	for (size_t i = 0; i < sizeof xq / sizeof xq[0]; i++) {
		double got[2];
		for (int pre = 0; pre < 2; pre++) {
			struct serve_config cfg = { 0 };
			CHECK(serve_wprec_parse("fp8", &cfg.wprec) == 0);
			CHECK(serve_kvprec_parse("fp8", &cfg.kvprec) == 0);
			CHECK(serve_engine_parse("tensorrt-llm-engine", &cfg.engine) == 0);
			cfg.tp = xq[i].tp;
			cfg.pp = 1;
			/* the user's build (serve --engine-build
			 * tensorrt-llm-0.7), not the test's own rule */
			if (pre)
				cfg.build = BUILD_TRTLLM_PRE_XQA;
			struct serve_load ld = { 128, 2048, 0, 0, 0, 0 };
			struct serve_result r;
			struct hp_err err = { 0 };
			struct pool p = pools[pi];
			got[pre] = serve_evaluate(&p, m, &cfg, &ld, NULL, &r, &err) == 0 && r.fits
					   ? r.out_tps_max
					   : NAN;
		}
		printf("  TP %d: with XQA measured %6.0f predicted %6.0f (%+.1f%%); without "
		       "measured %6.0f predicted %6.0f (%+.1f%%); ratio measured %.2fx "
		       "predicted %.2fx\n",
		       xq[i].tp, xq[i].with, got[0], 100 * (got[0] / xq[i].with - 1), xq[i].without,
		       got[1], 100 * (got[1] / xq[i].without - 1), xq[i].with / xq[i].without,
		       got[0] / got[1]);
		/* GQA group 8 (64 query heads, 8 KV heads): the pre-XQA
		 * engine must be slower, by no more than the group */
		CHECK(got[1] < got[0] && got[0] / got[1] < 8);
		/* and the ratio within 30% of the measured one (2.74 / 2.40
		 * and 2.37 / 1.91 when this was written: the rule, with no
		 * L2 reuse, overshoots) */
		double rm = xq[i].with / xq[i].without, rp = got[0] / got[1];
		CHECK(fabs(rp / rm - 1) < 0.30);
	}
}

TEST(v0_host)
{
	FILE *f = fopen("tests/data/serving_v0_host.csv", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char line[512];
	int n = 0, checked = 0;
	printf("\nvLLM V0 host time (tests/data/serving_v0_host.csv; %.1f ms a call + %.0f us a "
	       "sequence):\n", SERVE_VLLM_V0_STEP_S * 1e3, SERVE_VLLM_V0_SEQ_S * 1e6);
	CHECK(fgets(line, sizeof line, f) != NULL);
	while (fgets(line, sizeof line, f)) {
		char *c[14];
		if (split(line, c, 14) != 14)
			continue;
		n++;
		double value = atof(c[12]), batch = atof(c[10]), isl = atof(c[8]), osl = atof(c[9]);
		const char *metric = c[11], *use = c[13];
		double p = NAN;
		if (!strcmp(metric, "outproc_ms") || !strcmp(metric, "host_ms")) {
			/* host only: the model's per-sequence term (outproc: one
			 * part of it) or both terms */
			p = 1e3 * (SERVE_VLLM_V0_SEQ_S * batch +
				   (strcmp(metric, "host_ms") ? 0 : SERVE_VLLM_V0_STEP_S));
		} else {
			const struct model_spec *m = find_model(c[4]);
			int pi = find_pool(c[3]);
			struct serve_config cfg = { 0 };
			CHECK(m && pi >= 0 && !serve_wprec_parse(c[5], &cfg.wprec) &&
			      !serve_kvprec_parse(c[6], &cfg.kvprec));
			if (!m || pi < 0)
				continue;
			cfg.engine = ENGINE_VLLM;
			cfg.tp = atoi(c[7]);
			cfg.pp = 1;
			/* vLLM 0.5.x with chunked prefill off (max_model_len
			 * 8192): prompts in iterations of their own, a budget of
			 * max(max_model_len, 2048) tokens; max_num_seqs 256 */
			cfg.prefill_apart = 1;
			cfg.sched_steps = 1;
			cfg.chunk_tokens = 8192;
			cfg.mem_util = 0.9;
			cfg.max_batch = batch < 256 ? (int)batch : 256;
			serve_vllm_v0(&cfg);
			/* AMD's blog built upstream main of August 2024 from its
			 * Dockerfile.rocm: before the custom ROCm paged-attention
			 * kernel (serve_perf.c, builds[]) */
			if (!strcmp(c[1], "rocm-blog-vllm-optimize"))
				cfg.build = BUILD_VLLM_ROCM_06;
			int k = (int)batch;
			static double is[SERVE_BURST_MAX], os[SERVE_BURST_MAX];
			CHECK(k >= 1 && k <= SERVE_BURST_MAX);
			if (k < 1 || k > SERVE_BURST_MAX)
				continue;
			for (int i = 0; i < k; i++) {
				is[i] = isl;
				os[i] = osl;
			}
			struct serve_burst_result b;
			struct hp_err err = { 0 };
			if (serve_burst(&pools[pi], m, &cfg, k, is, os, NULL, &b, &err) == 0 && b.fits)
				p = !strcmp(metric, "tpot_ms")     ? b.itl_mean_s * 1e3
				    : !strcmp(metric, "latency_s") ? b.makespan_s
								   : b.out_tps * (isl + osl) / osl;
		}
		double e = 100 * (p - value) / value;
		printf("  %s %-14s %-6s %-9s %-13s tp%s batch %4.0f %-10s measured %8.1f model %8.1f "
		       "%+6.1f%% (%s)\n", c[0], c[1], c[2], c[3], c[4], c[7], batch, metric, value, p, e,
		       use);
		CHECK(isfinite(p));
		if (!strcmp(use, "fixed") || !strcmp(use, "per_seq")) {
			CHECK(fabs(e) <= 5);
			checked++;
		} else if (!strcmp(use, "check")) {
			CHECK(fabs(e) <= 20);
			checked++;
		} else if (!strcmp(metric, "host_ms")) {
			CHECK(fabs(e) <= 30);
			checked++;
		}
	}
	fclose(f);
	CHECK_EQ_INT(n, 8);
	CHECK_EQ_INT(checked, 4);
}

/* ---- every measured row: what it is used for ------------------------------
 *
 * tests/data/serving.csv holds all 1,184 rows of the team's measured set
 * (../shared/data/serving/measured.csv); each is either scored (fitted
 * and cross-validated by source, or a holdout scored with the shipped and
 * the fold's constants) or left out for a stated reason. The counts below
 * were taken from the CSV's own columns (awk over source, scenario, load
 * and metric), not from this program:
 *   867  scored by `table` (offline 373 + 294, TTFT 48, ITL 48,
 *        saturation 8, Lambda bursts 48 tok/s + 48 ITL), LOSO by source;
 *     9  the Lambda version table's output tok/s (`versions`, holdout);
 *    28  the online table's unlimited-QPS TTFT (12), ITL (12) and the
 *        202/214 pair's req/s (4): scored by `burst` (the spread check and
 *        the output-length CV, fitted per source and tried on the other);
 *    24  online TTFT / ITL at a rate above 0.8 x the source's measured
 *        saturation (the queue, not the engine; the rule is on the
 *        measured rate);
 *   204  derived columns: at a set QPS the achieved req/s, output tok/s
 *        and total tok/s (180: the load times the lengths below
 *        saturation), at unlimited QPS output and total tok/s (24: req/s
 *        times the lengths, req/s is scored);
 *    18  the version table's ITL and TPOT (the statistic is not stated;
 *        with ten steps per call tokens arrive ten at a time);
 *    34  Llama 4 Maverick (interleaved MoE layers, not expressible).
 * A row in no class fails, so a new row added to the CSV must be given
 * a use or a reason. */
enum { A_SCORED, A_HOLDOUT, A_BURST, A_QUEUE, A_DERIVED, A_UNSTATED, A_SCHEMA, A_NONE, A_COUNT };

static int account(const struct row *r)
{
	if (r->use)
		return A_SCORED;
	for (int v = 0; v < N_VERSION_ROWS; v++)
		if (!strcmp(r->id, version_rows[v].id))
			return A_HOLDOUT;
	if (!r->m)
		return A_SCHEMA;
	int inf = !strcmp(r->scen, "online-inf"), onl = !strcmp(r->scen, "online");
	int lat = !strcmp(r->metric, "ttft_ms") || !strcmp(r->metric, "itl_ms");
	int rate = !strcmp(r->metric, "req_s") || !strcmp(r->metric, "out_tps") ||
		   !strcmp(r->metric, "total_tps");
	if (inf && (lat || !strcmp(r->metric, "req_s")))
		return A_BURST;
	if (onl && lat)
		return A_QUEUE;
	if ((onl || inf) && rate)
		return A_DERIVED;
	if (!strcmp(r->source, "vllm-lambda") && strcmp(r->load, "burst320") &&
	    (!strcmp(r->metric, "itl_ms") || !strcmp(r->metric, "tpot_ms")))
		return A_UNSTATED;
	return A_NONE;
}

TEST(accounting)
{
	static const int want[A_COUNT] = { 867, 9, 28, 24, 204, 18, 34, 0 };
	static const char *const what[A_COUNT] = { "scored (LOSO)", "holdout", "bursts",
						   "above saturation", "derived", "unstated",
						   "schema", "unaccounted" };
	int got[A_COUNT] = { 0 };
	for (int i = 0; i < n_rows; i++) {
		int a = account(&rows[i]);
		got[a]++;
		if (a == A_NONE)
			T_FAILF("%s: measured row with no use and no reason", rows[i].id);
	}
	printf("\nmeasured rows (%d):", n_rows);
	for (int a = 0; a < A_COUNT; a++)
		printf(" %s %d%s", what[a], got[a], a + 1 < A_COUNT ? "," : "\n");
	CHECK_EQ_INT(n_rows, 1184);
	for (int a = 0; a < A_COUNT; a++)
		CHECK_EQ_INT(got[a], want[a]);
}

/* ---- the blind set: results from sources the model never saw ------------
 *
 * tests/data/serving_blind.csv (its README says where every number comes
 * from): AMD MI300X with vLLM (Oracle's OCI blog, AMD's vLLM 0.6.1 FP8
 * page), H100 with TensorRT-LLM 0.12 (as AMD's page quotes it) and with
 * NVIDIA NIM 1.8 (closed-loop concurrency), H200 with TensorRT-LLM 0.5.
 * Nothing here is fitted: every row is predicted with the shipped
 * constants. Scenarios:
 *   offline      output tokens/s at saturation; load = the run's batch
 *                limit (TensorRT-LLM 0.5's fixed batch) or "inf" (the
 *                engine's: vLLM before V1 ran max_num_seqs 256,
 *                vllm/engine/arg_utils.py); out_tps_gpu is per GPU;
 *   static       vLLM benchmark_latency: `load` prompts started together,
 *                run to the end (serve_burst with that batch);
 *   concurrency  a closed loop of `load` clients (NIM's AIPerf): the rate
 *                whose running batch, by Little's law, is `load`;
 *   rate         Poisson arrivals at `load` requests/s per instance
 *                (MLPerf's Server scenario): mean TTFT and ITL there;
 *   slo          MLPerf's Server / Interactive result: the highest rate
 *                whose p99 TTFT / TPOT meet `load` = "TTFT/TPOT" ms
 *                (serve_max_rate, as fleet sizing uses it), in output
 *                tokens/s per GPU.
 * A gpu field "NxGPU+MxGPU" is a heterogeneous cluster of TP-1 engines
 * (blind_predict). */
struct brow {
	char id[8], source[24], gpu[24], model[24], w[8], kv[8], engine[24], scen[16], load[16],
		metric[16];
	int tp, pp;
	double isl, osl, value;
};

static struct brow brows[256];
static int n_brows;

static const char *const bsources[] = { "oci-mi300x-vllm", "amd-vllm-0.6.1", "trtllm-0.12-h100",
					"nim-1.8-h100", "trtllm-0.5-h200", "mlperf-4.1", "vllm-ci-h200",
					"mlperf-5.0", "mlperf-5.1", "amd-rocm-vllm-0.9.1",
					"trtllm-modelopt-h200", "mangoboost-5.1", "datacrunch-h200",
					"sglang-0.3-bench", "amd-rocm-vllm-0.11.1",
					"llm-inference-bench", "dstack-h100-405b", "mlperf-5.1-pcie" };
#define N_BSRC 18
/* metric classes of the blind rows: throughput (out_tps, out_tps_gpu),
 * TTFT (ttft_ms mean, ttft_p50_ms median), ITL (itl_ms mean; itl_p50_ms
 * and tpot_p50_ms medians) */
static const char *const bmetrics[] = { "throughput", "TTFT", "ITL" };
#define N_BMET 3
static int bmetric_class(const char *metric)
{
	if (!strncmp(metric, "ttft_", 5))
		return 1;
	return !strncmp(metric, "itl_", 4) || !strncmp(metric, "tpot_", 5) ? 2 : 0;
}

static void blind_load(void)
{
	FILE *f = fopen("tests/data/serving_blind.csv", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char line[512];
	if (!fgets(line, sizeof line, f)) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof line, f) && n_brows < (int)(sizeof brows / sizeof brows[0])) {
		char *c[16];
		if (split(line, c, 16) != 15)
			continue;
		struct brow *b = &brows[n_brows++];
		hp_strlcpy(b->id, c[0], sizeof b->id);
		hp_strlcpy(b->source, c[1], sizeof b->source);
		hp_strlcpy(b->gpu, c[2], sizeof b->gpu);
		hp_strlcpy(b->model, c[3], sizeof b->model);
		hp_strlcpy(b->w, c[4], sizeof b->w);
		hp_strlcpy(b->kv, c[5], sizeof b->kv);
		hp_strlcpy(b->engine, c[6], sizeof b->engine);
		b->tp = atoi(c[7]);
		b->pp = atoi(c[8]);
		b->isl = atof(c[9]);
		b->osl = atof(c[10]);
		hp_strlcpy(b->scen, c[11], sizeof b->scen);
		hp_strlcpy(b->load, c[12], sizeof b->load);
		hp_strlcpy(b->metric, c[13], sizeof b->metric);
		b->value = atof(c[14]);
	}
	fclose(f);
}

/* A remark on the last prediction, printed under its row (the model's
 * running batch for a `rate` row). */
static char blind_note[96];

/* The blind row's prediction with the shipped constants; NAN when the
 * model cannot run it (does not fit, unknown GPU or model). */
/* The blind sources whose vLLM runs were the V0 engine (every release
 * before 0.8, where V1 became the default), with the version each ran
 * (tests/data/serving_blind_README.md). vllm-ci-h200 (a nightly of
 * 2024-2025, engine not stated) and the 0.9 / 0.11 sources are left on
 * the `vllm` profile (V1). */
static const char *const blind_v0_sources[] = {
	"oci-mi300x-vllm",     /* vLLM of October 2024, 0.6.x ROCm */
	"amd-vllm-0.6.1",      /* 0.6.1 */
	"mlperf-4.1",          /* AMD's harness, a vLLM before 0.6 */
	"mlperf-5.0",          /* AMD's harness, pre-V1 scheduler */
	"mlperf-5.1",          /* likewise (num_scheduler_steps 7-11) */
	"sglang-0.3-bench",    /* vLLM 0.6.0 (its vLLM rows) */
	"llm-inference-bench", /* 0.6.1 (MI300X), a 0.6.x (A100) */
	"dstack-h100-405b",    /* 0.6.3.post2 */
};

static int blind_v0_source(const char *src)
{
	for (size_t i = 0; i < sizeof blind_v0_sources / sizeof blind_v0_sources[0]; i++)
		if (!strcmp(blind_v0_sources[i], src))
			return 1;
	return 0;
}

/* The offline rows that are vLLM benchmark_throughput.py runs with a
 * stated prompt count: one LLM.generate of that many prompts of fixed
 * lengths (--input-len / --output-len), all at once, so a burst
 * (serve_burst: admission on the prompt's KV, preemption by recompute
 * when the running requests outgrow the pool, the tail), not the steady
 * state. AMD's ROCm pages (amd-rocm-vllm-0.9.1, -0.11.1): Num Prompts =
 * Max Num Seqs = `load`; AMD's vLLM 0.6.1 page (amd-vllm-0.6.1): its
 * command's --num-prompts 2000. Returns the count, 0 for every other row.
 * Set post hoc (round 50) from the rows' recorded settings, no
 * constant. */
static int vllm_throughput_burst_n(const struct brow *b)
{
	if (strcmp(b->scen, "offline"))
		return 0;
	int n = 0;
	if (!strcmp(b->source, "amd-rocm-vllm-0.9.1") || !strcmp(b->source, "amd-rocm-vllm-0.11.1"))
		n = atoi(b->load);
	else if (!strcmp(b->source, "amd-vllm-0.6.1"))
		n = 2000;
	return n > 0 && n <= SERVE_BURST_MAX ? n : 0;
}

/* DataCrunch's offline runs (b124-b128) are bursts: SGLang's bench_serving
 * at request_rate Infinity sends `completed` prompts at once, their
 * lengths drawn by its `random` dataset with random_range_ratio 0.0
 * (np.random.randint(max(int(L * ratio), 1), L + 1) for inputs and
 * randint(int(L * ratio), L + 1) for outputs: uniform on 1..L and 0..L).
 * The prompt counts, from the same result file
 * (llama_3_3_70b_offline_output.jsonl @ c091ef5, "completed"): 3000,
 * 4000, 800, 1500, 6000 (b128; cut to SERVE_BURST_MAX). b129 (ShareGPT,
 * lengths not uniform) stays a steady-state row. Returns the count, 0
 * for every other row. Set post hoc (round 50), from the rows' recorded
 * workload, no constant. */
static int datacrunch_burst_n(const struct brow *b)
{
	static const struct { const char *id; int n; } dc[] = {
		{ "b124", 3000 }, { "b125", 4000 }, { "b126", 800 }, { "b127", 1500 }, { "b128", 6000 } };
	if (strcmp(b->source, "datacrunch-h200") || strcmp(b->scen, "offline"))
		return 0;
	for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++)
		if (!strcmp(dc[i].id, b->id))
			return dc[i].n < SERVE_BURST_MAX ? dc[i].n : SERVE_BURST_MAX;
	return 0;
}

/* The burst of n requests with lengths uniform on [0, 2 x the row's
 * mean] (the file's means, which are the draws' own), drawn with a fixed
 * linear congruential generator (Knuth's MMIX constants), input and
 * output independently, then scaled so their means are the row's. */
static double datacrunch_burst(const struct pool *p, const struct model_spec *m,
			       const struct serve_config *cfg, const struct brow *b, int n)
{
	static double isl[SERVE_BURST_MAX], osl[SERVE_BURST_MAX];
	unsigned long long x = 1;
	double si = 0, so = 0;
	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		isl[i] = 1 + (double)(x >> 11) / 9007199254740992.0 * (2 * b->isl - 1);
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		osl[i] = 1 + (double)(x >> 11) / 9007199254740992.0 * (2 * b->osl - 1);
		si += isl[i];
		so += osl[i];
	}
	for (int i = 0; i < n; i++) {
		isl[i] *= b->isl * n / si;
		osl[i] *= b->osl * n / so;
	}
	struct serve_config c = *cfg;
	struct serve_burst_result br;
	struct hp_err err = { 0 };
	if (serve_burst(p, m, &c, n, isl, osl, NULL, &br, &err) < 0 || !br.fits)
		return NAN;
	return br.out_tps;
}

static double blind_predict_one(const struct brow *b)
{
	const struct model_spec *m = find_model(b->model);
	int pi = find_pool(b->gpu);
	struct serve_config cfg = { 0 };
	if (!m || pi < 0 || serve_wprec_parse(b->w, &cfg.wprec) ||
	    serve_kvprec_parse(b->kv, &cfg.kvprec) || serve_engine_parse(b->engine, &cfg.engine))
		return NAN;
	cfg.tp = b->tp;
	cfg.pp = b->pp;
	int load = atoi(b->load);
	if (cfg.engine == ENGINE_VLLM && strcmp(b->source, "mangoboost-5.1"))
		cfg.max_batch = 256;            /* vLLM < V1 default max_num_seqs */
	if (!strcmp(b->source, "amd-vllm-0.6.1")) {
		/* the page's command: --gpu-memory-utilization 0.99
		 * --max-num-batched-tokens 65536 */
		cfg.mem_util = 0.99;
		cfg.chunk_tokens = 65536;
	}
	if (!strcmp(b->engine, "vllm") &&
	    !strncmp(b->source, "mlperf-", 7)) {
		/* AMD's MLPerf harness (v5.1 config files, harness_llm/models/
		 * llama2-70b/offline_mi300x.yaml and offline_mi325x.yaml):
		 * max_num_seqs 1792 / 2700, gpu_memory_utilization 0.98,
		 * max_num_batched_tokens 40960 / 65536. Its vLLM runs the
		 * pre-V1 scheduler with enable_chunked_prefill False (prompts
		 * in iterations of their own) and num_scheduler_steps 11 / 7
		 * (offline), 9 (server_mi300x/mi325x.yaml), 8
		 * (interactive_mi300x.yaml) */
		int mi325 = !strcmp(b->gpu, "MI325X");
		cfg.max_batch = mi325 ? 2700 : 1792;
		cfg.mem_util = 0.98;
		cfg.chunk_tokens = mi325 ? 65536 : 40960;
		cfg.prefill_apart = 1;
		/* every one of those configs sets enforce_eager: True (v5.1
		 * offline_mi300x.yaml: vllm_engine_config.enforce_eager; the
		 * Interactive one also max_seq_len_to_capture 1) */
		cfg.eager = 1;
		cfg.sched_steps = !strcmp(b->scen, "offline") ? (mi325 ? 7 : 11) : 9;
		if (!strcmp(b->scen, "slo") && !strcmp(b->load, "450/40"))
			cfg.sched_steps = 8;
		/* Server and Interactive run their own configs (v5.1
		 * server_mi300x.yaml / server_mi325x.yaml: gpu_memory_
		 * utilization 1.0, and AMD's scheduler patch stops admitting
		 * prompts and caps the decode batch at VLLM_LLAMA2_MLPERF_MAX_
		 * TARGET_DECODE_BATCH 608 / 832; interactive_mi300x.yaml:
		 * max_num_seqs 600). v5.0's files are not stored: its MI325X
		 * Server rows take v5.1's */
		if (strcmp(b->scen, "offline") && strcmp(b->source, "mlperf-4.1")) {
			cfg.mem_util = 1.0;
			cfg.chunk_tokens = 40960;
			cfg.max_batch = mi325 ? 832 : 608;
			if (!strcmp(b->load, "450/40"))
				cfg.max_batch = 600;
		}
		/* v4.1 (results published August 2024) runs a vLLM before
		 * 0.6.0 (September 2024): no multi-step scheduling (one decode
		 * iteration per call); its host time is the V0 engine's
		 * (blind_v0_sources below) */
		if (!strcmp(b->source, "mlperf-4.1")) {
			cfg.sched_steps = 1;
		}
	}
	if (!strcmp(b->source, "sglang-0.3-bench")) {
		/* its README's commands and note: vLLM 0.6.0 with
		 * --num-scheduler-steps 10 and max_model_len 4096 (chunked
		 * prefill then off: prompts run apart), memory 0.9; SGLang
		 * mem_frac 0.88 at TP 1, 0.85 at TP 4, set to 0.88 at TP 4
		 * for the offline runs */
		if (cfg.engine == ENGINE_VLLM) {
			cfg.prefill_apart = 1;
			cfg.sched_steps = 10;
			cfg.mem_util = 0.9;
		} else {
			cfg.mem_util = b->tp == 1 || !strcmp(b->scen, "offline") ? 0.88 : 0.85;
			/* SGLang 0.3.0 (September 2024) formed each batch
			 * after the last: the overlap scheduler came in v0.4
			 * (LMSYS blog 2024-12-04; v0.3.x lists it as an
			 * experimental flag, off). Set from the version,
			 * before these rows were re-scored with it. */
			cfg.overlap_sched = OVERLAP_OFF;
		}
	}
	if (!strcmp(b->source, "llm-inference-bench")) {
		/* LLM-Inference-Bench's benchmark_throughput.py (vLLM 0.6.1 on
		 * MI300X, a 0.6.x on A100): LLM() with enable_chunked_prefill
		 * False (its store_true flag not given), so prompts run apart
		 * with pre-V1 vLLM's max_num_batched_tokens = max(max_model_len,
		 * 2048): 8192 (Llama 3), 32768 (Mixtral), 4096 (Llama 2);
		 * gpu_memory_utilization 0.9 (the script's default); one decode
		 * step per scheduler call. Set from the scripts before these
		 * rows were first predicted. */
		cfg.prefill_apart = 1;
		cfg.sched_steps = 1;
		cfg.mem_util = 0.9;
		cfg.chunk_tokens = !strcmp(b->model, "mixtral-8x7b") ? 32768
				   : !strcmp(b->model, "llama2-70b")   ? 4096
								       : 8192;
		/* The MI300X runs: upstream v0.6.1 built from its own
		 * Dockerfile.rocm, before the custom ROCm paged-attention
		 * kernel (serve_perf.c, builds[]); the build's factor is set
		 * from vLLM PR #16426 and committed before these rows were
		 * scored with it (round 30). It changes CDNA GPUs only. */
		cfg.build = BUILD_VLLM_ROCM_06;
	}
	if (!strcmp(b->source, "trtllm-0.5-h200")) {
		/* TensorRT-LLM v0.5.0 (H200launch.md's note): before the XQA
		 * kernel of v0.8 (XQA-kernel.md), GQA decode attention walks
		 * the KV cache once per query head (serve_trtllm_pre_xqa):
		 * Llama 2 70B x8, Llama 2 13B (multi-head) x1. Set from the
		 * version after these rows had been scored (round 50, post
		 * hoc: b051 +135%), the factor from the model's heads, the
		 * check against XQA-kernel.md's own pair (`xqa`). Since round
		 * 51 through the build a user names (--engine-build
		 * tensorrt-llm-0.7), which applies the same rule. */
		cfg.build = BUILD_TRTLLM_PRE_XQA;
	}
	if (!strcmp(b->source, "dstack-h100-405b")) {
		/* vLLM 0.6.3.post2.dev308, benchmark_throughput.py with
		 * --max-model-len 91680 --num-scheduler-step 1: a max_model_len
		 * above 32K turns chunked prefill on in pre-V1 vLLM
		 * (arg_utils.py), max_num_batched_tokens then 512
		 * (SchedulerConfig); memory 0.9. Set before the first
		 * prediction. */
		cfg.prefill_apart = 0;
		cfg.sched_steps = 1;
		cfg.mem_util = 0.9;
		cfg.chunk_tokens = 512;
	}
	if (!strcmp(b->source, "mlperf-5.1-pcie")) {
		/* the systems' harness configs (closed/HPE/configs/HPE_PROLIANT_
		 * DL380A_RTX_PRO_6000_PCIE_96GBx8_TRT, closed/Dell/configs/
		 * XE7745_H200_NVL_141GBx8, llama2-70b.py): gpu_batch_size 2048
		 * and max_num_tokens 2048 (RTX PRO 6000) / 1536 (H200 NVL);
		 * Interactive (b203-b205) 256 and 256; kvcache_free_gpu_mem_frac
		 * 0.90. Set before these rows were first predicted. */
		int inter = !strcmp(b->id, "b203") || !strcmp(b->id, "b204") ||
			    !strcmp(b->id, "b205");
		cfg.max_batch = inter ? 256 : 2048;
		cfg.chunk_tokens = inter ? 256 : !strcmp(b->gpu, "RTX-PRO-6000") ? 2048 : 1536;
		cfg.mem_util = 0.90;
	}
	if (!strcmp(b->engine, "tensorrt-llm-engine") && !strcmp(b->source, "mlperf-4.1") &&
	    strcmp(b->scen, "offline")) {
		/* NVIDIA's v4.1 Server configs (closed/NVIDIA/configs/
		 * llama2-70b/Server/__init__.py): gpu_batch_size 1024 (H100
		 * TP 2) and 896 (H200), kvcache_free_gpu_mem_frac 0.90 */
		cfg.max_batch = b->tp == 2 ? 1024 : 896;
		cfg.mem_util = 0.90;
	}
	/* The sources that ran vLLM's V0 engine take its host time
	 * (serve_vllm_v0), set from the non-blind measurements of
	 * tests/data/serving_v0_host.csv before these rows were scored with
	 * it (round 50; until then the MLPerf v4.1 rows alone took a fixed
	 * 9 ms) */
	if (cfg.engine == ENGINE_VLLM && blind_v0_source(b->source))
		serve_vllm_v0(&cfg);
	if (!strcmp(b->scen, "offline") && load > 0)
		cfg.max_batch = load;
	struct pool p = pools[pi];
	if (!strcmp(b->scen, "slo")) {
		/* MLPerf Server / Interactive: the highest Poisson rate whose
		 * p99 TTFT and p99 TPOT meet `load` = "TTFT/TPOT" ms, as the
		 * planner sizes a fleet (serve_max_rate) */
		struct serve_slo slo = { 0, 0 };
		if (sscanf(b->load, "%lf/%lf", &slo.ttft_p99_s, &slo.tpot_p99_s) != 2)
			return NAN;
		slo.ttft_p99_s *= 1e-3;
		slo.tpot_p99_s *= 1e-3;
		double rate = serve_max_rate(&p, m, &cfg, b->isl, b->osl, &slo, NULL);
		if (!(rate > 0))
			return NAN;
		struct serve_load sl = { b->isl, b->osl, rate, 0, 0, 0 };
		struct serve_result sr;
		if (serve_evaluate(&p, m, &cfg, &sl, NULL, &sr, NULL) == 0)
			snprintf(blind_note, sizeof blind_note,
				 "model: %.2f req/s, %.0f running, mean TPOT %.0f ms, p99 %.0f ms",
				 rate, sr.batch, 1e3 * sr.tpot_s.mean, 1e3 * sr.tpot_s.p99);
		return rate * b->osl / (b->tp * b->pp);
	}
	struct hp_err err = { 0 };
	if (!strcmp(b->scen, "static")) {
		static double isl[SERVE_BURST_MAX], osl[SERVE_BURST_MAX];
		for (int i = 0; i < load; i++) {
			isl[i] = b->isl;
			osl[i] = b->osl;
		}
		cfg.max_batch = load;
		struct serve_burst_result br;
		if (serve_burst(&p, m, &cfg, load, isl, osl, NULL, &br, &err) < 0 || !br.fits)
			return NAN;
		return br.out_tps;
	}
	struct serve_load ld = { b->isl, b->osl, 0, 0, 0, 0 };
	struct serve_result r;
	if (!strcmp(b->scen, "rate")) {
		ld.rate = atof(b->load);
		if (!strcmp(b->source, "mlperf-4.1") && cfg.engine == ENGINE_VLLM) {
			/* AMD's v4.1 Server run: test_VllmFp8_SyncServer_audit.sh
			 * (mlcommons/inference_results_v4.1 @ a2f5d66) starts
			 * mainVllmFp8_SyncServer.py with --enable-batcher and
			 * neither --batcher-threshold nor --gpu-batch-size, so
			 * their defaults, 0.3 s and 96 ("Maximum time to wait
			 * before sending a batch to vLLM", "Maximum batch size
			 * on harness side"); the SUT's batch_samples_loop sends
			 * each batch to one engine (next_device_id, in turn).
			 * Engines: 1 (1xMI300X) and 8 (8xMI300X: b060, b061), the
			 * README. Set from the harness before these rows were
			 * re-scored with it. */
			ld.batch_window_s = 0.3;
			ld.batch_max = 96;
			ld.batch_engines = strcmp(b->id, "b060") && strcmp(b->id, "b061") ? 1 : 8;
		}
		if (!(ld.rate > 0) || serve_evaluate(&p, m, &cfg, &ld, NULL, &r, &err) < 0 ||
		    !r.fits)
			return NAN;
		snprintf(blind_note, sizeof blind_note,
			 "model: %.0f running, %.0f%% of its saturation rate", r.batch,
			 100 * r.utilisation);
		/* at or above the model's saturation rate neither latency is
		 * a steady state: the row is counted apart, TTFT and ITL alike */
		if (!(r.utilisation < 1))
			return INFINITY;
		/* a `_p50_ms` metric is a median (SGLang's bench_serving);
		 * its median ITL pools every token gap (itl_p50_s), its
		 * median TPOT is over requests' means */
		if (!strcmp(b->metric, "itl_p50_ms"))
			return 1e3 * r.itl_p50_s;
		const struct serve_quantiles *qt =
			bmetric_class(b->metric) == 1 ? &r.ttft_s : &r.tpot_s;
		return 1e3 * (strstr(b->metric, "_p50_") ? qt->p50 : qt->mean);
	}
	int vbn = vllm_throughput_burst_n(b);
	if (vbn > 0) {
		static double isl[SERVE_BURST_MAX], osl[SERVE_BURST_MAX];
		for (int i = 0; i < vbn; i++) {
			isl[i] = b->isl;
			osl[i] = b->osl;
		}
		struct serve_burst_result br;
		if (serve_burst(&p, m, &cfg, vbn, isl, osl, NULL, &br, &err) < 0 || !br.fits)
			return NAN;
		return br.out_tps;
	}
	int dcn = datacrunch_burst_n(b);
	if (dcn > 0)
		return datacrunch_burst(&p, m, &cfg, b, dcn);
	if (serve_evaluate(&p, m, &cfg, &ld, NULL, &r, &err) < 0 || !r.fits)
		return NAN;
	if (!strcmp(b->scen, "offline"))
		return !strcmp(b->metric, "out_tps_gpu") ? r.out_tps_max / (b->tp * b->pp)
							 : r.out_tps_max;
	/* closed loop of `load` clients: bisection on the rate for the
	 * number in the system, rate x (TTFT + (OSL - 1) x TPOT), the
	 * interactive response-time law */
	double lo = 0, hi = r.req_s_max;
	struct serve_result q = r;
	for (int it = 0; it < 60; it++) {
		ld.rate = 0.5 * (lo + hi);
		if (serve_evaluate(&p, m, &cfg, &ld, NULL, &q, &err) < 0)
			return NAN;
		double in_system = ld.rate * (q.ttft_s.mean + (b->osl - 1) * q.tpot_s.mean);
		if (!isfinite(in_system) || in_system > load)
			hi = ld.rate;
		else
			lo = ld.rate;
	}
	ld.rate = lo;
	if (serve_evaluate(&p, m, &cfg, &ld, NULL, &q, &err) < 0)
		return NAN;
	if (!strcmp(b->metric, "out_tps"))
		return ld.rate * b->osl;
	if (!strcmp(b->metric, "itl_ms"))
		return q.tpot_s.mean * 1e3;
	/* TTFT: what the loop leaves of each request's time after decoding */
	double ttft = load / ld.rate - (b->osl - 1) * q.tpot_s.mean;
	return 1e3 * (ttft > q.ttft_s.mean ? ttft : q.ttft_s.mean);
}

/* A heterogeneous cluster (gpu = "NxGPU+MxGPU", one engine per GPU at
 * TP 1): every GPU an independent instance, the cluster's output tokens/s
 * the sum of theirs, as `hetplan serve` sizes a mixed fleet. Otherwise
 * the row alone. */
static double blind_predict(const struct brow *b)
{
	if (!strchr(b->gpu, '+'))
		return blind_predict_one(b);
	char buf[sizeof b->gpu], *save = NULL;
	hp_strlcpy(buf, b->gpu, sizeof buf);
	double sum = 0;
	char note[96] = "";
	for (char *part = strtok_r(buf, "+", &save); part; part = strtok_r(NULL, "+", &save)) {
		char *x = strchr(part, 'x');
		int n = x ? atoi(part) : 0;
		if (!x || n < 1 || b->tp != 1 || b->pp != 1)
			return NAN;
		struct brow one = *b;
		hp_strlcpy(one.gpu, x + 1, sizeof one.gpu);
		hp_strlcpy(one.metric, "out_tps_gpu", sizeof one.metric);
		blind_note[0] = 0;
		double v = blind_predict_one(&one);
		if (!isfinite(v))
			return v;
		sum += n * v;
		size_t len = strlen(note);
		snprintf(note + len, sizeof note - len, "%s%s %.0f tok/s per GPU", len ? "; " : "",
			 one.gpu, v);
	}
	hp_strlcpy(blind_note, note, sizeof blind_note);
	return sum;
}

/* The closed list of blind rows outside the bars (the measured set's:
 * throughput and Server capacity within 20%, TTFT and ITL within 25%; a
 * rate above the model's saturation is outside), each with its reason
 * (docs/serving.md, "The blind set"). `blind` fails on a row outside the
 * bars that is not listed and on a listed row that is back inside, so
 * the list stays what the model misses now. */
static const struct {
	const char *id, *why;
} blind_known[] = {
	{ "b016", "TRT-LLM 0.12 H100 as AMD quotes it: 0.28-0.67x NVIDIA's own (C0639-C0667)" },
	{ "b017", "TRT-LLM 0.12 H100 as AMD quotes it: 0.28-0.67x NVIDIA's own (C0639-C0667)" },
	{ "b019", "TRT-LLM 0.12 H100 as AMD quotes it: 0.28-0.67x NVIDIA's own (C0639-C0667)" },
	{ "b032", "NIM TTFT at concurrency 100, where the batch turns KV-bound" },
	{ "b036", "NIM ITL once KV-bound (concurrency >= 100): +25.1%" },
	{ "b039", "NIM ITL once KV-bound (concurrency >= 100): +25.1%" },
	{ "b042", "NIM ITL once KV-bound (concurrency >= 100): +25.1%" },
	{ "b044", "NIM TTFT of one 500-token prompt (48 ms measured)" },
	{ "b062", "MLPerf v4.1 Server H100: 308 running in the model, 846 at the saturation edge" },
	{ "b063", "MLPerf v4.1 Server H100: 308 running in the model, 846 at the saturation edge" },
	{ "b065", "MLPerf Server H200: TPOT at 98% of the model's saturation" },
	{ "b070", "MLPerf v5.0 MI325X Server: above the model's saturation (Offline -17%)" },
	{ "b071", "MLPerf v5.0 MI325X Server: above the model's saturation (Offline -17%)" },
	{ "b076", "MLPerf v5.1 MI300X Interactive (8 steps a call, eager): under with the V0 host time (round 50)" },
	{ "b092", "MI325X Offline (MangoBoost, vLLM 0.9): -20.1%, MI325X under-predicted in every round" },
	{ "b104", "DataCrunch 70B at 8 req/s: TTFT -41%, the run at its saturation edge (b105)" },
	{ "b105", "DataCrunch 70B at 8 req/s: 73% of the model's saturation, the run nearer" },
	{ "b106", "DataCrunch SGLang run at or above the model's saturation" },
	{ "b107", "DataCrunch SGLang run at or above the model's saturation" },
	{ "b116", "DataCrunch 405B, 4 req/s: 105% of the model's saturation (602 ms measured)" },
	{ "b117", "DataCrunch 405B, 4 req/s: 105% of the model's saturation (135 ms measured)" },
	{ "b118", "DataCrunch SGLang run at or above the model's saturation" },
	{ "b119", "DataCrunch SGLang run at or above the model's saturation" },
	{ "b123", "DataCrunch 405B, 8 req/s ShareGPT: P(prefill call) > 1/2, median gap d + p" },
	{ "b124", "SGLang offline burst, uniform lengths modelled as drawn (round 50): still over" },
	{ "b126", "SGLang offline burst, uniform lengths modelled as drawn (round 50): still over" },
	{ "b129", "SGLang offline bursts over-predicted (variable lengths; the burst tail)" },
	{ "b148", "SGLang offline bursts over-predicted (variable lengths; the burst tail)" },
	{ "b158", "vLLM 0.6.1 ROCm fp16 (LLM-Inference-Bench), batch 1: 9-22 ms a step at any TP" },
	{ "b159", "vLLM 0.6.1 ROCm fp16 (LLM-Inference-Bench), batch 64: vllm-rocm-0.6 attention; the step floor is not modelled" },
	{ "b160", "vLLM 0.6.1 ROCm fp16 (LLM-Inference-Bench), batch 1: 9-22 ms a step at any TP" },
	{ "b161", "vLLM 0.6.1 ROCm fp16, batch 64 at 4k context: vllm-rocm-0.6's 13.3x attention is too slow here (FP8-KV source)" },
	{ "b162", "vLLM 0.6.1 ROCm fp16 (LLM-Inference-Bench), batch 1: 9-22 ms a step at any TP" },
	{ "b164", "vLLM 0.6.1 ROCm fp16 (LLM-Inference-Bench), batch 1: 9-22 ms a step at any TP" },
	{ "b165", "vLLM 0.6.1 ROCm fp16, batch 64 at 4k context: vllm-rocm-0.6's 13.3x attention is too slow here (FP8-KV source)" },
	{ "b166", "vLLM 0.6.1 ROCm fp16 (LLM-Inference-Bench), batch 1: 9-22 ms a step at any TP" },
	{ "b169", "vLLM 0.6.1 ROCm Mixtral TP 8, batch 64 (LLM-Inference-Bench): under with the V0 host time (round 50)" },
	{ "b170", "vLLM 0.6.1 ROCm fp16 (LLM-Inference-Bench), batch 1: 9-22 ms a step at any TP" },
	{ "b171", "vLLM 0.6.1 ROCm fp16 (LLM-Inference-Bench), batch 64: vllm-rocm-0.6 attention; the step floor is not modelled" },
	{ "b174", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b175", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b176", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b177", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b178", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b179", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b180", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b182", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b183", "vLLM 0.6.x on A100-40GB (LLM-Inference-Bench): under with the V0 host time set on vLLM 0.5.x (8 ms + 35 us a sequence); 0.6.x's lighter step is not modelled" },
	{ "b192", "405B FP8 on 8 x H100 (dstack), 32,784-token prompts: one request at a time measured, 3 fit the model's pool" },
	{ "b193", "405B FP8 on 8 x H100 (dstack), 32,784-token prompts: one request at a time measured, 3 fit the model's pool" },
	{ "b194", "405B FP8 on 8 x H100 (dstack), 32,784-token prompts: one request at a time measured, 3 fit the model's pool" },
	{ "b197", "MLPerf v5.1 RTX PRO 6000 Server: 107% of the model's saturation (Offline -6.2%)" },
	{ "b198", "MLPerf v5.1 RTX PRO 6000 Server: 107% of the model's saturation (Offline -6.2%)" },
	{ "b201", "MLPerf v5.1 H200 NVL Server: 112% of the model's saturation (Offline -16.5%)" },
	{ "b202", "MLPerf v5.1 H200 NVL Server: 112% of the model's saturation (Offline -16.5%)" },
};

static const char *blind_known_why(const char *id)
{
	for (size_t i = 0; i < sizeof blind_known / sizeof blind_known[0]; i++)
		if (!strcmp(blind_known[i].id, id))
			return blind_known[i].why;
	return NULL;
}

/* The engine a blind row runs, for the summary by engine: its engine
 * column, vLLM split into the V0 engine (the pre-V1 sources, which the
 * test gives serve_vllm_v0) and V1. */
static const char *const beng_names[] = { "vllm V0", "vllm V1", "sglang", "tensorrt-llm-engine",
					  "other" };
#define N_BENG ((int)(sizeof beng_names / sizeof beng_names[0]))
static int blind_engine_class(const struct brow *b)
{
	if (!strcmp(b->engine, "vllm"))
		return blind_v0_source(b->source) ? 0 : 1;
	if (!strcmp(b->engine, "sglang"))
		return 2;
	if (!strcmp(b->engine, "tensorrt-llm-engine"))
		return 3;
	return 4;
}

TEST(blind)
{
	blind_load();
	CHECK_EQ_INT(n_brows, 205);
	struct acc a[N_BSRC] = { { 0 } }, all = { 0 }, am[N_BSRC][N_BMET] = { { { 0 } } },
		   pm[N_BMET] = { { 0 } };
	int n_sat = 0, n_out = 0, n_big = 0;
	/* by engine: signed and absolute error sums, rows beyond 30% */
	double eng_signed[N_BENG] = { 0 };
	struct acc eng[N_BENG] = { { 0 } };
	int eng_big[N_BENG] = { 0 };
	printf("\nblind set (tests/data/serving_blind.csv), shipped constants, nothing fitted:\n");
	for (int i = 0; i < n_brows; i++) {
		const struct brow *b = &brows[i];
		blind_note[0] = 0;
		double p = blind_predict(b);
		int s = 0;
		while (s < N_BSRC && strcmp(bsources[s], b->source))
			s++;
		CHECK(s < N_BSRC);
		if (s == N_BSRC)
			continue;
		printf("  %s %-16s %-8s %-13s tp%d %4.0f/%-4.0f %-11s %-4s %-11s measured %9.1f "
		       "predicted %9.1f %+7.1f%%\n", b->id, b->source, b->gpu, b->model, b->tp, b->isl,
		       b->osl, b->scen, b->load, b->metric, b->value, p,
		       100 * (p - b->value) / b->value);
		if (blind_note[0])
			printf("       %s\n", blind_note);
		int cls = bmetric_class(b->metric);
		double bar = cls == 0 ? 20 : 25;
		int inside = isfinite(p) && fabs(p - b->value) <= bar / 100 * b->value;
		const char *why = blind_known_why(b->id);
		if (!isnan(p) && !inside) {
			n_out++;
			if (why)
				printf("       known miss: %s\n", why);
			else
				T_FAILF("%s: %+.1f%% is outside the %.0f%% bar and not in blind_known[]",
					b->id, 100 * (p - b->value) / b->value, bar);
		} else if (inside && why) {
			T_FAILF("%s is in blind_known[] but now within %.0f%%: take it off", b->id,
				bar);
		}
		if (isnan(p)) {
			a[s].miss++;
			all.miss++;
			T_FAILF("%s: the model cannot run this row", b->id);
			continue;
		}
		if (isinf(p)) {
			/* a `rate` row above the model's saturation rate: its
			 * latency is unbounded, counted apart from the MAPE */
			n_sat++;
			continue;
		}
		double e = 100 * fabs(p - b->value) / b->value;
		int ec = blind_engine_class(b);
		eng[ec].sum += e;
		eng[ec].n++;
		eng_signed[ec] += 100 * (p - b->value) / b->value;
		eng_big[ec] += e > 30;
		n_big += e > 30;
		a[s].sum += e;
		a[s].n++;
		am[s][bmetric_class(b->metric)].sum += e;
		am[s][bmetric_class(b->metric)].n++;
		pm[bmetric_class(b->metric)].sum += e;
		pm[bmetric_class(b->metric)].n++;
		all.sum += e;
		all.n++;
	}
	for (int s = 0; s < N_BSRC; s++) {
		printf("blind %-18s %3d rows MAPE %6.1f%%", bsources[s], a[s].n, mape(&a[s]));
		for (int k = 0; k < N_BMET; k++)
			if (am[s][k].n)
				printf("  %s %d: %.1f%%", bmetrics[k], am[s][k].n, mape(&am[s][k]));
		printf("\n");
	}
	printf("blind all                %3d rows MAPE %6.1f%% (%d more: the rate is above the "
	       "model's saturation)\n", all.n, mape(&all), n_sat);
	printf("blind: %d of %d rows within the bars (throughput 20%%, TTFT/ITL 25%%), %d known "
	       "misses\n", n_brows - n_out, n_brows, n_out);
	printf("blind by metric         ");
	for (int k = 0; k < N_BMET; k++)
		printf("  %s %d: %.1f%%", bmetrics[k], pm[k].n, mape(&pm[k]));
	printf("\n");
	for (int k = 0; k < N_BENG; k++)
		if (eng[k].n)
			printf("blind engine %-19s %3d rows MAPE %5.1f%%, signed %+6.1f%%, %d beyond 30%%\n",
			       beng_names[k], eng[k].n, mape(&eng[k]), eng_signed[k] / eng[k].n, eng_big[k]);
	printf("blind rows beyond 30%%: %d of %d\n", n_big, all.n);
	CHECK_QUOTED(mape(&pm[0]), SACC_BLIND_THR_MAPE);
	CHECK_QUOTED(pm[0].n, SACC_BLIND_THR_ROWS);
	CHECK_QUOTED(mape(&pm[1]), SACC_BLIND_TTFT_MAPE);
	CHECK_QUOTED(pm[1].n, SACC_BLIND_TTFT_ROWS);
	CHECK_QUOTED(mape(&pm[2]), SACC_BLIND_ITL_MAPE);
	CHECK_QUOTED(pm[2].n, SACC_BLIND_ITL_ROWS);
	/* A loose bound: a blind prediction within a factor of two on average
	 * (MAPE 100% would be a prediction twice the measured value); the
	 * in-sample sources hold 13-21% (docs/serving.md). */
	CHECK(mape(&all) < 100);
}

/* ---- heterogeneous clusters: measured placements -------------------------
 *
 * tests/data/serving_hetero.csv (its README section says where each number
 * comes from): decode tokens/s that Helix's prototype measured with its own
 * MILP placement, on each machine type of a 4 x A100-40GB + 8 x L4 +
 * 12 x T4 cluster (LLaMA-30B) and on the whole cluster at once (LLaMA-2
 * 70B). Each row is predicted by `hetplan serve --place --offline` on the
 * row's pools (serve_plan with place set), nothing fitted. Asserted: every
 * row gets a placement; the error is printed, not bounded (docs/serving.md,
 * "Placement", says why the model over-predicts these rows). The rows are
 * no longer blind: their first prediction showed the per-stage gap, after
 * which vLLM 0.4's host step per machine was added from vLLM's own figure
 * (not fitted to them); the ninth and tenth rounds of docs/serving.md
 * took Helix's router, caches and pipeline depth from its code. Also
 * asserted: the caches against Helix's vLLM profiles (helix_profile_kv)
 * and the requests in flight against its event logs. */
/* x004's measurement is of Helix's own layout, not of the one --place
 * finds: the same model scores that layout. Machine i of Helix's MILP
 * solution (artifact_evaluation/single_cluster/layout_llama70b/ilp/
 * ilp_sol.ini, compute_node_2..25, their types in simulator_cluster.ini
 * of the same folder, Helix-ASPLOS25 @ 148b733), as pool (0 A100, 1 L4,
 * 2 T4) and layers [first, end). Layers 25 and 23-24 are held by one T4
 * each, so the flow can be no more than those two machines carry. */
static double helix_own_layout(const struct cluster *cl, const struct model_spec *m,
			       const struct serve_opts *o, double measured)
{
	static const int lay[24][3] = {
		{ 1, 7, 11 },  { 2, 34, 38 }, { 2, 23, 25 }, { 1, 53, 60 }, { 2, 77, 80 },
		{ 1, 53, 60 }, { 0, 68, 77 }, { 2, 26, 30 }, { 2, 30, 34 }, { 0, 37, 49 },
		{ 0, 60, 68 }, { 1, 42, 49 }, { 2, 33, 37 }, { 2, 38, 42 }, { 1, 3, 7 },
		{ 2, 0, 3 },   { 2, 11, 14 }, { 0, 14, 23 }, { 1, 46, 53 }, { 2, 42, 46 },
		{ 2, 25, 26 }, { 1, 53, 60 }, { 2, 49, 53 }, { 1, 26, 33 },
	};
	struct serve_place_machine mach[24];
	for (int i = 0; i < 24; i++)
		mach[i] = (struct serve_place_machine){ lay[i][0], 1, lay[i][1], lay[i][2] };
	struct hp_err err = { 0 };
	double tok = 0, two = 0;
	CHECK(serve_place_eval(cl, m, o, NULL, 24, mach, &tok, &err) == 0);
	CHECK(tok > 0);
	/* a second T4 beside the one that alone holds layer 25 can only
	 * widen that cut: the flow may not fall */
	struct serve_place_machine more[25];
	memcpy(more, mach, sizeof mach);
	more[24] = mach[20];
	CHECK(serve_place_eval(cl, m, o, NULL, 25, more, &two, &err) == 0);
	CHECK(two >= tok - 1e-9);
	printf("       Helix's own layout (24 machines) scored by the same model: %.1f tok/s "
	       "(%+.1f%%); with a second T4 on layer 25: %.1f\n", tok, 100 * (tok - measured) / measured,
	       two);
	return tok;
}

/* vLLM 0.4's own KV cache on these machines, as Helix profiled it
 * (simulator/model_manager/llama1_30b/{a100,l4,t4}/llama1_30b_*.py,
 * vllm_num_blocks_dict x 16 tokens, Helix-ASPLOS25 @ 148b733): A100 with
 * 15 layers 3021 blocks = 48,336 tokens, L4 with 8 layers 2943 = 47,088,
 * T4 with 5 layers 3353 = 53,648. Those profiles were taken at vLLM's
 * default share 0.9, not at the 0.8 the workers run with (the one-layer
 * A100 entry does not fit in 0.8 of the GPU; hetero_place), so the model
 * is compared at 0.9. By hand for the A100: 0.9 x 42.95e9 B (40,960 MiB)
 * less 15 layers x 1.070e9, the embedding and output 0.852e9, the
 * profiling pass over 4,096 tokens 0.49e9 and the 1.61e9 runtime = 19.65e9
 * B over 15 x 26,624 B a token = 49,200 tokens, +1.8%. The profiles leave
 * for everything but the layers 0.9 x memory less 35.42e9 (A100), 18.62e9
 * (L4) and 12.51e9 B (T4) (the intercepts of blocks x bytes over the
 * layer counts; the slope, 1.074e9 B a layer, is the layer's weights):
 * 3.24e9 and 3.12e9 B on the A100 and L4, where the model charges 2.95e9,
 * but 1.98e9 on the T4. What the T4 profile ran with differently (another
 * share, a smaller profiling pass) is not in the artifact, so the T4 is
 * held to 15% and said to fall short. */
static void helix_profile_kv(const char *id, const struct cluster *cl, const struct model_spec *m,
			     const struct serve_opts *o)
{
	double prof = !strcmp(id, "x001") ? 48336 : !strcmp(id, "x002") ? 47088
		      : !strcmp(id, "x003") ? 53648 : 0;
	double tol = !strcmp(id, "x003") ? 0.15 : 0.04;
	if (!(prof > 0))
		return;
	struct serve_opts o9 = *o;
	o9.base.mem_util = 0.9;
	o9.place_router_util = 0;
	struct hp_err err = { 0 };
	struct serve_plan_result *r9 = xcalloc(1, sizeof *r9);
	if (serve_plan(cl, m, &o9, NULL, r9, &err) != 0 || r9->n_plans < 1) {
		T_FAILF("%s at gpu_memory_utilization 0.9: no placement", id);
		free(r9);
		return;
	}
	const struct serve_plan *p9 = &r9->plans[0];
	double kv = p9->n_inst > 0 ? p9->inst[0].kv_capacity_tokens : 0;
	for (int i = 0; i < p9->n_inst; i++)
		CHECK(fabs(p9->inst[i].kv_capacity_tokens - prof) <= tol * prof);
	printf("       KV tokens per machine at the profile's share 0.9: %.0f, vLLM 0.4 profiled %.0f "
	       "(%+.1f%%)\n", kv, prof, 100 * (kv - prof) / prof);
	free(r9);
}

TEST(hetero_place)
{
	FILE *f = fopen("tests/data/serving_hetero.csv", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char line[512];
	int n = 0, n_nofit = 0;
	struct acc a = { 0 }, lay = { 0 };
	printf("\nheterogeneous placements (tests/data/serving_hetero.csv), nothing fitted:\n");
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	while (fgets(line, sizeof line, f)) {
		char *c[12];
		if (split(line, c, 12) != 10)
			continue;
		n++;
		struct cluster cl;
		struct hp_err err = { 0 };
		cluster_init(&cl);
		char pools_s[256];
		hp_strlcpy(pools_s, c[2], sizeof pools_s);
		int ok = 1;
		for (char *tok = strtok(pools_s, "+"); tok; tok = strtok(NULL, "+"))
			if (cluster_add_pool_spec(&cl, tok, &cat, &err) != 0) {
				T_FAILF("%s: pool %s: %s", c[0], tok, err.msg);
				ok = 0;
			}
		const struct model_spec *m = find_model(c[3]);
		struct serve_opts o;
		serve_opts_init(&o);
		o.offline = 1;
		o.place = 1;
		/* Helix's prototype runs one vLLM 0.4.0.post1 engine per
		 * machine (artifact readme; llm_sys/worker.py steps it once per
		 * iteration on each machine): the V0 engine's host time
		 * (serve_vllm_v0; a fixed 9 ms, RFC #6854's midpoint, until
		 * round 50) */
		serve_vllm_v0(&o.base);
		/* ... and its workers build each engine with enforce_eager=True
		 * (docs/serving.md, "Placement"): no CUDA graphs */
		o.base.eager = 1;
		/* Its workers build each stage's vLLM with
		 * gpu_memory_utilization 0.8 (llm_sys/worker.py init_engine,
		 * vram_usage default; step6_start_worker.py passes none), and
		 * its offline host admits a request only while the fullest
		 * layer's KV reservations, input + mean output tokens per
		 * request in flight, stay within 0.8 of the cache
		 * (step5_start_host.py feeding_hwm=0.8; llm_sys/maxflow_host.py;
		 * simulator/scheduler/global_maxflow/kv_expectation.py), all
		 * at Helix-ASPLOS25 @ 148b733. Read from the code before these
		 * rows were scored with them. */
		o.base.mem_util = 0.8;
		o.place_kv_fill = 0.8;
		/* ... but the router's view of each machine's cache is not the
		 * engine's: the host's KV expectation takes each machine's
		 * capacity from Helix's offline profile (kv_expectation.py
		 * KVExpectation.initialize: compute_node.kv_cache_capacity, the
		 * model_manager files' vllm_num_blocks_dict x 16 x layers), and
		 * those profiles were not taken at 0.8: the one-layer A100 entry
		 * of LLaMA-30B, 80,613 blocks x 16 tokens x 26,624 B = 34.3 GB of
		 * KV plus a 1.07 GB layer, exceeds 0.8 of the GPU's 42.9 GB
		 * (34.4 GB) before any activation. vLLM 0.4's default share,
		 * 0.9 (EngineArgs gpu_memory_utilization), leaves 2.6-3.3 GB
		 * for the rest on the A100 and L4 entries. Set before these rows
		 * were scored with it. */
		o.place_router_util = 0.9;
		/* the workers' engines profile max_num_batched_tokens 4096
		 * (llm_sys/worker.py init_engine) */
		o.base.chunk_tokens = 4096;
		/* Each worker steps its engine once per local layer
		 * (llm_sys/worker.py run_and_submit; exec_engine.py step: a
		 * LayerwiseScheduler pass, then one layer's input preparation
		 * and forward). A vLLM 0.4-era scheduler pass costs about 2
		 * ms (vLLM PR #4261, 2024-04-22: "the scheduler iteration
		 * overhead" was 2 ms before a regression to 11 ms); the input
		 * preparation of each further layer is not charged (no
		 * source gives it). Set before these rows were scored. */
		o.place_layer_step_s = 2e-3;
		if (!m || serve_wprec_parse(c[4], &o.base.wprec) ||
		    serve_kvprec_parse(c[4], &o.base.kvprec)) {
			T_FAILF("%s: model %s or precision %s unknown", c[0], c[3], c[4]);
			ok = 0;
		}
		o.isl.a = atof(c[5]);
		o.osl.a = atof(c[6]);
		if (!ok)
			continue;
		struct serve_plan_result *res = xcalloc(1, sizeof *res);
		int rc = serve_plan(&cl, m, &o, NULL, res, &err);
		if (rc != 0 || res->n_plans < 1) {
			printf("  %s %-36s %-10s measured %7.1f: no placement (%s)\n", c[0], c[2], c[3],
			       atof(c[9]), err.msg[0] ? err.msg : res->why);
			n_nofit++;
		} else {
			const struct serve_plan *pl = &res->plans[0];
			double v = atof(c[9]), e = 100 * (pl->out_tps - v) / v;
			printf("  %s %-36s %-10s measured %7.1f predicted %7.1f %+7.1f%% (%d segments, "
			       "TPOT %.0f ms, MILP gap %.1f%%)\n", c[0], c[2], c[3], v, pl->out_tps, e,
			       pl->n_inst, 1e3 * pl->tpot.mean, 100 * pl->gap);
			a.sum += fabs(e);
			a.n++;
			if (strcmp(c[0], "x004")) {   /* x004: Helix's layout, below */
				lay.sum += fabs(e);
				lay.n++;
			}
			printf("       KV tokens per machine:");
			for (int i = 0; i < pl->n_inst; i++)
				printf(" %.0f", pl->inst[i].kv_capacity_tokens);
			printf("\n");
			helix_profile_kv(c[0], &cl, m, &o);
			/* Requests in flight, measured: Helix's event logs of
			 * the L4 and T4 runs (artifact_evaluation/single_cluster/
			 * real_llama30b/helix_offline/{l4,t4}/events.txt: each
			 * query from its prompt's send to its last token's
			 * return, time-averaged over 60-300 s) hold 34.5 and
			 * 40.6; the A100 log is not stored. The model's, by
			 * Little's law: tokens/s x the time per token. */
			double fly = pl->out_tps * pl->tpot.mean;
			double logged = !strcmp(c[0], "x002") ? 34.5 : !strcmp(c[0], "x003") ? 40.6 : 0;
			if (logged > 0) {
				printf("       requests in flight: %.1f, Helix's event log %.1f (%+.1f%%)\n", fly,
				       logged, 100 * (fly - logged) / logged);
				CHECK(fabs(fly - logged) <= 0.15 * logged);
			}
			if (!strcmp(c[0], "x003")) {
				/* By hand: a T4 has 16e9 B; the engine's 0.9, half of
				 * it for weights (Helix's rule), less half of the 1.5 GiB
				 * runtime: 7.2e9 - 0.81e9 = 6.39e9 B. A LLaMA-30B layer
				 * is 2 x (4 x 6656^2 + 3 x 6656 x 17920) = 1.07e9 B, the
				 * embedding and output 2 x 32000 x 6656 x 2 = 0.85e9 B:
				 * 5 layers fit (6.2e9), 6 do not (7.27e9). 12 T4s x 5
				 * = 60 layers, the whole model: every T4 holds exactly
				 * 5 (Helix's own layout, ilp/t4/ilp_sol.ini, is the
				 * same). */
				int ok5 = pl->n_inst == 12;
				for (int i = 0; i < pl->n_inst; i++)
					ok5 &= pl->inst[i].count == 1 &&
					       pl->inst[i].last_layer - pl->inst[i].first_layer + 1 == 5;
				CHECK(ok5);
				/* Each T4 steps its engine once per layer: 4 steps
				 * more than one per iteration, at 2 ms each, on 12
				 * machines: the token's round trip is 12 x 4 x 2 ms =
				 * 96 ms longer than with one step per machine (the
				 * batch comes from the KV cache and does not move) */
				struct serve_opts o1 = o;
				o1.place_layer_step_s = 0;
				struct serve_plan_result *r1 = xcalloc(1, sizeof *r1);
				if (serve_plan(&cl, m, &o1, NULL, r1, &err) == 0 && r1->n_plans > 0)
					CHECK_NEAR(pl->tpot.mean - r1->plans[0].tpot.mean, 0.096, 1e-6);
				else
					T_FAILF("x003 without per-layer steps: no placement");
				free(r1);
			}
		}
		if (!strcmp(c[0], "x004")) {
			double v = atof(c[9]), tok = helix_own_layout(&cl, m, &o, v);
			lay.sum += fabs(100 * (tok - v) / v);
			lay.n++;
		}
		free(res);
	}
	fclose(f);
	CHECK_EQ_INT(n, 4);
	CHECK_EQ_INT(n_nofit, 0);
	printf("hetero placement %d rows MAPE %.1f%%, %d without a placement\n", a.n, mape(&a),
	       n_nofit);
	/* the model's error on the layout that was measured: x004 ran
	 * Helix's own layout, which --place does not pick (x001-x003 are one
	 * pipeline of one machine type, scored as --place lays it out) */
	printf("hetero placement, the measured layout scored: %d rows MAPE %.1f%%\n", lay.n,
	       mape(&lay));
	CHECK_QUOTED(mape(&lay), SACC_PLACE_MAPE);
	CHECK_QUOTED(lay.n, SACC_PLACE_ROWS);
}

int main(void)
{
	RUN(table);
	RUN(online_rows);
	RUN(bounds);
	RUN(saturation);
	RUN(burst);
	RUN(versions);
	RUN(xqa);
	RUN(v0_host);
	RUN(accounting);
	RUN(blind);
	RUN(hetero_place);
	catalog_done(&cat);
	return t_done("serve_accuracy");
}
