/* plansteady.c -- steady-state estimates of the planner's service targets.
 *
 * A question is steady state when its load is stationary: every source of
 * load is a generator whose rate has no daily, weekly or hourly cycle
 * (bursts of an MMPP are stationary in the long run).  Then a candidate's
 * short run that starts from an empty fleet answers the wrong question:
 * its first requests meet idle replicas, and its percentiles are
 * optimistic (plan-fleet-sim-single's 74 H100 replicas gave TTFT p99
 * 0.483 s over 10,000 requests; 300,000 requests settle at 0.513-0.515 s).
 * Finite-horizon questions (a trace, a day with its cycle) are judged over
 * the whole run, as it is.
 *
 * For each target on a service's TTFT, end-to-end latency or queueing
 * delay (mean or percentile), the run's requests are taken in arrival
 * order; MSER-5 (White 1997; steady.h) finds the warm-up of that series,
 * which is deleted, and the estimate is recomputed over the requests that
 * remain with the summary's own estimator (GSL's interpolated quantile of
 * the finished requests), so a run without warm-up gives the summary's
 * value exactly.  Each seed's estimate is then one replication, and the
 * candidate's interval is the t interval over replications, as before.
 * ITL percentiles are token-weighted over iterations, not per request, and
 * job waits come from the metrics' sketches: those targets are judged over
 * the whole run (docs/planning.md says so).  MSER-5 also says when its
 * minimum sits on the half-way bound -- the transient may be longer than
 * half the run -- and the answer reports it; the search then lengthens the
 * candidate's runs (plansearch.c: wants_longer, lengthen), as it does when
 * an estimate still moves between lengths or its interval is wider than
 * plan.precision. */
#include "planint.h"
#include "../base/steady.h"
#include "../inference/service.h"
#include "../io/scenario.h"
#include "../core/sim.h"
#include "sweep.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A generator's rate is stationary: no cycle by day, week or hour. */
static int stationary(const struct gs_genspec *g)
{
    if (g->diurnal != 0 || g->weekly != 0)
        return 0;
    for (int h = 0; h < 24; h++)
        if (g->hourly[h] != 0)
            return 0;
    return 1;
}

int gs_plan_is_steady(const struct gs_scenario *sc,
                      const struct gs_plancfg *pc)
{
    if (pc && pc->horizon >= 0)
        return pc->horizon;
    if (sc->wl_kind == GS_WL_TRACE ||
        (sc->wl_kind == GS_WL_GENERATE && !stationary(&sc->gen)))
        return 0;
    for (int j = 0; j < sc->nsvcs; j++)
        if (sc->svcs[j].src != GS_SVCSRC_GENERATE ||
            !stationary(&sc->svcs[j].gen.rate))
            return 0;
    return sc->nsvcs > 0 || sc->wl_kind == GS_WL_GENERATE;
}

enum { SQ_TTFT, SQ_E2E, SQ_QUEUE };

void gs_plan_steady_bind(struct search *s)
{
    static const char *const what[3] = { "ttft", "e2e", "queue" };
    s->nst = 0;
    if (!gs_plan_is_steady(s->base, s->pc))
        return;
    s->st = calloc((size_t)s->pc->ntargets + 1, sizeof *s->st);
    GS_OOM_IF(s->st == NULL);
    for (int i = 0; i < s->pc->ntargets; i++) {
        const char *m = s->pc->t[i].metric;
        if (strncmp(m, "service.", 8) != 0)
            continue;
        for (int j = 0; j < s->base->nsvcs; j++) {
            size_t ln = strlen(s->base->svcs[j].name);
            if (strncmp(m + 8, s->base->svcs[j].name, ln) != 0 ||
                m[8 + ln] != '.')
                continue;
            const char *f = m + 9 + ln;
            for (int w = 0; w < 3; w++) {
                size_t lw = strlen(what[w]);
                if (strncmp(f, what[w], lw) != 0 || f[lw] != '_')
                    continue;
                double p = NAN;
                char *end;
                if (strcmp(f + lw, "_mean_s") == 0)
                    p = -1;
                else if (f[lw + 1] == 'p' &&
                         (p = strtod(f + lw + 2, &end) / 100,
                          strcmp(end, "_s") != 0))
                    p = NAN;
                if (isnan(p))
                    continue;
                struct gs_plan_st *t = &s->st[s->nst++];
                t->target = i;
                t->metric = gs_run_metric_index(m);
                GS_ASSERT(t->metric >= 0);
                t->svc = j;
                t->what = w;
                t->p = p;
            }
        }
    }
}

/* Service request q's value of kind w (NaN when it did not finish). */
static double req_value(const struct gs_reqrec *q, int w)
{
    if (q->state != GS_REQ_DONE)
        return NAN;
    return w == SQ_TTFT ? q->first - q->arrival
         : w == SQ_E2E ? q->end - q->arrival : (double)q->queue;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gs_plan_steady_apply(const struct search *s, const struct gs_sim *sim,
                          double *out, double *warm)
{
    for (int k = 0; k < s->nst; k++) {
        const struct gs_plan_st *t = &s->st[k];
        long n = 0;
        const struct gs_reqrec *q = gs_sim_service_requests(sim, t->svc, &n);
        double *x = malloc((size_t)(n + 1) * sizeof *x);
        GS_OOM_IF(x == NULL);
        long k2 = 0;
        for (long r = 0; r < n; r++) {
            double v = req_value(&q[r], t->what);
            if (!isnan(v))
                x[k2++] = v;
        }
        long w = 0;
        int at_limit = 0;
        if (k2 < 10 || gs_mser5(x, k2, &w, &at_limit) < 0)
            w = 0;                  /* too few to tell: the whole run */
        long m = k2 - w;
        warm[k] = at_limit ? -(double)w - 1 : (double)w;
        if (w > 0 && m > 0) {
            double *y = x + w;
            if (t->p < 0) {
                out[t->metric] = gsl_stats_mean(y, 1, (size_t)m);
            } else {
                qsort(y, (size_t)m, sizeof *y, dbl_cmp);
                out[t->metric] = gsl_stats_quantile_from_sorted_data(
                    y, 1, (size_t)m, t->p);
            }
        }
        free(x);
    }
}
