/* capmilp.c — exact branch and bound for the capacity MILP (capmilp.h).
 *
 * Depth-first over the replica counts in layout order (the deadline's
 * layouts reordered first: deadline_order), larger counts first
 * (deadline counts with a net price d_j >= 0: smaller first), the last
 * count scanned directly. A node is cut when it cannot beat the
 * incumbent by more than the tolerance or cannot be feasible:
 *
 * - every count left has an upper bound from the GPUs its pools have
 *   left once every other layout left keeps its one replica, and from
 *   the replicas left under max_total;
 * - deadline: the objective is at least the larger of (a) the whole-node
 *   price of the GPUs already taken plus one replica of every layout left,
 *   less lambda times the most rate reachable, and (b) the GPU-share
 *   price (continuous nodes) of what is taken, less lambda times its
 *   rate, plus the LP value of the counts left: least sum d_j n_j (d_j =
 *   GPU-share price - lambda r_j) with the rate row and, where it can
 *   bind, the replicas row (joint_lb: that LP's Lagrangian dual over
 *   finitely many multipliers, exact without whole-node segments; with
 *   them the free segments' breakpoints are not among the multipliers,
 *   so it is a valid bound, not always the LP's value; the rate asked is
 *   the row's floor R_lo, as feasibility has it). At a node, (b) also prices whole nodes:
 *   pools no count left uses at whole nodes, and a pool that one count
 *   left alone uses at whole nodes up to what it already holds, the idle
 *   GPUs of its last node taken free by that count (paid_free);
 * - budget: the rate is at most the LP value of the counts left with the
 *   budget row at GPU-share prices and the replicas row (joint_ub, the
 *   budget row's Lagrangian); the node is cut when the row is over the
 *   budget even at the whole-node price of one replica each and the most
 *   rate reachable;
 * - with the EP step (total_step > 1), both also on the lattice of sums:
 *   the counts left sum to one of first, first + step, ... (the whole
 *   sum a multiple of the step), and the LP of the counts left with the
 *   replicas row an equality at each such sum is a relaxation of the
 *   points with that sum; its least (deadline, step_lb) or greatest
 *   (budget, step_ub) value over the lattice bounds the subtree.
 *
 * Both bounds only relax (whole nodes cost at least GPU shares, and at
 * least the nodes already holding GPUs; counts left may take any value in
 * their boxes; any multiplier of a Lagrangian bounds the LP), so no cut
 * drops an optimum that beats the incumbent by more than the tolerance.
 *
 * Devices that save steps without changing the answer. A loop over one
 * count halves its way to the first value whose bound could beat the
 * incumbent (first_candidate: the LP bound is convex in that count), at
 * its start and again after a run of cut values. The caller's hint (the
 * last rung's counts), where feasible, is a seed from the start (below).
 * The deadline's last count is scanned straight from its parent's loop.
 * Both kinds also start with a greedy point's value as a seed
 * (greedy_seed: knapsack-order fills from each layout first; the
 * deadline's with the idle GPUs of taken nodes filled and a node's worth
 * taken out of one layout and filled again).
 * And
 * when the search is not done in CAPMILP_QUICK_STEPS it starts again
 * with a seed: a short best-first search near the LP's choices
 * (seed_dive) gives a feasible value, and subtrees that cannot come
 * within twice the tolerance of it are cut (cut_at). The seed is never
 * returned itself: the point the unseeded search returns lies in no
 * subtree the seed cuts, and the incumbents it would have met in those
 * subtrees are worse than the seed, so the search returns the same point
 * (replayed on the 411,039 programmes of one make bench run: wherever the
 * solver before the seed and the new bounds answered within its 4,096
 * steps and this one does too, the counts are the same). */
#include "capmilp.h"
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* "No replicas row" for joint_lb / joint_ub: more replicas than any box. */
#define CAPMILP_NO_CARD (1L << 40)

/* The last multiplier of joint_lb / joint_ub, as a multiple of (1 + the
 * largest breakpoint): any multiplier >= 0 gives a valid bound; this one
 * makes a shortfall on the rate (budget) row cost 10^4 times more than
 * any layout's own price per rate, so relaxed_child steers the seed's
 * search towards counts that can meet the rows. Where the rows can be
 * met the loops stop before it; where it counts, its terms are up to
 * 10^4 times the others, so double rounding (1e-16) stays near 1e-12 of
 * the objective, under the 1e-9 tolerance that first_candidate keeps as
 * its margin. A search setting. */
#define CAPMILP_FAR_MULT 1e4

/* How far from the LP's choice the seed's search looks at each level
 * (seed_search): 8 replicas either side span at least one node of 8
 * GPUs for layouts of up to 8 GPUs a pool. A search setting, not a model
 * constant: any value gives the same answers, only the steps differ. */
#define CAPMILP_DIVE_WINDOW 8

/* Steps the seed's search may take (seed_search); a search setting. */
#define CAPMILP_SEED_STEPS 512

/* Steps of a first search without a seed; a search setting like the one
 * above. Measured in steps on the programmes of make bench (2026-12),
 * first search of 0 / 128 / 512 steps: Mixtral 8x22B budget (96,036 of
 * them) 11.9M / 9.4M / 9.9M, a 1-in-20 sample of DeepSeek-V3's budget
 * 4.7M / 5.5M / 7.2M and deadline 3.4M / 3.6M / 4.0M: the seed's search
 * costs more than it saves on the many small programmes. */
#define CAPMILP_QUICK_STEPS 128

/* The fewest values of a count for which dfs halves its way to the first
 * one worth searching (first_candidate, about 3 log2 u steps) instead of
 * letting its loop cut them one by one. A search setting. */
#define CAPMILP_SKIP_MIN 32

/* Cut values of a count in a row after which dfs's loop halves its way
 * to the next one worth searching (first_candidate again, with the
 * incumbent it has now). A search setting. */
#define CAPMILP_RUN_SKIP 16

/* fmin and fmax for the operands here, which are never NaN (finite or
 * +-HUGE_VAL): the same values, inlined (the libm calls took about 8% of
 * the solver's time in a profile). */
static inline double min2(double a, double b)
{
	return a < b ? a : b;
}

static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

/* The index of the lowest set bit of x != 0. */
static inline int ctz32(unsigned x)
{
	return __builtin_ctz(x);
}

/* key and val into keys[0..n] and vals[0..n], the first n sorted by key
 * ascending; a key equal to one already there goes after it (insertion
 * sort: stable, so ties keep their arrival order). */
static inline void insert_sorted(double *keys, int *vals, int n, double key, int val)
{
	int k = n;
	while (k > 0 && keys[k - 1] > key) {
		keys[k] = keys[k - 1];
		vals[k] = vals[k - 1];
		k--;
	}
	keys[k] = key;
	vals[k] = val;
}

/* The multipliers of the Lagrangian bounds and the greedy orders at
 * each, fixed for one solve (joint_mults). */
#define CAPMILP_MAX_MULT (2 + CAPMILP_MAX_VARS * (CAPMILP_MAX_VARS + 1) / 2)
struct mtab {
	/* with card_binds: the multipliers at which the joint bounds' greedy
	 * order can change (joint_lb, joint_ub), 0 first, increasing */
	double mult[CAPMILP_MAX_MULT];
	int n_mult;
	/* the counts in the greedy order at each multiplier: deadline,
	 * increasing d_j - pi r_j; budget, decreasing r_j - nu d_j */
	int mult_order[CAPMILP_MAX_MULT][CAPMILP_MAX_VARS];
	/* mcoef[t][a]: the coefficient of count mult_order[t][a] at mult[t]
	 * (deadline d_j - pi r_j, budget r_j - nu d_j), computed once here
	 * with the expression the bounds used to evaluate at every call (the
	 * same doubles) */
	double mcoef[CAPMILP_MAX_MULT][CAPMILP_MAX_VARS];
	/* deadline: the free segments' coefficients -lambda r_j - pi r_j at
	 * mult[t] in increasing order, ties by count (a stable sort of the
	 * counts taken in index order; the bounds skip the counts without a
	 * free segment, which leaves the order a stable sort of those alone
	 * gives), fcoef[t][a] that of count forder[t][a] (free_order) */
	double fcoef[CAPMILP_MAX_MULT][CAPMILP_MAX_VARS];
	int forder[CAPMILP_MAX_MULT][CAPMILP_MAX_VARS];
	/* amask[t][i]: bit a set when count mult_order[t][a] is one of the
	 * counts i.. (a node's counts left; joint_mults), so that
	 * ordered_at and ub_least visit only those positions instead of
	 * testing every count and skipping the others */
	unsigned amask[CAPMILP_MAX_MULT][CAPMILP_MAX_VARS + 1];
	/* deadline: the free and paid segments of every count merged, as the
	 * merges of free_at (fmerge: by coefficient, then count, a count's
	 * free segment first) and joint_lb_eq (emerge: by coefficient, free
	 * segments first, then count) take them; an entry is the count j,
	 * plus SEG_PAID for its paid segment, with its coefficient in
	 * fmcoef / emcoef (merge_orders). Both lists are sorted by those
	 * keys, so the merges visit the segments present in this order, and
	 * the bounds walk it skipping the absent ones, one bit test each,
	 * where they advanced two lists and compared their heads. */
	unsigned char fmerge[CAPMILP_MAX_MULT][2 * CAPMILP_MAX_VARS];
	unsigned char emerge[CAPMILP_MAX_MULT][2 * CAPMILP_MAX_VARS];
	double fmcoef[CAPMILP_MAX_MULT][2 * CAPMILP_MAX_VARS];
	double emcoef[CAPMILP_MAX_MULT][2 * CAPMILP_MAX_VARS];
};

/* A paid segment's mark in fmerge / emerge, and the shift of the paid
 * counts' mask in the merges' mask of the segments present (act): bits
 * 0-31 the free segments, 32-63 the paid ones. */
#define SEG_PAID 32

/* amask, and the count masks of struct segs and struct eq_segs, hold a
 * bit per count in an unsigned */
_Static_assert(CAPMILP_MAX_VARS <= 32, "capmilp's count masks are 32 bits");

