/* serve_perf.c — the serving performance model of one instance.
 *
 * One engine iteration on one GPU of a pipeline stage (tp GPUs, layers
 * [l0, l1)), with T = n_dec + n_pre tokens in the batch:
 *   GEMMs      FLOPs 2 x T x active matmul parameters / tp, at the peak of
 *              the compute precision x gemm_eff; bytes: the weights the
 *              batch touches (an MoE layer reads E(1 - (1 - k/E)^T) of its
 *              E experts) + activations in and out; time = max of the two
 *              (roofline per group of kernels, LLM-Viewer's method).
 *   attention  decode: 4 x ctx x q_dim FLOPs per token per layer, KV bytes
 *              ctx x kv_bytes_per_token_per_layer per token; prefill: 4 x
 *              pre_ctx x q_dim per token (causal: keys average half the
 *              chunk plus the prefix) at the 16-bit peak x attn_eff.
 *   logits     on the last stage: 2 h V per sequence that samples.
 *   TP         two all-reduces per layer of T x h 16-bit values (attention
 *              and MLP outputs), timed by comm.c over the pool's scale-up
 *              fabric (NCCL ring/tree/NVLS: the engines' custom one-shot
 *              all-reduce for small messages is faster; simplification).
 *   PP         pp stages each hold a micro-batch of batch/pp sequences; a
 *              full round (every sequence one token) takes pp x t_stage
 *              plus the activation sends (comm.c send/recv); stages on
 *              different nodes each add the engine's host step.
 * Engine overhead per iteration: step_overhead_s + per_seq_s x sequences
 * (profiles below).
 * Eager execution (serve_config.eager: no CUDA/HIP graphs, vLLM
 *   --enforce-eager): the host issues every kernel of the step one by
 *   one while the GPU runs the ones already issued, so a stage takes
 *   max(GPU time, kernels x EAGER_OP_S) (serve_eager_dispatch_s); the
 *   engine overhead above (scheduling, sampling, the sync that copies
 *   the sampled tokens back) stays in series. With graphs (the engines'
 *   default) one graph launch replaces the kernels of a decode step.
 *
 * Memory per GPU: weights of the stage (quantised linear layers, 16-bit
 * embedding/output and norms); an activation workspace for chunk_tokens
 * tokens; mem_fixed_bytes; the KV pool takes what the engine's memory
 * fraction leaves. KV capacity in tokens = pool / KV bytes per token per
 * GPU; the running batch at saturation is min(engine limit, capacity /
 * tokens each sequence holds): ISL + OSL when the engine reserves the whole
 * sequence on admission (TensorRT-LLM's GUARANTEED_NO_EVICT), ISL + OSL/2
 * (the mean over a sequence's life) when it allocates blocks on demand.
 *
 * Offline throughput (continuous batching, steady state): B sequences run;
 * over OSL iterations each is replaced once, so the iterations also carry
 * B x ISL prefill tokens, at most chunk_tokens - B per iteration; what does
 * not fit runs in extra prefill-only iterations. Output tokens/s =
 * B x OSL / (time of those iterations).
 *
 * Online at Poisson rate lambda below saturation mu:
 *   the running batch n = lambda x (TTFT + OSL x TPOT) (Little's law),
 *   solved by fixed-point iteration with TPOT = t_iter(n, prefill tokens
 *   lambda x t_iter x ISL per iteration);
 *   TTFT = frontend + t_iter/2 (arrival in the middle of an iteration) +
 *   one iteration per batch an overlap scheduler has launched ahead (when
 *   sequences run; profile sched_ahead) +
 *   ceil(ISL / chunk) iterations carrying the prompt + the wait for a batch
 *   slot. The slots form an M/D/c queue (c = the saturated batch, service D
 *   = OSL x TPOT): the wait is approximated by half the M/M/c wait (Erlang
 *   C), the usual M/D/c correction (Cosmetatos 1976, exact in heavy
 *   traffic); its tail P(W > x) = C exp(-2 (c/D - lambda) x) (the M/M/c
 *   tail with the decay doubled for deterministic service; an
 *   approximation). The prompts also queue for the prefill (M/D/1, mean
 *   wait wp, tail rho exp(-x rho / wp)). The p50/p99 of TTFT are the
 *   quantiles of the sum of the arrival phase (uniform over an iteration),
 *   the prefill wait and the slot wait, taken as independent
 *   (serve_wait_quantile, closed form per term). The p99 TPOT is the TPOT at
 *   the p99 number of running sequences, Poisson around its mean (an
 *   M/G/inf population below saturation).
 *
 * Prompts apart (serve_config.prefill_apart: vLLM before V1 with chunked
 * prefill off; vllm/core/scheduler.py _schedule_default, vllm-project/vllm
 * @ 0dce2b2: "Don't schedule decodes if prefills are scheduled"): one
 * scheduler call runs either the waiting prompts (up to chunk_tokens per
 * iteration) or S = sched_steps decode iterations of the running batch
 * (num_scheduler_steps). A cycle C is S decode iterations d(n) plus, when
 * any prompt arrived during the cycle (probability 1 - exp(-lambda C)),
 * one prefill iteration of the lambda C / (1 - exp(-lambda C)) prompts
 * that did: C = S d + P(k > 0) p(k), solved by fixed point. The prompts
 * re-read the weights in their own iteration and every running sequence
 * waits for it, so TPOT = C / S (S at most the output length); a prompt
 * that finds decodes running (probability 1 - exp(-n), the running count
 * being Poisson around its mean n) waits for the end of the current
 * cycle (uniform phase over C, mean C / 2), one that finds the engine
 * idle does not; then its prefill iteration. Offline, over OSL iterations the B sequences are replaced in
 * OSL / S scheduler calls of B S / OSL prompts each (one prompt per call
 * when that is below one).
 *
 * Simplifications, stated: fixed ISL/OSL per request class (the fleet
 * optimiser splits distributions into buckets); no prefix caching, no
 * speculative decoding; EP inside an instance is taken as TP for the
 * experts (weights and FLOPs split tp ways); PP stages are even (the last
 * holds the output layer); one efficiency per kernel class, not per shape.
 */
#include "serve_perf.h"
#include "cluster.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gemm_eff, gemm_eff_lowp, gemm_dim_half, moe_eff, hbm_eff and overlap are
 * fitted in tests/test_serve_accuracy.c against tests/data/serving.csv
 * (coordinate descent inside each range; leave-one-source-out
 * cross-validation; the table is in docs/serving.md). The others are set
 * from their sources. Ranges are what the constant can physically be; a
 * value must stay inside them. */
static const struct serve_calib calib_default = {
	/* Large 16-bit GEMMs reach 0.6-0.85 of dense peak (cuBLAS/CUTLASS on
	 * A100/H100; the training model's fitted GEMM table in perf.c spans
	 * 0.57-0.66 for bf16 on Ampere/Hopper). Range 0.45-0.85. */
	.gemm_eff = 0.65,
	/* FP8 GEMMs on Hopper reach a smaller share of their doubled peak
	 * (activation quantisation, scaling epilogues): ~0.5-0.7 of 1979 TF
	 * in cuBLASLt FP8 benchmarks; NVFP4 on Blackwell likewise. Range
	 * 0.35-0.8. */
	.gemm_eff_lowp = 0.575,
	/* Narrow GEMMs lose efficiency (tile quantisation, too few CTAs to
	 * fill the SMs): factor N/(N + c) x K/(K + c) on each matmul's per-GPU
	 * widths. The training model fits c = 93 for its shapes (perf.c);
	 * serving's TP shards are narrower. Range 64-1024. */
	.gemm_dim_half = 304,
	/* Grouped expert GEMMs over uneven per-expert batches plus the
	 * router, top-k and token permutation kernels: 0.3-1.0 of a dense
	 * GEMM's efficiency. */
	.moe_eff = 0.825,
	/* FlashAttention-2 forward: 0.50-0.73 of A100 bf16 peak (Dao 2023,
	 * arXiv:2307.08691 sec. 4.1); FlashAttention-3: ~0.75 of H100 bf16
	 * (Shah et al. 2024, arXiv:2407.08608). Range 0.35-0.75. */
	.attn_eff = 0.50,
	/* Decode GEMV/attention achieved HBM bandwidth: 0.65 (DistServe's
	 * fitted OPT-13B/A100 profile, reference optimizers.md sec. 2.4) to
	 * ~0.9 (STREAM-like copies). Range 0.6-0.92. */
	.hbm_eff = 0.64,
	/* A batch of decode and prefill tokens is not an ideal roofline: the
	 * weight stream and the tensor cores overlap only in part (kernels
	 * alternate between memory- and compute-bound phases). t = max(c, m)
	 * + (1 - overlap) min(c, m). Range 0-1. */
	.overlap = 0.5,
	/* HTTP request, tokenisation, first-token detokenisation and SSE
	 * streaming in front of the engine: the TensorRT-LLM/Triton online
	 * rows at QPS 2 show 17-23 ms TTFT for 8B prompts whose prefill takes
	 * 5-11 ms. Range 1-20 ms. */
	.frontend_s = 0.008,
	/* CUDA context (~0.5 GiB), cuBLAS/NCCL workspaces, CUDA graphs of the
	 * decode batch sizes (vLLM logs ~0.3-1 GiB). Range 1-3 GiB. */
	.mem_fixed_bytes = 1.5 * 1073741824.0,
};

const struct serve_calib *serve_calib_default(void) { return &calib_default; }

/* Every measured row the constants are fitted on runs on an NVIDIA GPU.
 * Another vendor's libraries reach a different share of its datasheet
 * peaks; the factors below scale the fitted efficiencies by what one
 * harness measured on both an H100 and an MI300X (Microsoft's AI
 * benchmarking guide, Azure_Results/ND_H100_v5_results.md and
 * ND_MI300X_v5_results.md, read in the copy at github.com/samuel-bohman/
 * AI-benchmarking-guide):
 *   GEMM: FP8 m=n=k=8192, cuBLASLt 1290.1 TF of 1978.9 on H100 (0.652),
 *     hipBLASLt 1159.2 TF of 2614.9 on MI300X (0.443): 0.68 (the
 *     6144x12288x12288 shape gives 0.65);
 *   HBM: STREAM copy 2.90 of 3.35 TB/s on H100 (0.866), 4.11 of 5.30 on
 *     MI300X (0.775): 0.895;
 *   attention: FlashAttention-2 forward 327.9 TF on H100 (head dim 128,
 *     of 989 bf16: 0.331), 328.6 TF on MI300X (head dim 64, of 1307:
 *     0.251): 0.76 (head dims differ; the smaller one favours neither);
 *   all-reduce (a time factor, not a share): 8-GPU bus bandwidth, RCCL
 *     over NCCL, 0.55-0.66 from 4 KB to 8 GB (1.13 vs 1.71 GB/s at 32 KB,
 *     a decode step's message for a 16K-wide model; 316.8 vs 478.9 GB/s
 *     at 8 GB): comm.c times both fabrics alike, so the TP all-reduces
 *     take 1 / 0.62 = 1.6 times as long.
 * Range of each share: 0.3-1.2 (the vendor's own over NVIDIA's); of the
 * time factor 1-3. Used for
 * every CDNA part; MI250X, MI325X and MI355X are not in that harness, so
 * they take MI300X's factors (a simplification). NVIDIA parts: 1. */
struct vendor_eff {
	double gemm, hbm, attn, comm;
};

static struct vendor_eff gpu_vendor_eff(const struct gpu_spec *g)
{
	if (g->gen == GEN_CDNA || g->gen == GEN_CDNA4)
		return (struct vendor_eff){ 0.68, 0.895, 0.76, 1.6 };
	return (struct vendor_eff){ 1, 1, 1, 1 };
}

