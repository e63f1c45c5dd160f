/* report.c — plan reports in Markdown, JSON and CSV, and what every format
 * shares (report_html.c draws the HTML page; see report.h for the formats).
 *
 * A report restates the planner's result; it computes nothing the planner
 * did not, except presentation: labels, the best single-pool plan to
 * compare against, and the nodes of each stage, which come from the
 * dispatcher (dispatch.c). Should dispatching fail, an in-order placement
 * stands in: replica groups in order, each replica's stages in order, each
 * stage on the next tp x cp GPUs of its pool without splitting a TP group
 * across nodes. */
#include "report_priv.h"
#include "escape.h"
#include "dispatch.h"
#include "jsonx.h"
#include "workspace.h"
#include "runs_on.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared tables ------------------------------------------------------ */

static const struct report_part time_parts[] = {
	{ "compute", "compute", "#3b6ea8", offsetof(struct perf_breakdown, compute) },
	{ "recompute", "recompute", "#8fb3dc", offsetof(struct perf_breakdown, recompute) },
	{ "tp_comm", "TP comm", "#e08a3c", offsetof(struct perf_breakdown, tp_comm) },
	{ "pp_comm", "PP p2p", "#c8553d", offsetof(struct perf_breakdown, pp_comm) },
	{ "dp_comm", "DP sync", "#4f9d69", offsetof(struct perf_breakdown, dp_comm) },
	{ "cp_comm", "CP comm", "#8a6fb5", offsetof(struct perf_breakdown, cp_comm) },
	{ "ep_comm", "EP all-to-all", "#9c7a54", offsetof(struct perf_breakdown, ep_comm) },
	{ "bubble", "pipeline bubble", "#b9bec7", offsetof(struct perf_breakdown, bubble) },
	{ "optimizer", "optimizer", "#d17fb0", offsetof(struct perf_breakdown, optimizer) },
	{ "overhead", "other", "#d8c27a", offsetof(struct perf_breakdown, overhead) },
};

static const struct report_part mem_parts[] = {
	{ "weights_bytes", "weights", "#3b6ea8", offsetof(struct perf_stage, weights) },
	{ "grads_bytes", "gradients", "#4f9d69", offsetof(struct perf_stage, grads) },
	{ "optimizer_bytes", "optimizer", "#e08a3c", offsetof(struct perf_stage, optimizer) },
	{ "activations_bytes", "activations", "#8a6fb5", offsetof(struct perf_stage, activations) },
	{ "other_bytes", "other", "#b9bec7", offsetof(struct perf_stage, other) },
};

static const char *const pool_colors[] = {
	"#3b6ea8", "#e08a3c", "#4f9d69", "#c8553d", "#8a6fb5", "#9c7a54", "#d17fb0", "#6b8e23",
};

/* The model's accuracy against measured runs. These are the figures of the
 * README's "Accuracy" section; tests/test_accuracy.c (training step time)
 * and tests/test_comm_accuracy.c (collectives) measure them, and
 * tests/test_report_cli.sh checks that a report states what the README
 * states. When the model is refitted and the README's tables regenerated,
 * copy the new figures here. */
static const struct report_accuracy accuracy[] = {
	{ "Step time, CONF:high training runs (Megatron-LM, BLOOM, MPT)", 28, 6.6, -1, 21.8,
	  "tests/test_accuracy.c" },
	{ "Step time, other published training runs", 37, 14.4, -1, -1,
	  "tests/test_accuracy.c" },
	{ "Peak memory per GPU, measured runs (torchtitan, BLOOM)", 10, 6.1, -1, 14.0,
	  "tests/test_accuracy.c" },
	{ "Collective bus bandwidth, messages of 64 MiB or more", 56, -1, 5.4, 14.9,
	  "tests/test_comm_accuracy.c" },
	{ "Collective bus bandwidth, 1 to 64 MiB", 23, -1, 8.8, -1,
	  "tests/test_comm_accuracy.c" },
};

