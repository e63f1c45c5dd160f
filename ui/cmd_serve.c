/* cmd_serve.c — `hetplan serve`: size and place LLM serving. */
#include "cmd_serve.h"
#include "common.h"
#include "sbuf.h"
#include "serve_search.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above serve_help. */
const char cmd_serve_usage[] =
	"hetplan serve (-c CLUSTER.json | --pool SPEC...) -m MODEL --isl N|DIST --osl N|DIST\n"
	"         (--rate R | --offline) [--ttft-p99 S] [--tpot-p99 S]\n"
	"         [--objective cost|throughput] [--engine vllm|sglang|tensorrt-llm]\n"
	"         [--precision bf16|fp16|fp8|int4|fp4] [--kv-precision bf16|fp16|fp8]\n"
	"         [--tp N] [--pp N] [--max-batch N] [--chunk N] [--gpu-util F] [--place] [--disagg]\n"
	"         [--estimate] [--top K] [--no-price-book] [--format table|json|csv|md] [-o FILE]\n";

static const char serve_help[] =
	"\n"
	"  -c, --cluster FILE   cluster JSON; pools with \"nodes\": {\"max\": N} can be rented up to N\n"
	"      --pool SPEC      NODESxGPUSxGPU[,key=value...]; max=N marks nodes to rent\n"
	"  -m, --model M        preset name ('hetplan models') or a model JSON file\n"
	"      --isl, --osl     prompt and output tokens: N, lognormal:MEAN:CV, uniform:LO:HI,\n"
	"                       exp:MEAN (distributions are split into request buckets)\n"
	"      --rate R         requests/s to serve (Poisson arrivals)\n"
	"      --offline        no rate: the most the cluster can serve\n"
	"      --ttft-p99 S     p99 time to first token, seconds (e.g. 2 or 0.5)\n"
	"      --tpot-p99 S     p99 time per output token, seconds (e.g. 0.05)\n"
	"      --objective O    cost (default with --rate: cheapest fleet), throughput\n"
	"      --engine E       vllm (default), sglang, tensorrt-llm, tensorrt-llm-engine\n"
	"      --precision P    weights: bf16 (default), fp16, fp8, int4 (weight-only), fp4\n"
	"      --kv-precision P KV cache: bf16 (default), fp16, fp8\n"
	"      --tp/--pp N      fix the parallelism of every instance\n"
	"      --max-batch N    running sequences per instance (default: the engine's)\n"
	"      --chunk N        tokens per iteration (chunked prefill budget)\n"
	"      --gpu-util F     memory share the engine may use (default: the engine's)\n"
	"      --place          place contiguous layer ranges over every GPU of the cluster\n"
	"                       (Helix-style max-flow MILP) instead of whole-model replicas\n"
	"      --disagg         also consider separate prefill and decode instances, the KV\n"
	"                       cache shipped between them over the network\n"
	"      --estimate       evaluate one instance (--tp, --pp) on the first pool\n"
	"      --top K          plans to list (default 5)\n"
	"      --no-price-book  price pools from the catalog reference, not 'hetplan prices'\n"
	"  -o, --output FILE    write there (atomically); the format follows .json .csv .md\n"
	"\n"
	"Exit status: 0 plans found, 4 nothing fits or meets the rate and SLOs (the nearest\n"
	"miss is explained), 2 usage, 3 invalid input.\n";

enum { O_POOL = 256, O_ISL, O_OSL, O_RATE, O_OFFLINE, O_TTFT, O_TPOT, O_OBJ, O_ENGINE, O_PREC,
       O_KVPREC, O_TP, O_PP, O_MAXB, O_CHUNK, O_UTIL, O_PLACE, O_EST, O_TOP, O_NOBOOK,
       O_FORMAT, O_DISAGG };

