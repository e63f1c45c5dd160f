/* tui_planedit.c — the Edit plan view: a what-if on one plan's keys.
 *
 * E in the Plans or Detail view opens the selected plan here. The left
 * pane lists every entry of the plan table (plan_fields, src/plan.c),
 * drawn and edited by tui_edit.c's field machinery: a key added to that
 * table shows up here with no code of its own. After each change the
 * edited plan goes the way `hetplan estimate --plan` takes it:
 * plan_validate (which names the field, or the pool and GPU that cannot
 * run a precision), then perf_estimate. That runs on the main thread: the
 * planner makes thousands of such estimates per search, so one is far
 * below a keypress. The right pane sets the planner's plan beside the
 * edited one (the Compare view's metrics and their change) and gives the
 * edited plan's memory verdict, or the message that rejected it.
 *
 * The editor works on copies of the answer's cluster, model and workload
 * taken when it opened, so a re-plan meanwhile changes nothing here; E
 * again picks up the newest answer. */
#include "plan_flags.h"
#include "runs_on.h"
#include "tui_int.h"
#include "utf8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tui_planedit {
	struct cluster c;            /* the answer's inputs, copied */
	struct model_spec m;
	struct search_opts o;
	double tokens;               /* what the planner trained for */
	int from;                    /* the view E was pressed in */
	char title[96];              /* the plan as that view named it */
	struct search_plan orig;     /* the planner's plan, estimated here */
	struct search_plan cur;      /* the edited plan */
	int orig_ok, cur_ok;         /* their estimates are valid */
	char why[sizeof ((struct hp_err *)0)->msg];   /* why cur has none */
	char placed[PP_LAYOUT_TEXT];  /* cur's pp_layout its stages were placed by */
};

/* Validate and estimate sp->plan on pe's inputs, and fill what the
 * planner fills beside an estimate (search.c): time and cost to train,
 * the memory verdict at the workload's headroom, the frameworks that run
 * it. Returns 0, or -1 with why (n bytes) set. */
static int evaluate(const struct tui_planedit *pe, struct search_plan *sp, char *why, size_t n)
{
	struct hp_err err = { 0 };
	estimate_free(&sp->est);
	if (plan_validate(&sp->plan, &pe->c, &pe->m, "edited plan", &err) < 0 ||
	    perf_estimate(&pe->c, &pe->m, &sp->plan, NULL, &sp->est, &err) < 0) {
		snprintf(why, n, "%s", err.msg);
		return -1;
	}
	sp->time_to_train_s =
		search_train_steps(pe->tokens, (double)sp->plan.gbs * sp->est.seq_len) *
		sp->est.step_time_s;
	sp->cost_to_train_usd =
		sp->est.price_known ? sp->est.usd_per_hour * sp->time_to_train_s / 3600 : 0;
	search_plan_memory(sp, pe->o.mem_headroom);
	plan_gpus(&sp->plan, sp->gpus_used);
	sp->runs_on = runs_on_mask(&sp->plan, &pe->c, sp->runs_on_why, sizeof sp->runs_on_why);
	return 0;
}

static void sp_clear(struct search_plan *sp)
{
	plan_free(&sp->plan);
	estimate_free(&sp->est);
	memset(sp, 0, sizeof *sp);
}

/* The edited plan back to the planner's, estimated. */
static void reset(struct tui_planedit *pe)
{
	sp_clear(&pe->cur);
	plan_copy(&pe->cur.plan, &pe->orig.plan);
	snprintf(pe->cur.label, sizeof pe->cur.label, "edited %.*s", UTF8_CUT(pe->orig.label, 56));
	pe->cur.optimality = OPTIMAL_HEURISTIC;
	hp_strlcpy(pe->placed, pe->cur.plan.pp_layout, sizeof pe->placed);
	pe->cur_ok = evaluate(pe, &pe->cur, pe->why, sizeof pe->why) == 0;
}

