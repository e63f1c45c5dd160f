/* cli.h — the batch front end: subcommand dispatch and shared helpers.
 * Everything here may print; the engine in src/ never does. */
#ifndef HP_CLI_H
#define HP_CLI_H

#include <stdio.h>
#include "catalog.h"
#include "cluster.h"
#include "plan.h"

#define HETPLAN_VERSION "0.1.0"

int cli_main(int argc, char **argv);

/* Print "hetplan: msg" to stderr and return err->code (or fallback). */
int cli_fail(const struct hp_err *err, int fallback);

/* Build the cluster from -c FILE and --pool specs, then price the pools
 * that have no explicit price from the price book (embedded snapshot and
 * cache). Returns 0, or the exit status after printing the error. */
int cli_build_cluster(const char *cmd, const char *cluster_file, const char *const *pools,
		      int n_pools, int use_price_book, const struct catalog *cat,
		      struct cluster *c);

/* Resolve -m: a preset name, or a JSON file holding one model object. */
int cli_load_model(const struct catalog *cat, const char *arg,
		   struct model_spec *out, struct hp_err *err);

/* Output formats. */
enum cli_format { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_MD };
int cli_parse_format(const char *s, enum cli_format *f, unsigned allowed);

int cmd_estimate(int argc, char **argv, const struct catalog *cat);
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

#endif
