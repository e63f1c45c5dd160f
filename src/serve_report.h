/* serve_report.h — serving plans for people: the engines' launch lines,
 * the tables, and the text, Markdown and HTML reports built from them.
 *
 * The engine side: no printing. `hetplan serve` (table, md and html
 * formats) and the TUI's Serve view export call serve_report_render();
 * the Serve view's launch lines are serve_launch_line()'s. Each table is
 * built once (table.h) and every sink renders the same rows, escaped by
 * its own function (esc_term, esc_md, esc_html). The JSON and CSV
 * contracts stay in ui/cmd_serve.c (docs/formats.md).
 *
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#ifndef HP_SERVE_REPORT_H
#define HP_SERVE_REPORT_H

#include <time.h>
#include "serve_search.h"
#include "table.h"

/* The command line that starts one instance of in on its engine
 * (so->base.engine): `vllm serve ...`, `python -m sglang.launch_server
 * ...` or `trtllm-serve ...`. The model is its Hugging Face repository
 * (the catalog's hf_id) or, without one, its preset name, as one shell
 * word (esc_shell). Heap string; caller frees. */
/* What a model read from a file without "hf_id" gets as its hf_id: the
 * user replaces it with a checkpoint directory or repository (hetplan
 * serve says so). Angle brackets make esc_shell quote it. */
#define SERVE_MODEL_PLACEHOLDER "<model-path-or-hf-repo>"
/* Where cfg's engine build (serve --engine-build) changes nothing: writes
 * why and returns 1 when it is a build of another engine, 2 when no pool
 * of c has the GPUs it differs on; else writes "" and returns 0 (current,
 * or a cluster with at least one such pool: the others are unchanged; c
 * NULL: the engine alone is checked). */
int serve_build_note(char *buf, size_t n, const struct serve_config *cfg,
		     const struct cluster *c);
/* The fp8-mlp checkpoint of the 16-bit repository hf_id (or hf_id itself
 * where it is one): Meta's Llama 3.1 405B FP8 repositories; NULL where
 * hetplan knows none, and then the launch lines load
 * SERVE_MODEL_PLACEHOLDER. */
const char *serve_fp8_mlp_checkpoint(const char *hf_id);
/* g is the GPU of in's pool: on one without bf16 (serve_gpu_has_bf16) the
 * vLLM and SGLang lines carry --dtype float16, since vLLM before its auto
 * fallback loaded a bf16 model's own dtype there and stopped ("Bfloat16 is
 * only supported on GPUs with compute capability of at least 8.0",
 * vllm-project/vllm#946, #1157, with vLLM 0.5.4 zai-org/GLM-4#510). */
char *serve_launch_line(const struct model_spec *m, const struct serve_opts *so,
			const struct serve_plan_inst *in, const struct gpu_spec *g);

/* Where g turns cfg's default bf16 weights or KV cache into fp16
 * (serve_wprec_on, serve_kvprec_on): writes what runs and why, e.g.
 * "weights and KV cache fp16 (V100-SXM2-32GB has no bf16)", and returns
 * 1; else writes "" and returns 0. */
int serve_prec_swap_note(char *buf, size_t n, const struct serve_config *cfg,
			 const struct gpu_spec *g);

/* r's nearest miss in a line of its own: "LABEL, N GPUs, R req/s, T
 * output tok/s" where it serves a rate, "LABEL, N GPUs; one request alone:
 * TTFT .., TPOT .." where it meets no rate, "LABEL, N GPUs; does not fit";
 * returns 0 (buf "") without one. The command's standard error, the
 * reports and the Serve view say it alike. */
struct serve_plan_result;
int serve_nearest_note(char *buf, size_t n, const struct serve_plan_result *r);

/* The objective so's plans are ranked by, "cost" or "throughput": offline
 * plans rank by throughput whatever so->objective says (serve_plan has no
 * rate to serve at a lower cost). */
const char *serve_objective_ranked(const struct serve_opts *so);

/* What a serving report shows. */
struct serve_report_input {
	const struct cluster *cluster;
	const struct model_spec *model;
	const struct serve_opts *opts;
	const struct serve_plan_result *res;  /* n_plans may be 0 */
	int failed;           /* serve_plan returned -1: res->why, maybe res->nearest */
	time_t generated;     /* HTML's "generated" line; 0 leaves it out */
	const char *version;  /* hetplan's version, or NULL */
};

