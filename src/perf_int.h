/* perf_int.h — the stages of the training performance model, shared by
 * perf.c (the orchestrator), perf_compute.c (kernels on one GPU),
 * perf_comm.c (TP/CP/EP/PP/DP communication) and perf_mem.c (memory per
 * GPU). Private to those files.
 *
 * One stage of one replica group is evaluated in a struct stage_ctx: the
 * inputs (cluster, model, plan, constants, the stage's pool and GPU) are
 * set by perf.c; each stage function fills its own part of the outputs. */
#ifndef HP_PERF_INT_H
#define HP_PERF_INT_H

#include "perf.h"

#include <stdint.h>

/* Forward costs of one layer of one kind on one GPU, per micro-batch
 * (perf_compute.c fills it; perf_memo.c keeps it). */
struct layer_cost {
	double gemm;      /* s, forward GEMMs */
	double gemm_b;    /* s, backward GEMMs (data and weight gradients) */
	double attn_f;    /* s, attention core forward */
	double attn_b;    /* s, attention core backward */
	double ew;        /* s, memory-bound ops forward */
	double ew_scores; /* s, the part of ew spent on s x s tensors */
	double kernels;   /* kernels launched forward */
	double colls;     /* of which NCCL collectives */
	double syncs;     /* host waits for the device per forward (MoE dispatch) */
	double act;       /* bytes kept for backward (with the plan's recompute) */
	double act_norc;  /* bytes without recompute (working set) */
	double rc_frac;   /* op-level selective: share of GEMM time run again */
	double rc_mod;    /* s, the forward of the recompute_modules the
			   * layer runs again (perf_compute.c rc_modules_time) */
	double rc_skip;   /* s, the part of the forward a full recompute under
			   * remat_dce (framework.h) leaves out: the MLP's
			   * down GEMM, the residual add after it and their two
			   * kernels' gaps; 0 on the other rows */
	double params;    /* non-expert params on this GPU */
	double expert_params;
};

/* What a layer's cost depends on besides the cluster, model and
 * constants: the layer kind, the stage's pool and TP, and the plan's
 * settings. All fields are set (unused ones 0) so equal keys compare
 * equal byte for byte. kind: 0 dense layer, 1 MoE layer, 2 the output
 * layer's logits GEMM (only pool, tp, precision, mbs, cp and s), 3 the
 * routed experts' two GEMMs of an MoE stage (those and ep). */
struct layer_key {
	int kind, pool, tp;
	int precision, mbs, cp, ep, sp, flash, recompute, framework;
	double s;
};

/* The links of one pool (b == a) or of two pools: the fabric, site and
 * WAN as a comm_group with no ranks yet, and the link names the
 * communication table shows. Built once per pool pair (perf_memo_link). */
struct perf_link {
	struct comm_group base;
	const char *name_in;     /* link name when a group stays in a node */
	const char *name_out;    /* ... when it leaves the node */
};

/* A communication group: `ranks` GPUs on the links of pools a and b,
 * ranks_per_node of them in each node (both clamped to >= 1, per_node <=
 * ranks). Its comm_group is only built when a collective on it is not in
 * the memo (perf_memo_coll). share: the GPUs of a node whose groups of
 * this kind leave it through its NICs at the same time (a pipeline hand-
 * off: the stage's GPUs on the node, perf_stage_pp); 0: every GPU of the
 * node (or NVLink domain), one group per GPU or per ranks_per_node. */
struct perf_group {
	int a, b;
	int ranks, ranks_per_node;
	int share;
	int wan_flows;   /* groups of this kind crossing the WAN at once when
			  * the group spans two sites (0 or 1: alone): they
			  * share its one link (perf_memo.c build_group) */
	const struct perf_link *link;
};

