/* tui.c — the interactive planner: the loop, the key tables, and the frame
 * around the views (header, tab bar, footer, help, prompts).
 *
 * The loop sleeps in poll() on the terminal and a wake pipe. Keys are
 * looked up in the current view's table, then the global one; the action
 * goes to the view's handler, which changes state and returns R_DRAW or
 * R_QUIT; drawing happens once per batch of input. The planner and the
 * price download run on worker threads (tui_job.c, tui_fetch.c) and write
 * to the wake pipe when they finish; while either runs, the loop also wakes
 * ten times a second to move the progress bar. Every edit bumps a
 * generation counter and re-plans; only the newest generation's answer is
 * shown.
 *
 * The terminal is restored on q, on Ctrl-C (SIGINT), SIGTERM and crash
 * signals, and before an out-of-memory abort (hp_set_fatal_hook). stderr is
 * parked in a temporary file while the screen is in use and replayed after. */
#include "common.h"
#include "tui_int.h"
#include "escape.h"
#include "plan_label.h"
#include "utf8.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <termios.h>
#include <string.h>
#include <unistd.h>

/* ---- key tables: the one source of the dispatcher, footer, help, man */

#define K(...) { __VA_ARGS__ }
static const struct tui_key keys_global[] = {
	{ K('q', KEY_F(10)), "q F10", "quit", "Quit; with unsaved changes press it twice", ACT_QUIT, 1 },
	{ K('?', KEY_F(1)), "? F1", "help", "Show the keys of this view", ACT_HELP, 1 },
	{ K('1', KEY_F(2)), "1 F2", "cluster", "Cluster view: the node pools", ACT_VIEW1, 0 },
	{ K('2', KEY_F(3)), "2 F3", "model", "Model and workload view", ACT_VIEW2, 0 },
	{ K('3', KEY_F(4)), "3 F4", "plans", "Plans view: the ranked plans", ACT_VIEW3, 0 },
	{ K('4', KEY_F(5)), "4 F5", "detail", "Detail view of the selected plan", ACT_VIEW4, 0 },
	{ K('5', KEY_F(6)), "5 F6", "prices", "Prices view: sources and cheapest offers", ACT_VIEW5, 0 },
	{ K('6', KEY_F(7)), "6 F7", "compare", "Compare two plans side by side", ACT_VIEW6, 0 },
	{ K('7', KEY_F(8)), "7 F8", "serve", "Serve view: serving plans for the cluster", ACT_VIEW7, 0 },
	{ K(27), "Esc", "cancel", "Cancel the running plan or price download", ACT_CANCEL, 0 },
	{ K('w', 19), "w C-s", "save", "Save the workspace to a file (asks for the name)", ACT_SAVE, 1 },
	{ K('o'), "o", "open", "Open a workspace file", ACT_OPEN, 0 },
	{ K('e'), "e", "export", "Export the selected plan: .md, .json, or a .html/.csv report", ACT_EXPORT, 1 },
	{ K('L'), "L", "launch", "Write the plan's launch config, as hetplan launch writes it", ACT_LAUNCH, 0 },
	{ K('R'), "R", "replan", "Plan again now", ACT_REPLAN, 0 },
	{ K(12), "C-l", "redraw", "Redraw the screen", ACT_REDRAW, 0 },
};

#define NAV_KEYS                                                                          \
	{ K('k', KEY_UP, 16), "k Up", "up", "Move up", ACT_UP, 0 },                         \
	{ K('j', KEY_DOWN, 14), "j Down", "down", "Move down", ACT_DOWN, 0 },               \
	{ K(KEY_PPAGE, 2), "PgUp C-b", "page up", "Move up one page", ACT_PGUP, 0 },        \
	{ K(KEY_NPAGE, 6), "PgDn C-f", "page down", "Move down one page", ACT_PGDN, 0 },    \
	{ K('g', KEY_HOME), "g Home", "top", "Go to the first row", ACT_TOP, 0 },           \
	{ K('G', KEY_END), "G End", "bottom", "Go to the last row", ACT_BOTTOM, 0 }

/* n and N after a / search */
#define MATCH_KEYS                                                                        \
	{ K('n'), "n", "next", "Next match", ACT_SEARCH_NEXT, 0 },                          \
	{ K('N'), "N", "prev match", "Previous match", ACT_SEARCH_PREV, 0 }

/* h and l on a field with choices */
#define CHOICE_KEYS                                                                       \
	{ K('h', KEY_LEFT), "h Left", "prev", "Previous choice of a field (precision, objective, ...)", \
	  ACT_LEFT, 0 },                                                                    \
	{ K('l', KEY_RIGHT), "l Right", "next", "Next choice of a field", ACT_RIGHT, 0 }

/* A list of fields beside another pane: Enter edits, Tab switches, h/l cycle */
#define FIELD_KEYS(enter, tab)                                                            \
	{ K('\n', '\r', KEY_ENTER), "Enter", "edit", enter, ACT_ENTER, 1 },                  \
	{ K('\t', KEY_BTAB), "Tab", "pane", tab, ACT_PANE, 1 },                              \
	CHOICE_KEYS

static const struct tui_key keys_cluster[] = {
	NAV_KEYS,
	{ K('\n', '\r', KEY_ENTER), "Enter", "edit", "Edit the selected pool, or the selected field", ACT_ENTER, 1 },
	{ K('\t', KEY_BTAB), "Tab", "pane", "Switch between the pools and the field editor", ACT_PANE, 0 },
	{ K('h', KEY_LEFT), "h Left", "prev", "In the editor: previous choice of a field", ACT_LEFT, 0 },
	{ K('l', KEY_RIGHT), "l Right", "next", "In the editor: next choice of a field", ACT_RIGHT, 0 },
	{ K(27), "Esc", "back", "Leave the field editor", ACT_BACK, 0 },
	{ K('a', KEY_IC), "a Ins", "add", "Add a pool (pick its GPU from the catalog)", ACT_ADD, 1 },
	{ K('c'), "c", "duplicate", "Duplicate the selected pool", ACT_DUP, 1 },
	{ K('x', KEY_DC), "x Del", "delete", "Delete the selected pool (asks first)", ACT_DELETE, 1 },
	{ K('+', '='), "+", "node", "One more node in the selected pool", ACT_MORE, 1 },
	{ K('-', '_'), "-", "node", "One node fewer in the selected pool", ACT_LESS, 1 },
	{ K('/'), "/", "search", "Find a pool by name", ACT_SEARCH, 0 },
	MATCH_KEYS,
};

static const struct tui_key keys_model[] = {
	NAV_KEYS,
	FIELD_KEYS("Edit the selected field", "Switch between the model and the workload"),
	{ K('p'), "p", "preset", "Pick a model preset from the catalog", ACT_PRESET, 1 },
	{ K('C'), "C", "clamp", "Clamp the sequence length to the model's context", ACT_CLAMP, 0 },
};

static const struct tui_key keys_plans[] = {
	NAV_KEYS,
	{ K('\n', '\r', KEY_ENTER), "Enter", "detail", "Open the selected plan in the detail view", ACT_ENTER, 1 },
	{ K('s'), "s", "sort", "Sort by the next column", ACT_SORT, 1 },
	{ K('S'), "S", "reverse", "Reverse the sort order", ACT_SORT_REV, 0 },
	{ K('/'), "/", "search", "Find a plan by its label", ACT_SEARCH, 1 },
	MATCH_KEYS,
	{ K('a'), "a", "mark A", "Mark the selected plan as A for compare", ACT_MARK_A, 0 },
	{ K('b'), "b", "mark B", "Mark the selected plan as B for compare", ACT_MARK_B, 0 },
	{ K('c'), "c", "compare", "Compare the selected plan with the best one", ACT_COMPARE, 1 },
	{ K('E'), "E", "what-if", "Edit the selected plan's keys and see its estimate change", ACT_PLANEDIT, 0 },
};