void tui_planedit_open(struct tui *t, int id)
{
	const struct search_plan *sp = tui_plan_get(t, id);
	if (!sp || id == TUI_ID_EDITED) {
		tui_message(t, 1, "no plan to edit yet");
		return;
	}
	if (!t->pe)
		t->pe = xcalloc(1, sizeof *t->pe);
	struct tui_planedit *pe = t->pe;
	sp_clear(&pe->orig);
	pe->c = t->cur->c;
	pe->m = t->cur->m;
	pe->o = t->cur->o;
	/* The planner's tokens (its default when the workload sets none). */
	pe->tokens = model_train_tokens(&pe->m, pe->o.tokens);
	pe->from = t->view;
	tui_plan_label(t, id, pe->title, sizeof pe->title);
	plan_copy(&pe->orig.plan, &sp->plan);
	hp_strlcpy(pe->orig.label, sp->label, sizeof pe->orig.label);
	pe->orig.optimality = sp->optimality;
	pe->orig_ok = evaluate(pe, &pe->orig, pe->why, sizeof pe->why) == 0;
	reset(pe);
	t->lplanedit.sel = t->lplanedit.top = 0;
	t->leditdetail.sel = t->leditdetail.top = 0;
	t->view = TV_PLANEDIT;
	t->help = 0;
}

struct plan *tui_planedit_plan(struct tui *t)
{
	return t->pe ? &t->pe->cur.plan : NULL;
}

const struct plan *tui_planedit_orig(const struct tui *t)
{
	return t->pe ? &t->pe->orig.plan : NULL;
}

const char *tui_planedit_title(const struct tui *t)
{
	return t->pe ? t->pe->title : "";
}

/* A pp_layout cleared: the stages take back the planner's layer split
 * (the plan's as it came), where the edited plan still has its replica
 * groups and stages; an empty layout is no layout, not the last one's
 * split. */
static void restore_split(struct plan *cur, const struct plan *orig)
{
	if (cur->n_replicas != orig->n_replicas)
		return;
	for (int g = 0; g < cur->n_replicas; g++) {
		struct replica *r = &cur->replicas[g];
		const struct replica *o = &orig->replicas[g];
		if (r->n_stages != o->n_stages)
			continue;
		for (int s = 0; s < r->n_stages; s++) {
			r->stages[s].first_layer = o->stages[s].first_layer;
			r->stages[s].last_layer = o->stages[s].last_layer;
		}
	}
}

void tui_planedit_changed(struct tui *t)
{
	struct tui_planedit *pe = t->pe;
	if (!pe)
		return;
	/* a new pp_layout places the stages' layers as `estimate --pp-layout`
	 * does (plan_place_layout), so a layout whose ranks' totals differ
	 * from the current split is taken as written */
	if (strcmp(pe->placed, pe->cur.plan.pp_layout) != 0) {
		if (pe->cur.plan.pp_layout[0])
			plan_place_layout(&pe->cur.plan, &pe->m);
		else
			restore_split(&pe->cur.plan, &pe->orig.plan);
		hp_strlcpy(pe->placed, pe->cur.plan.pp_layout, sizeof pe->placed);
	}
	pe->cur_ok = evaluate(pe, &pe->cur, pe->why, sizeof pe->why) == 0;
}

const struct search_plan *tui_planedit_get(const struct tui *t)
{
	return t->pe && t->pe->cur_ok ? &t->pe->cur : NULL;
}

int tui_planedit_inputs(const struct tui *t, const struct cluster **c,
			const struct model_spec **m, const struct search_opts **o)
{
	if (!t->pe)
		return -1;
	*c = &t->pe->c;
	*m = &t->pe->m;
	*o = &t->pe->o;
	return 0;
}

void tui_planedit_done(struct tui *t)
{
	if (!t->pe)
		return;
	sp_clear(&t->pe->orig);
	sp_clear(&t->pe->cur);
	free(t->pe);
	t->pe = NULL;
}