/* Engine profiles, one row each: name, step overhead (s), per running
 * sequence (s), memory share, share of the free memory (1) or of all (0),
 * running-sequence limit, tokens per iteration, KV reserved in full on
 * admission. Overheads per iteration are with CUDA graphs for decode (the
 * default of all three engines). The sources of each row:
 *
 * vllm: vLLM v0.5.3 left the GPU idle ~60% of the time on Llama-3 8B /
 *   H100 to CPU work (vLLM blog 2024-09-05, "vLLM v0.6.0: 2.7x
 *   throughput"); v0.6 overlaps output processing, V1 schedules
 *   asynchronously. Left: ~1 ms per step, 10 us per sequence (input
 *   preparation, sampling bookkeeping, detokenisation); range 0.3-5 ms and
 *   2-40 us. CacheConfig.gpu_memory_utilization = 0.9
 *   (vllm/config/cache.py). vllm/engine/arg_utils.py get_batch_defaults:
 *   `vllm serve` uses max_num_seqs 256 and max_num_batched_tokens 2048, or
 *   1024 and 8192 on GPUs of >= 70 GiB other than A100 (serve_evaluate
 *   applies the second pair). Blocks on demand, preemption when full.
 *
 * sglang: SGLang v0.4 "zero-overhead batch scheduler" (LMSYS blog
 *   2024-12-04): CPU scheduling of the next batch overlaps the GPU's
 *   current one, leaving ~0.3 ms; range 0.1-2 ms. server_args.py (v0.4):
 *   mem_fraction_static (covers weights and KV) by TP size, 0.88 at TP 1,
 *   0.87 at 2, 0.85 at 4, 0.81 at 8, 0.79 at 16; the profile takes the
 *   TP-4 value, 0.85, for every TP (a simplification). max_running_requests is derived from the KV
 *   pool; the scheduler caps the CUDA-graph batch at a few hundred and runs
 *   larger batches without graphs: 1024 as a practical limit.
 *   chunked_prefill_size 8192 (server_args.py, >= 80 GB GPUs). Retraction
 *   when the pool is full. Prompts run apart: the scheduler builds a
 *   prefill batch from the waiting prompts and, when there is one, runs it
 *   instead of the decode batch ("Run prefill first if possible",
 *   Scheduler.get_next_batch_to_run, python/sglang/srt/managers/
 *   scheduler.py, sgl-project/sglang @ d51c1c2; the same branch in every
 *   stored version since v0.2); prompt chunks share an iteration with
 *   decodes only with --enable-mixed-chunk, off by default (ServerArgs
 *   enable_mixed_chunk = False). One decode iteration per call.
 *   CUDA graphs cover decode batches of 1, 2, 4 and 8-160 in steps of 8
 *   only (CudaGraphRunner: capture_bs = [1, 2, 4] + [i * 8 for i in
 *   range(1, 21)], python/sglang/srt/model_executor/cuda_graph_runner.py,
 *   v0.3 to v0.4; v0.4's server_args.py: cuda_graph_max_bs 160 on GPUs
 *   of 25 GB or more), and only decode: a larger decode batch and every
 *   prefill ("extend") iteration run the model's PyTorch code eagerly,
 *   the host issuing each kernel (EAGER_OP_S, the same count per layer as
 *   vLLM's). --enable-torch-compile compiles the graphs of batches up to
 *   32 (torch_compile_max_bs) and changes neither. Later SGLang (2025)
 *   captures up to 256 (TP < 4) or 512 (TP >= 4) on 80-160 GB GPUs: for
 *   it the profile is pessimistic between 160 and those sizes.
 *
 * tensorrt-llm: PyTorch backend (TensorRT-LLM >= 1.0, trtllm-serve): a
 *   Python scheduler and executor loop like vLLM's, CUDA graphs for decode;
 *   taken at vLLM's values (an estimate; the measured 1.0 tables include
 *   runs of small MoE models where the per-sequence cost dominates, see
 *   docs/serving.md). trtllm-serve: free_gpu_memory_fraction 0.9 and
 *   CapacitySchedulerPolicy.GUARANTEED_NO_EVICT
 *   (tensorrt_llm/commands/serve.py, TensorRT-LLM @ 4c05a74).
 *
 * tensorrt-llm-engine: C++ executor with in-flight batching and CUDA
 *   graphs: ~0.3 ms per iteration; the Triton online rows (8B, H200, QPS 2:
 *   ITL 5-6 ms vs a 3.4 ms weight read) bound it above; range 0.1-2 ms.
 *   KvCacheConfig.free_gpu_memory_fraction: 0.9 default; the published
 *   trtllm-bench tables use 0.95 (perf-overview.md). trtllm-build defaults
 *   max_batch_size 2048, max_num_tokens 8192 (TensorRT-LLM docs,
 *   "trtllm-build" and "Tuning Max Batch Size and Max Num Tokens").
 *   CapacitySchedulerPolicy GUARANTEED_NO_EVICT is the default.
 *
 * Scheduling ahead (the last column, sched_ahead): an overlap scheduler
 *   launches batch i+1 before batch i has finished on the GPU and
 *   processes i's outputs while i+1 runs, so a prompt that arrives while
 *   batch i runs is first seen when batch i+2 is formed: it waits for
 *   the rest of i and the whole of i+1, one iteration more than with a
 *   scheduler that forms each batch after the last one ends. SGLang
 *   v0.4 ("The scheduler runs one batch ahead and prepares all the
 *   metadata required for the next batch", LMSYS blog 2024-12-04,
 *   "Zero-overhead batch scheduler"; on by default from v0.4, while
 *   v0.3.x's ServerArgs list enable_overlap_schedule = False under
 *   "experimental"): 1. TensorRT-LLM's
 *   PyTorch backend ("At step n, the system launches GPU computation for
 *   step n+1 without waiting for CPU tasks from step n ... introduces one
 *   extra decoding step", docs features/overlap-scheduler.md, enabled by
 *   default, disable_overlap_scheduler): 1. vLLM: --async-scheduling is
 *   an opt-in flag at the pinned version (tests/data/serving_vllm_flags.txt),
 *   and the C++ executor of TensorRT engines forms each batch after the
 *   last: 0. The switch that turns it the other way (overlap_switch):
 *   vLLM --async-scheduling (pinned list, tests/data/serving_vllm_flags.txt;
 *   its arg_utils.py refuses it with pipeline-parallel-size > 1:
 *   overlap_no_pp), SGLang --disable-overlap-schedule (its server
 *   arguments: "Disable the overlap scheduler"); TensorRT-LLM's PyTorch
 *   backend takes disable_overlap_scheduler in its extra options YAML,
 *   which hetplan does not write, and the C++ executor has none: NULL.
 *   Only the wait is modelled: the extra step a finished sequence
 *   spends in the batch (TensorRT-LLM's "extra decoding step") is not
 *   charged to throughput (under 1% at outputs of 128 tokens or more). */
static const struct serve_engine_profile engines[ENGINE_COUNT] = {
	[ENGINE_VLLM] = { "vllm", 1.0e-3, 10e-6, 0.90, 0, 256, 2048, 0, 0, 0, 0,
			  "--async-scheduling", 1 },
	[ENGINE_SGLANG] = { "sglang", 0.3e-3, 3e-6, 0.85, 0, 1024, 8192, 0, 1, 160, 1,
			    "--disable-overlap-schedule", 0 },
	[ENGINE_TRTLLM] = { "tensorrt-llm", 1.0e-3, 10e-6, 0.90, 1, 2048, 8192, 1, 0, 0, 1, NULL, 0 },
	[ENGINE_TRTLLM_ENGINE] = { "tensorrt-llm-engine", 0.3e-3, 1e-6, 0.95, 1, 2048, 8192, 1, 0, 0, 0,
				   NULL, 0 },
};

const struct serve_engine_profile *serve_engine(enum serve_engine e)
{
	return &engines[e < 0 || e >= ENGINE_COUNT ? ENGINE_VLLM : e];
}

/* The profiles are the engines' current versions. An older version's host
 * work per iteration differs: vLLM before 0.6 processed each step's output
 * synchronously (no multi-step scheduling, no asynchronous output
 * processing), leaving the GPU idle 5-13 ms per decode step while the CPU
 * copies the sampled tokens back, builds the outputs, schedules and
 * prepares the next inputs (vLLM RFC "Multi-Step Scheduling",
 * github.com/vllm-project/vllm/issues/6854, 2024-07-26, on v0.5.x; the
 * v0.6.0 blog's 62% idle share for v0.5.3 is the same gap). A caller sets
 * serve_config.step_overhead_s (and per_seq_s) for such a version;
 * serve_vllm_v0 below gives vLLM's V0 engine its measured pair. */
/* A build's own host terms (vllm-v0), where cfg's engine is the one it
 * is a build of; 0 otherwise. */
static const struct serve_build_profile *host_build(const struct serve_config *cfg)
{
	const struct serve_build_profile *b = serve_build(cfg->build);
	return cfg->build != BUILD_CURRENT && b->engine == cfg->engine ? b : NULL;
}

double serve_step_overhead(const struct serve_config *cfg)
{
	const struct serve_build_profile *b = host_build(cfg);
	if (cfg->step_overhead_s > 0)
		return cfg->step_overhead_s;
	if (b && b->step_s > 0)
		return b->step_s;
	return serve_engine(cfg->engine)->step_overhead_s;
}

double serve_per_seq_overhead(const struct serve_config *cfg)
{
	const struct serve_build_profile *b = host_build(cfg);
	if (cfg->per_seq_s > 0)
		return cfg->per_seq_s;
	if (b && b->seq_s > 0)
		return b->seq_s;
	return serve_engine(cfg->engine)->per_seq_s;
}

/* vLLM's V0 engine (every release before V1 became the default, 0.4 to
 * 0.6.x; the `vllm` profile is V1). What its host does for one scheduler
 * call, in series with the GPU (vllm-project/vllm @ 0005bbd, a 0.5.x
 * revision, vllm/engine/llm_engine.py, LLMEngine.step()):
 *   once per call: Scheduler.schedule(), the ExecuteModelRequest and its
 *     dispatch to the workers, the GPU -> CPU copy of the sampled tokens
 *     (the sync that ends the step), the stats and the finished-group
 *     sweep (scheduler.free_finished_seq_groups);
 *   once per running sequence: its SequenceGroupMetadata (built by
 *     schedule() and turned into input tensors by the model runner), the
 *     sampler's per-sequence Python results, _process_model_outputs'
 *     loop (output_processor.process_outputs: the new token appended,
 *     incremental detokenisation, the stop checks) and a RequestOutput
 *     per group (RequestOutputFactory.create), and the stats loop.
 * Values (docs/serving-round50.md; the measurements are in
 * tests/data/serving_v0_host.csv, none from the blind set):
 *   fixed 8 ms: vLLM RFC #6913 (2024-07-29, vLLM main of 0.5.3) measured
 *     Llama 3 70B FP8 on 4 x H100 at 19 ms per output token at batch 1;
 *     this model's GPU time for that step is 11.0 ms, which leaves 8 ms of
 *     host time for one sequence. Range 5-13 ms (RFC #6854's GPU bubble);
 *   per sequence 35 us: vLLM PR #7117 (2024-08-04) measured Llama 3 8B on
 *     one H100 at 12,410 tokens/s (mean of three runs of
 *     benchmark_throughput, 256 in / 256 out, main before the PR) with
 *     256 sequences running; with the 8 ms above, 35 us a sequence
 *     reproduces it (+0.7%). Range 30-150 us: #6801 (2024-08-08, a
 *     profile) gives about 20 ms of host time at 200 sequences (60 us
 *     with the 8 ms), and #6913 itself 25 ms per token at batch 32 (150 us
 *     against this model's GPU time) with 3.2 ms of it in
 *     _process_model_outputs alone (100 us a sequence).
 * Simplified: the two terms do not depend on TP (a V0 driver also
 * broadcasts each step's inputs to the other ranks), on the CPU, or on the
 * version within V0: 0.6.x overlaps part of the output processing with
 * the GPU (async output processing, PR #7049) and is given the same host
 * time, paid once per scheduler call with multi-step scheduling
 * (inst_iter). */
void serve_vllm_v0(struct serve_config *cfg)
{
	cfg->step_overhead_s = SERVE_VLLM_V0_STEP_S;
	cfg->per_seq_s = SERVE_VLLM_V0_SEQ_S;
}

/* Builds of an engine older than its profile, one row each.
 *
 * vllm-rocm-0.6: upstream vLLM before its custom ROCm paged-attention
 *   kernel, built from the project's own Dockerfile.rocm (v0.6.1 and
 *   earlier; not AMD's rocm/vllm containers, whose ROCm/vllm fork had the
 *   kernel and enabled it by default from May 2024, ROCm/vllm PR #22).
 *   The kernel (csrc/rocm/attention.cu, paged_attention_rocm, MI250/MI300,
 *   head size 128, block 16) was upstreamed by vllm-project/vllm PR #8310,
 *   reviewed 2024-09-11/12, so v0.6.1 (2024-09-11) decodes with vLLM's
 *   generic paged-attention kernel ported to HIP. Prefill (Triton flash
 *   attention, the ROCm default) and the GEMMs are not changed here.
 *   How much slower the generic kernel decodes: vLLM PR #16426 (2025-04-10,
 *   AMD) restored the custom kernel on V0 and measured "the e2e latency
 *   difference is about 2-3x" on Mistral-7B-v0.1-FP8-KV, input 2048,
 *   output 128, batch 128. hetplan's own burst for that shape (Llama 3.1
 *   8B, the same layers, heads and FFN; one MI300X, FP8 weights and KV,
 *   prompts apart) takes 6.07 s; the decode attention time must be 9x as
 *   long for 2x (12.1 s) and 17x for 3x (18.2 s); the midpoint, 2.5x,
 *   needs 13.3x. dec_attn_x 13.3, range 9-17. Simplifications: one factor
 *   for every context length, batch and KV precision (the measurement is
 *   FP8 KV; a kernel that is not bandwidth-bound may lose less with a
 *   16-bit cache), and the host step is the profile's (no source gives a
 *   per-step figure for this build).
 *
 * vllm-v0: vLLM's V0 engine (0.4 to 0.6.x, before V1 became the default),
 *   on every GPU: its host time per scheduler call and per running
 *   sequence (serve_vllm_v0 above, 8 ms and 35 us), in place of the
 *   profile's; kernels as the profile's. The same terms the serving
 *   accuracy test gives the pre-V1 sources (docs/serving-round50.md).
 *
 * tensorrt-llm-0.7: a TensorRT-LLM engine built by a release before v0.8
 *   (v0.5-v0.7), which has no XQA kernel: its generation-phase attention
 *   is the masked multi-head attention kernel, which reads each KV head
 *   once per query head of its group (serve_trtllm_pre_xqa below; group
 *   = query heads / KV heads, 8 for Llama 2/3 70B, 1 for a multi-head
 *   model, where nothing changes). On every GPU (TensorRT-LLM runs on
 *   NVIDIA parts only); a build of tensorrt-llm-engine, the only workflow
 *   those releases had (trtllm-build engines; the LLM API and the PyTorch
 *   backend came later). No constant: the factor is the model's own head
 *   ratio (docs/serving-round51.md). Host time and the other kernels are
 *   the profile's. */
