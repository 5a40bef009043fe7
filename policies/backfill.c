/* backfill.c -- FIFO with EASY backfilling (Lifka 1995; Mu'alem and
 * Feitelson, IEEE TPDS 2001).
 *
 * Jobs start in arrival order while they fit.  When the head does not fit it
 * gets a reservation: the shadow time is the earliest moment at which,
 * running jobs ending at their estimated ends, enough GPUs usable by the
 * head are free; the extra GPUs are those free at the shadow time beyond
 * what the head needs.  A later job may start now (backfill) if it fits and
 * either ends by the shadow time or uses no more than the extra GPUs, so
 * the head is never delayed -- with exact estimates.
 *
 * Estimates: a job's stated estimate (e.g. the user's requested time in SWF
 * traces), else its true runtime (perfect estimates).  Counting is by GPUs
 * over the pools the head may use (fractions count as fractions), the
 * classic EASY abstraction; node boundaries can make the reservation
 * optimistic, which only ever lets the head start later than planned, never
 * blocks it for good.
 *
 * Cost: running jobs sit in a heap keyed by estimated end, and the shadow
 * time visits only as many of them as it needs (gs_heap_walk).  The backfill
 * scan looks at most `depth` pending jobs (parameter, default 1000, like
 * Slurm's bf_max_job_test) and stops when the fleet is full. */
#include "policy.h"
#include "../sim/sim.h"

#include <stdlib.h>

struct bf {
    struct gs_heap run;         /* running jobs by estimated end */
    long depth;
};

static int bf_init(struct gs_sim *sim, struct gs_params *p, void **state,
                   struct gs_diag *d)
{
    (void)sim;
    struct bf *b = calloc(1, sizeof *b);
    if (b == NULL)
        return GS_ENOMEM;
    gs_heap_init(&b->run);
    b->depth = 1000;
    int rc = gs_params_int(p, "depth", 1, 100000000, &b->depth, d);
    if (rc < 0) {
        free(b);
        return rc;
    }
    *state = b;
    return 0;
}

static void bf_free(void *state)
{
    struct bf *b = state;
    gs_heap_clear(&b->run);
    free(b);
}

static void bf_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                       int why)
{
    (void)sim;
    (void)why;
    struct bf *b = state;
    gs_heap_remove(&b->run, &j->pnode);
}

static double job_gpus(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

/* Free GPUs now in the pools j may use. */
static double free_for(const struct gs_fleet *f, const struct gs_job *j)
{
    double fr = 0;
    for (int p = 0; p < f->npools; p++)
        if (gs_fleet_pool_eligible(f, p, &j->need))
            fr += (double)f->pools[p].gpus_up -
                  (double)f->pools[p].used_milli / 1000.0;
    return fr;
}

struct shadow {
    const struct gs_fleet *f;
    const struct gs_job *head;
    double avail, need;
    gs_time t;
};

static int shadow_visit(struct gs_hnode *n, void *arg)
{
    struct shadow *sh = arg;
    struct gs_job *j = (struct gs_job *)((char *)n -
                                         offsetof(struct gs_job, pnode));
    if (j->alloc.pool >= 0 &&
        gs_fleet_pool_eligible(sh->f, j->alloc.pool, &sh->head->need)) {
        sh->avail += job_gpus(j);
        if (sh->avail >= sh->need - 1e-9) {
            sh->t = n->time;
            return 1;
        }
    }
    return 0;
}

static int start(struct bf *b, struct gs_sim *sim, struct gs_job *j)
{
    if (gs_sim_try_start(sim, j, NULL, 0) < 0)
        return -1;
    if (j->alloc.n > 0)
        gs_heap_push(&b->run, &j->pnode, j->est_end);
    return 0;
}

static void bf_schedule(void *state, struct gs_sim *sim)
{
    struct bf *b = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    struct gs_job *head;
    while ((head = gs_sim_pending_head(sim)) != NULL)
        if (start(b, sim, head) < 0)
            break;
    if (head == NULL || f->used_milli >= f->gpus_up * 1000)
        return;

    /* Reservation for the head. */
    struct shadow sh = { f, head, free_for(f, head), job_gpus(head),
                         GS_TIME_MAX };
    if (sh.avail < sh.need - 1e-9)
        gs_heap_walk(&b->run, shadow_visit, &sh);
    else
        sh.t = gs_sim_now(sim);     /* enough GPUs, but not on one node */
    double extra = sh.avail - sh.need;
    gs_time now = gs_sim_now(sim);

    long looked = 0;
    struct gs_job *j = head->next, *next;
    for (; j && looked < b->depth; j = next, looked++) {
        next = j->next;
        double idle = (double)f->gpus_up - (double)f->used_milli / 1000.0;
        if (idle <= 0)
            break;
        double g = job_gpus(j);
        if (g > idle + 1e-9)
            continue;           /* cannot fit anywhere now: skip the search */
        int by_shadow = sh.t != GS_TIME_MAX &&
                        now + gs_sim_estimate(sim, j) <= sh.t;
        if (!by_shadow && g > extra + 1e-9)
            continue;
        if (start(b, sim, j) < 0)
            continue;
        if (!by_shadow && j->alloc.pool >= 0 &&
            gs_fleet_pool_eligible(f, j->alloc.pool, &head->need))
            extra -= g;
    }
}

const struct gs_policy_ops gs_policy_fifo_backfill = {
    .abi = GS_POLICY_ABI,
    .name = "fifo-backfill",
    .summary = "arrival order with EASY backfilling on estimated runtimes",
    .init = bf_init,
    .free = bf_free,
    .stopped = bf_stopped,
    .schedule = bf_schedule,
};
