/* runs_on.c — which stock frameworks run a plan as one job (runs_on.h).
 *
 * Each rule below names the frameworks it rules out and where the limit
 * is written down. Frameworks and the versions the rules describe:
 *   megatron-core  Megatron-LM main with Megatron-Core, as pinned in
 *                  tests/data/megatron_args.txt (commit d98e8a64, 2026-08);
 *                  "arguments.py" below is megatron/training/arguments.py
 *                  there, function validate_args.
 *   megatron-lm    Megatron-LM of 2021-22 (the SC21 code base and the
 *                  2022 selective-recomputation release), framework.h's row.
 *   deepspeed      DeepSpeed's engine and pipeline engine
 *                  (deepspeed/runtime/pipe/), with the model's TP coming
 *                  from Megatron-DeepSpeed.
 *   torchtitan     torchtitan main (FSDP2 + TP + PP + CP + EP).
 * and the estimate-only rows (framework.h), which hetplan estimates and
 * plans for but does not launch:
 *   pytorch-ddp(-2020)  NVIDIA DeepLearningExamples' BERT run_squad.py:
 *                  eager PyTorch under apex AMP O2 and apex DDP.
 *   internlm       InternLM's trainer of August 2023 (Hybrid Zero).
 *   llm.c          karpathy/llm.c's train_gpt2.cu @f1e2ace.
 *   deepspeed-0.3  DeepSpeed 0.3.0+7d4d742 running DeepSpeedExamples'
 *                  Megatron-LM @a79272c (the 2019 model code).
 *   nemo-automodel NVIDIA-NeMo/Automodel @e45812012.
 *   hf-transformers  the Hugging Face Trainer with torch DDP (torchrun
 *                  --nproc_per_node N run_clm.py ...) and a transformers
 *                  model's eager code (framework.c).
 *   hf-deepspeed   the same Trainer and model code under --deepspeed
 *                  (DeepSpeed's engine, ZeRO 0-3 counted; framework.c).
 *   maxtext        AI-Hypercomputer/maxtext @e591f30c on GPUs (JAX/XLA;
 *                  framework.c, docs/fp8-b200-maxtext.md).
 * Rules that every framework shares (one program on identical ranks with
 * an even batch split) make a plan "needs a heterogeneity-aware runtime". */
#include "runs_on.h"
#include "utf8.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define B(f) (1u << (f))
#define MCORE B(FW_MEGATRON_CORE)
#define MLM B(FW_MEGATRON_LM)
#define DS B(FW_DEEPSPEED)
#define TITAN B(FW_TORCHTITAN)
#define DDP (B(FW_PYTORCH_DDP) | B(FW_PYTORCH_DDP_2020))
#define IL B(FW_INTERNLM)
#define LLMC B(FW_LLMC)
#define DS03 B(FW_DEEPSPEED_03)
#define AM B(FW_AUTOMODEL)
#define HF B(FW_HF)
#define HFDS B(FW_HF_DEEPSPEED)
#define MXT B(FW_MAXTEXT)

struct verdict {
	unsigned mask;
	int quiet;            /* the mask only: no reasons formatted or kept
			       * (the planner's screen, per candidate) */
	char reason[FW_ROWS][160];
	char all[200];        /* a rule that rules out every framework */
};

/* A reason cut by snprintf ends at the last whole character: the names in
 * it are valid UTF-8 (jx_str, the catalog), so the first byte that is not
 * starts the cut one (a pool or GPU name of 3-byte characters cut mid-way
 * reached the table, HTML and JSON as invalid UTF-8). */
static void cut_whole(char *s)
{
	for (size_t o = 0; s[o];) {
		int n = utf8_len(s + o, NULL);
		if (!n) {
			s[o] = '\0';
			return;
		}
		o += (size_t)n;
	}
}

static void deny(struct verdict *v, unsigned fws, const char *fmt, ...)
{
	if (v->quiet) {
		v->mask &= ~(fws & RUNS_ON_ALL);
		return;
	}
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cut_whole(msg);
	/* a rule for all, first to deny the stock rows (the estimate-only
	 * rows' settings rules may have run before it) */
	if ((fws & RUNS_ON_ALL) == RUNS_ON_ALL && !v->all[0] &&
	    (v->mask & RUNS_ON_STOCK) == RUNS_ON_STOCK)
		hp_strlcpy(v->all, msg, sizeof v->all);
	for (int f = 1; f < FW_ROWS; f++)
		if ((fws & B(f)) && (v->mask & B(f))) {
			hp_strlcpy(v->reason[f], msg, sizeof v->reason[f]);
			v->mask &= ~B(f);
		}
}

static int stage_layers(const struct stage *s)
{
	return s->last_layer - s->first_layer + 1;
}

int runs_on_same_layout(const struct replica *a, const struct replica *b)
{
	if (a->n_stages != b->n_stages)
		return 0;
	for (int i = 0; i < a->n_stages; i++)
		if (a->stages[i].tp != b->stages[i].tp ||
		    a->stages[i].first_layer != b->stages[i].first_layer ||
		    a->stages[i].last_layer != b->stages[i].last_layer)
			return 0;
	return 1;
}

