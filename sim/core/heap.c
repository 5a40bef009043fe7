/* heap.c -- 4-ary implicit min-heap with cached keys and lazy removal.
 *
 * Layout: children of slot i are 4i+1 .. 4i+4, parent is (i-1)/4.  A 4-ary
 * heap halves the depth of a binary one and its four children share a cache
 * line or two, which is why libev and most discrete-event engines use it.
 * Invariants: key(parent(i)) <= key(i) for every slot i > 0, keys compared
 * by time then seq; an entry is live iff its seq equals its node's seq;
 * live counts the live entries; the entry at the top (if any) is live.
 *
 * The staging area (heap.h): slot k of chunk number c holds the entry of
 * sequence number s0 + c * GS_HSTAGE_CHUNK + k, or is dead (seq 0); the
 * deque ck holds chunk numbers first .. first + nck - 1 (NULL: the chunk is
 * gone, its entries dead or moved into the heap).  A node is staged iff its
 * seq falls in a chunk that is still there; that chunk's slot then has the
 * same seq.  Only complete chunks (every slot given out) are freed, so the
 * chunk being filled is always there.  cl counts each chunk's live slots,
 * st->live all of them, and h->live includes them. */
#include "heap.h"
#include "../base/err.h"

#include <stdlib.h>
#include <string.h>

#define CH GS_HSTAGE_CHUNK
/* A complete chunk left with this many live entries or fewer moves them
 * into the heap: the staging area then holds at most CH / SPARSE slots per
 * live staged entry, plus the chunk being filled. */
#define SPARSE (CH / 8)

struct gs_hstage {
    struct gs_hslot **ck;       /* chunks, by number - first */
    int *cl;                    /* their live slots */
    long first, nck, cap;
    long nalloc;                /* chunks allocated */
    uint64_t s0, next;          /* seq of chunk 0's slot 0; the next seq */
    size_t live;                /* live staged entries */
    struct gs_hslot *spare;     /* a freed chunk kept for the next */
};

/* (time, seq) as one unsigned 128-bit number: time is offset by 2^63 so
 * that signed order becomes unsigned order.  One compare, no branches. */
static inline unsigned __int128 key(const struct gs_hslot *x)
{
    return ((unsigned __int128)((uint64_t)x->time ^ (1ULL << 63)) << 64) |
           x->seq;
}

static inline int slot_less(const struct gs_hslot *x, const struct gs_hslot *y)
{
    return key(x) < key(y);
}

static inline int stale(const struct gs_hslot *s)
{
    return s->node->seq != s->seq;
}

void gs_heap_init(struct gs_heap *h)
{
    h->a = NULL;
    h->n = h->cap = h->live = 0;
    h->seq = 0;
    h->st = NULL;
}

static void stage_free(struct gs_heap *h)
{
    struct gs_hstage *st = h->st;
    if (st == NULL)
        return;
    for (long c = 0; c < st->nck; c++) {
        if (st->ck[c] == NULL)
            continue;
        for (int k = 0; k < CH && st->cl[c] > 0; k++)   /* slots past the
                                    last given out are not initialized */
            if (st->ck[c][k].seq != 0) {
                st->ck[c][k].node->seq = 0;
                st->cl[c]--;
            }
        free(st->ck[c]);
    }
    free(st->ck);
    free(st->cl);
    free(st->spare);
    free(st);
    h->st = NULL;
}

void gs_heap_clear(struct gs_heap *h)
{
    stage_free(h);
    for (size_t i = 0; i < h->n; i++)
        if (!stale(&h->a[i]))
            h->a[i].node->seq = 0;
    free(h->a);
    gs_heap_init(h);
}

static void sift_up(struct gs_hslot *a, size_t i)
{
    struct gs_hslot s = a[i];
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!slot_less(&s, &a[p]))
            break;
        a[i] = a[p];
        i = p;
    }
    a[i] = s;
}

