/* metrics.c -- integrals, fixed-step time series and the end-of-run summary.
 *
 * See metrics.h.  Utilization is allocated GPU-time over available GPU-time
 * (GPUs on up nodes), the usual definition in cluster-scheduling papers
 * (e.g. Tiresias, Gandiva): a GPU held by a job counts as used whether or not
 * its kernels are busy.  Percentiles use gsl_stats_quantile_from_sorted_data
 * (linear interpolation between order statistics) on waits and completion
 * times sorted as integer milliseconds by a radix sort (the same order, so
 * the same figures, as sorting the seconds). */
#include "metrics.h"
#include "../cluster/frag.h"
#include "../spec/scenario.h"

#include <stdlib.h>
#include <string.h>

int gs_metrics_init(struct gs_metrics *m, const struct gs_fleet *f,
                    gs_time step)
{
    memset(m, 0, sizeof *m);
    m->step = step > 0 ? step : GS_MIN;
    m->npools = f->npools;
    m->pool_used_ms = calloc((size_t)(f->npools + 1), sizeof(double));
    m->pool_avail_ms = calloc((size_t)(f->npools + 1), sizeof(double));
    if (!m->pool_used_ms || !m->pool_avail_ms)
        return GS_ENOMEM;
    struct gs_series *ts = &m->ts;
    for (int p = 0; p < f->npools; p++) {
        if (f->pools[p].s.gpn == 0)
            continue;           /* CPU-only nodes: no GPU model */
        int model = f->pools[p].s.model, k;
        for (k = 0; k < ts->nmodels; k++)
            if (ts->models[k] == model)
                break;
        if (k == ts->nmodels)
            ts->models[ts->nmodels++] = model;
    }
    return 0;
}

void gs_metrics_free(struct gs_metrics *m)
{
    free(m->pool_used_ms);
    free(m->pool_avail_ms);
    struct gs_series *ts = &m->ts;
    free(ts->t);
    free(ts->alloc);
    free(ts->queue);
    free(ts->running);
    free(ts->cost_rate);
    free(ts->gpus_up);
    free(ts->frag);
    free(ts->mig_busy);
    free(ts->stranded);
    free(ts->cpu_alloc);
    free(ts->mem_alloc);
    free(ts->alloc_model);
    free(ts->x);
    memset(ts, 0, sizeof *ts);
    m->pool_used_ms = m->pool_avail_ms = NULL;
}

void gs_metrics_set_hook(struct gs_metrics *m, const struct gs_metrics_hook *h)
{
    m->hook = *h;
    m->ts.nx = h->nx;
    m->ts.xnames = h->names;
}

static double cost_rate(const struct gs_metrics *m, const struct gs_fleet *f,
                        gs_time t)
{
    return m->hook.cost_rate ? m->hook.cost_rate(m->hook.ctx, t)
                             : gs_metrics_cost_rate(f);
}

double gs_metrics_cost_rate(const struct gs_fleet *f)
{
    double r = 0;
    for (int p = 0; p < f->npools; p++)
        r += f->pools[p].s.nodes * f->pools[p].s.price_hour;
    return r;
}

static GS_COLD int grow(struct gs_series *ts)
{
    long cap = ts->cap ? ts->cap * 2 : 1024;
    double **cols[] = { &ts->t, &ts->alloc, &ts->queue, &ts->running,
                        &ts->cost_rate, &ts->gpus_up, &ts->frag,
                        &ts->mig_busy, &ts->stranded, &ts->cpu_alloc,
                        &ts->mem_alloc };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        double *p = realloc(*cols[i], (size_t)cap * sizeof *p);
        if (p == NULL)
            return GS_ENOMEM;
        *cols[i] = p;
    }
    double *am = realloc(ts->alloc_model,
                         (size_t)cap * (size_t)(ts->nmodels ? ts->nmodels : 1) *
                         sizeof *am);
    if (am == NULL)
        return GS_ENOMEM;
    ts->alloc_model = am;
    if (ts->nx > 0) {
        double *x = realloc(ts->x, (size_t)cap * (size_t)ts->nx * sizeof *x);
        if (x == NULL)
            return GS_ENOMEM;
        ts->x = x;
    }
    ts->cap = cap;
    return 0;
}