struct bb {
	const struct capmilp *m;
	int cur[CAPMILP_MAX_VARS], best[CAPMILP_MAX_VARS];
	int have;
	double best_val;      /* deadline: least objective; budget: most rate */
	double tol;           /* absolute, on the objective (deadline) or rate (budget) */
	double row_tol;       /* budget row, USD/s */
	double R_lo;          /* deadline: the rate row's floor, tolerance taken */
	int capg[HP_MAX_POOLS];
	int gmin[CAPMILP_MAX_VARS + 1][HP_MAX_POOLS];  /* sum_{j >= i} g_jq */
	double share[CAPMILP_MAX_VARS];                /* GPU-share price, USD/h */
	int order[CAPMILP_MAX_VARS];                   /* by d_j / r_j, increasing */
	int by_rate[CAPMILP_MAX_VARS];                 /* by r_j, decreasing */
	int card_binds;       /* can max_total bind (sum ub_i > max_total)? */
	int closed[CAPMILP_MAX_VARS + 1];              /* a pool no count i.. uses */
	int users[CAPMILP_MAX_VARS + 1][HP_MAX_POOLS]; /* counts i.. using pool q */
	int pool_of[CAPMILP_MAX_VARS];                 /* layout j's one pool, or -1 */
	/* the multipliers of the joint bounds and their orders (joint_mults),
	 * apart from the search's state so that neither a solve's clearing of
	 * that state nor the seed's copy of it moves them */
	const struct mtab *mt;
	double dcoef[CAPMILP_MAX_VARS];  /* d_j: net price (deadline, USD/h) or
					  * net row (budget, USD/s) of a replica */
	double seed;          /* a feasible point's value (seed_dive), if have_seed */
	int have_seed;
	double cut;           /* cut_at's value: set by cut_set whenever have,
			       * best_val, have_seed or seed change */
	long nodes, limit;    /* steps: nodes, bound evaluations, last-count values */
	long step;            /* the sum of the counts a multiple of this (>= 1) */
	/* step - 1 when step is a power of two, else -1 (step_mod); per pool,
	 * k where gpn = 2^k, else -1, and 2^-k (whole_nodes, per_gpu) */
	long step_mask;
	int gpn_shift[HP_MAX_POOLS];
	double gpn_inv[HP_MAX_POOLS];
	int gpn_pow2;         /* every pool's gpn a power of two */
	int gave_up;
	int done;             /* the incumbent reached m->stop (offer) */
	/* joint_lb_ordered's best multiplier at its last call, per first
	 * count left: where its next call starts (any start gives the same
	 * largest value; a pointer, so that the bounds, which take a const
	 * struct bb, may move it) */
	int *warm;
	int warm_store[2 * (CAPMILP_MAX_VARS + 1)];   /* ordered, then free */
	unsigned long solve_gen;   /* this solve's mark in the thread's argmin memo */
};

/* The divisions by a pool's GPUs per node and by the EP step, exact and
 * cheaper where the divisor is a power of two (8 GPUs a node, EP steps):
 * the same integers and doubles (x * 2^-k is x / 2^k, rounded alike),
 * without the divisions that took a third of last_count's cycles on
 * DeepSeek-V3's deadline programmes (perf, sixteenth round). */

/* ceil(g / gpn_q) for g >= 0: whole nodes of pool q holding g GPUs. */
static inline int whole_nodes(const struct bb *b, int q, int g)
{
	int k = b->gpn_shift[q], n = b->m->gpn[q];
	return k >= 0 ? (g + n - 1) >> k : (g + n - 1) / n;
}

/* x / gpn_q. */
static inline double per_gpu(const struct bb *b, int q, double x)
{
	return b->gpn_shift[q] >= 0 ? x * b->gpn_inv[q] : x / b->m->gpn[q];
}

/* x mod step, in [0, step) for any sign of x. */
static inline long step_mod(const struct bb *b, long x)
{
	return b->step_mask >= 0 ? x & b->step_mask : (x % b->step + b->step) % b->step;
}

/* (One test a call, not one a pool, where every pool's gpn is a power
 * of two: the planner's.) */
static inline double node_price(const struct bb *b, const int *G)
{
	const struct capmilp *m = b->m;
	double usd = 0;
	if (b->gpn_pow2)
		for (int q = 0; q < m->np; q++)
			usd += m->usd_node_h[q] *
			       (double)((G[q] + m->gpn[q] - 1) >> b->gpn_shift[q]);
	else
		for (int q = 0; q < m->np; q++)
			usd += m->usd_node_h[q] * (double)((G[q] + m->gpn[q] - 1) / m->gpn[q]);
	return usd;
}

static inline double share_price(const struct bb *b, const int *G)
{
	const struct capmilp *m = b->m;
	double usd = 0;
	if (b->gpn_pow2)
		for (int q = 0; q < m->np; q++)
			usd += m->usd_node_h[q] * G[q] * b->gpn_inv[q];
	else
		for (int q = 0; q < m->np; q++)
			usd += m->usd_node_h[q] * G[q] / m->gpn[q];
	return usd;
}

/* The deadline's knapsack bound over the counts i.. with boxes [1, u_j]:
 * least sum d_j n_j with sum r_j n_j >= need. */
static double knap_lb(const struct bb *b, int i, const int *u, double need)
{
	const struct capmilp *m = b->m;
	double val = 0, rate = 0;
	for (int j = i; j < m->n; j++) {
		double d = b->dcoef[j];
		int k = d < 0 ? u[j] : 1;
		val += d * k;
		rate += m->r[j] * k;
	}
	for (int t = 0; t < m->n && rate < need; t++) {
		int j = b->order[t];
		double d = b->dcoef[j];
		if (j < i || d < 0 || u[j] <= 1)
			continue;
		double add = min2((double)(u[j] - 1), (need - rate) / m->r[j]);
		val += d * add;
		rate += m->r[j] * add;
	}
	return val;
}

/* The budget's rate bound over the counts i.. with boxes [1, u_j]: most
 * sum r_j n_j with sum d_j n_j <= slack (d_j = GPU-share price per second
 * - lambda r_j), a fractional knapsack. Returns -1 when even the least
 * sum d_j n_j is over slack. */
static double knap_ub(const struct bb *b, int i, const int *u, double slack)
{
	const struct capmilp *m = b->m;
	double rate = 0;
	for (int j = i; j < m->n; j++) {
		double d = b->dcoef[j];
		int k = d <= 0 ? u[j] : 1;
		slack -= d * k;
		rate += m->r[j] * k;
	}
	if (slack < 0)
		return -1;
	for (int t = 0; t < m->n && slack > 0; t++) {
		int j = b->order[t];
		double d = b->dcoef[j];
		if (j < i || d <= 0 || u[j] <= 1)
			continue;
		double add = min2((double)(u[j] - 1), slack / d);
		rate += m->r[j] * add;
		slack -= d * add;
	}
	return rate;
}

/* The deadline's bound over the counts i.. with boxes [1, u_j] when the
 * replicas row binds: the least sum d_j n_j with sum r_j n_j >= need and
 * sum n_j <= left, as an LP. Its value is the largest of the Lagrangian
 * functions L(pi) = pi need + min { sum (d_j - pi r_j) n_j : sum n_j <=
 * left, boxes }, pi >= 0 (LP duality: the rate row moved into the
 * objective); each is a valid lower bound, the inner minimum is greedy
 * (the most negative coefficients first, up to left replicas), and L is
 * concave and linear between the multipliers at which that order changes
 * (b->mt->mult), so the largest of those is the LP's value. */
/* joint_lb's Lagrangian without idle GPUs, in the order of each
 * multiplier (b->mt->mult_order); need and left already net of the one
 * replica of each count i... */
/* One multiplier of joint_lb_ordered: L(mult[t]) and, in *got, the rate
 * its inner minimum takes (need - *got is a supergradient there). */
static double ordered_at(const struct bb *b, int t, int i, const int *u, double need, long left,
			 double *got)
{
	const struct capmilp *m = b->m;
	double pi = b->mt->mult[t], L = pi * need, g = 0, room = (double)left;
	const int *ord = b->mt->mult_order[t];
	const double *cs = b->mt->mcoef[t];
	/* the counts i.. in the order at mult[t]; cs is nondecreasing along
	 * it (sorted by the same expression), so the first count left with
	 * cj >= 0 ends the fill where the first of all counts with cj >= 0
	 * did when the others were tested and skipped */
	for (unsigned am = b->mt->amask[t][i]; am && room > 0; am &= am - 1) {
		int a = ctz32(am), j = ord[a];
		double cj = cs[a];
		if (cj >= 0)
			break;
		double y = min2((double)(u[j] - 1), room);
		L += cj * y;
		g += m->r[j] * y;
		room -= y;
	}
	*got = g;
	return L;
}

/* The largest L over b->mt->mult, L concave in the multiplier: from the
 * multiplier that was best at the last call for the counts i.. (*warm),
 * up while the supergradient is positive, else down until it is (a
 * positive supergradient at t: every smaller multiplier gives less). */
static double joint_lb_ordered(const struct bb *b, int i, const int *u, double need, long left)
{
	int *warm = &b->warm[i], t = HP_MIN(*warm, b->mt->n_mult - 1), arg = t;
	double got, best = ordered_at(b, t, i, u, need, left, &got);
	int dir = need - got > 0 ? 1 : -1;
	for (t += dir; t >= 0 && t < b->mt->n_mult; t += dir) {
		double L = ordered_at(b, t, i, u, need, left, &got);
		if (L > best) {
			best = L;
			arg = t;
		}
		if (dir > 0 ? need - got <= 0 : need - got > 0)
			break;
	}
	*warm = arg;
	return best;
}

/* The segments of joint_lb's counts: up to two a count, its first
 * flen[j] extra replicas, which take GPUs already paid for (no pool
 * price), then plen[j] more; nf counts have a free one. */
struct segs {
	double flen[CAPMILP_MAX_VARS], plen[CAPMILP_MAX_VARS];
	int nf;
	/* bit j: count j is one of the counts i.. and its paid (pm) or free
	 * (fm) segment is not empty; the merges' one test for both */
	unsigned pm, fm;
};

/* One multiplier of joint_lb with free segments: L(mult[t]) and, in
 * *got, the rate its inner minimum takes. */
static double free_at(const struct bb *b, int t, double need, long left,
		      const struct segs *sg, double *got)
{
	const struct capmilp *m = b->m;
	/* the free segments (b->mt->forder: by coefficient at mult[t], ties by
	 * count) merged with the paid ones, also in that order at mult[t]
	 * (b->mt->mult_order); on equal coefficients the lower count first, a
	 * count's free segment before its paid one: the order of a stable
	 * sort of the segments by coefficient, b->mt->fmerge[t] */
	double L = b->mt->mult[t] * need, g = 0, room = (double)left;
	const unsigned char *mo = b->mt->fmerge[t];
	const double *mc = b->mt->fmcoef[t];
	uint64_t act = sg->fm | (uint64_t)sg->pm << SEG_PAID;
	for (int a = 0, na = 2 * m->n; a < na && room > 0; a++) {
		int c = mo[a];
		if (!(act >> c & 1))
			continue;
		double cj = mc[a];
		if (!(cj < 0))
			break;
		int j = c & (SEG_PAID - 1);
		double y = min2(c & SEG_PAID ? sg->plen[j] : sg->flen[j], room);
		L += cj * y;
		g += m->r[j] * y;
		room -= y;
	}
	*got = g;
	return L;
}

static double joint_lb(const struct bb *b, int i, const int *u, double need, long left,
		       const double *fr)
{
	const struct capmilp *m = b->m;
	struct segs sg;
	double val0 = 0;
	if (!fr) {
		/* no free segments: the same sums, without the segments */
		for (int j = i; j < m->n; j++) {
			val0 += b->dcoef[j];
			need -= m->r[j];
			left--;
		}
		return val0 + joint_lb_ordered(b, i, u, need, left);
	}
	sg.nf = 0;
	sg.pm = sg.fm = 0;
	for (int j = i; j < m->n; j++) {
		double e = b->dcoef[j], U = u[j] - 1;
		val0 += e;
		need -= m->r[j];
		left--;
		double f = min2(fr[j], U);
		sg.flen[j] = f;
		sg.plen[j] = U - f;
		sg.nf += f > 0;
		sg.pm |= (unsigned)(sg.plen[j] > 0) << j;
		sg.fm |= (unsigned)(f > 0) << j;
	}
	if (!sg.nf)
		return val0 + joint_lb_ordered(b, i, u, need, left);
	/* as joint_lb_ordered: from the last call's best multiplier, along
	 * the supergradient (L is concave in the multiplier) */
	int *warm = &b->warm[CAPMILP_MAX_VARS + 1 + i], t = HP_MIN(*warm, b->mt->n_mult - 1), arg = t;
	double got, best = free_at(b, t, need, left, &sg, &got);
	int dir = need - got > 0 ? 1 : -1;
	for (t += dir; t >= 0 && t < b->mt->n_mult; t += dir) {
		double L = free_at(b, t, need, left, &sg, &got);
		if (L > best) {
			best = L;
			arg = t;
		}
		if (dir > 0 ? need - got <= 0 : need - got > 0)
			break;
	}
	*warm = arg;
	return val0 + best;
}

