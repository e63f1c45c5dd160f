/* pricing_skypilot.c — the skypilot:CLOUD source: SkyPilot's public
 * catalog CSV (schema v8, BASE/CLOUD/vms.csv), one row per instance type,
 * region and zone, columns found by header name. GCP bills the host VM and
 * its GPUs on separate rows; they are paired here by zone and GPU count. */
#include "pricing_int.h"

#include <csv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	if (pricing_num(num, &v) || v <= 0)
		return 0;
	return v < 1024 ? v * 1024 : v;
}

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
			/* at most 24 bytes of each, and what is left of got, on a
			 * whole character (tests/fuzz/fuzz.h fuzz_msg_whole) */
			size_t l = strlen(got), sep = i ? 1 : 0;
			if (l + sep + 1 >= sizeof got)
				break;
			size_t room = sizeof got - l - sep - 1;
			snprintf(got + l, sizeof got - l, "%s%.*s", sep ? "," : "",
				 UTF8_CUT(x->f[i], room < 24 ? room : 24));
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
	utf8_copy(prov, sizeof prov, x->col[C_CLOUD] >= 0 ? fld(x, C_CLOUD) : x->cloud);
	pricing_lower(prov);
	utf8_copy(o.provider, sizeof o.provider, prov);
	utf8_copy(o.instance, sizeof o.instance, fld(x, C_INST));
	utf8_copy(o.label, sizeof o.label, fld(x, C_ACC));
	utf8_copy(o.region, sizeof o.region, fld(x, C_REGION));
	utf8_copy(o.zone, sizeof o.zone, fld(x, C_ZONE));
	o.mem_mib_reported = gpuinfo_mib(fld(x, C_INFO));
	double count = 0, od = pricing_price(fld(x, C_PRICE)), spot = pricing_price(fld(x, C_SPOT));
	if (pricing_num(fld(x, C_COUNT), &count) || count < 0)
		count = 0;
	if (!strcmp(o.provider, "gcp")) {
		/* GCP bills the host VM and its GPUs on separate rows. */
		struct gcp_row r = { 0 };
		utf8_copy(r.inst, sizeof r.inst, o.instance);
		utf8_copy(r.label, sizeof r.label, o.label);
		utf8_copy(r.region, sizeof r.region, o.region);
		utf8_copy(r.zone, sizeof r.zone, o.zone);
		r.count = count;
		r.od = od;
		r.spot = spot;
		r.mib = o.mem_mib_reported;
		if (*r.inst && !*r.label)
			push_gcp(&x->hosts, &x->n_hosts, &x->cap_hosts, &r);
		else if (!*r.inst && *r.label)
			push_gcp(&x->accs, &x->n_accs, &x->cap_accs, &r);
		else if (*r.inst && *r.label)
			pricing_emit(x->pb, x->cat, &o, count, od, spot);
	} else if (*o.label || pricing_sku_find(o.provider, o.instance)) {
		pricing_emit(x->pb, x->cat, &o, count, od, spot);
	}
	clear_fields(x);
}

/* The offer of a GCP accelerator row, on the host instance inst ("" for
 * GPUs alone). */
static struct price_offer gcp_offer(const struct csv_ctx *x, const struct gcp_row *acc,
				    const char *inst)
{
	struct price_offer o = { 0 };
	o.source = x->src;
	hp_strlcpy(o.provider, "gcp", sizeof o.provider);
	utf8_copy(o.instance, sizeof o.instance, inst);
	utf8_copy(o.label, sizeof o.label, acc->label);
	utf8_copy(o.region, sizeof o.region, acc->region);
	utf8_copy(o.zone, sizeof o.zone, acc->zone);
	o.mem_mib_reported = acc->mib;
	return o;
}

/* The canonical GPU a GCP label and count mean, into want ("" if none). */
static void gcp_gpu(const struct csv_ctx *x, const char *label, double count, char *want,
		    size_t n)
{
	struct price_offer t = { 0 };
	hp_strlcpy(t.provider, "gcp", sizeof t.provider);
	utf8_copy(t.label, sizeof t.label, label);
	want[0] = '\0';
	if (pricing_resolve_gpu(x->pb, x->cat, &t, count) == 0)
		utf8_copy(want, n, t.gpu);
}

static void gcp_pair(struct csv_ctx *x)
{
	for (int a = 0; a < x->n_accs; a++) {
		const struct gcp_row *acc = &x->accs[a];
		char want[32], got[32];
		gcp_gpu(x, acc->label, acc->count, want, sizeof want);
		int paired = 0;
		for (int h = 0; h < x->n_hosts && *want; h++) {
			const struct gcp_row *host = &x->hosts[h];
			const char *hl;
			double hc;
			if (strcmp(host->zone, acc->zone) || pricing_gcp_host_gpus(host->inst, &hl, &hc) ||
			    fabs(hc - acc->count) > 1e-9)
				continue;
			/* the host's own accelerator: an a3-megagpu-8g pairs with
			 * "H100-MEGA" only, an a3-highgpu-8g with "H100" only,
			 * though both are H100-SXM (Google bills them apart) */
			gcp_gpu(x, hl, hc, got, sizeof got);
			if (strcmp(got, want) || strcasecmp(hl, acc->label))
				continue;
			struct price_offer o = gcp_offer(x, acc, host->inst);
			double od = host->od > 0 && acc->od > 0 ? host->od + acc->od : -1;
			double sp = host->spot > 0 && acc->spot > 0 ? host->spot + acc->spot : -1;
			pricing_emit(x->pb, x->cat, &o, acc->count, od, sp);
			paired = 1;
		}
		if (!paired) {
			/* No host row to add: the GPUs alone understate a VM's price,
			 * so the row is kept for listings but never used to price. */
			struct price_offer o = gcp_offer(x, acc, "");
			o.flags = PF_GPU_ONLY;
			snprintf(o.note, sizeof o.note, "GPUs only, no host VM row");
			pricing_emit(x->pb, x->cat, &o, acc->count, acc->od, acc->spot);
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

/* A cloud name: lower-case letters, digits and '-', at most 20. */
static int sky_arg_ok(const char *name, const char *arg, struct hp_err *err)
{
	size_t n = strlen(arg);
	int ok = n > 0 && n <= 20;
	for (const char *c = arg; *c && ok; c++)
		ok = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-';
	return ok ? 0 : hp_err_set(err, HP_EXIT_USAGE,
				   "unknown price source '%s' (expected skypilot:CLOUD like skypilot:aws, azure, or json:URL)",
				   name);
}

static char *sky_url(const struct price_config *cfg, const char *arg)
{
	return xasprintf("%s/%s/vms.csv", cfg->skypilot_url, arg);
}

static int sky_parse(struct price_book *pb, int src, const char *arg, const char *body,
		     size_t len, const struct catalog *cat, const char *what, struct hp_err *err)
{
	return pricing_parse_skypilot(pb, src, arg, body, len, cat, what, err);
}

const struct price_source price_source_skypilot = {
	.prefix = "skypilot:", .user = 1, .cache_format = "skypilot-csv", .layer = 0,
	.arg_ok = sky_arg_ok, .url = sky_url, .cache_file = pricing_cache_file_default,
	.fetch = NULL, .parse = sky_parse,
};
