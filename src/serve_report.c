/* serve_report.c — serving plans for people: launch lines, tables and the
 * terminal, Markdown and HTML reports (serve_report.h).
 *
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "serve_report.h"
#include "escape.h"
#include "report_priv.h"
#include "serve_accuracy.h"
#include "utf8.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- launch lines ----------------------------------------------------------- */

/* Checkpoints in the fp8-mlp weight format, by the 16-bit repository they
 * were quantised from: Meta publishes them for Llama 3.1 405B only
 * (https://huggingface.co/meta-llama/Llama-3.1-405B-Instruct-FP8 and
 * .../Llama-3.1-405B-FP8). Their config.json names the format
 * (quantization_config.quant_method "fbgemm_fp8", modules_to_not_convert
 * the attention and edge layers), which vLLM and SGLang read from the
 * checkpoint, so the launch line names the repository and no
 * --quantization. */
static const struct {
	const char *from, *fp8;
} fp8_mlp_ckpt[] = {
	{ "meta-llama/Llama-3.1-405B-Instruct", "meta-llama/Llama-3.1-405B-Instruct-FP8" },
	{ "meta-llama/Llama-3.1-405B", "meta-llama/Llama-3.1-405B-FP8" },
};

const char *serve_fp8_mlp_checkpoint(const char *hf_id)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(fp8_mlp_ckpt); i++)
		if (!strcmp(hf_id, fp8_mlp_ckpt[i].from) || !strcmp(hf_id, fp8_mlp_ckpt[i].fp8))
			return fp8_mlp_ckpt[i].fp8;
	return NULL;
}

int serve_build_note(char *buf, size_t n, const struct serve_config *cfg,
		     const struct cluster *c)
{
	const struct serve_build_profile *bp = serve_build(cfg->build);
	size_t len = 0;
	if (n)
		buf[0] = 0;
	if (cfg->build == BUILD_CURRENT)
		return 0;
	if (bp->engine != cfg->engine) {
		snprintf(buf, n, "%s is a build of %s, not %s", bp->name,
			 serve_engine_name(bp->engine), serve_engine_name(cfg->engine));
		return 1;
	}
	char gpus[256] = "";
	if (!c || bp->gen == GEN_OTHER)   /* a build that differs on every GPU */
		return 0;
	for (int i = 0; i < c->n_pools; i++) {
		if (c->pools[i].gpu.gen == bp->gen)
			return 0;
		if (len < sizeof gpus && !strstr(gpus, c->pools[i].gpu.name))
			len += (size_t)snprintf(gpus + len, sizeof gpus - len, "%s%s",
						len ? ", " : "", c->pools[i].gpu.name);
	}
	snprintf(buf, n, "%s differs from the current build on GPUs of the %s generation only, "
		 "and no pool has one (%s)", bp->name, hp_gen_name(bp->gen), gpus);
	return 2;
}

/* What an engine loads: the model's Hugging Face repository (its hf_id in
 * the catalog) or, without one, the preset name, which the user then
 * replaces with a local path; one shell word. With fp8-mlp weights: the
 * FP8 checkpoint where one is known, else the placeholder (cmd_serve says
 * so), since the 16-bit repository would load at 16 bits. */
static void model_ref(struct sbuf *o, const struct model_spec *m, const struct serve_opts *so)
{
	if (so->base.wprec == SW_FP8_MLP) {
		const char *ck = serve_fp8_mlp_checkpoint(m->hf_id);
		esc_shell(o, ck ? ck : SERVE_MODEL_PLACEHOLDER);
		return;
	}
	esc_shell(o, *m->hf_id ? m->hf_id : m->name);
}

/* The longest sequence the plan admits: p99 prompt plus p99 output. */
static int max_model_len(const struct serve_opts *so)
{
	double need = serve_dist_quantile(&so->isl, 0.99) + serve_dist_quantile(&so->osl, 0.99);
	return (int)ceil(need);
}

const char *serve_objective_ranked(const struct serve_opts *so)
{
	return so->offline || so->objective == SERVE_OBJ_THROUGHPUT ? "throughput" : "cost";
}

int serve_prec_swap_note(char *buf, size_t n, const struct serve_config *cfg,
			 const struct gpu_spec *g)
{
	int w = serve_wprec_on(cfg, g) != cfg->wprec, k = serve_kvprec_on(cfg, g) != cfg->kvprec;
	if (!w && !k) {
		if (n)
			buf[0] = 0;
		return 0;
	}
	snprintf(buf, n, "%s fp16 (%s has no bf16)",
		 w && k ? "weights and KV cache" : w ? "weights" : "KV cache", g->name);
	return 1;
}

/* The 16-bit type an engine computes in on g: fp16 where --precision
 * fp16 asks for it, and on every GPU without bf16, whatever the weights
 * (fp8 and int4 weight-only kernels compute in it too). */
static int wants_fp16(const struct serve_opts *so, const struct gpu_spec *g)
{
	return serve_wprec_on(&so->base, g) == SW_FP16 || !serve_gpu_has_bf16(g);
}

/* vLLM's names of hetplan's precisions (vllm/engine/arg_utils.py:
 * --dtype, --quantization, --kv-cache-dtype); checked by
 * tests/test_serve_cli.sh against tests/data/serving_vllm_flags.txt. */
static void launch_vllm(struct sbuf *o, const struct model_spec *m, const struct serve_opts *so,
			const struct serve_plan_inst *in, const struct gpu_spec *g)
{
	sbuf_add(o, "vllm serve ");
	model_ref(o, m, so);
	sbuf_addf(o, " --tensor-parallel-size %d", in->tp);
	if (in->pp > 1)
		sbuf_addf(o, " --pipeline-parallel-size %d", in->pp);
	if (in->max_batch > 0)
		sbuf_addf(o, " --max-num-seqs %d", in->max_batch);
	double util = so->base.mem_util > 0 ? so->base.mem_util : serve_engine(ENGINE_VLLM)->mem_util;
	sbuf_addf(o, " --gpu-memory-utilization %.2f", util);
	sbuf_addf(o, " --kv-cache-dtype %s", so->base.kvprec == SKV_FP8 ? "fp8" : "auto");
	if (so->base.wprec == SW_FP8)
		sbuf_add(o, " --quantization fp8");
	if (wants_fp16(so, g))
		sbuf_add(o, " --dtype float16");
	if (so->base.chunk_tokens > 0)
		sbuf_addf(o, " --max-num-batched-tokens %d", so->base.chunk_tokens);
	if (so->base.eager)
		sbuf_add(o, " --enforce-eager");
	const char *ov = serve_overlap_flag(&so->base);
	if (ov && *ov)
		sbuf_addf(o, " %s", ov);
	sbuf_addf(o, " --max-model-len %d", max_model_len(so));
	/* disaggregated prefill/decode: vLLM's KV connector (NIXL) */
	if (in->role == ROLE_PREFILL || in->role == ROLE_DECODE)
		sbuf_add(o, " --kv-transfer-config "
			    "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'");
}

/* SGLang (python -m sglang.launch_server; its flag names are not checked
 * against a pinned list) and TensorRT-LLM (trtllm-serve; checked by
 * tests/test_serve_cli.sh against tests/data/serving_trtllm_flags.txt). */
