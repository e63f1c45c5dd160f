/* test_runs_on.c — one plan per runs-on rule (src/runs_on.c), each
 * against the framework limit it cites:
 *   - Megatron-LM arguments.py validate_args (pinned commit in
 *     tests/data/megatron_args.txt): "Number of layers should be divisible
 *     by the pipeline-model-parallel size" without the first/last/layout
 *     flags; --pipeline-model-parallel-layout for any split (Megatron-Core);
 *   - DeepSpeed deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are
 *     incompatible with pipeline parallelism"; pipe/schedule.py has 1F1B
 *     only; PipelineModule partitions differ by at most one layer;
 *   - torchtitan: FSDP2 (no ZeRO-1), DDP 1-D only, op-level SAC;
 *   - every framework: one GPU type, one TP degree, one replica layout,
 *     an even batch split;
 *   - the estimate-only rows: DeepLearningExamples' BERT run_squad.py
 *     (apex DDP around the whole model; --fp16 or fp32; no checkpointing
 *     flag) for pytorch-ddp(-2020); InternLM @01e7fd61 for internlm
 *     (Hybrid Zero = ZeRO-1; model.dtype fp16/bf16/fp32/tf32; whole-layer
 *     model.checkpoint; partition_uniform: per chunk layers / pp per
 *     stage, one more on the last layers % pp stages); karpathy/llm.c
 *     @f1e2ace for llm.c (data parallelism only; llmc/zero.cuh's
 *     set_zero_configs: -z 0 or 1; no FP8; -r recomputes GELU and
 *     LayerNorm only, no hetplan recompute mode); MaxText @e591f30c for
 *     maxtext (fsdp: ZeRO-3, or ZeRO-0; remat_policy over every layer,
 *     `minimal` as selective; its circular pipeline and CP not counted).
 * Every mask is also checked against runs_on.h's promise: an
 * estimate-only row's bit is set only where megatron-core's is. */
#include "t.h"
#include "runs_on.h"

#include <string.h>

static struct catalog cat;
static struct model_spec model;   /* llama3.1-8b: 32 layers */

#define MC (1u << FW_MEGATRON_CORE)
#define ML (1u << FW_MEGATRON_LM)
#define DS (1u << FW_DEEPSPEED)
#define TT (1u << FW_TORCHTITAN)
#define PD ((1u << FW_PYTORCH_DDP) | (1u << FW_PYTORCH_DDP_2020))
#define IL (1u << FW_INTERNLM)
#define LC (1u << FW_LLMC)
#define D3 (1u << FW_DEEPSPEED_03)
#define AM (1u << FW_AUTOMODEL)
#define HF (1u << FW_HF)
#define HS (1u << FW_HF_DEEPSPEED)
#define MX (1u << FW_MAXTEXT)

static void cluster2(struct cluster *c, const char *a, const char *b)
{
	struct hp_err err = { 0 };
	cluster_init(c);
	if (cluster_add_pool_spec(c, a, &cat, &err) < 0 ||
	    (b && cluster_add_pool_spec(c, b, &cat, &err) < 0))
		T_FAILF("%s", err.msg);
}

/* The plan in `estimate --plan` JSON; returns the mask, why into why. */
static unsigned mask_of(const struct cluster *c, const char *json, char *why, size_t n)
{
	struct plan p;
	struct hp_err err = { 0 };
	plan_init(&p);
	p.gbs = 64;
	p.mbs = 1;
	if (plan_parse_json(&p, json, strlen(json), "test", c, &err) < 0) {
		T_FAILF("%s", err.msg);
		plan_free(&p);
		return 0xdead;
	}
	unsigned m = runs_on_mask(&p, c, why, n);
	CHECK(!(m & ~RUNS_ON_STOCK) || (m & MC));
	plan_free(&p);
	return m;
}

#define ONE_STAGE(pool, tp) "{\"pool\":\"" pool "\",\"tp\":" #tp ",\"first_layer\":0,\"last_layer\":31}"

TEST(uniform_plan_runs_everywhere_it_may)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	/* TP 8, PP 2 (16 layers each), ZeRO-1, 1F1B, full recompute: Megatron
	 * (both), DeepSpeed (ZeRO-1 with PP is allowed); torchtitan has no
	 * ZeRO-1. InternLM: tensor 8, pipeline 2 (partition_uniform: 16 +
	 * 16), zero1, checkpoint True; apex DDP has no TP or PP. */
	unsigned m = mask_of(&c, "{\"zero\":1,\"recompute\":\"full\",\"replicas\":[{\"count\":1,"
			     "\"stages\":[{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":16,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC | ML | DS | IL);
	CHECK(strstr(why, "torchtitan: ZeRO-1") != NULL);
	/* the reasons name stock frameworks only */
	CHECK(strstr(why, "pytorch-ddp") == NULL);
}

