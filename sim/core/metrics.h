/* metrics.h -- the books of a run: integrals, time series and the summary.
 *
 * The collector is told of every advance of the clock and integrates what
 * was true over the interval just ended: allocated and available GPU-time
 * (overall and per pool, hence per GPU model) and cost.  Because the state is
 * constant between events, the integrals are exact, and the time series is
 * sampled exactly on its fixed step without any sampling events.
 *
 * The summary is computed once at the end from the per-job records:
 * queueing delay (wait = first start - arrival) over jobs that started,
 * completion time (end - arrival) over jobs that finished, percentiles by
 * GSL's interpolated quantile of the sorted data, SLA violations (a wait
 * over the tier's limit, including jobs still waiting at the end whose wait
 * so far already exceeds it; a finish after the deadline, or no finish by
 * it).
 *
 * The series holds at most GS_SERIES_MAX samples: when it fills, every other
 * sample is dropped and the step doubles, so a 150-day trace at a 1-minute
 * step costs megabytes, not gigabytes, and stays deterministic.  The step in
 * force at the end is m->step (written to the result file). */
#ifndef GS_METRICS_H
#define GS_METRICS_H

#include "engine.h"
#include "../cluster/fleet.h"
#include "job.h"

#include <stdint.h>

#define GS_SERIES_MAX 262144   /* even */

struct gs_scenario;
struct gs_share;
struct gs_frag;

/* A job that waits longer than this is starved (the HPS paper's measure). */
#define GS_STARVED_AFTER (30 * GS_MIN)

struct gs_tstats {
    long jobs, started, done, killed, unfinished;
    double wait_mean, wait_p50, wait_p95, wait_p99, wait_max;   /* seconds */
    double jct_mean, jct_p50, jct_p95, jct_p99;                 /* seconds */
    long sla_wait, sla_deadline;
};

struct gs_mstats {
    int model;                  /* catalog index */
    double gpus;                /* GPUs of this model in the fleet */
    double util;                /* allocated / available GPU-time */
    double gpu_hours;           /* allocated */
};

/* The models' scalars at most (model.h: struct gs_field). */
#define GS_SUMMARY_MX 128
/* Every scalar of the summary at most, the core's and the models'. */
#define GS_SUMMARY_NMAX (GS_SUMMARY_MX + 64)

struct gs_summary {
    double start_s, end_s, span_h;
    long preemptions;
    double util;                /* allocated / available GPU-time */
    double gpu_hours_used, gpu_hours_avail;
    double cpu_util, mem_util;  /* requested / capacity of host CPU and
                                   memory, time mean */
    double cpu_core_hours;      /* host CPU requested by running jobs x
                                   time, core-hours (CPU-only jobs too) */
    double stranded_gpu_hours;  /* GPU-time free on nodes out of CPU or
                                   memory (fleet.h GS_STRAND_*) */
    double throughput_jph;      /* finished jobs per hour */
    double cost;                /* $ for the fleet over the span */
    double cost_per_used_gpu_hour;
    /* The measures of the HPS paper (arXiv 2512.10980, section V): */
    double fairness_var;        /* variance of per-job queueing delay, min^2 */
    long starved;               /* jobs that waited over GS_STARVED_AFTER */
    /* GPU sharing (share.h, frag.h; docs/sharing.md): */
    double fragmentation;       /* FGD fragmentation / capacity, time-mean */
    double mig_slice_util;      /* busy / available MIG compute slices */
    long mig_reconfigs;         /* MIG layout changes */
    long oom_kills;             /* time-slicing out-of-memory kills */
    long reclaim_kills, reclaim_evictions;  /* fractional loans reclaimed */
    double sharing_slowdown;    /* mean slowdown of jobs on shared GPUs */
    double ts_p99_added_ms;     /* p99 latency added, busy time-sliced GPUs */
    struct gs_tstats all, tier[GS_NTIERS];
    int nmodels;
    struct gs_mstats model[GS_MAX_MODELS];
    /* The models' scalars (model.h), in output order: a model's start at
     * gs_summary_model_base(&its_ops); 0 for a model not in the run. */
    double mx[GS_SUMMARY_MX];
    /* Waiting and running jobs, groups and tenants the policy read over
     * the run, counted by the core as its accessors hand them over, plus
     * one a placement asked (look.h): a deterministic measure of its work,
     * not a metric of the cluster, so it is in --json but not in the
     * compared fields. */
    uint64_t policy_work;
};

/* The core's scalars of the summary: X(expr, name, printf format); expr
 * reads su, a const struct gs_summary *.  The models' follow them
 * (model.h: fields); every writer (table, JSON, CSV, the HDF5 /summary
 * attributes, `gpusim compare`) iterates gs_summary_field_name(). */