/* Everything one pipeline stage's evaluation depends on besides the
 * cluster, model and constants: the plan's settings, the replica's depth
 * and micro-batches, the stage's layers and pool and its neighbours'
 * pools. Not the stage's index: times and communication depend on it only
 * through what is here (first stage: prev_pool -1; last: next_pool -1;
 * the tied embeddings' peer: end_pool; the EP overlap's in-line passes:
 * ep_tail), memory also through the micro-batches in flight, which
 * stage_val handles. Set every field (memset first): keys compare as
 * bytes.
 *
 * The micro-batches mb are kept only where a value the entry holds reads
 * them (issue 13, tenth round: the cost objectives meet one replica
 * group at many micro-batch counts, and keying them all made 61% of a
 * DeepSeek-V3 cost search's stage cores misses). Readers of x->mb, by
 * file: perf_comm.c's collective notes (calls and times per step, never
 * kept in an entry: perf.c recomputes the notes of the stages the
 * estimate reports, estimate_notes), ep_overlap_exposed (the EP overlap's
 * in-line passes, only when plan_ep_overlap_on for the group's depth:
 * stage_ctx.ep_ov) and the DP terms that read them (ZeRO-3's per
 * micro-batch gathers, DeepSpeed ZeRO-2's per micro-batch reduce:
 * framework_dp_reads_mb); perf_mem.c's perf_stage_memory_at (the micro-batches in
 * flight), which a hit at another mb runs again as it does at another
 * index. So a stage key holds mb when ep_ov or framework_dp_reads_mb, else 0, and a
 * stage core key (no DP terms) holds it only when ep_ov; ep_tail, read
 * only by ep_overlap_exposed, is 0 unless ep_ov. */
struct stage_key {
	int mbs, precision, recompute, zero, schedule, vpp, cp, ep, sp, flash, loss, master;
	int framework, tp_overlap, grad_overlap, param_overlap;
	int grad_fp32;                /* the plan's setting + 1 (0: the framework's),
				       * and grad_accum_fusion + 1 above bit 4 */
	int ep_tail;                  /* with EP > 1 and PP > 1, pp - index: the EP
				       * overlap's in-line passes depend on the
				       * rank (perf_comm.c ep_overlap_exposed);
				       * else 0 */
	int dp, other_pool, pp, mb, pool, tp;
	/* the stage's layers, and of them MoE layers: all a stage's values
	 * read of its layer range (stage_key_layers) */
	int layers, moe_layers;
	int prev_pool, next_pool;     /* -1: none (the first / last stage) */
	int end_pool;                 /* the first stage: the last's pool; the last:
				       * the first's (the tied embeddings' peer); else -1 */
	int cross;                    /* bit 0: the hand-off to the previous stage
				       * leaves the node; bit 1: to the next
				       * (perf_pp_boundary_crosses); above bit 2 the
				       * replica group's wan_dp (struct stage_ctx) */
	double s;
};

/* A stage's layer range as its key holds it: the number of layers and
 * of MoE layers. Every value a stage entry holds reads the range only so:
 * perf_stage_compute costs one layer of each kind (model_layer_is_moe,
 * the only reader of a layer's index in model.c: dense layers come
 * first, then MoE layers, all alike) times their counts; perf_comm.c and
 * perf_mem.c read the count of layers and of dense layers. Only the
 * record's first_layer and last_layer name the range, and a hit takes
 * them from the plan (perf.c). So one entry serves every stage of that
 * shape, wherever its layers lie (issue 13, tenth round: the middle
 * stages of a DeepSeek-V3 pipeline, four MoE layers each). */
static inline void stage_key_layers(const struct model_spec *m, const struct stage *st,
				    struct stage_key *key)
{
	key->layers = st->last_layer - st->first_layer + 1;
	key->moe_layers = model_moe_layers_in(m, st->first_layer, st->last_layer);
}

/* What a stage's evaluation yields: the stage (its group and index are
 * the caller's) and the exposed DP time and optimizer time per step. Not
 * its collective notes (perf.c, estimate_notes). */
struct stage_val {
	struct perf_stage ps;
	double dp_exposed, opt_s;
	/* ps's memory was computed at this stage index and micro-batch
	 * count; at another, only perf_stage_memory_at runs again, from
	 * perf_stage_compute's outputs it reads (the index and mb set only
	 * the micro-batches in flight there; the model state and NCCL's
	 * buffers are ps's) */
	int index, mb;
	double act, act_work, params, eparams, unit, bw_hbm;
	/* 0: put by perf_stage_times, without the DP sync and the optimizer
	 * (dp_exposed and opt_s zero); a whole estimate takes such an entry
	 * for a miss and puts a whole one in its place, so only its ps and
	 * memory inputs are ever read */
	int has_dp;
	/* 1: computed for a plan with a pp_layout, whose activations in
	 * flight follow its chunks (pp_layout_inflight), which the key does
	 * not hold: a hit where this or the plan asking has a layout runs
	 * perf_stage_memory_at again (stage_from_hit); the times and the
	 * rest of the memory read no layout */
	int layout;
};

/* What a stage's evaluation yields before its DP sync and memory, the
 * only parts that read the DP degree (perf_stage_dp, perf_mem.c; the
 * pipeline's hand-offs read it through stage_key.cross): the stage record
 * with its times (the memory fields 0, group and index the caller's),
 * and perf_stage_compute's outputs, which the DP sync and the memory
 * read. Kept per stage key with dp 0 (and mb 0 unless ep_ov: struct
 * stage_key) (perf_memo_core): a search meets one stage at many DP
 * degrees and micro-batch counts. */
