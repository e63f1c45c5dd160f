/* tui_fetch.c — download price lists on a worker thread.
 *
 * The Prices view's `r` fetches one or more SkyPilot catalog CSVs (every
 * cloud's VM list in one schema: InstanceType, AcceleratorName,
 * AcceleratorCount, Price, SpotPrice, Region, in a per-cloud column order)
 * with libcurl on a thread of its own, so the screen keeps answering while
 * a slow server trickles bytes. The transfer reports progress and checks
 * the cancel flag in its progress callback (libcurl calls it at least once
 * a second even when no byte arrives); bodies are capped at 64 MiB. The
 * rows are reduced to the cheapest on-demand and spot offer per GPU and
 * cloud, with GPU names resolved through the catalog. This stands in for
 * the price book (src/pricing.h) until that lands. */
#include "tui_int.h"

#include <csv.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FETCH_MAX_BYTES (64u << 20)
#define FETCH_MAX_URLS 8

struct tui_fetch {
	pthread_t th;
	int have_thread;
	pthread_mutex_t mu;
	int wake_fd;
	const struct catalog *cat;
	volatile int cancel;
	struct fetch_status st;
	char urls[FETCH_MAX_URLS][256];
	int n_urls;
	struct price_offer *offers;   /* being built by the worker */
	int n_offers, cap_offers;
	struct price_offer *done;     /* finished, for fetch_take */
	int n_done, has_done;
};

struct body {
	char *buf;
	size_t len;
	struct tui_fetch *f;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;
	if (b->len + n > FETCH_MAX_BYTES)
		return 0;      /* fails the transfer: too large */
	b->buf = xrealloc(b->buf, b->len + n + 1);
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = 0;
	return n;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ut,
		       curl_off_t un)
{
	struct tui_fetch *f = arg;
	pthread_mutex_lock(&f->mu);
	f->st.bytes = (double)dlnow;
	f->st.total = (double)dltotal;
	pthread_mutex_unlock(&f->mu);
	return f->cancel ? 1 : 0;
}

/* ---- CSV rows into offers */

enum { COL_INSTANCE, COL_ACC, COL_COUNT, COL_PRICE, COL_SPOT, COL_REGION, COL_N };
static const char *const col_names[COL_N] = {
	"InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region",
};

struct csv_state {
	struct tui_fetch *f;
	const char *cloud;
	int row, col;
	int map[COL_N];          /* column index of each field, -1 if absent */
	char cell[COL_N][64];
};

static void on_field(void *s, size_t len, void *arg)
{
	struct csv_state *cs = arg;
	const char *txt = s ? s : "";
	if (cs->row == 0) {
		for (int k = 0; k < COL_N; k++)
			if (strlen(col_names[k]) == len && !memcmp(txt, col_names[k], len))
				cs->map[k] = cs->col;
	} else {
		for (int k = 0; k < COL_N; k++)
			if (cs->map[k] == cs->col) {
				size_t n = len < 63 ? len : 63;
				memcpy(cs->cell[k], txt, n);
				cs->cell[k][n] = 0;
			}
	}
	cs->col++;
}

static void add_offer(struct tui_fetch *f, const struct price_offer *o)
{
	for (int i = 0; i < f->n_offers; i++) {
		struct price_offer *e = &f->offers[i];
		if (strcmp(e->gpu, o->gpu) || strcmp(e->cloud, o->cloud))
			continue;
		if (o->usd_per_gpu_h > 0 && (e->usd_per_gpu_h <= 0 || o->usd_per_gpu_h < e->usd_per_gpu_h)) {
			double spot = e->spot_usd_per_gpu_h;
			*e = *o;
			if (spot > 0 && (o->spot_usd_per_gpu_h <= 0 || spot < o->spot_usd_per_gpu_h))
				e->spot_usd_per_gpu_h = spot;
		} else if (o->spot_usd_per_gpu_h > 0 &&
			   (e->spot_usd_per_gpu_h <= 0 || o->spot_usd_per_gpu_h < e->spot_usd_per_gpu_h)) {
			e->spot_usd_per_gpu_h = o->spot_usd_per_gpu_h;
		}
		return;
	}
	if (f->n_offers == f->cap_offers) {
		f->cap_offers = f->cap_offers ? 2 * f->cap_offers : 64;
		f->offers = xrealloc(f->offers, (size_t)f->cap_offers * sizeof *f->offers);
	}
	f->offers[f->n_offers++] = *o;
}

