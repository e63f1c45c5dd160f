/* tui_int.h — what the TUI's files share: the application state, the
 * drawing helpers, the planner job and the price fetch job.
 *
 * Layers, top to bottom:
 *   tui.c          the loop: keys -> actions -> a view's key handler, which
 *                  changes state and returns what to do (redraw, quit); then
 *                  the one draw function paints header, tabs, view, footer.
 *   tui_*.c views  cluster/model editors (tui_edit.c), plans, detail and
 *                  compare (tui_plans.c), prices (tui_prices.c), serving
 *                  plans (tui_serve.c, with its own planner thread), the
 *                  plan editor (tui_planedit.c, its key list drawn by
 *                  tui_edit.c's field machinery). tui.c
 *                  reaches them only through the view table (struct
 *                  tui_view_ops); they reach tui.c through this header.
 *   tui_draw.c     colours, glyph tables (UTF-8 and ASCII side by side),
 *                  clipped text, bars, the line editor and the picker.
 *   tui_job.c      the planner on a worker thread; tui_fetch.c the price
 *                  download on another. Both post to a wake pipe, never
 *                  touch curses, and own copies of everything they read.
 * Only the main thread calls curses. */
#ifndef HP_TUI_INT_H
#define HP_TUI_INT_H

#include <curses.h>
#include <pthread.h>
#include "advice.h"
#include "plan_label.h"
#include "pricing.h"
#include "tui.h"
#include "utf8.h"
#include "workspace.h"

#define TUI_MIN_COLS 80
#define TUI_MIN_ROWS 24

/* ---- theme: one entry per meaning; colour and monochrome side by side */
enum tui_color {
	C_NORMAL, C_HEADER, C_TAB, C_TAB_ON, C_KEY, C_HINT, C_SEL, C_SEL_DIM,
	C_TITLE, C_GOOD, C_BAD, C_WARN, C_DIM, C_PARETO, C_BUSY,
	C_SEG0, C_SEG1, C_SEG2, C_SEG3, C_SEG4, C_SEG5, C_SEG6, C_SEG7, C_SEG8, C_SEG9,
	C_SEG10,
	C_COUNT
};

enum tui_glyph {
	G_BAR, G_BAR_EMPTY, G_PARETO, G_MARK, G_HLINE, G_VLINE, G_ARROW, G_DOT,
	G_UP, G_DOWN, G_MID, G_SEG0, G_SEG1, G_SEG2, G_SEG3, G_SEG4, G_SEG5,
	G_SEG6, G_SEG7, G_SEG8, G_SEG9, G_SEG10, G_TL, G_TR, G_BL, G_BR, G_COUNT
};

/* ---- test-only environment variables (the one list of them)
 *
 * The tests that drive the TUI in tmux (tests/test_tui*.sh,
 * tests/test_serve_tui.sh) must read screens that a fast machine shows
 * for milliseconds only. These variables let a test hold such a screen;
 * none changes an answer, and with none set the TUI never waits.
 *   HETPLAN_TUI_FIRST_MS          milliseconds, 0 to 10000 (default 150):
 *                                 the first planning pass's budget
 *                                 (tui_job.c, TUI_FIRST_S); also read by
 *                                 tests/bench_tui.sh
 *   HETPLAN_TUI_REFINE_HOLD_FILE  a path: while a file of that name
 *                                 exists, the full planning run waits
 *                                 after a preview of the best plans so
 *                                 far (tui_job.c)
 *   HETPLAN_TUI_SERVE_HOLD_FILE   a path: while a file of that name
 *                                 exists, each serving answer is held
 *                                 back, the Serve view busy (tui_serve.c)
 * A test creates the file before the key that starts the work and removes
 * it once it has read the screen, so the order of events never depends on
 * the machine's speed. An edit, Esc, a newer submission or quit also end
 * a hold, and none lasts over TUI_HOLD_MAX_S. */
#define TUI_HOLD_FILE_ENV_REFINE "HETPLAN_TUI_REFINE_HOLD_FILE"
#define TUI_HOLD_FILE_ENV_SERVE "HETPLAN_TUI_SERVE_HOLD_FILE"
/* The longest hold, seconds: twice the longest wait of tests/tui_lib.sh
 * (60 s), so a test on a loaded machine always ends the hold itself, and
 * a test that died leaves no TUI waiting for ever. */