/* Index of the least of the children c .. min(c+4, n)-1 (c < n). */
static inline size_t min_child(const struct gs_hslot *a, size_t c, size_t n)
{
    if (c + 4 <= n) {           /* the common case: four children */
        size_t x = key(&a[c + 1]) < key(&a[c]) ? c + 1 : c;
        size_t y = key(&a[c + 3]) < key(&a[c + 2]) ? c + 3 : c + 2;
        return key(&a[y]) < key(&a[x]) ? y : x;
    }
    size_t best = c;
    for (size_t j = c + 1; j < n; j++)
        if (key(&a[j]) < key(&a[best]))
            best = j;
    return best;
}

static void sift_down(struct gs_hslot *a, size_t n, size_t i)
{
    struct gs_hslot s = a[i];
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = min_child(a, c, n);
        if (!slot_less(&a[best], &s))
            break;
        a[i] = a[best];
        i = best;
    }
    a[i] = s;
}

/* Drop the top entry (live or stale).  Bottom-up: walk the hole down to a
 * leaf along the least children, then sift the last entry up from there.
 * The last entry almost always belongs near the bottom, so this saves the
 * compare against it at every level (Wegener's bottom-up heapsort). */
static void drop_top(struct gs_heap *h)
{
    struct gs_hslot *a = h->a;
    size_t n = --h->n, i = 0;
    if (n == 0)
        return;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = min_child(a, c, n);
        a[i] = a[best];
        i = best;
    }
    a[i] = a[n];
    sift_up(a, i);
}

/* Restore "the top is live". */
static void purge_top(struct gs_heap *h)
{
    while (h->n > 0 && stale(&h->a[0]))
        drop_top(h);
}

/* Remove every stale entry and rebuild (Floyd's heapify, O(n)). */
static void compact(struct gs_heap *h)
{
    size_t w = 0;
    for (size_t i = 0; i < h->n; i++)
        if (!stale(&h->a[i]))
            h->a[w++] = h->a[i];
    h->n = w;
    if (w > 1)
        for (size_t i = (w - 2) / 4 + 1; i-- > 0;)
            sift_down(h->a, w, i);
}

/* Live entries in the heap proper. */
static inline size_t heap_live(const struct gs_heap *h)
{
    return h->live - (h->st ? h->st->live : 0);
}

/* Put entry s into the heap proper.  Aborts when out of memory (entries
 * moved out of the staging area have nowhere else to go). */
static void heap_insert(struct gs_heap *h, const struct gs_hslot *s)
{
    if (h->n == h->cap) {
        if (h->n > 2 * heap_live(h) + 64) {
            compact(h);
        } else {
            size_t cap = h->cap ? h->cap * 2 : 64;
            struct gs_hslot *a = realloc(h->a, cap * sizeof *a);
            GS_OOM_IF(a == NULL);
            h->a = a;
            h->cap = cap;
        }
    }
    h->a[h->n] = *s;
    sift_up(h->a, h->n++);
}

/* --- the staging area ----------------------------------------------------- */

int gs_heap_stage(struct gs_heap *h)
{
    if (h->st)
        return 0;
    h->st = calloc(1, sizeof *h->st);
    if (h->st == NULL)
        return GS_ENOMEM;
    h->st->s0 = h->st->next = h->seq + 1;
    return 0;
}

size_t gs_heap_staged(const struct gs_heap *h, size_t *slots)
{
    if (slots)
        *slots = h->st ? (size_t)h->st->nalloc * CH : 0;
    return h->st ? h->st->live : 0;
}

/* Chunk at deque position c has given out all its slots. */
static inline int complete(const struct gs_hstage *st, long c)
{
    return (uint64_t)(st->first + c + 1) * CH <= st->next - st->s0;
}

/* Chunk at position c goes: its live entries into the heap. */
static void chunk_drain(struct gs_heap *h, long c)
{
    struct gs_hstage *st = h->st;
    struct gs_hslot *a = st->ck[c];
    for (int k = 0; k < CH && st->cl[c] > 0; k++)
        if (a[k].seq != 0) {
            heap_insert(h, &a[k]);
            st->cl[c]--;
            st->live--;
        }
    if (st->spare == NULL)
        st->spare = a;
    else
        free(a);
    st->ck[c] = NULL;
    st->nalloc--;
}

