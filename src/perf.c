/* perf.c — the training performance model.
 *
 * Per micro-batch and pipeline stage on one GPU (b sequences, s/cp tokens
 * each, TP degree t):
 *   GEMMs      every matmul of the layer as (M x K)(K x N) at
 *              peak(dtype) x eff, eff = gemm_max(gen, dtype) * f(M) f(N) f(K),
 *              f(x) = x / (x + c): small or skinny shapes lose efficiency.
 *              MoE experts run as E/ep GEMMs of (tokens*k*ep/E) rows.
 *   attention  flash attention: causal, so half the s x s FLOPs execute, at
 *              the generation's flash efficiency; backward 2.5x forward.
 *              Unfused (Megatron 2021): two batched GEMMs over the full
 *              s x s matrix, shapes (s, s, d) and (s, d, s).
 *   memory     element-wise work (norms, activations, dropout, softmax,
 *              residuals) moves ~ew_passes x the layer's activation bytes
 *              over HBM forward, twice that backward.
 *   backward   2x the forward GEMMs and element-wise traffic.
 *   recompute  full: one more forward of every layer; selective: the
 *              attention core again (free with flash, which recomputes
 *              anyway).
 *   TP         2 all-reduces forward and 2 backward per layer (+2 under
 *              full recompute), all-gather + reduce-scatter pairs under SP,
 *              of b*s*h bf16 values, inside the node; exposed.
 *   CP         K/V all-gather forward, all-gather + reduce-scatter
 *              backward per layer; hidden behind attention where it can be.
 *   EP         2 all-to-alls forward, 2 backward per MoE layer of
 *              b*s*k*h bf16 values per rank; exposed.
 *   PP         per micro-batch, each stage waits for its inputs: activation
 *              forward, gradient backward, b*s*h/t values per GPU (Megatron's
 *              scatter/gather), v times under interleaving.
 * Pipeline of p stages with per-micro-batch times t_i and m micro-batches:
 *   T = m * max t_i + (sum t_i - max t_i) / v
 * (exact for equal stages: (m + (p-1)/v) t; for unequal ones the warm-up
 * and drain cross every other stage once). Replicas run concurrently; the
 * slowest sets the step. Then data-parallel synchronisation (all-reduce for
 * ZeRO-0; reduce-scatter + all-gather for ZeRO-1/2; per-micro-batch
 * gathers under ZeRO-3, hidden behind compute where it can be), partly
 * hidden behind the last backward, and the optimizer step (Adam: ~30 bytes
 * of HBM traffic per local parameter).
 *
 * Memory per GPU: bf16 weights; fp32 gradients (ZeRO 0/1, Megatron's
 * default) or bf16 gradients (ZeRO 2/3); fp32 master, momentum and variance
 * (12 bytes) sharded over dp*cp from ZeRO-1 on; activations per layer from
 * model.c times the micro-batches in flight on that stage (1F1B: p - i;
 * interleaved: Megatron's warm-up count / v); logits on the last stage; a
 * fixed runtime overhead.
 *
 * Simplifications, stated: no kernel-launch or CPU overheads beyond a
 * constant per step; the TP and EP collectives are never overlapped; GEMM
 * efficiency has no wave-quantisation steps; activations are 16-bit under
 * fp8; energy is an estimate from board power (see perf_estimate). */
#include "perf_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fitted against tests/data/training.csv (tests/test_accuracy.c prints the
 * table); generations without measured rows are set from their datasheet
 * class and say so in the README. */
static const struct perf_calib calib_default = {
	.gen = {
		[GEN_OTHER]     = { 0.60, 0.45, 0.40, 0.75 },
		[GEN_VOLTA]     = { 0.75, 0.00, 0.40, 0.80 },
		[GEN_TURING]    = { 0.60, 0.00, 0.35, 0.75 },
		[GEN_AMPERE] = { 0.6612, 0.000, 0.7969, 0.9496 },
		[GEN_ADA]       = { 0.65, 0.50, 0.45, 0.80 },
		[GEN_HOPPER] = { 0.5656, 0.9469, 0.1705, 0.8816 },
		[GEN_BLACKWELL] = { 0.70, 0.55, 0.50, 0.85 },
		[GEN_CDNA]      = { 0.55, 0.40, 0.35, 0.75 },
		[GEN_GAUDI]     = { 0.60, 0.45, 0.40, 0.75 },
	},
	.gemm_dim_half = 92.91,
	.ew_passes = 1.901,
	.ew_passes_unfused = 1.414,
	.fp8_ew_extra = 1.784,
	.dp_overlap = 0.9991,
	.mem_overhead_bytes = 6 * 1073741824.0,
	.mem_frag = 1.085,
	.step_overhead_s = 2.338e-07,
};

