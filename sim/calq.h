/* calq.h -- a calendar queue of intrusive nodes keyed by (time, seq).
 *
 * The engine's event queue (the heap in heap.h is the built and tested
 * alternative, and what other users of a priority queue take).  Same node
 * type, same order -- time, then the sequence number given at each insert
 * or re-key -- and the same lazy removal, so the two are interchangeable and
 * tests/test_heap.c checks both against one reference.
 *
 * Brown, "Calendar queues: a fast O(1) priority queue implementation for the
 * simulation event set problem", CACM 31(10), 1988: time is cut into days of
 * `width` ms, and day d goes to bucket d mod nbuckets (a "year" is nbuckets
 * days).  Dequeue walks the buckets from the current day, taking the first
 * entry that falls within the day; when a whole year passes empty-handed it
 * jumps straight to the minimum.  The bucket count doubles or halves with
 * the queue size, and the width is re-estimated from the spacing of the
 * earliest events (Brown's rule: three times their mean separation, here
 * rounded down to a power of two so that a day index is a shift), so a hold
 * costs O(1) expected time whatever the queue size.
 *
 * Each bucket is an array kept in ascending key order with a moving head:
 * an insert later than everything in its bucket -- the common case, and
 * always the case for a run of events at one instant -- is an append. */
#ifndef GS_CALQ_H
#define GS_CALQ_H

#include "heap.h"

struct gs_cbucket {
    struct gs_hslot *a;
    uint32_t head, n, cap;      /* entries a[head .. n-1] */
};

struct gs_calq {
    struct gs_cbucket *b;
    uint32_t nb;                /* buckets, a power of two */
    gs_time width;              /* ms per day: 1 << shift */
    int shift;
    uint32_t cur;               /* bucket of the current day */
    gs_time day;                /* start of the current day */
    size_t n, live;             /* entries (live + stale), live entries */
    uint64_t seq;
    int resizing;
};

int gs_calq_init(struct gs_calq *q);        /* 0 or GS_ENOMEM */
void gs_calq_clear(struct gs_calq *q);
/* Insert node at time, or re-key it (fresh sequence number).  0/GS_ENOMEM. */
int gs_calq_update(struct gs_calq *q, struct gs_hnode *node, gs_time time);
void gs_calq_remove(struct gs_calq *q, struct gs_hnode *node);
/* The earliest live node (NULL if empty), without removing it.  Moves the
 * current day forward to it, which later inserts account for. */
struct gs_hnode *gs_calq_top(struct gs_calq *q);
struct gs_hnode *gs_calq_pop(struct gs_calq *q);
static inline size_t gs_calq_size(const struct gs_calq *q)
{
    return q->live;
}

#endif
