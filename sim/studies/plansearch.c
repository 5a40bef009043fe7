/* plansearch.c -- the search of `gpusim plan`: candidates built by editing
 * the scenario, judged on their seeds' intervals, combinations bisected
 * along their last count and pruned by cost (plan.c's essay tells how).
 *
 * A candidate is a scenario: the base scenario's text with the edits of
 * its axis values and counts (planjson.h), parsed and validated again.  Its
 * runs are gathered in rounds through gs_dist_run, and every decision is
 * taken on the gathered numbers in combination order, so the path and the
 * answer depend only on the inputs. */
#include "plan.h"
#include "planint.h"
#include "compare.h"
#include "mpirun.h"
#include "../base/steady.h"
#include "../setup/scenario.h"
#include "../setup/setup.h"
#include "sweep.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Combinations in work at once when pruning by cost (the objective is the
 * cost; any other starts them all at once): few, so that a plan
 * found early caps the ranges of those started after it; two, so that
 * two workers have a round's runs to share. */
#define PLAN_WINDOW 2

const char *const gs_plan_status[] = { "pending", "feasible", "infeasible",
                                       "stopped early", "cannot run",
                                       "undecided", "beyond physics" };

/* gs_run_metric_index is a binary search over the names sorted once per
 * gs_run_bind (sweep.c), so the search asks it at every decision; a memo
 * of its own (the sixth session's, when it walked every name) would only
 * add a linear scan. */
int gs_plan_metric(const char *name)
{
    int m = gs_run_metric_index(name);
    GS_ASSERT(m >= 0);
    return m;
}

/* The grid of the last searched pool: values lo, lo+step, ... <= hi. */
int gs_plan_grid_n(const struct gs_plan_count *k)
{
    return (k->hi - k->lo) / k->step + 1;
}

/* --- load growth ----------------------------------------------------- */

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
    x->ref = -2;
    x->label = cand_label(s, c, idx);
    x->v = calloc((size_t)s->pc->max_seeds * (size_t)s->nm, sizeof *x->v);
    x->mean = calloc((size_t)s->nm, sizeof *x->mean);
    x->half = calloc((size_t)s->nm, sizeof *x->half);
    x->cnt = calloc((size_t)s->pc->ncounts + 1, sizeof *x->cnt);
    for (int q = 0; x->cnt && q < s->pc->ncounts; q++)
        x->cnt[q] = q == s->pc->ncounts - 1
                        ? s->pc->counts[q].lo + idx * s->pc->counts[q].step
                        : c->cnt[q];
    if (!x->label || !x->v || !x->mean || !x->half || !x->cnt) {
        free(x->cnt);
        free(x->label);
        free(x->v);
        free(x->mean);
        free(x->half);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    x->lenf = 1;
    int rc = 0;
    if (c->top && idx == c->H) {    /* built to order the combinations */
        x->sc = c->top;
        c->top = NULL;
    } else {
        rc = gs_plan_cand_build(s, c, idx, 1, &x->sc, d);
    }
    if (rc < 0 && rc != GS_ENOMEM && s->lenient) {
        /* a smaller fleet the workload does not fit: infeasible, not an
         * input error (every axis value was validated up front) */
        x->status = C_INVALID;
        x->why = strdup(gs_diag_what(d));
        gs_diag_free(d);
        c->cur = s->ncand;
        return s->ncand++;
    }
    if (rc < 0) {
        gs_diag_reword(d, NULL, gs_strf("%s (candidate %s)", gs_diag_what(d),
                                        x->label));
        free(x->cnt);
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
        x->size += x->cnt[q];
    c->cur = s->ncand;
    return s->ncand++;
}

static void free_tails(struct cand *x, int seeds, int nst);

static void free_cand(struct cand *x, int seeds, int nst)
{
    free_tails(x, seeds, nst);
    free(x->label);
    free(x->why);
    gs_scenario_free(x->sc);
    free(x->v);
    free(x->mean);
    free(x->half);
    free(x->booted);
    free(x->warm);
    free(x->drain);
    free(x->prev);
    free(x->pmove);
    free(x->cnt);
}

/* Free x's tails (its verdict no longer needs them; nst targets a seed). */
static void free_tails(struct cand *x, int seeds, int nst)
{
    for (long i = 0; x->qt && i < (long)seeds * nst; i++)
        free(x->qt[i].v);
    free(x->qt);
    x->qt = NULL;
}

/* --- judging ------------------------------------------------------------ */

/* Steady state: each pooled percentile target's estimate is the quantile
 * of every seed's retained values pooled (gs_quantile_pooled, from the
 * tails the seeds sent), and its interval is sectioning over the seeds:
 * the seeds' own quantiles (x->v) are the sections, t over them, centred
 * on the pooled value (gs_quantile_reps; Asmussen & Glynn 2007, III.5a).
 * Not the mean of the seeds' quantiles: each seed's p99 sits on its few
 * values beyond it and is biased low on short runs, the pooled one much
 * less.  A seed whose values are missing (NaN) leaves the mean over
 * seeds in place. */
static void pooled_stats(const struct search *s, struct cand *x)
{
    struct gs_qtail *t = malloc(((size_t)x->nrun + 1) * sizeof *t);
    double *qr = malloc(((size_t)x->nrun + 1) * sizeof *qr);
    GS_OOM_IF(t == NULL || qr == NULL);
    x->inexact = 0;
    for (int j = 0; x->qt && j < s->nst; j++) {
        int m = s->st[j].metric, ok = gs_plan_steady_pooled(&s->st[j]);
        for (int k = 0; ok && k < x->nrun; k++) {
            const struct cand_tail *c = &x->qt[(size_t)k * s->nst + j];
            t[k] = (struct gs_qtail){ c->n, c->k, c->v };
            qr[k] = x->v[(size_t)k * s->nm + m];
            ok = !isnan(qr[k]);
        }
        double q, lo, hi;
        int rc = ok ? gs_quantile_pooled(t, x->nrun, s->st[j].p, &q, &lo,
                                         &hi) : -1;
        GS_OOM_IF(rc == GS_ENOMEM);
        if (rc < 0)
            continue;
        x->inexact |= rc == 0;
        struct gs_ci ci;
        gs_quantile_reps(lo, hi, qr, x->nrun, 0.95, &ci);
        x->mean[m] = ci.est;
        x->half[m] = ci.half;
    }
    free(t);
    free(qr);
}

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
    pooled_stats(s, x);
    x->cost_h = x->mean[gs_plan_metric("cost_per_hour_usd")];
    x->obj = x->cost_h;
    if (s->pc->objective == 1) {
        /* the fleet's cost per million output tokens, mean over seeds */
        double sum = 0;
        int ic = gs_plan_metric("cost_usd");
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
    } else if (s->pc->objective >= 2) {
        /* the energy model's rates, per hour of the run, over a month */
        static const char *const rate[] = { "power_mean_kw",
            "carbon_kg_per_hour", "energy_cost_usd_per_hour" };
        x->obj = 730 * x->mean[gs_plan_metric(rate[s->pc->objective - 2])];
    }
}

