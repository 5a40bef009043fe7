/* radixq.h -- a radix heap of intrusive nodes keyed by (time, seq).
 *
 * The engine's event queue by default (the 4-ary heap in heap.h is the built
 * and tested alternative, and what other users of a priority queue take).
 * Same node type, same order -- time, then the sequence number given at
 * each insert or re-key -- and the same lazy removal, so the two are
 * interchangeable; tests/test_heap.c checks both against one reference and
 * tests/test_queueing.c shows that they give identical runs.
 *
 * Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest
 * path problem", JACM 37(2), 1990.  Keys never go below the last key
 * removed (`last`) -- true of a simulation clock -- so an entry with time t
 * lives in bucket 0 if t == last and otherwise in bucket k, k = the position
 * of the highest bit in which t and last differ (1..64).  Removing the
 * minimum takes bucket 0's head; when bucket 0 runs dry, the lowest
 * non-empty bucket's entries are redistributed around their minimum, which
 * becomes `last`.  Every entry moves down a few times at most, always
 * through sequential arrays: O(1) amortized per operation and, unlike a heap
 * or a calendar queue, no random memory access but the one to the node
 * itself (bench/bench_heap.c measures it).
 *
 * Ties: bucket 0 is kept in sequence order (entries inserted at time ==
 * last carry the newest sequence numbers and are appended; entries moved
 * there are sorted by sequence), so equal times leave in the order they
 * were scheduled.  Peeking is read-only: it finds the minimum without moving
 * `last`, because the simulation peeks, then may schedule events earlier
 * than what it saw (but never earlier than the last one it took). */
#ifndef GS_RADIXQ_H
#define GS_RADIXQ_H

#include "heap.h"

struct gs_rbucket {
    struct gs_hslot *a;
    uint32_t head, n, cap;      /* entries a[head .. n-1] */
};

struct gs_radixq {
    struct gs_rbucket b[65];
    gs_time last;               /* the last minimum removed */
    size_t n, live;             /* entries (live + stale), live entries */
    uint64_t seq;
    int topb;                   /* cached minimum: bucket, or -1 */
    uint32_t topi;              /* and index in it */
};

void gs_radixq_init(struct gs_radixq *q);
void gs_radixq_clear(struct gs_radixq *q);
/* Insert node at time (>= the last time removed), or re-key it (fresh
 * sequence number).  0 or GS_ENOMEM. */
int gs_radixq_update(struct gs_radixq *q, struct gs_hnode *node, gs_time time);
void gs_radixq_remove(struct gs_radixq *q, struct gs_hnode *node);
/* The earliest live node, NULL if empty; not removed. */
struct gs_hnode *gs_radixq_top(struct gs_radixq *q);
struct gs_hnode *gs_radixq_pop(struct gs_radixq *q);
static inline size_t gs_radixq_size(const struct gs_radixq *q)
{
    return q->live;
}

#endif
