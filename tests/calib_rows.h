/* calib_rows.h — turn the measured training runs in tests/data/training.csv
 * into hetplan inputs (cluster, model, plan) and a measured step time or
 * peak memory. Shared by tests/test_accuracy.c and tools/fit.c.
 *
 * The measured step time of each row comes from the source's own numbers,
 * never from hetplan's FLOP counting: a step time as logged, the "implied
 * step time" the notes derive with the source's formula, or tokens per
 * second per GPU (B * s / (tokens/s/GPU * n)). */
#ifndef HP_CALIB_ROWS_H
#define HP_CALIB_ROWS_H

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"

enum row_kind { ROW_TIME, ROW_MEMORY };

struct calib_row {
	char id[24], conf[16], model_name[64];
	enum row_kind kind;
	double measured;          /* seconds per step, or bytes per GPU */
	int usable;
	char skip[160];
	char guessed[96];         /* columns the CSV leaves blank that we fill */
	int extra;                /* from tests/data/holdout.csv (a later source set) */
	int mem_reserved;         /* memory row measured as the caching allocator's
				   * reserved peak (perf_stage.outside excluded) */
	struct cluster cluster;
	struct model_spec model;
	struct plan plan;
};

/* A small RFC 4180 reader: fields with quotes, commas and doubled quotes. */
static int csv_next_record(FILE *f, char fields[][1200], int maxf)
{
	int n = 0, c, q = 0;
	size_t len = 0;
	char *cur = fields[0];
	c = fgetc(f);
	if (c == EOF)
		return -1;
	for (;; c = fgetc(f)) {
		if (c == EOF || (!q && (c == '\n' || c == ','))) {
			cur[len] = '\0';
			n++;
			if (c != ',' || n >= maxf)
				break;
			cur = fields[n];
			len = 0;
			continue;
		}
		if (c == '"') {
			if (q) {
				int d = fgetc(f);
				if (d == '"') {
					if (len < 1199)
						cur[len++] = '"';
				} else {
					q = 0;
					ungetc(d, f);
				}
			} else {
				q = 1;
			}
			continue;
		}
		if (c == '\r' && !q)
			continue;
		if (len < 1199)
			cur[len++] = (char)c;
	}
	return n;
}

static const char *field(char fields[][1200], char names[][1200], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return fields[i];
	return "";
}

static int ival(const char *s) { return *s ? atoi(s) : 0; }

/* First number following `key` in s, or 0. */
static double num_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	if (!p)
		return 0;
	p += strlen(key);
	while (*p && !isdigit((unsigned char)*p))
		p++;
	return atof(p);
}

/* Number immediately before `key` (e.g. "1007 tokens/s/GPU"). */
static double num_before(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	if (!p)
		return 0;
	while (p > s && p[-1] == ' ')
		p--;
	const char *e = p;
	while (p > s && (isdigit((unsigned char)p[-1]) || p[-1] == '.'))
		p--;
	return p < e ? atof(p) : 0;
}

static int starts(const char *s, const char *pre) { return !strncmp(s, pre, strlen(pre)); }

/* Note a column the CSV leaves blank and the test fills in. */
static void guess(char *list, const char *col, size_t n)
{
	size_t l = strlen(list);
	if (l < n)
		snprintf(list + l, n - l, "%s", col);
}

/* Does Eq. 3 with activation checkpointing (factor 4) and the model's
 * vocab reproduce the TFLOP/s a BLOOM row logs beside its s/it ("same
 * run: 143.31 s/it and 112.49 TFLOPs")? */
static int bloom_eq3_matches(const char *notes, const struct model_spec *m, int gbs, int ngpu)
{
	double t = num_after(notes, "same run:"), logged = num_before(notes, "TFLOPs");
	if (t <= 0 || logged <= 0 || ngpu <= 0)
		return 0;
	double B = gbs, s = m->seq_len, l = m->layers, h = m->hidden, V = m->vocab;
	double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h)) / (t * ngpu) / 1e12;
	return fabs(eq3 - logged) <= 0.001 * logged;
}

