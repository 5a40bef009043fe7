/* tfit.c -- maximum-likelihood fits of arrivals, durations, GPU counts and
 * mixes, with goodness of fit (see tfit.h).
 *
 * Arrivals.  With shape s(t) = (1 + a cos(w(t - phi))) (1 - dip [weekend])
 * (t in hours, w = 2 pi/24, weekend = days 5 and 6 counting from the trace's
 * day 0, as in gen.c) and rate b, the log-likelihood of arrivals t_1..t_n
 * on [T0, T1] is  sum log(b s(t_i)) - b S,  S = integral of s over [T0, T1].
 * The rate has the closed form b = n/S, leaving a profile likelihood in
 * (a, phi, dip) that GSL's Nelder-Mead simplex (nmsimplex2) maximizes, with
 * a and dip mapped onto [0, 0.999) by a logistic.  The sum over arrivals
 * runs over minute-of-week bins (each bin's count at the mean position of its
 * arrivals), so an iteration costs 10,080 terms however long the trace; S
 * is exact, day by day.  The start is the first Fourier coefficient of the
 * arrival phases.  A span under two days fits no daily cycle, under two
 * weeks no weekend dip.
 *
 * Goodness of fit for arrivals: by the time-rescaling theorem the values
 * Lambda(t_i)/Lambda(T1) of a Poisson process with the fitted rate are
 * uniform on [0, 1]; their KS distance is reported (computed exactly per
 * arrival), and so is Pearson's chi-square of the counts by hour of day.
 *
 * Durations (ms, > 0).  Exponential: mean = sample mean.  Lognormal: mu and
 * sigma are the mean and (1/n) standard deviation of ln x.  Pareto: scale =
 * the smallest x, alpha = n / sum ln(x/scale).  These are the maximum-
 * likelihood estimates (Johnson, Kotz and Balakrishnan, Continuous
 * Univariate Distributions).  Empirical: 65 quantiles at probabilities
 * k/64 (linear between order statistics).  KS distances treat ties exactly.
 * Auto choice: the parametric law with the least KS distance, or the
 * empirical quantiles when that distance is still above opts->auto_ks
 * (real traces are often multi-modal).  A Pareto or lognormal spec gets
 * "max" = 4 x the longest duration seen, so a heavy tail fitted from a
 * finite sample cannot produce absurd jobs.
 *
 * GPU counts: the observed frequencies; beyond 32 distinct values the rarer
 * ones join the nearest kept value (in log scale) and the KS distance of the
 * merged distribution is reported.  Tenants: the observed mix, at most 64
 * names (the rest joined as "other").
 *
 * Request traces (gs_reqfit_*): the same arrival fit on the requests'
 * arrival times, and the same law fits and choice on their input and
 * output token counts, written as a service's request source. */
#include "tfit.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OMEGA (2.0 * M_PI / 24.0)
#define WEEK_MIN (7 * 24 * 60)

struct fjob {
    gs_time arrival;
    double work;
    float gpus;
    float cb;
    int32_t tenant;
    int16_t ref;
    int8_t tier;
};

struct gs_fitter {
    struct fjob *j;
    long n, cap;
    char (*names)[GS_TENANT_NAME];
    int nnames, capnames;
    int *hidx;
    int hcap;
};

void gs_fitopts_default(struct gs_fitopts *o)
{
    o->by_tier = 1;
    o->durations = GS_WLFIT_AUTO;
    o->auto_ks = 0.05;
}

struct gs_fitter *gs_fitter_new(void)
{
    return calloc(1, sizeof(struct gs_fitter));
}

void gs_fitter_free(struct gs_fitter *f)
{
    if (f == NULL)
        return;
    free(f->j);
    free(f->names);
    free(f->hidx);
    free(f);
}

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    return h;
}

static int tenant_id(struct gs_fitter *f, const char *name)
{
    if (2 * (f->nnames + 1) > f->hcap) {
        int cap = f->hcap ? f->hcap * 2 : 64;
        int *ni = malloc((size_t)cap * sizeof *ni);
        if (ni == NULL)
            return -1;
        for (int i = 0; i < cap; i++)
            ni[i] = -1;
        for (int k = 0; k < f->nnames; k++) {
            uint64_t h = hash(f->names[k]) & (uint64_t)(cap - 1);
            while (ni[h] >= 0)
                h = (h + 1) & (uint64_t)(cap - 1);
            ni[h] = k;
        }
        free(f->hidx);
        f->hidx = ni;
        f->hcap = cap;
    }
    uint64_t h = hash(name) & (uint64_t)(f->hcap - 1);
    while (f->hidx[h] >= 0) {
        if (strcmp(f->names[f->hidx[h]], name) == 0)
            return f->hidx[h];
        h = (h + 1) & (uint64_t)(f->hcap - 1);
    }
    if (f->nnames == f->capnames) {
        int cap = f->capnames ? f->capnames * 2 : 16;
        char (*nn)[GS_TENANT_NAME] = realloc(f->names,
                                             (size_t)cap * sizeof *nn);
        if (nn == NULL)
            return -1;
        f->names = nn;
        f->capnames = cap;
    }
    snprintf(f->names[f->nnames], GS_TENANT_NAME, "%s", name);
    f->hidx[h] = f->nnames;
    return f->nnames++;
}

