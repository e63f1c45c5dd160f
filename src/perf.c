/* perf.c — the training performance model: the orchestrator over its
 * stages (perf_compute.c, perf_comm.c, perf_mem.c) and its constants.
 *
 * perf_estimate reads as its stages. For every replica group and every
 * pipeline stage, per micro-batch on one GPU:
 *   compute    (perf_compute.c) every kernel of the stage's layers:
 *              GEMMs     max(FLOPs / (peak x eff), bytes / HBM), with
 *                        eff = ceiling(generation, dtype) x wave(M, N, SMs)
 *                        x K / (K + k_half): tile and wave quantisation on
 *                        the GPU's SMs and the main loop's pipeline fill;
 *              attention flash attention at the generation's published
 *                        forward and backward efficiency, ramping with the
 *                        sequence length (s / (s + s_half)); causal, so half
 *                        the s x s FLOPs run. Unfused attention (Megatron
 *                        2021) is two batched GEMMs and a softmax;
 *              memory-bound ops (norms, residual adds, dropout, activation,
 *                        rotary, softmax, loss): their bytes, op by op, over
 *                        the achieved HBM bandwidth; backward moves twice;
 *              kernels   each kernel leaves the GPU idle kernel_gap_s; the
 *                        host needs host_op_s to issue it, and when it is
 *                        slower than the GPU the GPU waits (small models,
 *                        short GEMMs).
 *   comm       (perf_comm.c) TP all-gather/reduce-scatter (or all-reduce)
 *              per layer, behind the GEMMs when the plan overlaps TP
 *              (Megatron-Core --tp-comm-overlap), else exposed; CP K/V
 *              exchange behind attention; EP all-to-alls; PP p2p.
 *   pipeline   T = m x max_i t_i + (sum_i t_i - max_i t_i) / v for stages of
 *              per-micro-batch time t_i, m micro-batches, v chunks;
 *              replicas run concurrently and the slowest sets the step.
 *   DP sync    (perf_comm.c) gradient reduce and parameter gather; an
 *              overlapped reduce hides behind the last micro-batch's
 *              backward bucket by bucket (the last bucket stays exposed),
 *              an overlapped gather behind the first forward; ZeRO-3
 *              gathers per layer with prefetch. Overlapped traffic slows
 *              the compute it runs beside by dp_overlap_slowdown.
 *   optimizer  Adam: the framework row's HBM bytes per local parameter
 *              (framework.h opt_bytes_per_param; 30 unless counted), for
 *              the plan's optimizer implementation (plan_opt_impl); a
 *              foreach or per-tensor step's launches at the host's issue
 *              cost where they take longer (docs/optimizer.md).
 *   memory     (perf_mem.c) weights, gradients and optimizer state under
 *              ZeRO and the master layout; activations of the micro-batches
 *              in flight; CUDA context and runtime buffers; allocator
 *              fragmentation; against the driver-reported capacity.
 *   totals     throughput, MFU/HFU, cost, energy.
 *
 * Simplifications, stated: one host thread issues every kernel (no CUDA
 * graphs); the TP overlap is modelled for sequence-parallel TP only, as
 * Megatron-Core implements it; energy is an estimate from board power. */
#include "perf_int.h"

#include "embed.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The constants live in data/calibration.json, embedded in the binary:
 * every constant's value next to its physical range, unit, source and,
 * when the fit leaves it on a bound, the reason; `make fit` (tools/fit.c
 * --write) rewrites the values of the fitted ones. The per-generation
 * kernel efficiencies without measured rows are datasheet-class defaults
 * in the file's "generations" block. */
static const char *const gen_fields[] = {
	"gemm16", "gemm8", "gemm32", "attn_fwd", "attn_bwd", "hbm", "attn3_fwd", "attn3_bwd",
	"square16",
};
static const size_t gen_field_off[] = {
	offsetof(struct perf_gen_eff, gemm16), offsetof(struct perf_gen_eff, gemm8),
	offsetof(struct perf_gen_eff, gemm32), offsetof(struct perf_gen_eff, attn_fwd),
	offsetof(struct perf_gen_eff, attn_bwd), offsetof(struct perf_gen_eff, hbm),
	offsetof(struct perf_gen_eff, attn3_fwd), offsetof(struct perf_gen_eff, attn3_bwd),
	offsetof(struct perf_gen_eff, square16),
};
/* The constants that are not per generation, by their names in the file. */
static const char *const scalar_names[] = {
	"gemm_k_half", "attn_s_half", "kernel_gap_s", "host_op_s", "host_coll_s",
	"tp_overlap_slowdown", "dp_overlap_slowdown", "cuda_context_gib", "workspace_bytes",
	"mem_frag", "step_overhead_s", "power_clock_exp",
};
static const size_t scalar_off[] = {
	offsetof(struct perf_calib, gemm_k_half), offsetof(struct perf_calib, attn_s_half),
	offsetof(struct perf_calib, kernel_gap_s), offsetof(struct perf_calib, host_op_s),
	offsetof(struct perf_calib, host_coll_s), offsetof(struct perf_calib, tp_overlap_slowdown),
	offsetof(struct perf_calib, dp_overlap_slowdown),
	offsetof(struct perf_calib, cuda_context_bytes), offsetof(struct perf_calib, workspace_bytes),
	offsetof(struct perf_calib, mem_frag), offsetof(struct perf_calib, step_overhead_s),
	offsetof(struct perf_calib, power_clock_exp),
};
#define N_GEN_FIELDS (sizeof gen_fields / sizeof *gen_fields)
#define N_SCALARS (sizeof scalar_names / sizeof *scalar_names)

/* Where constant `name` lives in struct perf_calib: "<generation>.<field>"
 * or one of scalar_names. Returns 0 with *off, or -1. */
static int const_offset(const char *name, size_t *off)
{
	for (size_t i = 0; i < N_SCALARS; i++)
		if (!strcmp(name, scalar_names[i])) {
			*off = scalar_off[i];
			return 0;
		}
	const char *dot = strchr(name, '.');
	if (!dot)
		return -1;
	for (int g = 0; g <= HP_GEN_LAST; g++) {
		const char *gn = hp_gen_name((enum hp_gen)g);
		if (strlen(gn) != (size_t)(dot - name) || strncmp(name, gn, (size_t)(dot - name)))
			continue;
		for (size_t f = 0; f < N_GEN_FIELDS; f++)
			if (!strcmp(dot + 1, gen_fields[f])) {
				*off = offsetof(struct perf_calib, gen) + (size_t)g * sizeof(struct perf_gen_eff) +
				       gen_field_off[f];
				return 0;
			}
	}
	return -1;
}

/* The "generations" block: one array of N_GEN_FIELDS numbers (or null:
 * listed under "constants") per generation hetplan knows. */
static int parse_generations(const cJSON *gens, struct perf_calib *k, unsigned char *set,
			     const char *file, struct hp_err *err)
{
	for (int g = 0; g <= HP_GEN_LAST; g++) {
		const char *gn = hp_gen_name((enum hp_gen)g);
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(gens, gn);
		if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != (int)N_GEN_FIELDS)
			return hp_err_set(err, HP_EXIT_INPUT, "%s: generations.%s: an array of %d values",
					  file, gn, (int)N_GEN_FIELDS);
		for (size_t f = 0; f < N_GEN_FIELDS; f++) {
			const cJSON *v = cJSON_GetArrayItem(a, (int)f);
			size_t off = offsetof(struct perf_calib, gen) + (size_t)g * sizeof(struct perf_gen_eff) +
				     gen_field_off[f];
			if (cJSON_IsNull(v))
				continue;
			if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1))
				return hp_err_set(err, HP_EXIT_INPUT,
						  "%s: generations.%s[%zu] (%s): a fraction from 0 to 1",
						  file, gn, f, gen_fields[f]);
			*(double *)((char *)k + off) = v->valuedouble;
			set[off / sizeof(double)] = 1;
		}
	}
	return 0;
}

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One entry of "constants" into c (its strings are copied) and its value
 * into k. */
static int parse_const(const cJSON *o, int i, struct perf_calib *k, unsigned char *set,
		       struct perf_const *c, const char *file, struct hp_err *err)
{
	const char *name = json_str(o, "name"), *unit = json_str(o, "unit");
	const char *src = json_str(o, "source"), *why = json_str(o, "on_bound");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "range");
	const cJSON *fit = cJSON_GetObjectItemCaseSensitive(o, "fitted");
	size_t off;
	if (!name || const_offset(name, &off) < 0)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: constants[%d].name: %s is not a constant "
				  "of struct perf_calib", file, i, name ? name : "missing");
	if (!cJSON_IsNumber(v) || !cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 ||
	    !cJSON_IsNumber(cJSON_GetArrayItem(r, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(r, 1)) ||
	    !cJSON_IsBool(fit) || !unit || !src)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: constants[%d] (%s): needs value, range [lo, hi], "
				  "unit, fitted and source", file, i, name);
	double lo = cJSON_GetArrayItem(r, 0)->valuedouble, hi = cJSON_GetArrayItem(r, 1)->valuedouble;
	if (!(lo <= v->valuedouble && v->valuedouble <= hi))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: constants[%d] (%s): value %g outside its "
				  "range [%g, %g]", file, i, name, v->valuedouble, lo, hi);
	if (set[off / sizeof(double)])
		return hp_err_set(err, HP_EXIT_INPUT, "%s: constants[%d] (%s): given twice (or also "
				  "under generations)", file, i, name);
	set[off / sizeof(double)] = 1;
	*(double *)((char *)k + off) = v->valuedouble;
	*c = (struct perf_const){ xstrdup(name), off, xstrdup(unit), lo, hi, cJSON_IsTrue(fit),
				  xstrdup(src), why ? xstrdup(why) : NULL };
	return 0;
}

void perf_const_table_free(struct perf_const *t, int n)
{
	for (int i = 0; t && i < n; i++) {
		free((char *)t[i].name);
		free((char *)t[i].unit);
		free((char *)t[i].source);
		free((char *)t[i].on_bound);
	}
	free(t);
}

int perf_calib_parse(const char *text, size_t len, const char *file, struct perf_calib *k,
		     struct perf_const **table, int *n, struct hp_err *err)
{
	unsigned char set[sizeof(struct perf_calib) / sizeof(double)] = { 0 };
	memset(k, 0, sizeof *k);
	*table = NULL;
	*n = 0;
	cJSON *root = cJSON_ParseWithLength(text, len);
	if (!root)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: not valid JSON", file);
	int rc = 0;
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(root, "constants");
	const cJSON *gens = cJSON_GetObjectItemCaseSensitive(root, "generations");
	if (!cJSON_IsObject(gens) || !cJSON_IsArray(cs)) {
		rc = hp_err_set(err, HP_EXIT_INPUT, "%s: needs \"generations\" and \"constants\"", file);
		goto out;
	}
	if ((rc = parse_generations(gens, k, set, file, err)) < 0)
		goto out;
	int nc = cJSON_GetArraySize(cs);
	*table = xcalloc((size_t)(nc > 0 ? nc : 1), sizeof **table);
	for (int i = 0; i < nc; i++) {
		if ((rc = parse_const(cJSON_GetArrayItem(cs, i), i, k, set, &(*table)[i], file, err)) < 0)
			goto out;
		*n = i + 1;
	}
	/* Every double of struct perf_calib is given exactly once. */
	for (size_t i = 0; i < sizeof set; i++)
		if (!set[i]) {
			rc = hp_err_set(err, HP_EXIT_INPUT, "%s: a constant of struct perf_calib (double "
					"%zu) is given nowhere", file, i);
			goto out;
		}
out:
	cJSON_Delete(root);
	if (rc < 0) {
		perf_const_table_free(*table, *n);
		*table = NULL;
		*n = 0;
	}
	return rc;
}

static struct perf_calib calib_default;
static struct perf_const *const_table;
static int n_const;
static pthread_once_t calib_once = PTHREAD_ONCE_INIT;

/* The embedded file is part of the build (test_model loads it): a broken
 * one is a defect of the binary, reported like running out of memory. */
static void calib_load(void)
{
	struct hp_err err = { 0 };
	if (perf_calib_parse(embed_calibration_json, embed_calibration_json_len,
			     "data/calibration.json", &calib_default, &const_table, &n_const, &err) < 0) {
		fprintf(stderr, "hetplan: built with a broken calibration: %s\n", err.msg);
		abort();
	}
}

const struct perf_calib *perf_calib_default(void)
{
	pthread_once(&calib_once, calib_load);
	return &calib_default;
}

const struct perf_const *perf_const_table(int *n)
{
	pthread_once(&calib_once, calib_load);
	*n = n_const;
	return const_table;
}

double *perf_const_ptr(struct perf_calib *k, const struct perf_const *c)
{
	return (double *)((char *)k + c->offset);
}