/* Halve the resolution: keep samples 0, 2, 4, ... and double the step.
 * With n even the next sample still falls at t0 + n' * step'. */
static GS_COLD void coarsen(struct gs_metrics *m)
{
    struct gs_series *ts = &m->ts;
    double *cols[] = { ts->t, ts->alloc, ts->queue, ts->running,
                       ts->cost_rate, ts->gpus_up, ts->frag, ts->mig_busy,
                       ts->stranded, ts->cpu_alloc, ts->mem_alloc };
    long n = ts->n / 2;
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        for (long i = 0; i < n; i++)
            cols[c][i] = cols[c][2 * i];
    for (long i = 0; i < n; i++)
        for (int k = 0; k < ts->nmodels; k++)
            ts->alloc_model[i * ts->nmodels + k] =
                ts->alloc_model[2 * i * ts->nmodels + k];
    for (long i = 0; i < n; i++)
        for (int k = 0; k < ts->nx; k++)
            ts->x[i * ts->nx + k] = ts->x[2 * i * ts->nx + k];
    ts->n = n;
    m->step *= 2;
    m->next_sample = m->t0 + (gs_time)n * m->step;
}

/* The sharing model's levels now (zeros without sharing). */
static void share_levels(const struct gs_metrics *m,
                         struct gs_share_levels *lv)
{
    if (m->share)
        m->share_levels(m->share, lv);
    else
        memset(lv, 0, sizeof *lv);
}

/* One sample of the series (once a step, not once an event: out of the
 * per-event lines of gs_metrics_advance). */
static __attribute__((noinline)) int
sample(struct gs_metrics *m, const struct gs_fleet *f, long pending,
       long running, gs_time t)
{
    struct gs_series *ts = &m->ts;
    if (ts->n == ts->cap && grow(ts) < 0)
        return GS_ENOMEM;
    long i = ts->n++;
    ts->t[i] = (double)(t - m->t0) / 1000.0;
    ts->alloc[i] = gs_fleet_used_gpus(f);
    ts->queue[i] = (double)pending;
    ts->running[i] = (double)running;
    ts->cost_rate[i] = cost_rate(m, f, t);
    if (ts->nx > 0)
        m->hook.fill(m->hook.ctx, t, &ts->x[i * ts->nx]);
    ts->gpus_up[i] = (double)f->gpus_up;
    ts->stranded[i] = (double)f->stranded_milli / 1000.0;
    ts->cpu_alloc[i] = (double)f->cpu_used / 1000.0;
    ts->mem_alloc[i] = (double)f->mem_used / 1024.0;
    double fr = 0, cap = 0;
    gs_frag_levels(m->frag, &fr, &cap);
    ts->frag[i] = cap > 0 ? fr / cap : 0.0;
    struct gs_share_levels lv;
    share_levels(m, &lv);
    ts->mig_busy[i] = lv.mig_slices_up > 0 ? lv.mig_busy_slices /
                                             lv.mig_slices_up : 0.0;
    double *row = &ts->alloc_model[i * ts->nmodels];
    for (int k = 0; k < ts->nmodels; k++)
        row[k] = 0;
    for (int p = 0; p < f->npools; p++)
        for (int k = 0; k < ts->nmodels; k++)
            if (ts->models[k] == f->pools[p].s.model)
                row[k] += (double)f->pools[p].used_milli / 1000.0;
    return 0;
}

