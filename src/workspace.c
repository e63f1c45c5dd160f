/* workspace.c — load, save and default workspaces (schema in workspace.h). */
#include "workspace.h"

#include <cjson/cJSON.h>
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonx.h"
#include "serve_search.h"
#include "utf8.h"

/* ---- Settings tables (fields.h) for the cluster's fabric and the
 * workload (a pool's is cluster.c's pool_fields). cluster.c reads the
 * cluster file; these tables write it back and give the TUI its labels.
 * Ranges are those cluster.c and workspace_parse accept. */

/* OBJ_THROUGHPUT .. OBJ_BUDGET */
FIELDS_ENUM(static, objective_enum, enum search_objective, 4, search_objective_name,
	    search_objective_parse);

#define CF(m) offsetof(struct cluster, m)
static const struct hp_field fabric_field_list[] = {
	{ .key = "oversubscription", .kind = FK_NUM, .off = CF(oversub), .min = 1, .max = 1000,
	  .label = "Oversubscription", .unit = ":1", .hint = "spine, 1 = non-blocking",
	  .help = "spine oversubscription, 1 = non-blocking (default 1); slows tree and all-to-all groups over more than one leaf of 32 hosts" },
	{ .key = "inter_pool_gbps", .kind = FK_NUM, .off = CF(inter_pool_gbps), .min = 0.001,
	  .max = 1e6, .label = "WAN link", .unit = "Gb/s", .help = "link between sites, Gb/s per direction (default 100), shared by the groups crossing it at once" },
	{ .key = "inter_pool_latency_us", .kind = FK_NUM, .off = CF(inter_pool_latency_us),
	  .min = 0, .max = 1e7, .label = "WAN latency", .unit = "us",
	  .help = "latency between sites, microseconds (default 1000)" },
};
#undef CF

const struct hp_field_table fabric_fields = { "cluster.fabric", fabric_field_list,
					      (int)HP_ARRAY_LEN(fabric_field_list), 1, 0 };

#define WO(m) offsetof(struct search_opts, m)
/* gbs and seq_len as a plan's; 1e18 tokens is 500x Llama 3's 15.6T;
 * deadlines up to 1e10 s (300 years) and budgets up to $1e13 bound typos. */
static const struct hp_field workload_field_list[] = {
	{ .key = "gbs", .kind = FK_INT, .off = WO(gbs), .min = 1, .max = 100000000,
	  .label = "Global batch", .unit = "sequences", .help = "global batch, sequences (default 1024)" },
	{ .key = "seq_len", .kind = FK_INT, .off = WO(seq_len), .min = 1, .max = 100000000,
	  .flags = FF_OMIT_ZERO | FF_ZERO_NONE, .label = "Sequence length", .unit = "tokens",
	  .hint = "0 for the model's context", .help = "sequence length; absent: the model's" },
	{ .key = "tokens", .kind = FK_NUM, .off = WO(tokens), .min = 1, .max = 1e18,
	  .flags = FF_OMIT_ZERO, .label = "Tokens to train", .hint = "like 2T or 300B",
	  .help = "tokens to train, for time and cost" },
	{ .key = "precision", .kind = FK_ENUM, .off = WO(precision), .enm = &hp_dtype_enum,
	  .label = "Precision", .help = "arithmetic of the matmuls" },
	{ .key = "objective", .kind = FK_ENUM, .off = WO(objective), .enm = &objective_enum,
	  .label = "Objective", .help = "what the planner ranks by" },
	{ .key = "deadline_s", .kind = FK_NUM, .off = WO(deadline_s), .min = 0,
	  .max = HP_MAX_DURATION_S,
	  .flags = FF_OMIT_ZERO, .label = "Deadline", .hint = "like 30d, 12h or 2w; none",
	  .help = "objective deadline: train within this many seconds" },
	{ .key = "budget_usd", .kind = FK_NUM, .off = WO(budget_usd), .min = 0, .max = 1e13,
	  .flags = FF_OMIT_ZERO, .label = "Budget", .hint = "USD, like 2.5M; none",
	  .help = "objective budget: train within this many USD" },
	{ .key = "top", .kind = FK_INT, .off = WO(top_k), .min = 1, .max = 1000,
	  .label = "Plans to show", .help = "plans to keep (default 10)" },
};
#undef WO

const struct hp_field_table workload_fields = { "workload", workload_field_list,
						(int)HP_ARRAY_LEN(workload_field_list), 1, 0 };