TEST(mixed_gpu_types_in_a_pipeline)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", "1x8xA100-SXM4-80GB,name=a");
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":1,\"replicas\":[{\"stages\":["
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
			     "{\"pool\":\"a\",\"tp\":8,\"first_layer\":16,\"last_layer\":31}]}]}",
			     why, sizeof why);
	/* Megatron-Core never asks a rank's GPU: one layout, one TP, one
	 * batch share and one network make it one job, each stage's ranks
	 * placed on its pool (docs/launch-hetero.md); the others start ranks
	 * in rendezvous order */
	CHECK_EQ_INT(m, MC);
	CHECK(strstr(why, "one pipeline") != NULL);
}

/* One job loads one NCCL network plugin a process, and the pipeline's
 * groups cross the pools: an H100 pool on EFA and an A100 pool on
 * InfiniBand cannot be one Megatron-Core job either. */
TEST(mixed_gpu_types_on_two_networks)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h,transport=efa", "1x8xA100-SXM4-80GB,name=a,transport=ib");
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":1,\"replicas\":[{\"stages\":["
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
			     "{\"pool\":\"a\",\"tp\":8,\"first_layer\":16,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, 0);
	CHECK(strstr(why, "different networks") != NULL);
}

TEST(mixed_gpu_types_across_replicas)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", "1x8xA100-SXM4-80GB,name=a");
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":1,\"replicas\":["
			     "{\"batch_share\":0.5,\"stages\":[" ONE_STAGE("h", 8) "]},"
			     "{\"batch_share\":0.5,\"stages\":[" ONE_STAGE("a", 8) "]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC);
	CHECK(strstr(why, "across replicas") != NULL);
}

TEST(same_gpu_type_in_two_pools_is_one_job)
{
	/* Two pools of the same GPU (two sites, or two price lines): a stock
	 * job sees identical ranks. */
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", "1x8xH100-SXM,name=h2");
	unsigned m = mask_of(&c, "{\"zero\":1,\"replicas\":["
			     "{\"batch_share\":0.5,\"stages\":[" ONE_STAGE("h", 8) "]},"
			     "{\"batch_share\":0.5,\"stages\":[" ONE_STAGE("h2", 8) "]}]}",
			     NULL, 0);
	CHECK_EQ_INT(m, MC | ML | DS | IL);
}

TEST(uneven_batch_shares)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":1,\"replicas\":["
			     "{\"batch_share\":0.75,\"stages\":[" ONE_STAGE("h", 8) "]},"
			     "{\"batch_share\":0.25,\"stages\":[" ONE_STAGE("h", 8) "]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, 0);
	CHECK(strstr(why, "uneven DP batch") != NULL);
}

TEST(mixed_tp_degrees)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":1,\"replicas\":[{\"stages\":["
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
			     "{\"pool\":\"h\",\"tp\":4,\"first_layer\":16,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, 0);
	CHECK(strstr(why, "mixed TP") != NULL);
}

TEST(different_replica_layouts)
{
	struct cluster c;
	cluster2(&c, "3x8xH100-SXM,name=h", NULL);
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":1,\"replicas\":["
			     "{\"batch_share\":0.5,\"stages\":[" ONE_STAGE("h", 8) "]},"
			     "{\"batch_share\":0.5,\"stages\":["
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":16,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, 0);
	CHECK(strstr(why, "different pipeline layouts") != NULL);
}

TEST(uneven_layer_split)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	/* 17 + 15 layers: Megatron-LM 2021-22 needs 32 % 2 == 0 and equal
	 * stages; DeepSpeed's partitions differ by at most one layer (here
	 * two); Megatron-Core's --pipeline-model-parallel-layout takes it. */
	unsigned m = mask_of(&c, "{\"zero\":1,\"replicas\":[{\"stages\":["
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":16},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":17,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC);
	CHECK(strstr(why, "megatron-lm: uneven layer split") != NULL);
	/* 16 + 16 with one stage of 3 layers elsewhere is not possible in 32
	 * layers on 2 stages; 11/11/10 on 3 stages differs by one: DeepSpeed
	 * (type:transformer balanced) accepts it, Megatron-LM does not, nor
	 * InternLM: partition_uniform gives the extra layers to the last
	 * stages (32 = 10 + 11 + 11), and 10/11/11 it runs. */
	cluster2(&c, "3x8xH100-SXM,name=h", NULL);
	m = mask_of(&c, "{\"zero\":1,\"replicas\":[{\"stages\":["
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":10},"
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":11,\"last_layer\":21},"
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":22,\"last_layer\":31}]}]}",
		    why, sizeof why);
	CHECK_EQ_INT(m, MC | DS);
	m = mask_of(&c, "{\"zero\":1,\"replicas\":[{\"stages\":["
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":9},"
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":10,\"last_layer\":20},"
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":21,\"last_layer\":31}]}]}",
		    why, sizeof why);
	CHECK_EQ_INT(m, MC | DS | IL);
}

