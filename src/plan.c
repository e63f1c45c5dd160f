/* plan.c — building, parsing, validating and printing plans. */
#include "plan.h"
#include "jsonx.h"

#include <stddef.h>

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void plan_init(struct plan *p)
{
	memset(p, 0, sizeof *p);
	p->mbs = 1;
	p->gbs = 0;
	p->precision = HP_BF16;
	p->recompute = RC_NONE;
	p->zero = 1;
	p->schedule = SCHED_1F1B;
	p->vpp = 1;
	p->cp = p->ep = 1;
	p->sp = 1;
	p->flash = 1;
	p->framework = FW_ANY;
	p->tp_overlap = p->grad_overlap = p->param_overlap = p->grad_fp32 = -1;
	p->fp8_params = p->ep_overlap = p->moe_dispatch = p->moe_grouped_gemm = -1;
	p->opt_impl = -1;
	p->compile = -1;
	p->grad_accum_fusion = -1;
}

/* Async TP at TP > 1 on torchtitan runs compiled: torchtitan refuses it
 * otherwise (distributed/tensor_parallel.py maybe_enable_async_tp: "Async
 * TP requires 'model' in --compile.components and --compile.enable"), and
 * launch writes the [compile] block for it. */
static int titan_async_tp(const struct plan *p)
{
	if (p->framework != FW_TORCHTITAN || !plan_tp_overlap(p))
		return 0;
	for (int r = 0; r < p->n_replicas; r++)
		for (int s = 0; s < p->replicas[r].n_stages; s++)
			if (p->replicas[r].stages[s].tp > 1)
				return 1;
	return 0;
}

int plan_compile(const struct plan *p)
{
	return p->compile == 1 || (p->compile < 0 && titan_async_tp(p));
}

enum hp_opt_impl plan_opt_impl(const struct plan *p)
{
	if (p->opt_impl >= 0 && p->opt_impl < OPT_IMPL_COUNT)
		return (enum hp_opt_impl)p->opt_impl;
	return (enum hp_opt_impl)framework_get(p->framework)->opt_impl;
}

int plan_tp_overlap(const struct plan *p)
{
	return p->tp_overlap >= 0 ? p->tp_overlap : framework_get(p->framework)->tp_overlap;
}

int plan_recompute_count(const struct plan *p, int layers)
{
	if (p->recompute != RC_FULL || layers <= 0)
		return 0;
	if (p->recompute_layers <= 0)
		return layers;
	long long v = p->vpp > 1 ? p->vpp : 1;
	long long n = (long long)p->recompute_layers * v;
	return n < layers ? (int)n : layers;
}

int plan_grad_overlap(const struct plan *p)
{
	/* A framework whose code reduces after the backward at this ZeRO
	 * stage (DeepSpeed at ZeRO 0, framework.c) overlaps nothing; an
	 * explicit "on" there is refused by validate_settings, and the
	 * planner's "on" variant equals the plan it came from (plan_equal)
	 * and is dropped. */
	if (!framework_grad_overlap_possible(p->framework, p->zero))
		return 0;
	return p->grad_overlap >= 0 ? p->grad_overlap
				    : framework_grad_overlap_default(p->framework, p->zero);
}

int plan_grad_fp32(const struct plan *p)
{
	/* An fp32 or tf32 run holds fp32 gradients and no 16-bit copy: its
	 * DP reduce moves 4 bytes a parameter whatever the framework
	 * (DeepSpeed without fp16/bf16 reduces param.grad as it is,
	 * runtime/engine.py buffered_allreduce_fallback; the framework rows'
	 * "training dtype" is fp32 there). validate_settings refuses an
	 * explicit "off" in such a run. */
	if (p->precision == HP_FP32 || p->precision == HP_TF32)
		return 1;
	int d = framework_get(p->framework)->grad_reduce_fp32;
	/* master none: the gradients are the bf16 parameters' own
	 * (param.grad). torch DDP and DeepSpeed reduce them as they are, in
	 * bf16; FSDP2 reduce-scatters in its MixedPrecisionPolicy's
	 * reduce_dtype, fp32 in torchtitan (training.mixed_precision_reduce,
	 * "float32" its only value: torchtitan/config/configs.py @b5bcd76c
	 * L102) and in KempnerForge (default_mp_policy, reduce_dtype
	 * float32: kempnerforge/distributed/parallel.py @5666d0d L83-85):
	 * the rows whose data parallelism is FSDP2 (zero_fsdp_default)
	 * keep their fp32 reduce at ZeRO 2-3 (FSDP); at ZeRO 0 they run
	 * torch DDP, which has no reduce dtype of its own. */
	if (p->master == MASTER_NONE &&
	    !(framework_get(p->framework)->zero_fsdp_default && p->zero >= 2))
		d = 0;
	else if (d == FW_GRAD_FP32_UNLESS_FP16)
		d = p->precision != HP_FP16;
	else if (d == FW_GRAD_FP32_BF16_ZERO0)
		d = p->precision == HP_BF16 && p->zero == 0;
	return p->grad_fp32 >= 0 ? p->grad_fp32 : d;
}

int plan_param_overlap(const struct plan *p)
{
	return p->param_overlap >= 0 ? p->param_overlap
				     : framework_param_overlap_default(p->framework, p->zero);
}

int plan_fp8_params(const struct plan *p)
{
	/* Megatron-Core takes --fp8-param-gather only with the distributed
	 * optimizer or an FSDP (megatron/training/arguments.py @d98e8a64,
	 * L1095-1097); hetplan models it under the distributed optimizer. */
	if (p->precision != HP_FP8 || p->zero < 1 || p->zero > 2)
		return 0;
	/* FP8 parameters stand beside the main params the optimizer steps
	 * (--main-params-dtype fp32 or fp16 only: arguments.py @d98e8a64
	 * L3671-3684, runs_on.c rules_master); master none has none */
	if (p->master == MASTER_NONE)
		return 0;
	return p->fp8_params >= 0 ? p->fp8_params : framework_get(p->framework)->fp8_params;
}

const struct pp_layout *plan_pp_layout(const struct plan *p)
{
	return p->pp_layout[0] ? pp_layout_cached(p->pp_layout) : NULL;
}

int plan_etp(const struct plan *p, int tp)
{
	return p->etp > 0 ? p->etp : tp;
}

int plan_ep_folded(const struct plan *p, int tp)
{
	return plan_etp(p, tp) != tp;
}

/* What the plan asks for before the hardware has its say: the key, or
 * absent, the framework row's default (ep_dispatch_dedup: flex). */
static enum hp_moe_dispatch dispatch_asked(const struct plan *p)
{
	if (p->moe_dispatch >= 0)
		return (enum hp_moe_dispatch)p->moe_dispatch;
	return framework_get(p->framework)->ep_dispatch_dedup ? MOE_DISPATCH_FLEX
							      : MOE_DISPATCH_ALLTOALL;
}

const char *plan_flex_unfit(const struct plan *p, const struct cluster *c, int pool, int tp)
{
	const struct pool *pl = &c->pools[pool];
	/* DeepEP's requirements: "Hopper (SM90) GPUs, or other
	 * architectures with SM90 PTX ISA support" (README.md
	 * @0297fc80); its Ampere port is intranode only and not in the
	 * release (issues 149, 162, 234; PR 517 open). HybridEP's kernels
	 * move data with Hopper's TMA and are built for 9.0 and 10.0
	 * (docs/README_Hybrid-EP.md @41cad944). hetplan's generations
	 * Hopper and Blackwell are NVIDIA's SM90 and later parts. */
	if (pl->gpu.gen != GEN_HOPPER && pl->gpu.gen != GEN_BLACKWELL)
		return "DeepEP and HybridEP need Hopper (SM90) or a later NVIDIA GPU";
	/* "NVLink with full directed CUDA peer access between every pair
	 * of participating intranode GPUs" (README.md @0297fc80): a PCIe
	 * node does not run DeepEP's normal kernels (issue 216: "NVLink is
	 * a must"; issue 162: "PCIe not working"), and bridged pairs or
	 * a partial mesh (intra nvlink) do not join every pair. Taken
	 * whatever the GPUs per node (simplified: a node of one GPU, the
	 * GH200 default, is refused too; not checked against a run). */
	if (pl->intra != INTRA_NVSWITCH)
		return "DeepEP and HybridEP need NVLink between every pair of GPUs in a node "
		       "(NVSwitch); this pool's GPUs talk over PCIe or partial NVLink";
	/* "RDMA network for internode communication" (README.md
	 * @0297fc80): NCCL's socket transport has none. Only where the EP
	 * group, etp x ep ranks with expert TP innermost (perf_comm.c
	 * perf_expert_layout), leaves the NVLink domain. */
	long span = (long)plan_etp(p, tp) * p->ep;
	if (pl->transport == COMM_TRANSPORT_TCP && span > pl->nvl_domain)
		return "DeepEP and HybridEP send between nodes over RDMA; this pool's "
		       "network is TCP sockets";
	return NULL;
}

/* The first stage of a replica group of one replica or more on a pool
 * that cannot run the flex dispatcher (plan_flex_unfit), its reason in
 * *why; -1 in *rep when every one can. */
static void flex_first_unfit(const struct plan *p, const struct cluster *c, int *rep, int *stage,
			     const char **why)
{
	*rep = *stage = -1;
	*why = NULL;
	for (int i = 0; i < p->n_replicas; i++) {
		const struct replica *r = &p->replicas[i];
		if (r->count < 1)
			continue;
		for (int s = 0; s < r->n_stages; s++) {
			const char *w = plan_flex_unfit(p, c, r->stages[s].pool, r->stages[s].tp);
			if (w) {
				*rep = i;
				*stage = s;
				*why = w;
				return;
			}
		}
	}
}

/* The first stage of a replica group of one replica or more whose
 * experts' group, expert TP x EP ranks, is one rank: Megatron-Core's flex
 * dispatcher refuses it ("Flex token dispatcher requires TPxEP > 1",
 * MoEFlexTokenDispatcher.__init__, token_dispatcher.py @d98e8a64; its
 * tp_size is the expert TP group's). 0 with *rep and *stage set, -1 when
 * every stage has more than one. */
static int flex_first_single(const struct plan *p, int *rep, int *stage)
{
	for (int i = 0; i < p->n_replicas; i++) {
		const struct replica *r = &p->replicas[i];
		if (r->count < 1)
			continue;
		for (int s = 0; s < r->n_stages; s++)
			if ((long)plan_etp(p, r->stages[s].tp) * p->ep <= 1) {
				*rep = i;
				*stage = s;
				return 0;
			}
	}
	return -1;
}

enum hp_moe_dispatch plan_moe_dispatch(const struct plan *p, const struct cluster *c)
{
	enum hp_moe_dispatch d = dispatch_asked(p);
	/* One dispatcher for the whole plan: a Megatron job takes one
	 * --moe-token-dispatcher-type for every rank. A flex key on
	 * hardware that cannot run it, or on a stage whose expert TP x EP
	 * is 1, is refused (plan_validate); the framework's flex default
	 * falls back to alltoall there (the cost model, hetplan launch,
	 * RUNS ON and the TUI all read this). */
	if (d != MOE_DISPATCH_FLEX || p->moe_dispatch >= 0)
		return d;
	int rep, stage;
	const char *why;
	flex_first_unfit(p, c, &rep, &stage, &why);
	if (why || flex_first_single(p, &rep, &stage) == 0)
		return MOE_DISPATCH_ALLTOALL;
	return MOE_DISPATCH_FLEX;
}

int plan_moe_allgather(const struct plan *p)
{
	return dispatch_asked(p) == MOE_DISPATCH_ALLGATHER;
}

int plan_moe_grouped_gemm(const struct plan *p)
{
	if (p->moe_grouped_gemm >= 0)
		return p->moe_grouped_gemm;
	return !framework_get(p->framework)->moe_sequential_mlp;
}

int plan_grad_accum_fusion_applies(enum hp_framework fw)
{
	return fw == FW_ANY || fw == FW_MEGATRON_CORE || fw == FW_MEGATRON_LM;
}

int plan_grad_accum_fusion(const struct plan *p)
{
	if (p->grad_accum_fusion >= 0 && plan_grad_accum_fusion_applies(p->framework))
		return p->grad_accum_fusion;
	return 1;
}

int plan_ep_overlap(const struct plan *p)
{
	return p->ep_overlap >= 0 ? p->ep_overlap : framework_get(p->framework)->ep_overlap;
}

int plan_ep_overlap_on(const struct plan *p, int pp)
{
	/* Megatron-Core runs the overlap with the alltoall and flex
	 * dispatchers only (transformer_config.py @d98e8a64 L3016-3019) */
	if (!plan_ep_overlap(p) || plan_moe_allgather(p))
		return 0;
	return framework_ep_overlap_on(p->framework, p->ep, pp,
				       p->schedule == SCHED_INTERLEAVED ? p->vpp : 1,
				       p->recompute == RC_FULL,
				       p->precision == HP_FP32 || p->precision == HP_TF32);
}

void plan_free(struct plan *p)
{
	for (int i = 0; i < p->n_replicas; i++)
		free(p->replicas[i].stages);
	free(p->replicas);
	p->replicas = NULL;
	p->n_replicas = 0;
}

