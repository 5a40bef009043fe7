/* dcgm.c -- DCGM metrics from Prometheus range queries: utilization,
 * allocation and idleness by node, model, namespace and hour.
 *
 * Sources: NVIDIA DCGM's field identifiers (DCGM_FI_DEV_GPU_UTIL, percent
 * of time a kernel ran; DCGM_FI_DEV_FB_USED, framebuffer MiB used;
 * DCGM_FI_DEV_POWER_USAGE, W; DCGM_FI_PROF_GR_ENGINE_ACTIVE, the ratio of
 * time the graphics engine was active, the one utilization DCGM reports
 * per MIG instance, where GPU_UTIL is not), dcgm-exporter's labels
 * (Hostname, gpu, UUID, modelName, GPU_I_PROFILE, GPU_I_ID, and namespace,
 * pod, container when the kubelet's pod-resources API maps the GPU to a
 * pod -- exported_namespace/exported_pod when Prometheus renamed them),
 * and Prometheus' HTTP API (/api/v1/query_range returns {"status":
 * "success", "data": {"resultType": "matrix", "result": [{"metric":
 * {...}, "values": [[unix_seconds, "value"], ...]}]}}, at most 11,000
 * points a series, so a month at a 30 s step is many files).
 *
 * The model.  A device is a GPU (UUID, else Hostname and gpu) or a MIG
 * instance of one (plus GPU_I_ID, else GPU_I_PROFILE); a MIG instance of
 * profile "Ng.*" counts N/7 of a GPU.  Every sample stands for the time to
 * the device's next sample, at most one step (option step, else the most
 * common spacing of all samples); the last for one step.  At each sample
 * time of a device:
 *   utilization  GPU_UTIL / 100, else GR_ENGINE_ACTIVE (a ratio; a value
 *                above 1 is taken as percent); a time without either is
 *                not observed
 *   allocated    the utilization sample's series has a namespace (a pod
 *                held the GPU); its namespace is the tenant
 *   idle         allocated and utilization below option idle (5 %)
 * and GPU-hours add up: observed = allocated + unallocated, and busy =
 * sum of utilization x time.  Power x time is energy; FB_USED x time on
 * allocated idle GPUs is memory held idle.  Hours are epoch hours (a
 * sample counts wholly in the hour it starts in); hours of day are in
 * option tz (UTC).  A series of another metric is left out and counted;
 * a sample "NaN" is skipped; anything else malformed is an error naming
 * the file and the JSON path. */
#include "dcgm.h"
#include "tread.h"

#include "../sim/base/params.h"
#include "../sim/io/jsonio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { M_UTIL, M_FB, M_POWER, M_GRACT, NMETRIC };

static const char *const mname[NMETRIC] = {
    "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_POWER_USAGE",
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
};

struct drec {
    int64_t t;
    int32_t dev, ns;            /* ns: -1 none */
    float v;
    int8_t metric;
};

struct names {
    int n, cap;
    char **s;
};

struct dev {
    char *key;
    int node, model;
    double weight;
};

struct agg {
    double obs, busy, alloc, idle;
};

struct gs_dcgm {
    struct gs_dcgm_opts o;
    struct gs_dcgm_totals tot;
    struct names nodes, models, nss, keys;
    struct dev *dev;
    struct drec *r;
    long nr, cap;
    long ignored;               /* series of other metrics */
    struct agg *by_node, *by_model, *by_ns, by_hod[24];
    int64_t h0;
    int nh;
    double *h_seen, *h_alloc, *h_busy;
};

/* The index of s in t, added when new; -1 out of memory. */
static int intern(struct names *t, const char *s)
{
    for (int i = t->n - 1; i >= 0; i--)
        if (strcmp(t->s[i], s) == 0)
            return i;
    if (t->n == t->cap) {
        int nc = t->cap ? 2 * t->cap : 16;
        char **ns = realloc(t->s, (size_t)nc * sizeof *ns);
        if (ns == NULL)
            return -1;
        t->s = ns;
        t->cap = nc;
    }
    if ((t->s[t->n] = strdup(s)) == NULL)
        return -1;
    return t->n++;
}

