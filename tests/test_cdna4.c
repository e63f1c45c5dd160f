/* test_cdna4.c — CDNA 4 (MI350X, MI355X) is a generation of its own
 * ("cdna4"), apart from CDNA 1-3, with kernel rates from MI355X
 * measurements (docs/cdna.md).
 *
 * The facts, from the sources data/calibration.json and data/gpus.json
 * cite:
 *   Peaks (AMD product pages; ROCm GPU specs table): 256 CUs, 4,096 dense
 *   bf16 FLOP per CU and clock (8,192 fp8), peak engine clock 2,400 MHz
 *   (MI355X) and 2,200 MHz (MI350X):
 *     MI355X bf16 256 x 4096 x 2.4e9 = 2,516.58 TFLOP/s, fp8 5,033.16
 *     MI350X bf16 256 x 4096 x 2.2e9 = 2,306.87 TFLOP/s, fp8 4,613.73
 *   Kernel measurements on the MI355X (hetplan's H100 constants scaled by
 *   the MI355X / H100 ratio of the same measurement, as the CDNA 3 rates
 *   were):
 *     bf16 torch.matmul best shape 1,565.0 of 2,516.6 (ml-engineering MAMF
 *       table @744d01e1), H100 794.5 of 989
 *     fp8 hipBLASLt 8192^3 3,233.19 of 5,033.2 (HipKittens @f09e9685),
 *       H100 cuBLASLt 1,290.1 of 1,978.9 (Azure benchmarking guide)
 *     AITER FMHA v3 causal forward, hdim 128, seq 8192: 1,173.23; its
 *       non-causal backward 1,166.84 (HipKittens); H100 cuDNN 529 and 518
 *     CK ck_tile causal forward 843.54; non-causal backward 46.844 ms for
 *       2.5 x 4 x 16 x 8192^2 x 16 x 128 FLOP = 469.44 TFLOP/s
 *       (HipKittens); H100 FlashAttention-2 333 and 318
 *
 * One GEMM by hand: Llama 3.1 8B's gated up projection in fp8 on one
 * MI355X, a micro-batch of 2 x 8192 tokens: M = 16384, N = 2 x 14336 =
 * 28672, K = 4096.
 *   cdna4.gemm8 = hopper.gemm8 x (3233.19 / 5033.2) / (1290.1 / 1978.9)
 *   tiles 256 x 128: 64 x 224 = 14,336 tiles on 256 CUs = 56 full waves,
 *     so no wave loss;
 *   main-loop fill K / (K + gemm_k_half);
 *   time = 2 M N K / (5033.16e12 x gemm8 x fill).
 * With the shipped hopper.gemm8 0.591008 and gemm_k_half 24.8611:
 *   gemm8 = 0.591008 x 0.642373 / 0.651928 = 0.582346; fill 0.993967;
 *   time = 3.84829e12 / (5033.16e12 x 0.582346 x 0.993967) = 1.3209 ms.
 * A refit that moves hopper's constants moves these by hand too.
 *
 * MI350X against MI355X (clock_ref): the same die held to 1,000 W instead
 * of 1,400 sustains (1000/1400)^power_clock_exp of the MI355X's GEMM
 * rate; with the shipped 0.659396: exp(0.659396 x ln(0.714286)) =
 * exp(-0.221868) = 0.80103. */
#include "t.h"
#include "catalog.h"
#include "perf.h"
#include "perf_int.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>

static struct catalog cat;

static const struct gpu_spec *G(const char *name)
{
	const struct gpu_spec *g = catalog_gpu(&cat, name);
	if (!g)
		T_FAILF("GPU %s missing from the catalog", name);
	return g;
}

TEST(generation_by_architecture)
{
	static const struct { const char *name; enum hp_gen gen; } parts[] = {
		{ "MI355X", GEN_CDNA4 }, { "MI350X", GEN_CDNA4 }, { "MI325X", GEN_CDNA },
		{ "MI300X", GEN_CDNA },  { "MI250X", GEN_CDNA },  { "MI100", GEN_CDNA },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(parts); i++) {
		const struct gpu_spec *g = G(parts[i].name);
		if (g && g->gen != parts[i].gen)
			T_FAILF("%s (arch '%s'): generation %s, want %s", parts[i].name, g->arch,
				hp_gen_name(g->gen), hp_gen_name(parts[i].gen));
	}
	CHECK(!strcmp(hp_gen_name(GEN_CDNA4), "cdna4"));
	CHECK(!strcmp(hp_gen_name(GEN_CDNA), "cdna"));
	CHECK(HP_GEN_LAST == GEN_CDNA4);
}