static void on_row(int c, void *arg)
{
	struct csv_state *cs = arg;
	if (cs->row++ == 0 || cs->map[COL_ACC] < 0 || cs->map[COL_PRICE] < 0) {
		cs->col = 0;
		return;
	}
	cs->col = 0;
	double count = atof(cs->cell[COL_COUNT]);
	const struct gpu_spec *g = *cs->cell[COL_ACC] ? catalog_gpu(cs->f->cat, cs->cell[COL_ACC]) : NULL;
	if (g && count >= 1) {
		/* A price of 0 means unknown (SkyPilot fills gaps with 0). */
		struct price_offer o = { 0 };
		hp_strlcpy(o.gpu, g->name, sizeof o.gpu);
		hp_strlcpy(o.cloud, cs->cloud, sizeof o.cloud);
		hp_strlcpy(o.instance, cs->cell[COL_INSTANCE], sizeof o.instance);
		hp_strlcpy(o.region, cs->cell[COL_REGION], sizeof o.region);
		o.count = (int)count;
		o.usd_per_gpu_h = atof(cs->cell[COL_PRICE]) / count;
		o.spot_usd_per_gpu_h = cs->map[COL_SPOT] >= 0 ? atof(cs->cell[COL_SPOT]) / count : 0;
		if (o.usd_per_gpu_h > 0 || o.spot_usd_per_gpu_h > 0)
			add_offer(cs->f, &o);
	}
	memset(cs->cell, 0, sizeof cs->cell);
	pthread_mutex_lock(&cs->f->mu);
	cs->f->st.rows++;
	pthread_mutex_unlock(&cs->f->mu);
}

/* "aws" from .../catalogs/v8/aws/vms.csv; else the host name. */
static void cloud_of(const char *url, char *out, size_t n)
{
	const char *end = strstr(url, "/vms.csv");
	if (end) {
		const char *s = end;
		while (s > url && s[-1] != '/')
			s--;
		snprintf(out, n, "%.*s", (int)(end - s), s);
		return;
	}
	const char *h = strstr(url, "://");
	h = h ? h + 3 : url;
	size_t k = strcspn(h, "/:");
	snprintf(out, n, "%.*s", (int)k, h);
}

static int parse_csv(struct tui_fetch *f, const char *url, const char *buf, size_t len)
{
	struct csv_parser p;
	if (csv_init(&p, CSV_APPEND_NULL) != 0)
		return -1;
	char cloud[16];
	cloud_of(url, cloud, sizeof cloud);
	struct csv_state cs = { .f = f, .cloud = cloud };
	for (int k = 0; k < COL_N; k++)
		cs.map[k] = -1;
	int rc = csv_parse(&p, buf, len, on_field, on_row, &cs) == len ? 0 : -1;
	csv_fini(&p, on_field, on_row, &cs);
	csv_free(&p);
	if (rc == 0 && (cs.map[COL_ACC] < 0 || cs.map[COL_PRICE] < 0))
		rc = -2;
	return rc;
}

