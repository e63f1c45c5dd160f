/* plan_flags.h — the plan flags of estimate and launch (ui/plan_flags.c). */
#ifndef HP_PLAN_FLAGS_H
#define HP_PLAN_FLAGS_H

#include <getopt.h>
#include "cluster.h"
#include "model.h"
#include "plan.h"

/* The flags that describe a plan on one pool, shared by estimate and
 * launch: --tp --pp --dp --cp --ep --mbs --gbs --seq-len --precision
 * --recompute --loss --zero --master --schedule --attention --no-sp --on. */
enum { CLI_PF_TP = 400, CLI_PF_PP, CLI_PF_DP, CLI_PF_CP, CLI_PF_EP, CLI_PF_MBS, CLI_PF_GBS,
       CLI_PF_SEQ, CLI_PF_PREC, CLI_PF_RC, CLI_PF_LOSS, CLI_PF_ZERO, CLI_PF_SCHED,
       CLI_PF_ATTN, CLI_PF_NOSP, CLI_PF_ON, CLI_PF_MASTER, CLI_PF_FW, CLI_PF_TPOV,
       CLI_PF_GRADOV, CLI_PF_PARAMOV };
#define CLI_PLAN_FLAG_OPTIONS                                            \
	{ "tp", required_argument, 0, CLI_PF_TP },                       \
	{ "pp", required_argument, 0, CLI_PF_PP },                       \
	{ "dp", required_argument, 0, CLI_PF_DP },                       \
	{ "cp", required_argument, 0, CLI_PF_CP },                       \
	{ "ep", required_argument, 0, CLI_PF_EP },                       \
	{ "mbs", required_argument, 0, CLI_PF_MBS },                     \
	{ "gbs", required_argument, 0, CLI_PF_GBS },                     \
	{ "seq-len", required_argument, 0, CLI_PF_SEQ },                 \
	{ "precision", required_argument, 0, CLI_PF_PREC },              \
	{ "recompute", required_argument, 0, CLI_PF_RC },                \
	{ "loss", required_argument, 0, CLI_PF_LOSS },                   \
	{ "zero", required_argument, 0, CLI_PF_ZERO },                   \
	{ "master", required_argument, 0, CLI_PF_MASTER },               \
	{ "schedule", required_argument, 0, CLI_PF_SCHED },              \
	{ "attention", required_argument, 0, CLI_PF_ATTN },              \
	{ "no-sp", no_argument, 0, CLI_PF_NOSP },                        \
	{ "framework", required_argument, 0, CLI_PF_FW },                \
	{ "tp-overlap", required_argument, 0, CLI_PF_TPOV },             \
	{ "grad-overlap", required_argument, 0, CLI_PF_GRADOV },         \
	{ "param-overlap", required_argument, 0, CLI_PF_PARAMOV },       \
	{ "on", required_argument, 0, CLI_PF_ON }

struct cli_plan_flags {
	int tp, pp, dp, have_mbs;
	const char *on;
};

/* Apply one getopt result to p and f. Returns 1 when opt is a plan flag,
 * 0 when it is not, -1 after printing "hetplan CMD: --flag: expected ..."
 * for a bad value (exit status 2). */
int cli_plan_flag(const char *cmd, int opt, const char *arg, struct plan *p,
		  struct cli_plan_flags *f);

/* Build the one-pool plan the flags describe (--tp and --pp required;
 * --dp defaults to every GPU of the pool). Returns 0, or an exit status
 * after printing the error. */
int cli_uniform_plan(const char *cmd, const struct cli_plan_flags *f, const struct cluster *c,
		     const struct model_spec *m, struct plan *p);

#endif
