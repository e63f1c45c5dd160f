/* report_html.c — the plan report as one self-contained HTML page.
 *
 * Nothing is fetched: the CSS is inline, the fonts are the reader's system
 * fonts, and the four charts are inline SVG drawn here (step-time
 * breakdown per plan, time vs cost with the Pareto front, the chosen
 * plan's replica x stage layout, its memory per stage against capacity).
 * Every string that came from a user (pool, cluster and model names, price
 * sources, link names) goes through sbuf_add_html(). The page prints on A4
 * or Letter: @media print drops shadows and keeps sections whole. */
#include "report_priv.h"
#include "escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char report_css[] =
	":root{--ink:#1d2330;--muted:#5d6778;--line:#dde2ea;--bg:#f5f7fa;--card:#fff;"
	"--accent:#3b6ea8;--good:#2e7d4f;--bad:#b3402a}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,"
	"-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Liberation Sans',sans-serif}\n"
	"main{max-width:1120px;margin:0 auto;padding:32px 28px 48px}\n"
	"header.top{border-bottom:3px solid var(--accent);padding-bottom:14px;margin-bottom:22px}\n"
	".kicker{text-transform:uppercase;letter-spacing:.08em;font-size:12px;color:var(--accent);"
	"font-weight:600}\n"
	"h1{font-size:28px;margin:4px 0 6px;font-weight:650;overflow-wrap:anywhere}\n"
	"h2,h3,td,.meta{overflow-wrap:anywhere}td code{white-space:nowrap}\n"
	"h2{font-size:19px;margin:0 0 12px;font-weight:650}\n"
	"h3{font-size:15px;margin:18px 0 8px;color:var(--muted);font-weight:600}\n"
	".meta{color:var(--muted);font-size:13.5px}\n"
	".cards{display:grid;grid-template-columns:1.5fr 1fr 1fr 1fr 1.3fr;align-items:start;gap:12px;"
	"margin-bottom:22px}\n"
	".card{background:var(--card);border:1px solid var(--line);border-radius:8px;"
	"padding:12px 14px;box-shadow:0 1px 2px rgba(20,30,50,.05);min-width:0}\n"
	".card .k{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}\n"
	".card .v{font-size:20px;white-space:nowrap;font-weight:650;margin:2px 0;font-variant-numeric:tabular-nums}\n"
	".card .s{font-size:12.5px;color:var(--muted)}\n"
	".card.hero{border-left:4px solid var(--accent)}\n"
	".card.hero .v{white-space:normal;font-size:18px;overflow-wrap:anywhere}\n"
	".card .s{overflow-wrap:anywhere}\n"
	".good{color:var(--good)}.bad{color:var(--bad)}\n"
	"section{background:var(--card);border:1px solid var(--line);border-radius:8px;"
	"padding:18px 20px;margin-bottom:18px;box-shadow:0 1px 2px rgba(20,30,50,.05)}\n"
	"p{margin:6px 0 10px}\n"
	"table{border-collapse:collapse;width:100%;font-size:13.5px;margin:6px 0 4px;"
	"font-variant-numeric:tabular-nums}\n"
	"th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;"
	"vertical-align:top}\n"
	"th{font-weight:600;color:var(--muted);font-size:12px;text-transform:uppercase;"
	"letter-spacing:.03em;border-bottom:2px solid var(--line)}\n"
	"td.n,th.n{text-align:right}\ntd.n{white-space:nowrap}\n"
	"tr.chosen td{background:#eef4fb;font-weight:600}\n"
	".tag{display:inline-block;font-size:11px;padding:1px 6px;border-radius:9px;"
	"background:#e7edf5;color:var(--accent);margin-left:4px}\n"
	"svg{display:block;width:100%;height:auto;margin:4px 0 8px}\n"
	"svg text{font-family:inherit;fill:var(--ink)}\n"
	".note{font-size:12.5px;color:var(--muted)}\n"
	"ul{margin:6px 0;padding-left:20px}li{margin:3px 0}\n"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);border:1px solid var(--line);"
	"border-radius:6px;padding:8px 10px;margin:6px 0 10px}\n"
	"code{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12.5px}\n"
	"footer{color:var(--muted);font-size:12.5px;text-align:center;margin-top:18px}\n"
	".two{display:grid;grid-template-columns:1fr 1fr;gap:18px}\n"
	"@media (max-width:800px){.two{grid-template-columns:1fr}"
	".cards{grid-template-columns:repeat(2,1fr)}}\n"
	"@media print{body{background:#fff;font-size:11pt}main{max-width:none;padding:0}"
	"section,.card{box-shadow:none;break-inside:avoid;page-break-inside:avoid}"
	"section{border:none;border-top:1px solid var(--line);border-radius:0;padding:12px 0}"
	"tr.chosen td{background:#eef4fb;-webkit-print-color-adjust:exact;print-color-adjust:exact}"
	"svg{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

/* ---- small helpers ------------------------------------------------------- */

static void h(struct sbuf *b, const char *s)
{
	sbuf_add_html(b, s);
}

