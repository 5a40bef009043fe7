/* victims.c -- nodes indexed by the GPUs a preempting job could free there.
 *
 * See victims.h for the model.  Layout: the levels' priorities in lp,
 * ascending; R in r, node-major (r[node * nlv + k]: prefix k of node).
 * Per pool, one set of nodes for every prefix k, value f < gpn of nfull
 * and value x of R (1..gpn): the nodes with nfull = f and R_k = x, a
 * bitset of its nodes (w words) under a summary of its nonzero words (sw
 * words).  The sets of one k and f make a block of (sw + w) x (gpn + 1)
 * words, their words interleaved: word j of set x at j * (gpn + 1) + x,
 * block (k, f) at (k * gpn + f) * (sw + w) * (gpn + 1) of the pool's b;
 * a mask per block (occ) says which of its sets hold a node, so a value
 * of nfull with no node of enough R costs the search one word.
 * A node is in at most one set per prefix, and a change of nfull or R
 * moves it between two sets of each prefix that holds a victim: a bit
 * cleared and one set, O(levels).  The lowest node with nfull = f and R_k
 * at least t is the lowest of the union of the sets x = t..gpn: the first
 * nonzero word of their summaries' OR, then the first bit of their words'
 * OR there -- two count-trailing-zeros over adjacent words (for up to
 * 4,096 nodes one summary word).  The fleet's nfull is mirrored per node
 * in nf, as the watcher last saw it, and R in r, as the victims moved.
 *
 * Lazily.  The sets hold a node by inf and ir, the nfull and R values they
 * were last brought up to (a node's bits sit in the sets of those
 * values); a change of nf or r only marks its node dirty (a byte and a
 * list entry), and a search first moves each dirty node once from its
 * indexed values to its current ones.  A start changes a node's nfull and
 * then, for a possible victim, its R; a preemption frees the victim's
 * GPUs, drops its R and takes the GPUs again for the preempting job --
 * each one node, two to five changes, one move between sets instead of
 * one per change.
 *
 * A priority's prefix (the levels below it) is read from a table over the
 * priorities between the lowest and the highest level (tiers: a few
 * apart), remade with the levels; beyond 4,096 apart, by a binary search. */
#include "victims.h"
#include "jobgroup.h"
#include "../sim/base/err.h"

#include <stdlib.h>
#include <string.h>

struct vpool {
    int gpn, nodes, node0;
    int w, sw;                  /* a set's bitset and summary words */
    size_t bw;                  /* words a block: (sw + w) * (gpn + 1) */
    uint64_t *b;                /* nlv * gpn blocks */
    uint64_t *occ;              /* per block: bit x set when set x has a
                                   node */
};

struct gs_victims {
    struct gs_fleet *f;
    int nnodes, npools;
    int8_t *nf;                 /* per node: nfull as last told */
    int *lp;                    /* per level: its priority, ascending */
    int nlv;
    uint8_t *r;                 /* nnodes * nlv: R as the victims moved */
    int8_t *inf;                /* per node: nfull as the sets hold it */
    uint8_t *ir;                /* nnodes * nlv: R as the sets hold it */
    uint8_t *dirty;             /* per node: 1 when listed in dl */
    int *dl, ndl;               /* the nodes to bring up to date */
    struct vpool *p;
    uint8_t *bmap;              /* below() for priorities lp[0] + i, i <
                                   lp[nlv-1] - lp[0] (NULL: too wide) */
};

/* Block (k, f) of pool p, c = k * gpn + f. */
static uint64_t *block_of(const struct vpool *p, int c)
{
    return p->b + (size_t)c * p->bw;
}

/* Node i into set x of block c. */
static void bit_set(const struct vpool *p, int c, int x, int i)
{
    uint64_t *b = block_of(p, c);
    size_t n = (size_t)p->gpn + 1;
    b[(size_t)(p->sw + (i >> 6)) * n + (size_t)x] |= 1ULL << (i & 63);
    b[(size_t)(i >> 12) * n + (size_t)x] |= 1ULL << (i >> 6 & 63);
    p->occ[c] |= 1ULL << x;
}

/* Node i out of set x of block c. */
static void bit_clear(const struct vpool *p, int c, int x, int i)
{
    uint64_t *b = block_of(p, c);
    size_t n = (size_t)p->gpn + 1;
    if ((b[(size_t)(p->sw + (i >> 6)) * n + (size_t)x] &=
         ~(1ULL << (i & 63))) != 0)
        return;
    if ((b[(size_t)(i >> 12) * n + (size_t)x] &=
         ~(1ULL << (i >> 6 & 63))) != 0)
        return;
    for (int j = 0; j < p->sw; j++)
        if (b[(size_t)j * n + (size_t)x])
            return;
    p->occ[c] &= ~(1ULL << x);          /* the set is empty */
}

/* The lowest node (pool-relative) in the union of sets t..gpn of block b,
 * -1 when empty. */
