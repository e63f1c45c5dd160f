/* perf_compute.c — the time of the stage's kernels on one GPU, per
 * micro-batch, and the activations and parameters it holds (the model is
 * described at the top of perf.c).
 *
 * Simplified, and said so: the GEMM tile menu is four CUTLASS-like shapes
 * with estimated relative speeds, not cuBLAS's heuristic; the kernel count
 * of a layer is written down per op below, not profiled. */
#include "perf_int.h"
#include "perf_moe.h"

#include <math.h>
#include <string.h>

double perf_peak(const struct gpu_spec *g, enum hp_dtype dt)
{
	double f = g->flops[dt];
	if (f <= 0 && dt == HP_BF16)
		f = g->flops[HP_FP16];
	if (f <= 0 && dt == HP_TF32)
		f = g->flops[HP_FP32];
	if (f <= 0)
		f = g->flops[HP_FP32];
	return f;
}

/* The generation whose kernel constants (gemm16, gemm8, square16, the
 * attention rates) a part's tensor-core kernels run at. Its own, except
 * for the Blackwell parts cut from a GB20x die (RTX 5090, RTX PRO 6000:
 * catalog arch "Blackwell (GB202)", compute capability 12.0). sm_120 has
 * no tcgen05 MMA and no tensor memory; its tensor cores are driven by
 * the warp-level mma.sync family of sm_80/sm_89 (extended with FP4/FP6
 * and block scaling), so its GEMM and flash-attention kernels are of the
 * Ampere/Ada family, not the B200's (sm_100) tcgen05 kernels that the
 * blackwell.* constants were fitted on (NVIDIA/cutlass issue 2165, an
 * NVIDIA engineer: the 5000 series "maps to sm120 ... you can also run
 * sm80 kernels on it"; issue 2513: the tcgen05 FMHA example is "for
 * TCGen05 supported MMA architectures. Please use FA2 or example 41 for
 * SM80/86/89/120"; pytorch/pytorch PR 155991: "sm120 matmul uses the
 * standard sm80 PTX instructions (cp.async + mma)"; calibration.json
 * blackwell.gemm16 "on_bound": the B200 rows run 20-30% slower than
 * Hopper scaling, early sm_100 software). Such a part
 * takes Ada's constants, through its own square sweep against Ada's
 * reference (clock_frac), as an Ada part with a sweep does. Post hoc
 * (docs/consumer-round50.md): prompted by the LLMQ RTX PRO 6000 rows. */
static enum hp_gen kernel_gen(const struct gpu_spec *g)
{
	/* the die GB202-GB207 (or "GB20x"), not the GB200 superchip
	 * (sm_100), whose name starts alike */
	const char *d = g->gen == GEN_BLACKWELL ? strstr(g->arch, "GB20") : NULL;
	if (d && ((d[4] >= '1' && d[4] <= '9') || d[4] == 'x' || d[4] == 'X'))
		return GEN_ADA;
	return g->gen;
}

/* Sustained clock of a GPU relative to the part its generation's
 * constants were fitted on, as a factor on compute-bound kernels (GEMMs,
 * flash attention; the memory clock is not lowered):
 *  - under a limit below the rated TDP the firmware lowers the clock
 *    until the board draws no more. Dynamic power goes as C V^2 f; near
 *    the top of the DVFS curve V rises with f, so f ~ P^(1/3), and once
 *    V sits at its floor f ~ P: hence the exponent k->power_clock_exp in
 *    [1/3, 1];
 *  - a part with a measured sustained square 16-bit GEMM rate (catalog
 *    gemm16_tflops_measured, torch.mm at 8192 and 10240) in a generation
 *    whose reference part has the same benchmark (gen.square16: V100
 *    SXM2, T4, A100 SXM, H100 SXM, B200, the parts the gemm16 constants
 *    were fitted on; L40S for Ada and Gaudi2 for Gaudi, whose gemm16 is
 *    set from that part's sweep: data/calibration.json) runs its training GEMMs at gemm16 x (its square
 *    fraction / the reference's): the same kernels on a part with another
 *    sustained clock or power limit (gemm16 above square16, which a
 *    refit can reach, counts as square16: the reference part's own
 *    sweep bounds its training GEMMs). The ratio may exceed 1 (an A10G or
 *    H20 holds a larger share of its smaller peak than the reference).
 *    A square fraction above 1 (GeForce boards boosting past the
 *    datasheet clock: RTX 3080 1.08, RTX 5090 1.06) counts as 1: the
 *    datasheet peak is at the rated boost clock, above it the clock
 *    depends on the board and its cooling (three RTX 5090 sweeps: 0.84,
 *    1.06, 1.12 of peak), and a step runs longer than the sweep;
 *  - FP32 and TF32 GEMMs (gemm32: datasheet-class defaults, not fitted
 *    on the reference part; a ratio of tensor-core sweeps says nothing
 *    of the CUDA-core rate), and any GEMM in a generation without a
 *    reference sweep (CDNA, other): the measurement only
 *    lowers: by measured / (peak x gemm16)
 *    where it falls below that product (a square benchmark against a
 *    training-shape constant, so a throttled part's slowdown there may
 *    be understated by ~0.85-0.92, the ratio gemm16 / square16 of the
 *    generations that have both).
 * Simplified: the reference fractions of Ampere and Blackwell are cuBLAS
 * figures, not the same torch.mm sweep (docs/perf-sources.md 1.6).
 *  - a part cut from a reference part's die and rated for more board
 *    power (catalog clock_ref), without a sweep of its own: B300 at
 *    1100 W against the B200 (1000 W, the HGX part blackwell.gemm16 was
 *    fitted on), GB300 at 1400 W against the GB200 (1200 W, the same
 *    NVL72 tray; a calibration part too, NEMO-08). Training GEMMs run
 *    power-limited below the boost clock the datasheet peak assumes
 *    (blackwell.gemm16 0.5 against the B200's best-shape 0.776), so the
 *    part sustains the reference's rate (gemm16 x its peak) scaled by
 *    what its power and SMs buy (sustained_rate_ref), and clock_frac is
 *    that against gemm16 x the part's own peak. GB200 keeps its own
 *    datasheet peak (2500 against the B200's 2250: 1.111 ~ 1.2^0.58,
 *    NVIDIA's statement of what its 200 W more buy) and no reference, so
 *    that gain is not counted twice. Capped at the reference's square
 *    sweep share of the part's peak (training shapes never outrun it).
 * 1 for a GPU with neither a limit, a measurement nor a reference. */

/* The sustained compute rate of a part relative to its reference part
 * (catalog clock_ref) at board power p_w: each SM's dynamic power goes
 * as C V^2 f, so at a power cap the clock of each of n SMs goes as
 * (p / n)^x (x = power_clock_exp, as for a limit below TDP) and the
 * throughput n f as n^(1-x) p^x:
 *   (p / p_ref)^x (n / n_ref)^(1-x).
 * With the fitted x 0.659: B300 on B200 1.1^x (160/148)^(1-x) = 1.065 x
 * 1.027 = 1.094, GB300 on GB200 (1400/1200)^x (160/148)^(1-x) = 1.107 x
 * 1.027 = 1.137 (tests/test_clock_ref.c by hand).
 * Simplified, and said so: the whole rated board power is taken to scale
 * the tensor-core clock (HBM and NVLink draw from the same figure), and
 * the SM term assumes the extra SMs of Blackwell Ultra share the cap like
 * the others. */
static double sustained_rate_ref(const struct perf_calib *k, const struct gpu_spec *g, double p_w)
{
	return pow(p_w / g->ref_tdp_w, k->power_clock_exp) *
	       pow((double)g->sms / g->ref_sms, 1 - k->power_clock_exp);
}

static double clock_frac(const struct perf_calib *k, const struct gpu_spec *g, enum hp_dtype dt)
{
	double f = 1;
	int limited = g->power_limit_w > 0 && g->tdp_w > 0 && g->power_limit_w < g->tdp_w;
	const struct perf_gen_eff *ge = &k->gen[kernel_gen(g)];
	double peak = g->flops[HP_FP16];
	if (g->ref_tdp_w > 0 && g->ref_sms > 0 && g->ref_flops16 > 0 && g->tdp_w > 0 &&
	    g->sms > 0 && peak > 0 && !(g->gemm16_meas > 0)) {
		double p_w = limited ? g->power_limit_w : g->tdp_w;
		double top = perf_fmax(ge->square16, ge->gemm16);
		double rate = ge->gemm16 * g->ref_flops16 * sustained_rate_ref(k, g, p_w);
		if (rate > top * peak)
			rate = top * peak;
		return ge->gemm16 > 0 ? rate / (ge->gemm16 * peak) : 1;
	}
	if (limited)
		f = pow(g->power_limit_w / g->tdp_w, k->power_clock_exp);
	if (g->gemm16_meas > 0 && peak > 0) {
		double sq = g->gemm16_meas < peak ? g->gemm16_meas / peak : 1;
		/* Training-shaped GEMMs never outrun the square sweep on the
		 * same part: a gemm16 above the reference's square16 (a refit
		 * can push it there) counts as square16, and without a
		 * reference the part's own sweep caps it. FP8 takes the same
		 * ratio: the sweep measures how far the part's sustained
		 * tensor clock sits from the reference part's, and FP8 MMAs
		 * issue on the same tensor cores at that clock (Ada
		 * whitepaper: the RTX 4090's FP8 with FP32 accumulate, 330.3,
		 * is twice its FP16/BF16 with FP32 accumulate, 165.2, both the
		 * GeForce half-rate accumulate path at the same 2.52 GHz;
		 * gemm8 already carries the FP8 kernels' own efficiency).
		 * Post hoc (docs/consumer-round50.md): until then a gain was
		 * withheld for want of an FP8 sweep; none is published for
		 * these parts, the clock argument stands in for it. */
		if (ge->square16 > 0 && (dt == HP_FP16 || dt == HP_BF16 || dt == HP_FP8))
			f *= sq / perf_fmax(ge->square16, ge->gemm16);
		else if (sq < ge->gemm16)
			/* fp32/tf32 (gemm32 was never fitted on the reference
			 * part; a tensor-core sweep says nothing of the CUDA
			 * cores) and any dtype of a generation without a
			 * reference sweep: a part below the generation's rate
			 * is slowed, none sped up */
			f *= sq / ge->gemm16;
	}
	return f;
}

double perf_gemm16_ceiling(const struct perf_calib *k, const struct gpu_spec *g)
{
	return g->flops[HP_FP16] * k->gen[kernel_gen(g)].gemm16 * clock_frac(k, g, HP_FP16);
}

static int dtype_bytes(enum hp_dtype dt)
{
	return dt == HP_FP32 || dt == HP_TF32 ? 4 : dt == HP_FP8 ? 1 : 2;
}

/* The best output tile for an M x N result (count of them batched) on the
 * GPU's SMs: tiles that leave SMs idle in the last wave lose their share.
 * Relative speeds of the smaller tiles are estimates from their operand
 * reuse (arithmetic intensity 85, 64, 43, 32 FLOP/byte per k-step). */
static double wave_eff(double M, double N, double count, int sms)
{
	static const struct { double m, n, speed; } tiles[] = {
		{ 256, 128, 1.00 }, { 128, 128, 0.92 }, { 128, 64, 0.80 }, { 64, 64, 0.62 },
	};
	if (sms <= 0)
		return 1;
	double best = 0;
	for (size_t i = 0; i < sizeof tiles / sizeof *tiles; i++) {
		double t = ceil(M / tiles[i].m) * ceil(N / tiles[i].n) * count;
		double waves = ceil(t / sms);
		/* Partial tiles at the edges compute padding. */
		double fill = (M * N * count) / (t * tiles[i].m * tiles[i].n);
		double e = tiles[i].speed * fill * t / (waves * sms);
		if (e > best)
			best = e;
	}
	return best;
}

/* Efficiency of count batched (M x K)(K x N) GEMMs: the generation's
 * ceiling for the dtype, tile and wave quantisation, main-loop fill. */
static double gemm_eff_n(const struct perf_calib *k, const struct gpu_spec *g,
			 enum hp_dtype dt, double M, double N, double K, double count)
{
	const struct perf_gen_eff *ge = &k->gen[kernel_gen(g)];
	double top = dt == HP_FP8 && g->flops[HP_FP8] > 0	   ? ge->gemm8
		     : dt == HP_FP32 || dt == HP_TF32 ? ge->gemm32
						      : ge->gemm16;
	return top * wave_eff(M, N, count, g->sms) * K / (K + k->gemm_k_half);
}

double perf_gemm_eff(const struct perf_calib *k, const struct gpu_spec *gpu,
		     enum hp_dtype dt, double M, double N, double K)
{
	return gemm_eff_n(k, gpu, dt, M, N, K, 1);
}

/* count GEMMs of (M x K)(K x N): the longer of the math at the achievable
 * rate and the operands' trip through HBM. */
