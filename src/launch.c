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
#include "sbuf.h"
#include "escape.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = { "megatron", "slurm", "deepspeed" };

const char *launch_format_name(enum launch_format f)
{
	return format_names[f];
}

int launch_format_parse(const char *s, enum launch_format *f)
{
	for (int i = 0; i < LAUNCH_FORMAT_COUNT; i++)
		if (hp_strieq(s, format_names[i])) {
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
	const struct replica *r;
};

/* Megatron splits layers evenly, or evenly after a first and a last stage
 * of their own size. Fills first/last (0 = not needed); returns 0 when the
 * split cannot be said that way. */
static int layer_split(const struct replica *r, int *first, int *last)
{
	int n = r->n_stages;
	*first = *last = 0;
#define LAYERS(i) (r->stages[i].last_layer - r->stages[i].first_layer + 1)
	if (n == 1)
		return 1;
	int mid = n > 2 ? LAYERS(1) : 0;
	for (int i = 1; i < n - 1; i++)
		if (LAYERS(i) != mid)
			return 0;
	if (n == 2) {
		if (LAYERS(0) != LAYERS(1)) {
			*first = LAYERS(0);
			*last = LAYERS(1);
		}
		return 1;
	}
	if (LAYERS(0) != mid)
		*first = LAYERS(0);
	if (LAYERS(n - 1) != mid)
		*last = LAYERS(n - 1);
#undef LAYERS
	return 1;
}

static int same_layout(const struct replica *a, const struct replica *b)
{
	if (a->n_stages != b->n_stages)
		return 0;
	for (int i = 0; i < a->n_stages; i++)
		if (a->stages[i].tp != b->stages[i].tp ||
		    a->stages[i].first_layer != b->stages[i].first_layer ||
		    a->stages[i].last_layer != b->stages[i].last_layer)
			return 0;
	return 1;
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
		sbuf_addf(notes, "GPU types: the plan runs on %s; Megatron-LM, torchrun and "
			  "DeepSpeed assume one GPU type per job and size every stage alike.\n", gpus.s);
		n = 1;
	}
	sbuf_done(&gpus);
	for (int g = 0; g < p->n_replicas; g++)
		for (int s = 1; s < p->replicas[g].n_stages; s++)
			if (p->replicas[g].stages[s].pool != p->replicas[g].stages[0].pool) {
				sbuf_addf(notes, "Pipelines across pools: replica group %d places its stages "
					  "on more than one pool; a stock pipeline cannot place stage k on "
					  "a named pool.\n", g);
				n++;
				g = p->n_replicas;
				break;
			}
	for (int g = 1; g < p->n_replicas; g++)
		if (!same_layout(&p->replicas[g], &p->replicas[0])) {
			sbuf_addf(notes, "Layouts: replica group %d has a different pipeline layout "
				  "(stages, TP or layer ranges) from group 0; stock data parallelism "
				  "needs every replica identical.\n", g);
			n++;
			break;
		}
	for (int g = 1; g < p->n_replicas; g++)
		if (fabs(p->replicas[g].batch_share - p->replicas[0].batch_share) > 1e-9) {
			sbuf_addf(notes, "Batch shares: replicas take %.4g%% and %.4g%% of the global "
				  "batch; stock data parallelism splits it evenly.\n",
				  100 * p->replicas[0].batch_share, 100 * p->replicas[g].batch_share);
			n++;
			break;
		}
	for (int g = 0; g < p->n_replicas; g++) {
		const struct replica *r = &p->replicas[g];
		int f, l;
		if (!layer_split(r, &f, &l)) {
			sbuf_add(notes, "Layer split: stages hold");
			for (int s = 0; s < r->n_stages && s < 12; s++)
				sbuf_addf(notes, " %d", r->stages[s].last_layer - r->stages[s].first_layer + 1);
			sbuf_addf(notes, "%s layers; Megatron-LM can only make the first and last "
				  "stage differ.\n", r->n_stages > 12 ? " ..." : "");
			n++;
			break;
		}
		if (p->schedule == SCHED_INTERLEAVED && (f || l)) {
			sbuf_add(notes, "Interleaving: an uneven first or last stage cannot be "
				    "combined with virtual pipeline stages in Megatron-LM.\n");
			n++;
			break;
		}
	}
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
static int make_pieces(const struct plan *p, int hetero, struct piece *out, int max)
{
	if (!hetero) {
		fill_piece(&out[0], p, 0, plan_dp(p), p->gbs);
		out[0].group = -1;
		return 1;
	}
	int n = 0;
	for (int g = 0; g < p->n_replicas && n < max; g++) {
		int seqs = (int)lround(p->gbs * p->replicas[g].batch_share * p->replicas[g].count);
		fill_piece(&out[n++], p, g, p->replicas[g].count, seqs > 0 ? seqs : 1);
	}
	return n;
}

static const char *mname(char *buf, const struct model_spec *m)
{
	return shq(buf, *m->display ? m->display : m->name);
}

/* Megatron-LM arguments of one piece as "--flag value" items; sep goes
 * between items ("\n" for an array in a script, " \\\n" for a command). */
static void megatron_args(struct sbuf *b, const struct model_spec *m, const struct plan *p,
			  const struct piece *pc, const char *pre, const char *sep)
{
	int seq = p->seq_len ? p->seq_len : m->seq_len;
#define ARG(...) do { sbuf_add(b, pre); sbuf_addf(b, __VA_ARGS__); sbuf_add(b, sep); } while (0)
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
	if (m->position == POS_ROPE)
		ARG("--position-embedding-type rope");
	if (m->norm == NORM_RMS)
		ARG("--normalization RMSNorm");
	if (m->gated_mlp)
		ARG("--swiglu");
	if (!m->tied_embeddings)
		ARG("--untie-embeddings-and-output-weights");
	if (!m->bias)
		ARG("--disable-bias-linear");
	if (m->moe.experts) {
		ARG("--num-experts %d", m->moe.experts);
		ARG("--moe-router-topk %d", m->moe.top_k);
		ARG("--moe-ffn-hidden-size %d", m->moe.expert_ffn);
		if (m->moe.shared_experts)
			ARG("--moe-shared-expert-intermediate-size %d",
			    m->moe.shared_experts * m->moe.expert_ffn);
		if (m->moe.dense_layers)
			ARG("--moe-layer-freq '([0]*%d+[1]*%d)'", m->moe.dense_layers,
			    m->layers - m->moe.dense_layers);
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
	ARG("--tensor-model-parallel-size %d", pc->tp);
	ARG("--pipeline-model-parallel-size %d", pc->pp);
	if (pc->first_layers)
		ARG("--decoder-first-pipeline-num-layers %d", pc->first_layers);
	if (pc->last_layers)
		ARG("--decoder-last-pipeline-num-layers %d", pc->last_layers);
	if (p->schedule == SCHED_INTERLEAVED && p->vpp > 1)
		ARG("--num-layers-per-virtual-pipeline-stage %d", m->layers / (pc->pp * p->vpp));
	if (p->cp > 1)
		ARG("--context-parallel-size %d", p->cp);
	if (p->ep > 1)
		ARG("--expert-model-parallel-size %d", p->ep);
	if (p->sp && pc->tp > 1)
		ARG("--sequence-parallel");
	ARG("--micro-batch-size %d", p->mbs);
	ARG("--global-batch-size %d", pc->gbs);
	if (p->recompute == RC_SELECTIVE)
		ARG("--recompute-granularity selective");
	else if (p->recompute == RC_FULL) {
		ARG("--recompute-granularity full");
		ARG("--recompute-method uniform");
		ARG("--recompute-num-layers 1");
	}
	if (p->zero >= 1)
		ARG("--use-distributed-optimizer");
	if (p->precision == HP_FP16)
		ARG("--fp16");
	else
		ARG("--bf16");
	if (p->precision == HP_FP8) {
		ARG("--fp8-format hybrid");
		ARG("--transformer-impl transformer_engine");
	}
	if (p->flash)
		ARG("--use-flash-attn");
#undef ARG
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
	sbuf_addf(b, "# TP %d x PP %d", pc->tp, pc->pp);
	if (p->cp > 1)
		sbuf_addf(b, " x CP %d", p->cp);
	sbuf_addf(b, " x DP %d = %d GPUs on %d node%s\n", pc->dp, world,
		  (world + pl->gpus_per_node - 1) / pl->gpus_per_node,
		  world > pl->gpus_per_node ? "s" : "");
	int mb = pc->gbs / HP_MAX(p->mbs * pc->dp, 1);
	sbuf_addf(b, "# %d sequences of %d tokens per step = micro-batch %d x %d micro-batches x "
		  "DP %d\n", pc->gbs, p->seq_len ? p->seq_len : m->seq_len, p->mbs, mb, pc->dp);
	if (p->zero >= 2)
		sbuf_addf(b, "# ZeRO-%d: Megatron-LM's distributed optimizer shards optimizer "
			  "state (ZeRO-1) and reduce-scatters gradients; for ZeRO-3 use DeepSpeed "
			  "or Megatron-Core FSDP.\n", p->zero);
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

static void header(struct sbuf *b, const char *what, const struct cluster *c,
		   const struct model_spec *m, const char *version, const char *notes, int hetero)
{
	char q[SHQ_MAX];
	sbuf_addf(b, "# %s for %s, generated by hetplan %s.\n", what, mname(q, m),
		  version ? version : "");
	sbuf_add(b, "# Add data, tokenizer, checkpoint and logging arguments.\n");
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
	(void)c;
}

static void job_name(char *buf, size_t n, const struct model_spec *m)
{
	snprintf(buf, n, "hetplan-%.40s", m->name);
	for (char *s = buf; *s; s++)
		if (!(((*s | 32) >= 'a' && (*s | 32) <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.'))
			*s = '_';
}

static void slurm_piece(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			const struct plan *p, const struct piece *pc, const char *version)
{
	const struct pool *pl = &c->pools[pc->pool];
	int world = pc->tp * pc->pp * p->cp * pc->dp;
	int gpn = HP_MIN(pl->gpus_per_node, world);
	int nodes = (world + gpn - 1) / gpn;
	char jn[64];
	job_name(jn, sizeof jn, m);
	sbuf_addf(b, "#!/bin/bash\n#SBATCH --job-name=%s\n#SBATCH --nodes=%d\n"
		  "#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=%d\n#SBATCH --exclusive\n",
		  jn, nodes, gpn);
	char q[SHQ_MAX];
	sbuf_addf(b, "# Generated by hetplan %s for %s.\n", version ? version : "", mname(q, m));
	piece_header(b, c, m, p, pc);
	sbuf_add(b, "#\n# Usage: MEGATRON=/path/to/Megatron-LM sbatch THIS_SCRIPT "
		    "--data-path ... --tokenizer-type ... --save ...\n"
		    "set -euo pipefail\n"
		    "MEGATRON=${MEGATRON:-$HOME/Megatron-LM}\n"
		    "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
		    "MASTER_PORT=${MASTER_PORT:-29500}\n"
		    "export CUDA_DEVICE_MAX_CONNECTIONS=1\n\nARGS=(\n");
	megatron_args(b, m, p, pc, "\t", "\n");
	sbuf_addf(b, ")\n\nsrun torchrun \\\n\t--nnodes \"$SLURM_NNODES\" \\\n"
		  "\t--nproc-per-node %d \\\n\t--rdzv-id \"$SLURM_JOB_ID\" \\\n"
		  "\t--rdzv-backend c10d \\\n\t--rdzv-endpoint \"$MASTER_ADDR:$MASTER_PORT\" \\\n"
		  "\t\"$MEGATRON/pretrain_gpt.py\" \"${ARGS[@]}\" \"$@\"\n", gpn);
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
	} else {
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(o, "bf16"), "enabled", 1);
	}
	cJSON *z = cJSON_AddObjectToObject(o, "zero_optimization");
	cJSON_AddNumberToObject(z, "stage", p->zero);
	cJSON_AddBoolToObject(z, "overlap_comm", 1);
	cJSON_AddBoolToObject(z, "contiguous_gradients", 1);
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

static void deepspeed_notes(struct sbuf *n, const struct plan *p, const struct piece *pc)
{
	if (pc->tp > 1 || pc->pp > 1)
		sbuf_addf(n, "DeepSpeed: TP %d and PP %d are set where the model is built "
			  "(Megatron-DeepSpeed: --tensor-model-parallel-size %d "
			  "--pipeline-model-parallel-size %d); the config holds batch, precision and "
			  "ZeRO.\n", pc->tp, pc->pp, pc->tp, pc->pp);
	if (pc->pp > 1 && p->zero > 1)
		sbuf_addf(n, "DeepSpeed: its pipeline engine supports ZeRO stage 0 or 1 only; "
			  "the plan asks for ZeRO-%d.\n", p->zero);
	if (p->recompute == RC_SELECTIVE)
		sbuf_add(n, "DeepSpeed: selective recomputation (attention core only) is chosen "
			    "in the model code; the config turns checkpointing on.\n");
	if (p->precision == HP_FP8)
		sbuf_add(n, "DeepSpeed: FP8 runs through Transformer Engine in the model; the "
			    "config says bf16.\n");
}

int launch_render(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		  enum launch_format f, const char *version, char **out, size_t *len,
		  char **notes, struct hp_err *err)
{
	if ((int)f < 0 || f >= LAUNCH_FORMAT_COUNT)
		return hp_err_set(err, HP_EXIT_USAGE, "launch: unknown format %d", (int)f);
	struct sbuf b, nb;
	sbuf_init(&b);
	sbuf_init(&nb);
	int hetero = limits(c, p, &nb) > 0;
	/* Settings a framework lacks but that do not split the job. */
	if (p->recompute == RC_SELECTIVE_OP)
		sbuf_add(&nb, "Recomputation: op-level selective checkpointing (torchtitan's) has "
			      "no Megatron-LM or DeepSpeed switch; no recompute flags are given. "
			      "The nearest are --recompute-granularity selective or full: check "
			      "memory with hetplan estimate --recompute selective|full.\n");
	if (p->loss == LOSS_EAGER)
		sbuf_add(&nb, "Loss: the plan assumes an eager fp32 cross-entropy; Megatron-LM's "
			      "vocab-parallel cross-entropy needs less memory than estimated.\n");
	if (p->master == MASTER_REPLICATED)
		sbuf_add(&nb, "Optimizer: the plan assumes fp32 master weights whole on every "
			      "data-parallel rank (DeepSpeed's first BF16 optimizer); Megatron-LM's "
			      "distributed optimizer and current DeepSpeed shard them and need less "
			      "memory than estimated.\n");
	struct piece pcs[64];
	int np = make_pieces(p, hetero, pcs, (int)HP_ARRAY_LEN(pcs));
	char *lim = xstrdup(nb.s ? nb.s : "");
	switch (f) {
	case LAUNCH_MEGATRON:
		header(&b, "Megatron-LM arguments", c, m, version, lim, hetero);
		for (int i = 0; i < np; i++) {
			sbuf_add(&b, "\n");
			piece_header(&b, c, m, p, &pcs[i]);
			megatron_args(&b, m, p, &pcs[i], "", " \\\n");
			b.len -= 3;   /* no continuation after the last argument */
			sbuf_add(&b, "\n");
		}
		break;
	case LAUNCH_SLURM:
		if (hetero) {
			header(&b, "Slurm + torchrun scripts", c, m, version, lim, hetero);
			sbuf_add(&b, "# Save each piece (from its #!/bin/bash line) as its own file.\n");
		}
		for (int i = 0; i < np; i++) {
			if (hetero)
				sbuf_addf(&b, "\n# ---- piece %d of %d ----\n", i + 1, np);
			slurm_piece(&b, c, m, p, &pcs[i], version);
		}
		break;
	case LAUNCH_DEEPSPEED: {
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
		for (int i = 0; i < np; i++)
			deepspeed_notes(&nb, p, &pcs[i]);
		char *s = esc_json_print(o);
		cJSON_Delete(o);
		sbuf_add(&b, s);
		sbuf_add(&b, "\n");
		free(s);
		break;
	}
	default:
		break;
	}
	free(lim);
	*out = sbuf_take(&b, len);
	*notes = sbuf_take(&nb, NULL);
	return 0;
}
