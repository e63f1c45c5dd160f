/* test_model.c — parameter counts, FLOPs and memory arithmetic against
 * published numbers and hand calculations. */
#include "t.h"
#include "catalog.h"
#include "model.h"
#include "perf.h"
#include "plan.h"

static struct catalog cat;

static const struct model_spec *M(const char *name)
{
	const struct model_spec *m = catalog_model(&cat, name);
	if (!m)
		T_FAILF("preset %s missing", name);
	return m;
}

static double total(const char *name)
{
	struct param_count pc;
	model_params(M(name), &pc);
	return pc.total;
}

static double active(const char *name)
{
	struct param_count pc;
	model_params(M(name), &pc);
	return pc.active;
}

/* Exact counts from the released Hugging Face configs / logs. */
TEST(exact_published_counts)
{
	CHECK_NEAR(total("llama3.1-8b"), 8030261248.0, 0);
	CHECK_NEAR(total("llama3.1-70b"), 70553706496.0, 0);
	CHECK_NEAR(total("llama3.1-405b"), 405853388800.0, 0);
	CHECK_NEAR(total("llama2-70b"), 68976648192.0, 0);
	CHECK_NEAR(total("llama2-7b"), 6738415616.0, 0);
	/* BLOOM's training log: 176,247,271,424 parameters. */
	CHECK_NEAR(total("bloom-176b"), 176247271424.0, 0);
}

/* Rounded published sizes, to the precision they are published with. */
TEST(rounded_published_counts)
{
	CHECK_NEAR(total("gpt3-175b"), 174.6e9, 0.001);      /* Narayanan Table 2 */
	CHECK_NEAR(total("gpt-1t"), 1008e9, 0.001);          /* Narayanan Table 1 */
	CHECK_NEAR(total("gpt-529.6b"), 529.6e9, 0.001);
	CHECK_NEAR(total("gpt-1.7b"), 1.7e9, 0.03);
	CHECK_NEAR(total("mixtral-8x7b"), 46.7e9, 0.002);    /* 46.7B total */
	CHECK_NEAR(active("mixtral-8x7b"), 12.9e9, 0.005);   /* 12.9B active */
	CHECK_NEAR(total("mixtral-8x22b"), 141e9, 0.005);
	CHECK_NEAR(active("mixtral-8x22b"), 39e9, 0.01);
	CHECK_NEAR(total("deepseek-v3"), 671e9, 0.001);      /* 671B total */
	CHECK_NEAR(active("deepseek-v3"), 37e9, 0.02);       /* 37B active */
	CHECK_NEAR(total("nemotron4-340b"), 340e9, 0.005);
	CHECK_NEAR(total("qwen2.5-72b"), 72.7e9, 0.001);
	CHECK_NEAR(total("llama2-13b"), 13.0e9, 0.002);
}

/* Every preset matches the size it states within 1%. */
TEST(every_preset_has_its_size)
{
	for (int i = 0; i < cat.n_models; i++) {
		const struct model_spec *m = &cat.models[i];
		struct param_count pc;
		model_params(m, &pc);
		CHECK(m->published_params > 0);
		if (fabs(pc.total - m->published_params) > 0.03 * m->published_params)
			T_FAILF("%s: %.4g params, published %.4g", m->name, pc.total,
				m->published_params);
	}
}

/* Narayanan et al. 2021 Eq. 3 by hand for GPT 1.7B (L=24, h=2304, V=51200,
 * s=2048), B=512: 96*B*s*L*h^2*(1 + s/(6h) + V/(16*L*h)) = 1.5555e17 FLOPs
 * (with 137 TFLOP/s on 32 GPUs this is the paper's 3.55 s step). The model
 * counts biases and norms as free, as the paper does. */
TEST(hardware_flops_eq3)
{
	const struct model_spec *m = M("gpt-1.7b");
	double B = 512, s = 2048, L = 24, h = 2304, V = 51200;
	double eq3 = 96 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h));
	CHECK_NEAR(model_step_hw_flops(m, B * s, s, RC_FULL), eq3, 1e-9);
	/* Without recompute: 72 B s L h^2 (1 + s/6h + V/12Lh) (Korthikanti). */
	double k22 = 72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
	CHECK_NEAR(model_step_flops(m, B * s, s), k22, 1e-9);
}

/* Megatron 2024 formula for Llama-3 8B, as NeMo's tables use it: FLOPs per
 * token 5.7913e10 at s = 8192 (reference §9: reported 5.7910e10). */
