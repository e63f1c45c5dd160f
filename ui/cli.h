/* cli.h — the batch front end: cli_main() and its command table (ui/cli.c),
 * and the commands that have no header of their own (ui/cmd_plan.c,
 * ui/cmd_estimate.c, ui/cmd_prices.c, ui/cmd_catalog.c). Each command is
 * three things the table points at: run (argv[0] is the command's name;
 * returns the exit status, the man page's EXIT STATUS), its getopt table
 * (--list-options, the completions, the man-page check) and its synopsis
 * (`usage`, printed after "usage: " by its --help). Everything here may
 * print; the engine in src/ never does. */
#ifndef HP_CLI_H
#define HP_CLI_H

#include "common.h"

/* The program: a command, or the TUI when argv[1] is none (see usage()).
 * Returns the process exit status. */
int cli_main(int argc, char **argv);

struct option;
int cmd_plan(int argc, char **argv, const struct catalog *cat);
const struct option *cmd_plan_options(void);
const char *cmd_plan_usage(void);

int cmd_estimate(int argc, char **argv, const struct catalog *cat);
const struct option *cmd_estimate_options(void);
/* Built once from the plan's settings table (static; never NULL). */
const char *cmd_estimate_usage(void);

int cmd_prices(int argc, char **argv, const struct catalog *cat);
const struct option *cmd_prices_options(void);
extern const char cmd_prices_usage[];

/* `gpus` and `models` share one getopt table (ui/cmd_catalog.c). */
int cmd_gpus(int argc, char **argv, const struct catalog *cat);
int cmd_models(int argc, char **argv, const struct catalog *cat);
const struct option *cmd_catalog_options(void);
const struct option *cmd_gpus_options(void);
extern const char cmd_gpus_usage[];
extern const char cmd_models_usage[];

#endif
