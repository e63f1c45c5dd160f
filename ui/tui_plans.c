/* tui_plans.c — the Plans, Detail and Compare views: what the planner said.
 *
 * All three read t->cur, the newest answer, which owns copies of the
 * cluster and model it was computed for (pool indices in its plans refer to
 * that cluster, not to the one being edited). Plans are named by id: >= 0
 * a ranked plan, <= -1 the best plan confined to pool -1-id. */
#include "common.h"
#include "plan_label.h"
#include "report.h"
#include "runs_on.h"
#include "sbuf.h"
#include "utf8.h"
#include "table.h"
#include "tui_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- formatting */

/* Dollars as table_usd writes them in every view, in w columns (0: any
 * width; the plan table's $/H and COST columns are 6 wide at 80 columns,
 * 8 from 120, so "$1043" there at 80 is "$1043.35" from 120); "?" when
 * unknown. */
static void fmt_usd(char *buf, size_t n, double usd, int known, int w)
{
	if (!known || usd <= 0 || !isfinite(usd))
		snprintf(buf, n, "?");
	else
		table_usd(buf, n, usd, w);
}

/* hp_fmt_duration (years from one year on), in at most 7
 * characters, the plan table's TIME column (a wider figure would lose its
 * unit there: "1250.3" for 1250.3 years): a figure of hp_fmt_duration's
 * that is wider ("119.99 s", "45.5 min") is rounded to a whole number of
 * its unit, and a run of 100 years or more to whole years. */
static char *fmt_dur(char *buf, size_t n, double s)
{
	const double year_s = 365 * 86400.0;
	if (s >= 99999.5 * year_s)
		snprintf(buf, n, "%.0e y", s / year_s);
	else if (s >= 99.95 * year_s)
		snprintf(buf, n, "%.0f y", s / year_s);
	else
		hp_fmt_duration(buf, n, s);
	char *sp = strchr(buf, ' ');
	if (strlen(buf) > 7 && sp) {
		char unit[16];
		hp_strlcpy(unit, sp + 1, sizeof unit);
		double v = strtod(buf, NULL);
		if (!strcmp(unit, "min") && v >= 99.5)
			snprintf(buf, n, "%.1f h", v / 60);
		else
			snprintf(buf, n, "%.0f %s", v, unit);
	}
	return buf;
}

/* Free memory on the fullest GPU, as a fraction of its capacity. */
static double headroom(const struct estimate *e)
{
	double h = 1;
	for (int i = 0; i < e->n_stages; i++) {
		const struct perf_stage *s = &e->stages[i];
		if (s->capacity > 0 && (s->capacity - s->total) / s->capacity < h)
			h = (s->capacity - s->total) / s->capacity;
	}
	return h;
}

/* ---- sorting */

enum sort_key { SK_RANK, SK_RATE, SK_MFU, SK_USD_H, SK_USD_TOK, SK_TIME, SK_COST, SK_FREE,
		SK_GPUS, SK_COUNT };
static const char *const sort_names[SK_COUNT] = {
	"rank", "tokens/s", "MFU", "$/h", "$/1M tok", "time", "cost", "headroom", "GPUs",
};

static const struct tui *sort_t;

static double sort_val(const struct search_plan *p, int k)
{
	switch (k) {
	case SK_RATE: return -p->est.tokens_per_s;
	case SK_MFU: return -p->est.mfu;
	case SK_USD_H: return p->est.price_known ? p->est.usd_per_hour : INFINITY;
	case SK_USD_TOK: return p->est.price_known ? p->est.usd_per_mtok : INFINITY;
	case SK_TIME: return p->time_to_train_s;
	case SK_COST: return p->cost_to_train_usd > 0 ? p->cost_to_train_usd : INFINITY;
	case SK_FREE: return -headroom(&p->est);
	case SK_GPUS: return p->est.n_gpus;
	default: return 0;
	}
}

static int by_key(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	const struct search_plan *p = &sort_t->cur->res.plans[i], *q = &sort_t->cur->res.plans[j];
	double x = sort_val(p, sort_t->sort), y = sort_val(q, sort_t->sort);
	int c = x < y ? -1 : x > y ? 1 : 0;
	if (sort_t->sort_rev)
		c = -c;
	return c ? c : i - j;   /* ties keep the planner's rank */
}

/* The plans the list shows: each distinct plan once (a repeat of an
 * earlier plan, equal in every setting and group, is dropped) and, while
 * a / filter is set, only those whose label contains it. */
void tui_plans_sort(struct tui *t)
{
	int total = t->cur && t->cur->rc == 0 ? t->cur->res.n_plans : 0;
	free(t->order);
	t->order = xcalloc((size_t)total + 1, sizeof *t->order);
	int n = 0;
	for (int i = 0; i < total; i++) {
		const struct search_plan *sp = &t->cur->res.plans[i];
		int dup = 0;
		for (int k = 0; k < n && !dup; k++)
			dup = plan_equal(&t->cur->res.plans[t->order[k]].plan, &sp->plan);
		if (dup || (*t->plans_filter && !tui_match(sp->label, t->plans_filter)))
			continue;
		t->order[n++] = i;
	}
	t->n_order = n;
	n = total;
	sort_t = t;
	if (t->n_order > 1)
		qsort(t->order, (size_t)t->n_order, sizeof *t->order, by_key);
	if (t->detail_id >= n)
		t->detail_id = n ? 0 : 0;
	for (int k = 0; k < 2; k++)
		if (t->cmp[k] >= n)
			t->cmp[k] = n > k ? k : 0;
	/* A list of one plan folds B onto A; once a later result brings a
	 * second plan, B moves off A again (a plan compared with itself says
	 * nothing; a slow machine showed "AB" on plan 1 after the planner's
	 * first one-plan result). */
	if (n > 1 && t->cmp[0] == t->cmp[1])
		t->cmp[1] = t->cmp[0] == 0 ? 1 : 0;
}

/* ---- Plans view */

static int single_pools(const struct tui *t, int *pools)
{
	int n = 0;
	if (!t->cur || t->cur->rc < 0)
		return 0;
	for (int i = 0; i < t->cur->c.n_pools; i++)
		if (t->cur->res.has_single[i] &&
		    (!*t->plans_filter || tui_match(t->cur->res.single[i].label, t->plans_filter)))
			pools[n++] = i;
	return n;
}

/* List row -> plan id. */
static int row_id(const struct tui *t, int row)
{
	if (row < t->n_order)
		return t->order[row];
	int pools[HP_MAX_POOLS];
	int n = single_pools(t, pools);
	row -= t->n_order;
	return row < n ? -1 - pools[row] : 0;
}

static int plans_rows(const struct tui *t)
{
	int pools[HP_MAX_POOLS];
	return t->n_order + single_pools(t, pools);
}

int tui_plans_selected(const struct tui *t)
{
	return plans_rows(t) ? row_id(t, t->lplans.sel) : t->detail_id;
}

/* ---- labels: plan_label.h's, unique in the list; the notes the help
 * screen shows for them. */

static const char *const label_notes[] = {
	"h100 tp4 pp2   replicas on pool h100: TP 4 inside a node, 2 stages",
	"a100>h100 pp3  one 3-stage pipeline from pool a100 into pool h100",
	"A + B          replica groups training side by side (data parallel)",
	"366/365 mb     one layout; its replicas run 366 and 365 micro-batches",
	"mbs2 rc-sel z1 what tells two plans of one layout apart: micro-batch,",
	"               recompute, ZeRO stage, vpp, CP, EP, precision, GPUs",
	"Narrow screens drop columns in this order: GPUS, FREE, $/H, MFU, COST,",
	"RUNS ON; a label that still does not fit keeps its start and the end",
	"that tells it from the others around an ellipsis.",
	"t              before a label: a pool of the plan is on a transport other",
	"               than ib (tcpxo, gcp-rdma...); Detail names it and its links",
};

const char *const *tui_plans_notes(int *n)
{
	*n = (int)HP_ARRAY_LEN(label_notes);
	return label_notes;
}

/* The label a list row shows for plan id: plan_label.h's list label
 * against the plans the list shows; a per-pool row's against the ranked
 * plans, as `hetplan plan`'s "Best plan on each pool alone" words it (its
 * base label alone read "h100 tp8 pp2" beside the same plan ranked
 * "h100 tp8 pp2 vpp2"). */
static void row_label(const struct tui *t, int id, int brief, char *buf, size_t n)
{
	const struct search_plan *sp = tui_plan_get(t, id);
	if (!sp) {
		snprintf(buf, n, "-");
		return;
	}
	if (id < 0)
		plan_list_label(sp, &t->cur->c, t->cur->res.plans, NULL, t->cur->res.n_plans, brief,
				buf, n);
	else
		plan_list_label(sp, &t->cur->c, t->cur->res.plans, t->order, t->n_order, brief, buf, n);
}

void plans_row_text(struct tui *t, int row, char *buf, size_t n)
{
	row_label(t, row_id(t, row), 0, buf, n);
}

struct col {
	const char *name;
	int w;
	int sort;
};

