/* test_catalog.c — the embedded GPU catalog: every part has the figures a
 * plan needs, and the added parts carry their datasheet values. */
#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

static struct catalog cat;

static const struct gpu_spec *G(const char *name)
{
	const struct gpu_spec *g = catalog_gpu(&cat, name);
	if (!g)
		T_FAILF("GPU %s missing from the catalog", name);
	return g;
}

/* A part with no peak at all, no memory bandwidth or no TDP would make the
 * planner divide by zero or print 0 TF / 0 W. */
TEST(no_part_lacks_peak_bandwidth_or_tdp)
{
	CHECK(cat.n_gpus > 0);
	for (int i = 0; i < cat.n_gpus; i++) {
		const struct gpu_spec *g = &cat.gpus[i];
		int any = 0;
		for (int d = 0; d < HP_DTYPE_COUNT; d++)
			any |= g->flops[d] > 0;
		if (!any)
			T_FAILF("%s: no dense peak for any dtype", g->name);
		if (!(g->hbm_Bps > 0))
			T_FAILF("%s: no memory bandwidth", g->name);
		if (!(g->tdp_w > 0))
			T_FAILF("%s: no TDP", g->name);
		if (!(g->mem_bytes > 0))
			T_FAILF("%s: no memory capacity", g->name);
		if (!*g->source)
			T_FAILF("%s: no source", g->name);
	}
}

/* The rule: GPU memory is sold in binary gigabytes, so a part labelled
 * memory_gb holds memory_gb x 2^30 bytes, and what its driver reports
 * (memory_usable_mib x 2^20) is never more. By hand: an RTX 3090
 * ("24 GB") reports 24,576 MiB = 24 x 1024 MiB, all of it; an H100 SXM
 * ("80 GB") 81,559 of 81,920 MiB; a T4 ("16 GB", ECC on) 15,360 of
 * 16,384 MiB, 15/16. Read as 1e9 bytes the label would be below the
 * driver's figure on all three (24e9 < 25.77e9; 80e9 < 85.52e9; 16e9 <
 * 16.11e9). */
TEST(usable_memory_within_physical)
{
	int with = 0;
	for (int i = 0; i < cat.n_gpus; i++) {
		const struct gpu_spec *g = &cat.gpus[i];
		if (!(g->mem_usable_bytes > 0))
			continue;
		with++;
		if (g->mem_usable_bytes > gpu_phys_bytes(g))
			T_FAILF("%s: driver-reported %.0f MiB above the physical %.0f MiB", g->name,
				g->mem_usable_bytes / 1048576, gpu_phys_bytes(g) / 1048576);
		/* and the label read as decimal bytes, what a plan allocates
		 * without a driver figure, is below every driver figure */
		if (g->mem_bytes > g->mem_usable_bytes)
			T_FAILF("%s: label %.0f bytes above the driver's %.0f", g->name,
				g->mem_bytes, g->mem_usable_bytes);
	}
	CHECK(with >= 26);
	CHECK_NEAR(gpu_phys_bytes(G("RTX-3090")), 24576.0 * 1048576, 0);
	CHECK_NEAR(G("RTX-3090")->mem_usable_bytes, 24576.0 * 1048576, 0);
	CHECK_NEAR(gpu_phys_bytes(G("H100-SXM")), 81920.0 * 1048576, 0);
	CHECK_NEAR(gpu_phys_bytes(G("T4")), 16384.0 * 1048576, 0);
	CHECK_NEAR(G("T4")->mem_usable_bytes, 15360.0 * 1048576, 0);
	/* a part without a driver figure plans on the label, 48e9 bytes */
	CHECK_NEAR(gpu_usable_bytes(G("RTX-A6000")), 48e9, 0);
}

/* A driver figure above the label's GiB is refused with the field named:
 * 24,577 MiB on a "24 GB" part is one MiB too many; 24,576 passes. */
