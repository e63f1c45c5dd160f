/* test_xgmi_mesh.c — an AMD Instinct OAM node of 8 (MI300X, MI325X,
 * MI350X, MI355X) joins its GPUs by xGMI as a full mesh without a switch:
 * 7 links a GPU, one to each peer, so an in-node group of g GPUs reaches
 * only the g - 1 links among them (src/comm.c, "xGMI full mesh";
 * docs/cdna.md).
 *
 * The facts, from sources independent of hetplan:
 *  - MI300X datasheet: 7 links x 128 GB/s bidirectional = 64 GB/s a
 *    direction a link, 448 GB/s a direction for the GPU; MI355X: 7 x
 *    153.6 GB/s = 76.8 a direction a link.
 *  - TransferBench on 8 MI300X, every GPU copying to its 7 peers at once:
 *    45.1-47.2 GB/s a link, 315-319 GB/s a GPU (ROCm/rocm-blogs
 *    blogs/software-tools-optimization/mi300x-rccl-xgmi @0e81c2ca); RCCL
 *    counts 48 GB/s a gfx94x link (GFX94X_XGMI_WIDTH, rccl src/graph/
 *    topo.h @0cbce2a7) and its topology search on a 4-GPU MI300X system
 *    prints "maxBw 48.0 totalBw 144.0": 3 links of 48 (ROCm/rccl issue
 *    1210).
 *  - rccl-tests all_reduce_perf, 8 MI300X, 8 GiB, out of place: busbw
 *    317.96 GB/s (the same blog, RCCL 2.22.3, ROCm 6.3) and 315.69 GB/s
 *    (tests/data/blind_comm.csv BC-MI300X-04).
 *
 * By hand:
 *  - TP 2: one link. A ring all-reduce of two ranks moves S each way over
 *    it; busbw = 2 (n-1)/n x algbw = algbw x 1 can be no more than the
 *    link's 64 GB/s a direction, and is no less than 40 (TransferBench's
 *    45.1 less a tenth for the reduction kernel).
 *  - TP 4: three links, RCCL's 144 GB/s (3 x 48); at most 3 x 64 = 192.
 *  - 8 ranks: every link; within 15% of the measured 317.96.
 *  - MI355X TP 2: at most one link's 76.8 GB/s.
 *  - the MI250X (4 packages a node, two GCDs each; scale-up domain 4) is
 *    not such a mesh: a pair there keeps more than a seventh of the
 *    package's 400 GB/s (8 links x 50); nor is one of its GCDs taken as
 *    a GPU 8 to a node (CDNA 2). */
#include "t.h"
#include "catalog.h"
#include "comm.h"

#include <string.h>

static struct catalog cat;

static const struct gpu_spec *G(const char *name)
{
	const struct gpu_spec *g = catalog_gpu(&cat, name);
	if (!g)
		T_FAILF("GPU %s missing from the catalog", name);
	return g;
}

/* busbw of an all-reduce of S bytes over n ranks of one node of GPU name,
 * the node's usual link inside; -1 on failure. */
static double spec_busbw(const struct gpu_spec *s, int n, double S)
{
	struct comm_group g;
	memset(&g, 0, sizeof g);
	comm_fabric_init(&g.fab, s, s->def_intra, s->def_nics, s->def_nic_gbps);
	g.ranks = n;
	g.ranks_per_node = n;
	g.oversub = 1;
	struct comm_result r;
	struct hp_err e = { 0 };
	if (comm_time(&g, COMM_ALLREDUCE, S, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, &e) < 0) {
		T_FAILF("comm_time %s x %d: %s", s->name, n, e.msg);
		return -1;
	}
	return r.busbw_Bps / 1e9;
}

static double ar_busbw(const char *name, int n, double S)
{
	const struct gpu_spec *s = G(name);
	return s ? spec_busbw(s, n, S) : -1;
}

#define GIB8 8589934592.0

TEST(mi300x_pair_has_one_link)
{
	double b = ar_busbw("MI300X", 2, GIB8);
	printf("MI300X all-reduce 8 GiB, 2 ranks: busbw %.1f GB/s (one link: 64 line, 45-48 measured)\n", b);
	CHECK(b >= 40 && b <= 64);
}

TEST(mi300x_quad_has_three_links)
{
	double b = ar_busbw("MI300X", 4, GIB8);
	printf("MI300X all-reduce 8 GiB, 4 ranks: busbw %.1f GB/s (RCCL: 3 x 48 = 144)\n", b);
	CHECK(b >= 120 && b <= 192);
	/* every pair is joined alike: a quad has three times a pair's links */
	double p = ar_busbw("MI300X", 2, GIB8);
	CHECK(p > 0 && b / p > 2.7 && b / p < 3.3);
}

TEST(mi300x_node_of_eight_keeps_every_link)
{
	double b = ar_busbw("MI300X", 8, GIB8);
	printf("MI300X all-reduce 8 GiB, 8 ranks: busbw %.1f GB/s (measured 317.96)\n", b);
	CHECK(b >= 317.96 * 0.85 && b <= 317.96 * 1.15);
}

TEST(mi325x_and_cdna4_pairs)
{
	/* the MI325X has the MI300X's links */
	double b = ar_busbw("MI325X", 2, GIB8);
	CHECK(b >= 40 && b <= 64);
	/* MI355X and MI350X: one link of 76.8 GB/s a direction */
	b = ar_busbw("MI355X", 2, GIB8);
	printf("MI355X all-reduce 8 GiB, 2 ranks: busbw %.1f GB/s (one link: 76.8 line)\n", b);
	CHECK(b > 0 && b <= 76.8);
	b = ar_busbw("MI350X", 4, GIB8);
	CHECK(b > 0 && b <= 3 * 76.8);
}

TEST(not_a_mesh_keeps_its_figure)
{
	/* MI250X, 4 packages a node: not the 8-GPU xGMI mesh */
	double b = ar_busbw("MI250X", 2, GIB8);
	printf("MI250X all-reduce 8 GiB, 2 ranks: busbw %.1f GB/s\n", b);
	CHECK(b > 400.0 / 7);
	/* one GCD of an MI250X as a GPU, 8 to a node (LUMI-G, Frontier; the
	 * blind driver's MI250X-GCD): CDNA 2, whose GCDs are joined by one,
	 * two or four links, not a full mesh of seven; its scale-up domain
	 * is 8, yet it keeps the halved module's 200 GB/s figure */
	const struct gpu_spec *m = G("MI250X");
	if (!m)
		return;
	struct gpu_spec gcd = *m;
	gcd.domain = 8;
	gcd.def_gpus_per_node = 8;
	gcd.link_Bps = m->link_Bps / 2;
	b = spec_busbw(&gcd, 2, GIB8);
	printf("MI250X GCD all-reduce 8 GiB, 2 ranks: busbw %.1f GB/s\n", b);
	CHECK(b > 200.0 / 7 * 2);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog_load: %s\n", err.msg);
		return 1;
	}
	RUN(mi300x_pair_has_one_link);
	RUN(mi300x_quad_has_three_links);
	RUN(mi300x_node_of_eight_keeps_every_link);
	RUN(mi325x_and_cdna4_pairs);
	RUN(not_a_mesh_keeps_its_figure);
	catalog_done(&cat);
	return t_done("test_xgmi_mesh");
}