/* The Detail views' canvas: scrolled, not a list */
#define SCROLL_KEYS                                                                       \
	{ K('k', KEY_UP, 16), "k Up", "scroll", "Scroll up", ACT_UP, 0 },                   \
	{ K('j', KEY_DOWN, 14), "j Down", "scroll", "Scroll down", ACT_DOWN, 1 },           \
	{ K(KEY_PPAGE, 2), "PgUp C-b", "page up", "Scroll up one page", ACT_PGUP, 0 },      \
	{ K(KEY_NPAGE, 6, ' '), "PgDn Space", "page down", "Scroll down one page", ACT_PGDN, 0 }, \
	{ K('g', KEY_HOME), "g Home", "top", "Scroll to the top", ACT_TOP, 0 },             \
	{ K('G', KEY_END), "G End", "bottom", "Scroll to the bottom", ACT_BOTTOM, 0 }

/* a and b on the Edit plan view's plan, in the editor and its Detail */
#define EDITED_MARK_KEYS                                                                  \
	{ K('a'), "a", "mark A", "Mark the edited plan as A for compare", ACT_MARK_A, 0 },   \
	{ K('b'), "b", "mark B", "Mark the edited plan as B for compare", ACT_MARK_B, 0 }

static const struct tui_key keys_detail[] = {
	SCROLL_KEYS,
	{ K('[', 'p'), "[ p", "prev plan", "Show the previous plan", ACT_LEFT, 1 },
	{ K(']', 'n'), "] n", "next plan", "Show the next plan", ACT_RIGHT, 1 },
	{ K('h', KEY_LEFT, KEY_BACKSPACE, 127), "h Left Bksp", "back", "Back to the plans", ACT_BACK, 1 },
	{ K('a'), "a", "mark A", "Mark this plan as A for compare", ACT_MARK_A, 0 },
	{ K('b'), "b", "mark B", "Mark this plan as B for compare", ACT_MARK_B, 0 },
	{ K('E'), "E", "what-if", "Edit this plan's keys and see its estimate change", ACT_PLANEDIT, 1 },
};

static const struct tui_key keys_planedit[] = {
	NAV_KEYS,
	{ K('\n', '\r', KEY_ENTER), "Enter", "edit", "Next choice of the selected key, or type its value", ACT_ENTER, 1 },
	CHOICE_KEYS,
	{ K('r'), "r", "reset", "Reset every key to the planner's plan", ACT_RESET, 1 },
	{ K('d'), "d", "detail", "Detail view of the edited plan (Esc comes back here)",
	  ACT_DETAIL, 1 },
	{ K(27, KEY_BACKSPACE, 127), "Esc Bksp", "back", "Back to the view it was opened from", ACT_BACK, 1 },
	EDITED_MARK_KEYS,
};

/* The edited plan's Detail (d in Edit plan): one plan, so no [ and ] */
static const struct tui_key keys_editdetail[] = {
	SCROLL_KEYS,
	{ K(27, 'h', KEY_LEFT, KEY_BACKSPACE, 127), "Esc h Left Bksp", "back",
	  "Back to the plan editor, its keys as they were", ACT_BACK, 1 },
	EDITED_MARK_KEYS,
};

static const struct tui_key keys_prices[] = {
	NAV_KEYS,
	{ K('r'), "r", "refresh", "Download the live price lists in the background", ACT_REFRESH, 1 },
	{ K('/'), "/", "search", "Find a GPU", ACT_SEARCH, 1 },
	MATCH_KEYS,
};

static const struct tui_key keys_serve[] = {
	NAV_KEYS,
	FIELD_KEYS("Edit the selected serving field", "Switch between the serving fields and the plans"),
	{ K('/'), "/", "search", "Find a serving plan by its label", ACT_SEARCH, 0 },
	MATCH_KEYS,
	{ K('e'), "e", "export", "Export the serving plans as hetplan serve: .json, .md, .html", ACT_EXPORT, 0 },
};

static const struct tui_key keys_compare[] = {
	{ K('x'), "x", "swap", "Swap plans A and B", ACT_SWAP, 1 },
	{ K('[', 'h', KEY_LEFT), "[ h Left", "B prev", "Plan B: the previous plan", ACT_LEFT, 1 },
	{ K(']', 'l', KEY_RIGHT), "] l Right", "B next", "Plan B: the next plan", ACT_RIGHT, 1 },
	{ K('{'), "{", "A prev", "Plan A: the previous plan", ACT_UP, 0 },
	{ K('}'), "}", "A next", "Plan A: the next plan", ACT_DOWN, 0 },
};

/* The searchable list of a view: its rows and where the selection lives. */
static int cluster_rows(struct tui *t, struct tui_list **l)
{
	*l = &t->lpools;
	return t->ws.cluster.n_pools;
}

static int plans_rows(struct tui *t, struct tui_list **l)
{
	*l = &t->lplans;
	return t->n_order;
}

static int prices_rows(struct tui *t, struct tui_list **l)
{
	*l = &t->lprices;
	return view_prices_rows(t);
}

/* The plan `e` exports: the one shown, or the one selected. */
static int detail_plan(const struct tui *t)
{
	return t->detail_id;
}

static int plans_plan(const struct tui *t)
{
	return tui_plans_selected(t);
}

static int planedit_plan(const struct tui *t)
{
	return TUI_ID_EDITED;
}

#define KEYS(k) .keys = k, .n_keys = (int)HP_ARRAY_LEN(k)
/* The views, in tab order: what the loop, the frame and the help call. */
static const struct tui_view_ops views[TV_COUNT] = {
	[TV_CLUSTER] = { "Cluster", KEYS(keys_cluster), .draw = view_cluster_draw,
			 .key = view_cluster_key, .rows = cluster_rows,
			 .row_text = cluster_row_text, .notes_title = "Pool and fabric fields",
			 .notes = tui_cluster_notes, .notes_last = 1 },
	[TV_MODEL] = { "Model", KEYS(keys_model), .draw = view_model_draw, .key = view_model_key,
		       .notes_title = "Model and workload fields", .notes = tui_model_notes,
		       .notes_last = 1 },
	[TV_PLANS] = { "Plans", KEYS(keys_plans), .draw = view_plans_draw, .key = view_plans_key,
		       .rows = plans_rows, .row_text = plans_row_text,
		       .notes_title = "Plan labels", .notes = tui_plans_notes, .plan = plans_plan },
	[TV_DETAIL] = { "Detail", KEYS(keys_detail), .draw = view_detail_draw,
			.key = view_detail_key, .plan = detail_plan, .status = detail_status },
	[TV_PRICES] = { "Prices", KEYS(keys_prices), .draw = view_prices_draw,
			.key = view_prices_key, .rows = prices_rows, .row_text = prices_row_text },
	[TV_COMPARE] = { "Compare", KEYS(keys_compare), .draw = view_compare_draw,
			 .key = view_compare_key },
	[TV_SERVE] = { "Serve", KEYS(keys_serve), .draw = view_serve_draw, .key = view_serve_key,
		       .rows = serve_rows, .row_text = serve_row_text,
		       .status = tui_serve_status, .work = tui_serve_work,
		       .notes_title = "Serve fields", .notes = tui_serve_notes,
		       .notes_last = 1 },
	[TV_PLANEDIT] = { "Edit plan", KEYS(keys_planedit), .draw = view_planedit_draw,
			  .key = view_planedit_key, .notes_title = "Edit plan",
			  .notes = tui_planedit_notes, .plan = planedit_plan, .tab = TV_DETAIL },
	[TV_EDITDETAIL] = { "Edited plan detail", KEYS(keys_editdetail), .draw = view_detail_draw,
			    .key = view_editdetail_key, .notes_title = "Edited plan detail",
			    .notes = tui_editdetail_notes, .plan = planedit_plan,
			    .status = detail_status, .tab = TV_DETAIL },
};
#undef KEYS

static const struct tui_view_ops *cur_view(const struct tui *t)
{
	return &views[t->view];
}

