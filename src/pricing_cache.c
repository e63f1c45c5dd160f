/* pricing_cache.c — the cache: one file per source in the cache directory
 * ($XDG_CACHE_HOME/hetplan, else ~/.cache/hetplan), "hetplan-cache 1\n",
 * one line of JSON metadata (source, URL, validators, fetch time, format,
 * byte count), then the body exactly as it was parsed. Each file is
 * written in one atomic rename, so metadata and body never disagree and a
 * failed update leaves the last good copy byte for byte. Loading the book
 * reads the embedded snapshot, then every prices-*.cache file in layer
 * order (SkyPilot catalogs, Azure, json feeds; by name within a layer). */
#include "pricing_int.h"
#include "embed.h"
#include "fields.h"
#include "jsonx.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CACHE_MAGIC "hetplan-cache 1\n"

/* A body's byte count is at most 1e12 (1 TB): far above any price
 * catalog (SkyPilot's largest vms.csv is a few MB) and exact in a double. */
#define CACHE_MAX_BYTES 1e12

/* The metadata line, in the order it is written: the source's name, its
 * URL, the HTTP validators (ETag, Last-Modified; empty when the server
 * gave none), the adapter's format word, and when the body was fetched
 * and last confirmed (Unix seconds; 1e11 is the year 5138). "bytes", the
 * body's length, is not a member: it is written and checked here. */
#define CE(m) offsetof(struct cache_entry, m)
static const struct hp_field cache_meta_list[] = {
	{ .key = "source", .kind = FK_STR, FIELD_STR(struct cache_entry, source),
	  .flags = FF_REQUIRED, .help = "the price source, like skypilot:aws" },
	{ .key = "url", .kind = FK_STR, FIELD_STR(struct cache_entry, url),
	  .help = "where the body was fetched" },
	{ .key = "etag", .kind = FK_STR, FIELD_STR(struct cache_entry, etag),
	  .help = "the ETag the server gave" },
	{ .key = "last_modified", .kind = FK_STR, FIELD_STR(struct cache_entry, last_modified),
	  .help = "the Last-Modified the server gave" },
	{ .key = "format", .kind = FK_STR, FIELD_STR(struct cache_entry, format),
	  .flags = FF_REQUIRED, .help = "the adapter's format word" },
	{ .key = "fetched_at", .kind = FK_NUM, .off = CE(fetched_at), .min = 0, .max = 1e11,
	  .flags = FF_REQUIRED, .help = "when the body was fetched, Unix seconds" },
	{ .key = "checked_at", .kind = FK_NUM, .off = CE(checked_at), .min = 0, .max = 1e11,
	  .help = "when the server last confirmed it, Unix seconds" },
};
#undef CE

static const struct hp_field_table cache_meta = { "cache", cache_meta_list,
						  (int)HP_ARRAY_LEN(cache_meta_list), 0, 0 };

int pricing_mkdir_p(const char *path)
{
	char buf[1024];
	if (hp_strlcpy(buf, path, sizeof buf) >= sizeof buf)
		return -1;
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

void pricing_cache_dir(const struct price_config *cfg, char *buf, size_t n)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (cfg && cfg->cache_dir[0])
		snprintf(buf, n, "%s", cfg->cache_dir);
	else if (x && *x)
		snprintf(buf, n, "%s/hetplan", x);
	else if (home && *home)
		snprintf(buf, n, "%s/.cache/hetplan", home);
	else
		snprintf(buf, n, ".hetplan-cache");
}


/* prices-skypilot-aws.cache, prices-azure.cache; a json: URL becomes
 * prices-json-HASH.cache (64-bit FNV-1a of the name: file names stay short
 * and free of URL characters). */
