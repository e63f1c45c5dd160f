/* test_comm.c — unit tests of the communication model.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
 *
 * Every expected value below comes from a hand calculation written next to
 * it (NCCL's published constants, nccl-tests' formulas) or from a measured
 * nccl-tests row (tests/data/comm.csv id given). */
#include "t.h"
#include "comm.h"
#include "cluster.h"
#include "workspace.h"

#include <stdlib.h>

static struct gpu_spec gpu(enum hp_gen gen, double link_Bps, int pcie_gen)
{
	struct gpu_spec g;
	memset(&g, 0, sizeof g);
	g.gen = gen;
	g.link_Bps = link_Bps;
	g.pcie_gen = pcie_gen;
	return g;
}

/* The embedded catalog alone (no user config); a failure is reported. */
static int load_catalog(struct catalog *cat)
{
	struct hp_err err = { 0 };
	if (catalog_load(cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		T_FAILF("catalog: %s", err.msg);
		return -1;
	}
	return 0;
}

/* n ranks, g per node, on nodes of GPU s with the given link inside and
 * nics x gbps NICs, no oversubscription. */
static struct comm_group group_on(const struct gpu_spec *s, enum hp_intra intra, int nics,
				  double gbps, int n, int g)
{
	struct comm_group cg;
	memset(&cg, 0, sizeof cg);
	cg.ranks = n;
	cg.ranks_per_node = g;
	comm_fabric_init(&cg.fab, s, intra, nics, gbps);
	cg.oversub = 1;
	return cg;
}

/* n ranks, g per node, H100 SXM nodes with 8 x 400G NICs. */
static struct comm_group h100(int n, int g)
{
	struct gpu_spec s = gpu(GEN_HOPPER, 450e9, 5);
	return group_on(&s, INTRA_NVSWITCH, 8, 400, n, g);
}

static double t_of(const struct comm_group *g, enum comm_coll c, double S,
		   enum comm_algo a, enum comm_proto p)
{
	struct comm_result r;
	struct hp_err e = { 0 };
	if (comm_time(g, c, S, a, p, &r, &e))
		return -1;
	return r.time_s;
}

static double busbw_of(const struct comm_group *g, enum comm_coll c, double S,
		       enum comm_algo a)
{
	struct comm_result r;
	struct hp_err e = { 0 };
	if (comm_time(g, c, S, a, COMM_PROTO_AUTO, &r, &e))
		return -1;
	return r.busbw_Bps;
}

TEST(busbw_factors)
{
	/* nccl-tests: all-reduce 2(n-1)/n, 8 ranks: 2*7/8 = 1.75. */
	CHECK_NEAR(comm_busbw_factor(COMM_ALLREDUCE, 8), 1.75, 1e-12);
	/* all-gather / reduce-scatter / all-to-all (n-1)/n: 7/8, 15/16. */
	CHECK_NEAR(comm_busbw_factor(COMM_ALLGATHER, 8), 0.875, 1e-12);
	CHECK_NEAR(comm_busbw_factor(COMM_REDUCESCATTER, 8), 0.875, 1e-12);
	CHECK_NEAR(comm_busbw_factor(COMM_ALLTOALL, 16), 0.9375, 1e-12);
	/* broadcast and send/recv: 1. */
	CHECK_NEAR(comm_busbw_factor(COMM_BROADCAST, 64), 1.0, 1e-12);
	CHECK_NEAR(comm_busbw_factor(COMM_SENDRECV, 2), 1.0, 1e-12);
	/* one rank: 2*0/1 = 0, nothing on the bus. */
	CHECK_NEAR(comm_busbw_factor(COMM_ALLREDUCE, 1), 0.0, 1e-12);
}

TEST(fabric_from_gpu)
{
	struct comm_fabric f;
	/* NCCL: 18 NVLink4 links x 20.6 GB/s = 370.8 GB/s on H100 (450 line). */
	struct gpu_spec h = gpu(GEN_HOPPER, 450e9, 5);
	comm_fabric_init(&f, &h, INTRA_NVSWITCH, 8, 400);
	CHECK_NEAR(f.intra_Bps, 370.8e9, 1e-9);
	/* 400 Gb/s = 400e9 / 8 = 50e9 bytes/s per NIC. */
	CHECK_NEAR(f.nic_Bps, 50e9, 1e-12);
	CHECK_EQ_INT(f.nics, 8);
	CHECK(f.nvls);
	/* A100: 12 links x 20 = 240 GB/s (line 300). */
	struct gpu_spec a = gpu(GEN_AMPERE, 300e9, 4);
	comm_fabric_init(&f, &a, INTRA_NVSWITCH, 8, 200);
	CHECK_NEAR(f.intra_Bps, 240e9, 1e-9);
	CHECK(!f.nvls);                 /* no NVLink SHARP before Hopper */
	/* B200: 18 x 40.1 = 721.8 GB/s (NCCL logs "maxBw 721.8"). */
	struct gpu_spec b = gpu(GEN_BLACKWELL, 900e9, 6);
	comm_fabric_init(&f, &b, INTRA_NVSWITCH, 8, 400);
	CHECK_NEAR(f.intra_Bps, 721.8e9, 1e-9);
	/* An NVSwitch H100 node wired as PCIe only: PCIe Gen5 51.2 GB/s. */
	comm_fabric_init(&f, &h, INTRA_PCIE, 2, 200);
	CHECK_NEAR(f.intra_Bps, 51.2e9, 1e-9);
	CHECK(!f.nvls);
	/* No NVLink on an L40S: asking for NVSwitch falls back to PCIe Gen4
	 * (25.6 GB/s). */
	struct gpu_spec l = gpu(GEN_ADA, 0, 4);
	comm_fabric_init(&f, &l, INTRA_NVSWITCH, 4, 100);
	CHECK_EQ_INT(f.intra, INTRA_PCIE);
	CHECK_NEAR(f.intra_Bps, 25.6e9, 1e-9);
}

TEST(ring_latency_single_node)
{
	/* 8 H100 on one NVSwitch, all-reduce of 8 bytes, ring + LL.
	 * NCCL: base 6.6 us + 2(n-1) = 14 hops x 0.6 us = 15.0 us; plus the
	 * 4 us launch overhead the model adds = 19.0 us. The bytes term is
	 * 8 * 1.75 / (a few GB/s) = a few ns. */
	struct comm_group g = h100(8, 8);
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, 8, COMM_RING, COMM_LL), 19.0e-6, 0.01);
	/* ring + Simple: 8.4 + 14 x 3.4 = 56.0 us, + 4 = 60.0 us. */
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, 8, COMM_RING, COMM_SIMPLE), 60.0e-6, 0.01);
	/* NVLS: 25 us flat (no base), + 4 = 29 us. */
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, 8, COMM_NVLS, COMM_SIMPLE), 29.0e-6, 0.01);
	/* auto picks the cheapest of them: ring LL. */
	struct comm_result r;
	CHECK(comm_time(&g, COMM_ALLREDUCE, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, NULL) == 0);
	CHECK_EQ_INT(r.algo, COMM_RING);
	CHECK_EQ_INT(r.proto, COMM_LL);
}

TEST(ring_and_tree_latency_multi_node)
{
	/* 16 nodes x 8 GPUs, 8-byte all-reduce.
	 * Ring + LL: base 6.6 + (254 - 30) intra hops x max(0.6, 1.0 net
	 * overhead) + 30 network hops x 2.7 = 6.6 + 224 + 81 = 311.6 us; +4. */
	struct comm_group g = h100(128, 8);
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, 8, COMM_RING, COMM_LL), 315.6e-6, 0.01);
	/* Tree + LL: 6.8 + 2 x (7 x 0.6 + log2(16) x 5.0) = 6.8 + 2 x 24.2
	 * = 55.2 us; + 4 = 59.2 us. */
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, 8, COMM_TREE, COMM_LL), 59.2e-6, 0.01);
	/* 2 nodes x 1 GPU, tree + LL: 6.8 + 2 x 5.0 = 16.8 us; + 4 = 20.8 us.
	 * Measured 8-byte all-reduce on 2x A100 over HDR: 19.9 us (V108). */
	struct comm_group p;
	memset(&p, 0, sizeof p);
	struct gpu_spec a = gpu(GEN_AMPERE, 300e9, 4);
	p.ranks = 2;
	p.ranks_per_node = 1;
	comm_fabric_init(&p.fab, &a, INTRA_NVSWITCH, 1, 200);
	CHECK_NEAR(t_of(&p, COMM_ALLREDUCE, 8, COMM_TREE, COMM_LL), 20.8e-6, 0.01);
	double t = t_of(&p, COMM_ALLREDUCE, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO);
	CHECK(t > 19.9e-6 / 2 && t < 19.9e-6 * 2);
}