struct stage_comp {
	double fwd, bwd, rc, host_stall, attn_fwd, attn_bwd_ratio, gemm_fwd;
	double act, act_work, params, eparams, unit, bw_hbm;
	double moe_fwd, moe_bwd, moe_expert_fwd;   /* perf_stage_ep's, after a core hit */
	double ep_one;   /* perf_stage_ep's one dispatch (stage_ctx.ep_one) */
	int moe_layers;
};
struct stage_core {
	struct perf_stage ps;
	struct stage_comp c;
};

/* perf_stage_compute's outputs that perf_stage_memory reads (perf_mem.c:
 * the activations kept and worked on, the parameters on the GPU and the
 * largest unit ZeRO-3 gathers). perf_stage_compute reads, besides the
 * cluster, model and constants: the plan's mbs, cp, ep, sp, flash,
 * recompute, precision and framework, the sequence, the stage's TP,
 * pool (its GPU) and layers, whether it is first or last, and the
 * pipeline's depth (a last stage's output layer when pp > 1); not the DP
 * degree, the micro-batches, the neighbours' pools, the node crossings
 * nor the other site's pool. So they are kept per stage key with those
 * cleared (perf.c, stage_mem_inputs; perf_memo_mem) for the planner's memory
 * check (perf_stage_memories), which meets one stage in many replica
 * mixes (issue 13, ninth round). */
struct stage_mem_in {
	double act, act_work, params, eparams, unit;
};

/* A stage's memory but for what its index and micro-batches set: what
 * perf_stage_memory puts into the record before perf_stage_memory_at
 * (weights, grads, optimizer, other, outside, capacity), and the outputs
 * of perf_stage_compute that perf_stage_memory_at reads (act, act_work,
 * unit). perf_stage_memory reads, besides those outputs and the cluster,
 * model and constants: the DP, CP, TP, EP and PP degrees, the plan's
 * zero, precision (and FP8-parameter bit), master, framework, grad_fp32,
 * schedule, tp_overlap and sp, the micro-batch's tokens (mbs, s, cp), the
 * stage's pool (its GPU and NCCL's buffers) and whether it is first or
 * last; not the index, the micro-batches, the neighbours' pools, the node
 * crossings nor the other site's pool. So they are kept per key of
 * struct stage_mem_in with the DP degree set (perf.c, stage_mem_state;
 * perf_memo_memst): the planner's memory check meets one stage in many
 * replica mixes at one DP degree (issue 13, tenth round). */
struct stage_mem_state {
	double weights, grads, optimizer, other, outside, capacity;
	double act, act_work, unit;
};

/* perf_memo.c: what perf_estimate computes again and again for the same
 * cluster, model and constants, kept per thread (no lock: several threads
 * may estimate at once). perf_memo_open compares the inputs' contents
 * with the ones the memo was filled for and starts over when they differ,
 * so a cluster edited in place is never served stale values. It returns
 * this thread's memo (allocated on first use, freed when the thread
 * exits; out of memory aborts) and never fails. */
struct perf_memo;
struct perf_memo *perf_memo_open(const struct cluster *c, const struct model_spec *m,
				 const struct perf_calib *k);
/* Whole-model parameter counts. */
const struct param_count *perf_memo_params(struct perf_memo *mo);
/* The memo's generation: it changes whenever perf_memo_open starts over. */
uint64_t perf_memo_epoch(const struct perf_memo *mo);
/* model_step_flops and model_step_hw_flops for this step. */
void perf_memo_step_flops(struct perf_memo *mo, double tokens, double s, enum hp_recompute rc,
			  double *model, double *hw);
/* The links of pools a and b (b == a: a alone). Built once per pool
 * pair; valid until the next perf_memo_open on this thread. */
const struct perf_link *perf_memo_link(struct perf_memo *mo, int a, int b);
/* comm_time(group, op, bytes, AUTO, AUTO) of group g (the comm_group is
 * built from g's links and the NIC share of its pool a's nodes). Returns
 * comm_time's status; on 0, r gets the time, algorithm and protocol, its
 * bandwidths 0 (not kept: nothing in perf reads them), the same whether
 * the memo held the collective or not. */
int perf_memo_coll(struct perf_memo *mo, const struct perf_group *g, enum comm_coll op,
		   double bytes, struct comm_result *r);