/* A round step near range / target (1, 2 or 5 x 10^k). */
static double nice_step(double range, int target)
{
	if (!(range > 0))
		return 1;
	double raw = range / target;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* Tick label without trailing zeros: 0, 2.5, 40, 1200. */
static void tick_label(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.4g", fabs(v) < 1e-12 ? 0 : v);
}

/* USD on an axis: $0, $50k, $1.5M. */
static void usd_tick(char *buf, size_t n, double v)
{
	if (fabs(v) < 1e-6)
		v = 0;
	if (v >= 1e6)
		snprintf(buf, n, "$%.4gM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, n, "$%.4gk", v / 1e3);
	else
		snprintf(buf, n, "$%.4g", v);
}

/* Rough width of s in the page's sans-serif at 12 px, for laying out
 * legends (SVG cannot measure text without a script). */
static double text_w(const char *s)
{
	double w = 0;
	for (; *s; s++)
		w += *s == ' ' ? 3.6 : (*s >= 'A' && *s <= 'Z') ? 8.2 : strchr("ijlt.,:()'", *s) ? 3.9
		   : strchr("mw", *s) ? 10.2 : 7.0;
	return w;
}

static void legend_item(struct sbuf *b, double x, double y, const char *color,
			const char *label)
{
	sbuf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" rx=\"2\" "
		  "fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", x, y - 9, color,
		  x + 16, y);
	h(b, label);
	sbuf_add(b, "</text>");
}

/* label cut at a UTF-8 boundary to about max_w px of 12 px text (text_w),
 * ending in "..." when cut; into buf (n bytes). Returns 1 when cut. A
 * plan label of 16 pools runs past any chart: the tables hold it whole. */
static int fit_label(char *buf, size_t n, const char *label, double max_w)
{
	snprintf(buf, n, "%s", label);
	if (text_w(buf) <= max_w)
		return 0;
	size_t len = strlen(buf);
	while (len > 0 && (text_w(buf) + text_w("...") > max_w || (buf[len] & 0xC0) == 0x80))
		buf[--len] = 0;
	if (len + 4 <= n)
		memcpy(buf + len, "...", 4);
	return 1;
}

/* ---- chart: step-time breakdown per plan --------------------------------- */

static void chart_breakdown(struct sbuf *b, const struct report_input *in)
{
	const struct search_result *r = in->res;
	int np;
	const struct report_part *parts = report_time_parts(&np);
	int n = HP_MIN(r->n_plans, 12);
	double maxt = 0;
	int used[16] = { 0 };
	for (int i = 0; i < n; i++) {
		maxt = HP_MAX(maxt, r->plans[i].est.step_time_s);
		for (int k = 0; k < np; k++)
			used[k] |= report_part_value(&parts[k], &r->plans[i].est.bd) > 0;
	}
	/* room on the left for the longest "N. label" (12.5 px text) */
	double lw = 0;
	for (int i = 0; i < n; i++) {
		char label[PLAN_LABEL_MAX];
		report_plan_label(&r->plans[i], in->res, in->cluster, label, sizeof label);
		lw = HP_MAX(lw, text_w(label) * 1.2 + 44);
	}
	const double W = 1000, L = HP_MIN(HP_MAX(250, lw + 16), 520), R = 70, top = 44,
		     row = 30, barh = 20;
	double step = nice_step(maxt, 6), axis = ceil(maxt / step) * step;
	if (!(axis > 0))
		axis = 1;
	double plot_w = W - L - R, H = top + n * row + 46;
	sbuf_addf(b, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"Step time "
		  "breakdown of each ranked plan\">", W, H);
	/* legend, from the left when the labels leave it too little room */
	double lw_leg = 0;
	for (int k = 0; k < np; k++)
		if (used[k])
			lw_leg += 32 + text_w(parts[k].label);
	double lx = L + lw_leg <= W ? L : HP_MAX(10, W - lw_leg);
	for (int k = 0; k < np; k++) {
		if (!used[k])
			continue;
		legend_item(b, lx, 18, parts[k].color, parts[k].label);
		lx += 32 + text_w(parts[k].label);
	}
	/* grid and axis */
	for (double v = 0; v <= axis + step / 2; v += step) {
		double x = L + plot_w * v / axis;
		char t[24];
		tick_label(t, sizeof t, v);
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e7ee\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
			  "fill=\"#5d6778\">%s</text>", x, top - 8, x, top + n * row, x,
			  top + n * row + 16, t);
	}
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
		  "fill=\"#5d6778\">seconds per training step</text>", L + plot_w / 2, H - 6);
	for (int i = 0; i < n; i++) {
		const struct search_plan *sp = &r->plans[i];
		double y = top + i * row + (row - barh) / 2;
		char label[PLAN_LABEL_MAX], cut[PLAN_LABEL_MAX];
		report_plan_label(sp, in->res, in->cluster, label, sizeof label);
		/* 12.5 px text, bold for the chosen plan: keep it inside L - 10
		 * (it used to run off the chart's left edge) */
		int was_cut = fit_label(cut, sizeof cut, label, (L - 40) / 1.2);
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12.5\" text-anchor=\"end\"%s>",
			  L - 10, y + barh - 5, i == in->chosen ? " font-weight=\"700\"" : "");
		if (was_cut) {
			sbuf_add(b, "<title>");
			h(b, label);
			sbuf_add(b, "</title>");
		}
		sbuf_addf(b, "%d. ", i + 1);
		h(b, cut);
		sbuf_add(b, "</text>");
		double x = L;
		for (int k = 0; k < np; k++) {
			double v = report_part_value(&parts[k], &sp->est.bd);
			if (v <= 0)
				continue;
			double w = plot_w * v / axis;
			sbuf_addf(b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" "
				  "fill=\"%s\"><title>%s: %.3f s</title></rect>", x, y, w, barh,
				  parts[k].color, parts[k].label, v);
			x += w;
		}
		char t[32];
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#5d6778\">%s</text>",
			  L + plot_w * sp->est.step_time_s / axis + 6, y + barh - 5,
			  hp_fmt_duration(t, sizeof t, sp->est.step_time_s));
	}
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#8a93a3\"/>",
		  L, top - 8, L, top + n * row);
	sbuf_add(b, "</svg>\n");
}

