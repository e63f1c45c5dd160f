/* perf_moe.h — DeepSeek-V3-shaped layers: the attention head widths of
 * multi-head latent attention (MLA) and the launch list of the
 * Megatron-Core 0.12 code that NeMo 25.04 runs for an MLA + routed-expert
 * layer (docs/deepseek-v3.md).
 *
 * Contract: pure arithmetic on the model and the arguments, nothing
 * allocated, never fails, safe from any thread. */
#ifndef HP_PERF_MOE_H
#define HP_PERF_MOE_H

#include "catalog.h"

/* Per-head widths of the attention core: *qk the query/key head (the
 * scores' contraction), *v the value head (the context's). MLA: qk_nope +
 * qk_rope and v_dim (DeepSeek-V3: 128 + 64 = 192 and 128); every other
 * model: head_dim for both. */
void perf_attn_head_dims(const struct model_spec *m, double *qk, double *v);

/* The router of a Megatron-Core 0.12 MoE layer (router.py TopKRouter and
 * moe_utils.py topk_softmax_with_capacity @3cdfd613e6), as the recipe
 * configures it. */
struct mcore012_router {
	int sigmoid;       /* moe_router_score_function "sigmoid" (else softmax) */
	int group_topk;    /* moe_router_group_topk set (group-limited routing) */
	int expert_bias;   /* moe_router_enable_expert_bias */
	int seq_aux;       /* moe_router_load_balancing_type "seq_aux_loss"
			    * (else the switch "aux_loss") */
	int capacity;      /* moe_expert_capacity_factor set (token drop) */
	int fp32;          /* moe_router_dtype "fp32": casts before the GEMM */
};

/* Launches one layer issues under Megatron-Core 0.12 beyond what hetplan's
 * megatron-core row counts for it (perf_compute.c layer_kernels and
 * moe_ops, the 2026 stack), per pass on one GPU. */
struct mcore012_extra {
	double fwd, bwd;           /* launches, forward and backward */
	double colls_fwd, colls_bwd; /* of them NCCL collectives */
	double syncs;              /* host waits per forward (negative: fewer) */
};

/* The DeepSeek-V3 router of NeMo 25.04's recipe (DeepSeekV3Config,
 * nemo/collections/llm/gpt/model/deepseek.py @7a8f1cc7bc; token drop from
 * MegatronTokenDropCallback; fp32 from pretrain_deepseek_v3.py). */
extern const struct mcore012_router MCORE012_ROUTER_DEEPSEEK_V3;

/* The extra launches of layer `moe` (0 dense, 1 MoE) of model m at tensor
 * parallel tp with sequence parallelism sp, with MLA's rotary embedding
 * unfused (rope_unfused: apply_rope_fusion False) and, for an MoE layer,
 * router r and the alltoall dispatcher with drop-and-pad (r->capacity) or
 * dropless. Simplified: counted for TP > 1 with SP (the gathers of MLA's
 * compressed q and kv exist only there) and for grouped GEMMs. */
void perf_mcore012_extra(const struct model_spec *m, int moe, int tp, int sp, int rope_unfused,
			 const struct mcore012_router *r, struct mcore012_extra *x);

/* The router perf_mcore012_extra takes for model m (perf_moe.c). */
const struct mcore012_router *perf_mcore012_router(const struct model_spec *m);

#endif
