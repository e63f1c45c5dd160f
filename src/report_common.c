/* report_common.c — what every report format shares: the parts of the
 * step time and of memory, the accuracy and assumption tables, labels and
 * money formats, the summary facts, price sources, node placement, and the
 * section tables (report_table_*) that Markdown and HTML both render.
 *
 * A report restates the planner's result; it computes nothing the planner
 * did not, except presentation: labels, the best single-pool plan to
 * compare against, and the nodes of each stage, which come from the
 * dispatcher (dispatch.c). Should dispatching fail, an in-order placement
 * stands in: replica groups in order, each replica's stages in order, each
 * stage on the next tp x cp GPUs of its pool without splitting a TP group
 * across nodes. */
#include "report_accuracy.h"
#include "report_priv.h"
#include "dispatch.h"
#include "plan_label.h"
#include "runs_on.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared tables ------------------------------------------------------ */

static const struct report_part time_parts[] = {
	{ "compute", "compute", "compute", "compute", "#3b6ea8", 0,
	  offsetof(struct perf_breakdown, compute), 0 },
	{ "recompute", "recompute", "recompute", "recompute", "#8fb3dc", 1,
	  offsetof(struct perf_breakdown, recompute), 0 },
	{ "tp_comm", "TP comm", "tp", "TP comm", "#e08a3c", 2,
	  offsetof(struct perf_breakdown, tp_comm), 0 },
	{ "pp_comm", "PP p2p", "pp", "PP p2p", "#c8553d", 3,
	  offsetof(struct perf_breakdown, pp_comm), 0 },
	{ "dp_comm", "DP sync", "dp", "DP sync", "#4f9d69", 4,
	  offsetof(struct perf_breakdown, dp_comm), 0 },
	{ "cp_comm", "CP comm", "cp", "CP comm", "#8a6fb5", 5,
	  offsetof(struct perf_breakdown, cp_comm), 0 },
	{ "ep_comm", "EP all-to-all", "ep", "EP a2a", "#9c7a54", 6,
	  offsetof(struct perf_breakdown, ep_comm), 0 },
	{ "bubble", "pipeline bubble", "bubble", "bubble", "#b9bec7", 7,
	  offsetof(struct perf_breakdown, bubble), 0 },
	{ "optimizer", "optimizer", "optimizer", "optimizer", "#d17fb0", 8,
	  offsetof(struct perf_breakdown, optimizer), 0 },
	{ "overhead", "other", "other", "other", "#d8c27a", 9,
	  offsetof(struct perf_breakdown, overhead), 0 },
	/* The exposed time of the plan's offload to the host (plan key
	 * offload): ZeRO-Offload's optimizer step, in place of the GPU's,
	 * or the activation copies' waits (Megatron-Core's cpu offloading):
	 * in every table and bar beside the others, in JSON and the batch
	 * text only when the plan offloads. A terminal slot of its own (10),
	 * not the optimizer's 8: with activation offload the GPU's optimizer
	 * step shows too, and one slot drew both with one glyph and colour */
	{ "offload", "host offload", "offload", "offload", "#7a9e9f", 10,
	  offsetof(struct perf_breakdown, offload), 1 },
};

static const struct report_part mem_parts[] = {
	{ "weights_bytes", "weights", "weights", "weights", "#3b6ea8", 2,
	  offsetof(struct perf_stage, weights), 0 },
	{ "grads_bytes", "gradients", "grads", "grads", "#4f9d69", 3,
	  offsetof(struct perf_stage, grads), 0 },
	{ "optimizer_bytes", "optimizer", "optim", "optimizer", "#e08a3c", 4,
	  offsetof(struct perf_stage, optimizer), 0 },
	{ "activations_bytes", "activations", "acts", "activations", "#8a6fb5", 0,
	  offsetof(struct perf_stage, activations), 0 },
	/* every byte of the total not in the four before it (buffers,
	 * workspaces, the CUDA context), so a stage's parts add up */
	{ "other_bytes", "other", "other", "other", "#b9bec7", 6,
	  offsetof(struct perf_stage, other), 0 },
};

static const char *const pool_colors[] = {
	"#3b6ea8", "#e08a3c", "#4f9d69", "#c8553d", "#8a6fb5", "#9c7a54", "#d17fb0", "#6b8e23",
};

