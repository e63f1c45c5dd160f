/* report_tables.c — the report's sections as table values (table.h),
 * built once from the planner's result; report.c renders them as
 * Markdown, report_html.c as HTML. Text is what people read (hp_fmt_*,
 * report_fmt_usd); the number behind a cell is the exact value in SI
 * units, so a script reading the HTML page's data-v attributes gets what
 * the JSON report says. */
#include "report_priv.h"
#include "dispatch.h"
#include "runs_on.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Columns: name, unit of the numbers behind the cells, alignment. */

/* A money cell: the text "unknown" and no number when the price is not
 * known. */
static void usd_cell(struct table *t, double v, int known)
{
	char x[32];
	if (known && v > 0)
		table_num(t, report_fmt_usd(x, sizeof x, v), v);
	else
		table_text(t, "unknown");
}

static void duration_cell(struct table *t, double s)
{
	char x[32];
	table_num(t, hp_fmt_duration(x, sizeof x, s), s);
}

static void count_cell(struct table *t, double v)
{
	char x[32];
	table_num(t, hp_fmt_count(x, sizeof x, v), v);
}

static void bytes_cell(struct table *t, double v)
{
	char x[32];
	table_num(t, hp_fmt_bytes(x, sizeof x, v), v);
}

static const struct table_col plans_cols[] = {
	{ "rank", NULL, TABLE_RIGHT },
	{ "plan", NULL, TABLE_LEFT },
	{ "runs on", NULL, TABLE_LEFT },
	{ "GPUs", NULL, TABLE_RIGHT },
	{ "step", "s", TABLE_RIGHT },
	{ "tokens/s", "tokens/s", TABLE_RIGHT },
	{ "MFU", "fraction", TABLE_RIGHT },
	{ "$/h", "USD/h", TABLE_RIGHT },
	{ "time to train", "s", TABLE_RIGHT },
	{ "cost to train", "USD", TABLE_RIGHT },
	{ "optimality", NULL, TABLE_LEFT },
	{ "Pareto", NULL, TABLE_LEFT },
};

void report_table_plans(struct table *t, const struct report_input *in)
{
	const struct search_result *r = in->res;
	table_init(t, "Top plans");
	table_cols(t, plans_cols, (int)HP_ARRAY_LEN(plans_cols));
	for (int i = 0; i < r->n_plans; i++) {
		const struct search_plan *sp = &r->plans[i];
		const struct estimate *e = &sp->est;
		int chosen = i == in->chosen;
		char label[PLAN_LABEL_MAX], ro[96];
		report_plan_label(sp, in->res, in->cluster, label, sizeof label);
		table_row(t, chosen ? TABLE_ROW_CHOSEN : 0);
		table_numf(t, "%.0f", i + 1)->flags |= chosen ? TABLE_STRONG : 0;
		table_textf(t, "%s%s", label, sp->risky ? " (!)" : "")->flags |= chosen ? TABLE_STRONG : 0;
		table_note(table_text(t, runs_on_names(sp->runs_on, ro, sizeof ro)), sp->runs_on_why);
		table_numf(t, "%.0f", e->n_gpus);
		duration_cell(t, e->step_time_s);
		count_cell(t, e->tokens_per_s);
		char mfu[16];
		snprintf(mfu, sizeof mfu, "%.1f%%", 100 * e->mfu);
		table_num(t, mfu, e->mfu);
		usd_cell(t, e->usd_per_hour, e->price_known);
		duration_cell(t, sp->time_to_train_s);
		usd_cell(t, sp->cost_to_train_usd, e->price_known);
		char opt[24];
		table_text(t, search_optimality_text(sp, opt, sizeof opt));
		table_text(t, sp->pareto ? "yes" : "");
	}
}

static const struct table_col singles_cols[] = {
	{ "pool", NULL, TABLE_LEFT },
	{ "plan", NULL, TABLE_LEFT },
	{ "tokens/s", "tokens/s", TABLE_RIGHT },
	{ "time to train", "s", TABLE_RIGHT },
	{ "cost to train", "USD", TABLE_RIGHT },
};

void report_table_singles(struct table *t, const struct report_input *in)
{
	const struct cluster *c = in->cluster;
	const struct search_result *r = in->res;
	table_init(t, "Best plan on each pool alone");
	table_cols(t, singles_cols, (int)HP_ARRAY_LEN(singles_cols));
	for (int i = 0; i < c->n_pools; i++) {
		table_row(t, 0);
		table_text(t, c->pools[i].name);
		if (!r->has_single[i]) {
			table_text(t, "nothing fits on this pool alone");
			continue;
		}
		const struct search_plan *sp = &r->single[i];
		char label[PLAN_LABEL_MAX];
		report_plan_label(sp, in->res, c, label, sizeof label);
		table_text(t, label);
		count_cell(t, sp->est.tokens_per_s);
		duration_cell(t, sp->time_to_train_s);
		usd_cell(t, sp->cost_to_train_usd, sp->est.price_known);
	}
}