static void launch_other(struct sbuf *o, const struct model_spec *m, const struct serve_opts *so,
			 const struct serve_plan_inst *in, const struct gpu_spec *g)
{
	const struct serve_engine_profile *e = serve_engine(so->base.engine);
	double util = so->base.mem_util > 0 ? so->base.mem_util : e->mem_util;
	if (so->base.engine == ENGINE_SGLANG) {
		sbuf_add(o, "python -m sglang.launch_server --model-path ");
		model_ref(o, m, so);
		sbuf_addf(o, " --tp %d", in->tp);
		if (in->max_batch > 0)
			sbuf_addf(o, " --max-running-requests %d", in->max_batch);
		sbuf_addf(o, " --mem-fraction-static %.2f", util);
		if (so->base.kvprec == SKV_FP8)
			sbuf_add(o, " --kv-cache-dtype fp8_e5m2");
		if (so->base.wprec == SW_FP8)
			sbuf_add(o, " --quantization fp8");
		/* sglang/srt/server_args.py --dtype: auto, half, float16,
		 * bfloat16, float, float32 */
		if (wants_fp16(so, g))
			sbuf_add(o, " --dtype float16");
		const char *ov = serve_overlap_flag(&so->base);
		if (ov && *ov)
			sbuf_addf(o, " %s", ov);
		return;
	}
	/* tensorrt_llm/commands/serve.py (TensorRT-LLM @ 4c05a74) */
	sbuf_add(o, "trtllm-serve ");
	model_ref(o, m, so);
	sbuf_addf(o, " --backend %s --tp_size %d --pp_size %d",
		  so->base.engine == ENGINE_TRTLLM_ENGINE ? "tensorrt" : "pytorch", in->tp, in->pp);
	if (in->max_batch > 0)
		sbuf_addf(o, " --max_batch_size %d", in->max_batch);
	if (so->base.chunk_tokens > 0)
		sbuf_addf(o, " --max_num_tokens %d --enable_chunked_prefill", so->base.chunk_tokens);
	sbuf_addf(o, " --kv_cache_free_gpu_memory_fraction %.2f", util);
	sbuf_addf(o, " --max_seq_len %d", max_model_len(so));
	/* The 16-bit type, where vLLM and SGLang get --dtype float16:
	 * trtllm-serve has no --dtype (serve.py's options @ 4c05a74); its
	 * --extra_llm_api_options names a YAML file whose keys override the
	 * LLM API's arguments (update_llm_args_with_extra_dict), and those
	 * have dtype ("auto", the checkpoint's: bf16 for Llama 3; BaseLlmArgs
	 * in tensorrt_llm/llmapi/llm_args.py), for either backend. The file is
	 * a bash process substitution, so that the line stays one command. */
	if (wants_fp16(so, g))
		sbuf_add(o, " --extra_llm_api_options <(printf 'dtype: float16\\n')");
}

char *serve_launch_line(const struct model_spec *m, const struct serve_opts *so,
			const struct serve_plan_inst *in, const struct gpu_spec *g)
{
	struct sbuf o;
	sbuf_init(&o);
	if (so->base.engine == ENGINE_VLLM)
		launch_vllm(&o, m, so, in, g);
	else
		launch_other(&o, m, so, in, g);
	return sbuf_take(&o, NULL);
}

/* ---- tables ----------------------------------------------------------------- */

static int is_how(const struct serve_plan *pl, const char *how)
{
	return pl->how && !strcmp(pl->how, how);
}

double serve_inst_max_util(const struct serve_plan *pl, int role, const struct serve_slo *slo)
{
	/* a placement's flow is the most its machines carry (max flow at
	 * their full tokens/s, place_theta_layers): no cap, its bottleneck
	 * runs at 100% */
	if (is_how(pl, "estimate") || is_how(pl, "placement"))
		return 0;
	return serve_role_capped(role, slo) ? SERVE_MAX_UTIL : 0;
}

int serve_cap_note(const struct serve_plan *pl, const struct serve_slo *slo, int brief,
		   char *buf, size_t n)
{
	int both = 0, pre = 0, dec = 0;
	for (int i = 0; i < pl->n_inst; i++) {
		if (serve_inst_max_util(pl, pl->inst[i].role, slo) <= 0)
			continue;
		both |= pl->inst[i].role == ROLE_BOTH;
		pre |= pl->inst[i].role == ROLE_PREFILL;
		dec |= pl->inst[i].role == ROLE_DECODE;
	}
	double pct = 100 * SERVE_MAX_UTIL;
	if (!both && !pre && !dec)
		return 0;
	if (!pre && !dec)
		snprintf(buf, n, brief ? "no p99 target: load <= %.0f%% of saturation" :
			 "No p99 target: each instance is loaded to at most %.0f%% "
			 "of its saturation rate, so that its queue stays finite.", pct);
	else if (brief)
		snprintf(buf, n, "%s load <= %.0f%% of saturation%s",
			 both ? "no p99 target: instance" : pre && dec ? "prefill, decode" :
			 pre ? "prefill" : "decode", pct,
			 dec && !pre && !both ? " (always)" : pre && !both ? " (no TTFT target)" : "");
	else {
		/* the roles capped, then why each is: "Both-phase and decode
		 * instances are ... (both-phase: no p99 target; decode:
		 * always)", roles as the JSON's role names them */
		char who[64] = "", why[160] = "";
		const char *role[3] = { "both-phase", "prefill", "decode" };
		const char *cause[3] = { "no p99 target", "no TTFT target", "always, whatever the targets" };
		int on[3] = { both, pre, dec }, k = 0, last = dec ? 2 : pre ? 1 : 0;
		for (int r = 0; r < 3; r++) {
			if (!on[r])
				continue;
			size_t lw = strlen(who), ly = strlen(why);
			snprintf(who + lw, sizeof who - lw, "%s%s", !k ? "" : r == last ? " and " : ", ",
				 role[r]);
			snprintf(why + ly, sizeof why - ly, "%s%s: %s", k ? "; " : "", role[r], cause[r]);
			k++;
		}
		who[0] = (char)(who[0] - 'a' + 'A');
		snprintf(buf, n, "%s instances are loaded to at most %.0f%% of their saturation rate, "
			 "so that their queues stay finite (%s).", who, pct, why);
	}
	return 1;
}

/* A latency for people: "52.6 ms", "1.20 s", "inf". */
static void fmt_latency(char *b, size_t n, double s)
{
	if (!isfinite(s))
		snprintf(b, n, "inf");
	else if (s >= 10)
		snprintf(b, n, "%.0f s", s);
	else if (s >= 1)
		snprintf(b, n, "%.2f s", s);
	else
		snprintf(b, n, "%.1f ms", s * 1e3);
}

static void latency_cell(struct table *t, double s)
{
	char b[32];
	fmt_latency(b, sizeof b, s);
	if (isfinite(s))
		table_num(t, b, s);
	else
		table_text(t, b);
}

static const struct table_col plans_cols[] = {
	{ "#", NULL, TABLE_RIGHT },
	{ "plan", NULL, TABLE_LEFT },
	{ "GPUs", NULL, TABLE_RIGHT },
	{ "out tok/s", "tokens/s", TABLE_RIGHT },
	{ "req/s", "requests/s", TABLE_RIGHT },
	{ "$/h", "USD/h", TABLE_RIGHT },
	{ "$/M tok", "USD per million output tokens", TABLE_RIGHT },
	{ "TTFT p99", "s", TABLE_RIGHT },
	{ "TPOT p99", "s", TABLE_RIGHT },
	{ "fits", NULL, TABLE_LEFT },
};

