/* victims.c -- nodes indexed by the GPUs a preempting job could free there.
 *
 * See victims.h for the model.  Layout: the levels' priorities in lp,
 * ascending; R in r, node-major (r[node * nlv + k]: prefix k of node).  A
 * pool's trees are interleaved: entry x (1-indexed, leaves at tsize..; a
 * pool of one node has its leaf at the root) of tree (k, f) is
 * t[(x * nlv + k) * gpn + f], so the nlv * gpn trees' entries for one x
 * share a cache line or two -- a node moving between the trees of two nfull
 * values, for every prefix, walks up through the same lines, and a search
 * finds every tree's root in one place.  The fleet's nfull is mirrored per
 * node in nf, as the watcher last saw it; a node's leaves sit in the trees
 * of that value. */
#include "victims.h"
#include "jobgroup.h"
#include "../sim/base/err.h"

#include <stdlib.h>
#include <string.h>

struct vpool {
    int gpn, tsize, node0;
    uint8_t *t;                 /* 2 * tsize * nlv * gpn */
};

struct gs_victims {
    struct gs_fleet *f;
    int nnodes, npools;
    int8_t *nf;                 /* per node: nfull as last told */
    int *lp;                    /* per level: its priority, ascending */
    int nlv;
    uint8_t *r;                 /* nnodes * nlv */
    struct vpool *p;
};

/* Entry x of tree c (= k * gpn + f) is t[x * w + c], w = nlv * gpn. */

/* Leaf i of tree c becomes val; the maxima above it follow. */
static void tset(uint8_t *t, size_t w, int c, int tsize, int i, uint8_t val)
{
    uint8_t *tc = t + c;
    size_t x = (size_t)(tsize + i);
    if (tc[x * w] == val)
        return;
    tc[x * w] = val;
    for (x >>= 1; x >= 1; x >>= 1) {
        uint8_t a = tc[2 * x * w], b = tc[(2 * x + 1) * w];
        uint8_t m = a > b ? a : b;
        if (tc[x * w] == m)
            break;
        tc[x * w] = m;
    }
}

/* The leftmost leaf of tree c holding at least th (>= 1), or -1. */
static int tfind(const uint8_t *t, size_t w, int c, int tsize, int th)
{
    const uint8_t *tc = t + c;
    if (tc[w] < th)
        return -1;
    size_t x = 1;
    while (x < (size_t)tsize) {
        x *= 2;
        if (tc[x * w] < th)
            x++;
    }
    return (int)x - tsize;
}

static void on_node(void *arg, const struct gs_fleet *f, int node,
                    const struct gs_need *need, int sign)
{
    (void)need;
    (void)sign;
    struct gs_victims *v = arg;
    int now = f->nodes[node].nfull, old = v->nf[node];
    if (now == old)
        return;
    v->nf[node] = (int8_t)now;
    if (v->nlv == 0)
        return;
    const uint8_t *r = v->r + (size_t)node * (size_t)v->nlv;
    if (r[v->nlv - 1] == 0)                     /* no victim on it */
        return;
    const struct vpool *p = &v->p[f->nodes[node].pool];
    int i = node - p->node0;
    size_t w = (size_t)v->nlv * (size_t)p->gpn;
    for (int k = 0; k < v->nlv; k++) {
        if (r[k] == 0)
            continue;
        if (old < p->gpn)
            tset(p->t, w, k * p->gpn + old, p->tsize, i, 0);
        if (now < p->gpn)
            tset(p->t, w, k * p->gpn + now, p->tsize, i, r[k]);
    }
}