/* The unfavourable (worst = 1) or favourable end of target t's interval. */
double gs_plan_end_of(const struct cand *x, const struct gs_plan_target *t,
                     int worst)
{
    int m = gs_plan_metric(t->metric);
    double h = isnan(x->half[m]) ? 0 : x->half[m];
    int up = t->upper ? worst : !worst;
    return up ? x->mean[m] + h : x->mean[m] - h;
}

int gs_plan_meets(double v, const struct gs_plan_target *t)
{
    return t->upper ? v <= t->limit : v >= t->limit;
}

/* How far x's worst end misses its worst target, relative to the limit
 * (<= 0: meets them all). */
double gs_plan_miss(const struct search *s, const struct cand *x)
{
    double worst = -INFINITY;
    for (int i = 0; i < s->pc->ntargets; i++) {
        const struct gs_plan_target *t = &s->pc->t[i];
        double e = gs_plan_end_of(x, t, 1);
        double scale = fabs(t->limit) > 1e-9 ? fabs(t->limit) : 1;
        double r = (t->upper ? e - t->limit : t->limit - e) / scale;
        if (r > worst)
            worst = r;
    }
    return worst;
}

/* Where target t stands on x's interval: met (the unfavourable end meets
 * it), missed (even the favourable end misses it), inside the indifference
 * zone (the interval straddles the limit within limit +- zone), or open. */
int gs_plan_target_state(const struct search *s, const struct cand *x,
                         const struct gs_plan_target *t)
{
    if (gs_plan_meets(gs_plan_end_of(x, t, 1), t))
        return T_MET;
    if (!gs_plan_meets(gs_plan_end_of(x, t, 0), t))
        return T_MISSED;
    double z = s->pc->indifference * fabs(t->limit);
    double lo = fmin(gs_plan_end_of(x, t, 0), gs_plan_end_of(x, t, 1));
    double hi = fmax(gs_plan_end_of(x, t, 0), gs_plan_end_of(x, t, 1));
    return lo >= t->limit - z && hi <= t->limit + z ? T_ZONE : T_OPEN;
}

/* Steady state: x's runs are too short -- MSER-5's minimum sat at its
 * half-way limit on some seed where that decides the verdict (x->transient
 * set: the transient is not over; plansteady.c), its estimate moved since
 * the runs half as long, or some target's interval is wider than
 * plan.precision of its estimate (of its limit, when that is larger: a
 * share near 0, such as sla_violations 0.001 against 0.02, has no useful
 * relative width). */
static int wants_longer(const struct search *s, struct cand *x)
{
    int wide = 0;
    x->transient = 0;
    for (int j = 0; j < s->nst; j++) {
        int m = s->st[j].metric;
        double h = isnan(x->half[m]) ? 0 : x->half[m];
        double lim = fabs(s->pc->t[s->st[j].target].limit);
        wide |= !(h <= s->pc->precision * fmax(fabs(x->mean[m]), lim));
        /* a percentile's sectioning interval is valid when each section
         * (seed) holds GS_QUANTILE_TAIL values beyond the quantile
         * (steady.c): fewer is a run too short */
        double p = s->st[j].p, q = p < 0.5 ? p : 1 - p;
        int pooled = x->qt != NULL && gs_plan_steady_pooled(&s->st[j]);
        for (int k = 0; pooled && k < x->nrun; k++)
            wide |= (double)x->qt[(size_t)k * s->nst + j].n * q <
                    GS_QUANTILE_TAIL;
        x->transient |= gs_plan_target_transient(s, x, j);
    }
    return x->transient || wide;
}

int gs_plan_target_transient(const struct search *s, const struct cand *x,
                             int j)
{
    int flagged = 0;
    for (int k = 0; k < x->nrun; k++)
        flagged |= gs_plan_seed_transient(s, x, k, j);
    if (s->pc->max_length <= 1)
        return flagged;
    /* a slow drift MSER-5 cannot see inside one run (the whole run
     * transient) shows between lengths: the estimate moved by more than
     * this length's half-width since the runs half as long.  A first
     * length has nothing to compare with: it is confirmed by runs twice
     * as long (unless plan.max_length_factor is 1).  A move inside the
     * indifference zone cannot change a verdict and does not count.  A
     * whole-run estimate is settled by its moves bounding its bias on one
     * side of the target (plansteady.c: gs_plan_whole_settled). */
    int m = s->st[j].metric;
    double h = isnan(x->half[m]) ? 0 : x->half[m];
    double z = s->pc->indifference * fabs(s->pc->t[s->st[j].target].limit);
    if (s->st[j].what == GS_PLAN_SQ_WHOLE)
        return !gs_plan_whole_settled(s, x, j);
    return flagged || x->prev == NULL ||
           fabs(x->mean[m] - x->prev[j]) > fmax(h, z);
}

/* Steady state, at the cap: every target whose transient is flagged
 * only by its estimate's move has that move bounded by its moves
 * (plansteady.c: gs_plan_cap_bounded). */
static int cap_bounded(const struct search *s, const struct cand *x)
{
    for (int j = 0; j < s->nst; j++)
        if (gs_plan_target_transient(s, x, j) && !gs_plan_cap_bounded(s, x, j))
            return 0;
    return 1;
}

/* Steady state: a target x misses is estimated over the whole run (no
 * warm-up to delete: ITL, attainment, utilization, ...) and its estimate
 * has not settled (plansteady.c: gs_plan_whole_settled).  A run starts
 * from an empty fleet whose replicas are still loading, so a whole-run
 * estimate may be pessimistic as well as optimistic: such a miss is
 * confirmed on longer runs before it stands. */
static int miss_unsettled(const struct search *s, const struct cand *x)
{
    for (int j = 0; j < s->nst; j++) {
        const struct gs_plan_st *st = &s->st[j];
        const struct gs_plan_target *t = &s->pc->t[st->target];
        if (st->what == GS_PLAN_SQ_WHOLE &&
            gs_plan_target_state(s, x, t) == T_MISSED &&
            !gs_plan_whole_settled(s, x, j))
            return 1;
    }
    return 0;
}

