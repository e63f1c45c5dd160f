/* tui_job.c — the planner on a worker thread.
 *
 * One worker thread waits for jobs. A job is a private copy of the
 * workspace (cluster, model, options) and the edit generation it belongs
 * to; search_run() is reentrant, so the worker needs nothing else. The
 * newest submission wins: submitting while a job runs raises that job's
 * cancel flag, and its answer, when it comes, is dropped by the main
 * thread because its generation is old. Progress goes through
 * search_opts.progress into fields guarded by the mutex; a finished answer
 * is posted in `done` and announced with one byte on the wake pipe, so the
 * main loop's poll() wakes at once. The worker never touches curses. */
#include "tui_int.h"
#include "lp.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tui_planner {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int wake_fd;
	int quit;
	int has_pending;
	struct workspace pending;
	unsigned pending_gen;
	int running;
	atomic_int cancel;   /* set by the UI thread, read by the planner */
	double started, progress;
	struct tui_result *done;
};

static void on_progress(void *arg, double done)
{
	struct tui_planner *pl = arg;
	pthread_mutex_lock(&pl->mu);
	pl->progress = done;
	pthread_mutex_unlock(&pl->mu);
}

static void plan_into(const struct workspace *w, struct tui_result *r,
		      atomic_int *cancel, void (*progress)(void *, double), void *arg)
{
	r->c = w->cluster;
	r->m = w->model;
	r->o = w->opts;
	r->o.cancel = cancel;
	r->o.progress = progress;
	r->o.progress_arg = arg;
	memset(&r->err, 0, sizeof r->err);
	double t0 = hp_now();
	r->rc = search_run(&r->c, &r->m, &r->o, &r->res, &r->err);
	r->seconds = hp_now() - t0;
	r->o.cancel = NULL;
	r->o.progress = NULL;
	r->o.progress_arg = NULL;
}

void tui_plan_sync(const struct workspace *w, struct tui_result *r)
{
	memset(r, 0, sizeof *r);
	plan_into(w, r, NULL, NULL, NULL);
}

void tui_result_free(struct tui_result *r)
{
	if (!r)
		return;
	search_result_free(&r->res);
	free(r);
}

static void *worker(void *arg)
{
	struct tui_planner *pl = arg;
	struct workspace *w = xmalloc(sizeof *w);
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->quit && !pl->has_pending)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (pl->quit)
			break;
		*w = pl->pending;
		unsigned gen = pl->pending_gen;
		pl->has_pending = 0;
		pl->running = 1;
		atomic_store(&pl->cancel, 0);
		pl->progress = 0;
		pl->started = hp_now();
		pthread_mutex_unlock(&pl->mu);

		struct tui_result *r = xcalloc(1, sizeof *r);
		plan_into(w, r, &pl->cancel, on_progress, pl);
		r->gen = gen;

		pthread_mutex_lock(&pl->mu);
		pl->running = 0;
		tui_result_free(pl->done);
		pl->done = r;
		pthread_mutex_unlock(&pl->mu);
		char b = 'p';
		while (write(pl->wake_fd, &b, 1) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&pl->mu);
	}
	pthread_mutex_unlock(&pl->mu);
	free(w);
	/* The planner's LPs leave GLPK's environment in this thread's
	 * storage; it goes with the thread. */
	lp_thread_done();
	return NULL;
}

struct tui_planner *planner_new(int wake_fd)
{
	struct tui_planner *pl = xcalloc(1, sizeof *pl);
	pl->wake_fd = wake_fd;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cv, NULL);
	if (pthread_create(&pl->th, NULL, worker, pl) != 0) {
		pthread_mutex_destroy(&pl->mu);
		pthread_cond_destroy(&pl->cv);
		free(pl);
		return NULL;
	}
	return pl;
}

void planner_submit(struct tui_planner *pl, const struct workspace *w, unsigned gen)
{
	pthread_mutex_lock(&pl->mu);
	pl->pending = *w;
	pl->pending_gen = gen;
	pl->has_pending = 1;
	if (pl->running)
		atomic_store(&pl->cancel, 1);
	pthread_cond_signal(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
}

void planner_cancel(struct tui_planner *pl)
{
	pthread_mutex_lock(&pl->mu);
	if (pl->running)
		atomic_store(&pl->cancel, 1);
	pl->has_pending = 0;
	pthread_mutex_unlock(&pl->mu);
}

int planner_busy(struct tui_planner *pl, double *progress, double *elapsed)
{
	pthread_mutex_lock(&pl->mu);
	int busy = pl->running || pl->has_pending;
	*progress = pl->running ? pl->progress : 0;
	*elapsed = pl->running ? hp_now() - pl->started : 0;
	pthread_mutex_unlock(&pl->mu);
	return busy;
}

struct tui_result *planner_take(struct tui_planner *pl)
{
	pthread_mutex_lock(&pl->mu);
	struct tui_result *r = pl->done;
	pl->done = NULL;
	pthread_mutex_unlock(&pl->mu);
	return r;
}

void planner_free(struct tui_planner *pl)
{
	if (!pl)
		return;
	pthread_mutex_lock(&pl->mu);
	pl->quit = 1;
	atomic_store(&pl->cancel, 1);
	pthread_cond_signal(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	pthread_join(pl->th, NULL);
	tui_result_free(pl->done);
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->cv);
	free(pl);
}
