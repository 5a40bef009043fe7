/* test_tracegen.c -- the generator's new laws and the fitter.
 *
 * Statistical tests use fixed seeds, so each is deterministic; the bounds
 * are set from the sampling error (stated at each test) so that a correct
 * generator passes with a wide margin while a wrong rate law -- a peak one
 * hour off, an unnormalized burst factor, a profile read in the wrong
 * order -- fails by far.  Several tests also check that bound against the
 * wrong law (a negative control), to show it can fail.
 *
 * Expected values are computed here from the laws' formulas, never from
 * gen.c: the hourly integral of 1 + A cos(2 pi (t - peak)/24) is
 * 1 + A (24/2 pi) (sin(w(h+1-peak)) - sin(w(h-peak))). */
#include "tracetest.h"
#include "../sim/io/gen.h"
#include "../sim/setup/setup.h"
#include "../sim/base/rng.h"
#include "../traces/tfit.h"

#include <math.h>

#define W (2.0 * M_PI / 24.0)

static void one_class(struct gs_genspec *sp)
{
    sp->ref_model = -1;
    sp->peak_hour = 14;
    sp->nclasses = 1;
    struct gs_genclass *c = &sp->cls[0];
    c->weight = 1;
    c->nvalues = 1;
    c->gpus[0] = 1;
    c->gpu_w[0] = 1;
    c->duration = (struct gs_distspec){ .kind = GS_DIST_CONSTANT, .a = 1000 };
}

/* Expected arrivals in hour-of-day h per day for a diurnal sinusoid. */
static double hour_mass(double rate, double amp, double peak, int h)
{
    return rate * (1.0 + amp / W * (sin(W * (h + 1 - peak)) -
                                    sin(W * (h - peak))));
}

static double chi2(const double *o, const double *e, int n)
{
    double x = 0;
    for (int i = 0; i < n; i++)
        x += (o[i] - e[i]) * (o[i] - e[i]) / e[i];
    return x;
}

static void count_hours(const struct gs_genspec *sp, uint64_t seed,
                        double by_hour[24], long *n)
{
    memset(by_hour, 0, 24 * sizeof *by_hour);
    *n = 0;
    struct gs_gen *g = gs_gen_new(sp, seed);
    struct gs_jobspec j;
    while (gs_gen_next(g, &j)) {
        by_hour[(j.arrival / GS_HOUR) % 24] += 1;
        (*n)++;
    }
    gs_gen_free(g);
}

static void test_diurnal_hourly_rates(void)
{
    /* 100/h, amplitude 0.6, peak 14:00, 30 days: about 72,000 arrivals.
     * Each hour's count is Poisson; |z| < 4.5 for all 24 (a 24-fold test at
     * p = 7e-6 each) and chi-square < 51.18 (df 24, p = 0.001). */
    struct gs_genspec sp = { 0 };
    one_class(&sp);
    sp.rate_per_hour = 100;
    sp.diurnal = 0.6;
    sp.until = 30 * GS_DAY;
    double o[24], e[24], wrong[24];
    long n;
    count_hours(&sp, 11, o, &n);
    for (int h = 0; h < 24; h++) {
        e[h] = 30 * hour_mass(100, 0.6, 14, h);
        wrong[h] = 30 * hour_mass(100, 0.6, 15, h);
        double z = (o[h] - e[h]) / sqrt(e[h]);
        if (fabs(z) >= 4.5)
            printf("\n    hour %d: %g arrivals, expected %g (z %.2f)", h, o[h],
                   e[h], z);
        CU_ASSERT(fabs(z) < 4.5);
    }
    CU_ASSERT(n > 70000 && n < 74000);
    CU_ASSERT(chi2(o, e, 24) < 51.18);
    /* Negative control: the same counts against a peak at 15:00. */
    CU_ASSERT(chi2(o, wrong, 24) > 200);
}

static void test_weekend_dip(void)
{
    /* 50/h for 4 weeks with a 50% weekend dip: weekdays 20 x 24 x 50 =
     * 24,000 expected, weekend days 8 x 24 x 25 = 4,800; 4.5 sigma. */
    struct gs_genspec sp = { 0 };
    one_class(&sp);
    sp.rate_per_hour = 50;
    sp.weekly = 0.5;
    sp.until = 28 * GS_DAY;
    struct gs_gen *g = gs_gen_new(&sp, 5);
    struct gs_jobspec j;
    double wd = 0, we = 0;
    while (gs_gen_next(g, &j)) {
        if ((j.arrival / GS_DAY) % 7 >= 5)
            we += 1;
        else
            wd += 1;
    }
    gs_gen_free(g);
    CU_ASSERT(fabs(wd - 24000) < 4.5 * sqrt(24000));
    CU_ASSERT(fabs(we - 4800) < 4.5 * sqrt(4800));
}

