/* fuzz_cluster.c — cluster JSON (-c FILE, a workspace's "cluster"); each
 * pool's host memory a node (pool_host_mem_gb) must come out finite and
 * not negative whatever the file said. */
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
	if (cluster_parse_json(&c, s, size, "fuzz.json", fuzz_catalog(), &err) == 0) {
		(void)cluster_total_gpus(&c);
		for (int i = 0; i < c.n_pools; i++) {
			double gb = pool_host_mem_gb(&c.pools[i]);
			if (!isfinite(gb) || gb < 0)
				abort();
		}
	}
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
