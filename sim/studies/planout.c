/* planout.c -- what `gpusim plan` prints and writes: the plan's fleet, its
 * targets with their intervals, its metrics, the Pareto front of cost
 * against SLA attainment (a table, a gnuplot plot, the HDF5 file).
 *
 * Names reach gnuplot only inside data files' paths chosen by the user
 * (--plots); candidates' labels are never pasted into its script. */
#include "planint.h"
#include "../io/gnuplot.h"
#include "../io/h5out.h"
#include "../io/question.h"
#include "../io/report.h"
#include "mpirun.h"
#include "../setup/scenario.h"
#include "../core/job.h"
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* --- output ------------------------------------------------------------ */

static const char *const market_label[GS_NMARKETS] = {
    "on-demand", "reserved", "spot", "capacity-block",
};

/* The candidate's pools; an autoscaled one at its most nodes, then the
 * nodes it booted (billed) over the seeds run: the mean of the runs' time
 * averages and the most at once in any run -- what its cost is for. */
void gs_plan_print_fleet(FILE *fp, const struct cand *x)
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

void gs_plan_cell(char *buf, size_t n, double mean, double half)
{
    if (isnan(half))
        snprintf(buf, n, "%.6g", mean);
    else
        snprintf(buf, n, "%.6g ± %.3g", mean, half);
}

/* A target's verdict in words. */
static const char *target_word(const struct search *s, const struct cand *x,
                               const struct gs_plan_target *t, char *buf,
                               size_t n)
{
    switch (gs_plan_target_state(s, x, t)) {
    case T_MET: return "met";
    case T_MISSED: return "MISSED";
    case T_ZONE:
        snprintf(buf, n, "undecided within ±%g%%",
                 100 * s->pc->indifference);
        return buf;
    default:
        if (x->transient)
            snprintf(buf, n, "undecided: transient not over at the cap");
        else if (x->at_cap == 2)
            snprintf(buf, n, "undecided: %d seeds (the cap) would not meet "
                     "it", s->pc->max_seeds);
        else
            snprintf(buf, n, "undecided at the cap of %d seeds", x->nrun);
        return buf;
    }
}

/* Target t's warm-up on x: requests (jobs) deleted a run on average at
 * its last length, and the runs at the limit that decided; NaN for a
 * target estimated over the whole run or a candidate not run. */
static void warm_of(const struct search *s, const struct cand *x, int t,
                    double *w, double *lim)
{
    *w = *lim = NAN;
    for (int k = 0; k < s->nst && x->warm && x->nrun > 0; k++) {
        if (s->st[k].target != t || s->st[k].what == GS_PLAN_SQ_WHOLE)
            continue;
        *w = *lim = 0;
        for (int r = 0; r < x->nrun; r++) {
            double v = x->warm[(size_t)r * s->nst + k];
            *lim += v < 0;
            *w += (v < 0 ? -v - 1 : v) / x->nrun;
        }
    }
}

/* Steady-state target k of x, judged at the cap on its moves: its
 * estimate still moved beyond its interval, and the moves bound the bias
 * left on one side of the limit (plansteady.c: gs_plan_cap_bounded). */
static void print_bounded(FILE *fp, const struct search *s,
                          const struct cand *x, int k)
{
    double lo, hi;
    if (!x->bounded || !gs_plan_target_transient(s, x, k) ||
        !gs_plan_moves_widened(s, x, k, &lo, &hi))
        return;
    int m = s->st[k].metric;
    fprintf(fp, "    %-28s at the cap its estimate still moved by more than "
            "its interval (%+.4g at the last doubling, %+.4g at the one "
            "before): judged on the interval widened by those moves, "
            "[%.6g, %.6g]\n", "", x->mean[m] - x->prev[k], x->pmove[k], lo,
            hi);
}

/* Target t's drain share on x: the largest of its seeds' at its last
 * length; NaN for a target of no service or a candidate not run. */
static double drain_of(const struct search *s, const struct cand *x, int t)
{
    double d = NAN;
    for (int k = 0; k < s->nst && x->drain; k++)
        for (int r = 0; s->st[k].target == t && r < x->nrun; r++) {
            double v = x->drain[(size_t)r * s->nst + k];
            if (!isnan(v))
                d = isnan(d) || v > d ? v : d;
        }
    return d;
}

/* Target i's length and warm-up in a steady-state question: the run
 * length it was judged at, and for a request or job-wait target the
 * requests (jobs) deleted a run on average, of those that finished
 * (started), and the runs whose transient may be longer than half the
 * run; other targets are estimated over the whole run. */
