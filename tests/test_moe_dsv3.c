/* test_moe_dsv3.c — DeepSeek-V3 shapes and the Megatron-Core 0.12 launch
 * list (src/perf_moe.c) against the published config and hand counts read
 * from the code (docs/deepseek-v3.md). */
#include "t.h"
#include "catalog.h"
#include "model.h"
#include "perf_moe.h"

static struct catalog cat;

static const struct model_spec *M(const char *name)
{
	const struct model_spec *m = catalog_model(&cat, name);
	if (!m)
		T_FAILF("preset %s missing", name);
	return m;
}

/* deepseek-ai/DeepSeek-V3 config.json: qk_nope_head_dim 128,
 * qk_rope_head_dim 64, v_head_dim 128, so the scores contract over 192 and
 * the context over 128; hidden / heads (7168 / 128 = 56) is neither.
 * Llama 3.1 8B: head_dim 128 for both. */
TEST(mla_head_dims)
{
	double qk = 0, v = 0;
	const struct model_spec *ds = M("deepseek-v3");
	if (!ds)
		return;
	perf_attn_head_dims(ds, &qk, &v);
	CHECK_NEAR(qk, 192, 0);
	CHECK_NEAR(v, 128, 0);
	CHECK(qk != ds->hidden / ds->heads);
	const struct model_spec *ll = M("llama3.1-8b");
	if (!ll)
		return;
	perf_attn_head_dims(ll, &qk, &v);
	CHECK_NEAR(qk, 128, 0);
	CHECK_NEAR(v, 128, 0);
}

/* The attention core's forward FLOPs per token over the full s x s scores,
 * by hand: 2 s heads (qk + v) = 2 x 4096 x 128 x (192 + 128) = 335.5 MFLOP
 * at s = 4096 (so with the head widths above, not 2 x 56). */
TEST(mla_attention_flops_by_hand)
{
	const struct model_spec *ds = M("deepseek-v3");
	if (!ds)
		return;
	double mm, at;
	model_layer_fwd_flops(ds, 3, 4096, &mm, &at);
	CHECK_NEAR(at, 2.0 * 4096 * 128 * (192 + 128), 1e-12);
}

/* NeMo 25.04's DeepSeek-V3 layer at TP 2 with SP, unfused RoPE, its router
 * (sigmoid, 8 groups top-4, expert bias, seq aux loss, capacity 1.0, fp32)
 * and the drop-and-pad alltoall dispatcher. Hand count from Megatron-LM
 * @3cdfd613e6 (the list in docs/deepseek-v3.md section 3):
 *  MLA forward: down-projections 2 GEMMs + 2 SP all-gathers, TP gathers of
 *   the compressed q and kv 2 all-gathers + 2 cats, SP scatters 2 copies,
 *   2 RMSNorms, up-projections 2 + 2, RoPE 2 x 13, 2 cats + 1 copy: 45, of
 *   which 6 collectives; backward 6 + 2 + 2 + 4 + 6 + 16 + 2 = 38 (6
 *   collectives). hetplan's generic QKV GEMM, rotary pair and SP gather: 4
 *   forward (1 collective), 8 backward (2): extra 41 / 30, collectives 5 / 4.
 *  Router forward: casts 2, GEMM 1, sigmoid 1, bias 1, group top-k 10,
 *   gather 1, normalise 3, scale 1, scatter 2, map 4, count 1, capacity 4 +
 *   1, aux scores 4, seq loss 1 + 7, tracker 2, bias count 2 = 48;
 *   backward 2 + 2 + 1 + 2 + 4 + 1 + 1 + 1 + 5 + 1 + 4 + 2 = 26.
 *  Dispatcher forward: torch.full 1, permute 2, all-to-all 1, sort 1, sort
 *   back 1, all-to-all 1, unpermute 1 = 8; backward 6; no host wait.
 *  hetplan's fused router and dispatch rows: 13 forward, 26 backward, 1
 *  host wait. MoE layer extra: 41 + 48 + 8 - 13 = 84 forward, 30 + 26 + 6
 *  - 26 = 36 backward, collectives 5 + 3 - 2 = 6 and 4 + 3 - 2 = 5, host
 *  waits -1. */