TEST(flops_per_token_llama3_8b)
{
	const struct model_spec *m = M("llama3.1-8b");
	CHECK_NEAR(model_step_flops(m, 1, 8192), 5.7913e10, 0.001);
}

/* Korthikanti Table 2 example: 175B, s=2048, b=1, t=8, with dropout and no
 * flash: TP only 552 MiB per layer, TP+SP 342, TP+selective 312,
 * TP+SP+selective 102, full recompute 6 (MiB). */
TEST(activation_bytes_korthikanti)
{
	struct model_spec m = *M("gpt3-175b");
	m.dropout = 1;
	struct act_opts o = { 1, 2048, 8, 0, 0, RC_NONE, 1 };
	double mib = 1048576.0;
	CHECK_NEAR(model_layer_act_bytes(&m, 0, &o) / mib, 552, 0.005);
	o.sp = 1;
	CHECK_NEAR(model_layer_act_bytes(&m, 0, &o) / mib, 342, 0.005);
	o.sp = 0;
	o.rc = RC_SELECTIVE;
	CHECK_NEAR(model_layer_act_bytes(&m, 0, &o) / mib, 312, 0.005);
	o.sp = 1;
	CHECK_NEAR(model_layer_act_bytes(&m, 0, &o) / mib, 102, 0.005);
	o.rc = RC_FULL;
	CHECK_NEAR(model_layer_act_bytes(&m, 0, &o) / mib, 6, 0.005);
}

/* torchtitan's op-level selective checkpointing on a Llama-3.1 8B block
 * (h 4096, 8 KV heads, F 14336), no TP: kept are the input 2sbh, Q 2sbh,
 * V 0.5sbh, the attention output 2sbh (+ fp32 row stats 4*32*sb), gate
 * 2sbF = 7sbh and down 2sbh: 15.5 sbh + 128 sb bytes. The recomputed
 * matmuls (K, output projection, up) carry h*1024 + h*h + h*F of the
 * h*(4096+2*1024+4096+3*F) weights. */
TEST(activation_bytes_op_sac)
{
	const struct model_spec *m = M("llama3.1-8b");
	double sb = 8192.0 * 2, h = 4096;
	struct act_opts o = { 2, 8192, 1, 0, 1, RC_SELECTIVE_OP, 1 };
	CHECK_NEAR(model_layer_act_bytes(m, 0, &o), 15.5 * sb * h + 128 * sb, 1e-12);
	double again = 1024 + 4096 + 14336.0, all = 4096 + 2 * 1024 + 4096 + 3 * 14336.0;
	CHECK_NEAR(model_layer_op_sac_recompute_frac(m, 0), again / all, 1e-12);
	enum hp_recompute rc;
	CHECK(plan_recompute_parse("selective-op", &rc) == 0 && rc == RC_SELECTIVE_OP);
	CHECK(plan_recompute_parse("op", &rc) == 0 && rc == RC_SELECTIVE_OP);
	CHECK_STR(plan_recompute_name(RC_SELECTIVE_OP), "selective-op");
	enum hp_loss l;
	CHECK(plan_loss_parse("eager", &l) == 0 && l == LOSS_EAGER);
	/* LLMQ's --lmhead-chunks / Liger's fused linear cross-entropy
	 * (consumer round 50); an unknown name is still refused */
	CHECK(plan_loss_parse("chunked", &l) == 0 && l == LOSS_CHUNKED);
	CHECK(plan_loss_parse("blocked", &l) < 0);
}

/* KV cache per token at bf16 (reference §3.3): Llama-3 8B 131072 B,
 * 70B 327680 B, 405B 516096 B; DeepSeek-V3 MLA (512+64)*61*2 = 70272 B. */
TEST(kv_cache)
{
	CHECK_NEAR(model_kv_cache_bytes_per_token(M("llama3.1-8b"), 2), 131072, 0);
	CHECK_NEAR(model_kv_cache_bytes_per_token(M("llama3.1-70b"), 2), 327680, 0);
	CHECK_NEAR(model_kv_cache_bytes_per_token(M("llama3.1-405b"), 2), 516096, 0);
	CHECK_NEAR(model_kv_cache_bytes_per_token(M("deepseek-v3"), 2), 70272, 0);
}