TEST(large_message_bandwidth)
{
	double S = 8.0 * 1073741824.0;
	/* One H100 node, ring: busbw -> scale-up 370.8 GB/s (measured 360-370,
	 * nccl-tests#212, V085/V086). */
	struct comm_group g = h100(8, 8);
	CHECK_NEAR(busbw_of(&g, COMM_ALLREDUCE, S, COMM_RING), 370.8e9, 0.01);
	/* NVLS all-reduce: measured 478.87 GB/s at 8 GiB (Azure ND H100 v5,
	 * V056). */
	CHECK_NEAR(busbw_of(&g, COMM_ALLREDUCE, S, COMM_ALGO_AUTO), 478.87e9, 0.03);
	/* p5 all-to-all, 2 nodes x 8, 8 GiB: per-GPU NIC share 8 x 50 x 0.96 / 8
	 * = 48 GB/s at efficiency 0.94; S*8/16 bytes leave each GPU: 4.295e9 /
	 * 45.12e9 = 95.19 ms. One round of 15 peers: 40 us + 2 MB / 8 GB/s =
	 * 0.29 ms; latency ~0.03 ms. t = 95.51 ms, algbw 89.94 GB/s, busbw x
	 * 15/16 = 84.3 GB/s. (Measured 79.25 GB/s at 2 GiB, V038, where the
	 * model gives 83.2: +5%.) */
	struct comm_group a = h100(16, 8);
	CHECK_NEAR(busbw_of(&a, COMM_ALLTOALL, S, COMM_ALGO_AUTO), 84.3e9, 0.005);
	/* 32 nodes x 8, 256 MiB: 16 rounds of 40 us + min(1 MiB, 2 MB) / 8 GB/s
	 * = 171 us each, 2.74 ms in all, on top of the bulk S*248/256 /
	 * (48e9 x 0.9 (32+ nodes) x 0.94) = 6.40 ms and the issue cost of 255
	 * peers x 1 us: ~9.43 ms with the base latency, busbw = S/t x 255/256
	 * = 28.4 GB/s. Measured 30.21 (V049). */
	struct comm_group a32 = h100(256, 8);
	CHECK_NEAR(busbw_of(&a32, COMM_ALLTOALL, 268435456.0, COMM_ALGO_AUTO), 28.4e9, 0.01);
	/* Send/recv across nodes, one 400G NIC per GPU: 50 x 0.96 = 48 GB/s;
	 * NVIDIA: "46-48 GB/s per NIC" for NDR 400 (V088). */
	struct comm_group p = h100(2, 1);
	p.fab.nics = 1;
	CHECK_NEAR(busbw_of(&p, COMM_SENDRECV, S, COMM_ALGO_AUTO), 47e9, 0.03);
}

TEST(slowest_link_across_pools)
{
	/* One H100 NVSwitch node (8 x 400G) and one L40S PCIe Gen4 node
	 * (4 x 100G) in the same group. Link by link the slower one wins:
	 * scale-up becomes PCIe Gen4 25.6 GB/s, NICs 4 x 12.5 GB/s (node total
	 * min(400, 50) = 50 GB/s), no NVLS, Ada tables. */
	struct gpu_spec h = gpu(GEN_HOPPER, 450e9, 5), l = gpu(GEN_ADA, 0, 4);
	struct comm_fabric fh, fl, m;
	comm_fabric_init(&fh, &h, INTRA_NVSWITCH, 8, 400);
	comm_fabric_init(&fl, &l, INTRA_PCIE, 4, 100);
	comm_fabric_min(&m, &fh, &fl);
	CHECK_EQ_INT(m.intra, INTRA_PCIE);
	CHECK_NEAR(m.intra_Bps, 25.6e9, 1e-9);
	CHECK_EQ_INT(m.nics, 4);
	CHECK_NEAR(m.nic_Bps, 12.5e9, 1e-9);
	CHECK(!m.nvls);
	CHECK_EQ_INT(m.gen, GEN_ADA);
	/* Order does not matter. */
	struct comm_fabric m2;
	comm_fabric_min(&m2, &fl, &fh);
	CHECK_NEAR(m2.intra_Bps, m.intra_Bps, 1e-12);
	CHECK_NEAR(m2.nic_Bps * m2.nics, m.nic_Bps * m.nics, 1e-12);
	/* A 2 x 8 all-reduce of 8 GiB over that group: ring bound
	 * min(25.6 PCIe, 4 x 12.5 x 0.96 = 48 NIC) = 25.6 GB/s. */
	struct comm_group g;
	memset(&g, 0, sizeof g);
	g.ranks = 16;
	g.ranks_per_node = 8;
	g.fab = m;
	g.oversub = 1;
	CHECK_NEAR(busbw_of(&g, COMM_ALLREDUCE, 8.0 * 1073741824.0, COMM_ALGO_AUTO),
		   25.6e9, 0.02);
	/* NVLink SHARP is gone with the L40S. */
	struct comm_result r;
	struct hp_err e = { 0 };
	CHECK(comm_time(&g, COMM_ALLREDUCE, 1e9, COMM_NVLS_TREE, COMM_PROTO_AUTO, &r, &e) == -1);
	CHECK_CONTAINS(e.msg, "nvls_tree");
}

TEST(wan_and_oversubscription)
{
	double S = 8.0 * 1073741824.0;
	/* Two sites joined by a 10 GB/s WAN with 5 ms latency: the ring's
	 * cross edge carries the whole bus traffic, so busbw <= 10 GB/s. */
	struct comm_group g = h100(32, 8);
	g.cross_site = 1;
	g.wan_Bps = 10e9;
	g.wan_latency_s = 5e-3;
	double bw = busbw_of(&g, COMM_ALLREDUCE, S, COMM_RING);
	CHECK(bw > 0 && bw <= 10e9);
	/* Ring: every one of the 2(n-1) = 62 lock-step ring steps waits for
	 * the WAN hop: >= 62 x 5 ms = 310 ms of latency. Tree crosses twice:
	 * >= 10 ms. */
	CHECK(t_of(&g, COMM_ALLREDUCE, 8, COMM_RING, COMM_SIMPLE) >= 0.310);
	double tt = t_of(&g, COMM_ALLREDUCE, 8, COMM_TREE, COMM_SIMPLE);
	CHECK(tt >= 0.010 && tt < 0.050);
	{
		/* LL puts 8-byte lines of 4 data + 4 flag bytes on the wire
		 * (NCCL prims_ll.h), so through the 10 GB/s WAN it carries at
		 * most 10 x 4/8 = 5 GB/s of payload; LL128 at most
		 * 10 x 120/128 = 9.375 GB/s. At 8 GiB the 62 x 5 ms ring
		 * latency or the tree's 10 ms weigh little beside
		 * 8 GiB / 5 GB/s = 1.7 s of LL payload, so NCCL's choice is not
		 * LL (it was, when the WAN capped every protocol alike). At
		 * 64 KB the latency rules and LL may win. */
		struct comm_result r;
		struct hp_err e = { 0 };
		CHECK(comm_time(&g, COMM_ALLREDUCE, S, COMM_ALGO_AUTO, COMM_LL, &r, &e) == 0);
		CHECK(r.busbw_Bps <= 5e9 * (1 + 1e-9));
		CHECK(comm_time(&g, COMM_ALLREDUCE, S, COMM_ALGO_AUTO, COMM_LL128, &r, &e) == 0);
		CHECK(r.busbw_Bps <= 9.375e9 * (1 + 1e-9));
		CHECK(comm_time(&g, COMM_ALLREDUCE, S, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, &e) == 0);
		CHECK(r.proto != COMM_LL);
		CHECK(r.busbw_Bps > 9.375e9);
	}
	/* Spine oversubscription r only touches a group over more than one
	 * leaf of 32 hosts (a DGX SuperPOD scalable unit), by the share of
	 * its traffic that leaves the leaf times r. 16 x 8 GPUs sit under
	 * one leaf: 2:1 changes nothing. */
	struct comm_group a = h100(128, 8), b = h100(128, 8);
	b.oversub = 2;
	double ba = busbw_of(&a, COMM_ALLTOALL, S, COMM_ALGO_AUTO);
	double bb = busbw_of(&b, COMM_ALLTOALL, S, COMM_ALGO_AUTO);
	CHECK_NEAR(bb, ba, 1e-12);
	/* 64 nodes on 2 leaves: half of an all-to-all's traffic crosses
	 * the spine. 2:1 gives the uplinks half the hosts' rate, which is
	 * what crosses: no loss; 4:1 gives a quarter for that half: the
	 * network share halves. The bus bandwidth halves to within 6%: the
	 * rounds' tails do not scale (ceil(511/16) = 32 rounds of 40 us +
	 * 2 MB / 8 GB/s, 9.7 ms, beside 8 GiB / 48 GB/s = 179 ms of bulk:
	 * (2 x 179 + 9.7) / (179 + 9.7) = 1.95). */
	a = h100(512, 8);
	b = h100(512, 8);
	b.oversub = 2;
	ba = busbw_of(&a, COMM_ALLTOALL, S, COMM_ALGO_AUTO);
	bb = busbw_of(&b, COMM_ALLTOALL, S, COMM_ALGO_AUTO);
	CHECK_NEAR(bb, ba, 1e-12);
	b.oversub = 4;
	bb = busbw_of(&b, COMM_ALLTOALL, S, COMM_ALGO_AUTO);
	CHECK_NEAR(bb, ba / 1.95, 0.01);
	/* 128 nodes on 4 leaves, 2:1: 3/4 of the traffic crosses on 1/2 of
	 * the rate, 2 x 3/4 = 1.5 times slower on the network; the tails
	 * (ceil(1023/16) = 64 rounds of 40 us + 2 MB / 8 GB/s, 19.3 ms,
	 * beside about 179 ms of bulk) keep it to (1.5 x 179 + 19.3) /
	 * (179 + 19.3) = 1.45 */
	a = h100(1024, 8);
	b = h100(1024, 8);
	b.oversub = 2;
	ba = busbw_of(&a, COMM_ALLTOALL, S, COMM_ALGO_AUTO);
	bb = busbw_of(&b, COMM_ALLTOALL, S, COMM_ALGO_AUTO);
	CHECK_NEAR(bb, ba / 1.45, 0.01);
	/* a ring all-gather is placement-aware: unaffected at any ratio */
	b.oversub = 8;
	CHECK_NEAR(busbw_of(&b, COMM_ALLGATHER, S, COMM_RING),
		   busbw_of(&a, COMM_ALLGATHER, S, COMM_RING), 1e-12);
}

