/* perf_comm.c — the communication of one pipeline stage: tensor, context
 * and expert parallelism inside each micro-batch, the pipeline's p2p, and
 * the data-parallel synchronisation after the last backward (the model is
 * described at the top of perf.c). Collective times come from comm.c. */
#include "perf_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* GPUs of pool p on one NVLink fabric: a node, or an NVL72 rack. The
 * collectives treat the domain as their "node": NVLink inside it, the
 * domain's NICs (every tray's) across domains. */
int perf_domain_gpus(const struct pool *p)
{
	return p->nvl_domain > p->gpus_per_node ? p->nvl_domain : p->gpus_per_node;
}

/* A pool's NICs per node, Gb/s: what comm_fabric_min keeps the smaller
 * of for a group on two pools. */
static double node_nic_gbps(const struct pool *q)
{
	return q->nics * q->nic_gbps;
}

/* The peer of a group on pool own whose other pools are mask (bit i:
 * pool i, own's bit clear): one at another site first, else the one of
 * the fewest NIC Gb/s per node, the lower index on a tie; -1 for none. */
static int peer_of_mask(const struct cluster *c, int own, unsigned mask)
{
	int peer = -1, far = 0;
	for (int i = 0; mask >> i; i++) {
		if (!(mask >> i & 1))
			continue;
		int f = !cluster_same_site(c, own, i);
		if (peer < 0 || f > far ||
		    (f == far && node_nic_gbps(&c->pools[i]) < node_nic_gbps(&c->pools[peer])))
			peer = i, far = f;
	}
	return peer;
}

int perf_dp_peer(const struct cluster *c, const struct plan *p, int r, int k)
{
	const struct stage *s = &p->replicas[r].stages[k];
	unsigned mask = 0;
	if (p->n_replicas < 2)   /* every replica of one group: the same pools */
		return -1;
	for (int r2 = 0; r2 < p->n_replicas; r2++) {
		const struct replica *rp = &p->replicas[r2];
		if (rp->count < 1)
			continue;
		for (int k2 = 0; k2 < rp->n_stages; k2++) {
			const struct stage *t = &rp->stages[k2];
			if (t->first_layer <= s->last_layer && s->first_layer <= t->last_layer)
				mask |= 1u << t->pool;
		}
	}
	return peer_of_mask(c, s->pool, mask & ~(1u << s->pool));
}

void perf_peers_init(struct perf_peers *pp, const struct cluster *c, const struct plan *p)
{
	/* layers[i] is cleared when pool i is first met: rows of pools
	 * outside used are never read (peers_of_bits) */
	pp->sites = 0;
	pp->used = 0;
	pp->last_pool = -1;
	pp->last_first = pp->last_last = pp->last_peer = 0;
	pp->how = p->n_replicas < 2 ? PEERS_NONE : PEERS_BITS;
	int first = -1;
	for (int r = 0; r < p->n_replicas && pp->how == PEERS_BITS; r++) {
		const struct replica *rp = &p->replicas[r];
		if (rp->count < 1)
			continue;
		for (int k = 0; k < rp->n_stages; k++) {
			const struct stage *t = &rp->stages[k];
			if (t->first_layer < 0 || t->last_layer >= 64 * PERF_PEER_WORDS) {
				pp->how = PEERS_DIRECT;
				break;
			}
			if (!(pp->used >> t->pool & 1)) {
				for (int w = 0; w < PERF_PEER_WORDS; w++)
					pp->layers[t->pool][w] = 0;
				if (first < 0)
					first = t->pool;
				else if (!cluster_same_site(c, first, t->pool))
					pp->sites = 1;
			}
			pp->used |= 1u << t->pool;
			for (int w = 0; w < PERF_PEER_WORDS; w++) {
				int a = HP_MAX(t->first_layer - 64 * w, 0);
				int b = HP_MIN(t->last_layer - 64 * w, 63);
				if (a <= b)
					pp->layers[t->pool][w] |= (~0ull >> (63 - b)) & (~0ull << a);
			}
		}
	}
}

/* perf_peers_of from the layer bits, for stage s. The pools are visited
 * by their set bits alone (issue 13, twenty-second round: the loops over
 * every index below the highest pool were half of the lookup's
 * instructions in the Mixtral 8x22B deadline search). */
static int peers_of_bits(const struct perf_peers *pp, const struct cluster *c,
			 const struct stage *s)
{
	uint64_t range[PERF_PEER_WORDS];
	for (int w = 0; w < PERF_PEER_WORDS; w++) {
		int a = HP_MAX(s->first_layer - 64 * w, 0);
		int b = HP_MIN(s->last_layer - 64 * w, 63);
		range[w] = a <= b ? (~0ull >> (63 - b)) & (~0ull << a) : 0;
	}
	unsigned mask = 0;
	for (unsigned rest = pp->used & ~(1u << s->pool); rest; rest &= rest - 1) {
		int i = __builtin_ctz(rest);
		uint64_t hit = 0;
		for (int w = 0; w < PERF_PEER_WORDS; w++)
			hit |= pp->layers[i][w] & range[w];
		if (hit)
			mask |= 1u << i;
	}
	if (!mask)
		return -1;
	if (pp->sites)
		return peer_of_mask(c, s->pool, mask);
	/* one site: the fewest NIC Gb/s, the lower index on a tie (set bits
	 * in increasing order, so a later pool wins only when strictly less) */
	int peer = __builtin_ctz(mask);
	double best = node_nic_gbps(&c->pools[peer]);
	for (unsigned m2 = mask & (mask - 1); m2; m2 &= m2 - 1) {
		int i = __builtin_ctz(m2);
		double g = node_nic_gbps(&c->pools[i]);
		if (g < best)
			peer = i, best = g;
	}
	return peer;
}

int perf_peers_of(struct perf_peers *pp, const struct cluster *c, const struct plan *p, int r,
		  int k)
{
	if (pp->how == PEERS_NONE)
		return -1;
	if (pp->how == PEERS_DIRECT)
		return perf_dp_peer(c, p, r, k);
	const struct stage *s = &p->replicas[r].stages[k];
	/* a stage is asked again and again (placing it, and whether it is
	 * like the one before): the last answer is kept */
	if (pp->last_pool != s->pool || pp->last_first != s->first_layer ||
	    pp->last_last != s->last_layer) {
		pp->last_pool = s->pool;
		pp->last_first = s->first_layer;
		pp->last_last = s->last_layer;
		pp->last_peer = peers_of_bits(pp, c, s);
	}
	return pp->last_peer;
}

void perf_link_nic_text(const struct cluster *c, int a, int b, char *buf, size_t n)
{
	const struct pool *pa = &c->pools[a], *pb = &c->pools[b < 0 ? a : b];
	int nics = HP_MIN(pa->nics, pb->nics);
	double total = HP_MIN(node_nic_gbps(pa), node_nic_gbps(pb));
	snprintf(buf, n, "%dx%gG NIC", nics, nics > 0 ? total / nics : 0);
}

const char *perf_scaleup_label(const struct pool *pl)
{
	if (pl->intra == INTRA_PCIE)
		return hp_intra_label(INTRA_PCIE);
	/* AMD Instinct parts join their GPUs by Infinity Fabric links: an
	 * 8-GPU MI300X/MI325X/MI350X/MI355X node is a full mesh of 7 xGMI
	 * links a GPU, no switch (docs/cdna.md, "The xGMI full mesh"); an
	 * MI250X package's two GCDs and the packages of a 4-package node
	 * are xGMI too (HPE/AMD MI250X OAM: 8 Infinity Fabric links). The
	 * catalog's intra "nvswitch" for the 8-GPU mesh reads as "every
	 * pair joined directly", not as a switch. */
	if (pl->gpu.gen == GEN_CDNA || pl->gpu.gen == GEN_CDNA4)
		return "xGMI";
	/* Gaudi 2 and 3 join the node's 8 cards over their own on-chip
	 * Ethernet ports (catalog "scaleup": "24 x 100GbE RoCE on-chip",
	 * Intel Gaudi 2 white paper; 24 x 200GbE on Gaudi 3), named so that
	 * the longest link of a group across pools, "Gaudi RoCE + 8x200G NIC
	 * (bottleneck)", keeps to the TUI's 36 columns */
	if (pl->gpu.gen == GEN_GAUDI)
		return "Gaudi RoCE";
	/* NVIDIA: "NVSwitch" behind a switch, "NVLink" for the meshes and
	 * bridges without one (DGX-1 V100, quad GH200, HGX 4-GPU boards) */
	return hp_intra_label(pl->intra);
}

/* The scale-up name of a group on pools a and b: the worse kind's
 * (comm_fabric_min: PCIe worst); of one kind, the slower link's (the
 * pool whose catalog scale-up figure is lower, a on a tie), as
 * comm_fabric_min keeps the lower figure: an NVSwitch H100 pool beside an
 * MI300X one (448 GB/s against 450) is costed on, and named, "xGMI". */
static void pair_scaleup(const struct cluster *c, int a, int b, char *buf, size_t n)
{
	const struct pool *pa = &c->pools[a], *pb = &c->pools[b];
	int use_b = pb->intra > pa->intra ||
		    (pb->intra == pa->intra && pb->gpu.link_Bps < pa->gpu.link_Bps);
	snprintf(buf, n, "%s", perf_scaleup_label(use_b ? pb : pa));
}

void perf_link_names(const struct cluster *c, int a, int b, char *in, char *out, size_t n)
{
	if (b < 0)
		b = a;
	if (!cluster_same_site(c, a, b)) {
		/* both the NICs and the WAN bound it (build_link: the slower
		 * pool's NICs, each flow's share, then the WAN's cap), as the
		 * links line names them; "WAN 100G" alone hid the NICs of a
		 * hand-off that 8 GPUs made over 4 x 100G NICs (wan50) */
		char nic[40];
		perf_link_nic_text(c, a, b, nic, sizeof nic);
		snprintf(in, n, "%s + WAN %gG", nic, c->inter_pool_gbps);
		snprintf(out, n, "%s", in);
		return;
	}
	char nic[40], up[40];
	perf_link_nic_text(c, a, b, nic, sizeof nic);
	pair_scaleup(c, a, b, up, sizeof up);
	snprintf(in, n, "%s", up);
	snprintf(out, n, "%s + %s%s", up, nic, b != a ? " (bottleneck)" : "");
}

