/* plan.c -- `gpusim plan`: the cheapest fleet that meets the targets.
 *
 * The search space (planjson.h) is a product of discrete axes -- a pool's
 * GPU model and price, its market or spot share, a sharing layout, the
 * policy, any key's values -- and of node counts.  A "combo" fixes every
 * axis and every count but the last searched pool's; along that last count
 * SLA attainment is monotone in capacity (more nodes of the same kind never
 * lengthen a queue under a work-conserving policy), so the smallest count
 * that meets the targets is found by bisection: the top of the range is
 * tried first (infeasible there: the combo is infeasible), then the middle
 * of the bracket (L, H] until H - L is one step.  The bracket's bottom
 * bounds the combo's cost from below (cost grows with nodes, as their
 * price), so a combo whose bound exceeds the cheapest feasible plan found
 * so far is dominated and dropped without running it further.
 *
 * A candidate is judged on n seeds (common random numbers: seed k is the
 * same workload for every candidate, so candidates differ by the fleet,
 * not by noise; Law, "Simulation Modeling and Analysis", sec. 11.2).  Each
 * target's 95% confidence interval is compare.c's Student t interval of
 * the mean over seeds; a candidate is feasible when the unfavourable end of
 * every interval meets its target (upper end <= a limit, lower end >= a
 * floor).  Sequential early stopping: a candidate first runs min_seeds
 * seeds, and if the favourable end of some interval already misses its
 * target it is declared infeasible without the remaining seeds (a clear
 * failure; the common case on the way up a bisection, where most tried
 * fleets are under-sized).
 *
 * The search advances in rounds: every live combo proposes its next
 * candidate (or the rest of its seeds), the round's runs go to
 * gs_dist_run (forked workers, MPI ranks) at once, and decisions are taken
 * on the gathered numbers in combo order -- so the path, the answer and
 * every printed digit depend only on the inputs, not on -np or --jobs.
 *
 * What comes out: the cheapest feasible candidate with cost per hour and
 * month and every metric with its interval; the Pareto front of cost
 * against SLA attainment over every evaluated candidate (table, HDF5,
 * gnuplot); the same search under load growth factors; right-sizing advice
 * per tier from one run of the chosen plan; or, if nothing is feasible,
 * the candidate that comes closest (least worst relative miss). */
#include "plan.h"
#include "../base/suggest.h"
#include "../cloud/cloud.h"
#include "../io/outfile.h"
#include "compare.h"
#include "../io/gnuplot.h"
#include "../io/h5out.h"
#include "../cluster/mig.h"
#include "mpirun.h"
#include "planjson.h"
#include "progress.h"
#include "../io/scenario.h"
#include "../inference/service.h"
#include "../core/sim.h"
#include "../io/source.h"
#include "sweep.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { C_PENDING, C_FEASIBLE, C_INFEASIBLE, C_STOPPED, C_INVALID };
static const char *const cstatus[] = { "pending", "feasible", "infeasible",
                                       "stopped early", "cannot run" };
enum { K_TOP, K_BISECT, K_DONE, K_INFEASIBLE, K_PRUNED };

struct cand {
    int combo, idx;             /* grid index of the bisected count, or -1 */
    char *label;
    struct gs_scenario *sc;
    int nrun, status;
    double *v;                  /* [seeds][nm] */
    double *mean, *half;        /* [nm] over the seeds run */
    double *booted;             /* [seeds][npools][2]: the nodes each pool
                                   billed on average and at most (what an
                                   autoscaled pool booted) */
    double cost_h, nominal, gpus;
    double obj;                 /* the objective: cost per hour, or per
                                   million output tokens */
    long size;                  /* sum of the searched counts (ties) */
    char *why;                  /* refused by the scenario's validation */
};

struct combo {
    int *ax;                    /* [naxes] value index */
    int *cnt;                   /* [ncounts] counts; the last is bisected */
    int L, H, state, cur;       /* bracket over grid indexes; cand in work */
    double ratio;               /* simulated / nominal cost, once known */
};

struct search {
    const struct gs_plancfg *pc;
    const struct gs_scenario *base;
    double growth;              /* load factor (1 = as given) */
    int nm, nfleet;
    int npb;                    /* pools a task reports booted nodes of in
                                   this round's batch (the most any has) */
    int ncombo;
    struct combo *combo;
    int ncand, capcand;
    struct cand *cand;
    long runs, stopped, pruned;
    int natt, *att;             /* the attainment metrics: jobs', then each
                                   service's */
    char **svc_sla;             /* [nsvcs]: the plan's targets as the
                                   service's SLA, when it states none */
    struct gs_progress *pr;     /* the progress line, or NULL */
    int lenient;                /* a candidate that fails validation is
                                   infeasible (after the up-front check) */
    /* the round's tasks */
    int ntask;
    int *tcand, *tseed;
};

static int metric(const char *name)
{
    int m = gs_run_metric_index(name);
    GS_ASSERT(m >= 0);
    return m;
}

/* The grid of the last searched pool: values lo, lo+step, ... <= hi. */
static int grid_n(const struct gs_plan_count *k)
{
    return (k->hi - k->lo) / k->step + 1;
}

/* --- building candidates --------------------------------------------- */

/* --- load growth ----------------------------------------------------- */

/* The key a load factor scales: the job generator's rate_per_hour (j < 0)
 * or service j's request rate, under the name its scenario gave it. */
static void growth_key(const struct gs_scenario *sc, int j, char *path,
                       size_t n)
{
    if (j < 0) {
        snprintf(path, n, "workload.generate.rate_per_hour");
        return;
    }
    char k[64];
    snprintf(k, sizeof k, "services[%d].requests.generate.rate_per_hour", j);
    const char *key = gs_json_has(sc->text, k) ? "rate_per_hour"
                                                : "rate_per_second";
    snprintf(path, n, "services[%d].requests.generate.%s", j, key);
}

/* Growth scales generated load only: every source of load (the jobs, if
 * any, and each service's requests) must be a generator. */
static int growth_check(const struct gs_scenario *sc, struct gs_diag *d)
{
    if (sc->wl_kind != GS_WL_GENERATE && sc->wl_kind != GS_WL_NONE)
        return gs_diag_set(d, GS_EINVAL, sc->file, "load growth scales a "
                           "generated workload's rate_per_hour; for a trace, "
                           "convert it with `gpusim trace convert "
                           "--scale-rate K`");
    for (int j = 0; j < sc->nsvcs; j++)
        if (sc->svcs[j].src != GS_SVCSRC_GENERATE)
            return gs_diag_set(d, GS_EINVAL, sc->file, "load growth scales "
                               "generated request rates; services[%d] (%s) "
                               "replays a trace", j, sc->svcs[j].name);
    return 0;
}

/* The edits that make candidate (combo c, bisected index idx). *ne set;
 * the edits' values are owned by the plan (or by vals[]). */
