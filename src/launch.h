/* launch.h — turn a plan into what starts the training job: Megatron-LM
 * arguments, a Slurm batch script that runs them under torchrun, a
 * DeepSpeed config, a torchtitan TOML job config, or a Slurm script that
 * runs a Hugging Face Trainer script (run_clm.py style) under torchrun
 * with its TrainingArguments and, for ZeRO, a DeepSpeed config.
 *
 * Stock frameworks run one pipeline layout on one kind of GPU with the
 * global batch split evenly, so a heterogeneous plan does not map onto one
 * job. For such a plan the output holds one piece per replica group (the
 * arguments that run that group alone, e.g. to measure it) and the notes
 * say plainly what the frameworks cannot express: stages on different GPU
 * types, different layouts per replica, unequal batch shares, and for each
 * of those that would be needed; each piece is also checked by the
 * format's framework rules, as a plan is. The Slurm scripts (slurm,
 * hf-trainer) name the environment they assume and set what NCCL needs on
 * the pool's transport (ib, efa, tcp, tcpx, tcpxo, gcp-rdma). */
#ifndef HP_LAUNCH_H
#define HP_LAUNCH_H

#include "perf.h"
#include "plan.h"

enum launch_format { LAUNCH_MEGATRON, LAUNCH_SLURM, LAUNCH_DEEPSPEED, LAUNCH_TORCHTITAN,
		     LAUNCH_HF_TRAINER, LAUNCH_FORMAT_COUNT };

/* The plan p (which passed plan_validate) as format f; tokens (0: 20 per
 * parameter, as `plan`) sets Megatron's --train-samples and torchtitan's
 * training.steps. Returns 0 with *out
 * (NUL-terminated, *len bytes) and *notes (one line per thing the format
 * cannot express, "" when none); the caller frees both. version goes into
 * the generated comments. Fails with -1 and err (HP_EXIT_USAGE) only on
 * a bad format, an estimate-only framework (launch_refuses), a Megatron
 * format (megatron, slurm) for a plan with the parameter-gather overlap
 * but not the gradient-reduce overlap (Megatron asserts against it), or
 * a piece whose ranks fit on ceil(GPUs / GPUs per node) nodes of its
 * pool neither evenly nor in whole TP groups a node (not DeepSpeed's
 * JSON, which places no ranks). Slurm pieces ask for those nodes; when
 * the GPUs do not split evenly, the last node runs fewer processes. The
 * DeepSpeed output is JSON: the config itself, or for a heterogeneous plan
 * {"pieces":[{"replica_group","pool","replicas","config"}],"cannot_express":[...]}.
 * The HF Trainer format (hf-trainer) runs data parallelism only: it fails
 * with -1 and err (HP_EXIT_INPUT, naming the flag) for TP, PP, CP or EP
 * above 1, an interleaved schedule, a global batch that is not a whole
 * number of micro-batches on every rank, and a plan of more than one
 * replica group (GPU types, layouts or batch shares that differ). */
int launch_render(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		  enum launch_format f, double tokens, const char *version, char **out,
		  size_t *len, char **notes, struct hp_err *err);

/* 0 when hetplan writes launch configs for p's framework (any, or a
 * stock framework: framework_launchable); else -1 with err (code
 * HP_EXIT_USAGE) naming the framework, saying it is estimate-only and
 * which frameworks launch takes. where (may be NULL: "launch") starts
 * the message: the flag or file the framework came from. */
int launch_refuses(const struct plan *p, const char *where, struct hp_err *err);

/* launch_refuses for format f: the HF Trainer format also takes the
 * estimate-only hf-transformers row (the Trainer with DDP), which the
 * other formats refuse. Same return. */
int launch_refuses_format(const struct plan *p, enum launch_format f, const char *where,
			  struct hp_err *err);

/* What launch_render would refuse about p for format f before anything
 * is written, so that a caller can say it before the memory check: for
 * the HF Trainer format, what its data parallelism cannot run (launch_render's
 * HP_EXIT_INPUT cases); 0 for the other formats, whose refusals stay in
 * launch_render. Returns 0, or -1 with err. */
int launch_format_refuses(const struct cluster *c, const struct plan *p, enum launch_format f,
			  struct hp_err *err);

/* The sentence `hetplan launch` gives a plan whose estimate e does not
 * fit (e->fits 0): "the plan does not fit in GPU memory: stage S of
 * replica group G on GPU needs X per GPU, Y more than its Z", into buf (n
 * bytes), without what --force does (the caller's). Writes nothing
 * when e fits. */
void launch_nofit_text(const struct estimate *e, const struct cluster *c, char *buf, size_t n);

/* "megatron", "slurm" (alias "torchrun"), "deepspeed", "torchtitan",
 * "hf-trainer", ignoring case. Returns 0 and sets *f, or -1 for any other name. */
int launch_format_parse(const char *s, enum launch_format *f);

/* The framework format f implies for a plan that names none (FW_ANY):
 * a torchtitan config runs under torchtitan, so its defaults apply
 * (framework_default_zero: FSDP2, ZeRO-3 at PP 1 and ZeRO-2 with PP, as
 * `--framework torchtitan` gives); an HF Trainer script runs
 * hf-transformers (DDP) unless the plan asks for ZeRO 1-3, which the
 * Trainer runs through DeepSpeed's engine over its eager model code: the
 * hf-deepspeed row. Sets p->framework and returns the note
 * to show (call before plan_default_zero); NULL when nothing is implied. */
const char *launch_format_framework(struct plan *p, enum launch_format f);

/* The --format whose config runs framework row fw (its formats row names
 * fw at ZeRO 0 or at ZeRO 1-3: "hf-trainer" for hf-transformers and
 * hf-deepspeed, "megatron" for megatron-core), NULL when no format does
 * (an estimate-only row launch refuses). */
const char *launch_format_running(enum hp_framework fw);

struct sbuf;
/* The plan's estimate as lines into b, each after pre ("# " in a config,
 * "hetplan launch: " on standard error): step time, tokens/s, MFU; with
 * with_cost $/h and $ per step (the cluster's prices as c holds them);
 * the memory verdict at the 5% default headroom and each pool's fullest
 * stage with what it leaves free. Nothing when the estimate fails. */
void launch_estimate_lines(struct sbuf *b, const struct cluster *c, const struct model_spec *m,
			   const struct plan *p, const char *pre, int with_cost);

#endif
