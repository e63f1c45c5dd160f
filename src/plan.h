/* plan.h — a training parallelization plan.
 *
 * A plan is a set of data-parallel replicas; each replica is a pipeline of
 * stages; each stage is tp x cp GPUs of one pool holding a contiguous range
 * of transformer blocks. Replicas with the same layout are kept as one
 * group with a count, so a uniform plan of DP 1536 is one group. Each
 * replica takes batch_share of the global batch (shares of all replicas sum
 * to 1), so faster replicas can take more.
 *
 * JSON (the `estimate --plan` schema, also printed by the planner):
 *   {"mbs","gbs","precision","recompute","loss","zero","master","schedule","cp","ep","etp",
 *    "moe_dispatch","moe_grouped_gemm","grad_accum_fusion","pp_layout",
 *    "replicas":[{"count","batch_share",
 *                 "stages":[{"pool","tp","first_layer","last_layer"}]}]}
 * layers are 0-based and inclusive; "count" is optional (default 1). */
#ifndef HP_PLAN_H
#define HP_PLAN_H

#include "cluster.h"
#include "model.h"
#include "framework.h"
#include "fields.h"
#include "pp_layout.h"

struct cJSON;

enum hp_schedule { SCHED_1F1B, SCHED_INTERLEAVED };

/* The cross-entropy over the vocabulary. LOSS_FUSED: a fused, in-place
 * kernel (Megatron's vocab-parallel cross-entropy): about one fp32 copy of
 * the logits. LOSS_EAGER: PyTorch's log_softmax + nll_loss on fp32 logits
 * (torchtitan, plain FSDP scripts): the log-softmax output is kept for
 * backward, and its backward holds it, the incoming gradient and the
 * outgoing gradient at once, three fp32 copies of the logits.
 * LOSS_CHUNKED: the output layer and the loss run over the tokens in
 * chunks and the whole logits never exist (Liger's
 * LigerFusedLinearCrossEntropyLoss; LLMQ's --lmhead-chunks): about one
 * chunk's logits and their gradient, perf_mem.c. */
enum hp_loss { LOSS_FUSED, LOSS_EAGER, LOSS_CHUNKED };

/* Where the fp32 master weights and gradients live under ZeRO 0/1.
 * MASTER_SHARDED (Megatron's distributed optimizer, DeepSpeed ZeRO-1 and
 * later BF16 optimizers): fp32 gradients whole on every rank (4 B/param),
 * fp32 master weights and Adam's two moments sharded over data parallel
 * (12 B/param / dp). MASTER_REPLICATED (DeepSpeed's first BF16_Optimizer,
 * early 2022, as BLOOM's pre-flight runs used it): the bf16 gradients stay
 * allocated beside the fp32 ones (2 + 4 B/param), the fp32 master copy is
 * whole on every rank (4 B/param), and only the moments are sharded
 * (8 B/param / dp). ZeRO 2 and 3 shard gradients and master weights, so
 * only MASTER_SHARDED and MASTER_NONE apply there. MASTER_NONE: no fp32
 * master at all, the model itself in bf16 (torchtitan --training.dtype
 * bfloat16, an HF Trainer run on a model loaded with torch_dtype
 * bfloat16, KempnerForge's cast to param_dtype): weights 2 B, gradients
 * 2 B, Adam's two moments 2 + 2 B, sharded by the ZeRO stage as above;
 * bf16 and fp8 plans only (docs/memory.md, Pure bf16). */
enum hp_master { MASTER_SHARDED, MASTER_REPLICATED, MASTER_NONE, MASTER_COUNT };
/* What leaves the GPU for host memory (the offload key). OFFLOAD_NONE:
 * nothing. OFFLOAD_OPTIMIZER: DeepSpeed's ZeRO-Offload (zero_optimization
 * .offload_optimizer {device: cpu}): the fp32 master weights and Adam's
 * moments of the rank's ZeRO partition live in pinned host memory and
 * DeepSpeedCPUAdam steps them on the CPU (perf_offload.c).
 * OFFLOAD_ACTIVATIONS: Megatron-Core's activation offload
 * (--cpu-offloading-num-layers N, the plan's offload_layers): the saved
 * activations of the model's first N layers go to host memory after their
 * forward and come back before their backward (perf_offload.c). */
