/* test_fields.c — the settings tables (src/fields.h): a plan, a model and a
 * workspace read from hand-written JSON hold the values written there;
 * what hetplan writes reads back the same; messages name the file, the
 * path and the key in the words users saw before the tables; the command
 * line accepts the flags the old hand-written getopt table had; every
 * key is documented in docs/formats.md and in the man page; and the
 * documentation printed from the tables (fields_doc.h) has the rows and
 * roff a reader of the hand-written page saw. */
#include "t.h"
#include "fields_doc.h"
#include "jsonx.h"
#include "workspace.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

static struct catalog cat;
static struct cluster clu;

/* A plan with every top-level key away from its default. */
static const char plan_text[] =
	"{\"mbs\":2,\"gbs\":512,\"seq_len\":4096,\"precision\":\"fp8\",\"recompute\":\"op\","
	"\"loss\":\"eager\",\"zero\":3,\"master\":\"sharded\",\"schedule\":\"interleaved:4\","
	"\"cp\":2,\"ep\":4,\"sp\":false,\"flash\":false,\"framework\":\"torchtitan\","
	"\"tp_overlap\":true,\"grad_overlap\":false,\"param_overlap\":true,"
	"\"grad_reduce_fp32\":false,\"replicas\":[{\"stages\":[{\"pool\":\"h100\",\"tp\":8,\"first_layer\":0,"
	"\"last_layer\":79}]}]}";

TEST(plan_json_reads_every_key)
{
	struct plan p;
	struct hp_err err = { 0 };
	plan_init(&p);
	if (plan_parse_json(&p, plan_text, sizeof plan_text - 1, "t.json", &clu, &err) < 0) {
		T_FAILF("%s", err.msg);
		return;
	}
	CHECK_EQ_INT(p.mbs, 2);
	CHECK_EQ_INT(p.gbs, 512);
	CHECK_EQ_INT(p.seq_len, 4096);
	CHECK_EQ_INT(p.precision, HP_FP8);
	CHECK_EQ_INT(p.recompute, RC_SELECTIVE_OP);   /* "op" is its alias */
	CHECK_EQ_INT(p.loss, LOSS_EAGER);
	CHECK_EQ_INT(p.zero, 3);
	CHECK_EQ_INT(p.master, MASTER_SHARDED);
	CHECK_EQ_INT(p.schedule, SCHED_INTERLEAVED);
	CHECK_EQ_INT(p.vpp, 4);
	CHECK_EQ_INT(p.cp, 2);
	CHECK_EQ_INT(p.ep, 4);
	CHECK_EQ_INT(p.sp, 0);
	CHECK_EQ_INT(p.flash, 0);
	CHECK_EQ_INT(p.framework, FW_TORCHTITAN);
	CHECK_EQ_INT(p.tp_overlap, 1);
	CHECK_EQ_INT(p.grad_overlap, 0);
	CHECK_EQ_INT(p.param_overlap, 1);
	CHECK_EQ_INT(p.grad_fp32, 0);   /* torchtitan's default is fp32: the key wins */
	CHECK_EQ_INT(p.n_replicas, 1);
	CHECK_EQ_INT(p.replicas[0].stages[0].tp, 8);
	plan_free(&p);
}

/* The planner's output schema: keys in this order, "master" left out at
 * "sharded", the replica's share 1 (one replica takes the whole batch),
 * the stage's GPU named. */
TEST(plan_json_writes_the_schema)
{
	struct plan p;
	struct hp_err err = { 0 };
	plan_init(&p);
	if (plan_parse_json(&p, plan_text, sizeof plan_text - 1, "t.json", &clu, &err) < 0) {
		T_FAILF("%s", err.msg);
		return;
	}
	cJSON *o = plan_to_json(&p, &clu);
	char *s = cJSON_PrintUnformatted(o);
	CHECK_STR(s, "{\"mbs\":2,\"gbs\":512,\"seq_len\":4096,\"precision\":\"fp8\","
		     "\"recompute\":\"selective-op\",\"loss\":\"eager\",\"zero\":3,"
		     "\"schedule\":\"interleaved:4\",\"cp\":2,\"ep\":4,\"sp\":false,"
		     "\"flash\":false,\"framework\":\"torchtitan\",\"tp_overlap\":true,"
		     "\"grad_overlap\":false,\"param_overlap\":true,\"grad_reduce_fp32\":false,"
		     "\"fp8_params\":false,\"ep_overlap\":false,\"replicas\":[{\"count\":1,"
		     "\"batch_share\":1,\"stages\":[{\"pool\":\"h100\",\"gpu\":\"H100-SXM\","
		     "\"tp\":8,\"first_layer\":0,\"last_layer\":79}]}]}");
	free(s);
	cJSON_Delete(o);
	/* Defaults: no seq_len (the model's), no loss (fused), no master. */
	plan_free(&p);
	plan_init(&p);
	p.gbs = 8;
	const struct model_spec *m = catalog_model(&cat, "llama3.1-70b");
	CHECK(m && plan_uniform(&p, &clu, m, 0, 8, 1, 1, &err) == 0);
	o = plan_to_json(&p, &clu);
	CHECK(!cJSON_GetObjectItem(o, "seq_len"));
	CHECK(!cJSON_GetObjectItem(o, "loss"));
	CHECK(!cJSON_GetObjectItem(o, "master"));
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(o, "schedule")), "1f1b");
	cJSON_Delete(o);
	plan_free(&p);
}

