/* framework.h — the training frameworks hetplan plans for, as data.
 *
 * A framework is a row of settings: which overlaps it turns on by default,
 * the dtype its data-parallel gradients are reduced in, where its fp32
 * master weights live, and where each default comes from. The plan keys
 * "framework", "tp_overlap", "grad_overlap" and "param_overlap" (plan.h)
 * start from the row; an explicit key in a plan overrides it.
 *
 * FW_ANY is "no framework chosen": the planner may pick any row; a plan
 * carrying FW_ANY is estimated with the megatron-core row.
 *
 * Rows from FW_COUNT up to FW_ROWS are estimate-only: plans, plan files,
 * `estimate` and `plan --framework` take their names, perf_estimate runs
 * them and runs_on.c has their rules, but hetplan writes no launch config
 * for them (framework_launchable is 0; launch refuses them), and the
 * planner considers them only when --framework names one. FW_PYTORCH_DDP
 * and FW_PYTORCH_DDP_2020: plain PyTorch eager modules under apex AMP O2
 * and apex DistributedDataParallel, as NVIDIA DeepLearningExamples' BERT
 * fine-tuning runs, in its 2022 and 2020 model code (the blind rows of
 * tests/data/holdout_small.csv). FW_INTERNLM: InternLM's own trainer of
 * August 2023 with its Hybrid Zero optimizer (the BLIL rows of
 * tests/data/blind_train.csv). FW_LLMC: karpathy/llm.c's own C/CUDA GPT-2
 * trainer, train_gpt2.cu @f1e2ace (the BLLC rows): fused classifier,
 * fused residual + LayerNorm, no dropout, biases in the GEMM epilogue.
 * FW_DEEPSPEED_03: DeepSpeed 0.3's engine (ZeRO 0 and its first ZeRO-1)
 * running the 2019 Megatron-LM copy in DeepSpeedExamples, eager layer
 * code (the BLDSV rows). FW_AUTOMODEL: NVIDIA-NeMo/Automodel's FSDP2
 * recipes with Transformer Engine attention, grouped-GEMM experts and the
 * DeepEP dispatcher (the BLAM rows; framework.c). FW_HF: the Hugging Face
 * Trainer (PyTorch DDP, torch autocast under --bf16/--fp16) running a
 * transformers model's eager modeling code (the BLMLI and BLFC rows).
 * FW_HF_DEEPSPEED: the same Trainer and eager model code under
 * --deepspeed: DeepSpeed's engine at ZeRO 0-3, the model in 16 bits (no
 * autocast), DeepSpeed's fp16/bf16 optimizer wrapping the Trainer's AdamW
 * (framework.c; docs/hf-deepspeed.md). FW_MAXTEXT: AI-Hypercomputer/maxtext
 * on GPUs (JAX/XLA, Transformer Engine's cuDNN attention, FSDP sharding),
 * the BLMXT and MAXT rows (framework.c; docs/fp8-b200-maxtext.md). */
#ifndef HP_FRAMEWORK_H
#define HP_FRAMEWORK_H

#include <stddef.h>

enum hp_framework {
	FW_ANY,
	FW_MEGATRON_CORE,   /* Megatron-Core as NVIDIA's performance recipes run it */
	FW_MEGATRON_LM,     /* Megatron-LM of 2021-22 (no overlaps) */
	FW_DEEPSPEED,       /* DeepSpeed ZeRO (Megatron-DeepSpeed or HF) */
	FW_TORCHTITAN,      /* torchtitan: FSDP2 + TP + PP (+ CP) */
	FW_COUNT,           /* the launchable frameworks: the planner's default
			     * search and hetplan launch */
	FW_PYTORCH_DDP = FW_COUNT,   /* estimate-only: eager PyTorch + apex AMP/DDP */
	FW_PYTORCH_DDP_2020,         /* the same, with the 2020 model code's copies */
	FW_INTERNLM,                 /* estimate-only: InternLM's trainer, Hybrid Zero */
	FW_LLMC,                     /* estimate-only: karpathy/llm.c's C/CUDA trainer */
	FW_DEEPSPEED_03,             /* estimate-only: DeepSpeed 0.3 with the 2019
				      * Megatron-LM of DeepSpeedExamples */
	FW_AUTOMODEL,                /* estimate-only: NeMo AutoModel (FSDP2, TE
				      * kernels, DeepEP dispatch) */
	FW_HF,                       /* estimate-only: the Hugging Face Trainer with
				      * PyTorch DDP and eager transformers models */
	FW_HF_DEEPSPEED,             /* estimate-only: the Hugging Face Trainer with
				      * --deepspeed (DeepSpeed's engine, 16-bit model)
				      * and eager transformers models */
	FW_MAXTEXT,                  /* estimate-only: MaxText (JAX/XLA): cuDNN
				      * attention, FSDP, JAX remat with dead-code
				      * elimination (framework.c) */
	FW_ROWS
};

