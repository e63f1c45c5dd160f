/* search_combo.c — one combination of layouts and replica counts: the
 * batch split (integer micro-batches per replica), the screens that skip
 * a combination or a whole layout set from the layouts' affine fits
 * alone (set_screened, set_curve_screened), and try_combo, which builds,
 * estimates and keeps a plan; once built, a plan is screened again with
 * its exposed DP synchronisation (dp_screened). Moved from search.c. */
#include "search_int.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capmilp.h"
#include "perf.h"
#include "runs_on.h"

/* ------------------------------------------------------------------ */
/* Batch split: integer micro-batches per replica, all finishing together. */

/* The groups' fits, copied once a split (split_batch reads them about
 * 45 times a candidate). */
struct split_in {
	int n;
	double A[HP_MAX_POOLS + 1], B[HP_MAX_POOLS + 1];
	long q[HP_MAX_POOLS + 1], count[HP_MAX_POOLS + 1];
	/* capacity_decided's sums: count_i / B_i, count_i A_i / B_i,
	 * count_i q_i, count_i 1e-9 */
	double s1, s2, cq, c9;
	double abs_s2;   /* fabs(s2), once a split */
	int whole;   /* every group runs its q at the first T tried, so at
		      * every later one */
};

/* Micro-batches each replica of the groups can run within T (a multiple
 * of its q), into k[]; returns their total, or -1 when a group cannot run
 * q. Monotone in T, group by group: (T - A) / B and floor are. */
static long groups_capacity(const struct split_in *g, double T, long *k)
{
	long tot = 0;
	int short_of_q = 0;
	for (int i = 0; i < g->n; i++) {
		double f = (T - g->A[i]) / g->B[i];
		/* f + 1e-9 > 0 here, where the conversion's truncation is
		 * floor's value (without libm's call) */
		long ki = f < 0 ? 0 : (long)(f + 1e-9);
		if (g->q[i] > 1)
			ki -= ki % g->q[i];
		k[i] = ki;
		short_of_q |= ki < g->q[i];
		tot += ki * g->count[i];
	}
	return short_of_q ? -1 : tot;
}

/* groups_capacity(g, T) >= M decided from its linear bounds, without
 * its divisions: 1 surely, 0 surely not, -1 when they do not tell. With
 * f_i = (T - A_i) / B_i as groups_capacity rounds it, each group's k_i
 * is at most f_i + 1e-9 (or the total is -1, under M, when one is short
 * of its q, which f_i < 0 makes it), and more than f_i - q_i (the
 * truncation loses under 1, the multiple of q under q); so the total is
 * at most sum count_i f_i + c9 and, when no group is short, more than
 * sum count_i f_i - cq. That sum is T s1 - s2 to well within the slack
 * (1e-9 of its terms, against roundings of about 1e-15). Every T the
 * bisection asks gets the same answer as from groups_capacity, so it
 * halves the same way. */
static int capacity_decided(const struct split_in *g, double T, long M)
{
	double f = T * g->s1 - g->s2, slack = 1e-9 * (T * g->s1 + g->abs_s2) + 1e-9;
	if (f + g->c9 + slack < (double)M)
		return 0;
	if (g->whole && f - g->cq - slack >= (double)M)
		return 1;
	return -1;
}

/* Between lo (short of M) and hi (M or more, khi totalling tot_hi), does
 * a single group step up (by one q or more)? The others then hold the
 * same micro-batches at every T in [lo, hi], so the least T with M or
 * more is where that group reaches the least multiple of its q that
 * makes M, and the bisection below, which keeps lo and hi around that T
 * and ends within 1e-13 of it (far less than a step of the group, B q),
 * ends with that group there and the others as at hi. Returns the group
 * with its micro-batches in *k_g, or -1. */
static int one_group_between(const struct split_in *g, const long *klo, const long *khi,
			     long tot_hi, long M, long *k_g)
{
	int grp = -1;
	for (int i = 0; i < g->n; i++)
		if (khi[i] != klo[i]) {
			if (grp >= 0)
				return -1;
			grp = i;
		}
	if (grp < 0)
		return -1;
	long others = tot_hi - khi[grp] * g->count[grp], need = M - others;
	long k = (need + g->count[grp] - 1) / g->count[grp];
	k = (k + g->q[grp] - 1) / g->q[grp] * g->q[grp];
	if (k <= klo[grp] || k > khi[grp])
		return -1;   /* not within the bracket: bisect on */
	*k_g = k;
	return grp;
}

/* The bisection of split_batch: the least T with M micro-batches, to
 * 1e-13, from lo (short of M, its groups_capacity in buf[0]) and hi;
 * returns groups_capacity's micro-batches at the T it ends on. A T the
 * bounds decide (capacity_decided) leaves its side's micro-batches
 * stale; they are computed again only where read: the early stop
 * (one_group_between, which any bracket with both sides known may take:
 * it gives the end of the halvings) and the end. Stopped early only
 * when hi holds M or more, so the answer is the same as at the end of
 * the halvings. */
static long *split_bisect(const struct split_in *g, long M, double lo, double hi,
			  long (*buf)[HP_MAX_POOLS + 1])
{
	long *klo = buf[0], *khi = buf[1], *kmid = buf[2];
	long tot_hi = groups_capacity(g, hi, khi), k_g;
	int early = tot_hi >= M, lo_known = 1, hi_known = 1;
	for (int it = 0; it < 100 && hi - lo > 1e-13 * hi; it++) {
		int grp;
		if (early && lo_known && hi_known &&
		    (grp = one_group_between(g, klo, khi, tot_hi, M, &k_g)) >= 0) {
			khi[grp] = k_g;
			return khi;
		}
		double mid = 0.5 * (lo + hi);
		int d = capacity_decided(g, mid, M);
		if (d == 1) {
			hi = mid;
			hi_known = 0;
			early = 1;
			continue;
		}
		if (d == 0) {
			lo = mid;
			lo_known = 0;
			continue;
		}
		long tot = groups_capacity(g, mid, kmid), *t = kmid;
		if (tot >= M) {
			hi = mid;
			tot_hi = tot;
			early = hi_known = 1;
			kmid = khi;
			khi = t;
			if (!lo_known)
				groups_capacity(g, lo, klo);
			lo_known = 1;
		} else {
			lo = mid;
			lo_known = 1;
			kmid = klo;
			klo = t;
			if (!hi_known)
				tot_hi = groups_capacity(g, hi, khi);
			hi_known = 1;
		}
	}
	if (!hi_known)
		groups_capacity(g, hi, khi);
	return khi;
}

static int split_batch(struct group_in *gr, int n, long M)
{
	struct split_in g;
	long need = 0;
	double lo = 0, hi = 0;
	g.n = n;
	for (int i = 0; i < n; i++) {
		g.A[i] = gr[i].L->A;
		g.B[i] = gr[i].L->B;
		g.q[i] = gr[i].q;
		g.count[i] = gr[i].count;
		need += (long)gr[i].q * gr[i].count;
		lo = perf_fmax(lo, g.A[i] + g.B[i] * gr[i].q);
		hi = perf_fmax(hi, g.A[i] + g.B[i] * ((double)M + gr[i].q));
	}
	if (need > M)
		return -1;
	long buf[3][HP_MAX_POOLS + 1];
	long *klo = buf[0], *kend = NULL;
	if (groups_capacity(&g, lo, klo) >= M) {
		kend = klo;
	} else {
		g.s1 = g.s2 = g.cq = g.c9 = 0;
		g.whole = 1;
		for (int i = 0; i < n; i++) {
			g.s1 += g.count[i] / g.B[i];
			g.s2 += g.count[i] * g.A[i] / g.B[i];
			g.cq += (double)(g.count[i] * g.q[i]);
			g.c9 += g.count[i] * 1e-9;
			g.whole &= klo[i] >= g.q[i];
		}
		g.abs_s2 = fabs(g.s2);
		kend = split_bisect(&g, M, lo, hi, buf);
	}
	/* kend: groups_capacity's micro-batches at the split's T (each at
	 * least its q there, so the truncation is floor's) */
	long tot = 0;
	for (int i = 0; i < n; i++) {
		gr[i].m = (int)kend[i];
		gr[i].n_lo = 0;
		tot += kend[i] * gr[i].count;
	}
	long excess = tot - M;
	/* Take the excess from the replicas that finish last, q micro-
	 * batches from one replica at a time. The group chosen stays the
	 * one that finishes last (its time changes only once all its
	 * replicas have given q: then its mm falls), so its replicas give
	 * in one step as many as one at a time would: the same split, in
	 * one pass a group instead of one a replica (11 million passes in a
	 * Mixtral 8x22B budget search). */
	while (excess > 0) {
		int best = -1;
		double bt = -1;
		for (int i = 0; i < n; i++) {
			int cur_hi = gr[i].count - gr[i].n_lo;
			int mm = cur_hi > 0 ? gr[i].m : gr[i].m - gr[i].q;
			if (mm - gr[i].q < gr[i].q || gr[i].q > excess)
				continue;
			double t = gr[i].L->A + gr[i].L->B * mm;
			if (t > bt) {
				bt = t;
				best = i;
			}
		}
		if (best < 0)
			return -1;
		struct group_in *b = &gr[best];
		if (b->n_lo == b->count) {
			b->m -= b->q;
			b->n_lo = 0;
		}
		long take = HP_MIN((long)(b->count - b->n_lo), excess / b->q);
		b->n_lo += (int)take;
		excess -= take * b->q;
	}
	return 0;
}

