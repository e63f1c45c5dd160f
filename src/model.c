/* model.c — parameters, FLOPs and activation memory of a transformer.
 *
 * Parameter counts follow Megatron-LM's theoretical_memory_usage.py
 * generalised to biases, GQA, gated MLPs, MoE with shared experts and MLA;
 * they reproduce the published sizes of every preset (tests/test_model.c).
 *
 * Activation bytes per layer follow Korthikanti et al. 2022 (Table 2), built
 * term by term so that modern variants drop out naturally:
 *   attention: norm input 2sbh, QKV input 2sbh, Q 2sb*q, K and V 2sb*kv each,
 *              output-projection input 2sb*q, dropout mask sbh;
 *              scores: softmax output 2as^2b, dropout mask as^2b, dropout
 *              output 2as^2b (no flash); flash keeps only fp32 row stats.
 *   MLP:       norm input 2sbh, MLP input 2sbh, then 2sbF (GeLU input) +
 *              2sbF (GeLU output) for a plain MLP, or 4sbF (gate and up) +
 *              2sbF (their product) for a gated one, dropout mask sbh.
 * With F = 4h, MHA, dropout and no flash this is 34sbh + 5as^2b, the paper's
 * number. Without sequence parallelism the norm inputs, the QKV and MLP
 * inputs and the dropout masks (10sbh) are replicated across TP ranks; all
 * the rest is split. MoE layers keep their expert activations for each of
 * the top-k routed copies of a token. Simplification: activations are 2
 * bytes (bf16/fp16) whatever the matmul precision.
 *
 * Op-level selective checkpointing (RC_SELECTIVE_OP, torchtitan's "op"
 * policy) keeps, per layer: the layer input; the output of every other
 * matmul in forward order (Q, V, gate and down for a gated Llama block;
 * K, output projection and up are recomputed); the attention kernel's
 * output and row statistics; and, under TP with SP, the reduce-scatter
 * outputs. A row-parallel matmul (output projection, down) produces a full
 * b x s x h partial sum on every TP rank, so its kept output is not split.
 * MoE layers are taken as top-k copies of that sequence; MLA as plain Q/K/V
 * of its q and kv widths (simplifications). */
#include "model.h"

#include <math.h>

int model_layer_is_moe(const struct model_spec *m, int layer)
{
	return m->moe.experts > 0 && layer >= m->moe.dense_layers;
}

int model_moe_layers_in(const struct model_spec *m, int first, int last)
{
	if (m->moe.experts <= 0 || last < first)
		return 0;
	int from = first > m->moe.dense_layers ? first : m->moe.dense_layers;
	return last >= from ? last - from + 1 : 0;
}

double model_q_dim(const struct model_spec *m)
{
	if (m->mla.kv_lora_rank)
		return (double)m->heads * (m->mla.qk_nope_dim + m->mla.qk_rope_dim);
	return (double)m->heads * m->head_dim;
}

double model_kv_dim(const struct model_spec *m)
{
	if (m->mla.kv_lora_rank)
		return (double)m->heads * m->mla.v_dim;
	return (double)m->kv_heads * m->head_dim;
}

static double attn_params(const struct model_spec *m)
{
	double h = m->hidden;
	if (m->mla.kv_lora_rank) {
		const struct mla_spec *a = &m->mla;
		double nh = m->heads, qk = a->qk_nope_dim + a->qk_rope_dim;
		double q = a->q_lora_rank
				   ? a->q_lora_rank * h + a->q_lora_rank + a->q_lora_rank * nh * qk
				   : h * nh * qk;
		double kv = a->kv_lora_rank * h + h * a->qk_rope_dim + a->kv_lora_rank +
			    a->kv_lora_rank * nh * (a->qk_nope_dim + a->v_dim);
		double o = nh * a->v_dim * h;
		return q + kv + o + (m->bias ? nh * a->v_dim + h : 0);
	}
	double q = model_q_dim(m), kv = model_kv_dim(m);
	double n = h * q + 2 * h * kv + q * h;
	if (m->bias)
		n += q + 2 * kv + h;
	else if (m->qkv_bias)
		n += q + 2 * kv;
	return n;
}

static double mlp_params(const struct model_spec *m, double ffn)
{
	double h = m->hidden, mats = m->gated_mlp ? 3 : 2;
	double n = mats * h * ffn;
	if (m->bias)
		n += (m->gated_mlp ? 2 * ffn : ffn) + h;
	return n;
}

static double norm_params(const struct model_spec *m)
{
	return m->norm == NORM_LAYER ? 2.0 * m->hidden : (double)m->hidden;
}

void model_layer_params(const struct model_spec *m, int layer, double *total,
			double *active, double *experts)
{
	double attn = attn_params(m), norms = 2 * norm_params(m);
	if (!model_layer_is_moe(m, layer)) {
		double mlp = mlp_params(m, m->ffn);
		*total = *active = attn + mlp + norms;
		*experts = 0;
		return;
	}
	const struct moe_spec *e = &m->moe;
	double one = mlp_params(m, e->expert_ffn);
	double shared = e->shared_experts * one;
	double router = (double)m->hidden * e->experts;
	*experts = e->experts * one;
	*total = attn + *experts + shared + router + norms;
	*active = attn + e->top_k * one + shared + router + norms;
}

