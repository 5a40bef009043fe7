/* classplace.c -- the class-scoring placement engine (classplace.h).
 *
 * Caching: a score depends on the class's state and the task's demand on
 * the pool.  When the job states nothing beyond its shape (no memory,
 * guarantee or MIG profile), the demand follows from the shape and the
 * pool, so the score is cached under (class id, shape index) for the whole
 * run; other jobs are scored afresh.  NAN marks "not computed".
 *
 * Random: a node drawn uniformly among the nodes of the eligible classed
 * ranges on which the task fits, and a fraction on a GPU drawn uniformly
 * among its GPUs with room -- the FGD artifact's random baseline (a random
 * node in PreScore, the GPU-sharing plug-in's random GPU selection).  The draw first tries rejection
 * sampling (a node uniform over the ranges, kept if the task fits; up to
 * RANDOM_TRIES times), which is O(1) while most nodes fit, and otherwise
 * counts the fitting nodes class by class and draws among them; either way
 * every fitting node is equally likely.  All draws come from the placer's
 * own GSL stream, so the sequence depends only on the seed and the
 * decisions. */
#include "classplace.h"
#include "../sim/rng.h"
#include "../sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gs_classplace_init(struct gs_classplace *cp, struct gs_sim *sim,
                       gs_class_score_fn *score, const char *rng_name)
{
    memset(cp, 0, sizeof *cp);
    cp->score = score;
    struct gs_frag *fr = gs_sim_frag(sim);
    const struct gs_fleet *f = gs_sim_fleet(sim);
    cp->nshapes = gs_frag_nshapes(fr);
    if (gs_frag_track_classes(fr) < 0)
        return GS_ENOMEM;
    if (rng_name && (cp->rng = gs_rng_stream(gs_sim_seed(sim), rng_name)) ==
                    NULL)
        return GS_ENOMEM;
    for (int p = 0; p < f->npools; p++) {
        if (!gs_frag_pool_classed(fr, p) || f->pools[p].s.nodes == 0)
            continue;
        int32_t cpu, mem;
        gs_pool_host(f->cat, &f->pools[p].s, &cpu, &mem);
        if (cpu > cp->cmax)
            cp->cmax = cpu;
        if (1000.0 * f->pools[p].s.gpn > cp->gmax)
            cp->gmax = 1000.0 * f->pools[p].s.gpn;
    }
    if (cp->cmax <= 0)
        cp->cmax = 1;
    if (cp->gmax <= 0)
        cp->gmax = 1;
    /* ties: the first node of an order drawn from the run's stream */
    int nn = f->nnodes;
    int *rank = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *rank);
    gsl_rng *tr = gs_rng_stream(gs_sim_seed(sim), "placer.ties");
    if (rank == NULL || tr == NULL) {
        free(rank);
        if (tr)
            gsl_rng_free(tr);
        gs_classplace_free(cp);
        return GS_ENOMEM;
    }
    for (int i = 0; i < nn; i++)
        rank[i] = i;
    for (int i = nn - 1; i > 0; i--) {
        int j = (int)gsl_rng_uniform_int(tr, (unsigned long)i + 1);
        int t = rank[i];
        rank[i] = rank[j];
        rank[j] = t;
    }
    gs_frag_set_order(fr, rank);
    free(rank);
    gsl_rng_free(tr);
    return 0;
}

void gs_classplace_free(struct gs_classplace *cp)
{
    for (int i = 0; i < cp->cap; i++) {
        free(cp->val[i]);
        free(cp->pick[i]);
    }
    free(cp->val);
    free(cp->pick);
    if (cp->rng)
        gsl_rng_free(cp->rng);
    memset(cp, 0, sizeof *cp);
}

int gs_classplace_fits(const struct gs_fclass *c, const struct gs_demand *dm)
{
    if (dm->kind == GS_DEM_WHOLE)
        return gs_classplace_nfull(c) >= dm->gpus ? 0 : -1;
    for (int r = 0; r < c->gpn; r++)
        if (c->milli[r] >= dm->milli && c->mib[r] >= dm->mib)
            return r;
    return -1;
}

int gs_classplace_tightest(const struct gs_fclass *c,
                           const struct gs_demand *dm)
{
    int best = -1;
    for (int r = 0; r < c->gpn; r++)
        if (c->milli[r] >= dm->milli && c->mib[r] >= dm->mib)
            best = r;       /* sorted descending: the last is the tightest */
    return best;
}