/* The hash of the fields of a stage key that every stage of a replica
 * group shares (all but pool, tp, layers, moe_layers, prev_pool,
 * next_pool, end_pool and cross), computed once per group; the stage
 * table's slot mixes it with the stage's own fields. */
uint64_t perf_memo_stage_h0(const struct stage_key *key);
/* The cached stage for key (h0: perf_memo_stage_h0 of key), or NULL;
 * perf_memo_stage_put stores one: it returns the entry for key, for the
 * caller to fill before any other call on this memo (filled in place: a
 * stage_val is about 0.3 KB). */
const struct stage_val *perf_memo_stage(struct perf_memo *mo, const struct stage_key *key,
					uint64_t h0);
struct stage_val *perf_memo_stage_put(struct perf_memo *mo, const struct stage_key *key,
				      uint64_t h0);
/* The same for the stage cores (key: a stage key with dp 0; h0: its
 * perf_memo_stage_h0), in a table of their own. */
const struct stage_core *perf_memo_core(struct perf_memo *mo, const struct stage_key *key,
					uint64_t h0);
struct stage_core *perf_memo_core_put(struct perf_memo *mo, const struct stage_key *key,
				      uint64_t h0);
/* The same for the memory inputs (key and h0 as perf.c's
 * stage_mem_inputs builds them), in a table of their own. */
const struct stage_mem_in *perf_memo_mem(struct perf_memo *mo, const struct stage_key *key,
					 uint64_t h0);
struct stage_mem_in *perf_memo_mem_put(struct perf_memo *mo, const struct stage_key *key,
				       uint64_t h0);
/* The same for the memory states (key: a memory-input key with the DP
 * degree set; h0: its perf_memo_stage_h0), in a table of their own. */
const struct stage_mem_state *perf_memo_memst(struct perf_memo *mo, const struct stage_key *key,
					      uint64_t h0);
struct stage_mem_state *perf_memo_memst_put(struct perf_memo *mo, const struct stage_key *key,
					    uint64_t h0);
/* The exposed DP sync of a stage (perf_stage_dp's value) per key: what
 * the stage key would hold with prev_pool and next_pool 0 unless -1
 * (first / last), cross and ep_tail 0 (perf.c, stage_dp_key), in three
 * words (struct dp_key). perf_stage_dp reads, besides the cluster, model
 * and constants: perf_stage_compute's outputs (params, eparams, fwd,
 * bwd, rc: functions of the stage's pool, TP, layers, first / last, the
 * pipeline's depth and the plan, as struct stage_mem_in says), the DP,
 * CP and EP degrees, the other site's pool, the plan's settings (zero,
 * framework, grad_fp32, grad_overlap, param_overlap, precision's
 * FP8-parameter bit, master), the micro-batches under ZeRO-3, and for
 * tied embeddings the peer's pool (end_pool); not the neighbours' pools,
 * the node crossings nor the EP overlap's rank. Of the pipeline's depth
 * it reads only whether it is above 1 (the output layer on the last
 * stage, DeepSpeed's reduce after the drain), but for the tied
 * embeddings' sync on the first and last stages, whose node test reads
 * pp itself: the key holds pp there, else min(pp, 2); end_pool only
 * there (else -1). The plan's settings (and the sequence length the plan
 * or the model gives) enter as the serial of the plan's settings
 * (perf_memo_glob), which stands for every field of the plan but its
 * replicas. */
struct dp_key {
	uint64_t glob;     /* perf_memo_glob's serial | ZeRO-3's mb << 40 */
	uint64_t stage;    /* pool | other_pool + 1 << 4 | end_pool + 1 << 9 |
			    * pp << 14 | tp << 22 | layers << 32 |
			    * moe_layers << 44 | (prev_pool >= 0) << 56 |
			    * (next_pool >= 0) << 57 | wan_dp << 58 */
	uint32_t dp;
};
/* The serial of p's settings on this memo (every field of struct plan
 * but its replicas): equal serials, equal settings; a serial is never
 * given twice on a thread. */
uint64_t perf_memo_glob(struct perf_memo *mo, const struct plan *p);
/* The cached DP sync for key, or NULL; perf_memo_dp_put stores one. */
const double *perf_memo_dp(struct perf_memo *mo, const struct dp_key *key);
void perf_memo_dp_put(struct perf_memo *mo, const struct dp_key *key, double dp_exposed);
/* Ask the cache for key's slot ahead of perf_memo_dp (reads nothing). */
void perf_memo_dp_ahead(const struct perf_memo *mo, const struct dp_key *key);
/* perf_stage_compute's outputs (struct stage_comp) for a DP memo key's
 * settings and stage, its DP degree not read (perf.c, dp_compute_memo),
 * or NULL; perf_memo_comp_put gives the entry to fill. */
