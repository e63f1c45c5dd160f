/* perf_mem.c — memory per GPU of one pipeline stage: weights, gradients
 * and optimizer state under the plan's ZeRO stage and master layout,
 * activations of the micro-batches in flight, the caching allocator's
 * slack, and what the runtime holds before any tensor: the CUDA context,
 * NCCL's buffers for every communicator the plan opens, cuBLAS / TE
 * workspaces and TE's userbuffers (docs/memory.md has the terms with
 * their sources and the measured rows they are checked against).
 *
 * What a "memory" number measures depends on the tool: nvidia-smi (and
 * NVML) reports everything the process holds on the device; PyTorch's
 * torch.cuda.max_memory_reserved() (torchtitan's "Memory(GiB)") only what
 * the caching allocator holds, not the CUDA context, NCCL's buffers (NCCL
 * allocates its own with cuMem / cudaMalloc) or TE's userbuffers.
 * ps->outside is what the second leaves out, so a caller can compare like
 * with like. */
#include "perf_int.h"

#include <math.h>

/* NCCL's buffers. One connection (one peer, one channel, one direction of
 * receive) holds a FIFO per protocol: LL 512 KiB (8 lines x 512 threads x
 * 8 steps x 16 B), LL128 4,915,200 B (120 x 640 threads x 8 steps x 8 B),
 * Simple NCCL_BUFFSIZE 4 MiB: 9.19 MiB (NCCL src/init.cc DEFAULT_*BUFFSIZE,
 * src/include/device.h). Since NCCL 2.19 they come from cuMem with a 2 MiB
 * granularity: 10 MiB per connection (NVIDIA/nccl issue 1685: allocations
 * of 10,485,760 B, one per channel and peer). Range 9.19-10 MiB; more when
 * a user raises NCCL_BUFFSIZE. */
#define NCCL_CONN_BYTES 10485760.0
/* Channels: NCCL opens about one per 12 GB/s of the group's slowest link
 * (the intra-node rate, or, when the group leaves the node, the NICs its
 * ranks on the node use: rail-aligned, a node's share of NICs per rank),
 * 2 to 32 (NCCL_MIN/MAX_NCHANNELS; logs show 24 on DGX A100, 32 on H100
 * NVSwitch, 12 on DGX-1 V100; comm.c's model of the same rule). */
#define NCCL_CH_BPS 12e9
#define NCCL_MIN_CH 2
#define NCCL_MAX_CH 32
/* Point-to-point channels per peer in a communicator that spans nodes.
 * NCCL gives every peer of a p2p communicator the same count,
 * p2pnChannelsPerPeer: the minimum over all its ranks of the per-peer
 * channels, where a peer over the network gets NCCL_NCHANNELS_PER_NET_PEER
 * (2 in NCCL 2.18-2.21; newer: one per NIC, more to reach the NICs' rate
 * at 14 GB/s a channel, so 2-4 with one 400 Gb/s NIC a GPU), so a peer on
 * the same node gets those few channels too (NVIDIA/nccl
 * src/graph/paths.cc @04cdb808, ncclTopoGetNchannels and
 * ncclTopoComputeP2pChannelsPerPeer). Only a communicator inside one node
 * spreads a pair over all its channels (issue 1685: 32 channels per pair,
 * H100). Range 2-4. */
#define NCCL_NET_PEER_CH 2
/* Point-to-point connections over the network do not hold a FIFO each:
 * with NCCL_NET_SHARED_BUFFERS at its default (-2: shared for p2p, not
 * for rings and trees) they take their slots from one pool per direction,
 * p2pnChannels x NCCL_SHARED_STEPS 16 x NCCL_P2P_NET_CHUNKSIZE 128 KiB,
 * whatever the number of peers ("Only allocate dedicated buffers for
 * ring/tree, not for p2p": NVIDIA/nccl src/transport/net.cc @022c022a,
 * sendSetup, sendProxyConnect, sharedNetBuffersInit; src/init.cc
 * P2P_NET_CHUNKSIZE); p2pnChannels is the communicator's channel count
 * rounded up to a power of two (paths.cc ncclTopoComputeP2pChannels).
 * 2 MiB a channel and direction; more when a user raises the chunk. */
#define NCCL_SHARED_STEPS 16
#define NCCL_P2P_NET_CHUNK 131072.0
/* NVLink SHARP (Hopper / Blackwell NVSwitch): nvlsChannels (16 on sm90,
 * 24 on sm100 in one NVLink domain, 32 across) x 2 x buffSize (8 steps x
 * NCCL_NVLS_CHUNKSIZE 128 KiB = 1 MiB) x heads (the ranks on the fabric):
 * 256 MiB per GPU for 8 H100s (NCCL src/transport/nvls.cc,
 * ncclNvlsBufferSetup; NCCL 2.18-2.20 used the 4 MiB Simple buffer: 4x). */
#define NVLS_STEP_BYTES (8 * 131072.0)
/* Transformer Engine's userbuffers for --tp-comm-overlap: one buffer of the
 * layer's full-sequence input (s x b / cp rows of hidden, 16-bit) per
 * overlapped GEMM: qkv, proj, fc1 and fc2 in fprop, dgrad and wgrad, less
 * the two wgrads that reuse a dgrad buffer ("external"): 10 (TE
 * transformer_engine/pytorch/module/base.py, initialize_ub). Allocated by
 * userbuffers' own cudaMalloc / cuMem, outside PyTorch's allocator. */
#define TE_UB_BUFFERS 10
/* Of those, the all-gather ones (qkv and fc1 fprop and dgrad, proj and
 * fc2 dgrad: 6) hold FP8 data, 1 B an element, in an fp8 run; the four
 * reduce-scatter ones stay 16-bit (TE v1.13 module/base.py:268-275
 * layers_all_gather_overlap, :310 fp8_buf, :361 buffer_dtype uint8; the
 * same at TE @d0067d0). A recipe may also mark the two pipelined
 * reduce-scatter buffers fp8_buf: counted 16-bit, an over-count of up to
 * 2 x T x h bytes there. */
