/* test_purebf16.c — the plan key master's value `none` (no fp32 master:
 * weights, gradients and Adam's moments all bf16; docs/memory.md "Pure
 * bf16", docs/optimizer.md section 6):
 *  - the name through the settings table, and the default unchanged;
 *  - the model state per GPU by hand at ZeRO 0, 1, 2 and 3 against the
 *    byte counts of the run's own tensors (2 B weight, 2 B gradient,
 *    2 + 2 B moments), and the default's 16 B at ZeRO 0 beside it;
 *  - the optimizer step's bytes by hand (torch's fused AdamW on bf16
 *    tensors reads p, g, m, v and writes p, m, v: 7 x 2 = 14 B, plus the
 *    clip over bf16 gradients, 6 B);
 *  - the gradient reduce in bf16 under torch DDP (half the fp32 bytes),
 *    in fp32 under FSDP2 (torchtitan's mixed_precision_reduce);
 *  - fp32, tf32 and fp16 plans and the optimizer offload refused, naming
 *    the key;
 *  - which frameworks run it (runs_on: torchtitan's training.dtype
 *    bfloat16 and the HF Trainer on a bf16-loaded model; not Megatron,
 *    whose --main-params-dtype takes fp32 or fp16 only, nor DeepSpeed). */
#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "fields.h"
#include "framework.h"
#include "model.h"
#include "perf.h"
#include "plan.h"
#include "runs_on.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

static struct catalog cat;

/* A Llama-shaped 1B-class model: 16 layers, hidden 2048, GQA 32/8, gated
 * MLP 8192, vocab 32000, RMSNorm, RoPE, untied. */
static struct model_spec llama_small(void)
{
	struct model_spec m;
	memset(&m, 0, sizeof m);
	snprintf(m.name, sizeof m.name, "llama-small-test");
	m.layers = 16;
	m.hidden = 2048;
	m.heads = 32;
	m.kv_heads = 8;
	m.head_dim = 64;
	m.ffn = 8192;
	m.vocab = 32000;
	m.seq_len = 2048;
	m.gated_mlp = 1;
	m.norm = NORM_RMS;
	m.position = POS_ROPE;
	return m;
}

TEST(name_in_the_settings_table)
{
	enum hp_master v = MASTER_SHARDED;
	CHECK(plan_master_parse("none", &v) == 0 && v == MASTER_NONE);
	CHECK_STR(plan_master_name(MASTER_NONE), "none");
	CHECK(plan_master_parse("bf16", &v) == -1);
	struct plan p;
	plan_init(&p);
	CHECK(p.master == MASTER_SHARDED);   /* the default stays */
	const struct hp_field *f = fields_find_key(&plan_fields, "master");
	CHECK(f != NULL);
	if (f) {
		char want[FIELDS_WANT_MAX];
		CHECK(fields_parse_text(f, &p, "none", want, sizeof want) == 0);
		CHECK(p.master == MASTER_NONE);
		cJSON *o = cJSON_CreateObject();
		fields_write_json(&plan_fields, &p, o);
		const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "master");
		CHECK(cJSON_IsString(j) && !strcmp(j->valuestring, "none"));
		cJSON_Delete(o);
	}
	plan_free(&p);
}

/* Estimate m on n GPUs of one 8-GPU H100 node, DP n, under fw, zero,
 * master; 0 or -1 (the error's message in err). */
static int run(const struct model_spec *m, enum hp_framework fw, int n, int zero,
	       enum hp_master master, enum hp_dtype prec, struct estimate *e, struct hp_err *err)
{
	struct cluster c;
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, "1x8xH100-SXM,name=h", &cat, err) < 0)
		return -1;
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = n;
	p.precision = prec;
	p.framework = fw;
	p.zero = zero;
	p.master = master;
	int rc = plan_uniform(&p, &c, m, 0, 1, 1, n, err);
	if (rc == 0)
		rc = plan_validate(&p, &c, m, "plan flags", err);
	if (rc == 0)
		rc = perf_estimate(&c, m, &p, NULL, e, err);
	plan_free(&p);
	return rc;
}

/* By hand, P = the model's parameters (model_params), DP 4:
 *   zero 0: weights 2P, gradients 2P, moments 4P (all whole);
 *   zero 1: 2P, 2P, 4P / 4;
 *   zero 2: 2P, 2P / 4 + 2 x unit (one unit's whole gradient before its
 *           reduce-scatter), 4P / 4;
 *   zero 3: 2P / 4 (+ 2 x 2 x unit gathered), 2P / 4, 4P / 4.
 * Beside it the default (fp32 master, sharded) at ZeRO 0: 2P + 4P + 12P. */
