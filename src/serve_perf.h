/* serve_perf.h — how fast one LLM serving instance runs: a group of
 * tp x pp GPUs of one pool holding one copy of the model, under continuous
 * batching, at a given request rate.
 *
 * The model (serve_perf.c's header comment has the formulas and sources):
 *   one engine iteration = decode tokens of the running sequences + a chunk
 *   of prefill tokens, per pipeline stage
 *     t_stage = max(GEMM FLOPs / (peak x eff), weight + activation bytes /
 *               (HBM x eff)) + max(attention FLOPs / (peak x eff),
 *               KV bytes / (HBM x eff)) + TP all-reduces (comm.c)
 *     t_iter  = pp x t_stage(batch / pp) + engine overhead per step
 *   offline: as many sequences run at once as the KV cache (paged, from the
 *   memory left after weights and activations) and the engine's batch limit
 *   allow; output tokens/s = batch x OSL / time of OSL iterations plus the
 *   prefill work of the batch;
 *   online at rate lambda: the running batch from Little's law (fixed point),
 *   TPOT = the iteration time at that batch, TTFT = front-end + half an
 *   iteration + the prefill iteration(s) + an M/D/c wait for a batch slot.
 *
 * Units SI: bytes, seconds, FLOP/s, requests/s. Nothing here prints. */
#ifndef HP_SERVE_PERF_H
#define HP_SERVE_PERF_H

#include "catalog.h"
#include "comm.h"

struct pool;

/* Weight precision. INT4 is weight-only (W4A16, AWQ/GPTQ-style, computed at
 * 16 bits); FP8 computes at FP8 where the GPU has FP8 units, else it is
 * weight-only; FP4 (NVFP4) needs FP4 units (Blackwell). FP8_MLP is Meta's
 * FP8 checkpoint recipe (Llama 3.1 "-FP8", FBGEMM row-wise): FP8 in the MLP
 * of every decoder layer but the first and the last, 16 bits elsewhere
 * (attention projections, those two layers' MLP). Each precision's bytes
 * per module class are one row of serve_perf.c's wprec_fmt table. */
enum serve_wprec { SW_BF16, SW_FP16, SW_FP8, SW_INT4, SW_FP4, SW_FP8_MLP, SW_COUNT };
/* KV-cache precision. */
enum serve_kvprec { SKV_BF16, SKV_FP16, SKV_FP8, SKV_COUNT };

/* ENGINE_TRTLLM is TensorRT-LLM's PyTorch backend (the default from 1.0);
 * ENGINE_TRTLLM_ENGINE its earlier TensorRT-engine runtime (C++ executor). */
enum serve_engine { ENGINE_VLLM, ENGINE_SGLANG, ENGINE_TRTLLM, ENGINE_TRTLLM_ENGINE,
		    ENGINE_COUNT };

/* What differs between serving engines, each value cited in serve_perf.c. */
struct serve_engine_profile {
	const char *name;            /* "vllm", "sglang", "tensorrt-llm", ... */
	double step_overhead_s;      /* per iteration: scheduler, launch, sampling
				      * (with CUDA graphs for decode) */
	double per_seq_s;            /* per running sequence per iteration (CPU:
				      * input preparation, detokenisation) */
	double mem_util;             /* share of memory the engine may use */
	int util_of_free;            /* 1: mem_util applies to the memory left
				      * after weights (TensorRT-LLM's
				      * kv_cache_free_gpu_mem_fraction) */
	int max_batch;               /* default running-sequence limit */
	int chunk_tokens;            /* default tokens per iteration */
	int kv_reserve_full;         /* 1: a request reserves ISL+OSL of KV on
				      * admission (no eviction); 0: blocks on
				      * demand, preemption when full */
	int prefill_first;           /* 1: waiting prompts run in iterations of
				      * their own, before any decode (as
				      * serve_config.prefill_apart, one decode
				      * iteration per call); 0: prompt chunks
				      * ride the decode iterations */
	int graph_max_batch;         /* largest decode batch replayed as a CUDA
				      * graph: a larger decode batch, and every
				      * iteration that runs prompts, is issued
				      * kernel by kernel (as serve_config.eager);
				      * 0: graphs for every decode batch, prompt
				      * iterations' host time not modelled */
	int sched_ahead;             /* batches the scheduler has launched ahead
				      * of the GPU (an overlap scheduler: 1); a
				      * prompt arriving while a batch runs waits
				      * for that batch and the one already
				      * launched after it. 0: scheduled at the
				      * end of the running batch */
	const char *overlap_switch;  /* the launch-line flag that turns the
				      * overlap scheduler the other way from
				      * sched_ahead; NULL: none on the command
				      * line (serve_overlap_flag) */
	int overlap_no_pp;           /* 1: the engine refuses its overlap
				      * scheduler with pipeline parallelism */
};