enum hp_offload { OFFLOAD_NONE, OFFLOAD_OPTIMIZER, OFFLOAD_ACTIVATIONS, OFFLOAD_COUNT };
/* MoE token dispatch, one value per cost model (perf_comm.c
 * ep_dispatch_time): NCCL's all-to-all, one network copy per routed
 * expert (Megatron-Core --moe-token-dispatcher-type alltoall); the flex
 * dispatcher (DeepEP or HybridEP backend), one network copy per
 * destination node (flex); the allgather dispatcher, every token
 * all-gathered over the expert TP x EP group and permuted with torch
 * gather and scatter_add kernels (allgather; docs/moe-seq.md). */
enum hp_moe_dispatch {
	MOE_DISPATCH_ALLTOALL, MOE_DISPATCH_FLEX, MOE_DISPATCH_ALLGATHER, MOE_DISPATCH_COUNT
};

struct stage {
	int pool;             /* index into cluster.pools */
	int tp;
	int first_layer, last_layer;
};

struct replica {
	int count;            /* identical replicas in this group */
	double batch_share;   /* fraction of the global batch, per replica */
	int n_stages;
	struct stage *stages;
};

struct plan {
	int mbs;              /* micro-batch, sequences */
	int gbs;              /* global batch, sequences */
	int seq_len;          /* 0: the model's */
	enum hp_dtype precision;
	enum hp_recompute recompute;
	int zero;             /* 0 DDP, 1 distributed optimizer/ZeRO-1, 2, 3 */
	enum hp_schedule schedule;
	int vpp;              /* model chunks per stage (interleaved) */
	int cp, ep;
	int etp;              /* expert tensor parallel size (Megatron-Core
			       * --expert-tensor-parallel-size); 0: each stage's
			       * TP. Read it through plan_etp() */
	int sp;               /* sequence parallel with TP (default on) */
	int flash;            /* fused flash attention (default on) */
	enum hp_loss loss;    /* how the cross-entropy is computed (default fused) */
	enum hp_master master; /* fp32 master layout (default sharded) */
	enum hp_offload offload; /* what goes to host memory (default none) */
	int offload_layers;   /* with offload activations: the layers whose
			       * activations go (Megatron-Core
			       * --cpu-offloading-num-layers); 0 otherwise */
	enum hp_framework framework; /* what runs it (default FW_ANY) */
	/* Overlaps: -1 = the framework's default, 0 off, 1 on. Read them
	 * through plan_tp_overlap() and friends. */
	int tp_overlap;       /* TP collectives behind GEMMs (--tp-comm-overlap) */
	int grad_overlap;     /* DP gradient reduce behind backward (--overlap-grad-reduce) */
	int grad_fp32;        /* DP gradients reduced in fp32 (--accumulate-allreduce-grads-in-fp32,
			       * DeepSpeed fp32_allreduce) */
	int param_overlap;    /* DP parameter gather behind forward (--overlap-param-gather,
			       * ZeRO-3 / FSDP prefetch) */
	int fp8_params;       /* -1 the framework's default, 0 off, 1 on: an fp8 run keeps
			       * its GEMM weights as FP8 tensors (--fp8-param-gather);
			       * read it through plan_fp8_params() */
	int ep_overlap;       /* -1 the framework's default, 0 off, 1 on: the expert
			       * all-to-alls run beside the other micro-batch's compute
			       * (--overlap-moe-expert-parallel-comm); read it through
			       * plan_ep_overlap() and plan_ep_overlap_on() */
	int moe_dispatch;     /* -1 the framework's default, else an enum
			       * hp_moe_dispatch: how the MoE tokens reach their
			       * experts' ranks (Megatron-Core
			       * --moe-token-dispatcher-type); read it through
			       * plan_moe_dispatch() */
	int moe_grouped_gemm; /* -1 the framework's default, 0 off, 1 on: the routed
			       * experts run as grouped GEMMs (Megatron-Core
			       * --moe-grouped-gemm, TEGroupedMLP) or, off, as a
			       * loop of one MLP per local expert (SequentialMLP);
			       * read it through plan_moe_grouped_gemm() */
	int grad_accum_fusion; /* -1 the framework's default, 0 off, 1 on: the
			       * weight-gradient GEMM accumulates into the main_grad
			       * buffer itself (Megatron's gradient accumulation
			       * fusion); off (--no-gradient-accumulation-fusion) a
			       * separate add per micro-batch. Megatron rows only;
			       * read it through plan_grad_accum_fusion() */
	int opt_impl;         /* -1 the framework's default, else an enum
			       * hp_opt_impl (framework.h): how the optimizer's
			       * Adam runs over the tensors (fused, foreach,
			       * loop); read it through plan_opt_impl() */
	int compile;          /* -1 the framework's default (off), 0 off, 1 on:
			       * torch.compile (Inductor) over each transformer
			       * block, torchtitan's training.compile; read it
			       * through plan_compile() (docs/compile.md) */
	int tp_host_sync;     /* 0 or 1: the host synchronises the device around every
			       * TP collective, so a layer's kernel dispatch no longer
			       * overlaps its device work at TP > 1 (AMP's Megatron-LM
			       * fork times each TP all-reduce with
			       * torch.cuda.synchronize(); plan.c, perf_compute.c) */
	int recompute_layers; /* 0: under recompute full every layer is recomputed;
			       * N > 0: only N layers of each pipeline stage's model
			       * chunk (Megatron --recompute-method block
			       * --recompute-num-layers N), the others keep their
			       * activations; read it through plan_recompute_count() */
	unsigned recompute_modules; /* RCM_* bits: Megatron-Core's selective
				     * recompute modules (--recompute-modules);
				     * 0: unset, the default core_attn; read
				     * it through plan_recompute_modules() */
	/* Megatron-Core's --pipeline-model-parallel-layout (pp_layout.h),
	 * "" when absent: the layers of each virtual stage, which then need
	 * not be a multiple of vpp per rank. Each stage's layer range holds
	 * its rank's layers in all (a count: the rank's chunks are not
	 * contiguous in the model); plan_validate checks the two agree. */
	char pp_layout[PP_LAYOUT_TEXT];
	int n_replicas;       /* groups */
	struct replica *replicas;
};