/* The model's accuracy against measured runs. The training figures are
 * written by tools/accuracy_update.py from tests/test_accuracy.c's output
 * into report_accuracy.h, with the README's and docs/accuracy.md's; the
 * collective figures are tests/test_comm_accuracy.c's, and
 * tests/test_report_cli.sh checks that a report states what the README
 * states. */
#define ACC_STR_(x) #x
#define ACC_STR(x) ACC_STR_(x)
static const struct report_accuracy accuracy[] = {
	/* first: the error on runs the model was not fitted to (each source
	 * group held out of the fit and predicted), docs/accuracy.md's
	 * "figure to read"; the in-sample rows after it flatter the model */
	{ "Step time, cross-validated: CONF:high runs of every source group but vTrain's, "
	  "each group left out of the fit and predicted (worst group " ACC_STR(ACC_CV_WORST) "%)", ACC_CV_ROWS, ACC_CV_MAPE, -1,
	  -1, "tests/test_accuracy.c" },
	{ "Step time, in-sample, CONF:high training runs (Megatron-LM, BLOOM, MPT)", ACC_HIGH_ROWS,
	  ACC_HIGH_MEAN, -1, ACC_HIGH_MAX, "tests/test_accuracy.c" },
	{ "Step time, in-sample, other published training runs", ACC_OTHER_ROWS, ACC_OTHER_MEAN,
	  -1, -1, "tests/test_accuracy.c" },
	{ "Peak memory per GPU, measured runs (torchtitan, BLOOM)", ACC_MEM_ROWS, ACC_MEM_MEAN, -1,
	  ACC_MEM_MAX, "tests/test_accuracy.c" },
	{ "Collective bus bandwidth, messages of 64 MiB or more", 56, -1, 5.0, 14.9,
	  "tests/test_comm_accuracy.c" },
	{ "Collective bus bandwidth, 1 to 64 MiB", 23, -1, 8.2, -1,
	  "tests/test_comm_accuracy.c" },
};

static const char *const assumptions[] = {
	"Step time is the performance model's estimate (docs/model.md): GEMMs with wave "
	"quantisation and an HBM roofline, flash attention per kernel class, memory-bound "
	"ops by their bytes, host issue time per kernel, TP/CP/EP communication with the "
	"framework's overlaps, the pipeline bubble, data-parallel sync hidden bucket by "
	"bucket where the framework overlaps it, the optimizer step (under ZeRO-Offload "
	"the host CPU's, as much of it as the GPU waits for), and under activation offload "
	"the copies to and from the host that the compute does not cover.",
	"Memory per GPU counts weights, gradients, optimizer state (sharded by ZeRO or the "
	"distributed optimizer; in host memory under ZeRO-Offload), activations (Korthikanti et al. 2022, with the chosen "
	"recomputation; less the layers activation offload keeps in host memory) with an "
	"allocator allowance, and a fixed per-GPU overhead.",
	"Time to train is tokens to train divided by tokens per second; checkpointing, "
	"evaluation, restarts after failures and data-loading stalls are not included.",
	"Cost is GPU node-hours at the listed price for the whole run; storage, egress, "
	"spot preemption and idle time are not included.",
	"TP overlap is modelled as Megatron-Core does it (sequence parallelism only, per "
	"the plan's framework); EP all-to-alls are partly hidden only where the framework "
	"overlaps them (Megatron-Core with the plan's ep_overlap on: no pipelining or an "
	"interleaved schedule, no full recompute, a 16-bit or fp8 run) and exposed in "
	"full elsewhere.",
	"GEMM tiles and per-layer kernel counts are written-down estimates, not profiles; "
	"clocks are modelled only from board power (a power limit below the rated TDP; "
	"a higher-power part of the same die, as GB300 against GB200, scaled by board "
	"power and SM count) and a part's "
	"measured square-GEMM rate against its generation's reference part.",
	"The accuracy figures of this report hold for GPU generations with measured runs (Volta, "
	"Ampere, Hopper, Blackwell); other generations rest on datasheet figures.",
	"Node numbers are indices within each pool from hetplan's dispatcher: TP groups "
	"inside one node, consecutive stages and data-parallel peers on neighbouring nodes.",
};

const struct report_part *report_time_parts(int *n)
{
	*n = (int)HP_ARRAY_LEN(time_parts);
	return time_parts;
}

const struct report_part *report_mem_parts(int *n)
{
	*n = (int)HP_ARRAY_LEN(mem_parts);
	return mem_parts;
}

