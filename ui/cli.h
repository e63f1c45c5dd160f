/* cli.h — the batch front end: the command table and the commands (ui/cmd_*.c).
 * Everything here may print; the engine in src/ never does. */
#ifndef HP_CLI_H
#define HP_CLI_H

#include "common.h"

int cli_main(int argc, char **argv);

int cmd_estimate(int argc, char **argv, const struct catalog *cat);
/* getopt table of `estimate` (for --list-options). */
struct option;
const struct option *cmd_estimate_options(void);
const struct option *cmd_plan_options(void);
const struct option *cmd_prices_options(void);
int cmd_plan(int argc, char **argv, const struct catalog *cat);

int cmd_gpus(int argc, char **argv, const struct catalog *cat);
int cmd_models(int argc, char **argv, const struct catalog *cat);
/* getopt table of `gpus` and `models` (ui/cmd_catalog.c). */
const struct option *cmd_catalog_options(void);
const struct option *cmd_gpus_options(void);
int cmd_prices(int argc, char **argv, const struct catalog *cat);
#endif
