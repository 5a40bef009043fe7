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
 * TIER.wait_p99_s, TIER.sla_share, then the models' targets bound to the
 * scenario (model.h ntargets). */
int gs_run_nmetrics(void);
/* Add to the list the models' targets for sc (model.h ntargets: e.g. the
 * services' summary fields as service.NAME.FIELD, service.chat.ttft_p99_s);
 * a run without that service fills them with NaN.  Call once, with the
 * scenario a sweep or plan starts from; sc must outlive the list. */
void gs_run_bind(const struct gs_scenario *sc);
/* Is metric a model's target for sc (model.h target_check): 1 yes, -1 it
 * looks like one but is not (why says why), 0 not a model's. */
int gs_run_target_check(const struct gs_scenario *sc, const char *metric,
                        char *why, size_t n);
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
/* The scenario's policy and placement are registered names (as gs_sim_new
 * checks them, with the same messages: "FILE: $.policy: unknown policy
 * 'x' (did you mean ...)"), so a tool refuses them before any run.  0, or
 * GS_ENOTFOUND with d filled. */
int gs_check_names(const struct gs_scenario *sc, struct gs_diag *d);
/* Print d as "gpusim: WHERE: WHAT" on stderr (the leader: mpirun.h),
 * empty it (gs_diag_free) and return status. */
int gs_report_diag(struct gs_diag *d, int status);

int gs_sweep_main(int argc, char **argv);

#endif