double report_part_value(const struct report_part *p, const void *obj)
{
	double v;
	memcpy(&v, (const char *)obj + p->off, sizeof v);
	return v;
}

int report_part_shown(const struct report_part *p, const void *obj)
{
	return !p->omit_zero || report_part_value(p, obj) != 0;
}

const char *report_pool_color(int i)
{
	return pool_colors[(size_t)i % HP_ARRAY_LEN(pool_colors)];
}

const struct report_accuracy *report_accuracy_table(int *n)
{
	*n = (int)HP_ARRAY_LEN(accuracy);
	return accuracy;
}

const char *const *report_assumptions(int *n)
{
	*n = (int)HP_ARRAY_LEN(assumptions);
	return assumptions;
}

/* ---- labels and formats ------------------------------------------------- */

int report_plan_transports(const struct cluster *c, const struct plan *p, struct sbuf *raw)
{
	int used[HP_MAX_POOLS], nt = 0;
	plan_gpus(p, used);
	for (int i = 0; i < c->n_pools; i++)
		if (used[i] && c->pools[i].transport != COMM_TRANSPORT_IB)
			sbuf_addf(raw, "%s%s %s", nt++ ? ", " : "", c->pools[i].name,
				  comm_transport_name(c->pools[i].transport));
	return nt;
}

char *report_fmt_usd(char *buf, size_t n, double v)
{
	if (!(v > 0) || !isfinite(v))
		snprintf(buf, n, "unknown");
	else
		table_usd(buf, n, v, 0);
	return buf;
}

char *report_fmt_rate(char *buf, size_t n, double v)
{
	char r[32];
	if (!(v > 0) || !isfinite(v))
		snprintf(buf, n, "unknown");
	else
		snprintf(buf, n, "$%s", table_rate(r, sizeof r, v, 0));
	return buf;
}

char *report_fmt_time(char *buf, size_t n, time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm);
	return buf;
}

int report_plan_uniform(const struct plan *p, int *tp, int *pp)
{
	*tp = *pp = 0;
	for (int g = 0; g < p->n_replicas; g++) {
		const struct replica *r = &p->replicas[g];
		for (int s = 0; s < r->n_stages; s++)
			if (r->stages[s].tp != r->stages[0].tp)
				return 0;
		if (g && (r->n_stages != *pp || r->stages[0].tp != *tp))
			return 0;
		*tp = r->stages[0].tp;
		*pp = r->n_stages;
	}
	return *tp > 0;
}

void report_plan_label(const struct search_plan *sp, const struct search_result *r,
		       const struct cluster *c, char *buf, size_t n)
{
	if (*sp->label && r) {
		plan_list_label(sp, c, r->plans, NULL, r->n_plans, 0, buf, n);
		return;
	}
	if (*sp->label) {
		plan_label_layout(&sp->plan, c, buf, n);
		return;
	}
	const struct plan *p = &sp->plan;
	int used[HP_MAX_POOLS], tp, pp, npools = 0, last = 0;
	plan_gpus(p, used);
	for (int i = 0; i < c->n_pools; i++)
		if (used[i]) {
			npools++;
			last = i;
		}
	if (npools == 1 && report_plan_uniform(p, &tp, &pp))
		snprintf(buf, n, "%.31s: TP%d PP%d DP%d", c->pools[last].name, tp, pp, plan_dp(p));
	else if (report_plan_uniform(p, &tp, &pp))
		snprintf(buf, n, "mixed: TP%d PP%d DP%d", tp, pp, plan_dp(p));
	else
		snprintf(buf, n, "mixed: %d replica layouts, DP%d", p->n_replicas, plan_dp(p));
}

void report_summarize(const struct report_input *in, struct report_summary *s)
{
	const struct search_result *r = in->res;
	memset(s, 0, sizeof *s);
	s->single_pool = -1;
	if (r->n_plans > 0)
		s->chosen = &r->plans[in->chosen];
	/* Tokens to train: the workload's, or what the planner assumed (its
	 * time to train is tokens / tokens per second). */
	s->tokens = model_train_tokens(in->model, in->opts->tokens);
	/* The single-pool plan to compare against: by the objective's measure
	 * (throughput or time for the speed objectives, cost otherwise). */
	int by_cost = in->opts->objective == OBJ_COST || in->opts->objective == OBJ_DEADLINE;
	for (int i = 0; i < in->cluster->n_pools; i++) {
		if (!r->has_single[i])
			continue;
		const struct search_plan *c = &r->single[i];
		int better;
		if (!s->single)
			better = 1;
		else if (by_cost && c->cost_to_train_usd > 0 && s->single->cost_to_train_usd > 0)
			better = c->cost_to_train_usd < s->single->cost_to_train_usd;
		else
			better = c->est.tokens_per_s > s->single->est.tokens_per_s;
		if (better) {
			s->single = c;
			s->single_pool = i;
		}
	}
	s->all_priced = 1;
	for (int i = 0; i < in->cluster->n_pools; i++)
		if (!pool_price_known(&in->cluster->pools[i]))
			s->all_priced = 0;
}

