/* test_perf_memo.c — perf_estimate keeps a per-thread memo (perf_memo.c):
 * results from several threads at once, and after the cluster is edited
 * in place, must be exactly those of a cold call. The reference for each
 * case is computed by a thread of its own, started for that one call, so
 * its memo is empty: the uncached path, independent of what other calls
 * left behind. Also the estimator's error contract on malformed plans. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "perf.h"
#include "perf_memo.h"
#include "perf_int.h"
#include "plan.h"

static struct catalog cat;

#define N_CASES 4
#define N_THREADS 4
#define ROUNDS 150

struct est_case {
	struct cluster c;
	const struct model_spec *m;
	struct plan p;
	struct estimate ref;
};

static struct est_case cases[N_CASES];

/* Two estimates are the same when every number, flag and link name is
 * (the stages compared apart: their pointers differ). */
static int same_estimate(const struct estimate *a, const struct estimate *b)
{
	struct estimate x = *a, y = *b;
	if (a->n_stages != b->n_stages ||
	    memcmp(a->stages, b->stages, (size_t)a->n_stages * sizeof *a->stages))
		return 0;
	x.stages = y.stages = NULL;
	return !memcmp(&x, &y, sizeof x);
}

struct cold_arg {
	const struct est_case *k;
	const struct perf_calib *calib;
	struct estimate *out;
	int rc;
};

static void *cold_main(void *v)
{
	struct cold_arg *a = v;
	struct hp_err err = { 0 };
	a->rc = perf_estimate(&a->k->c, a->k->m, &a->k->p, a->calib, a->out, &err);
	return NULL;
}

/* The estimate of case k with constants calib (NULL: the shipped ones)
 * by a new thread (an empty memo). */
static int cold_estimate_with(const struct est_case *k, const struct perf_calib *calib,
			      struct estimate *out)
{
	pthread_t th;
	struct cold_arg a = { k, calib, out, -1 };
	if (pthread_create(&th, NULL, cold_main, &a))
		return -1;
	pthread_join(th, NULL);
	return a.rc;
}

static int cold_estimate(const struct est_case *k, struct estimate *out)
{
	return cold_estimate_with(k, NULL, out);
}

/* The estimates and plans of a warm/cold pair of cases. */
static void free_pair(struct est_case *a, struct est_case *b, struct estimate *ea,
		      struct estimate *eb, struct estimate *ca, struct estimate *cb)
{
	estimate_free(ea);
	estimate_free(eb);
	estimate_free(ca);
	estimate_free(cb);
	plan_free(&a->p);
	plan_free(&b->p);
}

static int add_pool(struct cluster *c, const char *spec)
{
	struct hp_err err = { 0 };
	if (cluster_add_pool_spec(c, spec, &cat, &err) < 0) {
		T_FAILF("%s: %s", spec, err.msg);
		return -1;
	}
	return 0;
}

/* Four plans that reach every part of the memo: a uniform interleaved
 * pipeline (TP, PP, DP in and across nodes), the same on the A100 pool,
 * a pipeline whose stages sit on two pools at two sites (a WAN link), and
 * a MoE plan with EP and CP. */
static int setup_cases(void)
{
	struct hp_err err = { 0 };
	const struct model_spec *m70 = catalog_model(&cat, "llama3.1-70b");
	const struct model_spec *moe = catalog_model(&cat, "mixtral-8x22b");
	if (!m70 || !moe)
		return -1;
	for (int i = 0; i < N_CASES; i++) {
		struct est_case *k = &cases[i];
		cluster_init(&k->c);
		if (add_pool(&k->c, "8x8xH100-SXM,site=east") < 0 ||
		    add_pool(&k->c, "16x8xA100-SXM4-40GB,site=west") < 0)
			return -1;
		plan_init(&k->p);
		k->p.mbs = 1;
		k->p.gbs = 512;
		k->m = m70;
	}
	struct plan *p = &cases[0].p;
	p->recompute = RC_SELECTIVE;
	p->schedule = SCHED_INTERLEAVED;
	p->vpp = 5;
	if (plan_uniform(p, &cases[0].c, m70, 0, 8, 4, 2, &err) < 0)
		return -1;
	if (plan_uniform(&cases[1].p, &cases[1].c, m70, 1, 4, 4, 8, &err) < 0)
		return -1;
	p = &cases[2].p;
	if (plan_uniform(p, &cases[2].c, m70, 0, 8, 2, 4, &err) < 0)
		return -1;
	p->replicas[0].stages[1].pool = 1;  /* second half on the other site */
	cases[3].m = moe;
	p = &cases[3].p;
	p->cp = 2;
	p->ep = 4;
	p->zero = 1;
	if (plan_uniform(p, &cases[3].c, moe, 0, 4, 2, 4, &err) < 0)
		return -1;
	for (int i = 0; i < N_CASES; i++)
		if (cold_estimate(&cases[i], &cases[i].ref) < 0)
			return -1;
	return 0;
}

static void *worker(void *v)
{
	int t = (int)(long)v, bad = 0;
	struct hp_err err = { 0 };
	for (int r = 0; r < ROUNDS; r++) {
		/* Each thread walks every case, starting at its own, so the
		 * memo changes model and cluster under it all the time. */
		const struct est_case *k = &cases[(r * 3 + t) % N_CASES];
		struct estimate e;
		if (perf_estimate(&k->c, k->m, &k->p, NULL, &e, &err) < 0)
			bad++;
		else if (!same_estimate(&e, &k->ref))
			bad++;
		estimate_free(&e);
	}
	return (void *)(long)bad;
}

TEST(threads_agree_with_cold_estimates)
{
	pthread_t th[N_THREADS];
	for (long t = 0; t < N_THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0);
	for (int t = 0; t < N_THREADS; t++) {
		void *bad = NULL;
		pthread_join(th[t], &bad);
		CHECK_EQ_INT((long)bad, 0);
	}
	/* The same again on this thread, warm. */
	CHECK_EQ_INT((long)worker((void *)0), 0);
}

/* A cluster edited in place (the TUI does so) must not be served the
 * memo of its old self: the NICs of pool 0 go from 8 x 400G to 8 x 100G,
 * so DP traffic that leaves the node slows, and the estimate must equal a
 * cold one of the edited cluster. */
TEST(memo_follows_an_edited_cluster)
{
	struct est_case k = cases[0];
	struct estimate before, after, cold;
	struct hp_err err = { 0 };
	CHECK(perf_estimate(&k.c, k.m, &k.p, NULL, &before, &err) == 0);
	CHECK(same_estimate(&before, &cases[0].ref));
	k.c.pools[0].nic_gbps = 100;
	CHECK(perf_estimate(&k.c, k.m, &k.p, NULL, &after, &err) == 0);
	CHECK(cold_estimate(&k, &cold) == 0);
	CHECK(same_estimate(&after, &cold));
	CHECK(after.step_time_s > before.step_time_s);
	CHECK_STR(after.comm[DIM_DP].link, "NVSwitch + 8x100G NIC");
	CHECK_STR(before.comm[DIM_DP].link, "NVSwitch + 8x400G NIC");
	estimate_free(&before);
	estimate_free(&after);
	estimate_free(&cold);
}

/* The same for a model and for constants edited in place (a model file
 * re-read into the same struct; `make fit` moving one constant): a
 * narrower MLP (ffn 28672 -> 14336) makes the step shorter, a slower
 * Hopper GEMM (0.611 -> 0.5 of peak) longer, and each estimate equals a
 * cold one of the edited inputs. */
TEST(memo_follows_an_edited_model_and_constants)
{
	struct est_case k = cases[0];
	struct model_spec m = *k.m;
	struct perf_calib calib = *perf_calib_default();
	struct estimate e0, e1, e2, cold;
	struct hp_err err = { 0 };
	k.m = &m;
	CHECK(perf_estimate(&k.c, &m, &k.p, &calib, &e0, &err) == 0);
	CHECK(same_estimate(&e0, &cases[0].ref));
	m.ffn = 14336;
	CHECK(perf_estimate(&k.c, &m, &k.p, &calib, &e1, &err) == 0);
	CHECK(cold_estimate_with(&k, &calib, &cold) == 0);
	CHECK(same_estimate(&e1, &cold));
	CHECK(e1.step_time_s < e0.step_time_s);
	estimate_free(&cold);
	calib.gen[GEN_HOPPER].gemm16 = 0.5;
	CHECK(perf_estimate(&k.c, &m, &k.p, &calib, &e2, &err) == 0);
	CHECK(cold_estimate_with(&k, &calib, &cold) == 0);
	CHECK(same_estimate(&e2, &cold));
	CHECK(e2.step_time_s > e1.step_time_s);
	estimate_free(&cold);
	estimate_free(&e0);
	estimate_free(&e1);
	estimate_free(&e2);
}

/* The link names are formatted once per pool pair; they must read as
 * before: the pipeline of case 2 crosses from site east to site west over
 * the cluster's WAN (the --pool default: cluster.c). */
TEST(link_names)
{
	const struct estimate *e = &cases[2].ref;
	char want[48];
	snprintf(want, sizeof want, " + WAN %gG", cases[2].c.inter_pool_gbps);
	const char *l = e->comm[DIM_PP].link;
	CHECK(strlen(l) > strlen(want) && !strcmp(l + strlen(l) - strlen(want), want));
	CHECK(strstr(l, "G NIC + WAN") != NULL);
	CHECK_STR(cases[0].ref.comm[DIM_TP].link, "NVSwitch");
}

/* Plan of gpt-1.7b (tied embeddings, 24 layers) at TP 8, pp 3 stages of
 * 8 layers, two replicas: group 0 on the pools pa[], group 1 on pb[]. */
static void tied_plan(struct plan *p, const int *pa, const int *pb)
{
	plan_init(p);
	p->mbs = 1;
	p->gbs = 64;
	p->n_replicas = 2;
	p->replicas = calloc(2, sizeof *p->replicas);
	for (int r = 0; r < 2; r++) {
		struct replica *rep = &p->replicas[r];
		rep->count = 1;
		rep->batch_share = 0.5;
		rep->n_stages = 3;
		rep->stages = calloc(3, sizeof *rep->stages);
		for (int s = 0; s < 3; s++)
			rep->stages[s] = (struct stage){ (r ? pb : pa)[s], 8, 8 * s, 8 * s + 7 };
	}
}

/* The stage memo's key holds what a stage depends on. With tied
 * embeddings the first and last stages all-reduce the embedding's
 * gradient with each other, so the first stage of a pipeline ending on
 * the other pool (and site: a WAN hop) is not the first stage of one
 * ending on its own pool, though pool, neighbours, layers, DP degree,
 * micro-batches and the plan's pools are the same. Plan X: pipelines
 * [0,0,0] and [1,1,1]; plan Y: [0,0,1] twice. Y estimated after X on one
 * thread must equal Y on an empty memo (a fresh thread). */
TEST(tied_embeddings_peer_is_in_the_key)
{
	struct est_case k = cases[0];
	const int x0[] = { 0, 0, 0 }, x1[] = { 1, 1, 1 }, y[] = { 0, 0, 1 };
	struct estimate ex, ey, cold;
	struct hp_err err = { 0 };
	k.m = catalog_model(&cat, "gpt-1.7b");
	CHECK(k.m && k.m->tied_embeddings);
	if (!k.m)
		return;
	struct plan px;
	tied_plan(&px, x0, x1);
	tied_plan(&k.p, y, y);
	CHECK(perf_estimate(&k.c, k.m, &px, NULL, &ex, &err) == 0);
	CHECK(perf_estimate(&k.c, k.m, &k.p, NULL, &ey, &err) == 0);
	CHECK(cold_estimate(&k, &cold) == 0);
	CHECK(same_estimate(&ey, &cold));
	estimate_free(&ex);
	estimate_free(&ey);
	estimate_free(&cold);
	plan_free(&px);
	plan_free(&k.p);
}

