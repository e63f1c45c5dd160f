/* cmd_serve.c — `hetplan serve`: size and place LLM serving. */
#include "cmd_serve.h"
#include "common.h"
#include "escape.h"
#include "plan_flags.h"
#include "sbuf.h"
#include "serve_report.h"
#include "serve_search.h"
#include "table.h"
#include "utf8.h"
#include "workspace.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The formats `serve` writes: the terminal table, the JSON contract, the
 * CSV schema (print_csv), and serve_report's Markdown and HTML. */
#define SERVE_FORMATS                                                                   \
	(1u << FMT_TABLE | 1u << FMT_JSON | 1u << FMT_CSV | 1u << FMT_MD | 1u << FMT_HTML)

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above serve_help. */
/* The weight and KV cache formats' names (serve_perf.c's tables), joined
 * by sep and, before the last, by last: "bf16|fp16|..." or "bf16, ... or
 * fp4". */
static const char *name_of_wprec(int i) { return serve_wprec_name((enum serve_wprec)i); }
static const char *name_of_kvprec(int i) { return serve_kvprec_name((enum serve_kvprec)i); }

static char *join_names(char *buf, size_t n, const char *(*name)(int), int count,
			const char *sep, const char *last)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < count && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					!i ? "" : i == count - 1 ? last : sep, name(i));
	return buf;
}

const char *cmd_serve_usage(void)
{
	static char buf[1536];
	char eng[96] = "", *e = eng, wp[96], kv[48];
	if (*buf)
		return buf;
	for (int i = 0; i < ENGINE_COUNT; i++)
		e += snprintf(e, sizeof eng - (size_t)(e - eng), "%s%s", i ? "|" : "",
			      serve_engine_name((enum serve_engine)i));
	size_t len = (size_t)snprintf(
		buf, sizeof buf,
		"hetplan serve (-c CLUSTER.json | --pool SPEC...) -m MODEL --isl N|DIST --osl N|DIST\n"
		"         (--rate R | --offline) [--ttft-p99 S] [--tpot-p99 S]\n"
		"         [--objective cost|throughput] [--engine %s]\n"
		"         [--precision %s] [--kv-precision %s]\n"
		"         [--tp N] [--pp N] [--max-batch N] [--chunk N] [--gpu-util F] [--step-overhead S]\n",
		eng, join_names(wp, sizeof wp, name_of_wprec, SW_COUNT, "|", "|"),
		join_names(kv, sizeof kv, name_of_kvprec, SKV_COUNT, "|", "|"));
	size_t col = 9;
	char fmts[64];
	len = cli_flag_words(buf, sizeof buf, len, &col, &ws_serve_fields, buf);
	if (len < sizeof buf)
		snprintf(buf + len, sizeof buf - len,
			 "%s         [--place] [--disagg] [--estimate [--burst N]] [--top K] [--no-price-book]\n"
			 "         [--format %s] [-o FILE]\n",
			 col == 9 ? "" : "\n", cli_format_names(fmts, sizeof fmts, SERVE_FORMATS, "|", "|"));
	return buf;
}

/* SERVE_MAX_UTIL as written in serve_search.h ("0.9"), for the help. */
#define UTIL_TEXT_(x) #x
#define UTIL_TEXT(x) UTIL_TEXT_(x)

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
	"      --tpot-p99 S     p99 time per output token, seconds (e.g. 0.05); without\n"
	"                       either target an instance is loaded to at most\n"
	"                       " UTIL_TEXT(SERVE_MAX_UTIL) " of its saturation rate\n"
	"      --objective O    cost (default with --rate: cheapest fleet), throughput\n"
	"      --engine E       vllm (default), sglang, tensorrt-llm, tensorrt-llm-engine\n";

