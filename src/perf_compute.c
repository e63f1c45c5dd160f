/* perf_compute.c — the time of the stage's kernels on one GPU, per
 * micro-batch, and the activations and parameters it holds (the model is
 * described at the top of perf.c). */
#include "perf_int.h"

#include <math.h>
#include <string.h>

double perf_peak(const struct gpu_spec *g, enum hp_dtype dt)
{
	double f = g->flops[dt];
	if (f <= 0 && dt == HP_FP8)
		f = g->flops[HP_BF16];   /* no fp8 units: runs at bf16 */
	if (f <= 0 && dt == HP_BF16)
		f = g->flops[HP_FP16];
	if (f <= 0)
		f = g->flops[HP_FP32];
	return f;
}


double perf_gemm_eff(const struct perf_calib *k, const struct gpu_spec *gpu,
		     enum hp_dtype dt, double M, double N, double K)
{
	const struct perf_gen_eff *ge = &k->gen[gpu->gen];
	double top = dt == HP_FP8 && gpu->flops[HP_FP8] > 0 ? ge->gemm8 : ge->gemm16;
	double c = k->gemm_dim_half;
	return top * (M / (M + c)) * (N / (N + c)) * (K / (K + c));
}

static double gemm_time(const struct perf_calib *k, const struct gpu_spec *g,
			enum hp_dtype dt, double M, double N, double K, double count)
{
	if (M <= 0 || N <= 0 || K <= 0)
		return 0;
	return count * 2 * M * N * K / (perf_peak(g, dt) * perf_gemm_eff(k, g, dt, M, N, K));
}

/* Forward costs of one layer of one kind on one GPU, per micro-batch. */
struct layer_cost {
	double gemm;      /* s */
	double attn;      /* s, attention core */
	double ew;        /* s, element-wise traffic */
	double ew_scores; /* s, the part of ew spent on s x s tensors */
	double act;       /* bytes kept for backward (with the plan's recompute) */
	double act_norc;  /* bytes without recompute (working set) */
	double rc_frac;   /* op-level selective: share of GEMM time run again */
	double params;    /* non-expert params on this GPU */
	double expert_params;
};

static void layer_cost(const struct model_spec *m, int layer, const struct gpu_spec *g,
		       const struct plan *p, int tp, double s, const struct perf_calib *k,
		       struct layer_cost *lc)
{
	double t = tp, b = p->mbs, sl = s / p->cp, T = b * sl, h = m->hidden;
	double q = model_q_dim(m), kv = model_kv_dim(m);
	enum hp_dtype dt = p->precision;
	int moe = model_layer_is_moe(m, layer);
	double up = m->gated_mlp ? 2 : 1;
	double total, active, experts;
	model_layer_params(m, layer, &total, &active, &experts);
	lc->params = (total - experts) / t;
	lc->expert_params = experts / (t * p->ep);

	double gm = 0;
	if (m->mla.kv_lora_rank) {
		double mm, at;
		model_layer_fwd_flops(m, layer, s, &mm, &at);
		double ffn_w = moe ? (m->moe.top_k + m->moe.shared_experts) * (up + 1) * h *
					     m->moe.expert_ffn + h * m->moe.experts
				   : (up + 1) * h * m->ffn;
		double attn_w = mm / 2 - ffn_w;
		gm += gemm_time(k, g, dt, T, attn_w / (h * t), h, 1);
	} else {
		gm += gemm_time(k, g, dt, T, (q + 2 * kv) / t, h, 1);
		gm += gemm_time(k, g, dt, T, h, q / t, 1);
	}
	if (!moe) {
		gm += gemm_time(k, g, dt, T, up * m->ffn / t, h, 1);
		gm += gemm_time(k, g, dt, T, h, m->ffn / t, 1);
	} else {
		const struct moe_spec *e = &m->moe;
		double local = (double)e->experts / p->ep;
		double rows = T * e->top_k * p->ep / e->experts;
		gm += gemm_time(k, g, dt, rows, up * e->expert_ffn / t, h, local);
		gm += gemm_time(k, g, dt, rows, h, e->expert_ffn / t, local);
		if (e->shared_experts) {
			double f = (double)e->shared_experts * e->expert_ffn;
			gm += gemm_time(k, g, dt, T, up * f / t, h, 1);
			gm += gemm_time(k, g, dt, T, h, f / t, 1);
		}
	}
	lc->gemm = gm;
	lc->rc_frac = model_layer_op_sac_recompute_frac(m, layer);

