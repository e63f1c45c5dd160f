/* test_serve_search.c — the serving model's arithmetic and the two
 * optimisers against hand calculations and brute force.
 *
 * Facts used (each independent of the code under test):
 * - KV bytes per token from the architectures' config values, computed by
 *   hand in the comments.
 * - Erlang C values from the closed form for small c; wait quantiles
 *   solved by hand (and a chi-square table) in the comments.
 * - Physics: a decode step cannot read the weights faster than the HBM
 *   bandwidth of the datasheet.
 * - Brute force: every integer fleet within small bounds, every
 *   assignment of machines to layer segments with an exact max-flow. */
#include "t.h"
#include "serve_cases.h"
#include "model.h"
#include "serve_search.h"
#include "lp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct catalog cat;

TEST(kv_bytes)
{
	const struct model_spec *m = catalog_model(&cat, "llama3.1-70b");
	CHECK(m != NULL);
	if (!m)
		return;
	/* 2 (K, V) x 80 layers x 8 KV heads x 128 dims x 2 bytes = 327,680 */
	CHECK_NEAR(serve_kv_bytes_per_token(m, SKV_BF16), 327680, 1e-12);
	CHECK_NEAR(serve_kv_bytes_per_token(m, SKV_FP8), 163840, 1e-12);
	/* TP 8: one KV head per GPU: 2 x 80 x 1 x 128 x 2 = 40,960 */
	CHECK_NEAR(serve_stage_kv_bytes_per_token(m, 0, 80, 8, SKV_BF16), 40960, 1e-12);
	/* TP 16 > 8 KV heads: each head is replicated, still one per GPU */
	CHECK_NEAR(serve_stage_kv_bytes_per_token(m, 0, 80, 16, SKV_BF16), 40960, 1e-12);
	const struct model_spec *d = catalog_model(&cat, "deepseek-v3");
	CHECK(d != NULL);
	if (d) /* MLA: 61 layers x (512 latent + 64 rope) x 2 bytes = 70,272 */
		CHECK_NEAR(serve_kv_bytes_per_token(d, SKV_BF16), 70272, 1e-12);
}

/* Every preset with public weights names its Hugging Face repository as
 * the publisher spells it (tests/data/serving_hf_ids.txt, from the models'
 * own pages); the launch lines load that id. */
TEST(hf_ids)
{
	FILE *f = fopen("tests/data/serving_hf_ids.txt", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char line[256], name[64], repo[128];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		if (*line == '#' || sscanf(line, "%63s %127s", name, repo) != 2)
			continue;
		const struct model_spec *m = catalog_model(&cat, name);
		CHECK(m != NULL);
		if (!m)
			continue;
		if (strcmp(m->hf_id, repo))
			T_FAILF("%s: hf_id '%s', its repository is '%s'", name, m->hf_id, repo);
		n++;
	}
	fclose(f);
	CHECK_EQ_INT(n, 12);
}

/* The AMD parts serving plans run on, with their datasheet figures (AMD
 * Instinct product pages: MI300X 192 GB HBM3, 5.3 TB/s, 1307.4 TFLOPS
 * dense FP16/BF16, 2614.9 FP8; MI325X 256 GB HBM3E, 6.0 TB/s, the same
 * compute; MI250X 128 GB HBM2e, 3.2768 TB/s, 383 TFLOPS FP16/BF16), and
 * a 70B model served on each: a decode step cannot read the weights
 * faster than the datasheet bandwidth. */