/* Stages met at another index reuse the memo's times and recompute their
 * memory: under 1F1B stage i of p keeps p - i micro-batches of
 * activations in flight (perf_mem.c), so five stages holding the same
 * layers (ranges may overlap, as the planner's probes do) have the same
 * step time per micro-batch in the middle three, and activations that
 * fall by the same amount from stage 1 to 2 and 2 to 3 (one micro-batch's
 * worth, times the allocator's slack), none equal. */
TEST(memory_follows_the_stage_index)
{
	struct est_case k = cases[0];
	struct estimate e;
	struct hp_err err = { 0 };
	plan_init(&k.p);
	k.p.mbs = 1;
	k.p.gbs = 64;
	k.p.n_replicas = 1;
	k.p.replicas = calloc(1, sizeof *k.p.replicas);
	k.p.replicas[0] = (struct replica){ 1, 1.0, 5, calloc(5, sizeof(struct stage)) };
	for (int s = 0; s < 5; s++)
		k.p.replicas[0].stages[s] = (struct stage){ 0, 8, 40, 47 };
	CHECK(perf_estimate(&k.c, k.m, &k.p, NULL, &e, &err) == 0);
	if (e.stages) {
		const struct perf_stage *st = e.stages;
		CHECK(st[1].t_total == st[2].t_total && st[2].t_total == st[3].t_total);
		double d12 = st[1].activations - st[2].activations;
		double d23 = st[2].activations - st[3].activations;
		CHECK(d12 > 0);
		CHECK(fabs(d12 - d23) <= 1e-9 * d12);
		struct estimate cold;
		CHECK(cold_estimate(&k, &cold) == 0);
		CHECK(same_estimate(&e, &cold));
		estimate_free(&cold);
	}
	estimate_free(&e);
	plan_free(&k.p);
}

/* One pipeline of 5 stages on pool 0 of case 0 (8-GPU H100 nodes), TP 8,
 * one micro-batch, the layers of stage s from first[s] (8 each). */
static void five_stages(struct plan *p, const int *first)
{
	plan_init(p);
	p->mbs = 1;
	p->gbs = 64;
	p->n_replicas = 1;
	p->replicas = calloc(1, sizeof *p->replicas);
	p->replicas[0] = (struct replica){ 1, 1.0, 5, calloc(5, sizeof(struct stage)) };
	for (int s = 0; s < 5; s++)
		p->replicas[0].stages[s] = (struct stage){ 0, 8, first[s], first[s] + 7 };
}

/* A stage served from the memo at another index recomputes only the
 * memory that depends on the index (perf_stage_memory_at) and keeps the
 * entry's weights, gradients, optimizer state and NCCL buffers. Its
 * record must equal the same stage computed afresh at that index: in
 * plan A stage 2 (layers 40-47) hits stage 1's entry; in plan B, on an
 * empty memo, stage 2 holds layers 40-47 and every other stage other
 * layers, so stage 2 is a miss, computed whole. Same pool, TP,
 * neighbours' pools and node crossings (TP 8 fills a node: every
 * hand-off leaves it), so the two records are the same bytes. */
TEST(memo_hit_at_another_index_equals_a_miss)
{
	struct est_case a = cases[0], b = cases[0];
	const int fa[] = { 0, 40, 40, 40, 72 }, fb[] = { 0, 8, 40, 16, 72 };
	five_stages(&a.p, fa);
	five_stages(&b.p, fb);
	struct estimate ea, eb;
	CHECK(cold_estimate(&a, &ea) == 0);
	CHECK(cold_estimate(&b, &eb) == 0);
	if (ea.stages && eb.stages) {
		CHECK(!memcmp(&ea.stages[2], &eb.stages[2], sizeof ea.stages[2]));
		/* and the activations do move with the index (4 vs 3 in flight) */
		CHECK(ea.stages[1].activations > ea.stages[2].activations);
	}
	estimate_free(&ea);
	estimate_free(&eb);
	plan_free(&a.p);
	plan_free(&b.p);
}

/* Pipeline hand-offs across a node edge (perf_comm.c,
 * perf_pp_boundary_crosses; perf.c keeps each boundary's answer for the
 * next stage). TP 1, PP 16, DP 1 on 8-GPU H100 nodes: ranks 0-7 on one
 * node, 8-15 on the next, so only the hand-off between stages 7 and 8
 * leaves the node, over the NICs (8 x 400G shared by the node's 8 GPUs,
 * 50 GB/s per GPU) instead of NVSwitch (450 GB/s a direction on H100).
 * By hand: every middle stage sends to two neighbours; stages 7 and 8
 * have one slow neighbour, the others none, so t_pp(7) == t_pp(8) >
 * t_pp(s) for every other middle stage s, and those are all equal (the
 * same bytes: 5 layers each, the same neighbours' pool). */
TEST(pipeline_node_edge)
{
	struct est_case k = cases[0];
	struct estimate e;
	struct hp_err err = { 0 };
	plan_init(&k.p);
	k.p.mbs = 1;
	k.p.gbs = 64;
	CHECK(plan_uniform(&k.p, &k.c, k.m, 0, 1, 16, 1, &err) == 0);
	CHECK(perf_estimate(&k.c, k.m, &k.p, NULL, &e, &err) == 0);
	if (e.stages && e.n_stages == 16) {
		const struct perf_stage *st = e.stages;
		CHECK(st[7].t_pp == st[8].t_pp);
		for (int s = 1; s < 15; s++)
			if (s != 7 && s != 8) {
				CHECK(st[s].t_pp == st[1].t_pp);
				CHECK(st[7].t_pp > st[s].t_pp);
			}
	}
	estimate_free(&e);
	plan_free(&k.p);
}

/* Case 3's MoE plan (TP 4, PP 2, CP 2, EP 4 at DP 4) as a, and as b the
 * same at DP 2 with global batch gbs_b (the two tests below meet one
 * stage again at another DP degree). */
static void case3_at_dp2(struct est_case *a, struct est_case *b, int gbs_b)
{
	struct hp_err err = { 0 };
	*a = cases[3];
	*b = cases[3];
	plan_init(&a->p);
	plan_init(&b->p);
	plan_copy(&a->p, &cases[3].p);
	plan_copy(&b->p, &cases[3].p);
	CHECK(plan_uniform(&b->p, &b->c, b->m, 0, 4, 2, 2, &err) == 0);
	b->p.gbs = gbs_b;
}

/* A stage met again at another DP degree (and the same micro-batches
 * per replica) takes its compute and TP/CP/EP/PP terms from the stage
 * core memo (perf_memo.c, struct stage_core) and computes only its DP
 * sync and memory. The MoE plan of case 3 (TP 4, PP 2, CP 2, EP 4) at DP
 * 4 then at DP 2, with gbs 512 then 256 (128 micro-batches a replica
 * both times; a stage of TP 4 x CP 2 x DP 2 = 16 GPUs fills more than a
 * node either way, so the hand-offs leave the node both times): the
 * second estimate on this thread must be the bytes of a cold estimate
 * of it on a thread of its own, and the DP sync must differ between the
 * two (by hand: the reduce-scatter and all-gather run over 8 ranks
 * instead of 16), or the test would not tell a stale core. */
TEST(stage_core_at_another_dp_equals_a_miss)
{
	struct est_case a, b;
	struct hp_err err = { 0 };
	case3_at_dp2(&a, &b, 256);
	struct estimate ea, eb, cold;
	CHECK(perf_estimate(&a.c, a.m, &a.p, NULL, &ea, &err) == 0);
	CHECK(perf_estimate(&b.c, b.m, &b.p, NULL, &eb, &err) == 0);
	CHECK(cold_estimate(&b, &cold) == 0);
	CHECK(same_estimate(&eb, &cold));
	CHECK(ea.bd.dp_comm != eb.bd.dp_comm);
	/* and the records-only path after both */
	struct estimate t;
	CHECK(perf_stage_times(&b.c, b.m, &b.p, NULL, &t, &err) == 0);
	if (t.stages && cold.stages && t.n_stages == cold.n_stages)
		CHECK(!memcmp(t.stages, cold.stages, (size_t)t.n_stages * sizeof *t.stages));
	estimate_free(&t);
	estimate_free(&ea);
	estimate_free(&eb);
	estimate_free(&cold);
	plan_free(&a.p);
	plan_free(&b.p);
}

/* Case 3's cluster with Mixtral 8x22B at TP 4, PP 4, DP 4, EP 4,
 * interleaved (vpp 2), mbs 1, gbs 256, ZeRO-1: the EP-overlap plan of
 * the two stage-core tests below. Returns plan_uniform's result. */
static int ep_interleaved_case(struct est_case *c)
{
	struct hp_err err = { 0 };
	plan_init(&c->p);
	c->p.mbs = 1;
	c->p.gbs = 256;
	c->p.ep = 4;
	c->p.zero = 1;
	c->p.schedule = SCHED_INTERLEAVED;
	c->p.vpp = 2;
	return plan_uniform(&c->p, &c->c, c->m, 0, 4, 4, 4, &err);
}

/* Cold estimates of a and b (no memo), then a and b on this thread's
 * memo in that order; each warm one must be its cold one's bytes. */
static void warm_after_cold(struct est_case *a, struct est_case *b, struct estimate *ea,
			    struct estimate *eb, struct estimate *ca, struct estimate *cb)
{
	struct hp_err err = { 0 };
	CHECK(cold_estimate(a, ca) == 0);
	CHECK(cold_estimate(b, cb) == 0);
	CHECK(perf_estimate(&a->c, a->m, &a->p, NULL, ea, &err) == 0);
	CHECK(perf_estimate(&b->c, b->m, &b->p, NULL, eb, &err) == 0);
	CHECK(same_estimate(ea, ca));
	CHECK(same_estimate(eb, cb));
}

/* Under the EP overlap (Megatron-Core's combined 1F1B: EP > 1,
 * interleaved when PP > 1, no full recompute) a stage's EP time reads
 * its rank and the micro-batches (perf_comm.c ep_overlap_exposed: the
 * passes run alone, 2 (pp - rank - 1) + (v - 1) pp + 1 of mb x v), and
 * nothing else of the stage does; the stage core memo holds one entry
 * for every rank and micro-batch count, and a hit computes the EP time
 * again (perf.c stage_front_memo; issue 13, twenty-fourth round). Case
 * 3's cluster, Mixtral 8x22B at TP 4, PP 4, DP 4, EP 4, interleaved
 * (vpp 2), at gbs 256 then 512 (64 then 128 micro-batches a replica):
 * each stage is 16 GPUs, two nodes, so every hand-off leaves the node
 * and stages 1 and 2 share every core key field but the rank. The
 * second estimate on this thread, met only through core hits at
 * another micro-batch count, and its records-only path must be the
 * bytes of cold ones; and the EP times must differ between stages 1 and
 * 2 and between the two batches (by hand: 5 + 1 = 6 of 4 x 2 x 64 passes alone for rank 1 at
 * the first batch, 2 + 4 + 1 = 7 for rank 2), or a stale EP time
 * would pass. */
TEST(stage_core_under_ep_overlap_reads_rank_and_micro_batches)
{
	struct est_case a = cases[3], b = cases[3];
	struct hp_err err = { 0 };
	CHECK(ep_interleaved_case(&a) == 0);
	CHECK(plan_ep_overlap_on(&a.p, 4));
	plan_init(&b.p);
	plan_copy(&b.p, &a.p);
	b.p.gbs = 512;
	struct estimate ea, eb, ca, cb;
	warm_after_cold(&a, &b, &ea, &eb, &ca, &cb);
	if (ca.stages && cb.stages && ca.n_stages >= 4 && cb.n_stages >= 4) {
		CHECK(ca.stages[1].t_ep != ca.stages[2].t_ep);
		CHECK(ca.stages[1].t_ep != cb.stages[1].t_ep);
	}
	struct estimate t;
	CHECK(perf_stage_times(&b.c, b.m, &b.p, NULL, &t, &err) == 0);
	if (t.stages && cb.stages && t.n_stages == cb.n_stages)
		CHECK(!memcmp(t.stages, cb.stages, (size_t)t.n_stages * sizeof *t.stages));
	estimate_free(&t);
	free_pair(&a, &b, &ea, &eb, &ca, &cb);
}

