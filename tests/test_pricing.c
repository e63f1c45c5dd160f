/* test_pricing.c — the price book's parsers against the fixture rows, one
 * test per data pitfall, and the queries the planner uses. Expected values
 * are worked out by hand from the fixture lines quoted in the comments.
 * Run from the repository root. */
#include "t.h"
#include "pricing.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static struct catalog cat;

static char *slurp(const char *path, size_t *len)
{
	struct hp_err err = { 0 };
	char *s = hp_read_file(path, len, &err);
	if (!s)
		fprintf(stderr, "%s\n", err.msg);
	return s;
}

/* A book holding one fixture file parsed as skypilot:CLOUD. */
static int load_fixture(struct price_book *pb, const char *cloud, const char *file)
{
	struct hp_err err = { 0 };
	size_t len;
	char *s = slurp(file, &len);
	memset(pb, 0, sizeof *pb);
	int src = pricing_add_source(pb, cloud, file, PRICE_CACHE, 1);
	int rc = s ? pricing_parse_skypilot(pb, src, cloud, s, len, &cat, file, &err) : -1;
	if (rc < 0)
		fprintf(stderr, "%s\n", err.msg);
	free(s);
	pricing_finish(pb);
	return rc;
}

static int load_text(struct price_book *pb, const char *cloud, const char *text,
		     struct hp_err *err)
{
	memset(pb, 0, sizeof *pb);
	int src = pricing_add_source(pb, cloud, "", PRICE_LIVE, 1);
	int rc = pricing_parse_skypilot(pb, src, cloud, text, strlen(text), &cat, "test.csv", err);
	pricing_finish(pb);
	return rc;
}

/* The offer with this instance, region, zone ("" = any) and kind. */
static const struct price_offer *find(const struct price_book *pb, const char *inst,
				      const char *region, const char *zone, int spot)
{
	for (int i = 0; i < pb->n; i++) {
		const struct price_offer *o = &pb->offers[i];
		if (!strcmp(o->instance, inst) && !strcmp(o->region, region) &&
		    (!*zone || !strcmp(o->zone, zone)) && o->spot == spot)
			return o;
	}
	return NULL;
}

#define DIR_F "tests/data/fixtures/"

/* Row by row, AWS in its own column order:
 * p5.48xlarge,H100,8.0,192.0,2048.0,"{...}",55.04,19.253100,us-east-1,use1-az2,x86_64 */
TEST(aws_rows)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "aws", DIR_F "skypilot-v8-aws-vms.sample.csv") == 0);
	const struct price_offer *o = find(&pb, "p5.48xlarge", "us-east-1", "use1-az2", 0);
	CHECK(o != NULL);
	if (o) {
		CHECK_STR(o->gpu, "H100-SXM");
		CHECK_STR(o->provider, "aws");
		CHECK_NEAR(o->gpus, 8, 0);
		CHECK_NEAR(o->usd_per_instance_h, 55.04, 1e-12);
		CHECK_NEAR(o->usd_per_gpu_h, 6.88, 1e-12);          /* 55.04 / 8 */
	}
	o = find(&pb, "p5.48xlarge", "us-east-1", "use1-az2", 1);
	CHECK(o && fabs(o->usd_per_gpu_h - 2.4066375) < 1e-9);   /* 19.2531 / 8 */
	/* g6.12xlarge,L4,4.0,...,4.6016,2.096800,us-east-1,use1-az1: 1.1504 */
	o = find(&pb, "g6.12xlarge", "us-east-1", "use1-az1", 0);
	CHECK(o && fabs(o->usd_per_gpu_h - 1.1504) < 1e-9 && !strcmp(o->gpu, "L4"));
	/* a1.large has no GPU: not an offer, not counted as skipped. */
	CHECK(find(&pb, "a1.large", "us-east-1", "", 0) == NULL);
	/* p6-b300,B300,8.0,...,142.416,...: 142.416 / 8 = 17.802 per GPU-h. */
	o = find(&pb, "p6-b300.48xlarge", "us-west-2", "", 0);
	CHECK(o && fabs(o->usd_per_gpu_h - 17.802) < 1e-9 && !strcmp(o->gpu, "B300"));
	CHECK(pb.src[0].n_skipped >= 1);   /* the p5e row with no prices */
	pricing_free(&pb);
}

/* Pitfall: GpuInfo is a quoted Python dict with commas inside; it must stay
 * one field, and its SizeInMiB is read (T4: 16384 MiB). */
TEST(pitfall_gpuinfo_dict_in_quotes)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "aws", DIR_F "skypilot-v8-aws-vms.sample.csv") == 0);
	/* g4dn.xlarge,T4,1.0,4.0,16.0,"{...}",0.587,0.314700,eu-west-1,euw1-az1 */
	const struct price_offer *o = find(&pb, "g4dn.xlarge", "eu-west-1", "euw1-az1", 0);
	CHECK(o && fabs(o->usd_per_instance_h - 0.587) < 1e-12);
	CHECK(o && !strcmp(o->zone, "euw1-az1"));
	CHECK(o && fabs(o->mem_mib_reported - 16384) < 1e-9);
	pricing_free(&pb);
}