int gs_metrics_advance(struct gs_metrics *m, const struct gs_fleet *f,
                       long pending, long running, gs_time t)
{
    if (!m->started) {
        m->started = 1;
        m->t0 = m->last = m->next_sample = t;
    }
    if (t < m->last)
        return 0;
    while (m->next_sample < t) {
        if (sample(m, f, pending, running, m->next_sample) < 0)
            return GS_ENOMEM;
        m->next_sample += m->step;
        if (m->ts.n >= GS_SERIES_MAX)
            coarsen(m);
    }
    double dt = (double)(t - m->last);
    if (dt > 0) {
        m->used_ms += dt * (double)f->used_milli / 1000.0;
        m->avail_ms += dt * (double)f->gpus_up;
        if (f->cpu_cap > 0)
            m->cpu_ms += dt * (double)f->cpu_used / (double)f->cpu_cap;
        if (f->mem_cap > 0)
            m->mem_ms += dt * (double)f->mem_used / (double)f->mem_cap;
        m->strand_ms += dt * (double)f->stranded_milli / 1000.0;
        m->core_ms += dt * (double)f->cpu_used / 1000.0;
        m->cost += dt / GS_HOUR * cost_rate(m, f, m->last);
        for (int p = 0; p < f->npools; p++) {
            m->pool_used_ms[p] += dt * (double)f->pools[p].used_milli / 1000.0;
            m->pool_avail_ms[p] += dt * (double)f->pools[p].gpus_up;
        }
        double fr = 0, cap = 0;
        gs_frag_levels(m->frag, &fr, &cap);
        m->frag_ms += dt * fr;
        if (m->share) {
            struct gs_share_levels lv;
            m->share_levels(m->share, &lv);
            m->mig_busy_ms += dt * lv.mig_busy_slices;
            m->mig_up_ms += dt * lv.mig_slices_up;
            m->ts_lat_ms += dt * lv.ts_latency_ms;
            m->ts_busy_ms += dt * lv.ts_busy_gpus;
        }
        /* Apart from frag_ms, in another block: read together as one
         * 16-byte load right after gs_frag_levels stored them one by one,
         * fr and cap missed the store buffer (a stall of most of this
         * function's time). */
        m->frag_cap_ms += dt * cap;
    }
    m->last = t;
    return 0;
}

/* --- the end-of-run duration statistics --------------------------------
 *
 * Waits and completion times are integer milliseconds.  One pass over the
 * records counts them per tier and finds the largest; a second copies them
 * into one buffer, a region per tier, as 32-bit numbers when the largest
 * fits (4 bytes a job; 8 otherwise).  Each region is sorted in place by an
 * MSD radix sort (American flag sort: McIlroy, Bostic and McIlroy,
 * "Engineering radix sort", Computing Systems 6(1), 1993), needing no
 * scratch, and the figures of all tiers together come from merging the
 * sorted regions, so nothing is sorted twice.
 *
 * The figures are exactly those of GSL on the sorted seconds: the mean is
 * gsl_stats_mean's recurrence (in long double, over the sorted values),
 * the percentiles gsl_stats_quantile_from_sorted_data's interpolation,
 * written out here because the values are never stored as doubles. */

/* The order statistics a tstats needs: p50, p95, p99 interpolate between
 * ranks lo and lo + 1 (gsl_stats_quantile_from_sorted_data). */
static const double quants[3] = { 0.50, 0.95, 0.99 };

struct dsum {
    size_t n, k;                /* values in all; taken so far */
    long double mean;           /* gsl_stats_mean's recurrence */
    size_t lo[3];
    double at_lo[3], at_hi[3];  /* seconds at ranks lo and lo + 1 */
    double last;
};

static void dsum_init(struct dsum *d, size_t n)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    for (int q = 0; q < 3 && n > 0; q++)
        d->lo[q] = (size_t)(int)(quants[q] * (double)(n - 1));
}

/* The next value in ascending order, in milliseconds. */
static inline void dsum_take(struct dsum *d, uint64_t ms)
{
    double x = (double)ms / 1000.0;
    size_t i = d->k++;
    if (x != d->mean)       /* else the step adds +0 (x >= 0): skip the
                               long double division */
        d->mean += (x - d->mean) / (i + 1);
    for (int q = 0; q < 3; q++) {
        if (i == d->lo[q])
            d->at_lo[q] = x;
        else if (i == d->lo[q] + 1)
            d->at_hi[q] = x;
    }
    d->last = x;
}

static double dsum_quant(const struct dsum *d, int q)
{
    if (d->n == 0)
        return 0.0;
    double index = quants[q] * (double)(d->n - 1);
    size_t lhs = (size_t)(int)index;
    double delta = index - (double)lhs;
    if (lhs == d->n - 1)
        return d->at_lo[q];
    return (1 - delta) * d->at_lo[q] + delta * d->at_hi[q];
}

