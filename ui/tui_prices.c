/* tui_prices.c — the Prices view and the pools' prices.
 *
 * The price book (src/pricing.h) is the embedded SkyPilot snapshot plus
 * whatever the cache holds; it is loaded at start without touching the
 * network. Pools whose price the user did not set take the book's
 * cheapest matching offer, else the catalog's reference price. `r` updates
 * the book in the background (tui_fetch.c); when that ends the book is
 * reloaded, the pools repriced and the plans recomputed. The view lists
 * the sources with their age, then each catalog GPU with its reference
 * price, the cheapest on-demand and spot offers, and what the cluster's
 * pools pay. */
#include "plan_label.h"
#include "table.h"
#include "tui_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The cheapest on-demand and spot offer per catalog GPU, and counts. */
static void index_offers(struct tui *t)
{
	int n = t->cat->n_gpus;
	free(t->cheap);
	free(t->cheap_spot);
	free(t->n_offers_gpu);
	t->cheap = xcalloc((size_t)n + 1, sizeof *t->cheap);
	t->cheap_spot = xcalloc((size_t)n + 1, sizeof *t->cheap_spot);
	t->n_offers_gpu = xcalloc((size_t)n + 1, sizeof *t->n_offers_gpu);
	if (!t->have_pb)
		return;
	for (int k = 0; k < t->pb.n; k++) {
		const struct price_offer *o = &t->pb.offers[k];
		if (o->flags & PF_GPU_ONLY)
			continue;
		for (int i = 0; i < n; i++) {
			if (strcmp(o->gpu, t->cat->gpus[i].name))
				continue;
			const struct price_offer **best = o->spot ? &t->cheap_spot[i] : &t->cheap[i];
			if (!*best || o->usd_per_gpu_h < (*best)->usd_per_gpu_h)
				*best = o;
			t->n_offers_gpu[i]++;
		}
	}
}

void tui_prices_init(struct tui *t)
{
	struct hp_err err = { 0 };
	if (pricing_config_load(&t->pcfg, NULL, &err) < 0) {
		tui_message(t, 1, "prices: %s", err.msg);
		memset(&t->pcfg, 0, sizeof t->pcfg);
	} else if (pricing_load(&t->pb, &t->pcfg, t->cat, &err) < 0) {
		tui_message(t, 1, "prices: %s", err.msg);
	} else {
		t->have_pb = 1;
		if (*t->pb.warnings)
			tui_message(t, 1, "prices: %s", t->pb.warnings);
	}
	index_offers(t);
	tui_prices_apply(t);
}

void tui_prices_done(struct tui *t)
{
	if (t->have_pb)
		pricing_free(&t->pb);
	t->have_pb = 0;
	free(t->cheap);
	free(t->cheap_spot);
	free(t->n_offers_gpu);
	t->cheap = t->cheap_spot = NULL;
	t->n_offers_gpu = NULL;
}

void tui_prices_apply(struct tui *t)
{
	struct cluster *c = &t->ws.cluster;
	for (int i = 0; i < c->n_pools; i++) {
		struct pool *p = &c->pools[i];
		if (p->price_set)
			continue;
		const struct gpu_spec *g = &p->gpu;
		p->usd_per_node_h = 0;
		*p->price_source = 0;
		if (g->ref_usd_per_gpu_h > 0) {
			/* The GPU lives inside the pool: copy before formatting. */
			char ref[80];
			snprintf(ref, sizeof ref, "%.*s", UTF8_CUT(g->ref_price_source, sizeof ref - 1));
			p->usd_per_node_h = g->ref_usd_per_gpu_h * p->gpus_per_node;
			snprintf(p->price_source, sizeof p->price_source, "catalog reference: %.*s",
				 UTF8_CUT(ref, 76));
		}
	}
	if (t->have_pb)
		pricing_apply(&t->pb, c);
}

void tui_prices_start(struct tui *t)
{
	if (!t->pcfg.n_sources) {
		tui_message(t, 1, "prices: no sources configured");
		return;
	}
	if (fetch_start(t->fetch) < 0)
		tui_message(t, 1, "a price update is already running (Esc cancels it)");
}

