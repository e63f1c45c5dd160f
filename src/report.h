/* report.h — plan reports: Markdown, a self-contained HTML page, JSON and
 * CSV, rendered from one planner result into a memory buffer.
 *
 * The engine side: no printing, no curses. `hetplan report`, `hetplan plan
 * --format md|html|csv` and the TUI's export call report_render(), most
 * through report_write_file(); `hetplan plan --format json` prints
 * report_plan_json(). Each section is a table value (table.h) built once
 * and rendered by every format; docs/reports.md describes the formats.
 *
 * What every format carries: the inputs (cluster with each pool's price and
 * where it came from, model, workload), the ranked plans, the Pareto front
 * of time vs cost, the best plan confined to each pool, the search
 * statistics, and for the chosen plan its layout, step-time and memory
 * breakdowns, communication table and cost to train; Markdown and HTML add
 * the assumptions, the model's limits and its measured accuracy.
 *
 * JSON (schema_version 1; keys are stable, new keys may be added):
 *   {"schema_version":1, "generator":{"name","version"}, "generated_at",
 *    "inputs":{"cluster":<cluster schema>, "model":<model schema>,
 *              "workload":{"gbs","seq_len","tokens","precision","objective",
 *                          "deadline_s","budget_usd","top"},
 *              "prices":[{"pool","gpu","usd_per_node_hour","usd_per_gpu_hour",
 *                         "source","date"}]},
 *    "chosen": RANK or null,
 *    "plans":[PLAN...], "pareto":[PLAN...],
 *    "single_pool":[{"pool", "plan": PLAN or null}],
 *    "search":{"candidates","evaluated","pruned","lp_solves","seconds","fw_checked",
 *              "fw_denied","cancelled"},
 *    "why": "..." (only when nothing fits), "nearest": PLAN (likewise),
 *    "accuracy":[{"what","rows","mean_abs_err_pct","median_abs_err_pct",
 *                 "max_abs_err_pct","measured_by"}],
 *    and in->extra's object under its json_key (the workspace report's
 *    "serving": serve_report.h)}
 * PLAN is report_plan_json()'s object, see below.
 *
 * CSV: a header line, then one row per ranked plan; the columns are
 * REPORT_CSV_COLUMNS, in that order. `hetplan plan --format csv` writes
 * the same schema (report_csv). Money and tp/pp cells are empty when
 * unknown (no price; replicas with different layouts); gap is empty for
 * heuristic plans; runs_on lists frameworks separated by "; " (as
 * runs_on_names, with ; for ,); memory_verdict is the JSON key's value;
 * gpus_by_pool and transports are "POOL:X;POOL:X" over the pools the plan
 * uses (X its GPU count, its transport's name); docs/reports.md has the
 * column table.
 * A report_extra's CSV (the workspace's serving plans) follows after one
 * blank line, with its own header. */
#ifndef HP_REPORT_H
#define HP_REPORT_H

#include <time.h>
#include "search.h"

struct cJSON;
struct sbuf;

/* A part another module adds to a report (the workspace's serving plans,
 * serve_report_extra): its Markdown and HTML sections, placed after the
 * training plan's, its JSON object under json_key and its CSV table after
 * the plans'. The report module
 * calls it and knows nothing else of it. */
struct report_extra {
	void (*md)(struct sbuf *b, const void *ctx);
	void (*html)(struct sbuf *b, const void *ctx);
	struct cJSON *(*json)(const void *ctx);
	const char *json_key;
	const void *ctx;
	/* CSV rows appended after the plans' (a blank line first) */
	void (*csv)(struct sbuf *b, const void *ctx);
};

enum report_format { REPORT_MD, REPORT_HTML, REPORT_JSON, REPORT_CSV, REPORT_FORMAT_COUNT };

#define REPORT_SCHEMA_VERSION 1

#define REPORT_CSV_COLUMNS                                                     \
	"rank,label,gpus,gpus_by_pool,transports,tp,pp,dp,cp,ep,mbs,gbs,"      \
	"precision,recompute,zero,schedule,step_time_s,tokens_per_s,mfu,hfu,"  \
	"usd_per_hour,usd_per_million_tokens,time_to_train_s,"                 \
	"cost_to_train_usd,optimality,pareto,fits,gap,runs_on,memory_verdict"

struct report_input {
	const struct cluster *cluster;
	const struct model_spec *model;
	const struct search_opts *opts;        /* the workload */
	const struct search_result *res;       /* n_plans may be 0 (nothing fits) */
	int chosen;                            /* index into res->plans */
	time_t generated;                      /* wall-clock time of the run */
	const char *version;                   /* hetplan's version */
	const struct report_extra *extra;      /* another part (the workspace's
						* serving plans), or NULL */
};

