/* cmd_prices.c — `hetplan prices`: the price book, and updating it. */
#include "cli.h"
#include "cmd_prices.h"
#include "common.h"
#include "escape.h"
#include "jsonx.h"
#include "pricing.h"
#include "sbuf.h"
#include "table.h"
#include "utf8.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above prices_help. */
const char cmd_prices_usage[] =
	"hetplan prices [--update] [--source S]... [--gpu TYPE] [--provider P]\n"
	"         [--region R] [--spot] [--all] [--gpus N] [--format table|json|csv]\n";

static const char prices_help[] =
	"\n"
	"  Without --update: the price book from the embedded snapshot and the cache,\n"
	"  no network. By default the cheapest offer per GPU type and provider.\n"
	"\n"
	"      --update           fetch the sources first (conditional GET against the cache)\n"
	"      --source S         skypilot:CLOUD (aws, gcp, azure, lambda, runpod, ...),\n"
	"                         azure (Retail Prices API) or json:URL; repeatable\n"
	"                         (default: the config file's list, else the five SkyPilot clouds)\n"
	"      --gpu TYPE         one GPU type (catalog names and aliases)\n"
	"      --provider P       one provider (aws, gcp, azure, lambda, runpod, ...)\n"
	"      --region R         one region or zone\n"
	"      --spot             spot / preemptible prices instead of on-demand\n"
	"      --all              every offer, not just the cheapest per GPU and provider,\n"
	"                         with its zone (as the CSV and JSON give it)\n"
	"      --gpus N           only instances with N GPUs\n"
	"      --format F         table (default), json or csv\n"
	"      --timeout S        connect timeout and stall window in seconds (default 20)\n"
	"      --max-bytes N      largest response accepted, e.g. 64M (default)\n"
	"      --retry-wait S     longest Retry-After waited out on HTTP 429 (default 5)\n"
	"      --cache-dir DIR    cache location (default $XDG_CACHE_HOME/hetplan)\n"
	"      --skypilot-url U   base URL holding CLOUD/vms.csv\n"
	"      --azure-url U      Azure Retail Prices endpoint\n"
	"      --config FILE      read this config file instead of $XDG_CONFIG_HOME/hetplan/config.json\n"
	"\n"
	"Exit status: 0 ok, 1 a source failed to update (the table still shows the\n"
	"last good data), 2 usage, 3 invalid input (unknown GPU, bad config).\n";

enum { O_UPDATE = 256, O_SOURCE, O_GPU, O_PROVIDER, O_REGION, O_SPOT, O_ALL, O_GPUS,
       O_FORMAT, O_TIMEOUT, O_MAXB, O_RETRY, O_CACHE, O_SKY, O_AZ, O_CONFIG };