/* Communication group of `ranks` GPUs of pools a and b (b < 0: a alone),
 * `per_node` of them in each node, on the links the memo built once for
 * the pool pair. */
static void make_group(struct stage_ctx *x, int a, int b, int ranks, int per_node,
		       struct perf_group *pg)
{
	pg->a = a;
	pg->b = b < 0 ? a : b;
	pg->ranks = ranks < 1 ? 1 : ranks;
	pg->ranks_per_node = per_node < 1 ? 1 : (per_node > pg->ranks ? pg->ranks : per_node);
	pg->share = 0;
	pg->wan_flows = 0;
	/* a group on two pools leaves the node, whatever fits in one */
	if (pg->b != a && pg->ranks_per_node >= pg->ranks && pg->ranks > 1)
		pg->ranks_per_node = (pg->ranks + 1) / 2;
	/* a stage's groups are nearly all on its pool alone or with the DP
	 * group's other pool: those two links are kept in x */
	if (a != x->link_pool) {
		x->link_pool = a;
		x->link_own = x->link_other = NULL;
	}
	if (pg->b == a) {
		if (!x->link_own)
			x->link_own = perf_memo_link(x->memo, a, a);
		pg->link = x->link_own;
	} else if (pg->b == x->other_pool) {
		if (!x->link_other)
			x->link_other = perf_memo_link(x->memo, a, pg->b);
		pg->link = x->link_other;
	} else {
		pg->link = perf_memo_link(x->memo, pg->a, pg->b);
	}
}

/* NVLink2 links a V100 SXM2 has to the other GPUs of a group of r
 * consecutive ranks in its node, the fewest over the group's GPUs, when
 * the node is a mesh of point-to-point links rather than NVSwitch (0 when
 * the group has the GPU's whole scale-up bandwidth). A V100 SXM2 has six
 * links of 25 GB/s a direction (NVIDIA DGX-1 with Tesla V100 System
 * Architecture white paper, WP-08437-002); comm.c prices every in-node
 * group at all six. Without a switch, a group of fewer GPUs than the
 * mesh reaches only the links among its members:
 *  - 8 a node, the DGX-1 hybrid cube-mesh (also AWS p3.16xlarge and
 *    DLPerf's V100 servers): `nvidia-smi topo -m` of a DGX-1 V100
 *    (Microway, "nvidia-smi: Control Your GPUs", section 3.5; the NV1/NV2
 *    table in docs/volta.md) links GPU0-1 and GPU4-5 by one link,
 *    GPU2-3 and GPU6-7 by two, so Megatron's TP pairs of consecutive ranks
 *    get 1 (the slower pair gates the step); a quad 0-3 or 4-7 has 4 or 5
 *    links a GPU inside it, 4 the fewest;
 *  - 4 a node, the four-GPU SXM2 board with every pair on two links
 *    (Dell C4130 configuration K: 47.9 GB/s p2pBandwidthLatencyTest per
 *    pair, 143.7 over three peers; Dell EMC "Deep Learning Performance
 *    with V100" white paper): a pair gets 2.
 * A ring's bandwidth is bounded by the links a GPU has inside the group;
 * NCCL's search fills a pair's links with channels (the p2p figure is
 * 96% of them), so the bound is used as is. Simplified: other groups than
 * the tensor-parallel one (the strided DP groups) keep all six links; the
 * quad's bound (4) assumes NCCL's rings embed in it; other V100 boards of
 * 4 (AWS p3.8xlarge, a DGX-1 quad) are taken as the Dell board. */
#define V100_LINKS 6
/* The same holds on the four-GPU NVLink boards of later NVIDIA parts,
 * every pair joined by a third of the GPU's links: the HGX A100 4-GPU
 * (12 NVLink3 links a GPU, 4 a pair), the HGX H100 4-GPU and the quad
 * GH200 nodes (18 NVLink4 links a GPU, 6 a pair: 150 GB/s a direction of
 * the GPU's 450, "300 GB/s a pair" in FZJ's JUPITER Booster configuration,
 * Eviden XH3000, as on CSCS Alps' HPE EX254n blades). A TP pair there
 * reaches one third of the GPU's links; a group of all four, every
 * link. Returns the share of the GPU's scale-up bandwidth the group of
 * r reaches, 0 when it has all of it. Not on AMD parts: a pool of
 * MI250X packages (4 a node) joins GCDs by their own link counts, and the
 * xGMI full mesh of an MI300X/MI325X/MI350X/MI355X node of 8 (7 links a
 * GPU, g - 1 of them for a group of g) is priced in comm.c
 * (comm_fabric.mesh_links) for every in-node group, not the TP one
 * alone: adding it here would count it twice. */
/* The same as links: those the group of r reaches, of the *all a GPU
 * has (V100 6, A100 12 with 4 a pair, H100 and GH200 18 with 6 a pair);
 * 0 when the group has them all. The communication table's TP row names
 * them: "NVLink (1 of 6 links)". */
static int mesh_links_of(const struct pool *pl, int r, int *all)
{
	*all = 0;
	if (pl->intra != INTRA_NVLINK || perf_domain_gpus(pl) != pl->gpus_per_node ||
	    r < 2 || r >= pl->gpus_per_node)
		return 0;
	if (pl->gpu.gen == GEN_VOLTA) {
		*all = V100_LINKS;
		return pl->gpus_per_node == 8 ? (r == 2 ? 1 : r == 4 ? 4 : 0)
		       : pl->gpus_per_node == 4 && r == 2 ? 2 : 0;
	}
	if ((pl->gpu.gen == GEN_AMPERE || pl->gpu.gen == GEN_HOPPER) &&
	    pl->gpus_per_node == 4 && r == 2) {
		*all = pl->gpu.gen == GEN_AMPERE ? 12 : 18;
		return *all / 3;
	}
	return 0;
}

static double mesh_share(const struct pool *pl, int r)
{
	int all, links = mesh_links_of(pl, r, &all);
	return links > 0 && all > 0 ? (double)links / all : 0;
}

/* Time of one collective on group g (0 when nothing moves or the
 * combination is impossible); r, when given, gets the algorithm. */
static double coll(struct stage_ctx *x, const struct perf_group *g, enum comm_coll op,
		   double bytes, struct comm_result *r)
{
	struct comm_result tmp;
	if (!r)
		r = &tmp;
	if ((g->ranks <= 1 && op != COMM_SENDRECV) || bytes <= 0) {
		memset(r, 0, sizeof *r);
		return 0;
	}
	/* perf_memo_coll fills r whole on 0 */
	if (perf_memo_coll(x->memo, g, op, bytes, r) < 0) {
		memset(r, 0, sizeof *r);
		return 0;
	}
	return r->time_s;
}

/* coll on an in-node group that reaches `share` of the GPU's scale-up
 * links (mesh_share; 0: coll itself): the group's links with their
 * scale-up figures scaled by share, the channel count NCCL derives from
 * them included. Not memoised (rare: NVLink meshes without a switch). */
static double coll_mesh(struct stage_ctx *x, const struct perf_group *g, enum comm_coll op,
			double bytes, struct comm_result *r, double share)
{
	struct comm_result tmp;
	if (!r)
		r = &tmp;
	if (share <= 0 || share >= 1 || g->ranks > g->ranks_per_node)
		return coll(x, g, op, bytes, r);
	memset(r, 0, sizeof *r);
	if (g->ranks <= 1 || bytes <= 0)
		return 0;
	struct comm_group cg = g->link->base;
	cg.ranks = g->ranks;
	cg.ranks_per_node = g->ranks_per_node;
	cg.oversub = x->c->oversub;
	cg.fab.intra_Bps *= share;
	cg.fab.intra_topo_Bps *= share;
	if (comm_time(&cg, op, bytes, COMM_ALGO_AUTO, COMM_PROTO_AUTO, r, NULL) < 0) {
		memset(r, 0, sizeof *r);
		return 0;
	}
	r->algbw_Bps = r->busbw_Bps = 0;
	return r->time_s;
}

/* Note the collective in e->comm[d] when it is the dimension's most
 * expensive so far (e NULL: nothing noted, perf_int.h). The link name was
 * formatted once, with the links. */
static struct perf_comm *note_comm(struct estimate *e, enum perf_dim d, enum comm_coll op,
				   double bytes, double calls, const struct perf_group *pg,
				   const struct comm_result *r, double time_s, double exposed_s)
{
	if (!e)
		return NULL;
	struct perf_comm *pc = &e->comm[d];
	const struct perf_group *g = pg;
	if (g->ranks <= 1 && op != COMM_SENDRECV)
		return NULL;
	/* Keep the dimension's most expensive instance (the critical one). */
	if (pc->used && pc->time_s >= time_s)
		return NULL;
	memset(pc, 0, sizeof *pc);
	pc->used = 1;
	pc->coll = op;
	pc->bytes = bytes;
	pc->calls = calls;
	pc->group = g->ranks;
	pc->group_nodes = (g->ranks + g->ranks_per_node - 1) / g->ranks_per_node;
	memcpy(pc->link, g->ranks <= g->ranks_per_node ? pg->link->name_in : pg->link->name_out,
	       sizeof pc->link);
	/* a group inside a node of a full mesh (comm.c's mesh_links: the
	 * 8-GPU xGMI mesh, 7 links a GPU) reaches the g - 1 links among its
	 * g GPUs, as comm.c prices it: "xGMI (1 of 7 links)" on a pair */
	int mesh = pg->link->base.fab.mesh_links;
	if (g->ranks <= g->ranks_per_node && mesh > 0 && g->ranks >= 2 && g->ranks <= mesh) {
		size_t l = strnlen(pc->link, sizeof pc->link - 1);
		snprintf(pc->link + l, sizeof pc->link - l, " (%d of %d links)", g->ranks - 1,
			 mesh);
	}
	pc->algo = r->algo;
	pc->proto = r->proto;
	pc->time_s = time_s;
	pc->exposed_s = exposed_s;
	return pc;
}

