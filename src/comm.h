/* comm.h — cost of collectives over a group of GPUs (NCCL-like model).
 *
 * time = latency(algorithm, protocol, hops) + bytes / algbw(...), minimised
 * over the algorithms and protocols NCCL would enable for that collective,
 * GPU generation and topology. Bandwidths follow the nccl-tests conventions:
 * algbw = bytes / time; busbw = algbw * factor(collective, n).
 * All units SI: bytes, seconds, bytes/s. */
#ifndef HP_COMM_H
#define HP_COMM_H

#include "cluster.h"

enum comm_coll { COMM_ALLREDUCE, COMM_ALLGATHER, COMM_REDUCESCATTER,
		 COMM_ALLTOALL, COMM_BROADCAST, COMM_SENDRECV, COMM_COLL_COUNT };
/* COMM_P2P: grouped point-to-point transfers (all-to-all, send/recv), the
 * only "algorithm" those two have. */
enum comm_algo { COMM_ALGO_AUTO, COMM_RING, COMM_TREE, COMM_NVLS,
		 COMM_NVLS_TREE, COMM_PAT, COMM_P2P, COMM_ALGO_COUNT };
enum comm_proto { COMM_PROTO_AUTO, COMM_LL, COMM_LL128, COMM_SIMPLE,
		  COMM_PROTO_COUNT };
/* enum comm_transport (IB or EFA) is the cluster's: cluster.h. */

/* The links one member of a group has. A group that spans several kinds of
 * node is described by its slowest member (comm_fabric_min). */
struct comm_fabric {
	enum hp_gen gen;          /* selects NCCL's per-generation tables */
	enum hp_intra intra;      /* NVSwitch, NVLink mesh/bridge, PCIe */
	double intra_Bps;         /* scale-up bandwidth per GPU per direction */
	double intra_topo_Bps;    /* the same from the catalog's links, which
				   * NCCL's channel counts follow even where a
				   * measured rate replaced intra_Bps */
	double pcie_Bps;          /* per GPU per direction */
	int nics;                 /* NICs per node */
	double nic_Bps;           /* per NIC per direction (Gb/s * 1e9 / 8) */
	int nvls;                 /* NVLink SHARP available (H100/B200 NVSwitch) */
	int mesh_links;           /* links a GPU has in a full mesh without a
				   * switch, one to each peer (AMD xGMI nodes
				   * of 8: 7); 0: a switch, or not a full
				   * mesh. An in-node group of g ranks reaches
				   * g - 1 of them (comm.c, "xGMI full mesh") */
	double net_lat_s;         /* transport latency per network hop on top of
				   * NCCL's table (a net plugin's latencyInter;
				   * 0 from comm_fabric_init, i.e. IB/RoCE) */
	int net_simple_only;      /* the network transport cannot carry LL/LL128
				   * (no in-order delivery, e.g. AWS EFA/SRD):
				   * multi-node groups use the Simple protocol */
	enum comm_transport transport; /* IB from comm_fabric_init; set with
				   * comm_fabric_set_transport; its profile
				   * (comm.c) gives the NIC efficiency of
				   * every transport but IB and EFA */
	double nic_eff;           /* fraction of line rate NCCL gets from the
				   * NICs over IB/EFA: NIC_EFF, or ONE_NIC_EFF
				   * for one NIC on a PCIe Gen3 NVLink node
				   * (comm.c, docs/links.md) */
	double node_share;        /* the hosts' worth of network stack behind
				   * nics/nic_Bps: the group's share of one
				   * node's flows, times the hosts of an
				   * NVLink domain that spans several
				   * (perf_memo.c build_group); 0: one whole
				   * node */
};

struct comm_group {
	int ranks;                /* n: GPUs in the group */
	int ranks_per_node;       /* g: of them in one node (n = nodes * g) */
	struct comm_fabric fab;
	double oversub;           /* spine oversubscription (>= 1) */
	int cross_site;           /* spans pools joined by a WAN link */
	double wan_Bps;           /* that link, per direction: this group's share of
				   * it (perf_memo.c build_group divides it among
				   * the groups crossing at once) */
	double wan_latency_s;
	/* All-reduces of at most this many bytes inside one node run as a
	 * serving engine's own one-shot / two-shot NVLink kernel, not NCCL's
	 * (vLLM CustomAllreduce: max_size 8 MiB, 2-8 ranks; TensorRT-LLM's
	 * custom all-reduce likewise): no NVLS loop pipeline, so no fill.
	 * Modelled as NCCL's algorithms without that fill. 0: NCCL always. */
	double engine_ar_bytes;
	/* Hosts on one NVLink domain (GB200 NVL72: 18 trays); 0 or 1: the
	 * node is one host. Beyond two such domains a ring or tree carries
	 * its network traffic through one NIC per channel (comm.c,
	 * DOMAIN_NET_CH_BPS, SPINE_ECMP_EFF). */
	int domain_hosts;
};

