/* pricing_fetch.c — the configuration (defaults, config file,
 * environment), and updating sources: up to max_parallel worker threads
 * take sources off a shared list; each source's adapter fetches (one
 * conditional GET, or its own paging), the body is parsed into a scratch
 * book to check it, and only then replaces the cache file atomically. On
 * any failure the old cache file stays byte for byte. */
#include "pricing_int.h"
#include "jsonx.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define DEFAULT_SKYPILOT_URL \
	"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"
#define DEFAULT_AZURE_URL "https://prices.azure.com/api/retail/prices"

/* ------------------------------------------------------------------------ */
/* Configuration. */

static const char *const default_sources[] = {
	"skypilot:aws", "skypilot:gcp", "skypilot:azure", "skypilot:lambda", "skypilot:runpod",
};

/* Apply a timeout in seconds: connect, stall window, and a whole-transfer
 * cap of 15 times that (at least a minute). */
static void set_timeout(struct http_opts *h, double s)
{
	h->connect_timeout_ms = (long)(s * 1000);
	h->low_speed_s = (long)ceil(s);
	if (h->low_speed_s < 1)
		h->low_speed_s = 1;
	h->timeout_ms = (long)(HP_MAX(60.0, 15 * s) * 1000);
}

static int env_num(const char *name, int bytes, double lo, double hi, double *out,
		   struct hp_err *err)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 1;
	double d;
	int bad = bytes ? hp_parse_bytes(v, &d) : hp_parse_duration(v, &d);
	if (bad && !bytes && !pricing_num(v, &d))
		bad = 0;
	if (bad || d < lo || d > hi)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: expected %s, got '%s'", name,
				  bytes ? "a size like 64M" : "seconds like 20 or 1.5", v);
	*out = d;
	return 0;
}

/* The config's "prices.sources": at most PRICE_MAX_SOURCES valid names. */
static int config_sources(struct price_config *cfg, const struct jx_ctx *c, const cJSON *pr,
			  const char *path, struct hp_err *err)
{
	int bad, i = 0;
	const cJSON *srcs = jx_arr(c, pr, "sources", 0, &bad), *it;
	if (bad)
		return -1;
	if (!srcs)
		return 0;
	cfg->n_sources = 0;
	cJSON_ArrayForEach(it, srcs) {
		if (!cJSON_IsString(it) || cfg->n_sources >= PRICE_MAX_SOURCES)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: prices.sources[%d]: expected at most %d source names",
					  path, i, PRICE_MAX_SOURCES);
		if (pricing_source_valid(it->valuestring, err) < 0) {
			hp_err_prefix(err, "%s: prices.sources[%d]", path, i);
			return -1;
		}
		hp_strlcpy(cfg->sources[cfg->n_sources++], it->valuestring,
			   sizeof cfg->sources[0]);
		i++;
	}
	return 0;
}