TEST(usable_memory_above_physical_refused)
{
	const char *bad = "{\"name\": \"X\", \"memory_gb\": 24, \"memory_usable_mib\": 24577, "
			  "\"memory_bw_tbps\": 1, \"tdp_w\": 300, \"tflops\": {\"bf16\": 100}}";
	const char *good = "{\"name\": \"X\", \"memory_gb\": 24, \"memory_usable_mib\": 24576, "
			   "\"memory_bw_tbps\": 1, \"tdp_w\": 300, \"tflops\": {\"bf16\": 100}}";
	struct gpu_spec g;
	struct hp_err err = { 0 };
	cJSON *o = cJSON_Parse(bad);
	CHECK(o != NULL);
	memset(&g, 0, sizeof g);
	CHECK(catalog_parse_gpu(o, "gpus.json", "gpus[0]", &g, &err) < 0);
	CHECK(strstr(err.msg, "gpus.json: gpus[0].memory_usable_mib: 24577 MiB") != NULL);
	CHECK(strstr(err.msg, "(24576 MiB") != NULL);
	cJSON_Delete(o);
	o = cJSON_Parse(good);
	CHECK(o != NULL);
	memset(&g, 0, sizeof g);
	memset(&err, 0, sizeof err);
	CHECK(catalog_parse_gpu(o, "gpus.json", "gpus[0]", &g, &err) == 0);
	CHECK_NEAR(g.mem_usable_bytes, gpu_phys_bytes(&g), 0);
	cJSON_Delete(o);
}

/* The list of parts users asked for, by the names they type. */
TEST(requested_parts_present)
{
	static const char *const want[] = {
		"H800", "A800", "GB300", "B300", "MI355X", "RTX-4090", "RTX 3090",
		"A6000", "RTX-6000-Ada", "L20", "A10G",
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(want); i++)
		G(want[i]);
}

/* Datasheet figures, restated here from the sources named in gpus.json. */
TEST(export_parts_have_reduced_nvlink)
{
	/* H800 and A800: NVLink 400 GB/s bidirectional = 200 GB/s per
	 * direction (H100 900 -> 450, A100 600 -> 300). */
	const struct gpu_spec *h800 = G("H800"), *a800 = G("A800");
	if (!h800 || !a800)
		return;
	CHECK_NEAR(h800->link_Bps, 200e9, 0);
	CHECK_NEAR(a800->link_Bps, 200e9, 0);
	/* Compute is the unrestricted part's: H100 SXM BF16 989.4 TF dense
	 * (1979 with sparsity / 2), A100 312 TF. */
	CHECK_NEAR(h800->flops[HP_BF16], 989.4e12, 0);
	CHECK_NEAR(a800->flops[HP_BF16], 312e12, 0);
	/* nvidia-smi on A800-SXM4-80GB reports 81920 MiB. */
	CHECK_NEAR(a800->mem_usable_bytes, 81920.0 * 1048576, 0);
}

TEST(rack_scale_domains)
{
	/* NVL72: 72 GPUs in one NVLink domain. */
	const struct gpu_spec *gb200 = G("GB200"), *gb300 = G("GB300");
	if (gb200)
		CHECK_EQ_INT(gb200->domain, 72);
	if (gb300)
		CHECK_EQ_INT(gb300->domain, 72);
	/* GB300 NVL72 rack: 360 PF BF16 with sparsity / 72 / 2 = 2.5 PF. */
	if (gb300)
		CHECK_NEAR(gb300->flops[HP_BF16], 2.5e15, 0);
}

TEST(consumer_and_workstation_parts)
{
	/* Ada whitepaper, RTX 4090: 82.6 TF FP32, 1008 GB/s, 450 W, 128 SMs;
	 * nvidia-smi 24564 MiB. */
	const struct gpu_spec *g = G("RTX-4090");
	if (g) {
		CHECK_NEAR(g->flops[HP_FP32], 82.6e12, 0);
		CHECK_NEAR(g->hbm_Bps, 1008e9, 0);
		CHECK_NEAR(g->tdp_w, 450, 0);
		CHECK_EQ_INT(g->sms, 128);
		CHECK_NEAR(g->mem_usable_bytes, 24564.0 * 1048576, 0);
	}
	/* MI355X: 256 CUs (ROCm GPU specs table), 288 GB, 8 TB/s. */
	g = G("MI355X");
	if (g) {
		CHECK_EQ_INT(g->sms, 256);
		CHECK_NEAR(g->mem_bytes, 288e9, 0);
		CHECK_NEAR(g->hbm_Bps, 8e12, 0);
	}
}

