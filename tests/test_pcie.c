/* test_pcie.c — the pool key pcie (the host's PCIe link per GPU:
 * generation and lanes) and the rates it sets.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
 *
 * The expectations are hand calculations from the PCI Express rates and
 * from measurements (docs/pcie.md):
 *  - raw rate a direction = GT/s a lane x lanes x 128/130 / 8 bits: Gen4
 *    x8 = 16 x 8 x 128/130 / 8 = 15.754 GB/s, the same as Gen3 x16 = 8 x
 *    16 x 128/130 / 8, and half of Gen4 x16's 31.51;
 *  - NCCL's own figure for a PCI link is width x per-lane rate / 80 GB/s
 *    (NVIDIA/nccl src/graph/topo.cc, ncclTopoAddPci; 120 x 100 Mb/s a lane
 *    at Gen4): 8 x 120 / 80 = 12.0 GB/s at Gen4 x8;
 *  - a desktop with two RTX 3090 Ti on PCIe 4.0 x8 copied 6.23 GB/s one
 *    way through host memory with P2P off (mli/transformers-benchmarks
 *    transformers.ipynb @cd48272, p2pBandwidthLatencyTest): a device-to-
 *    host and a host-to-device leg in turn, 2 x 6.23 = 12.46 GB/s a link;
 *  - without P2P, NCCL's host-memory path is 0.325 of the link, at most
 *    4.43 GB/s (src/comm.c SHM_EFF, SHM_HOST_BPS: a Gen3 x16 SHM
 *    all-reduce 3.9 GB/s, NVIDIA/nccl issue #384; a DGX A100 3.86-5.20). */
#include "t.h"
#include "cluster.h"
#include "comm.h"
#include "fields.h"
#include "workspace.h"
#include <stdlib.h>

static struct catalog cat;

/* Pool 0 of a one-pool --pool spec; 0 on success. */
static int spec_pool(const char *spec, struct pool *out, struct hp_err *err)
{
	struct cluster c;
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, spec, &cat, err) < 0)
		return -1;
	*out = c.pools[0];
	return 0;
}

/* The scale-up rate the comm model prices a pool's in-node hop at. */
static double intra_rate(const struct pool *p)
{
	struct comm_fabric f;
	comm_fabric_init(&f, &p->gpu, p->intra, p->nics, p->nic_gbps);
	return f.intra_Bps;
}

TEST(link_by_lanes_hand)
{
	double raw_x8 = 16e9 * 8 * 128.0 / 130.0 / 8;   /* 15.754 GB/s */
	double g4x8 = comm_pcie_link_Bps(4, 8);
	/* between NCCL's 12.0 and the desktop's 12.46, within 7% of each */
	CHECK_NEAR(g4x8, 12.0e9, 0.07);
	CHECK_NEAR(g4x8, 2 * 6.23e9, 0.05);
	/* an achieved share of the raw rate, 0.75 (NCCL) to 0.82 */
	CHECK(g4x8 / raw_x8 >= 0.75 && g4x8 / raw_x8 <= 0.82);
	/* Gen4 x8 has Gen3 x16's raw rate; the achievable figures agree to
	 * 7% (12.8 against NCCL's Gen3 x16 12 GB/s) */
	CHECK_NEAR(g4x8, comm_pcie_link_Bps(3, 16), 0.07);
	/* half the lanes, half the rate; a quarter at x4 */
	CHECK_NEAR(comm_pcie_link_Bps(4, 16) / g4x8, 2.0, 1e-12);
	CHECK_NEAR(comm_pcie_link_Bps(4, 16) / comm_pcie_link_Bps(4, 4), 4.0, 1e-12);
	/* Gen5 x4: 32 x 4 = 128 GT/s of lanes, Gen4 x8's */
	CHECK_NEAR(comm_pcie_link_Bps(5, 4), g4x8, 1e-12);
	/* no lane count (a gpu_spec built by hand) reads as x16 */
	CHECK_NEAR(comm_pcie_link_Bps(4, 0), comm_pcie_link_Bps(4, 16), 1e-12);
}