const struct perf_calib *perf_calib_default(void) { return &calib_default; }

const char *perf_dim_name(enum perf_dim d)
{
	static const char *const n[] = { "tp", "pp", "dp", "cp", "ep" };
	return n[d];
}

/* The stage's share of the step: compute, communication inside each
 * micro-batch, DP synchronisation after the drain, memory. */
static void stage_eval(struct stage_ctx *x, struct estimate *e, struct perf_stage *ps,
		       double *dp_exposed, double *opt_s)
{
	const struct stage *st = &x->rep->stages[x->index];
	ps->pool = st->pool;
	ps->tp = x->tp;
	ps->first_layer = st->first_layer;
	ps->last_layer = st->last_layer;
	ps->layers = st->last_layer - st->first_layer + 1;
	perf_stage_compute(x);
	ps->t_fwd = x->fwd;
	ps->t_bwd = x->bwd;
	ps->t_recompute = x->rc;
	ps->t_tp = perf_stage_tp(x, e);
	ps->t_cp = perf_stage_cp(x, e);
	ps->t_ep = perf_stage_ep(x, e);
	ps->t_pp = perf_stage_pp(x, e);
	ps->t_total = ps->t_fwd + ps->t_bwd + ps->t_recompute + ps->t_tp + ps->t_cp + ps->t_ep +
		      ps->t_pp;
	*dp_exposed = perf_stage_dp(x, e);
	/* Adam: ~30 bytes of HBM traffic per local parameter. */
	double opt_params = (x->params + x->eparams) / (x->p->zero >= 1 ? (double)(x->dp * x->cp) : 1.0);
	*opt_s = 30 * opt_params / x->bw_hbm;
	if (!perf_stage_memory(x, ps)) {
		e->fits = 0;
		if (ps->total - ps->capacity > e->worst_over_bytes) {
			e->worst_over_bytes = ps->total - ps->capacity;
			e->worst_stage = (int)(ps - e->stages);
		}
	}
}

/* Pools in the plan: the DP group spans all of them; other_pool is one of
 * another site if there is one (its WAN link then bounds the group). */
static void plan_pools(const struct cluster *c, const int *used, int *other)
{
	int first = -1;
	*other = -1;
	for (int i = 0; i < c->n_pools; i++)
		if (used[i]) {
			if (first < 0)
				first = i;
			else if (*other < 0 || !cluster_same_site(c, first, i))
				*other = i;
		}
}

/* Throughput, MFU, cost and energy from the step time. Energy: board power
 * at a 40% idle-to-busy floor plus 60% scaled by the share of the step
 * spent computing, and 35% on top for host, NICs and fans (an estimate;
 * no measured rows yet). Cost: whole nodes of every pool the plan
 * touches. */
static void totals(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		   const int *used, double s, struct estimate *e)
{
	const struct perf_breakdown *bd = &e->bd;
	double tokens = (double)p->gbs * s;
	e->model_flops = model_step_flops(m, tokens, s);
	e->hw_flops = model_step_hw_flops(m, tokens, s, p->recompute);
	e->tokens_per_s = tokens / e->step_time_s;
	for (int i = 0; i < c->n_pools; i++)
		e->peak_flops += used[i] * perf_peak(&c->pools[i].gpu, p->precision);
	e->mfu = e->model_flops / (e->step_time_s * e->peak_flops);
	e->hfu = e->hw_flops / (e->step_time_s * e->peak_flops);
	e->model_tflops_per_gpu = e->model_flops / e->step_time_s / e->n_gpus / 1e12;
	e->price_known = 1;
	double busy = (bd->compute + bd->recompute) / e->step_time_s;
	double watts = 0;
	for (int i = 0; i < c->n_pools; i++) {
		if (!used[i])
			continue;
		const struct pool *pl = &c->pools[i];
		int nodes = (used[i] + pl->gpus_per_node - 1) / pl->gpus_per_node;
		if (pl->usd_per_node_h > 0)
			e->usd_per_hour += nodes * pl->usd_per_node_h;
		else
			e->price_known = 0;
		watts += used[i] * pl->gpu.tdp_w * (0.4 + 0.6 * busy) * 1.35;
	}
	e->usd_per_mtok = e->price_known ? e->usd_per_hour / 3600 / e->tokens_per_s * 1e6 : 0;
	e->power_kw = watts / 1e3;
	e->joules_per_token = watts / e->tokens_per_s;
}