/* Rules every framework shares: one SPMD program. */
static void rules_shared(struct verdict *v, const struct plan *p, const struct cluster *c)
{
	/* Mixed GPU types. DeepSpeed's and torchtitan's launchers, and the
	 * estimate-only rows, start one program on ranks a rendezvous
	 * orders, with no placement by GPU. Megatron-Core never asks a rank's
	 * GPU: with one layout, one TP and one batch share in every replica
	 * (the rules below) and one network on every pool, a plan whose
	 * stages or replicas sit on different GPUs runs as one job once each
	 * stage's ranks start on its pool (hetplan launch --format slurm
	 * writes a Slurm heterogeneous job: docs/launch-hetero.md). */
	unsigned mixed = RUNS_ON_ALL & ~MCORE;
	const char *why = NULL;
	const struct pool *ma = NULL, *mb = NULL;
	for (int r = 0; r < p->n_replicas && !why; r++) {
		const struct replica *rep = &p->replicas[r];
		for (int s = 1; s < rep->n_stages && !why; s++) {
			ma = &c->pools[rep->stages[0].pool];
			mb = &c->pools[rep->stages[s].pool];
			if (strcmp(ma->gpu.name, mb->gpu.name))
				why = "mixed GPU types in one pipeline (%s and %s)";
		}
	}
	for (int r = 1; r < p->n_replicas && !why; r++) {
		ma = &c->pools[p->replicas[0].stages[0].pool];
		mb = &c->pools[p->replicas[r].stages[0].pool];
		if (strcmp(ma->gpu.name, mb->gpu.name))
			why = "mixed GPU types across replicas (%s and %s)";
	}
	if (why) {
		deny(v, mixed, why, ma->gpu.name, mb->gpu.name);
		for (int r = 0; r < p->n_replicas; r++)
			for (int s = 0; s < p->replicas[r].n_stages; s++)
				if (c->pools[p->replicas[r].stages[s].pool].transport !=
				    c->pools[p->replicas[0].stages[0].pool].transport)
					deny(v, MCORE, "mixed GPU types on pools of different networks "
					     "(NCCL loads one a process)");
	}
	/* Mixed TP degrees in a pipeline: one --tensor-model-parallel-size
	 * (arguments.py), one mp size in Megatron-DeepSpeed, one
	 * parallelism.tensor_parallel_degree in torchtitan's device mesh. */
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *rep = &p->replicas[r];
		for (int s = 1; s < rep->n_stages; s++)
			if (rep->stages[s].tp != rep->stages[0].tp) {
				deny(v, RUNS_ON_ALL, "mixed TP degrees in one pipeline (TP %d and %d)",
				     rep->stages[0].tp, rep->stages[s].tp);
				return;
			}
	}
	/* Replicas of different layouts: data parallelism in all four
	 * replicates one model partition on every DP rank. */
	for (int r = 1; r < p->n_replicas; r++)
		if (!runs_on_same_layout(&p->replicas[r], &p->replicas[0])) {
			deny(v, RUNS_ON_ALL, "replica groups with different pipeline layouts");
			return;
		}
	/* Uneven DP batch shares: every framework derives the per-rank batch
	 * as global / (micro x DP) — Megatron's num_microbatches_calculator
	 * asserts global_batch_size % (micro_batch_size x data_parallel_size)
	 * == 0; DeepSpeed's train_batch_size = micro x gas x world; torchtitan
	 * global_batch_size / (local_batch_size x dp degree). */
	for (int r = 1; r < p->n_replicas; r++)
		if (fabs(p->replicas[r].batch_share - p->replicas[0].batch_share) >
		    1e-9 * p->replicas[0].batch_share) {
			deny(v, RUNS_ON_ALL, "uneven DP batch shares (%.3g%% and %.3g%%)",
			     100 * p->replicas[0].batch_share, 100 * p->replicas[r].batch_share);
			return;
		}
}

/* Layer split and schedule. */
static void rules_layers(struct verdict *v, const struct plan *p)
{
	const struct replica *rep = &p->replicas[0];
	int pp = rep->n_stages, mn = 1 << 30, mx = 0;
	for (int s = 0; s < pp; s++) {
		mn = HP_MIN(mn, stage_layers(&rep->stages[s]));
		mx = HP_MAX(mx, stage_layers(&rep->stages[s]));
	}
	int interleaved = p->schedule == SCHED_INTERLEAVED && p->vpp > 1;

	/* Layer split. Megatron-LM 2021-22: "Number of layers should be
	 * divisible by the pipeline-model-parallel size" (even split only).
	 * Megatron-Core: any split through --pipeline-model-parallel-layout
	 * (arguments.py; first/last stages alone through
	 * --decoder-first/last-pipeline-num-layers). DeepSpeed's
	 * PipelineModule partitions "uniform" or "type:transformer"
	 * (balanced): stage sizes differ by at most one layer. torchtitan:
	 * any split through parallelism.pipeline_parallel_split_points. */
	if (mn != mx)
		deny(v, MLM, "uneven layer split (%d to %d layers per stage)", mn, mx);
	if (mx - mn > 1)
		deny(v, DS, "layer split beyond +-1 layer (%d to %d per stage)", mn, mx);
	/* Interleaved schedule. DeepSpeed's pipe/schedule.py has one training
	 * schedule (TrainSchedule, 1F1B). Megatron-LM 2021-22 asserts
	 * pipeline size > 2 with interleaving and an integer
	 * --num-layers-per-virtual-pipeline-stage. */
	if (interleaved) {
		deny(v, DS, "interleaved schedule (its pipeline engine runs 1F1B only)");
		if (pp <= 2)
			deny(v, MLM, "interleaved schedule with PP %d (needs PP > 2)", pp);
		else if (mn != mx || mn % p->vpp)
			deny(v, MLM, "interleaved stages of %d layers do not split into %d chunks",
			     mn, p->vpp);
	}
	/* Virtual stages of unequal layers (the plan's pp_layout):
	 * Megatron-Core --pipeline-model-parallel-layout; torchtitan
	 * module_fqns_per_model_part, one part per virtual stage, round
	 * robin as the layout's (launch.c titan_model_parts); Megatron-LM
	 * 2021-22 splits each stage into equal chunks. */
	const struct pp_layout *L = plan_pp_layout(p);
	if (L && interleaved)
		for (int k = 1; k < L->n; k++)
			if (L->stage_layers[k] != L->stage_layers[0]) {
				deny(v, MLM, "virtual stages of unequal layers (pp_layout)");
				break;
			}
}

