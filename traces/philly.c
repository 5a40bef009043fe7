/* philly.c -- Gavel's Philly-derived traces: steps and throughputs to jobs.
 *
 * Source: stanford-futuredata/gavel (OSDI'20, "Heterogeneity-Aware Cluster
 * Scheduling Policies for Deep Learning Workloads").  A .trace file has one
 * job a line, tab-separated, in one of the layouts Gavel's own parsers
 * read (told apart by the number of fields):
 *   7  (traces/msr)  job_type  command  num_steps_arg  needs_data_dir
 *      total_steps  arrival_time_s  scale_factor
 *   10 (traces/physical_cluster, scheduler/utils.py parse_trace)
 *      job_type  command  working_directory  num_steps_arg
 *      needs_data_dir  total_steps  scale_factor  priority_weight  SLO
 *      arrival_time_s
 *   9  the same without working_directory (older parse_trace).
 * SLO is a multiple of the job's duration (Gavel's scheduler sets the
 * deadline to SLO x duration after arrival; -1 none): it becomes the job's
 * deadline on the reference GPU.  priority_weight (Gavel's max-min
 * fairness weight) is checked (> 0) but not used: gpusim's policies weigh
 * tenants, not jobs.  The throughputs file, unless the option names it, is
 * simulation_throughputs.json beside the trace or up to three folders above
 * (Gavel keeps it in scheduler/).
 * Arrivals and GPU counts come from Microsoft's Philly trace; the model
 * (job_type) was assigned by Gavel.  simulation_throughputs.json gives, per
 * GPU type ("k80", "p100", "v100") and key "('<job_type>', <scale_factor>)",
 * an object whose "null" entry is the job's throughput alone, in steps per
 * second for the whole job (all its GPUs); the other entries are co-located
 * pairs and are not used.  The *_unconsolidated GPU types are not used.
 *
 * The rule (documented in docs/traces.md):
 *   gpus      scale_factor
 *   thr[g]    the "null" throughput for (job_type, scale_factor) on GPU g.
 *             When the file has no entry for that scale factor (it measured
 *             A3C, CycleGAN and Recommendation only on one GPU, and nothing
 *             at 16 or 32 GPUs), the entry of the largest measured scale
 *             factor s below it is scaled linearly: thr(s) * scale_factor/s
 *             -- an optimistic, perfectly linear speed-up, said here so a
 *             reader of results knows.
 *   reference the option reference_gpu ("v100", the default; "p100";
 *             "k80") if the job runs there (thr > 0), else the first of
 *             v100, p100, k80 where it does.  Catalog models: v100 ->
 *             V100-16GB (Gavel's V100s were 16 GB), p100 -> P100-16GB,
 *             k80 -> K80.
 *   duration  total_steps / thr[reference] seconds on the reference GPU.
 *   speed     compute_bound is fitted so that the catalog's roofline rule
 *             (gpu.h: time factor = cb*F + (1-cb)*B, F and B the ratios of
 *             reference to other model in TFLOP/s and in GB/s) matches the
 *             measured ratios r = thr[ref]/thr[g] of the other two GPU types
 *             in least squares: cb = sum (F-B)(r-B) / sum (F-B)^2, clipped
 *             to [0, 1].  Jobs faster on a P100 than a V100 (Recommendation)
 *             come out memory-bound (cb = 0).
 *   models    a GPU type whose throughput is 0 (measured: the job does not
 *             fit, e.g. ResNet-50 at batch size 128 on K80s) is left out of
 *             the allowed models; otherwise any model is allowed.
 *   tier      training; tenant: the option "tenant", by default the trace
 *             file's name (Gavel's traces are Philly virtual clusters).
 *   id        the line number.
 *
 * The throughputs file is read with jsonio.h's helpers (duplicate keys
 * and comments refused, the line and column of a syntax error).  The
 * traces are sorted by arrival, so they stream. */
#include "philly.h"
#include "tread.h"

#include "../sim/io/jsonio.h"
#include "../sim/spec/scenario.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { K80, P100, V100, NG };

static const char *const gname[NG] = { "k80", "p100", "v100" };
static const char *const gmodel[NG] = { "K80", "P100-16GB", "V100-16GB" };

struct thr {
    char job[96];
    int sf;
    double t[NG];               /* steps/s; -1 = not in the file */
};

struct philly {
    const struct gs_catalog *cat;
    char *thr_path;             /* owned */
    struct thr *e;
    int n, cap;
    int ref;
    int model[NG];
    char tenant[GS_TENANT_NAME];
    struct gs_rows *rows;
};