TEST(amd_gpus)
{
	static const struct { const char *name; double gb, tbps, bf16, fp8; int tp; } amd[] = {
		{ "MI300X", 192, 5.3, 1307.4, 2614.9, 1 },
		{ "MI325X", 256, 6.0, 1307.4, 2614.9, 1 },
		{ "MI250X", 128, 3.2768, 383.0, 0, 2 },
	};
	const struct model_spec *m = catalog_model(&cat, "llama3.1-70b");
	CHECK(m != NULL);
	for (size_t i = 0; m && i < HP_ARRAY_LEN(amd); i++) {
		const struct gpu_spec *g = catalog_gpu(&cat, amd[i].name);
		CHECK(g != NULL);
		if (!g)
			continue;
		CHECK_NEAR(g->mem_bytes, amd[i].gb * 1e9, 1e-9);
		CHECK_NEAR(g->hbm_Bps, amd[i].tbps * 1e12, 0.002);
		CHECK_NEAR(g->flops[HP_BF16], amd[i].bf16 * 1e12, 1e-9);
		if (amd[i].fp8 > 0)
			CHECK_NEAR(g->flops[HP_FP8], amd[i].fp8 * 1e12, 1e-9);
		CHECK(g->gen == GEN_CDNA);
		struct pool p;
		serve_pool_from_gpu(&p, g, 1);
		struct serve_config cfg = { amd[i].tp, 1, SW_BF16, SKV_BF16, ENGINE_VLLM, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
		struct serve_load ld = { 1000, 200, 0, 0, 0, 0 };
		struct serve_result r;
		struct hp_err err = { 0 };
		CHECK(serve_evaluate(&p, m, &cfg, &ld, NULL, &r, &err) == 0);
		CHECK(r.fits);
		/* 141.1 GB of bf16 weights (70.6e9 parameters x 2 bytes) over
		 * tp GPUs at the datasheet bandwidth */
		double floor_s = 141.1e9 / amd[i].tp / (amd[i].tbps * 1e12);
		if (!(r.tpot_min_s >= floor_s && r.tpot_min_s <= 3 * floor_s))
			T_FAILF("%s: TPOT %.2f ms at batch 1, weights alone take %.2f ms", amd[i].name,
				r.tpot_min_s * 1e3, floor_s * 1e3);
	}
}

/* bf16 weights per GPU generation. vLLM's CUDA platform lists bf16 among
 * a GPU's dtypes from compute capability 8.0 only (vllm/platforms/cuda.py
 * @1c0d9ecf, CudaPlatformBase.supported_dtypes: "Pascal, Volta and Turing
 * NVIDIA GPUs, BF16 is not supported"); NVIDIA's CUDA GPU list gives V100
 * 7.0, T4 7.5, A100 8.0, H100 9.0. A named bf16 is refused below 8.0 (exit
 * 3, naming the GPU); the default bf16 runs there as fp16, as vLLM's --dtype
 * auto picks the platform's first supported dtype. */
TEST(bf16_pre_ampere)
{
	static const struct { const char *name; int bf16; } gpus[] = {
		{ "V100-SXM2-32GB", 0 }, { "T4", 0 }, { "A100-SXM4-80GB", 1 }, { "H100-SXM", 1 },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(gpus); i++) {
		const struct gpu_spec *g = catalog_gpu(&cat, gpus[i].name);
		CHECK(g != NULL);
		if (!g)
			continue;
		struct serve_config cfg = { 0 };
		cfg.wprec = SW_BF16;
		CHECK(serve_wprec_on(&cfg, g) == (gpus[i].bf16 ? SW_BF16 : SW_FP16));
		cfg.wprec_given = 1;
		CHECK(serve_wprec_on(&cfg, g) == SW_BF16);
		struct hp_err e = { 0 };
		int rc = serve_wprec_supported(g, serve_wprec_on(&cfg, g), &e);
		CHECK(rc == (gpus[i].bf16 ? 0 : -1));
		if (!gpus[i].bf16) {
			CHECK(e.code == HP_EXIT_INPUT);
			CHECK(strstr(e.msg, g->name) && strstr(e.msg, "--precision bf16"));
		}
		cfg.wprec = SW_FP16;   /* fp16 runs everywhere here */
		CHECK(serve_wprec_supported(g, serve_wprec_on(&cfg, g), NULL) == 0);
		/* The KV cache alike: vLLM's --kv-cache-dtype auto follows the
		 * model dtype, fp16 below 8.0; a named bf16 cache is refused
		 * there, naming --kv-precision and the GPU. */
		cfg.kvprec = SKV_BF16;
		CHECK(serve_kvprec_on(&cfg, g) == (gpus[i].bf16 ? SKV_BF16 : SKV_FP16));
		CHECK(serve_prec_supported(g, &cfg, NULL) == 0);
		cfg.kvprec_given = 1;
		CHECK(serve_kvprec_on(&cfg, g) == SKV_BF16);
		memset(&e, 0, sizeof e);
		rc = serve_prec_supported(g, &cfg, &e);
		CHECK(rc == (gpus[i].bf16 ? 0 : -1));
		if (!gpus[i].bf16) {
			CHECK(e.code == HP_EXIT_INPUT);
			CHECK(strstr(e.msg, g->name) && strstr(e.msg, "--kv-precision bf16"));
		}
		cfg.kvprec = SKV_FP8;  /* fp8 is no bf16 question */
		CHECK(serve_kvprec_supported(g, serve_kvprec_on(&cfg, g), NULL) == 0);
	}
}

TEST(weights)
{
	const struct model_spec *m = catalog_model(&cat, "llama3.1-8b");
	CHECK(m != NULL);
	if (!m)
		return;
	/* Llama-3.1-8B has 8,030,261,248 parameters (Hugging Face model card
	 * / safetensors index): 16.06 GB in bf16 */
	CHECK_NEAR(serve_stage_weight_bytes(m, 0, 32, 1, 1, 1, SW_BF16), 16060522496.0, 0.005);
	/* fp8 linear layers, 16-bit embedding and output (2 x 128256 x 4096) */
	double emb = 2.0 * 128256 * 4096;
	CHECK_NEAR(serve_stage_weight_bytes(m, 0, 32, 1, 1, 1, SW_FP8),
		   (8030261248.0 - emb) * 1 + emb * 2, 0.005);
}

/* Meta's FP8 recipe (fp8-mlp): FP8 only in feed_forward w1/w3/w2 of layers
 * 1 to n-2 (meta-llama/llama-models, models/llama3/quantization/loader.py).
 * Llama 3.1 405B by hand: hidden 16,384, FFN 53,248, 126 layers, 128 query
 * and 8 KV heads of 128, vocab 128,256. MLP 3 x 16384 x 53248 =
 * 2,617,245,696 a layer, attention 16384 x (2 x 16384 + 2 x 1024) =
 * 570,425,344. 124 inner MLPs at 1 byte 324,538,466,304; 126 attention
 * blocks at 2 bytes 143,747,186,688; the 2 edge MLPs at 2 bytes
 * 10,468,982,784; embedding and output 2 x 128256 x 16384 x 2 =
 * 8,405,385,216: 487.16 GB, against 410.05 GB with FP8 in every linear
 * layer (norms, 2 x 16384 a layer, are under 0.01%). */
TEST(weights_fp8_mlp)
{
	const struct model_spec *m = catalog_model(&cat, "llama3.1-405b");
	CHECK(m != NULL);
	if (!m)
		return;
	enum serve_wprec w;
	CHECK(serve_wprec_parse("fp8-mlp", &w) == 0 && w == SW_FP8_MLP);
	CHECK(!strcmp(serve_wprec_name(SW_FP8_MLP), "fp8-mlp"));
	CHECK_NEAR(serve_stage_weight_bytes(m, 0, 126, 1, 1, 1, SW_FP8_MLP), 487164215296.0, 0.001);
	CHECK_NEAR(serve_stage_weight_bytes(m, 0, 126, 1, 1, 1, SW_FP8), 410056065024.0, 0.001);
	/* an inner stage (layers 10-19, no edge layer), per GPU at TP 8:
	 * 10 x (2,617,245,696 + 2 x 570,425,344) / 8 */
	CHECK_NEAR(serve_stage_weight_bytes(m, 10, 20, 0, 0, 8, SW_FP8_MLP),
		   10 * (2617245696.0 + 2 * 570425344.0) / 8, 0.001);
	/* the first stage of two holds layer 0, whose MLP stays 16-bit */
	CHECK(serve_wprec_edge16(SW_FP8_MLP, 126, 0, 63) == 1 &&
	      serve_wprec_edge16(SW_FP8_MLP, 126, 63, 126) == 1 &&
	      serve_wprec_edge16(SW_FP8_MLP, 126, 0, 126) == 2 &&
	      serve_wprec_edge16(SW_FP8, 126, 0, 126) == 0);
	/* the extra 77.1 GB of weights on 8 x H100 come out of the KV pool:
	 * 9.64 GB a GPU at 64.5 KB of bf16 KV per token per GPU (126 layers x
	 * 2 x 1 KV head x 128 x 2 bytes) is 149,400 tokens */
	const struct gpu_spec *g = catalog_gpu(&cat, "H100-SXM");
	CHECK(g != NULL);
	if (!g)
		return;
	struct pool p;
	serve_pool_from_gpu(&p, g, 1);
	struct serve_config c = { 0 };
	c.tp = 8;
	c.pp = 1;
	c.engine = ENGINE_VLLM;
	struct serve_load ld = { 2048, 2048, 0, 0, 0, 0 };
	struct serve_result r8, rm;
	struct hp_err err = { 0 };
	c.wprec = SW_FP8;
	CHECK(serve_evaluate(&p, m, &c, &ld, NULL, &r8, &err) == 0);
	c.wprec = SW_FP8_MLP;
	CHECK(serve_evaluate(&p, m, &c, &ld, NULL, &rm, &err) == 0);
	CHECK_NEAR(r8.kv_capacity_tokens - rm.kv_capacity_tokens,
		   (487164215296.0 - 410056065024.0) / 8 / (126 * 2 * 128 * 2.0), 0.01);
}

/* NCCL's NVLS buffers (vLLM issue #9699, 8 x H200, Llama 3.1 405B TP 8):
 * 17,595 KV blocks with NVLS on, 22,7xx with NCCL_NVLS_ENABLE=0, so at
 * least 5,105 blocks of 16 tokens x 126 layers x 1 KV head x 128 x 2
 * (K, V) x 2 bytes = 1,032,192 bytes: 5.27-5.37 GB a GPU; NCCL's own log
 * line there gives 2,415,919,104 bytes per 8-rank communicator. NCCL
 * enables NVLS for more than 2 GPUs on Hopper and later behind an
 * NVSwitch only; the other engines are not charged. */
TEST(nvls_reserve)
{
	const struct gpu_spec *h = catalog_gpu(&cat, "H100-SXM");
	const struct gpu_spec *a = catalog_gpu(&cat, "A100-SXM4-80GB");
	const struct gpu_spec *hp = catalog_gpu(&cat, "H100-PCIe");
	const struct gpu_spec *mi = catalog_gpu(&cat, "MI300X");
	const struct model_spec *m = catalog_model(&cat, "llama3.1-405b");
	CHECK(h && a && hp && mi && m);
	if (!h || !a || !hp || !mi || !m)
		return;
	struct pool p;
	serve_pool_from_gpu(&p, h, 1);
	double b8 = serve_nvls_bytes(&p, ENGINE_VLLM, 8);
	CHECK(b8 >= 2415919104.0 && b8 >= 5105 * 1032192.0 * 0.999 && b8 <= 5204 * 1032192.0);
	CHECK(serve_nvls_bytes(&p, ENGINE_VLLM, 2) == 0);
	CHECK(serve_nvls_bytes(&p, ENGINE_VLLM, 1) == 0);
	CHECK(serve_nvls_bytes(&p, ENGINE_SGLANG, 8) == 0);
	CHECK(serve_nvls_bytes(&p, ENGINE_TRTLLM_ENGINE, 8) == 0);
	struct pool q;
	serve_pool_from_gpu(&q, a, 1);
	CHECK(serve_nvls_bytes(&q, ENGINE_VLLM, 8) == 0);
	serve_pool_from_gpu(&q, hp, 1);
	CHECK(serve_nvls_bytes(&q, ENGINE_VLLM, 2) == 0);
	serve_pool_from_gpu(&q, mi, 1);
	CHECK(serve_nvls_bytes(&q, ENGINE_VLLM, 8) == 0);
	/* Llama 3.1 405B fp8-mlp on 8 x H100, bf16 KV: the pool was 210,943
	 * tokens (docs/serving-round30.md); NVLS takes the 5,105 blocks of 16
	 * tokens the issue measured, 81,680 tokens */
	struct serve_config c = { 0 };
	c.tp = 8;
	c.pp = 1;
	c.wprec = SW_FP8_MLP;
	c.engine = ENGINE_VLLM;
	struct serve_load ld = { 2048, 2048, 0, 0, 0, 0 };
	struct serve_result r;
	struct hp_err err = { 0 };
	CHECK(serve_evaluate(&p, m, &c, &ld, NULL, &r, &err) == 0);
	CHECK_NEAR(r.kv_capacity_tokens, 210943.0 - 5105 * 16, 0.0001);
}

/* vllm-rocm-0.6 (upstream vLLM before its custom ROCm paged attention):
 * vLLM PR #16426 measured the end-to-end latency of Mistral-7B FP8-KV,
 * 2,048 in, 128 out, batch 128 on an MI300-class GPU 2-3x longer without
 * the custom kernel. The build's factor must reproduce that on the same
 * shape (Llama 3.1 8B: Mistral 7B's layers, heads and FFN), and change
 * nothing on NVIDIA or for another engine. */
TEST(vllm_rocm_06)
{
	const struct model_spec *m = catalog_model(&cat, "llama3.1-8b");
	const struct gpu_spec *mi = catalog_gpu(&cat, "MI300X"), *h = catalog_gpu(&cat, "H100-SXM");
	CHECK(m && mi && h);
	if (!m || !mi || !h)
		return;
	enum serve_build b;
	CHECK(serve_build_parse("vllm-rocm-0.6", &b) == 0 && b == BUILD_VLLM_ROCM_06);
	struct serve_config c = { 0 };
	c.tp = c.pp = 1;
	c.engine = ENGINE_VLLM;
	c.wprec = SW_FP8;
	c.kvprec = SKV_FP8;
	c.prefill_apart = 1;
	c.build = BUILD_VLLM_ROCM_06;
	CHECK(serve_dec_attn_x(&c, h, m) == 1);
	c.engine = ENGINE_SGLANG;
	CHECK(serve_dec_attn_x(&c, mi, m) == 1);
	c.engine = ENGINE_VLLM;
	CHECK(serve_dec_attn_x(&c, mi, m) > 1);
	struct pool p;
	serve_pool_from_gpu(&p, mi, 1);
	double isl[128], osl[128];
	for (int i = 0; i < 128; i++) {
		isl[i] = 2048;
		osl[i] = 128;
	}
	struct serve_burst_result old, cur;
	struct hp_err err = { 0 };
	CHECK(serve_burst(&p, m, &c, 128, isl, osl, NULL, &old, &err) == 0);
	c.build = BUILD_CURRENT;
	CHECK(serve_burst(&p, m, &c, 128, isl, osl, NULL, &cur, &err) == 0);
	double x = old.makespan_s / cur.makespan_s;
	CHECK(x >= 2 && x <= 3);
	printf("  vllm-rocm-0.6 on PR #16426's shape: %.2f s vs %.2f s, %.2fx (measured 2-3x)\n",
	       old.makespan_s, cur.makespan_s, x);
}

/* The tensorrt-llm-0.7 build (TensorRT-LLM before XQA, serve_perf.c
 * builds[]): decode attention reads each KV head once per query head of
 * its group. The groups from the models' config.json files: Llama 2 70B
 * and Llama 3.1 70B 64 attention heads over 8 key/value heads (x8),
 * Llama 2 13B 40 over 40 (x1: multi-head, the build changes nothing). A
 * build of tensorrt-llm-engine only: under tensorrt-llm (the PyTorch
 * backend, which came after XQA) or vllm it leaves the factor at 1. */
TEST(trtllm_pre_xqa)
{
	const struct model_spec *m70 = catalog_model(&cat, "llama2-70b"),
				*m31 = catalog_model(&cat, "llama3.1-70b"),
				*m13 = catalog_model(&cat, "llama2-13b");
	const struct gpu_spec *h = catalog_gpu(&cat, "H200-SXM");
	CHECK(m70 && m31 && m13 && h);
	if (!m70 || !m31 || !m13 || !h)
		return;
	enum serve_build b = BUILD_CURRENT;
	CHECK(serve_build_parse("tensorrt-llm-0.7", &b) == 0 && b == BUILD_TRTLLM_PRE_XQA);
	struct serve_config c = { 0 };
	c.tp = c.pp = 1;
	c.engine = ENGINE_TRTLLM_ENGINE;
	c.wprec = SW_FP8;
	c.kvprec = SKV_FP8;
	CHECK(serve_dec_attn_x(&c, h, m70) == 1);   /* current: XQA */
	c.build = b;
	CHECK(serve_dec_attn_x(&c, h, m70) == 8);
	CHECK(serve_dec_attn_x(&c, h, m31) == 8);
	CHECK(serve_dec_attn_x(&c, h, m13) == 1);
	c.engine = ENGINE_TRTLLM;
	CHECK(serve_dec_attn_x(&c, h, m70) == 1);
	c.engine = ENGINE_VLLM;
	CHECK(serve_dec_attn_x(&c, h, m70) == 1);
	c.engine = ENGINE_TRTLLM_ENGINE;
	/* the same rule as serve_trtllm_pre_xqa: the two give one factor */
	struct serve_config r = { 0 };
	r.engine = ENGINE_TRTLLM_ENGINE;
	serve_trtllm_pre_xqa(&r, m70);
	CHECK(serve_dec_attn_x(&r, h, m70) == serve_dec_attn_x(&c, h, m70));
	/* offline saturation on one H200, 128 in / 2,048 out: 13B unchanged,
	 * 70B slower, by less than the group (weights and GEMMs unchanged) */
	struct pool p;
	serve_pool_from_gpu(&p, h, 1);
	struct serve_load ld = { 128, 2048, 0, 0, 0, 0 };
	struct serve_result a, x;
	struct hp_err err = { 0 };
	c.build = BUILD_CURRENT;
	CHECK(serve_evaluate(&p, m13, &c, &ld, NULL, &a, &err) == 0 && a.fits);
	c.build = b;
	CHECK(serve_evaluate(&p, m13, &c, &ld, NULL, &x, &err) == 0 && x.fits);
	CHECK(x.out_tps_max == a.out_tps_max);
	c.build = BUILD_CURRENT;
	CHECK(serve_evaluate(&p, m70, &c, &ld, NULL, &a, &err) == 0 && a.fits);
	c.build = b;
	CHECK(serve_evaluate(&p, m70, &c, &ld, NULL, &x, &err) == 0 && x.fits);
	CHECK(x.out_tps_max < a.out_tps_max && a.out_tps_max / x.out_tps_max < 8);
}

TEST(erlang_c)
{
	/* c = 1: P(wait) = rho */
	CHECK_NEAR(serve_erlang_c(1, 0.7), 0.7, 1e-12);
	/* c = 2, a = 1: B = (1/2)/(1 + 1 + 1/2) = 0.2, C = 0.2/(1 - 0.5*0.8) = 1/3 */
	CHECK_NEAR(serve_erlang_c(2, 1.0), 1.0 / 3, 1e-12);
	/* far below capacity the wait probability vanishes */
	CHECK(serve_erlang_c(1000, 100) < 1e-12);
}

/* One llama3.1-8b instance (TP 1, bf16, vLLM) on one H100 SXM, 1,000
 * prompt and 200 output tokens at rate requests/s (0: offline). */
struct h100_8b {
	const struct model_spec *m;
	const struct gpu_spec *g;
	struct pool p;
	struct serve_config cfg;
	struct serve_load ld;
};

/* Returns -1 (f->m NULL) when the catalog lacks the model or the GPU. */
static int h100_8b_init(struct h100_8b *f, double rate)
{
	const struct serve_config cfg = { 1, 1, SW_BF16, SKV_BF16, ENGINE_VLLM, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	const struct serve_load ld = { 1000, 200, rate, 0, 0, 0 };
	memset(f, 0, sizeof *f);
	f->m = catalog_model(&cat, "llama3.1-8b");
	f->g = catalog_gpu(&cat, "H100-SXM");
	if (!f->m || !f->g) {
		f->m = NULL;
		return -1;
	}
	serve_pool_from_gpu(&f->p, f->g, 1);
	f->cfg = cfg;
	f->ld = ld;
	return 0;
}

/* serve_config.per_seq_s: another engine version's host time per running
 * sequence replaces the profile's (vllm: 10 us). A static batch of 16
 * equal requests with prompts apart runs every decode iteration with all
 * 16 sequences, so 1 ms a sequence adds 16 x (1 ms - 10 us) = 15.84 ms to
 * each iteration, hence to the mean ITL; with 8 steps a call the whole
 * host time is paid once per call (vLLM RFC #6854), 15.84 / 8 = 1.98 ms.
 * serve_vllm_v0 gives 8 ms + 35 us (src/serve_perf.h), so against the
 * profile's 1 ms + 10 us: 7 ms + 16 x 25 us = 7.4 ms. */
TEST(per_seq_host)
{
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 0) == 0);
	if (!f.m)
		return;
	double isl[16], osl[16];
	for (int i = 0; i < 16; i++) {
		isl[i] = 128;
		osl[i] = 64;
	}
	f.cfg.prefill_apart = 1;
	f.cfg.max_batch = 16;
	struct serve_burst_result b0, b1, b8a, b8b, bv;
	struct hp_err err = { 0 };
	CHECK(serve_burst(&f.p, f.m, &f.cfg, 16, isl, osl, NULL, &b0, &err) == 0 && b0.fits);
	struct serve_config c1 = f.cfg;
	c1.per_seq_s = 1e-3;
	CHECK(serve_per_seq_overhead(&c1) == 1e-3);
	CHECK(serve_per_seq_overhead(&f.cfg) == 10e-6);
	CHECK(serve_burst(&f.p, f.m, &c1, 16, isl, osl, NULL, &b1, &err) == 0 && b1.fits);
	CHECK_NEAR(b1.itl_mean_s - b0.itl_mean_s, 15.84e-3, 1e-6);
	struct serve_config c8 = f.cfg;
	c8.sched_steps = 8;
	CHECK(serve_burst(&f.p, f.m, &c8, 16, isl, osl, NULL, &b8a, &err) == 0 && b8a.fits);
	c8.per_seq_s = 1e-3;
	CHECK(serve_burst(&f.p, f.m, &c8, 16, isl, osl, NULL, &b8b, &err) == 0 && b8b.fits);
	CHECK_NEAR(b8b.itl_mean_s - b8a.itl_mean_s, 15.84e-3 / 8, 1e-6);
	struct serve_config cv = f.cfg;
	serve_vllm_v0(&cv);
	CHECK(serve_burst(&f.p, f.m, &cv, 16, isl, osl, NULL, &bv, &err) == 0 && bv.fits);
	CHECK_NEAR(bv.itl_mean_s - b0.itl_mean_s, 7e-3 + 16 * 25e-6, 1e-6);
	/* The vllm-v0 engine build carries the same two terms (the profile's
	 * 1 ms and 10 us become 8 ms and 35 us: + 7 ms + 16 x 25 us an
	 * iteration at 16 running), for vllm only: under sglang the build
	 * leaves the engine's own host time. */
	struct serve_config cb = f.cfg, bad = f.cfg;
	struct serve_burst_result bb;
	enum serve_build eb = BUILD_CURRENT;
	CHECK(serve_build_parse("vllm-v0", &eb) == 0);
	cb.build = eb;
	CHECK(serve_step_overhead(&cb) == 8e-3 && serve_per_seq_overhead(&cb) == 35e-6);
	CHECK(serve_burst(&f.p, f.m, &cb, 16, isl, osl, NULL, &bb, &err) == 0 && bb.fits);
	CHECK_NEAR(bb.itl_mean_s - b0.itl_mean_s, 7e-3 + 16 * 25e-6, 1e-6);
	bad.build = cb.build;
	bad.engine = ENGINE_SGLANG;
	CHECK(serve_step_overhead(&bad) == serve_engine(ENGINE_SGLANG)->step_overhead_s);
}