void plan_copy(struct plan *dst, const struct plan *src)
{
	*dst = *src;
	dst->replicas = xcalloc((size_t)src->n_replicas, sizeof *dst->replicas);
	for (int i = 0; i < src->n_replicas; i++) {
		dst->replicas[i] = src->replicas[i];
		size_t n = (size_t)src->replicas[i].n_stages * sizeof(struct stage);
		dst->replicas[i].stages = xmalloc(n);
		memcpy(dst->replicas[i].stages, src->replicas[i].stages, n);
	}
}

const char *plan_recompute_name(enum hp_recompute r)
{
	static const char *const n[] = { "none", "selective", "full", "selective-op" };
	return (unsigned)r < RC_COUNT ? n[r] : "?";
}

const char *plan_recompute_text(const struct plan *p, char *buf, size_t n)
{
	if (p->recompute == RC_FULL && p->recompute_layers > 0)
		snprintf(buf, n, "full, first %d layer%s a %s", p->recompute_layers,
			 p->recompute_layers == 1 ? "" : "s", p->vpp > 1 ? "chunk" : "stage");
	else if (p->recompute == RC_SELECTIVE && p->recompute_modules) {
		char mods[96];
		snprintf(buf, n, "selective (%s)",
			 plan_recompute_modules_text(p->recompute_modules, mods, sizeof mods));
	} else
		snprintf(buf, n, "%s", plan_recompute_name(p->recompute));
	return buf;
}

/* Megatron-Core's names (transformer_config.py @d98e8a64 L560-583, the
 * recompute_modules docstring, and the allowed set at L1943-1962), in
 * the RCM_* bit order. Its gdn_norm_out, gdp_in_proj, gdp_qkv and mhc
 * belong to attention variants and connections hetplan has no model of. */
static const char *const rcm_names[RCM_COUNT] = {
	"core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts",
};

const char *plan_recompute_module_name(int i)
{
	return i >= 0 && i < RCM_COUNT ? rcm_names[i] : "?";
}

int plan_recompute_modules_parse(const char *s, unsigned *out, char *bad, size_t n)
{
	unsigned bits = 0;
	if (bad && n)
		*bad = 0;
	const char *q = s;
	for (;;) {
		while (*q == ' ' || *q == '\t')
			q++;
		const char *e = q;
		while (*e && *e != ',')
			e++;
		const char *t = e;
		while (t > q && (t[-1] == ' ' || t[-1] == '\t'))
			t--;
		size_t len = (size_t)(t - q);
		int hit = -1;
		for (int i = 0; i < RCM_COUNT && len; i++)
			if (strlen(rcm_names[i]) == len && strncasecmp(q, rcm_names[i], len) == 0)
				hit = i;
		if (hit < 0) {
			if (bad && n)
				snprintf(bad, n, "%.*s", len < 40 ? (int)len : 40, q);
			return -1;
		}
		bits |= 1u << hit;
		if (!*e)
			break;
		q = e + 1;
	}
	*out = bits;
	return 0;
}

const char *plan_recompute_modules_text(unsigned bits, char *buf, size_t n)
{
	size_t at = 0;
	if (n)
		*buf = 0;
	for (int i = 0; i < RCM_COUNT; i++) {
		if (!(bits & 1u << i))
			continue;
		int w = snprintf(buf + at, n - at, "%s%s", at ? "," : "", rcm_names[i]);
		if (w < 0 || (size_t)w >= n - at)
			break;
		at += (size_t)w;
	}
	return buf;
}

unsigned plan_recompute_modules(const struct plan *p)
{
	if (p->recompute != RC_SELECTIVE)
		return 0;
	return p->recompute_modules ? p->recompute_modules & RCM_ALL : RCM_CORE_ATTN;
}

int plan_recompute_core_attn(const struct plan *p)
{
	return (plan_recompute_modules(p) & RCM_CORE_ATTN) != 0;
}

int plan_recompute_parse(const char *s, enum hp_recompute *out)
{
	for (int i = 0; i < RC_COUNT; i++)
		if (hp_strieq(s, plan_recompute_name((enum hp_recompute)i))) {
			*out = (enum hp_recompute)i;
			return 0;
		}
	if (hp_strieq(s, "op") || hp_strieq(s, "selective_op")) {
		*out = RC_SELECTIVE_OP;
		return 0;
	}
	return -1;
}

static const char *const master_names[MASTER_COUNT] = { "sharded", "replicated", "none" };
static const char *const loss_names[] = { "fused", "eager", "chunked" };
/* the offload key's values: DeepSpeed's offload_optimizer.device is
 * "none" or "cpu" (hetplan models "cpu"; "nvme", ZeRO-Infinity, is not);
 * "activations" is Megatron-Core's --cpu-offloading-num-layers */
static const char *const offload_names[] = { "none", "optimizer", "activations" };
/* Megatron-Core's --moe-token-dispatcher-type values
 * (transformer_config.py @d98e8a64 L891) */
static const char *const dispatch_names[] = { "alltoall", "flex", "allgather" };

const char *plan_moe_dispatch_name(enum hp_moe_dispatch d)
{
	assert((unsigned)d < HP_ARRAY_LEN(dispatch_names));
	return dispatch_names[d];
}

int plan_moe_dispatch_parse(const char *s, enum hp_moe_dispatch *out)
{
	int v = fields_name_index(dispatch_names, (int)HP_ARRAY_LEN(dispatch_names), s);
	if (v < 0)
		return -1;
	*out = (enum hp_moe_dispatch)v;
	return 0;
}

const char *plan_master_name(enum hp_master m)
{
	assert((unsigned)m < HP_ARRAY_LEN(master_names));
	return master_names[m];
}

int plan_master_parse(const char *s, enum hp_master *out)
{
	int v = fields_name_index(master_names, (int)HP_ARRAY_LEN(master_names), s);
	if (v < 0)
		return -1;
	*out = (enum hp_master)v;
	return 0;
}

const char *plan_loss_name(enum hp_loss l)
{
	assert((unsigned)l < HP_ARRAY_LEN(loss_names));
	return loss_names[l];
}

const char *plan_offload_name(enum hp_offload o)
{
	assert((unsigned)o < HP_ARRAY_LEN(offload_names));
	return offload_names[o];
}

int plan_offload_parse(const char *s, enum hp_offload *out)
{
	int v = fields_name_index(offload_names, (int)HP_ARRAY_LEN(offload_names), s);
	if (v < 0 && hp_strieq(s, "cpu"))
		v = OFFLOAD_OPTIMIZER;   /* DeepSpeed's own word for it */
	if (v < 0)
		return -1;
	*out = (enum hp_offload)v;
	return 0;
}

int plan_loss_parse(const char *s, enum hp_loss *out)
{
	int v = fields_name_index(loss_names, (int)HP_ARRAY_LEN(loss_names), s);
	if (v < 0)
		return -1;
	*out = (enum hp_loss)v;
	return 0;
}

int plan_schedule_parse(const char *s, enum hp_schedule *sched, int *vpp)
{
	if (hp_strieq(s, "1f1b")) {
		*sched = SCHED_1F1B;
		*vpp = 1;
		return 0;
	}
	if (!strncmp(s, "interleaved:", 12)) {
		int v;
		if (hp_parse_int(s + 12, &v) || v < 2 || v > 64)
			return -1;
		*sched = SCHED_INTERLEAVED;
		*vpp = v;
		return 0;
	}
	return -1;
}

int plan_place_layout(struct plan *p, const struct model_spec *m)
{
	const struct pp_layout *L = plan_pp_layout(p);
	if (!L || L->layers != m->layers)
		return 0;
	int placed = 0;
	for (int g = 0; g < p->n_replicas; g++) {
		struct replica *r = &p->replicas[g];
		int pp = r->n_stages, have = pp > 0 && L->n % pp == 0;
		for (int s = 0; have && s < pp; s++)
			have = pp_layout_rank_layers(L, pp, s) > 0;
		if (!have)
			continue;
		for (int s = 0, next = 0; s < pp; s++) {
			int n = pp_layout_rank_layers(L, pp, s);
			r->stages[s].first_layer = next;
			r->stages[s].last_layer = next + n - 1;
			next += n;
		}
		placed++;
	}
	return placed;
}

int plan_uniform(struct plan *p, const struct cluster *c, const struct model_spec *m,
		 int pool, int tp, int pp, int dp, struct hp_err *err)
{
	if (pp > m->layers)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "--pp: %d pipeline stages for a model of %d layers; expected at most %d",
				  pp, m->layers, m->layers);
	plan_free(p);
	p->n_replicas = 1;
	p->replicas = xcalloc(1, sizeof *p->replicas);
	struct replica *r = &p->replicas[0];
	r->count = dp;
	r->batch_share = 1.0 / dp;
	r->n_stages = pp;
	r->stages = xcalloc((size_t)pp, sizeof *r->stages);
	/* Every stage takes ceil(layers / pp); the layers that leaves over are
	 * taken off the outermost stages, the last first, then the first,
	 * then inward. The ends also hold the output layer and loss, and the
	 * embedding, and the first stage keeps the most micro-batches in
	 * flight: Megatron-Core's --decoder-first/last-pipeline-num-layers,
	 * as Llama 3.1 405B ran 126 layers on 16 stages as 7, 8 x 14, 7. */
	int full = (m->layers + pp - 1) / pp, deficit = full * pp - m->layers, next = 0;
	for (int s = 0; s < pp; s++) {
		int from_end = pp - 1 - s < s ? pp - 1 - s : s;
		int rank = s >= pp - 1 - s ? 2 * from_end : 2 * from_end + 1;
		int n = full - (rank < deficit);
		r->stages[s] = (struct stage){ pool, tp, next, next + n - 1 };
		next += n;
	}
	/* a pp_layout of whole ranks for this depth and model places them */
	plan_place_layout(p, m);
	(void)c;
	return 0;
}

int plan_equal(const struct plan *a, const struct plan *b)
{
	if (a->mbs != b->mbs || a->gbs != b->gbs || a->seq_len != b->seq_len ||
	    a->precision != b->precision || a->recompute != b->recompute ||
	    a->loss != b->loss || a->master != b->master || a->zero != b->zero ||
	    a->offload != b->offload || a->offload_layers != b->offload_layers ||
	    a->schedule != b->schedule || a->vpp != b->vpp || a->cp != b->cp || a->ep != b->ep ||
	    a->etp != b->etp || strcmp(a->pp_layout, b->pp_layout) != 0 ||
	    a->sp != b->sp || a->flash != b->flash || a->n_replicas != b->n_replicas ||
	    a->framework != b->framework || plan_tp_overlap(a) != plan_tp_overlap(b) ||
	    plan_grad_overlap(a) != plan_grad_overlap(b) ||
	    plan_param_overlap(a) != plan_param_overlap(b) ||
	    plan_grad_fp32(a) != plan_grad_fp32(b) || plan_fp8_params(a) != plan_fp8_params(b) ||
	    plan_ep_overlap(a) != plan_ep_overlap(b) ||
	    dispatch_asked(a) != dispatch_asked(b) ||
	    plan_moe_grouped_gemm(a) != plan_moe_grouped_gemm(b) ||
	    plan_grad_accum_fusion(a) != plan_grad_accum_fusion(b) ||
	    plan_opt_impl(a) != plan_opt_impl(b) || plan_compile(a) != plan_compile(b) ||
	    a->tp_host_sync != b->tp_host_sync || a->recompute_layers != b->recompute_layers ||
	    a->recompute_modules != b->recompute_modules)
		return 0;
	for (int g = 0; g < a->n_replicas; g++) {
		const struct replica *x = &a->replicas[g], *y = &b->replicas[g];
		if (x->count != y->count || x->n_stages != y->n_stages ||
		    fabs(x->batch_share - y->batch_share) > 1e-12)
			return 0;
		for (int s = 0; s < x->n_stages; s++) {
			const struct stage *u = &x->stages[s], *v = &y->stages[s];
			if (u->pool != v->pool || u->tp != v->tp || u->first_layer != v->first_layer ||
			    u->last_layer != v->last_layer)
				return 0;
		}
	}
	return 1;
}

void plan_default_zero(struct plan *p)
{
	if (p->zero >= 0)
		return;
	int pp = 1;
	for (int i = 0; i < p->n_replicas; i++)
		pp = HP_MAX(pp, p->replicas[i].n_stages);
	p->zero = framework_default_zero(p->framework, pp);
}

int plan_dp(const struct plan *p)
{
	int n = 0;
	for (int i = 0; i < p->n_replicas; i++)
		n += p->replicas[i].count;
	return n;
}

int plan_gpus(const struct plan *p, int *per_pool)
{
	/* 64-bit sums saturating at INT_MAX: a plan file may ask for 1e6
	 * replicas x TP 1024 x CP 1024, which must fail the pool-size check
	 * rather than wrap to a negative count. */
	long long total = 0, pp[HP_MAX_POOLS] = { 0 };
	for (int i = 0; i < p->n_replicas; i++) {
		const struct replica *r = &p->replicas[i];
		for (int s = 0; s < r->n_stages; s++) {
			long long n = (long long)r->count * r->stages[s].tp * p->cp;
			total = HP_MIN(total + n, (long long)INT_MAX);
			pp[r->stages[s].pool] = HP_MIN(pp[r->stages[s].pool] + n, (long long)INT_MAX);
		}
	}
	if (per_pool)
		for (int i = 0; i < HP_MAX_POOLS; i++)
			per_pool[i] = (int)pp[i];
	return (int)total;
}

double plan_replica_seqs(const struct plan *p, int r)
{
	return p->replicas[r].batch_share * p->gbs;
}

int plan_replica_microbatches(const struct plan *p, int r)
{
	return (int)lround(plan_replica_seqs(p, r) / p->mbs);
}

