/* heap.c -- 4-ary implicit min-heap with cached keys and lazy removal.
 *
 * Layout: children of slot i are 4i+1 .. 4i+4, parent is (i-1)/4.  A 4-ary
 * heap halves the depth of a binary one and its four children share a cache
 * line or two, which is why libev and most discrete-event engines use it.
 * Invariants: key(parent(i)) <= key(i) for every slot i > 0, keys compared
 * by time then seq; an entry is live iff its seq equals its node's seq;
 * live counts the live entries; the entry at the top (if any) is live. */
#include "heap.h"
#include "err.h"

#include <stdlib.h>

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
}

void gs_heap_clear(struct gs_heap *h)
{
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

int gs_heap_update(struct gs_heap *h, struct gs_hnode *node, gs_time time)
{
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
    node->seq = 0;
    h->live--;
    purge_top(h);
}

struct gs_hnode *gs_heap_pop(struct gs_heap *h)
{
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