/* American flag sort of a[0..n) on the digit at shift and those below. */
#define GS_AFSORT(NAME, T)                                                 \
static void NAME(T *a, size_t n, int shift)                                \
{                                                                          \
    if (n < 48) {                                                          \
        for (size_t i = 1; i < n; i++) {                                   \
            T v = a[i];                                                    \
            size_t j = i;                                                  \
            for (; j > 0 && a[j - 1] > v; j--)                             \
                a[j] = a[j - 1];                                           \
            a[j] = v;                                                      \
        }                                                                  \
        return;                                                            \
    }                                                                      \
    size_t cnt[256] = { 0 }, head[256], tail[256];                         \
    for (size_t i = 0; i < n; i++)                                         \
        cnt[(a[i] >> shift) & 255]++;                                      \
    size_t sum = 0;                                                        \
    for (int b = 0; b < 256; b++) {                                        \
        head[b] = sum;                                                     \
        sum += cnt[b];                                                     \
        tail[b] = sum;                                                     \
    }                                                                      \
    for (int b = 0; b < 256; b++)                                          \
        while (head[b] < tail[b]) {                                        \
            T v = a[head[b]];                                              \
            int d = (int)((v >> shift) & 255);                             \
            while (d != b) {                                               \
                T w = a[head[d]];                                          \
                a[head[d]++] = v;                                          \
                v = w;                                                     \
                d = (int)((v >> shift) & 255);                             \
            }                                                              \
            a[head[b]++] = v;                                              \
        }                                                                  \
    if (shift == 0)                                                        \
        return;                                                            \
    for (int b = 0; b < 256; b++)                                          \
        if (cnt[b] > 1)                                                    \
            NAME(a + tail[b] - cnt[b], cnt[b], shift - 8);                 \
}
GS_AFSORT(afsort32, uint32_t)
GS_AFSORT(afsort64, uint64_t)

/* The top digit's shift for keys up to max. */
static int top_shift(uint64_t max)
{
    int s = 0;
    while (s < 56 && (max >> s) > 255)
        s += 8;
    return s;
}

enum { D_WAIT, D_JCT };

/* The duration of record r that kind measures, or -1 if it has none. */
static inline int64_t duration(const struct gs_jobrec *r, int kind)
{
    if (kind == D_WAIT)
        return r->start >= 0 ? r->start - r->arrival : -1;
    return r->state == GS_JOB_DONE ? r->end - r->arrival : -1;
}

/* Fill o->all and o->tier[] with the mean and percentiles of the waits
 * (kind D_WAIT) or completion times (D_JCT); cnt[t] of them have tier t,
 * none over max. */