/* Exposed time of communication C issued beside compute G in one pass:
 * overlapped, C hides behind G except its first chunk (1/chunks of it)
 * and whatever G cannot cover, and G slows by `slow` for as long as both
 * run; not overlapped, C is exposed in full. */
static double overlap_exposed(double C, double G, double chunks, double slow, int overlap)
{
	if (!overlap || C <= 0)
		return C;
	if (chunks < 1)
		chunks = 1;
	return perf_fmax(C / chunks, C - G) + slow * perf_fmin(C, G);
}

/* One forward unit (gather and scatter, or an all-reduce without
 * sequence parallelism) of an MoE layer's routed experts over the expert
 * TP group (plan_etp ranks, innermost in Megatron-Core's expert grid:
 * together in a node up to its size). Megatron's AlltoAll dispatcher
 * all-gathers the dispatched tokens over the expert TP group after the
 * all-to-all and reduce-scatters them before the combine
 * (token_dispatcher.py, MoEAlltoAllTokenDispatcher: token_permutation /
 * token_unpermutation at core_r0.10.0 = 7ee599a25c, the release of the
 * NeMo 24.12 container; dispatch_postprocess / combine_preprocess at
 * d98e8a64). What it gathers is what the all-to-all delivered: each of
 * the etp ranks' T / tp tokens x top_k routed copies (uniform routing,
 * or capacity-padded at factor 1), x hidden x the activation dtype;
 * top_k times the T x hidden unit perf_stage_tp charges a dense MLP at
 * etp = tp. These are plain NCCL calls on the compute stream
 * (gather_from_sequence_parallel_region), not Transformer Engine's
 * userbuffers GEMM overlap, which only TE's TP linears take
 * (--tp-comm-overlap): perf_stage_tp charges them in line.
 * With the flex dispatcher there is no such gather: Megatron-Core sends
 * the etp copies inside its all-to-all over the expert TP x EP group
 * (see ep_dispatch_time), which the EP overlap can hide. For it hetplan
 * keeps its earlier charge, one copy (T / tp x etp tokens) issued beside
 * the GEMMs like a dense unit (*in_line 0): a simplification, not
 * checked against a measured run. The in-line gather is Megatron-Core's
 * MoEAlltoAllTokenDispatcher: a row that has both dispatchers
 * (ep_dispatch_dedup) and runs alltoall. DeepSpeed's and torchtitan's
 * MoE layers (not written down) keep the earlier charge too. 0 at
 * etp 1. */
static int expert_gather_in_line(const struct stage_ctx *x)
{
	const struct plan *p = x->p;
	return (plan_moe_dispatch(p, x->c) == MOE_DISPATCH_ALLTOALL &&
		framework_get(p->framework)->ep_dispatch_dedup) ||
	       plan_moe_allgather(p);
}

/* The rows of T / tp tokens' hidden states the expert unit gathers on
 * each rank, per etp / tp: top_k copies in line under the alltoall
 * dispatcher, ep under the allgather one (below), else 1. */
static double expert_unit_copies(const struct stage_ctx *x)
{
	if (plan_moe_allgather(x->p))
		return x->p->ep;
	return expert_gather_in_line(x) ? x->m->moe.top_k : 1;
}

/* The allgather dispatcher's collectives of one MoE layer forward
 * (token_dispatcher.py @f1f03922, MoEAllGatherTokenDispatcher; the same
 * at d98e8a64 over its tp_ep_group), over the group of the expert TP x
 * EP ranks (Megatron-Core's tensor_and_expert_parallel group: etp
 * innermost, then EP; across nodes beyond one, on the DP peer's links
 * as perf_stage_ep's group). token_permutation all-gathers each rank's
 * T / tp tokens' top-k indices (int64) and probabilities (the logits'
 * dtype), then their hidden states: G = T x ep rows of hidden on every
 * rank at etp = tp, T x etp x ep / tp folded
 * (gather_from_sequence_parallel_region_to_moe); token_unpermutation
 * reduce-scatters the G rows back (reduce_scatter_to_sequence_
 * parallel_region_from_moe). Plain NCCL calls on the compute stream: in
 * line. The backward runs the hidden states' pair again (the gather's
 * gradient is a reduce-scatter, and back) and reduce-scatters the
 * probabilities' gradient; simplified: costed as the forward's four. 0
 * with one rank (etp x ep 1: the dispatcher then stays on the GPU). */
static double allgather_unit(struct stage_ctx *x)
{
	const struct plan *p = x->p;
	int n = plan_etp(p, x->tp) * p->ep, dom = perf_domain_gpus(x->pl);
	if (n <= 1)
		return 0;
	struct perf_group ge;
	make_group(x, x->rep->stages[x->index].pool, n <= dom ? -1 : x->other_pool, n,
		   n < dom ? n : dom, &ge);
	/* G: the group's tokens, T / tp on each of etp x ep ranks */
	double G = x->T * n / x->tp, eb = perf_act_elem_bytes(p), k = x->m->moe.top_k;
	double rows = G * x->m->hidden * eb;
	return coll(x, &ge, COMM_ALLGATHER, G * k * 8, NULL) +
	       coll(x, &ge, COMM_ALLGATHER, G * k * eb, NULL) +
	       coll(x, &ge, COMM_ALLGATHER, rows, NULL) +
	       coll(x, &ge, COMM_REDUCESCATTER, rows, NULL);
}

/* The unit's time, as above; *in_line: whether it runs in line
 * (expert_gather_in_line). */
static double tp_expert_unit(struct stage_ctx *x, int *in_line)
{
	const struct plan *p = x->p;
	int etp = plan_etp(p, x->tp), dom = perf_domain_gpus(x->pl);
	*in_line = expert_gather_in_line(x);
	if (plan_moe_allgather(p))
		return allgather_unit(x);
	if (etp <= 1)
		return 0;
	struct perf_group ge;
	make_group(x, x->rep->stages[x->index].pool, -1, etp, etp < dom ? etp : dom, &ge);
	double copies = expert_unit_copies(x);
	double bytes = x->T * copies * x->m->hidden * perf_act_elem_bytes(p) * etp / x->tp;
	return p->sp ? coll(x, &ge, COMM_ALLGATHER, bytes, NULL) +
			       coll(x, &ge, COMM_REDUCESCATTER, bytes, NULL)
		     : coll(x, &ge, COMM_ALLREDUCE, bytes, NULL);
}

/* Tensor parallelism, inside the node (or the NVLink domain): per
 * micro-batch. Under sequence parallelism each layer all-gathers before
 * the QKV and MLP-up GEMMs and reduce-scatters after the projection and
 * MLP-down GEMMs, forward and backward; without it, two all-reduces each
 * way. Megatron-Core's --tp-comm-overlap (Transformer Engine userbuffers,
 * SP only) splits each into tp chunks that run beside the GEMM. */
double perf_stage_tp(struct stage_ctx *x, struct estimate *e)
{
	if (!x->fw)
		perf_ctx_settings(x);
	const struct plan *p = x->p;
	const struct stage *st = &x->rep->stages[x->index];
	int tp = x->tp, layers = st->last_layer - st->first_layer + 1;
	if (tp <= 1 && !(x->moe_layers && plan_etp(p, tp) > 1) &&
	    !(x->moe_layers && plan_moe_allgather(p) && p->ep > 1))
		return 0;
	struct perf_group gt;
	struct comm_result cr;
	/* TP may span nodes (estimate allows it): then its ring leaves the
	 * NVLink domain and pays the NICs. */
	int dom = perf_domain_gpus(x->pl);
	make_group(x, st->pool, -1, tp, tp < dom ? tp : dom, &gt);
	/* the layer's output in the run's activation dtype (perf_act_elem_bytes).
	 * Simplified under fp8: Transformer Engine all-gathers the FP8
	 * normalised input of QKV and FC1 (1 B an element, layernorm_linear.py
	 * ln_out) while the reduce-scatters stay 16-bit; hetplan charges
	 * 2 B for both. */
	double bytes = x->T * x->m->hidden * perf_act_elem_bytes(p);
	double share = mesh_share(x->pl, tp);
	double one = p->sp ? coll_mesh(x, &gt, COMM_ALLGATHER, bytes, &cr, share) +
				     coll_mesh(x, &gt, COMM_REDUCESCATTER, bytes, NULL, share)
			   : coll_mesh(x, &gt, COMM_ALLREDUCE, bytes, &cr, share);
	/* Per pass: two units forward, two backward; full recompute runs
	 * the forward's again; op-level selective keeps the reduce-scatter
	 * outputs and redoes the gathers (about one unit). */
	double rc_units = p->recompute == RC_FULL ? 2.0 * plan_recompute_count(p, layers) / layers
			  : p->recompute == RC_SELECTIVE_OP ? 1 : 0;   /* recompute_layers: the share */
	int ov = x->tp_ov && p->sp;
	double sl = x->k->tp_overlap_slowdown;
	double cf = 2 * one * layers, cb = 2 * one * layers, cr_ = rc_units * one * layers;
	double per_layer = 4 + rc_units, all = one * per_layer * layers;
	double inline_ = 0;
	if (x->moe_layers) {
		/* MoE layers: the attention's unit on the TP group (under
		 * the userbuffers overlap), the routed experts' on the expert
		 * TP group (tp_expert_unit: under the alltoall dispatcher top_k
		 * copies in line, plain NCCL calls), and the shared experts'
		 * on the TP group (Megatron-Core's SharedExpertMLP runs on
		 * pg_collection.tp, gathering and scattering its own input and
		 * output). One expert unit forward, one backward, rc_units / 2
		 * recomputed. */
		int shared = x->m->moe.shared_experts > 0, in_line;
		double xu = tp_expert_unit(x, &in_line) * x->moe_layers;
		double u = one * (2 * layers - x->moe_layers + shared * x->moe_layers) +
			   (in_line ? 0 : xu);
		inline_ = in_line ? xu * (2 + rc_units / 2) : 0;
		cf = cb = u;
		cr_ = rc_units * u / 2;
		all = cf + cb + cr_ + inline_;
	}
	double gf = x->gemm_fwd;
	double t_tp = overlap_exposed(cf, gf, tp, sl, ov) + overlap_exposed(cb, 2 * gf, tp, sl, ov) +
		      overlap_exposed(cr_, gf * rc_units / 2, tp, sl, ov) + inline_;
	int ag = plan_moe_allgather(p);
	enum comm_coll op = p->sp || ag ? COMM_ALLGATHER : COMM_ALLREDUCE;
	int etp = plan_etp(p, tp), xg = ag ? etp * p->ep : etp;
	if (x->moe_layers && xg > tp) {
		/* Folded with the expert TP group the larger, or the
		 * allgather dispatcher's expert TP x EP group (at TP 1 the
		 * only one of more than a rank, which note_comm would skip):
		 * the row names it, its unit's bytes (the gathered hidden
		 * states) and its collectives, 1 unit forward, 1 backward and
		 * rc_units / 2 recomputed per MoE layer, 4 collectives a unit
		 * under the allgather dispatcher (allgather_unit); the times
		 * stay the stage's whole TP time. */
		double eb = bytes * expert_unit_copies(x) * etp / tp;
		make_group(x, st->pool, xg <= dom ? -1 : x->other_pool, xg, xg < dom ? xg : dom, &gt);
		coll(x, &gt, op, eb, &cr);
		note_comm(e, DIM_TP, op, eb,
			  (2 + rc_units / 2) * x->moe_layers * x->mb * (ag ? 4 : p->sp ? 2 : 1), &gt,
			  &cr, all * x->mb, t_tp * x->mb);
		return t_tp;
	}
	struct perf_comm *pc = note_comm(e, DIM_TP, op, bytes,
					 per_layer * layers * x->mb * (p->sp ? 2 : 1), &gt, &cr,
					 all * x->mb, t_tp * x->mb);
	int mesh_all, mesh = mesh_links_of(x->pl, tp, &mesh_all);
	if (pc && mesh > 0 && share > 0 && share < 1 && gt.ranks <= gt.ranks_per_node) {
		size_t l = strnlen(pc->link, sizeof pc->link - 1);
		snprintf(pc->link + l, sizeof pc->link - l, " (%d of %d links)", mesh, mesh_all);
	}
	return t_tp;
}

