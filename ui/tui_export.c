/* tui_export.c — `e`: write the selected plan's report to a file.
 *
 * JSON: the workspace inputs (cluster, model and workload in their input
 * schemas), the plan in the `estimate --plan` schema, and the estimate's
 * numbers (SI units). Markdown: the same for people. Written atomically.
 * A path ending in .html or .csv gets the shared report (report.c) with
 * this plan detailed; .json and .md keep this small writer, whose JSON keys
 * follow `hetplan estimate --format json`. */
#include "common.h"
#include "escape.h"
#include "cmd_report.h"
#include "sbuf.h"
#include "tui_int.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cJSON *estimate_to_json(const struct search_plan *sp, const struct cluster *c)
{
	const struct estimate *e = &sp->est;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", sp->label);
	cJSON_AddNumberToObject(o, "gpus", e->n_gpus);
	cJSON_AddNumberToObject(o, "seq_len", e->seq_len);
	cJSON_AddNumberToObject(o, "step_time_s", e->step_time_s);
	cJSON_AddNumberToObject(o, "tokens_per_s", e->tokens_per_s);
	cJSON_AddNumberToObject(o, "mfu", e->mfu);
	cJSON_AddNumberToObject(o, "hfu", e->hfu);
	cJSON_AddNumberToObject(o, "model_tflops_per_gpu", e->model_tflops_per_gpu);
	if (e->price_known) {
		cJSON_AddNumberToObject(o, "usd_per_hour", e->usd_per_hour);
		cJSON_AddNumberToObject(o, "usd_per_million_tokens", e->usd_per_mtok);
	} else {
		cJSON_AddNullToObject(o, "usd_per_hour");
		cJSON_AddNullToObject(o, "usd_per_million_tokens");
	}
	cJSON_AddNumberToObject(o, "time_to_train_s", sp->time_to_train_s);
	if (sp->cost_to_train_usd > 0)
		cJSON_AddNumberToObject(o, "cost_to_train_usd", sp->cost_to_train_usd);
	else
		cJSON_AddNullToObject(o, "cost_to_train_usd");
	cJSON_AddBoolToObject(o, "pareto", sp->pareto);
	cJSON_AddStringToObject(o, "optimality", search_optimality_name(sp->optimality));
	cJSON_AddNumberToObject(o, "power_kw", e->power_kw);
	report_estimate_json_parts(o, e, c);
	return o;
}

static char *export_json(const struct tui_result *r, const struct search_plan *sp)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "generator", "hetplan " HETPLAN_VERSION);
	cJSON_AddItemToObject(o, "cluster", cluster_to_json(&r->c));
	cJSON_AddItemToObject(o, "model", model_to_json(&r->m));
	cJSON *w = cJSON_AddObjectToObject(o, "workload");
	cJSON_AddNumberToObject(w, "gbs", r->o.gbs);
	cJSON_AddNumberToObject(w, "seq_len", r->o.seq_len ? r->o.seq_len : r->m.seq_len);
	cJSON_AddNumberToObject(w, "tokens", r->o.tokens > 0 ? r->o.tokens : 1e12);
	cJSON_AddStringToObject(w, "precision", hp_dtype_name(r->o.precision));
	cJSON_AddStringToObject(w, "objective", search_objective_name(r->o.objective));
	cJSON_AddItemToObject(o, "plan", plan_to_json(&sp->plan, &r->c));
	cJSON_AddItemToObject(o, "estimate", estimate_to_json(sp, &r->c));
	char *s = esc_json_print(o);
	cJSON_Delete(o);
	return s;
}

