/* launch.c — Megatron-LM arguments, Slurm + torchrun scripts and DeepSpeed
 * configs from a plan (see launch.h).
 *
 * Argument names follow Megatron-LM's arguments.py as of 2024-2025
 * (--recompute-granularity, --num-layers-per-virtual-pipeline-stage,
 * --decoder-first/last-pipeline-num-layers, --use-distributed-optimizer);
 * the 2021 scripts spelled full recomputation --checkpoint-activations,
 * which is the same thing. The DeepSpeed keys are those of its JSON config
 * (train_batch_size = micro-batch x accumulation x data-parallel size). */
#include "launch.h"
#include "runs_on.h"
#include "sbuf.h"
#include "escape.h"
#include "search.h"
#include "table.h"
#include "utf8.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The launch formats, one row each: the name --format takes and the
 * framework rows whose code runs the format's config. A plan that names
 * no framework (FW_ANY) is estimated with the format's row where
 * `implied` says so (launch_format_framework), and framework_denial
 * checks the plan against that row's rules. zero0 runs a plan at ZeRO 0,
 * zero_up at ZeRO 1-3. */
static const struct format_row {
	const char *name;
	enum hp_framework zero0, zero_up;
	int implied;               /* a plan naming no framework takes the row */
	int note_zero;             /* launch's note when it does (stderr):
				    * note_up from this --zero on (-1: unset) */
	const char *note_low, *note_up;
} formats[LAUNCH_FORMAT_COUNT] = {
	/* Megatron's arguments run under Megatron-Core, or the 2021-22
	 * Megatron-LM a plan names (framework_denial); FW_ANY is estimated
	 * as megatron-core already */
	[LAUNCH_MEGATRON] = { "megatron", FW_MEGATRON_CORE, FW_MEGATRON_CORE, 0, 0, NULL, NULL },
	[LAUNCH_SLURM] = { "slurm", FW_MEGATRON_CORE, FW_MEGATRON_CORE, 0, 0, NULL, NULL },
	[LAUNCH_DEEPSPEED] = { "deepspeed", FW_DEEPSPEED, FW_DEEPSPEED, 0, 0, NULL, NULL },
	/* a torchtitan config runs under torchtitan, so its defaults apply
	 * (framework_default_zero: FSDP2, ZeRO-3 at PP 1 and ZeRO-2 with
	 * PP, as --framework torchtitan gives) */
	[LAUNCH_TORCHTITAN] = { "torchtitan", FW_TORCHTITAN, FW_TORCHTITAN, 1, 0,
				"--format torchtitan without --framework: torchtitan's defaults "
				"(FSDP2: ZeRO-3, ZeRO-2 with PP), as --framework torchtitan",
				"--format torchtitan without --framework: torchtitan's defaults, "
				"the plan's --zero kept" },
	/* The HF Trainer wraps the model in DDP unless a DeepSpeed config is
	 * given (--deepspeed, which hetplan writes at ZeRO 1-3), and then runs
	 * DeepSpeed's engine over the same eager model code: hf-transformers
	 * at ZeRO 0, hf-deepspeed above (framework.c) */
	[LAUNCH_HF_TRAINER] = { "hf-trainer", FW_HF, FW_HF_DEEPSPEED, 1, 1,
				"--format hf-trainer without --framework or --zero: the Trainer "
				"with PyTorch DDP, as --framework hf-transformers",
				"--format hf-trainer with --zero 1-3 and no --framework: the "
				"Trainer runs ZeRO through DeepSpeed's engine over its eager model "
				"code, as --framework hf-deepspeed" },
};

/* The row of format f that runs a plan at ZeRO stage zero (-1, unset:
 * zero0's, the stage hetplan's defaults start from). */
static enum hp_framework format_row_framework(enum launch_format f, int zero)
{
	return zero >= 1 ? formats[f].zero_up : formats[f].zero0;
}

const char *launch_format_framework(struct plan *p, enum launch_format f)
{
	if ((unsigned)f >= LAUNCH_FORMAT_COUNT || !formats[f].implied || p->framework != FW_ANY)
		return NULL;
	p->framework = format_row_framework(f, p->zero);
	return p->zero >= formats[f].note_zero ? formats[f].note_up : formats[f].note_low;
}

const char *launch_format_running(enum hp_framework fw)
{
	for (int i = 0; i < LAUNCH_FORMAT_COUNT; i++)
		if (formats[i].zero0 == fw || formats[i].zero_up == fw)
			return formats[i].name;
	return NULL;
}

int launch_format_parse(const char *s, enum launch_format *f)
{
	for (int i = 0; i < LAUNCH_FORMAT_COUNT; i++)
		if (hp_strieq(s, formats[i].name)) {
			*f = (enum launch_format)i;
			return 0;
		}
	if (hp_strieq(s, "torchrun")) {
		*f = LAUNCH_SLURM;
		return 0;
	}
	return -1;
}

/* One job a stock framework can run: a replica group (or the whole plan
 * when it is homogeneous) with its own data-parallel size and batch. */
struct piece {
	int group;                /* -1: the whole plan */
	int pool, tp, pp, dp;
	int gbs;                  /* sequences per step for this piece */
	int first_layers, last_layers;   /* 0: same as the middle stages */
	int even;                 /* layer split Megatron can express */
	int flash;                /* --use-flash-attn: the plan's flash on a
				   * GPU flash-attn 2 runs on (hp_gen_sm80) */
	const struct replica *r;
};

/* Megatron splits layers evenly, or evenly after a first and a last stage
 * of their own size. Fills first/last (0 = not needed); returns 0 when the
 * split cannot be said that way. */
static int stage_layers_of(const struct replica *r, int i)
{
	return r->stages[i].last_layer - r->stages[i].first_layer + 1;
}

/* Whether r's stages hold equal layers but for the first and last; those
 * (0 when equal to the rest) go to *first and *last. */
static int layer_split(const struct replica *r, int *first, int *last)
{
	int n = r->n_stages;
	*first = *last = 0;
	if (n == 1)
		return 1;
	int mid = n > 2 ? stage_layers_of(r, 1) : 0;
	for (int i = 1; i < n - 1; i++)
		if (stage_layers_of(r, i) != mid)
			return 0;
	if (n == 2) {
		if (stage_layers_of(r, 0) != stage_layers_of(r, 1)) {
			*first = stage_layers_of(r, 0);
			*last = stage_layers_of(r, 1);
		}
		return 1;
	}
	if (stage_layers_of(r, 0) != mid)
		*first = stage_layers_of(r, 0);
	if (stage_layers_of(r, n - 1) != mid)
		*last = stage_layers_of(r, n - 1);
	return 1;
}

/* Interleaving with one layer less on the first and/or last stage, which
 * Megatron-Core expresses as the embedding and the loss each taking a
 * layer's slot (--account-for-embedding/loss-in-pipeline-split). */
static int vp_slots(const struct replica *r, int vp, int *emb, int *loss)
{
	int f, l, n = r->n_stages;
	*emb = *loss = 0;
	if (vp <= 1 || n < 3 || !layer_split(r, &f, &l) || !(f || l))
		return 0;
	int mid = stage_layers_of(r, 1);
	*emb = f == mid - 1;
	*loss = l == mid - 1;
	return (*emb || !f) && (*loss || !l) && mid % vp == 0;
}

/* A name from a file as one shell word (escape.h), so a comment holding it
 * stays one line. Names are at most 63 bytes, 4 bytes each at worst. */
#define SHQ_MAX 300
static const char *shq(char *buf, const char *s)
{
	struct sbuf b;
	sbuf_init(&b);
	esc_shell(&b, s);
	hp_strlcpy(buf, b.s ? b.s : "", SHQ_MAX);
	sbuf_done(&b);
	return buf;
}

/* shq, cut to at most 80 bytes on a whole UTF-8 character, for a "%.80s"
 * (which cut a name of quotes and euro signs inside a character: a
 * script comment that was no UTF-8). */
static const char *shq80(char *buf, const char *s)
{
	shq(buf, s);
	buf[utf8_cut(buf, 80)] = '\0';
	return buf;
}

/* What stock frameworks cannot express about p, one line each into notes.
 * Returns how many. */
static int limits(const struct cluster *c, const struct plan *p, struct sbuf *notes)
{
	int n = 0;
	struct sbuf gpus;   /* "H100-SXM (pool a), ..." */
	sbuf_init(&gpus);
	int used[HP_MAX_POOLS], first = -1;
	plan_gpus(p, used);
	for (int i = 0; i < c->n_pools; i++) {
		if (!used[i])
			continue;
		if (first < 0)
			first = i;
		char q1[SHQ_MAX], q2[SHQ_MAX];
		sbuf_addf(&gpus, "%s%s (pool %s)", gpus.len ? ", " : "",
			  shq(q1, c->pools[i].gpu.name), shq(q2, c->pools[i].name));
		if (strcmp(c->pools[i].gpu.name, c->pools[first].gpu.name))
			n = -1;
	}
	if (n < 0) {
		/* not "only by pipeline stage": replicas of one layout on two
		 * GPU types run as one job too (hetjob_of) */
		sbuf_addf(notes, "GPU types: the plan runs on %s; Megatron-LM, torchrun and "
			  "DeepSpeed size every replica alike (one layout, one batch share); "
			  "within that, GPU types may differ by stage or by replica, which "
			  "Megatron-Core runs as one job with its ranks placed by pool.\n", gpus.s);
		n = 1;
	}
	sbuf_done(&gpus);
	for (int g = 0; g < p->n_replicas; g++)
		for (int s = 1; s < p->replicas[g].n_stages; s++)
			if (p->replicas[g].stages[s].pool != p->replicas[g].stages[0].pool) {
				sbuf_addf(notes, "Pipelines across pools: replica group %d places its stages "
					  "on more than one pool; its ranks must start on those pools "
					  "stage by stage (Megatron puts stage s on a block of "
					  "consecutive ranks, rank order tp-cp-ep-dp-pp), with fixed "
					  "torchrun node ranks, not c10d rendezvous order: --format slurm "
					  "writes such a pipeline as a Slurm heterogeneous job.\n", g);
				n++;
				g = p->n_replicas;
				break;
			}
	for (int g = 1; g < p->n_replicas; g++)
		if (!runs_on_same_layout(&p->replicas[g], &p->replicas[0])) {
			sbuf_addf(notes, "Layouts: replica group %d has a different pipeline layout "
				  "(stages, TP or layer ranges) from group 0; stock data parallelism "
				  "needs every replica identical. Needed: data parallelism over "
				  "replicas of different layouts (a gradient reduce that maps each "
				  "layer's shards across them), which no stock framework has.\n", g);
			n++;
			break;
		}
	for (int g = 1; g < p->n_replicas; g++)
		if (fabs(p->replicas[g].batch_share - p->replicas[0].batch_share) > 1e-9) {
			sbuf_addf(notes, "Batch shares: replicas take %.4g%% and %.4g%% of the global "
				  "batch; stock data parallelism splits it evenly. Needed: a "
				  "micro-batch count per replica (Megatron, DeepSpeed and torchtitan "
				  "derive one count, global batch / (micro-batch x DP)).\n",
				  100 * p->replicas[0].batch_share, 100 * p->replicas[g].batch_share);
			n++;
			break;
		}
	/* Interleaving with any layer split is Megatron-Core's layout flag
	 * (megatron_parallel_args), torchtitan's model parts and, where the
	 * framework cannot, that framework's denial: not a limit of the plan. */
	return n;
}

static void fill_piece(struct piece *pc, const struct plan *p, int g, int dp, int gbs)
{
	const struct replica *r = &p->replicas[g];
	pc->group = g;
	pc->r = r;
	pc->pool = r->stages[0].pool;
	pc->tp = r->stages[0].tp;
	pc->pp = r->n_stages;
	pc->dp = dp;
	pc->gbs = gbs;
	pc->even = layer_split(r, &pc->first_layers, &pc->last_layers);
}

/* The pieces of p: one for a homogeneous plan, else one per group. */
static int make_pieces_of(const struct plan *p, int hetero, struct piece *out, int max)
{
	if (!hetero) {
		fill_piece(&out[0], p, 0, plan_dp(p), p->gbs);
		out[0].group = -1;
		return 1;
	}
	int n = 0;
	for (int g = 0; g < p->n_replicas && n < max; g++) {
		/* whole micro-batches, so the pieces' batches add up to gbs */
		int seqs = plan_replica_microbatches(p, g) * p->mbs * p->replicas[g].count;
		fill_piece(&out[n++], p, g, p->replicas[g].count, seqs > 0 ? seqs : 1);
	}
	return n;
}

/* make_pieces_of, each piece told whether its GPU runs flash-attn 2 */
static int make_pieces(const struct cluster *c, const struct plan *p, int hetero,
		       struct piece *out, int max)
{
	int n = make_pieces_of(p, hetero, out, max);
	for (int i = 0; i < n; i++)
		out[i].flash = p->flash && hp_gen_sm80(c->pools[out[i].pool].gpu.gen);
	return n;
}

static const char *mname(char *buf, const struct model_spec *m)
{
	return shq(buf, *m->display ? m->display : m->name);
}

/* What a model family's published config sets that model_spec does not
 * carry: RoPE base and scaling, the norm epsilon, MoE router details.
 * Sources: the Hugging Face config.json of each family's release
 * (rope_theta, rope_scaling, rms_norm_eps, router_aux_loss_coef; for
 * DeepSeek-V3 also scoring_func "sigmoid", routed_scaling_factor 2.5,
 * n_group 8, topk_group 4 and its auxiliary-loss-free expert bias). */
struct family {
	const char *prefix;        /* model name prefix */
	int rope_base;             /* 0: Megatron's default (10000) */
	int llama3_scaling;        /* rope_scaling type "llama3", factor 8 */
	double norm_eps;
	double aux_loss;           /* MoE load-balancing loss coefficient, 0: none */
	int sigmoid_router;        /* DeepSeek-V3 router: sigmoid, expert bias, groups */
};

static const struct family families[] = {
	{ "llama3.1", 500000, 1, 1e-5, 0, 0 },
	{ "llama3", 500000, 0, 1e-5, 0, 0 },
	{ "llama2", 10000, 0, 1e-5, 0, 0 },
	{ "mixtral", 1000000, 0, 1e-5, 0.02, 0 },
	{ "deepseek-v3", 10000, 0, 1e-6, 0, 1 },
	{ "qwen2.5", 1000000, 0, 1e-6, 0, 0 },
	{ "nemotron4", 10000, 0, 1e-5, 0, 0 },
};

static const struct family *model_family(const struct model_spec *m)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(families); i++)
		if (!strncmp(m->name, families[i].prefix, strlen(families[i].prefix)))
			return &families[i];
	return NULL;
}

/* Sequences to train: tokens / sequence length, rounded up. */
static long long train_samples(const struct model_spec *m, const struct plan *p, double tokens)
{
	int seq = p->seq_len ? p->seq_len : m->seq_len;
	return (long long)ceil(model_train_tokens(m, tokens) / seq);
}

/* Optimizer steps of the plan: its samples over its global batch, rounded
 * up. Every piece of a heterogeneous plan runs them all, each on its own
 * share of the batch (the pieces' batches add up to the plan's: make_pieces). */
static long long plan_steps(const struct model_spec *m, const struct plan *p, double tokens)
{
	long long samples = train_samples(m, p, tokens), gbs = HP_MAX(p->gbs, 1);
	return (samples + gbs - 1) / gbs;
}

/* Megatron's --train-samples for a piece: the plan's steps x its global
 * batch for the whole plan; a replica group's piece its steps x its share
 * of the batch, so that the pieces together train the plan's samples once
 * (and stop at the same step), not each of them all of it. Whole steps:
 * Megatron runs train_samples // global_batch_size iterations
 * (training.py, update_train_iters), so the samples rounded up to a step
 * run the planner's step count (search_train_steps), where the bare
 * sample count ran one step fewer whenever it was not a multiple. */
static long long piece_samples(const struct model_spec *m, const struct plan *p,
			       const struct piece *pc, double tokens)
{
	return plan_steps(m, p, tokens) * (pc->group < 0 ? HP_MAX(p->gbs, 1) : pc->gbs);
}

/* One "--flag value" item of a Megatron-LM argument list: pre before it,
 * sep after it ("\n" for an array in a script, " \\\n" for a command). */
#define ARG(...) do { sbuf_add(b, pre); sbuf_addf(b, __VA_ARGS__); sbuf_add(b, sep); } while (0)

/* The model's architecture. */
static void megatron_arch_args(struct sbuf *b, const struct model_spec *m, int seq,
			       const struct family *fam, const char *pre, const char *sep)
{
	ARG("--num-layers %d", m->layers);
	ARG("--hidden-size %d", m->hidden);
	ARG("--ffn-hidden-size %d", m->ffn);
	ARG("--num-attention-heads %d", m->heads);
	if (m->kv_heads && m->kv_heads < m->heads) {
		ARG("--group-query-attention");
		ARG("--num-query-groups %d", m->kv_heads);
	}
	if (m->head_dim && (long long)m->head_dim * m->heads != m->hidden)
		ARG("--kv-channels %d", m->head_dim);
	ARG("--seq-length %d", seq);
	ARG("--max-position-embeddings %d", HP_MAX(seq, m->seq_len));
	if (m->position == POS_ROPE) {
		ARG("--position-embedding-type rope");
		if (fam && fam->rope_base)
			ARG("--rotary-base %d", fam->rope_base);
		if (fam && fam->llama3_scaling) {
			ARG("--use-rope-scaling");
			ARG("--rope-scaling-factor 8");
		}
	}
	if (m->norm == NORM_RMS)
		ARG("--normalization RMSNorm");
	if (fam)
		ARG("--norm-epsilon %g", fam->norm_eps);
	if (m->gated_mlp)
		ARG("--swiglu");
	if (!m->tied_embeddings)
		ARG("--untie-embeddings-and-output-weights");
	if (!m->bias)
		ARG("--disable-bias-linear");
	if (m->qkv_bias)
		ARG("--add-qkv-bias");
	if (!m->dropout) {
		/* Megatron's default dropout is 0.1; current LLMs train without */
		ARG("--attention-dropout 0");
		ARG("--hidden-dropout 0");
	}
}

