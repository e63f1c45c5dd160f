/* pricing_int.h — what the price book's files share, and nothing outside
 * src/pricing*.c includes. Each price source is one adapter, a struct
 * price_source in the table of pricing.c:
 *
 *   pricing.c           the book (offers, GPU resolution, finishing,
 *                       queries, pricing pools) and the adapter table
 *   pricing_skus.c      the instance families and labels, as tables
 *   pricing_skypilot.c  skypilot:CLOUD — SkyPilot catalog CSV
 *   pricing_azure.c     azure — the Azure Retail Prices API, paged
 *   pricing_feed.c      json:URL — hetplan's own feed of prices and GPUs
 *   pricing_gpus.c      the GPU catalog file (`hetplan gpus --update`) and
 *                       GPU specs from caches joining the catalog
 *   pricing_cache.c     the cache files and loading the book from them
 *   pricing_fetch.c     configuration, and updating sources in parallel
 *
 * Adding a source is one adapter and one table row; nothing else
 * dispatches on source names. */
#ifndef HP_PRICING_INT_H
#define HP_PRICING_INT_H

#include "pricing.h"
#include "utf8.h"

/* Prices outside these bounds are placeholders or errors, not offers:
 * GCP's catalog writes 700.0 for "unavailable"; no GPU rents for more
 * than $25/h; under 5 cents a GPU-hour is a rounding artefact of a
 * fractional GPU, not an offer. */
#define SENTINEL_USD_PER_INSTANCE_H 500.0
#define MIN_USD_PER_GPU_H 0.05
#define MAX_USD_PER_GPU_H 25.0

/* One source being updated; what an adapter's fetch sees (pricing_fetch.c
 * owns the rest of the job). */
struct price_fetch {
	const struct price_config *cfg;
	const struct catalog *cat;
	const char *source;       /* the full name: "azure", "json:https://..." */
	int page;                 /* page being read (progress); 0 = one-shot */
	int pages;                /* pages read, for the result line */
	char note[256];           /* how the fetch went, for the result line */
	void *job;                /* pricing_fetch.c's job; opaque here */
};

struct price_source {
	const char *prefix;       /* "skypilot:", "azure", "json:", "gpus:" */
	int whole;                /* 1: the name is exactly the prefix */
	int user;                 /* 1: a --source name for `prices --update` */
	const char *cache_format; /* what a cache file of it holds */
	int layer;                /* book order of cached copies: higher wins */
	/* Check the part after the prefix; 0 ok, else err (HP_EXIT_USAGE). */
	int (*arg_ok)(const char *name, const char *arg, struct hp_err *err);
	/* The URL fetched for arg (heap; caller frees). */
	char *(*url)(const struct price_config *cfg, const char *arg);
	/* The cache file name (no directory) for the full name. */
	void (*cache_file)(const char *name, char *buf, size_t n);
	/* NULL: one conditional GET of url(). Else builds the body to cache
	 * itself (heap, *body; caller frees); 0 or -1 with err. */
	int (*fetch)(struct price_fetch *f, char **body, size_t *len, struct hp_err *err);
	/* Parse a body in cache_format into pb under source src; 0 or -1 with
	 * err (HP_EXIT_INPUT), pb unchanged on failure. */
	int (*parse)(struct price_book *pb, int src, const char *arg, const char *body,
		     size_t len, const struct catalog *cat, const char *what,
		     struct hp_err *err);
};

/* The adapter a name belongs to (*arg gets the part after the prefix), or
 * NULL. Never fails otherwise. */
const struct price_source *price_source_find(const char *name, const char **arg);
/* The adapter whose cache file names start with "prices-KEY" for the
 * given file name, for layer ordering; NULL when none. */
const struct price_source *price_source_for_file(const char *file);

extern const struct price_source price_source_skypilot, price_source_azure,
	price_source_feed, price_source_gpus;

/* --- the book (pricing.c) ------------------------------------------------ */

/* A whole field as a finite number in the C locale: 0, or -1. */
int pricing_num(const char *s, double *out);
/* A price field: empty, zero, negative, unparsable or a sentinel is -1. */
double pricing_price(const char *s);
/* Append o (text scrubbed of control characters); counts it to its source. */
void pricing_add_offer(struct price_book *pb, const struct price_offer *o);
void pricing_skipped(struct price_book *pb, int src);
void pricing_warn(struct price_book *pb, const char *msg);
/* Drop the offers added since n0 (a parse that failed half way). */
void pricing_rollback(struct price_book *pb, int n0);
/* A GPU name in the book's feed specs, then the catalog; NULL if unknown. */
const struct gpu_spec *pricing_lookup_gpu(const struct price_book *pb,
					  const struct catalog *cat, const char *name);