/* RTX 3090 Ti (issue 12, consumer round 23): the full GA102, 10,752 CUDA
 * cores = 84 SMs of 128, at the 1,860 MHz boost of NVIDIA's product page:
 * FP32 10,752 x 2 x 1.86e9 = 40.0 TF; GeForce tensor cores with FP32
 * accumulate 512 FLOP/clk/SM, 84 x 512 x 1.86e9 = 80.0 TF FP16/BF16, TF32
 * half that; 21 Gbps x 384 bits / 8 = 1,008 GB/s; 450 W; nvidia-smi
 * 24564 MiB (450 W cap). Its measured square fp16 matmul, 81.314 TFLOP/s
 * at n = 8192 (mli/transformers-benchmarks micro_bench.ipynb @04df81d),
 * is above that peak, so it counts as 1.0 of peak against the Ampere
 * reference's 0.813 (253.7 of 312, ampere.square16): the Ti's GEMM
 * ceiling over the unmeasured RTX 3090's (71 TF, clock factor 1) is
 * 80 / 71 / 0.813 = 1.386. */
TEST(rtx_3090_ti)
{
	const struct gpu_spec *g = G("RTX-3090-Ti"), *base = G("RTX-3090");
	if (!g || !base)
		return;
	CHECK_EQ_INT(g->sms, 84);
	CHECK_NEAR(g->flops[HP_FP32], 10752 * 2 * 1.86e9, 0.01e12);
	CHECK_NEAR(g->flops[HP_BF16], 84 * 512 * 1.86e9, 0.01e12);
	CHECK_NEAR(g->flops[HP_FP16], 84 * 512 * 1.86e9, 0.01e12);
	CHECK_NEAR(g->flops[HP_TF32], 84 * 256 * 1.86e9, 0.01e12);
	CHECK_NEAR(g->hbm_Bps, 21e9 * 384 / 8, 0);
	CHECK_NEAR(g->tdp_w, 450, 0);
	CHECK_NEAR(g->mem_usable_bytes, 24564.0 * 1048576, 0);
	CHECK_EQ_INT(g->domain, 2);
	CHECK_EQ_INT(g->no_p2p, 1);
	CHECK(fabs(g->gemm16_meas - 81.314e12) < 0.05e12);
	CHECK(base->gemm16_meas == 0);
	double ratio = perf_gemm16_ceiling(perf_calib_default(), g) /
		       perf_gemm16_ceiling(perf_calib_default(), base);
	if (fabs(ratio - 80.0 / 71.0 / (253.7 / 312)) > 0.002)
		T_FAILF("RTX-3090-Ti GEMM ceiling / RTX-3090's = %.4f, want 1.386", ratio);
	CHECK(catalog_gpu(&cat, "3090ti") == g);
}

/* A10G: 80 SMs x 1710 MHz; 128 FP32 lanes x 2 = 35.0 TF; 600 GB/s. */
TEST(a10g_filled)
{
	const struct gpu_spec *g = G("A10G");
	if (!g)
		return;
	CHECK_NEAR(g->flops[HP_FP32], 80 * 128 * 2 * 1.71e9, 0.01);
	CHECK_NEAR(g->hbm_Bps, 600e9, 0);
	CHECK_NEAR(g->tdp_w, 300, 0);
}

/* V100 and T4 have no bf16: their best dtype is fp16 (V100 datasheet:
 * 125 TF tensor FP16), so listings show 125 TF, not 0. */
TEST(best_dtype_of_parts_without_bf16)
{
	const struct gpu_spec *v = G("V100"), *t4 = G("T4");
	if (!v || !t4)
		return;
	CHECK_EQ_INT(gpu_best_dtype(v), HP_FP16);
	CHECK_NEAR(v->flops[gpu_best_dtype(v)], 125e12, 0);
	CHECK_EQ_INT(gpu_best_dtype(t4), HP_FP16);
	char buf[48];
	CHECK(!strcmp(gpu_dtypes(v, " ", buf, sizeof buf), "fp32 fp16"));
	/* Truncation keeps whole names. */
	CHECK(!strcmp(gpu_dtypes(v, " ", buf, 8), "fp32"));
	struct gpu_spec none;
	memset(&none, 0, sizeof none);
	CHECK_EQ_INT(gpu_best_dtype(&none), -1);
	CHECK(!strcmp(gpu_dtypes(&none, " ", buf, sizeof buf), ""));
}