static void durations(const struct gs_jobrec *rec, long n, int kind,
                      const size_t cnt[GS_NTIERS], uint64_t max,
                      struct gs_summary *o)
{
    size_t off[GS_NTIERS + 1], at[GS_NTIERS];
    off[0] = 0;
    for (int t = 0; t < GS_NTIERS; t++)
        off[t + 1] = off[t] + cnt[t];
    size_t total = off[GS_NTIERS];
    if (total == 0)
        return;
    int wide = max > UINT32_MAX;
    void *buf = malloc(total * (wide ? sizeof(uint64_t) : sizeof(uint32_t)));
    GS_OOM_IF(buf == NULL);
    uint32_t *b32 = buf;
    uint64_t *b64 = buf;
    memcpy(at, off, sizeof at);
    for (long i = 0; i < n; i++) {
        int64_t v = duration(&rec[i], kind);
        if (v < 0)
            continue;
        size_t k = at[rec[i].tier]++;
        if (wide)
            b64[k] = (uint64_t)v;
        else
            b32[k] = (uint32_t)v;
    }
    int shift = top_shift(max);
    struct dsum all, one;
    dsum_init(&all, total);
    size_t pos[GS_NTIERS];
    for (int t = 0; t < GS_NTIERS; t++) {
        if (wide)
            afsort64(b64 + off[t], cnt[t], shift);
        else
            afsort32(b32 + off[t], cnt[t], shift);
        pos[t] = off[t];
        if (cnt[t] == 0)
            continue;
        dsum_init(&one, cnt[t]);
        for (size_t k = off[t]; k < off[t + 1]; k++)
            dsum_take(&one, wide ? b64[k] : b32[k]);
        struct gs_tstats *ts = &o->tier[t];
        double p[3];
        for (int q = 0; q < 3; q++)
            p[q] = dsum_quant(&one, q);
        if (kind == D_WAIT) {
            ts->wait_mean = (double)one.mean;
            ts->wait_p50 = p[0];
            ts->wait_p95 = p[1];
            ts->wait_p99 = p[2];
            ts->wait_max = one.last;
        } else {
            ts->jct_mean = (double)one.mean;
            ts->jct_p50 = p[0];
            ts->jct_p95 = p[1];
            ts->jct_p99 = p[2];
        }
    }
    /* All tiers: merge the sorted regions (or, when one tier holds every
     * value, take its figures). */
    for (int t = 0; t < GS_NTIERS; t++)
        if (cnt[t] == total) {
            const struct gs_tstats *ts = &o->tier[t];
            if (kind == D_WAIT) {
                o->all.wait_mean = ts->wait_mean;
                o->all.wait_p50 = ts->wait_p50;
                o->all.wait_p95 = ts->wait_p95;
                o->all.wait_p99 = ts->wait_p99;
                o->all.wait_max = ts->wait_max;
            } else {
                o->all.jct_mean = ts->jct_mean;
                o->all.jct_p50 = ts->jct_p50;
                o->all.jct_p95 = ts->jct_p95;
                o->all.jct_p99 = ts->jct_p99;
            }
            free(buf);
            return;
        }
    for (size_t k = 0; k < total; k++) {
        int best = -1;
        uint64_t bv = 0;
        for (int t = 0; t < GS_NTIERS; t++) {
            if (pos[t] == off[t + 1])
                continue;
            uint64_t v = wide ? b64[pos[t]] : b32[pos[t]];
            if (best < 0 || v < bv) {
                best = t;
                bv = v;
            }
        }
        pos[best]++;
        dsum_take(&all, bv);
    }
    free(buf);
    struct gs_tstats *ts = &o->all;
    if (kind == D_WAIT) {
        ts->wait_mean = (double)all.mean;
        ts->wait_p50 = dsum_quant(&all, 0);
        ts->wait_p95 = dsum_quant(&all, 1);
        ts->wait_p99 = dsum_quant(&all, 2);
        ts->wait_max = all.last;
    } else {
        ts->jct_mean = (double)all.mean;
        ts->jct_p50 = dsum_quant(&all, 0);
        ts->jct_p95 = dsum_quant(&all, 1);
        ts->jct_p99 = dsum_quant(&all, 2);
    }
}

/* The HPS paper's fairness variance and starved-job count (see metrics.h),
 * one record at a time in record order (the summary's first pass).
 * Welford's update keeps the variance exact for long runs. */
struct fair { double mean, m2; long k; };

static inline void fairness_take(struct fair *fa, const struct gs_jobrec *r,
                                 gs_time waited, struct gs_summary *o)
{
    if (r->start < 0 && r->state == GS_JOB_KILLED)
        return;
    if (waited > GS_STARVED_AFTER)
        o->starved++;
    double x = (double)waited / (double)GS_MIN;
    fa->k++;
    double dlt = x - fa->mean;
    fa->mean += dlt / (double)fa->k;
    fa->m2 += dlt * (x - fa->mean);
}

