/* cloudcfg.h -- what a scenario says about markets, faults and scaling.
 *
 * Plain data, filled by scenario_cloud.c (the JSON) and read by the cloud
 * models (cloud.h and the files it ties together: market, spot, failure,
 * autoscale, reaper).  What a run reports about them is the cloud's own
 * (struct gs_cloudsum, cloud.h; printed through its hooks, cloudout.c).
 * Defaults and their sources are listed in docs/cloud.md. */
#ifndef GS_CLOUDCFG_H
#define GS_CLOUDCFG_H

#include "../base/simtime.h"
#include "genspec.h"
#include "tier.h"

#define GS_MAX_WINDOWS 8

/* A failure process of one component (a GPU, or a node as a whole).  Time
 * to failure, counted from when the component entered service: Weibull
 * (shape, scale) while its age is below burn_in, exponential with mean
 * mtbf after (memoryless, so a survivor of the burn-in fails at burn_in +
 * Exp(mtbf)).  With burn_in 0 and shape > 0 it is Weibull for life; with
 * shape 0 it is exponential for life; with mtbf 0 after a burn-in it never
 * fails once past it. */
struct gs_failproc {
    int on;
    double shape;               /* Weibull shape k; 0 = no Weibull phase */
    double scale;               /* Weibull scale, ms */
    gs_time burn_in;            /* Weibull phase length; 0 = for life */
    double mtbf;                /* exponential mean, ms; 0 = none */
};

struct gs_failcfg {
    int on;                     /* any process configured */
    struct gs_failproc gpu, node;
    struct gs_distspec repair;  /* repair time of a failed node */
    double degrade_frac;        /* share of GPU faults that only slow it */
    double degrade_speed;       /* speed of a degraded GPU, 0..1 */
    int fail_in_place;          /* a failed GPU is retired, the node runs on */
    int max_restarts;           /* failure restarts before a job is denied;
                                   -1 = never denied */
};

/* A daily window with its own autoscaling bounds ("22:00"-"06:00"). */
struct gs_window {
    int from_min, to_min;       /* minutes after midnight; wraps if from > to */
    int min_nodes, max_nodes;
};

/* Per pool, parallel to scenario->pools. */
struct gs_poolcloud {
    int base;                   /* nodes in service at the start */
    int spares;                 /* hot spares held beside them (N+1) */
    double od_price;            /* on-demand price of the instance, $/node-h */
    char *price_file;           /* time-varying price (NULL = constant);
                                   owned by the scenario */
    gs_time gran, minimum;      /* billing granularity and minimum */
    /* spot */
    double spot_rate;           /* reclaims per node-hour in service */
    char *hazard_file;          /* or a time-varying rate (NULL = none);
                                   owned by the scenario */
    int replace;                /* a reclaimed node is replaced */
    struct gs_distspec replace_delay;
    /* capacity block: the window the nodes exist (and are paid for) */
    gs_time block_start, block_end;
    /* autoscaling */
    int autoscale;
    int min_nodes, max_nodes;
    struct gs_distspec provision;
    gs_time down_after;         /* underutilized this long: removed */
    gs_time down_delay;         /* no removal this soon after a launch */
    double down_util;           /* "underutilized": allocated share < this */
    int nwin;
    struct gs_window win[GS_MAX_WINDOWS];
    struct gs_failcfg fail;
};

struct gs_cloudcfg {
    struct gs_poolcloud *pool;  /* one per pool (owned by the scenario) */
    gs_time gran, minimum;      /* billing defaults of the pools */
    struct gs_failcfg fail;     /* failure defaults of the pools */
    int spot_tiers;             /* bit t: tier t may run on spot pools */
    gs_time notice;             /* spot reclaim notice */
    gs_time reap_after;         /* idle this long: reaped */
    int reap_tiers;             /* bit t: tier t is reaped; 0 = no reaper */
    gs_time scan;               /* autoscaler scan interval */
    long scan_depth;            /* pending jobs one scan looks at */
};


#endif
