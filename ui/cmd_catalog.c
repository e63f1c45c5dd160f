/* cmd_catalog.c — `hetplan gpus` and `hetplan models`: the catalog listed
 * as a table, JSON or CSV; `hetplan gpus --update` fetches a newer GPU
 * catalog file into the cache (src/pricing_gpus.c). */
#include "cli.h"
#include "cmd_prices.h"
#include "common.h"
#include "escape.h"
#include "jsonx.h"
#include "model.h"
#include "pricing.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* `hetplan models --help` after the synopsis, as gpus_usage and the
 * other commands' help texts (the --format words as list_options takes
 * them, the exit statuses as main returns them). */
static const char models_help[] =
	"\n"
	"  The model presets -m takes by name: the embedded data/models.json, then\n"
	"  your own $XDG_CONFIG_HOME/hetplan/models.json (later wins). -m also takes\n"
	"  a model JSON file (man hetplan, MODEL JSON). EXPERTS is routed experts x\n"
	"  top-k (- for a dense model); FFN is the expert FFN width of a MoE model;\n"
	"  ACTIVE counts the parameters one token uses.\n"
	"\n"
	"  -f, --format F         table (default), json or csv (json adds the MoE\n"
	"                         settings and each preset's source)\n"
	"  -h, --help             this text\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input (a bad models.json).\n";

static int list_opts(int argc, char **argv, const char *cmd, enum cli_format *fmt)
{
	const struct option *opts = list_options;
	int o;
	*fmt = FMT_TABLE;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		if (o == 'h') {
			cli_usage(stdout, cmd_models_usage, models_help);
			return 0;
		}
		if (o == 'f' && !cli_parse_format(optarg, fmt, 7))
			continue;
		if (o == 'f')
			fprintf(stderr, "hetplan %s: --format: expected table, json or csv, got '%s'\n",
				cmd, cli_shown(optarg));
		else
			fprintf(stderr, "hetplan %s: unknown option '%s' (try --help)\n", cmd,
				cli_shown(argv[optind - 1]));
		return HP_EXIT_USAGE;
	}
	return -1;
}

const struct option *cmd_catalog_options(void)
{
	return list_options;
}

enum { G_UPDATE = 256, G_SOURCE, G_TIMEOUT, G_MAXB, G_RETRY, G_CACHE, G_CONFIG };

static const struct option gpus_options[] = {
	{ "format", required_argument, 0, 'f' },
	{ "update", no_argument, 0, G_UPDATE },
	{ "source", required_argument, 0, G_SOURCE },
	{ "timeout", required_argument, 0, G_TIMEOUT },
	{ "max-bytes", required_argument, 0, G_MAXB },
	{ "retry-wait", required_argument, 0, G_RETRY },
	{ "cache-dir", required_argument, 0, G_CACHE },
	{ "config", required_argument, 0, G_CONFIG },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

const struct option *cmd_gpus_options(void)
{
	return gpus_options;
}

static const char gpus_usage[] =
	"usage: hetplan gpus [--format table|json|csv] [--update [--source URL]]\n"
	"\n"
	"  The GPU catalog: the embedded one, then a catalog fetched with --update,\n"
	"  then GPU specs of cached json: price feeds, then your own\n"
	"  $XDG_CONFIG_HOME/hetplan/gpus.json (later wins).\n"
	"\n"
	"      --update           fetch the GPU catalog file first (conditional GET)\n"
	"      --source URL       where from (default: the project's data/gpus.json;\n"
	"                         config key prices.gpus_url, HETPLAN_GPUS_URL)\n"
	"      --format F         table (default), json or csv\n"
	"      --timeout S        connect timeout and stall window in seconds (default 20)\n"
	"      --max-bytes N      largest response accepted, e.g. 64M (default)\n"
	"      --retry-wait S     longest Retry-After waited out on HTTP 429 (default 5)\n"
	"      --cache-dir DIR    cache location (default $XDG_CACHE_HOME/hetplan)\n"
	"      --config FILE      read this config file instead of $XDG_CONFIG_HOME/hetplan/config.json\n"
	"\n"
	"Exit status: 0 ok, 1 the update failed (the listing still shows the last\n"
	"good catalog), 2 usage, 3 invalid input (bad config).\n";

struct gpus_args {
	enum cli_format fmt;
	int update;
	const char *source, *config;
	struct http_flags flags;
};

/* Parse argv into a. Returns -1 to go on, or the exit status. */
static int gpus_parse(int argc, char **argv, struct gpus_args *a)
{
	int o;
	memset(a, 0, sizeof *a);
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":f:h", gpus_options, NULL)) != -1) {
		switch (o) {
		case 'h':
			fputs(gpus_usage, stdout);
			return 0;
		case 'f':
			if (cli_parse_format(optarg, &a->fmt, 7))
				return usage_error("gpus", "format", "table, json or csv", optarg);
			break;
		case G_UPDATE: a->update = 1; break;
		case G_SOURCE: a->source = optarg; break;
		case G_CONFIG: a->config = optarg; break;
		case G_TIMEOUT: case G_MAXB: case G_RETRY: case G_CACHE:
			http_flags_add(&a->flags, gpus_options, o, optarg);
			break;
		default:
			return cli_getopt_error("gpus", o, argv);
		}
	}
	return cmd_update_check("gpus", argc, argv, a->source != NULL, a->update);
}

