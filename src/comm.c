/* comm.c — time of one collective over a group of GPUs, after NCCL's tuner.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
 *
 * How the model works
 * -------------------
 * For every (algorithm, protocol) pair that NCCL would enable for the
 * collective, the GPU generation and the topology, we form
 *
 *     t = latency(algorithm, protocol, hops) + bytes / algbw(algorithm, protocol)
 *
 * and keep the smallest t, as NCCL's tuner does. The latency constants (base
 * cost per algorithm and protocol, per-hop cost for NVLink, PCIe and the
 * network) and the bandwidth derates and per-channel caps are NCCL's own
 * default tables (tuning.cc, NCCL 2.2x), indexed by architecture (Volta,
 * Ampere, Hopper, Blackwell) and by node count (1, 2, 3+). Bandwidths are
 * handled as nccl-tests "bus bandwidths" and converted to algorithm
 * bandwidth with the same factors nccl-tests prints (comm_busbw_factor).
 *
 * Simplifications (where this differs from NCCL or from a real cluster)
 * ----------------------------------------------------------------------
 *  - The topology is not searched. A node is summarised by one per-GPU
 *    scale-up bandwidth, one PCIe bandwidth and k identical NICs. NCCL's
 *    per-link constants give the effective scale-up bandwidth (comm_fabric_init).
 *  - Multi-node ring and tree bandwidth is min(scale-up, node NIC total):
 *    channels are assumed rail-aligned (PXN), so inter-node traffic of a node
 *    spreads over all its NICs. NIC efficiency is one figure per transport
 *    (0.96 of line rate on IB; "Transport profiles" below).
 *  - Tree all-reduce across nodes gets the fan-out bonus of a double binary
 *    tree on 3 nodes (4/3 of the NIC bound, as SimAI's formula); on 2 nodes
 *    none (TREE_FAN2): NCCL's own tuner credits a tree with no more than a
 *    ring there, and the measured 2-node plain-tree runs agree (see
 *    TREE_FAN2). NVLS-tree doubles the NIC bound only on 2 nodes (as NCCL's
 *    tuner).
 *  - NVLS bandwidth uses the measured ratio to the ring bound (1.29x on
 *    Hopper, 1.15x on Blackwell) instead of NCCL's optimistic 2 * 0.85.
 *    NVLS in one NVLink domain pays a pipeline fill of NVLS_FILL_LOOPS
 *    loops (channels x heads x chunk) that NCCL's 25 us leaves out: 0.1 ms
 *    on an 8-GPU HGX node, 0.4-0.7 ms on a 72-GPU NVL72 rack, whose
 *    all-reduce therefore reaches its plateau only at 2-4 GiB. NVLS-tree
 *    across nodes pays it too (its domain part is the same pipeline),
 *    except on EFA, whose fitted tree terms already hold it.
 *    Multi-node NVLS and CollNet (SHARP in the network) are not modelled;
 *    NVLS-tree is.
 *  - NCCL's tree correction factors for mid-size messages are not applied.
 *  - Channel scaling for small messages follows NCCL's thread thresholds
 *    (ring/tree) and the 128 KiB NVLS chunk; thread-count halving is ignored.
 *  - A host/launch overhead (HOST_LAT_S) is added to every collective: NCCL's
 *    tables leave it out, but nccl-tests timings include it.
 *  - Beyond two NVLink domains of several hosts (NVL72 racks) the ring and
 *    tree network bound is NCCL's channels, one NIC each, at the spine's
 *    ECMP efficiency (DOMAIN_NET_CH_BPS, SPINE_ECMP_EFF), not the
 *    domain's NIC total.
 *  - Tree all-reduce pays the pipeline fill of its chain (TREE_STEP_BYTES);
 *    a ring broadcast pays its chain's (BCAST_STEP_BYTES), with the
 *    protocol NCCL's tuner picks by its own cost, which leaves the chain
 *    out (bcast_tuner_s), not the one cheapest here.
 *  - Groups of 32 nodes or more lose 10% of network bandwidth to congestion
 *    across the spine (the reference's default for large jobs; AWS p5 shows
 *    a -10% step at 32 nodes).
 *  - Spine oversubscription r (the cluster's fabric.oversubscription) only
 *    touches a group whose hosts span more than one leaf switch
 *    (LEAF_HOSTS): it slows the tree-like algorithms and all-to-all by
 *    the cross-leaf share of their traffic times r, 1 / max(1, r (L-1)/L)
 *    over L leaves (spine_factor); rings are taken to be placement-aware
 *    and unaffected. Trees are costed as if their traffic were spread
 *    uniformly over the leaves, as all-to-all's is: pessimistic for a
 *    tree built in rank order, whose few cross-leaf edges fit the
 *    uplinks.
 *  - A group spanning sites joined by a WAN: every algorithm is capped by the
 *    WAN link (bus bandwidth <= wan_Bps x the protocol's payload share of
 *    the wire, 1/2 for LL and 120/128 for LL128; the cross edge of a ring
 *    carries the full bus traffic), and pays the WAN latency once per ring step (rings
 *    advance in lock step), twice for trees, once for all-to-all/send-recv.
 *  - All-to-all has its own bisection model (reference notes §6): the per
 *    GPU bytes that stay in the node go over scale-up, the rest over the
 *    GPU's share of the node NICs, at an efficiency of 0.94, plus a per-peer
 *    issue cost. Across nodes NCCL runs the n-1 sends and receives in rounds
 *    of A2A_ROUND_PEERS peers at once (its point-to-point channels, two per
 *    peer), and each round ends with a tail: a start cost A2A_ROUND_S plus
 *    one peer's message, up to A2A_TAIL_BYTES, at a single connection's
 *    A2A_TAIL_BPS. So t = bulk + ceil((n-1)/16) (40 us + min(S/n, 2 MB) /
 *    8 GB/s). The four constants are fitted on the fifteen AWS p5 (EFA)
 *    all-to-all rows, 2-32 nodes, 32 MiB-2 GiB: all within 7% (without the
 *    rounds the 256 MiB rows at 16-32 nodes were 23-24% fast and every 32
 *    MiB row 32-42% fast). No InfiniBand all-to-all was measured; the same
 *    constants are used there. Skewed routing, incast and DeepEP-style
 *    kernels are not modelled.
 *  - Send/recv is one point-to-point transfer; across nodes it runs at the
 *    GPU's share of the node NICs (all GPUs of a pipeline stage send at once).
 *  - A mixed group runs at its slowest member (comm_fabric_min), link by link.
 *  - Non-NVIDIA GPUs (RCCL, HCCL) reuse NCCL's Ampere tables. An AMD
 *    xGMI node of 8 is a full mesh: a group of g ranks in it gets g - 1
 *    of the GPU's 7 links ("xGMI full mesh", comm_fabric_init).
 *
 * AWS EFA (comm_fabric_set_transport, COMM_TRANSPORT_EFA)
 * -------------------------------------------------------
 * EFA carries NCCL through the aws-ofi-nccl plugin over SRD, which sprays
 * the packets of one message over many paths and delivers them out of order.
 * Its own tuner plugin replaces NCCL's tables but still picks the fastest
 * algorithm for its costs, so we keep "minimum over algorithms" and change
 * the costs:
 *  - Simple protocol only across nodes (LL/LL128 rely on in-order 8/128-byte
 *    stores). This is a simplification: the aws-ofi-nccl tuner (1.16) does
 *    pick tree and ring LL128 for p5 all-reduce below ~1-2 GB, so for EFA
 *    all-reduce the algorithm and protocol hetplan names can differ from
 *    what runs; the times are fitted to the measured rows either way.
 *  - 25 us more per network hop than IB (the plugin's
 *    completion path; fitted on the p5 all-gather rings, 4-32 nodes, 32 MiB
 *    to 2 GiB, whose fixed cost is 0.3 ms at 4 nodes and 2.4-2.7 ms at 32:
 *    ~57 us per network hop with IB's 14 us per-hop base and the Simple
 *    protocol's two network latencies).
 *  - Tree depth (EFA_TREE_DEPTH): an inner tree node forwards a Simple step
 *    only once every packet of it has completed, and with unordered
 *    multipath delivery that waits for the slowest path. Each level beyond
 *    the first adds that wait to the pipeline step, so tree and NVLS-tree
 *    network bandwidth is b_net / (1 + d (log2 N - 1)). d = 0.29 is fitted
 *    on the p5 all-reduce 256 MiB rows at 4-32 nodes, where NVLS-tree wins;
 *    the window is narrow: 0.27-0.31 keeps all four within 15% (8 nodes
 *    measure 13% faster than the model, 16 nodes 13% slower): the measured
 *    loss steps between 8 and 16 nodes more than this smooth form does.
 *    2 nodes (one level) are unaffected.
 *  - Ring all-reduce fill (EFA_BUFFSIZE): the ring is credit-limited by the
 *    NCCL_BUFFSIZE receive buffer of each channel (8 MiB on p5); before the
 *    steady state each channel must push one buffer through the node's NICs
 *    in each of the two passes (reduce-scatter, all-gather), so the fixed
 *    cost of a big ring is 2 * min(S, nch * BUFFSIZE) / b_net (1.4 ms for 32
 *    channels at 384 GB/s). Large messages overlap the per-step latencies
 *    with transfers, so the fixed cost is the larger of that fill and the
 *    summed per-step latency (without NCCL's IB ring plateau factor), not
 *    their sum. Measured p5 rings: 1.6-3.5 ms of fixed cost at 4-32 nodes.
 *  Not modelled on EFA: the 2-node all-gather dip at 256 MiB.
 *
 * Transport profiles (net_profiles; docs/cloud-transport.md)
 * ------------------------------------------------------------
 * Every network transport is two numbers on top of NCCL's IB tables: the
 * share of line rate its NICs deliver to NCCL, and a latency per network
 * hop that the transport's plugin adds (counted twice for Simple, once for
 * LL/LL128, as NCCL counts a net plugin's latency). IB keeps NIC_EFF (or
 * ONE_NIC_EFF) and nothing per hop; EFA and TCP sockets are described
 * above and below. The Google Cloud fabrics, each fitted on one published
 * nccl-tests table of its own (tests/data/comm.csv) and checked on another
 * where one exists (holdout_comm.csv):
 *  - GPUDirect RDMA over RoCE with the gIB plugin (a3-ultragpu-8g,
 *    a4-highgpu-8g; COMM_TRANSPORT_GCP_RDMA): GCP_RDMA_NIC_EFF = 0.817
 *    of line rate, nothing per hop. 2 x 8 H200 all-gather at 8 GiB ran at
 *    325.7 GB/s busbw over 8 x 400 Gb/s (SkyPilot's run and Google's own
 *    test pods, the same to 0.1%; comm.csv V159-V162), where NCCL's IB
 *    gets 0.96; 1 KiB took 28.4 us, IB's latency. Held out: 2 x 8 B200
 *    all-reduce on a4-highgpu-8g (dstack, HC-A4-01..03).
 *  - GPUDirect-TCPXO (a3-megagpu-8g; COMM_TRANSPORT_TCPXO): TCPXO_NIC_EFF
 *    = 0.944, TCPXO_HOP_S = 60 us per network hop (range 50-70). 2 x 8
 *    H100 all-gather over 8 x 200 Gb/s (dstack; comm.csv V155-V158): 188.5
 *    GB/s busbw at 8 GiB (0.944 of line rate, after the model's own
 *    latency), and a fixed cost that IB's tables leave 73 us short at
 *    8 MiB (166.6 us measured, LL128: one network hop) and 57 us at 32
 *    MiB: the plugin's per-hop cost, 50 us fitting 32-256 MiB and 70 us
 *    8 MiB.
 *  - GPUDirect-TCPX (a3-highgpu-8g, a3-edgegpu-8g; COMM_TRANSPORT_TCPX):
 *    TCPX_NIC_EFF = 0.67, TCPX_HOP_S = 200 us per network hop. 2 x 8 H100
 *    all-reduce, Ring/Simple forced, over 4 x 200 Gb/s (SkyPilot; comm.csv
 *    V163-V165): 65.7 GB/s at 2 GiB and 9.2 GB/s at 8 MiB (1.7 ms): 200
 *    us fits 8 MiB within +11% and 64 MiB within -11%. The held-out dstack
 *    all-gather on the same machine type (HC-TCPX-01, -02: 627 us at
 *    1 MiB) has a larger floor still; not fitted.
 * All protocols stay enabled on them (NCCL's tuner does not tie LL/LL128
 * to the net transport; Google's TCPXO profile is nccl-env-profile-ll128).
 * Simplified: one figure per fabric, whatever the NCCL and plugin version
 * and the placement (a pod on a GPU whose NIC crosses sockets, a spot VM
 * outside the compact placement group) that a user cannot state.
 */