/* grad_reduce_fp32 value of the Megatron rows: Megatron's arguments.py
 * turns --accumulate-allreduce-grads-in-fp32 on by itself only under
 * bf16; an fp16 run reduces its fp16 gradients unless the flag is given. */
#define FW_GRAD_FP32_UNLESS_FP16 2
/* grad_reduce_fp32 value of the deepspeed row: DeepSpeed accumulates
 * (and so all-reduces) bf16 gradients in fp32 when no ZeRO optimizer is
 * configured (runtime/engine.py get_data_types: "if model_dtype ==
 * torch.bfloat16 and not self.zero_optimization(): grad_accum_dtype =
 * torch.float32"; BF16_Optimizer hands its fp32 gradients to the
 * all-reduce); otherwise it reduces in the training dtype. */
#define FW_GRAD_FP32_BF16_ZERO0 3

/* HBM bytes the optimizer step moves per local parameter when nothing
 * else is counted: hetplan's single figure for every framework before the
 * rows carried their own, a little above the 28 bytes of one fused fp32
 * Adam kernel (reads weight, gradient and both moments, writes three).
 * Not counted from any one framework's code; the rows that carry it say
 * so. Used for every row in fp32/tf32 runs (the apex O2 counts in
 * framework.c are mixed-precision paths). Range of the counted paths:
 * 32 (apex July 2019) to 54 (apex O2 with a clipping step). */
#define FW_OPT_BYTES_DEFAULT 30.0

/* How the optimizer's Adam step runs over the parameter tensors (the plan
 * key optimizer_impl; framework.c counts each from the code, docs/
 * optimizer.md). OPT_IMPL_FUSED: one multi-tensor kernel family over all
 * tensors (apex FusedAdam, Transformer Engine's, DeepSpeed's FusedAdam,
 * torch.optim.AdamW(fused=True), optax under XLA): 28 bytes a parameter,
 * no launches a tensor to speak of. OPT_IMPL_FOREACH: torch's multi-tensor
 * AdamW (_multi_tensor_adamw, torch.optim.AdamW's default since torch
 * 2.0): seven _foreach_ passes, 76 bytes a parameter, each pass launched
 * once per group of up to 48-110 tensors. OPT_IMPL_LOOP: a Python loop
 * over the tensors (transformers.AdamW, torch foreach=False): the same
 * seven passes, 76 bytes, launched tensor by tensor. */
enum hp_opt_impl { OPT_IMPL_FUSED, OPT_IMPL_FOREACH, OPT_IMPL_LOOP, OPT_IMPL_COUNT };

/* HBM bytes per logit the loss moves, forward and backward, in the
 * Megatron-style path every row but llm.c's runs: an fp32 softmax
 * cross-entropy that reads, writes and reads back the T x V/tp logits
 * (3 x 4 bytes) in each direction (Megatron's vocab_parallel_cross_entropy:
 * max, exp and sum, then the gradient written in place). */
#define FW_LOSS_BYTES_MEGATRON 12.0

