/* workspace.c — load, save and default workspaces (schema in workspace.h). */
#include "workspace.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonx.h"

/* A pool's price is saved only when the user set it (cluster file, --pool,
 * an edit: pool.price_set); catalog and price-book prices are looked up
 * again on load. */
static int price_is_users(const struct pool *p)
{
	return p->price_set && p->usd_per_node_h > 0;
}

cJSON *cluster_to_json(const struct cluster *c)
{
	cJSON *o = cJSON_CreateObject();
	if (*c->name)
		cJSON_AddStringToObject(o, "name", c->name);
	cJSON *pools = cJSON_AddArrayToObject(o, "pools");
	for (int i = 0; i < c->n_pools; i++) {
		const struct pool *p = &c->pools[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", p->name);
		cJSON_AddStringToObject(j, "gpu", p->gpu.name);
		cJSON_AddNumberToObject(j, "gpus_per_node", p->gpus_per_node);
		if (p->nodes_max > 0) {
			cJSON *n = cJSON_AddObjectToObject(j, "nodes");
			cJSON_AddNumberToObject(n, "max", p->nodes_max);
		} else {
			cJSON_AddNumberToObject(j, "nodes", p->nodes);
		}
		cJSON_AddStringToObject(j, "intra", hp_intra_name(p->intra));
		cJSON_AddNumberToObject(j, "nics", p->nics);
		cJSON_AddNumberToObject(j, "nic_gbps", p->nic_gbps);
		if (p->transport != COMM_TRANSPORT_IB)
			cJSON_AddStringToObject(j, "transport",
						comm_transport_name(p->transport));
		if (*p->provider)
			cJSON_AddStringToObject(j, "provider", p->provider);
		if (*p->region)
			cJSON_AddStringToObject(j, "region", p->region);
		if (*p->site)
			cJSON_AddStringToObject(j, "site", p->site);
		if (price_is_users(p))
			cJSON_AddNumberToObject(j, "price_per_node_hour", p->usd_per_node_h);
		if (p->spot)
			cJSON_AddBoolToObject(j, "spot", 1);
		cJSON_AddItemToArray(pools, j);
	}
	cJSON *f = cJSON_AddObjectToObject(o, "fabric");
	cJSON_AddNumberToObject(f, "oversubscription", c->oversub);
	cJSON_AddNumberToObject(f, "inter_pool_gbps", c->inter_pool_gbps);
	cJSON_AddNumberToObject(f, "inter_pool_latency_us", c->inter_pool_latency_us);
	return o;
}

cJSON *model_to_json(const struct model_spec *m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", m->name);
	if (*m->display && strcmp(m->display, m->name))
		cJSON_AddStringToObject(o, "display", m->display);
	cJSON_AddNumberToObject(o, "layers", m->layers);
	cJSON_AddNumberToObject(o, "hidden", m->hidden);
	cJSON_AddNumberToObject(o, "heads", m->heads);
	cJSON_AddNumberToObject(o, "kv_heads", m->kv_heads);
	cJSON_AddNumberToObject(o, "head_dim", m->head_dim);
	cJSON_AddNumberToObject(o, "ffn", m->ffn);
	cJSON_AddBoolToObject(o, "gated_mlp", m->gated_mlp);
	cJSON_AddNumberToObject(o, "vocab", m->vocab);
	cJSON_AddNumberToObject(o, "seq_len", m->seq_len);
	cJSON_AddBoolToObject(o, "tied_embeddings", m->tied_embeddings);
	cJSON_AddStringToObject(o, "norm", m->norm == NORM_LAYER ? "layernorm" : "rmsnorm");
	cJSON_AddStringToObject(o, "position", m->position == POS_LEARNED ? "learned"
					       : m->position == POS_ALIBI ? "alibi" : "rope");
	cJSON_AddBoolToObject(o, "bias", m->bias);
	cJSON_AddBoolToObject(o, "qkv_bias", m->qkv_bias);
	cJSON_AddBoolToObject(o, "dropout", m->dropout);
	cJSON_AddBoolToObject(o, "embedding_norm", m->embedding_norm);
	if (m->moe.experts) {
		cJSON *e = cJSON_AddObjectToObject(o, "moe");
		cJSON_AddNumberToObject(e, "experts", m->moe.experts);
		cJSON_AddNumberToObject(e, "top_k", m->moe.top_k);
		cJSON_AddNumberToObject(e, "expert_ffn", m->moe.expert_ffn);
		cJSON_AddNumberToObject(e, "shared_experts", m->moe.shared_experts);
		cJSON_AddNumberToObject(e, "dense_layers", m->moe.dense_layers);
	}
	if (m->mla.kv_lora_rank) {
		cJSON *l = cJSON_AddObjectToObject(o, "mla");
		cJSON_AddNumberToObject(l, "q_lora_rank", m->mla.q_lora_rank);
		cJSON_AddNumberToObject(l, "kv_lora_rank", m->mla.kv_lora_rank);
		cJSON_AddNumberToObject(l, "qk_nope_dim", m->mla.qk_nope_dim);
		cJSON_AddNumberToObject(l, "qk_rope_dim", m->mla.qk_rope_dim);
		cJSON_AddNumberToObject(l, "v_dim", m->mla.v_dim);
	}
	if (m->published_params > 0)
		cJSON_AddNumberToObject(o, "published_params", m->published_params);
	if (m->published_active_params > 0)
		cJSON_AddNumberToObject(o, "published_active_params", m->published_active_params);
	return o;
}

int workspace_default(struct workspace *w, const struct catalog *cat, struct hp_err *err)
{
	static const char text[] =
		"{\"version\":1,"
		"\"cluster\":{\"name\":\"default\",\"pools\":["
		"{\"name\":\"h100\",\"gpu\":\"H100-SXM\",\"nodes\":4},"
		"{\"name\":\"a100\",\"gpu\":\"A100-80GB\",\"nodes\":8}]},"
		"\"model\":\"llama3.1-70b\","
		"\"workload\":{\"gbs\":1024,\"seq_len\":8192,\"tokens\":2e12}}";
	return workspace_parse(w, text, sizeof text - 1, "(default workspace)", cat, err);
}

int workspace_parse(struct workspace *w, const char *text, size_t len, const char *file,
		    const struct catalog *cat, struct hp_err *err)
{
	static const char *const known[] = { "version", "cluster", "model", "workload", NULL };
	static const char *const wk[] = { "gbs", "seq_len", "tokens", "precision", "objective",
					  "deadline_s", "budget_usd", "top", NULL };
	memset(w, 0, sizeof *w);
	cluster_init(&w->cluster);
	search_opts_init(&w->opts);
	cJSON *root = jx_parse(text, len, file, err);
	if (!root)
		return -1;
	int rc = -1, bad, version = 1;
	struct jx_ctx jc = { file, "", err };
	if (!cJSON_IsObject(root)) {
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: expected a workspace object with \"cluster\" and \"model\"", file);
		goto out;
	}
	if (jx_check_keys(&jc, root, known) < 0 ||
	    jx_int(&jc, root, "version", 0, 1, 1, &version) < 0)
		goto out;
	const cJSON *cl = jx_obj(&jc, root, "cluster", 1, &bad);
	if (bad)
		goto out;
	char *ctext = cJSON_PrintUnformatted(cl);
	char where[160];
	snprintf(where, sizeof where, "%.120s: cluster", file);
	int crc = cluster_parse_json(&w->cluster, ctext, strlen(ctext), where, cat, err);
	free(ctext);
	if (crc < 0)
		goto out;

	const cJSON *mo = cJSON_GetObjectItemCaseSensitive(root, "model");
	if (cJSON_IsString(mo)) {
		const struct model_spec *ms = catalog_model(cat, mo->valuestring);
		if (!ms) {
			snprintf(where, sizeof where, "%.120s: model", file);
			catalog_model_unknown(cat, mo->valuestring, where, err);
			goto out;
		}
		w->model = *ms;
		w->model_is_preset = 1;
	} else if (cJSON_IsObject(mo)) {
		if (catalog_parse_model(mo, file, "model", &w->model, err) < 0)
			goto out;
	} else {
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: model: expected a preset name or a model object", file);
		goto out;
	}

	const cJSON *wl = jx_obj(&jc, root, "workload", 0, &bad);
	if (bad)
		goto out;
	if (wl) {
		struct jx_ctx jw = { file, "workload", err };
		char prec[16] = "", obj[16] = "";
		if (jx_check_keys(&jw, wl, wk) < 0 ||
		    jx_int(&jw, wl, "gbs", 0, 1, 100000000, &w->opts.gbs) < 0 ||
		    jx_int(&jw, wl, "seq_len", 0, 1, 100000000, &w->opts.seq_len) < 0 ||
		    jx_num(&jw, wl, "tokens", 0, 1, 1e18, &w->opts.tokens) < 0 ||
		    jx_str(&jw, wl, "precision", 0, prec, sizeof prec) < 0 ||
		    jx_str(&jw, wl, "objective", 0, obj, sizeof obj) < 0 ||
		    jx_num(&jw, wl, "deadline_s", 0, 0, 1e10, &w->opts.deadline_s) < 0 ||
		    jx_num(&jw, wl, "budget_usd", 0, 0, 1e13, &w->opts.budget_usd) < 0 ||
		    jx_int(&jw, wl, "top", 0, 1, 1000, &w->opts.top_k) < 0)
			goto out;
		if (*prec && hp_dtype_parse(prec, &w->opts.precision)) {
			hp_err_set(err, HP_EXIT_INPUT,
				   "%s: workload.precision: expected bf16, fp16 or fp8, got \"%s\"",
				   file, prec);
			goto out;
		}
		if (*obj && search_objective_parse(obj, &w->opts.objective)) {
			hp_err_set(err, HP_EXIT_INPUT,
				   "%s: workload.objective: expected throughput, cost, deadline or budget, got \"%s\"",
				   file, obj);
			goto out;
		}
	}
	if (!w->opts.gbs)
		w->opts.gbs = 1024;
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

int workspace_load(struct workspace *w, const char *path, const struct catalog *cat,
		   struct hp_err *err)
{
	size_t len;
	char *text = hp_read_file(path, &len, err);
	if (!text)
		return -1;
	int rc = workspace_parse(w, text, len, path, cat, err);
	free(text);
	return rc;
}

char *workspace_to_string(const struct workspace *w)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddItemToObject(o, "cluster", cluster_to_json(&w->cluster));
	if (w->model_is_preset)
		cJSON_AddStringToObject(o, "model", w->model.name);
	else
		cJSON_AddItemToObject(o, "model", model_to_json(&w->model));
	cJSON *wl = cJSON_AddObjectToObject(o, "workload");
	const struct search_opts *so = &w->opts;
	cJSON_AddNumberToObject(wl, "gbs", so->gbs);
	if (so->seq_len)
		cJSON_AddNumberToObject(wl, "seq_len", so->seq_len);
	if (so->tokens > 0)
		cJSON_AddNumberToObject(wl, "tokens", so->tokens);
	cJSON_AddStringToObject(wl, "precision", hp_dtype_name(so->precision));
	cJSON_AddStringToObject(wl, "objective", search_objective_name(so->objective));
	if (so->deadline_s > 0)
		cJSON_AddNumberToObject(wl, "deadline_s", so->deadline_s);
	if (so->budget_usd > 0)
		cJSON_AddNumberToObject(wl, "budget_usd", so->budget_usd);
	cJSON_AddNumberToObject(wl, "top", so->top_k);
	char *s = cJSON_Print(o);
	cJSON_Delete(o);
	size_t n = strlen(s);
	char *out = xmalloc(n + 2);
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	cJSON_free(s);
	return out;
}

int workspace_save(const struct workspace *w, const char *path, struct hp_err *err)
{
	char *s = workspace_to_string(w);
	int rc = hp_write_file_atomic(path, s, strlen(s), err);
	free(s);
	return rc;
}