/* "('ResNet-18 (batch size 16)', 1)" -> job, sf.  0 or -1. */
static int parse_key(const char *k, char *job, size_t n, int *sf)
{
    size_t len = strlen(k);
    if (len < 7 || strncmp(k, "('", 2) != 0 || k[len - 1] != ')')
        return -1;
    const char *q = NULL;
    for (const char *p = k + 2; (p = strstr(p, "', ")) != NULL; p++)
        q = p;
    if (q == NULL || (size_t)(q - (k + 2)) >= n)
        return -1;
    memcpy(job, k + 2, (size_t)(q - (k + 2)));
    job[q - (k + 2)] = '\0';
    char *end;
    errno = 0;
    long v = strtol(q + 3, &end, 10);
    if (end == q + 3 || *end != ')' || errno || v < 1 || v > 1000000)
        return -1;
    *sf = (int)v;
    return 0;
}

static struct thr *entry(struct philly *p, const char *job, int sf, int add)
{
    for (int i = 0; i < p->n; i++)
        if (p->e[i].sf == sf && strcmp(p->e[i].job, job) == 0)
            return &p->e[i];
    if (!add)
        return NULL;
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 128;
        struct thr *ne = realloc(p->e, (size_t)cap * sizeof *ne);
        if (ne == NULL)
            return NULL;
        p->e = ne;
        p->cap = cap;
    }
    struct thr *t = &p->e[p->n++];
    snprintf(t->job, sizeof t->job, "%s", job);
    t->sf = sf;
    for (int g = 0; g < NG; g++)
        t->t[g] = -1;
    return t;
}

static int load_throughputs(struct philly *p, struct gs_diag *d)
{
    const char *path = p->thr_path;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return gs_diag_set(d, GS_EIO, path, "cannot open the throughputs "
                           "file: %s", strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 1 << 20;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(fp);
                return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
            }
            buf = nb;
        }
        got = fread(buf + len, 1, 65536, fp);
        len += got;
    } while (got > 0);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return gs_diag_set(d, GS_EIO, path, "read error");
    }
    buf[len] = '\0';
    struct gs_json *root = NULL;
    int rc = gs_json_parse(buf, path, &root, d);    /* duplicate keys too */
    free(buf);
    if (rc < 0)
        return rc;
    char *where;
    if (!gs_json_is_object(root)) {
        where = gs_strf("%s: $", path);
        rc = gs_diag_set_at(d, GS_EPARSE, where, "expected an object of GPU "
                            "types");
    }
    for (int g = 0; g < NG && rc == 0; g++) {
        const struct gs_json *gt = gs_json_get(root, gname[g]);
        if (gt == NULL)
            continue;
        if (!gs_json_is_object(gt)) {
            where = gs_strf("%s: $.%s", path, gname[g]);
            rc = gs_diag_set_at(d, GS_EPARSE, where, "expected an object");
            break;
        }
        for (const struct gs_json *it = gs_json_first(gt); it;
             it = gs_json_next(it)) {
            char job[96];
            int sf;
            double v = gs_json_number(gs_json_get(it, "null"));
            const char *why = NULL;
            if (parse_key(gs_json_key(it), job, sizeof job, &sf) < 0)
                why = "expected a key ('<job type>', <scale factor>)";
            else if (!(v >= 0) || !isfinite(v))
                why = "expected an object with \"null\": a throughput >= 0";
            if (why) {
                where = gs_strf("%s: $.%.40s[\"%.80s\"]", path, gname[g],
                                gs_json_key(it));
                rc = gs_diag_set_at(d, GS_EPARSE, where, "%s", why);
                break;
            }
            struct thr *t = entry(p, job, sf, 1);
            if (t == NULL) {
                rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                break;
            }
            t->t[g] = v;
        }
    }
    gs_json_free(root);
    if (rc == 0 && p->n == 0)
        rc = gs_diag_set(d, GS_EPARSE, path, "no throughputs for k80, p100 or "
                         "v100");
    return rc;
}

/* Throughput of (job, sf) on g: measured, or scaled from the largest
 * measured scale factor below sf; -1 when there is none. */
static double throughput(const struct philly *p, const char *job, int sf,
                         int g)
{
    const struct thr *best = NULL;
    for (int i = 0; i < p->n; i++) {
        const struct thr *t = &p->e[i];
        if (t->t[g] < 0 || t->sf > sf || strcmp(t->job, job) != 0)
            continue;
        if (best == NULL || t->sf > best->sf)
            best = t;
    }
    if (best == NULL)
        return -1;
    return best->t[g] * (double)sf / (double)best->sf;
}

/* Where each field sits in the three layouts Gavel's parsers read. */
struct layout {
    int nf, dd, steps, sf, weight, slo, arr;
};