/* ---- chart: time vs cost, Pareto front ----------------------------------- */

static int priced(const struct search_plan *sp)
{
	return sp->est.price_known && sp->cost_to_train_usd > 0;
}

/* The time/cost chart's frame: the data range (days, USD) and where it
 * sits on the page. */
struct pareto_frame {
	double tmin, tmax, cmin, cmax;      /* over every priced plan */
	double L, T, pw, ph;                /* plot area */
	double x0, xa, xs, y0, ya, ys;      /* axis origins, spans and steps */
};

static void frame_see(struct pareto_frame *f, const struct search_plan *sp, int *any)
{
	if (!priced(sp))
		return;
	*any = 1;
	f->tmin = HP_MIN(f->tmin, sp->time_to_train_s / 86400);
	f->tmax = HP_MAX(f->tmax, sp->time_to_train_s / 86400);
	f->cmin = HP_MIN(f->cmin, sp->cost_to_train_usd);
	f->cmax = HP_MAX(f->cmax, sp->cost_to_train_usd);
}

/* The frame over every priced plan (ranked, Pareto, single-pool); 0 when
 * none has a price. */
static int pareto_frame(struct pareto_frame *f, const struct report_input *in)
{
	const struct search_result *r = in->res;
	int any = 0;
	*f = (struct pareto_frame){ .tmin = 1e300, .cmin = 1e300 };
	for (int i = 0; i < r->n_plans; i++)
		frame_see(f, &r->plans[i], &any);
	for (int i = 0; i < r->n_pareto; i++)
		frame_see(f, &r->pareto[i], &any);
	for (int i = 0; i < in->cluster->n_pools; i++)
		if (r->has_single[i])
			frame_see(f, &r->single[i], &any);
	if (!any)
		return 0;
	const double W = 1000, H = 380, R = 30, B = 52;
	f->L = 86;
	f->T = 20;
	f->pw = W - f->L - R;
	f->ph = H - f->T - B;
	/* Axes span the points, not zero to the largest: plans often differ by
	 * a few percent, and that difference is the point of the chart. */
	double xr = HP_MAX(f->tmax - f->tmin, 0.02 * f->tmax);
	double yr = HP_MAX(f->cmax - f->cmin, 0.02 * f->cmax);
	f->xs = nice_step(xr * 1.2, 6);
	f->ys = nice_step(yr * 1.25, 5);
	f->x0 = HP_MAX(0, floor((f->tmin - 0.08 * xr) / f->xs) * f->xs);
	f->y0 = HP_MAX(0, floor((f->cmin - 0.1 * yr) / f->ys) * f->ys);
	f->xa = ceil((f->tmax + 0.08 * xr) / f->xs) * f->xs - f->x0;
	f->ya = ceil((f->cmax + 0.18 * yr) / f->ys) * f->ys - f->y0;
	return 1;
}

static double px(const struct pareto_frame *f, const struct search_plan *sp)
{
	return f->L + f->pw * (sp->time_to_train_s / 86400 - f->x0) / f->xa;
}

static double py(const struct pareto_frame *f, const struct search_plan *sp)
{
	return f->T + f->ph - f->ph * (sp->cost_to_train_usd - f->y0) / f->ya;
}

/* Grid, ticks and axis titles. */
static void pareto_axes(struct sbuf *b, const struct pareto_frame *f, double tokens)
{
	double L = f->L, T = f->T, pw = f->pw, ph = f->ph;
	for (double v = 0; v <= f->xa + f->xs / 2; v += f->xs) {
		double x = L + pw * v / f->xa;
		char t[24];
		tick_label(t, sizeof t, f->x0 + v);
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e7ee\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
			  "fill=\"#5d6778\">%s</text>", x, T, x, T + ph, x, T + ph + 16, t);
	}
	for (double v = 0; v <= f->ya + f->ys / 2; v += f->ys) {
		double y = T + ph - ph * v / f->ya;
		char t[24];
		usd_tick(t, sizeof t, f->y0 + v);
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e7ee\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" "
			  "fill=\"#5d6778\">%s</text>", L, y, L + pw, y, L - 8, y + 4, t);
	}
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#8a93a3\"/>"
		  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#8a93a3\"/>",
		  L, T, L, T + ph, L, T + ph, L + pw, T + ph);
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
		  "fill=\"#5d6778\">time to train %s tokens (days)</text>", L + pw / 2, 380.0 - 10,
		  hp_fmt_count((char[32]){ 0 }, 32, tokens));
	sbuf_addf(b, "<text transform=\"translate(16 %.1f) rotate(-90)\" font-size=\"12\" "
		  "text-anchor=\"middle\" fill=\"#5d6778\">cost to train (USD)</text>", T + ph / 2);
}

/* The front as a dashed staircase from fastest to cheapest, the ranked
 * plans as dots (the front's in colour). */