/* Context parallelism: Transformer Engine's ring attention with K/V
 * exchanged point to point (AttnFuncWithCPAndKVP2P, transformer_engine/
 * pytorch/attention.py; Megatron-Core's default cp_comm_type "p2p"). Per
 * layer the forward runs cp steps (the kernels are costed in
 * perf_compute.c's attn_core); at the start of step i each rank sends the
 * K/V it holds to the next rank of the ring and receives the previous
 * rank's, for step i+1, so the exchange runs beside step i's attention
 * block: cp-1 exchanges, step 0 working on the rank's own K/V and the last
 * step sending nothing. An exchange longer than its block leaves the rest
 * exposed. The backward sends K/V and the partial dK/dV together (twice
 * the bytes) beside each step, and the last step's dK/dV reaches its owner
 * after the loop, exposed. Neighbours sit in one NVLink domain when the
 * TP x CP ranks fit in it, else each exchange crosses the NICs (every GPU
 * of the node sends at once, one NIC each). Per micro-batch. Simplified:
 * the blocks are taken as equal (each is 1/cp of the work), and the SMs
 * NCCL's send/receive kernels take from attention are not charged. */
double perf_stage_cp(struct stage_ctx *x, struct estimate *e)
{
	const struct stage *st = &x->rep->stages[x->index];
	int cp = x->cp, tp = x->tp, layers = st->last_layer - st->first_layer + 1;
	if (cp <= 1 || layers <= 0)
		return 0;
	struct perf_group gc;
	struct comm_result cr;
	int dom = perf_domain_gpus(x->pl);
	make_group(x, st->pool, -1, 2, tp * cp <= dom ? 2 : 1, &gc);
	/* K and V of the rank's s/cp tokens in the activation dtype
	 * (perf_act_elem_bytes); K/V heads fewer than the TP ranks are
	 * replicated, one head per rank. */
	double kvw = perf_fmax(model_kv_dim(x->m) / tp, (double)x->m->head_dim);
	double bytes = 2 * x->T * kvw * perf_act_elem_bytes(x->p);
	double xf = coll(x, &gc, COMM_SENDRECV, bytes, &cr);
	double xb = coll(x, &gc, COMM_SENDRECV, 2 * bytes, NULL);
	double blk_f = x->attn_fwd / layers / cp;
	double blk_b = x->attn_bwd_ratio * blk_f;
	double exp_f = (cp - 1) * perf_fmax(0, xf - blk_f);
	double exp_b = (cp - 1) * perf_fmax(0, xb - blk_b) + xf;
	double n_f = x->ckpt ? 2 : 1;
	double t_cp = layers * (n_f * exp_f + exp_b);
	note_comm(e, DIM_CP, COMM_SENDRECV, bytes, (n_f * (cp - 1) + cp) * layers * x->mb,
		  &gc, &cr, layers * (n_f * (cp - 1) * xf + (cp - 1) * xb + xf) * x->mb, t_cp * x->mb);
	return t_cp;
}

/* Exposed time of one MoE layer's all-to-alls per micro-batch under
 * Megatron-Core's EP overlap (framework_ep_overlap_on), one all-to-all
 * taking a2a seconds. The combined 1F1B schedule runs the forward of one
 * micro-batch beside the backward of another, layer by layer, on two CUDA
 * streams (Megatron-LM @d98e8a64,
 * megatron/core/models/common/model_chunk_schedule_plan.py,
 * TransformerLayerSchedulePlan.run):
 *   comm: combine bwd      | dispatch fwd, dispatch bwd    | combine fwd
 *   comp: pre-dispatch fwd | expert bwd, expert wgrad, fwd | pre-dispatch bwd
 * so each phase costs the longer of its two streams, and an all-to-all
 * shows only where it outlasts the compute beside it. Pre-dispatch is the
 * layer less its routed experts (attention, router, permutation, shared
 * experts); the experts' backward is twice their forward (data and
 * weight gradients; --delay-wgrad-compute moves the weight gradient into
 * this phase). Passes with no partner run their two all-to-alls in line:
 * without pipelining the first micro-batch's forward and the last's
 * backward (combined_1f1b.py, combined_1f1b_schedule_for_no_pipelining);
 * with virtual stages the warm-up's forwards and the cool-down's
 * backwards, 2 (pp - rank - 1) + (v - 1) pp + 1 chunk passes of the
 * rank's mb x v (schedules.py, get_pp_rank_microbatches: one more than
 * without the overlap), at most all of them. Simplified: the SMs the
 * dispatcher's kernels take from the compute beside them are not charged,
 * nor the one more micro-batch of activations the schedule keeps. */
static double ep_overlap_exposed(const struct stage_ctx *x, double a2a)
{
	double total = x->mb * x->v;
	double alone = x->pp > 1 ? 2.0 * (x->pp - x->index - 1) + (x->v - 1) * x->pp + 1 : 1;
	if (total <= 0 || alone >= total)
		return 4 * a2a;
	double ef = x->moe_expert_fwd;
	double pre_f = fmax(0, x->moe_fwd - ef), pre_b = fmax(0, x->moe_bwd - 2 * ef);
	double paired = fmax(0, a2a - pre_f) + fmax(0, 2 * a2a - 3 * ef) + fmax(0, a2a - pre_b);
	return (alone * 4 * a2a + (total - alone) * paired) / total;
}

/* Of the token copies an NCCL all-to-all sends across nodes, the share a
 * DeepEP-class dispatch sends (plan_moe_dispatch flex), for an
 * EP group over `nodes` nodes holding e's routed experts evenly. The
 * all-to-all sends each token once per routed expert on another node:
 * top_k (nodes - 1) / nodes copies on average; DeepEP sends it once per
 * other node holding any of its experts: (nodes - 1) (1 - P(a node holds
 * none of them)), where with top_k distinct experts drawn uniformly that
 * probability is C(E - E/nodes, top_k) / C(E, top_k). Uniform routing is
 * what the measured runs force (Megatron-Bridge's performance pages
 * force-balance the experts' tokens). Not modelled: group-limited routing
 * (DeepSeek-V3's tokens reach at most 4 of 8 groups; it lowers the count
 * further only over more than 4 nodes). 1 when nothing is saved. */
static double ep_dedup_share(const struct moe_spec *e, int nodes)
{
	double E = e->experts, k = e->top_k;
	if (nodes <= 1 || k <= 1 || E < nodes || k > E)
		return 1;
	double other = E - E / nodes, none = 1;
	for (int i = 0; i < e->top_k; i++)
		none *= fmax(0, other - i) / (E - i);
	double sent = (nodes - 1) * (1 - none), copies = k * (nodes - 1) / nodes;
	return fmin(1, sent / copies);
}

/* One dispatch (or combine) of `bytes` per rank over EP group ge of x's
 * stage, by the plan's dispatcher (plan_moe_dispatch: its moe_dispatch
 * key, the framework row's default where absent, alltoall where a piece
 * of the plan cannot run flex). NCCL's all-to-all:
 * coll. The flex dispatcher (DeepEP-class) over more than
 * one node: its network leg carries ep_dedup_share of the all-to-all's
 * copies, and its NVLink leg hands every copy to its GPU inside the
 * destination node; the kernels run the two legs at once (DeepEP
 * "normal" kernels forward RDMA to NVLink in chunks), so the longer
 * counts. Simplified: each leg is costed as an all-to-all of its bytes
 * (the network one over the whole group, the NVLink one over a node's
 * ranks), with comm.c's all-to-all efficiency for DeepEP's.
 * Simplified too, at expert TP above 1: Megatron-Core's flex dispatcher
 * sends over one group of all expert-TP x EP ranks, etp x top_k copies
 * of each token and no gather over the expert TP group afterwards
 * (token_dispatcher.py @d98e8a64, MoEFlexTokenDispatcher: tp_ep_group,
 * router_topk = tp_size x moe_router_topk); hetplan keeps the alltoall
 * dispatcher's picture for both, this dispatch over the EP group of ep
 * ranks and the expert-TP gather after it (tp_expert_unit). The etp
 * copies go to ranks of one node (the expert TP group is innermost), so
 * the network leg is about the same and the NVLink leg is what the
 * picture moves; not checked against a measured run (docs/moe.md). */