	/* Attention core: queries of this CP rank against the whole sequence. */
	double mm, attn_tok;
	model_layer_fwd_flops(m, layer, s, &mm, &attn_tok);
	double attn_flops = T * attn_tok / t;
	enum hp_dtype adt = dt == HP_FP8 ? HP_BF16 : dt;
	if (p->flash) {
		lc->attn = 0.5 * attn_flops / (perf_peak(g, adt) * k->gen[g->gen].attn);
	} else {
		double heads = (double)m->heads / t, d = m->head_dim;
		lc->attn = gemm_time(k, g, adt, sl, s, d, b * heads) +
			   gemm_time(k, g, adt, sl, d, s, b * heads);
	}

	struct act_opts ao = { b, sl, tp, p->sp && tp > 1, p->flash, p->recompute, p->ep };
	lc->act = model_layer_act_bytes(m, layer, &ao);
	lc->act_norc = model_layer_act_bytes_norc(m, layer, &ao);
	struct act_opts ao_flash = ao;
	ao_flash.flash = 1;
	double scores = p->flash ? 0 : lc->act_norc - model_layer_act_bytes_norc(m, layer, &ao_flash);
	double bw = g->hbm_Bps * k->gen[g->gen].hbm;
	double ew_mult = (p->flash ? k->ew_passes : k->ew_passes_unfused) *
			 (dt == HP_FP8 ? 1 + k->fp8_ew_extra : 1);
	lc->ew = ew_mult * lc->act_norc / bw;
	lc->ew_scores = ew_mult * scores / bw;
}

/* The stage's layers, costed once per layer kind (dense, MoE), plus the
 * embedding on the first stage and the output layer and loss on the last. */
void perf_stage_compute(struct stage_ctx *x)
{
	const struct model_spec *m = x->m;
	const struct plan *p = x->p;
	const struct gpu_spec *g = x->g;
	const struct perf_calib *k = x->k;
	const struct stage *st = &x->rep->stages[x->index];
	struct layer_cost lc[2];
	int have[2] = { 0, 0 }, count[2] = { 0, 0 };
	for (int l = st->first_layer; l <= st->last_layer; l++) {
		int kind = model_layer_is_moe(m, l);
		if (!have[kind]) {
			layer_cost(m, l, g, p, x->tp, x->s, k, &lc[kind]);
			have[kind] = 1;
		}
		count[kind]++;
	}
	double fwd = 0, bwd = 0, rc = 0, act = 0, act_work = 0, unit = 0;
	double params = 0, eparams = 0, attn_sum = 0, gemm_sum = 0;
	double attn_bwd = p->flash ? 2.5 : 2.0;
	for (int kind = 0; kind < 2; kind++) {
		if (!count[kind])
			continue;
		const struct layer_cost *L = &lc[kind];
		double n = count[kind];
		fwd += n * (L->gemm + L->attn + L->ew);
		bwd += n * (2 * L->gemm + attn_bwd * L->attn + 2 * L->ew);
		attn_sum += n * L->attn;
		gemm_sum += n * L->gemm;
		if (p->recompute == RC_FULL)
			rc += n * (L->gemm + L->attn + L->ew);
		else if (p->recompute == RC_SELECTIVE && !p->flash)
			rc += n * (L->attn + L->ew_scores);
		else if (p->recompute == RC_SELECTIVE_OP)
			rc += n * (L->rc_frac * L->gemm + L->ew);
		act += n * L->act;
		if (L->act_norc > act_work)
			act_work = L->act_norc;
		params += n * L->params;
		eparams += n * L->expert_params;
		unit = fmax(unit, L->params + L->expert_params);
	}
	double T = x->T, h = m->hidden, V = m->vocab;
	int tp = x->tp;
	double bwh = g->hbm_Bps * k->gen[g->gen].hbm;
	if (x->first) {
		params += x->pc.embedding / tp;
		unit = fmax(unit, x->pc.embedding / tp);
		fwd += 3 * T * h * 2 / bwh;
		bwd += 3 * T * h * 2 / bwh;
	}
	if (x->last) {
		double lg = gemm_time(k, g, p->precision, T, V / tp, h, 1);
		double ew = 3 * T * V / tp * 4 / bwh;
		fwd += lg + ew;
		bwd += 2 * lg + ew;
		params += (x->pc.output ? x->pc.output : (x->pp > 1 ? x->pc.embedding : 0)) / tp +
			  x->pc.final_norm;
		unit = fmax(unit, (x->pc.output ? x->pc.output : x->pc.embedding) / tp);
	}
	x->fwd = fwd;
	x->bwd = bwd;
	x->rc = rc;
	x->attn_fwd = attn_sum;
	x->attn_bwd_ratio = attn_bwd;
	x->gemm_fwd = gemm_sum;
	x->moe_layers = count[1];
	x->act = act;
	x->act_work = act_work;
	x->params = params;
	x->eparams = eparams;
	x->unit = unit;
	x->bw_hbm = bwh;
}
