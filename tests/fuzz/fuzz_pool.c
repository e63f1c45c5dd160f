/* fuzz_pool.c — the --pool NODESxGPUSxGPU[,key=value...] parser, and each
 * pool's host memory a node (pool_host_mem_gb: the host_mem_gb key, or the
 * catalog's reference node), which must come out finite and not negative
 * (0: unknown) whatever the spec said. */
#include "fuzz.h"
#include "cluster.h"

#include <math.h>

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
	for (int i = 0; i < c.n_pools; i++) {
		double gb = pool_host_mem_gb(&c.pools[i]);
		if (!isfinite(gb) || gb < 0)
			abort();
	}
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
