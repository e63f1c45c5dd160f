/* pricing.c — the price book: offers from every source in one list, which
 * GPU each row is, the newest layer winning on duplicates, the queries the
 * planner and the listings ask, and pricing a cluster's pools. The
 * sources themselves are adapters (struct price_source, pricing_int.h);
 * their table is here and nothing else dispatches on a source's name. */
#include "pricing_int.h"
#include "escape.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* The sources. Order matters only for lookup; the price book's layer
 * order is each adapter's .layer. */

static const struct price_source *const sources[] = {
	&price_source_skypilot, &price_source_azure, &price_source_feed, &price_source_gpus,
};

const struct price_source *price_source_find(const char *name, const char **arg)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(sources); i++) {
		const struct price_source *ps = sources[i];
		size_t l = strlen(ps->prefix);
		if (ps->whole ? !strcmp(name, ps->prefix) : !strncmp(name, ps->prefix, l)) {
			*arg = name + l;
			return ps;
		}
	}
	return NULL;
}

const struct price_source *price_source_for_file(const char *file)
{
	if (strncmp(file, "prices-", 7))
		return NULL;
	for (size_t i = 0; i < HP_ARRAY_LEN(sources); i++) {
		/* The file key is the prefix with ':' as '-' (pricing_cache.c). */
		char key[32];
		size_t j = 0;
		for (const char *p = sources[i]->prefix; *p && j + 1 < sizeof key; p++)
			key[j++] = *p == ':' ? '-' : *p;
		key[j] = '\0';
		if (!strncmp(file + 7, key, j))
			return sources[i];
	}
	return NULL;
}

int pricing_source_valid(const char *name, struct hp_err *err)
{
	const char *arg;
	const struct price_source *ps = price_source_find(name, &arg);
	if (ps && ps->user)
		return ps->arg_ok ? ps->arg_ok(name, arg, err) : 0;
	return hp_err_set(err, HP_EXIT_USAGE,
			  "unknown price source '%s' (expected skypilot:CLOUD like skypilot:aws, azure, or json:URL)",
			  name);
}

