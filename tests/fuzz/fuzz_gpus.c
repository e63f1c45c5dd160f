/* fuzz_gpus.c — a GPU catalog file (`hetplan gpus --update`); then, for
 * the first part the file gives a clock_ref (a reference part's board
 * power, SM count and 16-bit peak: perf_compute.c scales that part's rate
 * by them), one node of one such GPU running Llama 3.1 8B, whose step
 * time must come out finite and positive: the reference's figures divide
 * and are raised to powers there. */
#include "fuzz.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"
#include "pricing.h"

#include <math.h>
#include <stdio.h>

static void fuzz_clock_ref(const struct catalog *c)
{
	const struct gpu_spec *g = NULL;
	for (int i = 0; i < c->n_gpus && !g; i++)
		if (c->gpus[i].ref_tdp_w > 0)
			g = &c->gpus[i];
	/* A part without memory_bw_tbps is left out: plan_validate lets it
	 * through and its memory-bound kernels take forever (an infinite
	 * step; the serving side refuses it, serve_perf.c). Not clock_ref's
	 * doing: docs/hardening.md, "A GPU without memory bandwidth". */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct price_book pb;
	struct hp_err err = { 0 };
	memset(&pb, 0, sizeof pb);
	if (pricing_parse_gpus(&pb, s, size, "fuzz gpus", &err) == 0) {
		struct catalog c = { 0 };
		pricing_extend_catalog(&pb, &c);
		fuzz_clock_ref(&c);
		catalog_done(&c);
	}
	pricing_free(&pb);
	free(s);
	return 0;
}