static const struct col plan_cols[] = {
	{ "GPUS", 4, SK_GPUS }, { "TOK/S", 6, SK_RATE }, { "MFU", 5, SK_MFU },
	{ "$/H", 6, SK_USD_H }, { "$/1M", 5, SK_USD_TOK }, { "TIME", 7, SK_TIME },
	{ "COST", 6, SK_COST }, { "FREE", 4, SK_FREE },
	/* stock frameworks that run the plan as one job (runs_on.h); no sort */
	{ "RUNS ON", 10, -1 },
};

/* The order in which columns give way to the label on a narrow screen
 * (indices into plan_cols); TOK/S, $/1M and TIME always stay, and what
 * runs the plan outlasts MFU and the cost to train (both follow from
 * TOK/S, $/1M and TIME). */
static const int col_drop_order[] = { 0, 7, 3, 2, 6, 8 };

/* Extra columns per number column on wide screens. */
static int col_pad(void)
{
	return COLS >= 120 ? 2 : 0;
}

static void plan_cells(const struct search_plan *sp, char cells[][24])
{
	const struct estimate *e = &sp->est;
	snprintf(cells[0], 24, "%d", e->n_gpus);
	hp_fmt_count(cells[1], 24, e->tokens_per_s);
	snprintf(cells[2], 24, "%.1f%%", 100 * e->mfu);
	fmt_usd(cells[3], 24, e->usd_per_hour, e->price_known, plan_cols[3].w + col_pad());
	/* $/1M in table_rate's words in its columns: "0.310", "12.35" in 5 */
	double um = e->usd_per_mtok;
	if (!e->price_known || !isfinite(um) || um < 0)
		snprintf(cells[4], 24, "?");
	else
		table_rate(cells[4], 24, um, plan_cols[4].w + col_pad());
	fmt_dur(cells[5], 24, sp->time_to_train_s);
	fmt_usd(cells[6], 24, sp->cost_to_train_usd, sp->cost_to_train_usd > 0,
		plan_cols[6].w + col_pad());
	snprintf(cells[7], 24, "%.0f%%", 100 * headroom(e));
	runs_on_short(sp->runs_on, cells[8], 24);
}


/* The flag column between the A/B marks and the label, a letter per row:
 * "t" when a pool the plan runs on is on a transport other than ib (tcpxo,
 * efa, gcp-rdma, which is RoCE too but has its own profile, ...;
 * plan_transport_text), so its collectives are priced on that transport. The column is there only
 * while a plan of the list has the flag: one cell and its space, taken
 * from the label. Which transport, and the links, the Detail view says. */
#define NET_FLAG_W 2

static int plan_off_ib(const struct cluster *c, const struct search_plan *sp)
{
	return plan_transport_text(c, &sp->plan, NULL, 0) > 0;
}

/* Which columns show (bit c for plan_cols[c]) and how wide the label is:
 * columns give way in col_drop_order until the widest label fits or only
 * the three kept ones are left. */
static unsigned plan_layout(char (*labels)[PLAN_LABEL_MAX], int n_rows, int net, int *lw)
{
	int want = 12;
	for (int row = 0; row < n_rows; row++)
		want = HP_MAX(want, tui_width(labels[row]));
	/* Past about 45% of the screen a label is cut between words rather
	 * than costing more columns. */
	want = HP_MIN(want, COLS * 45 / 100);
	unsigned shown = (1u << HP_ARRAY_LEN(plan_cols)) - 1;
	for (size_t d = 0;; d++) {
		int fixed = 4 + 1 + 3 + 1 + (net ? NET_FLAG_W : 0);
		for (size_t c = 0; c < HP_ARRAY_LEN(plan_cols); c++)
			if (shown & (1u << c))
				fixed += plan_cols[c].w + col_pad() + 1;
		/* The room left, not the 12-column floor, decides: with short
		 * labels the floor kept every column at 80 columns and cut
		 * RUNS ON ("mco" for mcore). */
		int room = COLS - fixed - 1;
		*lw = HP_MAX(12, room);
		if (room >= want || d >= HP_ARRAY_LEN(col_drop_order))
			return shown;
		shown &= ~(1u << col_drop_order[d]);
	}
}

/* ---- labels too wide for their column: elided in the middle, so that
 * two labels that differ still read differently.
 *
 * A label is a row of tokens (its words, or for a column too narrow for
 * whole words its characters). A cut label shows its first a tokens, an
 * ellipsis and its last b tokens ("h100 tp2 pp4 + ... l40s tp4 46/44 mb";
 * b = 0: "h100 tp2 pp4..."). Two cut labels read the same only with the
 * same a and b and the same tokens there, and a cut label never reads as
 * a whole one (the ellipsis); so a and b are chosen for each label alone:
 * against every other label M of the list, its first a tokens or its last
 * b differ from M's (or run past M's length). Of the (a, b) that do and
 * fit, the one that shows the most tokens (the shorter tail on a tie):
 * the head names the first pools, the tail the micro-batch counts and the
 * settings (vpp2, z1, ...) that tell plans of one layout apart.
 * Blind cuts at the end read two plans of three pools as one at 80
 * columns. */

#define LABEL_TOKENS PLAN_LABEL_MAX

struct tokens {
	int n;
	int off[LABEL_TOKENS], len[LABEL_TOKENS];
};

/* s split into words (chars = 0) or UTF-8 characters (chars = 1). */
static void tokenize(const char *s, int chars, struct tokens *tk)
{
	tk->n = 0;
	for (int i = 0; s[i] && tk->n < LABEL_TOKENS;) {
		if (!chars && s[i] == ' ') {
			i++;
			continue;
		}
		int j = i + 1;
		if (chars)
			while (((unsigned char)s[j] & 0xC0) == 0x80)
				j++;
		else
			while (s[j] && s[j] != ' ')
				j++;
		tk->off[tk->n] = i;
		tk->len[tk->n++] = j - i;
		i = j;
	}
}

static int tok_eq(const char *s, const struct tokens *a, int i, const char *m,
		  const struct tokens *b, int j)
{
	return a->len[i] == b->len[j] && !memcmp(s + a->off[i], m + b->off[j], (size_t)a->len[i]);
}

/* The first a tokens of s (tokens tk), the ellipsis, the last b, into out:
 * words joined by spaces, the ellipsis set off by spaces before a tail. */
static void elide(const char *s, const struct tokens *tk, int chars, int a, int b,
		  const char *mid, char *out, size_t n)
{
	struct sbuf o;
	sbuf_init(&o);
	for (int i = 0; i < a + b; i++) {
		int k = i < a ? i : tk->n - (a + b) + i;
		if (i == a)
			sbuf_addf(&o, chars ? "%s" : " %s ", mid);
		else if (i > 0 && !chars)
			sbuf_addf(&o, " ");
		sbuf_addf(&o, "%.*s", tk->len[k], s + tk->off[k]);
	}
	if (b == 0)
		sbuf_addf(&o, "%s", mid);
	snprintf(out, n, "%s", o.s ? o.s : "");
	sbuf_done(&o);
}

/* labels[i] (n labels) in w columns: whole when it fits, else elided as
 * above, into out (outn bytes); mid is the ellipsis glyph (1 column). */
void tui_fit_label(char (*labels)[PLAN_LABEL_MAX], int n, int i, int w, const char *mid,
		   char *out, size_t outn)
{
	const char *s = labels[i];
	if (tui_width(s) <= w) {
		snprintf(out, outn, "%s", s);
		return;
	}
	static struct tokens tk, tm;
	for (int chars = 0; chars < 2; chars++) {
		tokenize(s, chars, &tk);
		/* need[b] = the head length every other label needs when the
		 * tail is b tokens long */
		static int need[LABEL_TOKENS + 1];
		for (int b = 0; b <= tk.n; b++)
			need[b] = 1;
		for (int j = 0; j < n; j++) {
			if (j == i || !strcmp(labels[j], s))
				continue;
			tokenize(labels[j], chars, &tm);
			int h = 0, t = 0;
			while (h < tk.n && h < tm.n && tok_eq(s, &tk, h, labels[j], &tm, h))
				h++;
			while (t < tk.n && t < tm.n &&
			       tok_eq(s, &tk, tk.n - 1 - t, labels[j], &tm, tm.n - 1 - t))
				t++;
			int head = HP_MIN(h + 1, tm.n), tail = HP_MIN(t + 1, tm.n);
			for (int b = 0; b < tail && b <= tk.n; b++)
				need[b] = HP_MAX(need[b], head);
		}
		char buf[PLAN_LABEL_MAX * 2];
		int best_a = 0, best_b = 0;
		for (int b = 0; b < tk.n; b++) {
			/* a word cut keeps no "+" at either side of the ellipsis */
			if (!chars && b > 0 && tk.len[tk.n - b] == 1 && s[tk.off[tk.n - b]] == '+')
				continue;
			for (int a = need[b]; a + b < tk.n; a++) {
				if (!chars && tk.len[a - 1] == 1 && s[tk.off[a - 1]] == '+')
					continue;
				elide(s, &tk, chars, a, b, mid, buf, sizeof buf);
				if (tui_width(buf) > w)
					break;
				if (a + b > best_a + best_b)
					best_a = a, best_b = b;
			}
		}
		if (best_a > 0) {
			elide(s, &tk, chars, best_a, best_b, mid, out, outn);
			return;
		}
	}
	/* narrower than its head and an ellipsis: the start */
	snprintf(out, outn, "%.*s", (int)utf8_cut_cols(s, w), s);
}