static const struct table_col pareto_cols[] = {
	{ "time to train", "s", TABLE_RIGHT },
	{ "cost to train", "USD", TABLE_RIGHT },
	{ "plan", NULL, TABLE_LEFT },
	{ "GPUs", NULL, TABLE_RIGHT },
	{ "rank", NULL, TABLE_RIGHT },
};

/* The GPU count is what tells apart the front's plans of one layout that
 * are not among the ranked ones (their labels are told apart only from
 * those): "h100 tp8 pp3" at 24, 48 and 96 GPUs, as `plan`'s list gives
 * "(24 GPUs)". */
void report_table_pareto(struct table *t, const struct report_input *in)
{
	const struct search_result *r = in->res;
	table_init(t, "Pareto front: time vs cost to train");
	table_cols(t, pareto_cols, (int)HP_ARRAY_LEN(pareto_cols));
	for (int i = 0; i < r->n_pareto; i++) {
		const struct search_plan *sp = &r->pareto[i];
		int rk = report_plan_rank(r, sp);
		char label[PLAN_LABEL_MAX];
		report_plan_label(sp, in->res, in->cluster, label, sizeof label);
		table_row(t, 0);
		duration_cell(t, sp->time_to_train_s);
		usd_cell(t, sp->cost_to_train_usd, sp->est.price_known);
		table_text(t, label);
		table_numf(t, "%.0f", sp->est.n_gpus);
		if (rk)
			table_numf(t, "%.0f", rk);
		else
			table_text(t, "-");
	}
}

static const struct table_col pools_cols[] = {
	{ "pool", NULL, TABLE_LEFT },
	{ "GPU", NULL, TABLE_LEFT },
	{ "nodes x GPUs", NULL, TABLE_RIGHT },
	{ "intra-node", NULL, TABLE_LEFT },
	{ "network", NULL, TABLE_LEFT },
	{ "transport", NULL, TABLE_LEFT },
	{ "provider / region", NULL, TABLE_LEFT },
	{ "$/node-h", "USD/h", TABLE_RIGHT },
	{ "$/GPU-h", "USD/h", TABLE_RIGHT },
	{ "price source", NULL, TABLE_LEFT },
	{ "price date", NULL, TABLE_LEFT },
};

void report_table_pools(struct table *t, const struct cluster *c)
{
	table_init(t, "Cluster");
	table_cols(t, pools_cols, (int)HP_ARRAY_LEN(pools_cols));
	for (int i = 0; i < c->n_pools; i++) {
		const struct pool *p = &c->pools[i];
		table_row(t, 0);
		table_text(t, p->name)->color = report_pool_color(i);
		table_text(t, p->gpu.name);
		table_textf(t, "%d%s x %d", p->nodes, p->nodes_max > 0 ? " (max)" : "", p->gpus_per_node);
		table_text(t, hp_intra_name(p->intra));
		table_textf(t, "%d x %.0f Gb/s", p->nics, p->nic_gbps);
		/* every pool's transport, ib included, by the name a cluster file,
		 * --pool and estimate's transport line give it */
		table_text(t, comm_transport_name(p->transport));
		table_textf(t, "%s / %s", *p->provider ? p->provider : "-", *p->region ? p->region : "-");
		if (pool_price_known(p)) {
			/* unit prices in table_rate's words, as `hetplan prices`
			 * and estimate's prices line write them */
			double gh = p->usd_per_node_h / HP_MAX(p->gpus_per_node, 1);
			char r[32];
			table_num(t, table_rate(r, sizeof r, p->usd_per_node_h, 0), p->usd_per_node_h);
			table_num(t, table_rate(r, sizeof r, gh, 0), gh);
		} else {
			table_text(t, "unknown");
			table_text(t, "unknown");
		}
		char src[192], date[96];
		report_price_parts(p, src, sizeof src, date, sizeof date);
		table_text(t, src);
		table_text(t, date);
	}
}

