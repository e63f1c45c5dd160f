/* fuzz_gpus.c — a GPU catalog file (`hetplan gpus --update`). */
#include "fuzz.h"
#include "pricing.h"

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
		catalog_done(&c);
	}
	pricing_free(&pb);
	free(s);
	return 0;
}