static const struct layout layouts[] = {
    { 7, 3, 4, 6, -1, -1, 5 },  /* traces/msr: arrival before scale factor */
    { 9, 3, 4, 5, 6, 7, 8 },    /* + priority_weight, SLO; arrival last */
    { 10, 4, 5, 6, 7, 8, 9 },   /* physical_cluster: + working directory */
};

static int philly_row(void *st, struct gs_trow *r, struct gs_jobspec *j)
{
    struct philly *p = st;
    const struct layout *L = NULL;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].nf == r->nf)
            L = &layouts[i];
    if (L == NULL)
        return gs_trow_fail(r, NULL, "%d tab-separated fields where a Gavel "
                            "trace line has 7 (traces/msr), 9, or 10 "
                            "(traces/physical_cluster: working directory, "
                            "priority weight and SLO; arrival last)", r->nf);
    const char *job = r->f[0];
    long long steps, sf, dd;
    double arr, weight = 1, slo = -1;
    if (job[0] == '\0')
        return gs_trow_fail(r, "job_type", "empty");
    if (gs_tint(r->f[L->dd], 0, 1, &dd) < 0)
        return gs_trow_fail(r, "needs_data_dir", "'%s' is not 0 or 1",
                            r->f[L->dd]);
    if (gs_tint(r->f[L->steps], 1, 1000000000000LL, &steps) < 0)
        return gs_trow_fail(r, "total_steps", "'%s' is not a whole number of "
                            "steps >= 1", r->f[L->steps]);
    if (gs_tnum(r->f[L->arr], &arr) < 0 || arr < 0 || arr > 9.0e12)
        return gs_trow_fail(r, "arrival_time_s", "'%s' is not a time in "
                            "seconds >= 0", r->f[L->arr]);
    if (gs_tint(r->f[L->sf], 1, 1000000, &sf) < 0)
        return gs_trow_fail(r, "scale_factor", "'%s' is not a GPU count >= 1",
                            r->f[L->sf]);
    if (L->weight >= 0 && (gs_tnum(r->f[L->weight], &weight) < 0 ||
                           !(weight > 0) || weight > 1e9))
        return gs_trow_fail(r, "priority_weight", "'%s' is not a weight > 0",
                            r->f[L->weight]);
    if (L->slo >= 0 && (gs_tnum(r->f[L->slo], &slo) < 0 || slo > 1e6))
        return gs_trow_fail(r, "SLO", "'%s' is not a number (a multiple of "
                            "the job's duration; <= 0 none)", r->f[L->slo]);
    double thr[NG];
    int ref = -1;
    for (int g = 0; g < NG; g++)
        thr[g] = throughput(p, job, (int)sf, g);
    if (thr[p->ref] > 0)
        ref = p->ref;
    for (int g = V100; g >= K80 && ref < 0; g--)
        if (thr[g] > 0)
            ref = g;
    if (ref < 0)
        return gs_trow_fail(r, "job_type", "no throughput above 0 for "
                            "('%s', %lld) in %s", job, sf, p->thr_path);
    j->id = r->line;
    j->arrival = (gs_time)llround(arr * 1000.0);
    j->gpus = (int)sf;
    j->tier = GS_TIER_TRAINING;
    snprintf(j->tenant, sizeof j->tenant, "%s", p->tenant);
    double ms = (double)steps / thr[ref] * 1000.0;
    if (!(ms < 9.0e15))
        return gs_trow_fail(r, "total_steps", "%lld steps at %g steps/s is "
                            "too long", steps, thr[ref]);
    j->work = ms < 1.0 ? 1.0 : round(ms);
    /* Gavel's SLO: done by SLO x the job's duration after arrival. */
    if (slo > 0)
        j->deadline = (gs_time)llround(slo * j->work);
    j->ref_model = p->model[ref];
    /* Least-squares compute-bound share from the other GPU types. */
    double num = 0, den = 0;
    for (int g = 0; g < NG; g++) {
        if (g == ref || thr[g] <= 0 || p->model[g] < 0 || j->ref_model < 0)
            continue;
        const struct gs_gpu_model *a = &p->cat->m[j->ref_model];
        const struct gs_gpu_model *b = &p->cat->m[p->model[g]];
        double F = a->tflops / b->tflops, B = a->bw_gbs / b->bw_gbs;
        double ratio = thr[ref] / thr[g];
        if (!isfinite(ratio))   /* a throughput near 0 says nothing */
            continue;
        num += (F - B) * (ratio - B);
        den += (F - B) * (F - B);
    }
    double cb = den > 0 ? num / den : NAN;
    if (!isnan(cb))             /* inf - inf: no share either (0.5 stays) */
        j->cb = cb < 0 ? 0 : cb > 1 ? 1 : cb;
    uint64_t all = p->cat->n >= 64 ? ~0ULL : (1ULL << p->cat->n) - 1;
    uint64_t no = 0;
    for (int g = 0; g < NG; g++)
        if (thr[g] == 0 && p->model[g] >= 0)
            no |= 1ULL << p->model[g];
    if (no)
        j->allowed = all & ~no;
    return 1;
}