TEST(enablement_rules)
{
	struct comm_result r;
	struct hp_err e = { 0 };
	/* NVLS needs Hopper+ NVSwitch. */
	struct comm_group g;
	memset(&g, 0, sizeof g);
	struct gpu_spec a = gpu(GEN_AMPERE, 300e9, 4);
	g.ranks = 8;
	g.ranks_per_node = 8;
	comm_fabric_init(&g.fab, &a, INTRA_NVSWITCH, 8, 200);
	CHECK(comm_time(&g, COMM_ALLREDUCE, 1e6, COMM_NVLS, COMM_PROTO_AUTO, &r, &e) == -1);
	CHECK_CONTAINS(e.msg, "nvls");
	/* Broadcast is ring-only in NCCL. */
	CHECK(comm_time(&g, COMM_BROADCAST, 1e6, COMM_TREE, COMM_PROTO_AUTO, &r, &e) == -1);
	/* PAT: all-gather with one GPU per node only. */
	CHECK(comm_time(&g, COMM_ALLGATHER, 1e6, COMM_PAT, COMM_PROTO_AUTO, &r, &e) == -1);
	struct comm_group p = h100(16, 1);
	CHECK(comm_time(&p, COMM_ALLGATHER, 1e6, COMM_PAT, COMM_PROTO_AUTO, &r, &e) == 0);
	CHECK_EQ_INT(r.algo, COMM_PAT);
	/* PAT latency: 8 + log2(16) x 14 / 3.5 + 2.8 x 16 = 8 + 16 + 44.8 =
	 * 68.8 us; + 4 = 72.8 us at a tiny size. */
	CHECK_NEAR(t_of(&p, COMM_ALLGATHER, 16, COMM_PAT, COMM_SIMPLE), 72.8e-6, 0.01);
	/* LL128 needs NVLink inside the node. */
	struct comm_group q;
	memset(&q, 0, sizeof q);
	struct gpu_spec l = gpu(GEN_ADA, 0, 4);
	q.ranks = 8;
	q.ranks_per_node = 8;
	comm_fabric_init(&q.fab, &l, INTRA_PCIE, 4, 100);
	CHECK(comm_time(&q, COMM_ALLREDUCE, 1e6, COMM_RING, COMM_LL128, &r, &e) == -1);
	/* A multi-node group needs NICs. */
	q.ranks = 16;
	q.fab.nics = 0;
	CHECK(comm_time(&q, COMM_ALLREDUCE, 1e6, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, &e) == -1);
	CHECK_CONTAINS(e.msg, "NIC");
	/* All-to-all and send/recv are point-to-point. */
	struct comm_group h = h100(16, 8);
	CHECK(comm_time(&h, COMM_ALLTOALL, 1e6, COMM_RING, COMM_PROTO_AUTO, &r, &e) == -1);
	CHECK(comm_time(&h, COMM_ALLTOALL, 1e6, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, &e) == 0);
	CHECK_EQ_INT(r.algo, COMM_P2P);
	/* A transport without in-order delivery keeps multi-node groups on
	 * Simple. */
	h.fab.net_simple_only = 1;
	CHECK(comm_time(&h, COMM_ALLREDUCE, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, &e) == 0);
	CHECK_EQ_INT(r.proto, COMM_SIMPLE);
	/* One NVLink domain of 72 Blackwell GPUs (a GB200 NVL72 rack): NCCL
	 * runs NVLS all-reduce there, but NVLS all-gather and reduce-scatter
	 * only up to NCCL_MAX_NVLS_ARITY = 32 local ranks (enqueue.cc:
	 * func != AllReduce && localRanks > NCCL_MAX_NVLS_ARITY -> skip). */
	struct gpu_spec b = gpu(GEN_BLACKWELL, 900e9, 5);
	struct comm_group rack = group_on(&b, INTRA_NVSWITCH, 72, 400, 72, 72);
	CHECK(comm_time(&rack, COMM_ALLREDUCE, 1e9, COMM_NVLS, COMM_PROTO_AUTO, &r, &e) == 0);
	CHECK(comm_time(&rack, COMM_ALLGATHER, 1e9, COMM_NVLS, COMM_PROTO_AUTO, &r, &e) == -1);
	CHECK(comm_time(&rack, COMM_REDUCESCATTER, 1e9, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, &e) == 0);
	CHECK_EQ_INT(r.algo, COMM_RING);
	rack.ranks = rack.ranks_per_node = 32;
	CHECK(comm_time(&rack, COMM_ALLGATHER, 1e9, COMM_NVLS, COMM_PROTO_AUTO, &r, &e) == 0);
}

/* NVLS all-reduce of 16 MiB on one 8-GPU H100 node, by hand. Bus
 * bandwidth 1.29 x 18 x 20.6 GB/s = 478.33 GB/s; factor 2 x 7/8 = 1.75.
 * Steady state: 16777216 x 1.75 / 478.33e9 = 61.38 us; NCCL's NVLS
 * latency 25 us plus the host's 4 us. Fill: NCCL's chunk for 16 MiB over
 * 16 channels x 8 heads is 32 KiB (16 MiB < 8 x 128 x 64 KiB, not < 2 x
 * 128 x 32 KiB), a loop 128 x 32 KiB = 4 MiB, three loops:
 * 3 x 4194304 x 1.75 / 478.33e9 = 46.03 us. A serving engine's own
 * all-reduce kernel (engine_ar_bytes >= the size) pays no fill. Measured
 * on such nodes (comm.csv V053/V059): 125 and 122 us. */
TEST(nvls_fill)
{
	struct comm_group g = h100(8, 8);
	double S = 16777216;
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, S, COMM_NVLS, COMM_SIMPLE), 136.41e-6, 0.002);
	g.engine_ar_bytes = 64 * 1048576.0;
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, S, COMM_NVLS, COMM_SIMPLE), 90.38e-6, 0.002);
}

TEST(conventions_and_edges)
{
	struct comm_group g = h100(64, 8);
	struct comm_result r;
	/* algbw = bytes / time, busbw = algbw x factor (nccl-tests). */
	CHECK(comm_time(&g, COMM_REDUCESCATTER, 3e8, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, NULL) == 0);
	CHECK_NEAR(r.algbw_Bps, 3e8 / r.time_s, 1e-12);
	CHECK_NEAR(r.busbw_Bps, r.algbw_Bps * 63.0 / 64.0, 1e-12);
	/* Time never falls as the size grows, for every collective (it can stay
	 * flat where NCCL adds channels in step with the size). */
	for (int c = 0; c < COMM_COLL_COUNT; c++) {
		double prev = 0;
		for (double S = 8; S <= 1e10; S *= 4) {
			double t = t_of(&g, (enum comm_coll)c, S, COMM_ALGO_AUTO, COMM_PROTO_AUTO);
			CHECK(t >= prev);
			prev = t;
		}
	}
	/* One rank moves nothing. */
	struct comm_group one = h100(1, 1);
	CHECK(comm_time(&one, COMM_ALLREDUCE, 1e9, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, NULL) == 0);
	CHECK_NEAR(r.time_s, 0, 1e-12);
	/* Bad input. */
	struct hp_err e = { 0 };
	struct comm_group bad = h100(0, 8);
	CHECK(comm_time(&bad, COMM_ALLREDUCE, 1e6, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, &e) == -1);
	CHECK(comm_time(&g, COMM_ALLREDUCE, -1, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, &e) == -1);
}

/* AWS EFA terms (comm.c, "AWS EFA"), H100 SXM nodes with 8 x 400G:
 * b_up = 450e9 * 20.6/25 = 370.8e9, b_net = 8 * 50e9 * 0.96 = 384e9. */