/* ZeRO and the DP overlaps. */
static void rules_zero(struct verdict *v, const struct plan *p)
{
	const struct replica *rep = &p->replicas[0];
	int pp = rep->n_stages;
	/* ZeRO. DeepSpeed's PipelineEngine asserts zero stage < 2 ("ZeRO-2
	 * and ZeRO-3 are incompatible with pipeline parallelism"). Megatron-LM
	 * 2021-22 has only --use-distributed-optimizer (ZeRO-1). Megatron-Core
	 * reaches ZeRO-2/3 through --use-megatron-fsdp
	 * --data-parallel-sharding-strategy optim_grads|optim_grads_params.
	 * torchtitan shards with FSDP2 (ZeRO-3, or ZeRO-2 with
	 * reshard_after_forward off) and has no optimizer-only sharding;
	 * its DDP (ZeRO-0) "has not supported > 1D parallelism". */
	if (p->zero >= 2 && pp > 1)
		deny(v, DS, "ZeRO-%d with PP %d (its pipeline engine accepts ZeRO 0-1)", p->zero,
		     pp);
	if (p->zero >= 2)
		deny(v, MLM, "ZeRO-%d (only the distributed optimizer, ZeRO-1)", p->zero);
	if (p->zero == 1)
		deny(v, TITAN, "ZeRO-1 (FSDP2 shards parameters too: ZeRO-2 or 3)");
	if (p->zero == 0 && (rep->stages[0].tp > 1 || pp > 1 || p->cp > 1))
		deny(v, TITAN, "ZeRO-0 (DDP) with TP, PP or CP (its DDP is 1-D only)");
	/* Parameter-gather overlap without the gradient-reduce overlap:
	 * arguments.py L1024-1029 asserts "Must use --overlap-param-gather
	 * with --overlap-grad-reduce" (launch refuses to write it). */
	if (p->zero >= 1 && plan_param_overlap(p) && !plan_grad_overlap(p))
		deny(v, MCORE | MLM, "parameter-gather overlap without the gradient-reduce "
		     "overlap (--overlap-param-gather needs --overlap-grad-reduce)");
	/* Megatron-FSDP (Megatron-Core's ZeRO-2/3) turns the gradient
	 * reduce-scatter overlap on whenever it shards gradients, and the
	 * parameter all-gather overlap at ZeRO-3, whatever the flags
	 * (megatron/core/distributed/fsdp/src/megatron_fsdp/megatron_fsdp.py
	 * @d98e8a64 L327-337: "Default to overlapped gradient
	 * reduce-scatter when sharding gradients"): a plan costed without
	 * them runs otherwise there. */
	if (p->zero >= 2 && !plan_grad_overlap(p))
		deny(v, MCORE, "ZeRO-%d without the gradient-reduce overlap (Megatron-FSDP "
		     "always overlaps it)", p->zero);
	else if (p->zero == 3 && !plan_param_overlap(p))
		deny(v, MCORE, "ZeRO-3 without the parameter-gather overlap (Megatron-FSDP "
		     "always overlaps it)");
}

