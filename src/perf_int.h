/* perf_int.h — the stages of the training performance model, shared by
 * perf.c (the orchestrator), perf_compute.c (kernels on one GPU),
 * perf_comm.c (TP/CP/EP/PP/DP communication) and perf_mem.c (memory per
 * GPU). Private to those files: nothing outside src/perf*.c includes it.
 *
 * One stage of one replica group is evaluated in a struct stage_ctx: the
 * inputs (cluster, model, plan, constants, the stage's pool and GPU) are
 * set by perf.c; each stage function fills its own part of the outputs. */
#ifndef HP_PERF_INT_H
#define HP_PERF_INT_H

#include "perf.h"

struct stage_ctx {
	/* inputs */
	const struct cluster *c;
	const struct model_spec *m;
	const struct plan *p;
	const struct perf_calib *k;
	const struct replica *rep;
	const struct pool *pl;
	const struct gpu_spec *g;
	struct param_count pc;   /* whole-model parameter counts */
	int index, pp, mb;       /* stage in the pipeline, depth, micro-batches */
	int tp, cp, dp;
	int first, last;         /* first / last stage of the pipeline */
	int ckpt;                /* layers run forward again before backward */
	int other_pool;          /* a pool of another site the DP group spans, or -1 */
	double s;                /* sequence length */
	double T;                /* tokens per micro-batch on one CP rank */
	double v;                /* model chunks per stage (1 unless interleaved) */

	/* perf_stage_compute: per micro-batch on one GPU */
	double fwd, bwd, rc;     /* s */
	double host_stall;       /* s, GPU idle waiting for the host, per micro-batch */
	double attn_fwd;         /* s, attention core forward, all layers */
	double attn_bwd_ratio;   /* attention backward / forward */
	double gemm_fwd;         /* s, GEMM forward, all layers (hides TP overlap) */
	int moe_layers;          /* MoE layers held by the stage */
	double act, act_work;    /* bytes kept per micro-batch; one layer's working set */
	double params, eparams;  /* non-expert and expert parameters on this GPU */
	double unit;             /* the largest unit ZeRO-3 gathers whole */
	double bw_hbm;           /* achieved HBM bandwidth, bytes/s */
};

/* perf_compute.c: forward, backward and recompute times, activations and
 * parameters of the stage's layers (plus embedding / output on the first /
 * last stage). */
void perf_stage_compute(struct stage_ctx *x);

/* perf_comm.c: exposed communication per micro-batch inside the stage, and
 * the data-parallel synchronisation after the pipeline drains. Each notes
 * its most expensive collective in e->comm. */
double perf_stage_tp(struct stage_ctx *x, struct estimate *e);
double perf_stage_cp(struct stage_ctx *x, struct estimate *e);
double perf_stage_ep(struct stage_ctx *x, struct estimate *e);
double perf_stage_pp(struct stage_ctx *x, struct estimate *e);
/* Exposed DP time per step (s), after the stage's last backward. */
double perf_stage_dp(struct stage_ctx *x, struct estimate *e);

/* perf_mem.c: memory per GPU of the stage into ps; returns ps->fits. */
int perf_stage_memory(const struct stage_ctx *x, struct perf_stage *ps);

/* Peak FLOP/s of g at dtype dt (falling back as perf.c documents). */
double perf_peak(const struct gpu_spec *g, enum hp_dtype dt);

#endif
