/* pricing_feed.c — the json:URL source: hetplan's own feed, a
 * "hetplan-prices/1" document of offers and/or GPU specs (docs/prices.md).
 * It is also the cache format of the Azure source, whose pages are reduced
 * to the offers hetplan keeps. GPU specs in a feed join the price book
 * (pb->gpus) and, through pricing_catalog_extend, the catalog. */
#include "pricing_int.h"
#include "jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The "gpus" array: catalog GPU objects (catalog_parse_gpu). */
static int feed_gpus(struct price_book *pb, const cJSON *gpus, const char *what,
		     struct hp_err *err)
{
	const cJSON *it;
	int i = 0;
	cJSON_ArrayForEach(it, gpus) {
		char path[32];
		snprintf(path, sizeof path, "gpus[%d]", i++);
		struct gpu_spec g;
		if (catalog_parse_gpu(it, what, path, &g, err) < 0)
			return -1;
		pricing_add_gpu(pb, &g);
	}
	return 0;
}

/* One element of "offers": its on-demand and spot offers. */
static int feed_offer(struct price_book *pb, int src, const cJSON *it, const char *path,
		      const struct catalog *cat, const char *what, struct hp_err *err)
{
	static const char *const oknown[] = { "provider", "region", "zone", "instance", "gpu",
					       "gpus", "usd_per_hour", "usd_per_gpu_hour",
					       "spot_usd_per_hour", "spot_usd_per_gpu_hour",
					       "note", NULL };
	struct jx_ctx c = { what, path, err };
	struct price_offer o = { 0 };
	o.source = src;
	char gpu[48];
	double n = 0, od = -1, odg = -1, sp = -1, spg = -1;
	if (!cJSON_IsObject(it))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: %s: expected an object", what, path);
	if (jx_check_keys(&c, it, oknown) < 0 ||
	    jx_str(&c, it, "provider", 1, o.provider, sizeof o.provider) < 0 ||
	    jx_str(&c, it, "region", 0, o.region, sizeof o.region) < 0 ||
	    jx_str(&c, it, "zone", 0, o.zone, sizeof o.zone) < 0 ||
	    jx_str(&c, it, "instance", 0, o.instance, sizeof o.instance) < 0 ||
	    jx_str(&c, it, "gpu", 1, gpu, sizeof gpu) < 0 ||
	    jx_num(&c, it, "gpus", 1, 1e-3, 1e5, &n) < 0 ||
	    jx_num(&c, it, "usd_per_hour", 0, 0, 1e7, &od) < 0 ||
	    jx_num(&c, it, "usd_per_gpu_hour", 0, 0, 1e5, &odg) < 0 ||
	    jx_num(&c, it, "spot_usd_per_hour", 0, 0, 1e7, &sp) < 0 ||
	    jx_num(&c, it, "spot_usd_per_gpu_hour", 0, 0, 1e5, &spg) < 0 ||
	    jx_str(&c, it, "note", 0, o.note, sizeof o.note) < 0)
		return -1;
	const struct gpu_spec *g = pricing_lookup_gpu(pb, cat, gpu);
	if (!g) {
		char w[200];
		snprintf(w, sizeof w, "%.*s: %s.gpu", UTF8_CUT(what, 120), path);
		if (cat)
			return catalog_gpu_unknown(cat, gpu, w, err);
		return hp_err_set(err, HP_EXIT_INPUT, "%s: unknown GPU '%s'", w, gpu);
	}
	if (od <= 0 && odg > 0)
		od = odg * n;
	if (sp <= 0 && spg > 0)
		sp = spg * n;
	if (od <= 0 && sp <= 0)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: %s: needs a price: usd_per_hour, usd_per_gpu_hour, spot_usd_per_hour or spot_usd_per_gpu_hour",
				  what, path);
	pricing_lower(o.provider);
	utf8_copy(o.gpu, sizeof o.gpu, g->name);
	utf8_copy(o.label, sizeof o.label, gpu);
	o.gpus = n;
	for (int s = 0; s < 2; s++) {
		double p = s ? sp : od;
		if (p <= 0)
			continue;
		struct price_offer y = o;
		y.spot = s;
		y.usd_per_instance_h = p;
		y.usd_per_gpu_h = p / n;
		pricing_add_offer(pb, &y);
	}
	return 0;
}

