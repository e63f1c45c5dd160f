/* test_report.c — the report renderers on a planner result built by hand.
 *
 * The result is put together from plan_uniform()/hand-written plans and
 * perf_estimate(), the way search_run() fills it, so these tests do not
 * depend on the planner. The facts checked are the formats' contracts
 * (keys, columns, escaping, no external resources) and placements worked
 * out by hand in the comments.
 *
 *   test_report              run the tests
 *   test_report --write DIR  also write DIR/report.{md,html,json,csv} (the
 *                            screenshot test in tests/test_report_cli.sh used
 *                            them when the planner is not available) */
#include "t.h"
#include "report.h"
#include "workspace.h"
#include "jsonx.h"
#include "table.h"

#include <stdlib.h>

static struct catalog cat;
static struct workspace ws;
static struct search_result res;

/* Cluster: pool 0 "h100" 4 x 8 H100-SXM, pool 1 "a100" 8 x 8 A100-80GB
 * (the default workspace), Llama-3.1 70B, gbs 1024 x 8192. */
static void add_plan(struct search_plan *sp, const struct plan *p)
{
	struct hp_err err = { 0 };
	memset(sp, 0, sizeof *sp);
	plan_copy(&sp->plan, p);
	if (plan_validate(&sp->plan, &ws.cluster, &ws.model, "test", &err) < 0 ||
	    perf_estimate(&ws.cluster, &ws.model, &sp->plan, NULL, &sp->est, &err) < 0) {
		fprintf(stderr, "fixture: %s\n", err.msg);
		exit(2);
	}
	plan_gpus(&sp->plan, sp->gpus_used);
	sp->time_to_train_s = ws.opts.tokens / sp->est.tokens_per_s;
	sp->cost_to_train_usd = sp->est.usd_per_hour * sp->time_to_train_s / 3600;
	sp->optimality = OPTIMAL_HEURISTIC;
	sp->single_pool = -1;
}

static void uniform(struct plan *p, int pool, int tp, int pp, int dp, int mbs)
{
	struct hp_err err = { 0 };
	plan_init(p);
	p->gbs = ws.opts.gbs;
	p->mbs = mbs;
	p->recompute = RC_SELECTIVE;
	if (plan_uniform(p, &ws.cluster, &ws.model, pool, tp, pp, dp, &err) < 0)
		exit(2);
}

static int by_speed(const void *a, const void *b)
{
	const struct search_plan *x = a, *y = b;
	return (x->est.tokens_per_s < y->est.tokens_per_s) - (x->est.tokens_per_s > y->est.tokens_per_s);
}