/* CP, EP, expert TP, the token dispatcher, recomputation, precision. */
static void rules_parallel(struct verdict *v, const struct plan *p, const struct cluster *c)
{
	const struct replica *rep = &p->replicas[0];
	/* Context parallelism: --context-parallel-size arrived with
	 * Megatron-Core in 2023; DeepSpeed has Ulysses sequence parallelism
	 * (all-to-all over heads), not ring attention; torchtitan has
	 * context_parallel_degree. */
	if (p->cp > 1) {
		deny(v, MLM, "context parallelism (CP %d)", p->cp);
		deny(v, DS, "ring context parallelism (CP %d; DeepSpeed has Ulysses only)", p->cp);
	}
	/* Expert parallelism: Megatron-LM 2021-22's one MoE layer, SwitchMLP
	 * (framework.c "MoE layers"), holds every expert on every rank;
	 * Megatron-Core --expert-model-parallel-size, DeepSpeed-MoE ep_size,
	 * torchtitan parallelism.expert_parallel_degree
	 * (torchtitan/distributed/expert_parallel.py). */
	if (p->ep > 1)
		deny(v, MLM, "expert parallelism (EP %d)", p->ep);
	/* Expert TP of its own (MoE parallel folding, plan_ep_folded):
	 * Megatron-Core --expert-tensor-parallel-size; torchtitan
	 * parallelism.expert_tensor_parallel_degree takes only etp = tp, or
	 * etp 1 with ep a multiple of cp x tp (torchtitan/distributed/
	 * parallel_dims.py @8a2686c4 L57-64); DeepSpeed-MoE's experts use the
	 * model's TP. At EP 1 too: torchtitan then runs the experts at
	 * ETP = TP, which is not the plan. */
	int tp0 = rep->stages[0].tp, etp = plan_etp(p, tp0);
	if (etp != tp0) {
		deny(v, MLM | DS, "expert TP %d unlike TP %d (MoE parallel folding)", etp, tp0);
		if (etp != 1 || p->ep % (p->cp * tp0))
			deny(v, TITAN, "expert TP %d with TP %d and EP %d (torchtitan takes expert "
			     "TP = TP, or 1 with EP a multiple of CP x TP)", etp, tp0, p->ep);
	}
	/* After the expert TP rule, whose reason a launch note names first.
	 * The flex token dispatcher (DeepEP or HybridEP backend) is
	 * Megatron-Core's (--moe-token-dispatcher-type flex); DeepSpeed-MoE
	 * and torchtitan dispatch with an all-to-all (framework.c,
	 * ep_dispatch_dedup). The dispatcher the plan is costed with counts:
	 * its moe_dispatch key, or absent, its framework row's default, flex
	 * for megatron-core and for "any" (estimated as megatron-core) where
	 * every piece can run it, else alltoall (plan_moe_dispatch), so a
	 * flex plan does not run as planned on them; an alltoall one does. */
	if (p->ep > 1 && plan_moe_dispatch(p, c) == MOE_DISPATCH_FLEX)
		deny(v, MLM | DS | TITAN, "the flex token dispatcher (moe_dispatch flex)");
	/* The allgather token dispatcher (--moe-token-dispatcher-type
	 * allgather, Megatron-LM's default: arguments.py @f1f03922 L1904-1906)
	 * is Megatron-Core's too (framework.h moe_allgather); no framework's
	 * default, so a plan with it named it, and names an MoE model
	 * (plan_validate refuses it on a dense one). The experts' loop
	 * (moe_grouped_gemm off) is denied to none: Megatron-Core's
	 * SequentialMLP, DeepSpeed-MoE's Experts, the 2021-22 SwitchMLP and
	 * torchtitan's GroupedExperts with use_grouped_mm off all run one
	 * expert at a time (framework.c). */
	if (plan_moe_allgather(p))
		deny(v, MLM | DS | TITAN, "the allgather token dispatcher (moe_dispatch allgather)");
	/* Recomputation. Megatron's selective recomputation (attention core,
	 * --recompute-granularity selective) is Megatron's alone; torchtitan's
	 * op-level selective checkpointing (activation_checkpoint.mode
	 * "selective", selective_ac_option "op") is torchtitan's alone;
	 * DeepSpeed's activation checkpointing is whole-layer (full). */
	if (p->recompute == RC_SELECTIVE)
		deny(v, DS | TITAN, "Megatron's selective recomputation");
	if (p->recompute == RC_SELECTIVE_OP)
		deny(v, MCORE | MLM | DS, "op-level selective recomputation (torchtitan's)");
	/* Module-level selective recomputation (--recompute-modules,
	 * Megatron-Core's TransformerConfig.recompute_modules, 2025): no
	 * other row has it (docs/recompute.md) */
	if (p->recompute == RC_SELECTIVE && p->recompute_modules)
		deny(v, RUNS_ON_ALL & ~MCORE, "recompute_modules (Megatron-Core's --recompute-modules)");
	/* Partial recomputation under DeepSpeed's pipeline engine: its
	 * GPTModelPipe checkpoints every `interval` layers for the uniform
	 * method and sets the interval to 0, recomputing nothing, for the
	 * block method (deepspeedai/Megatron-DeepSpeed@4efb479d
	 * megatron/model/gpt_model.py L446-451), so a plan that keeps some
	 * layers' activations would keep all of them. At PP 1 with
	 * --no-pipeline-parallel the plain GPTModel honours the block method. */
	if (p->recompute == RC_FULL && p->recompute_layers > 0 && p->n_replicas > 0 &&
	    p->replicas[0].n_stages > 1)
		deny(v, DS, "recompute_layers %d under the pipeline engine (GPTModelPipe "
		     "recomputes nothing with the block method)", p->recompute_layers);
	/* Overlap settings are not rules: a framework without a switch runs
	 * the plan with its own default (framework.c), which the estimate
	 * uses once the plan names that framework. */
	/* FP8: Transformer Engine's --fp8-format (Megatron-Core) and
	 * torchtitan's float8 converters; Megatron-LM 2021-22 predates FP8,
	 * DeepSpeed's config has no FP8 switch. */
	if (p->precision == HP_FP8)
		deny(v, MLM | DS, "FP8 training");
	/* Offload (plan.h hp_offload): the optimizer to the host is
	 * DeepSpeed's ZeRO-Offload (zero_optimization.offload_optimizer,
	 * DeepSpeedCPUAdam stepping the partition on the CPU), as the
	 * estimate costs it (perf_offload.c); Megatron-Core's
	 * --optimizer-cpu-offload is another scheme, which the plan key
	 * refuses, torchtitan's training.enable_cpu_offload is FSDP2's
	 * CPUOffloadPolicy (parameters and gradients too), and Megatron-LM
	 * 2021-22 has none. Activations to the host are Megatron-Core's
	 * --cpu-offloading-num-layers alone. */
	if (p->offload == OFFLOAD_OPTIMIZER)
		deny(v, RUNS_ON_ALL & ~DS, "optimizer offload (DeepSpeed's ZeRO-Offload)");
	if (p->offload == OFFLOAD_ACTIVATIONS)
		deny(v, RUNS_ON_ALL & ~MCORE, "activation offload (Megatron-Core's "
		     "--cpu-offloading-num-layers)");
	/* FP16: torchtitan's training.mixed_precision_param is "bfloat16"
	 * or "float32" (torchtitan/config/job_config.py, class Training;
	 * read at pytorch/torchtitan@000204a4, the same at the keys' commit
	 * in tests/data/torchtitan_keys.txt) and its trainer has no loss
	 * scaling; launch.c's torchtitan config says the plan's fp16 "has
	 * no switch". A V100 or T4 pool (no bf16 units) trains in fp16. */
	if (p->precision == HP_FP16)
		deny(v, TITAN, "fp16 (its mixed precision is bfloat16 or float32, no loss scaling)");
}

/* Fused attention on the plan's GPUs (hp_gen_sm80). The rows marked
 * flash_sm80 (framework.h) run flash-attn 2 (--use-flash-attn) or
 * Transformer Engine's fused backends: on Volta (V100) and Turing (T4,
 * RTX 20, Titan RTX) those stacks compute the s x s scores. torchtitan's
 * SDPA keeps a memory-efficient kernel there (sm50 and up). */
static void rules_gpus(struct verdict *v, const struct plan *p, const struct cluster *c)
{
	unsigned fws = 0;
	for (int f = FW_ANY + 1; f < FW_ROWS; f++)
		if (framework_get((enum hp_framework)f)->flash_sm80)
			fws |= B(f);
	if (!p->flash)
		return;
	for (int r = 0; r < p->n_replicas; r++)
		for (int s = 0; s < p->replicas[r].n_stages; s++) {
			const struct gpu_spec *g = &c->pools[p->replicas[r].stages[s].pool].gpu;
			if (!hp_gen_sm80(g->gen)) {
				deny(v, fws, "flash attention on %s (flash-attn 2 needs "
				     "Ampere or newer; unfused attention runs)",
				     g->name);
				return;
			}
		}
}

