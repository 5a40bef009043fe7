/* place_heur.c -- the placers of the FGD paper's evaluation, as its
 * artifact scores them: random, best-fit, packing, dot-product and
 * clustering (FGD itself: fgd.c).
 *
 * Sources: the baselines of Weng et al., "Beware of Fragmentation" (USENIX
 * ATC'23, section 6.1) as implemented in their simulator
 * (github.com/hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/
 * plugin: random_score.go, best_fit_score.go, gpu_packing_score.go,
 * dot_product_score.go, gpu_clustering_score.go).  Each scores the
 * resources its definition names, with the integer scores (0..100) the
 * placement experiment uses -- the functions are kplace.h's, shared -- over
 * node classes (classplace.h), Cmax and Gmax the largest classed node's CPU
 * and GPU milli:
 *
 *   random       a node drawn uniformly among those where every resource
 *                fits (seeded GSL stream "placer.random"), a fraction on a
 *                GPU drawn uniformly among those with room;
 *   best-fit     100 (1 - 1/2 CPU left/Cmax - 1/2 GPU milli left/Gmax) on
 *                the node's totals after placing: CPU and GPU weigh alike;
 *   packing      a partly used GPU (100 - its free %/10), else free GPUs of
 *                a used node (50 - GPUs taken), else an idle node (33 -
 *                its GPUs); GPUs only, CPU-only tasks score 0 everywhere;
 *   dot-product  Tetris' alignment over node totals: 100 (1 - d/2),
 *                d = (CPU free/Cmax)(CPU asked/Cmax) + (GPU free/Gmax)(GPU
 *                asked/Gmax);
 *   clustering   affinity groups (a share of one GPU, or k whole GPUs): a
 *                node hosting only the task's group 75..100, hosting it
 *                among others 50..75, hosting nothing 25..50, else 0..25,
 *                within the band 25 (Gmax - free GPU milli)/Gmax; CPU-only
 *                tasks 0.
 * A fraction goes to the tightest GPU with room (the artifact's "best" GPU
 * selection) except under random.  Equal scores go to the first node of
 * the run's seeded node order (classplace.h), as in the artifact.  Every
 * placer here is O(live classes) per decision.  best-fit-gpu (place.c) is
 * the GPU-only best fit through the fleet's index, O(pools log nodes). */
#include "classplace.h"
#include "../sim/cluster/kplace.h"
#include "../sim/core/sim.h"

#include <math.h>
#include <stdlib.h>

/* Whether the task fits the class at all (GPUs and host), and the GPU a
 * fraction takes (the tightest). */
static int fits(const struct gs_fclass *c, const struct gs_demand *dm,
                const struct gs_need *need, int *pick)
{
    if (!gs_classplace_host_fits(c, need) || gs_classplace_fits(c, dm) < 0)
        return 0;
    *pick = dm->kind == GS_DEM_FRAC ? gs_classplace_tightest(c, dm) : -1;
    return 1;
}

/* The GPU milli a demand takes in all. */
static int64_t asked(const struct gs_demand *dm)
{
    return dm->kind == GS_DEM_WHOLE ? 1000LL * dm->gpus : dm->milli;
}

/* --- random ---------------------------------------------------------------------- */

static double fits_score(const struct gs_classplace *cp,
                         const struct gs_frag *fr, const struct gs_fclass *c,
                         const struct gs_demand *dm,
                         const struct gs_need *need, int *pick)
{
    (void)cp;
    (void)fr;
    return fits(c, dm, need, pick) ? 0.0 : INFINITY;
}

/* --- best-fit ----------------------------------------------------------------------- */

static double best_score(const struct gs_classplace *cp,
                         const struct gs_frag *fr, const struct gs_fclass *c,
                         const struct gs_demand *dm,
                         const struct gs_need *need, int *pick)
{
    (void)fr;
    if (!fits(c, dm, need, pick))
        return INFINITY;
    return -gs_kp_score_best_fit(c->cpu - need->cpu_milli,
                                 gs_classplace_free_milli(c) - asked(dm),
                                 cp->cmax, cp->gmax);
}

/* --- packing ----------------------------------------------------------------------- */

static double packing_score(const struct gs_classplace *cp,
                            const struct gs_frag *fr, const struct gs_fclass *c,
                            const struct gs_demand *dm,
                            const struct gs_need *need, int *pick)
{
    (void)cp;
    (void)fr;
    if (!fits(c, dm, need, pick))
        return INFINITY;
    return dm->kind == GS_DEM_WHOLE
           ? -gs_kp_score_packing(c->milli, c->gpn, dm->gpus, 1000)
           : -gs_kp_score_packing(c->milli, c->gpn, 1, dm->milli);
}