/* Render in into fmt. On success returns 0 and *out holds a NUL-terminated
 * heap string of *len bytes (caller frees). Fails with -1 and err
 * (HP_EXIT_USAGE) when chosen is out of range or an input is missing. */
int report_render(const struct report_input *in, enum report_format fmt,
		  char **out, size_t *len, struct hp_err *err);

/* Pass as fmt to report_write_file to pick the format from the file's
 * extension. */
#define REPORT_FORMAT_AUTO REPORT_FORMAT_COUNT

/* Render in as fmt and write it to path atomically (hp_write_file_atomic:
 * temp file + rename, so an old file stays whole on any failure). Returns
 * 0, or -1 with err: HP_EXIT_USAGE when fmt is REPORT_FORMAT_AUTO and the
 * extension is not .md .markdown .html .htm .json or .csv, or as
 * report_render fails; HP_EXIT_FAIL on I/O errors. */
int report_write_file(const char *path, enum report_format fmt,
		      const struct report_input *in, struct hp_err *err);

/* One plan sp (not necessarily in in->res) for people, in Markdown: its
 * numbers, settings (with the transport of each pool it uses that is not
 * on ib, as plan's detail names it), layout, step time, memory and
 * communication tables (the report's), and the plan as an `estimate
 * --plan` input. The TUI's export writes it for .md files. Returns a heap
 * string (caller frees). */
char *report_plan_md(const struct report_input *in, const struct search_plan *sp);

/* The ranked plans of r as CSV (REPORT_CSV_COLUMNS, one row per plan),
 * appended to b: the one CSV schema of `report` and `plan --format csv`. */
struct sbuf;
void report_csv(struct sbuf *b, const struct search_result *r, const struct cluster *c);
/* The same as a table value (table.h; the caller calls table_done). */
struct table;
void report_csv_table(struct table *t, const struct search_result *r, const struct cluster *c);

/* One plan as the `hetplan plan` JSON contract has it (cmd_plan.c uses
 * this builder too): plan_to_json()'s keys (so the object is a valid
 * `hetplan estimate --plan` input; stages gain "gpu" and "nodes", the node
 * indices within the pool the stage's replicas occupy, from dispatch.c)
 * plus
 *   "rank" (1-based, or null when the plan is not in the ranked list),
 *   "label" ("h100 tp8 pp2": the planner's name for the layout),
 *   "list_label": what the list r calls it (plan_label.h: the label plus
 *     what tells it apart from the other plans of r->plans, as the table
 *     and the Markdown/HTML/CSV reports print it; the label when r is NULL),
 *   "step_time_s","tokens_per_s","mfu","hfu","usd_per_hour",
 *   "time_to_train_s","cost_to_train_usd" (null when a price is unknown),
 *   "gpus_used":{POOL:COUNT}, "breakdown_s":{compute,recompute,tp_comm,
 *   pp_comm,dp_comm,ep_comm,cp_comm,bubble,optimizer,overhead},
 *   "memory":[{replica_group,stage,pool,gpu,tp,first_layer,last_layer,
 *              weights_bytes,grads_bytes,optimizer_bytes,activations_bytes,
 *              other_bytes,total_bytes,capacity_bytes,fits,time_per_microbatch_s}],
 *   "comm":[{dim,collective,bytes,calls_per_step,group,group_nodes,link,
 *            algorithm,protocol,time_s,exposed_s}],
 *   "links":{DIM:"the links its collectives cross"},
 *   "optimality":{"status":"optimal"|"within-gap"|"heuristic","gap"},
 *     ("gap" unless heuristic),
 *   "pareto": true when the plan is on the time/cost Pareto front,
 *   "runs_on": ["megatron-core", ...] (stock frameworks that run it as one
 *     job, runs_on.h), "runs_on_why": why the others cannot,
 *   "memory_verdict": "fits"|"fits-with-risk"|"over-gpu"|"does-not-fit"
 *     under the planner's headroom (search_plan_verdict), "mem_need_bytes"/"mem_capacity_bytes": the
 *     fullest stage and its GPU.
 * Caller owns the result (cJSON_Delete). */
/* Add "breakdown_s", "memory" and "comm" of e to the object o. */
void report_estimate_json_parts(struct cJSON *o, const struct estimate *e,
				const struct cluster *c);
struct search_result;
/* Add to o what runs sp and whether it fits: "runs_on", "runs_on_why",
 * "memory_verdict", "mem_need_bytes", "mem_capacity_bytes" (as above),
 * for every writer of a plan's figures (report_plan_json, the TUI's
 * export). */
