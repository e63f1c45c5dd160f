/* http.c — a careful GET: timeouts, stall and size limits, conditional
 * requests, bounded Retry-After, progress and cancellation. */
#include "http.h"
#include "escape.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

void http_opts_default(struct http_opts *o)
{
	memset(o, 0, sizeof *o);
	o->connect_timeout_ms = 10000;
	o->low_speed_bytes = 1024;
	o->low_speed_s = 20;
	o->timeout_ms = 300000;
	o->max_bytes = 64.0 * 1024 * 1024;
	o->retry_wait_max_s = 5;
	o->max_redirects = 5;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void do_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

void http_global_init(void)
{
	pthread_once(&init_once, do_init);
}

void http_resp_free(struct http_resp *r)
{
	free(r->body);
	r->body = NULL;
	r->len = 0;
}

char *http_escape(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(3 * n + 1), *p = out;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
			*p++ = (char)c;
		} else {
			snprintf(p, 4, "%%%02X", c);
			p += 3;
		}
	}
	*p = '\0';
	return out;
}

/* State of one attempt. */
struct xfer {
	char *buf;
	size_t len, cap;
	double max_bytes;
	int over_cap;
	char etag[256], last_modified[64];
	double retry_after_s;   /* delay-seconds form of Retry-After; -1 none */
	double content_length;    /* -1 when not announced */
	http_progress_fn fn;
	void *ud;
	atomic_int *cancel;
	int cancelled;
	double last_report;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	if ((double)(x->len + n) > x->max_bytes) {
		x->over_cap = 1;
		return 0;         /* anything but n aborts with CURLE_WRITE_ERROR */
	}
	if (x->len + n + 1 > x->cap) {
		size_t cap = x->cap ? x->cap : 65536;
		while (cap < x->len + n + 1)
			cap *= 2;
		x->buf = xrealloc(x->buf, cap);
		x->cap = cap;
	}
	memcpy(x->buf + x->len, data, n);
	x->len += n;
	x->buf[x->len] = '\0';
	return n;
}

/* Copy a header's value (after "Name:"), trimmed, into dst. */
static void header_value(char *dst, size_t size, const char *v, size_t n)
{
	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' '))
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	/* A new status line starts a new header block (redirects, 100). */
	if (n >= 5 && !strncmp(data, "HTTP/", 5)) {
		x->etag[0] = x->last_modified[0] = '\0';
		x->content_length = -1;
		x->retry_after_s = -1;
	} else if (n > 5 && !strncasecmp(data, "ETag:", 5)) {
		header_value(x->etag, sizeof x->etag, data + 5, n - 5);
		if (!esc_is_printable(x->etag, sizeof x->etag - 1))
			x->etag[0] = '\0';   /* never stored, never replayed */
	} else if (n > 14 && !strncasecmp(data, "Last-Modified:", 14)) {
		header_value(x->last_modified, sizeof x->last_modified, data + 14, n - 14);
		if (!esc_is_printable(x->last_modified, sizeof x->last_modified - 1))
			x->last_modified[0] = '\0';
	} else if (n > 15 && !strncasecmp(data, "Content-Length:", 15)) {
		char v[32];
		header_value(v, sizeof v, data + 15, n - 15);
		x->content_length = atof(v);
	} else if (n > 12 && !strncasecmp(data, "Retry-After:", 12)) {
		/* RFC 9110 10.2.3: delay-seconds is 1*DIGIT, with no upper
		 * bound. curl reads it into a curl_off_t and reports 0 ("none")
		 * on overflow, so the digits are read here as a double, which
		 * holds any such value (20 digits -> 1e20 s); HTTP-dates are
		 * left to curl. */
		char v[64];
		header_value(v, sizeof v, data + 12, n - 12);
		size_t d = strspn(v, "0123456789");
		if (d && !v[d])
			x->retry_after_s = strtod(v, NULL);
	}
	return n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = ud;
	if (x->cancel && atomic_load(x->cancel)) {
		x->cancelled = 1;
		return 1;
	}
	if (x->fn) {
		double t = hp_now();
		if (t - x->last_report >= 0.1) {
			x->last_report = t;
			if (x->fn(x->ud, (double)dlnow, (double)dltotal)) {
				x->cancelled = 1;
				return 1;
			}
		}
	}
	return 0;
}

