/* fuzz_specs.h — what the GPU-spec fuzz targets (fuzz_gpus: a catalog
 * file; fuzz_feed: the "gpus" of a price feed) require of a part they
 * parsed: one node of one such GPU running Llama 3.1 8B at mbs 1 has a
 * step time that is finite and positive, and an MFU that is finite and
 * not negative, whatever figures the part gave. A part without
 * memory_bw_tbps is left out: plan_check_precision refuses a training
 * plan on it before any estimate (docs/hardening.md, "A GPU without memory
 * bandwidth"). Aborts otherwise. */
#ifndef HP_FUZZ_SPECS_H
#define HP_FUZZ_SPECS_H

#include "cluster.h"
#include "perf.h"
#include "plan.h"

#include <math.h>
#include <stdio.h>

__attribute__((unused)) static void fuzz_spec_estimate(const struct catalog *c,
						       const struct gpu_spec *g)
{
	if (!g || !(g->hbm_Bps > 0))
		return;
	static const char plan_json[] =
		"{\"mbs\": 1, \"gbs\": 8, \"replicas\": [{\"count\": 1, \"stages\": "
		"[{\"pool\": \"p\", \"tp\": 1, \"first_layer\": 0, \"last_layer\": 31}]}]}";
	char spec[96];
	struct cluster cl;
	struct plan p;
	struct hp_err err = { 0 };
	const struct model_spec *m = catalog_model(fuzz_catalog(), "llama3.1-8b");
	snprintf(spec, sizeof spec, "1x1x%s,name=p", g->name);
	cluster_init(&cl);
	plan_init(&p);
	if (cluster_add_pool_spec(&cl, spec, c, &err) == 0 &&
	    plan_parse_json(&p, plan_json, sizeof plan_json - 1, "fuzz plan", &cl, &err) == 0 &&
	    plan_validate(&p, &cl, m, "fuzz plan", &err) == 0) {
		struct estimate e;
		if (perf_estimate(&cl, m, &p, NULL, &e, &err) == 0) {
			if (!isfinite(e.step_time_s) || !(e.step_time_s > 0) ||
			    !isfinite(e.mfu) || !(e.mfu >= 0))
				abort();
			estimate_free(&e);
		}
	}
	plan_free(&p);
}

#endif
