/* classplace.c -- the class-scoring placement engine (classplace.h).
 *
 * Caching: a score depends on the class's state and the task's need (and,
 * through the need, its demand on the class's pool).  Every need without a
 * MIG profile is interned -- its GPUs, fraction, models, host CPU and
 * memory, GPU memory, guarantee, burst and device memory, all a score may
 * read -- and its score is cached under (class id, need id) for the whole
 * run, classes never changing state; NAN marks "not computed".  A need
 * whose GPUs, fraction, models, CPU and memory are a shape of the workload
 * distribution (frag.h) and that states no GPU memory or guarantee has its
 * scores rounded to float, as the per-shape cache this one grew from kept
 * them (so decisions stay what they were); other needs keep the exact
 * double.  The needs interned are bounded (maxneeds, a few times the
 * distribution's shapes); past it a need is scored afresh each time.  A
 * job's host resources defaulted by its tier (sim.c) make its need differ
 * from every shape, so without interning it would never be cached.
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
#include "../sim/base/rng.h"
#include "../sim/core/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An interned need: every field of gs_need a score may read (a MIG
 * profile's needs are not interned). */
struct gs_cpneed {
    int32_t gpus, milli, cpu, mem, guar, burst;
    uint64_t allowed, tolerates;
    double mem_gb, dev_gb;
    uint32_t hash;
    int round;                  /* scores rounded to float (see above) */
};

/* An interned need's demand on one pool (gs_fleet_demand): rc 1 = not
 * yet asked. */
struct gs_cpdemand {
    struct gs_demand d;
    int rc;
};

/* One class's cached scores, per need id (len of them; NAN = unknown). */
struct gs_cprow {
    double *v;
    int8_t *pick;
    int len;
};

int gs_classplace_init(struct gs_classplace *cp, struct gs_sim *sim,
                       gs_class_score_fn *score, const char *rng_name)
{
    memset(cp, 0, sizeof *cp);
    cp->score = score;
    struct gs_frag *fr = gs_sim_frag(sim);
    const struct gs_fleet *f = gs_sim_fleet(sim);
    cp->nshapes = gs_frag_nshapes(fr);
    cp->maxneeds = 4 * cp->nshapes + 256;
    cp->npools = f->npools;
    /* only random placement walks members in the classes' own order */
    if ((rng_name == NULL && gs_frag_track_first(fr) < 0) ||
        gs_frag_track_classes(fr) < 0)
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
        free(cp->rows[i].v);
        free(cp->rows[i].pick);
    }
    free(cp->rows);
    free(cp->needs);
    free(cp->nhash);
    free(cp->dms);
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

/* The rows for ncls classes (grow): more than the table holds. */
static GS_COLD int grow_rows(struct gs_classplace *cp, int ncls)
{
    int cap = cp->cap ? cp->cap : 256;
    while (cap < ncls)
        cap *= 2;
    struct gs_cprow *v = realloc(cp->rows, (size_t)cap * sizeof *v);
    if (v == NULL)
        return GS_ENOMEM;
    cp->rows = v;
    memset(&v[cp->cap], 0, (size_t)(cap - cp->cap) * sizeof *v);
    cp->cap = cap;
    return 0;
}

static inline int grow(struct gs_classplace *cp, int ncls)
{
    return ncls <= cp->cap ? 0 : grow_rows(cp, ncls);
}

