/* steady.c -- output analysis: MSER-5 warm-up deletion, batch means,
 * sectioning quantiles, precision-driven length, paired tests with Holm.
 *
 * Two questions.  A *finite-horizon* question asks about a run as a whole
 * -- a trace replayed, a day with its cycle, a scripted step: the estimate
 * is the run's own average (or percentile), and its interval comes from
 * independent replications, Student's t over their values (Law,
 * "Simulation Modeling and Analysis", 5th ed., sec. 9.4.1).  A
 * *steady-state* question asks about the long run of a stationary system
 * (generated arrivals at a constant rate): the start from an empty fleet
 * is a bias to remove, and one long run gives the estimate and its
 * interval (Law sec. 9.5).
 *
 * Warm-up (MSER-5).  White (1997, "An effective truncation heuristic for
 * bias reduction in simulation output", Simulation 69(6)) and White, Cobb
 * & Spratt (2000, WSC) choose the truncation point d of a series that
 * minimises the marginal standard error
 *     MSER(d) = 1 / (k - d)^2 * sum_{j > d} (Z_j - Zbar_d)^2
 * over the k batch means Z_j of 5 consecutive observations (MSER-5), Zbar_d
 * the mean of those after d.  Deleting more lowers the bias but leaves
 * fewer observations; the statistic weighs both.  The search covers d up
 * to k / 2 only (Hoad, Robinson & Davies 2010, "Automating warm-up length
 * estimation", JORS 61, rate MSER-5 the best of 44 methods, with that
 * rule): a minimum at the bound means the transient may be longer than
 * half the run, which is reported (at_limit) so the caller runs longer.
 * Computed in O(n) from suffix sums, shifted by the overall mean so the
 * variance does not cancel away.
 *
 * Batch means.  The retained window is cut into nb non-overlapping batches
 * (the remainder of n / nb dropped from the front, next to the warm-up);
 * for batches long against the series' correlation their means are nearly
 * independent and normal, and Student's t with nb - 1 degrees of freedom
 * gives the interval (Law sec. 9.5.3; Schmeiser 1982, "Batch size effects
 * in the analysis of simulation output", Oper. Res. 30, finds 10 to 30
 * batches a good choice: fewer widens t, more shortens batches; gpusim
 * uses 20).  The independence check follows Law and Carson (1979, "A
 * sequential procedure for determining the length of a steady-state
 * simulation", Oper. Res. 27): the lag-1 autocorrelation of 2 nb half-size
 * batch means must lie below -1 / (2 nb) + 1.645 / sqrt(2 nb), the one-
 * sided 95% bound for independent means (their estimate's mean is about
 * -1/m and variance 1/m for m values); when the half-size batches pass, the
 * nb full batches are less correlated still.  A failed check is reported
 * (independent = 0): the interval is then too narrow, and a
 * precision-driven caller treats the run as not long enough.
 *
 * Quantiles.  A steady-state percentile (TTFT p99) is the quantile of the
 * long-run distribution of all values: the estimate is the sample quantile
 * of every retained value pooled (GSL's gsl_stats_quantile_from_sorted_data,
 * linear interpolation between order statistics) -- not the mean of
 * per-batch or per-replication percentiles, which is biased for extreme p
 * (each small section's p99 sits on few values).  Its interval is by
 * sectioning (Asmussen & Glynn, "Stochastic Simulation", 2007, sec.
 * III.5a; Nakayama 2014, "Confidence intervals for quantiles using
 * sectioning when applying variance-reduction techniques", ACM TOMACS 24):
 * the quantile of each of ns contiguous sections, their sample deviation
 * s, half = t(ns - 1) s / sqrt(ns), centred on the pooled quantile.  It is
 * valid when each section holds enough values beyond the quantile: on the
 * M/M/1 waiting time's p99 the 95% interval of 20 sections covers the
 * exact percentile in 90.5% of runs with 25 values beyond it per section
 * and in 96% with 100 (tests/test_steady.c), so gs_steady_quantile reports
 * that count (tail) and GS_QUANTILE_TAIL = 100 is the floor a caller asks
 * before it trusts the interval, growing the run until it holds; replications are sections too (pass their values one after
 * another, ns = replications).
 *
 * Pooled over replications.  Replications run apart (the planner's seeds
 * in worker processes), and pooling needs every retained value, not just
 * each replication's quantile.  For a quantile p >= 0.5 only the values
 * above it matter, so each replication keeps its k largest (the smallest
 * for p < 0.5; gs_qtail_keep, linear-time selection), k = min(n, 10 q n +
 * 256) with q = min(p, 1 - p): ten times its share beyond the quantile.
 * The parent merges the kept values: the pooled order statistic it needs,
 * counted from the extreme, is the merged one whenever it lies at or
 * beyond every cut replication's innermost kept value -- all values more
 * extreme than that are kept in every replication, so the ranks agree --
 * and the result is then exactly GSL's quantile of all values pooled
 * (tests check it to the bit).  Otherwise it is bounded for sure: by the
 * kept values alone on one side, and by the kept values with each missing
 * one replaced by its replication's innermost kept value on the other;
 * the interval then covers the bounds.  The interval is sectioning with
 * the replications as sections (gs_quantile_reps).  On M/M/2 started
 * stationary, 40 runs of 500 customers: the pooled p99 is 1.1% from the
 * exact law, the mean of the runs' p99s 18% low (tests/test_steady.c).
 *
 * Precision-driven length.  A half-width shrinks as 1 / sqrt(length), so
 * a run of length n with relative half-width h that asks for r needs about
 * n (h / r)^2; gs_next_length takes that, at least 1.5x (progress) and at
 * most 4x (the estimate of h is itself noisy), never above the cap.  The
 * caller's measure function decides what a length is: requests of one
 * steady run, or replications (seeds) of a finite-horizon one.
 *
 * Paired comparisons.  Policies run on the same seeds see the same
 * workload (common random numbers), so their per-seed difference has far
 * less variance than either; the paired t test on the differences (Law
 * sec. 10.2.1) gives each difference's interval and p-value.  Comparing
 * many pairs at once inflates false claims; Holm (1979, "A simple
 * sequentially rejective multiple test procedure", Scand. J. Statist. 6)
 * controls the family-wise error at alpha without assuming independence:
 * sort the m p-values, reject the i-th smallest while p_(i) <= alpha /
 * (m - i + 1) (i from 1), stop at the first that is not.  A ranking then
 * claims an order between two groups of policies only when every pair
 * across them differs significantly. */