static int cand_edits(const struct search *s, const struct combo *c, int idx,
                      struct gs_edit **out, int *ne, char ***vals, int *nv)
{
    const struct gs_plancfg *pc = s->pc;
    int cap = 8 + 3 * pc->ncounts + 2 * s->base->nsvcs;
    for (int a = 0; a < pc->naxes; a++)
        cap += pc->ax[a].nedits[c->ax[a]] + 2;
    struct gs_edit *e = calloc((size_t)cap, sizeof *e);
    char **v = calloc((size_t)cap, sizeof *v);
    if (!e || !v) {
        free(e);
        free(v);
        return GS_ENOMEM;
    }
    int n = 0, k = 0, clones = 0;
    int clone_of[GS_PLAN_MAX_AXES];
    double share_of[GS_PLAN_MAX_AXES];
    for (int a = 0; a < pc->naxes; a++) {
        const struct gs_plan_axis *ax = &pc->ax[a];
        int val = c->ax[a];
        for (int i = 0; i < ax->nedits[val]; i++)
            e[n++] = ax->edits[val][i];
        if (ax->spot_pool >= 0 && ax->share[val] > 0) {
            char buf[4096], num[64];
            const char *pname = ax->label;  /* "POOL.spot_share" */
            int plen = (int)(strlen(pname) - strlen(".spot_share"));
            e[n].op = GS_EDIT_CLONE;
            snprintf(e[n].path, sizeof e[n].path, "fleet[%d]", ax->spot_pool);
            snprintf(buf, sizeof buf, "{\"name\": \"%.*s-spot\", \"market\": "
                     "\"spot\", \"nodes\": 0, \"spot\": %s}",
                     plen > 0 ? plen : 0, pname, ax->spot_cfg);
            v[k] = strdup(buf);
            e[n++].value = v[k++];
            /* the spot price: the pool's own price less the discount, or
             * the scenario's spot pricing with that discount */
            int at = s->nfleet + clones;
            if (ax->spot_key[0]) {
                e[n].op = GS_EDIT_SCALE;
                snprintf(e[n].path, sizeof e[n].path, "fleet[%d].%s", at,
                         ax->spot_key);
                snprintf(num, sizeof num, "%.17g", 1 - ax->spot_discount);
            } else {
                e[n].op = GS_EDIT_SET;
                snprintf(e[n].path, sizeof e[n].path, "fleet[%d].discount",
                         at);
                snprintf(num, sizeof num, "%.17g", ax->spot_discount);
            }
            v[k] = strdup(num);
            e[n++].value = v[k++];
            clone_of[clones] = ax->spot_pool;
            share_of[clones++] = ax->share[val];
        }
    }
    for (int j = 0; s->svc_sla && j < s->base->nsvcs; j++)
        if (s->svc_sla[j]) {
            e[n].op = GS_EDIT_SET;
            snprintf(e[n].path, sizeof e[n].path, "services[%d].sla", j);
            v[k] = strdup(s->svc_sla[j]);
            e[n++].value = v[k++];
        }
    if (s->growth != 1) {
        char g[64];
        snprintf(g, sizeof g, "%.17g", s->growth);
        for (int j = -1; j < s->base->nsvcs; j++) {
            if (j < 0 && s->base->wl_kind != GS_WL_GENERATE)
                continue;
            e[n].op = GS_EDIT_SCALE;
            growth_key(s->base, j, e[n].path, sizeof e[n].path);
            v[k] = strdup(g);
            e[n++].value = v[k++];
        }
    }
    for (int q = 0; q < pc->ncounts; q++) {
        const struct gs_plan_count *pk = &pc->counts[q];
        int nodes = q == pc->ncounts - 1 ? pk->lo + idx * pk->step
                                         : c->cnt[q];
        int spot = 0, ci = -1;
        for (int j = 0; j < clones && pk->pool >= 0; j++)
            if (clone_of[j] == pk->pool) {
                spot = (int)floor(share_of[j] * nodes + 0.5);
                ci = j;
            }
        char num[32];
        e[n].op = GS_EDIT_SET;
        snprintf(e[n].path, sizeof e[n].path, "%s", pk->key);
        snprintf(num, sizeof num, "%d", nodes - spot);
        v[k] = strdup(num);
        e[n++].value = v[k++];
        if (ci >= 0) {
            e[n].op = GS_EDIT_SET;
            snprintf(e[n].path, sizeof e[n].path, "fleet[%d].nodes",
                     s->nfleet + ci);
            snprintf(num, sizeof num, "%d", spot);
            v[k] = strdup(num);
            e[n++].value = v[k++];
        }
    }
    for (int i = 0; i < k; i++)
        if (v[i] == NULL) {
            for (int j = 0; j < k; j++)
                free(v[j]);
            free(v);
            free(e);
            return GS_ENOMEM;
        }
    *out = e;
    *ne = n;
    *vals = v;
    *nv = k;
    return 0;
}

static char *cand_label(const struct search *s, const struct combo *c,
                        int idx)
{
    const struct gs_plancfg *pc = s->pc;
    char buf[2048] = "";
    for (int a = 0; a < pc->naxes; a++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s=%s",
                 buf[0] ? " " : "", pc->ax[a].label,
                 pc->ax[a].names[c->ax[a]]);
    for (int q = 0; q < pc->ncounts; q++) {
        const struct gs_plan_count *pk = &pc->counts[q];
        int nodes = q == pc->ncounts - 1 ? pk->lo + idx * pk->step
                                         : c->cnt[q];
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s.%s=%d",
                 buf[0] ? " " : "", pk->name,
                 pk->pool >= 0 ? "nodes" : "replicas", nodes);
    }
    return strdup(buf[0] ? buf : "as given");
}

/* Make candidate (combo ci, idx): its scenario parsed and validated.
 * Index in s->cand, or a negative code with d filled. */
