/* cmd_comm.c — `hetplan comm`: time one collective on a given system.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later. */
#include "cmd_comm.h"
#include "escape.h"
#include "common.h"
#include "comm.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above comm_help. */
const char cmd_comm_usage[] =
	"hetplan comm --collective C --bytes SIZE --gpu TYPE --gpus-per-node N --nodes N\n"
	"         [--nics N --nic-gbps G] [--nvl-domain N] [--intra nvswitch|nvlink|pcie] [--transport ib|efa]\n"
	"         [--algo auto|ring|tree|nvls|nvls_tree|pat] [--proto auto|ll|ll128|simple]\n"
	"         [--format table|json] [--sweep MIN:MAX]\n";

static const char comm_help[] =
	"\n"
	"  --collective C     allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv\n"
	"  --bytes SIZE       nccl-tests size: 8, 64K, 1MiB, 4GB (K/M/G = powers of two, KB/MB/GB = 1e3..)\n"
	"  --gpu TYPE         a GPU from 'hetplan gpus'\n"
	"  --gpus-per-node N  ranks per node\n"
	"  --nodes N          nodes (ranks = nodes x gpus-per-node)\n"
	"  --nics N           NICs per node (default: the GPU's usual node)\n"
	"  --nvl-domain N     GPUs per NVLink domain, a multiple of --gpus-per-node\n"
	"                     (default: the GPU's, 72 for GB200 NVL72; else a node)\n"
	"  --nic-gbps G       line rate of one NIC, Gb/s (default: the GPU's usual node)\n"
	"  --intra KIND       link inside a node (default: the GPU's usual node)\n"
	"  --transport T      network transport: ib (InfiniBand/RoCE, default) or efa (AWS EFA/SRD)\n"
	"  --algo A           force an algorithm (default auto: NCCL's choice)\n"
	"  --proto P          force a protocol (default auto)\n"
	"  --format F         table (default) or json\n"
	"  --sweep MIN:MAX    every power of two from MIN to MAX, like nccl-tests -b MIN -e MAX -f 2\n"
	"\n"
	"Bandwidths follow nccl-tests: algbw = bytes / time, busbw = algbw x factor.\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input.\n";

enum { O_COLL = 256, O_BYTES, O_GPU, O_GPN, O_NODES, O_NICS, O_NVL, O_NICGBPS,
       O_INTRA, O_ALGO, O_PROTO, O_FORMAT, O_SWEEP, O_TRANSPORT };

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

static int parse_size(const char *flag, const char *s, double *out)
{
	if (hp_parse_bytes(s, out) || !(*out >= 0) || !isfinite(*out))
		return usage_error("comm", flag, "a size like 64K, 1MiB or 4GB", s);
	return 0;
}

static cJSON *result_json(enum comm_coll c, double bytes, int ranks,
			  const struct comm_result *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "collective", comm_coll_name(c));
	cJSON_AddNumberToObject(o, "bytes", bytes);
	cJSON_AddNumberToObject(o, "ranks", ranks);
	cJSON_AddNumberToObject(o, "time_us", r->time_s * 1e6);
	cJSON_AddNumberToObject(o, "algbw_GBps", r->algbw_Bps / 1e9);
	cJSON_AddNumberToObject(o, "busbw_GBps", r->busbw_Bps / 1e9);
	cJSON_AddStringToObject(o, "algorithm", comm_algo_name(r->algo));
	cJSON_AddStringToObject(o, "protocol", comm_proto_name(r->proto));
	return o;
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

