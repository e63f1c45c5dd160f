/* perf.h — estimate one plan: step time and its breakdown, memory per
 * stage, communication per parallel dimension, throughput, MFU, cost and
 * energy. The planner's inner loop: no I/O, a few small allocations.
 *
 * The model (perf.c's header comment has the details):
 *   per micro-batch and stage: GEMMs at peak x efficiency(GPU, dtype, shape)
 *   + attention core + memory-bound element-wise traffic + exposed TP/CP/EP
 *   communication + pipeline p2p; pipeline of unequal stages:
 *     T = m * max_i t_i + (sum_i t_i - max_i t_i) / v;
 *   replicas run concurrently and the slowest sets the pace; then exposed
 *   data-parallel synchronisation and the optimizer step. */
#ifndef HP_PERF_H
#define HP_PERF_H

#include <stddef.h>

#include "plan.h"
#include "comm.h"

enum perf_dim { DIM_TP, DIM_PP, DIM_DP, DIM_CP, DIM_EP, DIM_COUNT };

/* The model's constants. Each has a physical meaning, a range and a
 * source, listed once in perf_const_table() (perf.c); `make fit` moves
 * the fitted ones inside their ranges and reports any left on a bound. */
struct perf_gen_eff {
	double gemm16;        /* best dense bf16/fp16 GEMM, fraction of peak */
	double gemm8;         /* best dense fp8 GEMM, fraction of fp8 peak */
	double gemm32;        /* best tf32/fp32 GEMM, fraction of that peak */
	double attn_fwd;      /* flash attention forward, fraction of 16-bit peak */
	double attn_bwd;      /* flash attention backward, fraction of 16-bit peak */
	double hbm;           /* achieved / nominal HBM bandwidth */
	double attn3_fwd;     /* cuDNN / FlashAttention-3 class forward (Hopper+) */
	double attn3_bwd;     /* ... backward */
	double square16;      /* sustained square fp16 GEMM (8192-10240) of the part
			       * gemm16 was fitted on, fraction of its peak; 0: none
			       * measured (clock_frac, perf_compute.c) */
};

struct perf_calib {
	struct perf_gen_eff gen[HP_GEN_LAST + 1];
	double gemm_k_half;       /* K at which a GEMM's main loop runs at half speed */
	double attn_s_half;       /* sequence at which flash attention runs at half speed */
	double kernel_gap_s;      /* GPU idle between two back-to-back kernels */
	double host_op_s;         /* host time to issue one kernel (eager PyTorch) */
	double host_coll_s;       /* host time to issue one NCCL collective */
	double tp_overlap_slowdown; /* GEMM slowdown while a TP collective shares the SMs */
	double dp_overlap_slowdown; /* compute slowdown while DP traffic runs beside it */
	double cuda_context_bytes;  /* CUDA context and module images, per GPU */
	double workspace_bytes;     /* cuBLAS / cuBLASLt / TE GEMM workspaces, per GPU */
	double mem_frag;          /* caching-allocator fragmentation on activations */
	double step_overhead_s;   /* per step: host time the GPU does not hide (docs/step-cost.md) */
	double power_clock_exp;   /* sustained clock ~ (power limit / rated TDP)^this */
};

/* One constant: where it lives in struct perf_calib, its unit, the
 * physical range it must stay in, whether `make fit` moves it, and its
 * source. */
struct perf_const {
	const char *name;
	size_t offset;            /* offsetof(struct perf_calib, ...) */
	const char *unit;
	double lo, hi;
	int fitted;
	const char *source;
	const char *on_bound;      /* why the fit leaves it on a bound, or NULL */
};

/* The table of every constant (static, never freed) and its length in
 * *n. Never fails. */
const struct perf_const *perf_const_table(int *n);
/* The value of constant c in k: a pointer into k, valid as long as k.
 * Never fails. */
double *perf_const_ptr(struct perf_calib *k, const struct perf_const *c);

/* The shipped constants (static, read-only, never freed), from
 * data/calibration.json as embedded in the binary. */
const struct perf_calib *perf_calib_default(void);

/* Parse a calibration file (the schema of data/calibration.json; file
 * names it in messages) into *k and a new table of its constants (*n
 * entries; free with perf_const_table_free). Every double of struct
 * perf_calib must be given exactly once, every listed value inside its
 * range. Returns 0, or -1 with err (exit code 3) naming the entry. */
int perf_calib_parse(const char *text, size_t len, const char *file, struct perf_calib *k,
		     struct perf_const **table, int *n, struct hp_err *err);