struct framework_info {
	enum hp_framework id;
	const char *name;          /* "megatron-core": the key, flag and JSON value */
	const char *display;       /* "Megatron-Core" */
	const char *abbrev;        /* "mcore": the RUNS ON column's short name */
	int tp_overlap;            /* TP collectives overlapped with GEMMs by default */
	int grad_overlap;          /* DP gradient reduce overlapped with backward */
	int param_overlap;         /* DP parameter gather overlapped with forward */
	int grad_reduce_fp32;      /* gradients reduced in fp32 (else 16-bit);
				    * FW_GRAD_FP32_UNLESS_FP16: in fp32 under
				    * bf16/fp8, in fp16 under fp16 (Megatron) */
	int attn_gen3;             /* Hopper+ attention through cuDNN / FlashAttention-3
				    * class kernels (else FlashAttention-2 class) */
	const char *source;        /* where the defaults come from */
	/* How the pipeline's point-to-point transfers run (not plan keys:
	 * fixed by the framework's code). */
	int pp_scatter_gather;     /* a stage's output without sequence parallelism
				    * (replicated on the t TP ranks) leaves the node
				    * as t slices of 1/t, one per rank's NIC, and is
				    * all-gathered over NVLink on arrival */
	int pp_blocking;           /* each send and receive is a blocking call of
				    * its own: four one-way transfers per
				    * micro-batch, one after another, where the
				    * others pair a send with a receive */
	/* How the layers and the data-parallel reduce run (fixed by the
	 * framework's code and the model code it runs). */
	int eager_modules;         /* each op of a layer is its own eager kernel:
				    * no fused bias-dropout-add, a bias add after
				    * every linear, the context's permute copy
				    * (perf_compute.c, eager_layer_kernels) */
	int eager_qkv_copies;      /* and q, k, v copied to contiguous batches
				    * before the attention's batched GEMMs */
	double ddp_bucket_elems;   /* gradient elements per all-reduce bucket;
				    * 0: the model's default (perf_comm.c) */
	int ddp_copy_passes;       /* read-and-write passes over each gradient
				    * byte around the all-reduce (flatten into the
				    * bucket, average, copy back); 0: reduced in
				    * place in a contiguous buffer */
	/* The optimizer step and ZeRO-1 (fixed by the framework's code). */
	double opt_bytes_per_param; /* HBM bytes the optimizer step moves per
				     * local parameter in a 16-bit run, every
				     * pass from the unscale to the zero_grad
				     * (perf.c); fp32/tf32: FW_OPT_BYTES_DEFAULT */
	int zero1_bcast;           /* ZeRO-1 as InternLM's Hybrid Zero: the
				    * gradients all-reduced over the DP group (not
				    * reduce-scattered), then each rank that owns
				    * parameters broadcasts its updated 16-bit
				    * shard to the group, one broadcast per owner
				    * (perf_comm.c), not one all-gather */
	/* Expert parallelism (fixed by the framework's code; framework.c). */
	int ep_overlap;            /* the expert all-to-alls of one micro-batch run
				    * beside another micro-batch's compute, layer
				    * by layer (Megatron-Core's combined 1F1B,
				    * --overlap-moe-expert-parallel-comm with
				    * --delay-wgrad-compute), where the plan allows
				    * it: framework_ep_overlap_on */
	int ep_dispatch_dedup;     /* tokens dispatched by DeepEP-class kernels
				    * (Megatron-Core's flex dispatcher): a token
				    * crosses the network once per destination
				    * node, then fans out over NVLink, where an
				    * NCCL all-to-all sends one copy per expert */
	int fp8_params;            /* an fp8 run keeps its GEMM weights in FP8 by
				    * default (plan key fp8_params, plan_fp8_params) */
	/* The pipeline's transfers again (with pp_scatter_gather and
	 * pp_blocking; last so the rows' positional fields keep their order). */
	int pp_partitioned;        /* with TP above 1, each TP rank sends only its
				    * 1/t slice of the stage's output and of that
				    * output's gradient, each slice after a small
				    * meta tensor of its own, and the full tensor
				    * is all-gathered over the TP group where it is
				    * used: once on the receiving stage in the
				    * forward, twice on the sending stage in the
				    * backward (its output restored for autograd,
				    * and the received gradient); perf_comm.c,
				    * perf_stage_pp */
	/* The gradient overlap's dependence on ZeRO (with grad_overlap). */
	int grad_overlap_min_zero; /* the lowest ZeRO stage whose code path can
				    * overlap the gradient reduce at all: below
				    * it the reduce runs after the backward,
				    * whatever the plan or config says, and
				    * plan_grad_overlap is 0 (DeepSpeed: 1,
				    * framework.c); 0 for the other rows */
	int zero0_copy_passes;     /* ddp_copy_passes at ZeRO 0 where the code
				    * path differs (DeepSpeed: 3, the engine's
				    * own reduce without the ZeRO optimizer's
				    * contiguous buffers, framework.c); 0: the
				    * row's ddp_copy_passes at every stage */
	/* The ZeRO stages the row's code runs, and its sharded step (last so
	 * the rows' positional fields keep their order). */
	int zero_stages;           /* ZeRO stages the row's code runs, counted
				    * from 0 (1: ZeRO 0 only, 2: 0-1); 0: all
				    * four, 0-3 (framework_zero_max) */
	int zero_fsdp_default;     /* 1: a job that names no stage shards
				    * parameters (FSDP2 fully_shard, torchtitan):
				    * ZeRO-3, or ZeRO-2 with pipeline parallelism
				    * (framework_default_zero); 0: ZeRO-1, or the
				    * highest stage the row runs below that */
	double zero1_opt_shard_bytes; /* at ZeRO 1 or more, HBM bytes the step
				       * moves per parameter of the rank's shard,
				       * where its code path differs from the
				       * unsharded step (DeepSpeed 0.3: 56,
				       * framework.c); 0: opt_bytes_per_param */
	double zero1_opt_model_bytes; /* and per parameter of the rank's whole
				       * model copy (passes that run over every
				       * gradient tensor, not the shard; DeepSpeed
				       * 0.3: 20); 0 for the other rows */
	/* The loss and the layer's memory-bound ops (perf_compute.c; fixed
	 * by the framework's code). */
	double loss_bytes_fwd;     /* HBM bytes per logit (T x V/tp) the loss moves
				    * in the forward: FW_LOSS_BYTES_MEGATRON, or 0
				    * where the loss runs in the backward */
	double loss_bytes_bwd;     /* and in the backward (the logits' gradient;
				    * llm.c: its fused classifier, loss and
				    * gradient in one kernel, 6) */
	double logit_bytes;        /* bytes a logit (T x V/tp) held at the last
				    * stage's peak under the fused loss; 0: an fp32
				    * copy, 4 (Megatron's vocab-parallel cross-
				    * entropy). llm.c: 2, its bf16 logits buffer
				    * with the gradient written in place
				    * (framework.c) */
	int fused_residual_norm;   /* each residual add and the LayerNorm after it
				    * run as one kernel that reads the residual and
				    * the branch and writes the sum and the normed
				    * output (4 element moves, where an add and a
				    * norm apart move 5) */
	int no_dropout;            /* the framework's model code has no dropout,
				    * whatever the model's own config says: no
				    * masks, no dropout kernels */
	int gemm_bias_epilogue;    /* every bias is added in its GEMM's epilogue
				    * (cuBLASLt): no bias-add kernels */
	/* The eager layer's attention (with eager_modules). */
	int eager_fused_qkv;       /* q, k and v come from one linear of width
				    * q + 2 kv (one GEMM, one bias add), where
				    * the BERT code runs three */
	int eager_mask_mul;        /* the causal mask is applied as
				    * scores x mask - 10000 (1 - mask): a multiply
				    * and a subtract over the scores, and two small
				    * ops on the mask, where BERT's additive mask
				    * is one add */
	int unfused_only;          /* the framework's model code has no fused
				    * (flash) attention kernel: the planner builds
				    * unfused-attention plans for it (search.c,
				    * plan_globals) and runs_on.c refuses flash */
	int flash_sm80;            /* its fused attention is flash-attn 2 or
				    * Transformer Engine's, which need Ampere or
				    * newer (hp_gen_sm80): on a cluster with a
				    * Volta or Turing pool the planner builds
				    * unfused-attention plans for it (search.c)
				    * and runs_on.c refuses flash there */
	int no_sp;                 /* the framework's model code has no sequence
				    * parallelism: the planner builds plans with
				    * SP off for it (search.c, plan_globals) and
				    * runs_on.c refuses SP with TP > 1 */
	int moe;                   /* the framework's model code has MoE layers
				    * (routed experts): 0 for a row that runs
				    * dense models only, under which plan_validate
				    * refuses a model with experts (at EP 1 too),
				    * `plan --framework` refuses it before the
				    * search, and runs_on.c refuses EP above 1 */
	int moe_switch_only;       /* its MoE layer is a Switch layer: top-1
				    * routing, every layer, each expert the dense
				    * MLP's size, all experts on every rank (no
				    * EP); launch says a model beyond it does not
				    * run as planned (launch.c framework_denial) */
	int ep_rank_dedup;         /* its dispatcher's kernels send a token once
				    * to each destination rank that holds any of
				    * its experts, not once per routed expert
				    * (DeepEP's normal kernels: is_token_in_rank);
				    * perf_comm.c ep_dispatch_time, with
				    * plan_moe_dispatch flex */
	/* The gradient reduce at ZeRO-2 (last so the rows' positional
	 * fields keep their order). */
	int zero2_reduce_per_microbatch; /* at ZeRO-2 the gradients are reduced
				    * after every micro-batch's backward, not once
				    * a step at the accumulation boundary: each
				    * rank keeps only its partition's accumulated
				    * gradients (DeepSpeed: framework.c);
				    * perf_comm.c charges the reduce-scatter once
				    * per micro-batch. 0: once a step */
	/* DeepSpeed's engine runs the optimizer and the ZeRO collectives
	 * (the deepspeed row, and the HF Trainer with --deepspeed): the
	 * ZeRO-1/2 step all-gathers the updated parameters before it returns
	 * (nothing to hide behind), ZeRO-3 gathers per module into a list of
	 * one tensor per rank with its prefetch bucket and gathers again in a
	 * recomputed forward, the pipeline engine reduces gradients after
	 * the pipeline drains and tied gradients in their own dtype
	 * (perf_comm.c). 0: any other runtime */
	int ds_engine;
	/* The DP overlaps' defaults by ZeRO stage (with grad_overlap,
	 * param_overlap and grad_overlap_min_zero; last so the rows'
	 * positional fields keep their order). */
	int dp_overlap_default_min_zero; /* the lowest ZeRO stage at which a
				    * plan that names no grad_overlap (param_overlap)
				    * runs with the row's grad_overlap
				    * (param_overlap): below it the framework's own
				    * default is off (DeepSpeed: 3, its overlap_comm
				    * defaults to stage == 3, and it prefetches
				    * parameters at ZeRO-3 only: framework.c); 0 for
				    * the other rows */
	const char *grad_overlap_default_why; /* the framework's setting behind
				    * dp_overlap_default_min_zero, for the
				    * estimate's notes (framework_grad_overlap_note);
				    * NULL with it 0 */
	/* The Hugging Face Trainer's layout and mixed precision (last so the
	 * rows' positional fields keep their order). */
	int dp_only;               /* the framework runs data parallelism only: a
				    * plan with TP or PP above 1 is refused
				    * (plan_validate, exit 3; runs_on.c), not
				    * estimated with a warning */
	int amp_autocast;          /* a 16-bit run keeps fp32 weights and runs the
				    * forward under torch.autocast: each weight is
				    * cast to 16 bits every micro-batch and its
				    * gradient cast back and accumulated in fp32,
				    * and the eager softmax runs in fp32
				    * (perf_compute.c hf_eager_bytes) */
	/* The older MoE paths (last so the rows' positional fields keep
	 * their order; docs/moe-seq.md). */
	int moe_sequential_mlp;    /* a plan that names no moe_grouped_gemm runs
				    * its routed experts as a loop of one MLP per
				    * local expert (Megatron-Core SequentialMLP),
				    * not grouped GEMMs: plan_moe_grouped_gemm.
				    * 0 on every row (framework.c says why) */
	int moe_allgather;         /* the framework's MoE layer has Megatron-Core's
				    * allgather token dispatcher (plan_validate
				    * refuses moe_dispatch allgather elsewhere) */
	int selective_reruns_flash; /* selective recomputation re-runs the fused
				     * (flash) attention forward in the backward
				     * (Megatron-Core's core_attn checkpoint);
				     * 0: the flash path keeps its output
				     * (legacy Megatron-LM). framework.c */
	/* The eager attention's causal mask (with eager_modules; last so the
	 * rows' positional fields keep their order). */
	int eager_where_mask;      /* the causal mask is applied to the scores with
				    * torch.where before the additive padding mask
				    * (transformers' GPT2Attention._attn): one more
				    * pass over the scores each way, counted in a
				    * 16-bit run without autocast (perf_compute.c
				    * hf_eager_bytes; autocast's count has it) */
	/* The recomputed forward (last so the rows' positional fields keep
	 * their order). */
	int remat_dce;             /* full recomputation re-runs only the ops whose
				    * outputs the backward reads (JAX's remat with
				    * dead-code elimination): the MLP's down
				    * projection and the residual add after it are
				    * not re-run (perf_compute.c perf_stage_compute,
				    * perf.c totals). 0: the whole layer forward
				    * runs again (torch.utils.checkpoint, Megatron,
				    * DeepSpeed) */
	/* The optimizer implementation (plan key optimizer_impl; last so the
	 * rows' positional fields keep their order). */
	int opt_impl;              /* enum hp_opt_impl the row's code runs when the
				    * plan names none; opt_bytes_per_param and
				    * zero1_opt_shard_bytes are counted with it */
	int opt_impl_only;         /* 1: the row's code has no other
				    * implementation (llm.c's own kernel, optax
				    * under XLA): plan_validate refuses another */
	double opt_loop_bytes;     /* HBM bytes a parameter the row's own step
				    * adds around a per-tensor optimizer (the
				    * loop's era: zero_grad zeroing the gradients,
				    * where torch 2 sets them to None) */
	double opt_loop_launches;  /* launches a tensor the row's own step adds
				    * around a per-tensor optimizer (the loop's
				    * era: clip_grad_norm_ tensor by tensor,
				    * zero_grad's zero_) */
	/* Gradient accumulation under ZeRO-3 (last so the rows' positional
	 * fields keep their order; docs/fsdp-ga.md). */
	int zero3_reduce_once;     /* with more than one micro-batch a step, the
				    * gradients are reduce-scattered once, in the
				    * last micro-batch's backward, and held
				    * unsharded in the reduce dtype until then
				    * (FSDP2 set_requires_gradient_sync(False) or
				    * FSDP1 no_sync on the other micro-batches):
				    * perf_comm.c charges one reduce-scatter a
				    * step, perf_mem.c the unsharded gradients.
				    * 0: one reduce-scatter a micro-batch
				    * (torchtitan, DeepSpeed ZeRO-3, OLMo-core,
				    * NeMo AutoModel's benchmark configs) */
};

