/* fuzz_pool.c — the --pool NODESxGPUSxGPU[,key=value...] parser. */
#include "fuzz.h"
#include "cluster.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	/* Up to three pools from newline-separated specs, so the cluster-wide
	 * checks (names, GPU total) are reached too. */
	char *save = NULL;
	int n = 0;
	for (char *spec = strtok_r(s, "\n", &save); spec && n < 3;
	     spec = strtok_r(NULL, "\n", &save), n++)
		if (cluster_add_pool_spec(&c, spec, fuzz_catalog(), &err) < 0)
			break;
	(void)cluster_total_gpus(&c);
	free(s);
	return 0;
}
