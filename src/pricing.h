/* pricing.h — the price book: what a GPU-hour costs, where, and says who;
 * and GPU specs over HTTP (json: feeds, `hetplan gpus --update`).
 *
 * The book is merged from three layers:
 *   1. the snapshot compiled into hetplan (data/prices.csv: rows of the
 *      public SkyPilot catalogs of unknown date, and rows from cited price pages);
 *   2. the cache ($XDG_CACHE_HOME/hetplan, else ~/.cache/hetplan): the last
 *      good copy of each source, with its URL, validators and fetch time;
 *   3. live sources, fetched only by pricing_update().
 * A source in the cache replaces the snapshot's rows of the same provider;
 * rows with the same provider, region, zone, instance and kind keep the
 * newest layer's price.
 *
 * Sources (names as the user types them):
 *   skypilot:CLOUD  SkyPilot catalog CSV (schema v8), BASE/CLOUD/vms.csv,
 *                   columns found by header name; aws, gcp, azure, lambda,
 *                   runpod and any other cloud in that layout
 *   azure           Azure Retail Prices API, GPU VM SKUs, all pages
 *   json:URL        hetplan's own feed of prices and GPU specs
 *                   (docs/prices.md)
 * Each is an adapter in src/pricing_<source>.c (see pricing_int.h).
 *
 * Nothing here prints; errors come back in struct hp_err (code: 2 usage,
 * 3 bad input, 1 a failure such as the network). Memory: the caller owns
 * a struct price_book and frees it with pricing_free(); arrays returned by
 * the queries point into the book and are freed with free(). */
#ifndef HP_PRICING_H
#define HP_PRICING_H

#include <stdatomic.h>
#include "catalog.h"
#include "cluster.h"
#include "http.h"

#define PRICE_MAX_SOURCES 16

/* Where `hetplan gpus --update` fetches the GPU catalog by default: the
 * project's own data/gpus.json as published in its repository (assumed
 * at github.com/hetplan/hetplan, branch main; the config key
 * prices.gpus_url and HETPLAN_GPUS_URL override it). */
#define HETPLAN_GPUS_URL "https://raw.githubusercontent.com/hetplan/hetplan/main/data/gpus.json"

/* Offer flags. */
enum {
	PF_NO_DISCOUNT = 1,   /* spot price >= on-demand: no spot discount data */
	PF_GPU_ONLY = 2,      /* GCP accelerator row with no host VM to add */
	PF_COUNT_FIXED = 4,   /* GPU count corrected from the known-SKU table */
};

struct price_offer {
	char provider[24];        /* "aws", "gcp", "azure", "runpod", ... */
	char region[32];
	char zone[32];            /* AZ id, data centre; "" when none */
	char instance[64];
	char gpu[32];             /* canonical GPU name (catalog or feed) */
	char label[32];           /* the GPU as the source spelled it */
	double gpus;              /* GPUs per instance; Azure has fractions */
	int spot;                 /* 0 on-demand, 1 spot/preemptible */
	double usd_per_gpu_h;
	double usd_per_instance_h;
	double mem_mib_reported;  /* per GPU, from GpuInfo, units fixed; 0 = none */
	unsigned flags;           /* PF_* */
	int source;               /* index into price_book.src */
	char note[80];
};

enum price_origin { PRICE_EMBEDDED, PRICE_CACHE, PRICE_LIVE };

struct price_source_info {
	char name[160];           /* "skypilot:aws", "azure", "json:URL", "embedded" */
	char url[512];
	enum price_origin origin;
	double fetched_at;        /* Unix time of the last 200; 0 for the snapshot */
	double checked_at;        /* last time the server confirmed it (200 or 304) */
	int n_offers;             /* rows kept */
	int n_skipped;            /* rows dropped: no GPU, no price, unknown GPU, ... */
};

struct price_book {
	struct price_offer *offers;
	int n, cap;
	struct price_source_info src[PRICE_MAX_SOURCES + 1];
	int n_src;
	struct gpu_spec *gpus;    /* GPU specs from json feeds */
	int n_gpus;
	char warnings[1024];      /* unreadable cache files etc.; "" if none */
	char cache_dir[512];
};

