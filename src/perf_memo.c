/* perf_memo.c — what perf_estimate would otherwise compute again on every
 * call for the same cluster, model and constants: whole-model parameter
 * and FLOP counts, the links of each pool and pool pair (fabric, site,
 * WAN, the link names the communication table shows), the time of each
 * collective (per group shape, links, collective and bytes), the cost
 * of each layer kind per stage shape and plan settings, and each
 * pipeline stage (whole; without its DP terms: struct stage_core; its
 * exposed DP sync; its memory inputs and index-free memory for the
 * planner's memory check), a stage by its shape (struct stage_key: its
 * count of layers and MoE layers, not their range).
 *
 * One memo per thread, so threads estimating at once share nothing and
 * take no lock: a _Thread_local pointer to a heap block allocated on the
 * thread's first estimate and freed when the thread exits (a pthread key
 * destructor; the main thread's lives until the process ends). It is keyed by content, not by
 * pointer: perf_memo_open compares the cluster's pools and network, the
 * model and the constants with copies of the ones it was filled for, and
 * starts a new generation when anything differs (entries of older
 * generations are never read); a caller that pins its inputs
 * (perf_memo.h) is spared that comparison while the pin holds. Every
 * cached value is the value the uncached code computes, by the same
 * operations in the same order (or, for the step FLOPs, by operations
 * shown below to round the same), so estimates are bit for bit those of
 * a cold call.
 *
 * The tables are direct-mapped: a key hashes to one slot and a newer key
 * replaces an older one there, so the memo stays a fixed size (about
 * 5.9 MB per thread, and the spare stage records) however long a search
 * runs. */
#include "perf_int.h"
#include "perf_memo.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slots of the collective and layer tables (powers of two). A search
 * step touches a few hundred collectives and a few dozen layer shapes.
 * The collectives' table is two-way (a key hashes to a pair of slots,
 * the newer entry first): issue 13, thirteenth round, the 70B search on
 * 1,024 GPUs missed 31,948 of 322,505 lookups with 2,048 direct-mapped
 * slots, 14K of them keys seen before and evicted; 4,096 slots in pairs
 * (0.25 MB a thread) cut comm_time's instructions by a fifth (29.6M ->
 * 23M) and the search's by 0.5%, and the best-of rate rose 1-5% on the
 * loaded 2-core machine. Fifteenth round: 8,192 slots in pairs (0.5 MB)
 * missed 22,688 times instead of 26,039 in that search, 0.6% fewer of
 * its instructions (the wall-clock effect of the larger table was not
 * measurable on the shared machine). 512 layer slots. */
#define MEMO_COLL_BITS 13
#define MEMO_COLL (1 << MEMO_COLL_BITS)
/* A second level behind them (pairs too, 2 MB a thread), asked only on
 * a miss of the first and filled by every computed collective. Issue
 * 13, twenty-fourth round: the Mixtral 8x22B deadline search on 1,024
 * GPUs (one thread) computed 609,707 collectives, 554,328 of them for
 * the candidates' DP screen (a stage shape at a DP degree met before in
 * another setting, whose DP memo key differs but whose collectives do
 * not), yet held only 180,652 distinct keys: the first level's 8,192
 * slots evicted them. In a simulation of the lookups that missed, a
 * least-recently-used table of 65,536 entries computed 295,331 and one
 * of 131,072, 221,236. The first level stays small so that its hits
 * (nine in ten) stay in cache; a miss there is worth a trip to memory
 * (a collective is about 900 instructions). */
#define MEMO_COLL2_BITS 16
#define MEMO_COLL2 (1 << MEMO_COLL2_BITS)
#define MEMO_LAYER_BITS 9
#define MEMO_LAYER (1 << MEMO_LAYER_BITS)
/* Stages: a search step evaluates a few hundred stage shapes. Larger
 * tables were measured and rejected (2026-12, Mixtral 8x22B on 1,024
 * GPUs, cost): 4,096 stage and 16,384 collective slots raised stage hits
 * from 13% to 28% of lookups (most stage keys were seen once: they held
 * the DP degree and micro-batches) and cut collective misses from 15% to
 * 12%, but the search took more CPU time, the 4.7 MB tables no longer
 * staying in cache. The stage cores (struct stage_core: a stage but for
 * its DP sync and memory, keyed without the DP degree) have as many
 * slots of their own (issue 13, eighth round). Tenth round: the entries
 * no longer keep the collective notes (0.4 KB a stage entry, not 1 KB),
 * nor the micro-batches where nothing they hold reads them, and the
 * DeepSeek-V3 cost search (16,384 GPUs, about 65 stages an estimate in
 * 4 to 5 replica groups) thrashed 256 slots: 1,024 slots cut its stage
 * core misses from 1.57M to 0.43M and raised stage hits from 1.8M to
 * 2.7M of 6.9M lookups, for 1 MB of stage and core tables a thread;
 * 2,048 and 4,096 slots took more CPU time again (measured back to back
 * on the shared 2-core machine). */
#define MEMO_STAGE_BITS 10
#define MEMO_STAGE (1 << MEMO_STAGE_BITS)
/* The exposed DP syncs (struct memo_dp, 32 bytes) have a table of their
 * own size: the candidates' screen (perf_dp_exposed_memo) meets each
 * stage shape at many DP degrees. Issue 13, fifteenth round, the 70B
 * search on 1,024 GPUs (one thread): 1,024 slots missed 30,533 of
 * 57,679 lookups, 4,096 21,852 and 8,192 18,515, for 1.8% and 2.8%
 * fewer instructions, with entries of the whole stage key (0.15 KB: 1.2
 * MB for 8,192). Sixteenth round, three-word keys: 4,096 slots (128 KB)
 * took 5.0M more instructions than 8,192, 16,384 (0.5 MB) 3.4M fewer,
 * and the best of ten rate runs (the shared machine at load 6 to 8) was
 * 6% higher at 16,384 than at 8,192 in both orders. */
#define MEMO_DP_BITS 14
#define MEMO_DP (1 << MEMO_DP_BITS)
/* perf_stage_compute's outputs per DP memo key but for its DP degree
 * (struct memo_comp, 0.13 KB; perf.c dp_compute_memo): the candidates'
 * DP screen meets a stage shape at many DP degrees. Issue 13, nineteenth
 * round: 1,024 slots (0.13 MB). */