static void print_warmup(FILE *fp, const struct search *s,
                         const struct cand *x, int i)
{
    for (int k = 0; k < s->nst && x->warm; k++) {
        const struct gs_plan_st *st = &s->st[k];
        if (st->target != i)
            continue;
        if (st->what == GS_PLAN_SQ_WHOLE) {
            fprintf(fp, "    %-28s steady state: runs %dx the scenario's "
                    "length, estimated over the whole run\n", "", x->lenf);
            continue;
        }
        double w, lim;
        warm_of(s, x, i, &w, &lim);
        char name[160];
        double of = 0;
        for (int tier = 0; tier < GS_NTIERS; tier++) {
            if (st->what == GS_PLAN_SQ_WAIT && st->svc >= 0 && st->svc != tier)
                continue;
            if (st->what == GS_PLAN_SQ_WAIT)
                snprintf(name, sizeof name, "%s.jobs", gs_tier_name(tier));
            else if (tier == 0)
                snprintf(name, sizeof name, "service.%s.requests_finished",
                         s->base->svcs[st->svc].name);
            else
                break;
            int m = gs_run_metric_index(name);
            of += m >= 0 && !isnan(x->mean[m]) ? x->mean[m] : 0;
        }
        fprintf(fp, "    %-28s steady state: runs %dx the scenario's "
                "length, warm-up deleted (MSER-5), %.0f of %.0f %s a "
                "run%s\n", "", x->lenf, w, of,
                st->what == GS_PLAN_SQ_WAIT ? "jobs" : "requests",
                lim > 0 ? "; in some runs it reached half the run: the transient "
                      "was not over at the cap (plan.max_length_factor)"
                    : "");
        print_bounded(fp, s, x, k);
    }
}

/* Each target: its limit, the interval, the unfavourable end and the
 * verdict, then the margin -- how far the mean is from the limit, as a
 * share of it (positive: on the good side), with the interval's ends. */
/* Whether x's intervals are as narrow as plan.precision asks: each
 * target's 95% half-width against precision x its estimate (or its limit
 * when that is larger, as plansearch.c's wants_longer), and if not, which
 * is widest and what stopped the runs. */
static void print_precision(FILE *fp, const struct search *s,
                            const struct cand *x)
{
    int worst = -1;
    double wr = 0;
    for (int i = 0; i < s->pc->ntargets; i++) {
        const struct gs_plan_target *t = &s->pc->t[i];
        int m = gs_plan_metric(t->metric);
        double h = isnan(x->half[m]) ? 0 : x->half[m];
        double r = h / fmax(fmax(fabs(x->mean[m]), fabs(t->limit)), 1e-300);
        if (r > s->pc->precision && r > wr) {
            wr = r;
            worst = i;
        }
    }
    if (worst < 0) {
        fprintf(fp, "  precision: every target's 95%% half-width within "
                "±%g%% of its estimate (or limit): met\n",
                100 * s->pc->precision);
        return;
    }
    fprintf(fp, "  precision: NOT met -- %s ±%.3g%% over %d seeds, asked "
            "±%g%%; %s\n", s->pc->t[worst].metric, 100 * wr, x->nrun,
            100 * s->pc->precision, s->nst > 0
            ? "the runs were as long as plan.max_length_factor allows"
            : "a finite-horizon plan adds seeds only where an interval "
              "straddles a target (up to plan.max_seeds); the verdicts "
              "stand on the intervals shown");
}

void gs_plan_print_targets(FILE *fp, const struct search *s,
                           const struct cand *x)
{
    fprintf(fp, "  targets (95%% interval over %d seeds; met when the "
            "interval's unfavourable end meets the target; margin = how far "
            "the mean is inside the limit%s):\n", x->nrun, x->inexact
            ? "; a pooled percentile is bounded, not exact: a seed cut its "
              "tail short of it, and its interval covers the bounds" : "");
    for (int i = 0; i < s->pc->ntargets; i++) {
        const struct gs_plan_target *t = &s->pc->t[i];
        int m = gs_plan_metric(t->metric);
        char c[80], w[64];
        gs_plan_cell(c, sizeof c, x->mean[m], x->half[m]);
        double e = gs_plan_end_of(x, t, 1), f = gs_plan_end_of(x, t, 0);
        double sc = fabs(t->limit) > 1e-12 ? fabs(t->limit) : 1;
        double sg = t->upper ? 1 : -1;
        double mg = sg * (t->limit - x->mean[m]) / sc;
        double mw = sg * (t->limit - e) / sc, mf = sg * (t->limit - f) / sc;
        fprintf(fp, "    %-28s %s %-10.6g %24s  -> %.6g %s\n", t->metric,
                t->upper ? "<=" : ">=", t->limit, c, e,
                target_word(s, x, t, w, sizeof w));
        /* a share of the limit; a limit of 0: in the metric's units */
        int rel = fabs(t->limit) > 1e-12;
        const char *u = rel ? "%" : "";
        double k = rel ? 100 : 1;
        fprintf(fp, "    %-28s margin %+.3g%s (interval %+.3g%s to "
                "%+.3g%s)\n", "", k * mg, u, k * mw, u, k * mf, u);
        print_warmup(fp, s, x, i);
    }
    print_precision(fp, s, x);
}

