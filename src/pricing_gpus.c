/* pricing_gpus.c — GPU specs over HTTP. `hetplan gpus --update` fetches a
 * GPU catalog file in the user-catalog format (data/gpus.json: an object
 * with a "gpus" array of catalog GPU objects) through the same machinery
 * as the price sources: conditional GET, size cap, timeouts, retry, a
 * scratch parse before the cache file is replaced atomically. The cached
 * file, and the "gpus" of every cached json: price feed, then join the
 * catalog (pricing_catalog_extend), so `plan`, `estimate`, the TUI and
 * `hetplan gpus` see new parts without a new binary.
 *
 * Precedence, lowest first: the embedded catalog; the downloaded catalog
 * (newer data than the binary's); GPU specs of cached json: feeds (a feed
 * the user chose names its own parts); the user's own
 * $XDG_CONFIG_HOME/hetplan/gpus.json, which wins over anything downloaded
 * because it is what the user wrote on this machine. */
#include "pricing_int.h"
#include "jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GPUS_CACHE_FILE "gpus-catalog.cache"

/* {"schema": 1, "gpus": [...]}: other keys are ignored (a newer catalog
 * may carry more), "models" included. */
int pricing_parse_gpus(struct price_book *pb, const char *body, size_t len, const char *what,
		       struct hp_err *err)
{
	cJSON *root = jx_parse(body, len, what, err);
	if (!root)
		return -1;
	int rc = -1, bad, i = 0, g0 = pb->n_gpus;
	struct jx_ctx jc = { what, "", err };
	double schema = 1;
	const cJSON *gpus = NULL, *it;
	if (!cJSON_IsObject(root)) {
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: expected a GPU catalog: an object with a \"gpus\" array", what);
		goto out;
	}
	if (jx_num(&jc, root, "schema", 0, 1, 1, &schema) < 0)
		goto out;
	gpus = jx_arr(&jc, root, "gpus", 1, &bad);
	if (bad)
		goto out;
	cJSON_ArrayForEach(it, gpus) {
		char path[32];
		snprintf(path, sizeof path, "gpus[%d]", i++);
		struct gpu_spec g;
		if (catalog_parse_gpu(it, what, path, &g, err) < 0) {
			pb->n_gpus = g0;
			goto out;
		}
		pricing_add_gpu(pb, &g);
	}
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

/* One file whatever the URL: the catalog last fetched is the one used. */
static void gpus_cache_file(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s", GPUS_CACHE_FILE);
}

static int gpus_parse(struct price_book *pb, int src, const char *arg, const char *body,
		      size_t len, const struct catalog *cat, const char *what, struct hp_err *err)
{
	return pricing_parse_gpus(pb, body, len, what, err);
}

const struct price_source price_source_gpus = {
	.prefix = "gpus:", .user = 0, .cache_format = "hetplan-gpus", .layer = 3,
	.arg_ok = pricing_url_arg_ok, .url = pricing_url_arg, .cache_file = gpus_cache_file,
	.fetch = NULL, .parse = gpus_parse,
};

int pricing_gpus_update(const struct price_config *cfg, const struct catalog *cat,
			const char *url, pricing_progress_fn fn, void *ud, atomic_int *cancel,
			struct price_update *out, struct hp_err *err)
{
	if (!url || !*url)
		url = cfg->gpus_url;
	char *name = xasprintf("gpus:%s", url);
	const char *arg;
	int rc = -1;
	if (!pricing_url_ok(url) || strlen(name) >= 500)
		hp_err_set(err, HP_EXIT_USAGE, "'%s': expected an http:// or https:// URL", url);
	else if (price_source_find(name, &arg)) {
		const char *one[1] = { name };
		rc = pricing_run_jobs(cfg, cat, one, 1, fn, ud, cancel, out, err);
		/* The name says which file; the report says which URL. */
		hp_strlcpy(out->source, url, sizeof out->source);
	}
	free(name);
	return rc;
}

/* Read and parse one cache file into pb (src: a source named after it). */
static int load_specs(struct price_book *pb, const char *path, const struct catalog *cat,
		      struct price_source_info *info, struct hp_err *err)
{
	struct cache_entry e;
	int r = pricing_cache_read(path, &e, err);
	if (r)
		return r;
	int src = pricing_add_source(pb, e.source, e.url, PRICE_CACHE, e.fetched_at);
	char what[700];
	snprintf(what, sizeof what, "%.*s (cache %.*s)", UTF8_CUT(e.source, 160), UTF8_CUT(path, 500));
	r = src < 0 ? hp_err_set(err, HP_EXIT_INPUT, "%s: too many cached sources", path)
		    : pricing_cache_parse(pb, src, &e, cat, what, err);
	if (r == 0 && info) {
		*info = pb->src[src];
		hp_strlcpy(info->url, e.url, sizeof info->url);
	}
	pricing_cache_entry_free(&e);
	return r;
}

