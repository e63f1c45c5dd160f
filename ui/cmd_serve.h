/* cmd_serve.h — `hetplan serve`: size and place LLM serving on a cluster. */
#ifndef HP_CMD_SERVE_H
#define HP_CMD_SERVE_H

#include "catalog.h"

/* argv[0] is "serve". Returns the exit status: 0 plans found, 2 usage,
 * 3 invalid input, 4 nothing fits or meets the rate and SLOs. */
int cmd_serve(int argc, char **argv, const struct catalog *cat);
/* Its getopt table (for --list-options). */
struct option;
const struct option *cmd_serve_options(void);
/* Its synopsis, without "usage: " (the command table's usage). */
extern const char cmd_serve_usage[];

#endif