static const struct option prices_opts[] = {
	{ "update", no_argument, 0, O_UPDATE },
	{ "source", required_argument, 0, O_SOURCE },
	{ "gpu", required_argument, 0, O_GPU },
	{ "provider", required_argument, 0, O_PROVIDER },
	{ "region", required_argument, 0, O_REGION },
	{ "spot", no_argument, 0, O_SPOT },
	{ "all", no_argument, 0, O_ALL },
	{ "gpus", required_argument, 0, O_GPUS },
	{ "format", required_argument, 0, O_FORMAT },
	{ "timeout", required_argument, 0, O_TIMEOUT },
	{ "max-bytes", required_argument, 0, O_MAXB },
	{ "retry-wait", required_argument, 0, O_RETRY },
	{ "cache-dir", required_argument, 0, O_CACHE },
	{ "skypilot-url", required_argument, 0, O_SKY },
	{ "azure-url", required_argument, 0, O_AZ },
	{ "config", required_argument, 0, O_CONFIG },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

const struct option *cmd_prices_options(void)
{
	return prices_opts;
}

/* The progress line: one line on stderr, redrawn in place. */
struct progress_line {
	int on;
	double last;
};

static int show_progress(void *ud, const struct price_progress *p)
{
	struct progress_line *pl = ud;
	double t = hp_now();
	if (t - pl->last < 0.1 && p->now_bytes > 0)
		return 0;
	pl->last = t;
	char a[32], b[32], page[24] = "";
	hp_fmt_bytes(a, sizeof a, p->now_bytes);
	if (p->page)
		snprintf(page, sizeof page, " page %d", p->page);
	/* the source cut at 60 bytes on a whole UTF-8 character ("json:" and
	 * a URL of euro signs ended inside one) */
	int k = (int)utf8_cut(p->source, 60);
	if (p->now_bytes <= 0 && p->total_bytes <= 0)
		fprintf(stderr, "\r\033[K  %d/%d  %.*s%s", p->done, p->of, k, p->source, page);
	else if (p->total_bytes > 0)
		fprintf(stderr, "\r\033[K  %d/%d  %.*s%s  %s of %s", p->done, p->of, k, p->source,
			page, a, hp_fmt_bytes(b, sizeof b, p->total_bytes));
	else
		fprintf(stderr, "\r\033[K  %d/%d  %.*s%s  %s", p->done, p->of, k, p->source, page, a);
	fflush(stderr);
	return 0;
}

static const char *result_name(enum price_result r)
{
	switch (r) {
	case PRICE_FETCHED: return "fetched";
	case PRICE_NOT_MODIFIED: return "not modified";
	case PRICE_CANCELLED: return "cancelled";
	default: return "FAILED";
	}
}

static void age_text(double fetched_at, double now, char *buf, size_t n)
{
	if (fetched_at <= 0) {
		snprintf(buf, n, "no cached copy; the embedded snapshot stays in use");
		return;
	}
	char day[32], age[32];
	time_t t = (time_t)fetched_at;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(day, sizeof day, "%Y-%m-%d %H:%M UTC", &tm);
	pricing_fmt_age(now - fetched_at, age, sizeof age);
	snprintf(buf, n, "data from %s (%s old)", day, age);
}

static const char *kind(const struct price_offer *o)
{
	return o->spot ? "spot" : "on-demand";
}

void http_flags_add(struct http_flags *f, const struct option *opts, int o,
		    const char *value)
{
	for (int i = 0; opts[i].name; i++) {
		if (opts[i].val != o)
			continue;
		int k;
		for (k = 0; k < f->n && strcmp(f->v[k][0], opts[i].name); k++)
			;
		if (k == (int)HP_ARRAY_LEN(f->v))
			return;
		f->v[k][0] = opts[i].name;
		f->v[k][1] = value;
		f->n += k == f->n;
	}
}

int http_flags_apply(const struct http_flags *f, const char *cmd, struct price_config *cfg)
{
	for (int i = 0; i < f->n; i++) {
		const char *want;
		if (pricing_config_flag(cfg, f->v[i][0], f->v[i][1], &want) < 0)
			return usage_error(cmd, f->v[i][0], want, f->v[i][1]);
	}
	return 0;
}

int cmd_update_check(const char *cmd, int argc, char **argv, int has_source, int update)
{
	if (optind < argc) {
		fprintf(stderr, "hetplan %s: unexpected argument '%s'\n", cmd, cli_shown(argv[optind]));
		return HP_EXIT_USAGE;
	}
	if (has_source && !update) {
		fprintf(stderr, "hetplan %s: --source needs --update\n", cmd);
		return HP_EXIT_USAGE;
	}
	return -1;
}

/* What the command line asked for. */
struct prices_args {
	const char *sources[PRICE_MAX_SOURCES];
	int n_src, update, spot, all, gpus;
	const char *gpu, *provider, *region, *config;
	struct http_flags flags;
	enum cli_format fmt;
};

/* Parse argv into a. Returns -1 to go on, or the exit status. */
static int prices_parse(int argc, char **argv, struct prices_args *a)
{
	struct hp_err err = { 0 };
	int o;
	memset(a, 0, sizeof *a);
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", prices_opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			cli_usage(stdout, cmd_prices_usage, prices_help);
			return 0;
		case O_UPDATE: a->update = 1; break;
		case O_SOURCE:
			if (pricing_source_valid(optarg, &err) < 0) {
				fprintf(stderr, "hetplan prices: --source: %s\n", err.msg);
				return HP_EXIT_USAGE;
			}
			if (a->n_src == PRICE_MAX_SOURCES) {
				fprintf(stderr, "hetplan prices: --source: at most %d sources\n",
					PRICE_MAX_SOURCES);
				return HP_EXIT_USAGE;
			}
			a->sources[a->n_src++] = optarg;
			break;
		case O_GPU: a->gpu = optarg; break;
		case O_PROVIDER: a->provider = optarg; break;
		case O_REGION: a->region = optarg; break;
		case O_SPOT: a->spot = 1; break;
		case O_ALL: a->all = 1; break;
		case O_GPUS:
			if (hp_parse_int(optarg, &a->gpus))
				return usage_error("prices", "gpus", "a positive integer", optarg);
			break;
		case O_FORMAT:
			if (cli_parse_format(optarg, &a->fmt, 7))
				return usage_error("prices", "format", "table, json or csv", optarg);
			break;
		case O_TIMEOUT: case O_MAXB: case O_RETRY: case O_CACHE: case O_SKY: case O_AZ:
			http_flags_add(&a->flags, prices_opts, o, optarg);
			break;
		case O_CONFIG: a->config = optarg; break;
		default:
			return cli_getopt_error("prices", o, argv);
		}
	}
	return cmd_update_check("prices", argc, argv, a->n_src > 0, a->update);
}