const char *perf_dim_name(enum perf_dim d)
{
	static const char *const n[] = { "tp", "pp", "dp", "cp", "ep" };
	assert((unsigned)d < DIM_COUNT);
	return n[d];
}

/* memset(p, 0, n) through the C library's: GCC inlines a memset of a
 * known size of a few hundred bytes as rep stos, whose start-up cost
 * more than the library's vector stores (issue 13, sixteenth round: the
 * stage context's and the estimate's, 2% of the 70B search's samples,
 * perf annotate). The volatile pointer keeps the call a call. */
static void *(*volatile const memset_call)(void *, int, size_t) = memset;

static void perf_zero(void *p, size_t n)
{
	memset_call(p, 0, n);
}

/* A stage record zeroed, padding included (estimates compare as bytes),
 * but for its group and index. */
static void stage_record_clear(struct perf_stage *ps)
{
	int group = ps->group, index = ps->index;
	memset(ps, 0, sizeof *ps);
	ps->group = group;
	ps->index = index;
}

/* A stage record's t_total from its parts: the terms within a
 * micro-batch, then the host's stall (stage_front, and a core hit that
 * computes the EP term again: stage_front_memo). */
static void stage_total(struct perf_stage *ps)
{
	ps->t_total = ps->t_fwd + ps->t_bwd + ps->t_recompute + ps->t_tp + ps->t_cp + ps->t_ep +
		      ps->t_pp;
	ps->t_total += ps->t_host_stall;
}

/* The stage's compute and the communication inside each micro-batch
 * (noted in notes; NULL: not noted): its record's times. */
static void stage_front(struct stage_ctx *x, struct estimate *notes, struct perf_stage *ps)
{
	const struct stage *st = &x->rep->stages[x->index];
	ps->pool = st->pool;
	ps->tp = x->tp;
	ps->first_layer = st->first_layer;
	ps->last_layer = st->last_layer;
	ps->layers = st->last_layer - st->first_layer + 1;
	perf_stage_compute(x);
	ps->t_fwd = x->fwd;
	ps->t_bwd = x->bwd;
	ps->t_recompute = x->rc;
	ps->t_tp = perf_stage_tp(x, notes);
	ps->t_cp = perf_stage_cp(x, notes);
	ps->t_ep = perf_stage_ep(x, notes);
	ps->t_pp = perf_stage_pp(x, notes);
	/* The host issues every kernel in order; when it needs longer than
	 * the GPU runs them, the GPU waits for it. */
	ps->t_host_stall = x->host_stall;
	stage_total(ps);
}

/* A memo entry's record src into ps (padding too: records compare as
 * bytes), ps's group and index kept and its layer range x's stage's: an
 * entry serves every stage of its shape (stage_key_layers). */
static void record_from(const struct stage_ctx *x, const struct perf_stage *src,
			struct perf_stage *ps)
{
	int group = ps->group, index = ps->index;
	const struct stage *st = &x->rep->stages[x->index];
	memcpy(ps, src, sizeof *ps);
	ps->group = group;
	ps->index = index;
	ps->first_layer = st->first_layer;
	ps->last_layer = st->last_layer;
}

/* perf_stage_compute's outputs into a stage core, and back. */
static void core_save(const struct stage_ctx *x, struct stage_comp *c)
{
	c->fwd = x->fwd;
	c->bwd = x->bwd;
	c->rc = x->rc;
	c->host_stall = x->host_stall;
	c->attn_fwd = x->attn_fwd;
	c->attn_bwd_ratio = x->attn_bwd_ratio;
	c->gemm_fwd = x->gemm_fwd;
	c->moe_layers = x->moe_layers;
	c->moe_fwd = x->moe_fwd;
	c->moe_bwd = x->moe_bwd;
	c->moe_expert_fwd = x->moe_expert_fwd;
	c->ep_one = x->ep_one;
	c->act = x->act;
	c->act_work = x->act_work;
	c->params = x->params;
	c->eparams = x->eparams;
	c->unit = x->unit;
	c->bw_hbm = x->bw_hbm;
}

static void core_load(struct stage_ctx *x, const struct stage_comp *c)
{
	x->fwd = c->fwd;
	x->bwd = c->bwd;
	x->rc = c->rc;
	x->host_stall = c->host_stall;
	x->attn_fwd = c->attn_fwd;
	x->attn_bwd_ratio = c->attn_bwd_ratio;
	x->gemm_fwd = c->gemm_fwd;
	x->moe_layers = c->moe_layers;
	x->moe_fwd = c->moe_fwd;
	x->moe_bwd = c->moe_bwd;
	x->moe_expert_fwd = c->moe_expert_fwd;
	x->ep_one = c->ep_one;
	x->act = c->act;
	x->act_work = c->act_work;
	x->params = c->params;
	x->eparams = c->eparams;
	x->unit = c->unit;
	x->bw_hbm = c->bw_hbm;
}

/* perf_memo_stage_h0 of key, or of the same key met last in this slot
 * on this thread (0: replica groups' keys, ctx_replica; 1: their cores',
 * core_key_of): a layout's probes, and the layouts of one setting and
 * depth, share them (issue 13, fifteenth round: the hash was 1.4% of the
 * 70B search's instructions). A pure function's value, so the same. */
static _Thread_local struct {
	struct stage_key k;
	uint64_t h;
	int set;
} h0_last[2];

static uint64_t stage_h0_cached(int slot, const struct stage_key *key)
{
	if (h0_last[slot].set && !memcmp(&h0_last[slot].k, key, sizeof *key))
		return h0_last[slot].h;
	h0_last[slot].k = *key;
	h0_last[slot].h = perf_memo_stage_h0(key);
	h0_last[slot].set = 1;
	return h0_last[slot].h;
}

/* The key of x's stage core: key (x's stage key) with dp 0, mb 0 and
 * ep_tail 0 (a stage key keeps mb for ZeRO-3's DP terms too, which a
 * core does not hold: struct stage_key; under the EP overlap the EP
 * time reads mb and the rank, and a hit computes it again:
 * stage_front_memo); its h0 once per replica group. The depth as
 * min(pp, 2): of what a core holds, only the EP terms read the depth
 * itself (perf_stage_ep: plan_ep_overlap_on, the same at every depth of
 * 2 or more, and ep_overlap_exposed, which a hit computes again; after
 * its return for EP 1); perf_stage_compute reads pp > 1 (the
 * embedding's copy), perf_stage_pp which neighbours exist (the key's
 * prev_pool and next_pool, -1 for none) and the stage's side of each
 * (the index against the neighbour's), and the TP and CP terms not at
 * all, but a hand-off that leaves the node reads the DP degree too (its
 * NIC share, pp_share), so a crossing stage's core keeps it. The DP sync (tied embeddings, DeepSpeed) and the memory (NCCL's
 * buffers, the activations in flight) do read it, and no core holds
 * them. Issue 13, fifteenth round: a layout probe's stages are met
 * again at every depth of the PP ladder. */
static void core_key_of(struct stage_ctx *x, const struct stage_key *key, struct stage_key *ck)
{
	/* with expert parallelism too: perf_stage_ep reads the depth only
	 * as plan_ep_overlap_on (the same at every depth of 2 or more, for
	 * the key's schedule and virtual stages) and, under the overlap, in
	 * ep_overlap_exposed's passes, which a hit computes again
	 * (stage_front_memo; issue 13, twenty-fourth round: the Mixtral 8x22B
	 * probes' cores, keyed by depth, missed 257K times of 581K where a
	 * table as large keyed by min(pp, 2) would miss about 106K) */
	int pp_any = key->pp > 2;
	*ck = *key;
	/* a hand-off that leaves the node shares its NICs with the stage's
	 * tp x cp x dp GPUs there (perf_comm.c pp_share): DP stays in the
	 * key of a stage that crosses */
	if (!(key->cross & 3))
		ck->dp = 0;
	ck->cross = key->cross & 3;   /* the WAN's DP share: no front time reads it */
	/* the micro-batches and the rank (ep_tail) only under the EP
	 * overlap, and there only in perf_stage_ep's time, which a hit
	 * computes again (stage_front_memo) */
	ck->mb = 0;
	ck->ep_tail = 0;
	if (pp_any)
		ck->pp = 2;
	if (!x->core_h0_set) {
		struct stage_key k0 = x->key0;
		k0.dp = 0;
		k0.mb = 0;
		if (pp_any)
			k0.pp = 2;
		x->core_h0 = stage_h0_cached(1, &k0);
		x->core_h0_set = 1;
	}
}

/* stage_front, without its notes, from the stage core memo when this
 * stage was evaluated before at another DP degree or micro-batch count
 * (or these): the same values, computed by the same code, so the same
 * bits. ps is cleared but for its group and index. Issue 13, eighth
 * round: 85% (70B) and 70% (Mixtral 8x22B) of the stage memo's misses in
 * a whole estimate differ from an entry only in the DP degree; tenth
 * round: with the micro-batches in the key too, 61% of a DeepSeek-V3
 * cost search's cores missed. */
static void stage_front_memo(struct stage_ctx *x, const struct stage_key *key,
			     struct perf_stage *ps)
{
	struct stage_key ck;
	core_key_of(x, key, &ck);
	const struct stage_core *hit = perf_memo_core(x->memo, &ck, x->core_h0);
	if (hit) {
		record_from(x, &hit->ps, ps);
		core_load(x, &hit->c);
		if (x->ep_ov) {
			/* the EP time of this rank and micro-batch count, and
			 * the total as stage_front sums it */
			ps->t_ep = perf_stage_ep_again(x);
			stage_total(ps);
		}
		return;
	}
	stage_record_clear(ps);
	stage_front(x, NULL, ps);
	struct stage_core *c = perf_memo_core_put(x->memo, &ck, x->core_h0);
	memcpy(&c->ps, ps, sizeof c->ps);
	core_save(x, &c->c);
}

/* The DP memo's key of x's stage (x set for it: ctx_stage) into dk
 * (perf_int.h, struct dp_key): the stage key's fields that perf_stage_dp
 * reads, the plan's settings as their serial (once an estimate), the
 * neighbours' pools only as whether there are any, no node crossings nor
 * EP overlap's rank, the micro-batches only under ZeRO-3, the depth as
 * min(pp, 2) and no peer pool unless the stage syncs tied embeddings.
 * -1 when a field does not fit its bits (then no memo: computed). Issue
 * 13, sixteenth round: the whole stage key (0.15 KB an entry, 1.2 MB a
 * table) made the DP memo's lookups wait on memory; three words. */
/* Whether x's stage's exposed DP time is its value at one micro-batch
 * times the group's micro-batches, to the bit: under ZeRO-3, perf_stage_dp
 * returns (f_exp + b_exp + r_exp) x mb plus the tied embeddings' sum,
 * and no other term of it reads the micro-batches (the gathers and
 * reduce-scatters, their overlaps with the forward, backward and
 * recompute of one micro-batch, zero3_calls, ds_list_copies,
 * ds_recompute_regather: perf_comm.c). Where that sum is 0 (no tied
 * embeddings on this stage: untied, a pipeline of one stage, or a
 * middle stage; perf_comm.c tied_embedding_sync), the value at one
 * micro-batch is (f_exp + b_exp + r_exp) x 1 + 0, the sum itself, and
 * the value at mb the same product the code forms. So the DP memo
 * keys such a stage at one micro-batch and its users multiply
 * (dp_of_mb): one entry serves every count (issue 13, twenty-fourth
 * round: the Mixtral 8x22B deadline search's DP screen computed 235,084
 * ZeRO-3 stage terms, at 110,974 keys but for the micro-batches).
 * test_perf_memo zero3_dp_at_one_micro_batch_equals_a_miss and
 * dp_sweep_matches_the_uncached_dp_time compare with perf_dp_exposed,
 * which computes every stage at its own micro-batches. */
static int dp_mb_linear(const struct stage_ctx *x)
{
	/* a row that reduce-scatters once a step (zero3_reduce_once) pays
	 * one reduce-scatter at any count: not linear */
	if (framework_get(x->p->framework)->zero3_reduce_once)
		return 0;
	return x->p->zero == 3 && !(x->m->tied_embeddings && x->pp >= 2 && (x->first || x->last));
}

/* perf_stage_dp(x, NULL) at one micro-batch (for dp_mb_linear's stages:
 * what their key holds). */
static double dp_at_one_mb(struct stage_ctx *x)
{
	int mb = x->mb;
	x->mb = 1;
	double v = perf_stage_dp(x, NULL);
	x->mb = mb;
	return v;
}

/* The exposed DP time at mb micro-batches of a stage whose key holds v:
 * v itself, or v x mb where the key is dp_mb_linear's (lin). */
static double dp_of_mb(double v, int lin, int mb)
{
	return lin ? v * mb : v;
}