#include "comm.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- constants --------------------------------------------------------- */

enum { ARCH_VOLTA, ARCH_AMPERE, ARCH_HOPPER, ARCH_BLACKWELL, ARCH_N };
enum { HW_NVLINK, HW_PCI, HW_NET };
/* Internal algorithm rows for the latency tables. */
enum { A_TREE, A_RING, A_NVLS, A_NVLS_TREE, A_PAT, A_N };
enum { P_LL, P_LL128, P_SIMPLE, P_N };

#define US 1e-6
#define GBPS 1e9

/* Base latency per algorithm and protocol, µs (NCCL tuning.cc). */
static const double base_lat[A_N][P_N] = {
	[A_TREE] = { 6.8, 14.0, 8.4 },
	[A_RING] = { 6.6, 14.0, 8.4 },
	[A_NVLS] = { 0, 0, 0 },
	[A_NVLS_TREE] = { 0, 0, 0 },
	[A_PAT] = { 8.0, 8.0, 8.0 },
};

/* Latency per hop by link class, µs (NCCL tuning.cc hwLat). */
static const double hw_lat[3][A_N][P_N] = {
	[HW_NVLINK] = {
		[A_TREE] = { 0.6, 1.25, 4.0 },
		[A_RING] = { 0.6, 1.9, 3.4 },
		[A_NVLS] = { 0, 0, 25.0 },
		[A_NVLS_TREE] = { 0, 0, 25.0 },
		[A_PAT] = { 0, 0, 4.0 },
	},
	[HW_PCI] = {
		[A_TREE] = { 1.0, 1.9, 4.0 },
		[A_RING] = { 1.0, 2.5, 5.7 },
		[A_NVLS] = { 0, 0, 0 },
		[A_NVLS_TREE] = { 0, 0, 0 },
		[A_PAT] = { 0, 0, 4.0 },
	},
	[HW_NET] = {
		[A_TREE] = { 5.0, 8.5, 14.0 },
		[A_RING] = { 2.7, 4.0, 14.0 },
		[A_NVLS] = { 0, 0, 18.0 },
		[A_NVLS_TREE] = { 0, 0, 20.9 },
		[A_PAT] = { 0, 0, 14.0 },
	},
};

/* LL bus-bandwidth ceilings, GB/s: one node by architecture; across nodes
 * NCCL's Intel-host row (2 nodes, 3+ nodes). */
static const double ll_max_1node[ARCH_N] = { 39.0, 87.7, 141.0, 282.0 };
static const double ll_max_multi[2] = { 39.0, 20.4 };

/* Per-channel caps, GB/s, by architecture and node-count index (1, 2, 3+). */
static const double perch_ring_ll128[ARCH_N][3] = {
	{ 20, 20, 20 }, { 20, 20, 20 }, { 36.7, 36.7, 36.7 }, { 40, 40, 40 } };
static const double perch_tree_ll128[ARCH_N][3] = {
	{ 20, 20, 20 }, { 20, 20, 20 }, { 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 } };
static const double perch_tree[ARCH_N][3] = {
	{ 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 }, { 38.7, 41.4, 36.0 },
	{ 70.0, 42.8, 24.0 } };
static const double perch_nvls_tree[ARCH_N][3] = {
	{ 0, 0, 0 }, { 0, 0, 0 }, { 0, 57.7, 45.5 }, { 0, 96.0, 80.0 } };

/* NVLS all-reduce bus bandwidth over the ring (scale-up) bound, measured:
 * H100 479/370.8, B200 830/721.8. */
static const double nvls_ratio[ARCH_N] = { 0, 0, 1.29, 1.15 };

#define NIC_EFF 0.96            /* NCCL: 12 GB/s per 100 Gb/s of NIC */
#define LL128_EFF 0.92
#define TREE_EFF 0.92
/* Network bound of a plain tree all-reduce on 2 nodes, in NIC bandwidths.
 * A double binary tree could carry 2x (each NIC sends S/2 per tree), and
 * SimAI's formula credits that; NCCL's tuner (tuning.cc: tree busBw =
 * nChannels x bwInter x 0.92, algbw half of it) credits 1x, and so do the
 * measured 2-node runs with plain trees: p4d all-reduce at 1 GiB (comm.csv
 * V098: 57 GB/s busbw, 82 predicted with 2x, 46 with 1x), TP 16 over two
 * V100 nodes on one EDR NIC (DLPerf, DLPERF-07: -54% with 2x, -31% with
 * 1x) and over two A100 nodes on 800 Gb/s (vTrain, VTM-07: -24% with 2x,
 * -1% with 1x). Range 1-2. */
#define TREE_FAN2 1.0
#define PAT_EFF 0.75
#define NET_OVERHEAD_US 1.0     /* NCCL netOverhead, Intel/other hosts */
#define RING_PLATEAU 1.4        /* ring+Simple multi-node AR latency factor */
#define RING_PLATEAU_OLD 1.9    /* the same before Ampere */
#define MAX_CH 32
#define MIN_CH 2
#define CH_BW (12.0 * GBPS)     /* bus bandwidth one channel carries */
#define NVLS_CH 16
#define NVLS_CHUNK 131072.0
/* NVLS channels by architecture (NCCL transport/nvls.cc: 16 on Hopper
 * (NVLS_NCHANNELS_SM90), 24 on Blackwell in one NVLink domain
 * (NVLS_NCHANNELS_SM100_NVL, NCCL 2.27; 32 in 2.25)). Used for the loop
 * size only; the channel ramp of small messages keeps NVLS_CH. */
#define NVLS_CH_OF(arch) ((arch) >= ARCH_BLACKWELL ? 24 : 16)
/* Reducing heads at most (NCCL device.h NCCL_MAX_NVLS_ARITY); above it
 * NCCL runs NVLS for all-reduce only (enqueue.cc: NVLS all-gather and
 * reduce-scatter need localRanks <= 32). */
#define NVLS_MAX_HEADS 32
/* NVLS pipeline fill, in loops. NCCL's NVLS all-reduce in one NVLink domain
 * (device/all_reduce.h) moves each channel's data in loops of heads x chunk:
 * every rank scatters its loop into the heads' buffers, each head reduces
 * its chunk through the switch (multimem ld_reduce) and multicasts the
 * sum, every rank gathers it out: three stages, pipelined loop by loop, so
 * a message pays the first scatter and the last gather (two loops) plus
 * the wait of every stage on the slowest of the ranks. A loop is 16 MiB on
 * 8 H100 (16 ch x 8 heads x 128 KiB) but 48-96 MiB on a 72-GPU NVL72 rack
 * (24 ch x 32 heads x 64-128 KiB): the same ramp costs 0.1 ms on an HGX
 * node and 0.4-0.7 ms on a rack. Range 2-4; 3 from the 8-GPU H100 / H200
 * NVLS rows of comm.csv (V053/V059 at 16 MiB, V054/V060 at 256 MiB,
 * V055 at 1 GiB: 2.3, 3.2, 2.4, 1.1 loops of fixed cost beyond NCCL's
 * 25 us). Checked, not fitted, on the GB200 NVL72 rack of
 * holdout_comm.csv (72 ranks, 512 MiB - 8 GiB). */
#define NVLS_FILL_LOOPS 3.0
#define P2P_LL_MAX 16384.0      /* NCCL's P2P LL threshold */
#define A2A_EFF 0.94
#define A2A_PEER_US 1.0         /* issue cost per peer of an all-to-all */
#define A2A_ROUND_PEERS 16      /* peers served at once across nodes */
#define A2A_ROUND_S (40.0 * US) /* start of each round */
#define A2A_TAIL_BYTES 2e6      /* a round's tail: one peer's message, */
#define A2A_TAIL_BPS 8e9        /* up to 2 MB, over one connection */
#define HOST_LAT_S (4.0 * US)
#define FABRIC_BIG_NODES 32     /* from here the fabric loses ~10% */
#define FABRIC_BIG_EFF 0.9
/* Beyond two multi-host NVLink domains (comm_group.domain_hosts > 1, N > 2)
 * the ring/tree network bound is what NCCL's channels carry, not the
 * domain's NIC total, and those channels cross a spine:
 *  - NCCL's tuner bounds ring and tree beyond two nodes by nChannels x
 *    bwInter, the per-channel network bandwidth (tuning.cc, 2.26:
 *    "bw = nNodes <= 2 ? bwIntra : bwInter"): each channel enters and
 *    leaves a domain through one NIC. Its ring search starts at 48 GB/s
 *    per channel (search.cc, sm100SpeedArrayInter[0]; sm90 also 48) and
 *    does not duplicate channels at bwIntra < 50 on sm90+ (DupChannels),
 *    so a domain uses floor(per-GPU NVLink / per-channel NIC) channels:
 *    floor(721.8 / 48) = 15 of an NVL72 rack's 72 NICs.
 *  - Those 15 flows per domain boundary cross the spine of a fabric that
 *    big (20 racks = 1,440 NICs), hashed onto uplinks by ECMP: k flows on
 *    k uplinks use 1 - (1 - 1/k)^k -> 1 - 1/e = 0.63 of them on average
 *    (Al-Fares et al., SIGCOMM 2008; Hedera, NSDI 2010 reports ECMP at
 *    about half of bisection for large flows). Range 0.5-0.8: Meta's RoCE
 *    clusters reach ~0.8 with QP-aware hashing (SIGCOMM 2024); De Sensi
 *    et al. (SC24) lose up to half of all-reduce goodput at 1,024 GPUs.
 * Checked, not fitted: 15 x 48 x 0.632 = 455 GB/s against 434 measured
 * on 20 GB200 NVL72 racks (tests/data/blind_comm.csv). Two domains are
 * untouched (NCCL's tuner uses bwIntra there, and the 2-rack rows run at
 * up to 829 GB/s, above any 15-channel bound), and so are single-host
 * nodes (HGX, p5), whose rows show neither term. A simplification: the
 * spine and its hashing are not described by the user; a fabric with
 * adaptive routing or packet spraying would lose less. */
