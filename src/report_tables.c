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

void report_table_plans(struct table *t, const struct report_input *in)
{
	const struct search_result *r = in->res;
	table_init(t, "Top plans");
	table_col(t, "rank", NULL, TABLE_RIGHT);
	table_col(t, "plan", NULL, TABLE_LEFT);
	table_col(t, "runs on", NULL, TABLE_LEFT);
	table_col(t, "GPUs", NULL, TABLE_RIGHT);
	table_col(t, "step", "s", TABLE_RIGHT);
	table_col(t, "tokens/s", "tokens/s", TABLE_RIGHT);
	table_col(t, "MFU", "fraction", TABLE_RIGHT);
	table_col(t, "$/h", "USD/h", TABLE_RIGHT);
	table_col(t, "time to train", "s", TABLE_RIGHT);
	table_col(t, "cost to train", "USD", TABLE_RIGHT);
	table_col(t, "optimality", NULL, TABLE_LEFT);
	table_col(t, "Pareto", NULL, TABLE_LEFT);
	for (int i = 0; i < r->n_plans; i++) {
		const struct search_plan *sp = &r->plans[i];
		const struct estimate *e = &sp->est;
		int chosen = i == in->chosen;
		char label[96], ro[96];
		report_plan_label(sp, in->cluster, label, sizeof label);
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
		table_text(t, search_optimality_name(sp->optimality));
		table_text(t, sp->pareto ? "yes" : "");
	}
}

void report_table_singles(struct table *t, const struct report_input *in)
{
	const struct cluster *c = in->cluster;
	const struct search_result *r = in->res;
	table_init(t, "Best plan on each pool alone");
	table_col(t, "pool", NULL, TABLE_LEFT);
	table_col(t, "plan", NULL, TABLE_LEFT);
	table_col(t, "tokens/s", "tokens/s", TABLE_RIGHT);
	table_col(t, "time to train", "s", TABLE_RIGHT);
	table_col(t, "cost to train", "USD", TABLE_RIGHT);
	for (int i = 0; i < c->n_pools; i++) {
		table_row(t, 0);
		table_text(t, c->pools[i].name);
		if (!r->has_single[i]) {
			table_text(t, "nothing fits on this pool alone");
			continue;
		}
		const struct search_plan *sp = &r->single[i];
		char label[96];
		report_plan_label(sp, c, label, sizeof label);
		table_text(t, label);
		count_cell(t, sp->est.tokens_per_s);
		duration_cell(t, sp->time_to_train_s);
		usd_cell(t, sp->cost_to_train_usd, sp->est.price_known);
	}
}

void report_table_pareto(struct table *t, const struct report_input *in)
{
	const struct search_result *r = in->res;
	table_init(t, "Pareto front: time vs cost to train");
	table_col(t, "time to train", "s", TABLE_RIGHT);
	table_col(t, "cost to train", "USD", TABLE_RIGHT);
	table_col(t, "plan", NULL, TABLE_LEFT);
	table_col(t, "rank", NULL, TABLE_RIGHT);
	for (int i = 0; i < r->n_pareto; i++) {
		const struct search_plan *sp = &r->pareto[i];
		int rk = report_plan_rank(r, sp);
		char label[96];
		report_plan_label(sp, in->cluster, label, sizeof label);
		table_row(t, 0);
		duration_cell(t, sp->time_to_train_s);
		usd_cell(t, sp->cost_to_train_usd, sp->est.price_known);
		table_text(t, label);
		if (rk)
			table_numf(t, "%.0f", rk);
		else
			table_text(t, "-");
	}
}

void report_table_pools(struct table *t, const struct cluster *c)
{
	table_init(t, "Cluster");
	table_col(t, "pool", NULL, TABLE_LEFT);
	table_col(t, "GPU", NULL, TABLE_LEFT);
	table_col(t, "nodes x GPUs", NULL, TABLE_RIGHT);
	table_col(t, "intra-node", NULL, TABLE_LEFT);
	table_col(t, "network", NULL, TABLE_LEFT);
	table_col(t, "provider / region", NULL, TABLE_LEFT);
	table_col(t, "$/node-h", "USD/h", TABLE_RIGHT);
	table_col(t, "$/GPU-h", "USD/h", TABLE_RIGHT);
	table_col(t, "price source", NULL, TABLE_LEFT);
	table_col(t, "price date", NULL, TABLE_LEFT);
	for (int i = 0; i < c->n_pools; i++) {
		const struct pool *p = &c->pools[i];
		table_row(t, 0);
		table_text(t, p->name)->color = report_pool_color(i);
		table_text(t, p->gpu.name);
		table_textf(t, "%d%s x %d", p->nodes, p->nodes_max > 0 ? " (max)" : "", p->gpus_per_node);
		table_text(t, hp_intra_name(p->intra));
		table_textf(t, "%d x %.0f Gb/s", p->nics, p->nic_gbps);
		table_textf(t, "%s / %s", *p->provider ? p->provider : "-", *p->region ? p->region : "-");
		if (p->usd_per_node_h > 0) {
			table_numf(t, "%.2f", p->usd_per_node_h);
			table_numf(t, "%.2f", p->usd_per_node_h / HP_MAX(p->gpus_per_node, 1));
		} else {
			table_text(t, "unknown");
			table_text(t, "unknown");
		}
		char src[128], date[96];
		report_price_parts(p, src, sizeof src, date, sizeof date);
		table_text(t, src);
		table_text(t, date);
	}
}