/* Fetch the catalog file and report it. 0 ok, 1 failed, or the exit
 * status of a usage problem (2) after printing it. */
static int gpus_update(const struct price_config *cfg, const struct catalog *cat,
		       const struct gpus_args *a)
{
	struct price_update u;
	struct hp_err err = { 0 };
	char shown[600], age[96] = "";
	int rc = pricing_gpus_update(cfg, cat, a->source, NULL, NULL, NULL, &u, &err);
	if (rc < 0) {   /* a bad URL (2), or no cache directory (1) */
		fprintf(stderr, "hetplan gpus: %s%s\n", err.code == HP_EXIT_USAGE ? "--source: " : "",
			esc_term_buf(shown, sizeof shown, err.msg));
		return err.code ? err.code : HP_EXIT_USAGE;
	}
	esc_term_buf(shown, sizeof shown, u.source);
	if (u.result == PRICE_FAILED || u.result == PRICE_CANCELLED) {
		char msg[600];
		fprintf(stderr, "hetplan gpus: %s failed: %s; %s\n", shown,
			esc_term_buf(msg, sizeof msg, u.msg),
			u.data_fetched_at > 0 ? "keeping the cached copy" : "nothing cached");
		return 1;
	}
	if (a->fmt == FMT_TABLE) {
		struct price_source_info si = { 0 };
		si.origin = PRICE_CACHE;
		si.fetched_at = u.data_fetched_at;
		pricing_describe_age(&si, (double)time(NULL), age, sizeof age);
		if (u.result == PRICE_FETCHED)
			printf("%s: fetched, %d GPUs, %s\n\n", shown, u.n_gpus, age);
		else
			printf("%s: not modified, %s\n\n", shown, age);
	}
	return 0;
}