TEST(zero3_with_pipeline)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	/* DeepSpeed pipe/engine.py: zero stage must be < 2 with PP;
	 * Megatron-LM 2021-22 has ZeRO-1 only; Megatron-Core FSDP and
	 * torchtitan FSDP2 + PP run it. */
	unsigned m = mask_of(&c, "{\"zero\":3,\"replicas\":[{\"stages\":["
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":16,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC | TT);
	CHECK(strstr(why, "deepspeed: ZeRO-3 with PP 2") != NULL);
	/* without PP DeepSpeed's ZeRO-3 engine runs it */
	m = mask_of(&c, "{\"zero\":3,\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
		    "\"stages\":[" ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK_EQ_INT(m, MC | DS | TT | AM | MX);
}

TEST(ddp_in_torchtitan_is_one_dimensional)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", NULL);
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":0,\"replicas\":[{\"stages\":[" ONE_STAGE("h", 8) "]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC | ML | DS | IL | MX);
	CHECK(strstr(why, "torchtitan: ZeRO-0") != NULL);
}

TEST(context_parallel)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":3,\"cp\":2,\"seq_len\":16384,\"replicas\":[{\"stages\":["
			     ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK_EQ_INT(m, MC | TT | AM);
	CHECK(strstr(why, "deepspeed: ring context parallelism") != NULL);
}