static int stage_dp_key(struct stage_ctx *x, struct dp_key *dk)
{
	const struct stage *sts = x->rep->stages, *st = &sts[x->index];
	int pp_whole = x->m->tied_embeddings && (x->first || x->last);
	int pp = !pp_whole && x->pp > 2 ? 2 : x->pp;
	int end = pp_whole && x->pp >= 2 ? sts[x->first ? x->pp - 1 : 0].pool : -1;
	int layers = st->last_layer - st->first_layer + 1;
	int moe = model_moe_layers_in(x->m, st->first_layer, st->last_layer);
	long mb = framework_dp_reads_mb(x->p->framework, x->p->zero) ? x->mb : 0;
	if (mb && dp_mb_linear(x))
		mb = 1;   /* the value at one micro-batch (dp_of_mb) */
	if (!x->glob_set) {
		x->glob = perf_memo_glob(x->memo, x->p);
		x->glob_set = 1;
	}
	if (x->glob >= 1ull << 40 || mb < 0 || mb >= 1l << 24 || (unsigned)st->pool > 0xf ||
	    (unsigned)(x->other_pool + 1) > 0x1f || (unsigned)(end + 1) > 0x1f ||
	    (unsigned)pp > 0xff || (unsigned)st->tp > 0x3ff || (unsigned)layers > 0xfff ||
	    (unsigned)moe > 0xfff || x->dp < 0 || (unsigned)x->wan_dp > 0x3f)
		return -1;
	dk->glob = x->glob | (uint64_t)mb << 40;
	dk->stage = (uint64_t)st->pool | (uint64_t)(x->other_pool + 1) << 4 |
		    (uint64_t)(end + 1) << 9 | (uint64_t)pp << 14 | (uint64_t)st->tp << 22 |
		    (uint64_t)layers << 32 | (uint64_t)moe << 44 | (uint64_t)(x->index > 0) << 56 |
		    (uint64_t)(x->index + 1 < x->pp) << 57 | (uint64_t)x->wan_dp << 58;
	dk->dp = (uint32_t)x->dp;
	return 0;
}

/* perf_stage_dp(x, NULL) for x's stage (its perf_stage_compute outputs
 * in place), from the DP memo when a stage of the same DP inputs was met
 * (stage_dp_key). Issue 13, tenth round: the DP sync's collectives were a
 * third of perf_estimate's time in the DeepSeek-V3 cost search, most of
 * them missing the collective memo. */
static double stage_dp_memo(struct stage_ctx *x)
{
	struct dp_key dk;
	if (stage_dp_key(x, &dk) < 0)
		return perf_stage_dp(x, NULL);
	int lin = dp_mb_linear(x);
	const double *hit = perf_memo_dp(x->memo, &dk);
	if (hit)
		return dp_of_mb(*hit, lin, x->mb);
	double v = lin ? dp_at_one_mb(x) : perf_stage_dp(x, NULL);
	perf_memo_dp_put(x->memo, &dk, v);
	return dp_of_mb(v, lin, x->mb);
}

/* Parameter tensors the optimizer steps on the stage's GPU, one launch
 * each per pass of a per-tensor step (framework_opt_launches). A layer:
 * the two norms' weights (and biases under LayerNorm), the attention's
 * q, k, v (one fused tensor where the row's model code fuses them,
 * eager_fused_qkv, as GPT-2's c_attn) and output projections and the
 * MLP's two or, gated, three matrices, each with a bias where the model
 * has biases (q, k, v alone with qkv_bias); GPT-2 small: 12 a block,
 * Llama: 9. The first stage adds the token embedding and learned
 * positions (and an embedding norm), the last the final norm and an
 * untied output layer: GPT-2 4 in all. Simplified: a MoE layer is
 * counted as a dense one (grouped experts are a few stacked tensors);
 * DeepSpeed's engine at ZeRO 1 or more steps one flat fp32 partition a
 * parameter group (stage2.py), counted as none. */
static double opt_tensors(const struct stage_ctx *x)
{
	const struct model_spec *m = x->m;
	const struct framework_info *fw = framework_get(x->p->framework);
	if (fw->ds_engine && x->p->zero >= 1)
		return 0;
	const struct stage *st = &x->rep->stages[x->index];
	double layers = st->last_layer - st->first_layer + 1;
	int norm_bias = m->norm == NORM_LAYER;
	double qkv = fw->eager_fused_qkv ? 1 : 3;
	double mats = qkv + 1 + (m->gated_mlp ? 3 : 2);
	double biases = m->bias ? mats : m->qkv_bias ? qkv : 0;
	double per_layer = mats + biases + 2 * (1 + norm_bias);
	double ends = 0;
	if (x->first)
		ends += 1 + (m->position == POS_LEARNED) + (m->embedding_norm ? 1 + norm_bias : 0);
	if (x->last)
		ends += 1 + norm_bias + (m->tied_embeddings ? 0 : 1);
	return layers * per_layer + ends;
}

/* The stage's share of the step: compute, communication inside each
 * micro-batch, DP synchronisation after the drain, memory; no notes
 * (estimate_notes). ps is cleared here but for its group and index. */
static void stage_compute_all(struct stage_ctx *x, const struct stage_key *key,
			      struct perf_stage *ps, double *dp_exposed, double *opt_s)
{
	if (!dp_exposed) {
		/* perf_stage_times: no DP sync nor optimizer (neither is an
		 * input of the memory below). Stage cores: in the eighth
		 * round a probe's misses found one in 5% of its stages, and
		 * putting them cost more than the hits saved (1.2% more
		 * instructions on the 70B search); keyed by min(pp, 2)
		 * (core_key_of) they find most */
		stage_front_memo(x, key, ps);
		perf_stage_memory(x, ps);
		return;
	}
	stage_front_memo(x, key, ps);
	*dp_exposed = stage_dp_memo(x);
	/* The optimizer step: the framework row's HBM bytes per local
	 * parameter (framework.h, opt_bytes_per_param), on the rank's shard.
	 * Sharded, the dense parameters split over DP x CP and the experts
	 * over their own DP group, tp x cp x dp / (etp x ep) ranks
	 * (perf_expert_dp), as perf_mem.c's model_state_bytes holds them:
	 * one copy of the experts' state over the stage's tp x cp x dp GPUs.
	 * (The experts were divided by DP x CP, EP times too few ranks'
	 * worth: DeepSeek-V3 at EP 64 stepped a 64th of its expert state.) */
	double opt_params = x->params + x->eparams;
	if (x->p->zero >= 1)
		opt_params = x->params / (double)(x->dp * x->cp) +
			     (x->eparams ? x->eparams / (double)perf_expert_dp(x) : 0);
	int fp32 = x->p->precision == HP_FP32 || x->p->precision == HP_TF32;
	/* DeepSpeed 0.3's ZeRO-1 runs part of its step over the whole model
	 * (x->params + x->eparams), the rest on the shard: the row's
	 * counts, framework_opt_step_bytes. */
	enum hp_opt_impl impl = plan_opt_impl(x->p);
	*opt_s = framework_opt_step_bytes_impl(x->p->framework, fp32, x->p->zero, impl,
					       opt_params, x->params + x->eparams) / x->bw_hbm;
	/* no fp32 master (master none): 2-byte state, the row's own
	 * mixed-precision count does not apply (framework_opt_bf16_bytes) */
	if (x->p->master == MASTER_NONE)
		*opt_s = opt_params * framework_opt_bf16_bytes(x->p->framework, impl) / x->bw_hbm;
	/* The step's launches (docs/optimizer.md): tensors x launches a
	 * tensor, each costing the GPU kernel_gap_s and the host host_op_s,
	 * as every other kernel (perf_compute.c); the step takes the longer
	 * of the GPU's bytes and gaps and the host's issue time. Fused rows
	 * count no launches a tensor: unchanged. */
	double launches = framework_opt_launches(x->p->framework, impl);
	if (launches > 0) {
		double n = opt_tensors(x) * launches;
		double gpu = *opt_s + n * x->k->kernel_gap_s, host = n * x->k->host_op_s;
		*opt_s = gpu > host ? gpu : host;
	}
	if (x->p->offload == OFFLOAD_OPTIMIZER) {
		/* ZeRO-Offload: the GPU runs no Adam; the step's optimizer
		 * time is the offload's exposed time (perf_offload.c), shown
		 * as the breakdown's offload line */
		struct perf_offload o;
		perf_offload_cost(x, ps->t_bwd, &o);
		*opt_s = o.exposed_s;
	}
	if (__builtin_expect(x->p->offload == OFFLOAD_ACTIVATIONS, 0)) {
		/* activation offload (PP 1 only): its exposed copies, m per
		 * step, added after the stage's micro-batches with the
		 * optimizer's time; the breakdown shows them as offload */
		struct perf_offload o;
		perf_act_offload_cost(x, ps->t_fwd, ps->t_bwd, &o);
		*opt_s += o.exposed_s;
	}
	perf_stage_memory(x, ps);
}

/* The fields of the memo key every stage of the estimate shares (struct
 * stage_key), into x->key0; ctx_replica adds the replica group's. */
_Static_assert(sizeof(struct stage_key) == 30 * sizeof(int) + sizeof(double),
	       "key0_init sets every field of struct stage_key");
static void key0_init(struct stage_ctx *x)
{
	const struct plan *p = x->p;
	struct stage_key *key = &x->key0;
	/* every field set, the stage's own 0 (ctx_replica and stage_key_of
	 * set them), and no padding (perf_memo.c asserts the size): the bytes
	 * are set without a memset, which GCC inlines as a rep stos that cost
	 * more than these stores (issue 13, sixteenth round) */
	key->ep_tail = key->pp = key->mb = key->pool = key->tp = 0;
	key->layers = key->moe_layers = key->prev_pool = key->next_pool = 0;
	key->end_pool = key->cross = 0;
	key->mbs = p->mbs;
	/* with the FP8-parameter bit (plan_fp8_params: memory, DP gather) */
	key->precision = (int)p->precision | plan_fp8_params(p) << 8;
	/* recompute_layers too (up to 100000: bits 4-20), and the
	 * recompute_modules bits (24-30) */
	key->recompute = p->recompute | p->recompute_layers << 4 | (int)p->recompute_modules << 24;
	/* with the offload bit: it changes the memory and the optimizer
	 * time a stage entry holds */
	key->zero = p->zero | (int)p->offload << 4 | p->offload_layers << 8;   /* and its layers */
	key->schedule = p->schedule;
	key->vpp = p->vpp;
	key->cp = p->cp;
	key->ep = p->ep | p->etp << 16;   /* etp above ep (at most 4096) */
	key->sp = p->sp;
	key->flash = p->flash;
	key->loss = p->loss;
	key->master = p->master;
	/* with the plan's ep_overlap, moe_dispatch and moe_grouped_gemm keys
	 * (-1 to 2) above the framework, and the dispatcher the plan runs
	 * (plan_moe_dispatch, 0 to 2), which reads every pool of the plan,
	 * not only the stage's */
	key->framework = p->framework | (p->ep_overlap + 1) << 8 | (p->moe_dispatch + 1) << 10 |
			 (p->moe_grouped_gemm + 1) << 12 | (int)plan_moe_dispatch(p, x->c) << 14 |
			 (p->opt_impl + 1) << 16 |   /* optimizer_impl (-1 to 2) */
			 plan_compile(p) << 19;      /* compile (docs/compile.md) */
	key->tp_overlap = (p->tp_overlap + 1) | p->tp_host_sync << 4;   /* tp_host_sync too */
	key->grad_overlap = p->grad_overlap;
	key->param_overlap = p->param_overlap;
	/* with grad_accum_fusion (-1 to 1) above it */
	key->grad_fp32 = (p->grad_fp32 + 1) | (p->grad_accum_fusion + 1) << 4;
	key->dp = x->dp;
	key->other_pool = x->other_pool;
	key->s = x->s;
}

/* The memo key of the stage x is at (struct stage_key): x->key0 and the
 * stage's own fields (issue 13: setting every field per stage was 3% of
 * a search). */
static void stage_key_of(const struct stage_ctx *x, struct stage_key *key)
{
	const struct stage *sts = x->rep->stages;
	const struct stage *st = &sts[x->index];
	*key = x->key0;
	key->pool = st->pool;
	key->tp = st->tp;
	stage_key_layers(x->m, st, key);
	key->prev_pool = x->index > 0 ? sts[x->index - 1].pool : -1;
	key->next_pool = x->index + 1 < x->pp ? sts[x->index + 1].pool : -1;
	key->end_pool = x->pp < 2 ? -1 : x->first ? sts[x->pp - 1].pool
			: x->last ? sts[0].pool : -1;
	/* with the replica group's WAN-crossing DP groups above bit 2
	 * (perf_stage_dp's WAN share) */
	key->cross = x->cross_prev | x->cross_next << 1 | x->wan_dp << 2;
	/* the stage's DP peer (perf_dp_peer), which the EP group shares: it
	 * reads the plan's other replica groups, which no other field holds */
	key->other_pool = x->other_pool;
	/* read only by the EP overlap (struct stage_key) */
	key->ep_tail = x->ep_ov && x->pp > 1 ? x->pp - x->index : 0;
}

