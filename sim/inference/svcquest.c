/* svcquest.c -- the service model's part of the question (io/question.h):
 * its request streams and the series a steady-state analysis estimates.
 *
 * A scenario's services bring arrival streams of their own beside the
 * jobs'.  The question's rule (steady state when every stream is generated
 * at a constant rate) asks here whether each service's is: a request trace
 * replayed, or a rate with a day, week or hour cycle, makes the run finite
 * horizon.  A steady-state run estimates, per service, the p99 and the
 * mean of TTFT over its finished requests in arrival order (the warm-up
 * deleted: base/steady.h).  The planner's and `run --precision`'s length
 * is the requests the generated streams make, which set_length scales. */
#include "svcint.h"
#include "../io/gen.h"
#include "../spec/scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int gs_svc_arrivals_hook(const struct gs_scenario *sc, const char **why)
{
    for (int i = 0; i < sc->nsvcs; i++) {
        if (sc->svcs[i].src != GS_SVCSRC_GENERATE) {
            *why = "a request trace replayed";
            return -1;
        }
        if (!gs_gen_stationary(&sc->svcs[i].gen.rate)) {
            *why = "a request rate with a cycle";
            return -1;
        }
    }
    return sc->nsvcs;
}

long gs_svc_length_hook(const struct gs_scenario *sc)
{
    if (sc->nsvcs == 0)
        return -1;
    long n = 0;
    for (int i = 0; i < sc->nsvcs; i++) {
        if (sc->svcs[i].src != GS_SVCSRC_GENERATE ||
            sc->svcs[i].gen.requests <= 0)
            return 0;
        n += sc->svcs[i].gen.requests;
    }
    return n;
}

void gs_svc_set_length_hook(struct gs_scenario *sc, double f)
{
    for (int i = 0; i < sc->nsvcs; i++) {
        long r = (long)llround((double)sc->svcs[i].gen.requests * f);
        sc->svcs[i].gen.requests = r > 0 ? r : 1;
    }
}

int gs_svc_nseries_hook(const struct gs_scenario *sc)
{
    return sc->nsvcs;
}

void gs_svc_series_name_hook(const struct gs_scenario *sc, int i, char *buf,
                             size_t n)
{
    snprintf(buf, n, "%s ttft", sc->svcs[i].name);
}

/* Service i's TTFT in arrival order: where the summary's scratch was, in
 * the ITL samples' spent memory (pages touched already: a fresh 8 MB for a
 * million requests costs its first touch), else a new array. */
int gs_svc_series_hook(const struct gs_sim *s, const void *st, int i,
                       double **x, long *nx)
{
    const struct svmodel *m = st;
    long n, k = 0;
    const struct gs_reqrec *r = gs_sim_service_requests(s, i, &n);
    size_t nb = (size_t)(n > 0 ? n : 1) * sizeof **x;
    const struct svc *sv = m && i < m->n ? &m->sv[i] : NULL;
    int mine = sv && sv->spent && sv->nspent >= nb;
    *x = mine ? (double *)(void *)sv->spent : malloc(nb);
    *nx = 0;
    if (*x == NULL)
        return GS_ENOMEM;
    for (long j = 0; j < n; j++)
        if (r[j].state == GS_REQ_DONE)
            (*x)[k++] = r[j].first - r[j].arrival;
    *nx = k;
    return mine;
}
