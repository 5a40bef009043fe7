/* place.c -- the first-fit and GPU-only best-fit placers.
 *
 * first-fit:    the ranges in the order given (pools in scenario order),
 *   and in each the lowest-numbered node with room: fast, and it packs the
 *   front of the fleet.
 * best-fit-gpu: across all ranges, the node (for fractions, the GPU) that
 *   is left with the least free GPU capacity after placing the job; ties go
 *   to the earlier pool and lower node.  Keeps large holes open for large
 *   jobs.  It weighs GPUs only (the core still checks CPU and memory): a
 *   distinct, faster choice than best-fit (place_heur.c), which weighs CPU
 *   and GPU left alike as the FGD paper defines it.
 * Both are O(pools * log nodes) per decision through the fleet's index. */
#include "policy.h"
#include "../sim/core/sim.h"

static int first_fit(void *st, struct gs_sim *sim, const struct gs_job *job,
                     const struct gs_range *r, int n, struct gs_alloc *out)
{
    (void)st;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (int i = 0; i < n; i++)
        if (gs_fleet_find(f, &r[i], &job->need, GS_FIT_FIRST, out, NULL) == 0)
            return 0;
    return GS_ENOFIT;
}

int gs_place_best(const struct gs_fleet *f, const struct gs_need *need,
                  const struct gs_range *r, int n, struct gs_alloc *out)
{
    struct gs_alloc a = { .pool = -1 };
    int best = -1, rc;
    for (int i = 0; i < n; i++) {
        int score;
        if ((rc = gs_fleet_find(f, &r[i], need, GS_FIT_BEST, &a,
                                &score)) < 0) {
            if (rc == GS_ENOMEM)
                return rc;
            continue;
        }
        if (best < 0 || score < best) {
            best = score;
            if ((rc = gs_alloc_copy(out, &a)) < 0) {
                gs_alloc_reset(&a);
                return rc;
            }
            if (score == 0)
                break;
        }
    }
    gs_alloc_reset(&a);
    return best < 0 ? GS_ENOFIT : 0;
}

static int best_fit(void *st, struct gs_sim *sim, const struct gs_job *job,
                    const struct gs_range *r, int n, struct gs_alloc *out)
{
    (void)st;
    return gs_place_best(gs_sim_fleet(sim), &job->need, r, n, out);
}

const struct gs_placer_ops gs_placer_first_fit = {
    .abi = GS_POLICY_ABI,
    .name = "first-fit",
    .summary = "lowest-numbered node with room, pools in scenario order",
    .place = first_fit,
};

const struct gs_placer_ops gs_placer_best_fit_gpu = {
    .abi = GS_POLICY_ABI,
    .name = "best-fit-gpu",
    .summary = "the node or GPU left with the least free GPU capacity",
    .place = best_fit,
};