int gs_classplace_ops_init(struct gs_sim *sim, gs_class_score_fn *score,
                           const char *rng_name, void **state,
                           struct gs_diag *d)
{
    struct gs_classplace *cp = malloc(sizeof *cp);
    if (cp == NULL || gs_classplace_init(cp, sim, score, rng_name) < 0) {
        free(cp);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    *state = cp;
    return 0;
}

void gs_classplace_ops_free(void *state)
{
    if (state == NULL)
        return;
    gs_classplace_free(state);
    free(state);
}

int gs_classplace_ops_place(void *state, struct gs_sim *sim,
                            const struct gs_job *job, const struct gs_range *r,
                            int n, struct gs_alloc *out)
{
    return gs_classplace_place(state, sim, job, r, n, out);
}

int gs_classplace_host_fits(const struct gs_fclass *c,
                            const struct gs_need *need)
{
    return c->cpu >= need->cpu_milli && c->mem >= need->mem_mib;
}

int64_t gs_classplace_free_milli(const struct gs_fclass *c)
{
    int64_t t = 0;
    for (int r = 0; r < c->gpn; r++)
        t += c->milli[r];
    return t;
}

int gs_classplace_nfull(const struct gs_fclass *c)
{
    int n = 0;
    while (n < c->gpn && c->milli[n] == 1000)
        n++;
    return n;
}

int gs_classplace_on_node(const struct gs_fleet *f, int node,
                          const struct gs_demand *dm, int rank_milli,
                          int rank_mib, struct gs_alloc *out)
{
    const struct gs_node *nd = &f->nodes[node];
    int gpn = f->pools[nd->pool].s.gpn;
    gs_alloc_reset(out);
    if (!nd->up || nd->cordon)
        return GS_ENOFIT;
    if (dm->kind == GS_DEM_WHOLE) {
        if (nd->nfull < dm->gpus || dm->gpus > gpn)
            return GS_ENOFIT;
        uint64_t m = nd->fullmask, mask = 0;
        for (int k = 0; k < dm->gpus; k++) {
            uint64_t b = m & -m;
            mask |= b;
            m ^= b;
        }
        out->pool = nd->pool;
        out->n = 1;
        out->one = (struct gs_part){ node, 1000, mask, 0, 0 };
        return 0;
    }
    int pick = -1, left = 1 << 30;
    for (int g = 0; g < gpn; g++) {
        int fr = f->free_milli[nd->gpu0 + g] - f->lent[nd->gpu0 + g];
        int32_t mb = f->free_mib[nd->gpu0 + g];
        if (fr < dm->milli || mb < dm->mib)
            continue;
        if (rank_milli >= 0) {
            if (fr == rank_milli && mb == rank_mib) {
                pick = g;
                break;
            }
        } else if (fr - dm->milli < left) {
            pick = g;
            left = fr - dm->milli;
        }
    }
    if (pick < 0)
        return GS_ENOFIT;
    out->pool = nd->pool;
    out->n = 1;
    out->one = (struct gs_part){ node, dm->milli, 1ULL << pick, 0, 0 };
    return 0;
}

static int grow(struct gs_classplace *cp, int ncls)
{
    if (ncls <= cp->cap)
        return 0;
    int cap = cp->cap ? cp->cap : 256;
    while (cap < ncls)
        cap *= 2;
    float **v = realloc(cp->val, (size_t)cap * sizeof *v);
    if (v == NULL)
        return GS_ENOMEM;
    cp->val = v;
    int8_t **p = realloc(cp->pick, (size_t)cap * sizeof *p);
    if (p == NULL)
        return GS_ENOMEM;
    cp->pick = p;
    for (int i = cp->cap; i < cap; i++) {
        cp->val[i] = NULL;
        cp->pick[i] = NULL;
    }
    cp->cap = cap;
    return 0;
}

/* The score of class id for the job, through the cache when shape >= 0. */
static double class_score(struct gs_classplace *cp, const struct gs_frag *fr,
                          int id, int shape, const struct gs_demand *dm,
                          const struct gs_need *need, int *pick)
{
    struct gs_fclass c;
    gs_frag_class(fr, id, &c);
    if (shape < 0)
        return cp->score(cp, fr, &c, dm, need, pick);
    if (cp->val[id] == NULL) {
        cp->val[id] = malloc((size_t)cp->nshapes * sizeof **cp->val);
        cp->pick[id] = malloc((size_t)cp->nshapes);
        if (cp->val[id] == NULL || cp->pick[id] == NULL) {
            free(cp->val[id]);
            free(cp->pick[id]);
            cp->val[id] = NULL;
            cp->pick[id] = NULL;
            return cp->score(cp, fr, &c, dm, need, pick);
        }
        for (int s = 0; s < cp->nshapes; s++)
            cp->val[id][s] = NAN;
    }
    float v = cp->val[id][shape];
    if (isnan(v)) {
        int pk = -1;
        double d = cp->score(cp, fr, &c, dm, need, &pk);
        cp->val[id][shape] = (float)d;
        cp->pick[id][shape] = (int8_t)pk;
        v = (float)d;
    }
    *pick = cp->pick[id][shape];
    return v;
}

struct choice {
    double v;
    int node, id, pick, pool;
};

/* The node range of r in global node indexes. */
static void range_nodes(const struct gs_fleet *f, const struct gs_range *r,
                        int *lo, int *hi)
{
    *lo = f->pools[r->pool].node0 + r->lo;
    *hi = f->pools[r->pool].node0 + r->hi;
}

/* Members of class id within [lo, hi): all of them when whole. */
static int members_in(const struct gs_frag *fr, int id, int whole, int lo,
                      int hi, int count)
{
    if (whole)
        return count;
    int m = 0;
    for (int i = 0; i < count; i++) {
        int node = gs_frag_member(fr, id, i);
        m += node >= lo && node < hi;
    }
    return m;
}

#define RANDOM_TRIES 32

/* Rejection sampling: a node uniform over the ranges' nodes, kept when the
 * task fits on it.  0 with *ch, or GS_ENOFIT after RANDOM_TRIES misses. */
static int try_random(struct gs_classplace *cp, const struct gs_fleet *f,
                      const struct gs_frag *fr, const struct gs_range *r,
                      int n, const struct gs_need *need, int shape,
                      struct choice *ch)
{
    long total = 0;
    for (int i = 0; i < n; i++)
        total += r[i].hi - r[i].lo;
    if (total <= 0)
        return GS_ENOFIT;
    for (int t = 0; t < RANDOM_TRIES; t++) {
        long u = (long)gsl_rng_uniform_int(cp->rng, (unsigned long)total);
        int i = 0;
        while (u >= r[i].hi - r[i].lo) {
            u -= r[i].hi - r[i].lo;
            i++;
        }
        int node = f->pools[r[i].pool].node0 + r[i].lo + (int)u;
        int id = gs_frag_node_class(fr, node);
        struct gs_demand dm;
        if (id < 0 || gs_fleet_demand(f, r[i].pool, need, &dm) < 0 ||
            (dm.kind == GS_DEM_WHOLE && dm.gpus > f->pools[r[i].pool].s.gpn))
            continue;
        int pick;
        if (class_score(cp, fr, id, shape, &dm, need, &pick) < INFINITY) {
            *ch = (struct choice){ 0, node, id, -1, r[i].pool };
            return 0;
        }
    }
    return GS_ENOFIT;
}

/* Uniformly among the nodes of fitting classes: count them, draw one, find
 * it again in the same order.  0 with *ch, or GS_ENOFIT. */
static int draw_random(struct gs_classplace *cp, const struct gs_fleet *f,
                       const struct gs_frag *fr, const struct gs_range *r,
                       int n, const struct gs_need *need, int shape,
                       struct choice *ch)
{
    long total = 0, target = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            if (total == 0)
                return GS_ENOFIT;
            target = (long)gsl_rng_uniform_int(cp->rng, (unsigned long)total);
        }
        for (int i = 0; i < n; i++) {
            struct gs_demand dm;
            if (!gs_frag_pool_classed(fr, r[i].pool) ||
                gs_fleet_demand(f, r[i].pool, need, &dm) < 0 ||
                (dm.kind == GS_DEM_WHOLE &&
                 dm.gpus > f->pools[r[i].pool].s.gpn))
                continue;
            int lo, hi;
            range_nodes(f, &r[i], &lo, &hi);
            int whole = r[i].lo == 0 && r[i].hi >= f->pools[r[i].pool].s.nodes;
            const int *ids;
            int nl = gs_frag_live(fr, r[i].pool, &ids);
            for (int k = 0; k < nl; k++) {
                int pick;
                if (!(class_score(cp, fr, ids[k], shape, &dm, need, &pick) <
                      INFINITY))
                    continue;
                struct gs_fclass c;
                gs_frag_class(fr, ids[k], &c);
                int m = members_in(fr, ids[k], whole, lo, hi, c.count);
                if (!pass) {
                    total += m;
                    continue;
                }
                if (target >= m) {
                    target -= m;
                    continue;
                }
                for (int x = 0; x < c.count; x++) {
                    int node = gs_frag_member(fr, ids[k], x);
                    if (!whole && (node < lo || node >= hi))
                        continue;
                    if (target-- == 0) {
                        *ch = (struct choice){ 0, node, ids[k], -1,
                                               r[i].pool };
                        return 0;
                    }
                }
            }
        }
    }
    return GS_ENOFIT;
}

