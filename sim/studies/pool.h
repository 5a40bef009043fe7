/* pool.h -- run independent tasks in isolated worker processes.
 *
 * `gpusim compare`, `train` (and sweeps and plans) run many simulations
 * that share nothing; each is a task, numbered 0..ntasks-1, that fills a
 * fixed number of doubles.  The pool forks up to `jobs` workers and hands
 * out task numbers one at a time over a pipe as workers become free (a slow
 * policy does not hold up a worker's share of fast ones); each result comes
 * back over the worker's own pipe and is stored at results[task * nout], so
 * the results are the same whatever the number of workers or the order in
 * which tasks finish: a run is reproducible with any --jobs.
 *
 * Isolation: every task runs in a worker, also with jobs = 1, so a plug-in
 * that crashes takes down its worker, never gpusim.  A worker that dies
 * before reporting its task is an error naming that task (through the
 * optional `name` callback: "policy hps, seed 12") and how it died (signal
 * or exit status); the other workers are then stopped.  Workers die with
 * the parent (PR_SET_PDEATHSIG) and are stopped by gpusim's signal handler
 * (cleanup.h), so an interrupted run leaves no orphans.  Only jobs = 0
 * runs the tasks in this process (for a debugger; no isolation). */
#ifndef GS_POOL_H
#define GS_POOL_H

#include "../base/err.h"

#include <stddef.h>

/* One task: fill out[0..nout-1]; 0, or a negative code with d filled
 * (d->what should say what failed; the pool adds nothing to it). */
typedef int gs_pool_fn(int task, double *out, void *ctx, struct gs_diag *d);

/* Describe task for messages ("policy hps, seed 12"): a new string of
 * any length (the caller frees it), or NULL (out of memory: the task goes
 * by its number alone). */
typedef char *gs_pool_name_fn(int task, void *ctx);

/* Called in the parent as each task's result arrives (ndone tasks done so
 * far, in arrival order): for progress lines and incremental output. */
typedef void gs_pool_done_fn(int task, int ndone, const double *out,
                             void *ctx);

struct gs_pool_tasks {
    int ntasks;               /* tasks 0..ntasks-1 */
    int jobs;                 /* worker processes (capped at ntasks); 0:
                                 run in this process, not isolated */
    int nout;                 /* doubles per task, >= 0 */
    gs_pool_fn *fn;           /* runs in a worker */
    gs_pool_name_fn *name;    /* optional */
    gs_pool_done_fn *done;    /* optional, runs in the parent */
    void *ctx;                /* passed to the three callbacks */
};

/* Run every task; results has ntasks * nout doubles.  0, or the code of a
 * failed task with d filled (the task's own diagnostic, or "task N (NAME):
 * the worker process was killed by signal S (...)"); remaining workers are
 * stopped at the first failure.  GS_EIO when a worker died or a pipe or
 * fork failed. */
int gs_pool_exec(const struct gs_pool_tasks *p, double *results, struct gs_diag *d);

/* A limit on the wall time of each task in a worker (--task-timeout):
 * a worker that holds one task longer is killed and the run fails naming
 * the task.  seconds <= 0: no limit (the default).  Process-wide. */
void gs_pool_set_timeout(double seconds);

/* The same limit on a command whose one task runs in this process (run,
 * place-exp, replay-check): armed on "VERB of FILE" (cleanup.h's
 * gs_cleanup_deadline: past it, a message naming the task, exit 1,
 * nothing left behind); verb NULL disarms.  0, or -1 when it cannot be
 * armed. */
int gs_pool_deadline(const char *verb, const char *file);

/* The same without name and done callbacks. */
int gs_pool_run(int ntasks, int jobs, int nout, gs_pool_fn *fn, void *ctx,
                double *results, struct gs_diag *d);

#endif
