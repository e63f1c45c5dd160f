/* plan_flags.c — the flags that describe a plan on one pool (--tp, --pp,
 * --mbs, --precision, ...), shared by estimate and launch. */
#include "plan_flags.h"
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int plan_flag_bad(const char *cmd, const char *flag, const char *want, const char *got)
{
	usage_error(cmd, flag, want, got);
	return -1;
}

int cli_plan_flag(const char *cmd, int opt, const char *arg, struct plan *p,
		  struct cli_plan_flags *f)
{
	int v = 0, *dst = NULL, max = 0;
	const char *name = NULL;
	/* The same ranges as the plan file's keys (plan.c) and the man page;
	 * TP, PP and DP are bounded by HP_MAX_GPUS in any cluster. */
	switch (opt) {
	case CLI_PF_TP: dst = &f->tp; name = "tp"; max = HP_MAX_GPUS; break;
	case CLI_PF_PP: dst = &f->pp; name = "pp"; max = HP_MAX_GPUS; break;
	case CLI_PF_DP: dst = &f->dp; name = "dp"; max = HP_MAX_GPUS; break;
	case CLI_PF_CP: dst = &p->cp; name = "cp"; max = 1024; break;
	case CLI_PF_EP: dst = &p->ep; name = "ep"; max = 4096; break;
	case CLI_PF_MBS: dst = &p->mbs; name = "mbs"; max = 1000000; f->have_mbs = 1; break;
	case CLI_PF_GBS: dst = &p->gbs; name = "gbs"; max = 100000000; break;
	case CLI_PF_SEQ: dst = &p->seq_len; name = "seq-len"; max = 100000000; break;
	case CLI_PF_ZERO:
		if ((hp_parse_int(arg, &v) && strcmp(arg, "0")) || v > 3)
			return plan_flag_bad(cmd, "zero", "0, 1, 2 or 3", arg);
		p->zero = strcmp(arg, "0") ? v : 0;
		return 1;
	case CLI_PF_PREC:
		if (hp_dtype_parse(arg, &p->precision))
			return plan_flag_bad(cmd, "precision", "fp32, tf32, bf16, fp16 or fp8", arg);
		return 1;
	case CLI_PF_RC:
		if (plan_recompute_parse(arg, &p->recompute))
			return plan_flag_bad(cmd, "recompute", "none, selective, full or selective-op",
					     arg);
		return 1;
	case CLI_PF_LOSS:
		if (plan_loss_parse(arg, &p->loss))
			return plan_flag_bad(cmd, "loss", "fused or eager", arg);
		return 1;
	case CLI_PF_MASTER:
		if (plan_master_parse(arg, &p->master))
			return plan_flag_bad(cmd, "master", "sharded or replicated", arg);
		return 1;
	case CLI_PF_SCHED:
		if (plan_schedule_parse(arg, &p->schedule, &p->vpp))
			return plan_flag_bad(cmd, "schedule", "1f1b or interleaved:V (V from 2 to 64)",
					     arg);
		return 1;
	case CLI_PF_ATTN:
		if (strcmp(arg, "flash") && strcmp(arg, "unfused"))
			return plan_flag_bad(cmd, "attention", "flash or unfused", arg);
		p->flash = !strcmp(arg, "flash");
		return 1;
	case CLI_PF_NOSP: p->sp = 0; return 1;
	case CLI_PF_ON: f->on = arg; return 1;
	case CLI_PF_FW:
		if (framework_parse(arg, &p->framework))
			return plan_flag_bad(cmd, "framework", framework_list(), arg);
		return 1;
	case CLI_PF_TPOV:
	case CLI_PF_GRADOV:
	case CLI_PF_PARAMOV: {
		static const char *const names[] = { "tp-overlap", "grad-overlap", "param-overlap" };
		int *dst3[] = { &p->tp_overlap, &p->grad_overlap, &p->param_overlap };
		int i = opt - CLI_PF_TPOV;
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return plan_flag_bad(cmd, names[i], "on or off", arg);
		*dst3[i] = !strcmp(arg, "on");
		return 1;
	}
	default: return 0;
	}
	if (hp_parse_int(arg, &v))
		return plan_flag_bad(cmd, name, "a positive integer", arg);
	if (v > max) {
		char want[48];
		snprintf(want, sizeof want, "an integer from 1 to %d", max);
		return plan_flag_bad(cmd, name, want, arg);
	}
	*dst = v;
	return 1;
}

int cli_uniform_plan(const char *cmd, const struct cli_plan_flags *f, const struct cluster *c,
		     const struct model_spec *m, struct plan *p)
{
	struct hp_err err = { 0 };
	if (!f->tp || !f->pp) {
		fprintf(stderr, "hetplan %s: --tp and --pp are required (or --plan FILE)\n", cmd);
		return HP_EXIT_USAGE;
	}
	if (!f->have_mbs || !p->gbs) {
		fprintf(stderr, "hetplan %s: --mbs and --gbs are required\n", cmd);
		return HP_EXIT_USAGE;
	}
	int pool = 0, dp = f->dp;
	if (f->on && (pool = cluster_pool_index(c, f->on)) < 0) {
		fprintf(stderr, "hetplan %s: --on: no pool named '%s'\n", cmd, f->on);
		return HP_EXIT_INPUT;
	}
	if (!dp) {
		int have = c->pools[pool].nodes * c->pools[pool].gpus_per_node;
		dp = have / (f->tp * f->pp * p->cp);
		if (dp < 1) {
			fprintf(stderr, "hetplan %s: tp %d x pp %d x cp %d = %d GPUs; pool '%s' has %d\n",
				cmd, f->tp, f->pp, p->cp, f->tp * f->pp * p->cp, c->pools[pool].name,
				have);
			return HP_EXIT_INPUT;
		}
	}
	if (plan_uniform(p, c, m, pool, f->tp, f->pp, dp, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	return 0;
}