int pricing_url_ok(const char *u)
{
	if (strncmp(u, "https://", 8) && strncmp(u, "http://", 7))
		return 0;
	/* RFC 3986 section 2: no space or control byte in a URL (curl
	 * refuses them too). A URL holding ESC reached the terminal raw in
	 * `prices` and `gpus` (the progress, "SOURCE failed" and the source
	 * table print it with printf) */
	for (const char *p = u; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return 0;
	return esc_is_printable(u, strlen(u));
}

int pricing_url_arg_ok(const char *name, const char *arg, struct hp_err *err)
{
	const char *colon = strchr(name, ':');
	if (!pricing_url_ok(arg) || strlen(name) >= 500)
		return hp_err_set(err, HP_EXIT_USAGE, "source '%s': %.*s needs an http:// or https:// URL",
				  name, colon ? (int)(colon - name + 1) : 0, name);
	return 0;
}

char *pricing_url_arg(const struct price_config *cfg, const char *arg)
{
	return xstrdup(arg);
}

void pricing_lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* ------------------------------------------------------------------------ */
/* Numbers: the C locale whatever the program's locale is (the TUI sets the
 * user's), without touching other threads. */

static locale_t c_loc;
static pthread_once_t c_loc_once = PTHREAD_ONCE_INIT;

static void c_loc_init(void)
{
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t c_locale(void)
{
	pthread_once(&c_loc_once, c_loc_init);
	return c_loc;
}

/* Parse a whole field as a finite number. 0 on success. */
int pricing_num(const char *s, double *out)
{
	if (!s)
		return -1;
	while (*s == ' ')
		s++;
	if (!*s)
		return -1;
	locale_t loc = c_locale(), old = (locale_t)0;
	if (loc)
		old = uselocale(loc);
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (loc)
		uselocale(old);
	while (*end == ' ')
		end++;
	if (*end || errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* A price field: empty, zero, negative, unparsable or a sentinel is
 * unknown (-1). */
double pricing_price(const char *s)
{
	double v;
	if (pricing_num(s, &v) || v <= 0 || v >= SENTINEL_USD_PER_INSTANCE_H)
		return -1;
	return v;
}

/* ------------------------------------------------------------------------ */
/* The book. */

int pricing_add_source(struct price_book *pb, const char *name, const char *url,
		       enum price_origin origin, double fetched_at)
{
	if (pb->n_src >= (int)HP_ARRAY_LEN(pb->src))
		return -1;   /* full: never hand out another source's slot */
	struct price_source_info *s = &pb->src[pb->n_src];
	memset(s, 0, sizeof *s);
	utf8_copy(s->name, sizeof s->name, name);
	utf8_copy(s->url, sizeof s->url, url ? url : "");
	s->origin = origin;
	s->fetched_at = s->checked_at = fetched_at;
	return pb->n_src++;
}

void pricing_add_offer(struct price_book *pb, const struct price_offer *o)
{
	/* Feed text reaches terminals, CSV and scripts: control characters
	 * and invalid UTF-8 from a remote feed become '?' here. */
	struct price_offer w = *o;
	esc_scrub(w.provider);
	esc_scrub(w.region);
	esc_scrub(w.zone);
	esc_scrub(w.instance);
	esc_scrub(w.gpu);
	esc_scrub(w.label);
	esc_scrub(w.note);
	if (pb->n == pb->cap) {
		pb->cap = pb->cap ? 2 * pb->cap : 256;
		pb->offers = xrealloc(pb->offers, (size_t)pb->cap * sizeof *o);
	}
	pb->offers[pb->n++] = w;
	if (o->source >= 0 && o->source < pb->n_src)
		pb->src[o->source].n_offers++;
}

void pricing_skipped(struct price_book *pb, int src)
{
	if (src >= 0 && src < pb->n_src)
		pb->src[src].n_skipped++;
}

void pricing_free(struct price_book *pb)
{
	free(pb->offers);
	free(pb->gpus);
	memset(pb, 0, sizeof *pb);
}

void pricing_warn(struct price_book *pb, const char *msg)
{
	size_t l = strlen(pb->warnings);
	if (l + 3 >= sizeof pb->warnings)
		return;
	/* a message too long for what is left ends on a whole UTF-8 character */
	snprintf(pb->warnings + l, sizeof pb->warnings - l, "%s%.*s", l ? "\n" : "",
		 UTF8_CUT(msg, sizeof pb->warnings - l - 2));
}

/* A GPU name in the feed's specs, then the catalog. */
const struct gpu_spec *pricing_lookup_gpu(const struct price_book *pb,
					  const struct catalog *cat, const char *name)
{
	if (pb->n_gpus) {
		struct catalog fc = { 0 };
		fc.gpus = pb->gpus;
		fc.n_gpus = pb->n_gpus;
		const struct gpu_spec *g = catalog_gpu(&fc, name);
		if (g)
			return g;
	}
	return cat ? catalog_gpu(cat, name) : NULL;
}

void pricing_rollback(struct price_book *pb, int n0)
{
	for (int k = n0; k < pb->n; k++)
		if (pb->offers[k].source >= 0 && pb->offers[k].source < pb->n_src)
			pb->src[pb->offers[k].source].n_offers--;
	pb->n = n0;
}

void pricing_add_gpu(struct price_book *pb, const struct gpu_spec *g)
{
	/* Specs from a remote file reach terminals and reports like offers do:
	 * control characters and invalid UTF-8 become '?'. */
	struct gpu_spec w = *g;
	esc_scrub(w.name);
	for (int a = 0; a < w.n_aliases && a < GPU_MAX_ALIASES; a++)
		esc_scrub(w.aliases[a]);
	esc_scrub(w.vendor);
	esc_scrub(w.arch);
	esc_scrub(w.variant);
	esc_scrub(w.form);
	esc_scrub(w.scaleup);
	esc_scrub(w.source);
	esc_scrub(w.ref_price_source);
	int k;
	for (k = 0; k < pb->n_gpus && strcmp(pb->gpus[k].name, w.name); k++)
		;
	if (k == pb->n_gpus)
		pb->gpus = xrealloc(pb->gpus, (size_t)++pb->n_gpus * sizeof w);
	pb->gpus[k] = w;
}

/* Resolve a row's GPU into gpu (canonical) and *count. Returns 0, or -1
 * when the row names no GPU hetplan knows. */
int pricing_resolve_gpu(const struct price_book *pb, const struct catalog *cat,
			struct price_offer *o, double src_count)
{
	const struct price_sku *k = pricing_sku_find(o->provider, o->instance);
	const char *name = NULL;
	o->gpus = src_count;
	if (k) {
		name = k->gpu;
		if (k->gpus > 0) {
			if (src_count > 0 && fabs(src_count - k->gpus) > 1e-9) {
				o->flags |= PF_COUNT_FIXED;
				snprintf(o->note, sizeof o->note,
					 "source says %g GPUs; %g per the SKU table", src_count,
					 k->gpus);
			}
			o->gpus = k->gpus;
		}
	} else if (*o->label) {
		name = pricing_label_gpu(o->provider, o->label);
		if (!name)
			name = o->label;
	}
	if (!name || !(o->gpus > 0))
		return -1;
	const struct gpu_spec *g = pricing_lookup_gpu(pb, cat, name);
	if (!g)
		return -1;
	utf8_copy(o->gpu, sizeof o->gpu, g->name);
	return 0;
}

/* Emit the on-demand and spot offers of one priced instance row. */
void pricing_emit(struct price_book *pb, const struct catalog *cat, struct price_offer *o,
		  double src_count, double od, double spot)
{
	if (pricing_resolve_gpu(pb, cat, o, src_count) < 0) {
		pricing_skipped(pb, o->source);
		return;
	}
	int any = 0;
	for (int s = 0; s < 2; s++) {
		double p = s ? spot : od;
		if (p <= 0)
			continue;
		struct price_offer x = *o;
		x.spot = s;
		x.usd_per_instance_h = p;
		x.usd_per_gpu_h = p / o->gpus;
		if (x.usd_per_gpu_h < MIN_USD_PER_GPU_H || x.usd_per_gpu_h > MAX_USD_PER_GPU_H)
			continue;
		pricing_add_offer(pb, &x);
		any = 1;
	}
	if (!any)
		pricing_skipped(pb, o->source);
}

/* ------------------------------------------------------------------------ */
/* Finishing: newest layer wins, spot without discount flagged, sorted. */

static int key_cmp(const struct price_offer *a, const struct price_offer *b)
{
	int r;
	if ((r = strcmp(a->provider, b->provider)) || (r = strcmp(a->region, b->region)) ||
	    (r = strcmp(a->zone, b->zone)) || (r = strcmp(a->instance, b->instance)) ||
	    (r = strcmp(a->gpu, b->gpu)))
		return r;
	return a->spot - b->spot;
}

struct ranked {
	struct price_offer o;
	int idx;
};

static int rank_cmp(const void *pa, const void *pb_)
{
	const struct ranked *a = pa, *b = pb_;
	int r = key_cmp(&a->o, &b->o);
	if (r)
		return r;
	if (a->o.source != b->o.source)
		return b->o.source - a->o.source;   /* newest layer first */
	return b->idx - a->idx;
}

static int order_cmp(const void *pa, const void *pb_)
{
	const struct price_offer *a = pa, *b = pb_;
	int r = strcmp(a->gpu, b->gpu);
	if (r)
		return r;
	if (a->usd_per_gpu_h != b->usd_per_gpu_h)
		return a->usd_per_gpu_h < b->usd_per_gpu_h ? -1 : 1;
	return key_cmp(a, b);
}

void pricing_finish(struct price_book *pb)
{
	int n = pb->n;
	struct ranked *r = xmalloc((size_t)(n ? n : 1) * sizeof *r);
	for (int i = 0; i < n; i++) {
		r[i].o = pb->offers[i];
		r[i].idx = i;
	}
	if (n > 1)
		qsort(r, (size_t)n, sizeof *r, rank_cmp);
	for (int s = 0; s < pb->n_src; s++)
		pb->src[s].n_offers = 0;
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (m && !key_cmp(&pb->offers[m - 1], &r[i].o))
			continue;
		struct price_offer o = r[i].o;
		o.flags &= ~(unsigned)PF_NO_DISCOUNT;
		/* The on-demand twin sorts right before its spot row. */
		if (o.spot && m) {
			const struct price_offer *d = &pb->offers[m - 1];
			if (!d->spot && !strcmp(d->provider, o.provider) &&
			    !strcmp(d->region, o.region) && !strcmp(d->zone, o.zone) &&
			    !strcmp(d->instance, o.instance) && !strcmp(d->gpu, o.gpu) &&
			    o.usd_per_instance_h >= d->usd_per_instance_h) {
				o.flags |= PF_NO_DISCOUNT;
				size_t l = strlen(o.note);
				if (!strstr(o.note, "no spot discount"))
					snprintf(o.note + l, sizeof o.note - l, "%sno spot discount (%s)",
					 l ? "; " : "",
					 o.usd_per_instance_h > d->usd_per_instance_h
						 ? "spot above on-demand" : "same as on-demand");
			}
		}
		pb->offers[m++] = o;
		if (o.source >= 0 && o.source < pb->n_src)
			pb->src[o.source].n_offers++;
	}
	free(r);
	pb->n = m;
	if (m > 1)
		qsort(pb->offers, (size_t)m, sizeof *pb->offers, order_cmp);
}

void pricing_fmt_age(double s, char *buf, size_t n)
{
	if (s < 60)
		snprintf(buf, n, "%.0f s", s < 0 ? 0 : s);
	else if (s < 3600)
		snprintf(buf, n, "%.0f min", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, n, "%.1f h", s / 3600);
	else
		snprintf(buf, n, "%.1f d", s / 86400);
}

/* ------------------------------------------------------------------------ */
/* Queries. */

static int passes(const struct price_offer *o, const struct price_filter *f)
{
	if (f->gpu && strcmp(o->gpu, f->gpu))
		return 0;
	if (f->provider && *f->provider && strcasecmp(o->provider, f->provider))
		return 0;
	if (f->region && *f->region && strcasecmp(o->region, f->region) &&
	    strcasecmp(o->zone, f->region))
		return 0;
	if (f->spot >= 0 && o->spot != f->spot)
		return 0;
	if (f->gpus > 0 && fabs(o->gpus - f->gpus) > 1e-9)
		return 0;
	if ((o->flags & PF_GPU_ONLY) && !f->with_gpu_only)
		return 0;
	return 1;
}

int pricing_select(const struct price_book *pb, const struct price_filter *f,
		   const struct price_offer ***out)
{
	const struct price_offer **v = xmalloc((size_t)(pb->n ? pb->n : 1) * sizeof *v);
	int n = 0;
	for (int i = 0; i < pb->n; i++)
		if (passes(&pb->offers[i], f))
			v[n++] = &pb->offers[i];
	*out = v;
	return n;
}

int pricing_cheapest(const struct price_book *pb, const struct price_filter *f,
		     const struct price_offer ***out)
{
	const struct price_offer **v;
	int n = pricing_select(pb, f, &v), m = 0;
	/* The book is sorted by GPU then price: the first of each (GPU,
	 * provider) is its cheapest. */
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int k = 0; k < m && !seen; k++)
			seen = !strcmp(v[k]->gpu, v[i]->gpu) && !strcmp(v[k]->provider, v[i]->provider);
		if (!seen)
			v[m++] = v[i];
	}
	*out = v;
	return m;
}

const struct price_offer *pricing_for_machine(const struct price_book *pb, const char *gpu,
					      int gpus_per_node, const char *provider,
					      const char *region, int spot, const char *machine,
					      int *fell_back)
{
	struct price_filter f = { gpu, provider, region, spot ? 1 : 0, 0, 0 };
	const struct price_offer *best = NULL, *best_size = NULL, *exact = NULL;
	for (int i = 0; i < pb->n; i++) {
		const struct price_offer *o = &pb->offers[i];
		if (!passes(o, &f))
			continue;
		if (machine && *machine && !strcasecmp(o->instance, machine) &&
		    (!exact || o->usd_per_gpu_h < exact->usd_per_gpu_h))
			exact = o;
		if (!best || o->usd_per_gpu_h < best->usd_per_gpu_h)
			best = o;
		if (fabs(o->gpus - gpus_per_node) < 1e-9 &&
		    (!best_size || o->usd_per_gpu_h < best_size->usd_per_gpu_h))
			best_size = o;
	}
	const struct price_offer *o = exact ? exact : best_size ? best_size : best;
	if (fell_back)
		*fell_back = machine && *machine && !exact && o;
	return o;
}

const struct price_offer *pricing_for_pool(const struct price_book *pb, const char *gpu,
					   int gpus_per_node, const char *provider,
					   const char *region, int spot)
{
	return pricing_for_machine(pb, gpu, gpus_per_node, provider, region, spot, NULL, NULL);
}

void pricing_fmt_day(double t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm);
}