struct price_config {
	char cache_dir[512];      /* "" = $XDG_CACHE_HOME/hetplan or ~/.cache/hetplan */
	char skypilot_url[512];   /* base holding CLOUD/vms.csv */
	char azure_url[512];      /* Retail Prices endpoint */
	char gpus_url[512];       /* GPU catalog for `hetplan gpus --update` */
	char sources[PRICE_MAX_SOURCES][512];  /* what --update fetches by default */
	int n_sources;
	int max_parallel;         /* transfers at once; default 4 */
	struct http_opts http;
	char config_file[512];    /* the file read, "" if none */
};

/* Fill cfg: defaults, then the config file ($XDG_CONFIG_HOME/hetplan/config.json, key
 * "prices"; config_file overrides the path when not NULL), then the
 * environment: HETPLAN_SKYPILOT_URL, HETPLAN_AZURE_URL,
 * HETPLAN_PRICES_CACHE, HETPLAN_HTTP_TIMEOUT, HETPLAN_HTTP_MAX_BYTES,
 * HETPLAN_HTTP_RETRY_MAX, HETPLAN_GPUS_URL. Flags are applied by the
 * caller afterwards. Returns 0, or -1 with err (HP_EXIT_INPUT) naming the
 * file and key or the variable on a malformed config file or env value;
 * a missing default config file is fine. cfg holds no heap memory. */
int pricing_config_load(struct price_config *cfg, const char *config_file,
			struct hp_err *err);
/* The directory the cache lives in (cfg->cache_dir, else
 * $XDG_CACHE_HOME/hetplan, else ~/.cache/hetplan, else .hetplan-cache),
 * into buf (truncated to n). cfg may be NULL. Never fails. */
void pricing_cache_dir(const struct price_config *cfg, char *buf, size_t n);

/* Apply one command-line flag to cfg: "timeout" (seconds, 0.1 to 3600:
 * connect timeout and stall window, the whole transfer capped at 15 times
 * that and at least a minute), "max-bytes" (1K to 16G), "retry-wait"
 * (seconds), "cache-dir", "skypilot-url", "azure-url", "gpus-url"
 * (http(s) URLs). Returns 0, or -1 with *want set to a static description
 * of what the flag expects (for the usage message). */
int pricing_config_flag(struct price_config *cfg, const char *flag, const char *value,
			const char **want);

/* Check a source name ("skypilot:aws", "azure", "json:https://...").
 * Returns 0, or -1 with err (HP_EXIT_USAGE) saying what is expected. */
int pricing_source_valid(const char *name, struct hp_err *err);

/* Load the snapshot and every cached source into pb (no network; pb is
 * overwritten, free it with pricing_free() whatever this returns). A cache
 * file that cannot be read is skipped and named in pb->warnings; returns
 * 0, or -1 with err only on a broken snapshot. */
int pricing_load(struct price_book *pb, const struct price_config *cfg,
		 const struct catalog *cat, struct hp_err *err);
/* Only the compiled-in snapshot (tests, --no-cache); as pricing_load. */
int pricing_load_embedded(struct price_book *pb, const struct catalog *cat,
			  struct hp_err *err);
/* Free what the book holds and zero it; a zeroed book is fine. */
void pricing_free(struct price_book *pb);

/* --- updating ----------------------------------------------------------- */

enum price_result { PRICE_FETCHED, PRICE_NOT_MODIFIED, PRICE_FAILED, PRICE_CANCELLED };

struct price_update {
	char source[160];
	enum price_result result;
	int n_offers;             /* rows kept from the new data (FETCHED) */
	int n_gpus;               /* GPU specs in the new data (FETCHED) */
	double data_fetched_at;   /* age of the data now in use; 0 = none cached */
	char msg[512];            /* why it failed, or a note ("3 pages") */
};

struct price_progress {
	const char *source;       /* which source is moving */
	double now_bytes, total_bytes;   /* total 0 = unknown */
	int page;                 /* Azure: page being read (1-based); else 0 */
	int done, of;             /* sources finished so far, and in all */
};
/* Called from worker threads, one call at a time (under a lock: keep it
 * short and do not call back into pricing). Non-zero cancels all. */
typedef int (*pricing_progress_fn)(void *ud, const struct price_progress *p);

