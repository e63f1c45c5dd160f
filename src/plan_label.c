/* plan_label.c — what a list of plans calls each of its plans
 * (plan_label.h). */
#include "plan_label.h"
#include "utf8.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* plan_label_result writes a layout into search_plan.label: a label
 * buffer never holds more than a layout. */
_Static_assert(sizeof ((struct search_plan *)0)->label <= PLAN_LAYOUT_MAX,
	       "search_plan.label is longer than PLAN_LAYOUT_MAX");

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

/* name shortened to cols columns: its first and last columns around a
 * "~" (more of the head: GPU types lead a pool name, sizes and regions end
 * it), or the whole name when it fits. */
static void short_name(const char *name, int cols, char *out, size_t n)
{
	if (utf8_cols(name) <= cols) {
		snprintf(out, n, "%s", name);
		return;
	}
	int tail = (cols - 1) * 2 / 5, head = cols - 1 - tail;
	size_t hb = utf8_cut_cols(name, head), tb = utf8_tail_cols(name, tail);
	if (tb < hb)
		tb = hb;
	snprintf(out, n, "%.*s~%s", (int)hb, name, name + tb);
}

void plan_pool_names(const struct cluster *c, char (*names)[PLAN_POOL_NAME_MAX])
{
	plan_pool_names_cols(c, PLAN_POOL_COLS, names);
}

/* A byte that parts the words of a pool name: ASCII, not a letter or a
 * digit ("-", "_", ".", " ", ...). */
static int name_sep(unsigned char ch)
{
	return ch < 0x80 && !isalnum(ch);
}

/* name in cols columns as its head, the part [pfx, len - sfx) that the
 * other pools of its clash group do not share, and its tail, a "~" where
 * a head or tail is cut ("datace~h1a~ck1" for
 * datacenter-west-h1a-row07-rack1 beside ...-h1b-... and ...-a1c-...).
 * Returns 0 (out untouched) when that part leaves no column for a cut
 * head or tail. */
static int middle_name(const char *name, size_t pfx, size_t sfx, int cols, char *out, size_t n)
{
	size_t len = strlen(name), me = len - sfx;
	int room = cols - utf8_cols_n(name + pfx, me - pfx) - (pfx > 0) - (sfx > 0);
	if (room < (pfx > 0) + (sfx > 0))
		return 0;
	int tail = !sfx ? 0 : !pfx ? room : HP_MAX(1, room * 2 / 5);
	size_t hb = HP_MIN(utf8_cut_cols(name, room - tail), pfx);
	size_t tb = sfx ? HP_MAX(utf8_tail_cols(name, tail), me) : len;
	snprintf(out, n, "%.*s%s%.*s%s%s", (int)hb, name, hb < pfx ? "~" : "", (int)(me - pfx),
		 name + pfx, tb > me ? "~" : "", name + tb);
	return 1;
}

/* The short names of the pools at w columns: head~tail (short_name);
 * pools whose head~tail read the same show instead the words their names
 * do not share (middle_name) when those fit. */
static void names_at(const struct cluster *c, int w, char (*names)[PLAN_POOL_NAME_MAX])
{
	char plain[HP_MAX_POOLS][PLAN_POOL_NAME_MAX];
	for (int i = 0; i < c->n_pools; i++) {
		short_name(c->pools[i].name, w, plain[i], sizeof plain[i]);
		memcpy(names[i], plain[i], sizeof plain[i]);
	}
	for (int i = 0; i < c->n_pools; i++) {
		/* the bytes every pool of i's clash group starts and ends with */
		const char *a = c->pools[i].name;
		size_t la = strlen(a), pfx = la, sfx = la;
		int group = 0;
		for (int j = 0; j < c->n_pools; j++) {
			const char *b = c->pools[j].name;
			size_t lb = strlen(b), k = 0;
			if (j == i || strcmp(plain[i], plain[j]))
				continue;
			group++;
			while (k < pfx && k < lb && a[k] == b[k])
				k++;
			pfx = k;
			for (k = 0; k < sfx && k < lb && a[la - 1 - k] == b[lb - 1 - k]; k++)
				;
			sfx = k;
			pfx = HP_MIN(pfx, lb);
			sfx = HP_MIN(sfx, lb - HP_MIN(pfx, lb));
		}
		if (!group)
			continue;
		sfx = HP_MIN(sfx, la - pfx);
		/* whole words only: back to the separator before the part */
		while (pfx > 0 && !name_sep((unsigned char)a[pfx - 1]))
			pfx--;
		while (sfx > 0 && !name_sep((unsigned char)a[la - sfx]))
			sfx--;
		if (pfx + sfx < la)
			middle_name(a, pfx, sfx, w, names[i], sizeof names[i]);
	}
}

