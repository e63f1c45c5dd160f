/* test_moe23.c — the estimate-only NeMo AutoModel row (src/framework.h,
 * FW_AUTOMODEL) and DeepEP's once-per-rank dispatch (ep_rank_dedup):
 *  - the row's fields against NVIDIA-NeMo/Automodel @e45812012, the
 *    commit of the BLAM rows' page (each check names the file it reads);
 *  - its name parses for plans and `estimate`, not for launch;
 *  - the expert all-to-all by hand: a Qwen3-30B-A3B-shaped layer (128
 *    experts, top 8) at EP 8 in one node, where DeepEP sends a token once
 *    to each rank holding any of its experts, and a Mixtral-shaped one
 *    (8 experts, top 2), where every expert has a rank of its own and
 *    nothing is saved;
 *  - one Mixtral layer's dispatch and combine bytes and calls by hand
 *    against the estimate's EP line. */
#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "framework.h"
#include "perf.h"
#include "plan.h"

#include <math.h>

static struct catalog cat;

/* Each field as the code at e45812012 has it. */
TEST(row_as_automodel_runs)
{
	const struct framework_info *f = framework_get(FW_AUTOMODEL);
	CHECK(!strcmp(f->name, "nemo-automodel"));
	/* components/moe/parallelizer.py and distributed/parallelizer.py:
	 * MixedPrecisionPolicy(param_dtype=torch.bfloat16,
	 * reduce_dtype=torch.float32) */
	CHECK(f->grad_reduce_fp32 == 1);
	/* models/common/utils.py BackendConfig: attn "te" (cuDNN fused
	 * attention on Hopper), as megatron-core's row */
	CHECK(f->attn_gen3 == 1 && f->attn_gen3 == framework_get(FW_MEGATRON_CORE)->attn_gen3);
	/* moe/megatron/token_dispatcher.py: token_permutation2 and
	 * token_unpermutation pass async_finish=False, allocate_on_comm_stream=
	 * False: dispatch and combine block the compute stream */
	CHECK(f->ep_overlap == 0);
	CHECK(!framework_ep_overlap_on(FW_AUTOMODEL, 8, 1, 1, 0, 0));
	/* fused_a2a.py: DeepEP Buffer.get_dispatch_layout / dispatch with
	 * is_token_in_rank ([num_tokens, num_ranks] bool) */
	CHECK(f->ep_dispatch_dedup == 1 && f->ep_rank_dedup == 1);
	/* megatron-core's row runs HybridEP (launch.c) and keeps its
	 * per-expert picture; torchtitan's all-to-all has no dedup */
	CHECK(framework_get(FW_MEGATRON_CORE)->ep_rank_dedup == 0);
	CHECK(framework_get(FW_TORCHTITAN)->ep_rank_dedup == 0);
	/* distributed/parallelizer.py apply_fsdp2_sharding_recursively:
	 * reshard_after_forward = not pp_enabled (all but the last layer) */
	CHECK(framework_default_zero(FW_AUTOMODEL, 1) == 3);
	CHECK(framework_default_zero(FW_AUTOMODEL, 2) == 2);
	CHECK(framework_zero_max(FW_AUTOMODEL) == 3);
	/* enable_async_tensor_parallel defaults to False */
	CHECK(f->tp_overlap == 0 && f->grad_overlap == 1 && f->param_overlap == 1);
	CHECK(f->moe == 1 && f->moe_switch_only == 0);
}

TEST(name_parses_estimate_only)
{
	enum hp_framework out = FW_ANY;
	CHECK(framework_parse_estimate("nemo-automodel", &out) == 0 && out == FW_AUTOMODEL);
	CHECK(framework_parse_estimate("AutoModel", &out) == 0 && out == FW_AUTOMODEL);
	CHECK(framework_parse("nemo-automodel", &out) == -1);
	CHECK(!framework_launchable(FW_AUTOMODEL));
	char b[256];
	CHECK(strstr(framework_list(FW_LIST_ESTIMATE_ONLY, b, sizeof b), "nemo-automodel") != NULL);
	CHECK(strstr(framework_list(FW_LIST_LAUNCHABLE, b, sizeof b), "nemo-automodel") == NULL);
}

/* Exposed EP seconds of one step on one node of 8 H100: TP 1, PP 1,
 * DP 8 = EP 8, bf16, micro-batch 4 of 4,096, 8 micro-batches, ZeRO 3,
 * no recompute, under framework fw. */
static double ep_s_comm(const struct model_spec *m, enum hp_framework fw, struct perf_comm *out)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, "1x8xH100-SXM,name=a", &cat, &err) < 0) {
		T_FAILF("%s", err.msg);
		return -1;
	}
	struct plan p;
	plan_init(&p);
	p.mbs = 4;
	p.gbs = 256;
	p.precision = HP_BF16;
	p.flash = 1;
	p.zero = 3;
	p.ep = 8;
	p.framework = fw;
	double t = -1;
	if (plan_uniform(&p, &c, m, 0, 1, 1, 8, &err) < 0) {
		T_FAILF("%s", err.msg);
	} else {
		struct estimate e;
		if (perf_estimate(&c, m, &p, NULL, &e, &err) == 0) {
			t = e.bd.ep_comm;
			if (out)
				*out = e.comm[DIM_EP];
			estimate_free(&e);
		} else {
			T_FAILF("%s", err.msg);
		}
	}
	plan_free(&p);
	return t;
}