/* Tree pipeline fill. NCCL's tree all-reduce is a chain through the GPUs
 * of a node (or NVLink domain) under a binary tree across nodes; a chunk
 * goes up the chain (reduce) and back down (broadcast), one step per hop,
 * so before the steady state the pipeline fills 2 x depth hops, depth =
 * (GPUs per node - 1) + log2(nodes), each one chunk at the channel's rate:
 * fill = 2 depth chunk nch / bus. NCCL's latency table counts only the
 * per-hop latency, not this. The chunk is one step of the protocol's
 * buffer (enqueue.cc: stepSize = buffSize / NCCL_STEPS, no chunk
 * reduction for tree Simple): Simple 4 MiB / 8 = 512 KiB; LL128 4.69 MiB /
 * 8 x 120/128 = 562.5 KiB, cut for depth as NCCL cuts it. A message of
 * less than a chunk per channel fills with what it has. LL is left out:
 * it runs only up to a few hundred KiB, where a channel's chunk is the
 * message itself, and NCCL's LL per-hop latencies, measured on such
 * messages, already hold that transfer. On an 8-GPU node the
 * fill is 0.3-1 ms (under 1% of a 16 GiB tree, the comm.csv tree rows
 * move by 0.2-0.7 points); a 72-GPU NVL72 domain chains 71 GPUs, and on
 * 20 racks the fill is 2.9 ms, which is why NCCL's tree does not beat
 * its ring there (measured fixed cost 5.4 ms; tests/test_blind_comm.sh). */
#define TREE_STEP_BYTES(p) ((p) == P_SIMPLE ? 524288.0 : 576000.0)
/* Ring broadcast pipeline fill. NCCL broadcasts as a chain from the root
 * around the ring, each rank forwarding to one peer (NVIDIA/nccl issues
 * #358 and #490, the maintainers: "a pipeline starting from the root and
 * only sending to a single peer"; device/broadcast.h, runRing:
 * directRecvCopyDirectSend per chunk), in chunks of one step of the
 * protocol's buffer (collectives.h: BROADCAST_CHUNKSTEPS = SLICESTEPS = 1;
 * issue #391: "chains (broadcast/reduce) use all 8 slots and their chunk
 * size is 512KB"; enqueue.cc cuts no ring broadcast chunk). Before the
 * last rank sees its first byte, the first chunk crosses n - 1 hops, each
 * held whole before it is passed on where the protocol stores and
 * forwards a step: the network transport's proxy sends a step once the GPU
 * has written all of it (every protocol), and Simple's receiver waits for
 * the step's counter on NVLink/PCIe too, where LL and LL128 forward each
 * line as its flag arrives (their per-hop latency holds that). A network
 * hop passes a step at one active channel's share of the ring's bus
 * bandwidth, an NVLink/PCIe hop at that share of the scale-up link.
 * Steps: Simple 4 MiB / 8 = 512 KiB; LL128 576,000 data bytes (as the
 * tree's); LL 512 KiB / 8 / 2 = 32 KiB of data. A message of less than a
 * step per channel fills with what it has. NCCL's own tuner leaves this
 * out (bcast_tuner_s), and the protocol is the one it picks. On 128 A100
 * nodes of 4 x 100 Gb/s (4 channels; LL128 at 48 x 0.9 x 0.92 / 4 = 9.9
 * GB/s each beyond 32 nodes) an LL128 broadcast fills 127 network hops of
 * 58 us: 7.4 ms, where moving 90 MB takes 2.3 ms; Simple would also hold
 * each step on 896 NVLink hops (8.7 us each): 14 ms. Simplified: the ring's channels are taken to
 * split every link evenly, a root is taken at a node boundary (n - N
 * NVLink hops, N - 1 network hops), and nothing else (a proxy's polling,
 * a GPUDirect flush) is added per hop beyond NCCL's per-hop latency. */
#define BCAST_STEP_BYTES(p) ((p) == P_SIMPLE ? 524288.0 : (p) == P_LL128 ? 576000.0 : 32768.0)
#define DOMAIN_NET_CH_BPS (48.0 * GBPS)
#define SPINE_ECMP_EFF 0.632
#define EFA_HOP_S 25e-6         /* extra per network hop on EFA, see top */
#define EFA_TREE_DEPTH 0.29     /* tree bandwidth loss per extra level */
#define EFA_BUFFSIZE 8388608.0  /* NCCL_BUFFSIZE the p5 runs use (8 MiB) */

/* ---- names ------------------------------------------------------------- */

static const char *const coll_names[COMM_COLL_COUNT] = {
	"allreduce", "allgather", "reducescatter", "alltoall", "broadcast",
	"sendrecv" };
static const char *const algo_names[COMM_ALGO_COUNT] = {
	"auto", "ring", "tree", "nvls", "nvls_tree", "pat", "p2p" };
static const char *const proto_names[COMM_PROTO_COUNT] = {
	"auto", "ll", "ll128", "simple" };

const char *comm_coll_name(enum comm_coll c)
{
	assert((unsigned)c < COMM_COLL_COUNT);
	return (unsigned)c < COMM_COLL_COUNT ? coll_names[c] : "?";
}

const char *comm_algo_name(enum comm_algo a)
{
	assert((unsigned)a < COMM_ALGO_COUNT);
	return (unsigned)a < COMM_ALGO_COUNT ? algo_names[a] : "?";
}

const char *comm_proto_name(enum comm_proto p)
{
	assert((unsigned)p < COMM_PROTO_COUNT);
	return (unsigned)p < COMM_PROTO_COUNT ? proto_names[p] : "?";
}

/* The index of s among names (compared as hp_name_key keys: "All_Reduce"
 * is "allreduce"), or -1. */