/* Measured sustained 16-bit GEMM rates (catalog gemm16_tflops_measured),
 * each the mean of a published torch.mm fp16 sweep's two sizes >= 8192
 * (zzc0721/torch-performance-test-data issues; 10 warm-up + 30 timed
 * runs per size):
 *   H100 PCIe, issue 95:        437.07 at 8192, 449.65 at 10240
 *   A100-PCIE-40GB, issue 108:  197.51 at 8192, 205.66 at 10240
 *   L20, issue 107:             108.96 at 8192, 106.53 at 10240
 *   A10G, issue 126:            65.67 at 8192,  69.47 at 10240
 *   V100-SXM2-16GB, issue 140:  97.36 at 8192,  89.37 at 10240
 *   RTX 4090, issue 78:         155.50 at 8192, 156.88 at 10240
 *   H100 SXM, issue 79:         736.19 at 8192, 668.42 at 10240
 *   H20, issue 77:              138.52 at 8192, 142.09 at 10240
 *   A40, issue 185:             108.47 at 8192, 119.18 at 10240
 *   RTX A4000, issue 97:        60.89 at 8192,  57.80 at 10240
 *   RTX 3080 10GB, issue 114:   63.94 at 8192,  64.10 at 10240
 *   RTX 5090, issue 124:        223.98 at 8192, 220.03 at 10240
 *   RTX PRO 6000 WS, issue 160: 331.78 at 8192, 318.13 at 10240
 *   RTX PRO 6000 Server Edition, issue 161: 406.97 at 8192, 374.05 at 10240
 *   RTX 2080 Ti, issue 181:     49.61 at 8192,  47.96 at 10240
 *   TITAN RTX, issue 127:       53.86 at 8192,  45.52 at 10240
 * and the L4's earlier entry, 53 (issue 120: 53.80 at 8192, 52.47 at
 * 10240): each entry is that mean, rounded (to 0.1 TFLOP/s; the L4's to
 * a whole one), so within 0.5 of it. The T4 has no sweep at these sizes;
 * its entry is a sustained cuBLAS HGEMM 4096^3 (mean of 100 back-to-back
 * runs, NVIDIA developer forum thread 264462: "about 24T"), beside
 * chsasank/device-benchmarks' best of 25 to 6888, so 23-25. Parts
 * without a published sustained sweep carry none (docs/perf-sources.md). */
TEST(measured_gemm16_rates)
{
	static const struct { const char *gpu; double at8192, at10240; } rows[] = {
		{ "H100-PCIe", 437.07, 449.65 },
		{ "A100-PCIe-40GB", 197.51, 205.66 },
		{ "L20", 108.96, 106.53 },
		{ "A10G", 65.67, 69.47 },
		{ "L4", 53.80, 52.47 },
		{ "V100-SXM2-16GB", 97.36, 89.37 },
		{ "RTX-4090", 155.50, 156.88 },
		{ "H100-SXM", 736.19, 668.42 },
		{ "H20", 138.52, 142.09 },
		{ "A40", 108.47, 119.18 },
		{ "RTX-A4000", 60.89, 57.80 },
		{ "RTX-3080", 63.94, 64.10 },
		{ "RTX-5090", 223.98, 220.03 },
		{ "RTX-PRO-6000", 331.78, 318.13 },
		{ "RTX-PRO-6000-Server", 406.97, 374.05 },
		{ "RTX-2080-Ti", 49.61, 47.96 },
		{ "TITAN-RTX", 53.86, 45.52 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const struct gpu_spec *g = G(rows[i].gpu);
		if (!g)
			continue;
		double mean = (rows[i].at8192 + rows[i].at10240) / 2 * 1e12;
		if (fabs(g->gemm16_meas - mean) > 0.5e12)
			T_FAILF("%s: gemm16_meas %.2f TFLOP/s, the source's mean is %.2f",
				rows[i].gpu, g->gemm16_meas / 1e12, mean / 1e12);
	}
	const struct gpu_spec *t4 = G("T4");
	if (t4)
		CHECK(t4->gemm16_meas >= 23e12 && t4->gemm16_meas <= 25e12);
	/* No published sustained sweep was found for these. */
	static const char *none[] = { "V100-PCIe", "L40S", "RTX-3090", "RTX-A6000",
				      "H100-NVL", "H200-NVL", "A100-PCIe-80GB", "A30",
				      "L40", "RTX-A5000", "RTX-4080", "TITAN-V",
				      "MI100", "MI210", "MI250" };
	for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
		const struct gpu_spec *g = G(none[i]);
		if (g)
			CHECK(g->gemm16_meas == 0);
	}
}

