/* cmppair.h -- compare's paired analysis: each policy's difference from a
 * baseline over common random numbers, Holm-corrected significance over
 * every pair of policies, and ranking lines that claim only significant
 * differences (statistics in ../base/steady.h). */
#ifndef GS_CMPPAIR_H
#define GS_CMPPAIR_H

#include <stdio.h>

/* One comparison's runs: values[((p * nseeds) + k) * nmetrics + m] is
 * metric m of policy p on seed k (seed k is the same for every policy). */
struct gs_cmp_runs {
    int npol, nseeds, nmetrics;
    const char *const *pol;
    const char *const *metrics;
    const double *values;
};

/* For metric m: diff[p], half[p] (95% interval of policy p minus the
 * baseline, paired by seed), and sig[p * npol + q] = 1 when policies p and
 * q differ after Holm's correction over all npol (npol - 1) / 2 pairs at
 * 5%.  Arrays are the caller's: diff and half [npol], sig [npol * npol].
 * 0, or a negative code (GS_EINVAL with fewer than 2 seeds, GS_ENOMEM). */
int gs_cmp_pairs(const struct gs_cmp_runs *r, int m, int baseline,
                 double *diff, double *half, int *sig);

/* 1 when a higher value of the metric named is better (utilization,
 * throughput, attainment, goodput, ...), 0 when lower is (waits, cost,
 * starved jobs, ...). */
int gs_cmp_higher_better(const char *metric);

/* 1 for the measures that rank policies by their own work
 * (utilization_makespan, throughput_makespan_jph), 2 for the billing ones
 * they stand beside (utilization, throughput_jobs_per_hour: over the
 * billing window), 0 for the rest. */
int gs_cmp_measure_kind(const char *metric);

/* Print the paired differences from the baseline for the metrics with
 * show[m] set, then one ranking line a metric.  0, or a negative code. */
int gs_cmp_print_pairs(FILE *fp, const struct gs_cmp_runs *r,
                       const char *show, int baseline);

/* The same as CSV rows "policy,metric,baseline,diff,half,ci_low,ci_high,
 * p_holm_significant" (header included). */
int gs_cmp_print_pairs_csv(FILE *fp, const struct gs_cmp_runs *r,
                           const char *show, int baseline);

#endif