int gs_fitter_add(struct gs_fitter *f, const struct gs_jobspec *j)
{
    if (f->n == f->cap) {
        long cap = f->cap ? f->cap * 2 : 4096;
        struct fjob *nj = realloc(f->j, (size_t)cap * sizeof *nj);
        if (nj == NULL)
            return GS_ENOMEM;
        f->j = nj;
        f->cap = cap;
    }
    int t = tenant_id(f, j->tenant);
    if (t < 0)
        return GS_ENOMEM;
    struct fjob *o = &f->j[f->n++];
    o->arrival = j->arrival;
    o->work = j->work > 0 ? j->work : 1;
    o->gpus = (float)(j->gpus > 0 ? j->gpus : j->milli / 1000.0);
    o->cb = (float)j->cb;
    o->tenant = t;
    o->ref = (int16_t)j->ref_model;
    o->tier = (int8_t)j->tier;
    return 0;
}

/* --- Kolmogorov-Smirnov ------------------------------------------------------- */

double gs_ks_distance(const double *x, long n, double (*cdf)(double, void *),
                      void *arg)
{
    double d = 0;
    long i = 0;
    while (i < n) {
        long k = i;
        while (k + 1 < n && x[k + 1] == x[i])
            k++;
        double F = cdf(x[i], arg);
        double lo = (double)i / (double)n, hi = (double)(k + 1) / (double)n;
        if (fabs(F - lo) > d)
            d = fabs(F - lo);
        if (fabs(F - hi) > d)
            d = fabs(F - hi);
        i = k + 1;
    }
    return d;
}

static double cdf_exp(double x, void *p)
{
    const struct gs_fitlaw *l = p;
    return gsl_cdf_exponential_P(x, l->a);
}

static double cdf_logn(double x, void *p)
{
    const struct gs_fitlaw *l = p;
    return gsl_cdf_lognormal_P(x, l->a, l->b);
}

static double cdf_par(double x, void *p)
{
    const struct gs_fitlaw *l = p;
    return x < l->a ? 0 : gsl_cdf_pareto_P(x, l->b, l->a);
}

/* CDF of the empirical spec: invert its log-linear interpolation. */
static double cdf_emp(double x, void *p)
{
    const struct gs_distspec *d = p;
    int m = d->npoints;
    if (x < d->pts[0])
        return 0;
    if (x >= d->pts[m - 1])
        return 1;
    int k = 0;
    while (k + 1 < m - 1 && d->pts[k + 1] <= x)
        k++;
    double a = d->pts[k], b = d->pts[k + 1], f;
    if (b <= a)
        f = 1;
    else if (a > 0)
        f = (log(x) - log(a)) / (log(b) - log(a));
    else
        f = (x - a) / (b - a);
    return (k + f) / (m - 1);
}

/* --- arrivals ------------------------------------------------------------------ */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}


struct arr {
    long n;
    double T0, T1;              /* hours */
    int daily, weekly;
    double *cnt, *pos;          /* minute-of-week bins */
};

static void params(const struct arr *A, const gsl_vector *x, double *a,
                   double *phi, double *w)
{
    *a = *phi = *w = 0;
    if (A->daily) {
        *a = 0.999 / (1.0 + exp(-gsl_vector_get(x, 0)));
        *phi = gsl_vector_get(x, 1);
    }
    if (A->weekly)
        *w = 0.999 / (1.0 + exp(-gsl_vector_get(x, 2)));
}

static int weekend(long day)
{
    return ((day % 7) + 7) % 7 >= 5;
}

/* Integral of the shape over [s, e] inside one day. */
static double seg(double s, double e, double a, double phi, double w,
                  int weekly)
{
    if (e <= s)
        return 0;
    double f = weekly && weekend((long)floor(s / 24.0)) ? 1.0 - w : 1.0;
    return f * ((e - s) + a / OMEGA * (sin(OMEGA * (e - phi)) -
                                       sin(OMEGA * (s - phi))));
}

static double integral(const struct arr *A, double lo, double hi, double a,
                       double phi, double w)
{
    double sum = 0;
    for (double d = floor(lo / 24.0) * 24.0; d < hi; d += 24.0) {
        double s = d > lo ? d : lo, e = d + 24.0 < hi ? d + 24.0 : hi;
        sum += seg(s, e, a, phi, w, A->weekly);
    }
    return sum;
}

static double negll(const gsl_vector *x, void *p)
{
    const struct arr *A = p;
    double a, phi, w;
    params(A, x, &a, &phi, &w);
    double sum = 0;
    for (int k = 0; k < WEEK_MIN; k++) {
        if (A->cnt[k] == 0)
            continue;
        double s = 1.0 + a * cos(OMEGA * (A->pos[k] - phi));
        if (A->weekly && k >= 5 * 24 * 60)
            s *= 1.0 - w;
        sum += A->cnt[k] * log(s);
    }
    double S = integral(A, A->T0, A->T1, a, phi, w);
    double n = (double)A->n;
    return -(sum + n * log(n / S) - n);
}

static double logit(double p)
{
    return log(p / (1.0 - p));
}