void pricing_describe_age(const struct price_source_info *s, double now, char *buf,
			  size_t n)
{
	if (s->origin == PRICE_EMBEDDED || s->fetched_at <= 0) {
		snprintf(buf, n, "embedded snapshot");
		return;
	}
	char day[32], age[32];
	pricing_fmt_day(s->fetched_at, day, sizeof day);
	pricing_fmt_age(now - s->fetched_at, age, sizeof age);
	snprintf(buf, n, "%s %s (%s old)", s->origin == PRICE_LIVE ? "fetched" : "cached", day,
		 age);
}

/* How an offer's machine price maps to a pool's node, written after the
 * offer in the pool's price source: the node's price is the machine's
 * per-GPU price x its GPUs per node, so a node of 8 GPUs priced from a
 * 16-GPU a2-megagpu-16g pays half the machine's hourly price (" / 2"),
 * one of 8 L40S from a 4-GPU g6e.12xlarge twice it (" x 2"), and other
 * shares are written as GPUs of the node over the machine's (" x 8/12").
 * Nothing when the node is the machine. The catalog reference's "/ 8"
 * (data/gpus.json reference_price_source) is the machine's price per GPU,
 * not per node. */
static void node_share(char *buf, size_t n, double machine_gpus, int node_gpus)
{
	buf[0] = '\0';
	if (!(machine_gpus > 0) || node_gpus < 1 || fabs(machine_gpus - node_gpus) < 1e-9)
		return;
	double down = machine_gpus / node_gpus, up = node_gpus / machine_gpus;
	if (down > 1 && fabs(down - round(down)) < 1e-9)
		snprintf(buf, n, " / %g", round(down));
	else if (up > 1 && fabs(up - round(up)) < 1e-9)
		snprintf(buf, n, " x %g", round(up));
	else
		snprintf(buf, n, " x %d/%g", node_gpus, machine_gpus);
}