/* A memo hit for stage x: its record, group and index kept; another
 * index or micro-batch count of the same stage recomputes only the
 * memory that depends on them (perf_stage_memory_at: the activations in
 * flight; weights, gradients, optimizer state and NCCL's buffers are the
 * entry's, and no time of the record reads them: struct stage_key). */
static void stage_from_hit(struct stage_ctx *x, const struct stage_val *hit,
			   struct perf_stage *ps)
{
	record_from(x, &hit->ps, ps);
	/* loaded on every hit, not only for perf_stage_memory_at below: the
	 * next stage of the same key reads them (stage_as_previous) */
	x->act = hit->act;
	x->act_work = hit->act_work;
	x->params = hit->params;
	x->eparams = hit->eparams;
	x->unit = hit->unit;
	x->bw_hbm = hit->bw_hbm;
	if (hit->index != x->index || hit->mb != x->mb ||
	    __builtin_expect(hit->layout | (x->p->pp_layout[0] != 0), 0))
		/* another index or mb, or a pp_layout on either side (its
		 * chunks set the activations in flight, and the key holds no
		 * layout): the same stage but for its memory */
		perf_stage_memory_at(x, ps);
}

/* Stage ps of x from prev, the record of the stage before it, of the
 * same key (ctx_stage_as_previous): what the memo's entry for that key
 * gives (stage_from_hit: prev is that entry's record, but for its layer
 * range, group and index and the memory at its index), x's memory
 * inputs still prev's (perf_stage_times: computed, or loaded from the
 * hit). Only perf_stage_memory_at reads the index; it writes the
 * in-flight activations, slack, total and fit, and reads only fields no
 * index changes. So the same bits as the memo's path, without building
 * the key and looking it up (issue 13, fifteenth round: most stages of
 * a layout probe are middle stages like their neighbour). A run of such
 * stages shares perf_stage_memory_at's other terms (*run, set by the
 * run's first stage when *run_set is 0; issue 13, sixteenth round). */
static void stage_as_previous(struct stage_ctx *x, const struct perf_stage *prev,
			      struct perf_stage *ps, struct mem_run *run, int *run_set)
{
	record_from(x, prev, ps);
	if (!*run_set) {
		perf_mem_run_init(x, ps, run);
		*run_set = 1;
	}
	perf_mem_run_at(x, run, ps);
}

/* The memo entry for a stage, completed (a stage's records and memory
 * inputs) from stage_compute_all's outputs. */
static void stage_val_of(const struct stage_ctx *x, const struct perf_stage *ps,
			 double dp_exposed, double opt_s, int has_dp, struct stage_val *v)
{
	memcpy(&v->ps, ps, sizeof v->ps);   /* padding too (stage_from_hit) */
	v->dp_exposed = dp_exposed;
	v->opt_s = opt_s;
	v->index = x->index;
	v->mb = x->mb;
	v->act = x->act;
	v->act_work = x->act_work;
	v->params = x->params;
	v->eparams = x->eparams;
	v->unit = x->unit;
	v->bw_hbm = x->bw_hbm;
	v->has_dp = has_dp;
	v->layout = x->p->pp_layout[0] != 0;
}

/* e's fit and worst overflow after stage record ps (one of e->stages). */
static void stage_fit_note(struct estimate *e, const struct perf_stage *ps)
{
	if (!ps->fits) {
		e->fits = 0;
		if (ps->total - ps->slack - ps->capacity > e->worst_over_bytes) {
			e->worst_over_bytes = ps->total - ps->slack - ps->capacity;
			e->worst_stage = (int)(ps - e->stages);
		}
	}
}

/* stage_compute_all, from the memo when this stage was evaluated before
 * for the same inputs; then the estimate's fit and worst overflow. No
 * notes: the estimate notes the collectives of the two stages it reports
 * once all are evaluated (estimate_notes; issue 13: zeroing and copying
 * the 520 bytes of every stage's notes was about 30% of perf_estimate's
 * own time, perf annotate on Mixtral 8x22B, and keeping them in the memo
 * tied its entries to the micro-batch count the notes scale with). */
static void stage_eval(struct stage_ctx *x, struct estimate *e, struct perf_stage *ps,
		       double *dp_exposed, double *opt_s)
{
	struct stage_key key;
	stage_key_of(x, &key);
	const struct stage_val *hit = perf_memo_stage(x->memo, &key, x->key_h0);
	if (hit && hit->has_dp) {
		stage_from_hit(x, hit, ps);
		*dp_exposed = hit->dp_exposed;
		*opt_s = hit->opt_s;
	} else {
		stage_compute_all(x, &key, ps, dp_exposed, opt_s);
		stage_val_of(x, ps, *dp_exposed, *opt_s, 1,
			     perf_memo_stage_put(x->memo, &key, x->key_h0));
	}
	stage_fit_note(e, ps);
}

/* Pools in the plan (bit i of mask: pool i): the DP group spans all of
 * them; other_pool is one of another site if there is one (its WAN link
 * then bounds the group). */
static void plan_pools(const struct cluster *c, unsigned mask, int *other)
{
	int first = -1;
	*other = -1;
	for (int i = 0; i < c->n_pools && mask >> i; i++)
		if (mask >> i & 1) {
			if (first < 0)
				first = i;
			else if (*other < 0 || !cluster_same_site(c, first, i))
				*other = i;
		}
}

/* Throughput, MFU, cost and energy from the step time. Energy: board power
 * at a 40% idle-to-busy floor plus 60% scaled by the share of the step
 * spent computing, and 35% on top for host, NICs and fans (an estimate;
 * no measured rows yet). Cost: whole nodes of every pool the plan
 * touches. */
static void totals(const struct cluster *c, const struct model_spec *m, struct perf_memo *mo,
		   const struct plan *p, const int *used, double s, struct estimate *e)
{
	const struct perf_breakdown *bd = &e->bd;
	double tokens = (double)p->gbs * s;
	/* selective without core_attn among recompute_modules reruns no
	 * attention core; the modules' own FLOPs are added below */
	perf_memo_step_flops(mo, tokens, s,
			     p->recompute == RC_SELECTIVE && !plan_recompute_core_attn(p)
				     ? RC_NONE : p->recompute,
			     &e->model_flops, &e->hw_flops);
	if (p->recompute == RC_SELECTIVE && p->flash &&
	    !framework_get(p->framework)->selective_reruns_flash)
		e->hw_flops = e->model_flops;   /* the flash path keeps its output
						 * (framework.c, selective_reruns_flash) */
	if (p->recompute == RC_FULL && framework_get(p->framework)->remat_dce) {
		/* remat_dce: the recomputed forward leaves out every layer's
		 * down GEMM, 2 x hidden x its width FLOPs a token (the active
		 * experts' and shared experts' in an MoE layer;
		 * perf_compute.c remat_dce_skip) */
		double down = 0;
		for (int i = 0; i < m->layers; i++)
			down += 2.0 * m->hidden *
				(model_layer_is_moe(m, i)
					 ? (double)(m->moe.top_k + m->moe.shared_experts) *
						   m->moe.expert_ffn
					 : (double)m->ffn);
		e->hw_flops -= tokens * down;
	}
	if (p->recompute == RC_FULL && p->recompute_layers > 0 && p->n_replicas > 0) {
		/* recompute_layers: the recomputed forward's FLOPs for the share
		 * of layers recomputed (replica group 0's stages) */
		const struct replica *r = &p->replicas[0];
		double all = 0, rc = 0;
		for (int i = 0; i < r->n_stages; i++) {
			int n = r->stages[i].last_layer - r->stages[i].first_layer + 1;
			all += n;
			rc += plan_recompute_count(p, n);
		}
		if (all > 0)
			e->hw_flops = e->model_flops + (e->hw_flops - e->model_flops) * rc / all;
	}
	e->hw_flops += tokens * perf_rc_modules_flops(m, plan_recompute_modules(p));
	e->tokens_per_s = tokens / e->step_time_s;
	for (int i = 0; i < c->n_pools; i++)
		e->peak_flops += used[i] * perf_peak(&c->pools[i].gpu, p->precision);
	e->mfu = e->model_flops / (e->step_time_s * e->peak_flops);
	e->hfu = e->hw_flops / (e->step_time_s * e->peak_flops);
	e->model_tflops_per_gpu = e->model_flops / e->step_time_s / e->n_gpus / 1e12;
	e->price_known = 1;
	double busy = (bd->compute + bd->recompute) / e->step_time_s;
	double watts = 0;
	for (int i = 0; i < c->n_pools; i++) {
		if (!used[i])
			continue;
		const struct pool *pl = &c->pools[i];
		int nodes = (used[i] + pl->gpus_per_node - 1) / pl->gpus_per_node;
		if (pool_price_known(pl))
			e->usd_per_hour += nodes * pl->usd_per_node_h;
		else
			e->price_known = 0;
		double board_w = pl->gpu.power_limit_w > 0 && pl->gpu.power_limit_w < pl->gpu.tdp_w
					 ? pl->gpu.power_limit_w : pl->gpu.tdp_w;
		watts += used[i] * board_w * (0.4 + 0.6 * busy) * 1.35;
	}
	e->usd_per_mtok = e->price_known ? e->usd_per_hour / 3600 / e->tokens_per_s * 1e6 : 0;
	e->power_kw = watts / 1e3;
	e->joules_per_token = watts / e->tokens_per_s;
}

/* What would index out of range or divide by zero in the estimate:
 * degrees and batches below 1, no replicas or stages, a stage on a pool
 * the cluster lacks or on layers the model lacks. plan_validate() checks
 * the rest (divisibility, coverage, pool sizes); these checks are cheap
 * enough for every call. Returns 0, or -1 with err. */
static int check_plan(const struct cluster *c, const struct model_spec *m,
		      const struct plan *p, struct hp_err *err)
{
	assert((unsigned)p->precision < HP_DTYPE_COUNT && (unsigned)p->recompute < RC_COUNT &&
	       (unsigned)p->framework < FW_ROWS && p->zero >= 0 && p->zero <= 3);
	if (p->mbs < 1 || p->gbs < 1 || p->cp < 1 || p->ep < 1 ||
	    (p->schedule == SCHED_INTERLEAVED && p->vpp < 1))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "estimate: mbs, gbs, cp, ep and vpp must be at least 1 (got %d, %d, %d, %d, %d)",
				  p->mbs, p->gbs, p->cp, p->ep, p->vpp);
	if (p->n_replicas < 1 || !p->replicas)
		return hp_err_set(err, HP_EXIT_INPUT, "estimate: the plan has no replicas");
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *rp = &p->replicas[r];
		if (rp->count < 0 || rp->n_stages < 1 || !rp->stages)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "estimate: replicas[%d] has %d stages and count %d",
					  r, rp->n_stages, rp->count);
		for (int i = 0; i < rp->n_stages; i++) {
			const struct stage *st = &rp->stages[i];
			/* as unsigned: 0 <= pool < n_pools, and 0 <= first <=
			 * last < layers (a negative first is above any last
			 * that is itself not above layers), in three tests */
			if ((unsigned)st->pool >= (unsigned)c->n_pools || st->tp < 1 ||
			    (unsigned)st->first_layer > (unsigned)st->last_layer ||
			    (unsigned)st->last_layer >= (unsigned)m->layers)
				return hp_err_set(err, HP_EXIT_INPUT,
						  "estimate: replicas[%d].stages[%d]: pool %d of %d, tp %d, layers %d-%d of %d",
						  r, i, st->pool, c->n_pools, st->tp,
						  st->first_layer, st->last_layer, m->layers);
		}
	}
	return 0;
}

void perf_ctx_settings(struct stage_ctx *x)
{
	const struct plan *p = x->p;
	x->fw = framework_get(p->framework);
	x->tp_ov = plan_tp_overlap(p);
	x->grad_ov = plan_grad_overlap(p);
	x->param_ov = plan_param_overlap(p);
	x->grad_fp32 = plan_grad_fp32(p);
}

/* Which pools hold a stage of a replica group of one replica or more,
 * bit i for pool i: where plan_gpus's count (count x tp x cp, with tp
 * and cp at least 1 and pools below HP_MAX_POOLS: check_plan) is not 0,
 * without the counts, which perf_stage_times and perf_dp_exposed do not
 * report (issue 13, sixteenth round: plan_gpus was 1.6% of the 70B
 * search's instructions, most of it for them). */