static double ep_s(const struct model_spec *m, enum hp_framework fw)
{
	return ep_s_comm(m, fw, NULL);
}

/* By hand, Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B config.json: 128 experts,
 * 8 a token) at EP 8: each rank holds 16 experts. An NCCL all-to-all
 * sends a token's row once per routed expert on another rank,
 * 8 x 7/8 = 7 copies. DeepEP sends it once per other rank holding any of
 * its 8 experts: a given rank holds none of them with probability
 * C(112, 8) / C(128, 8) = (112 x 111 x ... x 105) / (128 x 127 x ... x
 * 121) = 0.332580 (8 factors), so 7 x (1 - 0.332580) = 4.67194 copies,
 * a share of 0.667420. torchtitan's alltoall and AutoModel's DeepEP move
 * the same picture otherwise (same layers and micro-batches, no EP
 * overlap in either, 4 all-to-alls a layer without recompute), so the EP seconds differ by that share, to within the
 * all-to-all's fixed latency (microseconds against seconds). */
TEST(deepep_once_per_rank_by_hand)
{
	const struct model_spec *q = catalog_model(&cat, "mixtral-8x7b");
	CHECK(q != NULL);
	if (!q)
		return;
	struct model_spec m = *q;
	m.layers = 48;
	m.hidden = 2048;
	m.moe.experts = 128;
	m.moe.top_k = 8;
	m.moe.expert_ffn = 768;
	double titan = ep_s(&m, FW_TORCHTITAN), am = ep_s(&m, FW_AUTOMODEL);
	double want = 0.667420;
	CHECK(titan > 0 && am > 0);
	if (!(fabs(am / titan - want) < 0.01))
		T_FAILF("EP: torchtitan %.4f s, nemo-automodel %.4f s, ratio %.4f, want %.4f",
			titan, am, am / titan, want);
	/* Mixtral 8x7B (8 experts, top 2) at EP 8: one expert a rank, so a
	 * token's two experts are two ranks: 7 x (1 - C(7, 2) / C(8, 2)) =
	 * 7 x 0.25 = 1.75 copies, the all-to-all's 2 x 7/8 = 1.75. Equal. */
	titan = ep_s(q, FW_TORCHTITAN);
	am = ep_s(q, FW_AUTOMODEL);
	if (!(titan > 0 && fabs(am - titan) < 1e-9 * titan))
		T_FAILF("Mixtral EP 8: torchtitan %.6f s, nemo-automodel %.6f s, want equal",
			titan, am);
}

/* One Mixtral 8x7B MoE layer's all-to-all by hand (catalog: hidden 4,096,
 * 32 layers, 8 experts, top 2, seq 4,096), on ep_s's layout: each rank
 * dispatches its micro-batch of 4 x 4,096 = 16,384 tokens, 2 rows of
 * 4,096 bf16 elements each: 16,384 x 2 x 4,096 x 2 B = 268,435,456 B
 * (256 MiB) per dispatch or combine. Per step: dispatch and combine,
 * forward and backward, 4 a layer, x 32 layers x 8 micro-batches (GBS
 * 256 / (DP 8 x MBS 4)) = 1,024 calls, all exposed under AutoModel (in
 * line: no overlap in its code). The estimate's EP line must say so. */
TEST(mixtral_layer_alltoall_by_hand)
{
	const struct model_spec *q = catalog_model(&cat, "mixtral-8x7b");
	CHECK(q != NULL);
	if (!q)
		return;
	struct perf_comm c = { 0 };
	double t = ep_s_comm(q, FW_AUTOMODEL, &c);
	CHECK(c.used);
	CHECK(c.coll == COMM_ALLTOALL);
	CHECK(c.group == 8);
	if (!(fabs(c.bytes - 268435456.0) < 1))
		T_FAILF("EP bytes per call %.0f, want 268,435,456", c.bytes);
	if (!(fabs(c.calls - 1024) < 1e-9))
		T_FAILF("EP calls per step %.1f, want 1,024", c.calls);
	if (!(t > 0 && fabs(c.exposed_s - t) < 1e-9 * t && fabs(c.time_s - t) < 1e-9 * t))
		T_FAILF("EP %.4f s, line time %.4f s, exposed %.4f s: want all exposed", t,
			c.time_s, c.exposed_s);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(row_as_automodel_runs);
	RUN(name_parses_estimate_only);
	RUN(deepep_once_per_rank_by_hand);
	RUN(mixtral_layer_alltoall_by_hand);
	catalog_done(&cat);
	return t_done("moe23");
}
