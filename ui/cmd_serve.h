/* cmd_serve.h — `hetplan serve`: size and place LLM serving on a cluster. */
#ifndef HP_CMD_SERVE_H
#define HP_CMD_SERVE_H

#include "catalog.h"
#include "common.h"

/* argv[0] is "serve". Returns the exit status: 0 plans found, 2 usage,
 * 3 invalid input, 4 nothing fits or meets the rate and SLOs. */
int cmd_serve(int argc, char **argv, const struct catalog *cat);
/* The plans of res as `hetplan serve --format FMT` writes them: JSON the
 * {"schema_version", "model", "engine", "objective", "plans": [...],
 * "search"} contract of the man page (src is serve_plan's return, < 0 adds
 * "why" and "nearest_miss"), CSV its schema, table, md and html
 * serve_report's text, Markdown and page. The caller frees it. */
struct serve_plan_result;
struct serve_opts;
struct cluster;
char *serve_plans_text(const struct serve_plan_result *res, int src, const struct cluster *c,
		       const struct model_spec *m, const struct serve_opts *so, enum cli_format fmt);
/* A p99 latency target typed by a user (--ttft-p99, --tpot-p99, the
 * Serve view's fields): key is its ws_serve_fields key ("ttft_p99_s",
 * "tpot_p99_s"), s a number in units of unit_s seconds (1: seconds, 1e-3:
 * milliseconds), above 0 and at most the key's max. One rule for the
 * command line and the TUI: 0 is refused (no request has a zero
 * latency; "no target" is the flag left out, or "none" in the TUI).
 * Returns 0 with *out_s in seconds, or -1; want (n bytes) always gets
 * what is expected ("seconds above 0, at most 3600"). */
int serve_slo_parse(const char *key, const char *s, double unit_s, double *out_s,
		    char *want, size_t n);
/* Its getopt table (for --list-options). */
struct option;
const struct option *cmd_serve_options(void);
/* Its synopsis, without "usage: " (the command table's usage). */
const char *cmd_serve_usage(void);

#endif