#define MEMO_COMP_BITS 10
#define MEMO_COMP (1 << MEMO_COMP_BITS)
/* Collective notes (struct memo_notes): an estimate notes two stages,
 * and a search's consecutive estimates mostly the same few; 64 slots of
 * 0.66 KB. Issue 13, tenth round: recomputing them on every estimate
 * doubled the single-plan microbench (0.3 to 0.6 us). */
#define MEMO_NOTES 64
/* NCCL buffer sizes per stage shape (struct nccl_key): a search meets a
 * few hundred (pools x degrees); 512 slots of 48 bytes (24 KB). Issue
 * 13, ninth round: nccl_channels had 5.2 million calls (161 million
 * instructions) in the Mixtral 8x22B cost search, its memory checks
 * computing NCCL's buffers for every stage of every plan checked. */
#define MEMO_NCCL 512
/* Step FLOPs per (sequence, recompute): a search uses one sequence
 * length and at most four recompute settings. */
#define MEMO_FLOPS 8
/* Spare stage-record arrays, MEMO_SPARE_DEPTH of each length 1 to
 * MEMO_SPARES: a search takes an estimate's records and frees them at
 * once 40,000 times (its layout probes, pipelines of 1 to 80 stages on
 * the 70B case), and calloc / free was 4.3% of its instructions (issue
 * 13, seventh round). Two of a length, as a search holds a few estimates
 * at once. Only lengths in use hold arrays: 70B on 1,024 GPUs uses about
 * 40 lengths (0.6 MB); the bound, 2 x 184 bytes x (1 + ... + 128), is 3
 * MB a thread. Longer arrays are allocated and freed each time. */
#define MEMO_SPARES 128
#define MEMO_SPARE_DEPTH 2
/* Replica groups' memory summaries for the planner's memory check
 * (struct perf_group_mem, perf_memo.h): issue 13, fourteenth round.
 * Groups of up to MEMO_GROUP_STAGES stages, each stage packed in 32
 * bits, the plan's settings as the serial of their entry in a table of
 * MEMO_GLOBS (a search checks plans of one setting at a time on a
 * thread, in a few frameworks). The DeepSeek-V3 deadline search (one
 * thread) looked up 1.02M groups of 244K plans: 1,024 slots of 0.4 KB
 * missed 372K, 4,096 272K, 16,384 204K, 65,536 177K; these 0.19 KB
 * entries hold 4,096 in 0.8 MB. */
#define MEMO_GROUP_BITS 12
#define MEMO_GROUP (1 << MEMO_GROUP_BITS)
#define MEMO_GROUP_STAGES 32
#define MEMO_GLOBS 8

struct memo_link {
	unsigned gen;
	struct perf_link link;
	char in[48], out[48];    /* sizeof(struct perf_comm.link) */
};

/* Half a 64-byte line, the two entries of a pair on one line: the table
 * is where a search's estimates miss the cache most (2026-12, perf on
 * Mixtral 8x22B cost: 12% of the search in perf_memo_coll, most of it
 * waiting for the entry). The key is compared as three 64-bit words
 * (issue 13, eighth round: seven field compares were a fifth of a
 * lookup) but for the tag's result byte: shape, the ranks, the ranks per
 * node and the NIC share (perf_group.share), 32, 16 and 16 bits; tag,
 * the memo's generation, the collective and the pools (< HP_MAX_POOLS: a
 * byte each), never 0 for a filled entry (generations start at 1); and
 * the message size. The value is the time and, in the tag's byte 3,
 * comm_time's status (bit 0: -1), the algorithm (bits 1-4) and the
 * protocol (bits 5-7); not the bandwidths, which no reader of perf_memo_coll
 * reads (issue 13, sixteenth round: 64-byte entries with them made the
 * table 0.5 MB, a pair two lines). A group whose ranks per node or
 * share do not fit 16 bits is computed every time. */
#define COLL_RESULT_SHIFT 24
#define COLL_RESULT_MASK (0xffull << COLL_RESULT_SHIFT)
struct memo_coll {
	uint64_t shape;
	uint64_t tag;
	double bytes;
	double time_s;
};
_Static_assert(sizeof(struct memo_coll) == 32, "a collective entry is half a cache line");
_Static_assert(HP_MAX_POOLS <= 127 && COMM_COLL_COUNT <= 127, "pools and collectives fit a byte");
_Static_assert(COMM_ALGO_COUNT <= 16 && COMM_PROTO_COUNT <= 8,
	       "an algorithm fits 4 bits and a protocol 3 (memo_coll's result byte)");

struct memo_layer {
	unsigned gen;
	struct layer_key key;
	struct layer_cost lc;
};

struct memo_stage {
	unsigned gen;
	uint64_t tag;     /* stage_hash of key: compared before the key */
	struct stage_key key;
	struct stage_val v;
};

struct memo_core {
	unsigned gen;
	uint64_t tag;     /* stage_hash of key: compared before the key */
	struct stage_key key;
	struct stage_core v;
};

struct memo_nccl {
	unsigned gen;
	struct nccl_key key;
	double bytes;
};

struct memo_mem {
	unsigned gen;
	uint64_t tag;     /* stage_hash of key: compared before the key */
	struct stage_key key;
	struct stage_mem_in v;
};

/* Half a cache line, where entries keyed by the whole stage key (0.15
 * KB, three lines) took 1.2 MB for 8,192 (MEMO_DP_BITS). */
struct memo_dp {
	_Alignas(32) uint32_t gen;
	uint32_t dp;
	uint64_t glob, stage;
	double v;
};
_Static_assert(sizeof(struct memo_dp) == 32, "a DP entry is half a cache line");
_Static_assert(MEMO_DP % 2 == 0, "DP entries go in pairs (dp_pair)");

struct memo_comp {
	uint64_t glob, stage;
	unsigned gen;
	struct stage_comp v;
};

struct memo_notes {
	unsigned gen;
	int kind;
	struct stage_key key;
	struct perf_comm comm[DIM_COUNT];
};

struct memo_memst {
	unsigned gen;
	uint64_t tag;     /* stage_hash of key: compared before the key */
	struct stage_key key;
	struct stage_mem_state v;
};