/* ---- The Serve view's workload ("serve"). Ranges as the view's prompts
 * and `hetplan serve` take them: rates up to 1e7 requests/s, TTFT up to an
 * hour, TPOT up to a minute. */
static const char *serve_objective_name(enum serve_objective o)
{
	return o == SERVE_OBJ_THROUGHPUT ? "throughput" : "cost";
}

static int serve_objective_parse(const char *s, enum serve_objective *o)
{
	if (!strcmp(s, "cost"))
		*o = SERVE_OBJ_COST;
	else if (!strcmp(s, "throughput"))
		*o = SERVE_OBJ_THROUGHPUT;
	else
		return -1;
	return 0;
}

FIELDS_ENUM(static, sengine_enum, enum serve_engine, ENGINE_COUNT, serve_engine_name,
	    serve_engine_parse);
FIELDS_ENUM(static, swprec_enum, enum serve_wprec, SW_COUNT, serve_wprec_name, serve_wprec_parse);
FIELDS_ENUM(static, skvprec_enum, enum serve_kvprec, SKV_COUNT, serve_kvprec_name,
	    serve_kvprec_parse);
FIELDS_ENUM(static, sobjective_enum, enum serve_objective, 2, serve_objective_name,
	    serve_objective_parse);

/* The engine builds, serve_perf.c's builds table (serve --engine-build). */
static const char *serve_build_name(enum serve_build b) { return serve_build(b)->name; }

/* A build's name read as a pool's transport is (comm_transport_parse):
 * both compare hp_name_key's keys, so case, spaces, '-', '_' and '.' do
 * not count ("VLLM ROCm 0.6" is vllm-rocm-0.6, as "TCP XO" is tcpxo).
 * A name longer than any key is refused, not cut to a match. */
static int build_parse(const char *s, enum serve_build *out)
{
	char k[64], nk[64];
	if (!s || strlen(s) >= sizeof k)
		return -1;
	hp_name_key(k, sizeof k, s);
	for (int i = 0; i < BUILD_COUNT; i++) {
		hp_name_key(nk, sizeof nk, serve_build_name((enum serve_build)i));
		if (*k && !strcmp(k, nk)) {
			*out = (enum serve_build)i;
			return 0;
		}
	}
	return -1;
}
FIELDS_ENUM(static, sbuild_enum, enum serve_build, BUILD_COUNT, serve_build_name, build_parse);

static const char *const serve_on_off[] = { "off", "on" };

/* The overlap scheduler setting, enum serve_overlap's names. */
static const char *const overlap_names[] = { "engine", "on", "off" };

static const char *overlap_name(int v)
{
	return v >= 0 && v < 3 ? overlap_names[v] : "?";
}

static int overlap_parse(const char *s, int *v)
{
	int i = fields_name_index(overlap_names, 3, s);
	if (i < 0)
		return -1;
	*v = i;
	return 0;
}

static const struct hp_field_enum overlap_enum = { 3, overlap_name, overlap_parse };