static int lowest(const struct vpool *p, const uint64_t *b, int t)
{
    size_t n = (size_t)p->gpn + 1;
    for (int j = 0; j < p->sw; j++) {
        const uint64_t *s = b + (size_t)j * n;
        uint64_t m = 0;
        for (int x = t; x <= p->gpn; x++)
            m |= s[x];
        if (m == 0)
            continue;
        int wi = j * 64 + __builtin_ctzll(m);
        const uint64_t *ws = b + (size_t)(p->sw + wi) * n;
        uint64_t y = 0;
        for (int x = t; x <= p->gpn; x++)
            y |= ws[x];
        return wi * 64 + __builtin_ctzll(y);
    }
    return -1;
}

/* Node i of pool p goes into (+1) or out of (-1) the sets of its nfull f
 * and R values r[0..nlv) (prefixes without a victim there are in none). */
static void place(const struct gs_victims *v, const struct vpool *p, int i,
                  int f, const uint8_t *r, int in)
{
    if (f >= p->gpn)
        return;
    for (int k = 0; k < v->nlv; k++) {
        if (r[k] == 0)
            continue;
        if (in)
            bit_set(p, k * p->gpn + f, r[k], i);
        else
            bit_clear(p, k * p->gpn + f, r[k], i);
    }
}

/* Node changed: bring it up to date before the next search. */
static void mark(struct gs_victims *v, int node)
{
    if (v->dirty[node])
        return;
    v->dirty[node] = 1;
    v->dl[v->ndl++] = node;
}

/* Move every dirty node from the sets of its indexed values (inf, ir) to
 * those of its current ones (nf, r). */
static void flush(struct gs_victims *v)
{
    int L = v->nlv;
    for (int d = 0; d < v->ndl; d++) {
        int node = v->dl[d];
        v->dirty[node] = 0;
        const struct vpool *p = &v->p[v->f->nodes[node].pool];
        int i = node - p->node0, of = v->inf[node], nf = v->nf[node];
        uint8_t *ir = v->ir + (size_t)node * (size_t)L;
        const uint8_t *r = v->r + (size_t)node * (size_t)L;
        for (int k = 0; k < L; k++) {
            int ox = ir[k], x = r[k];
            if (of == nf && ox == x)
                continue;
            if (of < p->gpn && ox > 0)
                bit_clear(p, k * p->gpn + of, ox, i);
            if (nf < p->gpn && x > 0)
                bit_set(p, k * p->gpn + nf, x, i);
            ir[k] = (uint8_t)x;
        }
        v->inf[node] = (int8_t)nf;
    }
    v->ndl = 0;
}