/* After the --precision lines (prec_help). */
static const char serve_help_mid[] =
	"      --tp/--pp N      fix the parallelism of every instance\n"
	"      --max-batch N    running sequences per instance (default: the engine's)\n"
	"      --chunk N        tokens per iteration (chunked prefill budget)\n"
	"      --gpu-util F     memory share the engine may use (default: the engine's)\n"
	"      --step-overhead S  host time per engine iteration, seconds (default: the\n"
	"                       engine's; engines before vLLM 0.6 spent 0.005-0.013)\n";

/* --precision and --kv-precision: the formats' names from their tables;
 * the defaults and what int4 and fp8-mlp quantise (serve_perf.c wfmt). */
static void prec_help(FILE *f)
{
	char wp[96], kv[48];
	fprintf(f, "      --precision P    weights: %s; default bf16\n"
		   "                       (fp16 on V100/T4, which have no bf16); int4 is weight-only;\n"
		   "                       fp8-mlp: FP8 MLP in all but the first and last layers,\n"
		   "                       attention 16-bit (Meta's Llama 3.1 FP8 checkpoints)\n"
		   "      --kv-precision P KV cache: %s; default bf16 (fp16 on V100/T4)\n",
		join_names(wp, sizeof wp, name_of_wprec, SW_COUNT, ", ", " or "),
		join_names(kv, sizeof kv, name_of_kvprec, SKV_COUNT, ", ", " or "));
}

/* After the settings table's flags (cli_flag_help). */
static const char serve_help_tail[] =
	"      --place          place contiguous layer ranges over every GPU of the cluster\n"
	"                       (Helix-style max-flow MILP) instead of whole-model replicas\n"
	"      --disagg         also consider separate prefill and decode instances, the KV\n"
	"                       cache shipped between them over the network\n"
	"      --estimate       evaluate one instance (--tp, --pp) on the first pool\n"
	"      --burst N        with --estimate: also N requests sent at once, lengths at N\n"
	"                       quantiles of --isl/--osl: the time the last one ends, req/s\n"
	"      --top K          plans to list (default 5)\n"
	"      --no-price-book  price pools from the catalog reference, not 'hetplan prices'\n"
	"  -o, --output FILE    write there (atomically); the format follows .json .csv .md .html\n"
	"\n"
	"Exit status: 0 plans found, 4 nothing fits or meets the rate and SLOs (the nearest\n"
	"miss is explained), 2 usage, 3 invalid input.\n";

