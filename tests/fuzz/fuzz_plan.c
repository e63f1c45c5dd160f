/* fuzz_plan.c — plan JSON (--plan FILE) against a three-pool cluster, then
 * the checks every command runs on it and, for a plan they accept, the
 * estimate and its JSON parts.
 *
 * The cluster: 4 nodes of 8 H100 with 64 GB of host memory a node
 * (host_mem_gb, so an offload's host side can be over), 8 of 8 A100 (the
 * catalog's host memory) and 2 GB300 trays (the catalog's clock_ref);
 * Llama 3.1 8B (32 layers). A plan may name "framework": "megatron-core"
 * and "offload": "activations" with offload_layers, or "deepspeed" and
 * "offload": "optimizer", so both offloads' arithmetic is reached. Every
 * number of the estimate's JSON parts must be finite (cJSON would print a
 * NaN or infinity as null, a figure lost without a word), and so must the
 * step time, throughput and the offload's host bytes. */
#include "fuzz.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>

/* Abort on any non-finite number under o (cJSON keeps the double). */
static void fuzz_json_finite(const cJSON *o)
{
	for (const cJSON *it = o; it; it = it->next) {
		if (cJSON_IsNumber(it) && !isfinite(it->valuedouble))
			abort();
		if (it->child)
			fuzz_json_finite(it->child);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cluster c;
	static struct model_spec m;
	static int ready;
	if (!ready) {
		struct hp_err e = { 0 };
		cluster_init(&c);
		if (cluster_add_pool_spec(&c, "4x8xH100-SXM,host_mem_gb=64", fuzz_catalog(), &e) < 0 ||
		    cluster_add_pool_spec(&c, "8x8xA100-SXM4-80GB,name=a100", fuzz_catalog(), &e) < 0 ||
		    cluster_add_pool_spec(&c, "2x4xGB300,name=gb300", fuzz_catalog(), &e) < 0)
			abort();
		m = *catalog_model(fuzz_catalog(), "llama3.1-8b");
		ready = 1;
	}
	char *s = fuzz_text(data, size);
	struct plan p;
	struct hp_err err = { 0 };
	plan_init(&p);
	if (plan_parse_json(&p, s, size, "fuzz.json", &c, &err) == 0 &&
	    plan_validate(&p, &c, &m, "--plan", &err) == 0) {
		int per_pool[HP_MAX_POOLS];
		(void)plan_gpus(&p, per_pool);
		struct estimate e;
		if (perf_estimate(&c, &m, &p, NULL, &e, &err) == 0) {
			if (!isfinite(e.step_time_s) || !(e.step_time_s > 0) ||
			    !isfinite(e.tokens_per_s) || !isfinite(e.mfu) ||
			    !isfinite(e.offload.host_bytes_per_node) ||
			    !isfinite(e.offload.exposed_s) || e.offload.exposed_s < 0)
				abort();
			cJSON *o = cJSON_CreateObject();
			report_estimate_json_parts(o, &e, &c);
			fuzz_json_finite(o);
			cJSON_Delete(o);
			estimate_free(&e);
		}
	}
	plan_free(&p);
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
