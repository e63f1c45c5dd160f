/* perf_moe.c — DeepSeek-V3-shaped layers: MLA's attention head widths, and
 * the launches of the Megatron-Core 0.12 code (NeMo 25.04) for an MLA and
 * routed-expert layer beyond hetplan's megatron-core row (docs/deepseek-v3.md).
 *
 * Every count below is read from the code at NVIDIA/Megatron-LM @3cdfd613e6
 * (core_r0.12.0, the commit NeMo 7a8f1cc7bc's manifest pins), op by op, one
 * CUDA launch per PyTorch op that writes a tensor (views, splits and
 * reshapes of contiguous tensors launch nothing). Backward counts are the
 * autograd backward of the same ops: ops on integer indices and masks have
 * none, a GEMM has a data and a weight gradient, a collective its dual.
 * Simplified: the counts are of one configuration family (TP > 1 with
 * sequence parallelism, grouped GEMMs, the alltoall dispatcher), not a
 * trace; docs/deepseek-v3.md gives the spread. */
#include "perf_moe.h"

void perf_attn_head_dims(const struct model_spec *m, double *qk, double *v)
{
	if (m->mla.kv_lora_rank) {
		*qk = (double)m->mla.qk_nope_dim + m->mla.qk_rope_dim;
		*v = m->mla.v_dim;
		return;
	}
	*qk = *v = m->head_dim;
}

/* DeepSeekV3Config (NeMo @7a8f1cc7bc nemo/collections/llm/gpt/model/
 * deepseek.py): moe_router_score_function "sigmoid", moe_router_group_topk
 * 4 of moe_router_num_groups 8, moe_router_enable_expert_bias True,
 * moe_router_load_balancing_type "seq_aux_loss", moe_router_topk_scaling_
 * factor 2.5 (scaled: the probabilities are multiplied, one launch, counted
 * with sigmoid below); capacity 1.0 from MegatronTokenDropCallback;
 * moe_router_dtype 'fp32' from scripts/performance/llm/pretrain_deepseek_v3.py. */
const struct mcore012_router MCORE012_ROUTER_DEEPSEEK_V3 = { 1, 1, 1, 1, 1, 1 };

/* Conditions of a row (all bits must hold). */
enum {
	C_FP32 = 1 << 0, C_SIGMOID = 1 << 1, C_SOFTMAX = 1 << 2, C_BIAS = 1 << 3,
	C_GROUP = 1 << 4, C_NOGROUP = 1 << 5, C_SEQAUX = 1 << 6, C_SWITCH = 1 << 7,
	C_CAP = 1 << 8, C_DROPLESS = 1 << 9, C_TP = 1 << 10, C_ROPE_UNFUSED = 1 << 11,
	C_ROPE_FUSED = 1 << 12,
};

struct op012 {
	const char *op;
	unsigned cond;
	unsigned char fwd, bwd, coll_fwd, coll_bwd, sync;
};

/* The router (router.py TopKRouter.gating / routing, moe_utils.py
 * topk_softmax_with_capacity, group_limited_topk, sequence_load_balancing_
 * loss_func, switch_load_balancing_loss_func, save_to_aux_losses_tracker,
 * MoEAuxLossAutoScaler). */
