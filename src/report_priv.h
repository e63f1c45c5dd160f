/* report_priv.h — what the report formats share (report_common.c,
 * report_tables.c), used by report.c (Markdown, JSON, CSV) and
 * report_html.c; not part of the engine's interface (use report.h). */
#ifndef HP_REPORT_PRIV_H
#define HP_REPORT_PRIV_H

#include "plan_label.h"
#include "report.h"
#include "sbuf.h"
#include "table.h"

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
/* 1 when the best single-pool plan is the chosen plan itself (same
 * pools, same estimate): comparing them says nothing. */
int report_single_is_chosen(const struct report_summary *s);
/* "fits, fullest stage 74.4 GiB of 79.6 GiB (93%), 5.3 GiB free": the
 * words of `hetplan plan`'s detail and the TUI's Detail view; raw text. */
char *report_memory_text(const struct search_plan *sp, char *buf, size_t n);
/* "megatron-core, deepspeed" (runs_on_names), or that none runs it. */
/* "Pool l40s asks for gcp spot prices; the price book has none for L40S,
 * so it is priced at ...": 1 and that sentence (raw) in buf when a pool
 * got another provider's or an on-demand offer; else 0. */
int report_price_mismatch(const struct pool *p, char *buf, size_t n);
char *report_runs_on_text(const struct search_plan *sp, char *buf, size_t n);

/* "h100: TP8 PP2 DP4" — the planner's label, or one built from the plan.
 * With r, the label the plan list gives it (plan_label.h: made unique
 * among r's plans); JSON passes NULL and keeps the planner's label. */
void report_plan_label(const struct search_plan *sp, const struct search_result *r,
		       const struct cluster *c, char *buf, size_t n);
/* TP/PP/DP of a plan whose replica groups share one layout; 0 when mixed. */
int report_plan_uniform(const struct plan *p, int *tp, int *pp);

/* The pools p uses that are not on InfiniBand/RoCE, with their
 * transport, as plan's detail, estimate and the TUI's Detail name them
 * ("mega tcpxo, slow tcp"), appended to raw unescaped (each sink escapes
 * it); returns how many. */
int report_plan_transports(const struct cluster *c, const struct plan *p, struct sbuf *raw);

/* "$12.3M", "$45.6k", "$812.40"; "unknown" for v <= 0. */
char *report_fmt_usd(char *buf, size_t n, double v);
/* A unit price ($ per 1M tokens) in table_rate's words after a "$", or
 * "unknown" when v is not above 0. */
char *report_fmt_rate(char *buf, size_t n, double v);
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


/* The section tables, built once and rendered by Markdown and HTML. Each
 * initialises t (the caller calls table_done). Numbers behind the cells
 * are in SI units: seconds, tokens/s, USD, USD/h, bytes; MFU a fraction.
 *   plans: the ranked plans (the chosen one marked TABLE_ROW_CHOSEN);
 *   singles: the best plan on each pool alone;
 *   pareto: the time/cost Pareto front;
 *   pools: the cluster's pools with their network transports, their unit
 *     prices (table_rate's words) and price sources;
 *   layout: sp's replica groups x stages with their nodes, at most
 *     max_rows rows (0: all);
 *   step: sp's step-time breakdown (non-zero parts);
 *   memory: sp's memory per GPU by stage (at most 16 stages and the
 *     fullest and the last; the return value is how many are left out);
 *   comm: sp's collectives, one row per parallel dimension;
 *   accuracy: the model's measured accuracy (report_accuracy_table). */
void report_table_plans(struct table *t, const struct report_input *in);
void report_table_singles(struct table *t, const struct report_input *in);
void report_table_pareto(struct table *t, const struct report_input *in);
void report_table_pools(struct table *t, const struct cluster *c);
void report_table_layout(struct table *t, const struct report_input *in,
			 const struct search_plan *sp, int max_rows);
void report_table_step(struct table *t, const struct search_plan *sp);
int report_table_memory(struct table *t, const struct cluster *c, const struct search_plan *sp);
void report_table_comm(struct table *t, const struct search_plan *sp);
void report_table_accuracy(struct table *t);
/* model: the model's shape and parameter counts, one row. */
void report_table_model(struct table *t, const struct model_spec *m);

/* How a human format (Markdown, HTML) writes the parts that both show the
 * same way: its escaper, its table renderer, and what goes around a
 * sub-heading and around a note. */
struct report_sink {
	void (*esc)(struct sbuf *b, const char *s);
	void (*table)(struct sbuf *b, const struct table *t);
	const char *h3[2];
	const char *note[2];
};
/* The cluster (pools, fabric, unpriced pools) and the model (shape,
 * experts), each under a sub-heading, written once for both formats. */
void report_inputs_part(struct sbuf *b, const struct report_sink *k,
			const struct report_input *in, const struct report_summary *s);

/* The prose under the ranked plans: what "runs on" means, and when plan
 * 1 runs on no stock framework, why and the best plan one runs. Plain
 * text (the caller escapes it for its sink). */
void report_runs_on_note(const struct report_input *in, struct sbuf *b);

int report_render_html(const struct report_input *in, const struct report_summary *s,
		       struct sbuf *b);

/* The reports' style sheet (report_html.c): the training and the serving
 * pages share it. */
extern const char report_css[];
/* A page's head, style and header up to the open "meta" line (the pools):
 * the title "<title>: <model> on <cluster>", the kicker line, the model
 * and cluster as the heading; the caller adds its workload to the meta
 * line, then closes it with "</div></header>". */
/* A summary card: its key, value and small print, each escaped; cls is
 * "" or "hero". */
void report_html_card(struct sbuf *b, const char *cls, const char *k, const char *v,
		      const char *s);
void report_html_head(struct sbuf *b, const char *title, const char *kicker, const char *model,
		      const struct cluster *c);

#endif