_Static_assert(HP_MAX_POOLS <= 32, "a pool is a bit of an unsigned");
static unsigned plan_pool_mask(const struct plan *p)
{
	unsigned mask = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *rp = &p->replicas[r];
		if (rp->count > 0)
			for (int s = 0; s < rp->n_stages; s++)
				mask |= 1u << rp->stages[s].pool;
	}
	return mask;
}

/* The inputs every stage shares; with e, used[] gets the GPUs per pool
 * and e its GPUs and sequence length (e NULL: neither is read). */
static void ctx_init(struct stage_ctx *x, const struct cluster *c, const struct model_spec *m,
		     const struct plan *p, const struct perf_calib *k, int *used,
		     struct estimate *e)
{
	perf_zero(x, sizeof *x);
	x->c = c;
	x->m = m;
	x->p = p;
	x->k = k;
	x->memo = perf_memo_open(c, m, k);
	x->pc = perf_memo_params(x->memo);
	x->dp = plan_dp(p);
	x->cp = p->cp;
	x->s = p->seq_len ? p->seq_len : m->seq_len;
	x->T = p->mbs * x->s / p->cp;
	x->v = p->schedule == SCHED_INTERLEAVED ? p->vpp : 1;
	/* Layers checkpointed whole (full, or op-level selective): their
	 * forward runs again before the backward. */
	x->ckpt = p->recompute == RC_FULL || p->recompute == RC_SELECTIVE_OP;
	x->link_pool = -1;   /* x->fw NULL: perf_ctx_settings not run yet */
	unsigned mask = 0;
	if (e) {
		e->seq_len = (int)x->s;
		e->n_gpus = plan_gpus(p, used);
		for (int i = 0; i < c->n_pools; i++)
			mask |= (unsigned)(used[i] != 0) << i;
	} else {
		mask = plan_pool_mask(p);
	}
	plan_pools(c, mask, &x->other_pool);
	perf_peers_init(&x->peers, c, p);
	key0_init(x);
}

/* What sets the step's pace across replica groups. */
struct pace {
	double worst_pipe, worst_dp, worst_opt;
	double dp_seen;                 /* most exposed DP time of a stage */
	struct perf_stage *dp_st;       /* the first stage with it */
	struct perf_stage *crit;        /* the slowest group's slowest stage */
	double crit_m, crit_bubble;
	struct perf_stage *opt_st;      /* the first stage with worst_opt */
	struct perf_stage *wan_pp;      /* the stage whose hand-offs, one of
					 * them across a WAN, cost the most */
	double wan_pp_t;                /* mb x its t_pp */
};

/* Whether stage i of x's replica hands off across a WAN (its pool and a
 * neighbour's at two sites). */
static int stage_pp_wan(const struct stage_ctx *x, int i)
{
	const struct replica *rep = x->rep;
	int a = rep->stages[i].pool;
	return (i > 0 && !cluster_same_site(x->c, a, rep->stages[i - 1].pool)) ||
	       (i + 1 < rep->n_stages && !cluster_same_site(x->c, a, rep->stages[i + 1].pool));
}

/* Replica group r: every stage, then its pipeline. The communication
 * table describes what the breakdown does: the pace-setting group's
 * slowest stage for TP/CP/EP/PP, and the stage with the most exposed DP
 * time. Each stage notes its collectives in a scratch estimate first. */
static int stage_peer(struct stage_ctx *x, int i);

/* Point x at replica group r of its plan. */
static void ctx_replica(struct stage_ctx *x, int r, int with_key)
{
	x->rep = &x->p->replicas[r];
	x->pp = x->rep->n_stages;
	x->mb = plan_replica_microbatches(x->p, r);
	x->ep_ov = plan_ep_overlap_on(x->p, x->pp);
	x->key0.pp = x->pp;
	/* read by a stage's values only through the EP overlap and the DP
	 * terms of ZeRO-3 and DeepSpeed's ZeRO-2 (struct stage_key) */
	x->key0.mb = x->ep_ov || framework_dp_reads_mb(x->p->framework, x->p->zero) ? x->mb : 0;
	x->key_h0 = with_key ? stage_h0_cached(0, &x->key0) : 0;
	x->core_h0_set = 0;
	x->index = -2;   /* no stage yet: ctx_stage computes both crossings */
	/* The stages' DP syncs cross one WAN link at once: after the drain
	 * (or beside the last backward when overlapped) the stages start
	 * them (pp - 1 - i) micro-batch backwards apart, which a sync
	 * bound by the WAN outlasts, so each stage's DP groups (one per TP
	 * rank) share the link with every other crossing stage's.
	 * Simplified: as if they started together (the stagger, at most
	 * pp - 1 backward passes, is not credited). */
	x->wan_dp = 0;
	if (x->peers.sites && x->pp > 1) {
		int sum = 0, n = 0;
		for (int i = 0; i < x->pp; i++) {
			int peer = stage_peer(x, i), own = x->rep->stages[i].pool;
			if (peer >= 0 && !cluster_same_site(x->c, own, peer)) {
				sum += x->rep->stages[i].tp;
				n++;
			}
		}
		x->wan_dp = n >= 2 ? sum : 0;
	}
}

/* The DP peer of stage i of x's replica group (perf_dp_peer), from the
 * group's table when ctx_replica made one. */
static int stage_peer(struct stage_ctx *x, int i)
{
	return perf_peers_of(&x->peers, x->c, x->p, (int)(x->rep - x->p->replicas), i);
}

/* Point x at stage i of its replica group but for the node crossings
 * (what perf_stage_memories needs). */
static void ctx_stage_place(struct stage_ctx *x, int i)
{
	x->index = i;
	x->first = i == 0;
	x->last = i == x->pp - 1;
	x->pl = &x->c->pools[x->rep->stages[i].pool];
	x->g = &x->pl->gpu;
	x->tp = x->rep->stages[i].tp;
	int peer = stage_peer(x, i);
	if (peer != x->other_pool) {
		x->other_pool = peer;
		x->link_pool = -1;   /* link_other was the old peer's */
	}
}

/* Point x at stage i of its replica group. Stages are visited in order,
 * so the hand-off to the previous stage is the one the previous call
 * found to the next (issue 13: perf_pp_boundary_crosses twice per stage
 * key was 5% of a search). */
static void ctx_stage(struct stage_ctx *x, int i)
{
	x->cross_prev = i > 0 && x->index == i - 1 ? x->cross_next
						    : perf_pp_boundary_crosses(x, i - 1);
	x->cross_next = perf_pp_boundary_crosses(x, i);
	ctx_stage_place(x, i);
}

/* ctx_stage(x, i) for x at stage i - 1 (ctx_stage), and whether stage i
 * of x's replica group has the stage key of stage i - 1: both in the
 * middle of the pipeline (neither first nor last, so end_pool -1 for
 * both), on one pool at one TP, of as many layers and MoE layers, their
 * neighbours on one pool, the same node crossings, and no EP overlap
 * (whose ep_tail is the index). The fields key0 holds are the replica
 * group's. Checked field by field, as stage_key_of sets them, without
 * building either key. When it has, only x's index and crossings move:
 * first, last, the pool, its GPU and TP are stage i - 1's, the same
 * (issue 13, sixteenth round: most stages of a layout probe). */
static int ctx_stage_as_previous(struct stage_ctx *x, int i)
{
	if (i < 2 || i >= x->pp - 1 || x->ep_ov || x->index != i - 1) {
		ctx_stage(x, i);
		return 0;
	}
	const struct stage *sts = x->rep->stages;
	const struct stage *a = &sts[i - 1], *b = &sts[i];
	int prev_cross = x->cross_prev | x->cross_next << 1;
	x->cross_prev = x->cross_next;
	x->cross_next = perf_pp_boundary_crosses(x, i);
	int same = a->pool == b->pool && a->tp == b->tp && sts[i - 2].pool == a->pool &&
		   sts[i + 1].pool == b->pool && (x->cross_prev | x->cross_next << 1) == prev_cross;
	if (same && !(a->first_layer == b->first_layer && a->last_layer == b->last_layer))
		same = a->last_layer - a->first_layer == b->last_layer - b->first_layer &&
		       model_moe_layers_in(x->m, a->first_layer, a->last_layer) ==
		       model_moe_layers_in(x->m, b->first_layer, b->last_layer);
	/* the DP peer reads the layers' holders in other replica groups */
	if (same)
		same = stage_peer(x, i) == x->other_pool;
	if (same) {
		x->index = i;
		return 1;
	}
	ctx_stage_place(x, i);
	return 0;
}

/* What perf_estimate and perf_stage_times start with: the plan checked,
 * e zeroed with one stage record per stage of every replica group. */
static int estimate_begin(const struct cluster *c, const struct model_spec *m,
			  const struct plan *p, struct estimate *e, struct hp_err *err)
{
	perf_zero(e, sizeof *e);
	if (check_plan(c, m, p, err) < 0)
		return -1;
	int total_stages = 0;
	for (int r = 0; r < p->n_replicas; r++)
		total_stages += p->replicas[r].n_stages;
	/* a spare of this length when this thread freed one (a search's
	 * layout probes free theirs at once); not zeroed: every record is
	 * written whole (stage_eval, perf_stage_times) */
	e->stages = perf_memo_stages_take(total_stages);
	e->n_stages = total_stages;
	return 0;
}

/* The fill and drain of a pipeline whose virtual stages the plan's
 * pp_layout gives (plan.h), with st[0..pp) its stages' records and crit
 * the slowest's index. Under the interleaved schedule the slowest rank
 * waits, per step, for each rank before it to run one chunk forward and,
 * at the end, the same chunk backward (chunk 0: the first micro-batch
 * enters and the last leaves through it), and for each rank after it to
 * run the last chunk forward and backward (the turn from forward to
 * backward is the last virtual stage). A chunk's share of its rank's
 * time is its transformer layers over the rank's (pp_layout_chunk_share).
 * With equal chunks this is (sum - slowest) / v, the formula the caller
 * then keeps (pp_layout_even: the same bits as without the layout); the
 * chunks' own costs (dense and MoE layers, the embedding and output
 * layer) are not told apart: a simplification. */
static double layout_fill(const struct pp_layout *L, const struct perf_stage *st, int pp,
			  int crit)
{
	int vp = L->n / pp;
	double fill = 0;
	for (int i = 0; i < pp; i++)
		if (i != crit)
			fill += st[i].t_total * pp_layout_chunk_share(L, pp, i, i < crit ? 0 : vp - 1);
	return fill;
}

/* Replica group r: every stage, then its pipeline; what sets the pace
 * into pc (the stages to note: estimate_notes). */
static void replica_eval(struct stage_ctx *x, int r, struct estimate *e, int *si,
			 struct pace *pc)
{
	ctx_replica(x, r, 1);
	double sum_t = 0, max_t = 0;
	struct perf_stage *max_st = NULL;
	for (int i = 0; i < x->pp; i++) {
		struct perf_stage *ps = &e->stages[(*si)++];
		ctx_stage(x, i);
		ps->group = r;
		ps->index = i;
		double dpx, opt;
		stage_eval(x, e, ps, &dpx, &opt);
		sum_t += ps->t_total;
		if (ps->t_total > max_t) {
			max_t = ps->t_total;
			max_st = ps;
		}
		if (dpx > pc->dp_seen) {
			pc->dp_seen = dpx;
			pc->dp_st = ps;
		}
		pc->worst_dp = perf_fmax(pc->worst_dp, dpx);
		if (opt > pc->worst_opt || !pc->opt_st)
			pc->opt_st = ps;
		pc->worst_opt = perf_fmax(pc->worst_opt, opt);
		if (stage_pp_wan(x, i) && x->mb * ps->t_pp > pc->wan_pp_t) {
			pc->wan_pp_t = x->mb * ps->t_pp;
			pc->wan_pp = ps;
		}
	}
	/* Pipeline of unequal stages: m x the slowest, plus warm-up and
	 * drain through the others (one chunk of each, v chunks a stage). */
	double fill = (sum_t - max_t) / x->v;
	const struct pp_layout *L = x->p->pp_layout[0] ? plan_pp_layout(x->p) : NULL;
	if (L && max_st && L->n % x->pp == 0 && !pp_layout_even(L, x->pp))
		fill = layout_fill(L, &e->stages[*si - x->pp], x->pp, max_st->index);
	double pipe = x->mb * max_t + fill;
	if (pipe > pc->worst_pipe) {
		pc->worst_pipe = pipe;
		e->slowest_group = r;
		pc->crit = max_st;
		pc->crit_m = x->mb;
		pc->crit_bubble = fill;
	}
}

/* The collectives stage ps notes into notes->comm: with kind 0 those of
 * its micro-batches and its DP sync, with kind 1 its DP sync's alone;
 * from the notes memo, else noted on zeroed notes and put. */