/* A user's own part: "CDNA 4" and "CDNA4" name CDNA 4, "CDNA3" CDNA. */
TEST(user_arch_strings)
{
	char dir[] = "/tmp/hetplan-test-cdna4-XXXXXX";
	if (!mkdtemp(dir)) {
		T_FAILF("mkdtemp failed");
		return;
	}
	char path[128];
	snprintf(path, sizeof path, "%s/gpus.json", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		T_FAILF("cannot write %s", path);
		rmdir(dir);
		return;
	}
	fputs("{\"gpus\": ["
	      "{\"name\": \"X-A\", \"vendor\": \"AMD\", \"arch\": \"CDNA 4\", \"memory_gb\": 288,"
	      " \"memory_bw_tbps\": 8, \"tflops\": {\"bf16\": 2516.6}},"
	      "{\"name\": \"X-B\", \"vendor\": \"AMD\", \"arch\": \"CDNA4\", \"memory_gb\": 288,"
	      " \"memory_bw_tbps\": 8, \"tflops\": {\"bf16\": 2516.6}},"
	      "{\"name\": \"X-C\", \"vendor\": \"AMD\", \"arch\": \"CDNA3\", \"memory_gb\": 192,"
	      " \"memory_bw_tbps\": 5.3, \"tflops\": {\"bf16\": 1307.4}}]}",
	      f);
	fclose(f);
	struct catalog c;
	struct hp_err err = { 0 };
	if (catalog_load(&c, dir, &err) < 0) {
		T_FAILF("catalog_load: %s", err.msg);
	} else {
		const struct gpu_spec *a = catalog_gpu(&c, "X-A"), *b = catalog_gpu(&c, "X-B");
		const struct gpu_spec *x = catalog_gpu(&c, "X-C");
		CHECK(a && a->gen == GEN_CDNA4);
		CHECK(b && b->gen == GEN_CDNA4);
		CHECK(x && x->gen == GEN_CDNA);
		catalog_done(&c);
	}
	unlink(path);
	rmdir(dir);
}

/* The catalog's peaks are AMD's dense figures (clock x CUs x rate). */
TEST(datasheet_dense_peaks)
{
	const struct gpu_spec *a = G("MI355X"), *b = G("MI350X");
	if (!a || !b)
		return;
	CHECK_NEAR(a->flops[HP_BF16], 256 * 4096 * 2.4e9, 1e-4);
	CHECK_NEAR(a->flops[HP_FP8], 256 * 8192 * 2.4e9, 1e-4);
	CHECK_NEAR(b->flops[HP_BF16], 256 * 4096 * 2.2e9, 1e-4);
	CHECK_NEAR(b->flops[HP_FP8], 256 * 8192 * 2.2e9, 1e-4);
	CHECK(a->sms == 256 && b->sms == 256);
	CHECK(a->tdp_w == 1400 && b->tdp_w == 1000);
	/* MI350X's clock reference is the MI355X entry itself. */
	CHECK(b->ref_tdp_w == a->tdp_w && b->ref_sms == a->sms &&
	      b->ref_flops16 == a->flops[HP_BF16]);
	CHECK(a->ref_tdp_w == 0);
}

/* Each cdna4 rate is hopper's constant times the MI355X / H100 ratio of
 * one published measurement (the figures at the top). */
TEST(rates_follow_their_measurements)
{
	const struct perf_calib *k = perf_calib_default();
	const struct perf_gen_eff *h = &k->gen[GEN_HOPPER], *c = &k->gen[GEN_CDNA4];
	CHECK_NEAR(c->gemm16, h->gemm16 * (1565.0 / 2516.6) / (794.5 / 989), 1e-3);
	CHECK_NEAR(c->gemm8, h->gemm8 * (3233.19 / 5033.2) / (1290.1 / 1978.9), 1e-3);
	CHECK_NEAR(c->attn3_fwd, h->attn3_fwd * (1173.23 / 2516.6) / (529.0 / 989), 1e-3);
	CHECK_NEAR(c->attn3_bwd, h->attn3_bwd * (1166.84 / 2516.6) / (518.0 / 989), 1e-3);
	CHECK_NEAR(c->attn_fwd, h->attn_fwd * (843.54 / 2516.6) / (333.0 / 989), 1e-3);
	CHECK_NEAR(c->attn_bwd, h->attn_bwd * (469.44 / 2516.6) / (318.0 / 989), 1e-3);
	/* torch.matmul bf16 8192^2 on the MI355X: 1,521.25 TFLOP/s. */
	CHECK_NEAR(c->square16, 1521.25 / 2516.6, 1e-3);
}

TEST(one_gemm_by_hand)
{
	const struct perf_calib *k = perf_calib_default();
	const struct gpu_spec *g = G("MI355X");
	if (!g)
		return;
	double M = 16384, N = 28672, K = 4096;
	double eff = perf_gemm_eff(k, g, HP_FP8, M, N, K);
	double t = 2 * M * N * K / (perf_peak(g, HP_FP8) * eff);
	CHECK_NEAR(eff, 0.582346 * 0.993967, 2e-4);
	CHECK_NEAR(t, 1.3209e-3, 5e-4);
}

TEST(mi350x_holds_less_clock)
{
	const struct perf_calib *k = perf_calib_default();
	const struct gpu_spec *a = G("MI355X"), *b = G("MI350X");
	if (!a || !b)
		return;
	CHECK_NEAR(perf_gemm16_ceiling(k, b) / perf_gemm16_ceiling(k, a), 0.80103, 2e-4);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog_load: %s\n", err.msg);
		return 1;
	}
	RUN(generation_by_architecture);
	RUN(user_arch_strings);
	RUN(datasheet_dense_peaks);
	RUN(rates_follow_their_measurements);
	RUN(one_gemm_by_hand);
	RUN(mi350x_holds_less_clock);
	catalog_done(&cat);
	return t_done("test_cdna4");
}