#define TE_UB_FP8_BUFFERS 6

/* NCCL channels of a group with `per_node` of its `ranks` on one NVLink
 * domain of pool pl (dom: its GPUs, perf_domain_gpus). */
static int nccl_channels(const struct pool *pl, int dom, int ranks, int per_node)
{
	double top = pl->intra_Bps > 0 ? pl->intra_Bps : pl->gpu.link_Bps;
	if (per_node < ranks) {
		double nodes_per_dom = pl->gpus_per_node > 0 && dom > pl->gpus_per_node
					       ? (double)dom / pl->gpus_per_node : 1;
		double net = pl->nics * pl->nic_gbps * 1e9 / 8 * nodes_per_dom;
		if (per_node < dom)
			net *= (double)per_node / dom;
		if (net < top)
			top = net;
	}
	/* ceil(q), clamped: truncation, plus one when that fell below q, for
	 * q inside the clamp (issue 13: libm's ceil was a tenth of the memory
	 * model's instructions); outside it (and for a NaN from a hostile
	 * pool) the clamp's end, which ceil gave too */
	double q = top / NCCL_CH_BPS;
	if (!(q > NCCL_MIN_CH))
		return NCCL_MIN_CH;
	if (!(q < NCCL_MAX_CH))
		return NCCL_MAX_CH;
	int ch = (int)q;
	return ch + (ch < q);
}

/* Whether NCCL builds NVLS buffers for a group: NVSwitch of Hopper or
 * later, two or more of the group's ranks on the fabric. */
static int nccl_nvls(const struct pool *pl, int per_node)
{
	return per_node >= 2 && pl->intra == INTRA_NVSWITCH &&
	       (pl->gpu.gen == GEN_HOPPER || pl->gpu.gen == GEN_BLACKWELL);
}

/* Bytes of one collective communicator (TP, CP, DP, the model-parallel
 * group): a ring holds one receive connection per channel, whatever the
 * group's size (NVIDIA/nccl issue 986: "Ring ... only has 2 connections
 * regardless of the scale"); a group that leaves the node also runs trees,
 * whose network parent / child adds one more per channel; NVLS on top. */
static double nccl_coll_bytes(const struct pool *pl, int dom, int ranks, int per_node)
{
	if (ranks < 2)
		return 0;
	if (per_node > ranks)
		per_node = ranks;
	if (per_node < 1)
		per_node = 1;
	int ch = nccl_channels(pl, dom, ranks, per_node);
	double b = ch * NCCL_CONN_BYTES * (per_node < ranks ? 2 : 1);
	if (nccl_nvls(pl, per_node)) {
		int nvls_ch = pl->gpu.gen == GEN_BLACKWELL ? (per_node < ranks ? 32 : 24) : 16;
		b += nvls_ch * 2 * NVLS_STEP_BYTES * per_node;
	}
	return b;
}

/* Bytes of one point-to-point communicator of `ranks` ranks, `per_node`
 * of them on one node, on a GPU with `near` peers on its node and `far`
 * over the network. A communicator inside one node: one connection per
 * peer and channel, over all the group's channels. One that spans nodes:
 * NCCL_NET_PEER_CH connections per peer on the node, and for the network
 * peers, however many, the two shared pools. */
static double nccl_p2p_bytes(const struct pool *pl, int dom, int near, int far, int ranks,
			     int per_node)
{
	if (far <= 0 && per_node >= ranks)
		return near * nccl_channels(pl, dom, ranks, ranks) * NCCL_CONN_BYTES;
	double b = near * NCCL_NET_PEER_CH * NCCL_CONN_BYTES;
	if (far > 0) {
		int ch = nccl_channels(pl, dom, ranks, per_node), p2 = 1;
		while (p2 < ch)
			p2 <<= 1;
		b += 2.0 * p2 * NCCL_SHARED_STEPS * NCCL_P2P_NET_CHUNK;
	}
	return b;
}

/* NCCL's buffers on one GPU of stage x: every communicator the plan uses
 * (PyTorch creates NCCL communicators on first use, so groups a framework
 * defines but never calls cost nothing). Ranks are laid out TP innermost,
 * then CP, then DP (and EP inside it), then PP, as Megatron-Core's default
 * order "tp-cp-ep-dp-pp" and the Llama 3 paper's [TP, CP, PP, DP] agree
 * for the groups inside a node. Not counted: the embedding group (used
 * only with tied embeddings, two ranks), NCCL's small per-channel
 * structures and proxy FIFOs (< 1 MiB per channel). */
static double nccl_bytes(const struct stage_ctx *x)
{
	const struct plan *p = x->p;
	const struct pool *pl = x->pl;
	int dom = perf_domain_gpus(pl);
	int tp = x->tp, cp = x->cp, dp = x->dp, pp = x->pp;
	int inner = tp * cp > 0 ? tp * cp : 1;
	double b = 0;
	b += nccl_coll_bytes(pl, dom, tp, tp < dom ? tp : dom);
	if (cp > 1) {
		/* Context parallelism exchanges K/V with its ring neighbours. */
		int per = dom / tp;
		int cpn = per < cp ? (per > 0 ? per : 1) : cp;
		int near = cpn >= cp ? 2 : cpn > 1 ? 1 : 0;
		b += nccl_p2p_bytes(pl, dom, near, 2 - near, cp, cpn);
	}
	int dpn = dom / inner;
	b += nccl_coll_bytes(pl, dom, dp * cp, dpn * cp);
	if (p->ep > 1) {
		/* All-to-all: a connection to every other rank of the group. */
		int epn, edpn;
		perf_expert_layout(x, &epn, &edpn);
		int on = epn < p->ep ? (epn > 0 ? epn : 1) : p->ep;
		b += nccl_p2p_bytes(pl, dom, on - 1, p->ep - on, p->ep, on);
	}
	if (pp > 1) {
		/* Send / receive with the neighbouring stages (the interleaved
		 * schedule wraps the last stage round to the first), and the
		 * model-parallel group (TP x PP) whose all-reduces the gradient
		 * norm and the loss use. */
		int peers = p->schedule == SCHED_INTERLEAVED || (!x->first && !x->last) ? 2 : 1;
		int per_dom = dom / (inner * dp);   /* stages on one NVLink domain */
		if (per_dom < 1)
			per_dom = 1;
		/* simplified: with two stages or more on a node every neighbour
		 * is taken to be on it (a stage at a node's edge also holds the
		 * network pools, 4 MiB x channels, not counted) */
		int ppn = per_dom < pp ? per_dom : pp;
		b += nccl_p2p_bytes(pl, dom, ppn > 1 ? peers : 0, ppn > 1 ? 0 : peers, pp, ppn);
		b += nccl_coll_bytes(pl, dom, tp * pp, (tp < dom ? tp : dom) * (per_dom < pp ? per_dom : pp));
	}
	return b;
}