static const struct serve_build_profile builds[BUILD_COUNT] = {
	/* designated: the rows that keep the profile's host time leave
	 * step_s and seq_s 0 (clang's -Wmissing-field-initializers refuses
	 * a positional row that stops short) */
	[BUILD_CURRENT] = { .name = "current", .engine = ENGINE_VLLM, .gen = GEN_OTHER,
			    .dec_attn_x = 1 },
	[BUILD_VLLM_ROCM_06] = { .name = "vllm-rocm-0.6", .engine = ENGINE_VLLM, .gen = GEN_CDNA,
				 .dec_attn_x = 13.3 },
	[BUILD_VLLM_V0] = { .name = "vllm-v0", .engine = ENGINE_VLLM, .gen = GEN_OTHER,
			    .dec_attn_x = 1, .step_s = SERVE_VLLM_V0_STEP_S,
			    .seq_s = SERVE_VLLM_V0_SEQ_S },
	[BUILD_TRTLLM_PRE_XQA] = { .name = "tensorrt-llm-0.7", .engine = ENGINE_TRTLLM_ENGINE,
				   .gen = GEN_OTHER, .dec_attn_x = 1, .kv_per_qhead = 1 },
};

const struct serve_build_profile *serve_build(enum serve_build b)
{
	return &builds[b < 0 || b >= BUILD_COUNT ? BUILD_CURRENT : b];
}

int serve_build_parse(const char *s, enum serve_build *out)
{
	for (int i = 0; i < BUILD_COUNT; i++)
		if (hp_strieq(s, builds[i].name)) {
			*out = (enum serve_build)i;
			return 0;
		}
	return -1;
}

/* TensorRT-LLM before its XQA kernel (releases before v0.8) decodes with
 * the masked multi-head attention kernel, which walks a sequence's KV
 * cache once per query head: for a GQA model each KV head is processed
 * group = query heads / KV heads times, on CUDA cores, FP8 KV converted
 * per pass. XQA (docs/source/blogs/XQA-kernel.md, NVIDIA/TensorRT-LLM,
 * "XQA kernel provides optimization for MQA and GQA during generation
 * phase ... Using tensor cores ... reducing data loading and conversion";
 * "will be included in the v0.8 releases") processes a group in one pass.
 * Modelled: decode attention time x group (1 for multi-head models), no
 * constant fitted. Check, not a fit (tests/test_serve_accuracy.c, xqa):
 * the same blog measures Llama-70B FP8 on H200, 128 in / 2,048 out, at
 * 1,227 tok/s/GPU without XQA and 2,941 with it on one GPU (2.4x), 13,232
 * and 25,300 on eight (1.9x). Simplified: no L2 reuse between the
 * query heads of a group, and the kernel's rate is the model's KV
 * streaming rate. */
/* Query heads over KV heads: how many times a kernel that walks the KV
 * cache once per query head reads each KV head (1 for multi-head). */
static double kv_group(const struct model_spec *m)
{
	double q = model_q_dim(m), kvd = model_kv_dim(m);
	return kvd > 0 && q > kvd ? q / kvd : 1;
}

void serve_trtllm_pre_xqa(struct serve_config *cfg, const struct model_spec *m)
{
	cfg->kv_reads = kv_group(m);
}

double serve_dec_attn_x(const struct serve_config *cfg, const struct gpu_spec *g,
			const struct model_spec *m)
{
	const struct serve_build_profile *b = serve_build(cfg->build);
	double x = cfg->kv_reads > 1 ? cfg->kv_reads : 1;
	if (cfg->build == BUILD_CURRENT || b->engine != cfg->engine)
		return x;
	/* the pre-XQA build's group, unless the caller set kv_reads */
	if (b->kv_per_qhead && x <= 1 && m)
		x = kv_group(m);
	return g->gen == b->gen ? x * b->dec_attn_x : x;
}

const char *serve_engine_name(enum serve_engine e) { return serve_engine(e)->name; }

int serve_overlap_on(const struct serve_config *cfg)
{
	if (cfg->overlap_sched == OVERLAP_ON)
		return 1;
	if (cfg->overlap_sched == OVERLAP_OFF)
		return 0;
	return serve_engine(cfg->engine)->sched_ahead;
}

const char *serve_overlap_flag(const struct serve_config *cfg)
{
	const struct serve_engine_profile *e = serve_engine(cfg->engine);
	return serve_overlap_on(cfg) == e->sched_ahead ? "" : e->overlap_switch;
}

int serve_engine_parse(const char *s, enum serve_engine *out)
{
	for (int i = 0; i < ENGINE_COUNT; i++)
		if (hp_strieq(s, engines[i].name)) {
			*out = (enum serve_engine)i;
			return 0;
		}
	if (hp_strieq(s, "trtllm") || hp_strieq(s, "trt-llm")) {
		*out = ENGINE_TRTLLM;
		return 0;
	}
	return -1;
}

/* Weight formats, one row each: name; bytes per weight of the MLP/expert
 * linear layers and of the attention projections (quantisation scales
 * included); whether the first and last decoder layers' MLP stay at 16
 * bits; activation-quantisation kernels per decoder layer in an eager step
 * (one per quantised GEMM input: QKV, output, gate/up, down).
 *   int4: one 16-bit scale per group of 128 weights -> 0.5 + 2/128.
 *   fp4 (NVFP4): one FP8 (E4M3) scale per 16 values -> 0.5 + 1/16 (NVIDIA,
 *     "Introducing NVFP4", 2025).
 *   fp8-mlp: Meta's Llama 3.1 FP8 checkpoints (meta-llama/Llama-3.1-405B-FP8
 *     and -Instruct-FP8, quant_method fbgemm_fp8, one scale per output row:
 *     4 bytes per row of 16K+ weights, left out). Meta's reference loader
 *     quantises only feed_forward w1, w3 and w2 and skips layer 0 and layer
 *     n_layers - 1 (meta-llama/llama-models @ dfbccc9,
 *     models/llama3/quantization/loader.py, convert_to_fp8_quantized_model;
 *     the checkpoint's modules_to_not_convert names the same modules, which
 *     vLLM's FBGEMMFp8Config leaves unquantised). For Llama 3.1 405B
 *     (hidden 16,384, FFN 53,248, 126 layers): 124 x 2.617e9 MLP weights at
 *     1 byte, 126 x 0.570e9 attention and 2 x 2.617e9 MLP weights at 2,
 *     embedding and output 8.4 GB at 2: 487.2 GB against 410.1 GB for FP8
 *     in every linear layer, 9.6 GB more per GPU at TP 8. TensorRT-LLM's --use_fp8_rowwise for the same model is FP8 on
 *     the MLP only as well. */
struct wprec_fmt {
	const char *name;
	double lin, attn;
	int edge16;
	int quant_ops;
};
static const struct wprec_fmt wfmt[SW_COUNT] = {
	[SW_BF16] = { "bf16", 2, 2, 0, 0 },
	[SW_FP16] = { "fp16", 2, 2, 0, 0 },
	[SW_FP8] = { "fp8", 1, 1, 0, 4 },
	[SW_INT4] = { "int4", 0.5 + 2.0 / 128, 0.5 + 2.0 / 128, 0, 0 },
	[SW_FP4] = { "fp4", 0.5 + 1.0 / 16, 0.5 + 1.0 / 16, 0, 4 },
	[SW_FP8_MLP] = { "fp8-mlp", 1, 2, 1, 2 },
};
static const char *const kvprec_names[SKV_COUNT] = { "bf16", "fp16", "fp8" };

const char *serve_wprec_name(enum serve_wprec w) { return wfmt[w].name; }
const char *serve_kvprec_name(enum serve_kvprec k) { return kvprec_names[k]; }

int serve_wprec_parse(const char *s, enum serve_wprec *out)
{
	for (int i = 0; i < SW_COUNT; i++)
		if (hp_strieq(s, wfmt[i].name)) {
			*out = (enum serve_wprec)i;
			return 0;
		}
	if (hp_strieq(s, "nvfp4")) {
		*out = SW_FP4;
		return 0;
	}
	return -1;
}

int serve_kvprec_parse(const char *s, enum serve_kvprec *out)
{
	for (int i = 0; i < SKV_COUNT; i++)
		if (hp_strieq(s, kvprec_names[i])) {
			*out = (enum serve_kvprec)i;
			return 0;
		}
	return -1;
}

double serve_wprec_bytes(enum serve_wprec w) { return wfmt[w].lin; }
double serve_wprec_attn_bytes(enum serve_wprec w) { return wfmt[w].attn; }

int serve_wprec_edge16(enum serve_wprec w, int L, int l0, int l1)
{
	if (!wfmt[w].edge16)
		return 0;
	int n = (l0 <= 0 && 0 < l1);
	if (L - 1 > 0 && l0 <= L - 1 && L - 1 < l1)
		n++;
	return n;
}

double serve_kvprec_bytes(enum serve_kvprec k) { return k == SKV_FP8 ? 1 : 2; }

/* FP8 weights: W8A8 on FP8 units (Ada, Hopper, Blackwell, MI300+, Gaudi2+),
 * else weight-only W8A16 through vLLM's FP8 Marlin kernel, which needs an
 * NVIDIA part of compute capability 7.5 (Turing) or later (vLLM docs,
 * features/quantization/fp8: "FP8 models will run on compute capability
 * >= 7.5 (Turing) as weight-only W8A16"; PR #5975 brought it to Ampere).
 * Volta and the AMD parts before MI300 have neither. */
static int wprec_fp8_runs(const struct gpu_spec *g)
{
	if (g->flops[HP_FP8] > 0)
		return 1;
	return g->gen == GEN_TURING || g->gen == GEN_AMPERE || g->gen == GEN_ADA ||
	       g->gen == GEN_HOPPER || g->gen == GEN_BLACKWELL;
}

/* BF16 needs an NVIDIA part of compute capability 8.0 (Ampere) or later:
 * vLLM's CUDA platform lists bf16 among a GPU's dtypes only from 8.0 and
 * check_if_supports_dtype refuses it below ("Bfloat16 is only supported on
 * GPUs with compute capability of at least 8.0 ... --dtype=half"), while its
 * default --dtype auto picks float16 there instead (vllm-project/vllm
 * vllm/platforms/cuda.py @1c0d9ecf, CudaPlatformBase.supported_dtypes and
 * check_if_supports_dtype; vllm/worker/worker.py @6ae52299,
 * _check_if_gpu_supports_dtype). Volta (7.0) and Turing (7.5) are the
 * catalog's parts below 8.0; AMD, Gaudi and parts of unknown generation are
 * not refused (simplified: no catalog part among them lacks bf16). */
static int wprec_bf16_runs(const struct gpu_spec *g)
{
	return hp_gen_sm80(g->gen);
}

int serve_gpu_has_bf16(const struct gpu_spec *g)
{
	return wprec_bf16_runs(g);
}

enum serve_wprec serve_wprec_on(const struct serve_config *cfg, const struct gpu_spec *g)
{
	if (cfg->wprec == SW_BF16 && !cfg->wprec_given && !wprec_bf16_runs(g))
		return SW_FP16;
	return cfg->wprec;
}

/* The KV cache follows the weights' 16-bit type unless told (vLLM's
 * --kv-cache-dtype auto: the model dtype; SGLang's likewise), so a default
 * bf16 cache is an fp16 one where the weights run as fp16. The bytes are
 * the same 2 per element either way. */
enum serve_kvprec serve_kvprec_on(const struct serve_config *cfg, const struct gpu_spec *g)
{
	if (cfg->kvprec == SKV_BF16 && !cfg->kvprec_given && !wprec_bf16_runs(g))
		return SKV_FP16;
	return cfg->kvprec;
}

int serve_kvprec_supported(const struct gpu_spec *g, enum serve_kvprec kv, struct hp_err *err)
{
	if (kv == SKV_BF16 && !wprec_bf16_runs(g))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "--kv-precision bf16: %s %s; --kv-precision fp16 runs", g->name,
				  SERVE_NO_BF16_WHY);
	return 0;
}

int serve_prec_supported(const struct gpu_spec *g, const struct serve_config *cfg,
			 struct hp_err *err)
{
	if (serve_wprec_supported(g, serve_wprec_on(cfg, g), err) < 0 ||
	    serve_kvprec_supported(g, serve_kvprec_on(cfg, g), err) < 0)
		return -1;
	return 0;
}

