/* fleet.c -- GPU pools and nodes, allocation state, and the placement index.
 *
 * See fleet.h for the model.  Invariants kept by every function here:
 *  - free_milli[g] in [0, 1000]; a GPU is "fully free" iff free_milli == 1000,
 *    and node->fullmask / nfull list exactly those GPUs;
 *  - the segment tree leaf of a node summarizes the node's current state
 *    (zero when the node is down), and every inner entry is the OR/max of
 *    its two children;
 *  - used_milli of the fleet and of each pool is the sum of what commit took
 *    and release has not given back;
 *  - on a MIG pool a GPU's free milli is 1000 - 125 x the memory slices of
 *    its busy instances (migslots.h), so "fully free" means "no instance
 *    busy" there too.
 * Every search and every check goes through gs_fleet_demand, the one place
 * that says what a job's need means on a pool of each sharing mode.  The
 * node events (down, cordon, dead GPUs, loans, watchers) are fleetnode.c's,
 * through the calls of fleetint.h. */
#include "fleet.h"
#include "../base/bits.h"
#include "../base/err.h"
#include "fleetint.h"
#include "migslots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gs_alloc_reset(struct gs_alloc *a)
{
    if (a->n > 1)
        free(a->many);
    a->many = NULL;
    a->n = 0;
    a->pool = -1;
}

/* gs_alloc_milli of an empty allocation or a gang's (fleet.h): out of
 * line, since a start, a stop and each model's books ask it of the same
 * job, and five inlined copies of the loop took nine lines of the
 * instruction cache where the one-part case inlined takes one. */
__attribute__((noinline)) int64_t
gs_alloc_milli_parts(const struct gs_alloc *a)
{
    if (a->pool < 0 || a->n <= 0)
        return 0;
    const struct gs_part *pt = a->n > 1 ? a->many : &a->one;
    int64_t m = 0;
    for (int i = 0; i < a->n; i++)
        m += (int64_t)gs_popcount64(pt[i].mask) * pt[i].milli;
    return m;
}

int gs_alloc_copy(struct gs_alloc *dst, const struct gs_alloc *src)
{
    gs_alloc_reset(dst);
    dst->pool = src->pool;
    if (src->n > 1) {
        dst->many = malloc((size_t)src->n * sizeof *dst->many);
        if (dst->many == NULL)
            return GS_ENOMEM;
        memcpy(dst->many, src->many, (size_t)src->n * sizeof *dst->many);
    } else {
        dst->one = src->one;
    }
    dst->n = src->n;
    return 0;
}

static int add_part(struct gs_alloc *a, int node, int milli, uint64_t mask,
                    int cap)
{
    if (a->n == 0) {
        a->one = (struct gs_part){ node, milli, mask, 0, 0 };
        a->n = 1;
        return 0;
    }
    if (a->n == 1) {
        a->many = malloc((size_t)cap * sizeof *a->many);
        if (a->many == NULL)
            return GS_ENOMEM;
        a->many[0] = a->one;
    }
    GS_ASSERT(a->n < cap);
    a->many[a->n++] = (struct gs_part){ node, milli, mask, 0, 0 };
    return 0;
}

/* --- the segment tree ------------------------------------------------- */

static inline int bucket(int free)
{
    return free * 64 / 1000;
}

/* The fields of a tree entry, as bits of the set a change still moves. */
enum { T_FMASK = 1, T_PMASK = 2, T_MILLI = 4, T_RMAX = 8, T_HCPU = 16,
       T_HMEM = 32 };

/* Entry i of a tree from its two children (an OR, or a max): 1 if that
 * changed it, else 0 -- and then no entry above it changes either. */
static inline int or_up(uint64_t *t, int i)
{
    uint64_t v = t[2 * i] | t[2 * i + 1];
    if (t[i] == v)
        return 0;
    t[i] = v;
    return 1;
}

static inline int max16_up(int16_t *t, int i)
{
    int16_t v = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
    if (t[i] == v)
        return 0;
    t[i] = v;
    return 1;
}

static inline int max32_up(int32_t *t, int i)
{
    int32_t v = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
    if (t[i] == v)
        return 0;
    t[i] = v;
    return 1;
}

/* Bring node's leaf up to date, then its ancestors: each field climbs
 * only while it changes (an entry whose field stays as it was leaves every
 * entry above it as it was too), and a slot is written only when its value
 * moves.  A commit of whole GPUs thus touches the fully-free masks of a
 * few levels and nothing else.  The host maxima (hcpu, hmem) are kept only
 * once a search has used them (host_index). */
static void leaf_sync(struct gs_fleet *f, int node)
{
    const struct gs_node *nd = &f->nodes[node];
    struct gs_pool *p = &f->pools[nd->pool];
    int i = p->tsize + (node - p->node0);
    uint64_t fm = 0, pm = 0;
    int mx = 0, rm = 0;
    int open = nd->up && !nd->cordon;
    if (open) {
        const int16_t *fr = f->free_milli + nd->gpu0;
        fm = 1ULL << nd->nfull;
        if (p->rmax == NULL) {      /* nothing is lent on this pool */
            for (int g = 0; g < p->s.gpn; g++) {
                int v = fr[g];
                if (v > mx)
                    mx = v;
                if (v > 0 && v < 1000)
                    pm |= 1ULL << bucket(v);
            }
        } else {
            const int16_t *ln = f->lent + nd->gpu0;
            for (int g = 0; g < p->s.gpn; g++) {
                int v = fr[g] - ln[g];
                if (v < 0)
                    v = 0;      /* a reclaim not yet enforced */
                if (v > mx)
                    mx = v;
                if (v > 0 && v < 1000)
                    pm |= 1ULL << bucket(v);
                if (fr[g] > rm)
                    rm = fr[g];
            }
        }
    }
    unsigned ch = 0;
    if (p->fmask[i] != fm) {
        p->fmask[i] = fm;
        ch |= T_FMASK;
    }
    if (p->pmask[i] != pm) {
        p->pmask[i] = pm;
        ch |= T_PMASK;
    }
    if (p->milli[i] != mx) {
        p->milli[i] = (int16_t)mx;
        ch |= T_MILLI;
    }
    if (p->rmax && p->rmax[i] != rm) {
        p->rmax[i] = (int16_t)rm;
        ch |= T_RMAX;
    }
    if (p->hidx) {
        int32_t c = open ? f->cpu_free[node] : -1;
        int32_t m = open ? f->mem_free[node] : -1;
        if (p->hcpu[i] != c) {
            p->hcpu[i] = c;
            ch |= T_HCPU;
        }
        if (p->hmem[i] != m) {
            p->hmem[i] = m;
            ch |= T_HMEM;
        }
    }
    for (i /= 2; ch && i >= 1; i /= 2) {
        if ((ch & T_FMASK) && !or_up(p->fmask, i))
            ch &= ~T_FMASK;
        if ((ch & T_PMASK) && !or_up(p->pmask, i))
            ch &= ~T_PMASK;
        if ((ch & T_MILLI) && !max16_up(p->milli, i))
            ch &= ~T_MILLI;
        if ((ch & T_RMAX) && !max16_up(p->rmax, i))
            ch &= ~T_RMAX;
        if ((ch & T_HCPU) && !max32_up(p->hcpu, i))
            ch &= ~T_HCPU;
        if ((ch & T_HMEM) && !max32_up(p->hmem, i))
            ch &= ~T_HMEM;
    }
}