#define SO(m) offsetof(struct ws_serve, m)
static const struct hp_field ws_serve_field_list[] = {
	{ .key = "model", .kind = FK_STR, FIELD_STR(struct ws_serve, model), .flags = FF_OMIT_ZERO,
	  .help = "model preset to serve; absent: the workspace's model" },
	{ .key = "isl", .kind = FK_STR, FIELD_STR(struct ws_serve, isl), .flags = FF_NUM_TEXT,
	  .help = "prompt tokens: N, lognormal:MEAN:CV, uniform:LO:HI or exp:MEAN" },
	{ .key = "osl", .kind = FK_STR, FIELD_STR(struct ws_serve, osl), .flags = FF_NUM_TEXT,
	  .help = "output tokens, as isl" },
	{ .key = "rate", .kind = FK_NUM, .off = SO(rate), .min = 0, .max = 1e7,
	  .flags = FF_OMIT_ZERO, .help = "requests/s" },
	{ .key = "offline", .kind = FK_BOOL, .off = SO(offline), .flags = FF_OMIT_ZERO,
	  .help = "the most the cluster serves, instead of a rate" },
	{ .key = "ttft_p99_s", .kind = FK_NUM, .off = SO(ttft_p99_s), .min = 0, .max = 3600,
	  .flags = FF_OMIT_ZERO, .help = "p99 time to the first token, seconds; absent: none" },
	{ .key = "tpot_p99_s", .kind = FK_NUM, .off = SO(tpot_p99_s), .min = 0, .max = 60,
	  .flags = FF_OMIT_ZERO, .help = "p99 time per output token, seconds; absent: none" },
	{ .key = "engine", .kind = FK_ENUM, .off = SO(engine), .enm = &sengine_enum,
	  .help = "serving engine" },
	{ .key = "weights", .kind = FK_ENUM, .off = SO(wprec), .enm = &swprec_enum,
	  .help = "weight precision (serve --precision); absent: bf16, fp16 on a GPU "
		  "without bf16" },
	{ .key = "kv_cache", .kind = FK_ENUM, .off = SO(kvprec), .enm = &skvprec_enum,
	  .help = "KV cache precision (serve --kv-precision); absent: bf16, fp16 on a GPU "
		  "without bf16" },
	{ .key = "objective", .kind = FK_ENUM, .off = SO(objective), .enm = &sobjective_enum,
	  .help = "cost (cheapest fleet) or throughput" },
	{ .key = "prefill_apart", .flag = "prefill-apart", .kind = FK_BOOL, .off = SO(prefill_apart),
	  .names = serve_on_off, .flags = FF_OMIT_ZERO, .label = "PF apart",
	  .help = "prompts in iterations of their own (vLLM before V1, chunked prefill off; "
		  "sglang always)",
	  .doc = "Prompts run in scheduler steps of their own, which run no decode (vLLM "
		 "before V1 with `--enable-chunked-prefill` off). Default off: prompt chunks "
		 "ride the decode iterations, as vLLM and TensorRT-LLM do by default. The "
		 "sglang engine runs prompts apart either way (its scheduler runs a waiting "
		 "prefill before any decode)." },
	{ .key = "sched_steps", .flag = "sched-steps", .kind = FK_INT, .off = SO(sched_steps),
	  .min = 1, .max = 1024, .flags = FF_OMIT_ZERO, .label = "Steps/call",
	  .help = "decode iterations per scheduler call, with prefill_apart (vLLM "
		  "num_scheduler_steps); absent: 1",
	  .doc = "Decode iterations per scheduler call with `--prefill-apart on` (vLLM "
		 "`--num-scheduler-steps`, before V1); 1 to 1024, default 1." },
	{ .key = "eager", .flag = "eager", .kind = FK_BOOL, .off = SO(eager), .names = serve_on_off,
	  .flags = FF_OMIT_ZERO, .label = "Eager",
	  .help = "no CUDA/HIP graphs: the host issues every kernel (vLLM --enforce-eager)",
	  .doc = "Eager execution, no CUDA or HIP graphs (vLLM `--enforce-eager`, which the "
		 "`vllm serve` line then carries): a decode iteration takes at least the "
		 "host's time to issue its kernels, 30 us each (docs/serving.md). Default "
		 "off: graphs for decode, the engines' default." },
	{ .key = "overlap_sched", .flag = "overlap-sched", .kind = FK_ENUM, .off = SO(overlap_sched),
	  .enm = &overlap_enum, .flags = FF_OMIT_ZERO, .label = "Overlap",
	  .help = "the scheduler runs one batch ahead: engine (its default: on for sglang and "
		  "tensorrt-llm, off for vllm and tensorrt-llm-engine), on or off",
	  .doc = "The overlap scheduler, which prepares the next batch while the GPU runs "
		 "the current one, so a prompt that arrives while sequences run waits one "
		 "iteration more for its first token (docs/serving.md). `engine` (default) "
		 "takes the engine's default: on for sglang (v0.4 on) and tensorrt-llm "
		 "(PyTorch backend), off for vllm and tensorrt-llm-engine. A value other "
		 "than the engine's default adds the engine's switch to its launch line "
		 "(vllm `--async-scheduling`, which vLLM refuses with pipeline parallelism, "
		 "so plans then keep PP 1; sglang `--disable-overlap-schedule`); an engine "
		 "without a command-line switch for it (tensorrt-llm: its extra options "
		 "file; tensorrt-llm-engine: none) refuses one (exit 2)." },
	{ .key = "engine_build", .flag = "engine-build", .kind = FK_ENUM, .off = SO(build),
	  .enm = &sbuild_enum, .flags = FF_OMIT_ZERO, .label = "Build",
	  .help = "an older engine build whose kernels differ on some GPUs; absent: "
		  "current, the engine as profiled",
	  .doc = "An engine build whose kernels differ from the profiled (current) "
		 "version on some GPUs. `vllm-rocm-0.6`: stock ROCm vLLM before its custom "
		 "paged-attention kernel, decode attention 13.3 times as long on CDNA GPUs "
		 "(the catalog's AMD Instinct parts; docs/serving-round30.md). It is a build of "
		 "vllm: another engine refuses it (exit 2), and a cluster without a CDNA "
		 "pool refuses it (exit 3); other pools of a mixed cluster are unchanged. "
		 "`vllm-v0`: vLLM's V0 engine (0.4 to 0.6.x), on every GPU: the host "
		 "spends 8 ms per scheduler call and 35 us per running sequence in series "
		 "with the GPU, measured on vLLM 0.5.x (docs/serving-round50.md), in place "
		 "of the current engine's; a build of vllm. "
		 "`tensorrt-llm-0.7`: a TensorRT-LLM engine built by v0.5-v0.7, before the XQA "
		 "kernel, on every GPU: decode attention reads each KV head once per query "
		 "head of its group (8 times for Llama 2/3 70B; no change for a multi-head "
		 "model; docs/serving-round51.md); a build of tensorrt-llm-engine. "
		 "Default `current`." },
};
#undef SO

