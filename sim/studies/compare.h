/* compare.h -- `gpusim compare` (policies x seeds, statistics, one HDF5
 * file, plots) and `gpusim train` (fit rl-lite's weights), as entry points
 * the CLI dispatches to.  Each returns the process exit status: 0 done,
 * 2 bad input or usage, 1 results not written. */
#ifndef GS_COMPARE_H
#define GS_COMPARE_H

int gs_compare_main(int argc, char **argv);
int gs_train_main(int argc, char **argv);

/* Mean, sample standard deviation and the half-width of the 95% confidence
 * interval of the mean (Student's t with n-1 degrees of freedom, GSL's
 * gsl_cdf_tdist_Pinv(0.975, n-1)); *t receives that quantile.  For n < 2
 * the standard deviation is 0 and the half-width and t are NaN. */
void gs_ci95(const double *x, int n, double *mean, double *sd, double *t,
             double *half);

struct gs_summary;
struct gs_scenario;

/* The metrics compare (and bench_policies) report: every summary scalar
 * (the core's and the models', model.h), then wait_mean_s, wait_p95_s,
 * wait_p99_s, jct_mean_s of all jobs, sla_violations (wait limit +
 * deadline), and utilization_makespan and throughput_makespan_jph -- the
 * run's own utilization and throughput, which compare keeps from before it
 * extends a run to the common billing window. */
int gs_compare_nmetrics(void);
const char *const *gs_compare_metric_names(void);
void gs_compare_metric_values(const struct gs_summary *su, double *v);

/* The training objective of one finished run (lower is better): wait x the
 * mean queueing delay in minutes, weighted by tier priority / 50, + sla x
 * the percent of jobs that violated their wait limit or deadline + cost x
 * the run's cost in k$. */
double gs_train_objective(const struct gs_summary *su,
                          const struct gs_scenario *sc, double wait,
                          double sla, double cost);

#endif