static void build_fixture(const char *pool0_name)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0 || workspace_default(&ws, &cat, &err) < 0) {
		fprintf(stderr, "fixture: %s\n", err.msg);
		exit(2);
	}
	if (pool0_name)
		hp_strlcpy(ws.cluster.pools[0].name, pool0_name, sizeof ws.cluster.pools[0].name);
	struct plan p;
	memset(&res, 0, sizeof res);
	res.plans = xcalloc(4, sizeof *res.plans);
	uniform(&p, 0, 8, 4, 1, 1);       /* 32 H100 */
	add_plan(&res.plans[res.n_plans++], &p);
	plan_free(&p);
	uniform(&p, 1, 8, 4, 2, 1);       /* 64 A100 */
	add_plan(&res.plans[res.n_plans++], &p);
	plan_free(&p);
	/* Both pools: one H100 pipeline and two A100 pipelines, TP8 PP4 each,
	 * the H100 replica taking a larger share of the batch. */
	uniform(&p, 0, 8, 4, 1, 1);
	p.replicas = xrealloc(p.replicas, 2 * sizeof *p.replicas);
	p.n_replicas = 2;
	p.replicas[1] = p.replicas[0];
	p.replicas[1].stages = xmalloc(4 * sizeof(struct stage));
	memcpy(p.replicas[1].stages, p.replicas[0].stages, 4 * sizeof(struct stage));
	for (int s = 0; s < 4; s++)
		p.replicas[1].stages[s].pool = 1;
	p.replicas[0].batch_share = 0.375;
	p.replicas[1].count = 2;
	p.replicas[1].batch_share = 0.3125;
	add_plan(&res.plans[res.n_plans++], &p);
	plan_free(&p);
	qsort(res.plans, (size_t)res.n_plans, sizeof *res.plans, by_speed);
	for (int i = 0; i < res.n_plans; i++) {
		struct search_plan *sp = &res.plans[i];
		/* on the front unless a faster plan is also no dearer */
		sp->pareto = 1;
		for (int k = 0; k < i; k++)
			if (res.plans[k].cost_to_train_usd <= sp->cost_to_train_usd)
				sp->pareto = 0;
		int used = -1, n = 0;
		for (int k = 0; k < ws.cluster.n_pools; k++)
			if (sp->gpus_used[k]) {
				used = k;
				n++;
			}
		if (n == 1) {
			sp->single_pool = used;
			res.has_single[used] = 1;
			add_plan(&res.single[used], &sp->plan);
			res.single[used].single_pool = used;
		}
	}
	res.pareto = xcalloc((size_t)res.n_plans, sizeof *res.pareto);
	for (int i = 0; i < res.n_plans; i++)
		if (res.plans[i].pareto) {
			add_plan(&res.pareto[res.n_pareto], &res.plans[i].plan);
			res.pareto[res.n_pareto++].pareto = 1;
		}
	res.plans[0].optimality = OPTIMAL_PROVEN;
	res.stats = (struct search_stats){ .candidates = 1200, .evaluated = 950, .pruned = 250,
					   .lp_solves = 3, .seconds = 0.42 };
}

static char *render(enum report_format f, int chosen)
{
	struct report_input in = { &ws.cluster, &ws.model, &ws.opts, &res, chosen,
				   (time_t)1795996800 /* 2026-11-30 00:00 UTC */, "0.1.0", NULL };
	struct hp_err err = { 0 };
	char *out = NULL;
	size_t len;
	if (report_render(&in, f, &out, &len, &err) < 0)
		return NULL;
	CHECK(strlen(out) == len);
	return out;
}

TEST(fixture_is_sane)
{
	CHECK_EQ_INT(res.n_plans, 3);
	for (int i = 0; i < res.n_plans; i++)
		CHECK(res.plans[i].est.fits);
	/* the mixed plan uses all 96 GPUs, so it is the fastest */
	CHECK_EQ_INT(res.plans[0].est.n_gpus, 96);
}

