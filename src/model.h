/* model.h — the arithmetic of a decoder-only transformer: parameters,
 * FLOPs, activation memory and model-state bytes.
 *
 * Conventions (see README "Model" and reference perf-model.md):
 * - Parameters count every weight and bias, norms included.
 * - "Model FLOPs" follow Megatron-LM 2024 / PaLM: 3 passes (forward plus a
 *   backward of twice the forward), every matmul with active weights, the
 *   attention scores over the full s x s matrix (no causal discount), the
 *   output logits; no recomputation. The input embedding lookup is free.
 * - "Hardware FLOPs" add what recomputation executes again: one forward of
 *   every layer under full recompute (logits are not recomputed), the
 *   attention core under selective recompute, the matmuls whose outputs
 *   are not kept under op-level selective (the attention output is kept).
 *
 * Contract for every function here: pure arithmetic on the model (and the
 * options given), nothing allocated, never fails, safe from any thread.
 * Layer indexes are 0-based and must be below m->layers. */
#ifndef HP_MODEL_H
#define HP_MODEL_H

#include "catalog.h"

/* RC_SELECTIVE: Megatron's selective recomputation (the attention core).
 * RC_SELECTIVE_OP: op-level selective checkpointing as torchtitan's
 * "selective op" policy: every layer is checkpointed, but the outputs of
 * every other matmul (1st, 3rd, ... in forward order) and of the flash
 * attention kernel are kept; the rest of the layer is recomputed. */
enum hp_recompute { RC_NONE, RC_SELECTIVE, RC_FULL, RC_SELECTIVE_OP, RC_COUNT };

struct param_count {
	double total;         /* every parameter */
	double active;        /* those one token uses (top-k experts) */
	double embedding;     /* input embedding (+ learned positions) */
	double output;        /* output layer (0 when tied) */
	double layers;        /* all transformer blocks */
	double final_norm;
};

/* 1 when layer i (0-based) is a mixture-of-experts layer, else 0. */
int model_layer_is_moe(const struct model_spec *m, int layer);

/* How many of layers first..last (inclusive) are MoE layers. MoE layers
 * are every layer from moe.dense_layers on, so they are the last ones of
 * any range. */
int model_moe_layers_in(const struct model_spec *m, int first, int last);

/* Parameters of layer i into *total, *active (one token's: top-k experts)
 * and *experts (the expert part of total, 0 for a dense layer). */
void model_layer_params(const struct model_spec *m, int layer, double *total,
			double *active, double *experts);
/* Whole-model parameter counts into *pc. */
void model_params(const struct model_spec *m, struct param_count *pc);

/* Tokens to train m on: tokens when > 0, else 20 per parameter (the
 * compute-optimal ratio of Hoffmann et al. 2022, "Training Compute-Optimal
 * Large Language Models", Table 3, for dense models), the default of
 * `plan`, `launch`, `report` and the TUI alike. Simplified for MoE: every
 * expert's parameters count (Mixtral 8x22B: 141B, 2.8T tokens). */
double model_train_tokens(const struct model_spec *m, double tokens);

/* Forward FLOPs of layer i per token at sequence length s (full s^2
 * attention): matmul part (2 x active matmul weights) and attention core. */
void model_layer_fwd_flops(const struct model_spec *m, int layer, double s,
			   double *matmul, double *attn);
/* Outputs of the last layer per token: the task head's (m->task_head)
 * or the vocabulary. */
double model_out_dim(const struct model_spec *m);
/* Forward FLOPs of the output logits per token (2 x model_out_dim x h). */
double model_logits_fwd_flops(const struct model_spec *m);

/* FLOPs of one training step over `tokens` tokens at sequence length s.
 * model: no recompute. hardware: with what `rc` executes again. */
double model_step_flops(const struct model_spec *m, double tokens, double s);
double model_step_hw_flops(const struct model_spec *m, double tokens, double s,
			   enum hp_recompute rc);

/* Attention query width (heads x qk head dim) and KV width, elements. */
double model_q_dim(const struct model_spec *m);
double model_kv_dim(const struct model_spec *m);

/* KV-cache bytes per token for the whole model at bytes_per_elem
 * (MLA: the compressed latent and the rope key). */
double model_kv_cache_bytes_per_token(const struct model_spec *m,
				      double bytes_per_elem);

struct act_opts {
	double b;             /* micro-batch, sequences */
	double s;             /* sequence length on this GPU (s / cp) */
	int tp;
	int sp;               /* sequence parallel (activations split by tp) */
	int flash;            /* fused flash attention: no s x s tensors */
	enum hp_recompute rc;
	int ep;               /* expert parallel degree */
};

/* Bytes of activations layer i keeps for the backward pass of one
 * micro-batch on one GPU (Korthikanti et al. 2022, Table 2, generalised to
 * GQA, gated MLPs, MoE and no dropout; see model.c). Under full recompute
 * this is the layer input alone. */
double model_layer_act_bytes(const struct model_spec *m, int layer,
			     const struct act_opts *o);
/* Bytes one layer's activations take while it is recomputed (full), i.e.
 * the transient working set on top of the stored inputs. */
double model_layer_act_bytes_norc(const struct model_spec *m, int layer,
				  const struct act_opts *o);

/* Under RC_SELECTIVE_OP: the share of layer i's matmul FLOPs that runs
 * again in the backward pass (the matmuls whose outputs are not kept). */
double model_layer_op_sac_recompute_frac(const struct model_spec *m, int layer);

#endif