void model_params(const struct model_spec *m, struct param_count *pc)
{
	double h = m->hidden;
	pc->embedding = (double)m->vocab * h;
	if (m->position == POS_LEARNED)
		pc->embedding += (double)m->seq_len * h;
	if (m->embedding_norm)
		pc->embedding += norm_params(m);
	pc->output = m->task_head ? (double)m->task_head * h
		     : m->tied_embeddings ? 0 : (double)m->vocab * h;
	pc->final_norm = norm_params(m);
	pc->layers = 0;
	double act_layers = 0;
	for (int i = 0; i < m->layers; i++) {
		double t, a, x;
		model_layer_params(m, i, &t, &a, &x);
		pc->layers += t;
		act_layers += a;
	}
	double rest = pc->embedding + pc->output + pc->final_norm;
	pc->total = pc->layers + rest;
	pc->active = act_layers + rest;
}

double model_train_tokens(const struct model_spec *m, double tokens)
{
	if (tokens > 0)
		return tokens;
	struct param_count pc;
	model_params(m, &pc);
	return 20 * pc.total;
}

/* Weights that take part in a matmul for one token: norms, biases and the
 * router's tiny matmul are ignored, as every published FLOP formula does. */
static double layer_matmul_weights(const struct model_spec *m, int layer)
{
	double h = m->hidden, mats = m->gated_mlp ? 3 : 2;
	double attn;
	if (m->mla.kv_lora_rank) {
		const struct mla_spec *a = &m->mla;
		double nh = m->heads, qk = a->qk_nope_dim + a->qk_rope_dim;
		attn = (a->q_lora_rank ? a->q_lora_rank * (h + nh * qk) : h * nh * qk) +
		       a->kv_lora_rank * (h + nh * (a->qk_nope_dim + a->v_dim)) +
		       h * a->qk_rope_dim + nh * a->v_dim * h;
	} else {
		double q = model_q_dim(m), kv = model_kv_dim(m);
		attn = 2 * h * q + 2 * h * kv;
	}
	if (!model_layer_is_moe(m, layer))
		return attn + mats * h * m->ffn;
	const struct moe_spec *e = &m->moe;
	return attn + (e->top_k + e->shared_experts) * mats * h * e->expert_ffn +
	       h * e->experts;
}

void model_layer_fwd_flops(const struct model_spec *m, int layer, double s,
			   double *matmul, double *attn)
{
	*matmul = 2 * layer_matmul_weights(m, layer);
	/* Scores (q x k) and the weighted sum (p x v), full s x s matrix. */
	double qk = model_q_dim(m);
	double v = m->mla.kv_lora_rank ? (double)m->heads * m->mla.v_dim : model_q_dim(m);
	*attn = 2 * s * qk + 2 * s * v;
}

double model_out_dim(const struct model_spec *m)
{
	return m->task_head > 0 ? m->task_head : m->vocab;
}

double model_logits_fwd_flops(const struct model_spec *m)
{
	return 2.0 * model_out_dim(m) * m->hidden;
}

static void step_fwd(const struct model_spec *m, double s, double *mm, double *at)
{
	*mm = *at = 0;
	for (int i = 0; i < m->layers; i++) {
		double a, b;
		model_layer_fwd_flops(m, i, s, &a, &b);
		*mm += a;
		*at += b;
	}
}

double model_step_flops(const struct model_spec *m, double tokens, double s)
{
	double mm, at;
	step_fwd(m, s, &mm, &at);
	return 3 * tokens * (mm + at + model_logits_fwd_flops(m));
}

double model_step_hw_flops(const struct model_spec *m, double tokens, double s,
			   enum hp_recompute rc)
{
	double mm, at;
	step_fwd(m, s, &mm, &at);
	double f = 3 * (mm + at + model_logits_fwd_flops(m));
	if (rc == RC_FULL) {
		f += mm + at;
	} else if (rc == RC_SELECTIVE) {
		f += at;
	} else if (rc == RC_SELECTIVE_OP) {
		for (int i = 0; i < m->layers; i++) {
			double a, b;
			model_layer_fwd_flops(m, i, s, &a, &b);
			f += a * model_layer_op_sac_recompute_frac(m, i);
			(void)b;   /* the attention output is kept */
		}
	}
	return tokens * f;
}

double model_kv_cache_bytes_per_token(const struct model_spec *m,
				      double bytes_per_elem)
{
	if (m->mla.kv_lora_rank)
		return (double)m->layers * (m->mla.kv_lora_rank + m->mla.qk_rope_dim) *
		       bytes_per_elem;
	return 2.0 * m->layers * model_kv_dim(m) * bytes_per_elem;
}

/* Activation bytes of one layer, split into the part replicated across TP
 * ranks without SP (rep), the part always split by TP (split) and the s x s
 * score tensors (scores, split by TP). */