TEST(expert_parallel)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	/* EP 8: Megatron-LM 2021-22 has no MoE layers; Megatron-Core
	 * --expert-model-parallel-size, DeepSpeed-MoE ep_size and torchtitan
	 * expert_parallel_degree run it (ZeRO-3: torchtitan needs FSDP). */
	unsigned m = mask_of(&c, "{\"zero\":3,\"ep\":8,\"moe_dispatch\":\"alltoall\","
			     "\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
			     "\"stages\":[" ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK_EQ_INT(m, MC | DS | TT | AM);
	m = mask_of(&c, "{\"zero\":1,\"ep\":8,\"moe_dispatch\":\"alltoall\","
		    "\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
		    "\"stages\":[" ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK_EQ_INT(m, MC | DS);
	CHECK(strstr(why, "megatron-lm: expert parallelism (EP 8)") != NULL);
	/* Without the key the plan is costed with its framework's default
	 * dispatcher: flex for "any" (estimated as megatron-core,
	 * framework.c), which DeepSpeed-MoE and torchtitan do not have (their
	 * MoE layers dispatch with an all-to-all) */
	m = mask_of(&c, "{\"zero\":3,\"ep\":8,\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
		    "\"stages\":[" ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK_EQ_INT(m, MC | AM);   /* AutoModel's DeepEP is flex */
	CHECK(strstr(why, "torchtitan: the flex token dispatcher") != NULL);
	m = mask_of(&c, "{\"zero\":3,\"ep\":8,\"framework\":\"torchtitan\","
		    "\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
		    "\"stages\":[" ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK(m & TT);
}

TEST(interleaved_schedule)
{
	struct cluster c;
	cluster2(&c, "4x8xH100-SXM,name=h", NULL);
	char why[512];
	/* PP 4 x 8 layers, interleaved:2 (4 layers per chunk): DeepSpeed has
	 * 1F1B only; both Megatrons and InternLM interleave (partition_uniform
	 * with 2 chunks of 16: 4 layers per stage per chunk). */
	unsigned m = mask_of(&c, "{\"zero\":1,\"schedule\":\"interleaved:2\",\"replicas\":[{\"stages\":["
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":7},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":8,\"last_layer\":15},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":16,\"last_layer\":23},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":24,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC | ML | IL);
	CHECK(strstr(why, "deepspeed: interleaved") != NULL);
	/* Megatron-LM 2021-22 asserts PP > 2 with interleaving */
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	m = mask_of(&c, "{\"zero\":1,\"schedule\":\"interleaved:2\",\"replicas\":[{\"stages\":["
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":16,\"last_layer\":31}]}]}",
		    why, sizeof why);
	CHECK(!(m & ML));
	CHECK(strstr(why, "needs PP > 2") != NULL);
}

TEST(recompute_kinds)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", NULL);
	unsigned m = mask_of(&c, "{\"zero\":3,\"recompute\":\"selective-op\",\"replicas\":[{\"stages\":["
			     ONE_STAGE("h", 8) "]}]}", NULL, 0);
	CHECK_EQ_INT(m, TT);
	m = mask_of(&c, "{\"zero\":3,\"recompute\":\"selective\",\"replicas\":[{\"stages\":["
		    ONE_STAGE("h", 8) "]}]}", NULL, 0);
	/* MaxText's `minimal` policy recomputes the attention
	 * (docs/fp8-b200-maxtext.md section 1) */
	CHECK_EQ_INT(m, MC | MX);
}

TEST(fp8)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", NULL);
	unsigned m = mask_of(&c, "{\"zero\":1,\"precision\":\"fp8\",\"replicas\":[{\"stages\":["
			     ONE_STAGE("h", 8) "]}]}", NULL, 0);
	CHECK_EQ_INT(m, MC);
}

TEST(estimate_only_rows)
{
	struct cluster c;
	cluster2(&c, "1x8xA100-SXM4-80GB,name=a", NULL);
	char why[512];
	/* BERT fine-tuning as run_squad.py runs it: 8 data-parallel ranks,
	 * fp16 (--fp16), no sharding, no checkpointing: every row runs it
	 * but torchtitan (training.mixed_precision_param is "bfloat16" or
	 * "float32", torchtitan/config/job_config.py @000204a4), and
	 * deepspeed-0.3 too once the attention is unfused (its 2019 layer
	 * has no fused kernel; flash is the plan default). */
	const char *dp8 = "{\"zero\":0,\"precision\":\"fp16\",\"replicas\":[{\"count\":8,"
			  "\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}";
	CHECK_EQ_INT(mask_of(&c, dp8, why, sizeof why), RUNS_ON_ALL & ~D3 & ~TT);
	const char *dp8u = "{\"zero\":0,\"precision\":\"fp16\",\"flash\":false,\"replicas\":"
			   "[{\"count\":8,\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}";
	CHECK_EQ_INT(mask_of(&c, dp8u, why, sizeof why), RUNS_ON_ALL & ~TT);
	/* the same in bf16 (not a run_squad.py or DeepSpeed 0.3 precision):
	 * torchtitan's DDP runs it */
	const char *dp8b = "{\"zero\":0,\"precision\":\"bf16\",\"flash\":false,\"replicas\":"
			   "[{\"count\":8,\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}";
	CHECK(mask_of(&c, dp8b, why, sizeof why) & TT);
	CHECK_EQ_INT(RUNS_ON_ALL, MC | ML | DS | TT | PD | IL | LC | D3 | AM | HF | HS | MX);
	/* bf16: run_squad.py offers --fp16 or fp32 only; InternLM's bf16 */
	unsigned m = mask_of(&c, "{\"zero\":1,\"precision\":\"bf16\",\"replicas\":[{\"count\":8,"
			     "\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m & (PD | IL), IL);
	struct plan p;
	struct hp_err err = { 0 };
	plan_init(&p);
	p.gbs = 64;
	p.mbs = 1;
	const char *z3 = "{\"zero\":3,\"precision\":\"fp16\",\"replicas\":[{\"count\":8,\"batch_share\":0.125,"
			 "\"stages\":[" ONE_STAGE("a", 1) "]}]}";
	if (plan_parse_json(&p, z3, strlen(z3), "test", &c, &err) < 0)
		T_FAILF("%s", err.msg);
	runs_on_why_row(&p, &c, FW_INTERNLM, why, sizeof why);
	CHECK(strstr(why, "ZeRO-3 (Hybrid Zero shards the optimizer only") != NULL);
	runs_on_why_row(&p, &c, FW_PYTORCH_DDP, why, sizeof why);
	CHECK(strstr(why, "ZeRO-3 (apex DDP replicates the optimizer)") != NULL);
	runs_on_why_row(&p, &c, FW_MEGATRON_CORE, why, sizeof why);
	CHECK(!strcmp(why, ""));
	plan_free(&p);
	/* selective recomputation: Megatron's alone; full is InternLM's
	 * model.checkpoint, and not run_squad.py's */
	m = mask_of(&c, "{\"zero\":1,\"recompute\":\"full\",\"replicas\":[{\"count\":8,"
		    "\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}", NULL, 0);
	CHECK_EQ_INT(m & (PD | IL), IL);
	m = mask_of(&c, "{\"zero\":1,\"recompute\":\"selective\",\"replicas\":[{\"count\":8,"
		    "\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}", NULL, 0);
	CHECK_EQ_INT(m & (PD | IL), 0);
	/* TP 8 on one node: InternLM's tensor parallelism, not apex DDP */
	m = mask_of(&c, "{\"zero\":0,\"precision\":\"fp16\",\"replicas\":[{\"stages\":["
		    ONE_STAGE("a", 8) "]}]}", NULL, 0);
	CHECK_EQ_INT(m & (PD | IL), IL);
}

/* The plan in json (gbs 64, mbs 1) is not runnable on framework fw (bit
 * in runs_on_mask), and fw's reason contains want (case i of a table). */
static void check_denied(const struct cluster *c, const char *json, enum hp_framework fw,
			 unsigned bit, const char *want, size_t i)
{
	struct plan p;
	struct hp_err err = { 0 };
	char why[512];
	plan_init(&p);
	p.gbs = 64;
	p.mbs = 1;
	if (plan_parse_json(&p, json, strlen(json), "test", c, &err) < 0) {
		T_FAILF("%s", err.msg);
		plan_free(&p);
		return;
	}
	CHECK(!(runs_on_mask(&p, c, NULL, 0) & bit));
	runs_on_why_row(&p, c, fw, why, sizeof why);
	if (!strstr(why, want))
		T_FAILF("plan %zu: why '%s', want '%s'", i, why, want);
	plan_free(&p);
}

/* llm.c's train_gpt2.cu as scripts/run_gpt2_124M.sh runs it: mpirun -np 8,
 * bf16, -z 1, -r 0 (the BLLC rows' plan) runs; each of TP, PP, ZeRO-2,
 * recomputation and FP8 is outside what llm.c @f1e2ace can run. */
TEST(llmc_row)
{
	struct cluster c;
	cluster2(&c, "2x8xA100-SXM4-80GB,name=a", NULL);
	char why[512];
	const char *bllc = "{\"zero\":1,\"precision\":\"bf16\",\"replicas\":[{\"count\":8,"
			   "\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}";
	CHECK_EQ_INT(mask_of(&c, bllc, why, sizeof why) & LC, LC);
	static const struct { const char *json, *why; } no[] = {
		{ "{\"zero\":2,\"replicas\":[{\"count\":8,\"batch_share\":0.125,\"stages\":["
		  ONE_STAGE("a", 1) "]}]}", "ZeRO-2 (llm.c's -z takes 0 or 1" },
		{ "{\"zero\":1,\"replicas\":[{\"count\":2,\"batch_share\":0.5,\"stages\":["
		  ONE_STAGE("a", 8) "]}]}", "TP or PP (llm.c: data parallelism only)" },
		{ "{\"zero\":1,\"replicas\":[{\"count\":8,\"batch_share\":0.125,\"stages\":["
		  "{\"pool\":\"a\",\"first_layer\":0,\"last_layer\":15},"
		  "{\"pool\":\"a\",\"first_layer\":16,\"last_layer\":31}]}]}",
		  "TP or PP (llm.c: data parallelism only)" },
		{ "{\"zero\":1,\"recompute\":\"full\",\"replicas\":[{\"count\":8,\"batch_share\":0.125,"
		  "\"stages\":[" ONE_STAGE("a", 1) "]}]}", "recomputation (llm.c's -r" },
		{ "{\"zero\":1,\"precision\":\"fp8\",\"replicas\":[{\"count\":8,\"batch_share\":0.125,"
		  "\"stages\":[" ONE_STAGE("a", 1) "]}]}", "FP8 (llm.c: bf16, fp16 or fp32)" },
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		check_denied(&c, no[i].json, FW_LLMC, LC, no[i].why, i);
}

/* DeepSpeedExamples' 2019 Megatron-LM under DeepSpeed 0.3 as DLPerf ran
 * it (the BLDSV rows): 8 data-parallel ranks, fp16, ZeRO 0 or 1, unfused
 * attention, runs; PP, sequence parallelism, ZeRO-2, bf16, fused
 * attention and selective recomputation are outside that code. */
TEST(ds03_row)
{
	struct cluster c;
	cluster2(&c, "2x8xV100-SXM2-16GB,name=a", NULL);
	char why[512];
	const char *bldsv = "{\"zero\":1,\"precision\":\"fp16\",\"flash\":false,\"replicas\":"
			    "[{\"count\":8,\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}";
	CHECK_EQ_INT(mask_of(&c, bldsv, why, sizeof why) & D3, D3);
	static const struct { const char *json, *why; } no[] = {
		{ "{\"zero\":2,\"precision\":\"fp16\",\"flash\":false,\"replicas\":[{\"count\":8,"
		  "\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}",
		  "ZeRO-2 (the row counts DeepSpeed 0.3's ZeRO 0-1 paths)" },
		{ "{\"zero\":1,\"precision\":\"fp16\",\"flash\":false,\"replicas\":[{\"count\":8,"
		  "\"batch_share\":0.125,\"stages\":["
		  "{\"pool\":\"a\",\"first_layer\":0,\"last_layer\":15},"
		  "{\"pool\":\"a\",\"first_layer\":16,\"last_layer\":31}]}]}",
		  "PP (DeepSpeedExamples' 2019 Megatron-LM has no pipeline)" },
		{ "{\"zero\":1,\"precision\":\"fp16\",\"flash\":false,\"replicas\":[{\"count\":2,"
		  "\"batch_share\":0.5,\"stages\":[" ONE_STAGE("a", 8) "]}]}",
		  "sequence parallelism (2019 Megatron-LM)" },
		{ "{\"zero\":1,\"precision\":\"bf16\",\"flash\":false,\"replicas\":[{\"count\":8,"
		  "\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}",
		  "bf16 (DeepSpeed 0.3 runs fp16 or fp32)" },
		{ "{\"zero\":1,\"precision\":\"fp16\",\"replicas\":[{\"count\":8,"
		  "\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}",
		  "flash attention (2019 Megatron-LM has no fused attention kernel: --attention unfused)" },
		{ "{\"zero\":1,\"precision\":\"fp16\",\"flash\":false,\"recompute\":\"selective\","
		  "\"replicas\":[{\"count\":8,\"batch_share\":0.125,\"stages\":[" ONE_STAGE("a", 1) "]}]}",
		  "selective recomputation (--checkpoint-activations" },
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		check_denied(&c, no[i].json, FW_DEEPSPEED_03, D3, no[i].why, i);
}

/* EP 8 on 16 H100s, a plan each estimate-only row's other rules take
 * (TP 1, PP 1, ZeRO 0, fp16, unfused attention, no recomputation): none
 * of their model codes has a MoE layer (DLE BERT, InternLM @01e7fd61,
 * llm.c's GPT-2, the 2019 Megatron-LM), so each refuses it for the
 * experts; Megatron-Core and DeepSpeed-MoE run it. */
TEST(ep_on_dense_only_rows)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	const char *ep8 = "{\"zero\":0,\"precision\":\"fp16\",\"flash\":false,\"ep\":8,"
			  "\"moe_dispatch\":\"alltoall\",\"replicas\":[{\"count\":16,"
			  "\"batch_share\":0.0625,\"stages\":[" ONE_STAGE("h", 1) "]}]}";
	static const enum hp_framework dense[] = { FW_PYTORCH_DDP, FW_PYTORCH_DDP_2020,
						   FW_INTERNLM, FW_LLMC, FW_DEEPSPEED_03 };
	for (size_t i = 0; i < sizeof dense / sizeof dense[0]; i++)
		check_denied(&c, ep8, dense[i], 1u << dense[i], "no MoE layer", i);
	CHECK_EQ_INT(mask_of(&c, ep8, NULL, 0) & (MC | DS), MC | DS);
}

/* A plan that breaks a plan-wide setting of an estimate-only row (bf16
 * under apex DDP: run_squad.py takes --fp16 or fp32) and layout rules
 * too (TP 2, and 2 replicas with 60% and 40% of the batch): the row's
 * reason is the setting, which --precision changes, not the layout of
 * whichever candidate the planner refused first; the stock rows keep
 * the shared rule's reason. */
TEST(setting_reason_first)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	const char *json = "{\"zero\":0,\"precision\":\"bf16\",\"replicas\":["
			   "{\"batch_share\":0.6,\"stages\":[" ONE_STAGE("h", 2) "]},"
			   "{\"batch_share\":0.4,\"stages\":[" ONE_STAGE("h", 2) "]}]}";
	check_denied(&c, json, FW_PYTORCH_DDP, 1u << FW_PYTORCH_DDP,
		     "bf16 (run_squad.py: --fp16 or fp32)", 0);
	check_denied(&c, json, FW_DEEPSPEED_03, 1u << FW_DEEPSPEED_03,
		     "bf16 (DeepSpeed 0.3 runs fp16 or fp32)", 1);
	/* InternLM runs bf16: its reason is the shared rule's */
	check_denied(&c, json, FW_INTERNLM, 1u << FW_INTERNLM, "uneven DP batch shares", 2);
	CHECK_EQ_INT(mask_of(&c, json, why, sizeof why), 0);
	CHECK(strstr(why, "needs a heterogeneity-aware runtime: uneven DP batch shares") != NULL);
}

/* runs_on_runnable of the plan in `estimate --plan` JSON (-1: refused). */
static int runnable_of(const struct cluster *c, const char *json)
{
	struct plan p;
	struct hp_err err = { 0 };
	plan_init(&p);
	p.gbs = 64;
	p.mbs = 1;
	if (plan_parse_json(&p, json, strlen(json), "test", c, &err) < 0) {
		T_FAILF("%s", err.msg);
		plan_free(&p);
		return -1;
	}
	int r = runs_on_runnable(&p, c);
	plan_free(&p);
	return r;
}

/* V100 (sm70): Megatron's --use-flash-attn (flash-attn 2) and Transformer
 * Engine's fused attention need sm80 (Dao-AILab/flash-attention README:
 * Ampere, Ada, Hopper); DeepSpeed lists Volta among the GPUs it is
 * developed and tested on (deepspeedai/DeepSpeed README, Requirements:
 * "NVIDIA: Pascal, Volta, Ampere, and Hopper architectures"), and the
 * 2019-21 Megatron-LM ran on V100 DGX-2H (Shoeybi et al. 2019). So a V100
 * plan with unfused attention in fp16 runs on the Megatron rows and
 * DeepSpeed, not on torchtitan (fp16 is not one of its
 * mixed_precision_param values, torchtitan/config/job_config.py
 * @000204a4); with fused attention only torchtitan's SDPA would run it,
 * and in fp16 nothing does. */
TEST(volta_attention_and_fp16)
{
	struct cluster c;
	cluster2(&c, "2x8xV100-SXM2-32GB,name=v", NULL);
	char why[512];
	const char *unf = "{\"zero\":1,\"precision\":\"fp16\",\"flash\":false,\"replicas\":"
			  "[{\"count\":2,\"batch_share\":0.5,\"stages\":[" ONE_STAGE("v", 8) "]}]}";
	CHECK_EQ_INT(mask_of(&c, unf, why, sizeof why) & RUNS_ON_STOCK, MC | ML | DS);
	CHECK_EQ_INT(runnable_of(&c, unf), 1);
	const char *unf3 = "{\"zero\":3,\"precision\":\"fp16\",\"flash\":false,\"replicas\":"
			   "[{\"count\":2,\"batch_share\":0.5,\"stages\":[" ONE_STAGE("v", 8) "]}]}";
	CHECK_EQ_INT(mask_of(&c, unf3, why, sizeof why) & RUNS_ON_STOCK, MC | DS);
	CHECK(strstr(why, "torchtitan: fp16") != NULL);
	const char *fl = "{\"zero\":1,\"precision\":\"fp16\",\"replicas\":"
			 "[{\"count\":2,\"batch_share\":0.5,\"stages\":[" ONE_STAGE("v", 8) "]}]}";
	CHECK_EQ_INT(mask_of(&c, fl, why, sizeof why), 0u);
	CHECK(strstr(why, "megatron-core, megatron-lm, deepspeed: flash attention on V100") != NULL);
	CHECK_EQ_INT(runnable_of(&c, fl), 0);
	/* fp32 and ZeRO-3 with fused attention: torchtitan's SDPA alone */
	const char *f32 = "{\"zero\":3,\"precision\":\"fp32\",\"replicas\":"
			  "[{\"count\":2,\"batch_share\":0.5,\"stages\":[" ONE_STAGE("v", 8) "]}]}";
	CHECK_EQ_INT(mask_of(&c, f32, NULL, 0) & RUNS_ON_STOCK, TT);
	CHECK_EQ_INT(runnable_of(&c, f32), 1);
}

/* A heterogeneous plan runs on no stock framework (one SPMD program), yet
 * it is offered when its pieces' settings run on one: unfused attention
 * in fp16 over H100 and V100 replicas does; fused attention in fp16 does
 * not (no stock row runs it on the V100 piece). */
TEST(runnable_pieces)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", "1x8xV100-SXM2-32GB,name=v");
	const char *unf = "{\"zero\":1,\"precision\":\"fp16\",\"flash\":false,\"replicas\":["
			  "{\"count\":1,\"batch_share\":0.6,\"stages\":[" ONE_STAGE("h", 8) "]},"
			  "{\"count\":1,\"batch_share\":0.4,\"stages\":[" ONE_STAGE("v", 8) "]}]}";
	CHECK_EQ_INT(mask_of(&c, unf, NULL, 0), 0u);
	CHECK_EQ_INT(runnable_of(&c, unf), 1);
	const char *fl = "{\"zero\":1,\"precision\":\"fp16\",\"replicas\":["
			 "{\"count\":1,\"batch_share\":0.6,\"stages\":[" ONE_STAGE("h", 8) "]},"
			 "{\"count\":1,\"batch_share\":0.4,\"stages\":[" ONE_STAGE("v", 8) "]}]}";
	CHECK_EQ_INT(runnable_of(&c, fl), 0);
	/* the H100 piece alone, fused, in fp16: Megatron-Core runs it */
	const char *h = "{\"zero\":1,\"precision\":\"fp16\",\"replicas\":[{\"count\":1,"
			"\"batch_share\":1,\"stages\":[" ONE_STAGE("h", 8) "]}]}";
	CHECK(mask_of(&c, h, NULL, 0) & MC);
	CHECK_EQ_INT(runnable_of(&c, h), 1);
}

/* Offload (plan.h): the optimizer to the host is DeepSpeed's
 * ZeRO-Offload (zero_optimization.offload_optimizer), the activations
 * Megatron-Core's --cpu-offloading-num-layers; each is one framework's. */
TEST(offload)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", NULL);
	unsigned m = mask_of(&c, "{\"zero\":1,\"framework\":\"deepspeed\",\"offload\":\"optimizer\","
			     "\"replicas\":[{\"count\":8,\"batch_share\":0.125,\"stages\":["
			     ONE_STAGE("h", 1) "]}]}", NULL, 0);
	CHECK_EQ_INT(m, DS);
	m = mask_of(&c, "{\"zero\":1,\"framework\":\"megatron-core\",\"offload\":\"activations\","
		    "\"offload_layers\":4,\"replicas\":[{\"count\":8,\"batch_share\":0.125,"
		    "\"stages\":[" ONE_STAGE("h", 1) "]}]}", NULL, 0);
	CHECK_EQ_INT(m, MC);
}

