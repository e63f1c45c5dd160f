/* test_ada_gemm.c — the Ada GEMM constants against what they are derived
 * from and against measurements that are not calibration rows
 * (docs/ada-kernels.md, docs/ada-round51.md).
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "t.h"

#include "../src/catalog.h"
#include "../src/perf.h"
#include "../src/perf_int.h"

#include <math.h>

static struct catalog cat;

/* No Ada training run is in the calibration, so ada.gemm16 is derived:
 * the L40S square fraction (ada.square16) times the median gemm16 /
 * square16 of the generations whose gemm16 was fitted against a square
 * sweep of the part it was fitted on. By hand (data/calibration.json):
 *   volta  0.6323058 / 0.7472   = 0.846234 (torch.mm, 8192 and 10240)
 *   ampere 0.752745  / 0.813    = 0.925886 (cuBLASLt, 8192^3)
 *   hopper 0.65164008 / 0.709824 = 0.918030 (torch.mm, 8192 and 10240)
 * median 0.918030; 0.7292 x 0.918030 = 0.669428, stored as 0.6694.
 * gaudi.gemm16 is not fitted and blackwell.square16 is a best-shape
 * figure: neither ratio is of this kind. ada.gemm8 = ada.gemm16 x
 * hopper.gemm8 / hopper.gemm16 = 0.6694 x 0.906955 = 0.60712. A refit of
 * volta, ampere or hopper that moves the median fails here: re-derive. */
static double median3(double a, double b, double c)
{
	if (a > b) {
		double t = a;
		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

TEST(gemm16_derivation)
{
	const struct perf_calib *k = perf_calib_default();
	const struct perf_gen_eff *v = &k->gen[GEN_VOLTA], *a = &k->gen[GEN_AMPERE],
				  *h = &k->gen[GEN_HOPPER], *d = &k->gen[GEN_ADA];
	CHECK(v->square16 > 0 && a->square16 > 0 && h->square16 > 0 && d->square16 > 0);
	if (!(v->square16 > 0 && a->square16 > 0 && h->square16 > 0))
		return;
	double med = median3(v->gemm16 / v->square16, a->gemm16 / a->square16,
			     h->gemm16 / h->square16);
	CHECK_NEAR(med, 0.918030, 1e-5);
	CHECK(fabs(d->gemm16 - d->square16 * med) < 1e-4);
	CHECK(fabs(d->gemm16 - 0.6694) < 1e-9);
	CHECK(fabs(d->gemm8 - d->gemm16 * h->gemm8 / h->gemm16) < 1e-4);
}

/* FP8 against 16-bit GEMM efficiency on an Ada part, measured: an RTX
 * 4070 Ti SUPER (sm_89, 66 SMs at 2.61 GHz: 88.2 TFLOP/s BF16 and 176.4
 * FP8 with FP32 accumulate) at M, K, N = 16384, 8192, 1280, cuBLAS BF16
 * 4.0247 ms and FP8 2.1737 ms (pytorch/ao issue 574, 2024-08-11):
 * 2 x 16384 x 8192 x 1280 = 343.6 GFLOP, 85.37 and 158.06 TFLOP/s, 0.968
 * and 0.896 of peak: FP8 / BF16 efficiency 0.926. hetplan's ratio is
 * ada.gemm8 / ada.gemm16 (the shape terms are the same for both); one
 * measurement, so within 5%. */
TEST(fp8_ratio_against_measurement)
{
	const struct perf_calib *k = perf_calib_default();
	double meas = (2.0 * 16384 * 8192 * 1280 / 2.1737e-3 / 176.4e12) /
		      (2.0 * 16384 * 8192 * 1280 / 4.0247e-3 / 88.2e12);
	CHECK_NEAR(meas, 0.926, 1e-3);
	double ours = k->gen[GEN_ADA].gemm8 / k->gen[GEN_ADA].gemm16;
	CHECK(fabs(ours / meas - 1) < 0.05);
}

/* hetplan's GEMM time for one micro-step of LLMQ's Qwen2.5-1.5B BF16 run
 * on one RTX 4090 (IST-DASLab/llmq benchmarks/4090x1.md @7f895bdb88:
 * batch 4 x 1,024 tokens, 128 micro-steps in 37,257 ms, 291.07 ms each)
 * must be shorter than the measured micro-step, which also holds the
 * attention, the norms, SwiGLU, RoPE, the loss and the optimizer's share.
 * A bound, not a target. Shapes (llama_config.cpp create_qwen25_config):
 * 28 layers of hidden 1,536, 12 x 128 query and 2 x 128 KV heads, FFN
 * 8,960 gated, vocabulary 151,936; per layer QKV 4096 x 2048 x 1536,
 * projection 4096 x 1536 x 1536, MLP up 4096 x 17920 x 1536, down 4096 x
 * 1536 x 8960, each forward, data and weight gradient (3x); the LM head
 * 4096 x 151936 x 1536, 3x. 6 x 4,096 x 1,543.6M = 37.94 TFLOP, so the
 * bound is 130.3 TFLOP/s, 0.789 of the 165.2 peak. Until round 51
 * (ada.gemm16 0.6171) hetplan's modelled GEMM time here was 302 ms. */
TEST(rtx4090_gemms_under_measured_micro_step)
{
	const struct gpu_spec *g = catalog_gpu(&cat, "RTX-4090");
	CHECK(g != NULL);
	if (!g)
		return;
	const struct perf_calib *k = perf_calib_default();
	double ceil16 = perf_gemm16_ceiling(k, g), g16 = k->gen[GEN_ADA].gemm16;
	CHECK(ceil16 > 0 && g16 > 0);
	if (!(ceil16 > 0 && g16 > 0))
		return;
	static const double shape[][3] = {
		{ 4096, 2048, 1536 }, { 4096, 1536, 1536 }, { 4096, 17920, 1536 }, { 4096, 1536, 8960 },
	};
	double t = 0;
	for (int i = 0; i < 4; i++) {
		const double *s = shape[i];
		/* peak x clock_frac x eff = ceiling x eff / gemm16 */
		t += 28 * 3 * 2 * s[0] * s[1] * s[2] * g16 /
		     (ceil16 * perf_gemm_eff(k, g, HP_BF16, s[0], s[1], s[2]));
	}
	t += 3 * 2 * 4096.0 * 151936 * 1536 * g16 /
	     (ceil16 * perf_gemm_eff(k, g, HP_BF16, 4096, 151936, 1536));
	CHECK(t < 37.257 / 128);
	if (!(t < 37.257 / 128))
		fprintf(stderr, "  GEMMs %.1f ms, measured micro-step %.1f ms\n", t * 1e3,
			37.257 / 128 * 1e3);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "test_ada_gemm: %s\n", err.msg);
		return 1;
	}
	RUN(gemm16_derivation);
	RUN(fp8_ratio_against_measurement);
	RUN(rtx4090_gemms_under_measured_micro_step);
	catalog_done(&cat);
	return t_done("test_ada_gemm");
}
