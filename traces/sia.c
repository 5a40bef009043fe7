/* sia.c -- Sia/Pollux workloads: arrivals and replicas, durations by
 * application size class.
 *
 * Source: siasosp23/artifacts (Sia, SOSP'23), workloads derived from the
 * Philly trace the way Pollux (OSDI'21) built its workload.  A row is
 *   name,time,application,num_replicas,batch_size
 * with time the arrival (s) and num_replicas the GPUs the job starts with.
 * The file has no duration: Sia's simulator derives it from each
 * application's measured goodput profiles and epochs to its validation
 * target, which are not part of these traces.
 *
 * The rule gpusim uses (documented in docs/traces.md):
 *   duration = gpu_hours(application) * 3600 / num_replicas seconds,
 * i.e. a fixed amount of GPU time per application, spread over the job's
 * replicas with a linear speed-up.  gpu_hours(application) defaults to the
 * middle of the Pollux job-size class of the application (Pollux, Table 1:
 * CIFAR-10/ResNet-18 and NCF "small", 0-1 GPU-hours; DeepSpeech2 and BERT
 * "medium", 1-10; YOLOv3 "large", 10-100; ImageNet/ResNet-50 "extra large",
 * 100-1000), taking 0.5 for small and the geometric middle (sqrt(10),
 * sqrt(1000), sqrt(100000)) for the others.  The option
 * "gpu_hours_<application>" overrides one, and covers applications not in
 * the table.  The figures are a size class, not a measurement: results
 * replay the real arrival pattern and GPU counts with plausible work.
 *
 *   id        the number after the last '-' of name (cifar10-0 -> 0), else
 *             the row number
 *   tier      training; tenant: the option "tenant" (default "default")
 *   reference the option reference_gpu (a catalog name), default none:
 *             the work then takes as long on any model.
 *   batch_size is checked (a whole number >= 1) and not used. */
#include "sia.h"
#include "tread.h"

#include "../sim/spec/scenario.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct app {
    const char *name;
    double gpu_hours;
};

static const struct app apps[] = {
    { "cifar10", 0.5 },
    { "ncf", 0.5 },
    { "deepspeech2", 3.1622776601683795 },
    { "bert", 3.1622776601683795 },
    { "yolov3", 31.622776601683793 },
    { "imagenet", 316.22776601683796 },
};

#define NAPPS (int)(sizeof apps / sizeof apps[0])
#define MAXAPPS 32

double gs_sia_gpu_hours(const char *application)
{
    for (int i = 0; i < NAPPS; i++)
        if (strcmp(apps[i].name, application) == 0)
            return apps[i].gpu_hours;
    return -1;
}

enum { S_NAME, S_TIME, S_APP, S_REPL, S_BATCH, NSCOLS };

static const char *const scol[NSCOLS] = {
    "name", "time", "application", "num_replicas", "batch_size"
};

struct sia {
    int col[NSCOLS];
    int ncols;
    int ref;
    char tenant[GS_TENANT_NAME];
    int napps;
    char app[MAXAPPS][48];
    double hours[MAXAPPS];
    struct gs_rows *rows;
};

static int sia_header(void *st, struct gs_trow *r)
{
    struct sia *s = st;
    for (int k = 0; k < NSCOLS; k++)
        s->col[k] = -1;
    for (int i = 0; i < r->nf; i++)
        for (int k = 0; k < NSCOLS; k++)
            if (strcmp(r->f[i], scol[k]) == 0)
                s->col[k] = i;
    for (int k = 0; k < NSCOLS; k++)
        if (s->col[k] < 0)
            return gs_trow_fail(r, NULL, "the header lacks the column '%s' "
                                "(a Sia workload has name, time, "
                                "application, num_replicas, batch_size)",
                                scol[k]);
    s->ncols = r->nf;
    return 0;
}