static void test_hourly_profile(void)
{
    /* A profile 1 at night, 3 by day (08-19): normalized by its mean (2),
     * hours get 50 or 150 per hour at rate 100; 20 days. */
    struct gs_genspec sp = { 0 };
    one_class(&sp);
    sp.rate_per_hour = 100;
    for (int h = 0; h < 24; h++)
        sp.hourly[h] = h >= 8 && h < 20 ? 3 : 1;
    sp.until = 20 * GS_DAY;
    double o[24], e[24], flat[24];
    long n;
    count_hours(&sp, 3, o, &n);
    for (int h = 0; h < 24; h++) {
        e[h] = 20 * (h >= 8 && h < 20 ? 150.0 : 50.0);
        flat[h] = 20 * 100.0;
        CU_ASSERT(fabs(o[h] - e[h]) < 4.5 * sqrt(e[h]));
    }
    CU_ASSERT(chi2(o, e, 24) < 51.18);
    CU_ASSERT(chi2(o, flat, 24) > 1000);
    /* gs_gen_rate reports the profiled rate */
    CU_ASSERT_DOUBLE_EQUAL(gs_gen_rate(&sp, 9 * GS_HOUR), 150.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(gs_gen_rate(&sp, 3 * GS_HOUR), 50.0, 1e-9);
}

static void test_mmpp_bursts(void)
{
    /* Two states: factor 1 for 3 h on average, factor 9 for 20 min.  Time
     * shares 0.9 and 0.1, mean factor 0.9 + 0.9 = 1.8, so the normalized
     * factors are 0.556 and 5: rate_per_hour stays the long-run mean, and
     * half the arrivals come in bursts (5 x 0.1 / 1). */
    struct gs_genspec sp = { 0 };
    one_class(&sp);
    sp.rate_per_hour = 100;
    sp.until = 60 * GS_DAY;
    sp.nburst = 2;
    sp.burst_factor[0] = 1;
    sp.burst_factor[1] = 9;
    sp.burst_sojourn[0] = 3 * GS_HOUR;
    sp.burst_sojourn[1] = 20 * GS_MIN;
    struct gs_gen *g = gs_gen_new(&sp, 21);
    struct gs_jobspec j;
    long n = 0, in_burst = 0;
    static double hours[60 * 24];
    memset(hours, 0, sizeof hours);
    while (gs_gen_next(g, &j)) {
        n++;
        in_burst += gs_gen_burst_state(g) == 1;
        hours[j.arrival / GS_HOUR] += 1;
    }
    gs_gen_free(g);
    /* 144,000 expected; the burst chain makes the count vary more than a
     * Poisson count: over 60 days (about 390 burst cycles) the relative
     * sd is about 3%; 10% is over 3 sd. */
    CU_ASSERT(fabs((double)n - 144000) < 0.10 * 144000);
    /* share in bursts 0.5; about 390 bursts give sd 0.025 */
    CU_ASSERT(fabs((double)in_burst / (double)n - 0.5) < 0.1);
    /* Index of dispersion of hourly counts: 1 for Poisson; bursts make it
     * far larger (about 100 here). */
    double m = 0, v = 0;
    for (int h = 0; h < 60 * 24; h++)
        m += hours[h];
    m /= 60 * 24;
    for (int h = 0; h < 60 * 24; h++)
        v += (hours[h] - m) * (hours[h] - m);
    v /= 60 * 24 - 1;
    CU_ASSERT(v / m > 20);

    /* Control: the same spec without bursts has dispersion near 1 (the
     * 1439-df variance ratio stays within 1 +- 0.2). */
    sp.nburst = 0;
    g = gs_gen_new(&sp, 21);
    memset(hours, 0, sizeof hours);
    while (gs_gen_next(g, &j))
        hours[j.arrival / GS_HOUR] += 1;
    gs_gen_free(g);
    m = v = 0;
    for (int h = 0; h < 60 * 24; h++)
        m += hours[h];
    m /= 60 * 24;
    for (int h = 0; h < 60 * 24; h++)
        v += (hours[h] - m) * (hours[h] - m);
    v /= 60 * 24 - 1;
    CU_ASSERT(fabs(v / m - 1.0) < 0.2);
}

static void test_empirical_and_tenants(void)
{
    /* Quantiles 60 s, 600 s, 6000 s: the median draw is 600 s, the 25th
     * percentile sqrt(60 * 600) = 189.7 s (log-linear), nothing outside
     * [60, 6000]; tenants weighted 3:1. 20,000 draws: the fraction below
     * 600 s has sd 0.0035, the 25th percentile about 1.5%. */
    struct gs_genspec sp = { 0 };
    one_class(&sp);
    sp.rate_per_hour = 1000;
    sp.jobs = 20000;
    struct gs_genclass *c = &sp.cls[0];
    c->duration = (struct gs_distspec){ .kind = GS_DIST_EMPIRICAL,
                                        .npoints = 3,
                                        .pts = { 60000, 600000, 6000000 } };
    char names[2][GS_TENANT_NAME] = { "a", "b" };
    double tw[2] = { 3, 1 };
    c->ntenants = 2;
    c->tenants = names;
    c->tenant_w = tw;
    struct gs_gen *g = gs_gen_new(&sp, 9);
    struct gs_jobspec j;
    double *x = malloc(20000 * sizeof *x);
    long n = 0, below = 0, na = 0;
    double lo = 1e18, hi = 0, mean = 0;
    while (gs_gen_next(g, &j)) {
        x[n++] = j.work;
        below += j.work < 600000;
        na += strcmp(j.tenant, "a") == 0;
        lo = j.work < lo ? j.work : lo;
        hi = j.work > hi ? j.work : hi;
        mean += j.work;
    }
    gs_gen_free(g);
    CU_ASSERT_EQUAL_FATAL(n, 20000);
    mean /= (double)n;
    CU_ASSERT(fabs((double)below / n - 0.5) < 0.02);
    CU_ASSERT(fabs((double)na / n - 0.75) < 0.02);
    CU_ASSERT(lo >= 60000 && hi <= 6000000);
    int cnt25 = 0;
    for (long i = 0; i < n; i++)
        cnt25 += x[i] < 189737;
    CU_ASSERT(fabs(cnt25 / 20000.0 - 0.25) < 0.02);
    /* gs_dist_mean of the log-linear segments: 0.5 * (540/ln 10 + 5400/ln
     * 10) s = 1289.9 s; the sample mean has sd about 1.1%. */
    double want = 0.5 * (540000 / log(10.0) + 5400000 / log(10.0));
    CU_ASSERT_DOUBLE_EQUAL(gs_dist_mean(&c->duration), want, 1e-6);
    CU_ASSERT(fabs(mean / want - 1) < 0.05);
    free(x);
}

static void test_old_streams_unchanged(void)
{
    /* A spec without the new features draws what the generator drew before
     * they existed (values from the previous gen.c, commit bafb60f). */
    struct gs_genspec sp = { 0 };
    sp.jobs = 5;
    sp.rate_per_hour = 30;
    sp.diurnal = 0.4;
    sp.peak_hour = 14;
    sp.weekly = 0.2;
    sp.ref_model = -1;
    sp.nclasses = 2;
    struct gs_genclass *c = &sp.cls[0];
    c->weight = 1;
    char names[3][GS_TENANT_NAME] = { "a", "b", "c" };
    c->ntenants = 3;
    c->tenants = names;
    c->nvalues = 2;
    c->gpus[0] = 1;
    c->gpus[1] = 4;
    c->gpu_w[0] = c->gpu_w[1] = 1;
    c->duration = (struct gs_distspec){ .kind = GS_DIST_LOGNORMAL, .a = 14,
                                        .b = 1 };
    c = &sp.cls[1];
    c->weight = 1;
    c->nvalues = 1;
    c->gpus[0] = 0.5;
    c->gpu_w[0] = 1;
    c->duration = (struct gs_distspec){ .kind = GS_DIST_EXPONENTIAL,
                                        .a = 600000 };
    static const struct { long long arr; int gpus, milli; double work;
                          const char *tenant; } want[5] = {
        { 23694, 0, 500, 5097, "default" },
        { 521117, 0, 500, 200888, "default" },
        { 525432, 1, 0, 501820, "b" },
        { 551281, 1, 0, 1360644, "c" },
        { 750828, 0, 500, 182504, "default" },
    };
    struct gs_gen *g = gs_gen_new(&sp, 7);
    struct gs_jobspec j;
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_FATAL(gs_gen_next(g, &j) == 1);
        CU_ASSERT_EQUAL(j.arrival, want[i].arr);
        CU_ASSERT_EQUAL(j.gpus, want[i].gpus);
        CU_ASSERT_EQUAL(j.milli, want[i].milli);
        CU_ASSERT_EQUAL(j.work, want[i].work);
        CU_ASSERT_STRING_EQUAL(j.tenant, want[i].tenant);
    }
    CU_ASSERT_EQUAL(gs_gen_next(g, &j), 0);
    gs_gen_free(g);
}