void plan_pool_names_cols(const struct cluster *c, int cols, char (*names)[PLAN_POOL_NAME_MAX])
{
	int longest = 0;
	for (int i = 0; i < c->n_pools; i++)
		longest = HP_MAX(longest, utf8_cols(c->pools[i].name));
	/* Widen until every short name differs from every other; at the
	 * longest name's width all are whole, and pool names are unique. */
	for (int w = HP_MAX(cols, 3);; w++) {
		names_at(c, w, names);
		int clash = 0;
		for (int i = 0; i < c->n_pools && !clash; i++)
			for (int j = i + 1; j < c->n_pools && !clash; j++)
				clash = !strcmp(names[i], names[j]);
		if (!clash || w >= longest)
			return;
	}
}

static void layout_named(const struct plan *p, const char (*names)[PLAN_POOL_NAME_MAX],
			 char *out, size_t n)
{
	char buf[PLAN_LAYOUT_MAX + 128];
	size_t len = 0;
	buf[0] = '\0';
	for (int r = 0; r < p->n_replicas && len < sizeof buf - 1; r++) {
		const struct replica *rep = &p->replicas[r];
		if (r > 0 && same_layout(rep, &p->replicas[r - 1]))
			continue;
		int pa = rep->stages[0].pool, pb = rep->stages[rep->n_stages - 1].pool;
		int w = pa == pb
			? snprintf(buf + len, sizeof buf - len, "%s%s tp%d pp%d", len ? " + " : "",
				   names[pa], rep->stages[0].tp, rep->n_stages)
			: snprintf(buf + len, sizeof buf - len, "%s%s>%s pp%d", len ? " + " : "",
				   names[pa], names[pb], rep->n_stages);
		len = w < 0 ? len : HP_MIN(len + (size_t)w, sizeof buf - 1);
	}
	/* cut where it does not fit, visibly: at a character boundary,
	 * then "..." */
	size_t room = HP_MIN(n, (size_t)PLAN_LAYOUT_MAX);
	if (room < 4) {
		if (n)
			*out = '\0';
		return;
	}
	if (len >= room)
		memcpy(buf + utf8_cut(buf, room - 4), "...", 4);
	snprintf(out, n, "%s", buf);
}

void plan_label_layout(const struct plan *p, const struct cluster *c, char *buf, size_t n)
{
	char names[HP_MAX_POOLS][PLAN_POOL_NAME_MAX];
	plan_pool_names(c, names);
	layout_named(p, (const char (*)[PLAN_POOL_NAME_MAX])names, buf, n);
}

static void base_named(const struct search_plan *sp, const char (*names)[PLAN_POOL_NAME_MAX],
		       int brief, char *buf, size_t n)
{
	char note[96], layout[PLAN_LAYOUT_MAX];
	split_note(&sp->plan, brief, note, sizeof note);
	layout_named(&sp->plan, names, layout, sizeof layout);
	snprintf(buf, n, "%s%s", layout, note);
}

void plan_label_base(const struct search_plan *sp, const struct cluster *c, int brief,
		     char *buf, size_t n)
{
	char names[HP_MAX_POOLS][PLAN_POOL_NAME_MAX];
	plan_pool_names(c, names);
	base_named(sp, (const char (*)[PLAN_POOL_NAME_MAX])names, brief, buf, n);
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

void plan_list_label(const struct search_plan *sp, const struct cluster *c,
		     const struct search_plan *plans, const int *order, int n_order, int brief,
		     char *buf, size_t n)
{
	char names[HP_MAX_POOLS][PLAN_POOL_NAME_MAX];
	plan_pool_names(c, names);
	const char (*nm)[PLAN_POOL_NAME_MAX] = (const char (*)[PLAN_POOL_NAME_MAX])names;
	base_named(sp, nm, brief, buf, n);
	unsigned mask = 0;
	char other[PLAN_LABEL_MAX];
	for (int k = 0; k < n_order; k++) {
		const struct search_plan *q = &plans[order ? order[k] : k];
		if (q == sp)
			continue;
		base_named(q, nm, brief, other, sizeof other);
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

static void relabel(struct search_plan *sp, const struct cluster *c)
{
	if (*sp->label)
		plan_label_layout(&sp->plan, c, sp->label, sizeof sp->label);
}

void plan_label_result(struct search_result *res, const struct cluster *c)
{
	for (int i = 0; i < res->n_plans; i++)
		relabel(&res->plans[i], c);
	for (int i = 0; i < res->n_pareto; i++)
		relabel(&res->pareto[i], c);
	for (int i = 0; i < HP_MAX_POOLS; i++)
		if (res->has_single[i])
			relabel(&res->single[i], c);
	if (res->has_stock)
		relabel(&res->stock, c);
	if (res->has_nearest)
		relabel(&res->nearest, c);
	if (res->has_mem_miss)
		relabel(&res->mem_miss, c);
}