static const struct option serve_opts[] = {
	{ "cluster", required_argument, 0, 'c' },
	{ "pool", required_argument, 0, O_POOL },
	{ "model", required_argument, 0, 'm' },
	{ "isl", required_argument, 0, O_ISL },
	{ "osl", required_argument, 0, O_OSL },
	{ "rate", required_argument, 0, O_RATE },
	{ "offline", no_argument, 0, O_OFFLINE },
	{ "ttft-p99", required_argument, 0, O_TTFT },
	{ "tpot-p99", required_argument, 0, O_TPOT },
	{ "objective", required_argument, 0, O_OBJ },
	{ "engine", required_argument, 0, O_ENGINE },
	{ "precision", required_argument, 0, O_PREC },
	{ "kv-precision", required_argument, 0, O_KVPREC },
	{ "tp", required_argument, 0, O_TP },
	{ "pp", required_argument, 0, O_PP },
	{ "max-batch", required_argument, 0, O_MAXB },
	{ "chunk", required_argument, 0, O_CHUNK },
	{ "gpu-util", required_argument, 0, O_UTIL },
	{ "place", no_argument, 0, O_PLACE },
	{ "disagg", no_argument, 0, O_DISAGG },
	{ "estimate", no_argument, 0, O_EST },
	{ "top", required_argument, 0, O_TOP },
	{ "no-price-book", no_argument, 0, O_NOBOOK },
	{ "format", required_argument, 0, O_FORMAT },
	{ "output", required_argument, 0, 'o' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

const struct option *cmd_serve_options(void)
{
	return serve_opts;
}

/* A positive number of seconds (or requests/s) below max. */
static int parse_pos(const char *s, double max, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

/* --- launch lines ------------------------------------------------------------ */

/* vLLM's names of hetplan's precisions (vllm/engine/arg_utils.py:
 * --quantization, --kv-cache-dtype). */
static void launch_vllm(struct sbuf *o, const struct model_spec *m, const struct serve_opts *so,
			const struct serve_plan_inst *in)
{
	sbuf_addf(o, "vllm serve %s --tensor-parallel-size %d", m->name, in->tp);
	if (in->pp > 1)
		sbuf_addf(o, " --pipeline-parallel-size %d", in->pp);
	if (in->max_batch > 0)
		sbuf_addf(o, " --max-num-seqs %d", in->max_batch);
	double util = so->base.mem_util > 0 ? so->base.mem_util : serve_engine(ENGINE_VLLM)->mem_util;
	sbuf_addf(o, " --gpu-memory-utilization %.2f", util);
	sbuf_addf(o, " --kv-cache-dtype %s", so->base.kvprec == SKV_FP8 ? "fp8" : "auto");
	if (so->base.wprec == SW_FP8)
		sbuf_add(o, " --quantization fp8");
	else if (so->base.wprec == SW_FP16)
		sbuf_add(o, " --dtype float16");
	if (so->base.chunk_tokens > 0)
		sbuf_addf(o, " --max-num-batched-tokens %d", so->base.chunk_tokens);
	double need = serve_dist_quantile(&so->isl, 0.99) + serve_dist_quantile(&so->osl, 0.99);
	sbuf_addf(o, " --max-model-len %d", (int)ceil(need));
	/* disaggregated prefill/decode: vLLM's KV connector (NIXL) */
	if (in->role == ROLE_PREFILL || in->role == ROLE_DECODE)
		sbuf_addf(o, " --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'");
}

/* SGLang (python -m sglang.launch_server; its flag names are not checked
 * against a pinned list) and TensorRT-LLM (trtllm-serve; checked by
 * tests/test_serve_cli.sh against tests/data/serving_trtllm_flags.txt). */
static void launch_other(struct sbuf *o, const struct model_spec *m, const struct serve_opts *so,
			 const struct serve_plan_inst *in)
{
	const struct serve_engine_profile *e = serve_engine(so->base.engine);
	double util = so->base.mem_util > 0 ? so->base.mem_util : e->mem_util;
	if (so->base.engine == ENGINE_SGLANG) {
		sbuf_addf(o, "python -m sglang.launch_server --model-path %s --tp %d", m->name, in->tp);
		if (in->max_batch > 0)
			sbuf_addf(o, " --max-running-requests %d", in->max_batch);
		sbuf_addf(o, " --mem-fraction-static %.2f", util);
		if (so->base.kvprec == SKV_FP8)
			sbuf_add(o, " --kv-cache-dtype fp8_e5m2");
		if (so->base.wprec == SW_FP8)
			sbuf_add(o, " --quantization fp8");
	} else {
		/* tensorrt_llm/commands/serve.py (TensorRT-LLM @ 4c05a74) */
		sbuf_addf(o, "trtllm-serve %s --backend %s --tp_size %d --pp_size %d", m->name,
			  so->base.engine == ENGINE_TRTLLM_ENGINE ? "tensorrt" : "pytorch", in->tp, in->pp);
		if (in->max_batch > 0)
			sbuf_addf(o, " --max_batch_size %d", in->max_batch);
		if (so->base.chunk_tokens > 0)
			sbuf_addf(o, " --max_num_tokens %d --enable_chunked_prefill", so->base.chunk_tokens);
		sbuf_addf(o, " --kv_cache_free_gpu_memory_fraction %.2f", util);
		double need = serve_dist_quantile(&so->isl, 0.99) + serve_dist_quantile(&so->osl, 0.99);
		sbuf_addf(o, " --max_seq_len %d", (int)ceil(need));
	}
}

static char *launch_line(const struct model_spec *m, const struct serve_opts *so,
			 const struct serve_plan_inst *in)
{
	struct sbuf o;
	sbuf_init(&o);
	if (so->base.engine == ENGINE_VLLM)
		launch_vllm(&o, m, so, in);
	else
		launch_other(&o, m, so, in);
	return sbuf_take(&o, NULL);
}

/* --- output -------------------------------------------------------------------- */

static void add_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *quant_json(const struct serve_quantiles *q)
{
	cJSON *o = cJSON_CreateObject();
	add_num(o, "mean", q->mean);
	add_num(o, "p50", q->p50);
	add_num(o, "p99", q->p99);
	return o;
}

static cJSON *plan_json(const struct serve_plan *pl, const struct cluster *c,
			const struct model_spec *m, const struct serve_opts *so)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", pl->label);
	cJSON_AddStringToObject(o, "how", pl->how ? pl->how : "");
	add_num(o, "output_tokens_per_s", pl->out_tps);
	add_num(o, "requests_per_s", pl->req_s);
	if (pl->price_known) {
		add_num(o, "usd_per_hour", pl->usd_per_hour);
		add_num(o, "usd_per_million_output_tokens", pl->usd_per_mtok);
	} else {
		cJSON_AddNullToObject(o, "usd_per_hour");
		cJSON_AddNullToObject(o, "usd_per_million_output_tokens");
	}
	cJSON_AddItemToObject(o, "ttft_s", quant_json(&pl->ttft));
	cJSON_AddItemToObject(o, "tpot_s", quant_json(&pl->tpot));
	cJSON_AddNumberToObject(o, "gpus", pl->gpus);
	cJSON *arr = cJSON_AddArrayToObject(o, "instances");
	for (int i = 0; i < pl->n_inst; i++) {
		const struct serve_plan_inst *in = &pl->inst[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "pool", c->pools[in->pool].name);
		cJSON_AddStringToObject(e, "gpu", c->pools[in->pool].gpu.name);
		cJSON_AddNumberToObject(e, "count", in->count);
		cJSON_AddStringToObject(e, "role", in->role == ROLE_PREFILL ? "prefill"
						   : in->role == ROLE_DECODE ? "decode" : "both");
		cJSON_AddNumberToObject(e, "tp", in->tp);
		cJSON_AddNumberToObject(e, "pp", in->pp);
		cJSON_AddNumberToObject(e, "max_batch", in->max_batch);
		cJSON_AddNumberToObject(e, "kv_capacity_tokens", in->kv_capacity_tokens);
		cJSON *ly = cJSON_AddArrayToObject(e, "layers");
		cJSON_AddItemToArray(ly, cJSON_CreateNumber(in->first_layer));
		cJSON_AddItemToArray(ly, cJSON_CreateNumber(in->last_layer));
		add_num(e, "requests_per_s", in->rate);
		add_num(e, "output_tokens_per_s", in->tokens_per_s);
		if (strcmp(pl->how ? pl->how : "", "placement")) {
			char *l = launch_line(m, so, in);
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
		add_num(o, "gap", pl->gap);
	}
	cJSON_AddBoolToObject(o, "fits", pl->fits);
	return o;
}

static void fmt_ms(char *b, size_t n, double s)
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

static void print_table(struct sbuf *o, const struct serve_plan_result *res, const struct cluster *c,
			const struct model_spec *m, const struct serve_opts *so, int md)
{
	if (md)
		sbuf_add(o, "| # | plan | GPUs | out tok/s | req/s | $/h | $/M tok | TTFT p99 | TPOT p99 | fits |\n"
			    "|---|---|---|---|---|---|---|---|---|---|\n");
	else
		sbuf_addf(o, "%3s %-40s %5s %10s %8s %9s %8s %9s %9s %s\n", "#", "plan", "GPUs",
			  "out tok/s", "req/s", "$/h", "$/M tok", "TTFT p99", "TPOT p99", "fits");
	for (int i = 0; i < res->n_plans; i++) {
		const struct serve_plan *pl = &res->plans[i];
		char t1[24], t2[24], uh[24], um[24];
		fmt_ms(t1, sizeof t1, pl->ttft.p99);
		fmt_ms(t2, sizeof t2, pl->tpot.p99);
		if (pl->price_known) {
			snprintf(uh, sizeof uh, "$%.2f", pl->usd_per_hour);
			snprintf(um, sizeof um, "$%.3f", pl->usd_per_mtok);
		} else {
			snprintf(uh, sizeof uh, "-");
			snprintf(um, sizeof um, "-");
		}
		if (md) {
			sbuf_addf(o, "| %d | ", i + 1);
			sbuf_add_md(o, pl->label);
			sbuf_addf(o, " | %d | %.0f | %.2f | %s | %s | %s | %s | %s |\n", pl->gpus, pl->out_tps,
				  pl->req_s, uh, um, t1, t2, pl->fits ? "yes" : "no");
		} else {
			sbuf_addf(o, "%3d %-40.40s %5d %10.0f %8.2f %9s %8s %9s %9s %s\n", i + 1, pl->label,
				  pl->gpus, pl->out_tps, pl->req_s, uh, um, t1, t2, pl->fits ? "yes" : "no");
		}
	}
	if (!res->n_plans)
		return;
	const struct serve_plan *pl = &res->plans[0];
	sbuf_addf(o, "%splan 1 (%s", md ? "\n" : "\n", pl->how ? pl->how : "");
	if (pl->gap > 1e-6)
		sbuf_addf(o, ", gap %.1f%%", 100 * pl->gap);
	sbuf_add(o, "):\n");
	for (int i = 0; i < pl->n_inst; i++) {
		const struct serve_plan_inst *in = &pl->inst[i];
		sbuf_addf(o, "%s%d x %s (%s) tp %d pp %d, layers %d-%d, batch %d, KV %.0f tokens, %.2f req/s, %.0f tok/s\n",
			  md ? "- " : "  ", in->count, c->pools[in->pool].gpu.name, c->pools[in->pool].name,
			  in->tp, in->pp, in->first_layer, in->last_layer, in->max_batch,
			  in->kv_capacity_tokens, in->rate, in->tokens_per_s);
		if (strcmp(pl->how ? pl->how : "", "placement")) {
			char *l = launch_line(m, so, in);
			sbuf_addf(o, "%s%s\n", md ? "  `" : "    ", l);
			if (md)
				o->s[o->len - 1] = '`', sbuf_add(o, "\n");
			free(l);
		}
	}
	for (int i = 0; i < pl->n_paths; i++) {
		sbuf_addf(o, "%sroute %d (%.1f%% of requests):", md ? "- " : "  ", i + 1,
			  100 * pl->path[i].weight);
		for (int j = 0; j < pl->path[i].n; j++) {
			int s = pl->path[i].seg[j];
			if (s >= 0)
				sbuf_addf(o, " %s[%d-%d]", c->pools[pl->inst[s].pool].gpu.name,
					  pl->inst[s].first_layer, pl->inst[s].last_layer);
		}
		sbuf_add(o, "\n");
	}
	sbuf_addf(o, "%sTTFT mean %.1f ms, p50 %.1f ms; TPOT mean %.2f ms\n", md ? "\n" : "  ",
		  pl->ttft.mean * 1e3, pl->ttft.p50 * 1e3, pl->tpot.mean * 1e3);
	if (!strcmp(pl->how ? pl->how : "", "estimate"))
		return;
	if (!strcmp(pl->how ? pl->how : "", "placement"))
		sbuf_addf(o, "%splacement MILP %.2f s\n", md ? "\n" : "", res->seconds);
	else
		sbuf_addf(o, "%s%d candidate instance configurations, %d request buckets, %.2f s "
			  "(ILP %.3f s)\n", md ? "\n" : "", res->n_cands, res->n_buckets, res->seconds,
			  res->ilp_seconds);
}

static void print_csv(struct sbuf *o, const struct serve_plan_result *res)
{
	sbuf_add(o, "rank,label,how,gpus,output_tokens_per_s,requests_per_s,usd_per_hour,"
		    "usd_per_million_output_tokens,ttft_mean_s,ttft_p50_s,ttft_p99_s,tpot_mean_s,"
		    "tpot_p50_s,tpot_p99_s,fits\n");
	for (int i = 0; i < res->n_plans; i++) {
		const struct serve_plan *pl = &res->plans[i];
		sbuf_addf(o, "%d,", i + 1);
		sbuf_add_csv(o, pl->label);
		sbuf_addf(o, ",%s,%d,%.6g,%.6g,", pl->how ? pl->how : "", pl->gpus, pl->out_tps, pl->req_s);
		if (pl->price_known)
			sbuf_addf(o, "%.4f,%.6g,", pl->usd_per_hour, pl->usd_per_mtok);
		else
			sbuf_add(o, ",,");
		const double v[6] = { pl->ttft.mean, pl->ttft.p50, pl->ttft.p99,
				      pl->tpot.mean, pl->tpot.p50, pl->tpot.p99 };
		for (int k = 0; k < 6; k++)
			if (isfinite(v[k]))
				sbuf_addf(o, "%.6g,", v[k]);
			else
				sbuf_add(o, ",");
		sbuf_addf(o, "%d\n", pl->fits);
	}
}

int cmd_serve(int argc, char **argv, const struct catalog *cat)
{
	struct cluster c;
	struct model_spec m;
	struct serve_opts so;
	struct hp_err err = { 0 };
	cluster_init(&c);
	serve_opts_init(&so);
	const char *cluster_file = NULL, *model_arg = NULL, *out_file = NULL;
	const char *pools[HP_MAX_POOLS];
	int n_pools = 0, have_fmt = 0, no_book = 0, estimate = 0, have_isl = 0, have_osl = 0;
	int have_obj = 0;
	enum cli_format fmt = FMT_TABLE;
	int rc, opt, v;
	double d;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:m:o:h", serve_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			cli_usage(stdout, cmd_serve_usage, serve_help);
			return 0;
		case 'c': cluster_file = optarg; break;
		case 'm': model_arg = optarg; break;
		case 'o': out_file = optarg; break;
		case O_POOL:
			if (n_pools == HP_MAX_POOLS) {
				fprintf(stderr, "hetplan serve: --pool: at most %d pools\n", HP_MAX_POOLS);
				return HP_EXIT_USAGE;
			}
			pools[n_pools++] = optarg;
			break;
		case O_ISL:
		case O_OSL:
			if (serve_dist_parse(optarg, opt == O_ISL ? &so.isl : &so.osl, &err) < 0) {
				fprintf(stderr, "hetplan serve: --%s: %s\n", opt == O_ISL ? "isl" : "osl",
					err.msg);
				return HP_EXIT_USAGE;
			}
			if (opt == O_ISL)
				have_isl = 1;
			else
				have_osl = 1;
			break;
		case O_RATE:
			if (parse_pos(optarg, 1e7, &so.rate))
				return usage_error("serve", "rate", "requests/s above 0", optarg);
			break;
		case O_OFFLINE: so.offline = 1; break;
		case O_TTFT:
			if (parse_pos(optarg, 3600, &so.slo.ttft_p99_s))
				return usage_error("serve", "ttft-p99", "seconds above 0 (e.g. 2 or 0.5)", optarg);
			break;
		case O_TPOT:
			if (parse_pos(optarg, 60, &so.slo.tpot_p99_s))
				return usage_error("serve", "tpot-p99", "seconds above 0 (e.g. 0.05)", optarg);
			break;
		case O_OBJ:
			if (!strcmp(optarg, "cost"))
				so.objective = SERVE_OBJ_COST;
			else if (!strcmp(optarg, "throughput"))
				so.objective = SERVE_OBJ_THROUGHPUT;
			else
				return usage_error("serve", "objective", "cost or throughput", optarg);
			have_obj = 1;
			break;
		case O_ENGINE:
			if (serve_engine_parse(optarg, &so.base.engine))
				return usage_error("serve", "engine", "vllm, sglang, tensorrt-llm or tensorrt-llm-engine", optarg);
			break;
		case O_PREC:
			if (serve_wprec_parse(optarg, &so.base.wprec))
				return usage_error("serve", "precision", "bf16, fp16, fp8, int4 or fp4", optarg);
			break;
		case O_KVPREC:
			if (serve_kvprec_parse(optarg, &so.base.kvprec))
				return usage_error("serve", "kv-precision", "bf16, fp16 or fp8", optarg);
			break;
		case O_TP:
			if (hp_parse_int(optarg, &so.fix_tp) || (so.fix_tp & (so.fix_tp - 1)) ||
			    so.fix_tp > 64)
				return usage_error("serve", "tp", "a power of two from 1 to 64", optarg);
			break;
		case O_PP:
			if (hp_parse_int(optarg, &so.fix_pp) || so.fix_pp > 64)
				return usage_error("serve", "pp", "an integer from 1 to 64", optarg);
			break;
		case O_MAXB:
			if (hp_parse_int(optarg, &so.base.max_batch) || so.base.max_batch > 65536)
				return usage_error("serve", "max-batch", "an integer from 1 to 65536", optarg);
			break;
		case O_CHUNK:
			if (hp_parse_int(optarg, &so.base.chunk_tokens) || so.base.chunk_tokens > 1048576)
				return usage_error("serve", "chunk", "tokens from 1 to 1048576", optarg);
			break;
		case O_UTIL:
			if (parse_pos(optarg, 1, &d) || d < 0.1)
				return usage_error("serve", "gpu-util", "a share from 0.1 to 1", optarg);
			so.base.mem_util = d;
			break;
		case O_PLACE: so.place = 1; break;
		case O_DISAGG: so.disagg = 1; break;
		case O_EST: estimate = 1; break;
		case O_TOP:
			if (hp_parse_int(optarg, &v) || v > 16)
				return usage_error("serve", "top", "an integer from 1 to 16", optarg);
			so.top_k = v;
			break;
		case O_NOBOOK: no_book = 1; break;
		case O_FORMAT:
			if (cli_parse_format(optarg, &fmt, 15))
				return usage_error("serve", "format", "table, json, csv or md", optarg);
			have_fmt = 1;
			break;
		case ':':
			fprintf(stderr, "hetplan serve: %s: missing value\n", argv[optind - 1]);
			return HP_EXIT_USAGE;
		default:
			fprintf(stderr, "hetplan serve: unknown option '%s' (try --help)\n",
				argv[optind - 1]);
			return HP_EXIT_USAGE;
		}
	}
	if ((rc = cli_check_inputs("serve", argc, argv, model_arg, cluster_file, n_pools)))
		return rc;
	if (!have_isl || !have_osl) {
		fprintf(stderr, "hetplan serve: --isl and --osl are required (tokens per request)\n");
		return HP_EXIT_USAGE;
	}
	if (so.offline && so.rate > 0) {
		fprintf(stderr, "hetplan serve: --rate and --offline exclude each other\n");
		return HP_EXIT_USAGE;
	}
	if (!so.offline && !(so.rate > 0)) {
		fprintf(stderr, "hetplan serve: give --rate R (requests/s) or --offline\n");
		return HP_EXIT_USAGE;
	}
	if (so.disagg && (so.place || estimate)) {
		fprintf(stderr, "hetplan serve: --disagg applies to fleet sizing, not --place or --estimate\n");
		return HP_EXIT_USAGE;
	}
	if (so.place && estimate) {
		fprintf(stderr, "hetplan serve: --place and --estimate exclude each other\n");
		return HP_EXIT_USAGE;
	}
	if (so.offline && !have_obj)
		so.objective = SERVE_OBJ_THROUGHPUT;
	if (out_file && !have_fmt) {
		const char *dot = strrchr(out_file, '.');
		if (dot && !strcmp(dot, ".json"))
			fmt = FMT_JSON;
		else if (dot && !strcmp(dot, ".csv"))
			fmt = FMT_CSV;
		else if (dot && !strcmp(dot, ".md"))
			fmt = FMT_MD;
	}
	if ((rc = cli_build_cluster("serve", cluster_file, pools, n_pools, !no_book, cat, &c)))
		return rc;
	if (cli_load_model(cat, model_arg, &m, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);

	struct serve_plan_result *res = xcalloc(1, sizeof *res);
	struct sbuf o;
	sbuf_init(&o);
	int src;
	rc = 0;
	if (estimate) {
		struct serve_result r;
		src = serve_estimate_plan(&c, &m, &so, NULL, &res->plans[0], &r, &err);
		if (src < 0) {
			rc = cli_fail(&err, HP_EXIT_USAGE);
			goto out;
		}
		res->n_plans = 1;
		res->n_cands = 1;
		res->n_buckets = 1;
		if (!r.fits) {
			snprintf(res->why, sizeof res->why, "%.300s", r.why);
			src = -1;
			err.code = HP_EXIT_NOFIT;
		}
		if (fmt == FMT_JSON) {
			cJSON *j = plan_json(&res->plans[0], &c, &m, &so);
			if (!r.fits)
				cJSON_AddStringToObject(j, "why", r.why);
			char *s = cJSON_Print(j);
			sbuf_addf(&o, "%s\n", s);
			free(s);
			cJSON_Delete(j);
		} else if (fmt == FMT_CSV) {
			print_csv(&o, res);
		} else if (r.fits) {
			print_table(&o, res, &c, &m, &so, fmt == FMT_MD);
			sbuf_addf(&o, "saturation: %.0f output tok/s, %.2f req/s at batch %d; "
				      "unloaded TTFT %.1f ms, TPOT %.2f ms\n",
				  r.out_tps_max, r.req_s_max, r.max_batch, r.ttft_min_s * 1e3,
				  r.tpot_min_s * 1e3);
		}
	} else {
		src = serve_plan(&c, &m, &so, NULL, res, &err);
		if (src < 0 && !res->why[0] && !res->has_nearest) {
			rc = cli_fail(&err, HP_EXIT_USAGE);
			goto out;
		}
		if (fmt == FMT_JSON) {
			cJSON *j = cJSON_CreateObject();
			cJSON_AddNumberToObject(j, "schema_version", 1);
			cJSON_AddStringToObject(j, "model", m.name);
			cJSON_AddStringToObject(j, "engine", serve_engine_name(so.base.engine));
			cJSON_AddStringToObject(j, "objective",
						so.objective == SERVE_OBJ_COST ? "cost" : "throughput");
			cJSON *pl = cJSON_AddArrayToObject(j, "plans");
			for (int i = 0; i < res->n_plans; i++)
				cJSON_AddItemToArray(pl, plan_json(&res->plans[i], &c, &m, &so));
			cJSON *s = cJSON_AddObjectToObject(j, "search");
			cJSON_AddNumberToObject(s, "candidates", res->n_cands);
			cJSON_AddNumberToObject(s, "buckets", res->n_buckets);
			cJSON_AddNumberToObject(s, "seconds", res->seconds);
			cJSON_AddNumberToObject(s, "solver_seconds", res->ilp_seconds);
			if (src < 0) {
				cJSON_AddStringToObject(j, "why", res->why);
				if (res->has_nearest)
					cJSON_AddItemToObject(j, "nearest_miss",
							      plan_json(&res->nearest, &c, &m, &so));
			}
			char *t = cJSON_Print(j);
			sbuf_addf(&o, "%s\n", t);
			free(t);
			cJSON_Delete(j);
		} else if (fmt == FMT_CSV) {
			print_csv(&o, res);
		} else if (res->n_plans) {
			print_table(&o, res, &c, &m, &so, fmt == FMT_MD);
		}
	}
	if (out_file) {
		if (o.len && hp_write_file_atomic(out_file, o.s, o.len, &err) < 0)
			rc = cli_fail(&err, HP_EXIT_FAIL);
	} else if (o.len) {
		fwrite(o.s, 1, o.len, stdout);
	}
	if (src < 0) {
		fprintf(stderr, "hetplan: %s\n", res->why[0] ? res->why : err.msg);
		if (res->has_nearest && fmt != FMT_JSON)
			fprintf(stderr, "nearest miss: %s, %d GPUs, %.2f req/s, %.0f output tok/s\n",
				res->nearest.label, res->nearest.gpus, res->nearest.req_s,
				res->nearest.out_tps);
		rc = err.code ? err.code : HP_EXIT_NOFIT;
	}
out:
	sbuf_done(&o);
	free(res);
	return rc;
}
