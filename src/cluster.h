/* cluster.h — node pools and the fabric between them.
 *
 * A pool is a set of identical nodes: GPU type, GPUs per node, intra-node
 * fabric, NICs, where it lives and what a node-hour costs. nodes_max > 0
 * marks a pool whose nodes are available to rent up to that count (capacity
 * questions); for evaluating a plan it counts as nodes_max nodes.
 * Pools with the same site share one spine (oversubscription); pools on
 * different sites are joined by a WAN link. */
#ifndef HP_CLUSTER_H
#define HP_CLUSTER_H

#include "catalog.h"

/* The network transport between a pool's nodes. IB covers InfiniBand and
 * RoCE (NCCL's own net transport, reliable in-order delivery). EFA is
 * AWS's Elastic Fabric Adapter: SRD, unordered multipath delivery, through
 * the aws-ofi-nccl plugin (comm.c models the terms it adds). TCP is NCCL's
 * socket transport over plain Ethernet (NET/Socket: no RDMA, the host's CPU
 * copies every byte; comm.c, "TCP sockets"). OPA is Intel (now Cornelis)
 * Omni-Path: NCCL drives its hfi1 adapters through its own IB verbs
 * transport, without GPUDirect RDMA (comm.c, "Omni-Path"). The Google
 * Cloud fabrics, each named as Google names it, with the machine types
 * that carry it:
 *  - TCPX: GPUDirect-TCPX (a3-highgpu-8g, a3-edgegpu-8g; 4 x 200 Gb/s);
 *  - TCPXO: GPUDirect-TCPXO (a3-megagpu-8g; 8 x 200 Gb/s);
 *  - GCP_RDMA: GPUDirect RDMA over RoCE with Google's gIB NCCL plugin
 *    (a3-ultragpu-8g, a4-highgpu-8g; 8 x 400 Gb/s ConnectX-7).
 * comm.c holds each transport's NIC efficiency and per-hop latency (its
 * "transport profiles"). A property of the cluster, so it lives here; the
 * collective model (comm.h) reads it. A group over two transports runs at
 * the slower, by comm.c's ranking (comm_fabric_min), not by enum order. */
enum comm_transport { COMM_TRANSPORT_IB, COMM_TRANSPORT_EFA, COMM_TRANSPORT_TCP,
		      COMM_TRANSPORT_OPA, COMM_TRANSPORT_TCPX, COMM_TRANSPORT_TCPXO,
		      COMM_TRANSPORT_GCP_RDMA, COMM_TRANSPORT_COUNT };

/* "ib", "efa", "tcp", "opa", "tcpx", "tcpxo" or "gcp-rdma" (static). t must be
 * in range (assert; "?" when asserts are off). */
const char *comm_transport_name(enum comm_transport t);
/* What the transport is, in a few words for help text and the manual
 * (static). */
const char *comm_transport_what(enum comm_transport t);
/* A transport name, the fabric's own name ("omni-path": opa), or a Google
 * Cloud machine type or family that implies one ("a3-megagpu-8g" or
 * "a3-mega": tcpxo; "a3-highgpu-8g", "a3-edgegpu-8g", "a3-high": tcpx;
 * "a3-ultragpu-8g", "a4-highgpu-8g", "a4x-highgpu-4g", "a3-ultra", "a4",
 * "a4x", "gib": gcp-rdma), ignoring case and '-', '_',
 * ' ', '.'. Returns 0 and sets *out, or -1 for any other name (*out
 * untouched). */
int comm_transport_parse(const char *s, enum comm_transport *out);
/* The transport names as a list for messages: "ib, efa, tcp, opa, tcpx,
 * tcpxo or gcp-rdma", each in double quotes when quoted. Writes at most n bytes
 * (NUL-terminated, cut if n is short). Never fails. */
void comm_transport_list(char *buf, size_t n, int quoted);
/* What a transport value may be, for messages: comm_transport_list's names
 * and the machine types comm_transport_parse also reads ("... or gcp-rdma
 * (or a Google Cloud machine type such as a3-megagpu-8g)"), the example in
 * double quotes when quoted. */
void comm_transport_want(char *buf, size_t n, int quoted);

/* NICs slower than this (Gb/s) carry NCCL over TCP sockets unless a pool
 * says otherwise: GPU clusters' RDMA fabrics run faster (InfiniBand since
 * FDR, 2011: 56 Gb/s; AWS's slowest EFA instances 50 Gb/s), and the cloud instances on 10-25 Gb/s Ethernet (AWS p3.2xlarge
 * to p3.16xlarge, g4dn below 8xlarge) offer no RDMA (docs/links.md). */
#define CLUSTER_TCP_BELOW_GBPS 50.0
/* The transport a pool gets when it names none: tcp for NICs below
 * CLUSTER_TCP_BELOW_GBPS, else ib. Never fails. */