static int parse_stage(struct stage *st, const cJSON *o, const char *file,
		       const char *path, const struct cluster *c, struct hp_err *err)
{
	static const char *const known[] = { "pool", "tp", "first_layer", "last_layer",
					     "gpu", "nodes", NULL };
	struct jx_ctx jc = { file, path, err };
	if (!cJSON_IsObject(o))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: %s: expected an object", file, path);
	if (jx_check_keys(&jc, o, known) < 0)
		return -1;
	char pool[32];
	if (jx_str(&jc, o, "pool", 1, pool, sizeof pool) < 0)
		return -1;
	st->pool = cluster_pool_index(c, pool);
	if (st->pool < 0) {
		char names[200] = "";
		for (int i = 0; i < c->n_pools; i++) {
			/* whole names, room kept for ", ...": a byte cut split a name
			 * of euro signs inside a character (shown as \xE2) */
			size_t at = strlen(names);
			if (at + 2 + strlen(c->pools[i].name) + 6 > sizeof names) {
				snprintf(names + at, sizeof names - at, "%s...", i ? ", " : "");
				break;
			}
			snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "", c->pools[i].name);
		}
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: %s.pool: no pool named \"%s\" in the cluster (pools: %s)",
				  file, path, pool, names);
	}
	st->tp = 1;
	if (jx_int(&jc, o, "tp", 0, 1, 1024, &st->tp) < 0 ||
	    jx_int(&jc, o, "first_layer", 1, 0, 1000000, &st->first_layer) < 0 ||
	    jx_int(&jc, o, "last_layer", 1, 0, 1000000, &st->last_layer) < 0)
		return -1;
	return 0;
}

/* ---- The plan's settings, one entry each (fields.h). The planner's
 * outputs printed beside a plan are not settings; they are listed in
 * plan_output_keys so a printed plan reads back. */

/* Every framework row, the estimate-only ones too (framework.h): a plan
 * may name any; launch refuses those framework_launchable says no to. */
FIELDS_ENUM(, plan_framework_enum, enum hp_framework, FW_ROWS, framework_name,
	    framework_parse_estimate);
FIELDS_ENUM(static, recompute_enum, enum hp_recompute, RC_COUNT, plan_recompute_name,
	    plan_recompute_parse);
FIELDS_ENUM(static, loss_enum, enum hp_loss, 3, plan_loss_name, plan_loss_parse);
FIELDS_ENUM(static, offload_enum, enum hp_offload, OFFLOAD_COUNT, plan_offload_name, plan_offload_parse);
FIELDS_ENUM(static, master_enum, enum hp_master, MASTER_COUNT, plan_master_name,
	    plan_master_parse);
FIELDS_ENUM(static, opt_impl_enum, enum hp_opt_impl, OPT_IMPL_COUNT, framework_opt_impl_name,
	    framework_opt_impl_parse);
FIELDS_ENUM(static, dispatch_enum, enum hp_moe_dispatch, MOE_DISPATCH_COUNT,
	    plan_moe_dispatch_name, plan_moe_dispatch_parse);

static int sched_parse(void *base, const char *s)
{
	struct plan *p = base;
	return plan_schedule_parse(s, &p->schedule, &p->vpp);
}

const char *plan_schedule_name(const struct plan *p, char *buf, size_t n)
{
	if (p->schedule == SCHED_INTERLEAVED)
		snprintf(buf, n, "interleaved:%d", p->vpp);
	else
		snprintf(buf, n, "1f1b");
	return buf;
}

static void sched_format(const void *base, char *buf, size_t n)
{
	plan_schedule_name(base, buf, n);
}

/* V from 2 to 64: plan_schedule_parse's range (Megatron's interleaving
 * needs at least 2 chunks per stage; 64 is beyond any published run). */
static const struct hp_field_custom sched_custom = {
	sched_parse, sched_format, "1f1b or interleaved:V (V from 2 to 64)",
	"\"1f1b\" or \"interleaved:V\" with V from 2 to 64",
};

static int rcm_parse(void *base, const char *s)
{
	struct plan *p = base;
	unsigned bits;
	/* empty: unset, Megatron-Core's default (the TUI's way back to it,
	 * as the pool key pcie's; the flags refuse an empty list) */
	if (!*s) {
		p->recompute_modules = 0;
		return 0;
	}
	if (plan_recompute_modules_parse(s, &bits, NULL, 0) < 0)
		return -1;
	p->recompute_modules = bits;
	return 0;
}

static void rcm_format(const void *base, char *buf, size_t n)
{
	plan_recompute_modules_text(((const struct plan *)base)->recompute_modules, buf, n);
}

/* the key is written only where the plan sets it (absent: core_attn) */
static int has_rcm(const void *p) { return ((const struct plan *)p)->recompute_modules != 0; }

static const struct hp_field_custom rcm_custom = {
	rcm_parse, rcm_format,
	"a comma list of core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts",
	"a comma list of \"core_attn\", \"moe_act\", \"layernorm\", \"mla_up_proj\", "
	"\"mlp\", \"moe\", \"shared_experts\"",
};

static int eff_tp_overlap(const void *p) { return plan_tp_overlap(p); }
static int eff_grad_overlap(const void *p) { return plan_grad_overlap(p); }
static int eff_param_overlap(const void *p) { return plan_param_overlap(p); }
static int eff_grad_fp32(const void *p) { return plan_grad_fp32(p); }
static int eff_fp8_params(const void *p) { return plan_fp8_params(p); }
static int eff_ep_overlap(const void *p) { return plan_ep_overlap(p); }
/* the value the plan asks for: the fields know no cluster, so a plan
 * on hardware without the flex dispatcher shows flex here where
 * plan_moe_dispatch gives alltoall (plan.h) */
static int eff_moe_dispatch(const void *p) { return (int)dispatch_asked(p); }
/* the key is written only where the plan sets it (absent: the framework's) */
static int has_moe_dispatch(const void *p) { return ((const struct plan *)p)->moe_dispatch >= 0; }
static int eff_opt_impl(const void *p) { return (int)plan_opt_impl(p); }
/* written only where the plan sets it (absent: the framework's) */
static int has_opt_impl(const void *p) { return ((const struct plan *)p)->opt_impl >= 0; }
static int eff_moe_grouped_gemm(const void *p) { return plan_moe_grouped_gemm(p); }
static int has_moe_grouped_gemm(const void *p)
{
	return ((const struct plan *)p)->moe_grouped_gemm >= 0;
}

static int eff_grad_accum_fusion(const void *p) { return plan_grad_accum_fusion(p); }
static int has_grad_accum_fusion(const void *p)
{
	return ((const struct plan *)p)->grad_accum_fusion >= 0;
}

static int eff_compile(const void *p) { return plan_compile(p); }
static int has_compile(const void *p) { return ((const struct plan *)p)->compile >= 0; }

static const char *const on_off[] = { "off", "on" };
static const char *const attention[] = { "unfused", "flash" };

#define PF(m) offsetof(struct plan, m)
/* Ranges: mbs up to 1e6 and gbs/seq_len up to 1e8 sequences or tokens are
 * far beyond any published run (Llama 3 405B: gbs 2048 x 8192 tokens);
 * cp up to 1024 and ep up to 4096 bound the GPU counts checked against
 * HP_MAX_GPUS; ZeRO has stages 0 to 3 (DeepSpeed). The order is the order
 * plan_to_json writes. */