TEST(wait_tails)
{
	/* the arrival phase alone, uniform on [0, 0.1 s]: quantiles 0.05 and
	 * 0.099 */
	struct serve_wait w = { 0.1, 0, 0, 0, 0 };
	CHECK_NEAR(serve_wait_quantile(&w, 0.5), 0.05, 1e-6);
	CHECK_NEAR(serve_wait_quantile(&w, 0.99), 0.099, 1e-6);
	/* one wait, P(W > x) = 0.5 exp(-x / 0.2): the p99 solves 0.5 e^(-x/0.2)
	 * = 0.01, x = 0.2 ln 50 = 0.782405; the p80, 0.2 ln 2.5 = 0.183258 */
	struct serve_wait w1 = { 0, 0.5, 0.2, 0, 0 };
	CHECK_NEAR(serve_wait_quantile(&w1, 0.99), 0.782405, 1e-5);
	CHECK_NEAR(serve_wait_quantile(&w1, 0.8), 0.183258, 1e-5);
	/* uniform on [0, 0.1] plus an exponential of mean 0.1 that always
	 * waits: for x >= 0.1, P(> x) = (1/0.1) x integral of e^(-10 y) over
	 * [x - 0.1, x] = e^(-10 x) (e - 1); = 0.01 at x = ln(100 (e - 1)) / 10
	 * = 0.514650 */
	struct serve_wait w2 = { 0.1, 1, 0.1, 0, 0 };
	CHECK_NEAR(serve_wait_quantile(&w2, 0.99), 0.514650, 1e-5);
	/* two waits of mean 0.1 that always wait: Erlang-2, 2 S / 0.1 is
	 * chi-square with 4 degrees of freedom, whose 0.99 quantile is 13.277
	 * (statistical tables): x = 0.1 x 13.277 / 2 = 0.66385 */
	struct serve_wait w3 = { 0, 1, 0.1, 1, 0.1 };
	CHECK_NEAR(serve_wait_quantile(&w3, 0.99), 0.66385, 1e-4);
	/* means 0.1 and 0.2: P(> x) = (0.2 e^(-5x) - 0.1 e^(-10x)) / 0.1 =
	 * 2z - z^2 with z = e^(-5x); = 0.01 at z = 1 - sqrt(0.99), x =
	 * -ln(1 - sqrt(0.99)) / 5 = 1.059162 */
	struct serve_wait w4 = { 0, 1, 0.1, 1, 0.2 };
	CHECK_NEAR(serve_wait_quantile(&w4, 0.99), 1.059162, 1e-5);
	/* the mean of a sum is the sum of the means: integral of the tail =
	 * 0.03/2 + 0.4 x 0.05 + 0.2 x 0.3 = 0.095 (midpoint rule, 10 us
	 * steps to 5 s, where the tail is below 1e-7) */
	struct serve_wait w5 = { 0.03, 0.4, 0.05, 0.2, 0.3 };
	double area = 0;
	for (int i = 0; i < 500000; i++)
		area += serve_wait_tail(&w5, (i + 0.5) * 1e-5) * 1e-5;
	CHECK_NEAR(area, 0.095, 1e-4);

	/* One llama3.1-8b instance on an H100 at 1 request/s: the batch holds
	 * ~0.2 x 1 + 0.04 sequences, so the slot and prefill waits are ~0 and
	 * the TTFT spread is the arrival phase alone, uniform over one
	 * iteration: p99 - p50 = (0.99 - 0.5) x the iteration time (the mean
	 * TPOT). */
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 1.0) == 0);
	if (!f.m)
		return;
	struct serve_result r;
	struct hp_err err = { 0 };
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &r, &err) == 0 && r.fits);
	CHECK_NEAR(r.ttft_s.p99 - r.ttft_s.p50, 0.49 * r.tpot_s.mean, 0.02);
	CHECK(r.ttft_s.p50 <= r.ttft_s.mean * 1.0001 && r.ttft_s.mean < r.ttft_s.p99);
}