struct comm_result {
	double time_s;
	double algbw_Bps;
	double busbw_Bps;
	enum comm_algo algo;
	enum comm_proto proto;
};

/* Time of one collective moving `bytes` (the nccl-tests "size": the full
 * buffer for all-reduce/broadcast, the gathered output for all-gather, the
 * input for reduce-scatter, the per-rank send buffer for all-to-all, the
 * message for send/recv). algo/proto AUTO = NCCL's choice. Returns 0 with
 * *out filled, or -1 with err (HP_EXIT_INPUT; *out untouched) when the
 * combination is impossible (NVLS without NVSwitch, ...), the group has no
 * ranks or links, or bytes is not a finite size >= 0. Allocates nothing;
 * pure (thread-safe). */
int comm_time(const struct comm_group *g, enum comm_coll c, double bytes,
	      enum comm_algo algo, enum comm_proto proto,
	      struct comm_result *out, struct hp_err *err);

/* Fabric of a node of this GPU with the given node settings (nics <= 0:
 * none; nic_gbps <= 0: no network), transport IB. Fills *f; never fails. */
void comm_fabric_init(struct comm_fabric *f, const struct gpu_spec *gpu,
		      enum hp_intra intra, int nics, double nic_gbps);
/* Network transport of the fabric; sets net_lat_s and net_simple_only to
 * the transport's values (EFA: 25 us per hop, Simple only; TCP sockets:
 * 8 us; GCP TCPX 200 us, TCPXO 60 us, GPUDirect RDMA 0; IB: 0; all but EFA
 * with every protocol). The transport's NIC efficiency is read from its
 * profile when the collective is priced (comm.c, "Transport profiles"). */
void comm_fabric_set_transport(struct comm_fabric *f, enum comm_transport t);

/* A measured GPU-to-GPU rate inside the node (a pool's intra_gbyte_s, GB/s
 * per GPU and direction with every GPU sending at once) in place of the
 * catalog's link figure; 0 or less leaves the fabric as it is. */
void comm_fabric_set_intra(struct comm_fabric *f, double gbyte_s);
/* The slowest of a and b, link by link (transports ranked slowest first:
 * TCP, TCPX, EFA, TCPXO, GCP RDMA, IB), into *out (which may be a or b).
 * Never fails. */
void comm_fabric_min(struct comm_fabric *out, const struct comm_fabric *a,
		     const struct comm_fabric *b);

/* busbw / algbw for collective c over n ranks (nccl-tests); 0 for n < 1. */
double comm_busbw_factor(enum comm_coll c, int n);
/* Effective PCIe x16 bandwidth a direction, bytes/s, at PCIe generation
 * gen (comm.c: NCCL's 12 GB/s for Gen3, SimAI's 25.6 / 51.2 GB/s for
 * Gen4 / Gen5, doubling after that; Gen3 and below at Gen3's). */
double comm_pcie_Bps(int gen);
/* The same for a link of `lanes` lanes (x1 .. x16; 0 or out of range reads
 * as x16): comm_pcie_Bps(gen) x lanes / 16, as NCCL's topology prices a
 * PCI link by width x per-lane rate (comm.c). A Gen4 x8 link: 12.8 GB/s. */
double comm_pcie_link_Bps(int gen, int lanes);

/* Names ("allreduce", "ring", "ll128", ...): static strings. The value
 * must be in its enum's range (assert; "?" when asserts are off). */
const char *comm_coll_name(enum comm_coll c);
const char *comm_algo_name(enum comm_algo a);
const char *comm_proto_name(enum comm_proto p);
/* Parse a name (case, '-', '_', ' ' and '.' ignored: "all_reduce").
 * Return 0 and set *out, or -1 for an unknown name (*out untouched). */
int comm_coll_parse(const char *s, enum comm_coll *out);
int comm_algo_parse(const char *s, enum comm_algo *out);
int comm_proto_parse(const char *s, enum comm_proto *out);

#endif