static const struct hp_field plan_field_list[] = {
	{ .key = "mbs", .flag = "mbs", .kind = FK_INT, .off = PF(mbs), .min = 1, .max = 1000000,
	  .help = "micro-batch, sequences",
	  .doc = "Micro-batch size in sequences. Required unless `--plan` is given." },
	{ .key = "gbs", .flag = "gbs", .kind = FK_INT, .off = PF(gbs), .min = 1, .max = 100000000,
	  .help = "global batch, sequences",
	  .doc = "Global batch size in sequences. Each replica's share of it must be a positive "
		 "multiple of the micro-batch. Required, here or in the plan file." },
	{ .key = "seq_len", .flag = "seq-len", .kind = FK_INT, .off = PF(seq_len), .min = 1,
	  .max = 100000000, .flags = FF_OMIT_ZERO, .unit = "tokens",
	  .help = "sequence length; absent: the model's",
	  .doc = "Sequence length (default: the model's)." },
	{ .key = "precision", .flag = "precision", .kind = FK_ENUM, .off = PF(precision),
	  .enm = &hp_dtype_enum, .help = "arithmetic of the matmuls",
	  .doc = "Matmul precision (default bf16). MFU and HFU are taken against the peak at "
		 "this precision. fp8 on a GPU without FP8 units (A100, V100, ...) and bf16 "
		 "on one without BF16 (V100, T4) are refused, naming the pool and its GPU." },
	{ .key = "recompute", .flag = "recompute", .kind = FK_ENUM, .off = PF(recompute),
	  .enm = &recompute_enum, .help = "activation recomputation (op: selective-op)",
	  .doc = "Activation recomputation (default none). `selective` recomputes the attention "
		 "core (Megatron); `selective-op` (alias `op`) is op-level selective "
		 "checkpointing as torchtitan's policy: the output of every other matmul and "
		 "the attention output are kept, the rest of each layer is recomputed." },
	{ .key = "loss", .flag = "loss", .kind = FK_ENUM, .off = PF(loss), .enm = &loss_enum,
	  .flags = FF_OMIT_ZERO, .help = "cross-entropy kernel: fused in place, eager fp32 or chunked",
	  .doc = "How the cross-entropy is computed (default fused): a fused, in-place kernel "
		 "holding about one fp32 copy of the logits (Megatron), or PyTorch's eager "
		 "cross_entropy on fp32 logits, whose backward holds three copies (torchtitan), "
		 "or chunked: the output layer and loss run over the tokens in chunks and the "
		 "whole logits never exist (Liger's fused linear cross-entropy, LLMQ's "
		 "--lmhead-chunks); under the Hugging Face Trainer (Liger) the output "
		 "layer's weight gradient and the hidden state's, computed in the forward, "
		 "are held until the backward besides." },
	{ .key = "zero", .flag = "zero", .kind = FK_INT, .off = PF(zero), .min = 0, .max = 3,
	  .want = "0, 1, 2 or 3", .help = "ZeRO stage (1: distributed optimizer)", .arg = "0|1|2|3",
	  .doc = "ZeRO stage (default: the framework's, 1 for all but `--framework "
		 "pytorch-ddp` and `pytorch-ddp-2020`, whose apex DDP has no ZeRO: 0, and "
		 "`--framework torchtitan`, whose FSDP2 reshards after the forward unless "
		 "pipeline parallelism is on: 3 at PP 1, 2 above; "
		 "`hetplan plan` searches it unless given): 0 is plain data parallelism "
		 "with fp32 gradients and "
		 "an all-reduce; 1 shards the fp32 master weights and Adam moments over "
		 "{dp} \u00d7 {cp} (Megatron's distributed optimizer); 2 also keeps bf16 "
		 "gradients, sharded; 3 also shards the weights and gathers them layer by layer." },
	{ .key = "master", .flag = "master", .kind = FK_ENUM, .off = PF(master),
	  .enm = &master_enum, .flags = FF_OMIT_ZERO,
	  .help = "fp32 master weights sharded over DP, whole on every rank, or none (pure bf16)",
	  .doc = "Layout of the fp32 master weights under ZeRO 0 or 1 (default sharded, as "
		 "above). `replicated` models DeepSpeed's first BF16 optimizer (2022): the fp32 "
		 "master weights and the fp32 and bf16 gradients are whole on every "
		 "data-parallel rank and only Adam's moments are sharded, 12 bytes per "
		 "parameter plus 8 divided by the data-parallel degree. `none` keeps no fp32 "
		 "master at all: the model itself is bf16 (torchtitan `--training.dtype "
		 "bfloat16`, an HF Trainer run on a model loaded with `torch_dtype` bfloat16), "
		 "so weights, gradients and Adam's two moments take 2 bytes each, sharded by "
		 "the ZeRO stage as the default's terms are, the optimizer step moves 2-byte "
		 "state (docs/optimizer.md) and the gradients are reduced in bf16 unless the "
		 "framework's data parallelism is FSDP2 (fp32 reduce-scatter) or "
		 "`grad_reduce_fp32` says otherwise at zero 2 or 3 (on at zero 0 or 1 is "
		 "refused: DDP reduces the bf16 gradients as they are); bf16 and fp8 plans "
		 "only, any ZeRO stage "
		 "(docs/memory.md, Pure bf16). The planner searches none of the values." },
	/* DeepSpeed's zero_optimization.offload_optimizer.device (none, cpu;
	 * deepspeed/runtime/zero/offload_config.py @edaa7221); "cpu" is taken
	 * as a synonym. "activations": Megatron-Core's cpu_offloading
	 * (megatron/core/model_parallel_config.py @d98e8a64 L455-480) */
	{ .key = "offload", .flag = "offload", .kind = FK_ENUM, .off = PF(offload),
	  .enm = &offload_enum, .flags = FF_OMIT_ZERO,
	  .help = "what goes to host memory: optimizer (DeepSpeed ZeRO-Offload) or "
		  "activations (Megatron-Core); absent: none",
	  .doc = "What leaves the GPU for host memory (default `none`). `optimizer` is "
		 "DeepSpeed's ZeRO-Offload (`zero_optimization.offload_optimizer` {device: "
		 "cpu, pin_memory: true}; `cpu` is accepted for it): the fp32 master weights "
		 "and Adam's two moments of each rank's ZeRO partition leave the GPU for pinned "
		 "host memory and DeepSpeedCPUAdam steps them on the CPU. The estimate charges "
		 "the gradient copies to the host (and, with gradient accumulation, their "
		 "round trip every micro-batch), the CPU Adam step over the host's memory "
		 "bandwidth and the 16-bit parameters' copy back, each over the GPU's PCIe "
		 "link (docs/model.md, Optimizer offload), and notes the host memory "
		 "a node needs. Needs `--framework deepspeed` and zero 1, 2 or 3; "
		 "Megatron-Core's `--optimizer-cpu-offload` is not modelled (refused). "
		 "`activations` is Megatron-Core's activation offload (`--cpu-offloading-num-layers` "
		 "{N}, with {N} from `offload_layers`): the saved activations of the model's "
		 "first {N} layers go to host memory after their forward and come back before "
		 "their backward, on a copy stream beside the compute; the GPU keeps the other "
		 "layers' worth, the estimate charges what of the copies the compute does not "
		 "hide (PCIe, or NVLink-C2C on Grace superchips) and notes the host memory "
		 "(docs/memory.md, Activation offload). Needs `--framework megatron-core`, "
		 "PP 1 and no recompute, as Megatron-Core does. The planner searches neither." },
	{ .key = "schedule", .flag = "schedule", .kind = FK_CUSTOM, .off = PF(schedule),
	  .custom = &sched_custom, .help = "pipeline schedule", .arg = "1f1b|interleaved:{V}",
	  .doc = "Pipeline schedule (default 1f1b). `interleaved:`{V} gives each stage {V} "
		 "model chunks (2 to 64); every stage's layer count must be a multiple of {V} "
		 "(the first and last may hold one less; any split with `pp_layout`) and the "
		 "micro-batch count a multiple of {pp}." },
	{ .key = "cp", .flag = "cp", .kind = FK_INT, .off = PF(cp), .min = 1, .max = 1024,
	  .help = "context-parallel degree",
	  .doc = "Context-parallel degree (default 1). It must divide the sequence length." },
	{ .key = "ep", .flag = "ep", .kind = FK_INT, .off = PF(ep), .min = 1, .max = 4096,
	  .help = "expert-parallel degree (MoE)",
	  .doc = "Expert-parallel degree (default 1). Only for mixture-of-experts models; it "
		 "must divide the number of experts, and {etp} \u00d7 {ep} must divide {tp} "
		 "\u00d7 {cp} \u00d7 {dp} of every stage (with the default {etp}: {ep} divides "
		 "{dp} \u00d7 {cp})." },
	{ .key = "etp", .flag = "etp", .kind = FK_INT, .off = PF(etp), .min = 1, .max = 1024,
	  .flags = FF_OMIT_ZERO, .help = "expert tensor-parallel size (MoE); absent: each stage's TP",
	  .doc = "Expert tensor-parallel size (Megatron-Core `--expert-tensor-parallel-size`; "
		 "default: each stage's {tp}). Under MoE parallel folding the routed experts "
		 "have a layout of their own: {etp} \u00d7 {ep} \u00d7 expert {dp} = {tp} "
		 "\u00d7 {cp} \u00d7 {dp} of each stage, so {ep} may span the TP ranks "
		 "({etp} 1 with {tp} 2 and {ep} 32, as NVIDIA's Qwen3 235B recipe). {etp} must "
		 "divide the expert FFN width, {etp} \u00d7 {ep} the GPUs of every stage; "
		 "below {tp} it needs sequence parallelism. Only for mixture-of-experts "
		 "models. `hetplan launch` writes it for Megatron-Core and torchtitan (which "
		 "takes {etp} = {tp}, or 1 with {ep} a multiple of {cp} \u00d7 {tp}); DeepSpeed "
		 "has no expert TP of its own. The planner does not search it." },
	{ .key = "sp", .flag = "no-sp", .kind = FK_BOOL, .off = PF(sp), .flags = FF_NEG_FLAG,
	  .help = "sequence parallelism with TP (--no-sp turns it off)",
	  .doc = "Turn off sequence parallelism, which is on by default with TP." },
	{ .key = "flash", .flag = "attention", .kind = FK_BOOL, .off = PF(flash),
	  .names = attention, .help = "fused flash attention (--attention flash|unfused)",
	  .doc = "Attention kernel (default flash)." },
	{ .key = "framework", .flag = "framework", .kind = FK_ENUM, .off = PF(framework),
	  .enm = &plan_framework_enum, .arg = "{NAME}",
	  .help = "the framework that runs it, for its defaults",
	  .doc = "What runs the plan (`megatron` and `mcore` name megatron-core; `any` is "
		 "estimated as megatron-core; `megatron-lm` is its 2021-22 behaviour). It sets "
		 "the defaults of the three overlaps below, the dtype gradients are reduced in, "
		 "and the attention kernel class on Hopper and later (Transformer Engine's cuDNN "
		 "attention for megatron-core, FlashAttention-2 class kernels otherwise); the "
		 "estimate-only rows (`hetplan plan --help` names them) also set their layer "
		 "kernels, gradient buckets and optimizer step. Every name estimates and plans; "
		 "`hetplan launch` refuses an estimate-only one (exit 2): hetplan has no "
		 "launcher for it." },
	{ .key = "tp_overlap", .flag = "tp-overlap", .kind = FK_BOOL, .off = PF(tp_overlap),
	  .names = on_off, .effective = eff_tp_overlap,
	  .help = "TP collectives behind GEMMs; absent: the framework's default",
	  .doc = "Tensor-parallel collectives run beside the GEMMs in chunks (Megatron-Core "
		 "`--tp-comm-overlap`; sequence parallelism only). Default: the framework's." },
	{ .key = "grad_overlap", .flag = "grad-overlap", .kind = FK_BOOL,
	  .off = PF(grad_overlap), .names = on_off, .effective = eff_grad_overlap,
	  .help = "DP gradient reduce behind backward; absent: the framework's default",
	  .doc = "The data-parallel gradient reduce runs bucket by bucket beside the last "
		 "micro-batch's backward (`--overlap-grad-reduce`, DeepSpeed overlap_comm, "
		 "FSDP). Default: the framework's. DeepSpeed at zero 0 has no such path "
		 "(the engine all-reduces after the backward): off, and `on` is an error." },
	{ .key = "param_overlap", .flag = "param-overlap", .kind = FK_BOOL,
	  .off = PF(param_overlap), .names = on_off, .effective = eff_param_overlap,
	  .help = "DP parameter gather behind forward; absent: the framework's default",
	  .doc = "The parameter all-gather runs beside the next forward "
		 "(`--overlap-param-gather`; ZeRO-3 and FSDP prefetch). Default: the "
		 "framework's." },
	{ .key = "grad_reduce_fp32", .flag = "grad-reduce-fp32", .kind = FK_BOOL,
	  .off = PF(grad_fp32), .names = on_off, .effective = eff_grad_fp32,
	  .help = "DP gradients reduced in fp32 (Megatron `--accumulate-allreduce-grads-in-fp32`, "
		 "DeepSpeed `fp32_allreduce`); absent: the framework's default",
	  .doc = "Data-parallel gradients are reduced in fp32, 4 bytes a parameter (Megatron's "
		 "`--accumulate-allreduce-grads-in-fp32`, DeepSpeed's `fp32_allreduce`), rather "
		 "than in the 16-bit dtype. Default: the framework's; an fp32 or tf32 run has "
		 "fp32 gradients only (on, and `off` is an error)." },
	{ .key = "fp8_params", .flag = "fp8-params", .kind = FK_BOOL, .off = PF(fp8_params),
	  .names = on_off, .effective = eff_fp8_params,
	  .help = "fp8 runs keep GEMM weights in FP8 (Megatron `--fp8-param-gather`); "
		 "absent: the framework's default",
	  .doc = "An fp8 run keeps its layers' GEMM weights as FP8 tensors and all-gathers "
		 "them in FP8 (Megatron-Core `--fp8-param-gather`), with the fp32 master copy in "
		 "the distributed optimizer: 2 bytes a weight on the GPU (the FP8 data and its "
		 "FP8 transpose) where bf16 weights also hold Transformer Engine's cached FP8 "
		 "copy (4 bytes), and half the bytes in the parameter all-gather. Only under "
		 "megatron-core with precision fp8 and zero 1 or 2, and not with master none "
		 "(refused: Megatron's main params are fp32 or fp16). Default: the framework's "
		 "(on for megatron-core, as NVIDIA's FP8 recipes run; off under master none)." },
	{ .key = "ep_overlap", .flag = "ep-overlap", .kind = FK_BOOL, .off = PF(ep_overlap),
	  .names = on_off, .effective = eff_ep_overlap,
	  .help = "MoE all-to-alls behind the other micro-batch's compute (Megatron "
		 "`--overlap-moe-expert-parallel-comm`); absent: the framework's default",
	  .doc = "The expert all-to-alls (dispatch and combine) of one micro-batch run beside "
		 "the other micro-batch's compute (Megatron-Core "
		 "`--overlap-moe-expert-parallel-comm --delay-wgrad-compute`). Megatron-Core "
		 "runs it only with EP above 1, virtual stages when PP is above 1, no full "
		 "recompute and a 16-bit or fp8 run; elsewhere a plan asking for it runs "
		 "without. Only under megatron-core. Default: the framework's (on for "
		 "megatron-core, as NVIDIA's MoE recipes mostly run; off for the rest)." },
	{ .key = "moe_dispatch", .flag = "moe-dispatch", .kind = FK_ENUM, .off = PF(moe_dispatch),
	  .enm = &dispatch_enum, .effective = eff_moe_dispatch, .present = has_moe_dispatch,
	  .help = "MoE token dispatcher (Megatron `--moe-token-dispatcher-type`); absent: the "
		 "framework's default",
	  .doc = "How the MoE tokens reach their experts' ranks (Megatron-Core "
		 "`--moe-token-dispatcher-type`). `alltoall` is NCCL's all-to-all: a token "
		 "crosses the network once for each of its routed experts on another node. "
		 "`flex` is the flex dispatcher with the DeepEP or HybridEP backend: once for "
		 "each other node holding any of them, then over NVLink inside that node "
		 "(docs/moe.md). `allgather` (Megatron-LM's default) all-gathers every token "
		 "over the expert TP x EP group and permutes it with torch gather and "
		 "scatter-add kernels (docs/moe-seq.md). `flex` needs megatron-core or "
		 "nemo-automodel, `allgather` megatron-core, and flex runs only where each "
		 "stage's expert TP x EP is above 1 (Megatron-Core's flex dispatcher "
		 "asserts it). Only for mixture-of-experts models. Default: the "
		 "framework's (flex for megatron-core, as most of NVIDIA's MoE recipes run; "
		 "alltoall for the rest), resolved where the plan is loaded: alltoall on a "
		 "plan with a piece that cannot run flex (docs/moe.md). A plan file written "
		 "by hetplan leaves an unset key unset." },
	{ .key = "moe_grouped_gemm", .flag = "moe-grouped-gemm", .kind = FK_BOOL,
	  .off = PF(moe_grouped_gemm), .names = on_off, .effective = eff_moe_grouped_gemm,
	  .present = has_moe_grouped_gemm,
	  .help = "MoE experts as grouped GEMMs (Megatron `--moe-grouped-gemm`), off: one MLP "
		 "per expert in a loop; absent: the framework's default",
	  .doc = "The routed experts run as grouped GEMMs (Megatron-Core `--moe-grouped-gemm`, "
		 "TEGroupedMLP). Off, they run as Megatron-Core's SequentialMLP: a Python loop "
		 "over the local experts, two GEMMs and an activation each, every GEMM alone on "
		 "the GPU at its expert's shape, every launch issued by the host "
		 "(docs/moe-seq.md). Megatron-LM's own default is off; NVIDIA's MoE recipes turn "
		 "it on. Only for mixture-of-experts models. Default: the framework's (on for "
		 "every framework, the shape hetplan has always costed)." },
	{ .key = "grad_accum_fusion", .flag = "grad-accum-fusion", .kind = FK_BOOL,
	  .off = PF(grad_accum_fusion), .names = on_off, .effective = eff_grad_accum_fusion,
	  .present = has_grad_accum_fusion,
	  .help = "weight-gradient GEMMs accumulate into the fp32 main_grad (Megatron's "
		  "gradient accumulation fusion), off: `--no-gradient-accumulation-fusion`; "
		  "absent: on",
	  .doc = "Megatron's gradient accumulation fusion: each linear layer's weight-gradient "
		 "GEMM adds its result into the parameter's `main_grad` buffer itself (apex "
		 "`fused_weight_gradient_mlp_cuda` or Transformer Engine). Off "
		 "(`--no-gradient-accumulation-fusion`, as runs without apex's extension take "
		 "it), the GEMM writes the gradient in the training dtype and a separate kernel "
		 "adds it into `main_grad` (`param.main_grad.add_(param.grad.data)`, "
		 "megatron/core/distributed/distributed_data_parallel.py @d98e8a64 L578) on "
		 "every micro-batch: it reads the gradient (2 bytes a parameter, 4 in an fp32 "
		 "run) and reads and writes `main_grad` (4 + 4 bytes, 2 + 2 with "
		 "`grad_reduce_fp32` off), 10 bytes a GEMM weight a micro-batch in a bf16 run, "
		 "charged over the HBM bandwidth to the backward. Only for megatron-core and "
		 "megatron-lm (and any): the other frameworks have no such flag, and the key is "
		 "an error there. Default on, Megatron's own. `hetplan launch` writes "
		 "`--no-gradient-accumulation-fusion` when off. The planner does not search it "
		 "(on is never slower)." },
	{ .key = "optimizer_impl", .flag = "optimizer-impl", .kind = FK_ENUM, .off = PF(opt_impl),
	  .enm = &opt_impl_enum, .effective = eff_opt_impl, .present = has_opt_impl,
	  .also = "the HF Trainer's `adamw_torch_fused`, `adamw_apex_fused`, `adamw_torch` or "
		  "`adamw_hf`, or torchtitan's `for-loop`",
	  .help = "how Adam runs over the tensors: one fused multi-tensor kernel, torch's "
		  "foreach passes, or a per-tensor loop; absent: the framework's default",
	  .doc = "How the optimizer's Adam step runs over the parameter tensors "
		 "(docs/optimizer.md). `fused`: one multi-tensor kernel (apex or Transformer "
		 "Engine FusedAdam, DeepSpeed's FusedAdam, `torch.optim.AdamW(fused=True)`, the "
		 "HF Trainer's `--optim adamw_torch_fused`), 28 bytes a parameter. `foreach`: "
		 "torch's multi-tensor AdamW (torch's default, the HF Trainer's `adamw_torch`), "
		 "seven passes of 76 bytes a parameter, launched once per group of tensors. "
		 "`loop`: one tensor at a time (`transformers.AdamW`, the HF Trainer's "
		 "`adamw_hf`, its default until transformers 4.32; torchtitan's `for-loop`): "
		 "the same 76 bytes and seven launches a tensor, with the HF Trainer's per-tensor "
		 "clip and zero_grad of that era. The estimate charges the step's bytes over "
		 "the HBM bandwidth or its launches at the host's issue cost, whichever is "
		 "longer. Default: the framework's (fused for all but hf-deepspeed, whose "
		 "Trainer AdamW is the loop); llm.c and maxtext run their own fused step only. "
		 "The planner does not search it (fused is never slower)." },
	/* recompute_layers: up to the model's layer limit (catalog.c, 100000) */
	{ .key = "recompute_layers", .flag = "recompute-layers", .kind = FK_INT,
	  .off = PF(recompute_layers), .min = 0, .max = 100000, .flags = FF_OMIT_ZERO,
	  .arg = "{N}", .help = "with recompute full: layers recomputed per stage chunk (0: all)",
	  .doc = "With `--recompute full`, only {N} layers of each pipeline stage's model chunk "
		 "are recomputed; the stage's other layers keep their activations (Megatron-LM "
		 "`--recompute-method block --recompute-num-layers` {N}: the first {N} layers of "
		 "each chunk). A stage of {L} layers in {V} chunks recomputes min({N} × {V}, {L}) "
		 "of them (simplified: every chunk taken to hold {N} or more). torchtitan "
		 "checkpoints every {K}-th layer instead (`selective_ac_option = \"`{K}`\"`): "
		 "{L} / {K} layers of a stage of {L}, which {N} = {L} / {K} states; `hetplan "
		 "launch` writes {K} = {L} / {N} and says so where {N} does not divide {L}. "
		 "0 (the default) recomputes every layer. Needs `--recompute full`. The planner "
		 "does not search it." },
	{ .key = "recompute_modules", .flag = "recompute-modules", .kind = FK_CUSTOM,
	  .off = PF(recompute_modules), .custom = &rcm_custom, .present = has_rcm,
	  .arg = "{LIST}", .help = "with recompute selective: Megatron-Core's modules to recompute",
	  .doc = "With `--recompute selective`, the modules Megatron-Core recomputes "
		 "(`--recompute-modules`), a comma list of `core_attn` (the attention core, the "
		 "default when the key is absent), `moe_act` (the routed experts' activation "
		 "function), `layernorm` (the norms that are modules of their own: the MLA input "
		 "norm and the MoE layers' pre-MLP norm), `mla_up_proj` (MLA's query and key/value "
		 "up projections and RoPE), `mlp` (the dense layers' MLP; an MoE layer's is "
		 "`moe`), `moe` (the whole MoE layer) and `shared_experts`. The list replaces the "
		 "default: `mlp` alone does not recompute the attention core. Each module adds its "
		 "forward again to the backward and frees the activations it alone kept "
		 "(docs/recompute.md gives the bytes and time of each). `mla_up_proj` needs an MLA "
		 "model, `moe`, `moe_act` and `shared_experts` an MoE model. Runs on Megatron-Core "
		 "only. The planner does not search it. An empty list in a plan file or the TUI "
		 "unsets it; the flag refuses one." },
	{ .key = "tp_host_sync", .flag = "tp-host-sync", .kind = FK_BOOL, .off = PF(tp_host_sync),
	  .names = on_off, .flags = FF_OMIT_ZERO,
	  .help = "the host synchronises the GPU around every TP collective (AMP's Megatron fork)",
	  .doc = "The host waits for the GPU before and after every tensor-parallel all-reduce, "
		 "so at TP above 1 a layer's kernel launches no longer run ahead of its GPU work: "
		 "each layer costs its host time plus its GPU time, where otherwise the longer "
		 "of the two. AMP's Megatron-LM v1.1.5 fork (DachengLi1/AMP @708e87f, "
		 "megatron/mpu/mappings.py `_reduce` under `timers('mp allreduce')`, whose "
		 "`_Timer.start` and `stop` call `torch.cuda.synchronize()`) runs so; upstream "
		 "Megatron-LM and the other frameworks do not (default off). No effect at TP 1. "
		 "Estimate only: `hetplan launch` writes nothing for it (its notes say so, naming "
		 "the key) and the planner does not search it." },
	{ .key = "compile", .flag = "compile", .kind = FK_BOOL, .off = PF(compile),
	  .names = on_off, .effective = eff_compile, .present = has_compile,
	  .help = "torch.compile over each block (torchtitan training.compile); absent: off "
		  "(on with torchtitan async TP)",
	  .doc = "The model's transformer blocks run under torch.compile (Inductor), as "
		 "torchtitan's `training.compile` (`[compile] enable` in later releases) "
		 "compiles each block: the norms, the residual adds, rotary and SwiGLU become "
		 "a few fused kernels; the GEMMs and flash attention are unchanged. Off, the "
		 "block runs eagerly: RMSNorm as PyTorch's composite ops, rotary in fp32 "
		 "complex arithmetic, SiLU and its product apart (docs/compile.md counts both). "
		 "Only for framework torchtitan (megatron-core, megatron-lm and deepspeed run "
		 "their own fused kernels: on is refused there). Default off, torchtitan's "
		 "own, except that a torchtitan plan with tp_overlap (async TP) at TP above "
		 "1 runs compiled, as torchtitan requires (off is then refused). `hetplan "
		 "launch` writes the `[compile]` block; the planner does not search it." },
	/* before pp_layout, the editor's last row (tests/test_tui.sh); the
	 * 80x24 editor's rows above keep their places */
	/* offload_layers: 1 to the model's layers - 1 (Megatron-Core refuses
	 * cpu_offloading_num_layers >= num_layers, transformer_config.py
	 * @d98e8a64 L1884-1889); the field's bound is the catalog's layer
	 * limit (catalog.c, 100000), the model's checked by plan_validate */
	{ .key = "offload_layers", .flag = "offload-layers", .kind = FK_INT,
	  .off = PF(offload_layers), .min = 0, .max = 100000, .flags = FF_OMIT_ZERO,
	  .arg = "{N}", .help = "with offload activations: layers whose activations go to the host",
	  .doc = "With `--offload activations`, the number of layers whose saved activations "
		 "go to host memory: the model's first {N} (Megatron-Core "
		 "`--cpu-offloading-num-layers` {N}; Megatron-Bridge `cpu_offloading_num_layers`). "
		 "1 to the model's layers less one. Needs `--offload activations`." },
	{ .key = "pp_layout", .flag = "pp-layout", .kind = FK_STR, .off = PF(pp_layout),
	  .size = PP_LAYOUT_TEXT, .flags = FF_OMIT_ZERO, .arg = "{LAYOUT}",
	  .help = "layers of each virtual pipeline stage, Megatron's --pipeline-model-parallel-layout "
		  "syntax (\"Et*4|(t*4|)*14tL\")",
	  .doc = "The layers of each virtual pipeline stage, in Megatron-Core's "
		 "`--pipeline-model-parallel-layout` syntax: `E` the embedding, `t` a "
		 "transformer layer, `L` the loss and output layer, `|` ends a virtual stage, "
		 "{X}`*`{N} repeats a symbol and `(`...`)*`{N} a group; commas are ignored. "
		 "Virtual stage {k} runs on pipeline rank {k} mod {pp} as its chunk {k} / {pp}. "
		 "`Et*4|(t*4|)*14tL` with {pp} 4 and `interleaved:4` gives ranks 16, 16, 16 and 13 "
		 "of DeepSeek-V3's 61 layers (NVIDIA's recipe). The layout must start with `E`, "
		 "end with `L`, hold the model's layers, and have {pp} \u00d7 {V} virtual stages "
		 "({V} 1 under 1f1b); each stage of the plan holds its rank's layers (with "
		 "`--tp`/`--pp` the stages are placed so). Ranks then need not hold a multiple of "
		 "{V}. `m` (an MTP layer) is refused: hetplan's models have none. The pipeline "
		 "time takes each rank's first and last chunk for the fill and drain and the "
		 "memory its chunks' layers in flight. `hetplan launch` writes it for "
		 "Megatron-Core; other frameworks get a note. The planner does not search it. "
		 "An empty value is no layout (the even split)." },
};
#undef PF