/* A "+" list (RUNS ON: "mcore+ds+titan") right-aligned in w columns; one
 * too long keeps the names that fit and ends in "+" and an ellipsis, never
 * a name cut short ("mcore+ds+t" read as another framework). */
static void put_list(const struct tui *t, int y, int x, int w, int attr, const char *s)
{
	if (tui_width(s) <= w) {
		tui_putr(y, x, w, attr, s);
		return;
	}
	char buf[64];
	hp_strlcpy(buf, s, sizeof buf);
	int cut = HP_MIN(w - 1, (int)strlen(buf));
	while (cut > 0 && buf[cut - 1] != '+')
		cut--;
	buf[cut] = 0;
	char shown[96];
	snprintf(shown, sizeof shown, "%s%s", buf, tui_glyph(t, G_MID));
	tui_putr(y, x, w, attr, shown);
}

static void plan_row(struct tui *t, int y, int id, int rank, const struct search_plan *sp,
		     int sel, int lw, unsigned shown, int net, const char *label)
{
	int a = sel ? tui_attr(t, C_SEL) : 0;
	if (sel)
		tui_fill(y, 0, COLS, a);
	int x = 0;
	if (rank > 0)
		tui_putf(y, x, 3, a, "%3d", rank);
	x += 4;
	if (sp->pareto)
		tui_put(y, x, 1, sel ? a : tui_attr(t, C_PARETO), tui_glyph(t, G_PARETO));
	x += 1;
	char mark[4] = "  ";
	if (id == t->cmp[0])
		mark[0] = 'A';
	if (id == t->cmp[1])
		mark[1] = 'B';
	tui_put(y, x, 2, sel ? a : tui_attr(t, C_DIM), mark);
	x += 3;
	if (net) {
		if (plan_off_ib(&t->cur->c, sp))
			tui_put(y, x, 1, sel ? a : tui_attr(t, C_WARN), "t");
		x += NET_FLAG_W;
	}
	tui_put(y, x, lw, a, label);
	x += lw + 1;
	char cells[HP_ARRAY_LEN(plan_cols)][24];
	plan_cells(sp, cells);
	for (size_t c = 0; c < HP_ARRAY_LEN(plan_cols); c++) {
		if (!(shown & (1u << c)))
			continue;
		int ca = a;
		if (!sel && c == 7)
			ca = headroom(&sp->est) < 0.05 ? tui_attr(t, C_WARN) : 0;
		if (c == 8)
			put_list(t, y, x, plan_cols[c].w + col_pad(), ca, cells[c]);
		else
			tui_putr(y, x, plan_cols[c].w + col_pad(), ca, cells[c]);
		x += plan_cols[c].w + col_pad() + 1;
	}
}

/* The list is filtered by the / search text (Esc in the prompt, or an
 * empty search, clears it); typing narrows it as it goes. */
static void plans_follow_filter(struct tui *t)
{
	if (strcmp(t->search, t->plans_filter)) {
		hp_strlcpy(t->plans_filter, t->search, sizeof t->plans_filter);
		tui_plans_sort(t);
		t->lplans.sel = t->lplans.top = 0;
	}
}

/* What the plans on screen are while the planner works (tui_job.c):
 * the best so far of the edit's first pass, or the answer to an older
 * edit, into buf (n bytes). Returns 0 with "" for a finished answer to the
 * newest edit, else 1. */
static int plans_state(const struct tui *t, char *buf, size_t n)
{
	const struct tui_result *r = t->cur;
	double pf = 0, el = 0;
	int busy = t->pl && planner_busy(t->pl, &pf, &el);
	int pct = (int)(100 * HP_MAX(0.0, HP_MIN(1.0, pf)));
	*buf = 0;
	if (r->gen != t->gen && busy)
		snprintf(buf, n, "previous plans (stale) - planning the edit (%d%%), Esc stops", pct);
	else if (r->gen != t->gen)
		snprintf(buf, n, "previous plans (stale): planning was stopped; R plans again");
	else if (r->partial && busy)
		snprintf(buf, n, "best so far (in %.0f ms) - refining (%d%%), Esc keeps these",
			 r->ready_s * 1e3, pct);
	else if (r->partial)
		snprintf(buf, n, "best so far: refining was stopped; R plans again");
	return *buf != 0;
}

void view_plans_draw(struct tui *t, int y0, int h)
{
	const struct tui_result *r = t->cur;
	if (!r) {
		tui_put(y0 + 1, 2, COLS - 4, tui_attr(t, C_DIM), "planning...");
		return;
	}
	plans_follow_filter(t);
	int pools[HP_MAX_POOLS];
	int ns = single_pools(t, pools);
	int n = t->n_order + ns;
	int lw;
	/* every row's label, each cut against all the others */
	char (*labels)[PLAN_LABEL_MAX] = xcalloc((size_t)n + 1, sizeof *labels);
	for (int row = 0; row < n; row++)
		row_label(t, row_id(t, row), COLS < 120, labels[row], sizeof labels[row]);
	int net = 0;
	for (int row = 0; row < n && !net; row++) {
		const struct search_plan *sp = tui_plan_get(t, row_id(t, row));
		net = sp && plan_off_ib(&r->c, sp);
	}
	unsigned shown = plan_layout(labels, n, net, &lw);
	/* Column header with the sort marker. */
	int x = 0;
	int ha = tui_attr(t, C_TITLE);
	tui_put(y0, x, 3, t->sort == SK_RANK ? ha | (int)A_UNDERLINE : ha, "  #");
	x += 8;
	if (net) {
		tui_put(y0, x, 1, ha, "t");
		x += NET_FLAG_W;
	}
	tui_put(y0, x, lw, ha, "PLAN");
	x += lw + 1;
	for (size_t c = 0; c < HP_ARRAY_LEN(plan_cols); c++) {
		if (!(shown & (1u << c)))
			continue;
		char name[16];
		int on = plan_cols[c].sort == t->sort;
		snprintf(name, sizeof name, "%s%s", on ? tui_glyph(t, t->sort_rev ? G_UP : G_DOWN) : "",
			 plan_cols[c].name);
		tui_putr(y0, x, plan_cols[c].w + col_pad(), on ? ha | (int)A_UNDERLINE : ha, name);
		x += plan_cols[c].w + col_pad() + 1;
	}
	char state[128];
	int marked = plans_state(t, state, sizeof state);
	int state_a = tui_attr(t, C_WARN) | (int)A_BOLD;
	if (r->rc < 0) {
		if (marked)
			tui_put(y0 + h - 2, 1, COLS - 2, state_a, state);
		/* The planner's message starts with "no plan ..." itself; the
		 * heading only when it does not. */
		int y = y0 + 2;
		if (strncasecmp(r->err.msg, "no plan", 7))
			tui_put(y++, 2, COLS - 4, tui_attr(t, C_BAD), "No plan:");
		y += tui_put_wrapped(y, 2, COLS - 4, 4, tui_attr(t, C_BAD), r->err.msg);
		if (*r->res.why && strcmp(r->res.why, r->err.msg))   /* often the same text */
			y += tui_put_wrapped(y, 4, COLS - 6, 3, 0, r->res.why);
		if (r->res.has_nearest) {
			char lab[96];
			snprintf(lab, sizeof lab, "nearest miss: %.*s", UTF8_CUT(r->res.nearest.label, 80));
			tui_put(y++, 4, COLS - 6, tui_attr(t, C_WARN), lab);
		}
		/* what would make a plan fit: `hetplan plan`'s lines (advice.h) */
		for (int i = 0; i < r->advice.n && y < y0 + h - 2; i++)
			y += tui_put_wrapped(y + (i == 0), 4, COLS - 6, 3, 0, r->advice.line[i]) +
			     (i == 0);
		free(labels);
		return;
	}
	/* Ranked rows, then a heading and the single-pool rows, in one list;
	 * two legend lines at the bottom. */
	int extra = ns ? 1 : 0;
	int list_h = h - 1 - extra - 2;
	tui_list_fix(&t->lplans, n, list_h);
	int y = y0 + 1;
	if (!n && *t->plans_filter)
		tui_putf(y, 2, COLS - 4, tui_attr(t, C_BAD),
			 "no match for '%s' among %d plans; / then Enter on an empty line shows all",
			 t->plans_filter, r->res.n_plans);
	for (int row = t->lplans.top; row < n && y < y0 + 1 + list_h + extra; row++) {
		if (row == t->n_order && ns) {
			tui_section(t, y++, 0, COLS, "Best plan on one pool, for comparison");
			if (y >= y0 + 1 + list_h + extra)
				break;
		}
		int id = row_id(t, row);
		const struct search_plan *sp = tui_plan_get(t, id);
		if (sp) {
			char cut[PLAN_LABEL_MAX];
			tui_fit_label(labels, n, row, lw, tui_glyph(t, G_MID), cut, sizeof cut);
			plan_row(t, y, id, id >= 0 ? id + 1 : 0, sp, row == t->lplans.sel, lw, shown, net,
				 cut);
		}
		y++;
	}
	free(labels);
	t->mouse_list = t->lplans.top < t->n_order ? &t->lplans : NULL;
	t->mouse_y0 = y0 + 1;
	t->mouse_rows = HP_MIN(list_h, t->n_order - t->lplans.top);
	/* The notation reminder gives way to the plans' state while the
	 * planner works: these rows are not yet the answer to the last edit. */
	if (marked)
		tui_put(y0 + h - 2, 1, COLS - 2, state_a, state);
	else if (net)
		tui_put(y0 + h - 2, 1, COLS - 2, tui_attr(t, C_DIM),
			"t: a pool on a transport other than ib; Detail names it and its links  ? more");
	else
		tui_put(y0 + h - 2, 1, COLS - 2, tui_attr(t, C_DIM),
			"tp4 pp2: TP 4, 2 stages  a>b pp3: pipeline a into b  + side by side  ? more");
	const struct search_stats *st = &r->res.stats;
	char leg[200], what[96];
	if (*t->plans_filter)
		snprintf(what, sizeof what, "filter '%.*s': %d shown", UTF8_CUT(t->plans_filter, 20), t->n_order);
	else
		snprintf(what, sizeof what, "%ld candidates", st->candidates);
	snprintf(leg, sizeof leg, "%s Pareto (time, cost)  %ssorted by %s%s  %s%s%s",
		 tui_glyph(t, G_PARETO), *t->plans_filter ? "" : "A/B compare marks  ",
		 sort_names[t->sort], t->sort_rev ? ", reversed" : "",
		 what, COLS >= 120 ? ", objective " : "",
		 COLS >= 120 ? search_objective_name(r->o.objective) : "");
	tui_put(y0 + h - 1, 1, COLS - 2, tui_attr(t, *t->plans_filter ? C_WARN : C_DIM), leg);
}

