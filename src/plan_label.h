/* plan_label.h — what a list of plans calls each of its plans.
 *
 * A plan is named by its layouts ("h100 tp4 pp2 + a100>h100 pp3"), with
 * pool names shortened so that no two pools read the same (search.c's
 * make_label fills search_plan.label the older way, with blindly cut
 * names; lists name plans here). Two plans in one list can share a name:
 * groups of one layout that differ only in their share of the batch, or
 * plans that differ in a setting the layout does not show (interleaving,
 * micro-batch size, recomputation, ...). Every list that shows plans side
 * by side (the plan table, the TUI's Plans view, the reports' plan
 * tables) names them through plan_list_label, so that every list reads a
 * plan the same way and two rows read the same only when they differ in
 * their layer split or batch shares alone (rank and the detail tell those
 * apart). */
#ifndef HP_PLAN_LABEL_H
#define HP_PLAN_LABEL_H

#include "search.h"

#include <stddef.h>

/* The layout part of a label ("h100 tp4 pp2 + a100>h100 pp3") takes at
 * most this many bytes with its NUL: three parts that each run a pipeline
 * from one pool to another with whole 31-byte names ("A>B ppNN", 68
 * bytes, and " + " between them), as plan_pool_names gives three pools
 * whose short names would clash; a longer one ends in "...", and so does
 * one written into a smaller buffer (search_plan.label). */
#define PLAN_LAYOUT_MAX 256

/* Room for any list label: the layout, the micro-batch counts (at most
 * 95 bytes, split_note) and the settings suffix (at most 95). Every
 * buffer that holds a list label is sized from it. */
#define PLAN_LABEL_MAX (PLAN_LAYOUT_MAX + 192)

/* A pool's name in a label: whole when it takes at most PLAN_POOL_COLS
 * terminal columns (14: every default pool name, the catalog's GPU names
 * lowercased, "a100-sxm4-40gb" the longest); else its head and tail
 * around a "~" ("a100-sxm~ast-1" for a100-sxm4-40gb-us-east-1). Pools
 * whose head~tail read the same show instead the words that tell them
 * apart, between a head and a tail ("datace~h1a~ck1" for
 * datacenter-west-h1a-row07-rack1 beside ...-h1b-... and ...-a1c-...:
 * the words before and after are common to all three), when those fit;
 * then the width grows column by column until no two pools of the
 * cluster read the same (pool names are unique, so the whole names at
 * worst). Never a blind cut: the old labels cut names at 10 columns, and
 * a100-sxm4-40gb and a100-sxm4-80gb both read "a100-sxm4-"; and widening
 * alone made three such 31-byte names whole, a label past the layout's
 * bytes. */
#define PLAN_POOL_COLS 14
#define PLAN_POOL_NAME_MAX 40   /* bytes: a 31-byte name, "~" and NUL */

/* The short name of every pool of c, names[i] for pool i. */
void plan_pool_names(const struct cluster *c, char (*names)[PLAN_POOL_NAME_MAX]);
/* The same from cols columns up (3 at least), for a narrower column. */
void plan_pool_names_cols(const struct cluster *c, int cols, char (*names)[PLAN_POOL_NAME_MAX]);

/* The layout label of p on c with plan_pool_names' names: one part per
 * run of replica groups of one layout, "POOL tpT ppS" or "FIRST>LAST ppS". */
void plan_label_layout(const struct plan *p, const struct cluster *c, char *buf, size_t n);

/* The layout label plus the micro-batch counts of replica groups of one
 * layout ("h100 tp8 pp2 366/365 micro-batches"; brief: "... mb"). */
void plan_label_base(const struct search_plan *sp, const struct cluster *c, int brief,
		     char *buf, size_t n);

/* plan_label_base, then the settings that tell sp apart from every other
 * plan of the list whose base label reads the same ("vpp2", "mbs2",
 * "rc-sele", "z1", "cp2", "ep8", "fp8", and "48gpu" for another GPU
 * count). The list is plans[order[k]] for
 * k < n_order, or plans[0..n_order) when order is NULL; sp itself may be in
 * it (compared by address) or not. c is the cluster the plans are on. */
void plan_list_label(const struct search_plan *sp, const struct cluster *c,
		     const struct search_plan *plans, const int *order, int n_order, int brief,
		     char *buf, size_t n);

/* Rewrite the label of every plan of res (ranked, Pareto, per pool, stock,
 * nearest and memory misses) as plan_label_layout's on c, the cluster
 * res was searched on, so that whatever shows search_plan.label reads the
 * lists' names. After search_run, which ranks ties on its own labels. */
void plan_label_result(struct search_result *res, const struct cluster *c);

#endif