int search_split(int n, const double *A, const double *B, const int *q, const int *count, long M,
		 int *m, int *n_lo)
{
	struct layout L[HP_MAX_POOLS + 1];
	struct group_in gi[HP_MAX_POOLS + 1];
	if (n < 1 || n > (int)HP_ARRAY_LEN(L))
		return -1;
	for (int i = 0; i < n; i++) {
		memset(&L[i], 0, sizeof L[i]);
		L[i].A = A[i];
		L[i].B = B[i];
		gi[i].L = &L[i];
		gi[i].count = count[i];
		gi[i].q = q[i];
	}
	if (split_batch(gi, n, M) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		m[i] = gi[i].m;
		n_lo[i] = gi[i].n_lo;
	}
	return 0;
}

/* Fill r as count replicas of layout L running m micro-batches each. */
/* Replica group r of count replicas of layout L, m micro-batches each;
 * its stages in st (L->pp of them), or allocated when st is NULL. */
static void replica_fill_in(struct replica *r, const struct layout *L, int count, int m,
			    int mbs, int gbs, struct stage *st)
{
	r->count = count;
	r->batch_share = (double)m * mbs / gbs;
	r->n_stages = L->pp;
	r->stages = st ? st : xcalloc((size_t)L->pp, sizeof *r->stages);
	int a = 0;
	for (int s = 0; s < L->pp; s++) {
		layout_stage(L, s, &r->stages[s].pool, &r->stages[s].tp);
		r->stages[s].first_layer = a;
		r->stages[s].last_layer = a + L->k[s] - 1;
		a += L->k[s];
	}
}

static void replica_fill(struct replica *r, const struct layout *L, int count, int m, int mbs,
			 int gbs)
{
	replica_fill_in(r, L, count, m, mbs, gbs, NULL);
}

void add_replica(struct plan *p, const struct layout *L, int count, int m, int mbs,
			int gbs)
{
	p->replicas = xrealloc(p->replicas, (size_t)(p->n_replicas + 1) * sizeof *p->replicas);
	replica_fill(&p->replicas[p->n_replicas++], L, count, m, mbs, gbs);
}

/* The replica groups of one combination (layouts with a non-zero count),
 * the GPUs they use per pool, and a lower bound on their pipeline time
 * before the batch split: with c_i replicas of layout i taking m_i >= q_i
 * micro-batches each and sum c_i m_i = M, the step's pipeline term
 * max_i (A_i + B_i m_i) is at least T where sum c_i (T - A_i) / B_i = M,
 * and at least every A_i + B_i q_i. Returns how many groups, or -1 when
 * the counts are invalid (EP does not divide the DP degree). */
static int combo_groups(struct ctx *x, const struct gset *g, const struct layout **Ls,
			const int *counts, int n, struct group_in *gi, int *used,
			double *pipe_lb)
{
	int k = 0, dp = 0;
	double num = (double)(x->o->gbs / g->mbs), den = 0, floor_t = 0;
	memset(used, 0, HP_MAX_POOLS * sizeof *used);
	for (int i = 0; i < n; i++)
		if (counts[i] > 0) {
			const struct layout *L = Ls[i];
			gi[k].L = L;
			gi[k].count = counts[i];
			gi[k].q = g->sched == SCHED_INTERLEAVED ? L->pp : 1;
			dp += counts[i];
			num += counts[i] * L->A_lo / L->B_lo;
			den += counts[i] / L->B_lo;
			floor_t = perf_fmax(floor_t, L->A_lo + L->B_lo * gi[k].q);
			/* the layout's pools once each (fit_count) */
			for (int s = 0; s < L->nseg; s++) {
				int p = L->seg[s].pool;
				if (!s || p != L->seg[0].pool)
					used[p] += counts[i] * L->gpus[p];
			}
			k++;
		}
	if (!k)
		return -1;
	x->res->stats.candidates++;
	if ((dp * g->cp) % g->ep) {
		x->res->stats.pruned++;
		return -1;
	}
	*pipe_lb = perf_fmax(num / den, floor_t);
	return k;
}

/* Screening: from the layouts' affine fits alone (no perf_estimate), is
 * the combination sure to change nothing the search reports? pipe is a
 * lower bound on the step's pipeline term max(A + B m) over the groups,
 * which is exactly perf.c's (stage times do not depend on the DP degree,
 * and the fits are exact in the layers); the step adds DP
 * synchronisation, the optimizer and a fixed overhead to it, so pipe
 * bounds the step time from below; node prices (used: GPUs per pool)
 * are exact. A plan whose bounds cannot beat the last ranked plan nor
 * the best stock-framework plan, and whose (time, cost) is dominated on
 * the Pareto front, is skipped. A relative margin of 1e-6 covers
 * rounding in the fits (they hold to ~1e-12). Returns 1 to skip. */
static int bounds_screened(struct ctx *x, double lb, double t, double usd, int priced,
			   double margin)
{
	const struct ctx *y = x;
	while (y && y->n_top <= 0)
		y = y->glob;
	if (!y)
		return 0;   /* nothing kept */
	/* sure to miss the deadline or the budget (or unpriced): it can
	 * only be a nearest miss, which is reported only when no plan is
	 * kept, and a plan is kept here */
	int misses = !priced || (x->o->objective == OBJ_DEADLINE && t > x->o->deadline_s / margin) ||
		     (x->o->objective == OBJ_BUDGET && usd > x->o->budget_usd / margin);
	if (x->o->objective != OBJ_THROUGHPUT && misses)
		;   /* neither ranked nor stock, whatever the lists hold */
	else {
		/* the lists only where they decide (most of a budget search's
		 * candidates are sure misses) */
		double worst, stock;
		int have_worst = top_worst(x, &worst);
		if (!have_worst || !(lb > worst / margin))
			return 0;
		if (!x->no_stock && (!stock_best(x, &stock) || !(lb > stock / margin)))
			return 0;
	}
	if (priced && !front_dominates(x, t, usd))
		return 0;
	return 1;
}

/* The price of a candidate's whole nodes, from its GPUs per pool used[]:
 * USD an hour (summed over the pools in index order, the unpriced ones
 * too) and whether every pool used has a price. try_combo's screens ask
 * it up to five times a candidate with the same used[]; computed once
 * (issue 13, twenty-second round: the loop, its divisions and
 * pool_price_known calls were 0.9% of the Mixtral 8x22B deadline
 * search's instructions). */
struct combo_price {
	double usd_h;
	int priced;
};

static void combo_price_of(const struct ctx *x, const int *used, struct combo_price *pr)
{
	double usd_h = 0;
	int priced = 1;
	for (int p = 0; p < x->c->n_pools; p++) {
		const struct pool *pl = &x->c->pools[p];
		if (!used[p])
			continue;
		priced &= x->priced[p];
		usd_h += (used[p] + pl->gpus_per_node - 1) / pl->gpus_per_node * pl->usd_per_node_h;
	}
	pr->usd_h = usd_h;
	pr->priced = priced;
}

static int combo_bounds(struct ctx *x, const struct combo_price *pr, double pipe)
{
	const double margin = 1 - 1e-6;
	double step = pipe * margin, tok_step = (double)x->o->gbs * x->seq;
	double usd_h = pr->usd_h;
	int priced = pr->priced;
	double t = x->tokens * step / tok_step, usd = usd_h * t / 3600;
	double lb;
	switch (x->o->objective) {
	case OBJ_THROUGHPUT: lb = step / tok_step; break;
	case OBJ_COST: lb = priced ? usd_h / 3600 * step / tok_step * 1e6 : HUGE_VAL; break;
	case OBJ_DEADLINE: lb = priced ? usd : HUGE_VAL; break;
	default: lb = priced ? t : HUGE_VAL; break;
	}
	return bounds_screened(x, lb, t, usd, priced, margin);
}

/* try_combo's first screen (combo_screened, before the batch split) for
 * every count vector of a set at once whose GPUs per pool are at least
 * used[] (on the same pools: every layout of the set at one replica or
 * more) and whose pipeline bound (combo_groups) is at least pipe. The
 * screen is monotone: its price (whole nodes of used), time and cost
 * grow with used and pipe, and each test it makes (past the deadline
 * or budget, behind the last ranked and the stock plan, dominated on
 * the front) holds for larger values where it holds for smaller ones,
 * and for the lists kept later (the ranked list's last and the stock
 * plan only improve, the front only gains dominating points). So a 1
 * here is a 1 for each of those vectors whenever try_combo asks later.
 * Counts nothing: the caller counts a block it skips. */
int combo_screens_all(struct ctx *x, const int *used, double pipe)
{
	struct combo_price pr;
	combo_price_of(x, used, &pr);
	return combo_bounds(x, &pr, pipe);
}

static int combo_screened(struct ctx *x, const struct combo_price *pr, double pipe)
{
	if (!combo_bounds(x, pr, pipe))
		return 0;
	x->res->stats.screened++;
	return 1;
}