const struct hp_field_table plan_fields = { "plan", plan_field_list,
					    (int)HP_ARRAY_LEN(plan_field_list), 1, 0 };

/* Keys the planner prints beside a plan (search results), ignored when a
 * plan file is read back. */
static const char *const plan_output_keys[] = {
	"replicas", "rank", "step_time_s", "tokens_per_s", "mfu", "usd_per_hour",
	"usd_per_million_tokens", "time_to_train_s", "cost_to_train_usd", "gpus_used", "networks",
	"breakdown_s", "breakdown_group",
	"memory", "comm", "optimality", "hfu", "label", "list_label", "links", "pareto", "runs_on",
	"runs_on_why", "memory_verdict", "mem_need_bytes", "mem_capacity_bytes", NULL,
};

/* One replica group: count, batch_share (-1 when absent) and its stages. */
static int parse_replica(struct plan *p, struct replica *r, const cJSON *ro, const char *file,
			 const char *path, const struct cluster *c, struct hp_err *err)
{
	static const char *const rk[] = { "count", "batch_share", "stages", NULL };
	struct jx_ctx jr = { file, path, err };
	int bad;
	if (!cJSON_IsObject(ro))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: %s: expected an object", file, path);
	r->count = 1;
	r->batch_share = -1;
	if (jx_check_keys(&jr, ro, rk) < 0 ||
	    jx_int(&jr, ro, "count", 0, 1, 1000000, &r->count) < 0 ||
	    jx_num(&jr, ro, "batch_share", 0, 1e-9, 1, &r->batch_share) < 0)
		return -1;
	const cJSON *sts = jx_arr(&jr, ro, "stages", 1, &bad);
	if (bad)
		return -1;
	int ns = cJSON_GetArraySize(sts);
	if (ns == 0 || ns > 100000)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: %s.stages: expected at least one stage",
				  file, path);
	r->n_stages = ns;
	r->stages = xcalloc((size_t)ns, sizeof *r->stages);
	for (int k = 0; k < ns; k++) {
		char sp[80];
		snprintf(sp, sizeof sp, "%s.stages[%d]", path, k);
		if (parse_stage(&r->stages[k], cJSON_GetArrayItem(sts, k), file, sp, c, err) < 0)
			return -1;
		/* count x tp x cp in 64 bits: no cluster has more than
		 * HP_MAX_GPUS, so a larger group is a typo. */
		long long g = (long long)r->count * r->stages[k].tp * p->cp;
		if (g > HP_MAX_GPUS)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: %s: count %d x tp %d x cp %d = %lld GPUs, more "
					  "than hetplan's limit of %d", file, sp, r->count,
					  r->stages[k].tp, p->cp, g, HP_MAX_GPUS);
	}
	return 0;
}

/* The "replicas" array; missing shares split the batch evenly. */
static int parse_replicas(struct plan *p, const cJSON *root, struct jx_ctx *jc,
			  const struct cluster *c)
{
	int bad;
	const char *file = jc->file;
	const cJSON *reps = jx_arr(jc, root, "replicas", 1, &bad);
	if (bad)
		return -1;
	int n = cJSON_GetArraySize(reps);
	if (n == 0 || n > 100000)
		return hp_err_set(jc->err, HP_EXIT_INPUT,
				  "%s: replicas: expected 1 to 100000 replicas, got %d", file, n);
	plan_free(p);
	p->replicas = xcalloc((size_t)n, sizeof *p->replicas);
	p->n_replicas = n;
	for (int i = 0; i < n; i++) {
		char path[48];
		snprintf(path, sizeof path, "replicas[%d]", i);
		if (parse_replica(p, &p->replicas[i], cJSON_GetArrayItem(reps, i), file, path, c,
				  jc->err) < 0)
			return -1;
	}
	int total = plan_dp(p), missing = 0;
	for (int i = 0; i < n; i++)
		missing += p->replicas[i].batch_share < 0;
	if (missing == n)
		for (int i = 0; i < n; i++)
			p->replicas[i].batch_share = 1.0 / total;
	else if (missing)
		return hp_err_set(jc->err, HP_EXIT_INPUT,
				  "%s: replicas: give batch_share for every replica or for none",
				  file);
	return 0;
}

