/* order.c -- exact order statistics of large samples (order.h).
 *
 * Sorting.  A non-negative IEEE-754 double orders as its 64-bit pattern
 * does, so a least-significant-digit radix sort on those bits (Knuth,
 * TAOCP vol. 3, 5.2.5) sorts the values.  Digits of 11 bits keep the 2048
 * bucket cursors of a scatter pass within the first cache levels (16-bit
 * digits, tried first, spread a pass's writes over 65536 places and cost
 * more than the simulation they summarized); all six digit histograms come
 * from one read of the data, and a pass whose digit is the same for every
 * value is skipped -- latencies of a few seconds share their top bits, and
 * floats widened to doubles their low 29.  Equal values have equal bits, so
 * the sorted array is exactly what any correct sort gives, and a mean taken
 * over it (as sim/service.c does) keeps its order of summation.
 *
 * Weighted selection.  The token-weighted ITL percentiles need, for a
 * target weight t, the smallest value x whose weight at or below x reaches
 * t.  Hoare's FIND (CACM 4(7), 1961) with a three-way partition (Dijkstra's
 * Dutch national flag, so runs of equal durations cost one pass) narrows a
 * range that always holds the answer, carrying the weight below the range;
 * the next, larger target resumes from the equal block of the last pivot.
 * Pivots are medians of three fixed positions, so the result and the
 * permutation are reproducible.  Weights are whole numbers (token counts),
 * whose sums are exact in a double whatever the order of addition: the
 * answer is the very value a scan of the sorted array would stop at. */
#include "order.h"
#include "err.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DIGIT = 11, RADIX = 1 << DIGIT, PASSES = (64 + DIGIT - 1) / DIGIT };

static uint64_t bits(const double *p)
{
    uint64_t k;
    memcpy(&k, p, sizeof k);
    return k;
}

int gs_order_sort(double *v, double *tmp, size_t n)
{
    if (n < 2)
        return 0;
    size_t *cnt = calloc((size_t)PASSES * RADIX, sizeof *cnt);
    if (cnt == NULL)
        return GS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = bits(&v[i]);
        for (int p = 0; p < PASSES; p++)
            cnt[(size_t)p * RADIX + ((k >> (DIGIT * p)) & (RADIX - 1))]++;
    }
    double *src = v, *dst = tmp;
    uint64_t k0 = bits(&v[0]);
    for (int p = 0; p < PASSES; p++) {
        size_t *c = cnt + (size_t)p * RADIX;
        int sh = DIGIT * p;
        if (c[(k0 >> sh) & (RADIX - 1)] == n)
            continue;               /* one digit for all: order unchanged */
        size_t sum = 0;
        for (size_t d = 0; d < RADIX; d++) {
            size_t x = c[d];
            c[d] = sum;
            sum += x;
        }
        for (size_t i = 0; i < n; i++)
            dst[c[(bits(&src[i]) >> sh) & (RADIX - 1)]++] = src[i];
        double *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    free(cnt);
    return 0;
}

static void swap2(double *v, float *w, size_t i, size_t j)
{
    double t = v[i];
    v[i] = v[j];
    v[j] = t;
    float u = w[i];
    w[i] = w[j];
    w[j] = u;
}

static double med3(double a, double b, double c)
{
    if (a < b)
        return b < c ? b : (a < c ? c : a);
    return a < c ? a : (b < c ? c : b);
}

void gs_order_wquantiles(double *v, float *w, size_t n, const double *need,
                         int nneed, double *out)
{
    for (int k = 0; k < nneed; k++)
        out[k] = 0;
    if (n == 0)
        return;
    /* [lo, n) holds, in sorted order, every value from the last answer's
     * up; base is the weight below lo. */
    size_t lo = 0;
    double base = 0;
    for (int k = 0; k < nneed; k++) {
        size_t a = lo, b = n;       /* the answer lies in v[a..b-1] */
        double wa = base;           /* weight below a */
        for (;;) {
            size_t len = b - a;
            double p = med3(v[a + len / 4], v[a + len / 2],
                            v[a + (3 * len) / 4]);
            /* v[a..lt) < p, v[lt..i) == p, v[gt..b) > p */
            size_t lt = a, i = a, gt = b;
            double wl = 0, we = 0;
            while (i < gt) {
                if (v[i] < p) {
                    wl += w[i];
                    swap2(v, w, lt++, i++);
                } else if (v[i] > p) {
                    swap2(v, w, i, --gt);
                } else {
                    we += w[i];
                    i++;
                }
            }
            if (lt > a && wa + wl >= need[k]) {
                b = lt;             /* below the pivot */
                continue;
            }
            if (wa + wl + we >= need[k] || gt == b) {
                out[k] = p;         /* the pivot (or the largest value) */
                lo = lt;
                base = wa + wl;
                break;
            }
            wa += wl + we;          /* above the pivot */
            a = gt;
        }
    }
}
