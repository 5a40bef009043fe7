/* sim.h -- the cluster simulation: jobs meet the fleet under a policy.
 *
 * gs_sim ties the engine, the fleet, the workload source, the policy and the
 * placer together and keeps the books (metrics.h).  The main loop merges two
 * streams of happenings: events in the engine's queue (job finishes, model
 * events) and arrivals pulled from the source as the clock reaches them.  At
 * each simulated instant it first fires every event due, then admits every
 * arrival due, then -- once -- asks the policy to schedule.  Ties are thus
 * broken the same way in every run: departures before arrivals, events in
 * the order they were scheduled.
 *
 * Accessors below are the policy's read-only view; gs_sim_start(),
 * gs_sim_try_start() and gs_sim_preempt() are the only ways to act, and each
 * checks the decision it is given. */
#ifndef GS_SIM_H
#define GS_SIM_H

#include "engine.h"
#include "../base/err.h"
#include "../cluster/fleet.h"
#include "job.h"
#include "look.h"
#include "metrics.h"
#include "../spec/scenario.h"
#include "../../policies/policy.h"

#include <stdio.h>

struct gs_sim;

/* How far a run has got, for a progress line (progress.h draws it; the
 * simulation itself never reads the wall clock). */
struct gs_sim_status {
    double sim_h;               /* simulated hours since the first arrival */
    double frac;                /* share done in [0, 1): of the horizon, or
                                   of a generated workload's jobs or span;
                                   -1 when not known (a trace) */
    long jobs_ended, pending, running;
};
typedef void gs_sim_status_fn(void *ctx, const struct gs_sim_status *st);

struct gs_sim_opts {
    uint64_t seed;              /* overrides the scenario's when set_seed */
    int set_seed;
    const char *policy;         /* overrides the scenario's when not NULL */
    const struct gs_policy_ops *policy_ops;   /* or a loaded plug-in */
    const char *placer;
    gs_time bill_until;         /* > 0: overrides the scenario's bill_until
                                   (ms: the least span of the run) */
    gs_sim_status_fn *status;   /* called every 4096 steps; NULL: never */
    void *status_ctx;
    long host_pairs;            /* the most distinct host asks records index
                                   before every job's go to a side array
                                   (job.h); 0 = GS_JOBREC_HOSTS (tests set
                                   a few) */
};

/* What the core is handed from above instead of naming it: the built-in
 * models, policies and placers, and the reader of the scenario's workload
 * all sit in layers over the core (docs/layout.md), so the core finds them
 * in this struct, which the layer that puts a run together fills
 * (sim/setup/setup.h: gs_sim_new passes the built-in one). */
struct gs_shape;
struct gs_model_ops;
struct gs_workload_ops {
    /* Open sc's workload under seed: 0 with *state set (close frees it),
     * or a negative code with d filled. */
    int (*open)(const struct gs_scenario *sc, uint64_t seed, void **state,
                struct gs_diag *d);
    /* 1 with *out (arrivals nondecreasing), 0 at the end, negative with d
     * filled. */
    int (*next)(void *state, struct gs_jobspec *out, struct gs_diag *d);
    void (*close)(void *state);             /* NULL-safe */
    /* The workload's job shapes for the fragmentation measure (cluster/
     * frag.h): *shapes a new array of *n, most popular first.  0 or
     * GS_ENOMEM. */
    int (*shapes)(const struct gs_scenario *sc, uint64_t seed,
                  struct gs_shape **shapes, int *n);
};
struct gs_sim_env {
    const struct gs_model_ops *const *models;   /* in call order (model.h:
                                                   gs_models_install) */
    const struct gs_policy_ops *const *policies;    /* NULL-terminated */
    const struct gs_placer_ops *const *placers;     /* NULL-terminated */
    const struct gs_workload_ops *workload;
};

/* Build a simulation of sc (which must outlive it) from env's tables
 * (which must outlive it too): env->models is installed as the built-in
 * models (model.h) if none were.  0 or a negative code with d filled
 * (unknown policy, bad parameters, unreadable trace).  Callers above the
 * models use gs_sim_new (sim/setup/setup.h), which passes the built-in
 * tables and checks the memory budget first. */
int gs_sim_build(const struct gs_sim_env *env, const struct gs_scenario *sc,
                 const struct gs_sim_opts *o, struct gs_sim **out,
                 struct gs_diag *d);