TEST(efa_transport)
{
	struct comm_group ib = h100(32, 8), efa = h100(32, 8);
	comm_fabric_set_transport(&efa.fab, COMM_TRANSPORT_EFA);
	CHECK_EQ_INT(efa.fab.transport, COMM_TRANSPORT_EFA);
	CHECK_NEAR(efa.fab.net_lat_s, 25e-6, 1e-12);
	CHECK_EQ_INT(efa.fab.net_simple_only, 1);
	CHECK_EQ_INT(ib.fab.transport, COMM_TRANSPORT_IB);
	CHECK_NEAR(ib.fab.net_lat_s, 0, 1e-12);

	/* Ring all-reduce, 4 nodes x 8, 1 GiB, EFA. Channels: ceil(min(370.8,
	 * 384) / 12) = 31. Fill: 2 * min(2^30, 31 * 8 MiB = 260046848) / 384e9
	 * = 1354.41 us. Per-step latency with the plugin latency once per hop:
	 * 8.4 + 56 steps * 3.4 + 6 hops * (14 + 25) = 432.8 us < fill, so the
	 * fixed cost is the fill. Transfer: 2^30 * 62/32 / 370.8e9 = 5610.50 us;
	 * plus 4 us host: 6968.91 us. */
	double S = 1073741824.0;
	double fill = 2 * 260046848.0 / 384e9;
	double want = 4e-6 + fill + S * 62.0 / 32.0 / 370.8e9;
	CHECK_NEAR(t_of(&efa, COMM_ALLREDUCE, S, COMM_RING, COMM_SIMPLE), want, 1e-9);
	CHECK_NEAR(want, 6968.91e-6, 1e-5);

	/* Tree depth: NVLS-tree all-reduce over 8 nodes (3 levels). The network
	 * bound 384e9 is divided by 1 + 0.29 * (3 - 1) = 1.58: 243.04e9, below
	 * NVLS's 1.29 * 370.8e9 and the 16 * 45.5e9 cap. At 1e13 bytes the
	 * latency is negligible, so busbw = 243.04e9 (IB: 384e9). */
	struct comm_group ib8 = h100(64, 8), efa8 = h100(64, 8);
	comm_fabric_set_transport(&efa8.fab, COMM_TRANSPORT_EFA);
	struct comm_result r;
	CHECK(comm_time(&efa8, COMM_ALLREDUCE, 1e13, COMM_NVLS_TREE, COMM_PROTO_AUTO, &r, NULL) == 0);
	CHECK_NEAR(r.busbw_Bps / 1e9, 384.0 / 1.58, 1e-4);
	CHECK(comm_time(&ib8, COMM_ALLREDUCE, 1e13, COMM_NVLS_TREE, COMM_PROTO_AUTO, &r, NULL) == 0);
	CHECK_NEAR(r.busbw_Bps / 1e9, 384.0, 1e-4);
	/* Two nodes are one level: no depth loss, EFA = IB bandwidth. */
	struct comm_group ib2 = h100(16, 8), efa2 = h100(16, 8);
	comm_fabric_set_transport(&efa2.fab, COMM_TRANSPORT_EFA);
	double t_ib2 = t_of(&ib2, COMM_ALLREDUCE, 1e13, COMM_NVLS_TREE, COMM_PROTO_AUTO);
	double t_efa2 = t_of(&efa2, COMM_ALLREDUCE, 1e13, COMM_NVLS_TREE, COMM_PROTO_AUTO);
	CHECK(fabs(t_efa2 / t_ib2 - 1) < 1e-4);
	/* One node never touches the network: EFA changes nothing. */
	struct comm_group ib1 = h100(8, 8), efa1 = h100(8, 8);
	comm_fabric_set_transport(&efa1.fab, COMM_TRANSPORT_EFA);
	CHECK_NEAR(t_of(&efa1, COMM_ALLREDUCE, 1e9, COMM_ALGO_AUTO, COMM_PROTO_AUTO),
		   t_of(&ib1, COMM_ALLREDUCE, 1e9, COMM_ALGO_AUTO, COMM_PROTO_AUTO), 1e-12);
	/* A mixed group takes the slower transport. */
	struct comm_fabric m;
	comm_fabric_min(&m, &ib.fab, &efa.fab);
	CHECK_EQ_INT(m.transport, COMM_TRANSPORT_EFA);
	CHECK_EQ_INT(m.net_simple_only, 1);
	/* Names. */
	enum comm_transport tr;
	CHECK(comm_transport_parse("EFA", &tr) == 0 && tr == COMM_TRANSPORT_EFA);
	CHECK(comm_transport_parse("ib", &tr) == 0 && tr == COMM_TRANSPORT_IB);
	CHECK(comm_transport_parse("roce", &tr) == -1);
	CHECK_STR(comm_transport_name(COMM_TRANSPORT_EFA), "efa");
}

TEST(names)
{
	enum comm_coll c;
	enum comm_algo a;
	enum comm_proto p;
	for (int i = 0; i < COMM_COLL_COUNT; i++) {
		CHECK(comm_coll_parse(comm_coll_name((enum comm_coll)i), &c) == 0);
		CHECK_EQ_INT(c, i);
	}
	for (int i = 0; i < COMM_ALGO_COUNT; i++) {
		CHECK(comm_algo_parse(comm_algo_name((enum comm_algo)i), &a) == 0);
		CHECK_EQ_INT(a, i);
	}
	for (int i = 0; i < COMM_PROTO_COUNT; i++) {
		CHECK(comm_proto_parse(comm_proto_name((enum comm_proto)i), &p) == 0);
		CHECK_EQ_INT(p, i);
	}
	/* nccl-tests spellings and case. */
	CHECK(comm_coll_parse("all_reduce", &c) == 0 && c == COMM_ALLREDUCE);
	CHECK(comm_coll_parse("Reduce-Scatter", &c) == 0 && c == COMM_REDUCESCATTER);
	CHECK(comm_algo_parse("NVLS-Tree", &a) == 0 && a == COMM_NVLS_TREE);
	CHECK(comm_proto_parse("LL128", &p) == 0 && p == COMM_LL128);
	CHECK(comm_coll_parse("allreduc", &c) == -1);
	CHECK(comm_algo_parse("", &a) == -1);
	CHECK(comm_proto_parse(NULL, &p) == -1);
	CHECK_STR(comm_coll_name(COMM_ALLTOALL), "alltoall");
	CHECK_STR(comm_algo_name(COMM_NVLS_TREE), "nvls_tree");
	CHECK_STR(comm_proto_name(COMM_SIMPLE), "simple");
}

/* NCCL over TCP sockets (comm.c, "commodity links"). Hand calculations with
 * TCP_EFF 0.8 of line rate and TCP_NODE_BPS 5 GB/s per node; the figures
 * they come from are measured nccl-tests runs (docs/links.md). */
TEST(tcp_transport)
{
	struct gpu_spec v100 = gpu(GEN_VOLTA, 150e9, 3);
	/* Two AWS p3.8xlarge-like nodes, one GPU of each in the group, one
	 * 10 Gb/s NIC: 10e9 / 8 = 1.25 GB/s line rate, x 0.8 = 1.0 GB/s on
	 * sockets (IB on this one-NIC PCIe Gen3 NVLink node: x ONE_NIC_EFF
	 * 0.70 = 0.875 GB/s, see one_nic_gen3). A 1 GiB ring all-reduce
	 * over 2 ranks moves 2(n-1)/n = 1 x S per rank: busbw = 1.0 GB/s, less
	 * the fixed latency (~0.13 ms of 1.07 s, 0.013%). */
	struct comm_group g = group_on(&v100, INTRA_NVLINK, 1, 10, 2, 1);
	struct comm_group ib = g;
	comm_fabric_set_transport(&g.fab, COMM_TRANSPORT_TCP);
	CHECK_EQ_INT(g.fab.transport, COMM_TRANSPORT_TCP);
	CHECK_NEAR(g.fab.net_lat_s, 8e-6, 1e-12);
	/* NCCL runs LL/LL128 over sockets: no Simple-only restriction. */
	CHECK_EQ_INT(g.fab.net_simple_only, 0);
	double S = 1073741824.0;
	CHECK_NEAR(busbw_of(&g, COMM_ALLREDUCE, S, COMM_RING), 1.0e9, 1e-3);
	CHECK_NEAR(busbw_of(&ib, COMM_ALLREDUCE, S, COMM_RING), 0.875e9, 1e-3);

	/* The node ceiling: 2 nodes x 8 V100, one 100 Gb/s NIC. Line 12.5
	 * GB/s x 0.8 = 10 GB/s, capped at 5 GB/s per node; a 4 GiB ring
	 * all-reduce over 16 ranks runs at busbw 5 GB/s (NVLink inside is far
	 * faster). Measured: 4-6 GB/s busbw on 4 x 8 V100 over 100 Gb/s TCP
	 * (NVIDIA/nccl issue #450), 4.7 GB/s on AWS p3dn (issue #398). */
	struct comm_group big = group_on(&v100, INTRA_NVLINK, 1, 100, 16, 8);
	comm_fabric_set_transport(&big.fab, COMM_TRANSPORT_TCP);
	double bw = busbw_of(&big, COMM_ALLREDUCE, 4 * S, COMM_RING);
	CHECK_NEAR(bw, 5.0e9, 0.01);
	CHECK(bw >= 4e9 && bw <= 6e9);

	/* Latency: a 2-node broadcast of 8 bytes over sockets, Simple,
	 * measured 38.17 (in-place) and 45.82 us (out-of-place) on two V100
	 * PCIe hosts (nccl-tests issue #82, NCCL 2.9.6). By hand: 4 host +
	 * 8.4 ring base + one network hop 14 + 2 x 8 socket = 42.4 us. */
	struct gpu_spec vp = gpu(GEN_VOLTA, 0, 3);
	struct comm_group b2 = group_on(&vp, INTRA_PCIE, 1, 25, 2, 1);
	comm_fabric_set_transport(&b2.fab, COMM_TRANSPORT_TCP);
	double t8 = t_of(&b2, COMM_BROADCAST, 8, COMM_RING, COMM_SIMPLE);
	CHECK_NEAR(t8, 42.4e-6, 1e-3);
	CHECK(t8 >= 38.17e-6 && t8 <= 45.82e-6);

	/* A group over an IB pool and a TCP pool runs at the slower, TCP. */
	struct comm_fabric m;
	comm_fabric_min(&m, &ib.fab, &g.fab);
	CHECK_EQ_INT(m.transport, COMM_TRANSPORT_TCP);

	enum comm_transport tr = COMM_TRANSPORT_IB;
	CHECK(comm_transport_parse("TCP", &tr) == 0 && tr == COMM_TRANSPORT_TCP);
	CHECK_STR(comm_transport_name(COMM_TRANSPORT_TCP), "tcp");
	/* Default below 50 Gb/s: 10 and 25 GbE carry sockets; 50 Gb/s and
	 * faster keep ib (cluster.h, CLUSTER_TCP_BELOW_GBPS). */
	CHECK_EQ_INT(cluster_default_transport(10), COMM_TRANSPORT_TCP);
	CHECK_EQ_INT(cluster_default_transport(25), COMM_TRANSPORT_TCP);
	CHECK_EQ_INT(cluster_default_transport(50), COMM_TRANSPORT_IB);
	CHECK_EQ_INT(cluster_default_transport(400), COMM_TRANSPORT_IB);
}