static const struct table_col layout_cols[] = {
	{ "replica group", NULL, TABLE_RIGHT },
	{ "replicas", NULL, TABLE_RIGHT },
	{ "batch share each", "fraction", TABLE_RIGHT },
	{ "micro-batches", NULL, TABLE_RIGHT },
	{ "stage", NULL, TABLE_RIGHT },
	{ "pool", NULL, TABLE_LEFT },
	{ "GPU", NULL, TABLE_LEFT },
	{ "TP", NULL, TABLE_RIGHT },
	{ "layers", NULL, TABLE_LEFT },
	{ "nodes", NULL, TABLE_LEFT },
};

void report_table_layout(struct table *t, const struct report_input *in,
			 const struct search_plan *sp, int max_rows)
{
	const struct cluster *c = in->cluster;
	const struct plan *p = &sp->plan;
	table_init(t, "Layout");
	table_cols(t, layout_cols, (int)HP_ARRAY_LEN(layout_cols));
	struct dispatch pl;
	report_place(c, in->model, p, &pl);
	int k0 = 0;
	for (int g = 0; g < p->n_replicas; g++) {
		const struct replica *r = &p->replicas[g];
		for (int k = 0; k < r->n_stages; k++, k0++) {
			if (max_rows > 0 && t->n_rows >= max_rows)
				break;
			const struct stage *st = &r->stages[k];
			char nodes[64] = "";
			if (k0 < pl.n_stages)
				dispatch_nodes_text(&pl.st[k0], nodes, sizeof nodes);
			table_row(t, 0);
			if (k == 0) {
				table_numf(t, "%.0f", g);
				table_numf(t, "%.0f", r->count);
				table_numf(t, "%.4f", r->batch_share);
				table_numf(t, "%.0f", plan_replica_microbatches(p, g));
			} else {
				table_skip(t, 4);
			}
			table_numf(t, "%.0f", k);
			table_text(t, c->pools[st->pool].name)->color = report_pool_color(st->pool);
			table_text(t, c->pools[st->pool].gpu.name);
			table_numf(t, "%.0f", st->tp);
			table_textf(t, "%d-%d", st->first_layer, st->last_layer);
			table_text(t, nodes);
		}
	}
	dispatch_free(&pl);
}

static const struct table_col step_cols[] = {
	{ "part", NULL, TABLE_LEFT },
	{ "seconds", "s", TABLE_RIGHT },
	{ "share", "fraction", TABLE_RIGHT },
};

void report_table_step(struct table *t, const struct search_plan *sp)
{
	const struct estimate *e = &sp->est;
	int np;
	const struct report_part *parts = report_time_parts(&np);
	table_init(t, "Step time");
	table_cols(t, step_cols, (int)HP_ARRAY_LEN(step_cols));
	for (int i = 0; i < np; i++) {
		double v = report_part_value(&parts[i], &e->bd);
		if (v <= 0)
			continue;
		table_row(t, 0);
		table_text(t, parts[i].label)->color = parts[i].color;
		table_numf(t, "%.3f", v);
		char x[32];
		snprintf(x, sizeof x, "%.1f%%", 100 * v / e->step_time_s);
		table_num(t, x, v / e->step_time_s);
	}
}

static const struct table_col memory_cols[] = {
	{ "group", NULL, TABLE_RIGHT },
	{ "stage", NULL, TABLE_RIGHT },
	{ "pool", NULL, TABLE_LEFT },
	{ "layers", NULL, TABLE_LEFT },
};

static const struct table_col memory_tail_cols[] = {
	{ "total", "bytes", TABLE_RIGHT },
	{ "capacity", "bytes", TABLE_RIGHT },
	{ "headroom", "bytes", TABLE_RIGHT },
};

int report_table_memory(struct table *t, const struct cluster *c, const struct search_plan *sp)
{
	const struct estimate *e = &sp->est;
	int nm;
	const struct report_part *parts = report_mem_parts(&nm);
	table_init(t, "Memory per GPU, by stage");
	table_cols(t, memory_cols, (int)HP_ARRAY_LEN(memory_cols));
	for (int i = 0; i < nm; i++)
		table_col(t, parts[i].label, "bytes", TABLE_RIGHT);
	table_cols(t, memory_tail_cols, (int)HP_ARRAY_LEN(memory_tail_cols));
	int shown = 0;
	for (int i = 0; i < e->n_stages; i++) {
		const struct perf_stage *st = &e->stages[i];
		if (shown >= 16 && i != e->worst_stage && i != e->n_stages - 1)
			continue;
		table_row(t, 0);
		table_numf(t, "%.0f", st->group);
		table_numf(t, "%.0f", st->index);
		table_text(t, c->pools[st->pool].name);
		table_textf(t, "%d-%d", st->first_layer, st->last_layer);
		for (int k = 0; k < nm; k++)
			bytes_cell(t, report_part_value(&parts[k], st));
		bytes_cell(t, st->total);
		bytes_cell(t, st->capacity);
		char x[32], y[80];
		snprintf(y, sizeof y, "%s%s", hp_fmt_bytes(x, sizeof x, st->capacity - st->total),
			 !st->fits ? " (does not fit)" : st->total > st->capacity ?
			 " (the allocator's cache does not fit)" : "");
		table_num(t, y, st->capacity - st->total)->flags |= st->fits ? TABLE_GOOD : TABLE_BAD;
		shown++;
	}
	return e->n_stages - shown;
}