/* Fetch sources (n == 0: cfg->sources) with at most cfg->max_parallel at
 * once, each with a conditional GET against its cache entry. New data is
 * parsed and checked before the cache entry is replaced (atomically); on
 * any failure the old entry stays byte for byte. Blocking; safe to call
 * from one worker thread while another thread sets *cancel. out[i]
 * describes sources[i]. Returns the number of failed sources (0 = all
 * fine), or -1 with err on a usage problem (bad source name, no cache
 * directory). cancel may be NULL; it is only read (atomic_load), so the
 * caller sets it with atomic_store from any thread and every transfer
 * stops within one progress tick. Reload the book with pricing_load()
 * afterwards. out must have room for n (or cfg->n_sources) entries. */
int pricing_update(const struct price_config *cfg, const struct catalog *cat,
		   const char *const *sources, int n, pricing_progress_fn fn, void *ud,
		   atomic_int *cancel, struct price_update *out, struct hp_err *err);

/* --- parsers (exposed for tests) ---------------------------------------- */

/* The parsers add to pb under source index src and return 0, or -1 with
 * err (HP_EXIT_INPUT, naming `what` and the record or JSON path) leaving
 * pb's offers as they were. cat resolves GPU names (may be NULL: feed
 * GPUs only). */

/* Add the rows of a SkyPilot CSV. cloud: provider when the CSV has no
 * "Cloud" column. Fails on a CSV error or a header without the needed
 * columns; rows of unknown GPUs or without a price are skipped (counted
 * in pb->src[src].n_skipped). */
int pricing_parse_skypilot(struct price_book *pb, int src, const char *cloud,
			   const char *text, size_t len, const struct catalog *cat,
			   const char *what, struct hp_err *err);
/* Add hetplan's JSON feed (offers and/or gpus; GPU specs go to pb->gpus).
 * Any bad field fails the whole document. */
int pricing_parse_feed(struct price_book *pb, int src, const char *text, size_t len,
		       const struct catalog *cat, const char *what, struct hp_err *err);
/* One Azure Retail Prices page: adds its GPU VM rows; *count gets Count,
 * next gets NextPageLink ("" when empty; *next_null 1 when null/absent). */
int pricing_parse_azure_page(struct price_book *pb, int src, const char *text,
			     size_t len, const struct catalog *cat, const char *what,
			     int *count, char *next, size_t next_size, int *next_null,
			     struct hp_err *err);
/* A GPU catalog file (`hetplan gpus --update`): its specs go to pb->gpus.
 * Fails on a malformed document, a schema other than 1, a missing "gpus"
 * array or any GPU entry the catalog format refuses (pb->gpus then holds
 * what it held before, bar replaced names). */
int pricing_parse_gpus(struct price_book *pb, const char *text, size_t len, const char *what,
		       struct hp_err *err);
/* Add a source entry; returns its index, or -1 when the book already holds
 * PRICE_MAX_SOURCES + 1 sources (the embedded one and 16 more). */
int pricing_add_source(struct price_book *pb, const char *name, const char *url,
		       enum price_origin origin, double fetched_at);
/* Drop duplicates (newest layer wins), flag spot rows without a
 * discount, and sort by GPU, price. Never fails. */
void pricing_finish(struct price_book *pb);

/* --- queries ------------------------------------------------------------ */

struct price_filter {
	const char *gpu;          /* canonical name, NULL = any */
	const char *provider;     /* NULL = any */
	const char *region;       /* NULL = any; also matches the zone */
	int spot;                 /* 0 on-demand, 1 spot, -1 both */
	int gpus;                 /* instance size; 0 = any */
	int with_gpu_only;        /* include PF_GPU_ONLY rows */
};

/* Offers passing f, in book order (GPU, then $/GPU-h): returns the count,
 * *out a heap array of pointers into pb (caller frees the array, never
 * the offers; valid until pb changes). Never fails. */
int pricing_select(const struct price_book *pb, const struct price_filter *f,
		   const struct price_offer ***out);
/* The cheapest offer per (GPU, provider) among those passing f; as
 * pricing_select. */
int pricing_cheapest(const struct price_book *pb, const struct price_filter *f,
		     const struct price_offer ***out);
