/* cluster.c — pools from JSON or --pool specs, with defaults per GPU type. */
#include "cluster.h"
#include "fields.h"
#include "jsonx.h"
#include "escape.h"
#include "utf8.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cluster_init(struct cluster *c)
{
	memset(c, 0, sizeof *c);
	c->oversub = 1.0;
	c->inter_pool_gbps = 100;
	c->inter_pool_latency_us = 1000;
}

int cluster_default_domain(const struct gpu_spec *g, int gpus_per_node, enum hp_intra intra)
{
	/* A scale-up domain spans nodes only where the catalog says the GPU's
	 * fabric does (GB200 NVL72: 72 GPUs over 18 trays of 4). A domain no
	 * larger than the usual node (V100's DGX-1 mesh of 8, H100's HGX
	 * board of 8) is the node: 4 V100s per node (AWS p3.8xlarge) share
	 * no NVLink with the next node. The domain is whole nodes (trays):
	 * one that nodes of this size do not tile is no domain of them. */
	return g->domain > gpus_per_node && g->domain > g->def_gpus_per_node &&
	       g->domain % gpus_per_node == 0 && intra != INTRA_PCIE ? g->domain : gpus_per_node;
}

void pool_derive_domain(struct pool *p)
{
	if (p->nvl_domain > 0 && !p->nvl_domain_derived)
		return;
	p->nvl_domain = cluster_default_domain(&p->gpu, p->gpus_per_node, p->intra);
	p->nvl_domain_derived = 1;
}

/* A PCIe part's scale-up link is its slot (per direction): x16 raw,
 * or the lanes the pool's key pcie gives (16 GT/s x 8 x 128/130 / 8
 * = 15.75 GB/s at Gen4 x8). Called again when the key changes after
 * the pool was made (pcie_parse: the TUI's edit). */
static void pool_set_intra_Bps(struct pool *p)
{
	const struct gpu_spec *g = &p->gpu;
	static const double pcie_x16_Bps[] = { 0, 4e9, 8e9, 15.75e9, 31.5e9,
					       63e9, 121e9, 242e9 };
	int gen = g->pcie_gen > 0 && g->pcie_gen < 8 ? g->pcie_gen : 4;
	int lanes = g->pcie_lanes > 0 && g->pcie_lanes <= 16 ? g->pcie_lanes : 16;
	if (p->intra == INTRA_PCIE || g->link_Bps <= 0)
		p->intra_Bps = pcie_x16_Bps[gen] * lanes / 16.0;
	else
		p->intra_Bps = g->link_Bps;
}

void pool_apply_defaults(struct pool *p)
{
	const struct gpu_spec *g = &p->gpu;
	pool_set_intra_Bps(p);
	/* An explicit price, 0 included (owned hardware), stays; unset: the
	 * catalog's reference. */
	if (!p->price_set && !p->usd_per_node_h && g->ref_usd_per_gpu_h > 0) {
		p->usd_per_node_h = g->ref_usd_per_gpu_h * p->gpus_per_node;
		snprintf(p->price_source, sizeof p->price_source, "catalog reference: %s",
			 g->ref_price_source);
	}
	pool_derive_domain(p);
	if (!*p->site)
		snprintf(p->site, sizeof p->site, "%s%s%s", p->provider,
			 *p->region ? "/" : "", p->region);
}

int pool_price_known(const struct pool *p)
{
	return p->usd_per_node_h > 0 || (p->price_set && p->usd_per_node_h == 0);
}

int cluster_pool_index(const struct cluster *c, const char *name)
{
	for (int i = 0; i < c->n_pools; i++)
		if (!strcmp(c->pools[i].name, name))
			return i;
	return -1;
}