static void row_gpu(const struct catalog *cat, const char *gpu, struct gpu_spec *g)
{
	const char *name = "H100-SXM";
	if (strstr(gpu, "V100-SXM2-16GB"))
		name = "V100-SXM2-16GB";
	else if (strstr(gpu, "V100"))
		name = "V100-SXM2-32GB";
	else if (strstr(gpu, "H200"))
		name = "H200-SXM";
	else if (strstr(gpu, "A100-40GB"))
		name = "A100-SXM4-40GB";
	else if (strstr(gpu, "A100"))
		name = "A100-SXM4-80GB";
	else if (strstr(gpu, "GB200"))
		name = "GB200";
	else if (strstr(gpu, "B200"))
		name = "B200";
	/* The workstation and inference-class parts of holdout_small.csv
	 * carry their catalog names verbatim. */
	static const char *const exact[] = { "RTX-3090", "RTX-4090", "RTX-A6000", "RTX-6000-Ada",
					     "T4", "L4", "A10G", "A10" };
	for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
		if (!strcmp(gpu, exact[i]))
			name = exact[i];
	*g = *catalog_gpu(cat, name);
	if (strstr(gpu, "96GB HBM2e")) {
		/* torchtitan's Grand Teton H100: 96 GB HBM2e, held at 500 W
		 * (the rows' "500W power limit"; the part is rated 700 W). */
		g->mem_bytes = 96e9;
		g->power_limit_w = 500;
	}
}

/* Fill r from one CSV record; r->usable says whether hetplan can run it. */
/* AMP's heterogeneous trials (tests/data/holdout.csv, AMPHET-*): 3 AWS
 * p3.8xlarge nodes (4 V100-SXM2-16GB, NVLink, 10 Gb/s) and 1 g4dn.12xlarge
 * (4 T4, PCIe, 50 Gb/s), GPT-2 medium on Megatron-LM 1.1.5 + DeepSpeed's
 * PipelineEngine, fp16, ZeRO 0. DeepSpeed's topology orders ranks
 * (pipe, data, model), so the stage of rank g is g / (dp x tp) and the T4s
 * (ranks 12-15) hold the last stage, or whole replicas when pp is 1. The
 * partition in the row's label splits the 30 PipelineModule entries:
 * 0 embedding, 1 a transpose, 2-25 the 24 layers, 26-29 transpose, final
 * norm, tied output embedding and the loss. ds_config sets fp32_allreduce:
 * gradients are reduced in fp32. */
static void row_build_amphet(const struct catalog *cat, struct calib_row *r, const char *label,
			     int tp, int pp, int dp, int mbs, int gbs)
{
	static const char cl[] =
		"{\"name\": \"amp\", \"pools\": ["
		"{\"name\": \"v100\", \"gpu\": \"V100-SXM2-16GB\", \"nodes\": 3, \"gpus_per_node\": 4,"
		" \"intra\": \"nvlink\", \"nics\": 1, \"nic_gbps\": 10},"
		"{\"name\": \"t4\", \"gpu\": \"T4\", \"nodes\": 1, \"gpus_per_node\": 4,"
		" \"intra\": \"pcie\", \"nics\": 1, \"nic_gbps\": 50}]}";
	struct hp_err err = { 0 };
	cluster_init(&r->cluster);
	if (cluster_parse_json(&r->cluster, cl, sizeof cl - 1, "amp", cat, &err) < 0) {
		snprintf(r->skip, sizeof r->skip, "%.150s", err.msg);
		return;
	}
	int part[20], np = 0;
	const char *q = strstr(label, "partition [");
	for (q = q ? q + 11 : NULL; q && np < 20 && *q && *q != ']'; q++)
		if (*q >= '0' && *q <= '9') {
			part[np++] = atoi(q);
			while (q[1] >= '0' && q[1] <= '9')
				q++;
		}
	if (np != pp + 1 || tp * pp * dp != 16) {
		snprintf(r->skip, sizeof r->skip, "AMP partition of %d entries for pp %d", np, pp);
		return;
	}
	char js[4096];
	size_t n = (size_t)snprintf(js, sizeof js,
		"{\"mbs\": %d, \"gbs\": %d, \"precision\": \"fp16\", \"zero\": 0,"
		" \"framework\": \"deepspeed\", \"flash\": false, \"sp\": false,"
		" \"grad_reduce_fp32\": true,"
		" \"replicas\": [", mbs, gbs);
	/* Replicas with the same pools stage by stage form one group. */
	char sig[16][20];
	int groups = 0;
	for (int d = 0; d < dp; d++) {
		for (int st = 0; st < pp && st < 20; st++) {
			int rank = st * dp * tp + d * tp;
			if ((rank >= 12) != (rank + tp - 1 >= 12)) {
				snprintf(r->skip, sizeof r->skip, "a TP group spans V100 and T4");
				return;
			}
			sig[d][st] = rank >= 12 ? 't' : 'v';
		}
		if (d > 0 && !memcmp(sig[d], sig[d - 1], (size_t)pp))
			continue;
		int count = 1;
		while (d + count < dp) {
			int same = 1;
			for (int st = 0; st < pp; st++)
				same &= ((st * dp * tp + (d + count) * tp) >= 12) == (sig[d][st] == 't');
			if (!same)
				break;
			count++;
		}
		n += (size_t)snprintf(js + n, sizeof js - n, "%s{\"count\": %d, \"stages\": [",
				      groups++ ? ", " : "", count);
		for (int st = 0; st < pp; st++) {
			int lo = part[st] < 2 ? 0 : part[st] - 2;
			int hi = (part[st + 1] > 26 ? 26 : part[st + 1]) - 3;
			n += (size_t)snprintf(js + n, sizeof js - n,
					      "%s{\"pool\": \"%s\", \"tp\": %d, \"first_layer\": %d,"
					      " \"last_layer\": %d}", st ? ", " : "",
					      sig[d][st] == 't' ? "t4" : "v100", tp, lo, hi);
		}
		n += (size_t)snprintf(js + n, sizeof js - n, "]}");
	}
	snprintf(js + n, sizeof js - n, "]}");
	struct plan *pl = &r->plan;
	plan_init(pl);
	if (plan_parse_json(pl, js, strlen(js), r->id, &r->cluster, &err) < 0 ||
	    plan_validate(pl, &r->cluster, &r->model, r->id, &err) < 0)
		snprintf(r->skip, sizeof r->skip, "%.150s", err.msg);
}