void serve_table_plans(struct table *t, const struct serve_plan_result *res, int label_cols)
{
	table_init(t, "Serving plans");
	table_cols(t, plans_cols, (int)HP_ARRAY_LEN(plans_cols));
	for (int i = 0; i < res->n_plans; i++) {
		const struct serve_plan *pl = &res->plans[i];
		table_row(t, i == 0 ? TABLE_ROW_CHOSEN : 0);
		table_textf(t, "%d", i + 1);
		if (label_cols > 0) {
			char cut[4 * sizeof pl->label];
			utf8_cell(cut, sizeof cut, pl->label, label_cols);
			for (size_t n = strlen(cut); n && cut[n - 1] == ' '; n--)
				cut[n - 1] = 0;
			table_text(t, cut);
		} else {
			table_text(t, pl->label);
		}
		table_textf(t, "%d", pl->gpus);
		table_numf(t, "%.0f", pl->out_tps);
		table_numf(t, "%.2f", pl->req_s);
		if (pl->price_known && isfinite(pl->usd_per_hour) && pl->usd_per_hour >= 0) {
			/* $/h in table_usd's words, as plan, estimate and the
			 * TUI's Serve view write it */
			char usd[32];
			table_num(t, table_usd(usd, sizeof usd, pl->usd_per_hour, 0), pl->usd_per_hour);
		} else {
			table_text(t, "-");
		}
		if (pl->price_known && isfinite(pl->usd_per_mtok) && pl->usd_per_mtok >= 0) {
			/* $/1M in table_rate's words, as every view writes it */
			char r[32], usd[40];
			snprintf(usd, sizeof usd, "$%s", table_rate(r, sizeof r, pl->usd_per_mtok, 0));
			table_num(t, usd, pl->usd_per_mtok);
		} else {
			table_text(t, "-");
		}
		latency_cell(t, pl->ttft.p99);
		latency_cell(t, pl->tpot.p99);
		table_text(t, pl->fits ? "yes" : "no")->flags |= pl->fits ? TABLE_GOOD : TABLE_BAD;
	}
}

/* `hetplan serve --format csv`'s columns (docs/formats.md), one row a
 * plan; empty where a price or a latency is unknown. */
static const struct table_col csv_cols[] = {
	{ "rank", NULL, TABLE_RIGHT }, { "label", NULL, TABLE_LEFT }, { "how", NULL, TABLE_LEFT },
	{ "gpus", NULL, TABLE_RIGHT }, { "output_tokens_per_s", NULL, TABLE_RIGHT },
	{ "requests_per_s", NULL, TABLE_RIGHT }, { "usd_per_hour", NULL, TABLE_RIGHT },
	{ "usd_per_million_output_tokens", NULL, TABLE_RIGHT }, { "ttft_mean_s", NULL, TABLE_RIGHT },
	{ "ttft_p50_s", NULL, TABLE_RIGHT }, { "ttft_p99_s", NULL, TABLE_RIGHT },
	{ "tpot_mean_s", NULL, TABLE_RIGHT }, { "tpot_p50_s", NULL, TABLE_RIGHT },
	{ "tpot_p99_s", NULL, TABLE_RIGHT }, { "fits", NULL, TABLE_RIGHT },
};

void serve_table_csv(struct table *t, const struct serve_plan_result *res)
{
	table_init(t, "serving plans");
	table_cols(t, csv_cols, (int)HP_ARRAY_LEN(csv_cols));
	for (int i = 0; i < res->n_plans; i++) {
		const struct serve_plan *pl = &res->plans[i];
		table_row(t, 0);
		table_textf(t, "%d", i + 1);
		table_text(t, pl->label);
		table_text(t, pl->how ? pl->how : "");
		table_textf(t, "%d", pl->gpus);
		table_numf(t, "%.6g", pl->out_tps);
		table_numf(t, "%.6g", pl->req_s);
		if (pl->price_known) {
			table_numf(t, "%.4f", pl->usd_per_hour);
			table_numf(t, "%.6g", pl->usd_per_mtok);
		} else {
			table_skip(t, 2);
		}
		const double v[6] = { pl->ttft.mean, pl->ttft.p50, pl->ttft.p99,
				      pl->tpot.mean, pl->tpot.p50, pl->tpot.p99 };
		for (int k = 0; k < 6; k++)
			if (isfinite(v[k]))
				table_numf(t, "%.6g", v[k]);
			else
				table_skip(t, 1);
		table_textf(t, "%d", pl->fits);
	}
}

static const struct table_col inst_cols[] = {
	{ "instances", NULL, TABLE_RIGHT },
	{ "GPU", NULL, TABLE_LEFT },
	{ "pool", NULL, TABLE_LEFT },
	{ "role", NULL, TABLE_LEFT },
	{ "TP", NULL, TABLE_RIGHT },
	{ "PP", NULL, TABLE_RIGHT },
	{ "layers", NULL, TABLE_LEFT },
	{ "batch", NULL, TABLE_RIGHT },
	{ "KV tokens", "tokens", TABLE_RIGHT },
	{ "req/s", "requests/s", TABLE_RIGHT },
	{ "tok/s", "tokens/s", TABLE_RIGHT },
	{ "load", "share of saturation", TABLE_RIGHT },
};

static const char *role_name(int role)
{
	return role == ROLE_PREFILL ? "prefill" : role == ROLE_DECODE ? "decode" : "both";
}

void serve_table_instances(struct table *t, const struct cluster *c, const struct serve_plan *pl)
{
	table_init(t, "Instances");
	table_cols(t, inst_cols, (int)HP_ARRAY_LEN(inst_cols));
	for (int i = 0; i < pl->n_inst; i++) {
		const struct serve_plan_inst *in = &pl->inst[i];
		const struct pool *p = &c->pools[in->pool];
		table_row(t, 0);
		table_textf(t, "%d", in->count);
		table_text(t, p->gpu.name);
		table_text(t, p->name)->color = report_pool_color(in->pool);
		table_text(t, role_name(in->role));
		table_textf(t, "%d", in->tp);
		table_textf(t, "%d", in->pp);
		table_textf(t, "%d-%d", in->first_layer, in->last_layer);
		table_textf(t, "%d", in->max_batch);
		table_numf(t, "%.0f", in->kv_capacity_tokens);
		table_numf(t, "%.2f", in->rate);
		table_numf(t, "%.0f", in->tokens_per_s);
		/* each copy's rate over its saturation rate: the rest is its
		 * headroom */
		if (in->load > 0) {
			char b[16];
			snprintf(b, sizeof b, "%.0f%%", 100 * in->load);
			table_num(t, b, in->load);
		} else {
			table_text(t, "-");
		}
	}
}

static const struct table_col route_cols[] = {
	{ "route", NULL, TABLE_RIGHT },
	{ "requests", "fraction", TABLE_RIGHT },
	{ "machines (GPU[first-last layer])", NULL, TABLE_LEFT },
};

