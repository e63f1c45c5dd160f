/* perf.c — the training performance model: the orchestrator over its
 * stages (perf_compute.c, perf_comm.c, perf_mem.c) and its constants.
 *
 * perf_estimate reads as its stages. For every replica group and every
 * pipeline stage, per micro-batch on one GPU:
 *   compute    (perf_compute.c) every kernel of the stage's layers:
 *              GEMMs     max(FLOPs / (peak x eff), bytes / HBM), with
 *                        eff = ceiling(generation, dtype) x wave(M, N, SMs)
 *                        x K / (K + k_half): tile and wave quantisation on
 *                        the GPU's SMs and the main loop's pipeline fill;
 *              attention flash attention at the generation's published
 *                        forward and backward efficiency, ramping with the
 *                        sequence length (s / (s + s_half)); causal, so half
 *                        the s x s FLOPs run. Unfused attention (Megatron
 *                        2021) is two batched GEMMs and a softmax;
 *              memory-bound ops (norms, residual adds, dropout, activation,
 *                        rotary, softmax, loss): their bytes, op by op, over
 *                        the achieved HBM bandwidth; backward moves twice;
 *              kernels   each kernel leaves the GPU idle kernel_gap_s; the
 *                        host needs host_op_s to issue it, and when it is
 *                        slower than the GPU the GPU waits (small models,
 *                        short GEMMs).
 *   comm       (perf_comm.c) TP all-gather/reduce-scatter (or all-reduce)
 *              per layer, behind the GEMMs when the plan overlaps TP
 *              (Megatron-Core --tp-comm-overlap), else exposed; CP K/V
 *              exchange behind attention; EP all-to-alls; PP p2p.
 *   pipeline   T = m x max_i t_i + (sum_i t_i - max_i t_i) / v for stages of
 *              per-micro-batch time t_i, m micro-batches, v chunks;
 *              replicas run concurrently and the slowest sets the step.
 *   DP sync    (perf_comm.c) gradient reduce and parameter gather; an
 *              overlapped reduce hides behind the last micro-batch's
 *              backward bucket by bucket (the last bucket stays exposed),
 *              an overlapped gather behind the first forward; ZeRO-3
 *              gathers per layer with prefetch. Overlapped traffic slows
 *              the compute it runs beside by dp_overlap_slowdown.
 *   optimizer  Adam: ~30 bytes of HBM traffic per local parameter.
 *   memory     (perf_mem.c) weights, gradients and optimizer state under
 *              ZeRO and the master layout; activations of the micro-batches
 *              in flight; CUDA context and runtime buffers; allocator
 *              fragmentation; against the driver-reported capacity.
 *   totals     throughput, MFU/HFU, cost, energy.
 *
 * Simplifications, stated: one host thread issues every kernel (no CUDA
 * graphs); the TP overlap is modelled for sequence-parallel TP only, as
 * Megatron-Core implements it; energy is an estimate from board power. */
#include "perf_int.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The shipped constants. Fitted ones are written by `make fit`
 * (tools/fit.c) against tests/data/training.csv and
 * tests/data/vtrain-a100-single.csv; the others are set from the
 * sources in perf_const_table(). Generations without measured rows
 * take datasheet-class values and say so there. */
static const struct perf_calib calib_default = {
	.gen = {
		/* gemm16 gemm8 gemm32 attn_f attn_b hbm, then cuDNN/FA3-class attn_f attn_b
		 * (0: the generation has none; FA2-class figures apply) */
		[GEN_OTHER]     = { 0.60, 0.45, 0.60, 0.40, 0.30, 0.80, 0, 0 },
		[GEN_VOLTA]     = { 0.588, 0.00, 0.85, 0.30, 0.25, 0.85, 0, 0 },
		[GEN_TURING]    = { 0.37, 0.00, 0.80, 0.185, 0.154, 0.80, 0, 0 },
		[GEN_AMPERE]    = { 0.70, 0.00, 0.75, 0.75, 0.412, 0.797, 0, 0 },
		[GEN_ADA]       = { 0.70, 0.60, 0.60, 0.50, 0.40, 0.85, 0, 0 },
		[GEN_HOPPER]    = { 0.611, 0.546, 0.70, 0.25, 0.20, 0.75, 0.479, 0.551 },
		[GEN_BLACKWELL] = { 0.50, 0.484, 0.70, 0.40, 0.30, 0.85, 0.60, 0.45 },
		[GEN_CDNA]      = { 0.55, 0.45, 0.50, 0.35, 0.25, 0.80, 0, 0 },
		[GEN_GAUDI]     = { 0.60, 0.50, 0.50, 0.40, 0.30, 0.80, 0, 0 },
	},
	.gemm_k_half = 16.4,
	.attn_s_half = 1024,
	.kernel_gap_s = 2.79e-6,
	.host_op_s = 41.8e-6,
	.host_coll_s = 10e-6,
	.tp_overlap_slowdown = 0.0,
	.dp_overlap_slowdown = 0.151,
	.cuda_context_bytes = 0.5 * 1073741824.0,
	.runtime_bytes = 4.8 * 1073741824.0,
	.mem_frag = 1.0,
	.step_overhead_s = 0.00538,
};