static int new_cand(struct search *s, int ci, int idx, struct gs_diag *d)
{
    if (s->ncand == s->capcand) {
        int nc = s->capcand ? s->capcand * 2 : 64;
        struct cand *g = realloc(s->cand, (size_t)nc * sizeof *g);
        if (g == NULL)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        s->cand = g;
        s->capcand = nc;
    }
    struct combo *c = &s->combo[ci];
    struct cand *x = &s->cand[s->ncand];
    memset(x, 0, sizeof *x);
    x->combo = ci;
    x->idx = idx;
    x->label = cand_label(s, c, idx);
    x->v = calloc((size_t)s->pc->seeds * (size_t)s->nm, sizeof *x->v);
    x->mean = calloc((size_t)s->nm, sizeof *x->mean);
    x->half = calloc((size_t)s->nm, sizeof *x->half);
    if (!x->label || !x->v || !x->mean || !x->half) {
        free(x->label);
        free(x->v);
        free(x->mean);
        free(x->half);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    struct gs_edit *e = NULL;
    char **vals = NULL, *text = NULL;
    int ne = 0, nv = 0;
    int rc = cand_edits(s, c, idx, &e, &ne, &vals, &nv);
    if (rc < 0)
        rc = gs_diag_set(d, rc, "", "out of memory");
    if (rc == 0)
        rc = gs_json_edit(s->base->text, e, ne, &text, "$.plan", d);
    if (rc == 0)
        rc = gs_reparse(s->base, text, &x->sc, d);
    free(text);
    for (int i = 0; i < nv; i++)
        free(vals[i]);
    free(vals);
    free(e);
    if (rc < 0 && rc != GS_ENOMEM && s->lenient) {
        /* a smaller fleet the workload does not fit: infeasible, not an
         * input error (every axis value was validated up front) */
        x->status = C_INVALID;
        x->why = strdup(d->what);
        memset(d, 0, sizeof *d);
        c->cur = s->ncand;
        return s->ncand++;
    }
    if (rc < 0) {
        char what[sizeof d->what + 2400];
        snprintf(what, sizeof what, "%s (candidate %s)", d->what, x->label);
        memcpy(d->what, what, sizeof d->what - 1);
        d->what[sizeof d->what - 1] = '\0';
        free(x->label);
        free(x->v);
        free(x->mean);
        free(x->half);
        return rc;
    }
    for (int p = 0; p < x->sc->npools; p++) {
        x->nominal += x->sc->pools[p].price_hour * x->sc->pools[p].nodes;
        x->gpus += (double)x->sc->pools[p].nodes * x->sc->pools[p].gpn;
    }
    for (int q = 0; q < s->pc->ncounts; q++)
        x->size += q == s->pc->ncounts - 1
                       ? s->pc->counts[q].lo + idx * s->pc->counts[q].step
                       : c->cnt[q];
    c->cur = s->ncand;
    return s->ncand++;
}

static void free_cand(struct cand *x)
{
    free(x->label);
    free(x->why);
    gs_scenario_free(x->sc);
    free(x->v);
    free(x->mean);
    free(x->half);
    free(x->booted);
}

/* --- judging ------------------------------------------------------------ */

static void cand_stats(const struct search *s, struct cand *x)
{
    double *col = malloc((size_t)x->nrun * sizeof *col);
    GS_OOM_IF(col == NULL);
    for (int m = 0; m < s->nm; m++) {
        for (int k = 0; k < x->nrun; k++)
            col[k] = x->v[(size_t)k * s->nm + m];
        double sd, t;
        gs_ci95(col, x->nrun, &x->mean[m], &sd, &t, &x->half[m]);
        if (sd <= 1e-9 * fabs(x->mean[m]))
            x->half[m] = 0;     /* the same value every seed */
    }
    free(col);
    x->cost_h = x->mean[metric("cost_per_hour_usd")];
    x->obj = x->cost_h;
    if (s->pc->objective == 1) {
        /* the fleet's cost per million output tokens, mean over seeds */
        double sum = 0;
        int ic = metric("cost_usd");
        for (int k = 0; k < x->nrun; k++) {
            const double *v = &x->v[(size_t)k * s->nm];
            double tok = 0;
            for (int m = 0; m < s->nm; m++) {
                const char *nm = gs_run_metric_name(m);
                size_t l = strlen(nm);
                if (l > 14 && strcmp(nm + l - 14, ".output_tokens") == 0 &&
                    !isnan(v[m]))
                    tok += v[m];
            }
            sum += tok > 0 ? v[ic] / tok * 1e6 : INFINITY;
        }
        x->obj = sum / x->nrun;
    }
}

/* The unfavourable (worst = 1) or favourable end of target t's interval. */
static double end_of(const struct cand *x, const struct gs_plan_target *t,
                     int worst)
{
    int m = metric(t->metric);
    double h = isnan(x->half[m]) ? 0 : x->half[m];
    int up = t->upper ? worst : !worst;
    return up ? x->mean[m] + h : x->mean[m] - h;
}

static int meets(double v, const struct gs_plan_target *t)
{
    return t->upper ? v <= t->limit : v >= t->limit;
}

/* How far x's worst end misses its worst target, relative to the limit
 * (<= 0: meets them all). */
static double miss(const struct search *s, const struct cand *x)
{
    double worst = -INFINITY;
    for (int i = 0; i < s->pc->ntargets; i++) {
        const struct gs_plan_target *t = &s->pc->t[i];
        double e = end_of(x, t, 1);
        double scale = fabs(t->limit) > 1e-9 ? fabs(t->limit) : 1;
        double r = (t->upper ? e - t->limit : t->limit - e) / scale;
        if (r > worst)
            worst = r;
    }
    return worst;
}

/* Decide x after its runs: 1 if decided. */
static int judge(const struct search *s, struct cand *x)
{
    cand_stats(s, x);
    int all = 1, clear = 0;
    for (int i = 0; i < s->pc->ntargets; i++) {
        const struct gs_plan_target *t = &s->pc->t[i];
        all &= meets(end_of(x, t, 1), t);
        clear |= !meets(end_of(x, t, 0), t);
    }
    if (x->nrun < s->pc->seeds) {
        if (!clear)
            return 0;
        x->status = C_STOPPED;
        return 1;
    }
    x->status = all ? C_FEASIBLE : C_INFEASIBLE;
    return 1;
}

/* Cheapest feasible candidate (ties: fewer GPUs, then first found). */
static int best_feasible(const struct search *s)
{
    int b = -1;
    for (int i = 0; i < s->ncand; i++) {
        const struct cand *x = &s->cand[i];
        if (x->status != C_FEASIBLE)
            continue;
        const struct cand *y = b >= 0 ? &s->cand[b] : NULL;
        double tol = 1e-9 * (1 + fabs(x->obj));
        if (y == NULL || x->obj < y->obj - tol ||
            (fabs(x->obj - y->obj) <= tol &&
             (x->gpus < y->gpus ||
              (x->gpus == y->gpus && x->size < y->size))))
            b = i;
    }
    return b;
}

static int closest(const struct search *s)
{
    int b = -1;
    double bm = INFINITY;
    for (int i = 0; i < s->ncand; i++) {
        double m = miss(s, &s->cand[i]);
        if (s->cand[i].nrun == 0)
            continue;
        if (b < 0 || m < bm - 1e-12 ||
            (fabs(m - bm) <= 1e-12 && s->cand[i].cost_h < s->cand[b].cost_h)) {
            b = i;
            bm = m;
        }
    }
    return b;
}

/* --- the search ------------------------------------------------------ */

/* One run of a candidate: its metrics, then per pool the nodes billed on
 * average and at most (0 for pools it does not have). */
static int run_task(int t, double *out, void *ctx, struct gs_diag *d)
{
    struct search *s = ctx;
    const struct cand *x = &s->cand[s->tcand[t]];
    struct gs_sim_opts o = { .seed = x->sc->seed + (uint64_t)s->tseed[t],
                             .set_seed = 1 };
    struct gs_sim *sim = NULL;
    int rc = gs_sim_new(x->sc, &o, &sim, d);
    if (rc == 0)
        rc = gs_sim_run(sim, d);
    if (rc == 0) {
        gs_run_metric_values(sim, out);
        const struct gs_cloud *c = gs_sim_cloud(sim);
        for (int p = 0; p < s->npb; p++) {
            struct gs_cloud_poolbill b = { 0 };
            if (c && p < x->sc->npools)
                gs_cloud_pool_bill(c, p, &b);
            out[s->nm + 2 * p] = b.nodes_mean;
            out[s->nm + 2 * p + 1] = b.nodes_peak;
        }
    }
    gs_sim_free(sim);
    return rc;
}

static int add_tasks(struct search *s, int ci, int from, int to)
{
    for (int k = from; k < to; k++) {
        s->tcand[s->ntask] = ci;
        s->tseed[s->ntask++] = k;
    }
    return 0;
}

/* Enumerate the combos: every axis value x every count of the searched
 * pools but the last. */
static int make_combos(struct search *s, struct gs_diag *d)
{
    const struct gs_plancfg *pc = s->pc;
    long n = 1;
    for (int a = 0; a < pc->naxes; a++)
        n *= pc->ax[a].nvalues;
    for (int q = 0; q + 1 < pc->ncounts; q++)
        n *= grid_n(&pc->counts[q]);
    if (n > 100000)
        return gs_diag_set(d, GS_ERANGE, "$.plan.search", "%ld combinations "
                           "to search (at most 100000): narrow the lists or "
                           "raise the step of the node ranges", n);
    s->ncombo = (int)n;
    s->combo = calloc((size_t)n, sizeof *s->combo);
    if (s->combo == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    for (long i = 0; i < n; i++) {
        struct combo *c = &s->combo[i];
        c->ax = calloc((size_t)pc->naxes + 1, sizeof *c->ax);
        c->cnt = calloc((size_t)pc->ncounts + 1, sizeof *c->cnt);
        if (!c->ax || !c->cnt)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        long r = i;
        for (int q = pc->ncounts - 2; q >= 0; q--) {
            int g = grid_n(&pc->counts[q]);
            c->cnt[q] = pc->counts[q].lo + (int)(r % g) * pc->counts[q].step;
            r /= g;
        }
        for (int a = pc->naxes - 1; a >= 0; a--) {
            c->ax[a] = (int)(r % pc->ax[a].nvalues);
            r /= pc->ax[a].nvalues;
        }
        c->L = -1;
        c->H = pc->ncounts ? grid_n(&pc->counts[pc->ncounts - 1]) - 1 : 0;
        c->state = K_TOP;
        c->cur = -1;
        c->ratio = NAN;
    }
    return 0;
}

/* Drop combos whose cheapest remaining candidate cannot beat the best. */
static void prune(struct search *s)
{
    int b = best_feasible(s);
    if (b < 0 || s->pc->ncounts == 0 || s->pc->objective != 0 ||
        s->pc->counts[s->pc->ncounts - 1].pool < 0)
        return;
    double best = s->cand[b].cost_h;
    const struct gs_plan_count *pk = &s->pc->counts[s->pc->ncounts - 1];
    for (int i = 0; i < s->ncombo; i++) {
        struct combo *c = &s->combo[i];
        if ((c->state != K_TOP && c->state != K_BISECT) || c->cur >= 0 ||
            isnan(c->ratio))
            continue;
        /* nominal cost at L+1: this combo's last candidate's nominal,
         * less the bisected pool's nodes between there and L+1 */
        const struct cand *last = NULL;
        for (int j = s->ncand - 1; j >= 0; j--)
            if (s->cand[j].combo == i) {
                last = &s->cand[j];
                break;
            }
        if (last == NULL || last->idx < 0)
            continue;
        /* the spot clone of the pool, if any, is priced alike */
        int nodes_last = pk->lo + last->idx * pk->step;
        int nodes_lo = pk->lo + (c->L + 1) * pk->step;
        double nom = last->nominal;
        if (last->sc->pools[pk->pool].price_hour > 0)
            nom -= (double)(nodes_last - nodes_lo) *
                   last->sc->pools[pk->pool].price_hour;
        double lb = c->ratio * nom;
        if (lb > best * (1 + 1e-9) + 1e-9) {
            c->state = K_PRUNED;
            s->pruned++;
        }
    }
}

/* One combo's next step after its candidate x was decided. */
static void advance(struct search *s, int ci, const struct cand *x)
{
    struct combo *c = &s->combo[ci];
    c->cur = -1;
    if (isnan(c->ratio) && x->nominal > 0)
        c->ratio = x->cost_h / x->nominal;
    int ok = x->status == C_FEASIBLE;
    if (s->pc->ncounts == 0) {
        c->state = ok ? K_DONE : K_INFEASIBLE;
        return;
    }
    if (c->state == K_TOP) {
        if (!ok) {
            c->state = K_INFEASIBLE;
            return;
        }
        c->state = K_BISECT;
    } else if (ok) {
        c->H = x->idx;
    } else {
        c->L = x->idx;
    }
    if (c->H - c->L <= 1)
        c->state = K_DONE;
}

/* Every axis value, with the other axes at their first value and every
 * count at the top of its range, must give a valid scenario: a misspelt
 * key or a bad value is an input error (exit 2), found before any run. */
static int validate_space(struct search *s, struct gs_diag *d)
{
    const struct gs_plancfg *pc = s->pc;
    int ax[GS_PLAN_MAX_AXES + 1] = { 0 };
    int *cnt = calloc((size_t)pc->ncounts + 1, sizeof *cnt);
    struct combo c = { .ax = ax, .cnt = cnt };
    if (cnt == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    for (int q = 0; q < pc->ncounts; q++)
        cnt[q] = pc->counts[q].lo +
                 (grid_n(&pc->counts[q]) - 1) * pc->counts[q].step;
    int top = pc->ncounts ? grid_n(&pc->counts[pc->ncounts - 1]) - 1 : -1;
    struct search probe = *s;
    probe.combo = &c;
    probe.ncombo = 1;
    probe.cand = NULL;
    probe.ncand = probe.capcand = 0;
    probe.lenient = 0;
    int rc = 0;
    for (int a = 0; a < (pc->naxes ? pc->naxes : 1) && rc == 0; a++) {
        int nv = pc->naxes ? pc->ax[a].nvalues : 1;
        for (int v = 0; v < nv && rc == 0; v++) {
            memset(ax, 0, sizeof ax);
            if (pc->naxes)
                ax[a] = v;
            rc = new_cand(&probe, 0, top, d);
            if (rc >= 0) {
                free_cand(&probe.cand[rc]);
                probe.ncand = 0;
                rc = 0;
            }
        }
    }
    free(probe.cand);
    free(cnt);
    return rc < 0 ? rc : 0;
}

/* The progress line: simulations run so far in this search (how many it
 * will take is not known before it ends). */
static void on_progress(int ndone, int ntasks, void *ctx)
{
    (void)ntasks;
    const struct search *s = ctx;
    gs_progress_count(s->pr, (double)(s->runs + ndone), 0, "runs");
}

static int search_run(struct search *s, int jobs, struct gs_diag *d)
{
    int rc = validate_space(s, d);
    if (rc == 0)
        rc = make_combos(s, d);
    if (rc < 0)
        return rc;
    s->lenient = 1;
    const struct gs_plancfg *pc = s->pc;
    size_t cap = (size_t)s->ncombo * (size_t)pc->seeds;
    s->tcand = calloc(cap, sizeof *s->tcand);
    s->tseed = calloc(cap, sizeof *s->tseed);
    double *res = NULL;
    if (!s->tcand || !s->tseed)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    for (;;) {
        s->ntask = 0;
        for (int i = 0; i < s->ncombo; i++) {
            struct combo *c = &s->combo[i];
            if (c->state != K_TOP && c->state != K_BISECT)
                continue;
            if (c->cur >= 0) {          /* the rest of its seeds */
                struct cand *x = &s->cand[c->cur];
                add_tasks(s, c->cur, x->nrun, pc->seeds);
                continue;
            }
            int idx = c->state == K_TOP ? c->H : (c->L + c->H) / 2;
            if ((rc = new_cand(s, i, pc->ncounts ? idx : -1, d)) < 0)
                goto done;
            if (s->cand[rc].status == C_INVALID) {
                advance(s, i, &s->cand[rc]);
                i--;                    /* its next candidate, this round */
                continue;
            }
            add_tasks(s, rc, 0, pc->min_seeds);
        }
        if (s->ntask == 0)
            break;
        s->npb = 0;
        for (int t = 0; t < s->ntask; t++)
            if (s->cand[s->tcand[t]].sc->npools > s->npb)
                s->npb = s->cand[s->tcand[t]].sc->npools;
        size_t nout = (size_t)s->nm + 2 * (size_t)s->npb;
        free(res);
        if ((res = calloc((size_t)s->ntask * nout, sizeof *res)) == NULL) {
            rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
            goto done;
        }
        gs_dist_progress(s->pr ? on_progress : NULL, s);
        rc = gs_dist_run(s->ntask, jobs, (int)nout, run_task, s, res, d);
        gs_dist_progress(NULL, NULL);
        if (rc < 0)
            goto done;
        s->runs += s->ntask;
        for (int t = 0; t < s->ntask; t++) {
            struct cand *x = &s->cand[s->tcand[t]];
            const double *r = &res[(size_t)t * nout];
            memcpy(&x->v[(size_t)s->tseed[t] * s->nm], r,
                   (size_t)s->nm * sizeof *res);
            size_t np = (size_t)x->sc->npools;
            if (x->booted == NULL && np > 0 &&
                (x->booted = calloc((size_t)s->pc->seeds * np * 2,
                                    sizeof *x->booted)) == NULL) {
                rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
                goto done;
            }
            if (np > 0)
                memcpy(&x->booted[(size_t)s->tseed[t] * np * 2], r + s->nm,
                       np * 2 * sizeof *res);
        }
        for (int t = 0; t < s->ntask; t++) {
            int ci = s->tcand[t];
            struct cand *x = &s->cand[ci];
            if (t + 1 < s->ntask && s->tcand[t + 1] == ci)
                continue;               /* the candidate's last task */
            x->nrun = s->tseed[t] + 1;
            if (judge(s, x)) {
                if (x->status == C_STOPPED)
                    s->stopped++;
                advance(s, x->combo, x);
            }
        }
        prune(s);
    }
    rc = 0;
done:
    free(res);
    return rc;
}

static void search_free(struct search *s)
{
    free(s->att);
    for (int j = 0; s->svc_sla && j < s->base->nsvcs; j++)
        free(s->svc_sla[j]);
    free(s->svc_sla);
    for (int i = 0; i < s->ncand; i++)
        free_cand(&s->cand[i]);
    free(s->cand);
    for (int i = 0; s->combo && i < s->ncombo; i++) {
        free(s->combo[i].ax);
        free(s->combo[i].cnt);
    }
    free(s->combo);
    free(s->tcand);
    free(s->tseed);
}

/* --- output ------------------------------------------------------------ */

static const char *const market_label[GS_NMARKETS] = {
    "on-demand", "reserved", "spot", "capacity-block",
};

/* The candidate's pools; an autoscaled one at its most nodes, then the
 * nodes it booted (billed) over the seeds run: the mean of the runs' time
 * averages and the most at once in any run -- what its cost is for. */
static void print_fleet(FILE *fp, const struct cand *x)
{
    const struct gs_scenario *sc = x->sc;
    for (int p = 0; p < sc->npools; p++) {
        const struct gs_pool_spec *ps = &sc->pools[p];
        if (ps->nodes == 0)
            continue;
        int as = sc->cloud.pool && sc->cloud.pool[p].autoscale;
        fprintf(fp, "    pool %-14s %4d nodes x %d %-12s %-14s $%.2f/node-hour"
                "%s\n", ps->name, ps->nodes, ps->gpn,
                sc->cat.m[ps->model].name, market_label[ps->market],
                ps->price_hour, as ? " (autoscaled: at most)" : "");
        if (!as || x->booted == NULL || x->nrun < 1)
            continue;
        double mean = 0, peak = 0;
        for (int k = 0; k < x->nrun; k++) {
            const double *b = &x->booted[((size_t)k * sc->npools + p) * 2];
            mean += b[0] / x->nrun;
            if (b[1] > peak)
                peak = b[1];
        }
        fprintf(fp, "         booted %.1f nodes on average, %.0f at most "
                "(over %d seed%s; the cost is for these)\n", mean, peak,
                x->nrun, x->nrun == 1 ? "" : "s");
    }
    fprintf(fp, "    policy %s, placement %s\n", sc->policy, sc->placer);
}

static void cell(char *buf, size_t n, double mean, double half)
{
    if (isnan(half))
        snprintf(buf, n, "%.6g", mean);
    else
        snprintf(buf, n, "%.6g ± %.3g", mean, half);
}

static void print_targets(FILE *fp, const struct search *s,
                          const struct cand *x)
{
    fprintf(fp, "  targets (95%% interval over %d seeds; the unfavourable "
            "end must meet the target):\n", x->nrun);
    for (int i = 0; i < s->pc->ntargets; i++) {
        const struct gs_plan_target *t = &s->pc->t[i];
        int m = metric(t->metric);
        char c[80];
        cell(c, sizeof c, x->mean[m], x->half[m]);
        double e = end_of(x, t, 1);
        fprintf(fp, "    %-28s %s %-10.6g %24s  -> %.6g %s\n", t->metric,
                t->upper ? "<=" : ">=", t->limit, c, e,
                meets(e, t) ? "met" : "MISSED");
    }
}

static void print_metrics(FILE *fp, const struct search *s,
                          const struct cand *x)
{
    fprintf(fp, "  every metric (mean ± 95%% half-width over %d seeds):\n",
            x->nrun);
    for (int m = 0; m < s->nm; m++) {
        char c[80];
        cell(c, sizeof c, x->mean[m], x->half[m]);
        fprintf(fp, "    %-34s %26s%s", gs_run_metric_name(m), c,
                m % 2 ? "\n" : "");
    }
    if (s->nm % 2)
        fputc('\n', fp);
}

/* A candidate's SLA attainment: the least of the jobs' (the share within
 * their wait limit and deadline) and each service's (the share of its
 * requests meeting every target), so a plan is only as good as its worst
 * class of work; *half is the interval of the one that is least. */
static double attain(const struct search *s, const struct cand *x,
                     double *half)
{
    double a = INFINITY, h = 0;
    for (int k = 0; k < s->natt; k++)
        if (x->mean[s->att[k]] < a) {
            a = x->mean[s->att[k]];
            h = x->half[s->att[k]];
        }
    if (half)
        *half = h;
    return a;
}

/* A service that states no SLA of its own is judged, request by request,
 * against the plan's percentile targets for it: its `sla` becomes those
 * limits (ttft, itl, e2e from the highest percentile given; the
 * least limit at equal percentiles), so its
 * attainment is the share of requests within them rather than the share
 * that merely finished. */
static char *plan_sla(const struct search *s, int j)
{
    static const char *const what[3] = { "ttft", "itl", "e2e" };
    double lim[3] = { NAN, NAN, NAN }, pct[3] = { 0, 0, 0 };
    char pre[120];
    int n = snprintf(pre, sizeof pre, "service.%.60s.", s->base->svcs[j].name);
    for (int t = 0; t < s->pc->ntargets; t++) {
        const struct gs_plan_target *g = &s->pc->t[t];
        if (strncmp(g->metric, pre, (size_t)n) != 0 || !g->upper)
            continue;
        for (int w = 0; w < 3; w++) {
            const char *m = g->metric + n;
            size_t lw = strlen(what[w]);
            if (strncmp(m, what[w], lw) != 0 || strncmp(m + lw, "_p", 2) != 0)
                continue;
            char *end;
            double q = strtod(m + lw + 2, &end);
            if (end == m + lw + 2 || strcmp(end, "_s") != 0)
                continue;
            if (isnan(lim[w]) || q > pct[w] ||
                (q == pct[w] && g->limit < lim[w])) {
                lim[w] = g->limit;
                pct[w] = q;
            }
        }
    }
    char buf[256] = "";
    for (int w = 0; w < 3; w++)
        if (!isnan(lim[w]))
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
                     "%s\"%s\": %.17g", buf[0] ? ", " : "", what[w], lim[w]);
    if (buf[0] == '\0')
        return NULL;
    for (int w = 0; w < 2; w++)
        if (pct[w] > 0)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
                     ", \"%s_percentile\": %.17g", what[w], pct[w]);
    char *out = malloc(strlen(buf) + 3);
    GS_OOM_IF(out == NULL);
    sprintf(out, "{%s}", buf);
    return out;
}

static void attain_bind(struct search *s)
{
    int n = s->base->nsvcs;
    s->att = malloc((size_t)(n + 1) * sizeof *s->att);
    s->svc_sla = calloc((size_t)n + 1, sizeof *s->svc_sla);
    GS_OOM_IF(s->att == NULL || s->svc_sla == NULL);
    s->att[s->natt++] = metric("attainment");
    for (int i = 0; i < n; i++) {
        char name[160];
        snprintf(name, sizeof name, "service.%.60s.sla_attainment",
                 s->base->svcs[i].name);
        int m = gs_run_metric_index(name);
        if (m >= 0)
            s->att[s->natt++] = m;
        snprintf(name, sizeof name, "services[%d].sla", i);
        if (!gs_json_has(s->base->text, name))
            s->svc_sla[i] = plan_sla(s, i);
    }
}

/* The Pareto front of (cost per hour, attainment) over the candidates that
 * ran all seeds: sorted by cost, each strictly better in attainment than
 * every cheaper one.  Fills idx; returns the count. */
static int pareto(const struct search *s, int *idx)
{
    int n = 0;
    int *ord = malloc((size_t)s->ncand * sizeof *ord + 1);
    GS_OOM_IF(ord == NULL);
    for (int i = 0; i < s->ncand; i++)
        if (s->cand[i].nrun > 0)
            ord[n++] = i;
    /* insertion sort by (cost, -attainment, index): small n */
    for (int i = 1; i < n; i++) {
        int v = ord[i], j = i - 1;
        const struct cand *a = &s->cand[v];
        while (j >= 0) {
            const struct cand *b = &s->cand[ord[j]];
            int after = b->cost_h > a->cost_h ||
                        (b->cost_h == a->cost_h &&
                         attain(s, b, NULL) < attain(s, a, NULL));
            if (!after)
                break;
            ord[j + 1] = ord[j];
            j--;
        }
        ord[j + 1] = v;
    }
    int k = 0;
    double best = -INFINITY;
    for (int i = 0; i < n; i++) {
        const struct cand *x = &s->cand[ord[i]];
        double a = attain(s, x, NULL);
        if (a > best + 1e-12) {
            idx[k++] = ord[i];
            best = a;
        }
    }
    free(ord);
    return k;
}

static void print_front(FILE *fp, const struct search *s, const int *fr,
                        int nf, double hpm)
{
    fprintf(fp, "\nPareto front, cost against SLA attainment (the least of "
            "the share of jobs within their wait limit and deadline%s), over "
            "every candidate tried:\n", s->natt > 1 ? " and each service's "
            "share of requests meeting its targets" : "");
    fprintf(fp, "  %12s %12s %22s %-15s %s\n", "$/hour", "$/month",
            "attainment", "status", "candidate");
    for (int i = 0; i < nf; i++) {
        const struct cand *x = &s->cand[fr[i]];
        char c[80];
        double h, a = attain(s, x, &h);
        cell(c, sizeof c, a, h);
        fprintf(fp, "  %12.2f %12.0f %22s %-15s %s\n", x->cost_h,
                x->cost_h * hpm, c, cstatus[x->status], x->label);
    }
}

struct ev { gs_time t; double g; int tier; };

static int ev_cmp(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->g > y->g) - (x->g < y->g);
}