static void layer_act_terms(const struct model_spec *m, int layer,
			    const struct act_opts *o, double *rep, double *split,
			    double *scores)
{
	double sb = o->s * o->b, h = m->hidden;
	double q = model_q_dim(m), kv = model_kv_dim(m);
	double drop = m->dropout ? 1 : 0;
	double mlp;
	double ffn = m->ffn, copies = 1;
	if (model_layer_is_moe(m, layer)) {
		ffn = m->moe.expert_ffn;
		copies = m->moe.top_k + m->moe.shared_experts;
	}
	if (m->gated_mlp)
		mlp = 6 * sb * ffn;
	else
		mlp = 4 * sb * ffn;
	mlp *= copies;
	/* Norm inputs (2 x 2sbh), QKV input, MLP input, two dropout masks. */
	*rep = sb * h * (4 + 2 + 2 * (copies > 1 ? copies : 1)) + 2 * drop * sb * h;
	/* Q, K, V, output-projection input, the MLP's own tensors. */
	*split = 2 * sb * q + 4 * sb * kv + 2 * sb * q + mlp;
	if (o->flash) {
		/* Flash attention keeps its output (counted as the projection
		 * input) and fp32 log-sum-exp per row and head. */
		*scores = 4.0 * m->heads * sb;
	} else {
		double a = m->heads;
		*scores = (2 + 3 * drop) * a * o->s * o->s * o->b;
	}
}

/* The matmuls of one layer in forward order: output width per token, whether
 * TP splits that output, and weights (for FLOP shares). */
struct mm_op {
	double out, w;
	int split;
};

static int layer_mm_ops(const struct model_spec *m, int layer, struct mm_op *op)
{
	double h = m->hidden, q = model_q_dim(m), kv = model_kv_dim(m);
	double ffn = m->ffn, copies = 1;
	if (model_layer_is_moe(m, layer)) {
		ffn = m->moe.expert_ffn;
		copies = m->moe.top_k + m->moe.shared_experts;
	}
	int n = 0;
	op[n++] = (struct mm_op){ q, h * q, 1 };
	op[n++] = (struct mm_op){ kv, h * kv, 1 };
	op[n++] = (struct mm_op){ kv, h * kv, 1 };
	op[n++] = (struct mm_op){ h, q * h, 0 };
	if (m->gated_mlp)
		op[n++] = (struct mm_op){ ffn * copies, h * ffn * copies, 1 };
	op[n++] = (struct mm_op){ ffn * copies, h * ffn * copies, 1 };
	op[n++] = (struct mm_op){ h * copies, ffn * h * copies, 0 };
	return n;
}

double model_layer_op_sac_recompute_frac(const struct model_spec *m, int layer)
{
	struct mm_op op[8];
	int n = layer_mm_ops(m, layer, op);
	double all = 0, again = 0;
	for (int i = 0; i < n; i++) {
		all += op[i].w;
		if (i % 2)
			again += op[i].w;
	}
	return all > 0 ? again / all : 0;
}

/* Bytes op-level selective checkpointing keeps for one layer. */
static double op_sac_bytes(const struct model_spec *m, int layer, const struct act_opts *o)
{
	double T = o->s * o->b, h = m->hidden, t = o->tp > 0 ? o->tp : 1;
	struct mm_op op[8];
	int n = layer_mm_ops(m, layer, op);
	double kept = 2 * T * h / (o->sp ? t : 1);          /* layer input */
	for (int i = 0; i < n; i += 2)
		kept += 2 * T * op[i].out / (op[i].split ? t : 1);
	if (o->flash)
		kept += 2 * T * model_q_dim(m) / t + 4.0 * m->heads * T / t;
	if (o->sp && t > 1)
		kept += 2 * 2 * T * h / t;                   /* reduce-scatter outputs */
	return kept;
}

double model_layer_act_bytes_norc(const struct model_spec *m, int layer,
				  const struct act_opts *o)
{
	double rep, split, scores;
	layer_act_terms(m, layer, o, &rep, &split, &scores);
	double t = o->tp > 0 ? o->tp : 1;
	return (o->sp ? rep / t : rep) + split / t + scores / t;
}

double model_layer_act_bytes(const struct model_spec *m, int layer,
			     const struct act_opts *o)
{
	double rep, split, scores;
	layer_act_terms(m, layer, o, &rep, &split, &scores);
	double t = o->tp > 0 ? o->tp : 1;
	switch (o->rc) {
	case RC_FULL:
		/* Only the layer input survives: 2sbh, split by TP under SP. */
		return 2 * o->s * o->b * m->hidden / (o->sp ? t : 1);
	case RC_SELECTIVE:
		/* The attention core is recomputed: the score tensors go. */
		return (o->sp ? rep / t : rep) + split / t +
		       (o->flash ? scores / t : 0);
	case RC_SELECTIVE_OP:
		return op_sac_bytes(m, layer, o);
	case RC_NONE:
	default:
		return (o->sp ? rep / t : rep) + split / t + scores / t;
	}
}