void pricing_cache_file_default(const char *name, char *buf, size_t n)
{
	char key[96];
	if (!strncmp(name, "json:", 5)) {
		unsigned long long h = 1469598103934665603ULL;
		for (const unsigned char *p = (const unsigned char *)name; *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
		snprintf(key, sizeof key, "json-%016llx", h);
	} else {
		size_t j = 0;
		for (const char *p = name; *p && j + 1 < sizeof key; p++)
			key[j++] = *p == ':' ? '-' : *p;
		key[j] = '\0';
	}
	snprintf(buf, n, "prices-%s.cache", key);
}

char *pricing_cache_path(const char *dir, const char *source)
{
	const char *arg;
	const struct price_source *ps = price_source_find(source, &arg);
	if (!ps)
		return NULL;
	char file[128];
	ps->cache_file(source, file, sizeof file);
	return xasprintf("%s/%s", dir, file);
}

void pricing_cache_entry_free(struct cache_entry *e)
{
	free(e->file);
	memset(e, 0, sizeof *e);
}

/* Read a cache file. 1 when absent, 0 when read, -1 (err) when broken. */
int pricing_cache_read(const char *path, struct cache_entry *e, struct hp_err *err)
{
	memset(e, 0, sizeof *e);
	struct stat st;
	if (stat(path, &st) != 0)
		return 1;
	/* Regular files only, checked on the descriptor: a FIFO named like a
	 * cache file would block every command that loads prices. */
	size_t len;
	char *t = hp_read_regular_file(path, &len, err);
	if (!t)
		return -1;
	size_t ml = strlen(CACHE_MAGIC);
	char *nl = len > ml ? memchr(t + ml, '\n', len - ml) : NULL;
	if (len < ml || memcmp(t, CACHE_MAGIC, ml) || !nl) {
		free(t);
		return hp_err_set(err, HP_EXIT_INPUT, "%s: not a hetplan cache file", path);
	}
	cJSON *m = jx_parse(t + ml, (size_t)(nl - (t + ml)), path, err);
	if (!m) {
		free(t);
		return -1;
	}
	struct jx_ctx c = { path, "metadata", err };
	double bytes = -1;
	if (fields_read_json(&cache_meta, e, &c, m) < 0 ||
	    jx_num(&c, m, "bytes", 1, 0, CACHE_MAX_BYTES, &bytes) < 0) {
		cJSON_Delete(m);
		free(t);
		return -1;
	}
	cJSON_Delete(m);
	e->file = t;
	e->body = nl + 1;
	e->len = len - (size_t)(nl + 1 - t);
	if ((double)e->len != bytes) {
		pricing_cache_entry_free(e);
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: holds %zu bytes of data, its metadata says %.0f (damaged)",
				  path, len - (size_t)(nl + 1 - t), bytes);
	}
	if (!e->checked_at)
		e->checked_at = e->fetched_at;
	return 0;
}

int pricing_cache_write(const char *path, const struct cache_entry *e, const char *body,
		       size_t len, struct hp_err *err)
{
	cJSON *m = cJSON_CreateObject();
	struct cache_entry whole = *e;   /* times written in whole seconds */
	whole.fetched_at = floor(e->fetched_at);
	whole.checked_at = floor(e->checked_at);
	fields_write_json(&cache_meta, &whole, m);
	cJSON_AddNumberToObject(m, "bytes", (double)len);
	char *meta = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	size_t ml = strlen(CACHE_MAGIC), tl = strlen(meta);
	char *all = xmalloc(ml + tl + 1 + len);
	memcpy(all, CACHE_MAGIC, ml);
	memcpy(all + ml, meta, tl);
	all[ml + tl] = '\n';
	if (len)
		memcpy(all + ml + tl + 1, body, len);
	free(meta);
	int rc = hp_write_file_atomic(path, all, ml + tl + 1 + len, err);
	free(all);
	return rc;
}

int pricing_cache_parse(struct price_book *pb, int src, const struct cache_entry *e,
			const struct catalog *cat, const char *what, struct hp_err *err)
{
	const char *arg;
	const struct price_source *ps = price_source_find(e->source, &arg);
	if (!ps || strcmp(ps->cache_format, e->format))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: unknown cache format '%s'", what,
				  e->format);
	return ps->parse(pb, src, arg, e->body, e->len, cat, what, err);
}

/* ------------------------------------------------------------------------ */
/* Loading the book. */

int pricing_load_embedded(struct price_book *pb, const struct catalog *cat,
			  struct hp_err *err)
{
	memset(pb, 0, sizeof *pb);
	int s = pricing_add_source(pb, "embedded", "data/prices.csv", PRICE_EMBEDDED, 0);
	if (pricing_parse_skypilot(pb, s, "", embed_prices_csv, embed_prices_csv_len, cat,
				   "embedded snapshot (data/prices.csv)", err) < 0)
		return -1;
	pricing_finish(pb);
	return 0;
}

static int file_layer(const char *name)
{
	const struct price_source *ps = price_source_for_file(name);
	return ps ? ps->layer : 0;
}

