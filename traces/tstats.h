/* tstats.h -- describing a workload: what `gpusim trace stats` prints.
 *
 * A struct gs_tstats takes jobs one at a time (gs_tstats_add) and keeps
 * counters plus, per job, its duration and GPU demand (16 bytes a job, for
 * percentiles and the peak concurrent demand), so memory is proportional to
 * the jobs.  Request tables (llmreq.h) are described by gs_reqstats_print.
 *
 * Conventions: hour of day and weekday count from the trace's time 0 (its
 * first midnight, as far as gpusim knows) unless an origin wall-clock time
 * is known (Azure's requests); a job's GPUs are gpus, or milli/1000 for a
 * fraction; GPU-hours are GPUs x duration on the reference model. */
#ifndef GS_TSTATS_H
#define GS_TSTATS_H

#include "../sim/core/job.h"
#include "llmreq.h"

#include <stdio.h>

#define GS_TSTATS_BINS 10       /* GPU-demand histogram bins */

struct gs_tstats_tenant {
    char name[GS_TENANT_NAME];
    long n;
    double gpu_hours;
};

struct gs_tstats {
    long n;
    gs_time first, last;
    long by_hour[24];           /* arrivals by hour of day */
    long bins[GS_TSTATS_BINS];  /* jobs by GPU demand (see bin names) */
    double bin_gh[GS_TSTATS_BINS];
    long tier_n[GS_NTIERS];
    double tier_gh[GS_NTIERS];
    double gpu_hours;           /* total demanded */
    double max_gpus;
    int ntenants, captenants;
    struct gs_tstats_tenant *tenants;
    int *hidx;                  /* hash of tenant names -> index, -1 empty */
    int hcap;
    long cap;
    double *dur_s;              /* duration of each job, s */
    float *gpus;                /* GPU demand of each job */
    gs_time *arr;               /* arrival of each job, ms */
    double *sorted;             /* durations sorted (percentiles) */
    long nsorted;
};

void gs_tstats_init(struct gs_tstats *s);
void gs_tstats_free(struct gs_tstats *s);
/* Add a job.  0 or GS_ENOMEM. */
int gs_tstats_add(struct gs_tstats *s, const struct gs_jobspec *j);

/* Name of GPU-demand bin b ("CPU-only", "fraction", "1", "2", "3-4", ...). */
const char *gs_tstats_bin_name(int b);
/* Bin of a demand of g GPUs (0 = CPU-only, 0<g<1 = fraction). */
int gs_tstats_bin(double g);

/* Duration percentile q (0..100) in seconds (nearest rank on the sorted
 * durations; sorts the array on first use). */
double gs_tstats_pct(struct gs_tstats *s, double q);
/* The largest total GPU demand of jobs running at once if every job
 * started on arrival (an infinite fleet). */
double gs_tstats_peak_demand(const struct gs_tstats *s);
/* Arrivals per hour in hour-of-day h: arrivals in h divided by the hours of
 * the span [first, last] that fall in h. */
double gs_tstats_hour_rate(const struct gs_tstats *s, int h);

/* Print the description.  fleet_gpus > 0 adds the offered load against a
 * fleet of that many GPUs (named by fleet, e.g. the scenario). */
void gs_tstats_print(FILE *fp, struct gs_tstats *s, const char *source,
                     double fleet_gpus, const char *fleet);

/* Describe a request table: count, span, arrival rate by hour, input and
 * output token percentiles, prefix-block reuse. */
void gs_reqstats_print(FILE *fp, const struct gs_reqtable *t);

#endif