static void pareto_points(struct sbuf *b, const struct pareto_frame *f,
			  const struct report_input *in)
{
	const struct search_result *r = in->res;
	int first = 1;
	for (int i = 0; i < r->n_pareto; i++) {
		const struct search_plan *sp = &r->pareto[i];
		if (!priced(sp))
			continue;
		sbuf_addf(b, "%s%.1f %.1f", first ? "<polyline fill=\"none\" stroke=\"#3b6ea8\" "
			  "stroke-width=\"2\" stroke-dasharray=\"5 3\" points=\"" : " ", px(f, sp),
			  py(f, sp));
		first = 0;
	}
	if (!first)
		sbuf_add(b, "\"/>");
	for (int i = 0; i < r->n_plans; i++) {
		const struct search_plan *sp = &r->plans[i];
		if (!priced(sp))
			continue;
		char label[PLAN_LABEL_MAX];
		report_plan_label(sp, in->res, in->cluster, label, sizeof label);
		sbuf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" fill-opacity=\"0.8\">"
			  "<title>%d. ", px(f, sp), py(f, sp), sp->pareto ? "#3b6ea8" : "#aab2bf", i + 1);
		h(b, label);
		sbuf_add(b, "</title></circle>");
	}
	for (int i = 0; i < r->n_pareto; i++) {
		const struct search_plan *sp = &r->pareto[i];
		if (priced(sp))
			sbuf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#3b6ea8\"/>",
				  px(f, sp), py(f, sp));
	}
}

/* The best plan on each pool alone (squares) and the chosen plan (a ring). */
static void pareto_marks(struct sbuf *b, const struct pareto_frame *f,
			 const struct report_input *in, const struct report_summary *s)
{
	const struct search_result *r = in->res;
	const struct cluster *c = in->cluster;
	for (int i = 0; i < c->n_pools; i++) {
		const struct search_plan *sp = &r->single[i];
		if (!r->has_single[i] || !priced(sp))
			continue;
		/* the chosen plan itself: its ring says it; a "best on POOL
		 * alone" label beside it ran over the ring and the front's line */
		if (s->chosen && plan_equal(&sp->plan, &s->chosen->plan))
			continue;
		double x = px(f, sp), y = py(f, sp);
		int right = x > f->L + f->pw * 0.7;
		sbuf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" fill=\"none\" "
			  "stroke=\"%s\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" "
			  "font-size=\"12\" text-anchor=\"%s\">best on ", x - 5.5, y - 5.5,
			  report_pool_color(i), x + (right ? -10 : 10), y + 18, right ? "end" : "start");
		h(b, c->pools[i].name);
		sbuf_add(b, " alone</text>");
	}
	if (s->chosen && priced(s->chosen)) {
		const struct search_plan *sp = s->chosen;
		char label[PLAN_LABEL_MAX], cut[PLAN_LABEL_MAX];
		report_plan_label(sp, in->res, c, label, sizeof label);
		double x = px(f, sp), y = py(f, sp);
		int right = x > f->L + f->pw * 0.6;
		/* bold 12.5 px after "chosen: ", inside the plot (it ran past
		 * the chart's right edge) */
		double room = (right ? x - f->L : f->L + f->pw - x) - 10;
		fit_label(cut, sizeof cut, label, room / 1.25 - text_w("chosen: "));
		sbuf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#1d2330\" "
			  "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"12.5\" "
			  "font-weight=\"700\" text-anchor=\"%s\">chosen: ", x, y, x + (right ? -6 : 6),
			  y - 16, right ? "end" : "start");
		h(b, cut);
		sbuf_add(b, "</text>");
	}
}

static void chart_pareto(struct sbuf *b, const struct report_input *in,
			 const struct report_summary *s)
{
	struct pareto_frame f;
	if (!pareto_frame(&f, in)) {
		sbuf_add(b, "<p class=\"note\">No plan has a known price, so there is no time vs "
			    "cost chart.</p>\n");
		return;
	}
	sbuf_add(b, "<svg viewBox=\"0 0 1000 380\" role=\"img\" aria-label=\"Time to train "
		    "against cost to train, with the Pareto front\">");
	pareto_axes(b, &f, s->tokens);
	pareto_points(b, &f, in);
	pareto_marks(b, &f, in, s);
	/* legend */
	double L = f.L, T = f.T, pw = f.pw;
	sbuf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#3b6ea8\"/><text x=\"%.1f\" "
		  "y=\"%.1f\" font-size=\"12\">Pareto front</text><circle cx=\"%.1f\" cy=\"%.1f\" "
		  "r=\"5\" fill=\"#aab2bf\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">other "
		  "ranked plans</text>", L + pw - 250, T + 12, L + pw - 240, T + 16, L + pw - 140,
		  T + 12, L + pw - 130, T + 16);
	sbuf_add(b, "</svg>\n");
}

/* ---- chart: replica x stage layout --------------------------------------- */

