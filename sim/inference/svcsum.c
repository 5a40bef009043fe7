/* svcsum.c -- a service's results: the summary of each service and of all
 * of them together, made once at the run's end from the requests' records.
 *
 * TTFT, end-to-end time and queue time are percentiles of the finished
 * requests (GSL's quantile of sorted data: linear interpolation between
 * order statistics; the means gsl_stats_mean's, over the sorted values);
 * ITL percentiles are token-weighted over the engine's iterations -- the
 * smallest iteration duration whose cumulative token weight reaches p
 * (sim/base/order.c) -- as vLLM's benchmark takes them over all token
 * gaps, and a request's own ITL is its mean gap.  A request meets the SLA
 * when each target it has is met; attainment is met over arrived, goodput
 * met per second of the service's own span (DistServe, Zhong et al., OSDI
 * 2024).  GPU-hours and cost are the replica jobs'
 * records'.  docs/inference.md gives the definitions. */
#include "svcint.h"
#include "../base/bigmem.h"
#include "../base/order.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double pct_sorted(const double *v, long n, double p)
{
    return n > 0 ? gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, p)
                 : 0;
}

/* gsl_stats_mean of a, b and c (n values each), exactly: GSL's
 * recurrence m += (x - m) / (i + 1) in long double, as gsl_stats_mean
 * computes it, run on the three at once so that each one's divisions
 * (an x87 division a value, some 15 cycles, each waiting for the last)
 * overlap the others'. */
static void means3(const double *a, const double *b, const double *c,
                   size_t n, double *ma, double *mb, double *mc)
{
    long double x = 0, y = 0, z = 0;
    for (size_t i = 0; i < n; i++) {
        long double k = (long double)(i + 1);
        x += (a[i] - x) / k;
        y += (b[i] - y) / k;
        z += (c[i] - z) / k;
    }
    *ma = (double)x;
    *mb = (double)y;
    *mc = (double)z;
}

/* Token-weighted quantiles p[0..np-1] (ascending) of the iteration
 * durations: the smallest duration whose cumulative weight reaches p of
 * the total (sim/base/order.c; permutes the samples, done once, at the end). */
static void itl_quantiles(struct svc *sv, const double *p, int np,
                          double *out)
{
    long n = sv->nitl;
    double w = 0, need[8];
    for (long i = 0; i < n; i++)
        w += sv->itl_w[i];
    for (int k = 0; k < np && k < 8; k++)
        need[k] = p[k] * w;
    gs_order_wquantiles(sv->itl_d, sv->itl_w, (size_t)n, need,
                        np < 8 ? np : 8, out);
}

/* Room for the summary's sorted copies.  Fresh pages cost their first
 * touch (the kernel zeroes them: 1-2 ms a MB on the development VM, a
 * tenth of a million-request run), so once the ITL quantiles are taken
 * the copies go where the ITL samples were -- pages the run has touched
 * already -- and only what does not fit is mapped afresh. */
struct scratch {
    unsigned char *at[2];       /* the free part of each spent region */
    size_t left[2];
    void *fresh[4];             /* mapped here, nb bytes each */
    int nfresh;
};

static double *scratch_take(struct scratch *sc, size_t nb)
{
    for (int i = 0; i < 2; i++)
        if (sc->left[i] >= nb) {
            double *p = (double *)(void *)sc->at[i];
            sc->at[i] += nb;
            sc->left[i] -= nb;
            return p;
        }
    double *p = gs_big_realloc(NULL, 0, nb);
    GS_OOM_IF(p == NULL);
    sc->fresh[sc->nfresh++] = p;
    return p;
}

/* The token-weighted ITL quantiles (the SLA's percentile among the three
 * reported, in order) into o; the samples are spent (permuted). */
static void summarize_itl(struct svc *sv, struct gs_svcsum *o,
                          const double *ps)
{
    const struct gs_svccfg *c = sv->cfg;
    double p4[4], q4[4];
    int at = 0;
    for (int i = 0, j = 0; i < 4; i++) {
        double pa = c->itl_pct / 100.0;
        if (j < 3 && (i - j == 1 || ps[j] <= pa))
            p4[i] = ps[j++];
        else {
            p4[i] = pa;
            at = i;
        }
    }
    itl_quantiles(sv, p4, 4, q4);
    for (int i = 0, j = 0; i < 4; i++)
        if (i == at)
            o->itl_at = q4[i];
        else
            o->itl[j++] = q4[i];
}

/* Service sv's summary; its ITL samples' memory is reused (and so lost)
 * when spend_itl. */