int plan_parse_json(struct plan *p, const char *text, size_t len, const char *file,
		    const struct cluster *c, struct hp_err *err)
{
	cJSON *root = jx_parse(text, len, file, err);
	if (!root)
		return -1;
	struct jx_ctx jc = { file, "", err };
	int rc = -1;
	if (!cJSON_IsObject(root))
		hp_err_set(err, HP_EXIT_INPUT, "%s: expected a plan object", file);
	else if (fields_check_keys(&plan_fields, &jc, root, plan_output_keys) == 0 &&
		 fields_read_json(&plan_fields, p, &jc, root) == 0 &&
		 parse_replicas(p, root, &jc, c) == 0)
		rc = 0;
	cJSON_Delete(root);
	return rc;
}

int plan_check_precision(const struct cluster *c, int pool, enum hp_dtype dt,
			 const char *ctx, struct hp_err *err)
{
	const struct gpu_spec *g = &c->pools[pool].gpu;
	/* Every memory-bound op, the optimizer step and the attention's
	 * memory floor divide by the HBM bandwidth: a user catalog entry
	 * without memory_bw_tbps has no step time (as serving refuses it). */
	if (!(g->hbm_Bps > 0))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: pool '%s' (%s): the catalog has no memory bandwidth for it "
				  "(memory_bw_tbps)",
				  strncmp(ctx, "--", 2) == 0 || strcmp(ctx, "plan flags") == 0 ? "--pool" : ctx,
				  c->pools[pool].name, g->name);
	if (g->flops[dt] > 0)
		return 0;
	char have[64] = "";
	size_t n = 0;
	for (int d = 0; d < HP_DTYPE_COUNT; d++)
		if (g->flops[d] > 0 && n + 8 < sizeof have)
			n += (size_t)snprintf(have + n, sizeof have - n, "%s%s", n ? ", " : "",
					      hp_dtype_name((enum hp_dtype)d));
	/* bf16 is the default, so a user who never named a precision meets
	 * this on a GPU without it (V100, T4): name the one that runs, as
	 * the flag when the value came from flags (ctx "--precision" or
	 * "plan flags"), else as the key of the file ctx names ("FILE",
	 * "FILE: workload"), whose "precision" it is. */
	int flag = strncmp(ctx, "--", 2) == 0 || strcmp(ctx, "plan flags") == 0;
	const char *alt = dt == HP_BF16 && g->flops[HP_FP16] > 0
		? flag ? "; --precision fp16 runs on it" : "; precision fp16 runs on it" : "";
	return hp_err_set(err, HP_EXIT_INPUT,
			  "%s: precision %s: pool '%s' (%s) has no %s units (it has: %s)%s", ctx,
			  hp_dtype_name(dt), c->pools[pool].name, g->name, hp_dtype_name(dt),
			  n ? have : "no listed peaks", alt);
}

/* Messages name a setting as the user gave it: the flag typed (ctx
 * "plan flags", or a flag such as "--tp") with no context before it, else
 * the context (the plan file, "edited plan", "planner") and the plan-file
 * key. lead() writes "--cp" or "plan.json: cp" into buf (n bytes); stage
 * keys go through stage_lead(). */
static int ctx_flags(const char *ctx)
{
	return !strncmp(ctx, "--", 2) || !strcmp(ctx, "plan flags");
}

static const char *lead(const char *ctx, const char *key, char *buf, size_t n)
{
	if (ctx_flags(ctx)) {
		int w = snprintf(buf, n, "--%s", key);
		for (int i = 2; i < w && (size_t)i < n; i++)
			if (buf[i] == '_')
				buf[i] = '-';
	} else {
		snprintf(buf, n, "%s: %s", ctx, key);
	}
	return buf;
}

/* A stage's key: "--tp" from flags (every stage takes the flag's value),
 * "plan.json: replicas[0].stages[1].tp" elsewhere. */
static const char *stage_lead(const char *ctx, int i, int s, const char *key, char *buf,
			      size_t n)
{
	if (ctx_flags(ctx))
		return lead(ctx, key, buf, n);
	snprintf(buf, n, "%s: replicas[%d].stages[%d].%s", ctx, i, s, key);
	return buf;
}

/* The etp key (Megatron-Core's MoE parallel folding). Megatron-Core
 * builds the experts' rank grid from etp, ep and expert dp =
 * world / (etp x ep x pp) (parallel_state.py @d98e8a64
 * initialize_model_parallel, L871-883: a RuntimeError unless etp x ep x
 * pp divides the world), i.e. etp x ep divides each stage's tp x cp x dp;
 * TE's expert linears split the expert FFN width over etp
 * (experts.py TEGroupedMLP); MoELayer.forward raises in training with TP
 * but no sequence parallelism (moe_layer.py L636-640), which hetplan
 * enforces where the experts' layout leaves the attention's. Dense
 * models: an etp other than a stage's TP is refused, as ep > 1 is. */
static int validate_etp(const struct plan *p, const struct model_spec *m, int dp,
			const char *ctx, struct hp_err *err)
{
	if (!p->etp)
		return 0;
	if (m->moe.experts && m->moe.expert_ffn % p->etp)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: etp %d does not divide the expert FFN width %d", ctx, p->etp,
				  m->moe.expert_ffn);
	for (int i = 0; i < p->n_replicas; i++) {
		const struct replica *r = &p->replicas[i];
		for (int s = 0; s < r->n_stages; s++) {
			int tp = r->stages[s].tp;
			long gpus = (long)tp * p->cp * dp;
			if (!m->moe.experts && p->etp != tp)
				return hp_err_set(err, HP_EXIT_INPUT,
						  "%s: etp %d given for a dense model (no experts; "
						  "stage %d has tp %d)", ctx, p->etp, s, tp);
			if (gpus % ((long)p->etp * p->ep))
				return hp_err_set(err, HP_EXIT_INPUT,
						  "%s: etp %d x ep %d must divide tp x cp x dp = %ld "
						  "of replicas[%d].stages[%d] (the experts' ranks "
						  "tile each stage's)", ctx, p->etp, p->ep, gpus, i, s);
			if (p->etp < tp && !p->sp)
				return hp_err_set(err, HP_EXIT_INPUT,
						  "%s: etp %d below tp %d needs sequence parallelism "
						  "(Megatron-Core's MoE layer refuses TP without it in "
						  "training); drop --no-sp", ctx, p->etp, tp);
		}
	}
	return 0;
}

/* The moe_dispatch and moe_grouped_gemm keys. allgather is Megatron-Core's
 * allgather token dispatcher (framework.h moe_allgather), refused
 * elsewhere. flex is Megatron-Core's flex token dispatcher
 * (transformer_config.py @d98e8a64 L891-898, flags from arguments.py
 * L2373's ArgumentGroupFactory); the framework rows without it
 * (framework.h ep_dispatch_dedup 0: DeepSpeed-MoE and torchtitan send
 * with an all-to-all, Megatron-LM 2021-22 has no MoE) refuse it. A dense
 * model takes no dispatcher other than the default, as it takes no ep
 * above 1. */
static int validate_dispatch(const struct plan *p, const struct model_spec *m, const char *ctx,
			     struct hp_err *err)
{
	const struct framework_info *fw = framework_get(p->framework);
	if (!m->moe.experts && p->moe_grouped_gemm >= 0 &&
	    p->moe_grouped_gemm != !fw->moe_sequential_mlp)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: moe_grouped_gemm %s given for a dense model (no experts)", ctx,
				  p->moe_grouped_gemm ? "on" : "off");
	if (p->moe_dispatch < 0)
		return 0;
	if (p->moe_dispatch == MOE_DISPATCH_ALLGATHER && !fw->moe_allgather)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: moe_dispatch allgather is Megatron-Core's allgather token "
				  "dispatcher; %s has none: use alltoall", ctx,
				  framework_name(p->framework));
	if (p->moe_dispatch == MOE_DISPATCH_FLEX && !fw->ep_dispatch_dedup) {
		/* The frameworks that have it, from the table (framework.h
		 * ep_dispatch_dedup), so a row added there is named here. */
		char with[160] = "";
		size_t used = 0;
		for (int f = 0; f < FW_ROWS; f++) {
			if (f == FW_ANY || !framework_get((enum hp_framework)f)->ep_dispatch_dedup)
				continue;
			int n = snprintf(with + used, sizeof with - used, "%s%s", used ? ", " : "",
					 framework_name((enum hp_framework)f));
			if (n < 0 || (size_t)n >= sizeof with - used)
				break;
			used += (size_t)n;
		}
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: moe_dispatch flex needs a framework with a flex dispatcher "
				  "(DeepEP or HybridEP: %s); %s has none: use alltoall", ctx, with,
				  framework_name(p->framework));
	}
	int dflt = fw->ep_dispatch_dedup ? MOE_DISPATCH_FLEX : MOE_DISPATCH_ALLTOALL;
	if (!m->moe.experts && p->moe_dispatch != dflt)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: moe_dispatch %s given for a dense model (no experts)", ctx,
				  plan_moe_dispatch_name((enum hp_moe_dispatch)p->moe_dispatch));
	return 0;
}

/* Megatron's MoELayer.forward raises in training whenever its TP group
 * has more than one rank and sequence parallelism is off
 * (megatron/core/transformer/moe/moe_layer.py @001199898c4b, the first
 * statement of MoELayer.forward; the folded case above is one instance).
 * Applied to the Megatron frameworks only: DeepSpeed-MoE and torchtitan
 * were not checked for the same rule. */
int plan_moe_tp_without_sp(const struct plan *p, const struct model_spec *m, int *rep,
			   int *stage)
{
	if (p->sp)
		return 0;
	for (int i = 0; i < p->n_replicas; i++) {
		const struct replica *r = &p->replicas[i];
		for (int s = 0; s < r->n_stages; s++) {
			const struct stage *st = &r->stages[s];
			if (st->tp > 1 && model_moe_layers_in(m, st->first_layer, st->last_layer)) {
				if (rep)
					*rep = i;
				if (stage)
					*stage = s;
				return 1;
			}
		}
	}
	return 0;
}

static int validate_moe_sp(const struct plan *p, const struct model_spec *m, const char *ctx,
			   struct hp_err *err)
{
	int i, s;
	if ((p->framework != FW_MEGATRON_CORE && p->framework != FW_MEGATRON_LM) ||
	    !plan_moe_tp_without_sp(p, m, &i, &s))
		return 0;
	return hp_err_set(err, HP_EXIT_INPUT,
			  "%s: replicas[%d].stages[%d] runs MoE layers at tp %d "
			  "without sequence parallelism, which %s refuses in "
			  "training (MoE with tp > 1 needs it); drop --no-sp",
			  ctx, i, s, p->replicas[i].stages[s].tp, framework_get(p->framework)->name);
}

/* The framework's MoE layers (framework.h moe): see plan.h. */
int plan_framework_model(enum hp_framework f, const struct model_spec *m, const char *ctx,
			 struct hp_err *err)
{
	if (!m->moe.experts || framework_get(f)->moe)
		return 0;
	char with[128] = "";   /* the launchable rows with MoE layers, from the table */
	size_t k = 0;
	for (int i = FW_ANY + 1; i < FW_COUNT && k < sizeof with; i++)
		if (framework_get((enum hp_framework)i)->moe) {
			int w = snprintf(with + k, sizeof with - k, "%s%s", k ? ", " : "",
					 framework_name((enum hp_framework)i));
			if (w < 0)
				break;
			k += (size_t)w;
		}
	return hp_err_set(err, HP_EXIT_INPUT,
			  "%s: framework %s runs dense models only (its model code has no MoE "
			  "layer), and model %s has %d experts: use a framework with MoE "
			  "layers (%s)", ctx, framework_name(f), m->name, m->moe.experts, with);
}

/* Megatron-Core's activation offload (offload activations, N =
 * offload_layers), refused where Megatron-Core refuses it
 * (megatron/core/transformer/transformer_config.py @d98e8a64): N below
 * the model's layers (L1884-1889), no pipeline parallelism (L1891-1894),
 * no activation recomputation (L1896-1899). Other frameworks have no such
 * setting. */
static int validate_act_offload(const struct plan *p, const struct model_spec *m,
				const char *ctx, struct hp_err *err)
{
	if (p->offload != OFFLOAD_ACTIVATIONS) {
		if (p->offload_layers > 0)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: offload_layers %d needs offload activations (it says "
					  "how many layers' activations go to host memory, Megatron-Core "
					  "--cpu-offloading-num-layers), not offload %s",
					  ctx, p->offload_layers, plan_offload_name(p->offload));
		return 0;
	}
	if (p->framework != FW_MEGATRON_CORE)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: offload activations needs --framework megatron-core "
				  "(Megatron-Core's --cpu-offloading-num-layers), not %s",
				  ctx, framework_name(p->framework));
	if (p->offload_layers < 1 || p->offload_layers >= m->layers)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: offload activations needs offload_layers between 1 and %d "
				  "(Megatron-Core's --cpu-offloading-num-layers must be below the "
				  "model's %d layers), not %d", ctx, m->layers - 1, m->layers,
				  p->offload_layers);
	for (int i = 0; i < p->n_replicas; i++)
		if (p->replicas[i].n_stages > 1)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: offload activations needs pipeline parallelism 1: "
					  "Megatron-Core refuses --cpu-offloading-num-layers with "
					  "--pipeline-model-parallel-size above 1 (\"Currently there is "
					  "no support for Pipeline parallelism with CPU offloading\")",
					  ctx);
	if (p->recompute != RC_NONE)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: offload activations needs recompute none: Megatron-Core "
				  "refuses --cpu-offloading-num-layers with --recompute-granularity "
				  "(\"CPU offloading does not work when activation recomputation is "
				  "enabled\"), and the plan has recompute %s",
				  ctx, plan_recompute_name(p->recompute));
	return 0;
}