TEST(pool_key_sets_the_link)
{
	struct hp_err err = { 0 };
	struct pool p;
	CHECK(spec_pool("1x2xRTX-3090-Ti,pcie=4.0x8", &p, &err) == 0);
	CHECK_EQ_INT(p.gpu.pcie_gen, 4);
	CHECK_EQ_INT(p.gpu.pcie_lanes, 8);
	/* the pool's raw slot rate: 15.754 GB/s (hand, above) */
	CHECK_NEAR(p.intra_Bps, 16e9 * 8 * 128.0 / 130.0 / 8, 0.001);
	/* the catalog's usual host: x16 */
	CHECK(spec_pool("1x2xRTX-3090-Ti", &p, &err) == 0);
	CHECK_EQ_INT(p.gpu.pcie_lanes, 16);
	CHECK_EQ_INT(p.pcie_set, 0);
	/* the spellings */
	static const char *const ok[] = { "4x8", "gen4x8", "Gen4 x8", "GEN4.0X8", "4.0 x8" };
	for (size_t i = 0; i < HP_ARRAY_LEN(ok); i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "1x2xRTX-3090-Ti,pcie=%s", ok[i]);
		if (spec_pool(spec, &p, &err) < 0 || p.gpu.pcie_gen != 4 || p.gpu.pcie_lanes != 8)
			T_FAILF("%s: not read as Gen4 x8 (%s)", spec, err.msg);
	}
	/* a Gen3 host under a Gen4 card: the link trains to the lower */
	CHECK(spec_pool("1x2xRTX-4090,pcie=3.0x16", &p, &err) == 0);
	CHECK_NEAR(comm_pcie_link_Bps(p.gpu.pcie_gen, p.gpu.pcie_lanes), 12e9, 1e-12);
	/* and a Gen5 host over a Gen4 card (the RTX 4090 is PCIe 4.0 x16,
	 * NVIDIA's datasheet): Gen4, 25.6 GB/s a direction at x16 (the
	 * x16 figure of comm_pcie_Bps), not Gen5's 51.2 */
	CHECK(spec_pool("1x2xRTX-4090,pcie=5.0x16", &p, &err) == 0);
	CHECK_EQ_INT(p.gpu.pcie_gen, 4);
	CHECK_NEAR(comm_pcie_link_Bps(p.gpu.pcie_gen, p.gpu.pcie_lanes), 25.6e9, 1e-12);
}

TEST(bad_link_refused)
{
	static const char *const bad[] = { "4.0x9", "4.0x12", "4.0x32", "2.0x16", "7.0x16",
					   "4.1x8", "4.0x", "x8", "4.0x0016", "4.0x8 ", "4", "",
					   "4.0x-8", "44x8" };
	for (size_t i = 0; i < HP_ARRAY_LEN(bad); i++) {
		struct hp_err err = { 0 };
		struct pool p;
		memset(&p, 0, sizeof p);
		char spec[64];
		snprintf(spec, sizeof spec, "1x2xRTX-3090-Ti,pcie=%s", bad[i]);
		if (spec_pool(spec, &p, &err) == 0 && *bad[i]) {
			T_FAILF("%s: accepted", spec);
			continue;
		}
		/* "" (the TUI's way back to the catalog) is the catalog's link */
		if (!*bad[i]) {
			CHECK_EQ_INT(p.gpu.pcie_lanes, 16);
			continue;
		}
		CHECK(strstr(err.msg, "--pool") && strstr(err.msg, "pcie"));
	}
	/* a cluster file names the file, the pool and the key */
	static const char js[] = "{\"pools\": [{\"gpu\": \"RTX-3090-Ti\", \"nodes\": 1, "
				 "\"gpus_per_node\": 2, \"pcie\": \"4.0x9\"}]}";
	static const char jn[] = "{\"pools\": [{\"gpu\": \"RTX-3090-Ti\", \"nodes\": 1, "
				 "\"gpus_per_node\": 2, \"pcie\": 8}]}";
	struct hp_err err = { 0 };
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_parse_json(&c, js, sizeof js - 1, "c.json", &cat, &err) < 0);
	CHECK(strstr(err.msg, "c.json") && strstr(err.msg, "pools[0]") &&
	      strstr(err.msg, "pcie"));
	cluster_init(&c);
	CHECK(cluster_parse_json(&c, jn, sizeof jn - 1, "c.json", &cat, &err) < 0);
	CHECK(strstr(err.msg, "pcie") != NULL);
}

/* Through host memory (no P2P): 0.325 of the link, at most 4.43 GB/s. */
TEST(host_memory_path_by_lanes)
{
	struct hp_err err = { 0 };
	struct pool p;
	CHECK(spec_pool("1x2xRTX-3090-Ti", &p, &err) == 0);
	CHECK_NEAR(intra_rate(&p), 4.43e9, 1e-9);              /* 0.325 x 25.6 = 8.32: capped */
	CHECK(spec_pool("1x2xRTX-3090-Ti,pcie=4.0x8", &p, &err) == 0);
	CHECK_NEAR(intra_rate(&p), 0.325 * 12.8e9, 1e-9);      /* 4.16 GB/s */
	/* within the measured Gen3 x16 SHM rates, 3.9-4.0 GB/s (same raw
	 * link), to 7% */
	CHECK_NEAR(intra_rate(&p), 3.95e9, 0.07);
	CHECK(spec_pool("1x2xRTX-3090-Ti,pcie=4.0x4", &p, &err) == 0);
	CHECK_NEAR(intra_rate(&p), 0.325 * 6.4e9, 1e-9);       /* 2.08 GB/s */
	/* with P2P over PCIe (RTX A6000): the link itself */
	CHECK(spec_pool("1x2xRTX-A6000,pcie=4.0x8", &p, &err) == 0);
	CHECK_NEAR(intra_rate(&p), 12.8e9, 1e-9);
	CHECK(spec_pool("1x2xRTX-A6000", &p, &err) == 0);
	CHECK_NEAR(intra_rate(&p), 25.6e9, 1e-9);
	/* an NVLink pair keeps its bridge; only the PCIe figure moves */
	CHECK(spec_pool("1x2xRTX-3090-Ti,intra=nvlink,pcie=4.0x8", &p, &err) == 0);
	struct comm_fabric f;
	comm_fabric_init(&f, &p.gpu, p.intra, p.nics, p.nic_gbps);
	CHECK(f.intra == INTRA_NVLINK && f.intra_Bps > 40e9);
	CHECK_NEAR(f.pcie_Bps, 12.8e9, 1e-9);
}