static void names_free(struct names *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
}

void gs_dcgm_free(struct gs_dcgm *m)
{
    if (m == NULL)
        return;
    names_free(&m->nodes);
    names_free(&m->models);
    names_free(&m->nss);
    names_free(&m->keys);
    free(m->dev);
    free(m->r);
    free(m->by_node);
    free(m->by_model);
    free(m->by_ns);
    free(m->h_seen);
    free(m->h_alloc);
    free(m->h_busy);
    free(m);
}

static const char *lab(const struct gs_json *metric, const char *a,
                       const char *b)
{
    const char *s = gs_json_string(gs_json_get(metric, a));
    if (s == NULL && b)
        s = gs_json_string(gs_json_get(metric, b));
    return s;
}

static int jfail(struct gs_diag *d, const char *file, const char *path,
                 const char *what)
{
    char *where;
    where = gs_strf("%s: %s", file, path);
    return gs_diag_set_at(d, GS_EPARSE, where, "%s", what);
}

/* The device a series belongs to (added when new). */
static int series_dev(struct gs_dcgm *m, const struct gs_json *metric,
                      int *dev)
{
    const char *uuid = lab(metric, "UUID", "uuid");
    const char *host = lab(metric, "Hostname", "kubernetes_node");
    const char *gpu = lab(metric, "gpu", "device");
    const char *gi = lab(metric, "GPU_I_ID", NULL);
    const char *prof = lab(metric, "GPU_I_PROFILE", NULL);
    const char *model = lab(metric, "modelName", NULL);
    char key[512];
    snprintf(key, sizeof key, "%s|%s|%s|%s", uuid ? uuid : "",
             uuid ? "" : host ? host : "", uuid ? "" : gpu ? gpu : "",
             gi ? gi : prof ? prof : "");
    int k = intern(&m->keys, key);
    if (k < 0)
        return GS_ENOMEM;
    if (k == m->tot.devices) {
        struct dev *nd = realloc(m->dev, (size_t)(k + 1) * sizeof *nd);
        if (nd == NULL)
            return GS_ENOMEM;
        m->dev = nd;
        nd[k].key = m->keys.s[k];
        nd[k].node = intern(&m->nodes, host ? host : "-");
        nd[k].model = intern(&m->models, model ? model : "-");
        nd[k].weight = 1;
        if (nd[k].node < 0 || nd[k].model < 0)
            return GS_ENOMEM;
        if (prof && prof[0] >= '1' && prof[0] <= '7' && prof[1] == 'g') {
            nd[k].weight = (prof[0] - '0') / 7.0;
            m->tot.mig_devices++;
        }
        m->tot.devices++;
    }
    *dev = k;
    return 0;
}

static int add_rec(struct gs_dcgm *m, const struct drec *r)
{
    if (m->nr == m->cap) {
        long nc = m->cap ? 2 * m->cap : 4096;
        struct drec *nv = realloc(m->r, (size_t)nc * sizeof *nv);
        if (nv == NULL)
            return GS_ENOMEM;
        m->r = nv;
        m->cap = nc;
    }
    m->r[m->nr++] = *r;
    return 0;
}

/* One series' samples. */
static int load_values(struct gs_dcgm *m, const char *file, const char *path,
                       const struct gs_json *vals, struct drec *proto,
                       struct gs_diag *d)
{
    int k = 0, rc = 0;
    for (const struct gs_json *p = gs_json_first(vals); p && rc >= 0;
         p = gs_json_next(p), k++) {
        double v;
        rc = gs_cimp_prom_sample(file, path, p, k, &proto->t, &v, d);
        if (rc == 1 && v > 1e9)
            rc = jfail(d, file, path, "a value above 1e9");
        if (rc == 1) {
            proto->v = (float)v;
            if (add_rec(m, proto) < 0)
                return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
        }
    }
    return rc < 0 ? rc : 0;
}