/* Mixture of experts and multi-latent attention. */
static void megatron_moe_args(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			      const struct plan *p, const struct family *fam, const char *pre,
			      const char *sep)
{
	if (m->moe.experts) {
		ARG("--num-experts %d", m->moe.experts);
		ARG("--moe-router-topk %d", m->moe.top_k);
		ARG("--moe-ffn-hidden-size %d", m->moe.expert_ffn);
		/* grouped GEMMs as costed (plan_moe_grouped_gemm); without the
		 * flag Megatron-Core runs SequentialMLP (store_true,
		 * arguments.py @f1f03922 L1896) */
		if (plan_moe_grouped_gemm(p))
			ARG("--moe-grouped-gemm");
		/* the dispatcher hetplan costed (plan_moe_dispatch: the plan's
		 * moe_dispatch key, or the framework row's ep_dispatch_dedup,
		 * alltoall where a piece of the plan cannot run flex or runs its
		 * experts on one rank; one for every piece, as one job takes
		 * one), written as decided there and nowhere else, so the line
		 * and the estimate agree at EP 1 too (flex at expert TP 2, EP 1
		 * sends over the expert TP group): flex is HybridEP through
		 * the flex dispatcher (DeepEP's hierarchical dispatch;
		 * Megatron-Core's README: H100, B200, GB200, and the only
		 * backend for a multi-node NVLink domain), alltoall NCCL's
		 * all-to-all, allgather the allgather dispatcher (written out:
		 * it is Megatron's default, but the launch line says what the
		 * estimate assumed) */
		enum hp_moe_dispatch d = plan_moe_dispatch(p, c);
		if (d == MOE_DISPATCH_ALLGATHER) {
			ARG("--moe-token-dispatcher-type allgather");
		} else if (d == MOE_DISPATCH_FLEX) {
			ARG("--moe-token-dispatcher-type flex");
			ARG("--moe-flex-dispatcher-backend hybridep");
		} else {
			ARG("--moe-token-dispatcher-type alltoall");
		}
		if (m->moe.shared_experts)
			ARG("--moe-shared-expert-intermediate-size %d",
			    m->moe.shared_experts * m->moe.expert_ffn);
		if (m->moe.dense_layers)
			ARG("--moe-layer-freq '([0]*%d+[1]*%d)'", m->moe.dense_layers,
			    m->layers - m->moe.dense_layers);
		if (fam && fam->sigmoid_router) {
			ARG("--moe-router-score-function sigmoid");
			ARG("--moe-router-enable-expert-bias");
			ARG("--moe-router-topk-scaling-factor 2.5");
			ARG("--moe-router-num-groups 8");
			ARG("--moe-router-group-topk 4");
			ARG("--moe-router-load-balancing-type seq_aux_loss");
			ARG("--moe-aux-loss-coeff 0.0001");
		} else {
			ARG("--moe-router-load-balancing-type aux_loss");
			ARG("--moe-aux-loss-coeff %g", fam && fam->aux_loss ? fam->aux_loss : 0.01);
		}
	}
	if (m->mla.kv_lora_rank) {
		ARG("--multi-latent-attention");
		if (m->mla.q_lora_rank)
			ARG("--q-lora-rank %d", m->mla.q_lora_rank);
		ARG("--kv-lora-rank %d", m->mla.kv_lora_rank);
		ARG("--qk-head-dim %d", m->mla.qk_nope_dim);
		ARG("--qk-pos-emb-head-dim %d", m->mla.qk_rope_dim);
		ARG("--v-head-dim %d", m->mla.v_dim);
	}
}

/* Whether Megatron-Core's first/last-stage flags run r's split with vp
 * virtual stages a rank: transformer_config.py @d98e8a64 (the "Uneven
 * PP" branch) asks that VP divide the first stage's layers, the last's
 * and those of every middle rank, and arguments.py (L954-957) takes the
 * virtual degree as --num-virtual-stages-per-pipeline-rank there. */
static int vp_first_last_ok(const struct replica *r, int vp, int first, int last)
{
	int n = r->n_stages, middle = n - (first > 0) - (last > 0);
	if ((first && first % vp) || (last && last % vp))
		return 0;
	return middle <= 0 || stage_layers_of(r, 1) % vp == 0;
}

/* The piece's split as --pipeline-model-parallel-layout (arguments.py:
 * stages split by "|", E the embedding, t a decoder layer, L the loss)
 * with vp virtual stages a rank (1: none). The layout lists pp x vp
 * virtual stages in model order, virtual stage k on rank k mod pp
 * (pipeline_parallel_layer_layout.py @d98e8a64: layout[vpp_rank x PP +
 * pp_rank]); rank s's layers are split into vp chunks, the first ones a
 * layer larger when they do not divide, as torchtitan's model parts. */
static void megatron_layout_arg(struct sbuf *b, const struct replica *r, int vp,
				const char *pre, const char *sep)
{
	int pp = r->n_stages;
	sbuf_add(b, pre);
	sbuf_add(b, "--pipeline-model-parallel-layout \"E");
	for (int part = 0; part < pp * vp; part++) {
		int s = part % pp, j = part / pp, n = stage_layers_of(r, s);
		if (part)
			sbuf_addc(b, '|');
		for (int k = n / vp + (j < n % vp); k > 0; k--)
			sbuf_addc(b, 't');
	}
	sbuf_add(b, "L\"");
	sbuf_add(b, sep);
}

/* Parallel degrees and the pipeline's layout. */
static void megatron_parallel_args(struct sbuf *b, const struct model_spec *m,
				   const struct plan *p, const struct piece *pc,
				   const char *pre, const char *sep)
{
	ARG("--tensor-model-parallel-size %d", pc->tp);
	ARG("--pipeline-model-parallel-size %d", pc->pp);
	int vp = p->schedule == SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 0;
	int uneven = pc->first_layers || pc->last_layers, emb, loss;
	int slots = vp_slots(pc->r, vp, &emb, &loss);
	/* Megatron-LM (2021-22, FW_MEGATRON_LM) predates the layout flag:
	 * such a plan gets the split its stages give, and an uneven one the
	 * "does not run as planned" note (framework_denial) */
	int lm = p->framework == FW_MEGATRON_LM && p->pp_layout[0];
	/* The flags that say the split with virtual stages, else the layout:
	 * --num-layers-per-virtual-pipeline-stage needs the layers (plus
	 * the --account-for-* slots) to divide by PP and each stage's by
	 * the chunk (arguments.py L958-976), the first/last flags
	 * vp_first_last_ok; any other split with VP went out as a layout
	 * of PP stages only, so Megatron ran it without interleaving, or
	 * stopped on an assertion. */
	int even_vp = vp && !uneven && pc->even && (m->layers / pc->pp) % vp == 0 &&
		      m->layers % pc->pp == 0;
	int fl_vp = vp && uneven && pc->even &&
		    vp_first_last_ok(pc->r, vp, pc->first_layers, pc->last_layers);
	if (p->pp_layout[0] && !lm) {
		/* the plan's own layout (plan_validate checked it against PP,
		 * VP and the model): arguments.py @d98e8a64 L941-950 takes VP
		 * from it (the layout's stages / PP) and refuses it beside
		 * --num-layers-per-virtual-pipeline-stage and
		 * --num-virtual-stages-per-pipeline-rank (L927-939); its
		 * symbols (E, t, L, |, (, ), *, digits and commas) need no
		 * escape inside double quotes */
		ARG("--pipeline-model-parallel-layout \"%s\"", p->pp_layout);
	} else if (slots) {
		/* transformer_config.py refuses a first or last stage whose
		 * layers VP does not divide; arguments.py adds a layer per
		 * --account-for-* flag before it splits */
		if (emb)
			ARG("--account-for-embedding-in-pipeline-split");
		if (loss)
			ARG("--account-for-loss-in-pipeline-split");
		ARG("--num-layers-per-virtual-pipeline-stage %d", stage_layers_of(pc->r, 1) / vp);
	} else if (vp && !even_vp && !fl_vp && !lm) {
		megatron_layout_arg(b, pc->r, vp, pre, sep);
	} else if (!pc->even && !lm) {
		megatron_layout_arg(b, pc->r, 1, pre, sep);
	} else {
		if (pc->first_layers)
			ARG("--decoder-first-pipeline-num-layers %d", pc->first_layers);
		if (pc->last_layers)
			ARG("--decoder-last-pipeline-num-layers %d", pc->last_layers);
		/* arguments.py: with an uneven first/last stage the virtual
		 * degree is given as stages per rank, else as layers per stage */
		if (vp && uneven)
			ARG("--num-virtual-stages-per-pipeline-rank %d", vp);
		else if (vp)
			ARG("--num-layers-per-virtual-pipeline-stage %d", m->layers / (pc->pp * vp));
	}
	if (p->cp > 1)
		ARG("--context-parallel-size %d", p->cp);
	if (p->ep > 1)
		ARG("--expert-model-parallel-size %d", p->ep);
	/* MoE parallel folding: absent, Megatron-Core sets the experts' TP
	 * to the model's (arguments.py @d98e8a64 L587-588) */
	if (m->moe.experts && plan_ep_folded(p, pc->tp))
		ARG("--expert-tensor-parallel-size %d", plan_etp(p, pc->tp));
	/* Megatron's MoE layer refuses TP > 1 without it in training
	 * (framework_denial says so for a plan that has it off) */
	if ((p->sp || m->moe.experts) && pc->tp > 1)
		ARG("--sequence-parallel");
}

/* Whether the piece runs the expert all-to-all overlap hetplan costed
 * (plan_ep_overlap_on, as perf_comm.c asks it). */
static int launch_ep_overlap(const struct model_spec *m, const struct plan *p,
			     const struct piece *pc)
{
	return m->moe.experts && plan_ep_overlap_on(p, pc->pp);
}

/* Batch, recompute, optimizer sharding, precision and overlaps. */
static void megatron_train_args(struct sbuf *b, const struct model_spec *m,
				const struct plan *p, const struct piece *pc, double tokens,
				const char *pre, const char *sep)
{
	ARG("--micro-batch-size %d", p->mbs);
	ARG("--global-batch-size %d", pc->gbs);
	ARG("--train-samples %lld", piece_samples(m, p, pc, tokens));
	if (p->recompute == RC_SELECTIVE) {
		ARG("--recompute-granularity selective");
		/* the modules, space-separated: the flag is generated from
		 * TransformerConfig.recompute_modules, an Optional[List[str]],
		 * which megatron/training/argument_utils.py @d98e8a64
		 * L143-147 gives nargs "+"; absent, Megatron recomputes
		 * core_attn alone (transformer_config.py L1940-1941) */
		if (p->recompute_modules) {
			char mods[96];
			plan_recompute_modules_text(p->recompute_modules, mods, sizeof mods);
			for (char *c = mods; *c; c++)
				if (*c == ',')
					*c = ' ';
			ARG("--recompute-modules %s", mods);
		}
	} else if (p->recompute == RC_FULL && p->recompute_layers > 0) {
		/* the first N layers of every model chunk (megatron/core/
		 * recompute.py @d98e8a64, the 'block' branch) */
		ARG("--recompute-granularity full");
		ARG("--recompute-method block");
		ARG("--recompute-num-layers %d", p->recompute_layers);
	} else if (p->recompute == RC_FULL) {
		ARG("--recompute-granularity full");
		ARG("--recompute-method uniform");
		ARG("--recompute-num-layers 1");
	}
	/* activation offload (plan keys offload activations, offload_layers):
	 * the flag alone turns cpu_offloading on (arguments.py @d98e8a64
	 * L1950-1951); the activations switch defaults on and has no flag */
	if (p->offload == OFFLOAD_ACTIVATIONS)
		ARG("--cpu-offloading-num-layers %d", p->offload_layers);
	if (p->zero >= 2) {
		/* Megatron-FSDP: ZeRO-2 shards optimizer and gradients, ZeRO-3
		 * parameters too (--data-parallel-sharding-strategy choices) */
		ARG("--use-megatron-fsdp");
		ARG("--data-parallel-sharding-strategy %s",
		    p->zero == 2 ? "optim_grads" : "optim_grads_params");
		/* arguments.py @d98e8a64 L1169-1170 asserts this checkpoint
		 * format under Megatron-FSDP (L1675-1676: and only there) */
		ARG("--ckpt-format fsdp_dtensor");
	}
	/* Megatron-FSDP v1, the default (--megatron-fsdp-version 1,
	 * arguments.py @d98e8a64 L3158), needs the distributed optimizer and
	 * turns it on itself (L1124-1135; version 2 would refuse it) */
	if (p->zero >= 1)
		ARG("--use-distributed-optimizer");
	/* fp32 and tf32 runs take neither flag: Megatron trains in fp32
	 * then (TF32 is PyTorch's math mode, launch notes) */
	if (p->precision == HP_FP16)
		ARG("--fp16");
	else if (p->precision == HP_BF16 || p->precision == HP_FP8)
		ARG("--bf16");
	if (plan_grad_fp32(p))
		ARG("--accumulate-allreduce-grads-in-fp32");
	/* the separate main_grad add hetplan costed (plan key
	 * grad_accum_fusion off; arguments.py @d98e8a64 L2944-2948) */
	if (!plan_grad_accum_fusion(p))
		ARG("--no-gradient-accumulation-fusion");
	if (p->precision == HP_FP8) {
		ARG("--fp8-format hybrid");
		ARG("--transformer-impl transformer_engine");
	}
	/* the FP8 weights hetplan's memory and all-gather assumed (plan.h) */
	if (plan_fp8_params(p))
		ARG("--fp8-param-gather");
	if (pc->flash)
		ARG("--use-flash-attn");
	/* overlaps from the plan (framework defaults unless set); arguments.py
	 * accepts --overlap-param-gather only with --overlap-grad-reduce and
	 * a distributed optimizer */
	if (plan_tp_overlap(p) && pc->tp > 1 && p->sp)
		ARG("--tp-comm-overlap");
	if (plan_grad_overlap(p))
		ARG("--overlap-grad-reduce");
	if (plan_param_overlap(p) && plan_grad_overlap(p) && p->zero >= 1)
		ARG("--overlap-param-gather");
	/* the expert all-to-all overlap hetplan costed (framework.c); Megatron
	 * Core's README names the two flags together, and transformer_config.py
	 * accepts --delay-wgrad-compute only beside the overlap */
	if (launch_ep_overlap(m, p, pc)) {
		ARG("--overlap-moe-expert-parallel-comm");
		ARG("--delay-wgrad-compute");
	}
}
#undef ARG

/* Megatron-LM arguments of one piece as "--flag value" items; sep goes
 * between items ("\n" for an array in a script, " \\\n" for a command).
 * Every flag name is one of megatron/training/arguments.py's at the commit
 * in tests/data/megatron_args.txt (tests/test_launch_args.sh checks). */
static void megatron_args(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			  const struct plan *p, const struct piece *pc, double tokens, const char *pre,
			  const char *sep)
{
	int seq = p->seq_len ? p->seq_len : m->seq_len;
	const struct family *fam = model_family(m);
	megatron_arch_args(b, m, seq, fam, pre, sep);
	megatron_moe_args(b, c, m, p, fam, pre, sep);
	megatron_parallel_args(b, m, p, pc, pre, sep);
	megatron_train_args(b, m, p, pc, tokens, pre, sep);
}

/* How a piece's `world` ranks sit on a pool's nodes of gpus_per_node
 * GPUs: on the fewest nodes that hold them, ceil(world / gpus_per_node),
 * as the plan counted them. gpn ranks on every node but the last, last
 * on that one (last == gpn: the same everywhere). Every node's count is
 * a multiple of TP, or TP a multiple of it, so that Megatron's TP groups
 * (consecutive ranks, TP fastest: parallel_state.py's default order
 * "tp-cp-ep-dp-pp") never straddle nodes more than TP itself asks.
 * Unequal counts are torchrun's to start: its agents' global ranks are
 * the running sum of their local world sizes (torch/distributed/elastic/
 * agent/server/api.py, SimpleElasticAgent._assign_worker_ranks), so the
 * per-node counts may differ. */
struct node_layout {
	int nodes, gpn, last;
};

/* 0 when no such layout exists: the pool's nodes hold neither an equal
 * share nor whole TP groups (gpus_per_node not a multiple of TP). */
static int launch_nodes(int gpus_per_node, int world, int tp, struct node_layout *nl)
{
	int n = (world + gpus_per_node - 1) / HP_MAX(gpus_per_node, 1);
	n = HP_MAX(n, 1);
	nl->nodes = n;
	if (world % n == 0) {
		int g = world / n;
		if (g % tp == 0 || tp % g == 0) {
			nl->gpn = nl->last = g;
			return 1;
		}
	}
	/* full nodes and a last one with the rest: world is a multiple of
	 * TP (TP x PP x CP x DP), so the rest is too when a node is */
	if (gpus_per_node % tp)
		return 0;
	nl->gpn = gpus_per_node;
	nl->last = world - (n - 1) * gpus_per_node;
	return 1;
}

/* The layout of a piece (launch_render checked that one exists). */
static struct node_layout piece_nodes(const struct cluster *c, const struct plan *p,
				      const struct piece *pc)
{
	struct node_layout nl = { 1, 1, 1 };
	int world = pc->tp * pc->pp * p->cp * pc->dp;
	if (!launch_nodes(c->pools[pc->pool].gpus_per_node, world, pc->tp, &nl))
		nl.nodes = nl.gpn = nl.last = 0;
	return nl;
}

/* Comment lines that say what a piece is. */
static void piece_header(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			 const struct plan *p, const struct piece *pc)
{
	const struct pool *pl = &c->pools[pc->pool];
	int world = pc->tp * pc->pp * p->cp * pc->dp;
	if (pc->group >= 0)
		sbuf_addf(b, "# Piece: replica group %d alone, %d replica%s on pool ", pc->group,
			  pc->dp, pc->dp == 1 ? "" : "s");
	else
		sbuf_add(b, "# Pool ");
	char q1[SHQ_MAX], q2[SHQ_MAX];
	sbuf_addf(b, "%s (%s, %d GPUs per node)\n", shq(q1, pl->name), shq(q2, pl->gpu.name),
		  pl->gpus_per_node);
	/* A pipeline over pools: the pool of each run of consecutive stages
	 * (the line above names the first stage's pool only). */
	const struct replica *r = pc->r;
	int mixed = 0;
	for (int s = 1; r && s < r->n_stages; s++)
		mixed |= r->stages[s].pool != r->stages[0].pool;
	if (mixed)
		sbuf_add(b, "# Stages by pool:");
	for (int s = 0; mixed && s < r->n_stages;) {
		int e = s;
		while (e + 1 < r->n_stages && r->stages[e + 1].pool == r->stages[s].pool)
			e++;
		const struct pool *ps = &c->pools[r->stages[s].pool];
		sbuf_addf(b, "%s ", s ? "," : "");
		sbuf_addf(b, e > s ? "%d-%d" : "%d", s, e);
		sbuf_addf(b, " on %s (%s)", shq(q1, ps->name), shq(q2, ps->gpu.name));
		s = e + 1;
	}
	if (mixed)
		sbuf_add(b, "\n");
	sbuf_addf(b, "# TP %d x PP %d", pc->tp, pc->pp);
	if (p->cp > 1)
		sbuf_addf(b, " x CP %d", p->cp);
	struct node_layout nl = piece_nodes(c, p, pc);
	if (nl.last == nl.gpn)
		sbuf_addf(b, " x DP %d = %d GPUs on %d node%s x %d\n", pc->dp, world, nl.nodes,
			  nl.nodes > 1 ? "s" : "", nl.gpn);
	else
		sbuf_addf(b, " x DP %d = %d GPUs on %d nodes: %d x %d and 1 x %d\n", pc->dp, world,
			  nl.nodes, nl.nodes - 1, nl.gpn, nl.last);
	int mb = pc->gbs / HP_MAX(p->mbs * pc->dp, 1);
	sbuf_addf(b, "# %d sequences of %d tokens per step = micro-batch %d x %d micro-batches x "
		  "DP %d\n", pc->gbs, p->seq_len ? p->seq_len : m->seq_len, p->mbs, mb, pc->dp);
	if (m->position == POS_ALIBI)
		sbuf_add(b, "# ALiBi positions: Megatron-LM has no flag for them.\n");
	sbuf_addf(b, "# Vocabulary %d comes from the tokenizer arguments.\n", m->vocab);
}