/* Pitfall: an empty or zero price is unknown, never free. */
TEST(pitfall_empty_or_zero_is_unknown)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "aws", DIR_F "skypilot-v8-aws-vms.sample.csv") == 0);
	/* p5e.48xlarge,...,,62.995700,us-east-2: spot only (62.9957 / 8) */
	CHECK(find(&pb, "p5e.48xlarge", "us-east-2", "", 0) == NULL);
	const struct price_offer *o = find(&pb, "p5e.48xlarge", "us-east-2", "", 1);
	CHECK(o && fabs(o->usd_per_gpu_h - 7.8744625) < 1e-9);
	/* p5e.48xlarge,...,,,eu-west-2: nothing */
	CHECK(find(&pb, "p5e.48xlarge", "eu-west-2", "", 0) == NULL);
	CHECK(find(&pb, "p5e.48xlarge", "eu-west-2", "", 1) == NULL);
	pricing_free(&pb);
	struct hp_err err = { 0 };
	CHECK(load_text(&pb, "aws",
			"InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region\n"
			"p5.48xlarge,H100,8,0,0.0,us-east-1\n"
			"p5.4xlarge,H100,1,700.0,,us-east-1\n", &err) == 0);
	CHECK_EQ_INT(pb.n, 0);           /* zero, and a 700 sentinel */
	CHECK_EQ_INT(pb.src[0].n_skipped, 2);
	pricing_free(&pb);
}

/* Pitfall: GCP bills the host VM and the GPUs on separate rows.
 *   a2-ultragpu-1g ... us-central1-a,1.09962,0.54978
 *   ,,,A100-80GB,1,...,us-central1,us-central1-a,1.8462,1.964
 * -> 1.09962 + 1.8462 = 2.94582 on-demand, 0.54978 + 1.964 = 2.51378 spot.
 *   a2-megagpu-16g ... 8.79698 + A100 x16 46.94253 = 55.73951 / 16. */
TEST(pitfall_gcp_host_plus_accelerator)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "gcp", DIR_F "skypilot-v8-gcp-vms.sample.csv") == 0);
	const struct price_offer *o = find(&pb, "a2-ultragpu-1g", "us-central1", "us-central1-a", 0);
	CHECK(o && !strcmp(o->gpu, "A100-SXM4-80GB"));
	CHECK(o && fabs(o->usd_per_instance_h - 2.94582) < 1e-9);
	o = find(&pb, "a2-ultragpu-1g", "us-central1", "us-central1-a", 1);
	CHECK(o && fabs(o->usd_per_instance_h - 2.51378) < 1e-9);
	o = find(&pb, "a2-megagpu-16g", "us-central1", "us-central1-a", 0);
	CHECK(o && !strcmp(o->gpu, "A100-SXM4-40GB") && fabs(o->gpus - 16) < 1e-9);
	CHECK(o && fabs(o->usd_per_gpu_h - 55.73951 / 16) < 1e-9);
	/* a3-highgpu-1g 1.18251 + H100 x1 4.20076 = 5.38327 */
	o = find(&pb, "a3-highgpu-1g", "us-central1", "us-central1-a", 0);
	CHECK(o && fabs(o->usd_per_gpu_h - 5.38327) < 1e-9 && !strcmp(o->gpu, "H100-SXM"));
	/* ,,,H100,8,...,asia-east1,asia-east1-c,90.74744: no host row there,
	 * kept as GPUs only and never used to price a pool. */
	o = find(&pb, "", "asia-east1", "asia-east1-c", 0);
	CHECK(o && (o->flags & PF_GPU_ONLY) && fabs(o->usd_per_gpu_h - 11.34343) < 1e-9);
	const struct price_offer *p = pricing_for_pool(&pb, "H100-SXM", 8, "", "asia-east1", 0);
	CHECK(p == NULL);
	/* TPU rows (700.0 sentinel or not) name no GPU. */
	for (int i = 0; i < pb.n; i++)
		CHECK(strncmp(pb.offers[i].label, "tpu", 3));
	pricing_free(&pb);
}

/* Pitfall: spot at or above on-demand is no discount.
 * aws p5.48xlarge use1-az1: 55.04 and 55.040000. */
TEST(pitfall_spot_not_below_on_demand)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "aws", DIR_F "skypilot-v8-aws-vms.sample.csv") == 0);
	const struct price_offer *o = find(&pb, "p5.48xlarge", "us-east-1", "use1-az1", 1);
	CHECK(o && (o->flags & PF_NO_DISCOUNT));
	CHECK(o && strstr(o->note, "same as on-demand"));
	o = find(&pb, "p5.48xlarge", "us-east-1", "use1-az2", 1);
	CHECK(o && !(o->flags & PF_NO_DISCOUNT));
	pricing_free(&pb);
	/* The GCP accelerator row A100-80GB x1 us-central1 has spot 1.964 above
	 * its on-demand 1.8462; alone (no host in the zone) it is flagged. */
	struct hp_err err = { 0 };
	CHECK(load_text(&pb, "gcp",
			"InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\n"
			",,,A100-80GB,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]},us-central1,us-central1-a,1.8462,1.964\n",
			&err) == 0);
	o = find(&pb, "", "us-central1", "us-central1-a", 1);
	CHECK(o && (o->flags & PF_NO_DISCOUNT) && strstr(o->note, "spot above on-demand"));
	pricing_free(&pb);
}

