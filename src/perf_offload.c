/* perf_offload.c — DeepSpeed's ZeRO-Offload (plan key offload =
 * optimizer): what the optimizer's move to the host costs a step.
 *
 * What DeepSpeed does (deepspeedai/DeepSpeed @edaa7221, 2026,
 * deepspeed/runtime/zero/stage_1_and_2.py; v0.7.1 @dce3acaa, the 2022
 * release, has the same paths at stage_1_and_2.py L1027-1084 and
 * L1178-1190), for the P parameters of a rank's ZeRO partition:
 *  - the fp32 master partition and its fp32 gradient are allocated on the
 *    CPU, pinned (L489-499, initialize_optimizer_states L837-844), with a
 *    pinned 16-bit copy of the partition (param_buffer_of_bit16_for_cpu_
 *    offload_groups); DeepSpeedCPUAdam keeps Adam's two fp32 moments on
 *    the CPU beside them;
 *  - with gradient accumulation, every micro-batch copies each partition
 *    parameter's accumulated 16-bit gradient from pinned host memory to
 *    the GPU and adds the new one (from the second micro-batch on), then
 *    copies the sum back (async_accumulate_grad_in_cpu_via_gpu, L1516-
 *    1560; copy_grads_in_partition, L1650-1666): 2 B x P host-to-device
 *    and 2 B x P device-to-host a micro-batch (4 B in an fp32 run);
 *  - on the last micro-batch the gradient also goes to the fp32 buffer on
 *    the host, converted on the GPU (async_inplace_copy_grad_to_fp32_
 *    buffer_from_gpu, L1590-1605): 4 B x P device-to-host;
 *  - these copies are issued after each bucket's reduce, on the reduction
 *    stream under overlap_comm (beside the backward) and on the compute
 *    stream without it (reduce_ipg_grads, L1719-1729);
 *  - step(): DeepSpeedCPUAdam over the partition (csrc/includes/
 *    cpu_adam.h Step_AVX: reads the fp32 gradient, both moments and the
 *    parameter, writes the parameter and the moments: 28 B of host memory
 *    traffic a parameter), then the fp32 parameters are copied into the
 *    pinned 16-bit buffer (4 B read, 2 B written) and from there to the GPU
 *    (L2338-2341): P x 2 B host-to-device, before the partitions'
 *    all-gather. Nothing overlaps the step: the ZeRO-Offload paper's
 *    one-step delayed parameter update (Ren et al. 2021, arXiv 2101.06840,
 *    Sec. 5.2) is not DeepSpeed's default and is not modelled.
 *
 * The costs. The host link is the GPU's PCIe link (comm.h
 * comm_pcie_link_Bps: about 12 GB/s a direction at Gen3 x16, 25.6 at Gen4
 * x16, 51.2 at Gen5 x16), at the lanes the pool's key pcie gives: a
 * desktop that splits its CPU's 16 lanes into x8/x8 for two GPUs gets
 * half, 12.8 GB/s at Gen4 x8 (docs/pcie.md). The two directions of one rank's copies are issued on one stream, so
 * they add. The CPU Adam step is bound by host memory bandwidth (its
 * arithmetic is a few vector FMAs, a square root and a division per
 * element: far below what even an 8-core desktop's AVX2 units retire at
 * the bandwidth), each rank's share being HOST_MEM_BPS_PER_GPU. */
#include "perf_int.h"

#include "comm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Host memory bandwidth per GPU a node hosts, bytes/s: the STREAM-class
 * bandwidth of the node's DRAM divided by its GPUs, every rank's CPU Adam
 * stepping at once. A desktop with two GPUs and dual-channel DDR4-3200
 * (51.2 GB/s peak, about 40 GB/s sustained): 20 GB/s a GPU; DGX-2, the
 * ZeRO-Offload paper's host (2 x Xeon Platinum 8168, 12 channels of
 * DDR4-2666, 256 GB/s peak, about 200 sustained, 16 GPUs): 12.5; DGX A100
 * (2 x EPYC 7742, 16 channels DDR4-3200, 410 GB/s peak, about 290
 * sustained, 8 GPUs): 36; DGX H100 (2 x Xeon 8480C, 16 channels
 * DDR5-4800, 614 GB/s peak, about 450 sustained, 8 GPUs): 56. Range 12-56
 * GB/s; 20 is the desktop and the middle of the lower servers (the
 * platforms' memory datasheets; sustained taken as about 0.75-0.8 of
 * peak, STREAM triad class). A node constant, not fitted: hetplan's
 * catalog describes no host. */