/* Parse text as a plan and return the message ("" when it parsed). */
static const char *plan_error(const char *text)
{
	static struct hp_err err;
	struct plan p;
	memset(&err, 0, sizeof err);
	plan_init(&p);
	int rc = plan_parse_json(&p, text, strlen(text), "t.json", &clu, &err);
	plan_free(&p);
	return rc < 0 ? err.msg : "";
}

/* The messages of the hand-written reader this table replaced. */
TEST(plan_json_messages)
{
	CHECK_STR(plan_error("{\"cp\":2000}"),
		  "t.json: cp: expected an integer from 1 to 1024, got 2000");
	CHECK_STR(plan_error("{\"zero\":4}"), "t.json: zero: expected an integer from 0 to 3, got 4");
	CHECK_STR(plan_error("{\"sp\":1}"), "t.json: sp: expected true or false, got 1");
	CHECK_STR(plan_error("{\"recompute\":\"most\"}"),
		  "t.json: recompute: expected \"none\", \"selective\", \"full\" or "
		  "\"selective-op\", got \"most\"");
	CHECK_STR(plan_error("{\"loss\":\"fast\"}"),
		  "t.json: loss: expected \"fused\", \"eager\" or \"chunked\", got \"fast\"");
	CHECK_STR(plan_error("{\"schedule\":\"interleaved:1\"}"),
		  "t.json: schedule: expected \"1f1b\" or \"interleaved:V\" with V from 2 to 64, "
		  "got \"interleaved:1\"");
	CHECK_CONTAINS(plan_error("{\"mbz\":1}"), "t.json: mbz: unknown key (did you mean \"mbs\"?");
	CHECK_STR(plan_error("{\"mbs\":1}"), "t.json: replicas: missing, expected an array");
	/* A printed plan's outputs read back as ignored keys. */
	CHECK_STR(plan_error("{\"mfu\":0.4,\"replicas\":[{\"stages\":[{\"pool\":\"h100\","
			     "\"first_layer\":0,\"last_layer\":79}]}]}"), "");
}

static const char *model_error(const char *text)
{
	static struct hp_err err;
	struct model_spec m;
	memset(&err, 0, sizeof err);
	cJSON *o = cJSON_Parse(text);
	int rc = catalog_parse_model(o, "m.json", "models[0]", &m, &err);
	cJSON_Delete(o);
	return rc < 0 ? err.msg : "";
}

#define MODEL_BASE "\"name\":\"x\",\"layers\":2,\"hidden\":64,\"heads\":4,\"ffn\":256,\"vocab\":100"

TEST(model_json_messages_and_defaults)
{
	CHECK_STR(model_error("{" MODEL_BASE ",\"norm\":\"batchnorm\"}"),
		  "m.json: models[0].norm: expected \"rmsnorm\" or \"layernorm\", got \"batchnorm\"");
	CHECK_STR(model_error("{" MODEL_BASE ",\"moe\":{\"experts\":8,\"expert_ffn\":64}}"),
		  "m.json: models[0].moe.top_k: missing, expected an integer from 1 to 100000");
	CHECK_STR(model_error("{" MODEL_BASE ",\"moe\":{\"experts\":8,\"top_k\":9,"
			      "\"expert_ffn\":64}}"),
		  "m.json: models[0].moe.top_k: 9 exceeds experts 8");
	CHECK_STR(model_error("{" MODEL_BASE ",\"kv_heads\":3}"),
		  "m.json: models[0].kv_heads: 3 must divide heads 4");
	CHECK_STR(model_error("{\"name\":\"x\",\"hidden\":64}"),
		  "m.json: models[0].layers: missing, expected an integer from 1 to 100000");
	/* Defaults: kv_heads = heads, head_dim = hidden / heads = 16, a gated
	 * MLP, a context of 4096, display = name. */
	struct model_spec m;
	struct hp_err err = { 0 };
	cJSON *o = cJSON_Parse("{" MODEL_BASE "}");
	CHECK(catalog_parse_model(o, "m.json", "", &m, &err) == 0);
	cJSON_Delete(o);
	CHECK_EQ_INT(m.kv_heads, 4);
	CHECK_EQ_INT(m.head_dim, 16);
	CHECK_EQ_INT(m.gated_mlp, 1);
	CHECK_EQ_INT(m.seq_len, 4096);
	CHECK_STR(m.display, "x");
}

/* Every catalog model written and read back is the same model: a table
 * entry that writes what it cannot read (or the reverse) shows here. */