static const char *reason(long status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 408: return "Request Timeout";
	case 410: return "Gone";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "";
	}
}

/* Sleep s seconds in short steps so a cancel is noticed. 1 if cancelled. */
static int nap(double s, atomic_int *cancel)
{
	double end = hp_now() + s;
	while (hp_now() < end) {
		if (cancel && atomic_load(cancel))
			return 1;
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* "14:03:07 UTC" for now + s seconds. */
static void when(char *buf, size_t n, double s)
{
	/* Retry-After has no upper bound; past 100 years a date means
	 * nothing (and would overflow time_t's conversion). */
	if (!(s <= HP_MAX_DURATION_S)) {
		snprintf(buf, n, "more than 100 years");
		return;
	}
	time_t t = time(NULL) + (time_t)(s + 0.999);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, s >= 86400 ? "%Y-%m-%d %H:%M UTC" : "%H:%M:%S UTC", &tm);
}

/* One attempt. Returns the curl code; fills r and x. */
static CURLcode attempt(const char *url, const char *etag, const char *last_modified,
			const struct http_opts *o, struct xfer *x, struct http_resp *r,
			char *errbuf)
{
	CURL *h = curl_easy_init();
	if (!h)
		return CURLE_FAILED_INIT;
	struct curl_slist *hdrs = NULL;
	/* Validators come from a server and a cache file: one with a CR, LF
	 * or other control character would add a header line of its own,
	 * so it is not sent (the request is then unconditional). */
	if (etag && *etag && esc_is_printable(etag, 255)) {
		char *s = xasprintf("If-None-Match: %s", etag);
		hdrs = curl_slist_append(hdrs, s);
		free(s);
	}
	if (last_modified && *last_modified && esc_is_printable(last_modified, 63)) {
		char *s = xasprintf("If-Modified-Since: %s", last_modified);
		hdrs = curl_slist_append(hdrs, s);
		free(s);
	}
	errbuf[0] = '\0';
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "hetplan (GPU capacity planner)");
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR,
			 strncmp(url, "https:", 6) ? "http,https" : "https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, (long)o->max_redirects);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(h, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (o->ca_file[0])
		curl_easy_setopt(h, CURLOPT_CAINFO, o->ca_file);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, o->low_speed_bytes);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, o->low_speed_s);
	if (o->max_bytes < 9e18)
		curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_bytes);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	if (hdrs)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	CURLcode rc = curl_easy_perform(h);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	r->status = status;
	curl_off_t ra = 0;
	if (x->retry_after_s >= 0)
		r->retry_after_s = x->retry_after_s;
	else if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK)
		r->retry_after_s = (double)ra;
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return rc;
}