/* joint_lb with the replicas row an equality: exactly S replicas among
 * the counts i.. (their one each included), the same segments and
 * multipliers. The inner minimum takes the S - (n - i) extra replicas
 * cheapest first whatever their sign; HUGE_VAL when the boxes cannot
 * hold S. Any multiplier gives a valid bound on the programme with that
 * sum; the largest over b->mt->mult is taken. */
/* What joint_lb_eq reads of the counts i.. whatever the sum S: the one
 * replica of each taken (val0, need net of its rate, fixed: n - i
 * replicas), the segments (flen, plen) and the most extra replicas the
 * boxes hold (cap). Computed once for the lattice walk of one node. */
struct eq_segs {
	double val0, need, cap, flen[CAPMILP_MAX_VARS], plen[CAPMILP_MAX_VARS];
	long fixed;
	unsigned pm, fm;   /* as struct segs */
};

static void eq_segs_of(const struct bb *b, int i, const int *u, double need, const double *fr,
		       struct eq_segs *e)
{
	const struct capmilp *m = b->m;
	e->val0 = 0;
	e->cap = 0;
	e->fixed = 0;
	e->pm = e->fm = 0;
	for (int j = i; j < m->n; j++) {
		double U = u[j] - 1, f = fr ? min2(fr[j], U) : 0;
		e->val0 += b->dcoef[j];
		need -= m->r[j];
		e->fixed++;
		e->flen[j] = f;
		e->plen[j] = U - f;
		e->cap += U;
		e->pm |= (unsigned)(e->plen[j] > 0) << j;
		e->fm |= (unsigned)(f > 0) << j;
	}
	e->need = need;
}

static double joint_lb_eq(const struct bb *b, const struct eq_segs *e, long S)
{
	const struct capmilp *m = b->m;
	const double *flen = e->flen, *plen = e->plen;
	double need = e->need;
	long room0 = S - e->fixed;
	if (room0 < 0 || (double)room0 > e->cap)
		return HUGE_VAL;
	double best = -HUGE_VAL;
	uint64_t act = e->fm | (uint64_t)e->pm << SEG_PAID;
	for (int t = 0; t < b->mt->n_mult; t++) {
		double L = b->mt->mult[t] * need, got = 0, room = (double)room0;
		/* the free and paid segments merged, on equal coefficients the
		 * free one first (b->mt->emerge); the walk ends with the
		 * segments (rounding: cap held room0) */
		const unsigned char *mo = b->mt->emerge[t];
		const double *mc = b->mt->emcoef[t];
		for (int a = 0, na = 2 * m->n; a < na && room > 0; a++) {
			int c = mo[a];
			if (!(act >> c & 1))
				continue;
			int j = c & (SEG_PAID - 1);
			double y = min2(c & SEG_PAID ? plen[j] : flen[j], room);
			L += mc[a] * y;
			got += m->r[j] * y;
			room -= y;
		}
		best = max2(best, L);
		if (need - got <= 0)
			break;   /* a supergradient <= 0: no larger pi does better */
	}
	return e->val0 + best;
}

/* The lattice of sums for the counts i.. under the EP step (step_lb,
 * step_ub): the counts i.. sum to first, first + step, ... (at most
 * *z steps on), the whole sum a multiple of b->step, at least one each,
 * at most their boxes and the replicas left. Returns 0 when there is no
 * such sum. */
static int step_lattice(const struct bb *b, int i, const int *u, long cnt, long *first, long *z)
{
	const struct capmilp *m = b->m;
	long lo = m->n - i, hi = 0, s = b->step;
	for (int j = i; j < m->n; j++)
		hi += u[j];
	if (b->card_binds)
		hi = HP_MIN(hi, m->max_total - cnt);
	long last = hi - step_mod(b, cnt + hi);
	*first = lo + step_mod(b, -(cnt + lo));
	if (*first > last)
		return 0;
	*z = (last - *first) / s;
	return 1;
}

/* The deadline's bound over the counts i.. with the EP step: the sum of
 * all counts is a multiple of b->step, so the counts i.. sum to one of
 * S = first, first + step, ..., last (at least one each, at most their
 * boxes and the replicas left). The least of joint_lb_eq over those S
 * bounds every point of the subtree; joint_lb_eq is convex in S (each
 * multiplier's inner minimum is a sum of sorted coefficients, convex in
 * S, and a maximum of convex functions is convex), so its least lattice
 * value is found by halving on the sign of its differences. HUGE_VAL
 * when no S is possible. */
static double step_lb(struct bb *b, int i, const int *u, double need, long cnt, const double *fr)
{
	const struct capmilp *m = b->m;
	long first, z, s = b->step;
	if (!step_lattice(b, i, u, cnt, &first, &z))
		return HUGE_VAL;
	/* a first guess at the least point: the replicas of the knapsack's
	 * fill by price per rate (knap_lb's order), one of each first */
	double want = need, sum = (double)(m->n - i);
	for (int j = i; j < m->n; j++)
		want -= m->r[j];
	for (int t = 0; t < m->n && want > 0; t++) {
		int j = b->order[t];
		if (j < i)
			continue;
		double add = min2((double)(u[j] - 1), want / m->r[j]);
		sum += add;
		want -= add * m->r[j];
	}
	long k = (long)((sum - (double)first) / (double)s + 0.5);
	k = HP_MAX(0, HP_MIN(z, k));
	/* from there down the slope, one lattice point at a time: the first
	 * point not below its neighbour on that side is the least (convex) */
	b->nodes++;
	struct eq_segs e;
	eq_segs_of(b, i, u, need, fr, &e);
	double fk = joint_lb_eq(b, &e, first + k * s);
	for (int dir = 1; dir >= -1; dir -= 2) {
		int moved = 0;
		while (k + dir >= 0 && k + dir <= z) {
			b->nodes++;
			double f = joint_lb_eq(b, &e, first + (k + dir) * s);
			if (!(f < fk))
				break;
			k += dir;
			fk = f;
			moved = 1;
		}
		if (moved)
			break;
	}
	return fk;
}

/* The least over the multipliers nu in b->mt->mult of nu slack + the most
 * sum (r_j - nu d_j) y_j with y_j in [0, u_j - 1] for the counts i..
 * and sum y_j <= room, taken by decreasing r_j - nu d_j (b->mt->mult_order):
 * those with a nonpositive coefficient left out when positive_only
 * (joint_ub's inequality), else taken as they come (joint_ub_eq's
 * equality fills room whatever the sign). */
static double ub_least(const struct bb *b, int i, const int *u, double slack, long room0,
		       int positive_only)
{
	double best = HUGE_VAL;
	for (int t = 0; t < b->mt->n_mult; t++) {
		double nu = b->mt->mult[t], U = nu * slack, used = 0, room = (double)room0;
		/* the counts i.. only (amask; mcoef is nonincreasing along the
		 * order, so the first of them with pj <= 0 ends the fill where
		 * the first of all counts did) */
		for (unsigned am = b->mt->amask[t][i]; am && room > 0; am &= am - 1) {
			int a = ctz32(am), j = b->mt->mult_order[t][a];
			double pj = b->mt->mcoef[t][a];
			if (positive_only && pj <= 0)
				break;
			double y = min2((double)(u[j] - 1), room);
			U += pj * y;
			used += b->dcoef[j] * y;
			room -= y;
		}
		best = min2(best, U);
		if (slack - used >= 0)
			break;   /* a subgradient >= 0: no larger nu does better */
	}
	return best;
}

/* The budget's rate bound over the counts i.. with boxes [1, u_j] when
 * the replicas row binds: the most sum r_j n_j with sum d_j n_j <= slack
 * and sum n_j <= left, as an LP, through the budget row's Lagrangian
 * U(nu) = nu slack + max { sum (r_j - nu d_j) n_j : sum n_j <= left,
 * boxes } (nu >= 0, each an upper bound; convex, linear between the
 * multipliers in b->mt->mult), as in joint_lb. */
static double joint_ub(const struct bb *b, int i, const int *u, double slack, long left)
{
	const struct capmilp *m = b->m;
	double rate0 = 0;
	for (int j = i; j < m->n; j++) {
		rate0 += m->r[j];
		slack -= b->dcoef[j];
		left--;
	}
	return rate0 + ub_least(b, i, u, slack, left, 1);
}

/* joint_ub with the replicas row an equality: exactly S replicas among
 * the counts i.. (their one each included), the S - (n - i) extra ones
 * taken by decreasing r_j - nu d_j whatever its sign. -HUGE_VAL when
 * the boxes cannot hold S. Any nu >= 0 gives a valid bound on the
 * programme with that sum; the least over b->mt->mult is taken. */
static double joint_ub_eq(const struct bb *b, int i, const int *u, double slack, long S)
{
	const struct capmilp *m = b->m;
	double rate0 = 0, cap = 0;
	long room0 = S;
	for (int j = i; j < m->n; j++) {
		rate0 += m->r[j];
		slack -= b->dcoef[j];
		room0--;
		cap += u[j] - 1;
	}
	if (room0 < 0 || (double)room0 > cap)
		return -HUGE_VAL;
	return rate0 + ub_least(b, i, u, slack, room0, 0);
}

/* The budget's bound over the counts i.. with the EP step: the greatest
 * of joint_ub_eq over the lattice of sums (step_lattice), concave in
 * the sum as joint_lb_eq is convex (step_lb), found from the most the
 * replicas left allow, down its slope. -HUGE_VAL when no sum is
 * possible. */
static double step_ub(struct bb *b, int i, const int *u, double slack, long cnt)
{
	long first, z;
	if (!step_lattice(b, i, u, cnt, &first, &z))
		return -HUGE_VAL;
	long k = z, s = b->step;
	b->nodes++;
	double fk = joint_ub_eq(b, i, u, slack, first + k * s);
	while (k > 0) {
		b->nodes++;
		double f = joint_ub_eq(b, i, u, slack, first + (k - 1) * s);
		if (!(f > fk))
			break;
		k--;
		fk = f;
	}
	return fk;
}

static void cut_set(struct bb *b);

/* A new incumbent. With m->have_stop, once it reaches m->stop no later
 * point can replace it (capmilp.h): the search stops (done). */
static void offer(struct bb *b, double val)
{
	const struct capmilp *m = b->m;
	b->have = 1;
	b->best_val = val;
	cut_set(b);
	memcpy(b->best, b->cur, (size_t)m->n * sizeof *b->cur);
	if (m->have_stop && (m->kind == CAPMILP_DEADLINE ? val <= m->stop : val >= m->stop))
		b->done = 1;
}

/* The most rate of the counts i.. in boxes [1, u_j] with at most left
 * replicas among them (max_total's row): the fastest layouts first. */
