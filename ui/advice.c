/* advice.c — what would make a plan fit when none does (advice.h). */
#include "advice.h"
#include "framework.h"
#include "perf.h"
#include "plan.h"
#include "sbuf.h"
#include "escape.h"

#include <cjson/cJSON.h>
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(struct nofit_advice *a, const char *fmt, const char *s)
{
	if (a->n < ADVICE_LINES)
		snprintf(a->line[a->n++], ADVICE_LINE_MAX, fmt, s);
}

/* The catalog's GPUs whose usable memory keeps need bytes outside the
 * headroom, smallest memory first, at most 4, as "H200 (141 GB), ..." into buf.
 * Returns how many. */
static int gpus_holding(const struct catalog *cat, double need, double headroom, char *buf,
			size_t n)
{
	int idx[4], k = 0;
	buf[0] = 0;
	if (!cat)
		return 0;
	/* selection of the 4 smallest that hold it (the catalog is ~60 GPUs) */
	for (int pick = 0; pick < 4; pick++) {
		int best = -1;
		for (int i = 0; i < cat->n_gpus; i++) {
			double u = cat->gpus[i].mem_bytes;
			int taken = 0;
			for (int j = 0; j < k; j++)
				taken |= idx[j] == i;
			if (taken || gpu_usable_bytes(&cat->gpus[i]) * (1 - headroom) < need)
				continue;
			if (best < 0 || u < cat->gpus[best].mem_bytes)
				best = i;
		}
		if (best < 0)
			break;
		idx[k++] = best;
	}
	size_t len = 0;
	for (int j = 0; j < k && len < n; j++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s (%.0f GB)", j ? ", " : "",
					cat->gpus[idx[j]].name, cat->gpus[idx[j]].mem_bytes / 1e9);
	return k;
}

void nofit_advice(const struct cluster *c, const struct model_spec *m,
		  const struct search_opts *o, const struct search_result *res,
		  const struct catalog *cat, const char *capacity, struct nofit_advice *a)
{
	memset(a, 0, sizeof *a);
	if (res->n_plans)
		return;
	int memory = !res->has_nearest && res->has_mem_miss;
	if (capacity && *capacity)
		add(a, res->has_nearest ? "to meet the deadline: %s" : "to make a plan fit: %s",
		    capacity);
	if (!memory)
		return;
	const struct search_plan *miss = &res->mem_miss;
	double need = 0, cap = 0;
	search_gpu_mem_state(&miss->est, o->mem_headroom, &need, &cap);
	char line[ADVICE_LINE_MAX], names[240], a_s[32];
	hp_fmt_bytes(a_s, sizeof a_s, need);
	/* More memory per GPU: the same layout on a GPU that holds its
	 * fullest stage (a simplification: the stage's bytes do not depend
	 * on the GPU; its speed and the layouts its nodes allow do). */
	if (gpus_holding(cat, need, o->mem_headroom, names, sizeof names))
		snprintf(line, sizeof line,
			 "or more memory per GPU: the nearest miss's fullest stage needs %s, "
			 "which fits with the %.0f%% headroom on %s", a_s,
			 100 * o->mem_headroom, names);
	else
		snprintf(line, sizeof line,
			 "no GPU %sholds the nearest miss's fullest stage (%s) with the %.0f%% "
			 "headroom: more GPUs are the way", cat ? "of the catalog " : "", a_s,
			 100 * o->mem_headroom);
	add(a, "%s", line);
	/* What the user fixed keeps the search from the settings that hold
	 * the least per GPU (ZeRO-3, full recompute, its own TP/PP/mbs). */
	char fixed[200] = "";
	size_t len = 0;
#define FIXED(...) (len += (size_t)snprintf(fixed + len, len < sizeof fixed ? sizeof fixed - len : 0, \
					   __VA_ARGS__))
	if (o->fix_zero >= 0 && o->fix_zero < 3)
		FIXED("%sZeRO %d (--zero)", len ? ", " : "", o->fix_zero);
	if (o->fix_recompute >= 0 && o->fix_recompute != RC_FULL)
		FIXED("%srecompute %s (--recompute)", len ? ", " : "",
		      plan_recompute_name((enum hp_recompute)o->fix_recompute));
	if (o->fix_tp)
		FIXED("%sTP %d (--tp)", len ? ", " : "", o->fix_tp);
	if (o->fix_pp)
		FIXED("%sPP %d (--pp)", len ? ", " : "", o->fix_pp);
	if (o->fix_mbs > 1)
		FIXED("%smicro-batch %d (--mbs)", len ? ", " : "", o->fix_mbs);
