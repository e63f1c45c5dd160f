/* test_clock_ref.c — Blackwell Ultra parts sustain more compute than the
 * part of the same die they are priced from, by board power and SM count
 * (catalog "clock_ref", perf_compute.c clock_frac).
 *
 * The facts, from the datasheets the catalog cites:
 *   B200  1000 W, 148 SMs, 2250 TFLOP/s dense bf16 (HGX B200 spec table)
 *   GB200 1200 W, 148 SMs, 2500 (GB200 NVL72 datasheet, "configurable up
 *         to 1,200W")
 *   B300  1100 W, 160 SMs, 2250 (HGX B300; NVIDIA "Inside NVIDIA
 *         Blackwell Ultra": 160 SMs)
 *   GB300 1400 W, 160 SMs, 2500 (GB300 NVL72; verda.com per-GPU table)
 * and the shipped power_clock_exp x = 0.6594 (data/calibration.json,
 * fitted on torchtitan's 500 W H100 rows). At a power cap each SM's clock
 * goes as (P / n)^x, the throughput as n^(1-x) P^x, so by hand:
 *   GB300 on GB200: (1400/1200)^0.6594 = exp(0.6594 x 0.154151) = 1.10699
 *                   (160/148)^0.3406  = exp(0.3406 x 0.077962) = 1.02691
 *                   product 1.13678 (peaks equal: 2500 and 2500)
 *   B300 on B200:   1.1^0.6594 = exp(0.6594 x 0.095310) = 1.06486
 *                   x 1.02691 = 1.09352 (peaks equal: 2250 and 2250)
 *   GB200 on B200:  no reference; its datasheet peak states what its
 *                   1200 W buy: 2500 / 2250 = 1.11111
 *   MI325X on MI300X (CDNA 3, 304 CUs each, 1307.4 both): 1000 W against
 *                   750 W, (1000/750)^0.6594 = exp(0.6594 x 0.287682)
 *                   = 1.20888, under the cap cdna.square16 / cdna.gemm16
 *                   = 0.511 / 0.415 = 1.2313; AMD measures the two
 *                   parts' median bf16 GEMM clocks at 1,447 and 1,207 MHz,
 *                   1.199x (ROCm blogs, measuring-max-achievable-flops
 *                   part 2, Table 1)
 * A refit that moves power_clock_exp changes these by hand too. */
#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"
#include "one_gpu.h"

static struct catalog cat;

static const struct gpu_spec *G(const char *name)
{
	const struct gpu_spec *g = catalog_gpu(&cat, name);
	if (!g)
		T_FAILF("GPU %s missing from the catalog", name);
	return g;
}

/* The clock_ref figures are copies of the reference entry's own (one
 * description: if the B200 or GB200 entry changes, these must follow). */
TEST(clock_ref_copies_its_reference)
{
	static const struct { const char *part, *ref; } pairs[] = {
		{ "B300", "B200" }, { "GB300", "GB200" }, { "MI325X", "MI300X" },
	};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		const struct gpu_spec *g = G(pairs[i].part), *r = G(pairs[i].ref);
		if (!g || !r)
			return;
		if (g->ref_tdp_w != r->tdp_w || g->ref_sms != r->sms ||
		    g->ref_flops16 != r->flops[HP_BF16])
			T_FAILF("%s clock_ref %.0f W %.0f SMs %.0f TF, %s is %.0f W %d SMs %.0f TF",
				pairs[i].part, g->ref_tdp_w, g->ref_sms, g->ref_flops16 / 1e12,
				pairs[i].ref, r->tdp_w, r->sms, r->flops[HP_BF16] / 1e12);
	}
	/* The parts a generation's constants stand on carry no reference. */
	CHECK(G("B200")->ref_tdp_w == 0 && G("GB200")->ref_tdp_w == 0);
}

static double ceiling(const struct gpu_spec *g)
{
	return perf_gemm16_ceiling(perf_calib_default(), g);
}

/* The sustained 16-bit GEMM rate, part against part (the hand
 * calculations at the top). */