static double card_ub(const struct bb *b, int i, const int *u, long left)
{
	const struct capmilp *m = b->m;
	double rate = 0;
	if (!b->card_binds) {
		for (int j = i; j < m->n; j++)
			rate += m->r[j] * u[j];
		return rate;
	}
	left -= m->n - i;
	for (int j = i; j < m->n; j++)
		rate += m->r[j];
	for (int t = 0; t < m->n && left > 0; t++) {
		int j = b->by_rate[t];
		if (j < i)
			continue;
		long add = HP_MIN((long)u[j] - 1, left);
		rate += m->r[j] * (double)add;
		left -= add;
	}
	return rate;
}

/* The price of G with the pools that counts i.. still use at GPU shares
 * (they may grow) and the others at whole nodes (they are final). */
static double mixed_price(const struct bb *b, int i, const int *G)
{
	const struct capmilp *m = b->m;
	double usd = 0;
	for (int q = 0; q < m->np; q++)
		usd += b->gmin[i][q] ? per_gpu(b, q, m->usd_node_h[q] * G[q])
				     : m->usd_node_h[q] * (double)whole_nodes(b, q, G[q]);
	return usd;
}

/* Whole nodes of the pools that one count i.. alone still uses, that
 * count on that pool alone: its one replica and the GPUs taken (G) fill
 * the pool's nodes up to a whole node, and those GPUs are paid for
 * whatever that count becomes. Returns the price of that idle part of
 * the last node at GPU shares (USD/h, added to mixed_price's), and in
 * fr[j] the extra replicas of count j that fit in it (fractional, 0 for
 * the other counts): joint_lb takes them at no pool price. */
static double paid_free(const struct bb *b, int i, const int *G, double *fr)
{
	const struct capmilp *m = b->m;
	double usd = 0;
	for (int j = i; j < m->n; j++) {
		int q = b->pool_of[j];
		fr[j] = 0;
		if (q < 0 || b->users[i][q] != 1)
			continue;
		int gmin = G[q] + m->g[j][q];
		int idle = whole_nodes(b, q, gmin) * m->gpn[q] - gmin;
		usd += per_gpu(b, q, m->usd_node_h[q] * idle);
		fr[j] = (double)idle / m->g[j][q];
	}
	return usd;
}

/* Bounds on the subtree where counts 0..i-1 are fixed (taking G GPUs per
 * pool, rate and cnt replicas), counts i.. in the boxes [1, u_j]:
 * deadline, a lower bound on the objective (HUGE_VAL when the rate row
 * cannot be met); budget, an upper bound on the rate (-HUGE_VAL when the
 * budget row cannot be met). Both come from the fractional knapsacks
 * above. With whole = 0 every pool is priced at GPU shares: then, as
 * functions of one count fixed in a loop, with the boxes of the later
 * counts held, the first is convex and the second concave (an LP's value
 * in its right-hand side), which lets that loop stop early; whole = 1
 * prices the pools no count left uses at whole nodes (tighter). */
/* sub_bound with what its node already has: price, the price of G
 * (mixed_price with whole, else share_price), and card, card_ub of the
 * counts i.. with the replicas left. The deadline with whole also gives,
 * where fr and *paid are not NULL, the free replicas (paid_free) and the
 * price with the idle part of the last nodes added, when the rate row
 * can be met (else the bound is infinite and they are not set). */
static double sub_bound_at(const struct bb *b, int i, const int *u, const int *G, double rate,
			   long cnt, int whole, double price, double card, double *fr, double *paid)
{
	const struct capmilp *m = b->m;
	double most = rate + card;
	if (m->kind == CAPMILP_DEADLINE) {
		if (most < b->R_lo)
			return HUGE_VAL;
		if (whole) {
			double own[CAPMILP_MAX_VARS];
			if (!fr)
				fr = own;
			price += paid_free(b, i, G, fr);
			if (paid)
				*paid = price;
			return price - m->lambda * rate +
			       joint_lb(b, i, u, b->R_lo - rate,
					b->card_binds ? m->max_total - cnt : CAPMILP_NO_CARD, fr);
		}
		double rest = b->card_binds ? joint_lb(b, i, u, b->R_lo - rate, m->max_total - cnt, NULL)
					    : knap_lb(b, i, u, b->R_lo - rate);
		return price - m->lambda * rate + rest;
	}
	double slack = b->row_tol - (price / 3600 - m->lambda * rate);
	double more = knap_ub(b, i, u, slack);
	if (more < 0)
		return -HUGE_VAL;
	if (b->card_binds)
		more = min2(more, joint_ub(b, i, u, slack, m->max_total - cnt));
	return rate + min2(more, most - rate);
}

static double sub_bound(const struct bb *b, int i, const int *u, const int *G, double rate,
			long cnt, int whole)
{
	const struct capmilp *m = b->m;
	return sub_bound_at(b, i, u, G, rate, cnt, whole,
			    whole ? mixed_price(b, i, G) : share_price(b, G),
			    card_ub(b, i, u, m->max_total - cnt), NULL, NULL);
}

/* The bound a subtree must beat to be searched: deadline, a subtree is
 * searched when its lower bound is under it; budget, when its upper bound
 * is over it. The incumbent must be beaten by more than the tolerance;
 * the seed (seed_dive's point, never returned itself) only cuts subtrees
 * that cannot come within twice the tolerance of it, so every subtree
 * that holds the point this search returns without a seed is still
 * searched (that point is within the tolerance of the optimum, which is
 * at least as good as the seed), and the answer is the same. Infinite
 * with neither. */
static void cut_set(struct bb *b)
{
	if (b->m->kind == CAPMILP_DEADLINE)
		b->cut = min2(b->have ? b->best_val - b->tol : HUGE_VAL,
			      b->have_seed ? b->seed + 2 * b->tol : HUGE_VAL);
	else
		b->cut = max2(b->have ? b->best_val + b->tol : -HUGE_VAL,
			      b->have_seed ? b->seed - 2 * b->tol : -HUGE_VAL);
}

/* The bound cut_set last took (read at every bound test: kept, not
 * recomputed). */
static inline double cut_at(const struct bb *b)
{
	return b->cut;
}

/* Can a subtree of bound lb (sub_bound) hold a better point than the
 * incumbent? */
static int may_improve(const struct bb *b, double lb)
{
	double t = cut_at(b);
	return b->m->kind == CAPMILP_DEADLINE ? lb < t : lb > t;
}

/* The last count, every other fixed (cnt replicas among them): scanned
 * from the end where the objective's GPU-share floor is lowest, stopping
 * once that floor (linear in v) cannot beat the incumbent; only the
 * values that make the sum of the counts a multiple of b->step. */
static void last_count(struct bb *b, int i, int u, const int *G, double rate, long cnt)
{
	const struct capmilp *m = b->m;
	int G2[HP_MAX_POOLS];
	/* the sum of the counts a multiple of b->step: v = want (mod step) */
	long want = step_mod(b, -cnt);
	if (m->kind == CAPMILP_BUDGET) {
		for (int v = u - (int)step_mod(b, u - want); v >= 1;
		     v -= (int)b->step) {
			double rt = rate + v * m->r[i];
			b->nodes++;
			if (b->have && rt <= b->best_val + b->tol)
				return;
			for (int q = 0; q < m->np; q++)
				G2[q] = G[q] + v * m->g[i][q];
			b->cur[i] = v;
			if (node_price(b, G2) / 3600 - m->lambda * rt <= b->row_tol) {
				offer(b, rt);
				return;   /* the largest feasible count here */
			}
		}
		return;
	}
	double d = b->dcoef[i];
	int lo = 1;
	if (rate + m->r[i] < b->R_lo)
		lo = (int)HP_MIN((double)u + 1, ceil((b->R_lo - rate) / m->r[i]));
	while (lo > 1 && rate + (lo - 1) * m->r[i] >= b->R_lo)
		lo--;   /* ceil's rounding */
	while (lo <= u && rate + lo * m->r[i] < b->R_lo)
		lo++;
	int up = d >= 0;
	int first = lo + (int)step_mod(b, want - lo);
	int last = u - (int)step_mod(b, u - want);
	for (int k = 0; k <= last - first; k += (int)b->step) {
		int v = up ? first + k : last - k;
		b->nodes++;
		for (int q = 0; q < m->np; q++)
			G2[q] = G[q] + v * m->g[i][q];
		double rt = rate + v * m->r[i];
		if (b->have && share_price(b, G2) - m->lambda * rt >= b->best_val - b->tol)
			return;
		b->cur[i] = v;
		double val = node_price(b, G2) - m->lambda * rt;
		if (!b->have || val < b->best_val - b->tol)
			offer(b, val);
		if (b->done)
			return;
	}
}

/* A finite relaxation of the child bound at count v of layout i, the
 * later counts' boxes u held, as a value to minimise: deadline, the
 * GPU-share price less lambda times the rate plus joint_lb of the later
 * counts; budget, minus (the rate plus joint_ub). Each joint bound is an
 * extremum over the fixed multipliers b->mt->mult of functions affine in the
 * rate (or budget) row's right-hand side and convex (concave) in the
 * replicas left, which are affine in v: so this is convex in v and
 * finite even where the rows cannot be met. It is never above the child
 * bound that dfs's loop cuts on (sub_bound, whole = 0: the same LP value
 * where the rows can be met, infinite where not), nor above minus it. */
static double relaxed_child(const struct bb *b, int i, const int *u, const int *G, double rate,
			    long cnt, int v)
{
	const struct capmilp *m = b->m;
	int G2[HP_MAX_POOLS];
	for (int q = 0; q < m->np; q++)
		G2[q] = G[q] + v * m->g[i][q];
	double rt = rate + v * m->r[i], price = share_price(b, G2);
	long left = b->card_binds ? m->max_total - cnt - v : CAPMILP_NO_CARD;
	if (m->kind == CAPMILP_DEADLINE)
		return price - m->lambda * rt + joint_lb(b, i + 1, u, b->R_lo - rt, left, NULL);
	double slack = b->row_tol - (price / 3600 - m->lambda * rt);
	return -(rt + joint_ub(b, i + 1, u, slack, left));
}

/* The least point of relaxed_child over v in [1, u_i], by halving on
 * its slope (it is convex). A step's pair (mid, mid + 1) often holds a
 * point of the step before (the last steps, where the interval is two or
 * three wide): that value is taken again, not computed again (the same
 * value: relaxed_child reads nothing the halving changes but the joint
 * bounds' warm starts, which move where their walk starts, not the
 * largest value it finds). *flo gets relaxed_child at the answer when a
 * step computed it, else NAN. */
static int relaxed_argmin(struct bb *b, int i, const int *u, const int *G, double rate, long cnt,
			  double *flo)
{
	int lo = 1, hi = u[i], va = 0, vb = 0;   /* the last step's points (0: none) */
	double fa = 0, fb = 0;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		b->nodes += 2;
		double f1 = mid + 1 == va ? fa : mid + 1 == vb ? fb
				: relaxed_child(b, i, u, G, rate, cnt, mid + 1);
		double f0 = mid == va ? fa : mid == vb ? fb : relaxed_child(b, i, u, G, rate, cnt, mid);
		if (f1 >= f0)
			hi = mid;
		else
			lo = mid + 1;
		va = mid;
		fa = f0;
		vb = mid + 1;
		fb = f1;
	}
	*flo = lo == va ? fa : lo == vb ? fb : NAN;
	return lo;
}

