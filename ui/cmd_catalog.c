/* cmd_catalog.c — `hetplan gpus` and `hetplan models`: the catalog listed
 * as a table, JSON or CSV. */
#include "cli.h"
#include "escape.h"
#include "jsonx.h"
#include "model.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* Options of the listing commands: --format table|json|csv and --help.
 * Returns -1 to go on, or the exit status to return. */
static const struct option list_options[] = {
	{ "format", required_argument, 0, 'f' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

/* The synopses: the command table's usage (ui/cli.c), printed by --help. */
const char cmd_gpus_usage[] = "hetplan gpus [--format table|json|csv]\n";
const char cmd_models_usage[] = "hetplan models [--format table|json|csv]\n";

static int list_opts(int argc, char **argv, const char *cmd, enum cli_format *fmt)
{
	const struct option *opts = list_options;
	int o;
	*fmt = FMT_TABLE;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		if (o == 'h') {
			cli_usage(stdout, strcmp(cmd, "gpus") ? cmd_models_usage : cmd_gpus_usage, "");
			return 0;
		}
		if (o == 'f' && !cli_parse_format(optarg, fmt, 7))
			continue;
		if (o == 'f')
			fprintf(stderr, "hetplan %s: --format: expected table, json or csv, got '%s'\n",
				cmd, optarg);
		else
			fprintf(stderr, "hetplan %s: unknown option '%s' (try --help)\n", cmd,
				argv[optind - 1]);
		return HP_EXIT_USAGE;
	}
	return -1;
}

const struct option *cmd_catalog_options(void)
{
	return list_options;
}

/* A catalog figure, or "-" when the part lacks it: a listing never shows
 * an unknown as 0. */
static const char *gpu_cell(char *buf, size_t n, const char *fmt, double v)
{
	if (v > 0)
		snprintf(buf, n, fmt, v);
	else
		snprintf(buf, n, "-");
	return buf;
}

/* A JSON number, or null for a figure the catalog lacks. */
static void json_num_or_null(cJSON *o, const char *key, double v)
{
	if (v > 0)
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

int cmd_gpus(int argc, char **argv, const struct catalog *cat)
{
	enum cli_format fmt;
	int rc = list_opts(argc, argv, "gpus", &fmt);
	if (rc >= 0)
		return rc;
	if (fmt == FMT_JSON) {
		cJSON *arr = cJSON_CreateArray();
		for (int i = 0; i < cat->n_gpus; i++) {
			const struct gpu_spec *g = &cat->gpus[i];
			cJSON *o2 = cJSON_CreateObject();
			cJSON_AddStringToObject(o2, "name", g->name);
			cJSON *al = cJSON_AddArrayToObject(o2, "aliases");
			for (int a = 0; a < g->n_aliases; a++)
				cJSON_AddItemToArray(al, cJSON_CreateString(g->aliases[a]));
			cJSON_AddStringToObject(o2, "vendor", g->vendor);
			cJSON_AddStringToObject(o2, "arch", g->arch);
			cJSON_AddNumberToObject(o2, "memory_bytes", g->mem_bytes);
			json_num_or_null(o2, "memory_usable_bytes", g->mem_usable_bytes);
			json_num_or_null(o2, "sm_count", g->sms);
			json_num_or_null(o2, "hbm_bytes_per_s", g->hbm_Bps);
			cJSON *fl = cJSON_AddObjectToObject(o2, "dense_flops");
			cJSON *dt = cJSON_AddArrayToObject(o2, "dtypes");
			for (int d = 0; d < HP_DTYPE_COUNT; d++) {
				json_num_or_null(fl, hp_dtype_name((enum hp_dtype)d), g->flops[d]);
				if (g->flops[d] > 0)
					cJSON_AddItemToArray(dt, cJSON_CreateString(
						hp_dtype_name((enum hp_dtype)d)));
			}
			int best = gpu_best_dtype(g);
			if (best >= 0)
				cJSON_AddStringToObject(o2, "best_dtype", hp_dtype_name((enum hp_dtype)best));
			else
				cJSON_AddNullToObject(o2, "best_dtype");
			cJSON_AddNumberToObject(o2, "scaleup_bytes_per_s_per_dir", g->link_Bps);
			cJSON_AddNumberToObject(o2, "scaleup_domain", g->domain);
			json_num_or_null(o2, "tdp_w", g->tdp_w);
			cJSON_AddStringToObject(o2, "source", g->source);
			cJSON_AddItemToArray(arr, o2);
		}
		char *s = esc_json_print(arr);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(arr);
		return 0;
	}
	/* PEAK is the dense peak of the part's best dtype (named beside it),
	 * so a part without bf16 shows its fp16 rate; "-" marks a figure the
	 * catalog lacks (and LINK "-" no scale-up link). */
	if (fmt == FMT_CSV)
		printf("name,arch,memory_gb,hbm_tbps,peak_tflops,peak_dtype,fp32_tflops,tf32_tflops,"
		       "bf16_tflops,fp16_tflops,fp8_tflops,scaleup_gbps_per_dir,domain,tdp_w,"
		       "sm_count,memory_usable_mib\n");
	else
		printf("%-16s %-10s %6s %8s %8s %-5s %9s %6s %6s  %s\n", "GPU", "ARCH", "MEM GB",
		       "HBM TB/s", "PEAK TF", "DTYPE", "LINK GB/s", "DOMAIN", "TDP W", "DTYPES");
	for (int i = 0; i < cat->n_gpus; i++) {
		const struct gpu_spec *g = &cat->gpus[i];
		int best = gpu_best_dtype(g);
		double peak = best >= 0 ? g->flops[best] : 0;
		const char *bname = best >= 0 ? hp_dtype_name((enum hp_dtype)best) : "-";
		char dts[48];
		if (fmt == FMT_CSV) {
			char c[7][24];
			printf("%s,%s,%g,%s,%s,%s", g->name, hp_gen_name(g->gen), g->mem_bytes / 1e9,
			       g->hbm_Bps > 0 ? gpu_cell(c[0], 24, "%g", g->hbm_Bps / 1e12) : "",
			       peak > 0 ? gpu_cell(c[1], 24, "%g", peak / 1e12) : "",
			       best >= 0 ? bname : "");
			for (int d = 0; d < HP_DTYPE_COUNT; d++) {
				char v[24] = "";
				if (g->flops[d] > 0)
					snprintf(v, sizeof v, "%g", g->flops[d] / 1e12);
				printf(",%s", v);
			}
			printf(",%g,%d,%s,%s,%s\n", g->link_Bps / 1e9, g->domain,
			       g->tdp_w > 0 ? gpu_cell(c[2], 24, "%g", g->tdp_w) : "",
			       g->sms > 0 ? gpu_cell(c[3], 24, "%g", g->sms) : "",
			       g->mem_usable_bytes > 0
				       ? gpu_cell(c[4], 24, "%g", g->mem_usable_bytes / 1048576.0) : "");
		} else {
			char hbm[16], pk[16], link[16], tdp[16];
			printf("%-16s %-10s %6.0f %8s %8s %-5s %9s %6d %6s  %s\n", g->name,
			       hp_gen_name(g->gen), g->mem_bytes / 1e9,
			       gpu_cell(hbm, sizeof hbm, "%.2f", g->hbm_Bps / 1e12),
			       gpu_cell(pk, sizeof pk, "%.1f", peak / 1e12), bname,
			       gpu_cell(link, sizeof link, "%.0f", g->link_Bps / 1e9), g->domain,
			       gpu_cell(tdp, sizeof tdp, "%.0f", g->tdp_w),
			       gpu_dtypes(g, " ", dts, sizeof dts));
		}
	}
	return 0;
}

int cmd_models(int argc, char **argv, const struct catalog *cat)
{
	enum cli_format fmt;
	int rc = list_opts(argc, argv, "models", &fmt);
	if (rc >= 0)
		return rc;
	cJSON *arr = fmt == FMT_JSON ? cJSON_CreateArray() : NULL;
	if (fmt == FMT_CSV)
		printf("name,layers,hidden,heads,kv_heads,ffn,vocab,seq_len,experts,top_k,params,active_params\n");
	else if (fmt == FMT_TABLE)
		printf("%-16s %6s %6s %5s %4s %6s %7s %6s %8s %9s %9s\n", "MODEL", "LAYERS",
		       "HIDDEN", "HEADS", "KV", "FFN", "VOCAB", "SEQ", "EXPERTS", "PARAMS",
		       "ACTIVE");
	for (int i = 0; i < cat->n_models; i++) {
		const struct model_spec *m = &cat->models[i];
		struct param_count pc;
		model_params(m, &pc);
		char tot[16], act[16];
		hp_fmt_count(tot, sizeof tot, pc.total);
		hp_fmt_count(act, sizeof act, pc.active);
		if (fmt == FMT_JSON) {
			cJSON *o2 = cJSON_CreateObject();
			cJSON_AddStringToObject(o2, "name", m->name);
			cJSON_AddStringToObject(o2, "display", m->display);
			cJSON_AddNumberToObject(o2, "layers", m->layers);
			cJSON_AddNumberToObject(o2, "hidden", m->hidden);
			cJSON_AddNumberToObject(o2, "heads", m->heads);
			cJSON_AddNumberToObject(o2, "kv_heads", m->kv_heads);
			cJSON_AddNumberToObject(o2, "ffn", m->ffn);
			cJSON_AddBoolToObject(o2, "gated_mlp", m->gated_mlp);
			cJSON_AddNumberToObject(o2, "vocab", m->vocab);
			cJSON_AddNumberToObject(o2, "seq_len", m->seq_len);
			cJSON_AddBoolToObject(o2, "tied_embeddings", m->tied_embeddings);
			if (m->moe.experts) {
				cJSON *mo = cJSON_AddObjectToObject(o2, "moe");
				cJSON_AddNumberToObject(mo, "experts", m->moe.experts);
				cJSON_AddNumberToObject(mo, "top_k", m->moe.top_k);
				cJSON_AddNumberToObject(mo, "expert_ffn", m->moe.expert_ffn);
				cJSON_AddNumberToObject(mo, "shared_experts", m->moe.shared_experts);
				cJSON_AddNumberToObject(mo, "dense_layers", m->moe.dense_layers);
			}
			cJSON_AddNumberToObject(o2, "params", pc.total);
			cJSON_AddNumberToObject(o2, "active_params", pc.active);
			cJSON_AddStringToObject(o2, "source", m->source);
			cJSON_AddItemToArray(arr, o2);
		} else if (fmt == FMT_CSV) {
			printf("%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f\n", m->name, m->layers,
			       m->hidden, m->heads, m->kv_heads, m->ffn, m->vocab, m->seq_len,
			       m->moe.experts, m->moe.top_k, pc.total, pc.active);
		} else {
			char ex[24] = "-";
			if (m->moe.experts)
				snprintf(ex, sizeof ex, "%dx%d", m->moe.experts, m->moe.top_k);
			printf("%-16s %6d %6d %5d %4d %6d %7d %6d %8s %9s %9s\n", m->name, m->layers,
			       m->hidden, m->heads, m->kv_heads,
			       m->moe.experts ? m->moe.expert_ffn : m->ffn, m->vocab, m->seq_len,
			       ex, tot, act);
		}
	}
	if (arr) {
		char *s = esc_json_print(arr);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(arr);
	}
	return 0;
}