void serve_table_routes(struct table *t, const struct cluster *c, const struct serve_plan *pl)
{
	table_init(t, "Request routes");
	table_cols(t, route_cols, (int)HP_ARRAY_LEN(route_cols));
	for (int i = 0; i < pl->n_paths; i++) {
		struct sbuf s;
		sbuf_init(&s);
		for (int j = 0; j < pl->path[i].n; j++) {
			int g = pl->path[i].seg[j];
			if (g < 0 || g >= pl->n_inst)
				continue;
			sbuf_addf(&s, "%s%s[%d-%d]", s.len ? " " : "", c->pools[pl->inst[g].pool].gpu.name,
				  pl->inst[g].first_layer, pl->inst[g].last_layer);
		}
		char w[32];
		snprintf(w, sizeof w, "%.1f%%", 100 * pl->path[i].weight);
		table_row(t, 0);
		table_textf(t, "%d", i + 1);
		table_num(t, w, pl->path[i].weight);
		table_text(t, s.len ? s.s : "");
		sbuf_done(&s);
	}
}

static const struct table_col lat_cols[] = {
	{ "latency", NULL, TABLE_LEFT },
	{ "mean", "s", TABLE_RIGHT },
	{ "p50", "s", TABLE_RIGHT },
	{ "p99", "s", TABLE_RIGHT },
	{ "p99 target", "s", TABLE_RIGHT },
	{ "meets it", NULL, TABLE_LEFT },
};

static void latency_row(struct table *t, const char *what, const struct serve_quantiles *q,
			double target)
{
	table_row(t, 0);
	table_text(t, what);
	latency_cell(t, q->mean);
	latency_cell(t, q->p50);
	latency_cell(t, q->p99);
	if (target > 0) {
		latency_cell(t, target);
		int ok = isfinite(q->p99) && q->p99 <= target * (1 + 1e-9);
		table_text(t, ok ? "yes" : "no")->flags |= ok ? TABLE_GOOD : TABLE_BAD;
	} else {
		table_text(t, "none");
		table_text(t, "-");
	}
}

void serve_table_latency(struct table *t, const struct serve_plan *pl, const struct serve_slo *slo)
{
	table_init(t, "Latency");
	table_cols(t, lat_cols, (int)HP_ARRAY_LEN(lat_cols));
	latency_row(t, "time to first token (TTFT)", &pl->ttft, slo->ttft_p99_s);
	latency_row(t, "time per output token (TPOT)", &pl->tpot, slo->tpot_p99_s);
}

/* A length distribution as people read it. */
static void dist_text(char *b, size_t n, const struct serve_dist *d)
{
	switch (d->kind) {
	case DIST_LOGNORMAL:
		snprintf(b, n, "lognormal, mean %.0f, CV %.2f", d->a, d->b);
		break;
	case DIST_UNIFORM:
		snprintf(b, n, "uniform %.0f-%.0f", d->a, d->b);
		break;
	case DIST_EXP:
		snprintf(b, n, "exponential, mean %.0f", d->a);
		break;
	default:
		snprintf(b, n, "%.0f", d->a);
	}
}

static void kv(struct table *t, const char *k, const char *v)
{
	table_row(t, 0);
	table_text(t, k);
	table_text(t, v);
}

static const struct table_col workload_cols[] = {
	{ "setting", NULL, TABLE_LEFT },
	{ "value", NULL, TABLE_LEFT },
};

/* A precision and, after it, the pools' GPUs that run something else
 * instead of a default bf16: "bf16 (fp16 on V100-SXM2-32GB, which has no
 * bf16)". */
static void prec_cell(struct table *t, const char *name, int swapped, const struct cluster *c,
		      const struct serve_config *cfg, int kv)
{
	struct sbuf o;
	sbuf_init(&o);
	sbuf_add(&o, name);
	int n = 0;
	for (int i = 0; swapped && c && i < c->n_pools; i++) {
		const struct gpu_spec *g = &c->pools[i].gpu;
		int sw = kv ? serve_kvprec_on(cfg, g) != cfg->kvprec
			    : serve_wprec_on(cfg, g) != cfg->wprec;
		int dup = 0;
		for (int j = 0; j < i && !dup; j++)
			dup = !strcmp(c->pools[j].gpu.name, g->name);
		if (!sw || dup)
			continue;
		sbuf_addf(&o, "%s%s", n++ ? ", " : " (fp16 on ", g->name);
	}
	if (n)
		sbuf_addf(&o, ", which %s no bf16)", n == 1 ? "has" : "have");
	table_text(t, o.s ? o.s : name);
	sbuf_done(&o);
}

/* The engine as the workload names it: "vllm", or "vllm, build
 * vllm-rocm-0.6" for a build other than the current one. */
static const char *engine_text(char *b, size_t n, const struct serve_opts *so)
{
	if (so->base.build == BUILD_CURRENT)
		return serve_engine_name(so->base.engine);
	snprintf(b, n, "%s, build %s", serve_engine_name(so->base.engine),
		 serve_build(so->base.build)->name);
	return b;
}

void serve_table_workload(struct table *t, const struct serve_opts *so, const struct cluster *c)
{
	char b[96];
	table_init(t, "Workload");
	table_cols(t, workload_cols, (int)HP_ARRAY_LEN(workload_cols));
	if (so->offline)
		snprintf(b, sizeof b, "offline (the most the cluster serves)");
	else
		snprintf(b, sizeof b, "%.6g requests/s, Poisson arrivals", so->rate);
	kv(t, "rate", b);
	dist_text(b, sizeof b, &so->isl);
	kv(t, "prompt tokens", b);
	dist_text(b, sizeof b, &so->osl);
	kv(t, "output tokens", b);
	fmt_latency(b, sizeof b, so->slo.ttft_p99_s);
	kv(t, "p99 TTFT target", so->slo.ttft_p99_s > 0 ? b : "none");
	fmt_latency(b, sizeof b, so->slo.tpot_p99_s);
	kv(t, "p99 TPOT target", so->slo.tpot_p99_s > 0 ? b : "none");
	kv(t, "engine", engine_text(b, sizeof b, so));
	table_row(t, 0);
	table_text(t, "weights");
	prec_cell(t, serve_wprec_name(so->base.wprec), !so->base.wprec_given, c, &so->base, 0);
	table_row(t, 0);
	table_text(t, "KV cache");
	prec_cell(t, serve_kvprec_name(so->base.kvprec), !so->base.kvprec_given, c, &so->base, 1);
	kv(t, "objective", serve_objective_ranked(so));
}

/* The measured accuracy of the serving model (src/serve_accuracy.h,
 * written by tools/serve_accuracy_update.py from test_serve_accuracy). */
static const struct table_col acc_cols[] = {
	{ "what", NULL, TABLE_LEFT },
	{ "rows", NULL, TABLE_RIGHT },
	{ "MAPE", "%", TABLE_RIGHT },
	{ "how it is measured", NULL, TABLE_LEFT },
};

static void acc_row(struct table *t, const char *what, int rows, double mape, const char *how)
{
	table_row(t, 0);
	table_text(t, what);
	table_textf(t, "%d", rows);
	table_numf(t, "%.1f%%", mape);
	table_text(t, how);
}

