/* http.h — one bounded, cancellable HTTP GET over libcurl.
 *
 * Every transfer has a connect timeout, a stall detector (abort when fewer
 * than low_speed_bytes arrive per second for low_speed_s seconds), an
 * overall cap, and a size cap enforced while the body streams in (so a
 * compressed or length-less body cannot grow past it either). TLS peers and
 * host names are always verified; libcurl's proxy variables (http_proxy,
 * https_proxy, all_proxy, no_proxy) apply as usual. A redirect from https
 * to plain http is refused.
 *
 * Conditional GET: pass the validators of the cached copy; a 304 comes back
 * as status 304 with no body. HTTP 429 with a Retry-After of at most
 * retry_wait_max_s is waited out once (the wait watches the cancel flag);
 * a 5xx is retried once after a short pause.
 *
 * http_get() is blocking and may run on any thread; each call uses its own
 * easy handle. Call http_global_init() once from the main thread before
 * other threads exist (pricing_update() calls it too, guarded by a once). */
#ifndef HP_HTTP_H
#define HP_HTTP_H

#include <stdatomic.h>
#include <stddef.h>
#include "util.h"

struct http_opts {
	long connect_timeout_ms;   /* DNS + TCP + TLS; default 10 s */
	long low_speed_bytes;      /* stall threshold in bytes/s; default 1024 */
	long low_speed_s;          /* stall window; default 20 s */
	long timeout_ms;           /* whole transfer; default 300 s */
	double max_bytes;          /* body cap; default 64 MiB */
	double retry_wait_max_s;   /* longest Retry-After waited out; default 5 s */
	int max_redirects;         /* default 5 */
	char ca_file[256];         /* CA bundle override; "" = system default */
};

void http_opts_default(struct http_opts *o);

/* Progress of one transfer: bytes so far and the announced total (0 when
 * the server did not say). Return non-zero to abort the transfer. Called
 * from the thread running http_get(), at most ~10 times a second plus once
 * at the end. */
typedef int (*http_progress_fn)(void *ud, double now_bytes, double total_bytes);

struct http_resp {
	long status;             /* last HTTP status; 0 when none arrived */
	char *body;              /* NUL-terminated heap copy on 200; else NULL */
	size_t len;
	char etag[256];          /* validators of the response, verbatim */
	char last_modified[64];
	double retry_after_s;    /* from a 429/503, 0 if none */
	int tries;
};

void http_global_init(void);

/* GET url. etag / last_modified: the cached copy's validators or NULL.
 * Returns 0 when a 200 (body filled) or 304 (not modified) arrived, -1
 * otherwise with err->msg naming the URL and what went wrong, code
 * HP_EXIT_FAIL. cancel may be NULL. The caller frees r with
 * http_resp_free() in both cases. */
int http_get(const char *url, const char *etag, const char *last_modified,
	     const struct http_opts *o, http_progress_fn fn, void *ud,
	     atomic_int *cancel, struct http_resp *r, struct hp_err *err);

void http_resp_free(struct http_resp *r);

/* Percent-encode s for a query string (RFC 3986 unreserved kept). */
char *http_escape(const char *s);

#endif
