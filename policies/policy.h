/* policy.h -- the scheduling-policy and placement plug-in interfaces.
 *
 * A policy decides which pending job starts next and whom to preempt; a
 * placer decides where (pool, node, GPUs) a job goes.  Each is a const ops
 * struct filled with designated initializers and listed once in a
 * NULL-terminated registry (policies/registry.c), looked up by name.
 *
 * The simulator never calls a plug-in's hooks directly: sim.c wraps every
 * call, fills in defaults for hooks a plug-in leaves NULL, and checks what it
 * decided (a placer may not hand back GPUs that are taken or down; a policy
 * may not preempt a non-preemptible job).  A policy sees the cluster only
 * through the read-only accessors of sim.h and acts only through
 * gs_sim_start(), gs_sim_try_start() and gs_sim_preempt().  It reads the
 * waiting and running jobs through sim.h's counted accessors and keeps
 * its own indexes in the core's counted containers (sim/core/look.h), so
 * that the core counts its work (policy_work).
 *
 * Hook contract (all but name optional):
 *   init      parse parameters (gs_params getters), allocate state;
 *   arrive    a job entered the pending set (new, or requeued after a
 *             preemption or a failure);
 *   stopped   a running job stopped (why: GS_STOP_*), or a pending one was
 *             killed while waiting (GS_STOP_KILLED); either way the job is
 *             no longer running, and after KILLED it is gone for good;
 *   schedule  called once per simulated instant at which something changed,
 *             after all of that instant's events: start what should start;
 *   tick      called every tick_ms of simulated time when tick_ms > 0;
 *   spot_notice  a spot node will be reclaimed at time `at` (the notice
 *             comes $.spot.notice, 2 minutes by default, ahead).  The node
 *             is already closed to new work; its jobs run on until the
 *             reclaim, when each loses the work since its last checkpoint
 *             and is requeued.  The policy may checkpoint them now
 *             (gs_sim_checkpoint), migrate them (checkpoint, then
 *             gs_sim_preempt: they restart elsewhere at once), or let them
 *             run (a job that ends before the reclaim is safe).  Left NULL:
 *             every job on the node that can checkpoint does so now. */
#ifndef GS_POLICY_H
#define GS_POLICY_H

#include "../sim/base/err.h"
#include "../sim/base/params.h"
#include "../sim/core/job.h"

#define GS_POLICY_ABI 7   /* 3: struct gs_job and gs_jobspec reordered (issue 10);
                             4: struct gs_heap has a staging area (heap.h),
                             struct gs_job keeps a part of its spec and
                             gs_jobrec is 64 bytes (issue 10);
                             5: gs_need and gs_jobspec carry tolerations,
                             gs_pool_spec taints (issue 26);
                             6: the core counts a policy's work: the
                             pending list is read through counted
                             accessors, running jobs by gs_sim_running_at,
                             a policy's indexes kept in look.h's counted
                             containers (issue 27);
                             7: struct gs_diag and gs_params hold their
                             where (and what) in memory sized to them, not
                             in fixed arrays: no path is cut */

struct gs_sim;

/* DRAINED: the platform took the node away on purpose (autoscaler
 * consolidation, the end of a capacity block). */
enum gs_stop { GS_STOP_DONE, GS_STOP_PREEMPTED, GS_STOP_KILLED,
               GS_STOP_FAILED, GS_STOP_SPOT, GS_STOP_RECLAIMED,
               GS_STOP_DRAINED };

struct gs_policy_ops {
    int abi;                    /* GS_POLICY_ABI */
    const char *name;
    const char *summary;        /* one line for `gpusim policies` */
    int (*init)(struct gs_sim *sim, struct gs_params *params, void **state,
                struct gs_diag *d);
    void (*free)(void *state);
    void (*arrive)(void *state, struct gs_sim *sim, struct gs_job *job);
    void (*stopped)(void *state, struct gs_sim *sim, struct gs_job *job,
                    int why);
    void (*schedule)(void *state, struct gs_sim *sim);
    void (*tick)(void *state, struct gs_sim *sim);
    gs_time tick_ms;
    /* ABI 2 */
    void (*spot_notice)(void *state, struct gs_sim *sim, int node, gs_time at);
};

struct gs_placer_ops {
    int abi;
    const char *name;
    const char *summary;
    int (*init)(struct gs_sim *sim, struct gs_params *params, void **state,
                struct gs_diag *d);
    void (*free)(void *state);
    /* Choose room for job inside the given ranges (all eligible pools when
     * the policy did not restrict it); fill out and return 0, or GS_ENOFIT. */
    int (*place)(void *state, struct gs_sim *sim, const struct gs_job *job,
                 const struct gs_range *ranges, int nranges,
                 struct gs_alloc *out);
    /* 1 if a search draws random numbers even when it finds no room (so a
     * caller may not skip a search whose failure it can foresee without
     * changing the run); 0 if a miss has no side effect. */
    int draws_on_miss;
};

/* Registries: look up by name (NULL if unknown); the tables end in NULL. */
extern const struct gs_policy_ops *const gs_policies[];
extern const struct gs_placer_ops *const gs_placers[];
const struct gs_policy_ops *gs_policy_find(const char *name);
const struct gs_placer_ops *gs_placer_find(const char *name);

/* Best-fit over ranges (the `best-fit` placer's search, for placers that
 * fall back on it): the node, or for fractions the GPU, left with the least
 * free capacity; ties to the earlier range.  0 with out filled, GS_ENOFIT,
 * or GS_ENOMEM. */
int gs_place_best(const struct gs_fleet *f, const struct gs_need *need,
                  const struct gs_range *r, int n, struct gs_alloc *out);

#endif