void plan_init(struct plan *p);
void plan_free(struct plan *p);
void plan_copy(struct plan *dst, const struct plan *src);

/* The layer ranges of the plan's stages from its pp_layout: in each
 * replica group of pp stages whose depth divides the layout's virtual
 * stages (each rank holding a layer), stage s takes rank s's layers
 * (pp_layout_rank_layers), in order. Pools and TP stay; plan_validate
 * checks the rest (VP, E and L). Nothing when the plan has no layout,
 * it does not parse, or it places another number of layers than the
 * model's. Returns the replica groups placed. */
int plan_place_layout(struct plan *p, const struct model_spec *m);

/* A homogeneous plan on one pool: dp replicas of pp stages with tp each,
 * layers split as evenly as possible (the outermost stages hold one less). */
int plan_uniform(struct plan *p, const struct cluster *c, const struct model_spec *m,
		 int pool, int tp, int pp, int dp, struct hp_err *err);

/* Parse the plan JSON; file names it in messages. Options already set in p
 * (mbs, gbs, ...) are overridden by keys present in the file. */
int plan_parse_json(struct plan *p, const char *text, size_t len, const char *file,
		    const struct cluster *c, struct hp_err *err);

/* Check the plan against the cluster and model: divisibility, layer
 * coverage, GPUs available per pool, batch shares, and last the batch
 * (mbs within gbs, whole micro-batches per replica group), so a plan wrong
 * in both is told its shape's fault first, from every entry point. ctx
 * "plan flags" (or a flag, "--tp"): messages name the flag the user typed
 * ("--tp 3 does not divide ..."); any other ctx (a plan file, "edited
 * plan") leads them and the plan-file key follows ("p.json:
 * replicas[0].stages[0].tp 3 does not divide ..."). */