TEST(sustained_rate_by_power_and_sms)
{
	const struct gpu_spec *b200 = G("B200"), *gb200 = G("GB200");
	const struct gpu_spec *b300 = G("B300"), *gb300 = G("GB300");
	if (!b200 || !gb200 || !b300 || !gb300)
		return;
	CHECK_NEAR(ceiling(gb300) / ceiling(gb200), 1.13678, 2e-4);
	CHECK_NEAR(ceiling(b300) / ceiling(b200), 1.09352, 2e-4);
	CHECK_NEAR(ceiling(gb200) / ceiling(b200), 1.11111, 2e-5);
	const struct gpu_spec *mi300 = G("MI300X"), *mi325 = G("MI325X");
	if (mi300 && mi325)
		CHECK_NEAR(ceiling(mi325) / ceiling(mi300), 1.20888, 2e-4);
	/* GB300 held to GB200's 1200 W keeps only its SMs: (160/148)^0.3406. */
	struct gpu_spec capped = *gb300;
	capped.power_limit_w = 1200;
	CHECK_NEAR(ceiling(&capped) / ceiling(gb200), 1.02691, 2e-4);
	/* Power never buys more than the reference's square sweep: B200
	 * cuBLAS 1745 of 2250 = 0.776 of peak (blackwell.square16), so at
	 * 10 kW a GB300 sustains 0.776 x 2500 = 1940 TFLOP/s. */
	struct gpu_spec hot = *gb300;
	hot.tdp_w = 10000;
	CHECK_NEAR(ceiling(&hot) / 1e12, 1940, 1e-6);
	/* A sweep of the part itself wins over the reference: a measured
	 * square rate equal to the reference's share (0.776 x 2500) gives
	 * the generation's rate on its own peak, as GB200 has. */
	struct gpu_spec swept = *gb300;
	swept.gemm16_meas = 0.776 * 2500e12;
	CHECK_NEAR(ceiling(&swept) / ceiling(gb200), 1, 1e-9);
}

/* sm_120 is told by its die, GB202-GB207 ("Blackwell (GB202)"; the
 * RTX 50 series and RTX PRO 6000), not by "GB20" alone: the GB200
 * superchip is an sm_100 part (two B200 dies, tcgen05 kernels; NVIDIA
 * CUDA GPUs list, compute capability 10.0), so a gpus.json entry whose
 * arch names it ("Blackwell (GB200 NVL72)") keeps the catalog GB200's
 * rate; a GB203 part is an sm_120 part as the GB202 ones are. */
TEST(sm120_told_by_die)
{
	const struct gpu_spec *gb200 = G("GB200"), *r5090 = G("RTX-5090");
	if (!gb200 || !r5090)
		return;
	struct gpu_spec named = *gb200;
	snprintf(named.arch, sizeof named.arch, "Blackwell (GB200 NVL72)");
	CHECK_NEAR(ceiling(&named) / ceiling(gb200), 1, 1e-12);
	struct gpu_spec g203 = *r5090;
	snprintf(g203.arch, sizeof g203.arch, "Blackwell (GB203)");
	CHECK_NEAR(ceiling(&g203) / ceiling(r5090), 1, 1e-12);
}

/* The compute of one micro-batch of Llama 3.1 8B (seq 8192, bf16, one
 * GPU) through the estimate. Compute-bound kernels (GEMMs, flash
 * attention) run at rate r, memory-bound ones (norms, activations, the
 * optimizer's reads) at the HBM rate, which power does not change: the
 * compute is C / r + M. On one GB300 (160 SMs throughout, so the tiles'
 * wave quantisation is the same) at three rates by hand:
 *   no reference (r = 1), held to 1200 W (r = 1.02691), rated
 *   1400 W (r = 1.13678):
 * the first two give C and M; the third must be C / 1.13678 + M. */
static double compute_s(const struct gpu_spec *g)
{
	const struct model_spec *m = catalog_model(&cat, "llama3.1-8b");
	if (!m) {
		T_FAILF("model llama3.1-8b missing");
		return -1;
	}
	return one_gpu_compute_s_as(&cat, "1x1xGB300,name=a", g, m, HP_BF16, 1, FW_ANY);
}

TEST(estimate_scales_compute_bound_kernels)
{
	const struct gpu_spec *gb300 = G("GB300");
	if (!gb300)
		return;
	struct gpu_spec none = *gb300, held = *gb300;
	none.ref_tdp_w = none.ref_sms = none.ref_flops16 = 0;
	held.power_limit_w = 1200;
	double t1 = compute_s(&none), t2 = compute_s(&held), t3 = compute_s(gb300);
	if (!(t1 > 0 && t2 > 0 && t3 > 0))
		return;
	/* t1 = C + M, t2 = C / 1.02691 + M */
	double C = (t1 - t2) / (1 - 1 / 1.02691), M = t1 - C;
	CHECK(C > 0 && M >= 0);
	CHECK_NEAR(t3, C / 1.13678 + M, 1e-3);
	/* and the rate gain on the step's compute lies between none and the
	 * full 1.13678 */
	CHECK(t1 / t3 > 1 && t1 / t3 <= 1.13678 + 1e-4);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog_load: %s\n", err.msg);
		return 1;
	}
	RUN(clock_ref_copies_its_reference);
	RUN(sustained_rate_by_power_and_sms);
	RUN(estimate_scales_compute_bound_kernels);
	RUN(sm120_told_by_die);
	catalog_done(&cat);
	return t_done("test_clock_ref");
}