static int load_series(void *ctx, const char *file, int i,
                       const struct gs_json *metric,
                       const struct gs_json *vals, struct gs_diag *d)
{
    struct gs_dcgm *m = ctx;
    char path[96];
    const char *name = lab(metric, "__name__", NULL);
    if (name == NULL) {
        snprintf(path, sizeof path, "$.data.result[%d].metric.__name__", i);
        return jfail(d, file, path, "missing: query the metric by its name "
                     "(DCGM_FI_DEV_GPU_UTIL, not an expression of it)");
    }
    int k = 0;
    while (k < NMETRIC && strcmp(mname[k], name) != 0)
        k++;
    if (k == NMETRIC) {
        m->ignored++;
        return 0;
    }
    struct drec proto = { .metric = (int8_t)k, .ns = -1 };
    int rc = series_dev(m, metric, &proto.dev);
    const char *ns = lab(metric, "namespace", "exported_namespace");
    if (rc == 0 && ns && ns[0] && (proto.ns = intern(&m->nss, ns)) < 0)
        rc = GS_ENOMEM;
    if (rc < 0)
        return gs_diag_set(d, rc, file, "out of memory");
    m->tot.series++;
    snprintf(path, sizeof path, "$.data.result[%d].values", i);
    return load_values(m, file, path, vals, &proto, d);
}

static int load_file(struct gs_dcgm *m, const char *file, struct gs_diag *d)
{
    m->tot.files++;
    return gs_cimp_prom_file(file, load_series, m, d);
}