int cluster_total_gpus(const struct cluster *c)
{
	/* check_pool keeps the sum at most HP_MAX_GPUS; a cluster built by
	 * hand is summed in 64 bits and saturates instead of wrapping. */
	long long n = 0;
	for (int i = 0; i < c->n_pools; i++)
		n += (long long)c->pools[i].nodes * c->pools[i].gpus_per_node;
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* Each transport once: its name (plan files, --pool, comm --transport) and
 * the words the help and the manual show for it (comm_transport_what). */
static const struct { const char *name, *what; } transports[COMM_TRANSPORT_COUNT] = {
	[COMM_TRANSPORT_IB] = { "ib", "InfiniBand or RoCE with GPUDirect RDMA (the default)" },
	[COMM_TRANSPORT_EFA] = { "efa", "AWS Elastic Fabric Adapter (SRD)" },
	[COMM_TRANSPORT_TCP] = { "tcp", "NCCL over TCP sockets, plain Ethernet" },
	[COMM_TRANSPORT_OPA] = { "opa", "Intel Omni-Path (NCCL's IB verbs, no GPUDirect RDMA)" },
	[COMM_TRANSPORT_TCPX] = { "tcpx", "Google Cloud GPUDirect-TCPX (A3 High)" },
	[COMM_TRANSPORT_TCPXO] = { "tcpxo", "Google Cloud GPUDirect-TCPXO (A3 Mega)" },
	[COMM_TRANSPORT_GCP_RDMA] = { "gcp-rdma", "Google Cloud RDMA over RoCE (A3 Ultra, A4, A4X)" },
};

/* What a user of Google Cloud knows: the machine type or its family, and
 * the plugin's own name. Each names the fabric that type carries and, for
 * a machine type, the NICs NCCL's inter-node traffic uses (its GPU NICs:
 * not the host's general-purpose gVNIC/Titanium NIC), for a node of `gpus`
 * GPUs. nics 0: the name sets the fabric only. Compared as hp_name_key
 * keys. Sources (docs/cloud-transport.md, "Machine types"):
 *  - Google Cloud, "Networking and GPU machines"
 *    (cloud.google.com/compute/docs/gpus/gpu-network-bandwidth): A4 and
 *    A3 Ultra eight ConnectX-7 NICs, 3,200 Gb/s for GPU-to-GPU traffic
 *    (8 x 400, RoCE); A4X four CX-7, 1,600 Gb/s per 4-GPU machine
 *    (4 x 400); A3 Mega 1,600 Gb/s of GPU NICs (8 x 200); A3 High up to
 *    1,000 Gb/s of which 4 x 200 GPU NICs ("Maximize GPU network
 *    bandwidth with GPUDirect-TCPX": a primary NIC of 200 Gb/s and up to
 *    4 secondary NICs of 200 Gb/s each for GPU data); A2 up to 100 Gb/s
 *    per VM, one gVNIC, no GPUDirect NICs. A3 Edge's total (800 Gb/s) is
 *    sourced, its split into GPU NICs is not: fabric only.
 *  - NVIDIA AI Cluster Runtime, docs/integrator/gke-tcpxo-networking.md
 *    (NVIDIA/aicr@5b74bc7b): "8 GPU NICs per a3-megagpu-8g node"; TCPXO
 *    is for a3-megagpu-8g, not the a2 family, where NCCL falls back to TCP
 *    sockets (~4 GB/s).
 *  - dstack examples/clusters/{a3mega,a4}/README.md @30a0dd56 (the rows
 *    V155-V158 and HC-A4-01..03 of tests/data): 8 x 200 GPU NICs on
 *    a3-megagpu-8g, 8 x 400 RoCE on a4-highgpu-8g.
 * The GPU each carries is Google Cloud's "GPU machine types" page
 * (cloud.google.com/compute/docs/gpus: A3 High, Edge and Mega H100 80GB;
 * A3 Ultra H200; A4 B200; A4X GB200; A2 Standard A100 40GB, A2 Ultra A100
 * 80GB). The accelerator names are those SkyPilot's GCP catalog bills
 * the GPUs under (skypilot-org/skypilot, the GCP catalog fetcher
 * fetch_gcp.py: Google's nvidia-h100-80gb is "H100", nvidia-h100-mega-80gb
 * "H100-MEGA", in 8s only; a separate price from the plain H100's), so
 * that the price book pairs an a3-megagpu-8g host with its own GPUs'
 * price, not an a3-highgpu-8g's. This is the one table of Google Cloud
 * machine types: the transport parser, the NICs, the GPUs of a machine
 * (cluster_machine_gpus), the machine a pool is priced from
 * (cluster_pool_machine) and the price book's host-to-GPU pairing
 * (cluster_machine_series) all read it. */
static const struct machine_type {
	const char *alias;
	const char *of;     /* a family alias (a3-mega): the machine type it
			     * stands for; NULL: the alias is one */
	enum comm_transport t;
	int gpus;           /* GPUs of the machine type; 0: a fabric name */
	int nics;           /* GPU NICs; 0: not set by the name */
	double nic_gbps;    /* Gb/s each */
	const char *gpu;    /* the catalog's GPU (data/gpus.json); NULL: a
			     * fabric name */
	const char *series; /* the name before the GPU count, shared by the
			     * series' smaller shapes (a3-highgpu-1g to -8g);
			     * NULL: none named here */
	const char *acc;    /* the accelerator Google's price catalog bills
			     * the series' GPUs under (SkyPilot's GCP catalog
			     * labels, below) */
} machine_types[] = {
	{ "a3-highgpu-8g", NULL, COMM_TRANSPORT_TCPX, 8, 4, 200, "H100-SXM", "a3-highgpu-", "H100" },
	{ "a3-high", "a3-highgpu-8g", COMM_TRANSPORT_TCPX, 8, 4, 200, "H100-SXM", NULL, NULL },
	{ "a3-edgegpu-8g", NULL, COMM_TRANSPORT_TCPX, 8, 0, 0, "H100-SXM", "a3-edgegpu-", "H100" },
	{ "a3-edge", "a3-edgegpu-8g", COMM_TRANSPORT_TCPX, 8, 0, 0, "H100-SXM", NULL, NULL },
	{ "a3-megagpu-8g", NULL, COMM_TRANSPORT_TCPXO, 8, 8, 200, "H100-SXM", "a3-megagpu-",
	  "H100-MEGA" },
	{ "a3-mega", "a3-megagpu-8g", COMM_TRANSPORT_TCPXO, 8, 8, 200, "H100-SXM", NULL, NULL },
	{ "a3-ultragpu-8g", NULL, COMM_TRANSPORT_GCP_RDMA, 8, 8, 400, "H200-SXM", "a3-ultragpu-",
	  "H200" },
	{ "a3-ultra", "a3-ultragpu-8g", COMM_TRANSPORT_GCP_RDMA, 8, 8, 400, "H200-SXM", NULL, NULL },
	{ "a4-highgpu-8g", NULL, COMM_TRANSPORT_GCP_RDMA, 8, 8, 400, "B200", "a4-highgpu-", "B200" },
	{ "a4", "a4-highgpu-8g", COMM_TRANSPORT_GCP_RDMA, 8, 8, 400, "B200", NULL, NULL },
	{ "a4x-highgpu-4g", NULL, COMM_TRANSPORT_GCP_RDMA, 4, 4, 400, "GB200", NULL, NULL },
	{ "a4x", "a4x-highgpu-4g", COMM_TRANSPORT_GCP_RDMA, 4, 4, 400, "GB200", NULL, NULL },
	/* A100 machine types: no GPUDirect plugin, NCCL's sockets over the
	 * VM's one 100 Gb/s gVNIC (the 8- and 16-GPU shapes reach the A2
	 * series' 100 Gb/s; the smaller shapes, slower, are not named) */
	{ "a2-highgpu-8g", NULL, COMM_TRANSPORT_TCP, 8, 1, 100, "A100-SXM4-40GB", "a2-highgpu-",
	  "A100" },
	{ "a2-ultragpu-8g", NULL, COMM_TRANSPORT_TCP, 8, 1, 100, "A100-SXM4-80GB", "a2-ultragpu-",
	  "A100-80GB" },
	{ "a2-megagpu-16g", NULL, COMM_TRANSPORT_TCP, 16, 1, 100, "A100-SXM4-40GB", "a2-megagpu-",
	  "A100" },
	{ "gib", NULL, COMM_TRANSPORT_GCP_RDMA, 0, 0, 0, NULL, NULL, NULL },
	/* the fabric's own name (Intel Omni-Path, OPA; "omnipath" is the
	 * same key) */
	{ "omni-path", NULL, COMM_TRANSPORT_OPA, 0, 0, 0, NULL, NULL, NULL },
};

static const struct machine_type *machine_type_find(const char *s)
{
	char k[32], nk[32];
	if (!s)
		return NULL;
	hp_name_key(k, sizeof k, s);
	for (size_t i = 0; i < HP_ARRAY_LEN(machine_types); i++) {
		hp_name_key(nk, sizeof nk, machine_types[i].alias);
		if (!strcmp(k, nk))
			return &machine_types[i];
	}
	return NULL;
}

int cluster_machine_gpus(const char *name)
{
	const struct machine_type *m = machine_type_find(name);
	return m ? m->gpus : 0;
}

const char *cluster_machine_type(const char *name)
{
	const struct machine_type *m = machine_type_find(name);
	if (!m || m->gpus <= 0)
		return NULL;
	return m->of ? m->of : m->alias;
}

int cluster_machine_series(const char *inst, const char **acc, const char **gpu, int *count)
{
	if (!inst)
		return -1;
	for (size_t i = 0; i < HP_ARRAY_LEN(machine_types); i++) {
		const struct machine_type *m = &machine_types[i];
		size_t l = m->series ? strlen(m->series) : 0;
		if (!l || strncasecmp(inst, m->series, l))
			continue;
		/* the series' name, then the GPUs and a 'g' ending it:
		 * a3-highgpu-4g; the variants without local SSD
		 * (a3-edgegpu-8g-nolssd) are not named, as before */
		char *end;
		errno = 0;
		long n = strtol(inst + l, &end, 10);
		if (!isdigit((unsigned char)inst[l]) || errno || n <= 0 || n > HP_MAX_GPN ||
		    strcasecmp(end, "g"))
			return -1;
		*acc = m->acc;
		*gpu = m->gpu;
		*count = (int)n;
		return 0;
	}
	return -1;
}

/* The row of the machine type a name stands for (a3-mega: a3-megagpu-8g's). */
static const struct machine_type *machine_row(const char *type)
{
	const struct machine_type *m = machine_type_find(type);
	return m && m->of ? machine_type_find(m->of) : m;
}

int cluster_machine_gpu_ok(const char *name, const char *gpu, const char **machine_gpu)
{
	/* Simplified: the GPU model only, the catalog name up to its first
	 * '-' (A100, H100, GB200), so an A100 80GB pool on a2-highgpu-8g
	 * (40GB) passes */
	const struct machine_type *row = machine_row(name);
	size_t ml = row && row->gpu ? strcspn(row->gpu, "-") : 0;
	if (machine_gpu)
		*machine_gpu = ml ? row->gpu : NULL;
	return !ml || (!strncmp(row->gpu, gpu, ml) && (gpu[ml] == '\0' || gpu[ml] == '-'));
}

const char *cluster_pool_machine(const struct pool *p)
{
	/* the machine the pool's transport named, while the pool still is
	 * one: the same fabric, whole machines (an editor may have changed
	 * either since) */
	const struct machine_type *m = *p->machine ? machine_row(p->machine) : NULL;
	if (m && m->gpus > 0 && m->t == p->transport && p->gpus_per_node > 0 &&
	    p->gpus_per_node % m->gpus == 0)
		return m->alias;
	/* a fabric only Google Cloud has, given as its name (a workspace
	 * saves "tcpxo", not the machine type): the one machine type of
	 * that fabric and GPU, if only one; tcpx on H100 is a3-highgpu-8g
	 * or a3-edgegpu-8g, so neither */
	if (!p->transport_set || (p->transport != COMM_TRANSPORT_TCPX &&
				  p->transport != COMM_TRANSPORT_TCPXO &&
				  p->transport != COMM_TRANSPORT_GCP_RDMA))
		return NULL;
	const char *found = NULL;
	for (size_t i = 0; i < HP_ARRAY_LEN(machine_types); i++) {
		const struct machine_type *r = &machine_types[i];
		if (r->of || r->gpus <= 0 || !r->gpu || r->t != p->transport ||
		    strcmp(r->gpu, p->gpu.name) || p->gpus_per_node <= 0 ||
		    p->gpus_per_node % r->gpus)
			continue;
		if (found)
			return NULL;
		found = r->alias;
	}
	return found;
}

int cluster_machine_nics(const char *name, int gpus_per_node, int *nics, double *nic_gbps)
{
	const struct machine_type *m = machine_type_find(name);
	if (!m || m->nics <= 0 || m->gpus <= 0 || gpus_per_node <= 0 ||
	    gpus_per_node % m->gpus)
		return 0;
	/* a node of several machines' GPUs (a GB200 rack of 18 a4x trays
	 * written as one node of 72) has each machine's NICs */
	long long n = (long long)m->nics * (gpus_per_node / m->gpus);
	*nics = n > POOL_MAX_NICS ? POOL_MAX_NICS : (int)n;
	*nic_gbps = m->nic_gbps;
	return 1;
}

void cluster_machine_list(char *buf, size_t n)
{
	size_t len = 0;
	if (!n)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < HP_ARRAY_LEN(machine_types) && len < n; i++) {
		const struct machine_type *m = &machine_types[i];
		size_t l = strlen(m->alias);
		/* machine types (a3-highgpu-8g) only, not families (a3-high) */
		if (m->nics <= 0 || l < 2 || m->alias[l - 1] != 'g' ||
		    !isdigit((unsigned char)m->alias[l - 2]))
			continue;
		int w = snprintf(buf + len, n - len, "%s%s %d x %g Gb/s", len ? ", " : "",
				 m->alias, m->nics, m->nic_gbps);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

enum comm_transport cluster_default_transport(double nic_gbps)
{
	return nic_gbps > 0 && nic_gbps < CLUSTER_TCP_BELOW_GBPS ? COMM_TRANSPORT_TCP
								 : COMM_TRANSPORT_IB;
}

const char *comm_transport_name(enum comm_transport t)
{
	assert((unsigned)t < COMM_TRANSPORT_COUNT);
	return (unsigned)t < COMM_TRANSPORT_COUNT ? transports[t].name : "?";
}

const char *comm_transport_what(enum comm_transport t)
{
	assert((unsigned)t < COMM_TRANSPORT_COUNT);
	return (unsigned)t < COMM_TRANSPORT_COUNT ? transports[t].what : "?";
}

int comm_transport_parse(const char *s, enum comm_transport *out)
{
	char k[32], nk[32];
	if (!s)
		return -1;
	hp_name_key(k, sizeof k, s);
	for (int i = 0; i < COMM_TRANSPORT_COUNT; i++) {
		hp_name_key(nk, sizeof nk, transports[i].name);
		if (!strcmp(k, nk)) {
			*out = (enum comm_transport)i;
			return 0;
		}
	}
	const struct machine_type *m = machine_type_find(s);
	if (!m)
		return -1;
	*out = m->t;
	return 0;
}

void comm_transport_list(char *buf, size_t n, int quoted)
{
	size_t len = 0;
	if (!n)
		return;
	buf[0] = '\0';
	for (int i = 0; i < COMM_TRANSPORT_COUNT && len < n; i++) {
		const char *sep = !i ? "" : i == COMM_TRANSPORT_COUNT - 1 ? " or " : ", ";
		int w = snprintf(buf + len, n - len, quoted ? "%s\"%s\"" : "%s%s", sep,
				 transports[i].name);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* The pool's transport key says it (its names and its .also), once. */
void comm_transport_want(char *buf, size_t n, int quoted)
{
	fields_want(fields_find_key(&pool_fields, "transport"), quoted, buf, n);
}

/* The transport the pool has when nobody set it: its priced machine
 * type's, else its NIC speed's. */
static enum comm_transport transport_default(const struct pool *p)
{
	return p->transport_priced > 0 ? (enum comm_transport)(p->transport_priced - 1)
				       : cluster_default_transport(p->nic_gbps);
}

/* The NICs of the machine type name on p, each unless kept (keep:
 * POOL_GAVE_NICS, POOL_GAVE_GBPS); returns 1 when the name has NICs for
 * p's node. */
static int pool_machine_nics(struct pool *p, const char *name, int keep)
{
	int nics;
	double gbps;
	if (!cluster_machine_nics(name, p->gpus_per_node, &nics, &gbps))
		return 0;
	if (!(keep & POOL_GAVE_NICS))
		p->nics = nics;
	if (!(keep & POOL_GAVE_GBPS))
		p->nic_gbps = gbps;
	return 1;
}

/* The machine type whose fabric a node of gpn GPUs priced from instance
 * has: instance when the node is whole machines of it, else a shape of
 * the same GPU and fabric in machine_types that the node is whole
 * machines of (an 8-GPU A100 40GB node priced per GPU from the book's
 * a2-megagpu-16g offer runs as an a2-highgpu-8g: both are A2, NCCL's
 * sockets over the VM's one 100 Gb/s gVNIC, Google Cloud "Networking and
 * GPU machines"); NULL when none is. A TUI walk (wan50) found such a
 * pool costed as InfiniBand over the catalog's 8 x 200 Gb/s. */
static const char *machine_for_node(const char *instance, int gpn)
{
	const struct machine_type *m = machine_type_find(instance);
	if (!m || m->gpus <= 0 || gpn <= 0)
		return NULL;
	if (gpn % m->gpus == 0)
		return instance;
	for (size_t i = 0; i < HP_ARRAY_LEN(machine_types); i++) {
		const struct machine_type *s = &machine_types[i];
		if (!s->of && s->gpus > 0 && s->nics > 0 && s->t == m->t && s->gpu && m->gpu &&
		    !strcmp(s->gpu, m->gpu) && gpn % s->gpus == 0)
			return s->alias;
	}
	return NULL;
}

void pool_price_transport(struct pool *p, const char *provider, const char *instance)
{
	/* a value set by a file, a flag or an editor since is the user's */
	if (p->transport_set || p->transport != transport_default(p))
		return;
	/* NICs given, or edited since to another value than the one they
	 * had by default (the previous offer's machine type's, else the
	 * catalog's), are the user's; the rest go back to the catalog's */
	int def_nics = cluster_default_nics(&p->gpu, p->gpus_per_node, p->intra);
	int keep = p->nics_given;
	if (p->nics != (p->nics_priced ? p->nics_priced : def_nics))
		keep |= POOL_GAVE_NICS;
	if (p->nic_gbps != (p->nics_priced ? p->nic_gbps_priced : p->gpu.def_nic_gbps))
		keep |= POOL_GAVE_GBPS;
	if (!(keep & POOL_GAVE_NICS))
		p->nics = def_nics;
	if (!(keep & POOL_GAVE_GBPS))
		p->nic_gbps = p->gpu.def_nic_gbps;
	p->nics_priced = 0;
	p->nic_gbps_priced = 0;
	/* only a pool the user placed on Google Cloud: a pool that names no
	 * provider is priced from the cheapest offer anywhere, which says
	 * nothing about where it runs; and only a node of whole machines of
	 * it (a 4-GPU node priced per GPU from an 8-GPU a3-megagpu-8g offer,
	 * the book having no 4-GPU one, is no a3-megagpu-8g) */
	enum comm_transport t;
	const char *mt = instance ? machine_for_node(instance, p->gpus_per_node) : NULL;
	if (provider && mt && !strcmp(provider, "gcp") && !strcasecmp(p->provider, "gcp") &&
	    !comm_transport_parse(mt, &t)) {
		instance = mt;
		p->transport = t;
		p->transport_priced = 1 + (int)t;
		if (pool_machine_nics(p, instance, keep)) {
			p->nics_priced = p->nics;
			p->nic_gbps_priced = p->nic_gbps;
		}
	} else {
		p->transport_priced = 0;
		p->transport = cluster_default_transport(p->nic_gbps);
	}
}

int cluster_same_site(const struct cluster *c, int a, int b)
{
	return a == b || !strcmp(c->pools[a].site, c->pools[b].site);
}

/* A default pool name from the GPU name, made unique in the cluster. */
static void default_name(const struct cluster *c, struct pool *p)
{
	char base[20];
	/* at most 19 bytes, ending on a whole UTF-8 character: "ab" + nine
	 * U+20AC cut at 19 bytes was no UTF-8, and --pool refused the name
	 * it made itself */
	size_t j = utf8_cut(p->gpu.name, sizeof base - 1);
	for (size_t i = 0; i < j; i++)
		base[i] = (char)tolower((unsigned char)p->gpu.name[i]);
	base[j] = '\0';
	hp_strlcpy(p->name, base, sizeof p->name);
	for (int k = 2; cluster_pool_index(c, p->name) >= 0; k++)
		snprintf(p->name, sizeof p->name, "%.19s-%d", base, k % 1000);
}

/* NICs of a node that is several of the catalog's trays of an NVLink
 * domain (2x72xGB200: an NVL72 rack as one node of 72) when the user gave
 * none: the tray's NICs per GPU (GB200: 4 ConnectX-7 per tray of 4, one
 * NIC per GPU), so 72 GPUs get 18 x 4 = 72 NICs as the tray form
 * 36x4xGB200 does, not the one tray's 4 for the whole rack. Only for a
 * GPU whose catalog domain spans trays (cluster_default_domain's rule)
 * and a node of whole trays; any other node keeps the catalog's NICs. */
int cluster_default_nics(const struct gpu_spec *g, int gpus_per_node, enum hp_intra intra)
{
	int tray = g->def_gpus_per_node;
	if (tray <= 0 || g->domain <= tray || gpus_per_node <= tray || gpus_per_node % tray ||
	    intra == INTRA_PCIE)
		return g->def_nics;
	long long n = (long long)g->def_nics * (gpus_per_node / tray);
	return n > POOL_MAX_NICS ? POOL_MAX_NICS : (int)n;
}

double pool_host_mem_gb(const struct pool *p)
{
	if (p->host_mem_gb > 0)
		return p->host_mem_gb;
	const struct gpu_spec *g = &p->gpu;
	int tray = g->def_gpus_per_node;
	if (g->def_host_mem_gb <= 0 || tray <= 0 || p->gpus_per_node <= 0)
		return 0;
	if (p->gpus_per_node == tray)
		return g->def_host_mem_gb;
	/* a node of whole trays of a rack-scale domain (as NICs,
	 * cluster_default_nics): the trays' memory; any other shape is a host
	 * the catalog does not describe */
	if (g->domain > tray && p->gpus_per_node % tray == 0 && p->intra != INTRA_PCIE)
		return g->def_host_mem_gb * (p->gpus_per_node / tray);
	return 0;
}

static void pool_nics_per_tray(struct pool *p)
{
	p->nics = cluster_default_nics(&p->gpu, p->gpus_per_node, p->intra);
}

static void pool_from_gpu(struct pool *p, const struct gpu_spec *g)
{
	memset(p, 0, sizeof *p);
	p->gpu = *g;
	p->gpus_per_node = g->def_gpus_per_node;
	p->intra = g->def_intra;
	p->nics = g->def_nics;
	p->nic_gbps = g->def_nic_gbps;
	p->transport = cluster_default_transport(p->nic_gbps);
}

/* 1 when name starts or ends in a blank character (utf8_is_blank); then
 * note names one that is not an ASCII space, " (U+00A0 at its end)", as
 * it shows as nothing in the message, or "" for an ASCII space. */
static int blank_ends(const char *name, char *note, size_t n)
{
	unsigned first = 0, last = 0, cp;
	for (const char *s = name; *s; ) {
		int l = utf8_len(s, &cp);
		if (l <= 0)
			return 0;   /* not UTF-8: esc_is_printable refused it */
		if (s == name)
			first = cp;
		last = cp;
		s += l;
	}
	unsigned bad = utf8_is_blank(first) ? first : utf8_is_blank(last) ? last : 0;
	if (!bad)
		return 0;
	if (bad == ' ')
		snprintf(note, n, "%s", "");
	else
		snprintf(note, n, " (U+%04X at its %s)", bad, bad == first ? "start" : "end");
	return 1;
}

static int check_pool(const struct cluster *c, const struct pool *p,
		      const char *where, struct hp_err *err)
{
	if (cluster_pool_index(c, p->name) >= 0)
		return hp_err_set(err, HP_EXIT_INPUT, "%s.name: pool '%s' is defined twice",
				  where, p->name);
	if (p->intra != INTRA_PCIE && p->gpu.link_Bps <= 0)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s.intra: %s has no NVLink; expected \"pcie\"", where,
				  p->gpu.name);
	if (p->gpus_per_node > HP_MAX_GPN)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s.gpus_per_node: expected at most %d, got %d", where,
				  HP_MAX_GPN, p->gpus_per_node);
	/* Without a NIC a node reaches no other node: a collective or a
	 * pipeline hand-off across nodes or pools would be priced over a link
	 * of zero bandwidth. Zero NICs is for a lone node. */
	if (p->nics == 0 && (p->nodes > 1 || p->nodes_max > 1))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s.nics: %d nodes without NICs cannot reach each other; expected "
				  "at least 1", where, HP_MAX(p->nodes, p->nodes_max));
	for (int i = 0; i < c->n_pools; i++)
		if (p->nics == 0 || c->pools[i].nics == 0)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s.nics: pool '%s' has no NIC to reach pool '%s'; "
					  "expected at least 1 NIC per node in a cluster of pools",
					  where, p->nics == 0 ? p->name : c->pools[i].name,
					  p->nics == 0 ? c->pools[i].name : p->name);
	if (p->nodes > HP_MAX_NODES || p->nodes_max > HP_MAX_NODES)
		return hp_err_set(err, HP_EXIT_INPUT, "%s.nodes: expected at most %d, got %d",
				  where, HP_MAX_NODES, HP_MAX(p->nodes, p->nodes_max));
	long long total = (long long)p->nodes * p->gpus_per_node;
	for (int i = 0; i < c->n_pools; i++)
		total += (long long)c->pools[i].nodes * c->pools[i].gpus_per_node;
	if (total > HP_MAX_GPUS)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: the cluster would have %lld GPUs, more than hetplan's limit "
				  "of %d", where, total, HP_MAX_GPUS);
	/* An NVLink domain is whole nodes (GB200 NVL72: 18 trays of 4); 12
	 * GPUs over nodes of 8 is no fabric there is, and 4 on a node of 8
	 * (which the planner would price as the node's 8) is no domain either. */
	if (p->gpus_per_node > 0 && p->nvl_domain % p->gpus_per_node)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s.nvl_domain: expected a multiple of gpus_per_node (%d), got %d",
				  where, p->gpus_per_node, p->nvl_domain);
	/* Names are shown on terminals and written into scripts and CSV:
	 * printable UTF-8 only (escape.h). */
	const struct { const char *key, *val; } names[] = {
		{ "name", p->name }, { "provider", p->provider },
		{ "region", p->region }, { "site", p->site },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(names); i++)
		if (!esc_is_printable(names[i].val, 63))
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s.%s: expected printable UTF-8 text (no control "
					  "characters), got \"%s\"", where, names[i].key,
					  names[i].val);
	/* A pool's name starts plan labels ("h100 tp8 pp2"): spaces around it
	 * would make a label that reads as another pool's, or as none; a
	 * no-break space, an ideographic space or a zero-width space reads as
	 * the same (utf8_is_blank). */
	char end[48];
	if (blank_ends(p->name, end, sizeof end))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s.name: expected no spaces at its start or end, got \"%s\"%s",
				  where, p->name, end);
	/* The CSV report lists a plan's pools in one cell, "POOL:X;POOL:X"
	 * (gpus_by_pool, transports): a ';' in a name would split it into
	 * two pools. The other characters are safe there: esc_csv quotes
	 * ',' and '"', and a reader splits each item at its last ':' (a
	 * count or a transport name holds none); docs/reports.md. */
	if (strchr(p->name, ';'))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s.name: expected no ';' (CSV reports list pools as "
				  "POOL:X;POOL:X), got \"%s\"", where, p->name);
	return 0;
}