/* The conditional power below which a straddling candidate stops
 * (plan.futility): the chance, were the mean of its seeds so far the true
 * one, that the cap's seeds would make it feasible. */
#define PLAN_FUTILITY 0.025

/* Futility by stochastic curtailment (Lan, Simon & Halperin 1982; Jennison
 * & Turnbull 2000, ch. 10): x has its plan.seeds, and some target's
 * interval straddles its limit.  At the cap of N seeds it is met when
 * m_N + h_N <= limit (an upper target), with h_N = t(N-1) sd / sqrt(N).
 * Given the n seeds run (mean m, spread sd recovered from the interval),
 * were m the true mean, m_N is normal about m with standard deviation
 * sd sqrt(N - n) / N (the N - n seeds to come).  When the chance that
 * m_N + h_N meets the limit is below PLAN_FUTILITY, the cap's seeds would
 * almost surely not make x feasible: it stops now, undecided.  The rule
 * only ever ends runs, and undecided claims nothing: it never makes a
 * candidate feasible, so the verdicts' soundness (feasible only when
 * every unfavourable end meets its target) is untouched -- a non-binding
 * futility boundary costs power, not error.  What it can cost is a
 * candidate that a lucky run of seeds would have made feasible at the
 * cap, reported undecided instead (and the search treats undecided as not
 * feasible, as at the cap).  Targets whose interval is 0 wide (the same
 * value every seed) are not projected. */
static int cap_cannot_decide(const struct search *s, const struct cand *x)
{
    int n = x->nrun, cap = s->pc->max_seeds;
    if (!s->pc->futility || n < 2 || n >= cap)
        return 0;
    double tn = gsl_cdf_tdist_Pinv(0.975, n - 1);
    double tc = gsl_cdf_tdist_Pinv(0.975, cap - 1);
    for (int i = 0; i < s->pc->ntargets; i++) {
        const struct gs_plan_target *t = &s->pc->t[i];
        if (gs_plan_target_state(s, x, t) != T_OPEN)
            continue;
        int m = gs_plan_metric(t->metric);
        double h = isnan(x->half[m]) ? 0 : x->half[m];
        if (!(h > 0))
            continue;
        double sd = h * sqrt((double)n) / tn;
        double hc = tc * sd / sqrt((double)cap);
        double se = sd * sqrt((double)(cap - n)) / cap;
        double room = t->upper ? t->limit - hc - x->mean[m]
                               : x->mean[m] - hc - t->limit;
        if (gsl_cdf_ugaussian_P(room / se) < PLAN_FUTILITY)
            return 1;
    }
    return 0;
}

/* Decide x after its runs: 1 if decided, 2 if its runs are to be
 * lengthened (steady state: see wants_longer), 0 if it runs more seeds.  Infeasible as soon as the
 * favourable end of some interval misses its target (before plan.seeds:
 * stopped early); feasible only when, after plan.seeds, the unfavourable
 * end of every interval meets its target; in between it runs more seeds,
 * until each open interval has settled on one side or inside the
 * indifference zone ("undecided"), or the cap is hit (undecided too: the
 * honest verdict). */
static int judge(const struct search *s, struct cand *x)
{
    cand_stats(s, x);
    int missed = 0, open = 0, zone = 0;
    for (int i = 0; i < s->pc->ntargets; i++) {
        int st = gs_plan_target_state(s, x, &s->pc->t[i]);
        missed |= st == T_MISSED;
        open |= st == T_OPEN;
        zone |= st == T_ZONE;
    }
    if (missed && x->lenf < s->pc->max_length && miss_unsettled(s, x))
        return 2;
    if (missed && s->pc->max_length > 1 && miss_unsettled(s, x)) {
        /* at the cap, a whole-run miss whose bias its moves do not bound
         * claims nothing, as a met verdict would not */
        x->status = C_UNDECIDED;
        x->at_cap = 1;
        x->transient = 1;
        return 1;
    }
    if (missed) {
        x->status = x->nrun < s->pc->seeds ? C_STOPPED : C_INFEASIBLE;
        return 1;
    }
    if (x->nrun < s->pc->seeds && !(s->nst == 0 && open &&
                                    cap_cannot_decide(s, x)))
        return 0;
    if (x->nrun < s->pc->seeds) {
        /* finite horizon, after plan.min_seeds: as a clear miss stops a
         * candidate early, so does a cap that would not meet a target
         * (a steady-state candidate is judged on its lengthened runs) */
        x->status = C_UNDECIDED;
        x->at_cap = 2;
        return 1;
    }
    if (s->nst > 0 && wants_longer(s, x) && x->lenf < s->pc->max_length)
        return 2;
    if (x->transient && cap_bounded(s, x)) {
        /* at the cap, an estimate that still moves asks for precision,
         * not for a verdict: its moves bound the bias left on one side
         * of every limit (plansteady.c: gs_plan_cap_bounded) */
        x->transient = 0;
        x->bounded = 1;
    }
    if (x->transient) {
        /* the runs are as long as the cap allows and their transient is
         * not over: the estimates are optimistic, and nothing is claimed */
        x->status = C_UNDECIDED;
        x->at_cap = 1;
        return 1;
    }
    if (!open) {
        x->status = zone ? C_UNDECIDED : C_FEASIBLE;
        return 1;
    }
    if (x->nrun >= s->pc->max_seeds || cap_cannot_decide(s, x)) {
        x->status = C_UNDECIDED;
        x->at_cap = x->nrun >= s->pc->max_seeds ? 1 : 2;
        return 1;
    }
    return 0;
}

/* The seeds x runs up to next: plan.seeds, then twice as many as it has,
 * up to the cap. */
static int more_seeds(const struct search *s, const struct cand *x)
{
    const struct gs_plancfg *pc = s->pc;
    if (x->nrun == 0)               /* its runs were lengthened */
        return pc->min_seeds;
    if (x->nrun < pc->seeds)
        return pc->seeds;
    return 2 * x->nrun < pc->max_seeds ? 2 * x->nrun : pc->max_seeds;
}

/* The planner's cost order: the objective (equal within a relative 1e-9,
 * as a fixed fleet's cost per hour is over runs of different spans), then
 * fewer GPUs, then smaller searched counts.  <0, 0 or >0. */
int gs_plan_cost_cmp(const struct cand *x, const struct cand *y)
{
    double tol = 1e-9 * (1 + fabs(x->obj));
    if (x->obj < y->obj - tol)
        return -1;
    if (x->obj > y->obj + tol)
        return 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    return (x->size > y->size) - (x->size < y->size);
}

