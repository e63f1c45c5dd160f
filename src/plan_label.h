/* plan_label.h — what a list of plans calls each of its plans.
 *
 * The planner names a plan by its layouts (search.c's make_label: "h100
 * tp4 pp2 + a100>h100 pp3"). Two plans in one list can share that name:
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

/* Room for any list label: the planner's 64-byte label, micro-batch
 * counts and the suffix. */
#define PLAN_LABEL_MAX 192

/* The planner's label plus the micro-batch counts of replica groups of one
 * layout ("h100 tp8 pp2 366/365 micro-batches"; brief: "... mb"). */
void plan_label_base(const struct search_plan *sp, int brief, char *buf, size_t n);

/* plan_label_base, then the settings that tell sp apart from every other
 * plan of the list whose base label reads the same ("vpp2", "mbs2",
 * "rc-sele", "z1", "cp2", "ep8", "fp8", and "48gpu" for another GPU
 * count). The list is plans[order[k]] for
 * k < n_order, or plans[0..n_order) when order is NULL; sp itself may be in
 * it (compared by address) or not. */
void plan_list_label(const struct search_plan *sp, const struct search_plan *plans,
		     const int *order, int n_order, int brief, char *buf, size_t n);

#endif
