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

#endif