static const struct table_col comm_cols[] = {
	{ "dim", NULL, TABLE_LEFT },
	{ "collective", NULL, TABLE_LEFT },
	{ "bytes per call", "bytes", TABLE_RIGHT },
	{ "calls per step", NULL, TABLE_RIGHT },
	{ "group", "GPUs", TABLE_RIGHT },
	{ "nodes", NULL, TABLE_RIGHT },
	{ "link", NULL, TABLE_LEFT },
	{ "algorithm", NULL, TABLE_LEFT },
	{ "protocol", NULL, TABLE_LEFT },
	{ "time per step", "s", TABLE_RIGHT },
	{ "exposed", "s", TABLE_RIGHT },
};

void report_table_comm(struct table *t, const struct search_plan *sp)
{
	struct report_comm_row rows[REPORT_COMM_ROWS_MAX];
	int n = report_comm_rows(&sp->est, rows);
	table_init(t, "Communication");
	table_cols(t, comm_cols, (int)HP_ARRAY_LEN(comm_cols));
	for (int i = 0; i < n; i++) {
		const struct report_comm_row *r = &rows[i];
		table_row(t, 0);
		table_text(t, r->dim);
		table_text(t, r->coll);
		bytes_cell(t, r->bytes);
		table_numf(t, "%.0f", r->calls);
		table_numf(t, "%.0f", r->pc->group);
		table_numf(t, "%.0f", r->pc->group_nodes);
		table_text(t, r->pc->link);
		table_text(t, comm_algo_name(r->algo));
		table_text(t, comm_proto_name(r->proto));
		duration_cell(t, r->time_s);
		duration_cell(t, r->exposed_s);
	}
}

static const struct table_col model_cols[] = {
	{ "layers", NULL, TABLE_RIGHT },
	{ "hidden", NULL, TABLE_RIGHT },
	{ "heads (KV)", NULL, TABLE_RIGHT },
	{ "FFN", NULL, TABLE_RIGHT },
	{ "vocab", NULL, TABLE_RIGHT },
	{ "sequence", "tokens", TABLE_RIGHT },
	{ "parameters", NULL, TABLE_RIGHT },
	{ "active", NULL, TABLE_RIGHT },
};

void report_table_model(struct table *t, const struct model_spec *m)
{
	struct param_count pc;
	model_params(m, &pc);
	table_init(t, "Model");
	table_cols(t, model_cols, (int)HP_ARRAY_LEN(model_cols));
	table_row(t, 0);
	table_numf(t, "%.0f", m->layers);
	table_numf(t, "%.0f", m->hidden);
	table_textf(t, "%d (%d)", m->heads, m->kv_heads);
	table_textf(t, "%d%s", m->ffn, m->gated_mlp ? " gated" : "");
	table_numf(t, "%.0f", m->vocab);
	table_numf(t, "%.0f", m->seq_len);
	count_cell(t, pc.total);
	count_cell(t, pc.active);
}

static const struct table_col accuracy_cols[] = {
	{ "measured against", NULL, TABLE_LEFT },
	{ "rows", NULL, TABLE_RIGHT },
	{ "mean abs error", "percent", TABLE_RIGHT },
	{ "median abs error", "percent", TABLE_RIGHT },
	{ "max abs error", "percent", TABLE_RIGHT },
	{ "measured by", NULL, TABLE_LEFT },
};

void report_table_accuracy(struct table *t)
{
	int n;
	const struct report_accuracy *acc = report_accuracy_table(&n);
	table_init(t, "Accuracy of the model against measured runs");
	table_cols(t, accuracy_cols, (int)HP_ARRAY_LEN(accuracy_cols));
	for (int i = 0; i < n; i++) {
		const double v[3] = { acc[i].mean_abs_pct, acc[i].median_abs_pct, acc[i].max_abs_pct };
		table_row(t, 0);
		table_text(t, acc[i].what);
		table_numf(t, "%.0f", acc[i].rows);
		for (int k = 0; k < 3; k++) {
			if (v[k] >= 0)
				table_numf(t, "%.1f%%", v[k]);
			else
				table_text(t, "-");
		}
		table_text(t, acc[i].measured_by)->flags |= TABLE_CODE;
	}
}