/* FP8 weights under Transformer Engine (Megatron-Core; docs/memory.md,
 * "FP8 parameters"). Each GEMM weight of an fp8 run holds its FP8 data
 * (1 B) and a second FP8 copy in the layout the backward's dgrad GEMM
 * reads: the transpose on GPUs whose FP8 GEMMs take only the TN layout
 * (Hopper, Ada: TE Float8Tensor's transpose cache, created with
 * with_transpose_cache=torch.is_grad_enabled() in TE v1.13
 * module/base.py reset_parameters and get_fp8_workspace; TE @d0067d0
 * tensor/utils.py post_all_gather_processing: _create_transpose unless
 * is_non_tn_fp8_gemm_supported), MXFP8's columnwise data on Blackwell
 * (plus one scale byte per 32). Counted on every GPU: 2 B a weight.
 * Blackwell with per-tensor scaling needs no second copy (1 B): an
 * over-count there, by up to 1 B a weight. With bf16 parameters TE casts
 * each weight into that FP8 pair once per step and keeps it across the
 * micro-batches (module/base.py get_fp8_workspace, cache_name "weight";
 * Megatron-Core passes is_first_microbatch unless
 * disable_parameter_transpose_cache): 2 B beside the 2 B bf16 weight. */
#define FP8_WEIGHT_PAIR_BYTES 2.0

/* Parameters of stage x on one GPU outside its transformer layers: the
 * embedding on the first stage, the output layer (or the tied embedding's
 * copy) and the final norm on the last, as perf_compute.c counts them
 * into x->params. Kept in 16 bits by an fp8 run. */
double perf_stage_end_params(const struct stage_ctx *x)
{
	double e = 0;
	if (x->first)
		e += x->pc->embedding / x->tp;
	if (x->last)
		e += (x->pc->output ? x->pc->output : (x->pp > 1 ? x->pc->embedding : 0)) / x->tp +
		     x->pc->final_norm;
	return e;
}

/* Bytes of the weights of ZeRO 0-2 on one GPU: 2 B a parameter, and for
 * an fp8 run under Transformer Engine (megatron-core) the layers' GEMM
 * weights (every layer parameter: the norms' 2h a layer are under 0.01%,
 * counted with them) as FP8_WEIGHT_PAIR_BYTES, in place of the bf16
 * weight when the plan keeps FP8 parameters, beside it when not. */
static double weight_bytes(const struct stage_ctx *x, double whole)
{
	const struct plan *p = x->p;
	int te = p->framework == FW_MEGATRON_CORE || p->framework == FW_ANY;
	if (p->precision != HP_FP8 || !te)
		return 2 * whole;
	double layers = whole - perf_stage_end_params(x);
	if (layers < 0)
		layers = 0;
	if (plan_fp8_params(p))
		return 2 * (whole - layers) + FP8_WEIGHT_PAIR_BYTES * layers;
	return 2 * whole + FP8_WEIGHT_PAIR_BYTES * layers;
}

/* nccl_bytes from this thread's memo (perf_memo_nccl), keyed by every
 * input it reads: the pool (pl and its domain), the stage's degrees, the
 * plan's EP degree and schedule, whether the stage is first or last. */
static double nccl_bytes_memo(const struct stage_ctx *x)
{
	struct nccl_key key = {
		.pool = x->rep->stages[x->index].pool, .tp = x->tp, .cp = x->cp, .dp = x->dp,
		.pp = x->pp, .ep = x->p->ep | x->p->etp << 16,
		.interleaved = x->p->schedule == SCHED_INTERLEAVED,
		.ends = x->first | x->last << 1,
	};
	const double *hit = perf_memo_nccl(x->memo, &key);
	if (hit)
		return *hit;
	double b = nccl_bytes(x);
	perf_memo_nccl_put(x->memo, &key, b);
	return b;
}

/* Model state per GPU: weights, gradients and optimizer state under the
 * plan's ZeRO stage, precision and master layout, into *w, *g, *o. */