const struct tui_key *tui_keys(int v, int *n)
{
	if (v < 0 || v >= TV_COUNT) {
		*n = (int)HP_ARRAY_LEN(keys_global);
		return keys_global;
	}
	*n = views[v].n_keys;
	return views[v].keys;
}

static const struct tui_key *key_find(int v, int ch)
{
	int n;
	const struct tui_key *k = tui_keys(v, &n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < TUI_KEY_CODES && k[i].codes[j]; j++)
			if (k[i].codes[j] == ch)
				return &k[i];
	return NULL;
}

/* ---- terminal lifetime */

static volatile sig_atomic_t tui_active;
static int saved_stderr = -1;
static FILE *parked;

static void tui_restore(void)
{
	if (tui_active) {
		tui_active = 0;
		endwin();
		if (saved_stderr >= 0) {
			dup2(saved_stderr, 2);
			close(saved_stderr);
			saved_stderr = -1;
		}
	}
}

/* What on_fatal needs, prepared while curses is running: the terminal's
 * modes from before curses, and the bytes that undo curses' changes
 * (attributes off, cursor shown, keypad and mouse reporting off, the
 * normal screen back). */
static struct termios saved_tio;
static int have_tio;
static char reset_seq[256];
static size_t reset_len;

static void reset_add(const char *s)
{
	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (reset_len + n < sizeof reset_seq) {
		memcpy(reset_seq + reset_len, s, n);
		reset_len += n;
	}
}

static void reset_prepare(int mouse)
{
	reset_len = 0;
	reset_add(tigetstr("sgr0"));
	reset_add(tigetstr("cnorm"));
	reset_add(tigetstr("rmkx"));
	if (mouse)  /* xterm mouse modes that ncurses may have turned on */
		reset_add("\033[?1000l\033[?1002l\033[?1003l\033[?1006l");
	reset_add(tigetstr("rmcup"));
}

/* On a crash or a kill signal. endwin() is not async-signal-safe (it
 * allocates and writes through stdio), so the handler uses only calls
 * POSIX lists as safe (2.4.3): write, tcsetattr, dup2, signal, raise. */