#define TUI_HOLD_MAX_S 120.0
/* How often a hold looks for its file, seconds: one access() call per
 * 50 ms costs nothing next to the planner. */
#define TUI_HOLD_POLL_S 0.05

/* Wait while the file at path exists (path NULL or empty: return at
 * once), at most TUI_HOLD_MAX_S, or until ended(arg) is not 0. Called and
 * returns with mu held; a signal of cv wakes it to test ended at once. */
void tui_hold_while_file(const char *path, pthread_mutex_t *mu, pthread_cond_t *cv,
			 int (*ended)(void *), void *arg);

/* ---- the planner job (tui_job.c) */
struct tui_result {              /* one answer, with the inputs it answers */
	struct cluster c;
	struct model_spec m;
	struct search_opts o;
	struct search_result res;
	int rc;                  /* search_run's return */
	struct hp_err err;
	unsigned gen;            /* the edit generation it was started for */
	double seconds;
	double ready_s;          /* from the submission to this answer's
				  * posting, the wait for a cancelled job
				  * included */
	int partial;             /* 1: the best plans so far of a search cut
				  * short: by the first pass's budget (the
				  * full answer follows, tui_job.c) or by Esc */
	struct nofit_advice advice;   /* no plan: what would make one fit
				       * (advice.h), found on the worker */
};

struct tui_planner;

/* Start the worker; it writes one byte to wake_fd when a result is ready. */
struct tui_planner *planner_new(int wake_fd, const struct catalog *cat);
/* Plan a copy of w for generation gen. A running job is cancelled and its
 * answer dropped: the newest edit wins. A long search posts two answers:
 * its best plans so far (partial set) within about 150 ms, then the full
 * one; an answer cut short without plans is not posted at all. */
void planner_submit(struct tui_planner *pl, const struct workspace *w, unsigned gen);
/* Ask the running job to stop early: it answers with its best plans so
 * far (partial set), or not at all when it has none yet. */
void planner_cancel(struct tui_planner *pl);
/* 1 while a job runs or waits; *progress in [0,1] of the pass running,
 * *elapsed seconds since the job began. */
int planner_busy(struct tui_planner *pl, double *progress, double *elapsed);
/* The newest finished answer (caller owns; tui_result_free), or NULL. */
struct tui_result *planner_take(struct tui_planner *pl);
/* Cancel, join the worker and free everything. NULL is fine. */
void planner_free(struct tui_planner *pl);
/* Plan on the calling thread (bench); fills r. */
void tui_plan_sync(const struct workspace *w, struct tui_result *r);
void tui_result_free(struct tui_result *r);

/* ---- the price book update (tui_fetch.c) */
enum fetch_state { FETCH_IDLE, FETCH_RUNNING, FETCH_DONE, FETCH_FAILED, FETCH_CANCELLED };

struct fetch_status {
	enum fetch_state state;
	int source, n_sources;   /* sources finished, of how many */
	double bytes, total;     /* of the source moving; total 0 = unknown */
	int n_fetched, n_failed; /* when it ended */
	char url[256];           /* the source moving ("skypilot:aws") */
	char err[256];           /* the first failure */
	double started, finished;    /* hp_now() */
};

struct tui_fetch;
/* A fetcher of cfg's sources; wake_fd gets a byte when an update ends. */
struct tui_fetch *fetch_new(int wake_fd, const struct catalog *cat,
			    const struct price_config *cfg);
/* Run pricing_update() on a worker. Returns -1 if one is running. */
int fetch_start(struct tui_fetch *f);
void fetch_cancel(struct tui_fetch *f);
void fetch_status(struct tui_fetch *f, struct fetch_status *st);
/* 1 once after each update ends (time to reload the book), else 0. */
int fetch_finished(struct tui_fetch *f);
/* The last update's result for source, if it had one. */
int fetch_result(struct tui_fetch *f, const char *source, struct price_update *out);
/* Cancel, join and free. NULL is fine. */
void fetch_free(struct tui_fetch *f);

/* ---- application state */
struct tui_list { int sel, top; };

struct lineedit {
	char buf[256];               /* valid UTF-8, whole characters */
	int len, cur;                /* bytes; cur on a character's start */
	char pend[4];                /* the bytes of the UTF-8 character being
				      * typed, until it is whole */
	int npend, need;             /* bytes in pend, and in its character */
};

