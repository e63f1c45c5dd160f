/* test_ds03.c — the estimate-only deepspeed-0.3 framework row
 * (src/framework.h, FW_DEEPSPEED_03) against microsoft/DeepSpeed @7d4d742
 * (0.3.0+7d4d742, the BLDSV rows' engine) and DeepSpeedExamples
 * Megatron-LM/ @a79272c (their model code):
 *  - the row's fields as counted there (framework.c names the files);
 *  - its name parses for plans and `estimate`, not for launch;
 *  - the loss's bytes by hand: the 2019 pretrain_gpt2.py casts the logits
 *    to fp32 and its vocab_parallel_cross_entropy clones, reduces,
 *    exponentiates and divides them: 46 + 14 bytes a logit, where
 *    Megatron's later path moves 12 + 12;
 *  - the 2019 causal mask by hand: scores x mask - 10000 (1 - mask) moves
 *    4 more elements, 8 bytes, per 16-bit score (forward and backward)
 *    than the BERT code's additive mask, the only term that grows with
 *    the head count at a fixed width and differs between this row and
 *    pytorch-ddp-2020. */
#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "framework.h"
#include "perf.h"
#include "plan.h"
#include "one_gpu.h"

static struct catalog cat;

TEST(row_as_deepspeed_03_runs)
{
	const struct framework_info *f = framework_get(FW_DEEPSPEED_03);
	/* engine.py allreduce_gradients: ZeRO 0 (buffered_allreduce_fallback)
	 * and ZeRO 1 (stage1.py reduce_scatter_gradients) both run after the
	 * backward; the ZeRO-1 all-gather after the update; no TP overlap;
	 * allreduce_always_fp32 off (fp16 gradients). */
	CHECK(f->grad_overlap == 0 && f->param_overlap == 0 && f->tp_overlap == 0);
	CHECK(!framework_grad_overlap_possible(FW_DEEPSPEED_03, 0));
	CHECK(!framework_grad_overlap_possible(FW_DEEPSPEED_03, 1));
	CHECK(f->grad_reduce_fp32 == 0);
	/* MEMORY_OPT_ALLREDUCE_SIZE = 500000000 (engine.py L37) */
	CHECK(f->ddp_bucket_elems == 500000000.0);
	/* ZeRO 0: flatten, mul_ by 1/DP, copy back; ZeRO 1: flatten into
	 * sub-partitions, mul_ of every partition, two torch.cat */
	CHECK(f->zero0_copy_passes == 3 && f->ddp_copy_passes == 4);
	/* FP16_Optimizer.step: overflow check 2 + 4 + 4, fp32 cast 2 + 4,
	 * flatten 4 + 4, norm 4, unscale 4 + 4, FusedAdam 16 + 12, fp16 copy
	 * 4 + 2: 70 bytes a parameter; fp32 runs keep the default. */
	CHECK(framework_opt_bytes(FW_DEEPSPEED_03, 0) == 70);
	CHECK(framework_opt_bytes(FW_DEEPSPEED_03, 1) == FW_OPT_BYTES_DEFAULT);
	CHECK(f->loss_bytes_fwd == 46 && f->loss_bytes_bwd == 14);
	/* mpu/transformer.py: eager ops, one query_key_value linear, q, k, v
	 * copied by torch.matmul, the multiplicative mask */
	CHECK(f->eager_modules && f->eager_qkv_copies && f->eager_fused_qkv && f->eager_mask_mul);
	CHECK(!f->fused_residual_norm && !f->no_dropout && !f->gemm_bias_epilogue);
	/* no other row takes the 2019 layer's mask; its fused QKV only the
	 * HF row too (GPT-2's and GPTBigCode's c_attn: one linear) */
	for (int k = 0; k < FW_ROWS; k++)
		if (k != FW_DEEPSPEED_03)
			CHECK((k == FW_HF || k == FW_HF_DEEPSPEED || !framework_get((enum hp_framework)k)->eager_fused_qkv) &&
			      !framework_get((enum hp_framework)k)->eager_mask_mul);
}