int view_plans_key(struct tui *t, int action, int ch)
{
	int n = plans_rows(t);
	int h = tui_view_rows() - 4;
	if (action == ACT_NONE) {
		tui_list_fix(&t->lplans, n, h);
		return R_DRAW;
	}
	if (tui_list_move(&t->lplans, action, n, h))
		return R_DRAW;
	int id = n ? row_id(t, t->lplans.sel) : 0;
	switch (action) {
	case ACT_ENTER:
		if (!n)
			return R_NONE;
		t->detail_id = id;
		t->ldetail.top = 0;
		t->view = TV_DETAIL;
		return R_DRAW;
	case ACT_SORT:
		t->sort = (t->sort + 1) % SK_COUNT;
		tui_plans_sort(t);
		return R_DRAW;
	case ACT_SORT_REV:
		t->sort_rev = !t->sort_rev;
		tui_plans_sort(t);
		return R_DRAW;
	case ACT_SEARCH:
		tui_start_prompt(t, P_SEARCH, "Find plan:", t->search);
		return R_DRAW;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		tui_search(t, action == ACT_SEARCH_NEXT ? 1 : -1);
		return R_DRAW;
	case ACT_MARK_A:
	case ACT_MARK_B:
		if (n)
			t->cmp[action == ACT_MARK_B] = id;
		return R_DRAW;
	case ACT_COMPARE:
		if (!n)
			return R_NONE;
		t->cmp[0] = id == 0 && t->n_order > 1 ? 1 : 0;
		t->cmp[1] = id;
		if (t->cmp[0] == 1 && id == 0) {
			t->cmp[0] = 0;
			t->cmp[1] = 1;
		}
		t->view = TV_COMPARE;
		return R_DRAW;
	}
	return R_NONE;
}

/* ---- Detail view: a scrolled canvas of sections */

struct canvas {
	int y0, h, top, row;
};

static int cv_y(const struct canvas *cv)
{
	int r = cv->row - cv->top;
	return r >= 0 && r < cv->h ? cv->y0 + r : -1;
}

/* The terminal's segment palette, by a time part's slot (report_part.seg;
 * the parts themselves, their order and labels are report_time_parts'). */
static const struct {
	enum tui_color color;
	enum tui_glyph glyph;
} seg_palette[11] = {
	{ C_SEG0, G_SEG0 }, { C_SEG4, G_SEG1 }, { C_SEG1, G_SEG2 }, { C_SEG2, G_SEG3 },
	{ C_SEG3, G_SEG4 }, { C_SEG7, G_SEG5 }, { C_SEG6, G_SEG6 }, { C_SEG5, G_SEG7 },
	{ C_SEG8, G_SEG8 }, { C_SEG9, G_SEG9 }, { C_SEG10, G_SEG10 },
};

enum { SEG_MAX = 16 };

/* The step's parts, report_time_parts' order: their values, and the
 * count (at most SEG_MAX). */
static int seg_values(const struct perf_breakdown *b, double v[SEG_MAX],
		      const struct report_part **parts)
{
	int n;
	*parts = report_time_parts(&n);
	if (n > SEG_MAX)
		n = SEG_MAX;
	for (int i = 0; i < n; i++)
		v[i] = report_part_value(&(*parts)[i], b);
	return n;
}

static void seg_put(const struct tui *t, int y, int x, const struct report_part *part)
{
	int slot = part->seg >= 0 && part->seg < (int)HP_ARRAY_LEN(seg_palette) ? part->seg : 9;
	tui_put(y, x, 1, tui_attr(t, seg_palette[slot].color), tui_glyph(t, seg_palette[slot].glyph));
}

/* A stacked bar of the step time; columns rounded so the parts add up. */
static void step_bar(const struct tui *t, int y, int x, int w, const struct perf_breakdown *b)
{
	double v[SEG_MAX], sum = 0, acc = 0;
	const struct report_part *parts;
	int n = seg_values(b, v, &parts);
	for (int i = 0; i < n; i++)
		sum += v[i];
	if (sum <= 0 || y < 0)
		return;
	int col = 0;
	for (int i = 0; i < n; i++) {
		acc += v[i];
		int end = (int)(acc / sum * w + 0.5);
		for (; col < end; col++)
			seg_put(t, y, x + col, &parts[i]);
	}
}

/* name in at most w columns without cutting a word in half: whole, or
 * its first and last '-' parts around an ellipsis ("A100-SXM4-80GB" ->
 * "A100…80GB", so the 40 and 80 GB parts stay apart), or its first part
 * and an ellipsis. */
static void fit_name(const struct tui *t, const char *name, int w, char *buf, size_t n)
{
	const char *mid = tui_glyph(t, G_MID);
	int len = (int)strlen(name);
	const char *dash = strchr(name, '-'), *last = strrchr(name, '-');
	if (len <= w || !dash) {
		snprintf(buf, n, "%.*s", len <= w ? len : w, name);
		return;
	}
	int first = (int)(dash - name), tail = (int)strlen(last + 1);
	if (first + 1 + tail <= w && tail > 0)
		snprintf(buf, n, "%.*s%s%s", first, name, mid, last + 1);
	else if (first + 1 <= w)
		snprintf(buf, n, "%.*s%s", first, name, mid);
	else
		snprintf(buf, n, "%.*s", w, name);
}

/* The Detail's pool names: the labels' short names (plan_label.h; a blind
 * cut at 8 columns read "a100-sxm" for both A100 pools); returns the
 * widest, in columns, 8 at least (the columns' old width). */
static int detail_pool_names(const struct cluster *c, char (*names)[PLAN_POOL_NAME_MAX])
{
	plan_pool_names(c, names);
	int nw = 8;
	for (int i = 0; i < c->n_pools; i++)
		nw = HP_MAX(nw, utf8_cols(names[i]));
	return nw;
}

static void draw_layout(struct tui *t, struct canvas *cv, const struct search_plan *sp,
			const struct cluster *c, int w)
{
	const struct plan *p = &sp->plan;
	char names[HP_MAX_POOLS][PLAN_POOL_NAME_MAX];
	/* the pool row is "NAME 12 nodes" inside "| " and " |" */
	int cell = HP_MAX(20, detail_pool_names(c, names) + 12), gap = 3;
	int per_row = HP_MAX(1, (w - 4 + gap) / (cell + gap));
	for (int g = 0; g < p->n_replicas; g++) {
		const struct replica *rep = &p->replicas[g];
		int y = cv_y(cv);
		/* numbered from 0, as the JSON (replica_group, breakdown_group)
		 * and the HTML and launch reports number them */
		tui_putf(y, 2, w - 4, A_BOLD, "Replica group %d: %d replica%s x %d stage%s, %.1f%% of the batch%s",
			 g, rep->count, rep->count == 1 ? "" : "s", rep->n_stages,
			 rep->n_stages == 1 ? "" : "s", 100 * rep->batch_share,
			 rep->count == 1 ? "" : " each");
		cv->row++;
		for (int s0 = 0; s0 < rep->n_stages; s0 += per_row) {
			int n = HP_MIN(per_row, rep->n_stages - s0);
			for (int line = 0; line < 5; line++, cv->row++) {
				y = cv_y(cv);
				if (y < 0)
					continue;
				for (int k = 0; k < n; k++) {
					const struct stage *st = &rep->stages[s0 + k];
					const struct pool *pl = &c->pools[st->pool];
					int x = 4 + k * (cell + gap);
					int ba = tui_attr(t, (enum tui_color)(C_SEG0 + st->pool % 4));
					if (line == 0 || line == 4) {
						tui_put(y, x, 1, ba, tui_glyph(t, line ? G_BL : G_TL));
						for (int i = 1; i < cell - 1; i++)
							tui_put(y, x + i, 1, ba, tui_glyph(t, G_HLINE));
						tui_put(y, x + cell - 1, 1, ba, tui_glyph(t, line ? G_BR : G_TR));
						continue;
					}
					tui_put(y, x, 1, ba, tui_glyph(t, G_VLINE));
					tui_put(y, x + cell - 1, 1, ba, tui_glyph(t, G_VLINE));
					int gpus = st->tp * (p->cp > 0 ? p->cp : 1);
					int nodes = (gpus + pl->gpus_per_node - 1) / pl->gpus_per_node;
					char txt[64];
					if (line == 1) {
						char gn[40];
						fit_name(t, pl->gpu.name, 9, gn, sizeof gn);
						snprintf(txt, sizeof txt, "S%d %s TP%d", s0 + k, gn, st->tp);
					}
					else if (line == 2)
						snprintf(txt, sizeof txt, "layers %d-%d", st->first_layer,
							 st->last_layer);
					else if (gpus < pl->gpus_per_node)
						snprintf(txt, sizeof txt, "%s %d GPU%s", names[st->pool], gpus,
							 gpus == 1 ? "" : "s");
					else
						snprintf(txt, sizeof txt, "%s %d node%s", names[st->pool], nodes,
							 nodes == 1 ? "" : "s");
					tui_put(y, x + 2, cell - 3, line == 1 ? A_BOLD : 0, txt);
					if (line == 2 && k + 1 < n)
						tui_put(y, x + cell + 1, 1, tui_attr(t, C_DIM), tui_glyph(t, G_ARROW));
				}
			}
		}
	}
}

