/* tui.h — the interactive front end's public face: its views and key tables.
 *
 * Every key the TUI answers is a row in one static table per view (plus one
 * global table). The dispatcher, the footer hints, the help overlay and the
 * man page's KEYS section all come from these rows, so they cannot drift:
 * a key that is not in a table does nothing.
 *
 * tui_main() runs the program; tui_bench() renders to a
 * terminal on /dev/null and prints the timings `make bench` reports. */
#ifndef HP_TUI_H
#define HP_TUI_H

#include "catalog.h"

enum tui_view {
	TV_CLUSTER, TV_MODEL, TV_PLANS, TV_DETAIL, TV_PRICES, TV_COMPARE, TV_SERVE,
	TV_PLANEDIT,          /* Edit plan: no tab; E in the Plans or Detail view */
	TV_EDITDETAIL,        /* the edited plan's Detail: no tab; d in Edit plan */
	TV_COUNT,
	TV_TABS = TV_PLANEDIT, /* the views before it have a tab and a number key */
	TV_GLOBAL = -1,       /* tui_keys(TV_GLOBAL, ...): keys every view answers */
};

/* What a key does; the view's handler switches on it. */
enum tui_action {
	ACT_NONE,
	/* global */
	ACT_QUIT, ACT_HELP, ACT_VIEW1, ACT_VIEW2, ACT_VIEW3, ACT_VIEW4, ACT_VIEW5, ACT_VIEW6,
	ACT_VIEW7,
	ACT_NEXT_VIEW, ACT_PREV_VIEW, ACT_CANCEL, ACT_SAVE, ACT_OPEN, ACT_EXPORT, ACT_LAUNCH,
	ACT_REDRAW, ACT_REPLAN,
	/* lists */
	ACT_UP, ACT_DOWN, ACT_PGUP, ACT_PGDN, ACT_TOP, ACT_BOTTOM, ACT_ENTER, ACT_BACK, ACT_PANE,
	ACT_SEARCH, ACT_SEARCH_NEXT, ACT_SEARCH_PREV, ACT_SORT, ACT_SORT_REV,
	/* cluster */
	ACT_ADD, ACT_DUP, ACT_DELETE, ACT_MORE, ACT_LESS, ACT_FABRIC,
	/* model */
	ACT_PRESET, ACT_LEFT, ACT_RIGHT, ACT_CLAMP,
	/* plans, detail, compare */
	ACT_MARK_A, ACT_MARK_B, ACT_COMPARE, ACT_SWAP, ACT_PLANEDIT,
	/* plan editor */
	ACT_RESET, ACT_DETAIL,
	/* prices */
	ACT_REFRESH,
};

#define TUI_KEY_CODES 5

struct tui_key {
	int codes[TUI_KEY_CODES];   /* curses key codes; 0 ends a shorter list */
	const char *keys;           /* as shown: "j Down" */
	const char *name;           /* footer word: "down" */
	const char *desc;           /* help and man page sentence */
	enum tui_action action;
	int hint;                   /* shown in the footer */
};

/* The key table of view v (TV_GLOBAL for the keys every view answers);
 * *n receives its length. Static storage; never NULL. */
const struct tui_key *tui_keys(int v, int *n);

/* `hetplan --list-keys` and `hetplan tui --list-keys`: one
 * "VIEW<TAB>KEYS<TAB>DESCRIPTION" line per binding, the views in tab
 * order, then the keys every view answers as view "any". */
void tui_list_keys(void);

/* Render every view and re-plan the default workspace on a terminal opened
 * on /dev/null; print the timings to stdout. Returns an exit status. */
int tui_bench(const struct catalog *cat);

/* The interface's getopt table (`hetplan --list-options` prints it). */
struct option;
const struct option *tui_options(void);
/* Its synopsis, without "usage: " (the command table's usage). */
extern const char tui_usage[];

/* The interactive planner: `hetplan [tui] [WORKSPACE.json] [options]`.
 * Returns the process exit status. */
int tui_main(int argc, char **argv, const struct catalog *cat);

#endif