/* The exposed DP synchronisation of the plans of one layout set, kept
 * while its counts are tried. perf_estimate's step is worst_pipe +
 * worst_dp + worst_opt + step_overhead_s (perf.c, breakdown), and
 * perf_dp_exposed is its worst_dp to the bit (the same expressions on the
 * same inputs). Under ZeRO 0-2 a stage's exposed DP time reads its
 * layers, pool, TP degree and place in the pipeline, the plan's settings
 * and framework, the DP degree (the replicas in all, N) and the plan's
 * other pool (perf.c plan_pools: from the pools the plan uses), never the
 * micro-batches (perf.c stage_dp_key keys mb only under ZeRO 3 and
 * DeepSpeed's ZeRO 2, framework_dp_reads_mb: those go as ZeRO 3 below). Every
 * plan of a set runs every layout of the set (counts >= 1), so its stages
 * and pools are the set's: its worst_dp is a function of (N, framework)
 * alone, kept here after the first plan of that pair computed it. The
 * keeper is reset by set_screened, which counts_for_set_in calls before
 * any count of a set is tried, and is read only by the set it was reset
 * for (the context, the setting and the layouts' addresses match).
 * Under ZeRO 3 a stage's exposed time is its per-micro-batch exposure
 * (gathers and reduce-scatters beside the forward, backward and
 * recompute; DeepSpeed's ZeRO 2: the gradient reduce-scatter beside each
 * backward, plus the step's gather) times its group's micro-batches plus
 * the tied-embedding sum
 * (perf_comm.c perf_stage_dp), nondecreasing in them: worst_dp is then at
 * least the one with every replica at the plan's fewest micro-batches,
 * m_min, which is kept under (N, framework, m_min) (computed on the plan
 * with every group's share set to m_min micro-batches, then put back). */
#define DPM_SLOTS 256
/* Slots of the set's pipeline keeper (struct pipe_memo_e): layouts of a
 * set times the DP degrees met, and one DP-free entry a layout; and the
 * micro-batch counts an entry keeps where the stage times read them. */
#define PM_SLOTS 512
#define PM_PAIRS 8
struct dp_memo {
	const struct ctx *x;
	const struct gset *g;
	struct gset gv;
	int n, live;
	double seen;   /* the largest DP time computed for the set */
	unsigned gen;  /* the set's: entries of another are empty (a reset
			* without clearing the table) */
	int built_any; /* a plan of the set was built, valid, named FW_ANY */
	int built_odd; /* one was refused (plan_validate, --framework) or
			* named a stock framework: no screen before building */
	const struct layout *L[HP_MAX_POOLS + 1];
	/* the set's DP sweep (dp_at): its serial (0: none), and the set
	 * (gen) and framework it was begun for */
	unsigned long sw_serial;
	unsigned sw_gen;
	int sw_fw;
	struct dp_memo_e {
		unsigned gen;
		int N, fw, m;   /* N = 0: empty; m: m_min under ZeRO 3, else 0 */
		int key_n;      /* an empty slot handed out: the N to put */
		double v;
	} e[DPM_SLOTS];
	/* Under FW_ANY, whether layout i's stage times read the micro-
	 * batches (search_pipe_mb_read; set with the set's first keeper entry) */
	char mb_any[HP_MAX_POOLS + 1];
	int pm_kept;        /* entries put for the set (0: nothing to read) */
	struct pipe_memo_e {
		unsigned gen;
		int N, fw, li;      /* N = -1: the DP-free entry; li = -1: empty */
		int n;              /* pairs kept */
		int m[PM_PAIRS];    /* their micro-batches (0: the stage times
				     * do not read them) */
		double A[PM_PAIRS], B[PM_PAIRS];
	} pe[PM_SLOTS];
	/* the DP-free entries, one a layout of the set (li, N -1 and the fw
	 * of the first estimate that put one; gen as pe's) */
	struct pipe_memo_e pfree[HP_MAX_POOLS + 1];
};
static _Thread_local struct dp_memo dpm;

static void dp_memo_reset(const struct ctx *x, const struct gset *g, const struct layout **Ls,
			  int n)
{
	dpm.live = !x->exhaustive && n <= HP_MAX_POOLS + 1;
	dpm.x = x;
	dpm.g = g;
	dpm.gv = *g;
	dpm.n = n;
	for (int i = 0; dpm.live && i < n; i++)
		dpm.L[i] = Ls[i];
	dpm.seen = 0;
	dpm.built_any = dpm.built_odd = 0;
	if (!++dpm.gen) {   /* wrapped: entries of gen 0 would read as live */
		memset(dpm.e, 0, sizeof dpm.e);
		memset(dpm.pe, 0, sizeof dpm.pe);
		memset(dpm.pfree, 0, sizeof dpm.pfree);
		dpm.gen = 1;
	}
	dpm.pm_kept = 0;
}

static int dp_memo_ours(const struct ctx *x, const struct gset *g, const struct layout **Ls,
			int n)
{
	/* An exhaustive search (search_counts.c) never calls set_screened,
	 * which resets the memo: addresses of an earlier search on this
	 * thread could match there, so the memo is off in that mode. */
	if (x->exhaustive || !dpm.live || dpm.x != x || dpm.g != g || dpm.n != n ||
	    memcmp(&dpm.gv, g, sizeof *g) != 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (dpm.L[i] != Ls[i])
			return 0;
	return 1;
}

static int same_stages(const struct replica *a, const struct replica *b)
{
	if (a->n_stages != b->n_stages)
		return 0;
	for (int s = 0; s < a->n_stages; s++)
		if (a->stages[s].pool != b->stages[s].pool || a->stages[s].tp != b->stages[s].tp ||
		    a->stages[s].first_layer != b->stages[s].first_layer ||
		    a->stages[s].last_layer != b->stages[s].last_layer)
			return 0;
	return 1;
}

/* perf_dp_exposed of plan p, on a shallow copy whose groups of one
 * layout are one (a layout's two groups, m and m - q micro-batches, hold
 * the same stages; the DP degree, the pools and so every stage's DP time
 * stay: half the stages to evaluate), every group at m micro-batches
 * under ZeRO 3 (m = 0: as they are, which ZeRO 0-2 do not read). */
static int dp_plan_of(const struct plan *p, int m, struct replica *rep, int n_rep,
		      struct plan *out)
{
	struct plan q = *p;
	if (p->n_replicas > n_rep)
		return -1;
	q.replicas = rep;
	q.n_replicas = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *a = &p->replicas[r];
		struct replica *last = q.n_replicas ? &rep[q.n_replicas - 1] : NULL;
		if (last && same_stages(last, a)) {
			last->count += a->count;
			continue;
		}
		rep[q.n_replicas] = *a;
		if (m)
			rep[q.n_replicas].batch_share = (double)m * p->mbs / p->gbs;
		q.n_replicas++;
	}
	*out = q;
	return 0;
}

/* perf_dp_exposed of plan p as dp_plan_of makes it, at its own DP degree N,
 * through the set's DP sweep (perf_dp_sweep_begin): begun on the first
 * plan of the set asked at framework fw, and asked again at each N (and
 * under ZeRO-3 each m). Every plan of the set at fw has the
 * same stages after dp_plan_of (one group a layout, each layout at one
 * replica or more) and the same settings (the set's, plan_globals, and
 * fw), so the sweep at N gives the bits perf_dp_exposed_memo gives for it
 * (perf.h); the key is the DP keeper's own (dp_key). Issue 13, twenty-
 * third round: perf_dp_exposed_memo for each new N of a set set up its
 * context and placed and keyed every stage again, about 7,000 of its
 * 13,000 instructions a call in the Mixtral 8x22B deadline search. */
static int dp_at(struct ctx *x, const struct plan *p, int m, double *dp)
{
	struct replica rep[2 * (HP_MAX_POOLS + 1)];
	struct plan q;
	struct hp_err err;   /* empty, not zeroed (as search.c's probes) */
	err.code = 0;
	err.msg[0] = '\0';
	int N = plan_dp(p), fw = (int)p->framework;
	if (dpm.sw_serial && dpm.sw_gen == dpm.gen && dpm.sw_fw == fw &&
	    perf_dp_sweep_at(dpm.sw_serial, x->c, x->m, N, m, dp) == 0)
		return 0;
	if (dp_plan_of(p, m, rep, (int)HP_ARRAY_LEN(rep), &q) < 0)
		return -1;
	dpm.sw_serial = dpm.live ? perf_dp_sweep_begin(x->c, x->m, &q, &err) : 0;
	dpm.sw_gen = dpm.gen;
	dpm.sw_fw = fw;
	if (dpm.sw_serial && perf_dp_sweep_at(dpm.sw_serial, x->c, x->m, N, m, dp) == 0)
		return 0;
	dpm.sw_serial = 0;
	return perf_dp_exposed_memo(x->c, x->m, &q, dp, &err);
}

/* The keeper's key of plan p: N, framework and, where the DP term reads
 * the micro-batches (ZeRO 3, DeepSpeed's ZeRO 2: framework_dp_reads_mb),
 * the fewest of a replica (*m_max the most). */
static unsigned dp_key(const struct plan *p, int *N, int *fw, int *m, int *m_max)
{
	*N = plan_dp(p);
	*fw = (int)p->framework;
	*m = *m_max = 0;
	if (framework_dp_reads_mb(p->framework, p->zero)) {
		*m = INT_MAX;
		for (int r = 0; r < p->n_replicas; r++) {
			int k = plan_replica_microbatches(p, r);
			*m = HP_MIN(*m, k);
			*m_max = HP_MAX(*m_max, k);
		}
	}
	return ((unsigned)*N * 2654435761u ^ (unsigned)*fw * 40503u ^ (unsigned)*m * 97u) %
	       DPM_SLOTS;
}

/* The keeper's entry for p's key, or the empty slot to put it in (NULL
 * when neither is within 8 slots). */