/* The generator's shortcuts draw what the full path draws: one class is
 * not drawn (the class stream serves nothing else), and a flat rate keeps
 * every candidate without working the rate out.  Spec b takes the full
 * paths -- a second class of weight 0, so the class is drawn, and a
 * diurnal swing of 1e-300, so the rate is worked out (to the bit the
 * peak) -- and must give the same jobs.  Tenant keys name tenants: the
 * same name in a class, the same key. */
static void test_shortcuts_draw_the_same(void)
{
    struct gs_genspec a = { 0 };
    one_class(&a);
    a.jobs = 3000;
    a.rate_per_hour = 200;
    struct gs_genclass *c = &a.cls[0];
    char names[3][GS_TENANT_NAME] = { "x", "y", "z" };
    c->ntenants = 3;
    c->tenants = names;
    c->nvalues = 3;
    c->gpus[0] = 1;
    c->gpus[1] = 2;
    c->gpus[2] = 4;
    c->gpu_w[0] = c->gpu_w[1] = c->gpu_w[2] = 1;
    c->duration = (struct gs_distspec){ .kind = GS_DIST_LOGNORMAL, .a = 14,
                                        .b = 1 };
    struct gs_genspec b = a;
    b.diurnal = 1e-300;
    b.nclasses = 2;
    b.cls[1] = b.cls[0];
    b.cls[1].weight = 0;
    struct gs_gen *ga = gs_gen_new(&a, 11), *gb = gs_gen_new(&b, 11);
    struct gs_jobspec x, y;
    int keys[3] = { 0, 0, 0 };
    long n = 0, same = 0;
    while (gs_gen_next(ga, &x)) {
        CU_ASSERT_FATAL(gs_gen_next(gb, &y) == 1);
        n++;
        same += x.arrival == y.arrival && x.gpus == y.gpus &&
                x.work == y.work && strcmp(x.tenant, y.tenant) == 0 &&
                x.tenant_key == y.tenant_key;
        int t = x.tenant[0] - 'x';
        CU_ASSERT_FATAL(t >= 0 && t < 3);
        if (keys[t] == 0)
            keys[t] = x.tenant_key;
        CU_ASSERT_EQUAL(x.tenant_key, keys[t]);
    }
    CU_ASSERT_EQUAL(gs_gen_next(gb, &y), 0);
    CU_ASSERT_EQUAL(n, 3000);
    CU_ASSERT_EQUAL(same, n);
    CU_ASSERT(keys[0] > 0 && keys[1] > 0 && keys[2] > 0);
    CU_ASSERT(keys[0] != keys[1] && keys[1] != keys[2] && keys[0] != keys[2]);
    gs_gen_free(ga);
    gs_gen_free(gb);
}

/* --- fit ------------------------------------------------------------------------- */

