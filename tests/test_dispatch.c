/* test_dispatch.c — the links dispatch_plan names per parallel dimension,
 * on two-pool plans: each pipeline boundary is labelled with the link it
 * crosses (inside a pool: that pool's NICs; between pools: the slower
 * pool's NICs through the spine, or the WAN between sites); and the DP,
 * CP and EP groups' links: the scale-up link inside a node, a pool's NICs
 * inside it, the slowest pool's NICs (or the WAN) for a group across
 * pools.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "t.h"

#include "../src/catalog.h"
#include "../src/cluster.h"
#include "../src/dispatch.h"
#include "../src/plan.h"

static struct catalog cat;

/* The label of dimension dim for plan_js on cluster_js, model; "" on
 * failure. */
static void dim_label(const char *model, enum perf_dim dim, const char *cluster_js,
		      const char *plan_js, char *out, size_t n)
{
	struct hp_err err = { 0 };
	struct cluster c;
	struct plan p;
	struct dispatch d;
	out[0] = '\0';
	cluster_init(&c);
	if (cluster_parse_json(&c, cluster_js, strlen(cluster_js), "c.json", &cat, &err) < 0) {
		T_FAILF("cluster: %s", err.msg);
		return;
	}
	const struct model_spec *m = catalog_model(&cat, model);
	CHECK(m != NULL);
	if (!m)
		return;
	plan_init(&p);
	if (plan_parse_json(&p, plan_js, strlen(plan_js), "p.json", &c, &err) < 0 ||
	    plan_validate(&p, &c, m, "p.json", &err) < 0) {
		T_FAILF("plan: %s", err.msg);
		plan_free(&p);
		return;
	}
	if (dispatch_plan(&c, m, &p, &d, &err) < 0) {
		T_FAILF("dispatch: %s", err.msg);
		plan_free(&p);
		return;
	}
	snprintf(out, n, "%s", d.links[dim]);
	dispatch_free(&d);
	plan_free(&p);
}

/* The PP label of plan_js on cluster_js, llama3.1-70b. */
static void pp_label(const char *cluster_js, const char *plan_js, char *out, size_t n)
{
	dim_label("llama3.1-70b", DIM_PP, cluster_js, plan_js, out, n);
}

/* CHECK that got is want, printing got when not. */
static void same(const char *got, const char *want)
{
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "  got:  %s\n  want: %s\n", got, want);
}

/* Four stages of TP 8, one per 8-GPU node: two on h100 (8x400G NICs), two
 * on a100 (4x200G NICs), 80 layers in four parts. */
static const char plan4[] =
	"{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": [{\"count\": 1, "
	"\"stages\": [{\"pool\": \"h100\", \"tp\": 8, \"first_layer\": 0, \"last_layer\": 19},"
	"{\"pool\": \"h100\", \"tp\": 8, \"first_layer\": 20, \"last_layer\": 39},"
	"{\"pool\": \"a100\", \"tp\": 8, \"first_layer\": 40, \"last_layer\": 59},"
	"{\"pool\": \"a100\", \"tp\": 8, \"first_layer\": 60, \"last_layer\": 79}]}]}";

/* Boundary 0-1 joins h100 nodes 0 and 1 (h100's NICs, its leaf); 1-2 joins
 * h100 to a100: 4 x 200 = 800 Gb/s against 8 x 400 = 3200, so a100's NICs
 * bound it, through the spine; 2-3 joins a100 nodes (a100's NICs). Before
 * the fix every boundary read h100's "8x400G NIC". */
TEST(pp_two_pools_same_site)
{
	char got[256];
	pp_label("{\"pools\": [{\"name\": \"h100\", \"gpu\": \"H100-SXM\", \"nodes\": 2, "
		 "\"nics\": 8, \"nic_gbps\": 400}, {\"name\": \"a100\", \"gpu\": "
		 "\"A100-SXM4-80GB\", \"nodes\": 2, \"nics\": 4, \"nic_gbps\": 200}]}",
		 plan4, got, sizeof got);
	const char *want = "in h100: 8x400G NIC, leaf; in a100: 4x200G NIC, leaf; "
			   "h100-a100: 4x200G NIC, leaf and spine";
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "  got: %s\n", got);
}

/* The same pools at two sites: the h100-a100 boundary is the WAN (the
 * fabric's inter_pool_gbps, 25 here). */
TEST(pp_two_sites)
{
	char got[256];
	pp_label("{\"pools\": [{\"name\": \"h100\", \"gpu\": \"H100-SXM\", \"nodes\": 2, "
		 "\"nics\": 8, \"nic_gbps\": 400, \"site\": \"east\"}, {\"name\": \"a100\", "
		 "\"gpu\": \"A100-SXM4-80GB\", \"nodes\": 2, \"nics\": 4, \"nic_gbps\": 200, "
		 "\"site\": \"west\"}], \"fabric\": {\"inter_pool_gbps\": 25}}",
		 plan4, got, sizeof got);
	const char *want = "in h100: 8x400G NIC, leaf; in a100: 4x200G NIC, leaf; "
			   "h100-a100: WAN 25G between sites";
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "  got: %s\n", got);
}

