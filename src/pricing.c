/* pricing.c — the price book: parsing the sources, the cache, updating,
 * and the queries the planner asks. */
#include "pricing.h"
#include "embed.h"
#include "jsonx.h"
#include "escape.h"

#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define DEFAULT_SKYPILOT_URL \
	"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"
#define DEFAULT_AZURE_URL "https://prices.azure.com/api/retail/prices"

/* Prices outside these bounds are placeholders or errors, not offers:
 * GCP writes 700.0 for "unavailable"; no GPU rents for more than $25/h. */
#define SENTINEL_USD_PER_INSTANCE_H 500.0
#define MIN_USD_PER_GPU_H 0.05
#define MAX_USD_PER_GPU_H 25.0
#define AZURE_MAX_PAGES 500

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
static int num_field(const char *s, double *out)
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
static double price_field(const char *s)
{
	double v;
	if (num_field(s, &v) || v <= 0 || v >= SENTINEL_USD_PER_INSTANCE_H)
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
	hp_strlcpy(s->name, name, sizeof s->name);
	hp_strlcpy(s->url, url ? url : "", sizeof s->url);
	s->origin = origin;
	s->fetched_at = s->checked_at = fetched_at;
	return pb->n_src++;
}

static void add_offer(struct price_book *pb, const struct price_offer *o)
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

static void skipped(struct price_book *pb, int src)
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

static void warn(struct price_book *pb, const char *msg)
{
	size_t l = strlen(pb->warnings);
	if (l + 3 >= sizeof pb->warnings)
		return;
	snprintf(pb->warnings + l, sizeof pb->warnings - l, "%s%s", l ? "\n" : "", msg);
}

/* ------------------------------------------------------------------------ */
/* Which GPU a row is. The sources name GPUs loosely: SkyPilot's "A100" is
 * the 40 GB SXM part, "V100" the 16 GB one, RunPod's "H100" is PCIe, and
 * Azure's retail API names no GPU at all. Instance families settle it. */

struct sku {
	const char *provider;
	char mode;              /* '=' whole name, '^' prefix, '*' substring */
	const char *inst;
	const char *gpu;
	double gpus;            /* 0: keep the row's count */
};

static const struct sku skus[] = {
	{ "aws", '^', "p3dn.", "V100-SXM2-32GB", 8 },
	{ "aws", '^', "p3.", "V100-SXM2-16GB", 0 },
	{ "aws", '^', "p4d.", "A100-SXM4-40GB", 8 },
	{ "aws", '^', "p4de.", "A100-SXM4-80GB", 8 },
	{ "aws", '=', "p5.48xlarge", "H100-SXM", 8 },
	{ "aws", '=', "p5.4xlarge", "H100-SXM", 1 },
	{ "aws", '^', "p5e.", "H200-SXM", 8 },
	{ "aws", '^', "p5en.", "H200-SXM", 8 },
	{ "aws", '^', "p6-b200.", "B200", 8 },
	{ "aws", '^', "g4dn.", "T4", 0 },
	{ "aws", '^', "g5.", "A10G", 0 },
	{ "aws", '^', "g6.", "L4", 0 },
	{ "aws", '^', "g6e.", "L40S", 0 },
	{ "azure", '=', "Standard_ND96isr_H100_v5", "H100-SXM", 8 },
	{ "azure", '=', "Standard_ND96isr_H200_v5", "H200-SXM", 8 },
	{ "azure", '=', "Standard_ND96is_MI300X_v5", "MI300X", 8 },
	{ "azure", '=', "Standard_NC40ads_H100_v5", "H100-NVL", 1 },
	{ "azure", '=', "Standard_NC80adis_H100_v5", "H100-NVL", 2 },
	{ "azure", '=', "Standard_NCC40ads_H100_v5", "H100-NVL", 1 },
	{ "azure", '=', "Standard_NC24ads_A100_v4", "A100-PCIe-80GB", 1 },
	{ "azure", '=', "Standard_NC48ads_A100_v4", "A100-PCIe-80GB", 2 },
	{ "azure", '=', "Standard_NC96ads_A100_v4", "A100-PCIe-80GB", 4 },
	{ "azure", '=', "Standard_ND96asr_v4", "A100-SXM4-40GB", 8 },
	{ "azure", '=', "Standard_ND96amsr_A100_v4", "A100-SXM4-80GB", 8 },
	{ "azure", '=', "Standard_NC6s_v3", "V100-PCIe", 1 },
	{ "azure", '=', "Standard_NC12s_v3", "V100-PCIe", 2 },
	{ "azure", '=', "Standard_NC24s_v3", "V100-PCIe", 4 },
	{ "azure", '=', "Standard_NC24rs_v3", "V100-PCIe", 4 },
	{ "azure", '=', "Standard_ND40rs_v2", "V100-SXM2-32GB", 8 },
	{ "azure", '=', "Standard_NC4as_T4_v3", "T4", 1 },
	{ "azure", '=', "Standard_NC8as_T4_v3", "T4", 1 },
	{ "azure", '=', "Standard_NC16as_T4_v3", "T4", 1 },
	{ "azure", '=', "Standard_NC64as_T4_v3", "T4", 4 },
	{ "azure", '=', "Standard_NV6ads_A10_v5", "A10", 1.0 / 6 },
	{ "azure", '=', "Standard_NV12ads_A10_v5", "A10", 1.0 / 3 },
	{ "azure", '=', "Standard_NV18ads_A10_v5", "A10", 0.5 },
	{ "azure", '=', "Standard_NV36ads_A10_v5", "A10", 1 },
	{ "azure", '=', "Standard_NV72ads_A10_v5", "A10", 2 },
	{ "lambda", '*', "h100_pcie", "H100-PCIe", 0 },
	{ "lambda", '*', "h100_sxm", "H100-SXM", 0 },
	{ "lambda", '*', "a100_80gb", "A100-SXM4-80GB", 0 },
	{ "lambda", '*', "a100_pcie", "A100-PCIe-40GB", 0 },
};

/* Source labels that mean something else than the catalog alias would. */
static const struct { const char *provider, *label, *gpu; } labels[] = {
	{ "runpod", "A100-80GB", "A100-PCIe-80GB" },
	{ "runpod", "H100", "H100-PCIe" },
	{ "runpod", "A100-80GB-SXM", "A100-SXM4-80GB" },
	{ "runpod", "H100-SXM", "H100-SXM" },
	{ "runpod", "H100-NVL", "H100-NVL" },
	{ NULL, "A100", "A100-SXM4-40GB" },
	{ NULL, "V100", "V100-SXM2-16GB" },
	{ NULL, "H100-MEGA", "H100-SXM" },
	{ NULL, "A100-80GB", "A100-SXM4-80GB" },
};

static const struct sku *find_sku(const char *provider, const char *inst)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(skus); i++) {
		const struct sku *k = &skus[i];
		if (strcmp(k->provider, provider))
			continue;
		if ((k->mode == '=' && !strcmp(inst, k->inst)) ||
		    (k->mode == '^' && !strncmp(inst, k->inst, strlen(k->inst))) ||
		    (k->mode == '*' && strstr(inst, k->inst)))
			return k;
	}
	return NULL;
}

