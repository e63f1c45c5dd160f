/* fuzz_cluster.c — cluster JSON (-c FILE, a workspace's "cluster"). */
#include "fuzz.h"
#include "cluster.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	if (cluster_parse_json(&c, s, size, "fuzz.json", fuzz_catalog(), &err) == 0)
		(void)cluster_total_gpus(&c);
	free(s);
	return 0;
}