/* The same, then the deque's front loses its gone chunks. */
static void chunk_out(struct gs_heap *h, long c)
{
    struct gs_hstage *st = h->st;
    chunk_drain(h, c);
    long k = 0;
    while (k < st->nck && st->ck[k] == NULL)
        k++;
    if (k > 0) {
        memmove(st->ck, st->ck + k, (size_t)(st->nck - k) * sizeof *st->ck);
        memmove(st->cl, st->cl + k, (size_t)(st->nck - k) * sizeof *st->cl);
        st->nck -= k;
        st->first += k;
    }
}

/* Everything staged goes into the heap; the area starts afresh with the
 * sequence number after h->seq. */
static void stage_flush(struct gs_heap *h)
{
    struct gs_hstage *st = h->st;
    for (long c = 0; c < st->nck; c++)
        if (st->ck[c])
            chunk_drain(h, c);
    st->nck = 0;
    st->first = 0;
    st->s0 = st->next = h->seq + 1;
}

void gs_heap_flush(const struct gs_heap *ch)
{
    struct gs_heap *h = (struct gs_heap *)ch;     /* same entries, same order */
    if (h->st && h->st->live > 0)
        stage_flush(h);
}

/* The slot of node's entry if it is staged, else NULL (*pos: its chunk). */
static inline struct gs_hslot *staged_slot(const struct gs_hstage *st,
                                           const struct gs_hnode *node,
                                           long *pos)
{
    if (node->seq < st->s0 || node->seq >= st->next)
        return NULL;
    uint64_t i = node->seq - st->s0;
    long c = (long)(i / CH) - st->first;
    if (c < 0 || c >= st->nck || st->ck[c] == NULL)
        return NULL;
    *pos = c;
    return &st->ck[c][i % CH];
}

/* The staged entry s of chunk c is gone. */
static void stage_kill(struct gs_heap *h, struct gs_hslot *s, long c)
{
    struct gs_hstage *st = h->st;
    GS_ASSERT(s->seq == s->node->seq);
    s->seq = 0;
    st->cl[c]--;
    st->live--;
    if (complete(st, c) && st->cl[c] <= SPARSE)
        chunk_out(h, c);
}

/* Make sure the chunk for the next staged entry is there.  0 or
 * GS_ENOMEM (nothing changed). */
static int stage_reserve(struct gs_heap *h)
{
    struct gs_hstage *st = h->st;
    long c = (long)((st->next - st->s0) / CH) - st->first;
    if (c < st->nck)
        return 0;
    if (st->nck == st->cap) {
        long cap = st->cap ? st->cap * 2 : 16;
        struct gs_hslot **ck = realloc(st->ck, (size_t)cap * sizeof *ck);
        if (ck == NULL)
            return GS_ENOMEM;
        st->ck = ck;
        int *cl = realloc(st->cl, (size_t)cap * sizeof *cl);
        if (cl == NULL)
            return GS_ENOMEM;
        st->cl = cl;
        st->cap = cap;
    }
    struct gs_hslot *a = st->spare;
    st->spare = NULL;
    if (a == NULL && (a = malloc(CH * sizeof *a)) == NULL)
        return GS_ENOMEM;
    st->ck[st->nck] = a;
    st->cl[st->nck++] = 0;
    st->nalloc++;
    /* The chunk before is complete now: few live entries move on.  And a
     * chunk kept by a few long-lived entries at the front would make the
     * deque grow with every chunk after it: those move on too. */
    if (st->nck > 1 && st->ck[st->nck - 2] && st->cl[st->nck - 2] <= SPARSE)
        chunk_out(h, st->nck - 2);
    if (st->nck > 64 + 4 * st->nalloc)
        chunk_out(h, 0);
    return 0;
}