static void draw_memory(struct tui *t, struct canvas *cv, const struct estimate *e,
			const struct cluster *c, int w)
{
	int np;
	const struct report_part *parts = report_mem_parts(&np);
	if (np > SEG_MAX)
		np = SEG_MAX;
	int y = cv_y(cv);
	int x = 2;
	for (int i = 0; i < np; i++) {
		seg_put(t, y, x, &parts[i]);
		x += 2 + tui_put(y, x + 2, w - x - 2, 0, parts[i].tui) + 1;
	}
	tui_put(y, x, w - x, tui_attr(t, C_DIM), "| capacity");
	cv->row++;
	char names[HP_MAX_POOLS][PLAN_POOL_NAME_MAX];
	int nw = detail_pool_names(c, names), lw = 12 + nw;   /* "G0 S0  " NAME " TP8" */
	/* FREE: capacity less the total, the report's headroom column */
	int bw = HP_MAX(10, w - 62 - (nw - 8));
	/* the columns' own header, as the communication table has one, each
	 * word over its values: STAGE over "G0 S0" (group and stage), POOL
	 * over the name, TP over "TP8" (it read "GROUP STAGE POOL TP" with
	 * POOL over the stage and TP over the name) */
	char who[PLAN_POOL_NAME_MAX + 32];
	snprintf(who, sizeof who, "STAGE  %-*s TP", nw, "POOL");
	y = cv_y(cv);
	tui_putf(y, 2, w - 2, tui_attr(t, C_TITLE), "%-*s %-*s %9s / %-9s %4s %9s", lw,
		 who, bw + 1, "MEMORY", "USED", "CAPACITY", "USE", "FREE");
	cv->row++;
	for (int i = 0; i < e->n_stages; i++, cv->row++) {
		const struct perf_stage *s = &e->stages[i];
		y = cv_y(cv);
		if (y < 0)
			continue;
		char pn[PLAN_POOL_NAME_MAX + 8];
		utf8_cell(pn, sizeof pn, names[s->pool], nw);
		tui_putf(y, 2, lw, 0, "G%d S%-2d %s TP%d", s->group, s->index, pn, s->tp);
		int bx = 3 + lw;
		double scale = s->capacity > 0 ? bw / s->capacity : 0, acc = 0;
		int col = 0;
		for (int k = 0; k < np; k++) {
			acc += report_part_value(&parts[k], s);
			int end = HP_MIN(bw, (int)(acc * scale + 0.5));
			for (; col < end; col++)
				seg_put(t, y, bx + col, &parts[k]);
		}
		for (; col < bw; col++)
			tui_put(y, bx + col, 1, tui_attr(t, C_DIM), tui_glyph(t, G_BAR_EMPTY));
		tui_put(y, bx + bw, 1, tui_attr(t, s->fits ? C_DIM : C_BAD), tui_glyph(t, G_VLINE));
		char a[16], b[16], f[16];
		hp_fmt_bytes(a, sizeof a, s->total);
		hp_fmt_bytes(b, sizeof b, s->capacity);
		if (s->capacity >= s->total)
			hp_fmt_bytes(f, sizeof f, s->capacity - s->total);
		else
			snprintf(f, sizeof f, "none");
		tui_putf(y, bx + 2 + bw, w - bx - 2 - bw, s->fits ? 0 : tui_attr(t, C_BAD),
			 "%9s / %-9s %3.0f%% %9s", a, b, s->capacity > 0 ? 100 * s->total / s->capacity : 0, f);
	}
}

/* The rows of report_comm_rows, as the reports and `hetplan estimate`
 * list them: one per dimension, the dp row's "+ allgather" under it
 * (ZeRO-1/2), the WAN pipeline hand-off after the pp row; on narrow
 * screens the links go on a second row. The link is the one the
 * collective is costed on (perf_link_names): 36 columns hold "NVSwitch +
 * 4x200G NIC (bottleneck)" of a group across pools, and the wide row is
 * then 115 columns. Under the table, a dim note for each gather or WAN
 * row (report_comm_note), wrapped. */
static void cv_wrapped(struct canvas *cv, int x, int w, int attr, const char *s);

static void draw_comm(struct tui *t, struct canvas *cv, const struct estimate *e, int w)
{
	int wide = w >= 120;
	int y = cv_y(cv);
	if (wide)
		tui_putf(y, 2, w - 4, tui_attr(t, C_TITLE),
			 "%-3s %-13s %9s %5s  %-36s %-9s %-6s %9s %9s %6s", "DIM", "COLLECTIVE",
			 "BYTES", "GROUP", "LINK COSTED ON", "ALGORITHM", "PROTO", "TIME", "EXPOSED",
			 "CALLS");
	else
		tui_putf(y, 2, w - 4, tui_attr(t, C_TITLE), "%-3s %-13s %9s %5s  %-9s %9s %9s",
			 "DIM", "COLLECTIVE", "BYTES", "GROUP", "ALGORITHM", "TIME", "EXPOSED");
	cv->row++;
	struct report_comm_row rows[REPORT_COMM_ROWS_MAX];
	int n = report_comm_rows(e, rows);
	for (int i = 0; i < n; i++) {
		const struct report_comm_row *r = &rows[i];
		char b[16], t1[16], t2[16], calls[16];
		hp_fmt_bytes(b, sizeof b, r->bytes);
		hp_fmt_duration(t1, sizeof t1, r->time_s);
		hp_fmt_duration(t2, sizeof t2, r->exposed_s);
		hp_fmt_count(calls, sizeof calls, r->calls);
		y = cv_y(cv);
		if (wide) {
			tui_putf(y, 2, w - 4, 0,
				 "%-3s %-13s %9s %5d  %-36.36s %-9s %-6s %9s %9s %6s", r->dim, r->coll,
				 b, r->pc->group, r->pc->link, comm_algo_name(r->algo),
				 comm_proto_name(r->proto), t1, t2, calls);
		} else {
			tui_putf(y, 2, w - 4, 0, "%-3s %-13s %9s %5d  %-9s %9s %9s", r->dim, r->coll,
				 b, r->pc->group, comm_algo_name(r->algo), t1, t2);
			cv->row++;
			tui_putf(cv_y(cv), 6, w - 8, tui_attr(t, C_DIM), "over %s, %s protocol, %s call%s",
				 r->pc->link, comm_proto_name(r->proto), calls, r->calls < 1.5 ? "" : "s");
		}
		cv->row++;
	}
	if (!n) {
		tui_put(cv_y(cv), 2, w - 4, tui_attr(t, C_DIM), "no communication on the critical path");
		cv->row++;
	}
	char note[320];
	for (int i = 0; i < n; i++)
		if (rows[i].kind != REPORT_COMM_DIM)
			cv_wrapped(cv, 2, w - 4, tui_attr(t, C_DIM),
				   report_comm_note(e, rows[i].kind, note, sizeof note));
}

/* s over as many rows of w columns as it takes, broken at spaces (a
 * word wider than w is cut on a character); rows scrolled out of the
 * canvas are counted, not drawn. */
static void cv_wrapped(struct canvas *cv, int x, int w, int attr, const char *s)
{
	while (*s && w > 0) {
		size_t cut = utf8_cut_cols(s, w);
		if (s[cut]) {
			size_t sp = cut;
			while (sp > 0 && s[sp] != ' ')
				sp--;
			if (sp > 0)
				cut = sp;
		}
		if (!cut)
			break;
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)HP_MIN(cut, sizeof line - 1), s);
		tui_put(cv_y(cv), x, w, attr, line);
		cv->row++;
		s += cut;
		while (*s == ' ')
			s++;
	}
}

