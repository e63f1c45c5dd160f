/* test_dispatch.c — the links dispatch_plan names per parallel dimension,
 * on two-pool plans: each pipeline boundary is labelled with the link it
 * crosses (inside a pool: that pool's NICs; between pools: the slower
 * pool's NICs through the spine, or the WAN between sites); and the DP,
 * CP and EP groups' links: the scale-up link inside a node, a pool's NICs
 * inside it, the slowest pool's NICs (or the WAN) for a group across
 * pools, marked the bottleneck. Every plan is also checked for agreement:
 * each stage's group (dispatch_group_link) is in its dimension's label,
 * and the estimate's communication table names a link some stage was
 * costed on (struct dispatch_link's costed), the same text.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "t.h"

#include "../src/catalog.h"
#include "../src/cluster.h"
#include "../src/dispatch.h"
#include "../src/plan.h"

#include <math.h>

static struct catalog cat;

/* The tables agree: for DP, CP and EP, every stage's group link is in its
 * dimension's label (the label is built from them), and the estimate's
 * communication table link of the dimension is the costed link of some
 * stage whose group runs there (the cost model and the labels choose the
 * pools by the same perf_dp_peer). */
static void agree(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		  const struct dispatch *d)
{
	struct estimate e;
	struct hp_err err = { 0 };
	if (perf_estimate(c, m, p, NULL, &e, &err) < 0) {
		T_FAILF("estimate: %s", err.msg);
		return;
	}
	const enum perf_dim dims[] = { DIM_DP, DIM_CP, DIM_EP };
	for (int i = 0; i < 3; i++) {
		int found = 0, any = 0;
		for (int r = 0; r < p->n_replicas; r++)
			for (int k = 0; k < p->replicas[r].n_stages; k++) {
				struct dispatch_link dl;
				if (dispatch_group_link(c, p, r, k, dims[i], &dl) < 0)
					continue;
				any = 1;
				CHECK(strstr(d->links[dims[i]], dl.crosses) != NULL);
				found |= !strcmp(dl.costed, e.comm[dims[i]].link);
			}
		if (any && e.comm[dims[i]].used) {
			CHECK(found);
			if (!found)
				fprintf(stderr, "  %s: table link %s, label %s\n",
					perf_dim_name(dims[i]), e.comm[dims[i]].link,
					d->links[dims[i]]);
		}
	}
	estimate_free(&e);
}

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
	agree(&c, m, &p, &d);
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
			   "h100-a100: 4x200G NIC (bottleneck), leaf and spine";
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "  got: %s\n", got);
}

/* The same pools at two sites: the h100-a100 boundary leaves by a100's
 * NICs and crosses the WAN (the fabric's inter_pool_gbps, 25 here), the
 * bottleneck it is costed on (perf_memo.c build_link: cross_site). */
TEST(pp_two_sites)
{
	char got[256];
	pp_label("{\"pools\": [{\"name\": \"h100\", \"gpu\": \"H100-SXM\", \"nodes\": 2, "
		 "\"nics\": 8, \"nic_gbps\": 400, \"site\": \"east\"}, {\"name\": \"a100\", "
		 "\"gpu\": \"A100-SXM4-80GB\", \"nodes\": 2, \"nics\": 4, \"nic_gbps\": 200, "
		 "\"site\": \"west\"}], \"fabric\": {\"inter_pool_gbps\": 25}}",
		 plan4, got, sizeof got);
	const char *want = "in h100: 8x400G NIC, leaf; in a100: 4x200G NIC, leaf; "
			   "h100-a100: 4x200G NIC, spine, WAN 25G between sites (bottleneck)";
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
	const char *want = "in x, y: 8x400G NIC, leaf; x-y: 8x400G NIC (bottleneck), leaf and spine";
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
	same(got, "4x200G NIC (bottleneck), leaf and spine");
}

