/* cmd_report.h — `hetplan report` (report_write_file, which every front
 * end uses to write a report file, is in the engine: report.h). */
#ifndef HP_CMD_REPORT_H
#define HP_CMD_REPORT_H

#include <getopt.h>
#include "report.h"

/* argv[0] is "report". Returns the exit status: 0 written, 2 usage,
 * 3 invalid workspace, 4 nothing fits (the report saying so is written),
 * 1 I/O or planner failure (nothing written). */
struct catalog;
int cmd_report(int argc, char **argv, const struct catalog *cat);
/* Its option table (for --list-options). */
const struct option *cmd_report_options(void);
/* Its synopsis, without "usage: " (the command table's usage). */
extern const char cmd_report_usage[];

#endif