TEST(every_catalog_model_round_trips)
{
	for (int i = 0; i < cat.n_models; i++) {
		const struct model_spec *m = &cat.models[i];
		struct model_spec back;
		struct hp_err err = { 0 };
		cJSON *o = model_to_json(m);
		if (catalog_parse_model(o, "rt", "", &back, &err) < 0) {
			T_FAILF("%s: %s", m->name, err.msg);
			cJSON_Delete(o);
			continue;
		}
		cJSON_Delete(o);
		hp_strlcpy(back.source, m->source, sizeof back.source);   /* not written */
		hp_strlcpy(back.hf_id, m->hf_id, sizeof back.hf_id);      /* not written */
		if (memcmp(&back, m, sizeof back))
			T_FAILF("%s does not read back the same", m->name);
	}
}

TEST(workspace_round_trips)
{
	struct workspace w, back;
	struct hp_err err = { 0 };
	if (workspace_default(&w, &cat, &err) < 0) {
		T_FAILF("%s", err.msg);
		return;
	}
	w.opts.objective = OBJ_DEADLINE;
	w.opts.deadline_s = 30 * 86400.0;
	w.cluster.pools[1].nodes_max = 8;
	char *s = workspace_to_string(&w);
	CHECK_CONTAINS(s, "\"objective\":\t\"deadline\"");
	CHECK_CONTAINS(s, "\"deadline_s\":\t2592000");
	CHECK_CONTAINS(s, "\"max\":\t8");
	if (workspace_parse(&back, s, strlen(s), "w.json", &cat, &err) < 0)
		T_FAILF("%s", err.msg);
	char *s2 = workspace_to_string(&back);
	CHECK_STR(s2, s);
	free(s);
	free(s2);
	static const char bad[] = "{\"cluster\":{\"pools\":[{\"gpu\":\"H100\",\"nodes\":1}]},"
				  "\"model\":\"llama3.1-8b\",\"workload\":{\"objective\":\"speed\"}}";
	CHECK_STR(workspace_parse(&back, bad, sizeof bad - 1, "w.json", &cat, &err) < 0 ? err.msg
											   : "",
		  "w.json: workload.objective: expected \"throughput\", \"cost\", \"deadline\" or "
		  "\"budget\", got \"speed\"");
}

/* The command line: values as test_cli.sh and the man page spell them. */
TEST(plan_flags_parse_text)
{
	struct plan p;
	char want[160];
	plan_init(&p);
	const struct hp_field *zero = fields_find_flag(&plan_fields, "zero");
	const struct hp_field *cp = fields_find_flag(&plan_fields, "cp");
	const struct hp_field *attn = fields_find_flag(&plan_fields, "attention");
	const struct hp_field *nosp = fields_find_flag(&plan_fields, "no-sp");
	const struct hp_field *prec = fields_find_flag(&plan_fields, "precision");
	const struct hp_field *sched = fields_find_flag(&plan_fields, "schedule");
	const struct hp_field *tpov = fields_find_flag(&plan_fields, "tp-overlap");
	if (!zero || !cp || !attn || !nosp || !prec || !sched || !tpov) {
		T_FAILF("a plan flag is missing from plan_fields");
		return;
	}
	CHECK(fields_parse_text(zero, &p, "0", want, sizeof want) == 0 && p.zero == 0);
	CHECK(fields_parse_text(zero, &p, "4", want, sizeof want) < 0);
	CHECK_STR(want, "0, 1, 2 or 3");
	/* --cp's range is 1 to 1024 (plan.c): a value that is no positive
	 * integer is told the same range as one past it */
	CHECK(fields_parse_text(cp, &p, "0", want, sizeof want) < 0);
	CHECK_STR(want, "an integer from 1 to 1024");
	CHECK(fields_parse_text(cp, &p, "2048", want, sizeof want) < 0);
	CHECK_STR(want, "an integer from 1 to 1024");
	CHECK(fields_parse_text(attn, &p, "unfused", want, sizeof want) == 0 && p.flash == 0);
	CHECK(fields_parse_text(attn, &p, "fused", want, sizeof want) < 0);
	CHECK_STR(want, "flash or unfused");
	CHECK(fields_parse_text(nosp, &p, NULL, want, sizeof want) == 0 && p.sp == 0);
	CHECK(fields_parse_text(prec, &p, "fp64", want, sizeof want) < 0);
	CHECK_STR(want, "fp32, tf32, bf16, fp16 or fp8");
	CHECK(fields_parse_text(sched, &p, "interleaved:3", want, sizeof want) == 0 &&
	      p.schedule == SCHED_INTERLEAVED && p.vpp == 3);
	CHECK(fields_parse_text(tpov, &p, "off", want, sizeof want) == 0 && p.tp_overlap == 0);
	CHECK(fields_parse_text(tpov, &p, "maybe", want, sizeof want) < 0);
	CHECK_STR(want, "on or off");
	/* recompute_modules: a list sets it; empty unsets it (the TUI's
	 * entry back to Megatron-Core's default, core_attn alone:
	 * transformer_config.py @d98e8a64 L1940-1941), which it refused */
	const struct hp_field *rcm = fields_find_key(&plan_fields, "recompute_modules");
	CHECK(rcm != NULL);
	if (rcm) {
		CHECK(fields_parse_text(rcm, &p, "mlp", want, sizeof want) == 0 &&
		      p.recompute_modules == RCM_MLP);
		CHECK(fields_parse_text(rcm, &p, "", want, sizeof want) == 0 &&
		      p.recompute_modules == 0);
		CHECK(fields_parse_text(rcm, &p, "mlp,,moe", want, sizeof want) < 0);
	}
	/* A range from 0 (NICs per node: 0 to 1024, the man page's CLUSTER JSON)
	 * is not "a positive integer" when the text is -1. */
	struct pool po;
	memset(&po, 0, sizeof po);
	CHECK(fields_parse_text(fields_find_key(&pool_fields, "nics"), &po, "-1", want,
				sizeof want) < 0);
	CHECK_STR(want, "an integer from 0 to 1024");
}