/* text as comment lines of at most 78 columns: first line after first,
 * the rest after cont. */
static void comment_wrapped(struct sbuf *b, const char *first, const char *cont,
			    const char *text, size_t n)
{
	const char *pre = first;
	while (n) {
		size_t room = 78 - strlen(pre), take = n;
		if (n > room) {
			take = room;
			while (take > 0 && text[take] != ' ')
				take--;
			/* a word longer than the line is cut on a whole UTF-8
			 * character (a pool name of quotes and euro signs was
			 * cut inside one: a TOML file that was no UTF-8) */
			if (!take)
				take = utf8_cut(text, room);
			if (!take)
				take = room;
		}
		sbuf_add(b, pre);
		sbuf_addn(b, text, take);
		sbuf_addc(b, '\n');
		while (take < n && text[take] == ' ')
			take++;
		text += take;
		n -= take;
		pre = cont;
	}
}

/* The script line that sets MASTER_ADDR to the first node of the Slurm
 * node list in environment variable list, one shell line. The scripts run
 * under `set -euo pipefail`, so the reader of scontrol's names must read
 * them all: `head -n 1` exits after the first line, scontrol's later
 * writes then die of SIGPIPE (once its output outgrows the pipe's and
 * stdio's buffers: a few hundred node names), pipefail fails the
 * assignment and set -e ends the job before srun
 * (tests/test_launch_master_addr.sh). `sed -n 1p` prints the first line
 * and reads to the end. */
#define MASTER_ADDR_LINE(list) \
	"MASTER_ADDR=$(scontrol show hostnames \"$" list "\" | sed -n 1p)\n"

static void header(struct sbuf *b, const char *what, const struct cluster *c,
		   const struct model_spec *m, const struct plan *p, const char *version,
		   const char *notes, int hetero)
{
	char q[SHQ_MAX];
	sbuf_addf(b, "# %s for %s, generated by hetplan %s.\n", what, mname(q, m),
		  version ? version : "");
	sbuf_add(b, "# Add data, tokenizer, checkpoint and logging arguments.\n");
	/* the whole plan's numbers, pieces or not */
	launch_estimate_lines(b, c, m, p, "# ", 0);
	if (hetero) {
		sbuf_add(b, "#\n# This plan cannot run as one job on stock Megatron-LM, torchrun or "
			    "DeepSpeed:\n");
		for (const char *s = notes; *s;) {
			const char *e = strchr(s, '\n');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			comment_wrapped(b, "#   - ", "#     ", s, n);
			s += n + (e != NULL);
		}
		sbuf_add(b, "# Below, one piece per replica group: each runs that group alone "
			    "(to measure it,\n# or as a start for a framework that supports "
			    "heterogeneous pipelines).\n");
	}
}