/* Omni-Path (comm.c, "Omni-Path"): NCCL's IB verbs over hfi1 without
 * GPUDirect RDMA, a node ceiling OPA_NODE_BPS of 7.0 GB/s. Jean Zay's V100
 * nodes: 4 x V100-SXM2-32GB on NVLink, 4 x 100 Gb/s Omni-Path. */
TEST(opa_transport)
{
	struct gpu_spec v100 = gpu(GEN_VOLTA, 150e9, 3);
	double S = 4e9;   /* the BigScience script's 2000 x 500000 fp32 tensor */
	/* IB's view of the node: 4 x 12.5 GB/s x NIC_EFF 0.96 = 48 GB/s;
	 * a ring over 16 nodes x 4 reaches it less the ring's latency
	 * (47.6 of 48: 1%). */
	struct comm_group ib = group_on(&v100, INTRA_NVLINK, 4, 100, 64, 4);
	CHECK_NEAR(busbw_of(&ib, COMM_ALLREDUCE, S, COMM_RING), 48e9, 0.02);
	/* Over Omni-Path the node moves at most 7.0 GB/s, so busbw = 7.0 GB/s
	 * less the same latency; measured 6.86 GB/s (comm.csv V168, NCCL
	 * 2.7.8, 16 nodes), within the accuracy test's 15%. */
	struct comm_group g = ib;
	comm_fabric_set_transport(&g.fab, COMM_TRANSPORT_OPA);
	CHECK_EQ_INT(g.fab.transport, COMM_TRANSPORT_OPA);
	CHECK_NEAR(g.fab.net_lat_s, 0, 1e-12);          /* IB's table */
	CHECK_EQ_INT(g.fab.net_simple_only, 0);
	double bw = busbw_of(&g, COMM_ALLREDUCE, S, COMM_RING);
	CHECK_NEAR(bw, 7.0e9, 0.01);
	CHECK(fabs(bw / 6.86e9 - 1) < 0.15);
	/* One GPU of each node in the group while the node's 3 others run
	 * their own (a DP group per TP rank): a quarter of the node, 1.75
	 * GB/s, as TCP's ceiling is shared. */
	struct comm_group q = group_on(&v100, INTRA_NVLINK, 1, 100, 16, 1);
	comm_fabric_set_transport(&q.fab, COMM_TRANSPORT_OPA);
	q.fab.node_share = 0.25;
	CHECK_NEAR(busbw_of(&q, COMM_ALLREDUCE, S, COMM_RING), 1.75e9, 0.01);
	/* The ceiling binds on one 100 Gb/s adapter too: 12 GB/s > 7. */
	struct comm_group one = group_on(&v100, INTRA_NVLINK, 1, 100, 64, 4);
	comm_fabric_set_transport(&one.fab, COMM_TRANSPORT_OPA);
	CHECK_NEAR(busbw_of(&one, COMM_ALLREDUCE, S, COMM_RING), 7.0e9, 0.01);

	/* Slower than every RDMA fabric, faster than sockets (5 GB/s). */
	struct comm_fabric m, tx = ib.fab, tcp = ib.fab;
	comm_fabric_set_transport(&tx, COMM_TRANSPORT_TCPX);
	comm_fabric_set_transport(&tcp, COMM_TRANSPORT_TCP);
	comm_fabric_min(&m, &g.fab, &tx);
	CHECK_EQ_INT(m.transport, COMM_TRANSPORT_OPA);
	comm_fabric_min(&m, &tcp, &g.fab);
	CHECK_EQ_INT(m.transport, COMM_TRANSPORT_TCP);

	/* Named as users name it. */
	enum comm_transport t = COMM_TRANSPORT_IB;
	CHECK(comm_transport_parse("opa", &t) == 0 && t == COMM_TRANSPORT_OPA);
	t = COMM_TRANSPORT_IB;
	CHECK(comm_transport_parse("Omni-Path", &t) == 0 && t == COMM_TRANSPORT_OPA);
	t = COMM_TRANSPORT_IB;
	CHECK(comm_transport_parse("omnipath", &t) == 0 && t == COMM_TRANSPORT_OPA);
	CHECK_STR(comm_transport_name(COMM_TRANSPORT_OPA), "opa");
}

/* Google Cloud's fabrics (comm.c, "Transport profiles"). Hand
 * calculations from the profile constants, next to the measured runs the
 * constants come from (tests/data/comm.csv V155-V165). */
TEST(gcp_transports)
{
	struct gpu_spec h = gpu(GEN_HOPPER, 450e9, 5);
	/* A cross-node send of 8 bytes, 2 x 1 H100 (LL: the plugin latency
	 * counted once): 4 host + 6.6 ring LL base + 5.0 tree LL network hop
	 * = 15.6 us on IB or GPUDirect RDMA; + 60 us on TCPXO = 75.6 us;
	 * + 200 us on TCPX = 215.6 us. */
	struct comm_group ib = group_on(&h, INTRA_NVSWITCH, 1, 200, 2, 1);
	struct comm_group x = ib;
	CHECK_NEAR(t_of(&ib, COMM_SENDRECV, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO), 15.6e-6, 1e-3);
	comm_fabric_set_transport(&x.fab, COMM_TRANSPORT_GCP_RDMA);
	CHECK_NEAR(t_of(&x, COMM_SENDRECV, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO), 15.6e-6, 1e-3);
	comm_fabric_set_transport(&x.fab, COMM_TRANSPORT_TCPXO);
	CHECK_NEAR(x.fab.net_lat_s, 60e-6, 1e-9);
	CHECK_EQ_INT(x.fab.net_simple_only, 0);
	CHECK_NEAR(t_of(&x, COMM_SENDRECV, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO), 75.6e-6, 1e-3);
	comm_fabric_set_transport(&x.fab, COMM_TRANSPORT_TCPX);
	CHECK_NEAR(t_of(&x, COMM_SENDRECV, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO), 215.6e-6, 1e-3);

	/* Bandwidth: 2 x 8 H200 on a3-ultragpu-8g, 8 x 400 Gb/s = 400 GB/s
	 * line rate per node, x 0.817 = 326.8 GB/s, below NVLink's 370.8; an
	 * 8 GiB ring all-gather runs at that less ~0.3% of latency: 325.8.
	 * Measured 325.72 (V162). On IB (x 0.96 = 384) NVLink's 370.8 binds. */
	struct comm_group u = group_on(&h, INTRA_NVSWITCH, 8, 400, 16, 8);
	comm_fabric_set_transport(&u.fab, COMM_TRANSPORT_GCP_RDMA);
	double S = 8589934592.0;
	double bu = busbw_of(&u, COMM_ALLGATHER, S, COMM_RING);
	CHECK_NEAR(bu, 325.8e9, 2e-3);
	CHECK_NEAR(bu, 325.72e9, 0.01);
	/* a3-megagpu-8g: 8 x 200 Gb/s = 200 GB/s x 0.944 = 188.8 GB/s;
	 * measured 188.54 at 8 GiB (V158). */
	struct comm_group m = group_on(&h, INTRA_NVSWITCH, 8, 200, 16, 8);
	comm_fabric_set_transport(&m.fab, COMM_TRANSPORT_TCPXO);
	double bm = busbw_of(&m, COMM_ALLGATHER, S, COMM_RING);
	CHECK_NEAR(bm, 188.8e9, 5e-3);
	CHECK_NEAR(bm, 188.54e9, 0.01);
	/* a3-highgpu-8g: 4 x 200 Gb/s = 100 GB/s x 0.67 = 67 GB/s; a 2 GiB
	 * ring all-reduce (Simple) pays 4 x 200 us of plugin latency over its
	 * two network hops (~1.4% of 61 ms): ~66 GB/s. Measured 65.72 (V165). */
	struct comm_group a = group_on(&h, INTRA_NVSWITCH, 4, 200, 16, 8);
	comm_fabric_set_transport(&a.fab, COMM_TRANSPORT_TCPX);
	double ba = 2147483648.0 * 1.875 /
		    t_of(&a, COMM_ALLREDUCE, 2147483648.0, COMM_RING, COMM_SIMPLE);
	CHECK(ba < 67e9 && ba > 65e9);
	CHECK_NEAR(ba, 65.72e9, 0.01);

	/* A group over two pools runs at the slower transport, by comm.c's
	 * ranking: TCP sockets, TCPX, EFA, TCPXO, GPUDirect RDMA, IB. */
	static const enum comm_transport slow_first[] = {
		COMM_TRANSPORT_TCP, COMM_TRANSPORT_TCPX, COMM_TRANSPORT_EFA,
		COMM_TRANSPORT_TCPXO, COMM_TRANSPORT_GCP_RDMA, COMM_TRANSPORT_IB };
	for (int i = 0; i < 6; i++)
		for (int j = i + 1; j < 6; j++) {
			struct comm_fabric fa = u.fab, fb = u.fab, r;
			comm_fabric_set_transport(&fa, slow_first[i]);
			comm_fabric_set_transport(&fb, slow_first[j]);
			comm_fabric_min(&r, &fb, &fa);
			CHECK_EQ_INT(r.transport, slow_first[i]);
			comm_fabric_min(&r, &fa, &fb);
			CHECK_EQ_INT(r.transport, slow_first[i]);
		}

	/* Names, and what a user of Google Cloud writes: the machine type or
	 * its family. */
	enum comm_transport t = COMM_TRANSPORT_IB;
	CHECK(comm_transport_parse("a3-megagpu-8g", &t) == 0 && t == COMM_TRANSPORT_TCPXO);
	CHECK(comm_transport_parse("A3 Mega", &t) == 0 && t == COMM_TRANSPORT_TCPXO);
	CHECK(comm_transport_parse("a3-highgpu-8g", &t) == 0 && t == COMM_TRANSPORT_TCPX);
	CHECK(comm_transport_parse("a3-ultragpu-8g", &t) == 0 && t == COMM_TRANSPORT_GCP_RDMA);
	CHECK(comm_transport_parse("a4-highgpu-8g", &t) == 0 && t == COMM_TRANSPORT_GCP_RDMA);
	CHECK(comm_transport_parse("GCP_RDMA", &t) == 0 && t == COMM_TRANSPORT_GCP_RDMA);
	CHECK(comm_transport_parse("tcpx", &t) == 0 && t == COMM_TRANSPORT_TCPX);
	t = COMM_TRANSPORT_IB;
	CHECK(comm_transport_parse("roce", &t) == -1 && t == COMM_TRANSPORT_IB);
	CHECK(comm_transport_parse("a3-megagpu", &t) == -1);
	CHECK_STR(comm_transport_name(COMM_TRANSPORT_TCPXO), "tcpxo");
	CHECK_STR(comm_transport_name(COMM_TRANSPORT_GCP_RDMA), "gcp-rdma");
	char list[96];
	comm_transport_list(list, sizeof list, 0);
	CHECK_STR(list, "ib, efa, tcp, opa, tcpx, tcpxo or gcp-rdma");
	comm_transport_list(list, sizeof list, 1);
	CHECK_STR(list, "\"ib\", \"efa\", \"tcp\", \"opa\", \"tcpx\", \"tcpxo\" or \"gcp-rdma\"");
	comm_transport_list(list, 8, 0);
	CHECK_STR(list, "ib, efa");
}

