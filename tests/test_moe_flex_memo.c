/* test_moe_flex_memo.c — the MoE dispatcher a plan runs is decided for
 * the whole plan (plan_moe_dispatch: the framework's flex only where
 * every piece can run it), so a stage's cost depends on pools outside
 * the stage. The per-thread estimate memo (perf_memo.c) must not hand a
 * stage costed under one plan's dispatcher to another plan whose
 * dispatcher differs: an estimate on a warm memo must equal the cold
 * estimate (a thread of its own, empty memo).
 *
 * The pair: Mixtral 8x7B, TP 2 (expert TP 2), PP 1, EP 8, 16 replicas of
 * 2 GPUs. Plan A: 8 replicas on pool h100a and 8 on h100b (H100-SXM, so
 * flex). Plan B: 8 on h100a, 4 on h100b, 4 on a100 (A100 is Ampere:
 * alltoall for every piece). The h100a stage has the same neighbours,
 * DP degree, micro-batches and DP peer in both (h100b: its NICs, 2 x
 * 400 Gb/s, are fewer than A100's default 8 x 200, and perf_dp_peer
 * takes the pool of the fewest NIC Gb/s), so its memo key differs only by
 * the dispatcher. EP 8 at expert TP 2 spans 16 ranks, two nodes, so the
 * two dispatchers cost it differently (perf_comm.c ep_dispatch_time and
 * the expert-TP gather, in line under alltoall). */
#include <pthread.h>
#include <stdlib.h>

#include "t.h"
#include "catalog.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"
#include "util.h"

static struct catalog cat;
static struct cluster cl;
static const struct model_spec *mx;

struct cold_arg {
	const struct plan *p;
	struct estimate *out;
	int rc;
};

static void *cold_main(void *v)
{
	struct cold_arg *a = v;
	struct hp_err err = { 0 };
	a->rc = perf_estimate(&cl, mx, a->p, NULL, a->out, &err);
	return NULL;
}

/* p estimated by a new thread: an empty memo. */
static int cold_estimate(const struct plan *p, struct estimate *out)
{
	pthread_t th;
	struct cold_arg a = { p, out, -1 };
	if (pthread_create(&th, NULL, cold_main, &a))
		return -1;
	pthread_join(th, NULL);
	return a.rc;
}

static int same_estimate(const struct estimate *a, const struct estimate *b)
{
	struct estimate x = *a, y = *b;
	if (a->n_stages != b->n_stages ||
	    memcmp(a->stages, b->stages, (size_t)a->n_stages * sizeof *a->stages))
		return 0;
	x.stages = y.stages = NULL;
	return !memcmp(&x, &y, sizeof x);
}

/* Replica groups of 2-GPU single-stage replicas: counts[i] of them on
 * pool i (0 skips the pool). */
static void groups(struct plan *p, const int *counts)
{
	plan_init(p);
	p->mbs = 1;
	p->gbs = 256;
	p->ep = 8;
	int n = 0, dp = 0;
	for (int i = 0; i < cl.n_pools; i++)
		if (counts[i]) {
			n++;
			dp += counts[i];
		}
	p->n_replicas = n;
	p->replicas = xcalloc((size_t)n, sizeof *p->replicas);
	for (int i = 0, r = 0; i < cl.n_pools; i++) {
		if (!counts[i])
			continue;
		struct replica *rp = &p->replicas[r++];
		rp->count = counts[i];
		rp->batch_share = 1.0 / dp;
		rp->n_stages = 1;
		rp->stages = xcalloc(1, sizeof *rp->stages);
		rp->stages[0] = (struct stage){ i, 2, 0, mx->layers - 1 };
	}
	plan_default_zero(p);
}

TEST(dispatcher_of_the_plan_is_in_the_stage_key)
{
	struct plan a, b;
	struct hp_err err = { 0 };
	groups(&a, (const int[]){ 8, 8, 0 });
	groups(&b, (const int[]){ 8, 4, 4 });
	CHECK(plan_validate(&a, &cl, mx, "plan a", &err) == 0);
	CHECK(plan_validate(&b, &cl, mx, "plan b", &err) == 0);
	/* what the plans run: A flex, B alltoall (A100 is not Hopper) */
	CHECK(plan_moe_dispatch(&a, &cl) == MOE_DISPATCH_FLEX);
	CHECK(plan_moe_dispatch(&b, &cl) == MOE_DISPATCH_ALLTOALL);
	CHECK(plan_flex_unfit(&b, &cl, 2, 2) != NULL);
	CHECK(plan_flex_unfit(&b, &cl, 0, 2) == NULL);
	struct estimate ea, eb, cb;
	int ra = perf_estimate(&cl, mx, &a, NULL, &ea, &err);
	int rb = perf_estimate(&cl, mx, &b, NULL, &eb, &err);
	int rc = cold_estimate(&b, &cb);
	CHECK(ra == 0 && rb == 0 && rc == 0);
	if (ra == 0 && rb == 0 && rc == 0) {
		CHECK(same_estimate(&eb, &cb));
		/* not vacuous: the h100a stage (group 0's) costs otherwise
		 * under the two dispatchers */
		CHECK(ea.n_stages >= 1 && cb.n_stages >= 1 &&
		      ea.stages[0].t_ep != cb.stages[0].t_ep);
	}
	if (ra == 0)
		estimate_free(&ea);
	if (rb == 0)
		estimate_free(&eb);
	if (rc == 0)
		estimate_free(&cb);
	plan_free(&a);
	plan_free(&b);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	cluster_init(&cl);
	const char *specs[] = { "4x8xH100-SXM,name=h100a", "4x8xH100-SXM,name=h100b,nics=2",
				"4x8xA100-SXM4-80GB,name=a100" };
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
		if (cluster_add_pool_spec(&cl, specs[i], &cat, &err) < 0) {
			fprintf(stderr, "%s: %s\n", specs[i], err.msg);
			return 1;
		}
	mx = catalog_model(&cat, "mixtral-8x7b");
	if (!mx) {
		fprintf(stderr, "no mixtral-8x7b in the catalog\n");
		return 1;
	}
	RUN(dispatcher_of_the_plan_is_in_the_stage_key);
	catalog_done(&cat);
	return t_done("moe_flex_memo");
}