TEST(json_keys_and_schema)
{
	char *s = render(REPORT_JSON, 0);
	struct hp_err err = { 0 };
	cJSON *o = jx_parse(s, strlen(s), "report.json", &err);
	CHECK(o != NULL);
	if (!o) {
		free(s);
		return;
	}
	static const char *const top[] = { "schema_version", "generator", "generated_at", "inputs",
					   "chosen", "plans", "pareto", "single_pool", "search",
					   "accuracy" };
	for (size_t i = 0; i < HP_ARRAY_LEN(top); i++)
		CHECK(cJSON_GetObjectItemCaseSensitive(o, top[i]) != NULL);
	CHECK_EQ_INT(cJSON_GetObjectItem(o, "schema_version")->valueint, 1);
	CHECK_STR(cJSON_GetObjectItem(o, "generated_at")->valuestring, "2026-11-30T00:00:00Z");
	cJSON *plans = cJSON_GetObjectItem(o, "plans");
	CHECK_EQ_INT(cJSON_GetArraySize(plans), 3);
	/* The plan-entry contract of `hetplan plan --format json`, key for key. */
	static const char *const keys[] = {
		"rank", "label", "list_label", "step_time_s", "tokens_per_s", "mfu", "hfu", "usd_per_hour",
		"usd_per_million_tokens", "time_to_train_s", "cost_to_train_usd", "gpus_used",
		"networks", "mbs", "gbs", "precision",
		"recompute", "zero", "schedule", "cp", "ep", "sp", "flash", "framework",
		"tp_overlap", "grad_overlap", "param_overlap", "grad_reduce_fp32", "fp8_params", "ep_overlap", "replicas",
		"links",
		"breakdown_group", "breakdown_s", "memory", "comm", "optimality", "pareto", "runs_on", "runs_on_why",
		"memory_verdict", "mem_need_bytes", "mem_capacity_bytes",
	};
	cJSON *p0 = cJSON_GetArrayItem(plans, 0);
	int n = 0;
	for (cJSON *k = p0->child; k; k = k->next)
		n++;
	CHECK_EQ_INT(n, (int)HP_ARRAY_LEN(keys));
	for (size_t i = 0; i < HP_ARRAY_LEN(keys); i++)
		if (!cJSON_GetObjectItemCaseSensitive(p0, keys[i]))
			T_FAILF("plan entry lacks \"%s\"", keys[i]);
	CHECK_EQ_INT(cJSON_GetObjectItem(p0, "rank")->valueint, 1);
	CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(p0, "optimality"), "status")->valuestring,
		  "optimal");
	CHECK_STR(cJSON_GetObjectItem(p0, "label")->valuestring, "mixed: TP8 PP4 DP3");
	cJSON *gu = cJSON_GetObjectItem(p0, "gpus_used");
	CHECK_EQ_INT(cJSON_GetObjectItem(gu, "h100")->valueint, 32);
	CHECK_EQ_INT(cJSON_GetObjectItem(gu, "a100")->valueint, 64);
	/* Each used pool's network, exactly: the default workspace's pools
	 * take their GPU's usual node, a DGX H100 (8 x ConnectX-7 400 Gb/s,
	 * NVSwitch; NVIDIA DGX H100 datasheet) and a DGX A100 (8 x 200 Gb/s
	 * HDR, NVSwitch; DGX A100 datasheet), on InfiniBand. */
	char *nw = cJSON_PrintUnformatted(cJSON_GetObjectItem(p0, "networks"));
	CHECK_STR(nw, "{\"h100\":{\"nics\":8,\"nic_gbps\":400,\"transport\":\"ib\","
		      "\"intra\":\"nvswitch\"},\"a100\":{\"nics\":8,\"nic_gbps\":200,"
		      "\"transport\":\"ib\",\"intra\":\"nvswitch\"}}");
	free(nw);
	cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(p0, "replicas"), 0), "stages"), 0);
	static const char *const sk[] = { "pool", "gpu", "tp", "first_layer", "last_layer", "nodes" };
	for (size_t i = 0; i < HP_ARRAY_LEN(sk); i++)
		CHECK(cJSON_GetObjectItemCaseSensitive(st, sk[i]) != NULL);
	cJSON *search = cJSON_GetObjectItem(o, "search");
	CHECK_EQ_INT(cJSON_GetObjectItem(search, "candidates")->valueint, 1200);
	CHECK_EQ_INT(cJSON_GetObjectItem(search, "evaluated")->valueint, 950);
	CHECK_EQ_INT(cJSON_GetObjectItem(search, "pruned")->valueint, 250);
	cJSON *pr = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "inputs"), "prices"), 0);
	CHECK(cJSON_GetObjectItem(pr, "source") && cJSON_GetObjectItem(pr, "usd_per_node_hour"));
	cJSON_Delete(o);
	free(s);
}

/* Every plan entry feeds back into `estimate --plan` and gives the same
 * step time. */
TEST(json_plan_entry_is_an_estimate_input)
{
	for (int i = 0; i < res.n_plans; i++) {
		cJSON *j = report_plan_json(&res.plans[i], i + 1, &res, &ws.cluster, &ws.model);
		report_plan_strip_extras(j);
		char *s = cJSON_PrintUnformatted(j);
		struct plan p;
		struct estimate e;
		struct hp_err err = { 0 };
		plan_init(&p);
		int ok = plan_parse_json(&p, s, strlen(s), "entry", &ws.cluster, &err) == 0 &&
			 plan_validate(&p, &ws.cluster, &ws.model, "entry", &err) == 0 &&
			 perf_estimate(&ws.cluster, &ws.model, &p, NULL, &e, &err) == 0;
		if (!ok)
			T_FAILF("plan %d: %s", i + 1, err.msg);
		else {
			CHECK_NEAR(e.step_time_s, res.plans[i].est.step_time_s, 1e-12);
			estimate_free(&e);
		}
		plan_free(&p);
		free(s);
		cJSON_Delete(j);
	}
}