TEST(name_parses_estimate_only)
{
	enum hp_framework out = FW_ANY;
	CHECK(framework_parse("deepspeed-0.3", &out) == -1 && out == FW_ANY);
	CHECK(framework_parse_estimate("deepspeed-0.3", &out) == 0 && out == FW_DEEPSPEED_03);
	out = FW_ANY;
	CHECK(framework_parse_estimate("DS03", &out) == 0 && out == FW_DEEPSPEED_03);
	CHECK(!framework_launchable(FW_DEEPSPEED_03));
	char b[256];
	CHECK(strstr(framework_list(FW_LIST_ESTIMATE_ONLY, b, sizeof b), "deepspeed-0.3") != NULL);
	CHECK(strstr(framework_list(FW_LIST_LAUNCHABLE, b, sizeof b), "deepspeed-0.3") == NULL);
}

/* The ZeRO-1 step (zero/stage1.py step() @7d4d742) by hand, for GPT-2
 * small's P = 124,439,808 parameters (tied wte 50,257 x 768 = 38,597,376,
 * wpe 1,024 x 768 = 786,432, 12 layers of 7,087,872, final LayerNorm
 * 1,536) at d = 8 ranks, shard P/8 = 15,554,976:
 *   over the whole model, CheckOverflow.check float(x.float().sum())
 *   2 + 4 + 4 and get_grad_norm p.grad.data.float().norm() 2 + 4 + 4:
 *   20 x 124,439,808 = 2,488,796,160 bytes;
 *   on the shard, .to(fp32) 2 + 4, flatten 4 + 4, unscale mul_ 4 + 4,
 *   FusedAdam 16 + 12, fp16 copy 4 + 2: 56 x 15,554,976 = 871,078,656;
 *   total 3,359,874,816 bytes (ZeRO 0: 70 x P = 8,710,786,560). */
TEST(zero1_step_bytes_by_hand)
{
	double P = 124439808.0, shard = P / 8;
	CHECK(framework_opt_step_bytes(FW_DEEPSPEED_03, 0, 1, shard, P) == 3359874816.0);
	CHECK(framework_opt_step_bytes(FW_DEEPSPEED_03, 0, 0, P, P) == 8710786560.0);
	/* fp32 runs keep the default 30 bytes on the shard: 466,649,280 */
	CHECK(framework_opt_step_bytes(FW_DEEPSPEED_03, 1, 1, shard, P) == 466649280.0);
	/* the other rows: their own bytes on the shard only (megatron-core
	 * 30 x 15,554,976 = 466,649,280) */
	CHECK(framework_opt_step_bytes(FW_MEGATRON_CORE, 0, 1, shard, P) == 466649280.0);
	/* the ZeRO stages each row's code runs (runs_on.c refuses the rest) */
	CHECK(framework_zero_max(FW_DEEPSPEED_03) == 1 && framework_zero_max(FW_LLMC) == 1 &&
	      framework_zero_max(FW_INTERNLM) == 1 && framework_zero_max(FW_PYTORCH_DDP) == 0 &&
	      framework_zero_max(FW_PYTORCH_DDP_2020) == 0 &&
	      framework_zero_max(FW_MEGATRON_CORE) == 3 && framework_zero_max(FW_DEEPSPEED) == 3);
}

/* Compute time of gpt-1.7b (catalog) with vocabulary V and `heads`
 * heads of hidden / heads each, on one V100-SXM2-16GB, fp16, unfused
 * attention, micro-batch 1 of the model's sequence, one micro-batch. */
static double compute_s(enum hp_framework fw, int vocab, int heads)
{
	const struct model_spec *m0 = catalog_model(&cat, "gpt-1.7b");
	if (!m0) {
		T_FAILF("no gpt-1.7b in the catalog");
		return -1;
	}
	struct model_spec m = *m0;
	m.vocab = vocab;
	m.heads = m.kv_heads = heads;
	m.head_dim = m.hidden / heads;
	return one_gpu_compute_s(&cat, "1x1xV100-SXM2-16GB,name=a", &m, HP_FP16, 0, fw);
}

