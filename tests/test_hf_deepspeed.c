/* test_hf_deepspeed.c — the estimate-only hf-deepspeed framework row
 * (src/framework.h FW_HF_DEEPSPEED: the Hugging Face Trainer with
 * --deepspeed, DeepSpeed's engine over a transformers model's eager code;
 * docs/hf-deepspeed.md):
 *  - the row's fields against DeepSpeed v0.5.6's config defaults
 *    (deepspeed/runtime/zero/constants.py, runtime/constants.py) and the
 *    Trainer's deepspeed_init;
 *  - the optimizer step's bytes, counted pass by pass in the comments
 *    (zero/stage2.py step(), fp16/unfused_optimizer.py step());
 *  - the model code's 16-bit passes without autocast: gelu_new and the
 *    causal torch.where over the scores, by hand against the compute
 *    time's growth (bytes over the catalog's bandwidth times the
 *    calibration's memory-bound efficiency, each extra forward kernel at
 *    kernel_gap_s forward and twice backward, as test_hf.c);
 *  - TP above 1 refused by plan_validate, naming the row. */
#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "framework.h"
#include "perf.h"
#include "plan.h"
#include "util.h"
#include "one_gpu.h"

#include <math.h>
#include <string.h>

static struct catalog cat;

TEST(row_as_deepspeed_v056_defaults)
{
	const struct framework_info *f = framework_get(FW_HF_DEEPSPEED);
	CHECK_STR(f->name, "hf-deepspeed");
	/* zero/constants.py: ZERO_OPTIMIZATION_REDUCE_BUCKET_SIZE_DEFAULT =
	 * 500000000 elements */
	CHECK(f->ddp_bucket_elems == 500000000.0);
	/* ZERO_OPTIMIZATION_OVERLAP_COMM_DEFAULT = False (stages 1-2), and
	 * ZeRO 0 reduces after the backward (engine.py allreduce_gradients) */
	CHECK(!framework_grad_overlap_default(FW_HF_DEEPSPEED, 1));
	CHECK(!framework_grad_overlap_default(FW_HF_DEEPSPEED, 2));
	CHECK(!framework_grad_overlap_possible(FW_HF_DEEPSPEED, 0));
	CHECK(framework_grad_overlap_possible(FW_HF_DEEPSPEED, 1));
	CHECK(framework_grad_overlap_note(FW_HF_DEEPSPEED, 1) != NULL);
	/* ZeRO-2 reduces every micro-batch (stage2.py: "partition_gradients
	 * or is_gradient_accumulation_boundary"), ZeRO-1 at the boundary */
	CHECK(framework_dp_reads_mb(FW_HF_DEEPSPEED, 2) && !framework_dp_reads_mb(FW_HF_DEEPSPEED, 1));
	/* ZeRO 0-3 (stage3.py through the engine, ds_engine); hetplan's
	 * ZeRO-1 default. At ZeRO-3 overlap_comm defaults on (config.py
	 * overlap_comm_valid: stage == 3) and the parameters are prefetched
	 * (stage3_prefetch_bucket_size 5e7, zero/constants.py v0.5.6 L106;
	 * the Trainer fills it only where the config says "auto") */
	CHECK(framework_zero_max(FW_HF_DEEPSPEED) == 3);
	CHECK(framework_default_zero(FW_HF_DEEPSPEED, 1) == 1);
	CHECK(framework_grad_overlap_default(FW_HF_DEEPSPEED, 3));
	CHECK(framework_param_overlap_default(FW_HF_DEEPSPEED, 3));
	CHECK(!framework_param_overlap_default(FW_HF_DEEPSPEED, 1) &&
	      !framework_param_overlap_default(FW_HF_DEEPSPEED, 2));
	CHECK(framework_dp_reads_mb(FW_HF_DEEPSPEED, 3));
	/* the engine's model is 16-bit: no autocast; the eager GPT-2 code */
	CHECK(!f->amp_autocast && f->dp_only && f->no_sp && !f->moe);
	CHECK(f->eager_modules && f->eager_fused_qkv && f->eager_qkv_copies && f->eager_where_mask);
	CHECK(!f->eager_mask_mul && !f->fused_residual_norm && !f->gemm_bias_epilogue);
	/* contiguous_gradients' copy into the bucket and average_tensor's
	 * div_: two read-and-write passes; ZeRO 0: flatten, scale, copy back */
	CHECK(f->ddp_copy_passes == 2 && f->zero0_copy_passes == 3);
	/* the same engine code under Megatron-DeepSpeed: stage_1_and_2.py
	 * v0.9.5 L853 (copy_) and L971 (div_), v0.12.6 L911 and L1072 */
	CHECK(framework_get(FW_DEEPSPEED)->ddp_copy_passes == 2 &&
	      framework_get(FW_DEEPSPEED)->zero0_copy_passes == 3);
	/* DeepSpeed's engine runs the step (deepspeed_init hands the model to
	 * deepspeed.initialize): its ZeRO-1/2 step all-gathers the updated
	 * parameters before it returns (stage2.py step(): all_gather of the
	 * fp16 partitions), as the deepspeed row's; the DDP row is not it */
	CHECK(f->ds_engine && framework_get(FW_DEEPSPEED)->ds_engine);
	CHECK(!framework_get(FW_HF)->ds_engine && !framework_get(FW_MEGATRON_CORE)->ds_engine);
	enum hp_framework out = FW_ANY;
	CHECK(framework_parse("hf-deepspeed", &out) == -1 && out == FW_ANY);
	CHECK(framework_parse_estimate("hf-deepspeed", &out) == 0 && out == FW_HF_DEEPSPEED);
	out = FW_ANY;
	CHECK(framework_parse_estimate("HFDS", &out) == 0 && out == FW_HF_DEEPSPEED);
	CHECK(!framework_launchable(FW_HF_DEEPSPEED));
}