/* The stage cores of an EP plan are keyed by min(pp, 2), as those of
 * a plan without experts (perf.c core_key_of): perf_stage_ep reads the
 * depth only through the EP overlap, which a core hit computes again.
 * The plan of the test above (TP 4, DP 4, EP 4, interleaved, gbs 256)
 * first at PP 3 with stages of 14, 14 and 28 layers, then at PP 4 (14
 * each): PP 4's stage 1 (14 layers, both neighbours on the pool, both
 * hand-offs leaving the node) meets PP 3's stage 1 core. The PP 4
 * estimate on this thread must be the bytes of a cold one, and stage 1's
 * EP time must differ between the depths (by hand, the passes alone of
 * rank 1: 2 (3 - 2) + 3 + 1 = 6 at PP 3, 2 (4 - 2) + 4 + 1 = 9 at PP 4
 * of 2 x 64), or a core served with its old depth's EP time would pass. */
TEST(stage_core_at_another_depth_under_ep)
{
	struct est_case a = cases[3], b = cases[3];
	CHECK(ep_interleaved_case(&b) == 0);
	plan_init(&a.p);
	plan_copy(&a.p, &b.p);
	if (a.p.n_replicas == 1 && a.p.replicas[0].n_stages == 4) {
		a.p.replicas[0].stages[2].last_layer = a.p.replicas[0].stages[3].last_layer;
		a.p.replicas[0].n_stages = 3;
	}
	CHECK(a.p.replicas[0].n_stages == 3 && a.p.replicas[0].stages[1].last_layer -
						   a.p.replicas[0].stages[1].first_layer == 13);
	struct estimate ea, eb, ca, cb;
	warm_after_cold(&a, &b, &ea, &eb, &ca, &cb);
	if (ca.stages && cb.stages && ca.n_stages == 3 && cb.n_stages == 4)
		CHECK(ca.stages[1].t_ep != cb.stages[1].t_ep);
	free_pair(&a, &b, &ea, &eb, &ca, &cb);
}

/* Under ZeRO-3 the DP memo keys a stage's exposed DP time at one
 * micro-batch and multiplies (perf.c dp_mb_linear: perf_stage_dp's
 * ZeRO-3 value is its per-micro-batch exposure times the micro-batches,
 * plus the tied embeddings' sum, which is why an end stage of a tied
 * model keeps its micro-batches in the key; issue 13, twenty-fourth
 * round). gpt-1.7b (tied input and output embeddings) and Mixtral 8x22B
 * (untied), ZeRO-3, PP 2, DP 4 on case 0's H100 pool, estimated at gbs
 * 256 then 512 (64 then 128 micro-batches a replica): the second
 * estimate on this thread, whose DP terms come from the first's entries,
 * must be the bytes of a cold one and its DP term perf_dp_exposed's
 * (which computes every stage at its micro-batches, no memo), as must
 * the screen's (perf_dp_exposed_memo); and its DP time must differ from the
 * first's (by hand: twice the micro-batches, about twice the gathers),
 * or a stale entry would pass. Fails when the tied model's end stages
 * are keyed at one micro-batch too ((S + T) x 128 is not S x 128 + T)
 * and when the multiplier is not the micro-batches. */
TEST(zero3_dp_at_one_micro_batch_equals_a_miss)
{
	static const char *const models[] = { "gpt-1.7b", "mixtral-8x22b" };
	for (size_t mi = 0; mi < sizeof models / sizeof *models; mi++) {
		const struct model_spec *m = catalog_model(&cat, models[mi]);
		CHECK(m != NULL);
		if (!m)
			continue;
		struct est_case a = cases[0], b = cases[0];
		struct hp_err err = { 0 };
		a.m = b.m = m;
		plan_init(&a.p);
		a.p.mbs = 1;
		a.p.gbs = 256;
		a.p.zero = 3;
		CHECK(plan_uniform(&a.p, &a.c, m, 0, 8, 2, 4, &err) == 0);
		plan_init(&b.p);
		plan_copy(&b.p, &a.p);
		b.p.gbs = 512;
		struct estimate ea, eb, cb;
		CHECK(perf_estimate(&a.c, a.m, &a.p, NULL, &ea, &err) == 0);
		CHECK(perf_estimate(&b.c, b.m, &b.p, NULL, &eb, &err) == 0);
		CHECK(cold_estimate(&b, &cb) == 0);
		CHECK(same_estimate(&eb, &cb));
		CHECK(ea.bd.dp_comm > 0 && ea.bd.dp_comm != eb.bd.dp_comm);
		/* and the candidates' screen's path (dp_run_memo) */
		double dm = -1, dc = -1;
		CHECK(perf_dp_exposed_memo(&b.c, b.m, &b.p, &dm, &err) == 0);
		CHECK(perf_dp_exposed(&b.c, b.m, &b.p, NULL, &dc, &err) == 0);
		CHECK(dm == dc);
		/* perf_dp_exposed computes every stage at its micro-batches,
		 * without the memo: the estimate's DP term is its value */
		CHECK(eb.bd.dp_comm == dc);
		estimate_free(&ea);
		estimate_free(&eb);
		estimate_free(&cb);
		plan_free(&a.p);
		plan_free(&b.p);
	}
}

/* The collectives' second level (perf_memo.c, MEMO_COLL2: asked on a
 * miss of the first level's 8,192 slots, filled by every computed
 * collective; issue 13, twenty-fourth round). COLL_KEYS all-reduces and
 * all-gathers of distinct sizes on one group of 16 ranks over two
 * H100 nodes, asked twice on one thread: the second pass finds most of
 * them only in the second level (the first level holds at most 8,192).
 * Every COLL_EVERY-th size of both passes (time, algorithm, protocol,
 * status) must be the bits of that one collective asked first on a
 * thread of its own, whose memo is empty (comm_time's answer, nothing
 * kept before it); and the times of neighbouring sizes and of the two
 * collectives at one size must differ, or an entry served for the wrong
 * key would pass. */
#define COLL_KEYS 12000
#define COLL_EVERY 60
struct coll_ans {
	double t;
	int algo, proto, rc;
};

struct coll_run {
	const struct cluster *c;
	const struct model_spec *m;
	struct coll_ans *ans;   /* passes x 2 x COLL_KEYS, or one answer */
	int passes, only;       /* only >= 0: that key alone (2 i + op) */
};

static void coll_ask(struct perf_memo *mo, int key, struct coll_ans *a)
{
	struct perf_group g = { 0, 0, 16, 8, 0, 0, perf_memo_link(mo, 0, 0) };
	struct comm_result r;
	double bytes = 1e6 + 4096.0 * (key / 2);
	a->rc = perf_memo_coll(mo, &g, key % 2 ? COMM_ALLGATHER : COMM_ALLREDUCE, bytes, &r);
	a->t = r.time_s;
	a->algo = (int)r.algo;
	a->proto = (int)r.proto;
}

static void *coll_main(void *v)
{
	struct coll_run *run = v;
	struct perf_memo *mo = perf_memo_open(run->c, run->m, perf_calib_default());
	if (run->only >= 0) {
		coll_ask(mo, run->only, run->ans);
		return NULL;
	}
	for (int p = 0; p < run->passes; p++)
		for (int key = 0; key < 2 * COLL_KEYS; key++)
			coll_ask(mo, key, &run->ans[(size_t)p * 2 * COLL_KEYS + key]);
	return NULL;
}

TEST(collective_second_level_equals_a_miss)
{
	const struct est_case *k = &cases[0];
	struct coll_ans *warm = calloc(4 * COLL_KEYS, sizeof *warm);
	CHECK(warm != NULL);
	if (!warm)
		return;
	struct coll_run w = { &k->c, k->m, warm, 2, -1 };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, coll_main, &w) == 0);
	pthread_join(th, NULL);
	int bad = 0, alike = 0, asked = 0;
	for (int key = 0; key < 2 * COLL_KEYS; key += 1 + (key % 2 ? 2 * COLL_EVERY - 2 : 0)) {
		struct coll_ans cold;
		struct coll_run c1 = { &k->c, k->m, &cold, 1, key };
		CHECK(pthread_create(&th, NULL, coll_main, &c1) == 0);
		pthread_join(th, NULL);
		for (int p = 0; p < 2; p++) {
			const struct coll_ans *a = &warm[(size_t)p * 2 * COLL_KEYS + key];
			bad += a->t != cold.t || a->algo != cold.algo || a->proto != cold.proto ||
			       a->rc != cold.rc;
		}
		asked++;
	}
	for (int key = 2; key < 2 * COLL_KEYS; key++)
		alike += warm[key].t == warm[key - 2].t || (key % 2 && warm[key].t == warm[key - 1].t);
	CHECK(asked >= 2 * (COLL_KEYS / COLL_EVERY));
	CHECK(bad == 0);
	CHECK(alike == 0);
	CHECK(warm[0].rc == 0 && warm[0].t > 0);
	free(warm);
}

/* A reduce-scatter looked up as the all-gather of the same group and
 * size (perf_memo.c perf_memo_coll; issue 13, twenty-fifth round). The
 * fact it rests on is comm.c's: comm_time gives the two collectives the
 * same bits (time, algorithm, protocol, status) on every group. Checked
 * on groups of the links of five pools (NVSwitch with NVLS, NVSwitch
 * without, PCIe, a GB200 NVLink domain, an H100 pool at another site
 * over a WAN link), 2 to 512 ranks, 1 to 8 a node, with and without a
 * shared spine, from 16 bytes to 4 GiB: the answers must span more than
 * one algorithm and protocol (or the sizes would not reach comm.c's
 * branches). Then the memo's side: on one thread, each size of a group
 * in a node asked as all-gather, reduce-scatter, all-reduce and
 * all-to-all in turn must give comm_time's answer for that collective
 * on the group perf_memo.c builds (its link, ranks and the cluster's
 * oversubscription); all-reduce and all-to-all differ from the
 * all-gather there, so a key that folded them too would fail. */
static int coll_same(const struct comm_result *a, int ra, const struct comm_result *b, int rb)
{
	return a->time_s == b->time_s && a->algo == b->algo && a->proto == b->proto && ra == rb;
}

