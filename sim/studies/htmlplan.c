/* htmlplan.c -- a plan's answer in `gpusim report`: the fleet chosen, its
 * cost, each target with its margin and interval, the Pareto front with
 * the chosen plan marked, every candidate, and the plan under growth.
 *
 * Read from /plan (docs/planning.md): /plan/chosen [2] (the cheapest
 * feasible candidate, else -1 and the closest), the candidates' label,
 * status, seeds_run, cost_per_hour_usd, attainment and their statistics
 * mean and half [C, M] over /plan/metrics, the targets (metric, limit,
 * upper), /plan/front and /plan/growth.  A target's margin is plan's own
 * (planout.c): how far the mean is inside the limit as a share of it
 * (in the metric's units when the limit is 0), positive on the good
 * side, with the margins of the interval's two ends; the target is met
 * when the unfavourable end is inside the limit.  A month is 730 hours. */
#include "htmlint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct plan {
    char **label, **status, **met, **tmet;
    size_t nc, nm, nt;
    double *cost, *att, *seeds, *mean, *half, *limit, *upper, *front;
    size_t nfront;
    double chosen[2];
};

static void plan_free(struct plan *p)
{
    gs_h5in_strs_free(p->label, p->nc);
    gs_h5in_strs_free(p->status, p->nc);
    gs_h5in_strs_free(p->met, p->nm);
    gs_h5in_strs_free(p->tmet, p->nt);
    free(p->cost);
    free(p->att);
    free(p->seeds);
    free(p->mean);
    free(p->half);
    free(p->limit);
    free(p->upper);
    free(p->front);
}

/* A 1-D dataset of n doubles (exactly), or -1. */
static int vec(struct gs_h5in *r, const char *path, double **v, size_t n)
{
    size_t d[3];
    return gs_h5in_doubles(r, path, v, d) == 1 && d[0] == n ? 0 : -1;
}

static int plan_read(struct gs_h5in *r, struct plan *p)
{
    memset(p, 0, sizeof *p);
    size_t n1 = 0, d[3];
    double *ch = NULL;
    if (gs_h5in_strings(r, "/plan/candidates/label", &p->label, &p->nc) < 0 ||
        gs_h5in_strings(r, "/plan/candidates/status", &p->status, &n1) < 0 ||
        n1 != p->nc ||
        gs_h5in_strings(r, "/plan/metrics", &p->met, &p->nm) < 0 ||
        vec(r, "/plan/candidates/cost_per_hour_usd", &p->cost, p->nc) < 0 ||
        vec(r, "/plan/candidates/attainment", &p->att, p->nc) < 0 ||
        vec(r, "/plan/candidates/seeds_run", &p->seeds, p->nc) < 0 ||
        gs_h5in_doubles(r, "/plan/candidates/mean", &p->mean, d) != 2 ||
        d[0] != p->nc || d[1] != p->nm ||
        gs_h5in_doubles(r, "/plan/candidates/half", &p->half, d) != 2 ||
        d[0] != p->nc || d[1] != p->nm ||
        vec(r, "/plan/chosen", &ch, 2) < 0)
        return (free(ch), -1);
    p->chosen[0] = ch[0];
    p->chosen[1] = ch[1];
    free(ch);
    if (gs_h5in_strings(r, "/plan/targets/metric", &p->tmet, &p->nt) < 0 ||
        vec(r, "/plan/targets/limit", &p->limit, p->nt) < 0 ||
        vec(r, "/plan/targets/upper", &p->upper, p->nt) < 0) {
        gs_h5in_strs_free(p->tmet, p->nt);
        p->tmet = NULL;
        p->nt = 0;
    }
    if (gs_h5in_doubles(r, "/plan/front", &p->front, d) == 1)
        p->nfront = d[0];
    return 0;
}

static long metric_index(const struct plan *p, const char *name)
{
    for (size_t m = 0; m < p->nm; m++)
        if (strcmp(p->met[m], name) == 0)
            return (long)m;
    return -1;
}