static double gemm_time(const struct perf_calib *k, const struct gpu_spec *g,
			enum hp_dtype dt, double M, double N, double K, double count)
{
	if (M <= 0 || N <= 0 || K <= 0 || count <= 0)
		return 0;
	double eff = gemm_eff_n(k, g, dt, M, N, K, count);
	double math = count * 2 * M * N * K / (perf_peak(g, dt) * clock_frac(k, g, dt) * eff);
	double eb = dtype_bytes(dt) < 2 ? 1 : dtype_bytes(dt);
	double bytes = count * eb * (M * K + K * N) + count * 2 * M * N * (eb > 2 ? 2 : 1);
	/* HBM: the part's own generation (kernel_gen names the kernels) */
	double mem = bytes / (g->hbm_Bps * k->gen[g->gen].hbm);
	return perf_fmax(math, mem);
}

/* The routed experts' GEMM shape on one GPU of a stage of TP tp, for T
 * tokens of a micro-batch (mbs x seq / cp, before sequence parallelism
 * splits them over tp). The experts' layout is Megatron-Core's expert
 * grid (parallel_state.py @d98e8a64: expert TP etp innermost, then EP,
 * then expert DP; MoE parallel folding when etp != tp):
 *  - *local = experts / ep experts on the GPU;
 *  - each rank dispatches its own T / tp tokens (sequence parallel) x
 *    top_k copies over the EP group; with etp > 1 the AlltoAll
 *    dispatcher then all-gathers them over the etp ranks that share an
 *    expert (token_dispatcher.py, MoEAlltoAllTokenDispatcher.
 *    dispatch_postprocess: gather_from_sequence_parallel_region over
 *    expt_tp). Under uniform routing an expert's rows are then
 *    *rows = (T / tp) x top_k x ep x etp / experts;
 *  - *et = etp: each GEMM's FFN side is expert_ffn / etp (TE's grouped
 *    linears column- and row-split over expt_tp, experts.py).
 * FLOPs per GPU, 2 x rows x local x (up + 1) x h x ffn / etp, come to
 * 2 T top_k (up + 1) h ffn / tp at every etp: folding reshapes the
 * GEMMs (fewer, taller rows at etp < tp), not their work. With etp = tp
 * this is hetplan's earlier T top_k ep / experts rows of width ffn / tp. */
static void expert_shape(const struct moe_spec *e, const struct plan *p, int tp, double T,
			 double *local, double *rows, double *et)
{
	int etp = plan_etp(p, tp);
	*local = (double)e->experts / p->ep;
	*rows = T * e->top_k * p->ep * etp / ((double)e->experts * tp);
	*et = etp;
}

/* One of the routed experts' two GEMMs forward (fc2 0: fc1, up x ffn /
 * et wide; 1: fc2, hidden wide) at expert_shape's shape, in dt, for all
 * the local experts. Grouped (plan_moe_grouped_gemm): costed as one
 * batch of `local` GEMMs, their tiles sharing the waves (TE's
 * GroupedLinear runs them on four streams at once, moe_ops).
 * SequentialMLP: each expert's GEMM runs alone, one after the other on
 * the compute stream (experts.py @f1f03922 SequentialMLP.forward: `for
 * expert, tokens in zip(self.local_experts, tokens_list)`), so each pays
 * its own tile and wave quantisation: local x the time of one. */
static double expert_gemm(const struct perf_calib *k, const struct gpu_spec *g,
			  const struct model_spec *m, const struct plan *p, int tp, double T,
			  enum hp_dtype dt, int fc2)
{
	const struct moe_spec *e = &m->moe;
	double local, rows, et, up = m->gated_mlp ? 2 : 1, h = m->hidden;
	expert_shape(e, p, tp, T, &local, &rows, &et);
	double N = fc2 ? h : up * e->expert_ffn / et, K = fc2 ? e->expert_ffn / et : h;
	if (plan_moe_grouped_gemm(p))
		return gemm_time(k, g, dt, rows, N, K, local);
	return local * gemm_time(k, g, dt, rows, N, K, 1);
}

/* TF32 GEMMs on Hopper whose two operands are both MN-major. Hopper's
 * warpgroup MMA (wgmma) takes its B operand from shared memory, and in
 * the tf32 form only K-major: the 16-bit atoms take a major-ness per
 * operand (GMMA::Major tnspA, tnspB), the tf32 atoms exist only as "TN",
 * shared-memory B K-major, and A either K-major in shared memory (SS) or
 * from registers (RS), where the kernel's own loads can lay it out
 * (NVIDIA CUTLASS include/cute/atom/mma_traits_sm90_gmma.hpp:
 * SM90_64xNx8_F32TF32TF32_SS_TN / _RS_TN with GMMA::smem_desc<GMMA::
 * Major::K>; as vendored in PaddlePaddle/Paddle @44ab61d1 paddle/phi/
 * kernels/fusion/gpu/cute/atom/mma_traits_sm90_gmma.hpp). So a tf32 GEMM
 * with one MN-major operand still has a wgmma form (that operand goes to
 * A, swapping the product if needed): a square torch.mm, one operand
 * MN-major, runs at 0.81 of the H100's TF32 peak (docs/perf-sources.md
 * 1.3). One with both MN-major has none. A linear layer's forward
 * (Y = X W^T) and data gradient (dX = dY W) are of the first kind; its
 * weight gradient dW = dY^T X contracts over the tokens, the contiguous
 * dimension of neither operand: both MN-major. So are unfused
 * attention's dV = P^T dO and dK = dS^T Q (contracting over the queries).
 * Those GEMMs of a tf32 run on Hopper are costed as fp32 GEMMs: the FP32
 * CUDA-core peak at the generation's gemm32 efficiency (0.70; a square
 * FP32 torch.mm measures 0.77 on the H100 SXM, perf-sources.md 1.3). That
 * cuBLAS then runs a CUDA-core kernel, rather than transposing an operand
 * first or an Ampere-class mma.sync kernel, is an assumption, not a
 * documented behaviour: the evidence is the GH200 per-layer profile of
 * Sailor's Megatron-DeepSpeed OPT-350M (docs/blind-round20-small.md),
 * whose forward matches hetplan's TF32 forward and whose backward runs
 * 2.1-2.8x its forward. Ampere's mma.sync loads either major-ness for
 * TF32 (CUTLASS sm80 TF32 kernels for all four layouts), and Blackwell's
 * tcgen05 is not checked: both keep the TF32 rate. Simplified: the weight
 * gradient is costed at the forward's shape (same FLOPs; its K is the
 * tokens, not the hidden size). */
static enum hp_dtype bwd_gemm_dtype(const struct gpu_spec *g, enum hp_dtype dt)
{
	return dt == HP_TF32 && g->gen == GEN_HOPPER ? HP_FP32 : dt;
}

/* The layer's GEMMs, forward, as dt GEMMs (the backward's data gradients
 * are this again, its weight gradients this at bwd_gemm_dtype). */
static double layer_gemms(const struct model_spec *m, int layer, const struct gpu_spec *g,
			  const struct plan *p, int tp, double T, double s,
			  const struct perf_calib *k, enum hp_dtype dt)
{
	double t = tp, h = m->hidden, q = model_q_dim(m), kv = model_kv_dim(m);
	double up = m->gated_mlp ? 2 : 1, gm = 0;
	if (m->mla.kv_lora_rank) {
		double mm, at;
		model_layer_fwd_flops(m, layer, s, &mm, &at);
		double ffn_w = model_layer_is_moe(m, layer)
				       ? (m->moe.top_k + m->moe.shared_experts) * (up + 1) * h *
						 m->moe.expert_ffn + h * m->moe.experts
				       : (up + 1) * h * m->ffn;
		double attn_w = mm / 2 - ffn_w;
		gm += gemm_time(k, g, dt, T, attn_w / (h * t), h, 1);
	} else if (framework_get(p->framework)->eager_modules &&
		   !framework_get(p->framework)->eager_fused_qkv) {
		/* Three nn.Linear modules, one GEMM each (DeepLearningExamples
		 * BERT modeling.py @26c26761, BertSelfAttention: self.query,
		 * self.key, self.value): narrower outputs, fewer tiles per wave.
		 * The 2019 Megatron-LM layer (eager_fused_qkv) has one
		 * query_key_value linear: the fused GEMM below. */
		gm += gemm_time(k, g, dt, T, q / t, h, 1);
		gm += 2 * gemm_time(k, g, dt, T, kv / t, h, 1);
		gm += gemm_time(k, g, dt, T, h, q / t, 1);
	} else {
		gm += gemm_time(k, g, dt, T, (q + 2 * kv) / t, h, 1);
		gm += gemm_time(k, g, dt, T, h, q / t, 1);
	}
	if (!model_layer_is_moe(m, layer)) {
		gm += gemm_time(k, g, dt, T, up * m->ffn / t, h, 1);
		gm += gemm_time(k, g, dt, T, h, m->ffn / t, 1);
		return gm;
	}
	const struct moe_spec *e = &m->moe;
	/* The router: a plain linear in 16 bits (or fp32) under fp8 too
	 * (Megatron-Core TopKRouter.gating, torch.nn.functional.linear). */
	gm += gemm_time(k, g, dt == HP_FP8 ? HP_BF16 : dt, T, e->experts, h, 1);
	gm += expert_gemm(k, g, m, p, tp, T, dt, 0);
	gm += expert_gemm(k, g, m, p, tp, T, dt, 1);
	if (e->shared_experts) {
		double f = (double)e->shared_experts * e->expert_ffn;
		gm += gemm_time(k, g, dt, T, up * f / t, h, 1);
		gm += gemm_time(k, g, dt, T, h, f / t, 1);
	}
	return gm;
}

/* Transformer Engine casts each GEMM's activation input to fp8 (read
 * 16-bit, write fp8 and its transpose for the weight gradient: 2 + 1 + 1
 * bytes an element): the inputs of QKV, projection, MLP up and down. An
 * MoE layer's fc1 input is every routed copy of a token (and the shared
 * expert's), cast after the 16-bit dispatch. The weights are not cast
 * here: Megatron-Core hands TE is_first_microbatch, so a weight is cast
 * (and transposed) on the step's first micro-batch and the cached copy
 * serves the rest (TELinear.forward and TEGroupedLinear.forward,
 * megatron/core/extensions/transformer_engine.py @d086a2e3): a few
 * milliseconds a step at 4 bytes a parameter, not modelled. */
double perf_fp8_cast_bytes(const struct model_spec *m, int layer, const struct plan *p, int tp,
			   double T)
{
	if (p->precision != HP_FP8)
		return 0;
	double t = tp, h = m->hidden, q = model_q_dim(m);
	double ffn = m->ffn, copies = 1;
	if (model_layer_is_moe(m, layer)) {
		ffn = m->moe.expert_ffn;
		copies = m->moe.top_k + m->moe.shared_experts;
	}
	double in = T * (h + q + h * copies + ffn * copies) / t;
	return 4 * in;
}

/* Megatron's transformer layer (Megatron-LM since 2020, Megatron-Core,
 * and Megatron-DeepSpeed under DeepSpeed) adds the projection's bias,
 * applies the dropout and adds the residual in one fused kernel
 * (bias_dropout_add_fused_train, torch.jit.script; --no-bias-dropout-fusion
 * turns it off, megatron/model/transformer.py at 51a2e6b0ff, Sep 2020), and
 * the MLP's bias in its GeLU (bias_gelu_fusion): the dropout's own read
 * and write of the activations are gone, its 1-byte mask stays.
 * torchtitan's eager modules fuse nothing. The kernel count of
 * layer_kernels is kept: a TorchScript fusion group costs the host about
 * what the eager ops it replaces do (a profiling-executor call per
 * group), and the host is what the count prices. */
static int fused_dropout_add(const struct plan *p)
{
	return p->framework != FW_TORCHTITAN && !framework_get(p->framework)->eager_modules;
}

/* What eager modules move beyond the fused stacks' ops, as
 * DeepLearningExamples' BERT runs them (modeling.py @26c26761 and
 * @a9e2c1d5, framework.c), per token forward, in bytes:
 *  - a bias add after each linear (q, k, v, projection, MLP up and down):
 *    the forward reads and writes the output (2 eb), the backward only
 *    sums the gradient over the tokens (eb, the add itself passes it on).
 *    PyTorch 1.2-1.6's F.linear on a 3-D input runs the matmul and then
 *    `output += bias` (torch/nn/functional.py); 2020's MLP up adds its
 *    bias in bias_gelu (`bias + y`). Later releases hand a 3-D input to
 *    addmm, which copies the bias into the output before a beta = 1 GEMM
 *    reads it back: the same bytes, unless cuBLASLt's bias epilogue takes
 *    it (not modelled: counted as apart);
 *  - the context permuted back with .contiguous(), and (2020 code,
 *    eager_qkv_copies) q, k and v copied to contiguous batches by
 *    torch.matmul: read and write (2 eb) forward, one copy of the
 *    gradient back.
 * layer_ew_bytes counts a backward as twice its forward; these ops move
 * less backward, so their forward-and-backward total is entered as a
 * third, to keep the sum right (fwd/bwd split simplified). */