void perf_const_table_free(struct perf_const *t, int n);

struct perf_comm {
	int used;
	enum comm_coll coll;
	double bytes;             /* per call */
	double calls;             /* per step on the critical path */
	int group;                /* ranks */
	int group_nodes;
	char link[48];            /* "NVSwitch", "8x400G IB", "WAN 100G", ... */
	enum comm_algo algo;
	enum comm_proto proto;
	double time_s;            /* per step */
	double exposed_s;         /* of which on the critical path */
	/* dp at ZeRO-1/2: the parameter all-gather (InternLM's ZeRO-1: the
	 * owners' broadcasts) after the gradient reduce-scatter, which
	 * time_s and exposed_s include; gather_s 0 when there is none */
	enum comm_coll gather_coll;
	double gather_bytes;      /* per call, one call a step */
	enum comm_algo gather_algo;
	enum comm_proto gather_proto;
	double gather_s, gather_exposed_s;
};

struct perf_stage {
	int group, index;         /* replica group, stage within the pipeline */
	int pool, tp, layers, first_layer, last_layer;
	/* per micro-batch, seconds */
	double t_fwd, t_bwd, t_recompute, t_tp, t_pp, t_cp, t_ep, t_total;
	double t_host_stall;      /* GPU idle waiting for the host to issue kernels */
	/* memory per GPU, bytes */
	double weights, grads, optimizer, activations, other, total, capacity;
	double outside;           /* of other: held outside the framework's caching
				   * allocator (CUDA context, NCCL, TE userbuffers):
				   * nvidia-smi counts it, torch.cuda.max_memory_reserved
				   * does not (perf_mem.c) */
	double slack;             /* of activations: the caching allocator's reserve
				   * beyond the live tensors (mem_frag); in total, not
				   * in what must fit (perf_mem.c) */
	int fits;
};

struct perf_breakdown {
	double compute, recompute, tp_comm, pp_comm, dp_comm, ep_comm, cp_comm,
		bubble, optimizer, overhead;
	double offload;           /* the host offload's exposed time (plan key
				   * offload; 0 without): ZeRO-Offload's, in
				   * place of the GPU's optimizer step, or the
				   * activation copies' waits; one of
				   * report_time_parts,
				   * left out of JSON at 0, so plans without it
				   * report as before */
};

/* What ZeRO-Offload (plan key offload = optimizer) or activation offload
 * (offload = activations) costs one GPU a step (perf_offload.c says
 * whence each term); all 0 without either. Activation offload fills
 * link_Bps, d2h_bytes, h2d_bytes, exposed_s, the host bytes and the act_
 * fields. */
struct perf_offload {
	double partition_params;  /* P: parameters of the rank's ZeRO partition */
	double link_Bps;          /* host link, a direction (PCIe x16 at the GPU's gen) */
	double d2h_bytes, h2d_bytes; /* over the link, a step */
	double grad_s;            /* of the gradient copies, exposed */
	double adam_s;            /* the CPU Adam step and the fp32 -> 16-bit copy */
	double param_s;           /* the 16-bit partition back to the GPU */
	double exposed_s;         /* grad_s + adam_s + param_s */
	double host_bytes_per_gpu;  /* the reported stage's, a GPU */
	double host_bytes_per_node; /* the fullest node's, all the stages it hosts
				     * (perf_offload_host_nodes) */
	int gpus_per_node;        /* the fullest node's GPUs under the plan */
	/* activation offload (offload = activations; perf_offload.c): */
	int kind;                 /* enum hp_offload of the plan (0: none) */
	int act_layers;           /* N: the layers whose activations go */
	double act_layer_bytes;   /* one layer's saved activations, a micro-batch */
	double act_fwd_s, act_bwd_s; /* exposed copy time a micro-batch, forward
				   * (to the host) and backward (back) */
	int micro_batches;        /* the stage's micro-batches a step */
	/* the host side against the node's memory (perf_offload_host_nodes): */
	int host_pool;            /* the fullest node's pool (index in the cluster) */
	double host_mem_bytes;    /* the pool's host memory a node (pool_host_mem_gb);
				   * 0: unknown, nothing checked */
	double host_usable_bytes; /* of it, what pinned buffers may take
				   * (HOST_MEM_USABLE_SHARE); 0: unknown */
	int host_over;            /* 1: host_bytes_per_node > host_usable_bytes:
				   * the estimate does not fit (e->fits 0) */
};