/* A GPU name in the feed's specs, then the catalog. */
static const struct gpu_spec *lookup_gpu(const struct price_book *pb,
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

/* Resolve a row's GPU into gpu (canonical) and *count. Returns 0, or -1
 * when the row names no GPU hetplan knows. */
static int resolve_gpu(const struct price_book *pb, const struct catalog *cat,
		       struct price_offer *o, double src_count)
{
	const struct sku *k = find_sku(o->provider, o->instance);
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
		for (size_t i = 0; i < HP_ARRAY_LEN(labels) && !name; i++)
			if ((!labels[i].provider || !strcmp(labels[i].provider, o->provider)) &&
			    !strcmp(labels[i].label, o->label))
				name = labels[i].gpu;
		if (!name)
			name = o->label;
	}
	if (!name || !(o->gpus > 0))
		return -1;
	const struct gpu_spec *g = lookup_gpu(pb, cat, name);
	if (!g)
		return -1;
	hp_strlcpy(o->gpu, g->name, sizeof o->gpu);
	return 0;
}

/* Pull 'Count' and 'SizeInMiB' out of a GpuInfo cell. AWS and RunPod write
 * a Python dict literal, GCP an unquoted one, Azure just the name. RunPod's
 * "SizeInMiB" holds GB (80 for an A100-80GB): a value under 1024 cannot be
 * MiB of any GPU, so it is read as GiB. Returns MiB per GPU or 0. */
static double gpuinfo_mib(const char *s)
{
	const char *m = s ? strstr(s, "'SizeInMiB':") : NULL;
	double v;
	if (!m)
		return 0;
	m += strlen("'SizeInMiB':");
	char num[32];
	size_t j = 0;
	while (*m == ' ')
		m++;
	while (j + 1 < sizeof num && ((*m >= '0' && *m <= '9') || *m == '.'))
		num[j++] = *m++;
	num[j] = '\0';
	if (num_field(num, &v) || v <= 0)
		return 0;
	return v < 1024 ? v * 1024 : v;
}

/* Emit the on-demand and spot offers of one priced instance row. */
static void emit(struct price_book *pb, const struct catalog *cat, struct price_offer *o,
		 double src_count, double od, double spot)
{
	if (resolve_gpu(pb, cat, o, src_count) < 0) {
		skipped(pb, o->source);
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
		add_offer(pb, &x);
		any = 1;
	}
	if (!any)
		skipped(pb, o->source);
}

/* ------------------------------------------------------------------------ */
/* SkyPilot catalog CSV. */

enum { C_CLOUD, C_INST, C_ACC, C_COUNT, C_INFO, C_PRICE, C_SPOT, C_REGION, C_ZONE, C_N };
static const char *const col_names[C_N] = {
	"Cloud", "InstanceType", "AcceleratorName", "AcceleratorCount", "GpuInfo",
	"Price", "SpotPrice", "Region", "AvailabilityZone",
};
/* Columns every SkyPilot CSV has (Cloud, GpuInfo and zone are optional). */
static const int col_required[] = { C_INST, C_ACC, C_COUNT, C_PRICE, C_SPOT, C_REGION };

#define CSV_MAX_FIELDS 64

struct gcp_row {             /* a GCP host VM or accelerator row */
	char inst[64], label[32], region[32], zone[32];
	double count, od, spot, mib;
};

struct csv_ctx {
	struct price_book *pb;
	const struct catalog *cat;
	int src;
	const char *cloud, *what;
	struct hp_err *err;
	int failed;
	long row;                /* records seen, header = 1 */
	int nf, n_header;
	char *f[CSV_MAX_FIELDS];
	int col[C_N];
	struct gcp_row *hosts, *accs;
	int n_hosts, n_accs, cap_hosts, cap_accs;
};

static void csv_field(void *s, size_t len, void *ud)
{
	struct csv_ctx *x = ud;
	if (x->failed)
		return;
	if (x->nf >= CSV_MAX_FIELDS) {
		x->nf++;
		return;
	}
	char *v = xmalloc(len + 1);
	if (len)
		memcpy(v, s, len);
	v[len] = '\0';
	x->f[x->nf++] = v;
}

static void clear_fields(struct csv_ctx *x)
{
	for (int i = 0; i < x->nf && i < CSV_MAX_FIELDS; i++)
		free(x->f[i]);
	x->nf = 0;
}

static const char *fld(const struct csv_ctx *x, int c)
{
	int i = x->col[c];
	return i >= 0 && i < x->nf ? x->f[i] : "";
}

static void push_gcp(struct gcp_row **arr, int *n, int *cap, const struct gcp_row *r)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*arr = xrealloc(*arr, (size_t)*cap * sizeof **arr);
	}
	(*arr)[(*n)++] = *r;
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static void csv_header(struct csv_ctx *x)
{
	for (int c = 0; c < C_N; c++)
		x->col[c] = -1;
	for (int i = 0; i < x->nf && i < CSV_MAX_FIELDS; i++) {
		const char *h = x->f[i];
		/* A byte-order mark before the first name is not part of it. */
		if (i == 0 && !strncmp(h, "\xEF\xBB\xBF", 3))
			h += 3;
		for (int c = 0; c < C_N; c++)
			if (!strcmp(h, col_names[c]) ||
			    (c == C_INFO && !strcmp(h, "GPUInfo")))
				x->col[c] = i;
	}
	char missing[200] = "";
	for (size_t r = 0; r < HP_ARRAY_LEN(col_required); r++)
		if (x->col[col_required[r]] < 0) {
			size_t l = strlen(missing);
			snprintf(missing + l, sizeof missing - l, "%s%s", l ? ", " : "",
				 col_names[col_required[r]]);
		}
	if (*missing) {
		char got[160] = "";
		for (int i = 0; i < x->nf && i < 8; i++) {
			size_t l = strlen(got);
			snprintf(got + l, sizeof got - l, "%s%.24s", i ? "," : "", x->f[i]);
		}
		hp_err_set(x->err, HP_EXIT_INPUT,
			   "%s: not a SkyPilot catalog CSV: the header lacks %s (header: %s%s)",
			   x->what, missing, got, x->nf > 8 ? ",..." : "");
		x->failed = 1;
	}
	x->n_header = x->nf;
}

