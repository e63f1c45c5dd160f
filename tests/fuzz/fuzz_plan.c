/* fuzz_plan.c — plan JSON (--plan FILE) against a two-pool cluster, then
 * the checks every command runs on it. */
#include "fuzz.h"
#include "cluster.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cluster c;
	static struct model_spec m;
	static int ready;
	if (!ready) {
		struct hp_err e = { 0 };
		cluster_init(&c);
		if (cluster_add_pool_spec(&c, "4x8xH100-SXM", fuzz_catalog(), &e) < 0 ||
		    cluster_add_pool_spec(&c, "8x8xA100-SXM4-80GB,name=a100", fuzz_catalog(), &e) < 0)
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
	}
	plan_free(&p);
	free(s);
	return 0;
}