/* The same at two sites: the group crosses the WAN (inter_pool_gbps 25). */
TEST(dp_spans_sites)
{
	char got[256];
	dim_label("llama3.1-70b", DIM_DP,
		  TWO_POOLS("2", ", \"site\": \"east\"", ", \"site\": \"west\"",
			    ", \"fabric\": {\"inter_pool_gbps\": 25}"),
		  plan_dp2, got, sizeof got);
	same(got, "4x200G NIC, spine, WAN 25G between sites (bottleneck)");
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
 * 8 x 2 = 16 GPUs, one EP group of 8 x 2, which could stay on its own
 * pool's NICs; the cost model (perf_int.h, perf_dp_peer) takes an EP
 * group that leaves the node on its DP group's pools, here both, and the
 * label says what it was costed on: a100's NICs, the bottleneck. (A
 * simplification: pessimistic by 3200 / 800 Gb/s on h100's groups.) */
TEST(ep_each_pool)
{
	char got[256];
	dim_label("mixtral-8x7b", DIM_EP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"ep\": 8, \"recompute\": \"full\", \"replicas\": ["
		  "{\"count\": 8, \"stages\": [" STAGE("h100", "2", "0", "31") "]},"
		  "{\"count\": 8, \"stages\": [" STAGE("a100", "2", "0", "31") "]}]}",
		  got, sizeof got);
	same(got, "4x200G NIC (bottleneck), leaf and spine");
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
	same(got, "4x200G NIC (bottleneck), leaf and spine");
	dim_label("mixtral-8x7b", DIM_EP, TWO_POOLS("2", "", "", ""),
		  "{\"mbs\": 1, \"gbs\": 64, \"ep\": 4, \"recompute\": \"full\", \"replicas\": ["
		  "{\"count\": 4, \"stages\": [" STAGE("h100", "2", "0", "31") "]},"
		  "{\"count\": 4, \"stages\": [" STAGE("a100", "2", "0", "31") "]}]}",
		  got, sizeof got);
	same(got, "NVSwitch (inside a node)");
}

/* Cluster and plan parsed for the tests below; 0, or -1 after a FAIL. */
static int load(const char *cluster_js, const char *plan_js, struct cluster *c,
		struct plan *p)
{
	struct hp_err err = { 0 };
	cluster_init(c);
	plan_init(p);
	if (cluster_parse_json(c, cluster_js, strlen(cluster_js), "c.json", &cat, &err) < 0 ||
	    plan_parse_json(p, plan_js, strlen(plan_js), "p.json", c, &err) < 0) {
		T_FAILF("%s", err.msg);
		plan_free(p);
		return -1;
	}
	return 0;
}

/* The link each DP group is costed on, by hand. plan_dp2 (a layer on
 * h100 and on a100): both stages' groups span both pools and are costed
 * on the fewer NICs, min(8, 4) = 4, at the smaller node total, min(8 x
 * 400, 4 x 200) = 800 Gb/s, 200G each, marked the bottleneck; A100-SXM4
 * and H100-SXM nodes are NVSwitch. Before, the h100 stage was named by
 * its own "8x400G NIC" and the a100 stage costed on its own pool alone.
 * A pipeline of one replica group (count 2, layers 0-39 on h100, 40-79
 * on a100): each DP group lies inside its pool, costed on its own NICs. */
TEST(costed_link_by_hand)
{
	struct cluster c;
	struct plan p;
	struct dispatch_link dl;
	if (load(TWO_POOLS("2", "", "", ""), plan_dp2, &c, &p) < 0)
		return;
	CHECK(dispatch_group_link(&c, &p, 0, 0, DIM_DP, &dl) == 0);
	CHECK(dl.mask == 3 && dl.peer == 1 && !dl.in_node);
	same(dl.costed, "NVSwitch + 4x200G NIC (bottleneck)");
	CHECK(dispatch_group_link(&c, &p, 1, 1, DIM_DP, &dl) == 0);
	CHECK(dl.mask == 3 && dl.peer == 0);
	same(dl.costed, "NVSwitch + 4x200G NIC (bottleneck)");
	CHECK(dispatch_group_link(&c, &p, 0, 0, DIM_CP, &dl) < 0);   /* cp 1: no group */
	plan_free(&p);
	if (load(TWO_POOLS("2", "", "", ""),
		 "{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": [{\"count\": 2, "
		 "\"stages\": [" STAGE("h100", "8", "0", "39") ", "
		 STAGE("a100", "8", "40", "79") "]}]}",
		 &c, &p) < 0)
		return;
	CHECK(dispatch_group_link(&c, &p, 0, 0, DIM_DP, &dl) == 0);
	CHECK(dl.mask == 1 && dl.peer == -1);
	same(dl.costed, "NVSwitch + 8x400G NIC");
	CHECK(dispatch_group_link(&c, &p, 0, 1, DIM_DP, &dl) == 0);
	CHECK(dl.mask == 2 && dl.peer == -1);
	same(dl.costed, "NVSwitch + 4x200G NIC");
	plan_free(&p);
}

/* TP 4, one replica on each pool holding every layer: the DP group is 2
 * ranks, and 8 / 4 = 2 of a stage's DP ranks would fit its node, but the
 * two are on two pools, so the group leaves the node: costed on a100's
 * NICs, the bottleneck, not "NVSwitch" inside a node as before. The
 * label and the estimate's table agree (dim_label checks it). */
TEST(two_pools_leave_the_node)
{
	char got[256];
	const char *plan = "{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": ["
			   "{\"count\": 1, \"stages\": [" STAGE("h100", "4", "0", "31") "]},"
			   "{\"count\": 1, \"stages\": [" STAGE("a100", "4", "0", "31") "]}]}";
	dim_label("llama3.1-8b", DIM_DP, TWO_POOLS("2", "", "", ""), plan, got, sizeof got);
	same(got, "4x200G NIC (bottleneck), leaf and spine");
	struct cluster c;
	struct plan p;
	struct dispatch_link dl;
	if (load(TWO_POOLS("2", "", "", ""), plan, &c, &p) < 0)
		return;
	CHECK(dispatch_group_link(&c, &p, 0, 0, DIM_DP, &dl) == 0);
	CHECK(!dl.in_node);
	same(dl.costed, "NVSwitch + 4x200G NIC (bottleneck)");
	plan_free(&p);
}

/* The communication table's DP row of plan_js on cluster_js,
 * llama3.1-70b (used 0 on failure). */
static struct perf_comm dp_row(const char *cluster_js, const char *plan_js)
{
	struct cluster c;
	struct plan p;
	struct estimate e;
	struct hp_err err = { 0 };
	struct perf_comm v = { 0 };
	if (load(cluster_js, plan_js, &c, &p) < 0)
		return v;
	const struct model_spec *m = catalog_model(&cat, "llama3.1-70b");
	if (m && perf_estimate(&c, m, &p, NULL, &e, &err) == 0) {
		v = e.comm[DIM_DP];
		estimate_free(&e);
	}
	plan_free(&p);
	return v;
}

/* a100 with NICS NICs of GBPS, beside h100's 8x400G. */
#define A100_NICS(nics, gbps)                                                              \
	"{\"pools\": [{\"name\": \"h100\", \"gpu\": \"H100-SXM\", \"nodes\": 2, \"nics\": 8, " \
	"\"nic_gbps\": 400}, {\"name\": \"a100\", \"gpu\": \"A100-SXM4-80GB\", \"nodes\": 2, "  \
	"\"nics\": " nics ", \"nic_gbps\": " gbps "}]}"

/* The cost follows the pools a group spans. A pipeline of two replicas,
 * layers 0-3 on a100 and 4-79 on h100: the h100 stage's DP group lies on
 * h100, and its reduce-scatter (76 layers' gradients, the table's DP row:
 * the most exposed) takes the same time, bit for bit, whether a100's
 * NICs are 4x200G or as fast as h100's 8x400G, on "NVSwitch + 8x400G
 * NIC". Before, it was costed on the slower pool's NICs while named by
 * h100's: 2.07 s with a100 at 4x200G against 0.52 s at 8x400G. */
TEST(cost_follows_span)
{
	const char *pipe = "{\"mbs\": 1, \"gbs\": 64, \"recompute\": \"full\", \"replicas\": "
			   "[{\"count\": 2, \"stages\": [" STAGE("a100", "8", "0", "3") ", "
			   STAGE("h100", "8", "4", "79") "]}]}";
	struct perf_comm a = dp_row(A100_NICS("4", "200"), pipe);
	struct perf_comm b = dp_row(A100_NICS("8", "400"), pipe);
	CHECK(a.used && b.used && a.bytes == b.bytes);
	same(a.link, "NVSwitch + 8x400G NIC");
	CHECK(a.time_s > 0 && a.time_s == b.time_s);
	if (a.time_s != b.time_s)
		fprintf(stderr, "  DP %.6g s with a100 at 4x200G, %.6g s at 8x400G\n", a.time_s,
			b.time_s);
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
	RUN(costed_link_by_hand);
	RUN(two_pools_leave_the_node);
	RUN(cost_follows_span);
	return t_done("dispatch");
}