static struct dp_memo_e *dp_slot_of(int N, int fw, int m, int *hit)
{
	unsigned h = ((unsigned)N * 2654435761u ^ (unsigned)fw * 40503u ^ (unsigned)m * 97u) %
		     DPM_SLOTS;
	*hit = 0;
	for (int k = 0; k < 8; k++) {
		struct dp_memo_e *e = &dpm.e[(h + (unsigned)k) % DPM_SLOTS];
		if (e->gen != dpm.gen) {
			e->gen = dpm.gen;
			e->N = 0;
		}
		if (e->N == N && e->fw == fw && e->m == m) {
			*hit = 1;
			return e;
		}
		if (!e->N) {
			e->fw = fw;
			e->m = m;
			e->key_n = N;
			return e;
		}
	}
	return NULL;
}

static struct dp_memo_e *dp_slot(const struct plan *p, int *hit, int *m_all)
{
	int N, fw, m, m_max;
	dp_key(p, &N, &fw, &m, &m_max);
	*m_all = m == m_max;
	return dp_slot_of(N, fw, m, hit);
}

static void dp_slot_put(struct dp_memo_e *e, double v)
{
	e->N = e->key_n;
	e->v = v;
}

/* A lower bound on the plan's worst_dp, exact where it does not read the
 * micro-batches (ZeRO 0-2 but DeepSpeed's ZeRO 2), from the
 * set's keeper when its key was met; else computed (compute), or -1. */
static double set_dp_exposed(struct ctx *x, const struct plan *p, int compute)
{
	int hit, m_all;
	struct dp_memo_e *e = dp_slot(p, &hit, &m_all);
	if (hit)
		return e->v;
	if (!compute)
		return -1;
	int N, fw, m, m_max;
	double dp;
	dp_key(p, &N, &fw, &m, &m_max);
	if (dp_at(x, p, m, &dp) < 0)
		return -1;
	if (e)
		dp_slot_put(e, dp);
	dpm.seen = fmax(dpm.seen, dp);
	return dp;
}

/* A whole estimate's dp_comm into the set's keeper: worst_dp of its key
 * under ZeRO 0-2, and under ZeRO 3 when every replica runs the fewest
 * micro-batches (else it is above the key's bound). */
static void dp_memo_offer(const struct ctx *x, const struct gset *g, const struct layout **Ls,
			  int n, const struct plan *p, double dp_comm)
{
	int hit, m_all;
	if (!dp_memo_ours(x, g, Ls, n))
		return;
	struct dp_memo_e *e = dp_slot(p, &hit, &m_all);
	if (e && !hit && m_all)
		dp_slot_put(e, dp_comm);
}

/* The set's pipeline keeper: what whole estimates of the set's plans
 * tell of the pipeline term of its other plans. perf.c's replica_eval
 * makes a group's pipeline m max_s t_s + (sum_s t_s - max_s t_s) / v
 * from its stages' times t_s (t_total, per micro-batch), and a stage's
 * time is a function of its stage key (perf_int.h, struct stage_key: the
 * stage's pool, TP, layers and place in the pipeline, its neighbours'
 * pools and node crossings, the plan's settings and framework, the DP
 * degree, the other site's pool, and the micro-batches under the EP
 * overlap or ZeRO 3: key0.mb). Every plan of a set runs every layout of
 * it (counts >= 1), so its pools and other site's pool are the set's,
 * and a group of layout i has the same stages whatever the counts: its
 * stage times are a function of (N, framework, m) alone, m only where
 * they read the micro-batches (search_pipe_mb_read). Two entries are kept per
 * group of an estimate: A (the fill) and B (the slowest stage) at its N,
 * exact for another plan at that N; and the same less each stage's PP
 * hand-offs (t_pp), a lower bound at every N, since of a stage's time
 * only the PP term reads the DP degree (perf_comm.c: the node crossings
 * and the NIC share, perf_pp_boundary_crosses, pp_share; the compute,
 * TP, CP and EP terms read the stage, its pool and the other site's,
 * never x->dp), and the sum less the largest is nondecreasing in each
 * term. These bounds hold the EP all-to-all and the CP exchange, which
 * the layouts' A_lo, B_lo leave out (search.c layout_fill: those are
 * probed on the layout alone, whose other site's pool is not the set's).
 * Not kept for a plan with a pipeline layout of its own (pp_layout: its
 * fill is layout_fill's), which the search does not build. */
int search_pipe_mb_read(const struct plan *p, int pp)
{
	return p->zero == 3 || plan_ep_overlap_on(p, pp);
}

void search_group_terms(const struct perf_stage *st, int pp, int v, double *A, double *B,
			double *A_free, double *B_free)
{
	double sum = 0, mx = 0, sum_c = 0, mx_c = 0;
	for (int s = 0; s < pp; s++) {
		double t = st[s].t_total, tc = t - st[s].t_pp;
		sum += t;
		mx = perf_fmax(mx, t);
		sum_c += tc;
		mx_c = perf_fmax(mx_c, tc);
	}
	*A = (sum - mx) / v;
	*B = mx;
	*A_free = perf_fmax(0, (sum_c - mx_c) / v);
	*B_free = mx_c;
}

static struct pipe_memo_e *pipe_slot(int N, int fw, int li, int put)
{
	if (N < 0) {
		struct pipe_memo_e *e = &dpm.pfree[li];
		if (e->gen != dpm.gen) {
			if (!put)
				return NULL;
			e->gen = dpm.gen;
			e->N = -1;
			e->fw = fw;
			e->li = li;
			e->n = 0;
		}
		return e->fw == fw ? e : NULL;
	}
	unsigned h = ((unsigned)(N + 1) * 2654435761u ^ (unsigned)fw * 40503u ^
		      (unsigned)li * 7919u) % PM_SLOTS;
	for (int k = 0; k < 8; k++) {
		struct pipe_memo_e *e = &dpm.pe[(h + (unsigned)k) % PM_SLOTS];
		if (e->gen != dpm.gen) {
			e->gen = dpm.gen;
			e->li = -1;
		}
		if (e->li == li && e->N == N && e->fw == fw)
			return e;
		if (e->li < 0) {
			if (!put)
				return NULL;
			e->N = N;
			e->fw = fw;
			e->li = li;
			e->n = 0;
			return e;
		}
	}
	return NULL;
}

/* The most an entry's pairs say of the pipeline of a group running m
 * micro-batches (mb_read: the stage times read them), -1 when none
 * applies. Where they are read, a pair kept at m' >= m applies: a stage
 * time reads the micro-batches only through the EP overlap's exposed
 * share (perf_comm.c ep_overlap_exposed: the passes without a partner,
 * at 4 all-to-alls, over mb x v, the others at the paired exposure,
 * which is at most 4 all-to-alls), nonincreasing in them, so each stage
 * time at m is at least at m', and m B + A with it (B the largest, A
 * the sum less the largest, both nondecreasing in each stage time). */
static double pipe_pairs(const struct pipe_memo_e *e, int m, int mb_read)
{
	double best = -1;
	for (int j = 0; e && j < e->n; j++)
		if (mb_read ? e->m[j] >= m : e->m[j] == 0)
			best = perf_fmax(best, m * e->B[j] + e->A[j]);
	return best;
}

/* The pipeline of a group of layout li running m micro-batches at DP
 * degree N under framework fw, from the keeper: the most its degree's
 * entry and the DP-free one say; -1 when neither says anything. */
static double pipe_kept(int N, int fw, int li, int m, int mb_read)
{
	return perf_fmax(pipe_pairs(pipe_slot(N, fw, li, 0), m, mb_read),
			 pipe_pairs(pipe_slot(-1, fw, li, 0), m, mb_read));
}

/* Whether e holds a pair at m, or can hold no more (NULL: no slot). */
static int pipe_pair_held(const struct pipe_memo_e *e, int m)
{
	if (!e || e->n == PM_PAIRS)
		return 1;
	for (int j = 0; j < e->n; j++)
		if (e->m[j] == m)
			return 1;
	return 0;
}

/* Keep (A, B) at m (0: not read) in e, once a micro-batch count; an
 * entry keeps its first PM_PAIRS counts. */
static void pipe_pair_put(struct pipe_memo_e *e, int m, double A, double B)
{
	if (!e)
		return;
	for (int j = 0; j < e->n; j++)
		if (e->m[j] == m)
			return;
	if (e->n == PM_PAIRS)
		return;
	e->m[e->n] = m;
	e->A[e->n] = A;
	e->B[e->n++] = B;
}

/* A lower bound on the pipeline term of the set's plan with groups gi
 * (k of them, one a layout of the set: k == n) under framework fw
 * (mb_read[i]: layout i's stage times read the micro-batches), from the
 * keeper; pipe when it knows nothing better. */
static double pipe_memo_bound(const struct group_in *gi, int k, int n, int fw,
			      const char *mb_read, double pipe)
{
	if (k != n || !dpm.pm_kept)
		return pipe;
	int N = 0;
	for (int i = 0; i < k; i++)
		N += gi[i].count;
	for (int i = 0; i < k; i++) {
		int m = gi[i].count - gi[i].n_lo > 0 ? gi[i].m : gi[i].m - gi[i].q;
		pipe = perf_fmax(pipe, pipe_kept(N, fw, i, m, mb_read[i]));
	}
	return pipe;
}

