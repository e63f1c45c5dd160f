/* test_hardening_utf8.c — text cut inside a multi-byte character: a
 * pool's default site from long or multi-byte input, and the HTML and CSV
 * sinks given bytes that are no UTF-8 (docs/hardening.md).
 *
 * Facts: cluster.c's field doc says a pool's site defaults to
 * "{provider}/{region}"; RFC 3629 says a UTF-8 text holds whole characters
 * only; a saved workspace must read back (workspace_to_string, then
 * workspace_parse, as the TUI's save and open do).
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "t.h"
#include "cluster.h"
#include "escape.h"
#include "sbuf.h"
#include "workspace.h"

#include <stdlib.h>

static struct catalog cat;

/* "\u20ac" x 10: 30 bytes, within region's 31. The site kept 23 bytes of
 * the region, which ends inside the eighth euro sign: a site that is no
 * UTF-8, written into the saved workspace, which then did not open. */
TEST(multibyte_region_site_round_trip)
{
	static const char ws[] =
		"{\"cluster\": {\"pools\": [{\"name\": \"a\", \"gpu\": \"H100-SXM\", \"nodes\": 2,"
		" \"provider\": \"gcp\", \"region\": \"\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
		"\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\"}]},"
		" \"model\": \"llama3.1-8b\"}";
	struct hp_err err = { 0 };
	struct workspace w, w2;
	CHECK(workspace_parse(&w, ws, sizeof ws - 1, "w.json", &cat, &err) == 0);
	CHECK(esc_is_printable(w.cluster.pools[0].site, 63));
	CHECK(!strcmp(w.cluster.pools[0].site,
		      "gcp/\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
		      "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"));
	char *text = workspace_to_string(&w);
	CHECK(text != NULL);
	if (!text)
		return;
	int rc = workspace_parse(&w2, text, strlen(text), "w.json", &cat, &err);
	if (rc)
		T_FAILF("saved workspace does not read back: %s", err.msg);
	free(text);
}

/* Two regions of one provider that differ at their last byte (30 bytes
 * each) are two sites: the DP traffic between the pools crosses the WAN.
 * With 23 bytes kept they were one. */
TEST(long_regions_are_two_sites)
{
	static const char js[] =
		"{\"pools\": [{\"name\": \"x\", \"gpu\": \"H100-SXM\", \"nodes\": 2, \"provider\": "
		"\"aws\", \"region\": \"europe-west-very-long-region-1\"}, {\"name\": \"y\", \"gpu\": "
		"\"H100-SXM\", \"nodes\": 2, \"provider\": \"aws\", \"region\": "
		"\"europe-west-very-long-region-2\"}]}";
	struct hp_err err = { 0 };
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_parse_json(&c, js, sizeof js - 1, "t.json", &cat, &err) == 0);
	CHECK(!cluster_same_site(&c, 0, 1));
	CHECK(!strcmp(c.pools[1].site, "aws/europe-west-very-long-region-2"));
}

/* The longest provider (23 bytes) and region (31 bytes) both whole. */
TEST(longest_provider_and_region)
{
	static const char js[] =
		"{\"pools\": [{\"name\": \"x\", \"gpu\": \"H100-SXM\", \"nodes\": 2, \"provider\": "
		"\"ppppppppppppppppppppppp\", \"region\": \"rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr\"}]}";
	struct hp_err err = { 0 };
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_parse_json(&c, js, sizeof js - 1, "t.json", &cat, &err) == 0);
	CHECK(!strcmp(c.pools[0].site, "ppppppppppppppppppppppp/rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"));
}

/* The HTML and CSV sinks write a byte that is no UTF-8 as U+FFFD, as the
 * JSON sink does (RFC 3629; the WHATWG decoder shows such a byte as
 * U+FFFD too, a spreadsheet as mojibake): "a" + the first two bytes of
 * U+20AC, the cut a bounded buffer made of a GPU name. */
static void sink_is(void (*fn)(struct sbuf *, const char *), const char *in, const char *want)
{
	struct sbuf b;
	sbuf_init(&b);
	fn(&b, in);
	if (strcmp(b.s ? b.s : "", want))
		T_FAILF("got \"%s\", want \"%s\"", b.s ? b.s : "", want);
	sbuf_done(&b);
}

TEST(html_csv_sinks_replace_broken_bytes)
{
	sink_is(esc_html, "a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd");
	sink_is(esc_html, "<\xe2\x82\xac>", "&lt;\xe2\x82\xac&gt;");
	sink_is(esc_csv, "a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd");
	sink_is(esc_csv, "x,\xff\"", "\"x,\xef\xbf\xbd\"\"\"");
	sink_is(esc_csv, "=\xe2\x82\xac", "\"'=\xe2\x82\xac\"");
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return 1;
	}
	RUN(multibyte_region_site_round_trip);
	RUN(long_regions_are_two_sites);
	RUN(longest_provider_and_region);
	RUN(html_csv_sinks_replace_broken_bytes);
	return t_done("test_hardening_utf8");
}