/* A cluster file and --pool without "transport": 10 Gb/s NICs get tcp, a
 * stated transport wins, 400 Gb/s keeps ib. */
TEST(tcp_default_in_cluster)
{
	struct catalog cat;
	struct hp_err err = { 0 };
	if (load_catalog(&cat) < 0)
		return;
	static const char js[] =
		"{\"pools\": [{\"name\": \"a\", \"gpu\": \"V100-SXM2-16GB\", \"nodes\": 3,"
		" \"gpus_per_node\": 4, \"nics\": 1, \"nic_gbps\": 10},"
		" {\"name\": \"b\", \"gpu\": \"V100-SXM2-16GB\", \"nodes\": 2, \"nic_gbps\": 10,"
		" \"transport\": \"ib\"},"
		" {\"name\": \"c\", \"gpu\": \"H100-SXM\", \"nodes\": 2}]}";
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_parse_json(&c, js, sizeof js - 1, "t.json", &cat, &err) == 0);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_TCP);
	CHECK_EQ_INT(c.pools[1].transport, COMM_TRANSPORT_IB);
	CHECK_EQ_INT(c.pools[2].transport, COMM_TRANSPORT_IB);
	struct cluster d;
	cluster_init(&d);
	CHECK(cluster_add_pool_spec(&d, "2x8xV100-PCIe", &cat, &err) == 0);   /* 1 x 25 Gb/s */
	CHECK(cluster_add_pool_spec(&d, "2x8xV100-PCIe,transport=efa", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&d, "2x8xV100-PCIe,nic_gbps=100", &cat, &err) == 0);
	CHECK_EQ_INT(d.pools[0].transport, COMM_TRANSPORT_TCP);
	CHECK_EQ_INT(d.pools[1].transport, COMM_TRANSPORT_EFA);
	CHECK_EQ_INT(d.pools[2].transport, COMM_TRANSPORT_IB);
	/* Google Cloud: the fabric by name, or the machine type a user knows;
	 * an unknown name is refused naming the field and every transport. */
	CHECK(cluster_add_pool_spec(&d, "2x8xH100-SXM,transport=a3-megagpu-8g", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&d, "2x8xH200-SXM,transport=gcp-rdma", &cat, &err) == 0);
	CHECK_EQ_INT(d.pools[3].transport, COMM_TRANSPORT_TCPXO);
	CHECK_EQ_INT(d.pools[4].transport, COMM_TRANSPORT_GCP_RDMA);
	static const char bad[] =
		"{\"pools\": [{\"gpu\": \"H100-SXM\", \"nodes\": 2, \"transport\": \"roce\"}]}";
	struct cluster e;
	cluster_init(&e);
	CHECK(cluster_parse_json(&e, bad, sizeof bad - 1, "t.json", &cat, &err) == -1);
	CHECK(strstr(err.msg, "pools[0].transport: expected \"ib\", \"efa\", \"tcp\", \"opa\","
			 " \"tcpx\", \"tcpxo\" or \"gcp-rdma\" (or a Google Cloud machine type such"
			 " as \"a3-megagpu-8g\"), got \"roce\"") != NULL);

	/* A saved workspace keeps a transport that is not its NIC speed's
	 * default (pool b: 10 Gb/s on ib) and reloads the defaults as such. */
	static const char ws[] =
		"{\"cluster\": {\"pools\": [{\"name\": \"a\", \"gpu\": \"V100-SXM2-16GB\","
		" \"nodes\": 2, \"nic_gbps\": 10}, {\"name\": \"b\", \"gpu\": \"V100-SXM2-16GB\","
		" \"nodes\": 2, \"nic_gbps\": 10, \"transport\": \"ib\"}, {\"name\": \"c\","
		" \"gpu\": \"H100-SXM\", \"nodes\": 2, \"transport\": \"tcp\"}]},"
		" \"model\": \"llama3.1-8b\"}";
	struct workspace w1, w2;
	CHECK(workspace_parse(&w1, ws, sizeof ws - 1, "w.json", &cat, &err) == 0);
	char *text = workspace_to_string(&w1);
	CHECK(text != NULL);
	if (text) {
		CHECK(workspace_parse(&w2, text, strlen(text), "w2.json", &cat, &err) == 0);
		CHECK_EQ_INT(w2.cluster.pools[0].transport, COMM_TRANSPORT_TCP);
		CHECK_EQ_INT(w2.cluster.pools[1].transport, COMM_TRANSPORT_IB);
		CHECK_EQ_INT(w2.cluster.pools[2].transport, COMM_TRANSPORT_TCP);
		free(text);
	}
	catalog_done(&cat);
}

/* GPUs without P2P (catalog "p2p": false) reach each other through host
 * memory at SHM_EFF 0.325 of the PCIe x16 figure (comm.c, "No P2P"): the
 * measured two-way SHM all-reduce, 3.9 GB/s on PCIe Gen3 x16 (NVIDIA/nccl
 * issue #384), over NCCL's 12 GB/s; at most SHM_HOST_BPS 4.43 GB/s, the
 * host's ceiling on SHM whatever the generation (comm.c; measured on a
 * DGX A100 with P2P disabled, Gen4: 3.86 GB/s for 2 GPUs, 5.20 for 4,
 * tests/data/comm.csv V166, V167). */
