/* test_optimizer.c — the plan key optimizer_impl (docs/optimizer.md):
 *  - its names and the frameworks' own spellings (the HF Trainer's --optim
 *    values, torchtitan's optimizer.implementation);
 *  - the key through the plan's settings table: parsed from text, written
 *    to JSON only where the plan sets it;
 *  - the rows' defaults against the frameworks' own code (cited in
 *    framework.c): fused everywhere but hf-deepspeed (the Trainer's AdamW
 *    loop of transformers 4.12);
 *  - the estimate's optimizer time for a GPT-2 medium-shaped model on one
 *    A100 by hand, for each implementation;
 *  - llm.c refusing another implementation than its own kernel. */
#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "fields.h"
#include "framework.h"
#include "model.h"
#include "perf.h"
#include "plan.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

static struct catalog cat;

TEST(names_and_aliases)
{
	enum hp_opt_impl v = OPT_IMPL_COUNT;
	static const struct { const char *s; enum hp_opt_impl want; } ok[] = {
		{ "fused", OPT_IMPL_FUSED }, { "foreach", OPT_IMPL_FOREACH }, { "loop", OPT_IMPL_LOOP },
		/* transformers training_args.py OptimizerNames */
		{ "adamw_torch_fused", OPT_IMPL_FUSED }, { "ADAMW_APEX_FUSED", OPT_IMPL_FUSED },
		{ "adamw_torch", OPT_IMPL_FOREACH }, { "adamw_hf", OPT_IMPL_LOOP },
		/* torchtitan job_config.py Optimizer.implementation */
		{ "for-loop", OPT_IMPL_LOOP },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(ok); i++) {
		v = OPT_IMPL_COUNT;
		CHECK(framework_opt_impl_parse(ok[i].s, &v) == 0 && v == ok[i].want);
	}
	v = OPT_IMPL_FOREACH;
	CHECK(framework_opt_impl_parse("adafactor", &v) == -1 && v == OPT_IMPL_FOREACH);
	CHECK(framework_opt_impl_parse("", &v) == -1);
	CHECK_STR(framework_opt_impl_name(OPT_IMPL_FUSED), "fused");
	CHECK_STR(framework_opt_impl_name(OPT_IMPL_FOREACH), "foreach");
	CHECK_STR(framework_opt_impl_name(OPT_IMPL_LOOP), "loop");
}

TEST(key_in_the_settings_table)
{
	const struct hp_field *f = fields_find_key(&plan_fields, "optimizer_impl");
	CHECK(f != NULL && f == fields_find_flag(&plan_fields, "optimizer-impl"));
	if (!f)
		return;
	struct plan p;
	plan_init(&p);
	p.framework = FW_HF;
	/* absent: the row's default, and not written */
	CHECK(plan_opt_impl(&p) == OPT_IMPL_FUSED);
	cJSON *o = cJSON_CreateObject();
	fields_write_json(&plan_fields, &p, o);
	CHECK(cJSON_GetObjectItemCaseSensitive(o, "optimizer_impl") == NULL);
	cJSON_Delete(o);
	char want[FIELDS_WANT_MAX];
	CHECK(fields_parse_text(f, &p, "adamw_hf", want, sizeof want) == 0);
	CHECK(plan_opt_impl(&p) == OPT_IMPL_LOOP);
	o = cJSON_CreateObject();
	fields_write_json(&plan_fields, &p, o);
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "optimizer_impl");
	CHECK(cJSON_IsString(j) && !strcmp(j->valuestring, "loop"));
	cJSON_Delete(o);
	CHECK(fields_parse_text(f, &p, "sgd", want, sizeof want) == -1);
	CHECK(strstr(want, "fused") && strstr(want, "adamw_hf"));
	plan_free(&p);
}

TEST(defaults_as_the_frameworks_build_them)
{
	/* Megatron (TE/apex FusedAdam), DeepSpeed (FusedAdam for "Adam"/
	 * "AdamW"), torchtitan (implementation "fused"), the HF Trainer
	 * (adamw_torch_fused with torch >= 2.8 at transformers @00349ae8) */
	static const enum hp_framework fused[] = { FW_MEGATRON_CORE, FW_MEGATRON_LM, FW_DEEPSPEED,
						   FW_TORCHTITAN, FW_HF, FW_LLMC, FW_MAXTEXT };
	for (size_t i = 0; i < HP_ARRAY_LEN(fused); i++)
		CHECK(framework_get(fused[i])->opt_impl == OPT_IMPL_FUSED);
	CHECK(framework_get(FW_HF_DEEPSPEED)->opt_impl == OPT_IMPL_LOOP);
	CHECK(framework_get(FW_LLMC)->opt_impl_only && framework_get(FW_MAXTEXT)->opt_impl_only);
	CHECK(!framework_get(FW_HF)->opt_impl_only && !framework_get(FW_TORCHTITAN)->opt_impl_only);
}

/* A GPT-2 medium-shaped model (hidden 1024, 16 heads, ffn 4096, LayerNorm,
 * learned positions, biases, tied embeddings) of 24 layers. */
static struct model_spec gpt2_medium(void)
{
	struct model_spec m;
	memset(&m, 0, sizeof m);
	snprintf(m.name, sizeof m.name, "gpt2-medium-test");
	m.layers = 24;
	m.hidden = 1024;
	m.heads = m.kv_heads = 16;
	m.head_dim = 64;
	m.ffn = 4096;
	m.vocab = 50257;
	m.seq_len = 1024;
	m.tied_embeddings = m.bias = m.dropout = 1;
	m.norm = NORM_LAYER;
	m.position = POS_LEARNED;
	return m;
}