int cluster_check(const struct cluster *c, struct hp_err *err)
{
	struct cluster *before = xmalloc(sizeof *before);
	*before = *c;
	int rc = 0;
	for (int i = 0; i < c->n_pools && rc == 0; i++) {
		char where[64];
		snprintf(where, sizeof where, "pool %.31s", c->pools[i].name);
		before->n_pools = i;
		rc = check_pool(before, &c->pools[i], where, err);
	}
	free(before);
	return rc;
}

/* ---- The settings table (fields.h) of a pool: the cluster file's keys,
 * kinds and ranges, read here (parse_pool) and written back by
 * workspace.c; docs/formats.md, the man page and the TUI's rows come from
 * it too. */

FIELDS_ENUM(static, intra_enum, enum hp_intra, 3, hp_intra_name, hp_intra_parse);
FIELDS_ENUM(static, transport_enum, enum comm_transport, COMM_TRANSPORT_COUNT,
	    comm_transport_name, comm_transport_parse);

/* A pool's price is saved only when the user set it (cluster file, --pool,
 * an edit: pool.price_set); catalog and price-book prices are looked up
 * again on load. */
/* A pool's NVLink domain is saved when a file or flag gave it, not when
 * it is the catalog's default (pool_derive_domain), so a workspace saved
 * by the TUI keeps a user's domain and re-derives the default on load. */
