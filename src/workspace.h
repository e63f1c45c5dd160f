/* workspace.h — what a user is planning: a cluster, a model and the
 * training workload. The TUI saves and opens it; `hetplan report` reads it.
 *
 * JSON:
 *   {"version": 1,
 *    "cluster":  <the cluster schema: {"name","pools":[...],"fabric":{...}}>,
 *    "model":    "llama3.1-70b" | <the model schema object>,
 *    "workload": {"gbs": 1024, "seq_len": 8192, "tokens": 2e12,
 *                 "precision": "bf16", "objective": "throughput",
 *                 "deadline_s": 0, "budget_usd": 0, "top": 10},
 *    "serve":    {"model": "llama3.1-70b", "isl": "1500", "osl": "lognormal:300:0.5",
 *                 "rate": 40, "offline": false, "ttft_p99_s": 2, "tpot_p99_s": 0.05,
 *                 "engine": "vllm", "weights": "bf16", "kv_cache": "bf16",
 *                 "objective": "cost"}}
 * "workload", "serve" and every key in them are optional. "serve" is the
 * TUI Serve view's workload; it is written only when set. */
#ifndef HP_WORKSPACE_H
#define HP_WORKSPACE_H

#include "search.h"

/* The serving workload of the Serve view (as `hetplan serve` options). */
struct ws_serve {
	int set;                   /* present in the file, or edited: saved */
	char model[48];            /* preset name; "" = the workspace's model */
	char isl[48], osl[48];     /* lengths as --isl/--osl take them */
	double rate;               /* requests/s; 0 with offline */
	int offline;
	double ttft_p99_s, tpot_p99_s;   /* 0 = no target */
	int engine, wprec, kvprec; /* enum serve_engine, serve_wprec, serve_kvprec */
	int wprec_given, kvprec_given; /* "weights" / "kv_cache" in the file (or
				      * chosen in the Serve view): saved, and
				      * bf16 refused where no pool has it;
				      * absent: the default, bf16 or fp16 on a
				      * GPU without bf16 (serve_wprec_on) */
	int objective;             /* enum serve_objective */
	int prefill_apart, sched_steps, eager; /* serve_config's; 0 = the engine's */
	int overlap_sched;         /* enum serve_overlap */
	int build;                 /* enum serve_build; 0 = current */
};

struct workspace {
	struct cluster cluster;
	struct model_spec model;
	int model_is_preset;       /* saved by name */
	struct search_opts opts;   /* gbs, seq_len, tokens, precision, objective,
				      deadline_s, budget_usd, top_k */
	struct ws_serve serve;
};

/* The embedded default: 4x8 H100 + 8x8 A100-80GB, Llama-3.1 70B, 2T
 * tokens, global batch 1024 sequences of 8192. */
int workspace_default(struct workspace *w, const struct catalog *cat, struct hp_err *err);

int workspace_parse(struct workspace *w, const char *text, size_t len, const char *file,
		    const struct catalog *cat, struct hp_err *err);
int workspace_load(struct workspace *w, const char *path, const struct catalog *cat,
		   struct hp_err *err);
/* Serialise (caller frees with free()); save writes atomically. */
char *workspace_to_string(const struct workspace *w);
int workspace_save(const struct workspace *w, const char *path, struct hp_err *err);

/* The settings tables of the workspace's parts (fields.h): a cluster's
 * pools and fabric, and the workload (struct search_opts). */
extern const struct hp_field_table fabric_fields, workload_fields, ws_serve_fields;   /* pool_fields: cluster.h */

/* The serve settings of ws_serve_fields that an engine configuration
 * holds (prefill_apart, sched_steps, eager), from a serve block into it
 * and back: the one place a new table entry of that kind is wired. */
struct serve_config;
void ws_serve_to_config(const struct ws_serve *w, struct serve_config *c);
/* A serve block's rate, targets, engine, precisions, objective and
 * engine configuration into so (the lengths are strings: the caller
 * parses w->isl and w->osl with serve_dist_parse). */
struct serve_opts;
void ws_serve_to_opts(const struct ws_serve *w, struct serve_opts *so);
void ws_serve_from_config(struct ws_serve *w, const struct serve_config *c);
/* Every settings table hetplan has (plan, model and its moe/mla parts,
 * pool, fabric, workload, serve), for --list-fields and docs/formats.md. */
const struct hp_field_table *const *workspace_field_tables(int *n);

/* The cluster and model as JSON in their input schemas. */
struct cJSON *cluster_to_json(const struct cluster *c);
struct cJSON *model_to_json(const struct model_spec *m);

#endif