/* An overlap key left unset holds the framework's default: DeepSpeed has
 * no TP-communication overlap, NVIDIA's Megatron-Core performance recipes
 * turn --tp-comm-overlap on (the sources in framework.c's header). The
 * TUI's cycling flips the value in force and makes it explicit; a key with
 * no default (sp, on unless --no-sp) just flips. */
TEST(plan_overlap_default_and_cycle)
{
	struct plan p;
	plan_init(&p);
	const struct hp_field *tpov = fields_find_key(&plan_fields, "tp_overlap");
	const struct hp_field *sp = fields_find_key(&plan_fields, "sp");
	if (!tpov || !sp) {
		T_FAILF("tp_overlap or sp missing from plan_fields");
		return;
	}
	p.framework = FW_DEEPSPEED;
	CHECK(fields_is_default(tpov, &p) == 1 && fields_get_int(tpov, &p) == 0);
	CHECK(fields_cycle(tpov, &p, 1) == 1);
	CHECK(fields_is_default(tpov, &p) == 0 && fields_get_int(tpov, &p) == 1);
	p.framework = FW_MEGATRON_CORE;   /* explicit now: the framework no longer decides */
	CHECK(fields_get_int(tpov, &p) == 1);
	CHECK(fields_cycle(tpov, &p, -1) == 1 && fields_get_int(tpov, &p) == 0);
	plan_init(&p);
	p.framework = FW_MEGATRON_CORE;
	CHECK(fields_is_default(tpov, &p) == 1 && fields_get_int(tpov, &p) == 1);
	CHECK(fields_cycle(tpov, &p, 1) == 1 && fields_get_int(tpov, &p) == 0);
	CHECK(fields_is_default(sp, &p) == 0 && p.sp == 1);   /* sequence parallel: on */
	CHECK(fields_cycle(sp, &p, 1) == 1 && p.sp == 0 && fields_is_default(sp, &p) == 0);
	plan_free(&p);
}

/* The getopt entries: at least the plan flags of the hand-written table
 * the descriptors replaced (estimate and launch, less --tp --pp --dp --on). */
TEST(plan_flags_getopt_entries)
{
	static const char *const old[] = { "cp", "ep", "mbs", "gbs", "seq-len", "precision",
					   "recompute", "loss", "zero", "master", "schedule",
					   "attention", "no-sp", "framework", "tp-overlap",
					   "grad-overlap", "param-overlap" };
	struct option o[64];
	int n = fields_getopt(&plan_fields, 0, o, 64);
	CHECK(n >= (int)HP_ARRAY_LEN(old));
	for (size_t i = 0; i < HP_ARRAY_LEN(old); i++) {
		int found = -1;
		for (int k = 0; k < n; k++)
			if (!strcmp(o[k].name, old[i]))
				found = k;
		if (found < 0) {
			T_FAILF("--%s missing", old[i]);
			continue;
		}
		CHECK_EQ_INT(o[found].has_arg, strcmp(old[i], "no-sp") ? required_argument
									: no_argument);
	}
}

static char *slurp(const char *path)
{
	struct hp_err err = { 0 };
	size_t len;
	char *s = hp_read_file(path, &len, &err);
	if (!s)
		T_FAILF("%s", err.msg);
	return s;
}

/* The text from the line `start` to the next line beginning with `next`
 * (a Markdown heading or a man-page .SS/.SH); NULL when there is none. */
static char *section(const char *doc, const char *start, const char *const *next)
{
	const char *a = strstr(doc, start);
	if (!a)
		return NULL;
	a += strlen(start);
	const char *b = a + strlen(a);
	for (const char *const *n = next; *n; n++) {
		const char *e = strstr(a, *n);
		if (e && e < b)
			b = e;
	}
	char *out = malloc((size_t)(b - a) + 1);
	memcpy(out, a, (size_t)(b - a));
	out[b - a] = '\0';
	return out;
}

/* Drop roff escapes (\(dq, \fB, \fP, \-) so keys stand as words. */
static void unroff(char *s)
{
	static const char *const esc[] = { "\\(dq", "\\fB", "\\fI", "\\fP", "\\-", "\\&" };
	for (size_t i = 0; i < HP_ARRAY_LEN(esc); i++) {
		size_t n = strlen(esc[i]);
		for (char *p = strstr(s, esc[i]); p; p = strstr(p, esc[i])) {
			*p = ' ';
			memmove(p + 1, p + n, strlen(p + n) + 1);
		}
	}
}

static int has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		int before = p > text && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z'));
		int after = p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z');
		if (!before && !after)
			return 1;
	}
	return 0;
}

