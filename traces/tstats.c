/* tstats.c -- counts, rates, histograms and percentiles of a workload.
 *
 * Percentiles use the nearest-rank rule on the sorted values (the value
 * below which q% of the jobs fall, rounded up to a job).  The arrival rate
 * by hour of day divides the arrivals in each hour of day by the exposure:
 * how many hours of the trace's span [first, last arrival] fall in that
 * hour of day, so a trace that starts at 18:00 is not biased towards the
 * evening.  Offered load is the demanded GPU-hours over the span, as an
 * average number of GPUs busy, and as a share of a fleet; the peak demand
 * is the most GPUs wanted at once if every job started on arrival (a sweep
 * over start and end events, ends before starts at the same instant). */
#include "tstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gs_tstats_init(struct gs_tstats *s)
{
    memset(s, 0, sizeof *s);
}

void gs_tstats_free(struct gs_tstats *s)
{
    free(s->tenants);
    free(s->dur_s);
    free(s->gpus);
    free(s->arr);
    free(s->hidx);
    free(s->sorted);
    memset(s, 0, sizeof *s);
}

static const char *const bin_names[GS_TSTATS_BINS] = {
    "CPU-only", "fraction", "1", "2", "3-4", "5-8", "9-16", "17-32", "33-64",
    "65+"
};

const char *gs_tstats_bin_name(int b)
{
    return b >= 0 && b < GS_TSTATS_BINS ? bin_names[b] : "?";
}

int gs_tstats_bin(double g)
{
    if (g <= 0)
        return 0;
    if (g < 1)
        return 1;
    if (g <= 2)
        return g <= 1 ? 2 : 3;
    if (g <= 4)
        return 4;
    if (g <= 8)
        return 5;
    if (g <= 16)
        return 6;
    if (g <= 32)
        return 7;
    if (g <= 64)
        return 8;
    return 9;
}

static uint64_t hash(const char *name)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    return h;
}

static int rehash(struct gs_tstats *s, int cap)
{
    int *ni = malloc((size_t)cap * sizeof *ni);
    if (ni == NULL)
        return -1;
    for (int i = 0; i < cap; i++)
        ni[i] = -1;
    for (int k = 0; k < s->ntenants; k++) {
        uint64_t h = hash(s->tenants[k].name) & (uint64_t)(cap - 1);
        while (ni[h] >= 0)
            h = (h + 1) & (uint64_t)(cap - 1);
        ni[h] = k;
    }
    free(s->hidx);
    s->hidx = ni;
    s->hcap = cap;
    return 0;
}

