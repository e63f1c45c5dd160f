/* one_gpu.h — test helper shared by the framework-row tests (test_llmc,
 * test_ds03): the compute time of one micro-batch of 1 x model->seq_len
 * tokens on a single GPU under a framework, through the public estimate.
 * Include after t.h. */
#ifndef HETPLAN_TEST_ONE_GPU_H
#define HETPLAN_TEST_ONE_GPU_H

#include "catalog.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"

/* pool_spec names one GPU ("1x1xTYPE,name=a"); gpu, when not NULL,
 * replaces the pool's catalog entry (a test's edited copy of it);
 * flash 0 for the unfused attention. -1 (and a failed check) on error. */
static inline double one_gpu_compute_s_as(const struct catalog *cat, const char *pool_spec,
					  const struct gpu_spec *gpu, const struct model_spec *m,
					  enum hp_dtype precision, int flash, enum hp_framework fw)
{
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	if (cluster_add_pool_spec(&c, pool_spec, cat, &err) < 0) {
		T_FAILF("%s", err.msg);
		return -1;
	}
	if (gpu)
		c.pools[0].gpu = *gpu;
	struct plan p;
	plan_init(&p);
	p.mbs = 1;
	p.gbs = 1;
	p.precision = precision;
	p.flash = flash;
	p.framework = fw;
	double t = -1;
	if (plan_uniform(&p, &c, m, 0, 1, 1, 1, &err) < 0) {
		T_FAILF("%s", err.msg);
	} else {
		struct estimate e;
		if (perf_estimate(&c, m, &p, NULL, &e, &err) == 0) {
			t = e.bd.compute;
			estimate_free(&e);
		} else {
			T_FAILF("%s", err.msg);
		}
	}
	plan_free(&p);
	return t;
}

static inline double one_gpu_compute_s(const struct catalog *cat, const char *pool_spec,
				       const struct model_spec *m, enum hp_dtype precision, int flash,
				       enum hp_framework fw)
{
	return one_gpu_compute_s_as(cat, pool_spec, NULL, m, precision, flash, fw);
}

#endif