/* The step's HBM bytes per parameter, fp16:
 *  - ZeRO 1-2, per parameter of the rank's shard: overflow check
 *    x.float().sum() 2 + 4 + 4 = 10; norm g.double().norm(2) 2 + 8 + 8 =
 *    18; flatten 2 + 2 and .to(fp32) 2 + 4 = 10; unscale mul_ 8; the
 *    Trainer's AdamW on the flat fp32 partition (mul_ 8, add_ 12, mul_ 8,
 *    addcmul_ 16, sqrt 8, add_ 8, addcdiv_ 16) 76; copy into the 16-bit
 *    partition 4 + 2 = 6: 128, nothing per model parameter. 16 ranks,
 *    124,439,808 parameters (GPT-2 small): 128 x 124,439,808 / 16 =
 *    995,518,464 bytes.
 *  - ZeRO 0 (FP16_UnfusedOptimizer, the Trainer's AdamW is not
 *    FusedAdam): overflow 10, get_weight_norm 2 + 4 + 4 = 10, .to(fp32)
 *    6, unscale 8, AdamW 76, copy back 6: 116.
 *  - fp32 runs: hetplan's default 30 (framework.h). */
TEST(optimizer_step_bytes_by_hand)
{
	double P = 124439808.0;
	CHECK_NEAR(framework_opt_step_bytes(FW_HF_DEEPSPEED, 0, 1, P / 16, P), 995518464.0, 1e-3);
	CHECK_NEAR(framework_opt_step_bytes(FW_HF_DEEPSPEED, 0, 2, P / 16, P), 995518464.0, 1e-3);
	CHECK(framework_opt_bytes(FW_HF_DEEPSPEED, 0) == 116);
	CHECK(framework_opt_step_bytes(FW_HF_DEEPSPEED, 0, 0, P, P) == 116 * P);
	CHECK(framework_opt_bytes(FW_HF_DEEPSPEED, 1) == 30);
	/* the loss in 16 bits: the shift copy 2 + 2 and log_softmax 2 + 2
	 * forward; nll_loss's gradient 2, log_softmax's backward 2 + 2 + 2,
	 * the slice's gradient (zeros 2, copy in 2 + 2) backward */
	const struct framework_info *f = framework_get(FW_HF_DEEPSPEED);
	CHECK(f->loss_bytes_fwd == 8 && f->loss_bytes_bwd == 14);
}

/* A GPT-2 medium-shaped layer stack (hidden 1024, 16 heads, ffn 4096,
 * LayerNorm, learned positions, biases, dropout), as test_hf.c. */
static struct model_spec gpt2(int layers, int seq, int gelu_new, int softmax_fp32)
{
	struct model_spec m;
	memset(&m, 0, sizeof m);
	snprintf(m.name, sizeof m.name, "gpt2-test");
	m.layers = layers;
	m.hidden = 1024;
	m.heads = m.kv_heads = 16;
	m.head_dim = 64;
	m.ffn = 4096;
	m.vocab = 50257;
	m.seq_len = seq;
	m.tied_embeddings = m.bias = m.dropout = 1;
	m.norm = NORM_LAYER;
	m.position = POS_LEARNED;
	m.gelu_new = gelu_new;
	m.attn_softmax_fp32 = softmax_fp32;
	return m;
}

