/* frag.c -- the FGD fragmentation measure, node classes and shape affinity.
 *
 * See frag.h for the model and its source.  Invariants:
 *   - an up, uncordoned node of a classed pool is a member of exactly the
 *     class whose key is its sorted (free milli, free MiB) vector, its free
 *     CPU and host memory and (affinity on) its tags; a down or
 *     cordoned node, or a node of another pool, of none (node_cls -1) --
 *     closed to new work, it is no placement candidate, and its capacity is
 *     left out of the measure;
 *   - a class is in its pool's live list iff it has members;
 *   - total is the sum of F over member nodes, cap 1000 x their GPUs;
 *   - with affinity on, bit g of node n's tags is set iff it hosts a job of
 *     affinity group g (gs_kp_group).
 * Everything is deterministic: classes are numbered in creation order and
 * members come out in rank order (node index, or the placer's seeded
 * order, gs_frag_set_order). */
#include "frag.h"
#include "kplace.h"
#include "../base/bits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A class key: milli[gpn] descending, mib[gpn] paired, then the node's free
 * CPU, free host memory and tags (low and high words). */
#define KEY_LEN(gpn) (2 * (gpn) + 4)

/* A heap slot: a member node with its rank cached beside it, so that the
 * heap's comparisons read the heap alone (libev's lesson, STYLE.md). */
struct hslot {
    int rank, node;
};

struct fclass {
    int pool, gpn;
    long key;                   /* offset into keys (KEY_LEN(gpn) words) */
    uint32_t hash;
    double F;
    int live;                   /* position in the pool's live list, -1 */
    struct hslot *heap;         /* member nodes, min-heap by rank */
    int count, cap;
    uint64_t *bits;             /* by rank instead (fr->byrank): bit r set
                                   iff the node of rank r is a member;
                                   NULL while it has none */
    int low;                    /* its first nonzero word (nwords: none) */
};

/* A transition: a node of class from whose changed GPUs all went from
 * pair (om, ob) to pair (nm, nb) -- k of them, 0 when only the host
 * resources or tags changed -- and that now has free CPU cpu, free memory
 * mem and tags (tlo, thi), is of class to.  The class's key and that
 * change determine the new key, so the entry holds for good. */
struct trans {
    int32_t from, to, k, om, ob, nm, nb, cpu, mem;
    uint32_t tlo, thi, hash;
};

#define TRANS_SLOTS 4096        /* a direct-mapped cache of transitions */

/* Members by rank as bitsets: at most this many nodes (a class's bitset is
 * nodes / 8 bytes; only classes with members hold one). */
#define BYRANK_MAX_NODES 16384

struct naff {                   /* jobs per affinity group on a node */
    int32_t cnt[64];
    uint64_t tags;              /* bit g: cnt[g] > 0 */
};