void gs_sim_free(struct gs_sim *s);
/* Run to the end (every job ended, or the horizon).  0 or a negative code
 * with d filled (a malformed trace row met during the run). */
int gs_sim_run(struct gs_sim *s, struct gs_diag *d);

/* Results, valid after gs_sim_run. */
const struct gs_summary *gs_sim_summary(const struct gs_sim *s);
/* May job j use pool p at all: every model's veto (model.h pool_ok) passes
 * (the spot rule).  1 or 0; cheap, and the same at any time. */
int gs_sim_pool_ok(const struct gs_sim *s, int pool, const struct gs_job *j);
/* Nodes of pool p billed on average and at most over the run (after it),
 * as the model that bills tells (model.h pool_nodes); 0 without one. */
void gs_sim_pool_nodes(const struct gs_sim *s, int pool, double *mean,
                       double *peak);
const struct gs_metrics *gs_sim_metrics(const struct gs_sim *s);
const struct gs_scenario *gs_sim_scenario(const struct gs_sim *s);
const char *gs_sim_policy_name(const struct gs_sim *s);
const char *gs_sim_placer_name(const struct gs_sim *s);
uint64_t gs_sim_seed(const struct gs_sim *s);
uint64_t gs_sim_events(const struct gs_sim *s);
/* Every job's record, in arrival order (n of them). */
const struct gs_jobrec *gs_sim_records(const struct gs_sim *s, long *n);
/* What record i (0 <= i < n) keeps apart (job.h): the host CPU and memory
 * the job asked for, {0, 0} when none; the GPU-hours of work it lost to
 * restarts and the times it was preempted or interrupted, 0 for a job
 * never requeued. */
struct gs_jobhost gs_sim_record_host(const struct gs_sim *s, long i);
double gs_sim_record_lost(const struct gs_sim *s, long i);
int gs_sim_record_preemptions(const struct gs_sim *s, long i);
/* The energy booked to record i (facility kWh and g CO2e; {0, 0} when
 * none), and a model's booking of more (the energy model's, sim/cloud/
 * energy.h): the core keeps the ledger, as it keeps a record's cost, so
 * that any model may read a job's energy. */
struct gs_jobenergy gs_sim_record_energy(const struct gs_sim *s, long i);
void gs_sim_record_add_energy(struct gs_sim *s, long i, double kwh,
                              double gco2);
/* A model that knows the work of job j (its owner: an inference replica's
 * iterations) reports the energy j's GPUs drew above their idle power,
 * in J, now, drawn evenly over [from_s, to_s] (exact seconds of simulated
 * time, to_s at or before now); every model's job_energy hook hears it
 * (the energy model prices it at this hour, and splits it over the power
 * series' steps). */
void gs_sim_job_energy(struct gs_sim *s, struct gs_job *j, double joules,
                       double from_s, double to_s);
/* Bytes the core keeps for the jobs' records (records, host asks, what
 * requeued jobs keep): what a run's memory grows by per job, tested to
 * stay small. */
size_t gs_sim_record_bytes(const struct gs_sim *s);

/* --- the policy's view ---------------------------------------------- */
/* Every waiting or running job the policy reads through these is counted
 * in policy_work (look.h says what counts and what does not). */
gs_time gs_sim_now(const struct gs_sim *s);
const struct gs_fleet *gs_sim_fleet(const struct gs_sim *s);
/* The pending list in arrival order: its first and last job, and the job
 * after (before) j, or NULL -- each job handed over is counted.  A job
 * leaving the pending list keeps the job that followed it (NULL if none)
 * until it is queued again, so a stopped(GS_STOP_KILLED) hook can still
 * step past it with gs_sim_pending_next. */
struct gs_job *gs_sim_pending_head(struct gs_sim *s);
struct gs_job *gs_sim_pending_tail(struct gs_sim *s);
static inline struct gs_job *gs_sim_pending_next(struct gs_sim *s,
                                                 const struct gs_job *j)
{
    *gs_sim_look_counter(s) += j->next != NULL;
    return j->next;
}
static inline struct gs_job *gs_sim_pending_prev(struct gs_sim *s,
                                                 const struct gs_job *j)
{
    *gs_sim_look_counter(s) += j->prev != NULL;
    return j->prev;
}
long gs_sim_npending(const struct gs_sim *s);
/* The running jobs: n of them, job i (0 <= i < n; counted).  Order
 * unspecified; it changes on start and stop. */