/* The offload key's optimizer value: DeepSpeed's ZeRO-Offload only.
 * DeepSpeed accepts offload_optimizer at ZeRO 1, 2 and 3 (stage_1_and_2.py
 * and stage3.py @edaa7221 read zero_optimization.offload_optimizer); at
 * ZeRO 0 there is no ZeRO optimizer to offload. Megatron-Core has its own
 * CPU optimizer offload (--optimizer-cpu-offload, megatron/training/
 * arguments.py @d98e8a64 L2918: HybridDeviceOptimizer, with
 * --optimizer-offload-fraction and --overlap-cpu-optimizer-d2h-h2d), a
 * different schedule hetplan does not model: refused rather than costed
 * as DeepSpeed's. */
static int validate_offload(const struct plan *p, const struct model_spec *m, const char *ctx,
			    struct hp_err *err)
{
	if (validate_act_offload(p, m, ctx, err) < 0)
		return -1;
	if (p->offload != OFFLOAD_OPTIMIZER)
		return 0;
	if (p->framework != FW_DEEPSPEED && p->framework != FW_HF_DEEPSPEED)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: offload optimizer needs --framework deepspeed (DeepSpeed's "
				  "ZeRO-Offload, zero_optimization.offload_optimizer device cpu), not "
				  "%s; Megatron-Core's --optimizer-cpu-offload runs another schedule, "
				  "which hetplan does not model",
				  ctx, framework_name(p->framework));
	if (p->zero < 1)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: offload optimizer needs zero 1, 2 or 3 (DeepSpeed offloads "
				  "the ZeRO optimizer's partition; zero 0 has none)", ctx);
	if (p->master == MASTER_REPLICATED)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: offload optimizer keeps the fp32 master weights sharded on "
				  "the host: master \"replicated\" (DeepSpeed's BF16 optimizer) "
				  "cannot offload", ctx);
	if (p->master == MASTER_NONE)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: offload optimizer moves the fp32 master weights and Adam "
				  "moments to the host; master \"none\" has no fp32 master (not "
				  "modelled together)", ctx);
	return 0;
}

/* The settings against the model: batch, master layout, cp and ep. */
/* The settings that name what a framework's code does (fp8 parameters,
 * compile, the optimizer, gradient dtype and the overlaps): each one the
 * plan's framework must be able to run. */
int plan_validate_framework_keys(const struct plan *p, const char *ctx, struct hp_err *err)
{
	if (p->fp8_params == 1 && !plan_fp8_params(p))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: fp8_params on needs precision fp8 and zero 1 or 2 "
				  "(Megatron-Core's --fp8-param-gather needs the distributed optimizer)",
				  ctx);
	if (p->fp8_params == 1 && p->framework != FW_MEGATRON_CORE && p->framework != FW_ANY)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: fp8_params on needs framework megatron-core (hetplan models "
				  "Megatron-Core's --fp8-param-gather only), not %s",
				  ctx, framework_name(p->framework));
	if (p->compile == 0 && titan_async_tp(p))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: compile off with tp_overlap on at TP above 1: torchtitan's "
				  "async TP runs only under torch.compile (set compile on, or "
				  "tp_overlap off)", ctx);
	if (plan_compile(p) && p->framework == FW_ANY)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: compile on needs framework torchtitan (torch.compile over "
				  "each block, training.compile), not any (the default): set "
				  "--framework torchtitan (\"framework\": \"torchtitan\")", ctx);
	if (plan_compile(p) && p->framework != FW_TORCHTITAN)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: compile on needs framework torchtitan (torch.compile over "
				  "each block, training.compile); %s runs its own fused kernels",
				  ctx, framework_name(p->framework));
	if (p->grad_accum_fusion >= 0 && !plan_grad_accum_fusion_applies(p->framework))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: grad_accum_fusion needs framework megatron-core or "
				  "megatron-lm (Megatron's --no-gradient-accumulation-fusion); %s "
				  "has no such setting: remove the key", ctx,
				  framework_name(p->framework));
	if (p->opt_impl >= 0 && framework_get(p->framework)->opt_impl_only &&
	    plan_opt_impl(p) != (enum hp_opt_impl)framework_get(p->framework)->opt_impl)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: optimizer_impl %s is not what framework %s runs: its code has "
				  "its own %s optimizer step only",
				  ctx, framework_opt_impl_name(plan_opt_impl(p)),
				  framework_name(p->framework),
				  framework_opt_impl_name(
					  (enum hp_opt_impl)framework_get(p->framework)->opt_impl));
	if (p->grad_fp32 == 0 && (p->precision == HP_FP32 || p->precision == HP_TF32))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: grad_reduce_fp32 off needs a 16-bit or fp8 run (precision %s "
				  "holds fp32 gradients only; a plan file written by hetplan before "
				  "December 2026 may hold it: remove the key)",
				  ctx, hp_dtype_name((enum hp_dtype)p->precision));
	if (p->grad_overlap == 1 && !framework_grad_overlap_possible(p->framework, p->zero)) {
		int lo = framework_get(p->framework)->grad_overlap_min_zero;
		int hi = framework_zero_max(p->framework);
		if (lo > hi)   /* deepspeed-0.3: overlap from ZeRO 2, runs 0-1 */
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: grad_overlap on is not possible under framework %s "
					  "(its code runs ZeRO 0-%d and at each reduces the gradients "
					  "after the backward, whatever its config says; a plan file "
					  "written by hetplan before December 2026 may hold it: remove "
					  "the key)",
					  ctx, framework_name(p->framework), hi);
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: grad_overlap on needs zero %d-%d under framework %s (below ZeRO "
				  "%d its code reduces the gradients after the backward, whatever its "
				  "config says; a plan file written by hetplan before December 2026 "
				  "may hold it: remove the key)",
				  ctx, lo, hi, framework_name(p->framework), lo);
	}
	/* DeepSpeed 0.3's ZeRO-1 (zero/stage1.py @7d4d742) all-gathers the
	 * updated fp16 partitions after optimizer.step(), and ZeRO 0 gathers
	 * nothing: no parameter gather runs beside the forward. */
	if (p->param_overlap == 1 && p->framework == FW_DEEPSPEED_03)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: param_overlap on cannot run under framework %s (its ZeRO-1 "
				  "all-gathers the parameters after the optimizer step, with nothing "
				  "to hide behind; ZeRO 0 gathers none): use --param-overlap off",
				  ctx, framework_name(p->framework));
	if (p->ep_overlap == 1 && !framework_get(p->framework)->ep_overlap)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: ep_overlap on needs framework megatron-core (hetplan models "
				  "Megatron-Core's --overlap-moe-expert-parallel-comm only), not %s",
				  ctx, framework_name(p->framework));
	return 0;
}

/* recompute_modules (plan.h RCM_*): Megatron-Core's checks
 * (transformer_config.py @d98e8a64 L1943-1973): the modules are
 * selective recomputation's ("recompute_modules" is read only under
 * recompute_granularity selective), mla_up_proj "is only supported with
 * multi_latent_attention"; and those of an MoE layer need one (Megatron
 * builds no MoE layer to apply them to, and would recompute nothing). */
static int validate_rc_modules(const struct plan *p, const struct model_spec *m, const char *ctx,
			       struct hp_err *err)
{
	unsigned b = p->recompute_modules;
	char txt[96];
	if (!b)
		return 0;
	if (b & ~(unsigned)RCM_ALL)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: recompute_modules holds an unknown module",
				  ctx);
	if (p->recompute != RC_SELECTIVE)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: recompute_modules %s needs recompute selective (Megatron-Core "
				  "reads --recompute-modules only with --recompute-granularity "
				  "selective), not %s",
				  ctx, plan_recompute_modules_text(b, txt, sizeof txt),
				  plan_recompute_name(p->recompute));
	if ((b & RCM_MLA_UP_PROJ) && m && !m->mla.kv_lora_rank)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: recompute_modules mla_up_proj needs a model with multi-latent "
				  "attention (MLA); %s has none",
				  ctx, m->name);
	unsigned moe_only = RCM_MOE | RCM_MOE_ACT | RCM_SHARED_EXPERTS;
	if ((b & moe_only) && m && !m->moe.experts)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: recompute_modules %s needs an MoE model; %s has no experts",
				  ctx, plan_recompute_modules_text(b & moe_only, txt, sizeof txt),
				  m->name);
	if ((b & RCM_SHARED_EXPERTS) && m && !m->moe.shared_experts)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: recompute_modules shared_experts needs shared experts; %s has "
				  "none",
				  ctx, m->name);
	return 0;
}

static int validate_settings(const struct plan *p, const struct model_spec *m, const char *ctx,
			     struct hp_err *err)
{
	char k[320];
	if (plan_framework_model(p->framework, m, ctx, err) < 0)
		return -1;
	for (int i = 0; i < p->n_replicas; i++) {   /* framework.h dp_only */
		const struct replica *r = &p->replicas[i];
		char why[240];
		for (int s = 0; s < r->n_stages; s++)
			if (framework_layout_refusal(p->framework, r->stages[s].tp, r->n_stages,
						     why, sizeof why) < 0)
				return hp_err_set(err, HP_EXIT_INPUT, "%s: %s", ctx, why);
	}
	if (p->master == MASTER_NONE && p->precision != HP_BF16 && p->precision != HP_FP8)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: master \"none\" (weights, gradients and Adam moments in bf16, "
				  "no fp32 master) needs precision bf16 or fp8, not %s%s",
				  ctx, hp_dtype_name(p->precision),
				  p->precision == HP_FP16
				      ? " (fp16 gradients need a loss scaler, and torch's GradScaler "
					"refuses to unscale fp16 gradients)"
				      : " (an fp32 or tf32 run keeps fp32 weights: there is no master "
					"copy to drop)");
	/* master none: the gradients are the bf16 parameters' own, which
	 * torch DDP (ZeRO 0) all-reduces as they are; an fp32 reduce is
	 * FSDP2's reduce_dtype (torchtitan's mixed_precision_reduce "only
	 * takes effect when data_parallel_shard_degree > 1",
	 * torchtitan/config/configs.py @b5bcd76c L102-106), and no
	 * framework that runs master none has a ZeRO-1 (runs_on.c
	 * rules_master) or an fp32 buffer to accumulate into (Megatron's
	 * main_grad belongs to its fp32 master) */
	if (p->master == MASTER_NONE && p->grad_fp32 == 1 && p->zero <= 1)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: master \"none\" with grad_reduce_fp32 on at zero %d: the "
				  "gradients are the bf16 parameters' own and DDP reduces them in "
				  "bf16 (an fp32 reduce is FSDP's, torchtitan's mixed_precision_reduce "
				  "at zero 2 or 3); set grad_reduce_fp32 off, zero 2 or 3, or a master",
				  ctx, p->zero);
	if (p->master == MASTER_REPLICATED && p->zero >= 2)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: master \"replicated\" needs zero 0 or 1 (ZeRO %d shards the master weights)",
				  ctx, p->zero);
	if (validate_offload(p, m, ctx, err) < 0)
		return -1;
	if (p->recompute_layers > 0 && p->recompute != RC_FULL)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: recompute_layers %d needs recompute full (it says how many "
				  "layers of each stage chunk full recomputation covers), not %s",
				  ctx, p->recompute_layers, plan_recompute_name(p->recompute));
	if (validate_rc_modules(p, m, ctx, err) < 0)
		return -1;
	if (p->fp8_params == 1 && p->master == MASTER_NONE)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: fp8_params on needs an fp32 master (Megatron-Core's "
				  "--fp8-param-gather keeps the fp32 main params the optimizer "
				  "steps), not master \"none\"", ctx);
	if (plan_validate_framework_keys(p, ctx, err) < 0)
		return -1;
	if (validate_dispatch(p, m, ctx, err) < 0)
		return -1;
	int seq = p->seq_len ? p->seq_len : m->seq_len;
	if (seq % p->cp)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s %d does not divide the sequence length %d",
				  lead(ctx, "cp", k, sizeof k), p->cp, seq);
	if (m->moe.experts) {
		if (m->moe.experts % p->ep)
			return hp_err_set(err, HP_EXIT_INPUT, "%s %d does not divide the %d experts",
					  lead(ctx, "ep", k, sizeof k), p->ep, m->moe.experts);
	} else if (p->ep > 1) {
		return hp_err_set(err, HP_EXIT_INPUT, "%s %d given for a dense model (no experts)",
				  lead(ctx, "ep", k, sizeof k), p->ep);
	}
	/* A check that reads the replica counts (plan_dp) must also be made
	 * before a plan is built in the planner's candidates
	 * (search_combo.c's dp_prescreened assumes every other plan of a set
	 * validates once one has; this one is combo_groups' EP test). The
	 * planner builds plans with the default etp only. */
	int dp = plan_dp(p);
	if (!p->etp && (dp * p->cp) % p->ep)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s %d must divide dp x cp = %d (experts are sharded inside the data-parallel group)",
				  lead(ctx, "ep", k, sizeof k), p->ep, dp * p->cp);
	if (validate_moe_sp(p, m, ctx, err))
		return -1;
	return validate_etp(p, m, dp, ctx, err);
}