TEST(model_state_by_hand)
{
	struct model_spec m = llama_small();
	struct param_count pc;
	model_params(&m, &pc);
	double P = pc.total;
	struct hp_err err = { 0 };
	struct estimate e;
	for (int zero = 0; zero <= 3; zero++) {
		enum hp_framework fw = zero == 1 ? FW_MEGATRON_CORE : FW_TORCHTITAN;
		memset(&err, 0, sizeof err);
		if (run(&m, fw, 4, zero, MASTER_NONE, HP_BF16, &e, &err) < 0) {
			T_FAILF("zero %d: %s", zero, err.msg);
			continue;
		}
		const struct perf_stage *s = &e.stages[0];
		double w = zero == 3 ? 2 * P / 4 : 2 * P;
		double o = zero == 0 ? 4 * P : 4 * P / 4;
		double g = zero <= 1 ? 2 * P : 2 * P / 4;
		/* the largest unit ZeRO gathers is the embedding, 32000 x 2048
		 * = 65,536,000 parameters (a layer: q and o 2 x 2048^2, k and v
		 * 2 x 2048 x 512, the MLP 3 x 2048 x 8192: 60.8 M); ZeRO-3
		 * holds two of them whole in 16 bits, ZeRO-2 one unit's
		 * 16-bit gradient before its reduce-scatter */
		double unit = 32000.0 * 2048;
		if (zero == 3)
			w += 2 * 2 * unit;
		if (zero == 2)
			g += 2 * unit;
		if (!(fabs(s->weights - w) <= 1e-6 * w && fabs(s->grads - g) <= 1e-6 * g))
			T_FAILF("zero %d: weights %.4f GB gradients %.4f GB, want %.4f, %.4f", zero,
				s->weights / 1e9, s->grads / 1e9, w / 1e9, g / 1e9);
		if (!(fabs(s->optimizer - o) <= 1e-6 * o))
			T_FAILF("zero %d: optimizer state %.3f GB, want %.3f GB", zero,
				s->optimizer / 1e9, o / 1e9);
		estimate_free(&e);
	}
	/* the default at ZeRO 0 under torch DDP (torchtitan's zero 0): the
	 * fp32 gradient buffer and the fp32 master + moments, 4 + 12 */
	memset(&err, 0, sizeof err);
	if (run(&m, FW_TORCHTITAN, 4, 0, MASTER_SHARDED, HP_BF16, &e, &err) == 0) {
		CHECK(fabs(e.stages[0].grads - 4 * P) <= 1e-6 * P);
		CHECK(fabs(e.stages[0].optimizer - 12 * P) <= 1e-6 * P);
		estimate_free(&e);
	} else {
		T_FAILF("%s", err.msg);
	}
}

/* The step on one H100 at ZeRO 0, fused AdamW (the torchtitan row's
 * default): none moves 14 (Adam on bf16 p, g, m, v) + 6 (clip) = 20 B a
 * parameter where the default row counts FW_OPT_BYTES_DEFAULT, 30; the
 * time is bytes / the same achieved bandwidth, so the ratio is 20/30. */
TEST(optimizer_bytes_by_hand)
{
	struct model_spec m = llama_small();
	CHECK(framework_opt_bf16_bytes(FW_TORCHTITAN, OPT_IMPL_FUSED) == 7 * 2 + 6);
	/* foreach and loop: the seven passes' 76 fp32 bytes at half: 38 + 6 */
	CHECK(framework_opt_bf16_bytes(FW_TORCHTITAN, OPT_IMPL_FOREACH) == 38 + 6);
	/* the hf-transformers row's loop era zero_grad (4 B fp32) at 2 B */
	CHECK(framework_opt_bf16_bytes(FW_HF, OPT_IMPL_LOOP) == 38 + 6 + 2);
	struct hp_err err = { 0 };
	struct estimate a, b;
	if (run(&m, FW_TORCHTITAN, 1, 0, MASTER_NONE, HP_BF16, &a, &err) < 0) {
		T_FAILF("%s", err.msg);
		return;
	}
	if (run(&m, FW_TORCHTITAN, 1, 0, MASTER_SHARDED, HP_BF16, &b, &err) < 0) {
		T_FAILF("%s", err.msg);
		estimate_free(&a);
		return;
	}
	double want = 20.0 / FW_OPT_BYTES_DEFAULT;
	if (!(fabs(a.bd.optimizer / b.bd.optimizer - want) <= 1e-6))
		T_FAILF("optimizer none / sharded %.4f, want %.4f", a.bd.optimizer / b.bd.optimizer,
			want);
	estimate_free(&a);
	estimate_free(&b);
}

/* The DP reduce: HF DDP on 4 GPUs reduces the fp32 gradients (4 B, the
 * row's autocast run) by default, the bf16 param.grad (2 B) under none:
 * half the bytes a call. torchtitan at ZeRO 3 keeps FSDP2's fp32
 * reduce_dtype: the same bytes either way. */
