/* rllite.c -- a small learned scoring policy whose weights the simulator
 * trains (`gpusim train`, sim/train.c).
 *
 * At each pass every pending job (the oldest `depth`) gets a feature vector
 * phi(job, cluster state) and the score w . phi; jobs start greedily in
 * score order wherever they fit.  The model is linear on purpose: eight
 * weights are few enough for the cross-entropy method to fit with a few
 * hundred simulations, and readable -- a negative weight on log_runtime is
 * "shortest first", a positive one on urgency is "do not miss the SLA".
 * All-zero weights tie every job, and ties go in arrival order, so the
 * untrained policy is FIFO without head-of-line blocking.
 *
 * Features, each of order 1:
 *   log_runtime  ln(1 + estimated runtime in hours)
 *   gpus         GPUs asked / GPUs of the largest node
 *   log_wait     ln(1 + minutes waited so far)
 *   priority     tier priority / 100
 *   urgency      wait / the job's SLA wait limit, capped at 4 (0 if none)
 *   fit          1 - what the best-fit placement leaves free on its node
 *                (as in hps.c); 0 when the job fits nowhere now
 *   size_x_free  gpus feature x the fleet's free fraction
 *   tenant_share the job's tenant's share of the GPUs running now
 *
 * Parameters: weights (path to a JSON file, relative to the scenario's
 * folder; sim/jsonio.h gives its layout), w_FEATURE (a number each,
 * overriding the file or defaults), depth (default 256).
 *
 * Cost: the GPUs each tenant holds are kept as running totals (integer
 * milli-GPUs, booked on start and stop), so a pass costs the `depth` jobs
 * it scores, not the running jobs. */
#include "policy.h"
#include "rllite.h"
#include "../sim/jsonio.h"
#include "../sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gs_rllite_features[GS_RLLITE_NF] = {
    "log_runtime", "gpus", "log_wait", "priority", "urgency", "fit",
    "size_x_free", "tenant_share",
};

/* Trained with `gpusim train quickstart --seeds 2 --iters 10 --pop 16
 * --elite 4 --seed 1` (the same numbers as policies/rllite-quickstart.json;
 * docs/policies.md reports how they do on workloads not trained on). */
const double gs_rllite_default_weights[GS_RLLITE_NF] = {
    -1.6703235617629799,
    -0.051418350137418051,
    -0.12029070345221946,
    3.3374392707023999,
    0.064126019191119057,
    -0.38224687724147388,
    -0.14780081130519651,
    -1.2878438455733188,
};

struct rl {
    double w[GS_RLLITE_NF];
    long depth;
    int maxgpn;
    struct rlc { struct gs_job *j; double score; } *c;
    long capc;
    double *tgpus;              /* per tenant, scratch */
    int captg;
    int64_t *tmilli;            /* per tenant: milli-GPUs its running jobs
                                   hold, kept on start and stop */
    int captm;
    int64_t busy;               /* their sum */
};

static int rl_init(struct gs_sim *sim, struct gs_params *p, void **state,
                   struct gs_diag *d)
{
    struct rl *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    memcpy(s->w, gs_rllite_default_weights, sizeof s->w);
    s->depth = 256;
    const char *path = NULL;
    int rc;
    if ((rc = gs_params_str(p, "weights", &path, d)) < 0 ||
        (rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d)) < 0)
        goto fail;
    if (path) {
        const struct gs_scenario *sc = gs_sim_scenario(sim);
        char full[1200];
        if (path[0] == '/' || sc->trace_dir[0] == '\0')
            snprintf(full, sizeof full, "%s", path);
        else
            snprintf(full, sizeof full, "%s/%s", sc->trace_dir, path);
        if ((rc = gs_weights_load(full, gs_rllite_features, GS_RLLITE_NF,
                                  s->w, d)) < 0)
            goto fail;
    }
    for (int i = 0; i < GS_RLLITE_NF; i++) {
        char key[64];
        snprintf(key, sizeof key, "w_%s", gs_rllite_features[i]);
        if ((rc = gs_params_num(p, key, -1e6, 1e6, &s->w[i], d)) < 0)
            goto fail;
    }
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (int i = 0; i < f->npools; i++)
        if (f->pools[i].s.gpn > s->maxgpn)
            s->maxgpn = f->pools[i].s.gpn;
    *state = s;
    return 0;
fail:
    free(s);
    return rc;
}

static void rl_free(void *state)
{
    struct rl *s = state;
    free(s->c);
    free(s->tgpus);
    free(s->tmilli);
    free(s);
}

static int64_t job_milli(const struct gs_job *j)
{
    return j->need.gpus > 0 ? 1000LL * j->need.gpus : j->need.milli;
}

