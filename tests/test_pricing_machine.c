/* test_pricing_machine.c — a cloud machine type means one thing: the GPUs
 * of a Google Cloud machine type, the machine a pool is priced as, the
 * price row chosen for it (that instance first, a fallback that says
 * so), the GCP host VM paired with its own accelerator, and the AWS and
 * Azure instances the SKU table names for a pool's GPU and node size.
 * Expected prices are worked out by hand from data/prices.csv rows (the
 * embedded snapshot), quoted in the comments. Run from the repository
 * root. */
#include "t.h"
#include "pricing_int.h"

#include <math.h>
#include <stdlib.h>

static struct catalog cat;

/* One pool priced from the embedded snapshot. */
static int price_one(const char *spec, struct cluster *c, struct hp_err *err)
{
	struct price_book pb;
	cluster_init(c);
	if (cluster_add_pool_spec(c, spec, &cat, err) < 0) {
		fprintf(stderr, "%s\n", err->msg);
		return -1;
	}
	if (pricing_load_embedded(&pb, &cat, err) < 0) {
		fprintf(stderr, "%s\n", err->msg);
		pricing_free(&pb);
		return -1;
	}
	int n = pricing_apply(&pb, c);
	pricing_free(&pb);
	return n;
}

/* GPUs per machine (Google Cloud "GPU machine types": A3 High, Edge, Mega,
 * Ultra and A4 8 GPUs, A4X 4, A2 a2-highgpu-8g/a2-ultragpu-8g 8,
 * a2-megagpu-16g 16); fabric names and other clouds' instances 0. */
TEST(machine_gpus)
{
	CHECK_EQ_INT(cluster_machine_gpus("a3-highgpu-8g"), 8);
	CHECK_EQ_INT(cluster_machine_gpus("a3-edgegpu-8g"), 8);
	CHECK_EQ_INT(cluster_machine_gpus("a3-edge"), 8);
	CHECK_EQ_INT(cluster_machine_gpus("A3-MEGA"), 8);
	CHECK_EQ_INT(cluster_machine_gpus("a3-ultragpu-8g"), 8);
	CHECK_EQ_INT(cluster_machine_gpus("a4-highgpu-8g"), 8);
	CHECK_EQ_INT(cluster_machine_gpus("a4x"), 4);
	CHECK_EQ_INT(cluster_machine_gpus("a2-ultragpu-8g"), 8);
	CHECK_EQ_INT(cluster_machine_gpus("a2-megagpu-16g"), 16);
	CHECK_EQ_INT(cluster_machine_gpus("tcpxo"), 0);
	CHECK_EQ_INT(cluster_machine_gpus("gib"), 0);
	CHECK_EQ_INT(cluster_machine_gpus("omni-path"), 0);
	CHECK_EQ_INT(cluster_machine_gpus("p5.48xlarge"), 0);
	CHECK_EQ_INT(cluster_machine_gpus(""), 0);
	CHECK_STR(cluster_machine_type("a3-mega"), "a3-megagpu-8g");
	CHECK_STR(cluster_machine_type("a4x"), "a4x-highgpu-4g");
	CHECK_STR(cluster_machine_type("a2-highgpu-8g"), "a2-highgpu-8g");
	CHECK(cluster_machine_type("gib") == NULL);
}

/* Every shape of a series: GCP bills A3 Mega's GPUs as their own
 * accelerator, nvidia-h100-mega-80gb, which SkyPilot's GCP catalog writes
 * "H100-MEGA" (in 8s only), apart from A3 High's nvidia-h100-80gb "H100". */
