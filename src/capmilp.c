/* capmilp.c — exact branch and bound for the capacity MILP (capmilp.h).
 *
 * Depth-first over the replica counts in layout order, larger counts
 * first, the last count scanned directly. A node is cut when it cannot
 * beat the incumbent by more than the tolerance or cannot be feasible:
 *
 * - every count left has an upper bound from the GPUs its pools have
 *   left once every other layout left keeps its one replica, and from
 *   the replicas left under max_total;
 * - deadline: the objective is at least the larger of (a) the whole-node
 *   price of the GPUs already taken plus one replica of every layout left,
 *   less lambda times the most rate reachable, and (b) the GPU-share
 *   price (continuous nodes) of what is taken, less lambda times its
 *   rate, plus the least of sum d_j n_j over the counts left with the rate
 *   row kept (a fractional knapsack: d_j = GPU-share price - lambda r_j,
 *   taken in increasing d_j / r_j; the order is fixed per model);
 * - budget: the rate is at most what is taken plus every count left at its
 *   upper bound, and at most what the budget row allows with GPU-share
 *   prices (the fractional knapsack again, the same order); the node is
 *   cut when the row is over the budget even at the whole-node price of
 *   one replica each and the most rate reachable.
 *
 * Both bounds only relax (whole nodes cost at least GPU shares; counts
 * left may take any value in their boxes), so no cut drops an optimum
 * that beats the incumbent by more than the tolerance. */
#include "capmilp.h"
#include <math.h>
#include <string.h>
#include "util.h"

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
	long nodes, limit;    /* steps: nodes, bound evaluations, last-count values */
	int gave_up;
};

static double node_price(const struct capmilp *m, const int *G)
{
	double usd = 0;
	for (int q = 0; q < m->np; q++)
		usd += m->usd_node_h[q] * (double)((G[q] + m->gpn[q] - 1) / m->gpn[q]);
	return usd;
}

static double share_price(const struct capmilp *m, const int *G)
{
	double usd = 0;
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
		double d = b->share[j] - m->lambda * m->r[j];
		int k = d < 0 ? u[j] : 1;
		val += d * k;
		rate += m->r[j] * k;
	}
	for (int t = 0; t < m->n && rate < need; t++) {
		int j = b->order[t];
		double d = b->share[j] - m->lambda * m->r[j];
		if (j < i || d < 0 || u[j] <= 1)
			continue;
		double add = fmin((double)(u[j] - 1), (need - rate) / m->r[j]);
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
		double d = b->share[j] / 3600 - m->lambda * m->r[j];
		int k = d <= 0 ? u[j] : 1;
		slack -= d * k;
		rate += m->r[j] * k;
	}
	if (slack < 0)
		return -1;
	for (int t = 0; t < m->n && slack > 0; t++) {
		int j = b->order[t];
		double d = b->share[j] / 3600 - m->lambda * m->r[j];
		if (j < i || d <= 0 || u[j] <= 1)
			continue;
		double add = fmin((double)(u[j] - 1), slack / d);
		rate += m->r[j] * add;
		slack -= d * add;
	}
	return rate;
}

