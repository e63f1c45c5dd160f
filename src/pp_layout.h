/* pp_layout.h — Megatron-Core's pipeline layout string
 * (--pipeline-model-parallel-layout), read and checked.
 *
 * The syntax is Megatron-Core's own (pipeline_parallel_layer_layout.py
 * @d98e8a64, PipelineParallelLayerLayout.parse_str_to_list): E the
 * embedding, t a transformer (decoder) layer, m an MTP layer, L the loss
 * and output layer; "|" ends a virtual stage; "X*N" repeats one symbol N
 * times and "(...)*N" a group; commas are ignored. "Et*4|(t*4|)*14tL"
 * is 16 virtual stages: the embedding and 4 layers, 14 of 4 layers, and
 * 1 layer with the loss. Virtual stage k runs on pipeline rank k mod PP
 * as its chunk k / PP (round robin, as Megatron-Core assigns them).
 *
 * hetplan reads a stricter subset than Megatron's regular expressions:
 * no nested groups, no count after a count ("t*2*3") and no empty group;
 * Megatron reads those oddly or not at all. This module knows no plan
 * (plan.c and perf.c call it), so it includes nothing of hetplan's. */
#ifndef HP_PP_LAYOUT_H
#define HP_PP_LAYOUT_H

#include <stddef.h>

/* The plan key's buffer, NUL included: "Et*4|(t*4|)*14tL" is 16 bytes;
 * a 61-layer model written out symbol by symbol on 32 virtual stages is
 * 95, so 128 holds every layout a user types. It is part of struct plan,
 * which the planner initialises and compares per candidate: 128 bytes
 * rather than 256 kept that cost to half. */
#define PP_LAYOUT_TEXT 128
/* Virtual stages read: PP x VP, with VP at most 64 (the schedule key's
 * range) and PP at most 16 at that VP; no published run comes near. */
#define PP_LAYOUT_VSTAGES 1024
/* A count after "*": at most this (a larger one is a typo; the layers
 * must still add up to the model's). */
#define PP_LAYOUT_REPEAT_MAX 100000
/* Transformer layers in all: the plan's layer fields stop at 1e6. */
#define PP_LAYOUT_LAYERS_MAX 1000000

enum { PPL_EMB = 1, PPL_LOSS = 2, PPL_MTP = 4 };

struct pp_layout {
	int n;                               /* virtual stages */
	int layers;                          /* t symbols in all */
	int n_emb, n_loss, n_mtp;            /* E, L and m symbols in all */
	char first_sym, last_sym;            /* of the whole layout, 0: none */
	int stage_layers[PP_LAYOUT_VSTAGES]; /* t symbols of virtual stage k */
	unsigned char flags[PP_LAYOUT_VSTAGES]; /* PPL_* held by stage k */
};

/* Parse s into L. Returns 0, or -1 with msg naming the 1-based position
 * in s and what was wrong there ("position 5 ('x'): ..."). */
int pp_layout_parse(const char *s, struct pp_layout *L, char *msg, size_t n);

/* Check L for pp ranks of vp chunks each and a model of `layers`
 * transformer layers and no MTP layers (hetplan's models have none):
 * n = pp x vp, E first and L last, once each, the layers adding up, and
 * each rank holding at least one layer (a hetplan stage holds one).
 * Returns 0, or -1 with msg. */
int pp_layout_check(const struct pp_layout *L, int pp, int vp, int layers, char *msg,
		    size_t n);

/* Transformer layers of rank r of pp (the layouts' chunks r, r + pp, ...). */
int pp_layout_rank_layers(const struct pp_layout *L, int pp, int r);

/* The share of rank r's time per micro-batch that one chunk of it takes
 * while the pipeline fills or drains, chunk c of its n / pp: the chunk's
 * transformer layers over the rank's. The embedding and the loss are
 * hetplan's first and last stages' own costs (perf_stage_compute), the
 * same with and without a layout, so they count for no chunk. A
 * simplification: a dense layer and an MoE layer are not told apart,
 * and the embedding's and output layer's time is spread over the rank's
 * chunks. With chunks of equal layers it is 1 / (n / pp). */
double pp_layout_chunk_share(const struct pp_layout *L, int pp, int r, int c);

/* 1 when every rank's chunks hold equal transformer layers (rank r's
 * chunks r, r + pp, ... each as many as chunk r): the schedule is that of
 * the even split, and the estimate the plan's without the layout. */
int pp_layout_even(const struct pp_layout *L, int pp);

/* Micro-batches' activations held on rank r of pp at the interleaved
 * schedule's peak, in units of one micro-batch through all the rank's
 * layers: Megatron-Core's schedule (schedules.py get_schedule_table,
 * get_model_chunk_id) walked step by step, (pp - r - 1) x 2 + (vp - 1)
 * x pp warm-up forwards, then a forward and a backward alternately,
 * each forward adding its chunk's layers and each backward freeing its
 * chunk's; the peak held over the rank's layers. A rank whose early
 * chunks are larger than its late ones peaks in the steady state, not
 * at the end of the warm-up. With equal chunks it is (warm-up + 1) / vp,
 * capped at mb. */
double pp_layout_inflight(const struct pp_layout *L, int pp, int r, int mb);

/* The layout of text, parsed once per thread and kept while text stays
 * the same; NULL when text is empty or does not parse. The pointer is to
 * a per-thread slot: it stays valid until this thread's next call with
 * another text. */
const struct pp_layout *pp_layout_cached(const char *text);

#endif