/* Every key of every table is in docs/formats.md under "### TABLE", and
 * every plan, model and cluster key is in its man-page INPUT FORMATS
 * subsection. */
TEST(every_key_is_documented)
{
	static const char *const md_next[] = { "\n## ", "\n### ", NULL };
	static const char *const man_next[] = { "\n.SS ", "\n.SH ", NULL };
	static const struct { const char *table, *man; } man_of[] = {
		{ "plan", "PLAN JSON" }, { "model", "MODEL JSON" }, { "model.moe", "MODEL JSON" },
		{ "model.mla", "MODEL JSON" }, { "pool", "CLUSTER JSON" },
		{ "pool.nodes", "CLUSTER JSON" }, { "cluster.fabric", "CLUSTER JSON" },
		{ "pool-spec", "POOL SPEC" },
	};
	char *md = slurp("docs/formats.md"), *man = slurp("man/hetplan.1");
	if (!md || !man)
		return;
	int nt;
	const struct hp_field_table *const *all = workspace_field_tables(&nt);
	for (int t = 0; t < nt; t++) {
		char head[64], ss[64];
		snprintf(head, sizeof head, "\n### %s\n", all[t]->name);
		char *sec = section(md, head, md_next), *msec = NULL;
		for (size_t i = 0; i < HP_ARRAY_LEN(man_of); i++)
			if (!strcmp(man_of[i].table, all[t]->name)) {
				snprintf(ss, sizeof ss, "\n.SS \"%s\"\n", man_of[i].man);
				msec = section(man, ss, man_next);
				if (msec)
					unroff(msec);
				else
					T_FAILF("man page: no %s subsection", ss + 1);
			}
		if (!sec) {
			T_FAILF("docs/formats.md: no section \"### %s\"", all[t]->name);
			continue;
		}
		for (int i = 0; i < all[t]->n; i++) {
			const char *key = all[t]->f[i].key;
			char quoted[80];
			if (!key)
				continue;
			snprintf(quoted, sizeof quoted, "`%s`", key);
			if (!strstr(sec, quoted))
				T_FAILF("docs/formats.md, %s: `%s` missing", all[t]->name, key);
			if (msec && !has_word(msec, key))
				T_FAILF("man page, %s: %s missing", all[t]->name, key);
		}
		free(sec);
		free(msec);
	}
	free(md);
	free(man);
}

/* The text between "BEGIN fields: name" (or "fields: name -->") and the
 * next end marker in doc; NULL when absent. Caller frees. */
static char *region(const char *doc, const char *begin)
{
	const char *a = strstr(doc, begin), *b;
	if (!a || !(a = strchr(a, '\n')) || !(b = strstr(a, "fields\n")))
		return NULL;
	while (b > a && b[-1] != '\n')
		b--;
	char *out = malloc((size_t)(b - a));
	memcpy(out, a + 1, (size_t)(b - a - 1));
	out[b - a - 1] = '\0';
	return out;
}

/* The generated documentation states what a user of the flags knows from
 * elsewhere: ZeRO has stages 0 to 3 (DeepSpeed's ZeRO paper), --no-sp
 * takes no value, the schedule is 1f1b or interleaved:V with V chunks per
 * stage (Megatron-LM's --num-layers-per-virtual-pipeline-stage), and the
 * fp32 gradient reduce is Megatron's
 * --accumulate-allreduce-grads-in-fp32 (its arguments.py). The roff is
 * what the hand-written page had: flags in bold with \- for each '-'. */
TEST(fields_doc_renders_the_tables)
{
	const struct hp_field_table *plan_only[] = { &plan_fields };
	char *md = fields_doc(plan_only, 1, FIELDS_DOC_MD);
	char *man = fields_doc(plan_only, 1, FIELDS_DOC_MAN);
	char arg[64];
	CHECK_CONTAINS(md, "<!-- fields: plan -->\n| key | flag | type | values | meaning |\n");
	CHECK_CONTAINS(md, "\n| `zero` | `--zero` | integer | 0 to 3 | "
			   "ZeRO stage (1: distributed optimizer) |\n");
	/* A '|' in a cell would split it: escaped. */
	CHECK_CONTAINS(md, "(--attention flash\\|unfused) |\n");
	/* the default is the framework row's: apex DDP (pytorch-ddp) has no ZeRO */
	CHECK_CONTAINS(man, ".TP\n\\fB\\-\\-zero\\fR 0|1|2|3\n\\&ZeRO stage (default: the "
			    "framework's, 1 for all but \\fB\\-\\-framework pytorch\\-ddp\\fR");
	CHECK_CONTAINS(man, ".TP\n\\fB\\-\\-no\\-sp\\fR\n");
	CHECK_CONTAINS(man, "\\fB\\-\\-schedule\\fR 1f1b|interleaved:\\fIV\\fR\n");
	CHECK_CONTAINS(man, "\\fB\\-\\-accumulate\\-allreduce\\-grads\\-in\\-fp32\\fR");
	/* dp x cp in the ZeRO paragraph: italic names around the times glyph. */
	CHECK_CONTAINS(man, "\\fIdp\\fR \\(mu \\fIcp\\fR");
	/* Sentences start lines: "(default 1)." then a new line. */
	CHECK_CONTAINS(man, "Context-parallel degree (default 1).\nIt must divide");
	char *keys = region(man, "BEGIN fields: plan-keys");
	CHECK(keys != NULL);
	if (keys) {
		CHECK_CONTAINS(keys, ".TP\n\\fBcp\\fR\n\\&context-parallel degree\n"
				     "(an integer from 1 to 1024; as \\fB\\-\\-cp\\fR)\n");
		free(keys);
	}
	char *list = region(man, "BEGIN fields: plan-flag-list");
	CHECK(list != NULL);
	if (list) {
		CHECK(!strncmp(list, "\\fB\\-\\-mbs\\fR, \\fB\\-\\-gbs\\fR, ", 24));
		free(list);
	}
	CHECK_STR(fields_doc_arg(fields_find_flag(&plan_fields, "schedule"), arg, sizeof arg),
		  "1f1b|interleaved:V");
	CHECK_STR(fields_doc_arg(fields_find_flag(&plan_fields, "no-sp"), arg, sizeof arg), "");
	CHECK_STR(fields_doc_arg(fields_find_flag(&plan_fields, "tp-overlap"), arg, sizeof arg),
		  "on|off");
	/* Two runs give the same bytes (the files are compared to it). */
	char *again = fields_doc(plan_only, 1, FIELDS_DOC_MAN);
	CHECK_STR(again, man);
	free(again);
	free(md);
	free(man);
}