/* The keys that name what a framework's code does (fp8_params, compile,
 * optimizer_impl, grad_reduce_fp32 and the overlaps) against p's
 * framework, precision and ZeRO stage, as plan_validate checks them; a
 * plan without replicas (the planner's settings, `hetplan plan`) is
 * checked on those alone. Returns 0, or -1 with err naming ctx and the
 * key. */
int plan_validate_framework_keys(const struct plan *p, const char *ctx, struct hp_err *err);
int plan_validate(const struct plan *p, const struct cluster *c,
		  const struct model_spec *m, const char *ctx, struct hp_err *err);

/* Can a GPU of pool `pool` run the plan's arithmetic in dtype dt? fp8
 * needs FP8 tensor cores (Hopper, Ada, Blackwell, MI300), bf16 needs
 * bf16 units (not V100 or T4), tf32 needs Ampere or later; fp16 and fp32
 * run everywhere the catalog lists a peak. Returns 0, or -1 with err
 * naming the pool, its GPU and the dtypes it has (ctx names the flag or
 * file). Never falls back silently. */
int plan_check_precision(const struct cluster *c, int pool, enum hp_dtype dt,
			 const char *ctx, struct hp_err *err);

/* The plan's pp_layout parsed (pp_layout_cached: per thread), or NULL
 * when it has none or it does not parse (plan_validate refuses that). */
const struct pp_layout *plan_pp_layout(const struct plan *p);

/* Same settings and the same replica groups and stages. */
int plan_equal(const struct plan *a, const struct plan *b);

/* A zero left unset (negative: no --zero, no plan-file zero) set to the
 * stage p's framework runs unasked at p's pipeline depth (the most
 * stages of any replica group; framework_default_zero). */
void plan_default_zero(struct plan *p);

/* Total replicas, GPUs, and GPUs used per pool (array of HP_MAX_POOLS). */
int plan_dp(const struct plan *p);
int plan_gpus(const struct plan *p, int *per_pool);

/* Sequences of the global batch replica group r runs per step, and its
 * micro-batches. */
double plan_replica_seqs(const struct plan *p, int r);
int plan_replica_microbatches(const struct plan *p, int r);

/* The plan as JSON (same schema), with pool names from c. */
struct cJSON *plan_to_json(const struct plan *p, const struct cluster *c);

const char *plan_recompute_name(enum hp_recompute r);
/* The recompute setting as the views print it: the mode's name, or under
 * `recompute_layers` N with full recomputation "full, first N layers a
 * stage" ("a chunk" when interleaved), so no view calls a partial
 * recomputation full. Writes into buf (n bytes) and returns it. */
const char *plan_recompute_text(const struct plan *p, char *buf, size_t n);
/* "none", "selective", "full", "selective-op" (alias "op"). */
int plan_recompute_parse(const char *s, enum hp_recompute *out);
/* Megatron-Core's selective recompute modules (transformer_config.py
 * recompute_modules; docs/recompute.md says what each recomputes and
 * frees). Bits of plan.recompute_modules, in Megatron's order. */
enum {
	RCM_CORE_ATTN = 1 << 0,      /* the attention core (the default) */
	RCM_MOE_ACT = 1 << 1,        /* the routed experts' activation function */
	RCM_LAYERNORM = 1 << 2,      /* input_layernorm and pre_mlp_layernorm */
	RCM_MLA_UP_PROJ = 1 << 3,    /* MLA's q/kv up projections and RoPE */
	RCM_MLP = 1 << 4,            /* the dense layers' MLP */
	RCM_MOE = 1 << 5,            /* the whole MoE layer */
	RCM_SHARED_EXPERTS = 1 << 6, /* the MoE layer's shared experts */
	RCM_COUNT = 7,
	RCM_ALL = (1 << RCM_COUNT) - 1,
};
/* The name of module bit i (0 .. RCM_COUNT-1): "core_attn" ... */
const char *plan_recompute_module_name(int i);
/* Parse a comma list of module names ("mlp,moe_act"; spaces around the
 * names allowed) into RCM_* bits: 0, or -1 on an empty list, an empty
 * or unknown name (*bad gets the first offending name, bounded, when
 * bad is not NULL). */