/* Update the sources and report each result. Returns the number failed,
 * or -1 after printing a usage problem. */
static int prices_update(const struct price_config *cfg, const struct catalog *cat,
			 const struct prices_args *a, struct price_update *ups, int *n_up)
{
	struct hp_err err = { 0 };
	struct progress_line pl = { isatty(2), 0 };
	*n_up = a->n_src ? a->n_src : cfg->n_sources;
	int failed = pricing_update(cfg, cat, a->n_src ? a->sources : NULL, a->n_src,
				    pl.on ? show_progress : NULL, &pl, NULL, ups, &err);
	if (pl.on)
		fprintf(stderr, "\r\033[K");
	if (failed < 0) {
		cli_fail(&err, HP_EXIT_USAGE);
		return -1;
	}
	double now = (double)time(NULL);
	for (int i = 0; i < *n_up; i++) {
		char age[96];
		age_text(ups[i].data_fetched_at, now, age, sizeof age);
		/* Failures go to stderr in every format; successes are
		 * part of the table report. */
		if (ups[i].result == PRICE_FAILED || ups[i].result == PRICE_CANCELLED)
			fprintf(stderr, "hetplan prices: %s failed: %s; %s\n", ups[i].source,
				ups[i].msg, ups[i].data_fetched_at > 0
						    ? "keeping the cached copy" : "nothing cached");
		if (a->fmt != FMT_TABLE)
			continue;
		/* Source names padded by terminal columns (a CJK name takes
		 * two a character), not bytes. */
		cli_print_term(stdout, ups[i].source, 22);
		if (ups[i].result == PRICE_FETCHED)
			printf(" fetched        %d offers, %s%s%s\n", ups[i].n_offers, age,
			       *ups[i].msg ? "; " : "", ups[i].msg);
		else if (ups[i].result == PRICE_NOT_MODIFIED)
			printf(" not modified   %s\n", age);
		else
			printf(" %-14s %s\n", result_name(ups[i].result), age);
	}
	if (a->fmt == FMT_TABLE)
		printf("\n");
	return failed;
}