/* A replica group's key (perf_memo.h, perf_memo_group_mem): the serial
 * of the plan's settings (struct memo_glob), the headroom, the DP
 * degree, the micro-batches capped at twice the depth, and the stages,
 * each as pool | tp << 4 | first layer << 12 | last layer << 22.
 * Compared as its head and n_stages words. */
struct group_key {
	uint64_t glob;
	double headroom;
	int dp, mb, n_stages, pad;   /* pad: always 0, the head whole words */
	uint32_t st[MEMO_GROUP_STAGES];
};
#define GROUP_HEAD offsetof(struct group_key, st)
_Static_assert(GROUP_HEAD % sizeof(uint64_t) == 0, "the group key's head is whole words");

struct memo_group {
	unsigned gen;
	struct group_key key;
	struct perf_group_mem v;
};

/* A plan's settings (every field of struct plan but its replicas, which
 * are NULL and 0 here) and the serial that stands for them in group
 * keys: a serial is never given twice on a thread, so an entry replaced
 * here leaves the group entries of its serial unmatched. */
struct memo_glob {
	unsigned gen;
	uint64_t serial;
	struct plan p;
};

/* A step's FLOPs per token for one (sequence, recompute): sum, the
 * forward FLOPs of every layer and the logits (model_step_flops is
 * 3 x tokens x sum), and hw, the hardware FLOPs per token
 * (model_step_hw_flops is tokens x hw). */
struct memo_flops {
	unsigned gen;
	enum hp_recompute rc;
	double s;
	double sum, hw;
};

struct perf_memo {
	unsigned gen;                     /* 0: never filled */
	/* the inputs this generation was filled for */
	struct cluster c;
	struct model_spec m;
	const struct perf_calib *kp;
	struct perf_calib k;
	/* whole model */
	struct param_count pc;
	struct memo_flops flops[MEMO_FLOPS];
	struct memo_link link[HP_MAX_POOLS][HP_MAX_POOLS];
	_Alignas(64) struct memo_coll coll[MEMO_COLL];   /* pairs on one line */
	_Alignas(64) struct memo_coll coll2[MEMO_COLL2]; /* the second level, pairs too */
	struct memo_layer layer[MEMO_LAYER];
	struct memo_stage stage[MEMO_STAGE];
	struct memo_core core[MEMO_STAGE];
	struct memo_mem mem[MEMO_STAGE];  /* perf_stage_memories' inputs, 0.2 MB */
	struct memo_memst memst[MEMO_STAGE];  /* ... and states, 0.2 MB */
	_Alignas(64) struct memo_dp dp[MEMO_DP];   /* exposed DP syncs, 0.5 MB, in pairs */
	struct memo_comp comp[MEMO_COMP];  /* their stages' compute, 0.13 MB */
	struct memo_notes notes[MEMO_NOTES];  /* 42 KB */
	struct memo_nccl nccl[MEMO_NCCL];
	struct memo_group group[MEMO_GROUP];  /* 0.8 MB */
	struct memo_glob glob[MEMO_GLOBS];
	uint64_t glob_serial;                 /* the last serial given */
	int glob_next;                        /* the entry to replace next */
	/* estimate_free's spares by length (perf_memo_stages_give); kept
	 * across generations */
	struct perf_stage *spare[MEMO_SPARES + 1][MEMO_SPARE_DEPTH];
};

static _Thread_local struct perf_memo *memo;
static pthread_key_t memo_key;
static int memo_key_ok;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

static void memo_free(void *p)
{
	struct perf_memo *mo = p;
	if (mo == memo)
		memo = NULL;   /* the exiting thread's: an estimate_free after this frees */
	for (int i = 0; i <= MEMO_SPARES; i++)
		for (int j = 0; j < MEMO_SPARE_DEPTH; j++)
			free(mo->spare[i][j]);
	free(p);
}

/* The key whose destructor frees a thread's memo when the thread exits.
 * Should it fail (no keys left), memos of exited threads are not freed;
 * nothing else changes. */
static void memo_key_init(void)
{
	memo_key_ok = pthread_key_create(&memo_key, memo_free) == 0;
}

/* This thread's memo, allocated zeroed (gen 0: empty) on first use. Out
 * of memory aborts (xcalloc). */
static struct perf_memo *memo_get(void)
{
	if (!memo) {
		/* on 64-byte lines (struct memo_coll); calloc promises 16 */
		size_t n = (sizeof *memo + 63) / 64 * 64;
		memo = aligned_alloc(64, n);
		if (!memo)
			memo = xcalloc(1, sizeof *memo);   /* aborts if truly out of memory */
		else
			memset(memo, 0, n);
		pthread_once(&memo_once, memo_key_init);
		if (memo_key_ok)
			pthread_setspecific(memo_key, memo);
	}
	return memo;
}

static int same_inputs(const struct perf_memo *mo, const struct cluster *c,
		       const struct model_spec *m, const struct perf_calib *k)
{
	if (mo->gen == 0 || c->n_pools != mo->c.n_pools || c->oversub != mo->c.oversub ||
	    c->inter_pool_gbps != mo->c.inter_pool_gbps ||
	    c->inter_pool_latency_us != mo->c.inter_pool_latency_us)
		return 0;
	if (memcmp(c->pools, mo->c.pools, (size_t)c->n_pools * sizeof *c->pools))
		return 0;
	if (memcmp(m, &mo->m, sizeof *m))
		return 0;
	/* The shipped constants never change; a caller's may between calls. */
	return k == mo->kp && (k == perf_calib_default() || !memcmp(k, &mo->k, sizeof *k));
}

/* This thread's pin (perf_memo.h): the inputs its caller holds fixed,
 * valid while the memo is at the generation they were compared at (an
 * estimate on other inputs moves it on, and the pin then lapses: the
 * full comparison runs again). wraps counts the generation numbers'
 * wraps, so that a generation number met again never revives a pin. */
static _Thread_local struct perf_memo_pin pin;
static _Thread_local unsigned long long gen_wraps;

