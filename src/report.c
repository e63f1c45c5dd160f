/* report.c — plan reports: the entry point (report_render,
 * report_write_file), format names, JSON, CSV and Markdown. What every
 * format shares, the section tables included, is in report_common.c and
 * report_tables.c; report_html.c draws the HTML page (see report.h for
 * the formats). */
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

static const char *const format_names[] = { "md", "html", "json", "csv" };

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

static void fmt_iso_time(char *buf, size_t n, time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- JSON ---------------------------------------------------------------- */

static cJSON *num_or_null(double v, int known)
{
	return known && isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* One row of the estimate's communication table as JSON. */
static cJSON *comm_json(const char *dim, const struct perf_comm *pc)
{
	cJSON *co = cJSON_CreateObject();
	cJSON_AddStringToObject(co, "dim", dim);
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
	if (pc->gather_s > 0) {
		/* dp at ZeRO-1/2: the parameter gather, in the times above */
		cJSON *g = cJSON_AddObjectToObject(co, "includes");
		cJSON_AddStringToObject(g, "collective", comm_coll_name(pc->gather_coll));
		cJSON_AddNumberToObject(g, "bytes", pc->gather_bytes);
		cJSON_AddStringToObject(g, "algorithm", comm_algo_name(pc->gather_algo));
		cJSON_AddStringToObject(g, "protocol", comm_proto_name(pc->gather_proto));
		cJSON_AddNumberToObject(g, "time_s", pc->gather_s);
		cJSON_AddNumberToObject(g, "exposed_s", pc->gather_exposed_s);
	}
	return co;
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
	int np, nm;
	const struct report_part *time_parts = report_time_parts(&np);
	const struct report_part *mem_parts = report_mem_parts(&nm);
	for (int i = 0; i < np; i++) {
		double v = report_part_value(&time_parts[i], &e->bd);
		if (v != 0 || !time_parts[i].omit_zero)
			cJSON_AddNumberToObject(bd, time_parts[i].key, v);
	}
	if (e->offload.kind == OFFLOAD_ACTIVATIONS) {
		/* activation offload (plan key offload = activations): what
		 * its breakdown line rests on */
		const struct perf_offload *f = &e->offload;
		cJSON *oo = cJSON_AddObjectToObject(o, "offload");
		cJSON_AddStringToObject(oo, "kind", "activations");
		cJSON_AddNumberToObject(oo, "layers", f->act_layers);
		cJSON_AddNumberToObject(oo, "layer_bytes", f->act_layer_bytes);
		cJSON_AddNumberToObject(oo, "host_link_bytes_per_s", f->link_Bps);
		cJSON_AddNumberToObject(oo, "d2h_bytes", f->d2h_bytes);
		cJSON_AddNumberToObject(oo, "h2d_bytes", f->h2d_bytes);
		cJSON_AddNumberToObject(oo, "forward_exposed_s_per_microbatch", f->act_fwd_s);
		cJSON_AddNumberToObject(oo, "backward_exposed_s_per_microbatch", f->act_bwd_s);
		cJSON_AddNumberToObject(oo, "exposed_s", f->exposed_s);
		cJSON_AddNumberToObject(oo, "host_bytes_per_gpu", f->host_bytes_per_gpu);
		cJSON_AddNumberToObject(oo, "host_bytes_per_node", f->host_bytes_per_node);
	} else if (e->offload.exposed_s > 0) {
		/* ZeRO-Offload (plan key offload): what its breakdown line
		 * rests on */
		const struct perf_offload *f = &e->offload;
		cJSON *oo = cJSON_AddObjectToObject(o, "offload");
		cJSON_AddNumberToObject(oo, "partition_params", f->partition_params);
		cJSON_AddNumberToObject(oo, "host_link_bytes_per_s", f->link_Bps);
		cJSON_AddNumberToObject(oo, "d2h_bytes", f->d2h_bytes);
		cJSON_AddNumberToObject(oo, "h2d_bytes", f->h2d_bytes);
		cJSON_AddNumberToObject(oo, "grad_copies_exposed_s", f->grad_s);
		cJSON_AddNumberToObject(oo, "cpu_adam_s", f->adam_s);
		cJSON_AddNumberToObject(oo, "param_copy_s", f->param_s);
		cJSON_AddNumberToObject(oo, "exposed_s", f->exposed_s);
		cJSON_AddNumberToObject(oo, "host_bytes_per_gpu", f->host_bytes_per_gpu);
		cJSON_AddNumberToObject(oo, "host_bytes_per_node", f->host_bytes_per_node);
	}
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
		for (int k = 0; k < nm; k++)
			cJSON_AddNumberToObject(so, mem_parts[k].key,
						report_part_value(&mem_parts[k], s));
		cJSON_AddNumberToObject(so, "total_bytes", s->total);
		cJSON_AddNumberToObject(so, "allocator_cache_bytes", s->slack);
		cJSON_AddNumberToObject(so, "capacity_bytes", s->capacity);
		cJSON_AddBoolToObject(so, "fits", s->fits);
		cJSON_AddNumberToObject(so, "time_per_microbatch_s", s->t_total);
		cJSON_AddItemToArray(mem, so);
	}
	/* the rows of every view's communication table (report_comm_rows);
	 * a gather is its dp row's "includes", not an entry of its own */
	cJSON *cm = cJSON_AddArrayToObject(o, "comm");
	struct report_comm_row rows[REPORT_COMM_ROWS_MAX];
	int nr = report_comm_rows(e, rows);
	for (int i = 0; i < nr; i++) {
		if (rows[i].kind == REPORT_COMM_GATHER)
			continue;
		cJSON *co = comm_json(rows[i].dim, rows[i].pc);
		if (rows[i].kind == REPORT_COMM_WAN) {
			/* a hand-off across the WAN that does not set the step
			 * (the pp row above is the pace-setting stage's) */
			cJSON_AddNumberToObject(co, "replica_group", e->pp_wan_group);
			cJSON_AddNumberToObject(co, "stage", e->pp_wan_stage);
			cJSON_AddBoolToObject(co, "sets_step", 0);
		}
		cJSON_AddItemToArray(cm, co);
	}
}

cJSON *report_plan_json(const struct search_plan *sp, int rank, const struct search_result *r,
			const struct cluster *c, const struct model_spec *m)
{
	const struct estimate *e = &sp->est;
	const struct plan *p = &sp->plan;
	cJSON *o = cJSON_CreateObject();
	char label[PLAN_LABEL_MAX];
	report_plan_label(sp, NULL, c, label, sizeof label);
	cJSON_AddItemToObject(o, "rank", rank > 0 ? cJSON_CreateNumber(rank) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "label", label);
	report_plan_label(sp, r, c, label, sizeof label);
	cJSON_AddStringToObject(o, "list_label", label);
	cJSON_AddNumberToObject(o, "step_time_s", e->step_time_s);
	cJSON_AddNumberToObject(o, "tokens_per_s", e->tokens_per_s);
	cJSON_AddNumberToObject(o, "mfu", e->mfu);
	cJSON_AddNumberToObject(o, "hfu", e->hfu);
	cJSON_AddItemToObject(o, "usd_per_hour", num_or_null(e->usd_per_hour, e->price_known));
	cJSON_AddItemToObject(o, "usd_per_million_tokens",
			      num_or_null(e->usd_per_mtok, e->price_known));
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
	/* the network of each pool the plan uses, as the reports' cluster
	 * table says it (network: NICs x Gb/s; transport; intra-node) and
	 * the CSV's transports column names it */
	cJSON *nw = cJSON_AddObjectToObject(o, "networks");
	for (int i = 0; i < c->n_pools; i++) {
		if (!used[i])
			continue;
		const struct pool *pl = &c->pools[i];
		cJSON *po = cJSON_AddObjectToObject(nw, pl->name);
		cJSON_AddNumberToObject(po, "nics", pl->nics);
		cJSON_AddNumberToObject(po, "nic_gbps", pl->nic_gbps);
		cJSON_AddStringToObject(po, "transport", comm_transport_name(pl->transport));
		cJSON_AddStringToObject(po, "intra", hp_intra_name(pl->intra));
	}

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
	report_plan_fit_json(o, sp);
	return o;
}

void report_plan_fit_json(cJSON *o, const struct search_plan *sp)
{
	cJSON *ro = cJSON_AddArrayToObject(o, "runs_on");
	for (int f = 1; f < FW_COUNT; f++)
		if (sp->runs_on & (1u << f))
			cJSON_AddItemToArray(ro, cJSON_CreateString(framework_name((enum hp_framework)f)));
	cJSON_AddStringToObject(o, "runs_on_why", sp->runs_on_why);
	cJSON_AddStringToObject(o, "memory_verdict", search_plan_verdict(sp));
	cJSON_AddNumberToObject(o, "mem_need_bytes", sp->mem_need_bytes);
	cJSON_AddNumberToObject(o, "mem_capacity_bytes", sp->mem_capacity_bytes);
}

void report_plan_strip_extras(cJSON *entry)
{
	static const char *const extras[] = { "list_label", "runs_on", "runs_on_why",
					      "memory_verdict", "mem_need_bytes",
					      "mem_capacity_bytes" };
	if (!cJSON_IsObject(entry))
		return;
	for (size_t i = 0; i < HP_ARRAY_LEN(extras); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(entry, extras[i]);
}

cJSON *report_search_json(cJSON *o, const struct search_stats *st)
{
	cJSON *so = cJSON_AddObjectToObject(o, "search");
	cJSON_AddNumberToObject(so, "candidates", (double)st->candidates);
	cJSON_AddNumberToObject(so, "evaluated", (double)st->evaluated);
	cJSON_AddNumberToObject(so, "pruned", (double)st->pruned);
	cJSON_AddNumberToObject(so, "lp_solves", st->lp_solves);
	cJSON_AddNumberToObject(so, "seconds", st->seconds);
	cJSON_AddNumberToObject(so, "fw_checked", (double)st->fw_checked);
	cJSON_AddNumberToObject(so, "fw_denied", (double)st->fw_denied);
	return so;
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
		int known = pool_price_known(p);
		cJSON_AddStringToObject(po, "pool", p->name);
		cJSON_AddStringToObject(po, "gpu", p->gpu.name);
		cJSON_AddItemToObject(po, "usd_per_node_hour", num_or_null(p->usd_per_node_h, known));
		cJSON_AddItemToObject(po, "usd_per_gpu_hour",
				      num_or_null(p->usd_per_node_h / HP_MAX(p->gpus_per_node, 1),
						  known));
		char src[192], date[96];
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
		cJSON_AddItemToArray(plans, report_plan_json(&r->plans[i], i + 1, r, c, in->model));
	/* A Pareto or single-pool plan that is also ranked is written as its
	 * ranked entry: the copies kept their own flags, so rank 1 read
	 * "pareto": false under "single_pool" and "optimal" under "pareto"
	 * beside "pareto": true, "within-gap" in "plans". */
	cJSON *par = cJSON_AddArrayToObject(o, "pareto");
	for (int i = 0; i < r->n_pareto; i++) {
		int rk = report_plan_rank(r, &r->pareto[i]);
		cJSON_AddItemToArray(par, report_plan_json(rk ? &r->plans[rk - 1] : &r->pareto[i],
							   rk, r, c, in->model));
	}
	cJSON *sg = cJSON_AddArrayToObject(o, "single_pool");
	for (int i = 0; i < c->n_pools; i++) {
		cJSON *so = cJSON_CreateObject();
		int rk = r->has_single[i] ? report_plan_rank(r, &r->single[i]) : 0;
		cJSON_AddStringToObject(so, "pool", c->pools[i].name);
		cJSON_AddItemToObject(so, "plan", r->has_single[i]
				      ? report_plan_json(rk ? &r->plans[rk - 1] : &r->single[i], rk, r, c,
							 in->model)
				      : cJSON_CreateNull());
		cJSON_AddItemToArray(sg, so);
	}
	cJSON *st = report_search_json(o, &r->stats);
	cJSON_AddBoolToObject(st, "cancelled", r->stats.cancelled);
	if (!r->n_plans) {
		cJSON_AddStringToObject(o, "why", r->why);
		if (r->has_nearest)
			cJSON_AddItemToObject(o, "nearest", report_plan_json(&r->nearest, 0, r, c, in->model));
	}
	cJSON *acc = cJSON_AddArrayToObject(o, "accuracy");
	int nacc;
	const struct report_accuracy *accuracy = report_accuracy_table(&nacc);
	for (int i = 0; i < nacc; i++) {
		cJSON *ao = cJSON_CreateObject();
		cJSON_AddStringToObject(ao, "what", accuracy[i].what);
		cJSON_AddNumberToObject(ao, "rows", accuracy[i].rows);
		pct_or_null(ao, "mean_abs_err_pct", accuracy[i].mean_abs_pct);
		pct_or_null(ao, "median_abs_err_pct", accuracy[i].median_abs_pct);
		pct_or_null(ao, "max_abs_err_pct", accuracy[i].max_abs_pct);
		cJSON_AddStringToObject(ao, "measured_by", accuracy[i].measured_by);
		cJSON_AddItemToArray(acc, ao);
	}
	if (in->extra)
		cJSON_AddItemToObject(o, in->extra->json_key, in->extra->json(in->extra->ctx));
	char *s = esc_json_print(o);
	cJSON_Delete(o);
	char *out = xasprintf("%s\n", s);
	free(s);
	return out;
}

/* ---- CSV ----------------------------------------------------------------- */

/* The CSV columns in REPORT_CSV_COLUMNS order (test_report checks the
 * header against it): text columns left, numbers right. */
#define L_ TABLE_LEFT
#define R_ TABLE_RIGHT
static const struct table_col csv_cols[] = {
	{ "rank", NULL, R_ }, { "label", NULL, L_ }, { "gpus", NULL, R_ },
	{ "gpus_by_pool", NULL, L_ }, { "transports", NULL, L_ }, { "tp", NULL, R_ }, { "pp", NULL, R_ }, { "dp", NULL, R_ },
	{ "cp", NULL, R_ }, { "ep", NULL, R_ }, { "mbs", NULL, R_ }, { "gbs", NULL, R_ },
	{ "precision", NULL, L_ }, { "recompute", NULL, L_ }, { "zero", NULL, R_ },
	{ "schedule", NULL, L_ }, { "step_time_s", "s", R_ }, { "tokens_per_s", "tokens/s", R_ },
	{ "mfu", NULL, R_ }, { "hfu", NULL, R_ }, { "usd_per_hour", "USD/h", R_ },
	{ "usd_per_million_tokens", "USD/1M tokens", R_ }, { "time_to_train_s", "s", R_ },
	{ "cost_to_train_usd", "USD", R_ }, { "optimality", NULL, L_ }, { "pareto", NULL, R_ },
	{ "fits", NULL, R_ }, { "gap", NULL, R_ }, { "runs_on", NULL, L_ },
	{ "memory_verdict", NULL, L_ },
};
#undef L_
#undef R_

/* "POOL:X;POOL:X" over the pools p uses, in the cluster's order: X is
 * the pool's GPU count (gpus_by_pool) or, with transport set, the name of
 * its transport as a cluster file and --pool give it (every pool's, ib
 * included, as the reports' cluster table). */
static void csv_by_pool(struct sbuf *b, const struct plan *p, const struct cluster *c,
			int transport)
{
	int used[HP_MAX_POOLS];
	plan_gpus(p, used);
	for (int k = 0, n = 0; k < c->n_pools; k++) {
		if (!used[k])
			continue;
		sbuf_addf(b, "%s%s:", n++ ? ";" : "", c->pools[k].name);
		if (transport)
			sbuf_add(b, comm_transport_name(c->pools[k].transport));
		else
			sbuf_addf(b, "%d", used[k]);
	}
}

static void csv_plan_row(struct table *t, const struct search_plan *sp, int rank,
			 const struct search_result *r, const struct cluster *c)
{
	const struct plan *p = &sp->plan;
	const struct estimate *e = &sp->est;
	char label[PLAN_LABEL_MAX], sched[24];
	int tp, pp;
	struct sbuf by_pool, transports;
	report_plan_label(sp, r, c, label, sizeof label);
	sbuf_init(&by_pool);
	sbuf_init(&transports);
	csv_by_pool(&by_pool, p, c, 0);
	csv_by_pool(&transports, p, c, 1);
	if (p->schedule == SCHED_INTERLEAVED)
		snprintf(sched, sizeof sched, "interleaved:%d", p->vpp);
	else
		snprintf(sched, sizeof sched, "1f1b");
	table_row(t, 0);
	table_numf(t, "%.0f", rank);
	table_text(t, label);
	table_numf(t, "%.0f", e->n_gpus);
	table_text(t, by_pool.s ? by_pool.s : "");
	table_text(t, transports.s ? transports.s : "");
	/* tp and pp are empty for plans whose replicas differ in layout. */
	if (report_plan_uniform(p, &tp, &pp)) {
		table_numf(t, "%.0f", tp);
		table_numf(t, "%.0f", pp);
	} else {
		table_skip(t, 2);
	}
	const int ints[] = { plan_dp(p), p->cp, p->ep, p->mbs, p->gbs };
	for (size_t i = 0; i < HP_ARRAY_LEN(ints); i++)
		table_numf(t, "%.0f", ints[i]);
	table_text(t, hp_dtype_name(p->precision));
	table_text(t, plan_recompute_name(p->recompute));
	table_numf(t, "%.0f", p->zero);
	table_text(t, sched);
	table_numf(t, "%.6g", e->step_time_s);
	table_numf(t, "%.6g", e->tokens_per_s);
	table_numf(t, "%.4f", e->mfu);
	table_numf(t, "%.4f", e->hfu);
	if (e->price_known) {
		table_numf(t, "%.2f", e->usd_per_hour);
		/* CSV is data, not a view: the raw figure, not table_rate's */
		table_numf(t, "%.4f", e->usd_per_mtok);
	} else {
		table_skip(t, 2);
	}
	table_numf(t, "%.6g", sp->time_to_train_s);
	if (e->price_known && sp->cost_to_train_usd > 0)
		table_numf(t, "%.2f", sp->cost_to_train_usd);
	else
		table_skip(t, 1);
	table_text(t, search_optimality_name(sp->optimality));
	table_numf(t, "%.0f", sp->pareto);
	table_numf(t, "%.0f", e->fits);
	if (sp->optimality != OPTIMAL_HEURISTIC)
		table_numf(t, "%.4f", sp->gap);
	else
		table_skip(t, 1);
	char ro[96];
	runs_on_names(sp->runs_on, ro, sizeof ro);
	for (char *q = ro; *q; q++)
		if (*q == ',')
			*q = ';';
	table_text(t, ro);
	table_text(t, search_plan_verdict(sp));
	sbuf_done(&by_pool);
	sbuf_done(&transports);
}

void report_csv_table(struct table *t, const struct search_result *r, const struct cluster *c)
{
	table_init(t, "plans");
	table_cols(t, csv_cols, (int)HP_ARRAY_LEN(csv_cols));
	for (int i = 0; i < r->n_plans; i++)
		csv_plan_row(t, &r->plans[i], i + 1, r, c);
}

void report_csv(struct sbuf *b, const struct search_result *r, const struct cluster *c)
{
	struct table t;
	report_csv_table(&t, r, c);
	table_render_csv(b, &t);
	table_done(&t);
}

/* ---- Markdown ------------------------------------------------------------ */

/* "### Title\n\n" (level 2 or 3), the table, and a blank line. */
static void md_table(struct sbuf *b, int level, struct table *t)
{
	sbuf_addf(b, "%s %s\n\n", level == 2 ? "##" : "###", t->title);
	table_render_md(b, t);
	sbuf_add(b, "\n");
	table_done(t);
}

static void md_single(const struct report_input *in, const struct report_summary *s,
		      struct sbuf *b);

static void md_summary(const struct report_input *in, const struct report_summary *s,
		       struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	char a[64], x[32], y[32], label[PLAN_LABEL_MAX];
	sbuf_add(b, "## Summary\n\n");
	if (!s->chosen) {
		sbuf_add(b, "**No plan fits.** ");
		sbuf_add_md(b, in->res->why);
		sbuf_add(b, "\n\n");
		return;
	}
	const struct search_plan *sp = s->chosen;
	report_plan_label(sp, in->res, c, label, sizeof label);
	/* --rank N details plan N: it is the chosen plan, not the best */
	sbuf_addf(b, "| | |\n|---|---|\n| %s | ", in->chosen ? "Chosen plan" : "Best plan");
	sbuf_add_md(b, label);
	char opt[24];
	sbuf_addf(b, " (rank %d of %d, %s) |\n", in->chosen + 1, in->res->n_plans,
		  search_optimality_text(sp, opt, sizeof opt));
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
	char w[160];
	sbuf_add(b, "| Runs on | ");
	sbuf_add_md(b, report_runs_on_text(sp, w, sizeof w));
	sbuf_add(b, " |\n| Memory per GPU | ");
	sbuf_add_md(b, report_memory_text(sp, w, sizeof w));
	sbuf_add(b, " |\n");
	md_single(in, s, b);
	sbuf_add(b, "\n");
}

/* The summary's comparison with the best plan on one pool alone: none on
 * one pool; when the chosen plan is that plan, it says so (it used to
 * compare the plan with itself: "1.00x the throughput, +0.0%"). */
static void md_single(const struct report_input *in, const struct report_summary *s,
		      struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	const struct search_plan *sp = s->chosen;
	char label[PLAN_LABEL_MAX];
	if (!s->single || c->n_pools < 2)
		return;
	if (report_single_is_chosen(s)) {
		sbuf_add(b, "| vs best single-pool plan | it is that plan: the best on ");
		sbuf_add_md(b, c->pools[s->single_pool].name);
		sbuf_add(b, " alone |\n");
		return;
	}
	report_plan_label(s->single, in->res, c, label, sizeof label);
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

static const struct report_sink md_sink = {
	esc_md, table_render_md, { "\n### ", "\n\n" }, { "\n", "\n" },
};

static void md_inputs(const struct report_input *in, const struct report_summary *s,
		      struct sbuf *b)
{
	const struct model_spec *m = in->model;
	const struct search_opts *o = in->opts;
	char x[32], y[32];
	sbuf_add(b, "## Inputs\n");
	report_inputs_part(b, &md_sink, in, s);
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

/* "Transport: mega tcpxo.", the pools p uses that are not on ib
 * (report_plan_transports), and a blank line; nothing when there are
 * none. */
static void md_transports(struct sbuf *b, const struct cluster *c, const struct plan *p)
{
	struct sbuf raw;
	sbuf_init(&raw);
	if (report_plan_transports(c, p, &raw)) {
		sbuf_add(b, "Transport: ");
		sbuf_add_md(b, raw.s);
		sbuf_add(b, ".\n\n");
	}
	sbuf_done(&raw);
}

static void md_chosen(const struct report_input *in, const struct report_summary *s,
		      struct sbuf *b)
{
	const struct search_plan *sp = s->chosen;
	const struct plan *p = &sp->plan;
	const struct estimate *e = &sp->est;
	char label[PLAN_LABEL_MAX], x[32], y[32], rc[48];
	struct table t;
	report_plan_label(sp, in->res, in->cluster, label, sizeof label);
	sbuf_addf(b, "## Chosen plan: rank %d, ", in->chosen + 1);
	sbuf_add_md(b, label);
	sbuf_addf(b, "\n\nMicro-batch %d, global batch %d, %s, recompute %s, ZeRO-%d, schedule ",
		  p->mbs, p->gbs, hp_dtype_name(p->precision), plan_recompute_text(p, rc, sizeof rc),
		  p->zero);
	if (p->schedule == SCHED_INTERLEAVED)
		sbuf_addf(b, "interleaved (%d chunks per stage)", p->vpp);
	else
		sbuf_add(b, "1F1B");
	sbuf_addf(b, ", CP %d, EP %d, sequence parallel %s.\n\n", p->cp, p->ep, p->sp ? "on" : "off");
	md_transports(b, in->cluster, p);
	report_table_layout(&t, in, sp, 0);
	md_table(b, 3, &t);
	report_table_step(&t, sp);
	sbuf_addf(b, "### Step time: %s\n\n", hp_fmt_duration(x, sizeof x, e->step_time_s));
	table_render_md(b, &t);
	table_done(&t);
	int left = report_table_memory(&t, in->cluster, sp);
	sbuf_add(b, "\n");
	md_table(b, 3, &t);
	if (left)
		sbuf_addf(b, "%d more stages are left out; the JSON report lists every one.\n\n", left);
	report_table_comm(&t, sp);
	md_table(b, 3, &t);
	sbuf_addf(b, "### Cost to train\n\n%s tokens at %s tokens/s take %s",
		  hp_fmt_count(x, sizeof x, s->tokens), hp_fmt_count(y, sizeof y, e->tokens_per_s),
		  hp_fmt_duration((char[32]){ 0 }, 32, sp->time_to_train_s));
	if (e->price_known)
		sbuf_addf(b, " at %s/h (%s per million tokens): **%s**.\n\n",
			  report_fmt_usd(x, sizeof x, e->usd_per_hour),
			  report_fmt_rate(y, sizeof y, e->usd_per_mtok),
			  report_fmt_usd((char[32]){ 0 }, 32, sp->cost_to_train_usd));
	else
		sbuf_add(b, "; the cost is unknown because a pool in the plan has no price.\n\n");
}

static void md_plans(const struct report_input *in, const struct report_summary *s,
		     struct sbuf *b)
{
	const struct search_result *r = in->res;
	char label[PLAN_LABEL_MAX], x[32], y[32];
	struct table t;
	if (r->n_plans) {
		report_table_plans(&t, in);
		md_table(b, 2, &t);
		sbuf_add(b, "*runs on*: stock frameworks that run the plan as one job (none: it "
			    "needs a heterogeneity-aware runtime); (!): over the memory headroom.\n\n");
		struct sbuf note;
		sbuf_init(&note);
		report_runs_on_note(in, &note);
		if (note.len) {
			sbuf_add_md(b, note.s);
			sbuf_add(b, "\n\n");
		}
		sbuf_done(&note);
		md_chosen(in, s, b);
	} else if (r->has_nearest) {
		report_plan_label(&r->nearest, in->res, in->cluster, label, sizeof label);
		sbuf_add(b, "## Nearest miss\n\n");
		sbuf_add_md(b, label);
		sbuf_addf(b, ": %s tokens/s", hp_fmt_count(x, sizeof x, r->nearest.est.tokens_per_s));
		if (!r->nearest.est.fits)
			sbuf_addf(b, ", %s over GPU memory on its fullest stage",
				  hp_fmt_bytes(y, sizeof y, r->nearest.est.worst_over_bytes));
		sbuf_add(b, ".\n\n");
	}
	if (r->n_pareto) {
		report_table_pareto(&t, in);
		md_table(b, 2, &t);
	}
	report_table_singles(&t, in);
	md_table(b, 2, &t);
}

static void md_render(const struct report_input *in, const struct report_summary *s,
		      struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	const struct search_result *r = in->res;
	char t[40];
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
	md_plans(in, s, b);
	if (in->extra) {
		in->extra->md(b, in->extra->ctx);
		/* the part ends in a paragraph: a blank line before the next
		 * heading, as between every other section */
		if (b->len >= 2 && memcmp(b->s + b->len - 2, "\n\n", 2))
			sbuf_add(b, "\n");
	}
	sbuf_addf(b, "## Search\n\n%ld candidate plans, %ld estimated, %ld pruned, %d LP solves, "
		  "%.2f s%s.\n\n", r->stats.candidates, r->stats.evaluated, r->stats.pruned,
		  r->stats.lp_solves, r->stats.seconds,
		  r->stats.cancelled ? " (cancelled: the best plans found so far)" : "");
	int na;
	const char *const *as = report_assumptions(&na);
	sbuf_add(b, "## Assumptions and limits\n\n");
	for (int i = 0; i < na; i++)
		sbuf_addf(b, "- %s\n", as[i]);
	sbuf_add(b, "\n");
	struct table acc;
	report_table_accuracy(&acc);
	md_table(b, 2, &acc);
	sbuf_add(b, "Every figure above is an estimate; measure a few steps on the real "
		    "cluster before committing to a plan.\n");
}

/* ---- one plan, for the TUI's export ---------------------------------------- */

static void plan_md_metrics(struct sbuf *b, const struct report_input *in,
			    const struct search_plan *sp, double tokens)
{
	const struct estimate *e = &sp->est;
	char x[32];
	struct table t;
	table_init(&t, "metrics");
	table_col(&t, "metric", NULL, TABLE_LEFT);
	table_col(&t, "value", NULL, TABLE_RIGHT);
	table_row(&t, 0);
	table_text(&t, "tokens/s");
	table_num(&t, hp_fmt_count(x, sizeof x, e->tokens_per_s), e->tokens_per_s);
	table_row(&t, 0);
	table_text(&t, "MFU");
	snprintf(x, sizeof x, "%.1f%%", 100 * e->mfu);
	table_num(&t, x, e->mfu);
	table_row(&t, 0);
	table_text(&t, "step time");
	table_num(&t, hp_fmt_duration(x, sizeof x, e->step_time_s), e->step_time_s);
	if (e->price_known) {
		table_row(&t, 0);
		/* in table_usd's words ("$55.04", "$12.3k"), as the TUI's plan
		 * editor writes the same row and every view writes $/h */
		table_text(&t, "$/hour");
		table_num(&t, report_fmt_usd(x, sizeof x, e->usd_per_hour), e->usd_per_hour);
		table_row(&t, 0);
		table_text(&t, "$ per 1M tokens");
		table_num(&t, table_rate(x, sizeof x, e->usd_per_mtok, 0), e->usd_per_mtok);
	}
	table_row(&t, 0);
	table_text(&t, "tokens to train");
	table_num(&t, hp_fmt_count(x, sizeof x, tokens), tokens);
	table_row(&t, 0);
	table_text(&t, "time to train");
	table_num(&t, hp_fmt_duration(x, sizeof x, sp->time_to_train_s), sp->time_to_train_s);
	if (e->price_known && sp->cost_to_train_usd > 0) {
		table_row(&t, 0);
		table_text(&t, "cost to train");
		table_num(&t, report_fmt_usd(x, sizeof x, sp->cost_to_train_usd), sp->cost_to_train_usd);
	}
	table_row(&t, 0);
	table_text(&t, "Pareto (time, cost)");
	table_text(&t, sp->pareto ? "yes" : "no");
	table_render_md(b, &t);
	table_done(&t);
}

char *report_plan_md(const struct report_input *in, const struct search_plan *sp)
{
	const struct plan *p = &sp->plan;
	const struct estimate *e = &sp->est;
	double tokens = model_train_tokens(in->model, in->opts->tokens);
	char label[PLAN_LABEL_MAX], rcs[48];
	struct sbuf b;
	struct table t;
	sbuf_init(&b);
	report_plan_label(sp, in->res, in->cluster, label, sizeof label);
	sbuf_add(&b, "# hetplan plan: ");
	sbuf_add_md(&b, label);
	sbuf_add(&b, "\n\n");
	sbuf_add_md(&b, *in->model->display ? in->model->display : in->model->name);
	sbuf_addf(&b, " on %d GPUs of cluster \"", e->n_gpus);
	sbuf_add_md(&b, in->cluster->name);
	sbuf_addf(&b, "\"; global batch %d x %d tokens, %s, objective %s.\n\n", p->gbs, e->seq_len,
		  hp_dtype_name(p->precision), search_objective_name(in->opts->objective));
	plan_md_metrics(&b, in, sp, tokens);
	/* the chunk count, as the report's settings line gives it */
	char sched[64] = "1F1B";
	if (p->schedule == SCHED_INTERLEAVED)
		snprintf(sched, sizeof sched, "interleaved 1F1B (%d chunks per stage)", p->vpp);
	sbuf_addf(&b, "\n## Settings\n\nmicro-batch %d, recompute %s, ZeRO-%d%s, %s, CP %d, EP %d.\n\n",
		  p->mbs, plan_recompute_text(p, rcs, sizeof rcs), p->zero,
		  p->master == MASTER_REPLICATED ? " (fp32 master replicated)" : p->master == MASTER_NONE ? " (no fp32 master: bf16 state)" : "", sched,
		  p->cp ? p->cp : 1, p->ep ? p->ep : 1);
	md_transports(&b, in->cluster, p);
	report_table_layout(&t, in, sp, 0);
	md_table(&b, 2, &t);
	report_table_step(&t, sp);
	md_table(&b, 2, &t);
	report_table_memory(&t, in->cluster, sp);
	md_table(&b, 2, &t);
	report_table_comm(&t, sp);
	md_table(&b, 2, &t);
	cJSON *pj = plan_to_json(p, in->cluster);
	char *ps = esc_json_print(pj);
	cJSON_Delete(pj);
	sbuf_addf(&b, "## Plan (for `hetplan estimate --plan`)\n\n```json\n%s\n```\n", ps);
	free(ps);
	return sbuf_take(&b, NULL);
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
		report_csv(&b, in->res, in->cluster);
		if (in->extra && in->extra->csv) {
			sbuf_add(&b, "\n");
			in->extra->csv(&b, in->extra->ctx);
		}
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

int report_write_file(const char *path, enum report_format fmt,
		      const struct report_input *in, struct hp_err *err)
{
	if (fmt == REPORT_FORMAT_AUTO && report_format_from_path(path, &fmt) < 0)
		return hp_err_set(err, HP_EXIT_USAGE,
				  "%s: cannot tell the format from the name; use .md, .html, .json "
				  "or .csv, or give --format", path);
	char *text;
	size_t len;
	if (report_render(in, fmt, &text, &len, err) < 0)
		return -1;
	int rc = hp_write_file_atomic(path, text, len, err);
	free(text);
	return rc;
}