/* Pitfall: RunPod's columns come in another order and its "SizeInMiB"
 * holds GB. 4x_MI300X_SECURE,MI300X,4.0,96.0,1132.0,US,9.56,9.56,US-TX-1,
 * "{... 'SizeInMiB': 192 ...}" -> 9.56 / 4 = 2.39 per GPU, 192 GiB each. */
TEST(pitfall_runpod_order_and_memory_units)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "runpod", DIR_F "skypilot-v8-runpod-vms.sample.csv") == 0);
	const struct price_offer *o = find(&pb, "4x_MI300X_SECURE", "US", "US-TX-1", 0);
	CHECK(o && fabs(o->usd_per_gpu_h - 2.39) < 1e-9 && !strcmp(o->gpu, "MI300X"));
	CHECK(o && fabs(o->mem_mib_reported - 192 * 1024) < 1e-9);
	/* 1x_A100-80GB_SECURE: RunPod's A100-80GB is the PCIe card. */
	o = find(&pb, "1x_A100-80GB_SECURE", "US", "", 0);
	CHECK(o && !strcmp(o->gpu, "A100-PCIe-80GB") && fabs(o->mem_mib_reported - 81920) < 1e-9);
	/* 6x_MI300X_SECURE ... IN,14.34 -> 2.39 too, in India */
	o = find(&pb, "6x_MI300X_SECURE", "IN", "AP-IN-1", 0);
	CHECK(o && fabs(o->usd_per_gpu_h - 2.39) < 1e-9);
	pricing_free(&pb);
	/* AWS's usable-MiB figure is kept as written: L4 22888. */
	CHECK(load_fixture(&pb, "aws", DIR_F "skypilot-v8-aws-vms.sample.csv") == 0);
	o = find(&pb, "g6.12xlarge", "us-east-1", "use1-az1", 0);
	CHECK(o && fabs(o->mem_mib_reported - 22888) < 1e-9);
	pricing_free(&pb);
}

/* Pitfall: wrong GPU counts. Standard_ND96isr_H100_v5,H100,12,...,98.32:
 * the SKU has 8 GPUs, so 98.32 / 8 = 12.29, not 98.32 / 12. */
TEST(pitfall_wrong_gpu_count)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "azure", DIR_F "skypilot-v8-azure-vms.sample.csv") == 0);
	const struct price_offer *o = find(&pb, "Standard_ND96isr_H100_v5", "eastus", "", 0);
	CHECK(o && fabs(o->gpus - 8) < 1e-9 && (o->flags & PF_COUNT_FIXED));
	CHECK(o && fabs(o->usd_per_gpu_h - 12.29) < 1e-9);
	CHECK(o && strstr(o->note, "12"));
	pricing_free(&pb);
}

/* Pitfalls: same label, different part; GPU SKUs with no accelerator name. */
TEST(pitfall_names_and_missing_accelerators)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "azure", DIR_F "skypilot-v8-azure-vms.sample.csv") == 0);
	const struct price_offer *o = find(&pb, "Standard_NC40ads_H100_v5", "eastus", "", 0);
	CHECK(o && !strcmp(o->gpu, "H100-NVL"));
	/* Standard_NCC40ads_H100_v5,,,40.0,320,,6.98,1.745,eastus2 */
	o = find(&pb, "Standard_NCC40ads_H100_v5", "eastus2", "", 0);
	CHECK(o && !strcmp(o->gpu, "H100-NVL") && fabs(o->usd_per_gpu_h - 6.98) < 1e-9);
	/* Standard_NC8ads_A10_v4 names no GPU and is not in the SKU table. */
	CHECK(find(&pb, "Standard_NC8ads_A10_v4", "westus3", "", 0) == NULL);
	/* Standard_ND96asr_v4,A100,8,...,27.197: 40 GB SXM, 3.399625 */
	o = find(&pb, "Standard_ND96asr_v4", "eastus", "", 0);
	CHECK(o && !strcmp(o->gpu, "A100-SXM4-40GB") && fabs(o->usd_per_gpu_h - 3.399625) < 1e-9);
	/* Standard_NV36ads_A10_v5: AcceleratorCount "1" as an int, 3.2 */
	o = find(&pb, "Standard_NV36ads_A10_v5", "eastus", "", 0);
	CHECK(o && !strcmp(o->gpu, "A10") && fabs(o->usd_per_gpu_h - 3.2) < 1e-9);
	pricing_free(&pb);
	CHECK(load_fixture(&pb, "aws", DIR_F "skypilot-v8-aws-vms.sample.csv") == 0);
	/* p3.2xlarge,V100: the 16 GB part, not the catalog's default V100 */
	o = find(&pb, "p3.2xlarge", "us-east-1", "", 0);
	CHECK(o && !strcmp(o->gpu, "V100-SXM2-16GB"));
	/* p4de.24xlarge,A100-80GB (GpuInfo says 'A100'): 27.44705 / 8 */
	o = find(&pb, "p4de.24xlarge", "us-west-2", "usw2-az2", 0);
	CHECK(o && !strcmp(o->gpu, "A100-SXM4-80GB") && fabs(o->usd_per_gpu_h - 3.43088125) < 1e-9);
	pricing_free(&pb);
}