enum prompt_kind { P_NONE, P_SAVE, P_OPEN, P_EXPORT, P_LAUNCH, P_SEARCH, P_FIELD, P_CONFIRM_DEL,
		   P_SERVE_FIELD, P_CONFIRM_OPEN };

enum picker_kind { PK_NONE, PK_GPU, PK_MODEL };

struct tui {
	const struct catalog *cat;
	struct workspace ws;
	char path[512];              /* workspace file; "" until saved */
	char open_path[512];         /* P_CONFIRM_OPEN: the file to open */
	int dirty;
	int view;
	int color, utf8, mouse;
	int quit_armed;
	int ignore_small;
	int help, help_top;
	int wake[2];
	/* planner */
	struct tui_planner *pl;
	unsigned gen;
	struct tui_result *cur;      /* the answer shown */
	int *order, n_order;         /* plans in display order */
	int sort, sort_rev;
	/* views */
	struct tui_list lpools, lfields, lplans, lprices, lmodel[2], ldetail, lplanedit;
	struct tui_list leditdetail;  /* the edited plan's Detail: its scroll */
	int cluster_pane, model_pane;
	int detail_id;               /* see tui_plan_get() */
	int cmp[2];
	/* the list under the mouse: first screen row and the list */
	int mouse_y0, mouse_rows;
	struct tui_list *mouse_list;
	/* overlays */
	enum prompt_kind prompt;
	char prompt_title[96];
	struct lineedit edit;
	int field;                   /* P_FIELD: which field */
	enum picker_kind picker;
	struct tui_list lpick;
	char pick_filter[256];   /* a preset name or a model file's path */
	int *pick_idx, n_pick;
	int pick_add;                /* PK_GPU: add a pool rather than change one */
	char search[64];
	char plans_filter[64];       /* the / text the plans list is filtered by */
	char msg[256];               /* the message line; clears on the next key */
	int msg_bad;
	/* Background work's short notes (tui_note) that came while a message
	 * was up: the footer shows them after the message, which is cut to
	 * leave them room. Cleared with the message. */
	char note[96];
	int note_bad;
	/* prices */
	struct tui_fetch *fetch;
	struct price_config pcfg;
	struct price_book pb;
	int have_pb;
	const struct price_offer **cheap, **cheap_spot;   /* per catalog GPU */
	int *n_offers_gpu;
	/* the Serve view (tui_serve.c) */
	struct tui_serve *serve;
	/* the Edit plan view (tui_planedit.c); NULL until first opened */
	struct tui_planedit *pe;
	/* bench and tests */
	int bench;
};

/* A view: one row of the table in tui.c, in tab order. The loop, the frame,
 * the help and the / search reach a view only through it. */
struct tui_view_ops {
	const char *name;                    /* tab and help title */
	const struct tui_key *keys;          /* its key table */
	int n_keys;
	void (*draw)(struct tui *t, int y0, int h);   /* rows y0 .. y0+h-1 */
	/* Handle an action of its table (ACT_NONE: clamp the selection after
	 * a mouse click); returns R_DRAW, R_QUIT, R_NONE or R_PASS. */
	int (*key)(struct tui *t, int action, int ch);
	/* The list / searches: its row count and selection. NULL: none. */
	int (*rows)(struct tui *t, struct tui_list **l);
	void (*row_text)(struct tui *t, int row, char *buf, size_t n);
	/* Extra help lines under a title. NULL: none. */
	const char *notes_title;
	const char *const *(*notes)(int *n);
	/* 1: the notes after every view's keys (a long list of fields), so
	 * that the keys show first; 0: after the view's own keys. */
	int notes_last;
	/* The training plan `e` exports from here. NULL: the detail view's. */
	int (*plan)(const struct tui *t);
	/* The footer's right-hand text when idle. NULL: the training plans. */
	void (*status)(struct tui *t, char *buf, size_t n);
	/* The view's own work under way ("planning serving"), or "": the
	 * footer shows it after any message and the training planner's
	 * progress, so that neither hides it. NULL: none. */
	void (*work)(struct tui *t, char *buf, size_t n);
	/* Views without a tab (>= TV_TABS): the tab lit while it shows. */
	int tab;
};