static void chart_layout(struct sbuf *b, const struct report_input *in,
			 const struct search_plan *sp)
{
	const struct cluster *c = in->cluster;
	const struct plan *p = &sp->plan;
	int layers = in->model->layers;
	int ng = HP_MIN(p->n_replicas, 12);
	const double W = 1000, L = 250, R = 20, row = 64, bh = 40;
	int used[HP_MAX_POOLS];
	plan_gpus(p, used);
	/* the pools' legend, in rows that stop short of the "layers" note
	 * (one row used to run over the note and over itself) */
	char note[64];
	snprintf(note, sizeof note, "layers 0 to %d, left to right", layers - 1);
	double lmax = W - R - text_w(note) - 16, lxs[HP_MAX_POOLS], lys[HP_MAX_POOLS];
	double lx = L, ly = 16;
	for (int i = 0; i < c->n_pools; i++) {
		char t[80];
		snprintf(t, sizeof t, "%.31s (%.31s)", c->pools[i].name, c->pools[i].gpu.name);
		if (used[i] && lx > L && lx + 16 + text_w(t) > lmax) {
			lx = L;
			ly += 18;
		}
		lxs[i] = lx;
		lys[i] = ly;
		if (used[i])
			lx += 34 + text_w(t);
	}
	const double top = 20 + ly;
	double pw = W - L - R, H = top + ng * row + 8;
	sbuf_addf(b, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"Replica and "
		  "pipeline stage layout of the chosen plan\">", W, H);
	for (int i = 0; i < c->n_pools; i++) {
		char t[80];
		snprintf(t, sizeof t, "%.31s (%.31s)", c->pools[i].name, c->pools[i].gpu.name);
		if (used[i])
			legend_item(b, lxs[i], lys[i], report_pool_color(i), t);
	}
	sbuf_addf(b, "<text x=\"%.1f\" y=\"16\" font-size=\"12\" text-anchor=\"end\" "
		  "fill=\"#5d6778\">%s</text>", W - R, note);
	for (int g = 0; g < ng; g++) {
		const struct replica *r = &p->replicas[g];
		double y = top + g * row;
		sbuf_addf(b, "<text x=\"0\" y=\"%.1f\" font-size=\"13\" font-weight=\"600\">"
			  "replica group %d</text><text x=\"0\" y=\"%.1f\" font-size=\"12\" "
			  "fill=\"#5d6778\">%d replica%s, each %.2f%% of the batch</text>",
			  y + 16, g, y + 33, r->count, r->count == 1 ? "" : "s", 100 * r->batch_share);
		/* stacked shadows say "this row stands for count replicas" */
		for (int k = r->count > 2 ? 2 : r->count - 1; k > 0; k--)
			sbuf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" rx=\"3\" "
				  "fill=\"#fff\" stroke=\"#c3cad5\"/>", L + 4 * k, y - 4 * k + 4, pw - 8,
				  bh);
		for (int s = 0; s < r->n_stages; s++) {
			const struct stage *st = &r->stages[s];
			double x0 = L + pw * st->first_layer / layers;
			double w = pw * (st->last_layer - st->first_layer + 1) / layers;
			sbuf_addf(b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" rx=\"3\" "
				  "fill=\"%s\" stroke=\"#fff\" stroke-width=\"1.5\"><title>stage %d: ",
				  x0, y + 4, w, bh, report_pool_color(st->pool), s);
			h(b, c->pools[st->pool].name);
			sbuf_addf(b, ", TP%d, layers %d-%d</title></rect>", st->tp, st->first_layer,
				  st->last_layer);
			/* labels only where they fit */
			if (w >= 58)
				sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11.5\" "
					  "text-anchor=\"middle\" style=\"fill:#fff\" font-weight=\"600\">"
					  "TP%d</text><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
					  "text-anchor=\"middle\" style=\"fill:#fff\">L%d-%d</text>",
					  x0 + w / 2, y + 20, st->tp, x0 + w / 2, y + 35, st->first_layer,
					  st->last_layer);
		}
	}
	sbuf_add(b, "</svg>\n");
	if (p->n_replicas > ng)
		sbuf_addf(b, "<p class=\"note\">%d more replica groups are listed in the JSON "
			  "report.</p>\n", p->n_replicas - ng);
}

/* ---- chart: memory per stage --------------------------------------------- */

static void chart_memory(struct sbuf *b, const struct report_input *in,
			 const struct search_plan *sp)
{
	const struct estimate *e = &sp->est;
	int nm;
	const struct report_part *parts = report_mem_parts(&nm);
	int n = HP_MIN(e->n_stages, 48);
	double gib = 1024.0 * 1024 * 1024, maxv = 0;
	for (int i = 0; i < n; i++)
		maxv = HP_MAX(maxv, HP_MAX(e->stages[i].total, e->stages[i].capacity) / gib);
	const double W = 1000, H = 330, L = 64, R = 20, T = 34, B = 52;
	double pw = W - L - R, ph = H - T - B;
	double ys = nice_step(maxv, 5), ya = ceil(maxv * 1.02 / ys) * ys;
	double slot = pw / n, bw = HP_MIN(slot * 0.7, 70);
	sbuf_addf(b, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"Memory per GPU "
		  "of each pipeline stage against its capacity\">", W, H);
	double lx = L;
	for (int k = 0; k < nm; k++) {
		legend_item(b, lx, 14, parts[k].color, parts[k].label);
		lx += 32 + text_w(parts[k].label);
	}
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"9\" x2=\"%.1f\" y2=\"9\" stroke=\"#1d2330\" "
		  "stroke-width=\"2.5\"/><text x=\"%.1f\" y=\"14\" font-size=\"12\">GPU memory</text>",
		  lx, lx + 16, lx + 22);
	for (double v = 0; v <= ya + ys / 2; v += ys) {
		double y = T + ph - ph * v / ya;
		char t[24];
		tick_label(t, sizeof t, v);
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e7ee\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" "
			  "fill=\"#5d6778\">%s</text>", L, y, L + pw, y, L - 8, y + 4, t);
	}
	sbuf_addf(b, "<text transform=\"translate(16 %.1f) rotate(-90)\" font-size=\"12\" "
		  "text-anchor=\"middle\" fill=\"#5d6778\">GiB per GPU</text>", T + ph / 2);
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
		  "fill=\"#5d6778\">pipeline stage (replica group / stage)</text>", L + pw / 2, H - 8);
	int label_every = n > 24 ? 4 : n > 12 ? 2 : 1;
	for (int i = 0; i < n; i++) {
		const struct perf_stage *st = &e->stages[i];
		double x = L + slot * i + (slot - bw) / 2, y = T + ph;
		for (int k = 0; k < nm; k++) {
			double v = report_part_value(&parts[k], st) / gib;
			double hgt = ph * v / ya;
			if (hgt <= 0)
				continue;
			y -= hgt;
			sbuf_addf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				  "fill=\"%s\"><title>%s: %.1f GiB</title></rect>", x, y, bw, hgt,
				  parts[k].color, parts[k].label, v);
		}
		double cy = T + ph - ph * (st->capacity / gib) / ya;
		sbuf_addf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
			  "stroke-width=\"2.5\"><title>capacity %.1f GiB</title></line>", x - 3, cy,
			  x + bw + 3, cy, st->fits ? "#1d2330" : "#b3402a", st->capacity / gib);
		if (i % label_every == 0) {
			sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
				  "fill=\"#5d6778\">%d/%d", x + bw / 2, T + ph + 16, st->group, st->index);
			if (n <= 16) {
				sbuf_add(b, " ");
				h(b, in->cluster->pools[st->pool].name);
			}
			sbuf_add(b, "</text>");
		}
	}
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#8a93a3\"/>",
		  L, T + ph, L + pw, T + ph);
	sbuf_add(b, "</svg>\n");
	if (e->n_stages > n)
		sbuf_addf(b, "<p class=\"note\">The first %d of %d stages are drawn.</p>\n", n,
			  e->n_stages);
}