TEST(machine_series)
{
	const char *acc = NULL, *gpu = NULL;
	int n = 0;
	CHECK(cluster_machine_series("a3-highgpu-4g", &acc, &gpu, &n) == 0);
	CHECK_STR(acc, "H100");
	CHECK_STR(gpu, "H100-SXM");
	CHECK_EQ_INT(n, 4);
	CHECK(cluster_machine_series("a3-megagpu-8g", &acc, &gpu, &n) == 0);
	CHECK_STR(acc, "H100-MEGA");
	CHECK_EQ_INT(n, 8);
	CHECK(cluster_machine_series("a2-ultragpu-1g", &acc, &gpu, &n) == 0);
	CHECK_STR(acc, "A100-80GB");
	CHECK_STR(gpu, "A100-SXM4-80GB");
	CHECK_EQ_INT(n, 1);
	CHECK(cluster_machine_series("a2-megagpu-16g", &acc, &gpu, &n) == 0);
	CHECK_EQ_INT(n, 16);
	/* the -nolssd shapes are other products; nothing set */
	CHECK(cluster_machine_series("a3-edgegpu-8g-nolssd", &acc, &gpu, &n) < 0);
	CHECK(cluster_machine_series("a3-highgpu-g", &acc, &gpu, &n) < 0);
	CHECK(cluster_machine_series("n1-highmem-8", &acc, &gpu, &n) < 0);
	/* G2: the GPUs follow the vCPUs (g2-standard-32 is one L4, -24 two,
	 * -48 four, -96 eight: Google Cloud "GPU machine types", G2) */
	const char *label;
	double cnt;
	CHECK(pricing_gcp_host_gpus("g2-standard-32", &label, &cnt) == 0);
	CHECK_STR(label, "L4");
	CHECK_NEAR(cnt, 1, 0);
	CHECK(pricing_gcp_host_gpus("g2-standard-24", &label, &cnt) == 0);
	CHECK_NEAR(cnt, 2, 0);
	CHECK(pricing_gcp_host_gpus("g2-standard-96", &label, &cnt) == 0);
	CHECK_NEAR(cnt, 8, 0);
}

/* One machine type, one GPU: the machine table's GPU is a catalog GPU,
 * and the accelerator name its price rows carry resolves (the price
 * book's label table, else the catalog's names) to that same GPU. */
TEST(tables_agree)
{
	static const char *const types[] = {
		"a3-highgpu-8g", "a3-edgegpu-8g", "a3-megagpu-8g", "a3-ultragpu-8g",
		"a4-highgpu-8g", "a2-highgpu-8g", "a2-ultragpu-8g", "a2-megagpu-16g",
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(types); i++) {
		const char *acc = NULL, *gpu = NULL;
		int n = 0;
		CHECK(cluster_machine_series(types[i], &acc, &gpu, &n) == 0);
		CHECK_EQ_INT(n, cluster_machine_gpus(types[i]));
		const struct gpu_spec *g = gpu ? catalog_gpu(&cat, gpu) : NULL;
		CHECK(g != NULL);
		const char *lab = acc ? pricing_label_gpu("gcp", acc) : NULL;
		const struct gpu_spec *a = catalog_gpu(&cat, lab ? lab : acc ? acc : "");
		if (!g || !a || strcmp(g->name, a->name))
			T_FAILF("%s: table GPU %s, price label %s reads as %s", types[i],
				gpu ? gpu : "-", acc ? acc : "-", a ? a->name : "nothing");
	}
}

/* The machine a pool is priced as. */
TEST(pool_machine)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=a,transport=a3-mega", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=b,transport=tcpxo", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=c,transport=tcpx", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x16xH100-SXM,name=d,transport=a3-high", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=e,transport=ib", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x8xB200,name=f,transport=gcp-rdma", &cat, &err) == 0);
	CHECK_EQ_INT(c.n_pools, 6);
	if (c.n_pools != 6)
		return;
	CHECK_STR(cluster_pool_machine(&c.pools[0]), "a3-megagpu-8g");
	/* the one tcpxo machine type of H100 */
	CHECK_STR(cluster_pool_machine(&c.pools[1]), "a3-megagpu-8g");
	/* tcpx on H100 is a3-highgpu-8g or a3-edgegpu-8g: neither */
	CHECK(cluster_pool_machine(&c.pools[2]) == NULL);
	/* two machines a node */
	CHECK_STR(cluster_pool_machine(&c.pools[3]), "a3-highgpu-8g");
	CHECK(cluster_pool_machine(&c.pools[4]) == NULL);
	CHECK_STR(cluster_pool_machine(&c.pools[5]), "a4-highgpu-8g");
	/* an editor that sets another fabric drops the machine type */
	c.pools[0].transport = COMM_TRANSPORT_IB;
	CHECK(cluster_pool_machine(&c.pools[0]) == NULL);
}