static void job_name(char *buf, size_t n, const struct model_spec *m)
{
	snprintf(buf, n, "hetplan-%.40s", m->name);
	for (char *s = buf; *s; s++)
		if (!(((*s | 32) >= 'a' && (*s | 32) <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.'))
			*s = '_';
}

/* CUDA_DEVICE_MAX_CONNECTIONS for a piece: 1 (Megatron's arguments.py
 * asserts it on Hopper and earlier for TP or CP without the EP overlap),
 * 32 under the expert all-to-all overlap, which needs more than one
 * (megatron/core/transformer/moe/README.md @d98e8a64, "Requirements for EP
 * A2A Overlap"; Megatron-Bridge's DeepSeek-V3 and Qwen3 recipes set 32;
 * arguments.py only warns when TP or CP run beside it). */
static int launch_max_connections(const struct model_spec *m, const struct plan *p,
				  const struct piece *pc)
{
	/* Megatron-FSDP (ZeRO-2/3, megatron_train_args) asserts "FSDP
	 * requires CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset" (arguments.py
	 * @d98e8a64 L1166-1167) and only warns beside TP or CP (L1456-1465):
	 * 32, as for the expert overlap */
	if (p->zero >= 2)
		return 32;
	return launch_ep_overlap(m, p, pc) ? 32 : 1;
}

/* The Megatron-LM commit whose arguments.py the flags are checked against
 * (the header of tests/data/megatron_args.txt; test_launch_audit.sh
 * checks the two agree), named in the Slurm script as its environment. */
#define LAUNCH_MEGATRON_COMMIT "d98e8a64ddf3"

/* One "export NAME=${NAME:-value}" line, the value as one shell word. */
static void env_default(struct sbuf *b, const char *name, const char *value)
{
	sbuf_addf(b, "export %s=${%s:-", name, name);
	esc_shell(b, value);
	sbuf_add(b, "}\n");
}

/* A network plugin's directory: VAR (default dir, overridable), its
 * libraries (VAR + lib) first on LD_LIBRARY_PATH, and, when profile is not
 * NULL, the plugin's own environment script (VAR/profile) sourced with
 * nounset off, as its vendor's scripts expect. var, lib and profile are
 * constant shell words. */
static void plugin_dir(struct sbuf *b, const char *var, const char *dir, const char *lib,
		       const char *profile)
{
	env_default(b, var, dir);
	sbuf_addf(b, "export LD_LIBRARY_PATH=\"$%s%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"\n", var,
		  lib);
	if (profile)
		sbuf_addf(b, "set +u; source \"$%s/%s\"; set -u\n", var, profile);
}

/* What NCCL needs on the pool's transport, as script lines (the user may
 * override each variable from the environment):
 *  - ib: nothing; NCCL's own IB/RoCE transport finds the HCAs;
 *  - efa: the aws-ofi-nccl plugin in the environment; with aws-ofi-nccl
 *    >= 1.7 and libfabric >= 1.18 no variable is needed, FI_PROVIDER=efa
 *    (needed up to aws-ofi-nccl 1.5) does no harm and keeps libfabric on
 *    EFA (aws/aws-ofi-nccl doc/efa-env-var.md @518f4c6a);
 *  - tcp: nothing; NCCL's socket transport, NCCL_SOCKET_IFNAME to pick
 *    the NIC;
 *  - tcpx: the GPUDirect-TCPX plugin's variables for a3-highgpu-8g
 *    (dstackai/dstack examples/clusters/a3high/README.md @6f6b421b);
 *  - tcpxo: the TCPXO plugin's own profile, nccl-env-profile.sh, which
 *    finds the NICs (dstackai/dstack examples/clusters/a3mega/README.md
 *    @30a0dd56);
 *  - gcp-rdma: the gIB plugin's set_nccl_env.sh under /usr/local/gib
 *    (Google's A3 Ultra / A4 images).
 * Sourced profiles run under set +u: they read variables that may be
 * unset. */
static void nccl_env_lines(struct sbuf *b, const struct cluster *c, const struct piece *pc)
{
	const struct pool *pl = &c->pools[pc->pool];
	int mixed = 0;
	for (int s = 0; pc->r && s < pc->r->n_stages; s++)
		mixed |= c->pools[pc->r->stages[s].pool].transport != pl->transport;
	char q[SHQ_MAX];
	sbuf_addf(b, "# NCCL on pool %s: transport %s", shq(q, pl->name),
		  comm_transport_name(pl->transport));
	if (mixed)
		sbuf_add(b, " (other stages' pools use another transport: set theirs by hand)");
	sbuf_add(b, "\n");
	switch (pl->transport) {
	case COMM_TRANSPORT_IB:
		sbuf_add(b, "# InfiniBand/RoCE: NCCL's own IB transport, no plugin or variable "
			    "needed (NCCL_IB_HCA picks the HCAs).\n");
		break;
	case COMM_TRANSPORT_EFA:
		sbuf_add(b, "# AWS EFA: the aws-ofi-nccl plugin must be in the environment "
			    "(>= 1.7 with libfabric >= 1.18 needs no other variable).\n");
		env_default(b, "FI_PROVIDER", "efa");
		break;
	case COMM_TRANSPORT_TCP:
		sbuf_add(b, "# TCP sockets (no RDMA): NCCL's socket transport, as estimated; "
			    "NCCL_SOCKET_IFNAME names the data NIC.\n");
		break;
	case COMM_TRANSPORT_OPA:
		/* docs/fabric.md: NCCL's IB verbs over the hfi1 adapters, no
		 * plugin and no GPUDirect RDMA (the Jean Zay NCCL logs). */
		sbuf_add(b, "# Intel Omni-Path: NCCL's own IB transport over the hfi1 adapters "
			    "(no plugin, no GPUDirect RDMA);\n# NCCL_IB_HCA=hfi1 keeps it on them.\n");
		break;
	case COMM_TRANSPORT_TCPX: {
		static const char *const tcpx[][2] = {
			{ "NCCL_SOCKET_IFNAME", "eth0" },
			{ "NCCL_CROSS_NIC", "0" },
			{ "NCCL_ALGO", "Ring" },
			{ "NCCL_PROTO", "Simple" },
			{ "NCCL_NSOCKS_PERTHREAD", "4" },
			{ "NCCL_SOCKET_NTHREADS", "1" },
			{ "NCCL_NET_GDR_LEVEL", "PIX" },
			{ "NCCL_P2P_PXN_LEVEL", "0" },
			{ "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "eth1,eth2,eth3,eth4" },
			{ "NCCL_GPUDIRECTTCPX_CTRL_DEV", "eth0" },
			{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288" },
			{ "NCCL_P2P_NET_CHUNKSIZE", "524288" },
			{ "NCCL_P2P_PCI_CHUNKSIZE", "524288" },
			{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576" },
			{ "NCCL_BUFFSIZE", "4194304" },
			{ "NCCL_GPUDIRECTTCPX_TX_BINDINGS",
			  "eth1:8-21,112-125;eth2:8-21,112-125;eth3:60-73,164-177;eth4:60-73,164-177" },
			{ "NCCL_GPUDIRECTTCPX_RX_BINDINGS",
			  "eth1:22-35,126-139;eth2:22-35,126-139;eth3:74-87,178-191;eth4:74-87,178-191" },
			{ "NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS", "50000" },
			{ "NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX", "/run/tcpx" },
		};
		sbuf_add(b, "# GPUDirect-TCPX (a3-highgpu-8g): its plugin (libnccl-net.so) in "
			    "NCCL_LIB_DIR and these variables.\n");
		plugin_dir(b, "NCCL_LIB_DIR", "/usr/local/tcpx/lib64", "", NULL);
		for (size_t i = 0; i < HP_ARRAY_LEN(tcpx); i++)
			env_default(b, tcpx[i][0], tcpx[i][1]);
		break;
	}
	case COMM_TRANSPORT_TCPXO:
		sbuf_add(b, "# GPUDirect-TCPXO (a3-megagpu-8g): the plugin's own profile sets "
			    "NCCL_FASTRAK_*; set NCCL_FASTRAK_IFNAME\n# and NCCL_FASTRAK_CTRL_DEV "
			    "if it does not find the NICs.\n");
		plugin_dir(b, "NCCL_LIB_DIR", "/var/lib/tcpxo/lib64", "", "nccl-env-profile.sh");
		break;
	case COMM_TRANSPORT_GCP_RDMA:
		sbuf_add(b, "# GPUDirect RDMA over RoCE (a3-ultragpu-8g, a4-highgpu-8g): the gIB "
			    "plugin and its set_nccl_env.sh.\n");
		plugin_dir(b, "GIB_DIR", "/usr/local/gib", "/lib64", "scripts/set_nccl_env.sh");
		break;
	case COMM_TRANSPORT_COUNT:   /* not a transport; every one is named above */
		break;
	}
}

/* The srun + torchrun lines that start a job of nl's nodes: script (a
 * shell word) with args (shell words) and the job's own "$@". vars: the
 * script's variable the per-node bash -c must see, besides MASTER_ADDR
 * and MASTER_PORT. */
static void torchrun_lines(struct sbuf *b, const struct node_layout *nl, const char *vars,
			   const char *script, const char *args)
{
	if (nl->last == nl->gpn) {
		sbuf_addf(b, "srun torchrun \\\n\t--nnodes \"$SLURM_NNODES\" \\\n"
			  "\t--nproc-per-node %d \\\n\t--rdzv-id \"$SLURM_JOB_ID\" \\\n"
			  "\t--rdzv-backend c10d \\\n"
			  "\t--rdzv-endpoint \"$MASTER_ADDR:$MASTER_PORT\" \\\n"
			  "\t%s %s \"$@\"\n", nl->gpn, script, args);
		return;
	}
	/* one torchrun per node (--ntasks-per-node=1), its process count
	 * from the node's SLURM_NODEID, which srun sets per task: the
	 * command is a bash -c string so that each task expands it */
	sbuf_addf(b, "# %d processes on each node but the last, %d there (%d GPUs of the "
		  "job's %d).\nexport %s MASTER_ADDR MASTER_PORT\n"
		  "srun bash -c 'exec torchrun \\\n\t--nnodes \"$SLURM_NNODES\" \\\n"
		  "\t--nproc-per-node \"$((SLURM_NODEID + 1 < SLURM_NNODES ? %d : %d))\" \\\n"
		  "\t--rdzv-id \"$SLURM_JOB_ID\" \\\n\t--rdzv-backend c10d \\\n"
		  "\t--rdzv-endpoint \"$MASTER_ADDR:$MASTER_PORT\" \\\n"
		  "\t%s \"$@\"' torchrun %s \"$@\"\n",
		  nl->gpn, nl->last, (nl->nodes - 1) * nl->gpn + nl->last, nl->nodes * nl->gpn, vars,
		  nl->gpn, nl->last, script, args);
}

static void slurm_piece(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			const struct plan *p, const struct piece *pc, double tokens,
			const char *version, const char *deny, int with_estimate)
{
	struct node_layout nl = piece_nodes(c, p, pc);
	char jn[64];
	job_name(jn, sizeof jn, m);
	/* the GPUs of the fullest node, on every node */
	sbuf_addf(b, "#!/bin/bash\n#SBATCH --job-name=%s\n#SBATCH --nodes=%d\n"
		  "#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=%d\n#SBATCH --exclusive\n",
		  jn, nl.nodes, nl.gpn);
	char q[SHQ_MAX];
	sbuf_addf(b, "# Generated by hetplan %s for %s.\n", version ? version : "", mname(q, m));
	/* the same arguments as the Megatron format, so the same warning */
	if (deny[0])
		comment_wrapped(b, "# ", "# ", deny, strlen(deny));
	if (with_estimate)
		launch_estimate_lines(b, c, m, p, "# ", 0);
	piece_header(b, c, m, p, pc);
	sbuf_add(b, "#\n# Environment: Megatron-LM at commit " LAUNCH_MEGATRON_COMMIT
		    " (the flags are its arguments.py's) with\n# PyTorch, Transformer Engine and "
		    "Apex on every node, e.g. NVIDIA's NGC PyTorch container\n# "
		    "(nvcr.io/nvidia/pytorch) with that checkout as MEGATRON; start this script "
		    "inside it.\n");
	sbuf_addf(b, "#\n# Usage: MEGATRON=/path/to/Megatron-LM sbatch THIS_SCRIPT "
		    "--data-path ... --tokenizer-type ... --save ...\n"
		    "set -euo pipefail\n"
		    "MEGATRON=${MEGATRON:-$HOME/Megatron-LM}\n"
		    MASTER_ADDR_LINE("SLURM_JOB_NODELIST")
		    "MASTER_PORT=${MASTER_PORT:-29500}\n"
		    "export CUDA_DEVICE_MAX_CONNECTIONS=%d\n",
		  launch_max_connections(m, p, pc));
	nccl_env_lines(b, c, pc);
	sbuf_add(b, "\nARGS=(\n");
	megatron_args(b, c, m, p, pc, tokens, "\t", "\n");
	sbuf_add(b, ")\n\n");
	torchrun_lines(b, &nl, "MEGATRON", "\"$MEGATRON/pretrain_gpt.py\"", "\"${ARGS[@]}\"");
}

static cJSON *deepspeed_config(const struct plan *p, const struct piece *pc)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "train_batch_size", pc->gbs);
	cJSON_AddNumberToObject(o, "train_micro_batch_size_per_gpu", p->mbs);
	cJSON_AddNumberToObject(o, "gradient_accumulation_steps",
				pc->gbs / HP_MAX(p->mbs * pc->dp, 1));
	if (p->precision == HP_FP16) {
		cJSON *f = cJSON_AddObjectToObject(o, "fp16");
		cJSON_AddBoolToObject(f, "enabled", 1);
		cJSON_AddNumberToObject(f, "loss_scale", 0);
		cJSON_AddNumberToObject(f, "initial_scale_power", 16);
	} else if (p->precision == HP_BF16 || p->precision == HP_FP8) {
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(o, "bf16"), "enabled", 1);
	}
	/* The dtype the estimate reduced the gradients in, stated rather than
	 * left to DeepSpeed's defaults: allreduce_bucket casts each bucket to
	 * communication_data_type; at ZeRO 0 under bf16 the gradients are
	 * accumulated in grad_accum_dtype (fp32 by default, get_data_types). */
	if (p->precision == HP_FP16 || p->precision == HP_BF16 || p->precision == HP_FP8) {
		const char *g16 = p->precision == HP_FP16 ? "fp16" : "bf16";
		const char *gd = plan_grad_fp32(p) ? "fp32" : g16;
		cJSON_AddStringToObject(o, "communication_data_type", gd);
		if (p->zero == 0 && p->precision != HP_FP16)
			cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "data_types"),
						"grad_accum_dtype", gd);
	}
	/* Under sequence parallelism a stage's output is each TP rank's own
	 * shard: the pipeline engine must not partition it again (its
	 * defaults, pipe_partitioned and grad_partitioned true, are what
	 * hetplan costs otherwise: perf_comm.c perf_stage_pp). */
	if (pc->pp > 1 && pc->tp > 1 && p->sp) {
		cJSON *pl = cJSON_AddObjectToObject(o, "pipeline");
		cJSON_AddBoolToObject(pl, "pipe_partitioned", 0);
		cJSON_AddBoolToObject(pl, "grad_partitioned", 0);
	}
	cJSON *z = cJSON_AddObjectToObject(o, "zero_optimization");
	cJSON_AddNumberToObject(z, "stage", p->zero);
	/* the plan's gradient overlap, which the estimate charged: none at
	 * PP above 1, where DeepSpeed builds the ZeRO optimizer of a
	 * PipelineModule with overlap_comm False whatever the config says
	 * (runtime/engine.py @38327e07f L1639-1642; perf_comm.c charges
	 * the reduce whole there) */
	cJSON_AddBoolToObject(z, "overlap_comm", plan_grad_overlap(p) == 1 && pc->pp == 1);
	cJSON_AddBoolToObject(z, "contiguous_gradients", 1);
	/* ZeRO-Offload (plan key offload): the optimizer's partition on the
	 * host, pinned, as the estimate costed it (perf_offload.c);
	 * DeepSpeed's DeepSpeedZeroOffloadOptimizerConfig, device "cpu",
	 * pin_memory (offload_config.py @edaa7221) */
	if (p->offload == OFFLOAD_OPTIMIZER) {
		cJSON *off = cJSON_AddObjectToObject(z, "offload_optimizer");
		cJSON_AddStringToObject(off, "device", "cpu");
		cJSON_AddBoolToObject(off, "pin_memory", 1);
	}
	if (p->recompute != RC_NONE) {
		cJSON *a = cJSON_AddObjectToObject(o, "activation_checkpointing");
		cJSON_AddBoolToObject(a, "partition_activations", p->sp && pc->tp > 1);
		cJSON_AddBoolToObject(a, "contiguous_memory_optimization", 0);
		cJSON_AddBoolToObject(a, "cpu_checkpointing", 0);
	}
	cJSON_AddNumberToObject(o, "gradient_clipping", 1.0);
	cJSON_AddBoolToObject(o, "wall_clock_breakdown", 0);
	return o;
}

static void deepspeed_notes(struct sbuf *n, const struct model_spec *m, const struct plan *p,
			    const struct piece *pc)
{
	if (pc->tp > 1 || pc->pp > 1)
		sbuf_addf(n, "DeepSpeed: TP %d and PP %d are set where the model is built "
			  "(Megatron-DeepSpeed: --tensor-model-parallel-size %d "
			  "--pipeline-model-parallel-size %d); the config holds batch, precision and "
			  "ZeRO.\n", pc->tp, pc->pp, pc->tp, pc->pp);
	/* DeepSpeed-MoE's expert parallelism is a layer argument too
	 * (deepspeed.moe.layer.MoE ep_size; Megatron-DeepSpeed's
	 * --num-experts and --moe-expert-parallel-size, DeepSpeed's
	 * "Mixture of Experts for NLG" tutorial); the JSON has no key for it. */
	if (p->ep > 1)
		sbuf_addf(n, "DeepSpeed: EP %d is set where the model is built (Megatron-DeepSpeed: "
			  "--num-experts %d --moe-expert-parallel-size %d); the config has no "
			  "key for it.\n", p->ep, m->moe.experts, p->ep);
	/* Megatron-DeepSpeed splits the experts over TP only with
	 * --enable-expert-tensor-parallelism (arguments.py
	 * _add_distributed_args: store_true, default False); without it each
	 * TP rank holds whole experts, not the plan's 1 / TP of them. */
	if (m->moe.experts > 0 && pc->tp > 1 && plan_etp(p, pc->tp) == pc->tp)
		sbuf_addf(n, "DeepSpeed: give Megatron-DeepSpeed --enable-expert-tensor-parallelism "
			  "so that the experts are split over TP %d as planned (off by default: "
			  "each TP rank would hold whole experts).\n", pc->tp);
	/* Megatron-DeepSpeed builds GPTModelPipe, a PipelineModule, unless
	 * --no-pipeline-parallel is given (pretrain_gpt.py model_provider;
	 * "use pp engine even for pp=1", deepspeedai/Megatron-DeepSpeed #6,
	 * July 2021), and DeepSpeed builds the ZeRO optimizer of a
	 * PipelineModule with overlap_comm False (runtime/engine.py
	 * @38327e07f L1639-1642): the overlap the estimate charged at PP 1
	 * needs the flag. The pipeline engine also refuses ZeRO 2 and 3
	 * (PipelineEngine.__init__ asserts zero_optimization_stage() < 2), so
	 * a PP-1 plan at those stages needs it whatever the overlap. */
	if (pc->pp == 1 && p->zero >= 2)
		sbuf_addf(n, "DeepSpeed: at PP 1 give Megatron-DeepSpeed --no-pipeline-parallel: "
			  "its pipeline engine, which it builds even at PP 1 without the flag, "
			  "refuses ZeRO-%d.\n", p->zero);
	else if (pc->pp == 1 && plan_grad_overlap(p) && p->zero == 1)
		sbuf_add(n, "DeepSpeed: at PP 1 give Megatron-DeepSpeed --no-pipeline-parallel: "
			    "under its pipeline engine DeepSpeed turns overlap_comm off, and the "
			    "estimate overlapped the gradient reduce.\n");
	if (pc->pp > 1 && p->zero > 1)
		sbuf_addf(n, "DeepSpeed: its pipeline engine supports ZeRO stage 0 or 1 only; "
			  "the plan asks for ZeRO-%d.\n", p->zero);
	/* The config's activation_checkpointing section only configures
	 * deepspeed.checkpointing (partitioning, CPU copies); the model code
	 * calls deepspeed.checkpointing.checkpoint, or nothing is recomputed
	 * (DeepSpeed's activation-checkpointing API page). Megatron-DeepSpeed
	 * turns it on with --recompute-granularity and
	 * --deepspeed-activation-checkpointing (its arguments.py). */
	char method[80] = "";
	if (p->recompute == RC_FULL && p->recompute_layers > 0)
		snprintf(method, sizeof method, " --recompute-method block --recompute-num-layers %d",
			 p->recompute_layers);
	else if (p->recompute == RC_FULL)
		snprintf(method, sizeof method, " --recompute-method uniform");
	if (p->recompute == RC_SELECTIVE || p->recompute == RC_FULL)
		sbuf_addf(n, "DeepSpeed: recomputation is turned on in the model code, not by the "
			  "config's activation_checkpointing section, which only configures it "
			  "(Megatron-DeepSpeed: --recompute-granularity %s%s "
			  "--deepspeed-activation-checkpointing); without them nothing is "
			  "recomputed and the plan's memory does not hold.\n",
			  p->recompute == RC_FULL ? "full" : "selective", method);
	if (p->precision == HP_FP8)
		sbuf_add(n, "DeepSpeed: FP8 runs through Transformer Engine in the model; the "
			    "config says bf16.\n");
}

/* torchtitan's model for m: name and flavor of its model registry
 * (torchtitan/models/llama3 flavors "8B", "70B", "405B"; deepseek_v3
 * "671B"), or NULL when torchtitan has no definition of the model. */
static int titan_model(const struct model_spec *m, const char **name, const char **flavor)
{
	static const struct { const char *hetplan, *name, *flavor; } map[] = {
		{ "llama3.1-8b", "llama3", "8B" },
		{ "llama3.1-70b", "llama3", "70B" },
		{ "llama3.1-405b", "llama3", "405B" },
		{ "deepseek-v3", "deepseek_v3", "671B" },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(map); i++)
		if (!strcmp(m->name, map[i].hetplan)) {
			*name = map[i].name;
			*flavor = map[i].flavor;
			return 1;
		}
	return 0;
}

/* A torchtitan job config (TOML) for one piece, in the schema of
 * torchtitan/config/job_config.py at commit 8a2686c4 (2025-09-30), the
 * last release line configured by TOML files (later torchtitan takes the
 * same fields as Python config / command-line overrides). Data-parallel
 * sharding: ZeRO-0 replicates (data_parallel_replicate_degree), ZeRO-2
 * and 3 shard with FSDP2 (reshard_after_forward "never" is ZeRO-2). */
/* s as a TOML basic string, quotes included: backslash and quote
 * escaped, control characters as \uXXXX (TOML 1.0, "Basic strings");
 * invalid UTF-8 is left to the file's reader, names are validated as
 * printable UTF-8 when they are parsed. */
static void toml_str(struct sbuf *b, const char *s)
{
	sbuf_add(b, "\"");
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			sbuf_addf(b, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			sbuf_addf(b, "\\u%04X", *c);
		else
			sbuf_addf(b, "%c", *c);
	}
	sbuf_add(b, "\"");
}

/* The plan's pipeline as torchtitan's module_fqns_per_model_part: one
 * list of module names per model part, in model order, the embedding in
 * the first and the final norm and output projection in the last
 * (torchtitan/distributed/pipeline_parallel.py, pipeline_module_split;
 * the llama3 and deepseek_v3 models name them tok_embeddings, layers.N,
 * norm, output). torchtitan's other two ways refuse or move the plan's
 * split at the pinned commit: pipeline_parallel_split_points raises
 * "deprecated" (models/llama3/infra/pipeline.py), and
 * pipeline_parallel_layers_per_stage counts the embedding and the output
 * as one layer each (first/last_stage_less_layers, default 1), so 80
 * layers at 20 a stage make ceil(82 / 20) = 5 stages over PP 4 and the
 * job stops. With v virtual stages a rank (Interleaved1F1B, torchtitan's
 * loop placement: part j x pp + s on rank s) stage s's layers are split
 * into v chunks, the first ones a layer larger when they do not divide. */
static void titan_model_parts(struct sbuf *b, const struct replica *r, int v,
			      const struct pp_layout *L)
{
	int pp = r->n_stages, layer = 0;
	sbuf_add(b, "module_fqns_per_model_part = [\n");
	for (int part = 0; part < pp * v; part++) {
		int s = part % pp, j = part / pp;
		int n = stage_layers_of(r, s);
		/* a pp_layout's part holds its virtual stage's layers (the
		 * same round robin: part k on rank k mod pp) */
		int k = L && L->n == pp * v ? L->stage_layers[part] : n / v + (j < n % v);
		sbuf_add(b, "\t[");
		const char *sep = "";
		if (part == 0) {
			sbuf_add(b, "\"tok_embeddings\"");
			sep = ", ";
		}
		for (int i = 0; i < k; i++, sep = ", ")
			sbuf_addf(b, "%s\"layers.%d\"", sep, layer++);
		if (part == pp * v - 1)
			sbuf_addf(b, "%s\"norm\", \"output\"", sep);
		sbuf_add(b, part == pp * v - 1 ? "]\n" : "],\n");
	}
	sbuf_add(b, "]\n");
}

/* torchtitan's [activation_checkpoint] section. recompute_layers (R of a
 * stage's L layers) becomes layer-level selective checkpointing: every
 * K-th block wrapped (torchtitan/distributed/activation_checkpoint.py
 * @8a2686c4, _apply_layer_sac: a counter from 1, checkpointed when
 * count % K == 0, so floor(L / K) of L), K = L / R, which is R exactly
 * when R divides L; otherwise the nearest K below, which recomputes more
 * than R, and a comment says so. L: the piece's largest stage. */
static void titan_ac(struct sbuf *b, const struct plan *p, const struct piece *pc)
{
	if (p->recompute == RC_FULL && p->recompute_layers > 0) {
		int L = 0;
		for (int i = 0; i < pc->r->n_stages; i++)
			if (stage_layers_of(pc->r, i) > L)
				L = stage_layers_of(pc->r, i);
		int R = plan_recompute_count(p, L);
		int K = R > 0 ? L / R : 1;
		if (K < 1)
			K = 1;
		if (L / K != R)
			sbuf_addf(b, "# one layer in %d is recomputed: %d of a stage's %d, where the "
				  "plan recomputes %d (recompute_layers %d)\n", K, L / K, L, R,
				  p->recompute_layers);
		sbuf_addf(b, "mode = \"selective\"\nselective_ac_option = \"%d\"\n", K);
		return;
	}
	switch (p->recompute) {
	case RC_NONE: sbuf_add(b, "mode = \"none\"\n"); break;
	case RC_FULL: sbuf_add(b, "mode = \"full\"\n"); break;
	case RC_SELECTIVE_OP:
		sbuf_add(b, "mode = \"selective\"\nselective_ac_option = \"op\"\n");
		break;
	default:
		sbuf_add(b, "# Megatron's attention-only recomputation has no torchtitan mode; "
			    "op-level selective is the nearest\nmode = \"selective\"\n"
			    "selective_ac_option = \"op\"\n");
		break;
	}
}

static void torchtitan_toml(struct sbuf *b, const struct model_spec *m, const struct plan *p,
			    const struct piece *pc, double tokens, struct sbuf *notes)
{
	char q[SHQ_MAX];
	const char *name = NULL, *flavor = NULL;
	int seq = p->seq_len ? p->seq_len : m->seq_len;
	sbuf_add(b, "[job]\ndump_folder = \"./outputs\"\n");
	sbuf_add(b, "description = ");
	toml_str(b, *m->display ? m->display : m->name);
	sbuf_add(b, "\n\n");
	sbuf_add(b, "[model]\n");
	if (titan_model(m, &name, &flavor)) {
		sbuf_addf(b, "name = \"%s\"\nflavor = \"%s\"\n", name, flavor);
	} else {
		sbuf_addf(b, "# torchtitan has no model definition for %s: add one and name it here\n"
			  "name = ", mname(q, m));
		toml_str(b, m->name);
		sbuf_add(b, "\nflavor = \"custom\"\n");
		sbuf_addf(notes, "torchtitan: no model definition for %s in its registry.\n",
			  mname(q, m));
	}
	if (p->precision == HP_FP8)
		sbuf_add(b, "converters = [\"float8\"]\n");
	/* The experts one at a time (moe_grouped_gemm off): torchtitan's
	 * GroupedExperts loops over them (_run_experts_for_loop) when the
	 * model's MoEArgs.use_grouped_mm is False (default True;
	 * torchtitan/models/moe/moe.py @003edbe5), a field of the model
	 * flavor's arguments, not of the job config (no such key in
	 * tests/data/torchtitan_keys.txt, job_config.py @8a2686c4): said in
	 * the file and in a note, as the run would otherwise use grouped
	 * GEMMs and be faster than estimated. */
	if (m->moe.experts && !plan_moe_grouped_gemm(p)) {
		sbuf_add(b, "# moe_grouped_gemm off: set use_grouped_mm=False in this flavor's "
			    "MoEArgs (torchtitan/models/moe/moe.py); the job config has no key "
			    "for it\n");
		sbuf_add(notes, "torchtitan: the plan runs the routed experts one at a time "
			       "(moe_grouped_gemm off), which torchtitan's job config cannot say: "
			       "set use_grouped_mm=False in the model flavor's MoEArgs, or the run "
			       "uses grouped GEMMs and is faster than estimated.\n");
	}
	/* torchtitan's pipeline runs local_batch_size / microbatch_size
	 * micro-batches a schedule call and accumulates gradients over
	 * global / (local x DP) calls (torchtitan/train.py,
	 * distributed/pipeline_parallel.py build_pipeline_schedule): with PP
	 * a replica's whole share goes through one call, as the plan's
	 * pipeline does, instead of gbs / (mbs x DP) calls of one micro-batch
	 * each, a fill and drain every time. */
	int local = pc->pp > 1 ? pc->gbs / pc->dp : p->mbs;
	sbuf_addf(b, "\n[training]\nlocal_batch_size = %d\nglobal_batch_size = %d\nseq_len = %d\n"
		  "steps = %lld\nmax_norm = 1.0\nmixed_precision_param = \"%s\"\n"
		  "mixed_precision_reduce = \"float32\"\n", local, pc->gbs, seq,
		  plan_steps(m, p, tokens),
		  p->precision == HP_BF16 || p->precision == HP_FP8 ? "bfloat16" : "float32");
	/* master none: the model itself in bf16, so its weights, gradients and
	 * AdamW state are bf16 (torchtitan training.dtype, configs.py
	 * @b5bcd76c; runs_on.c rules_master) */
	if (p->master == MASTER_NONE)
		sbuf_add(b, "dtype = \"bfloat16\"\n");
	sbuf_addc(b, '\n');
	/* the plan's Adam (plan key optimizer_impl; torchtitan's
	 * optimizer.implementation takes "fused", "foreach" and "for-loop",
	 * torchtitan/config/job_config.py @6404b932, class Optimizer) */
	static const char *const titan_impl[OPT_IMPL_COUNT] = { "fused", "foreach", "for-loop" };
	sbuf_addf(b, "[optimizer]\nname = \"AdamW\"\nimplementation = \"%s\"\n\n",
		  titan_impl[plan_opt_impl(p)]);
	if (p->precision == HP_FP16)
		sbuf_add(notes, "torchtitan: its mixed precision is bfloat16 or float32; the plan's "
			    "fp16 has no switch.\n");
	/* the reduce dtype: mixed_precision_reduce takes "float32" only
	 * (torchtitan/config/configs.py @b5bcd76c L102, plan.c
	 * plan_grad_fp32); a plan reducing its FSDP gradients in 16 bits
	 * (grad_reduce_fp32 off) moves half the run's reduce-scatter bytes */
	if (p->zero >= 2 && !plan_grad_fp32(p))
		sbuf_add(notes, "torchtitan: mixed_precision_reduce takes float32 only; the plan's "
			    "16-bit gradient reduce (grad_reduce_fp32 off) has no switch, so the "
			    "run's reduce-scatters move twice the bytes estimated: check with "
			    "hetplan estimate --grad-reduce-fp32 on.\n");
	int replicate = p->zero == 0 ? pc->dp : 1, shard = p->zero == 0 ? 1 : pc->dp;
	if (p->zero == 1)
		sbuf_add(notes, "torchtitan: no optimizer-only sharding (ZeRO-1); FSDP2 with "
			    "reshard_after_forward = \"never\" (ZeRO-2) is the nearest.\n");
	sbuf_addf(b, "[parallelism]\ndata_parallel_replicate_degree = %d\n"
		  "data_parallel_shard_degree = %d\n", replicate, shard);
	/* "default" reshards after the forward only without PP
	 * (parallelize.py @8a2686c4 L285-288: not pp_enabled), so ZeRO-3
	 * with PP names "always" */
	if (p->zero >= 1)
		sbuf_addf(b, "fsdp_reshard_after_forward = \"%s\"\n",
			  p->zero < 3 ? "never" : pc->pp > 1 ? "always" : "default");
	sbuf_addf(b, "tensor_parallel_degree = %d\n", pc->tp);
	if (pc->tp > 1 && plan_tp_overlap(p))
		sbuf_add(b, "enable_async_tensor_parallel = true\n");
	sbuf_addf(b, "pipeline_parallel_degree = %d\n", pc->pp);
	if (pc->pp > 1) {
		int v = p->schedule == SCHED_INTERLEAVED ? p->vpp : 1;
		sbuf_addf(b, "pipeline_parallel_schedule = \"%s\"\n",
			  v > 1 ? "Interleaved1F1B" : "1F1B");
		sbuf_addf(b, "pipeline_parallel_microbatch_size = %d\n", p->mbs);
		titan_model_parts(b, pc->r, v, plan_pp_layout(p));
	}
	sbuf_addf(b, "context_parallel_degree = %d\n", p->cp);
	if (p->ep > 1)
		sbuf_addf(b, "expert_parallel_degree = %d\n", p->ep);
	/* torchtitan's expert TP defaults to 1, not to TP (job_config.py
	 * @8a2686c4 L392, expert_tensor_parallel_degree: int = 1): written
	 * whenever the experts' TP is above 1 */
	if (p->ep > 1 && m->moe.experts && plan_etp(p, pc->tp) > 1)
		sbuf_addf(b, "expert_tensor_parallel_degree = %d\n", plan_etp(p, pc->tp));
	sbuf_add(b, "\n[activation_checkpoint]\n");
	titan_ac(b, p, pc);
	/* Async TP is torch.compile's micro-pipelining: torchtitan refuses it
	 * unless the model is compiled (distributed/tensor_parallel.py,
	 * maybe_enable_async_tp: "Async TP requires 'model' in
	 * --compile.components and --compile.enable"). */
	if ((pc->tp > 1 && plan_tp_overlap(p)) || plan_compile(p))
		sbuf_add(b, "\n[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n");
}

int launch_refuses(const struct plan *p, const char *where, struct hp_err *err)
{
	enum hp_framework f = p->framework;
	if (framework_launchable(f))
		return 0;
	char ok[160];
	return hp_err_set(err, HP_EXIT_USAGE,
			  "%s: %s is estimate-only: hetplan has no launcher for %s; launch "
			  "writes configs for %s (hetplan estimate and plan take it)",
			  where ? where : "launch", framework_name(f),
			  framework_get(f)->display, framework_list(FW_LIST_LAUNCHABLE, ok, sizeof ok));
}

int launch_refuses_format(const struct plan *p, enum launch_format f, const char *where,
			  struct hp_err *err)
{
	/* a format writes configs for its own rows, estimate-only or not
	 * (the HF Trainer's hf-transformers and hf-deepspeed) */
	if ((unsigned)f < LAUNCH_FORMAT_COUNT &&
	    (p->framework == formats[f].zero0 || p->framework == formats[f].zero_up))
		return 0;
	if (launch_refuses(p, where, err) == 0)
		return 0;
	for (int i = 0; i < LAUNCH_FORMAT_COUNT; i++)
		if (p->framework == formats[i].zero0 || p->framework == formats[i].zero_up) {
			size_t n = strlen(err->msg);
			snprintf(err->msg + n, sizeof err->msg - n, "; give --format %s for %s",
				 formats[i].name, i == LAUNCH_HF_TRAINER ? "an HF Trainer script"
									: "its config");
			break;
		}
	return -1;
}

/* Each line of lines (newline-ended) not already a line of *nb, appended. */
static void add_new_lines(struct sbuf *nb, const char *lines)
{
	for (const char *s = lines; *s;) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) + 1 : strlen(s);
		int seen = 0;
		for (const char *t = nb->s ? nb->s : ""; *t && !seen;) {
			const char *te = strchr(t, '\n');
			size_t tn = te ? (size_t)(te - t) + 1 : strlen(t);
			seen = tn == n && !memcmp(t, s, n);
			t += tn;
		}
		if (!seen)
			sbuf_addn(nb, s, n);
		s += n;
	}
}