static void model_state_bytes(const struct stage_ctx *x, double *w, double *g, double *o)
{
	const struct plan *p = x->p;
	int d = x->dp * x->cp;
	/* expert gradients and optimizer states shard over the expert-DP
	 * group, tp x cp x dp / (etp x ep) ranks (perf_expert_dp) */
	int de = perf_expert_dp(x);
	double sh = d, she = de;
	double whole = x->params + x->eparams, shard = x->params / sh + x->eparams / she;
	double wbytes = p->zero == 3 ? 2 * shard : weight_bytes(x, whole);
	double gbytes, obytes;
	if (p->precision == HP_FP32 || p->precision == HP_TF32) {
		/* fp32 training: fp32 weights and gradients, Adam's two fp32
		 * moments, no separate master copy. */
		wbytes *= 2;
		gbytes = 4 * (p->zero <= 1 ? whole : shard);
		obytes = 8 * (p->zero == 0 ? whole : shard);
	} else if (p->master == MASTER_NONE) {
		/* no fp32 master (plan.h MASTER_NONE): the bf16 gradients
		 * (param.grad, ZeRO 2 and 3 sharded, with one unit's whole
		 * before its reduce-scatter at ZeRO 2 as below) and Adam's
		 * two bf16 moments, 2 + 2 B, sharded from ZeRO 1. */
		gbytes = p->zero <= 1 ? 2 * whole : 2 * shard + (p->zero == 2 ? 2 * x->unit : 0);
		obytes = 4 * (p->zero == 0 ? whole : shard);
	} else if (p->master == MASTER_REPLICATED) {
		/* bf16 gradients kept beside the fp32 ones; the fp32 master
		 * whole, only the moments sharded. */
		gbytes = 6 * whole;
		obytes = 4 * whole + 8 * (p->zero == 0 ? whole : shard);
	} else if (p->zero == 2) {
		/* ZeRO-2: the gradients are reduced and kept in fp32, sharded
		 * (Megatron-LM accumulates and reduces bf16 gradients in fp32,
		 * --accumulate-allreduce-grads-in-fp32, forced on with --bf16;
		 * the Llama 3 paper, Sec. 3.3.2: "FP32 gradient accumulation ...
		 * reduce-scatter gradients in FP32"; DeepSpeed ZeRO-2 keeps its
		 * gradient partition in fp32). Before its reduce-scatter one
		 * unit's gradient is whole, in 16 bits. */
		gbytes = 4 * shard + 2 * x->unit;
		obytes = 12 * shard;
	} else {
		/* ZeRO-0/1: the fp32 gradient buffer whole. ZeRO-3 (FSDP): the
		 * sharded fp32 parameters, gradients and moments, 16 B / param /
		 * dp in all, shown as 2 + 2 + 12. Megatron-Core's distributed
		 * optimizer (ZeRO-1) sizes its contiguous gradient buffer in
		 * the dtype it reduces in: fp32 with grad_reduce_in_fp32, else
		 * the parameters' dtype, 2 B (param_and_grad_buffer.py
		 * @d98e8a64: grad_dtype = torch.float if grad_reduce_in_fp32
		 * else param.dtype; an FP8 parameter's nominal dtype is bf16);
		 * the fp32 copy of its gradient shard exists only in the
		 * optimizer step, after the activations are freed. Applied to
		 * bf16 and fp8 plans (16-bit only when grad_reduce_fp32 is
		 * set off). Simplified: an fp16 plan, which Megatron reduces in
		 * fp16 by default, is still counted at 4 B, an over-count by
		 * that code, kept until the fp16 plans and planner tests that
		 * rest on it are checked (docs/memory.md). */
		int mcore = p->framework == FW_MEGATRON_CORE || p->framework == FW_ANY;
		int b16 = p->precision == HP_BF16 || p->precision == HP_FP8;
		double gb = p->zero == 1 && mcore && b16 && !plan_grad_fp32(p) ? 2 : 4;
		gbytes = p->zero <= 1 ? gb * whole : 2 * shard;
		obytes = 12 * (p->zero == 0 ? whole : shard);
	}
	/* ZeRO-Offload (plan key offload): the fp32 master partition and
	 * Adam's two moments live in pinned host memory (DeepSpeed
	 * stage_1_and_2.py @edaa7221 L489-499: the fp32 partition is made on
	 * device "cpu"; DeepSpeedCPUAdam's state beside it). What stays on the
	 * GPU: the 16-bit parameters and, at ZeRO-2, not the fp32 gradient
	 * partition of the term above (under cpu_offload DeepSpeed gives the
	 * fp32 partition its gradient on the host and copies each reduced
	 * bucket there, async_inplace_copy_grad_to_fp32_buffer_from_gpu) but
	 * a 16-bit GPU buffer of the largest parameter's elements
	 * (temp_grad_buffer_for_gpu_offload, L585-593, dtype the model's)
	 * beside the whole 16-bit gradient of one unit before its reduce.
	 * Simplified: the largest parameter is bounded by the largest unit
	 * ZeRO-3 would gather (x->unit: a layer, or the embedding or output
	 * layer): an over-count by the unit's other tensors (the position
	 * table beside the token table; a layer's other weights where a
	 * layer is the largest unit). ZeRO-1 and 3 keep the terms above. */
	/* ZeRO-3 under no_sync (framework row zero3_reduce_once) with more
	 * than one micro-batch: each unit's gradient stays unsharded, in the
	 * reduce dtype, from its first micro-batch's backward to the last
	 * one's reduce-scatter (FSDP2 post_backward without reduce_grads:
	 * to_accumulated_grad_if_needed casts it to reduce_dtype and keeps
	 * it; a gradient already in the reduce dtype stays in .grad:
	 * torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py
	 * @002a76fb, _fsdp_param.py @17a7e1e0): the stage's whole
	 * parameters, 4 B each in fp32, held through the next forward's
	 * activations. */
	if (p->zero == 3 && framework_get(p->framework)->zero3_reduce_once && x->mb > 1)
		gbytes += (plan_grad_fp32(p) ? 4 : 2) * whole;
	if (p->offload == OFFLOAD_OPTIMIZER) {
		obytes = 0;
		if (p->zero == 2 && p->precision != HP_FP32 && p->precision != HP_TF32 &&
		    p->master != MASTER_REPLICATED)
			gbytes = 2 * x->unit + 2 * x->unit;
	}
	*w = wbytes;
	*g = gbytes;
	*o = obytes;
}

/* Memory per GPU that does not depend on the stage's index: model state,
 * and outside the allocator the CUDA context, NCCL's buffers, and TE's
 * userbuffers when TP collectives overlap the GEMMs; cuBLAS / cuBLASLt /
 * TE workspaces inside it; the capacity. */