/* Cheapest feasible candidate in the cost order (equals: the first
 * found). */
int gs_plan_best_feasible(const struct search *s)
{
    int b = -1;
    for (int i = 0; i < s->ncand; i++) {
        const struct cand *x = &s->cand[i];
        if (x->status != C_FEASIBLE)
            continue;
        if (b < 0 || gs_plan_cost_cmp(x, &s->cand[b]) < 0)
            b = i;
    }
    return b;
}

int gs_plan_closest(const struct search *s)
{
    int b = -1;
    double bm = INFINITY;
    for (int i = 0; i < s->ncand; i++) {
        double m = gs_plan_miss(s, &s->cand[i]);
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
/* "candidate LABEL, seed 43". */
static char *task_name(int t, void *ctx)
{
    const struct search *s = ctx;
    const struct cand *x = &s->cand[s->tcand[t]];
    return gs_strf("candidate %s, seed %llu", x->label,
                   (unsigned long long)(x->sc->seed + (uint64_t)s->tseed[t]));
}

/* A service that served none of the requests that arrived (no replica
 * could be placed: an A100 pool all on spot, where its tier may not run)
 * has no latency: its summary's percentiles over no request read 0, and
 * a TTFT target would be "met" by a fleet that serves nothing.  Every
 * request's latency lies beyond the run, so its latency metrics read
 * +inf, and a latency target misses. */
static void unserved_latency(const struct gs_scenario *sc, double *out)
{
    static const char *const lat[] = { "ttft", "itl", "e2e", "queue" };
    static const char *const stat[] = { "mean", "p50", "p95", "p99" };
    for (int j = 0; j < sc->nsvcs; j++) {
        char name[160];
        snprintf(name, sizeof name, "service.%.60s.requests_arrived",
                 sc->svcs[j].name);
        int ma = gs_run_metric_index(name);
        snprintf(name, sizeof name, "service.%.60s.requests_finished",
                 sc->svcs[j].name);
        int mf = gs_run_metric_index(name);
        if (ma < 0 || mf < 0 || !(out[ma] > 0) || out[mf] != 0)
            continue;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                snprintf(name, sizeof name, "service.%.60s.%s_%s_s",
                         sc->svcs[j].name, lat[a], stat[b]);
                int m = gs_run_metric_index(name);
                if (m >= 0)
                    out[m] = INFINITY;
            }
    }
}

static int run_task(int t, double *out, void *ctx, struct gs_diag *d)
{
    struct search *s = ctx;
    const struct cand *x = &s->cand[s->tcand[t]];
    struct gs_sim *sim = NULL;
    int rc = gs_plan_reuse_run(s, x, s->tseed[t], &sim, out, d);
    if (rc >= 0) {
        out[s->nout - 1] = rc;          /* 1: replayed (planreuse.c) */
        rc = 0;
        unserved_latency(x->sc, out);
        for (int p = 0; p < s->npb; p++) {
            double mean = 0, peak = 0;
            if (p < x->sc->npools)
                gs_sim_pool_nodes(sim, p, &mean, &peak);
            out[s->nm + 2 * p] = mean;
            out[s->nm + 2 * p + 1] = peak;
        }
        if (s->nst > 0)
            gs_plan_steady_apply(s, sim, out, out + s->nm + 2 * s->npb,
                                 out + s->nm + 2 * s->npb + s->nst,
                                 out + s->nm + 2 * s->npb + 2 * s->nst);
    }
    gs_sim_free(sim);
    return rc;
}

/* The rules ask seeds from..to-1 of candidate ci this round: it is
 * decided after the round, and the seeds it does not hold yet are run. */
static int add_tasks(struct search *s, int ci, int from, int to)
{
    struct cand *x = &s->cand[ci];
    s->rcand[s->nround] = ci;
    s->rto[s->nround++] = to;
    s->asked += to - from;
    for (int k = from; k < to; k++) {
        if (k < x->have) {
            s->ahead_used++;        /* run ahead in an earlier round */
            continue;
        }
        s->tcand[s->ntask] = ci;
        s->tseed[s->ntask++] = k;
    }
    return 0;
}

/* Runs ahead of need (issue 27).  A round ends when its last run does,
 * so when its runs do not fill every worker to the end -- 5 runs on 2
 * workers leave one idle for a run's time -- the idle workers run the
 * next seeds the rules may ask of the round's candidates: the 4th seed
 * of a new candidate (asked if its interval straddles a target after 3),
 * the 6th of one going to plan.seeds (asked if it still straddles), those
 * whose interval straddled before first.  A result run ahead is held by
 * its candidate (x->have) and read only when the rules ask for that seed;
 * one never asked for is dropped.  So the verdicts, the path, the run
 * count and every output are those of a search without it, whatever the
 * number of workers -- only the wall time moves (and the CPU of the runs
 * never asked for).  Not in a steady-state question, whose seeds send
 * their percentile tails sized by the round (tail_room). */
static void run_ahead(struct search *s, int workers)
{
    if (s->nst > 0 || workers < 2 || s->ntask == 0)
        return;
    int pad = (workers - s->ntask % workers) % workers;
    /* the seeds a deferred candidate will be asked for, if it is */
    for (int w = 0; w < s->nwait && pad > 0; w++) {
        struct cand *x = &s->cand[s->rwait[w]];
        for (int k = x->have; k < more_seeds(s, x) && pad > 0; k++) {
            s->tcand[s->ntask] = s->rwait[w];
            s->tseed[s->ntask++] = k;
            s->ahead++;
            pad--;
        }
    }
    for (int pass = 0; pass < 2 && pad > 0; pass++)
        for (int more = 1; more && pad > 0;) {
            more = 0;
            for (int r = 0; r < s->nround && pad > 0; r++) {
                struct cand *x = &s->cand[s->rcand[r]];
                /* pass 0: those that straddled before; pass 1: new ones */
                if ((x->nrun > 0) != (pass == 0))
                    continue;
                int k = s->rto[r] > x->have ? s->rto[r] : x->have;
                for (int t = 0; t < s->ntask; t++)
                    if (s->tcand[t] == s->rcand[r] && s->tseed[t] >= k)
                        k = s->tseed[t] + 1;
                if (k >= s->pc->max_seeds)
                    continue;
                s->tcand[s->ntask] = s->rcand[r];
                s->tseed[s->ntask++] = k;
                s->ahead++;
                pad--;
                more = 1;
            }
        }
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
        n *= gs_plan_grid_n(&pc->counts[q]);
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
            int g = gs_plan_grid_n(&pc->counts[q]);
            c->cnt[q] = pc->counts[q].lo + (int)(r % g) * pc->counts[q].step;
            r /= g;
        }
        for (int a = pc->naxes - 1; a >= 0; a--) {
            c->ax[a] = (int)(r % pc->ax[a].nvalues);
            r /= pc->ax[a].nvalues;
        }
        c->L = -1;
        c->H = pc->ncounts ? gs_plan_grid_n(&pc->counts[pc->ncounts - 1]) - 1 : 0;
        c->state = K_TOP;
        c->cur = -1;
        c->floor = malloc((size_t)(c->H + 1) * sizeof *c->floor);
        if (c->floor == NULL)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        for (int k = 0; k <= c->H; k++)
            c->floor[k] = NAN;
    }
    return gs_plan_order_combos(s, d);
}