/* Node's state changed: keep the root's fully-free mask exact (from the
 * count of open nodes by fully free GPUs) and leave the rest of its leaf
 * and path to the next search (gs_fleet_index_sync). */
void gs_fleet_leaf_update(struct gs_fleet *f, int node)
{
    struct gs_node *nd = &f->nodes[node];
    struct gs_pool *p = &f->pools[nd->pool];
    int v = nd->up && !nd->cordon ? nd->nfull : -1;
    if (v != nd->fval) {
        if (nd->fval >= 0 && --p->ncount[nd->fval] == 0)
            p->fmask[1] &= ~(1ULL << nd->fval);
        if (v >= 0 && p->ncount[v]++ == 0)
            p->fmask[1] |= 1ULL << v;
        nd->fval = (int8_t)v;
    }
    if (!nd->stale) {
        nd->stale = 1;
        p->dirty[p->ndirty++] = node;
    }
}

/* Searches read the trees through a const fleet; the stale entries they
 * bring up to date are a cache of the nodes' state, so it is completed
 * through a cast (the fleet itself is never const). */
void gs_fleet_index_sync(const struct gs_fleet *cf, int pool)
{
    struct gs_fleet *f = (struct gs_fleet *)cf;
    struct gs_pool *p = &f->pools[pool];
    for (int k = 0; k < p->ndirty; k++) {
        f->nodes[p->dirty[k]].stale = 0;
        leaf_sync(f, p->dirty[k]);
    }
    p->ndirty = 0;
}

/* The host maxima of pool p, built from the nodes' free CPU and memory the
 * first time a search needs them and kept by leaf_sync from then on (most
 * runs never place a job without GPUs, and would pay for them on every
 * commit).  Completed through a cast, as gs_fleet_index_sync is. */
static void host_index(const struct gs_fleet *f, const struct gs_pool *cp)
{
    if (cp->hidx)
        return;
    struct gs_pool *p = (struct gs_pool *)cp;
    for (int k = 0; k < p->tsize; k++) {
        int node = p->node0 + k;
        int open = k < p->s.nodes && f->nodes[node].up &&
                   !f->nodes[node].cordon;
        p->hcpu[p->tsize + k] = open ? f->cpu_free[node] : -1;
        p->hmem[p->tsize + k] = open ? f->mem_free[node] : -1;
    }
    for (int i = p->tsize - 1; i >= 1; i--) {
        int32_t a = p->hcpu[2 * i], b = p->hcpu[2 * i + 1];
        p->hcpu[i] = a > b ? a : b;
        a = p->hmem[2 * i];
        b = p->hmem[2 * i + 1];
        p->hmem[i] = a > b ? a : b;
    }
    p->hidx = 1;
}

/* OR of fmask and pmask over pool-relative nodes [lo, hi). */
static void range_or(const struct gs_pool *p, int lo, int hi, uint64_t *fm,
                     uint64_t *pm)
{
    uint64_t a = 0, b = 0;
    for (int l = lo + p->tsize, r = hi + p->tsize; l < r; l /= 2, r /= 2) {
        if (l & 1) {
            a |= p->fmask[l];
            b |= p->pmask[l++];
        }
        if (r & 1) {
            a |= p->fmask[--r];
            b |= p->pmask[r];
        }
    }
    *fm = a;
    *pm = b;
}

int gs_fleet_most_free(const struct gs_fleet *f, const struct gs_range *r)
{
    const struct gs_pool *p = &f->pools[r->pool];
    uint64_t fm, pm;
    if (r->lo <= 0 && r->hi >= p->s.nodes) {
        fm = p->fmask[1];       /* the whole pool: the root, always exact */
    } else {
        gs_fleet_index_sync(f, r->pool);
        range_or(p, r->lo, r->hi, &fm, &pm);
    }
    return fm ? 63 - __builtin_clzll(fm) : 0;
}

struct pred {
    uint64_t fm, pm;        /* match if fmask & fm or pmask & pm */
    int milli;              /* or if milli >= this (0 = unused) */
    int rmilli;             /* or if rmax >= this (0 = unused) */
};

static inline int pred_match(const struct gs_pool *p, int i,
                             const struct pred *q)
{
    return (p->fmask[i] & q->fm) || (p->pmask[i] & q->pm) ||
           (q->milli > 0 && p->milli[i] >= q->milli) ||
           (q->rmilli > 0 && p->rmax[i] >= q->rmilli);
}

/* Visit, in index order, every leaf in [lo, hi) whose summary matches q,
 * pruning subtrees that cannot match; stop when cb returns non-zero.
 * Returns what cb returned last (0 if nothing stopped the walk). */
typedef int leaf_cb(int node, void *arg);

static int visit(const struct gs_pool *p, int i, int nl, int nr, int lo,
                 int hi, const struct pred *q, leaf_cb *cb, void *arg)
{
    if (nr <= lo || hi <= nl || !pred_match(p, i, q))
        return 0;
    if (i >= p->tsize)
        return cb(p->node0 + (i - p->tsize), arg);
    int mid = (nl + nr) / 2;
    int rc = visit(p, 2 * i, nl, mid, lo, hi, q, cb, arg);
    if (rc)
        return rc;
    return visit(p, 2 * i + 1, mid, nr, lo, hi, q, cb, arg);
}

static int walk(const struct gs_pool *p, const struct gs_range *r,
                const struct pred *q, leaf_cb *cb, void *arg)
{
    return visit(p, 1, 0, p->tsize, r->lo, r->hi, q, cb, arg);
}

/* --- building ------------------------------------------------------ */

