/* cmd_report.h — `hetplan report` and the helper every front end uses to
 * write a report file (`hetplan plan -o FILE`, the TUI's export key). */
#ifndef HP_CMD_REPORT_H
#define HP_CMD_REPORT_H

#include <getopt.h>
#include "report.h"

/* Pass as fmt to pick the format from the file's extension. */
#define REPORT_FORMAT_AUTO REPORT_FORMAT_COUNT

/* Render in as fmt and write it to path atomically (temp file + rename:
 * an old file stays whole on any failure). Returns 0, or -1 with err:
 * HP_EXIT_USAGE when fmt is REPORT_FORMAT_AUTO and the extension is not
 * .md .markdown .html .htm .json or .csv; HP_EXIT_FAIL on I/O errors. */
int report_write_file(const char *path, enum report_format fmt,
		      const struct report_input *in, struct hp_err *err);

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