#include "steady.h"
#include "err.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *gs_horizon_name(int h)
{
    return h == GS_HORIZON_STEADY ? "steady" : "finite";
}

double gs_ci_rel(const struct gs_ci *ci)
{
    if (isnan(ci->half) || ci->est == 0)
        return NAN;
    return fabs(ci->half / ci->est);
}

int gs_ci_precise(const struct gs_ci *ci, double rel)
{
    if (isnan(ci->half))
        return 0;
    if (ci->half == 0)
        return 1;
    return ci->est != 0 && ci->half <= rel * fabs(ci->est);
}

static int level_ok(double level)
{
    return level > 0 && level < 1;
}

/* t(1 - (1 - level) / 2, df) */
static double tq(double level, int df)
{
    return gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, (double)df);
}

int gs_ci_reps(const double *x, int n, double level, struct gs_ci *ci,
               double *sd)
{
    if (n < 1 || !level_ok(level))
        return GS_EINVAL;
    double m = gsl_stats_mean(x, 1, (size_t)n);
    double s = n > 1 ? gsl_stats_sd_m(x, 1, (size_t)n, m) : 0;
    ci->est = m;
    ci->level = level;
    ci->n = n;
    ci->half = n > 1 ? tq(level, n - 1) * s / sqrt((double)n) : NAN;
    if (sd)
        *sd = s;
    return 0;
}

