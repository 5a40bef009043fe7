/* victims.c -- nodes indexed by the GPUs a preempting job could free there.
 *
 * See victims.h for the model.  Layout: the levels' priorities in lp,
 * ascending; R in r, node-major (r[node * nlv + k]: prefix k of node); per
 * pool the trees slot-major, tree (k, f) at t + (k * gpn + f) * 2 * tsize,
 * 1-indexed with the leaves at tsize.. (a pool of one node has its leaf at
 * the root).  The fleet's nfull is mirrored per node in nf, as the watcher
 * last saw it; a node's leaves sit in the trees of that value. */
#include "victims.h"
#include "jobgroup.h"
#include "../sim/err.h"

#include <stdlib.h>
#include <string.h>

struct vpool {
    int gpn, tsize, node0;
    uint8_t *t;                 /* nlv * gpn trees of 2 * tsize */
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

static size_t tlen(const struct vpool *p)
{
    return 2 * (size_t)p->tsize;
}

static uint8_t *tree(const struct vpool *p, int k, int f)
{
    return p->t + ((size_t)k * (size_t)p->gpn + (size_t)f) * tlen(p);
}

/* Leaf i of t becomes val; the maxima above it follow. */
static void tset(uint8_t *t, int tsize, int i, uint8_t val)
{
    int x = tsize + i;
    if (t[x] == val)
        return;
    t[x] = val;
    for (x >>= 1; x >= 1; x >>= 1) {
        uint8_t a = t[2 * x], b = t[2 * x + 1], m = a > b ? a : b;
        if (t[x] == m)
            break;
        t[x] = m;
    }
}

/* The leftmost leaf of t holding at least th (>= 1), or -1. */
static int tfind(const uint8_t *t, int tsize, int th)
{
    if (t[1] < th)
        return -1;
    int x = 1;
    while (x < tsize) {
        x *= 2;
        if (t[x] < th)
            x++;
    }
    return x - tsize;
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
    const uint8_t *r = v->r + (size_t)node * (size_t)v->nlv;
    if (v->nlv == 0 || r[v->nlv - 1] == 0)      /* no victim on it */
        return;
    const struct vpool *p = &v->p[f->nodes[node].pool];
    int i = node - p->node0;
    for (int k = 0; k < v->nlv; k++) {
        if (r[k] == 0)
            continue;
        if (old < p->gpn)
            tset(tree(p, k, old), p->tsize, i, 0);
        if (now < p->gpn)
            tset(tree(p, k, now), p->tsize, i, r[k]);
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

/* A new level for prio at index at: prefix at is prefix at-1 (none below:
 * empty) plus a level with no victims yet; the prefixes above move up. */
static void insert_level(struct gs_victims *v, int at, int prio)
{
    int L = v->nlv;
    int *lp = realloc(v->lp, (size_t)(L + 1) * sizeof *lp);
    uint8_t *r = malloc((size_t)v->nnodes * (size_t)(L + 1) + 1);
    GS_OOM_IF(lp == NULL || r == NULL);
    memmove(&lp[at + 1], &lp[at], (size_t)(L - at) * sizeof *lp);
    lp[at] = prio;
    v->lp = lp;
    for (int n = 0; n < v->nnodes; n++) {
        const uint8_t *o = v->r + (size_t)n * (size_t)L;
        uint8_t *x = r + (size_t)n * (size_t)(L + 1);
        memcpy(x, o, (size_t)at);
        x[at] = at > 0 ? o[at - 1] : 0;
        memcpy(x + at + 1, o + at, (size_t)(L - at));
    }
    free(v->r);
    v->r = r;
    for (int q = 0; q < v->npools; q++) {
        struct vpool *p = &v->p[q];
        if (p->gpn == 0)
            continue;
        size_t slot = (size_t)p->gpn * tlen(p);
        uint8_t *t = realloc(p->t, slot * (size_t)(L + 1));
        GS_OOM_IF(t == NULL);
        memmove(t + slot * (size_t)(at + 1), t + slot * (size_t)at,
                slot * (size_t)(L - at));
        if (at > 0)
            memcpy(t + slot * (size_t)at, t + slot * (size_t)(at - 1), slot);
        else
            memset(t, 0, slot);
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
    for (int k = at; k < v->nlv; k++) {
        int x = r[k] + sign * gpus;
        GS_ASSERT(x >= 0 && x <= 255);
        r[k] = (uint8_t)x;
        if (nf < p->gpn)
            tset(tree(p, k, nf), p->tsize, i, (uint8_t)x);
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
        for (int f = need - 1; f >= 0 && f >= bestf; f--) {
            const uint8_t *t = tree(p, k, f);
            int i = tfind(t, p->tsize, need - f);
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