/* Saved when given, read back the same; the TUI's empty entry gives the
 * catalog's link back. */
TEST(saved_and_cleared)
{
	struct hp_err err = { 0 };
	static const char ws[] =
		"{\"cluster\": {\"pools\": [{\"name\": \"a\", \"gpu\": \"RTX-3090-Ti\", "
		"\"nodes\": 1, \"gpus_per_node\": 2, \"pcie\": \"gen4x8\"}, {\"name\": \"b\", "
		"\"gpu\": \"RTX-4090\", \"nodes\": 1, \"gpus_per_node\": 2}]}, "
		"\"model\": \"llama3.1-8b\"}";
	struct workspace w;
	CHECK(workspace_parse(&w, ws, sizeof ws - 1, "w.json", &cat, &err) == 0);
	CHECK_EQ_INT(w.cluster.pools[0].gpu.pcie_lanes, 8);
	char *text = workspace_to_string(&w);
	CHECK(text != NULL);
	if (text) {
		CHECK(strstr(text, "\"4.0x8\"") != NULL);
		/* once: pool b's catalog link is not written */
		const char *at = strstr(text, "\"pcie\":");
		CHECK(at && !strstr(at + 1, "\"pcie\":"));
		struct workspace w2;
		CHECK(workspace_parse(&w2, text, strlen(text), "w2.json", &cat, &err) == 0);
		CHECK_EQ_INT(w2.cluster.pools[0].gpu.pcie_lanes, 8);
		CHECK_EQ_INT(w2.cluster.pools[1].gpu.pcie_lanes, 16);
	}
	free(text);
	const struct hp_field *f = fields_find_key(&pool_fields, "pcie");
	CHECK(f != NULL);
	if (!f)
		return;
	struct pool *p = &w.cluster.pools[0];
	char want[FIELDS_WANT_MAX], buf[32];
	CHECK(fields_parse_text(f, p, "", want, sizeof want) == 0);
	CHECK_EQ_INT(p->gpu.pcie_gen, 4);
	CHECK_EQ_INT(p->gpu.pcie_lanes, 16);
	CHECK_EQ_INT(p->pcie_set, 0);
	CHECK(!strcmp(fields_format(f, p, buf, sizeof buf), "4.0x16"));
	/* the slot rate of a PCIe pool follows an edit, as a file gives
	 * it: Gen4 x16 raw 16 GT/s x 16 x 128/130 / 8 = 31.5 GB/s */
	CHECK_NEAR(p->intra_Bps, 16e9 * 16 * 128.0 / 130.0 / 8, 0.001);
	CHECK(fields_parse_text(f, p, "3.0x8", want, sizeof want) == 0);
	CHECK(!strcmp(fields_format(f, p, buf, sizeof buf), "3.0x8"));
	/* Gen3 x8: 8 GT/s x 8 x 128/130 / 8 = 7.88 GB/s */
	CHECK_NEAR(p->intra_Bps, 8e9 * 8 * 128.0 / 130.0 / 8, 0.001);
	CHECK(fields_parse_text(f, p, "4.0x3", want, sizeof want) < 0);
	CHECK(!strcmp(fields_format(f, p, buf, sizeof buf), "3.0x8"));
	/* the RTX 3090 Ti is a PCIe 4.0 card: a Gen5 host gives Gen4 */
	CHECK(fields_parse_text(f, p, "5.0x4", want, sizeof want) == 0);
	CHECK(!strcmp(fields_format(f, p, buf, sizeof buf), "4.0x4"));
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return 1;
	}
	RUN(link_by_lanes_hand);
	RUN(pool_key_sets_the_link);
	RUN(bad_link_refused);
	RUN(host_memory_path_by_lanes);
	RUN(saved_and_cleared);
	return t_done("pcie");
}