TEST(names_and_pick)
{
	char b[96];
	CHECK(!strcmp(runs_on_names(MC | TT, b, sizeof b), "megatron-core, torchtitan"));
	CHECK(!strcmp(runs_on_names(0, b, sizeof b), "none"));
	/* RUNS ON names what launch writes: the estimate-only bits are not
	 * names there, and a mask of only those reads "none" */
	CHECK(!strcmp(runs_on_names(RUNS_ON_ALL, b, sizeof b),
		      "megatron-core, megatron-lm, deepspeed, torchtitan"));
	CHECK(!strcmp(runs_on_short(RUNS_ON_ALL, b, sizeof b), "mcore+mlm+ds+titan"));
	CHECK(!strcmp(runs_on_names(IL, b, sizeof b), "none"));
	CHECK(!strcmp(runs_on_short(MC | DS, b, sizeof b), "mcore+ds"));
	CHECK_EQ_INT(runs_on_pick(DS | TT), FW_TORCHTITAN);
	CHECK_EQ_INT(runs_on_pick(0), FW_ANY);
}

/* MaxText @e591f30c (framework.c): fsdp shards parameters (ZeRO-3) or data
 * parallelism replicates them (ZeRO-0); its remat_policy applies to every
 * scanned layer; its circular pipeline is not hetplan's schedule. */
