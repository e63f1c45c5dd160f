/* test_dispatch.c — the links dispatch_plan names per parallel dimension,
 * on two-pool plans: each pipeline boundary is labelled with the link it
 * crosses (inside a pool: that pool's NICs; between pools: the slower
 * pool's NICs through the spine, or the WAN between sites).
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "t.h"

#include "../src/catalog.h"
#include "../src/cluster.h"
#include "../src/dispatch.h"
#include "../src/plan.h"

static struct catalog cat;

/* The PP label of plan_js on cluster_js, llama3.1-70b; "" on failure. */
static void pp_label(const char *cluster_js, const char *plan_js, char *out, size_t n)
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
	const struct model_spec *m = catalog_model(&cat, "llama3.1-70b");
	CHECK(m != NULL);
	if (!m)
		return;
	plan_init(&p);
	if (plan_parse_json(&p, plan_js, strlen(plan_js), "p.json", &c, &err) < 0 ||
	    plan_validate(&p, &c, m, "p.json", &err) < 0) {
		T_FAILF("plan: %s", err.msg);
		return;
	}
	if (dispatch_plan(&c, m, &p, &d, &err) < 0) {
		T_FAILF("dispatch: %s", err.msg);
		return;
	}
	snprintf(out, n, "%s", d.links[DIM_PP]);
	dispatch_free(&d);
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
	return t_done("dispatch");
}