/* relaxed_argmin's answers within one solve, per thread. The same node
 * (count i, the GPUs G and replicas cnt of the counts before it, and
 * their rate; its boxes follow from those, boxes) is met by the quick
 * search, the seed's dive and the search after it, and each asked
 * relaxed_argmin there: a quarter of the calls on Mixtral 8x22B's
 * deadline programmes (issue 13, twenty-fourth round: 34,325 of 134,228
 * in one one-thread search). relaxed_child reads nothing of the search's
 * state but the programme and the joint bounds' warm starts, which move
 * where their walk starts, not the largest value it finds; so a node's
 * point is the same every time, and a hit counts the steps its halving
 * took again: every programme takes the same steps, gives up where it
 * did and returns the same answer (replayed on every programme of five
 * one-thread bench searches: the same steps, counts and value bits).
 * Direct-mapped; an entry of another solve (its mark) or another node is
 * a miss. A search setting: 512 slots hold the nodes of nearly every
 * programme (a slot 104 bytes). */
#define ARGMIN_MEMO_SLOTS 512
struct argmin_slot {
	unsigned long gen;
	long cnt, steps;
	double rate, fmin;   /* fmin: relaxed_argmin's *flo */
	int i, vmin;
	int G[HP_MAX_POOLS];
};
static _Thread_local struct argmin_slot argmin_memo[ARGMIN_MEMO_SLOTS];
static _Thread_local unsigned long argmin_gen;
static int argmin_memo_off;   /* capmilp_argmin_memo_set (the tests) */

void capmilp_argmin_memo_set(int on)
{
	argmin_memo_off = !on;
}

static int relaxed_argmin_memo(struct bb *b, int i, const int *u, const int *G, double rate,
			       long cnt, double *fmin)
{
	const struct capmilp *m = b->m;
	if (argmin_memo_off)
		return relaxed_argmin(b, i, u, G, rate, cnt, fmin);
	uint64_t rb, h = 1469598103934665603ULL;
	memcpy(&rb, &rate, sizeof rb);
	h = (h ^ (uint64_t)i) * 1099511628211ULL;
	h = (h ^ (uint64_t)cnt) * 1099511628211ULL;
	h = (h ^ rb) * 1099511628211ULL;
	for (int q = 0; q < m->np; q++)
		h = (h ^ (uint64_t)(unsigned)G[q]) * 1099511628211ULL;
	struct argmin_slot *e = &argmin_memo[(h ^ h >> 29) & (ARGMIN_MEMO_SLOTS - 1)];
	if (e->gen == b->solve_gen && e->i == i && e->cnt == cnt &&
	    memcmp(&e->rate, &rate, sizeof rate) == 0 &&
	    memcmp(e->G, G, (size_t)m->np * sizeof *G) == 0) {
		b->nodes += e->steps;
		*fmin = e->fmin;
		return e->vmin;
	}
	long n0 = b->nodes;
	int v = relaxed_argmin(b, i, u, G, rate, cnt, fmin);
	e->fmin = *fmin;
	e->gen = b->solve_gen;
	e->i = i;
	e->cnt = cnt;
	e->rate = rate;
	memcpy(e->G, G, (size_t)m->np * sizeof *G);
	e->vmin = v;
	e->steps = b->nodes - n0;
	return v;
}

/* Where dfs's loop over v (up: 1, 2, ...; else u_i, u_i - 1, ...) meets
 * its first v whose child bound could beat the incumbent, as a loop
 * index (0 without an incumbent), or -1 when none can. relaxed_child is
 * convex in v and under the loop's bound, so its least value is found by
 * halving on its slope, and the first v under the incumbent on the
 * loop's side of it by halving again; a v skipped has a bound at or over
 * the incumbent and would be cut by the loop (the incumbent only
 * improves while it runs), so the search is the same, with fewer steps.
 * The threshold keeps a margin of the tolerance for the rounding of the
 * bounds. */