/* Engine builds whose kernels differ from the profile's (current) version,
 * one row each of serve_perf.c's builds table: the engine they are a build
 * of, the GPU generation they differ on, and the factor on the decode
 * attention time there. BUILD_CURRENT (0): the profile as it is. */
enum serve_build { BUILD_CURRENT, BUILD_VLLM_ROCM_06, BUILD_VLLM_V0, BUILD_TRTLLM_PRE_XQA,
		   BUILD_COUNT };
struct serve_build_profile {
	const char *name;            /* "current", "vllm-rocm-0.6", "vllm-v0",
				      * "tensorrt-llm-0.7" */
	enum serve_engine engine;    /* the engine it is a build of */
	enum hp_gen gen;             /* the GPUs it differs on */
	double dec_attn_x;           /* decode attention time over the model's
				      * roofline time on those GPUs */
	double step_s;               /* host time per scheduler call (0: the
				      * engine profile's; on every GPU) */
	double seq_s;                /* host time per running sequence per call
				      * (0: the engine profile's) */
	int kv_per_qhead;            /* 1: decode attention reads each KV head
				      * once per query head of its group
				      * (serve_trtllm_pre_xqa), on every GPU */
};
const struct serve_build_profile *serve_build(enum serve_build b);
int serve_build_parse(const char *s, enum serve_build *out);

/* serve_config.overlap_sched: the engine's default, or forced on or off
 * (the workspace's serve.overlap_sched and --overlap-sched keep the same
 * numbers). */
enum serve_overlap { OVERLAP_ENGINE, OVERLAP_ON, OVERLAP_OFF };

const struct serve_engine_profile *serve_engine(enum serve_engine e);
int serve_engine_parse(const char *s, enum serve_engine *out);
const char *serve_engine_name(enum serve_engine e);

int serve_wprec_parse(const char *s, enum serve_wprec *out);
const char *serve_wprec_name(enum serve_wprec w);
int serve_kvprec_parse(const char *s, enum serve_kvprec *out);
const char *serve_kvprec_name(enum serve_kvprec k);
/* Bytes per weight of the MLP/expert linear layers (quantisation scales
 * included), and per KV element. */
double serve_wprec_bytes(enum serve_wprec w);
/* Bytes per weight of the attention projections (QKV, output). */
double serve_wprec_attn_bytes(enum serve_wprec w);
/* Decoder layers of an L-layer model, among [l0, l1), whose MLP stays at 16
 * bits under w (the first and last under SW_FP8_MLP; 0 otherwise). */
int serve_wprec_edge16(enum serve_wprec w, int L, int l0, int l1);
double serve_kvprec_bytes(enum serve_kvprec k);

/* Fitted efficiencies (serve_calib_default(): values, ranges, sources). */
struct serve_calib {
	double gemm_eff;      /* large 16-bit GEMM share of dense peak */
	double gemm_eff_lowp; /* FP8/FP4 GEMM share of the FP8/FP4 peak */
	double gemm_dim_half; /* GEMM width (per GPU) at which efficiency halves:
			       * narrow TP shards run below peak, x/(x + c) */
	double moe_eff;       /* expert (grouped) GEMMs relative to dense ones:
			       * routing, permutation, uneven expert loads */
	double attn_eff;      /* prefill (flash) attention share of 16-bit peak */
	double hbm_eff;       /* share of nominal HBM bandwidth a decode step gets */
	double overlap;       /* share of the smaller of a kernel group's compute
			       * and memory times hidden under the larger
			       * (1: ideal roofline max; 0: they add up) */
	double frontend_s;    /* fixed part of TTFT: HTTP, tokenisation, first
			       * detokenisation and streaming */
	double mem_fixed_bytes; /* per GPU outside weights/KV/activations:
			       * CUDA context, cuBLAS workspace, CUDA graphs,
			       * NCCL buffers */
};
const struct serve_calib *serve_calib_default(void);