struct perf_memo *perf_memo_open(const struct cluster *c, const struct model_spec *m,
				 const struct perf_calib *k)
{
	struct perf_memo *mo = memo_get();
	if (c == pin.c && m == pin.m && k == perf_calib_default() && mo->kp == k &&
	    mo->gen == pin.gen && gen_wraps == pin.wraps)
		return mo;
	if (same_inputs(mo, c, m, k))
		return mo;
	if (++mo->gen == 0) {
		/* 2^32 generations: forget every slot before reusing numbers
		 * (the spares are no slot: kept). */
		struct perf_stage *spare[MEMO_SPARES + 1][MEMO_SPARE_DEPTH];
		memcpy(spare, mo->spare, sizeof spare);
		memset(mo, 0, sizeof *mo);
		memcpy(mo->spare, spare, sizeof spare);
		mo->gen = 1;
		gen_wraps++;
	}
	mo->c = *c;
	mo->m = *m;
	mo->kp = k;
	mo->k = *k;
	model_params(m, &mo->pc);
	return mo;
}

void perf_memo_pin(const struct cluster *c, const struct model_spec *m,
		   struct perf_memo_pin *saved)
{
	*saved = pin;
	struct perf_memo *mo = perf_memo_open(c, m, perf_calib_default());
	pin.c = c;
	pin.m = m;
	pin.gen = mo->gen;
	pin.wraps = gen_wraps;
}

void perf_memo_unpin(const struct perf_memo_pin *saved)
{
	pin = *saved;
}

const struct param_count *perf_memo_params(struct perf_memo *mo)
{
	return &mo->pc;
}