static int first_candidate(struct bb *b, int i, const int *u, const int *G, double rate,
			   long cnt, int up)
{
	const struct capmilp *m = b->m;
	double thr = cut_at(b);
	if (isinf(thr))
		return 0;
	thr = (m->kind == CAPMILP_DEADLINE ? thr : -thr) + b->tol;
	double fmin;
	int vmin = relaxed_argmin_memo(b, i, u, G, rate, cnt, &fmin), lo, hi;
	b->nodes++;
	if (isnan(fmin))
		fmin = relaxed_child(b, i, u, G, rate, cnt, vmin);
	if (!(fmin < thr))
		return -1;
	if (up) {
		/* decreasing on [1, vmin]: the least v under thr */
		lo = 1;
		hi = vmin;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			b->nodes++;
			if (relaxed_child(b, i, u, G, rate, cnt, mid) < thr)
				hi = mid;
			else
				lo = mid + 1;
		}
		return lo - 1;
	}
	/* increasing on [vmin, u_i]: the largest v under thr */
	lo = vmin;
	hi = u[i];
	while (lo < hi) {
		int mid = hi - (hi - lo) / 2;
		b->nodes++;
		if (relaxed_child(b, i, u, G, rate, cnt, mid) < thr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return u[i] - lo;
}

/* The boxes [1, u_j] of the counts i.. once counts 0..i-1 take G GPUs
 * per pool and cnt replicas: each from the GPUs its pools have left when
 * every other count left keeps its one replica, and from the replicas
 * left. Returns -1 when a box is empty. */
static int boxes(const struct bb *b, int i, const int *G, long cnt, int *u)
{
	const struct capmilp *m = b->m;
	for (int j = i; j < m->n; j++) {
		long k = m->ub[j];
		k = HP_MIN(k, m->max_total - cnt - (m->n - i - 1));
		for (int q = 0; q < m->np; q++)
			if (m->g[j][q]) {
				long avail = (long)b->capg[q] - G[q] - (b->gmin[i][q] - m->g[j][q]);
				k = HP_MIN(k, avail / m->g[j][q]);
			}
		if (k < 1)
			return -1;
		u[j] = (int)k;
	}
	return 0;
}

/* The seed's search below count i: the counts within CAPMILP_DIVE_WINDOW
 * of relaxed_child's least point, best bound with whole nodes first
 * (sub_bound, whole = 1), each subtree cut on d's own incumbent, the
 * last count at its best value (last_count); it stops at d->limit
 * steps. d is a copy of the search's state (seed_dive). */
static void seed_search(struct bb *d, int i, const int *G, double rate, long cnt)
{
	const struct capmilp *m = d->m;
	int u[CAPMILP_MAX_VARS];
	if (d->nodes > d->limit || boxes(d, i, G, cnt, u) < 0)
		return;
	if (i == m->n - 1) {
		last_count(d, i, u[i], G, rate, cnt);
		return;
	}
	double f0;
	int v0 = relaxed_argmin_memo(d, i, u, G, rate, cnt, &f0), nv = 0;
	int vs[2 * CAPMILP_DIVE_WINDOW + 1];
	double lbs[2 * CAPMILP_DIVE_WINDOW + 1];
	for (int v = HP_MAX(1, v0 - CAPMILP_DIVE_WINDOW); v <= HP_MIN(u[i], v0 + CAPMILP_DIVE_WINDOW);
	     v++) {
		int G2[HP_MAX_POOLS];
		if (++d->nodes > d->limit)
			continue;   /* counted; nothing below reads its bound */
		for (int q = 0; q < m->np; q++)
			G2[q] = G[q] + v * m->g[i][q];
		double lb = sub_bound(d, i + 1, u, G2, rate + v * m->r[i], cnt + v, 1);
		if (!may_improve(d, lb))
			continue;
		insert_sorted(lbs, vs, nv++, m->kind == CAPMILP_BUDGET ? -lb : lb, v);
	}
	for (int k = 0; k < nv && d->nodes <= d->limit; k++) {
		int v = vs[k], G2[HP_MAX_POOLS];
		if (!may_improve(d, m->kind == CAPMILP_BUDGET ? -lbs[k] : lbs[k]))
			break;   /* sorted: no later one can either */
		for (int q = 0; q < m->np; q++)
			G2[q] = G[q] + v * m->g[i][q];
		d->cur[i] = v;
		seed_search(d, i + 1, G2, rate + v * m->r[i], cnt + v);
	}
}

/* A first feasible point to cut on (cut_at): the best that seed_search
 * finds in CAPMILP_SEED_STEPS steps near the LP's choices. No seed when
 * it finds no point that meets the rows. */
static void seed_dive(struct bb *b)
{
	struct bb d = *b;
	struct capmilp dm = *b->m;
	int G[HP_MAX_POOLS] = { 0 };
	dm.have_stop = 0;   /* the dive looks for its best point */
	d.m = &dm;
	d.have = d.have_seed = 0;
	cut_set(&d);
	d.limit = d.nodes + CAPMILP_SEED_STEPS;
	seed_search(&d, 0, G, 0, 0);
	b->nodes = d.nodes;
	b->have_seed = d.have;
	b->seed = d.best_val;
	cut_set(b);
}

/* A count vector pt as a seed: 1 with its value in *val when it is
 * feasible by the search's own tests (boxes, GPUs, the replicas row, the
 * EP step, the rate row at R_lo or the budget row within row_tol), else
 * 0. */
static int point_value(const struct bb *b, const int *pt, double *val)
{
	const struct capmilp *m = b->m;
	int G[HP_MAX_POOLS] = { 0 };
	long cnt = 0;
	double rate = 0;
	for (int i = 0; i < m->n; i++) {
		int v = pt[i];
		if (v < 1 || v > m->ub[i])
			return 0;
		cnt += v;
		rate += v * m->r[i];
		for (int q = 0; q < m->np; q++)
			G[q] += v * m->g[i][q];
	}
	if (cnt > m->max_total || cnt % b->step)
		return 0;
	for (int q = 0; q < m->np; q++)
		if (G[q] > b->capg[q])
			return 0;
	double price = node_price(b, G);
	if (m->kind == CAPMILP_DEADLINE) {
		if (rate < b->R_lo)
			return 0;
		*val = price - m->lambda * rate;
	} else {
		if (price / 3600 - m->lambda * rate > b->row_tol)
			return 0;
		*val = rate;
	}
	return 1;
}

/* The caller's hint (capmilp.h, have_hint) as a seed (point_value). */
static int hint_value(const struct bb *b, double *val)
{
	return b->m->have_hint && point_value(b, b->m->hint, val);
}

/* Replicas of layout j that fit beside G (its pools' GPUs, its box, the
 * replicas row), at most want. */
static int fit_more(const struct bb *b, int j, const int *c, const int *G, long cnt, long want)
{
	const struct capmilp *m = b->m;
	long k = HP_MIN(want, (long)m->ub[j] - c[j]);
	k = HP_MIN(k, m->max_total - cnt);
	for (int q = 0; q < m->np; q++)
		if (m->g[j][q] > 0)
			k = HP_MIN(k, (long)(b->capg[q] - G[q]) / m->g[j][q]);
	return (int)HP_MAX(k, 0);
}

static void add_to(const struct bb *b, int j, int k, int *c, int *G, long *cnt, double *rate)
{
	const struct capmilp *m = b->m;
	c[j] += k;
	*cnt += k;
	*rate += k * m->r[j];
	for (int q = 0; q < m->np; q++)
		G[q] += k * m->g[j][q];
}

/* The start of both greedy points: ord, the layouts in the search's
 * order with `first` (-1: none) moved to the front, and one replica of
 * each layout in pt (G, cnt and rate counted as add_to does). */
static void greedy_start(const struct bb *b, int first, int *ord, int *pt, int *G, long *cnt,
			 double *rate)
{
	const struct capmilp *m = b->m;
	int k0 = 0;
	if (first >= 0)
		ord[k0++] = first;
	for (int t = 0; t < m->n; t++)
		if (b->order[t] != first)
			ord[k0++] = b->order[t];
	for (int j = 0; j < m->n; j++) {
		pt[j] = 0;
		add_to(b, j, 1, pt, G, cnt, rate);
	}
}

/* The deadline's greedy point from layout `first` (-1: none first): one
 * replica of each layout, then `first` and the others in knapsack order
 * (least GPU-share price less lambda times the rate, per rate) each up
 * to what the rate row still asks, then the idle GPUs of the nodes taken
 * filled (free rate), then single replicas in knapsack order until the
 * sum is a multiple of the EP step; then, the dearest layouts first,
 * replicas taken out (a multiple of the step at a time) while the rate
 * row holds. 1 with its value in *val when that point is feasible
 * (point_value). */
static int greedy_point(const struct bb *b, int first, const int *cap, int *pt, double *val)
{
	const struct capmilp *m = b->m;
	int G[HP_MAX_POOLS] = { 0 }, ord[CAPMILP_MAX_VARS];
	long cnt = 0;
	double rate = 0;
	greedy_start(b, first, ord, pt, G, &cnt, &rate);
	for (int t = 0; t < m->n && rate < b->R_lo; t++) {
		int j = ord[t];
		double need = ceil((b->R_lo - rate) / m->r[j]);
		int k = fit_more(b, j, pt, G, cnt, (long)HP_MIN(need, 1e9));
		add_to(b, j, HP_MIN(cap[j] - pt[j], k), pt, G, &cnt, &rate);
	}
	/* idle GPUs of the nodes taken: replicas that need no new node */
	for (int t = 0; t < m->n; t++) {
		int j = ord[t];
		int k = HP_MIN(cap[j] - pt[j], fit_more(b, j, pt, G, cnt, 1L << 30));
		for (int q = 0; q < m->np && k > 0; q++)
			if (m->g[j][q] > 0) {
				int top = (G[q] + m->gpn[q] - 1) / m->gpn[q] * m->gpn[q];
				k = HP_MIN(k, (top - G[q]) / m->g[j][q]);
			}
		if (k > 0)
			add_to(b, j, k, pt, G, &cnt, &rate);
	}
	for (long guard = 0; cnt % b->step && guard < b->step; guard++) {
		int t = 0;
		while (t < m->n &&
		       HP_MIN(cap[ord[t]] - pt[ord[t]], fit_more(b, ord[t], pt, G, cnt, 1)) < 1)
			t++;
		if (t == m->n)
			return 0;
		add_to(b, ord[t], 1, pt, G, &cnt, &rate);
	}
	for (int t = m->n - 1; t >= 0; t--) {
		int j = ord[t];
		long k = (long)((rate - b->R_lo) / m->r[j]);
		k = HP_MIN(k, (long)pt[j] - 1);
		k -= k % b->step;
		while (k > 0 && rate - k * m->r[j] < b->R_lo)
			k -= b->step;
		if (k > 0)
			add_to(b, j, (int)-k, pt, G, &cnt, &rate);
	}
	return point_value(b, pt, val);
}

/* The budget row at G GPUs and rate: within row_tol? */
static int budget_row_holds(const struct bb *b, const int *G, double rate)
{
	return node_price(b, G) / 3600 - b->m->lambda * rate <= b->row_tol;
}

/* The budget's greedy point from layout `first` (-1: none first): one
 * replica of each layout, then `first` and the others in knapsack order
 * (least GPU-share price per rate first) each
 * given the most replicas that fit with the budget row holding (halving
 * on the count: the row is not monotone in it with whole nodes, so this
 * finds a feasible count, not always the largest), then replicas of the
 * dearest layouts taken out until the sum is a multiple of the EP step.
 * 1 with its rate in *val when that point is feasible (point_value). */
static int greedy_budget(const struct bb *b, int first, int *pt, double *val)
{
	const struct capmilp *m = b->m;
	int G[HP_MAX_POOLS] = { 0 }, ord[CAPMILP_MAX_VARS];
	long cnt = 0;
	double rate = 0;
	greedy_start(b, first, ord, pt, G, &cnt, &rate);
	for (int t = 0; t < m->n; t++) {
		int j = ord[t];
		int lo = 0, hi = fit_more(b, j, pt, G, cnt, 1L << 30);
		while (lo < hi) {
			int mid = lo + (hi - lo + 1) / 2, G2[HP_MAX_POOLS];
			for (int q = 0; q < m->np; q++)
				G2[q] = G[q] + mid * m->g[j][q];
			if (budget_row_holds(b, G2, rate + mid * m->r[j]))
				lo = mid;
			else
				hi = mid - 1;
		}
		if (lo > 0)
			add_to(b, j, lo, pt, G, &cnt, &rate);
	}
	for (int t = m->n - 1; t >= 0 && cnt % b->step; t--) {
		int j = ord[t];
		int k = (int)HP_MIN(cnt % b->step, (long)pt[j] - 1);
		if (k > 0)
			add_to(b, j, -k, pt, G, &cnt, &rate);
	}
	return point_value(b, pt, val);
}

/* A seed from the start (0 when no greedy point is feasible): budget,
 * the best greedy_budget over every layout first and none; deadline, the
 * best greedy_point over the same, then improved by capping one layout a
 * node's worth of replicas under the best point's count and filling
 * again, while that helps. It only cuts subtrees (cut_at), so the answer
 * is the same, the steps fewer. */
static int greedy_seed(const struct bb *b, double *val)
{
	const struct capmilp *m = b->m;
	int pt[CAPMILP_MAX_VARS], best[CAPMILP_MAX_VARS], cap[CAPMILP_MAX_VARS], have = 0, bf = -1;
	if (m->kind != CAPMILP_DEADLINE) {
		for (int f = -1; f < m->n; f++) {
			double v;
			if (greedy_budget(b, f, pt, &v) && (!have || v > *val)) {
				*val = v;
				have = 1;
			}
		}
		return have;
	}
	for (int j = 0; j < m->n; j++)
		cap[j] = m->ub[j];
	for (int f = -1; f < m->n; f++) {
		double v;
		if (greedy_point(b, f, cap, pt, &v) && (!have || v < *val)) {
			*val = v;
			have = 1;
			bf = f;
			memcpy(best, pt, sizeof best);
		}
	}
	for (int round = 0; have && round < 2 * m->n; round++) {
		int better = 0;
		for (int j = 0; j < m->n && !better; j++) {
			/* a node's worth less of layout j (its largest share of a node) */
			int per = 1;
			for (int q = 0; q < m->np; q++)
				if (m->g[j][q] > 0)
					per = HP_MAX(per, (m->gpn[q] + m->g[j][q] - 1) / m->g[j][q]);
			if (best[j] - per < 1)
				continue;
			for (int k = 0; k < m->n; k++)
				cap[k] = m->ub[k];
			cap[j] = best[j] - per;
			double v;
			if (greedy_point(b, bf, cap, pt, &v) && v < *val - b->tol) {
				*val = v;
				memcpy(best, pt, sizeof best);
				better = 1;
			}
		}
		if (!better)
			break;
	}
	return have;
}

/* Can the node where counts 0..i-1 take G GPUs, rate and cnt replicas,
 * the counts i.. in the boxes u, hold a point better than the incumbent?
 * 1 when its bounds cut it: the whole-node price of one replica each
 * with the most rate reachable, sub_bound with whole nodes and, with the
 * EP step, the lattice of sums (step_lb, step_ub). */
static int node_cut(struct bb *b, int i, const int *u, const int *G, double rate, long cnt)
{
	const struct capmilp *m = b->m;
	double rate_max = rate;
	for (int j = i; j < m->n; j++)
		rate_max += m->r[j] * u[j];
	/* the node's card_ub and mixed_price, taken once for its bounds */
	double card = card_ub(b, i, u, m->max_total - cnt), mp = mixed_price(b, i, G);
	rate_max = min2(rate_max, rate + card);
	int Gmin[HP_MAX_POOLS];
	for (int q = 0; q < m->np; q++)
		Gmin[q] = G[q] + b->gmin[i][q];
	double whole = node_price(b, Gmin);
	if (m->kind == CAPMILP_DEADLINE) {
		double fr[CAPMILP_MAX_VARS], paid = 0;
		double lb = max2(whole - m->lambda * rate_max,
				 sub_bound_at(b, i, u, G, rate, cnt, 1, mp, card, fr, &paid));
		if (!may_improve(b, lb))
			return 1;
		if (b->step > 1 && i < m->n - 1) {
			double p = paid - m->lambda * rate;
			if (!may_improve(b, p + step_lb(b, i, u, b->R_lo - rate, cnt, fr) - b->tol))
				return 1;
		}
	} else {
		if (whole / 3600 - m->lambda * rate_max > b->row_tol)
			return 1;
		if (!may_improve(b, sub_bound_at(b, i, u, G, rate, cnt, 1, mp, card, NULL, NULL)))
			return 1;
		if (b->step > 1 && i < m->n - 1) {
			double slack = b->row_tol - (mp / 3600 - m->lambda * rate);
			if (!may_improve(b, rate + step_ub(b, i, u, slack, cnt) + b->tol))
				return 1;
		}
	}
	return 0;
}

static void dfs(struct bb *b, int i, const int *G, double rate, long cnt)
{
	const struct capmilp *m = b->m;
	if (b->gave_up || b->done)
		return;
	if (++b->nodes > b->limit) {
		b->gave_up = 1;
		return;
	}
	int u[CAPMILP_MAX_VARS];
	if (boxes(b, i, G, cnt, u) < 0)
		return;
	if (node_cut(b, i, u, G, rate, cnt))
		return;
	if (i == m->n - 1) {
		last_count(b, i, u[i], G, rate, cnt);
		return;
	}
	/* the later counts' boxes with this one at 1 (the widest): the child
	 * bounds below hold for every v, and are convex / concave in v.
	 * Deadline counts whose net price d_i is >= 0 go up from the least
	 * that can meet the rate (cheap first), the others down. */
	int dl = m->kind == CAPMILP_DEADLINE, G2[HP_MAX_POOLS];
	double rest_most = 0, best_seen = 0;
	int seen = 0, run = 0;
	for (int j = i + 1; j < m->n; j++)
		rest_most += m->r[j] * u[j];
	int up = dl && b->dcoef[i] >= 0;
	int k0 = u[i] >= CAPMILP_SKIP_MIN ? first_candidate(b, i, u, G, rate, cnt, up) : 0;
	if (k0 < 0)
		return;
	for (int k = k0; k < u[i] && !b->gave_up && !b->done; k++) {
		int v = up ? 1 + k : u[i] - k;
		if (++b->nodes > b->limit) {
			b->gave_up = 1;
			return;
		}
		double rt = rate + v * m->r[i];
		/* the rate reachable falls with v */
		if (dl && rt + rest_most < b->R_lo) {
			if (up)
				continue;
			break;
		}
		if (!dl && b->have && rt + rest_most <= b->best_val + b->tol)
			break;
		for (int q = 0; q < m->np; q++)
			G2[q] = G[q] + v * m->g[i][q];
		/* the child's card_ub, for both its bounds below */
		double ccard = b->card_binds ? card_ub(b, i + 1, u, m->max_total - cnt - v) : rest_most;
		double bnd = sub_bound_at(b, i + 1, u, G2, rt, cnt + v, 0, share_price(b, G2), ccard, NULL,
					  NULL);
		if (!seen || (dl ? bnd < best_seen : bnd > best_seen))
			best_seen = bnd;
		seen = 1;
		if (!may_improve(b, bnd)) {
			/* the sub-level set of a convex bound is an interval:
			 * once a v before was inside it, none after can be */
			double t = cut_at(b);
			if (!isinf(t) && (dl ? best_seen < t : best_seen > t))
				break;
			/* a run of cut values: halve to the next one worth it
			 * (first_candidate, over the whole box: a v it skips is
			 * cut by this loop, before or now) */
			if (++run >= CAPMILP_RUN_SKIP && u[i] - k >= CAPMILP_SKIP_MIN) {
				run = 0;
				int k1 = first_candidate(b, i, u, G, rate, cnt, up);
				if (k1 < 0)
					break;
				if (k1 > k)
					k = k1 - 1;
			}
			continue;
		}
		run = 0;
		b->cur[i] = v;
		if (dl && i + 1 == m->n - 1) {
			/* the deadline's last count: scanned directly (last_count
			 * offers only points that beat the incumbent, all that a
			 * cut here would leave; measured on DeepSeek-V3's
			 * programmes: the same answers, a tenth less time; the
			 * budget's took as long) */
			int ul[CAPMILP_MAX_VARS];
			if (boxes(b, i + 1, G2, cnt + v, ul) == 0)
				last_count(b, i + 1, ul[i + 1], G2, rt, cnt + v);
			continue;
		}
		if ((dl || b->closed[i + 1]) &&
		    !may_improve(b, sub_bound_at(b, i + 1, u, G2, rt, cnt + v, 1, mixed_price(b, i + 1, G2),
						 ccard, NULL, NULL)))
			continue;
		dfs(b, i + 1, G2, rt, cnt + v);
	}
}

/* b->mt->forder[t] and b->mt->fcoef[t]: every count by its free segment's
 * coefficient -lambda r_j - pi r_j at pi = mult[t], increasing, ties by
 * count (a stable insertion sort of the counts in index order). The
 * bounds walk it skipping the counts without a free segment: the order
 * of the same stable sort of those alone. */
static void free_order(const struct bb *b, struct mtab *w, int t)
{
	const struct capmilp *m = b->m;
	double pi = w->mult[t], *fc = w->fcoef[t];
	int *fo = w->forder[t];
	for (int j = 0; j < m->n; j++) {
		insert_sorted(fc, fo, j, -m->lambda * m->r[j] - pi * m->r[j], j);
	}
}

/* w->fmerge[t] and w->emerge[t] (struct mtab) from the paid order
 * (mult_order, mcoef) and the free one (forder, fcoef) at mult[t]: the
 * merges free_at and joint_lb_eq made at each call, with every segment
 * present. Each list is sorted by (coefficient, count), so each merge's
 * result is the list of all segments sorted by its own comparison, and
 * with some segments absent the merges gave the same list less those. */
static void merge_orders(const struct bb *b, struct mtab *w, int t)
{
	int n = b->m->n;
	const int *ord = w->mult_order[t], *fo = w->forder[t];
	const double *pcs = w->mcoef[t], *fc = w->fcoef[t];
	for (int kind = 0; kind < 2; kind++) {
		unsigned char *mo = kind ? w->emerge[t] : w->fmerge[t];
		double *mc = kind ? w->emcoef[t] : w->fmcoef[t];
		int pa = 0, fa = 0;
		for (int a = 0; a < 2 * n; a++) {
			int take_free;
			if (pa >= n)
				take_free = 1;
			else if (fa >= n)
				take_free = 0;
			else if (kind)
				take_free = fc[fa] <= pcs[pa];   /* joint_lb_eq */
			else
				take_free = fc[fa] < pcs[pa] || (fc[fa] == pcs[pa] && fo[fa] <= ord[pa]);
			mc[a] = take_free ? fc[fa] : pcs[pa];
			mo[a] = (unsigned char)(take_free ? fo[fa++] : ord[pa++] | SEG_PAID);
		}
	}
}

/* The multipliers of joint_lb / joint_ub: 0 and every positive one at
 * which a coefficient changes sign or two coefficients are equal (the
 * deadline's d_j - pi r_j; the budget's r_j - nu d_j), increasing. */
static void joint_mults(struct bb *b, struct mtab *w)
{
	const struct capmilp *m = b->m;
	int dl = m->kind == CAPMILP_DEADLINE;
	double a[CAPMILP_MAX_VARS], s[CAPMILP_MAX_VARS];   /* coefficient a_j - mult s_j */
	for (int j = 0; j < m->n; j++) {
		double d = dl ? b->share[j] - m->lambda * m->r[j]
			      : b->share[j] / 3600 - m->lambda * m->r[j];
		a[j] = dl ? d : m->r[j];
		s[j] = dl ? m->r[j] : d;
	}
	w->n_mult = 0;
	w->mult[w->n_mult++] = 0;
	for (int j = 0; j < m->n; j++)
		for (int k = j; k < m->n; k++) {
			/* k == j: a_j - x s_j = 0; else a_j - x s_j = a_k - x s_k */
			double num = k == j ? a[j] : a[j] - a[k], den = k == j ? s[j] : s[j] - s[k];
			double x = den != 0 ? num / den : -1;
			if (!(x > 0) || !isfinite(x))
				continue;
			int t = w->n_mult++;
			while (t > 0 && w->mult[t - 1] > x) {
				w->mult[t] = w->mult[t - 1];
				t--;
			}
			w->mult[t] = x;
		}
	/* one far beyond the last: where the rows cannot be met, the bound
	 * then grows steeply with the shortfall (relaxed_child, seed_dive);
	 * where they can, the loops stop before it */
	w->mult[w->n_mult] = CAPMILP_FAR_MULT * (1 + w->mult[w->n_mult - 1]);
	w->n_mult++;
	for (int j = 0; j < m->n; j++)
		b->dcoef[j] = dl ? a[j] : s[j];
	for (int t = 0; t < w->n_mult; t++) {
		int *ord = w->mult_order[t];
		double x = w->mult[t];
		for (int j = 0; j < m->n; j++) {
			/* deadline: increasing a_j - x s_j; budget: decreasing */
			double key = dl ? a[j] - x * s[j] : -(a[j] - x * s[j]);
			int k = j;
			while (k > 0 && (dl ? a[ord[k - 1]] - x * s[ord[k - 1]]
					    : -(a[ord[k - 1]] - x * s[ord[k - 1]])) > key) {
				ord[k] = ord[k - 1];
				k--;
			}
			ord[k] = j;
		}
		for (int k = 0; k < m->n; k++) {
			int j = ord[k];
			w->mcoef[t][k] = dl ? b->dcoef[j] - x * m->r[j] : m->r[j] - x * b->dcoef[j];
		}
		if (dl) {
			free_order(b, w, t);
			merge_orders(b, w, t);
		}
		for (int i = 0; i <= m->n; i++) {
			unsigned am = 0;
			for (int k = 0; k < m->n; k++)
				am |= (unsigned)(ord[k] >= i) << k;
			w->amask[t][i] = am;
		}
	}
}

long capmilp_ep_step(int ep, int cp)
{
	if (ep < 1 || cp < 1)
		return 1;
	int a = ep, c = cp;
	while (c) {
		int t = a % c;
		a = c;
		c = t;
	}
	return ep / a;
}

/* The search's state for programme mc (solve_in_order's copy of m_in,
 * its max_total cut to the EP step here) and its table mt: the step,
 * the pools' shifts, the suffix sums, the knapsack and rate orders, the
 * joint multiples and the tolerances. */
static void bb_setup(struct bb *b, struct capmilp *mc, const struct capmilp *m_in,
		     struct mtab *mt)
{
	/* With total_step s > 1 the sum is at most the largest multiple of s
	 * within max_total: the same integer points, tighter bounds. Only
	 * last_count enforces the step itself; every bound below relaxes the
	 * programme without it, so it relaxes the programme with it too. */
	const struct capmilp *m = mc;
	b->step = m_in->total_step > 1 ? m_in->total_step : 1;
	b->step_mask = (b->step & (b->step - 1)) == 0 ? b->step - 1 : -1;
	b->gpn_pow2 = 1;
	for (int q = 0; q < m_in->np; q++) {
		int k = 0;
		while (k < 30 && (1 << k) < m_in->gpn[q])
			k++;
		b->gpn_shift[q] = (1 << k) == m_in->gpn[q] ? k : -1;
		b->gpn_inv[q] = b->gpn_shift[q] >= 0 ? 1.0 / m_in->gpn[q] : 0;
		b->gpn_pow2 &= b->gpn_shift[q] >= 0;
	}
	b->warm = b->warm_store;
	mc->max_total -= mc->max_total % b->step;
	b->m = m;
	b->limit = m->node_limit > 0 ? m->node_limit : 100000;
	double price_all = 0, rate_all = 0;
	for (int q = 0; q < m->np; q++) {
		b->capg[q] = m->gpn[q] * m->nodes[q];
		price_all += m->usd_node_h[q] * m->nodes[q];
	}
	for (int i = m->n - 1; i >= 0; i--) {
		for (int q = 0; q < m->np; q++)
			b->gmin[i][q] = b->gmin[i + 1][q] + m->g[i][q];
		b->share[i] = 0;
		for (int q = 0; q < m->np; q++)
			b->share[i] += m->usd_node_h[q] * m->g[i][q] / m->gpn[q];
		rate_all += m->r[i] * m->ub[i];
	}
	/* knapsack order: increasing d_j / r_j, ties by index (insertion) */
	for (int i = 0; i < m->n; i++) {
		double key = (b->share[i] - m->lambda * m->r[i]) / m->r[i];
		int k = i;
		while (k > 0) {
			int j = b->order[k - 1];
			if ((b->share[j] - m->lambda * m->r[j]) / m->r[j] <= key)
				break;
			b->order[k] = j;
			k--;
		}
		b->order[k] = i;
	}
	long ub_sum = 0;
	for (int i = 0; i < m->n; i++)
		ub_sum += m->ub[i];
	b->card_binds = ub_sum > m->max_total;
	for (int i = 0; i <= m->n; i++)
		for (int q = 0; q < m->np; q++)
			b->closed[i] |= b->gmin[i][q] == 0;
	for (int i = m->n - 1; i >= 0; i--) {
		b->pool_of[i] = -1;
		for (int q = 0; q < m->np; q++) {
			b->users[i][q] = b->users[i + 1][q] + (m->g[i][q] > 0);
			if (m->g[i][q] > 0)
				b->pool_of[i] = b->pool_of[i] == -1 ? q : -2;
		}
		if (b->pool_of[i] < 0)
			b->pool_of[i] = -1;
	}
	for (int i = 0; i < m->n; i++) {
		int k = i;
		while (k > 0 && m->r[b->by_rate[k - 1]] < m->r[i]) {
			b->by_rate[k] = b->by_rate[k - 1];
			k--;
		}
		b->by_rate[k] = i;
	}
	b->mt = mt;
	joint_mults(b, mt);
	if (m->kind == CAPMILP_DEADLINE) {
		b->tol = 1e-9 * (1 + price_all + m->lambda * rate_all);
		b->R_lo = m->R * (1 - 1e-9);
	} else {
		b->tol = 1e-9 * (1 + rate_all);
		b->row_tol = 1e-9 * (price_all / 3600 + m->lambda * rate_all);
	}
}

/* A solve's multipliers and orders (struct mtab, about 170 KB with the
 * merged orders of 155 multipliers at the largest n), per thread rather
 * than on the stack: a search on the process's main thread (--threads 1)
 * runs under the user's stack limit (tests/test_hardening.sh: 256 KB),
 * and no solve is entered from another on one thread. */
static _Thread_local struct mtab solve_mt;

static int solve_in_order(const struct capmilp *m_in, int *counts, long *nodes, double *value)
{
	struct bb b;
	memset(&b, 0, sizeof b);
	struct capmilp mc = *m_in;
	const struct capmilp *m = &mc;
	bb_setup(&b, &mc, m_in, &solve_mt);
	b.solve_gen = ++argmin_gen;   /* never 0: the memo's empty slots */
	/* most programmes are done in a few hundred steps without a seed;
	 * the others start again with one (the same answer, cut_at) */
	int G0[HP_MAX_POOLS] = { 0 };
	long limit = b.limit;
	double hint = 0;
	int have_hint = hint_value(&b, &hint);
	/* the greedy point where it is better than the hint: the better
	 * prior seed (both only cut, cut_at); the deadline's only once the
	 * quick search has not finished (its multi-start and refills cost
	 * more than they save on the programmes done in CAPMILP_QUICK_STEPS:
	 * replayed, a tenth of DeepSeek-V3's deadline programmes, capmilp
	 * 1,990.8M instructions before seeds, 2,044.7M seeded from the start,
	 * 2,009.7M seeded here, 68 -> 54 hand-offs to GLPK either way) */
	double gval = 0;
	int dl = m->kind == CAPMILP_DEADLINE;
	if (!dl && greedy_seed(&b, &gval) && (!have_hint || gval > hint)) {
		have_hint = 1;
		hint = gval;
	}
	b.have_seed = have_hint;
	b.seed = hint;
	cut_set(&b);
	b.limit = HP_MIN(limit, CAPMILP_QUICK_STEPS);
	dfs(&b, 0, G0, 0, 0);
	if (b.gave_up && limit > b.limit) {
		b.limit = limit;
		b.gave_up = b.have = b.done = 0;
		cut_set(&b);
		if (dl && greedy_seed(&b, &gval) && (!have_hint || gval < hint)) {
			have_hint = 1;
			hint = gval;
		}
		seed_dive(&b);
		/* the better of the two seeds */
		if (have_hint && (!b.have_seed || (m->kind == CAPMILP_DEADLINE ? hint < b.seed
									 : hint > b.seed))) {
			b.have_seed = 1;
			b.seed = hint;
			cut_set(&b);
		}
		dfs(&b, 0, G0, 0, 0);
	}
	if (nodes)
		*nodes = b.nodes;
	if (b.gave_up)
		return -2;
	if (!b.have)
		return -1;
	memcpy(counts, b.best, (size_t)m->n * sizeof *counts);
	if (value)
		*value = b.best_val;
	return 0;
}

/* The order the deadline's search takes the layouts in: those on more
 * than one pool first, then by their boxes, fewest replicas first (ties
 * in the caller's order), so the layout of most replicas, often
 * thousands of 1- to 4-GPU replicas, is the last count, which last_count
 * scans directly instead of branching on it. Any order gives an optimum;
 * this one takes fewer steps on the planner's deadline programmes. Every
 * deadline programme of one make bench run replayed (2026-12), caller's
 * order -> this one, programmes the solver gave up on (CAPMILP steps
 * 4,096) and steps: DeepSeek-V3 16,384 GPUs 7,351 -> 3,433 of 55,504
 * (60.1M -> 47.1M steps), Llama 3.1 405B 721 -> 405 of 15,412 (12.1M ->
 * 10.9M), Mixtral 8x22B 31 -> 44 of 16,909 (6.7M -> 6.1M). The
 * budget's programmes give up more often in it (DeepSeek-V3, every tenth
 * of 203,434: 332 -> 636), so they keep the caller's order. */
static void deadline_order(const struct capmilp *m, int *perm)
{
	long key[CAPMILP_MAX_VARS];
	for (int i = 0; i < m->n; i++) {
		int pools = 0;
		for (int q = 0; q < m->np; q++)
			pools += m->g[i][q] > 0;
		key[i] = pools > 1 ? -1 : m->ub[i];
		int k = i;
		while (k > 0 && key[perm[k - 1]] > key[i]) {
			perm[k] = perm[k - 1];
			k--;
		}
		perm[k] = i;
	}
}

int capmilp_solve(const struct capmilp *m, int *counts, long *nodes)
{
	return capmilp_solve_value(m, counts, nodes, NULL);
}

int capmilp_solve_value(const struct capmilp *m, int *counts, long *nodes, double *value)
{
	if (m->kind != CAPMILP_DEADLINE)
		return solve_in_order(m, counts, nodes, value);
	int perm[CAPMILP_MAX_VARS], c[CAPMILP_MAX_VARS];
	deadline_order(m, perm);
	struct capmilp p = *m;
	for (int a = 0; a < m->n; a++) {
		p.r[a] = m->r[perm[a]];
		p.ub[a] = m->ub[perm[a]];
		p.hint[a] = m->hint[perm[a]];
		memcpy(p.g[a], m->g[perm[a]], sizeof p.g[a]);
	}
	int rc = solve_in_order(&p, c, nodes, value);
	if (rc == 0)
		for (int a = 0; a < m->n; a++)
			counts[perm[a]] = c[a];
	return rc;
}

/* ------------------------------------------------------------------ */
/* The memo (capmilp.h) */

/* Slots of a memo: a power of two. Replayed on the programmes of one
 * DeepSeek-V3 16,384-GPU search (2026-12), repeats caught of those an
 * unbounded memo catches: deadline 7,166 of 7,996, budget 22,649 of
 * 26,180 (most repeats are 100 to 10,000 programmes apart); 4,096 slots
 * caught 6,270 and 18,349. About 100 bytes a slot plus its key (about
 * 250 bytes for 5 layouts on 4 pools). A search setting. */
#define CAPMILP_MEMO_SLOTS 16384

/* The longest key memo_key writes. */
#define CAPMILP_MEMO_KEY_MAX                                                       \
	(5 * sizeof(int) + 3 * sizeof(long) + 3 * sizeof(double) +                   \
	 CAPMILP_MAX_VARS * (sizeof(double) + 2 * sizeof(int) + HP_MAX_POOLS * sizeof(int)) + \
	 HP_MAX_POOLS * (2 * sizeof(int) + sizeof(double)))

struct memo_slot {
	uint64_t hash;
	unsigned char *key;   /* NULL: empty */
	size_t len;
	int rc;
	int counts[CAPMILP_MAX_VARS];
	double value;
};

struct capmilp_memo {
	pthread_mutex_t mu;
	struct memo_slot *slot;
};

static size_t key_put(unsigned char *k, size_t at, const void *v, size_t n)
{
	memcpy(k + at, v, n);
	return at + n;
}

/* Every field the answer depends on, in a fixed order: the fields of the
 * layouts and pools beyond n and np are not read by the solver. */
static size_t memo_key(const struct capmilp *m, unsigned char *k)
{
	size_t at = 0;
	int kind = m->kind;
	at = key_put(k, at, &kind, sizeof kind);
	at = key_put(k, at, &m->n, sizeof m->n);
	at = key_put(k, at, &m->np, sizeof m->np);
	at = key_put(k, at, &m->max_total, sizeof m->max_total);
	at = key_put(k, at, &m->total_step, sizeof m->total_step);
	at = key_put(k, at, &m->node_limit, sizeof m->node_limit);
	at = key_put(k, at, &m->R, sizeof m->R);
	at = key_put(k, at, &m->lambda, sizeof m->lambda);
	at = key_put(k, at, &m->have_stop, sizeof m->have_stop);
	if (m->have_stop)
		at = key_put(k, at, &m->stop, sizeof m->stop);
	at = key_put(k, at, &m->have_hint, sizeof m->have_hint);
	if (m->have_hint)
		at = key_put(k, at, m->hint, (size_t)m->n * sizeof m->hint[0]);
	for (int i = 0; i < m->n; i++) {
		at = key_put(k, at, &m->r[i], sizeof m->r[i]);
		at = key_put(k, at, &m->ub[i], sizeof m->ub[i]);
		at = key_put(k, at, m->g[i], (size_t)m->np * sizeof m->g[i][0]);
	}
	for (int q = 0; q < m->np; q++) {
		at = key_put(k, at, &m->gpn[q], sizeof m->gpn[q]);
		at = key_put(k, at, &m->nodes[q], sizeof m->nodes[q]);
		at = key_put(k, at, &m->usd_node_h[q], sizeof m->usd_node_h[q]);
	}
	return at;
}

/* FNV-1a, 64 bits. */
static uint64_t memo_hash(const unsigned char *k, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= k[i];
		h *= 1099511628211ULL;
	}
	return h;
}