/* One target's row for candidate x. */
static void target_row(struct gs_html *h, const struct plan *p, size_t t,
                       size_t x)
{
    long m = metric_index(p, p->tmet[t]);
    double lim = p->limit[t], sg = p->upper[t] != 0 ? 1 : -1;
    double mean = m >= 0 ? p->mean[x * p->nm + (size_t)m] : NAN;
    double half = m >= 0 ? p->half[x * p->nm + (size_t)m] : NAN;
    double e = mean + sg * half, f = mean - sg * half;
    int rel = fabs(lim) > 1e-12;
    double sc = rel ? fabs(lim) : 1, k = rel ? 100 : 1;
    const char *u = rel ? "%" : "";
    fputs("<tr><td>", h->fp);
    gs_html_esc(h->fp, p->tmet[t]);
    fprintf(h->fp, "</td><td class=num>%s ", sg > 0 ? "&le;" : "&ge;");
    gs_html_num(h->fp, lim);
    fputs("</td><td class=num>", h->fp);
    gs_html_num(h->fp, mean);
    fputs(" &plusmn; ", h->fp);
    gs_html_num(h->fp, half);
    fputs("</td><td class=num>", h->fp);
    gs_html_num(h->fp, e);
    fprintf(h->fp, "</td><td>%s</td><td class=num>%+.3g%s (%+.3g%s to "
            "%+.3g%s)</td></tr>\n",
            !isfinite(e) ? "not measured" : sg * (lim - e) >= 0 ? "met"
                                                                : "missed",
            k * sg * (lim - mean) / sc, u, k * sg * (lim - e) / sc, u,
            k * sg * (lim - f) / sc, u);
}

static void plan_answer(struct gs_html *h, const struct plan *p)
{
    long x = (long)p->chosen[0], y = (long)p->chosen[1];
    long show = x >= 0 && (size_t)x < p->nc ? x
              : y >= 0 && (size_t)y < p->nc ? y : -1;
    gs_html_section(h, "answer", "The plan");
    fputs("<p class=answer>", h->fp);
    if (show < 0) {
        fputs("No candidate was run to a verdict.</p>\n", h->fp);
        gs_html_section_end(h);
        return;
    }
    fputs(show == x ? "The cheapest feasible fleet: <b>"
                    : "No candidate is feasible; the closest: <b>", h->fp);
    gs_html_esc(h->fp, p->label[show]);
    fputs("</b> at $", h->fp);
    gs_html_num(h->fp, p->cost[show]);
    fputs(" an hour ($", h->fp);
    gs_html_num(h->fp, 730 * p->cost[show]);
    fprintf(h->fp, " a month), judged over %.0f seeds (status: ",
            p->seeds[show]);
    gs_html_esc(h->fp, p->status[show]);
    fputs(").</p>\n", h->fp);
    if (p->nt > 0) {
        fputs("<p>Each target: the mean over the seeds with its 95% "
              "interval; met when the interval's unfavourable end is "
              "inside the limit; the margin is how far the mean is inside "
              "the limit, as a share of it, with the margins of the "
              "interval's two ends.</p>\n<table><tr><th>target</th>"
              "<th>limit</th><th>mean &plusmn; 95%</th><th>unfavourable "
              "end</th><th>verdict</th><th>margin (interval)</th></tr>\n",
              h->fp);
        for (size_t t = 0; t < p->nt; t++)
            target_row(h, p, t, (size_t)show);
        fputs("</table>\n", h->fp);
    }
    gs_html_section_end(h);
}

