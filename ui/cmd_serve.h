/* cmd_serve.h — `hetplan serve`: size and place LLM serving on a cluster. */
#ifndef HP_CMD_SERVE_H
#define HP_CMD_SERVE_H

#include "catalog.h"

/* argv[0] is "serve". Returns the exit status: 0 plans found, 2 usage,
 * 3 invalid input, 4 nothing fits or meets the rate and SLOs. */
int cmd_serve(int argc, char **argv, const struct catalog *cat);
/* The command that starts one instance of a serving plan with the engine of
 * so (`vllm serve ...`, `python -m sglang.launch_server ...`,
 * `trtllm-serve ...`). The caller frees it. */
struct model_spec;
struct serve_opts;
struct serve_plan_inst;
char *serve_launch_line(const struct model_spec *m, const struct serve_opts *so,
			const struct serve_plan_inst *in);
/* The plans of res as `hetplan serve --format json` writes them (the
 * {"schema_version", "model", "engine", "objective", "plans": [...],
 * "search"} contract of the man page; src is serve_plan's return, < 0 adds
 * "why" and "nearest_miss"), or with md as its Markdown table. The caller
 * frees it. */
struct serve_plan_result;
struct cluster;
char *serve_plans_text(const struct serve_plan_result *res, int src, const struct cluster *c,
		       const struct model_spec *m, const struct serve_opts *so, int md);
/* Its getopt table (for --list-options). */
struct option;
const struct option *cmd_serve_options(void);
/* Its synopsis, without "usage: " (the command table's usage). */
const char *cmd_serve_usage(void);

#endif
