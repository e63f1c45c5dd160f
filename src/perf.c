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
#include "perf.h"

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

static double peak(const struct gpu_spec *g, enum hp_dtype dt)
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
	return count * 2 * M * N * K / (peak(g, dt) * perf_gemm_eff(k, g, dt, M, N, K));
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
		lc->attn = 0.5 * attn_flops / (peak(g, adt) * k->gen[g->gen].attn);
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

/* Communication group of `ranks` GPUs of pools a and b (b < 0: a alone),
 * `per_node` of them in each node. */
static void make_group(const struct cluster *c, int a, int b, int ranks, int per_node,
		       struct comm_group *g)
{
	const struct pool *pa = &c->pools[a];
	memset(g, 0, sizeof *g);
	comm_fabric_init(&g->fab, &pa->gpu, pa->intra, pa->nics, pa->nic_gbps);
	comm_fabric_set_transport(&g->fab, pa->transport);
	if (b >= 0 && b != a) {
		const struct pool *pb = &c->pools[b];
		struct comm_fabric fb;
		comm_fabric_init(&fb, &pb->gpu, pb->intra, pb->nics, pb->nic_gbps);
		comm_fabric_set_transport(&fb, pb->transport); /* min: EFA wins */
		comm_fabric_min(&g->fab, &g->fab, &fb);
		if (!cluster_same_site(c, a, b)) {
			g->cross_site = 1;
			g->wan_Bps = c->inter_pool_gbps * 1e9 / 8;
			g->wan_latency_s = c->inter_pool_latency_us * 1e-6;
		}
	}
	g->ranks = ranks < 1 ? 1 : ranks;
	g->ranks_per_node = per_node < 1 ? 1 : (per_node > g->ranks ? g->ranks : per_node);
	g->oversub = c->oversub;
	/* The other GPUs of the node run the same collective in their own
	 * groups at the same time (one DP group per TP rank, one p2p per GPU
	 * of a stage), so a group that leaves the node gets its share of the
	 * node's NICs: rails, one NIC per GPU on the usual 8-NIC nodes. */
	int gpn = pa->gpus_per_node;
	if (g->ranks > g->ranks_per_node && g->ranks_per_node < gpn && g->fab.nics > 0) {
		double total = g->fab.nics * g->fab.nic_Bps * g->ranks_per_node / gpn;
		int n = g->fab.nics * g->ranks_per_node / gpn;
		g->fab.nics = n < 1 ? 1 : n;
		g->fab.nic_Bps = total / g->fab.nics;
	}
}

static double coll(const struct comm_group *g, enum comm_coll op, double bytes,
		   struct comm_result *r)
{
	struct comm_result tmp;
	if (!r)
		r = &tmp;
	memset(r, 0, sizeof *r);
	if (g->ranks <= 1 && op != COMM_SENDRECV)
		return 0;
	if (bytes <= 0)
		return 0;
	if (comm_time(g, op, bytes, COMM_ALGO_AUTO, COMM_PROTO_AUTO, r, NULL) < 0)
		return 0;
	return r->time_s;
}

static void link_name(const struct comm_group *g, const struct cluster *c, int pool,
		      char *buf, size_t n)
{
	const struct pool *p = &c->pools[pool];
	static const char *const intra[] = { "NVSwitch", "NVLink", "PCIe" };
	if (g->cross_site)
		snprintf(buf, n, "WAN %gG", c->inter_pool_gbps);
	else if (g->ranks <= g->ranks_per_node)
		snprintf(buf, n, "%s", intra[g->fab.intra]);
	else
		snprintf(buf, n, "%s + %dx%gG NIC", intra[g->fab.intra], p->nics, p->nic_gbps);
}