static double uniform_cdf(double x, void *p)
{
    (void)p;
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

static void test_ks_distance(void)
{
    double a[1] = { 0.5 };
    CU_ASSERT_DOUBLE_EQUAL(gs_ks_distance(a, 1, uniform_cdf, NULL), 0.5,
                           1e-12);
    /* ties: ECDF 0 -> 2/3 at 0.2, 2/3 -> 1 at 0.8: D = 2/3 - 0.2 */
    double b[3] = { 0.2, 0.2, 0.8 };
    CU_ASSERT_DOUBLE_EQUAL(gs_ks_distance(b, 3, uniform_cdf, NULL),
                           2.0 / 3.0 - 0.2, 1e-12);
    double c[4] = { 0.125, 0.375, 0.625, 0.875 };
    CU_ASSERT_DOUBLE_EQUAL(gs_ks_distance(c, 4, uniform_cdf, NULL), 0.125,
                           1e-12);
}

/* The workload the fit must recover (truth in the comments). */
static void truth(struct gs_genspec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->rate_per_hour = 80;
    sp->diurnal = 0.5;
    sp->peak_hour = 15;
    sp->weekly = 0.3;
    sp->until = 28 * GS_DAY;
    sp->ref_model = -1;
    sp->nclasses = 3;
    struct gs_genclass *c = &sp->cls[0];
    c->weight = 0.5;
    c->tier = GS_TIER_TRAINING;
    static char names[2][GS_TENANT_NAME] = { "a", "b" };
    static double tw[2] = { 3, 1 };
    c->ntenants = 2;
    c->tenants = names;
    c->tenant_w = tw;
    c->nvalues = 4;
    double g[4] = { 1, 2, 4, 8 }, w[4] = { 0.5, 0.2, 0.2, 0.1 };
    memcpy(c->gpus, g, sizeof g);
    memcpy(c->gpu_w, w, sizeof w);
    c->duration = (struct gs_distspec){ .kind = GS_DIST_LOGNORMAL,
                                        .a = log(3600000.0), .b = 1.2 };
    c->cb = 0.8;
    c = &sp->cls[1];
    c->weight = 0.3;
    c->tier = GS_TIER_INFERENCE;
    c->nvalues = 1;
    c->gpus[0] = 1;
    c->gpu_w[0] = 1;
    c->duration = (struct gs_distspec){ .kind = GS_DIST_EXPONENTIAL,
                                        .a = 1200000 };
    c->cb = 0.5;
    c = &sp->cls[2];
    c->weight = 0.2;
    c->tier = GS_TIER_INTERACTIVE;
    c->nvalues = 2;
    c->gpus[0] = 0.25;
    c->gpus[1] = 0.5;
    c->gpu_w[0] = c->gpu_w[1] = 1;
    c->duration = (struct gs_distspec){ .kind = GS_DIST_PARETO, .a = 300000,
                                        .b = 1.8 };
    c->cb = 0.5;
}

static const struct gs_fitclass *cls(const struct gs_wlfit *f, int tier)
{
    for (int k = 0; k < f->nclasses; k++)
        if (f->cls[k].tier == tier)
            return &f->cls[k];
    CU_FAIL("class missing");
    return &f->cls[0];
}

static double weight_of(const struct gs_fitclass *c, double v)
{
    double tot = 0, w = 0;
    for (int k = 0; k < c->nvalues; k++) {
        tot += c->gpu_w[k];
        if (c->gpus[k] == v)
            w = c->gpu_w[k];
    }
    return w / tot;
}

static void fit_generated(const struct gs_genspec *sp, uint64_t seed,
                          struct gs_wlfit *f)
{
    struct gs_fitter *fr = gs_fitter_new();
    struct gs_gen *g = gs_gen_new(sp, seed);
    struct gs_jobspec j;
    long bad = 0;
    while (gs_gen_next(g, &j))
        bad += gs_fitter_add(fr, &j) != 0;
    CU_ASSERT_EQUAL(bad, 0);
    gs_gen_free(g);
    struct gs_fitopts o;
    gs_fitopts_default(&o);
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_fitter_run(fr, &o, f, &d), 0);
    gs_fitter_free(fr);
    gs_diag_free(&d);
}

static void check_recovered(const struct gs_wlfit *f)
{
    if (getenv("GS_TEST_VERBOSE"))
        gs_fit_print(stdout, f, NULL);
    /* About 49,000 jobs over 4 weeks.  Tolerances are several standard
     * errors of each estimate at that size (rate ~0.5%, amplitude ~0.007,
     * peak ~0.05 h, dip ~0.01, shares ~0.003, sigma ~0.6%, medians and
     * means ~1-2%, alpha ~1%). */
    CU_ASSERT(f->n > 46000 && f->n < 52000);
    CU_ASSERT(f->fit_daily && f->fit_weekly);
    CU_ASSERT(fabs(f->rate / 80.0 - 1) < 0.03);
    CU_ASSERT(fabs(f->amp - 0.5) < 0.03);
    CU_ASSERT(fabs(f->peak - 15.0) < 0.25);
    CU_ASSERT(fabs(f->dip - 0.3) < 0.03);
    /* time-rescaled arrivals are uniform: D ~ 0.87/sqrt(n) = 0.004 */
    CU_ASSERT(f->arr_ks < 0.012);
    CU_ASSERT(f->chi2 < 60);
    CU_ASSERT_EQUAL_FATAL(f->nclasses, 3);

    const struct gs_fitclass *tr = cls(f, GS_TIER_TRAINING);
    CU_ASSERT(fabs(tr->weight - 0.5) < 0.015);
    CU_ASSERT_EQUAL(tr->chosen, GS_DIST_LOGNORMAL);
    CU_ASSERT(fabs(exp(tr->logn.a) / 3600000.0 - 1) < 0.04);
    CU_ASSERT(fabs(tr->logn.b / 1.2 - 1) < 0.03);
    CU_ASSERT(tr->logn.ks < 0.015);
    CU_ASSERT(tr->exp.ks > 0.1);            /* the wrong laws fit worse */
    CU_ASSERT(fabs(weight_of(tr, 1) - 0.5) < 0.015);
    CU_ASSERT(fabs(weight_of(tr, 8) - 0.1) < 0.015);
    CU_ASSERT_EQUAL(tr->ntenants, 2);
    CU_ASSERT_STRING_EQUAL(tr->tenants[0], "a");
    CU_ASSERT(fabs(tr->tenant_w[0] / (double)tr->n - 0.75) < 0.02);
    CU_ASSERT(fabs(tr->cb - 0.8) < 1e-6);

    const struct gs_fitclass *in = cls(f, GS_TIER_INFERENCE);
    CU_ASSERT(fabs(in->weight - 0.3) < 0.015);
    CU_ASSERT_EQUAL(in->chosen, GS_DIST_EXPONENTIAL);
    CU_ASSERT(fabs(in->exp.a / 1200000.0 - 1) < 0.04);
    CU_ASSERT_EQUAL(in->nvalues, 1);

    const struct gs_fitclass *ia = cls(f, GS_TIER_INTERACTIVE);
    CU_ASSERT(fabs(ia->weight - 0.2) < 0.015);
    CU_ASSERT_EQUAL(ia->chosen, GS_DIST_PARETO);
    CU_ASSERT(ia->par.a >= 300000 && ia->par.a < 300000 * 1.005);
    CU_ASSERT(fabs(ia->par.b / 1.8 - 1) < 0.05);
    CU_ASSERT(fabs(weight_of(ia, 0.25) - 0.5) < 0.03);
}

