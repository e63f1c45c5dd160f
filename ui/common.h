/* common.h — helpers shared by the batch commands and the TUI (ui/common.c).
 * Everything here may print; the engine in src/ never does. */
#ifndef HP_COMMON_H
#define HP_COMMON_H

#include <getopt.h>
#include <stdio.h>
#include "catalog.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"

#define HETPLAN_VERSION "0.1.0"

/* Print "hetplan: MSG" (err->msg) to stderr and return err->code, or
 * fallback when the code is 0. err must not be NULL (asserted). */
int cli_fail(const struct hp_err *err, int fallback);

/* Print "hetplan CMD: --FLAG: expected WANT, got 'GOT'" to stderr (GOT
 * through the terminal escaper) and return HP_EXIT_USAGE (2). The one
 * message for a bad flag value in every command. */
int usage_error(const char *cmd, const char *flag, const char *want, const char *got);
/* arg as typed on the command line, through the terminal sink (esc_term),
 * for one message: a static buffer, overwritten by the next call (the
 * CLI's messages are printed from the main thread, one argument each). */
const char *cli_shown(const char *arg);

/* A command's --help: "usage: " and its synopsis (the command table's
 * usage, lines after the first already indented), then help, the rest of
 * its text (may be ""), to f. Neither may be NULL (asserted). */
void cli_usage(FILE *f, const char *usage, const char *help);

/* After getopt_long (it reads optind): no stray arguments, a model and a
 * cluster given. Returns 0, or HP_EXIT_USAGE after printing what is
 * missing. */
int cli_check_inputs(const char *cmd, int argc, char **argv, const char *model_arg,
		     const char *cluster_file, int n_pools);

/* The end of every getopt_long loop: for o == ':' print "hetplan CMD:
 * --FLAG: missing value", for anything else "hetplan CMD: unknown option
 * '--FLAG' (try --help)" (the flag is argv[optind - 1]). Returns
 * HP_EXIT_USAGE. */
int cli_getopt_error(const char *cmd, int o, char **argv);

/* What -c, --pool and -m collect: the inputs of a command that plans. */
struct cli_inputs {
	const char *cluster_file;         /* -c, or NULL */
	const char *model_arg;            /* -m, or NULL */
	const char *pools[HP_MAX_POOLS];  /* --pool specs, in order */
	int n_pools;
};

/* Keep one --pool SPEC (not copied: argv outlives it). Returns 0, or
 * HP_EXIT_USAGE after printing that there are more than HP_MAX_POOLS. */
int cli_add_pool(const char *cmd, struct cli_inputs *in, const char *spec);

/* After option parsing: cli_check_inputs, cli_build_cluster into c (from
 * cluster_init) and cli_load_model into m, in that order. Returns 0, or
 * the exit status of the first that failed, its error printed. */
int cli_load_inputs(const char *cmd, int argc, char **argv, const struct cli_inputs *in,
		    int use_price_book, const struct catalog *cat, struct cluster *c,
		    struct model_spec *m);

/* Build the cluster c (from cluster_init) from -c FILE (may be NULL) and
 * the n_pools --pool specs, then, when use_price_book, price the pools
 * that have no explicit price from the price book (embedded snapshot and
 * cache; never the network). Returns 0, or the exit status after printing
 * the error: HP_EXIT_INPUT for a bad file or price book, HP_EXIT_USAGE for
 * a bad --pool. The cluster owns no heap memory; nothing to free. */
int cli_build_cluster(const char *cmd, const char *cluster_file, const char *const *pools,
		      int n_pools, int use_price_book, const struct catalog *cat,
		      struct cluster *c);

/* Whether -m arg names a model file rather than a preset: an existing
 * path always does (as cli_load_model reads it). */
int cli_model_is_file(const struct catalog *cat, const char *arg);

/* Resolve -m into *out: an existing file is read as one model object,
 * otherwise arg is a preset name. Returns 0, or -1 with err
 * (HP_EXIT_INPUT: no such file or preset, with a "did you mean", or the
 * file's error). Nothing to free. */
int cli_load_model(const struct catalog *cat, const char *arg,
		   struct model_spec *out, struct hp_err *err);