static void stage_notes(struct stage_ctx *x, const struct perf_stage *ps, int kind,
			struct estimate *notes)
{
	struct stage_key nk;
	ctx_replica(x, ps->group, 0);
	ctx_stage(x, ps->index);
	stage_key_of(x, &nk);
	nk.mb = x->mb;
	const struct perf_comm *hit = perf_memo_notes(x->memo, &nk, kind);
	if (hit) {
		memcpy(notes->comm, hit, sizeof notes->comm);
		return;
	}
	memset(notes->comm, 0, sizeof notes->comm);
	if (kind == 0) {
		struct perf_stage scratch;
		stage_front(x, notes, &scratch);
	} else {
		perf_stage_compute(x);   /* the DP sync reads its outputs only */
	}
	perf_stage_dp(x, notes);
	memcpy(perf_memo_notes_put(x->memo, &nk, kind), notes->comm, sizeof notes->comm);
}

/* The communication table: the collectives the pace-setting group's
 * slowest stage (pc->crit) notes for TP/CP/EP/PP, its DP sync's tied
 * embeddings included, and those of the DP sync of the stage with the
 * most exposed DP time (pc->dp_st), each noted by the stage functions on
 * zeroed notes for that stage alone, as an evaluation of all stages with
 * notes kept per stage would have. The stage functions are functions of
 * the context ctx_replica and ctx_stage set (the memo's keys rest on
 * that), and their notes are a side output that changes no time. From
 * the notes memo when the stage was noted before (perf_memo_notes: its
 * stage key with the micro-batches, which the notes scale with). */
static void estimate_notes(struct stage_ctx *x, const struct pace *pc, struct estimate *e)
{
	struct estimate notes;
	if (pc->crit) {
		stage_notes(x, pc->crit, 0, &notes);
		for (int d = 0; d < DIM_COUNT; d++)
			if (d != DIM_DP)
				e->comm[d] = notes.comm[d];
	}
	if (pc->dp_st && pc->dp_st != pc->crit)
		stage_notes(x, pc->dp_st, 1, &notes);
	if (pc->dp_st)
		e->comm[DIM_DP] = notes.comm[DIM_DP];
	/* a WAN hand-off off the pace-setting stage: its own row (the links
	 * line names it; wan50) */
	memset(&e->pp_wan, 0, sizeof e->pp_wan);
	if (pc->wan_pp && pc->wan_pp != pc->crit && !strstr(e->comm[DIM_PP].link, " + WAN ")) {
		stage_notes(x, pc->wan_pp, 0, &notes);
		if (strstr(notes.comm[DIM_PP].link, " + WAN ")) {
			e->pp_wan = notes.comm[DIM_PP];
			e->pp_wan_group = pc->wan_pp->group;
			e->pp_wan_stage = pc->wan_pp->index;
		}
	}
}

/* An offload's host bytes a GPU of x's stage (x at it, with the stage's
 * parameters computed), its stage record ps. */
static void offload_stage(struct stage_ctx *x, const struct perf_stage *ps,
			  struct perf_offload *o)
{
	if (x->p->offload == OFFLOAD_ACTIVATIONS)
		perf_act_offload_cost(x, ps->t_fwd, ps->t_bwd, o);
	else
		perf_offload_cost(x, ps->t_bwd, o);
}

/* ZeRO-Offload's terms for stage ps, the one with the most exposed
 * offload time, into e->offload (what estimate prints: host memory per
 * node, bytes over the link, the exposed parts). */
static void offload_notes(struct stage_ctx *x, const struct perf_stage *ps, struct estimate *e)
{
	/* Every stage's terms (ps's into e->offload), the parameters and
	 * the backward they read computed per stage; then the host side
	 * against the node's memory: every stage's pinned buffers, summed
	 * over the GPUs each node hosts (perf_offload_host_nodes); a plan
	 * whose fullest node's host cannot hold them does not fit. */
	double *per_gpu = xcalloc((size_t)e->n_stages, sizeof *per_gpu);
	int si = 0;
	for (int r = 0; r < x->p->n_replicas; r++) {
		ctx_replica(x, r, 0);
		for (int i = 0; i < x->pp && si < e->n_stages; i++, si++) {
			struct perf_offload other = { 0 };
			struct perf_offload *o = &e->stages[si] == ps ? &e->offload : &other;
			ctx_stage(x, i);
			perf_stage_compute(x);
			offload_stage(x, &e->stages[si], o);
			per_gpu[si] = o->host_bytes_per_gpu;
		}
	}
	perf_offload_host_nodes(x->c, x->p, per_gpu, &e->offload);
	free(per_gpu);
	if (e->offload.host_over)
		e->fits = 0;
}

/* The step's breakdown and time from what set its pace. */
static void breakdown(const struct pace *pc, const struct perf_calib *k, struct estimate *e)
{
	struct perf_breakdown *bd = &e->bd;
	const struct perf_stage *crit = pc->crit;
	double crit_m = pc->crit_m;
	if (crit) {
		bd->compute = crit_m * (crit->t_fwd + crit->t_bwd);
		bd->recompute = crit_m * crit->t_recompute;
		bd->tp_comm = crit_m * crit->t_tp;
		bd->pp_comm = crit_m * crit->t_pp;
		bd->cp_comm = crit_m * crit->t_cp;
		bd->ep_comm = crit_m * crit->t_ep;
		bd->bubble = pc->crit_bubble;
		bd->overhead = crit_m * crit->t_host_stall;
	}
	bd->dp_comm = pc->worst_dp;
	bd->optimizer = pc->worst_opt;
	if (e->offload.kind == OFFLOAD_ACTIVATIONS) {
		/* activation offload: its exposed copies were added to the
		 * stage's optimizer time (stage_compute_all) */
		bd->offload = e->offload.exposed_s;
		bd->optimizer = perf_fmax(0, bd->optimizer - bd->offload);
	} else if (e->offload.exposed_s > 0) {
		/* ZeRO-Offload: the optimizer time is the offload's */
		bd->offload = bd->optimizer;
		bd->optimizer = 0;
	}
	bd->overhead += k->step_overhead_s;
	e->step_time_s = pc->worst_pipe + pc->worst_dp + pc->worst_opt + k->step_overhead_s;
}

int perf_estimate(const struct cluster *c, const struct model_spec *m,
		  const struct plan *p, const struct perf_calib *k,
		  struct estimate *e, struct hp_err *err)
{
	if (!k)
		k = perf_calib_default();
	if (estimate_begin(c, m, p, e, err) < 0)
		return -1;
	e->fits = 1;
	e->worst_stage = -1;
	struct stage_ctx x;
	int used[HP_MAX_POOLS];
	ctx_init(&x, c, m, p, k, used, e);
	struct pace pc = { .dp_seen = -1 };
	int si = 0;
	for (int r = 0; r < p->n_replicas; r++)
		replica_eval(&x, r, e, &si, &pc);
	estimate_notes(&x, &pc, e);
	if (p->offload != OFFLOAD_NONE && pc.opt_st)
		offload_notes(&x, pc.opt_st, e);
	breakdown(&pc, k, e);
	totals(c, m, x.memo, p, used, x.s, e);
	return 0;
}

/* Whether stage i of x's replica group has the exposed DP time of stage
 * i - 1: both in the middle of the pipeline (no embedding, output layer
 * or tied-embedding sync), on one pool with one TP degree, holding as
 * many dense and MoE layers. perf_stage_compute and perf_stage_dp read
 * nothing else of a stage (its index only to find it, and the neighbours'
 * pools and node crossings not at all), so the two compute the same
 * value, and the maximum over the stages does not need it twice (issue
 * 13, eighth round: the DP terms of a Mixtral 8x22B search were 6.7% of
 * its instructions). */
static int dp_as_previous(struct stage_ctx *x, int i)
{
	if (i < 2 || i >= x->pp - 1)
		return 0;
	const struct stage *a = &x->rep->stages[i - 1], *b = &x->rep->stages[i];
	return a->pool == b->pool && a->tp == b->tp &&
	       a->last_layer - a->first_layer == b->last_layer - b->first_layer &&
	       model_moe_layers_in(x->m, a->first_layer, a->last_layer) ==
	       model_moe_layers_in(x->m, b->first_layer, b->last_layer) &&
	       stage_peer(x, i - 1) == stage_peer(x, i);
}

/* perf_stage_compute(x) for x's stage, whose DP memo key is dk
 * (stage_dp_key), from the compute memo when a stage of the same key but
 * for its DP degree was computed (perf_memo_comp: its outputs that a
 * stage core keeps, core_save, which are all perf_stage_dp reads of
 * them: stage_compute_all calls it after a core hit). perf_stage_compute
 * reads of the stage its pool, TP, layers and MoE layers, whether it is
 * first or last and whether pp > 1, of the plan its settings, and not
 * the DP degree (struct stage_mem_in says what it reads), all in dk's
 * glob and stage words; so an entry holds the bits it computes here.
 * Issue 13, nineteenth round: the candidates' DP screen misses the DP
 * memo where a stage shape meets a new DP degree, and computed the
 * stage again each time (16K calls, 8.3M instructions of the 70B search
 * on 1,024 GPUs). */
static void dp_compute_memo(struct stage_ctx *x, const struct dp_key *dk)
{
	const struct stage_comp *hit = perf_memo_comp(x->memo, dk);
	if (hit) {
		core_load(x, hit);
		return;
	}
	perf_stage_compute(x);
	core_save(x, perf_memo_comp_put(x->memo, dk));
}

/* Stages of a replica group whose DP memo slots dp_run_memo asks for
 * before it reads the first of them. */
enum { DP_AHEAD = 16 };

/* The most of worst and stages [i0, i1)'s exposed DP times through the
 * DP memo (stage_dp_key, perf_memo_dp: a miss computed and put; a stage
 * without a key computed), stage by stage in order: first every stage's key,
 * each slot asked of the cache (perf_memo_dp_ahead), then the lookups.
 * The slots of one plan's stages lie far apart in the 0.5 MB table, and a
 * lookup waited for its line in turn (issue 13, sixteenth round:
 * perf_memo_dp 4% of the samples for 0.65% of the instructions); the
 * keys (stage_dp_key, with the stage placed: ctx_stage_place) are kept,
 * and a miss places its stage again before computing it. */
static double dp_run_memo(struct stage_ctx *x, int i0, int i1, double worst)
{
	struct dp_key dk[DP_AHEAD];
	signed char how[DP_AHEAD];   /* 0 skip (dp_as_previous), 1 keyed, -1 not */
	char lins[DP_AHEAD];         /* keyed at one micro-batch (dp_mb_linear) */
	for (int i = i0; i < i1; i++) {
		how[i - i0] = 0;
		lins[i - i0] = 0;
		if (dp_as_previous(x, i))
			continue;
		ctx_stage_place(x, i);
		how[i - i0] = stage_dp_key(x, &dk[i - i0]) < 0 ? -1 : 1;
		lins[i - i0] = (char)(how[i - i0] > 0 && dp_mb_linear(x));
		if (how[i - i0] > 0)
			perf_memo_dp_ahead(x->memo, &dk[i - i0]);
	}
	for (int i = i0; i < i1; i++) {
		int h = how[i - i0];
		if (!h)
			continue;
		const double *hit = h > 0 ? perf_memo_dp(x->memo, &dk[i - i0]) : NULL;
		int lin = lins[i - i0];
		if (hit) {
			worst = perf_fmax(worst, dp_of_mb(*hit, lin, x->mb));
			continue;
		}
		ctx_stage_place(x, i);
		if (h > 0)
			dp_compute_memo(x, &dk[i - i0]);
		else
			perf_stage_compute(x);
		double v = lin ? dp_at_one_mb(x) : perf_stage_dp(x, NULL);
		if (h > 0)
			perf_memo_dp_put(x->memo, &dk[i - i0], v);
		worst = perf_fmax(worst, dp_of_mb(v, lin, x->mb));
	}
	return worst;
}

static int dp_exposed(const struct cluster *c, const struct model_spec *m,
		      const struct plan *p, const struct perf_calib *k, int with_memo,
		      double *dp_s, struct hp_err *err)
{
	*dp_s = 0;
	if (check_plan(c, m, p, err) < 0)
		return -1;
	struct stage_ctx x;
	ctx_init(&x, c, m, p, k, NULL, NULL);
	double worst = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		/* no stage memo key: the DP memo's is stage_dp_key's */
		ctx_replica(&x, r, 0);
		if (with_memo) {
			for (int i = 0; i < x.pp; i += DP_AHEAD)
				worst = dp_run_memo(&x, i, HP_MIN(x.pp, i + DP_AHEAD), worst);
			continue;
		}
		for (int i = 0; i < x.pp; i++) {
			if (dp_as_previous(&x, i))
				continue;
			/* no node crossings: perf_stage_compute, perf_stage_dp
			 * and stage_dp_key read none (they stay 0) */
			ctx_stage_place(&x, i);
			perf_stage_compute(&x);
			worst = perf_fmax(worst, perf_stage_dp(&x, NULL));
		}
	}
	*dp_s = worst;
	return 0;
}