/* ---- sections ------------------------------------------------------------ */

/* A section's table as HTML, then freed. */
static void html_table(struct sbuf *b, struct table *t)
{
	table_render_html(b, t);
	table_done(t);
}

void report_html_card(struct sbuf *b, const char *cls, const char *k, const char *v, const char *s)
{
	sbuf_addf(b, "<div class=\"card%s%s\"><div class=\"k\">", *cls ? " " : "", cls);
	h(b, k);
	sbuf_add(b, "</div><div class=\"v\">");
	h(b, v);
	sbuf_add(b, "</div><div class=\"s\">");
	h(b, s);
	sbuf_add(b, "</div></div>\n");
}

static void summary_cards(struct sbuf *b, const struct report_input *in,
			  const struct report_summary *s)
{
	const struct search_plan *sp = s->chosen;
	const struct cluster *c = in->cluster;
	char v[PLAN_LABEL_MAX], t[PLAN_LABEL_MAX + 400], x[32], y[32], z[32];
	sbuf_add(b, "<div class=\"cards\">\n");
	report_plan_label(sp, in->res, c, v, sizeof v);
	char opt[24], ro[160], mem[160];
	snprintf(t, sizeof t, "rank %d of %d, %s, %d GPUs; runs on %s; memory %s", in->chosen + 1,
		 in->res->n_plans, search_optimality_text(sp, opt, sizeof opt), sp->est.n_gpus,
		 report_runs_on_text(sp, ro, sizeof ro), report_memory_text(sp, mem, sizeof mem));
	report_html_card(b, "hero", in->chosen ? "Chosen plan" : "Best plan", v, t);
	snprintf(v, sizeof v, "%s tok/s", hp_fmt_count(x, sizeof x, sp->est.tokens_per_s));
	snprintf(t, sizeof t, "step %s, MFU %.1f%%", hp_fmt_duration(y, sizeof y,
		 sp->est.step_time_s), 100 * sp->est.mfu);
	report_html_card(b, "", "Throughput", v, t);
	snprintf(t, sizeof t, "%s tokens", hp_fmt_count(x, sizeof x, s->tokens));
	report_html_card(b, "", "Time to train", hp_fmt_duration(y, sizeof y, sp->time_to_train_s), t);
	if (sp->est.price_known) {
		snprintf(t, sizeof t, "%s/h, %s per 1M tokens",
			 report_fmt_usd(x, sizeof x, sp->est.usd_per_hour),
			 report_fmt_rate(y, sizeof y, sp->est.usd_per_mtok));
		report_html_card(b, "", "Cost to train", report_fmt_usd(z, sizeof z, sp->cost_to_train_usd), t);
	} else {
		report_html_card(b, "", "Cost to train", "unknown", "a pool in the plan has no price");
	}
	if (s->single && c->n_pools > 1 && report_single_is_chosen(s)) {
		/* not "1.00x the throughput, +0.0%" against itself */
		snprintf(t, sizeof t, "the best plan on %s alone", c->pools[s->single_pool].name);
		report_html_card(b, "", "vs best single pool", "same plan", t);
	} else if (s->single && c->n_pools > 1) {
		char lbl[PLAN_LABEL_MAX];
		double ratio = sp->est.tokens_per_s / s->single->est.tokens_per_s;
		report_plan_label(s->single, in->res, c, lbl, sizeof lbl);
		snprintf(v, sizeof v, "%.2fx", ratio);
		if (sp->est.price_known && s->single->est.price_known &&
		    s->single->cost_to_train_usd > 0)
			snprintf(t, sizeof t, "the throughput, %+.1f%% cost to train, vs %s",
				 100 * (sp->cost_to_train_usd / s->single->cost_to_train_usd - 1), lbl);
		else
			snprintf(t, sizeof t, "the throughput of %s", lbl);
		report_html_card(b, "", "vs best single pool", v, t);
	}
	sbuf_add(b, "</div>\n");
}

static void plans_table(struct sbuf *b, const struct report_input *in)
{
	struct table t;
	report_table_plans(&t, in);
	html_table(b, &t);
	sbuf_add(b, "<p class=\"note\">Runs on: stock frameworks that run the plan as one "
		    "job; none: it needs a heterogeneity-aware runtime. (!): over the memory "
		    "headroom.");
	struct sbuf note;
	sbuf_init(&note);
	report_runs_on_note(in, &note);
	if (note.len) {
		sbuf_add(b, " ");
		h(b, note.s);
	}
	sbuf_done(&note);
	sbuf_add(b, "</p>\n");
}

