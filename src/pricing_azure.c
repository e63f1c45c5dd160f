/* pricing_azure.c — the azure source: Azure's Retail Prices API
 * (https://prices.azure.com/api/retail/prices, documented by Microsoft as
 * "Azure Retail Prices REST API"), paged by NextPageLink. The API names no
 * GPUs, so the query asks for the VM SKUs of the SKU table and the table
 * says which GPU each is. The pages are reduced to a hetplan-prices/1 feed
 * of the offers kept, and that feed is what the cache holds. */
#include "pricing_int.h"
#include "jsonx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More pages than this is a server that never ends the list: at the 100
 * (or 1,000) items a page the API pages by, 500 pages is over 50,000
 * price rows, far more than the SKU table's Azure rows in every region
 * and price type can make. A bound, not a measured figure. */
#define AZURE_MAX_PAGES 500

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

int pricing_parse_azure_page(struct price_book *pb, int src, const char *text,
			     size_t len, const struct catalog *cat, const char *what,
			     int *count, char *next, size_t next_size, int *next_null,
			     struct hp_err *err)
{
	cJSON *root = jx_parse(text, len, what, err);
	if (!root)
		return -1;
	int rc = -1;
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(root, "Items");
	const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(root, "Count");
	const cJSON *nl = cJSON_GetObjectItemCaseSensitive(root, "NextPageLink");
	if (!cJSON_IsObject(root) || !cJSON_IsArray(items)) {
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: not an Azure Retail Prices page: expected an object with an \"Items\" array",
			   what);
		goto out;
	}
	if (cnt && (!cJSON_IsNumber(cnt) || !(cnt->valuedouble >= 0 && cnt->valuedouble <= 1e9) ||
		    cnt->valuedouble != floor(cnt->valuedouble))) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: Count: expected a whole number from 0 to 1e9", what);
		goto out;
	}
	if (nl && !cJSON_IsNull(nl) && !cJSON_IsString(nl)) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: NextPageLink: expected a string or null", what);
		goto out;
	}
	*count = cnt ? (int)cnt->valuedouble : cJSON_GetArraySize(items);
	*next_null = !nl || cJSON_IsNull(nl);
	if (next_size) {
		if (!*next_null && strlen(nl->valuestring) >= next_size) {
			hp_err_set(err, HP_EXIT_INPUT, "%s: NextPageLink is too long", what);
			goto out;
		}
		hp_strlcpy(next, *next_null ? "" : nl->valuestring, next_size);
	}
	const cJSON *it;
	cJSON_ArrayForEach(it, items) {
		if (!cJSON_IsObject(it))
			continue;
		const char *sku = jstr(it, "armSkuName"), *type = jstr(it, "type");
		const char *prod = jstr(it, "productName"), *skuname = jstr(it, "skuName");
		const char *meter = jstr(it, "meterName");
		/* Reservations price the whole term; DevTest is not for sale. */
		if (strcmp(type, "Consumption") || !pricing_sku_find("azure", sku))
			continue;
		if (strstr(prod, " Windows") || strstr(prod, " Win") ||
		    strstr(prod, "Cloud Services") || strstr(prod, "CloudServices") ||
		    ends_with(skuname, " Low Priority") || ends_with(meter, " Low Priority"))
			continue;
		const char *cur = jstr(it, "currencyCode"), *unit = jstr(it, "unitOfMeasure");
		if ((*cur && strcmp(cur, "USD")) || (*unit && strcmp(unit, "1 Hour")))
			continue;
		const cJSON *pr = cJSON_GetObjectItemCaseSensitive(it, "retailPrice");
		if (!cJSON_IsNumber(pr))
			pr = cJSON_GetObjectItemCaseSensitive(it, "unitPrice");
		double p = cJSON_IsNumber(pr) && isfinite(pr->valuedouble) ? pr->valuedouble : -1;
		if (p >= SENTINEL_USD_PER_INSTANCE_H)
			p = -1;
		int spot = ends_with(skuname, " Spot") || ends_with(meter, " Spot");
		struct price_offer o = { 0 };
		o.source = src;
		hp_strlcpy(o.provider, "azure", sizeof o.provider);
		utf8_copy(o.instance, sizeof o.instance, sku);
		utf8_copy(o.region, sizeof o.region, jstr(it, "armRegionName"));
		pricing_emit(pb, cat, &o, 0, spot ? -1 : p, spot ? p : -1);
	}
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

/* The Retail Prices query: Linux and Windows consumption prices of the GPU
 * SKUs hetplan knows (the API itself names no GPUs). */
