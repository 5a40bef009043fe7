/* engine.c -- simulated clock and event queue (see engine.h for the model). */
#include "engine.h"
#include "../base/err.h"

int gs_engine_init(struct gs_engine *e, void *ctx, int kind)
{
    e->kind = kind;
    gs_heap_init(&e->q);
    e->now = 0;
    e->fired = 0;
    e->ctx = ctx;
    gs_radixq_init(&e->rq);
    return 0;
}

void gs_engine_free(struct gs_engine *e)
{
    gs_heap_clear(&e->q);
    gs_radixq_clear(&e->rq);
}

/* The 4-ary heap's side of each call, out of line: the radix queue is the
 * default, and the loop's lines then hold its path alone (the heap's
 * inlined beside it filled about two of them). */
static __attribute__((noinline)) int heap_at(struct gs_engine *e,
                                             struct gs_event *ev, gs_time t)
{
    return gs_heap_update(&e->q, &ev->hn, t);
}

static __attribute__((noinline)) void heap_cancel(struct gs_engine *e,
                                                  struct gs_event *ev)
{
    gs_heap_remove(&e->q, &ev->hn);
}

static __attribute__((noinline)) struct gs_hnode *heap_top(struct gs_engine *e)
{
    return gs_heap_top(&e->q);
}

static __attribute__((noinline)) struct gs_hnode *heap_pop(struct gs_engine *e)
{
    return gs_heap_pop(&e->q);
}

#define RADIX(e) __builtin_expect((e)->kind == GS_QUEUE_RADIX, 1)

int gs_engine_at(struct gs_engine *e, struct gs_event *ev, gs_time t)
{
    GS_ASSERT(t >= e->now);
    return RADIX(e) ? gs_radixq_update(&e->rq, &ev->hn, t) : heap_at(e, ev, t);
}

void gs_engine_cancel(struct gs_engine *e, struct gs_event *ev)
{
    if (RADIX(e))
        gs_radixq_remove(&e->rq, &ev->hn);
    else
        heap_cancel(e, ev);
}

struct gs_event *gs_engine_top(struct gs_engine *e)
{
    return (struct gs_event *)(RADIX(e) ? gs_radixq_top(&e->rq)
                                        : heap_top(e));
}

gs_time gs_engine_next_time(struct gs_engine *e)
{
    struct gs_event *ev = gs_engine_top(e);
    return ev ? ev->hn.time : GS_TIME_MAX;
}

int gs_engine_step(struct gs_engine *e)
{
    struct gs_hnode *hn = RADIX(e) ? gs_radixq_pop(&e->rq) : heap_pop(e);
    if (hn == NULL)
        return 0;
    struct gs_event *ev = (struct gs_event *)hn;
    GS_ASSERT(hn->time >= e->now);
    e->now = hn->time;
    e->fired++;
    ev->fire(ev, e->ctx);
    return 1;
}
