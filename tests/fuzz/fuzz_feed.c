/* fuzz_feed.c — hetplan's JSON price feed (json:URL sources): offers and
 * GPU specs. Besides what fuzz_prices.h requires of every book, each
 * offer kept has a price per instance and per GPU that is finite and
 * above 0 (the feed's rule: an offer needs a price, and each price key's
 * range starts at 0, where 0 means none), and the first two parts of the
 * feed's "gpus", joined to a catalog as pricing_extend_catalog does for
 * cached feeds, run Llama 3.1 8B with a finite step (fuzz_specs.h). */
#include "fuzz.h"
#include "fuzz_prices.h"
#include "fuzz_specs.h"
#include "pricing.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct price_book pb;
	struct hp_err err = { 0 };
	memset(&pb, 0, sizeof pb);
	int src = pricing_add_source(&pb, "json:fuzz", "", PRICE_LIVE, 1);
	if (pricing_parse_feed(&pb, src, s, size, fuzz_catalog(), "fuzz feed", &err) == 0) {
		pricing_finish(&pb);
		fuzz_book_utf8(&pb, fuzz_catalog());
		for (int i = 0; i < pb.n; i++) {
			const struct price_offer *o = &pb.offers[i];
			if (!isfinite(o->usd_per_gpu_h) || !(o->usd_per_gpu_h > 0) ||
			    !isfinite(o->usd_per_instance_h) || !(o->usd_per_instance_h > 0) ||
			    !isfinite(o->gpus) || !(o->gpus > 0))
				abort();
		}
		if (pb.n_gpus > 0) {
			struct catalog c = { 0 };
			pricing_extend_catalog(&pb, &c);
			for (int i = 0; i < c.n_gpus && i < 2; i++)
				fuzz_spec_estimate(&c, &c.gpus[i]);
			catalog_done(&c);
		}
	}
	pricing_free(&pb);
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