/* Lambda (a constructed fixture in the v8 layout, columns in yet another
 * order, no spot): gpu_8x_h100_sxm5 23.92 / 8 = 2.99; the PCIe H100 apart. */
TEST(lambda_rows)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "lambda", DIR_F "skypilot-v8-lambda-vms.constructed.csv") == 0);
	const struct price_offer *o = find(&pb, "gpu_8x_h100_sxm5", "us-east-1", "", 0);
	CHECK(o && !strcmp(o->gpu, "H100-SXM") && fabs(o->usd_per_gpu_h - 2.99) < 1e-9);
	o = find(&pb, "gpu_1x_h100_pcie", "us-west-1", "", 0);
	CHECK(o && !strcmp(o->gpu, "H100-PCIe"));
	o = find(&pb, "gpu_8x_a100_80gb_sxm4", "us-east-1", "", 0);
	CHECK(o && !strcmp(o->gpu, "A100-SXM4-80GB") && fabs(o->usd_per_gpu_h - 1.79) < 1e-9);
	CHECK(find(&pb, "gpu_8x_h100_sxm5", "us-east-1", "", 1) == NULL);
	pricing_free(&pb);
}

TEST(csv_errors)
{
	struct price_book pb;
	struct hp_err err = { 0 };
	CHECK(load_text(&pb, "aws", "name,gpu,count\nx,H100,8\n", &err) < 0);
	CHECK_CONTAINS(err.msg, "lacks InstanceType, AcceleratorName, AcceleratorCount, Price, SpotPrice, Region");
	pricing_free(&pb);
	CHECK(load_text(&pb, "aws",
			"InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region\n"
			"p5.48xlarge,H100,8,55.04\n", &err) < 0);
	CHECK_CONTAINS(err.msg, "record 2 has 4 fields, the header has 6");
	pricing_free(&pb);
	CHECK(load_text(&pb, "aws",
			"InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region\n"
			"p5.48xlarge,H100,\"8,55.04,,us-east-1\n", &err) < 0);
	CHECK_CONTAINS(err.msg, "malformed CSV");
	pricing_free(&pb);
	CHECK(load_text(&pb, "aws", "", &err) < 0);
	CHECK_CONTAINS(err.msg, "empty CSV");
	pricing_free(&pb);
	/* CRLF line ends and a BOM are fine. */
	CHECK(load_text(&pb, "aws",
			"\xEF\xBB\xBFInstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region\r\n"
			"p5.48xlarge,H100,8.0,55.04,,us-east-1\r\n", &err) == 0);
	CHECK_EQ_INT(pb.n, 1);
	pricing_free(&pb);
}

/* hetplan's feed: prices with per-hour or per-GPU-hour, GPU specs. */
TEST(feed)
{
	struct price_book pb;
	struct hp_err err = { 0 };
	size_t len;
	char *s = slurp("tests/data/prices/feed.json", &len);
	memset(&pb, 0, sizeof pb);
	int src = pricing_add_source(&pb, "json:test", "", PRICE_LIVE, 1);
	CHECK(s && pricing_parse_feed(&pb, src, s, len, &cat, "feed.json", &err) == 0);
	free(s);
	pricing_finish(&pb);
	CHECK_EQ_INT(pb.n_gpus, 1);
	CHECK_STR(pb.gpus[0].name, "MI355X");
	const struct price_offer *o = find(&pb, "hgx-h100-8", "eu-north", "", 0);
	CHECK(o && fabs(o->usd_per_gpu_h - 4.0) < 1e-12);             /* 32 / 8 */
	o = find(&pb, "hgx-h100-8", "eu-north", "", 1);
	CHECK(o && fabs(o->usd_per_gpu_h - 2.0) < 1e-12);             /* 16 / 8 */
	o = find(&pb, "mi355x-8", "eu-north", "", 0);
	CHECK(o && fabs(o->usd_per_instance_h - 20.0) < 1e-12);       /* 2.5 x 8 */
	pricing_free(&pb);
	static const char *const bad[][2] = {
		{ "{\"schema\":\"hetplan-prices/1\",\"offers\":[{\"provider\":\"x\",\"gpu\":\"H100\",\"gpus\":8}]}",
		  "offers[0]: needs a price" },
		{ "{\"schema\":\"hetplan-prices/1\",\"offers\":[{\"provider\":\"x\",\"gpu\":\"H999\",\"gpus\":8,\"usd_per_hour\":1}]}",
		  "offers[0].gpu: unknown GPU 'H999'" },
		{ "{\"schema\":\"hetplan-prices/2\",\"offers\":[]}", "schema: expected \"hetplan-prices/1\"" },
		{ "{\"schema\":\"hetplan-prices/1\",\"offers\":[{\"provider\":\"x\",\"gpu\":\"H100\",\"gpus\":-1,\"usd_per_hour\":1}]}",
		  "offers[0].gpus" },
		{ "{\"schema\":\"hetplan-prices/1\",\"offers\":[", "malformed JSON" },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(bad); i++) {
		memset(&pb, 0, sizeof pb);
		src = pricing_add_source(&pb, "json:test", "", PRICE_LIVE, 1);
		CHECK(pricing_parse_feed(&pb, src, bad[i][0], strlen(bad[i][0]), &cat, "feed.json",
					 &err) < 0);
		CHECK_CONTAINS(err.msg, bad[i][1]);
		CHECK_EQ_INT(pb.n, 0);
		pricing_free(&pb);
	}
}