static void on_fatal(int sig)
{
	if (tui_active) {
		tui_active = 0;
		if (reset_len && write(STDOUT_FILENO, reset_seq, reset_len) < 0)
			reset_len = 0;
		if (have_tio)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
		if (saved_stderr >= 0)
			dup2(saved_stderr, 2);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Park stderr in a temporary file while curses owns the screen. */
static void stderr_park(void)
{
	parked = tmpfile();
	if (!parked)
		return;
	fflush(stderr);
	saved_stderr = dup(2);
	if (saved_stderr < 0 || dup2(fileno(parked), 2) < 0) {
		if (saved_stderr >= 0)
			close(saved_stderr);
		saved_stderr = -1;
		fclose(parked);
		parked = NULL;
	}
}

static void stderr_replay(void)
{
	if (!parked)
		return;
	char buf[4096];
	size_t n;
	rewind(parked);
	while ((n = fread(buf, 1, sizeof buf, parked)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(parked);
	parked = NULL;
}

/* ---- shared helpers */

void tui_message(struct tui *t, int bad, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof t->msg, fmt, ap);
	va_end(ap);
	t->msg_bad = bad;
	*t->note = 0;
	t->note_bad = 0;
}

void tui_note(struct tui *t, int bad, const char *whole, const char *brief)
{
	if (!*t->msg) {
		tui_message(t, bad, "%s", whole);
		return;
	}
	if (strstr(t->msg, brief) || strstr(t->note, brief))
		return;
	size_t n = strlen(t->note);
	if (n + strlen(brief) + 3 > sizeof t->note)
		return;   /* full: the notes already there say enough */
	snprintf(t->note + n, sizeof t->note - n, "%s%s", n ? "; " : "", brief);
	t->note_bad |= bad;
}

int tui_view_rows(void)
{
	return LINES - 3;
}

const struct search_plan *tui_plan_get(const struct tui *t, int id)
{
	if (id == TUI_ID_EDITED)
		return tui_planedit_get(t);
	if (!t->cur || t->cur->rc < 0)
		return NULL;
	const struct search_result *r = &t->cur->res;
	if (id >= 0)
		return id < r->n_plans ? &r->plans[id] : NULL;
	int pool = -1 - id;
	return pool < HP_MAX_POOLS && r->has_single[pool] ? &r->single[pool] : NULL;
}

void tui_plan_label(const struct tui *t, int id, char *buf, size_t n)
{
	const struct search_plan *sp = tui_plan_get(t, id);
	if (!sp)
		snprintf(buf, n, "-");
	else if (id == TUI_ID_EDITED)
		snprintf(buf, n, "%s", sp->label);
	else {
		/* the name the Plans view's row gives it (plan_label.h), so
		 * the Detail's and Compare's titles read as the row did */
		char lb[PLAN_LABEL_MAX];
		if (id >= 0) {
			plan_list_label(sp, &t->cur->c, t->cur->res.plans, t->order, t->n_order, 0, lb,
					sizeof lb);
			snprintf(buf, n, "#%d %s", id + 1, lb);
		} else {
			plan_label_base(sp, &t->cur->c, 0, lb, sizeof lb);
			snprintf(buf, n, "best on %s: %s", t->cur->c.pools[-1 - id].name, lb);
		}
	}
}

void tui_edited(struct tui *t)
{
	tui_prices_apply(t);
	t->dirty = 1;
	t->quit_armed = 0;
	t->gen++;
	if (t->pl)
		planner_submit(t->pl, &t->ws, t->gen);
	tui_serve_submit(t);   /* the cluster may have changed */
}

void tui_start_prompt(struct tui *t, enum prompt_kind k, const char *title, const char *init)
{
	t->prompt = k;
	hp_strlcpy(t->prompt_title, title, sizeof t->prompt_title);
	lineedit_set(&t->edit, init);
}

void tui_search(struct tui *t, int dir)
{
	const struct tui_view_ops *v = cur_view(t);
	struct tui_list *l;
	if (!v->rows)
		return;
	int n = v->rows(t, &l);
	if (!*t->search || n <= 0)
		return;
	char buf[256];
	for (int k = 0; k < n; k++) {
		int i = dir >= 0 ? l->sel + (dir ? 1 : 0) + k : l->sel - 1 - k;
		i = ((i % n) + n) % n;
		v->row_text(t, i, buf, sizeof buf);
		if (tui_match(buf, t->search)) {
			l->sel = i;
			return;
		}
	}
	tui_message(t, 1, "no match for '%s'", t->search);
}

/* A new answer from the planner: keep it if it is for the newest edit. */
static void take_result(struct tui *t)
{
	struct tui_result *r;
	while ((r = t->pl ? planner_take(t->pl) : NULL)) {
		if (r->gen != t->gen) {
			tui_result_free(r);
			continue;
		}
		tui_result_free(t->cur);
		t->cur = r;
		tui_plans_sort(t);
		/* The Plans view prints the planner's message; elsewhere the
		 * footer says where to read it, after what the user's own
		 * key said (the message line clears on the next key, and a
		 * confirmation such as "sequence length 8192 -> 2048" must
		 * not vanish because the plan came back quickly). */
		if (r->rc < 0 && t->view != TV_PLANS)
			tui_note(t, 1, "no plan: the Plans view (3) says why", "no plan (3)");
		else if (r->res.stats.cancelled && !r->partial)
			tui_note(t, 0, "planning cancelled: the best plans found so far",
				 "cancelled");
	}
}

/* ---- the frame */

static int tab_x[TV_TABS + 1];

static void draw_header(struct tui *t)
{
	int a = tui_attr(t, C_HEADER);
	tui_fill(0, 0, COLS, a);
	char where[96], what[160];
	const char *slash = strrchr(t->path, '/');
	const char *file = *t->path ? (slash ? slash + 1 : t->path) : "default workspace";
	/* byte limits cut on a character (a file or model named in UTF-8) */
	snprintf(where, sizeof where, "%.*s%s", (int)utf8_cut(file, 60), file,
		 t->dirty ? " [+]" : "");
	int gpus = cluster_total_gpus(&t->ws.cluster);
	snprintf(what, sizeof what, "%.*s, %d GPU%s, %d pool%s",
		 (int)utf8_cut(t->ws.model.display, 40), t->ws.model.display,
		 gpus, gpus == 1 ? "" : "s", t->ws.cluster.n_pools,
		 t->ws.cluster.n_pools == 1 ? "" : "s");
	const char *bar = tui_glyph(t, G_VLINE);
	int x = 1;
	x += tui_putf(0, x, COLS - x, a | (int)A_BOLD, "hetplan %s", HETPLAN_VERSION);
	x += tui_putf(0, x, COLS - x - 8, a, " %s %s %s ", bar, where, bar);
	/* one blank before "? help" (right in its 8 cells, from COLS - 7
	 * to COLS - 2), as the bars have one blank each side; it kept two,
	 * and dropped the pool count at 76 columns where it fits */
	int room = COLS - x - 8;
	if (tui_width(what) > room)      /* narrow: drop the pool count */
		*strrchr(what, ',') = 0;
	tui_put(0, x, room, a, what);
	tui_putr(0, COLS - 9, 8, a, "? help");
}

static void draw_tabs(struct tui *t)
{
	int x = 1, lit = t->view < TV_TABS ? t->view : views[t->view].tab;
	for (int v = 0; v < TV_TABS; v++) {
		tab_x[v] = x;
		char s[32];
		snprintf(s, sizeof s, " %d %s ", v + 1, views[v].name);
		int w = tui_width(s);
		tui_put(1, x, w, tui_attr(t, v == lit ? C_TAB_ON : C_TAB), s);
		x += w + 1;
	}
	tab_x[TV_TABS] = x;
}

static int help_rows(struct tui *t, int y0, int h);

/* The help screen's rows on screen: LINES - 3, between the tab bar and
 * the footer (draw_help). */
static int help_height(void)
{
	return LINES - 3;
}

/* The cells a prompt keeps for the typed text when its title is long;
 * at 80 columns the title then gets 55. */
#define PROMPT_MIN_INPUT 24

/* Footer: hints from the tables on the left, work and messages on the right. */
static void draw_footer(struct tui *t)
{
	int y = LINES - 1;
	tui_fill(y, 0, COLS, 0);
	if (t->prompt) {
		/* The typed text keeps at least PROMPT_MIN_INPUT cells (half
		 * a narrow line): a longer title ends in the ellipsis, as a
		 * price field's long hint at 80 columns would otherwise leave
		 * 3 cells and hide what is typed. */
		int room_title = HP_MAX(8, COLS - 1 - HP_MIN(PROMPT_MIN_INPUT, COLS / 2));
		int x;
		if (tui_width(t->prompt_title) <= room_title) {
			x = tui_put(y, 0, COLS, tui_attr(t, C_KEY), t->prompt_title);
		} else {
			size_t keep = tui_cut_cells(t->prompt_title, room_title - 1);
			x = tui_putf(y, 0, room_title, tui_attr(t, C_KEY), "%.*s%s", (int)keep,
				     t->prompt_title, tui_glyph(t, G_MID));
		}
		x++;
		/* Text wider than its cells scrolls so that the cursor shows:
		 * the start gives way one character at a time. */
		int room = HP_MAX(1, COLS - x - 1);
		int skip = 0;
		while (skip < t->edit.cur &&
		       tui_cells(t->edit.buf + skip, (size_t)(t->edit.cur - skip)) >= room) {
			skip++;
			while (skip < t->edit.cur && ((unsigned char)t->edit.buf[skip] & 0xC0) == 0x80)
				skip++;
		}
		tui_put(y, x, room, 0, t->edit.buf + skip);
		curs_set(1);
		int cx = x + tui_cells(t->edit.buf + skip, (size_t)(t->edit.cur - skip));
		move(y, cx < COLS ? cx : COLS - 1);
		return;
	}
	char right[320] = "";
	double frac = -1, pf = 0, el = 0;
	int busy = t->pl && planner_busy(t->pl, &pf, &el);
	int ra = tui_attr(t, C_DIM);
	/* What is never hidden: background notes after a message, and the
	 * view's own work under way after anything else. */
	char work[64] = "", tail[200] = "";
	if (cur_view(t)->work)
		cur_view(t)->work(t, work, sizeof work);
	snprintf(tail, sizeof tail, "%s%s%s", *t->msg ? t->note : "",
		 *t->msg && *t->note && *work ? "; " : "", *work ? work : "");
	if (*t->msg) {
		/* A message longer than the footer keeps its start, cut on a
		 * character, so that the tail still shows. */
		int room = HP_MIN(150, COLS - 4) - (*tail ? tui_width(tail) + 2 : 0);
		int keep = (int)tui_cut_cells(t->msg, HP_MAX(8, room));
		snprintf(right, sizeof right, "%.*s%s%s", keep, t->msg, *tail ? "; " : "", tail);
		ra = tui_attr(t, t->msg_bad || (t->note_bad && *t->note) ? C_BAD : C_GOOD);
	} else if (busy) {
		/* In a view with work of its own, "planning" alone would read
		 * as that work: the training planner is named. */
		if (*work)
			snprintf(right, sizeof right, "%s; training %.1f s, Esc cancels", work, el);
		else if (cur_view(t)->work)
			snprintf(right, sizeof right, "planning training %.1f s, Esc cancels", el);
		else
			snprintf(right, sizeof right, "planning %.1f s, Esc cancels", el);
		frac = pf;
		ra = tui_attr(t, C_WARN);
	} else {
		char fetch[160];
		tui_prices_status(t, fetch, sizeof fetch, &frac);
		if (*fetch) {
			snprintf(right, sizeof right, "%s%s%s", work, *work ? "; " : "", fetch);
			ra = tui_attr(t, C_WARN);
		} else if (cur_view(t)->status)
			cur_view(t)->status(t, right, sizeof right);
		else if (t->cur && t->cur->rc == 0)
			snprintf(right, sizeof right, "%d plans", t->cur->res.n_plans);
		else if (t->cur)
			snprintf(right, sizeof right, "0 plans");
	}
	/* The help screen longer than its rows: which rows show and how to
	 * see the rest, in place of the status (a message still wins). */
	if (t->help && !*t->msg) {
		int rows = help_rows(t, 0, 0), h = help_height();
		if (rows > h) {
			int last = HP_MIN(t->help_top + h, rows);
			snprintf(right, sizeof right, "help rows %d-%d of %d: %s", t->help_top + 1,
				 last, rows, last < rows ? "j/Down for more, k/Up back"
				 : "k/Up back");
			frac = -1;
			ra = tui_attr(t, C_WARN);
		}
	}
	/* Measured as drawn (tui_put shows a control byte as ^[ or \xE6), and
	 * never wider than the line: the start of a long text shows. */
	if (!esc_is_printable(right, (size_t)-1)) {
		char safe[sizeof right];
		esc_term_buf(safe, sizeof safe, right);
		memcpy(right, safe, sizeof right);
	}
	/* Hints: the view's, then the global ones, as many as fit. */
	int rw = HP_MIN(tui_width(right), COLS - 2) + (frac >= 0 ? 12 : 0);
	int limit = COLS - rw - 2, x = 0;
	for (int pass = 0; pass < 2; pass++) {
		int n;
		const struct tui_key *k = tui_keys(pass ? TV_GLOBAL : t->view, &n);
		for (int i = 0; i < n; i++) {
			if (!k[i].hint)
				continue;
			char key[16];
			snprintf(key, sizeof key, "%.15s", k[i].keys);
			char *sp = strchr(key, ' ');
			if (sp)
				*sp = 0;
			int need = tui_width(key) + tui_width(k[i].name) + 2;
			if (x + need > limit)
				break;
			x += tui_put(y, x, need, tui_attr(t, C_KEY), key);
			x += tui_putf(y, x, need, tui_attr(t, C_HINT), " %s ", k[i].name);
		}
	}
	int rx = COLS - rw - 1;
	if (frac >= 0 && rx > x) {
		tui_bar(t, y, rx, 10, frac, tui_attr(t, C_WARN));
		rx += 12;
	}
	if (rx > x)
		tui_put(y, rx, COLS - rx, ra, right);
}

/* The help screen's rows from help_top on, into rows y0 .. y0 + h - 1;
 * with h = 0 it only counts them. Returns the number of rows. */
static int help_rows(struct tui *t, int y0, int h)
{
	int row = 0;
	char title[64];
	for (int pass = 0; pass < 2; pass++) {
		int n;
		const struct tui_key *k = tui_keys(pass ? TV_GLOBAL : t->view, &n);
		snprintf(title, sizeof title, pass ? "Keys in every view" : "Keys in the %s view",
			 views[t->view].name);
		if (row - t->help_top >= 0 && row - t->help_top < h)
			tui_section(t, y0 + row - t->help_top, 1, COLS - 2, title);
		row++;
		for (int i = 0; i < n; i++) {
			/* A key the view's table answers by the same name
			 * ("e export" in the Serve view) is listed there only:
			 * the global row's sentence is not what it does here. */
			const struct tui_key *own = pass ? key_find(t->view, k[i].codes[0]) : NULL;
			if (own && !strcmp(own->name, k[i].name))
				continue;
			int y = y0 + row++ - t->help_top;
			if (y < y0 || y >= y0 + h)
				continue;
			/* 15 columns: "Esc h Left Bksp" */
			tui_put(y, 3, 15, tui_attr(t, C_TITLE), k[i].keys);
			tui_put(y, 19, COLS - 20, 0, k[i].desc);
		}
		row++;
		if (pass == cur_view(t)->notes_last && cur_view(t)->notes) {
			int nn;
			const char *const *notes = cur_view(t)->notes(&nn);
			if (row - t->help_top >= 0 && row - t->help_top < h)
				tui_section(t, y0 + row - t->help_top, 1, COLS - 2, cur_view(t)->notes_title);
			row++;
			for (int i = 0; i < nn; i++, row++)
				if (row - t->help_top >= 0 && row - t->help_top < h)
					tui_put(y0 + row - t->help_top, 3, COLS - 4, 0, notes[i]);
			row++;
		}
	}
	return row;
}

static void draw_help(struct tui *t)
{
	int y0 = 2, h = help_height();
	for (int y = y0; y < y0 + h; y++)
		tui_fill(y, 0, COLS, 0);
	/* Clamped before drawing: keys read in one go (j held down) may have
	 * scrolled past the last row, which showed blank rows until the next
	 * redraw. */
	int maxrow = help_rows(t, y0, 0);
	if (t->help_top > maxrow - h)
		t->help_top = HP_MAX(0, maxrow - h);
	help_rows(t, y0, h);
}

static void draw_too_small(struct tui *t)
{
	erase();
	const char *l1 = "Terminal too small";
	char l2[96];
	snprintf(l2, sizeof l2, "%dx%d; hetplan needs %dx%d.", COLS, LINES, TUI_MIN_COLS,
		 TUI_MIN_ROWS);
	/* On a screen narrower than the sentence, its two halves on two
	 * lines: cut at the edge it read "press i to ignor", no q. */
	const char *l3 = "Resize it, or press i to ignore, q to quit.";
	const char *l3a = "Resize it, or press", *l3b = "i to ignore, q to quit.";
	int y = LINES / 2 - 1;
	tui_put(y, HP_MAX(0, (COLS - tui_width(l1)) / 2), COLS, tui_attr(t, C_BAD), l1);
	tui_put(y + 1, HP_MAX(0, (COLS - tui_width(l2)) / 2), COLS, 0, l2);
	if (tui_width(l3) <= COLS) {
		tui_put(y + 2, (COLS - tui_width(l3)) / 2, COLS, 0, l3);
	} else {
		tui_put(y + 2, HP_MAX(0, (COLS - tui_width(l3a)) / 2), COLS, 0, l3a);
		tui_put(y + 3, HP_MAX(0, (COLS - tui_width(l3b)) / 2), COLS, 0, l3b);
		y++;
	}
	/* what q said over unsaved edits, wrapped to the screen */
	if (t->quit_armed && *t->msg)
		tui_put_wrapped(y + 4, 1, COLS - 2, 3, tui_attr(t, C_BAD), t->msg);
}

static int too_small(const struct tui *t)
{
	return !t->ignore_small && (COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS);
}

static void draw(struct tui *t)
{
	curs_set(0);
	if (too_small(t)) {
		draw_too_small(t);
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}
	erase();
	t->mouse_list = NULL;
	draw_header(t);
	draw_tabs(t);
	int y0 = 2, h = tui_view_rows();
	if (t->help) {
		draw_help(t);
	} else {
		cur_view(t)->draw(t, y0, h);
		if (t->picker)
			tui_picker_draw(t);
	}
	draw_footer(t);
	wnoutrefresh(stdscr);
	doupdate();
}

/* ---- actions */

static int save_to(struct tui *t, const char *path)
{
	struct hp_err err = { 0 };
	if (workspace_save(&t->ws, path, &err) < 0) {
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	if (path != t->path)
		hp_strlcpy(t->path, path, sizeof t->path);
	t->dirty = 0;
	tui_message(t, 0, "saved %s", path);
	return 0;
}

static void open_from(struct tui *t, const char *path)
{
	struct hp_err err = { 0 };
	struct workspace *w = xmalloc(sizeof *w);
	if (workspace_load(w, path, t->cat, &err) < 0) {
		tui_message(t, 1, "%s", err.msg);
	} else {
		t->ws = *w;
		hp_strlcpy(t->path, path, sizeof t->path);
		tui_edited(t);   /* prices the pools too */
		t->dirty = 0;
		t->lpools.sel = t->lplans.sel = 0;
		tui_message(t, 0, "opened %s", path);
	}
	free(w);
}

static int export_id(const struct tui *t)
{
	const struct tui_view_ops *v = cur_view(t);
	return v->plan ? v->plan(t) : t->detail_id;
}

/* e or L with no plan to write: the Edit plan view's plan has none while
 * the estimator refuses it (the view shows why); elsewhere none is
 * planned yet. */
static void no_plan_message(struct tui *t, const char *verb)
{
	if (export_id(t) == TUI_ID_EDITED)
		tui_message(t, 1, "the edited plan has no estimate (the view says why): nothing to %s",
			    verb);
	else
		tui_message(t, 1, "no plan to %s yet", verb);
}

/* The plan L writes in *id, or -1 with the reason in why: L writes the plan on
 * the screen. Serve shows serving plans, whose engine commands `e`
 * exports; Compare shows two, and writes one only when A and B are the
 * same plan. Elsewhere it is the plan `e` exports (named in the message,
 * since from Prices that is the Detail view's, not on the screen). */
static int launch_id(const struct tui *t, int *id, char *why, size_t n)
{
	if (t->view == TV_SERVE) {
		/* Both messages fit the footer at 80 columns (74 and 67
		 * cells): what to press is their end, which a cut lost. */
		snprintf(why, n, "L writes training plans; e exports these serving plans with their commands");
		return -1;
	}
	if (t->view == TV_COMPARE && t->cmp[0] != t->cmp[1]) {
		snprintf(why, n, "Compare holds A and B: press L on the one wanted in Plans or Detail");
		return -1;
	}
	*id = t->view == TV_COMPARE ? t->cmp[0] : export_id(t);
	return 0;
}

static void launch_to(struct tui *t, const char *path)
{
	struct hp_err err = { 0 };
	char msg[sizeof t->msg], lab[160], why[sizeof t->msg];
	int warn = 0, id;
	if (launch_id(t, &id, why, sizeof why) < 0) {
		tui_message(t, 1, "%s", why);
		return;
	}
	tui_plan_label(t, id, lab, sizeof lab);
	if (tui_export_launch(t, id, path, msg, sizeof msg, &warn, &err) < 0)
		tui_message(t, 1, "%s (%s)", err.msg, lab);
	else
		tui_message(t, warn, "%s: %s", msg, lab);
}

/* The / text typed so far, cut to the search's bytes on a character (a
 * split one would match nothing and show as \xE6), and the search. */
/* The "no match" message of the search as it was goes with it: after Esc
 * or more typing (a backspace, a text that matches again) it spoke of a
 * text no longer searched for, under a list showing every row. */
static void search_msg_clear(struct tui *t)
{
	char was[sizeof t->msg];
	snprintf(was, sizeof was, "no match for '%s'", t->search);
	if (!strcmp(t->msg, was))
		*t->msg = 0;
}

static void search_set(struct tui *t, const char *s)
{
	search_msg_clear(t);
	snprintf(t->search, sizeof t->search, "%.*s", UTF8_CUT(s, sizeof t->search - 1));
	tui_search(t, 0);
}

static int prompt_key(struct tui *t, int ch)
{
	int r = lineedit_key(&t->edit, ch);
	if (t->prompt == P_CONFIRM_DEL || t->prompt == P_CONFIRM_OPEN) {
		r = ch == 'y' || ch == 'Y' ? 1 : -1;
	}
	if (r == 0) {
		if (t->prompt == P_SEARCH)
			search_set(t, t->edit.buf);
		return R_DRAW;
	}
	enum prompt_kind k = t->prompt;
	t->prompt = P_NONE;
	if (r < 0) {
		if (k == P_SEARCH) {
			search_msg_clear(t);
			*t->search = 0;
		}
		return R_DRAW;
	}
	const char *s = t->edit.buf;
	/* A file name from the prompt (typed, pasted or prefilled from a
	 * path) must be printable: a newline or escape in a name breaks
	 * every listing and script that later shows it. */
	if ((k == P_SAVE || k == P_OPEN || k == P_EXPORT || k == P_LAUNCH) &&
	    !esc_is_printable(s, sizeof t->edit.buf - 1)) {
		char shown[128];
		tui_message(t, 1, "file name has control characters: %s",
			    esc_term_buf(shown, sizeof shown, s));
		return R_DRAW;
	}
	switch (k) {
	case P_SAVE:
		if (*s)
			save_to(t, s);
		break;
	case P_OPEN:
		/* Another workspace replaces this one: unsaved edits are
		 * asked about first, as q asks before quitting. */
		if (*s && t->dirty && !t->bench) {
			char q[200];
			hp_strlcpy(t->open_path, s, sizeof t->open_path);
			snprintf(q, sizeof q, "Unsaved changes will be lost; open %.*s? (y/n)",
				 UTF8_CUT(t->open_path, 80));
			tui_start_prompt(t, P_CONFIRM_OPEN, q, "");
		} else if (*s)
			open_from(t, s);
		break;
	case P_CONFIRM_OPEN:
		open_from(t, t->open_path);
		break;
	case P_EXPORT:
		if (*s) {
			struct hp_err err = { 0 };
			char lab[160];
			/* which plan: from Compare or Prices it is the Detail
			 * view's, which the screen does not show */
			tui_plan_label(t, export_id(t), lab, sizeof lab);
			if (tui_export(t, export_id(t), s, &err) < 0)
				tui_message(t, 1, "%s", err.msg);
			else
				tui_message(t, 0, "exported %s: %s", s, lab);
		}
		break;
	case P_LAUNCH:
		if (*s)
			launch_to(t, s);
		break;
	case P_SEARCH:
		search_set(t, s);
		break;
	case P_FIELD:
		tui_field_commit(t, s);
		break;
	case P_CONFIRM_DEL:
		view_cluster_key(t, ACT_DELETE, 'y');
		break;
	case P_SERVE_FIELD:
		tui_serve_field_commit(t, s);
		break;
	default:
		break;
	}
	return R_DRAW;
}

static void set_view(struct tui *t, int v)
{
	t->view = v;
	t->help = 0;
}

static int global_action(struct tui *t, int action)
{
	switch (action) {
	case ACT_QUIT:
		if (t->dirty && !t->quit_armed && !t->bench) {
			t->quit_armed = 1;
			tui_message(t, 1, "unsaved changes: w saves, q again quits");
			return R_DRAW;
		}
		return R_QUIT;
	case ACT_HELP:
		t->help = !t->help;
		t->help_top = 0;
		return R_DRAW;
	case ACT_VIEW1: case ACT_VIEW2: case ACT_VIEW3: case ACT_VIEW4: case ACT_VIEW5: case ACT_VIEW6:
	case ACT_VIEW7:
		set_view(t, action - ACT_VIEW1);
		return R_DRAW;
	case ACT_CANCEL: {
		double f, e;
		if (t->pl && planner_busy(t->pl, &f, &e)) {
			planner_cancel(t->pl);
			tui_message(t, 0, "cancelling the plan");
		} else {
			struct fetch_status st;
			fetch_status(t->fetch, &st);
			if (st.state == FETCH_RUNNING) {
				fetch_cancel(t->fetch);
				tui_message(t, 0, "cancelling the price download");
			}
		}
		t->help = 0;
		return R_DRAW;
	}
	case ACT_SAVE:
		tui_start_prompt(t, P_SAVE, "Save workspace to:",
				 *t->path ? t->path : "hetplan-workspace.json");
		return R_DRAW;
	case ACT_OPEN:
		tui_start_prompt(t, P_OPEN, "Open workspace:", *t->path ? t->path : "");
		return R_DRAW;
	case ACT_EXPORT:
		if (!tui_plan_get(t, export_id(t))) {
			no_plan_message(t, "export");
			return R_DRAW;
		}
		tui_start_prompt(t, P_EXPORT, "Export plan to (.md .json .html .csv):", "hetplan-plan.md");
		return R_DRAW;
	case ACT_LAUNCH: {
		char why[sizeof t->msg];
		int id;
		if (launch_id(t, &id, why, sizeof why) < 0) {
			tui_message(t, 1, "%s", why);
			return R_DRAW;
		}
		if (!tui_plan_get(t, id)) {
			no_plan_message(t, "launch");
			return R_DRAW;
		}
		tui_start_prompt(t, P_LAUNCH, "Launch config to (.sh .toml .json, else Megatron):",
				 "hetplan-launch.txt");
		return R_DRAW;
	}
	case ACT_REPLAN:
		t->gen++;
		planner_submit(t->pl, &t->ws, t->gen);
		tui_serve_submit(t);
		return R_DRAW;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		return R_DRAW;
	}
	return R_NONE;
}

static int view_action(struct tui *t, int action, int ch)
{
	if (action == ACT_PLANEDIT) {   /* E: the plan the view would export */
		tui_planedit_open(t, export_id(t));
		return R_DRAW;
	}
	return cur_view(t)->key(t, action, ch);
}

static int mouse_key(struct tui *t)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return R_NONE;
	if (ev.y == 1 && (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED))) {
		for (int v = 0; v < TV_TABS; v++)
			if (ev.x >= tab_x[v] && ev.x < tab_x[v + 1] - 1) {
				set_view(t, v);
				return R_DRAW;
			}
		return R_NONE;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED)
		return view_action(t, ACT_DOWN, 0) | R_DRAW;
#endif
	if (ev.bstate & BUTTON4_PRESSED)
		return view_action(t, ACT_UP, 0) | R_DRAW;
	struct tui_list *l = t->mouse_list;
	if (l && ev.y >= t->mouse_y0 && ev.y < t->mouse_y0 + t->mouse_rows &&
	    (ev.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON1_PRESSED))) {
		l->sel = l->top + ev.y - t->mouse_y0;
		/* Let the view clamp the selection. */
		view_action(t, ACT_NONE, 0);
		if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
			view_action(t, ACT_ENTER, '\n');
		return R_DRAW;
	}
	return R_NONE;
}

static int handle_key(struct tui *t, int ch)
{
	if (ch == KEY_RESIZE)
		return R_DRAW;
	/* The too-small screen's keys are the two it names, before an open
	 * prompt's (typing into a prompt nobody sees read "q to quit" as a
	 * letter of a file name); its q asks over unsaved edits as q does
	 * elsewhere. */
	if (too_small(t)) {
		if (ch != 'q')
			t->quit_armed = 0;
		if (ch == 'i') {
			t->ignore_small = 1;
			*t->msg = 0;
		} else if (ch == 'q') {
			if (!t->dirty || t->quit_armed || t->bench)
				return R_QUIT;
			t->quit_armed = 1;
			tui_message(t, 1, "unsaved changes: q again quits; i, then w, saves");
		}
		return R_DRAW;
	}
	if (t->prompt)
		return prompt_key(t, ch);
	*t->msg = 0;
	*t->note = 0;
	if (ch != 'q' && ch != KEY_F(10))
		t->quit_armed = 0;
	if (t->picker)
		return tui_picker_key(t, ch);
	if (ch == KEY_MOUSE)
		return mouse_key(t);
	if (t->help) {
		/* The view keys the help lists move it too: a page, the
		 * start, the end (draw_help clamps a page past the last row). */
		if (ch == 'j' || ch == KEY_DOWN || ch == 14)
			t->help_top++;
		else if ((ch == 'k' || ch == KEY_UP || ch == 16) && t->help_top > 0)
			t->help_top--;
		else if (ch == KEY_NPAGE || ch == 6 || ch == ' ')
			t->help_top += help_height();
		else if (ch == KEY_PPAGE || ch == 2)
			t->help_top = HP_MAX(0, t->help_top - help_height());
		else if (ch == 'g' || ch == KEY_HOME)
			t->help_top = 0;
		else if (ch == 'G' || ch == KEY_END)
			t->help_top = HP_MAX(0, help_rows(t, 0, 0) - help_height());
		else if (ch == 'q' || ch == 27 || ch == '?' || ch == KEY_F(1))
			t->help = 0;
		else {
			const struct tui_key *g = key_find(TV_GLOBAL, ch);
			if (g && g->action >= ACT_VIEW1 && g->action <= ACT_VIEW7)
				return global_action(t, g->action);
		}
		return R_DRAW;
	}
	const struct tui_key *k = key_find(t->view, ch);
	if (k) {
		int r = view_action(t, k->action, ch);
		if (r != R_PASS)
			return r;
	}
	k = key_find(TV_GLOBAL, ch);
	return k ? global_action(t, k->action) : R_NONE;
}

/* ---- setup and the loop */

static void tui_setup(struct tui *t, const struct catalog *cat)
{
	memset(t, 0, sizeof *t);
	t->cat = cat;
	t->view = TV_PLANS;
	t->wake[0] = t->wake[1] = -1;
	t->cmp[0] = 0;
	t->cmp[1] = 1;
}

static void tui_teardown(struct tui *t)
{
	planner_free(t->pl);
	fetch_free(t->fetch);
	tui_serve_done(t);
	tui_planedit_done(t);
	tui_result_free(t->cur);
	free(t->order);
	tui_prices_done(t);
	free(t->pick_idx);
	for (int i = 0; i < 2; i++)
		if (t->wake[i] >= 0)
			close(t->wake[i]);
}

/* Start both workers with the terminal signals blocked, so SIGINT and
 * SIGWINCH are always taken by the main thread. */
static int start_workers(struct tui *t)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	t->pl = planner_new(t->wake[1], t->cat);
	t->fetch = fetch_new(t->wake[1], t->cat, &t->pcfg);
	int serve_rc = tui_serve_start(t, t->wake[1]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return t->pl && t->fetch && serve_rc == 0 ? 0 : -1;
}

static void loop(struct tui *t)
{
	int need_draw = 1;
	for (;;) {
		if (need_draw) {
			draw(t);
			need_draw = 0;
		}
		double f, e;
		struct fetch_status st;
		fetch_status(t->fetch, &st);
		int busy = planner_busy(t->pl, &f, &e) || st.state == FETCH_RUNNING ||
			   tui_serve_busy(t);
		struct pollfd fds[2] = { { 0, POLLIN, 0 }, { t->wake[0], POLLIN, 0 } };
		int n = poll(fds, 2, busy ? 100 : -1);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (fds[1].revents & POLLIN)) {
			char buf[64];
			while (read(t->wake[0], buf, sizeof buf) > 0)
				;
			take_result(t);
			tui_serve_poll(t);
			if (tui_prices_poll(t)) {
				/* New prices: reprice the pools and plan again; the
				 * workspace itself did not change. */
				tui_prices_apply(t);
				t->gen++;
				planner_submit(t->pl, &t->ws, t->gen);
				tui_serve_submit(t);
			}
			need_draw = 1;
		}
		if (busy)
			need_draw = 1;
		int ch, quit = 0;
		while ((ch = getch()) != ERR) {
			int r = handle_key(t, ch);
			if (r & R_QUIT) {
				quit = 1;
				break;
			}
			need_draw = 1;
		}
		if (quit)
			break;
		if (n < 0)
			need_draw = 1;   /* a signal: most likely SIGWINCH */
	}
}

