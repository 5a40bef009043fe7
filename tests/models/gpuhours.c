/* gpuhours.c -- an example model, the proof that adding a model is a file
 * and a table line (model.h): it keeps its own books of the GPU-time jobs
 * hold, per tier, and adds to every output without any other file naming
 * it:
 *   - a summary scalar, example_gpu_hours (--json, CSV, the HDF5 /summary
 *     attributes, compare's metrics);
 *   - an HDF5 dataset, /example/gpu_hours_by_tier;
 *   - a plan and sweep target per tier, example.TIER.gpu_hours.
 * Its figure must equal the core's gpu_hours_used (the same integral of
 * allocated GPUs over the run, taken by metrics.c from the fleet), which
 * is what tests/test_examplemodel.c checks.  It joins by
 * gs_model_register(&gs_example_model), the "table line" of a model built
 * outside sim/. */
#include "gpuhours.h"
#include "../../sim/core/sim.h"
#include "../../sim/io/h5out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ex {
    double running[GS_NTIERS];  /* GPUs held by running jobs, per tier */
    double ms[GS_NTIERS];       /* GPU x ms, per tier */
    gs_time last;               /* -1 before the first advance */
};

static double gpus(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

static int build(struct gs_sim *s, const struct gs_scenario *sc,
                 struct gs_fleet *f, struct gs_metrics *m, uint64_t seed,
                 void **state, struct gs_diag *d)
{
    (void)s; (void)sc; (void)f; (void)m; (void)seed;
    struct ex *x = calloc(1, sizeof *x);
    if (x == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    x->last = -1;
    *state = x;
    return 0;
}

static void ex_free(void *st) { free(st); }

static void started(void *st, struct gs_job *j)
{
    ((struct ex *)st)->running[j->s.tier] += gpus(j);
}

static void stopping(void *st, struct gs_job *j)
{
    ((struct ex *)st)->running[j->s.tier] -= gpus(j);
}

static void advance(void *st, gs_time t)
{
    struct ex *x = st;
    if (x->last >= 0)
        for (int i = 0; i < GS_NTIERS; i++)
            x->ms[i] += x->running[i] * (double)(t - x->last);
    x->last = t;
}

static double hours(const struct ex *x, int tier)
{
    return x->ms[tier] / GS_HOUR;
}

static const struct gs_field fields[] = {
    { "example_gpu_hours", "%.4f", "h",
      "GPU-hours jobs held, as the example model counts them" },
};

static void values(const void *st, double *v)
{
    v[0] = 0;
    for (int i = 0; i < GS_NTIERS; i++)
        v[0] += hours(st, i);
}

static void h5(const struct gs_sim *s, const void *st, struct gs_h5w *w)
{
    (void)s;
    if (st == NULL)
        return;
    gs_h5loc g = gs_h5w_group(w, gs_h5w_root(w), "example");
    if (g < 0)
        return;
    double v[GS_NTIERS];
    for (int i = 0; i < GS_NTIERS; i++)
        v[i] = hours(st, i);
    size_t n = GS_NTIERS;
    gs_h5w_doubles(w, g, "gpu_hours_by_tier", 1, &n, v);
    gs_h5w_describe(w, g, "gpu_hours_by_tier", "h",
                    "GPU-hours jobs held, per tier (/tiers order)");
    gs_h5w_close(g);
}

static int ntargets(const struct gs_scenario *sc)
{
    (void)sc;
    return GS_NTIERS;
}

static void target_name(const struct gs_scenario *sc, int i, char *buf,
                        size_t n)
{
    (void)sc;
    snprintf(buf, n, "example.%s.gpu_hours", gs_tier_name(i));
}

static void target_values(const struct gs_scenario *sc,
                          const struct gs_sim *s, const void *st, double *v)
{
    (void)sc; (void)s;
    for (int i = 0; i < GS_NTIERS; i++)
        v[i] = st ? hours(st, i) : 0;
}

static int target_check(const struct gs_scenario *sc, const char *metric,
                        char *why, size_t n)
{
    if (strncmp(metric, "example.", 8) != 0)
        return 0;
    for (int i = 0; i < GS_NTIERS; i++) {
        char name[64];
        target_name(sc, i, name, sizeof name);
        if (strcmp(name, metric) == 0)
            return 1;
    }
    snprintf(why, n, "no example metric '%s'", metric);
    return -1;
}

const struct gs_model_ops gs_example_model = {
    .name = "example",
    .build = build,
    .free = ex_free,
    .job_started = started,
    .job_stopping = stopping,
    .advance = advance,
    .rank = 100,
    .fields = fields,
    .nfields = 1,
    .values = values,
    .h5 = h5,
    .ntargets = ntargets,
    .target_name = target_name,
    .target_values = target_values,
    .target_check = target_check,
};
