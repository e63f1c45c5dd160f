/* fuzz_skypilot.c — a SkyPilot vms.csv catalog (price updates, cache). */
#include "fuzz.h"
#include "fuzz_prices.h"
#include "pricing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct price_book pb;
	struct hp_err err = { 0 };
	memset(&pb, 0, sizeof pb);
	int src = pricing_add_source(&pb, "skypilot:aws", "", PRICE_LIVE, 1);
	if (pricing_parse_skypilot(&pb, src, "aws", s, size, fuzz_catalog(), "fuzz.csv",
				   &err) == 0) {
		pricing_finish(&pb);
		fuzz_book_utf8(&pb, fuzz_catalog());
	}
	pricing_free(&pb);
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
