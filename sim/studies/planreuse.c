/* planreuse.c -- the services of a plan's candidates simulated once per
 * seed and replayed (issue 27).
 *
 * A plan runs one scenario on many fleets, each on the same seeds
 * (common random numbers), and on a question with an inference service
 * beside the jobs nearly all of a run's time is the service's engine
 * iterations (90% of a plan-mixed-tier run) -- the same in every fleet
 * that leaves the service alone.  So the search runs each service once a
 * seed, in a reference run, and tapes what the rest of the simulation
 * sees of it (its replica jobs: inference/svcghost.h); every candidate
 * run of that seed is a ghost run that replays the tape instead of the
 * requests.  Whether a fleet leaves the service alone is not assumed: the
 * ghost checks, as the run goes and at its end, that every replica was
 * asked for, started, on what GPU model, power cap and static power, and
 * ended exactly as taped, that none was stopped by the simulation
 * (preemption, spot reclaim, failure), and that the replica jobs'
 * records (GPU-hours, cost, energy) are the tape's.  Where all of that
 * holds the services' figures are the reference run's, to the bit (the
 * engine knows nothing of the fleet and the request streams are the
 * seed's own: svcghost.c); where any fails -- a fleet too small to place
 * a replica at once, a replica preempted or on a spot node, a node
 * autoscaler booting one, a horizon that cuts the service -- the
 * candidate's run is run again in full.  Services that cannot be taped
 * (an autoscaler, MIG replicas, a price or carbon series that is not
 * flat), a steady-state question (whose runs are lengthened), or
 * `--full-runs` run every candidate in full; so does a search over a
 * service's replica count, whose every candidate has services of its
 * own (a reference run each would only add runs).
 *
 * The references.  Candidates whose scenarios agree in everything but
 * the fleet, the job workload and the plan section share a context; its
 * reference runs are those of the first candidate made with it (the
 * search is deterministic, so which one does not depend on workers or
 * ranks).  Before a round, the seeds its runs need and no reference has
 * yet are run as one batch over the workers, filled up to a multiple of
 * them with the context's next seeds.  A candidate run's figures are the
 * ghost's with every service.* and inference_* metric taken from the
 * reference run of its seed; the rest (jobs' waits and completions,
 * GPU-hours, cost, energy, utilization) is the ghost's own, which is the
 * full run's but for the last bits of the simulation's integrals (the
 * services' iterations no longer split them) and of the energy above
 * idle (booked once per replica).  Every candidate run of a context is
 * made the same way, so a plan's answer, path and bytes do not depend on
 * --jobs or the ranks, and candidates are compared on equal terms. */
#include "planint.h"
#include "../inference/svcghost.h"
#include "../io/jsonio.h"
#include "../setup/scenario.h"
#include "../setup/setup.h"
#include "mpirun.h"
#include "sweep.h"

#include <stdlib.h>
#include <string.h>

struct plan_ref {
    char *ctx;                  /* the scenario but fleet, workload, plan */
    struct gs_scenario *sc;     /* whose runs are the references */
    double *tape;               /* [max_seeds][tlen] */
    double *vals;               /* [max_seeds][nm]: the reference's figures */
    unsigned char *have;        /* [max_seeds] */
};

struct gs_plan_reuse {
    long tlen;                  /* doubles of a tape */
    int nsm, *sm;               /* the services' metrics */
    int nref;
    struct plan_ref *ref;
    int ntask, *tref, *tseed;   /* the batch of reference runs */
    long runs;                  /* reference runs made */
    long ghosts, full;          /* candidate runs replayed, run in full */
};

/* A scenario's context: its top-level keys but the fleet, the job
 * workload and the plan, as compact JSON; NULL out of memory. */
static char *context(const struct gs_scenario *sc)
{
    struct gs_json *doc = NULL;
    struct gs_diag d = { 0 };
    int bad = gs_json_parse(sc->text, sc->file, &doc, &d) < 0;
    gs_diag_free(&d);
    if (bad)
        return NULL;
    size_t n = 1, len = 0;
    char *out = calloc(1, 1);
    for (const struct gs_json *v = gs_json_first(doc); v && out;
         v = gs_json_next(v)) {
        const char *k = gs_json_key(v);
        if (!strcmp(k, "fleet") || !strcmp(k, "workload") ||
            !strcmp(k, "plan"))
            continue;
        char *t = gs_json_print(v);
        size_t add = strlen(k) + (t ? strlen(t) : 0) + 3;
        char *g = t ? realloc(out, n + add) : NULL;
        if (g == NULL) {
            free(out);
            out = NULL;
        } else {
            out = g;
            len += (size_t)snprintf(out + len, add, "%s=%s;", k, t);
            n += add;
        }
        free(t);
    }
    gs_json_free(doc);
    return out;
}