struct gs_fleet *gs_fleet_new(const struct gs_catalog *cat,
                              const struct gs_pool_spec *specs, int n)
{
    struct gs_fleet *f = calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    f->cat = cat;
    f->pools = calloc((size_t)(n > 0 ? n : 1), sizeof *f->pools);
    if (f->pools == NULL)
        goto fail;
    f->npools = n;
    for (int i = 0; i < n; i++) {
        GS_ASSERT(specs[i].gpn >= 0 && specs[i].gpn <= GS_MAX_GPN);
        GS_ASSERT(specs[i].nodes >= 0);
        f->pools[i].s = specs[i];
        f->pools[i].node0 = f->nnodes;
        f->nnodes += specs[i].nodes;
        f->ngpus += specs[i].nodes * specs[i].gpn;
    }
    f->nodes = calloc((size_t)(f->nnodes ? f->nnodes : 1), sizeof *f->nodes);
    f->free_milli = malloc((size_t)(f->ngpus ? f->ngpus : 1) * sizeof(int16_t));
    f->free_mib = malloc((size_t)(f->ngpus ? f->ngpus : 1) * sizeof(int32_t));
    f->lent = calloc((size_t)(f->ngpus ? f->ngpus : 1), sizeof(int16_t));
    f->cpu_free = malloc((size_t)(f->nnodes ? f->nnodes : 1) * sizeof(int32_t));
    f->mem_free = malloc((size_t)(f->nnodes ? f->nnodes : 1) * sizeof(int32_t));
    if (!f->nodes || !f->free_milli || !f->free_mib || !f->lent ||
        !f->cpu_free || !f->mem_free)
        goto fail;
    int g = 0;
    for (int i = 0; i < n; i++) {
        struct gs_pool *p = &f->pools[i];
        p->tsize = 1;
        while (p->tsize < p->s.nodes)
            p->tsize *= 2;
        size_t m = 2 * (size_t)p->tsize;
        p->fmask = calloc(m, sizeof *p->fmask);
        p->pmask = calloc(m, sizeof *p->pmask);
        p->milli = calloc(m, sizeof *p->milli);
        p->hcpu = malloc(m * sizeof *p->hcpu);
        p->hmem = malloc(m * sizeof *p->hmem);
        p->dirty = malloc((size_t)(p->s.nodes > 0 ? p->s.nodes : 1) *
                          sizeof *p->dirty);
        if (!p->hcpu || !p->hmem || !p->dirty)
            goto fail;
        for (size_t k = 0; k < m; k++)
            p->hcpu[k] = p->hmem[k] = -1;
        if (p->s.share.mode == GS_SHARE_FRAC &&
            (p->rmax = calloc(m, sizeof *p->rmax)) == NULL)
            goto fail;
        if (!p->fmask || !p->pmask || !p->milli)
            goto fail;
        int32_t mem = gs_gb_to_mib(cat->m[p->s.model].mem_gb);
        p->gpu_mib = mem;
        p->gpu_gb = cat->m[p->s.model].mem_gb;
        p->model_bit = p->s.gpn > 0 && p->s.model >= 0 && p->s.model < 64
                           ? 1ULL << p->s.model : 0;
        int32_t hcpu, hmem;
        gs_pool_host(cat, &p->s, &hcpu, &hmem);
        p->host_cpu = hcpu;
        p->host_mem = hmem;
        for (int j = 0; j < p->s.nodes; j++) {
            struct gs_node *nd = &f->nodes[p->node0 + j];
            f->cpu_free[p->node0 + j] = hcpu;
            f->mem_free[p->node0 + j] = hmem;
            f->cpu_cap += hcpu;
            f->mem_cap += hmem;
            nd->pool = i;
            nd->gpu0 = g;
            for (int k = 0; k < p->s.gpn; k++, g++) {
                f->free_milli[g] = 1000;
                f->free_mib[g] = mem;
            }
            nd->nfull = p->s.gpn;
            nd->fullmask = p->s.gpn == 64 ? ~0ULL : (1ULL << p->s.gpn) - 1;
            nd->up = 1;
            nd->fval = -1;
            gs_fleet_leaf_update(f, p->node0 + j);
        }
        gs_fleet_index_sync(f, i);
        p->gpus_up = (int64_t)p->s.nodes * p->s.gpn;
        if (p->s.share.mode == GS_SHARE_MIG &&
            (p->mig = gs_migslots_new(&p->s.share, p->s.nodes * p->s.gpn,
                                      p->s.gpn)) == NULL)
            goto fail;
        if (p->s.share.mode == GS_SHARE_TS) {
            GS_ASSERT(p->s.share.replicas >= 1 &&
                      p->s.share.replicas <= GS_SHARE_MAX_REPLICAS);
            p->unit = 1000 / p->s.share.replicas;
        }
    }
    f->gpus_up = f->ngpus;
    for (int i = 0; i < f->nnodes; i++)
        f->stranded_milli += gs_fleet_node_stranded(f, i);
    return f;
fail:
    gs_fleet_free(f);
    return NULL;
}

void gs_fleet_free(struct gs_fleet *f)
{
    if (f == NULL)
        return;
    for (int i = 0; f->pools && i < f->npools; i++) {
        free(f->pools[i].fmask);
        free(f->pools[i].pmask);
        free(f->pools[i].milli);
        free(f->pools[i].rmax);
        free(f->pools[i].hcpu);
        free(f->pools[i].hmem);
        free(f->pools[i].dirty);
        gs_migslots_free(f->pools[i].mig);
    }
    free(f->pools);
    free(f->nodes);
    free(f->free_milli);
    free(f->free_mib);
    free(f->lent);
    free(f->cpu_free);
    free(f->mem_free);
    free(f);
}

/* --- what a need means on a pool ------------------------------------------ */

static int32_t gpu_mib(const struct gs_fleet *f, const struct gs_pool *p)
{
    (void)f;
    return p->gpu_mib;
}

/* Memory a plain fraction of milli holds: what the job states, else the
 * same fraction of the GPU's memory. */
static int32_t frac_mib(const struct gs_fleet *f, const struct gs_pool *p,
                        const struct gs_need *need, int milli)
{
    if (need->mem_gb > 0)
        return gs_gb_to_mib(need->mem_gb);
    return (int32_t)((int64_t)gpu_mib(f, p) * milli / 1000);
}

/* 1 if q is a larger instance that serves a job whose smallest fit is p. */
static int fits_up(const struct gs_mig_profile *q, const struct gs_mig_profile *p)
{
    return q != p && !q->media_ext && q->compute_slices >= p->compute_slices &&
           q->mem_gb >= p->mem_gb;
}

static int mig_demand(const struct gs_fleet *f, const struct gs_pool *p,
                      const struct gs_need *need, struct gs_demand *o)
{
    const struct gs_migslots *m = p->mig;
    if (need->gpus > 0 && need->profile == NULL) {
        /* Whole GPUs: the one-instance layout, made if need be. */
        if (!m->reconfigure && m->full != 0)
            return GS_ENOFIT;
        o->kind = GS_DEM_WHOLE;
        o->gpus = need->gpus;
        o->mib = gpu_mib(f, p);
        return 0;
    }
    const struct gs_mig_profile *pr;
    if (need->gpus > 1)
        return GS_ENOFIT;       /* one instance per job */
    if (need->profile) {
        pr = gs_mig_profile_find(m->gpu, need->profile);
        o->fit_up = 0;
    } else {
        double gb = need->mem_gb > need->dev_gb ? need->mem_gb : need->dev_gb;
        pr = gs_mig_smallest_fit(m->gpu, gb, need->milli / 1000.0);
        o->fit_up = 1;
    }
    if (pr == NULL || pr->mem_gb < need->dev_gb)
        return GS_ENOFIT;       /* no instance with the memory selected */
    o->prof = gs_migslots_profile_index(m, pr);
    if (!m->reconfigure) {
        int ok = gs_migslots_layout_has(m, 0, o->prof);
        for (int k = 0; !ok && o->fit_up && k < m->nprof; k++)
            ok = gs_migslots_layout_has(m, 0, k) &&
                 fits_up(gs_migslots_profile(m, k), pr);
        if (!ok)
            return GS_ENOFIT;
    }
    o->kind = GS_DEM_MIG;
    o->milli = 125 * pr->mem_slices;
    o->mib = (int32_t)((int64_t)gpu_mib(f, p) * o->milli / 1000);
    return 0;
}