/* Two H100 pools with the same 8x400G NICs: their inside boundaries are
 * one group, named by both pools, and the boundary between them (4 stages,
 * two per pool, so stage 1 on "x" meets stage 2 on "y") is the same NICs
 * through the spine. */
TEST(pp_groups_alike)
{
	char got[256];
	pp_label("{\"pools\": [{\"name\": \"x\", \"gpu\": \"H100-SXM\", \"nodes\": 2, "
		 "\"nics\": 8, \"nic_gbps\": 400}, {\"name\": \"y\", \"gpu\": \"H100-SXM\", "
		 "\"nodes\": 2, \"nics\": 8, \"nic_gbps\": 400}]}",
		 "{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": [{\"count\": 1, "
		 "\"stages\": [{\"pool\": \"x\", \"tp\": 8, \"first_layer\": 0, \"last_layer\": 19},"
		 "{\"pool\": \"x\", \"tp\": 8, \"first_layer\": 20, \"last_layer\": 39},"
		 "{\"pool\": \"y\", \"tp\": 8, \"first_layer\": 40, \"last_layer\": 59},"
		 "{\"pool\": \"y\", \"tp\": 8, \"first_layer\": 60, \"last_layer\": 79}]}]}",
		 got, sizeof got);
	const char *want = "in x, y: 8x400G NIC, leaf; x-y: 8x400G NIC, leaf and spine";
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "  got: %s\n", got);
}

/* One pool: the label names no pool. Two stages of TP 4 on one 8-GPU node
 * share it (NVSwitch); the H100 node's link is NVSwitch. */
TEST(pp_one_pool_same_node)
{
	char got[256];
	pp_label("{\"pools\": [{\"name\": \"h100\", \"gpu\": \"H100-SXM\", \"nodes\": 2}]}",
		 "{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": [{\"count\": 1, "
		 "\"stages\": [{\"pool\": \"h100\", \"tp\": 4, \"first_layer\": 0, \"last_layer\": 39},"
		 "{\"pool\": \"h100\", \"tp\": 4, \"first_layer\": 40, \"last_layer\": 79}]}]}",
		 got, sizeof got);
	CHECK(strcmp(got, "NVSwitch (same node)") == 0);
	if (strcmp(got, "NVSwitch (same node)"))
		fprintf(stderr, "  got: %s\n", got);
}

/* h100 (8x400G NICs) and a100 (4x200G NICs), at one site or two. */
#define TWO_POOLS(nodes, site_a, site_b, fabric)                                              \
	"{\"pools\": [{\"name\": \"h100\", \"gpu\": \"H100-SXM\", \"nodes\": " nodes ", "       \
	"\"nics\": 8, \"nic_gbps\": 400" site_a "}, {\"name\": \"a100\", \"gpu\": "            \
	"\"A100-SXM4-80GB\", \"nodes\": " nodes ", \"nics\": 4, \"nic_gbps\": 200" site_b "}]" \
	fabric "}"
#define STAGE(pool, tp, a, b)                                                                   \
	"{\"pool\": \"" pool "\", \"tp\": " tp ", \"first_layer\": " a ", \"last_layer\": " b "}"

/* One replica group on each pool, two stages of TP 8 each, the same
 * layers: each layer's DP group has one rank on h100 and one on a100, so
 * it crosses both pools' NICs and the slower bounds it: a100's 4 x 200 =
 * 800 Gb/s against h100's 8 x 400 = 3200 (perf_memo.c build_link keeps
 * the smaller node total). Before: h100's "8x400G NIC", the first pool's. */
static const char plan_dp2[] =
	"{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": ["
	"{\"count\": 1, \"stages\": [" STAGE("h100", "8", "0", "39") ", " STAGE("h100", "8", "40", "79") "]},"
	"{\"count\": 1, \"stages\": [" STAGE("a100", "8", "0", "39") ", " STAGE("a100", "8", "40", "79") "]}]}";

TEST(dp_spans_pools)
{
	char got[256];
	dim_label("llama3.1-70b", DIM_DP, TWO_POOLS("2", "", "", ""), plan_dp2, got, sizeof got);
	same(got, "4x200G NIC, leaf and spine");
}

/* The same at two sites: the group crosses the WAN (inter_pool_gbps 25). */
TEST(dp_spans_sites)
{
	char got[256];
	dim_label("llama3.1-70b", DIM_DP,
		  TWO_POOLS("2", ", \"site\": \"east\"", ", \"site\": \"west\"",
			    ", \"fabric\": {\"inter_pool_gbps\": 25}"),
		  plan_dp2, got, sizeof got);
	same(got, "4x200G NIC, spine, WAN 25G between sites");
}

/* One replica group of two, layers 0-39 on h100 and 40-79 on a100: each
 * layer's two DP ranks sit on one pool, on two nodes (TP 8 fills a node),
 * so each pool's DP groups cross that pool's own NICs. */
TEST(dp_inside_each_pool)
{
	char got[256];
	dim_label("llama3.1-70b", DIM_DP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": [{\"count\": 2, "
		  "\"stages\": [" STAGE("h100", "8", "0", "39") ", " STAGE("a100", "8", "40", "79") "]}]}",
		  got, sizeof got);
	same(got, "in h100: 8x400G NIC, leaf and spine; in a100: 4x200G NIC, leaf and spine");
}

/* One pool, TP 4 x DP 2 = 8 GPUs: perf_stage_dp puts 8 / 4 = 2 DP ranks
 * in a node, the whole group: H100's NVSwitch. Before: "8x400G NIC". */
TEST(dp_inside_node)
{
	char got[256];
	dim_label("llama3.1-70b", DIM_DP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": [{\"count\": 2, "
		  "\"stages\": [" STAGE("h100", "4", "0", "79") "]}]}",
		  got, sizeof got);
	same(got, "NVSwitch (inside a node)");
}

/* CP 2 of TP 8: 16 GPUs, two nodes: the ring runs on each stage's own
 * pool (perf_stage_cp: the stage's pool alone), its NICs. */
TEST(cp_each_pool)
{
	char got[256];
	dim_label("llama3.1-70b", DIM_CP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"cp\": 2, \"recompute\": \"full\", \"replicas\": [{\"count\": 1, "
		  "\"stages\": [" STAGE("h100", "8", "0", "39") ", " STAGE("a100", "8", "40", "79") "]}]}",
		  got, sizeof got);
	same(got, "in h100: 8x400G NIC, leaf and spine; in a100: 4x200G NIC, leaf and spine");
}

/* CP 2 of TP 4 on a100: 8 GPUs, one node: A100-SXM's NVSwitch. */
TEST(cp_inside_node)
{
	char got[256];
	dim_label("llama3.1-70b", DIM_CP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"cp\": 2, \"recompute\": \"full\", \"replicas\": [{\"count\": 1, "
		  "\"stages\": [" STAGE("a100", "4", "0", "79") "]}]}",
		  got, sizeof got);
	same(got, "NVSwitch (inside a node)");
}

/* Mixtral, EP 8 of TP 2 (expert TP 2 by default): 8 / 2 = 4 EP ranks a
 * node, so a group of 8 spans two nodes. Each replica group holds
 * 8 x 2 = 16 GPUs, one EP group of 8 x 2: on its own pool's NICs. */
TEST(ep_each_pool)
{
	char got[256];
	dim_label("mixtral-8x7b", DIM_EP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"ep\": 8, \"recompute\": \"full\", \"replicas\": ["
		  "{\"count\": 8, \"stages\": [" STAGE("h100", "2", "0", "31") "]},"
		  "{\"count\": 8, \"stages\": [" STAGE("a100", "2", "0", "31") "]}]}",
		  got, sizeof got);
	same(got, "in h100: 8x400G NIC, leaf and spine; in a100: 4x200G NIC, leaf and spine");
}

/* EP 8 of TP 2 with four replicas a pool: a group of 8 EP ranks needs
 * both pools' (4 x 2 = 8 GPUs each, 16 for the group): a100's NICs bound
 * it. EP 4 of TP 2 fits a node (8 / 2 = 4 a node): NVSwitch. */
TEST(ep_spans_pools_or_node)
{
	char got[256];
	dim_label("mixtral-8x7b", DIM_EP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"ep\": 8, \"recompute\": \"full\", \"replicas\": ["
		  "{\"count\": 4, \"stages\": [" STAGE("h100", "2", "0", "31") "]},"
		  "{\"count\": 4, \"stages\": [" STAGE("a100", "2", "0", "31") "]}]}",
		  got, sizeof got);
	same(got, "4x200G NIC, leaf and spine");
	dim_label("mixtral-8x7b", DIM_EP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"ep\": 4, \"recompute\": \"full\", \"replicas\": ["
		  "{\"count\": 4, \"stages\": [" STAGE("h100", "2", "0", "31") "]},"
		  "{\"count\": 4, \"stages\": [" STAGE("a100", "2", "0", "31") "]}]}",
		  got, sizeof got);
	same(got, "NVSwitch (inside a node)");
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return 1;
	}
	RUN(pp_two_pools_same_site);
	RUN(pp_two_sites);
	RUN(pp_groups_alike);
	RUN(pp_one_pool_same_node);
	RUN(dp_spans_pools);
	RUN(dp_spans_sites);
	RUN(dp_inside_each_pool);
	RUN(dp_inside_node);
	RUN(cp_each_pool);
	RUN(cp_inside_node);
	RUN(ep_each_pool);
	RUN(ep_spans_pools_or_node);
	return t_done("dispatch");
}