static void csv_row(int term, void *ud)
{
	struct csv_ctx *x = ud;
	(void)term;
	if (x->failed) {
		clear_fields(x);
		return;
	}
	x->row++;
	if (x->row == 1) {
		csv_header(x);
		clear_fields(x);
		return;
	}
	if (x->nf != x->n_header) {
		hp_err_set(x->err, HP_EXIT_INPUT,
			   "%s: record %ld has %d fields, the header has %d (malformed CSV)",
			   x->what, x->row, x->nf, x->n_header);
		x->failed = 1;
		clear_fields(x);
		return;
	}
	struct price_offer o = { 0 };
	o.source = x->src;
	char prov[24];
	hp_strlcpy(prov, x->col[C_CLOUD] >= 0 ? fld(x, C_CLOUD) : x->cloud, sizeof prov);
	lower(prov);
	hp_strlcpy(o.provider, prov, sizeof o.provider);
	hp_strlcpy(o.instance, fld(x, C_INST), sizeof o.instance);
	hp_strlcpy(o.label, fld(x, C_ACC), sizeof o.label);
	hp_strlcpy(o.region, fld(x, C_REGION), sizeof o.region);
	hp_strlcpy(o.zone, fld(x, C_ZONE), sizeof o.zone);
	o.mem_mib_reported = gpuinfo_mib(fld(x, C_INFO));
	double count = 0, od = price_field(fld(x, C_PRICE)), spot = price_field(fld(x, C_SPOT));
	if (num_field(fld(x, C_COUNT), &count) || count < 0)
		count = 0;
	if (!strcmp(o.provider, "gcp")) {
		/* GCP bills the host VM and its GPUs on separate rows. */
		struct gcp_row r = { 0 };
		hp_strlcpy(r.inst, o.instance, sizeof r.inst);
		hp_strlcpy(r.label, o.label, sizeof r.label);
		hp_strlcpy(r.region, o.region, sizeof r.region);
		hp_strlcpy(r.zone, o.zone, sizeof r.zone);
		r.count = count;
		r.od = od;
		r.spot = spot;
		r.mib = o.mem_mib_reported;
		if (*r.inst && !*r.label)
			push_gcp(&x->hosts, &x->n_hosts, &x->cap_hosts, &r);
		else if (!*r.inst && *r.label)
			push_gcp(&x->accs, &x->n_accs, &x->cap_accs, &r);
		else if (*r.inst && *r.label)
			emit(x->pb, x->cat, &o, count, od, spot);
	} else if (*o.label || find_sku(o.provider, o.instance)) {
		emit(x->pb, x->cat, &o, count, od, spot);
	}
	clear_fields(x);
}

/* The GPU a GCP machine type carries: a2-highgpu-4g is 4 x A100 40 GB. */
static int gcp_host_gpus(const char *inst, const char **label, double *count)
{
	static const struct { const char *prefix, *label; } fam[] = {
		{ "a2-highgpu-", "A100" },    { "a2-megagpu-", "A100" },
		{ "a2-ultragpu-", "A100-80GB" }, { "a3-highgpu-", "H100" },
		{ "a3-edgegpu-", "H100" },    { "a3-megagpu-", "H100" },
		{ "a3-ultragpu-", "H200" },   { "a4-highgpu-", "B200" },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(fam); i++) {
		size_t l = strlen(fam[i].prefix);
		if (strncmp(inst, fam[i].prefix, l))
			continue;
		char *end;
		long n = strtol(inst + l, &end, 10);
		if (n <= 0 || strcmp(end, "g"))
			return -1;
		*label = fam[i].label;
		*count = (double)n;
		return 0;
	}
	if (!strncmp(inst, "g2-standard-", 12)) {
		long v = strtol(inst + 12, NULL, 10);
		*label = "L4";
		*count = v >= 96 ? 8 : v >= 48 ? 4 : v >= 24 ? 2 : 1;
		return 0;
	}
	return -1;
}

static void gcp_pair(struct csv_ctx *x)
{
	for (int a = 0; a < x->n_accs; a++) {
		const struct gcp_row *acc = &x->accs[a];
		char want[32] = "";
		struct price_offer t = { 0 };
		hp_strlcpy(t.provider, "gcp", sizeof t.provider);
		hp_strlcpy(t.label, acc->label, sizeof t.label);
		if (resolve_gpu(x->pb, x->cat, &t, acc->count) == 0)
			hp_strlcpy(want, t.gpu, sizeof want);
		int paired = 0;
		for (int h = 0; h < x->n_hosts && *want; h++) {
			const struct gcp_row *host = &x->hosts[h];
			const char *hl;
			double hc;
			if (strcmp(host->zone, acc->zone) || gcp_host_gpus(host->inst, &hl, &hc) ||
			    fabs(hc - acc->count) > 1e-9)
				continue;
			struct price_offer u = { 0 };
			hp_strlcpy(u.provider, "gcp", sizeof u.provider);
			hp_strlcpy(u.label, hl, sizeof u.label);
			if (resolve_gpu(x->pb, x->cat, &u, hc) || strcmp(u.gpu, want))
				continue;
			struct price_offer o = { 0 };
			o.source = x->src;
			hp_strlcpy(o.provider, "gcp", sizeof o.provider);
			hp_strlcpy(o.instance, host->inst, sizeof o.instance);
			hp_strlcpy(o.label, acc->label, sizeof o.label);
			hp_strlcpy(o.region, acc->region, sizeof o.region);
			hp_strlcpy(o.zone, acc->zone, sizeof o.zone);
			o.mem_mib_reported = acc->mib;
			double od = host->od > 0 && acc->od > 0 ? host->od + acc->od : -1;
			double sp = host->spot > 0 && acc->spot > 0 ? host->spot + acc->spot : -1;
			emit(x->pb, x->cat, &o, acc->count, od, sp);
			paired = 1;
		}
		if (!paired) {
			/* No host row to add: the GPUs alone understate a VM's price,
			 * so the row is kept for listings but never used to price. */
			struct price_offer o = { 0 };
			o.source = x->src;
			hp_strlcpy(o.provider, "gcp", sizeof o.provider);
			hp_strlcpy(o.label, acc->label, sizeof o.label);
			hp_strlcpy(o.region, acc->region, sizeof o.region);
			hp_strlcpy(o.zone, acc->zone, sizeof o.zone);
			o.mem_mib_reported = acc->mib;
			o.flags = PF_GPU_ONLY;
			snprintf(o.note, sizeof o.note, "GPUs only, no host VM row");
			emit(x->pb, x->cat, &o, acc->count, acc->od, acc->spot);
		}
	}
}

