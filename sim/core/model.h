/* model.h -- how models join the simulation: one struct of hooks each.
 *
 * A model (GPU sharing, the cloud's markets, spot, failures and scaling,
 * inference services) is to the simulation what a policy is to scheduling:
 * a const struct of hooks, listed once in gs_models[] (model.c), which
 * sim.c calls in one loop at fixed points of a run.  This is ROSS's "a
 * model is a struct of hooks" (Carothers et al., "ROSS: a high-performance,
 * low-memory, modular Time Warp system", JPDC 2002) applied to a sequential
 * engine.  sim.c never names a model: adding one is a file and a table line.
 *
 * Life of a model in a run:
 *
 *   build        gs_sim_new, after the fleet, the policy, the placer and
 *                the metrics exist; *state = NULL means "not in this run"
 *                (no hook of that model is called again, not even free);
 *   start        the first arrival's time is known (not called when the
 *                workload is empty, nor by placement experiments);
 *   pool_ok      a veto: may this job use this pool at all (the spot rule);
 *                asked in admission and placement, so it must be cheap and
 *                must not change with time; it may look at the pool and at
 *                the job's tier and need only (admission remembers its
 *                answers for alike jobs: sim.c, shape_answers);
 *   job_started  a job has taken its allocation and runs at its unshared
 *                speed (a model may change its rate through sim.h);
 *   job_stopping a running job is about to give its allocation back
 *                (finish, preemption, interruption, kill);
 *   job_ran      the allocation is back in the fleet (or the books close
 *                with the job running): return the $ the model bills to
 *                that run, added to the job's record;
 *   job_ended    a job left the system for good or went back to the queue
 *                (why: GS_STOP_*, after the policy heard it);
 *   advance      the clock is about to move to t (integrals over time);
 *   after_schedule  the policy has just made a scheduling pass;
 *   close        the run ends at `end`: close the books;
 *   summarize    fill the model's part of the summary;
 *   alive        1 while the model has work to come that keeps a run with
 *                no horizon going (requests not yet arrived or in flight)
 *                even when no job waits or runs;
 *   free         NULL-safe, after the event queue is gone (a model may own
 *                events embedded in its state).
 * Hooks are called in table order; a model whose hook is NULL is skipped.
 * Models act on jobs only through the engine calls of sim.h and see each
 * other only through what the fleet shows. */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include "engine.h"
#include "../base/err.h"
#include "../cluster/fleet.h"
#include "job.h"
#include "metrics.h"

#include <stdint.h>

struct gs_sim;
struct gs_scenario;

struct gs_model_ops {
    const char *name;
    int (*build)(struct gs_sim *s, const struct gs_scenario *sc,
                 struct gs_fleet *f, struct gs_metrics *m, uint64_t seed,
                 void **state, struct gs_diag *d);
    void (*free)(void *st);
    int (*start)(void *st, gs_time t0);
    int (*pool_ok)(const void *st, int pool, const struct gs_job *j);
    void (*job_started)(void *st, struct gs_job *j);
    void (*job_stopping)(void *st, struct gs_job *j);
    double (*job_ran)(void *st, const struct gs_job *j);
    void (*job_ended)(void *st, struct gs_job *j, int why);
    void (*advance)(void *st, gs_time t);
    void (*after_schedule)(void *st);
    void (*close)(void *st, gs_time end);
    void (*summarize)(const void *st, struct gs_summary *su);
    int (*alive)(const void *st);
};

/* Every model, in the order their hooks are called; NULL-terminated. */
extern const struct gs_model_ops *const gs_models[];

/* The state model ops has in simulation s, NULL if it is not in the run. */
void *gs_sim_model(const struct gs_sim *s, const struct gs_model_ops *ops);

#endif