static const struct gs_rows_ops philly_ops = {
    .delim = '\t',
    .row = philly_row,
};

static void philly_close(void *st)
{
    struct philly *p = st;
    if (p == NULL)
        return;
    gs_rows_close(p->rows);
    free(p->e);
    free(p->thr_path);
    free(p);
}

/* Gavel keeps simulation_throughputs.json in scheduler/, its traces in
 * scheduler/traces/msr/seed=N/ and scheduler/traces/physical_cluster/: look
 * beside the trace, then up to THR_UP folders above it.  0 with
 * p->thr_path set, or GS_EIO naming the option that gives the file. */
#define THR_UP 3
#define THR_NAME "simulation_throughputs.json"

static int find_throughputs(struct philly *p, const char *trace,
                            struct gs_diag *d)
{
    /* built in memory: a folder cut to a buffer could name another
     * folder's file */
    const char *slash = strrchr(trace, '/');
    int dl = slash ? (int)(slash - trace) : 1;
    const char *dir = slash ? (dl > 0 ? trace : "/") : ".";
    if (slash && dl == 0)
        dl = 1;
    static const char ups[] = "/../../..";
    for (int up = 0; up <= THR_UP; up++) {
        char *cand = NULL;
        if (asprintf(&cand, "%.*s%.*s/" THR_NAME, dl, dir, 3 * up, ups) < 0)
            return gs_diag_set(d, GS_ENOMEM, trace, "out of memory");
        if (strlen(cand) < PATH_MAX && access(cand, F_OK) == 0) {
            p->thr_path = cand;
            return 0;
        }
        free(cand);
    }
    return gs_diag_set(d, GS_EIO, trace, "no " THR_NAME " beside the trace "
                       "or in the %d folders above it (Gavel keeps it in "
                       "scheduler/): give it with --opt throughputs=FILE, or "
                       "\"throughputs\" in a scenario's workload.trace",
                       THR_UP);
}

static int philly_open(const struct gs_scenario *sc, struct gs_params *o,
                       void **state, struct gs_diag *d)
{
    *state = NULL;
    struct philly *p = calloc(1, sizeof *p);
    if (p == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    p->cat = &sc->cat;
    p->ref = V100;
    for (int g = 0; g < NG; g++)
        p->model[g] = gs_catalog_find(&sc->cat, gmodel[g]);
    char *path = NULL;
    const char *refname = NULL;
    int skip = 0, rc;
    if ((rc = gs_topt_path(sc, o, "path", 1, &path, NULL, d)) < 0 ||
        (rc = gs_topt_path(sc, o, "throughputs", 0, &p->thr_path, NULL,
                           d)) < 0 ||
        (rc = gs_params_str(o, "reference_gpu", &refname, d)) < 0 ||
        (rc = gs_topt_skip(o, &skip, d)) < 0)
        goto fail;
    gs_tbasename(path, p->tenant, sizeof p->tenant);
    if ((rc = gs_topt_tenant(o, "tenant", p->tenant, d)) < 0)
        goto fail;
    if (refname) {
        p->ref = -1;
        for (int g = 0; g < NG; g++)
            if (strcmp(refname, gname[g]) == 0)
                p->ref = g;
        if (p->ref < 0) {
            char *where;
            where = gs_strf("%s.reference_gpu", o->where);
            rc = gs_diag_set_at(d, GS_EINVAL, where, "'%s' is not one of "
                                "v100, p100, k80", refname);
            goto fail;
        }
    }
    if (!p->thr_path && (rc = find_throughputs(p, path, d)) < 0)
        goto fail;
    if ((rc = load_throughputs(p, d)) < 0 ||
        (rc = gs_rows_open(path, &philly_ops, p, skip, &p->rows, d)) < 0)
        goto fail;
    free(path);
    *state = p;
    return 0;
fail:
    free(path);
    philly_close(p);
    return rc;
}

static int philly_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    struct philly *p = st;
    return gs_rows_next(p->rows, out, d);
}

const struct gs_trace_format gs_philly_format = {
    .name = "philly-gavel",
    .summary = "Gavel's Philly-derived .trace + simulation_throughputs.json",
    .open = philly_open,
    .next = philly_next,
    .close = philly_close,
};