/* The V100-SXM2-16GB's 900 GB/s (datasheet) times the calibration's
 * volta.hbm efficiency (perf_calib_default; read, not computed). */
static double v100_Bps(void)
{
	const struct gpu_spec *g = catalog_gpu(&cat, "V100-SXM2-16GB");
	CHECK(g != NULL);
	if (!g)
		return 1;
	CHECK(fabs(g->hbm_Bps - 0.9e12) < 1e9);
	double eff = perf_calib_default()->gen[GEN_VOLTA].hbm;
	CHECK(eff > 0.5 && eff <= 1);
	return g->hbm_Bps * eff;
}

/* Growing the vocabulary from 51,200 to 64,000 adds seq x 12,800 logits;
 * the logits GEMM grows the same under both rows, so the difference of
 * the growths is the loss bytes alone: (46 + 14 - 24) = 36 bytes a logit. */
TEST(loss_bytes_by_hand)
{
	const struct model_spec *m = catalog_model(&cat, "gpt-1.7b");
	CHECK(m != NULL);
	if (!m)
		return;
	int heads = m->heads;
	double want = 36.0 * m->seq_len * 12800 / v100_Bps();
	double mc = compute_s(FW_MEGATRON_CORE, 64000, heads) - compute_s(FW_MEGATRON_CORE, 51200, heads);
	double ds = compute_s(FW_DEEPSPEED_03, 64000, heads) - compute_s(FW_DEEPSPEED_03, 51200, heads);
	if (!(fabs((ds - mc) - want) < want * 1e-6))
		T_FAILF("loss bytes: megatron-core grows %.4f ms, deepspeed-0.3 %.4f ms, difference "
			"%.4f ms, want 36 B x %d x 12,800 logits = %.4f ms", mc * 1e3, ds * 1e3,
			(ds - mc) * 1e3, m->seq_len, want * 1e3);
}

/* Doubling the heads at a fixed width (head size halved) adds
 * heads x s x s scores a layer per micro-batch; QKV, projection and MLP
 * GEMMs keep their shapes, and the batched attention GEMMs are the same
 * under both rows. Against pytorch-ddp-2020 (BERT's additive mask) this
 * row moves 4 more elements, 8 bytes, per added fp16 score (2 eb: the
 * multiply's read and write forward, 2 eb: the gradient times the mask
 * backward, eb = 2 bytes), in
 * each of the model's layers:
 *   4 x 2 bytes x (2h - h heads) x s x s x layers / HBM rate. */
TEST(mask_bytes_by_hand)
{
	const struct model_spec *m = catalog_model(&cat, "gpt-1.7b");
	CHECK(m != NULL);
	if (!m)
		return;
	int h = m->heads;
	double s = m->seq_len;
	double want = 4.0 * 2 * h * s * s * m->layers / v100_Bps();
	double dd = compute_s(FW_PYTORCH_DDP_2020, m->vocab, 2 * h) - compute_s(FW_PYTORCH_DDP_2020, m->vocab, h);
	double ds = compute_s(FW_DEEPSPEED_03, m->vocab, 2 * h) - compute_s(FW_DEEPSPEED_03, m->vocab, h);
	if (!(fabs((ds - dd) - want) < want * 1e-6))
		T_FAILF("mask bytes: pytorch-ddp-2020 grows %.4f ms, deepspeed-0.3 %.4f ms, difference "
			"%.4f ms, want %.4f ms", dd * 1e3, ds * 1e3, (ds - dd) * 1e3, want * 1e3);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(row_as_deepspeed_03_runs);
	RUN(name_parses_estimate_only);
	RUN(zero1_step_bytes_by_hand);
	RUN(loss_bytes_by_hand);
	RUN(mask_bytes_by_hand);
	catalog_done(&cat);
	return t_done("ds03");
}