/* --list-fields=json: one object per entry, the keys the man page's
 * --list-fields paragraph promises. */
TEST(fields_doc_json)
{
	int nt;
	const struct hp_field_table *const *all = workspace_field_tables(&nt);
	char *s = fields_doc(all, nt, FIELDS_DOC_JSON);
	cJSON *a = cJSON_Parse(s);
	CHECK(cJSON_IsArray(a));
	const cJSON *e;
	int found = 0;
	cJSON_ArrayForEach(e, a) {
		const cJSON *k = cJSON_GetObjectItem(e, "key");
		if (cJSON_IsString(k) && !strcmp(k->valuestring, "grad_reduce_fp32")) {
			found = 1;
			CHECK_STR(cJSON_GetObjectItem(e, "table")->valuestring, "plan");
			CHECK_STR(cJSON_GetObjectItem(e, "flag")->valuestring, "grad-reduce-fp32");
			CHECK_STR(cJSON_GetObjectItem(e, "arg")->valuestring, "on|off");
			CHECK_STR(cJSON_GetObjectItem(e, "type")->valuestring, "boolean");
		}
	}
	CHECK(found);
	cJSON_Delete(a);
	free(s);
}

static const char *cluster_error(const char *text)
{
	static struct hp_err err;
	struct cluster c;
	cluster_init(&c);
	memset(&err, 0, sizeof err);
	int rc = cluster_parse_json(&c, text, strlen(text), "c.json", &cat, &err);
	return rc < 0 ? err.msg : "";
}

/* A cluster file's pool keys are read as pool_fields says (the table
 * docs/formats.md is written from): the ranges and kinds below are the
 * documented ones, and the unknown-key message lists each key once. */
TEST(cluster_pool_keys_follow_the_table)
{
#define POOL "{\"pools\":[{\"gpu\":\"H100-SXM\",\"nodes\":2,"
	CHECK_STR(cluster_error(POOL "\"nics\":1025}]}"),
		  "c.json: pools[0].nics: expected an integer from 0 to 1024, got 1025");
	CHECK_STR(cluster_error(POOL "\"intra_gbyte_s\":0}]}"),
		  "c.json: pools[0].intra_gbyte_s: expected a number from 0.01 to 10000, got 0");
	CHECK_STR(cluster_error(POOL "\"spot\":\"yes\"}]}"),
		  "c.json: pools[0].spot: expected true or false, got \"yes\"");
	CHECK_STR(cluster_error(POOL "\"bogus\":1}]}"),
		  "c.json: pools[0].bogus: unknown key (known: name, gpu, gpus_per_node, nodes, "
		  "intra, nics, nic_gbps, host_mem_gb, pcie, transport, provider, region, site, price_per_node_hour, "
		  "spot, nvl_domain, intra_gbyte_s)");
	CHECK_STR(cluster_error(POOL "\"nvl_domain\":8,\"intra_gbyte_s\":12.5}]}"), "");
#undef POOL
	/* a key the table lacks is the caller's error, never a silent skip */
	struct hp_err err = { 0 };
	struct pool p;
	memset(&p, 0, sizeof p);
	static const char *const keys[] = { "nics", "no_such_key", NULL };
	struct jx_ctx jc = { "c.json", "pools[0]", &err };
	cJSON *o = cJSON_Parse("{\"nics\":4}");
	CHECK_EQ_INT(fields_read_keys(&pool_fields, keys, &p, &jc, o), -1);
	CHECK_EQ_INT(p.nics, 4);
	CHECK_CONTAINS(err.msg, "no_such_key");
	cJSON_Delete(o);
}

