/* dispatch.h — place a plan on concrete nodes.
 *
 * Each pool's nodes are numbered 0..nodes-1 and each node's GPUs
 * 0..gpus_per_node-1. TP groups always sit inside one node (TP divides
 * the node). The next dimension inward is the one that moves more bytes
 * per step: pipeline neighbours (activations every micro-batch) or
 * data-parallel peers (gradients once a step); the other goes outside.
 * Nodes are taken in index order, so replicas and consecutive stages land
 * on neighbouring nodes (on a leaf/spine fabric, nearby indices share a
 * leaf). The result names, per parallel dimension, the links its
 * collectives cross. */
#ifndef HP_DISPATCH_H
#define HP_DISPATCH_H

#include "perf.h"

struct dispatch_stage {
	int group, stage, pool;
	int first_gpu;            /* GPU index within the pool of the first replica */
	int n_nodes;
	int *nodes;               /* node indices (ascending) over all replicas */
};

struct dispatch {
	int n_stages;
	struct dispatch_stage *st;    /* group-major, stage order */
	int dp_inner;                 /* 1: DP peers placed before PP neighbours */
	char links[DIM_COUNT][256];    /* "" when the dimension is not used */
};

/* The link one group's collective crosses and the link the cost model
 * prices it on (perf_comm.c, perf_memo.c), from the same choice of pools
 * (perf_dp_peer; an EP group is costed on its DP group's pools, a
 * simplification: perf_int.h): the one source of the plan's DP, CP and
 * EP labels, beside the communication table's link (perf_link_names). */
struct dispatch_link {
	unsigned mask;       /* the pools the group spans (bit i: pool i) */
	int pool, peer;      /* costed on the link of pools pool and peer
			      * (peer -1: pool alone) */
	int in_node;         /* 1: inside one node or NVLink domain */
	char crosses[128];   /* what the labels print: "4x200G NIC, leaf and
			      * spine (bottleneck)" */
	char costed[48];     /* the communication table's name of the costed
			      * link: "NVLink + 4x200G NIC (bottleneck)" */
};

/* The link of the dim (DIM_DP, DIM_CP or DIM_EP) group of stage k of
 * replica group r of plan p (validated against c). Returns 0 with out
 * filled, or -1 when that dimension has no group there (degree 1, or
 * another dimension; out zeroed). Cannot fail otherwise. */
int dispatch_group_link(const struct cluster *c, const struct plan *p, int r, int k,
			enum perf_dim dim, struct dispatch_link *out);

/* Place plan p (validated against c and m) on c's nodes. Returns 0 with
 * d filled (its arrays allocated here; free with dispatch_free()), or -1
 * with err set (HP_EXIT_INPUT: a pool runs out of GPUs, counting the GPUs
 * skipped so that no TP group straddles a node; d is then empty and
 * needs no free). */
int dispatch_plan(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		  struct dispatch *d, struct hp_err *err);
/* Free d's arrays and zero it; safe on a zeroed dispatch. */
void dispatch_free(struct dispatch *d);

/* Node list as text, ranges compressed: "0-3,6", truncated to n bytes.
 * Returns buf. Cannot fail. */
char *dispatch_nodes_text(const struct dispatch_stage *s, char *buf, size_t n);

#endif