enum { O_POOL = 256, O_ISL, O_OSL, O_RATE, O_OFFLINE, O_TTFT, O_TPOT, O_OBJ, O_ENGINE, O_PREC,
       O_KVPREC, O_TP, O_PP, O_MAXB, O_CHUNK, O_UTIL, O_PLACE, O_EST, O_TOP, O_NOBOOK,
       O_FORMAT, O_DISAGG, O_BURST, O_STEP,
       O_FIELD0 = 512 /* + the index in ws_serve_fields (its flagged settings) */ };

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
	{ "step-overhead", required_argument, 0, O_STEP },
	{ "place", no_argument, 0, O_PLACE },
	{ "disagg", no_argument, 0, O_DISAGG },
	{ "estimate", no_argument, 0, O_EST },
	{ "burst", required_argument, 0, O_BURST },
	{ "top", required_argument, 0, O_TOP },
	{ "no-price-book", no_argument, 0, O_NOBOOK },
	{ "format", required_argument, 0, O_FORMAT },
	{ "output", required_argument, 0, 'o' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

/* serve_opts and, before its terminating entry, the flags of the serve
 * settings table (ws_serve_fields: --prefill-apart, --sched-steps,
 * --eager), built once. Single-threaded: only command parsing calls it. */
const struct option *cmd_serve_options(void)
{
	enum { MAX_OPTS = 64 };
	static struct option all[MAX_OPTS];
	static int built;
	if (!built) {
		int k = 0;
		while (serve_opts[k].name && k < MAX_OPTS - 1) {
			all[k] = serve_opts[k];
			k++;
		}
		k += fields_getopt(&ws_serve_fields, O_FIELD0, all + k, MAX_OPTS - 1 - k);
		all[k] = (struct option){ 0, 0, 0, 0 };
		built = 1;
	}
	return all;
}

/* A positive number of seconds (or requests/s) below max, decimal only
 * (util.h's parser: no leading space, sign, hex or inf/nan). */
static int parse_pos(const char *s, double max, double *out)
{
	double v;
	if (hp_parse_number(s, &v) || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int serve_slo_parse(const char *key, const char *s, double unit_s, double *out_s,
		    char *want, size_t n)
{
	const struct hp_field *f = fields_find_key(&ws_serve_fields, key);
	double v;
	assert(f && f->kind == FK_NUM && unit_s > 0);
	/* the JSON key's range starts at 0, its "absent" (FF_OMIT_ZERO);
	 * a target a user types is above 0 */
	snprintf(want, n, "%s above 0, at most %g", unit_s < 1 ? "milliseconds" : "seconds",
		 f->max / unit_s);
	if (parse_pos(s, f->max / unit_s, &v))
		return -1;
	*out_s = v * unit_s;
	return 0;
}

/* --- output -------------------------------------------------------------------- */


static void print_csv(struct sbuf *o, const struct serve_plan_result *res)
{
	struct table t;
	serve_table_csv(&t, res);
	table_render_csv(o, &t);
	table_done(&t);
}

/* What the command line asks for. */
struct serve_args {
	struct serve_opts so;
	const char *cluster_file, *model_arg, *out_file;
	const char *pools[HP_MAX_POOLS];
	int n_pools, have_fmt, no_book, estimate, have_isl, have_osl, have_obj;
	int burst;                   /* --burst N: requests sent at once */
	enum cli_format fmt;
	struct ws_serve set;         /* the table's settings (--eager ...) */
};

/* One option that takes a number or a name. Returns 0, or the exit status
 * of a usage error (the message printed). */
static int serve_opt_value(int opt, const char *arg, struct serve_args *a)
{
	struct serve_opts *so = &a->so;
	struct hp_err err = { 0 };
	double d;
	int v;
	switch (opt) {
	case O_ISL:
	case O_OSL:
		if (serve_dist_parse(arg, opt == O_ISL ? &so->isl : &so->osl, &err) < 0) {
			fprintf(stderr, "hetplan serve: --%s: %s\n", opt == O_ISL ? "isl" : "osl", err.msg);
			return HP_EXIT_USAGE;
		}
		if (opt == O_ISL)
			a->have_isl = 1;
		else
			a->have_osl = 1;
		return 0;
	case O_RATE:
		return parse_pos(arg, 1e7, &so->rate) ? usage_error("serve", "rate", "requests/s above 0, at most 1e7 (or --offline for no rate)", arg) : 0;
	case O_TTFT:
	case O_TPOT: {
		char want[96];
		if (!serve_slo_parse(opt == O_TTFT ? "ttft_p99_s" : "tpot_p99_s", arg, 1,
				     opt == O_TTFT ? &so->slo.ttft_p99_s : &so->slo.tpot_p99_s,
				     want, sizeof want))
			return 0;
		/* no target is the flag left out: 0 is no latency anything meets */
		strncat(want, " (leave the flag out for no target)", sizeof want - strlen(want) - 1);
		return usage_error("serve", opt == O_TTFT ? "ttft-p99" : "tpot-p99", want, arg);
	}
	case O_OBJ:
		if (!strcmp(arg, "cost"))
			so->objective = SERVE_OBJ_COST;
		else if (!strcmp(arg, "throughput"))
			so->objective = SERVE_OBJ_THROUGHPUT;
		else
			return usage_error("serve", "objective", "cost or throughput", arg);
		a->have_obj = 1;
		return 0;
	case O_ENGINE:
		return serve_engine_parse(arg, &so->base.engine)
		       ? usage_error("serve", "engine", "vllm, sglang, tensorrt-llm or tensorrt-llm-engine", arg) : 0;
	case O_PREC:
		so->base.wprec_given = 1;
		if (serve_wprec_parse(arg, &so->base.wprec)) {
			char want[96];
			return usage_error("serve", "precision", join_names(want, sizeof want,
					   name_of_wprec, SW_COUNT, ", ", " or "), arg);
		}
		return 0;
	case O_KVPREC:
		so->base.kvprec_given = 1;
		if (serve_kvprec_parse(arg, &so->base.kvprec)) {
			char want[48];
			return usage_error("serve", "kv-precision", join_names(want, sizeof want,
					   name_of_kvprec, SKV_COUNT, ", ", " or "), arg);
		}
		return 0;
	case O_TP:
		if (hp_parse_int(arg, &so->fix_tp) || (so->fix_tp & (so->fix_tp - 1)) || so->fix_tp > 64)
			return usage_error("serve", "tp", "a power of two from 1 to 64", arg);
		return 0;
	case O_PP:
		if (hp_parse_int(arg, &so->fix_pp) || so->fix_pp > 64)
			return usage_error("serve", "pp", "an integer from 1 to 64", arg);
		return 0;
	case O_MAXB:
		if (hp_parse_int(arg, &so->base.max_batch) || so->base.max_batch > 65536)
			return usage_error("serve", "max-batch", "an integer from 1 to 65536", arg);
		return 0;
	case O_CHUNK:
		if (hp_parse_int(arg, &so->base.chunk_tokens) || so->base.chunk_tokens > 1048576)
			return usage_error("serve", "chunk", "tokens from 1 to 1048576", arg);
		return 0;
	case O_UTIL:
		if (parse_pos(arg, 1, &d) || d < 0.1)
			return usage_error("serve", "gpu-util", "a share from 0.1 to 1", arg);
		so->base.mem_util = d;
		return 0;
	case O_STEP:
		/* An iteration's host time: 1 s is far above any engine's
		 * (vLLM's RFC #6854 measured 5-13 ms before 0.6). */
		if (parse_pos(arg, 1, &d))
			return usage_error("serve", "step-overhead",
					   "seconds above 0, at most 1 (e.g. 0.009)", arg);
		so->base.step_overhead_s = d;
		return 0;
	case O_BURST:
		if (hp_parse_int(arg, &a->burst) || a->burst > SERVE_BURST_MAX)
			return usage_error("serve", "burst", "requests from 1 to 4096", arg);
		return 0;
	case O_TOP:
		if (hp_parse_int(arg, &v) || v > 16)
			return usage_error("serve", "top", "an integer from 1 to 16", arg);
		so->top_k = v;
		return 0;
	case O_FORMAT:
		if (cli_parse_format(arg, &a->fmt, SERVE_FORMATS)) {
			char fmts[64];
			return usage_error("serve", "format", cli_format_names(fmts, sizeof fmts,
						SERVE_FORMATS, ", ", " or "), arg);
		}
		a->have_fmt = 1;
		return 0;
	}
	if (opt >= O_FIELD0 && opt < O_FIELD0 + ws_serve_fields.n) {
		const struct hp_field *f = &ws_serve_fields.f[opt - O_FIELD0];
		char want[128];
		if (fields_parse_text(f, &a->set, arg, want, sizeof want) < 0)
			return usage_error("serve", f->flag, want, arg);
		ws_serve_to_config(&a->set, &so->base);
	}
	return 0;
}

/* The options that go together; the objective and format defaults.
 * Returns 0, or the exit status with the message printed. */
static int serve_check_args(struct serve_args *a)
{
	struct serve_opts *so = &a->so;
	if (!a->have_isl || !a->have_osl) {
		fprintf(stderr, "hetplan serve: --isl and --osl are required (tokens per request)\n");
		return HP_EXIT_USAGE;
	}
	if (so->offline && so->rate > 0) {
		fprintf(stderr, "hetplan serve: --rate and --offline exclude each other\n");
		return HP_EXIT_USAGE;
	}
	if (!so->offline && !(so->rate > 0)) {
		fprintf(stderr, "hetplan serve: give --rate R (requests/s) or --offline\n");
		return HP_EXIT_USAGE;
	}
	if (so->disagg && (so->place || a->estimate)) {
		fprintf(stderr, "hetplan serve: --disagg applies to fleet sizing, not --place or --estimate\n");
		return HP_EXIT_USAGE;
	}
	if (a->burst && !a->estimate) {
		fprintf(stderr, "hetplan serve: --burst goes with --estimate\n");
		return HP_EXIT_USAGE;
	}
	if (so->place && a->estimate) {
		fprintf(stderr, "hetplan serve: --place and --estimate exclude each other\n");
		return HP_EXIT_USAGE;
	}
	if (so->base.sched_steps > 1 && !so->base.prefill_apart) {
		fprintf(stderr, "hetplan serve: --sched-steps counts the decode iterations between "
			"prompt calls; it goes with --prefill-apart on\n");
		return HP_EXIT_USAGE;
	}
	if (so->place && so->base.prefill_apart) {
		fprintf(stderr, "hetplan serve: --place models one engine step per machine and "
			"iteration; --prefill-apart applies to instances (fleet sizing, --estimate)\n");
		return HP_EXIT_USAGE;
	}
	char why[512];   /* the engine; the pools come later (check_build_gpus) */
	if (serve_build_note(why, sizeof why, &so->base, NULL) == 1) {
		fprintf(stderr, "hetplan serve: --engine-build %s\n", why);
		return HP_EXIT_USAGE;
	}
	if (so->offline && !a->have_obj)
		so->objective = SERVE_OBJ_THROUGHPUT;
	if (a->out_file && !a->have_fmt)
		cli_format_from_path(a->out_file, &a->fmt, SERVE_FORMATS);
	return 0;
}

/* Parse argv. Returns -1 to go on, else the exit status. */
static int serve_parse_args(int argc, char **argv, struct serve_args *a)
{
	int opt, rc;
	memset(a, 0, sizeof *a);
	serve_opts_init(&a->so);
	a->fmt = FMT_TABLE;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:m:o:h", cmd_serve_options(), NULL)) != -1) {
		switch (opt) {
		case 'h':
			cli_usage(stdout, cmd_serve_usage(), serve_help);
			prec_help(stdout);
			fputs(serve_help_mid, stdout);
			cli_flag_help(stdout, &ws_serve_fields);
			fputs(serve_help_tail, stdout);
			return 0;
		case 'c': a->cluster_file = optarg; break;
		case 'm': a->model_arg = optarg; break;
		case 'o': a->out_file = optarg; break;
		case O_POOL:
			if (a->n_pools == HP_MAX_POOLS) {
				fprintf(stderr, "hetplan serve: --pool: at most %d pools\n", HP_MAX_POOLS);
				return HP_EXIT_USAGE;
			}
			a->pools[a->n_pools++] = optarg;
			break;
		case O_OFFLINE: a->so.offline = 1; break;
		case O_PLACE: a->so.place = 1; break;
		case O_DISAGG: a->so.disagg = 1; break;
		case O_EST: a->estimate = 1; break;
		case O_NOBOOK: a->no_book = 1; break;
		case ':':
			fprintf(stderr, "hetplan serve: %s: missing value\n", cli_shown(argv[optind - 1]));
			return HP_EXIT_USAGE;
		case '?':
			fprintf(stderr, "hetplan serve: unknown option '%s' (try --help)\n",
				cli_shown(argv[optind - 1]));
			return HP_EXIT_USAGE;
		default:
			if ((rc = serve_opt_value(opt, optarg, a)))
				return rc;
		}
	}
	if ((rc = cli_check_inputs("serve", argc, argv, a->model_arg, a->cluster_file, a->n_pools)))
		return rc;
	return serve_check_args(a) ? HP_EXIT_USAGE : -1;
}

/* The lengths of a burst of n: quantiles (i + 0.5) / n of the prompt and
 * output distributions, the output ones in a fixed shuffled order so the
 * admission order is not sorted by length. */
static void burst_lengths(const struct serve_opts *so, int n, double *isl, double *osl)
{
	for (int i = 0; i < n; i++) {
		isl[i] = fmax(1, round(serve_dist_quantile(&so->isl, (i + 0.5) / n)));
		osl[i] = fmax(1, round(serve_dist_quantile(&so->osl, (i + 0.5) / n)));
	}
	unsigned st = 12345;   /* a linear congruential shuffle, reproducible */
	for (int i = n - 1; i > 0; i--) {
		st = st * 1103515245u + 12345u;
		int j = (int)((st >> 8) % (unsigned)(i + 1));
		double t = osl[i];
		osl[i] = osl[j];
		osl[j] = t;
	}
}

/* --burst N with --estimate: N requests at once on the estimated instance. */
static int burst_out(const struct cluster *c, const struct model_spec *m,
		     const struct serve_args *a, const struct serve_plan *pl, cJSON *j,
		     struct sbuf *o, struct hp_err *err)
{
	double *isl = xmalloc(sizeof(double) * (size_t)a->burst);
	double *osl = xmalloc(sizeof(double) * (size_t)a->burst);
	burst_lengths(&a->so, a->burst, isl, osl);
	struct serve_config cfg = a->so.base;
	cfg.tp = pl->inst[0].tp;
	cfg.pp = pl->inst[0].pp;
	struct serve_burst_result b;
	int rc = serve_burst(&c->pools[0], m, &cfg, a->burst, isl, osl, NULL, &b, err);
	free(isl);
	free(osl);
	if (rc < 0 || !b.fits)
		return rc;
	if (j) {
		cJSON *bj = cJSON_AddObjectToObject(j, "burst");
		cJSON_AddNumberToObject(bj, "requests", a->burst);
		serve_json_num(bj, "makespan_s", b.makespan_s);
		serve_json_num(bj, "requests_per_s", b.req_s);
		serve_json_num(bj, "output_tokens_per_s", b.out_tps);
		serve_json_num(bj, "ttft_mean_s", b.ttft_mean_s);
		serve_json_num(bj, "itl_mean_s", b.itl_mean_s);
		if (b.preemptions > 0) {   /* decoding outgrew the KV pool */
			cJSON_AddNumberToObject(bj, "preemptions", b.preemptions);
			serve_json_num(bj, "recomputed_tokens", b.recomputed_tokens);
		}
	} else {
		sbuf_addf(o, "burst of %d requests: the last ends after %.2f s; %.2f req/s, %.0f output "
			     "tok/s; mean TTFT %.1f ms, ITL %.2f ms\n", a->burst, b.makespan_s, b.req_s,
			  b.out_tps, b.ttft_mean_s * 1e3, b.itl_mean_s * 1e3);
		if (b.preemptions > 0)
			sbuf_addf(o, "  the KV pool overflowed while decoding: %d preemptions, %.0f tokens "
				     "prefilled again (vLLM recompute)\n", b.preemptions,
				  b.recomputed_tokens);
	}
	return 0;
}

/* --estimate: one configuration on the first pool. Returns serve's status
 * (0, or -1 with res->why or err); *rc an exit status on a usage error. */
static void serve_format(struct sbuf *o, enum cli_format fmt, const struct serve_plan_result *res,
			 int src, const struct cluster *c, const struct model_spec *m,
			 const struct serve_opts *so);

static int serve_estimate_out(const struct cluster *c, const struct model_spec *m,
			      const struct serve_args *a, struct serve_plan_result *res,
			      struct sbuf *o, struct hp_err *err, int *rc)
{
	struct serve_result r;
	int src = serve_estimate_plan(c, m, &a->so, NULL, &res->plans[0], &r, err);
	if (src < 0) {
		*rc = cli_fail(err, HP_EXIT_USAGE);
		return src;
	}
	res->n_plans = 1;
	res->n_cands = 1;
	res->n_buckets = 1;
	if (!r.fits) {
		snprintf(res->why, sizeof res->why, "%.*s", UTF8_CUT(r.why, 300));
		src = -1;
		err->code = HP_EXIT_NOFIT;
	}
	if (a->fmt == FMT_JSON) {
		cJSON *j = serve_plan_json(&res->plans[0], c, m, &a->so);
		if (a->so.base.build != BUILD_CURRENT)   /* as serve_plans_json */
			cJSON_AddStringToObject(j, "engine_build", serve_build(a->so.base.build)->name);
		if (!r.fits)
			cJSON_AddStringToObject(j, "why", r.why);
		else if (a->burst)
			burst_out(c, m, a, &res->plans[0], j, o, err);
		char *s = esc_json_print(j);
		sbuf_addf(o, "%s\n", s);
		free(s);
		cJSON_Delete(j);
	} else if (a->fmt == FMT_CSV) {
		print_csv(o, res);
	} else if (r.fits) {
		serve_format(o, a->fmt, res, src, c, m, &a->so);
		if (a->fmt != FMT_HTML)
			sbuf_addf(o, "saturation: %.0f output tok/s, %.2f req/s at batch %d; "
			     "unloaded TTFT %.1f ms, TPOT %.2f ms\n",
			  r.out_tps_max, r.req_s_max, r.max_batch, r.ttft_min_s * 1e3,
			  r.tpot_min_s * 1e3);
		if (a->burst)
			burst_out(c, m, a, &res->plans[0], NULL, o, err);
	}
	return src;
}

static void plans_json(struct sbuf *o, const struct serve_plan_result *res, int src,
		       const struct cluster *c, const struct model_spec *m,
		       const struct serve_opts *so)
{
	struct serve_report_input in = { .cluster = c, .model = m, .opts = so, .res = res,
					 .failed = src < 0 };
	cJSON *j = serve_plans_json(&in);
	char *t = esc_json_print(j);
	sbuf_addf(o, "%s\n", t);
	free(t);
	cJSON_Delete(j);
}

/* res in format fmt (src: serve_plan's return) appended to o. */
static void serve_format(struct sbuf *o, enum cli_format fmt, const struct serve_plan_result *res,
			 int src, const struct cluster *c, const struct model_spec *m,
			 const struct serve_opts *so)
{
	struct serve_report_input in = { .cluster = c, .model = m, .opts = so, .res = res,
					 .failed = src < 0, .generated = time(NULL),
					 .version = HETPLAN_VERSION };
	if (fmt == FMT_JSON)
		plans_json(o, res, src, c, m, so);
	else if (fmt == FMT_CSV)
		print_csv(o, res);
	else
		serve_report_render(o, &in, fmt == FMT_HTML ? SERVE_SINK_HTML
					    : fmt == FMT_MD ? SERVE_SINK_MD : SERVE_SINK_TERM);
}

char *serve_plans_text(const struct serve_plan_result *res, int src, const struct cluster *c,
		       const struct model_spec *m, const struct serve_opts *so, enum cli_format fmt)
{
	struct sbuf o;
	sbuf_init(&o);
	serve_format(&o, fmt, res, src, c, m, so);
	return sbuf_take(&o, NULL);
}

/* An engine build other than current changes the GPUs of its generation
 * only (serve_dec_attn_x): on a cluster without one it would change
 * nothing, so it is refused there, naming the pools' GPUs (exit 3); a mixed
 * cluster takes it, its other pools unchanged. Returns 0 or the status. */
static int check_build_gpus(const struct serve_config *cfg, const struct cluster *c)
{
	char why[512];
	if (serve_build_note(why, sizeof why, cfg, c) != 2)
		return 0;
	fprintf(stderr, "hetplan serve: --engine-build %s: it would change nothing\n", why);
	return HP_EXIT_INPUT;
}

int cmd_serve(int argc, char **argv, const struct catalog *cat)
{
	struct serve_args *a = xmalloc(sizeof *a);
	struct cluster c;
	struct model_spec m;
	struct hp_err err = { 0 };
	int rc = serve_parse_args(argc, argv, a);
	if (rc >= 0) {
		free(a);
		return rc;
	}
	cluster_init(&c);
	if ((rc = cli_build_cluster("serve", a->cluster_file, a->pools, a->n_pools, !a->no_book, cat,
				    &c))) {
		free(a);
		return rc;
	}
	if ((rc = check_build_gpus(&a->so.base, &c))) {
		free(a);
		return rc;
	}
	if (cli_load_model(cat, a->model_arg, &m, &err) < 0) {
		free(a);
		return cli_fail(&err, HP_EXIT_INPUT);
	}
	/* A model file's name is the user's label, not a repository an
	 * engine can fetch: without an "hf_id" the launch lines load a
	 * placeholder (quoted, so run as is it fails rather than redirects)
	 * and a note says to replace it. Presets keep theirs. */
	if (!*m.hf_id && cli_model_is_file(cat, a->model_arg)) {
		char shown[300];
		snprintf(m.hf_id, sizeof m.hf_id, "%s", SERVE_MODEL_PLACEHOLDER);
		fprintf(stderr, "hetplan serve: note: -m %s has no \"hf_id\": the launch lines load "
			"'%s'; replace it with the checkpoint's directory or its Hugging Face "
			"repository (or give \"hf_id\" in the file)\n",
			esc_term_buf(shown, sizeof shown, a->model_arg), SERVE_MODEL_PLACEHOLDER);
	}
	if (a->so.base.wprec == SW_FP8_MLP && !serve_fp8_mlp_checkpoint(m.hf_id)) {
		char shown[300];
		fprintf(stderr, "hetplan serve: note: --precision fp8-mlp loads a checkpoint "
			"quantised so (FP8 MLP weights, fbgemm_fp8); hetplan knows none for %s: the "
			"launch lines load '%s'; replace it with one\n",
			esc_term_buf(shown, sizeof shown, *m.hf_id ? m.hf_id : m.name),
			SERVE_MODEL_PLACEHOLDER);
	}
	struct serve_plan_result *res = xcalloc(1, sizeof *res);
	struct sbuf o;
	sbuf_init(&o);
	int src;
	rc = 0;
	if (a->estimate) {
		src = serve_estimate_out(&c, &m, a, res, &o, &err, &rc);
		if (rc)
			goto out;
	} else {
		src = serve_plan(&c, &m, &a->so, NULL, res, &err);
		if (src < 0 && !res->why[0] && !res->has_nearest) {
			rc = cli_fail(&err, HP_EXIT_USAGE);
			goto out;
		}
		if (a->fmt != FMT_TABLE || res->n_plans)
			serve_format(&o, a->fmt, res, src, &c, &m, &a->so);
	}
	if (a->out_file) {
		if (o.len && cli_write_output(a->out_file, o.s, o.len, &err) < 0)
			rc = cli_fail(&err, HP_EXIT_FAIL);
	} else if (o.len) {
		fwrite(o.s, 1, o.len, stdout);
	}
	if (src < 0) {
		fprintf(stderr, "hetplan: %s\n", res->why[0] ? res->why : err.msg);
		char near[400];
		if (a->fmt != FMT_JSON && serve_nearest_note(near, sizeof near, res))
			fprintf(stderr, "nearest miss: %s\n", near);
		rc = err.code ? err.code : HP_EXIT_NOFIT;
	}
out:
	sbuf_done(&o);
	free(res);
	free(a);
	return rc;
}