/* The row for f (static, never NULL). f must be below FW_ROWS (assert;
 * FW_ANY's row when asserts are off). FW_ANY gives the megatron-core
 * row's settings under the name "any". */
const struct framework_info *framework_get(enum hp_framework f);

/* A launchable framework's name ("any", "megatron-core", ...: a row below
 * FW_COUNT) or an alias ("mcore" and "megatron" for megatron-core,
 * "titan", "ds"), ignoring case. Returns 0 and sets *out, or -1 for an
 * unknown or estimate-only name (*out untouched). */
int framework_parse(const char *s, enum hp_framework *out);
/* HBM bytes per local parameter of f's optimizer step: the row's
 * opt_bytes_per_param in a 16-bit run, FW_OPT_BYTES_DEFAULT when fp32_run
 * (fp32 or tf32 weights and gradients). Same precondition. */
double framework_opt_bytes(enum hp_framework f, int fp32_run);
/* HBM bytes f's optimizer step moves on one rank at ZeRO stage `zero`:
 * shard_params (the parameters whose state the rank updates) times
 * framework_opt_bytes, or, at ZeRO 1 or more in a 16-bit run where the row
 * counts its sharded step (zero1_opt_shard_bytes), shard_params x
 * zero1_opt_shard_bytes + model_params (the rank's whole model copy) x
 * zero1_opt_model_bytes. Same precondition on f as framework_get. */