/* An update ended on the worker, not on a key: its news joins whatever
 * message the user has up (tui_note), in brief, instead of replacing it. */
int tui_prices_poll(struct tui *t)
{
	if (!t->fetch || !fetch_finished(t->fetch))
		return 0;
	struct fetch_status st;
	fetch_status(t->fetch, &st);
	if (st.state == FETCH_CANCELLED) {
		tui_note(t, 0, "price update cancelled; the cache is unchanged",
			 "price update cancelled");
		return 1;
	}
	struct hp_err err = { 0 };
	struct price_book nb;
	char whole[sizeof t->msg], brief[64];
	if (pricing_load(&nb, &t->pcfg, t->cat, &err) < 0) {
		snprintf(whole, sizeof whole, "prices: %.*s", UTF8_CUT(err.msg, 200));
		tui_note(t, 1, whole, "prices not reloaded (5)");
		return 1;
	}
	if (t->have_pb)
		pricing_free(&t->pb);
	t->pb = nb;
	t->have_pb = 1;
	index_offers(t);
	if (st.n_failed) {
		snprintf(whole, sizeof whole, "prices: %d source%s updated, %d failed (%.*s)",
			 st.n_fetched, st.n_fetched == 1 ? "" : "s", st.n_failed, UTF8_CUT(st.err, 180));
		snprintf(brief, sizeof brief, "prices: %d failed (5)", st.n_failed);
		tui_note(t, 1, whole, brief);
	} else {
		snprintf(whole, sizeof whole, "prices: %d source%s updated", st.n_fetched,
			 st.n_fetched == 1 ? "" : "s");
		tui_note(t, 0, whole, "prices updated");
	}
	return 1;
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
	snprintf(buf, n, "fetching prices %d/%d, %s, Esc cancels", st.source, st.n_sources, b);
	*frac = st.n_sources ? (st.source + (st.total > 0 ? st.bytes / st.total : 0)) / st.n_sources
			     : 0;
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

static const char *origin_name(enum price_origin o)
{
	return o == PRICE_EMBEDDED ? "built in" : o == PRICE_CACHE ? "cache" : "live";
}

/* The line under the list: for the selected GPU, where its CATALOG
 * reference and its CHEAPEST offer come from and, when they differ, why
 * (another provider, another instance size, another region). Both always
 * name the same catalog part, form factor included (test_catalog_tables). */
static void prices_why(struct tui *t, int y)
{
	int i = t->lprices.sel;
	if (i < 0 || i >= t->cat->n_gpus)
		return;
	const struct gpu_spec *g = &t->cat->gpus[i];
	const struct price_offer *o = t->cheap ? t->cheap[i] : NULL;
	char line[320], ra[32], rb[32];
	if (g->ref_usd_per_gpu_h <= 0 && !o) {
		snprintf(line, sizeof line, "%s: no reference price and no offer in the book",
			 g->name);
	} else if (g->ref_usd_per_gpu_h <= 0) {
		snprintf(line, sizeof line, "%s: no catalog reference; pools pay the cheapest offer",
			 g->name);
	} else if (!o) {
		snprintf(line, sizeof line, "%s: catalog %s is %.*s; the book has no offer",
			 g->name, table_rate(ra, sizeof ra, g->ref_usd_per_gpu_h, 0),
			 UTF8_CUT(g->ref_price_source, 80));
	} else {
		char prov[24] = "", inst[64] = "";
		sscanf(g->ref_price_source, "%23s %63s", prov, inst);
		/* equal as table_rate writes them (to a tenth of a cent) */
		const char *why = !strcmp(table_rate(ra, sizeof ra, o->usd_per_gpu_h, 0),
					  table_rate(rb, sizeof rb, g->ref_usd_per_gpu_h, 0))
			? NULL
			: strcmp(prov, o->provider) ? "another provider"
			: strcmp(inst, o->instance) ? "another instance size"
			: "another region, zone or snapshot";
		if (!why)
			snprintf(line, sizeof line, "%s: catalog = cheapest %s, %.*s", g->name,
				 ra, UTF8_CUT(g->ref_price_source, 80));
		else
			snprintf(line, sizeof line, "%s: cheapest is %s. catalog %s = %.*s; "
				 "cheapest %s = %.*s %.*s %.*s", g->name, why,
				 rb, UTF8_CUT(g->ref_price_source, 50), ra,
				 UTF8_CUT(o->provider, 12), UTF8_CUT(o->instance, 24), UTF8_CUT(o->region, 16));
	}
	tui_put(y, 1, COLS - 2, tui_attr(t, C_DIM), line);
}

void view_prices_draw(struct tui *t, int y0, int h)
{
	struct fetch_status st;
	fetch_status(t->fetch, &st);
	int y = y0;
	int wide = COLS >= 120;
	/* WHERE: 46 columns beside YOUR POOLS, else what the screen leaves. */
	int wcol = wide ? 46 : HP_MAX(10, COLS - 2 - 52);
	tui_section(t, y++, 0, COLS, "Sources");
	if (st.state == FETCH_RUNNING) {
		double frac = st.n_sources ? (st.source + (st.total > 0 ? st.bytes / st.total : 0)) /
						     st.n_sources : 0;
		char b[16];
		hp_fmt_bytes(b, sizeof b, st.bytes);
		tui_putf(y, 2, 20, tui_attr(t, C_WARN), "updating %d/%d", st.source, st.n_sources);
		tui_bar(t, y, 18, 24, frac, tui_attr(t, C_WARN));
		tui_putf(y++, 44, COLS - 45, 0, "%.*s %s, Esc cancels", UTF8_CUT(st.url, 40), b);
	} else if (st.state == FETCH_CANCELLED) {
		tui_put(y++, 2, COLS - 4, tui_attr(t, C_WARN), "update cancelled; the cache is unchanged");
	} else if (st.state == FETCH_DONE || st.state == FETCH_FAILED) {
		tui_putf(y++, 2, COLS - 4, tui_attr(t, st.n_failed ? C_WARN : C_GOOD),
			 "last update: %d fetched or current, %d failed", st.n_fetched, st.n_failed);
		/* why, wrapped: the status line's copy is cut at 80 columns
		 * inside the source's URL, before the reason, and a source
		 * that never loaded has no row below to say it */
		if (st.n_failed && *st.err) {
			char why[300];
			snprintf(why, sizeof why, "first failure: %s", st.err);
			y += tui_put_wrapped(y, 4, COLS - 6, 4, tui_attr(t, C_WARN), why);
		}
	} else {
		tui_putf(y++, 2, COLS - 4, tui_attr(t, C_DIM), "r updates %d source%s in the background",
			 t->pcfg.n_sources, t->pcfg.n_sources == 1 ? "" : "s");
	}
	int ns = t->have_pb ? t->pb.n_src : 0;
	int src_rows = HP_MIN(ns, wide ? 8 : 3);
	time_t now = time(NULL);
	for (int i = 0; i < src_rows; i++) {
		const struct price_source_info *s = &t->pb.src[i];
		char age[96], res[160] = "";
		pricing_describe_age(s, (double)now, age, sizeof age);
		struct price_update u;
		if (fetch_result(t->fetch, s->name, &u) && u.result == PRICE_FAILED)
			snprintf(res, sizeof res, "failed: %.*s", UTF8_CUT(u.msg, 140));
		/* the name in 16 columns, cut on a whole UTF-8 character */
		size_t k = utf8_cut_cols(s->name, 16);
		tui_putf(y++, 2, COLS - 4, 0, "%.*s%*s %-8s %5d offers  %-40.40s %s", (int)k,
			 s->name, 16 - utf8_cols_n(s->name, k), "", origin_name(s->origin),
			 s->n_offers, age, res);
	}
	if (ns > src_rows)
		tui_putf(y++, 2, COLS - 4, tui_attr(t, C_DIM), "and %d more sources", ns - src_rows);
	y++;
	tui_section(t, y++, 0, COLS, "Price per GPU-hour, USD");
	char hdr[256];
	snprintf(hdr, sizeof hdr, "%-16s %6s %8s %8s %6s  %-*s%s", "GPU", "OFFERS", "CATALOG",
		 "CHEAPEST", "SPOT", wcol, "WHERE", wide ? "YOUR POOLS" : "");
	tui_put(y++, 1, COLS - 2, tui_attr(t, C_TITLE), hdr);
	int n = t->cat->n_gpus, lh = y0 + h - y - 1;
	tui_list_fix(&t->lprices, n, lh);
	/* YOUR POOLS names the pools as the plan labels do: a long name's
	 * head and tail around "~", never two pools that read alike (a cut
	 * at 12 bytes read "h100-reserve" for h100-reserved-east and -west) */
	char pnames[HP_MAX_POOLS][PLAN_POOL_NAME_MAX];
	plan_pool_names(&t->ws.cluster, pnames);
	t->mouse_list = &t->lprices;
	t->mouse_y0 = y;
	t->mouse_rows = lh;
	for (int r = 0; r < lh && t->lprices.top + r < n; r++, y++) {
		int i = t->lprices.top + r;
		const struct gpu_spec *g = &t->cat->gpus[i];
		const struct price_offer *o = t->cheap ? t->cheap[i] : NULL;
		const struct price_offer *sp = t->cheap_spot ? t->cheap_spot[i] : NULL;
		char ref[16] = "-", ch[16] = "-", spot[16] = "-", where[128] = "", pools[128] = "";
		if (g->ref_usd_per_gpu_h > 0)
			table_rate(ref, sizeof ref, g->ref_usd_per_gpu_h, 8);
		if (o) {
			table_rate(ch, sizeof ch, o->usd_per_gpu_h, 8);
			/* Whole words in the WHERE column: the region goes first,
			 * then the instance ends in an ellipsis. */
			int ww = wcol;
			snprintf(where, sizeof where, "%.*s %.*s %.*s", UTF8_CUT(o->provider, 12),
				 UTF8_CUT(o->instance, 60), UTF8_CUT(o->region, 20));
			if ((int)strlen(where) > ww)
				snprintf(where, sizeof where, "%.*s %.*s", UTF8_CUT(o->provider, 12),
					 UTF8_CUT(o->instance, 60));
			if ((int)strlen(where) > ww) {
				/* at the last '_', '-' or '.' that fits */
				int cut = ww - 1;
				while (cut > 0 && !strchr("_-. ", where[cut]))
					cut--;
				if (cut < ww / 2)
					cut = ww - 1;
				where[cut] = '\0';
				ww = cut + 1;
				snprintf(where + ww - 1, sizeof where - (size_t)(ww - 1), "%s",
					 tui_glyph(t, G_MID));
			}
		}
		if (sp)
			table_rate(spot, sizeof spot, sp->usd_per_gpu_h, 6);
		for (int k = 0; k < t->ws.cluster.n_pools; k++) {
			const struct pool *p = &t->ws.cluster.pools[k];
			if (strcmp(p->gpu.name, g->name) || !pool_price_known(p))
				continue;
			size_t l = strlen(pools);
			char rt[32], one[96];
			int ol = snprintf(one, sizeof one, "%s%s %s", l ? ", " : "", pnames[k],
					  table_rate(rt, sizeof rt, p->usd_per_node_h / p->gpus_per_node, 0));
			/* whole entries only: a byte cut could split a UTF-8 name */
			if (ol > 0 && l + (size_t)ol < sizeof pools)
				memcpy(pools + l, one, (size_t)ol + 1);
		}
		char line[320 + sizeof pools];
		/* Pad by columns, not bytes: the ellipsis may be 3 bytes. */
		int ww = wcol + (int)strlen(where) - tui_width(where);
		snprintf(line, sizeof line, "%-16.16s %6d %8s %8s %6s  %-*.*s%s", g->name,
			 t->n_offers_gpu ? t->n_offers_gpu[i] : 0, ref, ch, spot, ww, ww, where,
			 wide ? pools : "");
		int sel = i == t->lprices.sel;
		int a = sel ? tui_attr(t, C_SEL) : *pools ? (int)A_BOLD : 0;
		if (sel)
			tui_fill(y, 0, COLS, a);
		tui_put(y, 1, COLS - 2, a, line);
	}
	prices_why(t, y0 + h - 1);
}

int view_prices_key(struct tui *t, int action, int ch)
{
	int n = view_prices_rows(t);
	int h = tui_view_rows() - 10;
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