#define GS_SUMMARY_FIELDS(X)                                    \
    X(su->span_h, "span_h", "%.4f")                             \
    X(su->util, "utilization", "%.6f")                          \
    X(su->gpu_hours_used, "gpu_hours_used", "%.4f")             \
    X(su->gpu_hours_avail, "gpu_hours_available", "%.4f")       \
    X(su->cpu_util, "cpu_utilization", "%.6f")                  \
    X(su->mem_util, "memory_utilization", "%.6f")               \
    X(su->cpu_core_hours, "cpu_core_hours", "%.4f")             \
    X(su->stranded_gpu_hours, "stranded_gpu_hours", "%.4f")     \
    X(su->throughput_jph, "throughput_jobs_per_hour", "%.4f")   \
    X(su->cost, "cost_usd", "%.2f")                             \
    X(su->cost_per_used_gpu_hour, "cost_per_used_gpu_hour", "%.4f") \
    X((double)su->preemptions, "preemptions", "%.0f")           \
    X(su->fairness_var, "fairness_variance_min2", "%.4f")       \
    X((double)su->starved, "starved_jobs", "%.0f")              \
    X(su->fragmentation, "fragmentation", "%.6f")               \
    X(su->mig_slice_util, "mig_slice_utilization", "%.6f")      \
    X((double)su->mig_reconfigs, "mig_reconfigurations", "%.0f") \
    X((double)su->oom_kills, "oom_kills", "%.0f")               \
    X((double)su->reclaim_kills, "reclaim_kills", "%.0f")       \
    X((double)su->reclaim_evictions, "reclaim_evictions", "%.0f") \
    X(su->sharing_slowdown, "sharing_slowdown_mean", "%.6f")    \
    X(su->ts_p99_added_ms, "timeslice_p99_added_ms", "%.4f")

struct gs_series {
    long n, cap;
    int nmodels;
    int models[GS_MAX_MODELS];  /* catalog indexes, fleet order */
    double *t;                  /* seconds */
    double *alloc, *queue, *running, *cost_rate, *gpus_up;
    double *frag;               /* fragmentation / capacity (frag.h) */
    double *mig_busy;           /* busy / available MIG compute slices */
    double *stranded;           /* GPUs free on nodes out of CPU or memory */
    double *cpu_alloc;          /* host CPU requested by running jobs, cores */
    double *mem_alloc;          /* host memory requested, GiB */
    double *alloc_model;        /* n x nmodels, row-major */
    int nx;                     /* columns a model added (gs_metrics_hook) */
    const char *const *xnames;
    double *x;                  /* n x nx, row-major */
};

/* A model's view for the books: the fleet's cost rate ($/h) at time t, and
 * nx more time-series columns filled for a sample at time t. */
struct gs_metrics_hook {
    double (*cost_rate)(void *ctx, gs_time t);
    void (*fill)(void *ctx, gs_time t, double *row);
    int nx;
    const char *const *names;   /* static storage */
    void *ctx;
};

/* The sharing model's levels at this instant (share.c), which the metrics
 * integrate over time. */
struct gs_share_levels {
    double mig_busy_slices;     /* compute slices of busy MIG instances */
    double mig_slices_up;       /* 7 x MIG GPUs on up nodes */
    double ts_latency_ms;       /* sum over busy time-sliced GPUs of the
                                   p99 latency added by their contexts */
    double ts_busy_gpus;        /* time-sliced GPUs with a job */
};

/* The sharing model's counts and means for the summary (share.c). */
struct gs_share_stats {
    long oom_kills;
    long reclaim_kills, reclaim_evictions;
    long reconfigurations;
    double slowdown_mean;       /* over jobs that ran on shared GPUs */
    long slowed_jobs;           /* how many such jobs */
};

struct gs_metrics {
    gs_time t0, last, step, next_sample;
    int started;
    double used_ms, avail_ms, cost;
    double *pool_used_ms, *pool_avail_ms;
    int npools;
    struct gs_series ts;
    struct gs_metrics_hook hook;
    /* The sharing model's levels, read at every advance, and counters,
     * read at the summary: share.c sets them (share NULL: no sharing). */
    const void *share;
    void (*share_levels)(const void *share, struct gs_share_levels *o);
    void (*share_stats)(const void *share, struct gs_share_stats *o);
    const struct gs_frag *frag;
    double frag_ms, frag_cap_ms;        /* integrals of milli x ms */
    double cpu_ms, mem_ms;              /* requested CPU / memory share x ms */
    double core_ms;                     /* requested cores x ms */
    double strand_ms;                   /* stranded GPUs x ms */
    double mig_busy_ms, mig_up_ms;      /* of compute slices x ms */
    double ts_lat_ms, ts_busy_ms;       /* of latency sum, busy GPUs x ms */
};

/* 0 or GS_ENOMEM. */
int gs_metrics_init(struct gs_metrics *m, const struct gs_fleet *f,
                    gs_time step);
void gs_metrics_free(struct gs_metrics *m);
/* The clock is about to move from m->last to t: integrate the state that
 * held over [last, t) and take the samples that fall in it.  The first call
 * sets the start of the measured window.  0 or GS_ENOMEM. */
int gs_metrics_advance(struct gs_metrics *m, const struct gs_fleet *f,
                       long pending, long running, gs_time t);
/* Cost rate of the fleet now, $ per hour (every provisioned node billed). */
double gs_metrics_cost_rate(const struct gs_fleet *f);
/* Take the cost rate and extra columns from a model (before the first
 * advance).  The summary's cost is then the model's to set. */
void gs_metrics_set_hook(struct gs_metrics *m, const struct gs_metrics_hook *h);

void gs_metrics_summarize(const struct gs_metrics *m,
                          const struct gs_fleet *f,
                          const struct gs_scenario *sc,
                          const struct gs_jobrec *rec, long n,
                          struct gs_summary *out);

#endif