/* perf_estimate's bd.dp_comm alone: per stage only what perf_stage_dp
 * reads (perf_stage_compute: the stage's parameters and its forward,
 * backward and recompute times; the TP/CP/EP/PP collectives of
 * perf_comm.c write nothing into the context, so skipping them changes
 * no input of perf_stage_dp). The stage memo is neither read nor put:
 * an entry would lack the stage's other terms, and the DP terms' stages
 * (the bound's layouts at each DP range's degree) never met an entry
 * (issue 13, eighth round: 0 hits in 251,365 lookups of a Mixtral 8x22B
 * search, 47,548 of a 70B one). The same expressions on the same inputs
 * as perf_estimate, so the same bits. */
int perf_dp_exposed(const struct cluster *c, const struct model_spec *m,
		    const struct plan *p, const struct perf_calib *k, double *dp_s,
		    struct hp_err *err)
{
	return dp_exposed(c, m, p, k ? k : perf_calib_default(), 0, dp_s, err);
}

/* perf_dp_exposed of p at n pairs of overlap keys (grad[v],
 * param[v]) into dp_s[v], each stage's perf_stage_compute once for all
 * of them: it reads neither overlap (they reach perf_stage_dp only
 * through perf_ctx_settings: plan_grad_overlap, plan_param_overlap), and
 * perf_stage_dp writes nothing into the context that another call reads
 * but its link cache. So each dp_s[v] is the bits perf_dp_exposed gives
 * for p with those keys (issue 13, seventeenth round: the bound's DP
 * terms asked it once per pair, two to six pairs a layout, computing
 * every stage again for each). */
int perf_dp_exposed_each(const struct cluster *c, const struct model_spec *m,
			 const struct plan *p, const int *grad, const int *param, int n,
			 double *dp_s, struct hp_err *err)
{
	for (int v = 0; v < n; v++)
		dp_s[v] = 0;
	if (check_plan(c, m, p, err) < 0)
		return -1;
	struct plan q = *p;
	struct stage_ctx x;
	ctx_init(&x, c, m, &q, perf_calib_default(), NULL, NULL);
	/* each pair's settings once (perf_ctx_settings: of them only
	 * grad_ov and param_ov read the overlap keys) */
	int gov[PERF_DP_PAIRS], pov[PERF_DP_PAIRS];
	assert(n <= PERF_DP_PAIRS);
	for (int v = 0; v < n; v++) {
		q.grad_overlap = grad[v];
		q.param_overlap = param[v];
		perf_ctx_settings(&x);
		gov[v] = x.grad_ov;
		pov[v] = x.param_ov;
	}
	for (int r = 0; r < q.n_replicas; r++) {
		ctx_replica(&x, r, 0);
		for (int i = 0; i < x.pp; i++) {
			if (dp_as_previous(&x, i))
				continue;
			ctx_stage_place(&x, i);   /* no crossings: dp_exposed */
			perf_stage_compute(&x);
			for (int v = 0; v < n; v++) {
				q.grad_overlap = grad[v];
				q.param_overlap = param[v];
				x.grad_ov = gov[v];
				x.param_ov = pov[v];
				dp_s[v] = perf_fmax(dp_s[v], perf_stage_dp(&x, NULL));
			}
		}
	}
	return 0;
}

/* perf_dp_exposed through the DP memo perf_estimate keeps (stage_dp_key,
 * perf_memo_dp): a stage whose DP inputs an estimate or a call before met
 * costs its key alone. The memo's value is perf_stage_dp's on the same
 * inputs, so the same bits as perf_dp_exposed; a miss computes the stage
 * as perf_dp_exposed does and stores it. For the planner's candidate
 * screen (search_combo.c), whose plans share their stages with the
 * estimates around them. */
int perf_dp_exposed_memo(const struct cluster *c, const struct model_spec *m,
			 const struct plan *p, double *dp_s, struct hp_err *err)
{
	return dp_exposed(c, m, p, perf_calib_default(), 1, dp_s, err);
}

/* perf_dp_exposed_memo of one plan at many DP degrees (perf.h,
 * perf_dp_sweep_begin): the plan's stages, copied, and the DP memo keys
 * of the stages dp_exposed looks up (every stage but those dp_as_previous
 * skips), each key once, with the context placed as dp_exposed places
 * it. A stage's exposed DP time reads the plan's DP degree only as
 * x->dp (perf_comm.c perf_stage_dp: the DP and expert-DP groups, the
 * buckets; perf_expert_dp), which neither the placement (ctx_replica,
 * ctx_stage_place: the pool, TP, first / last and the DP peer, which
 * reads which pools hold a stage's layers in groups of one replica or
 * more, not how many), nor perf_stage_compute, nor the key's other
 * words read (stage_dp_key: dk.dp alone is x->dp). Under ZeRO-3 a
 * stage's time reads the group's micro-batches (x->mb, from its share,
 * and the key's glob word): asked with mb, every group's share is set as
 * search_combo.c's dp_plan_of sets it. So at degree N the
 * sweep's lookups and computes are dp_exposed's for the plan with N
 * replicas, and the maximum of the same values is the same bits. One
 * sweep a thread: the planner's DP screen keeps one a layout set
 * (search_combo.c); a set's plans at other counts are the same stages.
 * Issue 13, twenty-third round: the screen's calls spent more on the
 * context, the placements and the keys of about 8 stages a call than on
 * the stages missing the memo. */
enum { DPS_REPS = 64, DPS_STAGES = 512 };
static _Thread_local struct dp_sweep {
	unsigned long serial;    /* 0: none */
	const struct cluster *c;
	const struct model_spec *m;
	struct perf_memo *memo;
	uint64_t epoch;          /* the memo's (perf_memo_epoch) at the start */
	uint64_t glob;           /* the plan's settings' serial (perf_memo_glob) */
	struct plan q;           /* the plan, its groups and stages below */
	struct replica rep[DPS_REPS];
	struct stage st[DPS_STAGES];
	struct stage_ctx x;
	int n;                   /* entries */
	struct dp_sweep_e {
		short r, i;      /* the group and stage to place on a miss */
		int keyed;       /* stage_dp_key gave dk (else: computed each time) */
		int lin;         /* keyed at one micro-batch (dp_mb_linear) */
		struct dp_key dk;
	} e[DPS_STAGES];
} sweep;
static _Thread_local unsigned long sweep_serials;

unsigned long perf_dp_sweep_begin(const struct cluster *c, const struct model_spec *m,
				  const struct plan *p, struct hp_err *err)
{
	struct dp_sweep *s = &sweep;
	s->serial = 0;
	if (check_plan(c, m, p, err) < 0)
		return 0;
	if (p->n_replicas > DPS_REPS)
		return 0;
	int n_st = 0;
	for (int r = 0; r < p->n_replicas; r++)
		n_st += p->replicas[r].n_stages;
	if (n_st > DPS_STAGES)
		return 0;
	s->q = *p;
	s->q.replicas = s->rep;
	n_st = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *a = &p->replicas[r];
		s->rep[r] = *a;
		s->rep[r].stages = s->st + n_st;
		memcpy(s->st + n_st, a->stages, (size_t)a->n_stages * sizeof *a->stages);
		n_st += a->n_stages;
	}
	struct stage_ctx *x = &s->x;
	ctx_init(x, c, m, &s->q, perf_calib_default(), NULL, NULL);
	s->n = 0;
	for (int r = 0; r < s->q.n_replicas; r++) {
		ctx_replica(x, r, 0);
		for (int i = 0; i < x->pp; i++) {
			if (dp_as_previous(x, i))
				continue;
			ctx_stage_place(x, i);
			struct dp_sweep_e *e = &s->e[s->n];
			e->r = (short)r;
			e->i = (short)i;
			e->keyed = stage_dp_key(x, &e->dk) == 0;
			e->lin = e->keyed && dp_mb_linear(x);
			int dup = 0;
			for (int j = 0; e->keyed && j < s->n && !dup; j++)
				dup = s->e[j].keyed && s->e[j].dk.glob == e->dk.glob &&
				      s->e[j].dk.stage == e->dk.stage;
			if (!dup)
				s->n++;
		}
	}
	/* the settings' serial, without ZeRO-3's micro-batches (stage_dp_key
	 * keeps it below bit 40) */
	s->glob = x->glob_set ? x->glob : perf_memo_glob(x->memo, &s->q);
	if (s->glob >= 1ull << 40)
		return 0;
	s->c = c;
	s->m = m;
	s->memo = x->memo;
	s->epoch = perf_memo_epoch(x->memo);
	if (!++sweep_serials)
		++sweep_serials;
	s->serial = sweep_serials;
	return s->serial;
}

int perf_dp_sweep_at(unsigned long serial, const struct cluster *c, const struct model_spec *m,
		     int dp, int mb, double *dp_s)
{
	struct dp_sweep *s = &sweep;
	*dp_s = 0;
	if (!serial || serial != s->serial || c != s->c || m != s->m || dp < 0 || mb < 0)
		return -1;
	struct perf_memo *mo = perf_memo_open(c, m, perf_calib_default());
	if (mo != s->memo || perf_memo_epoch(mo) != s->epoch)
		return -1;
	struct stage_ctx *x = &s->x;
	uint64_t glob = s->glob, glob1 = s->glob | 1ull << 40;
	int reads_mb = framework_dp_reads_mb(s->q.framework, s->q.zero);
	long k = 0;
	if (mb > 0) {
		/* every group at mb micro-batches (ctx_replica reads its
		 * share: x->mb), the key's micro-batch word with it where the
		 * DP term reads them (stage_dp_key) */
		for (int r = 0; r < s->q.n_replicas; r++)
			s->rep[r].batch_share = (double)mb * s->q.mbs / s->q.gbs;
		k = reads_mb ? plan_replica_microbatches(&s->q, 0) : 0;
		if (k < 0 || k >= 1l << 24)
			return -1;
		glob |= (uint64_t)k << 40;
	} else if (reads_mb) {
		return -1;   /* ZeRO-3 and DeepSpeed's ZeRO-2 are asked with
			      * their micro-batches */
	}
	x->dp = dp;
	x->link_pool = -1;   /* the links are looked up again (perf_memo_link) */
	for (int j = 0; j < s->n; j++)
		if (s->e[j].keyed) {
			s->e[j].dk.glob = s->e[j].lin ? glob1 : glob;
			s->e[j].dk.dp = (uint32_t)dp;
			perf_memo_dp_ahead(mo, &s->e[j].dk);
		}
	double worst = 0;
	for (int j = 0; j < s->n; j++) {
		struct dp_sweep_e *e = &s->e[j];
		const double *hit = e->keyed ? perf_memo_dp(mo, &e->dk) : NULL;
		if (hit) {
			/* every group at k micro-batches: ctx_replica's x->mb */
			worst = perf_fmax(worst, dp_of_mb(*hit, e->lin, (int)k));
			continue;
		}
		ctx_replica(x, e->r, 0);
		ctx_stage_place(x, e->i);
		if (e->keyed)
			dp_compute_memo(x, &e->dk);
		else
			perf_stage_compute(x);
		double v = e->lin ? dp_at_one_mb(x) : perf_stage_dp(x, NULL);
		if (e->keyed)
			perf_memo_dp_put(mo, &e->dk, v);
		worst = perf_fmax(worst, dp_of_mb(v, e->lin, x->mb));
	}
	*dp_s = worst;
	return 0;
}

/* ctx_stage_as_previous(x, i) for stage i of a layer range after the
 * first of perf_stage_times_each, from what the first range's call left
 * in walk[i] (bit 0: the stage's crossing to the next, x->cross_next;
 * bit 1: its return), or that call itself with walk[i] set (have 0;
 * walk NULL: neither). Neither perf_pp_boundary_crosses nor the test of
 * ctx_stage_as_previous reads a stage's layers but to compare those of
 * two stages, which every stage of one range shares (the test's
 * layers and MoE layers are then equal): so every range finds the same
 * crossings and the same stages like their previous, and x's index,
 * crossings and placement are those ctx_stage_as_previous leaves. The
 * crossing into stage i is stage i - 1's to the next (ctx_stage), 0 for
 * the first stage (perf_pp_boundary_crosses of index -1). Issue 13,
 * nineteenth round: perf_pp_boundary_crosses ran for every stage of
 * every range, 216K calls in the 70B search on 1,024 GPUs. */
