/* genspec.h -- a generated workload as a scenario states it: the laws of
 * durations and phases (struct gs_distspec), the job classes and the
 * arrival process (struct gs_genspec).  Plain data: io/gen.h draws from it,
 * the scenario parser fills it, the models read their own laws in it. */
#ifndef GS_GENSPEC_H
#define GS_GENSPEC_H

#include "../base/simtime.h"
#include "../cluster/fleet.h"
#include "tier.h"

#include <stdint.h>

#define GS_GEN_MAX_VALUES 32
#define GS_GEN_MAX_CLASSES 16
#define GS_GEN_MAX_NUMBERED (1 << 24)   /* "tenants": N, a run's limit */
#define GS_GEN_MAX_POINTS 65            /* empirical quantile points */
#define GS_GEN_MAX_BURST 4              /* MMPP states */

enum gs_dist { GS_DIST_CONSTANT, GS_DIST_EXPONENTIAL, GS_DIST_LOGNORMAL,
               GS_DIST_PARETO, GS_DIST_UNIFORM, GS_DIST_WEIBULL,
               GS_DIST_EMPIRICAL };

struct gs_distspec {
    int kind;
    double a, b;        /* constant: a; exponential: mean a; lognormal: mu a,
                           sigma b (of ln ms); pareto: scale a, shape b;
                           uniform: a..b; weibull: scale a, shape b */
    double max;         /* truncate draws above (0 = none), ms */
    int npoints;        /* empirical: pts[i] is the quantile at probability
                           i/(npoints-1), nondecreasing, ms; draws
                           interpolate log-linearly between neighbours */
    double pts[GS_GEN_MAX_POINTS];
};

struct gs_genclass {
    char name[GS_NAME];
    double weight;
    int tier;
    int ntenants;
    /* numbered ("tenants": N): the names are tenant1 .. tenantN, made as
     * jobs are drawn, and tenants is NULL; otherwise tenants holds the
     * names listed.  Either way any N up to GS_GEN_MAX_NUMBERED (a run's
     * limit).  tenant_w: one weight per tenant, or NULL (uniform).  The
     * two arrays belong to the spec (io/gen.h: gs_genspec_release frees
     * them; a struct copy shares them). */
    int numbered;
    char (*tenants)[GS_TENANT_NAME];
    double *tenant_w;
    int nvalues;
    double gpus[GS_GEN_MAX_VALUES];     /* < 1: fraction of a GPU */
    double gpu_w[GS_GEN_MAX_VALUES];
    struct gs_distspec duration;         /* ms on the reference model */
    double mem_gb;
    double cb;
    gs_time deadline;                    /* relative, 0 = none */
    gs_time ckpt;                        /* 0 = the tier's default */
    double estimate_factor;              /* estimate = duration * this; 0 = none */
    int idle_prof;                       /* draw a busy/idle profile */
    struct gs_distspec busy, idle;       /* phase lengths, work-ms */
    /* GPU sharing (docs/sharing.md), copied into every job; 0/"" = none */
    char mig_profile[GS_MIG_PROFILE_NAME];
    double duty;
    int guar_milli, burst_milli;
    uint64_t allowed;                    /* GPU models it may use, 0 = any */
    /* Host resources, 0 = the tier's default: per GPU drawn (fractions pro
     * rata), and for a draw of 0 GPUs.  Milli-cores and MiB. */
    int32_t cpu_per_gpu, mem_per_gpu, cpu_only, mem_only;
    /* GPUs by attribute (job.h): family, least device memory (GiB) */
    char gpu_family[GS_GPU_FAMILY_NAME];
    double gpu_mem_min;
    double comm_share;                   /* topology; -1 = the scenario's */
};

struct gs_genspec {
    int64_t jobs;                       /* stop after this many (0 = no limit) */
    gs_time until;                      /* or at this time (0 = no limit) */
    double rate_per_hour;
    double diurnal;                     /* relative amplitude 0..1 */
    double peak_hour;                   /* hour of day of the peak */
    double weekly;                      /* relative weekend dip 0..1 */
    double hourly[24];                  /* relative rate by hour of day
                                           (used / its mean); all 0 = flat */
    int nburst;                         /* MMPP states, 0 = no bursts */
    double burst_factor[GS_GEN_MAX_BURST];  /* rate factor of each state,
                                           normalized so that the long-run
                                           mean factor is 1 */
    gs_time burst_sojourn[GS_GEN_MAX_BURST];    /* mean stay, ms */
    int ref_model;                      /* catalog index */
    int nclasses;
    struct gs_genclass cls[GS_GEN_MAX_CLASSES];
};

#endif