static void note_comm(struct estimate *e, enum perf_dim d, enum comm_coll op,
		      double bytes, double calls, const struct comm_group *g,
		      const struct comm_result *r, const struct cluster *c, int pool,
		      double time_s, double exposed_s)
{
	struct perf_comm *pc = &e->comm[d];
	if (g->ranks <= 1 && op != COMM_SENDRECV)
		return;
	/* Keep the dimension's most expensive instance (the critical one). */
	if (pc->used && pc->time_s >= time_s)
		return;
	pc->used = 1;
	pc->coll = op;
	pc->bytes = bytes;
	pc->calls = calls;
	pc->group = g->ranks;
	pc->group_nodes = (g->ranks + g->ranks_per_node - 1) / g->ranks_per_node;
	link_name(g, c, pool, pc->link, sizeof pc->link);
	pc->algo = r->algo;
	pc->proto = r->proto;
	pc->time_s = time_s;
	pc->exposed_s = exposed_s;
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

	int dp = plan_dp(p);
	double s = p->seq_len ? p->seq_len : m->seq_len;
	e->seq_len = (int)s;
	double h = m->hidden, V = m->vocab;
	struct param_count pc;
	model_params(m, &pc);

	/* Pools in the plan: the DP group spans all of them. */
	int used[HP_MAX_POOLS], first_pool = -1, other_pool = -1;
	e->n_gpus = plan_gpus(p, used);
	for (int i = 0; i < c->n_pools; i++)
		if (used[i]) {
			if (first_pool < 0)
				first_pool = i;
			else if (other_pool < 0 || !cluster_same_site(c, first_pool, i))
				other_pool = i;
		}

	double worst_pipe = 0, worst_dp = 0, worst_opt = 0;
	int si = 0;
	struct perf_stage *crit = NULL;
	double crit_m = 0, crit_bubble = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *rep = &p->replicas[r];
		int pp = rep->n_stages, mb = plan_replica_microbatches(p, r);
		double v = p->schedule == SCHED_INTERLEAVED ? p->vpp : 1;
		double sum_t = 0, max_t = 0;
		struct perf_stage *max_st = NULL;
		for (int i = 0; i < pp; i++) {
			const struct stage *st = &rep->stages[i];
			const struct pool *pl = &c->pools[st->pool];
			const struct gpu_spec *g = &pl->gpu;
			struct perf_stage *ps = &e->stages[si++];
			int tp = st->tp, cp = p->cp;
			/* Layers checkpointed whole (full, or op-level selective):
			 * their forward runs again before the backward. */
			int ckpt = p->recompute == RC_FULL || p->recompute == RC_SELECTIVE_OP;
			double T = p->mbs * s / cp;
			ps->group = r;
			ps->index = i;
			ps->pool = st->pool;
			ps->tp = tp;
			ps->first_layer = st->first_layer;
			ps->last_layer = st->last_layer;
			ps->layers = st->last_layer - st->first_layer + 1;

			/* Layers come in at most two kinds (dense, MoE): cost each
			 * kind once. */
			struct layer_cost lc[2];
			int have[2] = { 0, 0 }, count[2] = { 0, 0 };
			for (int l = st->first_layer; l <= st->last_layer; l++) {
				int kind = model_layer_is_moe(m, l);
				if (!have[kind]) {
					layer_cost(m, l, g, p, tp, s, k, &lc[kind]);
					have[kind] = 1;
				}
				count[kind]++;
			}
			double fwd = 0, bwd = 0, rc = 0, act = 0, act_work = 0, unit = 0;
			double params = 0, eparams = 0, attn_sum = 0;
			double attn_bwd = p->flash ? 2.5 : 2.0;
			for (int kind = 0; kind < 2; kind++) {
				if (!count[kind])
					continue;
				const struct layer_cost *L = &lc[kind];
				double n = count[kind];
				fwd += n * (L->gemm + L->attn + L->ew);
				bwd += n * (2 * L->gemm + attn_bwd * L->attn + 2 * L->ew);
				attn_sum += n * L->attn;
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
			int first = i == 0, last = i == pp - 1;
			double bwh = g->hbm_Bps * k->gen[g->gen].hbm;
			if (first) {
				params += pc.embedding / tp;
				unit = fmax(unit, pc.embedding / tp);
				fwd += 3 * T * h * 2 / bwh;
				bwd += 3 * T * h * 2 / bwh;
			}
			if (last) {
				double lg = gemm_time(k, g, p->precision, T, V / tp, h, 1);
				double ew = 3 * T * V / tp * 4 / bwh;
				fwd += lg + ew;
				bwd += 2 * lg + ew;
				params += (pc.output ? pc.output : (pp > 1 ? pc.embedding : 0)) / tp +
					  pc.final_norm;
				unit = fmax(unit, (pc.output ? pc.output : pc.embedding) / tp);
			}

			/* Tensor parallelism, inside the node. */
			double t_tp = 0;
			if (tp > 1) {
				struct comm_group gt;
				struct comm_result cr;
				make_group(c, st->pool, -1, tp, tp, &gt);
				double bytes = T * h * 2;
				double one = p->sp ? coll(&gt, COMM_ALLGATHER, bytes, &cr) +
							     coll(&gt, COMM_REDUCESCATTER, bytes, NULL)
						   : coll(&gt, COMM_ALLREDUCE, bytes, &cr);
				/* Full recompute runs the layer's collectives again;
				 * op-level selective keeps the reduce-scatter outputs
				 * and redoes the gathers (about half of them). */
				double per_layer = p->recompute == RC_FULL ? 6
						   : p->recompute == RC_SELECTIVE_OP ? 5 : 4;
				t_tp = one * per_layer * ps->layers;
				note_comm(e, DIM_TP, p->sp ? COMM_ALLGATHER : COMM_ALLREDUCE, bytes,
					  per_layer * ps->layers * mb * (p->sp ? 2 : 1), &gt, &cr, c,
					  st->pool, t_tp * mb, t_tp * mb);
			}
			/* Context parallelism: K/V gathered around the CP group. */
			double t_cp = 0;
			if (cp > 1) {
				struct comm_group gc;
				struct comm_result cr;
				int per_node = pl->gpus_per_node / tp;
				make_group(c, st->pool, -1, cp, per_node, &gc);
				double kvw = fmax(model_kv_dim(m) / tp, (double)m->head_dim);
				double bytes = cp * 2 * T * kvw * 2;
				double f = coll(&gc, COMM_ALLGATHER, bytes, &cr);
				double b2 = f + coll(&gc, COMM_REDUCESCATTER, bytes, NULL);
				double per_layer_attn = attn_sum / ps->layers;
				double exp_f = fmax(0, f - per_layer_attn);
				double exp_b = fmax(0, b2 - attn_bwd * per_layer_attn);
				double n_f = ckpt ? 2 : 1;
				t_cp = ps->layers * (n_f * exp_f + exp_b);
				note_comm(e, DIM_CP, COMM_ALLGATHER, bytes, 3.0 * ps->layers * mb, &gc, &cr,
					  c, st->pool, ps->layers * (n_f * f + b2) * mb, t_cp * mb);
			}
			/* Expert parallelism: dispatch and combine all-to-alls. */
			double t_ep = 0;
			if (p->ep > 1 && count[1]) {
				struct comm_group ge;
				struct comm_result cr;
				int per_node = pl->gpus_per_node / (tp * cp);
				make_group(c, st->pool, other_pool, p->ep, per_node, &ge);
				double bytes = T * m->moe.top_k * h * 2 / tp;
				double one = coll(&ge, COMM_ALLTOALL, bytes, &cr);
				double n = ckpt ? 6 : 4;
				t_ep = one * n * count[1];
				note_comm(e, DIM_EP, COMM_ALLTOALL, bytes, n * count[1] * mb, &ge, &cr, c,
					  st->pool, t_ep * mb, t_ep * mb);
			}
			/* Pipeline p2p: wait for the neighbours' activations/gradients. */
			double t_pp = 0;
			for (int nb = -1; nb <= 1; nb += 2) {
				int j = i + nb;
				if (j < 0 || j >= pp)
					continue;
				struct comm_group gp;
				struct comm_result cr;
				int same_node = tp * cp * dp < pl->gpus_per_node &&
						rep->stages[j].pool == st->pool;
				make_group(c, st->pool, rep->stages[j].pool, 2, same_node ? 2 : 1, &gp);
				double bytes = T * h * 2 / (p->sp ? tp : 1);
				double one = coll(&gp, COMM_SENDRECV, bytes, &cr);
				t_pp += v * one;
				note_comm(e, DIM_PP, COMM_SENDRECV, bytes, 2 * v * mb, &gp, &cr, c,
					  st->pool, 2 * v * one * mb, v * one * mb);
			}

			ps->t_fwd = fwd;
			ps->t_bwd = bwd;
			ps->t_recompute = rc;
			ps->t_tp = t_tp;
			ps->t_cp = t_cp;
			ps->t_ep = t_ep;
			ps->t_pp = t_pp;
			ps->t_total = fwd + bwd + rc + t_tp + t_cp + t_ep + t_pp;
			sum_t += ps->t_total;
			if (ps->t_total > max_t) {
				max_t = ps->t_total;
				max_st = ps;
			}

			/* Data-parallel synchronisation and the optimizer. */
			int d = dp * cp;
			int de = d / p->ep > 0 ? d / p->ep : 1;
			struct comm_group gd, gde;
			struct comm_result cr;
			int per_node = pl->gpus_per_node / (tp * cp);
			make_group(c, st->pool, other_pool, d, per_node, &gd);
			make_group(c, st->pool, other_pool, de, per_node, &gde);
			double t_dp = 0, exposed = 0;
			enum comm_coll dop = COMM_ALLREDUCE;
			double dbytes = 0;
			if (p->zero == 0) {
				dbytes = params * 4;
				t_dp = coll(&gd, COMM_ALLREDUCE, dbytes, &cr) +
				       coll(&gde, COMM_ALLREDUCE, eparams * 4, NULL);
			} else if (p->zero <= 2) {
				double gb = p->zero == 1 ? 4 : 2;
				dbytes = params * gb;
				dop = COMM_REDUCESCATTER;
				t_dp = coll(&gd, COMM_REDUCESCATTER, dbytes, &cr) +
				       coll(&gd, COMM_ALLGATHER, params * 2, NULL) +
				       coll(&gde, COMM_REDUCESCATTER, eparams * gb, NULL) +
				       coll(&gde, COMM_ALLGATHER, eparams * 2, NULL);
			}
			if (p->zero <= 2) {
				double hide = k->dp_overlap * (bwd + rc);
				exposed = fmax(0, t_dp - hide);
			} else {
				/* ZeRO-3: gather each layer's weights before its
				 * forward and backward, reduce-scatter its gradients
				 * after; prefetch hides them behind the layer's
				 * compute, except the first. */
				dop = COMM_ALLGATHER;
				dbytes = (params + eparams) * 2;
				double ag = coll(&gd, COMM_ALLGATHER, params * 2, &cr) +
					    coll(&gde, COMM_ALLGATHER, eparams * 2, NULL);
				double rs = coll(&gd, COMM_REDUCESCATTER, params * 2, NULL) +
					    coll(&gde, COMM_REDUCESCATTER, eparams * 2, NULL);
				double f_exp = fmax(0, ag - fwd) + ag / ps->layers;
				double b_exp = fmax(0, ag + rs - (bwd + rc)) + rs / ps->layers;
				t_dp = (2 * ag + rs) * mb;
				exposed = (f_exp + b_exp) * mb;
			}
			note_comm(e, DIM_DP, dop, dbytes, p->zero == 3 ? 3.0 * mb : 1, &gd, &cr, c,
				  st->pool, t_dp, exposed);
			if (exposed > worst_dp)
				worst_dp = exposed;
			double opt_params = (params + eparams) / (p->zero >= 1 ? (double)d : 1.0);
			double t_opt = 30 * opt_params / bwh;
			if (t_opt > worst_opt)
				worst_opt = t_opt;

			/* Memory per GPU. */
			double sh = d, she = de;
			double whole = params + eparams, shard = params / sh + eparams / she;
			double wbytes = 2 * (p->zero == 3 ? shard : whole);
			double gbytes, obytes;
			if (p->master == MASTER_REPLICATED) {
				/* bf16 gradients kept beside the fp32 ones; the
				 * fp32 master whole, only the moments sharded. */
				gbytes = 6 * whole;
				obytes = 4 * whole + 8 * (p->zero == 0 ? whole : shard);
			} else {
				gbytes = p->zero <= 1 ? 4 * whole : 2 * shard;
				obytes = 12 * (p->zero == 0 ? whole : shard);
			}
			/* ZeRO-3 holds the unit being computed and the one being
			 * prefetched unsharded: the largest of a layer and the
			 * embedding or output matrix, twice, in 16 bits. */
			if (p->zero == 3)
				wbytes += 2 * 2 * unit;
			double inflight;
			if (p->schedule == SCHED_INTERLEAVED && pp > 1)
				inflight = ((pp - i - 1) * 2.0 + (v - 1) * pp + 1) / v;
			else
				inflight = pp - i;
			if (inflight > mb)
				inflight = mb;
			double acts = act * inflight;
			if (ckpt) {
				/* One layer's full activations while it is recomputed
				 * and run backward; under SP that includes the two
				 * all-gathered (full-sequence) inputs of the QKV and
				 * MLP matmuls, of which act_work counts a 1/tp shard. */
				acts += act_work;
				if (p->sp && tp > 1)
					acts += 2 * 2 * T * h * (1 - 1.0 / tp);
			}
			if (last) {
				/* fp32 hidden state and logits; the eager loss holds
				 * three fp32 copies of the logits in its backward. */
				double copies = p->loss == LOSS_EAGER ? 3 : 1;
				acts += 4 * T * (h + copies * V) / tp;
			}
			if (first)
				acts += inflight * (8 * T + (m->dropout ? 3 : 2) * T * h / (p->sp ? tp : 1));
			acts *= k->mem_frag;
			ps->weights = wbytes;
			ps->grads = gbytes;
			ps->optimizer = obytes;
			ps->activations = acts;
			ps->other = k->mem_overhead_bytes;
			ps->total = wbytes + gbytes + obytes + acts + ps->other;
			ps->capacity = g->mem_bytes / 1e9 * 1073741824.0;
			ps->fits = ps->total <= ps->capacity;
			if (!ps->fits) {
				e->fits = 0;
				if (ps->total - ps->capacity > e->worst_over_bytes) {
					e->worst_over_bytes = ps->total - ps->capacity;
					e->worst_stage = (int)(ps - e->stages);
				}
			}
		}
		double pipe = mb * max_t + (sum_t - max_t) / v;
		if (pipe > worst_pipe) {
			worst_pipe = pipe;
			e->slowest_group = r;
			crit = max_st;
			crit_m = mb;
			crit_bubble = (sum_t - max_t) / v;
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

	double tokens = (double)p->gbs * s;
	e->model_flops = model_step_flops(m, tokens, s);
	e->hw_flops = model_step_hw_flops(m, tokens, s, p->recompute);
	e->tokens_per_s = tokens / e->step_time_s;
	for (int i = 0; i < c->n_pools; i++)
		e->peak_flops += used[i] * peak(&c->pools[i].gpu, p->precision);
	e->mfu = e->model_flops / (e->step_time_s * e->peak_flops);
	e->hfu = e->hw_flops / (e->step_time_s * e->peak_flops);
	e->model_tflops_per_gpu = e->model_flops / e->step_time_s / e->n_gpus / 1e12;

	/* Cost: whole nodes of every pool the plan touches. Energy: board
	 * power at 40% idle-to-busy floor plus 60% scaled by the share of the
	 * step spent computing, and 35% on top for host, NICs and fans (an
	 * estimate; no measured rows yet). */
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
	(void)err;
	return 0;
}

void estimate_free(struct estimate *e)
{
	free(e->stages);
	e->stages = NULL;
	e->n_stages = 0;
}
