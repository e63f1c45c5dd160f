/* perf_mem.c — memory per GPU of one pipeline stage: weights, gradients
 * and optimizer state under the plan's ZeRO stage and master layout,
 * activations of the micro-batches in flight, and the runtime's own
 * overhead (the model is described at the top of perf.c). */
#include "perf_int.h"

#include <math.h>

int perf_stage_memory(const struct stage_ctx *x, struct perf_stage *ps)
{
	const struct plan *p = x->p;
	const struct perf_calib *k = x->k;
	double T = x->T, h = x->m->hidden, V = x->m->vocab;
	int tp = x->tp, pp = x->pp, i = x->index;
	int d = x->dp * x->cp;
	int de = d / p->ep > 0 ? d / p->ep : 1;
	double sh = d, she = de;
	double whole = x->params + x->eparams, shard = x->params / sh + x->eparams / she;
	double wbytes = 2 * (p->zero == 3 ? shard : whole);
	double gbytes, obytes;
	if (p->precision == HP_FP32 || p->precision == HP_TF32) {
		/* fp32 training: fp32 weights and gradients, Adam's two fp32
		 * moments, no separate master copy. */
		wbytes *= 2;
		gbytes = 4 * (p->zero <= 1 ? whole : shard);
		obytes = 8 * (p->zero == 0 ? whole : shard);
	} else if (p->master == MASTER_REPLICATED) {
		/* bf16 gradients kept beside the fp32 ones; the fp32 master
		 * whole, only the moments sharded. */
		gbytes = 6 * whole;
		obytes = 4 * whole + 8 * (p->zero == 0 ? whole : shard);
	} else {
		gbytes = p->zero <= 1 ? 4 * whole : 2 * shard;
		obytes = 12 * (p->zero == 0 ? whole : shard);
	}
	/* ZeRO-3 holds the unit being computed and the one being prefetched
	 * unsharded: the largest of a layer and the embedding or output
	 * matrix, twice, in 16 bits. */
	if (p->zero == 3)
		wbytes += 2 * 2 * x->unit;
	double inflight, v = x->v;
	if (p->schedule == SCHED_INTERLEAVED && pp > 1)
		inflight = ((pp - i - 1) * 2.0 + (v - 1) * pp + 1) / v;
	else
		inflight = pp - i;
	if (inflight > x->mb)
		inflight = x->mb;
	double acts = x->act * inflight;
	if (x->ckpt) {
		/* One layer's full activations while it is recomputed and run
		 * backward; under SP that includes the two all-gathered
		 * (full-sequence) inputs of the QKV and MLP matmuls, of which
		 * act_work counts a 1/tp shard. */
		acts += x->act_work;
		if (p->sp && tp > 1)
			acts += 2 * 2 * T * h * (1 - 1.0 / tp);
	}
	if (x->last) {
		/* fp32 hidden state and logits; the eager loss holds three fp32
		 * copies of the logits in its backward. */
		double copies = p->loss == LOSS_EAGER ? 3 : 1;
		acts += 4 * T * (h + copies * V) / tp;
	}
	if (x->first)
		acts += inflight * (8 * T + (x->m->dropout ? 3 : 2) * T * h / (p->sp ? tp : 1));
	acts *= k->mem_frag;
	ps->weights = wbytes;
	ps->grads = gbytes;
	ps->optimizer = obytes;
	ps->activations = acts;
	/* The CUDA context and the runtime's own buffers (NCCL, cuBLAS
	 * workspaces, allocator pools) come before any tensor. */
	ps->other = k->cuda_context_bytes + k->runtime_bytes;
	ps->total = wbytes + gbytes + obytes + acts + ps->other;
	ps->capacity = gpu_usable_bytes(x->g);
	ps->fits = ps->total <= ps->capacity;
	return ps->fits;
}
