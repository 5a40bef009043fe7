/* sharecfg.h -- how a pool's GPUs are shared, as the scenario declares it.
 *
 * A pool's "sharing" object (docs/sharing.md) becomes one struct
 * gs_share_cfg in its struct gs_pool_spec.  Mode none (the default) keeps
 * the plain model: whole GPUs, and fractions of a GPU held strictly.  The
 * other modes:
 *   mig           every GPU is cut into MIG instances by a layout (mig.h);
 *                 a job takes one instance.  Fixed layouts never change;
 *                 with reconfigure on, an empty GPU is given a new layout
 *                 when no instance fits a job, which takes reconf_time.
 *   time-slicing  replicas jobs at most share each GPU by context
 *                 switching, with no memory isolation (core/share.c);
 *   fractional    Run:ai-style guaranteed fractions that may burst into
 *                 idle capacity, lent and reclaimed (core/share.c).
 * This header is a leaf: plain data, no functions. */
#ifndef GS_SHARECFG_H
#define GS_SHARECFG_H

#include "../base/simtime.h"
#include "mig.h"

enum gs_share_mode { GS_SHARE_NONE, GS_SHARE_MIG, GS_SHARE_TS,
                     GS_SHARE_FRAC };

/* Which co-located job the out-of-memory rule kills (time-slicing). */
enum gs_oom_rule { GS_OOM_NEWEST, GS_OOM_LARGEST };

/* Defaults (docs/sharing.md gives the sources and reasoning). */
#define GS_SHARE_RECONF_TIME   (60 * GS_SEC)
#define GS_SHARE_SWITCH        0.01     /* throughput lost per extra context */
#define GS_SHARE_MAX_OVERHEAD  0.25
#define GS_SHARE_LAT_FROM      12       /* contexts from which p99 grows */
#define GS_SHARE_LAT_MIN_MS    5.0      /* added p99 at LAT_FROM contexts */
#define GS_SHARE_LAT_MAX_MS    20.0     /* added p99 at 48 contexts */
#define GS_SHARE_MAX_REPLICAS  48

struct gs_share_cfg {
    int mode;                           /* enum gs_share_mode */
    /* mig */
    const struct gs_mig_gpu *mig_gpu;   /* the pool model's MIG table */
    struct gs_mig_layout layout;        /* every GPU's layout at the start */
    int reconfigure;                    /* layouts change at run time */
    gs_time reconf_time;                /* how long a change takes */
    /* time-slicing */
    int replicas;                       /* 1..48 jobs per GPU */
    double switch_overhead;             /* per extra co-located context */
    double max_overhead;
    int latency_from;
    double latency_min_ms, latency_max_ms;
    int oom_rule;                       /* enum gs_oom_rule */
    /* fractional */
    int reclaim_kill;                   /* 1 kill borrowers, 0 evict them */
};

#endif
