/* fleet.c -- GPU pools and nodes, allocation state, and the placement index.
 *
 * See fleet.h for the model.  Invariants kept by every function here:
 *  - free_milli[g] in [0, 1000]; a GPU is "fully free" iff free_milli == 1000,
 *    and node->fullmask / nfull list exactly those GPUs;
 *  - the segment tree leaf of a node summarizes the node's current state
 *    (zero when the node is down), and every inner entry is the OR/max of
 *    its two children;
 *  - used_milli of the fleet and of each pool is the sum of what commit took
 *    and release has not given back. */
#include "fleet.h"
#include "err.h"

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
        a->one = (struct gs_part){ node, milli, mask };
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
    a->many[a->n++] = (struct gs_part){ node, milli, mask };
    return 0;
}

/* --- the segment tree ------------------------------------------------- */

static inline int32_t gb_to_mib(double gb)
{
    return (int32_t)llround(gb * 1024.0);
}

static inline int bucket(int free)
{
    return free * 64 / 1000;
}

static void leaf_update(struct gs_fleet *f, int node)
{
    const struct gs_node *nd = &f->nodes[node];
    struct gs_pool *p = &f->pools[nd->pool];
    int i = p->tsize + (node - p->node0);
    uint64_t fm = 0, pm = 0;
    int mx = 0;
    if (nd->up && !nd->cordon) {
        fm = 1ULL << nd->nfull;
        for (int g = 0; g < p->s.gpn; g++) {
            int fr = f->free_milli[nd->gpu0 + g];
            if (fr > mx)
                mx = fr;
            if (fr > 0 && fr < 1000)
                pm |= 1ULL << bucket(fr);
        }
    }
    p->fmask[i] = fm;
    p->pmask[i] = pm;
    p->milli[i] = (int16_t)mx;
    for (i /= 2; i >= 1; i /= 2) {
        p->fmask[i] = p->fmask[2 * i] | p->fmask[2 * i + 1];
        p->pmask[i] = p->pmask[2 * i] | p->pmask[2 * i + 1];
        int a = p->milli[2 * i], b = p->milli[2 * i + 1];
        p->milli[i] = (int16_t)(a > b ? a : b);
    }
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

struct pred {
    uint64_t fm, pm;        /* match if fmask & fm or pmask & pm */
    int milli;              /* or if milli >= this (0 = unused) */
};

static inline int pred_match(const struct gs_pool *p, int i,
                             const struct pred *q)
{
    return (p->fmask[i] & q->fm) || (p->pmask[i] & q->pm) ||
           (q->milli > 0 && p->milli[i] >= q->milli);
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
        GS_ASSERT(specs[i].gpn >= 1 && specs[i].gpn <= GS_MAX_GPN);
        GS_ASSERT(specs[i].nodes >= 0);
        f->pools[i].s = specs[i];
        f->pools[i].node0 = f->nnodes;
        f->nnodes += specs[i].nodes;
        f->ngpus += specs[i].nodes * specs[i].gpn;
    }
    f->nodes = calloc((size_t)(f->nnodes ? f->nnodes : 1), sizeof *f->nodes);
    f->free_milli = malloc((size_t)(f->ngpus ? f->ngpus : 1) * sizeof(int16_t));
    f->free_mib = malloc((size_t)(f->ngpus ? f->ngpus : 1) * sizeof(int32_t));
    if (!f->nodes || !f->free_milli || !f->free_mib)
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
        if (!p->fmask || !p->pmask || !p->milli)
            goto fail;
        int32_t mem = gb_to_mib(cat->m[p->s.model].mem_gb);
        for (int j = 0; j < p->s.nodes; j++) {
            struct gs_node *nd = &f->nodes[p->node0 + j];
            nd->pool = i;
            nd->gpu0 = g;
            for (int k = 0; k < p->s.gpn; k++, g++) {
                f->free_milli[g] = 1000;
                f->free_mib[g] = mem;
            }
            nd->nfull = p->s.gpn;
            nd->fullmask = p->s.gpn == 64 ? ~0ULL : (1ULL << p->s.gpn) - 1;
            nd->up = 1;
            leaf_update(f, p->node0 + j);
        }
        p->gpus_up = (int64_t)p->s.nodes * p->s.gpn;
    }
    f->gpus_up = f->ngpus;
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
    }
    free(f->pools);
    free(f->nodes);
    free(f->free_milli);
    free(f->free_mib);
    free(f);
}