enum comm_transport cluster_default_transport(double nic_gbps);

/* The GPU NICs of a node of gpus_per_node GPUs on the machine type name
 * (comm_transport_parse's names; each figure's source is in cluster.c's
 * machine_types): a3-highgpu-8g 4 x 200 Gb/s, a3-megagpu-8g 8 x 200,
 * a3-ultragpu-8g and a4-highgpu-8g 8 x 400, a4x-highgpu-4g 4 x 400,
 * a2-highgpu-8g, a2-ultragpu-8g and a2-megagpu-16g one 100 Gb/s gVNIC. A
 * node of several machines' GPUs (72 on a4x) has each machine's NICs, at
 * most POOL_MAX_NICS. Returns 1 and sets *nics and *nic_gbps; 0 (both
 * untouched) for a name that sets no NICs (a fabric name, a3-edgegpu-8g)
 * or a node that is not whole machines. */
int cluster_machine_nics(const char *name, int gpus_per_node, int *nics, double *nic_gbps);
/* The GPUs of one machine of the type or family name (the same table):
 * a3-highgpu-8g, a3-edgegpu-8g, a3-megagpu-8g, a3-ultragpu-8g,
 * a4-highgpu-8g, a2-highgpu-8g and a2-ultragpu-8g 8, a4x-highgpu-4g 4,
 * a2-megagpu-16g 16; 0 for a fabric name ("tcpxo", "gib") or a name the
 * table does not hold. A pool or `comm` node of such a machine type is
 * whole machines (a multiple), unless it gives both its NICs and their
 * speed (the name then sets the fabric only). Never fails. */
int cluster_machine_gpus(const char *name);
/* The pool key pcie's text, "4.0x8" (also "4x8", "gen4x8", "Gen4 x8"):
 * generations 3 to 6, lanes 1, 2, 4, 8 or 16 (docs/pcie.md). Returns 0
 * and sets *gen and *lanes, or -1. `comm --pcie` reads it too. */
int cluster_pcie_parse(const char *s, int *gen, int *lanes);
/* 1 when gpu (a catalog GPU name) is the GPU model of the machine type
 * name (the name up to its first '-': H100-SXM on a3-highgpu-8g, either
 * A100 on a2-highgpu-8g), or name is no machine type (a fabric name, an
 * unknown word); 0 when the machine holds another GPU. *machine_gpu
 * (may be NULL) gets the machine's GPU name, NULL for no machine. The
 * pool loader and `hetplan comm` ask it alike. Never fails. */
int cluster_machine_gpu_ok(const char *name, const char *gpu, const char **machine_gpu);
/* The machine type a name stands for ("a3-mega": "a3-megagpu-8g"; static),
 * or NULL for a fabric name or an unknown one. Never fails. */
const char *cluster_machine_type(const char *name);
/* A Google Cloud machine type of a series the table names, any shape
 * ("a3-highgpu-4g", "a2-ultragpu-1g"): *acc gets the accelerator name
 * Google's price catalog bills its GPUs under as SkyPilot writes it
 * ("H100"; a3-megagpu-8g's are "H100-MEGA", priced apart), *gpu the
 * catalog's GPU ("H100-SXM"), *count the GPUs (the number before the
 * final 'g'). Returns 0, or -1 for any other name (a3-edgegpu-8g-nolssd,
 * g2-standard-48: nothing set). */
int cluster_machine_series(const char *inst, const char **acc, const char **gpu, int *count);
/* The machine types with their NICs, for help and docs ("a3-highgpu-8g 4 x
 * 200 Gb/s, ..."), from the same table. Writes at most n bytes
 * (NUL-terminated, cut if n is short). Never fails. */
void cluster_machine_list(char *buf, size_t n);
#define POOL_GAVE_NICS 1
#define POOL_GAVE_GBPS 2

#define HP_MAX_POOLS 16
/* Limits on a cluster, so that GPU counts and their products with
 * parallel degrees stay far inside int: at most 1,000,000 nodes per pool
 * and 2^24 = 16,777,216 GPUs in all, 16 times the largest cluster
 * announced (1M GPUs, 2025); a pool has at most 1024 GPUs per node. */
#define HP_MAX_NODES 1000000
#define HP_MAX_GPN 1024
/* Most scale-out NICs a node may have: 64 was the limit (AWS p5: 32 EFA
 * NICs for 8 GPUs); a GB200 NVL72 rack taken as one node of 72 GPUs has
 * 18 trays x 4 = 72, so the limit is one per GPU of the largest node
 * hetplan takes (HP_MAX_GPN), which also covers 64 on a node of 8. */
#define POOL_MAX_NICS HP_MAX_GPN
#define HP_MAX_GPUS (1 << 24)