static uint32_t need_hash(const struct gs_cpneed *k)
{
    uint64_t w[7], h = 0x9e3779b97f4a7c15ULL;
    memcpy(&w[0], &k->gpus, 8);             /* gpus, milli */
    memcpy(&w[1], &k->cpu, 8);              /* cpu, mem */
    memcpy(&w[2], &k->guar, 8);             /* guar, burst */
    w[3] = k->allowed;
    memcpy(&w[4], &k->mem_gb, 8);
    memcpy(&w[5], &k->dev_gb, 8);
    w[6] = k->tolerates;
    for (int i = 0; i < 7; i++) {
        h = (h ^ w[i]) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    return (uint32_t)h;
}

static int need_eq(const struct gs_cpneed *a, const struct gs_cpneed *b)
{
    return a->gpus == b->gpus && a->milli == b->milli && a->cpu == b->cpu &&
           a->mem == b->mem && a->guar == b->guar && a->burst == b->burst &&
           a->allowed == b->allowed && a->mem_gb == b->mem_gb &&
           a->dev_gb == b->dev_gb && a->tolerates == b->tolerates;
}

static int need_add(struct gs_classplace *cp, const struct gs_frag *fr,
                    const struct gs_need *need, const struct gs_cpneed *kp);

/* The id of need among the interned ones, interning it if new; -1 when it
 * is not cached (a MIG profile, the bound reached, out of memory). */
static int need_id(struct gs_classplace *cp, const struct gs_frag *fr,
                   const struct gs_need *need)
{
    if (need->profile)
        return -1;
    struct gs_cpneed k = {
        need->gpus, need->milli, need->cpu_milli, need->mem_mib, need->guar,
        need->burst, need->allowed, need->tolerates, need->mem_gb,
        need->dev_gb, 0, 0
    };
    k.hash = need_hash(&k);
    if (cp->nhcap > 0) {
        uint32_t m = (uint32_t)cp->nhcap - 1, i = k.hash & m;
        for (; cp->nhash[i] >= 0; i = (i + 1) & m)
            if (cp->needs[cp->nhash[i]].hash == k.hash &&
                need_eq(&cp->needs[cp->nhash[i]], &k))
                return cp->nhash[i];
    }
    return need_add(cp, fr, need, &k);
}

/* need_id for a need not interned yet (key *kp): interned; its id, or -1. */
static __attribute__((noinline)) int
need_add(struct gs_classplace *cp, const struct gs_frag *fr,
         const struct gs_need *need, const struct gs_cpneed *kp)
{
    struct gs_cpneed k = *kp;
    if (cp->nneeds >= cp->maxneeds)
        return -1;
    if (cp->nneeds == cp->capneeds) {
        int cap = cp->capneeds ? 2 * cp->capneeds : 16;
        struct gs_cpneed *v = realloc(cp->needs, (size_t)cap * sizeof *v);
        if (v == NULL)
            return -1;
        cp->needs = v;
        size_t np = (size_t)(cp->npools > 0 ? cp->npools : 1);
        struct gs_cpdemand *d = realloc(cp->dms, (size_t)cap * np * sizeof *d);
        if (d == NULL)
            return -1;
        cp->dms = d;
        cp->capneeds = cap;
    }
    if (2 * (cp->nneeds + 1) > cp->nhcap) {
        int cap = cp->nhcap ? 2 * cp->nhcap : 64;
        int *h = malloc((size_t)cap * sizeof *h);
        if (h == NULL)
            return -1;
        for (int i = 0; i < cap; i++)
            h[i] = -1;
        for (int n = 0; n < cp->nneeds; n++) {
            uint32_t i = cp->needs[n].hash & (uint32_t)(cap - 1);
            while (h[i] >= 0)
                i = (i + 1) & (uint32_t)(cap - 1);
            h[i] = n;
        }
        free(cp->nhash);
        cp->nhash = h;
        cp->nhcap = cap;
    }
    k.round = gs_frag_shape_of(fr, need) >= 0 &&
              !(need->mem_gb > 0 || need->guar > 0);
    int id = cp->nneeds++;
    cp->needs[id] = k;
    for (int p = 0; p < cp->npools; p++)
        cp->dms[(size_t)id * (size_t)cp->npools + (size_t)p].rc = 1;
    uint32_t i = k.hash & (uint32_t)(cp->nhcap - 1);
    while (cp->nhash[i] >= 0)
        i = (i + 1) & (uint32_t)(cp->nhcap - 1);
    cp->nhash[i] = id;
    return id;
}

/* need's demand on pool (gs_fleet_demand), remembered per interned need
 * (nid >= 0). */
static int demand(struct gs_classplace *cp, const struct gs_fleet *f, int nid,
                  int pool, const struct gs_need *need, struct gs_demand *dm)
{
    if (nid < 0)
        return gs_fleet_demand(f, pool, need, dm);
    struct gs_cpdemand *c = &cp->dms[(size_t)nid * (size_t)cp->npools +
                                     (size_t)pool];
    if (c->rc > 0)
        c->rc = gs_fleet_demand(f, pool, need, &c->d);
    *dm = c->d;
    return c->rc;
}

/* Make room in class id's row for need nid; 0 or GS_ENOMEM. */
static int row_fit(struct gs_classplace *cp, int id, int nid)
{
    struct gs_cprow *r = &cp->rows[id];
    if (nid < r->len)
        return 0;
    int len = (nid + 16) & ~15;         /* as far as the needs it met */
    double *v = realloc(r->v, (size_t)len * sizeof *v);
    if (v == NULL)
        return GS_ENOMEM;
    r->v = v;
    int8_t *pk = realloc(r->pick, (size_t)len);
    if (pk == NULL)
        return GS_ENOMEM;
    r->pick = pk;
    for (int i = r->len; i < len; i++)
        v[i] = NAN;
    r->len = len;
    return 0;
}

/* class_score's slow path: the score computed, and cached when nid >= 0. */
static double __attribute__((noinline))
score_anew(struct gs_classplace *cp, const struct gs_frag *fr, int id,
           int nid, const struct gs_demand *dm, const struct gs_need *need,
           int *pick)
{
    struct gs_fclass c;
    gs_frag_class(fr, id, &c);
    if (nid < 0 || row_fit(cp, id, nid) < 0)
        return cp->score(cp, fr, &c, dm, need, pick);
    int pk = -1;
    double d = cp->score(cp, fr, &c, dm, need, &pk);
    if (cp->needs[nid].round)
        d = (float)d;
    cp->rows[id].v[nid] = d;
    cp->rows[id].pick[nid] = (int8_t)pk;
    *pick = pk;
    return d;
}

/* The score of class id for the job, through the cache when nid >= 0. */
static inline double class_score(struct gs_classplace *cp,
                                 const struct gs_frag *fr, int id, int nid,
                                 const struct gs_demand *dm,
                                 const struct gs_need *need, int *pick)
{
    if (nid >= 0 && nid < cp->rows[id].len) {
        double v = cp->rows[id].v[nid];
        if (!isnan(v)) {
            *pick = cp->rows[id].pick[nid];
            return v;
        }
    }
    return score_anew(cp, fr, id, nid, dm, need, pick);
}

struct choice {
    double v;
    int node, id, pick, pool;
    int lo, hi;                 /* the range it was found in (global) */
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
#define GROUP 8                 /* ranges searched in one pass */

/* Rejection sampling: a node uniform over the ranges' nodes, kept when the
 * task fits on it.  0 with *ch, or GS_ENOFIT after RANDOM_TRIES misses. */
static __attribute__((noinline)) int
try_random(struct gs_classplace *cp, const struct gs_fleet *f,
                      const struct gs_frag *fr, const struct gs_range *r,
                      int n, const struct gs_need *need, int nid,
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
        if (id < 0 || demand(cp, f, nid, r[i].pool, need, &dm) < 0 ||
            (dm.kind == GS_DEM_WHOLE && dm.gpus > f->pools[r[i].pool].s.gpn))
            continue;
        int pick;
        if (class_score(cp, fr, id, nid, &dm, need, &pick) < INFINITY) {
            *ch = (struct choice){ 0, node, id, -1, r[i].pool, 0, 0 };
            return 0;
        }
    }
    return GS_ENOFIT;
}

/* Uniformly among the nodes of fitting classes: count them, draw one, find
 * it again in the same order.  0 with *ch, or GS_ENOFIT. */
static __attribute__((noinline)) int
draw_random(struct gs_classplace *cp, const struct gs_fleet *f,
                       const struct gs_frag *fr, const struct gs_range *r,
                       int n, const struct gs_need *need, int nid,
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
                demand(cp, f, nid, r[i].pool, need, &dm) < 0 ||
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
                if (!(class_score(cp, fr, ids[k], nid, &dm, need, &pick) <
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
                                               r[i].pool, lo, hi };
                        return 0;
                    }
                }
            }
        }
    }
    return GS_ENOFIT;
}