/* The Azure Retail Prices example page of the documented schema: on-demand
 * 98.32 and spot 24.58 kept (8 GPUs: 12.29, 3.0725); the Windows row
 * (104.9) and the one-year reservation (540000) dropped. */
TEST(azure_page)
{
	const char *page =
		"{\"BillingCurrency\":\"USD\",\"CustomerEntityId\":\"Default\",\"CustomerEntityType\":\"Retail\",\"Items\":["
		"{\"currencyCode\":\"USD\",\"retailPrice\":98.32,\"unitPrice\":98.32,\"armRegionName\":\"eastus\",\"meterName\":\"ND96isr H100 v5\",\"productName\":\"Virtual Machines NDsrH100v5 Series\",\"skuName\":\"ND96isr H100 v5\",\"serviceName\":\"Virtual Machines\",\"unitOfMeasure\":\"1 Hour\",\"type\":\"Consumption\",\"armSkuName\":\"Standard_ND96isr_H100_v5\",\"availabilityId\":null},"
		"{\"currencyCode\":\"USD\",\"retailPrice\":24.58,\"unitPrice\":24.58,\"armRegionName\":\"eastus\",\"meterName\":\"ND96isr H100 v5 Spot\",\"productName\":\"Virtual Machines NDsrH100v5 Series\",\"skuName\":\"ND96isr H100 v5 Spot\",\"serviceName\":\"Virtual Machines\",\"unitOfMeasure\":\"1 Hour\",\"type\":\"Consumption\",\"armSkuName\":\"Standard_ND96isr_H100_v5\"},"
		"{\"currencyCode\":\"USD\",\"retailPrice\":104.9,\"unitPrice\":104.9,\"armRegionName\":\"eastus\",\"meterName\":\"ND96isr H100 v5\",\"productName\":\"Virtual Machines NDsrH100v5 Series Windows\",\"skuName\":\"ND96isr H100 v5\",\"serviceName\":\"Virtual Machines\",\"unitOfMeasure\":\"1 Hour\",\"type\":\"Consumption\",\"armSkuName\":\"Standard_ND96isr_H100_v5\"},"
		"{\"currencyCode\":\"USD\",\"reservationTerm\":\"1 Year\",\"retailPrice\":540000.0,\"unitPrice\":540000.0,\"armRegionName\":\"eastus\",\"meterName\":\"ND96isr H100 v5\",\"productName\":\"Virtual Machines NDsrH100v5 Series\",\"skuName\":\"ND96isr H100 v5\",\"serviceName\":\"Virtual Machines\",\"unitOfMeasure\":\"1 Hour\",\"type\":\"Reservation\",\"armSkuName\":\"Standard_ND96isr_H100_v5\"}],"
		"\"NextPageLink\":\"https://prices.azure.com:443/api/retail/prices?$skip=1000\",\"Count\":4}";
	struct price_book pb;
	struct hp_err err = { 0 };
	memset(&pb, 0, sizeof pb);
	int src = pricing_add_source(&pb, "azure", "", PRICE_LIVE, 1), count = -1, null_link = -1;
	char next[256];
	CHECK(pricing_parse_azure_page(&pb, src, page, strlen(page), &cat, "azure page 1", &count,
				       next, sizeof next, &null_link, &err) == 0);
	pricing_finish(&pb);
	CHECK_EQ_INT(count, 4);
	CHECK_EQ_INT(null_link, 0);
	CHECK_CONTAINS(next, "$skip=1000");
	CHECK_EQ_INT(pb.n, 2);
	const struct price_offer *o = find(&pb, "Standard_ND96isr_H100_v5", "eastus", "", 0);
	CHECK(o && fabs(o->usd_per_gpu_h - 12.29) < 1e-9);
	o = find(&pb, "Standard_ND96isr_H100_v5", "eastus", "", 1);
	CHECK(o && fabs(o->usd_per_gpu_h - 3.0725) < 1e-9);
	pricing_free(&pb);
	/* The last page: NextPageLink null, Count 0. */
	const char *last = "{\"Items\":[],\"NextPageLink\":null,\"Count\":0}";
	memset(&pb, 0, sizeof pb);
	src = pricing_add_source(&pb, "azure", "", PRICE_LIVE, 1);
	CHECK(pricing_parse_azure_page(&pb, src, last, strlen(last), &cat, "p", &count, next,
				       sizeof next, &null_link, &err) == 0);
	CHECK(count == 0 && null_link == 1 && next[0] == '\0');
	CHECK(pricing_parse_azure_page(&pb, src, "[1]", 3, &cat, "azure page 3", &count, next,
				       sizeof next, &null_link, &err) < 0);
	CHECK_CONTAINS(err.msg, "azure page 3: not an Azure Retail Prices page");
	pricing_free(&pb);
}