static int ctx_stage_walk(struct stage_ctx *x, int i, unsigned char *walk, int have)
{
	if (!walk)
		return ctx_stage_as_previous(x, i);
	if (!have) {
		int same = ctx_stage_as_previous(x, i);
		walk[i] = (unsigned char)(x->cross_next | same << 1);
		return same;
	}
	x->cross_prev = i > 0 ? walk[i - 1] & 1 : 0;
	x->cross_next = walk[i] & 1;
	if (walk[i] & 2) {
		x->index = i;
		return 1;
	}
	ctx_stage_place(x, i);
	return 0;
}

/* perf_stage_times's records of replica group r, x pointed at it
 * (ctx_replica), into e from record *si on; walk, have: ctx_stage_walk's
 * (walk from the group's first stage). */
static void stage_times_group(struct stage_ctx *x, int r, struct estimate *e, int *si,
			      unsigned char *walk, int have)
{
	struct mem_run run;
	int run_set = 0;
	for (int i = 0; i < x->pp; i++) {
		struct perf_stage *ps = &e->stages[(*si)++];
		ps->group = r;
		ps->index = i;
		if (ctx_stage_walk(x, i, walk, have)) {
			stage_as_previous(x, ps - 1, ps, &run, &run_set);
			continue;
		}
		run_set = 0;
		struct stage_key key;
		stage_key_of(x, &key);
		const struct stage_val *hit = perf_memo_stage(x->memo, &key, x->key_h0);
		if (hit) {
			stage_from_hit(x, hit, ps);
		} else {
			stage_compute_all(x, &key, ps, NULL, NULL);
			stage_val_of(x, ps, 0, 0, 0, perf_memo_stage_put(x->memo, &key, x->key_h0));
		}
	}
}

/* perf_estimate's stage records alone (times, memory, capacity): the
 * memo's on a hit, else stage_compute_all without the DP sync and the
 * optimizer, which nothing in a stage record reads (perf_comm.c writes
 * nothing into the stage context, and perf_stage_memory reads the
 * context only); such a miss is put into the memo marked without them
 * (has_dp 0), for the next perf_stage_times of the stage. The same
 * expressions on the same inputs, so the same bits as perf_estimate's
 * e->stages. */
int perf_stage_times(const struct cluster *c, const struct model_spec *m,
		     const struct plan *p, const struct perf_calib *k, struct estimate *e,
		     struct hp_err *err)
{
	if (!k)
		k = perf_calib_default();
	if (estimate_begin(c, m, p, e, err) < 0)
		return -1;
	struct stage_ctx x;
	int si = 0;
	ctx_init(&x, c, m, p, k, NULL, NULL);
	for (int r = 0; r < p->n_replicas; r++) {
		ctx_replica(&x, r, 1);
		stage_times_group(&x, r, e, &si, NULL, 0);
	}
	return 0;
}

/* perf_stage_times of p with every stage at each layer range in turn.
 * Nothing ctx_init and ctx_replica set reads a stage's layers (key0_init
 * leaves the key's layers 0; the replica group's depth, micro-batches
 * and key hash are the plan's), nor does check_plan but for the range
 * test: so the context after them, kept from the first range, is the
 * one each later range would build, and a later range that passes the
 * range test passes check_plan. Each estimate's records are the bits
 * perf_stage_times gives (issue 13, eighteenth round: a layout's two or
 * three probes set their contexts up again, about 1K instructions a
 * probe of the 70B search on 1,024 GPUs). */
int perf_stage_times_each(const struct cluster *c, const struct model_spec *m,
			  struct plan *p, const int *first, const int *last, int n,
			  void (*take)(void *arg, int v, const struct estimate *e), void *arg,
			  struct hp_err *err)
{
	struct stage_ctx x0, x;
	int records = 0;
	/* each stage's walk (ctx_stage_walk), from the first range */
	unsigned char walk[256];
	for (int v = 0; v < n; v++) {
		for (int r = 0; r < p->n_replicas; r++)
			for (int i = 0; i < p->replicas[r].n_stages; i++) {
				p->replicas[r].stages[i].first_layer = first[v];
				p->replicas[r].stages[i].last_layer = last[v];
			}
		struct estimate e;
		if (v == 0 || (unsigned)first[v] > (unsigned)last[v] ||
		    (unsigned)last[v] >= (unsigned)m->layers) {
			if (estimate_begin(c, m, p, &e, err) < 0)
				return -1;
		} else {
			/* estimate_begin but for check_plan, passed above */
			perf_zero(&e, sizeof e);
			e.stages = perf_memo_stages_take(records);
			e.n_stages = records;
		}
		if (v == 0) {
			ctx_init(&x0, c, m, p, perf_calib_default(), NULL, NULL);
			ctx_replica(&x0, 0, 1);
			records = e.n_stages;
		}
		/* the last range may use x0 itself */
		struct stage_ctx *px = &x0;
		if (v < n - 1) {
			x = x0;
			px = &x;
		}
		int si = 0;
		unsigned char *w = records <= (int)sizeof walk ? walk : NULL;
		if (v > 0)   /* the stages' DP peers read the layer ranges just moved */
			perf_peers_init(&px->peers, c, p);
		stage_times_group(px, 0, &e, &si, w, v > 0);
		for (int r = 1; r < p->n_replicas; r++) {
			ctx_replica(px, r, 1);
			stage_times_group(px, r, &e, &si, w ? w + si : NULL, v > 0);
		}
		take(arg, v, &e);
		estimate_free(&e);
	}
	return 0;
}

const struct perf_stage *estimate_fullest_stage(const struct estimate *e)
{
	const struct perf_stage *best = NULL;
	double worst = -1;
	for (int i = 0; i < e->n_stages; i++) {
		const struct perf_stage *ps = &e->stages[i];
		double r = ps->capacity > 0 ? ps->total / ps->capacity : HUGE_VAL;
		if (r > worst) {
			worst = r;
			best = ps;
		}
	}
	return best;
}

void estimate_free(struct estimate *e)
{
	perf_memo_stages_give(e->stages, e->n_stages);
	e->stages = NULL;
	e->n_stages = 0;
}

/* A memory-memo key for stage x: k0 (its replica group's key) with the
 * stage's pool, TP and layers, and whether it is first or last as
 * prev_pool / next_pool -1 (else 0). */
static void mem_key_of(const struct stage_ctx *x, const struct stage_key *k0,
		       struct stage_key *k)
{
	const struct stage *st = &x->rep->stages[x->index];
	*k = *k0;
	k->pool = st->pool;
	k->tp = st->tp;
	stage_key_layers(x->m, st, k);
	k->prev_pool = x->first ? -1 : 0;
	k->next_pool = x->last ? -1 : 0;
}

/* perf_stage_compute's outputs that perf_stage_memory reads, into x:
 * from the memory-input memo, else computed and put. Its key (mk0: x's
 * replica group's key0 with the DP degree, the micro-batches and the
 * other site's pool cleared; h0: its perf_memo_stage_h0) gets the
 * stage's pool, TP and layers, and whether it is first or last as
 * prev_pool / next_pool -1 (else 0); the neighbours' pools, the tied
 * embeddings' peer and the node crossings stay 0. perf_stage_compute is
 * a function of what the key keeps (perf_int.h, struct stage_mem_in), so
 * an entry holds the bits it would compute here. */
static void stage_mem_inputs(struct stage_ctx *x, const struct stage_key *mk0, uint64_t h0)
{
	struct stage_key mk;
	mem_key_of(x, mk0, &mk);
	const struct stage_mem_in *hit = perf_memo_mem(x->memo, &mk, h0);
	if (hit) {
		x->act = hit->act;
		x->act_work = hit->act_work;
		x->params = hit->params;
		x->eparams = hit->eparams;
		x->unit = hit->unit;
		return;
	}
	perf_stage_compute(x);
	struct stage_mem_in *v = perf_memo_mem_put(x->memo, &mk, h0);
	v->act = x->act;
	v->act_work = x->act_work;
	v->params = x->params;
	v->eparams = x->eparams;
	v->unit = x->unit;
}

/* Stage x's memory into ps (its memory fields; the rest as they were):
 * the index- and micro-batch-free part from the memory-state memo (key:
 * sk0, x's replica group's memory-input key with its DP degree, and the
 * stage's own fields as stage_mem_inputs sets them; h0: its
 * perf_memo_stage_h0), then perf_stage_memory_at as perf_stage_memory
 * ends; else stage_mem_inputs (mk0, h0m) and perf_stage_memory, and the
 * state put. perf_stage_memory_at reads of the record only what
 * perf_stage_memory set before it, and of x only the inputs the entry
 * keeps, the plan and the stage's place (struct stage_mem_state), so a
 * hit computes the bits a miss would. */
static void stage_mem_state(struct stage_ctx *x, const struct stage_key *sk0, uint64_t h0,
			    const struct stage_key *mk0, uint64_t h0m, struct perf_stage *ps)
{
	struct stage_key sk;
	mem_key_of(x, sk0, &sk);
	const struct stage_mem_state *hit = perf_memo_memst(x->memo, &sk, h0);
	if (hit) {
		ps->weights = hit->weights;
		ps->grads = hit->grads;
		ps->optimizer = hit->optimizer;
		ps->other = hit->other;
		ps->outside = hit->outside;
		ps->capacity = hit->capacity;
		x->act = hit->act;
		x->act_work = hit->act_work;
		x->unit = hit->unit;
		perf_stage_memory_at(x, ps);
		return;
	}
	stage_mem_inputs(x, mk0, h0m);
	perf_stage_memory(x, ps);
	struct stage_mem_state *v = perf_memo_memst_put(x->memo, &sk, h0);
	v->weights = ps->weights;
	v->grads = ps->grads;
	v->optimizer = ps->optimizer;
	v->other = ps->other;
	v->outside = ps->outside;
	v->capacity = ps->capacity;
	v->act = x->act;
	v->act_work = x->act_work;
	v->unit = x->unit;
}

/* perf_estimate's memory, bit for bit: of each stage record the memory
 * fields (weights, grads, optimizer, activations, other, outside, slack,
 * total, capacity, fits) with its group and index, the rest of the
 * record zero; e->fits, worst_over_bytes and worst_stage; the rest of e
 * zero. For the planner, which drops a plan on its memory before it
 * needs its times (issue 13, ninth round). Why the same bits: a whole
 * estimate computes a stage's memory (stage_compute_all) as
 * perf_stage_memory after perf_stage_compute, or after a stage core's
 * copy of its outputs; perf_stage_tp/cp/ep/pp/dp and the optimizer time
 * in between write only their results, the notes and the plan's
 * settings (perf_ctx_settings), none of which perf_mem.c reads; a stage
 * memo hit carries memory computed so, or recomputes the part that
 * depends on the index (perf_stage_memory_at) from the same inputs.
 * Here: perf_stage_memory after perf_stage_compute's outputs
 * (stage_mem_inputs), on a context set as perf_estimate sets it but for
 * the node crossings, which neither reads. The verdict is stage_eval's
 * (stage_fit_note). The stage memo is neither read nor put (9% of the
 * Mixtral 8x22B cost search's checks found a stage there; the lookups,
 * keys and crossings cost more than the memory they saved). Same inputs,
 * checks and errors as perf_estimate; call estimate_free(). */
int perf_stage_memories(const struct cluster *c, const struct model_spec *m,
			const struct plan *p, const struct perf_calib *k, struct estimate *e,
			struct hp_err *err)
{
	if (!k)
		k = perf_calib_default();
	if (estimate_begin(c, m, p, e, err) < 0)
		return -1;
	e->fits = 1;
	e->worst_stage = -1;
	struct stage_ctx x;
	int si = 0;
	ctx_init(&x, c, m, p, k, NULL, NULL);
	for (int r = 0; r < p->n_replicas; r++) {
		ctx_replica(&x, r, 0);
		struct stage_key mk0 = x.key0;
		mk0.dp = mk0.mb = mk0.other_pool = 0;
		/* ZeRO-3 under no_sync holds unsharded gradients only with
		 * more than one micro-batch (perf_mem.c model_state_bytes) */
		if (p->zero == 3 && framework_get(p->framework)->zero3_reduce_once)
			mk0.mb = x.mb > 1;
		uint64_t h0 = perf_memo_stage_h0(&mk0);
		struct stage_key sk0 = mk0;
		sk0.dp = x.dp;
		uint64_t hs0 = perf_memo_stage_h0(&sk0);
		for (int i = 0; i < x.pp; i++) {
			struct perf_stage *ps = &e->stages[si++];
			ctx_stage_place(&x, i);
			memset(ps, 0, sizeof *ps);
			ps->group = r;
			ps->index = i;
			stage_mem_state(&x, &sk0, hs0, &mk0, h0, ps);
			stage_fit_note(e, ps);
		}
	}
	return 0;
}