static void row_build(const struct catalog *cat, char f[][1200], char names[][1200],
		      int n, struct calib_row *r)
{
	memset(r, 0, sizeof *r);
#define F(x) field(f, names, n, x)
	hp_strlcpy(r->id, F("id"), sizeof r->id);
	hp_strlcpy(r->model_name, F("model"), sizeof r->model_name);
	const char *notes = F("notes");
	const char *c0 = strstr(notes, "CONF:");
	if (!c0 && starts(notes, "quality="))
		c0 = notes + 3;   /* vTrain rows: "quality=high" */
	if (c0) {
		size_t k = 0;
		for (c0 += 5; *c0 && *c0 != ';' && k < sizeof r->conf - 1; c0++)
			r->conf[k++] = *c0;
		r->conf[k] = '\0';
	}
	const char *metric = F("metric");
	r->kind = !strcmp(metric, "peak_memory_per_gpu") ? ROW_MEMORY : ROW_TIME;

	struct model_spec *m = &r->model;
	hp_strlcpy(m->name, r->id, sizeof m->name);
	hp_strlcpy(m->display, F("model"), sizeof m->display);
	m->layers = ival(F("n_layers"));
	m->hidden = ival(F("hidden"));
	m->heads = ival(F("n_heads"));
	m->kv_heads = ival(F("n_kv_heads"));
	m->ffn = ival(F("ffn_hidden"));
	m->vocab = ival(F("vocab"));
	m->seq_len = ival(F("seq_len"));
	const char *mn = F("model");
	int llama = strstr(mn, "LLAMA") || strstr(mn, "Llama");
	int bloom = starts(r->id, "BL-");
	/* vTrain's rows ran Megatron-DeepSpeed GPT models (LayerNorm, learned
	 * positions, tied embeddings, dropout 0.1, no flash attention, no SP):
	 * the same code lineage as the 2021-22 Megatron-LM rows. */
	int vtrain = starts(r->id, "VT-") || starts(r->id, "VTM");
	/* Held-out rows of the same lineage (2019-2023 Megatron-LM and
	 * Megatron-DeepSpeed: tests/data/holdout_README.md). */
	int old_megatron = starts(r->id, "DLPERF") || starts(r->id, "MLM19") ||
			   starts(r->id, "MTNLG") || starts(r->id, "DS3") || starts(r->id, "AMPHET") ||
			   starts(r->id, "DSMEG");
	/* holdout_small.csv's BERT rows (NVIDIA DLE BERT, PyTorch and
	 * TensorFlow, 2020-22): unfused softmax attention over the whole
	 * (bidirectional) sequence, dropout 0.1, no SP. */
	int bert = starts(r->id, "LBERT") || starts(r->id, "TFBERT") || starts(r->id, "PTBERT");
	int megatron2021 = starts(r->id, "N21") || starts(r->id, "K22") || bloom || vtrain ||
			   old_megatron || bert;
	m->gated_mlp = llama;
	m->tied_embeddings = !llama && !strstr(mn, "Nemotron");
	m->bias = !llama && !strstr(mn, "Nemotron");
	m->norm = llama ? NORM_RMS : NORM_LAYER;
	m->position = llama || strstr(mn, "Nemotron") ? POS_ROPE : bloom ? POS_ALIBI : POS_LEARNED;
	m->dropout = megatron2021;
	/* BLOOM's pre-flight rows (BL-02..08) leave columns blank that the
	 * source (bigscience-workshop/bigscience,
	 * train/tr11-176B-ml/chronicles-prequel.md) or the row's own logged
	 * numbers settle:
	 *  - BL-05..08 (2022-02-21): NHEADS=64, stated under "Final round
	 *    comparison" ("all NHEADS=64 (above too)"). Vocab 250880 and full
	 *    recompute: the logged TFLOPs are Eq. 3,
	 *    96 B s l h^2 (1 + s/6h + V/16lh) / (t n), whose leading factor is
	 *    4 with activation checkpointing and 3 without; with V = 250880 it
	 *    gives the logged value (BL-05: 143.31 s/it, 384 GPUs -> 112.49).
	 *    bloom_eq3_matches checks that below; a row it does not hold for
	 *    counts its columns as guessed.
	 *  - BL-02..04 (2022-02-17): "VOCAB_LENGTH=250k" in the source, i.e.
	 *    BLOOM's padded 250880 (BL-01). Full recompute: bigscience's
	 *    Megatron-DeepSpeed states checkpointing is always on for the 200B
	 *    runs, and BL-03 without it would keep 10 micro-batches x 8 layers
	 *    of activations (~37 GB) beside ~55 GiB of model state, more than
	 *    the GPU has. Their TFLOPs come from the older 8 N tokens formula,
	 *    which carries no recompute factor, so it cannot be checked.
	 *    Optimizer: DeepSpeed's first BF16_Optimizer (its code of early
	 *    2022) keeps the fp32 master weights and the fp32 and bf16
	 *    gradients whole on every rank and shards only Adam's moments:
	 *    plan master "replicated". Four days later (BL-05..08) the runs
	 *    were on a build that shards the master as well; with a replicated
	 *    master those rows would be ~40% over their measured memory. */
	if (bloom) {
		int feb17 = strstr(F("table_or_figure"), "Best TFLOPs") != NULL;
		int blank = !m->heads || !m->vocab;
		if (!m->heads)
			m->heads = 64;
		if (!m->kv_heads)
			m->kv_heads = m->heads;
		if (!m->vocab)
			m->vocab = 250880;
		if (blank && !feb17 &&
		    !bloom_eq3_matches(notes, m, ival(F("global_batch")), ival(F("n_gpus"))))
			guess(r->guessed, " n_heads vocab recompute", sizeof r->guessed);
		m->embedding_norm = 1;
	}
	if (!m->seq_len && strstr(notes, "seq_len=8192"))
		m->seq_len = 8192;   /* torchtitan's llama3 default, stated in notes */
	if (!m->vocab && strstr(mn, "GPT3"))
		m->vocab = 51200;
	if (!m->layers || !m->hidden || !m->heads || !m->ffn || !m->vocab || !m->seq_len) {
		snprintf(r->skip, sizeof r->skip, "model shape incomplete");
		return;
	}
	if (!m->kv_heads)
		m->kv_heads = m->heads;
	m->head_dim = m->hidden / m->heads;
	/* Task heads with 2 outputs (SQuAD's start/end logits, QQP's two
	 * classes): no vocabulary projection, an untied hidden x 2 output
	 * layer; the word-embedding table is still trained (the optimizer
	 * of DLE's run_squad.py takes every parameter but the pooler) and
	 * its gradient all-reduced (tests/data/holdout_README.md). */
	if (strstr(F("model"), "SQuAD") || strstr(F("model"), "classification")) {
		m->task_head = 2;
		m->tied_embeddings = 0;
	}

	int tp = ival(F("tp")), pp = ival(F("pp")), dp = ival(F("dp")), cp = ival(F("cp"));
	int ep = ival(F("ep")), gbs = ival(F("global_batch")), mbs = ival(F("micro_batch"));
	int ngpu = ival(F("n_gpus"));
	if (!cp)
		cp = 1;
	if (!ep)
		ep = 1;
	if (!mbs && strstr(notes, "local batch") && pp == 1)
		mbs = (int)num_after(notes, "local batch");
	if (!tp || !pp || !dp || !gbs || !mbs || !ngpu) {
		snprintf(r->skip, sizeof r->skip, "parallel config incomplete (tp %d pp %d dp %d gbs %d mbs %d)",
			 tp, pp, dp, gbs, mbs);
		return;
	}

	if (starts(F("gpu"), "HETEROGENEOUS")) {
		if (!starts(r->id, "AMPHET")) {
			snprintf(r->skip, sizeof r->skip, "heterogeneous row of an unknown cluster");
			return;
		}
		row_build_amphet(cat, r, F("table_or_figure"), tp, pp, dp, mbs, gbs);
		if (!r->skip[0]) {
			r->measured = atof(F("value"));
			r->usable = 1;
		}
		return;
	}
	struct gpu_spec g;
	row_gpu(cat, *F("gpu") ? F("gpu") : F("cluster"), &g);
	struct cluster *c = &r->cluster;
	cluster_init(c);
	struct pool *p = &c->pools[0];
	c->n_pools = 1;
	memset(p, 0, sizeof *p);
	hp_strlcpy(p->name, "pool", sizeof p->name);
	p->gpu = g;
	p->gpus_per_node = ngpu < 8 ? ngpu : (g.gen == GEN_BLACKWELL && strstr(F("gpu"), "GB200") ? 4 : 8);
	/* A DGX-2 holds 16 V100 on one NVSwitch fabric (PTBERT rows). */
	if (strstr(F("interconnect"), "DGX-2") && ngpu <= 16)
		p->gpus_per_node = ngpu;
	p->nodes = (ngpu + p->gpus_per_node - 1) / p->gpus_per_node;
	p->intra = g.def_intra;
	p->nics = g.def_nics;
	p->nic_gbps = g.def_nic_gbps;
	const char *ic = F("interconnect");
	if (strstr(ic, "8x200Gb/s")) {
		p->nics = 8;
		p->nic_gbps = 200;
	} else if (strstr(ic, "Omni-Path")) {
		p->nics = 4;
		p->nic_gbps = 100;
		p->intra = INTRA_NVLINK;
	} else if (strstr(ic, "400Gb/s per GPU")) {
		p->nics = 8;
		p->nic_gbps = 400;
	} else if (strstr(ic, "Gbps per node") && num_after(ic, "inter-node") > 0) {
		/* vTrain's multi-node configs (VTM-*): "inter 800" Gb/s per
		 * node (the configs in config/validation/multi/), half the A100
		 * catalog's default 8 x 200 Gb/s: the node's NICs share it. */
		p->nic_gbps = num_after(ic, "inter-node") / p->nics;
	} else if (strstr(ic, "(1 GPU each)")) {
		/* One GPU per cloud instance (AWS p3.2xlarge): every GPU is a
		 * node of its own, on the instance's Ethernet ("up to 10
		 * Gbps"). */
		p->gpus_per_node = 1;
		p->nodes = ngpu;
		p->nics = 1;
		if (num_after(ic, "up to") > 0)
			p->nic_gbps = num_after(ic, "up to");
	}
	pool_apply_defaults(p);

	struct plan *pl = &r->plan;
	plan_init(pl);
	pl->mbs = mbs;
	pl->gbs = gbs;
	pl->cp = cp;
	pl->ep = ep;
	pl->flash = !megatron2021;
	pl->sp = !megatron2021 || starts(r->id, "K22");
	const char *prec = F("precision");
	pl->precision = strstr(prec, "fp8") || strstr(prec, "float8") ? HP_FP8
			: strstr(prec, "fp16")                         ? HP_FP16
			: starts(prec, "fp32")                         ? HP_FP32
								       : HP_BF16;
	if (starts(r->id, "N21"))
		pl->precision = HP_FP16;
	const char *rc = F("recompute");
	pl->recompute = starts(rc, "full")                       ? RC_FULL
			: starts(rc, "selective") && strstr(rc, "op-level") ? RC_SELECTIVE_OP
			: starts(rc, "selective")                    ? RC_SELECTIVE
								     : RC_NONE;
	/* torchtitan computes the loss with PyTorch's eager cross_entropy on
	 * fp32 logits (loss parallel under TP), not a fused kernel. */
	if (strstr(F("source"), "torchtitan"))
		pl->loss = LOSS_EAGER;
	/* torchtitan's "memory" is torch.cuda.memory_stats()
	 * ["reserved_bytes.all.peak"] (torchtitan/components/metrics.py,
	 * DeviceMemoryMonitor.get_peak_stats): the caching allocator's
	 * reserve, without the CUDA context and NCCL's buffers, which
	 * perf_stage.outside holds. The other memory rows (BLOOM's "max memory
	 * used", DLPerf's table) are read as whole-device use, nvidia-smi. */
	r->mem_reserved = strstr(F("source"), "torchtitan") != NULL;
	if (starts(r->id, "N21-T2"))
		pl->recompute = RC_FULL;   /* notes: the Table-1 runs' settings */
	if (bloom && !*rc)
		pl->recompute = RC_FULL;   /* see the BLOOM note above */
	/* Korthikanti et al. 2022 compare their present work (sequence
	 * parallelism + selective recompute, Table 5) against a baseline of
	 * tensor parallelism without SP and with full recompute (Table 4's
	 * "baseline with recompute"); calculon's validation inputs for the same
	 * rows (validation/seqsel/tab5/ *_full.json) set tensor_par_comm_type
	 * "ar", i.e. no SP, too. */
	if (starts(r->id, "K22") && pl->recompute == RC_FULL)
		pl->sp = 0;
	/* What ran each source, and so its overlaps (src/framework.c):
	 * NeMo and Megatron-LM's own scripts of 2024 ran Megatron-Core with
	 * its performance recipes; MosaicML's llm-foundry and torchtitan ran
	 * PyTorch FSDP (prefetch and overlapped reduce-scatter); the 2021-22
	 * Megatron-LM papers, BLOOM's Megatron-DeepSpeed and vTrain's
	 * Megatron-DeepSpeed runs reduced gradients after the backward. */
	if (starts(r->id, "MLM19"))
		pl->framework = FW_MEGATRON_LM;
	else if (starts(r->id, "MTNLG") || bloom)
		pl->framework = FW_DEEPSPEED;   /* Megatron-DeepSpeed: Megatron's TP inside
						 * DeepSpeed's pipeline engine (MT-NLG, Smith
						 * et al. 2022 Sec. 2; BLOOM's GPTModelPipe) */
	else if (starts(r->id, "DLPERF")) {
		/* Megatron-LM @8aa4619f (March 2021) is on a branch without the
		 * pipeline scatter/gather (NVIDIA/Megatron-LM 72e4230bb5, Feb
		 * 2021, is not its ancestor): the megatron-core row with its
		 * overlaps off runs as it did (no SP, so no TP overlap). */
		pl->framework = FW_MEGATRON_CORE;
		pl->grad_overlap = 0;
		pl->param_overlap = 0;
	}
	else if (bert) {
		/* PyTorch DDP (apex AMP) / Horovod: fp16 gradients all-reduced
		 * bucket by bucket during the backward: the megatron-core row
		 * with its gradient overlap (fp16 runs reduce fp16). */
		pl->framework = FW_MEGATRON_CORE;
		pl->param_overlap = 0;
	}
	else if (strstr(notes, "ZeRO-3 without model parallelism (DeepSpeed)"))
		pl->framework = FW_DEEPSPEED;   /* N21 Table 2's ZeRO-3 rows */
	else if (starts(r->id, "NEMO") || starts(r->id, "MLL") || starts(r->id, "MLM") ||
	    starts(r->id, "MB-") || starts(r->id, "DGXC"))
		pl->framework = FW_MEGATRON_CORE;
	else if (starts(r->id, "MPT") || starts(r->id, "TT") || starts(r->id, "MAXT"))
		pl->framework = FW_TORCHTITAN;
	else
		pl->framework = FW_MEGATRON_LM;
	/* torch.compile (the plan key compile, docs/compile.md): torchtitan's
	 * rows state it in the precision column ("torch.compile", "no
	 * torch.compile"); MaxText's jit hands XLA the whole step, which fuses
	 * a block's element-wise ops as Inductor does (counted as compile on,
	 * simplified). MPT (llm-foundry) is eager, the default. */
	if (pl->framework == FW_TORCHTITAN && !strstr(F("precision"), "no torch.compile") &&
	    (strstr(F("precision"), "torch.compile") || starts(r->id, "MAXT")))
		pl->compile = 1;
	if (bloom)
		pl->grad_fp32 = 1;   /* DeepSpeed's bf16 optimizer reduces fp32 gradients */
	if (bloom && strstr(F("table_or_figure"), "Best TFLOPs"))
		pl->master = MASTER_REPLICATED;
	const char *z = F("zero_stage");
	pl->zero = *z ? atoi(z) : (starts(r->id, "K22") ? 0 : 1);
	if (bloom)
		pl->zero = 1;
	const char *sc = F("schedule");
	int v = (int)num_after(sc, "v=");
	if (!v)
		v = (int)num_after(sc, "VP=");
	if (strstr(sc, "interleaved") && v >= 2 && pp > 1) {
		pl->schedule = SCHED_INTERLEAVED;
		pl->vpp = v;
		if (m->layers / pp < v)
			pl->schedule = SCHED_1F1B, pl->vpp = 1;
	}
	struct hp_err err = { 0 };
	if (plan_uniform(pl, c, m, 0, tp, pp, dp, &err) < 0) {
		snprintf(r->skip, sizeof r->skip, "%.150s", err.msg);
		return;
	}
	/* Interleaved runs whose layers fill pp x vp chunks but two (Llama
	 * 3.1 405B: 126 layers on 16 x 8): the first and last stage hold one
	 * layer less (Megatron-Core's embedding/loss accounting). */
	if (pl->schedule == SCHED_INTERLEAVED && pp > 2 && m->layers % pp &&
	    (m->layers + 2) % (pp * pl->vpp) == 0) {
		int per = (m->layers + 2) / pp, at = 0;
		struct replica *rep = &pl->replicas[0];
		for (int i = 0; i < pp; i++) {
			int nl = per - (i == 0 || i == pp - 1);
			rep->stages[i].first_layer = at;
			rep->stages[i].last_layer = at + nl - 1;
			at += nl;
		}
	}
	if (plan_validate(pl, c, m, r->id, &err) < 0) {
		snprintf(r->skip, sizeof r->skip, "%.150s", err.msg);
		return;
	}

	double value = atof(F("value"));
	double tokens = (double)gbs * m->seq_len;
	if (r->kind == ROW_MEMORY) {
		r->measured = value * 1073741824.0;   /* GiB, or GB as reported ~ GiB */
	} else if (!strcmp(metric, "step_time") || !strcmp(metric, "step_time_s")) {
		r->measured = value;
	} else if (!strcmp(metric, "sequences_per_sec") && value > 0) {
		r->measured = gbs / value;   /* all GPUs together (holdout_small.csv) */
	} else if (!strcmp(metric, "tokens_per_sec_per_gpu")) {
		r->measured = tokens / (value * ngpu);
	} else if (num_after(notes, "implied step time") > 0) {
		r->measured = num_after(notes, "implied step time");
	} else if (num_before(notes, "tokens/s/GPU") > 0) {
		r->measured = tokens / (num_before(notes, "tokens/s/GPU") * ngpu);
	} else {
		snprintf(r->skip, sizeof r->skip, "no step time derivable from metric %s", metric);
		return;
	}
	r->usable = 1;
#undef F
}

