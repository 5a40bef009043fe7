/* test_order.c -- the radix sort of non-negative doubles against qsort,
 * and the weighted selection against a scan of the sorted sample (the
 * definition), on samples with many ties, zeros, widened floats, values of
 * every magnitude, zero weights, and targets at and beyond the total. */
#include "cutest.h"
#include "../sim/base/order.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sample kind k: 0 continuous lognormal-like, 1 few distinct values,
 * 2 floats widened, 3 every magnitude (exponents -300..300) and zeros. */
static double draw(gsl_rng *g, int k)
{
    switch (k) {
    case 0:
        return exp(4 * gsl_rng_uniform(g) - 3);
    case 1:
        return (double)gsl_rng_uniform_int(g, 7) * 0.015;
    case 2:
        return (double)(float)(gsl_rng_uniform(g) * 30);
    default:
        return gsl_rng_uniform_int(g, 10) == 0
               ? 0.0 : ldexp(gsl_rng_uniform(g), (int)gsl_rng_uniform_int(g, 601) - 300);
    }
}

static void test_sort_equals_qsort(void)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    /* below and at the size where the sort splits by its top bits first
     * (16384), and well above it */
    static const size_t sizes[] = { 0, 1, 2, 3, 17, 1000, 16383, 16384,
                                    100000, 400000 };
    int bad = 0;
    for (int k = 0; k < 4; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            double *v = malloc((n + 1) * sizeof *v);
            double *r = malloc((n + 1) * sizeof *r);
            double *t = malloc((n + 1) * sizeof *t);
            for (size_t i = 0; i < n; i++)
                v[i] = r[i] = draw(g, k);
            CU_ASSERT_EQUAL(gs_order_sort(v, t, n), 0);
            qsort(r, n, sizeof *r, cmp);
            bad += n > 0 && memcmp(v, r, n * sizeof *v) != 0;
            free(v);
            free(r);
            free(t);
        }
    CU_ASSERT_EQUAL(bad, 0);
    /* all equal: every pass skipped, nothing moves */
    double v[5] = { 2.5, 2.5, 2.5, 2.5, 2.5 }, t[5];
    CU_ASSERT_EQUAL(gs_order_sort(v, t, 5), 0);
    CU_ASSERT_DOUBLE_EQUAL(v[0], 2.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(v[4], 2.5, 0);
    gsl_rng_free(g);
}

/* The definition: scan the sample in ascending order for the first
 * cumulative weight that reaches the target (the last value when none
 * does). */
struct pair { double v; float w; };
static int cmp_pair(const void *a, const void *b)
{
    return cmp(&((const struct pair *)a)->v, &((const struct pair *)b)->v);
}

static double by_scan(const double *v, const float *w, size_t n, double need)
{
    struct pair *s = malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = (struct pair){ v[i], w[i] };
    qsort(s, n, sizeof *s, cmp_pair);
    double acc = 0, ans = s[n - 1].v;
    for (size_t i = 0; i < n; i++) {
        acc += s[i].w;
        if (acc >= need) {
            ans = s[i].v;
            break;
        }
    }
    free(s);
    return ans;
}

static void test_wquantiles_by_definition(void)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    int bad = 0, cases = 0;
    for (int rep = 0; rep < 64; rep++) {
        int k = rep % 4;
        /* the last four large enough for the histogram's shortcut */
        size_t n = rep >= 60 ? 300000 + gsl_rng_uniform_int(g, 1000)
                   : 1 + gsl_rng_uniform_int(g, rep < 40 ? 40 : 3000);
        double *v = malloc(n * sizeof *v), *v0 = malloc(n * sizeof *v0);
        float *w = malloc(n * sizeof *w), *w0 = malloc(n * sizeof *w0);
        double total = 0;
        for (size_t i = 0; i < n; i++) {
            v[i] = v0[i] = draw(g, k);
            w[i] = w0[i] = (float)gsl_rng_uniform_int(g, rep % 5 ? 257 : 3);
            total += w[i];
        }
        double ps[6] = { 0, 0.01, 0.5, 0.95, 0.99, 1 }, need[7], out[7];
        for (int i = 0; i < 6; i++)
            need[i] = ps[i] * total;
        need[6] = total + 1;        /* beyond the total: the largest value */
        gs_order_wquantiles(v, w, n, need, 7, out);
        for (int i = 0; i < 7; i++) {
            bad += out[i] != by_scan(v0, w0, n, need[i]);
            cases++;
        }
        /* v and w were permuted together */
        double sv = 0, sw = 0, sv0 = 0, sw0 = 0;
        for (size_t i = 0; i < n; i++) {
            sv += v[i] * w[i];
            sw += w[i];
            sv0 += v0[i] * w0[i];
            sw0 += w0[i];
        }
        bad += sw != sw0 || fabs(sv - sv0) > 1e-9 * fabs(sv0);
        free(v);
        free(v0);
        free(w);
        free(w0);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(cases, 448);
    /* by hand: durations 3 (weight 1), 1 (weight 2), 2 (weight 1):
     * cumulative 2 at 1, 3 at 2, 4 at 3 */
    double v[3] = { 3, 1, 2 }, need[4] = { 1, 2, 2.5, 4 }, out[4];
    float w[3] = { 1, 2, 1 };
    gs_order_wquantiles(v, w, 3, need, 4, out);
    CU_ASSERT_DOUBLE_EQUAL(out[0], 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(out[1], 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(out[2], 2, 0);
    CU_ASSERT_DOUBLE_EQUAL(out[3], 3, 0);
    gs_order_wquantiles(v, w, 0, need, 4, out);
    CU_ASSERT_DOUBLE_EQUAL(out[3], 0, 0);
    gsl_rng_free(g);
}

static CU_TestInfo tests[] = {
    { "radix sort equals qsort", test_sort_equals_qsort },
    { "weighted quantiles by definition", test_wquantiles_by_definition },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("order", tests)