/* The cost a candidate must not exceed to matter: the cheapest feasible
 * plan's (or an earlier pass's), or INFINITY -- always INFINITY when the
 * objective is not the cost, which the floor does not bound. */
static double gs_plan_best_cost(const struct search *s)
{
    if (s->pc->objective != 0)
        return INFINITY;
    int b = gs_plan_best_feasible(s);
    double best = b >= 0 ? s->cand[b].cost_h : INFINITY;
    return s->bound < best ? s->bound : best;
}

/* Drop what cannot beat the cheapest feasible plan known (none of it
 * with --exhaustive). */
static void prune(struct search *s)
{
    if (s->exhaustive)
        return;
    int b = gs_plan_best_feasible(s);
    double best = gs_plan_best_cost(s);
    /* A candidate running more seeds (its interval straddles a target)
     * that costs more than a plan known to be feasible cannot change the
     * answer: it stops, undecided, and so does its combination (a larger
     * count costs more still). */
    for (int i = 0; i < s->ncombo; i++) {
        struct combo *c = &s->combo[i];
        if ((c->state != K_TOP && c->state != K_BISECT) || c->cur < 0)
            continue;
        struct cand *x = &s->cand[c->cur];
        int ic = gs_plan_metric("cost_per_hour_usd");
        double h = isnan(x->half[ic]) ? 0 : x->half[ic];
        if (!(x->nrun >= s->pc->seeds &&
              ((b >= 0 && gs_plan_cost_cmp(x, &s->cand[b]) > 0) ||
               (s->pc->objective == 0 && x->cost_h > best * (1 + 1e-9)))) &&
            !(s->pc->objective == 0 && x->cost_h - h > best * (1 + 1e-9)))
            continue;
        x->status = C_UNDECIDED;
        x->dear = 1;
        s->undecided++;
        s->extended += x->nrun > s->pc->seeds;
        s->dear++;
        c->cur = -1;
        /* a smaller count may still be cheaper: the bisection goes on
         * below x as if x were feasible (whatever it is, it is dearer
         * than the plan known) */
        if (s->pc->ncounts == 0 || x->idx - c->L <= 1) {
            c->state = K_DONE;
        } else {
            c->state = K_BISECT;
            c->H = x->idx;
        }
    }
    /* A combination whose least count left already costs more, by its
     * floor, than the plan known: dominated (propose caps the rest). */
    for (int i = 0; isfinite(best) && s->pc->ncounts && i < s->ncombo; i++) {
        struct combo *c = &s->combo[i];
        if ((c->state == K_TOP || c->state == K_BISECT) && c->started &&
            c->cur < 0 &&
            gs_plan_cap_index(s, i, best, c->state == K_TOP ? c->H : c->H - 1) <=
                c->L) {
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
    int ok = x->status == C_FEASIBLE;
    if (s->pc->ncounts == 0) {
        c->state = ok ? K_DONE : K_INFEASIBLE;
        return;
    }
    if (!ok && c->capped) {
        /* not feasible at the dearest count that could still beat the
         * plan known: nor is any smaller count (feasibility is monotone
         * along the bisected count), and every larger one costs more */
        c->state = K_PRUNED;
        s->pruned++;
        return;
    }
    if (c->state == K_TOP && !ok && x->idx >= c->H) {
        c->state = K_INFEASIBLE;
        return;
    }
    if (ok) {
        c->state = K_BISECT;
        c->H = x->idx;
        if (c->L >= c->H)           /* a smaller fleet's miss said so */
            c->L = c->H - 1;
    } else if (x->idx > c->L) {
        c->L = x->idx;              /* a count below an untried top, too */
    }
    if (c->state == K_TOP && c->L >= c->H)
        c->state = K_INFEASIBLE;
    else if (c->state == K_BISECT && c->H - c->L <= 1)
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
                 (gs_plan_grid_n(&pc->counts[q]) - 1) * pc->counts[q].step;
    int top = pc->ncounts ? gs_plan_grid_n(&pc->counts[pc->ncounts - 1]) - 1 : -1;
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
                free_cand(&probe.cand[rc], 0, 0);
                probe.ncand = 0;
                rc = 0;
            }
        }
    }
    free(probe.cand);
    free(cnt);
    return rc < 0 ? rc : 0;
}

/* The runs the search may still take after this round's: each live
 * combination's bisection steps left, at plan.seeds each (an estimate that
 * early stops and pruning lower, and straddling intervals raise). */
static double rest_estimate(const struct search *s)
{
    double n = 0;
    for (int i = 0; i < s->ncombo; i++) {
        const struct combo *c = &s->combo[i];
        if (c->state != K_TOP && c->state != K_BISECT)
            continue;
        int w = c->H - c->L, steps = 0;
        while ((1 << steps) < w)
            steps++;
        n += (double)(steps + (c->state == K_TOP)) * s->pc->seeds;
    }
    return n;
}

/* The progress line: the runs done of those the search is expected to
 * take (the estimate is redone every round). */
static void on_progress(int ndone, int ntasks, void *ctx)
{
    const struct search *s = ctx;
    double done = (double)(s->runs + ndone);
    double total = (double)(s->runs + ntasks) + s->est_rest;
    gs_progress_count(s->pr, done, total, "runs");
}

/* Deferred seeds (issue 27): x straddles a target and the rules ask it
 * for more seeds (2 to 7 runs), while another candidate in work, cheaper
 * at its nodes' prices (x->nominal), straddles too.  The cheaper one's
 * seeds run first, and x's wait (its combination keeps its place in the
 * window): should the cheaper one turn out feasible, x costs more than a
 * feasible plan and stops undecided without them (prune), as it would
 * have after them.  Only the order of the runs moves: every verdict is
 * taken on the seeds the rules ask for.  Not with --exhaustive, nor when
 * the objective is not the cost. */