/* A --pool spec reads the same keys, kinds and ranges as cluster JSON
 * (docs/formats.md "Pool spec"): the expected texts are the documented
 * ranges of the pool table (nics 0 to 1024, intra_gbyte_s 0.01 to 10000),
 * and a spot word outside yes/no is refused, where the spec once took any
 * word but 1, true and yes as on-demand. */
static const char *spec_error(const char *spec, struct pool *out)
{
	static char msg[1100];
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, spec, &cat, &err) < 0) {
		snprintf(msg, sizeof msg, "%d %s", err.code, err.msg);
		return msg;
	}
	if (out)
		*out = c.pools[0];
	return "";
}

TEST(pool_spec_keys_follow_the_table)
{
	struct pool p;
	CHECK_STR(spec_error("2x8xH100-SXM,nics=1025", NULL),
		  "2 --pool 2x8xH100-SXM,nics=1025: nics: expected an integer from 0 to 1024, got '1025'");
	CHECK_STR(spec_error("2x8xH100-SXM,intra_gbyte_s=0", NULL),
		  "2 --pool 2x8xH100-SXM,intra_gbyte_s=0: intra_gbyte_s: expected a number from "
		  "0.01 to 10000, got '0'");
	CHECK_STR(spec_error("2x8xH100-SXM,spot=maybe", NULL),
		  "2 --pool 2x8xH100-SXM,spot=maybe: spot: expected true or false, got 'maybe'");
	CHECK_STR(spec_error("2x8xH100-SXM,price_per_node_hour=3", NULL),
		  "2 --pool 2x8xH100-SXM,price_per_node_hour=3: unknown key 'price_per_node_hour' "
		  "(known: name, intra, nics, nic_gbps, host_mem_gb, pcie, transport, provider, region, site, price, "
		  "spot, nvl_domain, intra_gbyte_s, max)");
	/* a name is shown on terminals and written into scripts: an escape
	 * sequence is refused as in cluster JSON, and the message shows it
	 * as ^[ */
	CHECK_STR(spec_error("2x8xH100-SXM,name=a\033[2J", NULL),
		  "2 --pool 2x8xH100-SXM,name=a^[[2J: name: expected printable UTF-8 text of at most 31 "
		  "bytes, got 'a^[[2J'");
	/* numbers are decimal, as every other flag's: strtod alone would
	 * read "0x10" as 16 and " 5" as 5 */
	CHECK_STR(spec_error("2x8xH100-SXM,nic_gbps=0x10", NULL),
		  "2 --pool 2x8xH100-SXM,nic_gbps=0x10: nic_gbps: expected a number from 1 to 100000, "
		  "got '0x10'");
	CHECK_CONTAINS(spec_error("2x8xH100-SXM,nic_gbps= 50", NULL), "nic_gbps: expected a number");
	CHECK_STR(spec_error("2x8xH100-SXM,nic_gbps=.5e3", NULL), "");
	/* zero NICs: a lone node only (two nodes, or two pools, would talk
	 * over a link of zero bandwidth) */
	CHECK_STR(spec_error("2x8xH100-SXM,nics=0", NULL),
		  "2 --pool.nics: 2 nodes without NICs cannot reach each other; expected at least 1");
	CHECK_STR(spec_error("1x8xH100-SXM,nics=0", NULL), "");
	CHECK_STR(cluster_error("{\"pools\":[{\"gpu\":\"H100-SXM\",\"nodes\":1,\"nics\":0},"
				"{\"gpu\":\"A100-SXM4-80GB\",\"nodes\":1}]}"),
		  "c.json: pools[1].nics: pool 'h100-sxm' has no NIC to reach pool "
		  "'a100-sxm4-80gb'; expected at least 1 NIC per node in a cluster of pools");
	/* price, max and spot set what cluster JSON's keys set: 14 $/node-h
	 * from --pool, up to 8 nodes to rent (counted as 8), spot capacity */
	CHECK_STR(spec_error("1x8xA100-80GB,price=14,max=8,spot=yes,nics=4,nic_gbps=200", &p), "");
	CHECK(p.usd_per_node_h == 14 && p.price_set);
	CHECK_STR(p.price_source, "--pool");
	CHECK_EQ_INT(p.nodes_max, 8);
	CHECK_EQ_INT(p.nodes, 8);
	CHECK_EQ_INT(p.spot, 1);
	CHECK_EQ_INT(p.nics, 4);
	CHECK(p.nic_gbps == 200);
	/* every spec key but the two short names is a pool key of the same
	 * kind and range */
	const struct hp_field_table *t = cluster_pool_spec_fields();
	for (int i = 0; i < t->n; i++) {
		const char *k = t->f[i].key;
		const struct hp_field *f = !strcmp(k, "price") ? fields_find_key(&pool_fields,
										"price_per_node_hour")
					 : !strcmp(k, "max") ? fields_find_key(&pool_nodes, "max")
							     : fields_find_key(&pool_fields, k);
		CHECK(f != NULL);
		if (f) {
			CHECK_EQ_INT((int)f->kind, (int)t->f[i].kind);
			CHECK(f->min == t->f[i].min && f->max == t->f[i].max && f->off == t->f[i].off);
		}
	}
}