uint64_t perf_memo_epoch(const struct perf_memo *mo)
{
	return (uint64_t)gen_wraps << 32 | mo->gen;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* One third, rounded: 3 x THIRD is 1 - 2^-54 exactly, a tie between
 * 1 - 2^-53 and 1 that IEEE-754 rounds to even, 1.0. So
 * model_step_flops(m, THIRD, s), which computes (3 x tokens) x sum, is
 * sum itself, and (3 x tokens) x sum below is bit for bit what
 * model_step_flops(m, tokens, s) computes; model_step_hw_flops(m, 1, s,
 * rc) is 1 x hw = hw, and tokens x hw is its value at tokens. Issue 13,
 * fifth round: a search steps many batches (layout probes, DP terms,
 * candidates: 752 distinct ones on 64 GPUs), and walking every layer
 * again for each was 4.7% of the instructions of a Mixtral 8x22B
 * throughput search; tests/test_search.c checks the estimates' FLOPs
 * against the model's functions. */
#define THIRD (1.0 / 3.0)

void perf_memo_step_flops(struct perf_memo *mo, double tokens, double s, enum hp_recompute rc,
			  double *model, double *hw)
{
	struct memo_flops *f = &mo->flops[(unsigned)rc % MEMO_FLOPS];
	if (f->gen != mo->gen || f->s != s || f->rc != rc) {
		f->gen = mo->gen;
		f->s = s;
		f->rc = rc;
		f->sum = model_step_flops(&mo->m, THIRD, s);
		f->hw = model_step_hw_flops(&mo->m, 1.0, s, rc);
	}
	*model = 3 * tokens * f->sum;
	*hw = tokens * f->hw;
}

/* The fabric of a group of pools a and b: the slower of the two, link by
 * link (EFA's transport wins), and the WAN when they are at two sites. */
static void build_link(const struct cluster *c, int a, int b, struct memo_link *l)
{
	struct comm_group *g = &l->link.base;
	const struct pool *pa = &c->pools[a];
	memset(g, 0, sizeof *g);
	comm_fabric_init(&g->fab, &pa->gpu, pa->intra, pa->nics, pa->nic_gbps);
	comm_fabric_set_transport(&g->fab, pa->transport);
	comm_fabric_set_intra(&g->fab, pa->intra_gbyte_s);
	if (b != a) {
		const struct pool *pb = &c->pools[b];
		struct comm_fabric fb;
		comm_fabric_init(&fb, &pb->gpu, pb->intra, pb->nics, pb->nic_gbps);
		comm_fabric_set_transport(&fb, pb->transport);
		comm_fabric_set_intra(&fb, pb->intra_gbyte_s);
		comm_fabric_min(&g->fab, &g->fab, &fb);
		if (!cluster_same_site(c, a, b)) {
			g->cross_site = 1;
			g->wan_Bps = c->inter_pool_gbps * 1e9 / 8;
			g->wan_latency_s = c->inter_pool_latency_us * 1e-6;
		}
	}
	/* The communication table's link column (perf_link_names, which
	 * dispatch's labels share). Zeroed first, so that the bytes
	 * after the name are the same however often it is rebuilt. */
	memset(l->in, 0, sizeof l->in);
	memset(l->out, 0, sizeof l->out);
	perf_link_names(c, a, b, l->in, l->out, sizeof l->in);
	l->link.name_in = l->in;
	l->link.name_out = l->out;
}

const struct perf_link *perf_memo_link(struct perf_memo *mo, int a, int b)
{
	struct memo_link *l = &mo->link[a][b];
	if (l->gen != mo->gen) {
		build_link(&mo->c, a, b, l);
		l->gen = mo->gen;
	}
	return &l->link;
}

/* The comm_group of g: its links, its ranks, and its share of the NICs. */
static void build_group(const struct perf_memo *mo, const struct perf_group *pg,
			struct comm_group *g)
{
	const struct pool *pa = &mo->c.pools[pg->a];
	*g = pg->link->base;
	g->ranks = pg->ranks;
	g->ranks_per_node = pg->ranks_per_node;
	g->oversub = mo->c.oversub;
	/* The other GPUs of the node run the same collective in their own
	 * groups at the same time (one DP group per TP rank), so a group that
	 * leaves the node gets its share of the node's NICs: rails, one NIC
	 * per GPU on the usual 8-NIC nodes. A pipeline hand-off shares them
	 * with its stage's other GPUs on the node only (pg->share). */
	/* the WAN link between two sites is one link: the groups that cross
	 * it at once share it (pg->wan_flows) */
	if (g->cross_site && pg->wan_flows > 1)
		g->wan_Bps /= pg->wan_flows;
	int gpn = perf_domain_gpus(pa);
	if (gpn > pa->gpus_per_node) {
		g->fab.nics *= gpn / pa->gpus_per_node;
		g->domain_hosts = gpn / pa->gpus_per_node;
		/* the NICs of every host of the domain, and each host's TCP
		 * ceiling (comm.c net_node_Bps) */
		g->fab.node_share = g->domain_hosts;
	}
	int busy = pg->share > 0 && pg->share < gpn ? pg->share : gpn;
	/* gated on the node, not on busy: a lone flow (busy 1) still leaves
	 * by its own GPU's rails, not by every NIC of the node */
	if (g->ranks > g->ranks_per_node && g->ranks_per_node < gpn && g->fab.nics > 0) {
		double total = g->fab.nics * g->fab.nic_Bps * g->ranks_per_node / busy;
		int n = g->fab.nics * g->ranks_per_node / busy;
		if (busy < gpn) {
			/* fewer flows than GPUs: each still leaves by its GPUs'
			 * own rails (nics / gpn of them, at least one NIC) */
			int own = g->fab.nics * g->ranks_per_node / gpn;
			own = own < 1 ? 1 : own;
			if (total > own * g->fab.nic_Bps)
				total = own * g->fab.nic_Bps;
			n = n > own ? own : n;
		}
		g->fab.nics = n < 1 ? 1 : n;
		g->fab.nic_Bps = total / g->fab.nics;
		g->fab.node_share = (double)g->ranks_per_node / busy *
				    (g->domain_hosts > 1 ? g->domain_hosts : 1);
	}
}

/* A collective not in the memo: computed into r (its bandwidths 0,
 * perf_int.h) and, with e, put in slot e. Kept out of perf_memo_coll,
 * whose hits (nine lookups in ten) then need no stack frame for the
 * comm_group built here. */
static __attribute__((noinline)) int coll_miss(struct perf_memo *mo, struct memo_coll *e,
					       uint64_t shape, uint64_t tag,
					       const struct perf_group *g, enum comm_coll op,
					       double bytes, struct comm_result *r)
{
	struct comm_group cg;
	build_group(mo, g, &cg);
	memset(r, 0, sizeof *r);
	int rc = comm_time(&cg, op, bytes, COMM_ALGO_AUTO, COMM_PROTO_AUTO, r, NULL);
	r->algbw_Bps = r->busbw_Bps = 0;
	if (e) {
		uint64_t res = (uint64_t)(rc < 0) | (uint64_t)r->algo << 1 | (uint64_t)r->proto << 5;
		e->shape = shape;
		e->tag = tag | res << COLL_RESULT_SHIFT;
		e->bytes = bytes;
		e->time_s = r->time_s;
	}
	return rc;
}

/* Entry e's value into r; its status. */
static int coll_hit(const struct memo_coll *e, struct comm_result *r)
{
	unsigned res = (unsigned)(e->tag >> COLL_RESULT_SHIFT) & 0xff;
	r->time_s = e->time_s;
	r->algbw_Bps = r->busbw_Bps = 0;
	r->algo = (enum comm_algo)(res >> 1 & 0xf);
	r->proto = (enum comm_proto)(res >> 5);
	return res & 1 ? -1 : 0;
}

int perf_memo_coll(struct perf_memo *mo, const struct perf_group *g, enum comm_coll op,
		   double bytes, struct comm_result *r)
{
	/* A reduce-scatter is the all-gather's entry: comm.c costs the two
	 * alike (the same algorithms offered, algos_allowed; the same steps,
	 * latencies and bus factor, comm_busbw_factor and ring_time; nothing
	 * else reads the collective), so comm_time gives the same bits for
	 * both. ZeRO-3's DP terms ask both of each group at one size
	 * (perf_comm.c perf_stage_dp). test_perf_memo
	 * reduce_scatter_costs_as_all_gather holds comm.c to it. */
	if (op == COMM_REDUCESCATTER)
		op = COMM_ALLGATHER;
	uint64_t bits;
	memcpy(&bits, &bytes, sizeof bits);
	uint64_t shape0 = (uint64_t)(uint32_t)g->ranks | (uint64_t)(uint32_t)g->ranks_per_node << 32;
	uint64_t pools = (uint64_t)(unsigned char)g->a | (uint64_t)(unsigned char)g->b << 8 |
			 (uint64_t)(unsigned)op << 16 | (uint64_t)(g->wan_flows & 0xff) << 24;
	uint64_t tag = pools | (uint64_t)mo->gen << 32;
	/* The slot from the hash's top bits. A message size is a double, and
	 * the planner's are mostly round (mbs x s x hidden x 2 bytes, and
	 * their shares): what tells them apart sits in the exponent and the
	 * high mantissa, which a multiply carries only upwards. The low
	 * bits used before left 2.37M of 13.0M lookups of a Mixtral 8x22B
	 * throughput search missing; the top bits, 1.05M (issue 13, fifth
	 * round). Two multiplies, not three chained mix() steps (eighth
	 * round: 70B on 1,024 GPUs, 52,701 -> 52,597 misses of 677,254
	 * lookups and 26M fewer instructions). */
	uint64_t h = ((shape0 ^ pools << 40 ^ (uint64_t)(uint32_t)g->share << 24) *
		      0x9e3779b97f4a7c15ull ^ bits) * 0xff51afd7ed558ccdull;
	if ((unsigned)g->ranks_per_node > 0xffff || (unsigned)g->share > 0xffff ||
	    (unsigned)g->wan_flows > 0xff)
		return coll_miss(mo, NULL, 0, 0, g, op, bytes, r);
	uint64_t shape = (uint64_t)(uint32_t)g->ranks |
			 (uint64_t)(uint32_t)g->ranks_per_node << 32 |
			 (uint64_t)(uint32_t)g->share << 48;
	struct memo_coll *e = &mo->coll[(h >> (64 - MEMO_COLL_BITS)) & ~(uint64_t)1];
	if ((e->tag & ~COLL_RESULT_MASK) == tag && e->shape == shape && e->bytes == bytes)
		return coll_hit(e, r);
	if ((e[1].tag & ~COLL_RESULT_MASK) == tag && e[1].shape == shape && e[1].bytes == bytes)
		return coll_hit(&e[1], r);
	e[1] = e[0];   /* the older entry of the pair leaves, the newer moves over */
	/* the second level: a hit comes back to the first; a miss is
	 * computed into both */
	struct memo_coll *f = &mo->coll2[(h >> (64 - MEMO_COLL2_BITS)) & ~(uint64_t)1];
	for (int i = 0; i < 2; i++)
		if ((f[i].tag & ~COLL_RESULT_MASK) == tag && f[i].shape == shape &&
		    f[i].bytes == bytes) {
			e[0] = f[i];
			return coll_hit(e, r);
		}
	int rc = coll_miss(mo, e, shape, tag, g, op, bytes, r);
	f[1] = f[0];
	f[0] = e[0];
	return rc;
}

/* Two lanes of multiplies, the slot from the top bits (as for the
 * collectives; issue 13, eighth round: the chain of five mix() steps
 * before was 1% of a search). */
static struct memo_layer *layer_slot(struct perf_memo *mo, const struct layer_key *key)
{
	uint64_t bits;
	memcpy(&bits, &key->s, sizeof bits);
	uint64_t w0 = (uint64_t)(uint32_t)key->kind << 32 | (uint32_t)key->pool;
	uint64_t w1 = (uint64_t)(uint32_t)key->tp << 32 | (uint32_t)key->mbs;
	uint64_t w2 = (uint64_t)(uint32_t)key->cp << 32 | (uint32_t)key->ep;
	uint64_t w3 = (uint64_t)(uint32_t)key->precision | (uint64_t)(uint32_t)key->sp << 8 |
		      (uint64_t)(uint32_t)key->flash << 16 | (uint64_t)(uint32_t)key->recompute << 24 |
		      (uint64_t)(uint32_t)key->framework << 32;
	uint64_t a = (w0 * 0x9e3779b97f4a7c15ull ^ w1) * 0xff51afd7ed558ccdull;
	uint64_t b = (w2 * 0xc2b2ae3d27d4eb4full ^ w3) * 0x165667b19e3779f9ull;
	uint64_t h = (a ^ (b >> 29) ^ bits) * 0x9e3779b97f4a7c15ull;
	return &mo->layer[h >> (64 - MEMO_LAYER_BITS)];
}

const struct layer_cost *perf_memo_layer(struct perf_memo *mo, const struct layer_key *key)
{
	const struct memo_layer *e = layer_slot(mo, key);
	return e->gen == mo->gen && !memcmp(&e->key, key, sizeof *key) ? &e->lc : NULL;
}

void perf_memo_layer_put(struct perf_memo *mo, const struct layer_key *key,
			 const struct layer_cost *lc)
{
	struct memo_layer *e = layer_slot(mo, key);
	e->gen = mo->gen;
	e->key = *key;
	e->lc = *lc;
}

_Static_assert(sizeof(struct stage_key) == 30 * sizeof(int) + sizeof(double),
	       "struct stage_key has padding: keys would not compare as bytes");

/* The stage's own fields: four words from pool to cross. */
#define STAGE_OWN_OFF offsetof(struct stage_key, pool)
#define STAGE_OWN_WORDS 4
_Static_assert(STAGE_OWN_OFF % sizeof(uint64_t) == 0 &&
	       offsetof(struct stage_key, cross) + sizeof(int) ==
	       STAGE_OWN_OFF + STAGE_OWN_WORDS * sizeof(uint64_t),
	       "the stage's own fields of struct stage_key are four aligned words");

/* The key's 12 shared words in four independent lanes (a chain of mix()
 * steps, each waiting on the multiply before it, was a tenth of a
 * search's time), then mixed together. */
uint64_t perf_memo_stage_h0(const struct stage_key *key)
{
	enum { W = sizeof *key / sizeof(uint64_t) };
	_Static_assert(W == 16, "struct stage_key is 16 words");
	uint64_t w[W], a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull,
		       c = 0xa4093822299f31d0ull, d = 0x082efa98ec4e6c89ull;
	memcpy(w, key, sizeof w);
	const size_t own = STAGE_OWN_OFF / sizeof(uint64_t);
	for (size_t i = own; i < own + STAGE_OWN_WORDS; i++)
		w[i] = 0;
	for (size_t i = 0; i < W; i += 4) {
		a = (a ^ w[i]) * 0x9e3779b97f4a7c15ull;
		b = (b ^ w[i + 1]) * 0xc2b2ae3d27d4eb4full;
		c = (c ^ w[i + 2]) * 0x165667b19e3779f9ull;
		d = (d ^ w[i + 3]) * 0xff51afd7ed558ccdull;
	}
	return mix(a ^ (b >> 31) ^ (d >> 17), b ^ (c >> 27)) ^ (c ^ (a >> 33) ^ d);
}

/* The slot of key: h0 (its shared words) and its own eight fields; the
 * slot only places the entry, the whole key is compared on lookup. Each
 * own field is read as the int perf.c has just written (stage_key_of,
 * stage_mem_inputs set them one by one right before the lookup): the two
 * 16-byte loads of them as four words before could not be forwarded
 * from those 4-byte stores and waited for them to reach the cache, 7%
 * of the DeepSeek-V3 cost search in this function (issue 13, tenth
 * round, perf annotate). Each field times its own odd constant, summed:
 * independent multiplies (issue 13, seventh round: a chain of them was
 * 4% of a search), and no two adjacent loads for the compiler to merge
 * into a wide one again; the top bits of a last multiply pick the slot. */
static uint64_t stage_hash(const struct stage_key *key, uint64_t h0)
{
	uint64_t a = h0 + (uint64_t)(uint32_t)key->pool * 0x9e3779b97f4a7c15ull +
		     (uint64_t)(uint32_t)key->tp * 0xc2b2ae3d27d4eb4full +
		     (uint64_t)(uint32_t)key->layers * 0x165667b19e3779f9ull +
		     (uint64_t)(uint32_t)key->moe_layers * 0xff51afd7ed558ccdull;
	uint64_t b = (uint64_t)(uint32_t)key->prev_pool * 0x27d4eb2f165667c5ull +
		     (uint64_t)(uint32_t)key->next_pool * 0x85ebca77c2b2ae63ull +
		     (uint64_t)(uint32_t)key->end_pool * 0x94d049bb133111ebull +
		     (uint64_t)(uint32_t)key->cross * 0xbf58476d1ce4e5b9ull;
	uint64_t h = (a ^ (b >> 29) ^ (b << 17)) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 31;
	return h * 0xff51afd7ed558ccdull;
}

static size_t stage_slot(const struct stage_key *key, uint64_t h0)
{
	return (size_t)(stage_hash(key, h0) >> (64 - MEMO_STAGE_BITS));
}

/* The slot of a stage-keyed table's hash h (stage_hash). */
static size_t stage_slot_of(uint64_t h)
{
	return (size_t)(h >> (64 - MEMO_STAGE_BITS));
}

/* The DP table's slot: its own, larger table (MEMO_DP_BITS). */
static size_t dp_slot(const struct dp_key *key)
{
	uint64_t h = (key->glob ^ 0x243f6a8885a308d3ull) * 0x9e3779b97f4a7c15ull +
		     (key->stage ^ 0x13198a2e03707344ull) * 0xc2b2ae3d27d4eb4full +
		     (uint64_t)key->dp * 0x165667b19e3779f9ull;
	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdull;
	return (size_t)(h >> (64 - MEMO_DP_BITS));
}

/* The stage-keyed tables share one lookup and one store: a slot of the
 * direct-mapped table holds the value when its generation is this
 * estimate run's and its key is the whole key (stage_slot picks the
 * slot). The entry keeps the key's whole hash, compared first: a slot
 * held by another key (two lookups in three in a search's layout probes)
 * is told from its first line, without comparing the key's 128 bytes
 * (issue 13, sixteenth round). STAGE_TABLE writes the typed pair for one
 * table. */
#define STAGE_TABLE(get, put, tab, entry, vtype)                                      \
	const vtype *get(struct perf_memo *mo, const struct stage_key *key, uint64_t h0) \
	{                                                                                \
		uint64_t h = stage_hash(key, h0);                                        \
		const struct entry *e = &mo->tab[stage_slot_of(h)];                     \
		return e->gen == mo->gen && e->tag == h &&                               \
		       !memcmp(&e->key, key, sizeof *key) ? &e->v : NULL;                \
	}                                                                                \
	vtype *put(struct perf_memo *mo, const struct stage_key *key, uint64_t h0)       \
	{                                                                                \
		uint64_t h = stage_hash(key, h0);                                        \
		struct entry *e = &mo->tab[stage_slot_of(h)];                           \
		e->gen = mo->gen;                                                        \
		e->tag = h;                                                              \
		e->key = *key;                                                           \
		return &e->v;                                                            \
	}

STAGE_TABLE(perf_memo_stage, perf_memo_stage_put, stage, memo_stage, struct stage_val)
STAGE_TABLE(perf_memo_core, perf_memo_core_put, core, memo_core, struct stage_core)
STAGE_TABLE(perf_memo_mem, perf_memo_mem_put, mem, memo_mem, struct stage_mem_in)
STAGE_TABLE(perf_memo_memst, perf_memo_memst_put, memst, memo_memst, struct stage_mem_state)

/* The DP table is two-way: a key's slot is one of a pair on one 64-byte
 * line (dp_slot's even index; the memo is on 64-byte lines, memo_get),
 * looked up in both; a put into a pair whose first entry is live moves
 * that one to the second (the older leaves), as the collectives' pairs
 * do. Issue 13, twenty-second round: in the Mixtral 8x22B deadline search
 * (one thread) the direct-mapped table of 16,384 entries missed 359,267
 * of 1,205,777 lookups of the candidates' DP screen, 65,536 entries
 * 299,367: a sixth of the misses were two keys on one slot. */
static struct memo_dp *dp_pair(struct perf_memo *mo, const struct dp_key *key)
{
	return &mo->dp[dp_slot(key) & ~(size_t)1];
}

static int dp_entry_is(const struct perf_memo *mo, const struct memo_dp *e,
		       const struct dp_key *key)
{
	return e->gen == mo->gen && e->stage == key->stage && e->glob == key->glob &&
	       e->dp == key->dp;
}

const double *perf_memo_dp(struct perf_memo *mo, const struct dp_key *key)
{
	const struct memo_dp *e = dp_pair(mo, key);
	if (dp_entry_is(mo, e, key))
		return &e->v;
	return dp_entry_is(mo, &e[1], key) ? &e[1].v : NULL;
}

void perf_memo_dp_ahead(const struct perf_memo *mo, const struct dp_key *key)
{
	__builtin_prefetch(&mo->dp[dp_slot(key) & ~(size_t)1]);
}

void perf_memo_dp_put(struct perf_memo *mo, const struct dp_key *key, double dp_exposed)
{
	struct memo_dp *e = dp_pair(mo, key);
	if (e->gen == mo->gen)
		e[1] = e[0];
	e->gen = mo->gen;
	e->dp = key->dp;
	e->glob = key->glob;
	e->stage = key->stage;
	e->v = dp_exposed;
}

static size_t comp_slot(const struct dp_key *key)
{
	uint64_t h = (key->glob ^ 0x243f6a8885a308d3ull) * 0x9e3779b97f4a7c15ull +
		     (key->stage ^ 0x13198a2e03707344ull) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdull;
	return (size_t)(h >> (64 - MEMO_COMP_BITS));
}

const struct stage_comp *perf_memo_comp(struct perf_memo *mo, const struct dp_key *key)
{
	const struct memo_comp *e = &mo->comp[comp_slot(key)];
	return e->gen == mo->gen && e->stage == key->stage && e->glob == key->glob ? &e->v : NULL;
}

struct stage_comp *perf_memo_comp_put(struct perf_memo *mo, const struct dp_key *key)
{
	struct memo_comp *e = &mo->comp[comp_slot(key)];
	e->gen = mo->gen;
	e->glob = key->glob;
	e->stage = key->stage;
	return &e->v;
}

static struct memo_notes *notes_slot(struct perf_memo *mo, const struct stage_key *key,
				     int kind)
{
	size_t i = stage_slot(key, perf_memo_stage_h0(key) + (uint64_t)kind);
	return &mo->notes[i & (MEMO_NOTES - 1)];
}

const struct perf_comm *perf_memo_notes(struct perf_memo *mo, const struct stage_key *key,
					int kind)
{
	const struct memo_notes *e = notes_slot(mo, key, kind);
	return e->gen == mo->gen && e->kind == kind && !memcmp(&e->key, key, sizeof *key)
		       ? e->comm : NULL;
}

struct perf_comm *perf_memo_notes_put(struct perf_memo *mo, const struct stage_key *key,
				      int kind)
{
	struct memo_notes *e = notes_slot(mo, key, kind);
	e->gen = mo->gen;
	e->kind = kind;
	e->key = *key;
	return e->comm;
}

static size_t nccl_slot(const struct nccl_key *key)
{
	uint64_t w[4];
	_Static_assert(sizeof *key == sizeof w, "struct nccl_key is four words");
	memcpy(w, key, sizeof w);
	uint64_t a = (w[0] ^ 0x243f6a8885a308d3ull) * 0x9e3779b97f4a7c15ull;
	uint64_t b = (w[1] ^ 0x13198a2e03707344ull) * 0xc2b2ae3d27d4eb4full;
	a = (a ^ w[2]) * 0x165667b19e3779f9ull;
	b = (b ^ w[3]) * 0x9e3779b97f4a7c15ull;
	uint64_t h = mix(a ^ (b >> 31), b ^ (a >> 29));
	return (h ^ (h >> 29)) & (MEMO_NCCL - 1);
}

const double *perf_memo_nccl(struct perf_memo *mo, const struct nccl_key *key)
{
	const struct memo_nccl *e = &mo->nccl[nccl_slot(key)];
	return e->gen == mo->gen && !memcmp(&e->key, key, sizeof *key) ? &e->bytes : NULL;
}

void perf_memo_nccl_put(struct perf_memo *mo, const struct nccl_key *key, double bytes)
{
	struct memo_nccl *e = &mo->nccl[nccl_slot(key)];
	e->gen = mo->gen;
	e->key = *key;
	e->bytes = bytes;
}

/* The serial of p's settings (struct memo_glob), entered if new. */
uint64_t perf_memo_glob(struct perf_memo *mo, const struct plan *p)
{
	struct plan q = *p;
	q.n_replicas = 0;
	q.replicas = NULL;
	for (int i = 0; i < MEMO_GLOBS; i++) {
		const struct memo_glob *e = &mo->glob[i];
		if (e->gen == mo->gen && !memcmp(&e->p, &q, sizeof q))
			return e->serial;
	}
	struct memo_glob *e = &mo->glob[mo->glob_next];
	mo->glob_next = (mo->glob_next + 1) % MEMO_GLOBS;
	e->gen = mo->gen;
	e->p = q;
	e->serial = ++mo->glob_serial;
	return e->serial;
}

/* Group r of p's key into k; -1 when the group is not kept (more than
 * MEMO_GROUP_STAGES stages, or a field too wide for its packing). */
static int group_key_of(struct perf_memo *mo, const struct plan *p, int r, double headroom,
			struct group_key *k)
{
	const struct replica *rp = &p->replicas[r];
	int n = rp->n_stages;
	if (n < 1 || n > MEMO_GROUP_STAGES)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct stage *st = &rp->stages[i];
		if ((unsigned)st->pool > 0xf || (unsigned)st->tp > 0xff ||
		    (unsigned)st->first_layer > 0x3ff || (unsigned)st->last_layer > 0x3ff)
			return -1;
		k->st[i] = (uint32_t)st->pool | (uint32_t)st->tp << 4 |
			   (uint32_t)st->first_layer << 12 | (uint32_t)st->last_layer << 22;
	}
	k->glob = perf_memo_glob(mo, p);
	k->headroom = headroom;
	k->dp = plan_dp(p);
	/* perf_stage_memory_at reads the micro-batches only as a cap on the
	 * stages in flight, fewer than 2 x depth: at i = 0 1F1B has depth,
	 * interleaved ((v + 1) depth - 1) / v <= 2 depth - 1 */
	int mb = plan_replica_microbatches(p, r);
	k->mb = mb > 2 * n ? 2 * n : mb;
	k->n_stages = n;
	k->pad = 0;
	return 0;
}

