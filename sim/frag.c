/* frag.c -- the FGD fragmentation measure, node classes and shape affinity.
 *
 * See frag.h for the model and its source.  Invariants:
 *   - an up, uncordoned node of a classed pool is a member of exactly the
 *     class whose key is its sorted (free milli, free MiB) vector; a down or
 *     cordoned node, or a node of another pool, of none (node_cls -1) --
 *     closed to new work, it is no placement candidate, and its capacity is
 *     left out of the measure;
 *   - a class is in its pool's live list iff it has members;
 *   - total is the sum of F over member nodes, cap 1000 x their GPUs;
 *   - with affinity on, node n is in only[s] (mixed[s]) iff it hosts a job
 *     of shape s, hosts no other shape (hosts others), and can take one
 *     more task of shape s.
 * Everything is deterministic: classes are numbered in creation order and
 * members come out lowest node first. */
#include "frag.h"
#include "bitidx.h"
#include "gen.h"
#include "scenario.h"
#include "source.h"
#include "../traces/tread.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fclass {
    int pool, gpn;
    long key;                   /* offset into keys: milli[gpn], mib[gpn] */
    uint32_t hash;
    double F;
    int live;                   /* position in the pool's live list, -1 */
    int *heap;                  /* member nodes, min-heap */
    int count, cap;
};

struct naff {                   /* shapes hosted by a node */
    int n, cap;
    int32_t *sid, *cnt;
};

struct gs_frag {
    struct gs_fleet *f;
    int nshapes;
    struct gs_shape *shapes;
    int *shash;                 /* shape ids by key, -1 empty */
    int shcap;
    uint8_t *classed;           /* per pool */
    struct fclass *cls;
    int ncls, capcls;
    int32_t *keys;
    long nkeys, capkeys;
    int *chash;                 /* class ids by key, -1 empty */
    int chcap;
    int *node_cls, *node_pos;
    int *node_gpus;             /* GPUs counted in cap for the member */
    int **live;                 /* per pool */
    int *nlive, *caplive;
    double total, cap;
    int32_t *scratch;           /* 2 * GS_MAX_GPN */
    int members;                /* keep class members (for placers) */
    int affinity;
    struct naff *aff;           /* per node */
    struct gs_bitidx *only, *mixed;     /* per shape */
};

/* --- shapes ----------------------------------------------------------------- */

static uint32_t mix(uint32_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h = (h ^ (uint32_t)(v & 0xff)) * 16777619u;
        v >>= 8;
    }
    return h;
}

static uint32_t shape_hash(int gpus, int milli, uint64_t allowed)
{
    return mix(mix(mix(2166136261u, (uint64_t)gpus), (uint64_t)milli), allowed);
}

static int shape_find(const struct gs_frag *fr, int gpus, int milli,
                      uint64_t allowed)
{
    if (fr->shcap == 0)
        return -1;
    uint32_t k = shape_hash(gpus, milli, allowed) & (uint32_t)(fr->shcap - 1);
    while (fr->shash[k] >= 0) {
        const struct gs_shape *s = &fr->shapes[fr->shash[k]];
        if (s->gpus == gpus && s->milli == milli && s->allowed == allowed)
            return fr->shash[k];
        k = (k + 1) & (uint32_t)(fr->shcap - 1);
    }
    return -1;
}

/* A growing table of shapes with counts, for gs_frag_workload. */
struct tally {
    struct gs_shape *v;
    int n, cap;
    int *h;
    int hcap;
};

