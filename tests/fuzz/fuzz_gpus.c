/* fuzz_gpus.c — a GPU catalog file (`hetplan gpus --update`); then, for
 * the first part the file gives a clock_ref (a reference part's board
 * power, SM count and 16-bit peak: perf_compute.c scales that part's rate
 * by them), one node of one such GPU running Llama 3.1 8B, whose step
 * time must come out finite and positive: the reference's figures divide
 * and are raised to powers there. */
#include "fuzz.h"
#include "fuzz_specs.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"
#include "pricing.h"

#include <math.h>
#include <stdio.h>

/* the first part with a clock_ref */
static void fuzz_clock_ref(const struct catalog *c)
{
	for (int i = 0; i < c->n_gpus; i++)
		if (c->gpus[i].ref_tdp_w > 0) {
			fuzz_spec_estimate(c, &c->gpus[i]);
			return;
		}
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
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