static double ep_dispatch_time(struct stage_ctx *x, const struct perf_group *ge, double bytes,
			       struct comm_result *cr)
{
	/* A framework whose kernels send a token once per destination rank
	 * (framework.h ep_rank_dedup: DeepEP's normal kernels, a token's row
	 * goes to each rank in is_token_in_rank once, with its top-k indices
	 * and weights, and the combine returns one reduced row per rank):
	 * ep_dedup_share over the group's ranks, each rank holding E / ep
	 * experts, of the per-expert copies. Qwen3-30B-A3B at EP 8: 4.67 of
	 * 7 remote copies a token, 0.667. Over nodes it is the NVLink leg's
	 * share; the network leg keeps the per-node share below. */
	double nvl_bytes = bytes;
	int flex = plan_moe_dispatch(x->p, x->c) == MOE_DISPATCH_FLEX;
	if (flex && framework_get(x->p->framework)->ep_rank_dedup)
		nvl_bytes *= ep_dedup_share(&x->m->moe, ge->ranks);
	double one = coll(x, ge, COMM_ALLTOALL, nvl_bytes, cr);
	if (!flex || ge->ranks <= ge->ranks_per_node)
		return one;
	int nodes = (ge->ranks + ge->ranks_per_node - 1) / ge->ranks_per_node;
	double share = ep_dedup_share(&x->m->moe, nodes);
	if (share >= 1)
		return one;
	struct perf_group gn;
	make_group(x, ge->a, -1, ge->ranks_per_node, ge->ranks_per_node, &gn);
	double net = coll(x, ge, COMM_ALLTOALL, bytes * share, cr);
	double nvl = coll(x, &gn, COMM_ALLTOALL, nvl_bytes, NULL);
	return fmax(net, nvl);
}

/* The experts' rank layout on x's stage: *ep_per_node, the ranks of an
 * EP group in one node (or NVLink domain), and *edp_per_node, those of an
 * expert data-parallel group (before make_group clamps them to 1..ranks).
 * Folded (plan_ep_folded): Megatron-Core's expert grid, ranks ordered
 * expert TP, EP, expert DP, PP from the innermost (parallel_state.py
 * @d98e8a64, initialize_model_parallel: expert_decoder_rank_generator,
 * order "tp-cp-ep-dp-pp" with cp 1 and tp = etp), so an EP group strides
 * etp ranks (EP 32 at etp 1 on 8-GPU nodes: 4 nodes) and an expert-DP
 * group etp x ep. Unfolded plans (etp = tp) take the same grid: the
 * expert grid is built with cp 1 whatever the attention's CP, so an EP
 * group strides tp ranks, not tp x cp (TP 1, CP 2, EP 8 on 8-GPU nodes:
 * one node), and the expert-DP group strides tp x ep, so with TP 2, EP 8
 * on 8-GPU nodes each of its ranks sits on a different node. Both at
 * least 1. */
void perf_expert_layout(const struct stage_ctx *x, int *ep_per_node, int *edp_per_node)
{
	int dom = perf_domain_gpus(x->pl);
	int etp = plan_etp(x->p, x->tp);
	*ep_per_node = dom / etp;
	*edp_per_node = dom / (etp * x->p->ep);
	if (*ep_per_node < 1)
		*ep_per_node = 1;
	if (*edp_per_node < 1)
		*edp_per_node = 1;
}

/* The expert data-parallel degree of x's stage: tp x cp x dp / (etp x
 * ep), the ranks that hold the same expert shard (Megatron-Core's
 * expert_data_parallel_size = world / (etp x ep x pp)); with the default
 * etp, dp x cp / ep. At least 1. */
int perf_expert_dp(const struct stage_ctx *x)
{
	long d = (long)x->dp * x->cp;
	long de = plan_ep_folded(x->p, x->tp)
			  ? (long)x->tp * d / ((long)plan_etp(x->p, x->tp) * x->p->ep)
			  : d / x->p->ep;
	return de > 0 ? (int)de : 1;
}

/* Whether an MoE layer's dispatch and combine run again before its
 * backward: the layer checkpointed whole (x->ckpt), or recompute_modules
 * moe, whose checkpoint wraps MoELayer.forward with its dispatch and
 * combine (Megatron-LM @d98e8a64 moe/moe_layer.py L701-718;
 * docs/recompute.md). */
static int ep_rerun(const struct stage_ctx *x)
{
	return x->ckpt || (plan_recompute_modules(x->p) & RCM_MOE) != 0;
}

/* The stage's EP time per micro-batch from one dispatch's time `one`:
 * its passes exposed in full, or as the EP overlap exposes them. With the
 * MoE layer recomputed (op-level selective), the recompute's dispatch and
 * combine are charged in line: the overlap pairs a forward with a
 * backward, not a recompute (simplified: Megatron-Core may hide part of
 * it too). */
static double ep_time_of(const struct stage_ctx *x, double one)
{
	int rerun = ep_rerun(x);
	double n = rerun ? 6 : 4;
	int ov = plan_ep_overlap_on(x->p, x->pp);
	return ov ? (ep_overlap_exposed(x, one) + (rerun ? 2 * one : 0)) * x->moe_layers
		  : one * n * x->moe_layers;
}

/* Expert parallelism: dispatch and combine all-to-alls, forward and
 * backward (and the forward's again under full recompute), exposed in
 * full unless the plan's framework overlaps them (ep_overlap_exposed).
 * Per micro-batch. */
double perf_stage_ep(struct stage_ctx *x, struct estimate *e)
{
	const struct plan *p = x->p;
	const struct stage *st = &x->rep->stages[x->index];
	x->ep_one = 0;
	/* the allgather dispatcher sends no all-to-all: its collectives are
	 * the expert unit's (perf_stage_tp, allgather_unit) */
	if (p->ep <= 1 || !x->moe_layers || plan_moe_allgather(p))
		return 0;
	struct perf_group ge;
	struct comm_result cr;
	int per_node, edp_per_node;
	perf_expert_layout(x, &per_node, &edp_per_node);
	/* inside the node when it fits, else on the DP group's pools
	 * (perf_dp_peer; a simplification, perf_int.h) */
	make_group(x, st->pool, p->ep <= per_node ? -1 : x->other_pool, p->ep, per_node, &ge);
	/* each rank dispatches its own T / tp tokens (sequence parallel),
	 * top_k copies of hidden elements each, at every etp */
	double bytes = x->T * x->m->moe.top_k * x->m->hidden * perf_act_elem_bytes(p) / x->tp;
	double one = ep_dispatch_time(x, &ge, bytes, &cr);
	x->ep_one = one;
	double n = ep_rerun(x) ? 6 : 4, t_ep = ep_time_of(x, one);
	note_comm(e, DIM_EP, COMM_ALLTOALL, bytes, n * x->moe_layers * x->mb, &ge, &cr,
		  one * n * x->moe_layers * x->mb, t_ep * x->mb);
	return t_ep;
}

/* A stage core's dispatch time (ep_one) is a function of the core key:
 * ep_dispatch_time reads the stage's pool and its DP peer (other_pool),
 * the EP and expert-TP degrees, the TP degree, the plan's precision,
 * micro-batch size, CP, dispatcher and framework, the sequence and the
 * model, all in struct stage_key, and not the DP degree (make_group's
 * share is 0), the micro-batches, the rank nor the depth. A core hit
 * under the EP overlap ran all of perf_stage_ep again, the dispatch's
 * group and collective lookup included (issue 13, twenty-fifth round:
 * 282K calls, 0.2G instructions of the Mixtral 8x22B deadline search). */
double perf_stage_ep_again(struct stage_ctx *x)
{
	if (x->p->ep <= 1 || !x->moe_layers || plan_moe_allgather(x->p))
		return 0;
	return ep_time_of(x, x->ep_one);
}

/* Whether the hand-off between stages i and i + 1 of x's replica leaves a
 * node (or NVLink domain). Ranks are laid out stage by stage, each stage's
 * tp x cp x dp GPUs together: DeepSpeed's topology orders ranks (pipe,
 * data, model) and Megatron-LM keeps the pipeline rank slowest too. A run
 * of consecutive stages on one pool is taken to start on a node boundary
 * (exact for one replica group; an approximation when groups share a
 * pool's nodes). Stages on different pools, and stages of a node or more,
 * always cross. Smaller stages that tile the node evenly cross where the
 * boundary falls on a node edge (TP 1 x PP 16 on 4-GPU nodes: 3|4, 7|8,
 * 11|12). Stages that straddle nodes (16-GPU stages on a 72-GPU NVL72
 * domain) keep the in-node hand-off: where such a layout places its ranks
 * (a rack of 72 used as 64, say) is not known. 0 when i or i + 1 is not
 * a stage. */
int perf_pp_boundary_crosses(const struct stage_ctx *x, int i)
{
	const struct replica *rep = x->rep;
	if (i < 0 || i + 1 >= rep->n_stages)
		return 0;
	int pool = rep->stages[i].pool;
	if (rep->stages[i + 1].pool != pool)
		return 1;
	long dom = perf_domain_gpus(&x->c->pools[pool]);
	long per = (long)x->cp * x->dp;
	long g = rep->stages[i].tp * per;
	if (g >= dom || rep->stages[i + 1].tp * per >= dom)
		return 1;
	if (dom % g != 0)
		return 0;
	long off = g;
	for (int k = i; k > 0 && rep->stages[k - 1].pool == pool; k--)
		off += rep->stages[k - 1].tp * per;
	return off % dom == 0;
}

/* Bytes of DeepSpeed's PartitionedTensor meta tensor (to_meta(),
 * deepspeed/runtime/utils.py @29bee73f0): int64 entries [ndim, the dims,
 * parts, the t + 1 partition offsets], for the 3-D activation
 * [s, b, h]: 1 + 3 + 1 + (t + 1). Sent on its own, blocking, before each
 * slice: its cost is the send's latency. */
static double pp_meta_bytes(int tp)
{
	return 8.0 * (1 + 3 + 1 + (tp + 1));
}