int serve_wprec_supported(const struct gpu_spec *g, enum serve_wprec w, struct hp_err *err)
{
	if (w == SW_BF16 && !wprec_bf16_runs(g))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "--precision bf16: %s %s; --precision fp16 runs", g->name,
				  SERVE_NO_BF16_WHY);
	if (w == SW_FP4 && g->gen != GEN_BLACKWELL)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "--precision fp4: %s has no FP4 tensor cores (Blackwell has)",
				  g->name);
	if ((w == SW_FP8 || w == SW_FP8_MLP) && !wprec_fp8_runs(g))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "--precision %s: %s has no FP8 units and no weight-only FP8 "
				  "kernel (NVIDIA Turing or later, MI300 or later)",
				  wfmt[w].name, g->name);
	return 0;
}

/* Dense peak of the precision the linear layers compute in. FP4 runs at
 * twice the FP8 rate on Blackwell (B200 datasheet: 9 PFLOPS dense FP4 vs
 * 4.5 FP8). Weight-only INT4 and FP8 without FP8 units compute at 16 bits. */
static double peak16(const struct gpu_spec *g)
{
	if (g->flops[HP_BF16] > 0)
		return g->flops[HP_BF16];
	if (g->flops[HP_FP16] > 0)
		return g->flops[HP_FP16];
	return g->flops[HP_FP32] > 0 ? g->flops[HP_FP32] : 1e12;
}

static double peak_linear(const struct gpu_spec *g, enum serve_wprec w)
{
	if ((w == SW_FP8 || w == SW_FP8_MLP || w == SW_FP4) && g->flops[HP_FP8] > 0)
		return g->flops[HP_FP8] * (w == SW_FP4 && g->gen == GEN_BLACKWELL ? 2 : 1);
	if (w == SW_FP16 && g->flops[HP_FP16] > 0)
		return g->flops[HP_FP16];
	return peak16(g);
}

double serve_kv_bytes_per_token(const struct model_spec *m, enum serve_kvprec kv)
{
	return model_kv_cache_bytes_per_token(m, serve_kvprec_bytes(kv));
}

double serve_stage_kv_bytes_per_token(const struct model_spec *m, int l0, int l1, int tp,
				      enum serve_kvprec kv)
{
	double n = l1 - l0, b = serve_kvprec_bytes(kv);
	if (n <= 0)
		return 0;
	if (m->mla.kv_lora_rank)   /* the latent is not split by heads */
		return n * (m->mla.kv_lora_rank + m->mla.qk_rope_dim) * b;
	double heads = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double per = ceil(heads / tp);  /* replicated when tp > KV heads */
	return 2 * n * per * m->head_dim * b;
}

/* Layers [l0, l1) come in at most two kinds, dense then MoE (the first
 * moe.dense_layers layers are dense): their counts and one index of each.
 * The per-layer sums below run over kinds, not layers. */
static void layer_kinds(const struct model_spec *m, int l0, int l1, int idx[2], int cnt[2])
{
	int dense_end = l1;
	if (m->moe.experts > 0)
		dense_end = m->moe.dense_layers < l0 ? l0 : (m->moe.dense_layers > l1 ? l1 : m->moe.dense_layers);
	idx[0] = l0;
	cnt[0] = dense_end - l0;
	idx[1] = dense_end;
	cnt[1] = l1 - dense_end;
}

double serve_stage_weight_bytes(const struct model_spec *m, int l0, int l1, int embed,
				int head, int tp, enum serve_wprec w)
{
	double lin = 0, at16 = 0;
	int idx[2], cnt[2];
	layer_kinds(m, l0, l1, idx, cnt);
	double attn_p = m->hidden * (2 * model_q_dim(m) + 2 * model_kv_dim(m));
	for (int j = 0; j < 2; j++) {
		double t, a, x;
		if (!cnt[j])
			continue;
		model_layer_params(m, idx[j], &t, &a, &x);
		if (wfmt[w].attn == wfmt[w].lin && !wfmt[w].edge16) {
			lin += cnt[j] * t;
			continue;
		}
		/* the attention projections at their own bytes; the MLP of an
		 * edge layer kept at 16 bits */
		int e = serve_wprec_edge16(w, m->layers, idx[j], idx[j] + cnt[j]);
		double mlp = t - attn_p > 0 ? t - attn_p : 0;
		lin += (cnt[j] - e) * mlp;
		at16 += cnt[j] * (t - mlp) * wfmt[w].attn + e * mlp * 2;
	}
	double vh = (double)m->vocab * m->hidden;
	double rest = 0;
	if (embed)
		rest += vh;
	if (head && (!m->tied_embeddings || !embed))
		rest += vh;
	return (lin * serve_wprec_bytes(w) + at16 + rest * 2) / tp;
}

/* Time of collective c of `bytes` over `ranks` GPUs of pool p, per_node
 * of them in each node (the rest over the network); 0 if it fails. */
static double pool_comm(const struct pool *p, enum comm_coll c, int ranks, int per_node,
			double bytes)
{
	struct comm_group g;
	memset(&g, 0, sizeof g);
	comm_fabric_init(&g.fab, &p->gpu, p->intra, p->nics, p->nic_gbps);
	comm_fabric_set_transport(&g.fab, p->transport);
	comm_fabric_set_intra(&g.fab, p->intra_gbyte_s);
	g.ranks = ranks;
	g.ranks_per_node = per_node;
	g.oversub = 1;
	/* Engines' custom all-reduce (comm.h): TensorRT-LLM's 64 MiB workspace
	 * (customAllReduceUtils.h); vLLM's 8 MiB is not told apart. */
	g.engine_ar_bytes = 67108864;
	struct comm_result r;
	if (comm_time(&g, c, bytes, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, NULL) < 0)
		return 0;
	return r.time_s;
}

/* TP all-reduce of `bytes` over tp GPUs of pool p's node. */
static double tp_allreduce(const struct pool *p, int tp, double bytes)
{
	if (tp <= 1 || bytes <= 0)
		return 0;
	return pool_comm(p, COMM_ALLREDUCE, tp, tp <= p->gpus_per_node ? tp : p->gpus_per_node,
			 bytes);
}

/* Send/recv of `bytes` between two pipeline stages: inside the node when
 * both fit in it, else over the network. */
static double pp_send(const struct pool *p, int inside, double bytes)
{
	if (bytes <= 0)
		return 0;
	return pool_comm(p, COMM_SENDRECV, 2, inside ? 2 : 1, bytes);
}

/* Eager execution: host time to issue one kernel from the engine's Python
 * model code (module call, PyTorch dispatcher, custom-op binding, launch).
 * Sources: PyTorch op dispatch plus launch costs 5-25 us on the CPU
 * before the kernel is queued (PyTorch's "Accelerating PyTorch with CUDA
 * Graphs" blog, 2021; the training model's host_op_s, data/calibration.
 * json, range 3-50 us, fitted 41 us for torchtitan's eager modules);
 * vLLM PR #1440 (2023-10, the CUDA-graph prototype before PR #1926):
 * Llama-2 7B at batch 1, 100 output tokens in 1.2 s eager vs 1.05 s with
 * graphs, 1.5 ms more per step with 32 x 10 kernels, while the GPU's
 * weight read (13.5 GB) leaves the host 6-10 ms per step on an H100 or
 * A100-80GB: 24-36 us per kernel; a Llama 3.1 8B decode step on an H100
 * SXM, 8.4 ms eager against 5.1 ms as one CUDA graph (cloudai.pt, "CUDA
 * Graphs + torch.compile: 1.65x LLM Decode Speedup"): the host's 8.4 ms
 * over vLLM's 323 kernels is 26 us each. Taken: 30 us; range 5-50 us. The same
 * value for HIP (ROCm's launch path is not faster than CUDA's; no stored
 * source gives PyTorch's per-op host time on ROCm: a simplification). */
#define EAGER_OP_S 30e-6

/* Kernels per decoder layer in an engine's eager forward pass (vLLM's
 * LlamaDecoderLayer, vllm/model_executor/models/llama.py, with its custom
 * ops): fused add + RMS norm, QKV GEMM, rotary embedding, KV-cache write
 * (reshape_and_cache), paged attention, output GEMM, fused add + RMS norm,
 * gate/up GEMM, SiLU-and-mul, down GEMM: 10. Quantised weights (FP8, FP4)
 * add one activation-quantisation kernel per quantised GEMM input
 * (scaled_fp8_quant: QKV, output, gate/up, down): +4, +2 where only the
 * MLP is quantised (wfmt quant_ops). TP adds the two all-reduces: +2. An MoE
 * layer adds the router GEMM, top-k softmax, the token alignment and the
 * weighted sum of the experts' outputs (vLLM's fused_moe): +4. Per stage:
 * the embedding on the first, the final norm and the logits GEMM (and
 * their gather under TP) on the last. A count, not a profile: element-wise
 * ops of other models (biases, QK norms) are not added. */
double serve_eager_dispatch_s(const struct model_spec *m, int l0, int l1, int head, int tp,
			      enum serve_wprec w)
{
	if (l1 <= l0)
		return 0;
	double per = 10 + wfmt[w].quant_ops + (tp > 1 ? 2 : 0);
	int idx[2], cnt[2];
	layer_kinds(m, l0, l1, idx, cnt);
	double k = (l1 - l0) * per;
	if (cnt[1] > 0 && model_layer_is_moe(m, idx[1]))
		k += 4.0 * cnt[1];
	if (l0 == 0)
		k += 1;
	if (head)
		k += 2 + (tp > 1 ? 1 : 0);
	return k * EAGER_OP_S;
}

/* Roofline of a kernel group with partial overlap of compute and memory. */
static double roof(const struct serve_calib *k, double compute, double memory)
{
	return fmax(compute, memory) + (1 - k->overlap) * fmin(compute, memory);
}

double serve_stage_time(const struct pool *p, const struct model_spec *m, int l0, int l1,
			int head, int tp, enum serve_wprec w, enum serve_kvprec kv,
			const struct serve_iter *it, const struct serve_calib *k,
			double *t_gemm, double *t_attn, double *t_comm)
{
	const struct gpu_spec *g = &p->gpu;
	if (!k)
		k = &calib_default;
	double T = it->n_dec + it->n_pre;
	double h = m->hidden, q = model_q_dim(m), kvd = model_kv_dim(m);
	double wb = serve_wprec_bytes(w);
	struct vendor_eff ve = gpu_vendor_eff(g);
	double bw = g->hbm_Bps * k->hbm_eff * ve.hbm;
	double pk_lin = peak_linear(g, w) * ve.gemm *
			(peak_linear(g, w) > peak16(g) ? k->gemm_eff_lowp : k->gemm_eff);
	double pk_att = peak16(g) * k->attn_eff * ve.attn;
	/* a weight format with modules at 16 bits (wfmt: attention
	 * projections, edge layers' MLP) runs their GEMMs at the 16-bit peak */
	int mixed = wfmt[w].attn != wfmt[w].lin || wfmt[w].edge16;
	double pk_16 = peak16(g) * ve.gemm * k->gemm_eff;
	double lin_flops = 0, lin_bytes = 0, flops16 = 0;
	int nl = l1 - l0;
	double c = k->gemm_dim_half;
#define SHAPE(n, kk) (((n) / ((n) + c)) * ((kk) / ((kk) + c)))
	int idx[2], cnt[2];
	layer_kinds(m, l0, l1, idx, cnt);
	for (int j = 0; j < 2; j++) {
		if (!cnt[j])
			continue;
		int i = idx[j];
		double nk = cnt[j];
		double tot, act, exp;
		model_layer_params(m, i, &tot, &act, &exp);
		double nonexp = tot - exp;
		double touched = 0;
		if (exp > 0 && m->moe.experts > 0) {
			double E = m->moe.experts, kk = m->moe.top_k;
			double frac = 1 - pow(1 - kk / E, T);
			touched = exp * frac;
		}
		/* expert FLOPs count 1/moe_eff times: they run slower */
		double act_exp = act - nonexp;
		double ffn = model_layer_is_moe(m, i) ? m->moe.expert_ffn * m->moe.top_k : m->ffn;
		double up = m->gated_mlp ? 2 : 1;
		double eff_ffn = model_layer_is_moe(m, i) ? m->moe.expert_ffn : m->ffn;
		/* shape factors: QKV and output projections, MLP up and down */
		double f_attn = 0.5 * (SHAPE((q + 2 * kvd) / tp, h) + SHAPE(h, q / tp));
		double f_mlp = 0.5 * (SHAPE(up * eff_ffn / tp, h) + SHAPE(h, eff_ffn / tp));
		double attn_p = h * (2 * q + 2 * kvd);
		double mlp_p = nonexp - attn_p > 0 ? nonexp - attn_p : 0;
		double mlp_fl = mlp_p / f_mlp + (act_exp > 0 ? act_exp / (k->moe_eff * f_mlp) : 0);
		if (!mixed) {
			lin_flops += nk * 2 * T * (attn_p / f_attn + mlp_fl);
			lin_bytes += nk * (nonexp + touched) * wb;
		} else {
			double e = serve_wprec_edge16(w, m->layers, i, i + cnt[j]);
			double rest = nonexp - attn_p > 0 ? nonexp - attn_p : 0;
			lin_flops += (nk - e) * 2 * T * mlp_fl;
			flops16 += e * 2 * T * mlp_fl + nk * 2 * T * attn_p / f_attn;
			lin_bytes += (nk - e) * (rest + touched) * wb + e * (rest + touched) * 2 +
				     nk * attn_p * wfmt[w].attn;
		}
		/* activations read and written by the linear layers, 16-bit */
		lin_bytes += nk * T * 2 * (4 * h + 2 * (q + 2 * kvd) + 3 * ffn);
	}
#undef SHAPE
	if (head) {
		double seqs = it->n_dec + it->n_pre_seqs;
		lin_flops += 2 * seqs * h * m->vocab;
		lin_bytes += h * (double)m->vocab * 2 + seqs * m->vocab * 4;
	}
	lin_flops /= tp;
	lin_bytes /= tp;
	flops16 /= tp;
	double tg = T > 0 ? roof(k, lin_flops / pk_lin + (mixed ? flops16 / pk_16 : 0), lin_bytes / bw) : 0;
	/* attention: decode tokens read their whole context of KV */
	double kv_tok = serve_stage_kv_bytes_per_token(m, l0, l1, tp, kv);
	double qd = q / tp < 1 ? 1 : q / tp;
	double dec_flops = 4 * it->n_dec * it->ctx * qd * nl;
	double dec_bytes = it->n_dec * it->ctx * kv_tok;
	double pre_flops = 4 * it->n_pre * it->pre_ctx * qd * nl;
	double pre_bytes = it->n_pre * kv_tok * 2;   /* write K/V, read them back */
	double ta = roof(k, dec_flops / pk_att, dec_bytes / bw);
	if (it->dec_attn_x > 1)
		ta *= it->dec_attn_x;
	ta += roof(k, pre_flops / pk_att, pre_bytes / bw);
	double tc = 2.0 * nl * tp_allreduce(p, tp, T * h * 2) * ve.comm;
	if (t_gemm)
		*t_gemm = tg;
	if (t_attn)
		*t_attn = ta;
	if (t_comm)
		*t_comm = tc;
	if (it->eager)
		return fmax(tg + ta + tc, serve_eager_dispatch_s(m, l0, l1, head, tp, w));
	return tg + ta + tc;
}