static void test_fit_recovers_generator(void)
{
    struct gs_genspec sp;
    truth(&sp);
    struct gs_wlfit *f = malloc(sizeof *f);
    fit_generated(&sp, 2024, f);
    check_recovered(f);

    /* The spec it writes reads back with the fitted figures ... */
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    char path[] = "/tmp/gs_spec_XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    gs_fit_write_spec(fp, f, &cat, "test \"truth\"");
    fclose(fp);
    struct gs_genspec back;
    uint64_t seed = 0;
    struct gs_diag d = { 0 };
    int rc = gs_genspec_load(path, &cat, &back, &seed, &d);
    if (rc < 0)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(seed, 1);
    CU_ASSERT_EQUAL(back.jobs, f->n);
    CU_ASSERT(fabs(back.rate_per_hour / f->rate - 1) < 1e-8);
    CU_ASSERT(fabs(back.diurnal - f->amp) < 1e-6);
    CU_ASSERT(fabs(back.weekly - f->dip) < 1e-6);
    CU_ASSERT_EQUAL(back.nclasses, 3);
    const struct gs_fitclass *tr = cls(f, GS_TIER_TRAINING);
    int k = (int)(tr - f->cls);
    CU_ASSERT_EQUAL(back.cls[k].duration.kind, GS_DIST_LOGNORMAL);
    CU_ASSERT(fabs(back.cls[k].duration.b - tr->logn.b) < 1e-6);
    CU_ASSERT(fabs(back.cls[k].duration.a - tr->logn.a) < 1e-6);
    CU_ASSERT_EQUAL(back.cls[k].ntenants, 2);
    CU_ASSERT_EQUAL(back.cls[k].tenant_w[0], tr->tenant_w[0]);
    unlink(path);

    /* ... and generating "more of the same" from it fits to the truth too
     * (no until: it stops after the fitted number of jobs). */
    struct gs_wlfit *f2 = malloc(sizeof *f2);
    fit_generated(&back, 99, f2);
    CU_ASSERT_EQUAL(f2->n, f->n);
    check_recovered(f2);
    free(f2);
    free(f);
    gs_genspec_release(&back);
    gs_diag_free(&d);
}

static void test_fit_empirical_choice(void)
{
    /* A bimodal duration mix fits no single law well: auto takes the
     * empirical quantiles, and their KS distance is small. */
    struct gs_genspec sp = { 0 };
    sp.rate_per_hour = 200;
    sp.jobs = 5000;
    sp.ref_model = -1;
    sp.nclasses = 2;
    for (int i = 0; i < 2; i++) {
        struct gs_genclass *c = &sp.cls[i];
        c->weight = 1;
        c->tier = GS_TIER_TRAINING;
        c->nvalues = 1;
        c->gpus[0] = 1;
        c->gpu_w[0] = 1;
        c->duration = (struct gs_distspec){ .kind = GS_DIST_LOGNORMAL,
                                            .a = log(i ? 3.6e6 : 6e4),
                                            .b = 0.2 };
    }
    struct gs_wlfit *f = malloc(sizeof *f);
    fit_generated(&sp, 4, f);
    CU_ASSERT_EQUAL(f->nclasses, 1);
    CU_ASSERT_EQUAL(f->cls[0].chosen, GS_DIST_EMPIRICAL);
    CU_ASSERT(f->cls[0].logn.ks > 0.2);
    CU_ASSERT(f->cls[0].emp.ks < 0.02);
    /* a span under two days: no daily cycle */
    CU_ASSERT_EQUAL(f->fit_daily, 0);
    CU_ASSERT_EQUAL(f->amp, 0);
    free(f);

    struct gs_fitter *fr = gs_fitter_new();
    struct gs_jobspec j;
    gs_jobspec_init(&j);
    gs_fitter_add(fr, &j);
    struct gs_diag d = { 0 };
    struct gs_wlfit one;
    struct gs_fitopts o;
    gs_fitopts_default(&o);
    CU_ASSERT_EQUAL(gs_fitter_run(fr, &o, &one, &d), GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "at least 2 jobs"));
    gs_fitter_free(fr);
    gs_diag_free(&d);
}

/* --- generator spec files and node-list fleets ------------------------------------ */

static int spec_text(const char *text, struct gs_genspec *sp,
                     struct gs_diag *d)
{
    char path[] = "/tmp/gs_gspec_XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    fputs(text, fp);
    fclose(fp);
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    uint64_t seed = 0;
    memset(d, 0, sizeof *d);
    int rc = gs_genspec_load(path, &cat, sp, &seed, d);
    unlink(path);
    return rc;
}

#define CLS "\"classes\": [{\"duration\": {\"dist\": \"constant\", " \
            "\"value\": 60}}]"

static void spec_bad(const char *text, const char *path, const char *what)
{
    struct gs_genspec sp;
    struct gs_diag d = { 0 };
    int rc = spec_text(text, &sp, &d);
    if (rc >= 0 || !strstr(d.where, path) || !strstr(d.what, what))
        printf("\n    got rc=%d %s: %s", rc, d.where, d.what);
    CU_ASSERT(rc < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.where, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, what));
    if (rc >= 0)
        gs_genspec_release(&sp);
    gs_diag_free(&d);
}

