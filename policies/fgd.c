/* fgd.c -- Fragmentation Gradient Descent placement.
 *
 * Q. Weng, L. Yang, Y. Yu, W. Wang, X. Tang, G. Yang, L. Zhang, "Beware of
 * Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
 * Gradient Descent", USENIX ATC'23, section 4.  FGD places each task where
 * the expected fragmentation of the cluster grows least: for every node n
 * that can host task m it computes
 *     delta_n(m) = F_n(after placing m) - F_n(now),
 * F being the node's fragmentation measured against the workload's own
 * task-shape distribution (frag.h) -- CPU-only tasks included, and a
 * node's free GPUs fragmented in full for a task its free CPU cannot host
 * -- and takes the node with the smallest delta.  On a node, a fraction
 * goes to the GPU whose choice minimizes the delta (ties: the tightest
 * GPU); whole GPUs take fully free ones, all of which give the same delta.
 * Node ties go to the first node of the run's seeded order (classplace.h).
 * The delta is compared as is, not through the artifact's integer
 * 100 sigmoid(-delta/1000) (kplace.h), so near-ties are not ties here.
 *
 * The paper scores every node, O(nodes) per decision.  Here delta is a
 * function of the node's state class (classplace.h): it is computed once
 * per (class, task shape) and a decision costs O(live classes), which
 * grows with the diversity of node states, not with the fleet (bench_place
 * prints both).  Scoring a class costs O(candidate GPUs x shapes x GPUs per
 * node). */
#include "classplace.h"

#include <math.h>
#include <stdlib.h>

static double fgd_score(const struct gs_classplace *cp,
                        const struct gs_frag *fr, const struct gs_fclass *c,
                        const struct gs_demand *dm,
                        const struct gs_need *need, int *pick)
{
    (void)cp;
    if (!gs_classplace_host_fits(c, need))
        return INFINITY;
    int32_t cpu = c->cpu - need->cpu_milli;
    int after[GS_MAX_GPN], gpn = c->gpn;
    for (int g = 0; g < gpn; g++)
        after[g] = c->milli[g];
    if (dm->kind == GS_DEM_WHOLE) {
        if (gs_classplace_nfull(c) < dm->gpus)
            return INFINITY;
        for (int g = 0; g < dm->gpus; g++)
            after[g] = 0;           /* sorted: the fully free come first */
        return gs_frag_value_cpu(fr, c->pool, cpu, after, gpn) - c->F;
    }
    double best = INFINITY;
    for (int r = 0; r < gpn; r++) {
        if (c->milli[r] < dm->milli || c->mib[r] < dm->mib)
            continue;
        if (r > 0 && c->milli[r] == c->milli[r - 1] &&
            c->mib[r] == c->mib[r - 1])
            continue;               /* the same choice as rank r - 1 */
        after[r] -= dm->milli;
        double v = gs_frag_value_cpu(fr, c->pool, cpu, after, gpn) - c->F;
        after[r] += dm->milli;
        if (v <= best) {
            best = v;
            *pick = r;
        }
    }
    return best;
}

static int fgd_init(struct gs_sim *sim, struct gs_params *params, void **state,
                    struct gs_diag *d)
{
    (void)params;
    return gs_classplace_ops_init(sim, fgd_score, NULL, state, d);
}

const struct gs_placer_ops gs_placer_fgd = {
    .abi = GS_POLICY_ABI,
    .name = "fgd",
    .summary = "least growth of expected fragmentation (Weng et al., ATC'23)",
    .init = fgd_init,
    .free = gs_classplace_ops_free,
    .place = gs_classplace_ops_place,
};