int gs_fleet_pool_eligible(const struct gs_fleet *f, int pool,
                           const struct gs_need *need)
{
    const struct gs_pool *p = &f->pools[pool];
    if (need->allowed && !(need->allowed & (1ULL << p->s.model)))
        return 0;
    if (need->mem_gb > f->cat->m[p->s.model].mem_gb)
        return 0;
    return need->gpus <= p->s.nodes * p->s.gpn && p->s.nodes > 0;
}

/* Memory a need takes on each of its GPUs of pool p, in MiB. */
static int32_t mem_take(const struct gs_fleet *f, const struct gs_pool *p,
                        const struct gs_need *need)
{
    int32_t full = gb_to_mib(f->cat->m[p->s.model].mem_gb);
    if (need->gpus > 0)
        return full;
    if (need->mem_gb > 0)
        return gb_to_mib(need->mem_gb);
    return (int32_t)((int64_t)full * need->milli / 1000);
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
        struct pred q = { bits_from(k), 0, 0 };
        walk(p, r, &q, take_first, &a);
        return a.node;
    }
    uint64_t fm, pm;
    range_or(p, r->lo, r->hi, &fm, &pm);
    fm &= bits_from(k);
    while (fm) {
        uint64_t b = fm & -fm;
        struct pred q = { b, 0, 0 };
        walk(p, r, &q, take_first, &a);
        if (a.node >= 0)
            return a.node;
        fm ^= b;
    }
    return -1;
}