/* The offer a pool would be priced from: cheapest $/GPU-h for gpu with
 * the given provider/region/spot (NULL/"" = any); instances with exactly
 * gpus_per_node GPUs are preferred, else any size. A pointer into pb, or
 * NULL if none. */
const struct price_offer *pricing_for_pool(const struct price_book *pb, const char *gpu,
					   int gpus_per_node, const char *provider,
					   const char *region, int spot);

/* As pricing_for_pool, for a pool of the machine type machine (NULL or
 * "": none; cluster_pool_machine): an offer of exactly that instance
 * (cheapest $/GPU-h among them) comes first; when the book has none, the
 * pricing_for_pool choice, and *fell_back (may be NULL) is set to 1 (else
 * 0) so that the caller says so. A pointer into pb, or NULL if none. */
const struct price_offer *pricing_for_machine(const struct price_book *pb, const char *gpu,
					      int gpus_per_node, const char *provider,
					      const char *region, int spot, const char *machine,
					      int *fell_back);

/* Price every pool whose price was not set explicitly (pool.price_set):
 * usd_per_node_h = offer $/GPU-h x gpus_per_node, price_source names the
 * offer and its source ("gcp a3-megagpu-8g us-central1 on-demand; embedded
 * snapshot"). A pool of a machine type (cluster_pool_machine) is priced
 * from that instance's offer; without one, from pricing_for_pool's, and
 * the text says "(fallback: no a3-megagpu-8g offer)" before the ';'.
 * Pools with no matching offer keep what they had (the catalog reference
 * or nothing). Returns the number of pools priced. */
int pricing_apply(const struct price_book *pb, struct cluster *c);

/* A short description of a source's freshness into buf: "embedded
 * snapshot", "cached 2026-11-30 09:12 UTC (3.2 h old)". Never fails. */
void pricing_describe_age(const struct price_source_info *s, double now,
			  char *buf, size_t n);

/* An age in words: "40 s", "12 min", "3.2 h", "4.0 d". */
void pricing_fmt_age(double seconds, char *buf, size_t n);

/* --- GPU specs over HTTP (pricing_gpus.c) -------------------------------- */

/* The GPU specs of pb (json feeds) join cat: a name or alias cat already
 * knows is replaced, a new one appended (cat's arrays grow; catalog_done
 * frees them). Never fails. */
void pricing_extend_catalog(const struct price_book *pb, struct catalog *cat);

/* GPU specs from the cache join cat, without the network: the catalog
 * fetched by `hetplan gpus --update`, then the "gpus" of every cached
 * json: feed (by file name). A GPU the user's own
 * $XDG_CONFIG_HOME/hetplan/gpus.json defines is never replaced. Returns
 * the number of specs added or replaced. A cache file that cannot be read
 * is skipped and named in warn (n bytes, "" when none; may be NULL with
 * n 0). Call it once, right after catalog_load. */
int pricing_catalog_extend(struct catalog *cat, const struct price_config *cfg, char *warn,
			   size_t n);

/* Fetch a GPU catalog file (the user-catalog format of data/gpus.json)
 * from url (NULL or "": cfg->gpus_url) into the cache, as pricing_update
 * does for one source: conditional GET, size cap, timeouts, retry,
 * checked before it replaces the cached copy atomically. out->source gets
 * the URL, out->n_gpus the specs in it. Returns 0 when fetched or not
 * modified, 1 when it failed (out->msg says why; the old copy stays), -1
 * with err on a usage problem (bad URL, no cache directory). */
int pricing_gpus_update(const struct price_config *cfg, const struct catalog *cat,
			const char *url, pricing_progress_fn fn, void *ud, atomic_int *cancel,
			struct price_update *out, struct hp_err *err);

/* The cached GPU catalog: 0 with info (url, fetched_at, n_offers = the
 * number of GPUs) and, when gpus is not NULL, a heap copy of its specs in
 * *gpus / *n (caller frees); 1 when nothing is cached; -1 with err when
 * the file is unreadable or damaged. */
int pricing_gpus_cached(const struct price_config *cfg, struct price_source_info *info,
			struct gpu_spec **gpus, int *n, struct hp_err *err);

#endif
