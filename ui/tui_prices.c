/* tui_prices.c — the Prices view: where prices come from, how old they
 * are, and the cheapest offer per GPU. The catalog's reference prices are
 * always there; `r` downloads the live SkyPilot catalogs in the background
 * (tui_fetch.c) and the cheapest offers appear beside the reference. */
#include "tui_int.h"

#include <stdlib.h>
#include <string.h>

/* The default live sources: SkyPilot's hosted catalogs, schema v8. */
static const char *const default_urls[] = {
	"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/aws/vms.csv",
	"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/gcp/vms.csv",
	"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/azure/vms.csv",
	"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/runpod/vms.csv",
};

/* The URLs to fetch: --price-url / HETPLAN_PRICES_URL (space or comma
 * separated), else the defaults. Returns the count; urls point into buf. */
static int price_urls(const struct tui *t, char *buf, size_t n, const char **urls, int max)
{
	if (!*t->price_url) {
		int k = (int)HP_ARRAY_LEN(default_urls);
		for (int i = 0; i < k && i < max; i++)
			urls[i] = default_urls[i];
		return HP_MIN(k, max);
	}
	hp_strlcpy(buf, t->price_url, n);
	int k = 0;
	for (char *s = strtok(buf, " ,"); s && k < max; s = strtok(NULL, " ,"))
		urls[k++] = s;
	return k;
}

void tui_prices_start(struct tui *t)
{
	char buf[256];
	const char *urls[8];
	int n = price_urls(t, buf, sizeof buf, urls, 8);
	if (fetch_start(t->fetch, urls, n) < 0)
		tui_message(t, 1, "a price download is already running (Esc cancels it)");
}

void tui_prices_poll(struct tui *t)
{
	struct price_offer *o;
	int n = fetch_take(t->fetch, &o);
	if (n >= 0) {
		free(t->offers);
		t->offers = o;
		t->n_offers = n;
		t->offers_at = hp_now();
		tui_message(t, 0, "prices: %d offers for catalog GPUs", n);
	} else {
		struct fetch_status st;
		fetch_status(t->fetch, &st);
		if (st.state == FETCH_FAILED && st.finished > t->offers_at && !*t->msg)
			tui_message(t, 1, "prices: %s", st.err);
	}
}

void tui_prices_status(struct tui *t, char *buf, size_t n, double *frac)
{
	struct fetch_status st;
	fetch_status(t->fetch, &st);
	*buf = 0;
	if (st.state != FETCH_RUNNING)
		return;
	char b[16];
	hp_fmt_bytes(b, sizeof b, st.bytes);
	snprintf(buf, n, "fetching prices %d/%d, %s, Esc cancels", st.source + 1, st.n_sources, b);
	*frac = st.total > 0 ? st.bytes / st.total : (double)st.source / (st.n_sources ? st.n_sources : 1);
}

int view_prices_rows(struct tui *t)
{
	return t->cat->n_gpus;
}

void prices_row_text(struct tui *t, int row, char *buf, size_t n)
{
	const struct gpu_spec *g = &t->cat->gpus[row];
	snprintf(buf, n, "%s %s %s", g->name, g->vendor, g->arch);
}

/* The cheapest live on-demand offer for gpu, or NULL. */
static const struct price_offer *cheapest(const struct tui *t, const char *gpu, int spot)
{
	const struct price_offer *best = NULL;
	for (int i = 0; i < t->n_offers; i++) {
		const struct price_offer *o = &t->offers[i];
		double v = spot ? o->spot_usd_per_gpu_h : o->usd_per_gpu_h;
		if (strcmp(o->gpu, gpu) || v <= 0)
			continue;
		if (!best || v < (spot ? best->spot_usd_per_gpu_h : best->usd_per_gpu_h))
			best = o;
	}
	return best;
}

static void fmt_age(char *buf, size_t n, double s)
{
	if (s < 60)
		snprintf(buf, n, "just now");
	else if (s < 7200)
		snprintf(buf, n, "%.0f min ago", s / 60);
	else
		snprintf(buf, n, "%.1f h ago", s / 3600);
}

