/* pricing.h — the price book: what a GPU-hour costs, where, and says who.
 *
 * The book is merged from three layers:
 *   1. the snapshot compiled into hetplan (data/prices.csv: rows of the
 *      public SkyPilot catalogs, of unknown date);
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
 *   json:URL        hetplan's own feed of prices and GPU specs (README)
 *
 * Nothing here prints; errors come back in struct hp_err. */
#ifndef HP_PRICING_H
#define HP_PRICING_H

#include <stdatomic.h>
#include "catalog.h"
#include "cluster.h"
#include "http.h"

#define PRICE_MAX_SOURCES 16

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
	char sources[PRICE_MAX_SOURCES][512];  /* what --update fetches by default */
	int n_sources;
	int max_parallel;         /* transfers at once; default 4 */
	struct http_opts http;
	char config_file[512];    /* the file read, "" if none */
};

/* Defaults, then the config file ($XDG_CONFIG_HOME/hetplan/config.json, key
 * "prices"; config_file overrides the path when not NULL), then the
 * environment: HETPLAN_SKYPILOT_URL, HETPLAN_AZURE_URL,
 * HETPLAN_PRICES_CACHE, HETPLAN_HTTP_TIMEOUT, HETPLAN_HTTP_MAX_BYTES,
 * HETPLAN_HTTP_RETRY_MAX. Flags are applied by the caller afterwards.
 * Fails (HP_EXIT_INPUT) on a malformed config file or env value. */
int pricing_config_load(struct price_config *cfg, const char *config_file,
			struct hp_err *err);
/* The directory the cache lives in (cfg->cache_dir or the default). */
void pricing_cache_dir(const struct price_config *cfg, char *buf, size_t n);

/* Check a source name ("skypilot:aws", "azure", "json:https://..."). */
int pricing_source_valid(const char *name, struct hp_err *err);

/* Load the snapshot and every cached source (no network). A cache file
 * that cannot be read is skipped and named in pb->warnings; the call fails
 * only on a broken snapshot. */
int pricing_load(struct price_book *pb, const struct price_config *cfg,
		 const struct catalog *cat, struct hp_err *err);
/* Only the compiled-in snapshot (tests, --no-cache). */
int pricing_load_embedded(struct price_book *pb, const struct catalog *cat,
			  struct hp_err *err);
void pricing_free(struct price_book *pb);

/* --- updating ----------------------------------------------------------- */

enum price_result { PRICE_FETCHED, PRICE_NOT_MODIFIED, PRICE_FAILED, PRICE_CANCELLED };

struct price_update {
	char source[160];
	enum price_result result;
	int n_offers;             /* rows kept from the new data (FETCHED) */
	double data_fetched_at;   /* age of the data now in use; 0 = none cached */
	char msg[512];            /* why it failed, or a note ("3 pages") */
};

struct price_progress {
	const char *source;       /* which source is moving */
	double now_bytes, total_bytes;   /* total 0 = unknown */
	int page;                 /* Azure: page being read (1-based); else 0 */
	int done, of;             /* sources finished so far, and in all */
};
/* Called from worker threads, one call at a time. Non-zero cancels all. */
typedef int (*pricing_progress_fn)(void *ud, const struct price_progress *p);

/* Fetch sources (n == 0: cfg->sources) with at most cfg->max_parallel at
 * once, each with a conditional GET against its cache entry. New data is
 * parsed and checked before the cache entry is replaced (atomically); on
 * any failure the old entry stays byte for byte. Blocking; safe to call
 * from one worker thread while another thread sets *cancel. out[i]
 * describes sources[i]. Returns the number of failed sources (0 = all
 * fine), or -1 with err on a usage problem (bad source name, no cache
 * directory). Reload the book with pricing_load() afterwards. */
int pricing_update(const struct price_config *cfg, const struct catalog *cat,
		   const char *const *sources, int n, pricing_progress_fn fn, void *ud,
		   atomic_int *cancel, struct price_update *out, struct hp_err *err);

/* --- parsers (exposed for tests) ---------------------------------------- */

/* Add the rows of a SkyPilot CSV. cloud: provider when the CSV has no
 * "Cloud" column. what names the source in messages. Fails with
 * HP_EXIT_INPUT on a CSV error or a header without the needed columns. */
int pricing_parse_skypilot(struct price_book *pb, int src, const char *cloud,
			   const char *text, size_t len, const struct catalog *cat,
			   const char *what, struct hp_err *err);
/* Add hetplan's JSON feed (offers and/or gpus). */
int pricing_parse_feed(struct price_book *pb, int src, const char *text, size_t len,
		       const struct catalog *cat, const char *what, struct hp_err *err);
/* One Azure Retail Prices page: adds its GPU VM rows; *count gets Count,
 * next gets NextPageLink ("" when empty; *next_null 1 when null/absent). */
int pricing_parse_azure_page(struct price_book *pb, int src, const char *text,
			     size_t len, const struct catalog *cat, const char *what,
			     int *count, char *next, size_t next_size, int *next_null,
			     struct hp_err *err);
/* Add a source entry; returns its index, or -1 when the book already holds
 * PRICE_MAX_SOURCES + 1 sources (the embedded one and 16 more). */
int pricing_add_source(struct price_book *pb, const char *name, const char *url,
		       enum price_origin origin, double fetched_at);
/* Drop duplicates (newest layer wins) and sort by GPU, price. */
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

/* Offers passing f, in book order (GPU, then $/GPU-h). Caller frees. */
int pricing_select(const struct price_book *pb, const struct price_filter *f,
		   const struct price_offer ***out);
/* The cheapest offer per (GPU, provider) among those passing f. */
int pricing_cheapest(const struct price_book *pb, const struct price_filter *f,
		     const struct price_offer ***out);
/* The offer a pool would be priced from: cheapest $/GPU-h for gpu with
 * the given provider/region/spot (NULL/"" = any); instances with exactly
 * gpus_per_node GPUs are preferred, else any size. NULL if none. */
const struct price_offer *pricing_for_pool(const struct price_book *pb, const char *gpu,
					   int gpus_per_node, const char *provider,
					   const char *region, int spot);

/* Price every pool whose price was not set explicitly (pool.price_set):
 * usd_per_node_h = offer $/GPU-h x gpus_per_node, price_source names the
 * offer and its source. Pools with no matching offer keep what they had
 * (the catalog reference or nothing). Returns the number of pools priced. */
int pricing_apply(const struct price_book *pb, struct cluster *c);

/* A short description of a source's freshness: "embedded snapshot",
 * "cached 2026-11-30 09:12 UTC (3.2 h old)". */
void pricing_describe_age(const struct price_source_info *s, double now,
			  char *buf, size_t n);

/* An age in words: "40 s", "12 min", "3.2 h", "4.0 d". */
void pricing_fmt_age(double seconds, char *buf, size_t n);

/* GPU specs from json feeds join the catalog (same name: replaced). */
void pricing_extend_catalog(const struct price_book *pb, struct catalog *cat);

#endif