static int sia_row(void *st, struct gs_trow *r, struct gs_jobspec *j)
{
    struct sia *s = st;
    if (r->nf != s->ncols)
        return gs_trow_fail(r, NULL, "%d fields where the header has %d",
                            r->nf, s->ncols);
    const char *v[NSCOLS];
    for (int k = 0; k < NSCOLS; k++)
        v[k] = r->f[s->col[k]];
    double t;
    long long n, b;
    if (gs_tnum(v[S_TIME], &t) < 0 || t < 0 || t > 9.0e12)
        return gs_trow_fail(r, "time", "'%s' is not a time in seconds >= 0",
                            v[S_TIME]);
    if (gs_tint(v[S_REPL], 1, 1000000, &n) < 0)
        return gs_trow_fail(r, "num_replicas", "'%s' is not a GPU count >= 1",
                            v[S_REPL]);
    if (gs_tint(v[S_BATCH], 1, 1000000000, &b) < 0)
        return gs_trow_fail(r, "batch_size", "'%s' is not a whole number >= 1",
                            v[S_BATCH]);
    double hours = -1;
    for (int i = 0; i < s->napps; i++)
        if (strcmp(s->app[i], v[S_APP]) == 0)
            hours = s->hours[i];
    if (hours < 0)
        hours = gs_sia_gpu_hours(v[S_APP]);
    if (hours < 0)
        return gs_trow_fail(r, "application", "unknown application '%s' "
                            "(known: cifar10, ncf, deepspeech2, bert, yolov3, "
                            "imagenet; give others GPU-hours with the option "
                            "gpu_hours_%s)", v[S_APP], v[S_APP]);
    const char *nm = v[S_NAME];
    const char *dash = strrchr(nm, '-');
    long long id;
    if (dash && gs_tint(dash + 1, 0, 999999999999999LL, &id) == 0 &&
        isdigit((unsigned char)dash[1]))
        j->id = id;
    else
        j->id = r->line - 1;
    j->arrival = (gs_time)llround(t * 1000.0);
    j->gpus = (int)n;
    j->work = round(hours * 3600.0 * 1000.0 / (double)n);
    if (j->work < 1)
        j->work = 1;
    j->tier = GS_TIER_TRAINING;
    j->ref_model = s->ref;
    snprintf(j->tenant, sizeof j->tenant, "%s", s->tenant);
    return 1;
}

static const struct gs_rows_ops sia_ops = {
    .delim = ',',
    .has_header = 1,
    .header = sia_header,
    .row = sia_row,
};

static void sia_close(void *st)
{
    struct sia *s = st;
    if (s == NULL)
        return;
    gs_rows_close(s->rows);
    free(s);
}

static int sia_open(const struct gs_scenario *sc, struct gs_params *o,
                    void **state, struct gs_diag *d)
{
    *state = NULL;
    struct sia *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    s->ref = -1;
    snprintf(s->tenant, sizeof s->tenant, "%s", "default");
    char *path = NULL;
    const char *ref = NULL;
    int skip = 0, rc;
    if ((rc = gs_topt_path(sc, o, "path", 1, &path, NULL, d)) < 0 ||
        (rc = gs_topt_skip(o, &skip, d)) < 0 ||
        (rc = gs_topt_tenant(o, "tenant", s->tenant, d)) < 0 ||
        (rc = gs_params_str(o, "reference_gpu", &ref, d)) < 0)
        goto fail;
    if (ref && (s->ref = gs_catalog_find(&sc->cat, ref)) < 0) {
        char *where;
        where = gs_strf("%s.reference_gpu", o->where);
        rc = gs_diag_set_at(d, GS_EINVAL, where, "unknown GPU model '%s'",
                            ref);
        goto fail;
    }
    /* gpu_hours_<application> options. */
    for (int i = 0; i < o->n; i++) {
        const char *k = o->v[i].key;
        if (strncmp(k, "gpu_hours_", 10) != 0 || k[10] == '\0')
            continue;
        if (s->napps == MAXAPPS) {
            char *where;
            where = gs_strf("%s.%s", o->where, k);
            rc = gs_diag_set_at(d, GS_EINVAL, where, "at most %d gpu_hours_ "
                                "options", MAXAPPS);
            goto fail;
        }
        double h = -1;
        if ((rc = gs_params_num(o, k, 1e-9, 1e9, &h, d)) < 0)
            goto fail;
        snprintf(s->app[s->napps], sizeof s->app[0], "%s", k + 10);
        s->hours[s->napps++] = h;
    }
    if ((rc = gs_rows_open(path, &sia_ops, s, skip, &s->rows, d)) < 0)
        goto fail;
    free(path);
    *state = s;
    return 0;
fail:
    free(path);
    sia_close(s);
    return rc;
}

static int sia_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    struct sia *s = st;
    return gs_rows_next(s->rows, out, d);
}

const struct gs_trace_format gs_sia_format = {
    .name = "sia",
    .summary = "Sia/Pollux workload CSV (name,time,application,num_replicas,"
               "batch_size)",
    .open = sia_open,
    .next = sia_next,
    .close = sia_close,
};
