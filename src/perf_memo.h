/* perf_memo.h — what callers outside the performance model may tell the
 * estimate memo (perf_memo.c; its tables are private to src/perf*.c).
 *
 * Every perf_estimate() checks that its cluster, model and constants are
 * the ones the calling thread's memo was filled for, by content: a
 * cluster edited in place between calls is never served stale values.
 * That check compares every pool (about 1.3 KB each) and the model, and
 * on 16 pools it was 6% of a planner search (issue 13, fifth round). A
 * caller that holds its inputs fixed for a while (the planner, for one
 * global setting) pins them: until the pin is undone, an estimate on the
 * same cluster and model pointers with the shipped constants skips the
 * comparison. */
#ifndef HP_PERF_MEMO_H
#define HP_PERF_MEMO_H

#include "catalog.h"
#include "cluster.h"

/* The pin a thread held before perf_memo_pin, restored by
 * perf_memo_unpin (pins nest: a search inside a search). */
struct perf_memo_pin {
	const struct cluster *c;
	const struct model_spec *m;
	unsigned gen;                 /* the memo's generation it was checked at */
	unsigned long long wraps;     /* ... and the count of generation wraps */
};

/* Pin c and m for this thread: the caller promises that neither changes
 * until the matching perf_memo_unpin. Compares them once (as any
 * estimate does) and saves the previous pin in *saved. Never fails. */
void perf_memo_pin(const struct cluster *c, const struct model_spec *m,
		   struct perf_memo_pin *saved);
/* Restore the pin saved by perf_memo_pin. */
void perf_memo_unpin(const struct perf_memo_pin *saved);

/* The planner's memory check (search.c, mem_first) reads of a plan's
 * memory only a summary per replica group: of its stage records (as
 * perf_stage_memories fills them) the first largest total / capacity
 * (HUGE_VAL where the capacity is 0), that stage's total less its slack
 * and its capacity, whether a stage does not fit, and whether a stage
 * that fits is within the headroom (search_mem_state's tests, search.h).
 * Issue 13, fourteenth round. */
struct perf_group_mem {
	double worst, need, cap;
	int nofit, risky;
};

/* The summary kept for replica group r of plan p on c and m with the
 * shipped constants at headroom, or NULL. A group's stage records from
 * perf_stage_memories are a function of the plan's settings (every
 * field of struct plan but its replicas), the DP degree (plan_dp), the
 * group's stages (pool, TP, layers) and its micro-batches, these last
 * only through min(micro-batches, the stages in flight), and the stages
 * in flight are fewer than twice the pipeline's depth (perf_mem.c,
 * perf_stage_memory_at); so the key holds the micro-batches capped at
 * twice the depth, and not the group's count, batch share, place in the
 * plan nor the other groups. Groups of more than 32 stages, or of a
 * pool, TP or layer that does not fit the key's packing, are never
 * kept (NULL; the put does nothing). perf_memo_group_mem_put keeps v
 * for that key; the caller vouches that v is that summary. Both open
 * this thread's memo (perf_memo_open: an edited cluster or model starts
 * it over). */
const struct perf_group_mem *perf_memo_group_mem(const struct cluster *c,
						 const struct model_spec *m,
						 const struct plan *p, int r, double headroom);
void perf_memo_group_mem_put(const struct cluster *c, const struct model_spec *m,
			     const struct plan *p, int r, double headroom,
			     const struct perf_group_mem *v);

#endif