static int defers(const struct search *s, const struct cand *x)
{
    if (s->exhaustive || s->pc->objective != 0 || x->nrun == 0)
        return 0;
    for (int i = 0; i < s->ncombo; i++) {
        const struct combo *c = &s->combo[i];
        if ((c->state != K_TOP && c->state != K_BISECT) || c->cur < 0)
            continue;
        const struct cand *y = &s->cand[c->cur];
        if (y != x && y->nrun > 0 && y->nominal < x->nominal)
            return 1;
    }
    return 0;
}

/* The round's tasks: every live combination's next candidate (made now),
 * or the next seeds of the one it has in work.  0 or a negative code. */
static int propose(struct search *s, struct gs_diag *d)
{
    const struct gs_plancfg *pc = s->pc;
    double best = gs_plan_best_cost(s);
    int busy = 0;                   /* combinations in work this round */
    s->ntask = s->nround = s->nwait = 0;
    s->asked = 0;
    for (int o = 0; o < s->ncombo; o++) {
        int i = s->order[o];
        struct combo *c = &s->combo[i];
        if (c->state != K_TOP && c->state != K_BISECT)
            continue;
        if (c->cur >= 0) {          /* the rest of its seeds */
            struct cand *x = &s->cand[c->cur];
            busy++;
            if (defers(s, x)) {     /* a cheaper one straddles */
                s->rwait[s->nwait++] = c->cur;
                continue;
            }
            add_tasks(s, c->cur, x->nrun, more_seeds(s, x));
            continue;
        }
        if (!c->started && !s->exhaustive && pc->objective == 0 &&
            busy >= PLAN_WINDOW)
            break;                  /* it starts when one ends */
        int idx = c->state == K_TOP ? c->H : (c->L + c->H) / 2;
        c->capped = 0;
        if (!s->exhaustive && pc->ncounts && isfinite(best) &&
            (idx = gs_plan_next_idx(s, i, best)) < 0) {
            c->state = K_PRUNED;    /* every count left costs more */
            s->pruned++;
            continue;
        }
        c->started = 1;
        int rc = new_cand(s, i, pc->ncounts ? idx : -1, d);
        if (rc < 0)
            return rc;
        if (s->cand[rc].status == C_INVALID) {
            advance(s, i, &s->cand[rc]);
            o--;                    /* its next candidate, this round */
            continue;
        }
        /* a GPU on which the percentile prompt alone misses a TTFT target:
         * no count of it is feasible, and nothing is run */
        if (c->state == K_TOP && gs_plan_physics_stops(s, &s->cand[rc])) {
            s->cand[rc].status = C_PHYSICS;
            s->physics++;
            c->capped = 0;          /* no count: not only the dear ones */
            advance(s, i, &s->cand[rc]);
            continue;
        }
        add_tasks(s, rc, 0, pc->min_seeds);
        busy++;
    }
    return 0;
}

/* Store seed k's tails r (gs_plan_steady_apply's layout) in x.  0 or
 * GS_ENOMEM. */
static int gather_tails(const struct search *s, struct cand *x, int k,
                        const double *r)
{
    size_t nst = (size_t)s->nst;
    if (x->qt == NULL &&
        (x->qt = calloc((size_t)s->pc->max_seeds * nst, sizeof *x->qt)) == NULL)
        return GS_ENOMEM;
    for (size_t j = 0; j < nst; j++) {
        if (s->qk[j] == 0)
            continue;
        struct cand_tail *c = &x->qt[(size_t)k * nst + j];
        free(c->v);
        c->n = (long)r[0];
        c->k = (long)r[1];
        c->v = malloc(((size_t)c->k + 1) * sizeof *c->v);
        if (c->v == NULL)
            return GS_ENOMEM;
        memcpy(c->v, r + 2, (size_t)c->k * sizeof *c->v);
        r += 2 + s->qk[j];
    }
    return 0;
}

/* Store the round's results res (nout a task) in their candidates. */
static int gather(struct search *s, const double *res, size_t nout,
                  struct gs_diag *d)
{
    for (int t = 0; t < s->ntask; t++) {
        struct cand *x = &s->cand[s->tcand[t]];
        const double *r = &res[(size_t)t * nout];
        memcpy(&x->v[(size_t)s->tseed[t] * s->nm], r,
               (size_t)s->nm * sizeof *res);
        size_t np = (size_t)x->sc->npools;
        if (x->booted == NULL && np > 0 &&
            (x->booted = calloc((size_t)s->pc->max_seeds * np * 2,
                                sizeof *x->booted)) == NULL)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        if (np > 0)
            memcpy(&x->booted[(size_t)s->tseed[t] * np * 2], r + s->nm,
                   np * 2 * sizeof *res);
        size_t nst = (size_t)s->nst;
        if (x->warm == NULL && nst > 0 &&
            ((x->warm = calloc((size_t)s->pc->max_seeds * nst,
                               sizeof *x->warm)) == NULL ||
             (x->drain = calloc((size_t)s->pc->max_seeds * nst,
                                sizeof *x->drain)) == NULL))
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        if (nst > 0) {
            memcpy(&x->warm[(size_t)s->tseed[t] * nst],
                   r + s->nm + 2 * s->npb, nst * sizeof *res);
            memcpy(&x->drain[(size_t)s->tseed[t] * nst],
                   r + s->nm + 2 * s->npb + nst, nst * sizeof *res);
        }
        if (s->nqt > 0 && gather_tails(s, x, s->tseed[t],
                                       r + s->nm + 2 * s->npb + 2 * nst) < 0)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        if (s->tseed[t] + 1 > x->have)
            x->have = s->tseed[t] + 1;
    }
    return 0;
}

/* The jobs and requests x's runs simulated: every tier's jobs and the
 * services' requests, summed over its runs at every length it had. */
double gs_plan_simulated(const struct search *s, const struct cand *x)
{
    static const char *const tiers[] = { "inference.jobs", "training.jobs",
                                         "interactive.jobs", "data.jobs",
                                         "inference_requests" };
    double n = x->sim_before;
    for (int i = 0; i < 5; i++) {
        int m = gs_run_metric_index(tiers[i]);
        for (int k = 0; m >= 0 && k < x->nrun; k++) {
            double v = x->v[(size_t)k * s->nm + m];
            n += isnan(v) ? 0 : v;
        }
    }
    return n;
}

