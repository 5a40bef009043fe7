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
 * which they were (re)scheduled and runs are exactly reproducible.
 *
 * Staging (gs_heap_stage): for a heap that is mostly written -- entries
 * pushed and removed, and only now and then walked or peeked, like a
 * backfilling policy's running jobs by expected end while nobody waits --
 * new entries go first into a staging area instead of the heap: an array
 * in insertion order, in chunks of GS_HSTAGE_CHUNK slots.  A node's
 * sequence number then says where its entry is, so removing it marks that
 * slot dead in O(1) (no sift, no read of another node), and a chunk whose
 * entries are all gone is freed.  A chunk left with few live entries (the
 * long-lived ones) moves them into the heap, which bounds the memory to a
 * few slots per live entry.  The order of every entry is still (time,
 * seq), so top, pop and walk, which first move whatever is staged into the
 * heap, see exactly what an unstaged heap would.  A staged heap's seq must
 * only be moved by the heap itself while entries are staged (setting it,
 * as gs_heap_init_apart does, before the first push is fine). */
#ifndef GS_HEAP_H
#define GS_HEAP_H

#include "../base/simtime.h"

#include <stddef.h>
#include <stdint.h>

struct gs_hnode {
    gs_time time;                   /* key of the live entry */
    uint64_t seq;                   /* its sequence number; 0 = not queued */
};

struct gs_hslot {
    gs_time time;
    uint64_t seq;
    struct gs_hnode *node;
};

#define GS_HSTAGE_CHUNK 256          /* slots a staging chunk holds */

struct gs_hstage;                   /* heap.c */

struct gs_heap {
    struct gs_hslot *a;
    size_t n, cap;                  /* entries, live and stale */
    size_t live;                    /* live entries, staged ones too */
    uint64_t seq;                   /* last sequence number given */
    struct gs_hstage *st;           /* staging area, NULL if not staged */
};

void gs_heap_init(struct gs_heap *h);
void gs_heap_clear(struct gs_heap *h);      /* frees the array; nodes unqueued
                                               (a staged heap stays staged) */
/* Stage the heap's new entries (see above).  0 or GS_ENOMEM. */
int gs_heap_stage(struct gs_heap *h);
/* Move every staged entry into the heap proper (done by top, pop and
 * walk; logically const: the entries and their order do not change). */
void gs_heap_flush(const struct gs_heap *h);
/* Live entries staged now; *slots (if not NULL): the slots of the chunks
 * allocated for them.  For tests and benchmarks. */
size_t gs_heap_staged(const struct gs_heap *h, size_t *slots);
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
    if (h->st)
        gs_heap_flush(h);
    return h->n ? h->a[0].node : NULL;
}
static inline gs_time gs_heap_top_time(const struct gs_heap *h)
{
    if (h->st)
        gs_heap_flush(h);
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