TEST(no_p2p_through_host)
{
	struct catalog cat;
	if (load_catalog(&cat) < 0)
		return;
	const struct gpu_spec *g4090 = catalog_gpu(&cat, "RTX-4090");
	const struct gpu_spec *a6000 = catalog_gpu(&cat, "RTX-A6000");
	const struct gpu_spec *t4 = catalog_gpu(&cat, "T4");
	CHECK(g4090 && a6000 && t4);
	if (!g4090 || !a6000 || !t4) {
		catalog_done(&cat);
		return;
	}
	/* The catalog's statements (data/gpus.json). GeForce cards on the
	 * stock driver have no PCIe peer access: 8 RTX 3090 print 'CANNOT
	 * Access Peer' in p2pBandwidthLatencyTest (NVIDIA/nccl issue #1127),
	 * two RTX 5090 likewise (NVIDIA/nccl issue #1637). */
	CHECK_EQ_INT(catalog_gpu(&cat, "RTX-3090")->no_p2p, 1);
	CHECK_EQ_INT(catalog_gpu(&cat, "RTX-5090")->no_p2p, 1);
	CHECK_EQ_INT(g4090->no_p2p, 1);
	CHECK_EQ_INT(t4->no_p2p, 1);
	CHECK_EQ_INT(a6000->no_p2p, 0);

	/* Two RTX 4090 on PCIe Gen4 in one workstation: 25.6 GB/s x 0.325 =
	 * 8.32 GB/s of the link, above the host's 4.43 GB/s, so 4.43 GB/s
	 * through host memory. BERT-large's fp16 gradients, 605 MB, ring
	 * all-reduce over 2 GPUs: each moves 2(n-1)/n = 1 x S, so 605e6 /
	 * 4.43e9 = 136.57 ms (plus ~25 us of latency: 2e-3 relative is 273
	 * us). The same pair with P2P (RTX A6000, Gen4): 605e6 / 25.6e9 =
	 * 23.63 ms. */
	struct comm_group w = group_on(g4090, INTRA_PCIE, 1, 100, 2, 2);
	CHECK_NEAR(w.fab.intra_Bps, 4.43e9, 1e-9);
	CHECK_NEAR(t_of(&w, COMM_ALLREDUCE, 605e6, COMM_ALGO_AUTO, COMM_PROTO_AUTO),
		   136.57e-3, 2e-3);
	/* PCIe Gen5 (RTX 5090) gets no more: 51.2 x 0.325 = 16.64 GB/s of
	 * the link, 4.43 through the host. */
	const struct gpu_spec *g5090 = catalog_gpu(&cat, "RTX-5090");
	CHECK(g5090 != NULL);
	if (g5090) {
		struct comm_group w5 = group_on(g5090, INTRA_PCIE, 1, 100, 2, 2);
		CHECK_NEAR(w5.fab.intra_Bps, 4.43e9, 1e-9);
	}
	/* Measured (P2P disabled, DGX A100, Gen4, 1 GiB all-reduce): 2 GPUs
	 * 3.86 GB/s, 4 GPUs 5.20 GB/s busbw; the model's 4.43 lies within
	 * 15% of both (+14.8%, -14.8%). */
	CHECK(w.fab.intra_Bps <= 3.86e9 * 1.15 && w.fab.intra_Bps >= 5.20e9 * 0.85);
	comm_fabric_init(&w.fab, a6000, INTRA_PCIE, 1, 100);
	CHECK_NEAR(t_of(&w, COMM_ALLREDUCE, 605e6, COMM_ALGO_AUTO, COMM_PROTO_AUTO),
		   23.63e-3, 2e-3);

	/* Four T4 of an AWS g4dn.12xlarge (PCIe Gen3): NCCL's 12 GB/s x 0.325
	 * = 3.9 GB/s, the issue #384 measurement itself (AMP's own cluster
	 * file assumes 50 Gb/s = 6.25 GB/s inside the node, a planning figure,
	 * not a measurement). 1 GiB all-reduce over 4 ranks: 2 x 3/4 x 2^30 /
	 * 3.9e9 = 413.0 ms. */
	w.ranks = 4;
	w.ranks_per_node = 4;
	comm_fabric_init(&w.fab, t4, INTRA_PCIE, 1, 50);
	CHECK_NEAR(w.fab.intra_Bps, 3.9e9, 1e-9);
	CHECK_NEAR(t_of(&w, COMM_ALLREDUCE, 1073741824.0, COMM_ALGO_AUTO, COMM_PROTO_AUTO),
		   0.4130, 1e-3);
	/* An NVLink path is not affected by the flag (no SHM there). */
	struct gpu_spec nv = *t4;
	nv.link_Bps = 50e9;
	comm_fabric_init(&w.fab, &nv, INTRA_NVLINK, 1, 50);
	CHECK_NEAR(w.fab.intra_Bps, 40e9, 1e-9);
	catalog_done(&cat);
}

/* The fixed cost of one collective through host memory (SHM, no P2P) is
 * tens of microseconds, measured, not the 0.5-0.7 ms per TP all-reduce
 * that AMP's T4 rows pay (docs/blind-round20-pcie.md: that cost is the
 * framework's, two torch.cuda.synchronize() calls around each TP
 * all-reduce). Two published nccl-tests runs on GPUs without P2P:
 *  - 8 RTX 4090, one node, all_reduce_perf at 8 B: 42.14 us out of place
 *    (NCCL_BUFFSIZE=8388608; 42.56 with NCCL_ALGO=TREE), NVIDIA/nccl
 *    issue #1530. NCCL's own tables (tuning.cc, comm.c's base_lat and
 *    hw_lat) give ring LL 6.6 + 2 x 7 hops x 1.0 (PCI) = 20.6 us, plus
 *    comm.c's 4 us host cost: 24.6 us, 0.58 of the measurement: hetplan
 *    is short by ~17.5 us here (1.25 us a hop, or the two sockets such a
 *    box has), which the test keeps within a factor of two.
 *  - 2 RTX 4090 with P2P disabled, alltoall_perf at 8 B: 11.87 us out of
 *    place (tinygrad/open-gpu-kernel-modules issue #17): one SHM hop each
 *    way. A send over one SHM hop in hetplan: 4 + 6.6 (ring LL base) +
 *    1.0 (one PCI hop) = 11.6 us, within 3% of it. */
TEST(shm_fixed_cost_measured)
{
	struct catalog cat;
	if (load_catalog(&cat) < 0)
		return;
	const struct gpu_spec *g4090 = catalog_gpu(&cat, "RTX-4090");
	CHECK(g4090 != NULL);
	if (!g4090) {
		catalog_done(&cat);
		return;
	}
	struct comm_group w = group_on(g4090, INTRA_PCIE, 1, 100, 8, 8);
	double t8 = t_of(&w, COMM_ALLREDUCE, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO);
	CHECK_NEAR(t8, 24.6e-6, 0.02);
	CHECK(t8 > 42.14e-6 / 2 && t8 < 42.14e-6);
	w = group_on(g4090, INTRA_PCIE, 1, 100, 2, 2);
	double t2 = t_of(&w, COMM_SENDRECV, 8, COMM_ALGO_AUTO, COMM_PROTO_AUTO);
	CHECK_NEAR(t2, 11.6e-6, 0.02);
	CHECK_NEAR(t2, 11.87e-6, 0.05);
	/* Four T4 of a g4dn.12xlarge, a 2 MiB fp16 activation (GPT-2 medium,
	 * 1 x 1024 x 1024): ring Simple, latency 4 + 8.4 + 6 hops x 5.7
	 * (PCI) = 46.6 us, and the bytes 2 x 3/4 x 2 MiB / 3.9 GB/s =
	 * 806.6 us; 853.2 us in all. A fixed cost of 0.5 ms would be ten
	 * times the latency term. */
	const struct gpu_spec *t4 = catalog_gpu(&cat, "T4");
	CHECK(t4 != NULL);
	if (t4) {
		w = group_on(t4, INTRA_PCIE, 1, 50, 4, 4);
		double t = t_of(&w, COMM_ALLREDUCE, 2097152, COMM_ALGO_AUTO, COMM_PROTO_AUTO);
		CHECK_NEAR(t, 853.2e-6, 1e-3);
	}
	catalog_done(&cat);
}

/* One NIC on a PCIe Gen3 NVLink node (DGX-1-class V100 with one EDR HCA)
 * runs at ONE_NIC_EFF = 0.70 of line rate (comm.c; docs/links.md: DLPerf's
 * topology and rows). Hand calculation: 2 nodes x 8 V100, 100 Gb/s = 12.5
 * GB/s line rate; NVLink inside 150 GB/s x 0.8 = 120 GB/s never binds. A
 * 4 GiB ring all-reduce over 16 ranks: busbw = 12.5 x 0.70 = 8.75 GB/s
 * (the ~1 ms of latency is 0.1% of its 0.92 s). Two such NICs: 25 x 0.96
 * = 24 GB/s; one NIC on a PCIe Gen4 node: 12.5 x 0.96 = 12 GB/s. */
TEST(one_nic_gen3)
{
	struct gpu_spec v100 = gpu(GEN_VOLTA, 150e9, 3);
	struct gpu_spec gen4 = gpu(GEN_AMPERE, 150e9, 4);
	double S = 4294967296.0;
	struct comm_group one = group_on(&v100, INTRA_NVLINK, 1, 100, 16, 8);
	struct comm_group two = group_on(&v100, INTRA_NVLINK, 2, 100, 16, 8);
	struct comm_group g4 = group_on(&gen4, INTRA_NVLINK, 1, 100, 16, 8);
	CHECK_NEAR(busbw_of(&one, COMM_ALLREDUCE, S, COMM_RING), 8.75e9, 0.005);
	CHECK_NEAR(busbw_of(&two, COMM_ALLREDUCE, S, COMM_RING), 24.0e9, 0.005);
	CHECK_NEAR(busbw_of(&g4, COMM_ALLREDUCE, S, COMM_RING), 12.0e9, 0.005);
	/* A pool pair keeps the lower efficiency (comm_fabric_min). */
	struct comm_fabric m;
	comm_fabric_min(&m, &one.fab, &g4.fab);
	CHECK_NEAR(m.nic_eff, 0.70, 1e-9);
}