/* The memory a serving engine sees: the driver-reported total from the
 * catalog (memory_usable_mib: an "80GB" H100 shows 81,559 MiB = 85.5e9
 * bytes, an L40S 46,068 MiB) when it has one. Otherwise HBM capacities are
 * taken as sold in binary gigabytes (the catalog stores GB as 1e9 bytes),
 * HBM told apart by its bandwidth: above 1 TB/s no GDDR part reaches. */
double serve_gpu_mem_bytes(const struct gpu_spec *g)
{
	if (g->mem_usable_bytes > 0)
		return g->mem_usable_bytes;
	return g->hbm_Bps > 1e12 ? g->mem_bytes * 1.073741824 : g->mem_bytes;
}

/* --- one instance ------------------------------------------------------ */

struct inst {
	const struct pool *p;
	const struct model_spec *m;
	const struct serve_calib *k;
	const struct serve_engine_profile *e;
	int tp, pp;
	enum serve_wprec w;
	enum serve_kvprec kv;
	int chunk;
	int inside;               /* the whole instance in one node */
	double step_s;            /* host time per iteration (serve_step_overhead) */
	double seq_s;             /* host time per running sequence per iteration
				   * (serve_per_seq_overhead) */
	int apart;                /* prompts in iterations of their own */
	int steps;                /* decode iterations per scheduler call */
	int eager;                /* no CUDA/HIP graphs */
	int graph_max;            /* engine's largest graph batch (0: all) */
	int ahead;                /* batches scheduled ahead of the GPU */
	double batch_J;           /* a batching client: seconds between the
				   * batches this engine gets (0: Poisson) */
	double wait_h;            /* a request's mean hold in that client */
	double dec_attn_x;        /* decode attention factor of the build */
};

/* Time of one round of the whole instance: every running sequence moves
 * one iteration. n_dec decode sequences at context ctx, plus n_pre prefill
 * tokens of n_pre_seqs sequences (keys reaching back pre_ctx). */
static double inst_iter(const struct inst *in, double n_dec, double ctx, double n_pre,
			double pre_ctx, double n_pre_seqs, double *tg, double *ta, double *tc)
{
	int pp = in->pp, L = in->m->layers;
	/* an engine whose graphs stop at graph_max runs a larger decode
	 * batch, and any iteration with prompts, eagerly */
	int eager = in->eager || (in->graph_max > 0 && (n_pre > 0 || n_dec > in->graph_max));
	struct serve_iter it = { n_dec / pp, ctx, n_pre / pp, pre_ctx, n_pre_seqs / pp, eager,
				 in->dec_attn_x };
	double worst = 0, g = 0, a = 0, c = 0;
	for (int s = 0; s < pp; s++) {
		int l0 = L * s / pp, l1 = L * (s + 1) / pp;
		double sg, sa, sc;
		double t = serve_stage_time(in->p, in->m, l0, l1, s == pp - 1, in->tp, in->w, in->kv,
					    &it, in->k, &sg, &sa, &sc);
		if (t > worst) {
			worst = t;
			g = sg;
			a = sa;
			c = sc;
		}
	}
	double send = 0;
	if (pp > 1)
		send = pp_send(in->p, in->inside, (n_dec + n_pre) / pp * in->m->hidden * 2 / in->tp);
	/* Stages on different machines: each machine's worker receives the
	 * activations and runs its own host step (input preparation for its
	 * layers) before its kernels start, in series with its stage (Helix's
	 * per-machine engines: docs/serving.md, "Placement"). Not charged
	 * when the instance fits in one node: the 69 measured rows with pp > 1
	 * inside one node (tests/data/serving.csv) are fitted without it. */
	double hop = pp > 1 && !in->inside ? in->step_s : 0;
	double ovh = in->step_s + in->seq_s * (n_dec + n_pre_seqs);
	/* Multi-step scheduling (vLLM before V1, num_scheduler_steps S > 1,
	 * prompts apart): one scheduler call plans, prepares the inputs of
	 * and processes the outputs of S decode iterations, each iteration
	 * then only advancing its inputs on the GPU (vLLM RFC "Multi-Step
	 * Scheduling", issue #6854; v0.6.0 blog, 2024-09-05: the host work
	 * is paid once per S steps). The RFC lists what is amortised: the
	 * copy of the sampled tokens to the host, their detokenisation and
	 * Python outputs, the next step's input metadata and the scheduler,
	 * so a decode iteration carries 1/S of the whole host step, the
	 * per-sequence part included; a prefill iteration is a call of its
	 * own. Simplified: the GPU-side advance of the inputs between steps
	 * is not charged. */
	if (in->apart && in->steps > 1 && n_pre <= 0)
		ovh /= in->steps;
	if (tg) {
		*tg = pp * g;
		*ta = pp * a;
		*tc = pp * (c + send);
	}
	/* The host step stays in series with an overlap scheduler too: taking
	 * the longer of host and GPU instead (the scheduler's own claim)
	 * moved the cross-validated offline error of the measured rows from
	 * 18.8% to 29.0% (TensorRT-LLM's PyTorch-backend rows, whose
	 * per-sequence host time then vanished; docs/serving.md). */
	return pp * (worst + send + hop) + ovh;
}

/* One iteration at running batch n with a prefill stream of `rate`
 * requests/s: the iteration carries rate x t x ISL prefill tokens (at most
 * chunk - n); solved for t by fixed point (the map is a contraction: the
 * prefill share grows slower than t). */
static double iter_at(const struct inst *in, double n, double isl, double osl, double rate)
{
	double ctx = isl + osl / 2;
	double t = inst_iter(in, n, ctx, 0, 0, 0, NULL, NULL, NULL);
	for (int i = 0; i < 40; i++) {
		double pre = rate * t * isl;
		double cap = in->chunk - n;
		if (cap < 0)
			cap = 0;
		if (pre > cap)
			pre = cap;
		double t2 = inst_iter(in, n, ctx, pre, isl / 2, pre / isl, NULL, NULL, NULL);
		if (fabs(t2 - t) < 1e-5 * t)
			return t2;
		t = t2;
	}
	return t;
}

/* Prompts apart: k prompts of isl tokens in prefill-only iterations of
 * at most chunk tokens each. */
static double prefill_apart(const struct inst *in, double k, double isl)
{
	double tok = k * isl;
	if (!(tok > 0))
		return 0;
	double nit = ceil(tok / in->chunk);
	return nit * inst_iter(in, 0, 0, tok / nit, isl / 2, k / nit, NULL, NULL, NULL);
}

/* Decode iterations per scheduler call: num_scheduler_steps, but no more
 * than a request's output (a run whose sequences have all finished ends). */
static double apart_steps(const struct inst *in, double osl)
{
	return fmin(in->steps, fmax(1, osl));
}

/* The share of time decodes are running, with n running on average: a
 * prompt that arrives to an idle engine is scheduled at once; the
 * running count below saturation is Poisson around n (M/G/inf), so
 * P(any running) = 1 - exp(-n). */
static double apart_busy(double n)
{
	return n > 0 ? -expm1(-n) : 0;
}

/* The chance that prompts arrived during a scheduler cycle of C seconds
 * at rate lam: Poisson arrivals, 1 - exp(-lam C); a batching client's
 * batches, one every batch_J seconds, C / batch_J (at most 1). */
static double apart_pk(const struct inst *in, double lam, double C)
{
	if (in->batch_J > 0)
		return fmin(1, C / in->batch_J);
	return -expm1(-lam * C);
}

/* Prompts apart, at rate lam with n running: the scheduler cycle C (S
 * decode iterations and, when prompts arrived, one prefill call of the
 * lam C / P(k > 0) prompts that did) and that call's time *p (header
 * comment). HUGE_VAL when the prompts alone fill the GPU. */
static double apart_cycle(const struct inst *in, double n, double isl, double osl, double lam,
			  double *p)
{
	double S = apart_steps(in, osl), d = inst_iter(in, n, isl + osl / 2, 0, 0, 0, NULL, NULL, NULL);
	/* the prompts alone: at most kf = chunk / isl per iteration (at least
	 * one); at or above that iteration's rate there is no steady state */
	double kf = floor(in->chunk / isl) > 1 ? floor(in->chunk / isl) : 1;
	*p = prefill_apart(in, 1, isl);
	if (!(lam * prefill_apart(in, kf, isl) < kf)) {
		*p = HUGE_VAL;
		return HUGE_VAL;
	}
	/* C -> S d + P(k > 0) p(k) is increasing in C: from S d (below the
	 * fixed point) the iteration rises to it */
	double C = S * d;
	for (int i = 0; i < 500; i++) {
		double a = lam * C, pk = apart_pk(in, lam, C);
		double k = a > 1e-12 && pk > 0 ? a / pk : 1;
		*p = prefill_apart(in, k, isl);
		double C2 = S * d + pk * *p;
		if (fabs(C2 - C) < 1e-7 * C2)
			return C2;
		C = C2;
	}
	return C;
}

/* Prompts apart with one decode iteration per call (SGLang's scheduler,
 * vLLM before V1 without multi-step): of the token gaps a request sees,
 * a share P(k > 0) = 1 - exp(-lam C) also holds a prefill call p, the
 * rest are one decode iteration d(n). A benchmark's median ITL pools all
 * gaps (SGLang's and vLLM's bench_serving: np.median(itls)), so below
 * half it is d(n), above it d(n) + p. With S > 1 decode iterations per
 * call the engine streams its tokens in runs of S, whose gaps this
 * does not separate: the mean TPOT is returned. */
static double apart_gap_p50(const struct inst *in, double n, double isl, double osl, double lam,
			    double tpot)
{
	if (apart_steps(in, osl) > 1)
		return tpot;
	double p, C = apart_cycle(in, n, isl, osl, lam, &p);
	if (!isfinite(C))
		return tpot;
	double d = inst_iter(in, n, isl + osl / 2, 0, 0, 0, NULL, NULL, NULL);
	return apart_pk(in, lam, C) < 0.5 ? d : d + p;
}

/* Offline: B sequences in steady state. Time of one cycle of OSL
 * iterations, during which each sequence is replaced once. */
static double cycle_time(const struct inst *in, double B, double isl, double osl)
{
	double ctx = isl + osl / 2;
	if (in->apart) {
		double k = B * apart_steps(in, osl) / osl;
		if (k < 1)
			k = 1;
		return osl * inst_iter(in, B, ctx, 0, 0, 0, NULL, NULL, NULL) +
		       B / k * prefill_apart(in, k, isl);
	}
	double per_iter = B * isl / osl;
	double cap = in->chunk - B;
	if (cap < 0)
		cap = 0;
	double ride = per_iter < cap ? per_iter : cap;
	double t = osl * inst_iter(in, B, ctx, ride, isl / 2, ride / isl, NULL, NULL, NULL);
	double left = B * isl - ride * osl;
	if (left > 0.5) {
		double full = in->chunk;
		double n = ceil(left / full);
		t += n * inst_iter(in, 0, 0, left / n, isl / 2, left / n / isl, NULL, NULL, NULL);
	}
	return t;
}

