/* cmppair.c -- compare's paired differences, Holm's correction and the
 * ranking lines.
 *
 * Every policy of a comparison runs the same seeds, so seed k gives every
 * policy the same workload (common random numbers): the per-seed
 * difference of two policies cancels the workload's own variation, and the
 * paired t interval of that difference (gs_paired, steady.c) is far
 * narrower than the two policies' own intervals side by side.  The table
 * shows each policy minus the baseline (--baseline, default the first).
 *
 * Significance is decided over every pair of policies at once, per metric:
 * npol (npol - 1) / 2 paired t tests, Holm-corrected at 5% family-wise
 * (gs_holm), so that looking at many pairs does not manufacture a winner.
 * A baseline difference is starred when its pair is significant in that
 * family.  The ranking line sorts the policies by their mean and puts a
 * '>' between two neighbours only where every policy before it differs
 * significantly from every one after it (gs_rank_groups); a metric where
 * no such cut exists reads "no significant difference".
 *
 * Which measures rank: with compare's default billing window (every run
 * billed until the longest run's end) utilization and throughput are the
 * workload's GPU-hours and job count over a common window -- the same for
 * every policy when all jobs finish.  utilization_makespan and
 * throughput_makespan_jph are the same quantities up to each run's own
 * end (its last job), which is what a policy changes; the table says
 * which is which. */
#include "cmppair.h"
#include "../base/err.h"
#include "../base/steady.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The metrics where more is better; every other compared metric (waits,
 * spans, costs, counts of kills and starved jobs) is better lower. */
static const char *const higher[] = {
    "utilization", "utilization_makespan", "throughput_jobs_per_hour",
    "throughput_makespan_jph", "cpu_utilization", "memory_utilization",
    "mig_slice_utilization", "availability", "spot_savings_usd",
    "inference_finished", "inference_sla_attainment",
    "inference_goodput_rps", "inference_tokens_per_s_per_gpu", NULL,
};

int gs_cmp_higher_better(const char *metric)
{
    for (int i = 0; higher[i]; i++)
        if (strcmp(higher[i], metric) == 0)
            return 1;
    return 0;
}

int gs_cmp_measure_kind(const char *metric)
{
    if (strcmp(metric, "utilization_makespan") == 0 ||
        strcmp(metric, "throughput_makespan_jph") == 0)
        return 1;
    if (strcmp(metric, "utilization") == 0 ||
        strcmp(metric, "throughput_jobs_per_hour") == 0)
        return 2;
    return 0;
}

static void column(const struct gs_cmp_runs *r, int p, int m, double *col)
{
    for (int k = 0; k < r->nseeds; k++)
        col[k] = r->values[((size_t)p * r->nseeds + k) * r->nmetrics + m];
}

int gs_cmp_pairs(const struct gs_cmp_runs *r, int m, int baseline,
                 double *diff, double *half, int *sig)
{
    int np = r->npol, npairs = np * (np - 1) / 2;
    if (r->nseeds < 2)
        return GS_EINVAL;
    double *a = malloc((size_t)r->nseeds * sizeof *a);
    double *b = malloc((size_t)r->nseeds * sizeof *b);
    double *pv = calloc((size_t)npairs + 1, sizeof *pv);
    int *s = malloc((size_t)(npairs + 1) * sizeof *s);
    int rc = a && b && pv && s ? 0 : GS_ENOMEM;
    struct gs_ci ci;
    double p;
    for (int q = 0, i = 0; rc == 0 && q < np; q++)
        for (int u = q + 1; u < np; u++) {
            column(r, q, m, a);
            column(r, u, m, b);
            gs_paired(a, b, r->nseeds, 0.95, &ci, &pv[i++]);
        }
    if (rc == 0)
        rc = gs_holm(pv, npairs, 0.05, s);
    for (int q = 0, i = 0; rc == 0 && q < np; q++) {
        sig[q * np + q] = 0;
        for (int u = q + 1; u < np; u++, i++)
            sig[q * np + u] = sig[u * np + q] = s[i];
    }
    if (rc == 0)
        column(r, baseline, m, a);
    for (int q = 0; rc == 0 && q < np; q++) {
        column(r, q, m, b);
        gs_paired(a, b, r->nseeds, 0.95, &ci, &p);
        diff[q] = ci.est;
        half[q] = ci.half;
    }
    free(a);
    free(b);
    free(pv);
    free(s);
    return rc;
}

/* The arrays one metric's analysis needs. */
struct pairbuf {
    double *diff, *half, *mean;
    int *sig, *order, *tier;
};

static void pairbuf_free(struct pairbuf *b)
{
    free(b->diff);
    free(b->half);
    free(b->mean);
    free(b->sig);
    free(b->order);
    free(b->tier);
}

static int pairbuf_new(struct pairbuf *b, int np)
{
    size_t n = (size_t)np;
    b->diff = malloc(n * sizeof *b->diff);
    b->half = malloc(n * sizeof *b->half);
    b->mean = malloc(n * sizeof *b->mean);
    b->sig = malloc(n * n * sizeof *b->sig);
    b->order = malloc(n * sizeof *b->order);
    b->tier = malloc(n * sizeof *b->tier);
    if (b->diff && b->half && b->mean && b->sig && b->order && b->tier)
        return 0;
    pairbuf_free(b);
    return GS_ENOMEM;
}