const struct perf_calib *perf_calib_default(void) { return &calib_default; }

#define GEN_K(g_, f_) offsetof(struct perf_calib, gen[g_].f_)
#define K(field) offsetof(struct perf_calib, field)

/* Every constant, once: name, place, unit, physical range, fitted or set,
 * and where the range comes from. docs/model.md is the long form. */
static const struct perf_const const_table[] = {
	{ "ampere.gemm16", GEN_K(GEN_AMPERE, gemm16), "of peak", 0.70, 0.90, 1,
	  "A100 SXM bf16 cuBLAS, best shapes: 268 TFLOP/s of 312 (86%), ml-engineering MAMF table",
	  "A100 rows cannot tell GEMM from attention time apart (both follow the same FLOPs at their shapes): the pair trades with ampere.attn_fwd; the cross-validated totals hold" },
	{ "ampere.attn_fwd", GEN_K(GEN_AMPERE, attn_fwd), "of peak", 0.45, 0.75, 1,
	  "FlashAttention-2 paper (Dao 2023) Fig. 4-6: A100 forward 150-230 TFLOP/s, hdim 64-128",
	  "see ampere.gemm16: the pair trades" },
	{ "ampere.attn_bwd", GEN_K(GEN_AMPERE, attn_bwd), "of peak", 0.35, 0.65, 1,
	  "FlashAttention-2 paper: A100 backward 110-200 TFLOP/s", NULL },
	{ "ampere.hbm", GEN_K(GEN_AMPERE, hbm), "of nominal", 0.75, 0.95, 1,
	  "BabelStream / STREAM on A100: 1.3-1.4 TB/s of 1.55 (40GB), 1.7-1.8 of 2.04 (80GB)", NULL },
	{ "hopper.gemm16", GEN_K(GEN_HOPPER, gemm16), "of peak", 0.55, 0.85, 1,
	  "H100 SXM bf16 cuBLAS: 795 TFLOP/s of 989 (80%) at the best shapes (ml-engineering MAMF "
	  "table); 550-700 on training shapes under sustained power (clocks below boost)", NULL },
	{ "hopper.gemm8", GEN_K(GEN_HOPPER, gemm8), "of fp8 peak", 0.50, 0.80, 1,
	  "H100 fp8 cuBLASLt / Transformer Engine GEMMs: 1,200-1,500 TFLOP/s of 1,979", NULL },
	{ "hopper.attn_fwd", GEN_K(GEN_HOPPER, attn_fwd), "of peak", 0.25, 0.45, 1,
	  "FlashAttention-2 on H100: 300-380 TFLOP/s forward (FlashAttention-3 paper, Fig. 5 baseline)",
	  "the FlashAttention-2 class H100 rows are torchtitan at a 500 W power cap and MosaicML long-sequence runs: hetplan has no power or clock model, so the kernel rate carries it" },
	{ "hopper.attn_bwd", GEN_K(GEN_HOPPER, attn_bwd), "of peak", 0.20, 0.40, 1,
	  "FlashAttention-2 on H100: 250-330 TFLOP/s backward (FlashAttention-3 paper, Fig. 6 baseline)",
	  "see hopper.attn_fwd" },
	{ "hopper.attn3_fwd", GEN_K(GEN_HOPPER, attn3_fwd), "of peak", 0.45, 0.78, 1,
	  "FlashAttention-3 paper Fig. 5: H100 bf16 forward 500-740 TFLOP/s, hdim 128, causal", NULL },
	{ "hopper.attn3_bwd", GEN_K(GEN_HOPPER, attn3_bwd), "of peak", 0.35, 0.62, 1,
	  "FlashAttention-3 paper Fig. 6: H100 bf16 backward 420-600 TFLOP/s", NULL },
	{ "blackwell.gemm16", GEN_K(GEN_BLACKWELL, gemm16), "of peak", 0.50, 0.85, 1,
	  "B200 bf16 cuBLAS: 1.5-1.8 PFLOP/s of 2.25 dense at the best shapes",
	  "the B200/GB200 rows run 20-30% slower than Hopper scaling predicts (early software); hetplan has no software-maturity term" },
	{ "blackwell.gemm8", GEN_K(GEN_BLACKWELL, gemm8), "of fp8 peak", 0.45, 0.85, 1,
	  "B200 fp8 cuBLASLt / Transformer Engine: 2.8-3.5 PFLOP/s of 4.5 dense", NULL },
	{ "hopper.hbm", GEN_K(GEN_HOPPER, hbm), "of nominal", 0.75, 0.95, 1,
	  "BabelStream on H100 SXM: 2.8-3.0 TB/s of 3.35",
	  "the memory-bound op list is a lower bound (layout copies and fp8 transposes beyond the listed ones are not counted); the fit lowers the bandwidth instead" },
	{ "turing.gemm16", GEN_K(GEN_TURING, gemm16), "of peak", 0.30, 0.60, 0,
	  "T4 fp16 cuBLAS HGEMM 4096^3: ~24 TFLOP/s of 65 sustained, the 70 W power cap lowering the "
	  "clock from the 1,590 MHz boost the peak assumes (NVIDIA developer forum 264462; Jia et al. "
	  "2019, Dissecting the Turing T4, clock throttling)", NULL },
	{ "turing.attn_fwd", GEN_K(GEN_TURING, attn_fwd), "of peak", 0.10, 0.35, 0,
	  "the FlashAttention-2-class rate of Ampere scaled by the T4's power-capped GEMM rate "
	  "(0.30 x 0.37/0.60); no T4 attention row is measured", NULL },
	{ "turing.attn_bwd", GEN_K(GEN_TURING, attn_bwd), "of peak", 0.08, 0.30, 0,
	  "as turing.attn_fwd (0.25 x 0.37/0.60)", NULL },
	{ "volta.gemm16", GEN_K(GEN_VOLTA, gemm16), "of peak", 0.55, 0.85, 1,
	  "V100 SXM2 fp16 cuBLAS HGEMM: 85-105 TFLOP/s of 125 (NVIDIA Volta whitepaper, DeepBench)", NULL },
	{ "gemm_k_half", K(gemm_k_half), "elements", 16, 256, 1,
	  "CUTLASS multistage main loop: 3-4 stages of 32-64 K elements fill before steady state", NULL },
	{ "attn_s_half", K(attn_s_half), "tokens", 64, 1024, 1,
	  "FlashAttention-2 paper: seq 512 runs at ~2/3 of seq 16k throughput",
	  "no row runs sequences short enough to see the ramp (the shortest are 1,024-2,048 tokens); it stays at its upper bound, i.e. a gentle ramp" },
	{ "kernel_gap_s", K(kernel_gap_s), "s", 0.5e-6, 5e-6, 1,
	  "back-to-back CUDA kernel launch latency 2-5 us; ~1 us with a full queue", NULL },
	{ "host_op_s", K(host_op_s), "s", 3e-6, 50e-6, 1,
	  "eager PyTorch op dispatch + launch 5-20 us (PyTorch CUDA Graphs blog); Python modules add more", NULL },
	{ "host_coll_s", K(host_coll_s), "s", 10e-6, 300e-6, 1,
	  "NCCL launch through torch.distributed: 10-50 us host time; autograd-wrapped TP regions more",
	  "collectives are also counted among a layer's kernels, so their issue cost is mostly carried by host_op_s" },
	{ "tp_overlap_slowdown", K(tp_overlap_slowdown), "fraction", 0, 0.30, 1,
	  "Transformer Engine userbuffers overlap: comm kernels take SMs from the GEMM (5-20%)",
	  "the overlapped rows (Megatron-Core on H100) are matched with the first-chunk exposure alone; no contention is left to fit" },
	{ "dp_overlap_slowdown", K(dp_overlap_slowdown), "fraction", 0, 0.30, 1,
	  "NCCL kernels beside compute: 2-16 SMs and HBM traffic; measured 0-20% slowdowns", NULL },
	{ "cuda_context_gib", K(cuda_context_bytes), "bytes", 0.3 * 1073741824.0,
	  1.0 * 1073741824.0, 0,
	  "nvidia-smi of an idle PyTorch process on A100/H100: 400-600 MiB", NULL },
	{ "runtime_gib", K(runtime_bytes), "bytes", 0.5 * 1073741824.0, 6 * 1073741824.0, 1,
	  "NCCL buffers (4 MiB x channels x peers per communicator), cuBLAS workspaces, allocator pools", NULL },
	{ "mem_frag", K(mem_frag), "factor", 1.0, 1.3, 1,
	  "PyTorch caching allocator: reserved / allocated 1.0-1.3 in training logs",
	  "runtime_gib, a constant, absorbs what the allocator keeps reserved in the measured rows" },
	{ "step_overhead_s", K(step_overhead_s), "s", 0, 0.2, 1,
	  "per-step gradient-norm all-reduce, loss-scale check, logging: milliseconds to tens of ms", NULL },
};