/* A whole estimate e of plan p (groups gi, k of them) into the keeper. */
static void pipe_memo_offer(const struct ctx *x, const struct gset *g, const struct layout **Ls,
			    int n, const struct group_in *gi, int k, const struct plan *p,
			    const struct estimate *e)
{
	if (k != n || p->pp_layout[0] || !dp_memo_ours(x, g, Ls, n))
		return;
	int N = plan_dp(p), fw = (int)p->framework, r = 0, si = 0;
	int v = g->sched == SCHED_INTERLEAVED ? g->vpp : 1;
	for (int i = 0; i < k; i++) {
		int mb_read = search_pipe_mb_read(p, gi[i].L->pp);
		for (int lo = 0; lo < 2; lo++) {
			int cnt = lo ? gi[i].n_lo : gi[i].count - gi[i].n_lo;
			if (cnt <= 0)
				continue;
			int m = lo ? gi[i].m - gi[i].q : gi[i].m, pp = gi[i].L->pp;
			if (r >= p->n_replicas || p->replicas[r].n_stages != pp ||
			    si + pp > e->n_stages || e->stages[si].group != r ||
			    e->stages[si + pp - 1].group != r)
				return;
			int mk = mb_read ? m : 0;
			struct pipe_memo_e *at = pipe_slot(N, fw, i, 1), *fr = pipe_slot(-1, fw, i, 1);
			if (!pipe_pair_held(at, mk) || !pipe_pair_held(fr, mk)) {
				double A, B, A_free, B_free;
				search_group_terms(&e->stages[si], pp, v, &A, &B, &A_free, &B_free);
				pipe_pair_put(at, mk, A, B);
				pipe_pair_put(fr, mk, A_free, B_free);
			}
			if (!dpm.pm_kept) {
				/* the set's first: mb_any for the readers */
				struct plan pg;
				plan_globals(&pg, x, g);
				pg.framework = FW_ANY;
				for (int j = 0; j < n; j++)
					dpm.mb_any[j] = (char)search_pipe_mb_read(&pg, Ls[j]->pp);
				dpm.pm_kept = 1;
			}
			r++;
			si += pp;
		}
	}
}

/* Whether a plan whose step is at least `step` surely misses the deadline
 * (budget) by more than the nearest miss so far, here or in the shared
 * context (search.c keep_plan: a miss replaces the nearest when it misses
 * by less, or by as much and sorts first; task_merge keeps the lesser of
 * a setting's and the shared one's the same way), so that it cannot
 * become the nearest miss. The nearest is written to the result even
 * when plans are kept, and the candidates' screen leaves it to the
 * screens it had; this screen, whose step is larger, skips a deadline or
 * budget plan only past it, so the nearest stays the same. The shared
 * context's is frozen during a batch (the same for every thread count)
 * and only falls; a plan skipped past it would have missed by more than
 * it, so it could not have lowered the least of the two, and every later
 * verdict here is the same as had it been kept. */
static int nearer_miss_impossible(const struct ctx *x, const struct combo_price *pr,
				  double step)
{
	const double margin = 1 - 1e-6;
	int have = 0;
	double best = HUGE_VAL;
	for (const struct ctx *y = x; y; y = y->glob)
		if (y->res->has_nearest) {
			best = fmin(best, y->best_miss);
			have = 1;
		}
	if (!have || !pr->priced)
		return 0;
	double usd_h = pr->usd_h;
	double t = x->tokens * step * margin / ((double)x->o->gbs * x->seq);
	double miss = x->o->objective == OBJ_DEADLINE ? t / x->o->deadline_s - 1
						      : usd_h * t / 3600 / x->o->budget_usd - 1;
	return miss * margin > best + 1e-12;
}

/* The candidates' screen again, once the plan is built and names its
 * framework, with the plan's exposed DP time added to its pipeline term
 * (set_dp_exposed): 1 to skip the plan. */
static int dp_screened(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
		       const struct plan *p, const struct group_in *gi, int k,
		       const struct combo_price *pr, double pipe)
{
	if (!dp_memo_ours(x, g, Ls, n))
		return 0;
	if (k == n && dpm.pm_kept && !p->pp_layout[0]) {
		char mb_read[HP_MAX_POOLS + 1];
		const char *rd = dpm.mb_any;
		if (p->framework != FW_ANY) {
			for (int i = 0; i < k; i++)
				mb_read[i] = (char)search_pipe_mb_read(p, gi[i].L->pp);
			rd = mb_read;
		}
		pipe = pipe_memo_bound(gi, k, n, (int)p->framework, rd, pipe);
	}
	const double ovh = perf_calib_default()->step_overhead_s;
	int dl = x->o->objective == OBJ_DEADLINE || x->o->objective == OBJ_BUDGET;
	/* not computed where the set's largest DP time so far would not
	 * screen the plan either (a guess: only the work, not the answer,
	 * depends on it) */
	int compute = !(dpm.seen > 0) || (combo_bounds(x, pr, pipe + dpm.seen + ovh) &&
					  (!dl || nearer_miss_impossible(x, pr, pipe + dpm.seen + ovh)));
	double dp = set_dp_exposed(x, p, compute);
	double step = pipe + (dp > 0 ? dp : 0) + ovh;
	if (dl && !nearer_miss_impossible(x, pr, step))
		return 0;
	return combo_screened(x, pr, step);
}

/* How a built plan of the set fared (dp_prescreened's condition). */
static void dp_memo_built(const struct ctx *x, const struct gset *g, const struct layout **Ls,
			  int n, int ok_any)
{
	if (!dp_memo_ours(x, g, Ls, n))
		return;
	if (ok_any)
		dpm.built_any = 1;
	else
		dpm.built_odd = 1;
}

/* dp_screened before the plan is built, from the groups (gi, k) alone,
 * where its answer is known without the plan: the set runs on no stock
 * framework (x->no_stock: runs_on_pick names FW_ANY for each of its
 * plans, set_may_stock), --framework is not given, and the keeper holds
 * the plan's key (N = the replicas, FW_ANY, under ZeRO 3 the fewest
 * micro-batches of a replica): dp_screened then reads that value and
 * computes nothing, so its verdict is this one; and where the set's
 * pipeline keeper (pipe_memo_bound) raises the pipeline bound, with the
 * DP time left at 0 when the DP keeper does not hold the key (still a
 * lower bound on the step: dp_screened's test on a lower bound, so what
 * it skips changes nothing the search reports). Asked only once a plan
 * of the set was built and valid and none was refused: whether
 * plan_validate passes reads the settings, the layouts and the
 * micro-batches, which the split makes whole (multiples of q) and the
 * batch's shares, the same for every plan of the set (its GPUs per pool
 * are checked before). Saves building, validating and naming the
 * framework of a plan the keeper screens (6,500 instructions each).
 * Where the keepers alone do not skip it and the keeper misses the key,
 * the rest of dp_screened's steps follow here on the plan it would
 * build: its guess of whether to compute, the key's DP time through
 * the set's sweep (dp_at's own, so the same bits, put in the keeper and
 * the set's largest as set_dp_exposed puts them), its test; so its
 * verdict and the state it leaves are dp_screened's, and a plan it
 * skips is not built (issue 13, twenty-third round: 124,000 of the
 * Mixtral 8x22B deadline search's 177,000 plans built). Where the sweep
 * is not at hand (none begun for the set at FW_ANY), left to the plan
 * before anything is computed or kept. */
static int dp_prescreened(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
			  const struct group_in *gi, int k, const struct combo_price *pr,
			  double pipe)
{
	if (!x->no_stock || x->o->framework != FW_ANY || !dp_memo_ours(x, g, Ls, n) ||
	    !dpm.built_any || dpm.built_odd)
		return 0;
	int N = 0, m = 0, fw = (int)FW_ANY;
	if (g->zero == 3)
		m = INT_MAX;
	for (int i = 0; i < k; i++) {
		N += gi[i].count;
		if (g->zero == 3 && gi[i].count - gi[i].n_lo > 0)
			m = HP_MIN(m, gi[i].m);
		if (g->zero == 3 && gi[i].n_lo > 0)
			m = HP_MIN(m, gi[i].m - gi[i].q);
	}
	/* first from what the keepers hold alone: the DP time of the key
	 * when met (else 0, still a lower bound), the pipeline bound */
	int hit;
	struct dp_memo_e *e = dp_slot_of(N, fw, m, &hit);
	double dp = hit && e->v > 0 ? e->v : 0, pipe0 = pipe;
	pipe = pipe_memo_bound(gi, k, n, fw, dpm.mb_any, pipe);
	const double ovh = perf_calib_default()->step_overhead_s;
	int dl = x->o->objective == OBJ_DEADLINE || x->o->objective == OBJ_BUDGET;
	double step = pipe + dp + ovh;
	if ((dp > 0 || pipe > pipe0) && (!dl || nearer_miss_impossible(x, pr, step)) &&
	    combo_screened(x, pr, step))
		return 1;
	if (hit)
		return 0;   /* dp_screened reads the same and screens the same */
	/* then dp_screened's steps on the plan it would build (framework
	 * FW_ANY, so the pipeline keeper's mb_any): where it computes the
	 * key's DP time, computed here through the set's sweep */
	int compute = !(dpm.seen > 0) || (combo_bounds(x, pr, pipe + dpm.seen + ovh) &&
					  (!dl || nearer_miss_impossible(x, pr, pipe + dpm.seen + ovh)));
	dp = -1;
	if (compute) {
		/* set_dp_exposed's computation (dp_at), through the set's
		 * sweep when it was begun at FW_ANY; else left to the plan */
		if (!dpm.sw_serial || dpm.sw_gen != dpm.gen || dpm.sw_fw != fw ||
		    perf_dp_sweep_at(dpm.sw_serial, x->c, x->m, N, m, &dp) < 0)
			return 0;
		if (e)
			dp_slot_put(e, dp);
		dpm.seen = fmax(dpm.seen, dp);
	}
	step = pipe + (dp > 0 ? dp : 0) + ovh;
	if (dl && !nearer_miss_impossible(x, pr, step))
		return 0;
	return combo_screened(x, pr, step);
}