/* KV-cache bytes per token of the whole model (all layers, all KV heads):
 * 2 x layers x kv_heads x head_dim x bytes for MHA/GQA; layers x
 * (kv_lora_rank + qk_rope_dim) x bytes for MLA (the compressed latent). */
double serve_kv_bytes_per_token(const struct model_spec *m, enum serve_kvprec kv);

/* Memory capacity in bytes as the serving model reads it: the catalog's
 * figure, in binary gigabytes for HBM parts (how they are sold; see
 * serve_perf.c). */
double serve_gpu_mem_bytes(const struct gpu_spec *g);

/* Why a GPU without bf16 refuses it, after its name in the messages of
 * serve_wprec_supported, serve_kvprec_supported and the workspace's
 * serve.weights / serve.kv_cache check. */
#define SERVE_NO_BF16_WHY \
	"has no bf16 (NVIDIA before Ampere, compute capability below 8.0, which vLLM refuses " \
	"bf16 on)"

/* 1 if g computes and stores bf16 (serve_perf.c: NVIDIA from Ampere, and
 * every AMD/Gaudi part of the catalog), 0 for Volta and Turing. */
int serve_gpu_has_bf16(const struct gpu_spec *g);

/* Can this GPU run this weight precision? 0, or -1 with err (exit 3)
 * naming --precision and the GPU. */
int serve_wprec_supported(const struct gpu_spec *g, enum serve_wprec w, struct hp_err *err);
/* Can this GPU hold a KV cache of this precision? 0, or -1 with err (exit
 * 3) naming --kv-precision and the GPU: bf16 needs serve_gpu_has_bf16. */
int serve_kvprec_supported(const struct gpu_spec *g, enum serve_kvprec kv, struct hp_err *err);

struct serve_config;
/* The weight precision cfg runs at on g: cfg->wprec, but fp16 where bf16 is
 * the default (not wprec_given) and g has no bf16 (NVIDIA before Ampere), as
 * vLLM's --dtype auto picks in its later versions (serve_launch_line writes
 * --dtype float16 for the earlier ones). */
enum serve_wprec serve_wprec_on(const struct serve_config *cfg, const struct gpu_spec *g);
/* The KV precision cfg runs at on g: likewise fp16 for a default bf16
 * (not kvprec_given) on a GPU without bf16. */
enum serve_kvprec serve_kvprec_on(const struct serve_config *cfg, const struct gpu_spec *g);
/* Both precisions cfg runs at on g are supported: 0, or -1 with err from
 * serve_wprec_supported or serve_kvprec_supported. */
int serve_prec_supported(const struct gpu_spec *g, const struct serve_config *cfg,
			 struct hp_err *err);

/* One instance configuration. */
struct serve_config {
	int tp, pp;
	enum serve_wprec wprec;
	enum serve_kvprec kvprec;
	enum serve_engine engine;
	int max_batch;        /* 0: the engine's default */
	int chunk_tokens;     /* 0: the engine's default */
	double mem_util;      /* 0: the engine's default */
	double step_overhead_s; /* 0: the engine's; host time per iteration of
			       * another version of the engine (vLLM before
			       * 0.6: 5-13 ms, see serve_perf.c) */
	int prefill_apart;    /* 1: prompts run in iterations of their own
			       * (vLLM before V1 with enable_chunked_prefill
			       * off: a scheduler call that admits prompts runs
			       * no decode); 0: prompt chunks ride the decode
			       * iterations (the engines' defaults) */
	int sched_steps;      /* decode iterations per scheduler call (vLLM
			       * before V1: num_scheduler_steps); 0 or 1: every
			       * iteration; only with prefill_apart */
	int eager;            /* 1: eager execution, no CUDA/HIP graphs (vLLM
			       * --enforce-eager): the host issues every kernel
			       * of an iteration (serve_perf.c); 0: graphs for
			       * decode, the engines' default */
	int overlap_sched;    /* enum serve_overlap: the profile's sched_ahead,
			       * or on, or off (also an engine version without
			       * one: SGLang before v0.4) */
	int wprec_given;      /* 1: the user named wprec (serve --precision) and
			       * a GPU that cannot run it refuses; 0: bf16 is
			       * the default and runs as fp16 on a GPU without
			       * bf16 (serve_wprec_on) */
	int kvprec_given;     /* as wprec_given, for kvprec (serve
			       * --kv-precision; serve_kvprec_on) */
	int build;            /* enum serve_build: another build of the
			       * engine (0: the profile's current one) */
	double per_seq_s;     /* 0: the engine's; host time per running
			       * sequence per iteration of another version
			       * (vLLM's V0 engine: serve_vllm_v0) */
	double kv_reads;      /* times a decode step's attention reads each
			       * KV head: 0 or 1, once (a GQA-aware kernel:
			       * TensorRT-LLM's XQA from v0.8, FlashAttention,
			       * FlashInfer, the engines' current versions);
			       * TensorRT-LLM before v0.8 reads it once per
			       * query head (serve_trtllm_pre_xqa) */
};
/* The decode attention time factor cfg's build has on g for model m
 * (1: none). */
