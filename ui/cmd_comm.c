/* cmd_comm.c — `hetplan comm`: time one collective on a given system.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "cmd_comm.h"
#include "escape.h"
#include "common.h"
#include "comm.h"
#include "cluster.h"

#include <cjson/cJSON.h>
#include <assert.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above comm_help. The transports are the names of comm_transport_name
 * (src/cluster.c), joined by '|' as completion.c reads a synopsis's
 * choices. */
const char *cmd_comm_usage(void)
{
	static char buf[512];
	char names[128];
	size_t len = 0;
	names[0] = '\0';
	for (int i = 0; i < COMM_TRANSPORT_COUNT && len < sizeof names; i++) {
		int w = snprintf(names + len, sizeof names - len, "%s%s", i ? "|" : "",
				 comm_transport_name((enum comm_transport)i));
		if (w < 0)
			break;
		len += (size_t)w;
	}
	snprintf(buf, sizeof buf,
		 "hetplan comm --collective C --bytes SIZE --gpu TYPE --gpus-per-node N --nodes N\n"
		 "         [--nics N --nic-gbps G] [--nvl-domain N] [--intra nvswitch|nvlink|pcie]\n"
		 "         [--pcie GEN.0xLANES]\n"
		 "         [--transport %s]\n"
		 "         [--algo auto|ring|tree|nvls|nvls_tree|pat] [--proto auto|ll|ll128|simple]\n"
		 "         [--format table|json] [--sweep MIN:MAX]\n",
		 names);
	return buf;
}

static const char comm_help_head[] =
	"\n"
	"  --collective C     allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv\n"
	"  --bytes SIZE       nccl-tests size: 8, 64K, 1MiB, 4GB (K/M/G = powers of two, KB/MB/GB = 1e3..)\n"
	"  --gpu TYPE         a GPU from 'hetplan gpus'\n"
	"  --gpus-per-node N  ranks per node\n"
	"  --nodes N          nodes (ranks = nodes x gpus-per-node)\n"
	"  --nics N           NICs per node (default: the GPU's usual node; a node of\n"
	"                     several NVL72 trays, e.g. 72 GB200: every tray's, 18 x 4)\n"
	"  --nvl-domain N     GPUs per NVLink domain, a multiple of --gpus-per-node\n"
	"                     (default: the GPU's, 72 for GB200 NVL72; else a node)\n"
	"  --nic-gbps G       line rate of one NIC, Gb/s (default: the GPU's usual node)\n"
	"                     (a machine type given as --transport sets both: a3-highgpu-8g 4 x 200)\n"
	"  --intra KIND       link inside a node (default: the GPU's usual node)\n"
	"  --pcie GEN.0xLANES each GPU's PCIe link to its host, e.g. 4.0x8 (also 4x8,\n"
	"                     gen4x8), as a pool's key pcie (default: the catalog's,\n"
	"                     x16 at the GPU's generation; docs/pcie.md)\n";

static const char comm_help_tail[] =
	"  --algo A           force an algorithm (default auto: NCCL's choice)\n"
	"  --proto P          force a protocol (default auto)\n"
	"  --format F         table (default) or json\n"
	"  --sweep MIN:MAX    every power of two from MIN to MAX, like nccl-tests -b MIN -e MAX -f 2\n"
	"\n"
	"Bandwidths follow nccl-tests: algbw = bytes / time, busbw = algbw x factor.\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input.\n";

/* The flags above --transport, the transports from their table
 * (comm_transport_name, comm_transport_what), the flags after. */