static int domain_is_users(const void *base)
{
	const struct pool *p = base;
	return p->nvl_domain > 0 && !p->nvl_domain_derived;
}

static int price_is_users(const void *base)
{
	const struct pool *p = base;
	return p->price_set && p->usd_per_node_h >= 0;
}

/* A pool's transport is saved when it is not the one it gets by default
 * (its priced machine type's, else its NIC speed's:
 * cluster_default_transport), so that a reload keeps it and a price
 * book's is looked up again, as its price is. */
static int transport_not_default(const void *base)
{
	const struct pool *p = base;
	return p->transport != transport_default(p);
}

/* NICs a priced machine type set (pool_price_transport) are not written
 * into a workspace, as its transport is not: they are looked up again
 * with the price. Read back as given, they would be the user's and stay
 * through a later offer of another machine type. */
static int nics_not_priced(const void *base)
{
	const struct pool *p = base;
	return (p->nics_given & POOL_GAVE_NICS) || !p->nics_priced || p->nics != p->nics_priced;
}

static int nic_gbps_not_priced(const void *base)
{
	const struct pool *p = base;
	return (p->nics_given & POOL_GAVE_GBPS) || !p->nics_priced ||
	       p->nic_gbps != p->nic_gbps_priced;
}

static int pool_is_fixed(const void *base) { return ((const struct pool *)base)->nodes_max <= 0; }
static int pool_is_rented(const void *base) { return !pool_is_fixed(base); }