const struct hp_field_table ws_serve_fields = { "serve", ws_serve_field_list,
						(int)HP_ARRAY_LEN(ws_serve_field_list), 1, 0 };

void ws_serve_to_config(const struct ws_serve *w, struct serve_config *c)
{
	c->prefill_apart = w->prefill_apart;
	c->sched_steps = w->sched_steps;
	c->eager = w->eager;
	c->overlap_sched = w->overlap_sched;
	c->build = w->build;
}

void ws_serve_to_opts(const struct ws_serve *w, struct serve_opts *so)
{
	so->offline = w->offline;
	so->rate = w->offline ? 0 : w->rate;
	so->slo.ttft_p99_s = w->ttft_p99_s;
	so->slo.tpot_p99_s = w->tpot_p99_s;
	so->base.engine = (enum serve_engine)w->engine;
	so->base.wprec = (enum serve_wprec)w->wprec;
	so->base.kvprec = (enum serve_kvprec)w->kvprec;
	so->base.wprec_given = w->wprec_given;
	so->base.kvprec_given = w->kvprec_given;
	so->objective = (enum serve_objective)w->objective;
	ws_serve_to_config(w, &so->base);
}

void ws_serve_from_config(struct ws_serve *w, const struct serve_config *c)
{
	w->prefill_apart = c->prefill_apart;
	w->sched_steps = c->sched_steps;
	w->eager = c->eager;
	w->overlap_sched = c->overlap_sched;
	w->build = c->build;
}

static const struct hp_field_table *all_tables[10];

static void all_tables_init(void)
{
	const struct hp_field_table *t[] = {
		&plan_fields, &model_fields, &moe_fields, &mla_fields, &pool_fields, &pool_nodes,
		cluster_pool_spec_fields(), &fabric_fields, &workload_fields, &ws_serve_fields,
	};
	static_assert(sizeof t == sizeof all_tables, "all_tables holds every table");
	memcpy(all_tables, t, sizeof t);
}

const struct hp_field_table *const *workspace_field_tables(int *n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, all_tables_init);
	*n = (int)HP_ARRAY_LEN(all_tables);
	return all_tables;
}

cJSON *cluster_to_json(const struct cluster *c)
{
	cJSON *o = cJSON_CreateObject();
	if (*c->name)
		cJSON_AddStringToObject(o, "name", c->name);
	cJSON *pools = cJSON_AddArrayToObject(o, "pools");
	for (int i = 0; i < c->n_pools; i++) {
		cJSON *j = cJSON_CreateObject();
		fields_write_json(&pool_fields, &c->pools[i], j);
		cJSON_AddItemToArray(pools, j);
	}
	fields_write_json(&fabric_fields, c, cJSON_AddObjectToObject(o, "fabric"));
	return o;
}

cJSON *model_to_json(const struct model_spec *m)
{
	cJSON *o = cJSON_CreateObject();
	fields_write_json(&model_fields, m, o);
	return o;
}