int perf_stage_memory(const struct stage_ctx *x, struct perf_stage *ps)
{
	const struct plan *p = x->p;
	const struct perf_calib *k = x->k;
	double wbytes, gbytes, obytes;
	model_state_bytes(x, &wbytes, &gbytes, &obytes);
	/* ZeRO-3 holds the unit being computed and the one being prefetched
	 * unsharded: the largest of a layer and the embedding or output
	 * matrix, twice, in 16 bits. */
	if (p->zero == 3)
		wbytes += 2 * 2 * x->unit;
	double outside = k->cuda_context_bytes + nccl_bytes_memo(x);
	if (plan_tp_overlap(p) && p->sp && x->tp > 1) {
		double elt = perf_act_elem_bytes(p);
		double bufs = TE_UB_BUFFERS * elt;
		if (p->precision == HP_FP8)
			bufs = (TE_UB_BUFFERS - TE_UB_FP8_BUFFERS) * elt + TE_UB_FP8_BUFFERS * 1.0;
		outside += bufs * x->T * x->m->hidden;
	}
	ps->weights = wbytes;
	ps->grads = gbytes;
	ps->optimizer = obytes;
	ps->other = outside + k->workspace_bytes;
	ps->outside = outside;
	ps->capacity = gpu_usable_bytes(x->g);
	return perf_stage_memory_at(x, ps);
}

/* Bytes Megatron-Core's selective recompute modules (plan key
 * recompute_modules, plan.h RCM_*) free from one layer's saved
 * activations, one micro-batch on one GPU, in the units model.c's
 * layer_act_terms counts them (16-bit: 2 B an element; the caller
 * doubles both for fp32 runs): each module frees the tensors of
 * model.c's count that it alone kept, so a layer never goes below what
 * it kept before minus those. T tokens (b x s / cp), h hidden, t TP,
 * rs = t under sequence parallelism (else 1), up = 2 for a gated MLP
 * (else 1), f the MLP width (an expert's in an MoE layer), k top-k,
 * n_s shared experts. The modules' code is Megatron-LM @d98e8a64
 * (docs/recompute.md cites the lines):
 *  - mlp (dense layers only: TransformerLayer sets recompute_mlp only
 *    when the layer is not an MoE layer, transformer_layer.py L537-539):
 *    tensor_parallel.checkpoint around the MLP keeps its input, the
 *    residual stream the fused LayerNormLinear normalises (already
 *    counted as a norm input), and frees the normalised FC1 input
 *    (2 T h / rs), FC1's output (2 T up f / t) and the activation's
 *    output (2 T f / t): 2 T h / rs + (2 up + 2) T f / t. Llama 3.1 70B
 *    (h 8,192, f 28,672, gated) at TP 8 with SP, mbs 1, seq 8,192:
 *    2 x 8,192 x 8,192 / 8 + 6 x 8,192 x 28,672 / 8 = 16.8 MB + 176.2 MB
 *    = 192.9 MB a layer;
 *  - moe (MoE layers: moe_layer.py L701-718 checkpoints the whole
 *    MoELayer.forward): its input, the pre-MLP norm's output, stays; the
 *    dispatched copies and every expert's tensors go:
 *    2 T h (k + n_s - 1) / rs + (k + n_s)(2 up + 2) T f / t;
 *  - shared_experts (moe_layer.py L517-530, when moe is not also set):
 *    the shared experts' FC1 and activation outputs, n_s (2 up + 2) T f / t;
 *  - moe_act (experts.py L1019-1030, CheckpointWithoutOutput around the
 *    grouped experts' activation, when moe is not also set): the
 *    activation's output, FC2's input, of the k routed copies,
 *    2 k T f / t;
 *  - layernorm (transformer_layer.py L475-531, CheckpointWithoutOutput
 *    on input_layernorm and pre_mlp_layernorm where they are modules of
 *    their own: Transformer Engine's layer spec fuses both into the next
 *    linear (TELayerNormColumnParallelLinear) except the MLA input norm
 *    and an MoE layer's pre-MLP norm, gpt_layer_specs.py L296, L313,
 *    L336): 2 T h / rs for each such norm;
 *  - mla_up_proj (multi_latent_attention.py L983-988 and L455-457: the
 *    query, key and value the up projections and RoPE make are dropped
 *    once the attention core ran): Q, K and V as model.c counts them,
 *    (2 T q + 4 T kv) / t;
 *  - core_attn: model.c's RC_SELECTIVE (the caller passes it through
 *    act_opts.rc), not here.
 * 0 for bits that do not apply to this layer. */
double perf_rc_modules_freed(const struct model_spec *m, int layer, const struct act_opts *o,
			     unsigned mods)
{
	if (!mods)
		return 0;
	double T = o->b * o->s, h = m->hidden, t = o->tp > 0 ? o->tp : 1;
	double rs = o->sp ? t : 1, up = m->gated_mlp ? 2 : 1;
	int moe = model_layer_is_moe(m, layer), mla = m->mla.kv_lora_rank != 0;
	double freed = 0;
	if (!moe && (mods & RCM_MLP))
		freed += 2 * T * h / rs + (2 * up + 2) * T * m->ffn / t;
	if (moe) {
		double k = m->moe.top_k, ns = m->moe.shared_experts, f = m->moe.expert_ffn;
		if (mods & RCM_MOE) {
			freed += 2 * T * h * (k + ns - 1) / rs + (k + ns) * (2 * up + 2) * T * f / t;
		} else {
			if (mods & RCM_SHARED_EXPERTS)
				freed += ns * (2 * up + 2) * T * f / t;
			if (mods & RCM_MOE_ACT)
				freed += 2 * k * T * f / t;
		}
	}
	if (mods & RCM_LAYERNORM)
		freed += (mla + moe) * 2 * T * h / rs;
	if (mla && (mods & RCM_MLA_UP_PROJ))
		freed += (2 * T * model_q_dim(m) + 4 * T * model_kv_dim(m)) / t;
	return freed;
}