static const char *const spot_names[] = { "on-demand", "spot" };

/* The pool key pcie: the host's PCIe link for each of the node's GPUs,
 * generation and lanes, "4.0x8" (also "4x8", "gen4x8", "Gen4 x8", any
 * case). Generations 3 to 6 (comm.c prices a link from Gen3's 12 GB/s a
 * direction at x16 up, doubling a generation); lanes x1, x2, x4, x8 or
 * x16, the widths a GPU trains its link to (PCI Express Base
 * Specification; x12 and x32 exist in it, no GPU uses them). Returns 0
 * and sets *gen and *lanes, or -1. */
static int pcie_text_parse(const char *s, int *gen, int *lanes)
{
	if (!strncasecmp(s, "gen", 3))
		s += 3;
	if (*s < '3' || *s > '6')
		return -1;
	int g = *s++ - '0';
	if (*s == '.') {
		if (s[1] != '0')
			return -1;
		s += 2;
	}
	while (*s == ' ')
		s++;
	if (*s != 'x' && *s != 'X')
		return -1;
	s++;
	int n = 0, digits = 0;
	while (*s >= '0' && *s <= '9' && digits < 3) {
		n = n * 10 + (*s++ - '0');
		digits++;
	}
	if (!digits || *s || (n != 1 && n != 2 && n != 4 && n != 8 && n != 16))
		return -1;
	*gen = g;
	*lanes = n;
	return 0;
}

int cluster_pcie_parse(const char *s, int *gen, int *lanes)
{
	return pcie_text_parse(s, gen, lanes);
}

/* The pool's link in force ("4.0x16" for the catalog's usual host). */
static void pcie_format(const void *base, char *buf, size_t n)
{
	const struct pool *p = base;
	int lanes = p->gpu.pcie_lanes > 0 && p->gpu.pcie_lanes <= 16 ? p->gpu.pcie_lanes : 16;
	snprintf(buf, n, "%d.0x%d", p->gpu.pcie_gen, lanes);
}

/* Set the link on the pool's copy of its GPU, remembering the catalog's
 * pair the first time; "" (or "default") gives the catalog's back. */
static int pcie_parse(void *base, const char *s)
{
	struct pool *p = base;
	int gen, lanes;
	int clear = !*s || !strcasecmp(s, "default");
	if (!clear && pcie_text_parse(s, &gen, &lanes) < 0)
		return -1;
	if (!p->pcie_set) {
		p->pcie_cat_gen = p->gpu.pcie_gen;
		p->pcie_cat_lanes = p->gpu.pcie_lanes;
	}
	if (clear) {
		p->gpu.pcie_gen = p->pcie_cat_gen;
		p->gpu.pcie_lanes = p->pcie_cat_lanes;
		p->pcie_set = 0;
	} else {
		/* a link trains to the highest generation both ends support
		 * (PCI Express Base Specification, link training): a Gen4 card
		 * in a Gen5 slot runs Gen4, so a host above the card's
		 * generation (the catalog's pcie_gen) gives the card's */
		if (p->pcie_cat_gen > 0 && gen > p->pcie_cat_gen)
			gen = p->pcie_cat_gen;
		p->gpu.pcie_gen = gen;
		p->gpu.pcie_lanes = lanes;
		p->pcie_set = 1;
	}
	/* a PCIe pool's slot rate follows (an edit after the pool was made
	 * had left the x16 figure there) */
	pool_set_intra_Bps(p);
	return 0;
}

static int pcie_is_users(const void *base) { return ((const struct pool *)base)->pcie_set; }

static const struct hp_field_custom pcie_custom = {
	pcie_parse, pcie_format,
	"a PCIe link as GEN.0xLANES, GEN 3 to 6 and LANES 1, 2, 4, 8 or 16 (4.0x8)",
	"a PCIe link such as \"4.0x8\" (generation 3 to 6, lanes 1, 2, 4, 8 or 16)",
};

#define PO(m) offsetof(struct pool, m)

static const struct hp_field pool_nodes_list[] = {
	{ .key = "max", .kind = FK_INT, .off = PO(nodes_max), .min = 1, .max = 1000000,
	  .flags = FF_REQUIRED, .help = "rent up to this many nodes" },
};
const struct hp_field_table pool_nodes = { "pool.nodes", pool_nodes_list, 1, 1, 0 };