void report_table_layout(struct table *t, const struct report_input *in,
			 const struct search_plan *sp, int max_rows)
{
	const struct cluster *c = in->cluster;
	const struct plan *p = &sp->plan;
	table_init(t, "Layout");
	table_col(t, "replica group", NULL, TABLE_RIGHT);
	table_col(t, "replicas", NULL, TABLE_RIGHT);
	table_col(t, "batch share each", "fraction", TABLE_RIGHT);
	table_col(t, "micro-batches", NULL, TABLE_RIGHT);
	table_col(t, "stage", NULL, TABLE_RIGHT);
	table_col(t, "pool", NULL, TABLE_LEFT);
	table_col(t, "GPU", NULL, TABLE_LEFT);
	table_col(t, "TP", NULL, TABLE_RIGHT);
	table_col(t, "layers", NULL, TABLE_LEFT);
	table_col(t, "nodes", NULL, TABLE_LEFT);
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

void report_table_step(struct table *t, const struct search_plan *sp)
{
	const struct estimate *e = &sp->est;
	int np;
	const struct report_part *parts = report_time_parts(&np);
	table_init(t, "Step time");
	table_col(t, "part", NULL, TABLE_LEFT);
	table_col(t, "seconds", "s", TABLE_RIGHT);
	table_col(t, "share", "fraction", TABLE_RIGHT);
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

int report_table_memory(struct table *t, const struct cluster *c, const struct search_plan *sp)
{
	const struct estimate *e = &sp->est;
	int nm;
	const struct report_part *parts = report_mem_parts(&nm);
	table_init(t, "Memory per GPU, by stage");
	table_col(t, "group", NULL, TABLE_RIGHT);
	table_col(t, "stage", NULL, TABLE_RIGHT);
	table_col(t, "pool", NULL, TABLE_LEFT);
	table_col(t, "layers", NULL, TABLE_LEFT);
	for (int i = 0; i < nm; i++)
		table_col(t, parts[i].label, "bytes", TABLE_RIGHT);
	table_col(t, "total", "bytes", TABLE_RIGHT);
	table_col(t, "capacity", "bytes", TABLE_RIGHT);
	table_col(t, "headroom", "bytes", TABLE_RIGHT);
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
		char x[32], y[48];
		snprintf(y, sizeof y, "%s%s", hp_fmt_bytes(x, sizeof x, st->capacity - st->total),
			 st->fits ? "" : " (does not fit)");
		table_num(t, y, st->capacity - st->total)->flags |= st->fits ? TABLE_GOOD : TABLE_BAD;
		shown++;
	}
	return e->n_stages - shown;
}

void report_table_comm(struct table *t, const struct search_plan *sp)
{
	const struct estimate *e = &sp->est;
	table_init(t, "Communication");
	table_col(t, "dim", NULL, TABLE_LEFT);
	table_col(t, "collective", NULL, TABLE_LEFT);
	table_col(t, "bytes per call", "bytes", TABLE_RIGHT);
	table_col(t, "calls per step", NULL, TABLE_RIGHT);
	table_col(t, "group", "GPUs", TABLE_RIGHT);
	table_col(t, "nodes", NULL, TABLE_RIGHT);
	table_col(t, "link", NULL, TABLE_LEFT);
	table_col(t, "algorithm", NULL, TABLE_LEFT);
	table_col(t, "protocol", NULL, TABLE_LEFT);
	table_col(t, "time per step", "s", TABLE_RIGHT);
	table_col(t, "exposed", "s", TABLE_RIGHT);
	for (int d = 0; d < DIM_COUNT; d++) {
		const struct perf_comm *pc = &e->comm[d];
		if (!pc->used)
			continue;
		table_row(t, 0);
		table_text(t, perf_dim_name((enum perf_dim)d));
		table_text(t, comm_coll_name(pc->coll));
		bytes_cell(t, pc->bytes);
		table_numf(t, "%.0f", pc->calls);
		table_numf(t, "%.0f", pc->group);
		table_numf(t, "%.0f", pc->group_nodes);
		table_text(t, pc->link);
		table_text(t, comm_algo_name(pc->algo));
		table_text(t, comm_proto_name(pc->proto));
		duration_cell(t, pc->time_s);
		duration_cell(t, pc->exposed_s);
	}
}

void report_table_accuracy(struct table *t)
{
	int n;
	const struct report_accuracy *acc = report_accuracy_table(&n);
	table_init(t, "Accuracy of the model against measured runs");
	table_col(t, "measured against", NULL, TABLE_LEFT);
	table_col(t, "rows", NULL, TABLE_RIGHT);
	table_col(t, "mean abs error", "percent", TABLE_RIGHT);
	table_col(t, "median abs error", "percent", TABLE_RIGHT);
	table_col(t, "max abs error", "percent", TABLE_RIGHT);
	table_col(t, "measured by", NULL, TABLE_LEFT);
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
		char sl[96], st[32], sr[96];
		report_plan_label(&r->stock, in->cluster, sl, sizeof sl);
		sbuf_addf(b, " The best plan a stock framework runs: %s, %s tokens/s on %d GPUs (%s).",
			  sl, hp_fmt_count(st, sizeof st, r->stock.est.tokens_per_s),
			  r->stock.est.n_gpus, runs_on_names(r->stock.runs_on, sr, sizeof sr));
	}
}