/* What a need asking GPUs means on a pool of a sharing mode other than
 * none, or fractions on a plain pool (gs_fleet_demand's other cases, kept
 * out of line so that the common one stays short).  o is zeroed. */
static __attribute__((noinline)) int
demand_other(const struct gs_fleet *f, const struct gs_pool *p,
             const struct gs_need *need, struct gs_demand *o)
{
    int single = need->gpus == 1 || (need->gpus == 0 && need->milli > 0);
    switch (p->s.share.mode) {
    case GS_SHARE_MIG:
        if (mig_demand(f, p, need, o) < 0)
            return GS_ENOFIT;
        break;
    case GS_SHARE_TS:
        if (!single)
            return GS_ENOFIT;
        o->kind = GS_DEM_FRAC;
        o->milli = p->unit;
        o->mib = 0;             /* no memory isolation: nothing is held */
        break;
    case GS_SHARE_FRAC:
        if (single && need->guar > 0 && need->guar < 1000) {
            o->kind = GS_DEM_FRAC;
            o->milli = need->guar;
            o->mib = frac_mib(f, p, need, need->guar);
            break;
        }
        if (single && need->guar == 1000) {
            o->kind = GS_DEM_WHOLE;
            o->gpus = 1;
            o->mib = gpu_mib(f, p);
            break;
        }
        /* fall through -- as on a plain pool */
    default:
        if (need->gpus > 0) {
            o->kind = GS_DEM_WHOLE;
            o->gpus = need->gpus;
            o->mib = gpu_mib(f, p);
        } else {
            o->kind = GS_DEM_FRAC;
            o->milli = need->milli;
            o->mib = frac_mib(f, p, need, need->milli);
        }
        break;
    }
    if (o->kind == GS_DEM_WHOLE && o->gpus > p->s.nodes * p->s.gpn)
        return GS_ENOFIT;
    return 0;
}

int gs_fleet_demand(const struct gs_fleet *f, int pool,
                    const struct gs_need *need, struct gs_demand *o)
{
    const struct gs_pool *p = &f->pools[pool];
    *o = (struct gs_demand){ .prof = -1 };
    if (p->s.taints & ~need->tolerates)
        return GS_ENOFIT;       /* a taint it does not tolerate */
    if (gs_need_host_only(need)) {
        o->kind = GS_DEM_HOST;
        return p->s.nodes > 0 ? 0 : GS_ENOFIT;
    }
    if (p->s.gpn <= 0)
        return GS_ENOFIT;       /* CPU-only nodes */
    if (need->allowed && !(need->allowed & p->model_bit))
        return GS_ENOFIT;
    if (need->mem_gb > p->gpu_gb || p->s.nodes <= 0 ||
        need->dev_gb > p->gpu_gb)
        return GS_ENOFIT;
    int mode = p->s.share.mode;
    if (need->profile && mode != GS_SHARE_MIG)
        return GS_ENOFIT;
    if (mode != GS_SHARE_NONE || need->gpus <= 0)
        return demand_other(f, p, need, o);
    o->kind = GS_DEM_WHOLE;     /* the common case: whole GPUs, plain pool */
    o->gpus = need->gpus;
    o->mib = p->gpu_mib;
    return o->gpus > p->s.nodes * p->s.gpn ? GS_ENOFIT : 0;
}

/* 1 if one node of p can ever hold its share of need's CPU and memory. */
static int host_eligible(const struct gs_pool *p, const struct gs_need *need)
{
    if (need->cpu_milli <= 0 && need->mem_mib <= 0)
        return 1;
    int32_t cpu = p->host_cpu, mem = p->host_mem;
    int64_t g = need->gpus > 0 ? need->gpus : 1;
    int64_t on = g < p->s.gpn ? g : p->s.gpn;    /* GPUs on the fullest node */
    if (on < 1)
        on = 1;                                 /* a CPU-only pool */
    return (int64_t)need->cpu_milli * on <= (int64_t)cpu * g &&
           (int64_t)need->mem_mib * on <= (int64_t)mem * g;
}

int gs_fleet_pool_eligible(const struct gs_fleet *f, int pool,
                           const struct gs_need *need)
{
    const struct gs_pool *p = &f->pools[pool];
    if (!host_eligible(p, need) || (p->s.taints & ~need->tolerates))
        return 0;
    if (gs_need_host_only(need))
        return p->s.nodes > 0;
    if (p->s.gpn <= 0)
        return 0;
    if (p->s.share.mode == GS_SHARE_NONE) {     /* the common case, quickly */
        if (need->profile || (need->allowed &&
                              !(need->allowed & p->model_bit)))
            return 0;
        if (need->mem_gb > p->gpu_gb || need->dev_gb > p->gpu_gb)
            return 0;
        return need->gpus <= p->s.nodes * p->s.gpn && p->s.nodes > 0;
    }
    struct gs_demand dm;
    return gs_fleet_demand(f, pool, need, &dm) == 0;
}

/* --- finding room ---------------------------------------------------- */

static inline uint64_t bits_from(int k)
{
    return k >= 64 ? 0 : ~0ULL << k;
}

static uint64_t lowest_bits(uint64_t m, int k)
{
    uint64_t r = 0;
    while (k-- > 0) {
        uint64_t b = m & -m;
        r |= b;
        m ^= b;
    }
    return r;
}

struct first_arg {
    int node;
    const int *skip;        /* nodes already chosen (gang) */
    int nskip;
};

static int take_first(int node, void *arg)
{
    struct first_arg *a = arg;
    for (int i = 0; i < a->nskip; i++)
        if (a->skip[i] == node)
            return 0;
    a->node = node;
    return 1;
}

/* A node with at least k fully free GPUs in r, not in skip.  FIRST: the
 * lowest index.  BEST: the one with the fewest fully free GPUs (ties: the
 * lowest index).  Returns the node or -1. */
static int find_whole_node(const struct gs_pool *p, const struct gs_range *r,
                           int k, enum gs_fit fit, const int *skip, int nskip)
{
    struct first_arg a = { -1, skip, nskip };
    if (fit == GS_FIT_FIRST) {
        struct pred q = { bits_from(k), 0, 0, 0 };
        walk(p, r, &q, take_first, &a);
        return a.node;
    }
    uint64_t fm, pm;
    range_or(p, r->lo, r->hi, &fm, &pm);
    fm &= bits_from(k);
    while (fm) {
        uint64_t b = fm & -fm;
        struct pred q = { b, 0, 0, 0 };
        walk(p, r, &q, take_first, &a);
        if (a.node >= 0)
            return a.node;
        fm ^= b;
    }
    return -1;
}