int gs_plan_reuse_new(struct search *s, int on, struct gs_diag *d)
{
    s->ru = NULL;
    long tlen = gs_svc_tape_size(s->base);
    /* a searched replica count makes every candidate's services its own:
     * a reference run per candidate would only add runs */
    for (int q = 0; q < s->pc->ncounts; q++)
        if (s->pc->counts[q].pool < 0)
            on = 0;
    if (!on || s->nst > 0 || tlen == 0)
        return 0;
    struct gs_plan_reuse *ru = calloc(1, sizeof *ru);
    if (ru == NULL || (ru->sm = calloc((size_t)s->nm, sizeof *ru->sm)) == NULL) {
        free(ru);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    ru->tlen = tlen;
    for (int m = 0; m < s->nm; m++) {
        const char *nm = gs_run_metric_name(m);
        if (!strncmp(nm, "service.", 8) || !strncmp(nm, "inference_", 10))
            ru->sm[ru->nsm++] = m;
    }
    s->ru = ru;
    s->ru_own = 1;
    return 0;
}

void gs_plan_reuse_free(struct search *s)
{
    struct gs_plan_reuse *ru = s->ru;
    if (ru == NULL || !s->ru_own)
        return;
    for (int i = 0; i < ru->nref; i++) {
        free(ru->ref[i].ctx);
        gs_scenario_free(ru->ref[i].sc);
        free(ru->ref[i].tape);
        free(ru->ref[i].vals);
        free(ru->ref[i].have);
    }
    free(ru->ref);
    free(ru->sm);
    free(ru->tref);
    free(ru->tseed);
    free(ru);
    s->ru = NULL;
}

/* Candidate x's context among the references (a new one made from x);
 * x->ref set (-1: x is not replayable).  0 or GS_ENOMEM. */
static int resolve(struct search *s, struct cand *x, struct gs_diag *d)
{
    struct gs_plan_reuse *ru = s->ru;
    x->ref = -1;
    if (x->status == C_INVALID || x->sc == NULL ||
        gs_svc_tape_size(x->sc) != ru->tlen)
        return 0;
    char *ctx = context(x->sc);
    if (ctx == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    for (int i = 0; i < ru->nref; i++)
        if (!strcmp(ru->ref[i].ctx, ctx)) {
            free(ctx);
            x->ref = i;
            return 0;
        }
    struct plan_ref *g = realloc(ru->ref, (size_t)(ru->nref + 1) * sizeof *g);
    if (g == NULL) {
        free(ctx);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    ru->ref = g;
    struct plan_ref *r = &ru->ref[ru->nref];
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    size_t ms = (size_t)s->pc->max_seeds;
    r->tape = calloc(ms * (size_t)ru->tlen, sizeof *r->tape);
    r->vals = calloc(ms * (size_t)s->nm, sizeof *r->vals);
    r->have = calloc(ms, 1);
    int rc = r->tape && r->vals && r->have ? 0 : GS_ENOMEM;
    if (rc == 0)
        rc = gs_reparse(s->base, x->sc->text, &r->sc, d);
    ru->nref++;
    if (rc < 0)
        return rc == GS_ENOMEM ? gs_diag_set(d, rc, "", "out of memory") : rc;
    x->ref = ru->nref - 1;
    return 0;
}

static char *ref_name(int t, void *ctx)
{
    const struct search *s = ctx;
    return gs_strf("the services' reference run, seed %llu",
                   (unsigned long long)(s->ru->ref[s->ru->tref[t]].sc->seed +
                                        (uint64_t)s->ru->tseed[t]));
}

/* One reference run: its figures, then its tape. */
static int ref_task(int t, double *out, void *ctx, struct gs_diag *d)
{
    const struct search *s = ctx;
    const struct plan_ref *r = &s->ru->ref[s->ru->tref[t]];
    struct gs_sim_opts o = { .seed = r->sc->seed + (uint64_t)s->ru->tseed[t],
                             .set_seed = 1 };
    struct gs_sim *sim = NULL;
    int rc = gs_sim_new(r->sc, &o, &sim, d);
    if (rc == 0)
        rc = gs_sim_run(sim, d);
    if (rc == 0) {
        gs_run_metric_values(sim, out);
        gs_svc_tape_get(sim, out + s->nm, s->ru->tlen);
    }
    gs_sim_free(sim);
    return rc;
}

/* Queue reference seed k of context i unless it is had or queued. */
static void want(struct gs_plan_reuse *ru, int i, int k)
{
    if (ru->ref[i].have[k])
        return;
    for (int t = 0; t < ru->ntask; t++)
        if (ru->tref[t] == i && ru->tseed[t] == k)
            return;
    ru->tref[ru->ntask] = i;
    ru->tseed[ru->ntask++] = k;
}

int gs_plan_reuse_prepare(struct search *s, int jobs, struct gs_diag *d)
{
    struct gs_plan_reuse *ru = s->ru;
    if (ru == NULL || s->ntask == 0)
        return 0;
    /* in the order candidates were made: the first of a context is its
     * reference */
    for (int i = 0; i < s->ncand; i++)
        if (s->cand[i].ref == -2 && resolve(s, &s->cand[i], d) < 0)
            return d->code;
    int ms = s->pc->max_seeds;
    size_t cap = (size_t)ru->nref * (size_t)ms + 1;
    free(ru->tref);
    free(ru->tseed);
    ru->tref = calloc(cap, sizeof *ru->tref);
    ru->tseed = calloc(cap, sizeof *ru->tseed);
    if (!ru->tref || !ru->tseed)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    ru->ntask = 0;
    for (int t = 0; t < s->ntask; t++) {
        const struct cand *x = &s->cand[s->tcand[t]];
        if (x->ref >= 0)
            want(ru, x->ref, s->tseed[t]);
    }
    /* fill the workers with the contexts' next seeds */
    int workers = jobs * gs_dist_size(), asked = ru->ntask;
    for (int t = 0; t < asked && ru->ntask % workers; t++)
        for (int k = ru->tseed[t] + 1; k < ms && ru->ntask % workers; k++)
            want(ru, ru->tref[t], k);
    if (ru->ntask == 0)
        return 0;
    size_t nout = (size_t)s->nm + (size_t)ru->tlen;
    double *res = calloc(((size_t)ru->ntask + 1) * nout, sizeof *res);
    if (res == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    int rc = gs_dist_run_named(ru->ntask, jobs, (int)nout, ref_task, ref_name,
                               s, res, d);
    for (int t = 0; rc == 0 && t < ru->ntask; t++) {
        struct plan_ref *r = &ru->ref[ru->tref[t]];
        int k = ru->tseed[t];
        const double *o = &res[(size_t)t * nout];
        memcpy(&r->vals[(size_t)k * (size_t)s->nm], o,
               (size_t)s->nm * sizeof *o);
        memcpy(&r->tape[(size_t)k * (size_t)ru->tlen], o + s->nm,
               (size_t)ru->tlen * sizeof *o);
        r->have[k] = 1;
    }
    ru->runs += rc == 0 ? ru->ntask : 0;
    free(res);
    return rc;
}

/* Candidate x's run on seed k as a ghost of its context's reference:
 * *sim run and 1 when the ghost held; 0 (nothing run or kept) when x is
 * to be run in full; or a negative code with d filled. */
static int ghost_run(const struct search *s, const struct cand *x, int k,
                     const struct gs_sim_opts *o, struct gs_sim **sim,
                     struct gs_diag *d)
{
    const struct gs_plan_reuse *ru = s->ru;
    *sim = NULL;
    if (ru == NULL || x->ref < 0 || !ru->ref[x->ref].have[k])
        return 0;
    const double *tape = &ru->ref[x->ref].tape[(size_t)k * (size_t)ru->tlen];
    if (tape[0] != 1)
        return 0;               /* the reference could not be taped */
    int rc = gs_sim_new(x->sc, o, sim, d);
    if (rc < 0)
        return rc;
    if (gs_svc_ghost(*sim, tape) != 0) {
        gs_sim_free(*sim);
        *sim = NULL;
        return 0;
    }
    rc = gs_sim_run(*sim, d);
    if (rc == 0 && gs_svc_ghost_matched(*sim))
        return 1;
    gs_sim_free(*sim);
    *sim = NULL;
    return rc < 0 ? rc : 0;
}

int gs_plan_reuse_run(const struct search *s, const struct cand *x, int k,
                      struct gs_sim **sim, double *out, struct gs_diag *d)
{
    struct gs_sim_opts o = { .seed = x->sc->seed + (uint64_t)k,
                             .set_seed = 1 };
    int rc = ghost_run(s, x, k, &o, sim, d);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        gs_run_metric_values(*sim, out);
        const double *v = &s->ru->ref[x->ref].vals[(size_t)k * (size_t)s->nm];
        for (int i = 0; i < s->ru->nsm; i++)
            out[s->ru->sm[i]] = v[s->ru->sm[i]];
        return 1;
    }
    rc = gs_sim_new(x->sc, &o, sim, d);
    if (rc == 0)
        rc = gs_sim_run(*sim, d);
    if (rc == 0)
        gs_run_metric_values(*sim, out);
    return rc;
}

void gs_plan_reuse_count(struct search *s, const double *res, size_t nout)
{
    if (s->ru == NULL)
        return;
    for (int t = 0; t < s->ntask; t++) {
        double how = res[(size_t)t * nout + nout - 1];
        if (how == 1)
            s->ru->ghosts++;
        else if (s->cand[s->tcand[t]].ref >= 0)
            s->ru->full++;
    }
}

void gs_plan_reuse_note(FILE *fp, const struct search *s)
{
    const struct gs_plan_reuse *ru = s->ru;
    if (ru == NULL || ru->runs == 0)
        return;
    fprintf(fp, "  the services: %ld reference run%s, replayed in %ld "
            "candidate run%s (%ld run in full: a replica not as taped)\n",
            ru->runs, ru->runs == 1 ? "" : "s", ru->ghosts,
            ru->ghosts == 1 ? "" : "s", ru->full);
}
