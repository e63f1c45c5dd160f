/* plan_label.c — what a list of plans calls each of its plans
 * (plan_label.h). */
#include "plan_label.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int same_layout(const struct replica *a, const struct replica *b)
{
	return a->n_stages == b->n_stages && a->stages[0].pool == b->stages[0].pool &&
	       a->stages[0].tp == b->stages[0].tp &&
	       a->stages[a->n_stages - 1].pool == b->stages[b->n_stages - 1].pool;
}

/* " 366/365 micro-batches" for runs of groups of one layout whose
 * replicas run different micro-batch counts; "" when there is none. */
static void split_note(const struct plan *p, int brief, char *buf, size_t n)
{
	size_t len = 0;
	*buf = '\0';
	for (int r = 1; r < p->n_replicas && p->mbs > 0; r++) {
		if (!same_layout(&p->replicas[r], &p->replicas[r - 1]) ||
		    (r > 1 && same_layout(&p->replicas[r - 1], &p->replicas[r - 2])))
			continue;
		/* r - 1 starts a run of one layout: list its counts. */
		char run[64] = "";
		size_t rl = 0;
		for (int k = r - 1; k < p->n_replicas && (k == r - 1 ||
		     same_layout(&p->replicas[k], &p->replicas[r - 1])); k++) {
			long mb = lround(plan_replica_seqs(p, k) / p->mbs);
			int w = snprintf(run + rl, sizeof run - rl, "%s%ld", rl ? "/" : "", mb);
			if (w < 0 || (size_t)w >= sizeof run - rl)
				break;
			rl += (size_t)w;
		}
		int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : " ", run);
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
	if (len && len + 16 < n)
		snprintf(buf + len, n - len, "%s", brief ? " mb" : " micro-batches");
}

void plan_label_base(const struct search_plan *sp, int brief, char *buf, size_t n)
{
	char note[96];
	split_note(&sp->plan, brief, note, sizeof note);
	snprintf(buf, n, "%s%s", sp->label, note);
}

/* The settings in which a differs from b, as bits of the table below. */
enum {
	D_MBS = 1u, D_RECOMPUTE = 2u, D_ZERO = 4u, D_SCHEDULE = 8u, D_CP = 16u, D_EP = 32u,
	D_PRECISION = 64u, D_GPUS = 128u
};

static unsigned setting_diffs(const struct search_plan *x, const struct search_plan *y)
{
	const struct plan *a = &x->plan, *b = &y->plan;
	unsigned m = 0;
	if (x->est.n_gpus != y->est.n_gpus) m |= D_GPUS;
	if (a->mbs != b->mbs) m |= D_MBS;
	if (a->recompute != b->recompute) m |= D_RECOMPUTE;
	if (a->zero != b->zero) m |= D_ZERO;
	if (a->schedule != b->schedule || a->vpp != b->vpp) m |= D_SCHEDULE;
	if (a->cp != b->cp) m |= D_CP;
	if (a->ep != b->ep) m |= D_EP;
	if (a->precision != b->precision) m |= D_PRECISION;
	return m;
}

void plan_list_label(const struct search_plan *sp, const struct search_plan *plans,
		     const int *order, int n_order, int brief, char *buf, size_t n)
{
	plan_label_base(sp, brief, buf, n);
	unsigned mask = 0;
	char other[PLAN_LABEL_MAX];
	for (int k = 0; k < n_order; k++) {
		const struct search_plan *q = &plans[order ? order[k] : k];
		if (q == sp)
			continue;
		plan_label_base(q, brief, other, sizeof other);
		if (!strcmp(other, buf))
			mask |= setting_diffs(sp, q);
	}
	const struct plan *p = &sp->plan;
	char add[96] = "";
	size_t al = 0;
#define ADD(...) do { int w_ = snprintf(add + al, sizeof add - al, __VA_ARGS__); \
		if (w_ > 0 && (size_t)w_ < sizeof add - al) al += (size_t)w_; } while (0)
	if (mask & D_MBS) ADD(" mbs%d", p->mbs);
	if (mask & D_RECOMPUTE) ADD(" rc-%.4s", plan_recompute_name(p->recompute));
	if (mask & D_ZERO) ADD(" z%d", p->zero);
	if (mask & D_SCHEDULE) ADD(" vpp%d", p->schedule == SCHED_INTERLEAVED ? p->vpp : 1);
	if (mask & D_CP) ADD(" cp%d", p->cp);
	if (mask & D_EP) ADD(" ep%d", p->ep);
	if (mask & D_PRECISION) ADD(" %s", hp_dtype_name(p->precision));
	if (mask & D_GPUS) ADD(" %dgpu", sp->est.n_gpus);
#undef ADD
	if (!al)
		return;
	/* The suffix is what tells the plan apart: a base that leaves it no
	 * room is cut (at a byte that starts a character) and ends in "...". */
	size_t len = strlen(buf);
	if (len + al >= n) {
		if (n < al + 4)
			return;
		len = n - al - 4;
		while (len > 0 && ((unsigned char)buf[len] & 0xC0) == 0x80)
			len--;
		memcpy(buf + len, "...", 3);
		len += 3;
	}
	memcpy(buf + len, add, al + 1);
}