static int find_whole(const struct gs_fleet *f, const struct gs_range *r,
                      const struct gs_demand *dm, enum gs_fit fit,
                      struct gs_alloc *out, int *score)
{
    const struct gs_pool *p = &f->pools[r->pool];
    int gpn = p->s.gpn, k = dm->gpus;
    if (k <= gpn) {
        int node = find_whole_node(p, r, k, fit, NULL, 0);
        if (node < 0)
            return GS_ENOFIT;
        const struct gs_node *nd = &f->nodes[node];
        out->pool = r->pool;
        add_part(out, node, 1000, lowest_bits(nd->fullmask, k), 1);
        if (score)
            *score = nd->nfull - k;
        return 0;
    }
    /* A gang larger than a node: q whole nodes plus a remainder node. */
    int q = k / gpn, rem = k % gpn, nparts = q + (rem > 0);
    int *chosen = malloc((size_t)nparts * sizeof *chosen);
    if (chosen == NULL)
        return GS_ENOMEM;
    int rc = GS_ENOFIT;
    for (int i = 0; i < q; i++) {
        chosen[i] = find_whole_node(p, r, gpn, GS_FIT_FIRST, chosen, i);
        if (chosen[i] < 0)
            goto out;
    }
    if (rem > 0) {
        chosen[q] = find_whole_node(p, r, rem, fit, chosen, q);
        if (chosen[q] < 0)
            goto out;
    }
    out->pool = r->pool;
    for (int i = 0; i < nparts; i++) {
        int want = i < q ? gpn : rem;
        const struct gs_node *nd = &f->nodes[chosen[i]];
        if (add_part(out, chosen[i], 1000, lowest_bits(nd->fullmask, want),
                     nparts) < 0) {
            rc = GS_ENOMEM;
            gs_alloc_reset(out);
            goto out;
        }
    }
    if (score)
        *score = rem > 0 ? f->nodes[chosen[q]].nfull - rem : 0;
    rc = 0;
out:
    free(chosen);
    return rc;
}

struct frac_arg {
    const struct gs_fleet *f;
    int milli;
    int32_t mem;
    int partial_only;       /* best-fit: only GPUs already in use */
    int best;               /* choose the tightest GPU on the node */
    int node, gpu, left;
    int reclaim;            /* count lent capacity as free */
};

/* On one node, a GPU with room for the fraction (and its memory). */
static int take_frac(int node, void *arg)
{
    struct frac_arg *a = arg;
    const struct gs_fleet *f = a->f;
    const struct gs_node *nd = &f->nodes[node];
    int gpn = f->pools[nd->pool].s.gpn, pick = -1, left = 1 << 30;
    for (int g = 0; g < gpn; g++) {
        int fr = f->free_milli[nd->gpu0 + g];
        if (!a->reclaim)
            fr -= f->lent[nd->gpu0 + g];
        if (fr < a->milli || f->free_mib[nd->gpu0 + g] < a->mem)
            continue;
        if (a->partial_only && fr == 1000)
            continue;
        if (!a->best) {
            pick = g;
            left = fr - a->milli;
            break;
        }
        if (fr - a->milli < left) {
            pick = g;
            left = fr - a->milli;
        }
    }
    if (pick < 0)
        return 0;
    a->node = node;
    a->gpu = pick;
    a->left = left;
    return 1;
}

static int find_frac(const struct gs_fleet *f, const struct gs_range *r,
                     const struct gs_demand *dm, enum gs_fit fit,
                     struct gs_alloc *out, int *score)
{
    const struct gs_pool *p = &f->pools[r->pool];
    struct frac_arg a = { f, dm->milli, dm->mib, 0,
                          fit == GS_FIT_BEST, -1, -1, 0, 0 };
    if (fit == GS_FIT_FIRST) {
        struct pred q = { 0, 0, dm->milli, 0 };
        walk(p, r, &q, take_frac, &a);
    } else {
        /* Tightest partly used GPU first: buckets from the need's upward. */
        uint64_t fm, pm;
        range_or(p, r->lo, r->hi, &fm, &pm);
        pm &= bits_from(bucket(dm->milli));
        a.partial_only = 1;
        while (pm && a.node < 0) {
            uint64_t b = pm & -pm;
            struct pred q = { 0, b, 0, 0 };
            walk(p, r, &q, take_frac, &a);
            pm ^= b;
        }
        if (a.node < 0) {
            /* Break a whole GPU, on the node with the fewest free ones. */
            a.partial_only = 0;
            int node = find_whole_node(p, r, 1, GS_FIT_BEST, NULL, 0);
            if (node >= 0)
                take_frac(node, &a);
            a.left += 1000;
        }
    }
    if (a.node < 0 && p->rmax) {
        /* A fractional pool: capacity lent to bursting jobs is reclaimed
         * only when nothing unlent fits (core/share.c). */
        a.reclaim = 1;
        a.partial_only = 0;
        struct pred q = { 0, 0, 0, dm->milli };
        walk(p, r, &q, take_frac, &a);
        a.left += 4000;
    }
    if (a.node < 0)
        return GS_ENOFIT;
    out->pool = r->pool;
    add_part(out, a.node, dm->milli, 1ULL << a.gpu, 1);
    if (score)
        *score = a.left;
    return 0;
}

/* A free instance of profile k on a GPU of range r (pool-relative GPUs
 * [lo, hi)): FIRST the lowest GPU, BEST the lowest GPU already in use, else
 * the lowest empty one.  The GPU, or -1. */
static int mig_slot(const struct gs_migslots *m, int k, int lo, int hi,
                    enum gs_fit fit)
{
    int a = gs_migslots_next(m, k, 1, lo, hi);
    if (fit == GS_FIT_BEST && a >= 0)
        return a;
    int b = gs_migslots_next(m, k, 0, lo, hi);
    if (a < 0)
        return b;
    return b < 0 || a < b ? a : b;
}

/* One MIG instance: the profile asked (or the smallest that fits); in a
 * pool that reconfigures, else an empty GPU given the layout for it; for a
 * job that asked memory and compute rather than a profile, else a larger
 * fitting instance, smallest first.  Score: the GPU's free milli left, plus
 * 1000 if it was empty, 2000 if it is reconfigured, and the memory slices
 * wasted by a larger instance (x 125). */
static int find_mig(const struct gs_fleet *f, const struct gs_range *r,
                    const struct gs_demand *dm, enum gs_fit fit,
                    struct gs_alloc *out, int *score)
{
    const struct gs_pool *p = &f->pools[r->pool];
    const struct gs_migslots *m = p->mig;
    int gpn = p->s.gpn, lo = r->lo * gpn, hi = r->hi * gpn;
    int k = dm->prof, gpu = mig_slot(m, k, lo, hi, fit), inst = -1;
    int reconf = 0, extra = 0;
    if (gpu < 0 && m->reconfigure) {
        int node = find_whole_node(p, r, 1, fit, NULL, 0);
        if (node >= 0) {
            gpu = node - p->node0;
            gpu = gpu * gpn + __builtin_ctzll(f->nodes[node].fullmask);
            inst = gs_migslots_target_inst(m, k);
            reconf = 1;
            extra = 2000;
        }
    }
    if (gpu < 0 && dm->fit_up) {
        /* Larger profiles in order of size: compute, then memory. */
        const struct gs_mig_profile *want = gs_migslots_profile(m, k);
        int best = -1;
        for (int q = 0; q < m->nprof; q++) {
            const struct gs_mig_profile *pq = gs_migslots_profile(m, q);
            if (!fits_up(pq, want))
                continue;
            const struct gs_mig_profile *pb = gs_migslots_profile(m, best);
            if (best >= 0 && (pq->compute_slices > pb->compute_slices ||
                              (pq->compute_slices == pb->compute_slices &&
                               pq->mem_slices >= pb->mem_slices)))
                continue;
            int g = mig_slot(m, q, lo, hi, fit);
            if (g >= 0) {
                best = q;
                gpu = g;
            }
        }
        if (best >= 0) {
            k = best;
            extra = 125 * (gs_migslots_profile(m, best)->mem_slices -
                           want->mem_slices);
        }
    }
    if (gpu < 0)
        return GS_ENOFIT;
    if (inst < 0)
        inst = gs_migslots_free_inst(m, gpu, k);
    GS_ASSERT(inst >= 0);
    const struct gs_mig_profile *pr =
        gs_migslots_inst_profile(m, gpu, inst, reconf ? m->homog[k] : -1);
    int node = p->node0 + gpu / gpn, milli = 125 * pr->mem_slices;
    int fr = f->free_milli[f->nodes[node].gpu0 + gpu % gpn];
    out->pool = r->pool;
    add_part(out, node, milli, 1ULL << (gpu % gpn), 1);
    out->one.inst = (int16_t)(inst + 1);
    out->one.reconf = (int8_t)reconf;
    if (score)
        *score = fr - milli + (fr == 1000 ? 1000 : 0) + extra;
    return 0;
}