/* The smallest catalog GPU with at least need_gb of memory, or -1. */
static int smallest_gpu(const struct gs_scenario *sc, double need_gb)
{
    int bm = -1;
    for (int m = 0; m < sc->cat.n; m++)
        if (sc->cat.m[m].mem_gb >= need_gb &&
            (bm < 0 || sc->cat.m[m].mem_gb < sc->cat.m[bm].mem_gb))
            bm = m;
    return bm;
}

/* The smallest MIG profile over the known MIG GPUs with need_gb of memory
 * and frac of the compute slices; *on names its GPU. */
static const struct gs_mig_profile *smallest_mig(double need_gb, double frac,
                                                 const struct gs_mig_gpu **on)
{
    const struct gs_mig_profile *bp = NULL;
    for (int g = 0; gs_mig_gpu_at(g); g++) {
        const struct gs_mig_gpu *mg = gs_mig_gpu_at(g);
        const struct gs_mig_profile *p = gs_mig_smallest_fit(mg, need_gb, frac);
        if (p && (bp == NULL || p->mem_gb < bp->mem_gb ||
                  (p->mem_gb == bp->mem_gb &&
                   p->compute_slices < bp->compute_slices))) {
            bp = p;
            *on = mg;
        }
    }
    return bp;
}

/* Right-sizing per service, from the same run's /services samples: the
 * replicas it used, its GPUs' utilization (DCGM_FI_DEV_GPU_UTIL), and the
 * peak memory per replica GPU (weights + KV blocks in use,
 * DCGM_FI_DEV_FB_USED; the peak of the mean over serving replicas).  The
 * fit is the smallest GPU with that memory + 20% at the service's TP; for a
 * one-GPU replica also the smallest MIG profile with that memory and at
 * least the peak utilization's share of the compute slices (a slice that
 * was busy u of the time on a whole GPU needs about u of its SMs). */