static int tally_add(struct tally *t, int gpus, int milli, uint64_t allowed,
                     double w)
{
    if (t->n * 2 >= t->hcap) {
        int cap = t->hcap ? t->hcap * 2 : 64;
        int *h = malloc((size_t)cap * sizeof *h);
        if (h == NULL)
            return GS_ENOMEM;
        for (int i = 0; i < cap; i++)
            h[i] = -1;
        for (int i = 0; i < t->n; i++) {
            uint32_t k = shape_hash(t->v[i].gpus, t->v[i].milli,
                                    t->v[i].allowed) & (uint32_t)(cap - 1);
            while (h[k] >= 0)
                k = (k + 1) & (uint32_t)(cap - 1);
            h[k] = i;
        }
        free(t->h);
        t->h = h;
        t->hcap = cap;
    }
    uint32_t k = shape_hash(gpus, milli, allowed) & (uint32_t)(t->hcap - 1);
    while (t->h[k] >= 0) {
        struct gs_shape *s = &t->v[t->h[k]];
        if (s->gpus == gpus && s->milli == milli && s->allowed == allowed) {
            s->p += w;
            return 0;
        }
        k = (k + 1) & (uint32_t)(t->hcap - 1);
    }
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 32;
        struct gs_shape *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return GS_ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n] = (struct gs_shape){ gpus, milli, allowed, w };
    t->h[k] = t->n++;
    return 0;
}

static int by_popularity(const void *a, const void *b)
{
    const struct gs_shape *x = a, *y = b;
    if (x->p != y->p)
        return x->p > y->p ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    if (x->milli != y->milli)
        return x->milli < y->milli ? -1 : 1;
    return x->allowed < y->allowed ? -1 : x->allowed > y->allowed;
}

int gs_frag_workload(const struct gs_scenario *sc, uint64_t seed,
                     struct gs_shape **shapes, int *n)
{
    struct tally t = { 0 };
    int rc = 0;
    *shapes = NULL;
    *n = 0;
    if (sc->wl_kind == GS_WL_GENERATE) {
        double wsum = 0;
        for (int c = 0; c < sc->gen.nclasses; c++)
            wsum += sc->gen.cls[c].weight;
        for (int c = 0; c < sc->gen.nclasses && rc == 0; c++) {
            const struct gs_genclass *k = &sc->gen.cls[c];
            double vs = 0;
            for (int v = 0; v < k->nvalues; v++)
                vs += k->gpu_w[v];
            for (int v = 0; v < k->nvalues && rc == 0; v++) {
                double g = k->gpus[v], w = k->weight / wsum * k->gpu_w[v] / vs;
                if (g <= 0 || w <= 0)
                    continue;
                rc = g >= 1.0 ? tally_add(&t, (int)g, 1000, 0, w)
                              : tally_add(&t, 1, (int)lround(g * 1000), 0, w);
            }
        }
    } else {
        struct gs_source src;
        struct gs_diag d = { 0 };
        FILE *log = gs_trace_log();
        gs_trace_set_log(NULL);
        /* A bad trace is the workload's error to report (later, with its
         * place); running out of memory is this one's. */
        int src_rc = gs_source_open(sc, seed, &src, &d);
        if (src_rc == 0) {
            struct gs_jobspec j;
            while (rc == 0 && (src_rc = gs_source_next(&src, &j, &d)) == 1) {
                if (j.gpus > 0)
                    rc = tally_add(&t, j.gpus, 1000, j.allowed, 1.0);
                else if (j.milli > 0)
                    rc = tally_add(&t, 1, j.milli, j.allowed, 1.0);
            }
            gs_source_close(&src);
        }
        if (rc == 0 && src_rc == GS_ENOMEM)
            rc = GS_ENOMEM;
        gs_trace_set_log(log);
    }
    free(t.h);
    if (rc < 0) {
        free(t.v);
        return rc;
    }
    double sum = 0;
    for (int i = 0; i < t.n; i++)
        sum += t.v[i].p;
    for (int i = 0; i < t.n; i++)
        t.v[i].p /= sum;
    if (t.n > 1)
        qsort(t.v, (size_t)t.n, sizeof *t.v, by_popularity);
    *shapes = t.v;
    *n = t.n;
    return 0;
}

int gs_frag_nshapes(const struct gs_frag *fr)
{
    return fr ? fr->nshapes : 0;
}

const struct gs_shape *gs_frag_shape(const struct gs_frag *fr, int i)
{
    return &fr->shapes[i];
}

int gs_frag_shape_of(const struct gs_frag *fr, const struct gs_need *need)
{
    if (need->gpus > 0)
        return shape_find(fr, need->gpus, 1000, need->allowed);
    return shape_find(fr, 1, need->milli, need->allowed);
}