int pricing_parse_skypilot(struct price_book *pb, int src, const char *cloud,
			   const char *text, size_t len, const struct catalog *cat,
			   const char *what, struct hp_err *err)
{
	struct csv_parser p;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
		return hp_err_set(err, HP_EXIT_FAIL, "%s: cannot start the CSV parser", what);
	struct csv_ctx x = { 0 };
	x.pb = pb;
	x.cat = cat;
	x.src = src;
	x.cloud = cloud ? cloud : "";
	x.what = what;
	x.err = err;
	int n0 = pb->n;
	if (csv_parse(&p, text, len, csv_field, csv_row, &x) != len && !x.failed) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: malformed CSV after record %ld: %s", what,
			   x.row, csv_strerror(csv_error(&p)));
		x.failed = 1;
	}
	if (!x.failed && csv_fini(&p, csv_field, csv_row, &x) != 0 && !x.failed) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: malformed CSV at the end (record %ld): %s",
			   what, x.row + 1, csv_strerror(csv_error(&p)));
		x.failed = 1;
	}
	clear_fields(&x);
	csv_free(&p);
	if (!x.failed && x.row == 0) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: empty CSV, expected a SkyPilot catalog", what);
		x.failed = 1;
	}
	if (!x.failed)
		gcp_pair(&x);
	free(x.hosts);
	free(x.accs);
	if (x.failed) {
		pb->n = n0;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* hetplan's JSON feed. */

int pricing_parse_feed(struct price_book *pb, int src, const char *text, size_t len,
		       const struct catalog *cat, const char *what, struct hp_err *err)
{
	static const char *const known[] = { "schema", "currency", "generated", "offers",
					      "gpus", NULL };
	static const char *const oknown[] = { "provider", "region", "zone", "instance", "gpu",
					       "gpus", "usd_per_hour", "usd_per_gpu_hour",
					       "spot_usd_per_hour", "spot_usd_per_gpu_hour",
					       "note", NULL };
	cJSON *root = jx_parse(text, len, what, err);
	if (!root)
		return -1;
	int n0 = pb->n, rc = -1, bad, i = 0;
	struct jx_ctx jc = { what, "", err };
	char schema[32] = "", cur[8] = "USD";
	if (!cJSON_IsObject(root)) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: expected a JSON object with \"offers\"", what);
		goto out;
	}
	if (jx_check_keys(&jc, root, known) < 0 ||
	    jx_str(&jc, root, "schema", 1, schema, sizeof schema) < 0 ||
	    jx_str(&jc, root, "currency", 0, cur, sizeof cur) < 0)
		goto out;
	if (strcmp(schema, "hetplan-prices/1")) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: schema: expected \"hetplan-prices/1\", got \"%s\"",
			   what, schema);
		goto out;
	}
	if (strcmp(cur, "USD")) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: currency: only \"USD\" is supported, got \"%s\"",
			   what, cur);
		goto out;
	}
	const cJSON *gpus = jx_arr(&jc, root, "gpus", 0, &bad), *it;
	if (bad)
		goto out;
	cJSON_ArrayForEach(it, gpus) {
		char path[32];
		snprintf(path, sizeof path, "gpus[%d]", i++);
		struct gpu_spec g;
		if (catalog_parse_gpu(it, what, path, &g, err) < 0)
			goto out;
		int k;
		for (k = 0; k < pb->n_gpus && strcmp(pb->gpus[k].name, g.name); k++)
			;
		if (k == pb->n_gpus)
			pb->gpus = xrealloc(pb->gpus, (size_t)++pb->n_gpus * sizeof g);
		pb->gpus[k] = g;
	}
	const cJSON *offers = jx_arr(&jc, root, "offers", gpus == NULL, &bad);
	if (bad)
		goto out;
	i = 0;
	cJSON_ArrayForEach(it, offers) {
		char path[32];
		snprintf(path, sizeof path, "offers[%d]", i++);
		struct jx_ctx c = { what, path, err };
		struct price_offer o = { 0 };
		o.source = src;
		char gpu[48];
		double n = 0, od = -1, odg = -1, sp = -1, spg = -1;
		if (!cJSON_IsObject(it)) {
			hp_err_set(err, HP_EXIT_INPUT, "%s: %s: expected an object", what, path);
			goto out;
		}
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
			goto out;
		const struct gpu_spec *g = lookup_gpu(pb, cat, gpu);
		if (!g) {
			char w[200];
			snprintf(w, sizeof w, "%.120s: %s.gpu", what, path);
			if (cat)
				catalog_gpu_unknown(cat, gpu, w, err);
			else
				hp_err_set(err, HP_EXIT_INPUT, "%s: unknown GPU '%s'", w, gpu);
			goto out;
		}
		if (od <= 0 && odg > 0)
			od = odg * n;
		if (sp <= 0 && spg > 0)
			sp = spg * n;
		if (od <= 0 && sp <= 0) {
			hp_err_set(err, HP_EXIT_INPUT,
				   "%s: %s: needs a price: usd_per_hour, usd_per_gpu_hour, spot_usd_per_hour or spot_usd_per_gpu_hour",
				   what, path);
			goto out;
		}
		lower(o.provider);
		hp_strlcpy(o.gpu, g->name, sizeof o.gpu);
		hp_strlcpy(o.label, gpu, sizeof o.label);
		o.gpus = n;
		for (int s = 0; s < 2; s++) {
			double p = s ? sp : od;
			if (p <= 0)
				continue;
			struct price_offer y = o;
			y.spot = s;
			y.usd_per_instance_h = p;
			y.usd_per_gpu_h = p / n;
			add_offer(pb, &y);
		}
	}
	rc = 0;
out:
	if (rc < 0) {
		for (int k = n0; k < pb->n; k++)
			if (pb->offers[k].source >= 0 && pb->offers[k].source < pb->n_src)
				pb->src[pb->offers[k].source].n_offers--;
		pb->n = n0;
	}
	cJSON_Delete(root);
	return rc;
}

/* Write offers of one source as a feed (the Azure cache). */
static char *feed_from_offers(const struct price_book *pb)
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

/* ------------------------------------------------------------------------ */
/* Azure Retail Prices. */

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
		if (strcmp(type, "Consumption") || !find_sku("azure", sku))
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
		hp_strlcpy(o.instance, sku, sizeof o.instance);
		hp_strlcpy(o.region, jstr(it, "armRegionName"), sizeof o.region);
		emit(pb, cat, &o, 0, spot ? -1 : p, spot ? p : -1);
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
	for (size_t i = 0; i < HP_ARRAY_LEN(skus); i++) {
		if (strcmp(skus[i].provider, "azure"))
			continue;
		l = strlen(f);
		snprintf(f + l, cap - l, "%sarmSkuName eq '%s'", first ? "" : " or ", skus[i].inst);
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

/* ------------------------------------------------------------------------ */
/* Configuration. */

static int mkdir_p(const char *path)
{
	char buf[1024];
	if (hp_strlcpy(buf, path, sizeof buf) >= sizeof buf)
		return -1;
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

void pricing_cache_dir(const struct price_config *cfg, char *buf, size_t n)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (cfg && cfg->cache_dir[0])
		snprintf(buf, n, "%s", cfg->cache_dir);
	else if (x && *x)
		snprintf(buf, n, "%s/hetplan", x);
	else if (home && *home)
		snprintf(buf, n, "%s/.cache/hetplan", home);
	else
		snprintf(buf, n, ".hetplan-cache");
}

static const char *const default_sources[] = {
	"skypilot:aws", "skypilot:gcp", "skypilot:azure", "skypilot:lambda", "skypilot:runpod",
};

/* Apply a timeout in seconds: connect, stall window, and a whole-transfer
 * cap of 15 times that (at least a minute). */
static void set_timeout(struct http_opts *h, double s)
{
	h->connect_timeout_ms = (long)(s * 1000);
	h->low_speed_s = (long)ceil(s);
	if (h->low_speed_s < 1)
		h->low_speed_s = 1;
	h->timeout_ms = (long)(HP_MAX(60.0, 15 * s) * 1000);
}

static int url_ok(const char *u)
{
	return !strncmp(u, "https://", 8) || !strncmp(u, "http://", 7);
}

static int env_num(const char *name, int bytes, double lo, double hi, double *out,
		   struct hp_err *err)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 1;
	double d;
	int bad = bytes ? hp_parse_bytes(v, &d) : hp_parse_duration(v, &d);
	if (bad && !bytes && !num_field(v, &d))
		bad = 0;
	if (bad || d < lo || d > hi)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: expected %s, got '%s'", name,
				  bytes ? "a size like 64M" : "seconds like 20 or 1.5", v);
	*out = d;
	return 0;
}