static double a100_s(const struct model_spec *m, enum hp_dtype dt, int flash, enum hp_framework fw)
{
	return one_gpu_compute_s(&cat, "1x1xA100-SXM4-80GB,name=a", m, dt, flash, fw);
}

/* bytes over the A100-SXM4-80GB's 2,039 GB/s (datasheet) times the
 * calibration's ampere.hbm efficiency, plus k extra forward kernels at
 * kernel_gap_s each, forward once and backward twice */
static double a100_want(double bytes, double kernels)
{
	const struct gpu_spec *g = catalog_gpu(&cat, "A100-SXM4-80GB");
	CHECK(g && fabs(g->hbm_Bps - 2.039e12) < 1e9);
	const struct perf_calib *k = perf_calib_default();
	CHECK(k->gen[GEN_AMPERE].hbm > 0.5 && k->gen[GEN_AMPERE].hbm <= 1);
	return bytes / (2.039e12 * k->gen[GEN_AMPERE].hbm) + 3 * kernels * k->kernel_gap_s;
}

/* gelu_new in 16 bits (no autocast: the engine's half model): pow, mul,
 * add, mul, tanh, add, mul, mul move 18 elements forward and 23 backward
 * (pow 3, mul 2, add 0, mul 2, tanh 3, add 0, mul 2, product 5, the
 * input's three gradients summed 6), against one GeLU's 6 charged: 35 x 2
 * = 70 bytes an element of ffn, 7 more forward kernels. 4 layers of
 * 16,384 tokens, flash attention (no scores): 70 x 4096 x 16384 x 4. */
TEST(gelu_new_16bit_by_hand)
{
	int L = 4, T = 16384;
	struct model_spec off = gpt2(L, T, 0, 0), on = gpt2(L, T, 1, 0);
	double d = a100_s(&on, HP_FP16, 1, FW_HF_DEEPSPEED) - a100_s(&off, HP_FP16, 1, FW_HF_DEEPSPEED);
	CHECK_NEAR(d, a100_want(70.0 * 4096 * T * L, 7.0 * L), 1e-6);
}

/* GPT-2's scores in 16 bits, per score, forward and backward: scale
 * 4 + 4, torch.where 4 + 4, the padding mask's add 4 + 0, softmax 4 + 6:
 * 30 bytes where the eager rows charge 24, +6, and the where's kernel.
 * GPTBigCode's upcast path (attn_softmax_fp32) moves 44 (test_hf.c) and
 * has no separate where: the two differ by 44 - 30 = 14 bytes a score and
 * one forward kernel the other way. 16 heads x 4,096 x 4,096 scores a
 * layer, 4 layers. */
TEST(causal_where_16bit_by_hand)
{
	int L = 4, s = 4096;
	double scores = 16.0 * s * s * L;
	struct model_spec gpt = gpt2(L, s, 0, 0), upcast = gpt2(L, s, 0, 1);
	double d = a100_s(&upcast, HP_FP16, 0, FW_HF_DEEPSPEED) - a100_s(&gpt, HP_FP16, 0, FW_HF_DEEPSPEED);
	CHECK_NEAR(d, a100_want(14.0 * scores, -1.0 * L), 1e-6);
	/* against deepspeed-0.3's eager layer (no where, its own mask): the
	 * upcast adds 20 there, so the same model under hf-deepspeed costs
	 * what the where adds on top of the shared eager passes */
	double ds03 = a100_s(&upcast, HP_FP16, 0, FW_DEEPSPEED_03) - a100_s(&gpt, HP_FP16, 0, FW_DEEPSPEED_03);
	CHECK_NEAR(ds03, a100_want(20.0 * scores, 0), 1e-6);
	/* flash attention: no scores, no where */
	CHECK(a100_s(&upcast, HP_FP16, 1, FW_HF_DEEPSPEED) == a100_s(&gpt, HP_FP16, 1, FW_HF_DEEPSPEED));
}

/* The DP time a step of fw at ZeRO stage zero, DP 8 on one node of 8
 * A100s, mb micro-batches of 1 x 1,024 tokens, fp16, the GPU's HBM
 * bandwidth scaled by hbm (a test's edited catalog entry). */