static char *azure_query_url(const char *base)
{
	size_t cap = 4096, l;
	char *f = xmalloc(cap);
	snprintf(f, cap, "serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and (");
	int first = 1;
	const struct price_sku *k;
	for (size_t i = 0; (k = pricing_sku_at(i)); i++) {
		if (strcmp(k->provider, "azure"))
			continue;
		l = strlen(f);
		snprintf(f + l, cap - l, "%sarmSkuName eq '%s'", first ? "" : " or ", k->inst);
		first = 0;
	}
	l = strlen(f);
	snprintf(f + l, cap - l, ")");
	char *e = http_escape(f);
	char *url = xasprintf("%s%sapi-version=2023-01-01-preview&$filter=%s", base,
			      strchr(base, '?') ? "&" : "?", e);
	free(e);
	free(f);
	return url;
}

/* url with $skip set to skip (replacing one that is there). */
static char *with_skip(const char *url, int skip)
{
	const char *p = strstr(url, "$skip=");
	if (!p)
		p = strstr(url, "%24skip=");
	if (!p)
		return xasprintf("%s%s$skip=%d", url, strchr(url, '?') ? "&" : "?", skip);
	const char *q = strchr(p, '&');
	return xasprintf("%.*s$skip=%d%s", (int)(p - url), url, skip, q ? q : "");
}

/* ------------------------------------------------------------------------ */
/* Finishing: newest layer wins, spot without discount flagged, sorted. */

/* Fetch all pages of the Azure query into a feed body. */
static int azure_fetch(struct price_fetch *f, char **body, size_t *len, struct hp_err *err)
{
	char *note = f->note;
	size_t note_n = sizeof f->note;
	struct price_book t = { 0 };
	int s = pricing_add_source(&t, "azure", "", PRICE_LIVE, 0);
	char *url = azure_query_url(f->cfg->azure_url);
	int page_size = 0, offset = 0, rc = -1;
	int https = !strncmp(url, "https:", 6);
	note[0] = '\0';
	for (int page = 1;; page++) {
		if (page > AZURE_MAX_PAGES) {
			hp_err_set(err, HP_EXIT_FAIL, "azure: more than %d pages; stopped",
				   AZURE_MAX_PAGES);
			goto out;
		}
		if (pricing_fetch_cancelled(f)) {
			hp_err_set(err, HP_EXIT_FAIL, "azure: cancelled");
			goto out;
		}
		f->page = page;
		struct http_resp r;
		if (pricing_fetch_get(f, url, NULL, NULL, &r, err) < 0 ||
		    r.status != 200) {
			if (r.status == 304)
				hp_err_set(err, HP_EXIT_FAIL, "%s: unexpected 304", url);
			http_resp_free(&r);
			hp_err_prefix(err, "azure page %d", page);
			goto out;
		}
		int count = 0, null_link = 0;
		char next[2048], what[64];
		snprintf(what, sizeof what, "azure page %d", page);
		int prc = pricing_parse_azure_page(&t, s, r.body, r.len, f->cat, what, &count, next,
						   sizeof next, &null_link, err);
		http_resp_free(&r);
		if (prc < 0)
			goto out;
		offset += count;
		if (*next) {
			if (!page_size)
				page_size = count;
			if (https && strncmp(next, "https:", 6)) {
				hp_err_set(err, HP_EXIT_FAIL,
					   "azure page %d: NextPageLink leaves https (%.*s)",
					   page, UTF8_CUT(next, 200));
				goto out;
			}
			free(url);
			url = xstrdup(next);
			continue;
		}
		/* An empty (not null) link on a full page: Azure has dropped the
		 * link before while more pages existed; ask for the rest by
		 * offset, as its documentation's paging implies. */
		int full = count > 0 && (page_size ? count >= page_size
						   : (count == 100 || count == 1000));
		if (!null_link && full) {
			char *u2 = with_skip(url, offset);
			free(url);
			url = u2;
			snprintf(note, note_n,
				 "page %d had %d items and an empty NextPageLink; continued at $skip=%d",
				 page, count, offset);
			if (!page_size)
				page_size = count;
			continue;
		}
		f->pages = page;
		break;
	}
	pricing_finish(&t);
	*body = pricing_feed_from_offers(&t);
	*len = strlen(*body);
	rc = 0;
out:
	if (rc < 0 && *note) {
		char tmp[sizeof err->msg];
		snprintf(tmp, sizeof tmp, "%s", err->msg);
		hp_err_set(err, HP_EXIT_FAIL, "%.*s (after: %.*s)", UTF8_CUT(tmp, 300),
			   UTF8_CUT(note, 200));
	}
	free(url);
	pricing_free(&t);
	return rc;
}

static char *azure_url(const struct price_config *cfg, const char *arg)
{
	return xstrdup(cfg->azure_url);
}

static int azure_parse(struct price_book *pb, int src, const char *arg, const char *body,
		       size_t len, const struct catalog *cat, const char *what,
		       struct hp_err *err)
{
	return pricing_parse_feed(pb, src, body, len, cat, what, err);
}

const struct price_source price_source_azure = {
	.prefix = "azure", .whole = 1, .user = 1, .cache_format = "hetplan-json", .layer = 1,
	.arg_ok = NULL, .url = azure_url, .cache_file = pricing_cache_file_default,
	.fetch = azure_fetch, .parse = azure_parse,
};