int gs_mser5(const double *x, long n, long *warmup, int *at_limit)
{
    if (n < 10)
        return GS_ERANGE;
    long k = n / 5, dmax = k / 2;
    double *z = malloc((size_t)k * sizeof *z);
    if (z == NULL)
        return GS_ENOMEM;
    double shift = 0;
    for (long j = 0; j < k; j++) {
        double s = 0;
        for (int i = 0; i < 5; i++)
            s += x[j * 5 + i];
        z[j] = s / 5;
        shift += z[j];
    }
    shift /= (double)k;
    /* suffix sums from the back; the statistic for d uses z[d..k) */
    double s1 = 0, s2 = 0, best = INFINITY;
    long bestd = 0;
    for (long j = k - 1; j >= 0; j--) {
        double v = z[j] - shift;
        s1 += v;
        s2 += v * v;
        if (j > dmax)
            continue;
        double m = (double)(k - j);
        double ss = s2 - s1 * s1 / m;
        if (ss < 0)
            ss = 0;
        double stat = ss / (m * m);
        if (stat <= best) {     /* <=: the smallest d among equal minima */
            best = stat;
            bestd = j;
        }
    }
    free(z);
    *warmup = bestd * 5;
    if (at_limit)
        *at_limit = dmax > 0 && bestd == dmax;
    return 0;
}

/* Means of nb batches of floor(n / nb) values of x, the remainder dropped
 * from the front, into bm[nb]. */
static void batch_means(const double *x, long n, int nb, double *bm)
{
    long b = n / nb, off = n - b * nb;
    for (int j = 0; j < nb; j++)
        bm[j] = gsl_stats_mean(x + off + (long)j * b, 1, (size_t)b);
}

int gs_batch_means(const double *x, long n, int nb, double level,
                   struct gs_ci *ci)
{
    if (nb < 2 || !level_ok(level))
        return GS_EINVAL;
    if (n < nb)
        return GS_ERANGE;
    double *bm = malloc((size_t)nb * sizeof *bm);
    if (bm == NULL)
        return GS_ENOMEM;
    batch_means(x, n, nb, bm);
    int rc = gs_ci_reps(bm, nb, level, ci, NULL);
    free(bm);
    return rc;
}

double gs_batch_lag1(const double *x, long n, int nb)
{
    if (nb < 3 || n < nb)
        return NAN;
    double *bm = malloc((size_t)nb * sizeof *bm);
    if (bm == NULL)
        return NAN;
    batch_means(x, n, nb, bm);
    double m = gsl_stats_mean(bm, 1, (size_t)nb), v = 0, c = 0;
    for (int j = 0; j < nb; j++) {
        v += (bm[j] - m) * (bm[j] - m);
        if (j > 0)
            c += (bm[j] - m) * (bm[j - 1] - m);
    }
    free(bm);
    return v > 0 ? c / v : NAN;
}

/* The p quantile of x[0..n), the value gsl_stats_quantile_from_sorted_data
 * gives on the sorted copy (the order statistics at floor((n - 1) p) and
 * the next, interpolated), found by selection (gsl_stats_select, linear
 * time) instead of sorting: a run's million request latencies were a
 * quarter of its time sorted twice (the summary and the result file). */
static int quantile(const double *x, long n, double p, double *tmp,
                    double *q)
{
    const double index = p * (double)(n - 1);
    const size_t lhs = (size_t)index, un = (size_t)n;
    const double delta = index - (double)lhs;
    memcpy(tmp, x, un * sizeof *tmp);
    double lo = gsl_stats_select(tmp, 1, un, lhs);
    if (lhs == un - 1) {
        *q = lo;
        return 0;
    }
    double hi = gsl_stats_select(tmp, 1, un, lhs + 1);
    *q = (1 - delta) * lo + delta * hi;
    return 0;
}

int gs_quantile_sections(const double *x, long n, double p, int ns,
                         double level, struct gs_ci *ci)
{
    if (!(p > 0 && p < 1) || ns < 2 || !level_ok(level))
        return GS_EINVAL;
    if (n < ns)
        return GS_ERANGE;
    double *tmp = malloc((size_t)n * sizeof *tmp);
    double *sq = malloc((size_t)ns * sizeof *sq);
    if (tmp == NULL || sq == NULL) {
        free(tmp);
        free(sq);
        return GS_ENOMEM;
    }
    double pooled;
    quantile(x, n, p, tmp, &pooled);
    long b = n / ns, off = n - b * ns;
    for (int j = 0; j < ns; j++)
        quantile(x + off + (long)j * b, b, p, tmp, &sq[j]);
    struct gs_ci s;
    gs_ci_reps(sq, ns, level, &s, NULL);
    ci->est = pooled;
    ci->half = s.half;
    ci->level = level;
    ci->n = ns;
    free(tmp);
    free(sq);
    return 0;
}