void serve_pool_from_gpu(struct pool *p, const struct gpu_spec *g, int nodes)
{
	memset(p, 0, sizeof *p);
	hp_strlcpy(p->name, g->name, sizeof p->name);
	p->gpu = *g;
	p->gpus_per_node = g->def_gpus_per_node > 0 ? g->def_gpus_per_node : 8;
	p->nodes = nodes > 0 ? nodes : 1;
	p->intra = g->def_intra;
	p->nics = g->def_nics;
	p->nic_gbps = g->def_nic_gbps;
	pool_apply_defaults(p);
}

double serve_erlang_c(int c, double a)
{
	if (c <= 0 || a <= 0)
		return 0;
	if (a >= c)
		return 1;
	/* Erlang B by the stable recursion B_i = a B_(i-1) / (i + a B_(i-1)),
	 * kept as its reciprocal R_i = 1 / B_i = 1 + (i / a) R_(i-1): all
	 * terms positive, one multiply-add a step instead of a division (the
	 * fleet search's hottest loop; the two forms agree to rounding).
	 * Once R passes 1e300, B is below 1e-300 and C with it: 0. */
	double r = 1, inv_a = 1 / a;
	for (int i = 1; i <= c; i++) {
		r = 1 + i * inv_a * r;
		if (r > 1e300)
			return 0;
	}
	double b = 1 / r;
	double rho = a / c;
	return b / (1 - rho * (1 - b));
}

/* The first-token wait U + W1 + W2 (serve_perf.h). Each W_i has the tail
 * p_i exp(-x / m_i), so its mean is p_i m_i. Given that both wait, W1 + W2
 * is hypoexponential: P(> y) = (m1 e^(-y/m1) - m2 e^(-y/m2)) / (m1 - m2),
 * or (1 + y/m) e^(-y/m) when m1 = m2 = m. Averaging over the uniform
 * phase integrates these in closed form: P(U + W > x) = (max(0, u - x) +
 * integral of P(W > y) dy over y in [max(0, x - u), x]) / u. */

/* integral of e^(-y/m) dy over [lo, hi] */
static double exp_int(double m, double lo, double hi)
{
	return m * (exp(-lo / m) - exp(-hi / m));
}

/* P(W1 + W2 > y) at y (point, lo < 0) or its integral over [lo, hi]. */
static double wait_part(const struct serve_wait *w, double lo, double hi)
{
	double p1 = w->p1 > 0 && w->m1 > 0 ? (w->p1 < 1 ? w->p1 : 1) : 0;
	double p2 = w->p2 > 0 && w->m2 > 0 ? (w->p2 < 1 ? w->p2 : 1) : 0;
	double m1 = p1 > 0 ? w->m1 : 1, m2 = p2 > 0 ? w->m2 : 1;
	int point = lo < 0;
	double e1 = point ? exp(-hi / m1) : exp_int(m1, lo, hi);
	double e2 = point ? exp(-hi / m2) : exp_int(m2, lo, hi);
	double h = 0;
	if (p1 > 0 && p2 > 0) {
		double mm = m1 > m2 ? m1 : m2;
		if (fabs(m1 - m2) < 1e-6 * mm) {
			double m = 0.5 * (m1 + m2);
			h = point ? (1 + hi / m) * exp(-hi / m)
				  : (2 * m + lo) * exp(-lo / m) - (2 * m + hi) * exp(-hi / m);
		} else {
			h = (m1 * e1 - m2 * e2) / (m1 - m2);
		}
	}
	return p1 * (1 - p2) * e1 + (1 - p1) * p2 * e2 + p1 * p2 * h;
}

double serve_wait_tail(const struct serve_wait *w, double x)
{
	if (!(x > 0))
		return 1;
	if ((w->p1 > 0 && isinf(w->m1)) || (w->p2 > 0 && isinf(w->m2)))
		return 1;
	if (!(w->u > 0))
		return wait_part(w, -1, x);
	double lo = x > w->u ? x - w->u : 0;
	double flat = x < w->u ? w->u - x : 0;
	return (flat + wait_part(w, lo, x)) / w->u;
}

double serve_wait_quantile(const struct serve_wait *w, double q)
{
	if ((w->p1 > 0 && isinf(w->m1)) || (w->p2 > 0 && isinf(w->m2)))
		return HUGE_VAL;
	double target = 1 - q;
	double lo = 0, hi = (w->u > 0 ? w->u : 0) + (w->p1 > 0 && w->m1 > 0 ? w->m1 : 0) +
			    (w->p2 > 0 && w->m2 > 0 ? w->m2 : 0);
	if (!(hi > 0) || !(target > 0 && target < 1))
		return target <= 0 ? hi * 50 : 0;
	for (int i = 0; i < 200 && serve_wait_tail(w, hi) > target; i++)
		hi *= 2;
	/* the tail falls monotonically in x: bisect to a relative 1e-9 */
	for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (serve_wait_tail(w, mid) > target)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Quantile z of the standard normal for p = 0.5 and 0.99. */
#define Z99 2.326

/* The configuration is possible at all: 0, or -1 with err. */
static int check_config(const struct pool *p, const struct model_spec *m,
			const struct serve_config *cfg, int tp, int pp, const struct serve_load *ld,
			struct hp_err *err)
{
	if (tp & (tp - 1))
		return hp_err_set(err, HP_EXIT_USAGE, "--tp: expected a power of two, got %d", tp);
	if (tp > p->gpus_per_node)
		return hp_err_set(err, HP_EXIT_USAGE,
				  "--tp %d: a node of pool '%s' has %d GPUs (TP stays inside a node)",
				  tp, p->name, p->gpus_per_node);
	if (pp > m->layers)
		return hp_err_set(err, HP_EXIT_USAGE, "--pp %d: the model has %d layers", pp,
				  m->layers);
	if (!(ld->isl >= 1 && ld->osl >= 1 && ld->isl <= 1e7 && ld->osl <= 1e7))
		return hp_err_set(err, HP_EXIT_USAGE, "--isl/--osl: expected 1 to 1e7 tokens");
	if (serve_prec_supported(&p->gpu, cfg, err) < 0)
		return -1;
	if (!(p->gpu.hbm_Bps > 0) ||
	    !(p->gpu.flops[HP_BF16] > 0 || p->gpu.flops[HP_FP16] > 0 || p->gpu.flops[HP_FP32] > 0))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "GPU %s: the catalog has no FLOP/s or memory bandwidth for it", p->gpu.name);
	int total_gpus = p->gpus_per_node * p->nodes;
	if (tp * pp > total_gpus && total_gpus > 0)
		return hp_err_set(err, HP_EXIT_NOFIT,
				  "tp %d x pp %d needs %d GPUs; pool '%s' has %d", tp, pp,
				  tp * pp, p->name, total_gpus);
	return 0;
}

void serve_batch_limits(const struct pool *p, const struct serve_config *cfg, int *max_batch,
			int *chunk)
{
	double gib = 1073741824.0;
	const struct serve_engine_profile *e = serve_engine(cfg->engine);
	*max_batch = e->max_batch;
	*chunk = e->chunk_tokens;
	if (cfg->engine == ENGINE_VLLM && serve_gpu_mem_bytes(&p->gpu) >= 70 * gib &&
	    p->gpu.gen != GEN_AMPERE) {
		*max_batch = 1024;   /* get_batch_defaults, >= 70 GiB and not A100 */
		*chunk = 8192;
	}
	if (cfg->max_batch > 0)
		*max_batch = cfg->max_batch;
	if (cfg->chunk_tokens > 0)
		*chunk = cfg->chunk_tokens;
	if (*chunk < *max_batch)
		*chunk = *max_batch;   /* every running sequence decodes each step */
}

double serve_act_bytes(const struct model_spec *m, int tp, int chunk, int max_batch)
{
	double h = m->hidden;
	double ffn = m->moe.experts ? (double)m->moe.expert_ffn * m->moe.top_k : m->ffn;
	if (m->moe.experts && m->ffn > ffn)
		ffn = m->ffn;
	/* peak activations of one forward over `chunk` tokens (16-bit; the
	 * widest layer's live tensors) and the fp32 logits of the sampled rows */
	return chunk * 2.0 * (2 * h + 2 * ffn / tp + model_q_dim(m) / tp) +
	       (double)max_batch * m->vocab * 4 / tp;
}

/* NCCL's NVLink SHARP (NVLS) all-reduce on NVSwitch systems of Hopper and
 * later maps multicast buffers per communicator: "NVLS comm ... nHeads 8
 * buffSize 4194304 memSize 2097152 nvlsPerRankSize 301989888 nvlsTotalSize
 * 2415919104" (2.25 GiB at 8 ranks, nvlsPerRankSize x nHeads), and NCCL
 * turns it on only for more than 2 GPUs, on H100 and later (vLLM issue
 * #9699, "Empirical Measurement of NVLS", 2024-10-25, vLLM of October 2024).
 * The same issue serves Llama 3.1 405B at TP 8 on 8 x H200 with NVLS on
 * and off (NCCL_NVLS_ENABLE=0): 17,595 KV blocks against 22,7xx (the last
 * two digits not in the stored copy), 5,105-5,204 blocks of 16 tokens x
 * 126 layers x 1 KV head x 128 x 2 x 2 bytes = 1,032,192 bytes per GPU:
 * 4.91-5.00 GiB per GPU less for the KV cache with NVLS on, more than one
 * communicator's 2.25 GiB (vLLM held two on the TP group then:
 * torch.distributed's and its own PyNccl communicator, 4.5 GiB). Taken:
 * the measured lower bound, 5,105 blocks (4.91 GiB) at 8 ranks (range
 * 4.5-5.0 GiB), scaled by the ranks as nvlsTotalSize is (nvlsPerRankSize
 * x nHeads): 0.61 GiB per rank.
 * Only for vLLM, the engine measured; SGLang turned NVLS off by default
 * (sgl-project/sglang PR #631, 2024-07; opt-in from PR #3502) and
 * TensorRT-LLM's own all-reduce and its order of NCCL set-up and KV
 * sizing were not checked. Simplifications: the figure of the NCCL of
 * late 2024 (later NCCL releases' NVLS footprint was not checked); a TP
 * group wider than the NVLink domain (a node, or an NVL72 rack) is given
 * none. */
#define NVLS_BYTES_PER_RANK (5105.0 * 1032192.0 / 8)

double serve_nvls_bytes(const struct pool *p, enum serve_engine e, int tp)
{
	int domain = p->nvl_domain > p->gpus_per_node ? p->nvl_domain : p->gpus_per_node;
	if (e != ENGINE_VLLM || tp <= 2 || tp > domain || p->intra != INTRA_NVSWITCH)
		return 0;
	if (p->gpu.gen != GEN_HOPPER && p->gpu.gen != GEN_BLACKWELL)
		return 0;
	return tp * NVLS_BYTES_PER_RANK;
}

/* Memory per GPU of the worst stage: weights, activations, the KV pool.
 * Fills r's memory fields; returns the KV capacity in tokens. */
static double kv_capacity(const struct inst *in, const struct serve_config *cfg, int max_batch,
			  struct serve_result *r)
{
	const struct model_spec *m = in->m;
	const struct serve_engine_profile *e = in->e;
	int L = m->layers, tp = in->tp, pp = in->pp, chunk = in->chunk;
	double wmax = 0, kvmin_tok = 0;
	for (int s = 0; s < pp; s++) {
		int l0 = L * s / pp, l1 = L * (s + 1) / pp;
		double wb = serve_stage_weight_bytes(m, l0, l1, s == 0, s == pp - 1, tp, cfg->wprec);
		if (wb > wmax)
			wmax = wb;
		double kt = serve_stage_kv_bytes_per_token(m, l0, l1, tp, cfg->kvprec);
		if (kt > kvmin_tok)
			kvmin_tok = kt;
	}
	double act = serve_act_bytes(m, tp, chunk, max_batch);
	double util = cfg->mem_util > 0 ? cfg->mem_util : e->mem_util;
	double mem = serve_gpu_mem_bytes(&in->p->gpu);
	double fixed = in->k->mem_fixed_bytes + serve_nvls_bytes(in->p, cfg->engine, tp);
	double kv_gpu;
	if (e->util_of_free)
		kv_gpu = (mem - wmax - act - fixed) * util;
	else
		kv_gpu = mem * util - wmax - act - fixed;
	r->weights_bytes_gpu = wmax;
	r->act_bytes_gpu = act;
	r->capacity_bytes_gpu = mem;
	r->kv_bytes_per_token = serve_kv_bytes_per_token(m, cfg->kvprec);
	r->kv_bytes_gpu = kv_gpu > 0 ? kv_gpu : 0;
	double cap_tok = kv_gpu > 0 && kvmin_tok > 0 ? floor(kv_gpu / kvmin_tok) : 0;
	r->kv_capacity_tokens = cap_tok;
	return cap_tok;
}