static double eager_extra_bytes(const struct model_spec *m, const struct plan *p, int tp,
				double T, double eb)
{
	double t = tp, h = m->hidden, q = model_q_dim(m), kv = model_kv_dim(m);
	double up = m->gated_mlp ? 2 : 1, b = 0;
	if (m->bias)
		b += eb * T * ((q + 2 * kv) / t + h + up * m->ffn / t + h);
	if (!p->flash) {
		double copied = q + (framework_get(p->framework)->eager_qkv_copies ? q + 2 * kv : 0);
		b += 4 * eb * T * copied / t / 3;
	}
	return b;
}

/* torch.compile over torchtitan's transformer block (the plan key
 * compile, docs/compile.md). layer_ew_bytes and layer_kernels charge a
 * torchtitan layer the fused per-op counts: each RMSNorm, rotary on q and
 * on k, and SwiGLU one kernel that reads its inputs and writes its output
 * once, each residual add apart. That is what Inductor emits for the
 * block, torchtitan compiling each TransformerBlock as one graph
 * (torch.compile(block, fullgraph=True): apply_compile, torchtitan/models/
 * llama3/infra/parallelize.py @81c12433), except that the first residual
 * add and the ffn_norm after it become one kernel (a pointwise producer
 * fused into the reduction that reads it): read x and the attention
 * output, write h and the normed h, 4 elements where the add and the norm
 * apart move 3 + 2. The attention_norm stays alone (its input comes from
 * the previous block's graph), as does the last add. GEMMs stay cuBLAS
 * calls and attention the SDPA kernel (Inductor's defaults). Under
 * compile on: one element of T x h and one launch fewer a layer forward.
 * Not modelled: torchtitan's Llama code runs seven GEMMs a layer (wq, wk,
 * wv, wo, w1, w3, w2; counted as four, compiled or not).
 *
 * Eager (compile off), the block runs torchtitan's model code op by op
 * (torchtitan/models/llama3/model/model.py @6404b932) and moves more
 * than the fused counts, per element, in the activation dtype of eb
 * bytes (fp32 for the rotary casts):
 *  - nn.RMSNorm as PyTorch's composite rms_norm (ATen layer_norm.cpp,
 *    PyTorch 2.4 to 2.8: x * rsqrt(pow(x, 2).mean(-1) + eps) * weight; a
 *    fused CUDA kernel came with pytorch/pytorch#153666 in 2025, after
 *    which eager RMSNorm is the fused count): forward pow 2, mean 1,
 *    times rsqrt 2, times weight 2 = 7 elements, 6 launches (with the
 *    [T, 1] add and rsqrt), against 2 and 1 charged; backward (autograd's
 *    formulas for mul, mean and pow) times weight 2 and its weight
 *    gradient g * y then a sum over tokens 4, times rsqrt 2 and its
 *    gradient g * x summed over h 4, mean's expand 1, pow's 2 x x x g 5
 *    (x^1, times 2, times g), the two gradients of x added 3: 21 against
 *    4 charged. +5 + 17 = +22 elements a norm, two a layer;
 *  - apply_rotary_emb on q and k: x.float() (read eb, write 4), the
 *    complex product with freqs_cis in fp32 (read 4, write 4; freqs_cis
 *    is a [s, d/2] table read from cache), type_as (read 4, write eb):
 *    16 + 2 eb bytes forward, three launches, against 2 eb and one; its
 *    backward the same three in reverse, 16 + 2 eb against 4 eb: +32 - 2
 *    eb bytes (+28 at 16 bits; none in an fp32 run, where the casts are
 *    no-ops and the product moves 2 eb each way);
 *  - SwiGLU as F.silu(w1(x)) * w3(x): silu reads f and writes f, the
 *    product reads 2 f and writes f, 5 against the fused 3, one launch
 *    more; backward the product's two gradients (read g, a, b; write 2)
 *    5 and silu's 3, 8 against 6: +4 elements of T x ffn.
 * layer_ew_bytes counts a backward as twice its forward; these forward-
 * and-backward extras are entered as a third (as eager_extra_bytes).
 * Bytes over the HBM bandwidth at the memory-bound rate every other such
 * pass runs at (layer_cost); no constant of its own. */
static int titan_compiled(const struct plan *p)
{
	return p->framework == FW_TORCHTITAN && plan_compile(p);
}

static int titan_eager(const struct plan *p)
{
	return p->framework == FW_TORCHTITAN && !plan_compile(p);
}

/* Bytes per layer forward (possibly negative: compiled) that compile on
 * or off adds to the fused counts, as above; dense layers only (an MoE
 * layer's experts run torchtitan's grouped kernels either way). */
static double compile_bytes(const struct model_spec *m, int layer, const struct plan *p, int tp,
			    double T, double eb)
{
	double t = tp, Th = T * m->hidden / (p->sp ? t : 1);
	if (titan_compiled(p))
		return -eb * Th;                       /* add + ffn_norm fused */
	if (!titan_eager(p) || model_layer_is_moe(m, layer))
		return 0;
	double b = 0;
	if (m->norm == NORM_RMS)
		b += 2 * 22 * eb * Th / 3;             /* composite RMSNorm */
	if (m->position == POS_ROPE && eb < 4)
		b += (32 - 2 * eb) * T * (model_q_dim(m) + model_kv_dim(m)) / t / 3;
	if (m->gated_mlp)
		b += 4 * eb * T * m->ffn / t / 3;      /* silu and the product apart */
	return b;
}

/* Launches a layer forward that compile on or off adds to layer_kernels'
 * count: compiled, the fused add + norm (-1); eager, five more a
 * composite RMSNorm, two more a rotary (q and k), one more SwiGLU. */
static double compile_kernels(const struct model_spec *m, int layer, const struct plan *p,
			      double eb)
{
	if (titan_compiled(p))
		return -1;
	if (!titan_eager(p) || model_layer_is_moe(m, layer))
		return 0;
	return (m->norm == NORM_RMS ? 2 * 5 : 0) + (m->position == POS_ROPE && eb < 4 ? 2 * 2 : 0) +
	       (m->gated_mlp ? 1 : 0);
}

/* What the Hugging Face Trainer's eager transformers models move beyond
 * the eager rows' counts above (layer_ew_bytes, eager_extra_bytes), in
 * bytes per layer on one GPU. layer_ew_bytes returns a forward figure
 * whose backward is charged twice over (3x in all); each term here is
 * counted forward and backward pass by pass, less what the eager rows
 * already charge for the same ops, and entered as a third of that
 * difference (as eager_extra_bytes). Zero for every row without
 * eager_modules and amp_autocast and for a model with neither gelu_new
 * nor attn_softmax_fp32 (framework.h, catalog.h). Each pass is read from
 * the model code, huggingface/transformers models/gpt2/modeling_gpt2.py
 * @0010f602 (GPT2Block, GPT2Attention._attn, GPT2MLP), activations.py
 * @00e12e7c (NewGELUActivation) and models/gpt_bigcode/
 * modeling_gpt_bigcode.py @00574544 (GPTBigCodeAttention._attn,
 * upcast_masked_softmax), and from the dtypes torch.autocast gives each
 * op (its CUDA op lists: addmm, linear, matmul and baddbmm in 16 bits;
 * layer_norm, softmax and pow in fp32; the rest in the widest input
 * dtype). Over the GPU's bandwidth at the memory-bound efficiency every
 * other such pass runs at (layer_cost); no constant of its own.
 * Backward of an elementwise op: it reads the incoming gradient and what
 * the op saved (a product both inputs, tanh and softmax their output),
 * writes one gradient per input; a gradient meeting another dtype is cast.
 *
 * Under autocast (amp_autocast, a 16-bit run) the weights are fp32, so
 *  - the residual stream is fp32 (fp32 embeddings plus 16-bit branch
 *    outputs). Each LayerNorm runs in fp32: forward read 4, write 4,
 *    backward read 8, write 4: 20 bytes an element where the eager rows
 *    charge 3 x 2 eb = 12 (+8). Its fp32 output is cast to 16 bits for
 *    c_attn or c_fc (read 4, write 2), and the 16-bit input gradient is
 *    cast back (read 2, write 4): +12. The residual adds (read 4 + 2,
 *    write 4; backward the branch's gradient cast to 16 bits, 4 + 2: 16)
 *    against the 18 charged: taken as equal. Per element of T x h:
 *    2 x (8 + 12) = 40;
 *  - every weight and bias is cast to 16 bits in each micro-batch's
 *    forward (read 4, write 2; autocast caches a cast for one autocast
 *    region, which the Trainer opens per micro-batch in
 *    compute_loss_context_manager), and its 16-bit gradient is cast back
 *    (read 2, write 4) and accumulated into the fp32 .grad (read 8, write
 *    4): 24 bytes a parameter a micro-batch;
 *  - GPT-2's scores (without attn_softmax_fp32) become fp32 at the
 *    additive mask (16-bit scores + the fp32 mask GPT2Model builds from
 *    the Trainer's attention_mask), so the softmax reads and writes fp32
 *    and .type(value.dtype) casts back: forward and backward, scale 4 + 4,
 *    torch.where 4 + 4, mask add 6 + 6 (the gradient cast to 16 bits),
 *    softmax 8 + 12, cast 6 + 6 = 60 bytes a score where the eager rows
 *    charge 24 (softmax 4 x 3, scale and mask 4 x 3): +36.
 * With attn_softmax_fp32 (GPTBigCode: 16-bit scores from baddbmm with
 * the scale in alpha), upcast_masked_softmax is TorchScript: counted as
 * the fused group its comment intends (the cast, the unscale multiply and
 * torch.where in one kernel: read 2, write 4; backward read 4, write 2),
 * then the fp32 softmax (8 + 12) and the cast back (6 + 6): 44 bytes a
 * score, +20 on the 24 charged. Unfused (no TorchScript fusion) it would
 * be 76: not counted.
 * Without autocast (a 16-bit model: hf-deepspeed, eager_where_mask) GPT-2's
 * scores stay 16-bit throughout (the padding mask is cast to the model's
 * dtype in GPT2Model.forward, and .type(value.dtype) is then no copy):
 * forward and backward, scale 4 + 4, torch.where 4 + 4 (its 1-byte
 * causal mask is a [1, 1, s, s] buffer, read from cache), mask add 4 + 0
 * (the gradient passes through; the mask needs none), softmax 4 + 6 = 30
 * bytes a score where the eager rows charge 24: +6.
 * gelu_new (pow, mul, add, mul, tanh, add, mul, mul) in the activation
 * dtype moves 18 elements forward (1+1, 1+1, 2+1, 1+1, 1+1, 1+1, 1+1,
 * 2+1) and 23 backward (pow 3, mul 2, add 0, mul 2, tanh 3, add 0, mul 2,
 * product 5, and two adds summing the input's three gradients, 6): 41
 * against one GeLU's 6 charged, +35 eb per element of T x ffn. Under
 * autocast pow runs in fp32 and the chain after it follows in fp32:
 * forward cast 2 + 4, pow 8, mul 8, add 2 + 4 + 4, mul 8, tanh 8, add 8,
 * 0.5 x input 2 + 2, product 2 + 4 + 4, c_proj's input cast 4 + 2 (76);
 * backward that cast 6, product 16, 0.5 x input 4, tanh 12, mul 8, the
 * add's gradient to the 16-bit input cast 6, mul 8, pow 12, the first
 * cast 6, the input's gradient sums 12 (90): 166 against 12, +154. */
static double hf_eager_bytes(const struct model_spec *m, int layer, const struct plan *p, int tp,
			     double T, double s, double *scores)
{
	const struct framework_info *fw = framework_get(p->framework);
	double eb = perf_act_elem_bytes(p), t = tp, b = 0;
	int amp = fw->amp_autocast && eb == 2 && p->master != MASTER_NONE;
	*scores = 0;
	if (!fw->eager_modules || model_layer_is_moe(m, layer))
		return 0;
	double Th = T * m->hidden / (p->sp ? t : 1);
	if (amp) {
		double total, active, experts;
		model_layer_params(m, layer, &total, &active, &experts);
		b += 40.0 / 3 * Th;                /* fp32 LayerNorms and their casts */
		b += 24.0 / 3 * total / t;         /* weight casts and fp32 .grad */
	}
	if (m->gelu_new && !m->gated_mlp)
		b += (amp ? 154.0 : 35 * eb) / 3 * T * m->ffn / t;
	if (!p->flash && eb == 2) {
		double n = (double)m->heads / t * T * s;
		if (m->attn_softmax_fp32)
			*scores = n * 20.0 / 3;
		else if (amp)
			*scores = n * 36.0 / 3;
		else if (fw->eager_where_mask)
			*scores = n * 6.0 / 3;
	}
	return b + *scores;
}