/* Layer split, schedule, ZeRO, CP, EP, recomputation, precision. */
/* master none (plan.h MASTER_NONE: the model itself in bf16, no fp32
 * master). Runs on:
 *  - torchtitan: training.dtype "bfloat16" puts "all parameters,
 *    gradients, and optimizer states in bfloat16, without an extra copy
 *    of fp32 weights" (torchtitan/config/configs.py @b5bcd76c L87-92;
 *    FSDP2's MixedPrecisionPolicy param_dtype alone is not this: it
 *    casts fp32 sharded parameters for the compute);
 *  - hf-transformers: a model loaded with torch_dtype bfloat16 has bf16
 *    parameters, and the Trainer's AdamW makes its state in their dtype.
 * Not on:
 *  - Megatron-Core and Megatron-LM: the distributed optimizer always
 *    keeps a main-params copy; --use-precision-aware-optimizer lets the
 *    moments be bf16 but --main-params-dtype takes fp32 or fp16 only
 *    (megatron/training/arguments.py @d98e8a64 L3671-3684);
 *  - DeepSpeed (and the rows built on its engine): "bf16": {"enabled":
 *    true} keeps fp32 master weights (BF16_Optimizer, or ZeRO's fp32
 *    partition); the later bf16.bf16_master_weights_and_grads and
 *    bf16_optimizer_states options (ZeRO 1-3) are not what the rows'
 *    versions run;
 *  - llm.c: -w 0 drops the master weights but AdamW's m and v stay fp32
 *    (train_gpt2.cu @f1e2ace), not this count;
 *  - internlm, pytorch-ddp(-2020): fp32 master weights always (Hybrid
 *    Zero; apex AMP O2);
 *  - nemo-automodel, maxtext: not checked at the rows' commits. */
static void rules_master(struct verdict *v, const struct plan *p)
{
	if (p->master != MASTER_NONE)
		return;
	deny(v, MCORE | MLM, "master none (Megatron keeps a main-params copy: "
	     "--main-params-dtype fp32 or fp16)");
	deny(v, DS | HFDS | DS03, "master none (DeepSpeed's bf16 keeps fp32 master weights)");
	deny(v, LLMC, "master none (llm.c keeps AdamW's moments in fp32)");
	deny(v, IL | DDP, "master none (fp32 master weights always)");
	deny(v, AM | MXT, "master none (not checked for this framework)");
}

/* The keys that name a framework's code (plan.c
 * plan_validate_framework_keys): compile on is torchtitan's
 * training.compile (the rows with their own fused kernels refuse it);
 * an optimizer_impl other than the step a row's code has alone
 * (opt_impl_only: llm.c, maxtext) is not that row's. */
static void rules_code_keys(struct verdict *v, const struct plan *p)
{
	if (p->compile == 1)
		deny(v, RUNS_ON_ALL & ~TITAN,
		     "compile on (torch.compile over each block is torchtitan's training.compile)");
	/* Megatron's --no-gradient-accumulation-fusion; the others have no
	 * such setting (plan_grad_accum_fusion_applies) */
	if (p->grad_accum_fusion >= 0)
		deny(v, RUNS_ON_ALL & ~(MCORE | MLM),
		     "grad_accum_fusion %s (Megatron's gradient accumulation fusion setting)",
		     p->grad_accum_fusion ? "on" : "off");
	if (p->opt_impl < 0)
		return;
	for (int f = 1; f < FW_ROWS; f++) {
		const struct framework_info *fi = framework_get((enum hp_framework)f);
		if (fi->opt_impl_only && fi->opt_impl != (int)p->opt_impl)
			deny(v, B(f), "optimizer_impl %s (its code has its own %s step only)",
			     framework_opt_impl_name((enum hp_opt_impl)p->opt_impl),
			     framework_opt_impl_name((enum hp_opt_impl)fi->opt_impl));
	}
}

static void rules_framework(struct verdict *v, const struct plan *p, const struct cluster *c)
{
	rules_layers(v, p);
	rules_zero(v, p);
	rules_master(v, p);
	rules_code_keys(v, p);
	rules_parallel(v, p, c);
}

/* The estimate-only rows (framework.h). Each is stricter than
 * Megatron-Core on every rule here, so what they run, it runs too.
 *  - pytorch-ddp: run_squad.py (read at NVIDIA/DeepLearningExamples
 *    @0663b67c; framework.c's commits run the same loop) wraps the whole
 *    model in apex DistributedDataParallel (model = DDP(model)): data
 *    parallelism only, the optimizer replicated (FusedAdam under amp, or
 *    BertAdam). Its arguments offer --fp16 (amp opt_level O2) or fp32,
 *    and no activation checkpointing.
 *  - internlm: configs/7B_sft.py's parallel dict (zero1, tensor,
 *    pipeline, sequence_parallel) at @01e7fd61: Hybrid Zero shards the
 *    optimizer only (ZeRO-1; zero1=1 is none); no context parallelism.
 *    internlm/initialize/launch.py's args_sanity_check takes model.dtype
 *    float16, bfloat16, float32 or tf32 (no FP8) and model.checkpoint as
 *    the share of layers recomputed whole (no selective recomputation).
 *    The pipeline splits layers with partition_uniform
 *    (internlm/solver/pipeline_utils.py): per chunk, every stage gets
 *    layers / pp and the last layers % pp stages one more; it asserts the
 *    layers divide into the chunks. No other split is expressible.
 *  - llm.c: train_gpt2.cu @f1e2ace runs data parallelism only (one
 *    process per GPU under mpirun, no tensor or pipeline split);
 *    set_zero_configs (llmc/zero.cuh L558-575) takes -z 0 or 1 and falls
 *    back to 0 for anything else (ZeRO-2/3 are not implemented). PRECISION
 *    is FP32, FP16 or BF16 (Makefile; no FP8); no context or expert
 *    parallelism (GPT-2 and GPT-3 shapes, dense). Its -r 1/2 recompute
 *    GELU and the LayerNorms only, which no hetplan recompute mode is:
 *    only plans without recomputation run on it.
 *  - deepspeed-0.3: DeepSpeedExamples' Megatron-LM/ @a79272c (the 2019
 *    model code under DeepSpeed 0.3.0+7d4d742): tensor parallelism by
 *    its mpu (--model-parallel-size) and whole-layer checkpointing
 *    (--checkpoint-activations) only; no pipeline (GPT2ParallelTransformer
 *    is one module), no sequence parallelism, no fused attention (the
 *    layer computes the s x s scores), fp16 (--fp16) or fp32 (DeepSpeed
 *    0.3's config has no bf16). The row counts the engine's ZeRO 0 and
 *    ZeRO-1 (zero/stage1.py) code paths; ZeRO-2 (zero/stage2.py) is not
 *    counted, ZeRO-3 did not exist.
 *  - All of them: their model code is dense (framework.h moe, framework.c
 *    "MoE layers": InternLM's MoE code came after the row's commit; DLE
 *    BERT, llm.c's GPT-2 and the 2019 Megatron-LM have none): no expert
 *    parallelism, and plan_validate refuses a MoE model under them. */
