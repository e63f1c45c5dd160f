/* advice.h — what would make a plan fit when the planner found none
 * (ui/advice.c), one text for every view: `hetplan plan` (its table's
 * stderr, its JSON's "advice", its Markdown/HTML/CSV report), `hetplan
 * report` and the TUI's Plans view.
 *
 * Built from what the search already knows: the capacity answer
 * (search_capacity_answer: the fewest nodes to add, per pool), the
 * smallest memory miss (res->mem_miss: its fullest stage's live bytes),
 * the restrictions the user fixed, and one estimate of that miss with the
 * optimizer state offloaded (the planner does not search offload). */
#ifndef HP_ADVICE_H
#define HP_ADVICE_H

#include "catalog.h"
#include "report.h"
#include "search.h"

#define ADVICE_LINES 4
#define ADVICE_LINE_MAX 400

struct nofit_advice {
	int n;
	char line[ADVICE_LINES][ADVICE_LINE_MAX];
};

/* The advice for res (a search that returned no plan) on c, m, o, into a
 * (a->n 0 when there is none: a plan was found, or the miss was not for
 * memory or the deadline). capacity is search_capacity_answer's text, or
 * NULL/"" when it was not asked or found nothing. cat names the GPUs with
 * memory enough (NULL: the size alone). Lines are sentences without a
 * final newline; the first says what to add. Cannot fail. */
void nofit_advice(const struct cluster *c, const struct model_spec *m,
		  const struct search_opts *o, const struct search_result *res,
		  const struct catalog *cat, const char *capacity, struct nofit_advice *a);

/* The whole answer for a search that returned no plan (not one that was
 * cancelled): the capacity answer when the miss was for memory or the
 * deadline (search_capacity_answer on o with tokens, the tokens to train;
 * add_nodes per pool and its text, n bytes), then nofit_advice into a.
 * Returns how many pools have a capacity answer. Slow: it plans again,
 * seconds on a large cluster; the TUI calls it on its worker thread. */
int nofit_advice_run(const struct cluster *c, const struct model_spec *m,
		     const struct search_opts *o, const struct search_result *res,
		     const struct catalog *cat, double tokens, int *add_nodes, char *text,
		     size_t n, struct nofit_advice *a);

/* A report part (report.h's report_extra) that writes a's lines: a
 * Markdown section "What would make a plan fit", its HTML, a JSON array
 * under "advice" and CSV rows "advice,LINE". next is another part to
 * write after it (the workspace's serving plans) or NULL; with one, the
 * JSON holds next's object only (a report has one extra key). x must
 * outlive the report; returns &x->extra, or next when a has no lines. */
struct advice_extra {
	struct report_extra extra;
	const struct nofit_advice *a;
	const struct report_extra *next;
};
const struct report_extra *nofit_advice_extra(struct advice_extra *x, const struct nofit_advice *a,
					      const struct report_extra *next);

#endif
