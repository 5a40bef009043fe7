/* sweep.h -- `gpusim sweep`: any scenario keys over lists of values x seeds,
 * and the per-run metric list that sweeps and plans share.
 *
 * A sweep point is one combination of the --set values; every point runs
 * with seeds s, s+1, ..., s+N-1 (s the scenario's seed), so seed k of every
 * point sees the same workload (common random numbers).  The runs go to
 * mpirun.h's gs_dist_run: forked workers, and MPI ranks when launched by
 * mpirun or srun; stdout and the HDF5 file do not depend on either. */
#ifndef GS_SWEEP_H
#define GS_SWEEP_H

#include "../base/err.h"

#include <stdint.h>

struct gs_sim;
struct gs_scenario;

/* The metrics of one run: compare.h's list (every summary scalar, the
 * all-jobs waits, JCT and SLA violations), then sla_share (violations /
 * jobs), attainment (1 - sla_share), cost_per_hour_usd, cost_per_month_usd
 * (730 h), then per tier TIER.jobs, TIER.wait_mean_s, TIER.wait_p95_s,
 * TIER.wait_p99_s, TIER.sla_share, then the bound services' fields. */
int gs_run_nmetrics(void);
/* Add to the list the metrics of sc's inference services (service.h's
 * GS_SVCSUM_FIELDS as service.NAME.FIELD, e.g. service.chat.ttft_p99_s);
 * a run without that service fills them with NaN.  Call once, with the
 * scenario a sweep or plan starts from. */
void gs_run_bind(const struct gs_scenario *sc);
/* Index of a service summary field ("ttft_p99_s"), or -1. */
int gs_run_service_field(const char *field);
const char *gs_run_metric_name(int i);
/* Index of a metric by name, or -1. */
int gs_run_metric_index(const char *name);
void gs_run_metric_values(const struct gs_sim *sim, double *v);

/* Simulate sc with seed; fill v with the metrics.  0 or a negative code
 * with d filled. */
int gs_run_scenario(const struct gs_scenario *sc, uint64_t seed, double *v,
                    struct gs_diag *d);

/* Load a scenario file, or the built-in 'quickstart'.  0 or a negative
 * code with d filled. */
int gs_load_scenario(const char *arg, struct gs_scenario **sc,
                     struct gs_diag *d);
/* Parse text, an edited version of base's, as a scenario named after base's
 * file ("FILE (edited)").  0 or a negative code with d filled. */
int gs_reparse(const struct gs_scenario *base, const char *text,
               struct gs_scenario **out, struct gs_diag *d);
/* Print d as "gpusim: WHERE: WHAT" on stderr and return status. */
int gs_report_diag(const struct gs_diag *d, int status);

int gs_sweep_main(int argc, char **argv);

#endif