/* Columns on a terminal: UTF-8 characters, not bytes ("±" is two). */
static int utf8_width(const char *t)
{
    int n = 0;
    for (; *t; t++)
        n += ((unsigned char)*t & 0xC0) != 0x80;
    return n;
}

/* 1 when metric m is a target's. */
static int is_target(const struct search *s, int m)
{
    for (int i = 0; i < s->pc->ntargets; i++)
        if (gs_plan_metric(s->pc->t[i].metric) == m)
            return 1;
    return 0;
}

/* A metric applies to a candidate when it is a target or some run of it
 * gave a value other than 0 (inference metrics without a service, a
 * market it does not use, a tier without jobs are 0 in every run). */
static int applies(const struct search *s, const struct cand *x, int m)
{
    if (is_target(s, m))
        return 1;
    for (int k = 0; k < x->nrun; k++) {
        double v = x->v[(size_t)k * s->nm + m];
        if (v != 0 && !isnan(v))
            return 1;
    }
    return 0;
}

/* 1 when a and b are the same number (to 1e-9 of the larger). */
static int same(double a, double b)
{
    return a == b || fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* 1 when metric m repeats metric k on every run of x: the same value, or
 * its complement to 1 (attainment and sla_share). */
static int repeats(const struct search *s, const struct cand *x, int m,
                   int k)
{
    int eq = 1, comp = 1;
    for (int r = 0; r < x->nrun && (eq || comp); r++) {
        double vm = x->v[(size_t)r * s->nm + m];
        double vk = x->v[(size_t)r * s->nm + k];
        eq = eq && same(vm, vk);
        comp = comp && same(vm, 1 - vk);
    }
    return x->nrun > 0 && (eq || comp);
}

/* 1 when metric m depends on the seed alone: on every seed, every
 * candidate run with it gave the same value (at least two candidates
 * compared).  It says nothing of the fleet: the jobs or requests the
 * workload generates, an availability of 1 without failures. */
static int fixed(const struct search *s, int m)
{
    int compared = 0;
    for (int r = 0;; r++) {
        double first = NAN;
        int seen = 0;
        for (int i = 0; i < s->ncand; i++) {
            const struct cand *y = &s->cand[i];
            if (y->nrun <= r)
                continue;
            double v = y->v[(size_t)r * s->nm + m];
            if (seen++ == 0)
                first = v;
            else if (!same(v, first))
                return 0;
        }
        if (seen == 0)
            break;
        compared += seen > 1;
    }
    return compared > 0;
}

/* The tiers that had jobs in some run of x: with one, its TIER.* metrics
 * repeat the overall ones. */
static int tiers_with_jobs(const struct search *s, const struct cand *x)
{
    int n = 0;
    for (int t = 0; t < GS_NTIERS; t++) {
        char name[64];
        snprintf(name, sizeof name, "%s.jobs", gs_tier_name(t));
        int m = gs_run_metric_index(name);
        for (int r = 0; m >= 0 && r < x->nrun; r++)
            if (x->v[(size_t)r * s->nm + m] > 0) {
                n++;
                break;
            }
    }
    return n;
}

/* 1 when metric m is one of one tier's (TIER.field). */
static int tier_metric(int m)
{
    const char *name = gs_run_metric_name(m);
    for (int t = 0; t < GS_NTIERS; t++) {
        size_t n = strlen(gs_tier_name(t));
        if (strncmp(name, gs_tier_name(t), n) == 0 && name[n] == '.')
            return 1;
    }
    return 0;
}

/* 1 when name is one of the space-separated words. */
static int among(const char *name, const char *words)
{
    size_t n = strlen(name);
    for (const char *w = strstr(words, name); w; w = strstr(w + 1, name))
        if ((w == words || w[-1] == ' ') && (w[n] == ' ' || w[n] == '\0'))
            return 1;
    return 0;
}

/* Metrics of the jobs alone: in a scenario of services only they would
 * describe the replicas' placements. */
static const char job_only[] = "throughput_jobs_per_hour jct_mean_s "
    "wait_mean_s wait_p95_s wait_p99_s sla_violations sla_share "
    "starved_jobs fairness_variance_min2 throughput_makespan_jph";
/* A service's fields the short list shows (service.NAME.FIELD): its tail
 * latencies, attainment, goodput, throughput, price and size. */
static const char svc_head[] = "ttft_p99_s itl_p99_s e2e_p99_s "
    "sla_attainment goodput_rps tokens_per_s_per_gpu cost_per_mtok_usd "
    "replicas_mean gpu_hours";
/* The fleet-wide inference metrics it shows beside several services'. */
static const char inf_head[] = "inference_sla_attainment "
    "inference_goodput_rps inference_tokens_per_s_per_gpu "
    "inference_cost_per_mtok_usd";

/* 1 when the short list leaves m out for the services: a service's field
 * beyond the headline ones, the fleet-wide inference metrics beside one
 * service (its own say them) or beyond the headline ones, job metrics
 * without jobs. */
static int svc_detail(const struct search *s, const char *name)
{
    const struct gs_scenario *b = s->base;
    if (b->wl_kind == GS_WL_NONE && among(name, job_only))
        return 1;
    if (strncmp(name, "inference_", 10) == 0)
        return b->nsvcs <= 1 || !among(name, inf_head);
    if (strncmp(name, "service.", 8) != 0)
        return 0;
    const char *f = strrchr(name, '.');
    return f == NULL || !among(f + 1, svc_head);
}

/* Whether the short list shows metric m of x (shown[] the ones before it
 * that it does): not a target (the targets say it), not the cost the
 * answer says, applying to the scenario, not the same in every run of
 * every candidate, not a service's detail, not repeating another. */
static int worth(const struct search *s, const struct cand *x, int m,
                 const char *shown, int one_tier)
{
    const char *name = gs_run_metric_name(m);
    if (is_target(s, m) || !applies(s, x, m) || fixed(s, m) ||
        strcmp(name, "cost_per_hour_usd") == 0 ||
        strcmp(name, "cost_per_month_usd") == 0 ||
        (one_tier && tier_metric(m)) || svc_detail(s, name))
        return 0;
    for (int k = 0; k < s->nm; k++)
        if ((k < m ? shown[k] : 0) || (k != m && is_target(s, k)))
            if (repeats(s, x, m, k))
                return 0;
    return 1;
}

void gs_plan_print_metrics(FILE *fp, const struct search *s,
                           const struct cand *x, int verbose)
{
    char *shown = calloc((size_t)s->nm + 1, 1);
    GS_OOM_IF(shown == NULL);
    int one_tier = tiers_with_jobs(s, x) <= 1, n = 0;
    for (int m = 0; m < s->nm; m++)
        n += shown[m] = (char)(verbose || worth(s, x, m, shown, one_tier));
    fprintf(fp, "  %s (mean ± 95%% half-width over %d seeds%s):\n",
            verbose ? "every metric" : "other metrics", x->nrun,
            verbose ? "" : "; the headline ones that apply, each once; "
            "--verbose for all");
    /* columns as wide as what they hold; two a line within 120 */
    int nw = 0, vw = 0, k = 0;
    for (int m = 0; m < s->nm; m++) {
        char c[80];
        gs_plan_cell(c, sizeof c, x->mean[m], x->half[m]);
        if (shown[m] && (int)strlen(gs_run_metric_name(m)) > nw)
            nw = (int)strlen(gs_run_metric_name(m));
        if (shown[m] && utf8_width(c) > vw)
            vw = utf8_width(c);
    }
    int two = 4 + 2 * (nw + 2 + vw) + 4 <= 120;
    for (int m = 0; m < s->nm; m++) {
        if (!shown[m])
            continue;
        char c[80];
        gs_plan_cell(c, sizeof c, x->mean[m], x->half[m]);
        int pad = vw - utf8_width(c);
        fprintf(fp, "    %-*s  %*s%s", nw,
                gs_run_metric_name(m), pad + (int)strlen(c), c,
                !two || k % 2 ? "\n" : "");
        k++;
    }
    if (two && k % 2)
        fputc('\n', fp);
    if (n == 0)
        fprintf(fp, "    (none beyond the targets)\n");
    free(shown);
}

/* Does x dominate y: at least as good in feasibility (a feasible
 * candidate beats any other), in the planner's cost order and in
 * attainment, and better in one of them. */
static int dominates(const struct search *s, const struct cand *x,
                     const struct cand *y)
{
    int fx = x->status == C_FEASIBLE, fy = y->status == C_FEASIBLE;
    int c = gs_plan_cost_cmp(x, y);
    double ax = gs_plan_attain(s, x, NULL), ay = gs_plan_attain(s, y, NULL);
    if (fx < fy || c > 0 || ax < ay - 1e-12)
        return 0;
    return fx > fy || c < 0 || ax > ay + 1e-12;
}

/* The Pareto front of the candidates run: those no other candidate
 * dominates (feasibility, cost, attainment), in the cost order.  The
 * cheapest feasible plan is always on it (nothing feasible is cheaper,
 * nothing infeasible dominates it), and no point on it is dominated.
 * Fills idx; returns the count. */
int gs_plan_pareto(const struct search *s, int *idx)
{
    int n = 0;
    for (int i = 0; i < s->ncand; i++) {
        const struct cand *y = &s->cand[i];
        if (y->nrun == 0)
            continue;
        int dom = 0;
        for (int j = 0; j < s->ncand && !dom; j++)
            dom = j != i && s->cand[j].nrun > 0 &&
                  dominates(s, &s->cand[j], y);
        /* equal points: the first tried stands for them */
        for (int k = 0; k < n && !dom; k++)
            dom = gs_plan_cost_cmp(&s->cand[idx[k]], y) == 0 &&
                  s->cand[idx[k]].status == y->status &&
                  fabs(gs_plan_attain(s, &s->cand[idx[k]], NULL) -
                       gs_plan_attain(s, y, NULL)) <= 1e-12;
        if (!dom)
            idx[n++] = i;
    }
    /* insertion sort by the cost order, then attainment: n is small */
    for (int i = 1; i < n; i++) {
        int v = idx[i], j = i - 1;
        while (j >= 0) {
            int c = gs_plan_cost_cmp(&s->cand[idx[j]], &s->cand[v]);
            if (c < 0 || (c == 0 && gs_plan_attain(s, &s->cand[idx[j]], NULL)
                                    <= gs_plan_attain(s, &s->cand[v], NULL)))
                break;
            idx[j + 1] = idx[j];
            j--;
        }
        idx[j + 1] = v;
    }
    return n;
}

void gs_plan_print_front(FILE *fp, const struct search *s, const int *fr,
                        int nf, double hpm)
{
    if (nf == 0) {
        fprintf(fp, "\nPareto front: empty, no candidate ran (each was "
                "ruled out before a run, above).\n");
        return;
    }
    fprintf(fp, "\nPareto front, cost against SLA attainment (the least of "
            "the share of jobs within their wait limit and deadline%s), over "
            "every candidate tried:\n", s->natt > 1 ? " and each service's "
            "share of requests meeting its targets" : "");
    /* steady state: the run length each was judged at (a factor of the
     * scenario's) */
    fprintf(fp, "  %12s %12s %22s %-15s %s%s\n", "$/hour", "$/month",
            "attainment", "status", s->nst > 0 ? "length  " : "",
            "candidate");
    for (int i = 0; i < nf; i++) {
        const struct cand *x = &s->cand[fr[i]];
        char c[80], len[32] = "";
        double h, a = gs_plan_attain(s, x, &h);
        gs_plan_cell(c, sizeof c, a, h);
        if (s->nst > 0)
            snprintf(len, sizeof len, "%5dx  ", x->lenf);
        fprintf(fp, "  %12.2f %12.0f %22s %-15s %s%s\n", x->cost_h,
                x->cost_h * hpm, c, gs_plan_status[x->status], len,
                x->label);
    }
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

/* The front's plot: DIR/candidates.dat, front.dat and front.gp, drawn by
 * gnuplot.  front.gp is constant text: the folder reaches it as ARG1 of
 * gnuplot -c (absolute, see io/gnuplot.h), never pasted into its code;
 * without one it reads the current folder (cd DIR && gnuplot front.gp). */
int gs_plan_plot_front(const char *dir, const struct search *s, const int *fr,
                      int nf, int chosen)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return -1;
    FILE *fp = plot_file(dir, "candidates.dat");
    if (fp == NULL)
        return -1;
    /* the cost axis from the data: one candidate, or all of one cost, get
     * a margin around it (never gnuplot's "empty x range") */
    double lo = INFINITY, hi = -INFINITY, amin = 1;
    int nrun = 0;
    fprintf(fp, "# cost_per_hour_usd attainment attainment_half feasible\n");
    for (int i = 0; i < s->ncand; i++) {
        const struct cand *x = &s->cand[i];
        double h, a = gs_plan_attain(s, x, &h);
        if (x->nrun > 0 && isfinite(x->cost_h)) {
            fprintf(fp, "%.6f %.6f %.6f %d\n", x->cost_h, a,
                    isnan(h) ? 0 : h, x->status == C_FEASIBLE);
            lo = fmin(lo, x->cost_h);
            hi = fmax(hi, x->cost_h);
            if (isfinite(a))
                amin = fmin(amin, a - (isnan(h) ? 0 : h));
            nrun++;
        }
    }
    fclose(fp);
    if ((fp = plot_file(dir, "front.dat")) == NULL)
        return -1;
    /* each point labelled with its plan: a data string, quoted, never
     * code (a '"' in a pool's name becomes '\'') */
    fprintf(fp, "# cost_per_hour_usd attainment plan (Pareto front)\n");
    for (int i = 0; i < nf; i++) {
        fprintf(fp, "%.6f %.6f \"", s->cand[fr[i]].cost_h,
                gs_plan_attain(s, &s->cand[fr[i]], NULL));
        for (const char *c = s->cand[fr[i]].label; *c; c++)
            fputc(*c == '"' || *c == '\\' || *c == '\n' ? '\'' : *c, fp);
        fputs("\"\n", fp);
    }
    fclose(fp);
    if ((fp = plot_file(dir, "front.gp")) == NULL)
        return -1;
    double pad = hi > lo ? (hi - lo) * 0.08 : fmax(fabs(hi) * 0.1, 1.0);
    if (nrun == 0) {
        lo = 0;
        hi = 1;
        pad = 0;
    }
    /* constant text but for numbers: the folder comes in as ARG1, names
     * only in the data files */
    fprintf(fp, "# gpusim plan's front: gnuplot -c front.gp /ABSOLUTE/DIR, or "
            "in DIR: gnuplot front.gp\n"
            "d = ARGC >= 1 ? ARG1 : '.'\n"
            "set terminal pngcairo size 1000,650 noenhanced\n"
            "set output d.'/front.png'\n"
            "set title 'gpusim plan: cost against SLA attainment (each point "
            "a fleet; the front labelled)'\n"
            "set xlabel 'cost, $ per hour'\nset ylabel 'SLA attainment "
            "(share of jobs and requests within their targets)'\n"
            "set xrange [%.6f:%.6f]\nset yrange [%.2f:1.04]\n"
            "set key bottom right\nset grid\n", lo - pad, hi + pad,
            fmax(0, floor((amin - 0.05) * 20) / 20));
    if (nrun == 0) {
        fprintf(fp, "set label 1 'no candidate was run' at graph 0.5, 0.5 "
                "center\nplot NaN notitle\n");
    } else {
        fprintf(fp, "plot d.'/candidates.dat' using 1:2:3 with yerrorbars "
                "pt 7 ps 0.6 title 'candidates (95%% CI)'");
        if (nf > 0)
            fprintf(fp, ", \\\n     d.'/front.dat' using 1:2 with "
                    "linespoints lw 2 pt 6 title 'Pareto front', \\\n"
                    "     d.'/front.dat' using 1:($2 + (int($0) %% 2 ? -0.012 : "
                    "0.012)):3 with labels left offset 0.8,0 font ',8' "
                    "notitle");
        if (chosen >= 0)
            fprintf(fp, ", \\\n     '-' using 1:2 with points pt 5 ps 2 "
                    "lc rgb 'red' title 'the plan: cheapest feasible'\n"
                    "%.6f %.6f\ne\n", s->cand[chosen].cost_h,
                    gs_plan_attain(s, &s->cand[chosen], NULL));
        else
            fputc('\n', fp);
    }
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

/* How target t is estimated, in words. */
static const char *estimator(const struct search *s, int t)
{
    for (int k = 0; k < s->nst; k++)
        if (s->st[k].target == t)
            return s->st[k].what == GS_PLAN_SQ_WHOLE
                   ? "steady state: over the whole run, lengthened; Student "
                     "t over the seeds"
                   : "steady state: MSER-5 warm-up deleted, lengthened; "
                     "Student t over the seeds";
    return "finite horizon: over the whole run; Student t over the seeds";
}
/* The units of a dataset indexed by metric or by target: each one's own,
 * in the table named. */
#define PER_M "per metric (/plan/metric_units)"
#define PER_T "per target (/plan/targets/units)"

/* What the plan file says of the question and each candidate's length:
 * its length factor, runs at every length, warm-up per target, and how
 * each target is estimated. */
struct lengths {
    int64_t *lenf, *runs;       /* [candidates] */
    double *warm, *wlim;        /* [candidates, targets] */
    double *drain;              /* [candidates, targets] */
    const char **how;           /* [targets] */
    const char *question, *why;     /* gs_question_of's */
    double qcfg[3];             /* precision, max length, indifference */
};

static void lengths_free(struct lengths *lr)
{
    free(lr->lenf);
    free(lr->runs);
    free(lr->warm);
    free(lr->wlim);
    free(lr->drain);
    free(lr->how);
}

/* Fill lr from s: 0, or -1 out of memory (lr freed). */
static int lengths_fill(const struct search *s, struct lengths *lr)
{
    int nc = s->ncand, nt = s->pc->ntargets;
    lr->lenf = calloc((size_t)nc + 1, sizeof *lr->lenf);
    lr->runs = calloc((size_t)nc + 1, sizeof *lr->runs);
    lr->warm = calloc((size_t)nc * nt + 1, sizeof *lr->warm);
    lr->wlim = calloc((size_t)nc * nt + 1, sizeof *lr->wlim);
    lr->drain = calloc((size_t)nc * nt + 1, sizeof *lr->drain);
    lr->how = calloc((size_t)nt + 1, sizeof *lr->how);
    if (!lr->lenf || !lr->runs || !lr->warm || !lr->wlim || !lr->drain ||
        !lr->how) {
        lengths_free(lr);
        memset(lr, 0, sizeof *lr);
        return -1;
    }
    for (int i = 0; i < nc; i++) {
        const struct cand *x = &s->cand[i];
        lr->lenf[i] = x->lenf;
        lr->runs[i] = x->runs_before + x->nrun;
        for (int t = 0; t < nt; t++) {
            warm_of(s, x, t, &lr->warm[(size_t)i * nt + t],
                    &lr->wlim[(size_t)i * nt + t]);
            lr->drain[(size_t)i * nt + t] = drain_of(s, x, t);
        }
    }
    for (int t = 0; t < nt; t++)
        lr->how[t] = estimator(s, t);
    lr->question = gs_horizon_name(gs_question_of(s->base, &lr->why));
    lr->qcfg[0] = s->pc->precision;
    lr->qcfg[1] = s->pc->max_length;
    lr->qcfg[2] = s->pc->indifference;
    return 0;
}

int gs_plan_write_h5(const char *out, const struct search *s, const int *fr,
                    int nf, int chosen, int near, const double *gcost,
                    const char *const *glabel, const double *gfac, int ng,
                    struct gs_diag *d)
{
    int nc = s->ncand, nm = s->nm, ns = s->pc->max_seeds, nt = s->pc->ntargets;
    const char **labels = calloc((size_t)nc + 1, sizeof *labels);
    const char **status = calloc((size_t)nc + 1, sizeof *status);
    const char **names = calloc((size_t)nm, sizeof *names);
    const char **tnames = calloc((size_t)nt + 1, sizeof *tnames);
    double *vals = calloc((size_t)nc * ns * nm + 1, sizeof *vals);
    double *mean = calloc((size_t)nc * nm + 1, sizeof *mean);
    double *half = calloc((size_t)nc * nm + 1, sizeof *half);
    int64_t *seeds = calloc((size_t)nc + 1, sizeof *seeds);
    int64_t *simd = calloc((size_t)nc + 1, sizeof *simd);
    double *cost = calloc((size_t)nc + 1, sizeof *cost);
    double *att = calloc((size_t)nc + 1, sizeof *att);
    double *tl = calloc((size_t)nt + 1, sizeof *tl);
    double *tu = calloc((size_t)nt + 1, sizeof *tu);
    int64_t *fidx = calloc((size_t)nf + 1, sizeof *fidx);
    const char **munits = calloc((size_t)nm + 1, sizeof *munits);
    const char **tunits = calloc((size_t)nt + 1, sizeof *tunits);
    struct lengths lr = { 0 };
    int rc;
    if (!labels || !status || !names || !tnames || !vals || !mean || !half ||
        !seeds || !simd || !cost || !att || !tl || !tu || !fidx || !munits ||
        !tunits || lengths_fill(s, &lr) < 0) {
        rc = gs_diag_set(d, GS_ENOMEM, out, "out of memory");
        goto done;
    }
    for (int i = 0; i < nc; i++) {
        const struct cand *x = &s->cand[i];
        labels[i] = x->label;
        status[i] = gs_plan_status[x->status];
        seeds[i] = x->nrun;
        simd[i] = llround(gs_plan_simulated(s, x));
        cost[i] = x->cost_h;
        att[i] = x->nrun > 0 ? gs_plan_attain(s, x, NULL) : NAN;
        for (size_t k = 0; k < (size_t)ns * nm; k++)
            vals[(size_t)i * ns * nm + k] = k < (size_t)x->nrun * nm
                                                ? x->v[k] : NAN;
        memcpy(&mean[(size_t)i * nm], x->mean, (size_t)nm * sizeof *mean);
        memcpy(&half[(size_t)i * nm], x->half, (size_t)nm * sizeof *half);
    }
    const char *desc;
    for (int m = 0; m < nm; m++) {
        names[m] = gs_run_metric_name(m);
        gs_report_meta(names[m], &munits[m], &desc);
    }
    for (int t = 0; t < nt; t++) {
        tnames[t] = s->pc->t[t].metric;
        tl[t] = s->pc->t[t].limit;
        tu[t] = s->pc->t[t].upper;
        gs_report_meta(tnames[t], &tunits[t], &desc);
    }
    for (int i = 0; i < nf; i++)
        fidx[i] = fr[i];
    int64_t pick[2] = { chosen, near };
    struct gs_h5_ds ds[] = {
        { "plan/metrics", GS_H5_STRING, 1, { nm }, names, "metric names, "
          "index M", NULL },
        { "plan/metric_units", GS_H5_STRING, 1, { nm }, munits, "the unit of "
          "each metric of /plan/metrics, index M", NULL },
        { "plan/targets/metric", GS_H5_STRING, 1, { nt }, tnames, NULL,
          NULL },
        { "plan/targets/units", GS_H5_STRING, 1, { nt }, tunits, "the unit "
          "of each target's metric and limit", NULL },
        { "plan/targets/limit", GS_H5_DOUBLE, 1, { nt }, tl, NULL, PER_T },
        { "plan/targets/upper", GS_H5_DOUBLE, 1, { nt }, tu, "1: the metric "
          "must be <= limit; 0: >= limit", "1" },
        { "plan/candidates/label", GS_H5_STRING, 1, { nc }, labels,
          "each candidate tried, in the order tried", NULL },
        { "plan/candidates/status", GS_H5_STRING, 1, { nc }, status, NULL,
          NULL },
        { "plan/candidates/seeds_run", GS_H5_INT64, 1, { nc }, seeds, NULL,
          "1" },
        { "plan/candidates/simulated", GS_H5_INT64, 1, { nc }, simd,
          "jobs and requests simulated over its runs, at every length it "
          "had", "1" },
        { "plan/candidates/length_factor", GS_H5_INT64, 1, { nc }, lr.lenf,
          "the length its verdict was judged at, a factor of the scenario's "
          "requests/jobs/until (1: as given)", "1" },
        { "plan/candidates/runs", GS_H5_INT64, 1, { nc }, lr.runs, "runs at "
          "every length it had; their sum is the plan's run count", "1" },
        { "plan/candidates/warmup_deleted", GS_H5_DOUBLE, 2, { nc, nt },
          lr.warm,
          "[candidate, target]: requests (jobs) deleted as warm-up by "
          "MSER-5, mean over the seeds of its last length; NaN for a "
          "target estimated over the whole run, or not run", "1" },
        { "plan/candidates/warmup_at_limit", GS_H5_DOUBLE, 2, { nc, nt },
          lr.wlim, NULL, NULL },
        { "plan/candidates/drain_share", GS_H5_DOUBLE, 2, { nc, nt },
          lr.drain, NULL, NULL },
        { "plan/targets/estimator", GS_H5_STRING, 1, { nt }, lr.how,
          "how each target is estimated, and its interval", NULL },
        { "plan/question", GS_H5_STRING, 1, { 1 }, &lr.question, "steady "
          "(warm-up deleted, runs lengthened) or finite (whole runs)", NULL },
        { "plan/question_why", GS_H5_STRING, 1, { 1 }, &lr.why, "the rule "
          "that decided it (io/question.h: the same in every command)", NULL },
        { "plan/precision_length_indifference", GS_H5_DOUBLE, 1, { 3 },
          lr.qcfg, "[plan.precision (relative 95% half-width asked in steady "
          "state), plan.max_length_factor, plan.indifference]", "1" },
        { "plan/candidates/cost_per_hour_usd", GS_H5_DOUBLE, 1, { nc }, cost,
          "the fleet's cost per hour, mean over its seeds", "USD/h" },
        { "plan/candidates/attainment", GS_H5_DOUBLE, 1, { nc }, att,
          "SLA attainment, the Pareto front's axis: the least of the jobs' "
          "(1 - sla_share) and each service's sla_attainment, mean over its "
          "seeds", "1" },
        { "plan/candidates/values", GS_H5_DOUBLE, 3, { nc, ns, nm }, vals,
          "[candidate, seed, metric]; NaN for seeds not run (stopped early)",
          PER_M },
        { "plan/candidates/mean", GS_H5_DOUBLE, 2, { nc, nm }, mean, NULL,
          PER_M },
        { "plan/candidates/half", GS_H5_DOUBLE, 2, { nc, nm }, half,
          "[candidate, metric]: 95% Student t half-width of the mean (a "
          "pooled steady-state percentile: by sectioning over the seeds)",
          PER_M },
        { "plan/front", GS_H5_INT64, 1, { nf }, fidx, "candidate indexes "
          "on the Pareto front of cost against attainment, by cost", "1" },
        { "plan/chosen", GS_H5_INT64, 1, { 2 }, pick, "[cheapest feasible "
          "candidate or -1, closest candidate when none is feasible or -1]",
          "1" },
        { "plan/growth/factor", GS_H5_DOUBLE, 1, { ng }, gfac, "each load "
          "factor of --growth: the generated workloads' arrival rates times "
          "it", "1" },
        { "plan/growth/cost_per_hour_usd", GS_H5_DOUBLE, 1, { ng }, gcost,
          "cheapest feasible plan at each load factor (NaN: none)", "USD/h" },
        { "plan/growth/plan", GS_H5_STRING, 1, { ng }, glabel, "the cheapest "
          "feasible plan at each load factor, or \"none feasible\"", NULL },
    };
    int nds = (int)(sizeof ds / sizeof ds[0]) - (ng == 0 ? 3 : 0);
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
    free(simd);
    free(cost);
    free(att);
    free(tl);
    free(tu);
    free(fidx);
    free(munits);
    free(tunits);
    lengths_free(&lr);
    return rc;
}

