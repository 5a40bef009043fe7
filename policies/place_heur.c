/* place_heur.c -- the baseline placers of the FGD paper's evaluation:
 * random, packing, dot-product and clustering.
 *
 * Sources: the baselines of Weng et al., "Beware of Fragmentation" (USENIX
 * ATC'23, section 6.1) as implemented in their simulator
 * (github.com/hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/
 * plugin: random_score.go, gpu_packing_score.go, dot_product_score.go,
 * gpu_clustering_score.go).  gpusim models GPUs, not CPUs, so the CPU
 * dimension those plug-ins use is absent; where the paper leaves ties to the
 * Kubernetes scheduler's random choice, gpusim takes the lowest node index.
 *
 *   random       a node drawn uniformly among those that fit (seeded GSL
 *                stream "placer.random"), the tightest GPU on it;
 *   packing      three tiers: a GPU already shared (the one with the least
 *                free capacity), else fully free GPUs on a node already in
 *                use (the node with the fewest), else an idle node (the one
 *                with the fewest GPUs);
 *   dot-product  Tetris' alignment: for every candidate on a node (each
 *                shared GPU that fits, or the node's fully free GPUs
 *                together) the dot product of its free vector and the
 *                task's demand over (GPU compute, GPU memory), both
 *                normalized by the node's capacity; the smallest wins (the
 *                plug-in scores a larger product lower);
 *   clustering   tasks of one shape kept together: a node hosting only that
 *                shape, else one hosting it among others, else an idle
 *                node, else best-fit -- within a tier the lowest node index
 *                (the plug-in prefers the least free node within a tier).
 * random, packing and dot-product score node classes (classplace.h):
 * O(live classes) per decision.  clustering walks per-shape node sets
 * (frag.h) and the fleet index: O(log nodes) per decision, plus nodes
 * skipped for memory. */
#include "classplace.h"
#include "../sim/sim.h"

#include <math.h>
#include <stdlib.h>

/* --- random ---------------------------------------------------------------------- */

static double fits_score(const struct gs_frag *fr, const struct gs_fclass *c,
                         const struct gs_demand *dm, int *pick)
{
    (void)fr;
    *pick = dm->kind == GS_DEM_FRAC ? gs_classplace_tightest(c, dm) : -1;
    return gs_classplace_fits(c, dm) >= 0 ? 0.0 : INFINITY;
}

/* --- packing ----------------------------------------------------------------------- */

static double packing_score(const struct gs_frag *fr, const struct gs_fclass *c,
                            const struct gs_demand *dm, int *pick)
{
    (void)fr;
    int nfull = gs_classplace_nfull(c), gpn = c->gpn;
    double node_tier = nfull < gpn ? 2.0 + nfull / 64.0 : 4.0 + gpn / 64.0;
    if (dm->kind == GS_DEM_WHOLE)
        return nfull >= dm->gpus ? node_tier : INFINITY;
    for (int r = gpn - 1; r >= nfull; r--)      /* shared GPUs, tightest */
        if (c->milli[r] >= dm->milli && c->mib[r] >= dm->mib) {
            *pick = r;
            return c->milli[r] / 1000.0;
        }
    if (nfull > 0 && c->mib[nfull - 1] >= dm->mib) {
        *pick = nfull - 1;
        return node_tier;
    }
    return INFINITY;
}

/* --- dot-product --------------------------------------------------------------------- */

static double dot_score(const struct gs_frag *fr, const struct gs_fclass *c,
                        const struct gs_demand *dm, int *pick)
{
    (void)fr;
    int nfull = gs_classplace_nfull(c), gpn = c->gpn;
    double cm = 1000.0 * gpn, cb = (double)c->gpu_mib * gpn;
    int k = dm->kind == GS_DEM_WHOLE ? dm->gpus : 1;
    double tm = k * (dm->kind == GS_DEM_WHOLE ? 1000.0 : dm->milli) / cm;
    double tb = k * (double)dm->mib / cb;
    double full = (nfull * 1000.0 / cm) * tm + (nfull * (double)c->gpu_mib /
                                                cb) * tb;
    if (dm->kind == GS_DEM_WHOLE)
        return nfull >= dm->gpus ? full : INFINITY;
    double best = INFINITY;
    if (nfull > 0 && c->mib[nfull - 1] >= dm->mib) {
        best = full;
        *pick = nfull - 1;
    }
    for (int r = nfull; r < gpn; r++) {
        if (c->milli[r] < dm->milli || c->mib[r] < dm->mib)
            continue;
        double v = c->milli[r] / cm * tm + c->mib[r] / cb * tb;
        if (v < best) {
            best = v;
            *pick = r;
        }
    }
    return best;
}