static const struct op012 router012[] = {
	{ "input and weight cast to fp32 (gating, moe_router_dtype fp32)", C_FP32, 2, 2, 0, 0, 0 },
	{ "gating GEMM (F.linear)", 0, 1, 2, 0, 0, 0 },
	{ "sigmoid of the logits", C_SIGMOID, 1, 1, 0, 0, 0 },
	{ "top-k of the logits, softmax over them, cast back (use_pre_softmax off)",
	  C_SOFTMAX, 3, 4, 0, 0, 0 },
	{ "expert bias added for the choice", C_SIGMOID | C_BIAS, 1, 0, 0, 0, 0 },
	{ "group-limited top-k: per-group top-2 and sum, group top-k, zeros and "
	  "scatter_ of the group mask, its expand reshaped (copy), bool, not, "
	  "masked_fill, top-k", C_SIGMOID | C_GROUP, 10, 0, 0, 0, 0 },
	{ "top-k of the scores", C_SIGMOID | C_NOGROUP, 1, 0, 0, 0, 0 },
	{ "chosen scores gathered (bias only steered the choice)", C_SIGMOID | C_BIAS, 1, 2, 0, 0, 0 },
	{ "scores normalised over the top-k: sum, + 1e-20, divide", C_SIGMOID, 3, 4, 0, 0, 0 },
	{ "times moe_router_topk_scaling_factor", C_SIGMOID, 1, 1, 0, 0, 0 },
	{ "probabilities scattered into [tokens, experts]: zeros_like, scatter", 0, 2, 1, 0, 0, 0 },
	{ "routing map: zeros_like, int, scatter, bool", 0, 4, 0, 0, 0, 0 },
	{ "tokens per expert: sum over tokens", 0, 1, 0, 0, 0, 0 },
	{ "capacity: top-k over tokens per expert, zeros_like, scatter, bool", C_CAP, 4, 0, 0, 0, 0 },
	{ "probabilities masked to the capacity map", C_CAP, 1, 1, 0, 0, 0 },
	{ "aux-loss scores: sigmoid, sum, + 1e-20, divide", C_SIGMOID, 4, 5, 0, 0, 0 },
	{ "aux-loss scores: softmax", C_SOFTMAX, 1, 1, 0, 0, 0 },
	{ "seq aux loss: scores all-gathered over TP (gather_from_sequence_parallel_region)",
	  C_SEQAUX | C_TP, 1, 1, 1, 1, 0 },
	{ "seq aux loss: map sum, div_, mean, product, sum, mean, coefficient", C_SEQAUX, 7, 4, 0, 0, 0 },
	{ "switch aux loss: tokens per expert all-reduced over TP", C_SWITCH | C_TP, 1, 0, 1, 0, 0 },
	{ "switch aux loss: probabilities summed, product, sum, coefficient", C_SWITCH, 4, 3, 0, 0, 0 },
	{ "loss into the tracker: divide, add", 0, 2, 0, 0, 0, 0 },
	{ "MoEAuxLossAutoScaler backward: the loss gradient scaled", 0, 0, 2, 0, 0, 0 },
	{ "expert-bias token count: map sum, added into local_tokens_per_expert",
	  C_BIAS, 2, 0, 0, 0, 0 },
};

/* hetplan's fused router rows (perf_compute.c moe_ops: gating GEMM, fused
 * top-k, fused aux scores, tokens per expert, fused loss, tracker 2): 7
 * launches forward, charged twice backward. */
#define HP_ROUTER_FWD 7

/* The alltoall dispatcher (token_dispatcher.py MoEAlltoAllTokenDispatcher
 * @3cdfd613e6, moe_permute_fusion on: TE's fused permute, sort and
 * unpermute). Drop-and-pad sizes every split from the capacity on the host
 * (preprocess: torch.full), so no count goes to the host; dropless copies
 * the counts to the host and waits, as hetplan's row does. */
static const struct op012 dispatch012[] = {
	{ "tokens per local expert: torch.full on the device (drop-and-pad)", C_CAP, 1, 0, 0, 0, 0 },
	{ "tokens per expert and rank: histogram, all-gathered over EP (dropless)",
	  C_DROPLESS, 2, 0, 1, 0, 0 },
	{ "counts to the host, which waits (dropless)", C_DROPLESS, 1, 0, 0, 0, 1 },
	{ "fused permute: row-id map, permute", 0, 2, 1, 0, 0, 0 },
	{ "all-to-all dispatch", 0, 1, 1, 1, 1, 0 },
	{ "sort into local-expert order (fused sort_chunks_by_index)", 0, 1, 1, 0, 0, 0 },
	{ "sort back to rank order", 0, 1, 1, 0, 0, 0 },
	{ "all-to-all combine", 0, 1, 1, 1, 1, 0 },
	{ "fused unpermute with the probabilities", 0, 1, 1, 0, 0, 0 },
};

/* hetplan's alltoall rows (moe_ops: metadata, received count with a host
 * wait, dispatch, permute, unpermute, combine): 6 forward, 1 wait. */
#define HP_DISPATCH_FWD 6
#define HP_DISPATCH_SYNCS 1

/* MLA (multi_latent_attention.py MLASelfAttention.get_query_key_value_
 * tensors @3cdfd613e6, gpt_layer_specs.py: the down- and up-projections are
 * TEColumnParallelLinear, each all-gathering its sequence-parallel input;
 * rope_utils.py _apply_rotary_pos_emb_bshd). Attention core and output
 * projection are as every layer's. */
static const struct op012 mla012[] = {
	{ "q and kv down-projections: two column-parallel linears, each with its SP all-gather",
	  C_TP, 4, 6, 2, 2, 0 },
	{ "compressed q and kv gathered over TP along the last dim: all-gather, cat",
	  C_TP, 4, 2, 2, 0, 0 },
	{ "compressed q and kv scattered to the SP share (slice copy; backward all-gather)",
	  C_TP, 2, 2, 0, 2, 0 },
	{ "q and kv RMSNorms (q_layernorm, kv_layernorm)", 0, 2, 4, 0, 0, 0 },
	{ "q and kv up-projections: two column-parallel linears, each with its SP all-gather",
	  C_TP, 4, 6, 2, 2, 0 },
	{ "RoPE on q_pos and k_pos, unfused, each: de-interleave cat, cos, x mscale, cast, "
	  "sin, x mscale, cast, two products, neg and cat of rotate_half, add, cat with "
	  "the pass-through (13); backward 8", C_ROPE_UNFUSED, 26, 16, 0, 0, 0 },
	{ "RoPE on q_pos and k_pos, fused (fused_apply_rotary_pos_emb)", C_ROPE_FUSED, 2, 2, 0, 0, 0 },
	{ "query and key concatenated (k_pos expanded over heads), value made contiguous",
	  0, 3, 2, 0, 0, 0 },
};