TEST(reduce_scatter_costs_as_all_gather)
{
	struct cluster c;
	cluster_init(&c);
	if (add_pool(&c, "8x8xH100-SXM,site=east") < 0 ||
	    add_pool(&c, "8x8xA100-SXM4-40GB,site=east") < 0 ||
	    add_pool(&c, "8x8xL40S,site=east") < 0 || add_pool(&c, "4x72xGB200,site=east") < 0 ||
	    add_pool(&c, "8x8xH100-SXM,site=west") < 0)
		return;
	const struct model_spec *m = cases[0].m;
	struct perf_memo *mo = perf_memo_open(&c, m, perf_calib_default());
	static const int ranks[] = { 2, 3, 8, 16, 64, 512 }, rpn[] = { 1, 2, 4, 8 };
	int bad = 0, asked = 0, algos = 0, protos = 0;
	for (int a = 0; a < c.n_pools; a++)
		for (int b = a; b <= a + 1; b++)   /* alone, and with the next pool (4 with 0: WAN) */
			for (size_t i = 0; i < HP_ARRAY_LEN(ranks); i++)
				for (size_t j = 0; j < HP_ARRAY_LEN(rpn); j++)
					for (int os = 1; os <= 2; os++)
						for (int e = 4; e <= 32; e += 2) {
							struct comm_group g =
								perf_memo_link(mo, a, b % c.n_pools)->base;
							g.ranks = ranks[i];
							g.ranks_per_node = HP_MIN(rpn[j], ranks[i]);
							g.oversub = os;
							struct comm_result ra, rr;
							double bytes = ldexp(1.0, e);
							int ca = comm_time(&g, COMM_ALLGATHER, bytes, COMM_ALGO_AUTO,
									   COMM_PROTO_AUTO, &ra, NULL);
							int cr = comm_time(&g, COMM_REDUCESCATTER, bytes,
									   COMM_ALGO_AUTO, COMM_PROTO_AUTO, &rr,
									   NULL);
							bad += !coll_same(&ra, ca, &rr, cr);
							algos |= 1 << ra.algo;
							protos |= 1 << ra.proto;
							asked++;
						}
	CHECK(asked > 5000);
	CHECK(bad == 0);
	CHECK(__builtin_popcount((unsigned)algos) >= 2);
	CHECK(__builtin_popcount((unsigned)protos) >= 2);
	/* the memo: one thread, four collectives a size */
	static const enum comm_coll ops[] = { COMM_ALLGATHER, COMM_REDUCESCATTER, COMM_ALLREDUCE,
					      COMM_ALLTOALL };
	int wrong = 0, differ = 0, n = 0;
	for (int a = 0; a < 4; a++)
		for (int r = 2; r <= 8; r *= 2)
			for (int e = 10; e <= 30; e += 4) {
				struct perf_group pg = { a, a, r, r, 0, 0, perf_memo_link(mo, a, a) };
				struct comm_group g = pg.link->base;
				g.ranks = r;
				g.ranks_per_node = r;
				g.oversub = c.oversub;
				double bytes = ldexp(1.0, e) * 1.25;
				double t_ag = 0;
				for (size_t o = 0; o < HP_ARRAY_LEN(ops); o++) {
					struct comm_result rm, rd;
					int cm = perf_memo_coll(mo, &pg, ops[o], bytes, &rm);
					int cd = comm_time(&g, ops[o], bytes, COMM_ALGO_AUTO,
							   COMM_PROTO_AUTO, &rd, NULL);
					wrong += !coll_same(&rm, cm, &rd, cd);
					if (o == 0)
						t_ag = rd.time_s;
					else if (o >= 2)
						differ += rd.time_s != t_ag;
				}
				n++;
			}
	CHECK(n == 4 * 3 * 6);
	CHECK(wrong == 0);
	CHECK(differ == 2 * n);
}

/* perf_stage_times of case k's plan with every stage at layers [a, b],
 * by a new thread (an empty memo): the records-only path computed from
 * nothing a probe before it left. */
struct cold_times_arg {
	struct plan p;
	const struct est_case *k;
	struct estimate out;
	struct hp_err err;
	int rc;
};

static void *cold_times_main(void *v)
{
	struct cold_times_arg *a = v;
	a->rc = perf_stage_times(&a->k->c, a->k->m, &a->p, NULL, &a->out, &a->err);
	return NULL;
}

static int cold_times(const struct est_case *k, int a, int b, struct cold_times_arg *out)
{
	plan_init(&out->p);
	plan_copy(&out->p, &k->p);
	for (int r = 0; r < out->p.n_replicas; r++)
		for (int i = 0; i < out->p.replicas[r].n_stages; i++) {
			out->p.replicas[r].stages[i].first_layer = a;
			out->p.replicas[r].stages[i].last_layer = b;
		}
	out->k = k;
	out->err.code = 0;
	out->err.msg[0] = '\0';
	out->rc = -1;
	pthread_t th;
	if (pthread_create(&th, NULL, cold_times_main, out))
		return -1;
	pthread_join(th, NULL);
	plan_free(&out->p);
	return out->rc;
}

#define EACH_MAX 4
struct each_seen {
	int n;
	struct estimate e[EACH_MAX];
};

static void each_take(void *arg, int v, const struct estimate *e)
{
	struct each_seen *s = arg;
	CHECK(v == s->n && v < EACH_MAX);
	if (v != s->n || v >= EACH_MAX)
		return;
	s->e[v] = *e;
	s->e[v].stages = malloc((size_t)e->n_stages * sizeof *e->stages);
	if (s->e[v].stages)
		memcpy(s->e[v].stages, e->stages, (size_t)e->n_stages * sizeof *e->stages);
	s->n++;
}

/* A layout's probes through one context (perf_stage_times_each, issue
 * 13 eighteenth round): every stage of the plan at one layer range, then
 * the next. Each range's estimate must be the bytes of perf_stage_times
 * of that plan on a thread of its own, for the interleaved pipeline
 * (case 0), the two-site pipeline (case 2) and the MoE plan with EP and
 * CP (case 3), with the ranges the planner probes (the last layer, the
 * last two, the first) in both orders; and a range past the model's
 * layers must fail with perf_stage_times's message for it, after the
 * ranges before it were given and none after. */
TEST(probe_ranges_share_a_context)
{
	static const int kase[] = { 0, 2, 3 };
	for (size_t ci = 0; ci < sizeof kase / sizeof *kase; ci++) {
		const struct est_case *k = &cases[kase[ci]];
		int L = k->m->layers;
		int orders[2][3][2] = { { { L - 1, L - 1 }, { L - 2, L - 1 }, { 0, 0 } },
					{ { 0, 0 }, { L - 2, L - 1 }, { L - 1, L - 1 } } };
		for (int o = 0; o < 2; o++) {
			int first[3], last[3];
			for (int v = 0; v < 3; v++)
				first[v] = orders[o][v][0], last[v] = orders[o][v][1];
			struct plan p;
			plan_init(&p);
			plan_copy(&p, &k->p);
			struct each_seen seen = { 0 };
			struct hp_err err = { 0 };
			CHECK(perf_stage_times_each(&k->c, k->m, &p, first, last, 3, each_take, &seen,
						    &err) == 0);
			CHECK(seen.n == 3);
			for (int v = 0; v < seen.n; v++) {
				struct cold_times_arg cold;
				CHECK(cold_times(k, first[v], last[v], &cold) == 0);
				CHECK(same_estimate(&seen.e[v], &cold.out));
				estimate_free(&cold.out);
				free(seen.e[v].stages);
			}
			plan_free(&p);
		}
		/* the second range ends past the model: one range given */
		int first[3] = { L - 1, 1, 0 }, last[3] = { L - 1, L, 0 };
		struct plan p;
		plan_init(&p);
		plan_copy(&p, &k->p);
		struct each_seen seen = { 0 };
		struct hp_err err = { 0 };
		CHECK(perf_stage_times_each(&k->c, k->m, &p, first, last, 3, each_take, &seen, &err) ==
		      -1);
		CHECK(seen.n == 1);
		for (int v = 0; v < seen.n; v++)
			free(seen.e[v].stages);
		struct cold_times_arg cold;
		CHECK(cold_times(k, 1, L, &cold) == -1);
		CHECK_STR(err.msg, cold.err.msg);
		plan_free(&p);
	}
}

/* The planner's memory check (perf_stage_memories, issue 13 ninth round)
 * takes perf_stage_compute's outputs from a memo kept without the DP
 * degree and the micro-batches, and NCCL's buffers from a memo keyed by
 * the degrees. The MoE plan of case 3 (TP 4, PP 2, CP 2, EP 4, ZeRO-1) at
 * DP 4 (gbs 512), then at DP 2 with gbs 128 (64 micro-batches instead of
 * 128): the second check must give the memory of a cold estimate of it
 * on a thread of its own, bit for bit, and its optimizer state must be
 * twice the first's (by hand: ZeRO-1 shards the 12 bytes a parameter of
 * Adam's fp32 state over DP x CP ranks, 4 instead of 8, and the experts'
 * over DP x CP / EP, 1 instead of 2; halving a divisor is exact).
 * Tried: the DP degree left out of NCCL's key (perf_mem.c), the second
 * part fails; case 3's DP groups leave the node at both degrees, so
 * their buffers are the same. */
TEST(memory_check_at_another_dp_equals_a_miss)
{
	struct est_case a, b;
	struct hp_err err = { 0 };
	case3_at_dp2(&a, &b, 128);
	struct estimate ma, mb, cold;
	CHECK(perf_stage_memories(&a.c, a.m, &a.p, NULL, &ma, &err) == 0);
	CHECK(perf_stage_memories(&b.c, b.m, &b.p, NULL, &mb, &err) == 0);
	CHECK(cold_estimate(&b, &cold) == 0);
	CHECK_EQ_INT(mb.n_stages, cold.n_stages);
	CHECK(mb.fits == cold.fits && mb.worst_over_bytes == cold.worst_over_bytes &&
	      mb.worst_stage == cold.worst_stage);
	for (int i = 0; i < mb.n_stages && i < cold.n_stages; i++) {
		const struct perf_stage *x = &mb.stages[i], *y = &cold.stages[i];
		CHECK(x->weights == y->weights && x->grads == y->grads &&
		      x->optimizer == y->optimizer && x->activations == y->activations &&
		      x->other == y->other && x->outside == y->outside && x->slack == y->slack &&
		      x->total == y->total && x->capacity == y->capacity && x->fits == y->fits);
		if (i < ma.n_stages)
			CHECK(x->optimizer == 2 * ma.stages[i].optimizer);
	}
	estimate_free(&ma);
	estimate_free(&mb);
	estimate_free(&cold);
	/* NCCL's buffers at another DP degree: Llama 3.1 8B, TP 1, PP 1, DP
	 * 16 over two H100 nodes, then DP 8 inside one: the DP ring then
	 * holds one connection per channel instead of two (no network tree),
	 * so less memory outside the allocator, and a cold estimate's */
	a.m = b.m = catalog_model(&cat, "llama3.1-8b");
	CHECK(a.m != NULL);
	if (a.m && plan_uniform(&a.p, &a.c, a.m, 0, 1, 1, 16, &err) == 0 &&
	    plan_uniform(&b.p, &b.c, b.m, 0, 1, 1, 8, &err) == 0) {
		a.p.gbs = 64;
		b.p.gbs = 32;
		a.p.cp = b.p.cp = a.p.ep = b.p.ep = 1;   /* case 3's were 2 and 4 */
		CHECK(perf_stage_memories(&a.c, a.m, &a.p, NULL, &ma, &err) == 0);
		CHECK(perf_stage_memories(&b.c, b.m, &b.p, NULL, &mb, &err) == 0);
		CHECK(cold_estimate(&b, &cold) == 0);
		if (ma.stages && mb.stages && cold.stages) {
			CHECK(mb.stages[0].outside < ma.stages[0].outside);
			CHECK(mb.stages[0].outside == cold.stages[0].outside);
			CHECK(mb.stages[0].total == cold.stages[0].total);
		}
		estimate_free(&ma);
		estimate_free(&mb);
		estimate_free(&cold);
	} else {
		CHECK(0);
	}
	plan_free(&a.p);
	plan_free(&b.p);
}

/* The DP gradients' dtype set on the plan (grad_fp32: --accumulate-
 * allreduce-grads-in-fp32) changes the DP sync (4 bytes a gradient
 * instead of 2), so the stage memo must not serve one setting's DP time
 * for the other: the same plan with grad_fp32 0, then 1, on this thread
 * must equal a cold estimate with 1, and differ from the estimate with 0
 * (ZeRO-1 on 16 ranks moves twice the bytes). */