double serve_dec_attn_x(const struct serve_config *cfg, const struct gpu_spec *g,
			const struct model_spec *m);
/* Whether cfg runs an overlap scheduler (the engine's default unless
 * overlap_sched forces it). */
int serve_overlap_on(const struct serve_config *cfg);

/* The flag cfg's overlap setting puts on the engine's launch line: "" when
 * the engine's default already gives it, NULL when the engine has no
 * command-line switch for it. */
const char *serve_overlap_flag(const struct serve_config *cfg);

/* The host time per iteration that cfg runs with. */
double serve_step_overhead(const struct serve_config *cfg);
/* The host time per running sequence per iteration that cfg runs with. */
double serve_per_seq_overhead(const struct serve_config *cfg);

/* vLLM's V0 engine (0.4 to 0.6.x, before V1): host time per scheduler call,
 * fixed and per running sequence (sources in serve_perf.c, above
 * serve_vllm_v0). Ranges: 5-13 ms and 30-150 us. */
#define SERVE_VLLM_V0_STEP_S 8e-3
#define SERVE_VLLM_V0_SEQ_S 35e-6
/* Gives cfg the V0 engine's host time (both terms above). */
void serve_vllm_v0(struct serve_config *cfg);
/* Gives cfg TensorRT-LLM's decode attention before the XQA kernel
 * (releases before v0.8): the KV cache read once per query head of m's
 * groups (serve_perf.c, above serve_trtllm_pre_xqa). */
void serve_trtllm_pre_xqa(struct serve_config *cfg, const struct model_spec *m);

/* The requests: mean prompt and output lengths, and the arrival rate
 * (Poisson; rate <= 0 means offline: every request queued at once). */
struct serve_load {
	double isl, osl;
	double rate;
	/* A client that batches requests (MLPerf harnesses' "batcher"): it
	 * holds them until batch_max have queued or batch_window_s has passed
	 * since its last send, then sends them together to one engine, the
	 * engines (batch_engines of them, each at `rate`) in turn. 0: every
	 * request is sent on arrival (Poisson at each engine). */
	double batch_window_s;
	int batch_max;
	int batch_engines;
};

struct serve_quantiles { double mean, p50, p99; };

struct serve_result {
	int fits;                    /* weights + one sequence's KV fit */
	char why[320];               /* when it does not: what overflows */
	int n_gpus;
	double weights_bytes_gpu;    /* worst stage, per GPU */
	double act_bytes_gpu;        /* activation workspace per GPU */
	double kv_bytes_gpu;         /* KV pool per GPU */
	double capacity_bytes_gpu;
	double kv_bytes_per_token;   /* whole model */
	double kv_capacity_tokens;   /* the instance's KV pool in tokens */
	int max_batch;               /* running sequences at saturation */
	int chunk_tokens;
	/* saturation (offline) */
	double out_tps_max;          /* output tokens/s */
	double req_s_max;            /* requests/s */
	double tpot_sat_s;           /* time per output token at saturation */
	/* at the requested rate (online); equal to saturation when offline */
	double rate;                 /* requests/s served */
	double out_tps;
	double batch;                /* mean running sequences */
	double utilisation;          /* rate / req_s_max */
	struct serve_quantiles ttft_s, tpot_s;  /* +inf when rate >= saturation */
	double itl_p50_s;            /* the median gap between streamed tokens,
				      * all gaps pooled (a benchmark's "median
				      * ITL"): tpot_s.p50, except with prompts
				      * apart and one decode iteration per call,
				      * where most gaps carry no prefill call
				      * (apart_gap_p50 in serve_perf.c) */
	/* unloaded latencies (one request alone) */
	double ttft_min_s, tpot_min_s;
	/* time split of one saturated iteration, seconds */
	double t_gemm, t_attn, t_comm, t_overhead;
};