void report_plan_fit_json(struct cJSON *o, const struct search_plan *sp);
struct cJSON *report_plan_json(const struct search_plan *sp, int rank,
			       const struct search_result *r, const struct cluster *c,
			       const struct model_spec *m);

/* 1-based rank of sp in r's ranked list (the same plan counts), 0 when
 * it is not there. */
int report_plan_rank(const struct search_result *r, const struct search_plan *sp);

/* Add the object "search" to o: the planner's statistics
 * ("candidates","evaluated","pruned","lp_solves","seconds", and under
 * --framework NAME "fw_checked": the candidates that reached its rules,
 * "fw_denied": those its rules refused; both 0 without --framework), as
 * `plan --format json` and the JSON report state them. Returns that
 * object. */
struct search_stats;
struct cJSON *report_search_json(struct cJSON *o, const struct search_stats *st);

/* Remove from a plan entry the keys report_plan_json() adds that
 * plan_parse_json() does not know yet (list_label, runs_on ...
 * mem_capacity_bytes),
 * so an entry stays an `estimate --plan` input. */
void report_plan_strip_extras(struct cJSON *entry);

/* "md" (or "markdown"), "html", "json", "csv". Returns 0 or -1. */
int report_format_parse(const char *s, enum report_format *f);
/* From a file name's extension: .md .markdown .html .htm .json .csv.
 * Returns 0, or -1 when the extension says nothing. */
int report_format_from_path(const char *path, enum report_format *f);

/* A part of the step-time breakdown (struct perf_breakdown) or of a
 * stage's memory (struct perf_stage), described once: its JSON and CSV
 * key, its label in reports, its one word in the batch commands' text
 * (estimate's "breakdown (s)" lines, plan's "step" line), its label of at
 * most 9 columns in the interactive planner, its chart colour in HTML,
 * its slot in the terminal's segment palette, and where it sits in the
 * struct. Every format and view lists the parts of report_time_parts in
 * this order. */
struct report_part {
	const char *key, *label, *word, *tui, *color;
	int seg;        /* the terminal palette's slot, 0-10 (time parts) */
	size_t off;
	int omit_zero;  /* left out at 0 (a part only some plans have) */
};
const struct report_part *report_time_parts(int *n);    /* struct perf_breakdown */
const struct report_part *report_mem_parts(int *n);     /* struct perf_stage */
double report_part_value(const struct report_part *p, const void *obj);
/* Whether a time part is listed for this breakdown (omit_zero parts only
 * when not 0). */
int report_part_shown(const struct report_part *p, const void *obj);

/* The communication table's rows, listed once for every view (the
 * reports' table, `hetplan estimate`'s text, the interactive planner's
 * Detail): a row a used dimension; under dp at ZeRO-1/2 its parameter
 * gather ("+ allgather", whose times the dp row's include); after the pp
 * row the pipeline hand-off across the WAN that does not set the step
 * (struct estimate's pp_wan). Each row names its figures; calls is 1 for
 * the gather (one a step). */
enum report_comm_kind { REPORT_COMM_DIM, REPORT_COMM_GATHER, REPORT_COMM_WAN };
struct report_comm_row {
	enum report_comm_kind kind;
	const char *dim;             /* "dp", ...; "" under the gather */
	char coll[24];               /* "allreduce", "+ allgather" */
	const struct perf_comm *pc;  /* the group, its nodes and its link */
	double bytes, calls, time_s, exposed_s;
	enum comm_algo algo;
	enum comm_proto proto;
};
/* a row and a gather a dimension (only dp gathers today), and the WAN row */
#define REPORT_COMM_ROWS_MAX (2 * DIM_COUNT + 1)
/* Fills rows (REPORT_COMM_ROWS_MAX of them) in table order; returns the
 * count. */
int report_comm_rows(const struct estimate *e, struct report_comm_row *rows);
/* What a gather or WAN row is, in a sentence (no parentheses) into buf;
 * "" for a dimension's row. Returns buf. */
const char *report_comm_note(const struct estimate *e, enum report_comm_kind kind, char *buf,
			     size_t n);

/* The model's measured accuracy as the README states it (one table, used
 * by every report format). */
struct report_accuracy {
	const char *what;          /* "step time, CONF:high training runs" */
	int rows;
	double mean_abs_pct;       /* < 0: not stated */
	double median_abs_pct;
	double max_abs_pct;
	const char *measured_by;   /* the test that measures it */
};
const struct report_accuracy *report_accuracy_table(int *n);

#endif