int report_single_is_chosen(const struct report_summary *s)
{
	return s->chosen && s->single && plan_equal(&s->chosen->plan, &s->single->plan);
}

char *report_memory_text(const struct search_plan *sp, char *buf, size_t n)
{
	/* `hetplan plan`'s detail line, less its "memory: " */
	const struct perf_stage *fs = estimate_fullest_stage(&sp->est);
	double total = fs ? fs->total : 0, cap = fs ? fs->capacity : 0;
	char tb[32], cb[32], fb[32];
	snprintf(buf, n, "%s, fullest stage %s of %s (%.0f%%), %s %s%s", search_plan_verdict(sp),
		 hp_fmt_bytes(tb, sizeof tb, total), hp_fmt_bytes(cb, sizeof cb, cap),
		 cap > 0 ? 100 * total / cap : 0, hp_fmt_bytes(fb, sizeof fb, fabs(cap - total)),
		 cap >= total ? "free" : "over",
		 sp->risky == 2 ? " (over the GPU with the allocator's reserve: risky)"
		 : sp->risky ? " (under the memory headroom: risky)" : "");
	return buf;
}

char *report_runs_on_text(const struct search_plan *sp, char *buf, size_t n)
{
	if (sp->runs_on)
		runs_on_names(sp->runs_on, buf, n);
	else
		snprintf(buf, n, "no stock framework: it needs a heterogeneity-aware runtime");
	return buf;
}

void report_price_parts(const struct pool *p, char *src, size_t ns, char *date, size_t nd)
{
	/* The price book writes "offer; when" (pricing_apply); other sources
	 * (a cluster file, --pool, the catalog reference) carry no date. */
	const char *semi = strrchr(p->price_source, ';');
	if (!*p->price_source) {
		snprintf(src, ns, "-");
		snprintf(date, nd, "not recorded");
	} else if (semi) {
		snprintf(src, ns, "%.*s", (int)(semi - p->price_source), p->price_source);
		const char *d = semi + 1;
		while (*d == ' ')
			d++;
		if (!strcmp(d, "embedded snapshot"))
			snprintf(date, nd, "embedded snapshot, date unknown");
		else
			snprintf(date, nd, "%s", *d ? d : "not recorded");
	} else {
		snprintf(src, ns, "%s", p->price_source);
		snprintf(date, nd, "not recorded");
	}
}

void report_fabric_text(const struct cluster *c, char *buf, size_t n)
{
	int split = 0;
	for (int i = 1; i < c->n_pools; i++)
		split |= !cluster_same_site(c, 0, i);
	if (split)
		snprintf(buf, n, "Fabric: pools on one site share a spine (oversubscription %.2g:1); "
			 "sites are joined by %.0f Gb/s with %.0f us latency.", c->oversub,
			 c->inter_pool_gbps, c->inter_pool_latency_us);
	else
		snprintf(buf, n, "Fabric: all pools share one spine (oversubscription %.2g:1).",
			 c->oversub);
}

/* ---- in-order node placement -------------------------------------------- */

/* Node indices (within its pool) that stage `stage` of replica group
 * `group` occupies over all of the group's replicas, ascending and
 * distinct. Returns a heap array of *n entries (caller frees). */
