/* tui_serve.c — the Serve view: serving plans for the cluster of the
 * Cluster view, edited like the Model view and re-planned in the background.
 *
 * The view holds its own workload (model preset, prompt and output lengths,
 * request rate or offline, p99 TTFT and TPOT targets, engine, weight and KV
 * precisions, objective); the cluster and its prices are the workspace's.
 * Every edit here, and every edit of the cluster, submits a copy of both to
 * a worker thread that runs serve_plan() (src/serve_search.h) and posts the
 * answer on the TUI's wake pipe, like the training planner (tui_job.c): the
 * newest submission wins, older answers are dropped by generation. A plan
 * of the default workspace takes tens of milliseconds (serve_plan has no
 * cancel flag; it needs none at that cost).
 *
 * The workload is the workspace's "serve" section (workspace.h): an edit
 * here writes it (so `w` saves it), and a workspace opened with one sets
 * the fields. Simplified, on purpose: the TUI plans whole-model replicas (fleet sizing), not `--place` or
 * `--disagg`, which stay on the command line (`hetplan serve`). */
#include "cmd_serve.h"
#include "serve_report.h"
#include "sbuf.h"
#include "serve_search.h"
#include "tui_int.h"
#include "table.h"
#include "utf8.h"
#include "escape.h"
#include "lp.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the settings and their fields */

enum sfield {
	SF_MODEL, SF_ISL, SF_OSL, SF_RATE, SF_TTFT, SF_TPOT, SF_ENGINE, SF_WPREC, SF_KVPREC,
	SF_OBJECTIVE, SF_COUNT
};

struct sfield_desc {
	const char *label;
	const char *key;             /* its ws_serve_fields key: the help's source */
	const char *unit;            /* after the value */
	const char *hint;            /* in the prompt; NULL: a choice (h/l cycle it) */
	const char *flag;            /* the `hetplan serve` flag it stands for, or NULL */
};

static const struct sfield_desc sfields[SF_COUNT] = {
	[SF_MODEL] = { "Model", "model", "", "a preset name ('hetplan models')", NULL },
	[SF_ISL] = { "Prompt", "isl", "tokens", "tokens: N, lognormal:MEAN:CV, uniform:LO:HI or exp:MEAN", "--isl" },
	[SF_OSL] = { "Output", "osl", "tokens", "tokens: N, lognormal:MEAN:CV, uniform:LO:HI or exp:MEAN", "--osl" },
	[SF_RATE] = { "Rate", "rate", "req/s", "requests/s, or offline for the most the cluster serves", "--rate" },
	[SF_TTFT] = { "TTFT p99", "ttft_p99_s", "s", "seconds to the first token; none", "--ttft-p99" },
	[SF_TPOT] = { "TPOT p99", "tpot_p99_s", "ms", "milliseconds per output token; none", "--tpot-p99" },
	[SF_ENGINE] = { "Engine", "engine", "", NULL, "--engine" },
	[SF_WPREC] = { "Weights", "weights", "", NULL, "--precision" },
	[SF_KVPREC] = { "KV cache", "kv_cache", "", NULL, "--kv-precision" },
	[SF_OBJECTIVE] = { "Objective", "objective", "", NULL, "--objective" },
};

/* After the view's own fields come the serve settings table's entries
 * that carry a TUI label (ws_serve_fields, src/workspace.c: Prompts apart,
 * Sched steps, Eager), shown, edited and checked through the table, as
 * the command line's flags are. Indices from SF_COUNT on. */
enum { MAX_TAB = 8 };
static int tab_idx[MAX_TAB], n_tab = -1;

static int n_fields(void)
{
	if (n_tab < 0) {
		n_tab = 0;
		for (int i = 0; i < ws_serve_fields.n && n_tab < MAX_TAB; i++)
			if (ws_serve_fields.f[i].label)
				tab_idx[n_tab++] = i;
	}
	return SF_COUNT + n_tab;
}

static const struct hp_field *tab_field(int f)
{
	return f >= SF_COUNT && f < n_fields() ? &ws_serve_fields.f[tab_idx[f - SF_COUNT]] : NULL;
}

static const char *field_label(int f)
{
	const struct hp_field *tf = tab_field(f);
	return tf ? tf->label : sfields[f].label;
}

/* ---- the help screen's notes: what each field is, from the tables
 * (the view's prompt hint, else the settings' help; the command line's
 * flag). A choice field is
 * cycled by h/l or Enter, with no prompt, so its meaning ("PF apart",
 * "Steps/call") was shown nowhere. */

static const struct hp_field *settings_field(const char *key)
{
	for (int i = 0; i < ws_serve_fields.n; i++)
		if (!strcmp(ws_serve_fields.f[i].key, key))
			return &ws_serve_fields.f[i];
	return NULL;
}

const char *const *tui_serve_notes(int *n)
{
	static struct tui_notes nt;
	static int done;
	if (!done) {
		done = 1;
		for (int f = 0; f < n_fields(); f++) {
			const struct hp_field *tf = f < SF_COUNT ? settings_field(sfields[f].key) : tab_field(f);
			const char *flag = f < SF_COUNT ? sfields[f].flag : NULL;
			char text[400], fl[40] = "";
			if (!flag && tf && tf->flag) {
				snprintf(fl, sizeof fl, "--%s", tf->flag);
				flag = fl;
			}
			/* the view's own words where it has them: its TPOT is
			 * typed in ms, the settings' in seconds */
			const char *help = f < SF_COUNT && sfields[f].hint ? sfields[f].hint
					   : tf && tf->help ? tf->help : "";
			snprintf(text, sizeof text, "%s%s%s", flag ? flag : "", flag ? ": " : "", help);
			tui_notes_add(&nt, field_label(f), text);
		}
	}
	*n = nt.n;
	return nt.line;
}

/* The prompt's hint; NULL for a choice (h/l cycle it). */
static const char *field_hint(int f, char *buf, size_t n)
{
	const struct hp_field *tf = tab_field(f);
	if (!tf)
		return sfields[f].hint;
	if (tf->kind == FK_BOOL || tf->kind == FK_ENUM)
		return NULL;
	return tf->hint ? tf->hint : fields_want(tf, 0, buf, n);
}

/* One job and its answer: copies of everything serve_plan reads. */
struct serve_answer {
	struct cluster c;
	struct model_spec m;
	struct serve_opts so;
	struct serve_plan_result res;
	int rc;                      /* serve_plan's return */
	struct hp_err err;
	unsigned gen;
};