const struct perf_const *perf_const_table(int *n)
{
	*n = (int)(sizeof const_table / sizeof *const_table);
	return const_table;
}

double *perf_const_ptr(struct perf_calib *k, const struct perf_const *c)
{
	return (double *)((char *)k + c->offset);
}

const char *perf_dim_name(enum perf_dim d)
{
	static const char *const n[] = { "tp", "pp", "dp", "cp", "ep" };
	assert((unsigned)d < DIM_COUNT);
	return n[d];
}

/* The stage's share of the step: compute, communication inside each
 * micro-batch (noted in notes), DP synchronisation after the drain,
 * memory. */
static void stage_compute_all(struct stage_ctx *x, struct estimate *notes,
			      struct perf_stage *ps, double *dp_exposed, double *opt_s)
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
	ps->t_tp = perf_stage_tp(x, notes);
	ps->t_cp = perf_stage_cp(x, notes);
	ps->t_ep = perf_stage_ep(x, notes);
	ps->t_pp = perf_stage_pp(x, notes);
	ps->t_total = ps->t_fwd + ps->t_bwd + ps->t_recompute + ps->t_tp + ps->t_cp + ps->t_ep +
		      ps->t_pp;
	/* The host issues every kernel in order; when it needs longer than
	 * the GPU runs them, the GPU waits for it. */
	ps->t_host_stall = x->host_stall;
	ps->t_total += ps->t_host_stall;
	*dp_exposed = perf_stage_dp(x, notes);
	/* Adam: ~30 bytes of HBM traffic per local parameter. */
	double opt_params = (x->params + x->eparams) / (x->p->zero >= 1 ? (double)(x->dp * x->cp) : 1.0);
	*opt_s = 30 * opt_params / x->bw_hbm;
	perf_stage_memory(x, ps);
}