/* hetplan's attention rows this code replaces (layer_kernels): the QKV
 * GEMM and rotary on q and k (3 forward), and the SP all-gather before the
 * QKV GEMM (tp_colls), each charged twice backward. */
#define HP_QKV_FWD 3
#define HP_QKV_COLL 1

static void add_ops(const struct op012 *t, size_t n, unsigned have, struct mcore012_extra *x)
{
	for (size_t i = 0; i < n; i++) {
		if ((t[i].cond & have) != t[i].cond)
			continue;
		x->fwd += t[i].fwd;
		x->bwd += t[i].bwd;
		x->colls_fwd += t[i].coll_fwd;
		x->colls_bwd += t[i].coll_bwd;
		x->syncs += t[i].sync;
	}
}

void perf_mcore012_extra(const struct model_spec *m, int moe, int tp, int sp, int rope_unfused,
			 const struct mcore012_router *r, struct mcore012_extra *x)
{
	x->fwd = x->bwd = x->colls_fwd = x->colls_bwd = x->syncs = 0;
	int tpsp = tp > 1 && sp;
	if (m->mla.kv_lora_rank) {
		unsigned have = (tpsp ? C_TP : 0) | (rope_unfused ? C_ROPE_UNFUSED : C_ROPE_FUSED);
		add_ops(mla012, sizeof mla012 / sizeof *mla012, have, x);
		if (!tpsp) {
			/* without TP the two down- and two up-projections are
			 * four plain GEMMs (2 launches backward each) */
			x->fwd += 4;
			x->bwd += 8;
		}
		x->fwd -= HP_QKV_FWD + (tpsp ? HP_QKV_COLL : 0);
		x->bwd -= 2 * (HP_QKV_FWD + (tpsp ? HP_QKV_COLL : 0));
		x->colls_fwd -= tpsp ? HP_QKV_COLL : 0;
		x->colls_bwd -= tpsp ? 2 * HP_QKV_COLL : 0;
	}
	if (!moe || !r)
		return;
	unsigned have = (r->fp32 ? C_FP32 : 0) | (r->sigmoid ? C_SIGMOID : C_SOFTMAX) |
			(r->expert_bias ? C_BIAS : 0) | (r->group_topk ? C_GROUP : C_NOGROUP) |
			(r->seq_aux ? C_SEQAUX : C_SWITCH) | (r->capacity ? C_CAP : C_DROPLESS) |
			(tp > 1 ? C_TP : 0);
	struct mcore012_extra y = { 0, 0, 0, 0, 0 };
	add_ops(router012, sizeof router012 / sizeof *router012, have, &y);
	add_ops(dispatch012, sizeof dispatch012 / sizeof *dispatch012, have, &y);
	x->fwd += y.fwd - HP_ROUTER_FWD - HP_DISPATCH_FWD;
	x->bwd += y.bwd - 2 * (HP_ROUTER_FWD + HP_DISPATCH_FWD);
	/* hetplan's dispatch and combine are 2 collectives forward, 2 backward */
	x->colls_fwd += y.colls_fwd - 2;
	x->colls_bwd += y.colls_bwd - 2;
	x->syncs += y.syncs - HP_DISPATCH_SYNCS;
}

/* A 0.12-era router for model m: DeepSeek-V3's (MLA with shared experts:
 * the DeepSeek-V3 family NeMo's DeepSeekV3Config configures), otherwise
 * Megatron-Core's defaults as the Mixtral and Grok recipes leave them
 * (softmax top-k, the switch aux loss, bf16 router), with the token drop
 * (capacity 1.0, padded) NeMo's performance scripts add through
 * MegatronTokenDropCallback. Simplified: DeepSeek-V2 (softmax, device-limited
 * groups) is not told apart. */
const struct mcore012_router *perf_mcore012_router(const struct model_spec *m)
{
	static const struct mcore012_router softmax_drop = { 0, 0, 0, 0, 1, 0 };
	if (m->mla.kv_lora_rank && m->moe.shared_experts)
		return &MCORE012_ROUTER_DEEPSEEK_V3;
	return &softmax_drop;
}