/* One piece's torchtitan config, its notes added once each: the pieces
 * of a heterogeneous plan share most of them. */
static void torchtitan_piece(struct sbuf *b, const struct model_spec *m, const struct plan *p,
			     const struct piece *pc, double tokens, struct sbuf *nb)
{
	struct sbuf pn;
	sbuf_init(&pn);
	torchtitan_toml(b, m, p, pc, tokens, &pn);
	add_new_lines(nb, pn.s ? pn.s : "");
	sbuf_done(&pn);
}

/* Settings a framework lacks but that do not split the job, as notes. */
/* What a config does about op-level selective recomputation where the
 * framework has no switch for it (all but torchtitan). */
#define RECOMPUTE_NEAREST "no recompute flags are given; the nearest are " \
	"--recompute-granularity selective or full: check memory with hetplan estimate " \
	"--recompute selective|full."

static void settings_notes(struct sbuf *nb, const struct cluster *c, const struct model_spec *m,
			   const struct plan *p, enum launch_format f, int recompute_in_denial)
{
	/* torchtitan's config sets op-level selective itself; where the
	 * denial already names the recomputation, it carries the advice */
	if (p->recompute == RC_SELECTIVE_OP && f != LAUNCH_TORCHTITAN && !recompute_in_denial)
		sbuf_add(nb, "Recomputation: op-level selective checkpointing (torchtitan's) has "
			      "no Megatron-LM or DeepSpeed switch; " RECOMPUTE_NEAREST "\n");
	/* tp_host_sync: a behaviour of AMP's Megatron-LM fork (plan.c's
	 * field), not a flag of any framework launch writes for */
	if (p->tp_host_sync)
		sbuf_add(nb, "Host sync: the plan assumes the host synchronises the GPU around every "
			      "TP all-reduce (tp_host_sync on, AMP's Megatron-LM fork); no stock "
			      "launcher does, so the run can be faster than estimated: check with "
			      "hetplan estimate --tp-host-sync off.\n");
	if (p->loss == LOSS_EAGER)
		sbuf_add(nb, "Loss: the plan assumes an eager fp32 cross-entropy; Megatron-LM's "
			      "vocab-parallel cross-entropy needs less memory than estimated.\n");
	if (p->loss == LOSS_CHUNKED && f == LAUNCH_HF_TRAINER)
		sbuf_add(nb, "Loss: --use_liger_kernel runs Liger's fused linear cross-entropy, so "
			      "the whole logits never exist, as the plan assumes; it needs the "
			      "liger-kernel package and a model type Liger patches (Llama, Mistral, "
			      "Qwen2, Gemma and others), and it also swaps in Liger's RMSNorm, SwiGLU "
			      "and RoPE kernels.\n");
	else if (p->loss == LOSS_CHUNKED)
		sbuf_add(nb, "Loss: the plan assumes a chunked output layer and loss (the whole logits "
			      "never held: Liger's fused linear cross-entropy, LLMQ's --lmhead-chunks); "
			      "the launched framework holds the whole logits and needs more memory "
			      "than estimated.\n");
	if (p->master == MASTER_NONE && f != LAUNCH_TORCHTITAN && f != LAUNCH_HF_TRAINER)
		sbuf_add(nb, "Optimizer: the plan keeps no fp32 master (weights, gradients and "
			      "AdamW moments in bf16); Megatron and DeepSpeed keep one and need more "
			      "memory than estimated.\n");
	/* The Trainer's bf16 state is the model's own dtype: run_clm.py
	 * loads a checkpoint in --dtype (--torch_dtype before the rename),
	 * and builds a model from its config in fp32 whatever it says
	 * (examples/pytorch/language-modeling/run_clm.py @00d481d1,
	 * from_pretrained(dtype=) vs from_config); --bf16 is autocast over
	 * fp32 weights. hf_args writes neither. */
	if (p->master == MASTER_NONE && f == LAUNCH_HF_TRAINER)
		sbuf_add(nb, "Optimizer: the plan keeps no fp32 master (master none: the model "
			      "itself in bf16); the script's --bf16 is autocast over fp32 weights, "
			      "which need more memory than estimated, unless the model is loaded "
			      "in bfloat16 (run_clm.py --model_name_or_path with --dtype bfloat16, "
			      "--torch_dtype in older scripts).\n");
	/* optimizer_impl: Megatron-LM has no argument choosing the Adam
	 * implementation (megatron/core/optimizer/__init__.py @d086a2e3:
	 * Transformer Engine's FusedAdam, else apex's), and a DeepSpeed
	 * config with no "optimizer" section leaves it to the training
	 * script (Megatron-DeepSpeed: apex FusedAdam); torchtitan and the HF
	 * Trainer write the key (torchtitan_piece, hf_args, hf_notes).
	 * Under ZeRO-Offload the host's DeepSpeedCPUAdam steps, whatever
	 * the key (perf_offload.c: the estimate does not read it there). */
	if (f != LAUNCH_TORCHTITAN && f != LAUNCH_HF_TRAINER && p->offload != OFFLOAD_OPTIMIZER &&
	    plan_opt_impl(p) != OPT_IMPL_FUSED)
		sbuf_addf(nb, "Optimizer: the plan's Adam runs as optimizer_impl %s; Megatron-LM "
			      "and DeepSpeed have no switch for it and build a fused Adam, so the "
			      "run can be faster than estimated: check with hetplan estimate "
			      "--optimizer-impl fused.\n",
			  framework_opt_impl_name(plan_opt_impl(p)));
	if (p->master == MASTER_REPLICATED)
		sbuf_add(nb, "Optimizer: the plan assumes fp32 master weights whole on every "
			      "data-parallel rank (DeepSpeed's first BF16 optimizer); Megatron-LM's "
			      "distributed optimizer and current DeepSpeed shard them and need less "
			      "memory than estimated.\n");
	if ((f == LAUNCH_MEGATRON || f == LAUNCH_SLURM) && m->moe.experts &&
	    plan_moe_dispatch(p, c) == MOE_DISPATCH_FLEX)
		sbuf_add(nb, "MoE: the experts' tokens go through HybridEP (--moe-token-dispatcher-type "
			      "flex --moe-flex-dispatcher-backend hybridep), which the estimate assumes; "
			      "DeepEP's hybrid-ep build must be installed (NVIDIA's NeMo containers ship "
			      "it). With --moe-token-dispatcher-type alltoall instead, a token crosses "
			      "the network once per expert, not once per node.\n");
	/* the HF Trainer's --tf32 sets it (hf_args) */
	if ((p->precision == HP_TF32 || p->precision == HP_FP32) && f != LAUNCH_HF_TRAINER)
		sbuf_addf(nb, "%s: no mixed-precision flag is written; the run keeps fp32 tensors, and "
			      "its GEMMs use TF32 only when the training script sets "
			      "torch.backends.cuda.matmul.allow_tf32 = %s (PyTorch's default is False "
			      "since 1.12; no launcher flag sets it).\n",
			  p->precision == HP_TF32 ? "tf32" : "fp32",
			  p->precision == HP_TF32 ? "True, as the estimate assumes" : "False, as the estimate assumes");
}

/* The MoE model m beyond a Switch layer (framework.h moe_switch_only:
 * Megatron-LM 2021-22's SwitchMLP), as a reason into why; nothing when
 * fw has no such limit or m fits it. */
static void moe_switch_denial(const struct model_spec *m, enum hp_framework fw, char *why,
			      size_t n)
{
	const struct moe_spec *e = &m->moe;
	if (!e->experts || !framework_get(fw)->moe_switch_only)
		return;
	char q[SHQ_MAX];
	const char *name = shq(q, m->name);
	if (e->top_k > 1)
		snprintf(why, n, "its MoE layer (SwitchMLP, --num-experts) routes each token "
			 "to one expert, and %s routes to %d", name, e->top_k);
	else if (e->shared_experts)
		snprintf(why, n, "its MoE layer (SwitchMLP) has no shared experts, and %s has %d",
			 name, e->shared_experts);
	else if (e->dense_layers)
		snprintf(why, n, "its MoE layer (SwitchMLP) replaces the MLP of every layer, "
			 "and %s keeps %d dense layers", name, e->dense_layers);
	else if (e->expert_ffn && e->expert_ffn != m->ffn)
		snprintf(why, n, "its experts (SwitchMLP) are the dense MLP's size "
			 "(--ffn-hidden-size %d), and %s's are %d", m->ffn, name, e->expert_ffn);
}

/* The piece pc of p as a plan of its own: its replica group alone, the
 * whole of its batch, the rest of p as it is (sub borrows p's storage;
 * r holds the group's copy). */
static void piece_plan(const struct plan *p, const struct piece *pc, struct plan *sub,
		       struct replica *r)
{
	*sub = *p;
	*r = *pc->r;
	r->batch_share = 1.0;
	sub->replicas = r;
	sub->n_replicas = 1;
	sub->gbs = pc->gbs;
}

/* The framework row whose code runs plan p's config in format f: the
 * plan's own row when it is one of the format's (hf-deepspeed at ZeRO 0
 * is still the Trainer with --deepspeed), the 2021-22 Megatron-LM a
 * Megatron format's plan names, else the format's row for p's stage. */
static enum hp_framework format_runs(const struct plan *p, enum launch_format f)
{
	if (p->framework == formats[f].zero0 || p->framework == formats[f].zero_up)
		return p->framework;
	if ((f == LAUNCH_MEGATRON || f == LAUNCH_SLURM) && p->framework == FW_MEGATRON_LM)
		return FW_MEGATRON_LM;
	return format_row_framework(f, p->zero);
}

/* A one-layout plan the format's framework cannot run as planned
 * (runs_on.c's rules: DeepSpeed's pipeline runs 1F1B only, torchtitan's
 * DDP is 1-D, ...): the config is the nearest that framework takes, and
 * the estimate is not for it. The sentence goes into deny (n bytes);
 * returns 1 when there is one. The config was written silently. */
static int framework_denial(const struct cluster *c, const struct model_spec *m,
			    const struct plan *p, enum launch_format f, const char *what,
			    char *deny, size_t n)
{
	enum hp_framework fw = format_runs(p, f);
	char why[400];
	runs_on_why_row(p, c, fw, why, sizeof why);
	/* plan_validate refuses it under Megatron's own frameworks; a plan
	 * under another one reaches the Megatron launcher here */
	if (!why[0] && (fw == FW_MEGATRON_CORE || fw == FW_MEGATRON_LM) &&
	    plan_moe_tp_without_sp(p, m, NULL, NULL))
		snprintf(why, sizeof why, "its MoE layer refuses tensor parallelism above 1 "
			 "without sequence parallelism in training, so the config turns it on");
	if (!why[0])
		moe_switch_denial(m, fw, why, sizeof why);
	if (!why[0])
		return 0;
	snprintf(deny, n, "%s does not run %s as planned: %s%s. The config is the nearest "
		 "it takes; hetplan's estimate is for the plan, not for this config.",
		 framework_get(fw)->display, what, why,
		 fw == FW_MEGATRON_LM && p->pp_layout[0]
			 ? " (--pipeline-model-parallel-layout is Megatron-Core's, not in this "
			   "version)" : "");
	return 1;
}

/* The HF Trainer format (hf-trainer): a Slurm script, as the slurm
 * format's, that runs a Trainer script such as transformers'
 * examples/pytorch/language-modeling/run_clm.py under torchrun.
 *
 * The Trainer's settings go as command-line flags, not as a
 * TrainingArguments JSON: run_clm.py-style scripts read a JSON only when
 * it is their one argument (run_clm.py @00d481d1 main: len(sys.argv) == 2
 * and a .json name, HfArgumentParser.parse_json_file), which
 * would leave no room for the user's --model_name_or_path and
 * --dataset_name; as flags they sit beside "$@". Every flag in ARGS is a
 * field of TrainingArguments (src/transformers/training_args.py at
 * huggingface/transformers 00349ae87edd; tests/data/hf_training_args.txt):
 * HfArgumentParser makes each field a --name flag, and a bare bool flag
 * means true. DATA_ARGS holds run_clm.py's own (--block_size).
 *
 * ZeRO 1-3 run through DeepSpeed: the deepspeed format's config
 * (deepspeed_config), written by the script to a file that --deepspeed
 * names. The Trainer checks the keys it also sets
 * (integrations/deepspeed.py @02348331, trainer_config_process:
 * train_micro_batch_size_per_gpu, gradient_accumulation_steps,
 * train_batch_size, gradient_clipping, fp16.enabled, bf16.enabled must
 * match per_device_train_batch_size, gradient_accumulation_steps, world
 * size x both, max_grad_norm, --fp16, --bf16, or it stops): the config
 * states them and ARGS gives the same values. A plan under
 * hf-transformers (ZeRO 0) runs the Trainer's DDP, no DeepSpeed. */

/* The formats whose framework runs p as planned (runs_on_mask: RUNS ON),
 * "megatron, slurm, torchtitan", or "none (RUNS ON none: a
 * heterogeneity-aware runtime)", into buf (n bytes). */
static char *formats_that_run(const struct cluster *c, const struct plan *p, char *buf, size_t n)
{
	unsigned mask = runs_on_mask(p, c, NULL, 0);
	snprintf(buf, n, "%s%s%s",
		 mask & ((1u << FW_MEGATRON_CORE) | (1u << FW_MEGATRON_LM)) ? "megatron, slurm" : "",
		 mask & (1u << FW_DEEPSPEED) ? (mask & ((1u << FW_MEGATRON_CORE) | (1u << FW_MEGATRON_LM)) ? ", deepspeed" : "deepspeed") : "",
		 mask & (1u << FW_TORCHTITAN)
			 ? (mask & ((1u << FW_MEGATRON_CORE) | (1u << FW_MEGATRON_LM) |
				    (1u << FW_DEEPSPEED)) ? ", torchtitan" : "torchtitan")
			 : "");
	if (!buf[0])
		snprintf(buf, n, "none (RUNS ON none: it needs a heterogeneity-aware runtime)");
	return buf;
}

/* -1 with err (HP_EXIT_INPUT, naming the flag) for what the Trainer's
 * data parallelism cannot run; pcs: the plan's np pieces. */
static int hf_refuses(const struct cluster *c, const struct plan *p, const struct piece *pcs,
		      int np, struct hp_err *err)
{
	const char *pre = "launch --format hf-trainer";
	char why[300], fmts[160];
	formats_that_run(c, p, fmts, sizeof fmts);
	if (np > 1)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: the plan has %d replica groups that differ (GPU type, pool, "
				  "layout or batch share: --pool, plan \"replicas\"); the HF Trainer "
				  "runs one data-parallel group of identical ranks with the batch split "
				  "evenly; formats that run it: %s", pre, np, fmts);
	const struct piece *pc = &pcs[0];
	if (framework_layout_refusal(FW_HF, pc->tp, pc->pp, why, sizeof why) < 0)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: --%s %d: %s; formats that run it: %s", pre,
				  pc->tp > 1 ? "tp" : "pp", pc->tp > 1 ? pc->tp : pc->pp, why, fmts);
	if (p->cp > 1 || p->ep > 1)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: --%s %d: hetplan writes the HF Trainer's data parallelism only "
				  "(DDP, DeepSpeed ZeRO), without %s parallelism: use --%s 1; formats "
				  "that run it: %s", pre,
				  p->cp > 1 ? "cp" : "ep", p->cp > 1 ? p->cp : p->ep,
				  p->cp > 1 ? "context" : "expert", p->cp > 1 ? "cp" : "ep", fmts);
	if (p->schedule == SCHED_INTERLEAVED || p->vpp > 1)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: --schedule interleaved: the HF Trainer has no pipeline, so no "
				  "interleaved schedule: use --schedule 1f1b; formats that run it: %s",
				  pre, fmts);
	if (pc->gbs % HP_MAX(p->mbs * pc->dp, 1))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: --gbs %d is not a multiple of --mbs %d x DP %d: the Trainer's "
				  "batch is per_device_train_batch_size x gradient_accumulation_steps x "
				  "world size", pre, pc->gbs, p->mbs, pc->dp);
	return 0;
}