static const struct hp_field pool_field_list[] = {
	{ .key = "name", .kind = FK_STR, FIELD_STR(struct pool, name), .label = "Name",
	  .help = "pool name; default: the GPU's",
	  .doc = "Pool name used by plans and `--on`. Default: the GPU name in lower case "
		 "(h100-sxm), with -2, -3, ... when taken." },
	{ .key = "gpu", .kind = FK_STR, FIELD_STR(struct pool, gpu.name), .flags = FF_REQUIRED,
	  .label = "GPU", .help = "catalog GPU name or alias ('hetplan gpus')" },
	{ .key = "gpus_per_node", .kind = FK_INT, .off = PO(gpus_per_node), .min = 1,
	  .max = HP_MAX_GPN, .label = "GPUs per node", .help = "GPUs per node; default: the GPU's usual node",
	  .doc = "GPUs per node. Default: the GPU's usual node from the catalog." },
	{ .key = "nodes", .kind = FK_INT, .off = PO(nodes), .min = 1, .max = HP_MAX_NODES,
	  .present = pool_is_fixed, .label = "Nodes", .help = "nodes owned; or {\"max\": N} to rent",
	  .doc = "Node count (required): an integer, or `{\"max\": `{N}`}` for nodes available "
		 "to rent up to {N}, which count as {N} nodes when a plan is evaluated." },
	{ .key = "nodes", .kind = FK_OBJECT, .sub = &pool_nodes, .present = pool_is_rented,
	  .help = "{\"max\": N}: rent up to N nodes" },
	{ .key = "intra", .kind = FK_ENUM, .off = PO(intra), .enm = &intra_enum,
	  .label = "Scale-up", .help = "scale-up inside a node",
	  .doc = "The link inside a node. Default: the GPU's usual node from the catalog." },
	{ .key = "nics", .kind = FK_INT, .off = PO(nics), .min = 0, .max = POOL_MAX_NICS,
	  .present = nics_not_priced,
	  .label = "NICs per node", .help = "scale-out NICs per node; 0 only for a lone node",
	  .doc = "Scale-out NICs per node. Default: the GPU's usual node from the catalog; a "
		 "node of several of the catalog's trays of an NVLink domain (GB200 72 per node) "
		 "gets the tray's NICs per GPU (18 trays x 4 = 72). 0 "
		 "only for a cluster of one pool of one node: without a NIC no other node or "
		 "pool can be reached." },
	{ .key = "nic_gbps", .kind = FK_NUM, .off = PO(nic_gbps), .min = 1, .max = 1e5,
	  .present = nic_gbps_not_priced,
	  .label = "NIC speed", .unit = "Gb/s", .help = "speed of one NIC, Gb/s",
	  .doc = "Gb/s per NIC. Default: the GPU's usual node from the catalog." },
	/* GB per node, 1 to 1e5 (the catalog's range, catalog.c) */
	{ .key = "host_mem_gb", .kind = FK_NUM, .off = PO(host_mem_gb), .min = 1, .max = 1e5,
	  .flags = FF_OMIT_ZERO, .unit = "GB",
	  .help = "host (CPU) memory per node, GB; default: the GPU's usual node",
	  .doc = "Host (CPU) memory per node, GB (10^9 bytes), that offloads to the host "
		 "(plan key `offload`) are checked against: a plan whose host side needs "
		 "more than 0.85 of it per node does not fit. Default: the GPU's usual node "
		 "from the catalog (DGX H100 2048, a GB200 tray 960), or for a node of several "
		 "trays of an NVLink domain the trays' sum; unknown (nothing checked) for "
		 "other node shapes and GPUs without a reference node." },
	{ .key = "pcie", .kind = FK_CUSTOM, .custom = &pcie_custom, .present = pcie_is_users,
	  .label = "PCIe link", .hint = "GEN.0xLANES, such as 4.0x8; empty: the catalog's",
	  .arg = "{GEN}.0x{LANES}",
	  .help = "the host's PCIe link per GPU, such as 4.0x8; default: the GPU's usual host, x16",
	  .doc = "The PCIe link between each GPU and its host, as generation and lanes: "
		 "`4.0x8` (also `4x8`, `gen4x8`), generations 3 to 6, lanes 1, 2, 4, 8 or 16. "
		 "A desktop that splits its CPU's 16 lanes over two slots runs each GPU at x8. "
		 "A generation above the GPU's own is taken as the GPU's (the link trains to "
		 "the lower of the two). "
		 "It sets the rate of the optimizer and activation offload copies (plan key "
		 "`offload`), of GPU-to-GPU traffic over PCIe inside a node, and of the path "
		 "through host memory for GPUs without peer access (0.325 of the link, at most "
		 "4.43 GB/s a direction): the generation's x16 figure x lanes / 16 (Gen4 x8: 12.8 "
		 "GB/s a direction). Default: the GPU's usual host from the catalog, x16 at the "
		 "GPU's generation (docs/pcie.md)." },
	{ .key = "transport", .kind = FK_ENUM, .off = PO(transport), .enm = &transport_enum,
	  .present = transport_not_default, .label = "Transport",
	  .also = "a Google Cloud machine type such as `a3-megagpu-8g`",
	  .help = "network: ib (InfiniBand/RoCE), efa, tcp, opa (Omni-Path), or GCP's tcpx, "
		  "tcpxo, gcp-rdma; a GCP machine type also sets the NICs not given",
	  .doc = "Network transport between nodes: `ib` (InfiniBand or RoCE), "
		 "`efa` (AWS Elastic Fabric Adapter, SRD), `tcp` (NCCL over TCP sockets on "
		 "plain Ethernet), `opa` (Intel Omni-Path; `omni-path` reads the same), "
		 "or a Google Cloud fabric: `tcpx` (GPUDirect-TCPX, "
		 "a3-highgpu-8g), `tcpxo` (GPUDirect-TCPXO, a3-megagpu-8g) or `gcp-rdma` "
		 "(GPUDirect RDMA over RoCE with the gIB plugin, a3-ultragpu-8g and "
		 "a4-highgpu-8g); the machine type itself (`a3-megagpu-8g`) is read as its "
		 "fabric, and sets the pool's `nics` and `nic_gbps` to its GPU NICs where "
		 "the pool does not give them (a user's value always wins): "
		 "`a3-highgpu-8g` 4 x 200 Gb/s, `a3-megagpu-8g` 8 x 200, `a3-ultragpu-8g` "
		 "and `a4-highgpu-8g` 8 x 400, `a4x-highgpu-4g` 4 x 400 a tray; the A100 "
		 "types `a2-highgpu-8g`, `a2-ultragpu-8g` and `a2-megagpu-16g` are `tcp` "
		 "(no GPUDirect plugin) over one 100 Gb/s NIC (docs/cloud-transport.md). "
		 "Default: the fabric of the Google Cloud machine type the pool is "
		 "priced from (with its NICs, as above), else `tcp` for NICs below 50 "
		 "Gb/s, else `ib`. A group "
		 "over pools with different transports runs at the slowest (tcp, then opa, "
		 "tcpx, efa, tcpxo, gcp-rdma). A machine type fixes the GPUs of a node: "
		 "`gpus_per_node` must be a multiple of its GPUs (8; `a4x-highgpu-4g` 4; "
		 "`a2-megagpu-16g` 16), else the pool is refused, unless it gives both "
		 "`nics` and `nic_gbps` (the name then sets the fabric only); a pool of a "
		 "machine type is priced from that instance's offer, and its price source "
		 "says when it falls back to another (docs/prices.md)." },
	{ .key = "provider", .kind = FK_STR, FIELD_STR(struct pool, provider), .flags = FF_OMIT_ZERO,
	  .label = "Provider", .help = "cloud or owner, for prices" },
	{ .key = "region", .kind = FK_STR, FIELD_STR(struct pool, region), .flags = FF_OMIT_ZERO,
	  .label = "Region", .help = "region, for prices" },
	{ .key = "site", .kind = FK_STR, FIELD_STR(struct pool, site), .flags = FF_OMIT_ZERO,
	  .label = "Site",
	  .hint = "pools on one site share a spine", .help = "pools on one site share a spine",
	  .doc = "Where the pool lives. Pools with the same site share one spine; pools on "
		 "different sites are joined by the WAN link of `fabric`. Default: "
		 "{provider}/{region}." },
	{ .key = "price_per_node_hour", .kind = FK_NUM, .off = PO(usd_per_node_h), .min = 0,
	  .max = 1e6, .present = price_is_users, .label = "Price", .unit = "$/node-h",
	  .hint = "USD per node-hour; empty: catalog's; 0: owned",
	  .help = "USD per node-hour; absent: the price book's or the catalog's",
	  .doc = "USD per node-hour. Default: the price book's cheapest matching offer (see "
		 "`--no-price-book`), else the catalog's reference price per GPU-hour \u00d7 GPUs "
		 "per node, where the catalog has one; without a price the cost is reported as "
		 "unknown. An explicit 0 in a cluster file or `--pool ...,price=0` is a price: "
		 "owned hardware, costing nothing an hour (the TUI's editor takes 0 as the "
		 "default instead)." },
	{ .key = "spot", .kind = FK_BOOL, .off = PO(spot), .flags = FF_OMIT_ZERO,
	  .names = spot_names, .label = "Spot",
	  .help = "spot (preemptible) prices; default false" },
	{ .key = "nvl_domain", .kind = FK_INT, .off = PO(nvl_domain), .min = 1, .max = 100000,
	  .present = domain_is_users, .help = "GPUs on one NVLink fabric (NVL72: 72); default: a node",
	  .doc = "GPUs on one NVLink fabric, a multiple of the GPUs per node: 72 on GB200 and "
		 "GB300 NVL72 racks of 4-GPU trays (the catalog default for those parts), the "
		 "node elsewhere. Collectives inside a domain run over NVLink; across domains "
		 "over every tray's NICs." },
	{ .key = "intra_gbyte_s", .kind = FK_NUM, .off = PO(intra_gbyte_s), .min = 0.01,
	  .max = 1e4, .flags = FF_OMIT_ZERO,
	  .help = "measured GPU-to-GPU GB/s inside a node, per GPU and direction, all GPUs "
		  "sending; default: the catalog's link",
	  .doc = "A measured GPU-to-GPU rate inside a node, GB/s per GPU and direction, with "
		 "every GPU of the node sending at once (for example a send/receive test of "
		 "gpus_per_node / 2 concurrent pairs, per pair). It replaces the catalog's "
		 "figure for the node's collectives and pipeline hand-offs (NVLink at NCCL's "
		 "per-link rate; PCIe x16 at 12 GB/s on Gen3 and 25.6 on Gen4, through host "
		 "memory at 0.325 of that without peer access), for hosts whose PCIe tree is "
		 "slower or faster than a slot's. Default: the catalog's." },
};
#undef PO