/* Where the listing's extra GPUs came from (table format, after it). */
static void gpus_footer(const struct price_config *cfg)
{
	struct price_source_info si;
	struct hp_err err = { 0 };
	char shown[600], age[96];
	int r = pricing_gpus_cached(cfg, &si, NULL, NULL, &err);
	if (r < 0) {
		fprintf(stderr, "hetplan gpus: warning: ignoring a cache file: %s\n",
			esc_term_buf(shown, sizeof shown, err.msg));
		return;
	}
	if (r > 0)
		return;
	pricing_describe_age(&si, (double)time(NULL), age, sizeof age);
	printf("\nGPU catalog from %s, %s, %d GPUs (merged over the embedded one)\n",
	       esc_term_buf(shown, sizeof shown, si.url), age, si.n_offers);
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

/* The part is held below its rated board power (catalog power_limit_w;
 * perf_compute.c slows it in proportion): the watts a user runs it at. */
static int gpu_limited(const struct gpu_spec *g)
{
	return g->power_limit_w > 0 && g->tdp_w > 0 && g->power_limit_w < g->tdp_w;
}

/* A JSON number, or null for a figure the catalog lacks. */
static void json_num_or_null(cJSON *o, const char *key, double v)
{
	if (v > 0)
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void gpus_json(const struct catalog *cat)
{
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
		cJSON_AddNumberToObject(o2, "memory_bytes", gpu_phys_bytes(g));
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
		/* a board power limit below tdp_w (catalog power_limit_w, the
		 * watts the model runs the part at); null when none */
		json_num_or_null(o2, "power_limit_w", gpu_limited(g) ? g->power_limit_w : 0);
		/* the reference part whose rate the performance model scales
		 * (catalog clock_ref, perf_compute.c clock_frac), and the host
		 * memory of the usual node an offload is checked against
		 * (defaults.host_mem_gb, pool_host_mem_gb): null when none */
		if (g->ref_tdp_w > 0) {
			cJSON *cr = cJSON_AddObjectToObject(o2, "clock_ref");
			cJSON_AddNumberToObject(cr, "tdp_w", g->ref_tdp_w);
			cJSON_AddNumberToObject(cr, "sm_count", g->ref_sms);
			cJSON_AddNumberToObject(cr, "bf16_flops", g->ref_flops16);
		} else {
			cJSON_AddNullToObject(o2, "clock_ref");
		}
		json_num_or_null(o2, "host_mem_bytes_per_node", g->def_host_mem_gb * 1e9);
		cJSON_AddStringToObject(o2, "source", g->source);
		cJSON_AddItemToArray(arr, o2);
	}
	char *s = esc_json_print(arr);
	printf("%s\n", s);
	free(s);
	cJSON_Delete(arr);
}

static void gpus_rows(const struct catalog *cat, enum cli_format fmt)
{
	/* PEAK is the dense peak of the part's best dtype (named beside it),
	 * so a part without bf16 shows its fp16 rate; "-" marks a figure the
	 * catalog lacks (and LINK "-" no scale-up link); a TDP with "*" is a
	 * part held at a lower power limit, named under the table. */
	int limited = 0;
	if (fmt == FMT_CSV)
		printf("name,arch,memory_gb,hbm_tbps,peak_tflops,peak_dtype,fp32_tflops,tf32_tflops,"
		       "bf16_tflops,fp16_tflops,fp8_tflops,scaleup_gbps_per_dir,domain,tdp_w,"
		       "sm_count,memory_usable_mib,power_limit_w\n");
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
			cli_print_csv(stdout, g->name);
			printf(",%s,%g,%s,%s,%s", hp_gen_name(g->gen), g->mem_bytes / 1e9,
			       g->hbm_Bps > 0 ? gpu_cell(c[0], 24, "%g", g->hbm_Bps / 1e12) : "",
			       peak > 0 ? gpu_cell(c[1], 24, "%g", peak / 1e12) : "",
			       best >= 0 ? bname : "");
			for (int d = 0; d < HP_DTYPE_COUNT; d++) {
				char v[24] = "";
				if (g->flops[d] > 0)
					snprintf(v, sizeof v, "%g", g->flops[d] / 1e12);
				printf(",%s", v);
			}
			printf(",%g,%d,%s,%s,%s,%s\n", g->link_Bps / 1e9, g->domain,
			       g->tdp_w > 0 ? gpu_cell(c[2], 24, "%g", g->tdp_w) : "",
			       g->sms > 0 ? gpu_cell(c[3], 24, "%g", g->sms) : "",
			       g->mem_usable_bytes > 0
				       ? gpu_cell(c[4], 24, "%g", g->mem_usable_bytes / 1048576.0) : "",
			       gpu_limited(g) ? gpu_cell(c[5], 24, "%g", g->power_limit_w) : "");
		} else {
			char hbm[16], pk[16], link[16], tdp[16];
			cli_print_term(stdout, g->name, 16);
			limited += gpu_limited(g);
			printf(" %-10s %6.0f %8s %8s %-5s %9s %6d %6s  %s\n",
			       hp_gen_name(g->gen), g->mem_bytes / 1e9,
			       gpu_cell(hbm, sizeof hbm, "%.2f", g->hbm_Bps / 1e12),
			       gpu_cell(pk, sizeof pk, "%.1f", peak / 1e12), bname,
			       gpu_cell(link, sizeof link, "%.0f", g->link_Bps / 1e9), g->domain,
			       gpu_cell(tdp, sizeof tdp, gpu_limited(g) ? "%.0f*" : "%.0f", g->tdp_w),
			       gpu_dtypes(g, " ", dts, sizeof dts));
		}
	}
	if (!limited)
		return;
	printf("* held below its TDP (catalog power_limit_w):");
	for (int i = 0, k = 0; i < cat->n_gpus; i++)
		if (gpu_limited(&cat->gpus[i]))
			printf("%s %s %.0f W", k++ ? "," : "", cat->gpus[i].name,
			       cat->gpus[i].power_limit_w);
	printf("\n");
}