struct gs_frag {
    struct gs_fleet *f;
    int nshapes;
    struct gs_shape *shapes;
    int *shash;                 /* shape ids by key, -1 empty */
    int shcap;
    uint8_t *classed;           /* per pool */
    uint8_t *lends;             /* per pool: a GPU of it was seen lending
                                   (fleet.h's lent; sticky) */
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
    struct gs_kp_mix *mix;      /* the shapes as typical pods, for F */
    int *rank;                  /* per node: its place in member order */
    uint32_t *shadow;           /* per GPU of a classed node: its (free
                                   milli not lent, free MiB) pair when the
                                   node was last classed, packed (pack) */
    struct trans *trans;        /* TRANS_SLOTS entries, from -1 = empty */
    uint64_t trans_hits, trans_misses;
    int trans_off;              /* gs_frag_set_transitions(fr, 0) */
    int byrank;                 /* members as bitsets by rank (gs_frag_
                                   track_first), not heaps */
    int nwords;                 /* of a bitset: ceil(nodes / 64) */
    int *node_of;               /* per rank: its node */
    uint64_t **spare;           /* bitsets of classes that emptied (zero) */
    int nspare, capspare;
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

uint32_t gs_shape_hash(int gpus, int milli, uint64_t allowed, int32_t cpu,
                       int32_t mem)
{
    return mix(mix(mix(mix(mix(2166136261u, (uint64_t)gpus), (uint64_t)milli),
                       allowed), (uint64_t)(uint32_t)cpu), (uint64_t)(uint32_t)mem);
}

int gs_shape_eq(const struct gs_shape *s, int gpus, int milli,
                uint64_t allowed, int32_t cpu, int32_t mem)
{
    return s->gpus == gpus && s->milli == milli && s->allowed == allowed &&
           s->cpu == cpu && s->mem == mem;
}

static int shape_find(const struct gs_frag *fr, int gpus, int milli,
                      uint64_t allowed, int32_t cpu, int32_t mem)
{
    if (fr->shcap == 0)
        return -1;
    uint32_t k = gs_shape_hash(gpus, milli, allowed, cpu, mem) &
                 (uint32_t)(fr->shcap - 1);
    while (fr->shash[k] >= 0) {
        if (gs_shape_eq(&fr->shapes[fr->shash[k]], gpus, milli, allowed, cpu,
                     mem))
            return fr->shash[k];
        k = (k + 1) & (uint32_t)(fr->shcap - 1);
    }
    return -1;
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
        return shape_find(fr, need->gpus, 1000, need->allowed,
                          need->cpu_milli, need->mem_mib);
    if (need->milli > 0)
        return shape_find(fr, 1, need->milli, need->allowed, need->cpu_milli,
                          need->mem_mib);
    return shape_find(fr, 0, 0, 0, need->cpu_milli, need->mem_mib);
}

/* --- the measure ---------------------------------------------------------------- */

double gs_frag_value_cpu(const struct gs_frag *fr, int pool, int32_t cpu,
                         const int *milli, int gpn)
{
    int32_t s[GS_MAX_GPN];
    for (int g = 0; g < gpn; g++) {         /* descending */
        int i = g;
        while (i > 0 && s[i - 1] < milli[g]) {
            s[i] = s[i - 1];
            i--;
        }
        s[i] = milli[g];
    }
    return gs_kp_mix_frag(fr->mix, fr->f->pools[pool].s.model, cpu, s, gpn);
}

double gs_frag_value(const struct gs_frag *fr, int pool, const int *milli,
                     int gpn)
{
    return gs_frag_value_cpu(fr, pool, INT32_MAX, milli, gpn);
}

/* --- classes -------------------------------------------------------------------------- */

/* A node state's hash: the key read as 64-bit words (n is even), mixed in
 * two independent lanes so the multiplies overlap, then a finalizer
 * (MurmurHash3's fmix64).  Every commit and release hashes a key, so it
 * must be cheap; equal keys are still compared in full. */
static uint32_t key_hash(int pool, const int32_t *k, int n)
{
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uint32_t)pool,
             b = 0xc2b2ae3d27d4eb4fULL;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t w0, w1;
        memcpy(&w0, &k[i], sizeof w0);
        memcpy(&w1, &k[i + 2], sizeof w1);
        a = (a ^ w0) * 0xff51afd7ed558ccdULL;
        b = (b ^ w1) * 0xc4ceb9fe1a85ec53ULL;
        a ^= a >> 29;
        b ^= b >> 31;
    }
    if (i < n) {
        uint64_t w;
        memcpy(&w, &k[i], sizeof w);
        a = (a ^ w) * 0xff51afd7ed558ccdULL;
    }
    uint64_t h = a ^ (b * 0x9e3779b97f4a7c15ULL);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

/* Free milli of GPU g that nobody borrows (fractional pools lend). */
static inline int32_t unlent(const struct gs_fleet *f, int g)
{
    int32_t v = f->free_milli[g] - f->lent[g];
    return v > 0 ? v : 0;
}

/* The node's state as a key: milli descending, each with its MiB, then its
 * free CPU, free memory and tags. */
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
    uint64_t tags = fr->affinity ? fr->aff[node].tags : 0;
    k[2 * gpn] = f->cpu_free[node];
    k[2 * gpn + 1] = f->mem_free[node];
    k[2 * gpn + 2] = (int32_t)(uint32_t)tags;
    k[2 * gpn + 3] = (int32_t)(uint32_t)(tags >> 32);
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

/* The class of state k of pool (KEY_LEN(gpn) values), made if new; -1 on
 * ENOMEM. */