/* Bytes per micro-batch that an fp8 run under Transformer Engine keeps
 * for backward beyond (negative: below) what x->act counts in 16 bits,
 * for the stage's dense layers. TE saves a GEMM's input for the wgrad
 * GEMM in the precision the GEMM ran in, FP8, 1 B an element (TE v1.13
 * module/linear.py:294-305, saved_inputmat = the FP8 inputmat or its
 * transpose; module/layernorm_linear.py:129, ln_out allocated uint8 under
 * fp8 and saved at :334; TE 2.x keeps the quantized tensor's columnwise
 * part, MXFP8 data plus one scale byte per 32, under 4% more). So:
 * - the QKV and FC1 inputs (the two normalised outputs, SP shards) and
 *   FC2's input (the activation function's output, ffn / tp) are 1 B,
 *   not 2: -1 B each;
 * - the output projection's input, the attention output, is kept twice:
 *   in bf16 by the attention kernel for its own backward (TE v1.13
 *   attention.py:6673, FusedAttnFunc saves q, k, v and out unless FP8
 *   attention is on) and in FP8 by the projection: +1 B a q element
 *   (with unfused attention, which keeps its probabilities and V, not
 *   its output, only the FP8 copy: -1 B);
 * Llama 3.1 405B at TP 8: (-16,384 - 16,384 - 53,248 + 16,384) / 8 =
 * -8,704 B a token of 65,088 (-13.4%). Applied with no recompute and with
 * selective recompute (both keep these tensors), and to the layers that
 * full recompute leaves whole under recompute_layers; full recompute keeps only
 * the layer input (the one layer it rebuilds, x->act_work, stays counted
 * in 16 bits: an over-count of 13% of one layer). Not applied to MoE
 * layers, whose expert inputs are dispatched copies (their accounting is
 * model.c's), nor to FP8 attention (fp8_dot_product_attention, not a
 * hetplan setting). */
static double fp8_saved_delta(const struct stage_ctx *x)
{
	const struct plan *p = x->p;
	int te = p->framework == FW_MEGATRON_CORE || p->framework == FW_ANY;
	int partial = p->recompute == RC_FULL && p->recompute_layers > 0;
	if (p->precision != HP_FP8 || !te ||
	    (p->recompute != RC_NONE && p->recompute != RC_SELECTIVE && !partial))
		return 0;
	const struct stage *st = &x->rep->stages[x->index];
	int layers = st->last_layer - st->first_layer + 1;
	int dense = layers - model_moe_layers_in(x->m, st->first_layer, st->last_layer);
	/* with recompute_layers, the layers kept whole: the recomputed ones
	 * are taken from the dense layers first (perf_stage_compute) */
	if (partial)
		dense -= plan_recompute_count(p, layers) < dense ? plan_recompute_count(p, layers)
								   : dense;
	if (dense <= 0)
		return 0;
	double t = x->tp > 0 ? x->tp : 1, h = x->m->hidden;
	double gemm_in = 2 * h / (p->sp ? t : 1);   /* QKV and FC1 inputs */
	/* the attention output's second copy exists only under the fused
	 * kernel; unfused attention keeps its probabilities and V instead,
	 * so the projection's FP8 copy replaces the 16-bit one (-1 B) */
	double per_token = -gemm_in - x->m->ffn / t + (p->flash ? 1 : -1) * model_q_dim(x->m) / t;
	/* recompute_modules mlp frees FC1's and FC2's inputs (and
	 * layernorm an MLA model's QKV-side input): their FP8 copies are not
	 * kept either, so their 1 B saving goes with them
	 * (perf_rc_modules_freed took the 16-bit tensors off) */
	unsigned mods = plan_recompute_modules(p);
	if (mods & RCM_MLP)
		per_token += h / (p->sp ? t : 1) + x->m->ffn / t;
	if ((mods & RCM_LAYERNORM) && x->m->mla.kv_lora_rank)
		per_token += h / (p->sp ? t : 1);
	return dense * x->T * per_token;
}

/* Activation offload (plan key offload = activations, N =
 * offload_layers; Megatron-Core --cpu-offloading-num-layers N). Megatron-
 * Core hands its transformer block's layers to Transformer Engine's
 * offload context (megatron/core/transformer/transformer_block.py
 * @d98e8a64 L299-318, get_cpu_offload_context with cpu_offloading_num_
 * layers and the block's num_layers; extensions/transformer_engine.py
 * L3438-3483). TE's default schedule (transformer_engine/pytorch/
 * cpu_offload.py @d0067d0d, DefaultOffloadSynchronizer, the path since
 * TE 2.10 unless NVTE_CPU_OFFLOAD_V1 is set) offloads layers 0 .. N-1
 * and makes the compute stream wait, before layer L - N + i's forward,
 * for layer i's copy to end, and starts layer i's reload before layer
 * L - 1 - N + i's backward, so that "activation memory usage is equal to
 * (num_layers - num_offloaded_layers) * T" (its docstring, L749-751): the
 * in-flight copies are inside that bound, with no separate double buffer
 * (the v1 path, AsyncDoubleBufferGroupOffloadHandler in cpu_offload_v1.py,
 * held one layer more; its cpu_offloading_double_buffering is not a
 * Megatron flag). What goes: the tensors TE's modules mark for offload
 * (mark_activation_offload in module/linear.py, layernorm_linear.py,
 * layernorm_mlp.py, attention/dot_product_attention/backends.py): the
 * GEMM inputs and the attention's saved tensors, i.e. what x->act counts
 * for a layer (simplified: all of it, and every layer of the stage taken
 * to hold the same bytes, the stage's mean: exact for a dense stack).
 * Bytes of one layer's saved activations, one micro-batch; 0 without
 * the setting. */