static void serve_table_accuracy(struct table *t)
{
	static const char cv[] = "leave one source out (tests/data/serving.csv)";
	static const char blind[] = "blind: recorded before hetplan ran on them";
	table_init(t, "How far to trust these numbers");
	table_cols(t, acc_cols, (int)HP_ARRAY_LEN(acc_cols));
	acc_row(t, "offline throughput", SACC_OFFLINE_ROWS, SACC_OFFLINE_MAPE, cv);
	acc_row(t, "mean TTFT below saturation", SACC_TTFT_ROWS, SACC_TTFT_MAPE, cv);
	acc_row(t, "mean ITL below saturation", SACC_ITL_ROWS, SACC_ITL_MAPE, cv);
	acc_row(t, "saturation rate", SACC_SAT_ROWS, SACC_SAT_MAPE, cv);
	acc_row(t, "throughput, other suites", SACC_BLIND_THR_ROWS, SACC_BLIND_THR_MAPE, blind);
	acc_row(t, "TTFT, other suites", SACC_BLIND_TTFT_ROWS, SACC_BLIND_TTFT_MAPE, blind);
	acc_row(t, "ITL, other suites", SACC_BLIND_ITL_ROWS, SACC_BLIND_ITL_MAPE, blind);
	acc_row(t, "heterogeneous placements", SACC_PLACE_ROWS, SACC_PLACE_MAPE,
		"Helix's measured layouts (tests/data/serving_hetero.csv), seen");
}

/* The serving model's simplifications, one sentence each (docs/serving.md
 * has the sources and the rest). */
static const char *const serve_limits[] = {
	"Arrivals are Poisson; the p50 and p99 latencies come from the queueing model, not "
	"from a trace.",
	"Expert parallelism inside an instance is modelled as tensor parallelism of the experts.",
	"Prefix caching and speculative decoding are not modelled.",
	"Engine profiles describe vLLM 0.6 and later, SGLang and TensorRT-LLM; an older engine "
	"needs its host time per iteration (--step-overhead).",
	"Placement: layer blocks are equal, every machine also holds the embedding and output "
	"matrices, and the logits' compute is not charged.",
	"Every figure is an estimate: run the launch lines on the real GPUs and measure before "
	"buying or renting.",
};

/* ---- JSON ----------------------------------------------------------------------- */

void serve_json_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *quant_json(const struct serve_quantiles *q)
{
	cJSON *o = cJSON_CreateObject();
	serve_json_num(o, "mean", q->mean);
	serve_json_num(o, "p50", q->p50);
	serve_json_num(o, "p99", q->p99);
	return o;
}

cJSON *serve_plan_json(const struct serve_plan *pl, const struct cluster *c,
		       const struct model_spec *m, const struct serve_opts *so)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", pl->label);
	cJSON_AddStringToObject(o, "how", pl->how ? pl->how : "");
	serve_json_num(o, "output_tokens_per_s", pl->out_tps);
	serve_json_num(o, "requests_per_s", pl->req_s);
	if (pl->price_known) {
		serve_json_num(o, "usd_per_hour", pl->usd_per_hour);
		serve_json_num(o, "usd_per_million_output_tokens", pl->usd_per_mtok);
	} else {
		cJSON_AddNullToObject(o, "usd_per_hour");
		cJSON_AddNullToObject(o, "usd_per_million_output_tokens");
	}
	cJSON_AddItemToObject(o, "ttft_s", quant_json(&pl->ttft));
	cJSON_AddItemToObject(o, "tpot_s", quant_json(&pl->tpot));
	cJSON_AddNumberToObject(o, "gpus", pl->gpus);
	/* the whole nodes usd_per_hour prices (serve_search.c plan_price_nodes) */
	cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
	for (int p = 0; p < c->n_pools; p++)
		if (pl->nodes[p]) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "pool", c->pools[p].name);
			cJSON_AddNumberToObject(e, "nodes", pl->nodes[p]);
			cJSON_AddItemToArray(nodes, e);
		}
	cJSON *arr = cJSON_AddArrayToObject(o, "instances");
	for (int i = 0; i < pl->n_inst; i++) {
		const struct serve_plan_inst *in = &pl->inst[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "pool", c->pools[in->pool].name);
		cJSON_AddStringToObject(e, "gpu", c->pools[in->pool].gpu.name);
		cJSON_AddNumberToObject(e, "count", in->count);
		cJSON_AddStringToObject(e, "role", role_name(in->role));
		cJSON_AddNumberToObject(e, "tp", in->tp);
		cJSON_AddNumberToObject(e, "pp", in->pp);
		/* what runs on this GPU: a default bf16 is fp16 on one without */
		const struct gpu_spec *g = &c->pools[in->pool].gpu;
		cJSON_AddStringToObject(e, "weights", serve_wprec_name(serve_wprec_on(&so->base, g)));
		cJSON_AddStringToObject(e, "kv_cache", serve_kvprec_name(serve_kvprec_on(&so->base, g)));
		cJSON_AddNumberToObject(e, "max_batch", in->max_batch);
		cJSON_AddNumberToObject(e, "kv_capacity_tokens", in->kv_capacity_tokens);
		cJSON *ly = cJSON_AddArrayToObject(e, "layers");
		cJSON_AddItemToArray(ly, cJSON_CreateNumber(in->first_layer));
		cJSON_AddItemToArray(ly, cJSON_CreateNumber(in->last_layer));
		serve_json_num(e, "requests_per_s", in->rate);
		serve_json_num(e, "output_tokens_per_s", in->tokens_per_s);
		if (in->load > 0)
			cJSON_AddNumberToObject(e, "utilisation", in->load);
		else
			cJSON_AddNullToObject(e, "utilisation");
		double cap = serve_inst_max_util(pl, in->role, &so->slo);
		if (cap > 0)
			cJSON_AddNumberToObject(e, "max_utilisation", cap);
		else
			cJSON_AddNullToObject(e, "max_utilisation");
		if (strcmp(pl->how ? pl->how : "", "placement")) {
			char *l = serve_launch_line(m, so, in, &c->pools[in->pool].gpu);
			cJSON_AddStringToObject(e, "launch", l);
			free(l);
		}
		cJSON_AddItemToArray(arr, e);
	}
	if (pl->n_paths) {
		cJSON *pa = cJSON_AddArrayToObject(o, "routes");
		for (int i = 0; i < pl->n_paths; i++) {
			cJSON *r = cJSON_CreateObject();
			cJSON_AddNumberToObject(r, "weight", pl->path[i].weight);
			cJSON *st = cJSON_AddArrayToObject(r, "instances");
			for (int j = 0; j < pl->path[i].n; j++)
				cJSON_AddItemToArray(st, cJSON_CreateNumber(pl->path[i].seg[j]));
			cJSON_AddItemToArray(pa, r);
		}
	}
	if (strcmp(pl->how ? pl->how : "", "estimate")) {
		cJSON_AddStringToObject(o, "solver",
					pl->lp_status == 0 ? "optimal" : pl->lp_status == 1 ? "within gap" : "failed");
		serve_json_num(o, "gap", pl->gap);
	}
	cJSON_AddBoolToObject(o, "fits", pl->fits);
	return o;
}