const struct stage_comp *perf_memo_comp(struct perf_memo *mo, const struct dp_key *key);
struct stage_comp *perf_memo_comp_put(struct perf_memo *mo, const struct dp_key *key);
/* The collective notes of one stage (perf.c, estimate_notes): kind 0,
 * every dimension as stage_front then perf_stage_dp note them; kind 1,
 * the DP sync's alone (perf_stage_compute then perf_stage_dp). Keyed by
 * the stage key with mb set whatever the plan (the notes' calls and
 * times per step scale with it): the notes read nothing else of the
 * stage but what its values read (struct stage_key). The cached
 * DIM_COUNT notes, or NULL; perf_memo_notes_put returns the entry's, for
 * the caller to fill before any other call on this memo. */
const struct perf_comm *perf_memo_notes(struct perf_memo *mo, const struct stage_key *key,
					int kind);
struct perf_comm *perf_memo_notes_put(struct perf_memo *mo, const struct stage_key *key,
				      int kind);
/* NCCL's buffers on one GPU (perf_mem.c, nccl_bytes) per what they
 * depend on: the stage's pool, its TP, CP, DP and PP degrees, the plan's
 * EP degree, whether the schedule is interleaved, and whether the stage
 * is first (bit 0) or last (bit 1). All fields set (keys compare as
 * bytes). */
struct nccl_key {
	int pool, tp, cp, dp, pp, ep, interleaved, ends;
};
/* The cached bytes for key, or NULL; perf_memo_nccl_put stores them. */
const double *perf_memo_nccl(struct perf_memo *mo, const struct nccl_key *key);
void perf_memo_nccl_put(struct perf_memo *mo, const struct nccl_key *key, double bytes);
/* The cached cost for key, or NULL; perf_memo_layer_put stores one. */
const struct layer_cost *perf_memo_layer(struct perf_memo *mo, const struct layer_key *key);
void perf_memo_layer_put(struct perf_memo *mo, const struct layer_key *key,
			 const struct layer_cost *lc);
/* An array of n stage records, not zeroed (the caller writes each record
 * whole, padding included: perf.c zeroes a record before it computes one
 * and copies a memo entry's whole record, itself zeroed so): a spare of
 * exactly n this thread's estimate_free kept, else xmalloc (out of memory
 * aborts). */
struct perf_stage *perf_memo_stages_take(int n);
/* Keep s (n records, from any allocator of this library: calloc / malloc)
 * as this thread's spare of size n, or free it when there is one already,
 * n is out of range or this thread has no memo. */
void perf_memo_stages_give(struct perf_stage *s, int n);

/* The layers of a plan on each pool (bit l of layers[i], for pool i in
 * used; other rows are not cleared and never read: some replica
 * group of one replica or more holds layer l on pool i), for the stages'
 * DP peers (perf_peers_of). Models of up to 64 x PERF_PEER_WORDS layers
 * (405B has 126); beyond, PEERS_DIRECT: perf_dp_peer per stage. */
enum { PERF_PEER_WORDS = 2 };
enum { PEERS_NONE, PEERS_BITS, PEERS_DIRECT };
struct perf_peers {
	int how;              /* PEERS_NONE: one replica group, no peers */
	int sites;            /* 1: the used pools are at two sites or more */
	unsigned used;        /* the pools holding a stage */
	int last_pool, last_first, last_last, last_peer;   /* the last stage asked */
	uint64_t layers[HP_MAX_POOLS][PERF_PEER_WORDS];
};