/* One micro-batch's transfers with neighbour stage j under DeepSpeed's
 * partitioned pipeline (framework.h, pp_partitioned; TP above 1). The
 * PipelineEngine (deepspeed/runtime/pipe/engine.py @29bee73f0, October
 * 2021; the same at DeepSpeed @38327e07f, where pipeline.pipe_partitioned
 * and grad_partitioned default to true) keeps each TP rank's 1/t of the
 * stage output (PartitionedTensor) and sends it and its meta tensor as
 * two blocking sends (_exec_send_activations); the gradient goes back the
 * same way (_exec_send_grads). Each rank sends its own slice over its own
 * share of the link, so the full tensor crosses once. PartitionedTensor.
 * full() all-gathers it over the TP group: on the receiving stage before
 * its forward (_exec_forward_pass), and on the sending stage twice before
 * its backward, to restore its output for autograd and to rebuild the
 * received gradient (_exec_backward_pass). Megatron-DeepSpeed's
 * GPTModelPipe keeps the attention mask out of the pipe (pretrain_gpt.py
 * precomputes args.attn_mask, microsoft/Megatron-DeepSpeed 8a132ced, June
 * 2021, and Sailor's copy): only the hidden states cross. Not counted:
 * the meta tensor's host copies in from_meta (a sync each), and the copy
 * of each gathered part out of NCCL's flat buffer. `bytes` is what one
 * rank holds; gp the pair, gt the TP group. Returns seconds with
 * neighbour j, the four one-way transfers in series (pp_blocking). */
static double pp_partitioned_time(struct stage_ctx *x, const struct perf_group *gp,
				  const struct perf_group *gt, double bytes, int j,
				  struct comm_result *cr)
{
	double slice = bytes / x->tp;
	double one_way = coll(x, gp, COMM_SENDRECV, pp_meta_bytes(x->tp), NULL) +
			 coll(x, gp, COMM_SENDRECV, slice, cr);
	double gather = coll(x, gt, COMM_ALLGATHER, bytes, NULL);
	return 2 * one_way + (j < x->index ? 1 : 2) * gather;
}

/* The GPUs of a node whose pipeline hand-offs leave it at once, for the
 * boundary between x's stage and its neighbour j: every GPU of a stage
 * sends (each TP rank its copy or slice, each CP and DP rank its own
 * micro-batch) to its peer of the neighbour stage, and the stage's tp x
 * cp x dp GPUs sit together (see perf_pp_boundary_crosses), so as many
 * as the stage has on the node, at most the node (or NVLink domain),
 * cross together. The node's other stages hand off inside it or, under
 * 1F1B's lock-step (one boundary's send after a forward, the other's
 * after a backward), not at the same time. The receiving side is taken
 * to have as many GPUs as the sending one (frameworks pipeline equal TP
 * widths; the stage memo keys a stage by its own width, not its
 * neighbour's), and the count is the larger of the two ends', each at
 * most its node: the pair's fabric is the slower node's (build_link),
 * divided among that many flows (simplified: the two nodes' own totals
 * and counts are not paired end by end). With rail-aligned NICs that is each flow's NIC: 8 GPUs
 * crossing on 8 NICs give one NIC a flow, 4 crossing on one NIC a
 * quarter of it. */
static int pp_share(const struct stage_ctx *x, int j)
{
	long g = (long)x->rep->stages[x->index].tp * x->cp * x->dp;
	long di = perf_domain_gpus(x->pl);
	long dj = perf_domain_gpus(&x->c->pools[x->rep->stages[j].pool]);
	long ni = g < di ? g : di, nj = g < dj ? g : dj;
	long n = ni > nj ? ni : nj;
	return n < 1 ? 1 : (int)n;
}

/* Pipeline p2p: each stage waits for its neighbours' activations and
 * gradients. Per micro-batch, with each neighbour: one exchange (a send
 * paired with a receive, both directions of the link at once) per
 * chunk. The framework decides three things (src/framework.c):
 *  - scatter/gather (Megatron-LM 2021-22): an output replicated on the
 *    t TP ranks (no sequence parallelism) crosses as t slices of 1/t,
 *    one per rank's link, and is all-gathered inside the TP group on
 *    arrival;
 *  - blocking transfers (DeepSpeed's PipelineEngine): the send and the
 *    receive are separate blocking calls, so each exchange costs two
 *    one-way transfers in series;
 *  - partitioned transfers (DeepSpeed, pp_partitioned_time): slices with
 *    meta sends, and three all-gathers per boundary. */
double perf_stage_pp(struct stage_ctx *x, struct estimate *e)
{
	if (!x->fw)
		perf_ctx_settings(x);
	const struct plan *p = x->p;
	const struct stage *st = &x->rep->stages[x->index];
	const struct framework_info *fw = x->fw;
	double t_pp = 0;
	for (int nb = -1; nb <= 1; nb += 2) {
		int j = x->index + nb;
		if (j < 0 || j >= x->pp)
			continue;
		struct perf_group gp, gt;
		struct comm_result cr;
		int dom = perf_domain_gpus(x->pl);
		/* perf_pp_boundary_crosses(x, j) before, (x, index) after */
		int same_node = !(nb < 0 ? x->cross_prev : x->cross_next);
		make_group(x, st->pool, x->rep->stages[j].pool, 2, same_node ? 2 : 1, &gp);
		if (!same_node)
			gp.share = pp_share(x, j);
		/* every replica of the group hands off at once (1F1B's lock
		 * step), each of the stage's tp x cp ranks its own flow: across
		 * sites they share the WAN link (other groups' hand-offs over
		 * the same WAN are not counted: a lower bound) */
		gp.wan_flows = x->tp * x->cp * (x->rep->count > 0 ? x->rep->count : 1);
		double bytes = x->T * x->m->hidden * perf_act_elem_bytes(p) / (p->sp ? x->tp : 1);
		double one, sent = bytes;
		/* DeepSpeed partitions a TP-replicated output; under sequence
		 * parallelism each rank holds its own 1/t shard already, and a
		 * PartitionedTensor of it would mix shards: the shard crosses
		 * whole (Megatron-DeepSpeed recipes turn partitioning off with
		 * sequence parallelism). */
		int part = fw->pp_partitioned && !p->sp && x->tp > 1;
		int scatter = !part && fw->pp_scatter_gather && !p->sp && x->tp > 1;
		if (part || scatter)
			make_group(x, st->pool, -1, x->tp, x->tp < dom ? x->tp : dom, &gt);
		if (part) {
			one = pp_partitioned_time(x, &gp, &gt, bytes, j, &cr);
			sent = bytes / x->tp;
		} else if (scatter) {
			sent = bytes / x->tp;
			one = coll(x, &gp, COMM_SENDRECV, sent, &cr) +
			      coll(x, &gt, COMM_ALLGATHER, bytes, NULL);
		} else {
			one = coll(x, &gp, COMM_SENDRECV, bytes, &cr);
		}
		if (fw->pp_blocking && !part)
			one *= 2;
		t_pp += x->v * one;
		note_comm(e, DIM_PP, COMM_SENDRECV, sent, 2 * x->v * x->mb, &gp, &cr,
			  2 * x->v * one * x->mb, x->v * one * x->mb);
	}
	return t_pp;
}

/* Data-parallel synchronisation after the pipeline drains, per step.
 * ZeRO-0: all-reduce of the gradients; ZeRO-1/2: reduce-scatter of the
 * gradients and all-gather of the updated parameters. An overlapped
 * gradient reduce (--overlap-grad-reduce, DeepSpeed overlap_comm, FSDP)
 * runs bucket by bucket beside the last micro-batch's backward, the last
 * bucket exposed; an overlapped parameter gather (--overlap-param-gather)
 * runs beside the next step's first forward. Buckets: Megatron-Core's
 * default max(40M, 1M x dp) parameters (megatron/core/distributed/
 * distributed_data_parallel.py). ZeRO-3 gathers each layer's weights
 * before its forward and backward and reduce-scatters its gradients;
 * prefetch (param_overlap) hides them behind the previous layer. */
/* Collectives per ZeRO-3 pass over the stage's layers. PyTorch FSDP (and
 * torchtitan's FSDP2, Megatron-Core's FSDP) gathers a transformer block's
 * flat parameter in one call. DeepSpeed's ZeRO-3 gathers module by module,
 * one call per parameter tensor of a layer (deepspeed/runtime/zero/
 * partition_parameters.py, 2021-22: all_gather per param, coalesced only
 * in later releases): the projection weights (QKV, output, the MLP's
 * first and, gated, its second input projection, and its output), their
 * biases, and the two norms' weights (and biases under LayerNorm). */
/* DeepSpeed ZeRO-3 prefetches at most stage3_prefetch_bucket_size
 * parameter elements ahead of use: 5e7 by default ("Maximum number of
 * parameter elements to fetch ahead of use", deepspeed/runtime/zero/
 * config.py). Range: any user setting; hetplan plans with the default. */
#define DS_PREFETCH_ELEMS 5e7

/* DeepSpeed ZeRO-3 releases a module's gathered parameters after its
 * forward unless the module runs again within stage3_max_reuse_distance
 * parameter elements: 1e9 by default (deepspeed/runtime/zero/constants.py,
 * ZERO_OPTIMIZATION_MAX_REUSE_DISTANCE_DEFAULT; _keep_for_later() in
 * stage3.py, v0.3.13). Range: any user setting; hetplan plans with the
 * default. */
#define DS_MAX_REUSE_ELEMS 1e9

/* Share of a layer's weights that DeepSpeed ZeRO-3 gathers a third time
 * under full recomputation. Its hooks fetch a module's parameters before
 * every forward and release them after (stage3.py,
 * pre_sub_module_forward_function / post_sub_module_forward_function), and
 * fetch again before the module's backward (pre_sub_module_backward_
 * function). A checkpointed layer's recomputed forward fires the forward
 * hooks again, so between the recomputation and the backward a module is
 * kept only when the elements used in between (the later modules' forward
 * and backward: twice their weights, _distance_in_numel counts each use)
 * stay under DS_MAX_REUSE_ELEMS. The modules in forward order: QKV, output
 * projection, MLP input (both halves when gated), MLP output; norms and
 * biases are small and ride with them. PyTorch FSDP skips its post-forward
 * reshard while in backward, so it gathers twice. */