/* data/prices.csv:
 *   gcp,a2-megagpu-16g,,,96.0,1360.0,,8.79698,4.39824,us-central1,us-central1-a
 *   gcp,,A100,16,,,{...40960...},46.94253,22.9456,us-central1,us-central1-a
 * a2-megagpu-16g on demand: 8.79698 + 46.94253 = 55.73951 a node of 16,
 * 3.483719375 $/GPU-h. */
TEST(exact_machine_type)
{
	struct cluster c;
	struct hp_err err = { 0 };
	CHECK_EQ_INT(price_one("2x16xA100-SXM4-40GB,provider=gcp,transport=a2-megagpu-16g", &c,
			       &err), 1);
	CHECK_NEAR(c.pools[0].usd_per_node_h, 55.73951, 1e-12);
	CHECK_NEAR(c.pools[0].usd_per_node_h / 16, 3.483719375, 1e-12);
	CHECK_STR(c.pools[0].price_source,
		  "gcp a2-megagpu-16g us-central1 on-demand; embedded snapshot");
	/* gcp,a2-ultragpu-8g,,,96.0,1360.0,,8.79698,...,us-central1-a and
	 * gcp,,A100-80GB,8,,,...,14.76958,15.712,us-central1,us-central1-a:
	 * (8.79698 + 14.76958) / 8 = 2.94582 $/GPU-h */
	CHECK_EQ_INT(price_one("1x8xA100-SXM4-80GB,provider=gcp,transport=a2-ultragpu-8g", &c,
			       &err), 1);
	CHECK_NEAR(c.pools[0].usd_per_node_h / 8, 2.94582, 1e-12);
	CHECK_CONTAINS(c.pools[0].price_source, "gcp a2-ultragpu-8g us-central1 on-demand;");
}

/* No offer of the machine type: the old choice, said to be one. The
 * snapshot's only priced GCP H100 is
 *   gcp,a3-highgpu-1g,,,26.0,234.0,,1.18251,0.36117,us-central1,us-central1-a
 *   gcp,,H100,1,,,{...81920...},4.20076,2.9926,us-central1,us-central1-a
 * 1.18251 + 4.20076 = 5.38327 $/GPU-h, 43.06616 a node of 8. */
TEST(fallback_says_so)
{
	struct cluster c;
	struct hp_err err = { 0 };
	CHECK_EQ_INT(price_one("2x8xH100-SXM,provider=gcp,transport=a3-megagpu-8g", &c, &err), 1);
	CHECK_NEAR(c.pools[0].usd_per_node_h, 43.06616, 1e-12);
	/* a node of 8 GPUs priced from a 1-GPU machine: its price x 8 */
	CHECK_STR(c.pools[0].price_source,
		  "gcp a3-highgpu-1g us-central1 on-demand x 8 (fallback: no a3-megagpu-8g offer); "
		  "embedded snapshot");
	/* two a2-highgpu-8g a node: no a2-highgpu-8g offer (no 8-GPU A100
	 * 40GB accelerator row); the 16-GPU node size's offer, a2-megagpu-16g */
	CHECK_EQ_INT(price_one("1x16xA100-SXM4-40GB,provider=gcp,transport=a2-highgpu-8g", &c,
			       &err), 1);
	CHECK_NEAR(c.pools[0].usd_per_node_h, 55.73951, 1e-12);
	CHECK_CONTAINS(c.pools[0].price_source, "a2-megagpu-16g us-central1 on-demand "
						"(fallback: no a2-highgpu-8g offer);");
	/* a pool of no machine type says nothing of one */
	CHECK_EQ_INT(price_one("1x8xH100-SXM,provider=gcp", &c, &err), 1);
	CHECK_STR(c.pools[0].price_source,
		  "gcp a3-highgpu-1g us-central1 on-demand x 8; embedded snapshot");
	/* a node of 8 A100 40GB priced from the 16-GPU a2-megagpu-16g: half
	 * the machine's 55.73951 $/h, 27.869755, and the source says "/ 2"
	 * (the text showed the 16-GPU machine with no word of the half) */
	CHECK_EQ_INT(price_one("1x8xA100-SXM4-40GB,provider=gcp", &c, &err), 1);
	CHECK_NEAR(c.pools[0].usd_per_node_h, 55.73951 / 2, 1e-12);
	CHECK_STR(c.pools[0].price_source,
		  "gcp a2-megagpu-16g us-central1 on-demand / 2; embedded snapshot");
}