/* A copy of the embedded and user catalog with the cache of cfg merged
 * in (after an update, or when --cache-dir / --config point elsewhere
 * than the cache cli_main read). */
static int gpus_reload(struct catalog *out, const struct price_config *cfg)
{
	struct hp_err err = { 0 };
	if (catalog_load(out, NULL, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	pricing_catalog_extend(out, cfg, NULL, 0);
	return 0;
}

int cmd_gpus(int argc, char **argv, const struct catalog *cat)
{
	struct gpus_args a;
	struct price_config cfg;
	struct hp_err err = { 0 };
	struct catalog fresh = { 0 };
	int rc = gpus_parse(argc, argv, &a), failed = 0;
	if (rc >= 0)
		return rc;
	if (pricing_config_load(&cfg, a.config, &err) < 0) {
		/* A broken config stops only what needs it. */
		if (a.update || a.config || a.flags.n)
			return cli_fail(&err, HP_EXIT_INPUT);
		memset(&cfg, 0, sizeof cfg);   /* the default cache directory */
	}
	if ((rc = http_flags_apply(&a.flags, "gpus", &cfg)))
		return rc;
	if (a.update && (failed = gpus_update(&cfg, cat, &a)) > 1)
		return failed;
	if (a.update || a.config || a.flags.n) {
		if ((rc = gpus_reload(&fresh, &cfg)))
			return rc;
		cat = &fresh;
	}
	if (a.fmt == FMT_JSON) {
		gpus_json(cat);
	} else {
		gpus_rows(cat, a.fmt);
		if (a.fmt == FMT_TABLE)
			gpus_footer(&cfg);
	}
	catalog_done(&fresh);
	return failed ? HP_EXIT_FAIL : HP_EXIT_OK;
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
			cli_print_csv(stdout, m->name);
			printf(",%d,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f\n", m->layers,
			       m->hidden, m->heads, m->kv_heads, m->ffn, m->vocab, m->seq_len,
			       m->moe.experts, m->moe.top_k, pc.total, pc.active);
		} else {
			char ex[24] = "-";
			if (m->moe.experts)
				snprintf(ex, sizeof ex, "%dx%d", m->moe.experts, m->moe.top_k);
			cli_print_term(stdout, m->name, 16);
			printf(" %6d %6d %5d %4d %6d %7d %6d %8s %9s %9s\n", m->layers,
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

