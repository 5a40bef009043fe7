/* pool.h -- run independent tasks in forked worker processes.
 *
 * `gpusim compare` and `gpusim train` run many simulations that share
 * nothing; each is a task that fills a fixed number of doubles.  The pool
 * forks up to `jobs` workers, worker w running tasks w, w + jobs, ..., and
 * sends each task's numbers back through its own pipe, so results land in
 * task order whatever the number of workers: a run is reproducible with any
 * --jobs.  With jobs <= 1 the tasks run in this process (no fork), which is
 * what the tests and the sanitizer builds use. */
#ifndef GS_POOL_H
#define GS_POOL_H

#include "err.h"

/* One task: fill out[0..nout-1]; 0, or a negative code with d filled. */
typedef int gs_pool_fn(int task, double *out, void *ctx, struct gs_diag *d);

/* Run tasks 0..ntasks-1 and store task i's numbers at results[i * nout].
 * 0, or the first failing task's code with d filled (its message prefixed
 * by nothing: the task names itself). */
int gs_pool_run(int ntasks, int jobs, int nout, gs_pool_fn *fn, void *ctx,
                double *results, struct gs_diag *d);

#endif