static char *export_md(const struct tui_result *r, const struct search_plan *sp)
{
	const struct estimate *e = &sp->est;
	const struct plan *p = &sp->plan;
	struct sbuf b;
	sbuf_init(&b);
	char x1[32], x2[32], x3[32];
	sbuf_addf(&b, "# hetplan plan: %s\n\n", sp->label);
	sbuf_addf(&b, "%s on %d GPUs of cluster \"%s\"; global batch %d x %d tokens, %s, "
		  "objective %s.\n\n", r->m.display, e->n_gpus, r->c.name, p->gbs, e->seq_len,
		  hp_dtype_name(p->precision), search_objective_name(r->o.objective));
	sbuf_addf(&b, "| metric | value |\n|---|---:|\n");
	sbuf_addf(&b, "| tokens/s | %s |\n", hp_fmt_count(x1, sizeof x1, e->tokens_per_s));
	sbuf_addf(&b, "| MFU | %.1f%% |\n", 100 * e->mfu);
	sbuf_addf(&b, "| step time | %s |\n", hp_fmt_duration(x1, sizeof x1, e->step_time_s));
	if (e->price_known) {
		sbuf_addf(&b, "| $/hour | %.2f |\n", e->usd_per_hour);
		sbuf_addf(&b, "| $ per 1M tokens | %.3f |\n", e->usd_per_mtok);
	}
	sbuf_addf(&b, "| tokens to train | %s |\n",
		  hp_fmt_count(x1, sizeof x1, r->o.tokens > 0 ? r->o.tokens : 1e12));
	sbuf_addf(&b, "| time to train | %s |\n", hp_fmt_duration(x1, sizeof x1, sp->time_to_train_s));
	if (sp->cost_to_train_usd > 0)
		sbuf_addf(&b, "| cost to train | $%.0f |\n", sp->cost_to_train_usd);
	sbuf_addf(&b, "| Pareto (time, cost) | %s |\n\n", sp->pareto ? "yes" : "no");
	sbuf_addf(&b, "## Settings\n\nmicro-batch %d, recompute %s, ZeRO-%d%s, %s, CP %d, EP %d.\n\n",
		  p->mbs, plan_recompute_name(p->recompute), p->zero,
		  p->master == MASTER_REPLICATED ? " (fp32 master replicated)" : "",
		  p->schedule == SCHED_INTERLEAVED ? "interleaved 1F1B" : "1F1B", p->cp ? p->cp : 1,
		  p->ep ? p->ep : 1);
	sbuf_addf(&b, "## Layout\n\n| group | replicas | batch share | stage | pool | GPU | TP | layers |\n"
		  "|---:|---:|---:|---:|---|---|---:|---|\n");
	for (int g = 0; g < p->n_replicas; g++)
		for (int s = 0; s < p->replicas[g].n_stages; s++) {
			const struct stage *st = &p->replicas[g].stages[s];
			sbuf_addf(&b, "| %d | %d | %.2f%% | %d | %s | %s | %d | %d-%d |\n", g + 1,
				  p->replicas[g].count, 100 * p->replicas[g].batch_share, s,
				  r->c.pools[st->pool].name, r->c.pools[st->pool].gpu.name, st->tp,
				  st->first_layer, st->last_layer);
		}
	static const char *const bdn[] = { "compute", "recompute", "TP comm", "PP comm", "DP comm",
					   "EP comm", "CP comm", "bubble", "optimizer", "overhead" };
	double bdv[] = { e->bd.compute, e->bd.recompute, e->bd.tp_comm, e->bd.pp_comm, e->bd.dp_comm,
			 e->bd.ep_comm, e->bd.cp_comm, e->bd.bubble, e->bd.optimizer, e->bd.overhead };
	double sum = 0;
	for (int i = 0; i < 10; i++)
		sum += bdv[i];
	sbuf_addf(&b, "\n## Step time\n\n| part | time | share |\n|---|---:|---:|\n");
	for (int i = 0; i < 10; i++)
		if (bdv[i] > 0)
			sbuf_addf(&b, "| %s | %s | %.1f%% |\n", bdn[i],
				  hp_fmt_duration(x1, sizeof x1, bdv[i]), sum > 0 ? 100 * bdv[i] / sum : 0);
	sbuf_addf(&b, "\n## Memory per GPU\n\n| group | stage | pool | TP | layers | used | capacity | fits |\n"
		  "|---:|---:|---|---:|---|---:|---:|---|\n");
	for (int i = 0; i < e->n_stages; i++) {
		const struct perf_stage *s = &e->stages[i];
		sbuf_addf(&b, "| %d | %d | %s | %d | %d-%d | %s | %s | %s |\n", s->group + 1, s->index,
			  r->c.pools[s->pool].name, s->tp, s->first_layer, s->last_layer,
			  hp_fmt_bytes(x1, sizeof x1, s->total), hp_fmt_bytes(x2, sizeof x2, s->capacity),
			  s->fits ? "yes" : "no");
	}
	sbuf_addf(&b, "\n## Communication per step\n\n| dim | collective | bytes | group | links | algorithm | time | exposed |\n"
		  "|---|---|---:|---:|---|---|---:|---:|\n");
	for (int d = 0; d < DIM_COUNT; d++) {
		const struct perf_comm *pc = &e->comm[d];
		if (!pc->used)
			continue;
		sbuf_addf(&b, "| %s | %s | %s | %d | %s | %s/%s | %s | %s |\n",
			  perf_dim_name((enum perf_dim)d), comm_coll_name(pc->coll),
			  hp_fmt_bytes(x1, sizeof x1, pc->bytes), pc->group, pc->link,
			  comm_algo_name(pc->algo), comm_proto_name(pc->proto),
			  hp_fmt_duration(x2, sizeof x2, pc->time_s),
			  hp_fmt_duration(x3, sizeof x3, pc->exposed_s));
	}
	cJSON *pj = plan_to_json(p, &r->c);
	char *ps = esc_json_print(pj);
	cJSON_Delete(pj);
	sbuf_addf(&b, "\n## Plan (for `hetplan estimate --plan`)\n\n```json\n%s\n```\n", ps);
	free(ps);
	return sbuf_take(&b, NULL);
}

int tui_export(const struct tui *t, int id, const char *path, struct hp_err *err)
{
	const struct search_plan *sp = tui_plan_get(t, id);
	if (!sp)
		return hp_err_set(err, HP_EXIT_FAIL, "no plan to export yet");
	enum report_format rf;
	if (report_format_from_path(path, &rf) == 0 && (rf == REPORT_HTML || rf == REPORT_CSV)) {
		/* .html and .csv: the shared report (report.c) detailing this plan */
		const struct search_result *r = &t->cur->res;
		int chosen = 0;
		for (int i = 0; i < r->n_plans; i++)
			if (&r->plans[i] == sp || (!strcmp(r->plans[i].label, sp->label) &&
						   r->plans[i].est.step_time_s == sp->est.step_time_s))
				chosen = i;
		struct report_input in = { &t->cur->c, &t->cur->m, &t->cur->o, r, chosen, time(NULL),
					   HETPLAN_VERSION };
		return report_write_file(path, rf, &in, err);
	}
	size_t n = strlen(path);
	int json = n > 5 && !strcmp(path + n - 5, ".json");
	char *s = json ? export_json(t->cur, sp) : export_md(t->cur, sp);
	int rc = hp_write_file_atomic(path, s, strlen(s), err);
	free(s);
	return rc;
}