static int config_file_load(struct price_config *cfg, const char *path, int must_exist,
			    struct hp_err *err)
{
	static const char *const known[] = { "sources", "skypilot_url", "azure_url",
					     "cache_dir", "timeout_s", "max_bytes",
					     "retry_wait_s", "max_parallel", "ca_file", NULL };
	struct stat st;
	if (stat(path, &st) != 0) {
		if (must_exist)
			return hp_err_set(err, HP_EXIT_INPUT, "%s: no such file", path);
		return 0;
	}
	size_t len;
	char *text = hp_read_regular_file(path, &len, err);
	if (!text)
		return -1;
	cJSON *root = jx_parse(text, len, path, err);
	free(text);
	if (!root)
		return -1;
	int rc = -1, bad;
	struct jx_ctx jr = { path, "", err };
	const cJSON *pr = cJSON_IsObject(root) ? jx_obj(&jr, root, "prices", 0, &bad) : NULL;
	if (!cJSON_IsObject(root)) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: expected a JSON object", path);
		goto out;
	}
	if (bad)
		goto out;
	hp_strlcpy(cfg->config_file, path, sizeof cfg->config_file);
	if (!pr) {
		rc = 0;
		goto out;
	}
	struct jx_ctx c = { path, "prices", err };
	double t = -1, mb = -1, rw = -1;
	char mbs[32] = "";
	int par = 0;
	if (jx_check_keys(&c, pr, known) < 0 ||
	    jx_str(&c, pr, "skypilot_url", 0, cfg->skypilot_url, sizeof cfg->skypilot_url) < 0 ||
	    jx_str(&c, pr, "azure_url", 0, cfg->azure_url, sizeof cfg->azure_url) < 0 ||
	    jx_str(&c, pr, "cache_dir", 0, cfg->cache_dir, sizeof cfg->cache_dir) < 0 ||
	    jx_str(&c, pr, "ca_file", 0, cfg->http.ca_file, sizeof cfg->http.ca_file) < 0 ||
	    jx_num(&c, pr, "timeout_s", 0, 0.1, 3600, &t) < 0 ||
	    jx_num(&c, pr, "retry_wait_s", 0, 0, 600, &rw) < 0 ||
	    jx_int(&c, pr, "max_parallel", 0, 1, 16, &par) < 0)
		goto out;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(pr, "max_bytes");
	if (cJSON_IsNumber(m)) {
		mb = m->valuedouble;
	} else if (m) {
		if (jx_str(&c, pr, "max_bytes", 0, mbs, sizeof mbs) < 0)
			goto out;
		if (hp_parse_bytes(mbs, &mb))
			mb = -1;
	}
	if (m && (mb < 1024 || mb > 16e9)) {
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: prices.max_bytes: expected a size from 1K to 16G like \"64M\"", path);
		goto out;
	}
	if (t > 0)
		set_timeout(&cfg->http, t);
	if (mb > 0)
		cfg->http.max_bytes = mb;
	if (rw >= 0)
		cfg->http.retry_wait_max_s = rw;
	if (par)
		cfg->max_parallel = par;
	const cJSON *srcs = jx_arr(&c, pr, "sources", 0, &bad), *it;
	if (bad)
		goto out;
	if (srcs) {
		cfg->n_sources = 0;
		int i = 0;
		cJSON_ArrayForEach(it, srcs) {
			if (!cJSON_IsString(it) || cfg->n_sources >= PRICE_MAX_SOURCES ||
			    pricing_source_valid(it->valuestring, err) < 0) {
				if (cJSON_IsString(it) && cfg->n_sources < PRICE_MAX_SOURCES)
					hp_err_prefix(err, "%s: prices.sources[%d]", path, i);
				else
					hp_err_set(err, HP_EXIT_INPUT,
						   "%s: prices.sources[%d]: expected at most %d source names",
						   path, i, PRICE_MAX_SOURCES);
				goto out;
			}
			hp_strlcpy(cfg->sources[cfg->n_sources++], it->valuestring,
				   sizeof cfg->sources[0]);
			i++;
		}
	}
	if ((*cfg->skypilot_url && !url_ok(cfg->skypilot_url)) ||
	    (*cfg->azure_url && !url_ok(cfg->azure_url))) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: prices: URLs must start with https:// or http://",
			   path);
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

int pricing_config_load(struct price_config *cfg, const char *config_file,
			struct hp_err *err)
{
	memset(cfg, 0, sizeof *cfg);
	http_opts_default(&cfg->http);
	set_timeout(&cfg->http, 20);
	cfg->max_parallel = 4;
	for (size_t i = 0; i < HP_ARRAY_LEN(default_sources); i++)
		hp_strlcpy(cfg->sources[cfg->n_sources++], default_sources[i],
			   sizeof cfg->sources[0]);
	if (config_file) {
		if (config_file_load(cfg, config_file, 1, err) < 0)
			return -1;
	} else {
		const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
		char *p = NULL;
		if (x && *x)
			p = xasprintf("%s/hetplan/config.json", x);
		else if (home && *home)
			p = xasprintf("%s/.config/hetplan/config.json", home);
		int rc = p ? config_file_load(cfg, p, 0, err) : 0;
		free(p);
		if (rc < 0)
			return -1;
	}
	const char *v;
	if ((v = getenv("HETPLAN_SKYPILOT_URL")) && *v) {
		if (!url_ok(v))
			return hp_err_set(err, HP_EXIT_INPUT,
					  "HETPLAN_SKYPILOT_URL: expected an http(s):// URL, got '%s'", v);
		hp_strlcpy(cfg->skypilot_url, v, sizeof cfg->skypilot_url);
	}
	if ((v = getenv("HETPLAN_AZURE_URL")) && *v) {
		if (!url_ok(v))
			return hp_err_set(err, HP_EXIT_INPUT,
					  "HETPLAN_AZURE_URL: expected an http(s):// URL, got '%s'", v);
		hp_strlcpy(cfg->azure_url, v, sizeof cfg->azure_url);
	}
	if ((v = getenv("HETPLAN_PRICES_CACHE")) && *v)
		hp_strlcpy(cfg->cache_dir, v, sizeof cfg->cache_dir);
	double d;
	int r;
	if ((r = env_num("HETPLAN_HTTP_TIMEOUT", 0, 0.1, 3600, &d, err)) < 0)
		return -1;
	if (!r)
		set_timeout(&cfg->http, d);
	if ((r = env_num("HETPLAN_HTTP_MAX_BYTES", 1, 1024, 16e9, &d, err)) < 0)
		return -1;
	if (!r)
		cfg->http.max_bytes = d;
	if ((r = env_num("HETPLAN_HTTP_RETRY_MAX", 0, 0, 600, &d, err)) < 0)
		return -1;
	if (!r)
		cfg->http.retry_wait_max_s = d;
	if (!*cfg->skypilot_url)
		hp_strlcpy(cfg->skypilot_url, DEFAULT_SKYPILOT_URL, sizeof cfg->skypilot_url);
	if (!*cfg->azure_url)
		hp_strlcpy(cfg->azure_url, DEFAULT_AZURE_URL, sizeof cfg->azure_url);
	return 0;
}