/* gs_heap_update on a staged heap: the new entry is staged. */
static int staged_update(struct gs_heap *h, struct gs_hnode *node,
                         gs_time time)
{
    struct gs_hstage *st = h->st;
    if (h->seq + 1 != st->next)         /* the counter was moved */
        stage_flush(h);
    int rc = stage_reserve(h);
    if (rc < 0)
        return rc;
    int was = node->seq != 0;
    long c;
    struct gs_hslot *s;
    if (!was)
        h->live++;
    else if ((s = staged_slot(st, node, &c)) != NULL)
        stage_kill(h, s, c);
    uint64_t i = st->next - st->s0;
    c = (long)(i / CH) - st->first;
    node->time = time;
    node->seq = ++h->seq;
    st->ck[c][i % CH] = (struct gs_hslot){ time, node->seq, node };
    st->cl[c]++;
    st->live++;
    st->next++;
    if (was)
        purge_top(h);       /* its old entry may have been the top */
    return 0;
}

/* --- operations ------------------------------------------------------------ */

int gs_heap_update(struct gs_heap *h, struct gs_hnode *node, gs_time time)
{
    if (h->st)
        return staged_update(h, node, time);
    if (h->n == h->cap) {
        if (h->n > 2 * h->live + 64) {
            compact(h);
        } else {
            size_t cap = h->cap ? h->cap * 2 : 64;
            struct gs_hslot *a = realloc(h->a, cap * sizeof *a);
            if (a == NULL)
                return GS_ENOMEM;
            h->a = a;
            h->cap = cap;
        }
    }
    if (node->seq == 0)
        h->live++;
    node->time = time;
    node->seq = ++h->seq;
    h->a[h->n] = (struct gs_hslot){ time, node->seq, node };
    sift_up(h->a, h->n++);
    /* A re-keyed node's old entry may have been the top. */
    purge_top(h);
    return 0;
}

void gs_heap_remove(struct gs_heap *h, struct gs_hnode *node)
{
    if (node->seq == 0)
        return;
    long c;
    struct gs_hslot *s;
    if (h->st && (s = staged_slot(h->st, node, &c)) != NULL) {
        h->live--;
        stage_kill(h, s, c);
        node->seq = 0;
        return;
    }
    node->seq = 0;
    h->live--;
    purge_top(h);
}

struct gs_hnode *gs_heap_pop(struct gs_heap *h)
{
    gs_heap_flush(h);
    if (h->n == 0)
        return NULL;
    struct gs_hnode *top = h->a[0].node;
    top->seq = 0;
    h->live--;
    drop_top(h);
    purge_top(h);
    return top;
}

/* Best-first walk: a small auxiliary binary heap of slot indices, ordered by
 * the slots' keys, starts with the root; each visited slot pushes its
 * children.  The k-th slot taken is the k-th smallest key. */
int gs_heap_walk(const struct gs_heap *h,
                 int (*visit)(struct gs_hnode *node, void *arg), void *arg)
{
    gs_heap_flush(h);
    if (h->n == 0)
        return 0;
    size_t cap = 64, n = 0;
    size_t *q = malloc(cap * sizeof *q);
    if (q == NULL)
        return GS_ENOMEM;
    q[n++] = 0;
    int rc = 0;
    while (n > 0) {
        size_t top = q[0];
        size_t last = q[--n], i = 0;
        while (n > 0) {
            size_t c = 2 * i + 1;
            if (c >= n)
                break;
            if (c + 1 < n && slot_less(&h->a[q[c + 1]], &h->a[q[c]]))
                c++;
            if (!slot_less(&h->a[q[c]], &h->a[last]))
                break;
            q[i] = q[c];
            i = c;
        }
        if (n > 0)
            q[i] = last;
        if (!stale(&h->a[top]) && visit(h->a[top].node, arg))
            break;
        for (size_t c = 4 * top + 1; c <= 4 * top + 4 && c < h->n; c++) {
            if (n == cap) {
                size_t *nq = realloc(q, 2 * cap * sizeof *q);
                if (nq == NULL) {
                    rc = GS_ENOMEM;
                    goto out;
                }
                q = nq;
                cap *= 2;
            }
            size_t j = n++;
            while (j > 0 && slot_less(&h->a[c], &h->a[q[(j - 1) / 2]])) {
                q[j] = q[(j - 1) / 2];
                j = (j - 1) / 2;
            }
            q[j] = c;
        }
    }
out:
    free(q);
    return rc;
}