long gs_qtail_size(long n, double p)
{
    double q = p < 0.5 ? p : 1 - p;
    double k = ceil(10 * q * (double)n) + 256;
    return k >= (double)n ? n : (long)k;
}

int gs_qtail_keep(const double *x, long n, double p, long kmax, double *v,
                  long *k)
{
    if (!(p > 0 && p < 1) || n < 0 || kmax < 0)
        return GS_EINVAL;
    long m = kmax < n ? kmax : n;
    *k = m;
    if (m == n || m == 0) {
        if (m)
            memcpy(v, x, (size_t)m * sizeof *v);
        return 0;
    }
    double *tmp = malloc((size_t)n * sizeof *tmp);
    if (tmp == NULL)
        return GS_ENOMEM;
    memcpy(tmp, x, (size_t)n * sizeof *tmp);
    int up = p >= 0.5;
    /* the innermost kept value: the m-th from p's end */
    double thr = gsl_stats_select(tmp, 1, (size_t)n,
                                  (size_t)(up ? n - m : m - 1));
    free(tmp);
    long j = 0;
    for (long i = 0; i < n; i++)        /* strictly beyond it ... */
        if (up ? x[i] > thr : x[i] < thr)
            v[j++] = x[i];
    for (long i = 0; i < n && j < m; i++)   /* ... then its ties */
        if (x[i] == thr)
            v[j++] = x[i];
    return 0;
}

/* Pooled quantiles work in "w space": w = -x when p >= 0.5, so the kept
 * values are always the smallest w of their replication and rank 0 is
 * the extreme.  The j-th smallest w of all values pooled, bounded: *hi by
 * the kept values alone (a subset's j-th is no smaller; INFINITY when
 * fewer than j + 1 are kept), *lo by the kept values with every missing
 * one replaced by its replication's innermost kept w (no larger than the
 * w it stands for).  w[nw] is sorted, inner[r] and miss[r] sorted by
 * inner. */
struct wcut {
    double inner;
    long miss;
};

static int wcut_cmp(const void *a, const void *b)
{
    double x = ((const struct wcut *)a)->inner;
    double y = ((const struct wcut *)b)->inner;
    return (x > y) - (x < y);
}

static void wrank(const double *w, long nw, const struct wcut *c, int nc,
                  long j, double *lo, double *hi)
{
    *hi = j < nw ? w[j] : INFINITY;
    long a = 0, seen = 0;
    int b = 0;
    /* merge w with the cuts' copies; j is below their total, so the walk
     * stops before either runs out */
    for (;;) {
        int take_w = b >= nc || (a < nw && w[a] <= c[b].inner);
        long cnt = take_w ? 1 : c[b].miss;
        double val = take_w ? w[a] : c[b].inner;
        if (seen + cnt > j) {
            *lo = val;
            return;
        }
        seen += cnt;
        if (take_w)
            a++;
        else
            b++;
    }
}

static int wcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gs_quantile_pooled(const struct gs_qtail *t, int r, double p, double *q,
                       double *lo, double *hi)
{
    if (!(p > 0 && p < 1) || r < 1)
        return GS_EINVAL;
    long N = 0, K = 0;
    for (int i = 0; i < r; i++) {
        N += t[i].n;
        K += t[i].k;
    }
    if (N < 1)
        return GS_ERANGE;
    int up = p >= 0.5;
    double *w = malloc((size_t)(K + 1) * sizeof *w);
    struct wcut *c = malloc((size_t)r * sizeof *c);
    if (w == NULL || c == NULL) {
        free(w);
        free(c);
        return GS_ENOMEM;
    }
    long nw = 0;
    int nc = 0;
    for (int i = 0; i < r; i++) {
        double in = -INFINITY;
        for (long k = 0; k < t[i].k; k++) {
            w[nw] = up ? -t[i].v[k] : t[i].v[k];
            in = fmax(in, w[nw++]);
        }
        if (t[i].k < t[i].n)
            c[nc++] = (struct wcut){ in, t[i].n - t[i].k };
    }
    qsort(w, (size_t)nw, sizeof *w, wcmp);
    qsort(c, (size_t)nc, sizeof *c, wcut_cmp);
    /* GSL's interpolation between ascending order statistics a and a + 1 */
    const double index = p * (double)(N - 1);
    const long a = (long)index;
    const double delta = a + 1 < N ? index - (double)a : 0;
    double x1[2], x2[2];        /* [lo, hi] in x space of ranks a, a + 1 */
    long ranks[2] = { a, a + 1 < N ? a + 1 : a };
    for (int s = 0; s < 2; s++) {
        long j = up ? N - 1 - ranks[s] : ranks[s];
        double wl, wh;
        wrank(w, nw, c, nc, j, &wl, &wh);
        double *x = s ? x2 : x1;
        x[0] = up ? -wh : wl;
        x[1] = up ? -wl : wh;
    }
    free(w);
    free(c);
    *lo = (1 - delta) * x1[0] + (delta > 0 ? delta * x2[0] : 0);
    *hi = (1 - delta) * x1[1] + (delta > 0 ? delta * x2[1] : 0);
    int exact = *lo == *hi;
    *q = exact ? *lo : isfinite(*lo) && isfinite(*hi) ? (*lo + *hi) / 2
                     : isfinite(*lo) ? *lo : *hi;
    return exact;
}