/* The TrainingArguments flags of ARGS (see above), one a line after ind. */
static void hf_args(struct sbuf *b, const struct model_spec *m, const struct plan *p,
		    const struct piece *pc, double tokens, int ds, const char *ind)
{
	sbuf_addf(b, "%s--do_train\n%s--output_dir \"$OUTPUT_DIR\"\n", ind, ind);
	sbuf_addf(b, "%s--per_device_train_batch_size %d\n", ind, p->mbs);
	sbuf_addf(b, "%s--gradient_accumulation_steps %d\n", ind,
		  pc->gbs / HP_MAX(p->mbs * pc->dp, 1));
	/* optimizer steps: the Trainer counts one per accumulated batch */
	sbuf_addf(b, "%s--max_steps %lld\n", ind, plan_steps(m, p, tokens));
	/* deepspeed_config's gradient_clipping; the Trainer's default too */
	sbuf_addf(b, "%s--max_grad_norm 1.0\n", ind);
	/* the plan's Adam (plan key optimizer_impl): TrainingArguments.optim
	 * at transformers @00349ae8, "adamw_torch_fused" (torch.optim.AdamW
	 * fused=True) or "adamw_torch" (its foreach default); the per-tensor
	 * loop, transformers.AdamW ("adamw_hf" until 4.32), is gone there:
	 * hf_notes says the run takes adamw_torch. Under DeepSpeed with an
	 * "optimizer" section in its config (ZeRO-Offload) the section wins. */
	if (!(ds && p->offload == OFFLOAD_OPTIMIZER))
		sbuf_addf(b, "%s--optim %s\n", ind,
			  plan_opt_impl(p) == OPT_IMPL_FUSED ? "adamw_torch_fused" : "adamw_torch");
	if (p->precision == HP_BF16 || p->precision == HP_FP8)
		sbuf_addf(b, "%s--bf16\n", ind);
	else if (p->precision == HP_FP16)
		sbuf_addf(b, "%s--fp16\n", ind);
	else   /* fp32 tensors; TF32 GEMMs as the estimate assumed or not */
		sbuf_addf(b, "%s--tf32 %s\n", ind, p->precision == HP_TF32 ? "true" : "false");
	/* the Trainer's checkpointing recomputes every block (framework.c
	 * hf-transformers: recompute full) */
	if (p->recompute == RC_FULL)
		sbuf_addf(b, "%s--gradient_checkpointing\n", ind);
	/* loss chunked: TrainingArguments.use_liger_kernel (bool, default
	 * False; tests/data/hf_training_args.txt) patches the model with
	 * Liger's kernels, among them the fused linear cross-entropy that
	 * never holds the whole logits, as the plan's memory assumes
	 * (perf_mem.c); hf_notes names the package it needs */
	if (p->loss == LOSS_CHUNKED)
		sbuf_addf(b, "%s--use_liger_kernel\n", ind);
	if (ds)
		sbuf_addf(b, "%s--deepspeed \"$DS_CONFIG\"\n", ind);
}

/* deepspeed_config for the Trainer: its recomputation is
 * --gradient_checkpointing (torch.utils.checkpoint), not DeepSpeed's
 * activation_checkpointing section; fp32 said outright, since the
 * Trainer reads a config without fp16.enabled false as fp16 when it
 * picks the dtype to load the model in (trainer_config_process); under
 * offload, DeepSpeed's AdamW, which it runs on the host as
 * DeepSpeedCPUAdam (as the estimate costs it, perf_offload.c), its
 * hyper-parameters "auto": the Trainer fills them from learning_rate,
 * adam_beta1/2, adam_epsilon and weight_decay. */
static cJSON *hf_deepspeed_config(const struct plan *p, const struct piece *pc)
{
	cJSON *o = deepspeed_config(p, pc);
	cJSON_DeleteItemFromObject(o, "activation_checkpointing");
	if (p->precision == HP_TF32 || p->precision == HP_FP32)
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(o, "fp16"), "enabled", 0);
	if (p->offload == OFFLOAD_OPTIMIZER) {
		cJSON *opt = cJSON_AddObjectToObject(o, "optimizer");
		cJSON_AddStringToObject(opt, "type", "AdamW");
		cJSON *pa = cJSON_AddObjectToObject(opt, "params");
		static const char *const autos[] = { "lr", "betas", "eps", "weight_decay" };
		for (size_t i = 0; i < HP_ARRAY_LEN(autos); i++)
			cJSON_AddStringToObject(pa, autos[i], "auto");
	}
	return o;
}

/* What the Trainer does differently from the plan, one line each. */
static void hf_notes(struct sbuf *n, const struct model_spec *m, const struct plan *p)
{
	if (p->recompute == RC_FULL && p->recompute_layers > 0 && p->recompute_layers < m->layers)
		sbuf_addf(n, "HF Trainer: --gradient_checkpointing recomputes every layer, not the "
			  "plan's %d of %d: check with hetplan estimate --recompute-layers 0.\n",
			  p->recompute_layers, m->layers);
	if (p->recompute == RC_SELECTIVE || p->recompute == RC_SELECTIVE_OP)
		sbuf_add(n, "HF Trainer: no selective recomputation; no --gradient_checkpointing is "
			    "written (it recomputes whole layers: hetplan estimate --recompute full).\n");
	if (p->precision == HP_FP8)
		sbuf_add(n, "HF Trainer: no FP8 training flag; --bf16 is written and the estimate "
			    "(FP8 GEMMs) is faster than the run.\n");
	if (plan_opt_impl(p) == OPT_IMPL_LOOP)
		sbuf_add(n, "HF Trainer: the plan's per-tensor Adam loop (transformers.AdamW, "
			    "--optim adamw_hf before transformers 4.32) is not in the Trainer this "
			    "script targets; --optim adamw_torch (foreach) is written, and the run "
			    "is faster than the estimate by the loop's launches.\n");
}

/* The step hetplan estimates for the Trainer's script, with the row the
 * plan carries (launch_format_framework: hf-transformers at ZeRO 0,
 * hf-deepspeed at ZeRO 1-3 when none was named), as a note: the same
 * number `hetplan estimate` prints for the plan. Nothing when the
 * estimate fails (launch's memory check has said why). */
static void hf_step_note(struct sbuf *n, const struct cluster *c, const struct model_spec *m,
			 const struct plan *p)
{
	struct estimate est;
	struct hp_err err = { 0 };
	if (perf_estimate(c, m, p, NULL, &est, &err) < 0)
		return;
	char d[32];
	sbuf_addf(n, "HF Trainer: estimated step %s, as --framework %s (%s).\n",
		  hp_fmt_duration(d, sizeof d, est.step_time_s), framework_name(p->framework),
		  framework_get(p->framework)->display);
	estimate_free(&est);
}

static void hf_trainer_script(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			      const struct plan *p, const struct piece *pc, double tokens,
			      const char *version, const char *deny, struct sbuf *notes)
{
	struct node_layout nl = piece_nodes(c, p, pc);
	/* ZeRO above 0 is DeepSpeed's under the Trainer, whatever the row */
	int ds = p->framework != FW_HF || p->zero >= 1;
	char jn[64], q[SHQ_MAX];
	job_name(jn, sizeof jn, m);
	sbuf_addf(b, "#!/bin/bash\n#SBATCH --job-name=%s\n#SBATCH --nodes=%d\n"
		  "#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=%d\n#SBATCH --exclusive\n",
		  jn, nl.nodes, nl.gpn);
	sbuf_addf(b, "# HF Trainer script for %s, generated by hetplan %s.\n", mname(q, m),
		  version ? version : "");
	if (deny[0])
		comment_wrapped(b, "# ", "# ", deny, strlen(deny));
	piece_header(b, c, m, p, pc);
	if (ds)
		sbuf_addf(b, "# The Trainer with DeepSpeed ZeRO-%d: the config below, written to "
			  "$OUTPUT_DIR.\n", p->zero);
	else
		sbuf_add(b, "# The Trainer with PyTorch DDP (ZeRO 0, no DeepSpeed).\n");
	sbuf_addf(b, "# Environment: PyTorch (torchrun) and transformers at 00349ae87edd%s on every "
		  "node, with\n# run_clm.py or a script like it as TRAIN_SCRIPT; start this script "
		  "inside that environment.\n", ds ? ", DeepSpeed" : "");
	sbuf_add(b, "# ARGS: TrainingArguments (transformers training_args.py @00349ae87edd);\n"
		    "# DATA_ARGS: run_clm.py's own. OUTPUT_DIR must be on a file system every node "
		    "reads.\n#\n# Usage: TRAIN_SCRIPT=/path/to/run_clm.py OUTPUT_DIR=/shared/dir "
		    "sbatch THIS_SCRIPT \\\n#\t--model_name_or_path ... --dataset_name ...\n"
		    "set -euo pipefail\nTRAIN_SCRIPT=${TRAIN_SCRIPT:-run_clm.py}\n");
	sbuf_addf(b, "OUTPUT_DIR=${OUTPUT_DIR:-%s}\n", shq(q, jn));
	sbuf_add(b, MASTER_ADDR_LINE("SLURM_JOB_NODELIST")
		    "MASTER_PORT=${MASTER_PORT:-29500}\n");
	nccl_env_lines(b, c, pc);
	sbuf_add(b, "mkdir -p \"$OUTPUT_DIR\"\n");
	if (ds) {
		/* a quoted delimiter: the JSON goes in as it is */
		cJSON *o = hf_deepspeed_config(p, pc);
		char *js = esc_json_print(o);
		cJSON_Delete(o);
		sbuf_addf(b, "DS_CONFIG=$OUTPUT_DIR/ds_config.json\n"
			  "cat > \"$DS_CONFIG\" <<'HETPLAN_DS_CONFIG'\n%s\nHETPLAN_DS_CONFIG\n", js);
		free(js);
	}
	sbuf_add(b, "\nARGS=(\n");
	hf_args(b, m, p, pc, tokens, ds, "\t");
	sbuf_addf(b, ")\nDATA_ARGS=(--block_size %d)\n\n", p->seq_len ? p->seq_len : m->seq_len);
	torchrun_lines(b, &nl, "TRAIN_SCRIPT", "\"$TRAIN_SCRIPT\"",
		       "\"${DATA_ARGS[@]}\" \"${ARGS[@]}\"");
	hf_notes(notes, m, p);
}

void launch_nofit_text(const struct estimate *e, const struct cluster *c, char *buf, size_t n)
{
	if (e->fits)
		return;
	char nb[32], cb[32], ob[32];
	const struct perf_offload *f = &e->offload;
	if (f->host_over && e->worst_stage < 0) {
		/* the GPUs hold the plan; the host does not hold what it
		 * offloads (perf_offload_host_nodes); host_mem_gb as the user
		 * gave it, as estimate prints it */
		snprintf(buf, n, "the plan does not fit in host memory: its offload needs %s of "
			 "pinned host memory a node of pool %s, more than the %s usable of its "
			 "%g GB (pool key host_mem_gb)",
			 hp_fmt_bytes(nb, sizeof nb, f->host_bytes_per_node),
			 f->host_pool >= 0 && f->host_pool < c->n_pools ? c->pools[f->host_pool].name
									 : "?",
			 hp_fmt_bytes(cb, sizeof cb, f->host_usable_bytes), f->host_mem_bytes / 1e9);
		return;
	}
	hp_fmt_bytes(ob, sizeof ob, e->worst_over_bytes);
	if (!e->stages || e->worst_stage < 0 || e->worst_stage >= e->n_stages) {
		snprintf(buf, n, "the plan does not fit in GPU memory (%s over)", ob);
		return;
	}
	const struct perf_stage *ws = &e->stages[e->worst_stage];
	snprintf(buf, n, "the plan does not fit in GPU memory: stage %d of replica group %d on %s "
		 "needs %s per GPU, %s more than its %s",
		 ws->index, ws->group, c->pools[ws->pool].gpu.name,
		 hp_fmt_bytes(nb, sizeof nb, ws->total - ws->slack), ob,
		 hp_fmt_bytes(cb, sizeof cb, ws->capacity));
}

/* What launch_render refuses to write for p as format f (launch.h):
 * -1 with err (HP_EXIT_USAGE, naming the flag), else 0. */
static int render_refuses(const struct cluster *c, const struct plan *p, enum launch_format f,
			  const struct piece *pcs, int np, struct hp_err *err)
{
	/* The estimate hid the parameter all-gather behind the forward while
	 * the gradient reduce stayed exposed; Megatron takes
	 * --overlap-param-gather only beside --overlap-grad-reduce
	 * (arguments.py @d98e8a64 L1024-1029: "Must use
	 * --overlap-param-gather with --overlap-grad-reduce"), so no Megatron
	 * config runs what was costed. (At ZeRO 0 nothing is gathered.) */
	if ((f == LAUNCH_MEGATRON || f == LAUNCH_SLURM) && p->zero >= 1 &&
	    plan_param_overlap(p) && !plan_grad_overlap(p))
		return hp_err_set(err, HP_EXIT_USAGE,
				  "launch: --param-overlap on with --grad-overlap off (plan keys "
				  "param_overlap, grad_overlap): Megatron-LM accepts "
				  "--overlap-param-gather only with --overlap-grad-reduce, so no "
				  "Megatron config runs the plan as estimated; give --grad-overlap on "
				  "or --param-overlap off");
	/* Activation offload is Megatron-Core's (--cpu-offloading-num-layers):
	 * the other formats' frameworks have no setting that runs it */
	if (p->offload == OFFLOAD_ACTIVATIONS && f != LAUNCH_MEGATRON && f != LAUNCH_SLURM)
		return hp_err_set(err, HP_EXIT_USAGE,
				  "launch: offload activations (plan keys offload, offload_layers) "
				  "is Megatron-Core's --cpu-offloading-num-layers; format %s has no "
				  "setting for it, so no config it writes runs the plan as "
				  "estimated: use --format megatron or slurm, or --offload none",
				  formats[f].name);
	if (f == LAUNCH_HF_TRAINER && hf_refuses(c, p, pcs, np, err) < 0)
		return -1;
	/* the formats that place ranks on nodes (DeepSpeed's JSON does not) */
	for (int i = 0; i < np && f != LAUNCH_DEEPSPEED; i++) {
		struct node_layout nl = piece_nodes(c, p, &pcs[i]);
		if (nl.nodes)
			continue;
		const struct pool *pl = &c->pools[pcs[i].pool];
		int world = pcs[i].tp * pcs[i].pp * p->cp * pcs[i].dp;
		int n = (world + pl->gpus_per_node - 1) / pl->gpus_per_node;
		char q[SHQ_MAX];
		return hp_err_set(err, HP_EXIT_USAGE,
				  "launch: --tp %d: %d GPUs on %d nodes of pool %s (%d GPUs a node) "
				  "split neither evenly nor into whole TP groups a node, so torchrun "
				  "cannot start the plan's ranks with every TP group inside a node; "
				  "give a --tp that divides %d", pcs[i].tp, world, n,
				  shq(q, pl->name), pl->gpus_per_node, pl->gpus_per_node);
	}
	return 0;
}

/* The deepspeed format into b: the config, or for a heterogeneous plan one
 * per piece with what stock frameworks cannot express (lim); each
 * distinct note of the pieces into nb. */
static void deepspeed_render(struct sbuf *b, struct sbuf *nb, const struct cluster *c,
			     const struct model_spec *m, const struct plan *p,
			     const struct piece *pcs, int np, int hetero, const char *lim,
			     char (*pdeny)[900])
{
	cJSON *o;
	if (!hetero) {
		o = deepspeed_config(p, &pcs[0]);
	} else {
		o = cJSON_CreateObject();
		cJSON *arr = cJSON_AddArrayToObject(o, "pieces");
		for (int i = 0; i < np; i++) {
			cJSON *po = cJSON_CreateObject();
			cJSON_AddNumberToObject(po, "replica_group", pcs[i].group);
			cJSON_AddStringToObject(po, "pool", c->pools[pcs[i].pool].name);
			cJSON_AddNumberToObject(po, "replicas", pcs[i].dp);
			if (pdeny[i][0])
				cJSON_AddStringToObject(po, "not_as_planned", pdeny[i]);
			cJSON_AddItemToObject(po, "config", deepspeed_config(p, &pcs[i]));
			cJSON_AddItemToArray(arr, po);
		}
		cJSON *ce = cJSON_AddArrayToObject(o, "cannot_express");
		for (const char *s = lim; *s;) {
			const char *e = strchr(s, '\n');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			char *line = xmalloc(n + 1);
			memcpy(line, s, n);
			line[n] = '\0';
			cJSON_AddItemToArray(ce, cJSON_CreateString(line));
			free(line);
			s += n + (e != NULL);
		}
	}
	/* a note per distinct sentence: pieces of one plan share its EP
	 * and often their TP and PP */
	for (int i = 0; i < np; i++) {
		struct sbuf pn;
		sbuf_init(&pn);
		deepspeed_notes(&pn, m, p, &pcs[i]);
		add_new_lines(nb, pn.s ? pn.s : "");
		sbuf_done(&pn);
	}
	char *s = esc_json_print(o);
	cJSON_Delete(o);
	sbuf_add(b, s);
	sbuf_add(b, "\n");
	free(s);
}

int launch_format_refuses(const struct cluster *c, const struct plan *p, enum launch_format f,
			  struct hp_err *err)
{
	if (f != LAUNCH_HF_TRAINER)
		return 0;
	struct sbuf nb;
	sbuf_init(&nb);
	int hetero = limits(c, p, &nb) > 0;
	sbuf_done(&nb);
	struct piece pcs[64];
	int np = make_pieces(c, p, hetero, pcs, (int)HP_ARRAY_LEN(pcs));
	return hf_refuses(c, p, pcs, np, err);
}

/* ---- What the plan costs and leaves free, in every output ---- */

/* The share of each GPU's memory the plan keeps free unless told
 * otherwise: `hetplan plan --mem-headroom` and `estimate`'s default
 * (ui/cmd_plan.c, ui/cmd_estimate.c: 0.05). Launch reads the memory
 * verdict at it, so the line says what `estimate` says of the plan. */
#define LAUNCH_MEM_HEADROOM 0.05

/* The plan's estimate as lines, each after pre ("# " in a script or an
 * argument list, "hetplan launch: " on standard error): step time,
 * tokens/s and MFU; with_cost, $/h and $ per step (the price an hour x
 * the step / 3600 s, prices as the caller loaded the cluster: `hetplan
 * launch` the file's, else the catalog's reference, as `hetplan estimate
 * --no-price-book`; the TUI its workspace's, whose saved prices may differ
 * in the cent, so the files the two write leave the cost out and stay
 * byte for byte the same); memory: estimate's verdict at the default
 * headroom and, per pool, its fullest stage (largest share of its GPU,
 * the caching allocator's reserve included, as estimate's memory line)
 * with what it leaves free. Nothing when the estimate fails (launch's
 * memory check said why). */