static double dp8_s(const struct model_spec *m, enum hp_framework fw, int zero, int mb, double hbm)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, "1x8xA100-SXM4-80GB,name=a", &cat, &err) < 0) {
		T_FAILF("%s", err.msg);
		return -1;
	}
	c.pools[0].gpu.hbm_Bps *= hbm;
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 8 * mb;
	p.precision = HP_FP16;
	p.framework = fw;
	p.zero = zero;
	double t = -1;
	struct estimate e;
	if (plan_uniform(&p, &c, m, 0, 1, 1, 8, &err) < 0 ||
	    perf_estimate(&c, m, &p, NULL, &e, &err) < 0) {
		T_FAILF("%s", err.msg);
	} else {
		t = e.bd.dp_comm;
		estimate_free(&e);
	}
	plan_free(&p);
	return t;
}

/* The ZeRO 1-2 bucket copies: two read-and-write passes over each 16-bit
 * gradient (the copy into the ipg bucket, the bucket's div_), on the
 * GPU's HBM, and nothing else of the DP term moves with HBM bandwidth
 * (the collectives ride NVLink). Halving the bandwidth adds, per reduce,
 * 2 x 2 x 2 bytes x P / (B x ampere.hbm): P = 24 layers x (12 h^2 +
 * 13 h) + V h + s h + 2 h = 24 x 12,596,224 + 51,463,168 + 1,048,576 +
 * 2,048 = 354,823,168 parameters (h 1,024, V 50,257, s 1,024, tied
 * embeddings, biases and LayerNorms). ZeRO-1 reduces once a step
 * (at the boundary); ZeRO-2 after every micro-batch's backward, copy
 * included (stage_1_and_2.py reduce_ready_partitions_and_remove_grads:
 * "partition_gradients or is_gradient_accumulation_boundary"): 4
 * micro-batches, 4 copies. The same for both rows of the engine. */
TEST(zero12_bucket_copies_per_reduce)
{
	struct model_spec m = gpt2(24, 1024, 0, 0);
	const struct perf_calib *k = perf_calib_default();
	double P = 24.0 * (12.0 * 1024 * 1024 + 13 * 1024) + 50257.0 * 1024 + 1024.0 * 1024 + 2048;
	double once = 8.0 * P / (2.039e12 * k->gen[GEN_AMPERE].hbm);   /* at B/2 less at B */
	enum hp_framework fws[2] = { FW_DEEPSPEED, FW_HF_DEEPSPEED };
	for (int i = 0; i < 2; i++) {
		double z1 = dp8_s(&m, fws[i], 1, 4, 0.5) - dp8_s(&m, fws[i], 1, 4, 1);
		double z2 = dp8_s(&m, fws[i], 2, 4, 0.5) - dp8_s(&m, fws[i], 2, 4, 1);
		CHECK_NEAR(z1, once, 1e-9);
		CHECK_NEAR(z2, 4 * once, 1e-9);
	}
}

/* plan_validate of a TP 2 x DP 4 plan on 8 A100s under hf-deepspeed:
 * the Trainer has no tensor or pipeline degree of its own (dp_only) */
TEST(layout_refused_naming_row)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, "1x8xA100-SXM4-80GB,name=a", &cat, &err) < 0) {
		T_FAILF("%s", err.msg);
		return;
	}
	const struct model_spec *m = catalog_model(&cat, "gpt-1.7b");
	CHECK(m != NULL);
	if (!m)
		return;
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 64;
	p.framework = FW_HF_DEEPSPEED;
	if (plan_uniform(&p, &c, m, 0, 2, 1, 4, &err) < 0) {
		T_FAILF("%s", err.msg);
	} else {
		CHECK(plan_validate(&p, &c, m, "--tp", &err) == -1);
		CHECK_EQ_INT(err.code, HP_EXIT_INPUT);
		CHECK_CONTAINS(err.msg, "hf-deepspeed runs data parallelism only");
		CHECK_CONTAINS(err.msg, "not TP 2");
	}
	plan_free(&p);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(row_as_deepspeed_v056_defaults);
	RUN(optimizer_step_bytes_by_hand);
	RUN(gelu_new_16bit_by_hand);
	RUN(causal_where_16bit_by_hand);
	RUN(layout_refused_naming_row);
	RUN(zero12_bucket_copies_per_reduce);
	catalog_done(&cat);
	return t_done("hf_deepspeed");
}