/* Run x again from its first seed (the same seeds: common random numbers
 * hold) on runs twice as long, up to plan.max_length_factor.  0 or a
 * negative code with d filled. */
static int lengthen(struct search *s, struct cand *x, struct gs_diag *d)
{
    int f = 2 * x->lenf < s->pc->max_length ? 2 * x->lenf
                                            : s->pc->max_length;
    struct gs_scenario *sc = NULL;
    int rc = gs_plan_cand_build(s, &s->combo[x->combo], x->idx, f, &sc, d);
    if (rc < 0)
        return rc;
    if (x->prev == NULL &&
        (x->prev = calloc((size_t)s->nst, sizeof *x->prev)) == NULL) {
        gs_scenario_free(sc);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    if (x->pmove == NULL &&
        (x->pmove = calloc((size_t)s->nst, sizeof *x->pmove)) == NULL) {
        gs_scenario_free(sc);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    for (int j = 0; j < s->nst; j++) {
        double m = x->mean[s->st[j].metric];
        /* the move at this doubling (NaN at the first length) */
        x->pmove[j] = x->lenf > 1 ? m - x->prev[j] : NAN;
        x->prev[j] = m;
    }
    x->sim_before = gs_plan_simulated(s, x);
    x->runs_before += x->nrun;
    gs_scenario_free(x->sc);
    x->sc = sc;
    s->lengthened += x->lenf == 1;
    x->lenf = f;
    x->nrun = x->have = 0;
    return 0;
}

/* Judge the round's candidates, in combination order, and move their
 * combinations on.  0 or a negative code with d filled. */
static int decide(struct search *s, struct gs_diag *d)
{
    for (int r = 0; r < s->nround; r++) {
        struct cand *x = &s->cand[s->rcand[r]];
        x->nrun = s->rto[r];
        int v = judge(s, x);
        if (v == 2) {
            int rc = lengthen(s, x, d);
            if (rc < 0)
                return rc;
            continue;
        }
        if (v) {
            free_tails(x, s->pc->max_seeds, s->nst);
            s->stopped += x->status == C_STOPPED;
            s->undecided += x->status == C_UNDECIDED;
            s->extended += x->nrun > s->pc->seeds;
            advance(s, x->combo, x);
            gs_plan_spread_miss(s, x->combo, x);
        }
    }
    return 0;
}

/* This round's room for the seeds' tails (s->qk, s->nqt): for each
 * pooled target the most any of the round's candidates needs. */
static void tail_room(struct search *s)
{
    if (s->qk == NULL && s->nst > 0)
        GS_OOM_IF((s->qk = calloc((size_t)s->nst, sizeof *s->qk)) == NULL);
    s->nqt = 0;
    for (int j = 0; j < s->nst; j++) {
        s->qk[j] = 0;
        for (int t = 0; t < s->ntask; t++) {
            long k = gs_plan_steady_tail_size(&s->st[j],
                                              s->cand[s->tcand[t]].sc);
            if (k > s->qk[j])
                s->qk[j] = k;
        }
        s->nqt += s->qk[j] > 0 ? 2 + s->qk[j] : 0;
    }
}

int gs_plan_search_run(struct search *s, int jobs, struct gs_diag *d)
{
    int rc = validate_space(s, d);
    if (rc == 0)
        rc = make_combos(s, d);
    if (rc < 0)
        return rc;
    s->lenient = 1;
    /* every worker of every rank: the runs ahead fill a round to a
     * multiple of them */
    int workers = jobs * gs_dist_size();
    size_t cap = (size_t)s->ncombo * (size_t)s->pc->max_seeds +
                 (size_t)workers;
    s->tcand = calloc(cap, sizeof *s->tcand);
    s->tseed = calloc(cap, sizeof *s->tseed);
    s->rcand = calloc((size_t)s->ncombo + 1, sizeof *s->rcand);
    s->rto = calloc((size_t)s->ncombo + 1, sizeof *s->rto);
    s->rwait = calloc((size_t)s->ncombo + 1, sizeof *s->rwait);
    double *res = NULL;
    if (!s->tcand || !s->tseed || !s->rcand || !s->rto || !s->rwait)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    for (;;) {
        if ((rc = propose(s, d)) < 0)
            goto done;
        if (s->nround == 0)
            break;
        run_ahead(s, workers);
        s->npb = 0;
        for (int t = 0; t < s->ntask; t++)
            if (s->cand[s->tcand[t]].sc->npools > s->npb)
                s->npb = s->cand[s->tcand[t]].sc->npools;
        tail_room(s);
        size_t nout = (size_t)s->nm + 2 * (size_t)s->npb +
                      2 * (size_t)s->nst + (size_t)s->nqt + 1;
        s->nout = (long)nout;
        if ((rc = gs_plan_reuse_prepare(s, jobs, d)) < 0)
            goto done;
        free(res);
        if ((res = calloc(((size_t)s->ntask + 1) * nout,
                          sizeof *res)) == NULL) {
            rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
            goto done;
        }
        s->est_rest = rest_estimate(s);
        gs_dist_progress(s->pr ? on_progress : NULL, s);
        rc = s->ntask > 0 ? gs_dist_run_named(s->ntask, jobs, (int)nout,
                                              run_task, task_name, s, res,
                                              d)
                          : 0;
        gs_dist_progress(NULL, NULL);
        if (rc < 0 || (rc = gather(s, res, nout, d)) < 0)
            goto done;
        gs_plan_reuse_count(s, res, nout);
        s->runs += s->asked;
        if ((rc = decide(s, d)) < 0)
            goto done;
        prune(s);
    }
    rc = 0;
done:
    free(res);
    return rc;
}

void gs_plan_search_free(struct search *s)
{
    free(s->att);
    free(s->st);
    free(s->phys);
    for (int j = 0; s->svc_sla && j < s->base->nsvcs; j++)
        free(s->svc_sla[j]);
    free(s->svc_sla);
    for (int i = 0; i < s->ncand; i++)
        free_cand(&s->cand[i], s->pc->max_seeds, s->nst);
    free(s->cand);
    for (int i = 0; s->combo && i < s->ncombo; i++) {
        free(s->combo[i].ax);
        free(s->combo[i].cnt);
        free(s->combo[i].floor);
        gs_scenario_free(s->combo[i].top);
    }
    free(s->order);
    free(s->combo);
    free(s->tcand);
    free(s->tseed);
    free(s->rcand);
    free(s->rto);
    free(s->rwait);
    free(s->qk);
    gs_plan_reuse_free(s);
}

/* A candidate's SLA attainment: the least of the jobs' (the share within
 * their wait limit and deadline) and each service's (the share of its
 * requests meeting every target), so a plan is only as good as its worst
 * class of work; *half is the interval of the one that is least. */
double gs_plan_attain(const struct search *s, const struct cand *x,
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

void gs_plan_attain_bind(struct search *s)
{
    int n = s->base->nsvcs;
    s->att = malloc((size_t)(n + 1) * sizeof *s->att);
    s->svc_sla = calloc((size_t)n + 1, sizeof *s->svc_sla);
    GS_OOM_IF(s->att == NULL || s->svc_sla == NULL);
    s->att[s->natt++] = gs_plan_metric("attainment");
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


/* Which range to widen next, from the answer x (feasible: best), against
 * the ranges searched so far (cur): the first count on its top below the
 * cap, or, for a feasible answer, on its bottom above the floor.  Fills
 * the new range [*lo, *hi] and returns its count, or -1. */
static int widen_which(const struct search *s, const struct cand *x,
                       int feasible, const struct gs_plan_count *cur,
                       int *lo, int *hi)
{
    for (int q = 0; q < s->pc->ncounts; q++) {
        const struct gs_plan_count *k = &cur[q];
        int v = x->cnt[q], last = q == s->pc->ncounts - 1;
        /* more of the bisected count never makes a feasible plan cheaper */
        if (v >= k->hi && k->hi + k->step <= k->cap && !(feasible && last)) {
            int want = 2 * k->hi > k->hi + k->step ? 2 * k->hi
                                                   : k->hi + k->step;
            if (want > k->cap)
                want = k->cap;
            *lo = k->hi + k->step;
            *hi = *lo + (want - *lo) / k->step * k->step;
            return q;
        }
        if (feasible && v <= k->lo && k->lo - k->step >= k->floor) {
            int want = k->lo / 2 > k->floor ? k->lo / 2 : k->floor;
            int n = (k->lo - want) / k->step;
            *hi = k->lo - k->step;
            *lo = k->lo - (n > 1 ? n : 1) * k->step;
            return q;
        }
    }
    return -1;
}

/* Move sub's candidates and counts into s. */
static int merge(struct search *s, struct search *sub, struct gs_diag *d)
{
    if (s->ncand + sub->ncand > s->capcand) {
        int nc = s->ncand + sub->ncand;
        struct cand *g = realloc(s->cand, (size_t)nc * sizeof *g);
        if (g == NULL)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        s->cand = g;
        s->capcand = nc;
    }
    for (int i = 0; i < sub->ncand; i++) {
        s->cand[s->ncand] = sub->cand[i];
        s->cand[s->ncand++].combo = -1;     /* its combination is gone */
    }
    sub->ncand = 0;
    s->ncombo_more += sub->ncombo + sub->ncombo_more;
    s->runs += sub->runs;
    s->ahead += sub->ahead;
    s->ahead_used += sub->ahead_used;
    s->stopped += sub->stopped;
    s->pruned += sub->pruned;
    s->dear += sub->dear;
    s->spread += sub->spread;
    s->extended += sub->extended;
    s->lengthened += sub->lengthened;
    s->undecided += sub->undecided;
    s->physics += sub->physics;
    return 0;
}

int gs_plan_search_widen(struct search *s, int jobs, struct gs_diag *d)
{
    const struct gs_plancfg *pc = s->pc;
    int nq = pc->ncounts, rc = 0;
    struct gs_plan_count *cur = calloc((size_t)nq + 1, sizeof *cur);
    struct gs_plan_count *sc = calloc((size_t)nq + 1, sizeof *sc);
    if (!cur || !sc) {
        free(cur);
        free(sc);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    if (nq)
        memcpy(cur, pc->counts, (size_t)nq * sizeof *cur);
    for (int pass = 0; pass < 32 && rc == 0; pass++) {
        int b = gs_plan_best_feasible(s);
        int xi = b >= 0 ? b : gs_plan_closest(s), lo, hi;
        if (xi < 0)
            break;
        const struct cand *x = &s->cand[xi];
        int q = widen_which(s, x, b >= 0, cur, &lo, &hi);
        if (q < 0)
            break;
        size_t l = strlen(s->note);
        snprintf(s->note + l, sizeof s->note - l, "  %s %s %d..%d -> "
                 "searched %d..%d too (the %s sat on the %s of the range)\n",
                 cur[q].name, cur[q].pool >= 0 ? "nodes" : "replicas",
                 cur[q].lo, cur[q].hi, lo, hi,
                 b >= 0 ? "cheapest feasible plan" : "closest candidate",
                 lo > cur[q].hi ? "top" : "bottom");
        struct gs_plancfg spc = *pc;
        memcpy(sc, cur, (size_t)nq * sizeof *sc);
        sc[q].lo = lo;
        sc[q].hi = hi;
        spc.counts = sc;
        struct search sub = { .pc = &spc, .base = s->base,
                              .growth = s->growth, .nm = s->nm,
                              .nfleet = s->nfleet, .pr = s->pr,
                              .natt = s->natt, .att = s->att,
                              .svc_sla = s->svc_sla, .nst = s->nst,
                              .st = s->st, .phys = s->phys,
                              .bound = INFINITY,
                              .exhaustive = s->exhaustive, .ru = s->ru };
        if (b >= 0)
            sub.bound = s->cand[b].cost_h;
        rc = gs_plan_search_run(&sub, jobs, d);
        if (rc == 0)
            rc = merge(s, &sub, d);
        sub.att = NULL;
        sub.svc_sla = NULL;
        sub.st = NULL;
        sub.phys = NULL;
        gs_plan_search_free(&sub);
        if (lo > cur[q].hi)
            cur[q].hi = hi;
        else
            cur[q].lo = lo;
    }
    /* an answer still on a bound that cannot move: name it */
    int b = gs_plan_best_feasible(s);
    int xi = b >= 0 ? b : gs_plan_closest(s);
    for (int q = 0; rc == 0 && xi >= 0 && q < nq; q++) {
        const struct cand *x = &s->cand[xi];
        size_t l = strlen(s->note);
        if (b < 0 && x->cnt[q] >= cur[q].hi && cur[q].hi >= cur[q].cap)
            snprintf(s->note + l, sizeof s->note - l, "  the closest "
                     "candidate sits on the cap of %s %s (%d): raise "
                     "its \"cap\" to search further\n", cur[q].name,
                     cur[q].pool >= 0 ? "nodes" : "replicas", cur[q].cap);
    }
    free(cur);
    free(sc);
    return rc;
}