/* The estimate's optimizer time of m on one A100-SXM4-80GB in bf16 under
 * framework fw with key impl (-1: absent); -1 on error. */
static double opt_s(const struct model_spec *m, enum hp_framework fw, int impl)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, "1x1xA100-SXM4-80GB,name=a", &cat, &err) < 0) {
		T_FAILF("%s", err.msg);
		return -1;
	}
	struct plan p;
	plan_init(&p);
	p.mbs = p.gbs = 1;
	p.precision = HP_BF16;
	p.framework = fw;
	p.zero = 0;
	p.opt_impl = impl;
	double t = -1;
	struct estimate e;
	if (plan_uniform(&p, &c, m, 0, 1, 1, 1, &err) < 0) {
		T_FAILF("%s", err.msg);
	} else if (perf_estimate(&c, m, &p, NULL, &e, &err) == 0) {
		t = e.bd.optimizer;
		estimate_free(&e);
	} else {
		T_FAILF("%s", err.msg);
	}
	plan_free(&p);
	return t;
}

/* By hand, for the hf-transformers row: 24 blocks of 12 tensors (ln_1 and
 * ln_2 weight and bias, c_attn, c_proj, c_fc, mlp c_proj each weight and
 * bias) and wte, wpe, ln_f weight and bias: 24 x 12 + 4 = 292 tensors.
 * P parameters (model_params), bandwidth 2.039e12 B/s (the catalog's
 * A100-SXM4-80GB, checked) x the calibration's ampere.hbm efficiency.
 *   fused:   48 x P / bw (unscale 8, clip 12, fused Adam 28), no launches;
 *   foreach: 96 x P / bw and 292 x 0.1015 launches;
 *   loop:   100 x P / bw and 292 x 10 = 2,920 launches;
 * a step with launches takes max(bytes / bw + n x kernel_gap_s,
 * n x host_op_s). */
TEST(optimizer_time_by_hand)
{
	struct model_spec m = gpt2_medium();
	struct param_count pc;
	model_params(&m, &pc);
	const struct gpu_spec *g = catalog_gpu(&cat, "A100-SXM4-80GB");
	CHECK(g && fabs(g->hbm_Bps - 2.039e12) < 1e9);
	const struct perf_calib *k = perf_calib_default();
	double bw = 2.039e12 * k->gen[GEN_AMPERE].hbm;
	double n_loop = 292.0 * 10,
	       n_each = 292.0 * (1.0 / 64 + 1.0 / 110 + 1.0 / 48 + 1.0 / 64 + 1.0 / 96 + 1.0 / 110 +
				 1.0 / 48);
	double fused = 48 * pc.total / bw;
	double each = fmax(96 * pc.total / bw + n_each * k->kernel_gap_s, n_each * k->host_op_s);
	double loop = fmax(100 * pc.total / bw + n_loop * k->kernel_gap_s, n_loop * k->host_op_s);
	struct { int impl; double want; } cases[] = {
		{ -1, fused }, { OPT_IMPL_FUSED, fused }, { OPT_IMPL_FOREACH, each },
		{ OPT_IMPL_LOOP, loop },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(cases); i++) {
		double got = opt_s(&m, FW_HF, cases[i].impl);
		if (!(fabs(got - cases[i].want) <= 1e-3 * cases[i].want))
			T_FAILF("impl %d: optimizer %.4f ms, want %.4f ms", cases[i].impl, got * 1e3,
				cases[i].want * 1e3);
	}
	/* the loop is host-bound on this model: 2,920 launches at ~41 us */
	CHECK(n_loop * k->host_op_s > 100 * pc.total / bw + n_loop * k->kernel_gap_s);
	/* a fused row is unchanged by the key's absence: megatron-core 30 */
	double mc = opt_s(&m, FW_MEGATRON_CORE, -1);
	CHECK(fabs(mc - 30 * pc.total / bw) <= 1e-3 * mc);
}

TEST(llmc_runs_its_own_kernel_only)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "1x1xA100-SXM4-80GB,name=a", &cat, &err) == 0);
	struct model_spec m = gpt2_medium();
	struct plan p;
	plan_init(&p);
	p.mbs = p.gbs = 1;
	p.framework = FW_LLMC;
	p.zero = 0;
	CHECK(plan_uniform(&p, &c, &m, 0, 1, 1, 1, &err) == 0);
	p.opt_impl = OPT_IMPL_FUSED;
	CHECK(plan_validate(&p, &c, &m, "plan flags", &err) == 0);
	p.opt_impl = OPT_IMPL_LOOP;
	memset(&err, 0, sizeof err);
	CHECK(plan_validate(&p, &c, &m, "plan flags", &err) == -1);
	CHECK(err.code == HP_EXIT_INPUT && strstr(err.msg, "optimizer_impl loop") &&
	      strstr(err.msg, "llm.c"));
	plan_free(&p);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(names_and_aliases);
	RUN(key_in_the_settings_table);
	RUN(defaults_as_the_frameworks_build_them);
	RUN(optimizer_time_by_hand);
	RUN(llmc_runs_its_own_kernel_only);
	catalog_done(&cat);
	return t_done("optimizer");
}
