/* registry.c -- the one list of built-in policies and placers, by name.
 *
 * To add a policy: write policies/NAME.c defining a const struct
 * gs_policy_ops, declare it below and add it to gs_policies[].  A test
 * checks that names are unique. */
#include "policy.h"

#include <string.h>

extern const struct gs_policy_ops gs_policy_fifo;
extern const struct gs_policy_ops gs_policy_fifo_backfill;
extern const struct gs_policy_ops gs_policy_priority;
extern const struct gs_policy_ops gs_policy_static;
extern const struct gs_policy_ops gs_policy_fair;
extern const struct gs_policy_ops gs_policy_hps;
extern const struct gs_policy_ops gs_policy_rllite;
extern const struct gs_policy_ops gs_policy_smallest;
extern const struct gs_policy_ops gs_policy_shortest;
extern const struct gs_policy_ops gs_policy_shortest_gpu;
extern const struct gs_policy_ops gs_policy_pbs;
extern const struct gs_policy_ops gs_policy_sbs;

extern const struct gs_placer_ops gs_placer_first_fit;
extern const struct gs_placer_ops gs_placer_best_fit;
extern const struct gs_placer_ops gs_placer_best_fit_gpu;
extern const struct gs_placer_ops gs_placer_random;
extern const struct gs_placer_ops gs_placer_packing;
extern const struct gs_placer_ops gs_placer_dot_product;
extern const struct gs_placer_ops gs_placer_clustering;
extern const struct gs_placer_ops gs_placer_fgd;

const struct gs_policy_ops *const gs_policies[] = {
    &gs_policy_fifo,
    &gs_policy_fifo_backfill,
    &gs_policy_priority,
    &gs_policy_static,
    &gs_policy_fair,
    &gs_policy_hps,
    &gs_policy_rllite,
    &gs_policy_smallest,
    &gs_policy_shortest,
    &gs_policy_shortest_gpu,
    &gs_policy_pbs,
    &gs_policy_sbs,
    NULL,
};

const struct gs_placer_ops *const gs_placers[] = {
    &gs_placer_first_fit,
    &gs_placer_best_fit,
    &gs_placer_best_fit_gpu,
    &gs_placer_random,
    &gs_placer_packing,
    &gs_placer_dot_product,
    &gs_placer_clustering,
    &gs_placer_fgd,
    NULL,
};

const struct gs_policy_ops *gs_policy_find(const char *name)
{
    for (int i = 0; gs_policies[i]; i++)
        if (strcmp(gs_policies[i]->name, name) == 0)
            return gs_policies[i];
    return NULL;
}

const struct gs_placer_ops *gs_placer_find(const char *name)
{
    for (int i = 0; gs_placers[i]; i++)
        if (strcmp(gs_placers[i]->name, name) == 0)
            return gs_placers[i];
    return NULL;
}