static int config_file_load(struct price_config *cfg, const char *path, int must_exist,
			    struct hp_err *err)
{
	static const char *const known[] = { "sources", "skypilot_url", "azure_url", "gpus_url",
					     "cache_dir", "timeout_s", "max_bytes",
					     "retry_wait_s", "max_parallel", "ca_file", NULL };
	struct stat st;
	if (stat(path, &st) != 0) {
		if (must_exist)
			return hp_err_set(err, HP_EXIT_INPUT, "%s: no such file", path);
		return 0;
	}
	size_t len;
	char *text = hp_read_regular_file(path, &len, err);
	if (!text)
		return -1;
	cJSON *root = jx_parse(text, len, path, err);
	free(text);
	if (!root)
		return -1;
	int rc = -1, bad;
	struct jx_ctx jr = { path, "", err };
	const cJSON *pr = cJSON_IsObject(root) ? jx_obj(&jr, root, "prices", 0, &bad) : NULL;
	if (!cJSON_IsObject(root)) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: expected a JSON object", path);
		goto out;
	}
	if (bad)
		goto out;
	hp_strlcpy(cfg->config_file, path, sizeof cfg->config_file);
	if (!pr) {
		rc = 0;
		goto out;
	}
	struct jx_ctx c = { path, "prices", err };
	double t = -1, mb = -1, rw = -1;
	char mbs[32] = "";
	int par = 0;
	if (jx_check_keys(&c, pr, known) < 0 ||
	    jx_str(&c, pr, "skypilot_url", 0, cfg->skypilot_url, sizeof cfg->skypilot_url) < 0 ||
	    jx_str(&c, pr, "azure_url", 0, cfg->azure_url, sizeof cfg->azure_url) < 0 ||
	    jx_str(&c, pr, "gpus_url", 0, cfg->gpus_url, sizeof cfg->gpus_url) < 0 ||
	    jx_str(&c, pr, "cache_dir", 0, cfg->cache_dir, sizeof cfg->cache_dir) < 0 ||
	    jx_str(&c, pr, "ca_file", 0, cfg->http.ca_file, sizeof cfg->http.ca_file) < 0 ||
	    jx_num(&c, pr, "timeout_s", 0, 0.1, 3600, &t) < 0 ||
	    jx_num(&c, pr, "retry_wait_s", 0, 0, 600, &rw) < 0 ||
	    jx_int(&c, pr, "max_parallel", 0, 1, 16, &par) < 0)
		goto out;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(pr, "max_bytes");
	if (cJSON_IsNumber(m)) {
		mb = m->valuedouble;
	} else if (m) {
		if (jx_str(&c, pr, "max_bytes", 0, mbs, sizeof mbs) < 0)
			goto out;
		if (hp_parse_bytes(mbs, &mb))
			mb = -1;
	}
	if (m && (mb < 1024 || mb > 16e9)) {
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: prices.max_bytes: expected a size from 1K to 16G like \"64M\"", path);
		goto out;
	}
	if (t > 0)
		set_timeout(&cfg->http, t);
	if (mb > 0)
		cfg->http.max_bytes = mb;
	if (rw >= 0)
		cfg->http.retry_wait_max_s = rw;
	if (par)
		cfg->max_parallel = par;
	if (config_sources(cfg, &c, pr, path, err) < 0)
		goto out;
	if ((*cfg->skypilot_url && !pricing_url_ok(cfg->skypilot_url)) ||
	    (*cfg->azure_url && !pricing_url_ok(cfg->azure_url)) ||
	    (*cfg->gpus_url && !pricing_url_ok(cfg->gpus_url))) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: prices: URLs must start with https:// or http://",
			   path);
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

int pricing_config_load(struct price_config *cfg, const char *config_file,
			struct hp_err *err)
{
	memset(cfg, 0, sizeof *cfg);
	http_opts_default(&cfg->http);
	set_timeout(&cfg->http, 20);
	cfg->max_parallel = 4;
	for (size_t i = 0; i < HP_ARRAY_LEN(default_sources); i++)
		hp_strlcpy(cfg->sources[cfg->n_sources++], default_sources[i],
			   sizeof cfg->sources[0]);
	if (config_file) {
		if (config_file_load(cfg, config_file, 1, err) < 0)
			return -1;
	} else {
		const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
		char *p = NULL;
		if (x && *x)
			p = xasprintf("%s/hetplan/config.json", x);
		else if (home && *home)
			p = xasprintf("%s/.config/hetplan/config.json", home);
		int rc = p ? config_file_load(cfg, p, 0, err) : 0;
		free(p);
		if (rc < 0)
			return -1;
	}
	const char *v;
	if ((v = getenv("HETPLAN_SKYPILOT_URL")) && *v) {
		if (!pricing_url_ok(v))
			return hp_err_set(err, HP_EXIT_INPUT,
					  "HETPLAN_SKYPILOT_URL: expected an http(s):// URL, got '%s'", v);
		hp_strlcpy(cfg->skypilot_url, v, sizeof cfg->skypilot_url);
	}
	if ((v = getenv("HETPLAN_AZURE_URL")) && *v) {
		if (!pricing_url_ok(v))
			return hp_err_set(err, HP_EXIT_INPUT,
					  "HETPLAN_AZURE_URL: expected an http(s):// URL, got '%s'", v);
		hp_strlcpy(cfg->azure_url, v, sizeof cfg->azure_url);
	}
	if ((v = getenv("HETPLAN_GPUS_URL")) && *v) {
		if (!pricing_url_ok(v))
			return hp_err_set(err, HP_EXIT_INPUT,
					  "HETPLAN_GPUS_URL: expected an http(s):// URL, got '%s'", v);
		hp_strlcpy(cfg->gpus_url, v, sizeof cfg->gpus_url);
	}
	if ((v = getenv("HETPLAN_PRICES_CACHE")) && *v)
		hp_strlcpy(cfg->cache_dir, v, sizeof cfg->cache_dir);
	double d;
	int r;
	if ((r = env_num("HETPLAN_HTTP_TIMEOUT", 0, 0.1, 3600, &d, err)) < 0)
		return -1;
	if (!r)
		set_timeout(&cfg->http, d);
	if ((r = env_num("HETPLAN_HTTP_MAX_BYTES", 1, 1024, 16e9, &d, err)) < 0)
		return -1;
	if (!r)
		cfg->http.max_bytes = d;
	if ((r = env_num("HETPLAN_HTTP_RETRY_MAX", 0, 0, 600, &d, err)) < 0)
		return -1;
	if (!r)
		cfg->http.retry_wait_max_s = d;
	if (!*cfg->skypilot_url)
		hp_strlcpy(cfg->skypilot_url, DEFAULT_SKYPILOT_URL, sizeof cfg->skypilot_url);
	if (!*cfg->azure_url)
		hp_strlcpy(cfg->azure_url, DEFAULT_AZURE_URL, sizeof cfg->azure_url);
	if (!*cfg->gpus_url)
		hp_strlcpy(cfg->gpus_url, HETPLAN_GPUS_URL, sizeof cfg->gpus_url);
	return 0;
}