static void summarize_svc(struct svc *sv, gs_time end, struct gs_sim *s,
                          int spend_itl)
{
    struct gs_svcsum *o = &sv->sum;
    const struct gs_svccfg *c = sv->cfg;
    o->arrived = sv->nreq;
    o->finished = sv->finished;
    o->dropped = sv->dropped;
    o->inflight = sv->nreq - sv->finished - sv->dropped;
    o->restarted = sv->restarted;
    o->engine_preemptions = sv->eng_preempt;
    o->replica_starts = sv->starts;
    o->replica_losses = sv->losses;
    o->tokens_in = sv->tok_in;
    o->tokens_out = sv->tok_out;
    /* The service's own span: from its opening to its last request's end
     * (or the end of the run, with requests still to come). */
    double span = (sv->done ? sv->done_s : (double)end / 1000.0) -
                  sv->start_s;
    o->span_s = span > 0 ? span : 0;
    o->replicas_mean = span > 0 ? sv->rep_ms / 1000.0 / span : 0;
    o->replicas_max = sv->rep_max;
    static const double ps[3] = { 0.5, 0.95, 0.99 };
    summarize_itl(sv, o, ps);
    long n = sv->finished;
    size_t nb = (size_t)(n ? n : 1) * sizeof(double);
    struct scratch sc = { { NULL, NULL }, { 0, 0 }, { NULL }, 0 };
    if (spend_itl && sv->nitl > 0) {
        sc.at[0] = (unsigned char *)sv->itl_d;
        sc.left[0] = (size_t)sv->nitl * sizeof *sv->itl_d;
        sc.at[1] = (unsigned char *)sv->itl_w;
        sc.left[1] = (size_t)sv->nitl * sizeof *sv->itl_w;
        sv->spent = sc.at[0];
        sv->nspent = sc.left[0];
        sv->nitl = 0;           /* spent */
    }
    double *tt = scratch_take(&sc, nb), *ee = scratch_take(&sc, nb);
    double *qq = scratch_take(&sc, nb), *tmp = scratch_take(&sc, nb);
    long k = 0, good = 0;
    double it_sum = 0;
    long it_n = 0;
    for (long i = 0; i < sv->nreq; i++) {
        const struct gs_reqrec *q = &sv->req[i];
        if (q->state != GS_REQ_DONE)
            continue;
        double ttft = q->first - q->arrival, e2e = q->end - q->arrival;
        double itl = q->out > 1 ? (q->end - q->first) / (q->out - 1) : 0;
        tt[k] = ttft;
        ee[k] = e2e;
        qq[k] = q->queue;
        k++;
        if (q->out > 1) {
            it_sum += itl;
            it_n++;
        }
        if ((c->ttft_s <= 0 || ttft <= c->ttft_s + 1e-12) &&
            (c->itl_s <= 0 || itl <= c->itl_s + 1e-12) &&
            (c->e2e_s <= 0 || e2e <= c->e2e_s + 1e-12))
            good++;
    }
    if (k > 0) {
        GS_OOM_IF(gs_order_sort(tt, tmp, (size_t)k) < 0 ||
                  gs_order_sort(ee, tmp, (size_t)k) < 0 ||
                  gs_order_sort(qq, tmp, (size_t)k) < 0);
        for (int i = 0; i < 3; i++) {
            o->ttft[i] = pct_sorted(tt, k, ps[i]);
            o->e2e[i] = pct_sorted(ee, k, ps[i]);
            o->queue[i] = pct_sorted(qq, k, ps[i]);
        }
        means3(tt, ee, qq, (size_t)k, &o->ttft_mean, &o->e2e_mean,
               &o->queue_mean);
        o->ttft_at = pct_sorted(tt, k, c->ttft_pct / 100.0);
    }
    o->itl_mean = it_n ? it_sum / (double)it_n : 0;
    for (int i = 0; i < sc.nfresh; i++)
        gs_big_free(sc.fresh[i], nb);
    o->sla_ttft_s = c->ttft_s > 0 ? c->ttft_s : 0;
    o->sla_itl_s = c->itl_s > 0 ? c->itl_s : 0;
    o->sla_ttft_pct = c->ttft_pct;
    o->sla_itl_pct = c->itl_pct;
    int any = c->ttft_s > 0 || c->itl_s > 0 || c->e2e_s > 0;
    o->sla_met = any ? ((c->ttft_s <= 0 || o->ttft_at <= c->ttft_s) &&
                        (c->itl_s <= 0 || o->itl_at <= c->itl_s) &&
                        o->inflight == 0 && o->dropped == 0)
                     : -1;
    sv->good = good;
    o->attainment = o->arrived > 0 ? (double)good / (double)o->arrived : 1;
    o->goodput = o->span_s > 0 ? (double)good / o->span_s : 0;
    /* GPU-hours and cost from the replica jobs' records. */
    long nrec;
    const struct gs_jobrec *rec = gs_sim_records(s, &nrec);
    double gh = 0, cost = 0;
    o->energy_kwh = o->carbon_kg = 0;
    for (int i = 0; i < sv->nrep; i++)
        if (sv->rep[i]->rec < nrec) {
            gh += rec[sv->rep[i]->rec].gpu_hours;
            cost += rec[sv->rep[i]->rec].cost;
            struct gs_jobenergy je = gs_sim_record_energy(s, sv->rep[i]->rec);
            o->energy_kwh += je.kwh;
            o->carbon_kg += je.gco2 / 1000;
        }
    o->idle_kwh = (sv->static_j - sv->iter_static_j + sv->lost_j) / 3.6e6;
    o->kwh_per_1k = o->finished > 0 ? o->energy_kwh / (double)o->finished *
                                      1000 : 0;
    o->gpu_hours = gh;
    o->cost = cost;
    o->tok_s_gpu = gh > 0 ? o->tokens_out / (gh * 3600.0) : 0;
    o->cost_per_mtok = o->tokens_out > 0 ? cost / o->tokens_out * 1e6 : 0;
}

