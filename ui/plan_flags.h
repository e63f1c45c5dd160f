/* plan_flags.h — the plan flags of estimate and launch (ui/plan_flags.c).
 *
 * The inputs -c/--cluster, --pool and -m/--model come first, then the
 * flags from the plan's settings table (plan_fields, src/plan.c) and a
 * small table of layout flags here: --tp --pp --dp, then every plan key
 * that has a flag (`hetplan --list-fields` lists them), then --on.
 * A command's getopt table holds CLI_PLAN_FLAG_OPTIONS where they go and
 * passes the table through cli_plan_options(), which puts them there. */
#ifndef HP_PLAN_FLAGS_H
#define HP_PLAN_FLAGS_H

#include <getopt.h>
#include "cluster.h"
#include "common.h"
#include "model.h"
#include "plan.h"

/* getopt values: plan_fields entry i is CLI_PF_PLAN + i, layout entry i
 * CLI_PF_LAYOUT + i. The plan table has fewer than 100 entries. */
enum {
	CLI_PF_PLAN = 400, CLI_PF_LAYOUT = 500, CLI_PF_ON = 510, CLI_PF_SPLICE = 511,
	CLI_PF_POOL = 512,
};

/* A marker entry: cli_plan_options() replaces it with the plan flags. */
#define CLI_PLAN_FLAG_OPTIONS { "\001plan-flags", no_argument, 0, CLI_PF_SPLICE }

struct cli_plan_flags {
	struct cli_inputs in;   /* -c, --pool, -m */
	int tp, pp, dp, have_mbs;
	const char *on;
};

/* opts with its CLI_PLAN_FLAG_OPTIONS marker replaced by the plan flags.
 * The result lives as long as the program (one copy per opts, at most 8
 * tables); a table without the marker comes back unchanged. */
const struct option *cli_plan_options(const struct option *opts);

/* Apply one getopt result to p and f (an input to f->in). Returns 1 when
 * opt is one of these flags, 0 when it is not, -1 after printing
 * "hetplan CMD: --flag: expected ..." for a bad value or "--pool: at most
 * 16 pools" (exit status 2). */
int cli_plan_flag(const char *cmd, int opt, const char *arg, struct plan *p,
		  struct cli_plan_flags *f);

/* The synopsis of a command that takes a plan (estimate, launch): "hetplan
 * CMD (-c CLUSTER.json | --pool SPEC...) -m MODEL" and the layout flags
 * (--tp, --pp, --dp, --cp, --ep, --mbs, --gbs, --on), then "[--flag ARG]"
 * for every other plan flag (ARG as fields_doc_arg spells it), wrapped in
 * lines of at most 96 columns indented by 9, then tail. Written once into
 * buf (n bytes, static in the caller); returns buf. */
const char *cli_plan_usage(char *buf, size_t n, const char *cmd, const char *tail);

/* Append "[--FLAG ARG]" for every entry of t that has a flag and that head
 * does not already name to buf (holding len bytes), wrapping at 96
 * columns with a 9-space indent; *col is the current column (9 at a
 * fresh line). Returns the new length. */
size_t cli_flag_words(char *buf, size_t n, size_t len, size_t *col,
		      const struct hp_field_table *t, const char *head);

/* --help lines "      --FLAG ARG   help" for every entry of t with a flag. */
void cli_flag_help(FILE *out, const struct hp_field_table *t);

/* Build the one-pool plan the flags describe (--tp and --pp required;
 * --dp defaults to every GPU of the pool). Returns 0, or an exit status
 * after printing the error. */
int cli_uniform_plan(const char *cmd, const struct cli_plan_flags *f, const struct cluster *c,
		     const struct model_spec *m, struct plan *p);

#endif
