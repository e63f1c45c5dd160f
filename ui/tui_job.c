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
 * main loop's poll() wakes at once. The worker never touches curses.
 *
 * Best plans first, the full answer after. A search on a few hundred GPUs
 * in three pools takes from half a second to seconds, most for the
 * deadline and budget objectives (tests/bench_tui.sh), so a job runs in
 * two passes:
 *   first pass  search_run() whose cancel flag a timer thread raises at
 *               the preview budget (TUI_FIRST_S, below), or the progress
 *               callback after the first batch of settings when that ends
 *               past it: the search then returns the best plans found so
 *               far (search.h: "marked heuristic"). If it finished every
 *               setting anyway, that is the answer and the job ends.
 *               Otherwise its plans are posted with `partial` set;
 *   full run    search_run() again from the start, posted when it ends.
 * The planner polls cancel between layouts and layout sets inside each
 * global setting (search.c), so the first pass stops within milliseconds
 * of the budget; the timer waits for the first batch (one setting) to end
 * before it stops the search, so that a preview has plans: on clusters
 * where one setting takes longer than the budget the preview comes when it
 * ends. The full run repeats the first pass's settings (search_run has no
 * way to resume), so the full answer comes about the budget later than
 * with one pass.
 * An answer without plans from a pass that was cut short (by the preview
 * budget, an edit or Esc) is never posted: the screen keeps the plans it
 * has, which the Plans view marks as stale.
 *
 * HETPLAN_TUI_REFINE_HOLD_FILE (tui_int.h, the test-only variables)
 * holds the full run back after a preview while a file exists: on a fast
 * machine the full answer can replace the preview within milliseconds,
 * too soon for a test that reads the screen to see the preview at all.
 * An edit, Esc or quit ends the hold. */
#include "tui_int.h"
#include "lp.h"
#include "plan_label.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The first pass's budget, seconds: plans on screen within 200 ms of an
 * edit (hetplan issue 13) leaves ~50 ms for the wake-up and one frame
 * (the bench draws a frame in a few ms at 80x24). The timer stops the
 * first pass at the budget once its first batch of settings has ended; a
 * search that ends within the budget answers in one pass.
 * HETPLAN_TUI_FIRST_MS overrides it (0 to 10000 ms; 0: the preview comes
 * after the first batch always, 10000: in effect one pass). */
#define TUI_FIRST_S 0.150
#define TUI_FIRST_MAX_MS 10000

struct tui_planner {
	const struct catalog *cat;   /* names GPUs in the no-fit advice */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int wake_fd;
	int quit;
	int has_pending;
	struct workspace pending;
	unsigned pending_gen;
	double submitted;    /* hp_now() of the pending job's submission */
	int running;
	atomic_int cancel;   /* set by the UI thread, read by the planner */
	atomic_int first;    /* the first pass's cancel: the preview budget,
			      * or whatever raises `cancel` */
	double started, progress;
	struct tui_result *done;
	/* the worker's own (no lock): which pass runs, when the pass began,
	 * the preview budget */
	int pass;
	double pass_t0, first_s, job_submitted;
	/* the first pass's timer (under mu): batches of settings ended, and
	 * the timer's stop request and wake-up */
	int batches, timer_stop;
	pthread_cond_t timer_cv;
	/* the hold between a preview and the full run (under mu): its
	 * length, and the wake-up that an edit, Esc or quit sends */
	const char *refine_hold;     /* HETPLAN_TUI_REFINE_HOLD_FILE or NULL */
	pthread_cond_t hold_cv;
};

/* After each batch of global settings, on the worker (search.h: called
 * from the calling thread). In the first pass: stop when the budget is
 * spent (the timer does it between batches). */
static void on_progress(void *arg, double done)
{
	struct tui_planner *pl = arg;
	pthread_mutex_lock(&pl->mu);
	pl->progress = done;
	pl->batches++;
	if (pl->pass == 1 && hp_now() - pl->pass_t0 >= pl->first_s)
		atomic_store(&pl->first, 1);
	pthread_mutex_unlock(&pl->mu);
}

/* The CLOCK_REALTIME time in_s seconds from now, for
 * pthread_cond_timedwait. */