/* The T4's sustained memory bandwidth: its 320 GB/s GDDR6 x turing.hbm
 * is what two device-to-device copies measured, 239.6 GB/s (CUDA sample
 * bandwidthTest, 32 MB; router-gao/cuda-demo
 * cuda-samples/02-cuda-bandwidth.md @8e2367b4) and 240 GB/s (torch copy_
 * of 0.38 GB; chsasank/device-benchmarks README @7ccc8838): within 1%. */
TEST(t4_sustained_bandwidth)
{
	const struct gpu_spec *t4 = G("T4");
	if (!t4)
		return;
	double bw = t4->hbm_Bps * perf_calib_default()->gen[t4->gen].hbm;
	CHECK_NEAR(bw, 239.6e9, 0.01);
	CHECK_NEAR(bw, 240e9, 0.01);
}

/* The T4's sustained rate in a transformer stack, against the V100's.
 * NVIDIA's BERT SQuAD inference tables (DeepLearningExamples
 * TensorFlow/LanguageModeling/BERT/README.md @729963dd, TF 20.06, the same
 * finetune_inference_benchmark.sh on one T4 and one V100-SXM2-16GB, fp16,
 * p50 latency): BERT-large, sequence 384, batch 8: T4 208.95 ms, V100
 * 54.23 ms, ratio 3.85; batch 4: 116.67 / 31.44 = 3.71. The ratio cancels
 * TF's own overhead, which both GPUs pay. hetplan's forward of the same
 * model (24 layers, hidden 1024, 16 heads, ffn 4096, SQuAD head of 2
 * outputs, no dropout, unfused attention; the stage's forward time
 * t_fwd) must keep the T4 3.3-4.4x behind: with turing.gemm16 0.37 it
 * was 3.00 and 2.81, with 0.29 3.61 and 3.38 (still 6-9% short of the
 * measured ratio: the memory-bound ops are not slowed, see limits.md). */
static double bert_large_fwd_s(const struct model_spec *bert, const char *pool, int mbs)
{
	struct hp_err err = { 0 };
	struct cluster c;
	struct plan p;
	struct estimate e = { 0 };
	double t = -1;
	cluster_init(&c);
	plan_init(&p);
	if (cluster_add_pool_spec(&c, pool, &cat, &err) < 0) {
		T_FAILF("%s: %s", pool, err.msg);
		goto out;
	}
	p.mbs = mbs;
	p.gbs = mbs;
	p.precision = HP_FP16;
	p.flash = 0;
	p.sp = 0;
	if (plan_uniform(&p, &c, bert, 0, 1, 1, 1, &err) < 0 ||
	    perf_estimate(&c, bert, &p, NULL, &e, &err) < 0) {
		T_FAILF("%s: %s", pool, err.msg);
		goto out;
	}
	t = e.stages[0].t_fwd;
out:
	estimate_free(&e);
	plan_free(&p);
	return t;
}

TEST(t4_behind_v100_in_bert_inference)
{
	const struct model_spec *base = catalog_model(&cat, "gpt-1.7b");
	if (!base) {
		T_FAILF("model gpt-1.7b missing");
		return;
	}
	struct model_spec bert = *base;
	bert.layers = 24;
	bert.hidden = 1024;
	bert.heads = bert.kv_heads = 16;
	bert.head_dim = 64;
	bert.ffn = 4096;
	bert.vocab = 30522;
	bert.seq_len = 384;
	bert.gated_mlp = 0;
	bert.bias = 1;
	bert.dropout = 0;
	bert.task_head = 2;
	static const struct { int mbs; double measured; } rows[] = {
		{ 8, 208.95 / 54.23 }, { 4, 116.67 / 31.44 },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(rows); i++) {
		double t4 = bert_large_fwd_s(&bert, "1x1xT4", rows[i].mbs);
		double v = bert_large_fwd_s(&bert, "1x1xV100-SXM2-16GB", rows[i].mbs);
		if (!(t4 > 0 && v > 0))
			continue;
		double r = t4 / v;
		if (r < 3.3 || r > 4.4)
			T_FAILF("BERT-large s384 b%d: T4/V100 forward %.2f, measured %.2f", rows[i].mbs,
				r, rows[i].measured);
	}
}