static void rightsize_services(FILE *fp, const struct gs_scenario *sc,
                               const struct gs_sim *sim)
{
    int nsv = gs_sim_nservices(sim);
    if (nsv == 0)
        return;
    fprintf(fp, "\nright-sizing per service (same run; memory per replica "
            "GPU = weights + KV in use, peak; fit = smallest GPU, or MIG "
            "profile for a one-GPU replica, with the peak memory + 20%%):\n");
    fprintf(fp, "  %-12s %4s %13s %9s %9s %12s  %s\n", "service", "TP",
            "replicas mean", "util mean", "util peak", "peak mem/GPU",
            "fits");
    for (int i = 0; i < nsv && i < sc->nsvcs; i++) {
        const struct gs_svcsum *v = gs_sim_service(sim, i);
        const struct gs_svcpool *pl = &sc->svcs[i].pool[0];
        long ns = 0;
        const double *t = NULL;
        const double *row = gs_sim_service_series(sim, i, &ns, &t);
        double fb = 0, usum = 0, upk = 0;
        long nup = 0;
        for (long r = 0; row && r < ns; r++) {
            const double *x = row + r * GS_NSVCOLS;
            if (x[GS_SVC_REPLICAS] <= 0)
                continue;
            nup++;
            usum += x[GS_SVC_GPU_UTIL];
            if (x[GS_SVC_GPU_UTIL] > upk)
                upk = x[GS_SVC_GPU_UTIL];
            if (x[GS_SVC_FB_USED] > fb)
                fb = x[GS_SVC_FB_USED];
        }
        char rep[40], um[16] = "-", up[16] = "-", mem[32] = "-",
             fit[160] = "(no samples: set sample_step)";
        snprintf(rep, sizeof rep, "%.2f (max %.0f)", v->replicas_mean,
                 v->replicas_max);
        if (nup > 0) {
            double need = fb * 1.2 * 1048576.0 / 1e9;   /* MiB -> GB */
            int bm = smallest_gpu(sc, need);
            snprintf(um, sizeof um, "%.1f%%", usum / (double)nup);
            snprintf(up, sizeof up, "%.1f%%", upk);
            snprintf(mem, sizeof mem, "%.1f GB", fb * 1048576.0 / 1e9);
            snprintf(fit, sizeof fit, "%s", bm >= 0 ? sc->cat.m[bm].name
                                                    : "no single GPU");
            const struct gs_mig_gpu *on = NULL;
            const struct gs_mig_profile *p =
                pl->tp == 1 ? smallest_mig(need, upk / 100.0, &on) : NULL;
            if (p)
                snprintf(fit + strlen(fit), sizeof fit - strlen(fit),
                         "; MIG %s on %s", p->name, on->name);
        }
        fprintf(fp, "  %-12s %4d %13s %9s %9s %12s  %s\n", sc->svcs[i].name,
                pl->tp, rep, um, up, mem, fit);
    }
}