static int name_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int r = file_layer(x) - file_layer(y);
	return r ? r : strcmp(x, y);
}

int pricing_cache_list(const char *dir, const char *prefix, char ***out)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	int nn = 0;
	size_t pl = strlen(prefix);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);
			if (strncmp(de->d_name, prefix, pl) || l < pl + 6 ||
			    strcmp(de->d_name + l - 6, ".cache"))
				continue;
			names = xrealloc(names, (size_t)(nn + 1) * sizeof *names);
			names[nn++] = xstrdup(de->d_name);
		}
		closedir(d);
	}
	if (nn > 1)
		qsort(names, (size_t)nn, sizeof *names, name_cmp);
	*out = names;
	return nn;
}

/* Add one cache file to the book. The provider whose snapshot rows it
 * replaces goes to covered ("" for none). 0, or -1 with err. */
static int load_one(struct price_book *pb, const char *path, const struct catalog *cat,
		    char *covered, size_t cn, struct hp_err *err)
{
	struct cache_entry e;
	covered[0] = '\0';
	int r = pricing_cache_read(path, &e, err);
	if (r)
		return r > 0 ? 0 : -1;   /* gone since the listing: nothing to load */
	int src = pricing_add_source(pb, e.source, e.url, PRICE_CACHE, e.fetched_at), rc = -1;
	if (src < 0) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: more than %d cached sources; ignored", path,
			   PRICE_MAX_SOURCES);
		goto out;
	}
	pb->src[src].checked_at = e.checked_at;
	char what[700];
	snprintf(what, sizeof what, "%.*s (cache %.*s)", UTF8_CUT(e.source, 160), UTF8_CUT(path, 500));
	if (pricing_cache_parse(pb, src, &e, cat, what, err) < 0) {
		pb->n_src--;
		goto out;
	}
	const char *arg;
	const struct price_source *ps = price_source_find(e.source, &arg);
	if (ps == &price_source_skypilot)
		hp_strlcpy(covered, arg, cn);
	else if (ps == &price_source_azure)
		hp_strlcpy(covered, "azure", cn);
	rc = 0;
out:
	pricing_cache_entry_free(&e);
	return rc;
}

/* Drop the snapshot's (source s) rows of the covered providers. */
static void drop_covered(struct price_book *pb, int s, char covered[][24], int nc)
{
	int m = 0;
	for (int i = 0; i < pb->n; i++) {
		const struct price_offer *o = &pb->offers[i];
		int drop = 0;
		for (int k = 0; k < nc && o->source == s; k++)
			drop |= !strcmp(o->provider, covered[k]);
		if (!drop)
			pb->offers[m++] = *o;
	}
	pb->n = m;
}

int pricing_load(struct price_book *pb, const struct price_config *cfg,
		 const struct catalog *cat, struct hp_err *err)
{
	memset(pb, 0, sizeof *pb);
	int s = pricing_add_source(pb, "embedded", "data/prices.csv", PRICE_EMBEDDED, 0);
	if (pricing_parse_skypilot(pb, s, "", embed_prices_csv, embed_prices_csv_len, cat,
				   "embedded snapshot (data/prices.csv)", err) < 0)
		return -1;
	pricing_cache_dir(cfg, pb->cache_dir, sizeof pb->cache_dir);
	char **names;
	int nn = pricing_cache_list(pb->cache_dir, "prices-", &names);
	/* Providers whose snapshot rows a cached catalog replaces. */
	char covered[PRICE_MAX_SOURCES][24];
	int nc = 0;
	for (int i = 0; i < nn; i++) {
		char *path = xasprintf("%s/%s", pb->cache_dir, names[i]);
		char cov[24];
		struct hp_err e2 = { 0 };
		if (load_one(pb, path, cat, cov, sizeof cov, &e2) < 0) {
			char w[600];
			snprintf(w, sizeof w, "ignoring a cache file: %.*s", UTF8_CUT(e2.msg, 560));
			pricing_warn(pb, w);
		} else if (*cov && nc < PRICE_MAX_SOURCES) {
			hp_strlcpy(covered[nc++], cov, sizeof covered[0]);
		}
		free(path);
		free(names[i]);
	}
	free(names);
	if (nc)
		drop_covered(pb, s, covered, nc);
	pricing_finish(pb);
	return 0;
}