int gs_quantile_reps(double lo, double hi, const double *qr, int r,
                     double level, struct gs_ci *ci)
{
    if (r < 1 || !level_ok(level) || !(lo <= hi))
        return GS_EINVAL;
    struct gs_ci s;
    gs_ci_reps(qr, r, level, &s, NULL);
    ci->level = level;
    ci->n = r;
    if (lo == hi) {
        ci->est = lo;
        ci->half = s.half;
    } else if (isfinite(lo) && isfinite(hi)) {
        ci->est = (lo + hi) / 2;
        ci->half = s.half + (hi - lo) / 2;
    } else {
        ci->est = isfinite(lo) ? lo : hi;
        ci->half = INFINITY;
    }
    return 0;
}

/* MSER-5 and the independence check shared by the mean and the quantile;
 * *kept receives the retained window's start. */
static int steady_prepare(const double *x, long n, int *nb,
                          struct gs_steady *st, const double **kept,
                          long *nkept)
{
    if (*nb == 0)
        *nb = GS_STEADY_BATCHES;
    if (*nb < 2)
        return GS_EINVAL;
    memset(st, 0, sizeof *st);
    st->n = n;
    int rc = gs_mser5(x, n, &st->warmup, &st->warmup_at_limit);
    if (rc < 0)
        return rc;
    *kept = x + st->warmup;
    *nkept = n - st->warmup;
    if (*nkept < 2L * *nb)
        return GS_ERANGE;
    st->batches = *nb;
    st->lag1 = gs_batch_lag1(*kept, *nkept, 2 * *nb);
    double m = 2.0 * *nb;
    /* a series that does not vary has NaN lag-1 and is independent */
    st->independent = isnan(st->lag1) || st->lag1 <= -1 / m + 1.645 / sqrt(m);
    return 0;
}

int gs_steady_mean(const double *x, long n, int nb, double level,
                   struct gs_steady *st)
{
    const double *kept;
    long nk;
    int rc = steady_prepare(x, n, &nb, st, &kept, &nk);
    if (rc == 0)
        rc = gs_batch_means(kept, nk, nb, level, &st->ci);
    return rc;
}

int gs_steady_quantile(const double *x, long n, double p, int nb,
                       double level, struct gs_steady *st)
{
    const double *kept;
    long nk;
    int rc = steady_prepare(x, n, &nb, st, &kept, &nk);
    if (rc == 0)
        rc = gs_quantile_sections(kept, nk, p, nb, level, &st->ci);
    st->tail = (double)nk / nb * (p < 0.5 ? p : 1 - p);
    return rc;
}

int gs_steady_pair(const double *x, long n, double p, int nb, double level,
                   struct gs_steady *q, struct gs_steady *m, int *mrc)
{
    const double *kept = NULL;
    long nk = 0;
    int rc = steady_prepare(x, n, &nb, q, &kept, &nk);
    *m = *q;
    *mrc = rc;
    if (rc == 0) {
        rc = gs_quantile_sections(kept, nk, p, nb, level, &q->ci);
        *mrc = gs_batch_means(kept, nk, nb, level, &m->ci);
    }
    q->tail = (double)nk / nb * (p < 0.5 ? p : 1 - p);
    return rc;
}