#define HOST_MEM_BPS_PER_GPU 20e9
/* Host memory traffic of DeepSpeedCPUAdam per fp32 parameter: read the
 * gradient, the two moments and the parameter, write the parameter and
 * the moments (cpu_adam.h Step_AVX), 7 x 4 B. */
#define CPU_ADAM_BYTES_PER_PARAM 28.0
/* DeepSpeed's reduce_bucket_size default, elements (deepspeed/runtime/
 * zero/config.py @edaa7221 L113, 5e8): the last bucket of a backward is
 * reduced, and its partition copied, after the backward has ended. */
#define DS_REDUCE_BUCKET_ELEMS 5e8

void perf_offload_cost(const struct stage_ctx *x, double bwd_s, struct perf_offload *o)
{
	const struct plan *p = x->p;
	memset(o, 0, sizeof *o);
	if (p->offload != OFFLOAD_OPTIMIZER)
		return;
	o->kind = OFFLOAD_OPTIMIZER;
	/* the rank's partition: the dense parameters over DP x CP, the
	 * experts over their own DP group (as perf.c's optimizer step) */
	double P = x->params / (double)(x->dp * x->cp) +
		   (x->eparams ? x->eparams / (double)perf_expert_dp(x) : 0);
	int fp32 = p->precision == HP_FP32 || p->precision == HP_TF32;
	double elt = fp32 ? 4 : 2;   /* the model's gradient and parameter dtype */
	int m = x->mb > 0 ? x->mb : 1;
	double link = comm_pcie_link_Bps(x->g->pcie_gen, x->g->pcie_lanes);
	o->link_Bps = link;
	o->partition_params = P;
	/* Per micro-batch: the accumulation round trip when there is more
	 * than one micro-batch (no host-to-device on the first), and on the
	 * last the fp32 gradient. */
	double ga_d2h = m > 1 ? elt * P : 0, ga_h2d = m > 1 ? elt * P : 0;
	o->d2h_bytes = m * ga_d2h + 4 * P;
	o->h2d_bytes = (m - 1) * ga_h2d + elt * P;
	/* Exposure of one micro-batch's copies of c seconds. Without
	 * overlap_comm they run on the compute stream: all of c. With it,
	 * beside the backward, except the last bucket's share f of the
	 * stage's parameters, whose reduce and copy come after the backward
	 * has ended; the rest hides when the backward is long enough. */
	double f = 1;
	if (plan_grad_overlap(p)) {
		double whole = x->params + x->eparams;
		f = whole > DS_REDUCE_BUCKET_ELEMS ? DS_REDUCE_BUCKET_ELEMS / whole : 1;
	}
	double c_mid = (ga_d2h + ga_h2d) / link, c_first = ga_d2h / link;
	double c_last = (ga_d2h + ga_h2d + 4 * P) / link;
	if (m == 1)
		c_last = 4 * P / link;
	double e_mid = f * c_mid + HP_MAX(0.0, (1 - f) * c_mid - bwd_s);
	double e_first = f * c_first + HP_MAX(0.0, (1 - f) * c_first - bwd_s);
	double e_last = f * c_last + HP_MAX(0.0, (1 - f) * c_last - bwd_s);
	o->grad_s = m == 1 ? e_last : e_first + (m - 2) * e_mid + e_last;
	/* The step: CPU Adam, then fp32 -> 16-bit into the pinned buffer
	 * (4 B read + elt written), then the 16-bit partition to the GPU. */
	o->adam_s = P * (CPU_ADAM_BYTES_PER_PARAM + 4 + elt) / HOST_MEM_BPS_PER_GPU;
	o->param_s = elt * P / link;
	o->exposed_s = o->grad_s + o->adam_s + o->param_s;
	/* Host memory a GPU needs: fp32 master, two fp32 moments and the fp32
	 * gradient partition, the pinned 16-bit parameter buffer, and with
	 * gradient accumulation the 16-bit accumulated gradients. */
	o->host_bytes_per_gpu = P * (4 + 8 + 4 + elt + (m > 1 ? elt : 0));
}

