/* cmd_launch.h — `hetplan launch`: a plan as Megatron-LM arguments, a
 * Slurm + torchrun script or a DeepSpeed config. */
#ifndef HP_CMD_LAUNCH_H
#define HP_CMD_LAUNCH_H

#include <getopt.h>

struct catalog;
/* argv[0] is "launch". Returns the exit status: 0 ok, 2 usage, 3 invalid
 * input (cluster, model or plan), 4 the plan does not fit in GPU memory
 * (without --force), 1 I/O failure writing -o. */
int cmd_launch(int argc, char **argv, const struct catalog *cat);
/* Its getopt table (static, for --list-options). */
const struct option *cmd_launch_options(void);
/* Its synopsis, without "usage: " (the command table's usage; static). */
const char *cmd_launch_usage(void);

#endif