double perf_act_offload_layer_bytes(const struct stage_ctx *x)
{
	const struct plan *p = x->p;
	if (p->offload != OFFLOAD_ACTIVATIONS || p->offload_layers <= 0)
		return 0;
	const struct stage *st = &x->rep->stages[x->index];
	int layers = st->last_layer - st->first_layer + 1;
	double base = x->act + (p->precision == HP_FP8 ? fp8_saved_delta(x) : 0);
	return layers > 0 && base > 0 ? base / layers : 0;
}

/* What activation offload takes off the GPU's activations: N layers'
 * worth of the one micro-batch in flight (it runs at PP 1 only,
 * plan_validate, so one micro-batch's forward and backward at a time). */
static double act_offload_bytes(const struct stage_ctx *x)
{
	int n = x->p->offload_layers;
	const struct stage *st = &x->rep->stages[x->index];
	int layers = st->last_layer - st->first_layer + 1;
	if (n >= layers)
		n = layers - 1;   /* as Megatron-Core's bound (plan_validate) */
	return n > 0 ? n * perf_act_offload_layer_bytes(x) : 0;
}

/* The micro-batches in flight on x's stage under equal chunks
 * (perf_stage_memory_at says whence). */
static inline double even_in_flight(const struct stage_ctx *x)
{
	int pp = x->pp, i = x->index;
	double inflight, v = x->v;
	if (x->p->schedule == SCHED_INTERLEAVED && pp > 1)
		inflight = ((pp - i - 1) * 2.0 + (v - 1) * pp + 1) / v;
	else
		inflight = pp - i;
	if (inflight > x->mb)
		inflight = x->mb;
	return inflight;
}

/* The same for a plan with a pp_layout: chunks of unequal layers, each
 * forward of the warm-up holding its own chunk's (pp_layout_inflight).
 * Apart and reached by a tail call, so the common path keeps no frame. */
static __attribute__((noinline)) double layout_in_flight(const struct stage_ctx *x)
{
	const struct pp_layout *L = plan_pp_layout(x->p);
	if (L && x->pp > 1 && L->n % x->pp == 0)
		return pp_layout_inflight(L, x->pp, x->index, x->mb);
	return even_in_flight(x);
}

/* The micro-batches in flight on x's stage (perf_stage_memory_at says
 * whence). */
static double micro_batches_in_flight(const struct stage_ctx *x)
{
	if (__builtin_expect(x->p->pp_layout[0] != 0, 0))
		return layout_in_flight(x);
	return even_in_flight(x);
}

/* The output layer's working memory on the last stage: an fp32 hidden
 * state and the logits (T x V / tp):
 *  - fused (default): one copy, in the framework row's logit_bytes (4:
 *    Megatron's fp32 cross-entropy; llm.c 2, its bf16 buffer overwritten
 *    by the gradient);
 *  - eager: three fp32 copies (log-softmax output, incoming and outgoing
 *    gradient) in its backward;
 *  - chunked: the whole logits never exist. Liger's fused linear
 *    cross-entropy (ops/fused_linear_cross_entropy.py) runs the output
 *    GEMM and the loss over chunks of next_pow2(BT / ceil(V / H)) tokens,
 *    so a chunk's logits hold about BT x H elements, the size of the
 *    hidden state, upcast to fp32; the chunk's gradient is a second such
 *    buffer. LLMQ's --lmhead-chunks=N holds B x T / N rows of bf16 logits
 *    (src/models/llama_run_state.cpp @7f895bdb88 L279-280), within a
 *    factor of a few of that at the N its benchmarks use: counted as two
 *    fp32 chunks of T x h elements. Under the Hugging Face Trainer,
 *    Liger's gradient buffers besides (below). */
static double last_stage_logit_bytes(const struct stage_ctx *x)
{
	double T = x->T, h = x->m->hidden, V = model_out_dim(x->m), tp = x->tp;
	if (x->p->loss == LOSS_CHUNKED) {
		double b = 4 * T * h / tp + 2 * 4 * T * h / tp;
		enum hp_framework fw = x->p->framework;
		/* Liger (the Hugging Face Trainer's use_liger_kernel) computes
		 * the output layer's gradients in the forward and keeps them
		 * for the backward (fused_linear_cross_entropy.py @00eba634:
		 * grad_weight = zeros_like(weight), grad_input =
		 * zeros_like(_input), saved for backward): V x h in the
		 * weight's dtype (fp32 under AMP, 16-bit with master none or
		 * DeepSpeed's 16-bit model) and T x h in 16 bits. LLMQ's
		 * chunks accumulate into the weight gradient it holds anyway. */
		if (fw == FW_HF || fw == FW_HF_DEEPSPEED) {
			double wb = fw == FW_HF_DEEPSPEED || x->p->master == MASTER_NONE ? 2 : 4;
			b += wb * V * h / tp + 2 * T * h / tp;
		}
		return b;
	}
	if (x->p->loss == LOSS_EAGER)
		return 4 * T * (h + 3 * V) / tp;
	double lb = framework_get(x->p->framework)->logit_bytes;
	return 4 * T * h / tp + (lb > 0 ? lb : 4) * T * V / tp;
}

/* The activations of the micro-batches in flight at the stage's index,
 * the allocator's slack on what churns, and the total. */