static void print_json(const struct price_book *pb, const struct price_offer **rows, int n,
		       const struct price_update *ups, int n_up, int update, double now)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(root, "offers");
	for (int i = 0; i < n; i++) {
		const struct price_offer *r = rows[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "gpu", r->gpu);
		cJSON_AddStringToObject(j, "provider", r->provider);
		cJSON_AddStringToObject(j, "region", r->region);
		cJSON_AddStringToObject(j, "zone", r->zone);
		cJSON_AddStringToObject(j, "instance", r->instance);
		cJSON_AddNumberToObject(j, "gpus", r->gpus);
		cJSON_AddStringToObject(j, "kind", kind(r));
		cJSON_AddNumberToObject(j, "usd_per_gpu_hour", r->usd_per_gpu_h);
		cJSON_AddNumberToObject(j, "usd_per_instance_hour", r->usd_per_instance_h);
		cJSON_AddStringToObject(j, "source_label", r->label);
		if (r->mem_mib_reported > 0)
			cJSON_AddNumberToObject(j, "reported_mib_per_gpu", r->mem_mib_reported);
		cJSON_AddStringToObject(j, "source", pb->src[r->source].name);
		cJSON_AddStringToObject(j, "note", r->note);
		cJSON_AddItemToArray(arr, j);
	}
	cJSON *sa = cJSON_AddArrayToObject(root, "sources");
	for (int i = 0; i < pb->n_src; i++) {
		const struct price_source_info *s = &pb->src[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", s->name);
		cJSON_AddStringToObject(j, "url", s->url);
		cJSON_AddStringToObject(j, "origin", s->origin == PRICE_EMBEDDED ? "embedded"
						     : s->origin == PRICE_CACHE ? "cache" : "live");
		if (s->fetched_at > 0) {
			cJSON_AddNumberToObject(j, "fetched_at", s->fetched_at);
			cJSON_AddNumberToObject(j, "age_s", HP_MAX(0.0, now - s->fetched_at));
		} else {
			cJSON_AddNullToObject(j, "fetched_at");
		}
		cJSON_AddNumberToObject(j, "offers", s->n_offers);
		cJSON_AddNumberToObject(j, "rows_skipped", s->n_skipped);
		cJSON_AddItemToArray(sa, j);
	}
	if (update) {
		cJSON *ua = cJSON_AddArrayToObject(root, "update");
		for (int i = 0; i < n_up; i++) {
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "source", ups[i].source);
			cJSON_AddStringToObject(j, "result", result_name(ups[i].result));
			cJSON_AddStringToObject(j, "message", ups[i].msg);
			cJSON_AddNumberToObject(j, "offers", ups[i].n_offers);
			if (ups[i].data_fetched_at > 0)
				cJSON_AddNumberToObject(j, "data_fetched_at", ups[i].data_fetched_at);
			else
				cJSON_AddNullToObject(j, "data_fetched_at");
			cJSON_AddItemToArray(ua, j);
		}
	}
	cJSON_AddStringToObject(root, "cache_dir", pb->cache_dir);
	char *s = esc_json_print(root);
	printf("%s\n", s);
	free(s);
	cJSON_Delete(root);
}

static void print_csv(const struct price_book *pb, const struct price_offer **rows, int n)
{
	printf("gpu,provider,region,zone,instance,gpus,kind,usd_per_gpu_hour,usd_per_instance_hour,source,note\n");
	for (int i = 0; i < n; i++) {
		const struct price_offer *r = rows[i];
		const char *cells[] = { r->gpu, r->provider, r->region, r->zone, r->instance };
		for (size_t c = 0; c < HP_ARRAY_LEN(cells); c++) {
			cli_print_csv(stdout, cells[c]);
			putchar(',');
		}
		printf("%g,%s,%.6g,%.6g,", r->gpus, kind(r), r->usd_per_gpu_h, r->usd_per_instance_h);
		cli_print_csv(stdout, pb->src[r->source].name);
		putchar(',');
		cli_print_csv(stdout, r->note);
		putchar('\n');
	}
}

/* Terminal columns s takes as the terminal sink shows it (a CJK zone
 * takes two a character, a control byte its escape). */
static int term_cols(const char *s)
{
	struct sbuf b;
	sbuf_init(&b);
	esc_term(&b, s);
	int w = utf8_cols(b.s ? b.s : "");
	sbuf_done(&b);
	return w;
}

/* --all lists every offer, and two of one instance type in one region
 * differ by their zone: a ZONE column as wide as the widest zone shown
 * (the CSV's and JSON's "zone"; "" when the source gives none). 0: no
 * column (the cheapest-offer table, one row per GPU and provider). */
static int zone_cols(const struct price_offer **rows, int n, const struct prices_args *a)
{
	if (!a->all)
		return 0;
	int w = (int)strlen("ZONE");
	for (int i = 0; i < n; i++)
		w = HP_MAX(w, term_cols(rows[i]->zone));
	return w;
}