static const char *const notes[] = {
	"Every key of a plan file (hetplan estimate --plan) is a row here.",
	"A * marks a key that differs from the planner's plan.",
	"\"default: on\": the key is unset, and on is what it runs as here (the",
	"framework's default; moe_dispatch: the dispatcher this cluster runs).",
	"An exported plan file leaves it unset: resolved on load, where it runs.",
	"Each change estimates the plan again, as hetplan estimate does.",
	"e exports the edited plan (.md or .json); d shows its Detail.",
	"The framework row offers every framework; an estimate-only one is",
	"estimated here, and hetplan launch refuses it (the verdict says so).",
};

const char *const *tui_planedit_notes(int *n)
{
	*n = (int)HP_ARRAY_LEN(notes);
	return notes;
}

/* The edited plan's memory: the planner's verdict words and the fullest
 * stage, or why there is no estimate. Returns the rows used. */
static int draw_verdict(struct tui *t, const struct tui_planedit *pe, int y, int x, int w, int h)
{
	char line[sizeof pe->why + 16];
	if (!pe->cur_ok) {
		snprintf(line, sizeof line, "no estimate: %s", pe->why);
		return tui_put_wrapped(y, x, w, HP_MAX(1, h), tui_attr(t, C_BAD), line);
	}
	double need, cap;
	enum search_mem ms = search_mem_state(&pe->cur.est, pe->o.mem_headroom, &need, &cap);
	/* The fullest stage as search_mem_state picks it (the largest
	 * total over capacity) with its total, the bytes the memory headroom
	 * row and the Detail view's bars count; need is its live bytes
	 * without the allocator's reserve (perf_stage.slack), what decides
	 * whether it fits. Printed alone, need read 62.5 GiB of 79.6 GiB
	 * beside a headroom of 15% (67.7 GiB used). Worded as `hetplan
	 * estimate` words it. */
	const struct perf_stage *fs = estimate_fullest_stage(&pe->cur.est);
	double total = fs ? fs->total : need;
	char a[16], b[16], c[16];
	hp_fmt_bytes(a, sizeof a, total);
	hp_fmt_bytes(b, sizeof b, cap);
	hp_fmt_bytes(c, sizeof c, need);
	enum hp_framework fw = pe->cur.plan.framework;
	snprintf(line, sizeof line, "memory: %s, fullest stage %s of %s with the allocator's reserve, %s live%s%s%s",
		 search_mem_verdict(&pe->cur.est, pe->o.mem_headroom), a, b, c, framework_launchable(fw) ? "" : "; ",
		 framework_launchable(fw) ? "" : framework_name(fw),
		 framework_launchable(fw) ? "" : " is estimate-only: no launch config");
	/* the GPUs may hold the plan while the node's host memory does not
	 * hold what it offloads: the verdict (does-not-fit) says which */
	if (pe->cur.est.offload.host_over) {
		char hn[16], hu[16];
		size_t l = strlen(line);
		snprintf(line + l, sizeof line - l,
			 "; the host does not hold the offload: %s a node, %s usable (host_mem_gb)",
			 hp_fmt_bytes(hn, sizeof hn, pe->cur.est.offload.host_bytes_per_node),
			 hp_fmt_bytes(hu, sizeof hu, pe->cur.est.offload.host_usable_bytes));
	}
	/* over-gpu (the total over the whole GPU) shows as not fitting */
	int over = ms == MEM_RISKY && search_mem_state(&pe->cur.est, 0, NULL, NULL) == MEM_RISKY;
	return tui_put_wrapped(y, x, w, HP_MAX(1, h), tui_attr(t, ms == MEM_FITS ? C_GOOD
								    : ms == MEM_RISKY && !over ? C_WARN : C_BAD),
			       line);
}