/* It does not fit: say what overflows; latencies infinite. */
static void no_fit(const struct inst *in, const struct serve_config *cfg, double need_tok,
		   struct serve_result *r)
{
	const struct serve_engine_profile *e = in->e;
	double util = cfg->mem_util > 0 ? cfg->mem_util : e->mem_util;
	double mem = r->capacity_bytes_gpu;
	char b1[32], b2[32];
	hp_fmt_bytes(b1, sizeof b1, r->weights_bytes_gpu + r->act_bytes_gpu + in->k->mem_fixed_bytes +
					    serve_nvls_bytes(in->p, cfg->engine, in->tp));
	hp_fmt_bytes(b2, sizeof b2, mem * (e->util_of_free ? 1 : util));
	if (r->kv_bytes_gpu <= 0)
		snprintf(r->why, sizeof r->why,
			 "weights and workspace need %s per GPU of %s usable on %s (tp %d, pp %d)",
			 b1, b2, in->p->gpu.name, in->tp, in->pp);
	else
		snprintf(r->why, sizeof r->why,
			 "the KV cache holds %.0f tokens, less than one %.0f-token request (tp %d, pp %d on %s)",
			 r->kv_capacity_tokens, need_tok, in->tp, in->pp, in->p->gpu.name);
	r->fits = 0;
	r->ttft_s.mean = r->ttft_s.p50 = r->ttft_s.p99 = HUGE_VAL;
	r->tpot_s.mean = r->tpot_s.p50 = r->tpot_s.p99 = r->itl_p50_s = HUGE_VAL;
}

/* Saturation (batch B always full) and one request alone. Returns the
 * time of one cycle of OSL iterations at saturation. */
static double saturation(const struct inst *in, double B, double isl, double osl,
			 struct serve_result *r)
{
	double cyc = cycle_time(in, B, isl, osl);
	r->out_tps_max = B * osl / cyc;
	r->req_s_max = r->out_tps_max / osl;
	double ctx = isl + osl / 2;
	r->tpot_sat_s = inst_iter(in, B, ctx, 0, 0, 0, &r->t_gemm, &r->t_attn, &r->t_comm);
	r->t_overhead = in->step_s * (in->pp > 1 && !in->inside ? 1 + in->pp : 1) + in->seq_s * B;
	/* unloaded */
	double n_chunks = ceil(isl / in->chunk);
	double t_pre1 = inst_iter(in, 0, 0, isl / n_chunks, isl / 2, 1, NULL, NULL, NULL);
	r->tpot_min_s = inst_iter(in, 1, ctx, 0, 0, 0, NULL, NULL, NULL);
	r->ttft_min_s = in->k->frontend_s + n_chunks * t_pre1;
	return cyc;
}

/* Prompts riding the decode iterations, sent by a batching client: the
 * K = lam x batch_J prompts of a batch arrive together and share the
 * iterations' prefill room (chunk - n tokens, at least one token), so
 * the batch's K x isl tokens take m = ceil(K isl / room) iterations, each
 * carrying min(room, K isl) prompt tokens (t_b, longer than the one-chunk
 * iteration t_pf of a lone prompt). Prompt j of the batch has its last
 * token in iteration about j m / K, so the mean prompt's first token
 * comes (m + m / K) / 2 iterations of t_b after the batch arrives; the
 * caller adds its own n_chunks x t_pf, so the wait returned is that less
 * n_chunks x t_pf (never below 0). Batches do not overlap below
 * busy = m t_b / batch_J < 1; at or above it HUGE_VAL. A simplification:
 * the M/D/1 queue of single prompts is replaced, and the wait is taken as
 * fixed (*rho is returned as 0 for the tail). */
static double batch_prefill_wait(const struct inst *in, double n, double ctx, double isl,
				 double lam, double t_pf, double *rho)
{
	double K = fmax(lam * in->batch_J, 1), tokens = K * isl;
	double room = fmax(in->chunk - n, 1), carry = fmin(room, tokens);
	double m = ceil(tokens / room);
	double t_b = inst_iter(in, n, ctx, carry, isl / 2, carry / isl, NULL, NULL, NULL);
	double busy = m * t_b / in->batch_J;
	double n_chunks = ceil(isl / in->chunk);
	*rho = 0;
	if (!(busy < 1))
		return HUGE_VAL;
	return fmax((m + m / K) / 2 * t_b - n_chunks * t_pf, 0);
}

/* A batching client (serve_load.batch_window_s): the interval J between
 * the batches one engine gets and a request's mean hold in the client.
 * The client's loop (AMD's MLPerf SUT, batch_samples_loop): a send opens
 * a window of w seconds; a request that arrives inside it waits for its
 * end, and the batch leaves at the first event after it (the next
 * arrival, or the timeout of the wait for one: a residual delta = (1 -
 * exp(-L w)) / L, L = rate x engines), so a busy window lasts w' = w +
 * delta and its requests are held w' / 2 on average (taken as a fixed
 * length). A window that ends empty leaves the client idle: the next
 * request is sent at once and opens a window. Windows run on while each
 * has an arrival (probability 1 - exp(-L w')), so per idle arrival there
 * are exp(L w') sends and 1 + L w' exp(L w') requests: a share 1 / (1 +
 * L w' exp(L w')) is not held, the mean batch is exp(-L w') + L w', and
 * each engine gets every engines-th batch. At batch_max queued requests a
 * batch leaves at once (batches of batch_max every batch_max / L, held
 * half that). */
void serve_client_batches(const struct serve_load *ld, double *J, double *hold)
{
	*J = *hold = 0;
	if (!(ld->batch_window_s > 0) || !(ld->rate > 0))
		return;
	double eng = ld->batch_engines > 1 ? ld->batch_engines : 1;
	double L = ld->rate * eng, w = ld->batch_window_s;
	double wb = w - expm1(-L * w) / L;
	double x = L * wb, run = x < 700 ? x * exp(x) : HUGE_VAL;
	double kb = (x < 700 ? exp(-x) : 0) + x;
	if (ld->batch_max > 0 && ld->batch_max < kb) {
		*J = eng * ld->batch_max / L;
		*hold = ld->batch_max / L / 2;
		return;
	}
	*J = eng * kb / L;
	*hold = wb / 2 * (isfinite(run) ? run / (1 + run) : 1);
}

/* Below saturation at lam requests/s: the running batch, TPOT and TTFT
 * by a fixed point (Little's law with an M/D/c-like wait for a slot). */
static void online(const struct inst *in, double B, double isl, double osl, double lam,
		   struct serve_result *r)
{
	const struct serve_calib *k = in->k;
	double ctx = isl + osl / 2, n_chunks = ceil(isl / in->chunk);
	double n = lam * (r->ttft_min_s + osl * r->tpot_min_s), t = r->tpot_min_s, ttft = 0;
	double wq = 0, wp = 0, C = 0, D = 0, rho = 0, t_pf = 0, cyc = 0, w_ahead = 0;
	for (int i = 0; i < 60; i++) {
		if (n > B)
			n = B;
		if (in->apart) {
			/* prompts apart: the scheduler cycle; a prompt that finds
			 * decodes running waits for the end of the current cycle
			 * (uniform phase, mean cyc / 2), one that finds the engine
			 * idle does not; then for its prefill call t_pf */
			cyc = apart_cycle(in, n, isl, osl, lam, &t_pf);
			t = cyc / apart_steps(in, osl);
			D = osl * t;
			double a = lam * D;
			C = a < B ? serve_erlang_c((int)B, a) : 1;
			wq = a < B ? 0.5 * C * D / (B - a) : HUGE_VAL;
			/* the batch already launched behind the running one
			 * (an overlap scheduler): a decode iteration */
			w_ahead = apart_busy(n) * in->ahead *
				  inst_iter(in, n, ctx, 0, 0, 0, NULL, NULL, NULL);
			ttft = k->frontend_s + in->wait_h + apart_busy(n) * cyc / 2 + w_ahead +
			       t_pf + wq;
			double n2 = lam * (ttft - k->frontend_s - in->wait_h + osl * t);
			if (!isfinite(n2) || fabs(n2 - n) < 1e-4 * (n + 1)) {
				n = isfinite(n2) ? n2 : B;
				break;
			}
			n = 0.5 * (n + n2);
			continue;
		}
		t = iter_at(in, n, isl, osl, lam);
		/* the prompt rides ceil(isl/chunk) iterations with the batch */
		t_pf = inst_iter(in, n, ctx, isl / n_chunks, isl / 2, 1, NULL, NULL, NULL);
		D = osl * t;
		double a = lam * D;
		C = a < B ? serve_erlang_c((int)B, a) : 1;
		wq = a < B ? 0.5 * C * D / (B - a) : HUGE_VAL;
		/* prompts also queue for the prefill: an iteration takes
		 * floor(chunk / isl) whole prompts (at least one), so a prompt
		 * holds the prefill for n_chunks x t_pf / that; an M/D/1 wait
		 * rho S / (2 (1 - rho)) on it */
		double per_it = floor(in->chunk / isl) > 1 ? floor(in->chunk / isl) : 1;
		double S = n_chunks * t_pf / per_it;
		rho = lam * S;
		wp = rho < 1 ? rho * S / (2 * (1 - rho)) : HUGE_VAL;
		if (in->batch_J > 0)
			wp = batch_prefill_wait(in, n, ctx, isl, lam, t_pf, &rho);
		w_ahead = apart_busy(n) * in->ahead * t;
		ttft = k->frontend_s + in->wait_h + t / 2 + w_ahead + n_chunks * t_pf + wq + wp;
		double n2 = lam * (ttft - k->frontend_s - in->wait_h + osl * t);
		if (fabs(n2 - n) < 1e-4 * (n + 1)) {
			n = n2;
			break;
		}
		n = 0.5 * (n + n2);
	}
	if (n > B)
		n = B;
	r->rate = lam;
	r->out_tps = lam * osl;
	r->batch = n;
	r->utilisation = lam / r->req_s_max;
	r->tpot_s.mean = r->tpot_s.p50 = t;
	r->itl_p50_s = in->apart ? apart_gap_p50(in, n, isl, osl, lam, t) : t;
	double n99 = n + Z99 * sqrt(n);
	if (n99 > B)
		n99 = B;
	if (in->apart) {
		double p99_pf;
		r->tpot_s.p99 = apart_cycle(in, n99, isl, osl, lam, &p99_pf) / apart_steps(in, osl);
	} else {
		r->tpot_s.p99 = iter_at(in, n99, isl, osl, lam);
	}
	if (r->tpot_s.p99 < t)
		r->tpot_s.p99 = t;
	r->ttft_s.mean = ttft;
	/* p50/p99: the fixed part plus the quantiles of U + Wp + Wq, three
	 * independent terms: the arrival phase U, uniform over one iteration
	 * (mean t/2); the prefill wait Wp, M/D/1 with P(Wp > 0) = rho and
	 * the exponential tail rho exp(-x / E[Wp | Wp > 0]), E[Wp | Wp > 0] =
	 * wp / rho (exact for M/M/1, the usual approximation for M/D/1: its
	 * true tail decays faster, so the p99 errs high); the slot wait Wq
	 * with P(Wq > x) = C exp(-2 (c/D - lambda) x), mean wq. The means of
	 * the three add up to the mean TTFT above. */
	/* prompts apart: the phase spans the busy share of a cycle (its mean,
	 * busy x cyc / 2, is the TTFT's; the mixture of "no wait" and a
	 * uniform wait is taken as one uniform, a simplification) */
	struct serve_wait wt = { in->apart ? apart_busy(n) * cyc : t, rho, rho > 0 ? wp / rho : 0, C,
				 C > 0 ? wq / C : 0 };
	double base = k->frontend_s + in->wait_h + w_ahead + (in->apart ? t_pf : n_chunks * t_pf);
	if (in->batch_J > 0 && !in->apart)
		base += wp;   /* the batch's own prompts ahead: taken as fixed */
	r->ttft_s.p50 = base + serve_wait_quantile(&wt, 0.50);
	r->ttft_s.p99 = base + serve_wait_quantile(&wt, 0.99);
	if (!isfinite(r->ttft_s.mean))
		r->ttft_s.p50 = r->ttft_s.p99 = HUGE_VAL;
}

/* The instance of cfg on pool p, checked, with its batch limits and KV
 * capacity (r's memory fields). Returns the capacity in tokens, or -1 with
 * err for an impossible configuration. */
static double inst_setup(const struct pool *p, const struct model_spec *m,
			 const struct serve_config *cfg, const struct serve_load *ld,
			 const struct serve_calib *calib, struct inst *in, int *max_batch,
			 struct serve_result *r, struct hp_err *err)
{
	const struct serve_engine_profile *e = serve_engine(cfg->engine);
	const struct serve_calib *k = calib ? calib : &calib_default;
	int tp = cfg->tp < 1 ? 1 : cfg->tp, pp = cfg->pp < 1 ? 1 : cfg->pp;
	if (check_config(p, m, cfg, tp, pp, ld, err) < 0)
		return -1;
	struct inst i0 = { p, m, k, e, tp, pp, cfg->wprec, cfg->kvprec, 0,
			   tp * pp <= p->gpus_per_node, serve_step_overhead(cfg),
			   serve_per_seq_overhead(cfg),
			   cfg->prefill_apart != 0 || e->prefill_first,
			   cfg->sched_steps > 1 ? cfg->sched_steps : 1,
			   cfg->eager != 0, e->graph_max_batch,
			   serve_overlap_on(cfg),
			   0, 0, serve_dec_attn_x(cfg, &p->gpu, m) };
	/* num_scheduler_steps, range 1-1024: AMD's MLPerf configs run 7-11;
	 * a longer run than 1024 iterations outlasts the longest answer
	 * those runs allow (max_tokens 1024), so larger values are cut */
	if (i0.steps > 1024)
		i0.steps = 1024;
	*in = i0;
	serve_batch_limits(p, cfg, max_batch, &in->chunk);
	r->chunk_tokens = in->chunk;
	r->n_gpus = tp * pp;
	return kv_capacity(in, cfg, *max_batch, r);
}