double framework_opt_step_bytes(enum hp_framework f, int fp32_run, int zero,
				double shard_params, double model_params);
/* The implementation names: "fused", "foreach", "loop" (static).
 * framework_opt_impl_parse also takes the frameworks' own spellings:
 * "for-loop" (torchtitan's optimizer.implementation), "adamw_torch_fused"
 * and "adamw_apex_fused" (fused), "adamw_torch" (foreach), "adamw_hf"
 * (loop), the HF Trainer's --optim values; ignoring case. 0 or -1. */
const char *framework_opt_impl_name(enum hp_opt_impl i);
int framework_opt_impl_parse(const char *s, enum hp_opt_impl *out);
/* framework_opt_bytes with implementation impl in place of the row's
 * opt_impl: in a 16-bit run the row's count with the Adam passes of its
 * own implementation replaced by impl's (framework_opt_impl_bytes) and
 * opt_loop_bytes added where impl is the loop and the row's is not (or
 * taken out the other way); FW_OPT_BYTES_DEFAULT when fp32_run, whatever
 * impl (simplified: the rows' counts are the mixed-precision paths).
 * Same precondition on f; impl below OPT_IMPL_COUNT. */
double framework_opt_bytes_impl(enum hp_framework f, int fp32_run, enum hp_opt_impl impl);
/* framework_opt_step_bytes with impl, the same replacement made in the
 * row's sharded count (zero1_opt_shard_bytes) too. */