int cmd_comm(int argc, char **argv, const struct catalog *cat)
{
	const char *gpu_name = NULL;
	int have_coll = 0, have_bytes = 0, have_sweep = 0, gpn = 0, nodes = 0;
	int nics = -1, have_intra = 0, json = 0, nvl_domain = 0;
	double bytes = 0, nic_gbps = -1, smin = 0, smax = 0;
	enum comm_coll coll = COMM_ALLREDUCE;
	enum comm_algo algo = COMM_ALGO_AUTO;
	enum comm_proto proto = COMM_PROTO_AUTO;
	enum hp_intra intra = INTRA_NVSWITCH;
	enum comm_transport transport = COMM_TRANSPORT_IB;
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", comm_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			cli_usage(stdout, cmd_comm_usage, comm_help);
			return HP_EXIT_OK;
		case O_COLL:
			if (comm_coll_parse(optarg, &coll))
				return usage_error("comm", "collective", "allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv", optarg);
			have_coll = 1;
			break;
		case O_NVL:
			if (hp_parse_int(optarg, &nvl_domain) || nvl_domain < 1 || nvl_domain > 100000)
				return usage_error("comm", "nvl-domain", "GPUs per NVLink domain (1 to 100000)", optarg);
			break;
		case O_BYTES:
			if ((rc = parse_size("bytes", optarg, &bytes)))
				return rc;
			have_bytes = 1;
			break;
		case O_GPU:
			gpu_name = optarg;
			break;
		case O_GPN:
			if (hp_parse_int(optarg, &gpn) || gpn > 1024)
				return usage_error("comm", "gpus-per-node", "an integer from 1 to 1024", optarg);
			break;
		case O_NODES:
			if (hp_parse_int(optarg, &nodes) || nodes > HP_MAX_NODES)
				return usage_error("comm", "nodes", "an integer from 1 to 1000000", optarg);
			break;
		case O_NICS:
			if (!strcmp(optarg, "0"))
				nics = 0;
			else if (hp_parse_int(optarg, &nics))
				return usage_error("comm", "nics", "a whole number of NICs per node", optarg);
			break;
		case O_NICGBPS: {
			char *e;
			nic_gbps = strtod(optarg, &e);
			/* 1 to 1e5 Gb/s, as a cluster file's nic_gbps. */
			if (e == optarg || *e || !(nic_gbps >= 1 && nic_gbps <= 1e5))
				return usage_error("comm", "nic-gbps", "a line rate from 1 to 100000 Gb/s, e.g. 400", optarg);
			break;
		}
		case O_INTRA:
			if (hp_intra_parse(optarg, &intra))
				return usage_error("comm", "intra", "nvswitch, nvlink or pcie", optarg);
			have_intra = 1;
			break;
		case O_TRANSPORT:
			if (comm_transport_parse(optarg, &transport))
				return usage_error("comm", "transport", "ib or efa", optarg);
			break;
		case O_ALGO:
			if (comm_algo_parse(optarg, &algo))
				return usage_error("comm", "algo", "auto, ring, tree, nvls, nvls_tree or pat", optarg);
			break;
		case O_PROTO:
			if (comm_proto_parse(optarg, &proto))
				return usage_error("comm", "proto", "auto, ll, ll128 or simple", optarg);
			break;
		case O_FORMAT:
			if (!strcmp(optarg, "table"))
				json = 0;
			else if (!strcmp(optarg, "json"))
				json = 1;
			else
				return usage_error("comm", "format", "table or json", optarg);
			break;
		case O_SWEEP: {
			const char *colon = strchr(optarg, ':');
			char lo[64] = "";
			size_t n = colon ? (size_t)(colon - optarg) : 0;
			if (n > 0 && n < sizeof lo)
				hp_strlcpy(lo, optarg, n + 1);
			if (!lo[0] || hp_parse_bytes(lo, &smin) ||
			    hp_parse_bytes(colon + 1, &smax) || !(smin >= 1) ||
			    !(smax >= smin) || !isfinite(smax))
				return usage_error("comm", "sweep", "MIN:MAX sizes with 1 <= MIN <= MAX, like 8:1G", optarg);
			have_sweep = 1;
			break;
		}
		case ':':
			fprintf(stderr, "hetplan comm: %s: missing value\n", argv[optind - 1]);
			return HP_EXIT_USAGE;
		default:
			fprintf(stderr, "hetplan comm: unknown option '%s' (see hetplan comm --help)\n",
				argv[optind - 1]);
			return HP_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hetplan comm: unexpected argument '%s'\n", argv[optind]);
		return HP_EXIT_USAGE;
	}
	if (!have_coll) {
		fprintf(stderr, "hetplan comm: --collective: missing; expected allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv\n");
		return HP_EXIT_USAGE;
	}
	if (!have_bytes && !have_sweep) {
		fprintf(stderr, "hetplan comm: --bytes: missing; expected a size like 64K, 1MiB or 4GB (or --sweep MIN:MAX)\n");
		return HP_EXIT_USAGE;
	}
	if (!gpu_name) {
		fprintf(stderr, "hetplan comm: --gpu: missing; expected a GPU name from 'hetplan gpus'\n");
		return HP_EXIT_USAGE;
	}
	if (!gpn) {
		fprintf(stderr, "hetplan comm: --gpus-per-node: missing; expected a positive integer\n");
		return HP_EXIT_USAGE;
	}
	if (!nodes) {
		fprintf(stderr, "hetplan comm: --nodes: missing; expected a positive integer\n");
		return HP_EXIT_USAGE;
	}

	const struct gpu_spec *gpu = catalog_gpu(cat, gpu_name);
	if (!gpu) {
		struct hp_err err = { 0 };
		catalog_gpu_unknown(cat, gpu_name, "--gpu", &err);
		fprintf(stderr, "hetplan: %s\n", err.msg);
		return HP_EXIT_INPUT;
	}
	if ((long)gpn * nodes > 1000000) {
		fprintf(stderr, "hetplan comm: --nodes: expected at most 1000000 GPUs in all, got %d x %d\n",
			nodes, gpn);
		return HP_EXIT_USAGE;
	}
	if (!have_intra)
		intra = gpu->def_intra;
	if (nics < 0)
		nics = gpu->def_nics;
	if (nic_gbps < 0)
		nic_gbps = gpu->def_nic_gbps;

	struct comm_group g;
	memset(&g, 0, sizeof g);
	g.ranks = gpn * nodes;
	g.ranks_per_node = gpn;
	g.oversub = 1;
	/* Nodes on one NVLink fabric larger than a node (GB200 NVL72: 18
	 * trays of 4): the domain is the collective's "node", NVLink inside
	 * it and every tray's NICs across domains. */
	if (nvl_domain <= 0)
		nvl_domain = gpu->domain > gpn && intra != INTRA_PCIE ? gpu->domain : gpn;
	if (nvl_domain > gpn && nvl_domain % gpn == 0) {
		g.ranks_per_node = nvl_domain < g.ranks ? nvl_domain : g.ranks;
		nics *= nvl_domain / gpn;
	}
	comm_fabric_init(&g.fab, gpu, intra, nics, nic_gbps);
	comm_fabric_set_transport(&g.fab, transport);

	struct comm_result r;
	struct hp_err err = { 0 };
	if (!have_sweep) {
		if (comm_time(&g, coll, bytes, algo, proto, &r, &err)) {
			fprintf(stderr, "hetplan %s\n", err.msg);
			return err.code ? err.code : HP_EXIT_INPUT;
		}
		if (json)
			return print_json(result_json(coll, bytes, g.ranks, &r));
		char hb[32];
		printf("collective  %s\n", comm_coll_name(coll));
		printf("bytes       %.0f (%s)\n", bytes, hp_fmt_bytes(hb, sizeof hb, bytes));
		printf("ranks       %d (%d nodes x %d, %s)\n", g.ranks, nodes, gpn, gpu->name);
		printf("algorithm   %s\n", comm_algo_name(r.algo));
		printf("protocol    %s\n", comm_proto_name(r.proto));
		printf("time        %.2f us\n", r.time_s * 1e6);
		printf("algbw       %.2f GB/s\n", r.algbw_Bps / 1e9);
		printf("busbw       %.2f GB/s\n", r.busbw_Bps / 1e9);
		return HP_EXIT_OK;
	}

	/* Sweep: powers of two from MIN (rounded up) to MAX. */
	double S = 1;
	while (S < smin)
		S *= 2;
	cJSON *arr = json ? cJSON_CreateArray() : NULL;
	if (!json) {
		printf("# %s, %d ranks (%d nodes x %d %s)\n", comm_coll_name(coll),
		       g.ranks, nodes, gpn, gpu->name);
		printf("%14s %12s %10s %10s  %-9s %s\n", "size(B)", "time(us)",
		       "algbw", "busbw", "algo", "proto");
	}
	for (; S <= smax; S *= 2) {
		if (comm_time(&g, coll, S, algo, proto, &r, &err)) {
			cJSON_Delete(arr);
			fprintf(stderr, "hetplan %s\n", err.msg);
			return err.code ? err.code : HP_EXIT_INPUT;
		}
		if (json)
			cJSON_AddItemToArray(arr, result_json(coll, S, g.ranks, &r));
		else
			printf("%14.0f %12.2f %10.2f %10.2f  %-9s %s\n", S,
			       r.time_s * 1e6, r.algbw_Bps / 1e9, r.busbw_Bps / 1e9,
			       comm_algo_name(r.algo), comm_proto_name(r.proto));
	}
	return json ? print_json(arr) : HP_EXIT_OK;
}
