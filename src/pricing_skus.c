/* pricing_skus.c — which GPU an instance is, as data.
 *
 * The sources name GPUs loosely: SkyPilot's "A100" is the 40 GB SXM part,
 * "V100" the 16 GB one, RunPod's "H100" is PCIe, and Azure's retail API
 * names no GPU at all. Instance families settle it. Each row is a fact
 * from the provider's instance-type documentation (AWS "Accelerated
 * computing" instance types, Azure "GPU optimized virtual machine sizes",
 * GCP "GPU machine types", Lambda's instance list); a count of 0 keeps the
 * count the source gives. Adding an instance family is one row here. */
#include "pricing_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct price_sku skus[] = {
	{ "aws", '^', "p3dn.", "V100-SXM2-32GB", 8 },
	{ "aws", '^', "p3.", "V100-SXM2-16GB", 0 },
	{ "aws", '^', "p4d.", "A100-SXM4-40GB", 8 },
	{ "aws", '^', "p4de.", "A100-SXM4-80GB", 8 },
	{ "aws", '=', "p5.48xlarge", "H100-SXM", 8 },
	{ "aws", '=', "p5.4xlarge", "H100-SXM", 1 },
	{ "aws", '^', "p5e.", "H200-SXM", 8 },
	{ "aws", '^', "p5en.", "H200-SXM", 8 },
	{ "aws", '^', "p6-b200.", "B200", 8 },
	{ "aws", '^', "p6-b300.", "B300", 8 },
	{ "aws", '^', "g4dn.", "T4", 0 },
	{ "aws", '^', "g5.", "A10G", 0 },
	{ "aws", '^', "g6.", "L4", 0 },
	{ "aws", '^', "g6e.", "L40S", 0 },
	{ "azure", '=', "Standard_ND96isr_H100_v5", "H100-SXM", 8 },
	{ "azure", '=', "Standard_ND96isr_H200_v5", "H200-SXM", 8 },
	{ "azure", '=', "Standard_ND96is_MI300X_v5", "MI300X", 8 },
	{ "azure", '=', "Standard_ND96isr_MI300X_v5", "MI300X", 8 },
	{ "azure", '=', "Standard_ND96is_H100_v5", "H100-SXM", 8 },
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


const struct price_sku *pricing_sku_find(const char *provider, const char *inst)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(skus); i++) {
		const struct price_sku *k = &skus[i];
		if (strcmp(k->provider, provider))
			continue;
		if ((k->mode == '=' && !strcmp(inst, k->inst)) ||
		    (k->mode == '^' && !strncmp(inst, k->inst, strlen(k->inst))) ||
		    (k->mode == '*' && strstr(inst, k->inst)))
			return k;
	}
	return NULL;
}

const struct price_sku *pricing_sku_at(size_t i)
{
	return i < HP_ARRAY_LEN(skus) ? &skus[i] : NULL;
}

const char *pricing_label_gpu(const char *provider, const char *label)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(labels); i++)
		if ((!labels[i].provider || !strcmp(labels[i].provider, provider)) &&
		    !strcmp(labels[i].label, label))
			return labels[i].gpu;
	return NULL;
}

/* The GPUs a GCP machine type carries, as the accelerator its price
 * catalog bills them under: the series of src/cluster.c's machine-type
 * table (cluster_machine_series: a2-highgpu-4g is 4 "A100",
 * a3-megagpu-8g 8 "H100-MEGA"), and G2, whose GPU count follows its vCPUs
 * rather than its name (Google Cloud "GPU machine types", G2:
 * g2-standard-4, -8, -12, -16 and -32 one L4, -24 two, -48 four, -96
 * eight; the rule this replaced gave -32 two). */
int pricing_gcp_host_gpus(const char *inst, const char **label, double *count)
{
	const char *gpu;
	int n;
	if (!cluster_machine_series(inst, label, &gpu, &n)) {
		*count = n;
		return 0;
	}
	if (!strncmp(inst, "g2-standard-", 12)) {
		long v = strtol(inst + 12, NULL, 10);
		*label = "L4";
		*count = v == 96 ? 8 : v == 48 ? 4 : v == 24 ? 2 : 1;
		return 0;
	}
	return -1;
}