TEST(gradient_reduce_dtype)
{
	struct model_spec m = llama_small();
	struct hp_err err = { 0 };
	struct estimate a, b;
	if (run(&m, FW_HF, 4, 0, MASTER_NONE, HP_BF16, &a, &err) < 0) {
		T_FAILF("%s", err.msg);
		return;
	}
	if (run(&m, FW_HF, 4, 0, MASTER_SHARDED, HP_BF16, &b, &err) < 0) {
		T_FAILF("%s", err.msg);
		estimate_free(&a);
		return;
	}
	CHECK(a.comm[DIM_DP].used && b.comm[DIM_DP].used);
	CHECK(fabs(a.comm[DIM_DP].bytes * a.comm[DIM_DP].calls * 2 -
		   b.comm[DIM_DP].bytes * b.comm[DIM_DP].calls) <=
	      1e-6 * b.comm[DIM_DP].bytes * b.comm[DIM_DP].calls);
	estimate_free(&a);
	estimate_free(&b);
	if (run(&m, FW_TORCHTITAN, 4, 3, MASTER_NONE, HP_BF16, &a, &err) < 0) {
		T_FAILF("%s", err.msg);
		return;
	}
	if (run(&m, FW_TORCHTITAN, 4, 3, MASTER_SHARDED, HP_BF16, &b, &err) < 0) {
		T_FAILF("%s", err.msg);
		estimate_free(&a);
		return;
	}
	CHECK(fabs(a.comm[DIM_DP].bytes * a.comm[DIM_DP].calls -
		   b.comm[DIM_DP].bytes * b.comm[DIM_DP].calls) <=
	      1e-6 * b.comm[DIM_DP].bytes * b.comm[DIM_DP].calls);
	estimate_free(&a);
	estimate_free(&b);
}

TEST(refusals)
{
	struct model_spec m = llama_small();
	static const enum hp_dtype bad[] = { HP_FP32, HP_TF32, HP_FP16 };
	for (size_t i = 0; i < HP_ARRAY_LEN(bad); i++) {
		struct hp_err err = { 0 };
		struct estimate e;
		CHECK(run(&m, FW_TORCHTITAN, 1, 0, MASTER_NONE, bad[i], &e, &err) == -1);
		CHECK(err.code == HP_EXIT_INPUT && strstr(err.msg, "master \"none\"") &&
		      strstr(err.msg, hp_dtype_name(bad[i])));
	}
	/* DeepSpeed's optimizer offload moves an fp32 master there is none of */
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=h", &cat, &err) == 0);
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 2;
	p.framework = FW_DEEPSPEED;
	p.zero = 2;
	p.offload = OFFLOAD_OPTIMIZER;
	p.master = MASTER_NONE;
	CHECK(plan_uniform(&p, &c, &m, 0, 1, 1, 2, &err) == 0);
	CHECK(plan_validate(&p, &c, &m, "plan flags", &err) == -1);
	CHECK(strstr(err.msg, "offload optimizer") && strstr(err.msg, "none"));
	plan_free(&p);
}

TEST(which_frameworks_run_it)
{
	struct model_spec m = llama_small();
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=h", &cat, &err) == 0);
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 8;
	p.zero = 3;
	CHECK(plan_uniform(&p, &c, &m, 0, 1, 1, 8, &err) == 0);
	unsigned before = runs_on_mask(&p, &c, NULL, 0);
	CHECK(before & (1u << FW_MEGATRON_CORE));
	p.master = MASTER_NONE;
	char why[512] = "";
	unsigned mask = runs_on_mask(&p, &c, why, sizeof why);
	/* torchtitan: training.dtype bfloat16 (configs.py @b5bcd76c L87) */
	CHECK(mask & (1u << FW_TORCHTITAN));
	/* Megatron: --main-params-dtype fp32|fp16 (arguments.py @d98e8a64
	 * L3673); DeepSpeed: bf16.enabled keeps fp32 master weights */
	CHECK(!(mask & (1u << FW_MEGATRON_CORE)) && !(mask & (1u << FW_MEGATRON_LM)));
	CHECK(!(mask & (1u << FW_DEEPSPEED)));
	plan_free(&p);
	/* the HF Trainer, DDP only (ZeRO 0) */
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 8;
	p.zero = 0;
	p.master = MASTER_NONE;
	CHECK(plan_uniform(&p, &c, &m, 0, 1, 1, 8, &err) == 0);
	CHECK(runs_on_mask(&p, &c, NULL, 0) & (1u << FW_HF));
	CHECK(!(runs_on_mask(&p, &c, NULL, 0) & (1u << FW_HF_DEEPSPEED)));
	plan_free(&p);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(name_in_the_settings_table);
	RUN(model_state_by_hand);
	RUN(optimizer_bytes_by_hand);
	RUN(gradient_reduce_dtype);
	RUN(refusals);
	RUN(which_frameworks_run_it);
	catalog_done(&cat);
	return t_done("purebf16");
}