/* The JSON contract of `hetplan serve --format json` (docs/formats.md):
 * one plan (its keys: label, how, output_tokens_per_s, requests_per_s,
 * usd_per_hour, usd_per_million_output_tokens, ttft_s and tpot_s as
 * {mean, p50, p99}, gpus, instances [{pool, gpu, count, role, tp, pp,
 * weights, kv_cache (the precisions that run on its GPU), max_batch,
 * kv_capacity_tokens, layers, requests_per_s, output_tokens_per_s,
 * utilisation (each copy's share of its saturation rate, null where not
 * modelled), max_utilisation, launch}], routes, solver, gap, fits), and the
 * whole answer {"schema_version", "model", "engine", "objective",
 * "plans", "search", and with in->failed "why" and "nearest_miss"}.
 * serve_json_num adds v, or null when it is not finite. */
/* The load cap on a plan's instances of `role` (enum serve_role): the
 * search loads them to at most SERVE_MAX_UTIL of their saturation rate
 * where no target bounds the load (serve_role_capped), 0 where the
 * targets bound it, the plan is an estimate at a given rate or a
 * placement (its max flow loads its bottleneck machines fully). serve_cap_note words the caps that apply to
 * pl's instances for its output (brief: the TUI's short line); 0 when none
 * applies. */
double serve_inst_max_util(const struct serve_plan *pl, int role, const struct serve_slo *slo);
int serve_cap_note(const struct serve_plan *pl, const struct serve_slo *slo, int brief,
		   char *buf, size_t n);

struct cJSON;
struct cJSON *serve_plan_json(const struct serve_plan *pl, const struct cluster *c,
			      const struct model_spec *m, const struct serve_opts *so);
struct cJSON *serve_plans_json(const struct serve_report_input *in);
void serve_json_num(struct cJSON *o, const char *k, double v);

/* The sinks of serve_report_render. */
enum serve_sink { SERVE_SINK_TERM, SERVE_SINK_MD, SERVE_SINK_HTML };

/* The tables (the caller calls table_done). Numbers behind the cells in
 * SI units: seconds, tokens/s, requests/s, USD/h, USD per million tokens.
 *   plans: the ranked plans, plan 1 marked TABLE_ROW_CHOSEN, their names
 *     cut to label_cols terminal columns ending in "~" (0: whole);
 *   instances: pl's instance groups (GPU, pool, role, TP, PP, layers,
 *     batch, KV tokens, routed rate and tokens/s, load: the share of
 *     saturation each copy runs at);
 *   routes: a placement's request routes (weight, layer ranges);
 *   latency: pl's TTFT and TPOT mean/p50/p99 against the SLO targets;
 *   workload: the rate, lengths, SLOs, engine and precisions (with what
 *     runs on c's pools without bf16, serve_prec_swap_note). */
void serve_table_plans(struct table *t, const struct serve_plan_result *res, int label_cols);
void serve_table_instances(struct table *t, const struct cluster *c, const struct serve_plan *pl);
void serve_table_routes(struct table *t, const struct cluster *c, const struct serve_plan *pl);
void serve_table_latency(struct table *t, const struct serve_plan *pl, const struct serve_slo *slo);
void serve_table_workload(struct table *t, const struct serve_opts *so, const struct cluster *c);
/* The plans as `hetplan serve --format csv` writes them (and the workspace
 * report's CSV after its training plans): rank, label, how, gpus,
 * output_tokens_per_s, requests_per_s, usd_per_hour,
 * usd_per_million_output_tokens, ttft and tpot mean/p50/p99 in seconds,
 * fits; rendered with table_render_csv (esc_csv). */
void serve_table_csv(struct table *t, const struct serve_plan_result *res);

/* The report of in for sink k, appended to b:
 *   TERM: the plans, plan 1's instances, launch lines, routes and
 *         latencies, and the search's counts (what `hetplan serve`
 *         prints);
 *   MD:   the same as Markdown with headings;
 *   HTML: one self-contained page (the training report's style) that
 *         adds the inputs, the measured accuracy and the model's limits. */
void serve_report_render(struct sbuf *b, const struct serve_report_input *in, enum serve_sink k);

/* The serving part of another report (the workspace report of `hetplan
 * report`): Markdown (a "## Serving" section) or HTML (<section>s), with
 * the workload, the plans and plan 1's detail, no page around them. */
void serve_report_part(struct sbuf *b, const struct serve_report_input *in, enum serve_sink k);

/* x as the training report's extra part (report.h) for in: the serving
 * part in Markdown and HTML and serve_plans_json under "serving". in must
 * outlive the report's rendering. */
struct report_extra;
void serve_report_extra(struct report_extra *x, const struct serve_report_input *in);

#endif