static const char *comm_help(void)
{
	static char buf[4096];
	size_t len = 0;
	int w = snprintf(buf, sizeof buf, "%s  --transport T      network transport, one of:\n",
			 comm_help_head);
	if (w < 0 || (size_t)w >= sizeof buf)
		return comm_help_tail;
	len = (size_t)w;
	for (int t = 0; t < COMM_TRANSPORT_COUNT && len < sizeof buf; t++) {
		w = snprintf(buf + len, sizeof buf - len, "                       %-9s %s\n",
			     comm_transport_name((enum comm_transport)t),
			     comm_transport_what((enum comm_transport)t));
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (len < sizeof buf)
		snprintf(buf + len, sizeof buf - len,
			 "                     or a Google Cloud machine type (a3-megagpu-8g), which\n"
			 "                     names its fabric\n%s", comm_help_tail);
	return buf;
}

enum { O_COLL = 256, O_BYTES, O_GPU, O_GPN, O_NODES, O_NICS, O_NVL, O_NICGBPS,
       O_INTRA, O_ALGO, O_PROTO, O_FORMAT, O_SWEEP, O_TRANSPORT, O_PCIE };

static const struct option comm_opts[] = {
	{ "collective", required_argument, 0, O_COLL },
	{ "bytes", required_argument, 0, O_BYTES },
	{ "gpu", required_argument, 0, O_GPU },
	{ "gpus-per-node", required_argument, 0, O_GPN },
	{ "nodes", required_argument, 0, O_NODES },
	{ "nics", required_argument, 0, O_NICS },
	{ "nvl-domain", required_argument, 0, O_NVL },
	{ "nic-gbps", required_argument, 0, O_NICGBPS },
	{ "intra", required_argument, 0, O_INTRA },
	{ "pcie", required_argument, 0, O_PCIE },
	{ "transport", required_argument, 0, O_TRANSPORT },
	{ "algo", required_argument, 0, O_ALGO },
	{ "proto", required_argument, 0, O_PROTO },
	{ "format", required_argument, 0, O_FORMAT },
	{ "sweep", required_argument, 0, O_SWEEP },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

const struct option *cmd_comm_options(void)
{
	return comm_opts;
}

/* Message sizes stay below 2^53 bytes (8 PiB): from 2^53 on a double no
 * longer holds every whole byte count ("9007199254740993" reads as 2^53).
 * A collective's message is a buffer on each GPU, so one GPU's memory
 * (288 GB on MI355X, the largest in the catalog) bounds it in practice,
 * far below. */
#define COMM_BYTES_LIMIT 9007199254740992.0

static int parse_size(const char *flag, const char *s, double *out)
{
	if (hp_parse_bytes(s, out) || !(*out >= 0) || !isfinite(*out))
		return usage_error("comm", flag, "a size like 64K, 1MiB or 4GB", s);
	/* nccl-tests sizes are whole bytes: "0.3K" (307.2) was timed as
	 * 307.2 bytes and shown as 307 */
	if (*out != floor(*out))
		return usage_error("comm", flag, "a whole number of bytes (1.5K is 1536)", s);
	if (*out >= COMM_BYTES_LIMIT)
		return usage_error("comm", flag, "a size below 9007199254740992 bytes (2^53, 8 PiB)", s);
	return 0;
}


static int print_json(cJSON *o)
{
	char *s = esc_json_print(o);
	cJSON_Delete(o);
	if (!s) {
		fprintf(stderr, "hetplan comm: out of memory\n");
		return HP_EXIT_FAIL;
	}
	puts(s);
	free(s);
	return HP_EXIT_OK;
}

/* What the command line asked for. */
struct comm_args {
	const char *gpu_name;
	int have_coll, have_bytes, have_sweep, gpn, nodes;
	int nics, have_intra, json, nvl_domain;
	int pcie_gen, pcie_lanes;  /* --pcie; 0: the catalog's link */
	double bytes, nic_gbps, smin, smax;
	enum comm_coll coll;
	enum comm_algo algo;
	enum comm_proto proto;
	enum hp_intra intra;
	enum comm_transport transport;
	char transport_name[32];  /* --transport as given: a machine type sets NICs */
	int node_nics;            /* the NICs of one node the group was timed with */
};

/* The network the group was timed with, as the human output and the JSON
 * both say it: NICs per node, their line rate, the transport's name (and
 * the machine type it came from). */
static void net_json(cJSON *o, const struct comm_args *a)
{
	cJSON_AddNumberToObject(o, "nics", a->node_nics);
	cJSON_AddNumberToObject(o, "nic_gbps", a->nic_gbps);
	cJSON_AddStringToObject(o, "transport", comm_transport_name(a->transport));
	if (a->transport_name[0] && strcmp(a->transport_name, comm_transport_name(a->transport)))
		cJSON_AddStringToObject(o, "machine_type", a->transport_name);
	cJSON_AddStringToObject(o, "intra", hp_intra_name(a->intra));
	if (a->pcie_gen > 0) {
		char pcie[16];
		snprintf(pcie, sizeof pcie, "%d.0x%d", a->pcie_gen, a->pcie_lanes);
		cJSON_AddStringToObject(o, "pcie", pcie);
	}
}

/* "8 x 400 Gb/s NICs per node, ib" ("..., tcpx (a3-highgpu-8g)"). */
static char *net_text(char *buf, size_t n, const struct comm_args *a)
{
	int w = snprintf(buf, n, "%d x %g Gb/s NICs per node, %s", a->node_nics, a->nic_gbps,
			 comm_transport_name(a->transport));
	if (w >= 0 && (size_t)w < n && a->transport_name[0] &&
	    strcmp(a->transport_name, comm_transport_name(a->transport))) {
		int w2 = snprintf(buf + w, n - (size_t)w, " (%s)", a->transport_name);
		w = w2 < 0 ? -1 : w + w2;
	}
	if (w >= 0 && (size_t)w < n && a->pcie_gen > 0)
		snprintf(buf + w, n - (size_t)w, "; PCIe %d.0x%d", a->pcie_gen, a->pcie_lanes);
	return buf;
}

static cJSON *result_json(const struct comm_args *a, double bytes, int ranks,
			  const struct comm_result *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "collective", comm_coll_name(a->coll));
	cJSON_AddNumberToObject(o, "bytes", bytes);
	cJSON_AddNumberToObject(o, "ranks", ranks);
	cJSON_AddNumberToObject(o, "time_us", r->time_s * 1e6);
	cJSON_AddNumberToObject(o, "algbw_GBps", r->algbw_Bps / 1e9);
	cJSON_AddNumberToObject(o, "busbw_GBps", r->busbw_Bps / 1e9);
	cJSON_AddStringToObject(o, "algorithm", comm_algo_name(r->algo));
	cJSON_AddStringToObject(o, "protocol", comm_proto_name(r->proto));
	net_json(o, a);
	return o;
}

/* --sweep MIN:MAX. Returns 0, or the usage error's exit status. */
static int parse_sweep(struct comm_args *a, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char lo[64] = "";
	size_t n = colon ? (size_t)(colon - arg) : 0;
	if (n > 0 && n < sizeof lo)
		hp_strlcpy(lo, arg, n + 1);
	/* Both ends whole sizes, as --bytes: "1:0.3K" (MAX 307.2) was taken. */
	if (!lo[0] || hp_parse_bytes(lo, &a->smin) || hp_parse_bytes(colon + 1, &a->smax) ||
	    !(a->smin >= 1) || !(a->smax >= a->smin) || !(a->smax < COMM_BYTES_LIMIT) ||
	    a->smin != floor(a->smin) || a->smax != floor(a->smax))
		return usage_error("comm", "sweep", "MIN:MAX whole sizes with 1 <= MIN <= MAX < 8 PiB, like 8:1G", arg);
	a->have_sweep = 1;
	return 0;
}

/* The options that name the group's links. Returns 0, or the usage
 * error's exit status. */
static int parse_link_opt(struct comm_args *a, int opt, const char *arg)
{
	switch (opt) {
	case O_NVL:
		if (hp_parse_int(arg, &a->nvl_domain) || a->nvl_domain < 1 || a->nvl_domain > 100000)
			return usage_error("comm", "nvl-domain", "GPUs per NVLink domain (1 to 100000)", arg);
		return 0;
	case O_GPN:
		if (hp_parse_int(arg, &a->gpn) || a->gpn > 1024)
			return usage_error("comm", "gpus-per-node", "an integer from 1 to 1024", arg);
		return 0;
	case O_NODES:
		if (hp_parse_int(arg, &a->nodes) || a->nodes > HP_MAX_NODES)
			return usage_error("comm", "nodes", "an integer from 1 to 1000000", arg);
		return 0;
	case O_NICS:
		/* 0 to POOL_MAX_NICS (1024), the bound of a cluster file's
		 * nics: a node carries one scale-out NIC per GPU or fewer (8 x
		 * 400G on a DGX H100, 4 on a GB200 tray, 72 on an NVL72 rack
		 * written as one node), and a node holds at most HP_MAX_GPN
		 * GPUs. */
		if (!strcmp(arg, "0"))
			a->nics = 0;
		else if (hp_parse_int(arg, &a->nics) || a->nics < 1 || a->nics > POOL_MAX_NICS)
			return usage_error("comm", "nics", "a whole number of NICs per node from 0 to 1024", arg);
		return 0;
	case O_NICGBPS:
		/* 1 to 1e5 Gb/s, as a cluster file's nic_gbps; decimal only */
		if (hp_parse_number(arg, &a->nic_gbps) || !(a->nic_gbps >= 1 && a->nic_gbps <= 1e5))
			return usage_error("comm", "nic-gbps", "a line rate from 1 to 100000 Gb/s, e.g. 400", arg);
		return 0;
	case O_PCIE:
		/* the pool key pcie's parser (cluster_pcie_parse) */
		if (cluster_pcie_parse(arg, &a->pcie_gen, &a->pcie_lanes))
			return usage_error("comm", "pcie",
					   "a PCIe link GEN.0xLANES, generation 3 to 6 and lanes 1, 2, "
					   "4, 8 or 16, e.g. 4.0x8", arg);
		return 0;
	case O_INTRA:
		if (hp_intra_parse(arg, &a->intra))
			return usage_error("comm", "intra", "nvswitch, nvlink or pcie", arg);
		a->have_intra = 1;
		return 0;
	default: /* O_TRANSPORT */
		if (comm_transport_parse(arg, &a->transport)) {
			char want[160];
			comm_transport_want(want, sizeof want, 0);
			return usage_error("comm", "transport", want, arg);
		}
		/* parsed, so a known name far shorter than the buffer */
		hp_strlcpy(a->transport_name, arg, sizeof a->transport_name);
		return 0;
	}
}

/* One option with its value. Returns 0, or the usage error's status. */
static int parse_opt(struct comm_args *a, int opt, const char *arg)
{
	int rc;
	switch (opt) {
	case O_COLL:
		if (comm_coll_parse(arg, &a->coll))
			return usage_error("comm", "collective", "allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv", arg);
		a->have_coll = 1;
		return 0;
	case O_BYTES:
		if ((rc = parse_size("bytes", arg, &a->bytes)))
			return rc;
		a->have_bytes = 1;
		return 0;
	case O_GPU:
		a->gpu_name = arg;
		return 0;
	case O_ALGO:
		if (comm_algo_parse(arg, &a->algo))
			return usage_error("comm", "algo", "auto, ring, tree, nvls, nvls_tree or pat", arg);
		return 0;
	case O_PROTO:
		if (comm_proto_parse(arg, &a->proto))
			return usage_error("comm", "proto", "auto, ll, ll128 or simple", arg);
		return 0;
	case O_FORMAT:
		if (strcmp(arg, "table") && strcmp(arg, "json"))
			return usage_error("comm", "format", "table or json", arg);
		a->json = !strcmp(arg, "json");
		return 0;
	case O_SWEEP:
		return parse_sweep(a, arg);
	default:
		return parse_link_opt(a, opt, arg);
	}
}

/* The required options, each named when missing. Returns 0 or 2. */
static int check_required(const struct comm_args *a)
{
	const char *miss = NULL;
	if (!a->have_coll)
		miss = "--collective: missing; expected allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv";
	else if (!a->have_bytes && !a->have_sweep)
		miss = "--bytes: missing; expected a size like 64K, 1MiB or 4GB (or --sweep MIN:MAX)";
	else if (!a->gpu_name)
		miss = "--gpu: missing; expected a GPU name from 'hetplan gpus'";
	else if (!a->gpn)
		miss = "--gpus-per-node: missing; expected a positive integer";
	else if (!a->nodes)
		miss = "--nodes: missing; expected a positive integer";
	if (!miss && a->nvl_domain > 0 && a->nvl_domain % a->gpn) {
		/* a domain is whole nodes (NVL72: 18 x 4); one smaller than
		 * a node read as the node */
		char want[64];
		snprintf(want, sizeof want, "a multiple of --gpus-per-node (%d)", a->gpn);
		char got[16];
		snprintf(got, sizeof got, "%d", a->nvl_domain);
		return usage_error("comm", "nvl-domain", want, got);
	}
	if (!miss)
		return 0;
	fprintf(stderr, "hetplan comm: %s\n", miss);
	return HP_EXIT_USAGE;
}

/* A machine type fixes the GPUs of a node: --gpus-per-node 4 with
 * --transport a3-highgpu-8g (8 H100 and 4 GPU NICs, Google Cloud's
 * "Networking and GPU machines" page, src/cluster.c machine_types; the
 * GPUs of a machine are cluster_machine_gpus's, which the cluster loader
 * asks too) is no machine there is, and its NICs say nothing of such a
 * node; a3-edgegpu-8g, whose GPU NICs are not sourced, is 8 GPUs all the
 * same. It was timed
 * with the GPU's usual NICs (8 x 400 on an H100) without a word. A node
 * of whole machines (16: two) keeps each machine's NICs, as a pool's
 * transport does; with --nics and --nic-gbps both given the machine type
 * names the fabric only (nothing comes from a default). Returns 0 or 2. */
static int check_machine(const struct comm_args *a)
{
	int mg = a->transport_name[0] ? cluster_machine_gpus(a->transport_name) : 0;
	if (mg <= 0 || a->gpn % mg == 0 || (a->nics >= 0 && a->nic_gbps >= 0))
		return 0;
	fprintf(stderr, "hetplan comm: --gpus-per-node: --transport %s is a machine of %d GPUs; "
		"expected a multiple of %d, got %d (for another node give --nics and "
		"--nic-gbps)\n", a->transport_name, mg, mg, a->gpn);
	return HP_EXIT_USAGE;
}

/* A machine type holds one GPU model: --gpu A100-SXM4-80GB with
 * --transport a3-highgpu-8g (8 H100) is no machine there is either, and
 * its NICs are an H100 machine's; timed so without a word before. The
 * pool loader's rule (cluster_machine_gpu_ok, src/cluster.c
 * pool_machine): with --nics and --nic-gbps both given the machine type
 * names the fabric only. Returns 0 or 2. */
static int check_machine_gpu(const struct comm_args *a, const struct gpu_spec *gpu)
{
	const char *mgpu;
	if (!a->transport_name[0] || (a->nics >= 0 && a->nic_gbps >= 0) ||
	    cluster_machine_gpu_ok(a->transport_name, gpu->name, &mgpu))
		return 0;
	fprintf(stderr, "hetplan comm: --gpu: --transport %s is a machine of %d %s GPUs, not %s "
		"(for another GPU on its fabric give --nics and --nic-gbps)\n", a->transport_name,
		cluster_machine_gpus(a->transport_name), mgpu, gpu->name);
	return HP_EXIT_USAGE;
}

/* The group the options describe, the GPU's usual node filling what they
 * leave out. */
static void build_group(struct comm_args *a, const struct gpu_spec *gpu, struct comm_group *g)
{
	if (!a->have_intra)
		a->intra = gpu->def_intra;
	/* The pool parser's rule (cluster_default_nics): a node of several
	 * NVL72 trays (72 per node) has every tray's NICs, not one tray's. */
	/* A machine type named as the transport brings its GPU NICs
	 * (cluster_machine_nics, as a pool's transport does); --nics and
	 * --nic-gbps, each when given, win. */
	int mnics;
	double mgbps;
	if (a->transport_name[0] && cluster_machine_nics(a->transport_name, a->gpn, &mnics, &mgbps)) {
		if (a->nics < 0)
			a->nics = mnics;
		if (a->nic_gbps < 0)
			a->nic_gbps = mgbps;
	}
	if (a->nics < 0)
		a->nics = cluster_default_nics(gpu, a->gpn, a->intra);
	if (a->nic_gbps < 0)
		a->nic_gbps = gpu->def_nic_gbps;
	a->node_nics = a->nics;
	memset(g, 0, sizeof *g);
	g->ranks = a->gpn * a->nodes;
	g->ranks_per_node = a->gpn;
	g->oversub = 1;
	/* Nodes on one NVLink fabric larger than a node (GB200 NVL72: 18
	 * trays of 4): the domain is the collective's "node", NVLink inside
	 * it and every tray's NICs across domains. */
	if (a->nvl_domain <= 0)
		a->nvl_domain = cluster_default_domain(gpu, a->gpn, a->intra);
	if (a->nvl_domain > a->gpn && a->nvl_domain % a->gpn == 0) {
		g->ranks_per_node = a->nvl_domain < g->ranks ? a->nvl_domain : g->ranks;
		/* At most 1024 NICs x 100000 trays (the flags' bounds):
		 * 1.0e8, checked in a wider type all the same. */
		long long nics = (long long)a->nics * (a->nvl_domain / a->gpn);
		assert(nics >= 0 && nics <= INT_MAX);
		a->nics = (int)nics;
		g->domain_hosts = a->nvl_domain / a->gpn;
	}
	comm_fabric_init(&g->fab, gpu, a->intra, a->nics, a->nic_gbps);
	comm_fabric_set_transport(&g->fab, a->transport);
}

static int comm_fail(const struct hp_err *err)
{
	fprintf(stderr, "hetplan %s\n", err->msg);
	return err->code ? err->code : HP_EXIT_INPUT;
}

/* One size: a table of fields or a JSON object. */
static int print_one(const struct comm_args *a, const struct gpu_spec *gpu,
		     const struct comm_group *g)
{
	struct comm_result r;
	struct hp_err err = { 0 };
	if (comm_time(g, a->coll, a->bytes, a->algo, a->proto, &r, &err))
		return comm_fail(&err);
	if (a->json)
		return print_json(result_json(a, a->bytes, g->ranks, &r));
	char hb[32], net[96];
	printf("collective  %s\n", comm_coll_name(a->coll));
	printf("bytes       %.0f (%s)\n", a->bytes, hp_fmt_bytes(hb, sizeof hb, a->bytes));
	printf("ranks       %d (%d nodes x %d, %s)\n", g->ranks, a->nodes, a->gpn, gpu->name);
	printf("network     %s\n", net_text(net, sizeof net, a));
	printf("algorithm   %s\n", comm_algo_name(r.algo));
	printf("protocol    %s\n", comm_proto_name(r.proto));
	printf("time        %.2f us\n", r.time_s * 1e6);
	printf("algbw       %.2f GB/s\n", r.algbw_Bps / 1e9);
	printf("busbw       %.2f GB/s\n", r.busbw_Bps / 1e9);
	return HP_EXIT_OK;
}

/* Sweep: powers of two from MIN (rounded up) to MAX. */
static int print_sweep(const struct comm_args *a, const struct gpu_spec *gpu,
		       const struct comm_group *g)
{
	struct comm_result r;
	struct hp_err err = { 0 };
	double S = 1;
	while (S < a->smin)
		S *= 2;
	cJSON *arr = a->json ? cJSON_CreateArray() : NULL;
	if (!a->json) {
		char net[96];
		printf("# %s, %d ranks (%d nodes x %d %s), %s\n", comm_coll_name(a->coll),
		       g->ranks, a->nodes, a->gpn, gpu->name, net_text(net, sizeof net, a));
		printf("%14s %12s %10s %10s  %-9s %s\n", "size(B)", "time(us)",
		       "algbw", "busbw", "algo", "proto");
	}
	for (; S <= a->smax; S *= 2) {
		if (comm_time(g, a->coll, S, a->algo, a->proto, &r, &err)) {
			cJSON_Delete(arr);
			return comm_fail(&err);
		}
		if (a->json)
			cJSON_AddItemToArray(arr, result_json(a, S, g->ranks, &r));
		else
			printf("%14.0f %12.2f %10.2f %10.2f  %-9s %s\n", S,
			       r.time_s * 1e6, r.algbw_Bps / 1e9, r.busbw_Bps / 1e9,
			       comm_algo_name(r.algo), comm_proto_name(r.proto));
	}
	return a->json ? print_json(arr) : HP_EXIT_OK;
}

int cmd_comm(int argc, char **argv, const struct catalog *cat)
{
	struct comm_args a = { .nics = -1, .nic_gbps = -1, .coll = COMM_ALLREDUCE,
			       .algo = COMM_ALGO_AUTO, .proto = COMM_PROTO_AUTO,
			       .intra = INTRA_NVSWITCH, .transport = COMM_TRANSPORT_IB };
	int opt, rc;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", comm_opts, NULL)) != -1) {
		if (opt == 'h') {
			cli_usage(stdout, cmd_comm_usage(), comm_help());
			return HP_EXIT_OK;
		}
		if (opt == ':') {
			fprintf(stderr, "hetplan comm: %s: missing value\n", cli_shown(argv[optind - 1]));
			return HP_EXIT_USAGE;
		}
		if (opt < O_COLL) {
			fprintf(stderr, "hetplan comm: unknown option '%s' (see hetplan comm --help)\n",
				cli_shown(argv[optind - 1]));
			return HP_EXIT_USAGE;
		}
		if ((rc = parse_opt(&a, opt, optarg)))
			return rc;
	}
	if (optind < argc) {
		fprintf(stderr, "hetplan comm: unexpected argument '%s'\n", cli_shown(argv[optind]));
		return HP_EXIT_USAGE;
	}
	if ((rc = check_required(&a)) || (rc = check_machine(&a)))
		return rc;
	const struct gpu_spec *gpu = catalog_gpu(cat, a.gpu_name);
	if (!gpu) {
		struct hp_err err = { 0 };
		catalog_gpu_unknown(cat, a.gpu_name, "--gpu", &err);
		fprintf(stderr, "hetplan: %s\n", err.msg);
		return HP_EXIT_INPUT;
	}
	if ((rc = check_machine_gpu(&a, gpu)))
		return rc;
	if ((long)a.gpn * a.nodes > 1000000) {
		fprintf(stderr, "hetplan comm: --nodes: expected at most 1000000 GPUs in all, got %d x %d\n",
			a.nodes, a.gpn);
		return HP_EXIT_USAGE;
	}
	/* --pcie on this run's copy of the GPU, as a pool's key pcie sets
	 * its pool's copy (comm_fabric_init reads the pair) */
	struct gpu_spec gcopy = *gpu;
	if (a.pcie_gen > 0) {
		gcopy.pcie_gen = a.pcie_gen;
		gcopy.pcie_lanes = a.pcie_lanes;
		gpu = &gcopy;
	}
	struct comm_group g;
	build_group(&a, gpu, &g);
	return a.have_sweep ? print_sweep(&a, gpu, &g) : print_one(&a, gpu, &g);
}