/* The document's head: schema and currency. */
static int feed_head(const cJSON *root, const char *what, struct hp_err *err)
{
	static const char *const known[] = { "schema", "currency", "generated", "offers",
					      "gpus", NULL };
	struct jx_ctx jc = { what, "", err };
	char schema[32] = "", cur[8] = "USD";
	if (!cJSON_IsObject(root))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: expected a JSON object with \"offers\"",
				  what);
	if (jx_check_keys(&jc, root, known) < 0 ||
	    jx_str(&jc, root, "schema", 1, schema, sizeof schema) < 0 ||
	    jx_str(&jc, root, "currency", 0, cur, sizeof cur) < 0)
		return -1;
	if (strcmp(schema, "hetplan-prices/1"))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: schema: expected \"hetplan-prices/1\", got \"%s\"", what, schema);
	if (strcmp(cur, "USD"))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: currency: only \"USD\" is supported, got \"%s\"", what, cur);
	return 0;
}

int pricing_parse_feed(struct price_book *pb, int src, const char *text, size_t len,
		       const struct catalog *cat, const char *what, struct hp_err *err)
{
	cJSON *root = jx_parse(text, len, what, err);
	if (!root)
		return -1;
	int n0 = pb->n, g0 = pb->n_gpus, rc = -1, bad, i = 0;
	struct jx_ctx jc = { what, "", err };
	const cJSON *gpus, *offers, *it;
	if (feed_head(root, what, err) < 0)
		goto out;
	gpus = jx_arr(&jc, root, "gpus", 0, &bad);
	if (bad || feed_gpus(pb, gpus, what, err) < 0)
		goto out;
	offers = jx_arr(&jc, root, "offers", gpus == NULL, &bad);
	if (bad)
		goto out;
	cJSON_ArrayForEach(it, offers) {
		char path[32];
		snprintf(path, sizeof path, "offers[%d]", i++);
		if (feed_offer(pb, src, it, path, cat, what, err) < 0)
			goto out;
	}
	rc = 0;
out:
	if (rc < 0) {
		pricing_rollback(pb, n0);
		pb->n_gpus = g0;   /* specs added by this document go; replaced ones stay */
	}
	cJSON_Delete(root);
	return rc;
}

char *pricing_feed_from_offers(const struct price_book *pb)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "schema", "hetplan-prices/1");
	cJSON_AddStringToObject(root, "currency", "USD");
	cJSON *arr = cJSON_AddArrayToObject(root, "offers");
	for (int i = 0; i < pb->n; i++) {
		const struct price_offer *o = &pb->offers[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "provider", o->provider);
		cJSON_AddStringToObject(j, "region", o->region);
		if (*o->zone)
			cJSON_AddStringToObject(j, "zone", o->zone);
		cJSON_AddStringToObject(j, "instance", o->instance);
		cJSON_AddStringToObject(j, "gpu", o->gpu);
		cJSON_AddNumberToObject(j, "gpus", o->gpus);
		cJSON_AddNumberToObject(j, o->spot ? "spot_usd_per_hour" : "usd_per_hour",
					o->usd_per_instance_h);
		if (*o->note)
			cJSON_AddStringToObject(j, "note", o->note);
		cJSON_AddItemToArray(arr, j);
	}
	char *s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

static int feed_parse(struct price_book *pb, int src, const char *arg, const char *body,
		      size_t len, const struct catalog *cat, const char *what, struct hp_err *err)
{
	return pricing_parse_feed(pb, src, body, len, cat, what, err);
}

const struct price_source price_source_feed = {
	.prefix = "json:", .user = 1, .cache_format = "hetplan-json", .layer = 2,
	.arg_ok = pricing_url_arg_ok, .url = pricing_url_arg, .cache_file = pricing_cache_file_default,
	.fetch = NULL, .parse = feed_parse,
};
