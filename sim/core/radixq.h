/* radixq.h -- a multi-level bucket queue of intrusive nodes keyed by
 * (time, seq): a radix heap with 256-way digits.
 *
 * The engine's event queue by default (the 4-ary heap in heap.h is the built
 * and tested alternative, and what other users of a priority queue take).
 * Same node type, same order -- time, then the sequence number given at
 * each insert or re-key -- and the same lazy removal, so the two are
 * interchangeable; tests/test_heap.c checks both against one reference and
 * tests/test_queueing.c shows that they give identical runs.
 *
 * Keys never go below the last key removed, as holds for a simulation
 * clock; `last`, the key entries are filed against, is at or below it (it
 * lags while the run below is popped).  A key k is filed by the highest
 * bit in which it differs from last: that bit's 8-bit digit group is k's level L, and k's
 * digit in that group names one of the level's 256 buckets.  So level 0
 * holds the keys that share all but the low 8 bits with last, one exact
 * time per bucket, and a level-L bucket holds a 2^(8L)-wide range of times.
 * A bitmap per level marks its non-empty buckets.  Removing the minimum
 * takes the front of the lowest non-empty level-0 bucket or of the sorted
 * run (below); when both are empty, the lowest non-empty bucket is either
 * emptied into the levels below it, around the bucket's first possible
 * key (levels 3 and up), or -- a bucket of level 1 or 2, 256 ms or 65.5 s
 * of keys -- sorted whole by counting passes over its one or two low
 * digits into the run, whose entries then leave in order.  Entries
 * scheduled while the run has entries and due inside its range go to the
 * levels below the run's, and a bound on their least key tells the usual
 * pop that the run's front is the minimum without looking at them.  An
 * entry thus moves two or three times (a key 1,000 s ahead starts at level
 * 2: filed, sorted, popped), always through sequential arrays.  The
 * buckets are the multi-level bucket structure of Denardo and Fox
 * (Operations Research 27(1), 1979) as studied by Cherkassky, Goldberg and
 * Silverstein ("Buckets, heaps, lists, and monotone priority queues", SIAM
 * J. Computing 28(4), 1999); the 2-way case is the radix heap of Ahuja,
 * Mehlhorn, Orlin and Tarjan (JACM 37(2), 1990); sorting a near bucket
 * whole instead of splitting it further is the idea of the ladder queue's
 * bottom rung (Tang, Goh and Thng, ACM TOMACS 15(3), 2005).
 * bench/bench_heap.c measures it.
 *
 * Ties: equal times always share a bucket, and a bucket's array is never
 * reordered (entries are appended in sequence order, a bucket is emptied in
 * array order into empty lower levels or sorted stably into the run, stale
 * entries are dropped without moving the rest); every entry filed while
 * the run has entries was scheduled after all of them and loses ties to
 * them; so equal times leave in the order they were scheduled.
 *
 * Peeking is read-only: it finds the minimum without moving `last`, because
 * the simulation peeks, then may schedule events earlier than what it saw
 * (but never earlier than the last one it took).  While no entry is stale
 * (n == live: nothing was cancelled or moved since the last stale entry
 * left) neither peeking nor popping reads a node to tell whether an entry
 * is stale: the node that is about to become the minimum is usually not in
 * cache, and a peek that waited for it cost a tenth of a run of a million
 * jobs; the caller can now prefetch it instead. */
#ifndef GS_RADIXQ_H
#define GS_RADIXQ_H

#include "heap.h"

#define GS_RQ_BITS   8                          /* digit width */
#define GS_RQ_FAN    (1 << GS_RQ_BITS)          /* buckets per level */
#define GS_RQ_LEVELS ((64 + GS_RQ_BITS - 1) / GS_RQ_BITS)
#define GS_RQ_WORDS  (GS_RQ_FAN / 64)           /* bitmap words per level */

struct gs_rbucket {
    struct gs_hslot *a;
    uint32_t head, n, cap;      /* entries a[head .. n-1] */
};

struct gs_radixq {
    uint64_t last;              /* key of the last minimum removed */
    size_t n, live;             /* entries (live + stale), live entries */
    uint64_t seq;
    struct gs_rbucket *top;     /* cached minimum: its bucket (or &run), */
    uint32_t topi;              /* or NULL, and its index there */
    /* The sorted run: a[head .. n-1] in (time, seq) order, all within the
     * range of the level-R bucket it was sorted from; entries filed below
     * level R may fall between its entries: runmask = 2^R - 1. */
    uint32_t runmask;
    uint64_t bound;             /* no entry filed below level R has a
                                   lesser key */
    struct gs_rbucket run;
    struct gs_hslot *tmp;       /* scratch for sorting, tmpcap entries */
    uint32_t tmpcap;
    uint32_t levels;            /* bit L: level L has a non-empty bucket */
    /* Bucket (L, d) is b[L * GS_RQ_FAN + d]; bit L * GS_RQ_FAN + d of used
     * says it is not empty; bit w of words[L], that used's word
     * L * GS_RQ_WORDS + w is not zero. */
    uint32_t words[GS_RQ_LEVELS];
    uint64_t used[GS_RQ_LEVELS * GS_RQ_WORDS];
    struct gs_rbucket b[GS_RQ_LEVELS * GS_RQ_FAN];
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
