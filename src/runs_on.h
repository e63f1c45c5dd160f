/* runs_on.h — which stock training frameworks run a plan as one job.
 *
 * A framework runs a plan "as one job" when one launch of its unmodified
 * code, with its own flags or config keys, reproduces the plan: the same
 * parallel degrees, layer split, ZeRO level, schedule and recomputation.
 * Heterogeneous plans (several GPU types, unequal batch shares, replicas of
 * different layouts, mixed TP degrees) run on none of them; they need a
 * heterogeneity-aware runtime. Each rule and its source is in runs_on.c. */
#ifndef HP_RUNS_ON_H
#define HP_RUNS_ON_H

#include "plan.h"

#include <stddef.h>

/* Every framework row's bit (1u << FW_x, FW_ANY excluded), the
 * estimate-only rows' too (framework.h), and the launchable ones' only:
 * the stock frameworks hetplan writes launch configs for. */
#define RUNS_ON_ALL (((1u << FW_ROWS) - 1) & ~1u)
#define RUNS_ON_STOCK (((1u << FW_COUNT) - 1) & ~1u)

/* The frameworks that run p on c as one job, as a mask of 1u << FW_x
 * (never FW_ANY's bit), estimate-only rows included: the planner's
 * --framework filter reads their bits. Every plan an estimate-only row
 * runs, megatron-core runs too (their rules are stricter; test_runs_on.c
 * checks it), so `mask & RUNS_ON_STOCK` is 0 only when the mask is.
 * why (n bytes, may be NULL) receives the reasons the stock frameworks
 * cannot, one clause per framework or one for all, "" when every stock
 * framework runs it; the estimate-only rows' reasons are not listed
 * (runs_on_why_row gives one). The plan's own `framework` and overlap
 * keys are ignored (this is what could run it; a framework without an
 * overlap switch runs with its own default); its compile and
 * optimizer_impl keys are read (compile on: torchtitan only). Never
 * fails. */
unsigned runs_on_mask(const struct plan *p, const struct cluster *c, char *why, size_t n);

/* 1 when some runtime runs p on c as planned: a stock framework runs
 * it (runs_on_mask & RUNS_ON_STOCK), or only the rules every framework
 * shares refuse it (several GPU types, replicas of different layouts,
 * uneven batch shares: "needs a heterogeneity-aware runtime") and a
 * stock framework's other rules take its settings, which hetplan launch
 * then writes per piece. 0 when every stock framework refuses it for
 * its own reasons (flash attention on a V100 with ZeRO-1: Megatron and
 * DeepSpeed need Ampere for their fused attention, torchtitan has no
 * ZeRO-1): nothing runs it as estimated, and the planner under
 * framework "any" does not offer it (search_combo.c). Rules that read
 * one replica read the first (as runs_on_mask). Never fails. */
int runs_on_runnable(const struct plan *p, const struct cluster *c);

/* The framework a plan with this mask is best given: Megatron-Core first
 * (hetplan's default estimates are Megatron-Core's), then torchtitan,
 * DeepSpeed, Megatron-LM; FW_ANY for an empty mask. */
enum hp_framework runs_on_pick(unsigned mask);

/* Why framework f (a concrete row, estimate-only ones included) cannot
 * run p on c as one job, into why (n bytes): "" when it can. Never
 * fails. */
void runs_on_why_row(const struct plan *p, const struct cluster *c, enum hp_framework f,
		     char *why, size_t n);

/* The stock frameworks of mask, "megatron-core, torchtitan", or "none",
 * into buf (n bytes, truncated to fit, always NUL-terminated); the
 * estimate-only rows' bits are not named (RUNS ON lists what `hetplan
 * launch` can write). Returns buf. Never fails. */
char *runs_on_names(unsigned mask, char *buf, size_t n);

/* Whether framework f runs ZeRO stage `zero` (the estimate-only rows'
 * optimizers: apex DDP keeps every state, ZeRO 0; InternLM's Hybrid Zero
 * shards the optimizer only, 0 or 1; the stock rows: every stage, their
 * other rules apart). The planner tries only these. */
int runs_on_zero_ok(enum hp_framework f, int zero);

/* 1 when replicas a and b have the same pipeline layout: as many stages,
 * each with the same TP degree and layer range (pools may differ); else
 * 0. Stock data parallelism needs it of every replica. Never fails. */
int runs_on_same_layout(const struct replica *a, const struct replica *b);

/* Short form for tables: "mcore+titan", "none"; as runs_on_names. */
char *runs_on_short(unsigned mask, char *buf, size_t n);

#endif