static double ds_recompute_regather(const struct stage_ctx *x)
{
	const struct plan *p = x->p;
	const struct model_spec *m = x->m;
	if (!x->fw->ds_engine || p->recompute != RC_FULL)
		return 0;
	double h = m->hidden, hd = m->head_dim > 0 ? m->head_dim : h / perf_fmax(1, m->heads);
	double kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double tp = x->tp > 0 ? x->tp : 1;
	double mod[4] = { h * (h + 2 * kv * hd) / tp, h * h / tp,
			  h * m->ffn * (m->gated_mlp ? 2 : 1) / tp, m->ffn * h / tp };
	double total = 0, again = 0, later = 0;
	for (int i = 3; i >= 0; i--) {
		if (2 * later >= DS_MAX_REUSE_ELEMS)
			again += mod[i];
		later += mod[i];
		total += mod[i];
	}
	return total > 0 ? again / total : 0;
}

/* DeepSpeed's ZeRO-3 of 2021-22 gathers into, and reduce-scatters from, a
 * list of one tensor per rank (partition_parameters.py, _allgather_param
 * and _reduce_scatter_gradient, v0.3.13: world_size narrowed views).
 * PyTorch's NCCL process group then runs the collective on a flat buffer
 * and copies each of the n parts out (all_gather) or in (reduce_scatter)
 * with one copy_ each on the NCCL stream (ProcessGroupNCCL.cpp, allgather:
 * "Copy the flattened output tensors to the outputs"), before the next
 * call can start: n small kernels, each costing the launch gap
 * kernel_gap_s (calibration), plus the call's bytes read and written once
 * more through HBM. At a thousand ranks that is milliseconds a call.
 * Later releases gather into one flat tensor (_all_gather_base); hetplan's
 * deepspeed framework follows the 2021-22 code, as zero3_calls does. */
static double ds_list_copies(const struct stage_ctx *x, int ranks, double bytes)
{
	if (!x->fw->ds_engine || ranks <= 1)
		return 0;
	double bw = x->g->hbm_Bps * x->k->gen[x->g->gen].hbm;
	return ranks * x->k->kernel_gap_s + (bw > 0 ? 2 * bytes / bw : 0);
}

static double zero3_calls(const struct stage_ctx *x, int layers)
{
	if (!x->fw->ds_engine)
		return perf_fmax(1, layers);
	const struct model_spec *m = x->m;
	int w = 4 + (m->gated_mlp ? 1 : 0);
	int per = w + (m->bias ? w : 0) + 2 * (m->norm == NORM_LAYER ? 2 : 1);
	return perf_fmax(1, (double)layers * per);
}

/* Tied input and output embeddings on a pipeline of two or more stages:
 * the first stage holds the embedding, the last a copy of it for the output
 * layer, and after the backward the two copies' gradients are summed over
 * a group of two GPUs (the same TP and DP rank on the first and the last
 * stage), every TP and DP rank at once, before the optimizer step: nothing
 * to hide it behind. Megatron-LM: _allreduce_word_embedding_grads
 * (finalize_model_grads, in the gradients' main dtype); DeepSpeed's
 * PipelineEngine: ReduceTiedGrads after the last backward, in the
 * gradients' dtype (deepspeed/runtime/pipe/schedule.py, TrainSchedule).
 * Returns the exposed seconds per step for the first and the last stage. */
static double tied_embedding_sync(struct stage_ctx *x, struct estimate *e, double gb)
{
	if (!x->m->tied_embeddings || x->pp < 2 || (!x->first && !x->last))
		return 0;
	int me = x->rep->stages[x->index].pool;
	int peer = x->rep->stages[x->first ? x->pp - 1 : 0].pool;
	if (x->fw->ds_engine)
		gb = 2;
	/* The two ends share a node only when the whole pipeline does. */
	int same_node = me == peer && x->pp * x->tp * x->cp <= perf_domain_gpus(x->pl);
	struct perf_group g;
	struct comm_result cr;
	make_group(x, me, peer, 2, same_node ? 2 : 1, &g);
	double bytes = x->pc->embedding / x->tp * gb;
	double t = coll(x, &g, COMM_ALLREDUCE, bytes, &cr);
	note_comm(e, DIM_PP, COMM_ALLREDUCE, bytes, 1, &g, &cr, t, t);
	return t;
}

/* A DDP that copies its buckets (framework row ddp_copy_passes: apex's
 * flatten into the bucket, the averaging mul_ and the copy back into each
 * .grad, NVIDIA/apex apex/parallel/distributed.py @47da14a0,
 * allreduce_bucket) moves every gradient byte through HBM that many
 * times more, read and written, on the GPU whose backward it interrupts
 * (the flatten runs on the compute stream, the other two beside it on
 * the bucket stream, sharing its HBM). Simplified: all of it charged as
 * exposed, none hidden behind the backward's GEMMs. 0 with one rank. */
static double ddp_bucket_copies(const struct stage_ctx *x, double bytes, int ranks)
{
	int passes = x->fw->ddp_copy_passes;
	/* DeepSpeed at ZeRO 0 has no ZeRO optimizer and its contiguous
	 * buffers: the engine reduces param.grad itself, once the backward
	 * is done, with the same three passes on the compute stream
	 * (microsoft/DeepSpeed runtime/engine.py @38327e07f,
	 * buffered_allreduce_fallback -> allreduce_no_retain ->
	 * allreduce_and_copy, L2491-2521: allreduce_bucket flattens the
	 * bucket (self.flatten), scales it in place (mul_ by 1 / DP) and
	 * all-reduces it, then copy_ writes it back into each gradient;
	 * v0.3.13's engine.py does the same with div_): the row's
	 * zero0_copy_passes. Its ddp_copy_passes is ZeRO 1-2's: the ZeRO
	 * optimizer's copy of each gradient into its contiguous ipg bucket
	 * and the bucket's div_ by the DP size (framework.c counts them). */
	if (x->p->zero == 0 && x->fw->zero0_copy_passes > 0)
		passes = x->fw->zero0_copy_passes;
	double bw = x->g->hbm_Bps * x->k->gen[x->g->gen].hbm;
	if (ranks <= 1 || passes <= 0 || bw <= 0)
		return 0;
	return passes * 2 * bytes / bw;
}

/* ZeRO 0-2 (or plain DP): the gradient reduce and, sharded, the
 * parameter gather, as (reduce, gather) seconds; *dop and *dbytes the
 * collective and bytes noted. InternLM's Hybrid Zero (row zero1_bcast)
 * at ZeRO-1: reduce_tensor with dst_rank None all-reduces each gradient
 * bucket over the DP group in the parameters' dtype, and broadcast_params
 * issues one dist.broadcast per owner of its updated 16-bit shard over the
 * ZeRO-1 group (hybrid_zero_optim.py @01e7fd61, _reduce_and_copy,
 * broadcast_params); zero1=-1 makes that group the whole DP group. */
/* The parameter gather of dp_zero012, for the communication table (the
 * DP group's own call; the expert group's is in the time alone). */
struct dp_gather {
	enum comm_coll coll;
	double bytes;
	struct comm_result cr;
};

static void dp_zero012(struct stage_ctx *x, const struct perf_group *gd,
		       const struct perf_group *gde, double gb, int layers, double *red,
		       double *gat, double *chunks, enum comm_coll *dop, double *dbytes,
		       struct comm_result *cr, struct dp_gather *dg)
{
	const struct plan *p = x->p;
	double params = x->params, eparams = x->eparams;
	*gat = 0;
	memset(dg, 0, sizeof *dg);
	*dbytes = params * gb;
	if (p->zero == 0 || (p->zero == 1 && x->fw->zero1_bcast)) {
		*dop = COMM_ALLREDUCE;
		*red = coll(x, gd, COMM_ALLREDUCE, *dbytes, cr) +
		       coll(x, gde, COMM_ALLREDUCE, eparams * gb, NULL);
		if (p->zero == 0)
			return;
		int ends = (x->first ? 1 : 0) + (x->last ? 1 : 0);
		double n = framework_bcast_owners(layers, x->m->gated_mlp, ends, gd->ranks);
		double ne = framework_bcast_owners(layers, x->m->gated_mlp, ends, gde->ranks);
		dg->coll = COMM_BROADCAST;
		dg->bytes = params * 2 / n;
		*gat = n * coll(x, gd, COMM_BROADCAST, dg->bytes, &dg->cr) +
		       ne * coll(x, gde, COMM_BROADCAST, eparams * 2 / ne, NULL);
		/* ParamBcastSyncHandler's pre-forward hook waits for a block's
		 * owners only: the broadcasts run under the forward, owner by
		 * owner. */
		*chunks = n;
		return;
	}
	if (p->zero == 2)
		gb = 2;
	*dbytes = params * gb;
	*dop = COMM_REDUCESCATTER;
	*red = coll(x, gd, COMM_REDUCESCATTER, *dbytes, cr) +
	       coll(x, gde, COMM_REDUCESCATTER, eparams * gb, NULL);
	/* FP8 parameters (plan_fp8_params): the layers' weights are gathered
	 * as 1-byte FP8 data (Megatron-Core's uint8 param buffer,
	 * param_and_grad_buffer.py @d98e8a64), the ends in 16 bits. */
	double pb = plan_fp8_params(p) ? 1 : 2, ends = perf_stage_end_params(x);
	dg->coll = COMM_ALLGATHER;
	dg->bytes = pb * params + (2 - pb) * fmin(ends, params);
	*gat = coll(x, gd, COMM_ALLGATHER, dg->bytes, &dg->cr) +
	       coll(x, gde, COMM_ALLGATHER, eparams * pb, NULL);
}

/* DP synchronisation at ZeRO-3 (FSDP): the parameter all-gathers of
 * every micro-batch's forward, backward and recomputed forward, and the
 * gradient reduce-scatters, with what of them the compute hides; gb is
 * the reduce dtype's bytes. Into *t_dp (in all), *exposed, *dbytes (one
 * gather's bytes) and *zcalls (collectives a step). */
