/* engine.c -- simulated clock and event queue (see engine.h for the model). */
#include "engine.h"
#include "err.h"

void gs_engine_init(struct gs_engine *e, void *ctx)
{
    gs_heap_init(&e->q);
    e->now = 0;
    e->fired = 0;
    e->ctx = ctx;
}

void gs_engine_free(struct gs_engine *e)
{
    gs_heap_clear(&e->q);
}

int gs_engine_at(struct gs_engine *e, struct gs_event *ev, gs_time t)
{
    GS_ASSERT(t >= e->now);
    return gs_heap_update(&e->q, &ev->hn, t);
}

void gs_engine_cancel(struct gs_engine *e, struct gs_event *ev)
{
    gs_heap_remove(&e->q, &ev->hn);
}

int gs_engine_step(struct gs_engine *e)
{
    struct gs_hnode *hn = gs_heap_pop(&e->q);
    if (hn == NULL)
        return 0;
    struct gs_event *ev = (struct gs_event *)hn;
    GS_ASSERT(hn->time >= e->now);
    e->now = hn->time;
    e->fired++;
    ev->fire(ev, e->ctx);
    return 1;
}
