/* test_llmc.c — the estimate-only llm.c framework row (src/framework.h,
 * FW_LLMC) against karpathy/llm.c @f1e2ace, the commit of the BLLC rows:
 *  - the row's fields as read there (framework.c cites file and line);
 *  - its name parses for plans and `estimate`, not for launch;
 *  - the loss's bytes by hand: fused_classifier_kernel5 moves 6 bytes a
 *    logit (bf16 logits read twice, the gradient written in place) where
 *    Megatron's fp32 cross-entropy moves 24;
 *  - every other row keeps Megatron's loss, the unfused norms, its dropout
 *    and its bias-add kernels (their outputs are checked byte for byte by
 *    tools/snapshot.sh; here only that no field leaks). */
#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "framework.h"
#include "perf.h"
#include "plan.h"
#include "one_gpu.h"

static struct catalog cat;

TEST(row_as_llmc_runs)
{
	const struct framework_info *f = framework_get(FW_LLMC);
	/* zero.cuh multi_gpu_async_reduce_gradient: reduce-scatter (-z 1) or
	 * all-reduce (-z 0) in floatX on the NCCL stream during the backward;
	 * the ZeRO-1 gather after the update; no TP; cuDNN attention. */
	CHECK(f->grad_overlap == 1 && f->param_overlap == 0 && f->tp_overlap == 0);
	CHECK(f->grad_reduce_fp32 == 0);
	CHECK(f->grad_overlap_min_zero == 0);
	CHECK(framework_grad_overlap_possible(FW_LLMC, 0) && framework_grad_overlap_possible(FW_LLMC, 1));
	CHECK(f->attn_gen3 == 1);
	CHECK(f->zero1_bcast == 0 && f->ddp_copy_passes == 0 && f->eager_modules == 0);
	/* adamw_kernel3: read bf16 grad 2 + fp32 m, v, master 12, write m, v,
	 * master 12 + bf16 param 2 = 28; global_norm_squared over the shard's
	 * bf16 gradients 2: 30 per local parameter. */
	CHECK(framework_opt_bytes(FW_LLMC, 0) == 30);
	/* fused_classifier: 0 forward (it runs at the start of the backward),
	 * 2 + 2 + 2 backward. */
	CHECK(f->loss_bytes_fwd == 0 && f->loss_bytes_bwd == 6);
	/* the logits in the floatX (bf16) activation buffer `output`
	 * (train_gpt2.cu L250), overwritten in place by their gradient:
	 * 2 bytes a logit; every other row the fp32 copy (0: default 4) */
	CHECK(f->logit_bytes == 2);
	for (int k = 0; k < FW_ROWS; k++)
		if (k != FW_LLMC)
			CHECK(framework_get((enum hp_framework)k)->logit_bytes == 0);
	CHECK(f->fused_residual_norm && f->no_dropout && f->gemm_bias_epilogue);
	/* every other row: nothing of llm.c's; Megatron's 12 + 12 but for
	 * deepspeed-0.3's 2019 loss (46 + 14, test_ds03.c) and hf-deepspeed's
	 * 16-bit GPT-2 loss (8 + 14, test_hf_deepspeed.c) */
	for (int k = 0; k < FW_ROWS; k++) {
		const struct framework_info *o = framework_get((enum hp_framework)k);
		if (k == FW_LLMC)
			continue;
		if (k != FW_DEEPSPEED_03 && k != FW_HF_DEEPSPEED)
			CHECK(o->loss_bytes_fwd == 12 && o->loss_bytes_bwd == 12);
		CHECK(!o->fused_residual_norm && !o->no_dropout && !o->gemm_bias_epilogue);
	}
}

TEST(name_parses_estimate_only)
{
	enum hp_framework out = FW_ANY;
	CHECK(framework_parse("llm.c", &out) == -1 && out == FW_ANY);   /* not launchable */
	CHECK(framework_parse_estimate("llm.c", &out) == 0 && out == FW_LLMC);
	out = FW_ANY;
	CHECK(framework_parse_estimate("LLMC", &out) == 0 && out == FW_LLMC);   /* the abbreviation */
	CHECK(framework_parse_estimate("llm", &out) == -1);
	CHECK(!framework_launchable(FW_LLMC));
	CHECK(!strcmp(framework_name(FW_LLMC), "llm.c"));
	char b[256];
	CHECK(strstr(framework_list(FW_LIST_ESTIMATE_ONLY, b, sizeof b), "llm.c") != NULL);
	CHECK(strstr(framework_list(FW_LIST_LAUNCHABLE, b, sizeof b), "llm.c") == NULL);
}

/* Compute time of gpt-1.7b (catalog) with vocabulary V on one
 * A100-SXM4-80GB, bf16, micro-batch 1 of 2,048 tokens, one micro-batch. */
static double compute_s(enum hp_framework fw, int vocab)
{
	const struct model_spec *m0 = catalog_model(&cat, "gpt-1.7b");
	if (!m0) {
		T_FAILF("no gpt-1.7b in the catalog");
		return -1;
	}
	struct model_spec m = *m0;
	m.vocab = vocab;
	return one_gpu_compute_s(&cat, "1x1xA100-SXM4-80GB,name=a", &m, HP_BF16, 1, fw);
}

/* The loss by hand. Growing the vocabulary from 51,200 to 64,000 adds
 * 2,048 tokens x 12,800 = 26,214,400 logits. The logits GEMM grows the
 * same under both rows, and so do the embedding's optimizer bytes (30 a
 * parameter in both) and the step's other terms (one GPU: no DP), so the
 * difference of the two rows' growths is the loss bytes alone:
 *   (24 - 6) bytes x 26,214,400 = 471,859,200 bytes
 * at the A100-SXM4-80GB's 2,039 GB/s (datasheet) times the calibration's
 * ampere.hbm efficiency (perf_calib_default; read below, not computed).
 * With ampere.hbm as shipped, 0.7536: 471,859,200 / 1.5366e12 = 0.307 ms. */
TEST(loss_bytes_by_hand)
{
	const struct gpu_spec *g = catalog_gpu(&cat, "A100-SXM4-80GB");
	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(fabs(g->hbm_Bps - 2.039e12) < 1e9);
	double eff = perf_calib_default()->gen[GEN_AMPERE].hbm;
	CHECK(eff > 0.5 && eff <= 1);
	double want = 18.0 * 2048 * 12800 / (g->hbm_Bps * eff);
	double mc = compute_s(FW_MEGATRON_CORE, 64000) - compute_s(FW_MEGATRON_CORE, 51200);
	double lc = compute_s(FW_LLMC, 64000) - compute_s(FW_LLMC, 51200);
	if (!(fabs((mc - lc) - want) < want * 1e-6))
		T_FAILF("loss bytes: megatron-core grows %.4f ms, llm.c %.4f ms, difference %.4f ms, "
			"want 18 B x 26,214,400 logits = %.4f ms", mc * 1e3, lc * 1e3, (mc - lc) * 1e3,
			want * 1e3);
	/* and llm.c's own growth is below Megatron's by exactly that */
	CHECK(lc < mc);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(row_as_llmc_runs);
	RUN(name_parses_estimate_only);
	RUN(loss_bytes_by_hand);
	catalog_done(&cat);
	return t_done("llmc");
}