TEST(grad_fp32_is_in_the_key)
{
	struct est_case k = cases[1];
	struct hp_err err = { 0 };
	plan_init(&k.p);
	plan_copy(&k.p, &cases[1].p);
	struct estimate e0, e1, cold;
	k.p.grad_fp32 = 0;
	CHECK(perf_estimate(&k.c, k.m, &k.p, NULL, &e0, &err) == 0);
	k.p.grad_fp32 = 1;
	CHECK(perf_estimate(&k.c, k.m, &k.p, NULL, &e1, &err) == 0);
	CHECK(cold_estimate(&k, &cold) == 0);
	CHECK(same_estimate(&e1, &cold));
	CHECK(e0.bd.dp_comm < e1.bd.dp_comm);
	estimate_free(&e0);
	estimate_free(&e1);
	estimate_free(&cold);
	plan_free(&k.p);
}

/* The DP memo keys a plan's settings as the serial of their entry in a
 * table of eight (perf_memo_glob): twelve settings of one plan (ZeRO 0,
 * 1 or 2, gradient overlap off or on, fp32 gradients off or on), taken
 * twice in turn on this thread, replace every entry of that table
 * before the second pass. Each estimate of the second pass must be the
 * bytes of its cold estimate, and its exposed DP time what
 * perf_dp_exposed computes without any memo and perf_dp_exposed_memo
 * through it. */
TEST(dp_memo_across_more_settings_than_serials)
{
	struct est_case k = cases[1];
	struct hp_err err = { 0 };
	plan_init(&k.p);
	plan_copy(&k.p, &cases[1].p);
	for (int pass = 0; pass < 2; pass++)
		for (int v = 0; v < 12; v++) {
			k.p.zero = v % 3;
			k.p.grad_overlap = v / 3 % 2;
			k.p.grad_fp32 = v / 6;
			struct estimate e, cold;
			CHECK(perf_estimate(&k.c, k.m, &k.p, NULL, &e, &err) == 0);
			if (pass) {
				double plain = -1, memo = -1;
				CHECK(cold_estimate(&k, &cold) == 0);
				CHECK(same_estimate(&e, &cold));
				CHECK(perf_dp_exposed(&k.c, k.m, &k.p, NULL, &plain, &err) == 0);
				CHECK(perf_dp_exposed_memo(&k.c, k.m, &k.p, &memo, &err) == 0);
				CHECK(e.bd.dp_comm == plain && memo == plain);
				estimate_free(&cold);
			}
			estimate_free(&e);
		}
	plan_free(&k.p);
}

/* estimate_free keeps a thread's freed stage records as a spare for the
 * next estimate with as many stages (perf_memo.c). A spare must come back
 * as if new: records scribbled on before the free, then an estimate of
 * the same length (and one of another length, and a records-only call)
 * must equal the cold reference. Records made on another thread and
 * freed here go the same way. */
TEST(stage_record_spares_are_clean)
{
	const struct est_case *k = &cases[1];
	struct estimate e, f;
	struct hp_err err = { 0 };
	for (int round = 0; round < 3; round++) {
		CHECK(perf_estimate(&k->c, k->m, &k->p, NULL, &e, &err) == 0);
		CHECK(same_estimate(&e, &k->ref));
		if (e.stages)
			memset(e.stages, 0xa5, (size_t)e.n_stages * sizeof *e.stages);
		estimate_free(&e);
		CHECK(e.stages == NULL && e.n_stages == 0);
	}
	CHECK(perf_stage_times(&k->c, k->m, &k->p, NULL, &f, &err) == 0);
	if (f.stages && k->ref.stages) {
		CHECK_EQ_INT(f.n_stages, k->ref.n_stages);
		for (int i = 0; i < f.n_stages; i++) {
			CHECK(f.stages[i].t_total == k->ref.stages[i].t_total);
			CHECK(f.stages[i].total == k->ref.stages[i].total);
		}
		memset(f.stages, 0x5a, (size_t)f.n_stages * sizeof *f.stages);
	}
	estimate_free(&f);
	/* another length (case 2: 2 stages; case 1: 4), then the first again */
	CHECK(perf_estimate(&cases[2].c, cases[2].m, &cases[2].p, NULL, &e, &err) == 0);
	CHECK(same_estimate(&e, &cases[2].ref));
	estimate_free(&e);
	struct estimate other;
	CHECK(cold_estimate(k, &other) == 0);   /* made on another thread */
	estimate_free(&other);
	CHECK(perf_estimate(&k->c, k->m, &k->p, NULL, &e, &err) == 0);
	CHECK(same_estimate(&e, &k->ref));
	estimate_free(&e);
}

/* perf_estimate's contract (perf.h): -1 with a message, never a crash,
 * for a plan whose stages point outside the cluster or the model, or
 * whose degrees are below 1. */
TEST(malformed_plans_fail)
{
	struct est_case k = cases[0];
	struct estimate e;
	struct hp_err err = { 0 };
	struct plan p;
	plan_init(&p);
	plan_copy(&p, &k.p);
	p.replicas[0].stages[0].pool = 5;
	CHECK(perf_estimate(&k.c, k.m, &p, NULL, &e, &err) == -1);
	CHECK_CONTAINS(err.msg, "pool 5 of 2");
	CHECK(e.stages == NULL);
	p.replicas[0].stages[0].pool = 0;
	p.replicas[0].stages[3].last_layer = 80;   /* 70B has layers 0-79 */
	CHECK(perf_estimate(&k.c, k.m, &p, NULL, &e, &err) == -1);
	CHECK_CONTAINS(err.msg, "layers");
	p.replicas[0].stages[3].last_layer = 79;
	p.mbs = 0;
	CHECK(perf_estimate(&k.c, k.m, &p, NULL, &e, &err) == -1);
	CHECK_CONTAINS(err.msg, "at least 1");
	p.mbs = 1;
	CHECK(perf_estimate(&k.c, k.m, &p, NULL, &e, &err) == 0);
	CHECK(same_estimate(&e, &k.ref));
	estimate_free(&e);
	plan_free(&p);
}

/* The EP overlap's exposed all-to-all depends on the stage's rank
 * (perf_comm.c ep_overlap_exposed: 2 (pp - rank - 1) + (v - 1) pp + 1
 * chunk passes run in line), so a stage met at another index must not
 * reuse another rank's EP time. Mixtral 8x22B (56 layers) on 8x8 H100,
 * TP 2, PP 4, DP 8, EP 8, interleaved:2 under megatron-core's overlap:
 * plan A holds layers 14-27 at index 1, plan B at index 2. B estimated
 * right after A on this thread must equal a cold estimate of B (found
 * by review: before ep_tail was in the key, B's stage 2 took A's index-1
 * EP time, 0.002999 s against 0.002333 s cold). */
TEST(ep_overlap_rank_is_in_the_key)
{
	struct est_case a, b;
	struct hp_err err = { 0 };
	memset(&a, 0, sizeof a);
	cluster_init(&a.c);
	if (add_pool(&a.c, "8x8xH100-SXM") < 0)
		return;
	a.m = catalog_model(&cat, "mixtral-8x22b");
	plan_init(&a.p);
	a.p.mbs = 1;
	a.p.gbs = 512;
	a.p.ep = 8;
	a.p.recompute = RC_SELECTIVE;
	a.p.schedule = SCHED_INTERLEAVED;
	a.p.vpp = 2;
	CHECK(plan_uniform(&a.p, &a.c, a.m, 0, 2, 4, 8, &err) == 0);
	b = a;
	plan_init(&b.p);
	plan_copy(&b.p, &a.p);
	const int fa[] = { 0, 14, 28, 42 }, fb[] = { 0, 6, 14, 28 };
	for (int i = 0; i < 4; i++) {
		a.p.replicas[0].stages[i].first_layer = fa[i];
		a.p.replicas[0].stages[i].last_layer = i < 3 ? fa[i + 1] - 1 : a.m->layers - 1;
		b.p.replicas[0].stages[i].first_layer = fb[i];
		b.p.replicas[0].stages[i].last_layer = i < 3 ? fb[i + 1] - 1 : b.m->layers - 1;
	}
	struct estimate ea, eb, ec;
	CHECK(perf_estimate(&a.c, a.m, &a.p, NULL, &ea, &err) == 0);
	CHECK(perf_estimate(&b.c, b.m, &b.p, NULL, &eb, &err) == 0);
	CHECK(cold_estimate(&b, &ec) == 0);
	CHECK(same_estimate(&eb, &ec));
	/* the rank matters: the same layers, another EP time */
	if (ea.stages && eb.stages)
		CHECK(ea.stages[1].t_ep != eb.stages[2].t_ep);
	estimate_free(&ea);
	estimate_free(&eb);
	estimate_free(&ec);
	plan_free(&a.p);
	plan_free(&b.p);
}

/* The MoE plan keys' memo test: Mixtral 8x7B on 4x8 H100, TP 2, PP 2,
 * DP 8, EP 8, first with the keys unset (a) and then with one key set by
 * set_key (b) on this thread; b's estimate must equal its cold estimate.
 * Fills *ea and *eb for the caller's check of what the key moves; 0 when
 * both were estimated. */
static int moe_key_pair(void (*set_key)(struct plan *), struct estimate *ea,
			struct estimate *eb)
{
	struct est_case a, b;
	struct hp_err err = { 0 };
	memset(&a, 0, sizeof a);
	cluster_init(&a.c);
	if (add_pool(&a.c, "4x8xH100-SXM") < 0)
		return -1;
	a.m = catalog_model(&cat, "mixtral-8x7b");
	plan_init(&a.p);
	a.p.mbs = 1;
	a.p.gbs = 256;
	a.p.ep = 8;
	CHECK(plan_uniform(&a.p, &a.c, a.m, 0, 2, 2, 8, &err) == 0);
	b = a;
	plan_init(&b.p);
	plan_copy(&b.p, &a.p);
	set_key(&b.p);
	struct estimate ec;
	int rc = perf_estimate(&a.c, a.m, &a.p, NULL, ea, &err);
	CHECK(rc == 0);
	if (rc == 0) {
		rc = perf_estimate(&b.c, b.m, &b.p, NULL, eb, &err);
		CHECK(rc == 0);
		if (rc < 0)
			estimate_free(ea);
	}
	if (rc == 0) {
		CHECK(cold_estimate(&b, &ec) == 0);
		CHECK(same_estimate(eb, &ec));
		estimate_free(&ec);
	}
	plan_free(&a.p);
	plan_free(&b.p);
	return rc;
}

static void set_etp_1(struct plan *p)
{
	p->etp = 1;
}

static void set_alltoall(struct plan *p)
{
	p->moe_dispatch = MOE_DISPATCH_ALLTOALL;
}

/* The experts' TP (the plan key etp) changes the expert GEMMs' shape, the
 * expert weights per GPU, the EP group's nodes and the expert-DP group
 * (perf_compute.c expert_shape, perf_comm.c perf_expert_layout), so the
 * layer, stage and NCCL memo keys carry it: etp 1 against the default
 * (= TP 2); its expert weights per GPU double. */
TEST(etp_is_in_the_key)
{
	struct estimate ea, eb;
	if (moe_key_pair(set_etp_1, &ea, &eb) < 0)
		return;
	if (ea.stages && eb.stages)
		CHECK(eb.stages[0].weights > ea.stages[0].weights);
	estimate_free(&ea);
	estimate_free(&eb);
}

/* The token dispatcher (the plan key moe_dispatch) changes the EP
 * all-to-all's network bytes (perf_comm.c ep_dispatch_time), so the stage
 * memo key carries it: alltoall against the megatron-core default (flex),
 * with the EP group striding TP 2 ranks (2 nodes); alltoall must be the
 * slower (a token's network copies: 2 x 1/2 = 1 against 1 - C(4,2)/C(8,2)
 * = 0.786, with 8 experts, 2 per token, 4 a node). */
TEST(moe_dispatch_is_in_the_key)
{
	struct estimate ea, eb;
	if (moe_key_pair(set_alltoall, &ea, &eb) < 0)
		return;
	CHECK(eb.step_time_s > ea.step_time_s);
	estimate_free(&ea);
	estimate_free(&eb);
}