/* Placement, by hand: the mixed plan's H100 replica has four TP8 stages on
 * 8-GPU nodes, one node each, consecutive stages on neighbouring nodes:
 * stage k on node k. Its two A100 replicas take A100 nodes 0-3 and 4-7
 * (one replica's pipeline after the other), or, with data-parallel peers
 * placed first, nodes 2k and 2k + 1; either way each A100 stage spans two
 * distinct nodes of the eight and the four stages use all eight once. */
TEST(json_nodes_in_order)
{
	const struct search_plan *mixed = &res.plans[0];
	cJSON *j = report_plan_json(mixed, 1, &res, &ws.cluster, &ws.model);
	cJSON *reps = cJSON_GetObjectItem(j, "replicas");
	unsigned seen = 0;
	for (int s = 0; s < 4; s++) {
		cJSON *n0 = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(
			cJSON_GetArrayItem(reps, 0), "stages"), s), "nodes");
		cJSON *n1 = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(
			cJSON_GetArrayItem(reps, 1), "stages"), s), "nodes");
		CHECK_EQ_INT(cJSON_GetArraySize(n0), 1);
		CHECK_EQ_INT(cJSON_GetArrayItem(n0, 0)->valueint, s);
		CHECK_EQ_INT(cJSON_GetArraySize(n1), 2);
		int a = cJSON_GetArrayItem(n1, 0)->valueint, b = cJSON_GetArrayItem(n1, 1)->valueint;
		CHECK((a == s && b == s + 4) || (a == 2 * s && b == 2 * s + 1));
		seen |= 1u << a | 1u << b;
	}
	CHECK_EQ_INT(seen, 0xff);
	cJSON_Delete(j);
}

static int count_fields(const char *line)
{
	int n = 1, q = 0;
	for (; *line && *line != '\n'; line++) {
		if (*line == '"')
			q = !q;
		else if (*line == ',' && !q)
			n++;
	}
	return n;
}