#undef FIXED
	if (len) {
		snprintf(line, sizeof line,
			 "or leave free what was fixed: %s; the search then tries every "
			 "value (ZeRO-3 and full recompute hold the least per GPU)", fixed);
		add(a, "%s", line);
	}
	/* Offload: one estimate of the miss with its optimizer state in host
	 * memory, DeepSpeed's ZeRO-Offload (the one hetplan models; the
	 * planner does not search offload), unless another framework was
	 * asked for. */
	struct plan p = miss->plan;
	struct hp_err err = { 0 };
	struct estimate e;
	memset(&e, 0, sizeof e);
	p.offload = OFFLOAD_OPTIMIZER;
	p.offload_layers = 0;
	p.framework = FW_DEEPSPEED;
	if ((o->framework == FW_ANY || o->framework == FW_DEEPSPEED) &&
	    plan_validate(&p, c, m, "advice", &err) == 0 &&
	    perf_estimate(c, m, &p, NULL, &e, &err) == 0) {
		double need2 = 0;
		if (search_mem_state(&e, o->mem_headroom, &need2, NULL) == MEM_FITS) {
			char b[32], h[32];
			snprintf(line, sizeof line,
				 "or offload the optimizer state to host memory (DeepSpeed "
				 "ZeRO-Offload; the planner does not search it): the nearest miss "
				 "then needs %s on its fullest stage and %s of host memory a GPU "
				 "(hetplan estimate with its layout, --framework deepspeed "
				 "--offload optimizer)",
				 hp_fmt_bytes(b, sizeof b, need2),
				 hp_fmt_bytes(h, sizeof h, e.offload.host_bytes_per_gpu));
			add(a, "%s", line);
		}
		estimate_free(&e);
	}
	(void)cap;
}

int nofit_advice_run(const struct cluster *c, const struct model_spec *m,
		     const struct search_opts *o, const struct search_result *res,
		     const struct catalog *cat, double tokens, int *add_nodes, char *text,
		     size_t n, struct nofit_advice *a)
{
	int got = 0;
	int deadline_miss = o->deadline_s > 0 && res->has_nearest && o->objective == OBJ_DEADLINE;
	int memory_miss = !res->has_nearest && res->has_mem_miss;
	text[0] = 0;
	memset(a, 0, sizeof *a);
	if (res->stats.cancelled || res->n_plans)
		return 0;
	if (deadline_miss || memory_miss) {
		struct search_opts co = *o;
		co.tokens = tokens;
		co.progress = NULL;   /* o's cancel flag stays: an edit stops it */
		if (memory_miss)
			co.deadline_s = 0;   /* what makes a plan fit at all */
		got = search_capacity_answer(c, m, &co, res, add_nodes, text, n);
	}
	/* text without an answer: what the capacity search tried in vain */
	nofit_advice(c, m, o, res, cat, got || text[0] ? text : NULL, a);
	return got;
}

static void extra_md(struct sbuf *b, const void *ctx)
{
	const struct advice_extra *x = ctx;
	sbuf_add(b, "## What would make a plan fit\n\n");
	for (int i = 0; i < x->a->n; i++) {
		sbuf_add(b, "- ");
		sbuf_add_md(b, x->a->line[i]);
		sbuf_add(b, "\n");
	}
	sbuf_add(b, "\n");
	if (x->next)
		x->next->md(b, x->next->ctx);
}

static void extra_html(struct sbuf *b, const void *ctx)
{
	const struct advice_extra *x = ctx;
	sbuf_add(b, "<section><h2>What would make a plan fit</h2><ul>\n");
	for (int i = 0; i < x->a->n; i++) {
		sbuf_add(b, "<li>");
		sbuf_add_html(b, x->a->line[i]);
		sbuf_add(b, "</li>\n");
	}
	sbuf_add(b, "</ul></section>\n");
	if (x->next)
		x->next->html(b, x->next->ctx);
}

static cJSON *extra_json(const void *ctx)
{
	const struct advice_extra *x = ctx;
	if (x->next)
		return x->next->json(x->next->ctx);
	cJSON *arr = cJSON_CreateArray();
	for (int i = 0; i < x->a->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(x->a->line[i]));
	return arr;
}

static void extra_csv(struct sbuf *b, const void *ctx)
{
	const struct advice_extra *x = ctx;
	for (int i = 0; i < x->a->n; i++) {
		sbuf_add(b, "advice,");
		sbuf_add_csv(b, x->a->line[i]);
		sbuf_add(b, "\n");
	}
	if (x->next && x->next->csv) {
		sbuf_add(b, "\n");
		x->next->csv(b, x->next->ctx);
	}
}

const struct report_extra *nofit_advice_extra(struct advice_extra *x, const struct nofit_advice *a,
					      const struct report_extra *next)
{
	if (!a->n)
		return next;
	x->a = a;
	x->next = next;
	x->extra = (struct report_extra){ .md = extra_md, .html = extra_html, .json = extra_json,
					  .json_key = next ? next->json_key : "advice", .ctx = x,
					  .csv = extra_csv };
	return &x->extra;
}