/* Case k's plan at two global batches, as a (gbs_a) then b (gbs_b):
 * both estimated on this thread in that order, so b meets the stages a
 * left in the memo at another micro-batch count; b's cold estimate on a
 * thread of its own into *cold. */
static void at_two_batches(const struct est_case *k, int gbs_a, int gbs_b,
			   struct est_case *a, struct est_case *b, struct estimate *ea,
			   struct estimate *eb, struct estimate *cold)
{
	struct hp_err err = { 0 };
	*a = *k;
	*b = *k;
	plan_init(&a->p);
	plan_init(&b->p);
	plan_copy(&a->p, &k->p);
	plan_copy(&b->p, &k->p);
	a->p.gbs = gbs_a;
	b->p.gbs = gbs_b;
	CHECK(perf_estimate(&a->c, a->m, &a->p, NULL, ea, &err) == 0);
	CHECK(perf_estimate(&b->c, b->m, &b->p, NULL, eb, &err) == 0);
	CHECK(cold_estimate(b, cold) == 0);
}

/* The stage memo and the stage cores keep the micro-batch count only
 * where a value they hold reads it (perf_int.h, struct stage_key; issue
 * 13, tenth round), and the collective notes are made afresh for the
 * stages an estimate reports (perf.c, estimate_notes). Three plans, each
 * at gbs 512 then 16 on this thread, the second must be the bytes of its
 * cold estimate, and the two must differ where the micro-batches are
 * read, or the test would not tell a stale entry:
 *  - case 1 (70B, TP 4, PP 4, DP 8, 1F1B, ZeRO-1): 64 then 2 micro-
 *    batches a replica. Stage times per micro-batch read nothing of
 *    them (equal); the TP notes' calls per step are per micro-batch
 *    times the count (64 / 2 = 32 times as many, exact: powers of two);
 *    the first stage holds min(pp, mb) = min(4, 64) = 4 micro-batches in
 *    flight, then min(4, 2) = 2 (fewer activations).
 *  - the same under ZeRO-3: its DP gathers run per micro-batch, so the
 *    exposed DP time is 32 times the second's (a power of two again).
 *  - Mixtral 8x22B, TP 2, PP 4, DP 8, EP 8, interleaved 2, under
 *    megatron-core's EP overlap: stage 0 runs 2 (4 - 0 - 1) + (2 - 1) 4
 *    + 1 = 11 of its mb x 2 chunk passes with the all-to-alls in line,
 *    11 of 128 then 11 of 4 (gbs 16: 2 micro-batches): another EP time.
 * Tried: the micro-batches left out of perf.c's stage_from_hit check
 * (hit->mb), the first part's warm estimate keeps 4 micro-batches of
 * activations and differs from the cold one. */
TEST(micro_batches_only_where_read)
{
	struct est_case a, b;
	struct estimate ea, eb, cold;
	at_two_batches(&cases[1], 512, 16, &a, &b, &ea, &eb, &cold);
	CHECK(same_estimate(&eb, &cold));
	if (ea.stages && eb.stages) {
		CHECK(ea.stages[0].t_total == eb.stages[0].t_total);
		CHECK(ea.stages[0].activations > eb.stages[0].activations);
	}
	CHECK(ea.comm[DIM_TP].used && ea.comm[DIM_TP].calls == 32 * eb.comm[DIM_TP].calls);
	estimate_free(&ea);
	estimate_free(&eb);
	estimate_free(&cold);
	plan_free(&a.p);
	plan_free(&b.p);

	struct est_case z = cases[1];
	plan_init(&z.p);
	plan_copy(&z.p, &cases[1].p);
	z.p.zero = 3;
	at_two_batches(&z, 512, 16, &a, &b, &ea, &eb, &cold);
	CHECK(same_estimate(&eb, &cold));
	CHECK(eb.bd.dp_comm > 0 && ea.bd.dp_comm == 32 * eb.bd.dp_comm);
	estimate_free(&ea);
	estimate_free(&eb);
	estimate_free(&cold);
	plan_free(&a.p);
	plan_free(&b.p);
	plan_free(&z.p);

	struct est_case x;
	struct hp_err err = { 0 };
	memset(&x, 0, sizeof x);
	cluster_init(&x.c);
	if (add_pool(&x.c, "8x8xH100-SXM") < 0)
		return;
	x.m = catalog_model(&cat, "mixtral-8x22b");
	plan_init(&x.p);
	x.p.mbs = 1;
	x.p.gbs = 512;
	x.p.ep = 8;
	x.p.recompute = RC_SELECTIVE;
	x.p.schedule = SCHED_INTERLEAVED;
	x.p.vpp = 2;
	CHECK(plan_uniform(&x.p, &x.c, x.m, 0, 2, 4, 8, &err) == 0);
	CHECK(plan_ep_overlap_on(&x.p, 4));
	at_two_batches(&x, 512, 16, &a, &b, &ea, &eb, &cold);
	CHECK(same_estimate(&eb, &cold));
	if (ea.stages && eb.stages)
		CHECK(ea.stages[0].t_ep != eb.stages[0].t_ep);
	estimate_free(&ea);
	estimate_free(&eb);
	estimate_free(&cold);
	plan_free(&a.p);
	plan_free(&b.p);
	plan_free(&x.p);
}

/* DeepSeek-V3 (61 layers, the first 3 dense) on 8x8 H100, TP 8, PP 4,
 * DP 2, EP 8, its stages at the layer ranges first[0..3] (the last to
 * layer 60). */
static int deepseek_plan(struct est_case *k, const int *first)
{
	struct hp_err err = { 0 };
	memset(k, 0, sizeof *k);
	cluster_init(&k->c);
	if (add_pool(&k->c, "8x8xH100-SXM") < 0)
		return -1;
	k->m = catalog_model(&cat, "deepseek-v3");
	if (!k->m)
		return -1;
	plan_init(&k->p);
	k->p.mbs = 1;
	k->p.gbs = 64;
	k->p.ep = 8;
	if (plan_uniform(&k->p, &k->c, k->m, 0, 8, 4, 2, &err) < 0)
		return -1;
	for (int i = 0; i < 4; i++) {
		k->p.replicas[0].stages[i].first_layer = first[i];
		k->p.replicas[0].stages[i].last_layer = i < 3 ? first[i + 1] - 1 : k->m->layers - 1;
	}
	return 0;
}

/* A stage entry is keyed by its number of layers and of MoE layers, not
 * by where they lie (perf_int.h, stage_key_layers; issue 13, tenth
 * round), and serves every stage of that shape. Two facts a wrong key
 * would break, each also against a cold estimate:
 *  - plan A's stages 1 and 2 hold layers 4-7 and 8-11, four MoE layers
 *    each, on one pool between stages of that pool (every hand-off
 *    leaves its 8-GPU node: TP 8 fills it), so their times per
 *    micro-batch are equal, and their records still name their own
 *    layers (4-7, 8-11: a hit takes the range from the plan);
 *  - plan B's stage 1 holds layers 1-4, as many layers but two of them
 *    dense (1 and 2; 3 and 4 MoE), estimated right after A on this
 *    thread: it must not take A's all-MoE stage's time (a DeepSeek-V3
 *    dense layer's MLP, 18,432 wide, costs another time than a MoE
 *    layer's 8 routed experts of 2,048 and a shared one), and B must be
 *    the bytes of its cold estimate. */
TEST(stage_shape_is_in_the_key)
{
	struct est_case a, b;
	const int fa[] = { 0, 4, 8, 12 }, fb[] = { 0, 1, 5, 12 };
	if (deepseek_plan(&a, fa) < 0 || deepseek_plan(&b, fb) < 0) {
		CHECK(0);
		return;
	}
	struct hp_err err = { 0 };
	struct estimate ea, eb, ca, cb;
	CHECK(perf_estimate(&a.c, a.m, &a.p, NULL, &ea, &err) == 0);
	CHECK(perf_estimate(&b.c, b.m, &b.p, NULL, &eb, &err) == 0);
	CHECK(cold_estimate(&a, &ca) == 0);
	CHECK(cold_estimate(&b, &cb) == 0);
	CHECK(same_estimate(&ea, &ca));
	CHECK(same_estimate(&eb, &cb));
	if (ea.stages && eb.stages) {
		CHECK(ea.stages[1].t_total == ea.stages[2].t_total);
		CHECK_EQ_INT(ea.stages[1].first_layer, 4);
		CHECK_EQ_INT(ea.stages[1].last_layer, 7);
		CHECK_EQ_INT(ea.stages[2].first_layer, 8);
		CHECK_EQ_INT(ea.stages[2].last_layer, 11);
		CHECK(eb.stages[1].t_total != ea.stages[1].t_total);
		CHECK_EQ_INT(eb.stages[1].first_layer, 1);
	}
	free_pair(&a, &b, &ea, &eb, &ca, &cb);
}

/* A pp_layout sets the activations in flight on each rank from its
 * chunks (pp_layout_inflight), which the stage key does not hold: a memo
 * entry computed without the layout must not give its memory to the
 * plan with it, nor the other way round. DeepSeek-V3's recipe layout
 * Et*4|(t*4|)*14tL at PP 4, VP 4 places 16, 16, 16 and 13 layers on the
 * ranks (layers 0-15, 16-31, 32-47, 48-60); rank 3's chunks 4, 4, 4, 1
 * hold 52 layer-micro-batches at the peak of Megatron-Core's schedule
 * (test_pp_layout counts it), 4 micro-batches of its 13 layers, where
 * equal chunks hold (3 x 4 + 1) / 4 = 3.25: its memory differs. The
 * plan without then with the layout, and with then without, each
 * estimated warm on this thread, must be the bytes of its cold
 * estimate. */
TEST(pp_layout_memory_is_not_reused)
{
	struct est_case a, b;
	const int first[] = { 0, 16, 32, 48 };
	if (deepseek_plan(&a, first) < 0 || deepseek_plan(&b, first) < 0) {
		CHECK(0);
		return;
	}
	a.p.schedule = b.p.schedule = SCHED_INTERLEAVED;
	a.p.vpp = b.p.vpp = 4;
	snprintf(b.p.pp_layout, sizeof b.p.pp_layout, "%s", "Et*4|(t*4|)*14tL");
	struct hp_err err = { 0 };
	struct estimate ea, eb, eb2, ea2, ca, cb;
	CHECK(perf_estimate(&a.c, a.m, &a.p, NULL, &ea, &err) == 0);
	CHECK(perf_estimate(&b.c, b.m, &b.p, NULL, &eb, &err) == 0);
	CHECK(perf_estimate(&b.c, b.m, &b.p, NULL, &eb2, &err) == 0);
	CHECK(perf_estimate(&a.c, a.m, &a.p, NULL, &ea2, &err) == 0);
	CHECK(cold_estimate(&a, &ca) == 0);
	CHECK(cold_estimate(&b, &cb) == 0);
	CHECK(same_estimate(&ea, &ca));
	CHECK(same_estimate(&eb, &cb));
	CHECK(same_estimate(&eb2, &cb));
	CHECK(same_estimate(&ea2, &ca));
	CHECK(ca.stages && cb.stages && ca.n_stages == 4 && cb.n_stages == 4);
	if (ca.stages && cb.stages && ca.n_stages == 4 && cb.n_stages == 4)
		CHECK(cb.stages[3].total > ca.stages[3].total);
	estimate_free(&ea);
	estimate_free(&eb);
	estimate_free(&eb2);
	estimate_free(&ea2);
	estimate_free(&ca);
	estimate_free(&cb);
	plan_free(&a.p);
	plan_free(&b.p);
}