double framework_opt_step_bytes_impl(enum hp_framework f, int fp32_run, int zero,
				     enum hp_opt_impl impl, double shard_params,
				     double model_params);
/* HBM bytes a parameter of impl's Adam passes alone (28, 76, 76;
 * framework.c counts them), and the kernel launches a parameter tensor
 * they take (0, 0.10, 7). */
double framework_opt_impl_bytes(enum hp_opt_impl impl);
/* HBM bytes a local parameter of f's optimizer step under impl when the
 * plan keeps no fp32 master (master none): impl's Adam passes on 2-byte
 * state, the clip over bf16 gradients, the loop's era passes halved
 * (framework.c counts them; docs/optimizer.md section 7). Fused: 20,
 * foreach: 44, loop: 44 + opt_loop_bytes / 2. Same preconditions. */
double framework_opt_bf16_bytes(enum hp_framework f, enum hp_opt_impl impl);
double framework_opt_impl_launches(enum hp_opt_impl impl);
/* Launches a parameter tensor of f's whole optimizer step under impl:
 * framework_opt_impl_launches plus the row's opt_loop_launches where
 * impl is the loop. Same preconditions. */
double framework_opt_launches(enum hp_framework f, enum hp_opt_impl impl);
/* The highest ZeRO stage f's code runs (0-3; the row's zero_stages).
 * runs_on.c refuses the stages above it, plan.c's messages name it. Same
 * precondition on f as framework_get. */
