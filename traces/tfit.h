/* tfit.h -- fitting a generator spec to a workload (`gpusim trace fit`).
 *
 * A fitter collects jobs (compactly: 40 bytes a job) and then fits, by
 * maximum likelihood:
 *   arrivals   a Poisson process with rate
 *                rate * (1 + amplitude*cos(2*pi*(hour - peak)/24))
 *                     * (1 - dip * weekend)
 *              -- the generator's own model (gen.h) -- over the span from
 *              the first to the last arrival;
 *   per class  (one per tier present, or one for all) the class weight, the
 *              GPU-count distribution (its observed frequencies), the tenant
 *              mix, and the duration law: exponential, lognormal and Pareto
 *              (closed-form maximum-likelihood estimates), and 65 empirical
 *              quantiles.
 * Each fitted law gets its Kolmogorov-Smirnov distance to the data; for the
 * arrival process that is the distance of the time-rescaled arrivals
 * Lambda(t_i)/Lambda(T) from uniform (the time-rescaling theorem, Brown et
 * al., Neural Computation 2002).  The spec written is one `gpusim trace
 * gen` accepts (gs_genspec_load). */
#ifndef GS_TFIT_H
#define GS_TFIT_H

#include "../sim/base/err.h"
#include "../sim/io/gen.h"
#include "../sim/cluster/gpu.h"
#include "../sim/core/job.h"
#include "llmreq.h"

#include <stdio.h>

#define GS_WLFIT_MAX_CLASSES GS_NTIERS

/* Which duration law the spec uses. */
enum { GS_WLFIT_AUTO = -1 };      /* or a GS_DIST_* kind */

struct gs_fitopts {
    int by_tier;                /* one class per tier (1) or one in all (0) */
    int durations;              /* GS_WLFIT_AUTO or GS_DIST_EXPONENTIAL,
                                   _LOGNORMAL, _PARETO, _EMPIRICAL */
    /* auto: the parametric law with the smallest KS distance, unless that
     * distance exceeds auto_ks (and the class has >= 200 jobs): then the
     * empirical quantiles. */
    double auto_ks;
};

void gs_fitopts_default(struct gs_fitopts *o);

struct gs_fitlaw {
    double a, b;                /* as struct gs_distspec (ms) */
    double ks;                  /* Kolmogorov-Smirnov distance */
    double loglik;              /* of the durations in ms; NAN if none */
};

/* The most tenants a fitted class names; the rest are merged into
 * "other" (a spec itself may name any number). */
#define GS_FIT_MAX_TENANTS 64

struct gs_fitclass {
    char name[GS_NAME];
    int tier;
    long n;
    double weight;              /* share of the jobs */
    struct gs_fitlaw exp, logn, par, emp;
    int chosen;                 /* GS_DIST_* written to the spec */
    double max_ms;              /* longest duration seen */
    struct gs_distspec emp_spec;    /* the 65 quantiles */
    int nvalues;                /* GPU counts and their weights (counts) */
    double gpus[GS_GEN_MAX_VALUES], gpu_w[GS_GEN_MAX_VALUES];
    double gpu_ks;              /* 0 unless rare values were merged */
    int ntenants;
    char tenants[GS_FIT_MAX_TENANTS][GS_TENANT_NAME];
    double tenant_w[GS_FIT_MAX_TENANTS];
    int others;                 /* tenants merged into "other" */
    double cb;                  /* mean compute-bound share */
};

struct gs_wlfit {
    long n;
    gs_time first, last;        /* ms */
    double rate, amp, peak, dip;    /* arrival fit (per hour, hours) */
    int fit_daily, fit_weekly;  /* what the span allowed */
    double loglik;              /* of the arrival times (hours) */
    double arr_ks;              /* time-rescaled KS distance */
    double chi2;                /* hour-of-day counts vs the fitted rate */
    int chi2_df;
    int ref_model;              /* most common reference GPU, -1 none */
    int nclasses;
    struct gs_fitclass cls[GS_WLFIT_MAX_CLASSES];
};

struct gs_fitter;

/* NULL when out of memory. */
struct gs_fitter *gs_fitter_new(void);
void gs_fitter_free(struct gs_fitter *f);
/* Collect a job.  0 or GS_ENOMEM. */
int gs_fitter_add(struct gs_fitter *f, const struct gs_jobspec *j);
/* Fit what was collected.  0, or GS_EINVAL (fewer than 2 jobs, or no span)
 * with d filled. */
int gs_fitter_run(struct gs_fitter *f, const struct gs_fitopts *o,
                  struct gs_wlfit *out, struct gs_diag *d);

/* The fitted figures and goodness of fit, as a table. */
void gs_fit_print(FILE *fp, const struct gs_wlfit *f, const struct gs_catalog *cat);
/* The generator spec (JSON), jobs = the number fitted. */
void gs_fit_write_spec(FILE *fp, const struct gs_wlfit *f,
                       const struct gs_catalog *cat, const char *source);

/* --- request traces -------------------------------------------------------
 *
 * A request trace (azure-llm, mooncake, splitwise, requests) is fitted to
 * the generator of an inference service's request source
 * ($.services[].requests.generate): the arrival process as above (rate,
 * and the daily cycle's amplitude and peak hour when the trace spans two
 * days or more, the weekend dip from two weeks), and the input and output
 * token counts each by the laws above (exponential, lognormal and Pareto
 * by maximum likelihood, 65 empirical quantiles), chosen by the same
 * criterion: the parametric law with the least KS distance, or the
 * quantiles when that distance exceeds auto_ks on 200 requests or more.
 * When the trace carries wall-clock times, the hours are those of its
 * clock (UTC), counted from midnight of its first day. */
struct gs_reqfit {
    long n;
    double span_s;              /* first to last arrival */
    struct gs_wlfit arr;        /* the arrival fit (classes unused) */
    struct gs_fitclass in, out; /* the token laws (values in tokens) */
    double in_mean, out_mean;
};

/* Fit t.  0, GS_ENOMEM, or GS_EINVAL (fewer than 2 requests, or no span)
 * with d filled. */
int gs_reqfit_run(const struct gs_reqtable *t, const struct gs_fitopts *o,
                  struct gs_reqfit *out, struct gs_diag *d);
/* The figures and goodness of fit, as a table. */
void gs_reqfit_print(FILE *fp, const struct gs_reqfit *f);
/* The request source as JSON: {"generate": {...}}, to paste as a
 * service's "requests". */
void gs_reqfit_write_source(FILE *fp, const struct gs_reqfit *f,
                            const char *source);

/* KS distance between sorted values x[0..n-1] (ties allowed) and a
 * continuous CDF.  Exposed for the tests. */
double gs_ks_distance(const double *x, long n, double (*cdf)(double, void *),
                      void *arg);

#endif