static void plan_front(struct gs_html *h, const struct plan *p)
{
    struct gs_plot *f = gs_plot_new("cost (USD per hour)", "SLA attainment",
                                    0);
    double *fx = malloc((p->nfront + 1) * sizeof *fx);
    double *fy = malloc((p->nfront + 1) * sizeof *fy);
    if (f == NULL || fx == NULL || fy == NULL) {
        gs_plot_free(f);
        free(fx);
        free(fy);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < p->nfront; i++) {
        double c = p->front[i];
        if (c >= 0 && c < (double)p->nc) {
            fx[k] = p->cost[(size_t)c];
            fy[k++] = p->att[(size_t)c];
        }
    }
    gs_plot_add(f, "Pareto front", GS_PLOT_LINES, fx, fy, k);
    gs_plot_add(f, "every candidate run", GS_PLOT_POINTS, p->cost, p->att,
                p->nc);
    long x = (long)p->chosen[0];
    if (x >= 0 && (size_t)x < p->nc) {
        char *t = NULL;
        if (asprintf(&t, "chosen: %s", p->label[x]) >= 0)
            gs_plot_add(f, t, GS_PLOT_MARK, &p->cost[x], &p->att[x], 1);
        free(t);
    }
    free(fx);
    free(fy);
    if (gs_plot_nseries(f) == 0) {
        gs_plot_free(f);
        return;
    }
    gs_html_section(h, "front", "Cost against SLA attainment");
    fputs("<p>Every candidate tried: its cost and its SLA attainment (the "
          "least of the shares of jobs within their wait limit and "
          "deadline, and of requests within their services' targets), the "
          "mean over its seeds; the line joins the Pareto front; the ring "
          "marks the plan chosen.</p>\n", h->fp);
    gs_html_plot(h, f, "The Pareto front, chosen plan marked");
    gs_html_section_end(h);
}

static void plan_candidates(struct gs_html *h, const struct plan *p)
{
    gs_html_section(h, "candidates", "Every candidate, in the order tried");
    fputs("<table><tr><th>candidate</th><th>status</th><th>seeds</th>"
          "<th>USD per hour</th><th>attainment</th></tr>\n", h->fp);
    for (size_t i = 0; i < p->nc; i++) {
        fputs(i == (size_t)p->chosen[0] && p->chosen[0] >= 0
                  ? "<tr class=sig><td>" : "<tr><td>", h->fp);
        gs_html_esc(h->fp, p->label[i]);
        fputs("</td><td>", h->fp);
        gs_html_esc(h->fp, p->status[i]);
        fputs("</td><td class=num>", h->fp);
        gs_html_num(h->fp, p->seeds[i]);
        fputs("</td><td class=num>", h->fp);
        gs_html_num(h->fp, p->cost[i]);
        fputs("</td><td class=num>", h->fp);
        gs_html_num(h->fp, p->att[i]);
        fputs("</td></tr>\n", h->fp);
    }
    fputs("</table>\n", h->fp);
    gs_html_section_end(h);
}

static void plan_growth(struct gs_html *h)
{
    double *fac = NULL, *cost = NULL;
    char **plan = NULL;
    size_t d[3], n = 0;
    if (gs_h5in_doubles(h->r, "/plan/growth/factor", &fac, d) == 1 &&
        vec(h->r, "/plan/growth/cost_per_hour_usd", &cost, d[0]) == 0 &&
        gs_h5in_strings(h->r, "/plan/growth/plan", &plan, &n) == 0 &&
        n == d[0] && n > 0) {
        gs_html_section(h, "growth", "The plan as the load grows");
        fputs("<table><tr><th>load factor</th><th>plan</th><th>USD per "
              "hour</th></tr>\n", h->fp);
        for (size_t i = 0; i < n; i++) {
            fputs("<tr><td class=num>", h->fp);
            gs_html_num(h->fp, fac[i]);
            fputs("</td><td>", h->fp);
            gs_html_esc(h->fp, plan[i]);
            fputs("</td><td class=num>", h->fp);
            gs_html_num(h->fp, cost[i]);
            fputs("</td></tr>\n", h->fp);
        }
        fputs("</table>\n", h->fp);
        gs_html_section_end(h);
    }
    free(fac);
    free(cost);
    gs_h5in_strs_free(plan, n);
}

void gs_html_plan(struct gs_html *h)
{
    struct plan p;
    if (plan_read(h->r, &p) == 0) {
        plan_answer(h, &p);
        plan_front(h, &p);
        plan_candidates(h, &p);
        plan_growth(h);
    }
    plan_free(&p);
}