int pricing_config_flag(struct price_config *cfg, const char *flag, const char *value,
			const char **want)
{
	double v = 0;
	if (!strcmp(flag, "timeout")) {
		if (hp_parse_duration(value, &v) && (hp_parse_quantity(value, &v) || v <= 0))
			return *want = "seconds like 20 or 1.5", -1;
		if (v < 0.1 || v > 3600)
			return *want = "0.1 to 3600 seconds", -1;
		set_timeout(&cfg->http, v);
	} else if (!strcmp(flag, "max-bytes")) {
		if (hp_parse_bytes(value, &v) || v < 1024 || v > 16e9)
			return *want = "a size from 1K to 16G like 64M", -1;
		cfg->http.max_bytes = v;
	} else if (!strcmp(flag, "retry-wait")) {
		if (hp_parse_duration(value, &v) && strcmp(value, "0"))
			return *want = "seconds like 5", -1;
		cfg->http.retry_wait_max_s = strcmp(value, "0") ? v : 0;
	} else if (!strcmp(flag, "cache-dir")) {
		hp_strlcpy(cfg->cache_dir, value, sizeof cfg->cache_dir);
	} else {
		char *dst = !strcmp(flag, "skypilot-url") ? cfg->skypilot_url
			  : !strcmp(flag, "azure-url") ? cfg->azure_url
			  : !strcmp(flag, "gpus-url") ? cfg->gpus_url : NULL;
		if (!dst || !pricing_url_ok(value) || strlen(value) >= sizeof cfg->gpus_url)
			return *want = "an http(s):// URL", -1;
		hp_strlcpy(dst, value, sizeof cfg->gpus_url);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Updating. */

struct job_ctx {
	const struct price_config *cfg;
	const struct catalog *cat;
	const char *const *sources;
	int n, next, done;
	pthread_mutex_t mu;
	pricing_progress_fn fn;
	void *ud;
	atomic_int *cancel;
	atomic_int stop;          /* the callback asked to stop */
	struct price_update *out;
	char dir[512];
};

static int on_bytes(void *ud, double now, double total)
{
	struct price_fetch *f = ud;
	struct job_ctx *j = f->job;
	if (!j->fn)
		return 0;
	struct price_progress p = { f->source, now, total, f->page, 0, j->n };
	pthread_mutex_lock(&j->mu);
	p.done = j->done;
	int r = j->fn(j->ud, &p);
	pthread_mutex_unlock(&j->mu);
	if (r)
		atomic_store(&j->stop, 1);
	return r;
}

int pricing_fetch_cancelled(struct price_fetch *f)
{
	struct job_ctx *j = f->job;
	return atomic_load(&j->stop) || (j->cancel && atomic_load(j->cancel));
}

int pricing_fetch_get(struct price_fetch *f, const char *url, const char *etag,
		      const char *last_modified, struct http_resp *r, struct hp_err *err)
{
	struct job_ctx *j = f->job;
	return http_get(url, etag, last_modified, &j->cfg->http, on_bytes, f, j->cancel, r, err);
}

/* A scratch book that parses a body against the real GPU names: a body
 * with neither offers nor GPU specs is refused. */
static int validate(const struct price_source *ps, const struct catalog *cat,
		    const char *source, const char *arg, const char *body, size_t len,
		    struct price_update *u, struct hp_err *err)
{
	struct price_book t = { 0 };
	int s = pricing_add_source(&t, source, "", PRICE_LIVE, 0);
	int rc = ps->parse(&t, s, arg, body, len, cat, source, err);
	if (rc == 0 && t.n == 0 && t.n_gpus == 0)
		rc = hp_err_set(err, HP_EXIT_INPUT, "%s: no %s in %zu bytes of data", source,
				ps == &price_source_gpus ? "GPU specs" : "GPU offers with a price",
				len);
	u->n_offers = t.n;
	u->n_gpus = t.n_gpus;
	pricing_free(&t);
	return rc;
}

/* One conditional GET against the cached copy old (NULL: none). 0 with a
 * new body, 1 when the server confirmed old (its check time is rewritten,
 * same bytes), -1 with err. */
static int get_plain(struct price_fetch *f, const char *url, const char *path,
		     struct cache_entry *old, struct cache_entry *ne, char **body, size_t *len,
		     struct hp_err *err)
{
	int same = old && !strcmp(old->url, url);
	struct http_resp r;
	int rc = pricing_fetch_get(f, url, same ? old->etag : NULL,
				   same ? old->last_modified : NULL, &r, err);
	if (rc == 0 && r.status == 304) {
		if (!same) {
			rc = hp_err_set(err, HP_EXIT_FAIL, "%s: 304 Not Modified without a cached copy",
					url);
		} else {
			old->checked_at = (double)time(NULL);
			rc = pricing_cache_write(path, old, old->body, old->len, err) < 0 ? -1 : 1;
		}
	} else if (rc == 0) {
		hp_strlcpy(ne->etag, r.etag, sizeof ne->etag);
		hp_strlcpy(ne->last_modified, r.last_modified, sizeof ne->last_modified);
		*body = r.body;
		*len = r.len;
		r.body = NULL;
	}
	http_resp_free(&r);
	return rc;
}

/* Fetch, check and cache one source into u. */
static void update_one(struct job_ctx *j, const char *source, struct price_update *u)
{
	const char *arg;
	const struct price_source *ps = price_source_find(source, &arg);
	struct price_fetch f = { j->cfg, j->cat, source, 0, 0, "", j };
	char *path = pricing_cache_path(j->dir, source), *url = ps->url(j->cfg, arg);
	char *body = NULL;
	size_t len = 0;
	struct cache_entry old, ne = { 0 };
	struct hp_err e = { 0 };
	int have = pricing_cache_read(path, &old, &e) == 0, rc;
	u->data_fetched_at = have ? old.fetched_at : 0;
	hp_strlcpy(ne.source, source, sizeof ne.source);
	hp_strlcpy(ne.format, ps->cache_format, sizeof ne.format);
	hp_strlcpy(ne.url, url, sizeof ne.url);
	if (pricing_fetch_cancelled(&f)) {
		u->result = PRICE_CANCELLED;
		snprintf(u->msg, sizeof u->msg, "cancelled");
		goto out;
	}
	rc = ps->fetch ? ps->fetch(&f, &body, &len, &e)
		       : get_plain(&f, url, path, have ? &old : NULL, &ne, &body, &len, &e);
	if (rc == 1) {
		u->result = PRICE_NOT_MODIFIED;
		snprintf(u->msg, sizeof u->msg, "%s: not modified", url);
		goto out;
	}
	if (rc < 0 || validate(ps, j->cat, source, arg, body, len, u, &e) < 0)
		goto failed;
	ne.fetched_at = ne.checked_at = (double)time(NULL);
	if (pricing_cache_write(path, &ne, body, len, &e) < 0)
		goto failed;
	u->result = PRICE_FETCHED;
	u->data_fetched_at = ne.fetched_at;
	if (f.pages)
		snprintf(u->msg, sizeof u->msg, "%d page%s%s%s", f.pages, f.pages == 1 ? "" : "s",
			 *f.note ? "; " : "", f.note);
	goto out;
failed:
	u->result = pricing_fetch_cancelled(&f) ? PRICE_CANCELLED : PRICE_FAILED;
	hp_strlcpy(u->msg, e.msg, sizeof u->msg);
out:
	if (have)
		pricing_cache_entry_free(&old);
	free(body);
	free(url);
	free(path);
}

static void run_one(struct job_ctx *j, int idx)
{
	const char *source = j->sources[idx];
	struct price_update *u = &j->out[idx];
	memset(u, 0, sizeof *u);
	hp_strlcpy(u->source, source, sizeof u->source);
	update_one(j, source, u);
	pthread_mutex_lock(&j->mu);
	j->done++;
	if (j->fn) {
		struct price_progress p = { source, 0, 0, 0, j->done, j->n };
		if (j->fn(j->ud, &p))
			atomic_store(&j->stop, 1);
	}
	pthread_mutex_unlock(&j->mu);
}

static void *worker(void *arg)
{
	struct job_ctx *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		int i = j->next < j->n ? j->next++ : -1;
		pthread_mutex_unlock(&j->mu);
		if (i < 0)
			return NULL;
		run_one(j, i);
	}
}

int pricing_run_jobs(const struct price_config *cfg, const struct catalog *cat,
		     const char *const *sources, int n, pricing_progress_fn fn, void *ud,
		     atomic_int *cancel, struct price_update *out, struct hp_err *err)
{
	struct job_ctx j = { .cfg = cfg, .cat = cat, .sources = sources, .n = n, .fn = fn,
			     .ud = ud, .cancel = cancel, .out = out };
	atomic_init(&j.stop, 0);
	pricing_cache_dir(cfg, j.dir, sizeof j.dir);
	if (pricing_mkdir_p(j.dir) < 0)
		return hp_err_set(err, HP_EXIT_FAIL, "cache directory %s: %s", j.dir,
				  strerror(errno));
	http_global_init();
	pthread_mutex_init(&j.mu, NULL);
	int nt = HP_MIN(HP_MAX(cfg->max_parallel, 1), n);
	pthread_t th[16];
	int started = 0;
	for (int i = 0; i < nt && i < 16; i++)
		if (hp_thread_start(&th[i], worker, &j) == 0)
			started++;
	if (!started)
		worker(&j);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j.mu);
	int failed = 0;
	for (int i = 0; i < n; i++)
		failed += out[i].result == PRICE_FAILED || out[i].result == PRICE_CANCELLED;
	return failed;
}

int pricing_update(const struct price_config *cfg, const struct catalog *cat,
		   const char *const *sources, int n, pricing_progress_fn fn, void *ud,
		   atomic_int *cancel, struct price_update *out, struct hp_err *err)
{
	const char *defs[PRICE_MAX_SOURCES];
	if (n == 0) {
		for (int i = 0; i < cfg->n_sources; i++)
			defs[i] = cfg->sources[i];
		sources = defs;
		n = cfg->n_sources;
	}
	for (int i = 0; i < n; i++) {
		if (pricing_source_valid(sources[i], err) < 0)
			return -1;
		for (int k = 0; k < i; k++)
			if (!strcmp(sources[i], sources[k]))
				return hp_err_set(err, HP_EXIT_USAGE, "source '%s' given twice",
						  sources[i]);
	}
	return pricing_run_jobs(cfg, cat, sources, n, fn, ud, cancel, out, err);
}