static void test_spec_files(void)
{
    struct gs_genspec sp;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(spec_text("{\"jobs\": 10, \"rate_per_hour\": 5, \"seed\": 3,"
                              " \"hourly_profile\": [1,1,1,1,1,1,1,1,2,2,2,2,2,"
                              "2,2,2,2,2,2,2,1,1,1,1], \"burst\": {\"states\": "
                              "[{\"rate_factor\": 1, \"mean_sojourn\": \"1h\"},"
                              " {\"rate_factor\": 4, \"mean_sojourn\": 600}]},"
                              " \"classes\": [{\"tenants\": [\"x\", \"y\"], "
                              "\"tenant_weights\": [2, 1], \"duration\": "
                              "{\"dist\": \"empirical\", \"quantiles\": [1, "
                              "\"2m\", 3600]}}]}", &sp, &d), 0);
    CU_ASSERT_EQUAL(sp.nburst, 2);
    CU_ASSERT_EQUAL(sp.burst_sojourn[1], 600000);
    CU_ASSERT_EQUAL(sp.hourly[8], 2);
    CU_ASSERT_EQUAL(sp.cls[0].tenant_w[0], 2);
    CU_ASSERT_EQUAL(sp.cls[0].duration.kind, GS_DIST_EMPIRICAL);
    CU_ASSERT_EQUAL(sp.cls[0].duration.npoints, 3);
    CU_ASSERT_EQUAL(sp.cls[0].duration.pts[1], 120000);
    gs_genspec_release(&sp);

    spec_bad("{\"jobs\": 1, \"rate_per_hour\": 5, \"hourly_profile\": [1, 2], "
             CLS "}", "$.hourly_profile", "24 numbers");
    spec_bad("{\"jobs\": 1, \"rate_per_hour\": 5, \"burst\": {\"states\": "
             "[{\"rate_factor\": 1, \"mean_sojourn\": 60}]}, " CLS "}",
             "$.burst", "2 to 4 burst states");
    spec_bad("{\"jobs\": 1, \"rate_per_hour\": 5, \"burst\": {\"states\": "
             "[{\"rate_factor\": 1, \"mean_sojourn\": 60}, {\"rate_factor\": "
             "2, \"sojourn\": 60}]}, " CLS "}", "$.burst.states[1]",
             "unknown key 'sojourn'");
    spec_bad("{\"jobs\": 1, \"rate_per_hour\": 5, \"classes\": [{\"tenants\": "
             "[\"a\"], \"tenant_weights\": [1, 2], \"duration\": {\"dist\": "
             "\"constant\", \"value\": 1}}]}", "$.classes[0].tenant_weights",
             "one per tenant");
    spec_bad("{\"jobs\": 1, \"rate_per_hour\": 5, \"classes\": [{\"duration\": "
             "{\"dist\": \"empirical\", \"quantiles\": [10, 5]}}]}",
             "$.classes[0].duration.quantiles", "must not decrease");
    spec_bad("{\"jobs\": 1, \"rate_per_hour\": 5, \"sed\": 1, " CLS "}",
             ": $", "unknown key 'sed'");
    spec_bad("{\"jobs\": 1,\n \"rate_per_hour\": 5,\n oops}", ":3:",
             "malformed JSON");
    spec_bad("{\"name\": \"s\", \"fleet\": [{\"gpu\": \"T4\", \"nodes\": 1}], "
             "\"workload\": {\"trace\": {\"format\": \"native\", \"path\": "
             "\"x.csv\"}}}", ": $.workload", "needs \"generate\"");
    gs_diag_free(&d);
}

static void test_fleet_from_node_list(void)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    const char *text =
        "{\"fleet\": [{\"from_node_list\": {\"format\": \"alibaba-gpu-2023\", "
        "\"path\": \"traces/nodes_ok.csv\", \"price_per_gpu_hour\": 2, "
        "\"name_prefix\": \"ali-\"}},\n"
        " {\"name\": \"h\", \"gpu\": \"H100-80GB\", \"nodes\": 1}],\n"
        " \"workload\": {\"generate\": {\"jobs\": 1, \"rate_per_hour\": 1, "
        CLS "}}}";
    int rc = gs_scenario_parse(text, "s.json", "tests/fixtures", &sc, &d);
    if (rc < 0)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(sc->npools, 5);
    CU_ASSERT_STRING_EQUAL(sc->pools[0].name, "ali-G2-x8");
    CU_ASSERT_EQUAL(sc->pools[0].nodes, 2);
    CU_ASSERT_DOUBLE_EQUAL(sc->pools[0].price_hour, 16.0, 1e-12);
    /* the CPU-only node: a pool without GPUs at the default CPU price
     * (1 milli-core: $3.2256 / 64 vCPUs / 1000) */
    CU_ASSERT_STRING_EQUAL(sc->pools[1].name, "ali-cpu-1m-1mi");
    CU_ASSERT_EQUAL(sc->pools[1].gpn, 0);
    CU_ASSERT_DOUBLE_EQUAL(sc->pools[1].price_hour, 3.2256 / 64 / 1000,
                           1e-12);
    CU_ASSERT_STRING_EQUAL(sc->pools[3].name, "ali-V100-32GB-x4");
    CU_ASSERT_STRING_EQUAL(sc->pools[4].name, "h");
    CU_ASSERT(gs_catalog_find(&sc->cat, "G2") >= 0);
    gs_scenario_free(sc);

    static const struct { const char *fleet, *where, *what; } bad[] = {
        { "{\"from_node_list\": {\"format\": \"alibaba-gpu-2023\", \"path\": "
          "\"traces/nodes_ok.csv\", \"colour\": 1}}",
          "s.json: $.fleet[0].from_node_list", "unknown key 'colour'" },
        { "{\"from_node_list\": {\"path\": \"traces/nodes_ok.csv\"}}",
          "s.json: $.fleet[0].from_node_list", "missing required key "
          "'format'" },
        { "{\"from_node_list\": {\"format\": \"alibaba-gpu-2023\", \"path\": "
          "\"traces/nodes_ok.csv\"}, \"nodes\": 3}",
          "s.json: $.fleet[0]", "unknown key 'nodes'" },
        { "{\"from_node_list\": {\"format\": \"alibaba-gpu-2023\", \"path\": "
          "\"traces/nodes_bad_gpu.csv\"}}",
          "tests/fixtures/traces/nodes_bad_gpu.csv:3: field 'gpu'",
          "'two' is not a GPU count" },
        { "{\"from_node_list\": {\"format\": \"alibaba-gpu-2023\", \"path\": "
          "\"traces/nodes_ok.csv\", \"market\": \"flea\"}}",
          "s.json: $.fleet[0].from_node_list.market", "unknown market" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char t[1024];
        snprintf(t, sizeof t, "{\"fleet\": [%s], \"workload\": {\"generate\": "
                 "{\"jobs\": 1, \"rate_per_hour\": 1, " CLS "}}}",
                 bad[i].fleet);
        struct gs_diag e = { 0 };
        sc = NULL;
        rc = gs_scenario_parse(t, "s.json", "tests/fixtures", &sc, &e);
        if (rc >= 0 || strcmp(e.where, bad[i].where) != 0 ||
            !strstr(e.what, bad[i].what))
            printf("\n    case %zu: rc=%d %s: %s", i, rc, e.where, e.what);
        CU_ASSERT(rc < 0);
        CU_ASSERT_STRING_EQUAL(e.where, bad[i].where);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.what, bad[i].what));
        CU_ASSERT_PTR_NULL(sc);
        gs_diag_free(&e);
    }
    gs_diag_free(&d);
}


