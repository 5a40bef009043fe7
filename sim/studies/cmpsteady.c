/* cmpsteady.c -- compare's steady-state section: each policy's
 * steady-state estimates over its seeds, and their paired differences.
 *
 * In a steady-state question every run of a comparison analyses itself
 * (io/question.c): per service the TTFT p99 and mean, and the jobs' wait
 * p99 and mean, from the part of its series kept after MSER-5's warm-up;
 * its file holds that analysis (/question/estimates).  Over a policy's
 * seeds:
 *
 * - a mean is the mean of the seeds' estimates, with Student's t over
 *   them (independent replications; Law, 5th ed., sec. 9.4.1);
 * - a percentile is the quantile of the long-run distribution of all
 *   values, so it is the quantile of every seed's retained values pooled,
 *   not the mean of the seeds' own p99s (biased low on short runs: each
 *   seed's p99 sits on its few values beyond it).  Its 95% interval is
 *   sectioning with the seeds as sections (Asmussen & Glynn 2007,
 *   III.5a): t over the seeds' own p99s, centred on the pooled value
 *   (steady.h's gs_quantile_pooled and gs_quantile_reps).  The retained
 *   values are read back from each run's file (its /requests or /jobs
 *   table, in the run's order) and the warm-up MSER-5 finds on them must
 *   be the one the run recorded -- the series is then the run's own; a
 *   file that does not give it back (requests sampled for size) leaves
 *   that policy's cell the mean over seeds, and the section says so.
 *
 * Paired differences.  Policies run on the same seeds (common random
 * numbers).  For a mean, the paired t test on the per-seed differences
 * (gs_paired).  For a percentile, the statistic is the difference of the
 * two policies' pooled quantiles, and its interval sectioning again: the
 * per-seed differences of their own p99s are the sections, t over them,
 * centred on the pooled difference -- the sectioning interval of a
 * smooth function of quantiles (Nakayama 2014, ACM TOMACS 24); the
 * p-value is that t statistic's.  Each estimate's npol (npol - 1) / 2
 * pairs are Holm-corrected at 5% family-wise (gs_holm), and the ranking
 * line claims an order only where every pair across a cut differs
 * (gs_rank_groups), as compare's main table does. */
#include "cmpsteady.h"
#include "../base/err.h"
#include "../base/steady.h"
#include "../inference/service.h"
#include "../io/h5in.h"
#include "../io/question.h"
#include "../setup/scenario.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct steady_tab {
    int nq, np, ns;
    double *est, *warm;         /* [p][k][q] each run's own */
    double *cell, *half;        /* [p][q] over the seeds */
    int *pooled;                /* [p][q] 1: a pooled percentile */
};

#define AT(t, p, k, q) (((size_t)(p) * (t)->ns + (k)) * (t)->nq + (q))

/* Run file f's series for estimate q (even: a p99; q / 2 a service, or
 * the jobs after the services), in the run's order, into a new array.
 * NULL when it cannot be read. */
static double *series(const char *f, int q, int nsvcs, long *n)
{
    struct gs_diag d = { 0 };
    double *x = NULL;
    long m = 0;
    *n = 0;
    if (q / 2 < nsvcs) {
        double *sv = NULL, *st = NULL, *tt = NULL;
        long a = 0, b = 0, c = 0;
        if (gs_h5_read_column(f, "/requests", "service", &sv, &a, &d) == 0 &&
            gs_h5_read_column(f, "/requests", "state", &st, &b, &d) == 0 &&
            gs_h5_read_column(f, "/requests", "ttft_s", &tt, &c, &d) == 0 &&
            a == b && b == c && (x = malloc((size_t)(a + 1) * sizeof *x)))
            for (long i = 0; i < a; i++)
                if ((int)sv[i] == q / 2 && (int)st[i] == GS_REQ_DONE)
                    x[m++] = tt[i];
        free(sv);
        free(st);
        free(tt);
    } else {
        struct gs_h5_job *j = NULL;
        long nj = 0;
        if (gs_h5_read_jobs(f, &j, &nj, &d) == 0 &&
            (x = malloc((size_t)(nj + 1) * sizeof *x)))
            for (long i = 0; i < nj; i++)
                if (!isnan(j[i].wait_s))
                    x[m++] = j[i].wait_s;
        free(j);
    }
    gs_diag_free(&d);
    *n = m;
    return x;
}

/* Policy p's pooled p99 of estimate q into t->cell and t->half; 0, or -1
 * when a run's series is not the one it analysed (the caller keeps the
 * mean over seeds). */
