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
 *     an even batch split. */
#include "t.h"
#include "runs_on.h"

#include <string.h>

static struct catalog cat;
static struct model_spec model;   /* llama3.1-8b: 32 layers */

#define MC (1u << FW_MEGATRON_CORE)
#define ML (1u << FW_MEGATRON_LM)
#define DS (1u << FW_DEEPSPEED)
#define TT (1u << FW_TORCHTITAN)

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
	 * ZeRO-1. */
	unsigned m = mask_of(&c, "{\"zero\":1,\"recompute\":\"full\",\"replicas\":[{\"count\":1,"
			     "\"stages\":[{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":15},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":16,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC | ML | DS);
	CHECK(strstr(why, "torchtitan: ZeRO-1") != NULL);
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
	CHECK_EQ_INT(m, 0);
	CHECK(strstr(why, "heterogeneity-aware") && strstr(why, "one pipeline"));
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
	CHECK_EQ_INT(m, 0);
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
	CHECK_EQ_INT(m, MC | ML | DS);
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
	 * (type:transformer balanced) accepts it, Megatron-LM does not. */
	cluster2(&c, "3x8xH100-SXM,name=h", NULL);
	m = mask_of(&c, "{\"zero\":1,\"replicas\":[{\"stages\":["
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":10},"
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":11,\"last_layer\":21},"
		    "{\"pool\":\"h\",\"tp\":8,\"first_layer\":22,\"last_layer\":31}]}]}",
		    why, sizeof why);
	CHECK_EQ_INT(m, MC | DS);
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
	CHECK_EQ_INT(m, MC | DS | TT);
}

TEST(ddp_in_torchtitan_is_one_dimensional)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", NULL);
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":0,\"replicas\":[{\"stages\":[" ONE_STAGE("h", 8) "]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC | ML | DS);
	CHECK(strstr(why, "torchtitan: ZeRO-0") != NULL);
}

TEST(context_parallel)
{
	struct cluster c;
	cluster2(&c, "2x8xH100-SXM,name=h", NULL);
	char why[512];
	unsigned m = mask_of(&c, "{\"zero\":3,\"cp\":2,\"seq_len\":16384,\"replicas\":[{\"stages\":["
			     ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK_EQ_INT(m, MC | TT);
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
	unsigned m = mask_of(&c, "{\"zero\":3,\"ep\":8,\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
			     "\"stages\":[" ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK_EQ_INT(m, MC | DS | TT);
	m = mask_of(&c, "{\"zero\":1,\"ep\":8,\"replicas\":[{\"count\":2,\"batch_share\":0.5,"
		    "\"stages\":[" ONE_STAGE("h", 8) "]}]}", why, sizeof why);
	CHECK_EQ_INT(m, MC | DS);
	CHECK(strstr(why, "megatron-lm: expert parallelism (EP 8)") != NULL);
}

TEST(interleaved_schedule)
{
	struct cluster c;
	cluster2(&c, "4x8xH100-SXM,name=h", NULL);
	char why[512];
	/* PP 4 x 8 layers, interleaved:2 (4 layers per chunk): DeepSpeed has
	 * 1F1B only; both Megatrons and torchtitan interleave. */
	unsigned m = mask_of(&c, "{\"zero\":1,\"schedule\":\"interleaved:2\",\"replicas\":[{\"stages\":["
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":0,\"last_layer\":7},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":8,\"last_layer\":15},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":16,\"last_layer\":23},"
			     "{\"pool\":\"h\",\"tp\":8,\"first_layer\":24,\"last_layer\":31}]}]}",
			     why, sizeof why);
	CHECK_EQ_INT(m, MC | ML);
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
	CHECK_EQ_INT(m, MC);
}

TEST(fp8)
{
	struct cluster c;
	cluster2(&c, "1x8xH100-SXM,name=h", NULL);
	unsigned m = mask_of(&c, "{\"zero\":1,\"precision\":\"fp8\",\"replicas\":[{\"stages\":["
			     ONE_STAGE("h", 8) "]}]}", NULL, 0);
	CHECK_EQ_INT(m, MC);
}

TEST(names_and_pick)
{
	char b[96];
	CHECK(!strcmp(runs_on_names(MC | TT, b, sizeof b), "megatron-core, torchtitan"));
	CHECK(!strcmp(runs_on_names(0, b, sizeof b), "none"));
	CHECK(!strcmp(runs_on_short(MC | DS, b, sizeof b), "mcore+ds"));
	CHECK_EQ_INT(runs_on_pick(DS | TT), FW_TORCHTITAN);
	CHECK_EQ_INT(runs_on_pick(0), FW_ANY);
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
	RUN(names_and_pick);
	catalog_done(&cat);
	return t_done("runs_on");
}