static void offer(struct bb *b, double val)
{
	b->have = 1;
	b->best_val = val;
	memcpy(b->best, b->cur, (size_t)b->m->n * sizeof *b->cur);
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
		usd += b->gmin[i][q] ? m->usd_node_h[q] * G[q] / m->gpn[q]
				     : m->usd_node_h[q] * (double)((G[q] + m->gpn[q] - 1) / m->gpn[q]);
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
static double sub_bound(const struct bb *b, int i, const int *u, const int *G, double rate,
			long cnt, int whole)
{
	const struct capmilp *m = b->m;
	double price = whole ? mixed_price(b, i, G) : share_price(m, G);
	double most = rate + card_ub(b, i, u, m->max_total - cnt);
	if (m->kind == CAPMILP_DEADLINE) {
		if (most < b->R_lo)
			return HUGE_VAL;
		return price - m->lambda * rate + knap_lb(b, i, u, m->R - rate);
	}
	double more = knap_ub(b, i, u, b->row_tol - (price / 3600 - m->lambda * rate));
	return more < 0 ? -HUGE_VAL : rate + fmin(more, most - rate);
}

/* Can a subtree of bound lb (sub_bound) hold a better point than the
 * incumbent? */
static int may_improve(const struct bb *b, double lb)
{
	if (!b->have)
		return b->m->kind == CAPMILP_DEADLINE ? lb < HUGE_VAL : lb > -HUGE_VAL;
	if (b->m->kind == CAPMILP_DEADLINE)
		return lb < b->best_val - b->tol;
	return lb > b->best_val + b->tol;
}

/* The last count, every other fixed: scanned from the end where the
 * objective's GPU-share floor is lowest, stopping once that floor (linear
 * in v) cannot beat the incumbent. */
static void last_count(struct bb *b, int i, int u, const int *G, double rate)
{
	const struct capmilp *m = b->m;
	int G2[HP_MAX_POOLS];
	if (m->kind == CAPMILP_BUDGET) {
		for (int v = u; v >= 1; v--) {
			double rt = rate + v * m->r[i];
			b->nodes++;
			if (b->have && rt <= b->best_val + b->tol)
				return;
			for (int q = 0; q < m->np; q++)
				G2[q] = G[q] + v * m->g[i][q];
			b->cur[i] = v;
			if (node_price(m, G2) / 3600 - m->lambda * rt <= b->row_tol) {
				offer(b, rt);
				return;   /* the largest feasible count here */
			}
		}
		return;
	}
	double d = b->share[i] - m->lambda * m->r[i];
	int lo = 1;
	if (rate + m->r[i] < b->R_lo)
		lo = (int)HP_MIN((double)u + 1, ceil((b->R_lo - rate) / m->r[i]));
	while (lo > 1 && rate + (lo - 1) * m->r[i] >= b->R_lo)
		lo--;   /* ceil's rounding */
	while (lo <= u && rate + lo * m->r[i] < b->R_lo)
		lo++;
	int up = d >= 0;
	for (int k = 0; k <= u - lo; k++) {
		int v = up ? lo + k : u - k;
		b->nodes++;
		for (int q = 0; q < m->np; q++)
			G2[q] = G[q] + v * m->g[i][q];
		double rt = rate + v * m->r[i];
		if (b->have && share_price(m, G2) - m->lambda * rt >= b->best_val - b->tol)
			return;
		b->cur[i] = v;
		double val = node_price(m, G2) - m->lambda * rt;
		if (!b->have || val < b->best_val - b->tol)
			offer(b, val);
	}
}

/* The deadline's child bound at count v of layout i (sub_bound with
 * GPU-share prices), the later counts' boxes u held. */
static double child_bound(const struct bb *b, int i, const int *u, const int *G, double rate,
			  long cnt, int v)
{
	const struct capmilp *m = b->m;
	int G2[HP_MAX_POOLS];
	for (int q = 0; q < m->np; q++)
		G2[q] = G[q] + v * m->g[i][q];
	return sub_bound(b, i + 1, u, G2, rate + v * m->r[i], cnt + v, 0);
}

/* Deadline, when the replicas row cannot bind: where dfs's loop over v
 * (up: 1, 2, ...; else u_i, u_i - 1, ...) meets its first v whose child
 * bound could beat the incumbent, as a loop index, or -1 when none can.
 * The bound is finite from the least v that can still reach the rate
 * row (rate + v r_i + the later counts at their boxes) and convex there,
 * so its least value is found by halving on its slope, and the first v
 * under the incumbent on either side of it by halving again. The v
 * skipped would be cut by the loop one by one (the incumbent only
 * improves while it runs), so the search is the same, with fewer steps. */
static int first_candidate(struct bb *b, int i, const int *u, const int *G, double rate,
			   long cnt, double rest_most, int up)
{
	const struct capmilp *m = b->m;
	int a = 1;
	if (rate + m->r[i] + rest_most < b->R_lo) {
		double need = ceil((b->R_lo - rate - rest_most) / m->r[i]);
		a = need > u[i] ? u[i] + 1 : (int)need;
		while (a > 1 && rate + (a - 1) * m->r[i] + rest_most >= b->R_lo)
			a--;   /* ceil's rounding */
		while (a <= u[i] && rate + a * m->r[i] + rest_most < b->R_lo)
			a++;
	}
	if (a > u[i])
		return -1;
	double thr = b->have ? b->best_val - b->tol : HUGE_VAL;
	int lo = a, hi = u[i];
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		b->nodes += 2;
		if (child_bound(b, i, u, G, rate, cnt, mid + 1) >=
		    child_bound(b, i, u, G, rate, cnt, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	int vmin = lo;
	b->nodes++;
	if (!(child_bound(b, i, u, G, rate, cnt, vmin) < thr))
		return -1;
	if (up) {
		/* decreasing on [a, vmin]: the least v under thr */
		lo = a;
		hi = vmin;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			b->nodes++;
			if (child_bound(b, i, u, G, rate, cnt, mid) < thr)
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
		if (child_bound(b, i, u, G, rate, cnt, mid) < thr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return u[i] - lo;
}

static void dfs(struct bb *b, int i, const int *G, double rate, long cnt)
{
	const struct capmilp *m = b->m;
	if (b->gave_up)
		return;
	if (++b->nodes > b->limit) {
		b->gave_up = 1;
		return;
	}
	int u[CAPMILP_MAX_VARS];
	double rate_max = rate;
	for (int j = i; j < m->n; j++) {
		long k = m->ub[j];
		k = HP_MIN(k, m->max_total - cnt - (m->n - i - 1));
		for (int q = 0; q < m->np; q++)
			if (m->g[j][q]) {
				long avail = (long)b->capg[q] - G[q] - (b->gmin[i][q] - m->g[j][q]);
				k = HP_MIN(k, avail / m->g[j][q]);
			}
		if (k < 1)
			return;
		u[j] = (int)k;
		rate_max += m->r[j] * k;
	}
	rate_max = fmin(rate_max, rate + card_ub(b, i, u, m->max_total - cnt));
	int Gmin[HP_MAX_POOLS];
	for (int q = 0; q < m->np; q++)
		Gmin[q] = G[q] + b->gmin[i][q];
	double whole = node_price(m, Gmin);
	if (m->kind == CAPMILP_DEADLINE) {
		double lb = fmax(whole - m->lambda * rate_max, sub_bound(b, i, u, G, rate, cnt, 1));
		if (!may_improve(b, lb))
			return;
	} else {
		if (whole / 3600 - m->lambda * rate_max > b->row_tol)
			return;
		if (!may_improve(b, sub_bound(b, i, u, G, rate, cnt, 1)))
			return;
	}
	if (i == m->n - 1) {
		last_count(b, i, u[i], G, rate);
		return;
	}
	/* the later counts' boxes with this one at 1 (the widest): the child
	 * bounds below hold for every v, and are convex / concave in v.
	 * Deadline counts whose net price d_i is >= 0 go up from the least
	 * that can meet the rate (cheap first), the others down. */
	int dl = m->kind == CAPMILP_DEADLINE, G2[HP_MAX_POOLS];
	double rest_most = 0, best_seen = 0;
	int seen = 0;
	for (int j = i + 1; j < m->n; j++)
		rest_most += m->r[j] * u[j];
	int up = dl && b->share[i] - m->lambda * m->r[i] >= 0, k0 = 0;
	if (dl && !b->card_binds) {
		k0 = first_candidate(b, i, u, G, rate, cnt, rest_most, up);
		if (k0 < 0)
			return;
	}
	for (int k = k0; k < u[i] && !b->gave_up; k++) {
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
		double bnd = sub_bound(b, i + 1, u, G2, rt, cnt + v, 0);
		if (!seen || (dl ? bnd < best_seen : bnd > best_seen))
			best_seen = bnd;
		seen = 1;
		if (!may_improve(b, bnd)) {
			/* the sub-level set of a convex bound is an interval:
			 * once a v before was inside it, none after can be */
			if (b->have && (dl ? best_seen < b->best_val - b->tol
					   : best_seen > b->best_val + b->tol))
				break;
			continue;
		}
		if (b->closed[i + 1] && !may_improve(b, sub_bound(b, i + 1, u, G2, rt, cnt + v, 1)))
			continue;
		b->cur[i] = v;
		dfs(b, i + 1, G2, rt, cnt + v);
	}
}

int capmilp_solve(const struct capmilp *m, int *counts, long *nodes)
{
	struct bb b;
	memset(&b, 0, sizeof b);
	b.m = m;
	b.limit = m->node_limit > 0 ? m->node_limit : 100000;
	double price_all = 0, rate_all = 0;
	for (int q = 0; q < m->np; q++) {
		b.capg[q] = m->gpn[q] * m->nodes[q];
		price_all += m->usd_node_h[q] * m->nodes[q];
	}
	for (int i = m->n - 1; i >= 0; i--) {
		for (int q = 0; q < m->np; q++)
			b.gmin[i][q] = b.gmin[i + 1][q] + m->g[i][q];
		b.share[i] = 0;
		for (int q = 0; q < m->np; q++)
			b.share[i] += m->usd_node_h[q] * m->g[i][q] / m->gpn[q];
		rate_all += m->r[i] * m->ub[i];
	}
	/* knapsack order: increasing d_j / r_j, ties by index (insertion) */
	for (int i = 0; i < m->n; i++) {
		double key = (b.share[i] - m->lambda * m->r[i]) / m->r[i];
		int k = i;
		while (k > 0) {
			int j = b.order[k - 1];
			if ((b.share[j] - m->lambda * m->r[j]) / m->r[j] <= key)
				break;
			b.order[k] = j;
			k--;
		}
		b.order[k] = i;
	}
	long ub_sum = 0;
	for (int i = 0; i < m->n; i++)
		ub_sum += m->ub[i];
	b.card_binds = ub_sum > m->max_total;
	for (int i = 0; i <= m->n; i++)
		for (int q = 0; q < m->np; q++)
			b.closed[i] |= b.gmin[i][q] == 0;
	for (int i = 0; i < m->n; i++) {
		int k = i;
		while (k > 0 && m->r[b.by_rate[k - 1]] < m->r[i]) {
			b.by_rate[k] = b.by_rate[k - 1];
			k--;
		}
		b.by_rate[k] = i;
	}
	if (m->kind == CAPMILP_DEADLINE) {
		b.tol = 1e-9 * (1 + price_all + m->lambda * rate_all);
		b.R_lo = m->R * (1 - 1e-9);
	} else {
		b.tol = 1e-9 * (1 + rate_all);
		b.row_tol = 1e-9 * (price_all / 3600 + m->lambda * rate_all);
	}
	int G0[HP_MAX_POOLS] = { 0 };
	dfs(&b, 0, G0, 0, 0);
	if (nodes)
		*nodes = b.nodes;
	if (b.gave_up)
		return -2;
	if (!b.have)
		return -1;
	memcpy(counts, b.best, (size_t)m->n * sizeof *counts);
	return 0;
}
