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
#include "frag.h"
#include "scenario.h"
#include "share.h"

#include <gsl/gsl_statistics_double.h>
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

static int grow(struct gs_series *ts)
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
static void coarsen(struct gs_metrics *m)
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

static int sample(struct gs_metrics *m, const struct gs_fleet *f,
                  long pending, long running, gs_time t)
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
    gs_share_levels(m->share, &lv);
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
        m->frag_cap_ms += dt * cap;
        if (m->share) {
            struct gs_share_levels lv;
            gs_share_levels(m->share, &lv);
            m->mig_busy_ms += dt * lv.mig_busy_slices;
            m->mig_up_ms += dt * lv.mig_slices_up;
            m->ts_lat_ms += dt * lv.ts_latency_ms;
            m->ts_busy_ms += dt * lv.ts_busy_gpus;
        }
    }
    m->last = t;
    return 0;
}

static double quant(const double *sorted, size_t n, double q)
{
    return n ? gsl_stats_quantile_from_sorted_data(sorted, 1, n, q) : 0.0;
}

/* Fill the tier's stats from the records selected by tier (-1 = all). */
/* Sort n non-negative millisecond counts: LSD radix sort, 11 bits a pass,
 * as many passes as the largest needs (three up to 99 days); t is scratch
 * of n.  Exact, and for a million waits some ten times faster than a
 * comparison sort. */
static void sort_ms(uint64_t *a, uint64_t *t, size_t n)
{
    uint64_t max = 0, *src = a, *dst = t;
    for (size_t i = 0; i < n; i++)
        max |= a[i];
    for (int shift = 0; shift < 64 && (max >> shift) != 0; shift += 11) {
        size_t cnt[2049] = { 0 };
        for (size_t i = 0; i < n; i++)
            cnt[((src[i] >> shift) & 2047) + 1]++;
        for (int d = 0; d < 2048; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> shift) & 2047]++] = src[i];
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* The mean and percentiles of n durations in ms, given in k (t scratch);
 * k is reused to hold them in seconds, sorted. */
union gs_num { uint64_t k; double d; };

static double *sorted_secs(union gs_num *k, union gs_num *t, size_t n)
{
    sort_ms(&k->k, &t->k, n);
    for (size_t i = 0; i < n; i++)
        k[i].d = (double)k[i].k / 1000.0;
    return &k->d;
}

static void tier_stats(const struct gs_jobrec *rec, long n, int tier,
                       union gs_num *kbuf, union gs_num *tbuf,
                       struct gs_tstats *o)
{
    memset(o, 0, sizeof *o);
    size_t nw = 0, nj = 0;
    for (long i = 0; i < n; i++) {
        const struct gs_jobrec *r = &rec[i];
        if (tier >= 0 && r->tier != tier)
            continue;
        o->jobs++;
        if (r->start >= 0)
            kbuf[nw++].k = (uint64_t)(r->start - r->arrival);
        o->done += r->state == GS_JOB_DONE;
        o->killed += r->state == GS_JOB_KILLED;
        o->sla_wait += r->sla_wait;
        o->sla_deadline += r->sla_deadline;
    }
    o->started = (long)nw;
    o->unfinished = o->jobs - o->done - o->killed;
    if (nw) {
        double *w = sorted_secs(kbuf, tbuf, nw);
        o->wait_mean = gsl_stats_mean(w, 1, nw);
        o->wait_p50 = quant(w, nw, 0.50);
        o->wait_p95 = quant(w, nw, 0.95);
        o->wait_p99 = quant(w, nw, 0.99);
        o->wait_max = w[nw - 1];
    }
    for (long i = 0; i < n; i++) {
        const struct gs_jobrec *r = &rec[i];
        if ((tier < 0 || r->tier == tier) && r->state == GS_JOB_DONE)
            kbuf[nj++].k = (uint64_t)(r->end - r->arrival);
    }
    if (nj) {
        double *jv = sorted_secs(kbuf, tbuf, nj);
        o->jct_mean = gsl_stats_mean(jv, 1, nj);
        o->jct_p50 = quant(jv, nj, 0.50);
        o->jct_p95 = quant(jv, nj, 0.95);
        o->jct_p99 = quant(jv, nj, 0.99);
    }
}

/* The HPS paper's fairness variance and starved-job count (see metrics.h).
 * Welford's update keeps the variance exact for long runs. */
static void fairness(const struct gs_jobrec *rec, long n, gs_time end,
                     struct gs_summary *o)
{
    double mean = 0, m2 = 0;
    long k = 0;
    for (long i = 0; i < n; i++) {
        const struct gs_jobrec *r = &rec[i];
        if (r->start < 0 && r->state == GS_JOB_KILLED)
            continue;
        gs_time waited = r->start >= 0 ? r->start - r->arrival
                                       : end - r->arrival;
        if (waited > GS_STARVED_AFTER)
            o->starved++;
        double x = (double)waited / (double)GS_MIN;
        k++;
        double dlt = x - mean;
        mean += dlt / (double)k;
        m2 += dlt * (x - mean);
    }
    o->fairness_var = k > 0 ? m2 / (double)k : 0.0;
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
    for (long i = 0; i < n; i++) {
        struct gs_jobrec *r = &rec[i];
        gs_time limit = sc->tiers[r->tier].max_wait;
        gs_time waited = r->start >= 0 ? r->start - r->arrival
                                       : end - r->arrival;
        r->sla_wait = (int8_t)(limit > 0 && waited > limit &&
                               r->state != GS_JOB_KILLED);
        o->preemptions += r->preemptions;
    }
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
    union gs_num *kbuf = malloc((size_t)(n ? n : 1) * sizeof *kbuf);
    union gs_num *tbuf = malloc((size_t)(n ? n : 1) * sizeof *tbuf);
    GS_OOM_IF(kbuf == NULL || tbuf == NULL);
    tier_stats(rec, n, -1, kbuf, tbuf, &o->all);
    for (int t = 0; t < GS_NTIERS; t++)
        tier_stats(rec, n, t, kbuf, tbuf, &o->tier[t]);
    free(kbuf);
    free(tbuf);
    o->throughput_jph = o->span_h > 0 ? o->all.done / o->span_h : 0;
    o->fragmentation = m->frag_cap_ms > 0 ? m->frag_ms / m->frag_cap_ms : 0;
    o->mig_slice_util = m->mig_up_ms > 0 ? m->mig_busy_ms / m->mig_up_ms : 0;
    o->ts_p99_added_ms = m->ts_busy_ms > 0 ? m->ts_lat_ms / m->ts_busy_ms : 0;
    struct gs_share_stats st;
    gs_share_stats(m->share, &st);
    o->mig_reconfigs = st.reconfigurations;
    o->oom_kills = st.oom_kills;
    o->reclaim_kills = st.reclaim_kills;
    o->reclaim_evictions = st.reclaim_evictions;
    o->sharing_slowdown = st.slowdown_mean;
    fairness(rec, n, end, o);
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