/* Under the layout: the links each dimension's groups cross and the
 * pools off InfiniBand with their transport, in plan's words
 * (plan_links_text, ui/common.c), a line each, wrapped at spaces. */
static void detail_links(struct canvas *cv, const struct cluster *c, const struct model_spec *m,
			 const struct plan *p, int w)
{
	struct plan_links pl;
	plan_links_text(c, m, p, &pl);
	for (int i = 0; i < pl.n; i++)
		cv_wrapped(cv, 2, w - 4, 0, pl.line[i]);
}

/* What runs the plan and how its memory stands, as `plan` and the report
 * say it: the stock frameworks that run it as one job (or why none does,
 * runs_on_why), the framework it is estimated under when one was chosen,
 * and the fullest stage against its GPU and the memory headroom kept. */
static void detail_runs_memory(struct tui *t, struct canvas *cv, const struct search_plan *sp,
			       double headroom, int w)
{
	char line[640], ro[96];
	enum hp_framework fw = sp->plan.framework;
	char under[64] = "";
	if (fw != FW_ANY)
		snprintf(under, sizeof under, "; estimated under %s", framework_name(fw));
	if (sp->runs_on)
		snprintf(line, sizeof line, "runs on %s as one job%s",
			 runs_on_names(sp->runs_on, ro, sizeof ro), under);
	else
		snprintf(line, sizeof line, "runs on no stock framework: %s%s",
			 *sp->runs_on_why ? sp->runs_on_why : "needs a heterogeneity-aware runtime", under);
	cv_wrapped(cv, 2, w - 4, sp->runs_on ? 0 : tui_attr(t, C_WARN), line);
	const struct estimate *e = &sp->est;
	double need, cap, total = 0;
	enum search_mem ms = search_mem_state(e, headroom, &need, &cap);
	const struct perf_stage *fs = estimate_fullest_stage(e);
	if (fs) {
		total = fs->total;
		cap = fs->capacity;
	}
	char a[16], b[16], f[16];
	hp_fmt_bytes(a, sizeof a, total);
	hp_fmt_bytes(b, sizeof b, cap);
	hp_fmt_bytes(f, sizeof f, cap > total ? cap - total : 0);
	snprintf(line, sizeof line, "memory: %s, fullest stage %s of %s (%.0f%%), %s free; "
		 "the plan keeps %.0f%% of each GPU free", search_plan_verdict(sp), a, b,
		 cap > 0 ? 100 * total / cap : 0, f, 100 * headroom);
	cv_wrapped(cv, 2, w - 4, tui_attr(t, ms == MEM_FITS ? C_GOOD : ms == MEM_RISKY ? C_WARN : C_BAD),
		   line);
}

/* What a Detail view shows: the plan (an id of tui_plan_get), the
 * inputs it was estimated on, and the view's scroll. The Detail view's
 * plan is one of the planner's answer; the edited plan's inputs are the
 * Edit plan view's copies of the answer it was opened on, so a re-plan
 * meanwhile changes neither its numbers nor what they are read against. */
struct detail_src {
	int id;
	const struct search_plan *sp;       /* NULL: none to show */
	const struct cluster *c;
	const struct model_spec *m;
	const struct search_opts *o;
	struct tui_list *l;
};

static void detail_src(struct tui *t, struct detail_src *d)
{
	memset(d, 0, sizeof *d);
	if (t->view == TV_EDITDETAIL) {
		d->id = TUI_ID_EDITED;
		d->l = &t->leditdetail;
		if (tui_planedit_inputs(t, &d->c, &d->m, &d->o) == 0)
			d->sp = tui_plan_get(t, d->id);
		return;
	}
	d->id = t->detail_id;
	d->l = &t->ldetail;
	d->sp = tui_plan_get(t, d->id);
	if (d->sp) {
		d->c = &t->cur->c;
		d->m = &t->cur->m;
		d->o = &t->cur->o;
	}
}

/* The Detail's first rows: the plan's name, its Pareto mark and how
 * far the search proved it; for the edited plan, the plan it is a what
 * if on and the keys changed, marked * as the editor marks them. */
static void detail_title(struct tui *t, struct canvas *cv, const struct detail_src *d, int w)
{
	const struct search_plan *sp = d->sp;
	char lab[160];
	int y = cv_y(cv);
	if (d->id == TUI_ID_EDITED) {
		tui_putf(y, 1, w - 2, tui_attr(t, C_TITLE), "Edited plan: what if on %s",
			 tui_planedit_title(t));
		cv->row++;
		char ch[768], line[800];
		int n = tui_plan_changes(t, ch, sizeof ch);
		if (n) {
			snprintf(line, sizeof line, "* %d key%s changed: %s", n, n == 1 ? "" : "s", ch);
			cv_wrapped(cv, 2, w - 4, tui_attr(t, C_WARN), line);
		} else {
			cv_wrapped(cv, 2, w - 4, tui_attr(t, C_DIM),
				   "no key changed: the planner's plan as the editor estimates it");
		}
		return;
	}
	tui_plan_label(t, d->id, lab, sizeof lab);
	/* in `hetplan plan`'s words, with its number: "within-gap" alone
	 * did not say how far from the bound */
	char opt[64], par[32];
	if (sp->optimality == OPTIMAL_GAP)
		snprintf(opt, sizeof opt, "optimality gap %.1f%%", 100 * sp->gap);
	else
		snprintf(opt, sizeof opt, "%s", search_optimality_name(sp->optimality));
	snprintf(par, sizeof par, "%s Pareto  ", tui_glyph(t, G_PARETO));
	int x;
	if (tui_width(lab) + 2 + (sp->pareto ? tui_width(par) : 0) + tui_width(opt) > w - 2) {
		/* a long label wraps at its spaces and the marks go under it:
		 * cut at the screen's edge, "... tp8 pp5 58/57 micro-batches"
		 * read "... tp8 pp5 5", its Pareto mark and gap gone */
		cv_wrapped(cv, 1, w - 2, tui_attr(t, C_TITLE), lab);
		y = cv_y(cv);
		x = 2;
	} else {
		x = tui_put(y, 1, w - 2, tui_attr(t, C_TITLE), lab) + 2;
	}
	if (sp->pareto)
		x += tui_put(y, x, w - x, tui_attr(t, C_PARETO), par);
	tui_put(y, x, w - x, tui_attr(t, C_DIM), opt);
	cv->row++;
}