/* Parts added for small-model and lab clusters, against their sources
 * (the URLs in gpus.json):
 *   A40 datasheet: 48 GB GDDR6 at 696 GB/s, BF16/FP16 tensor 149.7 TF
 *     dense (299.4 with sparsity), 300 W, 10,752 CUDA cores = 84 SMs;
 *   A30 datasheet: 24 GB HBM2 at 933 GB/s, BF16 165 TF dense, NVLink
 *     bridge 200 GB/s bidirectional = 100 GB/s per direction, 165 W;
 *   L40 datasheet: FP16 181.05 TF dense (362.1 with sparsity), FP8 362,
 *     half the L40S's 362.05 on the same 142 SMs, 864 GB/s;
 *   RTX 5090 (RTX Blackwell whitepaper): 170 SMs, 1,792 GB/s, FP16 with
 *     FP32 accumulate 209.5 dense = the 838 sparse FP16-accumulate
 *     figure / 4;
 *   TITAN V product page: 110 tensor TF, 652.8 GB/s, no BF16;
 *   AMD MI210 / MI250 / MI100 (AnandTech's MI200 table, AMD pages):
 *     104 / 208 / 120 CUs, FP16 matrix 181 / 362.1 / 184.6 TF, FP32
 *     vector 22.6 / 45.3 / 23.1, 1.6 / 3.2 / 1.2288 TB/s; MI100 BF16
 *     92.3, half its FP16;
 *   RTX A5000: nvidia-smi memory.total 24564 MiB (akash-network/
 *     provider-configs pull 83); RTX 5090: nvidia-smi 32607 MiB
 *     (noonghunna/club-3090 issue 1107). */
TEST(added_parts_datasheet_facts)
{
	const struct gpu_spec *g;
	if ((g = G("A40"))) {
		CHECK_NEAR(g->mem_bytes, 48e9, 0);
		CHECK_NEAR(g->hbm_Bps, 696e9, 0);
		CHECK_NEAR(g->flops[HP_FP16], 149.7e12, 0);
		CHECK_NEAR(g->flops[HP_BF16], 149.7e12, 0);
		CHECK_NEAR(g->tdp_w, 300, 0);
		CHECK_EQ_INT(g->sms, 10752 / 128);
	}
	if ((g = G("A30"))) {
		CHECK_NEAR(g->mem_bytes, 24e9, 0);
		CHECK_NEAR(g->hbm_Bps, 933e9, 0);
		CHECK_NEAR(g->flops[HP_BF16], 165e12, 0);
		CHECK_NEAR(g->link_Bps, 200e9 / 2, 0);
		CHECK_NEAR(g->tdp_w, 165, 0);
	}
	const struct gpu_spec *l40s = G("L40S");
	if ((g = G("L40")) && l40s) {
		CHECK_NEAR(g->flops[HP_FP16], 181.05e12, 0);
		CHECK_NEAR(g->flops[HP_FP8], 362e12, 0);
		CHECK_NEAR(g->hbm_Bps, 864e9, 0);
		CHECK_EQ_INT(g->sms, l40s->sms);
		CHECK_NEAR(g->flops[HP_FP16], l40s->flops[HP_FP16] / 2, 0.001);
	}
	if ((g = G("RTX-5090"))) {
		CHECK_EQ_INT(g->sms, 170);
		CHECK_NEAR(g->hbm_Bps, 1792e9, 0);
		CHECK_NEAR(g->flops[HP_FP16], 838e12 / 4, 0.001);
	}
	if ((g = G("TITAN-V"))) {
		CHECK_NEAR(g->flops[HP_FP16], 110e12, 0);
		CHECK_NEAR(g->hbm_Bps, 652.8e9, 0);
		CHECK(g->flops[HP_BF16] == 0);
	}
	static const struct { const char *gpu; int cus; double fp16, fp32, bw; } amd[] = {
		{ "MI210", 104, 181e12, 22.6e12, 1.6e12 },
		{ "MI250", 208, 362.1e12, 45.3e12, 3.2e12 },
		{ "MI100", 120, 184.6e12, 23.1e12, 1.2288e12 },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(amd); i++) {
		if (!(g = G(amd[i].gpu)))
			continue;
		CHECK_EQ_INT(g->sms, amd[i].cus);
		CHECK_NEAR(g->flops[HP_FP16], amd[i].fp16, 0);
		CHECK_NEAR(g->flops[HP_FP32], amd[i].fp32, 0);
		CHECK_NEAR(g->hbm_Bps, amd[i].bw, 0);
	}
	if ((g = G("MI100")))
		CHECK_NEAR(g->flops[HP_BF16], 92.3e12, 0);
	if ((g = G("RTX-A5000")))
		CHECK_NEAR(g->mem_usable_bytes, 24564.0 * 1048576, 0);
	if ((g = G("RTX-5090")))
		CHECK_NEAR(g->mem_usable_bytes, 32607.0 * 1048576, 0);
}