/* --- dot-product --------------------------------------------------------------------- */

static double dot_score(const struct gs_classplace *cp,
                        const struct gs_frag *fr, const struct gs_fclass *c,
                        const struct gs_demand *dm,
                        const struct gs_need *need, int *pick)
{
    (void)fr;
    if (!fits(c, dm, need, pick))
        return INFINITY;
    return -gs_kp_score_dot(c->cpu, need->cpu_milli,
                            gs_classplace_free_milli(c), asked(dm), cp->cmax,
                            cp->gmax);
}

/* --- clustering ------------------------------------------------------------------------ */

static double cluster_score(const struct gs_classplace *cp,
                            const struct gs_frag *fr, const struct gs_fclass *c,
                            const struct gs_demand *dm,
                            const struct gs_need *need, int *pick)
{
    (void)fr;
    if (!fits(c, dm, need, pick))
        return INFINITY;
    int group = dm->kind == GS_DEM_WHOLE ? gs_kp_group(dm->gpus, 1000)
                                         : gs_kp_group(1, dm->milli);
    return -gs_kp_score_clustering(group, c->tags, gs_classplace_free_milli(c),
                                   (int64_t)cp->gmax);
}

/* --- the class placers' plumbing --------------------------------------------------------- */

static int class_init(struct gs_sim *sim, void **state, struct gs_diag *d,
                      gs_class_score_fn *score, const char *rng)
{
    return gs_classplace_ops_init(sim, score, rng, state, d);
}

static int random_init(struct gs_sim *sim, struct gs_params *params,
                       void **state, struct gs_diag *d)
{
    (void)params;
    return class_init(sim, state, d, fits_score, "placer.random");
}

static int packing_init(struct gs_sim *sim, struct gs_params *params,
                        void **state, struct gs_diag *d)
{
    (void)params;
    return class_init(sim, state, d, packing_score, NULL);
}

static int dot_init(struct gs_sim *sim, struct gs_params *params, void **state,
                    struct gs_diag *d)
{
    (void)params;
    return class_init(sim, state, d, dot_score, NULL);
}

static int best_init(struct gs_sim *sim, struct gs_params *params,
                     void **state, struct gs_diag *d)
{
    (void)params;
    return class_init(sim, state, d, best_score, NULL);
}

static int cluster_init(struct gs_sim *sim, struct gs_params *params,
                        void **state, struct gs_diag *d)
{
    (void)params;
    if (gs_frag_track_affinity(gs_sim_frag(sim)) < 0)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    return class_init(sim, state, d, cluster_score, NULL);
}

const struct gs_placer_ops gs_placer_best_fit = {
    .abi = GS_POLICY_ABI,
    .name = "best-fit",
    .summary = "the node left with least CPU and GPU, weighed alike",
    .init = best_init,
    .free = gs_classplace_ops_free,
    .place = gs_classplace_ops_place,
};

const struct gs_placer_ops gs_placer_random = {
    .abi = GS_POLICY_ABI,
    .name = "random",
    .summary = "a node and GPU drawn uniformly among those that fit (seeded)",
    .init = random_init,
    .free = gs_classplace_ops_free,
    .place = gs_classplace_ops_place,
    .draws_on_miss = 1,
};

const struct gs_placer_ops gs_placer_packing = {
    .abi = GS_POLICY_ABI,
    .name = "packing",
    .summary = "partly used GPUs first, then used nodes, then small idle nodes",
    .init = packing_init,
    .free = gs_classplace_ops_free,
    .place = gs_classplace_ops_place,
};

const struct gs_placer_ops gs_placer_dot_product = {
    .abi = GS_POLICY_ABI,
    .name = "dot-product",
    .summary = "Tetris alignment of free and asked CPU and GPU, node totals",
    .init = dot_init,
    .free = gs_classplace_ops_free,
    .place = gs_classplace_ops_place,
};

const struct gs_placer_ops gs_placer_clustering = {
    .abi = GS_POLICY_ABI,
    .name = "clustering",
    .summary = "tasks of one affinity group kept together on the same nodes",
    .init = cluster_init,
    .free = gs_classplace_ops_free,
    .place = gs_classplace_ops_place,
};
