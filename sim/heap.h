/* heap.h -- a 4-ary implicit min-heap of intrusive nodes keyed by (time, seq).
 *
 * A reusable container: it knows nothing of jobs, GPUs or the simulator.
 * Callers embed a struct gs_hnode in their own objects (libuv style: the
 * caller allocates the handle), so insertion never allocates a node.  Each
 * slot of the heap array caches the key next to the node pointer (libev
 * measured this: comparisons then touch only the array).
 *
 * Cancel and re-key are lazy: a node records the sequence number of its one
 * live entry; removing it just clears that number, and re-keying pushes a
 * fresh entry.  Entries whose sequence number no longer matches their node
 * are stale and are dropped when they reach the top, or all at once when
 * they outnumber the live ones.  So no sift ever writes into the nodes --
 * which are scattered in memory -- and a hold operation touches only the
 * heap array (benchmarked in bench/bench_heap.c).  The top is never stale.
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
    gs_time time;                   /* key of the live entry */
    uint64_t seq;                   /* its sequence number; 0 = not queued */
};

struct gs_hslot {
    gs_time time;
    uint64_t seq;
    struct gs_hnode *node;
};

struct gs_heap {
    struct gs_hslot *a;
    size_t n, cap;                  /* entries, live and stale */
    size_t live;                    /* live entries */
    uint64_t seq;                   /* last sequence number given */
};

void gs_heap_init(struct gs_heap *h);
void gs_heap_clear(struct gs_heap *h);      /* frees the array; nodes unqueued */
static inline void gs_hnode_init(struct gs_hnode *node)
{
    node->seq = 0;
}
static inline int gs_hnode_queued(const struct gs_hnode *node)
{
    return node->seq != 0;
}
/* Insert node with key time, or re-key it if queued (it then gets a fresh
 * sequence number).  0 or GS_ENOMEM. */
int gs_heap_update(struct gs_heap *h, struct gs_hnode *node, gs_time time);
static inline int gs_heap_push(struct gs_heap *h, struct gs_hnode *node,
                               gs_time time)
{
    return gs_heap_update(h, node, time);
}
/* Remove node (no-op if it is not queued). */
void gs_heap_remove(struct gs_heap *h, struct gs_hnode *node);
/* Remove and return the minimum, or NULL if empty. */
struct gs_hnode *gs_heap_pop(struct gs_heap *h);

static inline struct gs_hnode *gs_heap_top(const struct gs_heap *h)
{
    return h->n ? h->a[0].node : NULL;
}
static inline gs_time gs_heap_top_time(const struct gs_heap *h)
{
    return h->n ? h->a[0].time : GS_TIME_MAX;
}
static inline size_t gs_heap_size(const struct gs_heap *h)
{
    return h->live;
}

/* Visit live nodes in increasing key order without modifying the heap,
 * stopping when visit returns non-zero.  Costs O(k log k) for the k entries
 * looked at (best-first walk over the implicit tree), so "the few earliest"
 * is cheap even in a large heap.  Returns 0, or GS_ENOMEM. */
int gs_heap_walk(const struct gs_heap *h,
                 int (*visit)(struct gs_hnode *node, void *arg), void *arg);

#endif