int framework_zero_max(enum hp_framework f);
/* The ZeRO stage f's code runs when its user names none, for a plan of
 * pp pipeline stages: the row's zero_fsdp_default policy (torchtitan:
 * 3 at PP 1, 2 above), else hetplan's ZeRO-1 capped at
 * framework_zero_max (apex DDP: 0). estimate and launch use it where no
 * --zero (and no plan-file zero) is given. Same precondition on f as
 * framework_get. */
int framework_default_zero(enum hp_framework f, int pp);
/* Ranks that own parameters, and so broadcast a shard each step, under
 * InternLM's Hybrid Zero ZeRO-1 (zero1_bcast) over `ranks` ranks, for a
 * stage of `layers` transformer layers (gated: a gated MLP) and `ends`
 * (0-2) embedding or output layers. At least 1, at most ranks. */
double framework_bcast_owners(int layers, int gated, int ends, int ranks);
/* framework_parse, and the estimate-only rows' names too (FW_COUNT up to
 * FW_ROWS): every row. What the plan key "framework" (files, `estimate`
 * and `launch` flags, the TUI's Edit plan) and `plan --framework` take;
 * launch then refuses a row framework_launchable says no to. Same return. */
int framework_parse_estimate(const char *s, enum hp_framework *out);
/* 1 when hetplan writes launch configs for f (f below FW_COUNT: FW_ANY
 * and the stock frameworks), 0 for the estimate-only rows. f must be
 * below FW_ROWS (assert). */