/* Beyond two multi-host NVLink domains a ring's network traffic goes
 * through NCCL's channels, one NIC each, at the spine's ECMP efficiency
 * (comm.c, DOMAIN_NET_CH_BPS, SPINE_ECMP_EFF). Hand calculation for GB200
 * NVL72 racks (NVLink 900 GB/s x 40.1/50 = 720 GB/s; 72 NICs of 400 Gb/s
 * per rack): per channel min(50 x 0.96, 48) = 48 GB/s, floor(720 / 48) =
 * 15 channels, 15 x 48 x 0.632 = 455.04 GB/s on 20 racks (1,440 ranks).
 * Measured there: 406-434 GB/s at 16 GiB (tests/data/blind_comm.csv). On
 * 2 racks, or without domain_hosts (one host per node), the bound is
 * NVLink's 720. A 2 TiB ring all-reduce keeps the ~12 ms of ring latency
 * (1,440 ranks) under 0.3% of the time. */
TEST(multi_domain_channels)
{
	struct gpu_spec gb = gpu(GEN_BLACKWELL, 900e9, 5);
	double S = 2199023255552.0;
	struct comm_group r20 = group_on(&gb, INTRA_NVSWITCH, 72, 400, 1440, 72);
	r20.domain_hosts = 18;
	struct comm_group r2 = group_on(&gb, INTRA_NVSWITCH, 72, 400, 144, 72);
	r2.domain_hosts = 18;
	struct comm_group flat = group_on(&gb, INTRA_NVSWITCH, 72, 400, 1440, 72);
	CHECK_NEAR(busbw_of(&r20, COMM_ALLREDUCE, S, COMM_RING), 455.04e9, 0.005);
	CHECK_NEAR(busbw_of(&r2, COMM_ALLREDUCE, S, COMM_RING), 720e9, 0.005);
	CHECK_NEAR(busbw_of(&flat, COMM_ALLREDUCE, S, COMM_RING), 720e9, 0.005);
}

/* A ring broadcast's chain fill and NCCL's protocol choice (comm.c,
 * BCAST_STEP_BYTES, bcast_tuner_s). 16 DGX A100 nodes (NVLink 300 GB/s x
 * 0.8 = 240 GB/s), 128 ranks, 90 MB (one of InternLM 7B's 162 owner
 * broadcasts at 1,024 ranks is 7.32e9 x 2 / 162 = 90 MB), on 4 x 100 Gb/s
 * NICs or on one 400 Gb/s NIC: 48 GB/s a node either way (x 0.96), 4
 * channels (ceil(48 / 12)), all active.
 * By hand, Simple: host 4 + base 8.4 + 112 NVLink hops x 4.0 (NCCL's tree
 * Simple figure) + 15 network hops x 14 = 670.4 us; fill: 4 channels x
 * 512 KiB = 2,097,152 bytes held per hop, 15 x 2097152 / 48e9 = 655.36 us
 * over the network and 112 x 2097152 / 240e9 = 978.67 us over NVLink;
 * data 90e6 / 48e9 = 1875 us: 4179.43 us. LL128: host 4 + base 14 + 112 x
 * 1.9 + 15 x 4.0 = 290.8 us; fill over the network only (NVLink hops
 * forward per line): 15 x 4 x 576000 / 44.16e9 = 782.6 us (48 x 0.92 =
 * 44.16 GB/s); data 90e6 / 44.16e9 = 2038.0 us: 3111.4 us.
 * NCCL's tuner with one NIC (sameChannels: base + one network hop + S/bw):
 * Simple 22.4 + 1875 = 1897 us, LL128 18 + 2038 = 2056 us: Simple. With
 * four NICs (channels on different GPUs: nRanks hops): Simple 8.4 + 128 x
 * 14 + 1875 = 3675 us, LL128 14 + 128 x 4.0 + 2038 = 2564 us, LL 6.6 +
 * 128 x 2.7 + 90e6 / 20.4e9 = 4764 us: LL128. */
TEST(broadcast_chain_fill)
{
	struct gpu_spec a100 = gpu(GEN_AMPERE, 300e9, 4);
	struct comm_group g4 = group_on(&a100, INTRA_NVSWITCH, 4, 100, 128, 8);
	struct comm_group g1 = group_on(&a100, INTRA_NVSWITCH, 1, 400, 128, 8);
	struct comm_result r;
	CHECK(comm_time(&g1, COMM_BROADCAST, 90e6, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, NULL) == 0);
	CHECK_NEAR(r.time_s, 4179.43e-6, 1e-4);
	CHECK(r.proto == COMM_SIMPLE && r.algo == COMM_RING);
	CHECK(comm_time(&g4, COMM_BROADCAST, 90e6, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r, NULL) == 0);
	CHECK_NEAR(r.time_s, 3111.4e-6, 1e-4);
	CHECK(r.proto == COMM_LL128 && r.algo == COMM_RING);
	CHECK_NEAR(t_of(&g4, COMM_BROADCAST, 90e6, COMM_RING, COMM_SIMPLE), 4179.43e-6, 1e-4);
}

/* The per-step latencies at the scale of the blind weak-scaling rows
 * (docs/blind-round10-scale.md): 1,024 ranks on 128 A100 nodes of 8 with
 * 4 x 100 Gb/s NICs (InternLM's BLIL-08), 8-byte messages so the times
 * are NCCL's latency terms alone (ncclTopoTuneModel, src/graph/tuning.cc:
 * nsteps, nInterSteps).
 * Ring + LL all-reduce: nsteps 2 x 1023 = 2046, of them 2 x 127 = 254
 * network steps at 2.7 us, 1,792 NVLink steps at max(0.6, 1.0 net
 * overhead) us: 6.6 + 1792 + 685.8 = 2484.4 us; + 4 host = 2488.4 us.
 * Ring + LL reduce-scatter: 1023 steps, 127 of them network:
 * 6.6 + 896 x 1.0 + 127 x 2.7 = 1245.5 us; + 4 = 1249.5 us.
 * Tree + LL all-reduce: 6.8 + 2 x (7 x 0.6 + log2(128) x 5.0) = 85.2 us;
 * + 4 = 89.2 us (docs/accuracy.md, "Scale", item 2: 89 us).
 * The ring's 2,046 steps cost 28 times the tree's 2 x 14 hops. For
 * InternLM's 512 MiB gradient bucket that decides the algorithm. Node
 * NICs: 4 x 12.5 GB/s x 0.96 x 0.9 (32 nodes or more) = 43.2 GB/s, 4
 * channels. Ring + LL128: (1792 x 1.9 + 254 x 4.0 + 14) us = 4.4 ms of
 * steps, plus 2 x 1023/1024 x 537 MB at 0.92 x 43.2 GB/s = 27.0 ms: 31.4
 * ms. Tree + Simple: 8.4 + 2 x (7 x 4.0 + 7 x 14) = 260 us of hops, plus
 * a fill of 2 x 14 hops x 512 KiB at one channel's 9.9 GB/s = 1.5 ms,
 * plus 537 MB at half of 39.7 GB/s = 27.0 ms: 28.8 ms, the fastest. */
TEST(latency_at_1024_ranks)
{
	struct gpu_spec a100 = gpu(GEN_AMPERE, 300e9, 4);
	struct comm_group g = group_on(&a100, INTRA_NVSWITCH, 4, 100, 1024, 8);
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, 8, COMM_RING, COMM_LL), 2488.4e-6, 0.005);
	CHECK_NEAR(t_of(&g, COMM_REDUCESCATTER, 8, COMM_RING, COMM_LL), 1249.5e-6, 0.005);
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, 8, COMM_TREE, COMM_LL), 89.2e-6, 0.005);
	struct comm_result r;
	CHECK(comm_time(&g, COMM_ALLREDUCE, 536870912.0, COMM_ALGO_AUTO, COMM_PROTO_AUTO, &r,
			NULL) == 0);
	CHECK(r.algo == COMM_TREE && r.proto == COMM_SIMPLE);
	CHECK_NEAR(r.time_s, 28.8e-3, 0.01);
	CHECK_NEAR(t_of(&g, COMM_ALLREDUCE, 536870912.0, COMM_RING, COMM_LL128), 31.4e-3, 0.01);
}

int main(void)
{
	RUN(busbw_factors);
	RUN(fabric_from_gpu);
	RUN(ring_latency_single_node);
	RUN(ring_and_tree_latency_multi_node);
	RUN(large_message_bandwidth);
	RUN(slowest_link_across_pools);
	RUN(wan_and_oversubscription);
	RUN(enablement_rules);
	RUN(conventions_and_edges);
	RUN(efa_transport);
	RUN(nvls_fill);
	RUN(names);
	RUN(tcp_transport);
	RUN(opa_transport);
	RUN(tcp_default_in_cluster);
	RUN(gcp_transports);
	RUN(no_p2p_through_host);
	RUN(shm_fixed_cost_measured);
	RUN(one_nic_gen3);
	RUN(multi_domain_channels);
	RUN(broadcast_chain_fill);
	RUN(latency_at_1024_ranks);
	return t_done("comm");
}