/* The memo key of the stage x is at (struct stage_key). */
static void stage_key_of(const struct stage_ctx *x, struct stage_key *key)
{
	const struct plan *p = x->p;
	const struct stage *st = &x->rep->stages[x->index];
	memset(key, 0, sizeof *key);
	key->mbs = p->mbs;
	key->precision = p->precision;
	key->recompute = p->recompute;
	key->zero = p->zero;
	key->schedule = p->schedule;
	key->vpp = p->vpp;
	key->cp = p->cp;
	key->ep = p->ep;
	key->sp = p->sp;
	key->flash = p->flash;
	key->loss = p->loss;
	key->master = p->master;
	key->framework = p->framework;
	key->tp_overlap = p->tp_overlap;
	key->grad_overlap = p->grad_overlap;
	key->param_overlap = p->param_overlap;
	key->dp = x->dp;
	key->other_pool = x->other_pool;
	key->pp = x->pp;
	key->mb = x->mb;
	key->index = x->index;
	key->pool = st->pool;
	key->tp = st->tp;
	key->first_layer = st->first_layer;
	key->last_layer = st->last_layer;
	key->prev_pool = x->index > 0 ? x->rep->stages[x->index - 1].pool : -1;
	key->next_pool = x->index + 1 < x->pp ? x->rep->stages[x->index + 1].pool : -1;
	key->s = x->s;
}

/* stage_compute_all, from the memo when this stage was evaluated before
 * for the same inputs; then the estimate's fit and worst overflow. */