/* "tenants": N takes any number of tenants (it once stopped at 64):
 * 1,000 numbered tenants over two classes, 20,000 jobs, run under fifo.
 * tenantK is one tenant in both classes, so the run has exactly 1,000
 * (every one drawn: a tenant misses all 20,000 draws with probability
 * e^-20), named tenant1 .. tenant1000, each with about 20 jobs (Poisson:
 * none past 60).  A list of names stays capped, and says how to go past. */
/* Named tenants, any number of them (issue 27: a class naming its tenants
 * was capped at 64): class a names 300, the last weighted 299 and the rest
 * 1 (so it draws half of a's jobs), class b names 100, class c numbers 5.
 * The run knows all 405 by their names; the generator gives a299 half of
 * a's jobs (20,000 jobs a class on average 6,667: sd of the share 0.006)
 * and one key to each name (the core's lookup by key must never mix two
 * tenants up). */
static void test_many_named_tenants(void)
{
    size_t cap = 64 * 1024, n = 0;
    char *text = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    n += (size_t)snprintf(text + n, cap - n,
        "{\"name\": \"named\", \"seed\": 5, \"fleet\": [{\"gpu\": "
        "\"H100-80GB\", \"nodes\": 8, \"gpus_per_node\": 8}], "
        "\"workload\": {\"generate\": {\"jobs\": 20000, "
        "\"rate_per_hour\": 3000, \"classes\": [{\"name\": \"a\", "
        "\"tenants\": [");
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(text + n, cap - n, "%s\"a%d\"", i ? ", " : "",
                              i);
    n += (size_t)snprintf(text + n, cap - n, "], \"tenant_weights\": [");
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(text + n, cap - n, "%s%d", i ? ", " : "",
                              i == 299 ? 299 : 1);
    n += (size_t)snprintf(text + n, cap - n, "], \"duration\": {\"dist\": "
        "\"exponential\", \"mean\": \"5m\"}}, {\"name\": \"b\", "
        "\"tenants\": [");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(text + n, cap - n, "%s\"b%d\"", i ? ", " : "",
                              i);
    n += (size_t)snprintf(text + n, cap - n, "], \"duration\": {\"dist\": "
        "\"exponential\", \"mean\": \"5m\"}}, {\"name\": \"c\", "
        "\"tenants\": 5, \"duration\": {\"dist\": \"exponential\", "
        "\"mean\": \"5m\"}}]}}}");
    CU_ASSERT_FATAL(n < cap);
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    int rc = gs_scenario_parse(text, "named.json", ".", &sc, &d);
    if (rc < 0)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(sc->gen.cls[0].ntenants, 300);
    CU_ASSERT_STRING_EQUAL(sc->gen.cls[0].tenants[299], "a299");
    CU_ASSERT_EQUAL(sc->gen.cls[0].tenant_w[299], 299);
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    CU_ASSERT_EQUAL(gs_sim_summary(sim)->all.done, 20000);
    CU_ASSERT_EQUAL(gs_sim_ntenants(sim), 405);
    static char seen[3][300];
    memset(seen, 0, sizeof seen);
    int known = 0;
    for (int t = 0; t < gs_sim_ntenants(sim); t++) {
        const char *name = gs_sim_tenant_name(sim, t);
        int k = -1, c = name[0] == 'a' ? 0 : name[0] == 'b' ? 1 : 2;
        if (c < 2 ? sscanf(name + 1, "%d", &k) != 1
                  : sscanf(name, "tenant%d", &k) != 1)
            continue;
        int lim = c == 0 ? 300 : c == 1 ? 100 : 6;
        if (k >= 0 && k < lim && !seen[c][k]) {
            seen[c][k] = 1;
            known++;
        }
    }
    CU_ASSERT_EQUAL(known, 405);
    gs_sim_free(sim);

    /* the generator alone: a299's share, one name a key */
    struct gs_gen *g = gs_gen_new(&sc->gen, 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    static char keyname[1024][GS_TENANT_NAME];
    memset(keyname, 0, sizeof keyname);
    struct gs_jobspec j;
    long ina = 0, last = 0, clash = 0;
    while (gs_gen_next(g, &j)) {
        if (j.tenant[0] == 'a') {
            ina++;
            last += strcmp(j.tenant, "a299") == 0;
        }
        CU_ASSERT_FATAL(j.tenant_key > 0 && j.tenant_key < 1024);
        if (keyname[j.tenant_key][0] == 0)
            strcpy(keyname[j.tenant_key], j.tenant);
        clash += strcmp(keyname[j.tenant_key], j.tenant) != 0;
    }
    gs_gen_free(g);
    CU_ASSERT_EQUAL(clash, 0);
    CU_ASSERT(ina > 6000 && ina < 7300);
    CU_ASSERT(fabs((double)last / (double)ina - 0.5) < 0.03);
    gs_scenario_free(sc);
    free(text);
    gs_diag_free(&d);
}

static void test_many_tenants(void)
{
    const char *text =
        "{\"name\": \"many\", \"seed\": 3, \"fleet\": [{\"gpu\": "
        "\"H100-80GB\", \"nodes\": 4, \"gpus_per_node\": 8}], "
        "\"workload\": {\"generate\": {\"jobs\": 20000, "
        "\"rate_per_hour\": 2000, \"classes\": ["
        "{\"name\": \"a\", \"weight\": 1, \"tenants\": 1000, "
        "\"duration\": {\"dist\": \"exponential\", \"mean\": \"5m\"}}, "
        "{\"name\": \"b\", \"weight\": 1, \"tenants\": 1000, "
        "\"gpus\": 2, \"duration\": {\"dist\": \"exponential\", "
        "\"mean\": \"5m\"}}]}}}";
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(text, "s.json", ".", &sc, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    CU_ASSERT_EQUAL(gs_sim_summary(sim)->all.done, 20000);
    int nt = gs_sim_ntenants(sim), named = 0;
    CU_ASSERT_EQUAL(nt, 1000);
    static char seen[1001];
    memset(seen, 0, sizeof seen);
    for (int t = 0; t < nt; t++) {
        int k = 0;
        if (sscanf(gs_sim_tenant_name(sim, t), "tenant%d", &k) == 1 &&
            k >= 1 && k <= 1000 && !seen[k]) {
            seen[k] = 1;
            named++;
        }
    }
    CU_ASSERT_EQUAL(named, 1000);
    gs_sim_free(sim);
    gs_scenario_free(sc);

    /* the generator alone: counts per tenant */
    struct gs_genspec sp = { 0 };
    one_class(&sp);
    sp.rate_per_hour = 1000;
    sp.jobs = 20000;
    sp.cls[0].ntenants = 1000;
    sp.cls[0].numbered = 1;
    struct gs_gen *g = gs_gen_new(&sp, 4);
    struct gs_jobspec j;
    static int cnt[1001];
    memset(cnt, 0, sizeof cnt);
    long n = 0, bad = 0;
    while (gs_gen_next(g, &j)) {
        int k = 0;
        char want[32];
        n++;
        if (sscanf(j.tenant, "tenant%d", &k) != 1 || k < 1 || k > 1000 ||
            (snprintf(want, sizeof want, "tenant%d", k),
             strcmp(j.tenant, want) != 0))
            bad++;
        else
            cnt[k]++;
    }
    gs_gen_free(g);
    CU_ASSERT_EQUAL(n, 20000);
    CU_ASSERT_EQUAL(bad, 0);
    int lo = 1 << 30, hi = 0;
    for (int k = 1; k <= 1000; k++) {
        lo = cnt[k] < lo ? cnt[k] : lo;
        hi = cnt[k] > hi ? cnt[k] : hi;
    }
    CU_ASSERT(lo >= 1 && hi <= 60);

    /* 100 names, the 71st empty: refused, naming the key (any number of
     * names is taken: test_many_named_tenants) */
    char t2[4096];
    int off = snprintf(t2, sizeof t2, "{\"fleet\": [{\"gpu\": \"H100-80GB\", "
                       "\"nodes\": 1}], \"workload\": {\"generate\": "
                       "{\"jobs\": 1, \"rate_per_hour\": 1, \"classes\": "
                       "[{\"tenants\": [");
    for (int i = 0; i < 100; i++)
        off += i == 70 ? snprintf(t2 + off, sizeof t2 - (size_t)off, ", \"\"")
                       : snprintf(t2 + off, sizeof t2 - (size_t)off,
                                  "%s\"n%d\"", i ? ", " : "", i);
    snprintf(t2 + off, sizeof t2 - (size_t)off, "]}]}}}");
    sc = NULL;
    gs_diag_free(&d);
    CU_ASSERT(gs_scenario_parse(t2, "s.json", ".", &sc, &d) < 0);
    CU_ASSERT_STRING_EQUAL(d.where, "s.json: $.workload.generate.classes[0]"
                           ".tenants");
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "non-empty"));
    CU_ASSERT_PTR_NULL(sc);
    gs_diag_free(&d);
}

static CU_TestInfo tests[] = {
    { "diurnal hourly rates match the spec", test_diurnal_hourly_rates },
    { "weekend dip", test_weekend_dip },
    { "hour-of-day profile", test_hourly_profile },
    { "MMPP bursts keep the mean rate", test_mmpp_bursts },
    { "empirical durations and weighted tenants", test_empirical_and_tenants },
    { "specs without new features draw as before", test_old_streams_unchanged },
    { "the generator's shortcuts draw the same", test_shortcuts_draw_the_same },
    { "KS distance", test_ks_distance },
    { "fit recovers a generated workload", test_fit_recovers_generator },
    { "fit falls back to empirical quantiles", test_fit_empirical_choice },
    { "generator spec files", test_spec_files },
    { "fleet from a node list", test_fleet_from_node_list },
    { "any number of generated tenants", test_many_tenants },
    { "any number of named tenants", test_many_named_tenants },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("tracegen", tests)