/* A stage met again with other neighbours takes its exposed DP sync
 * from the DP memo (perf_int.h, perf_memo_dp: the key without the
 * neighbours' pools and the node crossings, which perf_stage_dp never
 * reads). Llama 3.1 70B, TP 8, PP 4, DP 2, on an H100 and an A100 pool
 * of one site: plan A puts its four stages on pools 0, 0, 1, 1, plan B
 * on 0, 1, 0, 1, so B's middle stages are A's middle stages (the same
 * pool, layers and degrees, the same DP group's pools) between other
 * neighbours, and within B no two stages share a DP key (their pools
 * differ): B estimated right after A on this thread must be the bytes
 * of its cold estimate, and its DP sync is not nothing (70B's 20-layer
 * stages reduce 1.7e9 parameters a TP rank / 8 over 2 ranks). */
TEST(dp_sync_memo_across_neighbours)
{
	struct est_case a, b;
	struct hp_err err = { 0 };
	memset(&a, 0, sizeof a);
	cluster_init(&a.c);
	if (add_pool(&a.c, "4x8xH100-SXM") < 0 || add_pool(&a.c, "4x8xA100-80GB") < 0)
		return;
	a.m = catalog_model(&cat, "llama3.1-70b");
	plan_init(&a.p);
	a.p.mbs = 1;
	a.p.gbs = 64;
	CHECK(plan_uniform(&a.p, &a.c, a.m, 0, 8, 4, 2, &err) == 0);
	b = a;
	plan_init(&b.p);
	plan_copy(&b.p, &a.p);
	const int pa[] = { 0, 0, 1, 1 }, pb[] = { 0, 1, 0, 1 };
	for (int i = 0; i < 4; i++) {
		a.p.replicas[0].stages[i].pool = pa[i];
		b.p.replicas[0].stages[i].pool = pb[i];
	}
	struct estimate ea, eb, cold;
	CHECK(perf_estimate(&a.c, a.m, &a.p, NULL, &ea, &err) == 0);
	CHECK(perf_estimate(&b.c, b.m, &b.p, NULL, &eb, &err) == 0);
	CHECK(cold_estimate(&b, &cold) == 0);
	CHECK(same_estimate(&eb, &cold));
	CHECK(eb.bd.dp_comm > 0);
	estimate_free(&ea);
	estimate_free(&eb);
	estimate_free(&cold);
	plan_free(&a.p);
	plan_free(&b.p);
}

/* GPT 1.7B (24 layers, tied embeddings) on 8x8 H100, TP 2, DP 2, with
 * pp stages: the first holds layers 0-9, the others split the other 14
 * evenly (pp 3: 7 each; pp 8: 2 each). */
static int gpt_tied_plan(struct est_case *k, int pp)
{
	struct hp_err err = { 0 };
	memset(k, 0, sizeof *k);
	cluster_init(&k->c);
	if (add_pool(&k->c, "8x8xH100-SXM") < 0)
		return -1;
	k->m = catalog_model(&cat, "gpt-1.7b");
	if (!k->m || k->m->layers != 24 || !k->m->tied_embeddings)
		return -1;
	plan_init(&k->p);
	k->p.mbs = 1;
	k->p.gbs = 64;
	if (plan_uniform(&k->p, &k->c, k->m, 0, 2, pp, 2, &err) < 0)
		return -1;
	int per = 14 / (pp - 1);
	for (int i = 0; i < pp; i++) {
		struct stage *st = &k->p.replicas[0].stages[i];
		st->first_layer = i ? 10 + (i - 1) * per : 0;
		st->last_layer = i ? st->first_layer + per - 1 : 9;
	}
	return 0;
}

/* The DP memo keeps the depth as min(pp, 2) but where the tied
 * embeddings' sync reads it (perf_int.h, perf_memo_dp): the first and
 * last stages' two copies share a node only when the whole pipeline
 * does, pp x TP x CP GPUs within the node's 8. GPT 1.7B's first stage
 * (layers 0-9, TP 2) at pp 3 (6 GPUs: in the node) then at pp 8 (16:
 * across nodes, a slower all-reduce of the embedding's gradient): the
 * second, estimated right after the first on this thread, must be the
 * bytes of its cold estimate, and its exposed DP time (set by the first
 * stage, which holds 10 of the 24 layers and the embedding) must be the
 * one perf_dp_exposed computes without any memo. Tried: the depth
 * normalised on those stages too, it fails. */
TEST(tied_sync_depth_is_in_the_dp_key)
{
	struct est_case a, b;
	if (gpt_tied_plan(&a, 3) < 0 || gpt_tied_plan(&b, 8) < 0) {
		CHECK(0);
		return;
	}
	struct hp_err err = { 0 };
	struct estimate ea, eb, cold;
	CHECK(perf_estimate(&a.c, a.m, &a.p, NULL, &ea, &err) == 0);
	CHECK(perf_estimate(&b.c, b.m, &b.p, NULL, &eb, &err) == 0);
	CHECK(cold_estimate(&b, &cold) == 0);
	CHECK(same_estimate(&eb, &cold));
	double dp_s = -1;
	CHECK(perf_dp_exposed(&b.c, b.m, &b.p, NULL, &dp_s, &err) == 0);
	CHECK(eb.bd.dp_comm == dp_s);
	estimate_free(&ea);
	estimate_free(&eb);
	estimate_free(&cold);
	plan_free(&a.p);
	plan_free(&b.p);
}

/* The memory check's replica-group memo (perf_memo_group_mem) keys a
 * group's micro-batches capped at twice its depth: a stage keeps
 * min(micro-batches, stages' forwards in flight) micro-batches of
 * activations, and in flight is at most 2 x depth - 1 (interleaved with
 * one chunk a stage, stage 0: (depth - 1) x 2 + 1 = 9 of 5 stages;
 * 1F1B's is depth). So, by hand, five interleaved stages keep the same
 * memory at 9, 10 and 64 micro-batches (mbs 1, gbs 9, 10, 64) and less
 * on stage 0 at 8. Cold estimates confirm it; then a summary put at 64
 * micro-batches is found at 10 (the cap) but not at 8 (the global batch
 * 64, the group's share 10/64 and 8/64), nor at another DP degree,
 * framework or headroom, nor on an edited cluster. */
TEST(group_memory_caps_the_micro_batches)
{
	struct est_case k = cases[0];
	const int first[] = { 0, 8, 16, 24, 32 };
	five_stages(&k.p, first);
	k.p.schedule = SCHED_INTERLEAVED;
	k.p.vpp = 1;
	static const int gbs[] = { 64, 10, 9, 8 };
	struct estimate e[4];
	for (int i = 0; i < 4; i++) {
		k.p.gbs = gbs[i];
		CHECK(cold_estimate(&k, &e[i]) == 0);
	}
	if (e[0].stages && e[1].stages && e[2].stages && e[3].stages) {
		for (int s = 0; s < 5; s++)
			for (int i = 1; i < 3; i++)
				CHECK(e[i].stages[s].total == e[0].stages[s].total &&
				      e[i].stages[s].activations == e[0].stages[s].activations);
		CHECK(e[3].stages[0].activations < e[0].stages[0].activations);
	}
	for (int i = 0; i < 4; i++)
		estimate_free(&e[i]);
	struct perf_group_mem v = { 0.5, 40e9, 80e9, 0, 1 };
	k.p.gbs = 64;
	perf_memo_group_mem_put(&k.c, k.m, &k.p, 0, 0.05, &v);
	k.p.replicas[0].batch_share = 10 / 64.0;
	const struct perf_group_mem *h = perf_memo_group_mem(&k.c, k.m, &k.p, 0, 0.05);
	CHECK(h && h->worst == 0.5 && h->need == 40e9 && h->cap == 80e9 && h->risky == 1);
	k.p.replicas[0].batch_share = 8 / 64.0;
	CHECK(perf_memo_group_mem(&k.c, k.m, &k.p, 0, 0.05) == NULL);
	k.p.replicas[0].batch_share = 1;
	CHECK(perf_memo_group_mem(&k.c, k.m, &k.p, 0, 0.10) == NULL);
	k.p.framework = FW_DEEPSPEED;
	CHECK(perf_memo_group_mem(&k.c, k.m, &k.p, 0, 0.05) == NULL);
	k.p.framework = FW_ANY;
	k.p.replicas[0].count = 2;
	CHECK(perf_memo_group_mem(&k.c, k.m, &k.p, 0, 0.05) == NULL);
	k.p.replicas[0].count = 1;
	CHECK(perf_memo_group_mem(&k.c, k.m, &k.p, 0, 0.05) != NULL);
	k.c.pools[0].nodes++;
	CHECK(perf_memo_group_mem(&k.c, k.m, &k.p, 0, 0.05) == NULL);
	plan_free(&k.p);
}


/* Plan t of a fixed pseudo-random sequence (the same plan for the same t)
 * of mixtral-8x22b (56 layers) on the four pools of
 * dp_peer_bits_match_every_stage's cluster: 2 to 4 replica groups of 1 to
 * 8 stages (TP 8, consecutive layer ranges of 1 to 12 layers, the last
 * taking the rest), counts 0 to 3 (0 in one group of seven), pool 3 (the
 * other site) only when t % 4 == 3; ZeRO 0, 1 or 3 by t % 3. */
static void random_plan(struct plan *p, struct replica *reps, struct stage (*sts)[8],
			const struct model_spec *m, int t)
{
	unsigned seed = 12345u + (unsigned)t * 2654435761u;
	plan_init(p);
	p->mbs = 1;
	p->gbs = 512;
	p->zero = t % 3 == 2 ? 3 : t % 3;
	p->replicas = reps;
	p->n_replicas = 2 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 3;
	int pools = t % 4 == 3 ? 4 : 3;
	for (int r = 0; r < p->n_replicas; r++) {
		int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 8;
		int count = (seed >> 8) % 7 ? 1 + (int)(seed >> 12) % 3 : 0;
		reps[r] = (struct replica){ count, 1.0 / 16, n, sts[r] };
		int first = 0;
		for (int k = 0; k < n; k++) {
			int left = m->layers - first - (n - 1 - k);
			int len = k == n - 1 ? left
					     : 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) %
						   (left < 12 ? left : 12);
			sts[r][k] = (struct stage){ (int)(seed >> 4) % pools, 8, first, first + len - 1 };
			first += len;
		}
	}
}

/* The cluster and model of dp_peer_bits_match_every_stage and
 * dp_memo_matches_the_uncached_dp_time: Mixtral 8x22B on four pools, or
 * NULL (a failed check) where either cannot be had. */
static const struct model_spec *mixtral_on_four_pools(struct cluster *c)
{
	cluster_init(c);
	if (add_pool(c, "4x8xH100-SXM,site=east") < 0 ||
	    add_pool(c, "4x8xA100-SXM4-40GB,site=east") < 0 ||
	    add_pool(c, "4x8xH100-SXM,site=east") < 0 ||
	    add_pool(c, "4x8xA100-SXM4-40GB,site=west") < 0)
		return NULL;
	c->pools[1].nics = 4;   /* fewer NIC Gb/s per node than pools 0 and 2 */
	const struct model_spec *m = catalog_model(&cat, "mixtral-8x22b");
	CHECK(m != NULL);
	return m;
}

/* perf_peers_of (the plan's layers per pool as bits, rows cleared only
 * for the pools met, the set pools visited by their bits) against
 * perf_dp_peer, which reads every stage of the plan for each: the same
 * peer for every stage of 2,000 pseudo-random plans of 2 to 4 replica
 * groups on four pools, three at one site and one at another, of three
 * NIC totals (so the fewest-NIC rule, its lower-index tie and the other
 * site's precedence all decide some stage), some groups of count 0
 * (holding no GPUs: not DP peers). The table starts as garbage (0xa5
 * bytes) so that a row read before it is cleared shows. */
