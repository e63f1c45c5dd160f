/* cli.h — the batch front end: subcommand dispatch and shared helpers.
 * Everything here may print; the engine in src/ never does. */
#ifndef HP_CLI_H
#define HP_CLI_H

#include <getopt.h>
#include <stdio.h>
#include "catalog.h"
#include "cluster.h"
#include "plan.h"

#define HETPLAN_VERSION "0.1.0"

int cli_main(int argc, char **argv);

/* Print "hetplan: msg" to stderr and return err->code (or fallback). */
int cli_fail(const struct hp_err *err, int fallback);

/* After option parsing: no stray arguments, a model and a cluster given.
 * Returns 0, or HP_EXIT_USAGE after printing what is missing. */
int cli_check_inputs(const char *cmd, int argc, char **argv, const char *model_arg,
		     const char *cluster_file, int n_pools);

/* Build the cluster from -c FILE and --pool specs, then price the pools
 * that have no explicit price from the price book (embedded snapshot and
 * cache). Returns 0, or the exit status after printing the error. */
int cli_build_cluster(const char *cmd, const char *cluster_file, const char *const *pools,
		      int n_pools, int use_price_book, const struct catalog *cat,
		      struct cluster *c);

/* The flags that describe a plan on one pool, shared by estimate and
 * launch: --tp --pp --dp --cp --ep --mbs --gbs --seq-len --precision
 * --recompute --loss --zero --master --schedule --attention --no-sp --on. */
enum { CLI_PF_TP = 400, CLI_PF_PP, CLI_PF_DP, CLI_PF_CP, CLI_PF_EP, CLI_PF_MBS, CLI_PF_GBS,
       CLI_PF_SEQ, CLI_PF_PREC, CLI_PF_RC, CLI_PF_LOSS, CLI_PF_ZERO, CLI_PF_SCHED,
       CLI_PF_ATTN, CLI_PF_NOSP, CLI_PF_ON, CLI_PF_MASTER, CLI_PF_FW, CLI_PF_TPOV,
       CLI_PF_GRADOV, CLI_PF_PARAMOV };
#define CLI_PLAN_FLAG_OPTIONS                                            \
	{ "tp", required_argument, 0, CLI_PF_TP },                       \
	{ "pp", required_argument, 0, CLI_PF_PP },                       \
	{ "dp", required_argument, 0, CLI_PF_DP },                       \
	{ "cp", required_argument, 0, CLI_PF_CP },                       \
	{ "ep", required_argument, 0, CLI_PF_EP },                       \
	{ "mbs", required_argument, 0, CLI_PF_MBS },                     \
	{ "gbs", required_argument, 0, CLI_PF_GBS },                     \
	{ "seq-len", required_argument, 0, CLI_PF_SEQ },                 \
	{ "precision", required_argument, 0, CLI_PF_PREC },              \
	{ "recompute", required_argument, 0, CLI_PF_RC },                \
	{ "loss", required_argument, 0, CLI_PF_LOSS },                   \
	{ "zero", required_argument, 0, CLI_PF_ZERO },                   \
	{ "master", required_argument, 0, CLI_PF_MASTER },               \
	{ "schedule", required_argument, 0, CLI_PF_SCHED },              \
	{ "attention", required_argument, 0, CLI_PF_ATTN },              \
	{ "no-sp", no_argument, 0, CLI_PF_NOSP },                        \
	{ "framework", required_argument, 0, CLI_PF_FW },                \
	{ "tp-overlap", required_argument, 0, CLI_PF_TPOV },             \
	{ "grad-overlap", required_argument, 0, CLI_PF_GRADOV },         \
	{ "param-overlap", required_argument, 0, CLI_PF_PARAMOV },       \
	{ "on", required_argument, 0, CLI_PF_ON }

struct cli_plan_flags {
	int tp, pp, dp, have_mbs;
	const char *on;
};

/* Apply one getopt result to p and f. Returns 1 when opt is a plan flag,
 * 0 when it is not, -1 after printing "hetplan CMD: --flag: expected ..."
 * for a bad value (exit status 2). */
int cli_plan_flag(const char *cmd, int opt, const char *arg, struct plan *p,
		  struct cli_plan_flags *f);

/* Build the one-pool plan the flags describe (--tp and --pp required;
 * --dp defaults to every GPU of the pool). Returns 0, or an exit status
 * after printing the error. */
int cli_uniform_plan(const char *cmd, const struct cli_plan_flags *f, const struct cluster *c,
		     const struct model_spec *m, struct plan *p);

/* Resolve -m: a preset name, or a JSON file holding one model object. */
int cli_load_model(const struct catalog *cat, const char *arg,
		   struct model_spec *out, struct hp_err *err);

/* Output formats. */
enum cli_format { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_MD };
int cli_parse_format(const char *s, enum cli_format *f, unsigned allowed);

int cmd_estimate(int argc, char **argv, const struct catalog *cat);
/* getopt table of `estimate` (for --list-options). */
struct option;
const struct option *cmd_estimate_options(void);
const struct option *cmd_plan_options(void);
const struct option *cmd_prices_options(void);
int cmd_plan(int argc, char **argv, const struct catalog *cat);

/* The estimate's JSON (hetplan estimate --format json), and one plan of
 * the planner in the `hetplan plan` contract. */
struct estimate;
struct search_plan;
struct cJSON *cli_estimate_json(const struct estimate *e, const struct cluster *c,
				const struct plan *p, const struct model_spec *m);
struct cJSON *cli_plan_entry_json(const struct search_plan *sp, int rank,
				  const struct cluster *c, const struct model_spec *m);
int cmd_gpus(int argc, char **argv, const struct catalog *cat);
int cmd_models(int argc, char **argv, const struct catalog *cat);
int cmd_prices(int argc, char **argv, const struct catalog *cat);
int tui_main(int argc, char **argv, const struct catalog *cat);

/* Write a command's output to path atomically (hp_write_file_atomic), or
 * to standard output when path is "-" (the usual Unix convention for -o).
 * Returns 0 or -1 with err filled. */
int cli_write_output(const char *path, const void *data, size_t len, struct hp_err *err);

#endif