static void on_node(void *arg, const struct gs_fleet *f, int node,
                    const struct gs_need *need, int sign)
{
    (void)need;
    (void)sign;
    struct gs_victims *v = arg;
    int now = f->nodes[node].nfull;
    if (now == v->nf[node])
        return;
    v->nf[node] = (int8_t)now;
    if (v->nlv == 0)
        return;
    size_t top = (size_t)node * (size_t)v->nlv + (size_t)v->nlv - 1;
    if (v->r[top] == 0 && v->ir[top] == 0)
        return;                 /* no victim on it, in no set */
    mark(v, node);
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
    v->inf = malloc((size_t)f->nnodes + 1);
    v->dirty = calloc((size_t)f->nnodes + 1, 1);
    v->dl = malloc(((size_t)f->nnodes + 1) * sizeof *v->dl);
    v->p = calloc((size_t)f->npools + 1, sizeof *v->p);
    if (v->nf == NULL || v->inf == NULL || v->dirty == NULL ||
        v->dl == NULL || v->p == NULL) {
        gs_victims_free(v);
        return GS_ENOMEM;
    }
    for (int n = 0; n < f->nnodes; n++)
        v->inf[n] = v->nf[n] = (int8_t)f->nodes[n].nfull;
    for (int q = 0; q < f->npools; q++) {
        struct vpool *p = &v->p[q];
        p->gpn = f->pools[q].s.gpn;
        p->nodes = f->pools[q].s.nodes;
        p->node0 = f->pools[q].node0;
        p->w = (p->nodes + 63) / 64;
        p->sw = (p->w + 63) / 64;
        p->bw = (size_t)(p->sw + p->w) * (size_t)(p->gpn + 1);
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
        for (int q = 0; q < v->npools; q++) {
            free(v->p[q].b);
            free(v->p[q].occ);
        }
    free(v->p);
    free(v->nf);
    free(v->inf);
    free(v->dirty);
    free(v->dl);
    free(v->lp);
    free(v->bmap);
    free(v->r);
    free(v->ir);
    free(v);
}

/* Levels below prio, by a binary search. */
static int below_search(const struct gs_victims *v, int prio)
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

/* Levels below prio: by the table between the lowest and the highest
 * level (a few priorities apart: tiers), else by the search. */
static inline int below(const struct gs_victims *v, int prio)
{
    if (v->nlv == 0 || prio <= v->lp[0])
        return 0;
    if (prio > v->lp[v->nlv - 1])
        return v->nlv;
    if (v->bmap)
        return v->bmap[(int64_t)prio - v->lp[0]];
    return below_search(v, prio);
}

#define BMAP_MAX 4096           /* widest table of below() */

/* Make the table of below() for the levels lp[0..nlv). */
static void bmap_make(struct gs_victims *v)
{
    free(v->bmap);
    v->bmap = NULL;
    int64_t w = (int64_t)v->lp[v->nlv - 1] - v->lp[0];
    if (w > BMAP_MAX || v->nlv > 255)
        return;
    v->bmap = malloc((size_t)w + 1);
    GS_OOM_IF(v->bmap == NULL);
    for (int64_t i = 0; i <= w; i++)
        v->bmap[i] = (uint8_t)below_search(v, (int)(v->lp[0] + i));
}

/* One node's R widened for a level inserted at index at: y gets L + 1
 * values from o's L (o is NULL when L is 0); the new prefix repeats the
 * one below it (0 at the bottom). */
static void widen(uint8_t *y, const uint8_t *o, int L, int at)
{
    if (at > 0) {
        memcpy(y, o, (size_t)at);
        y[at] = o[at - 1];
    } else {
        y[0] = 0;
    }
    if (L > at)
        memcpy(y + at + 1, o + at, (size_t)(L - at));
}

/* A new level for prio at index at: prefix at is prefix at-1 (none below:
 * empty) plus a level with no victims yet; the prefixes above move up.
 * The sets are made again from R and nf: O(nodes x levels), once per
 * distinct priority in a run. */
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
              L ? v->r + (size_t)n * (size_t)L : NULL, L, at);
    free(v->r);
    v->r = r;
    v->nlv = L + 1;
    bmap_make(v);
    free(v->ir);                /* the sets are made again from r and nf */
    v->ir = malloc((size_t)v->nnodes * (size_t)(L + 1) + 1);
    GS_OOM_IF(v->ir == NULL);
    memcpy(v->ir, r, (size_t)v->nnodes * (size_t)(L + 1));
    for (int d = 0; d < v->ndl; d++)
        v->dirty[v->dl[d]] = 0;
    v->ndl = 0;
    memcpy(v->inf, v->nf, (size_t)v->nnodes);
    for (int q = 0; q < v->npools; q++) {
        struct vpool *p = &v->p[q];
        if (p->gpn == 0)
            continue;
        size_t words = (size_t)v->nlv * (size_t)p->gpn * p->bw;
        free(p->b);
        free(p->occ);
        p->b = calloc(words, sizeof *p->b);
        p->occ = calloc((size_t)v->nlv * (size_t)p->gpn, sizeof *p->occ);
        GS_OOM_IF(p->b == NULL || p->occ == NULL);
        for (int i = 0; i < p->nodes; i++) {
            int n = p->node0 + i;
            place(v, p, i, v->nf[n], v->r + (size_t)n * (size_t)v->nlv, 1);
        }
    }
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
    int gpn = v->p[v->f->nodes[node].pool].gpn;
    uint8_t *r = v->r + (size_t)node * (size_t)v->nlv;
    for (int k = at; k < v->nlv; k++) {
        int x = r[k] + sign * gpus;
        GS_ASSERT(x >= 0 && x <= gpn);
        r[k] = (uint8_t)x;
    }
    mark(v, node);
}

int gs_victims_best(struct gs_victims *v, int prio, int need,
                    const char *pool_ok)
{
    int k = below(v, prio) - 1;             /* the prefix below prio */
    if (k < 0 || need <= 0)
        return -1;
    flush(v);
    int best = -1, bestf = -1;
    for (int q = 0; q < v->npools; q++) {
        const struct vpool *p = &v->p[q];
        if (!pool_ok[q] || need > p->gpn)
            continue;
        /* the least deficit is the largest nfull below need; there, the
         * lowest node with R at least need - f */
        for (int f = need - 1; f >= 0 && f >= bestf; f--) {
            int c = k * p->gpn + f;
            if ((p->occ[c] >> (need - f)) == 0)
                continue;       /* no node with R_k >= need - f */
            int i = lowest(p, block_of(p, c), need - f);
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

int gs_victims_any(struct gs_victims *v, int prio, int need,
                   const char *pool_ok)
{
    int k = below(v, prio) - 1;
    if (k < 0 || need <= 0)
        return 0;
    flush(v);
    for (int q = 0; q < v->npools; q++) {
        const struct vpool *p = &v->p[q];
        if (!pool_ok[q] || need > p->gpn)
            continue;
        for (int f = need - 1; f >= 0; f--)
            if ((p->occ[k * p->gpn + f] >> (need - f)) != 0)
                return 1;       /* a set of enough R holds a node */
    }
    return 0;
}

int gs_victims_reclaimable(const struct gs_victims *v, int node, int prio)
{
    int k = below(v, prio) - 1;
    return k < 0 ? 0 : v->r[(size_t)node * (size_t)v->nlv + (size_t)k];
}