int gs_classplace_place(struct gs_classplace *cp, struct gs_sim *sim,
                        const struct gs_job *job, const struct gs_range *r,
                        int n, struct gs_alloc *out)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    struct gs_frag *fr = gs_sim_frag(sim);
    const struct gs_need *need = &job->need;
    int shape = gs_frag_shape_of(fr, need);
    if (need->mem_gb > 0 || need->guar > 0 || need->profile)
        shape = -1;                     /* the demand is not the shape's */
    if (shape >= 0 && grow(cp, gs_frag_nclasses(fr)) < 0)
        return GS_ENOMEM;
    struct choice best = { INFINITY, -1, -1, -1, -1 };
    int rc;
    if (cp->rng) {
        if (try_random(cp, f, fr, r, n, need, shape, &best) < 0 &&
            draw_random(cp, f, fr, r, n, need, shape, &best) < 0)
            best.node = -1;
    } else {
        for (int i = 0; i < n; i++) {
            struct gs_demand dm;
            if (!gs_frag_pool_classed(fr, r[i].pool) ||
                gs_fleet_demand(f, r[i].pool, need, &dm) < 0 ||
                (dm.kind == GS_DEM_WHOLE &&
                 dm.gpus > f->pools[r[i].pool].s.gpn))
                continue;
            int lo, hi;
            range_nodes(f, &r[i], &lo, &hi);
            const int *ids;
            int nl = gs_frag_live(fr, r[i].pool, &ids);
            for (int k = 0; k < nl; k++) {
                int pick = -1;
                double v = class_score(cp, fr, ids[k], shape, &dm, need,
                                       &pick);
                if (!(v < INFINITY) || v > best.v)
                    continue;
                int node = gs_frag_member_in(fr, ids[k], lo, hi);
                if (node < 0 || (v == best.v &&
                                 gs_frag_rank(fr, node) >
                                 gs_frag_rank(fr, best.node)))
                    continue;
                best = (struct choice){ v, node, ids[k], pick, r[i].pool };
            }
        }
    }
    if (best.node >= 0) {
        struct gs_demand dm;
        rc = gs_fleet_demand(f, best.pool, need, &dm);
        GS_ASSERT(rc == 0);
        int pm = -1, pb = -1;
        if (dm.kind == GS_DEM_FRAC && best.pick >= 0) {
            struct gs_fclass c;
            gs_frag_class(fr, best.id, &c);
            pm = c.milli[best.pick];
            pb = c.mib[best.pick];
        }
        rc = gs_classplace_on_node(f, best.node, &dm, pm, pb, out);
        GS_ASSERT(rc == 0);
        if (cp->rng && dm.kind == GS_DEM_FRAC) {
            /* random: a GPU drawn among those with room */
            const struct gs_node *nd = &f->nodes[best.node];
            int gpn = f->pools[nd->pool].s.gpn, seen = 0;
            for (int g = 0; g < gpn; g++) {
                int fm = f->free_milli[nd->gpu0 + g] - f->lent[nd->gpu0 + g];
                if (fm >= dm.milli && f->free_mib[nd->gpu0 + g] >= dm.mib &&
                    gsl_rng_uniform_int(cp->rng, (unsigned long)++seen) == 0)
                    out->one.mask = 1ULL << g;
            }
        }
        return 0;
    }
    /* Pools without classes, and gangs wider than a node: best-fit. */
    struct gs_range *rest = malloc((size_t)(n > 0 ? n : 1) * sizeof *rest);
    if (rest == NULL)
        return GS_ENOMEM;
    int nrest = 0;
    for (int i = 0; i < n; i++) {
        struct gs_demand dm;
        if (gs_fleet_demand(f, r[i].pool, need, &dm) < 0)
            continue;
        if (gs_frag_pool_classed(fr, r[i].pool) &&
            f->pools[r[i].pool].s.share.mode != GS_SHARE_FRAC &&
            !(dm.kind == GS_DEM_WHOLE && dm.gpus > f->pools[r[i].pool].s.gpn))
            continue;
        rest[nrest++] = r[i];
    }
    rc = gs_place_best(f, need, rest, nrest, out);
    free(rest);
    return rc;
}