int plan_recompute_modules_parse(const char *s, unsigned *out, char *bad, size_t n);
/* The bits as a comma list in Megatron's order ("" for 0). */
const char *plan_recompute_modules_text(unsigned bits, char *buf, size_t n);
/* The modules in force: under recompute selective the key's bits, or
 * RCM_CORE_ATTN when it is unset (Megatron-Core's default); 0 under
 * any other recompute. */
unsigned plan_recompute_modules(const struct plan *p);
/* Whether the attention core is recomputed as hetplan's selective
 * recompute always did: recompute selective with core_attn among its
 * modules. */
int plan_recompute_core_attn(const struct plan *p);
const char *plan_loss_name(enum hp_loss l);
const char *plan_offload_name(enum hp_offload o);
int plan_offload_parse(const char *s, enum hp_offload *out);
int plan_loss_parse(const char *s, enum hp_loss *out);
const char *plan_master_name(enum hp_master m);
int plan_master_parse(const char *s, enum hp_master *out);
/* The overlap settings in force: the explicit key, else the framework's
 * default (framework.h). */
int plan_tp_overlap(const struct plan *p);
/* Layers a stage of `layers` transformer layers in vpp model chunks
 * recomputes in full: all of them under recompute full with
 * recompute_layers 0, min(recompute_layers x vpp, layers) with it set
 * (Megatron's block method recomputes the first N layers of every chunk;
 * simplified: chunks taken as holding at least N layers each), 0 unless
 * the plan's recompute is full. */
int plan_recompute_count(const struct plan *p, int layers);
int plan_grad_overlap(const struct plan *p);
int plan_param_overlap(const struct plan *p);
/* Whether data-parallel gradients are reduced in fp32 (4 bytes) rather than
 * the 16-bit dtype: the key, else the framework's default. */
int plan_grad_fp32(const struct plan *p);
/* Whether the run keeps its GEMM weights in FP8 (Megatron-Core
 * --fp8-param-gather): 1 only for an fp8 plan with the distributed
 * optimizer (zero 1 or 2) whose key is on, or absent and its framework's
 * default on (framework.h); 0 otherwise. An explicit "on" outside those
 * plans, or under a framework other than megatron-core (or any), is
 * refused by plan_validate. */
int plan_fp8_params(const struct plan *p);

/* The expert all-to-all overlap the plan asks for: its ep_overlap key, or
 * absent, its framework's default (framework.h ep_overlap). Whether a
 * piece of pp stages runs it is plan_ep_overlap_on. */
int plan_ep_overlap(const struct plan *p);

/* 1 when a piece of the plan with pp stages hides its expert all-to-alls
 * (plan_ep_overlap, and Megatron-Core's checks: framework_ep_overlap_on).
 * perf_comm.c costs it and launch.c writes its flags through this one
 * function, so the two cannot disagree. */
int plan_ep_overlap_on(const struct plan *p, int pp);

/* The expert tensor-parallel size of a stage of TP tp: the plan's etp
 * key, or absent (0), tp (Megatron-Core's default: arguments.py
 * @d98e8a64 L587-588 sets expert_tensor_parallel_size to
 * tensor_model_parallel_size when it is None). */
int plan_etp(const struct plan *p, int tp);

/* 1 when a stage of TP tp runs its experts on a layout of their own
 * (Megatron-Core's MoE parallel folding): plan_etp(p, tp) != tp. */
int plan_ep_folded(const struct plan *p, int tp);

/* Whether framework f's model code runs model m: a model with experts
 * needs a row with MoE layers (framework.h's moe; the estimate-only rows
 * are dense), at any EP. Returns 0, or -1 with err set (HP_EXIT_INPUT,
 * ctx first, naming the framework and the model). plan_validate applies
 * it to the plan's framework; `plan --framework` to its flag before the
 * search. Never fails otherwise. */
int plan_framework_model(enum hp_framework f, const struct model_spec *m, const char *ctx,
			 struct hp_err *err);

/* 1 when a stage runs MoE layers at TP > 1 with sequence parallelism
 * off, which Megatron's MoELayer.forward refuses in training
 * (moe_layer.py @001199898c4b); *rep and *stage (either may be NULL) the
 * first such stage. 0 when none does. */