/* Kernels hf_eager_bytes adds to an eager layer's forward: gelu_new's
 * seven beyond one GeLU (and its output's cast under autocast); under
 * autocast the two LayerNorm outputs' casts, a cast of each weight and
 * bias (4 and 4), and GPT-2's mask add and cast back of the scores;
 * without autocast GPT-2's torch.where (eager_where_mask). */
static double hf_eager_kernels(const struct model_spec *m, const struct plan *p)
{
	const struct framework_info *fw = framework_get(p->framework);
	int amp = fw->amp_autocast && perf_act_elem_bytes(p) == 2 && p->master != MASTER_NONE;
	double n = 0;
	if (m->gelu_new && !m->gated_mlp)
		n += 7 + amp;
	if (amp)
		n += 2 + 4 + (m->bias ? 4 : 0) + (!p->flash && !m->attn_softmax_fp32 ? 2 : 0);
	else if (fw->eager_where_mask && fw->eager_modules && perf_act_elem_bytes(p) == 2 &&
		 !p->flash && !m->attn_softmax_fp32)
		n += 1;   /* the torch.where over the scores (16-bit, as hf_eager_bytes) */
	return n;
}

/* Bytes the allgather dispatcher's permutation moves forward on one GPU
 * (token_dispatcher.py @f1f03922, MoEAllGatherTokenDispatcher; moe_utils.py
 * permute, unpermute, moe_gather, moe_scatter), eb bytes an element. Each
 * rank all-gathers the T / tp tokens of the etp x ep ranks of its group,
 * G = T x ep rows of hidden (at etp = tp), and keeps the rows routed to
 * its local experts: n = G x top_k x (E / ep) / E = T x top_k rows under
 * uniform routing, at every ep (every rank of the group keeps all n: the
 * experts' TP shards each need the whole rows). In rows of hidden:
 *   moe_gather of the local rows (torch.gather)       read n, write n   2n
 *   permute's moe_gather into expert order            read n, write n   2n
 *   unpermute's moe_scatter: zeros, scatter_add       n + n + 2n        4n
 *   sum over the top-k axis (of size 1 here)          read n, write n   2n
 *   times the routing probabilities                   read n, write n   2n
 *   moe_scatter to the gathered tokens: zeros of G,
 *     scatter_add reading n and updating n rows       G + n + 2n    3n + G
 * 15 n + G rows in all, against the 4 n of the all-to-all path's fused
 * permute and unpermute. The index tensors (int64, expanded over hidden
 * with stride 0) are read from cache, not counted; nor are the masks
 * and probabilities (T x top_k elements). The backward moves about
 * twice (every op's rule, layer_ew_bytes): scatter_add's gradient is a
 * gather, gather's a zeros and scatter_add. */
static double allgather_permute_bytes(const struct model_spec *m, const struct plan *p, int tp,
				      double T, double eb)
{
	/* folded (etp != tp): the group is etp x ep ranks of T / tp tokens */
	double G = T * p->ep * plan_etp(p, tp) / tp, n = G * m->moe.top_k / p->ep;
	return (15 * n + G) * m->hidden * eb;
}

/* Bytes the layer's memory-bound ops move forward on one GPU, op by op
 * (activations in 16 bits, 4 bytes under fp32/tf32; under sequence
 * parallelism the norms, dropouts and residuals see T/tp tokens). Each
 * op's backward reads its saved input and the incoming gradient and
 * writes the outgoing one: about twice its forward bytes. */
static double layer_ew_bytes(const struct model_spec *m, int layer, const struct plan *p,
			     int tp, double T, double s, double *scores)
{
	double eb = perf_act_elem_bytes(p);
	double t = tp, h = m->hidden, q = model_q_dim(m), kv = model_kv_dim(m);
	double Th = T * h / (p->sp ? t : 1);
	double ffn = m->ffn, copies = 1;
	if (model_layer_is_moe(m, layer)) {
		ffn = m->moe.expert_ffn;
		copies = m->moe.top_k + m->moe.shared_experts;
	}
	const struct framework_info *fw = framework_get(p->framework);
	int dropout = m->dropout && !fw->no_dropout;
	double b = 0;
	if (fw->fused_residual_norm) {
		b += 2 * 4 * eb * Th;              /* two add + norm kernels: read 2, write 2 */
	} else {
		b += 2 * 2 * eb * Th;              /* two norms: read x, write y */
		b += 2 * 3 * eb * Th;              /* two residual adds: read 2, write 1 */
	}
	if (dropout && !fused_dropout_add(p))
		b += 2 * (2 * eb + 1) * Th;        /* two dropouts: read, write, 1-byte mask */
	else if (dropout)
		b += 2 * Th;                       /* fused into the adds: the 1-byte masks */
	if (m->position == POS_ROPE)
		b += 2 * eb * T * (q + kv) / t;    /* rotary on q and k: read, write */
	/* Activation: GeLU reads and writes f; SwiGLU reads 2f, writes f. */
	b += copies * eb * T * ffn / t * (m->gated_mlp ? 3 : 2);
	if (model_layer_is_moe(m, layer) &&
	    plan_moe_allgather(p))
		b += allgather_permute_bytes(m, p, tp, T, eb);
	else if (copies > 1)
		b += 2 * 2 * eb * T * h * copies;  /* MoE permute and unpermute */
	/* SequentialMLP's torch.cat of the experts' outputs: read and write
	 * every routed row (T x top_k rows of hidden on each rank at every
	 * ep: expert_shape's rows x local); with one local expert it calls
	 * the expert on the whole input, no cat (experts.py @f1f03922) */
	if (model_layer_is_moe(m, layer) && !plan_moe_grouped_gemm(p) && m->moe.experts > p->ep)
		b += 2 * eb * T * m->moe.top_k * h;
	if (model_layer_is_moe(m, layer)) {
		/* The router's fp32 scores (moe_ops): top-k reads the logits and
		 * writes the probabilities and the 1-byte routing map, the
		 * aux-loss scores do the same again, the token count and the
		 * loss read the map and the scores: 4 + 5 + 4 + 5 + 1 + 4 bytes
		 * per token and expert. */
		b += 23.0 * T / (p->sp ? t : 1) * m->moe.experts;
	}
	b += perf_fp8_cast_bytes(m, layer, p, tp, T);
	if (framework_get(p->framework)->eager_modules)
		b += eager_extra_bytes(m, p, tp, T, eb);
	b += compile_bytes(m, layer, p, tp, T, eb);
	*scores = 0;
	if (!p->flash) {
		/* Unfused attention: scale-mask-softmax reads and writes the
		 * s x s scores, dropout reads, writes and masks them. */
		double n = (double)m->heads / t * T * s;
		*scores = n * (2 * eb + (dropout ? 2 * eb + 1 : 0));
		/* Eager modules scale and mask the scores in two ops of their
		 * own before the softmax (DeepLearningExamples BERT
		 * modeling.py @26c26761 and @a9e2c1d5, BertSelfAttention:
		 * `attention_scores / math.sqrt(...)`, then `+ attention_mask`):
		 * each reads and writes them forward (4 eb); backward only the
		 * division scales the gradient (2 eb), the add passes it on.
		 * 6 eb in all, entered as a third (see eager_extra_bytes). */
		if (framework_get(p->framework)->eager_modules)
			*scores += n * 2 * eb;
		/* In an fp32 or tf32 run Megatron's fused scale-mask-softmax
		 * kernel is not available (FusedScaleMaskSoftmax.
		 * is_kernel_available needs 16-bit input, megatron/model/
		 * fused_softmax.py), so the scale, the masked_fill_ and the
		 * softmax run as three passes: the scale and the mask each read
		 * and write the scores forward (4 eb) and pass the gradient
		 * back the same way (4 eb). 8 eb, entered as a third as above. */
		else if (eb == 4)
			*scores += n * 8 * eb / 3;
		/* The 2019 Megatron-LM GPT-2 mask (eager_mask_mul;
		 * DeepSpeedExamples Megatron-LM/mpu/transformer.py @a79272c:
		 * torch.mul(scores, ltor_mask) - 10000.0 * (1.0 - ltor_mask))
		 * multiplies and then subtracts: one more read and write of the
		 * scores forward than the additive mask (2 eb), and its
		 * backward multiplies the gradient by the mask (2 eb). 4 eb,
		 * entered as a third. */
		if (framework_get(p->framework)->eager_modules &&
		    framework_get(p->framework)->eager_mask_mul)
			*scores += n * 4 * eb / 3;
		b += *scores;
	}
	double hf_scores;
	b += hf_eager_bytes(m, layer, p, tp, T, s, &hf_scores);
	*scores += hf_scores;
	return b;
}

/* Kernels an eager layer launches forward, op by op as DeepLearningExamples'
 * BERT layer runs them (modeling.py @26c26761 and @a9e2c1d5, see
 * eager_extra_bytes): q, k, v, projection, MLP up and down GEMMs (6, 7
 * gated), a bias add after each, two LayerNorms (one kernel each), two
 * dropouts and two residual adds apart, the activation; unfused
 * attention: two batched GEMMs, the scale, the mask add, softmax,
 * dropout and the context copy (7), and the copies of q, k and v (3,
 * eager_qkv_copies); flash: one kernel. */
static double eager_layer_kernels(const struct model_spec *m, const struct plan *p, int tp)
{
	const struct framework_info *fw = framework_get(p->framework);
	/* One query_key_value GEMM for q, k and v (eager_fused_qkv). */
	double gemms = (m->gated_mlp ? 7 : 6) - (fw->eager_fused_qkv ? 2 : 0);
	double n = gemms + (m->bias ? gemms : 0) + 2 + 2 + 1;
	if (m->dropout)
		n += 2;
	if (m->position == POS_ROPE)
		n += 2;
	if (p->flash)
		n += 1;
	else
		n += 7 + (fw->eager_qkv_copies ? 3 : 0) +
		     /* eager_mask_mul: the multiply, and 1 - mask and
		      * 10000 x (1 - mask) on the s x s mask; the subtract
		      * takes the add's place */
		     (fw->eager_mask_mul ? 3 : 0);
	if (tp > 1)
		n += p->sp ? 4 : 2;
	return n + hf_eager_kernels(m, p);
}

/* The MoE block of one layer forward (router, dispatch, experts, combine),
 * launch by launch, as Megatron-Core runs it dropless with the settings
 * NVIDIA's MoE recipes use: the flex token dispatcher on HybridEP
 * (moe_token_dispatcher_type flex), moe_router_fusion, moe_grouped_gemm
 * (TEGroupedMLP) and bias_activation_fusion (Megatron-LM @d98e8a64,
 * megatron/core/transformer/moe/; recipe settings NVIDIA-NeMo/
 * Megatron-Bridge @067f987df0 perf_recipes/qwen/{h100,b200}/qwen3_moe.py).
 * The backward launches twice as many (layer_kernels): GroupedLinear's
 * backward runs a data and a weight gradient GEMM per expert, and every
 * other op has one backward. One GEMM launch per local expert is TE's
 * default GroupedLinear path: a loop of cuBLASLt calls over four streams
 * (NVIDIA/TransformerEngine @5c62f728 transformer_engine/common/gemm/
 * cublaslt_gemm.cu, nvte_multi_stream_cublas_gemm); Megatron-Core takes
 * TE's single-launch GroupedTensor path only with moe_use_grouped_tensor
 * or the TE op fuser (transformer_config.py: both default False), which
 * the full-iteration CUDA graph recipes turn on: not modelled, hetplan
 * has no CUDA graphs (perf.c). Each launch costs the host host_op_s and
 * the GPU kernel_gap_s, as every other launch does. The loop itself runs
 * in C++, but GroupedLinear's Python side does per-GEMM PyTorch work
 * around it (torch.split of the inputs, two torch.empty per GEMM for the
 * fp8 cast outputs), which TE's maintainers name as the module's CPU
 * overhead (NVIDIA/TransformerEngine issue #1499, 2025-02-24): one eager
 * op's host cost per expert GEMM is the simplification. torchtitan
 * runs each expert weight as one torch._grouped_mm over all local experts
 * (GroupedExperts, use_grouped_mm default True: pytorch/torchtitan
 * @71213cf1 torchtitan/models/common/moe.py), so there a per-expert row
 * is one launch. Other frameworks' MoE code (DeepSpeed) is not written
 * down; their MoE layers are costed with this list.
 *
 * Host synchronisations: one per layer forward, none backward.
 * HybridEP's dispatch waits on the host for the received token count when
 * the caller gives no upper bound (fused_a2a.py HybridEPDispatch.forward:
 * non_blocking = num_permuted_tokens is not None; token_dispatcher.py
 * _HybridEPManager: "None means no up-bound, will cause a CPU sync"); it
 * sizes the permuted buffer and the host lists TE's GroupedLinear takes
 * (m_splits, experts.py TEGroupedMLP.forward: tokens_per_expert.tolist()).
 * The NCCL all-to-all dispatcher has the same one wait, at
 * "before_ep_alltoall" (token_dispatcher.py MoEAlltoAllTokenDispatcher
 * preprocess: the all-to-all's split sizes). The backward reuses the
 * saved handle and split lists and waits on nothing. The wait is
 * avoided, not modelled here, by a static bound: drop-and-pad
 * (moe_pad_expert_input_to_capacity), or moe_expert_rank_capacity_factor
 * as the full-iteration CUDA graph recipes set it (Megatron-Bridge
 * perf_recipes/qwen/common.py _enable_hybridep_full_iteration_mxfp8).
 *
 * Bytes: the permute and unpermute move tokens x top_k x hidden x 2 bytes
 * each way (HybridEP dispatches in 16 bits: fused_a2a.py fp8_dispatch =
 * False); the router's ops read and write tokens x experts fp32 scores;
 * both are in layer_ew_bytes.
 *
 * The older path (docs/moe-seq.md), each row's `path` naming where it
 * runs: the allgather dispatcher (moe_dispatch allgather) replaces the
 * all-to-all's rows with MoEAllGatherTokenDispatcher's ops, and
 * SequentialMLP (moe_grouped_gemm off) replaces the grouped GEMMs with
 * a loop of three launches per local expert, as Megatron-LM @f1f03922
 * runs them (megatron/core/transformer/moe/token_dispatcher.py,
 * moe_utils.py permute / unpermute / moe_gather / moe_scatter,
 * experts.py SequentialMLP, mlp.py MLP.forward). Each host wait there is
 * a device-to-host copy the next op needs: masked_select and nonzero size
 * their outputs on the host (PyTorch's CUDA nonzero copies the count
 * back and synchronises), and tokens_per_expert.cpu(). Simplified: the
 * router is costed with the fused rows on every path; Megatron-LM
 * @f1f03922's router is unfused (router.py aux_loss_load_balancing:
 * topk, softmax and cast, histc, a second softmax, the loss's sum,
 * product and scale, the tracker's add, and an all-reduce of the token
 * counts over TP x CP: about 12 launches to the fused 7). */
