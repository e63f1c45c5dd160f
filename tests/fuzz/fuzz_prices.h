/* fuzz_prices.h — what the price-feed fuzz targets (fuzz_skypilot,
 * fuzz_azure, fuzz_feed) require of a parsed book: every text it keeps,
 * and the price line of a pool priced from it, is valid UTF-8 (RFC 3629).
 * A region or instance longer than its field cut inside a character was
 * written as '?' in the book and as a broken byte pair on plan's price
 * line (pricing_apply's "%.16s" region), which reached the terminal and
 * the launch comments. Aborts otherwise. */
#ifndef HP_FUZZ_PRICES_H
#define HP_FUZZ_PRICES_H

#include <stdio.h>

#include "cluster.h"
#include "pricing.h"
#include "utf8.h"

static void fp_utf8(const char *s)
{
	for (size_t i = 0; s[i];) {
		int k = utf8_len(s + i, NULL);
		if (!k)
			abort();
		i += (size_t)k;
	}
}

/* A pool of one node of each of the first offers' GPUs (catalog GPUs,
 * whole GPU counts), priced from the book: its price line is UTF-8. */
static void fp_price_line(const struct price_book *pb, const struct catalog *cat)
{
	static struct cluster c;
	for (int i = 0; i < pb->n && i < 8; i++) {
		const struct price_offer *o = &pb->offers[i];
		int n = (int)o->gpus;
		if (n < 1 || n > 64 || n != o->gpus)
			continue;
		char spec[64];
		snprintf(spec, sizeof spec, "1x%dx%s", n, o->gpu);
		struct hp_err err = { 0 };
		cluster_init(&c);
		if (cluster_add_pool_spec(&c, spec, cat, &err) < 0)
			continue;
		pricing_apply(pb, &c);
		fp_utf8(c.pools[0].price_source);
	}
}

__attribute__((unused)) static void fuzz_book_utf8(const struct price_book *pb,
						   const struct catalog *cat)
{
	for (int i = 0; i < pb->n; i++) {
		const struct price_offer *o = &pb->offers[i];
		fp_utf8(o->provider);
		fp_utf8(o->region);
		fp_utf8(o->zone);
		fp_utf8(o->instance);
		fp_utf8(o->gpu);
		fp_utf8(o->label);
		fp_utf8(o->note);
	}
	for (int s = 0; s < pb->n_src; s++) {
		fp_utf8(pb->src[s].name);
		fp_utf8(pb->src[s].url);
	}
	fp_utf8(pb->warnings);
	fp_price_line(pb, cat);
}

#endif