/* A GCP host pairs with its own accelerator. Host rows as SkyPilot's GCP
 * catalog has them (skypilot-org/skypilot-catalog catalogs/v8/gcp/vms.csv
 * @8427bbff: a3-highgpu-8g and a3-megagpu-8g, us-central1-a, 9.46006 on
 * demand, 2.75246 spot); the two accelerator prices are made up, apart,
 * to tell them apart: H100 x 8 80.0, H100-MEGA x 8 88.0.
 * a3-highgpu-8g: (9.46006 + 80) / 8 = 11.1825075;
 * a3-megagpu-8g: (9.46006 + 88) / 8 = 12.1825075. */
TEST(gcp_pairs_own_accelerator)
{
	static const char csv[] =
		"InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
		"AvailabilityZone,Price,SpotPrice\n"
		"a3-highgpu-8g,208.0,1872.0,,,,us-central1,us-central1-a,9.46006,2.75246\n"
		"a3-megagpu-8g,208.0,1872.0,,,,us-central1,us-central1-a,9.46006,2.75246\n"
		"a3-edgegpu-8g-nolssd,208.0,1872.0,,,,us-central1,us-central1-a,9.46006,2.75246\n"
		",,,H100,8,,us-central1,us-central1-a,80.0,20.0\n"
		",,,H100-MEGA,8,,us-central1,us-central1-a,88.0,24.0\n";
	struct price_book pb;
	struct hp_err err = { 0 };
	memset(&pb, 0, sizeof pb);
	int src = pricing_add_source(&pb, "skypilot:gcp", "", PRICE_LIVE, 1);
	CHECK(pricing_parse_skypilot(&pb, src, "gcp", csv, strlen(csv), &cat, "gcp.csv", &err) == 0);
	pricing_finish(&pb);
	int high = 0, mega = 0, other = 0;
	for (int i = 0; i < pb.n; i++) {
		const struct price_offer *o = &pb.offers[i];
		if (o->spot || (o->flags & PF_GPU_ONLY))
			continue;
		if (!strcmp(o->instance, "a3-highgpu-8g")) {
			high++;
			CHECK_NEAR(o->usd_per_gpu_h, 11.1825075, 1e-12);
		} else if (!strcmp(o->instance, "a3-megagpu-8g")) {
			mega++;
			CHECK_NEAR(o->usd_per_gpu_h, 12.1825075, 1e-12);
		} else {
			other++;
		}
	}
	CHECK_EQ_INT(high, 1);
	CHECK_EQ_INT(mega, 1);
	CHECK_EQ_INT(other, 0);
	/* and a pool of each is priced as itself */
	const struct price_offer *o;
	int fb = -1;
	o = pricing_for_machine(&pb, "H100-SXM", 8, "gcp", "", 0, "a3-megagpu-8g", &fb);
	CHECK(o && !strcmp(o->instance, "a3-megagpu-8g") && fb == 0);
	o = pricing_for_machine(&pb, "H100-SXM", 8, "gcp", "", 0, "a3-highgpu-8g", &fb);
	CHECK(o && !strcmp(o->instance, "a3-highgpu-8g") && fb == 0);
	/* no a3-edgegpu-8g row: the cheapest 8-GPU offer, said to be a fallback */
	o = pricing_for_machine(&pb, "H100-SXM", 8, "gcp", "", 0, "a3-edgegpu-8g", &fb);
	CHECK(o && !strcmp(o->instance, "a3-highgpu-8g") && fb == 1);
	/* a pool on gcp that names no transport takes its priced machine
	 * type's fabric (tcpx for a3-highgpu-8g, the cheapest 8-GPU offer
	 * here), but only as whole machines: a 4-GPU node priced per GPU
	 * from that 8-GPU offer keeps the default (ib, 400 Gb/s NICs) */
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=a,provider=gcp", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x4xH100-SXM,name=b,provider=gcp", &cat, &err) == 0);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 2);
	CHECK_CONTAINS(c.pools[0].price_source, "a3-highgpu-8g");
	CHECK_EQ_INT(c.pools[0].transport, COMM_TRANSPORT_TCPX);
	CHECK_CONTAINS(c.pools[1].price_source, "a3-highgpu-8g");
	CHECK_EQ_INT(c.pools[1].transport, COMM_TRANSPORT_IB);
	pricing_free(&pb);
}