int http_get(const char *url, const char *etag, const char *last_modified,
	     const struct http_opts *o, http_progress_fn fn, void *ud,
	     atomic_int *cancel, struct http_resp *r, struct hp_err *err)
{
	http_global_init();
	memset(r, 0, sizeof *r);
	char errbuf[CURL_ERROR_SIZE], t[40];
	int waited_429 = 0, retried_5xx = 0;
	for (;;) {
		struct xfer x = { 0 };
		x.max_bytes = o->max_bytes;
		x.content_length = -1;
		x.retry_after_s = -1;
		x.fn = fn;
		x.ud = ud;
		x.cancel = cancel;
		r->tries++;
		r->retry_after_s = 0;
		CURLcode rc = attempt(url, etag, last_modified, o, &x, r, errbuf);
		if (rc == CURLE_OK && r->status == 200) {
			if (fn)
				fn(ud, (double)x.len, (double)x.len);
			r->body = x.buf ? x.buf : xcalloc(1, 1);
			r->len = x.len;
			hp_strlcpy(r->etag, x.etag, sizeof r->etag);
			hp_strlcpy(r->last_modified, x.last_modified, sizeof r->last_modified);
			return 0;
		}
		free(x.buf);
		if (rc == CURLE_OK && r->status == 304) {
			hp_strlcpy(r->etag, x.etag, sizeof r->etag);
			hp_strlcpy(r->last_modified, x.last_modified, sizeof r->last_modified);
			return 0;
		}
		if (rc != CURLE_OK) {
			const char *detail = errbuf[0] ? errbuf : curl_easy_strerror(rc);
			switch (rc) {
			case CURLE_ABORTED_BY_CALLBACK:
				return hp_err_set(err, HP_EXIT_FAIL, "%s: cancelled", url);
			case CURLE_WRITE_ERROR:
			case CURLE_FILESIZE_EXCEEDED:
				if (x.over_cap || rc == CURLE_FILESIZE_EXCEEDED) {
					char b[32];
					return hp_err_set(err, HP_EXIT_FAIL,
							  "%s: response is larger than the size cap of %s (--max-bytes)",
							  url, hp_fmt_bytes(b, sizeof b, o->max_bytes));
				}
				break;
			case CURLE_PARTIAL_FILE:
				return hp_err_set(err, HP_EXIT_FAIL,
						  "%s: response truncated: the connection closed before the announced length arrived (%s)",
						  url, detail);
			case CURLE_OPERATION_TIMEDOUT:
				if (strstr(detail, "too slow"))
					return hp_err_set(err, HP_EXIT_FAIL,
							  "%s: transfer stalled: under %ld bytes/s for %ld s (--timeout)",
							  url, o->low_speed_bytes, o->low_speed_s);
				return hp_err_set(err, HP_EXIT_FAIL, "%s: timed out (%s)", url, detail);
			case CURLE_TOO_MANY_REDIRECTS:
				return hp_err_set(err, HP_EXIT_FAIL,
						  "%s: more than %d redirects (a redirect loop?)", url,
						  o->max_redirects);
			case CURLE_COULDNT_RESOLVE_HOST:
				return hp_err_set(err, HP_EXIT_FAIL,
						  "%s: could not resolve the host (offline?): %s", url, detail);
			case CURLE_COULDNT_CONNECT:
				return hp_err_set(err, HP_EXIT_FAIL, "%s: could not connect: %s", url,
						  detail);
			default:
				break;
			}
			return hp_err_set(err, HP_EXIT_FAIL, "%s: %s", url, detail);
		}
		/* An HTTP status we do not accept. */
		long st = r->status;
		if (st == 429 || st == 503) {
			double ra = r->retry_after_s;
			if (ra > 0 && ra <= o->retry_wait_max_s && !waited_429) {
				waited_429 = 1;
				if (nap(ra, cancel))
					return hp_err_set(err, HP_EXIT_FAIL, "%s: cancelled", url);
				continue;
			}
			if (ra > 0) {
				when(t, sizeof t, ra);
				return hp_err_set(err, HP_EXIT_FAIL,
						  "%s: HTTP %ld %s: the server asks to wait %.0f s%s; try again after %s",
						  url, st, reason(st), ra,
						  waited_429 ? " again" : " (longer than hetplan waits)", t);
			}
			if (st == 429)
				return hp_err_set(err, HP_EXIT_FAIL,
						  "%s: HTTP 429 Too Many Requests (no Retry-After); try again in a few minutes",
						  url);
		}
		if (st >= 500 && !retried_5xx) {
			retried_5xx = 1;
			if (nap(0.5, cancel))
				return hp_err_set(err, HP_EXIT_FAIL, "%s: cancelled", url);
			continue;
		}
		return hp_err_set(err, HP_EXIT_FAIL, "%s: HTTP %ld %s%s", url, st, reason(st),
				  r->tries > 1 ? " (after a retry)" : "");
	}
}