int perf_stage_memory_at(const struct stage_ctx *x, struct perf_stage *ps)
{
	const struct plan *p = x->p;
	const struct perf_calib *k = x->k;
	double T = x->T, h = x->m->hidden;
	int tp = x->tp;
	/* Activations kept for backward, per layer and token (x->act, model.c
	 * layer_act_terms): for a Llama layer under Transformer Engine with
	 * sequence parallelism and flash attention, in 16 bits, divided by TP:
	 * the two RMSNorm inputs and the two normalised outputs the QKV and
	 * FC1 GEMMs keep (TE keeps its SP shard and gathers it again in
	 * backward) 4 x 2h; Q, K, V after RoPE 2(q + 2 kv) and the attention
	 * output 2q (kept by flash attention and by the projection GEMM: one
	 * tensor) plus its fp32 log-sum-exp 4 x heads; the FC1 output 2 x 2
	 * ffn (SwiGLU's input) and SwiGLU's output 2 ffn (FC2's input). Llama
	 * 3.1 405B at TP 8: (8 x 16384 + 4 x 16384 + 4 x 1024 + 6 x 53248 +
	 * 4 x 128) / 8 = 65,088 B per token, 0.50 GiB per layer at 8,192
	 * tokens. A stage's output is not kept: Megatron-Core frees its data
	 * once sent (deallocate_pipeline_outputs), the Llama 3 run did the
	 * same ("proactively deallocate ... the input and output tensors of
	 * each pipeline stage").
	 *
	 * In flight on stage i (Megatron-Core schedules.py,
	 * forward_backward_pipelining_with_interleaving): the warm-up runs
	 * (pp - i - 1) x 2 + (v - 1) x pp model-chunk forwards, then one more
	 * before the first backward; in stage units (v chunks a stage) that is
	 * the expression below. With as many micro-batches as stages (or
	 * fewer) every forward runs first ("all_warmup_microbatches"): all m
	 * micro-batches are in flight. */
	double inflight = micro_batches_in_flight(x);
	/* fp8_saved_delta is 0 unless the plan is FP8 (read first: this
	 * runs for every stage of a layout probe) */
	double acts = (x->act + (p->precision == HP_FP8 ? fp8_saved_delta(x) : 0)) * inflight;
	if (__builtin_expect(p->offload == OFFLOAD_ACTIVATIONS, 0))
		acts -= act_offload_bytes(x);
	if (x->ckpt) {
		/* One layer's full activations while it is recomputed and run
		 * backward; under SP that includes the two all-gathered
		 * (full-sequence) inputs of the QKV and MLP matmuls, of which
		 * act_work counts a 1/tp shard. */
		acts += x->act_work;
		if (p->sp && tp > 1)
			acts += 2 * 2 * T * h * (1 - 1.0 / tp);
	}
	if (x->last)
		acts += last_stage_logit_bytes(x);
	if (x->first)
		acts += inflight * (8 * T + (x->m->dropout ? 3 : 2) * T * h / (p->sp ? tp : 1));
	/* The caching allocator's slack: what it keeps reserved beyond the
	 * tensors alive at the peak (blocks split and cached for sizes that
	 * no longer come), mem_frag - 1 of what is allocated and freed during
	 * a step: the activations, the workspaces, ZeRO-3's gathered units
	 * and, unless the framework keeps them in one contiguous buffer
	 * allocated at start (Megatron's DDP grad buffer; hetplan's default),
	 * the gradients. Weights and optimizer state are allocated once, at
	 * their exact sizes. Shown with the activations. */
	int grad_buffer = p->framework == FW_MEGATRON_CORE || p->framework == FW_MEGATRON_LM ||
			  p->framework == FW_ANY;
	double churn = acts + k->workspace_bytes + (p->zero == 3 ? 2 * 2 * x->unit : 0) +
		       (grad_buffer ? 0 : ps->grads);
	ps->slack = (k->mem_frag - 1) * churn;
	acts += ps->slack;
	ps->activations = acts;
	ps->total = ps->weights + ps->grads + ps->optimizer + acts + ps->other;
	/* What must fit is what is alive: on a failed cudaMalloc the caching
	 * allocator frees its unused cached blocks and tries again before it
	 * reports out of memory (c10/cuda/CUDACachingAllocator.cpp, malloc:
	 * release_cached_blocks), so its slack makes a plan risky (within the
	 * headroom, search_mem_state), not impossible. */
	ps->fits = ps->total - ps->slack <= ps->capacity;
	return ps->fits;
}

/* perf_stage_memory_at's terms for a middle stage (perf_int.h, struct
 * mem_run): each the expression perf_stage_memory_at evaluates, on the
 * same operands. */
void perf_mem_run_init(const struct stage_ctx *x, const struct perf_stage *ps,
		       struct mem_run *r)
{
	const struct plan *p = x->p;
	const struct perf_calib *k = x->k;
	double T = x->T, h = x->m->hidden;
	int tp = x->tp;
	r->base = x->act + (p->precision == HP_FP8 ? fp8_saved_delta(x) : 0);
	r->ckpt = x->ckpt;
	r->work = x->act_work;
	r->sp_tp = p->sp && tp > 1;
	r->sp_work = r->sp_tp ? 2 * 2 * T * h * (1 - 1.0 / tp) : 0;
	int grad_buffer = p->framework == FW_MEGATRON_CORE || p->framework == FW_MEGATRON_LM ||
			  p->framework == FW_ANY;
	r->churn_ws = k->workspace_bytes;
	r->churn_z3 = p->zero == 3 ? 2 * 2 * x->unit : 0;
	r->churn_grads = grad_buffer ? 0 : ps->grads;
	r->frag1 = k->mem_frag - 1;
	r->wgo = ps->weights + ps->grads + ps->optimizer;
	r->other = ps->other;
}

/* perf_stage_memory_at at a middle stage from r: the same operations in
 * the same order (acts, then churn's three sums, slack, the total's
 * sums left to right), so the same bits. Returns ps->fits. */
int perf_mem_run_at(const struct stage_ctx *x, const struct mem_run *r, struct perf_stage *ps)
{
	double acts = r->base * micro_batches_in_flight(x);
	if (__builtin_expect(x->p->offload == OFFLOAD_ACTIVATIONS, 0))
		acts -= act_offload_bytes(x);
	if (r->ckpt) {
		acts += r->work;
		if (r->sp_tp)
			acts += r->sp_work;
	}
	double churn = acts + r->churn_ws + r->churn_z3 + r->churn_grads;
	ps->slack = r->frag1 * churn;
	acts += ps->slack;
	ps->activations = acts;
	ps->total = r->wgo + acts + r->other;
	ps->fits = ps->total - ps->slack <= ps->capacity;
	return ps->fits;
}