static int detail_draw_all(struct tui *t, int y0, int h)
{
	struct detail_src d;
	detail_src(t, &d);
	struct canvas cv = { y0, h, d.l->top, 0 };
	const struct search_plan *sp = d.sp;
	if (!sp) {
		tui_put(y0 + 1, 2, COLS - 4, tui_attr(t, C_DIM),
			d.id == TUI_ID_EDITED ? "The edited plan has no estimate: Esc goes back to the editor."
			: t->cur ? "No plan: see the Plans view." : "planning...");
		return 0;
	}
	const struct estimate *e = &sp->est;
	const struct plan *p = &sp->plan;
	const struct cluster *c = d.c;
	int w = COLS, y;
	char a[24], b[24], d1[24], d2[24], u1[24], u2[24];
	detail_title(t, &cv, &d, w);
	hp_fmt_count(a, sizeof a, e->tokens_per_s);
	hp_fmt_duration(b, sizeof b, e->step_time_s);
	fmt_dur(d1, sizeof d1, sp->time_to_train_s);
	fmt_usd(d2, sizeof d2, sp->cost_to_train_usd, sp->cost_to_train_usd > 0, 0);
	fmt_usd(u1, sizeof u1, e->usd_per_hour, e->price_known, 0);
	if (e->price_known) {
		char r[20];
		snprintf(u2, sizeof u2, "$%s", table_rate(r, sizeof r, e->usd_per_mtok, 0));
	} else
		snprintf(u2, sizeof u2, "?");
	tui_putf(cv_y(&cv), 2, w - 4, A_BOLD,
		 "%s tokens/s  MFU %.1f%%  step %s  %s/h  %s per 1M tokens", a, 100 * e->mfu, b, u1, u2);
	cv.row++;
	char tok[24], vpp[16] = "";
	if (p->schedule == SCHED_INTERLEAVED)
		snprintf(vpp, sizeof vpp, "%d", p->vpp);
	hp_fmt_count(tok, sizeof tok, model_train_tokens(d.m, d.o->tokens));
	tui_putf(cv_y(&cv), 2, w - 4, 0, "%s tokens in %s for %s   %d GPU%s, %.1f kW", tok, d1, d2,
		 e->n_gpus, e->n_gpus == 1 ? "" : "s", e->power_kw);
	cv.row++;
	char set[224], rc[48];
	snprintf(set, sizeof set,
		 "gbs %d x %d, micro-batch %d, %s, recompute %s, ZeRO-%d, %s%s, CP %d, EP %d", p->gbs,
		 e->seq_len, p->mbs, hp_dtype_name(p->precision), plan_recompute_text(p, rc, sizeof rc),
		 p->zero, p->schedule == SCHED_INTERLEAVED ? "interleaved:" : "1F1B", vpp,
		 p->cp ? p->cp : 1, p->ep ? p->ep : 1);
	/* Wider than the screen (80 columns with an interleaved schedule):
	 * the rest on the blank row below, cut after a comma; cut at the
	 * edge it ended "interleaved:2," and CP and EP were not shown. */
	char *brk = NULL;   /* the last ", " the text before fits */
	if (tui_width(set) > w - 4)
		for (char *q = strstr(set, ", "); q; q = strstr(q + 1, ", ")) {
			*q = 0;
			int fits = tui_width(set) <= w - 4;
			*q = ',';
			if (!fits)
				break;
			brk = q;
		}
	if (brk) {
		*brk = 0;
		tui_put(cv_y(&cv), 2, w - 4, tui_attr(t, C_DIM), set);
		cv.row++;
		/* at the line's own indent, as the Detail's other wrapped
		 * lines (the title, the memory line) */
		tui_put(cv_y(&cv), 2, w - 4, tui_attr(t, C_DIM), brk + 2);
		cv.row++;
	} else {
		tui_put(cv_y(&cv), 2, w - 4, tui_attr(t, C_DIM), set);
		cv.row++;
	}
	detail_runs_memory(t, &cv, sp, d.o->mem_headroom, w);
	cv.row++;

	tui_section(t, cv_y(&cv), 0, w, "Layout: replicas x pipeline stages");
	cv.row++;
	draw_layout(t, &cv, sp, c, w);
	detail_links(&cv, c, d.m, p, w);
	cv.row++;

	tui_section(t, cv_y(&cv), 0, w, "Step time");
	cv.row++;
	step_bar(t, cv_y(&cv), 2, w - 4, &e->bd);
	cv.row++;
	double v[SEG_MAX], sum = 0;
	const struct report_part *parts;
	int nseg = seg_values(&e->bd, v, &parts);
	for (int i = 0; i < nseg; i++)
		sum += v[i];
	int colw = 25, per = HP_MAX(1, (w - 4) / colw), k = 0;
	for (int i = 0; i < nseg; i++) {
		if (v[i] <= 0 && i != 0)
			continue;
		if (k % per == 0 && k)
			cv.row++;
		y = cv_y(&cv);
		int cx = 2 + (k % per) * colw;
		seg_put(t, y, cx, &parts[i]);
		char dv[16];
		hp_fmt_duration(dv, sizeof dv, v[i]);
		/* a space between a 9-column label (recompute, optimizer) and
		 * an 8-column value ("581.2 ms" ran into "optimizer"), and the
		 * share in 4 (" 97%", "100%"): 9 + 1 + 8 + 4 = colw - 3 */
		tui_putf(y, cx + 2, colw - 3, 0, "%-9s %8s%3.0f%%", parts[i].tui, dv,
			 sum > 0 ? 100 * v[i] / sum : 0);
		k++;
	}
	cv.row += 2;

	tui_section(t, cv_y(&cv), 0, w, "Memory per GPU, by stage");
	cv.row++;
	draw_memory(t, &cv, e, c, w);
	if (!e->fits && e->worst_stage >= 0) {
		hp_fmt_bytes(a, sizeof a, e->worst_over_bytes);
		tui_putf(cv_y(&cv), 2, w - 4, tui_attr(t, C_BAD), "does not fit: %s over on stage %d", a,
			 e->worst_stage);
		cv.row++;
	}
	/* the GPUs may hold the plan while the node's host memory does not
	 * hold what it offloads (worst_stage -1 then) */
	if (e->offload.host_over) {
		char need[16], use[16];
		tui_putf(cv_y(&cv), 2, w - 4, tui_attr(t, C_BAD),
			 "does not fit the host: the offload needs %s a node, %s usable (host_mem_gb)",
			 hp_fmt_bytes(need, sizeof need, e->offload.host_bytes_per_node),
			 hp_fmt_bytes(use, sizeof use, e->offload.host_usable_bytes));
		cv.row++;
	}
	cv.row++;

	tui_section(t, cv_y(&cv), 0, w, "Communication per step");
	cv.row++;
	draw_comm(t, &cv, e, w);
	return cv.row;
}

/* The rows the Detail view drawn last has (both views draw here). */
static int detail_total;

static struct tui_list *detail_list(struct tui *t)
{
	return t->view == TV_EDITDETAIL ? &t->leditdetail : &t->ldetail;
}

void view_detail_draw(struct tui *t, int y0, int h)
{
	struct tui_list *l = detail_list(t);
	detail_total = detail_draw_all(t, y0, h);
	if (l->top > 0 && l->top > detail_total - h) {
		l->top = HP_MAX(0, detail_total - h);
		for (int y = y0; y < y0 + h; y++)
			tui_fill(y, 0, COLS, 0);
		detail_total = detail_draw_all(t, y0, h);
	}
}

/* The footer's right side in the Detail view: the rows shown, when they
 * are not all (the tab bar has no room for it at 80 columns). */
void detail_status(struct tui *t, char *buf, size_t n)
{
	int h = tui_view_rows();
	const struct tui_list *l = detail_list(t);
	if (detail_total > h)
		snprintf(buf, n, "rows %d-%d of %d", l->top + 1, HP_MIN(detail_total, l->top + h),
			 detail_total);
	else if (t->view == TV_EDITDETAIL)
		snprintf(buf, n, "edited plan");
	else if (t->cur && t->cur->rc == 0)
		snprintf(buf, n, "%d plans", t->cur->res.n_plans);
	else
		*buf = 0;
}

static int step_plan(const struct tui *t, int id, int dir)
{
	/* Walk the Plans list order: ranked rows, then the single-pool rows. */
	int n = plans_rows(t);
	if (!n)
		return id;
	int row = 0;
	for (int r = 0; r < n; r++)
		if (row_id(t, r) == id)
			row = r;
	row = (row + dir + n) % n;
	return row_id(t, row);
}

/* A scroll key of either Detail view: 1 if action was one. */
static int detail_scroll(struct tui *t, int action)
{
	struct tui_list *l = detail_list(t);
	int h = tui_view_rows();
	int max = HP_MAX(0, detail_total - h);
	switch (action) {
	case ACT_UP: l->top--; break;
	case ACT_DOWN: l->top++; break;
	case ACT_PGUP: l->top -= h - 1; break;
	case ACT_PGDN: l->top += h - 1; break;
	case ACT_TOP: l->top = 0; break;
	case ACT_BOTTOM: l->top = max; break;
	default: return 0;
	}
	if (l->top > max)
		l->top = max;
	if (l->top < 0)
		l->top = 0;
	return 1;
}

int view_detail_key(struct tui *t, int action, int ch)
{
	if (detail_scroll(t, action))
		return R_DRAW;
	switch (action) {
	case ACT_LEFT:
	case ACT_RIGHT:
		t->detail_id = step_plan(t, t->detail_id, action == ACT_RIGHT ? 1 : -1);
		return R_DRAW;
	case ACT_BACK:
		t->view = TV_PLANS;
		return R_DRAW;
	case ACT_MARK_A:
	case ACT_MARK_B:
		t->cmp[action == ACT_MARK_B] = t->detail_id;
		return R_DRAW;
	default:
		return R_NONE;
	}
}

/* The edited plan's Detail (d in the Edit plan view): back goes to the
 * editor, whose state it never changes; a and b mark the edited plan as
 * the editor's a and b do. */
int view_editdetail_key(struct tui *t, int action, int ch)
{
	if (detail_scroll(t, action))
		return R_DRAW;
	switch (action) {
	case ACT_BACK:
		t->view = TV_PLANEDIT;
		return R_DRAW;
	case ACT_MARK_A:
	case ACT_MARK_B:
		return view_planedit_key(t, action, ch);
	default:
		return R_NONE;
	}
}

static const char *const editdetail_notes[] = {
	"The Edit plan view's plan, on the inputs the editor estimates it on:",
	"its numbers are hetplan estimate --plan's for the plan e exports.",
	"* names the keys changed from the planner's plan, with their old values.",
};

const char *const *tui_editdetail_notes(int *n)
{
	*n = (int)HP_ARRAY_LEN(editdetail_notes);
	return editdetail_notes;
}

/* ---- Compare view */

struct metric {
	const char *name;
	int better;          /* +1 higher is better, -1 lower is better, 0 neither */
};

static const struct metric metrics[] = {
	{ "GPUs", 0 }, { "tokens/s", 1 }, { "MFU", 1 }, { "step time", -1 },
	{ "$/hour", -1 }, { "$ per 1M tokens", -1 }, { "time to train", -1 },
	{ "cost to train", -1 }, { "memory headroom", 1 }, { "bubble", -1 },
	{ "exposed comm", -1 }, { "power", -1 },
};