int perf_estimate(const struct cluster *c, const struct model_spec *m,
		  const struct plan *p, const struct perf_calib *k,
		  struct estimate *e, struct hp_err *err)
{
	if (!k)
		k = &calib_default;
	memset(e, 0, sizeof *e);
	int total_stages = 0;
	for (int r = 0; r < p->n_replicas; r++)
		total_stages += p->replicas[r].n_stages;
	e->stages = xcalloc((size_t)total_stages, sizeof *e->stages);
	e->n_stages = total_stages;
	e->fits = 1;
	e->worst_stage = -1;

	struct stage_ctx x;
	memset(&x, 0, sizeof x);
	x.c = c;
	x.m = m;
	x.p = p;
	x.k = k;
	x.dp = plan_dp(p);
	x.cp = p->cp;
	x.s = p->seq_len ? p->seq_len : m->seq_len;
	x.T = p->mbs * x.s / p->cp;
	x.v = p->schedule == SCHED_INTERLEAVED ? p->vpp : 1;
	/* Layers checkpointed whole (full, or op-level selective): their
	 * forward runs again before the backward. */
	x.ckpt = p->recompute == RC_FULL || p->recompute == RC_SELECTIVE_OP;
	e->seq_len = (int)x.s;
	model_params(m, &x.pc);
	int used[HP_MAX_POOLS];
	e->n_gpus = plan_gpus(p, used);
	plan_pools(c, used, &x.other_pool);

	double worst_pipe = 0, worst_dp = 0, worst_opt = 0;
	int si = 0;
	struct perf_stage *crit = NULL;
	double crit_m = 0, crit_bubble = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		x.rep = &p->replicas[r];
		x.pp = x.rep->n_stages;
		x.mb = plan_replica_microbatches(p, r);
		double sum_t = 0, max_t = 0;
		struct perf_stage *max_st = NULL;
		for (int i = 0; i < x.pp; i++) {
			struct perf_stage *ps = &e->stages[si++];
			x.index = i;
			x.first = i == 0;
			x.last = i == x.pp - 1;
			x.pl = &c->pools[x.rep->stages[i].pool];
			x.g = &x.pl->gpu;
			x.tp = x.rep->stages[i].tp;
			ps->group = r;
			ps->index = i;
			double dpx, opt;
			stage_eval(&x, e, ps, &dpx, &opt);
			sum_t += ps->t_total;
			if (ps->t_total > max_t) {
				max_t = ps->t_total;
				max_st = ps;
			}
			worst_dp = fmax(worst_dp, dpx);
			worst_opt = fmax(worst_opt, opt);
		}
		/* Pipeline of unequal stages: m x the slowest, plus warm-up
		 * and drain through the others. */
		double pipe = x.mb * max_t + (sum_t - max_t) / x.v;
		if (pipe > worst_pipe) {
			worst_pipe = pipe;
			e->slowest_group = r;
			crit = max_st;
			crit_m = x.mb;
			crit_bubble = (sum_t - max_t) / x.v;
		}
	}

	struct perf_breakdown *bd = &e->bd;
	if (crit) {
		bd->compute = crit_m * (crit->t_fwd + crit->t_bwd);
		bd->recompute = crit_m * crit->t_recompute;
		bd->tp_comm = crit_m * crit->t_tp;
		bd->pp_comm = crit_m * crit->t_pp;
		bd->cp_comm = crit_m * crit->t_cp;
		bd->ep_comm = crit_m * crit->t_ep;
		bd->bubble = crit_bubble;
	}
	bd->dp_comm = worst_dp;
	bd->optimizer = worst_opt;
	bd->overhead = k->step_overhead_s;
	e->step_time_s = worst_pipe + worst_dp + worst_opt + k->step_overhead_s;
	totals(c, m, p, used, x.s, e);
	(void)err;
	return 0;
}

void estimate_free(struct estimate *e)
{
	free(e->stages);
	e->stages = NULL;
	e->n_stages = 0;
}