void view_prices_draw(struct tui *t, int y0, int h)
{
	struct fetch_status st;
	fetch_status(t->fetch, &st);
	int y = y0;
	tui_section(t, y++, 0, COLS, "Sources");
	tui_putf(y++, 2, COLS - 4, 0, "%-22s %s", "catalog reference",
		 "built in: on-demand $/GPU-h per GPU type");
	char buf[256], age[32] = "";
	const char *urls[8];
	int nu = price_urls(t, buf, sizeof buf, urls, 8);
	char live[200];
	if (st.state == FETCH_RUNNING) {
		char b[16];
		hp_fmt_bytes(b, sizeof b, st.bytes);
		snprintf(live, sizeof live, "fetching %d/%d: %s", st.source + 1, st.n_sources, b);
	} else if (t->offers_at > 0) {
		fmt_age(age, sizeof age, hp_now() - t->offers_at);
		snprintf(live, sizeof live, "%d offers, fetched %s", t->n_offers, age);
	} else if (st.state == FETCH_FAILED) {
		snprintf(live, sizeof live, "failed: %.180s", st.err);
	} else if (st.state == FETCH_CANCELLED) {
		snprintf(live, sizeof live, "download cancelled");
	} else {
		snprintf(live, sizeof live, "not fetched yet: r downloads %d catalog%s", nu,
			 nu == 1 ? "" : "s");
	}
	int x = 2 + tui_putf(y, 2, 24, 0, "%-22s ", "SkyPilot catalogs");
	if (st.state == FETCH_RUNNING) {
		double frac = st.total > 0 ? st.bytes / st.total
					   : (double)st.source / (st.n_sources ? st.n_sources : 1);
		tui_bar(t, y, x, 20, frac, tui_attr(t, C_WARN));
		x += 22;
	}
	tui_put(y++, x, COLS - x - 1,
		tui_attr(t, st.state == FETCH_FAILED && t->offers_at <= 0 ? C_BAD : C_NORMAL), live);
	tui_putf(y++, 25, COLS - 26, tui_attr(t, C_DIM), "%.200s%s", nu ? urls[0] : "",
		 nu > 1 ? " ..." : "");
	y++;
	/* GPUs: reference, cheapest live offer, and what the cluster pays. */
	int wide = COLS >= 120;
	tui_section(t, y++, 0, COLS, "Price per GPU-hour");
	char hdr[256];
	snprintf(hdr, sizeof hdr, "%-16s %6s %9s %9s %9s  %-*s%s", "GPU", "MEM", "CATALOG",
		 "CHEAPEST", "SPOT", wide ? 44 : 26, "WHERE", wide ? "YOUR POOLS" : "");
	tui_put(y++, 1, COLS - 2, tui_attr(t, C_TITLE), hdr);
	int n = t->cat->n_gpus, lh = y0 + h - y;
	tui_list_fix(&t->lprices, n, lh);
	t->mouse_list = &t->lprices;
	t->mouse_y0 = y;
	t->mouse_rows = lh;
	for (int r = 0; r < lh && t->lprices.top + r < n; r++, y++) {
		int i = t->lprices.top + r;
		const struct gpu_spec *g = &t->cat->gpus[i];
		const struct price_offer *o = cheapest(t, g->name, 0), *sp = cheapest(t, g->name, 1);
		char ref[16] = "-", ch[16] = "-", spot[16] = "-", where[96] = "", pools[96] = "";
		if (g->ref_usd_per_gpu_h > 0)
			snprintf(ref, sizeof ref, "%.2f", g->ref_usd_per_gpu_h);
		if (o) {
			snprintf(ch, sizeof ch, "%.2f", o->usd_per_gpu_h);
			snprintf(where, sizeof where, "%.8s %.20s %.14s", o->cloud, o->instance, o->region);
		}
		if (sp)
			snprintf(spot, sizeof spot, "%.2f", sp->spot_usd_per_gpu_h);
		for (int k = 0; k < t->ws.cluster.n_pools; k++) {
			const struct pool *p = &t->ws.cluster.pools[k];
			if (strcmp(p->gpu.name, g->name) || p->usd_per_node_h <= 0)
				continue;
			size_t l = strlen(pools);
			snprintf(pools + l, sizeof pools - l, "%s%.12s %.2f", l ? ", " : "", p->name,
				 p->usd_per_node_h / p->gpus_per_node);
		}
		char line[320];
		snprintf(line, sizeof line, "%-16.16s %6.0f %9s %9s %9s  %-*.*s%s", g->name,
			 g->mem_bytes / 1e9, ref, ch, spot, wide ? 44 : 26, wide ? 44 : 26, where,
			 wide ? pools : "");
		int sel = i == t->lprices.sel;
		int a = sel ? tui_attr(t, C_SEL) : *pools ? (int)A_BOLD : 0;
		if (sel)
			tui_fill(y, 0, COLS, a);
		tui_put(y, 1, COLS - 2, a, line);
	}
}

int view_prices_key(struct tui *t, int action, int ch)
{
	int n = view_prices_rows(t);
	int h = tui_view_rows() - 8;
	if (action == ACT_NONE) {
		tui_list_fix(&t->lprices, n, h);
		return R_DRAW;
	}
	if (tui_list_move(&t->lprices, action, n, h))
		return R_DRAW;
	switch (action) {
	case ACT_REFRESH:
		tui_prices_start(t);
		return R_DRAW;
	case ACT_SEARCH:
		tui_start_prompt(t, P_SEARCH, "Find GPU:", t->search);
		return R_DRAW;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		tui_search(t, action == ACT_SEARCH_NEXT ? 1 : -1);
		return R_DRAW;
	}
	return R_NONE;
}
