/* planbound.c -- the physics that stops a plan, without simulation.
 *
 * Some targets no number of replicas can meet: a request's time to first
 * token is at least its prompt's prefill on an idle replica, so when the
 * p-th percentile prompt of a service's requests already takes longer than
 * its TTFT pXX target on a GPU, no fleet of that GPU (at that tensor-
 * parallel degree) is feasible.  This file computes that bound from the
 * engine model alone (gs_llm_perf_ttft: the prompt's chunks at the
 * engine's token budget, exactly as the engine forms those iterations,
 * with nothing else in the batch) and the service's own request law: the
 * prompts of 20,000 requests drawn from its generator (seeded with the
 * scenario's seed; with length routing, only those of its length range),
 * whose p-th percentile prompt gives the bound.  The answer prints it when
 * nothing is feasible, for every service, GPU and degree the candidates
 * tried.
 *
 * The other bound is on cost: the least a run of a candidate can be billed
 * per hour, whatever happens in it (gs_plan_cost_floor), which lets the
 * search drop candidates that cannot be cheaper than a plan it already
 * has without running them.  A pool bought on demand or reserved, with a
 * fixed node count (no autoscaler), a constant price and no capacity
 * block, is billed for every node from the run's start to its end: a
 * session closes only when a node is switched off, which only the
 * autoscaler, a spot reclaim and a block's end do (sim/cloud/cloudbook.c,
 * gs_cloud_billed: a node in repair, booting or spare is billed);
 * rounding to the billing granularity and the minimum only add, and so
 * does the energy bill.  Its floor is its nodes x its price per hour.
 * Every other pool -- spot (a reclaimed node is not billed until its
 * replacement boots), autoscaled (it may hold fewer nodes than its
 * maximum), a capacity block, a price file -- floors at 0: the bound
 * stays sound, only looser.  tests/test_plan.c checks it against every
 * candidate's simulated cost. */
#include "plan.h"
#include "planint.h"
#include "../inference/llm.h"
#include "../inference/service.h"
#include "../setup/scenario.h"
#include "../inference/svcgen.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOUND_DRAWS 20000

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The p quantile (nearest rank) of the prompts of service j's requests;
 * -1 when it replays a trace or none fall in its length range. */
static int prompt_quantile(const struct gs_scenario *sc, int j, double p)
{
    const struct gs_svccfg *v = &sc->svcs[j];
    if (v->src != GS_SVCSRC_GENERATE)
        return -1;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int *in = malloc(BOUND_DRAWS * sizeof *in);
    GS_OOM_IF(r == NULL || in == NULL);
    gsl_rng_set(r, (unsigned long)sc->seed);
    long n = 0;
    for (long k = 0; k < 20L * BOUND_DRAWS && n < BOUND_DRAWS; k++) {
        int a, b;
        gs_svcgen_tokens(&v->gen, r, &a, &b);
        long tot = (long)a + b;
        if (v->route.on && (tot < v->route.lo || tot > v->route.hi))
            continue;
        in[n++] = a;
    }
    int q = -1;
    if (n > 0) {
        qsort(in, (size_t)n, sizeof *in, int_cmp);
        long at = (long)ceil(p * (double)n) - 1;
        q = in[at < 0 ? 0 : at >= n ? n - 1 : at];
    }
    free(in);
    gsl_rng_free(r);
    return q;
}

/* The TTFT of a lone prompt of `prompt` tokens on service j's (prefill)
 * replicas as candidate scenario sc has them; NaN when it cannot tell (a
 * MIG slice, an engine that does not build). */
static double lone_ttft(const struct gs_scenario *sc, int j, int prompt)
{
    const struct gs_svccfg *v = &sc->svcs[j];
    const struct gs_svcpool *pl = &v->pool[0];
    if (pl->mig_profile[0])
        return NAN;
    struct gs_llm_engine_cfg c = v->eng;
    c.tp = pl->tp;
    gs_llm_hw_from_catalog(&sc->cat, pl->gpu_model, &c.hw);
    struct gs_llm_engine *e = NULL;
    struct gs_diag d = { 0 };
    int bad = gs_llm_engine_new(&c, &e, &d) < 0;
    gs_diag_free(&d);
    if (bad)
        return NAN;
    double t = gs_llm_perf_ttft(gs_llm_engine_perf(e), prompt, 0,
                                c.chunked_prefill ? c.max_batched_tokens : 0);
    gs_llm_engine_free(e);
    return t;
}