/* Actions a view's handler returns. */
enum { R_NONE = 0, R_DRAW = 1, R_QUIT = 2,
       R_PASS = 4 };   /* not handled here: try the global keys */

/* ---- tui.c */
void tui_edited(struct tui *t);          /* the workspace changed: re-plan */
void tui_message(struct tui *t, int bad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Background work's news (a planner answer, a download's end): whole when
 * the message line is empty; else brief joins the message already there
 * (once), which stays, so that what the user's own key said does not
 * vanish. Either bad: the bad colour. */
void tui_note(struct tui *t, int bad, const char *whole, const char *brief);
/* A plan by id: >= 0 a ranked plan, <= -1 the best plan of pool -1-id,
 * TUI_ID_EDITED the Edit plan view's edited plan (NULL while it has no
 * estimate). */
enum { TUI_ID_EDITED = -1000000 };
const struct search_plan *tui_plan_get(const struct tui *t, int id);
void tui_plan_label(const struct tui *t, int id, char *buf, size_t n);
int tui_view_rows(void);                 /* rows between tabs and footer */
void tui_start_prompt(struct tui *t, enum prompt_kind k, const char *title,
		      const char *init);
/* Find t->search in the current view's list: dir 0 from the selection on,
 * 1 the next match, -1 the previous. Shows a message when none matches. */
void tui_search(struct tui *t, int dir);