cJSON *serve_plans_json(const struct serve_report_input *in)
{
	const struct serve_plan_result *res = in->res;
	const struct serve_opts *so = in->opts;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "schema_version", 1);
	cJSON_AddStringToObject(j, "model", in->model->name);
	cJSON_AddStringToObject(j, "engine", serve_engine_name(so->base.engine));
	if (so->base.build != BUILD_CURRENT)   /* serve --engine-build */
		cJSON_AddStringToObject(j, "engine_build", serve_build(so->base.build)->name);
	cJSON_AddStringToObject(j, "objective", serve_objective_ranked(so));
	cJSON *pl = cJSON_AddArrayToObject(j, "plans");
	for (int i = 0; i < res->n_plans; i++)
		cJSON_AddItemToArray(pl, serve_plan_json(&res->plans[i], in->cluster, in->model, so));
	cJSON *s = cJSON_AddObjectToObject(j, "search");
	cJSON_AddNumberToObject(s, "candidates", res->n_cands);
	cJSON_AddNumberToObject(s, "buckets", res->n_buckets);
	cJSON_AddNumberToObject(s, "seconds", res->seconds);
	cJSON_AddNumberToObject(s, "solver_seconds", res->ilp_seconds);
	if (in->failed) {
		cJSON_AddStringToObject(j, "why", res->why);
		if (res->has_nearest)
			cJSON_AddItemToObject(j, "nearest_miss",
					      serve_plan_json(&res->nearest, in->cluster, in->model, so));
	}
	return j;
}

/* ---- rendering -------------------------------------------------------------- */

/* How one sink writes headings, paragraphs and command lines around the
 * tables; esc is the sink's one escaping function. */
struct ssink {
	void (*esc)(struct sbuf *b, const char *s);
	void (*table)(struct sbuf *b, const struct table *t);
	const char *h[2];      /* a sub-heading */
	const char *p[2];      /* a paragraph */
	const char *code[2];   /* around the launch lines */
};

static const struct ssink sinks[] = {
	[SERVE_SINK_TERM] = { esc_term, table_render_term, { "\n", ":\n" }, { "", "\n" },
			      { "", "" } },
	[SERVE_SINK_MD] = { esc_md, table_render_md, { "\n### ", "\n\n" }, { "\n", "\n" },
			    { "```sh\n", "```\n" } },
	[SERVE_SINK_HTML] = { esc_html, table_render_html, { "<h3>", "</h3>\n" },
			      { "<p class=\"note\">", "</p>\n" }, { "<pre><code>", "</code></pre>\n" } },
};

static void put_table(struct sbuf *b, const struct ssink *k, struct table *t, int heading)
{
	if (heading && t->title) {
		sbuf_add(b, k->h[0]);
		k->esc(b, t->title);
		sbuf_add(b, k->h[1]);
	}
	k->table(b, t);
	table_done(t);
}

static void put_text(struct sbuf *b, const struct ssink *k, const char *s)
{
	sbuf_add(b, k->p[0]);
	k->esc(b, s);
	sbuf_add(b, k->p[1]);
}

/* One comment line naming the instance group, then its command, for each
 * group of pl. A placement has none (one engine per machine, not a stock
 * engine's launch). */
static void put_launch(struct sbuf *b, const struct ssink *k, const struct serve_report_input *in,
		       const struct serve_plan *pl)
{
	if (is_how(pl, "placement") || !pl->n_inst)
		return;
	sbuf_add(b, k->h[0]);
	k->esc(b, "Launch, one command per instance");
	sbuf_add(b, k->h[1]);
	sbuf_add(b, k->code[0]);
	for (int i = 0; i < pl->n_inst; i++) {
		const struct serve_plan_inst *x = &pl->inst[i];
		const struct pool *p = &in->cluster->pools[x->pool];
		char head[2 * sizeof p->gpu.name + sizeof p->name + 320], pp[24] = "";
		char swap[sizeof p->gpu.name + 64];
		if (x->pp > 1)
			snprintf(pp, sizeof pp, " x PP %d", x->pp);
		/* the precision the GPU turns the default into, said where
		 * the launch line's --dtype float16 comes from */
		serve_prec_swap_note(swap, sizeof swap, &in->opts->base, &p->gpu);
		/* the pre-XQA build's figures are of an engine built by
		 * TensorRT-LLM v0.5-v0.7; the line is today's trtllm-serve,
		 * which came later, and a TensorRT engine loads only under
		 * the TensorRT it was built with */
		int old_trt = in->opts->base.build == BUILD_TRTLLM_PRE_XQA &&
			      in->opts->base.engine == ENGINE_TRTLLM_ENGINE;
		snprintf(head, sizeof head, "# pool %s: %d instance%s of TP %d%s on %s%s%s%s%s", p->name,
			 x->count, x->count == 1 ? "" : "s", x->tp, pp, p->gpu.name,
			 x->role == ROLE_PREFILL ? ", prefill only"
			 : x->role == ROLE_DECODE ? ", decode only" : "", *swap ? ", " : "", swap,
			 old_trt ? "; figures for a v0.5-v0.7 engine (no XQA), which this current "
				   "trtllm-serve does not load: serve it with its own release" : "");
		char *l = serve_launch_line(in->model, in->opts, x, &p->gpu);
		if (k == &sinks[SERVE_SINK_MD]) {   /* fenced code: literal text */
			sbuf_addf(b, "%s\n%s\n", head, l);
		} else {
			if (k == &sinks[SERVE_SINK_TERM])
				sbuf_add(b, "  ");
			k->esc(b, head);
			sbuf_add(b, "\n");
			if (k == &sinks[SERVE_SINK_TERM])
				sbuf_add(b, "  ");
			k->esc(b, l);
			sbuf_add(b, "\n");
		}
		free(l);
	}
	sbuf_add(b, k->code[1]);
}

/* Plan 1's detail: instances, launch lines, routes, latencies. */
/* The whole nodes a plan's price pays for, as a sentence; 0 when unpriced. */
static int serve_nodes_note(const struct serve_plan *pl, const struct cluster *c, char *buf, size_t n)
{
	if (!pl->price_known || n < 2)
		return 0;
	struct sbuf o;
	sbuf_init(&o);
	sbuf_add(&o, "Cost: whole nodes, as clouds rent them and training is priced:");
	int idle = 0, first = 1;
	for (int p = 0; p < c->n_pools; p++) {
		if (!pl->nodes[p])
			continue;
		int used = 0;
		for (int i = 0; i < pl->n_inst; i++)
			if (pl->inst[i].pool == p)
				used += pl->inst[i].tp * pl->inst[i].pp * pl->inst[i].count;
		idle += pl->nodes[p] * c->pools[p].gpus_per_node - used;
		/* the node-hour in table_rate's words and the sum in
		 * table_usd's, as estimate's prices line and every $/h */
		char r[32];
		sbuf_addf(&o, "%s %d x %s at $%s/node-h", first ? "" : " +", pl->nodes[p],
			  c->pools[p].name, table_rate(r, sizeof r, c->pools[p].usd_per_node_h, 0));
		first = 0;
	}
	char u[32];
	sbuf_addf(&o, " = %s/h", table_usd(u, sizeof u, pl->usd_per_hour, 0));
	if (idle > 0)
		sbuf_addf(&o, " (%d GPU%s idle)", idle, idle == 1 ? "" : "s");
	hp_strlcpy(buf, o.s ? o.s : "", n);
	sbuf_done(&o);
	return 1;
}