long gs_sim_nrunning(const struct gs_sim *s);
struct gs_job *gs_sim_running_at(struct gs_sim *s, long i);
const struct gs_tenant *gs_sim_tenant(const struct gs_sim *s, int tenant);
int gs_sim_ntenants(const struct gs_sim *s);
const char *gs_sim_tenant_name(const struct gs_sim *s, int tenant);
/* How long job would run on model at full speed, in ms. */
gs_time gs_sim_runtime_on(const struct gs_sim *s, const struct gs_job *job,
                          int model);
/* The job's runtime estimate for scheduling (its stated estimate, else its
 * true runtime on the fastest model it may use), in ms, for what remains. */
gs_time gs_sim_estimate(const struct gs_sim *s, const struct gs_job *job);

/* The policy's work so far: every entry it read through the counted
 * accessors and containers (look.h), and one for every job it asked the
 * core to place.  Deterministic, reported as policy_work (--json,
 * gs_summary); tests hold each policy's work per job flat as the queue
 * grows (tests/test_overload.c). */
uint64_t gs_sim_work(const struct gs_sim *s);

/* 1 when a placement that finds no room would find none again -- for any
 * job with the same need and tier, anywhere (ranges NULL) -- until some
 * capacity is released: the placer draws no random numbers on a miss and
 * no sharing model can free capacity while a policy starts jobs.  Within
 * one pass that starts but never preempts, a policy may then skip the
 * searches it can foresee failing and keep exactly the same decisions. */
int gs_sim_misses_repeat(const struct gs_sim *s);

/* Watched node ranges (rwatch.c): register a set of ranges once (at init)
 * and get its id (>= 0, or GS_ENOMEM); its epoch moves whenever capacity
 * comes back (a release, a node up or down, a loan) on one of its nodes,
 * and on no other change.  A placement within those ranges that missed
 * misses again -- for the same need and tier -- while the epoch stays
 * put, when gs_sim_misses_repeat() holds: a policy that places within
 * ranges of its own (static's partitions) skips those attempts. */
int gs_sim_watch(struct gs_sim *s, const struct gs_range *r, int n);
uint64_t gs_sim_watch_epoch(const struct gs_sim *s, int id);
/* A watch whose epoch moved since it was last taken (each such watch
 * once, in no set order; counted), or -1 when none: a policy learns which
 * of its ranges got capacity back without reading every watch. */
int gs_sim_watch_moved(struct gs_sim *s);
/* The fleet's epoch: it moves whenever capacity comes back anywhere (a
 * release, a node up or down, a loan) and on no other change.  A pass that
 * ended with every waiting job it could start tried and missed would miss
 * them all again while it stays put and no new job joins, when
 * gs_sim_misses_repeat() holds: a policy may skip that pass. */
uint64_t gs_sim_epoch(const struct gs_sim *s);

/* The fragmentation measure and node classes (frag.h), for placers. */
struct gs_frag *gs_sim_frag(struct gs_sim *s);

/* --- acting ------------------------------------------------------------ */
/* Ask the placer for room for job within ranges (NULL, 0 = anywhere).
 * 0 with out filled, or GS_ENOFIT. */
int gs_sim_place(struct gs_sim *s, const struct gs_job *job,
                 const struct gs_range *ranges, int nranges,
                 struct gs_alloc *out);
/* Start a pending job on alloc (taken over by the job).  GS_ESTATE if the
 * job is not pending, GS_ENOFIT if alloc is not free (the plug-in is wrong). */
int gs_sim_start(struct gs_sim *s, struct gs_job *job, struct gs_alloc *alloc);
/* Place and start in one call.  0, or GS_ENOFIT. */
int gs_sim_try_start(struct gs_sim *s, struct gs_job *job,
                     const struct gs_range *ranges, int nranges);
/* Stop a running preemptible job and requeue it; work since its last
 * checkpoint is lost.  GS_ESTATE if it is not running or not preemptible. */
int gs_sim_preempt(struct gs_sim *s, struct gs_job *job);
/* Stop a running job for a reason outside the policy (spot reclaim, a
 * failed node, a reclaimed loan): work since its last checkpoint is lost,
 * the restart overhead is added, and it is requeued -- preemptible or not.
 * The policy's stopped() hook sees why (GS_STOP_*).  GS_ESTATE if the job
 * is not running. */
int gs_sim_interrupt(struct gs_sim *s, struct gs_job *job, int why);
/* Checkpoint a running job now: if it is interrupted later it keeps at
 * least the work done so far.  GS_ESTATE if it is not running or does not
 * checkpoint (no checkpoint interval). */