int pricing_source_valid(const char *name, struct hp_err *err)
{
	if (!strcmp(name, "azure"))
		return 0;
	if (!strncmp(name, "skypilot:", 9)) {
		const char *c = name + 9;
		if (!*c || strlen(c) > 20)
			goto bad;
		for (; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
				goto bad;
		return 0;
	}
	if (!strncmp(name, "json:", 5)) {
		if (!url_ok(name + 5) || strlen(name) >= 500)
			return hp_err_set(err, HP_EXIT_USAGE,
					  "source '%s': json: needs an http:// or https:// URL", name);
		return 0;
	}
bad:
	return hp_err_set(err, HP_EXIT_USAGE,
			  "unknown price source '%s' (expected skypilot:CLOUD like skypilot:aws, azure, or json:URL)",
			  name);
}

/* ------------------------------------------------------------------------ */
/* The cache: one file per source, "hetplan-cache 1\n", one line of JSON
 * metadata, then the body exactly as parsed. Written in one atomic rename,
 * so metadata and body never disagree. */

#define CACHE_MAGIC "hetplan-cache 1\n"

struct cache_entry {
	char source[160], url[512], etag[256], last_modified[64], format[24];
	double fetched_at, checked_at;
	char *body;
	size_t len;
	char *file;               /* the whole file (body points into it) */
};

static void cache_key(const char *source, char *buf, size_t n)
{
	if (!strncmp(source, "json:", 5)) {
		unsigned long long h = 1469598103934665603ULL;
		for (const unsigned char *p = (const unsigned char *)source; *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
		snprintf(buf, n, "json-%016llx", h);
		return;
	}
	size_t j = 0;
	for (const char *p = source; *p && j + 1 < n; p++)
		buf[j++] = *p == ':' ? '-' : *p;
	buf[j] = '\0';
}

static char *cache_path(const char *dir, const char *source)
{
	char key[96];
	cache_key(source, key, sizeof key);
	return xasprintf("%s/prices-%s.cache", dir, key);
}

static void cache_entry_free(struct cache_entry *e)
{
	free(e->file);
	memset(e, 0, sizeof *e);
}

/* Read a cache file. 1 when absent, 0 when read, -1 (err) when broken. */
static int cache_read(const char *path, struct cache_entry *e, struct hp_err *err)
{
	memset(e, 0, sizeof *e);
	struct stat st;
	if (stat(path, &st) != 0)
		return 1;
	/* Regular files only, checked on the descriptor: a FIFO named like a
	 * cache file would block every command that loads prices. */
	size_t len;
	char *t = hp_read_regular_file(path, &len, err);
	if (!t)
		return -1;
	size_t ml = strlen(CACHE_MAGIC);
	char *nl = len > ml ? memchr(t + ml, '\n', len - ml) : NULL;
	if (len < ml || memcmp(t, CACHE_MAGIC, ml) || !nl) {
		free(t);
		return hp_err_set(err, HP_EXIT_INPUT, "%s: not a hetplan cache file", path);
	}
	cJSON *m = jx_parse(t + ml, (size_t)(nl - (t + ml)), path, err);
	if (!m) {
		free(t);
		return -1;
	}
	struct jx_ctx c = { path, "metadata", err };
	double bytes = -1;
	if (jx_str(&c, m, "source", 1, e->source, sizeof e->source) < 0 ||
	    jx_str(&c, m, "url", 0, e->url, sizeof e->url) < 0 ||
	    jx_str(&c, m, "etag", 0, e->etag, sizeof e->etag) < 0 ||
	    jx_str(&c, m, "last_modified", 0, e->last_modified, sizeof e->last_modified) < 0 ||
	    jx_str(&c, m, "format", 1, e->format, sizeof e->format) < 0 ||
	    jx_num(&c, m, "fetched_at", 1, 0, 1e11, &e->fetched_at) < 0 ||
	    jx_num(&c, m, "checked_at", 0, 0, 1e11, &e->checked_at) < 0 ||
	    jx_num(&c, m, "bytes", 1, 0, 1e12, &bytes) < 0) {
		cJSON_Delete(m);
		free(t);
		return -1;
	}
	cJSON_Delete(m);
	e->file = t;
	e->body = nl + 1;
	e->len = len - (size_t)(nl + 1 - t);
	if ((double)e->len != bytes) {
		cache_entry_free(e);
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: holds %zu bytes of data, its metadata says %.0f (damaged)",
				  path, len - (size_t)(nl + 1 - t), bytes);
	}
	if (!e->checked_at)
		e->checked_at = e->fetched_at;
	return 0;
}

static int cache_write(const char *path, const struct cache_entry *e, const char *body,
		       size_t len, struct hp_err *err)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "source", e->source);
	cJSON_AddStringToObject(m, "url", e->url);
	cJSON_AddStringToObject(m, "etag", e->etag);
	cJSON_AddStringToObject(m, "last_modified", e->last_modified);
	cJSON_AddStringToObject(m, "format", e->format);
	cJSON_AddNumberToObject(m, "fetched_at", floor(e->fetched_at));
	cJSON_AddNumberToObject(m, "checked_at", floor(e->checked_at));
	cJSON_AddNumberToObject(m, "bytes", (double)len);
	char *meta = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	size_t ml = strlen(CACHE_MAGIC), tl = strlen(meta);
	char *all = xmalloc(ml + tl + 1 + len);
	memcpy(all, CACHE_MAGIC, ml);
	memcpy(all + ml, meta, tl);
	all[ml + tl] = '\n';
	if (len)
		memcpy(all + ml + tl + 1, body, len);
	free(meta);
	int rc = hp_write_file_atomic(path, all, ml + tl + 1 + len, err);
	free(all);
	return rc;
}

/* Parse a body of a given format into pb under source src. */
static int parse_body(struct price_book *pb, int src, const char *source, const char *format,
		      const char *body, size_t len, const struct catalog *cat,
		      const char *what, struct hp_err *err)
{
	if (!strcmp(format, "skypilot-csv"))
		return pricing_parse_skypilot(pb, src, source + 9, body, len, cat, what, err);
	if (!strcmp(format, "hetplan-json"))
		return pricing_parse_feed(pb, src, body, len, cat, what, err);
	return hp_err_set(err, HP_EXIT_INPUT, "%s: unknown cache format '%s'", what, format);
}

/* ------------------------------------------------------------------------ */
/* Loading. */

int pricing_load_embedded(struct price_book *pb, const struct catalog *cat,
			  struct hp_err *err)
{
	memset(pb, 0, sizeof *pb);
	int s = pricing_add_source(pb, "embedded", "data/prices.csv", PRICE_EMBEDDED, 0);
	if (pricing_parse_skypilot(pb, s, "", embed_prices_csv, embed_prices_csv_len, cat,
				   "embedded snapshot (data/prices.csv)", err) < 0)
		return -1;
	pricing_finish(pb);
	return 0;
}

/* Later layers win: SkyPilot catalogs, then Azure's own API, then the
 * user's json feeds; by name within a kind. */
static int cache_rank(const char *name)
{
	return !strncmp(name, "prices-json-", 12) ? 2 : !strncmp(name, "prices-azure", 12) ? 1 : 0;
}

static int name_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int r = cache_rank(x) - cache_rank(y);
	return r ? r : strcmp(x, y);
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