/* The search below over a range of fewer nodes than the pool has live
 * classes (a static partition): each node stands for its class, scored as
 * there, and the choice is the same -- the least score, ties to the member
 * of least rank in the ranges so far -- since a class's candidate there is
 * its member of least rank in the range, and the order of the classes
 * matters only for ties, which rank decides. */
static void narrow(struct gs_classplace *cp, const struct gs_frag *fr,
                   int nid, const struct gs_demand *dm,
                   const struct gs_need *need, const struct gs_range *r,
                   int lo, int hi, struct choice *best)
{
    for (int node = lo; node < hi; node++) {
        int id = gs_frag_node_class(fr, node), pick = -1;
        if (id < 0)
            continue;
        double v = class_score(cp, fr, id, nid, dm, need, &pick);
        if (!(v < INFINITY) || v > best->v)
            continue;
        if (v == best->v) {
            if (best->node < 0)
                best->node = gs_frag_member_in(fr, best->id, best->lo,
                                               best->hi);
            if (gs_frag_rank(fr, node) > gs_frag_rank(fr, best->node))
                continue;
        }
        *best = (struct choice){ v, node, id, pick, r->pool, lo, hi };
    }
}

static int place_rest(const struct gs_fleet *f, const struct gs_frag *fr,
                      const struct gs_need *need, const struct gs_range *r,
                      int n, struct gs_alloc *out);