int gs_victims_new(struct gs_fleet *f, struct gs_victims **out)
{
    *out = NULL;
    struct gs_victims *v = calloc(1, sizeof *v);
    if (v == NULL)
        return GS_ENOMEM;
    v->f = f;
    v->nnodes = f->nnodes;
    v->npools = f->npools;
    v->nf = malloc((size_t)f->nnodes + 1);
    v->p = calloc((size_t)f->npools + 1, sizeof *v->p);
    if (v->nf == NULL || v->p == NULL) {
        gs_victims_free(v);
        return GS_ENOMEM;
    }
    for (int n = 0; n < f->nnodes; n++)
        v->nf[n] = (int8_t)f->nodes[n].nfull;
    for (int q = 0; q < f->npools; q++) {
        struct vpool *p = &v->p[q];
        p->gpn = f->pools[q].s.gpn;
        p->node0 = f->pools[q].node0;
        p->tsize = 1;
        while (p->tsize < f->pools[q].s.nodes)
            p->tsize *= 2;
    }
    int rc = gs_fleet_watch(f, on_node, v);
    if (rc < 0) {
        v->f = NULL;            /* not watching */
        gs_victims_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

void gs_victims_free(struct gs_victims *v)
{
    if (v == NULL)
        return;
    if (v->f)
        gs_fleet_unwatch(v->f, on_node, v);
    if (v->p)
        for (int q = 0; q < v->npools; q++)
            free(v->p[q].t);
    free(v->p);
    free(v->nf);
    free(v->lp);
    free(v->r);
    free(v);
}

/* Levels below prio. */
static int below(const struct gs_victims *v, int prio)
{
    int lo = 0, hi = v->nlv;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v->lp[mid] < prio)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One entry's levels widened for a level inserted at index at: y gets
 * L + 1 groups of g bytes from o's L (o is NULL when L is 0); the new
 * group repeats the one below it (zeros at the bottom). */
static void widen(uint8_t *y, const uint8_t *o, int L, int at, size_t g)
{
    if (at > 0) {
        memcpy(y, o, (size_t)at * g);
        memcpy(y + (size_t)at * g, o + (size_t)(at - 1) * g, g);
    } else {
        memset(y, 0, g);
    }
    if (L > at)
        memcpy(y + (size_t)(at + 1) * g, o + (size_t)at * g,
               (size_t)(L - at) * g);
}

/* A new level for prio at index at: prefix at is prefix at-1 (none below:
 * empty) plus a level with no victims yet; the prefixes above move up. */
static void insert_level(struct gs_victims *v, int at, int prio)
{
    int L = v->nlv;
    int *lp = realloc(v->lp, (size_t)(L + 1) * sizeof *lp);
    uint8_t *r = malloc((size_t)v->nnodes * (size_t)(L + 1) + 1);
    GS_OOM_IF(lp == NULL || r == NULL);
    if (L > at)
        memmove(&lp[at + 1], &lp[at], (size_t)(L - at) * sizeof *lp);
    lp[at] = prio;
    v->lp = lp;
    for (int n = 0; n < v->nnodes; n++)
        widen(r + (size_t)n * (size_t)(L + 1),
              L ? v->r + (size_t)n * (size_t)L : NULL, L, at, 1);
    free(v->r);
    v->r = r;
    for (int q = 0; q < v->npools; q++) {
        struct vpool *p = &v->p[q];
        if (p->gpn == 0)
            continue;
        size_t g = (size_t)p->gpn, xs = 2 * (size_t)p->tsize;
        uint8_t *t = malloc(xs * (size_t)(L + 1) * g);
        GS_OOM_IF(t == NULL);
        for (size_t x = 0; x < xs; x++)
            widen(t + x * (size_t)(L + 1) * g,
                  L ? p->t + x * (size_t)L * g : NULL, L, at, g);
        free(p->t);
        p->t = t;
    }
    v->nlv = L + 1;
}

void gs_victims_move(struct gs_victims *v, int node, int prio, int gpus,
                     int sign)
{
    GS_ASSERT(gpus > 0 && node >= 0 && node < v->nnodes);
    int at = below(v, prio);
    if (at == v->nlv || v->lp[at] != prio) {
        GS_ASSERT(sign > 0);
        insert_level(v, at, prio);
    }
    const struct vpool *p = &v->p[v->f->nodes[node].pool];
    int i = node - p->node0, nf = v->nf[node];
    uint8_t *r = v->r + (size_t)node * (size_t)v->nlv;
    size_t w = (size_t)v->nlv * (size_t)p->gpn;
    for (int k = at; k < v->nlv; k++) {
        int x = r[k] + sign * gpus;
        GS_ASSERT(x >= 0 && x <= 255);
        r[k] = (uint8_t)x;
        if (nf < p->gpn)
            tset(p->t, w, k * p->gpn + nf, p->tsize, i, (uint8_t)x);
    }
}

int gs_victims_best(const struct gs_victims *v, int prio, int need,
                    const char *pool_ok)
{
    int k = below(v, prio) - 1;             /* the prefix below prio */
    if (k < 0 || need <= 0)
        return -1;
    int best = -1, bestf = -1;
    for (int q = 0; q < v->npools; q++) {
        const struct vpool *p = &v->p[q];
        if (!pool_ok[q] || need > p->gpn)
            continue;
        /* the least deficit is the largest nfull below need */
        size_t w = (size_t)v->nlv * (size_t)p->gpn;
        for (int f = need - 1; f >= 0 && f >= bestf; f--) {
            int i = tfind(p->t, w, k * p->gpn + f, p->tsize, need - f);
            if (i < 0)
                continue;
            int n = p->node0 + i;
            if (f > bestf || n < best) {
                best = n;
                bestf = f;
            }
            break;
        }
    }
    return best;
}

int gs_victims_reclaimable(const struct gs_victims *v, int node, int prio)
{
    int k = below(v, prio) - 1;
    return k < 0 ? 0 : v->r[(size_t)node * (size_t)v->nlv + (size_t)k];
}
