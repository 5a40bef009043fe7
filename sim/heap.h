/* heap.h -- a 4-ary implicit min-heap of intrusive nodes keyed by (time, seq).
 *
 * A reusable container: it knows nothing of jobs, GPUs or the simulator.
 * Callers embed a struct gs_hnode in their own objects (libuv style: the
 * caller allocates the handle), so insertion never allocates a node and an
 * element can be removed or re-keyed in O(log n) through the index the heap
 * keeps in the node.  Each slot of the heap array caches the key next to the
 * node pointer (libev measured this: comparisons then touch only the array).
 *
 * Ties: two nodes with the same time are ordered by seq, a counter the heap
 * assigns at every insert or re-key, so equal times come out in the order in
 * which they were (re)scheduled and runs are exactly reproducible. */
#ifndef GS_HEAP_H
#define GS_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t gs_time;            /* simulated time in milliseconds */
#define GS_TIME_MAX INT64_MAX

struct gs_hnode {
    gs_time time;
    uint64_t seq;
    size_t idx;                     /* slot in the heap; GS_HEAP_NONE if out */
};
#define GS_HEAP_NONE ((size_t)-1)

struct gs_hslot {
    gs_time time;
    uint64_t seq;
    struct gs_hnode *node;
};

struct gs_heap {
    struct gs_hslot *a;
    size_t n, cap;
    uint64_t seq;                   /* next sequence number */
};

void gs_heap_init(struct gs_heap *h);
void gs_heap_clear(struct gs_heap *h);      /* frees the array, keeps nothing */
/* Insert node (which must not be in a heap) with key time. 0 or GS_ENOMEM. */
int gs_heap_push(struct gs_heap *h, struct gs_hnode *node, gs_time time);
/* Remove node from the heap (no-op if it is not in it). */
void gs_heap_remove(struct gs_heap *h, struct gs_hnode *node);
/* Change node's key (inserting it if absent); it gets a fresh sequence number. */
int gs_heap_update(struct gs_heap *h, struct gs_hnode *node, gs_time time);
/* Remove and return the minimum, or NULL if empty. */
struct gs_hnode *gs_heap_pop(struct gs_heap *h);
/* Replace the minimum by node with key time and return the old minimum:
 * one sift instead of two (the "hold" operation of event simulations). */
struct gs_hnode *gs_heap_replace_top(struct gs_heap *h, struct gs_hnode *node,
                                     gs_time time);

static inline struct gs_hnode *gs_heap_top(const struct gs_heap *h)
{
    return h->n ? h->a[0].node : NULL;
}
static inline gs_time gs_heap_top_time(const struct gs_heap *h)
{
    return h->n ? h->a[0].time : GS_TIME_MAX;
}
static inline int gs_hnode_queued(const struct gs_hnode *node)
{
    return node->idx != GS_HEAP_NONE;
}

/* Visit nodes in increasing key order without modifying the heap, stopping
 * when visit returns non-zero.  Costs O(k log k) for the k nodes visited
 * (best-first walk over the implicit tree), so "the few earliest" is cheap
 * even in a large heap.  Returns 0, or GS_ENOMEM. */
int gs_heap_walk(const struct gs_heap *h,
                 int (*visit)(struct gs_hnode *node, void *arg), void *arg);

#endif
