/* svcqueue.h -- a service's queue of exact-time happenings: iteration ends, weight loads and KV transfers, in (time, sequence) order.
 *
 * A sorted array: h[h0 + k] is the k-th earliest of n.  The earliest
 * leaves from the front (h0 moves up); a new entry, with the latest
 * sequence number there is, goes in from the back past the entries due
 * after it.  An iteration's end is a few tens of ms after its start and
 * the replicas' iterations are of like length, so a new end lands at or
 * near the back: a comparison or two (1.3 moves on average on
 * bench_service's scenario) where the binary heap this replaced sifted
 * down through its levels each time.  The order is the heap's, to the
 * entry: (t, seq) is a total order.  When the back reaches the end of the
 * array the entries move to its front, or the array doubles when they
 * fill half of it.  The front handed out by gs_svcq_peek stays in place,
 * spent, until the next call takes it out, so an iteration's end that
 * schedules the next one reads and writes the array once.  service.c
 * owns it (svcint.h's struct svc); the caller frees h. */
#ifndef GS_SVCQUEUE_H
#define GS_SVCQUEUE_H

#include "../base/err.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct hent {
    double t;
    uint64_t seq;
    int kind, idx;
    unsigned gen;
};

struct svcq {
    struct hent *h;
    long h0, n, cap;
    int dead;                   /* h[h0] is spent (gs_svcq_peek) */
    uint64_t seq;
};

/* Take out the front gs_svcq_peek handed out. */
static inline void gs_svcq_settle(struct svcq *q)
{
    if (!q->dead)
        return;
    q->dead = 0;
    q->h0++;
    q->n--;
}

/* Room for one more entry at the back. */
static inline void gs_svcq_room(struct svcq *q)
{
    if (2 * q->n >= q->cap) {
        long cap = q->cap ? q->cap * 2 : 64;
        struct hent *h = realloc(q->h, (size_t)cap * sizeof *h);
        GS_OOM_IF(h == NULL);
        q->h = h;
        q->cap = cap;
    }
    if (q->h0 + q->n == q->cap) {
        memmove(q->h, q->h + q->h0, (size_t)q->n * sizeof *q->h);
        q->h0 = 0;
    }
}

static inline void gs_svcq_push(struct svcq *q, double t, int kind, int idx,
                                unsigned gen)
{
    gs_svcq_settle(q);
    if (q->h0 + q->n == q->cap)
        gs_svcq_room(q);
    /* every entry has a smaller seq: the new one goes after those due at
     * or before t */
    struct hent *a = q->h + q->h0;
    long i = q->n++;
    while (i > 0 && t < a[i - 1].t) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = (struct hent){ t, q->seq++, kind, idx, gen };
}

/* The earliest happening, left in place as spent. */
static inline struct hent gs_svcq_peek(struct svcq *q)
{
    gs_svcq_settle(q);
    q->dead = 1;
    return q->h[q->h0];
}

/* The time of the earliest happening, INFINITY when there is none. */
static inline double gs_svcq_top(struct svcq *q)
{
    gs_svcq_settle(q);
    return q->n > 0 ? q->h[q->h0].t : INFINITY;
}

#endif
