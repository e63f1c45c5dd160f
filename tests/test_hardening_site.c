/* test_hardening_site.c — a pool's default site and name from long or
 * multi-byte input (docs/hardening.md, "Names").
 *
 * Facts: cluster.c's field doc says a pool's site defaults to
 * "{provider}/{region}"; RFC 3629 says a UTF-8 text holds whole characters
 * only; a saved workspace must read back (workspace_to_string, then
 * workspace_parse, as the TUI's save and open do).
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "t.h"
#include "cluster.h"
#include "escape.h"
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
	return t_done("test_hardening_site");
}