/* Right-sizing: per tier, from one run of sc (the first seed) and its
 * workload. */
static int rightsize(FILE *fp, const struct gs_scenario *sc,
                     struct gs_diag *d)
{
    double peak_mem[GS_NTIERS] = { 0 }, max_frac[GS_NTIERS] = { 0 };
    int max_gpus[GS_NTIERS] = { 0 };
    struct gs_source src;
    int rc = gs_source_open(sc, sc->seed, &src, d);
    if (rc < 0)
        return rc;
    struct gs_jobspec sp;
    while ((rc = gs_source_next(&src, &sp, d)) == 1) {
        int t = sp.tier;
        if (t < 0 || t >= GS_NTIERS)
            continue;
        if (sp.mem_gb > peak_mem[t])
            peak_mem[t] = sp.mem_gb;
        if (sp.gpus > max_gpus[t])
            max_gpus[t] = sp.gpus;
        double f = sp.gpus > 0 ? 1.0 : sp.milli / 1000.0;
        if (f > max_frac[t])
            max_frac[t] = f;
    }
    gs_source_close(&src);
    if (rc < 0)
        return rc;
    struct gs_sim_opts o = { .seed = sc->seed, .set_seed = 1 };
    struct gs_sim *sim = NULL;
    if ((rc = gs_sim_new(sc, &o, &sim, d)) < 0 ||
        (rc = gs_sim_run(sim, d)) < 0) {
        gs_sim_free(sim);
        return rc;
    }
    long n;
    const struct gs_jobrec *r = gs_sim_records(sim, &n);
    const struct gs_summary *su = gs_sim_summary(sim);
    /* peak concurrent GPUs per tier: +gpus at start, -gpus at end */
    struct ev *ev = malloc((size_t)(2 * n + 1) * sizeof *ev);
    if (ev == NULL) {
        gs_sim_free(sim);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    long ne = 0;
    double used[GS_NTIERS] = { 0 };
    for (long i = 0; i < n; i++) {
        if (r[i].tier >= GS_NTIERS)
            continue;
        used[r[i].tier] += r[i].gpu_hours;
        if (r[i].start < 0)
            continue;
        ev[ne++] = (struct ev){ r[i].start, r[i].gpus, r[i].tier };
        gs_time end = r[i].end >= 0 ? r[i].end
                                    : (gs_time)(su->end_s * 1000.0);
        ev[ne++] = (struct ev){ end, -(double)r[i].gpus, r[i].tier };
    }
    /* by time, ends before starts at equal times (the peak does not
     * depend on the order of equal keys) */
    qsort(ev, (size_t)ne, sizeof *ev, ev_cmp);
    double cur[GS_NTIERS] = { 0 }, peak[GS_NTIERS] = { 0 };
    for (long i = 0; i < ne; i++) {
        cur[ev[i].tier] += ev[i].g;
        if (cur[ev[i].tier] > peak[ev[i].tier])
            peak[ev[i].tier] = cur[ev[i].tier];
    }
    free(ev);
    fprintf(fp, "\nright-sizing per tier (one run of the plan, seed %llu; "
            "fit = smallest GPU model or MIG profile with the peak memory "
            "+ 20%%):\n", (unsigned long long)sc->seed);
    fprintf(fp, "  %-12s %8s %9s %9s %9s %12s  %s\n", "tier", "jobs",
            "peak GPUs", "mean GPUs", "mean/peak", "peak mem/GPU", "fits");
    for (int t = 0; t < GS_NTIERS; t++) {
        if (su->tier[t].jobs == 0)
            continue;
        double mean = su->span_h > 0 ? used[t] / su->span_h : 0;
        char fit[160] = "";
        if (peak_mem[t] > 0) {
            double need = peak_mem[t] * 1.2;
            int bm = smallest_gpu(sc, need);
            snprintf(fit, sizeof fit, "%s", bm >= 0 ? sc->cat.m[bm].name
                                                    : "no single GPU");
            const struct gs_mig_gpu *bg = NULL;
            const struct gs_mig_profile *bp =
                max_gpus[t] <= 1 ? smallest_mig(need, max_frac[t], &bg) : NULL;
            if (bp)
                snprintf(fit + strlen(fit), sizeof fit - strlen(fit),
                         "; MIG %s on %s", bp->name, bg->name);
        } else {
            snprintf(fit, sizeof fit, "(memory not stated by the workload)");
        }
        char mem[32];
        snprintf(mem, sizeof mem, peak_mem[t] > 0 ? "%.1f GB" : "-",
                 peak_mem[t]);
        fprintf(fp, "  %-12s %8ld %9.1f %9.2f %9.3f %12s  %s\n",
                gs_tier_name(t), su->tier[t].jobs, peak[t], mean,
                peak[t] > 0 ? mean / peak[t] : 0, mem, fit);
    }
    rightsize_services(fp, sc, sim);
    gs_sim_free(sim);
    return 0;
}

/* DIR/NAME opened for writing, the name built in memory (never cut). */
static FILE *plot_file(const char *dir, const char *name)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        return NULL;
    FILE *fp = fopen(path, "w");
    free(path);
    return fp;
}

/* The front's plot: DIR/candidates.dat, DIR/front.dat and DIR/front.gp,
 * drawn by gnuplot.  front.gp is constant text: the folder reaches it as
 * an argument (gnuplot -c front.gp /ABSOLUTE/DIR, see io/gnuplot.h), never
 * pasted into its code, and without one it reads the current folder, so
 * `cd DIR && gnuplot front.gp` redraws it too. */
static int plot_front(const char *dir, const struct search *s, const int *fr,
                      int nf, int chosen)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return -1;
    FILE *fp = plot_file(dir, "candidates.dat");
    if (fp == NULL)
        return -1;
    fprintf(fp, "# cost_per_hour_usd attainment attainment_half feasible\n");
    for (int i = 0; i < s->ncand; i++) {
        const struct cand *x = &s->cand[i];
        double h, a = attain(s, x, &h);
        if (x->nrun > 0)
            fprintf(fp, "%.6f %.6f %.6f %d\n", x->cost_h, a,
                    isnan(h) ? 0 : h, x->status == C_FEASIBLE);
    }
    fclose(fp);
    if ((fp = plot_file(dir, "front.dat")) == NULL)
        return -1;
    fprintf(fp, "# cost_per_hour_usd attainment (Pareto front)\n");
    for (int i = 0; i < nf; i++)
        fprintf(fp, "%.6f %.6f\n", s->cand[fr[i]].cost_h,
                attain(s, &s->cand[fr[i]], NULL));
    fclose(fp);
    if ((fp = plot_file(dir, "front.gp")) == NULL)
        return -1;
    fprintf(fp, "# gpusim plan's front: gnuplot -c front.gp /ABSOLUTE/DIR, or "
            "in DIR: gnuplot front.gp\n"
            "d = ARGC >= 1 ? ARG1 : '.'\n"
            "set terminal pngcairo size 900,600\n"
            "set output d.'/front.png'\n"
            "set title 'gpusim plan: cost against SLA attainment'\n"
            "set xlabel 'cost, $ per hour'\nset ylabel 'SLA attainment'\n"
            "set key bottom right\nset grid\n"
            "plot d.'/candidates.dat' using 1:2:3 with yerrorbars pt 7 "
            "ps 0.6 title 'candidates (95%% CI)', \\\n"
            "     d.'/front.dat' using 1:2 with steps lw 2 title 'Pareto "
            "front'");
    if (chosen >= 0)
        fprintf(fp, ", \\\n     '-' using 1:2 with points pt 5 ps 1.5 "
                "title 'cheapest feasible'\n%.6f %.6f\ne\n",
                s->cand[chosen].cost_h, attain(s, &s->cand[chosen], NULL));
    else
        fputc('\n', fp);
    if (fclose(fp) != 0)
        return -1;
    char *adir = gs_gnuplot_path(dir), *script = NULL;
    int rc = -1;
    if (adir && asprintf(&script, "%s/front.gp", adir) >= 0) {
        const char *args[] = { adir };
        rc = gs_gnuplot_run(script, args, 1) == 0 ? 0 : -1;
        free(script);
    }
    free(adir);
    return rc;
}