static int by_dev_time(const void *a, const void *b)
{
    const struct drec *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->metric - y->metric;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The most common spacing of consecutive sample times of a device. */
static int64_t common_step(const struct gs_dcgm *m)
{
    int64_t *gap = malloc((size_t)(m->nr + 1) * sizeof *gap);
    long ng = 0;
    if (gap == NULL)
        return 0;
    for (long i = 1; i < m->nr; i++)
        if (m->r[i].dev == m->r[i - 1].dev && m->r[i].t > m->r[i - 1].t)
            gap[ng++] = m->r[i].t - m->r[i - 1].t;
    int64_t best = 0;
    if (ng > 1)      /* qsort's base may not be NULL, even for 0 */
        qsort(gap, (size_t)ng, sizeof *gap, cmp_i64);
    for (long i = 0, run = 0, bestrun = 0; i < ng; i++) {
        run = i > 0 && gap[i] == gap[i - 1] ? run + 1 : 1;
        if (run > bestrun) {
            bestrun = run;
            best = gap[i];
        }
    }
    free(gap);
    return best > 0 ? best : 60000;
}

/* The local hour of day of an epoch time in the zone. */
static int hour_of_day(int64_t ms, const struct gs_cimp_tz *tz)
{
    int64_t s = ms / 1000;
    if (tz->named) {
        char buf[32];
        gs_cimp_fmt_utc(ms, buf, sizeof buf);
        buf[19] = '\0';
        /* local = utc + offset: find the offset by converting back */
        int64_t back;
        if (gs_cimp_localtime(buf, tz, &back) == 0)
            s += (ms - back) / 1000;
    } else {
        s += tz->offset_s;
    }
    int64_t h = (s / 3600) % 24;
    return (int)(h < 0 ? h + 24 : h);
}

static void agg_add(struct agg *a, double obs, double busy, double alloc,
                    double idle)
{
    a->obs += obs;
    a->busy += busy;
    a->alloc += alloc;
    a->idle += idle;
}

/* One device's time t: records [a, b) of the sorted array; dt hours. */
static void account(struct gs_dcgm *m, long a, long b, double dt)
{
    double u = -1, fb = -1, pw = -1;
    int ns = -1;
    for (long i = a; i < b; i++) {
        const struct drec *r = &m->r[i];
        if (r->metric == M_UTIL) {
            u = r->v / 100.0;
            ns = r->ns;
        } else if (r->metric == M_GRACT && u < 0) {
            u = r->v > 1 ? r->v / 100.0 : r->v;
            ns = r->ns;
        } else if (r->metric == M_FB) {
            fb = r->v;
        } else if (r->metric == M_POWER) {
            pw = r->v;
        }
    }
    const struct dev *dv = &m->dev[m->r[a].dev];
    struct gs_dcgm_totals *t = &m->tot;
    if (pw >= 0) {
        t->energy_kwh += pw * dt / 1000.0;
        t->power_h += dt;
    }
    if (u < 0)
        return;
    u = u > 1 ? 1 : u;
    double w = dv->weight * dt, busy = w * u;
    double al = ns >= 0 ? w : 0, idle = ns >= 0 && u < m->o.idle ? w : 0;
    t->observed_h += w;
    t->busy_h += busy;
    t->alloc_h += al;
    t->idle_alloc_h += idle;
    t->unalloc_h += w - al;
    if (idle > 0 && fb > 0)
        t->fb_idle_gib_h += fb / 1024.0 * dt;
    agg_add(&m->by_node[dv->node], w, busy, al, idle);
    agg_add(&m->by_model[dv->model], w, busy, al, idle);
    if (ns >= 0)
        agg_add(&m->by_ns[ns], w, busy, al, idle);
    agg_add(&m->by_hod[hour_of_day(m->r[a].t, &m->o.tz)], w, busy, al, idle);
    int h = (int)(m->r[a].t / 3600000 - m->h0);
    m->h_seen[h] += w;
    m->h_alloc[h] += al;
    m->h_busy[h] += busy;
}

static int sweep(struct gs_dcgm *m)
{
    if (m->nr > 1)      /* qsort's base may not be NULL, even for 0 */
        qsort(m->r, (size_t)m->nr, sizeof *m->r, by_dev_time);
    long w = 0;     /* a sample repeated across files is kept once */
    for (long i = 0; i < m->nr; i++)
        if (w == 0 || by_dev_time(&m->r[w - 1], &m->r[i]) != 0)
            m->r[w++] = m->r[i];
    m->nr = w;
    struct gs_dcgm_totals *t = &m->tot;
    t->step_ms = m->o.step_ms > 0 ? m->o.step_ms : common_step(m);
    t->first_ms = INT64_MAX;
    t->last_ms = INT64_MIN;
    for (long i = 0; i < m->nr; i++) {
        t->first_ms = m->r[i].t < t->first_ms ? m->r[i].t : t->first_ms;
        t->last_ms = m->r[i].t > t->last_ms ? m->r[i].t : t->last_ms;
    }
    m->h0 = t->first_ms / 3600000;
    m->nh = (int)(t->last_ms / 3600000 - m->h0 + 1);
    m->by_node = calloc((size_t)m->nodes.n + 1, sizeof *m->by_node);
    m->by_model = calloc((size_t)m->models.n + 1, sizeof *m->by_model);
    m->by_ns = calloc((size_t)m->nss.n + 1, sizeof *m->by_ns);
    m->h_seen = calloc((size_t)m->nh, sizeof *m->h_seen);
    m->h_alloc = calloc((size_t)m->nh, sizeof *m->h_alloc);
    m->h_busy = calloc((size_t)m->nh, sizeof *m->h_busy);
    if (!m->by_node || !m->by_model || !m->by_ns || !m->h_seen ||
        !m->h_alloc || !m->h_busy)
        return GS_ENOMEM;
    t->nodes = m->nodes.n;
    for (long a = 0, b; a < m->nr; a = b) {
        b = a + 1;
        while (b < m->nr && m->r[b].dev == m->r[a].dev &&
               m->r[b].t == m->r[a].t)
            b++;
        int64_t next = b < m->nr && m->r[b].dev == m->r[a].dev
                       ? m->r[b].t : INT64_MAX;
        int64_t span = next - m->r[a].t;
        double dt = (double)(span < t->step_ms ? span : t->step_ms) / 3.6e6;
        account(m, a, b, dt);
    }
    return 0;
}

int gs_dcgm_load(const char *const *paths, int n,
                 const struct gs_dcgm_opts *o, struct gs_dcgm **out,
                 struct gs_diag *d)
{
    *out = NULL;
    struct gs_dcgm *m = calloc(1, sizeof *m);
    if (m == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    m->o = *o;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        rc = load_file(m, paths[i], d);
    if (rc == 0 && m->nr == 0)
        rc = gs_diag_set(d, GS_EPARSE, n ? paths[0] : "", "no sample of "
                         "DCGM_FI_DEV_GPU_UTIL, _FB_USED, _POWER_USAGE or "
                         "DCGM_FI_PROF_GR_ENGINE_ACTIVE in %d file%s", n,
                         n == 1 ? "" : "s");
    if (rc == 0 && sweep(m) < 0)
        rc = gs_diag_set(d, GS_ENOMEM, paths[0], "out of memory");
    if (rc < 0) {
        gs_dcgm_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void gs_dcgm_totals(const struct gs_dcgm *m, struct gs_dcgm_totals *t)
{
    *t = m->tot;
}

void gs_dcgm_hours(const struct gs_dcgm *m, struct gs_dcgm_hours *h)
{
    h->t0_ms = m->h0 * 3600000;
    h->n = m->nh;
    h->seen = m->h_seen;
    h->alloc = m->h_alloc;
    h->busy = m->h_busy;
}

int gs_dcgm_ngroups(const struct gs_dcgm *m, int by)
{
    return by == GS_DCGM_BY_NODE ? m->nodes.n
           : by == GS_DCGM_BY_MODEL ? m->models.n
           : by == GS_DCGM_BY_NS ? m->nss.n : 0;
}

void gs_dcgm_group(const struct gs_dcgm *m, int by, int i,
                   struct gs_dcgm_group *g)
{
    const struct names *nm = by == GS_DCGM_BY_NODE ? &m->nodes
                             : by == GS_DCGM_BY_MODEL ? &m->models : &m->nss;
    const struct agg *a = by == GS_DCGM_BY_NODE ? m->by_node
                          : by == GS_DCGM_BY_MODEL ? m->by_model : m->by_ns;
    GS_ASSERT(i >= 0 && i < nm->n);
    *g = (struct gs_dcgm_group){ .name = nm->s[i], .observed_h = a[i].obs,
                                 .busy_h = a[i].busy, .alloc_h = a[i].alloc,
                                 .idle_h = a[i].idle };
}

static double pct(double a, double b)
{
    return b > 0 ? 100.0 * a / b : 0.0;
}

static void table(FILE *fp, const char *what, const struct names *nm,
                  const struct agg *a)
{
    fprintf(fp, "\n  %-28s %10s %10s %7s %10s %10s\n", what, "GPU-hours",
            "busy", "util", "allocated", "idle alloc");
    for (int i = 0; i < nm->n; i++)
        fprintf(fp, "  %-28.28s %10.2f %10.2f %6.1f%% %10.2f %10.2f\n",
                nm->s[i], a[i].obs, a[i].busy, pct(a[i].busy, a[i].obs),
                a[i].alloc, a[i].idle);
}

void gs_dcgm_print(FILE *fp, const struct gs_dcgm *m)
{
    const struct gs_dcgm_totals *t = &m->tot;
    char a[32], b[32];
    gs_cimp_fmt_utc(t->first_ms, a, sizeof a);
    gs_cimp_fmt_utc(t->last_ms, b, sizeof b);
    fprintf(fp, "DCGM        %d files, %d series, %d devices (%d MIG "
            "instances) on %d nodes\n", t->files, t->series, t->devices,
            t->mig_devices, t->nodes);
    fprintf(fp, "period      %s .. %s, step %.0f s\n", a, b,
            (double)t->step_ms / 1000.0);
    if (m->ignored)
        fprintf(fp, "ignored     %ld series of other metrics\n", m->ignored);
    fprintf(fp, "GPU-hours   %.2f observed, %.2f busy: utilization %.1f %%\n",
            t->observed_h, t->busy_h, pct(t->busy_h, t->observed_h));
    fprintf(fp, "allocated   %.2f GPU-hours (%.1f %%), of which %.2f idle "
            "(utilization below %.0f %%); %.2f unallocated\n", t->alloc_h,
            pct(t->alloc_h, t->observed_h), t->idle_alloc_h,
            100 * m->o.idle, t->unalloc_h);
    if (t->fb_idle_gib_h > 0)
        fprintf(fp, "memory      %.1f GiB-hours held by allocated idle "
                "GPUs\n", t->fb_idle_gib_h);
    if (t->power_h > 0)
        fprintf(fp, "power       %.1f W mean per GPU, %.2f kWh\n",
                1000 * t->energy_kwh / t->power_h, t->energy_kwh);
    table(fp, "node", &m->nodes, m->by_node);
    table(fp, "model", &m->models, m->by_model);
    table(fp, "namespace", &m->nss, m->by_ns);
    fprintf(fp, "  %-28s %10.2f\n", "(no pod: unallocated)", t->unalloc_h);
    fprintf(fp, "\n  hour of day (%s) %9s %10s %7s %10s\n",
            m->o.tz.named ? m->o.tz.name : "UTC offset", "GPU-hours", "busy",
            "util", "allocated");
    for (int h = 0; h < 24; h++)
        if (m->by_hod[h].obs > 0)
            fprintf(fp, "  %02d %25s %10.2f %10.2f %6.1f%% %10.2f\n", h, "",
                    m->by_hod[h].obs, m->by_hod[h].busy,
                    pct(m->by_hod[h].busy, m->by_hod[h].obs),
                    m->by_hod[h].alloc);
}

/* --- the command ------------------------------------------------------------- */

static int dusage(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpusim: trace: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'gpusim trace help')\n");
    return 2;
}

static int dreport(struct gs_diag *d)
{
    gs_diag_print(stderr, "gpusim: ", d);
    gs_diag_free(d);
    return 2;
}

static int dnum(const char *s, double lo, double hi, double *out)
{
    return gs_tnum(s, out) < 0 || *out < lo || *out > hi ? -1 : 0;
}

const char gs_dcgm_usage[] =
"usage: gpusim trace dcgm FILE... [--idle PCT] [--step T] [--tz ZONE]\n"
"\n"
"What the GPUs did, from Prometheus range-query exports (JSON) of DCGM\n"
"metrics: utilization by node, model, namespace and hour of day, and\n"
"GPU-hours observed, allocated, busy and idle (docs/import.md).\n"
"\n"
"options:\n"
"  --idle PCT              an allocated GPU below this utilization is\n"
"                          idle (default 5)\n"
"  --step T                the most a sample stands for (default: the\n"
"                          samples' most common spacing; 30s, 1m)\n"
"  --tz ZONE               the zone of the hours of day: UTC (default),\n"
"                          +02:00, or a tz database name (Europe/Berlin)\n"
"\n"
"exit status: 0 done, 2 bad usage or bad input, 1 output not written\n";

/* `gpusim trace dcgm FILE... [--idle PCT] [--step T] [--tz ZONE]` */
int gs_dcgm_main(int argc, char **argv)
{
    struct gs_dcgm_opts o = { .idle = 0.05 };
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int n = 0, rc = 0;
    struct gs_diag d = { 0 };
    if (files == NULL)
        return dusage("%s", "out of memory");
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        gs_time t;
        if (strcmp(a, "--idle") == 0 && v) {
            if (dnum(v, 0, 100, &o.idle) < 0)
                rc = dusage("--idle takes a utilization in percent, not '%s'",
                           v);
            o.idle /= 100.0;
            i++;
        } else if (strcmp(a, "--step") == 0 && v) {
            if (gs_parse_time(v, &t) < 0 || t <= 0)
                rc = dusage("--step takes a time (30s, 1m), not '%s'", v);
            o.step_ms = t;
            i++;
        } else if (strcmp(a, "--tz") == 0 && v) {
            if (gs_cimp_tz_parse(v, &o.tz, &d) < 0)
                rc = dreport(&d);
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = dusage("dcgm: unknown option '%s' (--idle, --step, --tz)", a);
        } else {
            files[n++] = a;
        }
    }
    if (rc == 0 && n == 0)
        rc = dusage("%s", "dcgm takes the range-query exports (JSON files)");
    struct gs_dcgm *m = NULL;
    if (rc == 0 && gs_dcgm_load(files, n, &o, &m, &d) < 0)
        rc = dreport(&d);
    if (rc == 0)
        gs_dcgm_print(stdout, m);
    gs_dcgm_free(m);
    free(files);
    return rc;
}