static int class_of(struct gs_frag *fr, int pool, const int32_t *k, int gpn)
{
    if (fr->ncls * 2 >= fr->chcap && chash_grow(fr) < 0)
        return -1;
    uint32_t h = key_hash(pool, k, KEY_LEN(gpn));
    uint32_t i = h & (uint32_t)(fr->chcap - 1);
    while (fr->chash[i] >= 0) {
        const struct fclass *c = &fr->cls[fr->chash[i]];
        if (c->hash == h && c->pool == pool &&
            memcmp(&fr->keys[c->key], k, (size_t)KEY_LEN(gpn) * sizeof *k) ==
            0)
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
    if (fr->nkeys + KEY_LEN(gpn) > fr->capkeys) {
        long cap = fr->capkeys ? fr->capkeys * 2 : 4096;
        while (cap < fr->nkeys + KEY_LEN(gpn))
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
    memcpy(&fr->keys[c->key], k, (size_t)KEY_LEN(gpn) * sizeof *k);
    fr->nkeys += KEY_LEN(gpn);
    c->hash = h;
    c->live = -1;
    int mi[GS_MAX_GPN];
    for (int g = 0; g < gpn; g++)
        mi[g] = k[g];
    c->F = gs_frag_value_cpu(fr, pool, k[2 * gpn], mi, gpn);
    fr->chash[i] = id;
    return id;
}

/* Sift the slot at i up, then down: the moving slot is held aside and the
 * slots it passes move into the hole (the same layout as swapping, half
 * the writes). */
static void heap_up(struct gs_frag *fr, struct fclass *c, int i)
{
    struct hslot *h = c->heap, x = h[i];
    while (i > 0 && h[(i - 1) / 2].rank > x.rank) {
        h[i] = h[(i - 1) / 2];
        fr->node_pos[h[i].node] = i;
        i = (i - 1) / 2;
    }
    h[i] = x;
    fr->node_pos[x.node] = i;
}

static void heap_down(struct gs_frag *fr, struct fclass *c, int i)
{
    struct hslot *h = c->heap, x = h[i];
    int n = c->count;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = -1, mr = x.rank;
        if (l < n && h[l].rank < mr) {
            m = l;
            mr = h[l].rank;
        }
        if (r < n && h[r].rank < mr)
            m = r;
        if (m < 0)
            break;
        h[i] = h[m];
        fr->node_pos[h[i].node] = i;
        i = m;
    }
    h[i] = x;
    fr->node_pos[x.node] = i;
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
    int gpn = fr->f->pools[nd->pool].s.gpn;
    return nd->deadmask ? gpn - gs_popcount64(nd->deadmask) : gpn;
}

/* A zeroed bitset for a class's members by rank: a spare one, or new.
 * NULL on ENOMEM. */
static uint64_t *bits_take(struct gs_frag *fr)
{
    if (fr->nspare > 0)
        return fr->spare[--fr->nspare];
    return calloc((size_t)fr->nwords, sizeof(uint64_t));
}

/* Keep an emptied (all zero) bitset for the next class; 0 or GS_ENOMEM. */
static int bits_give(struct gs_frag *fr, uint64_t *b)
{
    if (fr->nspare == fr->capspare) {
        int cap = fr->capspare ? 2 * fr->capspare : 16;
        uint64_t **v = realloc(fr->spare, (size_t)cap * sizeof *v);
        if (v == NULL) {
            free(b);
            return GS_ENOMEM;
        }
        fr->spare = v;
        fr->capspare = cap;
    }
    fr->spare[fr->nspare++] = b;
    return 0;
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
    if (fr->byrank) {
        if (c->bits == NULL) {
            if ((c->bits = bits_take(fr)) == NULL)
                return GS_ENOMEM;
            c->low = fr->nwords;
        }
        int r = fr->rank[node], w = r >> 6;
        c->bits[w] |= 1ULL << (r & 63);
        if (w < c->low)
            c->low = w;
    } else {
        if (c->count == c->cap) {
            int cap = c->cap ? c->cap * 2 : 4;
            struct hslot *v = realloc(c->heap, (size_t)cap * sizeof *v);
            if (v == NULL)
                return GS_ENOMEM;
            c->heap = v;
            c->cap = cap;
        }
        c->heap[c->count] = (struct hslot){ fr->rank[node], node };
        heap_up(fr, c, c->count);
    }
    c->count++;
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
    c->count--;
    if (fr->byrank) {
        int r = fr->rank[node], w = r >> 6;
        c->bits[w] &= ~(1ULL << (r & 63));
        while (c->low < fr->nwords && c->bits[c->low] == 0)
            c->low++;
        if (c->count == 0) {
            int rc = bits_give(fr, c->bits);
            GS_OOM_IF(rc < 0);
            c->bits = NULL;
        }
    } else {
        int i = fr->node_pos[node];
        if (i != c->count) {
            /* the last slot fills the gap and finds its place */
            c->heap[i] = c->heap[c->count];
            fr->node_pos[c->heap[i].node] = i;
            heap_down(fr, c, i);
            heap_up(fr, c, i);
        }
    }
    if (c->count == 0)
        live_remove(fr, id);
}

/* --- transitions ------------------------------------------------------------------ */

/* A GPU's (free milli not lent, free MiB) pair in one word, for the
 * remembered state: milli in the top 11 bits, MiB in the low 21 (2 TiB);
 * PACK_NONE for a pair that does not fit, which no packed pair equals. */
#define PACK_MIB_BITS 21
#define PACK_NONE 0xffffffffu

static inline uint32_t pack(int32_t milli, int32_t mib)
{
    if (mib < 0 || mib >= (1 << PACK_MIB_BITS) || milli > 1000)
        return PACK_NONE;
    return (uint32_t)milli << PACK_MIB_BITS | (uint32_t)mib;
}

/* The class of node's state from scratch (its key built and looked up),
 * its GPUs' pairs remembered; -1 on ENOMEM. */
static __attribute__((noinline)) int classify(struct gs_frag *fr, int node)
{
    const struct gs_fleet *f = fr->f;
    const struct gs_node *nd = &f->nodes[node];
    int gpn = f->pools[nd->pool].s.gpn;
    node_key(fr, node, fr->scratch);
    int id = class_of(fr, nd->pool, fr->scratch, gpn);
    for (int g = nd->gpu0; g < nd->gpu0 + gpn; g++)
        fr->shadow[g] = pack(unlent(f, g), f->free_mib[g]);
    return id;
}

static uint32_t trans_hash(const struct trans *t)
{
    uint64_t a = ((uint64_t)(uint32_t)t->from | (uint64_t)(uint32_t)t->cpu << 32) *
                 0xff51afd7ed558ccdULL,
             b = ((uint64_t)(uint32_t)t->mem | (uint64_t)(uint32_t)t->k << 32) *
                 0xc4ceb9fe1a85ec53ULL;
    a ^= (uint64_t)(uint32_t)t->om | (uint64_t)(uint32_t)t->ob << 32;
    b ^= (uint64_t)(uint32_t)t->nm | (uint64_t)(uint32_t)t->nb << 32;
    a = (a ^ (a >> 29)) * 0x9e3779b97f4a7c15ULL;
    b = (b ^ (b >> 31) ^ ((uint64_t)t->tlo | (uint64_t)t->thi << 32)) *
        0xff51afd7ed558ccdULL;
    uint64_t h = a ^ b;
    return (uint32_t)(h ^ (h >> 32));
}

/* The change of node (in class from) since it was classed, as a
 * transition key in *t (to unset), the remembered pairs brought up to date
 * on the way; 0, or -1 when its changed GPUs did not all go from one pair
 * to one pair (or a pair does not pack). */
static int trans_key(struct gs_frag *fr, int node, int from, struct trans *t)
{
    const struct gs_fleet *f = fr->f;
    int gpn = fr->cls[from].gpn, g0 = f->nodes[node].gpu0, bad = 0, k = 0;
    uint32_t *sh = &fr->shadow[g0], was = 0, now = 0;
    /* a pool that never lent has every lent at 0: no need to read them */
    int lends = fr->lends[fr->cls[from].pool];
    for (int g = 0; g < gpn; g++) {
        int32_t m = f->free_milli[g0 + g] - (lends ? f->lent[g0 + g] : 0);
        uint32_t v = pack(m > 0 ? m : 0, f->free_mib[g0 + g]);
        if (v == sh[g] && v != PACK_NONE)
            continue;
        if (k == 0) {
            was = sh[g];
            now = v;
        }
        bad |= v == PACK_NONE || sh[g] == PACK_NONE || sh[g] != was ||
               v != now;
        k++;
        sh[g] = v;
    }
    if (bad)
        return -1;
    uint64_t tags = fr->affinity ? fr->aff[node].tags : 0;
    const uint32_t m = (1u << PACK_MIB_BITS) - 1;
    *t = (struct trans){ from, -1, k, (int32_t)(was >> PACK_MIB_BITS),
                         (int32_t)(was & m), (int32_t)(now >> PACK_MIB_BITS),
                         (int32_t)(now & m), f->cpu_free[node],
                         f->mem_free[node], (uint32_t)tags,
                         (uint32_t)(tags >> 32), 0 };
    t->hash = trans_hash(t);
    return 0;
}

static int trans_eq(const struct trans *a, const struct trans *b)
{
    return a->hash == b->hash && a->from == b->from && a->k == b->k &&
           a->om == b->om && a->ob == b->ob && a->nm == b->nm &&
           a->nb == b->nb && a->cpu == b->cpu && a->mem == b->mem &&
           a->tlo == b->tlo && a->thi == b->thi;
}

/* The new class of node, which was of class from and stays open: through
 * the transition cache when the change is one it can hold, else from
 * scratch (and remembered).  -1 on ENOMEM. */
static int reclassify(struct gs_frag *fr, int node, int from)
{
    struct trans t;
    if (trans_key(fr, node, from, &t) < 0) {
        fr->trans_misses++;
        return classify(fr, node);
    }
    struct trans *e = &fr->trans[t.hash & (TRANS_SLOTS - 1)];
    if (trans_eq(e, &t)) {
        fr->trans_hits++;
        return e->to;
    }
    fr->trans_misses++;
    int id = classify(fr, node);
    if (id >= 0) {
        t.to = id;
        *e = t;
    }
    return id;
}

/* --- affinity ---------------------------------------------------------------------- */

static __attribute__((noinline)) void
affinity_change(struct gs_frag *fr, int node, const struct gs_need *need,
                int sign)
{
    struct naff *a = &fr->aff[node];
    int g = need->gpus > 0 ? gs_kp_group(need->gpus, 1000)
                           : gs_kp_group(need->milli > 0, need->milli);
    if (g < 0)
        return;
    a->cnt[g] += sign;
    if (a->cnt[g] < 0)
        a->cnt[g] = 0;
    if (a->cnt[g] > 0)
        a->tags |= 1ULL << g;
    else
        a->tags &= ~(1ULL << g);
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
        int id = classify(fr, node);
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
    if (!fr->aff)
        return GS_ENOMEM;
    fr->affinity = 1;
    return 0;
}

int gs_frag_track_first(struct gs_frag *fr)
{
    int nn = fr->f->nnodes;
    if (fr->members || fr->byrank || nn > BYRANK_MAX_NODES)
        return 0;
    fr->nwords = (nn + 63) / 64 > 0 ? (nn + 63) / 64 : 1;
    fr->node_of = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *fr->node_of);
    if (fr->node_of == NULL)
        return GS_ENOMEM;
    for (int i = 0; i < nn; i++)
        fr->node_of[fr->rank[i]] = i;
    fr->byrank = 1;
    return 0;
}