static int parse_in(const char *s, const char *const *names, int count, int *out)
{
	char k[32], nk[32];
	if (!s)
		return -1;
	hp_name_key(k, sizeof k, s);
	for (int i = 0; i < count; i++) {
		hp_name_key(nk, sizeof nk, names[i]);
		if (!strcmp(k, nk)) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

int comm_coll_parse(const char *s, enum comm_coll *out)
{
	int v;
	if (parse_in(s, coll_names, COMM_COLL_COUNT, &v))
		return -1;
	*out = (enum comm_coll)v;
	return 0;
}

int comm_algo_parse(const char *s, enum comm_algo *out)
{
	int v;
	if (parse_in(s, algo_names, COMM_ALGO_COUNT, &v))
		return -1;
	*out = (enum comm_algo)v;
	return 0;
}

int comm_proto_parse(const char *s, enum comm_proto *out)
{
	int v;
	if (parse_in(s, proto_names, COMM_PROTO_COUNT, &v))
		return -1;
	*out = (enum comm_proto)v;
	return 0;
}

/* ---- fabric ------------------------------------------------------------ */

static int arch_of(enum hp_gen g)
{
	switch (g) {
	case GEN_HOPPER: return ARCH_HOPPER;
	case GEN_BLACKWELL: return ARCH_BLACKWELL;
	case GEN_AMPERE: case GEN_ADA: case GEN_CDNA: case GEN_GAUDI: case GEN_CDNA4:
		return ARCH_AMPERE;
	default: return ARCH_VOLTA;
	}
}

/* Effective PCIe x16 bandwidth per direction: NCCL's 12 GB/s for Gen3,
 * SimAI's 25.6 / 51.2 GB/s for Gen4 / Gen5, doubling after that. */
double comm_pcie_Bps(int gen)
{
	if (gen <= 3)
		return 12.0 * GBPS;
	double b = 25.6 * GBPS;
	for (int i = 4; i < gen && i < 8; i++)
		b *= 2;
	return b;
}

/* A link narrower than x16 (pool key pcie, "4.0x8"; docs/pcie.md). The
 * raw rate is per lane: 8 / 16 / 32 GT/s a lane at Gen3 / 4 / 5, 128b/130b
 * coded, so a Gen4 x8 link carries 16 GT/s x 8 x 128/130 / 8 bits = 15.75
 * GB/s a direction, the raw rate of a Gen3 x16 link, and half of Gen4
 * x16's 31.5. What a transfer achieves scales the same way: NCCL's
 * topology gives a PCI link width x per-lane rate / 80 GB/s (NVIDIA/nccl
 * src/graph/topo.cc, ncclTopoAddPci; kvDictPciGen: 60, 120, 240 x 100
 * Mb/s a lane at Gen3, 4, 5), 0.75 of raw at every width, 12 GB/s at
 * Gen4 x8 as at Gen3 x16; and the one desktop with a stated x8 link
 * shows it in its own staged copy (mli/transformers-benchmarks
 * transformers.ipynb @cd48272, 2 x RTX 3090 Ti on PCIe 4.0 x8,
 * p2pBandwidthLatencyTest with P2P disabled: 6.23 GB/s one way, a
 * device-to-host and a host-to-device copy one after the other, 1 /
 * (1/12.5 + 1/12.5) for 12.5 GB/s a link, 0.79 of raw). So the x16
 * figure of the generation is scaled by lanes / 16: Gen4 x8 12.8 GB/s,
 * between NCCL's 12.0 and the desktop's 12.5. */
double comm_pcie_link_Bps(int gen, int lanes)
{
	if (lanes <= 0 || lanes > 16)
		lanes = 16;
	return comm_pcie_Bps(gen) * lanes / 16.0;
}

/* ---- commodity links: TCP sockets, no P2P (docs/links.md) -------------
 *
 * NCCL over TCP sockets (COMM_TRANSPORT_TCP: NCCL's NET/Socket transport on
 * Ethernet without RDMA). The host CPU copies every byte through the
 * kernel's socket stack, with NCCL_SOCKET_NTHREADS helper threads of
 * NCCL_NSOCKS_PERTHREAD sockets each: by default none, the proxy thread
 * driving one socket a connection; 2 x 8 when the NIC is AWS's ENA (PCI
 * vendor 0x1d0f), 4 x 1 on GCP's gVNIC (src/transport/net_socket.cc,
 * ncclNetSocketGetNsockNthread: NVIDIA/nccl v2.7.8-1 033d7995 and master
 * 5067397c). The efficiency below is not a function of that count: no
 * measurement of one NCCL version on one system with one socket and with
 * many was found, and the modern points say the count does not set it
 * (8 sockets forced on Azure's 25 Gb/s got 0.54 of line rate, nccl-tests
 * issue #83; more threads on AWS's 100 Gb/s ENA gained nothing, issue
 * #398); docs/blind-round12-ppshare.md. Two effects, from nccl-tests runs
 * posted in NVIDIA/nccl issues:
 *  - Line-rate efficiency TCP_EFF = 0.8 (range 0.5-0.94) where IB gets
 *    0.96: over a 32 Gb/s network (4 GB/s) all-reduce reached 2.06 GB/s
 *    busbw with one ring and 3.75 GB/s with eight (NCCL 2.3.7, issue
 *    #209), i.e. 0.52-0.94 of line rate; NCCL since 2.4.7 splits each
 *    transfer over several sockets and threads (pull #223) to get there.
 *  - A node ceiling TCP_NODE_BPS = 5 GB/s (range 4-6) whatever the NICs:
 *    100 Gb/s TCP runs at 4-6 GB/s busbw on 4 x 8 V100 (issue #450) and
 *    4.7 GB/s on AWS p3dn (100 Gb/s ENA, sockets; issue #398): the socket
 *    threads' copies, not the wire, bound it.
 *  - TCP_HOP_S = 8 us per network hop on top of NCCL's IB table (counted
 *    twice for Simple, as a net plugin's latency): a 2-node broadcast of
 *    8 bytes over sockets with NCCL_PROTO=Simple took 38-46 us (nccl-tests
 *    issue #82, V100 PCIe, NCCL 2.9.6), where IB's table gives 26.4 us
 *    (4 host + 8.4 base + 14 per hop); (38 - 26.4) / 2 = 5.8 and
 *    (46 - 26.4) / 2 = 9.8 us.
 * Protocols are not restricted (unlike EFA): NCCL's tuner enables LL and
 * Simple everywhere and LL128 by GPU generation and by the GPU's paths in
 * the node and to its NIC, never by net transport (tuning.cc,
 * protoEnable { 1, 2, 1 }).
 *
 * No P2P (gpu_spec.no_p2p, catalog "p2p": false): GPUs that cannot read or
 * write each other's memory over PCIe (GeForce RTX 40-series, whose driver
 * refuses peer access; the T4, A10G and L4 of AWS g4dn/g5/g6 instances)
 * pass NCCL's intra-node traffic through pinned host memory (the SHM
 * transport): every byte crosses PCIe twice and the CPU's root complex in
 * both directions at once. SHM_EFF = 0.325 of the PCIe x16 figure (range
 * 0.26-0.75): a Gen3 x16 SHM all-reduce between 2 GPUs ran at 3.9 GB/s
 * busbw (all-gather and reduce-scatter 3.17) where the one-way broadcast
 * ran at 10.3 and reduce at 9.6 (NVIDIA/nccl issue #384, NCCL 2.4.8,
 * NCCL_MAX_NCHANNELS=1; NCCL's answer there: on 2 GPUs broadcast and
 * reduce flow one way, the others both ways, and "some CPUs do not handle
 * bidirectional traffic well", seen on NVIDIA's platforms too); 3.9 / 12
 * = 0.325. A ring all-reduce, all-gather or reduce-scatter sends and
 * receives on every GPU at once: the two-way case. NCCL's developers
 * quote "9 or 6" GB/s through SHM on Gen3 (issue #406: the upper end of
 * the range, one-way). Gen3 gives 0.325 x 12 = 3.9 GB/s, Gen4 8.32.
 * Simplified: one figure for every collective and for the pipeline's
 * one-way sends too, whatever the CPU (its vendor and generation are not
 * in the cluster description). Until the tcp round (issue 12) this was
 * 0.5 from the issue #406 quote; the change was prompted by the AMPHOM,
 * BLAMP and BLSLB rows (docs/comm-accuracy.md, "Collectives without P2P
 * or RDMA"), and BLSLA's rows (4 x RTX 2080 Ti) argue for the old value. */
/* One NIC for a PCIe Gen3 NVLink node (DGX-1-class V100 SXM2 servers
 * with a single EDR HCA): ONE_NIC_EFF = 0.70 of line rate in training,
 * range 0.6-0.8, where IB elsewhere gets NIC_EFF 0.96.
 *  - Topology (DLPerf's own V100 cluster, `nvidia-smi topo -m` in
 *    Oneflow-Inc/DLPerf NVIDIADeepLearningExamples/README.md): the one
 *    mlx5_0 is PIX to GPU2/GPU3 only, NODE to GPU0/1 and SYS to GPU4-7.
 *    Every byte that leaves or enters the node goes through that one
 *    PCIe Gen3 x16 switch port (12 GB/s per direction, NCCL's figure,
 *    for a 12.5 GB/s EDR link), so the NIC's own PCIe path, not the wire,
 *    sets the ceiling; and NCCL's search fits one 12 GB/s channel
 *    through it (no duplication under 25 GB/s per channel: search.cc
 *    DupChannels), so one SM and one proxy thread carry all inter-node
 *    traffic.
 *  - nccl-tests on such a node reaches 12.2 GB/s busbw (NVIDIA/nccl-tests
 *    issue #29, one 100 Gb/s HCA): an idle node gets line rate. Training
 *    does not: BLOF-06 (OneFlow, TP 16 over two such nodes) needs 0.70 to
 *    match its step; the value is taken from it and checked, not fitted,
 *    on DLPerf's ten multi-node Megatron-LM rows on the same cluster (DP,
 *    TP, PP across nodes; docs/links.md): their mean |error| goes from
 *    12.9% to 6.8%. Which of the shared PCIe port and the single channel
 *    costs the 30% is not separated by these rows: a simplification. Not
 *    applied to TCP sockets (their own TCP_EFF and node ceiling) nor to
 *    nodes with 2 or more NICs, where channels spread over the NICs. */
#define ONE_NIC_EFF 0.70
#define TCP_EFF 0.8
#define TCP_NODE_BPS (5.0 * GBPS)
#define TCP_HOP_S 8e-6
#define SHM_EFF 0.325
/* The host's ceiling on NCCL's SHM path, bytes/s per GPU and direction,
 * whatever the PCIe generation: SHM_HOST_BPS = 4.43 GB/s (range 3.9-5.2).
 * NCCL's SHM transport (src/transport/shm.cc) stages every step in pinned
 * host memory: the sending GPU's threads store into it across PCIe and the
 * receiving GPU's threads load from it (NCCL_SHM_USE_CUDA_MEMCPY, a copy
 * engine per side, is off by default). Stores are posted writes, but loads
 * are round trips to host memory through the root complex, so a channel
 * moves what its outstanding loads cover per round trip, not what the
 * link carries: the figure does not grow with the PCIe generation.
 * Measured all-reduce with P2P disabled, busbw at 1 GiB: a DGX A100 (PCIe
 * Gen4, AMD EPYC), 2 GPUs on one socket 3.86 GB/s and 4 GPUs 5.20 GB/s
 * (comm.csv V166, V167; their geometric mean 4.48 leaves the 2-GPU row at
 * +16%; 4.43 keeps both within the accuracy test's 15%); 2 RTX 2080 Ti on
 * Gen3 4.00 GB/s (holdout_comm.csv HC-SHM-01), where Gen3's own figure,
 * 0.325 x 12 = 3.9, is the lower and binds. So Gen3 nodes keep SHM_EFF's
 * 3.9 GB/s and Gen4 and later get 4.43 where 0.325 of the link gave 8.32
 * (Gen4) and 16.6 (Gen5). Not modelled: two sockets (the same DGX A100
 * across its sockets: 1.44 GB/s, GPUs 0,1,6,7), containers and VMs that
 * slow host memory further. The ceiling
 * re-read against consumer hosts (docs/pcie.md section 2): the desktops'
 * own host-staged copies with P2P disabled, both directions at once
 * (p2pBandwidthLatencyTest, bidirectional, halved), move 4.6 GB/s a
 * direction on 2 x RTX 3090 Ti on PCIe 4.0 x8 (mli/transformers-
 * benchmarks transformers.ipynb @cd48272: 9.2) and 4.3 on 2 x RTX 4090
 * (tinygrad/open-gpu-kernel-modules issue #44: 8.66), inside 3.9-5.2;
 * a server's staged copies run far faster (20-22 GB/s one way on a Gen4
 * x16 box, NVIDIA/nccl issue #814), so it is NCCL's loads, not the DRAM,
 * that bind there. The one host with both figures, 2 x RTX 2080 Ti on
 * Gen3 x16 (Anthony-Hoo/Anthony-Hoo.github.io posts/AutoDL_Multi-GPU_
 * Interconnection_Test.md @37e805e8), staged 6.1 GB/s both ways (3.05 a
 * direction) and NCCL's SHM all-reduce 4.00 (HC-SHM-01): NCCL 1.31x the
 * staged copy, which puts the two desktops at 5.7-6.0 by that one ratio.
 * No non-blind nccl-tests table of a desktop with P2P off was found in
 * full. So a desktop's ceiling is 4.3-6.0 GB/s by these sources, a
 * server's 3.9-5.2 measured; BLMLI-04/06's ~8 GB/s a direction (blind,
 * fp32 gradients) is above both: not adopted; 4.43 stays, the measured
 * NCCL figure (range 3.9-6.0 with the desktop estimate). With a narrow link
 * (pool key pcie) SHM_EFF of the link binds first: Gen4 x8 0.325 x 12.8
 * = 4.16 GB/s, the Gen3 x16 figure's rate class (3.9-4.0 measured). */
#define SHM_HOST_BPS (4.43 * GBPS)

/* GPU-to-GPU bandwidth through host memory for a PCIe link of pcie_Bps
 * (per direction; x16 unless the pool's key pcie says fewer lanes):
 * SHM_EFF of the link, at most the host's SHM_HOST_BPS. */
static double shm_Bps(double pcie_Bps)
{
	return HP_MIN(pcie_Bps * SHM_EFF, SHM_HOST_BPS);
}

/* ---- Omni-Path (COMM_TRANSPORT_OPA; docs/fabric.md) --------------------
 *
 * Intel (now Cornelis) Omni-Path 100 Gb/s host fabric adapters (hfi1).
 * NCCL has no transport of its own for them: it finds the hfi1 devices
 * through rdma-core's verbs and runs its IB transport over them ("NET/IB :
 * Using [0]hfi1_0:1/IB ..." in the logs of the rows below), and without
 * GPUDirect RDMA (no "/GDRDMA" on any NET/IB channel): NCCL's proxy stages
 * every network step in host memory, so a node moves what its channels'
 * proxies copy, not what its adapters carry. On Jean Zay's V100 nodes (4 x
 * V100-SXM2-32GB, 4 x OPA 100 Gb/s) NCCL 2.7.8 built 2 channels over 2 of
 * the 4 adapters, NCCL 2.10.3 built 4 channels over 2.
 *  - A node ceiling OPA_NODE_BPS = 7.0 GB/s (range 5.1-10.6), shared by the
 *    node's groups as TCP_NODE_BPS is (net_node_Bps): a 16-node x 4 V100
 *    all-reduce of 4 GB ran at 6.86 GB/s busbw in its last trial, 7.20 in
 *    the one before, and its README reports 44-57 Gb/s (5.5-7.1 GB/s) over
 *    longer runs (bigscience-workshop/bigscience experiments/bandwidth,
 *    n16_32gb_all_reduce_bench.txt @eb2d42c1, NCCL 2.7.8; comm.csv V168):
 *    about 3.4 GB/s per channel, 0.14 of the 50 GB/s the adapters carry.
 *    4 nodes with NCCL 2.10.3 and 4 channels ran at 10.6 GB/s
 *    (all_reduce_bench-32gb-4n.txt @66728d85; holdout_comm.csv HC-OPA-01),
 *    and Jean Zay's 8 x A100 nodes, NCCL 2.10.3, 2 channels on one
 *    adapter, at 5.07 GB/s (all_reduce_bench-a100-n4.txt @358e3c8f;
 *    HC-OPA-02): both declared misses (-34%, +38%) that bracket the
 *    ceiling (the three rows' geometric mean is 7.2): NCCL's channel count
 *    on these nodes, which hetplan does not know, moves a node's rate by
 *    half either way; a channel moves 2.5-3.4 GB/s.
 *  - Line rate: NIC_EFF as for IB; the ceiling binds for any node with a
 *    100 Gb/s adapter.
 *  - Per hop: nothing on top of IB's table (no small-message measurement
 *    over Omni-Path was found).
 * Simplified: one ceiling per node whatever the NCCL release (2.7 opens
 * half the channels 2.10 does) and whether a plugin (PSM2/OFI) is used;
 * a node's groups share it, as they share the proxy threads and the
 * host-memory staging. */
#define OPA_NODE_BPS (7.0 * GBPS)

/* Google Cloud's fabrics (see "Transport profiles" at the top). */
#define GCP_RDMA_NIC_EFF 0.817
#define TCPXO_NIC_EFF 0.944
#define TCPXO_HOP_S 60e-6
#define TCPX_NIC_EFF 0.67
#define TCPX_HOP_S 200e-6

/* A network transport's profile: share of line rate (0: the fabric's own,
 * NIC_EFF or ONE_NIC_EFF), latency per network hop on top of NCCL's IB
 * table, Simple protocol only, its rank in speed for a group over two
 * transports (comm_fabric_min: the higher rank, the slower), and a
 * ceiling per node whatever the NICs (0: none), bytes/s. */
struct net_profile {
	double eff, hop_s;
	int simple_only, slow_rank;
	double node_Bps;
};

static const struct net_profile net_profiles[COMM_TRANSPORT_COUNT] = {
	[COMM_TRANSPORT_IB] = { 0, 0, 0, 0, 0 },
	[COMM_TRANSPORT_GCP_RDMA] = { GCP_RDMA_NIC_EFF, 0, 0, 1, 0 },
	[COMM_TRANSPORT_TCPXO] = { TCPXO_NIC_EFF, TCPXO_HOP_S, 0, 2, 0 },
	[COMM_TRANSPORT_EFA] = { 0, 0, 1, 3, 0 },       /* EFA_HOP_S, set below */
	[COMM_TRANSPORT_TCPX] = { TCPX_NIC_EFF, TCPX_HOP_S, 0, 4, 0 },
	[COMM_TRANSPORT_OPA] = { 0, 0, 0, 5, OPA_NODE_BPS },
	[COMM_TRANSPORT_TCP] = { TCP_EFF, 0, 0, 6, TCP_NODE_BPS }, /* TCP_HOP_S, below */
};

/* The fabric's share of line rate (0, unset: NIC_EFF). */
static double fabric_nic_eff(const struct comm_fabric *f)
{
	return f->nic_eff > 0 ? f->nic_eff : NIC_EFF;
}

/* Effective bandwidth of a node's NICs together, bytes/s, for the fabric's
 * transport: its profile's share of line rate (IB and EFA: NIC_EFF; TCP
 * sockets: TCP_EFF), at most the profile's ceiling per node (TCP sockets
 * TCP_NODE_BPS, Omni-Path OPA_NODE_BPS), of which a group holding a share
 * of the node's NICs gets the same share (the socket threads' or the
 * proxies' copies are the node's, shared by every flow). */
static double net_node_Bps(const struct comm_fabric *f)
{
	double line = f->nics * f->nic_Bps;
	const struct net_profile *np = &net_profiles[(unsigned)f->transport < COMM_TRANSPORT_COUNT
						     ? f->transport : COMM_TRANSPORT_IB];
	double b = line * (np->eff > 0 ? np->eff : fabric_nic_eff(f));
	if (np->node_Bps > 0)
		b = HP_MIN(b, np->node_Bps * (f->node_share > 0 ? f->node_share : 1));
	return b;
}

/* xGMI full mesh. An AMD Instinct OAM node of 8 GPUs (MI300X and MI325X,
 * CDNA 3; MI350X and MI355X, CDNA 4) has no switch: each GPU has 7
 * Infinity Fabric (xGMI) links, one to each of its peers ("Each AMD
 * Instinct MI300X system GPU is connected to its seven peer GPUs via xGMI
 * links, forming a fully connected mesh", ROCm/rocm-blogs
 * blogs/software-tools-optimization/mi300x-rccl-xgmi @0e81c2ca; MI300X
 * datasheet: 7 x 128 GB/s bidirectional, 64 GB/s a direction a link;
 * MI355X: 7 x 153.6 GB/s, 76.8 a direction). The catalog's per-GPU
 * scale-up figure (link_Bps, 448 GB/s a direction on a MI300X) is all
 * seven links; a group with g of its ranks in the node reaches only the
 * g - 1 links among them, whichever GPUs they are (every pair is joined
 * alike): a pair 1/7 (one 64 GB/s link), a quad 3/7, all eight 7/7. RCCL
 * sees the same: on a 4-GPU MI300X system its topology search prints
 * "maxBw 48.0 totalBw 144.0", 3 links of 48 GB/s (ROCm/rccl issue 1210),
 * and its README says a collective on fewer than 8 MI300X GPUs gets "only
 * a fraction of the potential bandwidth" (ROCm/rccl README.md @0cbce2a7).
 * Simplified: RCCL opens more channels on 2 and 4 GPUs (32 and 24, same
 * README) than hetplan's count from the scaled figure; the node's other
 * groups use their own links, so nothing is shared. Only parts whose
 * scale-up domain is the 8-GPU node: the MI250X and MI250 (domain 4, two
 * GCDs a package) and the PCIe cards keep their figures. */
#define XGMI_MESH_GPUS 8
/* What an xGMI link of a CDNA 3 mesh (MI300X, MI325X) carries: RCCL
 * counts 48 GB/s a gfx94x link ("After protocol and error correction
 * overheads, the max theoretical per-direction bandwidth for gfx94 devices
 * is 48GB/s", ROCm/rccl issue 1210; GFX94X_XGMI_WIDTH 48.0 in rccl
 * src/graph/topo.h @0cbce2a7), 0.75 of the 64 GB/s line; TransferBench
 * measures 45.1-47.2 GB/s a link with all seven busy (rocm-blogs
 * mi300x-rccl-xgmi @0e81c2ca). Range 0.70-0.75. CDNA 4 keeps 0.8: no
 * MI355X per-link measurement was found. */
#define XGMI_CDNA3_EFF (48.0 / 64.0)

/* 3 when gpu is a CDNA 3 part, 4 a CDNA 4 part, 0 otherwise. hetplan's
 * generation "cdna" holds CDNA 1-3, so CDNA 3 is told by the catalog's
 * arch ("CDNA3"; "CDNA 3" in a user's file): an MI250X GCD 8 to a node
 * (CDNA 2; LUMI, Frontier) is not joined as a full mesh. */
static int cdna_mesh_gen(const struct gpu_spec *gpu)
{
	if (gpu->gen == GEN_CDNA4)
		return 4;
	if (gpu->gen != GEN_CDNA)
		return 0;
	for (const char *a = gpu->arch; *a; a++)
		if ((a[0] == 'C' || a[0] == 'c') && (a[1] == 'D' || a[1] == 'd') &&
		    (a[2] == 'N' || a[2] == 'n') && (a[3] == 'A' || a[3] == 'a')) {
			const char *v = a + 4;
			if (*v == ' ')
				v++;
			return *v == '3' ? 3 : 0;
		}
	return 0;
}

void comm_fabric_init(struct comm_fabric *f, const struct gpu_spec *gpu,
		      enum hp_intra intra, int nics, double nic_gbps)
{
	memset(f, 0, sizeof *f);
	f->gen = gpu->gen;
	/* the host's link as the pool gives it (pool key pcie: generation
	 * and lanes on the pool's copy of the GPU), else the catalog's x16 */
	f->pcie_Bps = comm_pcie_link_Bps(gpu->pcie_gen, gpu->pcie_lanes);
	f->intra = intra;
	if (intra != INTRA_PCIE && gpu->link_Bps > 0) {
		/* NCCL counts 20.6 GB/s per NVLink4 link (line 25), 40.1 per
		 * NVLink5 link (line 50) and 20 per older link (line 25). */
		double eff = gpu->gen == GEN_HOPPER ? 20.6 / 25.0
			   : gpu->gen == GEN_BLACKWELL ? 40.1 / 50.0
			   : cdna_mesh_gen(gpu) == 3 && gpu->domain == XGMI_MESH_GPUS
			   ? XGMI_CDNA3_EFF : 0.8;
		f->intra_Bps = gpu->link_Bps * eff;
	} else {
		f->intra = INTRA_PCIE;
		f->intra_Bps = gpu->no_p2p ? shm_Bps(f->pcie_Bps) : f->pcie_Bps;
	}
	f->intra_topo_Bps = f->intra_Bps;
	f->mesh_links = f->intra != INTRA_PCIE && gpu->domain == XGMI_MESH_GPUS &&
			cdna_mesh_gen(gpu) ? XGMI_MESH_GPUS - 1 : 0;
	f->nics = nics > 0 ? nics : 0;
	f->nic_Bps = nic_gbps > 0 ? nic_gbps * 1e9 / 8.0 : 0;
	f->nic_eff = f->nics == 1 && f->intra != INTRA_PCIE && gpu->pcie_gen <= 3
		     ? ONE_NIC_EFF : NIC_EFF;
	f->nvls = f->intra == INTRA_NVSWITCH &&
		  (gpu->gen == GEN_HOPPER || gpu->gen == GEN_BLACKWELL);
	comm_fabric_set_transport(f, COMM_TRANSPORT_IB);
}

void comm_fabric_set_transport(struct comm_fabric *f, enum comm_transport t)
{
	f->transport = (unsigned)t < COMM_TRANSPORT_COUNT ? t : COMM_TRANSPORT_IB;
	f->net_lat_s = f->transport == COMM_TRANSPORT_EFA ? EFA_HOP_S
		     : f->transport == COMM_TRANSPORT_TCP ? TCP_HOP_S
		     : net_profiles[f->transport].hop_s;
	f->net_simple_only = net_profiles[f->transport].simple_only;
}

/* The measured rate replaces intra_Bps only: the scale-up figure every
 * intra-node hop of a collective and a pipeline hand-off is priced at
 * (b_up below). It is what a node's PCIe tree, root complex or host memory
 * sustain under load, which the catalog's per-slot figure cannot know: on
 * Sailor's MIT nodes (eth-easl/sailor, sailor/providers/
 * intra_node_bandwidths.json, NCCL send/receive of gpus/2 concurrent
 * pairs, profiling/networking/test_sendrecv.py) four pairs of RTX 3090
 * moved 5.33 GB/s in all, 1.33 a pair, where a Gen4 slot gives 25.6. */
void comm_fabric_set_intra(struct comm_fabric *f, double gbyte_s)
{
	if (gbyte_s > 0)
		f->intra_Bps = gbyte_s * 1e9;
}

void comm_fabric_min(struct comm_fabric *out, const struct comm_fabric *a,
		     const struct comm_fabric *b)
{
	/* zeroed first: a field added to the struct and not set below is 0
	 * (its documented default), never stack garbage */
	struct comm_fabric r;
	memset(&r, 0, sizeof r);
	/* NCCL picks its tables from the lowest compute capability. */
	int aa = arch_of(a->gen), ab = arch_of(b->gen);
	r.gen = aa < ab ? a->gen : ab < aa ? b->gen
	      : (a->gen < b->gen ? a->gen : b->gen);
	r.intra = a->intra > b->intra ? a->intra : b->intra; /* PCIe worst */
	r.intra_Bps = HP_MIN(a->intra_Bps, b->intra_Bps);
	r.intra_topo_Bps = HP_MIN(a->intra_topo_Bps, b->intra_topo_Bps);
	r.pcie_Bps = HP_MIN(a->pcie_Bps, b->pcie_Bps);
	/* Keep the fewer rails and the smaller node total. */
	double ta = a->nics * a->nic_Bps, tb = b->nics * b->nic_Bps;
	r.nics = HP_MIN(a->nics, b->nics);
	r.nic_Bps = r.nics > 0 ? HP_MIN(ta, tb) / r.nics : 0;
	r.nvls = a->nvls && b->nvls;
	r.mesh_links = HP_MAX(a->mesh_links, b->mesh_links);   /* a mesh gates */
	r.net_lat_s = HP_MAX(a->net_lat_s, b->net_lat_s);
	r.net_simple_only = a->net_simple_only || b->net_simple_only;
	r.transport = net_profiles[a->transport].slow_rank >= net_profiles[b->transport].slow_rank
		      ? a->transport : b->transport;
	r.nic_eff = HP_MIN(fabric_nic_eff(a), fabric_nic_eff(b));
	*out = r;
}

double comm_busbw_factor(enum comm_coll c, int n)
{
	if (n < 1)
		return 0;
	switch (c) {
	case COMM_ALLREDUCE: return 2.0 * (n - 1) / n;
	case COMM_ALLGATHER:
	case COMM_REDUCESCATTER:
	case COMM_ALLTOALL: return (double)(n - 1) / n;
	default: return 1.0;
	}
}

/* ---- the model --------------------------------------------------------- */

struct ctx {
	const struct comm_group *g;
	enum comm_coll c;
	double S;               /* bytes */
	int n, ppn, N;          /* ranks, ranks per node, nodes */
	int arch, idx2;         /* table indexes */
	int hw;                 /* HW_NVLINK or HW_PCI for intra hops */
	double b_up;            /* per-GPU scale-up, bytes/s */
	double b_net;           /* node NIC total (effective), bytes/s */
	double r;               /* spine slowdown >= 1 (spine_factor) */
	double wan_B, wan_lat;  /* 0 when not cross-site */
	double net_lat_us;      /* extra per network hop */
	int efa;                /* EFA/SRD terms apply (multi-node, EFA) */
	int ll128_ok;
	int nch;                /* channels for ring/tree at full size */
};

static int ilog2(int v)
{
	int l = 0;
	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

/* floor and ceil where the answer comes from the integer part (0 < v <
 * 2^52: every such double's integer part fits an int64_t exactly, and
 * the conversion truncates toward zero, which for a positive v is its
 * floor): the values libm returns, without its call; elsewhere (zero,
 * negative, huge, NaN) libm's. chan_frac runs for every algorithm and
 * protocol of each collective not in the estimate memo (issue 13, eighth
 * round: its floor was 8% of comm_time). */
#define COMM_EXACT_INT 4503599627370496.0   /* 2^52 */

static double comm_floor(double v)
{
	if (v > 0 && v < COMM_EXACT_INT)
		return (double)(int64_t)v;
	return floor(v);
}

static double comm_ceil(double v)
{
	if (v > 0 && v < COMM_EXACT_INT) {
		double t = (double)(int64_t)v;
		return t < v ? t + 1 : t;
	}
	return ceil(v);
}

/* Hosts under one leaf switch of a rail-optimised fat tree: LEAF_HOSTS =
 * 32 (range 16-64), NVIDIA's DGX SuperPOD scalable unit: 32 DGX H100 or
 * B200 systems an SU, one leaf switch per rail (the B200 reference
 * architecture's compute fabric: 2 SUs, 64 nodes, 16 leaves; 4 SUs, 128
 * nodes, 32 leaves), so each rail's leaf reaches the SU's 32 hosts and a
 * rail-aligned group of up to 32 hosts never crosses the spine. */
#define LEAF_HOSTS 32

/* The slowdown of spine-crossing traffic for a group over `hosts` hosts
 * under a spine oversubscribed r:1: 1 within one leaf; else, over L =
 * ceil(hosts / LEAF_HOSTS) leaves with the hosts spread evenly, the share
 * (L-1)/L of uniformly spread traffic leaves its leaf, whose uplinks carry
 * 1/r of what its hosts inject: max(1, r (L-1)/L). 2:1 over 2 leaves
 * (half the traffic crosses, on half the capacity) loses nothing; 4:1
 * over 2 leaves, or 2:1 over many, about halves. */
static double spine_factor(double r, double hosts)
{
	if (!(r > 1) || !(hosts > LEAF_HOSTS))
		return 1;
	double leaves = comm_ceil(hosts / LEAF_HOSTS);
	double f = r * (leaves - 1) / leaves;
	return f > 1 ? f : 1;
}

/* Channels NCCL keeps for a message: it drops channels while each would get
 * fewer than nthreads * per-thread-threshold bytes. */
static double chan_frac(const struct ctx *x, int proto, int ring)
{
	double thr, nt;
	switch (proto) {
	case P_LL: thr = 8.0 * (ring ? x->n : 1); nt = 512; break;
	case P_LL128: thr = 8.0; nt = 640; break;
	default: thr = 64.0; nt = 512; break;
	}
	double nc = comm_floor(x->S / (thr * nt));
	if (nc < 1)
		nc = 1;
	if (nc > x->nch)
		nc = x->nch;
	return nc / x->nch;
}

/* Inter-node hop latency, µs, NCCL-style (net plugin latency counted twice
 * for Simple). */
static double inter_lat(const struct ctx *x, int a, int p)
{
	double l = hw_lat[HW_NET][a][p];
	if (x->ppn == 1 && a == A_RING)
		l = hw_lat[HW_NET][A_TREE][p];
	return l + x->net_lat_us * (p == P_SIMPLE ? 2 : 1);
}

/* EFA: divisor of tree network bandwidth for its depth (see top). */
static double efa_depth(const struct ctx *x)
{
	int levels = ilog2(x->N);
	return x->efa && levels > 1 ? 1 + EFA_TREE_DEPTH * (levels - 1) : 1;
}

/* Share of the bytes on the wire that are payload, by protocol row: LL
 * sends 8-byte lines of 4 data and 4 flag bytes, LL128 128-byte lines
 * of 120 data and an 8-byte flag (NCCL's prims_ll.h / prims_ll128.h:
 * NCCL_LL_FLAG and NCCL_LL128_DATAELEMS = 15 of 16 elements), Simple
 * payload only. */
static double proto_payload(int p)
{
	return p == P_LL ? 0.5 : p == P_LL128 ? 120.0 / 128.0 : 1.0;
}

/* One candidate: bus bandwidth (bytes/s) and latency (s) -> time, for
 * protocol row p. A WAN caps the bus bandwidth at what its wire carries
 * of payload under p: a link that caps every protocol alike would let
 * LL's lower latency win at any size, where LL moves half the payload
 * through the same link. */
static double cand_time(const struct ctx *x, int p, double lat_s, double busbw,
			double factor)
{
	if (busbw <= 0)
		return INFINITY;
	if (x->wan_B > 0 && busbw > x->wan_B * proto_payload(p))
		busbw = x->wan_B * proto_payload(p);
	return HOST_LAT_S + lat_s + x->S * factor / busbw;
}

/* Bus bandwidth of a ring with protocol row p, bytes/s, channels cut for
 * the message as NCCL cuts them. */
static double ring_bus(const struct ctx *x, int p)
{
	int N = x->N;
	double bus = N > 1 ? HP_MIN(x->b_up, x->b_net) : x->b_up;
	if (x->ppn == 1 && N > 1)
		bus = x->b_net;
	if (p == P_LL)
		bus = HP_MIN((N == 1 ? ll_max_1node[x->arch]
				    : ll_max_multi[N > 2]) * GBPS, bus * 0.5);
	else if (p == P_LL128)
		bus = HP_MIN(bus * LL128_EFF,
			     x->nch * perch_ring_ll128[x->arch][x->idx2] * GBPS);
	return bus * chan_frac(x, p, 1);
}

/* Pipeline fill of a ring broadcast's chain, µs (see BCAST_STEP_BYTES):
 * every network hop, and with Simple every NVLink/PCIe hop too, holds a
 * step before it forwards it (see the simplification inside). */
static double bcast_fill_us(const struct ctx *x, int p, double bus)
{
	if (bus <= 0 || x->n < 2)
		return 0;
	/* What the link holds in flight at once: a step per channel, at most
	 * the message, at the whole link's rate (bus / frac). Simplified: a
	 * small message that NCCL cuts to k = frac x nch channels is charged
	 * as if spread over all nch; charging each active channel its
	 * S / k at one channel's share (S / frac in place of S) would make
	 * the time fall where NCCL adds channels as the size grows
	 * (test_comm's conventions_and_edges), which measured sweeps do not
	 * show. Only messages below nch steps differ. */
	double frac = chan_frac(x, p, 1);
	double held = HP_MIN(x->S, x->nch * BCAST_STEP_BYTES(p));
	double fill = (x->N - 1) * held / (bus / frac);
	if (p == P_SIMPLE)
		fill += (x->n - x->N) * held / x->b_up;
	return fill / US;
}

/* NCCL's own cost of a ring broadcast with protocol row p, seconds, by
 * which its tuner picks the protocol (tuning.cc, ncclTopoTuneModel): the
 * base latency plus, where every channel follows one ring order
 * (sameChannels), ONE hop whatever the rank count; otherwise nRanks hops of
 * the network figure (of one node's link inside a node), Simple at the
 * tree's per-hop figure ("Add some chunk latency, waiting for proper chunk
 * modeling"). sameChannels is taken to hold inside a node and over nodes
 * of one NIC, and not over nodes of several NICs, whose channels enter
 * the node through different NICs and so different GPUs: NCCL's search
 * (graph/search.cc, ncclTopoCompute and ncclTopoSearchRecNet) replays
 * the first channel's order for each further NIC from the same first
 * GPU, which reaches only its own NIC within the PIX path type it tries
 * first, and drops sameChannels before it widens the path types
 * (a 4-NIC ring graph printing "sameChannels 0", NVIDIA/nccl issue #601;
 * the "sameChannels 0" line of issue #1519 is an NVLS graph, which never
 * tries one order; docs/blind-round24-a100.md). A 24-byte broadcast over
 * 1,024 ranks priced 6.6 + 1024 x 2.7 = 2771.4 us, ring LL (issue
 * #1304). Host latency left out: the same for every protocol. */
static double bcast_tuner_s(const struct ctx *x, int p)
{
	double bus = ring_bus(x, p);
	if (bus <= 0)
		return INFINITY;
	int hw = x->N > 1 ? HW_NET : x->hw;
	double hop = hw_lat[hw][A_RING][p];
	if (x->N > 1 && x->g->fab.nics > 1)
		hop = x->n * hw_lat[hw][p == P_SIMPLE ? A_TREE : A_RING][p];
	return (base_lat[A_RING][p] + hop) * US + x->S / bus;
}

static double ring_time(const struct ctx *x, int p)
{
	int n = x->n, N = x->N;
	double bus = ring_bus(x, p);

	double intra = hw_lat[x->hw][A_RING][p];
	double lat, factor;
	if (x->c == COMM_BROADCAST) {
		/* Pipelined chain: n - N NVLink/PCIe hops, N - 1 network hops;
		 * Simple uses the tree per-hop figure; plus the chain's fill. */
		int a = p == P_SIMPLE ? A_TREE : A_RING;
		lat = base_lat[A_RING][p] + (n - N) * hw_lat[x->hw][a][p] +
		      (N - 1) * inter_lat(x, a, p) + bcast_fill_us(x, p, bus);
		factor = 1.0;
		if (x->wan_lat > 0)
			lat += x->wan_lat / US;
	} else {
		int ar = x->c == COMM_ALLREDUCE;
		int nsteps = ar ? 2 * (n - 1) : n - 1;
		int ninter = N > 1 ? (ar ? 2 * (N - 1) : N - 1) : 0;
		if (N > 1) {
			double ovh = NET_OVERHEAD_US * (p == P_SIMPLE ? 3 : 1);
			if (intra < ovh)
				intra = ovh;
		}
		lat = base_lat[A_RING][p] + (nsteps - ninter) * intra +
		      ninter * inter_lat(x, A_RING, p);
		if (ar && x->efa) {
			/* Full pipeline: the send completion of one step
			 * overlaps the next, so the plugin latency counts once
			 * per hop, not twice; and the buffer-limited fill of
			 * both passes is a floor (see top). */
			double fill = 2 * HP_MIN(x->S, x->nch * EFA_BUFFSIZE) /
				      x->b_net / US;
			lat -= ninter * x->net_lat_us;
			if (fill > lat)
				lat = fill;
		} else if (ar && N > 1 && p == P_SIMPLE &&
			   x->S / ((double)x->nch * n) >= 64) {
			lat *= x->arch >= ARCH_AMPERE ? RING_PLATEAU
						      : RING_PLATEAU_OLD;
		}
		if (x->wan_lat > 0)
			lat += nsteps * x->wan_lat / US;
		factor = comm_busbw_factor(x->c, n);
	}
	return cand_time(x, p, lat * US, bus, factor);
}

static double tree_time(const struct ctx *x, int p)
{
	int N = x->N;
	double bus;
	if (N == 1) {
		bus = x->b_up;
	} else {
		double fan = N == 2 ? TREE_FAN2 : N == 3 ? 4.0 / 3.0 : 1.0;
		double net = x->b_net * fan / x->r / efa_depth(x);
		bus = x->ppn > 1 ? HP_MIN(x->b_up, net) : net;
	}
	bus = HP_MIN(bus * TREE_EFF, x->nch * perch_tree[x->arch][x->idx2] * GBPS);
	if (p == P_LL)
		bus = HP_MIN(bus / 3.8, (N == 1 ? ll_max_1node[x->arch]
					       : ll_max_multi[N > 2]) * GBPS);
	else if (p == P_LL128)
		bus = HP_MIN(bus * (N == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
			     x->nch * perch_tree_ll128[x->arch][x->idx2] * GBPS);
	bus *= chan_frac(x, p, 0);
	double lat = base_lat[A_TREE][p] +
		     2 * ((x->ppn - 1) * hw_lat[x->hw][A_TREE][p] +
			  ilog2(N) * inter_lat(x, A_TREE, p));
	if (bus > 0 && p != P_LL) {
		/* Pipeline fill of the chain (see TREE_STEP_BYTES): 2 x depth
		 * hops of one chunk at one active channel's rate. */
		double active = x->nch * chan_frac(x, p, 0);
		double chunk = TREE_STEP_BYTES(p);
		if (p == P_LL128) {
			/* NCCL's own cut of the LL128 tree chunk for depth
			 * (enqueue.cc, NCCL_ALGO_TREE && NCCL_PROTO_LL128). */
			double steps = 1 + ilog2(N) + 0.1 * x->ppn;
			while (x->S / (active * chunk) < steps * 64 / x->ppn && chunk > 131072)
				chunk /= 2;
			while (x->S / (active * chunk) < steps * 16 / x->ppn && chunk > 32768)
				chunk /= 2;
		}
		chunk = HP_MIN(x->S / active, chunk);
		double depth = (x->ppn - 1) + ilog2(N);
		lat += 2 * depth * chunk / (bus / active) / US;
	}
	if (x->wan_lat > 0)
		lat += 2 * x->wan_lat / US;
	/* NCCL: tree all-reduce algbw is half its bus figure; expressed as
	 * nccl-tests busbw that is bus * 2(n-1)/n / 2. */
	double busbw = bus * comm_busbw_factor(COMM_ALLREDUCE, x->n) * 0.5;
	return cand_time(x, p, lat * US, busbw, comm_busbw_factor(x->c, x->n));
}

static double nvls_chan_frac(const struct ctx *x)
{
	double nc = comm_ceil(x->S / NVLS_CHUNK);
	if (nc > NVLS_CH)
		nc = NVLS_CH;
	if (nc < 1)
		nc = 1;
	return nc / NVLS_CH;
}

/* NVLS heads: the GPUs that each reduce one slice of every loop (NCCL's
 * NVLS graph search: min(GPUs, NCCL_MAX_NVLS_ARITY)). */
static int nvls_heads(const struct ctx *x)
{
	return x->ppn < NVLS_MAX_HEADS ? x->ppn : NVLS_MAX_HEADS;
}

/* Bytes of one NVLS loop over all channels: channels x heads x chunk, with
 * NCCL's chunk for this size (enqueue.cc: 128 KiB, cut to 64 / 32 / 16 KiB
 * while the message is under 64 / 8 / 2 loops of the larger chunk). */
static double nvls_loop_bytes(const struct ctx *x)
{
	double ops = (double)NVLS_CH_OF(x->arch) * nvls_heads(x);
	double chunk = NVLS_CHUNK;
	if (x->S < 64 * ops * chunk)
		chunk = 65536;
	if (x->S < 8 * ops * chunk)
		chunk = 32768;
	if (x->S < 2 * ops * chunk)
		chunk = 16384;
	return ops * chunk;
}

static double nvls_time(const struct ctx *x)
{
	double peak = nvls_ratio[x->arch] * x->b_up;
	if (x->c != COMM_ALLREDUCE)
		peak *= 0.5 * (x->ppn - 1) / x->ppn;
	double bus = peak * nvls_chan_frac(x);
	double factor = comm_busbw_factor(x->c, x->n);
	double lat = hw_lat[HW_NVLINK][A_NVLS][P_SIMPLE] * US;
	/* Pipeline fill (see NVLS_FILL_LOOPS): loops of the message that
	 * pass the three stages before the steady state, at the peak rate.
	 * A message within one loop fills each stage only partly and its
	 * stages overlap on the partial chunks: the fill is scaled by S/loop
	 * there (a simplification; the 1 MiB H100/H200 rows V052/V058, one
	 * partial loop, show no fill beyond NCCL's latency). */
	double loop = nvls_loop_bytes(x);
	double part = HP_MIN(x->S, loop);
	double fill = NVLS_FILL_LOOPS * part * (part / loop) * factor / peak;
	if (x->c == COMM_ALLREDUCE && x->S <= x->g->engine_ar_bytes)
		fill = 0;      /* an engine's own kernel (comm_group) */
	return cand_time(x, P_SIMPLE, lat + fill, bus, factor);
}

static double nvls_tree_time(const struct ctx *x)
{
	int N = x->N;
	double intra = nvls_ratio[x->arch] * x->b_up;
	double inter = x->b_net * (N <= 2 ? 2.0 : 1.0) / x->r / efa_depth(x);
	double cap = NVLS_CH * perch_nvls_tree[x->arch][x->idx2] * GBPS;
	double peak = HP_MIN(HP_MIN(intra, inter), cap);
	double bus = peak * nvls_chan_frac(x);
	double lat = hw_lat[HW_NVLINK][A_NVLS_TREE][P_SIMPLE] * US +
		     2 * ilog2(N) * inter_lat(x, A_NVLS_TREE, P_SIMPLE) * US;
	/* The domain's part runs the same loop pipeline as NVLS in one
	 * domain (all_reduce.h, NVLS_TREE: scatter, reduce, gather per
	 * loop, with the network between), so it pays the same fill, with
	 * NCCL's NVLS-tree chunk (enqueue.cc: nvlsTreeMaxChunkSize, 64 KiB
	 * from 4 nodes, cut to 32 KiB under one loop). Not on EFA: its tree
	 * terms (EFA_TREE_DEPTH) were fitted on the measured p5 rows, which
	 * hold whatever fill there is; adding it there moved four of them
	 * out of their bound. */
	if (!x->efa) {
		double ops = (double)NVLS_CH_OF(x->arch) * nvls_heads(x);
		double chunk = N >= 4 ? 65536 : NVLS_CHUNK;
		if (x->S < 4 * ops * chunk && chunk > 65536)
			chunk = 65536;
		if (x->S < ops * chunk && chunk > 32768)
			chunk = 32768;
		double loop = ops * chunk, part = HP_MIN(x->S, loop);
		lat += NVLS_FILL_LOOPS * part * (part / loop) *
		       comm_busbw_factor(x->c, x->n) / peak;
	}
	if (x->wan_lat > 0)
		lat += 2 * x->wan_lat;
	return cand_time(x, P_SIMPLE, lat, bus, comm_busbw_factor(x->c, x->n));
}

static double pat_time(const struct ctx *x)
{
	double bus = x->b_net / x->r * PAT_EFF * chan_frac(x, P_SIMPLE, 0);
	double lat = base_lat[A_PAT][P_SIMPLE] +
		     ilog2(x->N) * inter_lat(x, A_PAT, P_SIMPLE) / 3.5 +
		     2.8 * x->n;
	if (x->wan_lat > 0)
		lat += ilog2(x->N) * x->wan_lat / US;
	return cand_time(x, P_SIMPLE, lat * US, bus, comm_busbw_factor(x->c, x->n));
}

/* Point-to-point: one send of S bytes. */
static double p2p_time(const struct ctx *x, int p)
{
	double bus, lat;
	if (x->N == 1) {
		bus = x->b_up;
		lat = base_lat[A_RING][p] + hw_lat[x->hw][A_RING][p];
	} else {
		bus = HP_MIN(x->b_up, x->b_net / x->ppn);
		lat = base_lat[A_RING][p] + inter_lat(x, A_TREE, p);
	}
	if (p == P_LL)
		bus *= 0.5;
	if (x->wan_lat > 0)
		lat += x->wan_lat / US;
	return cand_time(x, p, lat * US, bus, 1.0);
}

/* All-to-all: per GPU, S(g-1)/n bytes stay in the node, S(n-g)/n leave it
 * through the GPU's share of the node NICs. */
static double a2a_time(const struct ctx *x)
{
	int n = x->n, g = x->ppn;
	double S = x->S;
	double t_up = S * (g - 1) / n / x->b_up;
	double t_net = 0;
	if (x->N > 1) {
		double share = x->b_net / g / x->r;
		t_net = S * (n - g) / n / share;
		if (x->wan_B > 0) {
			/* Two equal halves: n/2 * n/2 * S/n bytes cross. */
			double t_wan = n * S / 4.0 / x->wan_B;
			if (t_wan > t_net)
				t_net = t_wan;
		}
	}
	double t_bw = HP_MAX(t_up, t_net) / A2A_EFF;
	if (x->N > 1) {
		/* Rounds of A2A_ROUND_PEERS peers, each ending in a tail. */
		double rounds = comm_ceil((n - 1) / (double)A2A_ROUND_PEERS);
		double tail = HP_MIN(S / n, A2A_TAIL_BYTES) / A2A_TAIL_BPS;
		t_bw += rounds * (A2A_ROUND_S + tail);
	}
	double lat = base_lat[A_RING][P_SIMPLE] + (n - 1) * A2A_PEER_US +
		     (x->N > 1 ? inter_lat(x, A_TREE, P_SIMPLE)
			       : hw_lat[x->hw][A_RING][P_SIMPLE]);
	if (x->wan_lat > 0)
		lat += x->wan_lat / US;
	return HOST_LAT_S + lat * US + t_bw;
}

static int proto_row(enum comm_proto p)
{
	return p == COMM_LL ? P_LL : p == COMM_LL128 ? P_LL128 : P_SIMPLE;
}

static enum comm_proto proto_enum(int p)
{
	return p == P_LL ? COMM_LL : p == P_LL128 ? COMM_LL128 : COMM_SIMPLE;
}

/* The model's view of group g moving `bytes` in collective c. Returns 0,
 * or -1 with err when the group cannot carry anything (no ranks, no
 * scale-up bandwidth, several nodes without NICs) or bytes is not a size. */
static int ctx_init(struct ctx *x, const struct comm_group *g, enum comm_coll c, double bytes,
		    struct hp_err *err)
{
	if (g->ranks < 1 || g->ranks_per_node < 1)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: a group needs at least one rank and one rank per node (got %d ranks, %d per node)",
				  g->ranks, g->ranks_per_node);
	if (!(bytes >= 0) || !isfinite(bytes))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: message size must be a finite number of bytes >= 0");
	x->g = g;
	x->c = c;
	x->S = bytes;
	x->n = g->ranks;
	x->ppn = g->ranks_per_node < g->ranks ? g->ranks_per_node : g->ranks;
	x->N = (x->n + x->ppn - 1) / x->ppn;
	x->arch = arch_of(g->fab.gen);
	x->idx2 = x->N == 1 ? 0 : x->N == 2 ? 1 : 2;
	x->hw = g->fab.intra == INTRA_PCIE ? HW_PCI : HW_NVLINK;
	x->b_up = g->fab.intra_Bps > 0 ? g->fab.intra_Bps : g->fab.pcie_Bps;
	/* NCCL sizes its channels from the topology, not from a measured
	 * throughput: the channel counts below read the catalog's figure */
	double b_topo = g->fab.intra_topo_Bps > 0 ? g->fab.intra_topo_Bps : x->b_up;
	/* a full mesh without a switch: the group's links among its ranks in
	 * the node (xGMI full mesh, above) */
	if (g->fab.mesh_links > 0 && g->fab.intra != INTRA_PCIE && x->ppn >= 2 &&
	    x->ppn <= g->fab.mesh_links) {
		double share = (double)(x->ppn - 1) / g->fab.mesh_links;
		x->b_up *= share;
		b_topo *= share;
	}
	x->b_net = net_node_Bps(&g->fab);
	if (x->N >= FABRIC_BIG_NODES)
		x->b_net *= FABRIC_BIG_EFF;
	int dom_ch = 0;
	if (g->domain_hosts > 1 && x->N > 2 && x->b_net > 0 && g->fab.nic_Bps > 0) {
		/* Channels of the domain's ring, one NIC each (see top). */
		double per_ch = HP_MIN(g->fab.nic_Bps * NIC_EFF, DOMAIN_NET_CH_BPS);
		double ch = comm_floor(b_topo / per_ch);
		if (ch > MAX_CH)
			ch = MAX_CH;
		if (ch > g->fab.nics)
			ch = g->fab.nics;
		if (ch < 1)
			ch = 1;
		double b = ch * per_ch * SPINE_ECMP_EFF;
		if (b < x->b_net)
			x->b_net = b;
		dom_ch = (int)ch;
	}
	x->r = spine_factor(g->oversub, (double)x->N * (g->domain_hosts > 1 ? g->domain_hosts : 1));
	x->wan_B = g->cross_site && g->wan_Bps > 0 ? g->wan_Bps : 0;
	x->wan_lat = g->cross_site && g->wan_latency_s > 0 ? g->wan_latency_s : 0;
	x->net_lat_us = g->fab.net_lat_s > 0 ? g->fab.net_lat_s / US : 0;
	x->ll128_ok = x->hw == HW_NVLINK || x->ppn == 1;
	x->efa = x->N > 1 && g->fab.transport == COMM_TRANSPORT_EFA;
	double top = x->N > 1 ? HP_MIN(b_topo, x->b_net) : b_topo;
	x->nch = (int)comm_ceil(top / CH_BW);
	if (x->nch < MIN_CH)
		x->nch = MIN_CH;
	if (x->nch > MAX_CH)
		x->nch = MAX_CH;
	if (dom_ch > 0)
		x->nch = dom_ch;
	if (x->b_up <= 0)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: the fabric has no scale-up or PCIe bandwidth");
	if (x->N > 1 && x->b_net <= 0)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: a group over %d nodes needs NICs (the fabric has none)",
				  x->N);
	return 0;
}

/* All-to-all and send/recv: point-to-point transfers, one algorithm; the
 * protocol is Simple for all-to-all, LL for small sends (not over a
 * network that carries Simple only). Returns 0 with *out, or -1 with err
 * for a protocol that does not apply. */
static int p2p_best(const struct ctx *x, enum comm_proto proto, struct comm_result *out,
		    struct hp_err *err)
{
	out->algo = COMM_P2P;
	out->proto = COMM_SIMPLE;
	if (x->c == COMM_ALLTOALL) {
		if (proto != COMM_PROTO_AUTO && proto != COMM_SIMPLE)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "comm: alltoall is modelled with the simple protocol only");
		out->time_s = a2a_time(x);
		return 0;
	}
	int net_simple = x->N > 1 && x->g->fab.net_simple_only;
	int p = proto == COMM_PROTO_AUTO
		? (x->S <= P2P_LL_MAX && !net_simple ? P_LL : P_SIMPLE)
		: proto_row(proto);
	if (p == P_LL128)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: sendrecv uses ll or simple, not ll128");
	if (p == P_LL && net_simple)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: this network carries only the simple protocol");
	out->time_s = p2p_time(x, p);
	out->proto = proto_enum(p);
	return 0;
}

/* Which algorithms NCCL would consider for the collective on this group. */
static void algos_allowed(const struct ctx *x, int ok[COMM_ALGO_COUNT])
{
	const struct comm_group *g = x->g;
	memset(ok, 0, COMM_ALGO_COUNT * sizeof *ok);
	ok[COMM_RING] = 1;
	if (x->c == COMM_ALLREDUCE) {
		ok[COMM_TREE] = 1;
		ok[COMM_NVLS] = g->fab.nvls && x->N == 1 && x->ppn > 1 &&
				x->arch >= ARCH_HOPPER;
		ok[COMM_NVLS_TREE] = g->fab.nvls && x->N > 1 && x->ppn > 1 &&
				     x->arch >= ARCH_HOPPER;
	} else if (x->c == COMM_ALLGATHER || x->c == COMM_REDUCESCATTER) {
		ok[COMM_PAT] = x->ppn == 1 && x->N > 1;
		ok[COMM_NVLS] = g->fab.nvls && x->N == 1 && x->ppn > 1 &&
				x->ppn <= NVLS_MAX_HEADS && x->arch >= ARCH_HOPPER;
	}
}

/* Time of algorithm a with protocol row p (INFINITY: not offered). */
static double algo_time(const struct ctx *x, int a, int p)
{
	switch (a) {
	case COMM_RING: return ring_time(x, p);
	case COMM_TREE: return tree_time(x, p);
	case COMM_NVLS: return p == P_SIMPLE ? nvls_time(x) : INFINITY;
	case COMM_NVLS_TREE: return p == P_SIMPLE ? nvls_tree_time(x) : INFINITY;
	default: return p == P_SIMPLE ? pat_time(x) : INFINITY;
	}
}

/* The fastest (algorithm, protocol) NCCL would run for a ring/tree class
 * collective, or the one the caller forced. Returns 0 with *out, or -1
 * with err for a forced combination the group does not offer. */
static int coll_best(const struct ctx *x, enum comm_algo algo, enum comm_proto proto,
		     struct comm_result *out, struct hp_err *err)
{
	int ok[COMM_ALGO_COUNT];
	algos_allowed(x, ok);
	if (algo != COMM_ALGO_AUTO && !ok[algo])
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: algorithm %s is not available for %s on this group (%d ranks, %d nodes%s)",
				  comm_algo_name(algo), comm_coll_name(x->c), x->n,
				  x->N, x->g->fab.nvls ? "" : ", no NVLink SHARP");
	int simple_only = algo == COMM_NVLS || algo == COMM_NVLS_TREE ||
			  algo == COMM_PAT;
	if (simple_only && proto != COMM_PROTO_AUTO && proto != COMM_SIMPLE)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: algorithm %s runs only with the simple protocol",
				  comm_algo_name(algo));
	if (proto == COMM_LL128 && !x->ll128_ok)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: ll128 needs NVLink between the GPUs of a node");
	double best = INFINITY, best_key = INFINITY;
	for (int a = COMM_RING; a <= COMM_PAT; a++) {
		if (!ok[a] || (algo != COMM_ALGO_AUTO && algo != (enum comm_algo)a))
			continue;
		for (int p = P_LL; p < P_N; p++) {
			if ((proto != COMM_PROTO_AUTO && proto_row(proto) != p) ||
			    (p == P_LL128 && !x->ll128_ok) ||
			    (p != P_SIMPLE && x->N > 1 && x->g->fab.net_simple_only))
				continue;
			double t = algo_time(x, a, p);
			/* A broadcast takes the protocol NCCL's tuner picks
			 * (bcast_tuner_s) and pays what the chain costs. */
			double key = x->c == COMM_BROADCAST && proto == COMM_PROTO_AUTO
				     ? bcast_tuner_s(x, p) : t;
			if (key < best_key) {
				best_key = key;
				best = t;
				out->algo = (enum comm_algo)a;
				out->proto = proto_enum(p);
			}
		}
	}
	if (!(best < INFINITY))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: no algorithm/protocol combination fits %s here",
				  comm_coll_name(x->c));
	out->time_s = best;
	return 0;
}