void launch_estimate_lines(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			   const struct plan *p, const char *pre, int with_cost)
{
	struct estimate est;
	struct hp_err err = { 0 };
	if (perf_estimate(c, m, p, NULL, &est, &err) < 0)
		return;
	char d[32], t[32], u[32], s[32];
	sbuf_addf(b, "%sEstimate (hetplan estimate of this plan): step %s, "
		  "%s tokens/s, MFU %.1f%%\n", pre, hp_fmt_duration(d, sizeof d, est.step_time_s),
		  hp_fmt_count(t, sizeof t, est.tokens_per_s), 100 * est.mfu);
	int used[HP_MAX_POOLS];
	plan_gpus(p, used);
	if (!with_cost) {
		;
	} else if (est.price_known) {
		sbuf_addf(b, "%sCost: %s/h = $%s per step (%s x %.2f s / 3600 s)\n", pre,
			  table_usd(u, sizeof u, est.usd_per_hour, 0),
			  table_rate(s, sizeof s, est.usd_per_hour * est.step_time_s / 3600, 0),
			  table_usd((char[32]){ 0 }, 32, est.usd_per_hour, 0), est.step_time_s);
		/* where each price came from, in `hetplan estimate`'s words
		 * (its "prices" lines): the caller's cluster may be priced
		 * otherwise than plan's and estimate's default price book, so
		 * a $/h that differs from theirs says why */
		for (int q = 0; q < c->n_pools; q++)
			if (used[q] && pool_price_known(&c->pools[q])) {
				char q1[SHQ_MAX];
				sbuf_addf(b, "%s  price of pool %s: $%s/node-h from ", pre,
					  shq(q1, c->pools[q].name),
					  table_rate(s, sizeof s, c->pools[q].usd_per_node_h, 0));
				esc_term(b, c->pools[q].price_source);
				sbuf_add(b, "\n");
			}
	} else {
		/* the pools without one, as estimate names them */
		sbuf_addf(b, "%sCost: unknown: no price for pool", pre);
		for (int q = 0, k = 0; q < c->n_pools; q++)
			if (used[q] && !pool_price_known(&c->pools[q])) {
				char q1[SHQ_MAX];
				sbuf_addf(b, "%s %s", k++ ? "," : "", shq(q1, c->pools[q].name));
			}
		sbuf_add(b, " (cluster key price_per_node_hour, or --pool ...,price=USD)\n");
	}
	sbuf_addf(b, "%sMemory: %s at %.0f%% headroom; each pool's fullest stage, with the "
		  "allocator's reserve:\n", pre, search_mem_verdict(&est, LAUNCH_MEM_HEADROOM),
		  100 * LAUNCH_MEM_HEADROOM);
	for (int q = 0; q < c->n_pools; q++) {
		const struct perf_stage *w = NULL;
		for (int i = 0; i < est.n_stages; i++) {
			const struct perf_stage *st = &est.stages[i];
			if (st->pool == q && st->capacity > 0 &&
			    (!w || st->total / st->capacity > w->total / w->capacity))
				w = st;
		}
		if (!w)
			continue;
		char q1[SHQ_MAX], nb[32], cb[32], fb[32];
		double free_b = w->capacity - w->total;
		/* in the words of `hetplan plan`'s detail ("fullest stage 51.1
		 * GiB of 79.6 GiB (64%), 28.6 GiB free"): the percentage is the
		 * share used, beside the capacity, not the share left */
		sbuf_addf(b, "%s  pool %s: stage %d of group %d, %s of %s (%.0f%%), %s %s\n", pre,
			  shq(q1, c->pools[q].name), w->index, w->group,
			  hp_fmt_bytes(nb, sizeof nb, w->total), hp_fmt_bytes(cb, sizeof cb, w->capacity),
			  100 * w->total / w->capacity, hp_fmt_bytes(fb, sizeof fb, fabs(free_b)),
			  free_b >= 0 ? "free" : "over");
	}
	estimate_free(&est);
}

/* ---- One job over several pools: a Slurm heterogeneous job ----
 *
 * Megatron-Core runs one program on every rank and does not ask what GPU
 * a rank has: a plan whose replica groups share one layout (the same
 * stages, layer ranges and TP), whose replicas take equal batch shares
 * and whose its ranks sit on more than one pool runs as one job as long as
 * each stage's ranks start on that stage's pool. Its uneven stages are
 * Megatron's own flags (--decoder-first-pipeline-num-layers,
 * --decoder-last-pipeline-num-layers, --pipeline-model-parallel-layout:
 * megatron/training/arguments.py @d98e8a64 L3095-3112, as
 * megatron_parallel_args picks them).
 *
 * Rank order: Megatron-Core numbers a rank tp + TP x (cp + CP x (dp + DP
 * x pp)) (parallel_state.py @d98e8a64 L617, initialize_model_parallel's
 * order "tp-cp-ep-dp-pp"; the experts' EP is a second decomposition of
 * the same ranks inside each stage), so stage s holds ranks s x TP x CP x
 * DP onwards, its replicas group by group. Each run of consecutive ranks
 * on one pool is a component of the Slurm job (#SBATCH hetjob between
 * them), in rank order.
 *
 * How rank -> node is fixed: one srun step spans every component (srun
 * --het-group=0 ... : --het-group=1 ...), and Slurm numbers its tasks
 * with non-overlapping SLURM_PROCIDs component by component, component 0
 * first (Slurm's heterogeneous_jobs.html, "Launching Applications (Job
 * Steps)" and "Examples"); with one task a node and block distribution,
 * SLURM_PROCID is the node's place in rank order. torchrun takes it as
 * --node-rank with --master-addr/--master-port (static rendezvous, the
 * default of --rdzv-backend in torch/distributed/run.py; no c10d
 * ordering), and its agents number the workers node by node: a
 * worker's rank is the lower nodes' processes summed plus its local rank
 * (torch/distributed/elastic/agent/server/api.py, _assign_worker_ranks).
 * Megatron reads RANK and WORLD_SIZE from torchrun (arguments.py @d98e8a64
 * L144-145). */
#define HETJOB_MAX 16

struct het_comp {
	int pool;
	int first_rank, ranks;
	int first_stage, last_stage;
	int first_node;           /* torchrun --node-rank of its first node */
	struct node_layout nl;
};

struct hetjob {
	int n, world, nodes, block;   /* block: TP x CP ranks of one (stage, replica) */
	struct het_comp comp[HETJOB_MAX];
};

/* Pools p places a stage on. */
static int pools_used(const struct plan *p)
{
	int used[HP_MAX_POOLS], n = 0;
	plan_gpus(p, used);
	for (int i = 0; i < HP_MAX_POOLS; i++)
		n += used[i] > 0;
	return n;
}

/* 1 with hj when Megatron-Core runs p, which uses more than one pool, as
 * one job in format f (megatron, slurm); 2 when it would but f is another
 * format; else, with why (n bytes), 0 when no stock framework runs p as
 * one job (why "" when p uses one pool), -1 when Megatron-Core would but
 * hetplan cannot write the job (another framework named, one flash flag
 * for GPUs that differ, no shared network, ranks that do not fill whole
 * nodes of the pools). */
static int hetjob_of(const struct cluster *c, const struct plan *p, enum launch_format f,
		     struct hetjob *hj, char *why, size_t n)
{
	why[0] = '\0';
	if (pools_used(p) < 2)
		return 0;
	const struct replica *r0 = &p->replicas[0];
	char q1[SHQ_MAX], q2[SHQ_MAX];
	/* what stock data parallelism and Megatron's one set of degrees
	 * cannot hold (runs_on.c's shared rules, less the GPU type) */
	for (int g = 1; g < p->n_replicas; g++)
		if (!runs_on_same_layout(&p->replicas[g], r0)) {
			snprintf(why, n, "replica groups 0 and %d have different pipeline layouts "
				 "(stages, TP or layer ranges), and Megatron's data parallelism "
				 "replicates one layout", g);
			return 0;
		}
	for (int s = 1; s < r0->n_stages; s++)
		if (r0->stages[s].tp != r0->stages[0].tp) {
			snprintf(why, n, "its stages differ in TP (%d and %d), and Megatron takes one "
				 "--tensor-model-parallel-size", r0->stages[0].tp, r0->stages[s].tp);
			return 0;
		}
	for (int g = 1; g < p->n_replicas; g++)
		if (fabs(p->replicas[g].batch_share - r0->batch_share) > 1e-9 * r0->batch_share) {
			snprintf(why, n, "its replicas take %.4g%% and %.4g%% of the batch, and Megatron "
				 "gives every data-parallel rank global batch / (micro-batch x DP) "
				 "micro-batches (one count for all)", 100 * r0->batch_share,
				 100 * p->replicas[g].batch_share);
			return 0;
		}
	if (f != LAUNCH_MEGATRON && f != LAUNCH_SLURM)
		return 2;   /* Megatron's formats would take it */
	if (format_runs(p, f) != FW_MEGATRON_CORE) {
		snprintf(why, n, "the plan names %s; hetplan writes the job over pools for "
			 "Megatron-Core (--framework megatron-core or any)",
			 framework_get(format_runs(p, f))->display);
		return -1;
	}
	/* one job, one setting of what differs by GPU: --use-flash-attn and
	 * the network NCCL loads (one net plugin a process, and the pipeline's
	 * and the embedding's groups cross the pools) */
	int first = r0->stages[0].pool;
	for (int g = 0; g < p->n_replicas; g++)
		for (int s = 0; s < r0->n_stages; s++) {
			const struct pool *a = &c->pools[first];
			const struct pool *b = &c->pools[p->replicas[g].stages[s].pool];
			if (p->flash && hp_gen_sm80(a->gpu.gen) != hp_gen_sm80(b->gpu.gen)) {
				snprintf(why, n, "flash attention runs on %.80s but not on %.80s, and one job "
					 "takes one --use-flash-attn", shq80(q1, hp_gen_sm80(a->gpu.gen) ?
					 a->gpu.name : b->gpu.name), shq80(q2, hp_gen_sm80(a->gpu.gen) ?
					 b->gpu.name : a->gpu.name));
				return -1;
			}
			if (a->transport != b->transport) {
				snprintf(why, n, "pools %.80s (%s) and %.80s (%s) share no network transport: NCCL "
					 "loads one per process, and the pipeline's groups cross the pools",
					 shq80(q1, a->name), comm_transport_name(a->transport),
					 shq80(q2, b->name), comm_transport_name(b->transport));
				return -1;
			}
		}
	/* runs of consecutive ranks on one pool, in Megatron's order */
	memset(hj, 0, sizeof *hj);
	hj->block = r0->stages[0].tp * p->cp;
	int rank = 0;
	for (int s = 0; s < r0->n_stages; s++)
		for (int g = 0; g < p->n_replicas; g++) {
			int pool = p->replicas[g].stages[s].pool;
			int ranks = p->replicas[g].count * hj->block;
			struct het_comp *k = hj->n ? &hj->comp[hj->n - 1] : NULL;
			if (k && k->pool == pool) {
				k->ranks += ranks;
				k->last_stage = s;
			} else {
				if (hj->n == HETJOB_MAX) {
					snprintf(why, n, "its ranks change pool more than %d times in "
						 "Megatron's rank order", HETJOB_MAX);
					return -1;
				}
				k = &hj->comp[hj->n++];
				*k = (struct het_comp){ .pool = pool, .first_rank = rank, .ranks = ranks,
							.first_stage = s, .last_stage = s };
			}
			rank += ranks;
		}
	hj->world = rank;
	int nodes_of[HP_MAX_POOLS] = { 0 };
	for (int i = 0; i < hj->n; i++) {
		struct het_comp *k = &hj->comp[i];
		const struct pool *pl = &c->pools[k->pool];
		if (!launch_nodes(pl->gpus_per_node, k->ranks, r0->stages[0].tp, &k->nl)) {
			snprintf(why, n, "component %d's %d ranks on pool %.80s (%d GPUs a node) split "
				 "neither evenly nor into whole TP %d groups a node", i, k->ranks,
				 shq80(q1, pl->name), pl->gpus_per_node, r0->stages[0].tp);
			return -1;
		}
		k->first_node = hj->nodes;
		hj->nodes += k->nl.nodes;
		nodes_of[k->pool] += k->nl.nodes;
		int have = pl->nodes_max > pl->nodes ? pl->nodes_max : pl->nodes;
		if (nodes_of[k->pool] > have) {
			snprintf(why, n, "its components ask for %d nodes of pool %.80s, which has %d "
				 "(whole nodes per run of ranks)", nodes_of[k->pool], shq80(q1, pl->name),
				 have);
			return -1;
		}
	}
	return 1;
}

/* The pool name as a Slurm partition word: letters, digits, '-', '_'
 * and '.' kept, anything else '_' (a #SBATCH line is sbatch's to parse,
 * not the shell's). Returns 1 when the name changed. */