static int fit_arrivals(const struct fjob *j, long n, struct gs_wlfit *f)
{
    if (n < 2)
        return GS_EINVAL;       /* the callers check; says so to the compiler */
    struct arr A = { .n = n };
    double *t = malloc((size_t)n * sizeof *t);
    A.cnt = calloc(WEEK_MIN, sizeof *A.cnt);
    A.pos = calloc(WEEK_MIN, sizeof *A.pos);
    if (!t || !A.cnt || !A.pos) {
        free(t);
        free(A.cnt);
        free(A.pos);
        return GS_ENOMEM;
    }
    for (long i = 0; i < n; i++)
        t[i] = (double)j[i].arrival / GS_HOUR;
    /* Sources hand out sorted arrivals; a caller's own list may not be. */
    for (long i = 1; i < n; i++)
        if (t[i] < t[i - 1]) {
            qsort(t, (size_t)n, sizeof *t, cmp_d);
            break;
        }
    A.T0 = t[0];
    A.T1 = t[n - 1];
    double span = A.T1 - A.T0;
    A.daily = span >= 48.0;
    A.weekly = span >= 14 * 24.0;
    double C = 0, S = 0;
    for (long i = 0; i < n; i++) {
        double wk = fmod(t[i], 168.0);
        int k = (int)(wk * 60.0);
        if (k >= WEEK_MIN)
            k = WEEK_MIN - 1;
        A.cnt[k] += 1;
        A.pos[k] += wk;
        C += cos(OMEGA * t[i]);
        S += sin(OMEGA * t[i]);
    }
    for (int k = 0; k < WEEK_MIN; k++)
        if (A.cnt[k] > 0)
            A.pos[k] /= A.cnt[k];
    double a = 0, phi = 0, w = 0;
    int dim = A.weekly ? 3 : A.daily ? 2 : 0;
    if (dim > 0) {
        double a0 = 2.0 * sqrt(C * C + S * S) / (double)n;
        if (a0 > 0.9)
            a0 = 0.9;
        if (a0 < 0.02)
            a0 = 0.02;
        double phi0 = atan2(S, C) / OMEGA;
        gsl_vector *x = gsl_vector_alloc((size_t)dim);
        gsl_vector *step = gsl_vector_alloc((size_t)dim);
        gsl_vector_set(x, 0, logit(a0 / 0.999));
        gsl_vector_set(x, 1, phi0);
        gsl_vector_set(step, 0, 0.5);
        gsl_vector_set(step, 1, 1.0);
        if (dim == 3) {
            gsl_vector_set(x, 2, logit(0.1 / 0.999));
            gsl_vector_set(step, 2, 0.5);
        }
        gsl_multimin_function fn = { negll, (size_t)dim, &A };
        gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(
            gsl_multimin_fminimizer_nmsimplex2, (size_t)dim);
        gsl_multimin_fminimizer_set(m, &fn, x, step);
        for (int it = 0; it < 2000; it++) {
            if (gsl_multimin_fminimizer_iterate(m))
                break;
            if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m),
                                       1e-7) == GSL_SUCCESS)
                break;
        }
        params(&A, m->x, &a, &phi, &w);
        gsl_multimin_fminimizer_free(m);
        gsl_vector_free(x);
        gsl_vector_free(step);
    }
    phi = fmod(phi, 24.0);
    if (phi < 0)
        phi += 24.0;
    double Stot = integral(&A, A.T0, A.T1, a, phi, w);
    f->fit_daily = A.daily;
    f->fit_weekly = A.weekly;
    f->amp = a;
    f->peak = phi;
    f->dip = w;
    f->rate = Stot > 0 ? (double)n / Stot : 0;
    {
        gsl_vector *x = gsl_vector_alloc(3);
        gsl_vector_set(x, 0, logit((a > 0 ? a : 1e-9) / 0.999));
        gsl_vector_set(x, 1, phi);
        gsl_vector_set(x, 2, logit((w > 0 ? w : 1e-9) / 0.999));
        f->loglik = -negll(x, &A);
        gsl_vector_free(x);
    }

    /* Time rescaling: u_i = Lambda(t_i) / Lambda(T1), exactly. */
    double cum_day = 0, day = floor(A.T0 / 24.0) * 24.0, dmax = 0;
    double from = A.T0;
    for (long i = 0; i < n; i++) {
        while (t[i] >= day + 24.0) {
            cum_day += seg(from, day + 24.0, a, phi, w, A.weekly);
            day += 24.0;
            from = day;
        }
        double u = (cum_day + seg(from, t[i], a, phi, w, A.weekly)) / Stot;
        double lo = (double)i / (double)n, hi = (double)(i + 1) / (double)n;
        if (fabs(u - lo) > dmax)
            dmax = fabs(u - lo);
        if (fabs(u - hi) > dmax)
            dmax = fabs(u - hi);
    }
    f->arr_ks = dmax;

    /* Pearson chi-square by hour of day. */
    double O[24] = { 0 }, E[24] = { 0 };
    for (long i = 0; i < n; i++)
        O[(long)floor(t[i]) % 24] += 1;
    for (double h = floor(A.T0); h < A.T1; h += 1.0) {
        double s = h > A.T0 ? h : A.T0, e = h + 1 < A.T1 ? h + 1 : A.T1;
        E[(long)h % 24] += f->rate * seg(s, e, a, phi, w, A.weekly);
    }
    f->chi2 = 0;
    int bins = 0;
    for (int h = 0; h < 24; h++)
        if (E[h] > 0) {
            f->chi2 += (O[h] - E[h]) * (O[h] - E[h]) / E[h];
            bins++;
        }
    f->chi2_df = bins - 1 - (A.daily ? 2 : 0) - (A.weekly ? 1 : 0);
    free(t);
    free(A.cnt);
    free(A.pos);
    return 0;
}