/* A key and a value as a row of a two-column table. */
static void kv_row(struct sbuf *b, const char *k, const char *v)
{
	sbuf_add(b, "<tr><td>");
	h(b, k);
	sbuf_add(b, "</td><td class=\"n\">");
	h(b, v);
	sbuf_add(b, "</td></tr>");
}

static void cost_table(struct sbuf *b, const struct report_summary *s)
{
	const struct search_plan *sp = s->chosen;
	const struct estimate *e = &sp->est;
	char x[32];
	sbuf_add(b, "<div><h3>Cost to train</h3><table>\n");
	kv_row(b, "tokens to train", hp_fmt_count(x, sizeof x, s->tokens));
	kv_row(b, "tokens per second", hp_fmt_count(x, sizeof x, e->tokens_per_s));
	kv_row(b, "time to train", hp_fmt_duration(x, sizeof x, sp->time_to_train_s));
	kv_row(b, "price per hour", report_fmt_usd(x, sizeof x, e->price_known ? e->usd_per_hour : 0));
	kv_row(b, "per million tokens",
	       report_fmt_rate(x, sizeof x, e->price_known ? e->usd_per_mtok : 0));
	kv_row(b, "cost to train",
	       report_fmt_usd(x, sizeof x, e->price_known ? sp->cost_to_train_usd : 0));
	snprintf(x, sizeof x, "%.1f%% / %.1f%%", 100 * e->mfu, 100 * e->hfu);
	kv_row(b, "MFU / HFU", x);
	snprintf(x, sizeof x, "%.1f kW", e->power_kw);
	kv_row(b, "power (estimate)", x);
	sbuf_add(b, "</table></div>");
}

static void chosen_section(struct sbuf *b, const struct report_input *in,
			   const struct report_summary *s)
{
	const struct search_plan *sp = s->chosen;
	const struct plan *p = &sp->plan;
	const struct estimate *e = &sp->est;
	char label[PLAN_LABEL_MAX], x[32], rc[48];
	struct table t;
	report_plan_label(sp, in->res, in->cluster, label, sizeof label);
	sbuf_addf(b, "<section><h2>Chosen plan: rank %d, ", in->chosen + 1);
	h(b, label);
	sbuf_addf(b, "</h2><p>Micro-batch %d, global batch %d sequences, %s, recompute %s, "
		  "ZeRO-%d, ", p->mbs, p->gbs, hp_dtype_name(p->precision),
		  plan_recompute_text(p, rc, sizeof rc), p->zero);
	if (p->schedule == SCHED_INTERLEAVED)
		sbuf_addf(b, "interleaved schedule (%d chunks per stage)", p->vpp);
	else
		sbuf_add(b, "1F1B schedule");
	sbuf_addf(b, ", CP %d, EP %d, sequence parallel %s.</p>\n", p->cp, p->ep, p->sp ? "on" : "off");
	/* the pools it uses off ib, as the Markdown and plan's detail */
	struct sbuf raw;
	sbuf_init(&raw);
	if (report_plan_transports(in->cluster, p, &raw)) {
		sbuf_add(b, "<p>Transport: ");
		h(b, raw.s);
		sbuf_add(b, ".</p>\n");
	}
	sbuf_done(&raw);
	sbuf_add(b, "<h3>Layout: replicas x pipeline stages</h3>\n");
	chart_layout(b, in, sp);
	report_table_layout(&t, in, sp, 64);
	html_table(b, &t);
	/* step time and cost side by side */
	sbuf_addf(b, "<div class=\"two\"><div><h3>Step time: %s</h3>",
		  hp_fmt_duration(x, sizeof x, e->step_time_s));
	report_table_step(&t, sp);
	html_table(b, &t);
	sbuf_add(b, "</div>");
	cost_table(b, s);
	sbuf_add(b, "</div>\n<h3>Memory per GPU, by stage</h3>\n");
	chart_memory(b, in, sp);
	int left = report_table_memory(&t, in->cluster, sp);
	html_table(b, &t);
	if (left)
		sbuf_addf(b, "<p class=\"note\">%d more stages are left out; the JSON report lists "
			  "every one.</p>\n", left);
	sbuf_addf(b, "<h3>Communication</h3><p class=\"note\">One row per dimension. The step "
		  "time above is replica group %d's, the group that sets the pace%s.</p>",
		  e->slowest_group,
		  p->n_replicas > 1 ? "; with several groups the rows may describe another "
				      "group (hetplan's model keeps one row per dimension)" : "");
	report_table_comm(&t, sp);
	html_table(b, &t);
	sbuf_add(b, "</section>\n");
}

static const struct report_sink html_sink = {
	esc_html, table_render_html, { "<h3>", "</h3>" }, { "<p class=\"note\">", "</p>\n" },
};

static void inputs_section(struct sbuf *b, const struct report_input *in,
			   const struct report_summary *s)
{
	const struct model_spec *m = in->model;
	const struct search_opts *o = in->opts;
	char x[32];
	sbuf_add(b, "<section><h2>Inputs</h2>");
	report_inputs_part(b, &html_sink, in, s);
	sbuf_addf(b, "<h3>Workload</h3><table>"
		  "<tr><td>global batch</td><td class=\"n\">%d sequences of %d tokens</td></tr>"
		  "<tr><td>tokens to train</td><td class=\"n\">%s</td></tr>"
		  "<tr><td>precision</td><td class=\"n\">%s</td></tr>"
		  "<tr><td>objective</td><td class=\"n\">%s</td></tr>",
		  o->gbs, o->seq_len ? o->seq_len : m->seq_len, hp_fmt_count(x, sizeof x, s->tokens),
		  hp_dtype_name(o->precision), search_objective_name(o->objective));
	if (o->objective == OBJ_DEADLINE)
		kv_row(b, "deadline", hp_fmt_duration(x, sizeof x, o->deadline_s));
	if (o->objective == OBJ_BUDGET)
		kv_row(b, "budget", report_fmt_usd(x, sizeof x, o->budget_usd));
	sbuf_add(b, "</table></section>\n");
}