int gs_sim_checkpoint(struct gs_sim *s, struct gs_job *job);
/* Change a running job's speed: rate is reference-ms of work per ms (1/the
 * time factor on its model, times whatever share of the GPU it gets).  Work
 * done so far is kept and the finish event moves.  rate 0 pauses it. */
int gs_sim_set_rate(struct gs_sim *s, struct gs_job *job, double rate);
/* Schedule a model's own event at time t (>= now); the callback receives
 * the simulation as its context.  0 or GS_ENOMEM. */
int gs_sim_at(struct gs_sim *s, struct gs_event *ev, gs_time t);
void gs_sim_cancel(struct gs_sim *s, struct gs_event *ev);
/* From a model's event handler, whose event would next be due at t (> now)
 * with nothing else in the simulation due at or before t: move the clock
 * to t as the loop would on waking for that event alone (the models'
 * advance hooks, the metrics' integrals, the clock; for a still event,
 * gs_sim_still_event, the eager models' alone), and return 1; the
 * handler then does at t what its event would have done, without the
 * event queue's round trip.  0 (nothing done) when anything else may
 * happen first or at t -- another event, an arrival, a scheduling pass,
 * the run's end -- and the handler schedules its event at t as usual.
 * Either way the run's results are the same, to the bit. */
int gs_sim_move_clock(struct gs_sim *s, gs_time t);
/* Declare ev still: its handler changes the cluster only through
 * gs_sim_submit, gs_sim_complete and the calls that start, stop or re-rate
 * jobs (each cuts the integrals first), and reports energy through
 * gs_sim_job_energy; a move of the clock for still events alone leaves
 * the integrals over time waiting at their last cut (still.c).  0 or
 * GS_ENOMEM. */
int gs_sim_still_event(struct gs_sim *s, struct gs_event *ev);
/* Whether gs_sim_move_clock may move the clock (1, the default) or always
 * answers 0 (every wake-up through the event queue): tests compare the
 * two. */
void gs_sim_set_move_clock(struct gs_sim *s, int on);
/* End a pending or running job for good (reason: GS_KILL_*), counted in the
 * results.  GS_ESTATE if it has already ended. */
int gs_sim_kill(struct gs_sim *s, struct gs_job *job, int reason);

/* --- for the models (model.h) ------------------------------------------- */
/* The pending list and the running jobs as a model reads them (not the
 * policy's work: not counted).  The pending list is in arrival order;
 * a job's ->next is the one after it.  Running jobs as an array (order
 * unspecified, changes on start/stop). */
struct gs_job *gs_sim_backlog_head(const struct gs_sim *s);
struct gs_job *const *gs_sim_running(const struct gs_sim *s, long *n);
/* A model's own job (an inference replica): sp arrives now, is queued for
 * the policy like any job and is placed by it; owner (the model's state)
 * is kept in job->owner so the model's job hooks know it.  *out is the job
 * while it is pending or running (it is recycled once it ends: the model
 * hears job_ended first).  0, or GS_EINVAL when no pool could ever hold it
 * (the model checks that when it is built), or GS_ENOMEM. */
int gs_sim_submit(struct gs_sim *s, const struct gs_jobspec *sp, void *owner,
                  struct gs_job **out);
/* End job now as done (a drained replica): a running job's work counts as
 * complete and its GPUs are given back; a pending job is withdrawn
 * (GS_KILL_WITHDRAWN).  GS_ESTATE if it has already ended. */
int gs_sim_complete(struct gs_sim *s, struct gs_job *job);
/* Capacity changed outside the policy's doing: schedule again. */
void gs_sim_wake(struct gs_sim *s);
/* A spot node will be reclaimed at `at`: the policy's spot_notice hook, or
 * the default (jobs on the node that checkpoint do so now). */
void gs_sim_spot_notice(struct gs_sim *s, int node, gs_time at);

/* Placement experiments (placeexp.h): the job sp arrives now and is placed
 * at once by the placer and started, or, if it does not fit, ended as
 * unplaceable -- no queue, no policy.  *placed = 1 if it runs.  Jobs no
 * pool could ever take are not admitted at all (*placed = 0).  The run
 * loop (gs_sim_run) is not used with it.  0 or a negative code with d
 * filled. */
int gs_sim_offer(struct gs_sim *s, const struct gs_jobspec *sp, int *placed,
                 struct gs_diag *d);

#endif