struct stage_ctx {
	/* inputs */
	const struct cluster *c;
	const struct model_spec *m;
	const struct plan *p;
	const struct perf_calib *k;
	const struct replica *rep;
	const struct pool *pl;
	const struct gpu_spec *g;
	struct perf_memo *memo;  /* this thread's memo for c, m, k */
	const struct param_count *pc; /* whole-model parameter counts */
	int index, pp, mb;       /* stage in the pipeline, depth, micro-batches */
	int ep_ov;               /* plan_ep_overlap_on(p, pp) for the replica group */
	/* the stage memo's key with the fields every stage of the replica
	 * group shares set (ctx_init, ctx_replica), the rest 0 */
	struct stage_key key0;
	uint64_t key_h0;         /* perf_memo_stage_h0(&key0) */
	uint64_t core_h0;        /* the same of key0 with dp 0, when core_h0_set */
	int core_h0_set;
	uint64_t glob;           /* perf_memo_glob(memo, p), when glob_set
				  * (perf.c, stage_dp_key) */
	int glob_set;
	/* perf_pp_boundary_crosses(x, index - 1) and (x, index), set by
	 * perf.c for every stage (each boundary computed once per replica
	 * group: the previous stage's next is this one's previous) */
	int cross_prev, cross_next;
	int tp, cp, dp;
	/* the plan's effective settings, once per estimate, by the first
	 * stage function that reads them (fw NULL: not yet;
	 * perf_ctx_settings): the framework row and plan_tp_overlap,
	 * plan_grad_overlap, plan_param_overlap and plan_grad_fp32 */
	const struct framework_info *fw;
	int tp_ov, grad_ov, param_ov, grad_fp32;
	/* perf_comm.c's links from pool link_pool, looked up on first use
	 * (perf_memo_link): alone, and with other_pool (NULL: not yet) */
	int link_pool;
	const struct perf_link *link_own, *link_other;
	int first, last;         /* first / last stage of the pipeline */
	int ckpt;                /* layers run forward again before backward */
	int other_pool;          /* the stage's DP peer pool (perf_dp_peer), or -1;
				  * before the first stage, the plan's (plan_pools) */
	int wan_dp;              /* the replica group's DP groups that cross a WAN
				  * together: the TP degrees summed over its stages
				  * whose DP peer is at another site, where two
				  * stages or more do; else 0 (ctx_replica) */
	struct perf_peers peers; /* ctx_init's, for stage_peer */
	double s;                /* sequence length */
	double T;                /* tokens per micro-batch on one CP rank */
	double v;                /* model chunks per stage (1 unless interleaved) */

	/* perf_stage_compute: per micro-batch on one GPU (struct stage_core
	 * keeps those read after a core hit: perf.c's core_save and core_load
	 * copy each, so a new one read then goes there too; moe_fwd, moe_bwd
	 * and moe_expert_fwd are read only by perf_stage_ep, which a core hit
	 * runs again under the EP overlap: perf.c, stage_front_memo) */
	double fwd, bwd, rc;     /* s */
	double host_stall;       /* s, GPU idle waiting for the host, per micro-batch */
	double attn_fwd;         /* s, attention core forward, all layers */
	double attn_bwd_ratio;   /* attention backward / forward */
	double gemm_fwd;         /* s, GEMM forward, all layers (hides TP overlap) */
	int moe_layers;          /* MoE layers held by the stage */
	double moe_fwd, moe_bwd; /* s, one MoE layer forward / backward (0: none) */
	double moe_expert_fwd;   /* s, of moe_fwd: the routed experts' grouped
				  * GEMMs (what the EP overlap's middle phase
				  * runs beside two all-to-alls; perf_comm.c) */
	double ep_one;           /* s, one dispatch all-to-all of the stage, set
				  * by perf_stage_ep (0 without EP) for
				  * perf_stage_ep_again */
	double act, act_work;    /* bytes kept per micro-batch; one layer's working set */
	double params, eparams;  /* non-expert and expert parameters on this GPU */
	double unit;             /* the largest unit ZeRO-3 gathers whole */
	double bw_hbm;           /* achieved HBM bandwidth, bytes/s */
};

/* perf_offload.c: what ZeRO-Offload costs x's stage a step into *o, with
 * the stage's backward of bwd_s a micro-batch (what the gradient copies
 * hide behind under overlap_comm); o all 0 unless the plan offloads. */
/* perf_offload.c: o's host side a node against the node's host memory.
 * per_gpu[i]: the host bytes a GPU of stage record i (p's replica groups'
 * stages in order, as struct estimate's stages; perf_offload_cost's or
 * perf_act_offload_cost's host_bytes_per_gpu). Every stage's GPUs are
 * placed on their pool's nodes (the comm model's rule) and each node's
 * GPUs summed; o gets the fullest node (the highest need / usable over
 * pools whose host memory is known, pool_host_mem_gb times
 * HOST_MEM_USABLE_SHARE; else the highest need): host_bytes_per_node,
 * gpus_per_node (its GPUs that offload), host_pool, host_mem_bytes and
 * host_usable_bytes (0: unknown, nothing checked), host_over 1 when its
 * need is larger. */
void perf_offload_host_nodes(const struct cluster *c, const struct plan *p,
			     const double *per_gpu, struct perf_offload *o);
void perf_offload_cost(const struct stage_ctx *x, double bwd_s, struct perf_offload *o);

/* perf_offload.c: what activation offload (offload = activations) costs
 * x's stage a step into *o, the stage's forward and backward taking fwd_s
 * and bwd_s a micro-batch; o all 0 unless the plan offloads activations. */