TEST(maxtext_rows_rules)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	unsigned m = mask_of(&c, "{\"zero\":3,\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
			     "\"stages\":[" ONE_STAGE("h", 8) "]}]}", NULL, 0);
	CHECK(m & MX);
	m = mask_of(&c, "{\"zero\":1,\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
		    "\"stages\":[" ONE_STAGE("h", 8) "]}]}", NULL, 0);
	CHECK(!(m & MX) && (m & MC));
	m = mask_of(&c, "{\"zero\":3,\"recompute\":\"full\",\"recompute_layers\":4,\"replicas\":"
		    "[{\"count\":2,\"batch_share\":0.5,\"stages\":[" ONE_STAGE("h", 8) "]}]}", NULL, 0);
	CHECK(!(m & MX) && (m & MC));
	m = mask_of(&c, "{\"zero\":3,\"replicas\":[{\"stages\":["
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":16,\"last_layer\":31}]}]}", NULL, 0);
	CHECK(!(m & MX) && (m & MC));
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	const struct model_spec *m = catalog_model(&cat, "llama3.1-8b");
	if (!m) {
		fprintf(stderr, "no llama3.1-8b in the catalog\n");
		return 1;
	}
	model = *m;
	RUN(uniform_plan_runs_everywhere_it_may);
	RUN(mixed_gpu_types_in_a_pipeline);
	RUN(mixed_gpu_types_on_two_networks);
	RUN(mixed_gpu_types_across_replicas);
	RUN(same_gpu_type_in_two_pools_is_one_job);
	RUN(uneven_batch_shares);
	RUN(mixed_tp_degrees);
	RUN(different_replica_layouts);
	RUN(uneven_layer_split);
	RUN(zero3_with_pipeline);
	RUN(ddp_in_torchtitan_is_one_dimensional);
	RUN(context_parallel);
	RUN(expert_parallel);
	RUN(interleaved_schedule);
	RUN(recompute_kinds);
	RUN(fp8);
	RUN(estimate_only_rows);
	RUN(llmc_row);
	RUN(ds03_row);
	RUN(ep_on_dense_only_rows);
	RUN(setting_reason_first);
	RUN(volta_attention_and_fp16);
	RUN(runnable_pieces);
	RUN(offload);
	RUN(names_and_pick);
	RUN(maxtext_rows_rules);
	catalog_done(&cat);
	return t_done("runs_on");
}