int workspace_default(struct workspace *w, const struct catalog *cat, struct hp_err *err)
{
	static const char text[] =
		"{\"version\":1,"
		"\"cluster\":{\"name\":\"default\",\"pools\":["
		"{\"name\":\"h100\",\"gpu\":\"H100-SXM\",\"nodes\":4},"
		"{\"name\":\"a100\",\"gpu\":\"A100-80GB\",\"nodes\":8}]},"
		"\"model\":\"llama3.1-70b\","
		"\"workload\":{\"gbs\":1024,\"seq_len\":8192,\"tokens\":2e12}}";
	return workspace_parse(w, text, sizeof text - 1, "(default workspace)", cat, err);
}

/* A "weights" or "kv_cache" of "bf16" named in the file, as `serve
 * --precision bf16` / `--kv-precision bf16` on the command line: refused
 * when no pool of the cluster has bf16 (a pool without, beside one with,
 * only gets no instances). Absent, the default runs as fp16 there. */
static int serve_check_bf16(const struct workspace *w, const char *file, struct hp_err *err)
{
	const struct ws_serve *sv = &w->serve;
	const struct cluster *c = &w->cluster;
	for (int k = 0; k < 2; k++) {
		int given = k ? sv->kvprec_given && sv->kvprec == SKV_BF16
			      : sv->wprec_given && sv->wprec == SW_BF16;
		int any = 0;
		for (int i = 0; given && i < c->n_pools && !any; i++)
			any = serve_gpu_has_bf16(&c->pools[i].gpu);
		if (!given || any || c->n_pools < 1)
			continue;
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%.*s: serve.%s: \"bf16\": %s %s; \"fp16\" runs, or leave "
				  "\"%s\" out for the default (fp16 there)", UTF8_CUT(file, 120),
				  k ? "kv_cache" : "weights", c->pools[0].gpu.name, SERVE_NO_BF16_WHY,
				  k ? "kv_cache" : "weights");
	}
	return 0;
}

/* The "serve" object, checked as the Serve view checks its fields: a
 * known preset, lengths that parse as distributions. */
static int serve_parse(struct workspace *w, const cJSON *root, const char *file,
		       const struct catalog *cat, struct hp_err *err)
{
	struct ws_serve *sv = &w->serve;
	struct jx_ctx jc = { file, "", err };
	int bad;
	const cJSON *so = jx_obj(&jc, root, "serve", 0, &bad);
	if (bad)
		return -1;
	struct serve_dist d;
	char where[200];
	if (!so)
		return 0;
	struct jx_ctx js = { file, "serve", err };
	if (fields_check_keys(&ws_serve_fields, &js, so, NULL) < 0 ||
	    fields_read_json(&ws_serve_fields, sv, &js, so) < 0)
		return -1;
	sv->wprec_given = cJSON_GetObjectItemCaseSensitive(so, "weights") != NULL;
	sv->kvprec_given = cJSON_GetObjectItemCaseSensitive(so, "kv_cache") != NULL;
	if (serve_check_bf16(w, file, err) < 0)
		return -1;
	if (*sv->model && !catalog_model(cat, sv->model)) {
		snprintf(where, sizeof where, "%.*s: serve.model", UTF8_CUT(file, 120));
		catalog_model_unknown(cat, sv->model, where, err);
		return -1;
	}
	if (!*sv->isl)
		hp_strlcpy(sv->isl, "1500", sizeof sv->isl);
	if (!*sv->osl)
		hp_strlcpy(sv->osl, "300", sizeof sv->osl);
	for (int i = 0; i < 2; i++) {
		const char *v = i ? sv->osl : sv->isl;
		if (serve_dist_parse(v, &d, err) < 0) {
			char msg[sizeof err->msg];
			hp_strlcpy(msg, err->msg, sizeof msg);
			return hp_err_set(err, HP_EXIT_INPUT, "%.*s: serve.%s: %.*s",
					  UTF8_CUT(file, 120), i ? "osl" : "isl", UTF8_CUT(msg, 300));
		}
	}
	/* `serve` refuses --rate with --offline: offline is the most the
	 * cluster serves, with no rate to meet */
	if (sv->offline && sv->rate > 0)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%.*s: serve: \"rate\" and \"offline\" exclude each other (offline: "
				  "the most the cluster serves, no rate)", UTF8_CUT(file, 120));
	if (!sv->offline && sv->rate <= 0)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%.*s: serve: give \"rate\" (requests/s above 0) or \"offline\": true",
				  UTF8_CUT(file, 120));
	sv->set = 1;
	return 0;
}