static double metric_val(const struct search_plan *sp, int i, char *buf, size_t n)
{
	const struct estimate *e = &sp->est;
	double v = 0;
	switch (i) {
	case 0: v = e->n_gpus; snprintf(buf, n, "%d", e->n_gpus); break;
	case 1: v = e->tokens_per_s; hp_fmt_count(buf, n, v); break;
	case 2: v = e->mfu; snprintf(buf, n, "%.1f%%", 100 * v); break;
	case 3: v = e->step_time_s; hp_fmt_duration(buf, n, v); break;
	case 4: v = e->price_known ? e->usd_per_hour : 0; fmt_usd(buf, n, v, e->price_known, 0); break;
	case 5:
		v = e->price_known ? e->usd_per_mtok : 0;
		if (e->price_known) {
			char r[32];
			snprintf(buf, n, "$%s", table_rate(r, sizeof r, v, 0));
		} else {
			snprintf(buf, n, "?");
		}
		break;
	case 6: v = sp->time_to_train_s; fmt_dur(buf, n, v); break;
	case 7: v = sp->cost_to_train_usd; fmt_usd(buf, n, v, v > 0, 0); break;
	case 8:
		/* one decimal, as the change beside it ("+15.7 pts" read
		 * against 15% and 31%) and MFU */
		v = headroom(e);
		snprintf(buf, n, "%.1f%%", 100 * v);
		break;
	case 9: v = e->bd.bubble; hp_fmt_duration(buf, n, v); break;
	case 10:
		v = e->bd.tp_comm + e->bd.pp_comm + e->bd.dp_comm + e->bd.cp_comm + e->bd.ep_comm;
		hp_fmt_duration(buf, n, v);
		break;
	case 11: v = e->power_kw; snprintf(buf, n, "%.1f kW", v); break;
	}
	return v;
}

/* The table's columns: metric | A | B | B vs A. */
enum { METRIC_LW = 18, METRIC_CW = 14, METRIC_DW = 12,
       METRIC_W = METRIC_LW + 2 * METRIC_CW + METRIC_DW + 3 };

int tui_metric_table(const struct tui *t, const struct search_plan *pa,
		     const struct search_plan *pb, const char *const head[3], int y, int x,
		     int w, int y_end)
{
	int lw = METRIC_LW, cw = METRIC_CW, dw = METRIC_DW;
	if (w < METRIC_W) {      /* half of 80 columns: "$ per 1M tokens" still fits */
		lw = 15;
		dw = 9;
		cw = HP_MAX(6, (w - lw - dw - 3) / 2);
	}
	int xa = x + lw + 1, xb = xa + cw + 1, xd = xb + cw + 1;
	int ha = tui_attr(t, C_TITLE);
	tui_putr(y, xa, cw, ha, head[0]);
	tui_putr(y, xb, cw, ha, head[1]);
	tui_putr(y, xd, dw, ha, head[2]);
	y++;
	for (size_t i = 0; i < HP_ARRAY_LEN(metrics) && y < y_end; i++, y++) {
		char va[32] = "-", vb[32] = "-";
		double a = pa ? metric_val(pa, (int)i, va, sizeof va) : 0;
		double b = pb ? metric_val(pb, (int)i, vb, sizeof vb) : 0;
		int pct = i == 2 || i == 8;      /* MFU and headroom: points, not ratios */
		tui_put(y, x, lw, 0, metrics[i].name);
		tui_putr(y, xa, cw, A_BOLD, va);
		tui_putr(y, xb, cw, A_BOLD, vb);
		/* MFU and headroom differ by the points shown: the difference
		 * of the one-decimal values printed beside it, which a reader
		 * subtracts (51.9% -> 54.5% read "+2.5 pts" when taken from
		 * the unrounded 0.51946 and 0.54452); equal as printed, the
		 * row reads "same" */
		double shown = pct && a > 0 && b > 0 ? strtod(vb, NULL) - strtod(va, NULL) : 0;
		if (a > 0 && b > 0 && (pct ? fabs(shown) > 0.05 : fabs(b - a) > 1e-9 * fabs(a))) {
			double d = pct ? shown : (b - a) / a;
			int good = metrics[i].better * (d > 0 ? 1 : -1);
			char ds[32];
			if (pct)
				snprintf(ds, sizeof ds, "%+.1f pts", d);
			else
				snprintf(ds, sizeof ds, "%+.1f%%", 100 * d);
			tui_putr(y, xd, dw, tui_attr(t, good > 0 ? C_GOOD : good < 0 ? C_BAD : C_NORMAL), ds);
		} else if ((a > 0 && b > 0) ||
			   /* both 0 and printed alike ("0.0 us" of bubble
			    * without a pipeline): the row read blank */
			   (pa && pb && a == 0 && b == 0 && !strcmp(va, vb) &&
			    isdigit((unsigned char)va[0]))) {
			tui_putr(y, xd, dw, tui_attr(t, C_DIM), "same");
		}
	}
	return y;
}

int tui_step_scale(const struct tui *t, const struct search_plan *pa,
		   const struct search_plan *pb, const char *const name[2], int y, int x0, int w,
		   int y_end)
{
	int y_start = y;
	if (y >= y_end)
		return 0;
	tui_section(t, y++, x0, w, "Step time, to scale");
	const struct search_plan *sp[2] = { pa, pb };
	int lw = HP_MAX(tui_width(name[0]), tui_width(name[1]));
	int bw = w - lw - 7;
	double mx = HP_MAX(pa ? pa->est.step_time_s : 0, pb ? pb->est.step_time_s : 0);
	for (int k = 0; k < 2 && mx > 0 && y < y_end; k++, y++) {
		tui_put(y, x0 + 1, lw + 1, A_BOLD, name[k]);
		if (sp[k])
			step_bar(t, y, x0 + lw + 3,
				 HP_MAX(1, (int)(bw * sp[k]->est.step_time_s / mx + 0.5)), &sp[k]->est.bd);
	}
	/* The legend: the parts either bar has (as the HTML chart's legend;
	 * all of them would not fit 80 columns, and the ones past the edge
	 * went unnamed), on as many lines as they need below the bars. */
	int x1 = x0 + lw + 3, x = x1;
	int np;
	const struct report_part *parts = report_time_parts(&np);
	for (int i = 0; i < np && y < y_end; i++) {
		if (!(pa && report_part_value(&parts[i], &pa->est.bd) > 0) &&
		    !(pb && report_part_value(&parts[i], &pb->est.bd) > 0))
			continue;
		/* a glyph, a space, a label of at most 9 columns and a gap */
		if (x + 12 > x0 + w && x > x1) {
			x = x1;
			if (++y >= y_end)
				break;
		}
		seg_put(t, y, x, &parts[i]);
		tui_put(y, x + 2, 12, tui_attr(t, C_DIM), parts[i].tui);
		/* the label's width, not what tui_put drew: 0 below the
		 * screen, where the caller measures */
		x += 2 + HP_MIN(12, tui_width(parts[i].tui)) + 1;
	}
	/* the legend's last line, when it has one */
	return HP_MIN(y_end, y + (x > x1)) - y_start;
}

void view_compare_draw(struct tui *t, int y0, int h)
{
	const struct search_plan *pa = tui_plan_get(t, t->cmp[0]), *pb = tui_plan_get(t, t->cmp[1]);
	if (!pa || !pb) {
		tui_put(y0 + 1, 2, COLS - 4, tui_attr(t, C_DIM),
			"Mark two plans with a and b in the Plans view (or press c there).");
		return;
	}
	char la[PLAN_LABEL_MAX], lb[PLAN_LABEL_MAX];
	/* the two titles cut as the Plans view cuts its rows (tui_fit_label):
	 * each keeps its start and the end that tells it from the other */
	char pair[2][PLAN_LABEL_MAX];
	tui_plan_label(t, t->cmp[0], pair[0], sizeof pair[0]);
	tui_plan_label(t, t->cmp[1], pair[1], sizeof pair[1]);
	tui_fit_label(pair, 2, 0, COLS - 5, tui_glyph(t, G_MID), la, sizeof la);
	tui_fit_label(pair, 2, 1, COLS - 5, tui_glyph(t, G_MID), lb, sizeof lb);
	int y = y0;
	tui_putf(y++, 1, COLS - 2, A_BOLD, "A  %s", la);
	tui_putf(y++, 1, COLS - 2, A_BOLD, "B  %s", lb);
	static const char *const heads[3] = { "A", "B", "B vs A" };
	y = tui_metric_table(t, pa, pb, heads, y + 1, HP_MAX(1, (COLS - METRIC_W) / 2), METRIC_W,
			     y0 + h - 5);
	y++;
	static const char *const names[2] = { "A", "B" };
	tui_step_scale(t, pa, pb, names, y, 0, COLS, y0 + h);
}

/* Plan side (0 A, 1 B) to the next plan in dir, passing over the other
 * side's plan: a step that lands B on A compared a plan with itself, every
 * row "same" (with one plan in the list there is nothing to pass to). */
static void compare_step(struct tui *t, int side, int dir)
{
	int id = step_plan(t, t->cmp[side], dir);
	if (id == t->cmp[!side] && plans_rows(t) > 1)
		id = step_plan(t, id, dir);
	t->cmp[side] = id;
}

int view_compare_key(struct tui *t, int action, int ch)
{
	switch (action) {
	case ACT_SWAP: {
		int k = t->cmp[0];
		t->cmp[0] = t->cmp[1];
		t->cmp[1] = k;
		return R_DRAW;
	}
	case ACT_LEFT:
	case ACT_RIGHT:
		compare_step(t, 1, action == ACT_RIGHT ? 1 : -1);
		return R_DRAW;
	case ACT_UP:
	case ACT_DOWN:
		compare_step(t, 0, action == ACT_DOWN ? 1 : -1);
		return R_DRAW;
	}
	return R_NONE;
}