static size_t group_slot(const struct group_key *k)
{
	uint64_t w[GROUP_HEAD / sizeof(uint64_t)];
	memcpy(w, k, sizeof w);
	uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull;
	for (size_t i = 0; i + 1 < sizeof w / sizeof *w; i += 2) {
		a = (a ^ w[i]) * 0x9e3779b97f4a7c15ull;
		b = (b ^ w[i + 1]) * 0xc2b2ae3d27d4eb4full;
	}
	for (int i = 0; i < k->n_stages; i++)
		a = (a ^ k->st[i]) * 0x165667b19e3779f9ull;
	uint64_t h = mix(a ^ (b >> 29), b ^ (a >> 31));
	return (size_t)(h >> (64 - MEMO_GROUP_BITS));
}

static int group_same(const struct group_key *a, const struct group_key *b)
{
	return !memcmp(a, b, GROUP_HEAD) &&
	       !memcmp(a->st, b->st, (size_t)a->n_stages * sizeof *a->st);
}

const struct perf_group_mem *perf_memo_group_mem(const struct cluster *c,
						 const struct model_spec *m,
						 const struct plan *p, int r, double headroom)
{
	struct perf_memo *mo = perf_memo_open(c, m, perf_calib_default());
	struct group_key k;
	if (group_key_of(mo, p, r, headroom, &k) < 0)
		return NULL;
	const struct memo_group *e = &mo->group[group_slot(&k)];
	return e->gen == mo->gen && group_same(&e->key, &k) ? &e->v : NULL;
}