static void put_plan(struct sbuf *b, const struct ssink *k, const struct serve_report_input *in,
		     const struct serve_plan *pl)
{
	struct table t;
	serve_table_instances(&t, in->cluster, pl);
	put_table(b, k, &t, 1);
	put_launch(b, k, in, pl);
	if (pl->n_paths) {
		serve_table_routes(&t, in->cluster, pl);
		put_table(b, k, &t, 1);
	}
	serve_table_latency(&t, pl, &in->opts->slo);
	put_table(b, k, &t, 1);
	/* the load the latencies above are at when no target bounds it
	 * (serve_max_rate); an estimate runs at the rate it was given */
	char line[600];
	if (serve_cap_note(pl, &in->opts->slo, 0, line, sizeof line))
		put_text(b, k, line);
	if (serve_nodes_note(pl, in->cluster, line, sizeof line))
		put_text(b, k, line);
}

/* The search's counts, one line of plain text. */
static void search_line(char *buf, size_t n, const struct serve_report_input *in)
{
	const struct serve_plan_result *r = in->res;
	const struct serve_plan *pl = r->n_plans ? &r->plans[0] : NULL;
	if (pl && is_how(pl, "estimate"))
		snprintf(buf, n, "one instance configuration, estimated");
	else if (pl && is_how(pl, "placement") && pl->gap > 1e-6)
		/* LP_FEASIBLE: the search stopped short of a proof (the MILP's
		 * node budget, or a MILP too large to run after the staged
		 * start), the optimum at most gap above the plan */
		snprintf(buf, n, "placement search %.2f s; the optimum is at most %.1f%% above this "
			 "plan (its bound)", r->seconds, 100 * pl->gap);
	else if (pl && is_how(pl, "placement"))
		snprintf(buf, n, "placement search %.2f s, optimal", r->seconds);
	else
		snprintf(buf, n, "%d candidate instance configuration%s, %d request bucket%s, "
			 "%.2f s (ILP %.3f s)", r->n_cands, r->n_cands == 1 ? "" : "s", r->n_buckets,
			 r->n_buckets == 1 ? "" : "s", r->seconds, r->ilp_seconds);
}

static void plan_heading(char *buf, size_t n, const struct serve_plan *pl)
{
	int o = snprintf(buf, n, "Plan 1: %s (%s", pl->label, pl->how ? pl->how : "");
	if (o > 0 && (size_t)o < n && pl->gap > 1e-6)
		o += snprintf(buf + o, n - (size_t)o, ", gap %.1f%%", 100 * pl->gap);
	if (o > 0 && (size_t)o < n)
		snprintf(buf + o, n - (size_t)o, ")");
}

int serve_nearest_note(char *buf, size_t n, const struct serve_plan_result *r)
{
	const struct serve_plan *pl = &r->nearest;
	char a[32], b[32];
	if (!r->has_nearest) {
		if (n)
			buf[0] = 0;
		return 0;
	}
	if (pl->req_s > 0 && is_how(pl, "placement")) {
		/* its label counts the GPUs already ("placement over 16 GPUs") */
		fmt_latency(a, sizeof a, pl->ttft.p99);
		fmt_latency(b, sizeof b, pl->tpot.p99);
		snprintf(buf, n, "%s, %.2f req/s, %.0f output tok/s, TTFT p99 %s, TPOT p99 %s", pl->label,
			 pl->req_s, pl->out_tps, a, b);
	} else if (pl->req_s > 0) {
		snprintf(buf, n, "%s, %d GPUs, %.2f req/s, %.0f output tok/s", pl->label, pl->gpus,
			 pl->req_s, pl->out_tps);
	} else if (isfinite(pl->ttft.p99)) {
		/* no rate it meets the targets at: what one request alone
		 * takes, the floor the targets are under */
		fmt_latency(a, sizeof a, pl->ttft.p99);
		fmt_latency(b, sizeof b, pl->tpot.p99);
		snprintf(buf, n, "%s, %d GPUs; one request alone: TTFT %s, TPOT %s", pl->label,
			 pl->gpus, a, b);
	} else {
		snprintf(buf, n, "%s, %d GPUs; does not fit", pl->label, pl->gpus);
	}
	return 1;
}

static void nearest_text(char *buf, size_t n, const struct serve_plan_result *r)
{
	char body[400];
	if (serve_nearest_note(body, sizeof body, r))
		snprintf(buf, n, "Nearest miss: %s.", body);
	else
		buf[0] = 0;
}

/* Terminal and Markdown: the plans, plan 1, the search line. */
static void render_text(struct sbuf *b, const struct serve_report_input *in, const struct ssink *k)
{
	const struct serve_plan_result *r = in->res;
	char line[640];
	struct table t;
	if (k == &sinks[SERVE_SINK_MD]) {
		sbuf_add(b, "# hetplan serving plans: ");
		esc_md(b, *in->model->display ? in->model->display : in->model->name);
		sbuf_add(b, "\n");
	}
	if (r->n_plans) {
		/* the terminal cuts plan names at 40 columns ("~"); the heading
		 * below has plan 1's whole */
		serve_table_plans(&t, r, k == &sinks[SERVE_SINK_TERM] ? 40 : 0);
		put_table(b, k, &t, k == &sinks[SERVE_SINK_MD]);
		plan_heading(line, sizeof line, &r->plans[0]);
		sbuf_add(b, k->h[0]);
		k->esc(b, line);
		sbuf_add(b, k == &sinks[SERVE_SINK_MD] ? "\n" : k->h[1]);  /* a heading follows */
		put_plan(b, k, in, &r->plans[0]);
	} else if (k == &sinks[SERVE_SINK_TERM]) {
		return;    /* the command says why on standard error */
	} else if (in->failed) {
		put_text(b, k, r->why);
		nearest_text(line, sizeof line, r);
		if (*line)
			put_text(b, k, line);
	}
	search_line(line, sizeof line, in);
	sbuf_add(b, k == &sinks[SERVE_SINK_TERM] ? "\n" : "");
	put_text(b, k, line);
	/* these pages have no workload table (the HTML page's and the
	 * workspace report's do): an engine build other than the profiled
	 * one, which changes the figures above, is named here */
	if (in->opts->base.build != BUILD_CURRENT) {
		char e[96];
		snprintf(line, sizeof line, "Engine: %s.", engine_text(e, sizeof e, in->opts));
		put_text(b, k, line);
	}
}

/* ---- the HTML page ------------------------------------------------------------ */

static void slo_card(struct sbuf *b, const char *k, double p99, double target)
{
	char v[32], t[32], s[96];
	fmt_latency(v, sizeof v, p99);
	fmt_latency(t, sizeof t, target);
	if (target > 0)
		snprintf(s, sizeof s, "p99; target %s: %s", t,
			 isfinite(p99) && p99 <= target * (1 + 1e-9) ? "met" : "missed");
	else
		snprintf(s, sizeof s, "p99; no target");
	report_html_card(b, "", k, v, s);
}