TEST(csv_one_row_per_plan)
{
	char *s = render(REPORT_CSV, 0);
	int lines = 0;
	for (char *p = s; *p; p++)
		lines += *p == '\n';
	CHECK_EQ_INT(lines, 1 + res.n_plans);
	CHECK(!strncmp(s, REPORT_CSV_COLUMNS "\n", strlen(REPORT_CSV_COLUMNS) + 1));
	int want = count_fields(REPORT_CSV_COLUMNS);
	CHECK_EQ_INT(want, 30);
	for (char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		CHECK_EQ_INT(count_fields(p), want);
	free(s);
}

TEST(markdown_sections)
{
	char *s = render(REPORT_MD, 1);
	static const char *const want[] = {
		"# Training plan: Llama-3.1 70B on default", "## Summary", "## Inputs",
		"### Cluster", "price source", "catalog reference", "### Workload", "## Top plans",
		"## Chosen plan: rank 2", "### Layout", "### Step time", "### Memory per GPU",
		"### Communication", "### Cost to train", "## Pareto front",
		"## Best plan on each pool alone", "## Assumptions and limits",
		"## Accuracy of the model",
		"Generated 2026-11-30 00:00 UTC by hetplan 0.1.0",
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(want); i++)
		CHECK_CONTAINS(s, want[i]);
	free(s);
}

/* A plan whose breakdown has a host offload line (ZeRO-Offload here,
 * set here by hand on the chosen plan: the renderers' contract, not the
 * model's figure) shows it in the Markdown step table, the HTML bar and
 * the JSON breakdown beside the other parts, so the parts add up to the
 * step in every format; a plan without it keeps the JSON key out. */
TEST(offload_line_in_every_format)
{
	struct estimate *e = &res.plans[1].est;
	double saved = e->bd.offload;
	e->bd.offload = 1.25;
	char *md = render(REPORT_MD, 1);
	CHECK(md != NULL);
	if (md) {
		const char *st = strstr(md, "### Step time");
		CHECK(st != NULL);
		const char *row = st ? strstr(st, "host offload") : NULL;
		const char *next = st ? strstr(st, "### Memory per GPU") : NULL;
		CHECK(row != NULL && next != NULL && row < next);
		CHECK(row != NULL && strstr(row, "1.250") != NULL);
	}
	free(md);
	char *html = render(REPORT_HTML, 1);
	CHECK(html != NULL && strstr(html, "host offload") != NULL);
	free(html);
	char *js = render(REPORT_JSON, 1);
	CHECK(js != NULL && strstr(js, "\"offload\":\t1.25") != NULL);
	free(js);
	e->bd.offload = saved;
	js = render(REPORT_JSON, 1);
	CHECK(js != NULL && strstr(js, "\"offload\":") == NULL);
	free(js);
}

TEST(html_self_contained)
{
	char *s = render(REPORT_HTML, 0);
	CHECK(!strncmp(s, "<!DOCTYPE html>", 15));
	CHECK_CONTAINS(s, "</html>");
	CHECK_CONTAINS(s, "@media print");
	/* four charts */
	int svgs = 0;
	for (const char *p = s; (p = strstr(p, "<svg")); p++)
		svgs++;
	CHECK_EQ_INT(svgs, 4);
	static const char *const banned[] = { "src=", "href=", "url(", "@import", "<link",
					      "<script", "http://", "https://" };
	for (size_t i = 0; i < HP_ARRAY_LEN(banned); i++)
		if (strstr(s, banned[i]))
			T_FAILF("HTML contains %s", banned[i]);
	free(s);
}

/* User strings are text, never markup. */
TEST(html_escapes_user_strings)
{
	search_result_free(&res);
	catalog_done(&cat);
	build_fixture("<b>x&y\"</b>");
	char *s = render(REPORT_HTML, 0);
	CHECK(!strstr(s, "<b>x&y"));
	CHECK_CONTAINS(s, "&lt;b&gt;x&amp;y&quot;&lt;/b&gt;");
	free(s);
	s = render(REPORT_MD, 0);
	/* Markdown renderers pass raw HTML through, so it is escaped too:
	 * each '<' (a '>' after text opens no tag and stays; esc_md) */
	CHECK(!strstr(s, "<b>x&y"));
	CHECK_CONTAINS(s, "&lt;b>x&amp;y&quot;&lt;/b>");
	free(s);
	s = render(REPORT_CSV, 0);
	CHECK_CONTAINS(s, "\"<b>x&y\"\"</b>:32");  /* RFC 4180 quoting */
	free(s);
}

/* The cluster table names each pool's transport and its unit prices in
 * table_rate's words, in Markdown and HTML; the one-plan Markdown (the
 * TUI's export) names the transport of a pool it uses that is not on ib,
 * as plan's detail does. Prices: data/gpus.json's reference $6.88 per
 * H100-SXM GPU-hour x 8 = 55.04 a node-hour, $2.946 per A100-SXM4-80GB
 * GPU-hour x 8 = 23.568, each to a tenth of a cent. */
TEST(transport_and_unit_prices)
{
	ws.cluster.pools[0].transport = COMM_TRANSPORT_TCPXO;
	char *s = render(REPORT_MD, 0);
	CHECK_CONTAINS(s, "| network | transport | provider / region | $/node-h | $/GPU-h |");
	CHECK_CONTAINS(s, "| h100 | H100-SXM | 4 x 8 | nvswitch | 8 x 400 Gb/s | tcpxo | - / - | "
		       "55.040 | 6.880 |");
	CHECK_CONTAINS(s, "| a100 | A100-SXM4-80GB | 8 x 8 | nvswitch | 8 x 200 Gb/s | ib | - / - | "
		       "23.568 | 2.946 |");
	free(s);
	s = render(REPORT_HTML, 0);
	CHECK_CONTAINS(s, "<td>8 x 400 Gb/s</td><td>tcpxo</td>");
	CHECK_CONTAINS(s, "<td>8 x 200 Gb/s</td><td>ib</td>");
	CHECK_CONTAINS(s, ">55.040</td>");
	CHECK_CONTAINS(s, ">2.946</td>");
	free(s);
	/* CSV: the transports column (the fifth) names each pool a plan uses,
	 * as gpus_by_pool counts them (the fixture's plans: 32 H100, 64 A100,
	 * and one H100 and two A100 pipelines of TP8 PP4: 32 + 64) */
	s = render(REPORT_CSV, 0);
	CHECK_CONTAINS(s, ",h100:32,h100:tcpxo,");
	CHECK_CONTAINS(s, ",a100:64,a100:ib,");
	CHECK_CONTAINS(s, ",h100:32;a100:64,h100:tcpxo;a100:ib,");
	free(s);
	struct report_input in = { &ws.cluster, &ws.model, &ws.opts, &res, 0, 0, "0.1.0", NULL };
	for (int i = 0; i < res.n_plans; i++) {
		s = report_plan_md(&in, &res.plans[i]);
		/* "Transport: h100 tcpxo." exactly when the plan uses pool 0 */
		CHECK_EQ_INT(strstr(s, "\nTransport: h100 tcpxo.\n") != NULL,
			     res.plans[i].gpus_used[0] > 0);
		CHECK(strstr(s, "a100 ib") == NULL);
		free(s);
	}
	ws.cluster.pools[0].transport = COMM_TRANSPORT_IB;
	s = report_plan_md(&in, &res.plans[0]);
	CHECK(strstr(s, "Transport:") == NULL);
	free(s);
}

TEST(bad_chosen_index)
{
	struct report_input in = { &ws.cluster, &ws.model, &ws.opts, &res, 7, 0, "0.1.0", NULL };
	struct hp_err err = { 0 };
	char *out = NULL;
	size_t len;
	CHECK(report_render(&in, REPORT_MD, &out, &len, &err) == -1);
	CHECK_CONTAINS(err.msg, "chosen plan 8 is out of range (the result has 3 plans)");
	CHECK(out == NULL);
}

TEST(nothing_fits)
{
	struct search_result empty = { 0 };
	snprintf(empty.why, sizeof empty.why, "no layout of Llama-3.1 70B fits in 80 GB");
	struct report_input in = { &ws.cluster, &ws.model, &ws.opts, &empty, 0, 0, "0.1.0", NULL };
	struct hp_err err = { 0 };
	char *out;
	size_t len;
	for (int f = 0; f < REPORT_FORMAT_COUNT; f++) {
		CHECK(report_render(&in, (enum report_format)f, &out, &len, &err) == 0);
		if (f != REPORT_CSV)
			CHECK_CONTAINS(out, "fits in 80 GB");
		free(out);
	}
}

TEST(format_names)
{
	enum report_format f;
	CHECK(report_format_from_path("out/Plan.HTML", &f) == 0 && f == REPORT_HTML);
	CHECK(report_format_from_path("r.markdown", &f) == 0 && f == REPORT_MD);
	CHECK(report_format_from_path("r.csv", &f) == 0 && f == REPORT_CSV);
	CHECK(report_format_from_path("r.txt", &f) == -1);
	CHECK(report_format_from_path("dir.d/report", &f) == -1);
	CHECK(report_format_parse("json", &f) == 0 && f == REPORT_JSON);
	CHECK(report_format_parse("pdf", &f) == -1);
}

/* A table with hostile cells through every sink; the expected text is
 * written out by hand from escape.h's contracts: Markdown and HTML use
 * entities for & < > " ', Markdown escapes | as \|, CSV quotes a field
 * holding , or " (doubling the ") and puts ' before a leading = unless the
 * field is a number (quoting that field too, as OWASP's CSV-injection advice
 * has it), the terminal shows ESC as ^[. */
static void hostile_table(struct table *t)
{
	table_init(t, "hostile");
	table_col(t, "name", NULL, TABLE_LEFT);
	table_col(t, "v", "s", TABLE_RIGHT);
	table_row(t, 0);
	table_text(t, "a,b\"<script>|x");
	table_num(t, "1.5 s", 1.5);
	table_row(t, 0);
	table_text(t, "=cmd");
	table_text(t, "-4");
	table_row(t, 0);
	table_text(t, "e\033[2J");
}

static char *render_table(void (*r)(struct sbuf *, const struct table *))
{
	struct table t;
	struct sbuf b;
	hostile_table(&t);
	sbuf_init(&b);
	r(&b, &t);
	table_done(&t);
	return sbuf_take(&b, NULL);
}

TEST(table_sinks_escape)
{
	char *s = render_table(table_render_md);
	CHECK_STR(s, "| name | v |\n|---|---:|\n"
		     "| a,b&quot;&lt;script>\\|x | 1.5 s |\n"
		     "| =cmd | -4 |\n"
		     "| e\\\\x1B\\[2J | |\n");   /* ESC as \\x1B, the text's [ escaped (esc_md) */
	free(s);
	s = render_table(table_render_html);
	CHECK_STR(s, "<table><tr><th>name</th><th class=\"n\" title=\"s\">v</th></tr>\n"
		     "<tr><td>a,b&quot;&lt;script&gt;|x</td><td class=\"n\" data-v=\"1.5\">1.5 s</td></tr>\n"
		     "<tr><td>=cmd</td><td class=\"n\">-4</td></tr>\n"
		     "<tr><td>e\033[2J</td><td class=\"n\"></td></tr>\n"
		     "</table>\n");
	free(s);
	s = render_table(table_render_csv);
	CHECK_STR(s, "name,v\n\"a,b\"\"<script>|x\",1.5 s\n\"'=cmd\",-4\ne\033[2J,\n");
	free(s);
	s = render_table(table_render_term);
	CHECK_STR(s, "name                v\n"
		     "a,b\"<script>|x  1.5 s\n"
		     "=cmd               -4\n"
		     "e^[[2J               \n");
	free(s);
}

/* The CSV header of the one schema is the documented column list. */
TEST(csv_header_is_the_schema)
{
	struct table t;
	struct sbuf b;
	sbuf_init(&b);
	report_csv(&b, &res, &ws.cluster);
	CHECK(!strncmp(b.s, "rank,label,gpus,gpus_by_pool,transports,tp,pp,dp,cp,ep,mbs,gbs,"
		       "precision,recompute,zero,schedule,step_time_s,tokens_per_s,mfu,hfu,usd_per_hour,"
		       "usd_per_million_tokens,time_to_train_s,cost_to_train_usd,optimality,pareto,"
		       "fits,gap,runs_on,memory_verdict\n", strlen(REPORT_CSV_COLUMNS) + 1));
	CHECK(!strncmp(b.s, REPORT_CSV_COLUMNS "\n", strlen(REPORT_CSV_COLUMNS) + 1));
	sbuf_done(&b);
	report_csv_table(&t, &res, &ws.cluster);
	CHECK_EQ_INT(t.n_rows, res.n_plans);
	table_done(&t);
}

static void write_all(const char *dir)
{
	static const char *const ext[] = { "md", "html", "json", "csv" };
	for (int f = 0; f < REPORT_FORMAT_COUNT; f++) {
		char *s = render((enum report_format)f, 0), path[512];
		struct hp_err err = { 0 };
		snprintf(path, sizeof path, "%s/report.%s", dir, ext[f]);
		if (!s || hp_write_file_atomic(path, s, strlen(s), &err) < 0)
			fprintf(stderr, "test_report: %s\n", err.msg);
		free(s);
	}
}

int main(int argc, char **argv)
{
	build_fixture(NULL);
	if (argc == 3 && !strcmp(argv[1], "--write"))
		write_all(argv[2]);
	RUN(fixture_is_sane);
	RUN(json_keys_and_schema);
	RUN(json_plan_entry_is_an_estimate_input);
	RUN(json_nodes_in_order);
	RUN(csv_one_row_per_plan);
	RUN(markdown_sections);
	RUN(offload_line_in_every_format);
	RUN(html_self_contained);
	RUN(transport_and_unit_prices);
	RUN(bad_chosen_index);
	RUN(nothing_fits);
	RUN(format_names);
	RUN(html_escapes_user_strings);
	RUN(table_sinks_escape);
	RUN(csv_header_is_the_schema);
	search_result_free(&res);
	catalog_done(&cat);
	return t_done("report");
}