int gs_frag_set_order(struct gs_frag *fr, const int *rank)
{
    for (int i = 0; i < fr->f->nnodes; i++)
        fr->rank[i] = rank[i];
    if (fr->byrank) {
        for (int i = 0; i < fr->f->nnodes; i++)
            fr->node_of[rank[i]] = i;
        for (int c = 0; c < fr->ncls; c++)
            if (fr->cls[c].bits) {
                memset(fr->cls[c].bits, 0,
                       (size_t)fr->nwords * sizeof(uint64_t));
                fr->cls[c].low = fr->nwords;
            }
        for (int node = 0; node < fr->f->nnodes; node++) {
            if (fr->node_cls[node] < 0 || !fr->members)
                continue;
            struct fclass *k = &fr->cls[fr->node_cls[node]];
            int w = rank[node] >> 6;
            k->bits[w] |= 1ULL << (rank[node] & 63);
            if (w < k->low)
                k->low = w;
        }
        return 0;
    }
    for (int c = 0; c < fr->ncls; c++) {
        struct fclass *k = &fr->cls[c];
        for (int i = 0; i < k->count; i++)
            k->heap[i].rank = rank[k->heap[i].node];
        for (int i = k->count / 2 - 1; i >= 0; i--)
            heap_down(fr, k, i);
        for (int i = 0; i < k->count; i++)
            fr->node_pos[k->heap[i].node] = i;
    }
    return 0;
}