int pricing_load(struct price_book *pb, const struct price_config *cfg,
		 const struct catalog *cat, struct hp_err *err)
{
	memset(pb, 0, sizeof *pb);
	int s = pricing_add_source(pb, "embedded", "data/prices.csv", PRICE_EMBEDDED, 0);
	if (pricing_parse_skypilot(pb, s, "", embed_prices_csv, embed_prices_csv_len, cat,
				   "embedded snapshot (data/prices.csv)", err) < 0)
		return -1;
	pricing_cache_dir(cfg, pb->cache_dir, sizeof pb->cache_dir);
	DIR *d = opendir(pb->cache_dir);
	char **names = NULL;
	int nn = 0;
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);
			if (strncmp(de->d_name, "prices-", 7) || l < 13 ||
			    strcmp(de->d_name + l - 6, ".cache"))
				continue;
			names = xrealloc(names, (size_t)(nn + 1) * sizeof *names);
			names[nn++] = xstrdup(de->d_name);
		}
		closedir(d);
	}
	if (nn > 1)
		qsort(names, (size_t)nn, sizeof *names, name_cmp);
	/* Providers whose snapshot rows a cached catalog replaces. */
	char covered[PRICE_MAX_SOURCES][24];
	int nc = 0;
	for (int i = 0; i < nn; i++) {
		char *path = xasprintf("%s/%s", pb->cache_dir, names[i]);
		struct cache_entry e;
		struct hp_err e2 = { 0 };
		int rc = cache_read(path, &e, &e2);
		int src = rc == 0 ? pricing_add_source(pb, e.source, e.url, PRICE_CACHE,
						       e.fetched_at) : -1;
		if (rc == 0 && src < 0) {
			hp_err_set(&e2, HP_EXIT_INPUT, "%s: more than %d cached sources; ignored",
				   path, PRICE_MAX_SOURCES);
			rc = -1;
		}
		if (rc == 0) {
			pb->src[src].checked_at = e.checked_at;
			char what[700];
			snprintf(what, sizeof what, "%.160s (cache %.500s)", e.source, path);
			if (parse_body(pb, src, e.source, e.format, e.body, e.len, cat, what, &e2) < 0) {
				rc = -1;
				pb->n_src--;
			} else if (!strncmp(e.source, "skypilot:", 9) && nc < PRICE_MAX_SOURCES) {
				hp_strlcpy(covered[nc++], e.source + 9, sizeof covered[0]);
			} else if (!strcmp(e.source, "azure") && nc < PRICE_MAX_SOURCES) {
				hp_strlcpy(covered[nc++], "azure", sizeof covered[0]);
			}
		}
		if (rc < 0) {
			char w[600];
			snprintf(w, sizeof w, "ignoring a cache file: %.560s", e2.msg);
			warn(pb, w);
		}
		cache_entry_free(&e);
		free(path);
		free(names[i]);
	}
	free(names);
	if (nc) {
		int m = 0;
		for (int i = 0; i < pb->n; i++) {
			const struct price_offer *o = &pb->offers[i];
			int drop = 0;
			for (int k = 0; k < nc && o->source == s; k++)
				drop |= !strcmp(o->provider, covered[k]);
			if (!drop)
				pb->offers[m++] = *o;
		}
		pb->n = m;
	}
	pricing_finish(pb);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Updating. */

struct job_ctx {
	const struct price_config *cfg;
	const struct catalog *cat;
	const char *const *sources;
	int n, next, done;
	pthread_mutex_t mu;
	pricing_progress_fn fn;
	void *ud;
	atomic_int *cancel;
	atomic_int stop;          /* the callback asked to stop */
	struct price_update *out;
	char dir[512];
};

struct one {
	struct job_ctx *j;
	const char *source;
	int page;
};

static int on_bytes(void *ud, double now, double total)
{
	struct one *o = ud;
	struct job_ctx *j = o->j;
	if (!j->fn)
		return 0;
	struct price_progress p = { o->source, now, total, o->page, 0, j->n };
	pthread_mutex_lock(&j->mu);
	p.done = j->done;
	int r = j->fn(j->ud, &p);
	pthread_mutex_unlock(&j->mu);
	if (r)
		atomic_store(&j->stop, 1);
	return r;
}

static int cancelled(struct job_ctx *j)
{
	return atomic_load(&j->stop) || (j->cancel && atomic_load(j->cancel));
}

/* A temporary book that parses a body against the real GPU names. */
static int validate(const struct catalog *cat, const char *source, const char *format,
		    const char *body, size_t len, const char *what, int *n_offers,
		    struct hp_err *err)
{
	struct price_book t = { 0 };
	int s = pricing_add_source(&t, source, "", PRICE_LIVE, 0);
	int rc = parse_body(&t, s, source, format, body, len, cat, what, err);
	if (rc == 0 && t.n == 0 && t.n_gpus == 0)
		rc = hp_err_set(err, HP_EXIT_INPUT,
				"%s: no GPU offers with a price in %zu bytes of data", what, len);
	*n_offers = t.n;
	pricing_free(&t);
	return rc;
}

/* Fetch all pages of the Azure query into a feed body. */
static int fetch_azure(struct one *o, char **body, size_t *len, int *pages,
		       char *note, size_t note_n, struct hp_err *err)
{
	struct job_ctx *j = o->j;
	struct price_book t = { 0 };
	int s = pricing_add_source(&t, "azure", "", PRICE_LIVE, 0);
	char *url = azure_query_url(j->cfg->azure_url);
	int page_size = 0, offset = 0, rc = -1;
	int https = !strncmp(url, "https:", 6);
	note[0] = '\0';
	for (int page = 1;; page++) {
		if (page > AZURE_MAX_PAGES) {
			hp_err_set(err, HP_EXIT_FAIL, "azure: more than %d pages; stopped",
				   AZURE_MAX_PAGES);
			goto out;
		}
		if (cancelled(j)) {
			hp_err_set(err, HP_EXIT_FAIL, "azure: cancelled");
			goto out;
		}
		o->page = page;
		struct http_resp r;
		if (http_get(url, NULL, NULL, &j->cfg->http, on_bytes, o, j->cancel, &r, err) < 0 ||
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
		int prc = pricing_parse_azure_page(&t, s, r.body, r.len, j->cat, what, &count, next,
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
					   "azure page %d: NextPageLink leaves https (%.200s)", page, next);
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
		*pages = page;
		break;
	}
	pricing_finish(&t);
	*body = feed_from_offers(&t);
	*len = strlen(*body);
	rc = 0;
out:
	if (rc < 0 && *note) {
		char tmp[512];
		snprintf(tmp, sizeof tmp, "%s", err->msg);
		hp_err_set(err, HP_EXIT_FAIL, "%.300s (after: %.200s)", tmp, note);
	}
	free(url);
	pricing_free(&t);
	return rc;
}

static void run_one(struct job_ctx *j, int idx)
{
	const char *source = j->sources[idx];
	struct price_update *u = &j->out[idx];
	struct one o = { j, source, 0 };
	memset(u, 0, sizeof *u);
	hp_strlcpy(u->source, source, sizeof u->source);
	char *path = cache_path(j->dir, source);
	struct cache_entry old;
	struct hp_err e = { 0 };
	int have = cache_read(path, &old, &e) == 0;
	u->data_fetched_at = have ? old.fetched_at : 0;
	struct cache_entry ne = { 0 };
	hp_strlcpy(ne.source, source, sizeof ne.source);
	char *url = NULL, *body = NULL;
	size_t len = 0;
	int pages = 0;
	char note[256] = "";
	if (cancelled(j)) {
		u->result = PRICE_CANCELLED;
		snprintf(u->msg, sizeof u->msg, "cancelled");
		goto out;
	}
	if (!strcmp(source, "azure")) {
		hp_strlcpy(ne.format, "hetplan-json", sizeof ne.format);
		hp_strlcpy(ne.url, j->cfg->azure_url, sizeof ne.url);
		if (fetch_azure(&o, &body, &len, &pages, note, sizeof note, &e) < 0)
			goto failed;
	} else {
		int sky = !strncmp(source, "skypilot:", 9);
		url = sky ? xasprintf("%s/%s/vms.csv", j->cfg->skypilot_url, source + 9)
			  : xstrdup(source + 5);
		hp_strlcpy(ne.url, url, sizeof ne.url);
		hp_strlcpy(ne.format, sky ? "skypilot-csv" : "hetplan-json", sizeof ne.format);
		int same = have && !strcmp(old.url, url);
		struct http_resp r;
		int rc = http_get(url, same ? old.etag : NULL, same ? old.last_modified : NULL,
				  &j->cfg->http, on_bytes, &o, j->cancel, &r, &e);
		if (rc < 0) {
			http_resp_free(&r);
			goto failed;
		}
		if (r.status == 304) {
			http_resp_free(&r);
			if (!same) {
				hp_err_set(&e, HP_EXIT_FAIL, "%s: 304 Not Modified without a cached copy",
					   url);
				goto failed;
			}
			/* Confirmed: rewrite only the check time, same bytes. */
			old.checked_at = (double)time(NULL);
			if (cache_write(path, &old, old.body, old.len, &e) < 0)
				goto failed;
			u->result = PRICE_NOT_MODIFIED;
			snprintf(u->msg, sizeof u->msg, "%s: not modified", url);
			goto out;
		}
		hp_strlcpy(ne.etag, r.etag, sizeof ne.etag);
		hp_strlcpy(ne.last_modified, r.last_modified, sizeof ne.last_modified);
		body = r.body;
		len = r.len;
		r.body = NULL;
	}
	int n_offers = 0;
	if (validate(j->cat, source, ne.format, body, len, source, &n_offers, &e) < 0)
		goto failed;
	ne.fetched_at = ne.checked_at = (double)time(NULL);
	if (cache_write(path, &ne, body, len, &e) < 0)
		goto failed;
	u->result = PRICE_FETCHED;
	u->n_offers = n_offers;
	u->data_fetched_at = ne.fetched_at;
	if (pages)
		snprintf(u->msg, sizeof u->msg, "%d page%s%s%s", pages, pages == 1 ? "" : "s",
			 *note ? "; " : "", note);
	goto out;
failed:
	u->result = cancelled(j) ? PRICE_CANCELLED : PRICE_FAILED;
	hp_strlcpy(u->msg, e.msg, sizeof u->msg);
out:
	if (have)
		cache_entry_free(&old);
	free(body);
	free(url);
	free(path);
	pthread_mutex_lock(&j->mu);
	j->done++;
	if (j->fn) {
		struct price_progress p = { source, 0, 0, 0, j->done, j->n };
		if (j->fn(j->ud, &p))
			atomic_store(&j->stop, 1);
	}
	pthread_mutex_unlock(&j->mu);
}

static void *worker(void *arg)
{
	struct job_ctx *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		int i = j->next < j->n ? j->next++ : -1;
		pthread_mutex_unlock(&j->mu);
		if (i < 0)
			return NULL;
		run_one(j, i);
	}
}