/* The same screen for every replica-count vector of a layout set at
 * once: with n_i replicas of layout i (at most as many as fit alone,
 * maxc_i), the step is at least M / sum(n_i / B_i) (B without PP/CP/EP
 * communication, fill and drain dropped), and USD per step at least
 * min_i(usd_h_i B_i) M / 3600 (GPU shares of node prices; rounding up to
 * whole nodes only adds). Every candidate uses every layout of the set
 * (counts >= 1), so one unpriced layout makes them all unpriced. Returns
 * 1 to skip the set. */
int set_screened(struct ctx *x, const struct gset *g, const struct layout **Ls, int n)
{
	dp_memo_reset(x, g, Ls, n);
	const double margin = 1 - 1e-6;
	double M = (double)(x->o->gbs / g->mbs), rate = 0, cps = HUGE_VAL;
	int priced = 1;
	for (int i = 0; i < n; i++) {
		rate += fit_count(x, Ls[i], x->cap) / Ls[i]->B_lo;
		priced &= Ls[i]->price_known;
		cps = fmin(cps, Ls[i]->usd_h * Ls[i]->B_lo);
	}
	double tok_step = (double)x->o->gbs * x->seq, step = M / rate * margin;
	double usd_step = cps * M / 3600 * margin;
	double t = x->tokens * step / tok_step, usd = usd_step * x->tokens / tok_step;
	double lb;
	switch (x->o->objective) {
	case OBJ_THROUGHPUT: lb = step / tok_step; break;
	case OBJ_COST: lb = priced ? usd_step / tok_step * 1e6 : HUGE_VAL; break;
	case OBJ_DEADLINE: lb = priced ? usd : HUGE_VAL; break;
	default: lb = priced ? t : HUGE_VAL; break;
	}
	return rate > 0 && bounds_screened(x, lb, t, usd, priced, margin);
}

/* Halvings of a step interval where its ends alone do not prove the
 * screen (curve_min), and the knapsacks one set's screen may evaluate
 * (past them it gives up and the set is searched, as without the
 * screen). Candidates left in the bench's deadline searches by depth:
 * Llama 3.1 405B 416,046 (0), 406,210 (4), 371,503 (8); DeepSeek-V3
 * 6,892,376 (4), 6,465,404 (8), 5,967,713 (12), 5,924,216 (20). At 16
 * the screen is near its limit; 4,096 knapsacks (well under a
 * millisecond) bound a set whose curve runs close to the line it must
 * clear. */
#ifndef CURVE_DEPTH
#define CURVE_DEPTH 16
#endif
#define CURVE_EVALS 4096

/* A layout set's cost as a function of its step, for the screen below.
 * A plan of the set runs n_i >= 1 replicas of layout i, each replica r
 * m_r >= 1 micro-batches (split_batch), sum m_r = M; its pipeline term
 * s = max_r (A_lo_i + B_lo_i m_r) is a lower bound on its step
 * (combo_split), so every replica of layout i runs at most
 * c_i(s) = (s - A_lo_i) / B_lo_i micro-batches and sum n_i c_i(s) >= M.
 * Its price (whole nodes) is at least the GPU shares sum n_i usd_h_i.
 * So USD per hour is at least the least sum n_i usd_h_i over real
 * 1 <= n_i <= ub_i (replicas that fit the cluster alone) with
 * sum n_i c_i(s) >= M: a covering knapsack whose LP is filled greedily
 * by USD per micro-batch. */
struct set_curve {
	int n;
	double A[HP_MAX_POOLS + 1], B[HP_MAX_POOLS + 1], usd_h[HP_MAX_POOLS + 1];
	double ub[HP_MAX_POOLS + 1];
	double M;
	double min_total;   /* replicas every plan has at least: the EP step
			     * (capmilp_ep_step; the EP degree divides dp cp) */
	double floor_usd_h; /* USD per hour every plan in question pays at
			     * least (0: none), whatever its step
			     * (set_curve_screened_below) */
	int plain;          /* 1: curve_min without its early "no" (the
			     * tests' reference; the planner leaves it 0) */
};

/* The knapsack's LP value at step s, with n_i >= lo for lo = 1 (*u1) and
 * lo = 0 (*u0): HUGE_VAL when no count vector runs M micro-batches within
 * s. Nonincreasing in s (the c_i(s) grow). With lo = 0, s times it is
 * nonincreasing too: the counts n_i (s - A_i) / (s' - A_i) run the same
 * micro-batches within s' > s, and s' (s - A_i) <= s (s' - A_i) when
 * A_i >= 0. Both from one pass: the layouts that run a micro-batch and
 * their order by USD per micro-batch are the same for both (lo = 1 needs
 * every c_i >= 1, else it is HUGE_VAL; then every c_i > 0 counts for
 * lo = 0 too), and each value is the same arithmetic as two separate
 * passes (adding lo times a term is adding 0 or the term itself). */