const struct hp_field_table pool_fields = { "pool", pool_field_list,
					    (int)HP_ARRAY_LEN(pool_field_list), 1, 0 };


/* A machine type named as the transport fixes the GPUs of a node: a pool
 * of 4 GPUs a node on a3-highgpu-8g (8 H100) is no machine there is, and
 * the type's NICs say nothing of it (cluster_machine_gpus). A node of
 * whole machines keeps each machine's NICs and is priced as that machine
 * type; one that gives both nics and nic_gbps takes the name as its
 * fabric only (as `hetplan comm` does). Anything else is refused: where
 * names the pool ("FILE: pools[0]", "--pool SPEC"), key how the GPUs per
 * node are spelt there, and_nics how NICs and their speed are. */
static int pool_machine(struct pool *p, const char *transport, const char *where,
			const char *key, const char *and_nics, int code, struct hp_err *err)
{
	int mg = transport ? cluster_machine_gpus(transport) : 0;
	const char *type = transport ? cluster_machine_type(transport) : NULL;
	p->machine[0] = '\0';
	if (mg <= 0 || !type)
		return 0;
	/* the machine's GPU too: an A100 pool on a3-highgpu-8g (8 H100) is
	 * no machine there is either, and its NICs are an H100 machine's
	 * (cluster_machine_gpu_ok; `hetplan comm` asks it too) */
	int fabric_only = (p->nics_given & (POOL_GAVE_NICS | POOL_GAVE_GBPS)) ==
			  (POOL_GAVE_NICS | POOL_GAVE_GBPS);
	const char *mgpu;
	if (!cluster_machine_gpu_ok(transport, p->gpu.name, &mgpu) && !fabric_only)
		return hp_err_set(err, code,
				  "%s: pool '%s': transport %s is a machine of %d %s GPUs, not %s "
				  "(for another GPU on its fabric give %s)",
				  where, p->name, transport, mg, mgpu, p->gpu.name, and_nics);
	if (p->gpus_per_node % mg == 0) {
		hp_strlcpy(p->machine, type, sizeof p->machine);
		return 0;
	}
	if ((p->nics_given & (POOL_GAVE_NICS | POOL_GAVE_GBPS)) ==
	    (POOL_GAVE_NICS | POOL_GAVE_GBPS))
		return 0;
	return hp_err_set(err, code,
			  "%s: pool '%s': transport %s is a machine of %d GPUs; %s expected a "
			  "multiple of %d, got %d (for another node give %s)",
			  where, p->name, transport, mg, key, mg, p->gpus_per_node, and_nics);
}

static int parse_pool(struct cluster *c, const cJSON *o, const char *file, int idx,
		      const struct catalog *cat, struct hp_err *err)
{
	/* the keys, their kinds and ranges are pool_fields' (workspace.c),
	 * which also writes the docs, the man page and the TUI's rows; these
	 * are read as the table says, the rest below by their own rules */
	static const char *const plain[] = {
		"name", "gpus_per_node", "nics", "nic_gbps", "provider", "region", "site",
		"price_per_node_hour", "spot", "nvl_domain", "intra_gbyte_s", "host_mem_gb", "pcie",
		NULL,
	};
	char path[32], where[160];
	snprintf(path, sizeof path, "pools[%d]", idx);
	snprintf(where, sizeof where, "%s: %s", file, path);
	struct jx_ctx jc = { file, path, err };
	if (!cJSON_IsObject(o))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: expected an object", where);
	if (fields_check_keys(&pool_fields, &jc, o, NULL) < 0)
		return -1;
	char gpu[48];
	if (jx_str(&jc, o, "gpu", 1, gpu, sizeof gpu) < 0)
		return -1;
	const struct gpu_spec *g = catalog_gpu(cat, gpu);
	if (!g) {
		char w[200];
		snprintf(w, sizeof w, "%s.gpu", where);
		return catalog_gpu_unknown(cat, gpu, w, err);
	}
	struct pool p;
	pool_from_gpu(&p, g);
	if (fields_read_keys(&pool_fields, plain, &p, &jc, o) < 0)
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(o, "price_per_node_hour")) {
		snprintf(p.price_source, sizeof p.price_source, "%s", file);
		p.price_set = 1;
	}
	const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(o, "nodes");
	if (cJSON_IsObject(nodes)) {
		char sub[48];
		snprintf(sub, sizeof sub, "%s.nodes", path);
		struct jx_ctx jn = { file, sub, err };
		if (jx_int(&jn, nodes, "max", 1, 1, 1000000, &p.nodes_max) < 0)
			return -1;
		p.nodes = p.nodes_max;
	} else if (jx_int(&jc, o, "nodes", 1, 1, HP_MAX_NODES, &p.nodes) < 0) {
		return -1;
	}
	char intra[16] = "";
	if (jx_str(&jc, o, "intra", 0, intra, sizeof intra) < 0)
		return -1;
	if (*intra && hp_intra_parse(intra, &p.intra))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s.intra: expected \"nvswitch\", \"nvlink\" or \"pcie\", got \"%s\"",
				  where, intra);
	char transport[32] = "";
	if (jx_str(&jc, o, "transport", 0, transport, sizeof transport) < 0)
		return -1;
	if (!*transport) {
		p.transport = cluster_default_transport(p.nic_gbps);
	} else if (!comm_transport_parse(transport, &p.transport)) {
		p.transport_set = 1;
	} else {
		char want[FIELDS_WANT_MAX];
		comm_transport_want(want, sizeof want, 1);
		return hp_err_set(err, HP_EXIT_INPUT, "%s.transport: expected %s, got \"%s\"",
				  where, want, transport);
	}
	if (cJSON_GetObjectItemCaseSensitive(o, "nics"))
		p.nics_given |= POOL_GAVE_NICS;
	else
		pool_nics_per_tray(&p);
	if (cJSON_GetObjectItemCaseSensitive(o, "nic_gbps"))
		p.nics_given |= POOL_GAVE_GBPS;
	/* a machine type named as the transport brings its GPU NICs */
	if (*transport)
		pool_machine_nics(&p, transport, p.nics_given);
	if (!*p.name)
		default_name(c, &p);
	if (check_pool(c, &p, where, err) < 0)
		return -1;
	if (pool_machine(&p, *transport ? transport : NULL, where, "gpus_per_node",
			 "nics and nic_gbps", HP_EXIT_INPUT, err) < 0)
		return -1;
	pool_apply_defaults(&p);
	c->pools[c->n_pools++] = p;
	return 0;
}