/* Every key binding, one per line: VIEW<TAB>KEYS<TAB>DESCRIPTION (the man
 * page's KEYS section is checked against this). */
void tui_list_keys(void)
{
	for (int v = 0; v <= TV_COUNT; v++) {
		int n, view = v == TV_COUNT ? TV_GLOBAL : v;
		const struct tui_key *k = tui_keys(view, &n);
		for (int i = 0; i < n; i++)
			printf("%s\t%s\t%s\n", view == TV_GLOBAL ? "any" : views[v].name, k[i].keys,
			       k[i].desc);
	}
}

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above tui_help. */
const char tui_usage[] =
	"hetplan [tui] [WORKSPACE.json] [-w WORKSPACE.json] [--no-color] [--ascii]\n"
	"               [--no-mouse] [--skypilot-url URL]\n";

static const char tui_help[] =
	"\n"
	"  -w, --workspace FILE  open a saved workspace (default: the built-in one)\n"
	"      --no-color        monochrome (also when NO_COLOR is set and not empty)\n"
	"      --ascii           ASCII bars and lines (also in a non-UTF-8 locale)\n"
	"      --no-mouse        leave the mouse to the terminal\n"
	"      --skypilot-url URL  where 'r' in the Prices view finds SkyPilot catalogs\n"
	"                        (URL/CLOUD/vms.csv; also HETPLAN_SKYPILOT_URL)\n";