int pricing_apply(const struct price_book *pb, struct cluster *c)
{
	int priced = 0;
	double now = (double)time(NULL);
	for (int i = 0; i < c->n_pools; i++) {
		struct pool *p = &c->pools[i];
		if (p->price_set)
			continue;
		const char *machine = cluster_pool_machine(p);
		int fell_back = 0;
		const struct price_offer *o = pricing_for_machine(pb, p->gpu.name, p->gpus_per_node,
								  p->provider, p->region, p->spot,
								  machine, &fell_back);
		if (!o) {
			/* no offer: an earlier offer's fabric goes (a pool
			 * moved to a region without its machine type is
			 * priced from the catalog reference as once loaded) */
			pool_price_transport(p, NULL, NULL);
			continue;
		}
		p->usd_per_node_h = o->usd_per_gpu_h * p->gpus_per_node;
		pool_price_transport(p, o->provider, o->instance);   /* a3-megagpu-8g: tcpxo */
		char age[64] = "";
		const struct price_source_info *s = o->source >= 0 && o->source < pb->n_src
							    ? &pb->src[o->source] : NULL;
		if (s && s->origin == PRICE_EMBEDDED)
			snprintf(age, sizeof age, "embedded snapshot");
		else if (s)
			pricing_fmt_day(s->fetched_at, age, sizeof age);
		/* a pool of a machine type the book has no offer of is priced
		 * from the nearest offer (same GPU, node size first) and says
		 * so before the ';' (report_price_parts splits there) */
		/* each field cut on a whole UTF-8 character: a feed's region of
		 * "eu-" + nine U+20AC cut at byte 16 ended inside a euro sign,
		 * and plan printed the broken pair on its price line */
		char fb[64] = "";
		if (fell_back)
			snprintf(fb, sizeof fb, " (fallback: no %.*s offer)",
				 UTF8_CUT(machine, 31));
		const char *sn = s && s->origin != PRICE_EMBEDDED ? s->name : "";
		char share[48];
		node_share(share, sizeof share, o->gpus, p->gpus_per_node);
		snprintf(p->price_source, sizeof p->price_source,
			 "%.*s %.*s %.*s %s%s%s; %.*s%s%.*s", UTF8_CUT(o->provider, 10),
			 UTF8_CUT(*o->instance ? o->instance : "-", 28),
			 UTF8_CUT(o->region, 16), o->spot ? "spot" : "on-demand", share, fb,
			 UTF8_CUT(sn, 24), *sn ? " " : "", UTF8_CUT(age, 20));
		(void)now;
		priced++;
	}
	return priced;
}

void pricing_extend_catalog(const struct price_book *pb, struct catalog *cat)
{
	for (int i = 0; i < pb->n_gpus; i++) {
		const struct gpu_spec *g = &pb->gpus[i];
		int k;
		for (k = 0; k < cat->n_gpus && strcmp(cat->gpus[k].name, g->name); k++)
			;
		if (k == cat->n_gpus)
			cat->gpus = xrealloc(cat->gpus, (size_t)++cat->n_gpus * sizeof *g);
		cat->gpus[k] = *g;
	}
}