static int write_h5(const char *out, const struct search *s, const int *fr,
                    int nf, int chosen, int near, const double *gcost,
                    const char *const *glabel, const double *gfac, int ng,
                    struct gs_diag *d)
{
    int nc = s->ncand, nm = s->nm, ns = s->pc->seeds, nt = s->pc->ntargets;
    const char **labels = calloc((size_t)nc + 1, sizeof *labels);
    const char **status = calloc((size_t)nc + 1, sizeof *status);
    const char **names = calloc((size_t)nm, sizeof *names);
    const char **tnames = calloc((size_t)nt + 1, sizeof *tnames);
    double *vals = calloc((size_t)nc * ns * nm + 1, sizeof *vals);
    double *mean = calloc((size_t)nc * nm + 1, sizeof *mean);
    double *half = calloc((size_t)nc * nm + 1, sizeof *half);
    double *seeds = calloc((size_t)nc + 1, sizeof *seeds);
    double *cost = calloc((size_t)nc + 1, sizeof *cost);
    double *att = calloc((size_t)nc + 1, sizeof *att);
    double *tl = calloc((size_t)nt + 1, sizeof *tl);
    double *tu = calloc((size_t)nt + 1, sizeof *tu);
    double *fidx = calloc((size_t)nf + 1, sizeof *fidx);
    int rc;
    if (!labels || !status || !names || !tnames || !vals || !mean || !half ||
        !seeds || !cost || !att || !tl || !tu || !fidx) {
        rc = gs_diag_set(d, GS_ENOMEM, out, "out of memory");
        goto done;
    }
    for (int i = 0; i < nc; i++) {
        const struct cand *x = &s->cand[i];
        labels[i] = x->label;
        status[i] = cstatus[x->status];
        seeds[i] = x->nrun;
        cost[i] = x->cost_h;
        att[i] = x->nrun > 0 ? attain(s, x, NULL) : NAN;
        for (size_t k = 0; k < (size_t)ns * nm; k++)
            vals[(size_t)i * ns * nm + k] = k < (size_t)x->nrun * nm
                                                ? x->v[k] : NAN;
        memcpy(&mean[(size_t)i * nm], x->mean, (size_t)nm * sizeof *mean);
        memcpy(&half[(size_t)i * nm], x->half, (size_t)nm * sizeof *half);
    }
    for (int m = 0; m < nm; m++)
        names[m] = gs_run_metric_name(m);
    for (int t = 0; t < nt; t++) {
        tnames[t] = s->pc->t[t].metric;
        tl[t] = s->pc->t[t].limit;
        tu[t] = s->pc->t[t].upper;
    }
    for (int i = 0; i < nf; i++)
        fidx[i] = fr[i];
    double pick[2] = { chosen, near };
    struct gs_h5_ds ds[] = {
        { "plan/metrics", GS_H5_STRING, 1, { nm }, names, "metric names, "
          "index M" },
        { "plan/targets/metric", GS_H5_STRING, 1, { nt }, tnames, NULL },
        { "plan/targets/limit", GS_H5_DOUBLE, 1, { nt }, tl, NULL },
        { "plan/targets/upper", GS_H5_DOUBLE, 1, { nt }, tu, "1: the metric "
          "must be <= limit; 0: >= limit" },
        { "plan/candidates/label", GS_H5_STRING, 1, { nc }, labels,
          "each candidate tried, in the order tried" },
        { "plan/candidates/status", GS_H5_STRING, 1, { nc }, status, NULL },
        { "plan/candidates/seeds_run", GS_H5_DOUBLE, 1, { nc }, seeds, NULL },
        { "plan/candidates/cost_per_hour_usd", GS_H5_DOUBLE, 1, { nc }, cost,
          "mean over its seeds" },
        { "plan/candidates/attainment", GS_H5_DOUBLE, 1, { nc }, att,
          "SLA attainment, the Pareto front's axis: the least of the jobs' "
          "(1 - sla_share) and each service's sla_attainment, mean over its "
          "seeds" },
        { "plan/candidates/values", GS_H5_DOUBLE, 3, { nc, ns, nm }, vals,
          "[candidate, seed, metric]; NaN for seeds not run (stopped early)" },
        { "plan/candidates/mean", GS_H5_DOUBLE, 2, { nc, nm }, mean, NULL },
        { "plan/candidates/half", GS_H5_DOUBLE, 2, { nc, nm }, half,
          "95% Student t half-width of the mean" },
        { "plan/front", GS_H5_DOUBLE, 1, { nf }, fidx, "candidate indexes "
          "on the Pareto front of cost against attainment, by cost" },
        { "plan/chosen", GS_H5_DOUBLE, 1, { 2 }, pick, "[cheapest feasible "
          "candidate or -1, closest candidate when none is feasible or -1]" },
        { "plan/growth/factor", GS_H5_DOUBLE, 1, { ng }, gfac, NULL },
        { "plan/growth/cost_per_hour_usd", GS_H5_DOUBLE, 1, { ng }, gcost,
          "cheapest feasible plan at each load factor (NaN: none)" },
        { "plan/growth/plan", GS_H5_STRING, 1, { ng }, glabel, NULL },
    };
    int nds = (int)(sizeof ds / sizeof ds[0]);
    if (ng == 0)
        nds -= 3;
    rc = gs_h5_write_sets(out, "plan", s->base->name, s->base->text, ds, nds,
                          d);
done:
    free(labels);
    free(status);
    free(names);
    free(tnames);
    free(vals);
    free(mean);
    free(half);
    free(seeds);
    free(cost);
    free(att);
    free(tl);
    free(tu);
    free(fidx);
    return rc;
}

/* --- the command ------------------------------------------------------- */

static const char usage[] =
"usage: gpusim plan SCENARIO [options]\n"
"\n"
"Find the cheapest fleet in the scenario's `plan` section search space\n"
"whose targets hold at the 95% confidence level, in parallel processes\n"
"(and MPI ranks under mpirun or srun).  Prints the plan with cost per\n"
"hour and month and every metric with its interval, the Pareto front of\n"
"cost against SLA attainment, right-sizing advice per tier and per\n"
"service, and the plan at each --growth factor.  See docs/planning.md.\n"
"\n"
"options:\n"
"  -s, --seeds N     seeds per candidate (default: the plan's, else 5)\n"
"  --growth LIST     load factors to plan for too, e.g. 1.5,2,3\n"
"                    (every generated arrival rate is scaled: the\n"
"                    jobs' rate_per_hour, each service's request rate)\n"
"  -j, --jobs P      worker processes per rank (default: the CPUs; 1\n"
"                    under MPI)\n"
"  -o, --out FILE    the plan's HDF5 file, replaced if it exists (default:\n"
"                    the scenario file's name + -plan.h5, never replaced\n"
"                    without --force)\n"
"  -f, --force       replace the default plan file if it exists\n"
"  --plots DIR       folder for the Pareto plot (default: the scenario\n"
"                    file's name + -plan-plots)\n"
"  --no-plots        draw no plot\n"
"  --no-advice       skip the right-sizing run\n"
"  -q, --quiet       print nothing on stdout\n"
"\n"
"exit status: 0 a feasible plan found, 3 none feasible (the closest is\n"
"shown), 2 bad input or usage, 1 results not written\n";

static int usage_error(const char *fmt, const char *arg)
{
    if (gs_dist_leader()) {
        fprintf(stderr, "gpusim: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n(see 'gpusim help plan')\n");
    }
    return 2;
}

static void print_head(FILE *fp, const struct search *s)
{
    fprintf(fp, "gpusim plan  scenario %s  %d seeds per candidate (%llu..%llu, "
            "common to all), early stop after %d\n", s->base->name,
            s->pc->seeds, (unsigned long long)s->base->seed,
            (unsigned long long)(s->base->seed + (uint64_t)s->pc->seeds - 1),
            s->pc->min_seeds);
    fprintf(fp, "searched %d combination%s: %d candidates, %ld runs (%ld "
            "candidates stopped early, %ld combinations pruned as "
            "dominated)\n", s->ncombo, s->ncombo == 1 ? "" : "s", s->ncand,
            s->runs, s->stopped, s->pruned);
}

static int plan_main(int argc, char **argv);