struct pool {
	char name[32];
	struct gpu_spec gpu;
	int gpus_per_node;
	int nodes;            /* nodes owned (or nodes_max when renting) */
	int nodes_max;        /* 0: a fixed pool */
	enum hp_intra intra;
	double intra_Bps;     /* scale-up per GPU per direction */
	double intra_gbyte_s; /* measured GPU-to-GPU rate inside a node, GB/s per
			       * GPU and direction, every GPU sending at once;
			       * 0: the catalog's link, as comm_fabric_init
			       * prices it (comm_fabric_set_intra) */
	int nvl_domain;       /* GPUs on one NVLink fabric, >= gpus_per_node: 72 on
			       * GB200/GB300 NVL72 racks of 4-GPU trays; else a node */
	int nvl_domain_derived; /* 1: nvl_domain is cluster_default_domain's, and
				 * follows gpus_per_node, the GPU and intra when
				 * they change (pool_derive_domain); 0: given */
	int nics;
	double nic_gbps;
	int nics_given;       /* POOL_GAVE_NICS | POOL_GAVE_GBPS: nics or nic_gbps
			       * given by the cluster file or --pool (a machine
			       * type named as the transport or priced leaves
			       * those alone) */
	int nics_priced;      /* the NICs and Gb/s the priced machine type set
			       * (pool_price_transport), 0: none; a later offer
			       * puts the catalog's back unless edited since */
	double nic_gbps_priced;
	double host_mem_gb;   /* host (CPU) memory of a node, GB (1e9 B), as given
			       * by a file or flag; 0: not given, the catalog's
			       * reference node's (pool_host_mem_gb) */
	/* The host's PCIe link for each GPU (pool key pcie, "4.0x8"): 1 when
	 * given, and then set on gpu.pcie_gen and gpu.pcie_lanes, which the
	 * offload copies and the in-node PCIe paths read (comm.c
	 * comm_pcie_link_Bps, perf_offload.c); 0: the catalog's usual host.
	 * pcie_cat_gen and pcie_cat_lanes keep the catalog's pair, for a TUI
	 * edit that gives the key back. */
	int pcie_set;
	int pcie_cat_gen, pcie_cat_lanes;
	enum comm_transport transport;  /* network: IB/RoCE, EFA, TCP sockets,
					 * Omni-Path or a Google Cloud fabric
					 * (default: the priced machine type's,
					 * pool_price_transport, else
					 * cluster_default_transport) */
	int transport_set;    /* transport given by the cluster file or --pool:
			       * the price book leaves it alone */
	int transport_priced; /* 1 + the transport the price book's offer set
			       * (pool_price_transport); 0: none */
	char machine[32];     /* the machine type the transport named, as the
			       * table names it ("a3-megagpu-8g" for
			       * "a3-mega"), when the node is whole machines;
			       * "" none. Read it through cluster_pool_machine */
	/* site: the user's, or "{provider}/{region}" whole (23 + 1 + 31
	 * bytes; at 48 it kept 23 bytes of the region, so two regions that
	 * differ later were one site, and a multi-byte character was cut) */
	char provider[24], region[32], site[64];
	double usd_per_node_h;     /* 0 = unknown */
	char price_source[192];
	int price_set;             /* price given by the cluster file or --pool:
				    * the price book leaves it alone */
	int spot;
};

struct cluster {
	char name[64];
	int n_pools;
	struct pool pools[HP_MAX_POOLS];
	double oversub;                /* spine oversubscription, >= 1: slows
					* groups over more than one leaf
					* (comm.c, LEAF_HOSTS) */
	double inter_pool_gbps;        /* WAN between sites, per direction */
	double inter_pool_latency_us;
};

/* An empty cluster: no pools, oversubscription 1, the default WAN.
 * Never fails; a cluster owns no memory (nothing to free). */
void cluster_init(struct cluster *c);

/* Parse cluster JSON (schema in docs/formats.md) into c, initialised by
 * cluster_init (its pools come after any c holds). file names it in
 * messages. Returns 0, or -1 with err (HP_EXIT_INPUT) naming the file and
 * field; c is then partly filled and should not be used. */
int cluster_parse_json(struct cluster *c, const char *text, size_t len,
		       const char *file, const struct catalog *cat,
		       struct hp_err *err);
/* Read and parse a cluster file. Returns 0, or -1 with err (an unreadable
 * file or cluster_parse_json's errors). */
int cluster_load(struct cluster *c, const char *path, const struct catalog *cat,
		 struct hp_err *err);

/* Add a pool from NODESxGPUSxGPU[,key=value...] (--pool). Keys: name, intra,
 * nics, nic_gbps, host_mem_gb, pcie, transport (comm_transport_parse), provider, region, site, price (USD per
 * node-hour), spot, max. Returns 0, or -1 with err naming the key (c
 * unchanged) for a bad spec, an unknown GPU or a full cluster. */