struct estimate {
	double step_time_s, tokens_per_s, mfu, hfu;
	double model_flops, hw_flops;             /* per step, whole job */
	double model_tflops_per_gpu;
	double peak_flops;                        /* sum over used GPUs */
	int n_gpus;
	int seq_len;
	struct perf_breakdown bd;
	int n_stages;
	struct perf_stage *stages;                /* every stage of every group */
	struct perf_comm comm[DIM_COUNT];
	/* The pipeline hand-off across a WAN that costs a step the most
	 * (mb x its time), when comm[DIM_PP], the pace-setting stage's,
	 * is not one: its stage in pp_wan_group, pp_wan_stage. pp_wan.used
	 * 0 when no such hand-off. */
	struct perf_comm pp_wan;
	int pp_wan_group, pp_wan_stage;
	double usd_per_hour, usd_per_mtok;
	int price_known;
	double power_kw, joules_per_token;
	int fits;                                 /* every stage fits, and an
						   * offload's host side fits
						   * the node (offload.host_over
						   * 0; worst_stage is -1 when
						   * only the host is over) */
	double worst_over_bytes;                  /* largest overflow, if not */
	int worst_stage;
	int slowest_group;
	struct perf_offload offload;              /* of the stage with the most
						   * exposed offload time */
};

/* Estimate plan p of model m on cluster c. calib NULL = defaults. The plan
 * should have passed plan_validate(); what would break the arithmetic is
 * checked on every call: degrees, micro- and global batch below 1, no
 * replicas or stages, a stage on a pool c lacks or on layers m lacks make
 * it return -1 with err (HP_EXIT_INPUT) and e->stages NULL. Enum fields
 * out of range are a caller's bug (assert). Returns 0 with e filled;
 * e->stages is allocated: call estimate_free(). Out of memory aborts
 * (xcalloc).
 *
 * Thread-safe: several threads may estimate at once, on the same or
 * different inputs. Each thread keeps a memo (perf_memo.c: fabrics per
 * pool pair, link names, collective times, layer costs, model counts),
 * keyed by the contents of c, m and calib, so repeated estimates for one
 * cluster and model skip that work and an input edited in place is never
 * served stale values; results are bit for bit those of a cold call. */
int perf_estimate(const struct cluster *c, const struct model_spec *m,
		  const struct plan *p, const struct perf_calib *calib,
		  struct estimate *e, struct hp_err *err);
/* The exposed DP synchronisation of p, bit for bit perf_estimate's
 * e->bd.dp_comm, computing only what that needs (for the planner's bound,
 * which asks it of many plans). Same inputs, checks and errors as
 * perf_estimate; returns 0 with *dp_s set, -1 with err. */
int perf_dp_exposed(const struct cluster *c, const struct model_spec *m,
		    const struct plan *p, const struct perf_calib *calib, double *dp_s,
		    struct hp_err *err);
/* perf_dp_exposed (default calibration) of p with its grad_overlap and
 * param_overlap set to grad[v] and param[v], for each v < n (at most
 * PERF_DP_PAIRS: on and off of each), into dp_s[v]: the same bits as n
 * calls, each stage computed once. */
#define PERF_DP_PAIRS 4
int perf_dp_exposed_each(const struct cluster *c, const struct model_spec *m,
			 const struct plan *p, const int *grad, const int *param, int n,
			 double *dp_s, struct hp_err *err);
/* perf_dp_exposed with the default calibration through perf_estimate's
 * DP memo (the same bits; a hit skips the stage). */
int perf_dp_exposed_memo(const struct cluster *c, const struct model_spec *m,
			 const struct plan *p, double *dp_s, struct hp_err *err);
/* perf_dp_exposed_memo of p at other DP degrees: perf_dp_sweep_begin
 * keeps p's stages (copied) and the keys of their DP memo entries, and
 * returns the sweep's serial (0: no sweep, with err set where p is not a
 * valid plan; p too large for the sweep leaves err alone); then
 * perf_dp_sweep_at(serial, c, m, N, mb, dp_s) gives perf_dp_exposed_memo's
 * bits for p with N replicas in all (the same groups at counts summing
 * to N, each at least 1) and, for mb > 0, every group's batch_share
 * mb * mbs / gbs (required under ZeRO-3 and DeepSpeed ZeRO-2, where the DP terms read it;
 * mb 0 leaves the shares), returning 0, or -1 when the serial is not the
 * thread's current sweep or c, m or the memo changed since (begin
 * again). One sweep a thread; a begin ends the one before. */
unsigned long perf_dp_sweep_begin(const struct cluster *c, const struct model_spec *m,
				  const struct plan *p, struct hp_err *err);