static int find_gpus(const struct gs_fleet *f, const struct gs_range *r,
                     const struct gs_demand *dm, enum gs_fit fit,
                     struct gs_alloc *out, int *score)
{
    if (dm->kind == GS_DEM_WHOLE)
        return find_whole(f, r, dm, fit, out, score);
    if (dm->kind == GS_DEM_MIG)
        return find_mig(f, r, dm, fit, out, score);
    GS_ASSERT(dm->milli > 0 && dm->milli <= 1000);
    return find_frac(f, r, dm, fit, out, score);
}

/* SPREAD: the GPUs of a whole-GPU need one at a time, each to the open
 * node of r with the most fully free GPUs left (ties: the lowest). */
static int find_spread(const struct gs_fleet *f, const struct gs_range *r,
                       const struct gs_demand *dm, struct gs_alloc *out,
                       int *score)
{
    const struct gs_pool *p = &f->pools[r->pool];
    int n = r->hi - r->lo, total = 0;
    int *node = malloc((size_t)(n > 0 ? n : 1) * sizeof *node);
    int *left = malloc((size_t)(n > 0 ? n : 1) * sizeof *left);
    int *take = calloc((size_t)(n > 0 ? n : 1), sizeof *take);
    if (!node || !left || !take) {
        free(node);
        free(left);
        free(take);
        return GS_ENOMEM;
    }
    int m = 0;
    for (int i = r->lo; i < r->hi; i++) {
        const struct gs_node *nd = &f->nodes[p->node0 + i];
        if (nd->up && !nd->cordon && nd->nfull > 0) {
            node[m] = p->node0 + i;
            left[m++] = nd->nfull;
            total += nd->nfull;
        }
    }
    int rc = 0;
    if (total < dm->gpus) {
        rc = GS_ENOFIT;
    } else {
        for (int g = 0; g < dm->gpus; g++) {
            int b = 0;
            for (int i = 1; i < m; i++)
                if (left[i] > left[b])
                    b = i;
            left[b]--;
            take[b]++;
        }
        int parts = 0;
        for (int i = 0; i < m; i++)
            parts += take[i] > 0;
        out->pool = r->pool;
        for (int i = 0; i < m && rc == 0; i++)
            if (take[i] > 0)
                rc = add_part(out, node[i], 1000,
                              lowest_bits(f->nodes[node[i]].fullmask,
                                          take[i]), parts);
        if (score)
            *score = parts;
    }
    free(node);
    free(left);
    free(take);
    return rc;
}

/* The lowest open node of p in [lo, hi) (pool-relative) with cpu free
 * milli-cores and mem free MiB, or -1: a descent pruning every range whose
 * most free CPU or memory falls short. */
static int host_visit(const struct gs_fleet *f, const struct gs_pool *p,
                      int i, int nl, int nr, int lo, int hi, int32_t cpu,
                      int32_t mem)
{
    if (nr <= lo || hi <= nl || p->hcpu[i] < cpu || p->hmem[i] < mem)
        return -1;
    if (i >= p->tsize) {
        int node = p->node0 + (i - p->tsize);
        return f->cpu_free[node] >= cpu && f->mem_free[node] >= mem ? node
                                                                     : -1;
    }
    int mid = (nl + nr) / 2;
    int n = host_visit(f, p, 2 * i, nl, mid, lo, hi, cpu, mem);
    return n >= 0 ? n : host_visit(f, p, 2 * i + 1, mid, nr, lo, hi, cpu, mem);
}

/* A CPU-only need: the first open node of r with its CPU and memory (one
 * part, no GPU).  score: the CPU left there, in milli-cores. */
static int find_host(const struct gs_fleet *f, const struct gs_range *r,
                     const struct gs_need *need, struct gs_alloc *out,
                     int *score)
{
    const struct gs_pool *p = &f->pools[r->pool];
    int32_t cpu = need->cpu_milli > 0 ? need->cpu_milli : 0;
    int32_t mem = need->mem_mib > 0 ? need->mem_mib : 0;
    host_index(f, p);
    int node = host_visit(f, p, 1, 0, p->tsize, r->lo, r->hi, cpu, mem);
    if (node < 0)
        return GS_ENOFIT;
    out->pool = r->pool;
    if (add_part(out, node, 0, 0, 1) < 0)
        return GS_ENOMEM;
    if (score)
        *score = f->cpu_free[node] - cpu;
    return 0;
}

/* 1 if every part of a finds its share of need's CPU and memory free. */
static int host_fits(const struct gs_fleet *f, const struct gs_alloc *a,
                     const struct gs_need *need)
{
    if (need->cpu_milli <= 0 && need->mem_mib <= 0)
        return 1;
    const struct gs_part *pt = a->n > 1 ? a->many : &a->one;
    for (int i = 0; i < a->n; i++) {
        int32_t c, m;
        gs_part_host(a, i, need, &c, &m);
        if (f->cpu_free[pt[i].node] < c || f->mem_free[pt[i].node] < m)
            return 0;
    }
    return 1;
}