static struct gs_tstats_tenant *tenant(struct gs_tstats *s, const char *name)
{
    if (2 * (s->ntenants + 1) > s->hcap &&
        rehash(s, s->hcap ? s->hcap * 2 : 64) < 0)
        return NULL;
    uint64_t h = hash(name) & (uint64_t)(s->hcap - 1);
    while (s->hidx[h] >= 0) {
        if (strcmp(s->tenants[s->hidx[h]].name, name) == 0)
            return &s->tenants[s->hidx[h]];
        h = (h + 1) & (uint64_t)(s->hcap - 1);
    }
    if (s->ntenants == s->captenants) {
        int cap = s->captenants ? s->captenants * 2 : 16;
        struct gs_tstats_tenant *nt = realloc(s->tenants,
                                              (size_t)cap * sizeof *nt);
        if (nt == NULL)
            return NULL;
        s->tenants = nt;
        s->captenants = cap;
    }
    s->hidx[h] = s->ntenants;
    struct gs_tstats_tenant *t = &s->tenants[s->ntenants++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    return t;
}

int gs_tstats_add(struct gs_tstats *s, const struct gs_jobspec *j)
{
    if (s->n == s->cap) {
        long cap = s->cap ? s->cap * 2 : 4096;
        double *d = realloc(s->dur_s, (size_t)cap * sizeof *d);
        if (d)
            s->dur_s = d;
        float *g = realloc(s->gpus, (size_t)cap * sizeof *g);
        if (g)
            s->gpus = g;
        gs_time *a = realloc(s->arr, (size_t)cap * sizeof *a);
        if (a)
            s->arr = a;
        if (!d || !g || !a)
            return GS_ENOMEM;
        s->cap = cap;
    }
    double g = j->gpus > 0 ? j->gpus : j->milli / 1000.0;
    double secs = j->work / 1000.0;
    double gh = g * secs / 3600.0;
    struct gs_tstats_tenant *t = tenant(s, j->tenant);
    if (t == NULL)
        return GS_ENOMEM;
    t->n++;
    t->gpu_hours += gh;
    if (s->n == 0 || j->arrival < s->first)
        s->first = j->arrival;
    if (s->n == 0 || j->arrival > s->last)
        s->last = j->arrival;
    s->dur_s[s->n] = secs;
    s->gpus[s->n] = (float)g;
    s->arr[s->n] = j->arrival;
    s->n++;
    s->by_hour[(j->arrival / GS_HOUR) % 24]++;
    int b = gs_tstats_bin(g);
    s->bins[b]++;
    s->bin_gh[b] += gh;
    if (j->tier >= 0 && j->tier < GS_NTIERS) {
        s->tier_n[j->tier]++;
        s->tier_gh[j->tier] += gh;
    }
    s->gpu_hours += gh;
    if (g > s->max_gpus)
        s->max_gpus = g;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gs_tstats_pct(struct gs_tstats *s, double q)
{
    if (s->n == 0)
        return 0;
    if (s->nsorted != s->n) {
        double *ns = realloc(s->sorted, (size_t)s->n * sizeof *ns);
        if (ns == NULL)
            return NAN;
        s->sorted = ns;
        memcpy(s->sorted, s->dur_s, (size_t)s->n * sizeof *ns);
        if (s->n > 1)   /* qsort's base may not be NULL, even for 0 */
            qsort(s->sorted, (size_t)s->n, sizeof *ns, cmp_double);
        s->nsorted = s->n;
    }
    long k = (long)ceil(q / 100.0 * (double)s->n);
    if (k < 1)
        k = 1;
    if (k > s->n)
        k = s->n;
    return s->sorted[k - 1];
}

struct ev {
    double t;
    double g;
};

static int cmp_ev(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->g > y->g) - (x->g < y->g);   /* ends (g < 0) first */
}

double gs_tstats_peak_demand(const struct gs_tstats *s)
{
    if (s->n == 0)
        return 0;
    struct ev *e = malloc((size_t)s->n * 2 * sizeof *e);
    if (e == NULL)
        return NAN;
    for (long i = 0; i < s->n; i++) {
        e[2 * i] = (struct ev){ (double)s->arr[i], s->gpus[i] };
        e[2 * i + 1] = (struct ev){ (double)s->arr[i] + s->dur_s[i] * 1000.0,
                                    -(double)s->gpus[i] };
    }
    qsort(e, (size_t)s->n * 2, sizeof *e, cmp_ev);   /* n > 0: above */
    double cur = 0, peak = 0;
    for (long i = 0; i < s->n * 2; i++) {
        cur += e[i].g;
        if (cur > peak)
            peak = cur;
    }
    free(e);
    return peak;
}

/* Hours of [a, b) (ms) that fall in each hour of day. */
static void exposure(gs_time a, gs_time b, double out[24])
{
    memset(out, 0, 24 * sizeof *out);
    for (gs_time h0 = a / GS_HOUR * GS_HOUR; h0 < b; h0 += GS_HOUR) {
        gs_time lo = h0 > a ? h0 : a, hi = h0 + GS_HOUR < b ? h0 + GS_HOUR : b;
        if (hi > lo)
            out[(h0 / GS_HOUR) % 24] += (double)(hi - lo) / GS_HOUR;
    }
}

double gs_tstats_hour_rate(const struct gs_tstats *s, int h)
{
    double ex[24];
    exposure(s->first, s->last, ex);
    return ex[h] > 0 ? (double)s->by_hour[h] / ex[h] : 0;
}

static void span_text(char *buf, size_t n, double secs)
{
    if (secs >= 2 * 86400)
        snprintf(buf, n, "%.2f d", secs / 86400);
    else if (secs >= 2 * 3600)
        snprintf(buf, n, "%.2f h", secs / 3600);
    else if (secs >= 120)
        snprintf(buf, n, "%.2f min", secs / 60);
    else
        snprintf(buf, n, "%.3f s", secs);
}

static void bar(FILE *fp, double v, double max)
{
    int w = max > 0 ? (int)lround(30.0 * v / max) : 0;
    for (int i = 0; i < w; i++)
        fputc('#', fp);
}

static int cmp_tenant(const void *a, const void *b)
{
    const struct gs_tstats_tenant *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->name, y->name);
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

void gs_tstats_print(FILE *fp, struct gs_tstats *s, const char *source,
                     double fleet_gpus, const char *fleet)
{
    char sp[64];
    double span = (double)(s->last - s->first) / 1000.0;
    span_text(sp, sizeof sp, span);
    fprintf(fp, "workload   %s\n", source);
    fprintf(fp, "jobs       %ld\n", s->n);
    if (s->n == 0)
        return;
    fprintf(fp, "span       first arrival %.3f s, last %.3f s (%s)\n",
            (double)s->first / 1000.0, (double)s->last / 1000.0, sp);
    if (span > 0)
        fprintf(fp, "rate       %.3f jobs/h on average\n",
                (double)(s->n - 1) / (span / 3600.0));

    fprintf(fp, "\narrivals by hour of day (time 0 = midnight)\n"
            "  hour     jobs   jobs/h\n");
    double rmax = 0, rate[24];
    for (int h = 0; h < 24; h++) {
        rate[h] = gs_tstats_hour_rate(s, h);
        if (rate[h] > rmax)
            rmax = rate[h];
    }
    for (int h = 0; h < 24; h++) {
        fprintf(fp, "  %02d  %8ld %8.2f  ", h, s->by_hour[h], rate[h]);
        bar(fp, rate[h], rmax);
        fputc('\n', fp);
    }

    fprintf(fp, "\nGPU demand per job\n"
            "  gpus          jobs   share    GPU-hours   share\n");
    for (int b = 0; b < GS_TSTATS_BINS; b++)
        if (s->bins[b])
            fprintf(fp, "  %-9s %8ld  %5.1f%%  %11.1f  %5.1f%%\n",
                    bin_names[b], s->bins[b], pct((double)s->bins[b],
                    (double)s->n), s->bin_gh[b],
                    pct(s->bin_gh[b], s->gpu_hours));
    fprintf(fp, "  largest   %g GPUs\n", s->max_gpus);

    double mean = 0;
    for (long i = 0; i < s->n; i++)
        mean += s->dur_s[i];
    mean /= (double)s->n;
    fprintf(fp, "\ndurations (s, on the job's reference GPU)\n"
            "  mean %.1f   p50 %.1f   p90 %.1f   p99 %.1f   p99.9 %.1f   "
            "max %.1f\n", mean, gs_tstats_pct(s, 50), gs_tstats_pct(s, 90),
            gs_tstats_pct(s, 99), gs_tstats_pct(s, 99.9),
            gs_tstats_pct(s, 100));

    fprintf(fp, "\ntiers\n  tier            jobs   share    GPU-hours   "
            "share\n");
    for (int t = 0; t < GS_NTIERS; t++)
        if (s->tier_n[t])
            fprintf(fp, "  %-12s %8ld  %5.1f%%  %11.1f  %5.1f%%\n",
                    gs_tier_name(t), s->tier_n[t],
                    pct((double)s->tier_n[t], (double)s->n), s->tier_gh[t],
                    pct(s->tier_gh[t], s->gpu_hours));

    if (s->ntenants > 1)    /* qsort's base may not be NULL, even for 0 */
        qsort(s->tenants, (size_t)s->ntenants, sizeof *s->tenants,
              cmp_tenant);
    if (s->hcap)
        rehash(s, s->hcap);
    int top = s->ntenants < 20 ? s->ntenants : 20;
    fprintf(fp, "\ntenants (%d%s)\n  tenant                jobs   share    "
            "GPU-hours   share\n", s->ntenants,
            s->ntenants > top ? "; the 20 with most jobs" : "");
    for (int i = 0; i < top; i++)
        fprintf(fp, "  %-18s %8ld  %5.1f%%  %11.1f  %5.1f%%\n",
                s->tenants[i].name, s->tenants[i].n,
                pct((double)s->tenants[i].n, (double)s->n),
                s->tenants[i].gpu_hours,
                pct(s->tenants[i].gpu_hours, s->gpu_hours));

    fprintf(fp, "\noffered load\n  demand     %.1f GPU-hours", s->gpu_hours);
    if (span > 0)
        fprintf(fp, " over %s = %.2f GPUs busy on average", sp,
                s->gpu_hours / (span / 3600.0));
    fprintf(fp, "\n  peak       %.2f GPUs at once if every job started on "
            "arrival\n", gs_tstats_peak_demand(s));
    if (fleet_gpus > 0 && span > 0)
        fprintf(fp, "  fleet      %.0f GPUs (%s): offered load %.1f%%\n",
                fleet_gpus, fleet ? fleet : "given",
                100.0 * s->gpu_hours / (span / 3600.0) / fleet_gpus);
}

/* --- request tables -------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int32_t ipct(const int32_t *v, long n, double q)
{
    long k = (long)ceil(q / 100.0 * (double)n);
    return v[k < 1 ? 0 : k > n ? n - 1 : k - 1];
}

/* Open-addressing set of block ids: 1 if id was new. */
struct idset {
    int64_t *slot;
    uint8_t *used;
    uint64_t cap, n;
};

static int idset_add(struct idset *s, int64_t id)
{
    if (2 * (s->n + 1) > s->cap) {
        uint64_t cap = s->cap ? s->cap * 2 : 1024;
        int64_t *ns = calloc(cap, sizeof *ns);
        uint8_t *nu = calloc(cap, 1);
        if (!ns || !nu) {
            free(ns);
            free(nu);
            return -1;
        }
        for (uint64_t i = 0; i < s->cap; i++)
            if (s->used[i]) {
                uint64_t h = ((uint64_t)s->slot[i] * 0x9e3779b97f4a7c15ULL) &
                             (cap - 1);
                while (nu[h])
                    h = (h + 1) & (cap - 1);
                nu[h] = 1;
                ns[h] = s->slot[i];
            }
        free(s->slot);
        free(s->used);
        s->slot = ns;
        s->used = nu;
        s->cap = cap;
    }
    uint64_t h = ((uint64_t)id * 0x9e3779b97f4a7c15ULL) & (s->cap - 1);
    while (s->used[h]) {
        if (s->slot[h] == id)
            return 0;
        h = (h + 1) & (s->cap - 1);
    }
    s->used[h] = 1;
    s->slot[h] = id;
    s->n++;
    return 1;
}

void gs_reqstats_print(FILE *fp, const struct gs_reqtable *t)
{
    fprintf(fp, "requests   %s (%s)\n", t->path, t->format);
    fprintf(fp, "count      %ld\n", t->n);
    if (t->n == 0)
        return;
    gs_time first = t->r[0].arrival, last = t->r[t->n - 1].arrival;
    char sp[64];
    span_text(sp, sizeof sp, (double)(last - first) / 1000.0);
    fprintf(fp, "span       %.3f s to %.3f s (%s)", (double)first / 1000.0,
            (double)last / 1000.0, sp);
    if (t->origin_ms)
        fprintf(fp, "; time 0 = %lld ms since 1970 UTC",
                (long long)t->origin_ms);
    fputc('\n', fp);
    if (last > first)
        fprintf(fp, "rate       %.3f requests/s on average\n",
                (double)(t->n - 1) / ((double)(last - first) / 1000.0));
    /* By hour of the wall clock when known, else of trace time. */
    long byh[24] = { 0 };
    double ex[24];
    int64_t off = t->origin_ms % (24LL * GS_HOUR);
    for (long i = 0; i < t->n; i++)
        byh[((t->r[i].arrival + off) / GS_HOUR) % 24]++;
    exposure(first + off, last + off, ex);
    fprintf(fp, "\narrivals by hour of day (%s)\n  hour   requests  "
            "requests/s\n", t->origin_ms ? "UTC" : "time 0 = midnight");
    for (int h = 0; h < 24; h++)
        if (byh[h])
            fprintf(fp, "  %02d  %10ld  %10.3f\n", h, byh[h],
                    ex[h] > 0 ? (double)byh[h] / (ex[h] * 3600.0) : 0);
    int32_t *v = malloc((size_t)t->n * sizeof *v);
    if (v == NULL)
        return;
    for (int k = 0; k < 2; k++) {
        long long sum = 0;
        for (long i = 0; i < t->n; i++) {
            v[i] = k == 0 ? t->r[i].input_tokens : t->r[i].output_tokens;
            sum += v[i];
        }
        if (t->n > 1)   /* qsort's base may not be NULL, even for 0 */
            qsort(v, (size_t)t->n, sizeof *v, cmp_int);
        fprintf(fp, "%s tokens  total %lld  mean %.1f  p50 %d  p90 %d  "
                "p99 %d  max %d\n", k == 0 ? "\ninput " : "output", sum,
                (double)sum / (double)t->n, ipct(v, t->n, 50),
                ipct(v, t->n, 90), ipct(v, t->n, 99), v[t->n - 1]);
    }
    free(v);
    if (t->nblocks > 0) {
        struct idset set = { 0 };
        uint64_t reused = 0;
        long hit = 0;
        for (long i = 0; i < t->n; i++) {
            const int64_t *b = gs_request_blocks(t, &t->r[i]);
            int any = 0;
            for (uint32_t k = 0; k < t->r[i].nblocks; k++) {
                int fresh = idset_add(&set, b[k]);
                if (fresh == 0) {
                    reused++;
                    any = 1;
                }
            }
            hit += any;
        }
        fprintf(fp, "\nprefix blocks (%d tokens)\n  blocks %llu, distinct "
                "%llu; %.1f%% of blocks seen before (reusable KV cache); "
                "%ld requests (%.1f%%) reuse at least one\n",
                GS_PREFIX_BLOCK_TOKENS, (unsigned long long)t->nblocks,
                (unsigned long long)set.n,
                pct((double)reused, (double)t->nblocks), hit,
                pct((double)hit, (double)t->n));
        free(set.slot);
        free(set.used);
    }
}