static void stage_eval(struct stage_ctx *x, struct estimate *e, struct estimate *notes,
		       struct perf_stage *ps, double *dp_exposed, double *opt_s)
{
	struct stage_key key;
	stage_key_of(x, &key);
	const struct stage_val *hit = perf_memo_stage(x->memo, &key);
	if (hit) {
		int group = ps->group, index = ps->index;
		*ps = hit->ps;
		ps->group = group;
		ps->index = index;
		*dp_exposed = hit->dp_exposed;
		*opt_s = hit->opt_s;
		memcpy(notes->comm, hit->comm, sizeof notes->comm);
	} else {
		struct stage_val v;
		stage_compute_all(x, notes, ps, dp_exposed, opt_s);
		v.ps = *ps;
		v.dp_exposed = *dp_exposed;
		v.opt_s = *opt_s;
		memcpy(v.comm, notes->comm, sizeof v.comm);
		perf_memo_stage_put(x->memo, &key, &v);
	}
	if (!ps->fits) {
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
static void totals(const struct cluster *c, struct perf_memo *mo, const struct plan *p,
		   const int *used, double s, struct estimate *e)
{
	const struct perf_breakdown *bd = &e->bd;
	double tokens = (double)p->gbs * s;
	perf_memo_step_flops(mo, tokens, s, p->recompute, &e->model_flops, &e->hw_flops);
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

/* What would index out of range or divide by zero in the estimate:
 * degrees and batches below 1, no replicas or stages, a stage on a pool
 * the cluster lacks or on layers the model lacks. plan_validate() checks
 * the rest (divisibility, coverage, pool sizes); these checks are cheap
 * enough for every call. Returns 0, or -1 with err. */
static int check_plan(const struct cluster *c, const struct model_spec *m,
		      const struct plan *p, struct hp_err *err)
{
	assert((unsigned)p->precision < HP_DTYPE_COUNT && (unsigned)p->recompute < RC_COUNT &&
	       (unsigned)p->framework < FW_COUNT && p->zero >= 0 && p->zero <= 3);
	if (p->mbs < 1 || p->gbs < 1 || p->cp < 1 || p->ep < 1 ||
	    (p->schedule == SCHED_INTERLEAVED && p->vpp < 1))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "estimate: mbs, gbs, cp, ep and vpp must be at least 1 (got %d, %d, %d, %d, %d)",
				  p->mbs, p->gbs, p->cp, p->ep, p->vpp);
	if (p->n_replicas < 1 || !p->replicas)
		return hp_err_set(err, HP_EXIT_INPUT, "estimate: the plan has no replicas");
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *rp = &p->replicas[r];
		if (rp->count < 0 || rp->n_stages < 1 || !rp->stages)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "estimate: replicas[%d] has %d stages and count %d",
					  r, rp->n_stages, rp->count);
		for (int i = 0; i < rp->n_stages; i++) {
			const struct stage *st = &rp->stages[i];
			if (st->pool < 0 || st->pool >= c->n_pools || st->tp < 1 ||
			    st->first_layer < 0 || st->last_layer < st->first_layer ||
			    st->last_layer >= m->layers)
				return hp_err_set(err, HP_EXIT_INPUT,
						  "estimate: replicas[%d].stages[%d]: pool %d of %d, tp %d, layers %d-%d of %d",
						  r, i, st->pool, c->n_pools, st->tp,
						  st->first_layer, st->last_layer, m->layers);
		}
	}
	return 0;
}

/* The inputs every stage shares; used[] gets the GPUs per pool. */
static void ctx_init(struct stage_ctx *x, const struct cluster *c, const struct model_spec *m,
		     const struct plan *p, const struct perf_calib *k, int *used,
		     struct estimate *e)
{
	memset(x, 0, sizeof *x);
	x->c = c;
	x->m = m;
	x->p = p;
	x->k = k;
	x->memo = perf_memo_open(c, m, k);
	x->pc = perf_memo_params(x->memo);
	x->dp = plan_dp(p);
	x->cp = p->cp;
	x->s = p->seq_len ? p->seq_len : m->seq_len;
	x->T = p->mbs * x->s / p->cp;
	x->v = p->schedule == SCHED_INTERLEAVED ? p->vpp : 1;
	/* Layers checkpointed whole (full, or op-level selective): their
	 * forward runs again before the backward. */
	x->ckpt = p->recompute == RC_FULL || p->recompute == RC_SELECTIVE_OP;
	e->seq_len = (int)x->s;
	e->n_gpus = plan_gpus(p, used);
	plan_pools(c, used, &x->other_pool);
}

/* What sets the step's pace across replica groups. */
struct pace {
	double worst_pipe, worst_dp, worst_opt;
	double dp_seen;                 /* most exposed DP time of a stage */
	struct perf_stage *crit;        /* the slowest group's slowest stage */
	double crit_m, crit_bubble;
};

/* Replica group r: every stage, then its pipeline. The communication
 * table describes what the breakdown does: the pace-setting group's
 * slowest stage for TP/CP/EP/PP, and the stage with the most exposed DP
 * time. Each stage notes its collectives in a scratch estimate first. */