struct capmilp_memo *capmilp_memo_new(void)
{
	struct capmilp_memo *mm = xmalloc(sizeof *mm);
	pthread_mutex_init(&mm->mu, NULL);
	mm->slot = xcalloc(CAPMILP_MEMO_SLOTS, sizeof *mm->slot);
	return mm;
}

void capmilp_memo_free(struct capmilp_memo *mm)
{
	if (!mm)
		return;
	for (size_t i = 0; i < CAPMILP_MEMO_SLOTS; i++)
		free(mm->slot[i].key);
	free(mm->slot);
	pthread_mutex_destroy(&mm->mu);
	free(mm);
}

int capmilp_memo_get(struct capmilp_memo *mm, const struct capmilp *m, int *rc, int *counts,
		     double *value)
{
	if (!mm)
		return 0;
	assert(m->n >= 1 && m->n <= CAPMILP_MAX_VARS && m->np >= 1 && m->np <= HP_MAX_POOLS);
	unsigned char k[CAPMILP_MEMO_KEY_MAX];
	size_t len = memo_key(m, k);
	uint64_t h = memo_hash(k, len);
	int hit = 0;
	pthread_mutex_lock(&mm->mu);
	const struct memo_slot *s = &mm->slot[h & (CAPMILP_MEMO_SLOTS - 1)];
	if (s->key && s->hash == h && s->len == len && !memcmp(s->key, k, len)) {
		hit = 1;
		*rc = s->rc;
		if (s->rc == 0)
			memcpy(counts, s->counts, (size_t)m->n * sizeof *counts);
		if (s->rc == 0 && value)
			*value = s->value;
	}
	pthread_mutex_unlock(&mm->mu);
	return hit;
}

void capmilp_memo_put(struct capmilp_memo *mm, const struct capmilp *m, int rc, const int *counts,
		      double value)
{
	if (!mm)
		return;
	assert(m->n >= 1 && m->n <= CAPMILP_MAX_VARS && m->np >= 1 && m->np <= HP_MAX_POOLS);
	unsigned char k[CAPMILP_MEMO_KEY_MAX];
	size_t len = memo_key(m, k);
	uint64_t h = memo_hash(k, len);
	pthread_mutex_lock(&mm->mu);
	struct memo_slot *s = &mm->slot[h & (CAPMILP_MEMO_SLOTS - 1)];
	if (!s->key || s->len < len)
		s->key = xrealloc(s->key, len);
	memcpy(s->key, k, len);
	s->len = len;
	s->hash = h;
	s->rc = rc;
	if (rc == 0)
		memcpy(s->counts, counts, (size_t)m->n * sizeof *counts);
	s->value = value;
	pthread_mutex_unlock(&mm->mu);
}
