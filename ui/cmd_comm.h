/* cmd_comm.h — `hetplan comm`: time one collective on a given system. */
#ifndef HP_CMD_COMM_H
#define HP_CMD_COMM_H

#include "catalog.h"

/* argv[0] is "comm". Returns the exit status: 0 ok, 2 usage, 3 invalid
 * input (unknown GPU, a combination the model refuses). */
int cmd_comm(int argc, char **argv, const struct catalog *cat);
/* Its getopt table (for --list-options). */
struct option;
const struct option *cmd_comm_options(void);
/* Its synopsis, without "usage: " (the command table's usage_fn): the
 * transports generated from their table. Static storage. */
const char *cmd_comm_usage(void);

#endif