int workspace_parse(struct workspace *w, const char *text, size_t len, const char *file,
		    const struct catalog *cat, struct hp_err *err)
{
	static const char *const known[] = { "version", "cluster", "model", "workload", "serve",
					     NULL };
	memset(w, 0, sizeof *w);
	cluster_init(&w->cluster);
	search_opts_init(&w->opts);
	cJSON *root = jx_parse(text, len, file, err);
	if (!root)
		return -1;
	int rc = -1, bad, version = 1;
	struct jx_ctx jc = { file, "", err };
	if (!cJSON_IsObject(root)) {
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: expected a workspace object with \"cluster\" and \"model\"", file);
		goto out;
	}
	if (jx_check_keys(&jc, root, known) < 0 ||
	    jx_int(&jc, root, "version", 0, 1, 1, &version) < 0)
		goto out;
	const cJSON *cl = jx_obj(&jc, root, "cluster", 1, &bad);
	if (bad)
		goto out;
	char *ctext = cJSON_PrintUnformatted(cl);
	char where[160];
	snprintf(where, sizeof where, "%.*s: cluster", UTF8_CUT(file, 120));
	int crc = cluster_parse_json(&w->cluster, ctext, strlen(ctext), where, cat, err);
	free(ctext);
	if (crc < 0)
		goto out;

	const cJSON *mo = cJSON_GetObjectItemCaseSensitive(root, "model");
	if (cJSON_IsString(mo)) {
		const struct model_spec *ms = catalog_model(cat, mo->valuestring);
		if (!ms) {
			snprintf(where, sizeof where, "%.*s: model", UTF8_CUT(file, 120));
			catalog_model_unknown(cat, mo->valuestring, where, err);
			goto out;
		}
		w->model = *ms;
		w->model_is_preset = 1;
	} else if (cJSON_IsObject(mo)) {
		if (catalog_parse_model(mo, file, "model", &w->model, err) < 0)
			goto out;
	} else {
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: model: expected a preset name or a model object", file);
		goto out;
	}

	const cJSON *wl = jx_obj(&jc, root, "workload", 0, &bad);
	if (bad)
		goto out;
	struct jx_ctx jw = { file, "workload", err };
	if (wl && (fields_check_keys(&workload_fields, &jw, wl, NULL) < 0 ||
		   fields_read_json(&workload_fields, &w->opts, &jw, wl) < 0))
		goto out;
	if (!w->opts.gbs)
		w->opts.gbs = 1024;
	/* the planner's messages on the precision name this file's key */
	snprintf(w->opts.precision_from, sizeof w->opts.precision_from, "%.*s: workload%s",
		 UTF8_CUT(file, 100),
		 wl && cJSON_GetObjectItemCaseSensitive(wl, "precision") ? ""
		 : " (no precision key: the default)");
	if (serve_parse(w, root, file, cat, err) < 0)
		goto out;
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

int workspace_load(struct workspace *w, const char *path, const struct catalog *cat,
		   struct hp_err *err)
{
	size_t len;
	char *text = hp_read_file(path, &len, err);
	if (!text)
		return -1;
	int rc = workspace_parse(w, text, len, path, cat, err);
	free(text);
	return rc;
}

char *workspace_to_string(const struct workspace *w)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddItemToObject(o, "cluster", cluster_to_json(&w->cluster));
	if (w->model_is_preset)
		cJSON_AddStringToObject(o, "model", w->model.name);
	else
		cJSON_AddItemToObject(o, "model", model_to_json(&w->model));
	fields_write_json(&workload_fields, &w->opts, cJSON_AddObjectToObject(o, "workload"));
	if (w->serve.set) {
		cJSON *so = cJSON_AddObjectToObject(o, "serve");
		fields_write_json(&ws_serve_fields, &w->serve, so);
		/* a precision left to the default stays out, so that the
		 * file reads back as the default (fp16 on a GPU without bf16),
		 * not as a bf16 named and refused there */
		if (!w->serve.wprec_given)
			cJSON_DeleteItemFromObjectCaseSensitive(so, "weights");
		if (!w->serve.kvprec_given)
			cJSON_DeleteItemFromObjectCaseSensitive(so, "kv_cache");
	}
	char *s = cJSON_Print(o);
	cJSON_Delete(o);
	size_t n = strlen(s);
	char *out = xmalloc(n + 2);
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	cJSON_free(s);
	return out;
}

int workspace_save(const struct workspace *w, const char *path, struct hp_err *err)
{
	char *s = workspace_to_string(w);
	int rc = hp_write_file_atomic(path, s, strlen(s), err);
	free(s);
	return rc;
}