/* Load every row of path. Returns the count; *rows is malloc'd. */
static int rows_load(const struct catalog *cat, const char *path, struct calib_row **rows)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	static char names[40][1200], fields[40][1200];
	int nn = csv_next_record(f, names, 40);
	int cap = 128, n = 0;
	*rows = calloc((size_t)cap, sizeof **rows);
	int k;
	while ((k = csv_next_record(f, fields, 40)) > 0) {
		if (k < nn)
			continue;
		if (n == cap)
			*rows = realloc(*rows, (size_t)(cap *= 2) * sizeof **rows);
		row_build(cat, fields, names, nn, &(*rows)[n++]);
	}
	fclose(f);
	return n;
}

/* Held-out rows: never fitted to, only predicted (tests/data/holdout_README.md). */
static const char *const holdout_files[] = { "tests/data/holdout.csv" };
/* Blind rows (small models on V100 and workstation GPUs): recorded before
 * they were first predicted, never fitted, never part of the
 * cross-validation; the accuracy test prints them apart. */
static const char *const small_files[] = { "tests/data/holdout_small.csv" };

/* Every calibration file the accuracy test and the fit read, in order. */
static const char *const calib_files[] = {
	"tests/data/training.csv",          /* papers and vendor tables */
	"tests/data/vtrain-a100-single.csv", /* small GPT models on 2-8 A100s */
	"tests/data/holdout.csv"            /* more sources: every row predicted
					     * held out with its group (LOSO) */
};