void perf_act_offload_cost(const struct stage_ctx *x, double fwd_s, double bwd_s,
			   struct perf_offload *o);

/* perf_offload.c: g's link to host memory, one direction, bytes/s: PCIe
 * x16 at its generation, or its share of a Grace superchip's NVLink-C2C. */
double perf_host_link_Bps(const struct gpu_spec *g);

/* perf_mem.c: one layer's saved activations of x's stage, one micro-batch,
 * bytes (what activation offload copies per layer); 0 without it. */
double perf_act_offload_layer_bytes(const struct stage_ctx *x);
/* The forward FLOPs a token's recompute_modules (bits mods) run again
 * over the whole model (perf_compute.c); 0 without them. */
double perf_rc_modules_flops(const struct model_spec *m, unsigned mods);
/* Bytes recompute_modules' bits mods free from layer's saved activations
 * (perf_mem.c: each module's count). */
double perf_rc_modules_freed(const struct model_spec *m, int layer, const struct act_opts *o,
			     unsigned mods);

/* perf.c: x's plan settings (fw, tp_ov, grad_ov, param_ov, grad_fp32);
 * perf_comm.c's stage functions call it when x->fw is NULL (an estimate
 * whose stages all come from the memo never needs them). */
void perf_ctx_settings(struct stage_ctx *x);

/* perf_compute.c: forward, backward and recompute times, activations and
 * parameters of the stage's layers (plus embedding / output on the first /
 * last stage). */
void perf_stage_compute(struct stage_ctx *x);
/* perf_compute.c: bytes one GPU's fp8 casts of a layer's GEMM inputs move
 * forward for T tokens of a micro-batch on TP tp (0 unless p runs fp8). */
double perf_fp8_cast_bytes(const struct model_spec *m, int layer, const struct plan *p, int tp,
			   double T);

/* perf_comm.c: GPUs of pool p on one NVLink fabric (a node, or an NVL72
 * rack): the collectives' "node". */
int perf_domain_gpus(const struct pool *p);
/* 1 when the pipeline hand-off between stages i and i + 1 of x's replica
 * leaves a node (perf_comm.c); 0 otherwise or when either is no stage. */
int perf_pp_boundary_crosses(const struct stage_ctx *x, int i);

/* perf_comm.c: the links a stage's DP and EP groups are costed on, the
 * one source of the communication table's link and dispatch's labels.
 * perf_dp_peer: the pool, besides the stage's own, that the DP group of
 * stage k of replica group r spans, paired with its own in the costed
 * link (perf_memo_link: comm_fabric_min of the two, and the WAN between
 * sites); -1 when every replica holding the stage's layers is on its own
 * pool (one replica group, or groups placing those layers alike). Of
 * several, one at another site first (the WAN bounds the group), else
 * the one of the fewest NIC Gb/s per node: the group runs at its slowest
 * member (a simplification for three pools: the pair's other fabric
 * fields are the two pools', not all three). An EP group is costed on
 * its own node when it fits one (ep <= node / etp), else on the DP
 * group's pools: a simplification, pessimistic where one replica group
 * holds a whole EP group (count x cp x tp >= ep x etp: Megatron-Core
 * carves EP groups out of the DP x CP ranks of consecutive replicas),
 * kept because a stage's time per micro-batch must not read its group's
 * replica count (the search's pipeline keeper, search_group_terms, reuses
 * a layout's terms at every count; tests/test_set_curve.c).
 * perf_link_nic_text: the NICs a group on pools a and b (b -1: a alone)
 * is costed on, as comm_fabric_min keeps them (the fewer NICs, the
 * smaller node total): "4x200G NIC". */
int perf_dp_peer(const struct cluster *c, const struct plan *p, int r, int k);
/* perf_dp_peer from a plan's layers per pool, set once by
 * perf_peers_init (again after the plan's layer ranges move): the same
 * value in time linear in the pools, where perf_dp_peer reads every
 * stage of the plan. */
void perf_peers_init(struct perf_peers *pp, const struct cluster *c, const struct plan *p);
int perf_peers_of(struct perf_peers *pp, const struct cluster *c, const struct plan *p, int r,
		  int k);
void perf_link_nic_text(const struct cluster *c, int a, int b, char *buf, size_t n);
/* The communication table's names of the link a group on pools a and b
 * (b -1: a alone) is costed on, each truncated to n bytes: in, inside
 * the node (the scale-up kind); out, leaving it (the scale-up kind +
 * perf_link_nic_text, marked "(bottleneck)" on two pools: the group is
 * costed at its slower member's NICs); both "WAN 100G" when the pools
 * are at two sites. */