int gs_frag_rank(const struct gs_frag *fr, int node)
{
    return fr->rank[node];
}

/* --- the watcher -------------------------------------------------------------------------- */

/* Lending changes come as changes without a job (sign 0), and only
 * through them: commits and releases leave it as it was. */
static GS_COLD void lend_seen(struct gs_frag *fr, const struct gs_fleet *f,
                              const struct gs_node *nd)
{
    for (int g = nd->gpu0; g < nd->gpu0 + f->pools[nd->pool].s.gpn; g++)
        fr->lends[nd->pool] |= f->lent[g] != 0;
}

static void on_node(void *arg, const struct gs_fleet *f, int node,
                    const struct gs_need *need, int sign)
{
    struct gs_frag *fr = arg;
    const struct gs_node *nd = &f->nodes[node];
    if (!fr->classed[nd->pool])
        return;
    if (sign == 0 && !fr->lends[nd->pool])
        lend_seen(fr, f, nd);
    if (fr->affinity && need && !gs_need_host_only(need))
        affinity_change(fr, node, need, sign);     /* CPU-only jobs have
                                                      no GPU affinity */
    int from = fr->node_cls[node];
    if (nd->up && !nd->cordon) {
        int id = from >= 0 && !fr->trans_off ? reclassify(fr, node, from)
                                              : classify(fr, node);
        GS_OOM_IF(id < 0);              /* out of memory: no way to go on */
        if (from >= 0)
            member_remove(fr, node);
        int rc = member_add(fr, id, node);
        GS_OOM_IF(rc < 0);
    } else if (from >= 0) {
        member_remove(fr, node);
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
    fr->lends = calloc(np, 1);
    fr->node_cls = malloc(nn * sizeof *fr->node_cls);
    fr->node_pos = calloc(nn, sizeof *fr->node_pos);
    fr->node_gpus = calloc(nn, sizeof *fr->node_gpus);
    fr->live = calloc(np, sizeof *fr->live);
    fr->nlive = calloc(np, sizeof *fr->nlive);
    fr->caplive = calloc(np, sizeof *fr->caplive);
    fr->scratch = malloc(KEY_LEN(GS_MAX_GPN) * sizeof *fr->scratch);
    fr->rank = malloc(nn * sizeof *fr->rank);
    fr->shadow = malloc((size_t)(f->ngpus > 0 ? f->ngpus : 1) *
                        sizeof *fr->shadow);
    /* zeroed whole: trans_eq reads an empty slot's hash before its from */
    fr->trans = calloc(TRANS_SLOTS, sizeof *fr->trans);
    if (!fr->shadow || !fr->trans)
        goto nomem;
    for (int i = 0; i < TRANS_SLOTS; i++)
        fr->trans[i].from = -1;
    if (!fr->shapes || !fr->classed || !fr->lends || !fr->node_cls || !fr->node_pos ||
        !fr->node_gpus || !fr->rank ||
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
        uint32_t k = gs_shape_hash(shapes[i].gpus, shapes[i].milli,
                                shapes[i].allowed, shapes[i].cpu,
                                shapes[i].mem) & (uint32_t)(fr->shcap - 1);
        while (fr->shash[k] >= 0)
            k = (k + 1) & (uint32_t)(fr->shcap - 1);
        fr->shash[k] = i;
    }
    {
        /* the shapes as typical pods (kplace.h) for F */
        struct gs_kp_pod *typ = calloc((size_t)(n > 0 ? n : 1), sizeof *typ);
        double *pf = malloc((size_t)(n > 0 ? n : 1) * sizeof *pf);
        int rc = typ && pf ? 0 : GS_ENOMEM;
        for (int i = 0; i < n && rc == 0; i++) {
            typ[i].cpu = shapes[i].cpu;
            typ[i].gpus = (int16_t)shapes[i].gpus;
            typ[i].milli = (int16_t)(shapes[i].gpus > 0 ? shapes[i].milli : 0);
            typ[i].allowed = shapes[i].allowed;
            pf[i] = shapes[i].p;
        }
        if (rc == 0)
            rc = gs_kp_mix_new(typ, pf, n, &fr->mix);
        free(typ);
        free(pf);
        if (rc < 0)
            goto nomem;
    }
    for (int i = 0; i < f->nnodes; i++)
        fr->rank[i] = i;
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
    for (int c = 0; c < fr->ncls; c++) {
        free(fr->cls[c].heap);
        free(fr->cls[c].bits);
    }
    for (int i = 0; i < fr->nspare; i++)
        free(fr->spare[i]);
    free(fr->spare);
    free(fr->node_of);
    for (int p = 0; fr->live && p < fr->f->npools; p++)
        free(fr->live[p]);
    free(fr->aff);
    gs_kp_mix_free(fr->mix);
    free(fr->rank);
    free(fr->shadow);
    free(fr->trans);
    free(fr->shapes);
    free(fr->shash);
    free(fr->classed);
    free(fr->lends);
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
    const int32_t *k = &fr->keys[c->key];
    o->cpu = k[2 * c->gpn];
    o->mem = k[2 * c->gpn + 1];
    o->tags = (uint64_t)(uint32_t)k[2 * c->gpn + 2] |
              (uint64_t)(uint32_t)k[2 * c->gpn + 3] << 32;
    o->gpu_mib = (int32_t)llround(
        fr->f->cat->m[fr->f->pools[c->pool].s.model].mem_gb * 1024.0);
}

int gs_frag_node_class(const struct gs_frag *fr, int node)
{
    return fr->node_cls[node];
}

int gs_frag_member(const struct gs_frag *fr, int id, int i)
{
    const struct fclass *c = &fr->cls[id];
    if (!fr->byrank)
        return c->heap[i].node;
    for (int w = c->low; w < fr->nwords; w++) {
        int n = gs_popcount64(c->bits[w]);
        if (i >= n) {
            i -= n;
            continue;
        }
        uint64_t b = c->bits[w];
        while (i-- > 0)
            b &= b - 1;
        return fr->node_of[(w << 6) + __builtin_ctzll(b)];
    }
    return -1;
}

int gs_frag_member_in(const struct gs_frag *fr, int id, int lo, int hi)
{
    const struct fclass *c = &fr->cls[id];
    if (c->count == 0)
        return -1;
    const struct gs_pool *p = &fr->f->pools[c->pool];
    if (hi - lo < c->count) {
        /* A range narrower than the class (a partition's few nodes):
         * its nodes' classes tell the members, the least rank wins --
         * the answer of either search below. */
        int best = -1;
        for (int n = lo < p->node0 ? p->node0 : lo; n < hi; n++)
            if (fr->node_cls[n] == id &&
                (best < 0 || fr->rank[n] < fr->rank[best]))
                best = n;
        return best;
    }
    if (fr->byrank) {
        /* in rank order: the first member in range is the answer */
        for (int w = c->low; w < fr->nwords; w++)
            for (uint64_t b = c->bits[w]; b; b &= b - 1) {
                int n = fr->node_of[(w << 6) + __builtin_ctzll(b)];
                if (n >= lo && n < hi)
                    return n;
            }
        return -1;
    }
    if (lo <= p->node0 && hi >= p->node0 + p->s.nodes)
        return c->heap[0].node;
    int best = -1, brank = 0;
    for (int i = 0; i < c->count; i++) {
        int n = c->heap[i].node;
        if (n >= lo && n < hi && (best < 0 || c->heap[i].rank < brank)) {
            best = n;
            brank = c->heap[i].rank;
        }
    }
    return best;
}

int gs_frag_member_in_any(const struct gs_frag *fr, int id, const int *lo,
                          const int *hi, int n)
{
    const struct fclass *c = &fr->cls[id];
    if (c->count == 0)
        return -1;
    long span = 0;
    for (int k = 0; k < n; k++)
        span += hi[k] - lo[k];
    if (fr->byrank && span >= c->count) {
        for (int w = c->low; w < fr->nwords; w++)
            for (uint64_t b = c->bits[w]; b; b &= b - 1) {
                int node = fr->node_of[(w << 6) + __builtin_ctzll(b)];
                for (int k = 0; k < n; k++)
                    if (node >= lo[k] && node < hi[k])
                        return node;
            }
        return -1;
    }
    int best = -1;
    for (int k = 0; k < n; k++) {
        int m = gs_frag_member_in(fr, id, lo[k], hi[k]);
        if (m >= 0 && (best < 0 || fr->rank[m] < fr->rank[best]))
            best = m;
    }
    return best;
}

/* --- checking ------------------------------------------------------------------------ */

void gs_frag_transitions(const struct gs_frag *fr, uint64_t *hits,
                         uint64_t *misses)
{
    *hits = fr->trans_hits;
    *misses = fr->trans_misses;
}

void gs_frag_set_transitions(struct gs_frag *fr, int on)
{
    fr->trans_off = !on;
}

int gs_frag_check(const struct gs_frag *fr)
{
    const struct gs_fleet *f = fr->f;
    int32_t k[KEY_LEN(GS_MAX_GPN)], s[KEY_LEN(GS_MAX_GPN)];
    int members = 0;
    for (int node = 0; node < f->nnodes; node++) {
        const struct gs_node *nd = &f->nodes[node];
        int id = fr->node_cls[node];
        if (!fr->classed[nd->pool] || !nd->up || nd->cordon) {
            if (id != -1)
                return node + 1;
            continue;
        }
        if (id < 0 || id >= fr->ncls)
            return node + 1;
        const struct fclass *c = &fr->cls[id];
        int gpn = f->pools[nd->pool].s.gpn;
        node_key(fr, node, k);
        if (c->pool != nd->pool || c->gpn != gpn ||
            memcmp(&fr->keys[c->key], k, (size_t)KEY_LEN(gpn) * sizeof *k))
            return node + 1;
        /* the remembered pairs, sorted, are the class's (a pair that does
         * not pack is never trusted) */
        int packed = 1;
        for (int g = 0; g < gpn; g++)
            packed &= fr->shadow[nd->gpu0 + g] != PACK_NONE;
        for (int g = 0; packed && g < gpn; g++) {
            uint32_t v = fr->shadow[nd->gpu0 + g];
            int i = g;
            int32_t a = (int32_t)(v >> PACK_MIB_BITS),
                    b = (int32_t)(v & ((1u << PACK_MIB_BITS) - 1));
            while (i > 0 && (s[i - 1] < a || (s[i - 1] == a &&
                                              s[gpn + i - 1] < b))) {
                s[i] = s[i - 1];
                s[gpn + i] = s[gpn + i - 1];
                i--;
            }
            s[i] = a;
            s[gpn + i] = b;
        }
        if (packed && memcmp(s, k, 2 * (size_t)gpn * sizeof *k))
            return node + 1;
        if (fr->members && fr->byrank) {
            int r = fr->rank[node];
            if (c->bits == NULL || !(c->bits[r >> 6] >> (r & 63) & 1) ||
                fr->node_of[r] != node)
                return node + 1;
            members++;
        } else if (fr->members) {
            int pos = fr->node_pos[node];
            if (pos < 0 || pos >= c->count || c->heap[pos].node != node ||
                c->heap[pos].rank != fr->rank[node])
                return node + 1;
            members++;
        }
    }
    if (!fr->members)
        return 0;
    int inheaps = 0;
    for (int id = 0; id < fr->ncls; id++) {
        const struct fclass *c = &fr->cls[id];
        if (fr->byrank) {
            int n = 0, low = fr->nwords;
            for (int w = 0; c->bits && w < fr->nwords; w++) {
                n += gs_popcount64(c->bits[w]);
                if (c->bits[w] && low == fr->nwords)
                    low = w;
            }
            if (n != c->count || (c->count > 0 && c->low != low) ||
                (c->count == 0) != (c->bits == NULL))
                return -1;
        }
        for (int i = 1; !fr->byrank && i < c->count; i++)
            if (c->heap[(i - 1) / 2].rank > c->heap[i].rank)
                return -1;
        if ((c->live >= 0) != (c->count > 0) ||
            (c->live >= 0 && fr->live[c->pool][c->live] != id))
            return -1;
        inheaps += c->count;
    }
    int nlive = 0;
    for (int p = 0; p < f->npools; p++)
        nlive += fr->nlive[p];
    int want = 0;
    for (int id = 0; id < fr->ncls; id++)
        want += fr->cls[id].count > 0;
    return inheaps == members && nlive == want ? 0 : -1;
}