int runs_on_zero_ok(enum hp_framework f, int zero)
{
	/* framework.c's zero_stages: apex DDP 0; InternLM, llm.c and
	 * DeepSpeed 0.3 0-1; the others 0-3. */
	return zero <= framework_zero_max(f);
}

/* The estimate-only rows' rules on the plan-wide settings a user sets by
 * flag or key (precision, ZeRO, recomputation, CP, EP, attention kernel),
 * applied before every other rule so that a row's reason is the one the
 * user can act on: the planner's --framework no-plan message names the
 * first refused candidate's reason, and "bf16" (--precision fp16) says
 * more than the layout ("uneven DP batch shares", "TP or PP") of
 * whichever candidate came first when every candidate is bf16. The mask
 * does not depend on the order. Precision first, then ZeRO,
 * recomputation, CP and EP, attention. */
static void rules_estimate_only_settings(struct verdict *v, const struct plan *p)
{
	if (p->precision == HP_BF16)
		deny(v, DDP, "bf16 (run_squad.py: --fp16 or fp32)");
	if (p->precision == HP_FP8) {
		deny(v, DDP | IL, "FP8 training");
		deny(v, LLMC, "FP8 (llm.c: bf16, fp16 or fp32)");
	}
	if (p->precision == HP_BF16 || p->precision == HP_FP8 || p->precision == HP_TF32)
		deny(v, DS03, "%s (DeepSpeed 0.3 runs fp16 or fp32)",
		     p->precision == HP_BF16 ? "bf16" : p->precision == HP_FP8 ? "FP8" : "tf32");
	if (!runs_on_zero_ok(FW_PYTORCH_DDP, p->zero))
		deny(v, DDP, "ZeRO-%d (apex DDP replicates the optimizer)", p->zero);
	if (!runs_on_zero_ok(FW_INTERNLM, p->zero))
		deny(v, IL, "ZeRO-%d (Hybrid Zero shards the optimizer only: ZeRO-1)", p->zero);
	if (!runs_on_zero_ok(FW_LLMC, p->zero))
		deny(v, LLMC, "ZeRO-%d (llm.c's -z takes 0 or 1: llmc/zero.cuh)", p->zero);
	if (!runs_on_zero_ok(FW_DEEPSPEED_03, p->zero))
		deny(v, DS03, "ZeRO-%d (the row counts DeepSpeed 0.3's ZeRO 0-1 paths)", p->zero);
	if (p->recompute != RC_NONE)
		deny(v, DDP, "recomputation (run_squad.py has no checkpointing flag)");
	if (p->recompute == RC_SELECTIVE || p->recompute == RC_SELECTIVE_OP)
		deny(v, IL, "selective recomputation (model.checkpoint recomputes whole layers)");
	if (p->recompute != RC_NONE)
		deny(v, LLMC, "recomputation (llm.c's -r recomputes GELU and LayerNorm only)");
	if (p->recompute == RC_SELECTIVE || p->recompute == RC_SELECTIVE_OP)
		deny(v, DS03, "selective recomputation (--checkpoint-activations is whole-layer)");
	if (p->cp > 1) {
		deny(v, DDP | IL, "context parallelism (CP %d)", p->cp);
		deny(v, LLMC, "context parallelism (CP %d; llm.c: one sequence per rank)", p->cp);
		deny(v, DS03, "context parallelism (CP %d; 2019 Megatron-LM: one sequence per rank)",
		     p->cp);
	}
	/* The rows without MoE layers (framework.h moe): no expert
	 * parallelism. (plan_validate refuses a MoE model under them at EP 1
	 * too; these rules do not see the model.) */
	unsigned dense = 0;
	for (int f = FW_ANY + 1; f < FW_ROWS; f++)
		if (!framework_get((enum hp_framework)f)->moe)
			dense |= B(f);
	if (p->ep > 1)
		deny(v, dense, "expert parallelism (EP %d; the row's model code has no MoE layer)",
		     p->ep);
	if (p->flash)
		deny(v, DS03, "flash attention (2019 Megatron-LM has no fused attention kernel: "
		     "--attention unfused)");
	/* NeMo AutoModel @e45812012 (framework.c): FSDP2 (no optimizer-only
	 * sharding) that keeps parameters gathered under PP
	 * (distributed/parallelizer.py: reshard_after_forward False when
	 * pp_enabled), DDP without TP, PP or EP (distributed/config.py
	 * DDPConfig), activation_checkpointing of whole layers. */
	const struct replica *rep = &p->replicas[0];
	if (p->zero == 1)
		deny(v, AM, "ZeRO-1 (FSDP2 shards parameters too: ZeRO-2 or 3)");
	if (p->zero == 3 && rep->n_stages > 1)
		deny(v, AM, "ZeRO-3 with PP %d (FSDP2 keeps parameters gathered under PP)",
		     rep->n_stages);
	if (p->zero == 0 && (rep->stages[0].tp > 1 || rep->n_stages > 1 || p->ep > 1))
		deny(v, AM, "ZeRO-0 (DDP) with TP, PP or EP (DDPConfig: data parallelism only)");
	if (p->recompute == RC_SELECTIVE || p->recompute == RC_SELECTIVE_OP)
		deny(v, AM, "selective recomputation (activation_checkpointing is whole-layer)");
	/* The HF Trainer with DDP (framework.c): FP8 is not a Trainer
	 * precision flag (--bf16, --fp16, --tf32), --gradient_checkpointing
	 * recomputes whole blocks, the model code has no context
	 * parallelism, and a ZeRO stage means --deepspeed: the hf-deepspeed
	 * row, which counts ZeRO 0-3 and shares the Trainer's other limits. */
	if (p->precision == HP_FP8)
		deny(v, HF | HFDS, "FP8 (the Trainer's flags: --bf16, --fp16 or --tf32)");
	if (!runs_on_zero_ok(FW_HF, p->zero))
		deny(v, HF, "ZeRO-%d (a Trainer run with --deepspeed: --framework "
		     "hf-deepspeed)", p->zero);
	if (!runs_on_zero_ok(FW_HF_DEEPSPEED, p->zero))
		deny(v, HFDS, "ZeRO-%d (beyond the stages the row counts: --framework "
		     "deepspeed)", p->zero);
	if (p->recompute == RC_SELECTIVE || p->recompute == RC_SELECTIVE_OP)
		deny(v, HF | HFDS, "selective recomputation (--gradient_checkpointing is "
		     "whole-block)");
	/* Partial recomputation (recompute_layers): the HF Trainer's
	 * --gradient_checkpointing and AutoModel's activation_checkpointing
	 * wrap every block, and the 2019 Megatron-LM's
	 * --checkpoint-num-layers sets the size of each checkpointed chunk,
	 * not how many layers are recomputed: all of them are. */
	if (p->recompute == RC_FULL && p->recompute_layers > 0) {
		deny(v, HF | HFDS, "recompute_layers %d (--gradient_checkpointing recomputes every "
		     "block)", p->recompute_layers);
		deny(v, AM, "recompute_layers %d (activation_checkpointing wraps every layer)",
		     p->recompute_layers);
		deny(v, DS03, "recompute_layers %d (--checkpoint-activations recomputes every "
		     "layer)", p->recompute_layers);
	}
	if (p->cp > 1)
		deny(v, HF | HFDS, "context parallelism (CP %d; the Trainer: one sequence per rank)",
		     p->cp);
	/* MaxText (framework.c): parameters sharded over the fsdp mesh axes
	 * (ZeRO-3) or replicated over the data axes (ZeRO-0), no
	 * optimizer-only sharding counted; XLA pipelines the FSDP
	 * all-gather and reduce-scatter (as Megatron-FSDP, whose rules above
	 * the row shares); jax.checkpoint policies over named values, which
	 * docs/fp8-b200-maxtext.md section 1 maps to none, selective and
	 * full, applied to every scanned layer (no recompute_layers), none
	 * of them torchtitan's per-op one. Context parallelism is not
	 * counted for the row. */
	if (p->zero == 1 || p->zero == 2)
		deny(v, MXT, "ZeRO-%d (MaxText: fsdp shards parameters, ZeRO-3, or data "
		     "parallelism replicates them, ZeRO-0)", p->zero);
	if (p->zero >= 2 && !plan_grad_overlap(p))
		deny(v, MXT, "ZeRO-%d without the gradient-reduce overlap (XLA pipelines the "
		     "reduce-scatter)", p->zero);
	else if (p->zero == 3 && !plan_param_overlap(p))
		deny(v, MXT, "ZeRO-3 without the parameter-gather overlap (XLA pipelines the "
		     "all-gather)");
	if (p->recompute == RC_SELECTIVE_OP)
		deny(v, MXT, "op-level selective recomputation (torchtitan's; MaxText's "
		     "remat_policy names saved values)");
	if (p->recompute == RC_FULL && p->recompute_layers > 0)
		deny(v, MXT, "recompute_layers %d (remat_policy applies to every layer)",
		     p->recompute_layers);
	if (p->cp > 1)
		deny(v, MXT, "context parallelism (CP %d; not counted for MaxText)", p->cp);
}

