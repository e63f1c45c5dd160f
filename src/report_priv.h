/* report_priv.h — what report.c shares with report_html.c; not part of the
 * engine's interface (use report.h). */
#ifndef HP_REPORT_PRIV_H
#define HP_REPORT_PRIV_H

#include "report.h"
#include "sbuf.h"

/* A part of the step-time breakdown or of a stage's memory: its JSON key,
 * its label in reports, its chart colour, and where it sits in the struct. */
struct report_part {
	const char *key, *label, *color;
	size_t off;
};
const struct report_part *report_time_parts(int *n);    /* struct perf_breakdown */
const struct report_part *report_mem_parts(int *n);     /* struct perf_stage */
double report_part_value(const struct report_part *p, const void *obj);

/* Colour of pool i in layout diagrams and legends. */
const char *report_pool_color(int i);

/* The facts every format's summary states, worked out once. */
struct report_summary {
	const struct search_plan *chosen;   /* NULL when nothing fits */
	const struct search_plan *single;   /* best plan on one pool, NULL if none */
	int single_pool;
	double tokens;                      /* tokens to train */
	int all_priced;                     /* every pool has a price */
};
void report_summarize(const struct report_input *in, struct report_summary *s);

/* "h100: TP8 PP2 DP4" — the planner's label, or one built from the plan. */
void report_plan_label(const struct search_plan *sp, const struct cluster *c,
		       char *buf, size_t n);
/* TP/PP/DP of a plan whose replica groups share one layout; 0 when mixed. */
int report_plan_uniform(const struct plan *p, int *tp, int *pp);

/* "$12.3M", "$45.6k", "$812.40"; "unknown" for v <= 0. */
char *report_fmt_usd(char *buf, size_t n, double v);
/* "2026-11-30 14:05 UTC" */
char *report_fmt_time(char *buf, size_t n, time_t t);
/* The nodes of every stage of p (group-major, stage order): the
 * dispatcher's placement, or an in-order one when it fails (report.c).
 * Free with dispatch_free(). */
struct dispatch;
void report_place(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		  struct dispatch *d);

/* A pool's price source split into where it came from and when ("not
 * recorded" when the source carries no date). */
void report_price_parts(const struct pool *p, char *src, size_t ns, char *date, size_t nd);

/* One sentence on how the pools are connected. */
void report_fabric_text(const struct cluster *c, char *buf, size_t n);

/* The assumptions and limits the reports list, one sentence each. */
const char *const *report_assumptions(int *n);

int report_render_html(const struct report_input *in, const struct report_summary *s,
		       struct sbuf *b);

#endif
