/* test_cluster_transport.c — a pool priced from a Google Cloud machine
 * type takes that machine type's fabric; a transport the user gave wins.
 * Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
 *
 * The expectations are Google Cloud's own (its "GPU machine types" page,
 * docs/cloud-transport.md): a3-highgpu-8g carries GPUDirect-TCPX (tcpx),
 * a3-megagpu-8g GPUDirect-TCPXO (tcpxo), a3-ultragpu-8g and a4-highgpu-8g
 * GPUDirect RDMA over RoCE (gcp-rdma); a3-highgpu-1g has no GPUDirect
 * NICs; AWS's p5.48xlarge is not a Google machine type. Only a pool the
 * user placed on Google Cloud (provider gcp) takes it. */
#include "t.h"
#include "cluster.h"
#include "fields.h"
#include "pricing.h"
#include "workspace.h"
#include <stdlib.h>

static struct catalog cat;

/* A book of one on-demand offer: provider, instance, GPU, GPUs. */
static void book_of(struct price_book *pb, struct price_offer *o, const char *provider,
		    const char *inst, const char *gpu, int gpus)
{
	memset(pb, 0, sizeof *pb);
	memset(o, 0, sizeof *o);
	snprintf(o->provider, sizeof o->provider, "%s", provider);
	snprintf(o->region, sizeof o->region, "us-central1");
	snprintf(o->instance, sizeof o->instance, "%s", inst);
	snprintf(o->gpu, sizeof o->gpu, "%s", gpu);
	o->gpus = gpus;
	o->usd_per_gpu_h = 10;
	o->usd_per_instance_h = 10.0 * gpus;
	o->source = -1;
	pb->offers = o;
	pb->n = 1;
}

/* The transport a pool --pool SPEC gets once priced from one offer. */
static enum comm_transport priced(const char *spec, const char *provider, const char *inst,
				  const char *gpu)
{
	struct hp_err err = { 0 };
	struct cluster c;
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, spec, &cat, &err) < 0) {
		T_FAILF("%s: %s", spec, err.msg);
		return COMM_TRANSPORT_COUNT;
	}
	struct price_book pb;
	struct price_offer o;
	book_of(&pb, &o, provider, inst, gpu, c.pools[0].gpus_per_node);
	if (pricing_apply(&pb, &c) != 1) {
		T_FAILF("%s: not priced from %s", spec, inst);
		return COMM_TRANSPORT_COUNT;
	}
	return c.pools[0].transport;
}

TEST(machine_type_sets_transport)
{
	CHECK_EQ_INT(priced("2x8xH100-SXM,provider=gcp", "gcp", "a3-highgpu-8g", "H100-SXM"),
		     COMM_TRANSPORT_TCPX);
	CHECK_EQ_INT(priced("2x8xH100-SXM,provider=gcp", "gcp", "a3-megagpu-8g", "H100-SXM"),
		     COMM_TRANSPORT_TCPXO);
	CHECK_EQ_INT(priced("2x8xH200-SXM,provider=gcp", "gcp", "a3-ultragpu-8g", "H200-SXM"),
		     COMM_TRANSPORT_GCP_RDMA);
	CHECK_EQ_INT(priced("2x8xB200,provider=gcp", "gcp", "a4-highgpu-8g", "B200"),
		     COMM_TRANSPORT_GCP_RDMA);
	/* no GPUDirect NICs on the 1-GPU shape; AWS keeps its default (ib
	 * over p5's 400 Gb/s NICs: EFA is the user's to say) */
	CHECK_EQ_INT(priced("2x1xH100-SXM,provider=gcp", "gcp", "a3-highgpu-1g", "H100-SXM"),
		     COMM_TRANSPORT_IB);
	CHECK_EQ_INT(priced("2x8xH100-SXM", "aws", "p5.48xlarge", "H100-SXM"),
		     COMM_TRANSPORT_IB);
	/* a pool that names no provider is priced from the cheapest offer
	 * anywhere: that price says nothing about its fabric */
	CHECK_EQ_INT(priced("2x8xH100-SXM", "gcp", "a3-megagpu-8g", "H100-SXM"),
		     COMM_TRANSPORT_IB);
}

TEST(explicit_transport_wins)
{
	/* --pool's transport, even the default ib, and a cluster file's */
	CHECK_EQ_INT(priced("2x8xH100-SXM,provider=gcp,transport=ib", "gcp", "a3-megagpu-8g",
			    "H100-SXM"), COMM_TRANSPORT_IB);
	CHECK_EQ_INT(priced("2x8xH100-SXM,provider=gcp,transport=tcpxo", "gcp", "a3-highgpu-8g",
			    "H100-SXM"), COMM_TRANSPORT_TCPXO);
	struct hp_err err = { 0 };
	static const char js[] = "{\"pools\": [{\"gpu\": \"H100-SXM\", \"nodes\": 2, "
				 "\"provider\": \"gcp\", \"transport\": \"ib\"}]}";
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_parse_json(&c, js, sizeof js - 1, "t.json", &cat, &err) == 0);
	struct price_book pb;
	struct price_offer o;
	book_of(&pb, &o, "gcp", "a3-megagpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_IB);
}