static const struct option opts[] = {
    { "seeds", required_argument, NULL, 's' },
    { "jobs", required_argument, NULL, 'j' },
    { "growth", required_argument, NULL, 'g' },
    { "out", required_argument, NULL, 'o' },
    { "force", no_argument, NULL, 'f' },
    { "plots", required_argument, NULL, 'D' },
    { "no-plots", no_argument, NULL, 'n' },
    { "no-advice", no_argument, NULL, 'A' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* argv holds the arguments after "plan" (tests and the bench call it so). */
int gs_plan_main(int argc, char **argv)
{
    return gs_cli_named("plan", argc, argv, plan_main);
}

static int plan_main(int argc, char **argv)
{
    const char *file = NULL, *out = NULL, *plots = NULL, *glist = NULL;
    long jobs = gs_dist_default_jobs(), seeds = 0;
    int no_plots = 0, quiet = 0, no_advice = 0, force = 0, ch;
    optind = 0;             /* 0: a full restart (suggest.h) */
    opterr = 0;
    while ((ch = gs_cli_getopt(argc, argv, "+:s:j:o:fqh", opts, &file)) !=
           -1) {
        char *end;
        long v;
        switch (ch) {
        case GS_CLI_EXTRA:
            return usage_error("plan: more than one scenario: '%s'", optarg);
        case 's':
        case 'j':
            v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < (ch == 's' ? 2 : 1) ||
                v > 1000)
                return usage_error(ch == 's' ? "plan: --seeds takes a whole "
                                   "number from 2 to 1000, not '%s'"
                                   : "plan: --jobs takes a whole number "
                                   "from 1 to 1000, not '%s'", optarg);
            if (ch == 's')
                seeds = v;
            else
                jobs = v;
            break;
        case 'g': glist = optarg; break;
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'D': plots = optarg; break;
        case 'n': no_plots = 1; break;
        case 'A': no_advice = 1; break;
        case 'q': quiet = 1; break;
        case 'h':
            if (gs_dist_leader())
                fputs(usage, stdout);
            return 0;
        default:
            return gs_dist_leader()
                       ? gs_suggest_bad_option("plan", opts, argc, argv, ch)
                       : 2;
        }
    }
    if (plots && no_plots)
        return usage_error("%s", "plan: --plots and --no-plots contradict "
                           "each other; give one");
    if (file == NULL)
        return usage_error("%s", "plan: which scenario? (a JSON file with a "
                           "'plan' section)");
    struct gs_diag d = { 0 };
    struct gs_scenario *base = NULL;
    if (gs_load_scenario(file, &base, &d) < 0)
        return gs_report_diag(&d, 2);
    if (base->plan == NULL) {
        gs_diag_set(&d, GS_EINVAL, base->file, "no 'plan' section: nothing "
                    "to plan (docs/planning.md)");
        gs_scenario_free(base);
        return gs_report_diag(&d, 2);
    }
    /* The result file is named after the scenario file and never replaced
     * silently; the leader decides, before any run, for every rank. */
    char *defout = NULL, *defplots = NULL;
    if (plots == NULL) {
        defplots = gs_out_default_name(file, "-plan-plots");
        GS_OOM_IF(defplots == NULL);
        plots = defplots;
    }
    if (gs_dist_out_check(file, "-plan.h5", force, &out, &defout, &d) < 0) {
        if (gs_dist_leader())
            gs_report_diag(&d, 2);
        gs_scenario_free(base);
        free(defout);
        free(defplots);
        return 2;
    }
    gs_run_bind(base);
    struct gs_plancfg pc = *base->plan;    /* shallow: overrides only */
    if (seeds) {
        pc.seeds = (int)seeds;
        if (pc.min_seeds > pc.seeds)
            pc.min_seeds = pc.seeds;
    }
    if (glist) {
        char **g;
        int n = gs_split_values(glist, &g);
        int bad = n < 1 || n > 16;
        for (int k = 0; k < (n > 0 ? n : 0); k++) {
            char *end;
            double f = strtod(g[k], &end);
            if (*end != '\0' || !(f > 0 && f <= 1000))
                bad = 1;
            else if (k < 16)
                pc.growth[k] = f;
            free(g[k]);
        }
        if (n > 0)
            free(g);
        if (bad) {
            gs_scenario_free(base);
            free(defout);
            free(defplots);
            return usage_error("--growth wants up to 16 load factors in "
                               "(0, 1000] separated by commas, not '%s'",
                               glist);
        }
        pc.ngrowth = n;
    }
    if (pc.ngrowth > 0 && growth_check(base, &d) < 0) {
        gs_scenario_free(base);
        free(defout);
        free(defplots);
        return gs_report_diag(&d, 2);
    }
    struct gs_progress pr;
    gs_progress_init(&pr, "plan", quiet || !gs_dist_leader());
    struct search s = { .pc = &pc, .base = base, .growth = 1,
                        .nm = gs_run_nmetrics(), .pr = &pr };
    attain_bind(&s);
    /* spot clones are appended after the $.fleet entries */
    int nfleet = gs_json_count(base->text, "fleet");
    s.nfleet = nfleet;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = 0;
    if (search_run(&s, (int)jobs, &d) < 0) {
        gs_progress_end(&pr);
        status = gs_report_diag(&d, d.code == GS_EIO ? 1 : 2);
        search_free(&s);
        gs_scenario_free(base);
        free(defout);
        free(defplots);
        return status;
    }
    int chosen = best_feasible(&s);
    int near = chosen < 0 ? closest(&s) : -1;
    int *fr = calloc((size_t)s.ncand + 1, sizeof *fr);
    int nf = fr ? pareto(&s, fr) : 0;
    /* growth: the same search at each load factor */
    double gcost[16];
    char *glabel[16] = { 0 };
    char gline[16][4096];
    for (int g = 0; g < pc.ngrowth; g++) {
        struct search sg = { .pc = &pc, .base = base, .growth = pc.growth[g],
                             .nm = s.nm, .nfleet = nfleet, .pr = &pr };
        attain_bind(&sg);
        gcost[g] = NAN;
        if (search_run(&sg, (int)jobs, &d) < 0) {
            gs_progress_end(&pr);
            status = gs_report_diag(&d, d.code == GS_EIO ? 1 : 2);
            search_free(&sg);
            goto end;
        }
        int b = best_feasible(&sg);
        if (b >= 0) {
            gcost[g] = sg.cand[b].cost_h;
            glabel[g] = strdup(sg.cand[b].label);
            snprintf(gline[g], sizeof gline[g], "  x%-6g %10.2f %12.0f  %s "
                     "(%d candidates, %ld runs)\n", pc.growth[g],
                     gcost[g], gcost[g] * pc.hours_per_month,
                     sg.cand[b].label, sg.ncand, sg.runs);
        } else {
            int c = closest(&sg);
            glabel[g] = strdup("none feasible");
            snprintf(gline[g], sizeof gline[g], "  x%-6g %10s %12s  none "
                     "feasible; closest: %s\n", pc.growth[g], "-", "-",
                     c >= 0 ? sg.cand[c].label : "(none run)");
        }
        search_free(&sg);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    gs_progress_end(&pr);
    if (gs_dist_leader()) {
        FILE *fp = quiet ? NULL : stdout;
        if (fp) {
            print_head(fp, &s);
            const struct cand *x = &s.cand[chosen >= 0 ? chosen : near];
            if (chosen >= 0) {
                fprintf(fp, "\ncheapest feasible plan: %s\n", x->label);
            } else {
                fprintf(fp, "\nINFEASIBLE: no candidate in the search space "
                        "meets every target.\n");
                if (near >= 0)
                    fprintf(fp, "closest candidate (least relative miss of "
                            "its worst target, %.1f%%): %s\n",
                            100 * miss(&s, x), x->label);
            }
            if (chosen >= 0 || near >= 0) {
                print_fleet(fp, x);
                int im = metric("cost_per_hour_usd");
                char c[80];
                cell(c, sizeof c, x->mean[im], x->half[im]);
                fprintf(fp, "  cost: $%.2f per hour, $%.0f per month (%g h); "
                        "per hour %s\n", x->cost_h,
                        x->cost_h * pc.hours_per_month, pc.hours_per_month, c);
                print_targets(fp, &s, x);
                print_metrics(fp, &s, x);
            }
            print_front(fp, &s, fr, nf, pc.hours_per_month);
            if (pc.ngrowth) {
                fprintf(fp, "\nload growth (the same search with "
                        "every generated arrival rate scaled):\n  %-7s %10s %12s  %s\n",
                        "factor", "$/hour", "$/month", "plan");
                for (int g = 0; g < pc.ngrowth; g++)
                    fputs(gline[g], fp);
            }
            if (!no_advice && (chosen >= 0 || near >= 0) &&
                rightsize(fp, x->sc, &d) < 0) {
                fflush(fp);
                status = gs_report_diag(&d, 2);
                goto end;
            }
            fflush(fp);
        }
        if (write_h5(out, &s, fr, nf, chosen, near, gcost,
                     (const char *const *)glabel, pc.growth, pc.ngrowth,
                     &d) < 0) {
            status = gs_report_diag(&d, 1);
            goto end;
        }
        if (!no_plots) {
            if (plot_front(plots, &s, fr, nf, chosen) == 0)
                fprintf(stderr, "gpusim: Pareto plot in %s/front.png\n",
                        plots);
            else
                fprintf(stderr, "gpusim: could not draw the plot (gnuplot); "
                        "its data is in %s/\n", plots);
        }
        fprintf(stderr, "gpusim: plan searched in %.2f s (%d rank%s x %ld "
                "workers); results in %s\n",
                (double)(t1.tv_sec - t0.tv_sec) +
                    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
                gs_dist_size(), gs_dist_size() == 1 ? "" : "s", jobs, out);
    }
    if (status == 0 && chosen < 0)
        status = 3;
end:
    for (int g = 0; g < pc.ngrowth; g++)
        free(glabel[g]);
    free(fr);
    search_free(&s);
    gs_scenario_free(base);
    free(defout);
    free(defplots);
    return status;
}