int gs_classplace_place(struct gs_classplace *cp, struct gs_sim *sim,
                        const struct gs_job *job, const struct gs_range *r,
                        int n, struct gs_alloc *out)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    struct gs_frag *fr = gs_sim_frag(sim);
    const struct gs_need *need = &job->need;
    int nid = need_id(cp, fr, need);
    if (nid >= 0 && grow(cp, gs_frag_nclasses(fr)) < 0)
        return GS_ENOMEM;
    struct choice best = { INFINITY, -1, -1, -1, -1, 0, 0 };
    int rc;
    if (cp->rng) {
        if (try_random(cp, f, fr, r, n, need, nid, &best) < 0 &&
            draw_random(cp, f, fr, r, n, need, nid, &best) < 0)
            best.node = -1;
    } else {
        for (int i = 0; i < n;) {
            struct gs_demand dm;
            if (!gs_frag_pool_classed(fr, r[i].pool) ||
                demand(cp, f, nid, r[i].pool, need, &dm) < 0 ||
                (dm.kind == GS_DEM_WHOLE &&
                 dm.gpus > f->pools[r[i].pool].s.gpn)) {
                i++;
                continue;
            }
            int lo, hi;
            range_nodes(f, &r[i], &lo, &hi);
            const struct gs_pool *pl = &f->pools[r[i].pool];
            /* In a whole pool every live class has members: a class's
             * first member is looked up only to break a tie (or at the
             * end); in part of a pool, to know it has one there. */
            int whole = lo <= pl->node0 && hi >= pl->node0 + pl->s.nodes;
            const int *ids;
            int nl = gs_frag_live(fr, r[i].pool, &ids);
            if (!whole && hi - lo < nl) {
                narrow(cp, fr, nid, &dm, need, &r[i], lo, hi, &best);
                i++;
                continue;
            }
            /* Part of a pool, and the ranges after it in the same pool
             * (fifo-backfill's pool less its reserved nodes): one pass
             * over the classes, each standing for its member of least
             * rank in any of them.  The choice is the same as range by
             * range -- the least score, ties to the least rank -- since
             * a class scores alike in every range. */
            int glo[GROUP], ghi[GROUP], ng = 1;
            glo[0] = lo;
            ghi[0] = hi;
            int e = i + 1;
            for (; !whole && e < n && ng < GROUP && r[e].pool == r[i].pool;
                 e++) {
                int l2, h2;
                range_nodes(f, &r[e], &l2, &h2);
                if ((l2 <= pl->node0 && h2 >= pl->node0 + pl->s.nodes) ||
                    h2 - l2 < nl)
                    break;
                glo[ng] = l2;
                ghi[ng++] = h2;
            }
            for (int k = 0; k < nl; k++) {
                int pick = -1;
                double v = class_score(cp, fr, ids[k], nid, &dm, need,
                                       &pick);
                if (!(v < INFINITY) || v > best.v)
                    continue;
                int node = -1;
                if (!whole || v == best.v) {
                    node = ng == 1 ? gs_frag_member_in(fr, ids[k], lo, hi)
                                   : gs_frag_member_in_any(fr, ids[k], glo,
                                                           ghi, ng);
                    if (node < 0)
                        continue;
                    if (v == best.v) {
                        if (best.node < 0)
                            best.node = gs_frag_member_in(fr, best.id,
                                                          best.lo, best.hi);
                        if (gs_frag_rank(fr, node) >
                            gs_frag_rank(fr, best.node))
                            continue;
                    }
                }
                best = (struct choice){ v, node, ids[k], pick, r[i].pool,
                                        lo, hi };
            }
            i = e;
        }
        if (best.id >= 0 && best.node < 0)
            best.node = gs_frag_member_in(fr, best.id, best.lo, best.hi);
    }
    if (best.node >= 0) {
        struct gs_demand dm;
        rc = demand(cp, f, nid, best.pool, need, &dm);
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
    return place_rest(f, fr, need, r, n, out);
}

/* Pools without classes, and gangs wider than a node: best-fit (a miss
 * with none of them, the usual one, allocates nothing). */
static __attribute__((noinline)) int
place_rest(const struct gs_fleet *f, const struct gs_frag *fr,
           const struct gs_need *need, const struct gs_range *r, int n,
           struct gs_alloc *out)
{
    struct gs_range *rest = NULL;
    int nrest = 0;
    for (int i = 0; i < n; i++) {
        struct gs_demand dm;
        if (gs_fleet_demand(f, r[i].pool, need, &dm) < 0)
            continue;
        if (gs_frag_pool_classed(fr, r[i].pool) &&
            f->pools[r[i].pool].s.share.mode != GS_SHARE_FRAC &&
            !(dm.kind == GS_DEM_WHOLE && dm.gpus > f->pools[r[i].pool].s.gpn))
            continue;
        if (rest == NULL && (rest = malloc((size_t)n * sizeof *rest)) == NULL)
            return GS_ENOMEM;
        rest[nrest++] = r[i];
    }
    if (nrest == 0)
        return GS_ENOFIT;
    int rc = gs_place_best(f, need, rest, nrest, out);
    free(rest);
    return rc;
}