int pricing_update(const struct price_config *cfg, const struct catalog *cat,
		   const char *const *sources, int n, pricing_progress_fn fn, void *ud,
		   atomic_int *cancel, struct price_update *out, struct hp_err *err)
{
	const char *defs[PRICE_MAX_SOURCES];
	if (n == 0) {
		for (int i = 0; i < cfg->n_sources; i++)
			defs[i] = cfg->sources[i];
		sources = defs;
		n = cfg->n_sources;
	}
	for (int i = 0; i < n; i++) {
		if (pricing_source_valid(sources[i], err) < 0)
			return -1;
		for (int k = 0; k < i; k++)
			if (!strcmp(sources[i], sources[k]))
				return hp_err_set(err, HP_EXIT_USAGE, "source '%s' given twice",
						  sources[i]);
	}
	struct job_ctx j;
	memset(&j, 0, sizeof j);
	j.cfg = cfg;
	j.cat = cat;
	j.sources = sources;
	j.n = n;
	j.fn = fn;
	j.ud = ud;
	j.cancel = cancel;
	j.out = out;
	atomic_init(&j.stop, 0);
	pricing_cache_dir(cfg, j.dir, sizeof j.dir);
	if (mkdir_p(j.dir) < 0)
		return hp_err_set(err, HP_EXIT_FAIL, "cache directory %s: %s", j.dir,
				  strerror(errno));
	http_global_init();
	pthread_mutex_init(&j.mu, NULL);
	int nt = HP_MIN(HP_MAX(cfg->max_parallel, 1), n);
	pthread_t th[16];
	int started = 0;
	for (int i = 0; i < nt && i < 16; i++)
		if (pthread_create(&th[i], NULL, worker, &j) == 0)
			started++;
	if (!started)
		worker(&j);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j.mu);
	int failed = 0;
	for (int i = 0; i < n; i++)
		failed += out[i].result == PRICE_FAILED || out[i].result == PRICE_CANCELLED;
	return failed;
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

const struct price_offer *pricing_for_pool(const struct price_book *pb, const char *gpu,
					   int gpus_per_node, const char *provider,
					   const char *region, int spot)
{
	struct price_filter f = { gpu, provider, region, spot ? 1 : 0, 0, 0 };
	const struct price_offer *best = NULL, *best_size = NULL;
	for (int i = 0; i < pb->n; i++) {
		const struct price_offer *o = &pb->offers[i];
		if (!passes(o, &f))
			continue;
		if (!best || o->usd_per_gpu_h < best->usd_per_gpu_h)
			best = o;
		if (fabs(o->gpus - gpus_per_node) < 1e-9 &&
		    (!best_size || o->usd_per_gpu_h < best_size->usd_per_gpu_h))
			best_size = o;
	}
	return best_size ? best_size : best;
}

static void fmt_day(double t, char *buf, size_t n)
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
	fmt_day(s->fetched_at, day, sizeof day);
	pricing_fmt_age(now - s->fetched_at, age, sizeof age);
	snprintf(buf, n, "%s %s (%s old)", s->origin == PRICE_LIVE ? "fetched" : "cached", day,
		 age);
}

int pricing_apply(const struct price_book *pb, struct cluster *c)
{
	int priced = 0;
	double now = (double)time(NULL);
	for (int i = 0; i < c->n_pools; i++) {
		struct pool *p = &c->pools[i];
		if (p->price_set)
			continue;
		const struct price_offer *o = pricing_for_pool(pb, p->gpu.name, p->gpus_per_node,
							       p->provider, p->region, p->spot);
		if (!o)
			continue;
		p->usd_per_node_h = o->usd_per_gpu_h * p->gpus_per_node;
		char age[64] = "";
		const struct price_source_info *s = o->source >= 0 && o->source < pb->n_src
							    ? &pb->src[o->source] : NULL;
		if (s && s->origin == PRICE_EMBEDDED)
			snprintf(age, sizeof age, "embedded snapshot");
		else if (s)
			fmt_day(s->fetched_at, age, sizeof age);
		snprintf(p->price_source, sizeof p->price_source, "%.10s %.28s %.16s %s; %.24s%s%.20s",
			 o->provider, *o->instance ? o->instance : "-", o->region,
			 o->spot ? "spot" : "on-demand",
			 s && s->origin != PRICE_EMBEDDED ? s->name : "", s && s->origin != PRICE_EMBEDDED ? " " : "",
			 age);
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