TEST(gpu_names_resolve)
{
	const char *h100[] = { "H100", "h100", "H100-SXM", "h100_sxm5", "H100-80GB" };
	for (size_t i = 0; i < sizeof h100 / sizeof *h100; i++) {
		const struct gpu_spec *g = catalog_gpu(&cat, h100[i]);
		CHECK(g && !strcmp(g->name, "H100-SXM"));
	}
	const struct gpu_spec *g = catalog_gpu(&cat, "a100_80g");
	CHECK(g && !strcmp(g->name, "A100-SXM4-80GB"));
	g = catalog_gpu(&cat, "A100-40GB");
	CHECK(g && !strcmp(g->name, "A100-SXM4-40GB"));
	g = catalog_gpu(&cat, "A100");   /* a bare name is the SXM part */
	CHECK(g && !strcmp(g->name, "A100-SXM4-80GB"));
	CHECK(catalog_gpu(&cat, "L40S") && catalog_gpu(&cat, "H20") && catalog_gpu(&cat, "GB200"));
	CHECK(catalog_gpu(&cat, "H1000") == NULL);
	/* gpu-specs.csv's 27, issue 17's 10, the 15 lab and desktop parts
	 * (A40 ... MI250: test_catalog's added_parts_*) and the RTX 3090 Ti
	 * (issue 12, consumer round 23: test_catalog's rtx_3090_ti) and the
	 * DGX-1 Max-Q's V100-SXM2-LS (round 30: test_catalog's entry test)
	 * and the MI350X (test_cdna4) and the RTX PRO 6000 Server Edition
	 * (consumer round 50: test_catalog's measured_gemm16_rates). */
	CHECK_EQ_INT(cat.n_gpus, 56);
	/* Datasheet dense peaks (gpu-specs.csv). */
	CHECK_NEAR(catalog_gpu(&cat, "H100")->flops[HP_BF16], 989.4e12, 0);
	CHECK_NEAR(catalog_gpu(&cat, "A100")->flops[HP_BF16], 312e12, 0);
	struct hp_err err = { 0 };
	catalog_gpu_unknown(&cat, "H1000", "--gpu", &err);
	CHECK_CONTAINS(err.msg, "unknown GPU 'H1000'");
	CHECK_CONTAINS(err.msg, "H100");
}

/* MoE layers in a layer range. DeepSeek-V3's config.json: 61 layers,
 * first_k_dense_replace = 3 (layers 0-2 dense, 3-60 MoE); Mixtral 8x22B:
 * every one of its 56 layers is MoE; Llama 3.1 70B has none. */
TEST(moe_layers_in_range)
{
	const struct model_spec *ds = M("deepseek-v3");
	CHECK_EQ_INT(model_moe_layers_in(ds, 0, 60), 58);
	CHECK_EQ_INT(model_moe_layers_in(ds, 0, 2), 0);
	CHECK_EQ_INT(model_moe_layers_in(ds, 2, 5), 3);
	CHECK_EQ_INT(model_moe_layers_in(ds, 30, 40), 11);
	CHECK_EQ_INT(model_moe_layers_in(M("mixtral-8x22b"), 0, 55), 56);
	CHECK_EQ_INT(model_moe_layers_in(M("llama3.1-70b"), 0, 79), 0);
	for (int l = 0; l < 61; l++)
		CHECK_EQ_INT(model_moe_layers_in(ds, l, l), l >= 3);
}

/* A task head in place of the LM head (BERT-large for SQuAD, as NVIDIA's
 * DeepLearningExamples run_squad.py trains it). Hand count from Google's
 * bert_config.json (vocab 30522, hidden 1024, 24 layers, ffn 4096, 512
 * positions, 2 token types): BertModel has 335,141,888 parameters, of which
 * the pooler (1024 x 1024 + 1024 = 1,049,600, which run_squad.py leaves
 * out of its optimizer) and the token-type table (2 x 1024 = 2,048) are not
 * hetplan's; the QA head adds its 1024 x 2 weights (2,048), and hetplan's
 * final-norm slot (2 x 1024) stands in for the embedding LayerNorm. So
 * 335,141,888 - 1,049,600 - 2,048 + 2,048 = 334,092,288, the embedding
 * table (31,254,528 + 524,288 positions) included; logits 2 x 2 x 1024
 * FLOPs per token forward. */
