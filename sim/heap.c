/* heap.c -- 4-ary implicit min-heap with cached keys and intrusive handles.
 *
 * Layout: children of slot i are 4i+1 .. 4i+4, parent is (i-1)/4.  A 4-ary
 * heap halves the depth of a binary one and its four children share a cache
 * line or two, which is why libev and most discrete-event engines use it.
 * Invariant: for every slot i > 0, key(parent(i)) <= key(i), where keys are
 * compared by time, then seq; and a[i].node->idx == i for every slot. */
#include "heap.h"
#include "err.h"

#include <stdlib.h>

static inline int slot_less(const struct gs_hslot *x, const struct gs_hslot *y)
{
    return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

void gs_heap_init(struct gs_heap *h)
{
    h->a = NULL;
    h->n = h->cap = 0;
    h->seq = 0;
}

void gs_heap_clear(struct gs_heap *h)
{
    for (size_t i = 0; i < h->n; i++)
        h->a[i].node->idx = GS_HEAP_NONE;
    free(h->a);
    gs_heap_init(h);
}

static void sift_up(struct gs_heap *h, size_t i)
{
    struct gs_hslot s = h->a[i];
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!slot_less(&s, &h->a[p]))
            break;
        h->a[i] = h->a[p];
        h->a[i].node->idx = i;
        i = p;
    }
    h->a[i] = s;
    s.node->idx = i;
}

static void sift_down(struct gs_heap *h, size_t i)
{
    struct gs_hslot s = h->a[i];
    size_t n = h->n;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c;
        size_t end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (slot_less(&h->a[j], &h->a[best]))
                best = j;
        if (!slot_less(&h->a[best], &s))
            break;
        h->a[i] = h->a[best];
        h->a[i].node->idx = i;
        i = best;
    }
    h->a[i] = s;
    s.node->idx = i;
}

int gs_heap_push(struct gs_heap *h, struct gs_hnode *node, gs_time time)
{
    GS_ASSERT(node->idx == GS_HEAP_NONE);
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        struct gs_hslot *a = realloc(h->a, cap * sizeof *a);
        if (a == NULL)
            return GS_ENOMEM;
        h->a = a;
        h->cap = cap;
    }
    node->time = time;
    node->seq = h->seq++;
    h->a[h->n] = (struct gs_hslot){ time, node->seq, node };
    sift_up(h, h->n++);
    return 0;
}

void gs_heap_remove(struct gs_heap *h, struct gs_hnode *node)
{
    size_t i = node->idx;
    if (i == GS_HEAP_NONE)
        return;
    GS_ASSERT(i < h->n && h->a[i].node == node);
    node->idx = GS_HEAP_NONE;
    if (i == --h->n)
        return;
    h->a[i] = h->a[h->n];
    h->a[i].node->idx = i;
    if (i > 0 && slot_less(&h->a[i], &h->a[(i - 1) / 4]))
        sift_up(h, i);
    else
        sift_down(h, i);
}

int gs_heap_update(struct gs_heap *h, struct gs_hnode *node, gs_time time)
{
    if (node->idx == GS_HEAP_NONE)
        return gs_heap_push(h, node, time);
    size_t i = node->idx;
    node->time = time;
    node->seq = h->seq++;
    struct gs_hslot old = h->a[i];
    h->a[i].time = time;
    h->a[i].seq = node->seq;
    if (slot_less(&h->a[i], &old))
        sift_up(h, i);
    else
        sift_down(h, i);
    return 0;
}

struct gs_hnode *gs_heap_pop(struct gs_heap *h)
{
    if (h->n == 0)
        return NULL;
    struct gs_hnode *top = h->a[0].node;
    top->idx = GS_HEAP_NONE;
    if (--h->n > 0) {
        h->a[0] = h->a[h->n];
        sift_down(h, 0);
    }
    return top;
}

struct gs_hnode *gs_heap_replace_top(struct gs_heap *h, struct gs_hnode *node,
                                     gs_time time)
{
    GS_ASSERT(node->idx == GS_HEAP_NONE || node == gs_heap_top(h));
    if (h->n == 0) {
        gs_heap_push(h, node, time);  /* cap >= 64 after first push */
        return NULL;
    }
    struct gs_hnode *top = h->a[0].node;
    top->idx = GS_HEAP_NONE;
    node->time = time;
    node->seq = h->seq++;
    h->a[0] = (struct gs_hslot){ time, node->seq, node };
    sift_down(h, 0);
    return top;
}

/* Best-first walk: a small auxiliary binary heap of slot indices, ordered by
 * the slots' keys, starts with the root; each visited slot pushes its
 * children.  The k-th visit is the k-th smallest key. */
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
        /* pop from the auxiliary binary heap */
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
        if (visit(h->a[top].node, arg))
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