/* --- the class placers' plumbing --------------------------------------------------------- */

static int class_init(struct gs_sim *sim, void **state, struct gs_diag *d,
                      gs_class_score_fn *score, const char *rng)
{
    struct gs_classplace *cp = malloc(sizeof *cp);
    if (cp == NULL || gs_classplace_init(cp, sim, score, rng) < 0) {
        free(cp);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    *state = cp;
    return 0;
}

static void class_free(void *st)
{
    gs_classplace_free(st);
    free(st);
}

static int class_place(void *st, struct gs_sim *sim, const struct gs_job *job,
                       const struct gs_range *r, int n, struct gs_alloc *out)
{
    return gs_classplace_place(st, sim, job, r, n, out);
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

/* --- clustering ------------------------------------------------------------------------------ */

static int cluster_init(struct gs_sim *sim, struct gs_params *params,
                        void **state, struct gs_diag *d)
{
    (void)params;
    *state = NULL;
    if (gs_frag_track_affinity(gs_sim_frag(sim)) < 0)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    return 0;
}

/* Whether range r can take need by node scoring, and its demand there. */
static int usable(const struct gs_fleet *f, const struct gs_frag *fr,
                  const struct gs_range *r, const struct gs_need *need,
                  struct gs_demand *dm)
{
    return gs_frag_pool_classed(fr, r->pool) &&
           gs_fleet_demand(f, r->pool, need, dm) == 0 &&
           !(dm->kind == GS_DEM_WHOLE && dm->gpus > f->pools[r->pool].s.gpn);
}

static int cluster_place(void *st, struct gs_sim *sim, const struct gs_job *job,
                         const struct gs_range *r, int n, struct gs_alloc *out)
{
    (void)st;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    const struct gs_frag *fr = gs_sim_frag(sim);
    const struct gs_need *need = &job->need;
    int s = gs_frag_shape_of(fr, need);
    struct gs_demand dm;
    for (int only = 1; s >= 0 && only >= 0; only--)
        for (int i = 0; i < n; i++) {
            if (!usable(f, fr, &r[i], need, &dm))
                continue;
            int lo = f->pools[r[i].pool].node0 + r[i].lo;
            int hi = f->pools[r[i].pool].node0 + r[i].hi;
            for (int node = gs_frag_affine_node(fr, s, only, lo, hi);
                 node >= 0; node = gs_frag_affine_node(fr, s, only, node + 1,
                                                       hi))
                if (gs_classplace_on_node(f, node, &dm, -1, -1, out) == 0)
                    return 0;
        }
    for (int i = 0; i < n; i++) {               /* an idle node */
        if (!usable(f, fr, &r[i], need, &dm))
            continue;
        struct gs_need idle = { .gpus = f->pools[r[i].pool].s.gpn,
                                .allowed = need->allowed };
        struct gs_alloc a = { .pool = -1 };
        int rc = gs_fleet_find(f, &r[i], &idle, GS_FIT_FIRST, &a, NULL);
        int node = rc == 0 ? a.one.node : -1;
        gs_alloc_reset(&a);
        if (rc == GS_ENOMEM)
            return rc;
        if (node >= 0 && gs_classplace_on_node(f, node, &dm, -1, -1, out) == 0)
            return 0;
    }
    return gs_place_best(f, need, r, n, out);     /* anywhere: best-fit */
}

const struct gs_placer_ops gs_placer_random = {
    .abi = GS_POLICY_ABI,
    .name = "random",
    .summary = "a node drawn uniformly among those that fit (seeded)",
    .init = random_init,
    .free = class_free,
    .place = class_place,
    .draws_on_miss = 1,
};

const struct gs_placer_ops gs_placer_packing = {
    .abi = GS_POLICY_ABI,
    .name = "packing",
    .summary = "shared GPUs first, then used nodes, then the smallest idle node",
    .init = packing_init,
    .free = class_free,
    .place = class_place,
};

const struct gs_placer_ops gs_placer_dot_product = {
    .abi = GS_POLICY_ABI,
    .name = "dot-product",
    .summary = "Tetris alignment of free and demanded GPU compute and memory",
    .init = dot_init,
    .free = class_free,
    .place = class_place,
};

const struct gs_placer_ops gs_placer_clustering = {
    .abi = GS_POLICY_ABI,
    .name = "clustering",
    .summary = "tasks of one shape kept together on the same nodes",
    .init = cluster_init,
    .place = cluster_place,
};