static void deadline_in(double in_s, struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
	double end = ts->tv_sec + ts->tv_nsec * 1e-9 + in_s;
	ts->tv_sec = (time_t)end;
	ts->tv_nsec = (long)((end - (double)ts->tv_sec) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* The first pass's timer: at the budget, stop the search if its first
 * batch has ended (else on_progress does when it ends). */
static void *timer_main(void *arg)
{
	struct tui_planner *pl = arg;
	struct timespec ts;
	deadline_in(pl->first_s - (hp_now() - pl->pass_t0), &ts);
	pthread_mutex_lock(&pl->mu);
	while (!pl->timer_stop) {
		int rc = pthread_cond_timedwait(&pl->timer_cv, &pl->mu, &ts);
		if (rc == ETIMEDOUT) {
			if (pl->batches > 0)
				atomic_store(&pl->first, 1);
			break;
		}
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Milliseconds from the environment variable name, 0 to max_ms, in
 * seconds; dflt_s when it is unset or out of range (the TUI has no stderr
 * to warn on). */
static double env_ms(const char *name, long max_ms, double dflt_s)
{
	const char *v = getenv(name);
	char *end;
	if (!v || !*v)
		return dflt_s;
	long ms = strtol(v, &end, 10);
	if (*end || ms < 0 || ms > max_ms)
		return dflt_s;
	return ms / 1e3;
}

void tui_hold_while_file(const char *path, pthread_mutex_t *mu, pthread_cond_t *cv,
			 int (*ended)(void *), void *arg)
{
	if (!path || !*path)
		return;
	double end = hp_now() + TUI_HOLD_MAX_S;
	while (!ended(arg) && access(path, F_OK) == 0 && hp_now() < end) {
		struct timespec ts;
		deadline_in(TUI_HOLD_POLL_S, &ts);
		pthread_cond_timedwait(cv, mu, &ts);
	}
}

static int preview_ended(void *arg)
{
	struct tui_planner *pl = arg;
	return atomic_load(&pl->cancel);
}

/* After a preview: wait while the refine hold file exists, or until an
 * edit, Esc or quit raises cancel. */
static void hold_preview(struct tui_planner *pl)
{
	pthread_mutex_lock(&pl->mu);
	tui_hold_while_file(pl->refine_hold, &pl->mu, &pl->hold_cv, preview_ended, pl);
	pthread_mutex_unlock(&pl->mu);
}

static void plan_into(const struct workspace *w, struct tui_result *r,
		      atomic_int *cancel, void (*progress)(void *, double), void *arg)
{
	r->c = w->cluster;
	r->m = w->model;
	r->o = w->opts;
	/* the TUI's precision is the Workload tab's, whether the file set
	 * it or the user since (no flag to name) */
	snprintf(r->o.precision_from, sizeof r->o.precision_from, "workload");
	r->o.cancel = cancel;
	r->o.progress = progress;
	r->o.progress_arg = arg;
	memset(&r->err, 0, sizeof r->err);
	double t0 = hp_now();
	/* a MoE model under a dense-only framework: every plan would be
	 * refused, so say why instead of searching (as `plan --framework`) */
	if (plan_framework_model(r->o.framework, &r->m, "framework", &r->err) < 0)
		r->rc = -1;
	else
	{
		r->rc = search_run(&r->c, &r->m, &r->o, &r->res, &r->err);
		plan_label_result(&r->res, &r->c);
	}
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

/* Hand r to the main thread (NULL: only wake it, to redraw). */
static void post(struct tui_planner *pl, struct tui_result *r)
{
	if (r)
		r->ready_s = hp_now() - pl->job_submitted;
	pthread_mutex_lock(&pl->mu);
	if (r) {
		tui_result_free(pl->done);
		pl->done = r;
	}
	pthread_mutex_unlock(&pl->mu);
	char b = 'p';
	while (write(pl->wake_fd, &b, 1) < 0 && errno == EINTR)
		;
}

/* One job: the first pass, then, if it was cut short by the budget, the
 * full run (see the top of the file). */
/* A finished search without a plan: what would make one fit (advice.h,
 * `hetplan plan`'s lines), on this thread, as an edit's cancel stops it. */
static void advise(struct tui_planner *pl, struct tui_result *r)
{
	if (r->rc == 0 || r->err.code != HP_EXIT_NOFIT || r->res.stats.cancelled || r->res.n_plans)
		return;
	struct search_opts o = r->o;
	int add[HP_MAX_POOLS];
	char text[512];
	o.cancel = &pl->cancel;
	nofit_advice_run(&r->c, &r->m, &o, &r->res, pl->cat, model_train_tokens(&r->m, r->o.tokens),
			 add, text, sizeof text, &r->advice);
	if (atomic_load(&pl->cancel))
		memset(&r->advice, 0, sizeof r->advice);
}

static void run_job(struct tui_planner *pl, const struct workspace *w, unsigned gen)
{
	struct tui_result *r = xcalloc(1, sizeof *r);
	pl->pass = 1;
	pl->pass_t0 = hp_now();
	pthread_mutex_lock(&pl->mu);
	pl->batches = 0;
	pl->timer_stop = 0;
	pthread_mutex_unlock(&pl->mu);
	pthread_t timer;
	int timing = hp_thread_start(&timer, timer_main, pl) == 0;
	plan_into(w, r, &pl->first, on_progress, pl);
	if (timing) {
		pthread_mutex_lock(&pl->mu);
		pl->timer_stop = 1;
		pthread_cond_signal(&pl->timer_cv);
		pthread_mutex_unlock(&pl->mu);
		pthread_join(timer, NULL);
	}
	pl->pass = 2;
	r->gen = gen;
	int cut = r->res.stats.cancelled, have = r->rc == 0 && r->res.n_plans > 0;
	if (!cut || atomic_load(&pl->cancel)) {
		/* complete, or stopped by an edit or Esc: then it is the best
		 * so far, and no full answer follows */
		r->partial = cut;
		if (!cut)
			advise(pl, r);
		if (!cut || have)
			post(pl, r);
		else
			tui_result_free(r);
		return;
	}
	long first_candidates = r->res.stats.candidates;
	pthread_mutex_lock(&pl->mu);
	pl->progress = 0;
	pthread_mutex_unlock(&pl->mu);
	if (have) {
		r->partial = 1;
		post(pl, r);
		hold_preview(pl);
	} else {
		tui_result_free(r);
	}
	r = xcalloc(1, sizeof *r);
	plan_into(w, r, &pl->cancel, on_progress, pl);
	r->gen = gen;
	/* Stopped early, the full run may have got less far than the first
	 * pass (same settings in the same order, so fewer candidates means
	 * fewer settings): then the first pass's plans stay on screen. */
	if (r->res.stats.cancelled &&
	    (r->rc < 0 || !r->res.n_plans || r->res.stats.candidates < first_candidates)) {
		tui_result_free(r);
		return;
	}
	r->partial = r->res.stats.cancelled;
	advise(pl, r);
	post(pl, r);
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
		pl->job_submitted = pl->submitted;
		pl->has_pending = 0;
		pl->running = 1;
		atomic_store(&pl->cancel, 0);
		atomic_store(&pl->first, 0);
		pl->progress = 0;
		pl->started = hp_now();
		pthread_mutex_unlock(&pl->mu);

		run_job(pl, w, gen);

		pthread_mutex_lock(&pl->mu);
		pl->running = 0;
		pthread_mutex_unlock(&pl->mu);
		/* one more byte: the main loop redraws with the planner idle */
		post(pl, NULL);
		pthread_mutex_lock(&pl->mu);
	}
	pthread_mutex_unlock(&pl->mu);
	free(w);
	/* The planner's LPs leave GLPK's environment in this thread's
	 * storage; it goes with the thread. */
	lp_thread_done();
	return NULL;
}

struct tui_planner *planner_new(int wake_fd, const struct catalog *cat)
{
	struct tui_planner *pl = xcalloc(1, sizeof *pl);
	pl->wake_fd = wake_fd;
	pl->cat = cat;
	pl->first_s = env_ms("HETPLAN_TUI_FIRST_MS", TUI_FIRST_MAX_MS, TUI_FIRST_S);
	pl->refine_hold = getenv(TUI_HOLD_FILE_ENV_REFINE);
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cv, NULL);
	pthread_cond_init(&pl->timer_cv, NULL);
	pthread_cond_init(&pl->hold_cv, NULL);
	if (hp_thread_start(&pl->th, worker, pl) != 0) {
		pthread_mutex_destroy(&pl->mu);
		pthread_cond_destroy(&pl->cv);
		pthread_cond_destroy(&pl->timer_cv);
		pthread_cond_destroy(&pl->hold_cv);
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
	pl->submitted = hp_now();
	pl->has_pending = 1;
	if (pl->running) {
		atomic_store(&pl->cancel, 1);
		atomic_store(&pl->first, 1);
		pthread_cond_signal(&pl->hold_cv);
	}
	pthread_cond_signal(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
}

void planner_cancel(struct tui_planner *pl)
{
	pthread_mutex_lock(&pl->mu);
	if (pl->running) {
		atomic_store(&pl->cancel, 1);
		atomic_store(&pl->first, 1);
		pthread_cond_signal(&pl->hold_cv);
	}
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
	atomic_store(&pl->first, 1);
	pthread_cond_signal(&pl->cv);
	pthread_cond_signal(&pl->hold_cv);
	pthread_mutex_unlock(&pl->mu);
	pthread_join(pl->th, NULL);
	tui_result_free(pl->done);
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->cv);
	pthread_cond_destroy(&pl->timer_cv);
	pthread_cond_destroy(&pl->hold_cv);
	free(pl);
}