/* Target t as service j's TTFT percentile p (0..1); 0 if it is not one. */
static int ttft_target(const struct gs_scenario *sc,
                       const struct gs_plan_target *t, int *j, double *p)
{
    if (!t->upper || strncmp(t->metric, "service.", 8) != 0)
        return 0;
    for (int k = 0; k < sc->nsvcs; k++) {
        size_t l = strlen(sc->svcs[k].name);
        const char *f = t->metric + 8 + l;
        if (strncmp(t->metric + 8, sc->svcs[k].name, l) != 0 || *f != '.' ||
            strncmp(f, ".ttft_p", 7) != 0)
            continue;
        char *end;
        double q = strtod(f + 7, &end);
        if (end == f + 7 || strcmp(end, "_s") != 0)
            return 0;
        *j = k;
        *p = q / 100;
        return 1;
    }
    return 0;
}

void gs_plan_physics_bind(struct search *s)
{
    s->phys = calloc((size_t)s->pc->ntargets + 1, sizeof *s->phys);
    GS_OOM_IF(s->phys == NULL);
    for (int i = 0; i < s->pc->ntargets; i++) {
        int j;
        double p;
        s->phys[i] = ttft_target(s->base, &s->pc->t[i], &j, &p)
                         ? prompt_quantile(s->base, j, p) : -1;
    }
}

int gs_plan_physics_stops(const struct search *s, const struct cand *x)
{
    for (int i = 0; s->phys && i < s->pc->ntargets; i++) {
        int j;
        double p;
        if (s->phys[i] < 1 || !ttft_target(s->base, &s->pc->t[i], &j, &p) ||
            j >= x->sc->nsvcs)
            continue;
        if (lone_ttft(x->sc, j, s->phys[i]) > s->pc->t[i].limit)
            return 1;
    }
    return 0;
}

int gs_plan_print_physics(FILE *fp, const struct search *s)
{
    int shown = 0;
    for (int i = 0; i < s->pc->ntargets; i++) {
        const struct gs_plan_target *t = &s->pc->t[i];
        int j;
        double p;
        if (!ttft_target(s->base, t, &j, &p))
            continue;
        int prompt = s->phys ? s->phys[i] : prompt_quantile(s->base, j, p);
        if (prompt < 1)
            continue;
        /* every (GPU, degree) the candidates gave this service, once */
        for (int c = 0; c < s->ncand; c++) {
            const struct gs_scenario *sc = s->cand[c].sc;
            if (sc == NULL || j >= sc->nsvcs)
                continue;
            const struct gs_svcpool *pl = &sc->svcs[j].pool[0];
            int seen = 0;
            for (int b = 0; b < c && !seen; b++) {
                const struct gs_scenario *sb = s->cand[b].sc;
                seen = sb && j < sb->nsvcs &&
                       sb->svcs[j].pool[0].gpu_model == pl->gpu_model &&
                       sb->svcs[j].pool[0].tp == pl->tp;
            }
            if (seen)
                continue;
            double ttft = lone_ttft(sc, j, prompt);
            if (!(ttft > t->limit))
                continue;
            if (shown++ == 0)
                fprintf(fp, "  what stops it, without simulation (the "
                        "engine model, a prompt alone on an idle replica):"
                        "\n");
            fprintf(fp, "    %s on %s at TP %d: the p%g prompt of its "
                    "requests (%d tokens) takes %.3f s to its first token "
                    "alone, above the %g s target -- no number of replicas "
                    "meets it\n", s->base->svcs[j].name,
                    sc->cat.m[pl->gpu_model].name, pl->tp, 100 * p, prompt,
                    ttft, t->limit);
        }
    }
    return shown;
}

double gs_plan_cost_floor(const struct gs_scenario *sc)
{
    double lb = 0;
    for (int p = 0; p < sc->npools; p++) {
        const struct gs_pool_spec *ps = &sc->pools[p];
        const struct gs_poolcloud *pc = &sc->cloud.pool[p];
        if ((ps->market != GS_MKT_ONDEMAND && ps->market != GS_MKT_RESERVED) ||
            pc->autoscale || pc->price_file || !(ps->price_hour > 0))
            continue;
        int n = pc->base < ps->nodes ? pc->base : ps->nodes;
        lb += ps->price_hour * (n > 0 ? n : 0);
    }
    return lb;
}
