/* cmd_prices.c — `hetplan prices`: the price book, and updating it. */
#include "cli.h"
#include "escape.h"
#include "jsonx.h"
#include "pricing.h"

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
	"         [--region R] [--spot] [--all] [--format table|json|csv]\n";

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
	"      --all              every offer, not just the cheapest per GPU and provider\n"
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
	if (p->now_bytes <= 0 && p->total_bytes <= 0)
		fprintf(stderr, "\r\033[K  %d/%d  %.60s%s", p->done, p->of, p->source, page);
	else if (p->total_bytes > 0)
		fprintf(stderr, "\r\033[K  %d/%d  %.60s%s  %s of %s", p->done, p->of, p->source, page,
			a, hp_fmt_bytes(b, sizeof b, p->total_bytes));
	else
		fprintf(stderr, "\r\033[K  %d/%d  %.60s%s  %s", p->done, p->of, p->source, page, a);
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

static void csv_str(const char *s)
{
	if (strpbrk(s, ",\"\n")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
}

int cmd_prices(int argc, char **argv, const struct catalog *cat)
{
	struct price_config cfg;
	struct price_book pb;
	struct hp_err err = { 0 };
	const char *sources[PRICE_MAX_SOURCES];
	int n_src = 0, update = 0, spot = 0, all = 0, gpus = 0, o;
	const char *gpu = NULL, *provider = NULL, *region = NULL, *config = NULL;
	const char *timeout = NULL, *maxb = NULL, *retry = NULL, *cache = NULL;
	const char *sky = NULL, *az = NULL;
	enum cli_format fmt = FMT_TABLE;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", prices_opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			cli_usage(stdout, cmd_prices_usage, prices_help);
			return 0;
		case O_UPDATE: update = 1; break;
		case O_SOURCE:
			if (pricing_source_valid(optarg, &err) < 0) {
				fprintf(stderr, "hetplan prices: --source: %s\n", err.msg);
				return HP_EXIT_USAGE;
			}
			if (n_src == PRICE_MAX_SOURCES) {
				fprintf(stderr, "hetplan prices: --source: at most %d sources\n",
					PRICE_MAX_SOURCES);
				return HP_EXIT_USAGE;
			}
			sources[n_src++] = optarg;
			break;
		case O_GPU: gpu = optarg; break;
		case O_PROVIDER: provider = optarg; break;
		case O_REGION: region = optarg; break;
		case O_SPOT: spot = 1; break;
		case O_ALL: all = 1; break;
		case O_GPUS:
			if (hp_parse_int(optarg, &gpus))
				return usage_error("prices", "gpus", "a positive integer", optarg);
			break;
		case O_FORMAT:
			if (cli_parse_format(optarg, &fmt, 7))
				return usage_error("prices", "format", "table, json or csv", optarg);
			break;
		case O_TIMEOUT: timeout = optarg; break;
		case O_MAXB: maxb = optarg; break;
		case O_RETRY: retry = optarg; break;
		case O_CACHE: cache = optarg; break;
		case O_SKY: sky = optarg; break;
		case O_AZ: az = optarg; break;
		case O_CONFIG: config = optarg; break;
		case ':':
			fprintf(stderr, "hetplan prices: %s: missing value\n", argv[optind - 1]);
			return HP_EXIT_USAGE;
		default:
			fprintf(stderr, "hetplan prices: unknown option '%s' (try --help)\n",
				argv[optind - 1]);
			return HP_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hetplan prices: unexpected argument '%s'\n", argv[optind]);
		return HP_EXIT_USAGE;
	}
	if (n_src && !update) {
		fprintf(stderr, "hetplan prices: --source needs --update\n");
		return HP_EXIT_USAGE;
	}
	if (pricing_config_load(&cfg, config, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	double v;
	if (timeout) {
		if (hp_parse_duration(timeout, &v) && (hp_parse_quantity(timeout, &v) || v <= 0))
			return usage_error("prices", "timeout", "seconds like 20 or 1.5", timeout);
		if (v < 0.1 || v > 3600)
			return usage_error("prices", "timeout", "0.1 to 3600 seconds", timeout);
		cfg.http.connect_timeout_ms = (long)(v * 1000);
		cfg.http.low_speed_s = HP_MAX(1L, (long)ceil(v));
		cfg.http.timeout_ms = (long)(HP_MAX(60.0, 15 * v) * 1000);
	}
	if (maxb) {
		if (hp_parse_bytes(maxb, &v) || v < 1024 || v > 16e9)
			return usage_error("prices", "max-bytes", "a size from 1K to 16G like 64M", maxb);
		cfg.http.max_bytes = v;
	}
	if (retry) {
		if (hp_parse_duration(retry, &v) && strcmp(retry, "0"))
			return usage_error("prices", "retry-wait", "seconds like 5", retry);
		cfg.http.retry_wait_max_s = strcmp(retry, "0") ? v : 0;
	}
	if (cache)
		hp_strlcpy(cfg.cache_dir, cache, sizeof cfg.cache_dir);
	if (sky) {
		if (strncmp(sky, "http://", 7) && strncmp(sky, "https://", 8))
			return usage_error("prices", "skypilot-url", "an http(s):// URL", sky);
		hp_strlcpy(cfg.skypilot_url, sky, sizeof cfg.skypilot_url);
	}
	if (az) {
		if (strncmp(az, "http://", 7) && strncmp(az, "https://", 8))
			return usage_error("prices", "azure-url", "an http(s):// URL", az);
		hp_strlcpy(cfg.azure_url, az, sizeof cfg.azure_url);
	}

	struct price_update ups[PRICE_MAX_SOURCES];
	int n_up = 0, failed = 0;
	double now = (double)time(NULL);
	if (update) {
		struct progress_line pl = { isatty(2), 0 };
		n_up = n_src ? n_src : cfg.n_sources;
		failed = pricing_update(&cfg, cat, n_src ? sources : NULL, n_src,
					pl.on ? show_progress : NULL, &pl, NULL, ups, &err);
		if (pl.on)
			fprintf(stderr, "\r\033[K");
		if (failed < 0)
			return cli_fail(&err, HP_EXIT_USAGE);
		now = (double)time(NULL);
		for (int i = 0; i < n_up; i++) {
			char age[96];
			age_text(ups[i].data_fetched_at, now, age, sizeof age);
			/* Failures go to stderr in every format; successes are
			 * part of the table report. */
			if (ups[i].result == PRICE_FAILED || ups[i].result == PRICE_CANCELLED)
				fprintf(stderr, "hetplan prices: %s failed: %s; %s\n", ups[i].source,
					ups[i].msg, ups[i].data_fetched_at > 0
							    ? "keeping the cached copy" : "nothing cached");
			if (fmt != FMT_TABLE)
				continue;
			if (ups[i].result == PRICE_FETCHED)
				printf("%-22s fetched        %d offers, %s%s%s\n", ups[i].source,
				       ups[i].n_offers, age, *ups[i].msg ? "; " : "", ups[i].msg);
			else if (ups[i].result == PRICE_NOT_MODIFIED)
				printf("%-22s not modified   %s\n", ups[i].source, age);
			else
				printf("%-22s %-14s %s\n", ups[i].source, result_name(ups[i].result),
				       age);
		}
		if (fmt == FMT_TABLE)
			printf("\n");
	}

	if (pricing_load(&pb, &cfg, cat, &err) < 0)
		return cli_fail(&err, HP_EXIT_FAIL);
	if (*pb.warnings)
		fprintf(stderr, "hetplan prices: warning: %s\n", pb.warnings);
	char gname[32] = "";
	if (gpu) {
		struct catalog fc = { 0 };
		fc.gpus = pb.gpus;
		fc.n_gpus = pb.n_gpus;
		const struct gpu_spec *g = catalog_gpu(&fc, gpu);
		if (!g)
			g = catalog_gpu(cat, gpu);
		if (!g) {
			catalog_gpu_unknown(cat, gpu, "--gpu", &err);
			pricing_free(&pb);
			return cli_fail(&err, HP_EXIT_INPUT);
		}
		hp_strlcpy(gname, g->name, sizeof gname);
	}
	struct price_filter f = { gpu ? gname : NULL, provider, region, spot, gpus, all };
	const struct price_offer **rows;
	int n = all ? pricing_select(&pb, &f, &rows) : pricing_cheapest(&pb, &f, &rows);
	int only_embedded = pb.n_src == 1;

	if (fmt == FMT_JSON) {
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
			cJSON_AddStringToObject(j, "source", pb.src[r->source].name);
			cJSON_AddStringToObject(j, "note", r->note);
			cJSON_AddItemToArray(arr, j);
		}
		cJSON *sa = cJSON_AddArrayToObject(root, "sources");
		for (int i = 0; i < pb.n_src; i++) {
			const struct price_source_info *s = &pb.src[i];
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
		cJSON_AddStringToObject(root, "cache_dir", pb.cache_dir);
		char *s = esc_json_print(root);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(root);
	} else if (fmt == FMT_CSV) {
		printf("gpu,provider,region,zone,instance,gpus,kind,usd_per_gpu_hour,usd_per_instance_hour,source,note\n");
		for (int i = 0; i < n; i++) {
			const struct price_offer *r = rows[i];
			printf("%s,%s,", r->gpu, r->provider);
			csv_str(r->region);
			putchar(',');
			csv_str(r->zone);
			putchar(',');
			csv_str(r->instance);
			printf(",%g,%s,%.6g,%.6g,", r->gpus, kind(r), r->usd_per_gpu_h,
			       r->usd_per_instance_h);
			csv_str(pb.src[r->source].name);
			putchar(',');
			csv_str(r->note);
			putchar('\n');
		}
	} else {
		printf("%-15s %-8s %-16s %-26s %5s %8s %9s  %-9s %s\n", "GPU", "PROVIDER", "REGION",
		       "INSTANCE", "GPUS", "$/GPU-H", "$/INST-H", "KIND", "NOTE");
		for (int i = 0; i < n; i++) {
			const struct price_offer *r = rows[i];
			char g[16];
			snprintf(g, sizeof g, "%g", r->gpus);
			if (r->gpus != floor(r->gpus))
				snprintf(g, sizeof g, "%.2f", r->gpus);
			printf("%-15s %-8s %-16s %-26s %5s %8.3f %9.3f  %-9s %s\n", r->gpu, r->provider,
			       r->region, *r->instance ? r->instance : "(GPUs only)", g,
			       r->usd_per_gpu_h, r->usd_per_instance_h, kind(r), r->note);
		}
		if (!n)
			printf("(no offers match)\n");
		printf("\n");
		for (int i = 0; i < pb.n_src; i++) {
			const struct price_source_info *s = &pb.src[i];
			char age[96];
			pricing_describe_age(s, now, age, sizeof age);
			if (s->origin == PRICE_EMBEDDED)
				printf("%-22s %s: SkyPilot catalog rows of unknown date, %d offers%s\n",
				       "embedded", age, s->n_offers,
				       s->n_offers ? "" : " (all replaced by cached data)");
			else
				printf("%-22s %s, %d offers\n", s->name, age, s->n_offers);
		}
		if (only_embedded)
			printf("no cached prices in %s: using the embedded snapshot only "
			       "('hetplan prices --update' fetches current ones)\n", pb.cache_dir);
		if (!all)
			printf("cheapest %s offer per GPU type and provider; --all lists every offer\n",
			       spot ? "spot" : "on-demand");
	}
	free(rows);
	pricing_free(&pb);
	return failed > 0 ? HP_EXIT_FAIL : HP_EXIT_OK;
}