int cluster_add_pool_spec(struct cluster *c, const char *spec,
			  const struct catalog *cat, struct hp_err *err);

/* The transport of the machine type a pool on Google Cloud (its provider
 * "gcp") is priced from (instance a3-megagpu-8g: tcpxo, by
 * comm_transport_parse's machine types, the table docs/cloud-transport.md
 * shows), set on p unless the
 * pool's transport was given (transport_set) or edited since to another
 * value than its default; an instance that names no fabric puts back the
 * default a previous offer's replaced. Called by pricing_apply for every
 * pool it prices. Never fails. */
void pool_price_transport(struct pool *p, const char *provider, const char *instance);

/* The machine type p is priced as, or NULL: the one its transport named
 * (pool.machine) while p still has that fabric and whole machines; else,
 * for a transport given as a fabric only Google Cloud has (tcpx, tcpxo,
 * gcp-rdma), the table's one machine type of that fabric and p's GPU
 * (tcpxo on H100-SXM: a3-megagpu-8g; tcpx on H100-SXM is two, so none).
 * Static or p's own text. Never fails. */
const char *cluster_pool_machine(const struct pool *p);

/* 1 when the pool has a price: a positive one, or one the user set, 0
 * included (owned hardware costs nothing per hour); 0: unknown. */
int pool_price_known(const struct pool *p);
/* The index of the pool called name, or -1. */
int cluster_pool_index(const struct cluster *c, const char *name);
/* GPUs in every pool (nodes_max for rented pools), at most INT_MAX. */
int cluster_total_gpus(const struct cluster *c);
/* 1 when pools a and b are at the same site (they share a spine), else
 * 0. a and b must be pool indexes of c. */
int cluster_same_site(const struct cluster *c, int a, int b);

/* Fill a pool's defaults from its GPU (nodes shape, links, NVLink domain,
 * price). The NVLink domain defaults to the GPU's scale-up domain when
 * that is larger than a node (GB200: 72) and the node is not PCIe-only.
 * Never fails. */
void pool_apply_defaults(struct pool *p);
/* Set nvl_domain to cluster_default_domain for the pool as it is now, unless
 * it was given (nvl_domain > 0 and not nvl_domain_derived): called by
 * pool_apply_defaults and after an edit of gpus_per_node, GPU or intra. */
void pool_derive_domain(struct pool *p);

/* The checks a cluster file's pools pass (names unique and printable,
 * NVLink only on GPUs that have it, node and GPU limits, NICs to reach the
 * other nodes and pools), on c as it stands: for an editor that changed a
 * pool in place. Returns 0, or -1 with err naming the pool and the key
 * (code HP_EXIT_INPUT). */
int cluster_check(const struct cluster *c, struct hp_err *err);

/* GPUs on one scale-up fabric for nodes of gpus_per_node g's joined by
 * intra when no nvl_domain is given: the catalog's domain where it spans
 * nodes (GB200 NVL72), else the node. Never fails. */
int cluster_default_domain(const struct gpu_spec *g, int gpus_per_node, enum hp_intra intra);

/* Scale-out NICs of a node of gpus_per_node g's joined by intra when the
 * user names none: the catalog's NICs, or for a node of several of the
 * catalog's trays of an NVLink domain (GB200 72 per node) the tray's NICs
 * per GPU (18 trays x 4 = 72), at most POOL_MAX_NICS. The pool parser and
 * `hetplan comm` both ask this. Never fails. */
int cluster_default_nics(const struct gpu_spec *g, int gpus_per_node, enum hp_intra intra);

/* Host (CPU) memory of one of p's nodes, GB (1e9 B): the pool's
 * host_mem_gb when given; else the catalog's reference node's
 * (def_host_mem_gb) for a node of that node's GPUs, or of several of the
 * catalog's trays of a rack-scale NVLink domain (GB200 72 per node: 18
 * trays' memory); 0 when unknown (another node shape, or a GPU whose
 * catalog entry names no reference node's memory): nothing is checked
 * against it then. Never fails. */
double pool_host_mem_gb(const struct pool *p);

/* The settings table of a pool (cluster.c): the cluster file's keys,
 * kinds, ranges and documentation; pool_nodes is its "nodes": {"max": N}
 * form. */
struct hp_field_table;
extern const struct hp_field_table pool_fields, pool_nodes;

/* The keys of a --pool spec (table "pool-spec"): pool_fields' entries,
 * kinds, ranges and help, less gpu, gpus_per_node and nodes (the spec's
 * NODESxGPUSxGPU), with price for price_per_node_hour, max for
 * nodes.max, and spot read as a plain yes/no. Derived from the table once
 * (thread-safe), never written by hand: cluster_add_pool_spec parses by
 * it, and docs/formats.md and the man page list it. */
const struct hp_field_table *cluster_pool_spec_fields(void);

#endif