/* The embedded snapshot loads and covers the four clouds it was cut from. */
TEST(embedded_snapshot)
{
	struct price_book pb;
	struct hp_err err = { 0 };
	CHECK(pricing_load_embedded(&pb, &cat, &err) == 0);
	int aws = 0, gcp = 0, az = 0, rp = 0;
	for (int i = 0; i < pb.n; i++) {
		aws += !strcmp(pb.offers[i].provider, "aws");
		gcp += !strcmp(pb.offers[i].provider, "gcp");
		az += !strcmp(pb.offers[i].provider, "azure");
		rp += !strcmp(pb.offers[i].provider, "runpod");
	}
	CHECK(aws > 0 && gcp > 0 && az > 0 && rp > 0);
	/* Sorted by GPU, then price: cheapest first. */
	for (int i = 1; i < pb.n; i++)
		if (!strcmp(pb.offers[i].gpu, pb.offers[i - 1].gpu))
			CHECK(pb.offers[i].usd_per_gpu_h >= pb.offers[i - 1].usd_per_gpu_h);
	pricing_free(&pb);
}

/* A pool takes the cheapest offer of its node size; explicit prices stay. */
TEST(apply_to_cluster)
{
	struct price_book pb;
	struct hp_err err = { 0 };
	CHECK(load_fixture(&pb, "aws", DIR_F "skypilot-v8-aws-vms.sample.csv") == 0);
	struct cluster c;
	cluster_init(&c);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM,name=a", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "2x8xH100-SXM,name=b,price=40", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=c,spot=1", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x1xH100-SXM,name=d,region=us-east-1", &cat, &err) == 0);
	CHECK(cluster_add_pool_spec(&c, "1x8xH100-SXM,name=e,region=ap-northeast-2", &cat, &err) == 0);
	CHECK_EQ_INT(pricing_apply(&pb, &c), 4);
	/* a: p5.48xlarge 55.04 a node */
	CHECK_NEAR(c.pools[0].usd_per_node_h, 55.04, 1e-12);
	CHECK_CONTAINS(c.pools[0].price_source, "p5.48xlarge");
	/* b: the --pool price */
	CHECK_NEAR(c.pools[1].usd_per_node_h, 40, 0);
	CHECK_STR(c.pools[1].price_source, "--pool");
	/* c: cheapest 8-GPU spot is use1-atl2-az1 at 10.2397 a node */
	CHECK_NEAR(c.pools[2].usd_per_node_h, 10.2397, 1e-12);
	CHECK_CONTAINS(c.pools[2].price_source, "spot");
	/* d: one GPU a node: p5.4xlarge 6.88 */
	CHECK_NEAR(c.pools[3].usd_per_node_h, 6.88, 1e-12);
	CHECK_CONTAINS(c.pools[3].price_source, "p5.4xlarge");
	/* e: ap-northeast-2 p5.48xlarge 75.9552 */
	CHECK_NEAR(c.pools[4].usd_per_node_h, 75.9552, 1e-12);
	pricing_free(&pb);
}

TEST(queries)
{
	struct price_book pb;
	CHECK(load_fixture(&pb, "aws", DIR_F "skypilot-v8-aws-vms.sample.csv") == 0);
	struct price_filter f = { "L40S", NULL, NULL, 0, 0, 0 };
	const struct price_offer **v;
	/* L40S on-demand per GPU: g6e.12xlarge 10.49264/4 = 2.62316,
	 * g6e.2xlarge 3.25168, g6e.24xlarge 15.06559/4 = 3.7663975,
	 * g6e.16xlarge 7.57719 */
	int n = pricing_select(&pb, &f, &v);
	CHECK_EQ_INT(n, 4);
	if (n == 4) {
		CHECK_NEAR(v[0]->usd_per_gpu_h, 2.62316, 1e-12);
		CHECK_NEAR(v[3]->usd_per_gpu_h, 7.57719, 1e-12);
	}
	free(v);
	f.gpu = NULL;
	n = pricing_cheapest(&pb, &f, &v);
	/* one per GPU type: T4 A10G L4 L40S V100 A100-80 H100 H200 B200 B300 */
	CHECK_EQ_INT(n, 10);
	free(v);
	char buf[64];
	struct price_source_info s = { .origin = PRICE_CACHE, .fetched_at = 1e9 };
	pricing_describe_age(&s, 1e9 + 7200, buf, sizeof buf);
	CHECK_CONTAINS(buf, "(2.0 h old)");
	pricing_free(&pb);
}

TEST(sources_and_config)
{
	struct hp_err err = { 0 };
	CHECK(pricing_source_valid("skypilot:aws", &err) == 0);
	CHECK(pricing_source_valid("azure", &err) == 0);
	CHECK(pricing_source_valid("json:https://example.org/p.json", &err) == 0);
	CHECK(pricing_source_valid("skypilot:", &err) < 0);
	CHECK(pricing_source_valid("json:ftp://x", &err) < 0);
	CHECK(pricing_source_valid("vast", &err) < 0);
	CHECK_CONTAINS(err.msg, "unknown price source 'vast'");
	setenv("HETPLAN_HTTP_TIMEOUT", "2", 1);
	setenv("HETPLAN_SKYPILOT_URL", "http://127.0.0.1:9/v8", 1);
	struct price_config cfg;
	CHECK(pricing_config_load(&cfg, "/nonexistent-dir/none.json", &err) < 0);
	CHECK(pricing_config_load(&cfg, NULL, &err) == 0);
	CHECK_EQ_INT(cfg.http.connect_timeout_ms, 2000);
	CHECK_EQ_INT(cfg.http.low_speed_s, 2);
	CHECK_STR(cfg.skypilot_url, "http://127.0.0.1:9/v8");
	CHECK_EQ_INT(cfg.n_sources, 5);
	setenv("HETPLAN_HTTP_TIMEOUT", "soon", 1);
	CHECK(pricing_config_load(&cfg, NULL, &err) < 0);
	CHECK_CONTAINS(err.msg, "HETPLAN_HTTP_TIMEOUT");
	unsetenv("HETPLAN_HTTP_TIMEOUT");
	unsetenv("HETPLAN_SKYPILOT_URL");
}

