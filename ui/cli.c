/* cli.c — subcommand dispatch, the catalog listings, shared CLI helpers. */
#include "cli.h"
#include "escape.h"
#include "cmd_comm.h"
#include "cmd_launch.h"
#include "cmd_report.h"
#include "cmd_serve.h"
#include "completion.h"
#include "jsonx.h"
#include "tui.h"
#include "model.h"
#include "pricing.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv, const struct catalog *cat);
	const char *summary;
};

static int cmd_completion(int argc, char **argv, const struct catalog *cat);

static const struct command commands[] = {
	{ "plan", cmd_plan, "find the best plans for a model on a cluster" },
	{ "estimate", cmd_estimate, "evaluate one plan: step time, memory, comm, cost" },
	{ "comm", cmd_comm, "time one collective on a given system" },
	{ "gpus", cmd_gpus, "list the GPU catalog" },
	{ "models", cmd_models, "list the model presets" },
	{ "prices", cmd_prices, "GPU prices: embedded, cached, or fetched with --update" },
	{ "report", cmd_report, "plan a workspace and write a Markdown/HTML/JSON/CSV report" },
	{ "launch", cmd_launch, "a plan as Megatron-LM arguments, a Slurm script or DeepSpeed JSON" },
	{ "serve", cmd_serve, "size and place LLM serving: instances, fleet, latency SLOs" },
	{ "tui", tui_main, "the interactive planner (also with no command)" },
	{ "completion", cmd_completion, "print a bash, zsh or fish completion script" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hetplan [tui] [WORKSPACE.json] [--no-color] [--ascii] [--no-mouse]\n"
		"                                                     open the TUI\n"
		"       hetplan COMMAND [options]                     batch mode\n"
		"       hetplan --help | --version\n\ncommands:\n");
	for (size_t i = 0; i < HP_ARRAY_LEN(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'hetplan COMMAND --help' describes each; 'man hetplan' has the rest.\n");
}

int cli_fail(const struct hp_err *err, int fallback)
{
	fprintf(stderr, "hetplan: %s\n", err->msg);
	return err->code ? err->code : fallback;
}

int cli_parse_format(const char *s, enum cli_format *f, unsigned allowed)
{
	static const char *const names[] = { "table", "json", "csv", "md" };
	for (unsigned i = 0; i < HP_ARRAY_LEN(names); i++)
		if ((allowed & (1u << i)) && !strcmp(s, names[i])) {
			*f = (enum cli_format)i;
			return 0;
		}
	return -1;
}

int cli_check_inputs(const char *cmd, int argc, char **argv, const char *model_arg,
		     const char *cluster_file, int n_pools)
{
	if (optind < argc) {
		fprintf(stderr, "hetplan %s: unexpected argument '%s'\n", cmd, argv[optind]);
		return HP_EXIT_USAGE;
	}
	if (!model_arg) {
		fprintf(stderr, "hetplan %s: -m MODEL is required (a preset or a JSON file)\n", cmd);
		return HP_EXIT_USAGE;
	}
	if (!cluster_file && !n_pools) {
		fprintf(stderr, "hetplan %s: give a cluster: -c CLUSTER.json or --pool SPEC\n", cmd);
		return HP_EXIT_USAGE;
	}
	return 0;
}

int cli_build_cluster(const char *cmd, const char *cluster_file, const char *const *pools,
		      int n_pools, int use_price_book, const struct catalog *cat,
		      struct cluster *c)
{
	struct hp_err err = { 0 };
	if (cluster_file && cluster_load(c, cluster_file, cat, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	for (int i = 0; i < n_pools; i++)
		if (cluster_add_pool_spec(c, pools[i], cat, &err) < 0)
			return cli_fail(&err, HP_EXIT_USAGE);
	if (!use_price_book)
		return 0;
	/* Pools without an explicit price take the price book's cheapest
	 * matching offer (snapshot + cache; never the network). */
	struct price_config pc;
	struct price_book pb;
	if (pricing_config_load(&pc, NULL, &err) < 0 || pricing_load(&pb, &pc, cat, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	if (*pb.warnings)
		fprintf(stderr, "hetplan %s: warning: %s\n", cmd, pb.warnings);
	pricing_apply(&pb, c);
	pricing_free(&pb);
	return 0;
}

static int plan_flag_bad(const char *cmd, const char *flag, const char *want, const char *got)
{
	char shown[128];   /* the value as typed, through the terminal sink */
	fprintf(stderr, "hetplan %s: --%s: expected %s, got '%s'\n", cmd, flag, want,
		esc_term_buf(shown, sizeof shown, got));
	return -1;
}

int cli_plan_flag(const char *cmd, int opt, const char *arg, struct plan *p,
		  struct cli_plan_flags *f)
{
	int v = 0, *dst = NULL, max = 0;
	const char *name = NULL;
	/* The same ranges as the plan file's keys (plan.c) and the man page;
	 * TP, PP and DP are bounded by HP_MAX_GPUS in any cluster. */
	switch (opt) {
	case CLI_PF_TP: dst = &f->tp; name = "tp"; max = HP_MAX_GPUS; break;
	case CLI_PF_PP: dst = &f->pp; name = "pp"; max = HP_MAX_GPUS; break;
	case CLI_PF_DP: dst = &f->dp; name = "dp"; max = HP_MAX_GPUS; break;
	case CLI_PF_CP: dst = &p->cp; name = "cp"; max = 1024; break;
	case CLI_PF_EP: dst = &p->ep; name = "ep"; max = 4096; break;
	case CLI_PF_MBS: dst = &p->mbs; name = "mbs"; max = 1000000; f->have_mbs = 1; break;
	case CLI_PF_GBS: dst = &p->gbs; name = "gbs"; max = 100000000; break;
	case CLI_PF_SEQ: dst = &p->seq_len; name = "seq-len"; max = 100000000; break;
	case CLI_PF_ZERO:
		if ((hp_parse_int(arg, &v) && strcmp(arg, "0")) || v > 3)
			return plan_flag_bad(cmd, "zero", "0, 1, 2 or 3", arg);
		p->zero = strcmp(arg, "0") ? v : 0;
		return 1;
	case CLI_PF_PREC:
		if (hp_dtype_parse(arg, &p->precision))
			return plan_flag_bad(cmd, "precision", "fp32, tf32, bf16, fp16 or fp8", arg);
		return 1;
	case CLI_PF_RC:
		if (plan_recompute_parse(arg, &p->recompute))
			return plan_flag_bad(cmd, "recompute", "none, selective, full or selective-op",
					     arg);
		return 1;
	case CLI_PF_LOSS:
		if (plan_loss_parse(arg, &p->loss))
			return plan_flag_bad(cmd, "loss", "fused or eager", arg);
		return 1;
	case CLI_PF_MASTER:
		if (plan_master_parse(arg, &p->master))
			return plan_flag_bad(cmd, "master", "sharded or replicated", arg);
		return 1;
	case CLI_PF_SCHED:
		if (plan_schedule_parse(arg, &p->schedule, &p->vpp))
			return plan_flag_bad(cmd, "schedule", "1f1b or interleaved:V (V from 2 to 64)",
					     arg);
		return 1;
	case CLI_PF_ATTN:
		if (strcmp(arg, "flash") && strcmp(arg, "unfused"))
			return plan_flag_bad(cmd, "attention", "flash or unfused", arg);
		p->flash = !strcmp(arg, "flash");
		return 1;
	case CLI_PF_NOSP: p->sp = 0; return 1;
	case CLI_PF_ON: f->on = arg; return 1;
	case CLI_PF_FW:
		if (framework_parse(arg, &p->framework))
			return plan_flag_bad(cmd, "framework", framework_list(), arg);
		return 1;
	case CLI_PF_TPOV:
	case CLI_PF_GRADOV:
	case CLI_PF_PARAMOV: {
		static const char *const names[] = { "tp-overlap", "grad-overlap", "param-overlap" };
		int *dst3[] = { &p->tp_overlap, &p->grad_overlap, &p->param_overlap };
		int i = opt - CLI_PF_TPOV;
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return plan_flag_bad(cmd, names[i], "on or off", arg);
		*dst3[i] = !strcmp(arg, "on");
		return 1;
	}
	default: return 0;
	}
	if (hp_parse_int(arg, &v))
		return plan_flag_bad(cmd, name, "a positive integer", arg);
	if (v > max) {
		char want[48];
		snprintf(want, sizeof want, "an integer from 1 to %d", max);
		return plan_flag_bad(cmd, name, want, arg);
	}
	*dst = v;
	return 1;
}

int cli_uniform_plan(const char *cmd, const struct cli_plan_flags *f, const struct cluster *c,
		     const struct model_spec *m, struct plan *p)
{
	struct hp_err err = { 0 };
	if (!f->tp || !f->pp) {
		fprintf(stderr, "hetplan %s: --tp and --pp are required (or --plan FILE)\n", cmd);
		return HP_EXIT_USAGE;
	}
	if (!f->have_mbs || !p->gbs) {
		fprintf(stderr, "hetplan %s: --mbs and --gbs are required\n", cmd);
		return HP_EXIT_USAGE;
	}
	int pool = 0, dp = f->dp;
	if (f->on && (pool = cluster_pool_index(c, f->on)) < 0) {
		fprintf(stderr, "hetplan %s: --on: no pool named '%s'\n", cmd, f->on);
		return HP_EXIT_INPUT;
	}
	if (!dp) {
		int have = c->pools[pool].nodes * c->pools[pool].gpus_per_node;
		dp = have / (f->tp * f->pp * p->cp);
		if (dp < 1) {
			fprintf(stderr, "hetplan %s: tp %d x pp %d x cp %d = %d GPUs; pool '%s' has %d\n",
				cmd, f->tp, f->pp, p->cp, f->tp * f->pp * p->cp, c->pools[pool].name,
				have);
			return HP_EXIT_INPUT;
		}
	}
	if (plan_uniform(p, c, m, pool, f->tp, f->pp, dp, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	return 0;
}

int cli_load_model(const struct catalog *cat, const char *arg,
		   struct model_spec *out, struct hp_err *err)
{
	const struct model_spec *m = catalog_model(cat, arg);
	struct stat st;
	if (m && stat(arg, &st) != 0) {
		*out = *m;
		return 0;
	}
	if (stat(arg, &st) != 0) {
		if (strchr(arg, '/') || strstr(arg, ".json"))
			return hp_err_set(err, HP_EXIT_INPUT, "-m %s: no such file", arg);
		return catalog_model_unknown(cat, arg, "-m", err);
	}
	size_t len;
	char *text = hp_read_file(arg, &len, err);
	if (!text)
		return -1;
	cJSON *root = jx_parse(text, len, arg, err);
	free(text);
	if (!root)
		return -1;
	int rc = catalog_parse_model(root, arg, "", out, err);
	cJSON_Delete(root);
	return rc;
}

/* Options of the listing commands: --format table|json|csv and --help.
 * Returns -1 to go on, or the exit status to return. */
static const struct option list_options[] = {
	{ "format", required_argument, 0, 'f' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

static int list_opts(int argc, char **argv, const char *cmd, enum cli_format *fmt)
{
	const struct option *opts = list_options;
	int o;
	*fmt = FMT_TABLE;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		if (o == 'h') {
			printf("usage: hetplan %s [--format table|json|csv]\n", cmd);
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

/* ---- introspection: the option and key tables, for the man page check -- */

static const struct option *list_options_table(void)
{
	return list_options;
}

static const struct option completion_options[] = {
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

static const struct option *list_options_table_help(void)
{
	return completion_options;
}

/* Options the program takes before any command (the TUI's included). */
static const struct option global_options[] = {
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 0 },
	{ "no-color", no_argument, 0, 0 },
	{ "ascii", no_argument, 0, 0 },
	{ "no-mouse", no_argument, 0, 0 },
	{ "list-options", no_argument, 0, 0 },
	{ "list-keys", no_argument, 0, 0 },
	{ 0, 0, 0, 0 },
};

/* Each command's getopt table, by command name. A command missing here
 * makes --list-options fail, so the man page check notices it. */
static const struct {
	const char *cmd;
	const struct option *(*options)(void);
} command_options[] = {
	{ "plan", cmd_plan_options },
	{ "estimate", cmd_estimate_options },
	{ "prices", cmd_prices_options },
	{ "comm", cmd_comm_options },
	{ "gpus", list_options_table },
	{ "models", list_options_table },
	{ "report", cmd_report_options },
	{ "launch", cmd_launch_options },
	{ "serve", cmd_serve_options },
	{ "tui", tui_options },
	{ "completion", list_options_table_help },
};

static void print_options(const char *cmd, const struct option *o)
{
	for (; o->name; o++) {
		printf("%s --%s\n", cmd, o->name);
		/* The parsers' convention: a lower-case val is also the short
		 * option; other vals (upper case, >= 256) are internal codes. */
		if (!o->flag && o->val >= 'a' && o->val <= 'z')
			printf("%s -%c\n", cmd, o->val);
	}
}

/* `hetplan --list-options`: one "COMMAND --option" line per option, from
 * the same tables the parsers use ("hetplan" for the global ones). */
static int list_all_options(void)
{
	int rc = 0;
	print_options("hetplan", global_options);
	for (size_t i = 0; i < HP_ARRAY_LEN(commands); i++) {
		const struct option *o = NULL;
		for (size_t k = 0; k < HP_ARRAY_LEN(command_options); k++)
			if (!strcmp(command_options[k].cmd, commands[i].name))
				o = command_options[k].options();
		if (o)
			print_options(commands[i].name, o);
		else {
			fprintf(stderr, "hetplan: command '%s' has no option table\n", commands[i].name);
			rc = HP_EXIT_FAIL;
		}
	}
	return rc;
}

/* `hetplan completion bash|zsh|fish`: the script, from the same tables
 * --list-options reads, with the catalog's presets and GPU names. */
static int cmd_completion(int argc, char **argv, const struct catalog *cat)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: hetplan completion bash|zsh|fish\n");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "hetplan completion: expected one shell: bash, zsh or fish\n");
		return HP_EXIT_USAGE;
	}
	struct completion_cmd cc[HP_ARRAY_LEN(commands)];
	int n = 0;
	for (size_t i = 0; i < HP_ARRAY_LEN(commands); i++) {
		cc[n].name = commands[i].name;
		cc[n].summary = commands[i].summary;
		cc[n].opts = NULL;
		for (size_t k = 0; k < HP_ARRAY_LEN(command_options); k++)
			if (!strcmp(command_options[k].cmd, commands[i].name))
				cc[n].opts = command_options[k].options();
		n++;
	}
	if (completion_write(stdout, argv[1], cc, n, global_options, cat) < 0) {
		fprintf(stderr, "hetplan completion: unknown shell '%s' (bash, zsh or fish)\n",
			argv[1]);
		return HP_EXIT_USAGE;
	}
	return 0;
}

/* `hetplan --list-keys`: "VIEW<TAB>KEYS<TAB>DESCRIPTION" per TUI binding,
 * from the TUI's own key tables. */
static int list_all_keys(void)
{
	for (int v = TV_GLOBAL; v < TV_COUNT; v++) {
		int n;
		const struct tui_key *k = tui_keys(v, &n);
		for (int i = 0; i < n; i++)
			printf("%s\t%s\t%s\n", v == TV_GLOBAL ? "global" : tui_view_name(v), k[i].keys,
			       k[i].desc);
	}
	return 0;
}

int cli_main(int argc, char **argv)
{
	struct catalog cat;
	struct hp_err err = { 0 };
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--list-options"))
		return list_all_options();
	if (argc == 2 && !strcmp(argv[1], "--list-keys"))
		return list_all_keys();
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("hetplan %s\n", HETPLAN_VERSION);
		return 0;
	}
	if (catalog_load(&cat, NULL, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	int rc;
	/* No command, an option, or a workspace file (the usage's
	 * `hetplan WORKSPACE.json`): the interface. */
	size_t a1 = argc >= 2 ? strlen(argv[1]) : 0;
	if (argc < 2 || argv[1][0] == '-' ||
	    (a1 > 5 && !strcmp(argv[1] + a1 - 5, ".json"))) {
		rc = tui_main(argc, argv, &cat);
	} else {
		const struct command *cmd = NULL;
		for (size_t i = 0; i < HP_ARRAY_LEN(commands); i++)
			if (!strcmp(argv[1], commands[i].name))
				cmd = &commands[i];
		if (!cmd) {
			fprintf(stderr, "hetplan: unknown command '%s'\n", argv[1]);
			usage(stderr);
			rc = HP_EXIT_USAGE;
		} else {
			rc = cmd->run(argc - 1, argv + 1, &cat);
		}
	}
	catalog_done(&cat);
	return rc;
}

int cli_write_output(const char *path, const void *data, size_t len, struct hp_err *err)
{
	if (strcmp(path, "-"))
		return hp_write_file_atomic(path, data, len, err);
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
		return hp_err_set(err, HP_EXIT_FAIL, "standard output: %s", strerror(errno));
	return 0;
}