/* Resolve o's GPU (SKU table, labels, names) into o->gpu and o->gpus.
 * 0, or -1 when the row names no GPU hetplan knows. */
int pricing_resolve_gpu(const struct price_book *pb, const struct catalog *cat,
			struct price_offer *o, double src_count);
/* Add the on-demand (od) and spot offers of one priced row; rows with no
 * known GPU or no usable price are counted as skipped. */
void pricing_emit(struct price_book *pb, const struct catalog *cat, struct price_offer *o,
		  double src_count, double od, double spot);
/* Add or replace a GPU spec of the book (names and text scrubbed). */
void pricing_add_gpu(struct price_book *pb, const struct gpu_spec *g);
void pricing_lower(char *s);
/* arg_ok and url of the sources named by a URL (json:URL, gpus:URL): an
 * http(s) URL, the whole name under 500 bytes; fetched as it is. */
int pricing_url_arg_ok(const char *name, const char *arg, struct hp_err *err);
char *pricing_url_arg(const struct price_config *cfg, const char *arg);
/* 1 for an http:// or https:// URL of printable UTF-8 without spaces. */
int pricing_url_ok(const char *u);
/* "2026-11-30 09:12 UTC" */
void pricing_fmt_day(double t, char *buf, size_t n);

/* --- the SKU tables (pricing_skus.c) ------------------------------------- */

struct price_sku {
	const char *provider;
	char mode;              /* '=' whole name, '^' prefix, '*' substring */
	const char *inst;
	const char *gpu;
	double gpus;            /* 0: keep the row's count */
};
/* The row matching an instance of a provider, or NULL. */
const struct price_sku *pricing_sku_find(const char *provider, const char *inst);
/* The i-th row of the table (NULL past the end), to list a provider's. */
const struct price_sku *pricing_sku_at(size_t i);
/* What a source's GPU label means for a provider, or NULL to take it as is. */
const char *pricing_label_gpu(const char *provider, const char *label);
/* GCP machine types: the GPU label and count a host carries. 0 or -1. */
int pricing_gcp_host_gpus(const char *inst, const char **label, double *count);

/* --- the feed (pricing_feed.c) ------------------------------------------- */

/* The book's offers as a hetplan-prices/1 document (heap; caller frees). */
char *pricing_feed_from_offers(const struct price_book *pb);

/* --- the cache (pricing_cache.c) ----------------------------------------- */

struct cache_entry {
	char source[160], url[512], etag[256], last_modified[64], format[24];
	double fetched_at, checked_at;
	char *body;               /* points into file */
	size_t len;
	char *file;               /* the whole file; cache_entry_free frees it */
};

/* dir/FILE for a source name (heap; caller frees), or NULL for a name no
 * adapter knows. */
char *pricing_cache_path(const char *dir, const char *source);
/* 1 when absent, 0 when read (free with cache_entry_free), -1 with err
 * when unreadable or damaged (nothing to free). */
int pricing_cache_read(const char *path, struct cache_entry *e, struct hp_err *err);
/* Write metadata and body in one atomic rename. 0 or -1 with err. */
int pricing_cache_write(const char *path, const struct cache_entry *e, const char *body,
			size_t len, struct hp_err *err);
void pricing_cache_entry_free(struct cache_entry *e);
/* Parse a cache entry's body with its adapter (format checked). */
int pricing_cache_parse(struct price_book *pb, int src, const struct cache_entry *e,
			const struct catalog *cat, const char *what, struct hp_err *err);
/* mkdir -p. 0, or -1 with errno. */
int pricing_mkdir_p(const char *path);
/* The names of the cache files in dir starting with prefix ("prices-",
 * "prices-json-"), in layer order, then by name, so the same files
 * always merge in the same order. Returns the count; *out is a heap
 * array of heap strings (caller frees each and the array; NULL when 0). */
int pricing_cache_list(const char *dir, const char *prefix, char ***out);
/* Default cache-file names: prices-skypilot-aws.cache, prices-json-HASH.cache */
void pricing_cache_file_default(const char *name, char *buf, size_t n);

/* --- fetching (pricing_fetch.c) ------------------------------------------ */

/* http_get with the job's progress callback and cancel flag. */
int pricing_fetch_get(struct price_fetch *f, const char *url, const char *etag,
		      const char *last_modified, struct http_resp *r, struct hp_err *err);
int pricing_fetch_cancelled(struct price_fetch *f);
/* Run update jobs for names whose adapters are given (one per name). */
int pricing_run_jobs(const struct price_config *cfg, const struct catalog *cat,
		     const char *const *sources, int n, pricing_progress_fn fn, void *ud,
		     atomic_int *cancel, struct price_update *out, struct hp_err *err);

#endif