long gs_next_length(long n, double rel_now, double rel, long cap)
{
    if (n >= cap)
        return n;
    double f = isnan(rel_now) || rel <= 0 ? 4
               : (rel_now / rel) * (rel_now / rel);
    if (f < 1.5)
        f = 1.5;
    if (f > 4)
        f = 4;
    double next = ceil((double)n * f);
    return next >= (double)cap ? cap : (long)next;
}

int gs_grow_until_precise(const struct gs_grow *g, int nci, gs_measure_fn fn,
                          void *ctx, struct gs_ci *ci,
                          struct gs_grow_result *r)
{
    if (g->start < 1 || g->cap < g->start || nci < 1 || g->rel < 0)
        return GS_EINVAL;
    double rel = g->rel > 0 ? g->rel : GS_PRECISION_REL;
    memset(r, 0, sizeof *r);
    long len = g->start;
    for (;;) {
        int rc = fn(ctx, len, ci, nci);
        if (rc < 0)
            return rc;
        r->length = len;
        r->rounds++;
        double worst = 0;
        int met = 1, unknown = 0;
        for (int i = 0; i < nci; i++) {
            double h = gs_ci_rel(&ci[i]);
            if (!gs_ci_precise(&ci[i], rel)) {
                met = 0;
                unknown |= isnan(h);
            }
            if (!isnan(h) && h > worst)
                worst = h;
        }
        if (unknown)
            worst = NAN;
        r->rel = worst;
        r->met = met;
        if (met || len >= g->cap)
            return 0;
        len = gs_next_length(len, worst, rel, g->cap);
    }
}

int gs_paired(const double *a, const double *b, int n, double level,
              struct gs_ci *ci, double *p)
{
    if (n < 2 || !level_ok(level))
        return GS_EINVAL;
    double *d = malloc((size_t)n * sizeof *d);
    if (d == NULL)
        return GS_ENOMEM;
    for (int k = 0; k < n; k++)
        d[k] = b[k] - a[k];
    double sd;
    gs_ci_reps(d, n, level, ci, &sd);
    free(d);
    if (sd == 0)
        *p = ci->est == 0 ? 1 : 0;
    else {
        double t = fabs(ci->est) / (sd / sqrt((double)n));
        *p = 2 * gsl_cdf_tdist_Q(t, (double)(n - 1));
    }
    return 0;
}

struct pv {
    double p;
    int i;
};

static int pv_cmp(const void *a, const void *b)
{
    const struct pv *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return x->i - y->i;
}

int gs_holm(const double *p, int m, double alpha, int *sig)
{
    if (m < 1)
        return 0;
    struct pv *v = malloc((size_t)m * sizeof *v);
    if (v == NULL)
        return GS_ENOMEM;
    for (int i = 0; i < m; i++) {
        v[i].p = isnan(p[i]) ? 1 : p[i];
        v[i].i = i;
        sig[i] = 0;
    }
    qsort(v, (size_t)m, sizeof *v, pv_cmp);
    for (int r = 0; r < m; r++) {
        if (v[r].p > alpha / (double)(m - r))
            break;
        sig[v[r].i] = 1;
    }
    free(v);
    return 0;
}

int gs_rank_groups(const double *mean, const int *sig, int k,
                   int higher_better, int *order, int *tier)
{
    if (k < 1)
        return GS_EINVAL;
    for (int i = 0; i < k; i++)
        order[i] = i;
    /* insertion sort: k is a handful of policies, and it is stable */
    for (int i = 1; i < k; i++) {
        int v = order[i], j = i;
        while (j > 0) {
            double a = mean[order[j - 1]], b = mean[v];
            int before = higher_better ? b > a : b < a;
            if (!before)
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    int g = 0;
    tier[0] = 0;
    for (int r = 0; r + 1 < k; r++) {
        int cut = 1;
        for (int i = 0; i <= r && cut; i++)
            for (int j = r + 1; j < k && cut; j++)
                cut = sig[order[i] * k + order[j]] != 0;
        if (cut)
            g++;
        tier[r + 1] = g;
    }
    return g + 1;
}