void perf_link_names(const struct cluster *c, int a, int b, char *in, char *out, size_t n);
/* The name of pool pl's scale-up link, the one every table reads (the
 * communication table, plan's "tp links:", reports, the TUI's Detail):
 * "PCIe"; "xGMI" on AMD Instinct parts; "Gaudi RoCE" on Gaudi;
 * "NVSwitch" or "NVLink" (a mesh or bridge without a switch) on NVIDIA. */
const char *perf_scaleup_label(const struct pool *pl);

/* perf_comm.c: exposed communication per micro-batch inside the stage, and
 * the data-parallel synchronisation after the pipeline drains. Each notes
 * its most expensive collective in e->comm; e NULL notes nothing and
 * returns the same time (the notes are a side output: perf.c evaluates
 * stages without them and notes only the stages the estimate reports). */
double perf_stage_tp(struct stage_ctx *x, struct estimate *e);
double perf_stage_cp(struct stage_ctx *x, struct estimate *e);
/* The experts' layout on x's stage (perf_comm.c): the ranks of an EP and
 * of an expert-DP group in one node, and the expert-DP degree. */
void perf_expert_layout(const struct stage_ctx *x, int *ep_per_node, int *edp_per_node);
int perf_expert_dp(const struct stage_ctx *x);
double perf_stage_ep(struct stage_ctx *x, struct estimate *e);
/* perf_stage_ep's value, to the bit, from the dispatch time x->ep_one
 * that perf_stage_ep left for the same stage core (struct stage_key with
 * the DP degree, the micro-batches, the rank and the depth cleared: the
 * dispatch reads none of them), at x's rank, micro-batches and depth:
 * only the EP overlap's exposure reads those. Notes nothing. */
double perf_stage_ep_again(struct stage_ctx *x);
double perf_stage_pp(struct stage_ctx *x, struct estimate *e);
/* Exposed DP time per step (s), after the stage's last backward. */
double perf_stage_dp(struct stage_ctx *x, struct estimate *e);

/* perf_mem.c: memory per GPU of the stage into ps; returns ps->fits. */
int perf_stage_memory(const struct stage_ctx *x, struct perf_stage *ps);
/* The part of it that depends on the stage's index (the micro-batches in
 * flight): activations, slack, total and fits, from ps's weights, grads,
 * optimizer and other as perf_stage_memory set them for the same stage at
 * another index (a stage memo hit). Returns ps->fits. */
int perf_stage_memory_at(const struct stage_ctx *x, struct perf_stage *ps);
/* perf_stage_memory_at's terms that middle stages (neither first nor
 * last) of one stage key share: all but the micro-batches in flight.
 * perf_mem_run_init takes them from x and ps as perf_stage_memory_at
 * would read them at such a stage; perf_mem_run_at is then
 * perf_stage_memory_at, bit for bit, at any middle stage of that key
 * whose record ps holds the same weights, grads, optimizer, other and
 * capacity (perf.c, perf_stage_times: a layout probe's run of stages). */
struct mem_run {
	double base;      /* activations per micro-batch in flight */
	double work;      /* x->act_work, added under checkpointing */
	double sp_work;   /* the SP gathered inputs, added where read */
	double churn_ws, churn_z3, churn_grads, frag1;
	double wgo;       /* weights + grads + optimizer, summed as the total is */
	double other;
	int ckpt, sp_tp;
};
void perf_mem_run_init(const struct stage_ctx *x, const struct perf_stage *ps,
		       struct mem_run *r);
int perf_mem_run_at(const struct stage_ctx *x, const struct mem_run *r, struct perf_stage *ps);
/* Parameters of the stage on one GPU outside its transformer layers
 * (embedding, output layer, final norm), which stay 16-bit in an fp8 run. */
double perf_stage_end_params(const struct stage_ctx *x);

/* Bytes of one activation element of plan p: 4 in an fp32 or tf32 run
 * (the tensors stay fp32; TF32 is only the GEMMs' math mode), else 2
 * (fp16/bf16; an fp8 run's activations between GEMMs are bf16:
 * Transformer Engine casts only inside its GEMMs). */
static inline double perf_act_elem_bytes(const struct plan *p)
{
	return p->precision == HP_FP32 || p->precision == HP_TF32 ? 4 : 2;
}

/* Peak FLOP/s of g at dtype dt (falling back as perf.c documents). */
double perf_peak(const struct gpu_spec *g, enum hp_dtype dt);

#endif