/* ---- activation offload (offload = activations) ----------------------
 *
 * Megatron-Core's --cpu-offloading-num-layers N (megatron/training/
 * arguments.py @d98e8a64 L1950-1951 turns cpu_offloading on with it; the
 * activations switch, cpu_offloading_activations, defaults True and the
 * weights one is ignored by TE 2.10+, cpu_offload.py @d0067d0d L805-811,
 * "Offloading weights is deprecated"; neither has a command-line flag,
 * arguments.py L2320-2323). The schedule is Transformer Engine's
 * DefaultOffloadSynchronizer (cpu_offload.py @d0067d0d L576-653; what is
 * kept on the GPU: perf_mem.c, perf_act_offload_layer_bytes):
 *  - forward: before layer j's forward, layer j-1's saved tensors (if
 *    j-1 < N) are queued on the offload stream (fwd_step, start_offload),
 *    device to host; before layer L - N + i's forward the compute stream
 *    waits for layer i's copy (finish_offload_map,
 *    release_activation_forward_gpu_memory);
 *  - backward: before layer L - 1 - N + i's backward, layer i's reload is
 *    queued on the same stream, host to device (start_reload_map); layer
 *    i's backward waits for it.
 * One stream carries both directions in order (OffloadSynchronizer's
 * offload_stream), so copies queue behind each other. The timeline below
 * replays that with every layer of the stage taking the stage's mean
 * forward and backward time (simplified: the embedding and the loss are
 * spread over the layers; a copy is taken to start when its layer's
 * forward ends, where TE may start a tensor's copy as soon as it is
 * saved, so the forward's exposure is an upper bound). What the copies
 * take from the kernels' HBM bandwidth is not charged: TE's guide says it
 * is "unlikely to affect compute-bound operations like GEMMs" and may
 * slow memory-bound ones (docs/features/other_optimizations/
 * cpu_offloading/cpu_offloading.rst @d0067d0d); not quantified there,
 * not modelled here.
 *
 * The host link, a direction:
 *  - a PCIe GPU: its link at its generation and lanes (comm_pcie_link_Bps;
 *    x16 unless the pool's key pcie says fewer);
 *  - a Grace superchip (catalog form "Superchip ..."): NVLink-C2C, 900
 *    GB/s bidirectional (NVIDIA's GH200 and GB200 datasheets; TE's guide
 *    above, "900 GB/s bidirectional per link"), 450 GB/s a direction, one
 *    link per Grace CPU. GB200 pairs one Grace with two GPUs and GB300 two
 *    with four (the catalog's "(2 GPU + 1 CPU)", "(4 GPU + 2 CPU)"): every
 *    rank copies at once in a data-parallel run, so each GPU is taken to
 *    get its share, 225 GB/s (ASSUMED: an even split; NVIDIA gives the
 *    link per superchip). GH200 (one GPU a Grace): 450. Nominal rates: no
 *    measured copy efficiency is applied (the exposure is a lower bound
 *    where copies are exposed). */
#define C2C_BPS_PER_DIR 450e9

/* GPUs sharing one Grace CPU's C2C link, from the catalog's form text
 * "Superchip (G GPU + C CPU)"; 1 when it says no counts; 0 when the GPU
 * is not a superchip. */
static int superchip_gpus_per_cpu(const struct gpu_spec *g)
{
	if (!strstr(g->form, "Superchip"))
		return 0;
	const char *q = strchr(g->form, '(');
	int gpus = 0, cpus = 0;
	if (q && sscanf(q, "(%d GPU + %d CPU", &gpus, &cpus) == 2 && gpus > 0 && cpus > 0 &&
	    gpus >= cpus)
		return gpus / cpus;
	return 1;
}

double perf_host_link_Bps(const struct gpu_spec *g)
{
	int share = superchip_gpus_per_cpu(g);
	if (share > 0)
		return C2C_BPS_PER_DIR / share;
	return comm_pcie_link_Bps(g->pcie_gen, g->pcie_lanes);
}

/* TE's schedule above for L layers of which the first N offload, each
 * layer f s forward and b s backward, each layer's copy c s: the forward's
 * and the backward's time beyond L f and L b. */