/* ---- tui_draw.c */
void tui_theme_init(struct tui *t);
int tui_attr(const struct tui *t, enum tui_color c);
const char *tui_glyph(const struct tui *t, enum tui_glyph g);
/* Text clipped to w columns at (y, x); returns the columns written. */
int tui_put(int y, int x, int w, int attr, const char *s);
int tui_putf(int y, int x, int w, int attr, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A view's notes for the help screen, built once into static storage:
 * "LABEL       text" lines wrapped at spaces to 74 columns (76 show at
 * 80 under the help's indent). */
enum { TUI_NOTES_MAX = 96, TUI_NOTE_W = 96, TUI_NOTE_WRAP = 74, TUI_NOTE_LABEL = 18 };
struct tui_notes {
	int n;
	char buf[TUI_NOTES_MAX][TUI_NOTE_W];
	const char *line[TUI_NOTES_MAX];
};
/* label in TUI_NOTE_LABEL columns, then text wrapped on the lines after
 * under it; lines past TUI_NOTES_MAX are dropped. */
void tui_notes_add(struct tui_notes *nt, const char *label, const char *text);

/* Text over up to maxl lines of w columns, broken at spaces. Returns the
 * lines used. */
int tui_put_wrapped(int y, int x, int w, int maxl, int attr, const char *s);
/* Right-aligned in w columns. */
void tui_putr(int y, int x, int w, int attr, const char *s);
void tui_fill(int y, int x, int w, int attr);
/* "── Title ─────" across w columns. */
void tui_section(const struct tui *t, int y, int x, int w, const char *title);
/* A bar of frac (0..1) of w columns; the rest is empty bar glyphs. */
void tui_bar(const struct tui *t, int y, int x, int w, double frac, int attr);
/* Terminal cells that s takes (wcwidth: a wide character takes 2), and
 * that its first n bytes take. */
int tui_width(const char *s);
/* labels[i] (of the n labels of one list) in w cells: whole when it
 * fits, else its first words, the ellipsis mid (one cell wide) and its
 * last words, chosen so that it still reads apart from every other label
 * of the list; into out (outn bytes). ui/tui_plans.c. */
void tui_fit_label(char (*labels)[PLAN_LABEL_MAX], int n, int i, int w, const char *mid,
		   char *out, size_t outn);
int tui_cells(const char *s, size_t n);
/* Bytes of the longest prefix of s, whole characters, within cells. */
size_t tui_cut_cells(const char *s, int cells);
/* s as a table cell of exactly cols terminal cells into dst (n bytes):
 * padded with spaces, or cut on a whole character and ended in "~". */
void tui_cell(char *dst, size_t n, const char *s, int cols);
/* Keep sel visible in a list of n rows shown in h rows. */
void tui_list_fix(struct tui_list *l, int n, int h);
/* Move sel by an action (ACT_UP, ACT_PGDN, ...); returns 1 if it was one. */
int tui_list_move(struct tui_list *l, int action, int n, int h);

/* Case-insensitive substring test. */
int tui_match(const char *hay, const char *needle);

void lineedit_set(struct lineedit *e, const char *s);
/* Returns 1 on Enter, -1 on Esc, 0 otherwise. */
int lineedit_key(struct lineedit *e, int ch);

/* ---- views */
void view_cluster_draw(struct tui *t, int y0, int h);
int view_cluster_key(struct tui *t, int action, int ch);
void view_model_draw(struct tui *t, int y0, int h);
int view_model_key(struct tui *t, int action, int ch);
/* Apply the text of field t->field of the active editor. Returns 0 or -1
 * with a message shown. */
int tui_field_commit(struct tui *t, const char *text);
void tui_picker_open(struct tui *t, enum picker_kind k);
void tui_picker_draw(struct tui *t);
int tui_picker_key(struct tui *t, int ch);

void tui_plans_sort(struct tui *t);
/* The plan id (tui_plan_get) of the Plans view's selected row: a ranked
 * plan, or a pool's best plan from the rows under them. */
int tui_plans_selected(const struct tui *t);
void view_plans_draw(struct tui *t, int y0, int h);
int view_plans_key(struct tui *t, int action, int ch);
/* The Detail view and the edited plan's (TV_EDITDETAIL): one drawing,
 * status and scroll, of the plan and inputs of the view shown. */
void view_detail_draw(struct tui *t, int y0, int h);
void detail_status(struct tui *t, char *buf, size_t n);
int view_detail_key(struct tui *t, int action, int ch);
int view_editdetail_key(struct tui *t, int action, int ch);
const char *const *tui_editdetail_notes(int *n);
void view_compare_draw(struct tui *t, int y0, int h);
int view_compare_key(struct tui *t, int action, int ch);
/* The Compare view's metrics of pa and pb (either may be NULL: "-") with
 * B's change against A, under the titles head[] (A, B, the change), in w
 * columns from (y, x), down to row y_end (exclusive); 61 columns give the
 * Compare view's widths, fewer (down to 40) narrower ones. Returns the
 * next row. */
int tui_metric_table(const struct tui *t, const struct search_plan *pa,
		     const struct search_plan *pb, const char *const head[3], int y, int x,
		     int w, int y_end);
/* The Compare view's "Step time, to scale": a section title, a bar per
 * plan named name[] (NULL: no bar), and the legend, in w columns from
 * (y, x0), down to row y_end (exclusive). Returns the rows it took; drawn
 * from y = LINES (below the screen, where nothing shows) it measures. */
int tui_step_scale(const struct tui *t, const struct search_plan *pa,
		   const struct search_plan *pb, const char *const name[2], int y, int x0, int w,
		   int y_end);
/* Row text the / search matches, per list view. */
void cluster_row_text(struct tui *t, int row, char *buf, size_t n);
void plans_row_text(struct tui *t, int row, char *buf, size_t n);
/* The Cluster and Model views' notes for the help screen: each field's
 * label and what it is (tui_edit.c); static storage. */
const char *const *tui_cluster_notes(int *n);
const char *const *tui_model_notes(int *n);
/* The Plans view's notes on its label notation, for the help screen. */
const char *const *tui_plans_notes(int *n);
void prices_row_text(struct tui *t, int row, char *buf, size_t n);
int view_prices_rows(struct tui *t);

void view_prices_draw(struct tui *t, int y0, int h);
int view_prices_key(struct tui *t, int action, int ch);
/* Load the price book (snapshot and cache, no network) and price the pools. */
void tui_prices_init(struct tui *t);
void tui_prices_done(struct tui *t);
/* Price every pool whose price the user did not set: the price book's
 * cheapest matching offer, else the catalog's reference. */
void tui_prices_apply(struct tui *t);
void tui_prices_start(struct tui *t);
/* After a wake: reload the book if an update ended; 1 if it did. */
int tui_prices_poll(struct tui *t);
/* Footer text for a running download, or "" . */
void tui_prices_status(struct tui *t, char *buf, size_t n, double *frac);

/* ---- tui_serve.c: the Serve view and its planner thread */
struct tui_serve;
/* The serving workload's defaults; the model is the workspace's. */
void tui_serve_init(struct tui *t);
/* The Serve view's notes for the help screen: each field's label, its
 * `hetplan serve` flag and the settings table's help; static storage. */
const char *const *tui_serve_notes(int *n);
/* Start the worker; a byte on wake_fd announces each answer. Returns 0 or
 * -1. Without it (bench) tui_serve_submit plans on the calling thread. */
int tui_serve_start(struct tui *t, int wake_fd);
/* Plan serving again for the current cluster and settings. */
void tui_serve_submit(struct tui *t);
/* After a wake: take the newest answer; 1 if one was taken. */
int tui_serve_poll(struct tui *t);
int tui_serve_busy(struct tui *t);
/* Join the worker and free the view's state. NULL state is fine. */
void tui_serve_done(struct tui *t);
/* Apply the prompt's text to the selected serving field: 0, or -1 with a
 * message shown. */
int tui_serve_field_commit(struct tui *t, const char *text);
void view_serve_draw(struct tui *t, int y0, int h);
int view_serve_key(struct tui *t, int action, int ch);
int serve_rows(struct tui *t, struct tui_list **l);
void serve_row_text(struct tui *t, int row, char *buf, size_t n);
void tui_serve_status(struct tui *t, char *buf, size_t n);
/* "planning serving" while the serving planner works, else "". */
void tui_serve_work(struct tui *t, char *buf, size_t n);

/* ---- tui_planedit.c: the Edit plan view, a what-if on one plan's keys */
/* Open the editor on plan id (tui_plan_get) and show it; a message when
 * there is no such plan. The editor keeps copies of the answer's cluster,
 * model and workload, so a re-plan meanwhile does not change what it
 * estimates against. */
void tui_planedit_open(struct tui *t, int id);
/* The edited plan, to change in place (NULL: none open); after a change
 * call tui_planedit_changed, which runs the estimator again. */
struct plan *tui_planedit_plan(struct tui *t);
const struct plan *tui_planedit_orig(const struct tui *t);
/* The plan the editor was opened on, as its view named it ("#1 h100
 * tp1 pp1"); "" when none is open. */
const char *tui_planedit_title(const struct tui *t);
void tui_planedit_changed(struct tui *t);
/* The edited plan with its estimate, or NULL (none, or it failed). */
const struct search_plan *tui_planedit_get(const struct tui *t);
/* The inputs the edited plan is estimated on: 0, or -1 when none is open. */
int tui_planedit_inputs(const struct tui *t, const struct cluster **c,
			const struct model_spec **m, const struct search_opts **o);
void view_planedit_draw(struct tui *t, int y0, int h);
int view_planedit_key(struct tui *t, int action, int ch);
const char *const *tui_planedit_notes(int *n);
void tui_planedit_done(struct tui *t);   /* free the state; NULL is fine */
/* tui_edit.c: the plan's keys as a field list (one row per entry of
 * plan_fields, generated from the table): draw it, and take a list key
 * (move, Enter, h/l). Rows whose value differs from orig are marked. */
void tui_plan_fields_draw(struct tui *t, int y0, int x, int w, int h);
int tui_plan_fields_key(struct tui *t, int action);
/* The keys of the edited plan that differ from the planner's (the rows
 * tui_plan_fields_draw marks), as "KEY NEW (was OLD)" joined by ", ",
 * into buf (n bytes; cut on a character when full). Returns their
 * count: 0 with buf "" when none differs or no editor is open. */
int tui_plan_changes(struct tui *t, char *buf, size_t n);

/* ---- tui_export.c: the plan report. Format from the path's extension
 * (.json, .md; anything else is Markdown). Returns 0 or -1 with err. */
int tui_export(const struct tui *t, int id, const char *path, struct hp_err *err);
/* `L`: plan id's launch config, as `hetplan launch` writes it for the same
 * plan (the workload's tokens for --tokens), written atomically to path.
 * The format from the path's extension: .sh a Slurm + torchrun script,
 * .toml torchtitan, .json DeepSpeed, anything else Megatron-LM arguments
 * (launch's default). An estimate-only framework or a plan that does not
 * fit in GPU memory is refused as launch refuses it (without --force).
 * Returns 0 with what was written and the renderer's verdict in msg (n
 * bytes; *warn 1 when the renderer has notes), or -1 with err. */
int tui_export_launch(const struct tui *t, int id, const char *path, char *msg, size_t n,
		      int *warn, struct hp_err *err);

#endif