enum { MP_ALL, MP_A2A, MP_AG, MP_GROUPED, MP_SEQ };
static const struct moe_op {
	const char *op;          /* what runs, and where */
	unsigned char path;      /* MP_ALL every path; MP_A2A the alltoall and
				  * flex dispatchers, MP_AG the allgather one;
				  * MP_GROUPED grouped GEMMs, MP_SEQ SequentialMLP */
	unsigned char kernels;   /* launches forward */
	unsigned char per_expert;/* 1: one launch per local expert; 2: once,
				  * only with more than one local expert */
	unsigned char fp8_only;  /* 1: only under fp8 */
	unsigned char coll;      /* a dispatch/combine collective (host_coll_s) */
	unsigned char sync;      /* the host waits for the device here */
} moe_ops[] = {
	{ "router gating GEMM (router.py TopKRouter.gating)", MP_ALL, 1, 0, 0, 0, 0 },
	{ "score function and top-k, fused (fused_topk_with_score_function)", MP_ALL, 1, 0, 0, 0, 0 },
	{ "aux-loss scores, fused (compute_routing_scores_for_aux_loss)", MP_ALL, 1, 0, 0, 0, 0 },
	{ "tokens per expert for the loss (get_tokens_per_expert_and_token_count)",
	  MP_ALL, 1, 0, 0, 0, 0 },
	{ "aux loss, fused (switch_load_balancing_loss_func)", MP_ALL, 1, 0, 0, 0, 0 },
	{ "loss scaled into the tracker (attach_and_log_load_balancing_loss)", MP_ALL, 2, 0, 0, 0, 0 },
	{ "dispatch metadata: tokens per rank and expert (HybridEP preprocessing)",
	  MP_A2A, 1, 0, 0, 0, 0 },
	{ "received-token count to the host, which waits (dispatch_with_permute)", MP_A2A, 1, 0, 0, 0, 1 },
	{ "dispatch: tokens to the experts' ranks (HybridEP dispatch)", MP_A2A, 1, 0, 0, 1, 0 },
	{ "permute into expert order (HybridEP permute)", MP_A2A, 1, 0, 0, 0, 0 },
	{ "fc1 input cast to fp8, all experts in one call (TE split_quantize)",
	  MP_GROUPED, 1, 0, 1, 0, 0 },
	{ "fc1 GEMM, one cuBLASLt call per expert (TE general_grouped_gemm)", MP_GROUPED, 1, 1, 0, 0, 0 },
	{ "SwiGLU with the routing probabilities, fused (weighted_bias_swiglu)",
	  MP_GROUPED, 1, 0, 0, 0, 0 },
	{ "fc2 input cast to fp8 (TE split_quantize)", MP_GROUPED, 1, 0, 1, 0, 0 },
	{ "fc2 GEMM, one cuBLASLt call per expert (TE general_grouped_gemm)", MP_GROUPED, 1, 1, 0, 0, 0 },
	{ "unpermute (HybridEP combine_with_unpermute)", MP_A2A, 1, 0, 0, 0, 0 },
	{ "combine: results back to the tokens' ranks (HybridEP combine)", MP_A2A, 1, 0, 0, 1, 0 },
	/* MoEAllGatherTokenDispatcher.token_permutation */
	{ "top-k indices all-gathered over expert TP x EP (gather_from_sequence_parallel_region_to_moe)",
	  MP_AG, 1, 0, 0, 1, 0 },
	{ "local-expert mask: >=, <= and & on the indices", MP_AG, 3, 0, 0, 0, 0 },
	{ "indices masked_select: count to the host, which waits, then the copy", MP_AG, 2, 0, 0, 0, 1 },
	{ "probabilities all-gathered over expert TP x EP", MP_AG, 1, 0, 0, 1, 0 },
	{ "probabilities masked_select: count to the host, which waits, then the copy",
	  MP_AG, 2, 0, 0, 0, 1 },
	{ "hidden states all-gathered over expert TP x EP", MP_AG, 1, 0, 0, 1, 0 },
	{ "global_local_map: nonzero of the mask, count to the host, which waits", MP_AG, 1, 0, 0, 0, 1 },
	{ "the local tokens' rows gathered (moe_gather: torch.gather)", MP_AG, 1, 0, 0, 0, 0 },
	{ "argsort of the local indices, histc of the tokens per expert", MP_AG, 2, 0, 0, 0, 0 },
	{ "tokens per expert to the host (.cpu()), which waits", MP_AG, 1, 0, 0, 0, 1 },
	{ "permute: argsort, divide, gather into expert order (moe_utils.permute)", MP_AG, 3, 0, 0, 0, 0 },
	/* SequentialMLP.forward: per local expert MLP.forward (TE linear fc1,
	 * bias_swiglu_impl, TE linear fc2); TE casts each linear's input under
	 * fp8; torch.cat of the outputs */
	{ "fc1 input cast to fp8, per expert (TE Linear)", MP_SEQ, 1, 1, 1, 0, 0 },
	{ "fc1 GEMM, one TE linear per expert (SequentialMLP)", MP_SEQ, 1, 1, 0, 0, 0 },
	{ "SwiGLU, one per expert (bias_swiglu_impl)", MP_SEQ, 1, 1, 0, 0, 0 },
	{ "fc2 input cast to fp8, per expert (TE Linear)", MP_SEQ, 1, 1, 1, 0, 0 },
	{ "fc2 GEMM, one TE linear per expert (SequentialMLP)", MP_SEQ, 1, 1, 0, 0, 0 },
	{ "the experts' outputs concatenated (torch.cat; one expert: none)", MP_SEQ, 1, 2, 0, 0, 0 },
	/* token_unpermutation */
	{ "unpermute: zeros, scatter_add (moe_scatter), sum over the top-k axis", MP_AG, 3, 0, 0, 0, 0 },
	{ "times the routing probabilities", MP_AG, 1, 0, 0, 0, 0 },
	{ "rows back to the gathered tokens: zeros, scatter_add (moe_scatter)", MP_AG, 2, 0, 0, 0, 0 },
	{ "reduce-scatter over expert TP x EP (reduce_scatter_to_sequence_parallel_region_from_moe)",
	  MP_AG, 1, 0, 0, 1, 0 },
};

/* The moe_ops rows' paths a plan runs (bits of 1 << MP_*), also the
 * layer memo's key for them (stage_key). */
static unsigned moe_path(const struct plan *p)
{
	unsigned d = plan_moe_allgather(p) ? MP_AG : MP_A2A;
	unsigned e = plan_moe_grouped_gemm(p) ? MP_GROUPED : MP_SEQ;
	return 1u << MP_ALL | 1u << d | 1u << e;
}

/* Launches of the MoE block forward for local experts per GPU (one
 * grouped launch under torchtitan's grouped GEMMs) on a stage of TP tp;
 * *colls of them collectives (0 where the dispatch and combine stay on
 * the GPU: without EP for the all-to-all, without expert TP or EP for the
 * allgather dispatcher), *syncs host waits. */
static double moe_block_kernels(const struct plan *p, int tp, double local, double *colls,
				double *syncs)
{
	double n = 0, c = 0, w = 0;
	unsigned path = moe_path(p);
	if (p->framework == FW_TORCHTITAN && plan_moe_grouped_gemm(p))
		local = 1;
	for (size_t i = 0; i < sizeof moe_ops / sizeof *moe_ops; i++) {
		const struct moe_op *o = &moe_ops[i];
		if ((o->fp8_only && p->precision != HP_FP8) || !(path & 1u << o->path) ||
		    (o->per_expert == 2 && local <= 1))
			continue;
		n += o->kernels * (o->per_expert == 1 ? local : 1);
		c += o->coll ? o->kernels : 0;
		w += o->sync;
	}
	int ag = plan_moe_allgather(p);
	*colls = (ag ? plan_etp(p, tp) * p->ep > 1 : p->ep > 1) ? c : 0;
	*syncs = w;
	return n;
}

/* TP collectives of a layer forward on one GPU: under sequence
 * parallelism an all-gather before and a reduce-scatter after the
 * attention and the MLP; without it an all-reduce after each. An MoE
 * layer (folded or not) keeps the attention's pair on its TP group, and
 * its routed experts gather and scatter their tokens over the expert
 * TP group instead (token_dispatcher.py dispatch_postprocess and
 * combine_preprocess, over expt_tp): none at etp 1. Its shared experts
 * (SharedExpertMLP) run on the attention's TP group with a pair of their
 * own. */
static double tp_colls(const struct model_spec *m, int layer, const struct plan *p, int tp)
{
	int per = p->sp ? 2 : 1;
	if (!model_layer_is_moe(m, layer))
		return tp > 1 ? 2 * per : 0;
	int attn_units = m->moe.shared_experts > 0 ? 2 : 1;
	/* the allgather dispatcher's gathers over expert TP x EP are its
	 * own (moe_ops) */
	int xu = plan_etp(p, tp) > 1 && !plan_moe_allgather(p);
	return (tp > 1 ? attn_units * per : 0) + (xu ? per : 0);
}

/* Kernels one layer launches forward on one GPU, op by op. The backward
 * launches about twice as many (a data and a weight gradient per GEMM, a
 * backward per memory-bound op). */
static double layer_kernels(const struct model_spec *m, int layer, const struct plan *p, int tp)
{
	if (framework_get(p->framework)->eager_modules && !model_layer_is_moe(m, layer))
		return eager_layer_kernels(m, p, tp);
	const struct framework_info *fw = framework_get(p->framework);
	int dropout = m->dropout && !fw->no_dropout;
	double n = 0;
	n += fw->fused_residual_norm ? 0 : 2;  /* norms (fused: in the adds) */
	n += 4;                                /* QKV, projection, MLP up, MLP down */
	n += 2;                                /* residual adds (bias/dropout fused) */
	n += 1;                                /* activation */
	if (m->bias && !fw->gemm_bias_epilogue)
		n += 2;                        /* bias adds not fused into a GEMM */
	if (m->position == POS_ROPE)
		n += 2;                        /* rotary on q and k */
	if (dropout)
		n += 2;                        /* dropout masks */
	if (p->flash)
		n += 1;
	else
		n += 6;                        /* 2 batched GEMMs, softmax, dropout, 2 copies */
	n += tp_colls(m, layer, p, tp);        /* TP collectives */
	if (p->precision == HP_FP8)
		n += 6;                        /* fp8 casts and amax updates */
	n += compile_kernels(m, layer, p, perf_act_elem_bytes(p));
	if (model_layer_is_moe(m, layer)) {
		/* The dense MLP's up, down and activation give way to the
		 * MoE block; a shared expert is a dense MLP of its own. */
		double c, w;
		n -= 3;
		n += 3 * (m->moe.shared_experts > 0);
		/* so do the dense MLP's two fp8 casts of the +6 above: the
		 * MoE block counts its own (moe_ops) */
		if (p->precision == HP_FP8 && m->moe.shared_experts == 0)
			n -= 2;
		n += moe_block_kernels(p, tp, (double)m->moe.experts / p->ep, &c, &w);
	}
	return n;
}