static void curve_usd_h2(const struct set_curve *sc, double s, double *u1, double *u0)
{
	int idx[HP_MAX_POOLS + 1], k = 0, all = 1;
	double per[HP_MAX_POOLS + 1], c[HP_MAX_POOLS + 1], need1 = sc->M, need0 = sc->M;
	double usd1 = 0, usd0 = 0;
	for (int i = 0; i < sc->n; i++) {
		c[i] = (s - sc->A[i]) / sc->B[i];
		if (c[i] < 1 || !(c[i] > 0)) {
			all = 0;   /* a replica cannot run one micro-batch */
			if (!(c[i] > 0))
				continue;
		}
		usd1 += sc->usd_h[i];
		need1 -= c[i];
		per[i] = sc->usd_h[i] / c[i];
		int j = k++;
		while (j > 0 && per[idx[j - 1]] > per[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (int j = 0; j < k && need0 > 0; j++) {
		int i = idx[j];
		double take = perf_fmin(sc->ub[i], need0 / c[i]);
		usd0 += take * sc->usd_h[i];
		need0 -= take * c[i];
	}
	*u0 = need0 > 1e-9 * sc->M ? HUGE_VAL : usd0;
	*u1 = HUGE_VAL;
	if (!all)
		return;
	for (int j = 0; j < k && need1 > 0; j++) {
		int i = idx[j];
		double take = perf_fmin(sc->ub[i] - 1, need1 / c[i]);
		usd1 += take * sc->usd_h[i];
		need1 -= take * c[i];
	}
	if (need1 > 1e-9 * sc->M)
		return;
	usd1 = perf_fmax(usd1, sc->floor_usd_h);   /* a floor keeps it nonincreasing */
	double n_lo = sc->n;
	if (n_lo >= sc->min_total) {
		*u1 = usd1;
		return;
	}
	/* with n_i >= 1, min_total replicas cost at least one of each and
	 * the rest at the least price (a second relaxation; s times it is
	 * not monotone, so the n_i >= 0 curve leaves it out) */
	double cheapest = HUGE_VAL, base = 0;
	for (int i = 0; i < sc->n; i++)
		cheapest = perf_fmin(cheapest, sc->usd_h[i]);
	for (int i = 0; i < sc->n; i++)
		base += sc->usd_h[i];
	*u1 = perf_fmax(usd1, base + (sc->min_total - n_lo) * cheapest);
}

/* The least step at which the knapsack with n_i >= 1 is feasible: every
 * c_i(s) >= 1 and sum ub_i c_i(s) >= M (nondecreasing in s, linear
 * between the A_i; bisected to 1e-12). */
static double curve_first_step(const struct set_curve *sc, double s_hi)
{
	double lo = 0;
	for (int i = 0; i < sc->n; i++)
		lo = fmax(lo, sc->A[i] + sc->B[i]);
	double hi = fmax(lo, s_hi);
	for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
		double mid = 0.5 * (lo + hi), f = 0;
		for (int i = 0; i < sc->n; i++)
			f += sc->ub[i] * (mid - sc->A[i]) / sc->B[i];
		if (f >= sc->M)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* A lower bound on s usd_h(s) (USD per hour times seconds) for s in
 * [a, b]: a times the knapsack with n_i >= 1 at b (it is nonincreasing),
 * and b times the one with n_i >= 0 at b (s times it is nonincreasing);
 * where neither reaches `want`, the interval is halved geometrically up
 * to `depth` times while *evals (knapsacks left) lasts, and the least
 * over the pieces returned. The caller asks only whether it reaches
 * want, so the pieces stop at the first one under it (want HUGE_VAL:
 * every piece, for the tests). u1, u0: the two knapsacks at b (the
 * upper half of an interval ends where it does, so it takes its
 * parent's; *evals counts them as evaluated again, so the halvings stop
 * where they did when each piece evaluated its own). */
/* The early "no": p times the greater of the two knapsacks at p is at
 * least the bound of every piece [a', b'] that holds p, a' u1(b') <=
 * p u1(p) (a' <= p, u1 nonincreasing, b' >= p) and b' u0(b') <= p u0(p)
 * (s u0(s) nonincreasing), so where it is under want, whatever the
 * halvings, the piece of the partition that holds p has a bound under
 * want and curve_min's answer is under want. The halvings that would go
 * on (down the left end: 16 knapsacks, on most sets the screen keeps)
 * change nothing but the knapsacks left (*evals), which no caller reads
 * after a "no" (set_curve_screened_below and curve_front_dominated stop
 * there). The margin 1e-9 is far above the roundings of the knapsacks'
 * monotony (a few ulps). Measured on the Mixtral 8x22B 1,024-GPU
 * deadline search (issue 13, twenty-first round): 1,073,000 knapsacks,
 * 590M instructions in the set screens, before it. */
static int curve_no(const struct set_curve *sc, double p, double u1, double u0, double want)
{
	return !sc->plain && want < HUGE_VAL && p * perf_fmax(u1, u0) < want * (1 - 1e-9);
}

static double curve_min_at(const struct set_curve *sc, double a, double b, double u1, double u0,
			   double want, int depth, long *evals)
{
	double v = perf_fmax(a * u1, b * u0);
	*evals -= 2;
	if (v >= want || depth <= 0 || *evals <= 0 || !(b > a * (1 + 1e-9)))
		return v;
	if (curve_no(sc, b, u1, u0, want))
		return v;   /* under want (v <= b max(u1, u0)) */
	double mid = sqrt(a * b), m1, m0;
	curve_usd_h2(sc, mid, &m1, &m0);
	double l = curve_min_at(sc, a, mid, m1, m0, want, depth - 1, evals);
	if (l < want && want < HUGE_VAL)
		return l;
	return perf_fmin(l, curve_min_at(sc, mid, b, u1, u0, want, depth - 1, evals));
}

static double curve_min(const struct set_curve *sc, double a, double b, double want, int depth,
			long *evals)
{
	double u1, u0;
	curve_usd_h2(sc, b, &u1, &u0);
	return curve_min_at(sc, a, b, u1, u0, want, depth, evals);
}

double search_curve_bound(int n, const double *a, const double *b, const double *usd_h,
			  const int *ub, double M, int min_total, double s_lo, double s_hi)
{
	struct set_curve sc;
	sc.n = n;
	sc.M = M;
	sc.min_total = min_total;
	sc.floor_usd_h = 0;
	sc.plain = 0;
	for (int i = 0; i < n; i++) {
		sc.A[i] = a[i];
		sc.B[i] = b[i];
		sc.usd_h[i] = usd_h[i];
		sc.ub[i] = ub[i];
	}
	long evals = CURVE_EVALS;
	return curve_min(&sc, s_lo, s_hi, HUGE_VAL, CURVE_DEPTH, &evals);
}

int search_curve_reaches(int n, const double *a, const double *b, const double *usd_h,
			 const int *ub, double M, int min_total, double s_lo, double s_hi,
			 double want, int plain, long *evals)
{
	struct set_curve sc;
	sc.n = n;
	sc.M = M;
	sc.min_total = min_total;
	sc.floor_usd_h = 0;
	sc.plain = plain;
	for (int i = 0; i < n; i++) {
		sc.A[i] = a[i];
		sc.B[i] = b[i];
		sc.usd_h[i] = usd_h[i];
		sc.ub[i] = ub[i];
	}
	*evals = CURVE_EVALS;
	double v = curve_min(&sc, s_lo, s_hi, want, CURVE_DEPTH, evals);
	*evals = CURVE_EVALS - *evals;
	return v >= want;
}

/* Does the kept Pareto front dominate every plan whose pipeline term is
 * s in [s_lo, s_hi] (time to train at least kt s, cost at least kt s
 * usd_h(s) / 3600)? The front's points sorted by time, each point's
 * cost the least up to it: between two points' times the plans' cost
 * bound must reach that cost. *evals: knapsacks left (curve_min). */
static int curve_front_dominated(const struct ctx *x, const struct set_curve *sc, double kt,
				 double s_lo, double s_hi, long *evals)
{
	int np = 0;
	for (const struct ctx *y = x; y; y = y->glob)
		np += y->n_front;
	if (!np)
		return 0;
	double (*pt)[2] = xmalloc((size_t)np * sizeof *pt);
	np = 0;
	for (const struct ctx *y = x; y; y = y->glob)
		for (int i = 0; i < y->n_front; i++) {
			/* insertion by time: fronts hold tens of points */
			double t = y->front[i].time_to_train_s, c = y->front[i].cost_to_train_usd;
			int j = np++;
			while (j > 0 && pt[j - 1][0] > t) {
				pt[j][0] = pt[j - 1][0];
				pt[j][1] = pt[j - 1][1];
				j--;
			}
			pt[j][0] = t;
			pt[j][1] = c;
		}
	int ok = pt[0][0] <= kt * s_lo;
	for (int j = 0; ok && j < np; j++) {
		if (j)
			pt[j][1] = fmin(pt[j][1], pt[j - 1][1]);
		double a = fmax(s_lo, pt[j][0] / kt);
		double b = j + 1 < np ? fmin(s_hi, pt[j + 1][0] / kt) : s_hi;
		if (b <= a && j + 1 < np)
			continue;
		double want = pt[j][1] * 3600 / kt;
		ok = curve_min(sc, a, fmax(a, b), want, CURVE_DEPTH, evals) >= want;
		if (b >= s_hi)
			break;
	}
	free(pt);
	return ok;
}

/* The least USD per hour of counts 1 <= n_i <= ub_i (sc) that run at
 * least rate_min micro-batches per second at the layouts' B, sum n_i /
 * B_i: the LP, filled greedily by USD per unit of rate (usd_h_i B_i)
 * after one replica of each; 0 for rate_min <= 0, HUGE_VAL when no
 * counts reach it. */
static double rate_floor(const struct set_curve *sc, const struct layout **Ls, double rate_min)
{
	int idx[HP_MAX_POOLS + 1];
	double usd = 0, need = rate_min;
	if (!(rate_min > 0))
		return 0;
	for (int i = 0; i < sc->n; i++) {
		usd += sc->usd_h[i];
		need -= 1 / Ls[i]->B;
		int j = i;
		while (j > 0 && sc->usd_h[idx[j - 1]] * Ls[idx[j - 1]]->B > sc->usd_h[i] * Ls[i]->B) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (int j = 0; j < sc->n && need > 0; j++) {
		int i = idx[j];
		double take = fmin(fmax(sc->ub[i] - 1, 0), need * Ls[i]->B);
		usd += take * sc->usd_h[i];
		need -= take / Ls[i]->B;
	}
	return need > 1e-9 * rate_min ? HUGE_VAL : usd;
}

/* The least USD per hour of any plan of the set: every plan runs at
 * least one replica of each layout, so pool p holds at least
 * sum_i gpus_ip of its GPUs, billed by the whole node:
 * ceil(sum_i gpus_ip / gpn_p) nodes at P_p each. Whatever the step, so
 * the knapsack with n_i >= 1 may be raised to it (curve_usd_h2). */
static double nodes_floor(const struct ctx *x, const struct layout **Ls, int n)
{
	double usd = 0;
	for (int p = 0; p < x->c->n_pools; p++) {
		const struct pool *pl = &x->c->pools[p];
		long gpus = 0;
		for (int i = 0; i < n; i++)
			gpus += Ls[i]->gpus[p];
		if (gpus > 0)
			usd += (double)((gpus + pl->gpus_per_node - 1) / pl->gpus_per_node) *
			       pl->usd_per_node_h;
	}
	return usd;
}

/* set_screened on the set's cost curve, for cost, deadline and budget:
 * its corner (every layout at full count for the time, the cheapest
 * layout's USD per micro-batch for the cost) is far from any plan of the
 * set, whose step also holds the pipeline fill and drain of the few
 * micro-batches each replica runs when many run. With s a plan's
 * pipeline term (curve_usd_h2), its time to train is at least kt s and
 * its cost kt s usd_h(s) / 3600; the set is skipped when no s in
 * [s_lo, s_hi] gives a plan that can enter the ranked list or be the
 * stock plan (as bounds_screened: the deadline's plans within it cost
 * more than the last ranked, the budget's plans within it take longer)
 * and the front dominates them all. s_hi bounds every plan's term (a
 * replica runs at most M micro-batches). The same 1e-6 margin as the
 * candidates' screen. Returns 1 to skip the set. */
int set_curve_screened(struct ctx *x, const struct gset *g, const struct layout **Ls,
			      int n)
{
	return set_curve_screened_below(x, g, Ls, n, 0, HUGE_VAL, 0);
}

int set_curve_screened_below(struct ctx *x, const struct gset *g, const struct layout **Ls, int n,
			     double s_min, double s_cap, double rate_min)
{
	const double margin = 1 - 1e-6;
	const struct search_opts *o = x->o;
	struct set_curve sc;
	double worst, stock, tok_step = (double)o->gbs * x->seq, s_hi = 0;
	if (!top_worst(x, &worst) || (!x->no_stock && !stock_best(x, &stock)))
		return 0;
	double thr = x->no_stock ? worst : fmax(worst, stock);
	sc.n = n;
	sc.plain = 0;
	sc.M = (double)(o->gbs / g->mbs);
	sc.min_total = (double)capmilp_ep_step(g->ep, g->cp);
	for (int i = 0; i < n; i++) {
		if (!Ls[i]->price_known)
			return 0;
		sc.A[i] = Ls[i]->A_lo;
		sc.B[i] = Ls[i]->B_lo;
		sc.usd_h[i] = Ls[i]->usd_h;
		sc.ub[i] = fit_count(x, Ls[i], x->cap);
		s_hi = fmax(s_hi, sc.A[i] + sc.B[i] * sc.M);
	}
	sc.floor_usd_h = fmax(rate_floor(&sc, Ls, rate_min), nodes_floor(x, Ls, n)) * margin;
	s_hi = fmin(s_hi, s_cap);
	double s_lo = fmax(curve_first_step(&sc, s_hi), s_min), kt = x->tokens / tok_step * margin;
	double top_hi = s_hi, want = HUGE_VAL;   /* plans with s <= top_hi cost want or more */
	switch (o->objective) {
	case OBJ_COST:
		want = thr / margin / 1e6 * tok_step * 3600 / margin;
		break;
	case OBJ_DEADLINE:
		top_hi = fmin(s_hi, o->deadline_s / margin / kt);
		want = thr / margin * 3600 / kt;
		break;
	case OBJ_BUDGET:
		top_hi = fmin(s_hi, thr / margin / kt);
		want = o->budget_usd / margin * 3600 / kt;
		break;
	default:
		return 0;
	}
	long evals = CURVE_EVALS;
	if (top_hi >= s_lo && !(curve_min(&sc, s_lo, top_hi, want, CURVE_DEPTH, &evals) > want))
		return 0;
	return curve_front_dominated(x, &sc, kt, s_lo, s_hi, &evals);
}

/* The batch split of groups gi (split_batch) and its pipeline term.
 * Returns -1 when there are fewer micro-batches than the replicas need. */
static int combo_split(struct ctx *x, const struct gset *g, struct group_in *gi, int k,
		       double *pipe)
{
	if (split_batch(gi, k, x->o->gbs / g->mbs) < 0) {
		x->res->stats.pruned++;
		return -1;
	}
	*pipe = 0;
	for (int i = 0; i < k; i++) {
		int m = gi[i].count - gi[i].n_lo > 0 ? gi[i].m : gi[i].m - gi[i].q;
		*pipe = perf_fmax(*pipe, gi[i].L->A_lo + gi[i].L->B_lo * m);
	}
	return 0;
}

/* Stages of a candidate plan held in try_combo's frame (16 bytes each):
 * a plan of more is allocated. */
#define COMBO_FRAME_STAGES 512

/* Free plan p's groups unless they are in try_combo's frame (framed). */
static void combo_plan_free(struct plan *p, int framed)
{
	if (!framed)
		plan_free(p);
}

/* Plan p's replica groups for groups gi (k of them): in rep_buf and
 * st_buf (try_combo's frame) when they fit there, returning 1; else in
 * one allocation and one a group (add_replica's), returning 0. Most
 * candidates end before they are kept (refused or screened): try_combo
 * copies a framed plan to the heap (plan_copy) once it is estimated,
 * before anything keeps it. The per-candidate allocations and frees were
 * 1.4% of the 70B search's instructions (issue 13, fifteenth round). */
static int combo_plan_groups(const struct ctx *x, const struct gset *g,
			     const struct group_in *gi, int k, struct plan *p,
			     struct replica *rep_buf, struct stage *st_buf)
{
	int n_rep = 0, n_st = 0;
	for (int i = 0; i < k; i++) {
		int groups = (gi[i].count - gi[i].n_lo > 0) + (gi[i].n_lo > 0);
		n_rep += groups;
		n_st += groups * gi[i].L->pp;
	}
	int framed = n_rep <= 2 * (HP_MAX_POOLS + 1) && n_st <= COMBO_FRAME_STAGES;
	p->replicas = framed ? rep_buf : xmalloc((size_t)n_rep * sizeof *p->replicas);
	n_st = 0;
	for (int i = 0; i < k; i++) {
		struct replica *r = p->replicas;
		int hi_n = gi[i].count - gi[i].n_lo, pp = gi[i].L->pp;
		if (hi_n > 0) {
			replica_fill_in(&r[p->n_replicas++], gi[i].L, hi_n, gi[i].m, g->mbs,
					x->o->gbs, framed ? st_buf + n_st : NULL);
			n_st += pp;
		}
		if (gi[i].n_lo > 0) {
			replica_fill_in(&r[p->n_replicas++], gi[i].L, gi[i].n_lo,
					gi[i].m - gi[i].q, g->mbs, x->o->gbs,
					framed ? st_buf + n_st : NULL);
			n_st += pp;
		}
	}
	return framed;
}

/* Score one combination of layouts and counts: build the plan, check it
 * (validity, --framework), estimate it and keep it. Returns 0 when it was
 * scored (time_s/cost_usd, when not NULL, get its time and cost to train;
 * cost HUGE_VAL when unpriced), 1 when screened out (only when screen), -1 when invalid or
 * it does not fit. */
int try_combo(struct ctx *x, const struct gset *g, const struct layout **Ls,
		     const int *counts, int n, int screen, double *time_s, double *cost_usd)
{
	struct group_in gi[HP_MAX_POOLS + 1];
	int used[HP_MAX_POOLS];
	double pipe;
	int k = combo_groups(x, g, Ls, counts, n, gi, used, &pipe);
	if (k < 0)
		return -1;
	struct combo_price pr = { 0, 0 };
	if (screen)
		combo_price_of(x, used, &pr);
	if (screen && combo_screened(x, &pr, pipe))
		return 1;
	if (combo_split(x, g, gi, k, &pipe) < 0)
		return -1;
	if (screen && combo_screened(x, &pr, pipe))
		return 1;
	/* more GPUs of a pool than it has: plan_validate would refuse the
	 * plan (with a message, 11,000 instructions each, for the 48,000
	 * MILP neighbours of a Mixtral 8x22B budget search that overrun);
	 * refused here before the plan is built, counted as it counts them */
	for (int p = 0; p < x->c->n_pools; p++)
		if (used[p] > x->cap[p]) {
			x->res->stats.pruned++;
			return -1;
		}
	if (screen && dp_prescreened(x, g, Ls, n, gi, k, &pr, pipe))
		return 1;
	struct search_plan sp;
	memset(&sp, 0, sizeof sp);
	plan_globals(&sp.plan, x, g);
	struct replica rep_buf[2 * (HP_MAX_POOLS + 1)];
	struct stage st_buf[COMBO_FRAME_STAGES];
	int framed = combo_plan_groups(x, g, gi, k, &sp.plan, rep_buf, st_buf);
	/* an empty error, not a zeroed one: nothing reads past the
	 * terminator (as search.c's probes) */
	struct hp_err err;
	err.code = 0;
	err.msg[0] = '\0';
	if (plan_validate(&sp.plan, x->c, x->m, "planner", &err) < 0) {
		dp_memo_built(x, g, Ls, n, 0);
		combo_plan_free(&sp.plan, framed);
		x->res->stats.pruned++;
		return -1;
	}
	/* --framework: only plans it runs; else the plan names the framework
	 * that runs it (Megatron-Core first, whose row FW_ANY estimates with,
	 * so the numbers do not move), or stays FW_ANY when none does */
	unsigned fw = runs_on_mask(&sp.plan, x->c, NULL, 0);
	x->res->stats.fw_checked += x->o->framework != FW_ANY;
	if (x->o->framework != FW_ANY && !(fw & (1u << x->o->framework))) {
		/* the first refusal's reason, for the no-plan message */
		if (!x->res->stats.fw_first_why[0])
			runs_on_why_row(&sp.plan, x->c, x->o->framework,
					x->res->stats.fw_first_why,
					sizeof x->res->stats.fw_first_why);
		dp_memo_built(x, g, Ls, n, 0);
		combo_plan_free(&sp.plan, framed);
		x->res->stats.pruned++;
		x->res->stats.fw_denied++;
		return -1;
	}
	/* under "any", a plan that no stock framework runs for reasons of
	 * its own (not the heterogeneity a hetplan launch splits into
	 * pieces) is offered by none: dropped, as --framework's refusals */
	if (x->o->framework == FW_ANY && !(fw & RUNS_ON_STOCK) &&
	    !runs_on_runnable(&sp.plan, x->c)) {
		dp_memo_built(x, g, Ls, n, 0);
		combo_plan_free(&sp.plan, framed);
		x->res->stats.pruned++;
		x->res->stats.any_denied++;
		return -1;
	}
	if (x->o->framework == FW_ANY)
		sp.plan.framework = runs_on_pick(fw);
	dp_memo_built(x, g, Ls, n, sp.plan.framework == FW_ANY);
	if (screen && dp_screened(x, g, Ls, n, &sp.plan, gi, k, &pr, pipe)) {
		combo_plan_free(&sp.plan, framed);
		return 1;
	}
	int mf = mem_first(x, &sp.plan, &err);
	if (mf != 0) {
		combo_plan_free(&sp.plan, framed);
		x->res->stats.pruned += mf < 0;
		return -1;
	}
	if (estimate(x, &sp.plan, &sp.est, &err) < 0) {
		combo_plan_free(&sp.plan, framed);
		x->res->stats.pruned++;
		return -1;
	}
	x->res->stats.evaluated++;
	dp_memo_offer(x, g, Ls, n, &sp.plan, sp.est.bd.dp_comm);
	pipe_memo_offer(x, g, Ls, n, gi, k, &sp.plan, &sp.est);
	if (framed) {
		/* kept, offered as the nearest miss or freed whole (sp_free)
		 * from here: on the heap */
		struct plan heap;
		plan_copy(&heap, &sp.plan);
		sp.plan = heap;
	}
	if (!sp.est.fits) {
		/* fitted at the probe's DP degree, not at this one's */
		x->res->stats.pruned++;
		mem_miss_offer(x, &sp);
		return -1;
	}
	if (over_headroom(x, &sp.est)) {
		x->res->stats.pruned++;
		sp_free(&sp);
		return -1;
	}
	finish_plan_on(x, &sp, fw);
	if (time_s)
		*time_s = sp.time_to_train_s;
	if (cost_usd)
		*cost_usd = sp.est.price_known ? sp.cost_to_train_usd : HUGE_VAL;
	keep_plan(x, &sp);
	return 0;
}

