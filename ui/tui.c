/* tui.c — the ncurses front end (first cut: a status screen; the full
 * what-if views arrive with the TUI work). Restores the terminal on q,
 * Ctrl-C and crash signals. */
#include "cli.h"

#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t tui_active;

static void tui_restore(void)
{
	if (tui_active) {
		tui_active = 0;
		endwin();
	}
}

static void on_fatal(int sig)
{
	tui_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

int tui_main(int argc, char **argv, const struct catalog *cat)
{
	const char *nc = getenv("NO_COLOR");
	int color = !(nc && *nc);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-color"))
			color = 0;
		else if (!strcmp(argv[i], "--ascii") || !strcmp(argv[i], "--no-mouse"))
			;
		else {
			fprintf(stderr, "hetplan: unknown option '%s' (try --help)\n", argv[i]);
			return HP_EXIT_USAGE;
		}
	}
	setlocale(LC_ALL, "");
	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr, "hetplan: cannot open the terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "");
		return HP_EXIT_FAIL;
	}
	tui_active = 1;
	hp_set_fatal_hook(tui_restore);
	signal(SIGINT, on_fatal);
	signal(SIGTERM, on_fatal);
	signal(SIGSEGV, on_fatal);
	signal(SIGABRT, on_fatal);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (color && has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);
	}
	for (;;) {
		erase();
		attron(color ? COLOR_PAIR(1) : A_REVERSE);
		mvhline(0, 0, ' ', COLS);
		mvprintw(0, 1, "hetplan %s", HETPLAN_VERSION);
		attroff(color ? COLOR_PAIR(1) : A_REVERSE);
		mvprintw(2, 2, "%d GPU types and %d model presets loaded.", cat->n_gpus,
			 cat->n_models);
		mvprintw(3, 2, "Batch mode works today: hetplan estimate --help");
		mvprintw(LINES - 1, 1, "q quit");
		refresh();
		int ch = getch();
		if (ch == 'q' || ch == 'Q')
			break;
	}
	tui_restore();
	return 0;
}