static const struct option opts[] = {
	{ "workspace", required_argument, 0, 'w' },
	{ "no-color", no_argument, 0, 'C' },
	{ "no-colour", no_argument, 0, 'C' },
	{ "ascii", no_argument, 0, 'A' },
	{ "no-mouse", no_argument, 0, 'M' },
	{ "skypilot-url", required_argument, 0, 'U' },
	{ "bench", no_argument, 0, 'B' },
	{ "list-keys", no_argument, 0, 'K' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

const struct option *tui_options(void)
{
	return opts;
}

/* What the command line asks for. */
struct tui_args {
	int color, ascii, mouse;
	const char *ws_path, *url;
};

/* Parse argv into a. Returns -1 to go on, else the exit status (--help,
 * --list-keys, --bench, a usage error). */
static int tui_parse_args(int argc, char **argv, const struct catalog *cat, struct tui_args *a)
{
	const char *nc = getenv("NO_COLOR");
	int o;
	a->color = !(nc && *nc);
	a->ascii = 0;
	a->mouse = 1;
	a->ws_path = a->url = NULL;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":w:h", opts, NULL)) != -1) {
		switch (o) {
		case 'w': a->ws_path = optarg; break;
		case 'C': a->color = 0; break;
		case 'A': a->ascii = 1; break;
		case 'M': a->mouse = 0; break;
		case 'U': a->url = optarg; break;
		case 'B': return tui_bench(cat);
		case 'K': tui_list_keys(); return 0;
		case 'h': cli_usage(stdout, tui_usage, tui_help); return 0;
		case ':':
			fprintf(stderr, "hetplan: %s: missing value\n", cli_shown(argv[optind - 1]));
			return HP_EXIT_USAGE;
		default:
			fprintf(stderr, "hetplan: unknown option '%s' (try --help)\n",
				cli_shown(argv[optind - 1]));
			return HP_EXIT_USAGE;
		}
	}
	if (optind < argc && !a->ws_path)
		a->ws_path = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "hetplan: unexpected argument '%s'\n", cli_shown(argv[optind]));
		return HP_EXIT_USAGE;
	}
	return -1;
}

