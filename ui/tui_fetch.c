/* tui_fetch.c — the price book's update on a worker thread.
 *
 * `r` in the Prices view runs pricing_update() (src/pricing.h: every
 * configured source, conditional GETs, at most a few transfers at once,
 * the cache replaced only by data that parsed) on a thread of its own, so
 * the screen keeps answering while a slow server trickles bytes. Progress
 * comes through pricing_update's callback into fields guarded by a mutex;
 * Esc raises the atomic cancel flag the callback and libcurl check. When
 * the update ends, one byte on the wake pipe tells the main thread to
 * reload the book from the cache. The worker never touches curses. */
#include "tui_int.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tui_fetch {
	pthread_t th;
	int have_thread;
	pthread_mutex_t mu;
	int wake_fd;
	const struct catalog *cat;
	struct price_config cfg;
	atomic_int cancel;
	struct fetch_status st;
	struct price_update out[PRICE_MAX_SOURCES];
	int n_out;
	int finished_unseen;      /* an update ended and the book is not reloaded */
};

static int on_progress(void *ud, const struct price_progress *p)
{
	struct tui_fetch *f = ud;
	pthread_mutex_lock(&f->mu);
	f->st.source = p->done;
	f->st.n_sources = p->of;
	f->st.bytes = p->now_bytes;
	f->st.total = p->total_bytes;
	if (p->source)
		hp_strlcpy(f->st.url, p->source, sizeof f->st.url);
	pthread_mutex_unlock(&f->mu);
	return atomic_load(&f->cancel);
}

static void *worker(void *arg)
{
	struct tui_fetch *f = arg;
	struct price_update *out = xcalloc(PRICE_MAX_SOURCES, sizeof *out);
	struct hp_err err = { 0 };
	int n = f->cfg.n_sources;
	int failed = pricing_update(&f->cfg, f->cat, NULL, 0, on_progress, f, &f->cancel, out,
				    &err);
	pthread_mutex_lock(&f->mu);
	memcpy(f->out, out, sizeof f->out);
	f->n_out = failed < 0 ? 0 : n;
	f->st.n_failed = failed < 0 ? n : failed;
	f->st.n_fetched = 0;
	for (int i = 0; i < f->n_out; i++)
		if (out[i].result == PRICE_FETCHED || out[i].result == PRICE_NOT_MODIFIED)
			f->st.n_fetched++;
	if (atomic_load(&f->cancel))
		f->st.state = FETCH_CANCELLED;
	else if (failed < 0 || (failed == n && n > 0))
		f->st.state = FETCH_FAILED;
	else
		f->st.state = FETCH_DONE;
	if (failed < 0)
		hp_strlcpy(f->st.err, err.msg, sizeof f->st.err);
	else
		for (int i = 0; i < f->n_out; i++)
			if (out[i].result == PRICE_FAILED) {
				snprintf(f->st.err, sizeof f->st.err, "%.*s: %.*s",
					 UTF8_CUT(out[i].source, 60), UTF8_CUT(out[i].msg, 180));
				break;
			}
	f->st.finished = hp_now();
	f->finished_unseen = 1;
	pthread_mutex_unlock(&f->mu);
	free(out);
	char w = 'f';
	while (write(f->wake_fd, &w, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

struct tui_fetch *fetch_new(int wake_fd, const struct catalog *cat, const struct price_config *cfg)
{
	struct tui_fetch *f = xcalloc(1, sizeof *f);
	f->wake_fd = wake_fd;
	f->cat = cat;
	f->cfg = *cfg;
	atomic_init(&f->cancel, 0);
	pthread_mutex_init(&f->mu, NULL);
	return f;
}

int fetch_start(struct tui_fetch *f)
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
	atomic_store(&f->cancel, 0);
	pthread_mutex_lock(&f->mu);
	memset(&f->st, 0, sizeof f->st);
	f->st.state = FETCH_RUNNING;
	f->st.n_sources = f->cfg.n_sources;
	f->st.started = hp_now();
	pthread_mutex_unlock(&f->mu);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = hp_thread_start(&f->th, worker, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_lock(&f->mu);
		f->st.state = FETCH_FAILED;
		snprintf(f->st.err, sizeof f->st.err, "cannot start a thread");
		pthread_mutex_unlock(&f->mu);
		return -1;
	}
	f->have_thread = 1;
	return 0;
}

void fetch_cancel(struct tui_fetch *f)
{
	if (f)
		atomic_store(&f->cancel, 1);
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

int fetch_finished(struct tui_fetch *f)
{
	if (!f)
		return 0;
	pthread_mutex_lock(&f->mu);
	int r = f->finished_unseen;
	f->finished_unseen = 0;
	pthread_mutex_unlock(&f->mu);
	return r;
}

int fetch_result(struct tui_fetch *f, const char *source, struct price_update *out)
{
	int found = 0;
	if (!f)
		return 0;
	pthread_mutex_lock(&f->mu);
	for (int i = 0; i < f->n_out; i++)
		if (!strcmp(f->out[i].source, source)) {
			*out = f->out[i];
			found = 1;
		}
	pthread_mutex_unlock(&f->mu);
	return found;
}

void fetch_free(struct tui_fetch *f)
{
	if (!f)
		return;
	atomic_store(&f->cancel, 1);
	if (f->have_thread)
		pthread_join(f->th, NULL);
	pthread_mutex_destroy(&f->mu);
	free(f);
}