static void html_cards(struct sbuf *b, const struct serve_report_input *in,
		       const struct serve_plan *pl)
{
	char v[64], s[128], x[32];
	sbuf_add(b, "<div class=\"cards\">\n");
	snprintf(s, sizeof s, "%s, %d GPUs, %s", pl->how ? pl->how : "", pl->gpus,
		 pl->fits ? "meets the rate and the SLOs" : "misses the rate or an SLO");
	report_html_card(b, "hero", "Best plan", pl->label, s);
	if (pl->price_known) {
		snprintf(v, sizeof v, "%s/h", report_fmt_usd(x, sizeof x, pl->usd_per_hour));
		snprintf(s, sizeof s, "$%s per million output tokens",
			 table_rate(x, sizeof x, pl->usd_per_mtok, 0));
		report_html_card(b, "", "Cost", v, s);
	} else {
		report_html_card(b, "", "Cost", "unknown", "a pool in the plan has no price");
	}
	snprintf(v, sizeof v, "%s tok/s", hp_fmt_count(x, sizeof x, pl->out_tps));
	snprintf(s, sizeof s, "%.2f requests/s", pl->req_s);
	report_html_card(b, "", "Output", v, s);
	slo_card(b, "Time to first token", pl->ttft.p99, in->opts->slo.ttft_p99_s);
	slo_card(b, "Time per output token", pl->tpot.p99, in->opts->slo.tpot_p99_s);
	sbuf_add(b, "</div>\n");
}

static void html_head(struct sbuf *b, const struct serve_report_input *in)
{
	const struct cluster *c = in->cluster;
	const struct model_spec *m = in->model;
	const char *mname = *m->display ? m->display : m->name;
	char x[64];
	report_html_head(b, "Serving plan", "hetplan serving plan report", mname, c);
	if (in->opts->offline)
		sbuf_add(b, " &middot; offline");
	else
		sbuf_addf(b, " &middot; %.6g requests/s", in->opts->rate);
	sbuf_addf(b, " &middot; engine %s &middot; objective %s",
		  serve_engine_name(in->opts->base.engine),
		  serve_objective_ranked(in->opts));
	if (in->generated) {
		sbuf_addf(b, " &middot; generated %s by hetplan ",
			  report_fmt_time(x, sizeof x, in->generated));
		esc_html(b, in->version ? in->version : "");
	}
	sbuf_add(b, "</div></header>\n");
}

static void html_section_table(struct sbuf *b, struct table *t)
{
	sbuf_add(b, "<section><h2>");
	esc_html(b, t->title ? t->title : "");
	sbuf_add(b, "</h2>");
	table_render_html(b, t);
	table_done(t);
}

static void render_html(struct sbuf *b, const struct serve_report_input *in)
{
	const struct ssink *k = &sinks[SERVE_SINK_HTML];
	const struct serve_plan_result *r = in->res;
	char line[640];
	struct table t;
	html_head(b, in);
	if (r->n_plans) {
		const struct serve_plan *pl = &r->plans[0];
		html_cards(b, in, pl);
		serve_table_plans(&t, r, 0);
		html_section_table(b, &t);
		put_text(b, k, "Plans are ranked by the objective; fits: the plan serves the rate "
			       "within the p99 targets. $/M tok: the fleet's price per million "
			       "output tokens at the served rate.");
		sbuf_add(b, "</section>\n<section><h2>");
		plan_heading(line, sizeof line, pl);
		esc_html(b, line);
		sbuf_add(b, "</h2>\n");
		put_plan(b, k, in, pl);
		sbuf_add(b, "</section>\n");
	} else {
		sbuf_add(b, "<section><h2>No serving plan</h2>");
		put_text(b, k, r->why[0] ? r->why : "nothing fits or meets the rate and the SLOs");
		nearest_text(line, sizeof line, r);
		if (*line)
			put_text(b, k, line);
		sbuf_add(b, "</section>\n");
	}
	sbuf_add(b, "<section><h2>Inputs</h2>");
	serve_table_workload(&t, in->opts, in->cluster);
	put_table(b, k, &t, 1);
	report_table_pools(&t, in->cluster);
	put_table(b, k, &t, 1);
	report_table_model(&t, in->model);
	put_table(b, k, &t, 1);
	sbuf_add(b, "</section>\n");
	serve_table_accuracy(&t);
	html_section_table(b, &t);
	sbuf_add(b, "<h3>Limits of the model</h3><ul>\n");
	for (size_t i = 0; i < HP_ARRAY_LEN(serve_limits); i++) {
		sbuf_add(b, "<li>");
		esc_html(b, serve_limits[i]);
		sbuf_add(b, "</li>\n");
	}
	sbuf_add(b, "</ul></section>\n<footer>");
	search_line(line, sizeof line, in);
	esc_html(b, line);
	sbuf_add(b, ". hetplan is free software (GPL-3.0-or-later).</footer>\n</main></body></html>\n");
}

void serve_report_part(struct sbuf *b, const struct serve_report_input *in, enum serve_sink k)
{
	const struct ssink *s = &sinks[k == SERVE_SINK_HTML ? SERVE_SINK_HTML : SERVE_SINK_MD];
	const struct serve_plan_result *r = in->res;
	const char *mname = *in->model->display ? in->model->display : in->model->name;
	char line[640];
	struct table t;
	sbuf_add(b, s == &sinks[SERVE_SINK_HTML] ? "<section><h2>" : "\n## ");
	s->esc(b, "Serving ");
	s->esc(b, mname);
	sbuf_add(b, s == &sinks[SERVE_SINK_HTML] ? "</h2>\n" : "\n");
	serve_table_workload(&t, in->opts, in->cluster);
	put_table(b, s, &t, 1);
	if (r->n_plans) {
		serve_table_plans(&t, r, 0);
		put_table(b, s, &t, 1);
		plan_heading(line, sizeof line, &r->plans[0]);
		sbuf_add(b, s->h[0]);
		s->esc(b, line);
		sbuf_add(b, s == &sinks[SERVE_SINK_MD] ? "\n" : s->h[1]);  /* a heading follows */
		put_plan(b, s, in, &r->plans[0]);
	} else {
		put_text(b, s, r->why[0] ? r->why : "nothing fits or meets the rate and the SLOs");
		nearest_text(line, sizeof line, r);
		if (*line)
			put_text(b, s, line);
	}
	search_line(line, sizeof line, in);
	put_text(b, s, line);
	if (s == &sinks[SERVE_SINK_HTML])
		sbuf_add(b, "</section>\n");
}

void serve_report_render(struct sbuf *b, const struct serve_report_input *in, enum serve_sink k)
{
	if (k == SERVE_SINK_HTML)
		render_html(b, in);
	else
		render_text(b, in, &sinks[k == SERVE_SINK_MD ? SERVE_SINK_MD : SERVE_SINK_TERM]);
}

static void extra_md(struct sbuf *b, const void *ctx)
{
	serve_report_part(b, ctx, SERVE_SINK_MD);
}

static void extra_html(struct sbuf *b, const void *ctx)
{
	serve_report_part(b, ctx, SERVE_SINK_HTML);
}

/* The workspace report's CSV: the serving plans after the training plans,
 * one blank line between (their header rows tell the two apart). */
static void extra_csv(struct sbuf *b, const void *ctx)
{
	const struct serve_report_input *in = ctx;
	struct table t;
	serve_table_csv(&t, in->res);
	table_render_csv(b, &t);
	table_done(&t);
}

static cJSON *extra_json(const void *ctx)
{
	return serve_plans_json(ctx);
}

void serve_report_extra(struct report_extra *x, const struct serve_report_input *in)
{
	*x = (struct report_extra){ extra_md, extra_html, extra_json, "serving", in, extra_csv };
}