int framework_launchable(enum hp_framework f);
/* 1 when a plan of framework f hides its expert all-to-alls behind the
 * other micro-batch's compute: f's row has ep_overlap, and Megatron-Core's
 * checks for the overlap pass (ep, expert parallelism, above 1; vstages,
 * model chunks per pipeline rank, above 1 when pp > 1; full_recompute 0;
 * fp32_run 0: a 16-bit or fp8 run). 0 otherwise. perf_comm.c costs it,
 * launch.c writes its flags, so the two cannot disagree. Same
 * precondition on f as framework_get. */
int framework_ep_overlap_on(enum hp_framework f, int ep, int pp, int vstages,
			    int full_recompute, int fp32_run);
/* 1 when a plan of framework f at ZeRO stage `zero` can overlap its
 * gradient reduce with the backward (zero at least the row's
 * grad_overlap_min_zero), 0 when f's code reduces after the backward at
 * that stage. plan.c's plan_grad_overlap and its validation, and so the
 * estimate, the planner and launch, take it from here. Same
 * precondition on f as framework_get. */
int framework_grad_overlap_possible(enum hp_framework f, int zero);
/* The gradient overlap a plan of framework f at ZeRO stage `zero` runs
 * with when it names none (plan key grad_overlap unset): the row's
 * grad_overlap from dp_overlap_default_min_zero on, 0 below it (DeepSpeed
 * at ZeRO 1-2: overlap_comm's own default is off). plan.c's
 * plan_grad_overlap takes it from here, after
 * framework_grad_overlap_possible. Same precondition on f as
 * framework_get. */
int framework_grad_overlap_default(enum hp_framework f, int zero);
/* The same for the parameter-gather overlap (plan key param_overlap
 * unset): the row's param_overlap from dp_overlap_default_min_zero on, 0
 * below it (DeepSpeed ZeRO 1-2 gathers the parameters inside the
 * optimizer step, perf_comm.c). plan.c's plan_param_overlap takes it from
 * here. Same precondition on f as framework_get. */
int framework_param_overlap_default(enum hp_framework f, int zero);
/* For the estimate's notes: the row's grad_overlap_default_why (static)
 * when a plan of framework f at ZeRO stage `zero` that names no
 * grad_overlap runs with the overlap off because of
 * framework_grad_overlap_default (the code could overlap at that stage,
 * the framework's default does not); NULL otherwise. Same precondition on
 * f as framework_get. */
const char *framework_grad_overlap_note(enum hp_framework f, int zero);
/* 1 when the data-parallel term of a plan of framework f at ZeRO stage
 * `zero` reads the micro-batch count: ZeRO-3 (gathers and reduce-scatters
 * per micro-batch) and ZeRO-2 in a row with zero2_reduce_per_microbatch.
 * The DP term is then nondecreasing in the micro-batches (perf_comm.c
 * perf_stage_dp), and the memos and the planner's DP keeper key it by
 * them (perf.c, search_combo.c, search_bound.c). Same precondition on f
 * as framework_get. */
int framework_dp_reads_mb(enum hp_framework f, int zero);
/* 0 when f's code runs a plan of tp tensor-parallel ranks and pp
 * pipeline stages; else -1 and a sentence for the user in why (n bytes:
 * the framework, the degree, what the framework runs instead) when the
 * row is dp_only and tp or pp is above 1. plan_validate refuses such a
 * plan with it (exit 3). Same precondition on f as framework_get. */
int framework_layout_refusal(enum hp_framework f, int tp, int pp, char *why, size_t n);
/* framework_get(f)->name (static; same precondition). */
const char *framework_name(enum hp_framework f);

/* Which rows framework_list names. */
enum fw_list { FW_LIST_ALL, FW_LIST_LAUNCHABLE, FW_LIST_ESTIMATE_ONLY };
/* The names of the rows `which` selects, FW_ANY excluded, in table order,
 * separated by ", " ("megatron-core, megatron-lm, deepspeed, torchtitan"
 * for FW_LIST_LAUNCHABLE), into buf (n bytes, truncated to fit, always
 * NUL-terminated); returns buf. From the table, so messages and help
 * cannot drift from it. */
const char *framework_list(enum fw_list which, char *buf, size_t n);

#endif