static void dp_zero3(struct stage_ctx *x, struct perf_group *gd, struct perf_group *gde,
		     double gb, int layers, double sl, int gov, int pov, double *t_dp,
		     double *exposed, double *dbytes, double *zcalls, struct comm_result *crp)
{
	const struct framework_info *fw = x->fw;
	double params = x->params, eparams = x->eparams;
	int d = x->dp * x->cp;
	*dbytes = (params + eparams) * 2;
	/* One collective per gathered unit, each paying its latency:
	 * at a thousand ranks a ring's n - 1 steps cost milliseconds. */
	double calls = zero3_calls(x, layers);
	double per = ds_list_copies(x, d, params * 2 / calls);
	double ag = calls * (coll(x, gd, COMM_ALLGATHER, params * 2 / calls, crp) + per) +
		    coll(x, gde, COMM_ALLGATHER, eparams * 2, NULL);
	/* The gradients are reduce-scattered in the reduce dtype:
	 * 4 bytes a parameter where the row or the plan reduces in
	 * fp32 (FSDP2's MixedPrecisionPolicy reduce_dtype float32:
	 * torchtitan's mixed_precision_reduce "float32", job_config.py
	 * @8a2686c4 L219; foreach_reduce casts the unsharded gradient
	 * to reduce_dtype before the reduce-scatter, torch/distributed/
	 * fsdp/_fully_shard/_fsdp_collectives.py @010ae4a8), 2 where it
	 * reduces in 16 bits (DeepSpeed ZeRO-3: the parameters' dtype).
	 * The parameters are gathered in 16 bits either way. */
	double rb = gb;
	double rs = calls * (coll(x, gd, COMM_REDUCESCATTER, params * rb / calls, NULL) +
			     ds_list_copies(x, d, params * rb / calls)) +
		    coll(x, gde, COMM_REDUCESCATTER, eparams * rb, NULL);
	/* DeepSpeed fetches a layer ahead only up to its prefetch
	 * bucket: of a layer holding more parameters, the rest is
	 * gathered when the layer runs, in the open (a 175B GPT layer
	 * holds 1.8e9: 97% of its gathers wait). FSDP prefetches the
	 * whole next block. */
	double hide = 1;
	if (x->fw->ds_engine && pov && layers > 0 && params > 0)
		hide = perf_fmin(1, DS_PREFETCH_ELEMS / (params / layers));
	double f_exp = overlap_exposed(ag * hide, x->fwd, layers, sl, pov) + ag * (1 - hide);
	/* The recomputed forward: FSDP's weights are already there for
	 * the backward (FSDP2's pre_forward does nothing while its
	 * group is in backward, so the checkpointed block's forward
	 * runs again on the weights the pre-backward hook gathered);
	 * DeepSpeed gathers again what it released. */
	double agr = ag * ds_recompute_regather(x);
	double r_exp = agr > 0 ? overlap_exposed(agr * hide, x->rc, layers, sl, pov) +
					 agr * (1 - hide)
			       : 0;
	double bwin = agr > 0 ? x->bwd : x->bwd + x->rc;
	/* Reduce-scatters a step (framework row zero3_reduce_once): one
	 * a micro-batch, each beside its own backward, where the
	 * framework reduces every micro-batch (torchtitan's train_step
	 * loops forward_backward_step with no sync context, train.py
	 * @8a2686c4 L494-497; DeepSpeed ZeRO-3 reduces each backward's
	 * gradients into its partition); one, beside the last
	 * micro-batch's backward, under no_sync. The parameters are
	 * gathered for every micro-batch's forward and backward either
	 * way (reshard_after_forward, and FSDP2 reshards after each
	 * backward: _fsdp_param_group.py @002a76fb post_backward). */
	double mb = x->mb;
	double nrs = fw->zero3_reduce_once && mb > 1 ? 1 : mb;
	double b_plain = overlap_exposed(ag * hide, bwin, layers, sl, pov && gov) + ag * (1 - hide);
	double b_red = overlap_exposed(ag * hide + rs, bwin, layers, sl, pov && gov) +
		       ag * (1 - hide);
	/* At one reduce-scatter a micro-batch the sum is formed as
	 * (per micro-batch) x mb, so the DP memo's value at one
	 * micro-batch times mb is this value to the bit (perf.c
	 * dp_mb_linear). */
	if (nrs == mb) {
		*t_dp = (2 * ag + agr + rs) * mb;
		*exposed = (f_exp + b_red + r_exp) * mb;
	} else {
		*t_dp = (2 * ag + agr) * mb + rs * nrs;
		*exposed = (f_exp + r_exp) * mb + b_plain * (mb - nrs) + b_red * nrs;
	}
	*zcalls = 2 * mb + nrs;
}

double perf_stage_dp(struct stage_ctx *x, struct estimate *e)
{
	if (!x->fw)
		perf_ctx_settings(x);
	const struct plan *p = x->p;
	const struct stage *st = &x->rep->stages[x->index];
	int layers = st->last_layer - st->first_layer + 1;
	double params = x->params, eparams = x->eparams;
	int d = x->dp * x->cp;
	/* expert parameters reduce over the expert-DP group, the rest over
	 * DP x CP (perf_expert_dp, perf_expert_layout) */
	int de = perf_expert_dp(x);
	struct perf_group gd, gde;
	struct comm_result cr;
	int per_node = perf_domain_gpus(x->pl) / (x->tp * x->cp), ep_node, edp_node;
	perf_expert_layout(x, &ep_node, &edp_node);
	make_group(x, st->pool, x->other_pool, d, per_node, &gd);
	make_group(x, st->pool, x->other_pool, de, edp_node, &gde);
	/* The stage's DP groups reduce at once, one per TP rank (and the
	 * expert-DP groups, one per rank of the stage over their size): on
	 * a cross-site plan all of them cross the one WAN link together,
	 * and with them the other stages' whose DP crosses too (x->wan_dp,
	 * ctx_replica). Other replica groups' hand-offs are not counted. */
	int wan = x->wan_dp > 0 ? x->wan_dp : x->tp;
	gd.wan_flows = wan;
	gde.wan_flows = de > 0 ? (x->tp * x->cp * x->dp) / de * wan / x->tp : 1;
	double sl = x->k->dp_overlap_slowdown;
	int gov = x->grad_ov, pov = x->param_ov;
	/* DeepSpeed's PipelineEngine reduces the gradients after the pipeline
	 * drains (ReduceGrads follows the last backward in TrainSchedule):
	 * overlap_comm applies to its ZeRO optimizer without pipelining. */
	if (x->fw->ds_engine && x->pp > 1)
		gov = 0;
	/* DeepSpeed ZeRO-1/2 all-gathers the updated parameters inside the
	 * optimizer step (deepspeed/runtime/zero/stage_1_and_2.py, step():
	 * all_gather_dp_groups before it returns): nothing to hide behind. */
	if ((x->fw->ds_engine && p->zero >= 1 && p->zero <= 2) ||
	    p->framework == FW_DEEPSPEED_03)   /* stage1.py: after step() */
		pov = 0;
	double gb = x->grad_fp32 ? 4 : 2;
	const struct framework_info *fw = x->fw;
	double buckets = fw->ddp_bucket_elems > 0
				 ? perf_fmax(1, (params + eparams) / fw->ddp_bucket_elems)
				 : perf_fmax(1, (params + eparams) / perf_fmax(40e6, 1e6 * d));
	double t_dp = 0, exposed = 0, dbytes = 0, zcalls = 0;
	enum comm_coll dop = COMM_ALLREDUCE;
	struct dp_gather dg = { 0 };
	double gat = 0, gat_exp = 0;
	if (p->zero <= 2) {
		double red, gchunks = buckets;
		dp_zero012(x, &gd, &gde, gb, layers, &red, &gat, &gchunks, &dop, &dbytes, &cr, &dg);
		if (p->zero == 2)
			gb = 2;
		/* DeepSpeed ZeRO-2 reduces after every micro-batch's backward
		 * (framework row zero2_reduce_per_microbatch, framework.c):
		 * mb reduce-scatters a step, each beside its own micro-batch's
		 * backward; ZeRO 0-1 and the other rows once, at the boundary. */
		double nred = p->zero == 2 && fw->zero2_reduce_per_microbatch ? x->mb : 1;
		/* The bucket copies are DP synchronisation time of their own,
		 * always exposed: counted in the total too, so exposed never
		 * exceeds it. They go with each reduce: at ZeRO-2 the gradient
		 * hook copies every micro-batch's gradients into the ipg bucket
		 * and divides it before that micro-batch's reduce
		 * (stage_1_and_2.py reduce_ready_partitions_and_remove_grads ->
		 * reduce_independent_p_g_buckets_and_remove_grads, average_tensor;
		 * deepspeedai/DeepSpeed v0.12.6 @c00388a2 L1375-1377, L911,
		 * L1072; v0.5.6 stage2.py @2665c8b1 L1229-1231, L814, L929),
		 * so nred times. */
		double copies = nred * ddp_bucket_copies(x, (params + eparams) * gb, d);
		t_dp = nred * red + gat + copies;
		gat_exp = overlap_exposed(gat, x->fwd, gchunks, sl, pov);
		exposed = nred * overlap_exposed(red, x->bwd + x->rc, buckets, sl, gov) + gat_exp +
			  copies;
	} else {
		dop = COMM_ALLGATHER;
		dp_zero3(x, &gd, &gde, gb, layers, sl, gov, pov, &t_dp, &exposed, &dbytes, &zcalls, &cr);
	}
	double calls = p->zero == 3 ? zcalls
			: framework_dp_reads_mb(p->framework, p->zero) ? x->mb : 1;
	struct perf_comm *pc = note_comm(e, DIM_DP, dop, dbytes, calls, &gd, &cr, t_dp, exposed);
	if (pc && gat > 0) {
		pc->gather_coll = dg.coll;
		pc->gather_bytes = dg.bytes;
		pc->gather_algo = dg.cr.algo;
		pc->gather_proto = dg.cr.proto;
		pc->gather_s = gat;
		pc->gather_exposed_s = gat_exp;
	}
	return exposed + tied_embedding_sync(x, e, gb);
}