static void act_offload_timeline(int L, int N, double f, double b, double c, double *fwd_x,
				 double *bwd_x)
{
	/* end[i]: when layer i's copy ends; copies queue in issue order.
	 * The waits are summed (not the clock less L f), so that a copy the
	 * compute hides adds exactly 0. */
	double *end = xcalloc((size_t)N, sizeof *end);
	double now = 0, stream = 0, wait = 0;
	for (int j = 0; j < L; j++) {
		if (j >= 1 && j - 1 < N) {   /* layer j-1's copy to the host */
			stream = (now > stream ? now : stream) + c;
			end[j - 1] = stream;
		}
		int i = j - (L - N);         /* N <= L - 1: i < j, issued */
		if (i >= 0 && end[i] > now) {
			wait += end[i] - now;
			now = end[i];
		}
		now += f;
	}
	*fwd_x = wait;
	now = stream = wait = 0;
	for (int j = L - 1; j >= 0; j--) {
		int i = j - (L - 1 - N);     /* layer i's reload starts here */
		if (i >= 0 && i < N) {
			stream = (now > stream ? now : stream) + c;
			end[i] = stream;
		}
		if (j < N && end[j] > now) {
			wait += end[j] - now;
			now = end[j];
		}
		now += b;
	}
	*bwd_x = wait;
	free(end);
}

void perf_act_offload_cost(const struct stage_ctx *x, double fwd_s, double bwd_s,
			   struct perf_offload *o)
{
	const struct plan *p = x->p;
	memset(o, 0, sizeof *o);
	if (p->offload != OFFLOAD_ACTIVATIONS || p->offload_layers <= 0)
		return;
	const struct stage *st = &x->rep->stages[x->index];
	int L = st->last_layer - st->first_layer + 1;
	int N = p->offload_layers < L ? p->offload_layers : L - 1;
	if (N <= 0)
		return;
	double B = perf_act_offload_layer_bytes(x);
	double link = perf_host_link_Bps(x->g);
	int m = x->mb > 0 ? x->mb : 1;
	o->kind = OFFLOAD_ACTIVATIONS;
	o->act_layers = N;
	o->act_layer_bytes = B;
	o->link_Bps = link;
	o->micro_batches = m;
	act_offload_timeline(L, N, fwd_s / L, bwd_s / L, B / link, &o->act_fwd_s, &o->act_bwd_s);
	/* micro-batches run one after another at PP 1 */
	o->exposed_s = m * (o->act_fwd_s + o->act_bwd_s);
	o->d2h_bytes = o->h2d_bytes = (double)m * N * B;
	/* pinned host buffers of one micro-batch's N layers (TE frees them
	 * after the reload unless cpu_offloading_retain_pinned_cpu_buffers,
	 * which keeps the same amount) */
	o->host_bytes_per_gpu = N * B;
}

/* ---- the host side against the node's memory -------------------------
 *
 * Share of a node's physical host memory that an offload's pinned
 * buffers may take: the rest holds the kernel and its reserves, each
 * rank's own process (the Python interpreter, the framework, the CUDA
 * driver's host-side state: several GB a rank), the dataloader's worker
 * processes and their prefetched batches, and the page cache that
 * checkpoint writes and the dataset's reads go through. Pinned (page-
 * locked) memory cannot be swapped or reclaimed, so the OS cannot make
 * room when the other users grow. DeepSpeed's ZeRO-Offload and Megatron-
 * Core/Transformer Engine both pin their host buffers (perf_offload.c
 * above; TE cpu_offload.py allocates with pin_memory=True), and neither
 * documents a fraction to keep free. ASSUMED, not measured or fitted:
 * 0.85, range 0.8-0.9 (0.8: a node with a heavy dataloader, 8 ranks x 8
 * workers x 1-2 GB, and a 2 TB host loses about 10% to them and the OS;
 * 0.9: a lean one). */
#define HOST_MEM_USABLE_SHARE 0.85

/* The host side a node. Pinned host buffers add up on a node: every GPU
 * it hosts brings its own, whichever stage or replica it runs. Where the
 * GPUs sit is the comm model's rule (perf_comm.c, perf_pp_boundary_
 * crosses): on each pool a stage's TP x CP x DP GPUs are consecutive, and
 * the pool's stages follow each other in pipeline order, so PP 2 x TP 4 on
 * an 8-GPU node puts both stages on the node. Replica groups follow each
 * other the same way, group after group (each group's stage takes TP x CP
 * x its replica count). Simplified: a TP group may straddle two nodes here
 * where dispatch would start it on the next one, and a launch that puts
 * the DP ranks outer (dispatch's dp_inner off: each replica's pipeline
 * together) mixes the stages on a node otherwise: not modelled (with
 * whole nodes of one stage, as here, the fullest node holds the largest
 * stage's GPUs only, at least what any mix of the node's count holds). */