/* Flash-attention kernels: the fraction of the 16-bit peak one kernel
 * reaches, from the published benchmarks in tests/data/attention.csv
 * (FlashAttention-2 README charts on A100 and H100, FlashAttention-3 paper
 * Figs. 5-6 on H100; FLOPs as those benchmarks count them: forward
 * 4 s_q s_kv d per head, half under a causal mask, backward 2.5x):
 *   eff = top(generation, class, direction) x hd(d) x s / (s + s_half)
 *         x (causal ? s / (s + ATTN_S_CAUSAL) : 1 / causal_inf)
 * where top, the rate of a causal kernel at head dim 128 and long
 * sequences, is the calibration's attn_fwd / attn_bwd (FlashAttention-2
 * class) or attn3_fwd / attn3_bwd (cuDNN fused attention, what
 * Transformer Engine runs on Hopper since 1.5), s is the key/value length
 * the kernel loops over, s_half the calibration's attn_s_half (forward)
 * or ATTN_S_HALF_BWD (backward: the dO.O preprocessing and dQ conversion
 * kernels are fixed costs per sequence), and hd(d) = d'/(d' + d_half)
 * normalised to 1 at d' = 128, d' = min(d, 128) (neither FA2 nor cuDNN
 * gains beyond 128 on H100; FA3 does, up to 17% at 256, not modelled).
 * Fitted by hand to the table: FA2 rows 2.6% mean and 12% worst error,
 * cuDNN rows 4.2% and 19% (backward at 512 tokens); tests/test_attention.c
 * holds the bounds. Not modelled: wave quantisation over heads x batch
 * (the benchmarks run 16k tokens of 2,048 hidden), dropout, GQA's
 * shared K/V loads, FP8 attention (training keeps attention in 16-bit
 * unless fp8 dot-product attention is switched on; hetplan assumes off). */
#define ATTN_S_HALF_FWD 128.0  /* tokens; range 64-256 over the classes (the
				* training path's fitted attn_s_half is 1024) */
#define ATTN_S_HALF_BWD 256.0  /* tokens; range 160-512 over the classes */
#define ATTN_S_CAUSAL 192.0    /* tokens; the masked diagonal blocks and the
				* short rows at the start of a causal sequence;
				* range 64-320 */
static const struct {
	double causal_inf;  /* causal / non-causal rate at long sequences, 0.85-1 */
	double d_half;      /* head dim at which the rate halves, 8-128 */
} attn_shape[2] = {
	{ 0.95, 16 },   /* FlashAttention-2: 335 vs 370 TFLOP/s, hdim 64 at 0.88 of 128 (H100) */
	{ 0.88, 64 },   /* cuDNN: 539 vs 595 TFLOP/s, hdim 64 at 0.69 of 128 (H100) */
};

double perf_attn_eff(const struct perf_calib *k, enum hp_gen gen, int gen3, int bwd,
		     double head_dim, double s, int causal)
{
	if ((unsigned)gen > HP_GEN_LAST)
		gen = GEN_OTHER;
	const struct perf_gen_eff *ge = &k->gen[gen];
	gen3 = gen3 && ge->attn3_fwd > 0 && ge->attn3_bwd > 0;
	double top = gen3 ? (bwd ? ge->attn3_bwd : ge->attn3_fwd) : (bwd ? ge->attn_bwd : ge->attn_fwd);
	double d = head_dim > 0 && head_dim < 128 ? head_dim : 128, dh = attn_shape[gen3].d_half;
	double hd = d / (d + dh) * (128 + dh) / 128;
	if (!(s > 1))
		s = 1;
	double r = s / (s + (bwd ? ATTN_S_HALF_BWD : ATTN_S_HALF_FWD));
	r *= causal ? s / (s + ATTN_S_CAUSAL) : 1 / attn_shape[gen3].causal_inf;
	double e = top * hd * r;
	return e > 1 ? 1 : e;
}

/* The longest sequence at which the training path's fitted ramp
 * s / (s + attn_s_half) still rises; past it the ramp holds its value
 * there. The ramp (attn_s_half 1,024, where the kernels' own is 128-256)
 * stands for what makes attention slow at the calibration rows' 1k-8k
 * tokens; carried on, it made attention 12.5% faster per FLOP from 8k to
 * 1M tokens (0.889 -> 1.0). The published kernels do not speed up past
 * 8k: tests/data/attention.csv, H100, head dim 128, rate at 8,192 over
 * 16,384 tokens: cuDNN forward 1.01 (0.98 causal), backward 1.00;
 * FlashAttention-2 forward 1.00 (0.99 causal), backward 0.99;
 * FlashAttention-3 1.00 (0.98 causal), backward 1.00 (the one exception,
 * FA2's combined causal forward + backward chart, 0.94); and past 16k
 * the only loss that still shrinks with s is a causal kernel's masked
 * diagonal tiles, one tile row in s / 128 (under 0.8% at 16k). Range
 * 8,192-16,384 tokens (where those tables saturate; 16k is their longest
 * point). docs/blind-round15-cp.md gives the rows it moves. */
#define ATTN_RAMP_S_MAX_TOKENS 8192.0

double perf_attn_train_ramp(const struct perf_calib *k, double s)
{
	double sr = s < ATTN_RAMP_S_MAX_TOKENS ? s : ATTN_RAMP_S_MAX_TOKENS;
	return sr > 0 ? sr / (sr + k->attn_s_half) : 0;
}

/* The attention core of one layer on one GPU, forward and backward (s),
 * for f causal FLOPs (the forward's two matmuls over the rank's queries,
 * half the s x s blocks). Without context parallelism one causal kernel
 * over the sequence. With CP, Transformer Engine's ring attention with K/V
 * exchanged point to point (AttnFuncWithCPAndKVP2P: transformer_engine/
 * pytorch/attention.py in 1.4, attention/dot_product_attention/
 * context_parallel.py today; Megatron-Core's default --cp-comm-type p2p):
 * the sequence is split into 2 x cp chunks, rank r holding
 * chunks r and 2cp-1-r (load-balanced causal), and the layer runs cp
 * steps: step 0 a causal kernel of the rank's s/cp tokens against its own,
 * steps 1..cp-1 non-causal kernels of s/cp queries against one received
 * chunk (s/2cp keys) or of s/2cp queries against s/cp keys, each 1/cp of
 * the work. A correction kernel per step rescales the running output by
 * the new softmax statistics (forward) or accumulates dQ and dK/dV
 * (backward). The exchange itself is costed in perf_stage_cp. */
static void attn_core(const struct model_spec *m, const struct gpu_spec *g,
		      const struct plan *p, int tp, double s, double f, double pk,
		      const struct perf_calib *k, struct layer_cost *lc)
{
	/* The training path keeps the fitted form: the generation's
	 * in-training rate (calibration attn_fwd / attn3_fwd ...) on a ramp
	 * s / (s + attn_s_half), flat past ATTN_RAMP_S_MAX_TOKENS
	 * (perf_attn_train_ramp). perf_attn_eff's head-dim, causal and
	 * per-direction shapes are not applied here yet: with today's fitted
	 * constants they raise the cross-validated error (docs/attention.md). */
	const struct perf_gen_eff *ge = &k->gen[kernel_gen(g)];
	int gen3 = framework_get(p->framework)->attn_gen3 && ge->attn3_fwd > 0;
	double ef = pk * (gen3 ? ge->attn3_fwd : ge->attn_fwd);
	double eb = pk * (gen3 ? ge->attn3_bwd : ge->attn_bwd);
	double ramp = perf_attn_train_ramp(k, s);
	lc->attn_f = f / (ef * ramp);
	lc->attn_b = 2.5 * f / (eb * ramp);
	double cp = p->cp > 1 ? p->cp : 1;
	if (cp <= 1)
		return;
	/* With CP, the cp steps' kernels are charged at the rate of one causal kernel
	 * over the whole sequence (the fitted in-training rate). In isolation
	 * the later steps' non-causal kernels run faster (perf_attn_eff gives
	 * a ring of 16-32 steps 5-10% under the single kernel), but the long
	 * sequence rows with CP measure slower, not faster, than this (NeMo's
	 * long-context table, docs/blind.md): the steps alternate between two
	 * streams and wait on each exchange, which the kernel benchmarks do
	 * not see. Simplified, not modelled: per-step synchronisation. */
	double sc = s / cp;
	/* The corrections move, per step and element, the step's result
	 * and the running sum (read both, write the sum; 16-bit, 6 bytes):
	 * forward the output rescaled by the new softmax statistics,
	 * backward dQ and dK/dV added up. Transformer Engine kept these sums
	 * in the input dtype until 2025 (the calibration rows ran those
	 * releases); since commit 25252e9 (September 2025) the forward sum
	 * is fp32 (10 bytes), not modelled. */
	double T = p->mbs * sc, q = model_q_dim(m) / tp;
	double kv = perf_fmax(model_kv_dim(m) / tp, (double)m->head_dim);
	double bw = g->hbm_Bps * ge->hbm;
	lc->attn_f += cp * T * q * 6 / bw;
	lc->attn_b += cp * T * (q + 2 * kv) * 6 / bw;
	/* One attention and one correction kernel per later step. */
	lc->kernels += 2 * (cp - 1);
}

/* Full recomputation under JAX's remat (framework.h remat_dce, the
 * maxtext row): jax.checkpoint's rematerialised forward is dead-code
 * eliminated (jax-ml/jax @492e159a jax/_src/ad_checkpoint.py, remat_dce
 * registered as pe.dce_rules[remat_p]), so only values the backward reads
 * are recomputed. A layer's backward reads the norms' inputs, q, k, v,
 * the attention's output and statistics, the residual sum after the
 * attention and the MLP input GEMMs' outputs; it never reads the down
 * projection's output, which only enters the layer's output (the next
 * layer keeps that as its input). What the recompute leaves out: the
 * down GEMM (the routed experts' and shared experts' too in an MoE
 * layer), forward, at the training dtype. Its input's FP8 cast stays
 * charged (the weight gradient reads the cast input). Not modelled: at
 * TP above 1 the all-reduce (or reduce-scatter) after the down GEMM is
 * dead as well; perf_comm.c still charges it in the recompute. */
static double remat_dce_skip(const struct model_spec *m, int layer, const struct gpu_spec *g,
			     const struct plan *p, int tp, double T, const struct perf_calib *k)
{
	double t = tp, h = m->hidden;
	if (!model_layer_is_moe(m, layer))
		return gemm_time(k, g, p->precision, T, h, m->ffn / t, 1);
	double d = expert_gemm(k, g, m, p, tp, T, p->precision, 1);
	if (m->moe.shared_experts)
		d += gemm_time(k, g, p->precision, T, h,
			       (double)m->moe.shared_experts * m->moe.expert_ffn / t, 1);
	return d;
}

/* And the residual add after the MLP, as layer_ew_bytes counts it (one
 * of its two adds: read 2, write 1; or one add + norm kernel, read 2,
 * write 2, under fused_residual_norm), in bytes. */
static double remat_dce_add_bytes(const struct model_spec *m, const struct plan *p, int tp,
				  double T)
{
	double Th = T * m->hidden / (p->sp ? tp : 1);
	double moves = framework_get(p->framework)->fused_residual_norm ? 4 : 3;
	return moves * perf_act_elem_bytes(p) * Th;
}

/* The forward Megatron-Core's selective recompute modules (plan key
 * recompute_modules, RCM_* bits mods, other than core_attn) run again in
 * one layer's backward, s: each module's GEMMs as layer_gemms costs
 * them (same shapes, the plan's precision), its memory-bound ops as
 * layer_ew_bytes counts them (eb bytes an element, over the HBM rate
 * bw) and, under fp8, its GEMM inputs' casts (4 B an element,
 * perf_fp8_cast_bytes), and a kernel gap per kernel. What each module
 * wraps is perf_mem.c's perf_rc_modules_freed's list (Megatron-LM
 * @d98e8a64). With T tokens, h hidden, t TP, up 2 when gated, f the
 * (expert) MLP width:
 *  - mlp (dense layers): FC1 (T x up f / t x h) and FC2 (T x h x f / t),
 *    the fused norm (read and write T h / rs), the activation (read up f,
 *    write f), 4 kernels. Llama 3.1 70B at TP 8, mbs 1, seq 8,192:
 *    2 x 8,192 x (3 x 8,192 x 28,672 / 8) = 1.44 TFLOP a layer;
 *  - moe (MoE layers): the router GEMM, the routed experts' two GEMMs,
 *    the shared experts' two, the activation over all copies, the
 *    permute and unpermute and the router's scores, 8 kernels;
 *  - shared_experts (without moe): the shared experts' two GEMMs and
 *    activation, 3 kernels;
 *  - moe_act (without moe): the routed copies' activation, 1 kernel;
 *  - layernorm: the norms that are modules of their own (MLA input
 *    norm, an MoE layer's pre-MLP norm), read and write T h / rs each;
 *  - mla_up_proj (MLA): the query up projection (q_lora_rank, or h
 *    without one, to heads x (nope + rope)) and the key/value one
 *    (kv_lora_rank to heads x (nope + v)), RoPE and the concatenation
 *    writing Q, K and V, 4 kernels.
 * Not charged: the collectives a module's forward runs again (the MLP's
 * sequence-parallel gather and reduce-scatter at TP > 1, the MoE
 * layer's dispatch and combine all-to-alls): perf_comm.c charges
 * recomputed collectives by whole layers only (docs/recompute.md). */