static int partition_word(char *buf, size_t n, const char *name)
{
	int changed = 0;
	snprintf(buf, n, "%s", name);
	for (char *s = buf; *s; s++)
		if (!(((*s | 32) >= 'a' && (*s | 32) <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.')) {
			*s = '_';
			changed = 1;
		}
	if (!buf[0]) {
		snprintf(buf, n, "_");
		changed = 1;
	}
	return changed;
}

/* Comment lines: the job's shape and which ranks, nodes and stages each
 * component holds (the rank formula above, worked for this plan). */
static void hetjob_header(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			  const struct plan *p, const struct piece *pc, const struct hetjob *hj)
{
	char q1[SHQ_MAX], q2[SHQ_MAX];
	int tp = pc->tp, dp = pc->dp;
	int vp = p->schedule == SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 1;
	sbuf_addf(b, "# One job over %d pools: TP %d x PP %d", pools_used(p), tp, pc->pp);
	if (p->cp > 1)
		sbuf_addf(b, " x CP %d", p->cp);
	sbuf_addf(b, " x DP %d = %d GPUs on %d nodes\n", dp, hj->world, hj->nodes);
	int mb = pc->gbs / HP_MAX(p->mbs * dp, 1);
	sbuf_addf(b, "# %d sequences of %d tokens per step = micro-batch %d x %d micro-batches x "
		  "DP %d\n", pc->gbs, p->seq_len ? p->seq_len : m->seq_len, p->mbs, mb, dp);
	sbuf_add(b, "# Ranks in Megatron-Core's order tp-cp-ep-dp-pp (parallel_state.py @"
		    LAUNCH_MEGATRON_COMMIT "): rank =\n");
	if (p->cp > 1)
		sbuf_addf(b, "#   tp + %d x (cp + %d x (dp + %d x stage)): stage s holds ranks "
			  "%d x s to %d x s + %d\n", tp, p->cp, dp, hj->block * dp, hj->block * dp,
			  hj->block * dp - 1);
	else
		sbuf_addf(b, "#   tp + %d x (dp + %d x stage): stage s holds ranks %d x s to %d x s + "
			  "%d\n", tp, dp, hj->block * dp, hj->block * dp, hj->block * dp - 1);
	for (int i = 0; i < hj->n; i++) {
		const struct het_comp *k = &hj->comp[i];
		const struct pool *pl = &c->pools[k->pool];
		sbuf_addf(b, "# Component %d: pool %s (%s), ", i, shq(q1, pl->name),
			  shq(q2, pl->gpu.name));
		if (k->nl.last == k->nl.gpn)
			sbuf_addf(b, "%d node%s x %d GPUs", k->nl.nodes, k->nl.nodes > 1 ? "s" : "",
				  k->nl.gpn);
		else
			sbuf_addf(b, "%d nodes: %d x %d GPUs and 1 x %d", k->nl.nodes, k->nl.nodes - 1,
				  k->nl.gpn, k->nl.last);
		if (k->nl.nodes > 1)
			sbuf_addf(b, ", node ranks %d-%d", k->first_node,
				  k->first_node + k->nl.nodes - 1);
		else
			sbuf_addf(b, ", node rank %d", k->first_node);
		sbuf_addf(b, ", ranks %d-%d: stage%s %d", k->first_rank, k->first_rank + k->ranks - 1,
			  k->last_stage > k->first_stage ? "s" : "", k->first_stage);
		if (k->last_stage > k->first_stage)
			sbuf_addf(b, "-%d", k->last_stage);
		/* Interleaved, a stage's layer range is a count (plan.h
		 * pp_layout): Megatron gives pipeline rank s the model chunks
		 * of virtual stages s, s + PP, s + 2 PP, ... (its interleaved
		 * schedule), layers spread over the model, not first..last */
		if (vp > 1) {
			int n = 0;
			for (int s = k->first_stage; s <= k->last_stage; s++)
				n += stage_layers_of(pc->r, s);
			sbuf_addf(b, " (%d layers, %d model chunks a stage, interleaved over the model)\n",
				  n, vp);
		} else {
			sbuf_addf(b, " (layers %d-%d)\n", pc->r->stages[k->first_stage].first_layer,
				  pc->r->stages[k->last_stage].last_layer);
		}
	}
}

/* The per-component NCCL variables (NCCL's environment variables,
 * docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html):
 * NCCL_IB_HCA names the RDMA adapters (and ports) NCCL uses, a list such
 * as "mlx5_0:1,mlx5_1:1" or "=mlx5_0" for exact names; NCCL_SOCKET_IFNAME
 * the IP interface for bootstrap and the socket transport ("eth0",
 * "^docker"); NCCL_IB_GID_INDEX the RoCE GID. A pool's nodes have their
 * own names for these, so each component may set its own. */
static const char *const het_nccl_vars[] = { "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME",
					     "NCCL_IB_GID_INDEX" };

/* The job as a Slurm script; piece >= 0: the plan's replica group piece
 * alone (p its piece_plan), whose estimate is not the plan's. */
static void hetjob_script(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			  const struct plan *whole, const struct plan *p, const struct piece *pc,
			  const struct hetjob *hj, double tokens, const char *version,
			  const char *deny, int piece)
{
	char jn[64], q[SHQ_MAX], part[64];
	job_name(jn, sizeof jn, m);
	sbuf_addf(b, "#!/bin/bash\n#SBATCH --job-name=%s\n", jn);
	for (int i = 0; i < hj->n; i++) {
		const struct het_comp *k = &hj->comp[i];
		if (i)
			sbuf_add(b, "#SBATCH hetjob\n");
		partition_word(part, sizeof part, c->pools[k->pool].name);
		sbuf_addf(b, "#SBATCH --partition=%s\n#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=1\n"
			  "#SBATCH --gpus-per-node=%d\n#SBATCH --exclusive\n", part, k->nl.nodes,
			  k->nl.gpn);
	}
	sbuf_addf(b, "# Slurm heterogeneous job for %s, generated by hetplan %s:\n# one "
		  "Megatron-Core job, one component per run of ranks on a pool (above, in rank "
		  "order).\n", mname(q, m), version ? version : "");
	if (piece >= 0)
		sbuf_addf(b, "# Piece: replica group %d alone, its stages on their own pools.\n",
			  piece);
	for (int i = 0; i < hj->n; i++)
		if (partition_word(part, sizeof part, c->pools[hj->comp[i].pool].name))
			sbuf_addf(b, "# Component %d: pool %s is not a Slurm word; its partition is "
				  "written %s.\n", i, shq(q, c->pools[hj->comp[i].pool].name), part);
	sbuf_add(b, "# --partition is the pool's name: set your site's partition (or add "
		    "--constraint)\n# for each component's nodes.\n");
	if (deny[0])
		comment_wrapped(b, "# ", "# ", deny, strlen(deny));
	if (piece < 0)
		launch_estimate_lines(b, c, m, p, "# ", 0);
	hetjob_header(b, c, m, p, pc, hj);
	sbuf_add(b, "# Rank -> node is fixed, not left to a rendezvous: the one srun step below "
		    "spans the\n# components, Slurm numbers its tasks (SLURM_PROCID) component by "
		    "component, one\n# a node; torchrun takes it as --node-rank (static rendezvous) "
		    "and numbers the\n# workers node by node.\n");
	sbuf_add(b, "#\n# Environment: Megatron-LM at commit " LAUNCH_MEGATRON_COMMIT
		    " (the flags are its arguments.py's) with\n# PyTorch, Transformer Engine and "
		    "Apex on every node of every pool, e.g. NVIDIA's NGC\n# PyTorch container "
		    "(nvcr.io/nvidia/pytorch) with that checkout as MEGATRON.\n");
	sbuf_add(b, "# Per component K, HETK_NCCL_IB_HCA, HETK_NCCL_SOCKET_IFNAME and "
		    "HETK_NCCL_IB_GID_INDEX set\n# NCCL_IB_HCA, NCCL_SOCKET_IFNAME and "
		    "NCCL_IB_GID_INDEX on that component's nodes (empty: NCCL's\n# own choice).\n");
	sbuf_add(b, "#\n# Usage: MEGATRON=/path/to/Megatron-LM [HET0_NCCL_IB_HCA=...] sbatch "
		    "THIS_SCRIPT --data-path ...\nset -euo pipefail\n"
		    "MEGATRON=${MEGATRON:-$HOME/Megatron-LM}\n"
		    MASTER_ADDR_LINE("SLURM_JOB_NODELIST_HET_GROUP_0")
		    "MASTER_PORT=${MASTER_PORT:-29500}\n");
	sbuf_addf(b, "export CUDA_DEVICE_MAX_CONNECTIONS=%d\n", launch_max_connections(m, p, pc));
	/* every pool's transport is the same (hetjob_of) */
	sbuf_add(b, "# One network transport on every pool (NCCL loads one a process):\n");
	nccl_env_lines(b, c, pc);
	for (int i = 0; i < hj->n; i++) {
		const struct pool *pl = &c->pools[hj->comp[i].pool];
		sbuf_addf(b, "# component %d, pool %s: %d NIC%s of %g Gb/s a node\n", i,
			  shq(q, pl->name), pl->nics, pl->nics == 1 ? "" : "s", pl->nic_gbps);
		for (size_t v = 0; v < HP_ARRAY_LEN(het_nccl_vars); v++)
			sbuf_addf(b, "export HET%d_%s=${HET%d_%s:-}\n", i, het_nccl_vars[v], i,
				  het_nccl_vars[v]);
	}
	sbuf_add(b, "export MEGATRON MASTER_ADDR MASTER_PORT\n\nARGS=(\n");
	/* the whole plan's: a piece trains the plan's steps on its batch
	 * (piece_samples) */
	megatron_args(b, c, m, whole, pc, tokens, "\t", "\n");
	sbuf_add(b, ")\n\n");
	/* one step over every component, ':' between them; each task runs
	 * one torchrun for its node, the component's variables set first */
	sbuf_add(b, "# One step over the components, ':' between them: each task (one a node) "
		    "sets its\n# component's NCCL variables and runs torchrun as node SLURM_PROCID; "
		    "the single\n# quotes are meant, each task expands them.\n"
		    "# shellcheck disable=SC2016\n");
	for (int i = 0; i < hj->n; i++) {
		const struct het_comp *k = &hj->comp[i];
		sbuf_addf(b, "%s--het-group=%d --nodes=%d --ntasks-per-node=1 bash -c '\n",
			  i ? " : \\\n\t" : "srun ", i, k->nl.nodes);
		for (size_t v = 0; v < HP_ARRAY_LEN(het_nccl_vars); v++)
			sbuf_addf(b, "\t\t[ -z \"$HET%d_%s\" ] || export %s=\"$HET%d_%s\"\n", i,
				  het_nccl_vars[v], het_nccl_vars[v], i, het_nccl_vars[v]);
		sbuf_addf(b, "\t\texec torchrun --nnodes %d --node-rank \"$SLURM_PROCID\" ",
			  hj->nodes);
		if (k->nl.last == k->nl.gpn)
			sbuf_addf(b, "--nproc-per-node %d ", k->nl.gpn);
		else
			sbuf_addf(b, "--nproc-per-node \"$((SLURM_PROCID < %d ? %d : %d))\" ",
				  k->first_node + k->nl.nodes - 1, k->nl.gpn, k->nl.last);
		sbuf_addf(b, "\\\n\t\t--master-addr \"$MASTER_ADDR\" --master-port \"$MASTER_PORT\" "
			  "\\\n\t\t\"$MEGATRON/pretrain_gpt.py\" \"$@\"' het%d \"${ARGS[@]}\" \"$@\"", i);
	}
	sbuf_add(b, "\n");
}

/* Megatron's arguments for the one job, the rank map in comments. */
static void hetjob_megatron(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			    const struct plan *p, const struct piece *pc, const struct hetjob *hj,
			    double tokens, const char *version, const char *deny)
{
	char q[SHQ_MAX];
	sbuf_addf(b, "# Megatron-LM arguments for %s, generated by hetplan %s.\n", mname(q, m),
		  version ? version : "");
	sbuf_add(b, "# Add data, tokenizer, checkpoint and logging arguments.\n");
	if (deny[0])
		comment_wrapped(b, "# ", "# ", deny, strlen(deny));
	launch_estimate_lines(b, c, m, p, "# ", 0);
	hetjob_header(b, c, m, p, pc, hj);
	sbuf_add(b, "# Start the ranks so: node ranks in component order, each node's "
		    "torchrun with its\n# fixed --node-rank (--format slurm writes it as a Slurm "
		    "heterogeneous job).\n\n");
	megatron_args(b, c, m, p, pc, tokens, "", " \\\n");
	b->len -= 3;   /* no continuation after the last argument */
	sbuf_add(b, "\n");
}

/* The Megatron-Core denials of p on each of its pools' GPUs: p with all
 * its replicas on that one pool, through the same rules as a plan
 * (framework_denial), so that the one job is said not to run as planned
 * where a pool's GPU cannot (the mixed GPU types themselves are what the
 * job runs). Distinct sentences into deny (n bytes, more than
 * HETJOB_MORE_ROOM); the pools whose sentence does not fit are counted,
 * " (and N more pools)", never dropped without a word. */
/* Room kept at the end of a hetjob denial for " (and 15 more pools)". */
#define HETJOB_MORE_ROOM 24
static void hetjob_denial(const struct cluster *c, const struct model_spec *m,
			  const struct plan *p, enum launch_format f, char *deny, size_t n)
{
	int used[HP_MAX_POOLS], more = 0;
	assert(n > HETJOB_MORE_ROOM);
	plan_gpus(p, used);
	deny[0] = '\0';
	const struct replica *r0 = &p->replicas[0];
	struct stage *st = xmalloc(sizeof *st * (size_t)r0->n_stages);
	for (int q = 0; q < c->n_pools; q++) {
		if (!used[q])
			continue;
		struct plan sub = *p;
		struct replica r = *r0;
		for (int s = 0; s < r0->n_stages; s++) {
			st[s] = r0->stages[s];
			st[s].pool = q;
		}
		r.stages = st;
		r.count = plan_dp(p);
		sub.replicas = &r;
		sub.n_replicas = 1;
		char what[SHQ_MAX + 40], one[900], q1[SHQ_MAX];
		snprintf(what, sizeof what, "the stages on pool %s", shq(q1, c->pools[q].name));
		if (!framework_denial(c, m, &sub, f, what, one, sizeof one))
			continue;
		if (!more && strlen(deny) + strlen(one) + 2 + HETJOB_MORE_ROOM < n)
			snprintf(deny + strlen(deny), n - strlen(deny), "%s%s", deny[0] ? " " : "", one);
		else
			more++;   /* said as a count, not dropped */
	}
	free(st);
	if (more)
		snprintf(deny + strlen(deny), n - strlen(deny), " (and %d more pool%s)", more,
			 more == 1 ? "" : "s");
}

/* launch_render for a plan hetjob_of takes: the whole plan as one piece
 * (its group 0's layout, DP all its replicas). */
static int hetjob_render(const struct cluster *c, const struct model_spec *m,
			 const struct plan *p, enum launch_format f, const struct hetjob *hj,
			 double tokens, const char *version, struct sbuf *b, struct sbuf *nb,
			 struct hp_err *err)
{
	struct piece pc;
	fill_piece(&pc, p, 0, plan_dp(p), p->gbs);
	pc.group = -1;
	pc.flash = p->flash && hp_gen_sm80(c->pools[pc.pool].gpu.gen);
	if (render_refuses(c, p, f, &pc, 0, err) < 0)
		return -1;
	char deny[900];
	hetjob_denial(c, m, p, f, deny, sizeof deny);
	char q[SHQ_MAX], q2[SHQ_MAX];
	/* first, in the words limits() starts a plan of two GPU types with
	 * (the TUI's status line shows the first note) */
	int used[HP_MAX_POOLS], types = 0, first = -1;
	plan_gpus(p, used);
	struct sbuf g;
	sbuf_init(&g);
	for (int i = 0; i < c->n_pools; i++)
		if (used[i]) {
			if (first < 0)
				first = i;
			types |= strcmp(c->pools[i].gpu.name, c->pools[first].gpu.name) != 0;
			sbuf_addf(&g, "%s%s (pool %s)", g.len ? ", " : "", shq(q, c->pools[i].gpu.name),
				  shq(q2, c->pools[i].name));
		}
	sbuf_addf(nb, "%s: the plan runs on %s as one Megatron-Core job (every replica has the "
		  "same layout and batch share; its ranks sit on more than one pool), written as %s; "
		  "%d components, pools in rank order:", types ? "GPU types" : "Pools", g.s,
		  f == LAUNCH_SLURM ? "a Slurm heterogeneous job" : "one argument list with its "
		  "rank map", hj->n);
	sbuf_done(&g);
	for (int i = 0; i < hj->n; i++)
		sbuf_addf(nb, "%s %s ranks %d-%d", i ? "," : "",
			  shq(q, c->pools[hj->comp[i].pool].name), hj->comp[i].first_rank,
			  hj->comp[i].first_rank + hj->comp[i].ranks - 1);
	sbuf_add(nb, ".\n");
	settings_notes(nb, c, m, p, f, 0);
	if (deny[0])
		sbuf_addf(nb, "%s\n", deny);
	if (f == LAUNCH_SLURM)
		hetjob_script(b, c, m, p, p, &pc, hj, tokens, version, deny, -1);
	else
		hetjob_megatron(b, c, m, p, &pc, hj, tokens, version, deny);
	return 0;
}

/* What hetjob_of said of a plan over pools that this format does not
 * write as one job: 2, Megatron-Core runs it as one (another format
 * writes it); -1, hetplan cannot place it; 0 with a reason, no stock
 * framework runs it. */
static void onejob_note(struct sbuf *nb, int one, const char *hjwhy)
{
	if (one == 2)
		sbuf_add(nb, "One job over pools: Megatron-Core runs this plan as one job (same "
			     "layout and batch share in every replica; its ranks sit on more than one pool): "
			     "--format slurm writes it as a Slurm heterogeneous job, --format "
			     "megatron its arguments and rank map; this format's pieces run each "
			     "replica group alone.\n");
	else if (one < 0)
		sbuf_addf(nb, "One job over pools: not written: %s.\n", hjwhy);
	else if (hjwhy[0])
		sbuf_addf(nb, "One job over pools: none: %s. No stock framework runs it as one "
			  "job; it needs a heterogeneity-aware runtime.\n", hjwhy);
}

/* Each piece of a heterogeneous plan said to run as planned or not, by
 * the same rules as a plan (a DeepSpeed piece of an uneven split, which
 * its config cannot hold, went out without a word): its denial into
 * pdeny[i], and for a piece whose stages span pools, which Megatron-Core
 * runs as one job of its own, pone[i] = 1 and its job in phj[i] (the
 * one-job writer, its denials by each pool's GPU, not the GPU types). */
static void pieces_denials(const struct cluster *c, const struct model_spec *m,
			   const struct plan *p, enum launch_format f, const struct piece *pcs,
			   int np, int hetero, char (*pdeny)[900], struct hetjob *phj, int *pone,
			   struct sbuf *nb)
{
	for (int i = 0; i < np; i++) {
		pdeny[i][0] = '\0';
		if (!hetero)
			continue;
		struct plan sub;
		struct replica r;
		piece_plan(p, &pcs[i], &sub, &r);
		char what[64];
		snprintf(what, sizeof what, "piece %d (replica group %d)", i + 1, pcs[i].group);
		char pwhy[400];
		if (hetjob_of(c, &sub, f, &phj[i], pwhy, sizeof pwhy) == 1) {
			pone[i] = 1;
			hetjob_denial(c, m, &sub, f, pdeny[i], sizeof pdeny[i]);
			if (pdeny[i][0])
				sbuf_addf(nb, "%s: %s\n", what, pdeny[i]);
			continue;
		}
		if (framework_denial(c, m, &sub, f, what, pdeny[i], sizeof pdeny[i]))
			sbuf_addf(nb, "%s\n", pdeny[i]);
	}
}

/* The Megatron-LM arguments of every piece, after the header. */
static void megatron_render(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			    const struct plan *p, const struct piece *pcs, int np, double tokens,
			    const char *deny, char (*pdeny)[900], const struct hetjob *phj,
			    const int *pone)
{
	if (deny[0])
		comment_wrapped(b, "# ", "# ", deny, strlen(deny));
	for (int i = 0; i < np; i++) {
		sbuf_add(b, "\n");
		if (pdeny[i][0])
			comment_wrapped(b, "# ", "# ", pdeny[i], strlen(pdeny[i]));
		if (pone[i]) {
			struct plan sub;
			struct replica r;
			piece_plan(p, &pcs[i], &sub, &r);
			sbuf_addf(b, "# Piece: replica group %d alone.\n", pcs[i].group);
			hetjob_header(b, c, m, &sub, &pcs[i], &phj[i]);
		} else {
			piece_header(b, c, m, p, &pcs[i]);
		}
		megatron_args(b, c, m, p, &pcs[i], tokens, "", " \\\n");
		b->len -= 3;   /* no continuation after the last argument */
		sbuf_add(b, "\n");
	}
}

int launch_render(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		  enum launch_format f, double tokens, const char *version, char **out,
		  size_t *len, char **notes, struct hp_err *err)
{
	if ((int)f < 0 || f >= LAUNCH_FORMAT_COUNT)
		return hp_err_set(err, HP_EXIT_USAGE, "launch: unknown format %d", (int)f);
	if (launch_refuses_format(p, f, NULL, err) < 0)
		return -1;
	struct sbuf b, nb;
	sbuf_init(&b);
	sbuf_init(&nb);
	/* a plan over pools that Megatron-Core runs as one job */
	struct hetjob hj;
	char hjwhy[400];
	int one = hetjob_of(c, p, f, &hj, hjwhy, sizeof hjwhy);
	if (one == 1) {
		if (hetjob_render(c, m, p, f, &hj, tokens, version, &b, &nb, err) < 0) {
			sbuf_done(&b);
			sbuf_done(&nb);
			return -1;
		}
		*out = sbuf_take(&b, len);
		*notes = sbuf_take(&nb, NULL);
		return 0;
	}
	int hetero = limits(c, p, &nb) > 0;
	onejob_note(&nb, one, hjwhy);
	char deny[900] = "";
	int denied = !hetero && framework_denial(c, m, p, f, "this plan", deny, sizeof deny);
	/* one sentence about the recomputation, not a note and a denial */
	int rc_denied = denied && p->recompute == RC_SELECTIVE_OP && f != LAUNCH_TORCHTITAN &&
			strstr(deny, "recomputation");
	if (rc_denied) {
		size_t dl = strlen(deny);
		snprintf(deny + dl, sizeof deny - dl, " For the recomputation, " RECOMPUTE_NEAREST);
	}
	settings_notes(&nb, c, m, p, f, rc_denied);
	if (denied)
		sbuf_addf(&nb, "%s\n", deny);
	struct piece pcs[64];
	int np = make_pieces(c, p, hetero, pcs, (int)HP_ARRAY_LEN(pcs));
	if (render_refuses(c, p, f, pcs, np, err) < 0) {
		sbuf_done(&b);
		sbuf_done(&nb);
		return -1;
	}
	char *lim = xstrdup(nb.s ? nb.s : "");
	/* each piece of a heterogeneous plan said to run as planned or not,
	 * by the same rules as a plan (a DeepSpeed piece of an uneven
	 * split, which its config cannot hold, went out without a word) */
	char (*pdeny)[900] = xmalloc(sizeof *pdeny * (size_t)HP_MAX(np, 1));
	struct hetjob *phj = xmalloc(sizeof *phj * (size_t)HP_MAX(np, 1));
	int pone[64] = { 0 };
	pieces_denials(c, m, p, f, pcs, np, hetero, pdeny, phj, pone, &nb);
	switch (f) {
	case LAUNCH_MEGATRON:
		header(&b, "Megatron-LM arguments", c, m, p, version, lim, hetero);
		megatron_render(&b, c, m, p, pcs, np, tokens, deny, pdeny, phj, pone);
		break;
	case LAUNCH_SLURM:
		if (hetero) {
			header(&b, "Slurm + torchrun scripts", c, m, p, version, lim, hetero);
			sbuf_add(&b, "# Save each piece (from its #!/bin/bash line) as its own file.\n");
		}
		for (int i = 0; i < np; i++) {
			if (hetero)
				sbuf_addf(&b, "\n# ---- piece %d of %d ----\n", i + 1, np);
			if (pone[i]) {
				struct plan sub;
				struct replica r;
				piece_plan(p, &pcs[i], &sub, &r);
				hetjob_script(&b, c, m, p, &sub, &pcs[i], &phj[i], tokens, version,
					      pdeny[i], pcs[i].group);
				continue;
			}
			slurm_piece(&b, c, m, p, &pcs[i], tokens, version, hetero ? pdeny[i] : deny,
				    !hetero);
		}
		break;
	case LAUNCH_TORCHTITAN:
		header(&b, "torchtitan job config (TOML)", c, m, p, version, lim, hetero);
		if (deny[0])
			comment_wrapped(&b, "# ", "# ", deny, strlen(deny));
		for (int i = 0; i < np; i++) {
			if (hetero)
				sbuf_addf(&b, "\n# ---- piece %d of %d: save from here as its own file "
					  "----\n", i + 1, np);
			else
				sbuf_add(&b, "\n");
			if (pdeny[i][0])
				comment_wrapped(&b, "# ", "# ", pdeny[i], strlen(pdeny[i]));
			piece_header(&b, c, m, p, &pcs[i]);
			torchtitan_piece(&b, m, p, &pcs[i], tokens, &nb);
		}
		break;
	case LAUNCH_HF_TRAINER:
		/* one piece: hf_refuses turned away every plan of more */
		hf_trainer_script(&b, c, m, p, &pcs[0], tokens, version, deny, &nb);
		hf_step_note(&nb, c, m, p);
		break;
	case LAUNCH_DEEPSPEED:
		deepspeed_render(&b, &nb, c, m, p, pcs, np, hetero, lim, pdeny);
		break;
	default:
		break;
	}
	free(lim);
	free(pdeny);
	free(phj);
	*out = sbuf_take(&b, len);
	*notes = sbuf_take(&nb, NULL);
	return 0;
}
