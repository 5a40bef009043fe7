/* dcgm.h -- what a cluster's GPUs actually did: DCGM metrics exported by
 * Prometheus range queries (`gpusim trace dcgm`).  The rules are in
 * dcgm.c's opening comment and docs/import.md. */
#ifndef GS_DCGM_H
#define GS_DCGM_H

#include "../sim/base/err.h"
#include "cimport.h"

#include <stdint.h>
#include <stdio.h>

struct gs_dcgm_opts {
    double idle;                /* utilization below it is idle, 0..1
                                   (default 0.05) */
    int64_t step_ms;            /* a sample's span; 0: the most common
                                   spacing of the samples */
    struct gs_cimp_tz tz;       /* hours of day in this zone */
};

struct gs_dcgm;

/* Totals over the period (GPU-hours count a MIG instance as its share of
 * the GPU's compute slices). */
struct gs_dcgm_totals {
    int files, series, devices, mig_devices, nodes;
    int64_t first_ms, last_ms, step_ms;
    double observed_h;          /* GPU-hours with a utilization sample */
    double busy_h;              /* sum of utilization x time */
    double alloc_h;             /* samples carrying a pod (namespace) */
    double idle_alloc_h;        /* allocated, utilization below idle */
    double unalloc_h;           /* no pod */
    double energy_kwh;          /* DCGM_FI_DEV_POWER_USAGE x time */
    double power_h;             /* GPU-hours with a power sample */
    double fb_idle_gib_h;       /* memory held (FB_USED) while allocated
                                   and idle, GiB-hours */
};

/* Read the range-query exports paths[0..n) (the JSON of
 * /api/v1/query_range, one or more metrics each; a series split over
 * several files is merged, a repeated sample kept once).  0 or a negative
 * code with d filled ("FILE: $.data.result[3].values[17]: ..."). */
int gs_dcgm_load(const char *const *paths, int n,
                 const struct gs_dcgm_opts *o, struct gs_dcgm **out,
                 struct gs_diag *d);
void gs_dcgm_free(struct gs_dcgm *m);
void gs_dcgm_totals(const struct gs_dcgm *m, struct gs_dcgm_totals *t);

/* The hour-by-hour timeline (hours aligned on the epoch): n hours from
 * t0_ms; per hour the mean GPUs observed, allocated and busy (GPU-hours in
 * that hour / 1 h).  Arrays owned by m. */
struct gs_dcgm_hours {
    int64_t t0_ms;
    int n;
    const double *seen, *alloc, *busy;
};
void gs_dcgm_hours(const struct gs_dcgm *m, struct gs_dcgm_hours *h);

/* The GPU-hours of one node, model (the modelName label) or namespace:
 * n = gs_dcgm_ngroups(m, by) of them, i in [0, n); name owned by m. */
enum { GS_DCGM_BY_NODE, GS_DCGM_BY_MODEL, GS_DCGM_BY_NS };
struct gs_dcgm_group {
    const char *name;
    double observed_h, busy_h, alloc_h, idle_h;
};
int gs_dcgm_ngroups(const struct gs_dcgm *m, int by);
void gs_dcgm_group(const struct gs_dcgm *m, int by, int i,
                   struct gs_dcgm_group *g);

/* The report: totals, by node, by model, by namespace, by hour of day. */
void gs_dcgm_print(FILE *fp, const struct gs_dcgm *m);

/* `gpusim trace dcgm FILE... [--idle PCT] [--step T] [--tz ZONE]`: the
 * report on stdout; exit status 0, or 2 (bad usage or input). */
int gs_dcgm_main(int argc, char **argv);
/* Its help (`gpusim trace help dcgm`). */
extern const char gs_dcgm_usage[];

#endif
