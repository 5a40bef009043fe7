/* engine.h -- the discrete-event engine: a simulated clock and one event queue.
 *
 * The engine knows nothing of GPUs or jobs.  An event is a caller-embedded
 * struct gs_event with a callback; the engine orders events by (time, then
 * the sequence number given when each was last scheduled), so events at the
 * same millisecond fire in the order they were scheduled and every run of
 * the same input is identical.  Events can be cancelled and moved (a job's
 * finish event moves whenever its speed changes).
 *
 * Time is a signed 64-bit count of milliseconds: 150 days is 1.3e10 ms,
 * far inside the range, and millisecond resolution is kept everywhere.
 *
 * The queue is a radix heap with 256-way digits by default (radixq.h:
 * multi-level buckets, O(1) amortized, each event moved at most 7 times),
 * or the 4-ary heap (heap.h); both order events identically, so the choice
 * changes speed, never results (tests/test_queueing.c runs both). */
#ifndef GS_ENGINE_H
#define GS_ENGINE_H

#include "radixq.h"
#include "heap.h"

#include "../base/simtime.h"

#include <stdint.h>

struct gs_event;
typedef void gs_event_fn(struct gs_event *ev, void *ctx);

struct gs_event {
    struct gs_hnode hn;     /* first member: the heap hands back this address */
    gs_event_fn *fire;
};

enum gs_queue_kind { GS_QUEUE_RADIX, GS_QUEUE_HEAP };

struct gs_engine {
    int kind;                       /* enum gs_queue_kind */
    struct gs_radixq rq;
    struct gs_heap q;
    gs_time now;
    uint64_t fired;         /* events fired so far */
    void *ctx;              /* passed to every callback */
};

/* 0 or GS_ENOMEM. */
int gs_engine_init(struct gs_engine *e, void *ctx, int kind);
void gs_engine_free(struct gs_engine *e);   /* events stay owned by callers */

static inline void gs_event_init(struct gs_event *ev, gs_event_fn *fire)
{
    gs_hnode_init(&ev->hn);
    ev->fire = fire;
}
static inline int gs_event_pending(const struct gs_event *ev)
{
    return gs_hnode_queued(&ev->hn);
}

/* Schedule ev at absolute time t (>= now), or move it there if it is already
 * scheduled.  0 or GS_ENOMEM. */
int gs_engine_at(struct gs_engine *e, struct gs_event *ev, gs_time t);
void gs_engine_cancel(struct gs_engine *e, struct gs_event *ev);

/* The time of the earliest event, GS_TIME_MAX if none. */
gs_time gs_engine_next_time(struct gs_engine *e);
/* The earliest event, NULL if none (not removed). */
struct gs_event *gs_engine_top(struct gs_engine *e);
/* Pop the earliest event, advance the clock to it and fire it.  Returns 0 if
 * the queue was empty, 1 otherwise. */
int gs_engine_step(struct gs_engine *e);

#endif