static int pool_one(struct steady_tab *t, const char *const *files,
                    int nsvcs, int p, int q)
{
    struct gs_qtail *tl = calloc((size_t)t->ns, sizeof *tl);
    double **xs = calloc((size_t)t->ns, sizeof *xs);
    double *qr = malloc((size_t)t->ns * sizeof *qr);
    int rc = tl && xs && qr ? 0 : -1;
    for (int k = 0; rc == 0 && k < t->ns; k++) {
        long n, w = 0;
        xs[k] = series(files[p * t->ns + k], q, nsvcs, &n);
        if (xs[k] == NULL || (n >= 10 && gs_mser5(xs[k], n, &w, NULL) < 0) ||
            (double)w != t->warm[AT(t, p, k, q)]) {
            rc = -1;
            break;
        }
        tl[k] = (struct gs_qtail){ n - w, n - w, xs[k] + w };
        qr[k] = t->est[AT(t, p, k, q)];
    }
    double v, lo, hi;
    struct gs_ci ci;
    if (rc == 0 && gs_quantile_pooled(tl, t->ns, 0.99, &v, &lo, &hi) == 1 &&
        gs_quantile_reps(lo, hi, qr, t->ns, 0.95, &ci) == 0) {
        t->cell[(size_t)p * t->nq + q] = ci.est;
        t->half[(size_t)p * t->nq + q] = ci.half;
        t->pooled[(size_t)p * t->nq + q] = 1;
    } else {
        rc = -1;
    }
    for (int k = 0; xs && k < t->ns; k++)
        free(xs[k]);
    free(xs);
    free(tl);
    free(qr);
    return rc;
}

/* Read every run's estimates and warm-ups, and make each policy's cells.
 * 0, or -1 (a file unreadable, out of memory). */
static int tab_fill(struct steady_tab *t, const struct gs_cmp_steady *in)
{
    for (int r = 0; r < t->np * t->ns; r++)
        for (int j = 0; j < 2; j++) {
            static const char *const cn[2] = { "estimate", "warmup_deleted" };
            struct gs_diag d = { 0 };
            double *v = NULL;
            long nv = 0;
            int bad = gs_h5_read_column(in->runfiles[r], "/question/estimates",
                                        cn[j], &v, &nv, &d) < 0 || nv != t->nq;
            gs_diag_free(&d);
            for (int q = 0; !bad && q < t->nq; q++)
                (j ? t->warm : t->est)[(size_t)r * t->nq + q] = v[q];
            free(v);
            if (bad)
                return -1;
        }
    double *col = malloc((size_t)t->ns * sizeof *col);
    if (col == NULL)
        return -1;
    for (int p = 0; p < t->np; p++)
        for (int q = 0; q < t->nq; q++) {
            for (int k = 0; k < t->ns; k++)
                col[k] = t->est[AT(t, p, k, q)];
            struct gs_ci ci;
            gs_ci_reps(col, t->ns, 0.95, &ci, NULL);
            t->cell[(size_t)p * t->nq + q] = ci.est;
            t->half[(size_t)p * t->nq + q] = ci.half;
            if (q % 2 == 0)
                pool_one(t, in->runfiles, in->sc->nsvcs, p, q);
        }
    free(col);
    return 0;
}

/* The difference b - a of estimate q over the seeds: centred on the
 * policies' cells (pooled p99s, or means), t over the per-seed
 * differences; its half-width and two-sided p-value. */
static void pair(const struct steady_tab *t, int a, int b, int q,
                 double *diff, double *half, double *pv)
{
    double *d = malloc((size_t)t->ns * sizeof *d);
    GS_OOM_IF(d == NULL);
    for (int k = 0; k < t->ns; k++)
        d[k] = t->est[AT(t, b, k, q)] - t->est[AT(t, a, k, q)];
    *diff = t->cell[(size_t)b * t->nq + q] - t->cell[(size_t)a * t->nq + q];
    double sd = gsl_stats_sd(d, 1, (size_t)t->ns);
    double se = sd / sqrt((double)t->ns);
    *half = gsl_cdf_tdist_Pinv(0.975, t->ns - 1.0) * se;
    if (sd == 0)
        *pv = *diff == 0 ? 1 : 0;
    else
        *pv = 2 * gsl_cdf_tdist_Q(fabs(*diff) / se, t->ns - 1.0);
    free(d);
}

/* Estimate q's pairs: sig[i * np + j] after Holm, and the ranking. */
static int pairs(const struct steady_tab *t, int q, int *sig, int *order,
                 int *tier)
{
    int np = t->np, m = np * (np - 1) / 2, k = 0;
    double *pv = malloc(((size_t)m + 1) * sizeof *pv), dd, hh;
    int *s = malloc(((size_t)m + 1) * sizeof *s);
    double *mean = malloc((size_t)np * sizeof *mean);
    if (!pv || !s || !mean) {
        free(pv);
        free(s);
        free(mean);
        return GS_ENOMEM;
    }
    for (int i = 0; i < np; i++)
        for (int j = i + 1; j < np; j++)
            pair(t, i, j, q, &dd, &hh, &pv[k++]);
    int rc = gs_holm(pv, m, 0.05, s);
    k = 0;
    for (int i = 0; i < np; i++) {
        sig[i * np + i] = 0;
        mean[i] = t->cell[(size_t)i * t->nq + q];
        for (int j = i + 1; j < np; j++, k++)
            sig[i * np + j] = sig[j * np + i] = s[k];
    }
    if (rc == 0)
        rc = gs_rank_groups(mean, sig, np, 0, order, tier);
    free(pv);
    free(s);
    free(mean);
    return rc;
}

