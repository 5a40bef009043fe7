/* mpirun.h -- run independent tasks across MPI ranks and forked workers.
 *
 * `gpusim sweep` and `gpusim plan` evaluate many simulations that share
 * nothing.  gs_dist_run() spreads a batch of tasks over the MPI ranks when
 * the program was started by mpirun or srun (each rank running its share
 * in gs_pool_run's forked workers), and gathers every task's numbers on
 * every rank, so every rank takes the same decisions afterwards; only rank
 * 0 prints and writes files.  Results depend only on the tasks, never on
 * the number of ranks or workers: runs are byte-identical with any -np.
 *
 * MPI is linked in but initialized only when the environment says a
 * launcher started us (OMPI_COMM_WORLD_SIZE from Open MPI's mpirun,
 * PMIX_RANK from srun --mpi=pmix); a plain `gpusim plan` never touches
 * it. */
#ifndef GS_MPIRUN_H
#define GS_MPIRUN_H

#include "pool.h"

/* Start MPI if launched under mpirun/srun.  0 or GS_EIO. */
int gs_dist_init(int *argc, char ***argv);
/* Finish MPI if it was started. */
void gs_dist_finalize(void);
int gs_dist_rank(void);
int gs_dist_size(void);
/* 1 if this process prints and writes the results (rank 0). */
int gs_dist_leader(void);

/* The leader's v, on every rank (v itself without MPI): a verdict only the
 * leader can take -- may it write its result file? -- taken by all. */
int gs_dist_agree(int v);

/* May the command write its result file?  With *out NULL the name is the
 * default one, the scenario argument's name followed by suffix
 * (gs_out_default_name), which is refused when the file exists and force
 * is not set (a result is never replaced silently); *out then points at
 * it and *defout owns it (the caller frees it; NULL when --out named the
 * file).  Either way the path must be able to receive a result
 * (gs_out_check).  The leader decides, before any run, for every rank: 0,
 * or GS_EINVAL on every rank with d filled on the leader. */
int gs_dist_out_check(const char *scenario, const char *suffix, int force,
                      const char **out, char **defout, struct gs_diag *d);

/* Run tasks 0..ntasks-1 over the ranks, each rank with `jobs` forked
 * workers, and leave task i's nout numbers at results[i * nout] on every
 * rank.  0, or the failing task's code with d filled (the same on every
 * rank). */
int gs_dist_run(int ntasks, int jobs, int nout, gs_pool_fn *fn, void *ctx,
                double *results, struct gs_diag *d);
/* The same with the tasks named (pool.h's gs_pool_name_fn, called with
 * ctx) in a failure's message: "task 3 (P2 seed=7, seed 8): ...". */
int gs_dist_run_named(int ntasks, int jobs, int nout, gs_pool_fn *fn,
                      gs_pool_name_fn *name, void *ctx, double *results,
                      struct gs_diag *d);

/* Progress: fn(ndone, ntasks, ctx) on the leader as each of its tasks
 * finishes in the gs_dist_run calls that follow (under MPI the leader sees
 * its own block of each batch).  fn NULL: none. */
typedef void gs_dist_done_fn(int ndone, int ntasks, void *ctx);
void gs_dist_progress(gs_dist_done_fn *fn, void *ctx);

/* The default number of workers per rank: the CPUs when alone, 1 under
 * MPI (one rank per core is how MPI jobs are laid out). */
int gs_dist_default_jobs(void);

#endif