TEST(decode_physics)
{
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 0) == 0);
	if (!f.m)
		return;
	struct serve_result r;
	struct hp_err err = { 0 };
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &r, &err) == 0);
	CHECK(r.fits);
	/* 16.06 GB of weights over 3.35 TB/s (datasheet) = 4.79 ms per token
	 * at batch 1: no model may beat it, and a sane one stays within 2x */
	CHECK(r.tpot_min_s >= 16.06e9 / 3.35e12);
	CHECK(r.tpot_min_s <= 2 * 16.06e9 / 3.35e12);
	/* 81,559 MiB (nvidia-smi on an H100 SXM 80GB) = 85.5e9 bytes, 16 GB
	 * of weights, 128 KiB of KV per token (2 x 32 x 8 x 128 x 2): fewer
	 * than (85.5e9 - 16.06e9) / 131072 = 530k tokens fit */
	CHECK(r.kv_capacity_tokens > 0 && r.kv_capacity_tokens < (85.5e9 - 16.06e9) / 131072);
	/* a 405B model in bf16 (810 GB) does not fit on 8 x 80 GB */
	const struct model_spec *big = catalog_model(&cat, "llama3.1-405b");
	f.cfg.tp = 8;
	serve_pool_from_gpu(&f.p, f.g, 1);
	CHECK(big && serve_evaluate(&f.p, big, &f.cfg, &f.ld, NULL, &r, &err) == 0);
	CHECK(!r.fits);
	CHECK(r.why[0] != 0);
	/* fp4 needs Blackwell */
	f.cfg.wprec = SW_FP4;
	f.cfg.tp = 1;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "FP4");
}

/* Prompts in iterations of their own (vLLM before V1 with chunked prefill
 * off) and multi-step scheduling, on the llama3.1-8b / H100 instance. */
TEST(prefill_apart)
{
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 0) == 0);
	if (!f.m)
		return;
	struct serve_result mixed, apart;
	struct hp_err err = { 0 };
	/* vLLM's rule (vllm/core/scheduler.py _schedule_default, @ 0dce2b2:
	 * "Don't schedule decodes if prefills are scheduled"): a prompt never
	 * shares the weight read of a decode iteration, so offline output
	 * tokens/s cannot rise and, at the same rate, the mean TPOT cannot
	 * fall */
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &mixed, &err) == 0 && mixed.fits);
	struct serve_config ca = f.cfg;
	ca.prefill_apart = 1;
	CHECK(serve_evaluate(&f.p, f.m, &ca, &f.ld, NULL, &apart, &err) == 0 && apart.fits);
	CHECK(apart.out_tps_max <= mixed.out_tps_max);
	f.ld.rate = 0.5 * apart.req_s_max;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &mixed, &err) == 0);
	CHECK(serve_evaluate(&f.p, f.m, &ca, &f.ld, NULL, &apart, &err) == 0);
	CHECK(apart.tpot_s.mean >= mixed.tpot_s.mean);
	/* Multi-step scheduling (num_scheduler_steps S): a prompt that arrives
	 * during a run of S decode iterations waits for the run to end, on
	 * average half of it, (S - 1) x d / 2 more than with S = 1; one that
	 * arrives to an idle engine is scheduled at once. Nearly alone (0.01
	 * req/s, about 0.02 sequences running, busy 2% of the time) the
	 * difference is about 2% of (8 - 1) x d1 / 2: under a tenth of it */
	f.ld.rate = 0.01;
	struct serve_result s1, s8;
	CHECK(serve_evaluate(&f.p, f.m, &ca, &f.ld, NULL, &s1, &err) == 0);
	ca.sched_steps = 8;
	CHECK(serve_evaluate(&f.p, f.m, &ca, &f.ld, NULL, &s8, &err) == 0);
	CHECK(s8.ttft_s.mean >= s1.ttft_s.mean);
	CHECK(s8.ttft_s.mean - s1.ttft_s.mean < 0.1 * 3.5 * s1.tpot_min_s);
	/* and the decode runs uninterrupted: the mean TPOT is d1 less the
	 * host step the call pays once for its 8 iterations (multi-step
	 * scheduling, vLLM RFC #6854: every host overhead amortised): 7/8
	 * of the vllm profile's 1 ms + 10 us for the one sequence, 0.884 ms */
	CHECK_NEAR(s8.tpot_s.mean, s1.tpot_min_s - 7.0 / 8 * (1.0e-3 + 10e-6), 0.05);
	CHECK(s8.tpot_s.mean < s1.tpot_min_s);
	/* Busy (half the S = 1 capacity, many sequences running, the engine
	 * never idle): the prompt waits for the run, at least (8 - 1) x d1 / 2
	 * more (d at that batch is above d1) */
	ca.sched_steps = 1;
	f.ld.rate = 0.5 * apart.req_s_max;
	CHECK(serve_evaluate(&f.p, f.m, &ca, &f.ld, NULL, &s1, &err) == 0);
	ca.sched_steps = 8;
	CHECK(serve_evaluate(&f.p, f.m, &ca, &f.ld, NULL, &s8, &err) == 0);
	CHECK(s1.batch > 5);
	CHECK(s8.ttft_s.mean - s1.ttft_s.mean >= 3.5 * s1.tpot_min_s * 0.95);
}

/* SGLang runs waiting prompts before any decode ("Run prefill first if
 * possible", Scheduler.get_next_batch_to_run, sgl-project/sglang @
 * d51c1c2) and mixes prompt chunks into decode iterations only with
 * --enable-mixed-chunk, off by default; vLLM V1 and TensorRT-LLM's
 * in-flight batching mix them. So the sglang profile runs prompts apart
 * without being told, and a setting of prefill_apart changes nothing for
 * it. */
TEST(sglang_prefill_first)
{
	CHECK_EQ_INT(serve_engine(ENGINE_SGLANG)->prefill_first, 1);
	CHECK_EQ_INT(serve_engine(ENGINE_VLLM)->prefill_first, 0);
	CHECK_EQ_INT(serve_engine(ENGINE_TRTLLM)->prefill_first, 0);
	CHECK_EQ_INT(serve_engine(ENGINE_TRTLLM_ENGINE)->prefill_first, 0);
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 0) == 0);
	if (!f.m)
		return;
	struct hp_err err = { 0 };
	struct serve_result dflt, told;
	f.cfg.engine = ENGINE_SGLANG;
	struct serve_config ca = f.cfg;
	ca.prefill_apart = 1;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &dflt, &err) == 0 && dflt.fits);
	CHECK(serve_evaluate(&f.p, f.m, &ca, &f.ld, NULL, &told, &err) == 0 && told.fits);
	CHECK(dflt.out_tps_max == told.out_tps_max);
	f.ld.rate = 0.5 * dflt.req_s_max;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &dflt, &err) == 0);
	CHECK(serve_evaluate(&f.p, f.m, &ca, &f.ld, NULL, &told, &err) == 0);
	CHECK(dflt.tpot_s.mean == told.tpot_s.mean && dflt.ttft_s.mean == told.ttft_s.mean);
	/* A benchmark's median ITL pools every token gap (bench_serving:
	 * np.median(itls)). At 10% of saturation fewer than half the gaps
	 * hold a prefill call, so the median gap is a decode iteration alone,
	 * below the mean TPOT that spreads the prefill calls over every
	 * token; an engine that mixes prompts into the decodes has gaps all
	 * alike: its median gap is its TPOT */
	f.ld.rate = 0.1 * dflt.req_s_max;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &dflt, &err) == 0);
	CHECK(dflt.itl_p50_s < dflt.tpot_s.mean);
	CHECK(dflt.itl_p50_s >= dflt.tpot_min_s);
	f.cfg.engine = ENGINE_TRTLLM;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &dflt, &err) == 0);
	CHECK(dflt.itl_p50_s == dflt.tpot_s.p50);
}