static void print_cells(FILE *fp, const struct steady_tab *t,
                        char (*what)[GS_QUESTION_WHAT])
{
    int partial = 0;
    fprintf(fp, "\n  steady state: each run's estimates from the part kept "
            "after its warm-up (MSER-5), over the seeds: a p99 is the "
            "quantile of every seed's retained values pooled, its 95%% "
            "interval by sectioning over the seeds; a mean, the mean and "
            "t interval over the seeds\n");
    for (int r = 0; r < 2 * t->nq; r++) {
        int q = r % t->nq, w = r >= t->nq;     /* the estimates, then */
        if (w && q % 2)                         /* one warm-up a series */
            continue;
        char label[GS_QUESTION_WHAT + 16];      /* "wait_p99_s": "wait" */
        int len = (int)strlen(what[q]) - (w ? 6 : 0);
        snprintf(label, sizeof label, "%.*s%s", len, what[q],
                 w ? " warm-up deleted" : "");
        fprintf(fp, "  %-26s", label);
        for (int p = 0; p < t->np; p++) {
            char cell[64];
            size_t i = (size_t)p * t->nq + q;
            double c = t->cell[i], h = t->half[i];
            if (w) {
                double s = 0;
                for (int k = 0; k < t->ns; k++)
                    s += t->warm[AT(t, p, k, q)];
                c = s / t->ns;
            }
            partial |= !w && q % 2 == 0 && !t->pooled[i];
            if (w || isnan(h))
                snprintf(cell, sizeof cell, "%.5g", c);
            else
                snprintf(cell, sizeof cell, "%.5g ± %.2g%s", c, h,
                         q % 2 == 0 && !t->pooled[i] ? " m" : "");
            fprintf(fp, " %*s", w || isnan(h) ? 24 : 25, cell);
        }
        fputc('\n', fp);
    }
    if (partial)
        fprintf(fp, "  (m: the mean of the seeds' p99s -- a run's retained "
                "values could not be read back from its file)\n");
}

int gs_cmp_steady_print(FILE *fp, const struct gs_cmp_steady *in)
{
    char what[GS_QUESTION_MAX][GS_QUESTION_WHAT];
    struct steady_tab t = { .nq = gs_question_names(in->sc, what),
                            .np = in->npol, .ns = in->nseeds };
    size_t n = (size_t)t.np * t.ns * t.nq + 1, c = (size_t)t.np * t.nq + 1;
    t.est = calloc(n, sizeof *t.est);
    t.warm = calloc(n, sizeof *t.warm);
    t.cell = calloc(c, sizeof *t.cell);
    t.half = calloc(c, sizeof *t.half);
    t.pooled = calloc(c, sizeof *t.pooled);
    int np = t.np, rc = -1;
    int *sig = calloc((size_t)np * np + 1, sizeof *sig);
    int *order = calloc((size_t)np + 1, sizeof *order);
    int *tier = calloc((size_t)np + 1, sizeof *tier);
    if (t.est && t.warm && t.cell && t.half && t.pooled && sig && order &&
        tier && tab_fill(&t, in) == 0)
        rc = 0;
    if (rc == 0)
        print_cells(fp, &t, what);
    if (rc == 0 && np >= 2 && t.ns >= 2) {
        int b = in->baseline;
        fprintf(fp, "\n  steady state, paired differences from %s (policy "
                "minus %s on the same seeds; a p99: the difference of the "
                "pooled p99s, its interval by sectioning over the seeds' own "
                "differences; a mean: paired t; * significant after Holm's "
                "correction over all %d pairs)\n", in->pol[b], in->pol[b],
                np * (np - 1) / 2);
        for (int q = 0; q < t.nq && rc == 0; q++) {
            if ((rc = pairs(&t, q, sig, order, tier)) < 0)
                break;
            int ng = rc;
            rc = 0;
            fprintf(fp, "  %-26s", what[q]);
            for (int p = 0; p < np; p++) {
                double dd, hh, pv;
                if (p == b)
                    continue;
                pair(&t, b, p, q, &dd, &hh, &pv);
                char cell[64];
                snprintf(cell, sizeof cell, "%+.4g ± %.2g%s", dd, hh,
                         sig[p * np + b] ? " *" : "  ");
                fprintf(fp, " %27s", cell);
            }
            fprintf(fp, "   ranking (lower is better): ");
            if (ng == 1)
                fprintf(fp, "no significant difference\n");
            for (int i = 0; ng > 1 && i < np; i++)
                fprintf(fp, "%s%s", i == 0 ? "" : tier[i] != tier[i - 1]
                        ? " > " : ", ", in->pol[order[i]]);
            if (ng > 1)
                fputc('\n', fp);
        }
    }
    free(t.est);
    free(t.warm);
    free(t.cell);
    free(t.half);
    free(t.pooled);
    free(sig);
    free(order);
    free(tier);
    return rc;
}