static void replica_eval(struct stage_ctx *x, int r, struct estimate *e, int *si,
			 struct pace *pc)
{
	const struct plan *p = x->p;
	struct estimate notes;
	struct perf_comm group_comm[DIM_COUNT];
	x->rep = &p->replicas[r];
	x->pp = x->rep->n_stages;
	x->mb = plan_replica_microbatches(p, r);
	double sum_t = 0, max_t = 0;
	struct perf_stage *max_st = NULL;
	for (int i = 0; i < x->pp; i++) {
		struct perf_stage *ps = &e->stages[(*si)++];
		x->index = i;
		x->first = i == 0;
		x->last = i == x->pp - 1;
		x->pl = &x->c->pools[x->rep->stages[i].pool];
		x->g = &x->pl->gpu;
		x->tp = x->rep->stages[i].tp;
		ps->group = r;
		ps->index = i;
		double dpx, opt;
		memset(notes.comm, 0, sizeof notes.comm);
		stage_eval(x, e, &notes, ps, &dpx, &opt);
		sum_t += ps->t_total;
		if (ps->t_total > max_t) {
			max_t = ps->t_total;
			max_st = ps;
			memcpy(group_comm, notes.comm, sizeof group_comm);
		}
		if (dpx > pc->dp_seen) {
			pc->dp_seen = dpx;
			e->comm[DIM_DP] = notes.comm[DIM_DP];
		}
		pc->worst_dp = fmax(pc->worst_dp, dpx);
		pc->worst_opt = fmax(pc->worst_opt, opt);
	}
	/* Pipeline of unequal stages: m x the slowest, plus warm-up and
	 * drain through the others. */
	double pipe = x->mb * max_t + (sum_t - max_t) / x->v;
	if (pipe > pc->worst_pipe) {
		pc->worst_pipe = pipe;
		e->slowest_group = r;
		pc->crit = max_st;
		pc->crit_m = x->mb;
		pc->crit_bubble = (sum_t - max_t) / x->v;
		for (int d = 0; d < DIM_COUNT; d++)
			if (d != DIM_DP)
				e->comm[d] = group_comm[d];
	}
}

/* The step's breakdown and time from what set its pace. */
static void breakdown(const struct pace *pc, const struct perf_calib *k, struct estimate *e)
{
	struct perf_breakdown *bd = &e->bd;
	const struct perf_stage *crit = pc->crit;
	double crit_m = pc->crit_m;
	if (crit) {
		bd->compute = crit_m * (crit->t_fwd + crit->t_bwd);
		bd->recompute = crit_m * crit->t_recompute;
		bd->tp_comm = crit_m * crit->t_tp;
		bd->pp_comm = crit_m * crit->t_pp;
		bd->cp_comm = crit_m * crit->t_cp;
		bd->ep_comm = crit_m * crit->t_ep;
		bd->bubble = pc->crit_bubble;
		bd->overhead = crit_m * crit->t_host_stall;
	}
	bd->dp_comm = pc->worst_dp;
	bd->optimizer = pc->worst_opt;
	bd->overhead += k->step_overhead_s;
	e->step_time_s = pc->worst_pipe + pc->worst_dp + pc->worst_opt + k->step_overhead_s;
}

int perf_estimate(const struct cluster *c, const struct model_spec *m,
		  const struct plan *p, const struct perf_calib *k,
		  struct estimate *e, struct hp_err *err)
{
	if (!k)
		k = &calib_default;
	memset(e, 0, sizeof *e);
	if (check_plan(c, m, p, err) < 0)
		return -1;
	int total_stages = 0;
	for (int r = 0; r < p->n_replicas; r++)
		total_stages += p->replicas[r].n_stages;
	e->stages = xcalloc((size_t)total_stages, sizeof *e->stages);
	e->n_stages = total_stages;
	e->fits = 1;
	e->worst_stage = -1;
	struct stage_ctx x;
	int used[HP_MAX_POOLS];
	ctx_init(&x, c, m, p, k, used, e);
	struct pace pc = { .dp_seen = -1 };
	int si = 0;
	for (int r = 0; r < p->n_replicas; r++)
		replica_eval(&x, r, e, &si, &pc);
	breakdown(&pc, k, e);
	totals(c, x.memo, p, used, x.s, e);
	return 0;
}

void estimate_free(struct estimate *e)
{
	free(e->stages);
	e->stages = NULL;
	e->n_stages = 0;
}