/* Analyse metric m into b: the pairs, the means, the ranking groups. */
static int analyse(const struct gs_cmp_runs *r, int m, int baseline,
                   struct pairbuf *b, int *ngroups)
{
    int rc = gs_cmp_pairs(r, m, baseline, b->diff, b->half, b->sig);
    if (rc < 0)
        return rc;
    double *col = malloc((size_t)r->nseeds * sizeof *col);
    if (col == NULL)
        return GS_ENOMEM;
    for (int p = 0; p < r->npol; p++) {
        column(r, p, m, col);
        double s = 0;
        for (int k = 0; k < r->nseeds; k++)
            s += col[k];
        b->mean[p] = s / r->nseeds;
    }
    free(col);
    *ngroups = gs_rank_groups(b->mean, b->sig, r->npol,
                              gs_cmp_higher_better(r->metrics[m]), b->order,
                              b->tier);
    return *ngroups < 0 ? *ngroups : 0;
}

static const char *kind_label(const char *metric)
{
    int k = gs_cmp_measure_kind(metric);
    return k == 1 ? "ranking" : k == 2 ? "billing" : "";
}

static void print_ranking(FILE *fp, const struct gs_cmp_runs *r, int m,
                          const struct pairbuf *b, int ngroups)
{
    fprintf(fp, "  %-30s (%s is better): ", r->metrics[m],
            gs_cmp_higher_better(r->metrics[m]) ? "higher" : "lower");
    if (ngroups == 1) {
        fprintf(fp, "no significant difference\n");
        return;
    }
    for (int i = 0; i < r->npol; i++) {
        if (i > 0)
            fputs(b->tier[i] != b->tier[i - 1] ? " > " : ", ", fp);
        fputs(r->pol[b->order[i]], fp);
    }
    fputc('\n', fp);
}

int gs_cmp_print_pairs(FILE *fp, const struct gs_cmp_runs *r,
                       const char *show, int baseline)
{
    int np = r->npol;
    if (np < 2 || r->nseeds < 2) {
        fprintf(fp, "\n(paired differences need 2 policies and 2 seeds)\n");
        return 0;
    }
    struct pairbuf b;
    if (pairbuf_new(&b, np) < 0)
        return GS_ENOMEM;
    fprintf(fp, "\npaired differences from %s (policy minus %s on the same "
            "seed; mean and 95%% interval; * significant after Holm's "
            "correction over all %d pairs of policies)\n\n",
            r->pol[baseline], r->pol[baseline], np * (np - 1) / 2);
    fprintf(fp, "  %-26s %-8s", "metric", "measure");
    for (int p = 0; p < np; p++)
        if (p != baseline)
            fprintf(fp, " %26s", r->pol[p]);
    fputc('\n', fp);
    int rc = 0, ng;
    for (int m = 0; m < r->nmetrics && rc == 0; m++) {
        if (!show[m] || (rc = analyse(r, m, baseline, &b, &ng)) < 0)
            continue;
        fprintf(fp, "  %-26s %-8s", r->metrics[m], kind_label(r->metrics[m]));
        for (int p = 0; p < np; p++) {
            if (p == baseline)
                continue;
            char cell[64];
            snprintf(cell, sizeof cell, "%+.4g ± %.2g%s", b.diff[p],
                     b.half[p], b.sig[p * np + baseline] ? " *" : "  ");
            fprintf(fp, " %27s", cell);     /* "±": 2 bytes, 1 column */
        }
        fputc('\n', fp);
    }
    fprintf(fp, "\nranking (a '>' only where every policy before it differs "
            "significantly from every one after it):\n");
    for (int m = 0; m < r->nmetrics && rc == 0; m++)
        if (show[m] && (rc = analyse(r, m, baseline, &b, &ng)) == 0)
            print_ranking(fp, r, m, &b, ng);
    fprintf(fp, "\nmeasure: 'ranking' counts each run up to its own last job "
            "(what a policy changes); 'billing' is over the billing window, "
            "the same for every policy when all jobs finish within it\n");
    pairbuf_free(&b);
    return rc;
}

int gs_cmp_print_pairs_csv(FILE *fp, const struct gs_cmp_runs *r,
                           const char *show, int baseline)
{
    int np = r->npol;
    if (np < 2 || r->nseeds < 2)
        return 0;
    struct pairbuf b;
    if (pairbuf_new(&b, np) < 0)
        return GS_ENOMEM;
    fprintf(fp, "policy,metric,baseline,diff,half,ci_low,ci_high,"
            "significant_holm\n");
    int rc = 0, ng;
    for (int m = 0; m < r->nmetrics && rc == 0; m++) {
        if (!show[m] || (rc = analyse(r, m, baseline, &b, &ng)) < 0)
            continue;
        for (int p = 0; p < np; p++)
            if (p != baseline)
                fprintf(fp, "%s,%s,%s,%.10g,%.10g,%.10g,%.10g,%d\n",
                        r->pol[p], r->metrics[m], r->pol[baseline],
                        b.diff[p], b.half[p], b.diff[p] - b.half[p],
                        b.diff[p] + b.half[p], b.sig[p * np + baseline]);
    }
    pairbuf_free(&b);
    return rc;
}