/* The names users type, and the part each must reach. "MI250" is the
 * 208-CU MI250, no longer an alias of the 220-CU MI250X. */
TEST(added_parts_resolve_by_alias)
{
	static const struct { const char *typed, *name; } rows[] = {
		{ "A40", "A40" }, { "A40-48GB", "A40" }, { "a40_48g", "A40" },
		{ "A30", "A30" }, { "A30-24GB", "A30" },
		{ "L40", "L40" }, { "L40-48GB", "L40" }, { "L40S", "L40S" },
		{ "RTX-A5000", "RTX-A5000" }, { "A5000", "RTX-A5000" },
		{ "RTX A4000", "RTX-A4000" }, { "A4000", "RTX-A4000" },
		{ "RTX-2080-Ti", "RTX-2080-Ti" }, { "2080ti", "RTX-2080-Ti" },
		{ "GeForce RTX 2080 Ti", "RTX-2080-Ti" },
		{ "TITAN-RTX", "TITAN-RTX" }, { "Titan RTX", "TITAN-RTX" },
		{ "TITAN-V", "TITAN-V" }, { "titan_v", "TITAN-V" },
		{ "RTX-3080", "RTX-3080" }, { "3080", "RTX-3080" }, { "RTX-3080-10GB", "RTX-3080" },
		{ "RTX-4080", "RTX-4080" }, { "4080", "RTX-4080" },
		{ "RTX-5090", "RTX-5090" }, { "5090", "RTX-5090" },
		{ "GeForce-RTX-5090", "RTX-5090" },
		{ "RTX-PRO-6000", "RTX-PRO-6000" }, { "RTX PRO 6000 Blackwell", "RTX-PRO-6000" },
		{ "MI210", "MI210" }, { "MI250", "MI250" }, { "MI250X", "MI250X" },
		{ "MI100", "MI100" }, { "Instinct-MI100", "MI100" },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(rows); i++) {
		const struct gpu_spec *g = catalog_gpu(&cat, rows[i].typed);
		if (!g || strcmp(g->name, rows[i].name))
			T_FAILF("'%s' resolves to %s, want %s", rows[i].typed, g ? g->name : "nothing",
				rows[i].name);
	}
}

/* dtype support by generation: BF16 from Ampere and CDNA on, FP8 only on
 * parts with FP8 units (Ada, Blackwell here), TF32 not on CDNA 1/2. */