int gs_fleet_find(const struct gs_fleet *f, const struct gs_range *r,
                  const struct gs_need *need, enum gs_fit fit,
                  struct gs_alloc *out, int *score)
{
    gs_alloc_reset(out);
    struct gs_demand dm;
    if (r->lo >= r->hi || gs_fleet_demand(f, r->pool, need, &dm) < 0)
        return GS_ENOFIT;
    gs_fleet_index_sync(f, r->pool);
    if (dm.kind == GS_DEM_HOST)
        return find_host(f, r, need, out, score);
    if (fit == GS_FIT_SPREAD) {
        if (dm.kind != GS_DEM_WHOLE || f->pools[r->pool].mig)
            fit = GS_FIT_FIRST;     /* MIG pools: their own layout rules */
        else {
            int rc = find_spread(f, r, &dm, out, score);
            if (rc == 0 && !host_fits(f, out, need)) {
                gs_alloc_reset(out);
                rc = GS_ENOFIT;
            }
            return rc;
        }
    }
    int rc = find_gpus(f, r, &dm, fit, out, score);
    if (rc < 0 || host_fits(f, out, need))
        return rc;
    /* GPUs found where CPU or memory is short: node by node, the best (or
     * first) one where everything fits.  Gangs spanning nodes are not
     * searched this way; they wait for a node-level answer. */
    int gang = out->n > 1;
    gs_alloc_reset(out);
    if (gang)
        return GS_ENOFIT;
    struct gs_alloc best = { .pool = -1 };
    int best_score = 0;
    for (int i = r->lo; i < r->hi; i++) {
        struct gs_range one = { r->pool, i, i + 1 };
        struct gs_alloc a = { .pool = -1 };
        int sc = 0;
        if (find_gpus(f, &one, &dm, fit, &a, &sc) < 0 || a.n != 1 ||
            !host_fits(f, &a, need)) {
            gs_alloc_reset(&a);
            continue;
        }
        if (best.pool < 0 || (fit == GS_FIT_BEST && sc < best_score)) {
            gs_alloc_reset(&best);
            best = a;
            best_score = sc;
            if (fit == GS_FIT_FIRST)
                break;
        } else {
            gs_alloc_reset(&a);
        }
    }
    if (best.pool < 0)
        return GS_ENOFIT;
    *out = best;
    if (score)
        *score = best_score;
    return 0;
}

/* gs_part_host of a gang's part (a->n > 1). */
void gs_part_host_split(const struct gs_alloc *a, int i,
                        const struct gs_need *need, int32_t *cpu,
                        int32_t *mem)
{
    const struct gs_part *pt = a->many;
    int64_t g = 0, before = 0;
    for (int k = 0; k < a->n; k++) {
        int c = gs_popcount64(pt[k].mask);
        g += c;
        if (k < i)
            before += c;
    }
    int64_t mine = gs_popcount64(pt[i].mask);
    if (g <= 0)
        g = 1;
    /* cumulative shares, so the parts add up to the whole exactly */
    *cpu = (int32_t)((int64_t)need->cpu_milli * (before + mine) / g -
                     (int64_t)need->cpu_milli * before / g);
    *mem = (int32_t)((int64_t)need->mem_mib * (before + mine) / g -
                     (int64_t)need->mem_mib * before / g);
}

/* --- taking and giving back -------------------------------------------- */

/* Part i of a MIG-instance allocation: the instance exists (in the layout
 * the GPU has, or will have after the reconfiguration the part asks), is
 * free, and serves the demand; milli matches its memory slices. */
static __attribute__((noinline)) int
mig_part_ok(const struct gs_fleet *f, const struct gs_pool *p,
            const struct gs_part *pt, const struct gs_demand *dm)
{
    const struct gs_migslots *m = p->mig;
    if (pt->inst < 1 || gs_popcount64(pt->mask) != 1)
        return 0;
    const struct gs_node *nd = &f->nodes[pt->node];
    int bit = __builtin_ctzll(pt->mask);
    int gpu = (pt->node - p->node0) * p->s.gpn + bit, inst = pt->inst - 1;
    int target = -1;
    if (pt->reconf) {
        if (!m->reconfigure || f->free_milli[nd->gpu0 + bit] != 1000)
            return 0;
        target = m->homog[dm->prof];
    } else if (inst < 8 && (m->busy[gpu] & (1u << inst))) {
        return 0;
    }
    const struct gs_mig_profile *pr = gs_migslots_inst_profile(m, gpu, inst,
                                                               target);
    if (pr == NULL || pt->milli != 125 * pr->mem_slices)
        return 0;
    const struct gs_mig_profile *want = gs_migslots_profile(m, dm->prof);
    if (pr != want && !(dm->fit_up && fits_up(pr, want)))
        return 0;
    return 1;
}

/* MiB a part holds on each of its GPUs. */
static int32_t part_mib(const struct gs_fleet *f, const struct gs_pool *p,
                        const struct gs_part *pt, const struct gs_demand *dm)
{
    if (pt->inst > 0)
        return (int32_t)((int64_t)gpu_mib(f, p) * pt->milli / 1000);
    return dm->mib;
}

/* gs_fleet_can_commit of a CPU-only job's allocation: one part, no GPU. */
static __attribute__((noinline)) int
host_commit_ok(const struct gs_fleet *f, const struct gs_pool *p,
               const struct gs_alloc *a, const struct gs_need *need)
{
    const struct gs_part *h = &a->one;
    if (a->n != 1 || h->mask != 0 || h->milli != 0 || h->inst != 0 ||
        h->reconf != 0 || h->node < p->node0 ||
        h->node >= p->node0 + p->s.nodes)
        return 0;
    const struct gs_node *nd = &f->nodes[h->node];
    return nd->up && !nd->cordon &&
           f->cpu_free[h->node] >= need->cpu_milli &&
           f->mem_free[h->node] >= need->mem_mib;
}

int gs_fleet_can_commit(const struct gs_fleet *f, const struct gs_alloc *a,
                        const struct gs_need *need)
{
    if (a->pool < 0 || a->pool >= f->npools || a->n < 1)
        return 0;
    const struct gs_pool *p = &f->pools[a->pool];
    struct gs_demand dm;
    if (gs_fleet_demand(f, a->pool, need, &dm) < 0)
        return 0;
    /* A gang may span more nodes than it needs (a spreading placement);
     * it then runs slower (sim.c, the topology factor). */
    if (dm.kind == GS_DEM_HOST)
        return host_commit_ok(f, p, a, need);
    int total = 0;
    const struct gs_part *pt = a->n > 1 ? a->many : &a->one;
    for (int i = 0; i < a->n; i++) {
        int node = pt[i].node;
        if (node < p->node0 || node >= p->node0 + p->s.nodes)
            return 0;
        const struct gs_node *nd = &f->nodes[node];
        if (!nd->up || nd->cordon)
            return 0;
        uint64_t valid = p->s.gpn == 64 ? ~0ULL : (1ULL << p->s.gpn) - 1;
        if (pt[i].mask == 0 || (pt[i].mask & ~valid))
            return 0;
        if (dm.kind == GS_DEM_MIG) {
            if (a->n != 1 || !mig_part_ok(f, p, &pt[i], &dm))
                return 0;
        } else if (pt[i].inst != 0 || pt[i].reconf != 0 ||
                   pt[i].milli != (dm.kind == GS_DEM_WHOLE ? 1000
                                                           : dm.milli)) {
            return 0;
        }
        for (int i2 = 0; i2 < i; i2++)
            if (pt[i2].node == node)
                return 0;
        int32_t hc, hm;
        gs_part_host(a, i, need, &hc, &hm);
        if (f->cpu_free[node] < hc || f->mem_free[node] < hm)
            return 0;
        int32_t mem = part_mib(f, p, &pt[i], &dm);
        for (uint64_t m = pt[i].mask; m; m &= m - 1) {
            int g = nd->gpu0 + __builtin_ctzll(m);
            if (f->free_milli[g] < pt[i].milli || f->free_mib[g] < mem)
                return 0;
            if (dm.kind == GS_DEM_WHOLE && p->mig && !p->mig->reconfigure &&
                !gs_migslots_is_full(p->mig, g - f->nodes[p->node0].gpu0))
                return 0;
            total++;
        }
    }
    return dm.kind == GS_DEM_WHOLE ? total == dm.gpus : total == 1;
}