int perf_dp_sweep_at(unsigned long serial, const struct cluster *c, const struct model_spec *m,
		     int dp, int mb, double *dp_s);
/* perf_estimate's e->stages alone, bit for bit (times, memory and
 * capacity of each stage; for the planner's layout probes, which read
 * nothing else): the rest of e is not computed (zero). Same inputs,
 * checks and errors as perf_estimate; call estimate_free(). */
int perf_stage_times(const struct cluster *c, const struct model_spec *m,
		     const struct plan *p, const struct perf_calib *calib, struct estimate *e,
		     struct hp_err *err);
/* perf_stage_times (default calibration) of p with every stage of every
 * replica group at layers [first[v], last[v]], for v < n in turn (p's
 * stages are rewritten; left at the last range): each estimate is given
 * to take(arg, v, e), then freed. The same bits, checks and errors as n
 * calls, the context set up once (the planner's layout probes). Returns
 * 0, or -1 with err (the ranges before the failing one given to take). */
int perf_stage_times_each(const struct cluster *c, const struct model_spec *m,
			  struct plan *p, const int *first, const int *last, int n,
			  void (*take)(void *arg, int v, const struct estimate *e), void *arg,
			  struct hp_err *err);
/* perf_estimate's memory alone, bit for bit: each stage record's memory
 * fields, e->fits, worst_over_bytes and worst_stage, the rest zero (the
 * planner's memory check before a whole estimate; perf.c says which
 * fields). Same inputs, checks and errors as perf_estimate; call
 * estimate_free(). */
int perf_stage_memories(const struct cluster *c, const struct model_spec *m,
			const struct plan *p, const struct perf_calib *calib, struct estimate *e,
			struct hp_err *err);
/* Free e's stages (e itself is the caller's); e may be reused. Safe on
 * an estimate perf_estimate failed on or already freed. */
/* The stage that fills its GPU most (its total with the allocator's
 * reserve over its capacity; a stage of no capacity counts as full):
 * what the plan's memory line names. NULL for an estimate of no stages. */
const struct perf_stage *estimate_fullest_stage(const struct estimate *e);
void estimate_free(struct estimate *e);

/* "tp", "pp", "dp", "cp", "ep" (static). d must be a perf_dim (assert). */
const char *perf_dim_name(enum perf_dim d);

/* Efficiency of one GEMM (M x K) * (K x N) on gpu at dtype: the fraction
 * of perf_peak the model credits, in (0, 1]. Never fails. */
double perf_gemm_eff(const struct perf_calib *k, const struct gpu_spec *gpu,
		     enum hp_dtype dt, double M, double N, double K);

/* The 16-bit GEMM ceiling of gpu in FLOP/s: its fp16 peak x its
 * generation's gemm16 x its sustained-clock factor (power limit, measured
 * square-GEMM rate against the generation's reference part; clock_frac in
 * src/perf_compute.c), before tile and main-loop losses. Never fails. */
double perf_gemm16_ceiling(const struct perf_calib *k, const struct gpu_spec *gpu);

/* Efficiency of one flash-attention kernel on generation gen (gen3: the
 * cuDNN / FA3 class where the generation has one), forward or backward,
 * at head dim d and key length s, causal or not: the fraction of the
 * 16-bit peak (src/perf_compute.c, docs/attention.md). Never fails. */
double perf_attn_eff(const struct perf_calib *k, enum hp_gen gen, int gen3, int bwd,
		     double head_dim, double s, int causal);

/* The training path's attention ramp at sequence s: the fraction of the
 * generation's in-training attention rate a layer of s tokens reaches,
 * s / (s + attn_s_half) up to 8,192 tokens and flat past it, where the
 * published kernels stop speeding up (src/perf_compute.c,
 * ATTN_RAMP_S_MAX_TOKENS). 0 for s <= 0. Never fails. */
double perf_attn_train_ramp(const struct perf_calib *k, double s);

/* fmax and fmin, bit for bit as glibc's x86-64 libm computes them
 * (sysdeps/x86_64/fpu/s_fmax.S: maxsd, which returns its second operand
 * unless the first is greater, and the other operand when one is a quiet
 * NaN), without a call: the stage functions take about 10 million of
 * them in a Mixtral 8x22B search (issue 13, eighth round), and the
 * planner's candidate loops (search.c) as many. On other
 * targets they may differ from libm only in the sign of a zero result,
 * which C leaves to the implementation. */
static inline double perf_fmax(double a, double b)
{
	return a > b || b != b ? a : b;
}

static inline double perf_fmin(double a, double b)
{
	return a < b || b != b ? a : b;
}

#endif
