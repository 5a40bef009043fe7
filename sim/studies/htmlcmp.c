/* htmlcmp.c -- a comparison's answer in `gpusim report`: the ranking and
 * the paired differences.
 *
 * From /compare/values [policy, seed, metric] the analysis is compare's
 * own (cmppair.h): each policy's difference from the baseline (the first
 * policy of the file, compare's default) on the same seeds, with its 95%
 * paired-t interval, starred when significant after Holm's correction
 * over every pair of policies; and a ranking per metric that puts '>'
 * only between groups that differ significantly.  The means with their
 * 95% intervals come from /compare/table.  Shown: the headline metrics
 * that differ between runs, then (folded) every metric that differs.
 * The runs the later sections plot are each policy's first seed
 * (/runs/POLICY/seed0). */
#include "cmppair.h"
#include "htmlint.h"

#include "../base/steady.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const headline[] = {
    "utilization_makespan", "throughput_makespan_jph", "wait_mean_s",
    "wait_p95_s", "jct_mean_s", "sla_violations", "attainment", "cost_usd",
    "inference_sla_attainment", "inference_ttft_p99_s",
    "inference_itl_p99_s", NULL,
};

struct cmp {
    char **pol, **met;
    size_t np, nm, ns;
    double *v;                  /* [np][ns][nm] */
    double *mean, *half;        /* [np][nm] from /compare/table */
    char *differs;              /* [nm] */
};

static void cmp_free(struct cmp *c)
{
    gs_h5in_strs_free(c->pol, c->np);
    gs_h5in_strs_free(c->met, c->nm);
    free(c->v);
    free(c->mean);
    free(c->half);
    free(c->differs);
}

/* /compare/table's mean and half into c (NaN where absent). */
static void cmp_table(struct gs_h5in *r, struct cmp *c)
{
    char **tp = NULL, **tm = NULL;
    double *mean = NULL, *half = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0, n4 = 0;
    const char *t = "/compare/table";
    for (size_t i = 0; i < c->np * c->nm; i++)
        c->mean[i] = c->half[i] = NAN;
    if (gs_h5in_column_strs(r, t, "policy", &tp, &n1) == 0 &&
        gs_h5in_column_strs(r, t, "metric", &tm, &n2) == 0 &&
        gs_h5in_column(r, t, "mean", &mean, &n3) == 0 &&
        gs_h5in_column(r, t, "half", &half, &n4) == 0 && n1 == n2 &&
        n1 == n3 && n1 == n4)
        for (size_t i = 0; i < n1; i++)
            for (size_t p = 0; p < c->np; p++)
                for (size_t m = 0; m < c->nm; m++)
                    if (strcmp(tp[i], c->pol[p]) == 0 &&
                        strcmp(tm[i], c->met[m]) == 0) {
                        c->mean[p * c->nm + m] = mean[i];
                        c->half[p * c->nm + m] = half[i];
                    }
    gs_h5in_strs_free(tp, n1);
    gs_h5in_strs_free(tm, n2);
    free(mean);
    free(half);
}

static int cmp_read(struct gs_h5in *r, struct cmp *c)
{
    memset(c, 0, sizeof *c);
    size_t d[3];
    if (gs_h5in_strings(r, "/compare/policies", &c->pol, &c->np) < 0 ||
        gs_h5in_strings(r, "/compare/metrics", &c->met, &c->nm) < 0 ||
        gs_h5in_doubles(r, "/compare/values", &c->v, d) != 3 ||
        d[0] != c->np || d[2] != c->nm || c->np == 0)
        return -1;
    c->ns = d[1];
    c->mean = malloc((c->np * c->nm + 1) * sizeof *c->mean);
    c->half = malloc((c->np * c->nm + 1) * sizeof *c->half);
    c->differs = calloc(c->nm + 1, 1);
    if (c->mean == NULL || c->half == NULL || c->differs == NULL)
        return -1;
    cmp_table(r, c);
    for (size_t m = 0; m < c->nm; m++)
        for (size_t k = 1; k < c->np * c->ns; k++) {
            double a = c->v[m], b = c->v[k * c->nm + m];
            if (a != b && !(isnan(a) && isnan(b)))
                c->differs[m] = 1;
        }
    return 0;
}