TEST(task_head_bert_large)
{
	struct model_spec m;
	memset(&m, 0, sizeof m);
	m.layers = 24;
	m.hidden = 1024;
	m.heads = m.kv_heads = 16;
	m.head_dim = 64;
	m.ffn = 4096;
	m.vocab = 30522;
	m.seq_len = 512;
	m.task_head = 2;
	m.bias = 1;
	m.norm = NORM_LAYER;
	m.position = POS_LEARNED;
	struct param_count pc;
	model_params(&m, &pc);
	CHECK_NEAR(pc.total, 334092288.0, 0);
	CHECK_NEAR(pc.embedding, 31254528.0 + 524288.0, 0);
	CHECK_NEAR(pc.output, 2048.0, 0);
	CHECK_NEAR(model_logits_fwd_flops(&m), 4096.0, 0);
	CHECK_NEAR(model_out_dim(&m), 2.0, 0);
	m.task_head = 0;   /* the LM head over the vocabulary, untied */
	CHECK_NEAR(model_out_dim(&m), 30522.0, 0);
}

/* Gaudi's GEMM constants come from published benchmarks, not a fit
 * (data/calibration.json gaudi.*). The figures, by hand:
 *  - ml-engineering's MAMF table (@744d01e1, mamf-finder.py, torch
 *    2.6.0+hpu): Gaudi2 bf16 418.7 of 432 TFLOP/s (0.9692), fp8 826.5 of
 *    865 (0.9555); Gaudi3 bf16 1,243 of the whitepaper's 1,835;
 *  - Hopper's in-training / best-shape ratios: bf16 0.65164 / (794.5 /
 *    989) = 0.8112, fp8 0.59101 / (1,402.6 / 1,979) = 0.8339;
 *  - so gaudi.gemm16 = 0.9692 x 0.8112 = 0.7862, gaudi.gemm8 = 0.9555 x
 *    0.8339 = 0.7968.
 * One GEMM of the MLPerf GPT-3 175B rows (BLGD-01: TP 8, MBS 2 x 2,048
 * tokens): the first MLP linear, 4,096 x 12,288 by 12,288 x 6,144, in
 * fp8 on a Gaudi2: main-loop fill 12,288 / (12,288 + gemm_k_half 24.86)
 * = 0.99798, efficiency 0.7968 x 0.99798 = 0.79519, 687.8 TFLOP/s;
 * 2 x 4,096 x 6,144 x 12,288 = 6.1848e11 FLOP in 0.8992 ms. That rate
 * stays below the part's measured best-shape 826.5 (a training GEMM does
 * not beat the benchmark's best shape). The 16-bit ceilings: Gaudi2
 * 432 x 0.7862 = 339.6 TFLOP/s; Gaudi3 by its own measurement against
 * Gaudi2's, x 1,243 / 418.7 = 2.9687: 1,008 TFLOP/s, below its 1,243. */
TEST(gaudi_gemm_from_mamf)
{
	const struct perf_calib *k = perf_calib_default();
	const struct gpu_spec *g2 = catalog_gpu(&cat, "Gaudi2"), *g3 = catalog_gpu(&cat, "Gaudi3");
	if (!g2 || !g3)
		T_FAILF("Gaudi2 / Gaudi3 missing from the catalog");
	CHECK_NEAR(k->gen[GEN_GAUDI].gemm16, 0.7862, 0.001);
	CHECK_NEAR(k->gen[GEN_GAUDI].gemm8, 0.7968, 0.001);
	CHECK_NEAR(g2->gemm16_meas, 418.7e12, 1e-9);
	double M = 4096, N = 49152 / 8, K = 12288;
	double eff = perf_gemm_eff(k, g2, HP_FP8, M, N, K);
	CHECK_NEAR(eff, 0.79519, 0.001);
	double rate = g2->flops[HP_FP8] * eff;
	CHECK_NEAR(2 * M * N * K / rate, 0.8992e-3, 0.001);
	CHECK(rate < 826.5e12 && rate > 0.6 * 865e12);
	double c2 = perf_gemm16_ceiling(k, g2), c3 = perf_gemm16_ceiling(k, g3);
	CHECK_NEAR(c2, 339.6e12, 0.001);
	CHECK_NEAR(c3 / c2, 1243 / 418.7, 0.001);
	CHECK(c3 < 1243e12);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(exact_published_counts);
	RUN(rounded_published_counts);
	RUN(every_preset_has_its_size);
	RUN(hardware_flops_eq3);
	RUN(flops_per_token_llama3_8b);
	RUN(activation_bytes_korthikanti);
	RUN(activation_bytes_op_sac);
	RUN(kv_cache);
	RUN(gpu_names_resolve);
	RUN(moe_layers_in_range);
	RUN(task_head_bert_large);
	RUN(gaudi_gemm_from_mamf);
	catalog_done(&cat);
	return t_done("model");
}