/* Stage s of replica group i: its layer range starts at next, its TP fits
 * the heads and the nodes, interleaving divides its layers. */
static int validate_stage(const struct plan *p, int i, int s, int next, const struct cluster *c,
			  const struct model_spec *m, const char *ctx, struct hp_err *err)
{
	const struct replica *r = &p->replicas[i];
	const struct stage *st = &r->stages[s];
	const struct pool *pl = &c->pools[st->pool];
	char k[320];
	if (st->first_layer != next || st->last_layer < st->first_layer)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: replicas[%d].stages[%d]: layers %d-%d; expected a range starting at %d",
				  ctx, i, s, st->first_layer, st->last_layer, next);
	if (m->heads % st->tp)
		return hp_err_set(err, HP_EXIT_INPUT, "%s %d does not divide the %d attention heads of %s",
				  stage_lead(ctx, i, s, "tp", k, sizeof k), st->tp, m->heads, m->name);
	if (st->tp > m->kv_heads && st->tp % m->kv_heads)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s %d is neither a divisor nor a multiple of the %d KV heads of %s",
				  stage_lead(ctx, i, s, "tp", k, sizeof k), st->tp, m->kv_heads, m->name);
	/* TP beyond a node (or an NVL72 domain) is allowed: its collectives
	 * then cross the NICs, and perf.c charges them; it must still tile
	 * the nodes evenly. */
	if (st->tp > pl->gpus_per_node && st->tp % pl->gpus_per_node)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s %d spans nodes of pool '%s' but is not a multiple of its %d GPUs per node",
				  stage_lead(ctx, i, s, "tp", k, sizeof k), st->tp, pl->name,
				  pl->gpus_per_node);
	/* Interleaving: each stage holds vpp chunks of equal layers; the
	 * first and last stage may hold one layer less, their embedding or
	 * loss standing in for it (Megatron-Core's
	 * account_for_embedding_in_pipeline_split and
	 * account_for_loss_in_pipeline_split, as Llama 3.1 405B ran 126
	 * layers on 16 x 8 chunks). */
	int nl = st->last_layer - st->first_layer + 1;
	int edge = (s == 0 || s == r->n_stages - 1) && r->n_stages > 1;
	if (p->schedule == SCHED_INTERLEAVED && !p->pp_layout[0] && nl % p->vpp && !(edge && (nl + 1) % p->vpp == 0)) {
		char where[64];
		if (ctx_flags(ctx))
			snprintf(where, sizeof where, "at --pp %d stage %d", r->n_stages, s);
		else
			snprintf(where, sizeof where, "replicas[%d].stages[%d]", i, s);
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s interleaved:%d needs each stage's layer count to be a multiple of %d "
				  "(the first and last stage may hold one less); %s holds %d (layers %d-%d)",
				  lead(ctx, "schedule", k, sizeof k), p->vpp, p->vpp, where, nl,
				  st->first_layer, st->last_layer);
	}
	return 0;
}

/* Replica group i's shape: stages covering every layer once, each fitting
 * the heads and the nodes. */
static int validate_replica(const struct plan *p, int i, const struct cluster *c,
			    const struct model_spec *m, const char *ctx, struct hp_err *err)
{
	const struct replica *r = &p->replicas[i];
	int next = 0, pp = r->n_stages;
	for (int s = 0; s < pp; s++) {
		if (validate_stage(p, i, s, next, c, m, ctx, err) < 0)
			return -1;
		next = r->stages[s].last_layer + 1;
	}
	if (next != m->layers) {
		if (next > m->layers)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: replicas[%d] has layers up to %d but %s has %d (0 to %d)",
					  ctx, i, next - 1, m->name, m->layers, m->layers - 1);
		return hp_err_set(err, HP_EXIT_INPUT, "%s: replicas[%d] covers layers 0-%d; %s has %d",
				  ctx, i, next - 1, m->name, m->layers);
	}
	return 0;
}

/* The batch against the shape: the micro-batch within the global batch,
 * whole micro-batches in every replica group, and interleaving's count a
 * multiple of the depth. Checked after everything else (plan_validate),
 * so that with both wrong the message names what must change first. */
static int validate_batch(const struct plan *p, const char *ctx, struct hp_err *err)
{
	char k[320];
	int flags = ctx_flags(ctx);
	if (p->mbs <= 0 || p->mbs > p->gbs)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s %d must be between 1 and the global batch %s %d",
				  lead(ctx, "mbs", k, sizeof k), p->mbs, flags ? "--gbs" : "gbs", p->gbs);
	for (int i = 0; i < p->n_replicas; i++) {
		int pp = p->replicas[i].n_stages;
		double seqs = plan_replica_seqs(p, i);
		double mb = seqs / p->mbs;
		int uneven = fabs(mb - lround(mb)) > 1e-6 * (mb + 1) || lround(mb) < 1;
		if (uneven && flags && p->n_replicas == 1)
			/* a plan from --tp/--pp/--dp: name the flags, not a JSON path */
			return hp_err_set(err, HP_EXIT_INPUT,
					  "--gbs %d over %d data-parallel replicas gives %.6g sequences each, "
					  "not a positive multiple of --mbs %d: give a --gbs that is a "
					  "multiple of %ld (mbs x dp), or another --dp",
					  p->gbs, plan_dp(p), seqs, p->mbs, (long)p->mbs * plan_dp(p));
		if (uneven)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: replicas[%d] gets %.6g sequences per step, not a positive multiple of the micro-batch %d (gbs %d, dp %d)",
					  ctx, i, seqs, p->mbs, p->gbs, plan_dp(p));
		if (p->schedule == SCHED_INTERLEAVED && pp > 1 && lround(mb) % pp)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s needs the micro-batch count of replicas[%d] (%.6g "
					  "sequences / %s %d = %ld) to be a multiple of %s %d",
					  lead(ctx, "schedule interleaved", k, sizeof k), i, seqs,
					  flags ? "--mbs" : "mbs", p->mbs, lround(mb),
					  flags ? "--pp" : "its stage count", pp);
	}
	return 0;
}

/* The pp_layout key: it parses, fits the model, PP x VP and every
 * replica group's depth, and each stage holds its rank's layers. */
static int validate_pp_layout(const struct plan *p, const struct model_spec *m,
			      const char *ctx, struct hp_err *err)
{
	struct pp_layout L;
	char msg[200];
	if (!p->pp_layout[0])
		return 0;
	if (pp_layout_parse(p->pp_layout, &L, msg, sizeof msg) < 0)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: pp_layout (--pp-layout) \"%s\": %s",
				  ctx, p->pp_layout, msg);
	int pp = p->replicas[0].n_stages, vp = p->schedule == SCHED_INTERLEAVED ? p->vpp : 1;
	if (pp_layout_check(&L, pp, vp, m->layers, msg, sizeof msg) < 0)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: pp_layout (--pp-layout) \"%s\" %s",
				  ctx, p->pp_layout, msg);
	for (int g = 0; g < p->n_replicas; g++) {
		const struct replica *r = &p->replicas[g];
		if (r->n_stages != pp)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: pp_layout (--pp-layout) is one layout for every replica; "
					  "replicas[%d] has %d stages, replicas[0] %d",
					  ctx, g, r->n_stages, pp);
		for (int s = 0; s < pp; s++) {
			int nl = r->stages[s].last_layer - r->stages[s].first_layer + 1;
			int want = pp_layout_rank_layers(&L, pp, s);
			if (nl != want)
				return hp_err_set(err, HP_EXIT_INPUT,
						  "%s: pp_layout (--pp-layout) \"%s\" gives pipeline rank %d "
						  "%d layers (its virtual stages %d, %d, ...); replicas[%d]"
						  ".stages[%d] holds %d (layers %d-%d)",
						  ctx, p->pp_layout, s, want, s, s + pp, g, s, nl,
						  r->stages[s].first_layer, r->stages[s].last_layer);
		}
	}
	return 0;
}

/* A flex key on a MoE model whose plan has a piece on hardware that
 * cannot run DeepEP or HybridEP (plan_flex_unfit): refused, naming the
 * stage, its pool and GPU, and the reason, as a precision the GPU lacks
 * is (plan_check_precision). Unasked, the framework's flex default falls
 * back to alltoall instead (plan_moe_dispatch). A dense model has no
 * dispatch to run. */
static int validate_flex_hw(const struct plan *p, const struct cluster *c,
			    const struct model_spec *m, const char *ctx, struct hp_err *err)
{
	if (!m->moe.experts || p->moe_dispatch != MOE_DISPATCH_FLEX)
		return 0;
	int rep, stage;
	const char *why;
	int flag = ctx_flags(ctx);
	char k[320], where[64];
	lead(ctx, "moe_dispatch", k, sizeof k);
	if (flex_first_single(p, &rep, &stage) == 0) {
		if (flag)
			snprintf(where, sizeof where, "the experts run");
		else
			snprintf(where, sizeof where, "replicas[%d].stages[%d] runs its experts", rep,
				 stage);
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s flex: %s on one rank (etp %d x ep %d), and Megatron-Core's flex "
				  "dispatcher needs expert TP x EP above 1; %s",
				  k, where, plan_etp(p, p->replicas[rep].stages[stage].tp), p->ep,
				  flag ? "--moe-dispatch alltoall runs it" : "moe_dispatch alltoall runs it");
	}
	flex_first_unfit(p, c, &rep, &stage, &why);
	if (!why)
		return 0;
	const struct pool *pl = &c->pools[p->replicas[rep].stages[stage].pool];
	return hp_err_set(err, HP_EXIT_INPUT,
			  "%s flex: replicas[%d].stages[%d] is on pool '%s' (%s), "
			  "which cannot run the flex dispatcher: %s; %s",
			  k, rep, stage, pl->name, pl->gpu.name, why,
			  flag ? "--moe-dispatch alltoall runs on it" : "moe_dispatch alltoall runs on it");
}

/* The order is what a user must change first: the settings and the
 * plan's shape (heads, layers, nodes, pools, precision, dispatcher), then
 * the batch (validate_batch), which a new shape changes anyway: with
 * --tp 3 on 32 heads and a --gbs no replica count divides, the heads are
 * named, not a --gbs that would need changing again after. */
int plan_validate(const struct plan *p, const struct cluster *c,
		  const struct model_spec *m, const char *ctx, struct hp_err *err)
{
	char k[320];
	if (p->gbs <= 0)
		return hp_err_set(err, HP_EXIT_USAGE, "%s missing: the global batch in sequences",
				  lead(ctx, "gbs", k, sizeof k));
	if (validate_settings(p, m, ctx, err) < 0)
		return -1;
	double share_sum = 0;
	for (int i = 0; i < p->n_replicas; i++) {
		share_sum += p->replicas[i].batch_share * p->replicas[i].count;
		if (validate_replica(p, i, c, m, ctx, err) < 0)
			return -1;
	}
	if (fabs(share_sum - 1) > 1e-6)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: batch shares add up to %.6g; expected 1", ctx, share_sum);
	if (validate_pp_layout(p, m, ctx, err) < 0)
		return -1;
	int used[HP_MAX_POOLS];
	plan_gpus(p, used);
	for (int i = 0; i < c->n_pools; i++) {
		int have = c->pools[i].nodes * c->pools[i].gpus_per_node;
		if (used[i] > have)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: the plan needs %d GPUs of pool '%s', which has %d (%d node%s x %d)",
					  ctx, used[i], c->pools[i].name, have, c->pools[i].nodes,
					  c->pools[i].nodes == 1 ? "" : "s", c->pools[i].gpus_per_node);
		if (used[i] && plan_check_precision(c, i, p->precision, ctx, err) < 0)
			return -1;
	}
	if (validate_flex_hw(p, c, m, ctx, err) < 0)
		return -1;
	return validate_batch(p, ctx, err);
}

cJSON *plan_to_json(const struct plan *p, const struct cluster *c)
{
	cJSON *o = cJSON_CreateObject();
	fields_write_json(&plan_fields, p, o);
	cJSON *reps = cJSON_AddArrayToObject(o, "replicas");
	for (int i = 0; i < p->n_replicas; i++) {
		const struct replica *r = &p->replicas[i];
		cJSON *ro = cJSON_CreateObject();
		cJSON_AddNumberToObject(ro, "count", r->count);
		cJSON_AddNumberToObject(ro, "batch_share", r->batch_share);
		cJSON *sts = cJSON_AddArrayToObject(ro, "stages");
		for (int s = 0; s < r->n_stages; s++) {
			const struct stage *st = &r->stages[s];
			cJSON *so = cJSON_CreateObject();
			cJSON_AddStringToObject(so, "pool", c->pools[st->pool].name);
			cJSON_AddStringToObject(so, "gpu", c->pools[st->pool].gpu.name);
			cJSON_AddNumberToObject(so, "tp", st->tp);
			cJSON_AddNumberToObject(so, "first_layer", st->first_layer);
			cJSON_AddNumberToObject(so, "last_layer", st->last_layer);
			cJSON_AddItemToArray(sts, so);
		}
		cJSON_AddItemToArray(reps, ro);
	}
	return o;
}
