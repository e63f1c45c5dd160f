/* test_hf.c — the estimate-only hf-transformers framework row (src/
 * framework.h, FW_HF) and the Hugging Face model code's eager passes
 * (perf_compute.c hf_eager_bytes; model keys gelu_new and
 * attn_softmax_fp32):
 *  - the row's fields against torch DDP's and the Trainer's defaults;
 *  - TP or PP above 1 refused by plan_validate (exit 3), with a sentence
 *    naming the framework and the degree;
 *  - gelu_new's bytes by hand, under autocast (bf16) and in an fp32 run;
 *  - GPTBigCode's fp32 softmax upcast by hand, without autocast and
 *    against GPT-2's autocast path.
 * Each byte count is the pass-by-pass count written in the comment,
 * against the compute time's growth (bytes over the catalog's bandwidth
 * times the calibration's memory-bound efficiency, both read here; each
 * extra forward kernel costs kernel_gap_s forward and twice backward). */
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

TEST(row_as_hf_trainer_runs)
{
	const struct framework_info *f = framework_get(FW_HF);
	CHECK_STR(f->name, "hf-transformers");
	/* torch DistributedDataParallel: bucket_cap_mb = 25 (MiB) when the
	 * Trainer's ddp_bucket_cap_mb is unset; fp32 gradients (autocast
	 * keeps fp32 weights): 25 x 1,048,576 / 4 = 6,553,600 elements */
	CHECK(f->ddp_bucket_elems == 6553600.0);
	CHECK(f->grad_overlap == 1 && f->param_overlap == 0 && f->tp_overlap == 0);
	CHECK(f->grad_reduce_fp32 == 1);
	/* DDP only: ZeRO means --deepspeed, the deepspeed row */
	CHECK(framework_zero_max(FW_HF) == 0 && framework_default_zero(FW_HF, 1) == 0);
	CHECK(f->eager_modules && f->eager_fused_qkv && f->amp_autocast && f->dp_only);
	CHECK(!f->fused_residual_norm && !f->no_dropout && !f->gemm_bias_epilogue);
	/* only this row is data-parallel only or autocast */
	for (int k = 0; k < FW_ROWS; k++)
		if (k != FW_HF && k != FW_HF_DEEPSPEED)
			CHECK(!framework_get((enum hp_framework)k)->dp_only &&
			      !framework_get((enum hp_framework)k)->amp_autocast);
	enum hp_framework out = FW_ANY;
	CHECK(framework_parse("hf-transformers", &out) == -1 && out == FW_ANY);
	CHECK(framework_parse_estimate("hf-transformers", &out) == 0 && out == FW_HF);
	out = FW_ANY;
	CHECK(framework_parse_estimate("HF", &out) == 0 && out == FW_HF);
	CHECK(!framework_launchable(FW_HF));
}

/* plan_validate of a plan of tp x pp on 8 A100s under framework fw. */
static int validate(enum hp_framework fw, int tp, int pp, struct hp_err *err)
{
	struct cluster c;
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, "1x8xA100-SXM4-80GB,name=a", &cat, err) < 0) {
		T_FAILF("%s", err->msg);
		return -2;
	}
	const struct model_spec *m = catalog_model(&cat, "gpt-1.7b");
	CHECK(m != NULL);
	if (!m)
		return -2;
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 64;
	p.framework = fw;
	int rc = -2;
	if (plan_uniform(&p, &c, m, 0, tp, pp, 8 / (tp * pp), err) < 0)
		T_FAILF("%s", err->msg);
	else
		rc = plan_validate(&p, &c, m, "--tp", err);
	plan_free(&p);
	return rc;
}

TEST(tp_pp_refused)
{
	struct hp_err err = { 0 };
	CHECK(validate(FW_HF, 1, 1, &err) == 0);
	memset(&err, 0, sizeof err);
	CHECK(validate(FW_HF, 2, 1, &err) == -1);
	CHECK_EQ_INT(err.code, HP_EXIT_INPUT);
	CHECK_CONTAINS(err.msg, "hf-transformers runs data parallelism only");
	CHECK_CONTAINS(err.msg, "not TP 2");
	memset(&err, 0, sizeof err);
	CHECK(validate(FW_HF, 1, 2, &err) == -1);
	CHECK_EQ_INT(err.code, HP_EXIT_INPUT);
	CHECK_CONTAINS(err.msg, "not PP 2");
	/* the other rows keep their warnings (runs_on.c), not a refusal */
	memset(&err, 0, sizeof err);
	CHECK(validate(FW_LLMC, 2, 1, &err) == 0);
	CHECK(validate(FW_TORCHTITAN, 2, 2, &err) == 0);
}