static double rc_modules_time(const struct model_spec *m, int layer, const struct gpu_spec *g,
			      const struct plan *p, int tp, double T, const struct perf_calib *k,
			      double bw)
{
	unsigned mods = plan_recompute_modules(p) & ~(unsigned)RCM_CORE_ATTN;
	if (!mods)
		return 0;
	double t = tp, h = m->hidden, up = m->gated_mlp ? 2 : 1, rs = p->sp ? t : 1;
	double eb = perf_act_elem_bytes(p), cast = p->precision == HP_FP8 ? 4 : 0;
	double gap = k->kernel_gap_s;
	enum hp_dtype dt = p->precision;
	int moe = model_layer_is_moe(m, layer), mla = m->mla.kv_lora_rank != 0;
	double r = 0;
	if (!moe && (mods & RCM_MLP)) {
		double f = m->ffn;
		r += gemm_time(k, g, dt, T, up * f / t, h, 1) + gemm_time(k, g, dt, T, h, f / t, 1);
		r += (2 * eb * T * h / rs + eb * T * (up + 1) * f / t + cast * T * (h + f) / t) / bw;
		r += 4 * gap;
	}
	if (moe) {
		const struct moe_spec *e = &m->moe;
		double f = e->expert_ffn, sf = (double)e->shared_experts * f;
		double shared = e->shared_experts
					? gemm_time(k, g, dt, T, up * sf / t, h, 1) +
						  gemm_time(k, g, dt, T, h, sf / t, 1) +
						  (eb * T * (up + 1) * sf / t + cast * T * (h + sf) / t) / bw
					: 0;
		if (mods & RCM_MOE) {
			double copies = e->top_k + e->shared_experts;
			r += gemm_time(k, g, dt == HP_FP8 ? HP_BF16 : dt, T, e->experts, h, 1);
			r += expert_gemm(k, g, m, p, tp, T, dt, 0) + expert_gemm(k, g, m, p, tp, T, dt, 1);
			r += shared;
			r += (eb * T * e->top_k * (up + 1) * f / t + 2 * 2 * eb * T * h * copies +
			      23.0 * T / rs * e->experts + cast * T * e->top_k * (h + f) / t) / bw;
			r += 8 * gap;
		} else {
			if (mods & RCM_SHARED_EXPERTS)
				r += shared + 3 * gap;
			if (mods & RCM_MOE_ACT)
				r += eb * T * e->top_k * (up + 1) * f / t / bw + gap;
		}
	}
	if (mods & RCM_LAYERNORM)
		r += (mla + moe) * (2 * eb * T * h / rs / bw + gap);
	if (mla && (mods & RCM_MLA_UP_PROJ)) {
		double nh = m->heads, qk = m->mla.qk_nope_dim + m->mla.qk_rope_dim;
		double qin = m->mla.q_lora_rank ? m->mla.q_lora_rank : h;
		r += gemm_time(k, g, dt, T, nh * qk / t, qin, 1);
		r += gemm_time(k, g, dt, T, nh * (m->mla.qk_nope_dim + m->mla.v_dim) / t,
			       m->mla.kv_lora_rank, 1);
		/* RoPE and the concatenation: read the up outputs, write
		 * Q, K (both heads x qk wide) and V */
		r += 2 * eb * T * (2 * nh * qk + nh * m->mla.v_dim) / t / bw + 4 * gap;
	}
	return r;
}

double perf_rc_modules_flops(const struct model_spec *m, unsigned mods)
{
	mods &= ~(unsigned)RCM_CORE_ATTN;
	if (!mods)
		return 0;
	double h = m->hidden, up = m->gated_mlp ? 2 : 1, f = 0;
	int mla = m->mla.kv_lora_rank != 0;
	for (int i = 0; i < m->layers; i++) {
		int moe = model_layer_is_moe(m, i);
		if (!moe && (mods & RCM_MLP))
			f += 2 * (up + 1) * h * m->ffn;
		if (moe) {
			const struct moe_spec *e = &m->moe;
			double ef = e->expert_ffn;
			if (mods & RCM_MOE)
				f += 2 * h * e->experts +
				     2 * (e->top_k + e->shared_experts) * (up + 1) * h * ef;
			else if (mods & RCM_SHARED_EXPERTS)
				f += 2.0 * e->shared_experts * (up + 1) * h * ef;
		}
		if (mla && (mods & RCM_MLA_UP_PROJ)) {
			double qk = m->mla.qk_nope_dim + m->mla.qk_rope_dim;
			double qin = m->mla.q_lora_rank ? m->mla.q_lora_rank : h;
			f += 2 * (double)m->heads *
			     (qin * qk + m->mla.kv_lora_rank * (m->mla.qk_nope_dim + m->mla.v_dim));
		}
	}
	return f;
}

static void layer_cost(const struct model_spec *m, int layer, const struct gpu_spec *g,
		       const struct plan *p, int tp, double s, const struct perf_calib *k,
		       struct layer_cost *lc)
{
	double t = tp, b = p->mbs, sl = s / p->cp, T = b * sl;
	double total, active, experts;
	model_layer_params(m, layer, &total, &active, &experts);
	lc->params = (total - experts) / t;
	/* expert weights per GPU: (experts / ep) x expert params / etp */
	lc->expert_params = experts / ((double)plan_etp(p, tp) * p->ep);
	lc->gemm = layer_gemms(m, layer, g, p, tp, T, s, k, p->precision);
	enum hp_dtype bdt = bwd_gemm_dtype(g, p->precision);
	lc->gemm_b = lc->gemm + (bdt == p->precision ? lc->gemm
							 : layer_gemms(m, layer, g, p, tp, T, s, k, bdt));
	lc->rc_frac = model_layer_op_sac_recompute_frac(m, layer);
	lc->kernels = layer_kernels(m, layer, p, tp);
	double moe_colls = 0, syncs = 0;
	if (model_layer_is_moe(m, layer))
		moe_block_kernels(p, tp, 1, &moe_colls, &syncs);
	lc->colls = tp_colls(m, layer, p, tp) + moe_colls;
	lc->syncs = syncs;

	/* Attention core: queries of this CP rank against the whole sequence. */
	double mm, attn_tok;
	model_layer_fwd_flops(m, layer, s, &mm, &attn_tok);
	double attn_flops = T * attn_tok / t;
	enum hp_dtype adt = p->precision == HP_FP8 ? HP_BF16 : p->precision;
	if (p->flash) {
		/* Causal: half the blocks run. Backward: 2.5x the forward
		 * FLOPs (five matmuls to the forward's two). 16-bit even
		 * under fp8 (adt above). */
		enum hp_dtype pdt = adt == HP_FP32 || adt == HP_TF32 ? HP_BF16 : adt;
		double pk = perf_peak(g, pdt) * clock_frac(k, g, pdt);
		attn_core(m, g, p, tp, s, 0.5 * attn_flops, pk, k, lc);
	} else {
		/* MLA: scores over the 192-wide q/k head, context over the
		 * 128-wide v head (perf_attn_head_dims) */
		double heads = (double)m->heads / t, d, dv;
		perf_attn_head_dims(m, &d, &dv);
		lc->attn_f = gemm_time(k, g, adt, sl, s, d, b * heads) +
			     gemm_time(k, g, adt, sl, dv, s, b * heads);
		/* Backward: dP = dO V^T and dQ = dS K as the forward's two;
		 * dV = P^T dO and dK = dS^T Q (s keys x d, over the queries)
		 * at bwd_gemm_dtype where that is not adt. */
		enum hp_dtype adt_b = bwd_gemm_dtype(g, adt);
		lc->attn_b = adt_b == adt ? 2 * lc->attn_f
			     : lc->attn_f + gemm_time(k, g, adt_b, s, dv, sl, b * heads) +
				       gemm_time(k, g, adt_b, s, d, sl, b * heads);
	}

	/* selective recompute without core_attn among recompute_modules
	 * keeps the attention core's tensors, as with no recompute */
	enum hp_recompute arc = p->recompute == RC_SELECTIVE && !plan_recompute_core_attn(p)
					? RC_NONE : p->recompute;
	struct act_opts ao = { b, sl, tp, p->sp && tp > 1, p->flash, arc, p->ep };
	lc->act = model_layer_act_bytes(m, layer, &ao);
	lc->act_norc = model_layer_act_bytes_norc(m, layer, &ao);
	double scores;
	double bw = g->hbm_Bps * k->gen[g->gen].hbm;
	if (plan_recompute_modules(p) & ~(unsigned)RCM_CORE_ATTN) {
		/* what the modules free (perf_mem.c), never below the
		 * layer's input, which every recompute keeps */
		double keep = 2 * T * m->hidden / (ao.sp ? t : 1);
		lc->act -= perf_rc_modules_freed(m, layer, &ao, plan_recompute_modules(p));
		if (lc->act < keep)
			lc->act = keep;
		lc->rc_mod = rc_modules_time(m, layer, g, p, tp, T, k, bw);
	}
	lc->ew = layer_ew_bytes(m, layer, p, tp, T, s, &scores) / bw;
	lc->ew_scores = scores / bw;
	if (framework_get(p->framework)->remat_dce)
		lc->rc_skip = remat_dce_skip(m, layer, g, p, tp, T, k) +
			      remat_dce_add_bytes(m, p, tp, T) / bw + 2 * k->kernel_gap_s;
	if (p->precision == HP_FP32 || p->precision == HP_TF32) {
		lc->act *= 2;
		lc->act_norc *= 2;
	}
}

/* The memo key of a layer of `kind` (struct layer_key) on the stage: 0
 * dense, 1 MoE, 2 the logits GEMM, 3 the routed experts' GEMMs. */
static void stage_key(const struct stage_ctx *x, int kind, struct layer_key *key)
{
	const struct plan *p = x->p;
	memset(key, 0, sizeof *key);  /* padding too: keys compare as bytes */
	key->kind = kind;
	key->pool = x->rep->stages[x->index].pool;
	key->tp = x->tp;
	key->precision = p->precision;
	key->mbs = p->mbs;
	key->cp = p->cp;
	key->s = x->s;
	if (kind == 2)
		return;
	/* with the etp key above ep (ep at most 4096: 13 bits) */
	key->ep = p->ep | p->etp << 16;
	/* the experts' GEMMs and dispatcher (moe_path): kinds 1 and 3 */
	key->framework = moe_path(p);
	if (kind == 3)
		return;
	key->sp = p->sp;
	key->flash = p->flash;
	/* with the recompute_modules bits (7: RCM_ALL) */
	key->recompute = p->recompute | (int)p->recompute_modules << 8;
	key->framework = p->framework | key->framework << 8 | plan_compile(p) << 16;
}

/* layer_cost of the stage's layer (of kind 0 dense, 1 MoE), from the
 * memo when this shape was costed before. */
static void stage_layer_cost(struct stage_ctx *x, int layer, int kind, struct layer_cost *lc)
{
	struct layer_key key;
	stage_key(x, kind, &key);
	const struct layer_cost *hit = perf_memo_layer(x->memo, &key);
	if (hit) {
		*lc = *hit;
		return;
	}
	layer_cost(x->m, layer, x->g, x->p, x->tp, x->s, x->k, lc);
	perf_memo_layer_put(x->memo, &key, lc);
}

/* The output layer's logits GEMM on the stage, memoised as kind 2. An
 * fp8 run computes it in 16 bits: Megatron-Core's output layer is its own
 * tensor_parallel.ColumnParallelLinear, not a Transformer Engine module,
 * so fp8_autocast leaves it in bf16 (megatron/core/models/gpt/gpt_model.py
 * GPTModel.__init__), and torchtitan's float8 recipes list "output" in
 * quantize.linear.float8.filter_fqns. perf_stage_end_params keeps its
 * weight in 16 bits for the same reason. */