TEST(buckets)
{
	struct serve_dist d;
	struct hp_err err = { 0 };
	CHECK(serve_dist_parse("1500", &d, &err) == 0 && d.kind == DIST_FIXED && d.a == 1500);
	CHECK(serve_dist_parse("lognormal:1000:1", &d, &err) == 0);
	/* lognormal median = mean / sqrt(1 + cv^2) = 1000 / sqrt(2) = 707.1 */
	CHECK_NEAR(serve_dist_quantile(&d, 0.5), 707.107, 1e-3);
	CHECK(serve_dist_parse("uniform:100:300", &d, &err) == 0);
	CHECK_NEAR(serve_dist_quantile(&d, 0.25), 150, 1e-12);
	CHECK(serve_dist_parse("exp:200", &d, &err) == 0);
	/* exponential median = mean ln 2 */
	CHECK_NEAR(serve_dist_quantile(&d, 0.5), 200 * log(2), 1e-12);
	CHECK(serve_dist_parse("0", &d, &err) < 0);
	CHECK(serve_dist_parse("lognormal:100", &d, &err) < 0);
	CHECK(serve_dist_parse("uniform:300:100", &d, &err) < 0);
	CHECK(serve_dist_parse("weibull:1:2", &d, &err) < 0);
	CHECK(serve_dist_parse("1e99", &d, &err) < 0);
	struct serve_dist a, b;
	serve_dist_parse("uniform:100:300", &a, &err);
	serve_dist_parse("500", &b, &err);
	struct serve_bucket bk[SERVE_MAX_BUCKETS];
	int n = serve_buckets(&a, &b, 4, 5, bk);
	CHECK_EQ_INT(n, 4);   /* a fixed OSL gives one OSL bin */
	/* bin midpoints of U(100, 300) in quarters: 125, 175, 225, 275 */
	CHECK_NEAR(bk[0].isl, 125, 1e-12);
	CHECK_NEAR(bk[3].isl, 275, 1e-12);
	CHECK_NEAR(bk[2].share, 0.25, 1e-12);
}

/* --- fleet: brute force ---------------------------------------------------- */

static unsigned rng = 12345;
static double urand(void)
{
	rng = rng * 1103515245u + 12345u;
	return ((rng >> 8) & 0xffff) / 65536.0;
}

TEST(fleet_brute_force)
{
	/* 3 candidates on 2 pools, one bucket: a fleet is feasible iff
	 * sum_k y_k mu_k >= lambda within the pools' GPUs. */
	for (int trial = 0; trial < 40; trial++) {
		double cost[3], mu[3], rate[1];
		int gpus[3], pool[3] = { 0, 0, 1 }, lim[2];
		for (int k = 0; k < 3; k++) {
			cost[k] = 1 + 20 * urand();
			mu[k] = 0.5 + 10 * urand();
			gpus[k] = 1 << (int)(3 * urand());
		}
		lim[0] = 8 + (int)(16 * urand());
		lim[1] = 4 + (int)(8 * urand());
		rate[0] = 5 + 40 * urand();
		double best = HUGE_VAL;
		for (int a = 0; a * gpus[0] <= lim[0]; a++)
			for (int b = 0; a * gpus[0] + b * gpus[1] <= lim[0]; b++)
				for (int c = 0; c * gpus[2] <= lim[1]; c++) {
					if (a * mu[0] + b * mu[1] + c * mu[2] < rate[0] - 1e-9)
						continue;
					double v = a * cost[0] + b * cost[1] + c * cost[2];
					if (v < best)
						best = v;
				}
		struct fleet_problem fp = { 3, 1, 2, cost, gpus, pool, mu, rate, lim, SERVE_OBJ_COST, NULL, NULL, NULL };
		struct fleet_solution fs;
		struct hp_err err = { 0 };
		CHECK(serve_fleet_solve(&fp, &fs, &err) == 0);
		if (isinf(best)) {
			CHECK(fs.status == 2 /* LP_INFEASIBLE */);
			continue;
		}
		CHECK_EQ_INT(fs.status, 0);
		CHECK_NEAR(fs.obj, best, 1e-6);
		/* and the routed rates respect every copy's capacity */
		for (int k = 0; k < 3; k++)
			CHECK(fs.route[k][0] <= fs.count[k] * mu[k] + 1e-6);
	}
}

TEST(fleet_two_buckets)
{
	/* Bucket 0 only on candidates 0/1, bucket 1 only on candidate 2 (mu 0
	 * elsewhere): the problem splits, and each part is brute-forced. */
	double cost[3] = { 3, 5, 2 }, rate[2] = { 7, 4 };
	double mu[6] = { 2, 0, 3, 0, 0, 1.5 };
	int gpus[3] = { 1, 2, 1 }, pool[3] = { 0, 0, 1 }, lim[2] = { 100, 100 };
	/* part 0: min 3a + 5b s.t. 2a + 3b >= 7: (2,1) = 11, (4,0) = 12,
	 * (0,3) = 15, (1,2) = 13 -> 11; part 1: c >= 4/1.5 -> c = 3, cost 6 */
	struct fleet_problem fp = { 3, 2, 2, cost, gpus, pool, mu, rate, lim, SERVE_OBJ_COST, NULL, NULL, NULL };
	struct fleet_solution fs;
	struct hp_err err = { 0 };
	CHECK(serve_fleet_solve(&fp, &fs, &err) == 0);
	CHECK_EQ_INT(fs.status, 0);
	CHECK_NEAR(fs.obj, 17, 1e-9);
	CHECK_EQ_INT(fs.count[2], 3);
	/* throughput mode with pool 1 capped at 2 GPUs: bucket 1 limits
	 * alpha to 2 x 1.5 / 4 = 0.75 */
	lim[1] = 2;
	fp.objective = SERVE_OBJ_THROUGHPUT;
	CHECK(serve_fleet_solve(&fp, &fs, &err) == 0);
	CHECK_NEAR(fs.alpha, 0.75, 1e-6);
}

TEST(fleet_disaggregated)
{
	/* A colocated candidate, a prefill-only and a decode-only one, one
	 * pool, one bucket. z_co + z_P = lambda, z_P = z_D, z <= y mu: a
	 * fleet is feasible iff y_co mu_co + min(y_P mu_P, y_D mu_D) >= lambda. */
	for (int trial = 0; trial < 40; trial++) {
		double cost[3], mu[3], rate[1];
		int gpus[3], pool[3] = { 0, 0, 0 }, lim[1], role[3] = { ROLE_BOTH, ROLE_PREFILL, ROLE_DECODE };
		for (int k = 0; k < 3; k++) {
			cost[k] = 1 + 20 * urand();
			mu[k] = 0.5 + 10 * urand();
			gpus[k] = 1 << (int)(3 * urand());
		}
		lim[0] = 8 + (int)(24 * urand());
		rate[0] = 2 + 30 * urand();
		double best = HUGE_VAL;
		for (int a = 0; a * gpus[0] <= lim[0]; a++)
			for (int b = 0; a * gpus[0] + b * gpus[1] <= lim[0]; b++)
				for (int c = 0; a * gpus[0] + b * gpus[1] + c * gpus[2] <= lim[0]; c++) {
					double pd = fmin(b * mu[1], c * mu[2]);
					if (a * mu[0] + pd < rate[0] - 1e-9)
						continue;
					double v = a * cost[0] + b * cost[1] + c * cost[2];
					if (v < best)
						best = v;
				}
		struct fleet_problem fp = { 3, 1, 1, cost, gpus, pool, mu, rate, lim, SERVE_OBJ_COST, role, NULL, NULL };
		struct fleet_solution fs;
		struct hp_err err = { 0 };
		CHECK(serve_fleet_solve(&fp, &fs, &err) == 0);
		if (isinf(best)) {
			CHECK(fs.status == 2);
			continue;
		}
		CHECK_EQ_INT(fs.status, 0);
		CHECK_NEAR(fs.obj, best, 1e-6);
		CHECK_NEAR(fs.route[1][0], fs.route[2][0], 1e-6);
	}
}

/* --- placement: brute force ------------------------------------------------ */

/* Max flow from boundary 0 to boundary B over edges a -> b + 1 of
 * capacity cap[a][b] (Edmonds-Karp on at most 7 nodes). */
static double maxflow(int B, double cap[8][8])
{
	double r[8][8];
	memcpy(r, cap, sizeof r);
	double total = 0;
	for (;;) {
		int prev[8], q[8], h = 0, t = 0;
		for (int i = 0; i < 8; i++)
			prev[i] = -1;
		prev[0] = 0;
		q[t++] = 0;
		while (h < t) {
			int u = q[h++];
			for (int v = 0; v <= B; v++)
				if (prev[v] < 0 && r[u][v] > 1e-12) {
					prev[v] = u;
					q[t++] = v;
				}
		}
		if (prev[B] < 0)
			return total;
		double f = HUGE_VAL;
		for (int v = B; v; v = prev[v])
			f = fmin(f, r[prev[v]][v]);
		for (int v = B; v; v = prev[v]) {
			r[prev[v]][v] -= f;
			r[v][prev[v]] += f;
		}
		total += f;
	}
}

TEST(placement_brute_force)
{
	for (int trial = 0; trial < 30; trial++) {
		struct place_problem pp;
		memset(&pp, 0, sizeof pp);
		int B = 2 + (int)(3 * urand());    /* 2..4 blocks */
		pp.n_blocks = B;
		pp.n_classes = 2;
		pp.node_budget = 100000;
		int cnt[2] = { 1 + (int)(2 * urand()), 1 + (int)(2 * urand()) };
		for (int q = 0; q < 2; q++) {
			pp.cls[q].count = cnt[q];
			pp.cls[q].max_blocks = 1 + (int)(B * urand());
			pp.cls[q].group = q;
			pp.cls[q].units = 1;
			double base = 50 + 200 * urand();
			/* holding more blocks is slower per token */
			for (int k = 1; k <= pp.cls[q].max_blocks; k++)
				pp.cls[q].theta[k] = base / k * (0.8 + 0.4 * urand());
		}
		/* brute force: each machine holds one segment [a, b] or nothing */
		int segs_a[16], segs_b[16], ns = 0;
		for (int a = 0; a < B; a++)
			for (int b = a; b < B; b++) {
				segs_a[ns] = a;
				segs_b[ns] = b;
				ns++;
			}
		int machines = cnt[0] + cnt[1];
		int mcls[4];
		for (int i = 0; i < machines; i++)
			mcls[i] = i < cnt[0] ? 0 : 1;
		long combos = 1;
		for (int i = 0; i < machines; i++)
			combos *= ns + 1;
		double best = 0;
		for (long c = 0; c < combos; c++) {
			double cap[8][8] = { { 0 } };
			long x = c;
			int ok = 1;
			for (int i = 0; i < machines; i++) {
				int s = (int)(x % (ns + 1));
				x /= ns + 1;
				if (s == ns)
					continue;
				int len = segs_b[s] - segs_a[s] + 1;
				if (len > pp.cls[mcls[i]].max_blocks) {
					ok = 0;
					break;
				}
				cap[segs_a[s]][segs_b[s] + 1] += pp.cls[mcls[i]].theta[len];
			}
			if (!ok)
				continue;
			double f = maxflow(B, cap);
			if (f > best)
				best = f;
		}
		struct place_solution ps;
		struct hp_err err = { 0 };
		CHECK(serve_place_solve(&pp, &ps, &err) == 0);
		if (best <= 0) {
			CHECK(ps.status == 2 /* infeasible: blocks cannot be covered */ || ps.flow <= 1e-9);
			continue;
		}
		CHECK_EQ_INT(ps.status, 0);
		CHECK_NEAR(ps.flow, best, 1e-6);
		/* the solution's flows respect its machine counts */
		for (int s = 0; s < ps.n_segs; s++) {
			const struct place_seg *g = &ps.seg[s];
			CHECK(g->flow <= g->count * pp.cls[g->cls].theta[g->last - g->first + 1] + 1e-6);
		}
	}
}