struct tui_serve {
	/* settings: main thread only */
	struct model_spec m;
	struct serve_opts so;
	char isl[48], osl[48];       /* as typed: the distributions */
	struct tui_list lfields, lplans;
	int pane;                    /* 0 fields, 1 plans */
	int exporting;               /* the prompt asks for an export file name */
	struct ws_serve applied;     /* the workspace's "serve" last applied or written */
	unsigned gen;
	struct serve_answer *cur;    /* the answer shown */
	/* the worker */
	pthread_t th;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int wake_fd, quit, running, has_pending;
	struct serve_answer *pending, *done;
	const char *hold_file;       /* HETPLAN_TUI_SERVE_HOLD_FILE or NULL */
};

static void serve_run(struct serve_answer *a)
{
	memset(&a->err, 0, sizeof a->err);
	memset(&a->res, 0, sizeof a->res);
	a->rc = serve_plan(&a->c, &a->m, &a->so, NULL, &a->res, &a->err);
}

static int answer_ended(void *arg)
{
	struct tui_serve *s = arg;
	return s->quit || s->has_pending;
}

/* HETPLAN_TUI_SERVE_HOLD_FILE (tui_int.h, the test-only variables) holds
 * each answer back while its file exists, the view busy meanwhile, so
 * that a test reading the screen sees the footer while serving is planned
 * (an answer of the default workspace takes tens of milliseconds). A
 * newer submission or quit ends the hold. Called and returns with mu
 * held. */
static void hold_answer(struct tui_serve *s)
{
	tui_hold_while_file(s->hold_file, &s->mu, &s->cv, answer_ended, s);
}

static void *serve_worker(void *arg)
{
	struct tui_serve *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->quit && !s->has_pending)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->quit)
			break;
		struct serve_answer *a = s->pending;
		s->pending = NULL;
		s->has_pending = 0;
		s->running = 1;
		pthread_mutex_unlock(&s->mu);
		serve_run(a);
		pthread_mutex_lock(&s->mu);
		hold_answer(s);
		s->running = 0;
		free(s->done);
		s->done = a;
		pthread_mutex_unlock(&s->mu);
		char b = 's';
		while (write(s->wake_fd, &b, 1) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	/* The fleet ILP leaves GLPK's environment in this thread's storage;
	 * it goes with the thread (as in tui_job.c). */
	lp_thread_done();
	return NULL;
}

/* The workspace's "serve" section into the view's settings, when it holds
 * one that the view has not applied yet (a workspace just opened). Values
 * were checked when the file was read; one that no longer parses (a preset
 * gone from the user's catalog) keeps the view's current value. */
static void build_note(struct tui *t);

static void serve_from_ws(struct tui *t)
{
	struct tui_serve *s = t->serve;
	const struct ws_serve *w = &t->ws.serve;
	if (!w->set || !memcmp(w, &s->applied, sizeof *w))
		return;
	s->applied = *w;
	struct hp_err err = { 0 };
	const struct model_spec *m = *w->model ? catalog_model(t->cat, w->model) : NULL;
	s->m = m ? *m : t->ws.model;
	if (serve_dist_parse(w->isl, &s->so.isl, &err) == 0)
		hp_strlcpy(s->isl, w->isl, sizeof s->isl);
	if (serve_dist_parse(w->osl, &s->so.osl, &err) == 0)
		hp_strlcpy(s->osl, w->osl, sizeof s->osl);
	ws_serve_to_opts(w, &s->so);
	/* the pair `hetplan serve` refuses (an engine with another
	 * engine's build) was silent until an edit: noted as it opens */
	build_note(t);
}

/* An edit of the view: its settings become the workspace's "serve"
 * section, saved with the workspace (`w`). */
static void serve_to_ws(struct tui *t)
{
	struct tui_serve *s = t->serve;
	struct ws_serve w;
	memset(&w, 0, sizeof w);
	w.set = 1;
	if (catalog_model(t->cat, s->m.name))
		hp_strlcpy(w.model, s->m.name, sizeof w.model);
	hp_strlcpy(w.isl, s->isl, sizeof w.isl);
	hp_strlcpy(w.osl, s->osl, sizeof w.osl);
	w.offline = s->so.offline;
	w.rate = s->so.offline ? 0 : s->so.rate;
	w.ttft_p99_s = s->so.slo.ttft_p99_s;
	w.tpot_p99_s = s->so.slo.tpot_p99_s;
	w.engine = s->so.base.engine;
	w.wprec = s->so.base.wprec;
	w.kvprec = s->so.base.kvprec;
	w.wprec_given = s->so.base.wprec_given;
	w.kvprec_given = s->so.base.kvprec_given;
	w.objective = s->so.objective;
	ws_serve_from_config(&w, &s->so.base);
	t->ws.serve = w;
	s->applied = w;
	t->dirty = 1;
}

void tui_serve_init(struct tui *t)
{
	struct tui_serve *s = xcalloc(1, sizeof *s);
	serve_opts_init(&s->so);
	/* The example of the serving docs: Llama-3.1 70B at 40 requests/s,
	 * prompts of 1,500 tokens and answers of 300, p99 TTFT under 2 s and
	 * TPOT under 50 ms (docs/serving.md). The model is the workspace's. */
	s->m = t->ws.model;
	s->so.isl.a = 1500;
	s->so.osl.a = 300;
	s->so.rate = 40;
	s->so.slo.ttft_p99_s = 2;
	s->so.slo.tpot_p99_s = 0.05;
	s->so.objective = SERVE_OBJ_COST;
	snprintf(s->isl, sizeof s->isl, "1500");
	snprintf(s->osl, sizeof s->osl, "300");
	s->wake_fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	t->serve = s;
	serve_from_ws(t);
}

int tui_serve_start(struct tui *t, int wake_fd)
{
	struct tui_serve *s = t->serve;
	s->wake_fd = wake_fd;
	s->hold_file = getenv(TUI_HOLD_FILE_ENV_SERVE);
	if (hp_thread_start(&s->th, serve_worker, s) != 0)
		return -1;
	s->started = 1;
	return 0;
}

void tui_serve_done(struct tui *t)
{
	struct tui_serve *s = t->serve;
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->mu);
		s->quit = 1;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->th, NULL);
	}
	free(s->pending);
	free(s->done);
	free(s->cur);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
	t->serve = NULL;
}