/* The estimate-only rows' rules on the layout: TP, PP, SP and the layer
 * split (after the shared and stock rules). */
static void rules_estimate_only(struct verdict *v, const struct plan *p)
{
	const struct replica *rep = &p->replicas[0];
	int pp = rep->n_stages, mn = 1 << 30, mx = 0, layers = 0;
	for (int s = 0; s < pp; s++) {
		mn = HP_MIN(mn, stage_layers(&rep->stages[s]));
		mx = HP_MAX(mx, stage_layers(&rep->stages[s]));
		layers += stage_layers(&rep->stages[s]);
	}
	if (rep->stages[0].tp > 1 || pp > 1)
		deny(v, DDP, "TP or PP (apex DDP: data parallelism only)");
	if (rep->stages[0].tp > 1 || pp > 1)
		deny(v, LLMC, "TP or PP (llm.c: data parallelism only)");
	if (rep->stages[0].tp > 1 || pp > 1)
		deny(v, HF | HFDS, "TP or PP (the HF Trainer: data parallelism only)");
	if (pp > 1)
		deny(v, DS03, "PP (DeepSpeedExamples' 2019 Megatron-LM has no pipeline)");
	/* MaxText's pipeline (ici_pipeline_parallelism, num_pipeline_repeats)
	 * is a circular schedule of its own, not hetplan's 1F1B or
	 * interleaved one: not counted for the row. */
	if (pp > 1)
		deny(v, MXT, "PP (MaxText's circular pipeline is not counted for the row)");
	if (rep->stages[0].tp > 1 && p->sp && framework_get(FW_DEEPSPEED_03)->no_sp)
		deny(v, DS03, "sequence parallelism (2019 Megatron-LM)");
	int chunks = p->schedule == SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 1;
	if (layers % chunks) {
		deny(v, IL, "%d layers do not split into %d chunks", layers, chunks);
		return;
	}
	/* partition_uniform: per chunk, stage s gets per / pp layers, one
	 * more on the last per % pp stages; a stage with none is an error. */
	int per = layers / chunks, cs = per / pp, left = pp - per % pp;
	for (int s = 0; s < pp; s++)
		if (!cs || stage_layers(&rep->stages[s]) != chunks * (cs + (s >= left))) {
			deny(v, IL, "layer split other than partition_uniform's (%d to %d per stage)",
			     mn, mx);
			return;
		}
}