/* A batching client's effect on one engine (serve_load.batch_window_s;
 * the model in serve_perf.c): *batch_J, the mean seconds between the
 * batches the engine gets, and *hold_s, a request's mean wait in the
 * client; both 0 when ld has no window or no rate. */
void serve_client_batches(const struct serve_load *ld, double *batch_J, double *hold_s);

/* Evaluate config cfg of model m on pool p (its GPU and node fabric).
 * calib NULL: defaults. Returns 0 (also when it does not fit: r->fits 0 and
 * r->why say why), or -1 with err for an impossible configuration (tp not a
 * power of two, more GPUs than a node holds for tp, pp beyond the layers,
 * fp4 on a GPU without FP4 units). */
int serve_evaluate(const struct pool *p, const struct model_spec *m,
		   const struct serve_config *cfg, const struct serve_load *ld,
		   const struct serve_calib *calib, struct serve_result *r,
		   struct hp_err *err);

/* Time of one iteration of one pipeline stage holding layers [l0, l1) of
 * m (head: it also computes the logits) on tp GPUs of pool p:
 * n_dec decode tokens over a mean context ctx, and n_pre prefill tokens of
 * n_pre_seqs sequences whose keys reach back pre_ctx tokens on average.
 * The engine overhead is not included. Used by the placement optimiser. */
struct serve_iter {
	double n_dec, ctx;
	double n_pre, pre_ctx, n_pre_seqs;
	int eager;            /* 1: no CUDA/HIP graphs: the stage takes at
			       * least the host's time to issue its kernels
			       * (serve_eager_dispatch_s) */
	double dec_attn_x;    /* decode attention time factor of the engine
			       * build (serve_dec_attn_x); 0 or 1: none */
};
double serve_stage_time(const struct pool *p, const struct model_spec *m, int l0, int l1,
			int head, int tp, enum serve_wprec w, enum serve_kvprec kv,
			const struct serve_iter *it, const struct serve_calib *k,
			double *t_gemm, double *t_attn, double *t_comm);

/* Host time to issue the kernels of one iteration of layers [l0, l1) in
 * eager mode on one GPU of a tp group (the embedding when l0 is 0, the
 * output layer when head is set). */
double serve_eager_dispatch_s(const struct model_spec *m, int l0, int l1, int head, int tp,
			      enum serve_wprec w);

/* Weight bytes of layers [l0, l1) (+ embedding if first, + output layer if
 * head) per GPU of a tp group. */
double serve_stage_weight_bytes(const struct model_spec *m, int l0, int l1, int embed,
				int head, int tp, enum serve_wprec w);
/* KV bytes per token of layers [l0, l1) on one GPU of a tp group (KV heads
 * split over tp, replicated when tp exceeds them; an MLA latent is
 * replicated). */
double serve_stage_kv_bytes_per_token(const struct model_spec *m, int l0, int l1, int tp,
				      enum serve_kvprec kv);

/* The engine's running-sequence limit and tokens per iteration on pool p:
 * its defaults (serve_engine(cfg->engine)), cfg's values over them. */
void serve_batch_limits(const struct pool *p, const struct serve_config *cfg, int *max_batch,
			int *chunk);
/* Peak activation bytes per GPU of one forward over `chunk` tokens at TP
 * tp, with the fp32 logits of max_batch sampled rows: what an engine's
 * memory profiling pass holds besides the weights (vLLM's profile_run at
 * max_num_batched_tokens and max_num_seqs). A simplification: the widest
 * layer's live tensors, 16-bit. */
double serve_act_bytes(const struct model_spec *m, int tp, int chunk, int max_batch);
/* GPU memory per GPU that NCCL's NVLink SHARP (NVLS) buffers of the engine's
 * tensor-parallel communicators hold outside the caching allocator, which
 * the engine's memory profiling counts before it sizes the KV pool: vLLM
 * with tp > 2 GPUs of Hopper or later behind an NVSwitch, the group inside
 * one NVLink domain (serve_perf.c gives the figure and its source); 0
 * otherwise. */