/* Output formats, one table of names (cli_formats in common.c).
 * cli_parse_format sets *f to the format named
 * s when bit (1 << format) of allowed is set (7 = table, json or csv) and
 * returns 0; else -1 with *f untouched, and the caller reports it with
 * usage_error. cli_format_from_path does the same from a file name's
 * extension, as the reports read it (report_format_from_path: .json,
 * .csv, .md or .markdown, .html or .htm, any case). */
enum cli_format { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_MD, FMT_HTML };
int cli_parse_format(const char *s, enum cli_format *f, unsigned allowed);
int cli_format_from_path(const char *path, enum cli_format *f, unsigned allowed);
/* The names of the allowed formats into buf: joined by sep, the last by
 * last ("table|json|csv", or "table, json or csv"). Returns buf. */
char *cli_format_names(char *buf, size_t n, unsigned allowed, const char *sep, const char *last);

/* Listing cells printed with printf beside numbers: s through the CSV
 * sink (esc_csv: quoted when it holds , " or a line break, a formula
 * start guarded), or through the terminal sink (esc_term) and padded with
 * spaces to cols terminal columns (utf8_cols: a CJK character takes two);
 * wider text is printed whole, as printf's %-*s does. */
void cli_print_csv(FILE *f, const char *s);
void cli_print_term(FILE *f, const char *s, int cols);

/* Read a plan file into p: a plan object (`estimate --plan`'s schema), a
 * plan entry of `hetplan plan --format json` or a report, or such a JSON
 * whole ("plans"), from which the plan of rank `rank` (1 = the best) is
 * taken. tokens, when not NULL and not yet set (<= 0), gets the file's
 * "tokens". Returns 0 or -1 with err naming the file and the key. */
int cli_load_plan_file(struct plan *p, const char *path, int rank, const struct cluster *c,
		       double *tokens, struct hp_err *err);

/* What plan's "Plan N in detail" says of where p's collectives run, one
 * line each, with no indent and no newline: the links each used
 * dimension's groups cross, from the plan placed on c's nodes
 * (dispatch_plan's links: "tp links: NVSwitch (inside a node)", "dp
 * links: 8x200G NIC (bottleneck), leaf and spine"), then the pools p uses
 * whose transport is not InfiniBand/RoCE ("transport: mega tcpxo, hi
 * tcpx"). The one wording of both, for `hetplan plan` and the TUI's
 * Detail view. p is validated against c and m. Fills out (n lines; no
 * links line when the plan does not place on the nodes, as plan prints
 * none then); cannot fail. Pool names are printable UTF-8 (cluster_check)
 * and are copied as they are. */
#define PLAN_LINKS_LINE_MAX 800
struct plan_links {
	int n;
	char line[DIM_COUNT + 1][PLAN_LINKS_LINE_MAX];
};
void plan_links_text(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		     struct plan_links *out);
/* The pools p uses whose transport is not InfiniBand/RoCE, as
 * "mega tcpxo, hi tcpx" into buf (cut to n bytes on a whole name); ""
 * when all are on ib (buf may be NULL when n is 0, to count). Returns
 * how many pools it names. */
int plan_transport_text(const struct cluster *c, const struct plan *p, char *buf, size_t n);

/* Write a command's output to path atomically (hp_write_file_atomic), or
 * to standard output when path is "-" (the usual Unix convention for -o),
 * or in place when path is an existing character device, FIFO or socket
 * (/dev/null) or a link under /dev (/dev/stdout): those are never
 * replaced. Returns 0 or -1 with err filled. */
int cli_write_output(const char *path, const void *data, size_t len, struct hp_err *err);

/* The estimate's JSON (hetplan estimate --format json; built in
 * ui/cmd_estimate.c), and one plan of the planner in the `hetplan plan`
 * contract (ui/cmd_plan.c); the TUI exports them too. Each returns a new
 * object, never NULL, that the caller frees with cJSON_Delete. */
struct estimate;
struct search_plan;
struct cJSON *cli_estimate_json(const struct estimate *e, const struct cluster *c,
				const struct plan *p, const struct model_spec *m);
struct search_result;
struct cJSON *cli_plan_entry_json(const struct search_plan *sp, int rank,
				  const struct search_result *r, const struct cluster *c,
				  const struct model_spec *m);

#endif