/* The wake pipe (both ends non-blocking) and the worker threads. Returns
 * 0, or -1 with a message on stderr. */
static int tui_start(struct tui *t)
{
	if (pipe(t->wake) < 0) {
		fprintf(stderr, "hetplan: pipe: %s\n", strerror(errno));
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		int fl = fcntl(t->wake[i], F_GETFL);
		fcntl(t->wake[i], F_SETFL, fl | O_NONBLOCK);
	}
	tui_serve_init(t);
	if (start_workers(t) < 0) {
		fprintf(stderr, "hetplan: cannot start the worker threads\n");
		return -1;
	}
	return 0;
}

/* curses on the terminal, the signal handlers that restore it, colours and
 * the mouse. Returns 0, or -1 with a message on stderr. */
static int term_start(struct tui *t, int color, int mouse)
{
	set_escdelay(25);
	have_tio = tcgetattr(STDIN_FILENO, &saved_tio) == 0;
	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr, "hetplan: cannot open the terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	tui_active = 1;
	hp_set_fatal_hook(tui_restore);
	signal(SIGINT, on_fatal);
	signal(SIGTERM, on_fatal);
	signal(SIGHUP, on_fatal);
	signal(SIGSEGV, on_fatal);
	signal(SIGBUS, on_fatal);
	signal(SIGFPE, on_fatal);
	signal(SIGABRT, on_fatal);
	stderr_park();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	t->color = color && has_colors();
	tui_theme_init(t);
	if (mouse) {
		t->mouse = 1;
		mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
			  , NULL);
		mouseinterval(200);
	}
	reset_prepare(t->mouse);
	return 0;
}