static int progress_calls;
static int count_progress(void *ud, const struct price_progress *p)
{
	(void)ud;
	CHECK(p->of == 2 && p->done <= 2);
	progress_calls++;
	return 0;
}

/* The worker-thread API: a cancel flag set before the call stops every
 * source without touching the network; a refused connection is reported
 * per source, with progress calls for each finished one. */
TEST(update_cancel_and_progress)
{
	char dir[] = "/tmp/hetplan-test-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct price_config cfg;
	struct hp_err err = { 0 };
	memset(&cfg, 0, sizeof cfg);
	http_opts_default(&cfg.http);
	cfg.http.connect_timeout_ms = 1000;
	cfg.max_parallel = 2;
	snprintf(cfg.cache_dir, sizeof cfg.cache_dir, "%s", dir);
	snprintf(cfg.skypilot_url, sizeof cfg.skypilot_url, "http://127.0.0.1:1/v8");
	const char *src[] = { "skypilot:aws", "json:http://127.0.0.1:1/p.json" };
	struct price_update up[2];
	atomic_int cancel;
	atomic_init(&cancel, 1);
	CHECK_EQ_INT(pricing_update(&cfg, &cat, src, 2, NULL, NULL, &cancel, up, &err), 2);
	CHECK(up[0].result == PRICE_CANCELLED && up[1].result == PRICE_CANCELLED);
	atomic_store(&cancel, 0);
	progress_calls = 0;
	CHECK_EQ_INT(pricing_update(&cfg, &cat, src, 2, count_progress, NULL, &cancel, up, &err), 2);
	CHECK(up[0].result == PRICE_FAILED);
	CHECK_CONTAINS(up[0].msg, "http://127.0.0.1:1/v8/aws/vms.csv: could not connect");
	CHECK_CONTAINS(up[1].msg, "http://127.0.0.1:1/p.json: could not connect");
	CHECK(progress_calls >= 2);
	const char *dup[] = { "azure", "azure" };
	CHECK(pricing_update(&cfg, &cat, dup, 2, NULL, NULL, NULL, up, &err) < 0);
	CHECK_CONTAINS(err.msg, "given twice");
	rmdir(dir);
}

/* Flags: the timeout sets connect time and stall window, and caps the
 * whole transfer at 15 x S but at least 60 s: 2 s -> 60 s, 100 s -> 1500 s.
 * 100K is 100 x 1024 = 102400 bytes. */
TEST(config_flags)
{
	struct price_config cfg;
	struct hp_err err = { 0 };
	const char *want = NULL;
	CHECK(pricing_config_load(&cfg, NULL, &err) == 0);
	CHECK(pricing_config_flag(&cfg, "timeout", "2", &want) == 0);
	CHECK_EQ_INT(cfg.http.connect_timeout_ms, 2000);
	CHECK_EQ_INT(cfg.http.low_speed_s, 2);
	CHECK_EQ_INT(cfg.http.timeout_ms, 60000);
	CHECK(pricing_config_flag(&cfg, "timeout", "100", &want) == 0);
	CHECK_EQ_INT(cfg.http.timeout_ms, 1500000);
	CHECK(pricing_config_flag(&cfg, "max-bytes", "100K", &want) == 0);
	CHECK(cfg.http.max_bytes == 102400);
	CHECK(pricing_config_flag(&cfg, "timeout", "0.01", &want) < 0);
	CHECK_STR(want, "0.1 to 3600 seconds");
	CHECK(pricing_config_flag(&cfg, "max-bytes", "lots", &want) < 0);
	CHECK_CONTAINS(want, "1K to 16G");
	CHECK(pricing_config_flag(&cfg, "gpus-url", "ftp://x", &want) < 0);
	CHECK(pricing_config_flag(&cfg, "gpus-url", "http://127.0.0.1:9/g.json", &want) == 0);
	CHECK_STR(cfg.gpus_url, "http://127.0.0.1:9/g.json");
	CHECK(pricing_config_load(&cfg, NULL, &err) == 0);
	CHECK_STR(cfg.gpus_url, HETPLAN_GPUS_URL);
}

/* Write a cache file by hand in the documented layout. */
static void write_cache(const char *path, const char *source, const char *format,
			const char *body)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "hetplan-cache 1\n{\"source\":\"%s\",\"url\":\"http://127.0.0.1:9/x\","
		   "\"format\":\"%s\",\"fetched_at\":1700000000,\"bytes\":%zu}\n%s",
		source, format, strlen(body), body);
	fclose(f);
}

/* Cached GPU specs join the catalog: the downloaded catalog adds X2000
 * and replaces H100-SXM, a cached feed adds X1000, and the user's own
 * gpus.json keeps its X1000 (memory 7 GB, not the feed's 100). */