/* The verdict on p: every rule applied. Returns 0, or -1 for an empty
 * plan (v->mask 0). */
static int verdict_of_rules(const struct plan *p, const struct cluster *c, struct verdict *v,
			    int quiet, int shared);

static int verdict_of(const struct plan *p, const struct cluster *c, struct verdict *v,
		      int quiet)
{
	return verdict_of_rules(p, c, v, quiet, 1);
}

/* verdict_of, with the shared rules (rules_shared: one GPU type, one
 * layout, even batch shares) left out when shared is 0. */
static int verdict_of_rules(const struct plan *p, const struct cluster *c, struct verdict *v,
			    int quiet, int shared)
{
	if (quiet) {
		v->quiet = 1;   /* reason[] and all[] are never read */
	} else {
		memset(v, 0, sizeof *v);
	}
	v->mask = RUNS_ON_ALL;
	if (p->n_replicas < 1 || p->replicas[0].n_stages < 1) {
		v->mask = 0;
		return -1;
	}
	rules_estimate_only_settings(v, p);
	if (shared)
		rules_shared(v, p, c);
	if (v->mask) {
		rules_framework(v, p, c);
		rules_gpus(v, p, c);
		rules_estimate_only(v, p);
	}
	return 0;
}

void runs_on_why_row(const struct plan *p, const struct cluster *c, enum hp_framework f,
		     char *why, size_t n)
{
	struct verdict v;
	if (!n)
		return;
	why[0] = '\0';
	if (verdict_of(p, c, &v, 0) < 0)
		snprintf(why, n, "empty plan");
	else if (f > FW_ANY && f < FW_ROWS && !(v.mask & B(f)))
		snprintf(why, n, "%s", v.reason[f][0] ? v.reason[f] : v.all);
	cut_whole(why);
}

unsigned runs_on_mask(const struct plan *p, const struct cluster *c, char *why, size_t n)
{
	struct verdict v;
	if (verdict_of(p, c, &v, !(why && n)) < 0) {
		if (why && n)
			snprintf(why, n, "empty plan");
		return 0;
	}
	if (why && n) {
		why[0] = '\0';
		if (v.all[0]) {
			snprintf(why, n, "needs a heterogeneity-aware runtime: %s", v.all);
		} else {
			/* one clause a reason, naming every framework it
			 * stops: "megatron-core: ...; megatron-lm, deepspeed,
			 * torchtitan: mixed GPU types ..." */
			size_t k = 0;
			unsigned done = 0;
			for (int f = 1; f < FW_COUNT && k < n; f++) {
				if ((v.mask & B(f)) || !v.reason[f][0] || (done & B(f)))
					continue;
				int w = snprintf(why + k, n - k, "%s%s", k ? "; " : "",
						 framework_name((enum hp_framework)f));
				for (int g = f + 1; g < FW_COUNT && w >= 0 && k + (size_t)w < n; g++)
					if (!(v.mask & B(g)) && !(done & B(g)) &&
					    !strcmp(v.reason[g], v.reason[f])) {
						done |= B(g);
						int w2 = snprintf(why + k + (size_t)w, n - k - (size_t)w,
								  ", %s", framework_name((enum hp_framework)g));
						if (w2 < 0) {
							w = -1;
							break;
						}
						w += w2;
					}
				if (w < 0 || k + (size_t)w >= n)
					break;
				k += (size_t)w;
				w = snprintf(why + k, n - k, ": %s", v.reason[f]);
				if (w < 0)
					break;
				k += (size_t)w;
			}
		}
		cut_whole(why);
	}
	return v.mask;
}

int runs_on_runnable(const struct plan *p, const struct cluster *c)
{
	struct verdict v;
	if (verdict_of_rules(p, c, &v, 1, 1) < 0)
		return 0;
	if (v.mask & RUNS_ON_STOCK)
		return 1;
	/* refused by every stock row: a heterogeneity-aware runtime is the
	 * answer only when the shared rules are all that stand in the way */
	verdict_of_rules(p, c, &v, 1, 0);
	return (v.mask & RUNS_ON_STOCK) != 0;
}

enum hp_framework runs_on_pick(unsigned mask)
{
	static const enum hp_framework order[] = { FW_MEGATRON_CORE, FW_TORCHTITAN, FW_DEEPSPEED,
						   FW_MEGATRON_LM };
	for (size_t i = 0; i < HP_ARRAY_LEN(order); i++)
		if (mask & B(order[i]))
			return order[i];
	return FW_ANY;
}

/* The stock frameworks' bits of mask by name, joined with sep; the
 * estimate-only rows' bits (f >= FW_COUNT) are left out. */
static char *names(unsigned mask, char *buf, size_t n, const char *(*nm)(int f), const char *sep)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int f = 1; f < FW_COUNT && k < n; f++)
		if (mask & B(f)) {
			int w = snprintf(buf + k, n - k, "%s%s", k ? sep : "", nm(f));
			if (w < 0)
				break;
			k += (size_t)w;
		}
	if (!buf[0])
		snprintf(buf, n, "none");
	return buf;
}

static const char *long_name(int f)
{
	return framework_name((enum hp_framework)f);
}

/* Short names for the RUNS ON column (framework.c's rows). */
static const char *short_name(int f)
{
	return f >= 0 && f < FW_ROWS ? framework_get((enum hp_framework)f)->abbrev : "?";
}

char *runs_on_names(unsigned mask, char *buf, size_t n)
{
	return names(mask, buf, n, long_name, ", ");
}

char *runs_on_short(unsigned mask, char *buf, size_t n)
{
	return names(mask, buf, n, short_name, "+");
}