/* All services' requests together (for compare and bench-policies). */
static void summarize_all(struct svmodel *m, struct gs_infsum *o)
{
    memset(o, 0, sizeof *o);
    if (m->n == 1) {
        const struct gs_svcsum *v = &m->sv[0].sum;
        *o = (struct gs_infsum){ (double)v->arrived, (double)v->finished,
                                 v->ttft[0], v->ttft[2], v->itl[0], v->itl[2],
                                 v->e2e[2], v->queue[2], v->attainment,
                                 v->goodput, v->tok_s_gpu, v->cost_per_mtok,
                                 v->kwh_per_1k };
        return;
    }
    long nf = 0, ni = 0, good = 0;
    double tok = 0, gh = 0, cost = 0, kwh = 0;
    for (int i = 0; i < m->n; i++) {
        const struct svc *sv = &m->sv[i];
        o->requests += (double)sv->nreq;
        nf += sv->finished;
        ni += sv->nitl;
        good += sv->good;
        o->goodput += sv->sum.goodput;
        tok += sv->sum.tokens_out;
        gh += sv->sum.gpu_hours;
        cost += sv->sum.cost;
        kwh += sv->sum.energy_kwh;
    }
    o->finished = (double)nf;
    o->kwh_per_1k = nf > 0 ? kwh / (double)nf * 1000 : 0;
    o->attainment = o->requests > 0 ? (double)good / o->requests : 1;
    o->tok_s_gpu = gh > 0 ? tok / (gh * 3600.0) : 0;
    o->cost_per_mtok = tok > 0 ? cost / tok * 1e6 : 0;
    double *v = malloc((size_t)(nf > ni ? nf : ni) * sizeof *v + 8);
    double *tmp = malloc((size_t)nf * sizeof *tmp + 8);
    float *w = malloc((size_t)ni * sizeof *w + 4);
    GS_OOM_IF(v == NULL || w == NULL || tmp == NULL);
    double *slot[3] = { &o->ttft_p50, &o->e2e_p99, &o->queue_p99 };
    for (int which = 0; which < 3; which++) {
        long k = 0;
        for (int i = 0; i < m->n; i++) {
            const struct svc *sv = &m->sv[i];
            for (long j = 0; j < sv->nreq; j++) {
                const struct gs_reqrec *q = &sv->req[j];
                if (q->state != GS_REQ_DONE)
                    continue;
                v[k++] = which == 0 ? q->first - q->arrival
                         : which == 1 ? q->end - q->arrival : q->queue;
            }
        }
        GS_OOM_IF(gs_order_sort(v, tmp, (size_t)k) < 0);
        if (which == 0) {
            o->ttft_p50 = pct_sorted(v, k, 0.5);
            o->ttft_p99 = pct_sorted(v, k, 0.99);
        } else {
            *slot[which] = pct_sorted(v, k, 0.99);
        }
    }
    long k = 0;
    for (int i = 0; i < m->n; i++) {
        const struct svc *sv = &m->sv[i];
        memcpy(v + k, sv->itl_d, (size_t)sv->nitl * sizeof *v);
        memcpy(w + k, sv->itl_w, (size_t)sv->nitl * sizeof *w);
        k += sv->nitl;
    }
    struct svc all = { .itl_d = v, .itl_w = w, .nitl = k };
    static const double p[2] = { 0.5, 0.99 };
    double q[2];
    itl_quantiles(&all, p, 2, q);
    o->itl_p50 = q[0];
    o->itl_p99 = q[1];
    free(v);
    free(w);
    free(tmp);
}

void gs_svc_summarize_hook(void *st, struct gs_summary *su)
{
    struct svmodel *m = st;
    gs_time end = (gs_time)llround(su->end_s * 1000.0);
    /* all services' ITL samples are read again when there are several */
    for (int i = 0; i < m->n; i++)
        summarize_svc(&m->sv[i], end, m->s, m->n == 1);
    summarize_all(m, &m->all);
}