/* Two hand-checked placements of 2 blocks. (a) One class (no shared
 * inventory) of 2 machines, 10 tokens/s holding one block and 4 holding
 * both: one on each block carries 10 (both on both: 8). The bound: a
 * machine at F = 10 counts min(10, 10) x 1 = 10 or min(4, 10) x 2 = 8
 * block-tokens/s, so two give 20 = 10 x 2 blocks: U = 10, met by the
 * staged start, no MILP node. (b) Add a class of one machine with 6 and
 * 3: the first two in series carry 10 and the third holding both blocks
 * beside them 3 more, 13. U: at F = 13 the two give 10 each and the third
 * max(6 x 1, 3 x 2) = 6: 26 = 13 x 2, so U = 13, the optimum. Stages of
 * one class reach 10 only (a second stage of the third machine alone is
 * 6), so the MILP finds 13 above the staged 10. (c) One machine of 30
 * tokens/s and one of 10, each holding one block: in series they carry
 * 10. The bound caps each at F: min(30, F) + min(10, F) >= 2 F holds to
 * F = 10, so U = 10, met; the LP relaxation's (30 + 10) / 2 = 20 is not. */
TEST(placement_bound_hand)
{
	struct place_problem pp;
	memset(&pp, 0, sizeof pp);
	pp.n_blocks = 2;
	pp.n_classes = 1;
	pp.node_budget = 1000;
	pp.cls[0] = (struct place_class){ .count = 2, .max_blocks = 2, .group = 0, .units = 1 };
	pp.cls[0].theta[1] = 10;
	pp.cls[0].theta[2] = 4;
	struct place_solution ps;
	struct hp_err err = { 0 };
	CHECK_NEAR(place_upper_bound(&pp), 10, 1e-6);
	CHECK(serve_place_solve(&pp, &ps, &err) == 0);
	CHECK_EQ_INT(ps.status, LP_OPTIMAL);
	CHECK_NEAR(ps.flow, 10, 1e-6);
	CHECK_EQ_INT(ps.nodes, 0);
	pp.n_classes = 2;
	pp.cls[1] = (struct place_class){ .count = 1, .max_blocks = 2, .group = 1, .units = 1 };
	pp.cls[1].theta[1] = 6;
	pp.cls[1].theta[2] = 3;
	CHECK_NEAR(place_upper_bound(&pp), 13, 1e-6);
	CHECK(serve_place_solve(&pp, &ps, &err) == 0);
	CHECK_EQ_INT(ps.status, LP_OPTIMAL);
	CHECK_NEAR(ps.flow, 13, 1e-6);
	CHECK_NEAR(ps.gap, 0, 1e-9);
	pp.cls[0] = (struct place_class){ .count = 1, .max_blocks = 1, .group = 0, .units = 1 };
	pp.cls[0].theta[1] = 30;
	pp.cls[1] = (struct place_class){ .count = 1, .max_blocks = 1, .group = 1, .units = 1 };
	pp.cls[1].theta[1] = 10;
	CHECK_NEAR(place_upper_bound(&pp), 10, 1e-6);
	CHECK(serve_place_solve(&pp, &ps, &err) == 0);
	CHECK_EQ_INT(ps.status, LP_OPTIMAL);
	CHECK_NEAR(ps.flow, 10, 1e-6);
	CHECK_EQ_INT(ps.nodes, 0);
}

/* Pools whose GPUs make machines of TP 1 or TP 2 (one inventory a pool,
 * as serve builds it), 2 to 4 blocks, every choice of machines and of
 * each one's segment enumerated with an exact max flow: the solver's
 * flow is the optimum, its status says so, and place_upper_bound is never
 * below it. Cases where the bound is above the optimum (the MILP had to
 * search from the staged start) and where it is met are both counted, so
 * the test cannot pass on one path only. */
TEST(placement_bound_brute_force)
{
	int tight = 0, loose = 0;
	for (int trial = 0; trial < 60; trial++) {
		struct place_problem pp;
		memset(&pp, 0, sizeof pp);
		int B = 2 + (int)(3 * urand());    /* 2..4 blocks */
		pp.n_blocks = B;
		pp.node_budget = 100000;
		int pools = 1 + (int)(2 * urand()), gpus[2];
		for (int pi = 0; pi < pools; pi++) {
			gpus[pi] = 2 + (pools == 1 ? (int)(2 * urand()) : 0);   /* 2 or 3 GPUs */
			pp.group_cap[pi] = gpus[pi];
			double base = 50 + 200 * urand();
			int mb = 1 + (int)(B * urand());
			for (int tp = 1; tp <= 2; tp++) {
				struct place_class *pc = &pp.cls[pp.n_classes++];
				pc->count = gpus[pi] / tp;
				pc->group = pi;
				pc->units = tp;
				pc->max_blocks = mb + tp - 1 < B ? mb + tp - 1 : B;
				for (int k = 1; k <= pc->max_blocks; k++)
					pc->theta[k] = base / k * tp * (0.6 + 0.8 * urand());
			}
		}
		/* machines: per pool n2 of TP 2 and the GPUs left as TP 1 */
		double best = 0;
		int ns = B * (B + 1) / 2, sa[16], sb[16], k = 0;
		for (int a = 0; a < B; a++)
			for (int b = a; b < B; b++) {
				sa[k] = a;
				sb[k++] = b;
			}
		for (int n2a = 0; n2a <= gpus[0] / 2; n2a++)
			for (int n2b = 0; n2b <= (pools > 1 ? gpus[1] / 2 : 0); n2b++) {
				int mc[8], m = 0;   /* classes of the machines */
				for (int i = 0; i < n2a; i++)
					mc[m++] = 1;
				for (int i = 0; i < gpus[0] - 2 * n2a; i++)
					mc[m++] = 0;
				for (int pi = 1; pi < pools; pi++) {
					for (int i = 0; i < n2b; i++)
						mc[m++] = 3;
					for (int i = 0; i < gpus[1] - 2 * n2b; i++)
						mc[m++] = 2;
				}
				long combos = 1;
				for (int i = 0; i < m; i++)
					combos *= ns + 1;
				for (long c = 0; c < combos; c++) {
					double cap[8][8] = { { 0 } };
					long x = c;
					int ok = 1;
					for (int i = 0; i < m && ok; i++) {
						int s = (int)(x % (ns + 1));
						x /= ns + 1;
						if (s == ns)
							continue;   /* idle */
						int len = sb[s] - sa[s] + 1;
						if (len > pp.cls[mc[i]].max_blocks)
							ok = 0;
						else
							cap[sa[s]][sb[s] + 1] += pp.cls[mc[i]].theta[len];
					}
					double f = ok ? maxflow(B, cap) : 0;
					if (f > best)
						best = f;
				}
			}
		struct place_solution ps;
		struct hp_err err = { 0 };
		double ub = place_upper_bound(&pp);
		CHECK(ub >= best * (1 - 1e-9));
		CHECK(serve_place_solve(&pp, &ps, &err) == 0);
		if (best <= 0) {
			CHECK(ps.status == LP_INFEASIBLE || ps.flow <= 1e-9);
			continue;
		}
		CHECK_EQ_INT(ps.status, LP_OPTIMAL);
		CHECK_NEAR(ps.flow, best, 1e-6 * best);
		CHECK(ps.gap < 1e-6);
		if (best < ub * (1 - 1e-6))
			loose++;
		else
			tight++;
		/* the placement keeps each class's count and each pool's GPUs */
		int used[4] = { 0 };
		for (int s = 0; s < ps.n_segs; s++) {
			const struct place_seg *g = &ps.seg[s];
			used[g->cls] += g->count;
			CHECK(g->flow <= g->count * pp.cls[g->cls].theta[g->last - g->first + 1] + 1e-6);
		}
		for (int pi = 0; pi < pools; pi++)
			CHECK(used[2 * pi] + 2 * used[2 * pi + 1] <= gpus[pi]);
	}
	printf("placement bound: %d cases met it, %d below it (searched), all optimal\n", tight, loose);
	CHECK(tight >= 5 && loose >= 5);
}

/* The column prune (place_dominated) keeps the MILP's optimum: pools
 * whose GPUs make machines of TP 1, 2 and 4 (one inventory of GPUs a
 * pool, as serve builds it), solved to optimality with every column and
 * with the dominated ones left out, give the same flow. The thetas are
 * random, so TP 2 is sometimes more than twice TP 1 (kept) and sometimes
 * less (pruned); the case count with a pruned column is checked too, so
 * the test cannot pass by never pruning. */