static int *stage_nodes(const struct plan *p, const struct cluster *c, int group,
			int stage, int *n)
{
	long cursor[HP_MAX_POOLS] = { 0 };
	int cap = 16, *out = xmalloc((size_t)cap * sizeof *out);
	*n = 0;
	for (int g = 0; g <= group && g < p->n_replicas; g++) {
		const struct replica *r = &p->replicas[g];
		for (int k = 0; k < r->count; k++)
			for (int s = 0; s < r->n_stages; s++) {
				const struct stage *st = &r->stages[s];
				int gpn = c->pools[st->pool].gpus_per_node;
				long need = (long)st->tp * p->cp;
				long *cur = &cursor[st->pool];
				if (gpn > 0 && need <= gpn && *cur % gpn + need > gpn)
					*cur += gpn - *cur % gpn;
				long first = gpn > 0 ? *cur / gpn : 0;
				long last = gpn > 0 ? (*cur + need - 1) / gpn : 0;
				*cur += need;
				if (g != group || s != stage)
					continue;
				for (long nd = first; nd <= last; nd++) {
					if (*n && out[*n - 1] >= nd)
						continue;
					if (*n == cap) {
						cap *= 2;
						out = xrealloc(out, (size_t)cap * sizeof *out);
					}
					out[(*n)++] = (int)nd;
				}
			}
	}
	return out;
}

void report_place(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		  struct dispatch *d)
{
	struct hp_err err = { 0 };
	if (dispatch_plan(c, m, p, d, &err) == 0)
		return;
	memset(d, 0, sizeof *d);
	for (int g = 0; g < p->n_replicas; g++)
		d->n_stages += p->replicas[g].n_stages;
	d->st = xcalloc((size_t)d->n_stages, sizeof *d->st);
	int k = 0;
	for (int g = 0; g < p->n_replicas; g++)
		for (int s = 0; s < p->replicas[g].n_stages; s++, k++) {
			struct dispatch_stage *ds = &d->st[k];
			ds->group = g;
			ds->stage = s;
			ds->pool = p->replicas[g].stages[s].pool;
			ds->nodes = stage_nodes(p, c, g, s, &ds->n_nodes);
		}
}


/* 1-based rank of sp in the ranked list, 0 when it is not there. */
int report_plan_rank(const struct search_result *r, const struct search_plan *sp)
{
	for (int i = 0; i < r->n_plans; i++)
		if (&r->plans[i] == sp || plan_equal(&r->plans[i].plan, &sp->plan))
			return i + 1;
	return 0;
}

static void comm_row_fill(struct report_comm_row *r, enum report_comm_kind kind,
			  const char *dim, const struct perf_comm *pc)
{
	int g = kind == REPORT_COMM_GATHER;
	r->kind = kind;
	r->dim = dim;
	snprintf(r->coll, sizeof r->coll, g ? "+ %s" : "%s",
		 comm_coll_name(g ? pc->gather_coll : pc->coll));
	r->pc = pc;
	r->bytes = g ? pc->gather_bytes : pc->bytes;
	r->calls = g ? 1.0 : pc->calls;
	r->time_s = g ? pc->gather_s : pc->time_s;
	r->exposed_s = g ? pc->gather_exposed_s : pc->exposed_s;
	r->algo = g ? pc->gather_algo : pc->algo;
	r->proto = g ? pc->gather_proto : pc->proto;
}

int report_comm_rows(const struct estimate *e, struct report_comm_row *rows)
{
	int n = 0;
	for (int d = 0; d < DIM_COUNT; d++) {
		const struct perf_comm *pc = &e->comm[d];
		const char *dim = perf_dim_name((enum perf_dim)d);
		if (pc->used)
			comm_row_fill(&rows[n++], REPORT_COMM_DIM, dim, pc);
		if (pc->used && pc->gather_s > 0)
			comm_row_fill(&rows[n++], REPORT_COMM_GATHER, "", pc);
		if (d == DIM_PP && e->pp_wan.used)
			comm_row_fill(&rows[n++], REPORT_COMM_WAN, "pp", &e->pp_wan);
	}
	return n;
}

const char *report_comm_note(const struct estimate *e, enum report_comm_kind kind, char *buf,
			     size_t n)
{
	int pp = e->comm[DIM_PP].used;
	if (!n)
		return buf;
	*buf = 0;
	if (kind == REPORT_COMM_WAN)
		snprintf(buf, n, "the %spp row: group %d stage %d's hand-off across the WAN, which "
			 "does not set the step%s", pp ? "second " : "", e->pp_wan_group,
			 e->pp_wan_stage, pp ? "; the first is the pace-setting stage's, the "
					       "breakdown's pp" : "");
	else if (kind == REPORT_COMM_GATHER)
		snprintf(buf, n, "+ %s: the updated parameters gathered back after the "
			 "reduce-scatter (ZeRO-1/2); the dp row's times include it",
			 comm_coll_name(e->comm[DIM_DP].gather_coll));
	return buf;
}
