/* replay.h -- how far a replay of an imported history is from what the
 * cluster recorded: `gpusim replay-check`.
 *
 * A cluster importer (k8s-pods, slurm-sacct) publishes each job's recorded
 * wait (start - arrival, traces/cimport.h).  replay-check runs the scenario
 * -- the same jobs, under a policy like the cluster's -- and sets the
 * simulated waits beside the recorded ones, job by job (ids match):
 *   - both distributions (mean and quantiles), and the two-sample
 *     Kolmogorov-Smirnov statistic D = sup |F_rec(x) - F_sim(x)| with its
 *     asymptotic p-value (Numerical Recipes' Q_KS with the effective size
 *     n1 n2 / (n1 + n2) and Stephens' correction);
 *   - per-job differences (simulated - recorded): mean, median, mean and
 *     90th percentile of the absolute difference, the share within 1 and
 *     10 minutes, and the largest ones;
 *   - with --dcgm, the measured GPUs allocated (DCGM samples carrying a
 *     pod) against the replay's allocated GPUs, hour by hour.
 * Jobs the replay never started are counted apart (their simulated wait is
 * only known to exceed the run's end), not put in the distributions. */
#ifndef GS_REPLAY_H
#define GS_REPLAY_H

#include "../base/err.h"
#include "../core/job.h"

#include <stdint.h>
#include <stdio.h>

struct gs_ks {
    double d;           /* sup |F1 - F2| */
    double p;           /* asymptotic P(D >= d) under one law */
    long n1, n2;
};

/* Q_KS(lambda) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 lambda^2): 1 at 0. */
double gs_ks_q(double lambda);
/* The two-sample statistic of a[0..na) and b[0..nb) (sorted copies are
 * made; the inputs are not changed).  0, GS_EINVAL (an empty sample) or
 * GS_ENOMEM. */
int gs_ks_two_sample(const double *a, long na, const double *b, long nb,
                     struct gs_ks *out);

struct gs_replay_job {
    int64_t id;
    double arrival_s;
    double recorded_s, simulated_s;     /* waits; simulated -1: not started */
};

struct gs_replay {
    long recorded;          /* jobs with a recorded start */
    long matched;           /* ... found in the replay */
    long unstarted;         /* ... the replay never started */
    long n;                 /* v: the matched and started ones */
    struct gs_replay_job *v;
    struct gs_ks ks;
    double diff_mean, diff_median, absdiff_mean, absdiff_p90;
    double within_1m, within_10m;       /* shares of n */
};

/* Pair the recorded waits (ids, waits in ms, n of them) with the replay's
 * records.  0, GS_EINVAL (no job matched) or GS_ENOMEM; free with
 * gs_replay_free. */
int gs_replay_compare(const int64_t *id, const int64_t *wait_ms, long n,
                      const struct gs_jobrec *rec, long nrec,
                      struct gs_replay *out);
void gs_replay_free(struct gs_replay *r);
/* The report (distributions, KS, differences, the largest k). */
void gs_replay_print(FILE *fp, const struct gs_replay *r, int k);

/* `gpusim replay-check SCENARIO [options]`: exit status 0, 1 (output not
 * written, or --max-ks exceeded), 2 (bad usage or input). */
/* replayutil.c: the utilization DCGM measured (files[0..n), Prometheus
 * range-query exports) against the replay's, over the DCGM window, in
 * total, by model, by namespace and by hour, each side saying what it
 * measures; origin_ms is the import's time 0.  0 or a negative code with
 * d filled. */
struct gs_sim;
int gs_replay_util_print(FILE *fp, const char *const *files, int n,
                         const struct gs_sim *sim, int64_t origin_ms,
                         struct gs_diag *d);

int gs_replay_main(int argc, char **argv);

#endif