TEST(placement_prune_sound)
{
	int pruned_cases = 0;
	for (int trial = 0; trial < 40; trial++) {
		struct place_problem pp;
		memset(&pp, 0, sizeof pp);
		int B = 3 + (int)(4 * urand());    /* 3..6 blocks */
		pp.n_blocks = B;
		pp.node_budget = 100000;
		int pools = 1 + (int)(2 * urand());
		for (int pi = 0; pi < pools; pi++) {
			int gpus = 2 + 2 * (int)(2 * urand());   /* 2 or 4 */
			pp.group_cap[pi] = gpus;
			double base = 50 + 200 * urand();
			int mb = 1 + (int)(B * 0.6 * urand());
			for (int tp = 1; tp <= gpus && pp.n_classes < PLACE_MAX_CLASSES; tp *= 2) {
				struct place_class *pc = &pp.cls[pp.n_classes++];
				pc->count = gpus / tp;
				pc->group = pi;
				pc->units = tp;
				pc->max_blocks = mb * tp < B ? mb * tp : B;
				/* TP speeds a machine up by 0.6-1.4 x tp: sometimes more
				 * than tp machines of TP 1 would carry, sometimes less */
				for (int k = 1; k <= pc->max_blocks; k++)
					pc->theta[k] = base / k * tp * (0.6 + 0.8 * urand());
			}
		}
		struct place_solution full, cut;
		struct hp_err err = { 0 };
		pp.prune = 0;
		CHECK(serve_place_solve(&pp, &full, &err) == 0);
		pp.prune = 1;
		CHECK(serve_place_solve(&pp, &cut, &err) == 0);
		CHECK_EQ_INT(cut.status, full.status);
		if (full.status == 0)
			CHECK_NEAR(cut.flow, full.flow, 1e-6 * (1 + full.flow));
		for (int q = 0; q < pp.n_classes; q++)
			for (int len = 1; len <= pp.cls[q].max_blocks; len++)
				if (place_column_pruned(&pp, q, len)) {
					pruned_cases++;
					q = pp.n_classes;
					break;
				}
	}
	CHECK(pruned_cases >= 10);
	printf("placement prune: %d of 40 cases left columns out, same optimum\n", pruned_cases);
}

/* The example: 4 x A100-40GB + 8 x L4 + 12 x T4 serving a 70B
 * model in fp16 completes with a placement covering every layer. */
TEST(placement_helix_cluster)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "4x1xA100-SXM4-40GB", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "8x1xL4", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "12x1xT4", &cat, &err) == 0);
	const struct model_spec *m = catalog_model(&cat, "llama2-70b");
	CHECK(m != NULL);
	if (!m)
		return;
	struct serve_opts o;
	serve_opts_init(&o);
	o.offline = 1;
	o.place = 1;
	o.base.wprec = SW_FP16;
	o.base.kvprec = SKV_FP16;
	o.isl.a = 512;
	o.osl.a = 128;
	struct serve_plan_result *res = xcalloc(1, sizeof *res);
	CHECK(serve_plan(&c, m, &o, NULL, res, &err) == 0);
	CHECK_EQ_INT(res->n_plans, 1);
	const struct serve_plan *pl = &res->plans[0];
	CHECK(pl->out_tps > 0);
	CHECK(pl->n_paths >= 1);
	/* every route covers layers 0..79 contiguously */
	for (int i = 0; i < pl->n_paths; i++) {
		int next = 0;
		for (int j = 0; j < pl->path[i].n; j++) {
			int s = pl->path[i].seg[j];
			CHECK(s >= 0);
			if (s < 0)
				break;
			CHECK_EQ_INT(pl->inst[s].first_layer, next);
			next = pl->inst[s].last_layer + 1;
		}
		CHECK_EQ_INT(next, 80);
	}
	printf("helix cluster, llama2-70b fp16: %.0f output tok/s, TPOT %.0f ms, %d segments, gap %.1f%%\n",
	       pl->out_tps, pl->tpot.mean * 1e3, pl->n_inst, 100 * pl->gap);
	free(res);
}

/* Six GPU types, their instance configurations, 4 x 5 request buckets:
 * prints the solve time (timings are not asserted: `make bench`). */
TEST(fleet_six_types)
{
	struct cluster c;
	struct hp_err err = { 0 };
	CHECK(serve_case_pools(&c, &cat, serve_fleet_pools, 6, &err) == 0);
	const struct model_spec *m = catalog_model(&cat, "llama3.1-70b");
	CHECK(m != NULL);
	if (!m)
		return;
	struct serve_opts o;
	serve_fleet_opts(&o, &err);
	struct serve_plan_result *res = xcalloc(1, sizeof *res);
	int rc = serve_plan(&c, m, &o, NULL, res, &err);
	CHECK(rc == 0);
	CHECK_EQ_INT(res->n_buckets, 20);
	CHECK(res->n_cands >= 6);
	if (rc == 0) {
		CHECK(res->plans[0].fits);
		CHECK(res->plans[0].req_s >= 40 * 0.999);
		/* the mixed fleet is never dearer than any single pool's */
		for (int i = 1; i < res->n_plans; i++)
			CHECK(res->plans[0].usd_per_hour <= res->plans[i].usd_per_hour * (1 + 1e-9) ||
			      !res->plans[i].fits);
	}
	printf("fleet: %d candidates x %d buckets, plan 1 %s at $%.2f/h, %.2f s in all, "
	       "ILPs %.3f s\n", res->n_cands, res->n_buckets, res->plans[0].label,
	       res->plans[0].usd_per_hour, res->seconds, res->ilp_seconds);
	free(res);
}

/* Eager execution: the kernel count of a step by hand (vLLM's
 * LlamaDecoderLayer and its custom ops, docs/serving.md): 10 per layer,
 * +4 with FP8 weights (an activation quantisation per GEMM), +2 under TP
 * (two all-reduces), +4 per MoE layer (router, top-k, alignment, sum);
 * the embedding on the first stage, the final norm and logits (+ their
 * gather under TP) on the last; 30 us each. */
TEST(eager_dispatch)
{
	const struct model_spec *l70 = catalog_model(&cat, "llama2-70b");
	const struct model_spec *mx = catalog_model(&cat, "mixtral-8x7b");
	CHECK(l70 && mx);
	if (!l70 || !mx)
		return;
	/* 80 x 14 + 1 + 2 = 1,123 kernels */
	CHECK_NEAR(serve_eager_dispatch_s(l70, 0, 80, 1, 1, SW_FP8), 1123 * 30e-6, 1e-9);
	/* 80 x 16 + 1 + 3 = 1,284 */
	CHECK_NEAR(serve_eager_dispatch_s(l70, 0, 80, 1, 2, SW_FP8), 1284 * 30e-6, 1e-9);
	/* a middle stage of 20 bf16 layers: 20 x 10 = 200 */
	CHECK_NEAR(serve_eager_dispatch_s(l70, 20, 40, 0, 1, SW_BF16), 200 * 30e-6, 1e-9);
	/* Mixtral, 32 MoE layers, bf16, TP 1: 32 x (10 + 4) + 3 = 451 */
	CHECK_NEAR(serve_eager_dispatch_s(mx, 0, 32, 1, 1, SW_BF16), 451 * 30e-6, 1e-9);
	CHECK(serve_eager_dispatch_s(l70, 5, 5, 1, 1, SW_BF16) == 0);
	/* The step takes the larger of the GPU's time and the host's: eager
	 * never makes an instance faster, and nearly alone (0.01 req/s) on
	 * an H100 an 8B model's step is the host's 323 kernels x 30 us plus
	 * the engine's 1 ms (the GPU reads 16 GB in about 7.5 ms) */
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 0) == 0);
	if (!f.m)
		return;
	struct serve_result g, e;
	struct hp_err err = { 0 };
	f.ld.rate = 0.01;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &g, &err) == 0);
	struct serve_config ce = f.cfg;
	ce.eager = 1;
	CHECK(serve_evaluate(&f.p, f.m, &ce, &f.ld, NULL, &e, &err) == 0);
	CHECK(e.tpot_s.mean > g.tpot_s.mean);
	CHECK_NEAR(e.tpot_s.mean, 323 * 30e-6 + 1e-3, 0.01);
	f.ld.rate = 0;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &g, &err) == 0);
	CHECK(serve_evaluate(&f.p, f.m, &ce, &f.ld, NULL, &e, &err) == 0);
	CHECK(e.out_tps_max <= g.out_tps_max);
}

/* SGLang replays CUDA graphs of decode batches up to 160 only (its
 * CudaGraphRunner captures [1, 2, 4] + [8, 16, ..., 160]; v0.4
 * server_args.py: cuda_graph_max_bs 160) and none of prefill ("extend")
 * iterations. Llama 3.1 8B on one H200 SXM is host-bound when eager: the
 * GPU reads its 16.1 GB of bf16 weights in 16.1e9 / 4.8e12 = 3.4 ms at
 * full bandwidth, while the host issues 32 layers x 10 kernels + the
 * embedding + the final norm and logits = 323 kernels, 323 x 30 us =
 * 9.69 ms (vLLM PR #1440: 24-36 us per kernel; 26 us in cloudai.pt's
 * 8.4 ms / 323). So one more sequence past 160 takes a decode step from
 * the GPU's time to at least the host's 9.69 ms; below the cap, and for
 * an engine whose graphs cover every batch, it changes by a sequence's
 * share. */