static double stage_logits_gemm(struct stage_ctx *x, double *bwd)
{
	struct layer_key key;
	stage_key(x, 2, &key);
	const struct layer_cost *hit = perf_memo_layer(x->memo, &key);
	if (hit) {
		*bwd = hit->gemm_b;
		return hit->gemm;
	}
	struct layer_cost lc;
	memset(&lc, 0, sizeof lc);
	enum hp_dtype dt = x->p->precision == HP_FP8 ? HP_BF16 : x->p->precision;
	double V = model_out_dim(x->m) / x->tp, h = x->m->hidden;
	lc.gemm = gemm_time(x->k, x->g, dt, x->T, V, h, 1);
	enum hp_dtype bdt = bwd_gemm_dtype(x->g, dt);
	lc.gemm_b = lc.gemm + (bdt == dt ? lc.gemm : gemm_time(x->k, x->g, bdt, x->T, V, h, 1));
	perf_memo_layer_put(x->memo, &key, &lc);
	*bwd = lc.gemm_b;
	return lc.gemm;
}

/* One MoE layer's forward and backward times, as perf_stage_compute
 * charges them, and of the forward the routed experts' two grouped GEMMs
 * (layer_gemms' expert term: rows per local expert of the micro-batch, the
 * same GEMM model as every dense GEMM); all 0 when L is NULL (no MoE
 * layer on the stage). For the expert all-to-all overlap (perf_comm.c). */
static void stage_moe_times(struct stage_ctx *x, const struct layer_cost *L)
{
	x->moe_fwd = x->moe_bwd = x->moe_expert_fwd = 0;
	if (!L)
		return;
	const struct perf_calib *k = x->k;
	double gap = k->kernel_gap_s;
	x->moe_fwd = L->gemm + L->attn_f + L->ew + L->kernels * gap;
	x->moe_bwd = L->gemm_b + L->attn_b + 2 * L->ew + 2 * L->kernels * gap;
	/* memoised as kind 3 (the pool's GPU, precision, TP, micro-batch,
	 * CP, sequence and EP are all it reads): every MoE stage a search
	 * costs computed these two GEMMs again, 7.7% of a Mixtral 8x22B
	 * throughput search's instructions (issue 13, tenth round) */
	struct layer_key key;
	stage_key(x, 3, &key);
	const struct layer_cost *hit = perf_memo_layer(x->memo, &key);
	if (hit) {
		x->moe_expert_fwd = hit->gemm;
		return;
	}
	x->moe_expert_fwd = expert_gemm(k, x->g, x->m, x->p, x->tp, x->T, x->p->precision, 0) +
			    expert_gemm(k, x->g, x->m, x->p, x->tp, x->T, x->p->precision, 1);
	struct layer_cost lc;
	memset(&lc, 0, sizeof lc);
	lc.gemm = x->moe_expert_fwd;
	perf_memo_layer_put(x->memo, &key, &lc);
}

/* A stage's running sums: what its layers add, then its ends. */
struct stage_sums {
	double fwd, bwd, params, unit;
};

/* The embedding lookup on the first stage; the final norm, logits GEMM
 * and loss on the last, added to the stage's sums in that order. */
static void stage_ends(struct stage_ctx *x, double bwh, struct stage_sums *t)
{
	const struct model_spec *m = x->m;
	const struct plan *p = x->p;
	double gap = x->k->kernel_gap_s;
	double T = x->T, h = m->hidden, V = model_out_dim(m);
	int tp = x->tp;
	if (x->first) {
		/* Embedding lookup: gather and write T x h; backward scatters. */
		t->params += x->pc->embedding / tp;
		t->unit = perf_fmax(t->unit, x->pc->embedding / tp);
		t->fwd += 3 * T * h * 2 / bwh + gap;
		t->bwd += 3 * T * h * 2 / bwh + gap;
	}
	if (x->last) {
		/* Final norm, logits GEMM and the loss: the framework row's
		 * bytes per logit over the T x V/tp logits, each way (Megatron's
		 * fp32 softmax cross-entropy reads, writes and reads back the
		 * logits both ways: 12 + 12; llm.c's fused classifier 0 + 6). */
		const struct framework_info *fw = framework_get(p->framework);
		double lg_b;
		double lg = stage_logits_gemm(x, &lg_b);
		/* Counted in 4-byte elements, in the order the 12-byte path
		 * has always been summed (3 x T x V / tp x 4 / bwh). */
		double ew_f = fw->loss_bytes_fwd / 4 * T * V / tp * 4 / bwh;
		double ew_b = fw->loss_bytes_bwd / 4 * T * V / tp * 4 / bwh;
		t->fwd += lg + ew_f + 4 * gap;
		t->bwd += lg_b + ew_b + 8 * gap;
		t->params += (x->pc->output ? x->pc->output : (x->pp > 1 ? x->pc->embedding : 0)) / tp +
			  x->pc->final_norm;
		t->unit = perf_fmax(t->unit, (x->pc->output ? x->pc->output : x->pc->embedding) / tp);
	}
}

/* Bytes a GEMM weight moves per micro-batch in Megatron's separate
 * gradient accumulation (plan key grad_accum_fusion off): the wgrad GEMM
 * writes param.grad in the training dtype, and the DDP hook runs
 * param.main_grad.add_(param.grad.data) (megatron/core/distributed/
 * distributed_data_parallel.py @d98e8a64 L578): read the gradient (2 B,
 * 4 B in an fp32 or tf32 run), read and write main_grad (4 + 4 B, or
 * 2 + 2 B where the grad buffer is 16-bit: grad_reduce_fp32 off). A bf16
 * run with fp32 main grads: 2 + 4 + 4 = 10 B. Fused (the default), the
 * GEMM's epilogue accumulates into main_grad (fused_weight_gradient_mlp_cuda
 * wgrad_gemm_accum_fp32, tensor_parallel/layers.py L720-725) under the
 * GEMM's own time: 0. */
static double unfused_accum_bytes(const struct plan *p)
{
	if (plan_grad_accum_fusion(p))
		return 0;
	double g = p->precision == HP_FP32 || p->precision == HP_TF32 ? 4 : 2;
	double mg = plan_grad_fp32(p) ? 4 : 2;
	return g + 2 * mg;
}

/* The separate accumulation's time per micro-batch, memory-bound over
 * the stage's GEMM weights: its layers' (dense and expert) and, on the
 * last stage, the output layer's (a ColumnParallelLinear, fused too);
 * the embedding's gradient takes the add either way. Charged to the
 * backward, whose stream runs the hook. */
static double unfused_accum_time(const struct stage_ctx *x, double layer_params, double bwh)
{
	double b = unfused_accum_bytes(x->p);
	if (b == 0)
		return 0;
	double n = layer_params;
	if (x->last && x->pc->output)
		n += x->pc->output / x->tp;
	return n * b / bwh;
}

/* The stage's layers, costed once per layer kind (dense, MoE), plus the
 * embedding on the first stage and the output layer and loss on the last. */
void perf_stage_compute(struct stage_ctx *x)
{
	const struct model_spec *m = x->m;
	const struct plan *p = x->p;
	const struct gpu_spec *g = x->g;
	const struct perf_calib *k = x->k;
	const struct stage *st = &x->rep->stages[x->index];
	/* Zeroed: a stage without dense (or MoE) layers leaves that kind
	 * unset, and the attention ratio below reads lc[0] first. */
	struct layer_cost lc[2];
	memset(lc, 0, sizeof lc);
	/* Dense layers come first (model_layer_is_moe): the stage's first
	 * layer is dense when it holds any, its first MoE layer is the later
	 * of its first layer and the model's first MoE layer. */
	int count[2];
	count[1] = model_moe_layers_in(m, st->first_layer, st->last_layer);
	count[0] = st->last_layer - st->first_layer + 1 - count[1];
	if (count[0])
		stage_layer_cost(x, st->first_layer, 0, &lc[0]);
	if (count[1])
		stage_layer_cost(x, st->last_layer - count[1] + 1, 1, &lc[1]);
	double fwd = 0, bwd = 0, rc = 0, act = 0, act_work = 0, unit = 0, stall = 0;
	double params = 0, eparams = 0, attn_sum = 0, gemm_sum = 0;
	double gap = k->kernel_gap_s;
	/* Layers under full recompute (all of them, or recompute_layers per
	 * chunk: plan_recompute_count), taken from the dense layers first, as
	 * Megatron's block method recomputes a chunk's first layers. */
	int rc_left = plan_recompute_count(p, count[0] + count[1]);
	/* tp_host_sync (AMP's Megatron fork): torch.cuda.synchronize() before
	 * and after every TP all-reduce, 2 forward and 2 backward a layer,
	 * drains the device, so the host's dispatch of a layer's kernels no
	 * longer runs ahead of the device's work on them: the two add
	 * (host + device), where otherwise the longer counts. The serialised
	 * limit, with no constant of its own (docs/blind-round20-pcie.md
	 * sections 3-4). At TP 1 the fork's _reduce returns before its timers. */
	int host_sync = p->tp_host_sync && x->tp > 1;
	for (int kind = 0; kind < 2; kind++) {
		if (!count[kind])
			continue;
		const struct layer_cost *L = &lc[kind];
		double n = count[kind];
		/* The host issues the layer's kernels (NCCL calls cost more);
		 * when it needs longer than the GPU runs them, the GPU waits.
		 * Per layer, so a stage's time stays affine in its layers. */
		double host = (L->kernels - L->colls) * k->host_op_s + L->colls * k->host_coll_s;
		double f = L->gemm + L->attn_f + L->ew + L->kernels * gap;
		double b = L->gemm_b + L->attn_b + 2 * L->ew + 2 * L->kernels * gap;
		fwd += n * f;
		bwd += n * b;
		double host_f = host_sync ? host : perf_fmax(0, host - f);
		stall += n * (host_f + (host_sync ? 2 * host : perf_fmax(0, 2 * host - b)));
		/* At a host wait the device runs dry: the next kernel starts
		 * only once the host has issued it, host_op_s later (moe_ops).
		 * The rest of the layer is costed as before: the per-layer
		 * race above already keeps the host from running ahead of the
		 * next layer. Once per forward (and recomputed forward). */
		double drain = L->syncs * k->host_op_s;
		stall += n * drain;
		attn_sum += n * L->attn_f;
		gemm_sum += n * L->gemm;
		/* the recomputed layers of this kind (n when all are) */
		double nr = rc_left < count[kind] ? rc_left : count[kind];
		if (p->recompute == RC_FULL) {
			/* remat_dce: the recomputed forward without the down
			 * GEMM and the add after it (remat_dce_skip). The
			 * host's share is kept at the whole forward's
			 * (simplified: two kernels fewer to issue). */
			rc_left -= (int)nr;
			rc += nr * (f - L->rc_skip);
			stall += nr * (host_f + drain);
		} else if (p->recompute == RC_SELECTIVE && !plan_recompute_core_attn(p)) {
			/* recompute_modules without core_attn: only theirs */
		} else if (p->recompute == RC_SELECTIVE && !p->flash) {
			rc += n * (L->attn_f + L->ew_scores);
		} else if (p->recompute == RC_SELECTIVE &&
			   framework_get(p->framework)->selective_reruns_flash) {
			/* Megatron-Core's core_attn checkpoint re-runs the
			 * fused attention forward in the backward
			 * (framework.c "Selective recomputation with flash") */
			rc += n * L->attn_f;
		} else if (p->recompute == RC_SELECTIVE_OP) {
			double r = L->rc_frac * L->gemm + L->ew;
			rc += n * r;
			stall += n * perf_fmax(0, 0.6 * host - r);
		}
		/* recompute_modules' other modules (0 without them) */
		rc += n * L->rc_mod;
		/* A recomputed layer keeps its input (L->act under full
		 * recompute); the others, with recompute_layers, all their
		 * activations (act_norc). */
		if (p->recompute == RC_FULL)
			act += nr * L->act + (n - nr) * L->act_norc;
		else
			act += n * L->act;
		if (L->act_norc > act_work)
			act_work = L->act_norc;
		params += n * L->params;
		eparams += n * L->expert_params;
		unit = perf_fmax(unit, L->params + L->expert_params);
	}
	double bwh = g->hbm_Bps * k->gen[g->gen].hbm;
	struct stage_sums t = { fwd, bwd, params, unit };
	stage_ends(x, bwh, &t);
	t.bwd += unfused_accum_time(x, params + eparams, bwh);
	x->fwd = t.fwd;
	x->bwd = t.bwd;
	x->rc = rc;
	x->host_stall = stall;
	x->attn_fwd = attn_sum;
	x->attn_bwd_ratio = lc[0].attn_f > 0 ? lc[0].attn_b / lc[0].attn_f
			    : lc[1].attn_f > 0 ? lc[1].attn_b / lc[1].attn_f : 2.5;
	x->gemm_fwd = gemm_sum;
	x->moe_layers = count[1];
	stage_moe_times(x, count[1] ? &lc[1] : NULL);
	x->act = act;
	x->act_work = act_work;
	x->params = t.params;
	x->eparams = eparams;
	x->unit = t.unit;
	x->bw_hbm = bwh;
}