void gs_fleet_notify(const struct gs_fleet *f, int node,
                     const struct gs_need *need, int sign)
{
    for (int i = 0; i < f->nwatch; i++)
        f->watch_fn[i](f->watch_arg[i], f, node, need, sign);
}

int64_t gs_fleet_node_stranded(const struct gs_fleet *f, int node)
{
    const struct gs_node *nd = &f->nodes[node];
    if (!nd->up || (f->cpu_free[node] >= GS_STRAND_CPU &&
                    f->mem_free[node] >= GS_STRAND_MIB))
        return 0;
    int64_t t = 0;
    int gpn = f->pools[nd->pool].s.gpn;
    for (int g = 0; g < gpn; g++)
        if (!(nd->deadmask >> g & 1))
            t += f->free_milli[nd->gpu0 + g];
    return t;
}

/* The MIG side of taking or giving back part pt: its instance (made by a
 * reconfiguration if the part asks one), or the whole GPU. */
static __attribute__((noinline)) void
mig_apply(struct gs_pool *p, const struct gs_part *pt,
          const struct gs_demand *dm, int sign)
{
    int gbase = (pt->node - p->node0) * p->s.gpn, inst = pt->inst - 1;
    int target = pt->reconf ? p->mig->homog[dm->prof] : -1;
    for (uint64_t m = pt->mask; m; m &= m - 1) {
        int mg = gbase + __builtin_ctzll(m);
        if (pt->inst > 0 && sign > 0)
            gs_migslots_claim(p->mig, mg, inst, target);
        else if (pt->inst > 0)
            gs_migslots_release(p->mig, mg, inst);
        else if (sign > 0)
            gs_migslots_claim_whole(p->mig, mg);
        else
            gs_migslots_release_whole(p->mig, mg);
    }
}

static void apply(struct gs_fleet *f, const struct gs_alloc *a,
                  const struct gs_need *need, int sign)
{
    struct gs_pool *p = &f->pools[a->pool];
    struct gs_demand dm;
    int rc = gs_fleet_demand(f, a->pool, need, &dm);
    GS_ASSERT(rc == 0);
    const struct gs_part *pt = a->n > 1 ? a->many : &a->one;
    for (int i = 0; i < a->n; i++) {
        int node = pt[i].node;
        struct gs_node *nd = &f->nodes[node];
        f->stranded_milli -= gs_fleet_node_stranded(f, node);
        if (p->mig)
            mig_apply(p, &pt[i], &dm, sign);
        /* Per GPU: its free milli and MiB; it is fully free exactly when
         * its free milli is 1000 (every part takes some milli). */
        int dmilli = sign * pt[i].milli, ngpus = 0;
        int32_t dmib = sign * part_mib(f, p, &pt[i], &dm);
        int16_t *fm = f->free_milli + nd->gpu0;
        int32_t *fb = f->free_mib + nd->gpu0;
        uint64_t full = nd->fullmask;
        int nfull = nd->nfull;
        for (uint64_t m = pt[i].mask; m; m &= m - 1) {
            int bit = __builtin_ctzll(m);
            int fr = fm[bit] - dmilli;
            GS_ASSERT(fr >= 0 && fr <= 1000);
            fm[bit] = (int16_t)fr;
            fb[bit] -= dmib;
            GS_ASSERT(fb[bit] >= 0);
            int was = (int)(full >> bit & 1), now = fr == 1000;
            nfull += now - was;
            full ^= (uint64_t)(now ^ was) << bit;
            ngpus++;
        }
        nd->fullmask = full;
        nd->nfull = nfull;
        p->used_milli += (int64_t)ngpus * dmilli;
        f->used_milli += (int64_t)ngpus * dmilli;
        int32_t hc, hm;
        gs_part_host(a, i, need, &hc, &hm);
        /* whole GPUs of the part (a fraction or an instance holds none) */
        int64_t whole = pt[i].milli == 1000 && pt[i].inst == 0 && !p->mig
                            ? ngpus : 0;
        if ((int64_t)hc * p->s.gpn > whole * p->host_cpu ||
            (int64_t)hm * p->s.gpn > whole * p->host_mem)
            p->host_over += sign;
        GS_ASSERT(p->host_over >= 0);
        f->cpu_free[node] -= sign * hc;
        f->mem_free[node] -= sign * hm;
        f->cpu_used += sign * hc;
        f->mem_used += sign * hm;
        GS_ASSERT(f->cpu_free[node] >= 0 && f->mem_free[node] >= 0);
        f->stranded_milli += gs_fleet_node_stranded(f, node);
        nd->njobs += sign;
        GS_ASSERT(nd->njobs >= 0);
        gs_fleet_leaf_update(f, node);
        gs_fleet_notify(f, node, need, sign);
    }
}

void gs_fleet_commit(struct gs_fleet *f, const struct gs_alloc *a,
                     const struct gs_need *need)
{
    apply(f, a, need, +1);
}

void gs_fleet_release(struct gs_fleet *f, const struct gs_alloc *a,
                      const struct gs_need *need)
{
    apply(f, a, need, -1);
}

void gs_pool_host(const struct gs_catalog *cat, const struct gs_pool_spec *ps,
                  int32_t *cpu_milli, int32_t *mem_mib)
{
    int32_t cpu = 8000, mem = 61 * 1024;
    if (ps->gpn <= 0) {
        cpu = 64000 / (ps->gpn > 0 ? ps->gpn : 1);
        mem = 256 * 1024;
    } else if (ps->model >= 0 && ps->model < cat->n) {
        const struct gs_gpu_model *m = &cat->m[ps->model];
        if (m->name[0] == 'H' && m->mem_gb >= 80) {
            cpu = 24000;
            mem = 256 * 1024;
        } else if (m->mem_gb >= 40) {
            cpu = 12000;
            mem = 144 * 1024;
        } else if (m->mem_gb >= 32) {
            cpu = 12000;
            mem = 96 * 1024;
        }
    }
    int g = ps->gpn > 0 ? ps->gpn : 1;
    *cpu_milli = ps->cpu_milli > 0 ? ps->cpu_milli : cpu * g;
    *mem_mib = ps->mem_mib > 0 ? ps->mem_mib : mem * g;
}

double gs_pool_net(const struct gs_catalog *cat, const struct gs_pool_spec *ps)
{
    if (ps->net_gbps > 0)
        return ps->net_gbps;
    if (ps->gpn <= 0 || ps->model < 0 || ps->model >= cat->n)
        return 25.0;
    const struct gs_gpu_model *m = &cat->m[ps->model];
    if (m->name[0] == 'H' && m->mem_gb >= 80)
        return 3200.0;
    if (m->mem_gb >= 40)
        return 400.0;
    if (m->mem_gb >= 32)
        return 100.0;
    return 25.0;
}