int cluster_parse_json(struct cluster *c, const char *text, size_t len,
		       const char *file, const struct catalog *cat,
		       struct hp_err *err)
{
	static const char *const known[] = { "name", "pools", "fabric", NULL };
	static const char *const fknown[] = { "oversubscription", "inter_pool_gbps",
					      "inter_pool_latency_us", NULL };
	cJSON *root = jx_parse(text, len, file, err);
	if (!root)
		return -1;
	struct jx_ctx jc = { file, "", err };
	int rc = -1, bad;
	if (!cJSON_IsObject(root)) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: expected a JSON object with \"pools\"", file);
		goto out;
	}
	if (jx_check_keys(&jc, root, known) < 0 ||
	    jx_str(&jc, root, "name", 0, c->name, sizeof c->name) < 0)
		goto out;
	const cJSON *pools = jx_arr(&jc, root, "pools", 1, &bad);
	if (bad)
		goto out;
	int n = cJSON_GetArraySize(pools);
	if (n == 0) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: pools: expected at least one pool", file);
		goto out;
	}
	if (n + c->n_pools > HP_MAX_POOLS) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: pools: at most %d pools, got %d", file,
			   HP_MAX_POOLS, n);
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (parse_pool(c, cJSON_GetArrayItem(pools, i), file, i, cat, err) < 0)
			goto out;
	const cJSON *fab = jx_obj(&jc, root, "fabric", 0, &bad);
	if (bad)
		goto out;
	if (fab) {
		struct jx_ctx jf = { file, "fabric", err };
		if (jx_check_keys(&jf, fab, fknown) < 0 ||
		    jx_num(&jf, fab, "oversubscription", 0, 1, 1000, &c->oversub) < 0 ||
		    jx_num(&jf, fab, "inter_pool_gbps", 0, 0.001, 1e6, &c->inter_pool_gbps) < 0 ||
		    jx_num(&jf, fab, "inter_pool_latency_us", 0, 0, 1e7,
			   &c->inter_pool_latency_us) < 0)
			goto out;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

int cluster_load(struct cluster *c, const char *path, const struct catalog *cat,
		 struct hp_err *err)
{
	size_t len;
	char *text = hp_read_file(path, &len, err);
	if (!text)
		return -1;
	int rc = cluster_parse_json(c, text, len, path, cat, err);
	free(text);
	return rc;
}

/* ---- The --pool spec's keys, derived from pool_fields (cluster.h). */

static struct hp_field spec_list[HP_ARRAY_LEN(pool_field_list) + 1];
static struct hp_field_table spec_table = { "pool-spec", spec_list, 0, 1, 1 };
static pthread_once_t spec_once = PTHREAD_ONCE_INIT;

static void spec_build(void)
{
	int n = 0;
	for (size_t i = 0; i < HP_ARRAY_LEN(pool_field_list); i++) {
		const struct hp_field *f = &pool_field_list[i];
		/* the spec's NODESxGPUSxGPU gives these three */
		if (!strcmp(f->key, "gpu") || !strcmp(f->key, "gpus_per_node") ||
		    !strcmp(f->key, "nodes"))
			continue;
		spec_list[n] = *f;
		if (!strcmp(f->key, "price_per_node_hour"))
			spec_list[n].key = "price";
		/* spot=1, true, yes (or 0, false, no), as the spec always took */
		spec_list[n].names = NULL;
		n++;
	}
	spec_list[n] = pool_nodes_list[0];
	spec_list[n].flags &= ~FF_REQUIRED;
	spec_list[n].help = "nodes available to rent; the pool counts as this many";
	spec_table.n = n + 1;
}

const struct hp_field_table *cluster_pool_spec_fields(void)
{
	pthread_once(&spec_once, spec_build);
	return &spec_table;
}

/* One key=value of a --pool spec into p (kv and eq split at the '='), by
 * the spec's table; the keys with more to set than their member say so. */
static int pool_spec_key(struct pool *p, const char *kv, const char *eq, const char *spec,
			 const char **transport, struct hp_err *err)
{
	const struct hp_field_table *t = cluster_pool_spec_fields();
	const struct hp_field *f = fields_find_key(t, kv);
	if (!f) {
		char known[400] = "";
		size_t len = 0;
		for (int i = 0; i < t->n && len < sizeof known; i++)
			len += (size_t)snprintf(known + len, sizeof known - len, "%s%s",
						i ? ", " : "", t->f[i].key);
		return hp_err_set(err, HP_EXIT_USAGE, "--pool %s: unknown key '%s' (known: %s)",
				  spec, kv, known);
	}
	char want[FIELDS_WANT_MAX];
	if (fields_parse_text(f, p, eq, want, sizeof want) < 0) {
		return hp_err_set(err, HP_EXIT_USAGE, "--pool %s: %s: expected %s, got '%s'", spec,
				  kv, want, eq);
	}
	if (!strcmp(kv, "price")) {
		snprintf(p->price_source, sizeof p->price_source, "--pool");
		p->price_set = 1;
	} else if (!strcmp(kv, "transport")) {
		*transport = eq;
	} else if (!strcmp(kv, "nics")) {
		p->nics_given |= POOL_GAVE_NICS;
	} else if (!strcmp(kv, "nic_gbps")) {
		p->nics_given |= POOL_GAVE_GBPS;
	} else if (!strcmp(kv, "max")) {
		p->nodes = p->nodes_max;   /* as in cluster JSON: available up to max */
	}
	return 0;
}

int cluster_add_pool_spec(struct cluster *c, const char *spec,
			  const struct catalog *cat, struct hp_err *err)
{
	if (c->n_pools >= HP_MAX_POOLS)
		return hp_err_set(err, HP_EXIT_USAGE, "--pool: at most %d pools",
				  HP_MAX_POOLS);
	char buf[256];
	if (hp_strlcpy(buf, spec, sizeof buf) >= sizeof buf)
		return hp_err_set(err, HP_EXIT_USAGE, "--pool: spec too long");
	char *opts = strchr(buf, ',');
	if (opts)
		*opts++ = '\0';
	/* NODESxGPUSxGPU: the GPU name may itself hold an 'x' (MI300X), so
	 * split on the first two. */
	char *x1 = strchr(buf, 'x');
	char *x2 = x1 ? strchr(x1 + 1, 'x') : NULL;
	int nodes, gpn;
	if (!x1 || !x2)
		goto usage;
	*x1 = *x2 = '\0';
	/* Digits that are not a count (0, or past int) get their own message. */
	const struct { const char *what, *text; int *out; } counts[] = {
		{ "NODES", buf, &nodes }, { "GPUS", x1 + 1, &gpn },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(counts); i++)
		if (hp_parse_int(counts[i].text, counts[i].out)) {
			const char *t = counts[i].text;
			if (!*t || t[strspn(t, "0123456789")])
				goto usage;
			if (!t[strspn(t, "0")])
				return hp_err_set(err, HP_EXIT_USAGE,
						  "--pool %s: %s expected a count of at least 1, "
						  "got '%s'", spec, counts[i].what, t);
			return hp_err_set(err, HP_EXIT_USAGE,
					  "--pool %s: %s is too large (a cluster holds at most %d "
					  "GPUs), got '%s'", spec, counts[i].what, HP_MAX_GPUS, t);
		}
	if (!x2[1])
		goto usage;
	const struct gpu_spec *g = catalog_gpu(cat, x2 + 1);
	if (!g) {
		catalog_gpu_unknown(cat, x2 + 1, "--pool", err);
		err->code = HP_EXIT_INPUT;
		return -1;
	}
	struct pool p;
	pool_from_gpu(&p, g);
	p.nodes = nodes;
	p.gpus_per_node = gpn;
	if (gpn != g->def_gpus_per_node && g->def_intra == INTRA_NVSWITCH && gpn == 1)
		p.intra = INTRA_PCIE;
	const char *transport = NULL;   /* the spec's own text, in buf */
	/* strtok_r: the TUI's pool editor calls this from its own thread. */
	char *save = NULL;
	for (char *kv = opts ? strtok_r(opts, ",", &save) : NULL; kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			return hp_err_set(err, HP_EXIT_USAGE,
					  "--pool %s: expected key=value, got '%s'", spec, kv);
		*eq++ = '\0';
		if (pool_spec_key(&p, kv, eq, spec, &transport, err) < 0)
			return -1;
	}
	if (!(p.nics_given & POOL_GAVE_NICS))
		pool_nics_per_tray(&p);
	/* a machine type named as the transport brings its GPU NICs */
	if (transport)
		pool_machine_nics(&p, transport, p.nics_given);
	else
		p.transport = cluster_default_transport(p.nic_gbps);
	p.transport_set = transport != NULL;
	if (!*p.name)
		default_name(c, &p);
	if (check_pool(c, &p, "--pool", err) < 0) {
		err->code = HP_EXIT_USAGE;
		return -1;
	}
	char where[300];
	snprintf(where, sizeof where, "--pool %s", spec);
	if (pool_machine(&p, transport, where, "GPUS", "nics= and nic_gbps=", HP_EXIT_USAGE,
			 err) < 0)
		return -1;
	pool_apply_defaults(&p);
	c->pools[c->n_pools++] = p;
	return 0;
usage:
	return hp_err_set(err, HP_EXIT_USAGE,
			  "--pool: expected NODESxGPUSxGPU[,key=value...] like 16x8xH100-SXM,nics=8, got '%s'",
			  spec);
}