int pricing_gpus_cached(const struct price_config *cfg, struct price_source_info *info,
			struct gpu_spec **gpus, int *n, struct hp_err *err)
{
	char dir[512];
	pricing_cache_dir(cfg, dir, sizeof dir);
	char *path = xasprintf("%s/%s", dir, GPUS_CACHE_FILE);
	struct price_book pb = { 0 };
	memset(info, 0, sizeof *info);
	int r = load_specs(&pb, path, NULL, info, err);
	free(path);
	if (r == 0) {
		info->n_offers = pb.n_gpus;
		if (gpus) {
			*gpus = pb.gpus;
			*n = pb.n_gpus;
			pb.gpus = NULL;
		}
	}
	pricing_free(&pb);
	return r;
}

/* The names the user's own gpus.json defines (the directory catalog_load
 * reads): downloaded specs never replace them. */
static void user_gpus(struct catalog *uc)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *path = x && *x ? xasprintf("%s/hetplan/gpus.json", x)
		   : home && *home ? xasprintf("%s/.config/hetplan/gpus.json", home) : NULL;
	struct hp_err err = { 0 };
	size_t len;
	struct stat st;
	char *text = path && stat(path, &st) == 0 ? hp_read_regular_file(path, &len, &err) : NULL;
	cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "gpus"), *it;
	if (!cJSON_IsArray(arr))
		arr = NULL;
	cJSON_ArrayForEach(it, arr) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
		if (!cJSON_IsString(nm))
			continue;
		uc->gpus = xrealloc(uc->gpus, (size_t)(uc->n_gpus + 1) * sizeof *uc->gpus);
		memset(&uc->gpus[uc->n_gpus], 0, sizeof *uc->gpus);
		hp_strlcpy(uc->gpus[uc->n_gpus++].name, nm->valuestring, sizeof uc->gpus->name);
	}
	cJSON_Delete(root);
	free(text);
	free(path);
}

/* Warn about one cache file that could not be read. */
static void note(char *warn, size_t wn, const char *msg)
{
	size_t l = warn && wn ? strlen(warn) : wn;
	/* "\n", the 23-byte lead and the NUL: the message gets the rest, cut
	 * on a whole UTF-8 character */
	if (l + 26 < wn)
		snprintf(warn + l, wn - l, "%signoring a cache file: %.*s", l ? "\n" : "",
			 UTF8_CUT(msg, wn - l - 26));
}

int pricing_catalog_extend(struct catalog *cat, const struct price_config *cfg, char *warn,
			   size_t wn)
{
	struct price_book pb = { 0 };
	char dir[512];
	pricing_cache_dir(cfg, dir, sizeof dir);
	if (wn)
		warn[0] = '\0';
	char *path = xasprintf("%s/%s", dir, GPUS_CACHE_FILE);
	struct hp_err err = { 0 };
	if (load_specs(&pb, path, cat, NULL, &err) < 0)
		note(warn, wn, err.msg);
	free(path);
	char **names;
	int nn = pricing_cache_list(dir, "prices-json-", &names);
	for (int i = 0; i < nn; i++) {
		path = xasprintf("%s/%s", dir, names[i]);
		memset(&err, 0, sizeof err);
		if (load_specs(&pb, path, cat, NULL, &err) < 0)
			note(warn, wn, err.msg);
		free(path);
		free(names[i]);
	}
	free(names);
	struct catalog uc = { 0 };
	user_gpus(&uc);
	int n = 0;
	for (int i = 0; i < pb.n_gpus; i++) {
		if (catalog_gpu(&uc, pb.gpus[i].name))
			continue;
		const struct gpu_spec *old = catalog_gpu(cat, pb.gpus[i].name);
		if (old) {
			cat->gpus[old - cat->gpus] = pb.gpus[i];
		} else {
			cat->gpus = xrealloc(cat->gpus, (size_t)(cat->n_gpus + 1) * sizeof *cat->gpus);
			cat->gpus[cat->n_gpus++] = pb.gpus[i];
		}
		n++;
	}
	free(uc.gpus);
	pricing_free(&pb);
	return n;
}