int comm_time(const struct comm_group *g, enum comm_coll c, double bytes,
	      enum comm_algo algo, enum comm_proto proto,
	      struct comm_result *out, struct hp_err *err)
{
	if (!g || !out || (unsigned)c >= COMM_COLL_COUNT ||
	    (unsigned)algo >= COMM_ALGO_COUNT ||
	    (unsigned)proto >= COMM_PROTO_COUNT)
		return hp_err_set(err, HP_EXIT_INPUT, "comm: bad arguments");
	struct ctx x = { 0 };
	if (ctx_init(&x, g, c, bytes, err) < 0)
		return -1;
	int p2p = c == COMM_ALLTOALL || c == COMM_SENDRECV;
	if (p2p && algo != COMM_ALGO_AUTO && algo != COMM_P2P)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: %s is point-to-point; algorithm %s does not apply",
				  comm_coll_name(c), comm_algo_name(algo));
	if (!p2p && algo == COMM_P2P)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "comm: %s does not run as point-to-point transfers",
				  comm_coll_name(c));
	struct comm_result r = { 0 };
	if (x.n == 1 || bytes == 0) {
		/* Nothing moves. */
		r.algo = p2p ? COMM_P2P : algo != COMM_ALGO_AUTO ? algo : COMM_RING;
		r.proto = proto != COMM_PROTO_AUTO ? proto : COMM_SIMPLE;
	} else if ((p2p ? p2p_best(&x, proto, &r, err) : coll_best(&x, algo, proto, &r, err)) < 0) {
		return -1;
	}
	out->time_s = r.time_s;
	out->algbw_Bps = r.time_s > 0 ? bytes / r.time_s : 0;
	out->busbw_Bps = out->algbw_Bps * comm_busbw_factor(c, x.n);
	out->algo = r.algo;
	out->proto = r.proto;
	return 0;
}
