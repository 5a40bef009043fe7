/* workshape.c -- the workload's distribution of job shapes, for the
 * fragmentation measure (cluster/frag.h).
 *
 * FGD's measure weighs each shape a task may take by its popularity in the
 * workload.  For a generated workload that is exactly the classes' GPU
 * values and weights; for a trace, every job of the trace, read once here
 * before the run through the same source the run reads (source.h), its
 * warnings silenced (the run gives them).  Shapes are tallied by (GPUs,
 * milli, allowed models, CPU, memory) in a small hash table, and sorted
 * most popular first, ties broken by the shape itself, so the measure is
 * the same on every run of the same input. */
#include "workshape.h"
#include "../io/gen.h"
#include "source.h"
#include "../../traces/tread.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A growing table of shapes with counts, for gs_workload_shapes. */
struct tally {
    struct gs_shape *v;
    int n, cap;
    int *h;
    int hcap;
};

static int tally_add(struct tally *t, int gpus, int milli, uint64_t allowed,
                     int32_t cpu, int32_t mem, double w)
{
    if (t->n * 2 >= t->hcap) {
        int cap = t->hcap ? t->hcap * 2 : 64;
        int *h = malloc((size_t)cap * sizeof *h);
        if (h == NULL)
            return GS_ENOMEM;
        for (int i = 0; i < cap; i++)
            h[i] = -1;
        for (int i = 0; i < t->n; i++) {
            uint32_t k = gs_shape_hash(t->v[i].gpus, t->v[i].milli,
                                    t->v[i].allowed, t->v[i].cpu,
                                    t->v[i].mem) & (uint32_t)(cap - 1);
            while (h[k] >= 0)
                k = (k + 1) & (uint32_t)(cap - 1);
            h[k] = i;
        }
        free(t->h);
        t->h = h;
        t->hcap = cap;
    }
    uint32_t k = gs_shape_hash(gpus, milli, allowed, cpu, mem) &
                 (uint32_t)(t->hcap - 1);
    while (t->h[k] >= 0) {
        struct gs_shape *s = &t->v[t->h[k]];
        if (gs_shape_eq(s, gpus, milli, allowed, cpu, mem)) {
            s->p += w;
            return 0;
        }
        k = (k + 1) & (uint32_t)(t->hcap - 1);
    }
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 32;
        struct gs_shape *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return GS_ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n] = (struct gs_shape){ gpus, milli, allowed, w, cpu, mem };
    t->h[k] = t->n++;
    return 0;
}

static int by_popularity(const void *a, const void *b)
{
    const struct gs_shape *x = a, *y = b;
    if (x->p != y->p)
        return x->p > y->p ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    if (x->milli != y->milli)
        return x->milli < y->milli ? -1 : 1;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    if (x->mem != y->mem)
        return x->mem < y->mem ? -1 : 1;
    return x->allowed < y->allowed ? -1 : x->allowed > y->allowed;
}

int gs_workload_shapes(const struct gs_scenario *sc, uint64_t seed,
                       struct gs_shape **shapes, int *n)
{
    struct tally t = { 0 };
    int rc = 0;
    *shapes = NULL;
    *n = 0;
    if (sc->wl_kind == GS_WL_GENERATE) {
        double wsum = 0;
        for (int c = 0; c < sc->gen.nclasses; c++)
            wsum += sc->gen.cls[c].weight;
        for (int c = 0; c < sc->gen.nclasses && rc == 0; c++) {
            const struct gs_genclass *k = &sc->gen.cls[c];
            double vs = 0;
            for (int v = 0; v < k->nvalues; v++)
                vs += k->gpu_w[v];
            for (int v = 0; v < k->nvalues && rc == 0; v++) {
                double g = k->gpus[v], w = k->weight / wsum * k->gpu_w[v] / vs;
                if (g <= 0 || w <= 0)
                    continue;
                rc = g >= 1.0 ? tally_add(&t, (int)g, 1000, 0, 0, 0, w)
                              : tally_add(&t, 1, (int)lround(g * 1000), 0, 0,
                                          0, w);
            }
        }
    } else {
        struct gs_source src;
        struct gs_diag d = { 0 };
        FILE *log = gs_trace_log();
        gs_trace_set_log(NULL);
        /* A bad trace is the workload's error to report (later, with its
         * place); running out of memory is this one's. */
        int src_rc = gs_source_open(sc, seed, &src, &d);
        if (src_rc == 0) {
            struct gs_jobspec j;
            while (rc == 0 && (src_rc = gs_source_next(&src, &j, &d)) == 1) {
                if (j.gpus > 0)
                    rc = tally_add(&t, j.gpus, 1000, j.allowed, j.cpu_milli,
                                   j.mem_mib, 1.0);
                else if (j.milli > 0)
                    rc = tally_add(&t, 1, j.milli, j.allowed, j.cpu_milli,
                                   j.mem_mib, 1.0);
                else if (j.cpu_milli > 0 || j.mem_mib > 0)
                    rc = tally_add(&t, 0, 0, 0, j.cpu_milli, j.mem_mib, 1.0);
            }
            gs_source_close(&src);
        }
        if (rc == 0 && src_rc == GS_ENOMEM)
            rc = GS_ENOMEM;
        gs_diag_free(&d);
        gs_trace_set_log(log);
    }
    free(t.h);
    if (rc < 0) {
        free(t.v);
        return rc;
    }
    double sum = 0;
    for (int i = 0; i < t.n; i++)
        sum += t.v[i].p;
    for (int i = 0; i < t.n; i++)
        t.v[i].p /= sum;
    if (t.n > 1)
        qsort(t.v, (size_t)t.n, sizeof *t.v, by_popularity);
    *shapes = t.v;
    *n = t.n;
    return 0;
}
