/* test_fp8.c — what an fp8 run costs beyond its GEMMs' rate, by hand:
 * the bytes of Transformer Engine's casts of the GEMM inputs
 * (perf_fp8_cast_bytes), and the fp8 GEMM gain over bf16 against
 * published sweeps (perf_gemm_eff). The measured FP8/BF16 step ratios
 * of whole runs are checked by tests/test_fp8_pairs.sh; docs/fp8.md has
 * the pairs.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "t.h"

#include "../src/catalog.h"
#include "../src/perf.h"
#include "../src/perf_int.h"
#include "../src/plan.h"

static struct catalog cat;

/* A dense Llama 3.1 8B layer (hidden 4096, 32 heads x 128 = q 4096, FFN
 * 14336) on TP 2, 8,192 tokens of a micro-batch. The four GEMM inputs per
 * token: QKV reads the hidden state (4096), the projection the attention
 * output (q, 4096), MLP up the hidden state (4096), MLP down the FFN
 * activation (14336): 26,624 elements; per GPU 8192 x 26624 / 2 =
 * 109,051,904. Each is read in 16 bits (2 bytes) and written as fp8 and
 * as its fp8 transpose (1 + 1): 4 bytes, 436,207,616 bytes. A bf16 run
 * casts nothing. */
TEST(cast_bytes_dense)
{
	const struct model_spec *m = catalog_model(&cat, "llama3.1-8b");
	CHECK(m != NULL);
	if (!m)
		return;
	struct plan p;
	plan_init(&p);
	p.precision = HP_FP8;
	CHECK_NEAR(perf_fp8_cast_bytes(m, 0, &p, 2, 8192), 436207616.0, 1e-12);
	p.precision = HP_BF16;
	CHECK(perf_fp8_cast_bytes(m, 0, &p, 2, 8192) == 0);
	plan_free(&p);
}

/* A Mixtral 8x7B layer (hidden 4096, q 4096, 8 experts of FFN 14336,
 * top-2, no shared expert) on TP 1, 4,096 tokens. QKV and projection as
 * above (4096 + 4096); each token's two routed copies go through fc1
 * (2 x 4096) and fc2 (2 x 14336): 45,056 elements a token, 4096 x 45056 =
 * 184,549,376, x 4 bytes = 738,197,504. */
TEST(cast_bytes_moe)
{
	const struct model_spec *m = catalog_model(&cat, "mixtral-8x7b");
	CHECK(m != NULL);
	if (!m)
		return;
	struct plan p;
	plan_init(&p);
	p.precision = HP_FP8;
	CHECK_NEAR(perf_fp8_cast_bytes(m, 0, &p, 1, 4096), 738197504.0, 1e-12);
	plan_free(&p);
}

/* hetplan's fp8 GEMM gain over bf16 on the H100 SXM, at a large training
 * shape (8192 x 8192 x 8192), lies between two published sweeps of the
 * same part: the best-shape MAMF tables (stas00/ml-engineering @744d01e1
 * compute/accelerator/README.md: bf16 794.5, fp8 1,402.6 TFLOP/s, torch
 * 2.7 / CUDA 12.6): 1.765x; and one harness's M = N = 8192, K = 16,384
 * sweeps on the H800 SXM, the same SMs and clocks (xwhzz/tilelang
 * @b2acfc37 benchmark/matmul/README.md fp16 766, benchmark/matmul_fp8/
 * README.md fp8 1,541): 2.01x. Rates are efficiency x the part's peak
 * (the sustained-clock factor is 1 for both on this part, the hopper
 * reference). */
TEST(fp8_gemm_gain_within_sweeps)
{
	const struct gpu_spec *g = catalog_gpu(&cat, "H100-SXM");
	CHECK(g != NULL);
	if (!g)
		return;
	const struct perf_calib *k = perf_calib_default();
	double r8 = perf_gemm_eff(k, g, HP_FP8, 8192, 8192, 8192) * g->flops[HP_FP8];
	double r16 = perf_gemm_eff(k, g, HP_BF16, 8192, 8192, 8192) * g->flops[HP_BF16];
	CHECK(r16 > 0);
	if (r16 > 0) {
		double gain = r8 / r16;
		CHECK(gain >= 1402.6 / 794.5 && gain <= 1541.0 / 766.0);
		if (!(gain >= 1402.6 / 794.5 && gain <= 1541.0 / 766.0))
			fprintf(stderr, "  fp8/bf16 GEMM rate %.3f\n", gain);
	}
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "test_fp8: %s\n", err.msg);
		return 1;
	}
	RUN(cast_bytes_dense);
	RUN(cast_bytes_moe);
	RUN(fp8_gemm_gain_within_sweeps);
	catalog_done(&cat);
	return t_done("test_fp8");
}