TEST(added_parts_dtypes)
{
	static const struct { const char *gpu; int tf32, bf16, fp8; } rows[] = {
		{ "TITAN-V", 0, 0, 0 },   { "RTX-2080-Ti", 0, 0, 0 }, { "TITAN-RTX", 0, 0, 0 },
		{ "A40", 1, 1, 0 },       { "A30", 1, 1, 0 },         { "RTX-A5000", 1, 1, 0 },
		{ "RTX-A4000", 1, 1, 0 }, { "RTX-3080", 1, 1, 0 },    { "L40", 1, 1, 1 },
		{ "RTX-4080", 1, 1, 1 },  { "RTX-5090", 1, 1, 1 },    { "RTX-PRO-6000", 1, 1, 1 },
		{ "MI100", 0, 1, 0 },     { "MI210", 0, 1, 0 },       { "MI250", 0, 1, 0 },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(rows); i++) {
		const struct gpu_spec *g = G(rows[i].gpu);
		if (!g)
			continue;
		if ((g->flops[HP_TF32] > 0) != rows[i].tf32 || (g->flops[HP_BF16] > 0) != rows[i].bf16 ||
		    (g->flops[HP_FP8] > 0) != rows[i].fp8 || !(g->flops[HP_FP16] > 0))
			T_FAILF("%s: tf32 %g bf16 %g fp8 %g fp16 %g TF, want tf32 %d bf16 %d fp8 %d fp16",
				g->name, g->flops[HP_TF32] / 1e12, g->flops[HP_BF16] / 1e12,
				g->flops[HP_FP8] / 1e12, g->flops[HP_FP16] / 1e12, rows[i].tf32,
				rows[i].bf16, rows[i].fp8);
	}
}

/* The V100-SXM2-32GB-LS (torch's "Tesla V100-SXM2-32GB-LS"), the V100 of
 * NVIDIA's DGX-1 Max-Q: GEEPAFS (Zhang et al., EuroSys '24,
 * doi:10.1145/3627703.3629584) Table 2 gives its DGX-1 MaxQ's V100-MaxQ
 * 163 W max power, 1440 MHz max SM clock and 829.44 GB/s, and the paper's
 * code (zyjopensource/geepafs@e3680ba:dvfs.c, machine "v100-maxq") its
 * only memory clock, 810 MHz: 810e6 x 2 (DDR) x 4096 bit / 8 = 829.44
 * GB/s. Oxford ARC's systems page names the DGX Max-Q's cards
 * "V100-SXM2-32GB-LS". It is the 300 W SXM2 V100 (same 80 SMs, NVLink 2,
 * 32 GB) held at 163 W: power_limit_w below the V100's tdp_w. */
TEST(v100_ls_is_the_dgx1_maxq_part)
{
	const struct gpu_spec *g = G("V100-SXM2-32GB-LS"), *v = G("V100-SXM2-32GB");
	if (!g || !v)
		return;
	CHECK_NEAR(g->power_limit_w, 163, 0);
	CHECK_NEAR(g->tdp_w, 300, 0);
	CHECK_NEAR(g->hbm_Bps, 810e6 * 2 * 4096 / 8, 0.5e9);
	CHECK_NEAR(g->mem_bytes, 32e9, 0);
	CHECK_EQ_INT(g->sms, 80);
	CHECK_NEAR(g->link_Bps, v->link_Bps, 0);
	/* the peak the power law scales is the SXM2 V100's (1530 MHz) */
	CHECK_NEAR(g->flops[HP_FP16], 125e12, 0);
	CHECK(g->gemm16_meas == 0);
	/* the device strings torch and nvidia-smi print, and the DGX names */
	static const char *const typed[] = { "V100-SXM2-32GB-LS", "Tesla-V100-SXM2-32GB-LS",
					     "V100-LS", "V100-MaxQ" };
	for (size_t i = 0; i < HP_ARRAY_LEN(typed); i++)
		CHECK(catalog_gpu(&cat, typed[i]) == g);
	/* the plain 32 GB part is untouched: no limit, 900 GB/s */
	CHECK(v->power_limit_w == 0);
	CHECK_NEAR(v->hbm_Bps, 900e9, 0);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog_load: %s\n", err.msg);
		return 1;
	}
	RUN(no_part_lacks_peak_bandwidth_or_tdp);
	RUN(usable_memory_within_physical);
	RUN(usable_memory_above_physical_refused);
	RUN(requested_parts_present);
	RUN(export_parts_have_reduced_nvlink);
	RUN(rack_scale_domains);
	RUN(consumer_and_workstation_parts);
	RUN(rtx_3090_ti);
	RUN(a10g_filled);
	RUN(best_dtype_of_parts_without_bf16);
	RUN(measured_gemm16_rates);
	RUN(t4_sustained_bandwidth);
	RUN(t4_behind_v100_in_bert_inference);
	RUN(added_parts_datasheet_facts);
	RUN(added_parts_resolve_by_alias);
	RUN(added_parts_dtypes);
	RUN(v100_ls_is_the_dgx1_maxq_part);
	catalog_done(&cat);
	return t_done("catalog");
}