/* AWS and Azure: the instance family a GPU and node size mean, from the
 * SKU table, and its row's price (data/prices.csv, on demand):
 *   aws,p5.48xlarge,H100,8.0,...,55.04,...,us-east-1        55.04 / 8 = 6.88
 *   aws,p4de.24xlarge,A100-80GB,8.0,...,27.44705,...,us-west-2
 *                                              27.44705 / 8 = 3.43088125
 *   aws,p5en.48xlarge,H200,8.0,...,63.296,...,us-east-1     63.296 / 8 = 7.912
 *     (p5e.48xlarge's rows carry no on-demand price)
 *   aws,p6-b200.48xlarge,B200,8.0,...,113.9328,...          113.9328 / 8 = 14.2416
 *   aws,p6-b300.48xlarge,B300,8.0,...,142.416,...,us-west-2 142.416 / 8 = 17.802
 *   azure,Standard_ND96isr_H100_v5,H100,12,...,98.32,...,eastus
 *     (8 H100 per Azure's size page, not the row's 12) 98.32 / 8 = 12.29
 *   azure,Standard_ND96asr_v4,A100,8,...,27.197,...,eastus  27.197 / 8 = 3.399625
 *   azure,Standard_ND96amsr_A100_v4,A100-80GB,8,...,32.77   32.77 / 8 = 4.09625 */
TEST(aws_azure_instances)
{
	static const struct {
		const char *spec, *inst;
		double usd_gpu_h;
	} want[] = {
		{ "1x8xH100-SXM,provider=aws", "p5.48xlarge", 6.88 },
		{ "1x1xH100-SXM,provider=aws", "p5.4xlarge", 6.88 },
		{ "1x8xA100-SXM4-80GB,provider=aws", "p4de.24xlarge", 3.43088125 },
		{ "1x8xH200-SXM,provider=aws", "p5en.48xlarge", 7.912 },
		{ "1x8xB200,provider=aws", "p6-b200.48xlarge", 14.2416 },
		{ "1x8xB300,provider=aws", "p6-b300.48xlarge", 17.802 },
		{ "1x8xH100-SXM,provider=azure", "Standard_ND96isr_H100_v5", 12.29 },
		{ "1x8xA100-SXM4-40GB,provider=azure", "Standard_ND96asr_v4", 3.399625 },
		{ "1x8xA100-SXM4-80GB,provider=azure", "Standard_ND96amsr_A100_v4", 4.09625 },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(want); i++) {
		struct cluster c;
		struct hp_err err = { 0 };
		if (price_one(want[i].spec, &c, &err) != 1) {
			T_FAILF("%s: not priced", want[i].spec);
			continue;
		}
		char inst[80];
		snprintf(inst, sizeof inst, " %s ", want[i].inst);
		CHECK_CONTAINS(c.pools[0].price_source, inst);
		CHECK(!strstr(c.pools[0].price_source, "fallback"));
		CHECK_NEAR(c.pools[0].usd_per_node_h / c.pools[0].gpus_per_node, want[i].usd_gpu_h,
			   1e-12);
	}
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent-hetplan-config", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(machine_gpus);
	RUN(machine_series);
	RUN(tables_agree);
	RUN(pool_machine);
	RUN(exact_machine_type);
	RUN(fallback_says_so);
	RUN(gcp_pairs_own_accelerator);
	RUN(aws_azure_instances);
	catalog_done(&cat);
	return t_done("pricing_machine");
}