TEST(mcore012_deepseek_v3_counts)
{
	const struct model_spec *ds = M("deepseek-v3");
	if (!ds)
		return;
	struct mcore012_extra x;
	perf_mcore012_extra(ds, 1, 2, 1, 1, &MCORE012_ROUTER_DEEPSEEK_V3, &x);
	CHECK_NEAR(x.fwd, 84, 0);
	CHECK_NEAR(x.bwd, 36, 0);
	CHECK_NEAR(x.colls_fwd, 6, 0);
	CHECK_NEAR(x.colls_bwd, 5, 0);
	CHECK_NEAR(x.syncs, -1, 0);
	/* a dense layer (the first 3) has the MLA part only */
	perf_mcore012_extra(ds, 0, 2, 1, 1, &MCORE012_ROUTER_DEEPSEEK_V3, &x);
	CHECK_NEAR(x.fwd, 41, 0);
	CHECK_NEAR(x.bwd, 30, 0);
	CHECK_NEAR(x.colls_fwd, 5, 0);
	CHECK_NEAR(x.colls_bwd, 4, 0);
	/* fused RoPE (apply_rope_fusion on): 2 launches for 26, 2 for 16 */
	perf_mcore012_extra(ds, 0, 2, 1, 0, &MCORE012_ROUTER_DEEPSEEK_V3, &x);
	CHECK_NEAR(x.fwd, 41 - 24, 0);
	CHECK_NEAR(x.bwd, 30 - 14, 0);
}

/* A softmax top-k router with the switch aux loss, dropless, no MLA
 * (Mixtral's settings) at TP 4. Router forward: GEMM 1, top-k + softmax +
 * cast 3, scatter 2, map 4, count 1, aux softmax 1, TP all-reduce 1, loss
 * 4, tracker 2 = 19; backward 2 + 4 + 1 + 1 + 3 + 2 = 13. Dispatcher
 * forward: histogram + EP all-gather 2, counts to the host 1 (a wait),
 * permute 2, all-to-all 1, sort 1, sort back 1, all-to-all 1, unpermute 1
 * = 10; backward 6. Extra: 19 + 10 - 13 = 16 forward, 13 + 6 - 26 = -7
 * backward, collectives 1 + 3 - 2 = 2 and 0 + 2 - 2 = 0, waits 1 - 1 = 0. */
TEST(mcore012_softmax_dropless_counts)
{
	const struct model_spec *mx = M("mixtral-8x7b");
	if (!mx)
		return;
	static const struct mcore012_router soft = { 0, 0, 0, 0, 0, 0 };
	struct mcore012_extra x;
	perf_mcore012_extra(mx, 1, 4, 1, 1, &soft, &x);
	CHECK_NEAR(x.fwd, 16, 0);
	CHECK_NEAR(x.bwd, -7, 0);
	CHECK_NEAR(x.colls_fwd, 2, 0);
	CHECK_NEAR(x.colls_bwd, 0, 0);
	CHECK_NEAR(x.syncs, 0, 0);
	/* a dense layer of a model without MLA: nothing extra */
	perf_mcore012_extra(mx, 0, 4, 1, 1, &soft, &x);
	CHECK_NEAR(x.fwd, 0, 0);
	CHECK_NEAR(x.bwd, 0, 0);
}

/* The router per model: DeepSeek-V3 (MLA with a shared expert) takes
 * DeepSeekV3Config's settings (sigmoid, groups, expert bias, seq aux loss,
 * fp32, token drop); Mixtral Megatron-Core's defaults (softmax, switch
 * aux loss, bf16) with NeMo's token drop. */
TEST(mcore012_router_per_model)
{
	const struct model_spec *ds = M("deepseek-v3"), *mx = M("mixtral-8x7b");
	if (!ds || !mx)
		return;
	const struct mcore012_router *r = perf_mcore012_router(ds);
	CHECK(r->sigmoid && r->group_topk && r->expert_bias && r->seq_aux && r->fp32 && r->capacity);
	r = perf_mcore012_router(mx);
	CHECK(!r->sigmoid && !r->group_topk && !r->expert_bias && !r->seq_aux && !r->fp32);
	CHECK(r->capacity);
}

/* MLA without TP: no gathers or scatters; the four projections are plain
 * GEMMs (4 forward, 8 backward), norms 2 / 4, RoPE 26 / 16, cats 3 / 2:
 * 35 / 30, less hetplan's QKV GEMM and rotary pair (3 / 6): +32 / +24, no
 * collectives. */
TEST(mcore012_mla_without_tp)
{
	const struct model_spec *ds = M("deepseek-v3");
	if (!ds)
		return;
	struct mcore012_extra x;
	perf_mcore012_extra(ds, 0, 1, 0, 1, &MCORE012_ROUTER_DEEPSEEK_V3, &x);
	CHECK_NEAR(x.fwd, 32, 0);
	CHECK_NEAR(x.bwd, 24, 0);
	CHECK_NEAR(x.colls_fwd, 0, 0);
	CHECK_NEAR(x.colls_bwd, 0, 0);
}

int main(void)
{
	struct hp_err err;
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return 1;
	}
	RUN(mla_head_dims);
	RUN(mla_attention_flops_by_hand);
	RUN(mcore012_deepseek_v3_counts);
	RUN(mcore012_softmax_dropless_counts);
	RUN(mcore012_router_per_model);
	RUN(mcore012_mla_without_tp);
	catalog_done(&cat);
	return t_done("test_moe_dsv3");
}