/* Every caller of fields_want / fields_parse_text holds FIELDS_WANT_MAX
 * bytes. The enum lists grow with their tables (the framework list was
 * 152 bytes unquoted and 176 quoted with its 14th row, past the 160 the
 * --flag parser then held, and the plan-file message cut the last name
 * off). Each table's longest "want", CLI and JSON style, must fit with
 * its terminating zero, and the framework list must end with the last
 * row of the framework table, hf-transformers (src/framework.c). */
static size_t longest_want(const struct hp_field_table *t, const char **which)
{
	size_t most = 0;
	char buf[4096];
	for (int i = 0; i < t->n; i++) {
		const struct hp_field *f = &t->f[i];
		if (f->kind == FK_OBJECT && f->sub) {
			size_t n = longest_want(f->sub, which);
			most = n > most ? n : most;
			continue;
		}
		for (int quoted = 0; quoted < 2; quoted++) {
			size_t n = strlen(fields_want(f, quoted, buf, sizeof buf));
			if (n > most) {
				most = n;
				*which = f->key ? f->key : f->flag;
			}
		}
	}
	return most;
}

TEST(every_want_fits_its_buffer)
{
	const struct hp_field_table *tables[] = { &plan_fields, &model_fields, &moe_fields,
						  &mla_fields, &pool_fields, &pool_nodes,
						  &fabric_fields, &workload_fields, &ws_serve_fields,
						  cluster_pool_spec_fields() };
	for (size_t i = 0; i < HP_ARRAY_LEN(tables); i++) {
		const char *which = "";
		size_t n = longest_want(tables[i], &which);
		if (n + 1 > FIELDS_WANT_MAX)
			T_FAILF("table %s: \"%s\" wants %zu bytes, FIELDS_WANT_MAX is %d",
				tables[i]->name, which, n + 1, FIELDS_WANT_MAX);
	}
	const struct hp_field *fw = fields_find_key(&plan_fields, "framework");
	CHECK(fw != NULL);
	if (fw) {
		char want[FIELDS_WANT_MAX];
		struct plan p;
		plan_init(&p);
		CHECK(fields_parse_text(fw, &p, "no-such-framework", want, sizeof want) < 0);
		size_t n = strlen(want);
		/* the last row of framework.h's enum: FW_MAXTEXT, "maxtext" */
		CHECK(n > 7 && !strcmp(want + n - 7, "maxtext"));
	}
}

/* hp_field.also: what else a value may be, after the kind's own words,
 * its backquoted example quoted only in the JSON form; cut like the rest
 * when the buffer is short. The pool's transport key carries Google
 * Cloud's machine types (docs/cloud-transport.md). */
TEST(want_appends_also)
{
	const struct hp_field *f = fields_find_key(&pool_fields, "transport");
	CHECK(f != NULL);
	if (!f)
		return;
	char buf[FIELDS_WANT_MAX];
	CHECK_STR(fields_want(f, 0, buf, sizeof buf),
		  "ib, efa, tcp, opa, tcpx, tcpxo or gcp-rdma (or a Google Cloud machine type "
		  "such as a3-megagpu-8g)");
	CHECK_STR(fields_want(f, 1, buf, sizeof buf),
		  "\"ib\", \"efa\", \"tcp\", \"opa\", \"tcpx\", \"tcpxo\" or \"gcp-rdma\" (or a Google "
		  "Cloud machine type such as \"a3-megagpu-8g\")");
	/* 48 bytes: the names (42 bytes) and " (or " fill 47, the hint is cut */
	char small[48];
	fields_want(f, 0, small, sizeof small);
	CHECK_EQ_INT((int)strlen(small), 47);
	CHECK(!strncmp(small, "ib, efa, tcp, opa, tcpx, tcpxo or gcp-rdma (or", 46));
	/* a field without also is as before */
	const struct hp_field *g = fields_find_key(&pool_fields, "intra");
	CHECK(g && !strchr(fields_want(g, 0, buf, sizeof buf), '('));
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog_load: %s\n", err.msg);
		return 1;
	}
	cluster_init(&clu);
	if (cluster_add_pool_spec(&clu, "2x8xH100-SXM,name=h100", &cat, &err) < 0) {
		fprintf(stderr, "cluster: %s\n", err.msg);
		return 1;
	}
	RUN(plan_json_reads_every_key);
	RUN(plan_json_writes_the_schema);
	RUN(plan_json_messages);
	RUN(model_json_messages_and_defaults);
	RUN(every_catalog_model_round_trips);
	RUN(workspace_round_trips);
	RUN(plan_flags_parse_text);
	RUN(plan_overlap_default_and_cycle);
	RUN(plan_flags_getopt_entries);
	RUN(every_key_is_documented);
	RUN(fields_doc_renders_the_tables);
	RUN(fields_doc_json);
	RUN(cluster_pool_keys_follow_the_table);
	RUN(pool_spec_keys_follow_the_table);
	RUN(every_want_fits_its_buffer);
	RUN(want_appends_also);
	catalog_done(&cat);
	return t_done("fields");
}