double serve_nvls_bytes(const struct pool *p, enum serve_engine e, int tp);

/* A pool of `nodes` nodes of GPU g in its usual node shape (the catalog's
 * defaults: GPUs per node, intra-node fabric, NICs), priced from the
 * catalog reference. For tests and quick estimates. */
void serve_pool_from_gpu(struct pool *p, const struct gpu_spec *g, int nodes);

/* A finite burst: n requests arrive at once (a benchmark at unlimited
 * rate), request i with isl[i] prompt and osl[i] output tokens. The
 * engine admits them in order as its batch limit and KV pool allow and
 * runs iteration by iteration (decode tokens of the running requests plus
 * chunks of prompts, as serve_stage_time prices them) until the last
 * finishes. Unlike the steady state of serve_evaluate, the rate it
 * reports is n / makespan: with unequal lengths the last requests run
 * alone at the end, so it falls below the steady-state rate.
 * A vLLM-style engine admits a request on its prompt's KV; when the
 * running requests' next decode tokens outgrow the pool it preempts the
 * last-admitted ones (their KV freed) and later prefills their prompt and
 * output again (vLLM's recompute mode; docs/serve-preempt.md). Returns 0
 * (out->fits 0 and out->why when the longest request does not fit) or -1
 * with err. */
#define SERVE_BURST_MAX 4096
struct serve_burst_result {
	int fits;
	char why[320];
	double makespan_s;           /* first arrival to last token */
	double req_s, out_tps;       /* n / makespan, output tokens / makespan */
	double ttft_mean_s;          /* mean over the requests */
	double itl_mean_s;           /* mean over the output tokens after the first */
	long steps;                  /* engine iterations */
	int preemptions;             /* requests preempted (a request may count more than once) */
	double recomputed_tokens;    /* prompt + output tokens prefilled again after preemptions */
};
int serve_burst(const struct pool *p, const struct model_spec *m, const struct serve_config *cfg,
		int n, const double *isl, const double *osl, const struct serve_calib *calib,
		struct serve_burst_result *out, struct hp_err *err);

/* The burst's scheduler on its own: a KV pool of cap_tok tokens, at most
 * max_batch running requests, chunk tokens per iteration, the whole
 * output reserved at admission when reserve_full (no preemption then),
 * and iter(ctx, decode tokens, their mean context, prefill tokens, the
 * prefills' mean context, prefilling requests) the time of one
 * iteration. Fills out's makespan_s, ttft_mean_s, itl_mean_s, steps,
 * preemptions and recomputed_tokens (no front end); returns 0. For
 * serve_burst and tests. */
struct serve_burst_sched {
	double cap_tok;
	int max_batch, chunk;
	int reserve_full;
	double (*iter)(void *ctx, double n_dec, double dec_ctx, double n_pre, double pre_ctx,
		       double n_pre_seqs);
	void *ctx;
};
int serve_burst_run(const struct serve_burst_sched *s, int n, const double *isl,
		    const double *osl, struct serve_burst_result *out);

/* Erlang C: probability that an arrival waits in an M/M/c queue with
 * offered load a = lambda / mu (a < c). */
double serve_erlang_c(int c, double a);

/* The wait in front of a first token, as a sum of independent terms:
 * U uniform on [0, u] (the arrival's phase within an engine iteration)
 * plus two waits W1, W2, each 0 with probability 1 - p_i and otherwise
 * exponential with mean m_i (P(W_i > x) = p_i exp(-x / m_i): the tail of
 * an M/D/1 or M/D/c wait, an approximation; see serve_perf.c).
 * serve_wait_tail gives P(U + W1 + W2 > x); serve_wait_quantile the x
 * with P(. <= x) = q (0 < q < 1). A term with p_i <= 0 or m_i <= 0 is
 * absent; u may be 0. Infinite m_i with p_i > 0 gives HUGE_VAL. */
struct serve_wait {
	double u;                    /* s, width of the uniform phase */
	double p1, m1;               /* probability of waiting, mean wait if so (s) */
	double p2, m2;
};
double serve_wait_tail(const struct serve_wait *w, double x);
double serve_wait_quantile(const struct serve_wait *w, double q);

#endif