int plan_moe_tp_without_sp(const struct plan *p, const struct model_spec *m, int *rep,
			   int *stage);

/* The MoE token dispatcher the plan is costed and launched with on
 * cluster c, decided here and nowhere else: its moe_dispatch key, or
 * absent, its framework's (framework.h ep_dispatch_dedup: flex where
 * set, else alltoall), except that the framework's flex falls back to
 * alltoall for the whole plan when any stage of a replica group of one
 * replica or more is on a pool that cannot run it (plan_flex_unfit): a
 * Megatron job takes one --moe-token-dispatcher-type for all its ranks.
 * Refused by plan_validate: flex under a framework without it, flex
 * named for a MoE model with a stage on such a pool, and a value other
 * than the framework's default on a dense model. */
enum hp_moe_dispatch plan_moe_dispatch(const struct plan *p, const struct cluster *c);
/* Whether plan_moe_dispatch is allgather, on any cluster: the hardware
 * changes flex into alltoall only, so the allgather checks (perf_compute.c,
 * the EP overlap) need none. */
int plan_moe_allgather(const struct plan *p);
/* Why a stage of TP tp on pool `pool` of c cannot run Megatron-Core's
 * flex dispatcher (DeepEP or HybridEP backend) in plan p, or NULL when
 * it can: its GPU is not Hopper or a later NVIDIA part, its node's GPUs
 * are not all joined by NVLink (intra other than nvswitch), or its EP
 * group leaves the NVLink domain over TCP sockets (no RDMA). Sources in
 * plan.c and docs/moe.md. */
const char *plan_flex_unfit(const struct plan *p, const struct cluster *c, int pool, int tp);
const char *plan_moe_dispatch_name(enum hp_moe_dispatch d);
int plan_moe_dispatch_parse(const char *s, enum hp_moe_dispatch *d);

/* Whether the routed experts run as grouped GEMMs: the plan's
 * moe_grouped_gemm key, or absent, its framework's (framework.h
 * moe_sequential_mlp: off where set, else on). */
int plan_moe_grouped_gemm(const struct plan *p);

/* Whether the weight-gradient GEMMs accumulate into Megatron's main_grad
 * themselves: the plan's grad_accum_fusion key, or absent, on (Megatron-LM
 * and Megatron-Core default to it: arguments.py @d98e8a64 L2944-2948,
 * --no-gradient-accumulation-fusion store_false). Also on for the frameworks
 * where the key has no meaning (no separate add is charged there);
 * plan_validate_framework_keys refuses the key on them. */
int plan_grad_accum_fusion(const struct plan *p);
/* Whether framework fw has Megatron's gradient accumulation fusion to turn
 * off (megatron-core, megatron-lm, and any, estimated as megatron-core). */
int plan_grad_accum_fusion_applies(enum hp_framework fw);

/* The optimizer implementation the plan is costed with: its
 * optimizer_impl key, or absent, its framework row's (framework.h
 * opt_impl). plan_validate refuses another than the row's where the row
 * has only one (opt_impl_only). */
enum hp_opt_impl plan_opt_impl(const struct plan *p);

/* Whether the blocks run under torch.compile: the plan's compile key, or
 * absent, off (every framework row's default: torchtitan's job config
 * training.compile = False; docs/compile.md), except a torchtitan plan
 * with async TP (tp_overlap) at TP above 1, which torchtitan runs only
 * compiled: on. */
int plan_compile(const struct plan *p);

/* The plan's settings (fields.h): JSON keys, CLI flags, ranges, help.
 * plan_parse_json and plan_to_json read and write the top level through
 * it; the replicas and stages are read by code. */
extern const struct hp_field_table plan_fields;
extern const struct hp_field_enum plan_framework_enum;

/* "1f1b" or "interleaved:V". */
const char *plan_schedule_name(const struct plan *p, char *buf, size_t n);
/* Parse "1f1b" or "interleaved:V" (V from 2 to 64); 0 or -1. */
int plan_schedule_parse(const char *s, enum hp_schedule *sched, int *vpp);

#endif
