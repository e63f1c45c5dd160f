/* fuzz_azure.c — one Azure Retail Prices API page. */
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
	int src = pricing_add_source(&pb, "azure", "", PRICE_LIVE, 1), count = -1, null_link = -1;
	char next[512];
	if (pricing_parse_azure_page(&pb, src, s, size, fuzz_catalog(), "fuzz page", &count,
				     next, sizeof next, &null_link, &err) == 0) {
		pricing_finish(&pb);
		fuzz_book_utf8(&pb, fuzz_catalog());
	}
	pricing_free(&pb);
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