TEST(sglang_graph_cap)
{
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 0) == 0);
	const struct gpu_spec *h200 = catalog_gpu(&cat, "H200-SXM");
	CHECK(h200 != NULL);
	if (!f.m || !h200)
		return;
	serve_pool_from_gpu(&f.p, h200, 1);
	CHECK_EQ_INT(serve_engine(ENGINE_SGLANG)->graph_max_batch, 160);
	CHECK_EQ_INT(serve_engine(ENGINE_VLLM)->graph_max_batch, 0);
	static double isl[161], osl[161];
	for (int i = 0; i < 161; i++) {
		isl[i] = 32;
		osl[i] = 128;
	}
	double itl[2][2];
	for (int e = 0; e < 2; e++)
		for (int j = 0; j < 2; j++) {
			struct serve_config c = f.cfg;
			c.engine = e ? ENGINE_SGLANG : ENGINE_VLLM;
			c.max_batch = 160 + j;
			struct serve_burst_result br;
			struct hp_err err = { 0 };
			CHECK(serve_burst(&f.p, f.m, &c, 160 + j, isl, osl, NULL, &br, &err) == 0 &&
			      br.fits);
			itl[e][j] = br.itl_mean_s;
		}
	CHECK(itl[1][1] >= 323 * 30e-6);
	CHECK(itl[1][0] < 323 * 30e-6);
	CHECK(itl[0][1] < 1.02 * itl[0][0]);
	/* A lone 32-token prompt: its prefill iteration is eager too, so the
	 * first token takes at least the 9.69 ms of kernels after the 8 ms
	 * front end (serve_calib frontend_s) */
	struct serve_config c = f.cfg;
	c.engine = ENGINE_SGLANG;
	struct serve_load ld = { 32, 128, 0.01, 0, 0, 0 };
	struct serve_result r;
	struct hp_err err = { 0 };
	CHECK(serve_evaluate(&f.p, f.m, &c, &ld, NULL, &r, &err) == 0 && r.fits);
	CHECK(r.ttft_s.mean >= 8e-3 + 323 * 30e-6);
}

/* Overlap schedulers form batch i+1 before batch i ends on the GPU: a
 * prompt that arrives while batch i runs is first scheduled into i+2, one
 * iteration later than with a scheduler that forms each batch after the
 * last ("The scheduler runs one batch ahead", LMSYS SGLang v0.4 blog,
 * 2024-12-04; TensorRT-LLM's PyTorch backend: "introduces one extra
 * decoding step", docs features/overlap-scheduler.md, on by default).
 * vLLM's --async-scheduling is opt-in, the C++ executor has none.
 * Facts checked: with sequences running (half the saturation rate, more
 * than 20 running: P(busy) = 1 - e^-20, 1) the first token comes one
 * iteration later, more than one decode step of a single sequence and no
 * more than the mean time per output token (a decode step plus its share
 * of prompts); to an idle engine (0.01 req/s: 0.01 x ~1.5 s = 0.015
 * running, P(busy) = 1.5%) no batch is queued, so under 2% of a step. */
TEST(overlap_sched)
{
	CHECK_EQ_INT(serve_engine(ENGINE_SGLANG)->sched_ahead, 1);
	CHECK_EQ_INT(serve_engine(ENGINE_TRTLLM)->sched_ahead, 1);
	CHECK_EQ_INT(serve_engine(ENGINE_VLLM)->sched_ahead, 0);
	CHECK_EQ_INT(serve_engine(ENGINE_TRTLLM_ENGINE)->sched_ahead, 0);
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 0) == 0);
	if (!f.m)
		return;
	struct hp_err err = { 0 };
	enum serve_engine eng[2] = { ENGINE_SGLANG, ENGINE_TRTLLM };
	for (int e = 0; e < 2; e++) {
		struct serve_config on = f.cfg, off;
		on.engine = eng[e];
		off = on;
		off.overlap_sched = OVERLAP_OFF;
		struct serve_result sat, a, b;
		struct serve_load ld = f.ld;
		CHECK(serve_evaluate(&f.p, f.m, &on, &ld, NULL, &sat, &err) == 0 && sat.fits);
		ld.rate = 0.5 * sat.req_s_max;
		CHECK(serve_evaluate(&f.p, f.m, &on, &ld, NULL, &a, &err) == 0);
		CHECK(serve_evaluate(&f.p, f.m, &off, &ld, NULL, &b, &err) == 0);
		CHECK(a.batch > 20);
		double d = a.ttft_s.mean - b.ttft_s.mean;
		CHECK(d > a.tpot_min_s);
		CHECK(d <= 1.05 * a.tpot_s.mean);
		CHECK(a.ttft_s.p50 - b.ttft_s.p50 > a.tpot_min_s);
		ld.rate = 0.01;
		CHECK(serve_evaluate(&f.p, f.m, &on, &ld, NULL, &a, &err) == 0);
		CHECK(serve_evaluate(&f.p, f.m, &off, &ld, NULL, &b, &err) == 0);
		CHECK(fabs(a.ttft_s.mean - b.ttft_s.mean) < 0.02 * a.tpot_s.mean);
		/* throughput is not charged for it (serve_perf.c) */
		CHECK(a.out_tps_max == b.out_tps_max);
	}
}

/* A client that batches requests (AMD's MLPerf SUT, batch_samples_loop:
 * a send opens a window of w s; a request in it waits for its end, and
 * the batch leaves at the next arrival or a w-long timeout; the batch
 * goes to one engine, the engines in turn). By hand, w = 0.3 s:
 *  - 8 engines at 9.2075 req/s (MLPerf v4.1, 8 x MI300X): L = 73.66/s,
 *    the residual (1 - e^(-22.098)) / 73.66 = 0.013576 s, w' = 0.313576;
 *    held w'/2 = 0.156788 s (L w' e^(L w') is ~1e11: all are held); a
 *    batch holds e^(-23.098) + 23.098 = 23.098 requests, so an engine
 *    gets one every 8 x 23.098 / 73.66 = 2.5086 s;
 *  - 0.01 req/s, one engine: a request is sent on arrival unless the
 *    last send was under w ago: held (0.3 + 0.29955) / 2 x 0.0060317 /
 *    1.0060317 = 0.0017973 s on average, one request per batch, J = 100 s;
 *  - 800 req/s over 8 engines, at most 96 per batch: 240 would queue in
 *    a window, so batches of 96 every 0.12 s, held 0.06 s, J = 0.96 s.
 * With the hold and the batch arriving together, a prompt's first token
 * comes later than with the same rate sent on arrival, by more than the
 * hold on an engine that runs prompts apart (SGLang: a batch of prompts
 * is one prefill call, longer than one prompt's). */
TEST(client_batches)
{
	double J, hold;
	struct serve_load ld = { 222, 293, 9.2075, 0.3, 96, 8 };
	serve_client_batches(&ld, &J, &hold);
	CHECK_NEAR(J, 2.5086, 1e-3);
	CHECK_NEAR(hold, 0.156788, 1e-5);
	ld.rate = 0.01;
	ld.batch_engines = 1;
	serve_client_batches(&ld, &J, &hold);
	CHECK_NEAR(J, 100.0, 0.01);
	CHECK_NEAR(hold, 0.0017973, 1e-4);
	ld.rate = 100;
	ld.batch_engines = 8;
	serve_client_batches(&ld, &J, &hold);
	CHECK_NEAR(J, 0.96, 1e-9);
	CHECK_NEAR(hold, 0.06, 1e-9);
	ld.batch_window_s = 0;
	serve_client_batches(&ld, &J, &hold);
	CHECK(J == 0 && hold == 0);
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 0) == 0);
	if (!f.m)
		return;
	struct hp_err err = { 0 };
	struct serve_result sat, a, b;
	f.cfg.engine = ENGINE_SGLANG;
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &sat, &err) == 0 && sat.fits);
	struct serve_load on = f.ld;
	on.rate = 0.5 * sat.req_s_max;
	struct serve_load off = on;
	on.batch_window_s = 0.3;
	on.batch_max = 96;
	on.batch_engines = 1;
	serve_client_batches(&on, &J, &hold);
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &on, NULL, &a, &err) == 0);
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &off, NULL, &b, &err) == 0);
	CHECK(hold > 0.1 && a.ttft_s.mean - b.ttft_s.mean > hold);
	CHECK(a.out_tps_max == b.out_tps_max);
}

/* A batching client in front of vLLM, whose prompts ride the decode
 * iterations. By hand: at 20 requests/s, a 0.3 s window and one engine
 * the client's mean batch is exp(-x) + x with x = 20 (0.3 + (1 -
 * exp(-6)) / 20) = 6.9975, so 7.0 prompts of 1,000 tokens = 7,000 tokens,
 * under vLLM's 8,192-token budget on an H100: one iteration carries the
 * whole batch. Its prefill is at least 2 x 8.03e9 parameters x 7,000
 * tokens = 1.124e14 FLOP, 0.1136 s at the H100's 989.4 TFLOP/s dense
 * peak, and every prompt of the batch waits for it: the mean TTFT less
 * the client's hold is at least 0.1136 s (a bound at 100% of peak). A
 * lone prompt's TTFT (no client) is far below that. */
TEST(client_batches_mixed)
{
	struct h100_8b f;
	CHECK(h100_8b_init(&f, 20) == 0);
	if (!f.m)
		return;
	struct hp_err err = { 0 };
	struct serve_result a, b;
	struct serve_load on = f.ld;
	on.batch_window_s = 0.3;
	on.batch_max = 96;
	on.batch_engines = 1;
	double J, hold;
	serve_client_batches(&on, &J, &hold);
	CHECK_NEAR(20 * J, 6.998, 0.01);
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &on, NULL, &a, &err) == 0);
	CHECK(serve_evaluate(&f.p, f.m, &f.cfg, &f.ld, NULL, &b, &err) == 0);
	CHECK(a.ttft_s.mean - hold >= 0.1136);
	CHECK(b.ttft_s.mean < 0.1136);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return 1;
	}
	RUN(kv_bytes);
	RUN(hf_ids);
	RUN(amd_gpus);
	RUN(bf16_pre_ampere);
	RUN(weights);
	RUN(weights_fp8_mlp);
	RUN(nvls_reserve);
	RUN(vllm_rocm_06);
	RUN(trtllm_pre_xqa);
	RUN(erlang_c);
	RUN(wait_tails);
	RUN(decode_physics);
	RUN(prefill_apart);
	RUN(sglang_prefill_first);
	RUN(overlap_sched);
	RUN(client_batches);
	RUN(client_batches_mixed);
	RUN(buckets);
	RUN(fleet_brute_force);
	RUN(fleet_two_buckets);
	RUN(fleet_disaggregated);
	RUN(placement_brute_force);
	RUN(placement_prune_sound);
	RUN(placement_bound_hand);
	RUN(placement_bound_brute_force);
	RUN(placement_helix_cluster);
	RUN(fleet_six_types);
	RUN(eager_dispatch);
	RUN(sglang_graph_cap);
	RUN(per_seq_host);
	catalog_done(&cat);
	return t_done("serve_search");
}