static void singles_section(struct sbuf *b, const struct report_input *in)
{
	struct table t;
	report_table_singles(&t, in);
	sbuf_add(b, "<section><h2>");
	h(b, t.title);
	sbuf_add(b, "</h2>");
	html_table(b, &t);
	sbuf_add(b, "</section>\n");
}

static void trust_section(struct sbuf *b)
{
	int na;
	const char *const *as = report_assumptions(&na);
	struct table t;
	report_table_accuracy(&t);
	sbuf_add(b, "<section><h2>");
	h(b, t.title);
	sbuf_add(b, "</h2>");
	html_table(b, &t);
	sbuf_add(b, "<p class=\"note\">Every figure in this report is an estimate; "
		    "measure a few steps on the real cluster before committing to a plan.</p>"
		    "</section>\n<section><h2>Assumptions and limits</h2><ul>\n");
	for (int i = 0; i < na; i++) {
		sbuf_add(b, "<li>");
		h(b, as[i]);
		sbuf_add(b, "</li>\n");
	}
	sbuf_add(b, "</ul></section>\n");
}

void report_html_head(struct sbuf *b, const char *title, const char *kicker, const char *model,
		      const struct cluster *c)
{
	sbuf_add(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		    "<meta name=\"generator\" content=\"hetplan\"><title>");
	h(b, title);
	sbuf_add(b, ": ");
	h(b, model);
	if (*c->name) {
		sbuf_add(b, " on ");
		h(b, c->name);
	}
	sbuf_addf(b, "</title>\n<style>\n%s</style></head>\n<body><main>\n", report_css);
	sbuf_add(b, "<header class=\"top\"><div class=\"kicker\">");
	h(b, kicker);
	sbuf_add(b, "</div><h1>");
	h(b, model);
	sbuf_add(b, " on ");
	if (*c->name)
		h(b, c->name);
	else
		sbuf_addf(b, "%d GPUs", cluster_total_gpus(c));
	sbuf_add(b, "</h1><div class=\"meta\">");
	for (int i = 0; i < c->n_pools; i++) {
		const struct pool *p = &c->pools[i];
		sbuf_addf(b, "%s%d x %d ", i ? " + " : "", p->nodes, p->gpus_per_node);
		h(b, p->gpu.name);
	}
}

int report_render_html(const struct report_input *in, const struct report_summary *s,
		       struct sbuf *b)
{
	const struct cluster *c = in->cluster;
	const struct search_result *r = in->res;
	const char *mname = *in->model->display ? in->model->display : in->model->name;
	char t[40], x[32];
	report_html_head(b, "Training plan", "hetplan training plan report", mname, c);
	sbuf_addf(b, " &middot; %s tokens, global batch %d &middot; objective %s &middot; "
		  "generated %s by hetplan ", hp_fmt_count(x, sizeof x, s->tokens), in->opts->gbs,
		  search_objective_name(in->opts->objective),
		  report_fmt_time(t, sizeof t, in->generated));
	h(b, in->version ? in->version : "");
	sbuf_add(b, "</div></header>\n");

	if (s->chosen) {
		summary_cards(b, in, s);
		sbuf_add(b, "<section><h2>Ranked plans and where each step's time goes</h2>\n");
		chart_breakdown(b, in);
		plans_table(b, in);
		sbuf_add(b, "</section>\n");
	} else {
		sbuf_add(b, "<section><h2>No plan fits</h2><p>");
		h(b, r->why);
		sbuf_add(b, "</p>");
		if (r->has_nearest) {
			char label[PLAN_LABEL_MAX];
			report_plan_label(&r->nearest, in->res, c, label, sizeof label);
			sbuf_add(b, "<p>Nearest miss: ");
			h(b, label);
			if (!r->nearest.est.fits)
				sbuf_addf(b, ", %s over GPU memory on its fullest stage",
					  hp_fmt_bytes(x, sizeof x, r->nearest.est.worst_over_bytes));
			sbuf_add(b, ".</p>");
		}
		sbuf_add(b, "</section>\n");
	}
	if (r->n_plans || r->n_pareto) {
		sbuf_add(b, "<section><h2>Time against cost to train</h2><p class=\"note\">Each "
			    "point is a plan; the dashed line joins the plans no other plan beats "
			    "on both time and cost.</p>\n");
		chart_pareto(b, in, s);
		sbuf_add(b, "</section>\n");
	}
	if (s->chosen)
		chosen_section(b, in, s);
	inputs_section(b, in, s);
	singles_section(b, in);
	if (in->extra)
		in->extra->html(b, in->extra->ctx);
	trust_section(b);
	sbuf_addf(b, "<footer>Search: %ld candidate plans, %ld estimated, %ld pruned, %d LP "
		  "solves, %.2f s%s. hetplan is free software (GPL-3.0-or-later).</footer>\n",
		  r->stats.candidates, r->stats.evaluated, r->stats.pruned, r->stats.lp_solves,
		  r->stats.seconds, r->stats.cancelled ? " (cancelled early)" : "");
	sbuf_add(b, "</main></body></html>\n");
	return 0;
}