/* --- durations ------------------------------------------------------------------- */

static void fit_durations(double *x, long n, struct gs_fitclass *c,
                          const struct gs_fitopts *o)
{
    if (n > 1)      /* qsort's base may not be NULL, even for 0 */
        qsort(x, (size_t)n, sizeof *x, cmp_d);
    double s = 0, sl = 0, sl2 = 0;
    for (long i = 0; i < n; i++) {
        s += x[i];
        sl += log(x[i]);
    }
    double m = s / (double)n, mu = sl / (double)n;
    for (long i = 0; i < n; i++)
        sl2 += (log(x[i]) - mu) * (log(x[i]) - mu);
    double sigma = sqrt(sl2 / (double)n);
    if (sigma < 1e-9)
        sigma = 1e-9;
    c->max_ms = x[n - 1];

    c->exp.a = m;
    c->exp.loglik = -(double)n * log(m) - s / m;
    c->exp.ks = gs_ks_distance(x, n, cdf_exp, &c->exp);

    c->logn.a = mu;
    c->logn.b = sigma;
    c->logn.loglik = -sl - (double)n * (log(sigma) + 0.5 * log(2 * M_PI)) -
                     sl2 / (2 * sigma * sigma);
    c->logn.ks = gs_ks_distance(x, n, cdf_logn, &c->logn);

    double xm = x[0], sr = 0;
    for (long i = 0; i < n; i++)
        sr += log(x[i] / xm);
    double alpha = sr > 0 ? (double)n / sr : 1e3;
    if (alpha > 1e3)
        alpha = 1e3;
    if (alpha < 1e-6)
        alpha = 1e-6;
    c->par.a = xm;
    c->par.b = alpha;
    c->par.loglik = (double)n * (log(alpha) + alpha * log(xm)) -
                    (alpha + 1) * sl;
    c->par.ks = gs_ks_distance(x, n, cdf_par, &c->par);

    struct gs_distspec *e = &c->emp_spec;
    memset(e, 0, sizeof *e);
    e->kind = GS_DIST_EMPIRICAL;
    e->npoints = GS_GEN_MAX_POINTS;
    for (int k = 0; k < GS_GEN_MAX_POINTS; k++) {
        double p = (double)k / (GS_GEN_MAX_POINTS - 1) * (double)(n - 1);
        long lo = (long)floor(p);
        double fr = p - (double)lo;
        double v = lo + 1 < n ? x[lo] + fr * (x[lo + 1] - x[lo]) : x[lo];
        e->pts[k] = round(v);       /* the spec keeps ms */
        if (k > 0 && e->pts[k] < e->pts[k - 1])
            e->pts[k] = e->pts[k - 1];
    }
    c->emp.ks = gs_ks_distance(x, n, cdf_emp, e);
    c->emp.loglik = NAN;

    if (o->durations != GS_WLFIT_AUTO) {
        c->chosen = o->durations;
        return;
    }
    c->chosen = GS_DIST_EXPONENTIAL;
    double best = c->exp.ks;
    if (c->logn.ks < best) {
        best = c->logn.ks;
        c->chosen = GS_DIST_LOGNORMAL;
    }
    if (c->par.ks < best) {
        best = c->par.ks;
        c->chosen = GS_DIST_PARETO;
    }
    if (best > o->auto_ks && n >= 200)
        c->chosen = GS_DIST_EMPIRICAL;
}

/* --- GPU counts and tenants ------------------------------------------------------- */

struct vc {
    double v;
    long n;
};