static int find_whole(const struct gs_fleet *f, const struct gs_range *r,
                      const struct gs_need *need, enum gs_fit fit,
                      struct gs_alloc *out, int *score)
{
    const struct gs_pool *p = &f->pools[r->pool];
    int gpn = p->s.gpn, k = need->gpus;
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
                     const struct gs_need *need, enum gs_fit fit,
                     struct gs_alloc *out, int *score)
{
    const struct gs_pool *p = &f->pools[r->pool];
    struct frac_arg a = { f, need->milli, mem_take(f, p, need), 0,
                          fit == GS_FIT_BEST, -1, -1, 0 };
    if (fit == GS_FIT_FIRST) {
        struct pred q = { 0, 0, need->milli };
        walk(p, r, &q, take_frac, &a);
    } else {
        /* Tightest partly used GPU first: buckets from the need's upward. */
        uint64_t fm, pm;
        range_or(p, r->lo, r->hi, &fm, &pm);
        pm &= bits_from(bucket(need->milli));
        a.partial_only = 1;
        while (pm && a.node < 0) {
            uint64_t b = pm & -pm;
            struct pred q = { 0, b, 0 };
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
    if (a.node < 0)
        return GS_ENOFIT;
    out->pool = r->pool;
    add_part(out, a.node, need->milli, 1ULL << a.gpu, 1);
    if (score)
        *score = a.left;
    return 0;
}

int gs_fleet_find(const struct gs_fleet *f, const struct gs_range *r,
                  const struct gs_need *need, enum gs_fit fit,
                  struct gs_alloc *out, int *score)
{
    gs_alloc_reset(out);
    if (r->lo >= r->hi || !gs_fleet_pool_eligible(f, r->pool, need))
        return GS_ENOFIT;
    if (need->gpus > 0)
        return find_whole(f, r, need, fit, out, score);
    GS_ASSERT(need->milli > 0 && need->milli <= 1000);
    return find_frac(f, r, need, fit, out, score);
}

/* --- taking and giving back -------------------------------------------- */

int gs_fleet_can_commit(const struct gs_fleet *f, const struct gs_alloc *a,
                        const struct gs_need *need)
{
    if (a->pool < 0 || a->pool >= f->npools || a->n < 1)
        return 0;
    const struct gs_pool *p = &f->pools[a->pool];
    if (!gs_fleet_pool_eligible(f, a->pool, need))
        return 0;
    int32_t mem = mem_take(f, p, need);
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
        if (pt[i].milli != (need->gpus > 0 ? 1000 : need->milli))
            return 0;
        for (int i2 = 0; i2 < i; i2++)
            if (pt[i2].node == node)
                return 0;
        for (uint64_t m = pt[i].mask; m; m &= m - 1) {
            int g = nd->gpu0 + __builtin_ctzll(m);
            if (f->free_milli[g] < pt[i].milli || f->free_mib[g] < mem)
                return 0;
            total++;
        }
    }
    return need->gpus > 0 ? total == need->gpus : total == 1;
}

static void apply(struct gs_fleet *f, const struct gs_alloc *a,
                  const struct gs_need *need, int sign)
{
    struct gs_pool *p = &f->pools[a->pool];
    int32_t mem = mem_take(f, p, need);
    const struct gs_part *pt = a->n > 1 ? a->many : &a->one;
    for (int i = 0; i < a->n; i++) {
        struct gs_node *nd = &f->nodes[pt[i].node];
        for (uint64_t m = pt[i].mask; m; m &= m - 1) {
            int bit = __builtin_ctzll(m), g = nd->gpu0 + bit;
            if (sign > 0 && f->free_milli[g] == 1000) {
                nd->fullmask &= ~(1ULL << bit);
                nd->nfull--;
            }
            f->free_milli[g] = (int16_t)(f->free_milli[g] - sign * pt[i].milli);
            f->free_mib[g] -= sign * mem;
            GS_ASSERT(f->free_mib[g] >= 0);
            GS_ASSERT(f->free_milli[g] >= 0 && f->free_milli[g] <= 1000);
            if (sign < 0 && f->free_milli[g] == 1000) {
                nd->fullmask |= 1ULL << bit;
                nd->nfull++;
            }
            p->used_milli += sign * pt[i].milli;
            f->used_milli += sign * pt[i].milli;
        }
        nd->njobs += sign;
        GS_ASSERT(nd->njobs >= 0);
        leaf_update(f, pt[i].node);
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

void gs_fleet_set_up(struct gs_fleet *f, int node, int up)
{
    struct gs_node *nd = &f->nodes[node];
    struct gs_pool *p = &f->pools[nd->pool];
    if (nd->up == up)
        return;
    GS_ASSERT(up || nd->njobs == 0);
    nd->up = up;
    int alive = p->s.gpn - __builtin_popcountll(nd->deadmask);
    int64_t d = up ? alive : -alive;
    p->gpus_up += d;
    f->gpus_up += d;
    leaf_update(f, node);
}

void gs_fleet_set_cordon(struct gs_fleet *f, int node, int on)
{
    struct gs_node *nd = &f->nodes[node];
    if (nd->cordon == on)
        return;
    nd->cordon = on;
    leaf_update(f, node);
}

void gs_fleet_set_gpu_dead(struct gs_fleet *f, int node, int k, int dead)
{
    struct gs_node *nd = &f->nodes[node];
    struct gs_pool *p = &f->pools[nd->pool];
    uint64_t bit = 1ULL << k;
    int g = nd->gpu0 + k;
    if (!!(nd->deadmask & bit) == !!dead)
        return;
    int d = dead ? -1 : 1;
    if (dead) {
        GS_ASSERT(f->free_milli[g] == 1000);
        nd->deadmask |= bit;
        nd->fullmask &= ~bit;
        nd->nfull--;
        f->free_milli[g] = 0;
        f->free_mib[g] = 0;
    } else {
        nd->deadmask &= ~bit;
        nd->fullmask |= bit;
        nd->nfull++;
        f->free_milli[g] = 1000;
        f->free_mib[g] = gb_to_mib(f->cat->m[p->s.model].mem_gb);
    }
    if (nd->up) {
        p->gpus_up += d;
        f->gpus_up += d;
    }
    leaf_update(f, node);
}