/* An editor's change after pricing is the user's; a later offer of
 * another machine type replaces a priced transport; an offer with none
 * puts the default back. */
TEST(repricing)
{
	struct hp_err err = { 0 };
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM,provider=gcp", &cat, &err) == 0);
	struct price_book pb;
	struct price_offer o;
	book_of(&pb, &o, "gcp", "a3-highgpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_TCPX);
	book_of(&pb, &o, "gcp", "a3-megagpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_TCPXO);
	book_of(&pb, &o, "gcp", "a3-highgpu-1g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_IB);
	/* an edit to gcp-rdma (not the default) stays through a re-pricing */
	book_of(&pb, &o, "gcp", "a3-megagpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	c.pools[0].transport = COMM_TRANSPORT_GCP_RDMA;
	book_of(&pb, &o, "gcp", "a3-highgpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_GCP_RDMA);
}

/* A priced transport is not written into a workspace (it is looked up
 * again, as the price is); one the user set is. */
TEST(saved_as_the_user_gave_it)
{
	struct hp_err err = { 0 };
	static const char ws[] =
		"{\"cluster\": {\"pools\": [{\"name\": \"a\", \"gpu\": \"H100-SXM\", \"nodes\": 2,"
		" \"provider\": \"gcp\"}, {\"name\": \"b\", \"gpu\": \"H100-SXM\", \"nodes\": 2,"
		" \"provider\": \"gcp\", \"transport\": \"tcpxo\"}]}, \"model\": \"llama3.1-8b\"}";
	struct workspace w;
	CHECK(workspace_parse(&w, ws, sizeof ws - 1, "w.json", &cat, &err) == 0);
	struct price_book pb;
	struct price_offer o;
	book_of(&pb, &o, "gcp", "a3-highgpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &w.cluster), 2);
	CHECK_EQ_INT(w.cluster.pools[0].transport, COMM_TRANSPORT_TCPX);
	CHECK_EQ_INT(w.cluster.pools[1].transport, COMM_TRANSPORT_TCPXO);
	char *text = workspace_to_string(&w);
	CHECK(text != NULL);
	if (text) {
		CHECK(strstr(text, "\"tcpx\"") == NULL);
		CHECK(strstr(text, "\"tcpxo\"") != NULL);
	}
	free(text);
}

/* A machine type's GPU NICs, as Google's "Networking and GPU machines"
 * page gives them: a3-highgpu-8g four 200 Gb/s NICs for GPU traffic (its
 * fifth, the primary gVNIC, is not NCCL's), a3-megagpu-8g eight 200 Gb/s
 * (1,600 Gb/s), a3-ultragpu-8g and a4-highgpu-8g eight 400 Gb/s
 * ConnectX-7 (3,200 Gb/s), a4x-highgpu-4g four 400 Gb/s per 4 GPUs,
 * a2-highgpu-8g and a2-megagpu-16g one gVNIC at the A2 series' 100 Gb/s.
 * A3 Edge's split of its 800 Gb/s is not given: no NICs. */
TEST(machine_type_nics)
{
	static const struct { const char *name; int gpn, nics; double gbps; } want[] = {
		{ "a3-highgpu-8g", 8, 4, 200 },  { "A3 High", 8, 4, 200 },
		{ "a3-megagpu-8g", 8, 8, 200 },  { "a3-ultragpu-8g", 8, 8, 400 },
		{ "a4-highgpu-8g", 8, 8, 400 },  { "a4x-highgpu-4g", 4, 4, 400 },
		/* an NVL72 rack written as one node of 72: 18 trays x 4 */
		{ "a4x", 72, 72, 400 },
		{ "a2-highgpu-8g", 8, 1, 100 },  { "a2-ultragpu-8g", 8, 1, 100 },
		{ "a2-megagpu-16g", 16, 1, 100 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int n = -1;
		double g = -1;
		CHECK_EQ_INT(cluster_machine_nics(want[i].name, want[i].gpn, &n, &g), 1);
		CHECK_EQ_INT(n, want[i].nics);
		CHECK_NEAR(g, want[i].gbps, 1e-12);
	}
	int n = -1;
	double g = -1;
	/* no NICs for a fabric name, A3 Edge, a node that is not whole
	 * machines, or another cloud's instance */
	static const struct { const char *name; int gpn; } none[] = {
		{ "tcpx", 8 }, { "gib", 8 }, { "a3-edgegpu-8g", 8 }, { "a3-highgpu-8g", 4 },
		{ "a2-megagpu-16g", 8 }, { "p5.48xlarge", 8 },
	};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
		CHECK_EQ_INT(cluster_machine_nics(none[i].name, none[i].gpn, &n, &g), 0);
	CHECK_EQ_INT(n, -1);
	/* the a2 types are sockets: no GPUDirect plugin on the A100 family */
	enum comm_transport t = COMM_TRANSPORT_IB;
	CHECK_EQ_INT(comm_transport_parse("a2-megagpu-16g", &t), 0);
	CHECK_EQ_INT(t, COMM_TRANSPORT_TCP);
}

/* The pool a spec or a cluster file gives. */
static struct pool spec_pool(const char *spec)
{
	struct hp_err err = { 0 };
	struct cluster c;
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, spec, &cat, &err) < 0) {
		T_FAILF("%s: %s", spec, err.msg);
		memset(&c.pools[0], 0, sizeof c.pools[0]);
	}
	return c.pools[0];
}

/* Named as the transport, the machine type sets the NICs the user did not
 * give; H100's catalog node is 8 x 400 otherwise. */
TEST(named_machine_type_sets_nics)
{
	struct pool p = spec_pool("4x8xH100-SXM,transport=a3-highgpu-8g");
	CHECK_EQ_INT(p.transport, COMM_TRANSPORT_TCPX);
	CHECK_EQ_INT(p.nics, 4);
	CHECK_NEAR(p.nic_gbps, 200, 1e-12);
	p = spec_pool("4x8xH100-SXM,transport=a3-mega");
	CHECK_EQ_INT(p.nics, 8);
	CHECK_NEAR(p.nic_gbps, 200, 1e-12);
	p = spec_pool("4x8xH100-SXM,transport=tcpx");
	CHECK_EQ_INT(p.nics, 8);
	CHECK_NEAR(p.nic_gbps, 400, 1e-12);
	/* the user's value wins, key by key */
	p = spec_pool("4x8xH100-SXM,nics=2,transport=a3-highgpu-8g");
	CHECK_EQ_INT(p.nics, 2);
	CHECK_NEAR(p.nic_gbps, 200, 1e-12);
	p = spec_pool("4x8xH100-SXM,transport=a3-highgpu-8g,nic_gbps=100");
	CHECK_EQ_INT(p.nics, 4);
	CHECK_NEAR(p.nic_gbps, 100, 1e-12);
	/* a2: sockets over one 100 Gb/s gVNIC */
	p = spec_pool("2x8xA100,transport=a2-highgpu-8g");
	CHECK_EQ_INT(p.transport, COMM_TRANSPORT_TCP);
	CHECK_EQ_INT(p.nics, 1);
	CHECK_NEAR(p.nic_gbps, 100, 1e-12);
	struct hp_err err = { 0 };
	static const char js[] = "{\"pools\": [{\"gpu\": \"H100-SXM\", \"nodes\": 2, "
				 "\"transport\": \"a3-megagpu-8g\", \"nic_gbps\": 100}]}";
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_parse_json(&c, js, sizeof js - 1, "t.json", &cat, &err) == 0);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_TCPXO);
	CHECK_EQ_INT(c.pools[0].nics, 8);
	CHECK_NEAR(c.pools[0].nic_gbps, 100, 1e-12);
}

/* Priced from a machine type on Google Cloud, a pool takes its NICs too; a
 * later offer of another type replaces them, one with none puts the
 * catalog's back (H100: 8 x 400); NICs the user gave or edited stay. */
TEST(priced_machine_type_sets_nics)
{
	struct hp_err err = { 0 };
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM,provider=gcp", &cat, &err) == 0);
	struct price_book pb;
	struct price_offer o;
	book_of(&pb, &o, "gcp", "a3-highgpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].nics, 4);
	CHECK_NEAR(c.pools[0].nic_gbps, 200, 1e-12);
	book_of(&pb, &o, "gcp", "a3-megagpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].nics, 8);
	CHECK_NEAR(c.pools[0].nic_gbps, 200, 1e-12);
	book_of(&pb, &o, "gcp", "a3-highgpu-1g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].nics, 8);
	CHECK_NEAR(c.pools[0].nic_gbps, 400, 1e-12);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_IB);
	/* an edit after pricing is the user's */
	book_of(&pb, &o, "gcp", "a3-highgpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	c.pools[0].nic_gbps = 100;
	book_of(&pb, &o, "gcp", "a3-megagpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].nics, 8);
	CHECK_NEAR(c.pools[0].nic_gbps, 100, 1e-12);
	/* --pool's nics stays */
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM,provider=gcp,nics=2", &cat, &err) == 0);
	book_of(&pb, &o, "gcp", "a3-highgpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].nics, 2);
	CHECK_NEAR(c.pools[0].nic_gbps, 200, 1e-12);
	/* an A100 pool on Google Cloud priced from a2-highgpu-8g runs NCCL
	 * over sockets on one 100 Gb/s NIC, not InfiniBand */
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xA100-SXM4-40GB,provider=gcp", &cat, &err) == 0);
	book_of(&pb, &o, "gcp", "a2-highgpu-8g", "A100-SXM4-40GB", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 1);
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_TCP);
	CHECK_EQ_INT(c.pools[0].nics, 1);
	CHECK_NEAR(c.pools[0].nic_gbps, 100, 1e-12);
}

/* A workspace saved after pricing and loaded again is priced as the
 * one saved: the NICs a3-highgpu-8g gave (4 x 200 Gb/s) were looked up,
 * not given, so a3-megagpu-8g's offer gives its own 8 x 200 Gb/s (as
 * priced_machine_type_sets_nics without the round trip), while NICs the
 * user wrote (nics 2) stay 2 through the round trip and the re-pricing. */
TEST(saved_priced_nics_are_looked_up_again)
{
	struct hp_err err = { 0 };
	static const char ws[] =
		"{\"cluster\": {\"pools\": [{\"name\": \"a\", \"gpu\": \"H100-SXM\", \"nodes\": 2,"
		" \"provider\": \"gcp\"}, {\"name\": \"b\", \"gpu\": \"H100-SXM\", \"nodes\": 2,"
		" \"provider\": \"gcp\", \"nics\": 2}]}, \"model\": \"llama3.1-8b\"}";
	struct workspace w, w2;
	CHECK(workspace_parse(&w, ws, sizeof ws - 1, "w.json", &cat, &err) == 0);
	struct price_book pb;
	struct price_offer o;
	book_of(&pb, &o, "gcp", "a3-highgpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &w.cluster), 2);
	CHECK_EQ_INT(w.cluster.pools[0].nics, 4);
	char *text = workspace_to_string(&w);
	CHECK(text != NULL);
	if (!text)
		return;
	CHECK(workspace_parse(&w2, text, strlen(text), "w.json", &cat, &err) == 0);
	free(text);
	book_of(&pb, &o, "gcp", "a3-megagpu-8g", "H100-SXM", 8);
	CHECK_EQ_INT(pricing_apply(&pb, &w2.cluster), 2);
	CHECK_EQ_INT(w2.cluster.pools[0].transport, COMM_TRANSPORT_TCPXO);
	CHECK_EQ_INT(w2.cluster.pools[0].nics, 8);
	CHECK_NEAR(w2.cluster.pools[0].nic_gbps, 200, 1e-12);
	CHECK_EQ_INT(w2.cluster.pools[1].nics, 2);
	CHECK_NEAR(w2.cluster.pools[1].nic_gbps, 200, 1e-12);
}

/* The transport key's documentation (--help, docs/formats.md, the man
 * page) names every machine type of the table that sets NICs, with its
 * NIC count and speed as the table has them. */
TEST(doc_names_every_machine_type)
{
	char list[1024];
	cluster_machine_list(list, sizeof list);
	const struct hp_field *f = fields_find_key(&pool_fields, "transport");
	CHECK(f != NULL && f->doc != NULL);
	if (!f || !f->doc)
		return;
	/* "a3-highgpu-8g 4 x 200 Gb/s, a3-megagpu-8g 8 x 200 Gb/s, ..." */
	int n = 0;
	for (char *save = NULL, *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char name[32], quoted[40];
		int nics;
		double gbps;
		if (sscanf(e, " %31s %d x %lf", name, &nics, &gbps) != 3) {
			T_FAILF("cluster_machine_list entry '%s'", e);
			continue;
		}
		snprintf(quoted, sizeof quoted, "`%s`", name);
		CHECK_CONTAINS(f->doc, quoted);
		n++;
	}
	CHECK_EQ_INT(n, 8);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent/hetplan-test-config", &err) < 0) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return 1;
	}
	RUN(machine_type_sets_transport);
	RUN(explicit_transport_wins);
	RUN(repricing);
	RUN(saved_as_the_user_gave_it);
	RUN(machine_type_nics);
	RUN(named_machine_type_sets_nics);
	RUN(priced_machine_type_sets_nics);
	RUN(saved_priced_nics_are_looked_up_again);
	RUN(doc_names_every_machine_type);
	return t_done("cluster_transport");
}