static int cmp_vc_n(const void *a, const void *b)
{
    const struct vc *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int cmp_vc_v(const void *a, const void *b)
{
    const struct vc *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

static double lg(double v)
{
    return log(v + 1e-3);
}

static int fit_gpus(const double *g, long n, struct gs_fitclass *c)
{
    struct vc *v = malloc((size_t)n * sizeof *v);
    if (v == NULL)
        return GS_ENOMEM;
    long nv = 0;
    for (long i = 0; i < n; i++)
        v[i] = (struct vc){ round(g[i] * 1000.0) / 1000.0, 1 };
    if (n > 1)      /* qsort's base may not be NULL, even for 0 */
        qsort(v, (size_t)n, sizeof *v, cmp_vc_v);
    for (long i = 0; i < n; i++) {
        if (nv > 0 && v[nv - 1].v == v[i].v)
            v[nv - 1].n++;
        else
            v[nv++] = v[i];
    }
    struct vc *all = malloc((size_t)nv * sizeof *all);
    if (all == NULL) {
        free(v);
        return GS_ENOMEM;
    }
    memcpy(all, v, (size_t)nv * sizeof *all);
    if (nv > 1)
        qsort(v, (size_t)nv, sizeof *v, cmp_vc_n);
    int keep = nv < GS_GEN_MAX_VALUES ? (int)nv : GS_GEN_MAX_VALUES;
    c->nvalues = keep;
    for (int k = 0; k < keep; k++) {
        c->gpus[k] = v[k].v;
        c->gpu_w[k] = (double)v[k].n;
    }
    for (long i = keep; i < nv; i++) {
        int best = 0;
        for (int k = 1; k < keep; k++)
            if (fabs(lg(c->gpus[k]) - lg(v[i].v)) <
                fabs(lg(c->gpus[best]) - lg(v[i].v)))
                best = k;
        c->gpu_w[best] += (double)v[i].n;
    }
    /* KS between the observed and the written distribution. */
    double Fo = 0, d = 0;
    for (long i = 0; i < nv; i++) {
        Fo += (double)all[i].n / (double)n;
        double Ff = 0;
        for (int k = 0; k < keep; k++)
            if (c->gpus[k] <= all[i].v)
                Ff += c->gpu_w[k] / (double)n;
        if (fabs(Fo - Ff) > d)
            d = fabs(Fo - Ff);
    }
    c->gpu_ks = d;
    free(v);
    free(all);
    return 0;
}

struct tc {
    int id;
    long n;
};

static int cmp_tc(const void *a, const void *b)
{
    const struct tc *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return x->id - y->id;
}

static int fit_tenants(const struct gs_fitter *f, const int *ids, long n,
                       struct gs_fitclass *c)
{
    struct tc *t = calloc((size_t)f->nnames, sizeof *t);
    if (t == NULL)
        return GS_ENOMEM;
    for (int k = 0; k < f->nnames; k++)
        t[k].id = k;
    for (long i = 0; i < n; i++)
        t[ids[i]].n++;
    if (f->nnames > 1)
        qsort(t, (size_t)f->nnames, sizeof *t, cmp_tc);
    int used = 0;
    while (used < f->nnames && t[used].n > 0)
        used++;
    int keep = used <= GS_FIT_MAX_TENANTS ? used : GS_FIT_MAX_TENANTS - 1;
    c->ntenants = keep;
    for (int k = 0; k < keep; k++) {
        snprintf(c->tenants[k], GS_TENANT_NAME, "%s", f->names[t[k].id]);
        c->tenant_w[k] = (double)t[k].n;
    }
    if (used > keep) {
        c->others = used - keep;
        snprintf(c->tenants[keep], GS_TENANT_NAME, "%s", "other");
        c->tenant_w[keep] = 0;
        for (int k = keep; k < used; k++)
            c->tenant_w[keep] += (double)t[k].n;
        c->ntenants = keep + 1;
    }
    free(t);
    return 0;
}

int gs_fitter_run(struct gs_fitter *fr, const struct gs_fitopts *o,
                  struct gs_wlfit *f, struct gs_diag *d)
{
    memset(f, 0, sizeof *f);
    long n = fr->n;
    if (n < 2)
        return gs_diag_set(d, GS_EINVAL, "", "fit needs at least 2 jobs, "
                           "not %ld", n);
    f->n = n;
    f->first = fr->j[0].arrival;
    f->last = fr->j[0].arrival;
    for (long i = 1; i < n; i++) {
        if (fr->j[i].arrival < f->first)
            f->first = fr->j[i].arrival;
        if (fr->j[i].arrival > f->last)
            f->last = fr->j[i].arrival;
    }
    if (f->last == f->first)
        return gs_diag_set(d, GS_EINVAL, "", "fit needs arrivals spread over "
                           "time; all %ld arrive at %.3f s", n,
                           (double)f->first / 1000.0);
    int rc = fit_arrivals(fr->j, n, f);
    if (rc < 0)
        return gs_diag_set(d, rc, "", "out of memory");

    /* The most common reference model. */
    long refn[GS_MAX_MODELS + 1] = { 0 };
    for (long i = 0; i < n; i++)
        refn[fr->j[i].ref + 1 >= 0 && fr->j[i].ref < GS_MAX_MODELS
             ? fr->j[i].ref + 1 : 0]++;
    f->ref_model = -1;
    long bestn = refn[0];
    for (int m = 0; m < GS_MAX_MODELS; m++)
        if (refn[m + 1] > bestn) {
            bestn = refn[m + 1];
            f->ref_model = m;
        }

    /* Classes: by tier, or one. */
    long tn[GS_NTIERS] = { 0 };
    for (long i = 0; i < n; i++)
        if (fr->j[i].tier >= 0 && fr->j[i].tier < GS_NTIERS)
            tn[fr->j[i].tier]++;
    int cls_of_tier[GS_NTIERS];
    f->nclasses = 0;
    if (o->by_tier) {
        for (int t = 0; t < GS_NTIERS; t++) {
            cls_of_tier[t] = -1;
            if (tn[t] > 0) {
                cls_of_tier[t] = f->nclasses;
                struct gs_fitclass *c = &f->cls[f->nclasses++];
                c->tier = t;
                snprintf(c->name, sizeof c->name, "%s", gs_tier_name(t));
            }
        }
    } else {
        int top = 0;
        for (int t = 1; t < GS_NTIERS; t++)
            if (tn[t] > tn[top])
                top = t;
        for (int t = 0; t < GS_NTIERS; t++)
            cls_of_tier[t] = 0;
        f->nclasses = 1;
        f->cls[0].tier = top;
        snprintf(f->cls[0].name, sizeof f->cls[0].name, "%s", "all");
    }
    double *x = malloc((size_t)n * sizeof *x);
    double *g = malloc((size_t)n * sizeof *g);
    int *ids = malloc((size_t)n * sizeof *ids);
    if (!x || !g || !ids) {
        free(x);
        free(g);
        free(ids);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    for (int k = 0; k < f->nclasses && rc == 0; k++) {
        struct gs_fitclass *c = &f->cls[k];
        long m = 0;
        double cb = 0;
        for (long i = 0; i < n; i++) {
            int t = fr->j[i].tier;
            if (t < 0 || t >= GS_NTIERS || cls_of_tier[t] != k)
                continue;
            x[m] = fr->j[i].work;
            g[m] = fr->j[i].gpus;
            ids[m] = fr->j[i].tenant;
            cb += fr->j[i].cb;
            m++;
        }
        c->n = m;
        c->weight = (double)m / (double)n;
        c->cb = cb / (double)m;
        fit_durations(x, m, c, o);
        if ((rc = fit_gpus(g, m, c)) == 0)
            rc = fit_tenants(fr, ids, m, c);
    }
    free(x);
    free(g);
    free(ids);
    if (rc < 0)
        return gs_diag_set(d, rc, "", "out of memory");
    return 0;
}

/* --- output ------------------------------------------------------------------------- */

void gs_fit_print(FILE *fp, const struct gs_wlfit *f, const struct gs_catalog *cat)
{
    double span_h = (double)(f->last - f->first) / GS_HOUR;
    fprintf(fp, "arrivals   %ld jobs over %.2f h\n", f->n, span_h);
    fprintf(fp, "  rate %.4f jobs/h", f->rate);
    if (f->fit_daily)
        fprintf(fp, "   diurnal amplitude %.4f   peak hour %.2f",
                f->amp, f->peak);
    else
        fprintf(fp, "   (span under 2 days: no daily cycle fitted)");
    if (f->fit_weekly)
        fprintf(fp, "   weekend dip %.4f", f->dip);
    else if (f->fit_daily)
        fprintf(fp, "   (span under 2 weeks: no weekend dip fitted)");
    fprintf(fp, "\n  goodness of fit: KS distance of time-rescaled arrivals "
            "%.4f (n = %ld); hour-of-day chi-square %.1f (df %d); "
            "log-likelihood %.1f\n", f->arr_ks, f->n, f->chi2, f->chi2_df,
            f->loglik);
    if (f->ref_model >= 0)
        fprintf(fp, "reference GPU  %s\n", cat->m[f->ref_model].name);
    for (int k = 0; k < f->nclasses; k++) {
        const struct gs_fitclass *c = &f->cls[k];
        fprintf(fp, "\nclass %s (tier %s): %ld jobs, weight %.4f\n", c->name,
                gs_tier_name(c->tier), c->n, c->weight);
        fprintf(fp, "  durations      law           parameters"
                "                             KS      log-likelihood\n");
        fprintf(fp, "  %13s  exponential   mean %-12.3fs %17s %.4f  %.1f%s\n",
                "", c->exp.a / 1000.0, "", c->exp.ks, c->exp.loglik,
                c->chosen == GS_DIST_EXPONENTIAL ? "  <- spec" : "");
        fprintf(fp, "  %13s  lognormal     median %-10.3fs sigma %-9.4f "
                "%.4f  %.1f%s\n", "", exp(c->logn.a) / 1000.0, c->logn.b,
                c->logn.ks, c->logn.loglik,
                c->chosen == GS_DIST_LOGNORMAL ? "  <- spec" : "");
        fprintf(fp, "  %13s  pareto        min %-13.3fs alpha %-9.4f "
                "%.4f  %.1f%s\n", "", c->par.a / 1000.0, c->par.b, c->par.ks,
                c->par.loglik,
                c->chosen == GS_DIST_PARETO ? "  <- spec" : "");
        fprintf(fp, "  %13s  empirical     %d quantiles %22s %.4f  -%s\n", "",
                c->emp_spec.npoints, "", c->emp.ks,
                c->chosen == GS_DIST_EMPIRICAL ? "  <- spec" : "");
        fprintf(fp, "  GPUs           ");
        double tot = 0;
        for (int v = 0; v < c->nvalues; v++)
            tot += c->gpu_w[v];
        for (int v = 0; v < c->nvalues && v < 8; v++)
            fprintf(fp, "%s%g (%.1f%%)", v ? ", " : "", c->gpus[v],
                    100.0 * c->gpu_w[v] / tot);
        if (c->nvalues > 8)
            fprintf(fp, ", ... %d values", c->nvalues);
        fprintf(fp, "; KS %.4f\n  tenants        %d", c->gpu_ks, c->ntenants);
        for (int t = 0; t < c->ntenants && t < 5; t++)
            fprintf(fp, "%s%s (%.1f%%)", t ? ", " : ": ", c->tenants[t],
                    100.0 * c->tenant_w[t] / (double)c->n);
        if (c->others)
            fprintf(fp, " (\"other\" joins %d)", c->others);
        fputc('\n', fp);
    }
}

/* s's characters as inside a JSON string (quote, backslash and control
 * bytes escaped). */
static void json_chars(FILE *fp, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(fp, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(fp, "\\u%04x", ch);
        else
            fputc(ch, fp);
    }
}

static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    json_chars(fp, s);
    fputc('"', fp);
}

/* pre, then v by fmt -- null when v is not finite (JSON has no NaN or
 * infinity: a fit of a degenerate trace must still write JSON that a
 * reader refuses at the key, as report.c's gs_report_json_num does) --
 * then post. */
static void json_num(FILE *fp, const char *pre, const char *fmt, double v,
                     const char *post)
{
    fputs(pre, fp);
    if (isfinite(v))
        fprintf(fp, fmt, v);
    else
        fputs("null", fp);
    fputs(post, fp);
}

/* A class's duration law (seconds; the fit's are milliseconds, f = 1000)
 * or a token law (f = 1, whole tokens: cfmt "%.0f"). */
static void law_out(FILE *fp, const struct gs_fitclass *c, double f,
                    double cap, const char *cfmt)
{
    switch (c->chosen) {
    case GS_DIST_EXPONENTIAL:
        json_num(fp, "{\"dist\": \"exponential\", \"mean\": ", "%.3f",
                 c->exp.a / f, "}");
        break;
    case GS_DIST_LOGNORMAL:
        json_num(fp, "{\"dist\": \"lognormal\", \"median\": ", "%.3f",
                 exp(c->logn.a) / f, "");
        json_num(fp, ", \"sigma\": ", "%.6f",
                 c->logn.b > 20 ? 20.0 : c->logn.b, "");
        json_num(fp, ", \"max\": ", cfmt, cap, "}");
        break;
    case GS_DIST_PARETO:
        json_num(fp, "{\"dist\": \"pareto\", \"min\": ", "%.3f", c->par.a / f,
                 "");
        json_num(fp, ", \"alpha\": ", "%.6f", c->par.b, "");
        json_num(fp, ", \"max\": ", cfmt, cap, "}");
        break;
    default:
        fprintf(fp, "{\"dist\": \"empirical\", \"quantiles\": [");
        for (int q = 0; q < c->emp_spec.npoints; q++)
            json_num(fp, q ? ", " : "", f == 1 ? "%.0f" : "%.3f",
                     c->emp_spec.pts[q] / f, "");
        fprintf(fp, "]}");
    }
}

void gs_fit_write_spec(FILE *fp, const struct gs_wlfit *f,
                       const struct gs_catalog *cat, const char *source)
{
    /* the source's name whole, however long (a 700-byte buffer cut it) */
    fprintf(fp, "{\n  \"description\": \"fitted by gpusim trace fit to ");
    json_chars(fp, source);
    fprintf(fp, " (%ld jobs)\"", f->n);
    fprintf(fp, ",\n  \"seed\": 1,\n  \"jobs\": %ld,\n", f->n);
    json_num(fp, "  \"rate_per_hour\": ", "%.9g", f->rate, ",\n");
    json_num(fp, "  \"diurnal_amplitude\": ", "%.6f", f->amp, ",\n");
    json_num(fp, "  \"peak_hour\": ", "%.4f", f->peak, ",\n");
    json_num(fp, "  \"weekend_dip\": ", "%.6f", f->dip, ",\n");
    if (f->ref_model >= 0) {
        fprintf(fp, "  \"reference_gpu\": ");
        json_str(fp, cat->m[f->ref_model].name);
        fprintf(fp, ",\n");
    }
    fprintf(fp, "  \"classes\": [\n");
    for (int k = 0; k < f->nclasses; k++) {
        const struct gs_fitclass *c = &f->cls[k];
        fprintf(fp, "    {\"name\": ");
        json_str(fp, c->name);
        fprintf(fp, ", \"tier\": \"%s\"", gs_tier_name(c->tier));
        json_num(fp, ", \"weight\": ", "%.9g", c->weight, ",\n");
        fprintf(fp, "     \"tenants\": [");
        for (int t = 0; t < c->ntenants; t++) {
            fprintf(fp, "%s", t ? ", " : "");
            json_str(fp, c->tenants[t]);
        }
        fprintf(fp, "],\n     \"tenant_weights\": [");
        for (int t = 0; t < c->ntenants; t++)
            json_num(fp, t ? ", " : "", "%.0f", c->tenant_w[t], "");
        fprintf(fp, "],\n     \"gpus\": {\"values\": [");
        for (int v = 0; v < c->nvalues; v++)
            json_num(fp, v ? ", " : "", "%g", c->gpus[v], "");
        fprintf(fp, "], \"weights\": [");
        for (int v = 0; v < c->nvalues; v++)
            json_num(fp, v ? ", " : "", "%.0f", c->gpu_w[v], "");
        fprintf(fp, "]},\n     \"duration\": ");
        law_out(fp, c, 1000.0, 4.0 * c->max_ms / 1000.0, "%.3f");
        json_num(fp, ",\n     \"compute_bound\": ", "%.6f", c->cb,
                 k + 1 < f->nclasses ? "},\n" : "}\n");
    }
    fprintf(fp, "  ]\n}\n");
}

/* --- request traces ------------------------------------------------------ */

static void law_json(FILE *fp, const struct gs_fitclass *c)
{
    if (c->logn.b < 1e-6) {     /* every request alike */
        json_num(fp, "{\"dist\": \"constant\", \"value\": ", "%.0f",
                 c->max_ms, "}");
        return;
    }
    law_out(fp, c, 1.0, 4.0 * c->max_ms, "%.0f");
}

int gs_reqfit_run(const struct gs_reqtable *t, const struct gs_fitopts *o,
                  struct gs_reqfit *out, struct gs_diag *d)
{
    memset(out, 0, sizeof *out);
    long n = t->n;
    if (n < 2 || t->r[n - 1].arrival <= t->r[0].arrival)
        return gs_diag_set(d, GS_EINVAL, t->path, "a fit needs at least 2 "
                           "requests over a span of time (%ld given)", n);
    /* Hours of the trace's own clock when it has one. */
    gs_time shift = 0;
    if (t->origin_ms > 0)
        shift = (gs_time)(t->origin_ms % (24LL * GS_HOUR));
    struct fjob *j = calloc((size_t)n, sizeof *j);
    double *x = malloc((size_t)n * sizeof *x);
    if (j == NULL || x == NULL) {
        free(j);
        free(x);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    for (long i = 0; i < n; i++)
        j[i].arrival = t->r[i].arrival + shift;
    int rc = fit_arrivals(j, n, &out->arr);
    free(j);
    if (rc < 0) {
        free(x);
        return gs_diag_set(d, rc, "", "out of memory");
    }
    out->n = n;
    out->arr.n = n;
    out->arr.first = t->r[0].arrival;
    out->arr.last = t->r[n - 1].arrival;
    out->span_s = (double)(t->r[n - 1].arrival - t->r[0].arrival) / 1000.0;
    struct gs_fitclass *c[2] = { &out->in, &out->out };
    double *mean[2] = { &out->in_mean, &out->out_mean };
    for (int k = 0; k < 2; k++) {
        double s = 0;
        for (long i = 0; i < n; i++) {
            int32_t v = k == 0 ? t->r[i].input_tokens : t->r[i].output_tokens;
            x[i] = v >= 1 ? (double)v : 1.0;    /* as the service reads it */
            s += x[i];
        }
        *mean[k] = s / (double)n;
        snprintf(c[k]->name, sizeof c[k]->name, "%s",
                 k == 0 ? "input_tokens" : "output_tokens");
        c[k]->n = n;
        c[k]->weight = 1;
        fit_durations(x, n, c[k], o);
    }
    free(x);
    return 0;
}

static const char *law_name(int k)
{
    switch (k) {
    case GS_DIST_EXPONENTIAL: return "exponential";
    case GS_DIST_LOGNORMAL: return "lognormal";
    case GS_DIST_PARETO: return "pareto";
    default: return "empirical";
    }
}

void gs_reqfit_print(FILE *fp, const struct gs_reqfit *f)
{
    const struct gs_wlfit *a = &f->arr;
    fprintf(fp, "requests %ld over %.1f s (%.3f h)\n", f->n, f->span_s,
            f->span_s / 3600.0);
    fprintf(fp, "arrivals: Poisson, %.4f requests/s", a->rate / 3600.0);
    if (a->fit_daily)
        fprintf(fp, ", daily amplitude %.3f peaking at %.2f h", a->amp,
                a->peak);
    else
        fprintf(fp, " (no daily cycle: the trace spans under two days)");
    if (a->fit_weekly)
        fprintf(fp, ", weekend dip %.3f", a->dip);
    fprintf(fp, "\n  time-rescaled KS distance %.4f; hour-of-day "
            "chi-square %.1f on %d df\n", a->arr_ks, a->chi2, a->chi2_df);
    const struct gs_fitclass *c[2] = { &f->in, &f->out };
    const double m[2] = { f->in_mean, f->out_mean };
    fprintf(fp, "token laws (KS distance; loglik of the tokens):\n");
    fprintf(fp, "  %-14s %9s %-24s %-24s %-24s %-10s %s\n", "", "mean",
            "exponential", "lognormal", "pareto", "empirical", "chosen");
    for (int k = 0; k < 2; k++) {
        char e[32], l[32], p[32];
        snprintf(e, sizeof e, "%.4f; %.4g", c[k]->exp.ks, c[k]->exp.loglik);
        snprintf(l, sizeof l, "%.4f; %.4g", c[k]->logn.ks, c[k]->logn.loglik);
        snprintf(p, sizeof p, "%.4f; %.4g", c[k]->par.ks, c[k]->par.loglik);
        fprintf(fp, "  %-14s %9.1f %-24s %-24s %-24s %-10.4f %s\n",
                c[k]->name, m[k], e, l, p, c[k]->emp.ks,
                law_name(c[k]->chosen));
    }
    fprintf(fp, "  lognormal: median %.1f, sigma %.4f (input); median %.1f, "
            "sigma %.4f (output)\n", exp(f->in.logn.a), f->in.logn.b,
            exp(f->out.logn.a), f->out.logn.b);
}

void gs_reqfit_write_source(FILE *fp, const struct gs_reqfit *f,
                            const char *source)
{
    const struct gs_wlfit *a = &f->arr;
    (void)source;
    fprintf(fp, "{\"generate\": {\n");
    json_num(fp, "  \"rate_per_second\": ", "%.9g", a->rate / 3600.0, ",\n");
    if (a->fit_daily) {
        json_num(fp, "  \"diurnal_amplitude\": ", "%.6f", a->amp, "");
        json_num(fp, ", \"peak_hour\": ", "%.4f", a->peak, ",\n");
    }
    if (a->fit_weekly)
        json_num(fp, "  \"weekend_dip\": ", "%.6f", a->dip, ",\n");
    json_num(fp, "  \"until\": ", "%.3f", f->span_s, ",\n");
    fprintf(fp, "  \"input_tokens\": ");
    law_json(fp, &f->in);
    fprintf(fp, ",\n  \"output_tokens\": ");
    law_json(fp, &f->out);
    fprintf(fp, "\n}}\n");
}
