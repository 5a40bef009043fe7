/* resv.h -- node-by-node reservations for a blocked job, as EASY
 * backfilling makes them, shared by the policies that hold one (hps, pbs).
 *
 * The policy files its running jobs here by the time it expects each to
 * end (their pnode: a running job is in no queue of the policy's), asks for
 * a reservation for a job that does not fit, and then keeps later jobs that
 * would outlive the reservation off its nodes.  See resv.c. */
#ifndef GS_RESV_H
#define GS_RESV_H

#include "../sim/cluster/fleet.h"
#include "../sim/core/job.h"
#include "../sim/core/look.h"

struct gs_resv {
    struct gs_lheap run;        /* running jobs by expected end (pnode);
                                   every job a walk visits is counted */
    struct gs_llist late;       /* those whose expected end had passed at
                                   the last reservation (cut), in order */
    gs_time cut;
    gs_time t;                  /* the reservation: its time, */
    int *nodes, n;              /* its nodes (global, ascending), */
    int extra;                  /* one node: GPUs it will have free then
                                   beyond the job's need */
    struct gs_range *ranges;    /* scratch for gs_resv_off */
    int capranges;
    int *gain, *touched, ntouched, *full;   /* scratch, sized to the fleet */
};

/* Set r up for sim's fleet; heap_id numbers its heap's entries apart from
 * the policy's other heaps (look.h gs_lheap_init_apart).  0 or
 * GS_ENOMEM. */
int gs_resv_init(struct gs_resv *r, struct gs_sim *sim, uint64_t heap_id);
void gs_resv_free(struct gs_resv *r);           /* NULL-safe */

/* A job started (expected to end at end), or stopped. */
int gs_resv_started(struct gs_resv *r, struct gs_job *j, gs_time end);
void gs_resv_stopped(struct gs_resv *r, struct gs_job *j);
/* The earliest expected end of a running job (counted), GS_TIME_MAX when
 * none runs. */
gs_time gs_resv_first_end(const struct gs_resv *r);
/* Visit the running jobs (their pnode) in order of expected end, each
 * counted, until visit returns non-zero. */
void gs_resv_walk(const struct gs_resv *r,
                  int (*visit)(struct gs_hnode *node, void *arg), void *arg);

/* 1 if need is whole GPUs on plain pools (no MIG, no sharing) among
 * pools[0..npools): the jobs a reservation is made for. */
int gs_resv_whole(const struct gs_fleet *f, const struct gs_need *need,
                  const int *pools, int npools);

/* Reserve for need over pools (each may take it): release the running jobs
 * in order of expected end until some node has need->gpus free (a gang:
 * until one pool has ceil(gpus / GPUs per node) whole nodes).  Fills t (at
 * least now), nodes and extra; 0, or -1 when they never free enough. */
int gs_resv_make(struct gs_resv *r, const struct gs_fleet *f,
                 const struct gs_need *need, const int *pools, int npools,
                 gs_time now);

/* pools with the reserved nodes cut out, in r->ranges; their count. */
int gs_resv_off(struct gs_resv *r, const struct gs_fleet *f,
                const int *pools, int npools);

/* The one reserved node as a range in out, if a job of `gpus` whole GPUs
 * may use it (its extra GPUs) and it is in pools; 1, else 0.  Call
 * gs_resv_took() when such a job started there. */
int gs_resv_spare(const struct gs_resv *r, const struct gs_fleet *f,
                  int gpus, const int *pools, int npools,
                  struct gs_range *out);
static inline void gs_resv_took(struct gs_resv *r, int gpus)
{
    r->extra -= gpus;
}

#endif