int tui_main(int argc, char **argv, const struct catalog *cat)
{
	struct tui_args a;
	int rc = tui_parse_args(argc, argv, cat, &a);
	if (rc >= 0)
		return rc;
	struct tui *t = xmalloc(sizeof *t);
	tui_setup(t, cat);
	struct hp_err err = { 0 };
	rc = a.ws_path ? workspace_load(&t->ws, a.ws_path, cat, &err)
		       : workspace_default(&t->ws, cat, &err);
	if (rc < 0) {
		free(t);
		return cli_fail(&err, HP_EXIT_INPUT);
	}
	if (a.ws_path)
		hp_strlcpy(t->path, a.ws_path, sizeof t->path);
	tui_prices_init(t);
	if (a.url)
		hp_strlcpy(t->pcfg.skypilot_url, a.url, sizeof t->pcfg.skypilot_url);
	if (!isatty(0) || !isatty(1)) {
		fprintf(stderr, "hetplan: the TUI needs a terminal; for batch use see 'hetplan --help'\n");
		tui_teardown(t);
		free(t);
		return HP_EXIT_USAGE;
	}
	setlocale(LC_ALL, "");
	t->utf8 = !a.ascii && !strcmp(nl_langinfo(CODESET), "UTF-8");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = tui_start(t);
	if (rc == 0) {
		/* Plan before curses starts so the first frame usually has plans. */
		planner_submit(t->pl, &t->ws, t->gen);
		tui_serve_submit(t);
		rc = term_start(t, a.color, a.mouse);
	}
	if (rc < 0) {
		tui_teardown(t);
		free(t);
		curl_global_cleanup();
		return HP_EXIT_FAIL;
	}
	/* Give the first plan a moment so the first frame is complete. */
	for (int i = 0; i < 50; i++) {
		double f, e;
		if (!planner_busy(t->pl, &f, &e))
			break;
		usleep(10000);
	}
	take_result(t);
	tui_serve_poll(t);
	loop(t);
	tui_restore();
	stderr_replay();
	tui_teardown(t);
	free(t);
	curl_global_cleanup();
	return 0;
}

/* ---- bench: frames rendered to a terminal on /dev/null */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void bench_switch(struct tui *t, int rows, int cols)
{
	enum { N = 240 };
	static double ms[N];
	resizeterm(rows, cols);
	for (int i = 0; i < N; i++) {
		int v = i % TV_TABS;
		double t0 = hp_now();
		handle_key(t, '1' + v);
		draw(t);
		ms[i] = (hp_now() - t0) * 1e3;
	}
	qsort(ms, N, sizeof ms[0], cmp_double);
	printf("tui view switch %3dx%-3d keypress to redraw: median %6.2f ms  p95 %6.2f ms"
	       "  target median < 16 ms\n", cols, rows, ms[N / 2], ms[N * 95 / 100]);
}

/* The Edit plan view on plan #1, its fourth key (precision) selected:
 * l steps to the next dtype and r puts the planner's plan back, in turn;
 * each runs the estimator again, then the frame is drawn. */
static void bench_planedit(struct tui *t)
{
	enum { N = 120 };
	static double ms[N];
	resizeterm(24, 80);
	tui_planedit_open(t, 0);
	if (t->view != TV_PLANEDIT) {
		printf("tui edit plan: no plan to edit\n");
		return;
	}
	for (int i = 0; i < 3; i++)
		handle_key(t, 'j');
	for (int i = 0; i < N; i++) {
		double t0 = hp_now();
		handle_key(t, i % 2 ? 'r' : 'l');
		draw(t);
		ms[i] = (hp_now() - t0) * 1e3;
	}
	qsort(ms, N, sizeof ms[0], cmp_double);
	printf("tui edit plan  80x24  keypress, re-estimate, redraw: median %6.2f ms  p95 %6.2f ms"
	       "  target median < 16 ms\n", ms[N / 2], ms[N * 95 / 100]);
}

int tui_bench(const struct catalog *cat)
{
	struct tui *t = xmalloc(sizeof *t);
	tui_setup(t, cat);
	t->bench = 1;
	struct hp_err err = { 0 };
	if (workspace_default(&t->ws, cat, &err) < 0) {
		free(t);
		return cli_fail(&err, HP_EXIT_FAIL);
	}
	tui_prices_init(t);
	tui_serve_init(t);
	tui_serve_submit(t);   /* no worker here: plans on this thread */
	/* Re-plan: the same job the worker runs after an edit. */
	enum { R = 7 };
	double sec[R];
	for (int i = 0; i < R; i++) {
		struct tui_result *r = xcalloc(1, sizeof *r);
		tui_plan_sync(&t->ws, r);
		sec[i] = r->seconds * 1e3;
		if (i == R - 1)
			t->cur = r;
		else
			tui_result_free(r);
	}
	qsort(sec, R, sizeof sec[0], cmp_double);
	printf("tui re-plan, default workspace (%d plans):   median %6.1f ms  worst %6.1f ms"
	       "  target < 150 ms\n", t->cur->res.n_plans, sec[R / 2], sec[R - 1]);
	tui_plans_sort(t);
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	SCREEN *scr = out && in ? newterm("xterm-256color", out, in) : NULL;
	if (!scr) {
		printf("tui view switch: no terminal description for xterm-256color\n");
	} else {
		t->utf8 = 1;
		t->color = has_colors();
		tui_theme_init(t);
		bench_switch(t, 24, 80);
		bench_switch(t, 60, 200);
		bench_planedit(t);
		endwin();
		delscreen(scr);
	}
	if (out)
		fclose(out);
	if (in)
		fclose(in);
	tui_teardown(t);
	free(t);
	return 0;
}