/* Load every row of every calibration file. Returns the count, or -1 if a
 * file cannot be read; *rows is malloc'd. */
static inline int rows_load_files(const struct catalog *cat, const char *const *files,
				  size_t nf, struct calib_row **rows)
{
	int n = 0;
	*rows = NULL;
	for (size_t i = 0; i < nf; i++) {
		struct calib_row *part;
		int k = rows_load(cat, files[i], &part);
		if (k < 0)
			return -1;
		*rows = realloc(*rows, (size_t)(n + k) * sizeof **rows);
		for (int j = 0; j < k; j++)
			part[j].extra = strstr(files[i], "holdout") != NULL;
		memcpy(*rows + n, part, (size_t)k * sizeof *part);
		free(part);
		n += k;
	}
	return n;
}

static inline int rows_load_all(const struct catalog *cat, struct calib_row **rows)
{
	return rows_load_files(cat, calib_files, sizeof calib_files / sizeof *calib_files, rows);
}

/* The embedded catalog and every calibration row, as the accuracy test,
 * the comparison and the fit all start: returns the row count, or -1 with
 * the reason on stderr under the name who. */
static inline int rows_open(const char *who, struct catalog *cat, struct calib_row **rows)
{
	struct hp_err err = { 0 };
	if (catalog_load(cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s: %s\n", who, err.msg);
		return -1;
	}
	int n = rows_load_all(cat, rows);
	if (n <= 0) {
		fprintf(stderr, "%s: tests/data/*.csv: cannot read the calibration rows "
			"(run from the repository root)\n", who);
		return -1;
	}
	return n;
}

static inline int rows_load_holdout(const struct catalog *cat, struct calib_row **rows)
{
	return rows_load_files(cat, holdout_files, sizeof holdout_files / sizeof *holdout_files,
			       rows);
}

static inline int rows_load_small(const struct catalog *cat, struct calib_row **rows)
{
	return rows_load_files(cat, small_files, sizeof small_files / sizeof *small_files, rows);
}

/* The source group of a row: its id up to the first '-' (N21, K22, BL,
 * MPT, NEMO, MLL, TT, VT). Leave-one-source-out validation holds out one
 * group at a time. */
static inline void row_group(const struct calib_row *r, char *out, size_t n)
{
	size_t k = 0;
	while (r->id[k] && r->id[k] != '-' && k + 1 < n) {
		out[k] = r->id[k];
		k++;
	}
	out[k] = '\0';
}

/* Predicted value of a usable row (step seconds, or peak bytes). */
static double row_predict(const struct calib_row *r, const struct perf_calib *k)
{
	struct estimate e;
	struct hp_err err = { 0 };
	if (perf_estimate(&r->cluster, &r->model, &r->plan, k, &e, &err) < 0)
		return NAN;
	double v = e.step_time_s;
	if (r->kind == ROW_MEMORY) {
		v = 0;
		for (int i = 0; i < e.n_stages; i++) {
			double t = e.stages[i].total - (r->mem_reserved ? e.stages[i].outside : 0);
			if (t > v)
				v = t;
		}
	}
	estimate_free(&e);
	return v;
}

#endif