void view_planedit_draw(struct tui *t, int y0, int h)
{
	struct tui_planedit *pe = t->pe;
	if (!pe) {
		tui_put(y0 + 1, 2, COLS - 4, tui_attr(t, C_DIM), "E in the Plans or Detail view edits a plan.");
		return;
	}
	/* 34 columns hold a label, "default: off" and the arrow; the rest
	 * holds the metrics with values of 8 columns ("31.88 s"). */
	int lw = COLS >= 120 ? 44 : 34, rx = lw + 1, rw = COLS - rx;
	tui_section(t, y0, 0, lw, "Plan keys");
	tui_plan_fields_draw(t, y0 + 1, 0, lw, h - 1);
	for (int y = y0; y < y0 + h; y++)
		tui_put(y, lw, 1, tui_attr(t, C_DIM), tui_glyph(t, G_VLINE));
	char title[160];
	snprintf(title, sizeof title, "What if: %s", pe->title);
	/* the section's line leaves rw - 5 columns: a longer title keeps
	 * whole words and ends in an ellipsis (cut at the edge, "vpp2" read
	 * "vp") */
	if (tui_width(title) > rw - 5 && rw > 8) {
		size_t cut = utf8_cut_cols(title, rw - 6);
		while (cut > 0 && title[cut] != ' ')
			cut--;
		if (cut > 0)
			snprintf(title + cut, sizeof title - cut, "%s", tui_glyph(t, G_MID));
	}
	tui_section(t, y0, rx, rw, title);
	static const char *const heads[3] = { "planner", "edited", "change" };
	static const char *const names[2] = { "planner", "edited" };
	const struct search_plan *a = pe->orig_ok ? &pe->orig : NULL, *b = pe->cur_ok ? &pe->cur : NULL;
	/* The rows each part needs, measured below the screen. Where they
	 * do not all fit (80x24), the blank rows between them go first, then
	 * the metric table's last rows: the step scale keeps the edited
	 * plan's bar and the whole legend (at 80x24 it showed the planner's
	 * bar alone, and no legend, so a step with host offload read as
	 * unchanged parts). */
	int mt = tui_metric_table(t, a, b, heads, LINES, rx + 1, rw - 1, LINES + 64) - LINES;
	int vr = draw_verdict(t, pe, LINES, rx + 1, rw - 2, 8);
	int sc = tui_step_scale(t, a, b, names, LINES, rx, rw, LINES + 16);
	int avail = h - 1, gap = mt + vr + sc + 2 <= avail;
	/* at least the table's heading and the first five metrics (GPUs to
	 * $/hour) */
	int mrows = HP_MIN(mt, HP_MAX(6, avail - vr - sc - 2 * gap));
	int y = tui_metric_table(t, a, b, heads, y0 + 1, rx + 1, rw - 1, y0 + 1 + mrows);
	y += gap;
	/* A refused plan's message may take the step bars' rows. */
	y += draw_verdict(t, pe, y, rx + 1, rw - 2, y0 + h - y - (pe->cur_ok ? sc : 0)) + gap;
	tui_step_scale(t, a, b, names, y, rx, rw, y0 + h);
}

int view_planedit_key(struct tui *t, int action, int ch)
{
	struct tui_planedit *pe = t->pe;
	if (!pe)                 /* only tui_planedit_open shows this view */
		return R_PASS;
	switch (action) {
	case ACT_RESET:
		reset(pe);
		tui_message(t, 0, "the planner's plan again");
		return R_DRAW;
	case ACT_BACK:
		t->view = pe->from;
		return R_DRAW;
	case ACT_DETAIL:
		/* worded as e's refusal (tui.c no_plan_message) */
		if (!pe->cur_ok) {
			tui_message(t, 1, "the edited plan has no estimate (the view says why): "
				    "no Detail to show");
			return R_DRAW;
		}
		t->view = TV_EDITDETAIL;
		return R_DRAW;
	case ACT_MARK_A:
	case ACT_MARK_B:
		if (!pe->cur_ok) {
			tui_message(t, 1, "the edited plan has no estimate to compare");
			return R_DRAW;
		}
		t->cmp[action == ACT_MARK_B] = TUI_ID_EDITED;
		tui_message(t, 0, "edited plan marked %c; 6 compares", action == ACT_MARK_B ? 'B' : 'A');
		return R_DRAW;
	default:
		return tui_plan_fields_key(t, action);
	}
}