/* Book a job this policy started (pslot 1) to its tenant. */
static void book(struct rl *s, struct gs_job *j)
{
    if (j->tenant >= s->captm) {
        int cap = s->captm ? s->captm : 16;
        while (cap <= j->tenant)
            cap *= 2;
        int64_t *t = realloc(s->tmilli, (size_t)cap * sizeof *t);
        GS_OOM_IF(t == NULL);
        memset(t + s->captm, 0, (size_t)(cap - s->captm) * sizeof *t);
        s->tmilli = t;
        s->captm = cap;
    }
    s->tmilli[j->tenant] += job_milli(j);
    s->busy += job_milli(j);
    j->pslot = 1;
}

static void rl_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                       int why)
{
    (void)sim;
    (void)why;
    struct rl *s = state;
    if (j->pslot != 1)
        return;                 /* a pending job killed while waiting */
    s->tmilli[j->tenant] -= job_milli(j);
    s->busy -= job_milli(j);
    j->pslot = 0;
}

/* 1 - the leftover of the tightest placement now; 0 if none. */
static double fit(struct gs_sim *sim, const struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double best = -1;
    struct gs_alloc a = { .pool = -1 };
    for (int p = 0; p < f->npools; p++) {
        if (!gs_fleet_pool_eligible(f, p, &j->need))
            continue;
        struct gs_range r = { p, 0, f->pools[p].s.nodes };
        int score;
        if (gs_fleet_find(f, &r, &j->need, GS_FIT_BEST, &a, &score) < 0)
            continue;
        double x = 1.0 - (j->need.gpus > 0
                              ? (double)score / f->pools[p].s.gpn
                              : (double)score / 2000.0);
        if (x < 0)
            x = 0;
        if (x > best)
            best = x;
    }
    gs_alloc_reset(&a);
    return best < 0 ? 0 : best;
}

static int rl_cmp(const void *x, const void *y)
{
    const struct rlc *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    if (a->j->s.arrival != b->j->s.arrival)
        return a->j->s.arrival < b->j->s.arrival ? -1 : 1;
    return a->j->rec < b->j->rec ? -1 : a->j->rec > b->j->rec;
}

static void rl_schedule(void *state, struct gs_sim *sim)
{
    struct rl *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (f->used_milli >= f->gpus_up * 1000)
        return;
    long n = gs_sim_npending(sim);
    if (n > s->depth)
        n = s->depth;
    if (n > s->capc) {
        free(s->c);
        s->c = malloc((size_t)n * sizeof *s->c);
        GS_OOM_IF(s->c == NULL);
        s->capc = n;
    }
    int nt = gs_sim_ntenants(sim);
    if (nt > s->captg) {
        free(s->tgpus);
        s->tgpus = malloc((size_t)nt * sizeof *s->tgpus);
        GS_OOM_IF(s->tgpus == NULL);
        s->captg = nt;
    }
    for (int t = 0; t < nt; t++)
        s->tgpus[t] = t < s->captm ? (double)s->tmilli[t] / 1000.0 : 0;
    double busy = (double)s->busy / 1000.0;
    double freefrac = f->gpus_up > 0 ? 1.0 - (double)f->used_milli /
                                                 (1000.0 * (double)f->gpus_up)
                                     : 0;
    gs_time now = gs_sim_now(sim);
    long k = 0;
    for (struct gs_job *j = gs_sim_pending_head(sim); j && k < n;
         j = j->next) {
        double g = j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
        double gn = s->maxgpn > 0 ? g / s->maxgpn : g;
        double wait = (double)(now - j->s.arrival);
        double urg = j->max_wait > 0 ? wait / (double)j->max_wait : 0;
        double phi[GS_RLLITE_NF] = {
            log1p((double)gs_sim_estimate(sim, j) / GS_HOUR),
            gn,
            log1p(wait / GS_MIN),
            j->prio / 100.0,
            urg > 4 ? 4 : urg,
            s->w[5] != 0 ? fit(sim, j) : 0,
            gn * freefrac,
            busy > 0 && j->tenant < nt ? s->tgpus[j->tenant] / busy : 0,
        };
        double sc = 0;
        for (int i = 0; i < GS_RLLITE_NF; i++)
            sc += s->w[i] * phi[i];
        s->c[k++] = (struct rlc){ j, sc };
    }
    qsort(s->c, (size_t)k, sizeof *s->c, rl_cmp);
    gs_sim_examine(sim, k);
    for (long i = 0; i < k; i++) {
        if (f->used_milli >= f->gpus_up * 1000)
            break;
        if (gs_sim_try_start(sim, s->c[i].j, NULL, 0) == 0)
            book(s, s->c[i].j);
    }
}

const struct gs_policy_ops gs_policy_rllite = {
    .abi = GS_POLICY_ABI,
    .name = "rl-lite",
    .summary = "learned linear score over job and cluster features "
               "(weights from `gpusim train`)",
    .init = rl_init,
    .free = rl_free,
    .stopped = rl_stopped,
    .schedule = rl_schedule,
};