void perf_memo_group_mem_put(const struct cluster *c, const struct model_spec *m,
			     const struct plan *p, int r, double headroom,
			     const struct perf_group_mem *v)
{
	struct perf_memo *mo = perf_memo_open(c, m, perf_calib_default());
	struct group_key k;
	if (group_key_of(mo, p, r, headroom, &k) < 0)
		return;
	struct memo_group *e = &mo->group[group_slot(&k)];
	e->gen = mo->gen;
	memcpy(&e->key, &k, GROUP_HEAD + (size_t)k.n_stages * sizeof *k.st);
	e->v = *v;
}

struct perf_stage *perf_memo_stages_take(int n)
{
	struct perf_memo *mo = memo;
	if (mo && n >= 1 && n <= MEMO_SPARES)
		for (int j = MEMO_SPARE_DEPTH - 1; j >= 0; j--)
			if (mo->spare[n][j]) {
				struct perf_stage *s = mo->spare[n][j];
				mo->spare[n][j] = NULL;
				return s;
			}
	return xmalloc((size_t)n * sizeof(struct perf_stage));
}

void perf_memo_stages_give(struct perf_stage *s, int n)
{
	struct perf_memo *mo = memo;
	if (s && mo && n >= 1 && n <= MEMO_SPARES)
		for (int j = 0; j < MEMO_SPARE_DEPTH; j++)
			if (!mo->spare[n][j]) {
				mo->spare[n][j] = s;
				return;
			}
	free(s);
}