/* Walking one pool's GPUs in placement order (perf_offload_host_nodes):
 * the node being summed and the fullest node seen on any pool. */
struct host_walk {
	int pool;
	long long gpn;          /* the pool's GPUs a node */
	double usable;          /* its usable host bytes a node; 0: unknown */
	long long node;         /* the node being summed; -1: none yet */
	double sum;             /* its host bytes */
	long long gpus;         /* its GPUs that offload */
	/* the fullest node: on a pool whose host is known, the highest
	 * need / usable; where none is, the highest need */
	int best_pool, best_checked;
	double best_sum, best_key;
	long long best_gpus;
};

/* The node w summed is done: the fullest so far? */
static void host_walk_close(struct host_walk *w)
{
	if (w->node < 0 || !(w->sum > 0))
		return;
	int checked = w->usable > 0;
	double key = checked ? w->sum / w->usable : w->sum;
	if (w->best_pool < 0 || checked > w->best_checked ||
	    (checked == w->best_checked && key > w->best_key)) {
		w->best_pool = w->pool;
		w->best_checked = checked;
		w->best_key = key;
		w->best_sum = w->sum;
		w->best_gpus = w->gpus;
	}
}

/* n GPUs from GPU g of w's pool, b host bytes each, onto their nodes. A
 * run of whole nodes counts as one node (they hold the same). */
static void host_walk_add(struct host_walk *w, long long g, long long n, double b)
{
	while (n > 0) {
		long long node = g / w->gpn;
		long long take = w->gpn - g % w->gpn;
		if (take > n)
			take = n;
		if (node != w->node) {
			host_walk_close(w);
			w->node = node;
			w->sum = 0;
			w->gpus = 0;
		}
		w->sum += (double)take * b;
		w->gpus += take;
		g += take;
		n -= take;
		if (n >= w->gpn) {
			long long whole = n / w->gpn;
			host_walk_close(w);
			w->node = g / w->gpn + whole - 1;
			w->sum = (double)w->gpn * b;
			w->gpus = w->gpn;
			g += whole * w->gpn;
			n -= whole * w->gpn;
		}
	}
}

void perf_offload_host_nodes(const struct cluster *c, const struct plan *p,
			     const double *per_gpu, struct perf_offload *o)
{
	o->host_bytes_per_node = 0;
	o->gpus_per_node = 0;
	o->host_mem_bytes = o->host_usable_bytes = 0;
	o->host_over = 0;
	struct host_walk w = { .best_pool = -1 };
	for (int q = 0; q < c->n_pools; q++) {
		const struct pool *pl = &c->pools[q];
		double gb = pool_host_mem_gb(pl);
		w.pool = q;
		w.gpn = pl->gpus_per_node > 0 ? pl->gpus_per_node : 1;
		w.usable = gb > 0 ? HOST_MEM_USABLE_SHARE * (gb * 1e9) : 0;
		w.node = -1;
		w.sum = 0;
		w.gpus = 0;
		long long g = 0;   /* the pool's next GPU */
		int si = 0;
		for (int r = 0; r < p->n_replicas; r++) {
			const struct replica *rep = &p->replicas[r];
			for (int k = 0; k < rep->n_stages; k++, si++) {
				if (rep->stages[k].pool != q)
					continue;
				long long n = (long long)rep->stages[k].tp * p->cp * rep->count;
				host_walk_add(&w, g, n, per_gpu[si]);
				g += n;
			}
		}
		host_walk_close(&w);
	}
	if (w.best_pool < 0)
		return;   /* nothing offloaded */
	o->host_pool = w.best_pool;
	o->host_bytes_per_node = w.best_sum;
	o->gpus_per_node = (int)HP_MIN(w.best_gpus, (long long)INT_MAX);
	if (!w.best_checked)
		return;
	o->host_mem_bytes = pool_host_mem_gb(&c->pools[w.best_pool]) * 1e9;
	o->host_usable_bytes = HOST_MEM_USABLE_SHARE * o->host_mem_bytes;
	o->host_over = o->host_bytes_per_node > o->host_usable_bytes;
}