TEST(dp_peer_bits_match_every_stage)
{
	struct cluster c;
	const struct model_spec *m = mixtral_on_four_pools(&c);
	if (!m)
		return;
	int asked = 0, with_peer = 0, far = 0;
	for (int t = 0; t < 2000; t++) {
		struct plan p;
		struct replica reps[4];
		struct stage sts[4][8];
		random_plan(&p, reps, sts, m, t);
		struct perf_peers pp;
		memset(&pp, 0xa5, sizeof pp);
		perf_peers_init(&pp, &c, &p);
		for (int r = 0; r < p.n_replicas; r++)
			for (int k = 0; k < reps[r].n_stages; k++) {
				int want = perf_dp_peer(&c, &p, r, k);
				int got = perf_peers_of(&pp, &c, &p, r, k);
				if (got != want) {
					T_FAILF("plan %d, group %d, stage %d: peer %d, perf_dp_peer %d",
						t, r, k, got, want);
					return;
				}
				asked++;
				with_peer += want >= 0;
				far += want == 3;
			}
	}
	/* the cases the rules decide were met, not only "no peer" */
	CHECK(asked > 5000);
	CHECK(with_peer > asked / 4);
	CHECK(far > 100);
}

/* The candidates' DP screen (perf_dp_exposed_memo: the DP memo, two
 * entries a slot pair) gives the bits of the uncached DP time
 * (perf_dp_exposed: every stage computed) for 3,000 pseudo-random plans
 * (random_plan) and, after each, for the plan 50 before it again: about
 * 20,000 stage keys at several DP degrees and ZeRO stages, more than the
 * memo's 16,384 entries, so pairs fill, entries move over and leave, and
 * a key met again may be found in either entry or gone. */
TEST(dp_memo_matches_the_uncached_dp_time)
{
	struct cluster c;
	const struct model_spec *m = mixtral_on_four_pools(&c);
	if (!m)
		return;
	struct hp_err err = { 0 };
	for (int t = 0; t < 3000; t++) {
		for (int again = 0; again < 2; again++) {
			if (again && t < 50)
				break;
			int u = again ? t - 50 : t;
			struct plan p;
			struct replica reps[4];
			struct stage sts[4][8];
			random_plan(&p, reps, sts, m, u);
			double memo = -1, cold = -2;
			if (perf_dp_exposed_memo(&c, m, &p, &memo, &err) < 0 ||
			    perf_dp_exposed(&c, m, &p, NULL, &cold, &err) < 0) {
				T_FAILF("plan %d: %s", u, err.msg);
				return;
			}
			if (memcmp(&memo, &cold, sizeof memo)) {
				T_FAILF("plan %d: DP time %.17g from the memo, %.17g computed", u,
					memo, cold);
				return;
			}
		}
	}
}

/* The DP memo's table itself (perf_memo_dp, perf_memo_dp_put; two
 * entries a slot pair): 40,000 puts in a pseudo-random order of 51,200
 * keys (4 settings serials x 64 stage words x 200 DP degrees, so many
 * keys share a pair and many differ in one field alone), each of the
 * value (double)its index. Right after each put the key just put and the
 * one put before it are found (of one pair, the two latest; of two, each
 * still where it went), and afterwards every key reads its own value or
 * nothing. The serials have their top bits set (ZeRO-3's micro-batches
 * field at 2^24 - 1, beyond what stage_dp_key keys), so that no
 * estimate's key meets them; the memo is started over after
 * (perf_memo_open with another cluster). */
TEST(dp_memo_pairs_keep_their_own_values)
{
	struct perf_memo *mo = perf_memo_open(&cases[0].c, cases[0].m, perf_calib_default());
	enum { G = 4, S = 64, D = 200, PUTS = 40000 };
	unsigned seed = 777;
	struct dp_key prev = { 0 };
	int found_both = 1, wrong = 0, hits = 0;
	for (int i = 0; i < PUTS; i++) {
		seed = seed * 1103515245u + 12345u;
		int idx = (int)(seed >> 8) % (G * S * D);
		struct dp_key k;
		k.glob = 0xffffff0000000000ull | (uint64_t)(idx / (S * D));
		k.stage = (uint64_t)(idx / D % S + 1) * 0x9e3779b97f4a7c15ull;
		k.dp = (uint32_t)(idx % D + 1);
		perf_memo_dp_put(mo, &k, (double)idx);
		const double *a = perf_memo_dp(mo, &k), *b = i ? perf_memo_dp(mo, &prev) : a;
		if (!a || !b)
			found_both = 0;
		prev = k;
	}
	for (int idx = 0; idx < G * S * D; idx++) {
		struct dp_key k;
		k.glob = 0xffffff0000000000ull | (uint64_t)(idx / (S * D));
		k.stage = (uint64_t)(idx / D % S + 1) * 0x9e3779b97f4a7c15ull;
		k.dp = (uint32_t)(idx % D + 1);
		const double *v = perf_memo_dp(mo, &k);
		hits += v != NULL;
		wrong += v && *v != (double)idx;
	}
	CHECK(found_both);
	CHECK(wrong == 0);
	/* 16,384 entries, about 29,000 distinct keys put: most slots hold one */
	CHECK(hits > 8000);
	/* start the memo over: no later estimate on this thread meets these */
	struct cluster other = cases[1].c;
	other.pools[0].nics++;
	perf_memo_open(&other, cases[0].m, perf_calib_default());
}

/* The DP sweep (perf_dp_sweep_begin / perf_dp_sweep_at: one plan's
 * stages placed and keyed once, asked at other DP degrees and, under
 * ZeRO-3, other micro-batch counts) against the uncached DP time
 * (perf_dp_exposed, every stage computed) of the plan rebuilt with those
 * counts: 600 pseudo-random plans (random_plan, every group at one
 * replica or more), each asked at 6 count vectors of 1 to 6 replicas a
 * group and, under ZeRO-3, 1 to 8 micro-batches a group. The same bits
 * each time; the answers move with the counts (a sweep that kept its
 * first degree or micro-batches would fail); a serial begun before
 * another begin, or before the memo started over (an edited cluster), is
 * refused. */
TEST(dp_sweep_matches_the_uncached_dp_time)
{
	struct cluster c;
	const struct model_spec *m = mixtral_on_four_pools(&c);
	if (!m)
		return;
	struct hp_err err = { 0 };
	int asked = 0, moved = 0, z3_moved = 0, ds2_moved = 0;
	unsigned seed = 4242;
	for (int t = 0; t < 600; t++) {
		struct plan p;
		struct replica reps[4];
		struct stage sts[4][8];
		random_plan(&p, reps, sts, m, t);
		/* every fifth ZeRO-1 plan made DeepSpeed ZeRO-2, whose DP term
		 * reads the micro-batches as ZeRO-3's does (a reduce after
		 * each; random_plan gives ZeRO 0, 1 and 3) */
		if (p.zero == 1 && t % 5 == 0) {
			p.zero = 2;
			p.framework = FW_DEEPSPEED;
		}
		int reads_mb = framework_dp_reads_mb(p.framework, p.zero);
		for (int r = 0; r < p.n_replicas; r++)
			reps[r].count = reps[r].count ? reps[r].count : 1;
		unsigned long serial = perf_dp_sweep_begin(&c, m, &p, &err);
		if (!serial) {
			T_FAILF("plan %d: no sweep: %s", t, err.msg);
			return;
		}
		double first = -1;
		for (int v = 0; v < 6; v++) {
			int N = 0, mb = 0;
			for (int r = 0; r < p.n_replicas; r++) {
				seed = seed * 1103515245u + 12345u;
				reps[r].count = 1 + (int)(seed >> 16) % 6;
				N += reps[r].count;
			}
			if (reads_mb) {
				seed = seed * 1103515245u + 12345u;
				mb = 1 + (int)(seed >> 16) % 8;
				for (int r = 0; r < p.n_replicas; r++)
					reps[r].batch_share = (double)mb * p.mbs / p.gbs;
			}
			double swept = -1, cold = -2;
			if (perf_dp_sweep_at(serial, &c, m, N, mb, &swept) < 0 ||
			    perf_dp_exposed(&c, m, &p, NULL, &cold, &err) < 0) {
				T_FAILF("plan %d at %d replicas, %d micro-batches: refused (%s)", t, N,
					mb, err.msg);
				return;
			}
			if (memcmp(&swept, &cold, sizeof swept)) {
				T_FAILF("plan %d at %d replicas, %d micro-batches: %.17g swept, %.17g computed",
					t, N, mb, swept, cold);
				return;
			}
			asked++;
			if (v && swept != first) {
				moved++;
				z3_moved += p.zero == 3;
				ds2_moved += reads_mb && p.zero == 2;
			}
			if (!v)
				first = swept;
		}
	}
	CHECK(asked == 3600);
	CHECK(moved > 1000);
	CHECK(z3_moved > 300);
	CHECK(ds2_moved > 0);
	/* a later begin ends the sweep before */
	struct plan p;
	struct replica reps[4];
	struct stage sts[4][8];
	random_plan(&p, reps, sts, m, 1);
	for (int r = 0; r < p.n_replicas; r++)
		reps[r].count = 1;
	unsigned long a = perf_dp_sweep_begin(&c, m, &p, &err);
	unsigned long b = perf_dp_sweep_begin(&c, m, &p, &err);
	double v = 0;
	CHECK(a && b && a != b);
	CHECK(perf_dp_sweep_at(a, &c, m, 8, 0, &v) < 0);
	CHECK(perf_dp_sweep_at(b, &c, m, 8, 0, &v) == 0);
	/* an edited cluster starts the memo over: the sweep is refused */
	c.pools[0].nics++;
	CHECK(perf_dp_sweep_at(b, &c, m, 8, 0, &v) < 0);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	if (setup_cases() < 0) {
		fprintf(stderr, "test_perf_memo: setup failed\n");
		return 1;
	}
	RUN(threads_agree_with_cold_estimates);
	RUN(memo_follows_an_edited_cluster);
	RUN(memo_follows_an_edited_model_and_constants);
	RUN(link_names);
	RUN(malformed_plans_fail);
	RUN(tied_embeddings_peer_is_in_the_key);
	RUN(memory_follows_the_stage_index);
	RUN(memo_hit_at_another_index_equals_a_miss);
	RUN(stage_core_under_ep_overlap_reads_rank_and_micro_batches);
	RUN(stage_core_at_another_depth_under_ep);
	RUN(collective_second_level_equals_a_miss);
	RUN(reduce_scatter_costs_as_all_gather);
	RUN(zero3_dp_at_one_micro_batch_equals_a_miss);
	RUN(pipeline_node_edge);
	RUN(stage_record_spares_are_clean);
	RUN(stage_core_at_another_dp_equals_a_miss);
	RUN(grad_fp32_is_in_the_key);
	RUN(dp_memo_across_more_settings_than_serials);
	RUN(ep_overlap_rank_is_in_the_key);
	RUN(etp_is_in_the_key);
	RUN(moe_dispatch_is_in_the_key);
	RUN(memory_check_at_another_dp_equals_a_miss);
	RUN(micro_batches_only_where_read);
	RUN(stage_shape_is_in_the_key);
	RUN(pp_layout_memory_is_not_reused);
	RUN(dp_sync_memo_across_neighbours);
	RUN(tied_sync_depth_is_in_the_dp_key);
	RUN(group_memory_caps_the_micro_batches);
	RUN(probe_ranges_share_a_context);
	RUN(dp_peer_bits_match_every_stage);
	RUN(dp_memo_matches_the_uncached_dp_time);
	RUN(dp_memo_pairs_keep_their_own_values);
	RUN(dp_sweep_matches_the_uncached_dp_time);
	for (int i = 0; i < N_CASES; i++) {
		estimate_free(&cases[i].ref);
		plan_free(&cases[i].p);
	}
	catalog_done(&cat);
	return t_done("perf_memo");
}