/* A GPT-2 medium-shaped model (hidden 1024, 16 heads, ffn 4096, GeLU,
 * LayerNorm, learned positions, biases, dropout) of `layers` layers and
 * context seq, as the blind driver builds the HF rows. */
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

/* gelu_new by hand, one GPT-2 medium layer, per token (ffn 4096):
 *  - bf16 under autocast (the Trainer's --bf16): pow runs in fp32, so
 *    the chain moves 76 bytes an element forward (cast 6, pow 8, mul 8,
 *    add 10, mul 8, tanh 8, add 8, 0.5 x input 4, product 10, c_proj's
 *    input cast 6) and 90 backward (cast 6, product 16, 0.5 x input 4,
 *    tanh 12, mul 8, cast 6, mul 8, pow 12, cast 6, the input's three
 *    gradients summed 12): 166 where one GeLU is charged 2 x 2 x 3 = 12.
 *    154 B x 4096 = 630,784 bytes a token a layer more, and 8 more
 *    forward kernels (7 ops and the cast). 4 layers of 16,384 tokens
 *    (flash attention, so the scores do not enter): 41.34 GB.
 *  - tf32 (no autocast, fp32 activations, 4 bytes): 18 element moves
 *    forward, 23 backward (pow 3, mul 2, add 0, mul 2, tanh 3, add 0,
 *    mul 2, product 5, the sums 6), against 6: 35 x 4 = 140 B x 4096 =
 *    573,440 bytes a token a layer, and 7 more forward kernels.
 * Long sequences keep the host's launches behind the GPU's work, so the
 * growth is the bytes and the kernel gaps alone. */
TEST(gelu_new_bytes_by_hand)
{
	int L = 4, T = 16384;
	struct model_spec off = gpt2(L, T, 0, 0), on = gpt2(L, T, 1, 0);
	double d = a100_s(&on, HP_BF16, 1, FW_HF) - a100_s(&off, HP_BF16, 1, FW_HF);
	double want = a100_want(630784.0 * T * L, 8.0 * L);
	CHECK_NEAR(d, want, 1e-6);
	d = a100_s(&on, HP_TF32, 1, FW_HF) - a100_s(&off, HP_TF32, 1, FW_HF);
	want = a100_want(573440.0 * T * L, 7.0 * L);
	CHECK_NEAR(d, want, 1e-6);
	/* and nothing under a fused-layer row (Megatron's bias-GeLU fusion) */
	CHECK(a100_s(&on, HP_BF16, 1, FW_MEGATRON_CORE) == a100_s(&off, HP_BF16, 1, FW_MEGATRON_CORE));
}

/* GPTBigCode's fp32 softmax by hand, per score (16 heads x T x s per
 * layer, seq 4,096, 4 layers: 1.0737e9 scores a layer):
 *  - without autocast (an eager row in fp16, deepspeed-0.3): the fused
 *    cast-unscale-where kernel reads 2 and writes 4, the fp32 softmax
 *    reads 4 and writes 4, the cast back reads 4 and writes 2 (20
 *    forward); backward 6 + 12 + 6 (24): 44 bytes where the eager rows
 *    charge 24 (softmax 4 x 3, scale and mask 4 x 3). 20 bytes a score
 *    more, no kernel more (three kernels for the three charged).
 *  - under the HF row's autocast, against GPT-2's path, whose scores turn
 *    fp32 at the additive mask: scale 8, torch.where 8, mask add 12,
 *    softmax 20, cast back 12 = 60 bytes and two kernels more than the
 *    charged scale-mask-softmax; the upcast path is 44: 16 bytes a score
 *    and 2 forward kernels fewer. */
TEST(softmax_upcast_bytes_by_hand)
{
	int L = 4, s = 4096;
	double scores = 16.0 * s * s * L;
	struct model_spec off = gpt2(L, s, 0, 0), on = gpt2(L, s, 0, 1);
	double d = a100_s(&on, HP_FP16, 0, FW_DEEPSPEED_03) - a100_s(&off, HP_FP16, 0, FW_DEEPSPEED_03);
	CHECK_NEAR(d, a100_want(20.0 * scores, 0), 1e-6);
	d = a100_s(&off, HP_BF16, 0, FW_HF) - a100_s(&on, HP_BF16, 0, FW_HF);
	CHECK_NEAR(d, a100_want(16.0 * scores, 2.0 * L), 1e-6);
	/* flash attention keeps no scores: no upcast to count */
	CHECK(a100_s(&on, HP_BF16, 1, FW_HF) == a100_s(&off, HP_BF16, 1, FW_HF));
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(row_as_hf_trainer_runs);
	RUN(tp_pp_refused);
	RUN(gelu_new_bytes_by_hand);
	RUN(softmax_upcast_bytes_by_hand);
	catalog_done(&cat);
	return t_done("hf");
}