void gs_metrics_summarize(const struct gs_metrics *m,
                          const struct gs_fleet *f,
                          const struct gs_scenario *sc,
                          const struct gs_jobrec *crec, long n,
                          struct gs_summary *o)
{
    memset(o, 0, sizeof *o);
    /* SLA flags are a property of each record; set them here, once. */
    struct gs_jobrec *rec = (struct gs_jobrec *)crec;
    gs_time end = m->last;
    size_t nwait[GS_NTIERS] = { 0 }, njct[GS_NTIERS] = { 0 };
    uint64_t maxwait = 0, maxjct = 0;
    struct fair fa = { 0, 0, 0 };
    for (long i = 0; i < n; i++) {
        struct gs_jobrec *r = &rec[i];
        gs_time limit = sc->tiers[r->tier].max_wait;
        gs_time waited = r->start >= 0 ? r->start - r->arrival
                                       : end - r->arrival;
        fairness_take(&fa, r, waited, o);
        r->sla_wait = (int8_t)(limit > 0 && waited > limit &&
                               r->state != GS_JOB_KILLED);
        struct gs_tstats *ts = &o->tier[r->tier];
        ts->jobs++;
        ts->done += r->state == GS_JOB_DONE;
        ts->killed += r->state == GS_JOB_KILLED;
        ts->sla_wait += r->sla_wait;
        ts->sla_deadline += r->sla_deadline;
        if (r->start >= 0) {
            nwait[r->tier]++;
            if ((uint64_t)(r->start - r->arrival) > maxwait)
                maxwait = (uint64_t)(r->start - r->arrival);
        }
        if (r->state == GS_JOB_DONE) {
            njct[r->tier]++;
            if ((uint64_t)(r->end - r->arrival) > maxjct)
                maxjct = (uint64_t)(r->end - r->arrival);
        }
    }
    for (int t = 0; t < GS_NTIERS; t++) {
        struct gs_tstats *ts = &o->tier[t];
        ts->started = (long)nwait[t];
        ts->unfinished = ts->jobs - ts->done - ts->killed;
        o->all.jobs += ts->jobs;
        o->all.started += ts->started;
        o->all.done += ts->done;
        o->all.killed += ts->killed;
        o->all.unfinished += ts->unfinished;
        o->all.sla_wait += ts->sla_wait;
        o->all.sla_deadline += ts->sla_deadline;
    }
    durations(rec, n, D_WAIT, nwait, maxwait, o);
    durations(rec, n, D_JCT, njct, maxjct, o);
    o->start_s = (double)m->t0 / 1000.0;
    o->end_s = (double)m->last / 1000.0;
    o->span_h = (double)(m->last - m->t0) / GS_HOUR;
    o->gpu_hours_used = m->used_ms / GS_HOUR;
    o->gpu_hours_avail = m->avail_ms / GS_HOUR;
    o->util = m->avail_ms > 0 ? m->used_ms / m->avail_ms : 0;
    double span = (double)(m->last - m->t0);
    o->cpu_util = span > 0 ? m->cpu_ms / span : 0;
    o->mem_util = span > 0 ? m->mem_ms / span : 0;
    o->stranded_gpu_hours = m->strand_ms / GS_HOUR;
    o->cpu_core_hours = m->core_ms / GS_HOUR;
    o->cost = m->cost;
    o->cost_per_used_gpu_hour = o->gpu_hours_used > 0
                                    ? o->cost / o->gpu_hours_used : 0;
    o->throughput_jph = o->span_h > 0 ? o->all.done / o->span_h : 0;
    o->fragmentation = m->frag_cap_ms > 0 ? m->frag_ms / m->frag_cap_ms : 0;
    o->mig_slice_util = m->mig_up_ms > 0 ? m->mig_busy_ms / m->mig_up_ms : 0;
    o->ts_p99_added_ms = m->ts_busy_ms > 0 ? m->ts_lat_ms / m->ts_busy_ms : 0;
    struct gs_share_stats st;
    if (m->share)
        m->share_stats(m->share, &st);
    else
        memset(&st, 0, sizeof st);
    o->mig_reconfigs = st.reconfigurations;
    o->oom_kills = st.oom_kills;
    o->reclaim_kills = st.reclaim_kills;
    o->reclaim_evictions = st.reclaim_evictions;
    o->sharing_slowdown = st.slowdown_mean;
    o->fairness_var = fa.k > 0 ? fa.m2 / (double)fa.k : 0.0;
    const struct gs_series *ts = &m->ts;
    o->nmodels = ts->nmodels;
    for (int k = 0; k < ts->nmodels; k++) {
        struct gs_mstats *ms = &o->model[k];
        double used = 0, avail = 0;
        ms->model = ts->models[k];
        for (int p = 0; p < f->npools; p++)
            if (f->pools[p].s.model == ms->model) {
                used += m->pool_used_ms[p];
                avail += m->pool_avail_ms[p];
                ms->gpus += (double)f->pools[p].s.nodes * f->pools[p].s.gpn;
            }
        ms->util = avail > 0 ? used / avail : 0;
        ms->gpu_hours = used / GS_HOUR;
    }
}