/* --- the measure ---------------------------------------------------------------- */

double gs_frag_value(const struct gs_frag *fr, int pool, const int *milli,
                     int gpn)
{
    int model = fr->f->pools[pool].s.model;
    double total = 0, F = 0;
    for (int g = 0; g < gpn; g++)
        total += milli[g];
    if (total == 0)
        return 0;
    for (int i = 0; i < fr->nshapes; i++) {
        const struct gs_shape *t = &fr->shapes[i];
        if (t->allowed && !(t->allowed & (1ULL << model))) {
            F += t->p * total;
            continue;
        }
        int fit = 0;
        double small = 0;
        for (int g = 0; g < gpn; g++) {
            if (milli[g] >= t->milli)
                fit++;
            else
                small += milli[g];
        }
        F += t->p * (fit >= t->gpus ? small : total);
    }
    return F;
}

/* --- classes -------------------------------------------------------------------------- */

/* A node state's hash: a multiply-xorshift step per word (every call is on
 * the path of every commit and release, so it must be cheap). */
static uint32_t key_hash(int pool, const int32_t *k, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uint32_t)pool;
    for (int i = 0; i < n; i++) {
        h = (h ^ (uint64_t)(uint32_t)k[i]) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* Free milli of GPU g that nobody borrows (fractional pools lend). */
static inline int32_t unlent(const struct gs_fleet *f, int g)
{
    int32_t v = f->free_milli[g] - f->lent[g];
    return v > 0 ? v : 0;
}

/* The node's state as a key: milli descending, each with its MiB. */
static void node_key(const struct gs_frag *fr, int node, int32_t *k)
{
    const struct gs_fleet *f = fr->f;
    const struct gs_node *nd = &f->nodes[node];
    int gpn = f->pools[nd->pool].s.gpn;
    int32_t *mi = k, *mb = k + gpn;
    for (int g = 0; g < gpn; g++) {
        int32_t a = unlent(f, nd->gpu0 + g), b = f->free_mib[nd->gpu0 + g];
        int i = g;
        while (i > 0 && (mi[i - 1] < a || (mi[i - 1] == a && mb[i - 1] < b))) {
            mi[i] = mi[i - 1];
            mb[i] = mb[i - 1];
            i--;
        }
        mi[i] = a;
        mb[i] = b;
    }
}

static int chash_grow(struct gs_frag *fr)
{
    int cap = fr->chcap ? fr->chcap * 2 : 1024;
    int *h = malloc((size_t)cap * sizeof *h);
    if (h == NULL)
        return GS_ENOMEM;
    for (int i = 0; i < cap; i++)
        h[i] = -1;
    for (int c = 0; c < fr->ncls; c++) {
        uint32_t k = fr->cls[c].hash & (uint32_t)(cap - 1);
        while (h[k] >= 0)
            k = (k + 1) & (uint32_t)(cap - 1);
        h[k] = c;
    }
    free(fr->chash);
    fr->chash = h;
    fr->chcap = cap;
    return 0;
}

/* The class of state k of pool (2 * gpn values), made if new; -1 on ENOMEM. */
static int class_of(struct gs_frag *fr, int pool, const int32_t *k, int gpn)
{
    if (fr->ncls * 2 >= fr->chcap && chash_grow(fr) < 0)
        return -1;
    uint32_t h = key_hash(pool, k, 2 * gpn);
    uint32_t i = h & (uint32_t)(fr->chcap - 1);
    while (fr->chash[i] >= 0) {
        const struct fclass *c = &fr->cls[fr->chash[i]];
        if (c->hash == h && c->pool == pool &&
            memcmp(&fr->keys[c->key], k, (size_t)(2 * gpn) * sizeof *k) == 0)
            return fr->chash[i];
        i = (i + 1) & (uint32_t)(fr->chcap - 1);
    }
    if (fr->ncls == fr->capcls) {
        int cap = fr->capcls ? fr->capcls * 2 : 256;
        struct fclass *v = realloc(fr->cls, (size_t)cap * sizeof *v);
        if (v == NULL)
            return -1;
        fr->cls = v;
        fr->capcls = cap;
    }
    if (fr->nkeys + 2 * gpn > fr->capkeys) {
        long cap = fr->capkeys ? fr->capkeys * 2 : 4096;
        while (cap < fr->nkeys + 2 * gpn)
            cap *= 2;
        int32_t *v = realloc(fr->keys, (size_t)cap * sizeof *v);
        if (v == NULL)
            return -1;
        fr->keys = v;
        fr->capkeys = cap;
    }
    int id = fr->ncls++;
    struct fclass *c = &fr->cls[id];
    memset(c, 0, sizeof *c);
    c->pool = pool;
    c->gpn = gpn;
    c->key = fr->nkeys;
    memcpy(&fr->keys[c->key], k, (size_t)(2 * gpn) * sizeof *k);
    fr->nkeys += 2 * gpn;
    c->hash = h;
    c->live = -1;
    int mi[GS_MAX_GPN];
    for (int g = 0; g < gpn; g++)
        mi[g] = k[g];
    c->F = gs_frag_value(fr, pool, mi, gpn);
    fr->chash[i] = id;
    return id;
}

static void heap_swap(struct gs_frag *fr, struct fclass *c, int a, int b)
{
    int t = c->heap[a];
    c->heap[a] = c->heap[b];
    c->heap[b] = t;
    fr->node_pos[c->heap[a]] = a;
    fr->node_pos[c->heap[b]] = b;
}

static void heap_up(struct gs_frag *fr, struct fclass *c, int i)
{
    while (i > 0 && c->heap[(i - 1) / 2] > c->heap[i]) {
        heap_swap(fr, c, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(struct gs_frag *fr, struct fclass *c, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->count && c->heap[l] < c->heap[m])
            m = l;
        if (r < c->count && c->heap[r] < c->heap[m])
            m = r;
        if (m == i)
            return;
        heap_swap(fr, c, i, m);
        i = m;
    }
}

static void live_add(struct gs_frag *fr, int id)
{
    struct fclass *c = &fr->cls[id];
    int p = c->pool;
    if (fr->nlive[p] == fr->caplive[p]) {
        int cap = fr->caplive[p] ? fr->caplive[p] * 2 : 16;
        int *v = realloc(fr->live[p], (size_t)cap * sizeof *v);
        GS_OOM_IF(v == NULL);
        fr->live[p] = v;
        fr->caplive[p] = cap;
    }
    c->live = fr->nlive[p];
    fr->live[p][fr->nlive[p]++] = id;
}

static void live_remove(struct gs_frag *fr, int id)
{
    struct fclass *c = &fr->cls[id];
    int p = c->pool, last = fr->live[p][--fr->nlive[p]];
    fr->live[p][c->live] = last;
    fr->cls[last].live = c->live;
    c->live = -1;
}

/* GPUs of node not failed in place. */
static int alive(const struct gs_frag *fr, int node)
{
    const struct gs_node *nd = &fr->f->nodes[node];
    return fr->f->pools[nd->pool].s.gpn - __builtin_popcountll(nd->deadmask);
}

static int member_add(struct gs_frag *fr, int id, int node)
{
    struct fclass *c = &fr->cls[id];
    fr->node_cls[node] = id;
    fr->total += c->F;
    fr->node_gpus[node] = alive(fr, node);
    fr->cap += 1000.0 * fr->node_gpus[node];
    if (!fr->members)
        return 0;
    if (c->count == c->cap) {
        int cap = c->cap ? c->cap * 2 : 4;
        int *v = realloc(c->heap, (size_t)cap * sizeof *v);
        if (v == NULL)
            return GS_ENOMEM;
        c->heap = v;
        c->cap = cap;
    }
    c->heap[c->count] = node;
    fr->node_pos[node] = c->count++;
    heap_up(fr, c, c->count - 1);
    if (c->count == 1)
        live_add(fr, id);
    return 0;
}

static void member_remove(struct gs_frag *fr, int node)
{
    int id = fr->node_cls[node];
    struct fclass *c = &fr->cls[id];
    fr->node_cls[node] = -1;
    fr->total -= c->F;
    fr->cap -= 1000.0 * fr->node_gpus[node];
    if (fr->cap < 0.5)          /* no drift when the fleet empties */
        fr->total = fr->cap = 0;
    if (!fr->members)
        return;
    int i = fr->node_pos[node];
    c->count--;
    if (i != c->count) {
        heap_swap(fr, c, i, c->count);
        heap_down(fr, c, i);
        heap_up(fr, c, i);
    }
    if (c->count == 0)
        live_remove(fr, id);
}

/* --- affinity ---------------------------------------------------------------------- */

static int room_for(const struct gs_frag *fr, int node, const struct gs_shape *t)
{
    const struct gs_fleet *f = fr->f;
    const struct gs_node *nd = &f->nodes[node];
    const struct gs_pool *p = &f->pools[nd->pool];
    if (t->allowed && !(t->allowed & (1ULL << p->s.model)))
        return 0;
    int fit = 0;
    for (int g = 0; g < p->s.gpn; g++)
        fit += unlent(f, nd->gpu0 + g) >= t->milli;
    return fit >= t->gpus;
}

static void affinity_refresh(struct gs_frag *fr, int node)
{
    struct naff *a = &fr->aff[node];
    int up = fr->f->nodes[node].up && !fr->f->nodes[node].cordon;
    for (int i = 0; i < a->n; i++) {
        int s = a->sid[i];
        if (s >= fr->nshapes)
            continue;
        int room = up && a->cnt[i] > 0 && room_for(fr, node, &fr->shapes[s]);
        if (room && a->n == 1)
            gs_bitidx_set(&fr->only[s], node);
        else
            gs_bitidx_clear(&fr->only[s], node);
        if (room && a->n > 1)
            gs_bitidx_set(&fr->mixed[s], node);
        else
            gs_bitidx_clear(&fr->mixed[s], node);
    }
}

static void affinity_change(struct gs_frag *fr, int node,
                            const struct gs_need *need, int sign)
{
    struct naff *a = &fr->aff[node];
    int s = gs_frag_shape_of(fr, need);
    if (s < 0)
        s = fr->nshapes;                /* a shape outside the distribution */
    int i;
    for (i = 0; i < a->n && a->sid[i] != s; i++)
        ;
    if (i == a->n) {
        if (sign < 0)
            return;
        if (a->n == a->cap) {
            int cap = a->cap ? a->cap * 2 : 2;
            int32_t *x = realloc(a->sid, (size_t)cap * sizeof *x);
            if (x == NULL)
                return;
            a->sid = x;
            int32_t *y = realloc(a->cnt, (size_t)cap * sizeof *y);
            if (y == NULL)
                return;
            a->cnt = y;
            a->cap = cap;
        }
        a->sid[a->n] = s;
        a->cnt[a->n++] = 0;
    }
    a->cnt[i] += sign;
    if (a->cnt[i] <= 0) {
        if (s < fr->nshapes) {
            gs_bitidx_clear(&fr->only[s], node);
            gs_bitidx_clear(&fr->mixed[s], node);
        }
        a->sid[i] = a->sid[a->n - 1];
        a->cnt[i] = a->cnt[a->n - 1];
        a->n--;
    }
}

int gs_frag_track_classes(struct gs_frag *fr)
{
    if (fr->members)
        return 0;
    /* Re-enter every node with members kept. */
    for (int node = 0; node < fr->f->nnodes; node++)
        if (fr->node_cls[node] >= 0)
            member_remove(fr, node);
    fr->members = 1;
    for (int node = 0; node < fr->f->nnodes; node++) {
        const struct gs_node *nd = &fr->f->nodes[node];
        if (!fr->classed[nd->pool] || !nd->up || nd->cordon)
            continue;
        node_key(fr, node, fr->scratch);
        int id = class_of(fr, nd->pool, fr->scratch,
                          fr->f->pools[nd->pool].s.gpn);
        if (id < 0 || member_add(fr, id, node) < 0)
            return GS_ENOMEM;
    }
    return 0;
}

int gs_frag_track_affinity(struct gs_frag *fr)
{
    if (fr->affinity)
        return 0;
    int nn = fr->f->nnodes;
    fr->aff = calloc((size_t)(nn > 0 ? nn : 1), sizeof *fr->aff);
    fr->only = calloc((size_t)(fr->nshapes + 1), sizeof *fr->only);
    fr->mixed = calloc((size_t)(fr->nshapes + 1), sizeof *fr->mixed);
    if (!fr->aff || !fr->only || !fr->mixed)
        return GS_ENOMEM;
    for (int s = 0; s < fr->nshapes; s++)
        if (gs_bitidx_init(&fr->only[s], nn) < 0 ||
            gs_bitidx_init(&fr->mixed[s], nn) < 0)
            return GS_ENOMEM;
    fr->affinity = 1;
    return 0;
}

int gs_frag_affine_node(const struct gs_frag *fr, int s, int only, int lo,
                        int hi)
{
    if (!fr->affinity || s < 0 || s >= fr->nshapes)
        return -1;
    int n = gs_bitidx_next(only ? &fr->only[s] : &fr->mixed[s], lo);
    return n >= 0 && n < hi ? n : -1;
}

/* --- the watcher -------------------------------------------------------------------------- */

static void on_node(void *arg, const struct gs_fleet *f, int node,
                    const struct gs_need *need, int sign)
{
    struct gs_frag *fr = arg;
    const struct gs_node *nd = &f->nodes[node];
    if (!fr->classed[nd->pool])
        return;
    if (fr->node_cls[node] >= 0)
        member_remove(fr, node);
    if (nd->up && !nd->cordon) {
        int gpn = f->pools[nd->pool].s.gpn;
        node_key(fr, node, fr->scratch);
        int id = class_of(fr, nd->pool, fr->scratch, gpn);
        GS_OOM_IF(id < 0);              /* out of memory: no way to go on */
        int rc = member_add(fr, id, node);
        GS_OOM_IF(rc < 0);
    }
    if (fr->affinity) {
        if (need && !gs_need_host_only(need))  /* CPU-only jobs have no
                                                   GPU affinity */
            affinity_change(fr, node, need, sign);
        affinity_refresh(fr, node);
    }
}

int gs_frag_new(struct gs_fleet *f, const struct gs_shape *shapes, int n,
                struct gs_frag **out)
{
    *out = NULL;
    struct gs_frag *fr = calloc(1, sizeof *fr);
    if (fr == NULL)
        return GS_ENOMEM;
    fr->f = f;
    size_t nn = (size_t)(f->nnodes > 0 ? f->nnodes : 1);
    size_t np = (size_t)(f->npools > 0 ? f->npools : 1);
    fr->shapes = malloc((size_t)(n > 0 ? n : 1) * sizeof *fr->shapes);
    fr->classed = calloc(np, 1);
    fr->node_cls = malloc(nn * sizeof *fr->node_cls);
    fr->node_pos = calloc(nn, sizeof *fr->node_pos);
    fr->node_gpus = calloc(nn, sizeof *fr->node_gpus);
    fr->live = calloc(np, sizeof *fr->live);
    fr->nlive = calloc(np, sizeof *fr->nlive);
    fr->caplive = calloc(np, sizeof *fr->caplive);
    fr->scratch = malloc(2 * GS_MAX_GPN * sizeof *fr->scratch);
    if (!fr->shapes || !fr->classed || !fr->node_cls || !fr->node_pos ||
        !fr->node_gpus ||
        !fr->live || !fr->nlive || !fr->caplive || !fr->scratch)
        goto nomem;
    if (n > 0)
        memcpy(fr->shapes, shapes, (size_t)n * sizeof *shapes);
    fr->nshapes = n;
    fr->shcap = 16;
    while (fr->shcap < 2 * n)
        fr->shcap *= 2;
    fr->shash = malloc((size_t)fr->shcap * sizeof *fr->shash);
    if (fr->shash == NULL)
        goto nomem;
    for (int i = 0; i < fr->shcap; i++)
        fr->shash[i] = -1;
    for (int i = 0; i < n; i++) {
        uint32_t k = shape_hash(shapes[i].gpus, shapes[i].milli,
                                shapes[i].allowed) & (uint32_t)(fr->shcap - 1);
        while (fr->shash[k] >= 0)
            k = (k + 1) & (uint32_t)(fr->shcap - 1);
        fr->shash[k] = i;
    }
    for (int p = 0; p < f->npools; p++) {
        int mode = f->pools[p].s.share.mode;
        fr->classed[p] = (mode == GS_SHARE_NONE || mode == GS_SHARE_FRAC) &&
                         f->pools[p].s.gpn > 0;     /* CPU-only nodes: no
                                                       GPU state to class */
    }
    for (int i = 0; i < f->nnodes; i++)
        fr->node_cls[i] = -1;
    for (int i = 0; i < f->nnodes; i++)
        on_node(fr, f, i, NULL, 0);
    int rc = gs_fleet_watch(f, on_node, fr);
    if (rc < 0) {
        gs_frag_free(fr);
        return rc;
    }
    *out = fr;
    return 0;
nomem:
    gs_frag_free(fr);
    return GS_ENOMEM;
}

void gs_frag_free(struct gs_frag *fr)
{
    if (fr == NULL)
        return;
    gs_fleet_unwatch(fr->f, on_node, fr);
    for (int c = 0; c < fr->ncls; c++)
        free(fr->cls[c].heap);
    for (int p = 0; fr->live && p < fr->f->npools; p++)
        free(fr->live[p]);
    if (fr->aff)
        for (int i = 0; i < fr->f->nnodes; i++) {
            free(fr->aff[i].sid);
            free(fr->aff[i].cnt);
        }
    for (int s = 0; s < fr->nshapes && fr->only && fr->mixed; s++) {
        gs_bitidx_free(&fr->only[s]);
        gs_bitidx_free(&fr->mixed[s]);
    }
    free(fr->aff);
    free(fr->only);
    free(fr->mixed);
    free(fr->shapes);
    free(fr->shash);
    free(fr->classed);
    free(fr->cls);
    free(fr->keys);
    free(fr->chash);
    free(fr->node_cls);
    free(fr->node_pos);
    free(fr->node_gpus);
    free(fr->live);
    free(fr->nlive);
    free(fr->caplive);
    free(fr->scratch);
    free(fr);
}

void gs_frag_levels(const struct gs_frag *fr, double *frag, double *cap)
{
    *frag = fr ? fr->total : 0.0;
    *cap = fr ? fr->cap : 0.0;
}

int gs_frag_pool_classed(const struct gs_frag *fr, int pool)
{
    return fr->classed[pool];
}

int gs_frag_live(const struct gs_frag *fr, int pool, const int **ids)
{
    *ids = fr->live[pool];
    return fr->nlive[pool];
}

int gs_frag_nclasses(const struct gs_frag *fr)
{
    return fr->ncls;
}

void gs_frag_class(const struct gs_frag *fr, int id, struct gs_fclass *o)
{
    const struct fclass *c = &fr->cls[id];
    o->pool = c->pool;
    o->gpn = c->gpn;
    o->milli = &fr->keys[c->key];
    o->mib = &fr->keys[c->key + c->gpn];
    o->count = c->count;
    o->F = c->F;
    o->gpu_mib = (int32_t)llround(
        fr->f->cat->m[fr->f->pools[c->pool].s.model].mem_gb * 1024.0);
}

int gs_frag_node_class(const struct gs_frag *fr, int node)
{
    return fr->node_cls[node];
}

int gs_frag_member(const struct gs_frag *fr, int id, int i)
{
    return fr->cls[id].heap[i];
}

int gs_frag_member_in(const struct gs_frag *fr, int id, int lo, int hi)
{
    const struct fclass *c = &fr->cls[id];
    if (c->count == 0)
        return -1;
    const struct gs_pool *p = &fr->f->pools[c->pool];
    if (lo <= p->node0 && hi >= p->node0 + p->s.nodes)
        return c->heap[0];
    int best = -1;
    for (int i = 0; i < c->count; i++) {
        int n = c->heap[i];
        if (n >= lo && n < hi && (best < 0 || n < best))
            best = n;
    }
    return best;
}