static void *worker(void *arg)
{
	struct tui_fetch *f = arg;
	enum fetch_state end = FETCH_DONE;
	char err[256] = "";
	for (int i = 0; i < f->n_urls && end == FETCH_DONE; i++) {
		pthread_mutex_lock(&f->mu);
		f->st.source = i;
		f->st.bytes = f->st.total = 0;
		hp_strlcpy(f->st.url, f->urls[i], sizeof f->st.url);
		pthread_mutex_unlock(&f->mu);
		CURL *c = curl_easy_init();
		if (!c) {
			snprintf(err, sizeof err, "cannot start libcurl");
			end = FETCH_FAILED;
			break;
		}
		struct body b = { NULL, 0, f };
		char cerr[CURL_ERROR_SIZE] = "";
		curl_easy_setopt(c, CURLOPT_URL, f->urls[i]);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, f);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
		curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
		curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
		curl_easy_setopt(c, CURLOPT_USERAGENT, "hetplan/" "0.1");
		CURLcode rc = curl_easy_perform(c);
		curl_easy_cleanup(c);
		if (f->cancel) {
			end = FETCH_CANCELLED;
		} else if (rc != CURLE_OK) {
			snprintf(err, sizeof err, "%.120s: %.120s", f->urls[i],
				 *cerr ? cerr : curl_easy_strerror(rc));
			end = FETCH_FAILED;
		} else {
			int prc = parse_csv(f, f->urls[i], b.buf ? b.buf : "", b.len);
			if (prc == -2)
				snprintf(err, sizeof err, "%.160s: not a SkyPilot catalog (no AcceleratorName and Price columns)",
					 f->urls[i]);
			else if (prc < 0)
				snprintf(err, sizeof err, "%.200s: malformed CSV", f->urls[i]);
			if (prc < 0)
				end = FETCH_FAILED;
		}
		free(b.buf);
	}
	pthread_mutex_lock(&f->mu);
	f->st.state = end;
	f->st.finished = hp_now();
	hp_strlcpy(f->st.err, err, sizeof f->st.err);
	if (end == FETCH_DONE) {
		free(f->done);
		f->done = f->offers;
		f->n_done = f->n_offers;
		f->has_done = 1;
	} else {
		free(f->offers);
	}
	f->offers = NULL;
	f->n_offers = f->cap_offers = 0;
	pthread_mutex_unlock(&f->mu);
	char w = 'f';
	while (write(f->wake_fd, &w, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

struct tui_fetch *fetch_new(int wake_fd, const struct catalog *cat)
{
	struct tui_fetch *f = xcalloc(1, sizeof *f);
	f->wake_fd = wake_fd;
	f->cat = cat;
	pthread_mutex_init(&f->mu, NULL);
	return f;
}

int fetch_start(struct tui_fetch *f, const char *const *urls, int n)
{
	pthread_mutex_lock(&f->mu);
	int running = f->st.state == FETCH_RUNNING;
	pthread_mutex_unlock(&f->mu);
	if (running)
		return -1;
	if (f->have_thread) {
		pthread_join(f->th, NULL);
		f->have_thread = 0;
	}
	f->n_urls = 0;
	for (int i = 0; i < n && i < FETCH_MAX_URLS; i++)
		hp_strlcpy(f->urls[f->n_urls++], urls[i], sizeof f->urls[0]);
	f->cancel = 0;
	memset(&f->st, 0, sizeof f->st);
	f->st.state = FETCH_RUNNING;
	f->st.n_sources = f->n_urls;
	f->st.started = hp_now();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&f->th, NULL, worker, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		f->st.state = FETCH_FAILED;
		snprintf(f->st.err, sizeof f->st.err, "cannot start a thread");
		return -1;
	}
	f->have_thread = 1;
	return 0;
}

void fetch_cancel(struct tui_fetch *f)
{
	if (f)
		f->cancel = 1;
}

void fetch_status(struct tui_fetch *f, struct fetch_status *st)
{
	if (!f) {
		memset(st, 0, sizeof *st);
		return;
	}
	pthread_mutex_lock(&f->mu);
	*st = f->st;
	pthread_mutex_unlock(&f->mu);
}

int fetch_take(struct tui_fetch *f, struct price_offer **out)
{
	pthread_mutex_lock(&f->mu);
	int n = -1;
	if (f->has_done) {
		*out = f->done;
		n = f->n_done;
		f->done = NULL;
		f->has_done = 0;
	}
	pthread_mutex_unlock(&f->mu);
	return n;
}

void fetch_free(struct tui_fetch *f)
{
	if (!f)
		return;
	f->cancel = 1;
	if (f->have_thread)
		pthread_join(f->th, NULL);
	free(f->done);
	free(f->offers);
	pthread_mutex_destroy(&f->mu);
	free(f);
}