void report_runs_on_note(const struct report_input *in, struct sbuf *b)
{
	const struct search_result *r = in->res;
	if (!r->n_plans || r->plans[0].runs_on)
		return;
	sbuf_addf(b, "Plan 1 runs on no stock framework: %s.", r->plans[0].runs_on_why);
	if (r->has_stock) {
		char sl[PLAN_LABEL_MAX], st[32], sr[96];
		report_plan_label(&r->stock, in->res, in->cluster, sl, sizeof sl);
		sbuf_addf(b, " The best plan a stock framework runs: %s, %s tokens/s on %d GPUs (%s).",
			  sl, hp_fmt_count(st, sizeof st, r->stock.est.tokens_per_s),
			  r->stock.est.n_gpus, runs_on_names(r->stock.runs_on, sr, sizeof sr));
	}
}

/* A pool that asks for a provider's or spot prices and got another
 * offer (pricing_apply's nearest, or the catalog's on-demand reference):
 * the sentence that says so into buf, raw; 0 when it got what it asked
 * for, or set its own price. The cluster table showed "gcp / -" beside
 * "catalog reference: aws g6e.12xlarge on-demand / 4" for a spot pool
 * and said nothing more. */
int report_price_mismatch(const struct pool *p, char *buf, size_t n)
{
	char src[192];
	if (p->price_set || !*p->price_source)
		return 0;
	snprintf(src, sizeof src, "%s", p->price_source);
	char *semi = strchr(src, ';');
	if (semi)
		*semi = 0;
	const char *offer = strncmp(src, "catalog reference: ", 19) ? src : src + 19;
	size_t pl = strlen(p->provider);
	int prov_ok = !pl || (!strncmp(offer, p->provider, pl) && offer[pl] == ' ');
	int spot_ok = !p->spot || strstr(offer, " spot");
	if (prov_ok && spot_ok)
		return 0;
	snprintf(buf, n, "Pool %s asks for %s%s%s prices; the price book has none for %s, so it "
		 "is priced at %s.", p->name, pl ? p->provider : "", pl && p->spot ? " " : "",
		 p->spot ? "spot" : "", p->gpu.name, src);
	return 1;
}

/* A sub-heading "TITLE" or "TITLE: NAME" (name from the user, escaped). */
static void sink_heading(struct sbuf *b, const struct report_sink *k, const char *title,
			 const char *name)
{
	sbuf_add(b, k->h3[0]);
	sbuf_add(b, title);
	if (name && *name) {
		sbuf_add(b, ": ");
		k->esc(b, name);
	}
	sbuf_add(b, k->h3[1]);
}

static void sink_note(struct sbuf *b, const struct report_sink *k, const char *text)
{
	sbuf_add(b, k->note[0]);
	k->esc(b, text);
	sbuf_add(b, k->note[1]);
}

static void sink_table(struct sbuf *b, const struct report_sink *k, struct table *t)
{
	k->table(b, t);
	table_done(t);
}

void report_inputs_part(struct sbuf *b, const struct report_sink *k,
			const struct report_input *in, const struct report_summary *s)
{
	const struct cluster *c = in->cluster;
	const struct model_spec *m = in->model;
	struct table t;
	char x[256];
	sink_heading(b, k, "Cluster", c->name);
	report_table_pools(&t, c);
	sink_table(b, k, &t);
	if (c->n_pools > 1) {
		report_fabric_text(c, x, sizeof x);
		sink_note(b, k, x);
	}
	if (!s->all_priced)
		sink_note(b, k, "A pool without a price makes every cost that uses it unknown.");
	for (int i = 0; i < c->n_pools; i++) {
		char pm[512];
		if (report_price_mismatch(&c->pools[i], pm, sizeof pm))
			sink_note(b, k, pm);
	}
	sink_heading(b, k, "Model", *m->display ? m->display : m->name);
	report_table_model(&t, m);
	sink_table(b, k, &t);
	if (m->moe.experts) {
		snprintf(x, sizeof x, "Mixture of experts: %d routed experts, top-%d, expert FFN %d.",
			 m->moe.experts, m->moe.top_k, m->moe.expert_ffn);
		sink_note(b, k, x);
	}
}