static const char *const assumptions[] = {
	"Step time is the performance model's estimate (docs/model.md): GEMMs with wave "
	"quantisation and an HBM roofline, flash attention per kernel class, memory-bound "
	"ops by their bytes, host issue time per kernel, TP/CP/EP communication with the "
	"framework's overlaps, the pipeline bubble, data-parallel sync hidden bucket by "
	"bucket where the framework overlaps it, and the optimizer step.",
	"Memory per GPU counts weights, gradients, optimizer state (sharded by ZeRO or the "
	"distributed optimizer), activations (Korthikanti et al. 2022, with the chosen "
	"recomputation) with an allocator allowance, and a fixed per-GPU overhead.",
	"Time to train is tokens to train divided by tokens per second; checkpointing, "
	"evaluation, restarts after failures and data-loading stalls are not included.",
	"Cost is GPU node-hours at the listed price for the whole run; storage, egress, "
	"spot preemption and idle time are not included.",
	"TP overlap is modelled as Megatron-Core does it (sequence parallelism only, per "
	"the plan's framework); EP all-to-alls are never overlapped.",
	"GEMM tiles and per-layer kernel counts are written-down estimates, not profiles; "
	"there is no power or clock model.",
	"The accuracy figures below hold for GPU generations with measured runs (Volta, "
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

/* ---- names and formats -------------------------------------------------- */

static const char *const format_names[] = { "md", "html", "json", "csv" };

const char *report_format_name(enum report_format f)
{
	return format_names[f];
}

int report_format_parse(const char *s, enum report_format *f)
{
	for (int i = 0; i < REPORT_FORMAT_COUNT; i++)
		if (hp_strieq(s, format_names[i])) {
			*f = (enum report_format)i;
			return 0;
		}
	if (hp_strieq(s, "markdown")) {
		*f = REPORT_MD;
		return 0;
	}
	return -1;
}

int report_format_from_path(const char *path, enum report_format *f)
{
	static const struct { const char *ext; enum report_format f; } ext[] = {
		{ ".md", REPORT_MD }, { ".markdown", REPORT_MD }, { ".html", REPORT_HTML },
		{ ".htm", REPORT_HTML }, { ".json", REPORT_JSON }, { ".csv", REPORT_CSV },
	};
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		return -1;
	for (size_t i = 0; i < HP_ARRAY_LEN(ext); i++)
		if (hp_strieq(dot, ext[i].ext)) {
			*f = ext[i].f;
			return 0;
		}
	return -1;
}

char *report_fmt_usd(char *buf, size_t n, double v)
{
	if (!(v > 0) || !isfinite(v))
		snprintf(buf, n, "unknown");
	else if (v >= 1e6)
		snprintf(buf, n, "$%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, n, "$%.1fk", v / 1e3);
	else
		snprintf(buf, n, "$%.2f", v);
	return buf;
}

char *report_fmt_time(char *buf, size_t n, time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm);
	return buf;
}

static void fmt_iso_time(char *buf, size_t n, time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
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

void report_plan_label(const struct search_plan *sp, const struct cluster *c,
		       char *buf, size_t n)
{
	if (*sp->label) {
		snprintf(buf, n, "%s", sp->label);
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
	s->tokens = in->opts->tokens;
	if (!(s->tokens > 0) && s->chosen)
		s->tokens = s->chosen->time_to_train_s * s->chosen->est.tokens_per_s;
	if (!(s->tokens > 0))
		s->tokens = 1e12;
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
		if (!(in->cluster->pools[i].usd_per_node_h > 0))
			s->all_priced = 0;
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

/* ---- JSON ---------------------------------------------------------------- */

static cJSON *num_or_null(double v, int known)
{
	return known && isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* The estimate's breakdown, memory per stage and communication per
 * dimension, under the keys of `hetplan estimate --format json`; shared by
 * the plan entries, the estimate command and the TUI's export. */
void report_estimate_json_parts(cJSON *o, const struct estimate *e, const struct cluster *c)
{
	/* The replica group whose pipeline sets the step: the breakdown and
	 * the comm table's tp/cp/ep/pp rows describe it (dp: the stage with
	 * the most exposed synchronisation). */
	cJSON_AddNumberToObject(o, "breakdown_group", e->slowest_group);
	cJSON *bd = cJSON_AddObjectToObject(o, "breakdown_s");
	for (size_t i = 0; i < HP_ARRAY_LEN(time_parts); i++)
		cJSON_AddNumberToObject(bd, time_parts[i].key,
					report_part_value(&time_parts[i], &e->bd));
	cJSON *mem = cJSON_AddArrayToObject(o, "memory");
	for (int i = 0; i < e->n_stages; i++) {
		const struct perf_stage *s = &e->stages[i];
		cJSON *so = cJSON_CreateObject();
		cJSON_AddNumberToObject(so, "replica_group", s->group);
		cJSON_AddNumberToObject(so, "stage", s->index);
		cJSON_AddStringToObject(so, "pool", c->pools[s->pool].name);
		cJSON_AddStringToObject(so, "gpu", c->pools[s->pool].gpu.name);
		cJSON_AddNumberToObject(so, "tp", s->tp);
		cJSON_AddNumberToObject(so, "first_layer", s->first_layer);
		cJSON_AddNumberToObject(so, "last_layer", s->last_layer);
		for (size_t k = 0; k < HP_ARRAY_LEN(mem_parts); k++)
			cJSON_AddNumberToObject(so, mem_parts[k].key,
						report_part_value(&mem_parts[k], s));
		cJSON_AddNumberToObject(so, "total_bytes", s->total);
		cJSON_AddNumberToObject(so, "capacity_bytes", s->capacity);
		cJSON_AddBoolToObject(so, "fits", s->fits);
		cJSON_AddNumberToObject(so, "time_per_microbatch_s", s->t_total);
		cJSON_AddItemToArray(mem, so);
	}
	cJSON *cm = cJSON_AddArrayToObject(o, "comm");
	for (int d = 0; d < DIM_COUNT; d++) {
		const struct perf_comm *pc = &e->comm[d];
		if (!pc->used)
			continue;
		cJSON *co = cJSON_CreateObject();
		cJSON_AddStringToObject(co, "dim", perf_dim_name((enum perf_dim)d));
		cJSON_AddStringToObject(co, "collective", comm_coll_name(pc->coll));
		cJSON_AddNumberToObject(co, "bytes", pc->bytes);
		cJSON_AddNumberToObject(co, "calls_per_step", pc->calls);
		cJSON_AddNumberToObject(co, "group", pc->group);
		cJSON_AddNumberToObject(co, "group_nodes", pc->group_nodes);
		cJSON_AddStringToObject(co, "link", pc->link);
		cJSON_AddStringToObject(co, "algorithm", comm_algo_name(pc->algo));
		cJSON_AddStringToObject(co, "protocol", comm_proto_name(pc->proto));
		cJSON_AddNumberToObject(co, "time_s", pc->time_s);
		cJSON_AddNumberToObject(co, "exposed_s", pc->exposed_s);
		cJSON_AddItemToArray(cm, co);
	}
}

cJSON *report_plan_json(const struct search_plan *sp, int rank, const struct cluster *c,
			const struct model_spec *m)
{
	const struct estimate *e = &sp->est;
	const struct plan *p = &sp->plan;
	cJSON *o = cJSON_CreateObject();
	char label[96];
	report_plan_label(sp, c, label, sizeof label);
	cJSON_AddItemToObject(o, "rank", rank > 0 ? cJSON_CreateNumber(rank) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "label", label);
	cJSON_AddNumberToObject(o, "step_time_s", e->step_time_s);
	cJSON_AddNumberToObject(o, "tokens_per_s", e->tokens_per_s);
	cJSON_AddNumberToObject(o, "mfu", e->mfu);
	cJSON_AddNumberToObject(o, "hfu", e->hfu);
	cJSON_AddItemToObject(o, "usd_per_hour", num_or_null(e->usd_per_hour, e->price_known));
	cJSON_AddNumberToObject(o, "time_to_train_s", sp->time_to_train_s);
	cJSON_AddItemToObject(o, "cost_to_train_usd",
			      num_or_null(sp->cost_to_train_usd,
					  e->price_known && sp->cost_to_train_usd > 0));
	cJSON *gu = cJSON_AddObjectToObject(o, "gpus_used");
	int used[HP_MAX_POOLS];
	plan_gpus(p, used);
	for (int i = 0; i < c->n_pools; i++)
		if (used[i])
			cJSON_AddNumberToObject(gu, c->pools[i].name, used[i]);

	/* The plan itself, in the estimate --plan schema, with node lists. */
	struct dispatch pl;
	report_place(c, m, p, &pl);
	cJSON *pj = plan_to_json(p, c);
	cJSON *reps = cJSON_GetObjectItemCaseSensitive(pj, "replicas");
	int ks = 0;
	for (int g = 0; g < p->n_replicas; g++) {
		cJSON *sts = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(reps, g), "stages");
		for (int s = 0; s < p->replicas[g].n_stages && ks < pl.n_stages; s++, ks++)
			cJSON_AddItemToObject(cJSON_GetArrayItem(sts, s), "nodes",
					      cJSON_CreateIntArray(pl.st[ks].nodes, pl.st[ks].n_nodes));
	}
	while (pj->child) {
		cJSON *item = cJSON_DetachItemViaPointer(pj, pj->child);
		cJSON_AddItemToObject(o, item->string, item);
	}
	cJSON_Delete(pj);
	cJSON *links = cJSON_AddObjectToObject(o, "links");
	for (int i = 0; i < DIM_COUNT; i++)
		if (pl.links[i][0])
			cJSON_AddStringToObject(links, perf_dim_name((enum perf_dim)i), pl.links[i]);
	dispatch_free(&pl);

	report_estimate_json_parts(o, e, c);
	cJSON *op = cJSON_AddObjectToObject(o, "optimality");
	cJSON_AddStringToObject(op, "status", search_optimality_name(sp->optimality));
	if (sp->optimality != OPTIMAL_HEURISTIC)
		cJSON_AddNumberToObject(op, "gap", sp->gap);
	cJSON_AddBoolToObject(o, "pareto", sp->pareto);
	/* which stock frameworks run it as one job (runs_on.h), and the
	 * memory verdict under the planner's headroom */
	cJSON *ro = cJSON_AddArrayToObject(o, "runs_on");
	for (int f = 1; f < FW_COUNT; f++)
		if (sp->runs_on & (1u << f))
			cJSON_AddItemToArray(ro, cJSON_CreateString(framework_name((enum hp_framework)f)));
	cJSON_AddStringToObject(o, "runs_on_why", sp->runs_on_why);
	cJSON_AddStringToObject(o, "memory_verdict", sp->est.fits ? sp->risky ? "fits-with-risk" : "fits"
							 : "does-not-fit");
	cJSON_AddNumberToObject(o, "mem_need_bytes", sp->mem_need_bytes);
	cJSON_AddNumberToObject(o, "mem_capacity_bytes", sp->mem_capacity_bytes);
	return o;
}

void report_plan_strip_extras(cJSON *entry)
{
	static const char *const extras[] = { "runs_on", "runs_on_why", "memory_verdict",
					      "mem_need_bytes", "mem_capacity_bytes" };
	if (!cJSON_IsObject(entry))
		return;
	for (size_t i = 0; i < HP_ARRAY_LEN(extras); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(entry, extras[i]);
}

/* 1-based rank of sp in the ranked list, 0 when it is not there. */
static int rank_of(const struct search_result *r, const struct search_plan *sp)
{
	for (int i = 0; i < r->n_plans; i++)
		if (&r->plans[i] == sp || plan_equal(&r->plans[i].plan, &sp->plan))
			return i + 1;
	return 0;
}

static void pct_or_null(cJSON *o, const char *key, double v)
{
	cJSON_AddItemToObject(o, key, v >= 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static char *render_json(const struct report_input *in, const struct report_summary *sum)
{
	const struct cluster *c = in->cluster;
	const struct search_opts *op = in->opts;
	const struct search_result *r = in->res;
	char t[40];
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "schema_version", REPORT_SCHEMA_VERSION);
	cJSON *gen = cJSON_AddObjectToObject(o, "generator");
	cJSON_AddStringToObject(gen, "name", "hetplan");
	cJSON_AddStringToObject(gen, "version", in->version ? in->version : "");
	fmt_iso_time(t, sizeof t, in->generated);
	cJSON_AddStringToObject(o, "generated_at", t);

	cJSON *inp = cJSON_AddObjectToObject(o, "inputs");
	cJSON_AddItemToObject(inp, "cluster", cluster_to_json(c));
	cJSON_AddItemToObject(inp, "model", model_to_json(in->model));
	cJSON *w = cJSON_AddObjectToObject(inp, "workload");
	cJSON_AddNumberToObject(w, "gbs", op->gbs);
	cJSON_AddNumberToObject(w, "seq_len", op->seq_len ? op->seq_len : in->model->seq_len);
	cJSON_AddNumberToObject(w, "tokens", sum->tokens);
	cJSON_AddStringToObject(w, "precision", hp_dtype_name(op->precision));
	cJSON_AddStringToObject(w, "objective", search_objective_name(op->objective));
	cJSON_AddNumberToObject(w, "deadline_s", op->deadline_s);
	cJSON_AddNumberToObject(w, "budget_usd", op->budget_usd);
	cJSON_AddNumberToObject(w, "top", op->top_k);
	cJSON *pr = cJSON_AddArrayToObject(inp, "prices");
	for (int i = 0; i < c->n_pools; i++) {
		const struct pool *p = &c->pools[i];
		cJSON *po = cJSON_CreateObject();
		int known = p->usd_per_node_h > 0;
		cJSON_AddStringToObject(po, "pool", p->name);
		cJSON_AddStringToObject(po, "gpu", p->gpu.name);
		cJSON_AddItemToObject(po, "usd_per_node_hour", num_or_null(p->usd_per_node_h, known));
		cJSON_AddItemToObject(po, "usd_per_gpu_hour",
				      num_or_null(p->usd_per_node_h / HP_MAX(p->gpus_per_node, 1),
						  known));
		char src[128], date[96];
		report_price_parts(p, src, sizeof src, date, sizeof date);
		cJSON_AddStringToObject(po, "source", src);
		if (strcmp(date, "not recorded"))
			cJSON_AddStringToObject(po, "date", date);
		else
			cJSON_AddNullToObject(po, "date");
		cJSON_AddItemToArray(pr, po);
	}

	cJSON_AddItemToObject(o, "chosen", sum->chosen ? cJSON_CreateNumber(in->chosen + 1)
						       : cJSON_CreateNull());
	cJSON *plans = cJSON_AddArrayToObject(o, "plans");
	for (int i = 0; i < r->n_plans; i++)
		cJSON_AddItemToArray(plans, report_plan_json(&r->plans[i], i + 1, c, in->model));
	cJSON *par = cJSON_AddArrayToObject(o, "pareto");
	for (int i = 0; i < r->n_pareto; i++)
		cJSON_AddItemToArray(par, report_plan_json(&r->pareto[i],
							   rank_of(r, &r->pareto[i]), c, in->model));
	cJSON *sg = cJSON_AddArrayToObject(o, "single_pool");
	for (int i = 0; i < c->n_pools; i++) {
		cJSON *so = cJSON_CreateObject();
		cJSON_AddStringToObject(so, "pool", c->pools[i].name);
		cJSON_AddItemToObject(so, "plan", r->has_single[i]
				      ? report_plan_json(&r->single[i], rank_of(r, &r->single[i]), c, in->model)
				      : cJSON_CreateNull());
		cJSON_AddItemToArray(sg, so);
	}
	cJSON *st = cJSON_AddObjectToObject(o, "search");
	cJSON_AddNumberToObject(st, "candidates", (double)r->stats.candidates);
	cJSON_AddNumberToObject(st, "evaluated", (double)r->stats.evaluated);
	cJSON_AddNumberToObject(st, "pruned", (double)r->stats.pruned);
	cJSON_AddNumberToObject(st, "lp_solves", r->stats.lp_solves);
	cJSON_AddNumberToObject(st, "seconds", r->stats.seconds);
	cJSON_AddBoolToObject(st, "cancelled", r->stats.cancelled);
	if (!r->n_plans) {
		cJSON_AddStringToObject(o, "why", r->why);
		if (r->has_nearest)
			cJSON_AddItemToObject(o, "nearest", report_plan_json(&r->nearest, 0, c, in->model));
	}
	cJSON *acc = cJSON_AddArrayToObject(o, "accuracy");
	for (size_t i = 0; i < HP_ARRAY_LEN(accuracy); i++) {
		cJSON *ao = cJSON_CreateObject();
		cJSON_AddStringToObject(ao, "what", accuracy[i].what);
		cJSON_AddNumberToObject(ao, "rows", accuracy[i].rows);
		pct_or_null(ao, "mean_abs_err_pct", accuracy[i].mean_abs_pct);
		pct_or_null(ao, "median_abs_err_pct", accuracy[i].median_abs_pct);
		pct_or_null(ao, "max_abs_err_pct", accuracy[i].max_abs_pct);
		cJSON_AddStringToObject(ao, "measured_by", accuracy[i].measured_by);
		cJSON_AddItemToArray(acc, ao);
	}
	char *s = esc_json_print(o);
	cJSON_Delete(o);
	char *out = xasprintf("%s\n", s);
	free(s);
	return out;
}

/* ---- CSV ----------------------------------------------------------------- */

static void render_csv(const struct report_input *in, struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	sbuf_add(b, REPORT_CSV_COLUMNS "\n");
	for (int i = 0; i < in->res->n_plans; i++) {
		const struct search_plan *sp = &in->res->plans[i];
		const struct plan *p = &sp->plan;
		const struct estimate *e = &sp->est;
		char label[96], by_pool[256] = "", sched[24];
		int used[HP_MAX_POOLS], tp, pp;
		report_plan_label(sp, c, label, sizeof label);
		plan_gpus(p, used);
		for (int k = 0; k < c->n_pools; k++)
			if (used[k]) {
				size_t l = strlen(by_pool);
				snprintf(by_pool + l, sizeof by_pool - l, "%s%.31s:%d", l ? ";" : "",
					 c->pools[k].name, used[k]);
			}
		if (!report_plan_uniform(p, &tp, &pp))
			tp = pp = 0;
		if (p->schedule == SCHED_INTERLEAVED)
			snprintf(sched, sizeof sched, "interleaved:%d", p->vpp);
		else
			snprintf(sched, sizeof sched, "1f1b");
		sbuf_addf(b, "%d,", i + 1);
		sbuf_add_csv(b, label);
		sbuf_addf(b, ",%d,", e->n_gpus);
		sbuf_add_csv(b, by_pool);
		/* tp and pp are empty for plans whose replicas differ in layout. */
		if (tp)
			sbuf_addf(b, ",%d,%d", tp, pp);
		else
			sbuf_add(b, ",,");
		sbuf_addf(b, ",%d,%d,%d,%d,%d,%s,%s,%d,%s", plan_dp(p), p->cp, p->ep, p->mbs, p->gbs,
			  hp_dtype_name(p->precision), plan_recompute_name(p->recompute), p->zero,
			  sched);
		sbuf_addf(b, ",%.6g,%.6g,%.4f,%.4f", e->step_time_s, e->tokens_per_s, e->mfu, e->hfu);
		if (e->price_known)
			sbuf_addf(b, ",%.2f,%.4f", e->usd_per_hour, e->usd_per_mtok);
		else
			sbuf_add(b, ",,");
		sbuf_addf(b, ",%.6g", sp->time_to_train_s);
		if (e->price_known && sp->cost_to_train_usd > 0)
			sbuf_addf(b, ",%.2f", sp->cost_to_train_usd);
		else
			sbuf_add(b, ",");
		sbuf_addf(b, ",%s,%d,%d\n", search_optimality_name(sp->optimality), sp->pareto,
			  e->fits);
	}
}

/* ---- Markdown ------------------------------------------------------------ */

static void md_plan_row(struct sbuf *b, const struct search_plan *sp, int rank,
			const struct cluster *c, int chosen)
{
	char label[96], a[32], t[32], u[32], v[32];
	report_plan_label(sp, c, label, sizeof label);
	const struct estimate *e = &sp->est;
	/* the chosen plan's rank and name in bold */
	sbuf_addf(b, chosen ? "| **%d** | **" : "| %d | ", rank);
	sbuf_add_md(b, label);
	char ro[96];
	sbuf_addf(b, "%s%s | %s | %d |", chosen ? "**" : "", sp->risky ? " (!)" : "",
		  runs_on_names(sp->runs_on, ro, sizeof ro), e->n_gpus);
	sbuf_addf(b, " %s | %s | %.1f%% | %s | %s | %s | %s | %s |\n",
		  hp_fmt_duration(a, sizeof a, e->step_time_s),
		  hp_fmt_count(t, sizeof t, e->tokens_per_s), 100 * e->mfu,
		  e->price_known ? report_fmt_usd(u, sizeof u, e->usd_per_hour) : "unknown",
		  hp_fmt_duration(v, sizeof v, sp->time_to_train_s),
		  report_fmt_usd((char[32]){ 0 }, 32,
				 e->price_known ? sp->cost_to_train_usd : 0),
		  search_optimality_name(sp->optimality), sp->pareto ? "yes" : "");
}

static void md_summary(const struct report_input *in, const struct report_summary *s,
		       struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	char a[64], x[32], y[32], label[96];
	sbuf_add(b, "## Summary\n\n");
	if (!s->chosen) {
		sbuf_add(b, "**No plan fits.** ");
		sbuf_add_md(b, in->res->why);
		sbuf_add(b, "\n\n");
		return;
	}
	const struct search_plan *sp = s->chosen;
	report_plan_label(sp, c, label, sizeof label);
	sbuf_add(b, "| | |\n|---|---|\n| Best plan | ");
	sbuf_add_md(b, label);
	sbuf_addf(b, " (rank %d of %d, %s) |\n", in->chosen + 1, in->res->n_plans,
		  search_optimality_name(sp->optimality));
	sbuf_addf(b, "| Throughput | %s tokens/s, step %s, MFU %.1f%% on %d GPUs |\n",
		  hp_fmt_count(x, sizeof x, sp->est.tokens_per_s),
		  hp_fmt_duration(y, sizeof y, sp->est.step_time_s), 100 * sp->est.mfu,
		  sp->est.n_gpus);
	sbuf_addf(b, "| Time to train %s tokens | %s |\n", hp_fmt_count(x, sizeof x, s->tokens),
		  hp_fmt_duration(a, sizeof a, sp->time_to_train_s));
	if (sp->est.price_known)
		sbuf_addf(b, "| Cost to train | %s at %s/h |\n",
			  report_fmt_usd(x, sizeof x, sp->cost_to_train_usd),
			  report_fmt_usd(y, sizeof y, sp->est.usd_per_hour));
	else
		sbuf_add(b, "| Cost to train | unknown (a pool in the plan has no price) |\n");
	if (s->single) {
		report_plan_label(s->single, c, label, sizeof label);
		sbuf_add(b, "| vs best single-pool plan (");
		sbuf_add_md(b, label);
		sbuf_addf(b, ") | %.2fx the throughput", sp->est.tokens_per_s /
			  s->single->est.tokens_per_s);
		if (sp->est.price_known && s->single->est.price_known &&
		    s->single->cost_to_train_usd > 0)
			sbuf_addf(b, ", %+.1f%% cost to train",
				  100 * (sp->cost_to_train_usd / s->single->cost_to_train_usd - 1));
		sbuf_add(b, " |\n");
	}
	sbuf_add(b, "\n");
}

static void md_inputs(const struct report_input *in, const struct report_summary *s,
		      struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	const struct model_spec *m = in->model;
	const struct search_opts *o = in->opts;
	char x[32], y[32];
	sbuf_add(b, "## Inputs\n\n### Cluster");
	if (*c->name) {
		sbuf_add(b, ": ");
		sbuf_add_md(b, c->name);
	}
	sbuf_add(b, "\n\n| pool | GPU | nodes x GPUs | intra-node | network | provider / region "
		    "| $/node-h | $/GPU-h | price source | price date |\n"
		    "|---|---|---:|---|---|---|---:|---:|---|---|\n");
	for (int i = 0; i < c->n_pools; i++) {
		const struct pool *p = &c->pools[i];
		sbuf_add(b, "| ");
		sbuf_add_md(b, p->name);
		sbuf_add(b, " | ");
		sbuf_add_md(b, p->gpu.name);
		sbuf_addf(b, " | %d%s x %d | %s | %d x %.0f Gb/s | ", p->nodes,
			  p->nodes_max > 0 ? " (max)" : "", p->gpus_per_node, hp_intra_name(p->intra),
			  p->nics, p->nic_gbps);
		sbuf_add_md(b, *p->provider ? p->provider : "-");
		sbuf_add(b, " / ");
		sbuf_add_md(b, *p->region ? p->region : "-");
		if (p->usd_per_node_h > 0)
			sbuf_addf(b, " | %.2f | %.2f | ", p->usd_per_node_h,
				  p->usd_per_node_h / HP_MAX(p->gpus_per_node, 1));
		else
			sbuf_add(b, " | unknown | unknown | ");
		char src[128], date[96];
		report_price_parts(p, src, sizeof src, date, sizeof date);
		sbuf_add_md(b, src);
		sbuf_add(b, " | ");
		sbuf_add_md(b, date);
		sbuf_add(b, " |\n");
	}
	if (c->n_pools > 1) {
		char f[256];
		report_fabric_text(c, f, sizeof f);
		sbuf_addf(b, "\n%s\n", f);
	}
	if (!s->all_priced)
		sbuf_add(b, "\nA pool without a price makes every cost that uses it unknown.\n");
	struct param_count pc;
	model_params(m, &pc);
	sbuf_add(b, "\n### Model: ");
	sbuf_add_md(b, *m->display ? m->display : m->name);
	sbuf_addf(b, "\n\n| layers | hidden | heads (KV) | FFN | vocab | sequence | parameters | "
		    "active |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n"
		    "| %d | %d | %d (%d) | %d%s | %d | %d | %s | %s |\n",
		  m->layers, m->hidden, m->heads, m->kv_heads, m->ffn,
		  m->gated_mlp ? " gated" : "", m->vocab, m->seq_len,
		  hp_fmt_count(x, sizeof x, pc.total), hp_fmt_count(y, sizeof y, pc.active));
	if (m->moe.experts)
		sbuf_addf(b, "\nMixture of experts: %d routed experts, top-%d, expert FFN %d.\n",
			  m->moe.experts, m->moe.top_k, m->moe.expert_ffn);
	sbuf_addf(b, "\n### Workload\n\nGlobal batch %d sequences of %d tokens, %s tokens to "
		  "train, %s, objective: %s",
		  o->gbs, o->seq_len ? o->seq_len : m->seq_len,
		  hp_fmt_count(x, sizeof x, s->tokens), hp_dtype_name(o->precision),
		  search_objective_name(o->objective));
	if (o->objective == OBJ_DEADLINE)
		sbuf_addf(b, " (deadline %s)", hp_fmt_duration(y, sizeof y, o->deadline_s));
	if (o->objective == OBJ_BUDGET)
		sbuf_addf(b, " (budget %s)", report_fmt_usd(y, sizeof y, o->budget_usd));
	sbuf_add(b, ".\n\n");
}

static void md_chosen(const struct report_input *in, const struct report_summary *s,
		      struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	const struct search_plan *sp = s->chosen;
	const struct plan *p = &sp->plan;
	const struct estimate *e = &sp->est;
	char label[96], x[32], y[32];
	report_plan_label(sp, c, label, sizeof label);
	sbuf_addf(b, "## Chosen plan: rank %d, ", in->chosen + 1);
	sbuf_add_md(b, label);
	sbuf_addf(b, "\n\nMicro-batch %d, global batch %d, %s, recompute %s, ZeRO-%d, schedule ",
		  p->mbs, p->gbs, hp_dtype_name(p->precision), plan_recompute_name(p->recompute),
		  p->zero);
	if (p->schedule == SCHED_INTERLEAVED)
		sbuf_addf(b, "interleaved (%d chunks per stage)", p->vpp);
	else
		sbuf_add(b, "1F1B");
	sbuf_addf(b, ", CP %d, EP %d, sequence parallel %s.\n\n", p->cp, p->ep, p->sp ? "on" : "off");

	struct dispatch pl;
	report_place(c, in->model, p, &pl);
	int k0 = 0;
	sbuf_add(b, "### Layout\n\n| replica group | replicas | batch share each | micro-batches "
		    "| stage | pool | GPU | TP | layers | nodes |\n"
		    "|---:|---:|---:|---:|---:|---|---|---:|---|---|\n");
	for (int g = 0; g < p->n_replicas; g++) {
		const struct replica *r = &p->replicas[g];
		for (int k = 0; k < r->n_stages; k++) {
			const struct stage *st = &r->stages[k];
			char nodes[64] = "";
			if (k0 < pl.n_stages)
				dispatch_nodes_text(&pl.st[k0++], nodes, sizeof nodes);
			if (k == 0)
				sbuf_addf(b, "| %d | %d | %.4f | %d ", g, r->count, r->batch_share,
					  plan_replica_microbatches(p, g));
			else
				sbuf_add(b, "| | | | ");
			sbuf_addf(b, "| %d | ", k);
			sbuf_add_md(b, c->pools[st->pool].name);
			sbuf_add(b, " | ");
			sbuf_add_md(b, c->pools[st->pool].gpu.name);
			sbuf_addf(b, " | %d | %d-%d | %s |\n", st->tp, st->first_layer, st->last_layer,
				  nodes);
		}
	}
	dispatch_free(&pl);

	int np;
	const struct report_part *tparts = report_time_parts(&np);
	sbuf_addf(b, "\n### Step time: %s\n\n| part | seconds | share |\n|---|---:|---:|\n",
		  hp_fmt_duration(x, sizeof x, e->step_time_s));
	for (int i = 0; i < np; i++) {
		double v = report_part_value(&tparts[i], &e->bd);
		if (v <= 0)
			continue;
		sbuf_addf(b, "| %s | %.3f | %.1f%% |\n", tparts[i].label, v,
			  100 * v / e->step_time_s);
	}

	int nm;
	const struct report_part *mparts = report_mem_parts(&nm);
	sbuf_add(b, "\n### Memory per GPU, by stage\n\n| group | stage | pool | layers |");
	for (int i = 0; i < nm; i++)
		sbuf_addf(b, " %s |", mparts[i].label);
	sbuf_add(b, " total | capacity | headroom |\n|---:|---:|---|---|");
	for (int i = 0; i < nm; i++)
		sbuf_add(b, "---:|");
	sbuf_add(b, "---:|---:|---:|\n");
	int shown = 0;
	for (int i = 0; i < e->n_stages; i++) {
		const struct perf_stage *st = &e->stages[i];
		if (shown >= 16 && i != e->worst_stage && i != e->n_stages - 1)
			continue;
		sbuf_addf(b, "| %d | %d | ", st->group, st->index);
		sbuf_add_md(b, c->pools[st->pool].name);
		sbuf_addf(b, " | %d-%d |", st->first_layer, st->last_layer);
		for (int k = 0; k < nm; k++)
			sbuf_addf(b, " %s |", hp_fmt_bytes(x, sizeof x, report_part_value(&mparts[k], st)));
		sbuf_addf(b, " %s | %s | %s%s |\n", hp_fmt_bytes(x, sizeof x, st->total),
			  hp_fmt_bytes(y, sizeof y, st->capacity),
			  hp_fmt_bytes((char[32]){ 0 }, 32, st->capacity - st->total),
			  st->fits ? "" : " (does not fit)");
		shown++;
	}
	if (shown < e->n_stages)
		sbuf_addf(b, "\n%d more stages are left out; the JSON report lists every one.\n",
			  e->n_stages - shown);

	sbuf_add(b, "\n### Communication\n\n| dim | collective | bytes per call | calls per step "
		    "| group | nodes | link | algorithm | protocol | time per step | exposed |\n"
		    "|---|---|---:|---:|---:|---:|---|---|---|---:|---:|\n");
	for (int d = 0; d < DIM_COUNT; d++) {
		const struct perf_comm *pc = &e->comm[d];
		if (!pc->used)
			continue;
		sbuf_addf(b, "| %s | %s | %s | %.0f | %d | %d | ", perf_dim_name((enum perf_dim)d),
			  comm_coll_name(pc->coll), hp_fmt_bytes(x, sizeof x, pc->bytes), pc->calls,
			  pc->group, pc->group_nodes);
		sbuf_add_md(b, pc->link);
		sbuf_addf(b, " | %s | %s | %s | %s |\n", comm_algo_name(pc->algo),
			  comm_proto_name(pc->proto), hp_fmt_duration(x, sizeof x, pc->time_s),
			  hp_fmt_duration(y, sizeof y, pc->exposed_s));
	}

	sbuf_addf(b, "\n### Cost to train\n\n%s tokens at %s tokens/s take %s",
		  hp_fmt_count(x, sizeof x, s->tokens), hp_fmt_count(y, sizeof y, e->tokens_per_s),
		  hp_fmt_duration((char[32]){ 0 }, 32, sp->time_to_train_s));
	if (e->price_known)
		sbuf_addf(b, " at %s/h (%s per million tokens): **%s**.\n\n",
			  report_fmt_usd(x, sizeof x, e->usd_per_hour),
			  report_fmt_usd(y, sizeof y, e->usd_per_mtok),
			  report_fmt_usd((char[32]){ 0 }, 32, sp->cost_to_train_usd));
	else
		sbuf_add(b, "; the cost is unknown because a pool in the plan has no price.\n\n");
}

static void md_render(const struct report_input *in, const struct report_summary *s,
		      struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	const struct search_result *r = in->res;
	char t[40], label[96], x[32], y[32];
	sbuf_add(b, "# Training plan: ");
	sbuf_add_md(b, *in->model->display ? in->model->display : in->model->name);
	if (*c->name) {
		sbuf_add(b, " on ");
		sbuf_add_md(b, c->name);
	}
	sbuf_addf(b, "\n\nGenerated %s by hetplan %s.\n\n", report_fmt_time(t, sizeof t, in->generated),
		  in->version ? in->version : "");
	md_summary(in, s, b);
	md_inputs(in, s, b);
	if (r->n_plans) {
		sbuf_add(b, "## Top plans\n\n| rank | plan | runs on | GPUs | step | tokens/s | MFU | $/h "
			    "| time to train | cost to train | optimality | Pareto |\n"
			    "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
		for (int i = 0; i < r->n_plans; i++)
			md_plan_row(b, &r->plans[i], i + 1, c, i == in->chosen);
		sbuf_add(b, "\n*runs on*: stock frameworks that run the plan as one job (none: it "
			    "needs a heterogeneity-aware runtime); (!): over the memory headroom.\n\n");
		if (!r->plans[0].runs_on) {
			sbuf_add(b, "Plan 1 runs on no stock framework: ");
			sbuf_add_md(b, r->plans[0].runs_on_why);
			sbuf_add(b, ".");
			if (r->has_stock) {
				char sl[96], st[32], sr[96];
				report_plan_label(&r->stock, c, sl, sizeof sl);
				sbuf_add(b, " The best plan a stock framework runs: ");
				sbuf_add_md(b, sl);
				sbuf_addf(b, ", %s tokens/s on %d GPUs (%s).",
					  hp_fmt_count(st, sizeof st, r->stock.est.tokens_per_s),
					  r->stock.est.n_gpus, runs_on_names(r->stock.runs_on, sr, sizeof sr));
			}
			sbuf_add(b, "\n\n");
		}
		md_chosen(in, s, b);
	} else if (r->has_nearest) {
		report_plan_label(&r->nearest, c, label, sizeof label);
		sbuf_add(b, "## Nearest miss\n\n");
		sbuf_add_md(b, label);
		sbuf_addf(b, ": %s tokens/s", hp_fmt_count(x, sizeof x, r->nearest.est.tokens_per_s));
		if (!r->nearest.est.fits)
			sbuf_addf(b, ", %s over GPU memory on its fullest stage",
				  hp_fmt_bytes(y, sizeof y, r->nearest.est.worst_over_bytes));
		sbuf_add(b, ".\n\n");
	}
	if (r->n_pareto) {
		sbuf_add(b, "## Pareto front: time vs cost to train\n\n| time to train | cost to "
			    "train | plan | rank |\n|---:|---:|---|---:|\n");
		for (int i = 0; i < r->n_pareto; i++) {
			const struct search_plan *sp = &r->pareto[i];
			int rk = rank_of(r, sp);
			report_plan_label(sp, c, label, sizeof label);
			sbuf_addf(b, "| %s | %s | ", hp_fmt_duration(x, sizeof x, sp->time_to_train_s),
				  report_fmt_usd(y, sizeof y, sp->est.price_known
							       ? sp->cost_to_train_usd : 0));
			sbuf_add_md(b, label);
			if (rk)
				sbuf_addf(b, " | %d |\n", rk);
			else
				sbuf_add(b, " | - |\n");
		}
		sbuf_add(b, "\n");
	}
	sbuf_add(b, "## Best plan on each pool alone\n\n| pool | plan | tokens/s | time to train "
		    "| cost to train |\n|---|---|---:|---:|---:|\n");
	for (int i = 0; i < c->n_pools; i++) {
		sbuf_add(b, "| ");
		sbuf_add_md(b, c->pools[i].name);
		if (!r->has_single[i]) {
			sbuf_add(b, " | nothing fits on this pool alone | | | |\n");
			continue;
		}
		const struct search_plan *sp = &r->single[i];
		report_plan_label(sp, c, label, sizeof label);
		sbuf_add(b, " | ");
		sbuf_add_md(b, label);
		sbuf_addf(b, " | %s | %s | %s |\n", hp_fmt_count(x, sizeof x, sp->est.tokens_per_s),
			  hp_fmt_duration(y, sizeof y, sp->time_to_train_s),
			  report_fmt_usd((char[32]){ 0 }, 32,
					 sp->est.price_known ? sp->cost_to_train_usd : 0));
	}
	sbuf_addf(b, "\n## Search\n\n%ld candidate plans, %ld estimated, %ld pruned, %d LP solves, "
		  "%.2f s%s.\n\n", r->stats.candidates, r->stats.evaluated, r->stats.pruned,
		  r->stats.lp_solves, r->stats.seconds,
		  r->stats.cancelled ? " (cancelled: the best plans found so far)" : "");
	int na;
	const char *const *as = report_assumptions(&na);
	sbuf_add(b, "## Assumptions and limits\n\n");
	for (int i = 0; i < na; i++)
		sbuf_addf(b, "- %s\n", as[i]);
	sbuf_add(b, "\n## Accuracy of the model against measured runs\n\n| measured against | "
		    "rows | mean abs error | median abs error | max abs error | measured by |\n"
		    "|---|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < HP_ARRAY_LEN(accuracy); i++) {
		const struct report_accuracy *a = &accuracy[i];
		sbuf_addf(b, "| %s | %d | ", a->what, a->rows);
		const double v[3] = { a->mean_abs_pct, a->median_abs_pct, a->max_abs_pct };
		for (int k = 0; k < 3; k++) {
			if (v[k] >= 0)
				sbuf_addf(b, "%.1f%% | ", v[k]);
			else
				sbuf_add(b, "- | ");
		}
		sbuf_addf(b, "`%s` |\n", a->measured_by);
	}
	sbuf_add(b, "\nEvery figure above is an estimate; measure a few steps on the real "
		    "cluster before committing to a plan.\n");
}

/* ---- entry point --------------------------------------------------------- */

int report_render(const struct report_input *in, enum report_format fmt,
		  char **out, size_t *len, struct hp_err *err)
{
	if (!in->cluster || !in->model || !in->opts || !in->res)
		return hp_err_set(err, HP_EXIT_USAGE, "report: cluster, model, workload and "
				  "planner result are all required");
	if (in->res->n_plans && (in->chosen < 0 || in->chosen >= in->res->n_plans))
		return hp_err_set(err, HP_EXIT_USAGE,
				  "report: chosen plan %d is out of range (the result has %d plans)",
				  in->chosen + 1, in->res->n_plans);
	if ((int)fmt < 0 || fmt >= REPORT_FORMAT_COUNT)
		return hp_err_set(err, HP_EXIT_USAGE, "report: unknown format %d", (int)fmt);
	struct report_summary s;
	report_summarize(in, &s);
	struct sbuf b;
	sbuf_init(&b);
	switch (fmt) {
	case REPORT_JSON:
		*out = render_json(in, &s);
		*len = strlen(*out);
		return 0;
	case REPORT_CSV:
		render_csv(in, &b);
		break;
	case REPORT_MD:
		md_render(in, &s, &b);
		break;
	case REPORT_HTML:
		report_render_html(in, &s, &b);
		break;
	default:
		break;
	}
	*out = sbuf_take(&b, len);
	return 0;
}