int serve_evaluate(const struct pool *p, const struct model_spec *m,
		   const struct serve_config *cfg, const struct serve_load *ld,
		   const struct serve_calib *calib, struct serve_result *r,
		   struct hp_err *err)
{
	memset(r, 0, sizeof *r);
	struct inst in;
	int max_batch;
	double cap_tok = inst_setup(p, m, cfg, ld, calib, &in, &max_batch, r, err);
	if (cap_tok < 0)
		return -1;
	serve_client_batches(ld, &in.batch_J, &in.wait_h);
	const struct serve_engine_profile *e = in.e;
	double isl = ld->isl, osl = ld->osl;
	double per_seq = e->kv_reserve_full ? isl + osl : isl + osl / 2;
	double B = floor(cap_tok / per_seq);
	if (B > max_batch)
		B = max_batch;
	if (r->kv_bytes_gpu <= 0 || cap_tok < isl + osl) {
		no_fit(&in, cfg, isl + osl, r);
		return 0;
	}
	if (B < 1)
		B = 1;
	r->fits = 1;
	r->max_batch = (int)B;
	double cyc = saturation(&in, B, isl, osl, r);
	double lam = ld->rate;
	if (!(lam > 0) || lam >= r->req_s_max) {
		/* offline, or at/above saturation: the batch is full */
		r->rate = r->req_s_max;
		r->out_tps = r->out_tps_max;
		r->batch = B;
		r->utilisation = lam > 0 ? lam / r->req_s_max : 1;
		r->tpot_s.mean = r->tpot_s.p50 = r->tpot_s.p99 = r->itl_p50_s = cyc / osl;
		r->ttft_s.mean = r->ttft_s.p50 = r->ttft_s.p99 = HUGE_VAL;
		return 0;
	}
	online(&in, B, isl, osl, lam, r);
	return 0;
}

/* --- a finite burst -------------------------------------------------------- */

/* One request of a burst. */
struct breq {
	double isl, osl;
	double left_pre;             /* tokens still to prefill (prompt, or prompt + output on a resume) */
	double pre_len;              /* tokens of the current prefill */
	double gen;                  /* output tokens produced */
	double kv;                   /* tokens of KV it holds while running */
	double t_pre;                /* when it was last preempted (its last token's time) */
	long seq;                    /* admission order (larger = admitted later) */
	int state;                   /* 0 waiting, 1 running, 2 done */
	int ttft_done;               /* its first token is counted */
};

/* The burst's waiting queue: requests never admitted, in index order from
 * *next, behind a stack of preempted ones (the last pushed is the first
 * re-admitted, as a prepend to vLLM's waiting queue leaves it). */
struct bqueue {
	int next;
	int *pre, n_pre;
	long seq;
};

/* Admit waiting requests in order while the batch and the KV pool allow. A
 * request needs its prompt (plus, on a resume, the output it had made)
 * and a slot for its next token; an engine that reserves the whole output
 * (kv_reserve_full) needs prompt + output. */
static void burst_admit(const struct serve_burst_sched *s, struct breq *q, int n,
			struct bqueue *w, int *running, double *kv_used)
{
	while ((w->n_pre > 0 || w->next < n) && *running < s->max_batch) {
		struct breq *r = &q[w->n_pre > 0 ? w->pre[w->n_pre - 1] : w->next];
		double need = s->reserve_full ? r->isl + r->osl : r->isl + r->gen + 1;
		if (*kv_used + need > s->cap_tok && *running > 0)
			break;
		if (w->n_pre > 0)
			w->n_pre--;
		else
			w->next++;
		*kv_used += need;
		r->kv = need;
		r->state = 1;
		r->pre_len = r->left_pre = r->isl + r->gen;
		r->seq = w->seq++;
		(*running)++;
	}
}

/* Preemption (vLLM's recompute mode): when the running requests' next
 * decode tokens do not fit the pool, the last-admitted running request
 * gives up its KV and goes back to the head of the waiting queue, until
 * the rest fit. Returns how many were preempted in this step. */
static int burst_preempt(const struct serve_burst_sched *s, struct breq *q, int n,
			 struct bqueue *w, int *running, double *kv_used,
			 struct serve_burst_result *out, double t)
{
	if (s->reserve_full)
		return 0;
	double grow = 0;
	for (int i = 0; i < n; i++)
		if (q[i].state == 1 && q[i].left_pre <= 0)
			grow++;
	int k = 0;
	while (*kv_used + grow > s->cap_tok && *running > 1) {
		int v = -1;
		for (int i = 0; i < n; i++)
			if (q[i].state == 1 && (v < 0 || q[i].seq > q[v].seq))
				v = i;
		struct breq *r = &q[v];
		if (r->left_pre <= 0)
			grow--;
		*kv_used -= r->kv;
		/* the tokens it had computed are prefilled again: prompt and
		 * output, or the part of a prefill already run */
		out->recomputed_tokens += r->left_pre > 0 ? r->pre_len - r->left_pre : r->isl + r->gen;
		r->kv = 0;
		r->state = 0;
		r->t_pre = t;
		w->pre[w->n_pre++] = v;
		(*running)--;
		out->preemptions++;
		k++;
	}
	return k;
}

/* One engine iteration over the running requests; returns its time. */
static double burst_step(const struct serve_burst_sched *s, struct breq *q, int n, double *kv_used,
			 int *running, struct serve_burst_result *out, double t, int pre_only)
{
	double n_dec = 0, ctx = 0, n_pre = 0, pre_ctx = 0, n_pre_seqs = 0;
	for (int i = 0; i < n; i++)
		if (!pre_only && q[i].state == 1 && q[i].left_pre <= 0) {
			n_dec++;
			ctx += q[i].isl + q[i].gen;
		}
	double budget = s->chunk - n_dec;
	for (int i = 0; i < n && budget > 0; i++)
		if (q[i].state == 1 && q[i].left_pre > 0) {
			double tk = fmin(q[i].left_pre, budget);
			budget -= tk;
			n_pre += tk;
			n_pre_seqs++;
			pre_ctx += q[i].pre_len / 2;
		}
	if (n_dec + n_pre <= 0)
		return 0;
	double dt = s->iter(s->ctx, n_dec, n_dec > 0 ? ctx / n_dec : 0, n_pre,
			    n_pre_seqs > 0 ? pre_ctx / n_pre_seqs : 0, n_pre_seqs);
	t += dt;
	out->steps++;
	budget = s->chunk - n_dec;
	for (int i = 0; i < n; i++) {
		struct breq *r = &q[i];
		if (r->state != 1 || (pre_only && r->left_pre <= 0))
			continue;
		if (r->left_pre <= 0) {          /* a decode step */
			r->gen++;
			out->itl_mean_s += dt;
			if (!s->reserve_full) {
				(*kv_used)++;
				r->kv++;
			}
		} else if (budget > 0) {         /* a prefill chunk */
			double tk = fmin(r->left_pre, budget);
			budget -= tk;
			r->left_pre -= tk;
			if (r->left_pre > 0)
				continue;
			r->gen++;                    /* the prefill yields the next token */
			if (!r->ttft_done) {
				r->ttft_done = 1;
				out->ttft_mean_s += t;
			} else {
				out->itl_mean_s += t - r->t_pre;   /* a resumed request's gap */
			}
		} else {
			continue;
		}
		if (r->gen >= r->osl) {
			r->state = 2;
			(*running)--;
			*kv_used -= r->kv;
			out->makespan_s = t;
		}
	}
	return dt;
}

/* The burst under a scheduler that runs prompts apart (apart: vLLM before
 * V1 with chunked prefill off, SGLang's prefill-first batches; the header
 * comment's "Prompts apart"): a call that has admitted prompts runs them
 * in prefill-only iterations (chunk tokens each) while the running
 * requests wait; a call with no prompt to run makes `steps` decode
 * iterations of the running batch (vLLM's num_scheduler_steps), admitting
 * nothing in between. apart 0: prompt chunks ride the decode iterations,
 * one scheduler call per iteration. */
static int burst_run(const struct serve_burst_sched *s, int apart, int steps, int n,
		     const double *isl, const double *osl, struct serve_burst_result *out);

int serve_burst_run(const struct serve_burst_sched *s, int n, const double *isl,
		    const double *osl, struct serve_burst_result *out)
{
	return burst_run(s, 0, 1, n, isl, osl, out);
}

static int burst_pending(const struct breq *q, int n)
{
	for (int i = 0; i < n; i++)
		if (q[i].state == 1 && q[i].left_pre > 0)
			return 1;
	return 0;
}

static int burst_run(const struct serve_burst_sched *s, int apart, int steps, int n,
		     const double *isl, const double *osl, struct serve_burst_result *out)
{
	struct breq *q = xcalloc((size_t)n, sizeof *q);
	struct bqueue w = { 0, xcalloc((size_t)n, sizeof(int)), 0, 0 };
	double tokens = 0;
	for (int i = 0; i < n; i++) {
		q[i].isl = isl[i] < 1 ? 1 : isl[i];
		q[i].osl = osl[i] < 1 ? 1 : osl[i];
		tokens += q[i].osl;
	}
	double t = 0, kv_used = 0;
	int running = 0;
	for (;;) {
		/* vLLM schedules the running requests first, preempting when
		 * their next tokens do not fit, and admits waiting ones only in
		 * a step that preempted none */
		if (!burst_preempt(s, q, n, &w, &running, &kv_used, out, t))
			burst_admit(s, q, n, &w, &running, &kv_used);
		if (apart && burst_pending(q, n)) {
			double dt = burst_step(s, q, n, &kv_used, &running, out, t, 1);
			if (dt <= 0)
				break;
			t += dt;
			continue;
		}
		double dt = burst_step(s, q, n, &kv_used, &running, out, t, 0);
		if (dt <= 0)
			break;
		t += dt;
		for (int k = 1; apart && k < steps && running > 0; k++) {
			burst_preempt(s, q, n, &w, &running, &kv_used, out, t);
			dt = burst_step(s, q, n, &kv_used, &running, out, t, 0);
			if (dt <= 0)
				break;
			t += dt;
		}
	}
	free(w.pre);
	free(q);
	out->ttft_mean_s /= n;
	out->itl_mean_s = tokens > n ? out->itl_mean_s / (tokens - n) : 0;
	return 0;
}

/* serve_burst's step time: the instance's iteration */
static double burst_iter(void *ctx, double n_dec, double dec_ctx, double n_pre, double pre_ctx,
			 double n_pre_seqs)
{
	return inst_iter(ctx, n_dec, dec_ctx, n_pre, pre_ctx, n_pre_seqs, NULL, NULL, NULL);
}

int serve_burst(const struct pool *p, const struct model_spec *m, const struct serve_config *cfg,
		int n, const double *isl, const double *osl, const struct serve_calib *calib,
		struct serve_burst_result *out, struct hp_err *err)
{
	memset(out, 0, sizeof *out);
	if (n < 1 || n > SERVE_BURST_MAX)
		return hp_err_set(err, HP_EXIT_USAGE, "burst: 1 to %d requests, got %d", SERVE_BURST_MAX, n);
	double isl_max = 0, osl_max = 0;
	for (int i = 0; i < n; i++) {
		isl_max = fmax(isl_max, isl[i]);
		osl_max = fmax(osl_max, osl[i]);
	}
	struct serve_load ld = { isl_max, osl_max, 0, 0, 0, 0 };
	struct inst in;
	int max_batch;
	struct serve_result r;
	memset(&r, 0, sizeof r);
	double cap_tok = inst_setup(p, m, cfg, &ld, calib, &in, &max_batch, &r, err);
	if (cap_tok < 0)
		return -1;
	const struct serve_calib *k = in.k;
	if (r.kv_bytes_gpu <= 0 || cap_tok < isl_max + osl_max) {
		no_fit(&in, cfg, isl_max + osl_max, &r);
		snprintf(out->why, sizeof out->why, "%s", r.why);
		return 0;
	}
	out->fits = 1;
	double tokens = 0;
	for (int i = 0; i < n; i++)
		tokens += osl[i] < 1 ? 1 : osl[i];
	struct serve_burst_sched s = { cap_tok, max_batch, in.chunk, in.e->kv_reserve_full,
				       burst_iter, &in };
	burst_run(&s, in.apart, in.steps, n, isl, osl, out);
	/* every request also passes the front end once (HTTP, tokenisation) */
	out->makespan_s += k->frontend_s;
	out->ttft_mean_s += k->frontend_s;
	out->req_s = n / out->makespan_s;
	out->out_tps = tokens / out->makespan_s;
	return 0;
}