/* One metric's row: means, differences from the baseline, ranking. */
static void metric_row(struct gs_html *h, const struct cmp *c, size_t m,
                       const struct gs_cmp_runs *runs, double *diff,
                       double *half, int *sig, int *order, int *tier)
{
    int np = (int)c->np;
    fputs("<tr><td>", h->fp);
    gs_html_esc(h->fp, c->met[m]);
    fputs("</td>", h->fp);
    for (int p = 0; p < np; p++) {
        fputs("<td class=num>", h->fp);
        gs_html_num(h->fp, c->mean[(size_t)p * c->nm + m]);
        fputs(" &plusmn; ", h->fp);
        gs_html_num(h->fp, c->half[(size_t)p * c->nm + m]);
        fputs("</td>", h->fp);
    }
    int ok = c->ns >= 2 && np >= 2 &&
             gs_cmp_pairs(runs, (int)m, 0, diff, half, sig) == 0;
    for (int p = 1; p < np; p++) {
        fputs(ok && sig[p * np] ? "<td class=\"num sig\">" : "<td class=num>",
              h->fp);
        if (ok) {
            fprintf(h->fp, "%+.4g &plusmn; ", diff[p]);
            gs_html_num(h->fp, half[p]);
            fputs(sig[p * np] ? " *" : "", h->fp);
        }
        fputs("</td>", h->fp);
    }
    fputs("<td>", h->fp);
    int hb = gs_cmp_higher_better(c->met[m]);
    double *mu = malloc(c->np * sizeof *mu);
    if (ok && mu) {
        for (int p = 0; p < np; p++)
            mu[p] = c->mean[(size_t)p * c->nm + m];
        int ng = gs_rank_groups(mu, sig, np, hb, order, tier);
        if (ng == 1)
            fputs("no significant difference", h->fp);
        for (int i = 0; ng > 1 && i < np; i++) {
            if (i > 0)
                fputs(tier[i] != tier[i - 1] ? " &gt; " : ", ", h->fp);
            gs_html_esc(h->fp, c->pol[order[i]]);
        }
        fprintf(h->fp, " (%s is better)", hb ? "higher" : "lower");
    }
    free(mu);
    fputs("</td></tr>\n", h->fp);
}

/* The table of the metrics m with pick(m) set. */
static void metric_table(struct gs_html *h, const struct cmp *c,
                         const char *pick)
{
    int np = (int)c->np;
    size_t n = c->np ? c->np : 1;
    double *diff = malloc(n * sizeof *diff), *half = malloc(n * sizeof *half);
    int *sig = malloc(n * n * sizeof *sig), *order = malloc(n * sizeof *order);
    int *tier = malloc(n * sizeof *tier);
    struct gs_cmp_runs runs = { np, (int)c->ns, (int)c->nm,
                                (const char *const *)c->pol,
                                (const char *const *)c->met, c->v };
    if (diff && half && sig && order && tier) {
        fputs("<table><tr><th>metric</th>", h->fp);
        for (int p = 0; p < np; p++) {
            fputs("<th>", h->fp);
            gs_html_esc(h->fp, c->pol[p]);
            fputs("<br>mean &plusmn; 95%</th>", h->fp);
        }
        for (int p = 1; p < np; p++) {
            fputs("<th>", h->fp);
            gs_html_esc(h->fp, c->pol[p]);
            fputs(" &minus; ", h->fp);
            gs_html_esc(h->fp, c->pol[0]);
            fputs("</th>", h->fp);
        }
        fputs("<th>ranking</th></tr>\n", h->fp);
        for (size_t m = 0; m < c->nm; m++)
            if (pick[m])
                metric_row(h, c, m, &runs, diff, half, sig, order, tier);
        fputs("</table>\n", h->fp);
    }
    free(diff);
    free(half);
    free(sig);
    free(order);
    free(tier);
}

void gs_html_compare_answer(struct gs_html *h)
{
    struct cmp c;
    if (cmp_read(h->r, &c) < 0) {
        cmp_free(&c);
        return;
    }
    char *head = calloc(c.nm + 1, 1);
    int nh = 0;
    for (int k = 0; head && headline[k]; k++)
        for (size_t m = 0; m < c.nm; m++)
            if (c.differs[m] && strcmp(c.met[m], headline[k]) == 0)
                head[m] = 1, nh++;
    gs_html_section(h, "answer", "Which policy, and how sure");
    fprintf(h->fp, "<p class=answer>%zu policies on the same %zu seeds "
            "(common random numbers). Each difference is the policy minus "
            "<q>", c.np, c.ns);
    gs_html_esc(h->fp, c.pol[0]);
    fputs("</q> on the same seed, with its 95% paired-t interval; "
          "<b>*</b> marks one significant after Holm's correction over "
          "every pair of policies. The ranking puts &gt; only where every "
          "policy before it differs significantly from every one after "
          "it.</p>\n", h->fp);
    if (c.ns < 2)
        fputs("<p>(one seed: no interval or paired difference)</p>\n",
              h->fp);
    if (head && nh > 0)
        metric_table(h, &c, head);
    fputs("<details><summary>every metric that differs between runs"
          "</summary>\n", h->fp);
    metric_table(h, &c, c.differs);
    fputs("</details>\n", h->fp);
    gs_html_section_end(h);
    free(head);
    cmp_free(&c);
}

void gs_html_runs_free(struct gs_html_run *runs, int n)
{
    for (int i = 0; runs && i < n; i++) {
        free(runs[i].prefix);
        free(runs[i].label);
    }
    free(runs);
}

int gs_html_compare_runs(struct gs_html *h, struct gs_html_run **runs)
{
    char **pol = NULL;
    size_t np = 0;
    *runs = NULL;
    if (gs_h5in_strings(h->r, "/compare/policies", &pol, &np) < 0)
        return 0;
    struct gs_html_run *v = calloc(np + 1, sizeof *v);
    int n = 0;
    for (size_t p = 0; v && p < np; p++) {
        char *g = NULL;
        if (strchr(pol[p], '/') || asprintf(&g, "/runs/%s/seed0", pol[p]) < 0)
            continue;
        if (!gs_h5in_has(h->r, g) || (v[n].label = strdup(pol[p])) == NULL) {
            free(g);
            continue;
        }
        v[n++].prefix = g;
    }
    gs_h5in_strs_free(pol, np);
    *runs = v;
    return n;
}