static void print_table(const struct price_book *pb, const struct price_offer **rows, int n,
			const struct prices_args *a, double now)
{
	int zw = zone_cols(rows, n, a);
	printf("%-15s %-8s %-16s ", "GPU", "PROVIDER", "REGION");
	if (zw)
		printf("%-*s ", zw, "ZONE");
	printf("%-26s %5s %8s %9s  %-9s %s\n", "INSTANCE", "GPUS", "$/GPU-H", "$/INST-H", "KIND",
	       "NOTE");
	for (int i = 0; i < n; i++) {
		const struct price_offer *r = rows[i];
		char g[16];
		snprintf(g, sizeof g, "%g", r->gpus);
		if (r->gpus != floor(r->gpus))
			snprintf(g, sizeof g, "%.2f", r->gpus);
		/* names pad by terminal columns (a CJK region takes two a
		 * character), through the terminal sink like the note */
		cli_print_term(stdout, r->gpu, 15);
		putchar(' ');
		cli_print_term(stdout, r->provider, 8);
		putchar(' ');
		cli_print_term(stdout, r->region, 16);
		putchar(' ');
		if (zw) {
			cli_print_term(stdout, r->zone, zw);
			putchar(' ');
		}
		cli_print_term(stdout, *r->instance ? r->instance : "(GPUs only)", 26);
		/* unit prices in table_rate's words, as the TUI's Prices view */
		char ug[32], ui[32];
		printf(" %5s %8s %9s  %-9s ", g, table_rate(ug, sizeof ug, r->usd_per_gpu_h, 8),
		       table_rate(ui, sizeof ui, r->usd_per_instance_h, 9), kind(r));
		cli_print_term(stdout, r->note, 0);
		putchar('\n');
	}
	if (!n)
		printf("(no offers match)\n");
	printf("\n");
	for (int i = 0; i < pb->n_src; i++) {
		const struct price_source_info *s = &pb->src[i];
		char age[96];
		pricing_describe_age(s, now, age, sizeof age);
		if (s->origin == PRICE_EMBEDDED)
			printf("%-22s %s: public catalog and price-page rows, each citing its source, %d offers%s\n",
			       "embedded", age, s->n_offers,
			       s->n_offers ? "" : " (all replaced by cached data)");
		else {
			cli_print_term(stdout, s->name, 22);
			printf(" %s, %d offers\n", age, s->n_offers);
		}
	}
	if (pb->n_src == 1)
		printf("no cached prices in %s: using the embedded snapshot only "
		       "('hetplan prices --update' fetches current ones)\n", pb->cache_dir);
	if (!a->all)
		printf("cheapest %s offer per GPU type and provider; --all lists every offer\n",
		       a->spot ? "spot" : "on-demand");
}

/* The canonical name of --gpu into gname (feed GPUs first). 0 or -1. */
static int resolve_gpu_flag(const struct price_book *pb, const struct catalog *cat,
			    const char *gpu, char *gname, size_t n, struct hp_err *err)
{
	struct catalog fc = { 0 };
	fc.gpus = pb->gpus;
	fc.n_gpus = pb->n_gpus;
	const struct gpu_spec *g = catalog_gpu(&fc, gpu);
	if (!g)
		g = catalog_gpu(cat, gpu);
	if (!g)
		return catalog_gpu_unknown(cat, gpu, "--gpu", err);
	hp_strlcpy(gname, g->name, n);
	return 0;
}

int cmd_prices(int argc, char **argv, const struct catalog *cat)
{
	struct prices_args a;
	struct price_config cfg;
	struct price_book pb;
	struct hp_err err = { 0 };
	int rc = prices_parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (pricing_config_load(&cfg, a.config, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	if ((rc = http_flags_apply(&a.flags, "prices", &cfg)))
		return rc;
	struct price_update ups[PRICE_MAX_SOURCES];
	int n_up = 0, failed = 0;
	if (a.update && (failed = prices_update(&cfg, cat, &a, ups, &n_up)) < 0)
		return HP_EXIT_USAGE;
	double now = (double)time(NULL);
	if (pricing_load(&pb, &cfg, cat, &err) < 0)
		return cli_fail(&err, HP_EXIT_FAIL);
	if (*pb.warnings)
		fprintf(stderr, "hetplan prices: warning: %s\n", pb.warnings);
	char gname[32] = "";
	if (a.gpu && resolve_gpu_flag(&pb, cat, a.gpu, gname, sizeof gname, &err) < 0) {
		pricing_free(&pb);
		return cli_fail(&err, HP_EXIT_INPUT);
	}
	struct price_filter f = { a.gpu ? gname : NULL, a.provider, a.region, a.spot, a.gpus,
				  a.all };
	const struct price_offer **rows;
	int n = a.all ? pricing_select(&pb, &f, &rows) : pricing_cheapest(&pb, &f, &rows);
	if (a.fmt == FMT_JSON)
		print_json(&pb, rows, n, ups, n_up, a.update, now);
	else if (a.fmt == FMT_CSV)
		print_csv(&pb, rows, n);
	else
		print_table(&pb, rows, n, &a, now);
	free(rows);
	pricing_free(&pb);
	return failed > 0 ? HP_EXIT_FAIL : HP_EXIT_OK;
}