TEST(catalog_extend)
{
	char dir[] = "/tmp/hetplan-test-XXXXXX", path[400];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/gpus-catalog.cache", dir);
	write_cache(path, "gpus:http://127.0.0.1:9/x", "hetplan-gpus",
		    "{\"schema\": 1, \"gpus\": ["
		    "{\"name\": \"X2000\", \"memory_gb\": 200, \"tflops\": {\"bf16\": 2000}},"
		    "{\"name\": \"H100-SXM\", \"memory_gb\": 80, \"tflops\": {\"bf16\": 989},"
		    " \"source\": \"downloaded\"}]}");
	snprintf(path, sizeof path, "%s/prices-json-0000000000000001.cache", dir);
	write_cache(path, "json:http://127.0.0.1:9/x", "hetplan-json",
		    "{\"schema\": \"hetplan-prices/1\", \"gpus\": ["
		    "{\"name\": \"X1000\", \"memory_gb\": 100, \"tflops\": {\"bf16\": 1000}}]}");
	struct price_config cfg;
	struct hp_err err = { 0 };
	memset(&cfg, 0, sizeof cfg);
	snprintf(cfg.cache_dir, sizeof cfg.cache_dir, "%s", dir);
	struct catalog c2;
	CHECK(catalog_load(&c2, "/nonexistent-hetplan-config", &err) == 0);
	int n0 = c2.n_gpus;
	char warn[256];
	setenv("XDG_CONFIG_HOME", "/nonexistent-hetplan-config", 1);
	CHECK_EQ_INT(pricing_catalog_extend(&c2, &cfg, warn, sizeof warn), 3);
	CHECK_STR(warn, "");
	CHECK_EQ_INT(c2.n_gpus, n0 + 2);
	const struct gpu_spec *g = catalog_gpu(&c2, "X2000");
	CHECK(g && g->mem_bytes == 200e9 && g->flops[HP_BF16] == 2000e12);
	g = catalog_gpu(&c2, "H100-SXM");
	CHECK(g && !strcmp(g->source, "downloaded"));
	g = catalog_gpu(&c2, "X1000");
	CHECK(g && g->mem_bytes == 100e9);
	catalog_done(&c2);
	/* The user's file wins. */
	char cdir[64];
	snprintf(cdir, sizeof cdir, "%s/hetplan", dir);
	CHECK(mkdir(cdir, 0755) == 0);
	snprintf(path, sizeof path, "%s/gpus.json", cdir);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("{\"gpus\": [{\"name\": \"X1000\", \"memory_gb\": 7}]}", f);
		fclose(f);
	}
	setenv("XDG_CONFIG_HOME", dir, 1);
	CHECK(catalog_load(&c2, NULL, &err) == 0);
	CHECK_EQ_INT(pricing_catalog_extend(&c2, &cfg, warn, sizeof warn), 2);
	g = catalog_gpu(&c2, "X1000");
	CHECK(g && g->mem_bytes == 7e9);
	catalog_done(&c2);
	unsetenv("XDG_CONFIG_HOME");
	/* What `hetplan gpus` says of the cached catalog. */
	struct price_source_info si;
	CHECK_EQ_INT(pricing_gpus_cached(&cfg, &si, NULL, NULL, &err), 0);
	CHECK_EQ_INT(si.n_offers, 2);
	CHECK_STR(si.url, "http://127.0.0.1:9/x");
	CHECK(si.fetched_at == 1700000000);
	/* A damaged one is named, and skipped. */
	snprintf(path, sizeof path, "%s/gpus-catalog.cache", dir);
	write_cache(path, "gpus:http://127.0.0.1:9/x", "hetplan-gpus", "{\"gpus\": {}}");
	CHECK(pricing_gpus_cached(&cfg, &si, NULL, NULL, &err) < 0);
	CHECK_CONTAINS(err.msg, "gpus: expected");
	CHECK(catalog_load(&c2, "/nonexistent-hetplan-config", &err) == 0);
	pricing_catalog_extend(&c2, &cfg, warn, sizeof warn);
	CHECK_CONTAINS(warn, "ignoring a cache file");
	catalog_done(&c2);
	unlink(path);
	snprintf(path, sizeof path, "%s/prices-json-0000000000000001.cache", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/gpus.json", cdir);
	unlink(path);
	rmdir(cdir);
	rmdir(dir);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent-hetplan-config", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(aws_rows);
	RUN(pitfall_gpuinfo_dict_in_quotes);
	RUN(pitfall_empty_or_zero_is_unknown);
	RUN(pitfall_gcp_host_plus_accelerator);
	RUN(pitfall_spot_not_below_on_demand);
	RUN(pitfall_runpod_order_and_memory_units);
	RUN(pitfall_wrong_gpu_count);
	RUN(pitfall_names_and_missing_accelerators);
	RUN(lambda_rows);
	RUN(csv_errors);
	RUN(feed);
	RUN(azure_page);
	RUN(embedded_snapshot);
	RUN(apply_to_cluster);
	RUN(queries);
	RUN(sources_and_config);
	RUN(update_cancel_and_progress);
	RUN(config_flags);
	RUN(catalog_extend);
	catalog_done(&cat);
	return t_done("pricing");
}