static struct serve_answer *job_of(const struct tui *t)
{
	const struct tui_serve *s = t->serve;
	struct serve_answer *a = xcalloc(1, sizeof *a);
	a->c = t->ws.cluster;
	a->m = s->m;
	/* A model that is no preset (read from a file, or typed in) has no
	 * repository an engine can fetch: its launch lines load the
	 * placeholder `hetplan serve` prints for one (SERVE_MODEL_PLACEHOLDER). */
	if (!*a->m.hf_id && !catalog_model(t->cat, a->m.name))
		hp_strlcpy(a->m.hf_id, SERVE_MODEL_PLACEHOLDER, sizeof a->m.hf_id);
	a->so = s->so;
	a->gen = s->gen;
	return a;
}

void tui_serve_submit(struct tui *t)
{
	struct tui_serve *s = t->serve;
	if (!s)
		return;
	serve_from_ws(t);
	s->gen++;
	struct serve_answer *a = job_of(t);
	if (!s->started) {           /* bench: on this thread */
		serve_run(a);
		free(s->cur);
		s->cur = a;
		return;
	}
	pthread_mutex_lock(&s->mu);
	free(s->pending);
	s->pending = a;
	s->has_pending = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

int tui_serve_poll(struct tui *t)
{
	struct tui_serve *s = t->serve;
	if (!s || !s->started)
		return 0;
	pthread_mutex_lock(&s->mu);
	struct serve_answer *a = s->done;
	s->done = NULL;
	pthread_mutex_unlock(&s->mu);
	if (!a)
		return 0;
	if (a->gen != s->gen) {
		free(a);
		return 0;
	}
	free(s->cur);
	s->cur = a;
	tui_list_fix(&s->lplans, a->res.n_plans, a->res.n_plans);
	return 1;
}

int tui_serve_busy(struct tui *t)
{
	struct tui_serve *s = t->serve;
	if (!s || !s->started)
		return 0;
	pthread_mutex_lock(&s->mu);
	int busy = s->running || s->has_pending;
	pthread_mutex_unlock(&s->mu);
	return busy;
}

/* ---- field values */

static void fmt_num(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
}

/* The table's settings of the view, as a ws_serve (back:
 * ws_serve_to_config). */
static void tab_get(const struct tui_serve *s, struct ws_serve *w)
{
	memset(w, 0, sizeof *w);
	ws_serve_from_config(w, &s->so.base);
}

/* The Weights or KV cache field (kv 0 or 1): the precision named, or the
 * default and what it runs as on c's GPUs, in the field's 24 columns at
 * 80x24: "bf16" where every pool has bf16, "fp16: Volta, no bf16" where
 * none has, "bf16, fp16 on Volta" for a mix; a bf16 named (h/l past the
 * default) reads "bf16 only": pools without it get no instances, and a
 * cluster of them none (the plans pane says why). */
static void prec_get(const struct tui_serve *s, const struct cluster *c, int kv, char *buf,
		     size_t n)
{
	const struct serve_config *b = &s->so.base;
	int given = kv ? b->kvprec_given : b->wprec_given;
	int bf16 = kv ? b->kvprec == SKV_BF16 : b->wprec == SW_BF16;
	const char *name = kv ? serve_kvprec_name(b->kvprec) : serve_wprec_name(b->wprec);
	int lack = 0;
	const struct gpu_spec *g = NULL;
	for (int i = 0; c && i < c->n_pools; i++)
		if (!serve_gpu_has_bf16(&c->pools[i].gpu)) {
			lack++;
			g = g ? g : &c->pools[i].gpu;
		}
	if (!bf16 || !lack) {
		snprintf(buf, n, "%s%s", name, bf16 && given ? " only" : "");
		return;
	}
	char arch[16];
	snprintf(arch, sizeof arch, "%s", hp_gen_name(g->gen));
	arch[0] = (char)(arch[0] - 'a' + 'A');
	if (given)
		snprintf(buf, n, "bf16 only");
	else if (lack == c->n_pools)
		snprintf(buf, n, "fp16: %s, no bf16", arch);
	else
		snprintf(buf, n, "bf16, fp16 on %s", arch);
}

/* The text of field f and its unit ("" when the value carries none); c:
 * the cluster the precisions run on. */
static const char *field_get(const struct tui_serve *s, const struct cluster *c, int f,
			     char *buf, size_t n)
{
	const struct hp_field *tf = tab_field(f);
	if (tf) {
		struct ws_serve w;
		tab_get(s, &w);
		/* an unset count (0) is its range's first value (sched_steps:
		 * 1, every iteration) */
		if (tf->kind == FK_INT && fields_get_int(tf, &w) == 0)
			snprintf(buf, n, "%.0f", tf->min);
		else
			fields_format(tf, &w, buf, n);
		return tf->unit ? tf->unit : "";
	}
	const char *unit = sfields[f].unit;
	switch (f) {
	case SF_MODEL: snprintf(buf, n, "%s", s->m.name); break;
	case SF_ISL: snprintf(buf, n, "%s", s->isl); break;
	case SF_OSL: snprintf(buf, n, "%s", s->osl); break;
	case SF_RATE:
		if (s->so.offline) {
			snprintf(buf, n, "offline");
			unit = "";
		} else {
			fmt_num(buf, n, s->so.rate);
		}
		break;
	case SF_TTFT:
	case SF_TPOT: {
		double v = f == SF_TTFT ? s->so.slo.ttft_p99_s : s->so.slo.tpot_p99_s * 1e3;
		if (v > 0) {
			fmt_num(buf, n, v);
		} else {
			snprintf(buf, n, "none");
			unit = "";
		}
		break;
	}
	case SF_ENGINE: snprintf(buf, n, "%s", serve_engine_name(s->so.base.engine)); break;
	case SF_WPREC: prec_get(s, c, 0, buf, n); break;
	case SF_KVPREC: prec_get(s, c, 1, buf, n); break;
	case SF_OBJECTIVE:
		/* offline plans rank by throughput, whatever the field holds */
		snprintf(buf, n, "%s%s", serve_objective_ranked(&s->so),
			 s->so.offline ? " (offline)" : "");
		break;
	default: *buf = 0; break;
	}
	return unit;
}

/* The largest rate the Serve view's field takes, the bound that keeps
 * the solver's numbers finite and a typing slip (1e9) from reading as a
 * goal: 10 million requests/s is beyond any fleet the catalog builds.
 * (The latency targets' bounds are their ws_serve_fields entries',
 * through serve_slo_parse.) */
#define RATE_MAX 1e7       /* requests/s */

/* A positive number up to max. */
static int parse_target(const char *s, double max, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int set_model(struct tui *t, const char *name)
{
	const struct model_spec *m = catalog_model(t->cat, name);
	if (!m) {
		tui_message(t, 1, "Model: no preset '%.*s' ('hetplan models' lists them)", UTF8_CUT(name, 60));
		return -1;
	}
	t->serve->m = *m;
	return 0;
}

/* `e`: the plans shown, as `hetplan serve --format json` writes them
 * (.md: its Markdown table), written atomically. Not the training plan:
 * this view's plans are serving plans. */
static int serve_export(struct tui *t, const char *path)
{
	const struct serve_answer *a = t->serve->cur;
	struct hp_err err = { 0 };
	if (!esc_is_printable(path, 4096)) {
		tui_message(t, 1, "file name has control characters");
		return -1;
	}
	if (!a) {
		tui_message(t, 1, "no serving plan to export yet");
		return -1;
	}
	enum cli_format fmt = FMT_JSON;   /* .md and .html by their extension, else JSON */
	cli_format_from_path(path, &fmt, 1u << FMT_JSON | 1u << FMT_MD | 1u << FMT_HTML);
	char *text = serve_plans_text(&a->res, a->rc, &a->c, &a->m, &a->so, fmt);
	int rc = hp_write_file_atomic(path, text, strlen(text), &err);
	free(text);
	if (rc < 0) {
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	tui_message(t, 0, "exported %d serving plan%s to %.*s", a->res.n_plans,
		    a->res.n_plans == 1 ? "" : "s", UTF8_CUT(path, 200));
	return 0;
}

/* After a settings-table edit: an engine build that changes nothing here
 * (another engine's, or no pool with its GPUs: serve_build_note) is kept,
 * as h/l pass through it, and the message line says so, where the command
 * line refuses it. */
static void build_note(struct tui *t)
{
	char why[512];
	if (serve_build_note(why, sizeof why, &t->serve->so.base, &t->ws.cluster))
		tui_message(t, 0, "Build %.*s: it changes nothing", UTF8_CUT(why, 400));
}

int tui_serve_field_commit(struct tui *t, const char *text)
{
	struct tui_serve *s = t->serve;
	int f = s->lfields.sel;
	if (s->exporting) {
		s->exporting = 0;
		return *text ? serve_export(t, text) : 0;
	}
	struct hp_err err = { 0 };
	double v;
	const struct hp_field *tf = tab_field(f);
	if (tf) {
		struct ws_serve w;
		char want[128];
		tab_get(s, &w);
		if (fields_parse_text(tf, &w, text, want, sizeof want) < 0) {
			tui_message(t, 1, "%s: expected %s, got '%.*s'", tf->label, want,
				    UTF8_CUT(text, 40));
			return -1;
		}
		ws_serve_to_config(&w, &s->so.base);
		serve_to_ws(t);
		tui_serve_submit(t);
		build_note(t);
		return 0;
	}
	switch (f) {
	case SF_MODEL:
		if (set_model(t, text) < 0)
			return -1;
		break;
	case SF_ISL:
	case SF_OSL:
		if (serve_dist_parse(text, f == SF_ISL ? &s->so.isl : &s->so.osl, &err) < 0) {
			tui_message(t, 1, "%s: %s", field_label(f), err.msg);
			return -1;
		}
		hp_strlcpy(f == SF_ISL ? s->isl : s->osl, text, sizeof s->isl);
		break;
	case SF_RATE:
		if (!strcmp(text, "offline")) {
			s->so.offline = 1;
			s->so.rate = 0;
			/* As on the command line: offline asks for the most the
			 * cluster serves, so the objective follows. */
			s->so.objective = SERVE_OBJ_THROUGHPUT;
			break;
		}
		if (parse_target(text, RATE_MAX, &v) < 0 || v <= 0) {
			tui_message(t, 1, "Rate: expected requests/s above 0, at most %.0f, or offline; got '%.*s'",
				    RATE_MAX, UTF8_CUT(text, 40));
			return -1;
		}
		s->so.rate = v;
		s->so.offline = 0;
		break;
	case SF_TTFT:
	case SF_TPOT: {
		/* the command line's rule (serve_slo_parse), "none" for the
		 * flag left out */
		char want[96];
		double *slo = f == SF_TTFT ? &s->so.slo.ttft_p99_s : &s->so.slo.tpot_p99_s;
		if (!strcmp(text, "none") || !strcmp(text, "off")) {
			*slo = 0;
		} else if (serve_slo_parse(f == SF_TTFT ? "ttft_p99_s" : "tpot_p99_s", text,
					   f == SF_TTFT ? 1 : 1e-3, slo, want, sizeof want) < 0) {
			tui_message(t, 1, "%s: expected %s, or none; got '%.*s'", field_label(f), want,
				    UTF8_CUT(text, 40));
			return -1;
		}
		break;
	}
	default:
		return -1;
	}
	serve_to_ws(t);
	tui_serve_submit(t);
	return 0;
}

/* v moved by dir in [0, n), wrapping around. */
static int step(int v, int dir, int n)
{
	return ((v + dir) % n + n) % n;
}

/* h/l on a choice: the next or previous value. Returns 1 if f is one. */
static int field_cycle(struct tui *t, int f, int dir)
{
	struct tui_serve *s = t->serve;
	const struct hp_field *tf = tab_field(f);
	if (tf) {
		struct ws_serve w;
		tab_get(s, &w);
		if (!fields_cycle(tf, &w, dir))
			return 0;
		ws_serve_to_config(&w, &s->so.base);
		serve_to_ws(t);
		tui_serve_submit(t);
		build_note(t);
		return 1;
	}
	switch (f) {
	case SF_MODEL: {
		int n = t->cat->n_models, i = 0;
		if (n == 0)
			return 1;
		while (i < n && strcmp(t->cat->models[i].name, s->m.name))
			i++;
		i = i == n ? 0 : step(i, dir, n);
		s->m = t->cat->models[i];
		break;
	}
	case SF_ENGINE:
		s->so.base.engine = (enum serve_engine)step(s->so.base.engine, dir, ENGINE_COUNT);
		break;
	case SF_WPREC:
	case SF_KVPREC: {
		/* the default first (bf16, fp16 on a GPU without), then each
		 * precision named, as --precision / --kv-precision name it */
		int kv = f == SF_KVPREC, cnt = kv ? SKV_COUNT : SW_COUNT;
		int *given = kv ? &s->so.base.kvprec_given : &s->so.base.wprec_given;
		int v = kv ? (int)s->so.base.kvprec : (int)s->so.base.wprec;
		int pos = step(*given ? v + 1 : 0, dir, cnt + 1);
		*given = pos > 0;
		if (kv)
			s->so.base.kvprec = pos ? (enum serve_kvprec)(pos - 1) : SKV_BF16;
		else
			s->so.base.wprec = pos ? (enum serve_wprec)(pos - 1) : SW_BF16;
		break;
	}
	case SF_OBJECTIVE:
		s->so.objective = s->so.objective == SERVE_OBJ_COST ? SERVE_OBJ_THROUGHPUT
								    : SERVE_OBJ_COST;
		break;
	default:
		return 0;
	}
	serve_to_ws(t);
	tui_serve_submit(t);
	return 1;
}

/* ---- drawing */

static void fmt_lat(char *b, size_t n, double s)
{
	if (!isfinite(s) || s <= 0)
		snprintf(b, n, "-");
	else if (s >= 10)
		snprintf(b, n, "%.0f s", s);
	else if (s >= 1)
		snprintf(b, n, "%.2f s", s);
	else if (s >= 0.1)
		snprintf(b, n, "%.0f ms", s * 1e3);
	else
		snprintf(b, n, "%.1f ms", s * 1e3);
}

/* table_usd's text in w columns, "-" when unknown. */
static void fmt_usd(char *b, size_t n, double v, int known, int w)
{
	if (!known || !isfinite(v) || v < 0)
		snprintf(b, n, "-");
	else
		table_usd(b, n, v, w);
}

static void draw_fields(struct tui *t, int y, int x, int w, int h)
{
	struct tui_serve *s = t->serve;
	int active = s->pane == 0, lw = 11;
	int nf = n_fields();
	tui_list_fix(&s->lfields, nf, h);
	for (int r = 0; r < h && s->lfields.top + r < nf; r++, y++) {
		int f = s->lfields.top + r, sel = f == s->lfields.sel;
		int a = sel ? tui_attr(t, active ? C_SEL : C_SEL_DIM) : 0;
		if (sel)
			tui_fill(y, x, w, a);
		char v[64];
		const char *unit = field_get(s, &t->ws.cluster, f, v, sizeof v);
		char hb[128];
		tui_put(y, x + 1, lw - 1, a, field_label(f));
		int vx = x + lw + 1;
		int vw = tui_put(y, vx, w - lw - 1, a | A_BOLD, v);
		int dim = a | (sel ? 0 : tui_attr(t, C_DIM));
		if (!field_hint(f, hb, sizeof hb) || f == SF_MODEL)
			tui_put(y, vx + vw + 1, 2, dim, tui_glyph(t, G_ARROW));
		else if (*unit && vx + vw + 2 + tui_width(unit) < x + w)
			tui_put(y, vx + vw + 1, w - (vx + vw + 1 - x), dim, unit);
	}
	if (active) {
		t->mouse_list = &s->lfields;
		t->mouse_y0 = y - HP_MIN(h, nf - s->lfields.top);
		t->mouse_rows = HP_MIN(h, nf);
	}
}

/* The plan the right pane describes: the selected one, or the nearest miss. */
static const struct serve_plan *shown_plan(const struct tui_serve *s)
{
	if (!s->cur)
		return NULL;
	const struct serve_plan_result *r = &s->cur->res;
	if (r->n_plans)
		return &r->plans[HP_MIN(s->lplans.sel, r->n_plans - 1)];
	return r->has_nearest ? &r->nearest : NULL;
}

static void draw_plan(struct tui *t, int y, int x, int w, int h)
{
	const struct tui_serve *s = t->serve;
	const struct serve_plan *pl = shown_plan(s);
	char title[96];
	if (pl && s->cur->res.n_plans)
		snprintf(title, sizeof title, "Plan %d: %s", HP_MIN(s->lplans.sel, s->cur->res.n_plans - 1) + 1,
			 pl->how ? pl->how : "");
	else
		snprintf(title, sizeof title, pl ? "Nearest miss" : "Plan");
	tui_section(t, y, x, w, title);
	if (!pl)
		return;
	const struct cluster *c = &s->cur->c;
	/* where no target bounds an instance's load the planner loads it to
	 * at most SERVE_MAX_UTIL of its saturation rate: said under the
	 * latencies that load gives, as serve's output does */
	char capline[120];
	int capped = serve_cap_note(pl, &s->cur->so.slo, 1, capline, sizeof capline);
	int y1 = y + h, n_lat = 2 + capped;
	y++;
	for (int i = 0; i < pl->n_inst && y < y1 - n_lat - 1; i++) {
		const struct serve_plan_inst *in = &pl->inst[i];
		const char *role = in->role == ROLE_PREFILL ? " prefill" : in->role == ROLE_DECODE ? " decode" : "";
		if (y + 1 >= y1 - n_lat - 1 && i + 1 < pl->n_inst) {
			tui_putf(y++, x + 1, w - 1, tui_attr(t, C_DIM), "+ %d more instance types",
				 pl->n_inst - i);
			break;
		}
		char pp[16] = "";
		if (in->pp > 1)
			snprintf(pp, sizeof pp, " pp%d", in->pp);
		/* each copy's share of its saturation rate (the rest is its
		 * headroom), after the instance's name where the pane has
		 * room for it (the export's instances table always has it) */
		char head[1][PLAN_LABEL_MAX], fitted[PLAN_LABEL_MAX], load[24] = "";
		snprintf(head[0], sizeof head[0], "%dx %s tp%d%s%s", in->count,
			 c->pools[in->pool].gpu.name, in->tp, pp, role);
		if (in->load > 0)
			snprintf(load, sizeof load, ", load %.0f%%", 100 * in->load);
		if (tui_width(head[0]) + (int)strlen(load) > w - 1)
			load[0] = 0;
		/* too wide: its first and last words around an ellipsis */
		tui_fit_label(head, 1, 0, HP_MAX(1, w - 1 - (int)strlen(load)), tui_glyph(t, G_MID), fitted,
			      sizeof fitted);
		tui_putf(y++, x + 1, w - 1, A_BOLD, "%s%s", fitted, load);
		char kv[24];
		hp_fmt_count(kv, sizeof kv, in->kv_capacity_tokens);
		if (in->max_batch > 0)
			tui_putf(y++, x + 3, w - 3, tui_attr(t, C_DIM), "batch %d, KV %s tok, %.2f req/s",
				 in->max_batch, kv, in->rate);
		else
			tui_put(y++, x + 3, w - 3, tui_attr(t, C_BAD), "does not fit");
	}
	y = HP_MAX(y, y1 - n_lat);
	char a[16], b[16], d[16];
	fmt_lat(a, sizeof a, pl->ttft.mean);
	fmt_lat(b, sizeof b, pl->ttft.p50);
	fmt_lat(d, sizeof d, pl->ttft.p99);
	tui_putf(y++, x + 1, w - 1, 0, "TTFT mean %s p50 %s p99 %s", a, b, d);
	fmt_lat(a, sizeof a, pl->tpot.mean);
	fmt_lat(b, sizeof b, pl->tpot.p50);
	fmt_lat(d, sizeof d, pl->tpot.p99);
	tui_putf(y++, x + 1, w - 1, 0, "TPOT mean %s p50 %s p99 %s", a, b, d);
	if (capped)
		tui_putf(y++, x + 1, w - 1, tui_attr(t, C_DIM), "%s", capline);
}

/* The plan table's columns after # and PLAN: header, width, and the
 * order they go in on a narrow screen (lowest first). At 80 columns all
 * but the p50s show (PLAN gets w - 59); at 120 the p50s too (w - 75);
 * below, the columns least needed to choose a plan go first (REQ/S and
 * TOK/S: the rate asked for; GPUS; $/MTOK follows $/H) until PLAN has
 * PLAN_MIN columns; $/H and FIT go last. */
enum { PC_GPUS, PC_TPS, PC_REQ, PC_USDH, PC_USDM, PC_T50, PC_T99, PC_P50, PC_P99, PC_FIT, PC_COUNT };
enum { PLAN_MIN = 12 };
static const struct { const char *hdr; int w, drop; } plan_cols[PC_COUNT] = {
	[PC_GPUS] = { "GPUS", 4, 3 },   [PC_TPS] = { "TOK/S", 6, 2 },  [PC_REQ] = { "REQ/S", 6, 1 },
	[PC_USDH] = { "$/H", 8, 8 },    [PC_USDM] = { "$/MTOK", 6, 4 }, [PC_T50] = { "TTFT50", 7, 0 },
	[PC_T99] = { "TTFT99", 7, 6 },  [PC_P50] = { "TPOT50", 7, 0 },  [PC_P99] = { "TPOT99", 7, 5 },
	[PC_FIT] = { "FIT", 3, 7 },
};

/* Which columns show in w columns (on[]), and the PLAN column's width. */
static int plan_cols_fit(int w, int wide, int *on)
{
	int used = 4;   /* "#" (3) and a space */
	for (int i = 0; i < PC_COUNT; i++) {
		on[i] = wide || (i != PC_T50 && i != PC_P50);
		used += on[i] ? plan_cols[i].w + 1 : 0;
	}
	while (w - used < PLAN_MIN) {
		int low = -1;
		for (int i = 0; i < PC_COUNT; i++)
			if (on[i] && (low < 0 || plan_cols[i].drop < plan_cols[low].drop))
				low = i;
		if (low < 0)
			break;
		on[low] = 0;
		used -= plan_cols[low].w + 1;
	}
	return HP_MAX(1, w - used);
}

/* The header, or (pl not NULL) one plan's row, in the columns on[]. */
/* A plan row: rank, label (fitted to lw cells, tui_fit_label), the
 * shown columns; pl NULL: the header. */
static void plan_row(char *buf, size_t n, int rank, const struct serve_plan *pl,
		     const char *fitted, int lw, const int *on)
{
	char cell[PC_COUNT][24], lab[512];
	size_t len;
	if (!pl) {
		for (int i = 0; i < PC_COUNT; i++)
			snprintf(cell[i], sizeof cell[i], "%s", plan_cols[i].hdr);
		len = (size_t)snprintf(buf, n, "%3s %-*s", "#", lw, "PLAN");
	} else {
		hp_fmt_count(cell[PC_TPS], sizeof cell[PC_TPS], pl->out_tps);
		snprintf(cell[PC_GPUS], sizeof cell[PC_GPUS], "%d", pl->gpus);
		snprintf(cell[PC_REQ], sizeof cell[PC_REQ], "%.2f", pl->req_s);
		fmt_usd(cell[PC_USDH], sizeof cell[PC_USDH], pl->usd_per_hour, pl->price_known,
			plan_cols[PC_USDH].w);
		if (pl->price_known && isfinite(pl->usd_per_mtok) && pl->usd_per_mtok >= 0)
			table_rate(cell[PC_USDM], sizeof cell[PC_USDM], pl->usd_per_mtok,
				   plan_cols[PC_USDM].w);
		else
			snprintf(cell[PC_USDM], sizeof cell[PC_USDM], "-");
		fmt_lat(cell[PC_T50], sizeof cell[PC_T50], pl->ttft.p50);
		fmt_lat(cell[PC_T99], sizeof cell[PC_T99], pl->ttft.p99);
		fmt_lat(cell[PC_P50], sizeof cell[PC_P50], pl->tpot.p50);
		fmt_lat(cell[PC_P99], sizeof cell[PC_P99], pl->tpot.p99);
		snprintf(cell[PC_FIT], sizeof cell[PC_FIT], "%s", pl->fits ? "yes" : "no");
		/* fitted is at most lw cells: this pads it */
		utf8_cell(lab, sizeof lab, fitted, lw);
		len = (size_t)snprintf(buf, n, "%3d %s", rank, lab);
	}
	for (int i = 0; i < PC_COUNT && len < n; i++)
		if (on[i])
			len += (size_t)snprintf(buf + len, n - len, i == PC_FIT ? " %-*s" : " %*s",
						plan_cols[i].w, cell[i]);
}

/* Text wrapped at spaces into rows of w columns, continuation rows
 * indented by indent; at most max_rows. Returns the rows written. */
static int wrap_text(int draw, int y, int x, int w, int indent, int attr, const char *p,
		     int max_rows)
{
	int r = 0;
	for (; *p && r < max_rows; r++) {
		int ind = r ? indent : 0, len = (int)strlen(p), cut = HP_MIN(len, w - ind);
		if (cut < len)
			for (int k = cut; k > (w - ind) / 2; k--)
				if (p[k] == ' ') {
					cut = k;
					break;
				}
		if (draw)
			tui_putf(y + r, x + ind, w - ind, attr, "%.*s", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
	return r;
}

static int put_wrapped(int y, int x, int w, int indent, int attr, const char *p, int max_rows)
{
	return wrap_text(1, y, x, w, indent, attr, p, max_rows);
}

/* How to start the selected plan's instances, in the rows left. */
static void draw_launch(struct tui *t, int y, int w, int h)
{
	const struct tui_serve *s = t->serve;
	const struct serve_plan *pl = shown_plan(s);
	if (!pl || h < 3)
		return;
	char title[48];
	snprintf(title, sizeof title, "Launch plan %d", s->lplans.sel + 1);
	tui_section(t, y++, 0, COLS, title);
	h--;
	/* Whole commands only: one cut at the rows' end lost its last
	 * flags (at 80x24 "--max-model-len 1800") and the instances after
	 * it went unmentioned. What does not fit is counted on the last row. */
	int shown = 0;
	for (int i = 0; i < pl->n_inst; i++, shown++) {
		/* "pool: command", so two instances alike but for the GPU
		 * are told apart, and "6x pool: command" where the plan has
		 * more than one of it (the plan's "6x H100-SXM tp4" showed
		 * one line, as if one instance; `hetplan serve` says "6
		 * instances of TP 4") */
		char *l = serve_launch_line(&s->cur->m, &s->cur->so, &pl->inst[i],
					   &s->cur->c.pools[pl->inst[i].pool].gpu);
		char *line = xmalloc(strlen(l) + 100);
		char times[32] = "";
		if (pl->inst[i].count > 1)
			snprintf(times, sizeof times, "%dx ", pl->inst[i].count);
		sprintf(line, "%s%.*s: %s", times, UTF8_CUT(s->cur->c.pools[pl->inst[i].pool].name, 64), l);
		int rows = wrap_text(0, y, 1, w, 4, 0, line, INT_MAX);
		int room = h - (i < pl->n_inst - 1 ? 1 : 0);   /* a row for the count */
		int cut = rows > room && i == 0 && h >= 2;     /* the first, in part */
		if (rows <= room || cut) {
			int n = put_wrapped(y, 1, w, 4, 0, line, cut ? h - 1 : rows);
			y += n;
			h -= n;
		}
		free(line);
		free(l);
		if (rows > room) {
			if (cut)
				tui_putf(y, 1, w, tui_attr(t, C_WARN),
					 "%s cut here, %d command%s in all: a taller screen shows them, e exports them",
					 tui_glyph(t, G_MID), pl->n_inst, pl->n_inst == 1 ? "" : "s");
			else
				tui_putf(y, 1, w, tui_attr(t, C_DIM),
					 "%d more launch command%s: a taller screen shows them, e exports them",
					 pl->n_inst - shown, pl->n_inst - shown == 1 ? "" : "s");
			return;
		}
	}
}

/* msg, written for the command line, in the view's words: each flag a
 * field stands for ("--kv-precision bf16") becomes the field's label
 * ("KV cache bf16"), and the end says how to change the first one named
 * (a choice cycles with h/l, a value opens with Enter). */
static void tui_words(const char *msg, char *out, size_t n)
{
	struct sbuf b;
	sbuf_init(&b);
	int first = -1;
	for (const char *p = msg; *p;) {
		int hit = -1;
		size_t fl = 0;
		for (int f = 0; f < SF_COUNT && hit < 0; f++) {
			const char *flag = sfields[f].flag;
			fl = flag ? strlen(flag) : 0;
			if (fl && !strncmp(p, flag, fl) && (p == msg || p[-1] == ' ' || p[-1] == '(') &&
			    (!p[fl] || p[fl] == ' ' || p[fl] == ':' || p[fl] == ',' || p[fl] == ')'))
				hit = f;
		}
		if (hit < 0) {
			sbuf_addc(&b, *p++);
			continue;
		}
		sbuf_add(&b, sfields[hit].label);
		if (first < 0)
			first = hit;
		p += fl;
	}
	if (first >= 0)
		sbuf_addf(&b, " (%s: select it and press %s)", sfields[first].label,
			  sfields[first].hint ? "Enter" : "h or l");
	char *s = sbuf_take(&b, NULL);
	snprintf(out, n, "%.*s", (int)utf8_cut(s, n - 1), s);
	free(s);
}

static void draw_no_plan(struct tui *t, int y, int w, int h)
{
	const struct tui_serve *s = t->serve;
	const struct serve_plan_result *r = &s->cur->res;
	char why[1024];
	tui_words(r->why[0] ? r->why : s->cur->err.msg, why, sizeof why);
	tui_put(y++, 1, w, tui_attr(t, C_BAD), "No serving plan:");
	y += put_wrapped(y, 3, w - 2, 0, 0, why, HP_MIN(3, h - 3));
	if (r->has_nearest) {
		const struct serve_plan *n = &r->nearest;
		char tps[16];
		hp_fmt_count(tps, sizeof tps, n->out_tps);
		char one[1][PLAN_LABEL_MAX], fitted[PLAN_LABEL_MAX];
		hp_strlcpy(one[0], n->label, sizeof one[0]);
		tui_fit_label(one, 1, 0, HP_MAX(1, w - 14), tui_glyph(t, G_MID), fitted, sizeof fitted);
		tui_putf(y++, 1, w, tui_attr(t, C_WARN), "Nearest miss: %s", fitted);
		if (n->req_s > 0) {
			tui_putf(y++, 3, w - 2, 0, "%d GPUs, %.2f req/s, %s output tok/s", n->gpus,
				 n->req_s, tps);
		} else if (isfinite(n->ttft.p99)) {
			char a[16], b[16];
			fmt_lat(a, sizeof a, n->ttft.p99);
			fmt_lat(b, sizeof b, n->tpot.p99);
			tui_putf(y++, 3, w - 2, 0, "%d GPUs; one request alone: TTFT %s, TPOT %s", n->gpus,
				 a, b);
		} else {
			tui_putf(y++, 3, w - 2, 0, "%d GPUs; does not fit", n->gpus);
		}
	}
}

static void draw_plans(struct tui *t, int y, int h)
{
	struct tui_serve *s = t->serve;
	int wide = COLS >= 120, w = COLS - 2, on[PC_COUNT];
	int lw = plan_cols_fit(w, wide, on);
	char title[64], hdr[256];
	/* The order of the plans shown: their answer's objective, not the
	 * field's, which an edit being planned may have changed already. */
	const struct serve_opts *so = s->cur ? &s->cur->so : &s->so;
	snprintf(title, sizeof title, "Serving plans, %s first",
		 strcmp(serve_objective_ranked(so), "cost") ? "fastest" : "cheapest");
	tui_section(t, y++, 0, COLS, title);
	h--;
	if (!s->cur) {
		tui_put(y, 1, w, tui_attr(t, C_DIM), "planning...");
		return;
	}
	const struct serve_plan_result *r = &s->cur->res;
	if (!r->n_plans) {
		draw_no_plan(t, y, w, h);
		return;
	}
	plan_row(hdr, sizeof hdr, 0, NULL, NULL, lw, on);
	tui_put(y++, 1, w, tui_attr(t, C_TITLE), hdr);
	int rows = HP_MIN(r->n_plans, h - 3);
	tui_list_fix(&s->lplans, r->n_plans, rows);
	/* a label wider than its column keeps its first and last words
	 * around an ellipsis, told apart from the list's other labels, as
	 * the Plans view cuts its rows (a blind cut read "6x H100-SXM tp4 + ~") */
	char(*labels)[PLAN_LABEL_MAX] = xmalloc((size_t)r->n_plans * sizeof *labels);
	for (int k = 0; k < r->n_plans; k++)
		hp_strlcpy(labels[k], r->plans[k].label, sizeof labels[k]);
	for (int i = 0; i < rows && s->lplans.top + i < r->n_plans; i++) {
		int k = s->lplans.top + i, sel = k == s->lplans.sel;
		int a = sel ? tui_attr(t, s->pane == 1 ? C_SEL : C_SEL_DIM) : 0;
		char line[1024], fitted[PLAN_LABEL_MAX];
		tui_fit_label(labels, r->n_plans, k, lw, tui_glyph(t, G_MID), fitted, sizeof fitted);
		plan_row(line, sizeof line, k + 1, &r->plans[k], fitted, lw, on);
		if (sel)
			tui_fill(y + i, 0, COLS, a);
		tui_put(y + i, 1, w, a | (r->plans[k].fits ? 0 : tui_attr(t, C_WARN)), line);
	}
	free(labels);
	if (s->pane == 1) {
		t->mouse_list = &s->lplans;
		t->mouse_y0 = y;
		t->mouse_rows = HP_MIN(rows, r->n_plans);
	}
	draw_launch(t, y + rows, w, h - 2 - rows);
	tui_putf(y + h - 2, 1, w, tui_attr(t, C_DIM),
		 "%d instance configuration%s x %d request bucket%s, fleet ILP", r->n_cands,
		 r->n_cands == 1 ? "" : "s", r->n_buckets, r->n_buckets == 1 ? "" : "s");
}

/* Rows the settings list shows in a view of h rows: all of them, unless
 * the plans and the launch line below would get fewer than PLANS_MIN
 * rows (their titles and column header, a plan, two launch lines and
 * the footer); then the list scrolls. */
enum { PLANS_MIN = 7 };

static int fields_rows(int h)
{
	return HP_MAX(1, HP_MIN(n_fields(), h - 1 - PLANS_MIN));
}

void view_serve_draw(struct tui *t, int y0, int h)
{
	struct tui_serve *s = t->serve;
	/* Under PANE_MIN columns for the plan pane (a screen under 57
	 * columns, with 'i' past the size warning) the settings take the
	 * width and the plan shows in the table below only. */
	enum { PANE_MIN = 20 };
	int lw = COLS >= 120 ? 44 : 36, pane = COLS - lw - 1 >= PANE_MIN;
	if (!pane)
		lw = COLS;
	int nfr = fields_rows(h);
	int top = nfr + 1;                   /* the fields and their title */
	char title[80];
	snprintf(title, sizeof title, "Serving %.*s",
		 UTF8_CUT(s->m.display[0] ? s->m.display : s->m.name, 40));
	tui_section(t, y0, 0, lw, title);
	draw_fields(t, y0 + 1, 0, lw, nfr);
	if (pane) {
		for (int y = y0; y < y0 + top; y++)
			tui_put(y, lw, 1, tui_attr(t, C_DIM), tui_glyph(t, G_VLINE));
		draw_plan(t, y0, lw + 1, COLS - lw - 1, top);
	}
	draw_plans(t, y0 + top, h - top);
}

/* ---- keys */

static int field_enter(struct tui *t)
{
	struct tui_serve *s = t->serve;
	int f = s->lfields.sel;
	char hb[128];
	const char *hint = field_hint(f, hb, sizeof hb);
	if (!hint)
		return field_cycle(t, f, 1) ? R_DRAW : R_NONE;
	char title[200], v[64];
	s->exporting = 0;
	field_get(s, &t->ws.cluster, f, v, sizeof v);
	snprintf(title, sizeof title, "%s (%s):", field_label(f), hint);
	tui_start_prompt(t, P_SERVE_FIELD, title, v);
	return R_DRAW;
}

int view_serve_key(struct tui *t, int action, int ch)
{
	struct tui_serve *s = t->serve;
	int n_plans = s->cur ? s->cur->res.n_plans : 0;
	if (action == ACT_NONE) {
		tui_list_fix(&s->lfields, n_fields(), fields_rows(tui_view_rows()));
		tui_list_fix(&s->lplans, n_plans, tui_view_rows());
		return R_DRAW;
	}
	if (action == ACT_PANE) {
		s->pane = !s->pane;
		return R_DRAW;
	}
	if (action == ACT_EXPORT) {
		if (!s->cur || (!s->cur->res.n_plans && !s->cur->res.has_nearest)) {
			tui_message(t, 1, "no serving plan to export yet");
			return R_DRAW;
		}
		s->exporting = 1;
		tui_start_prompt(t, P_SERVE_FIELD, "Export serving plans to (.json, .md or .html):",
				 "hetplan-serve.json");
		return R_DRAW;
	}
	if (s->pane == 1) {
		if (tui_list_move(&s->lplans, action, n_plans,
				  tui_view_rows() - fields_rows(tui_view_rows()) - 4))
			return R_DRAW;
		return action == ACT_ENTER || action == ACT_LEFT ? (s->pane = 0, R_DRAW) : R_PASS;
	}
	if (tui_list_move(&s->lfields, action, n_fields(), fields_rows(tui_view_rows())))
		return R_DRAW;
	switch (action) {
	case ACT_ENTER: return field_enter(t);
	case ACT_LEFT:
	case ACT_RIGHT:
		field_cycle(t, s->lfields.sel, action == ACT_RIGHT ? 1 : -1);
		return R_DRAW;
	default:
		return R_PASS;
	}
}

void tui_serve_work(struct tui *t, char *buf, size_t n)
{
	snprintf(buf, n, "%s", tui_serve_busy(t) ? "planning serving" : "");
}

void tui_serve_status(struct tui *t, char *buf, size_t n)
{
	const struct tui_serve *s = t->serve;
	if (tui_serve_busy(t))
		tui_serve_work(t, buf, n);
	else if (s->cur)
		snprintf(buf, n, "%d serving plan%s", s->cur->res.n_plans,
			 s->cur->res.n_plans == 1 ? "" : "s");
	else
		*buf = 0;
}

int serve_rows(struct tui *t, struct tui_list **l)
{
	*l = &t->serve->lplans;
	return t->serve->cur ? t->serve->cur->res.n_plans : 0;
}

void serve_row_text(struct tui *t, int row, char *buf, size_t n)
{
	snprintf(buf, n, "%s", t->serve->cur->res.plans[row].label);
}
