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
 * over it (as sim/inference/service.c does) keeps its order of summation.
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
 * answer is the very value a scan of the sorted array would stop at.  A
 * large sample is first narrowed by a weighted histogram of a 16-bit digit
 * (a radix select), so selection runs only on the values that share the
 * targets' digits. */
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

/* Selection on v[0..n-1], whose values all lie above weight base0. */
static void wselect(double *v, float *w, size_t n, double base0,
                    const double *need, int nneed, double *out)
{
    for (int k = 0; k < nneed; k++)
        out[k] = 0;
    if (n == 0)
        return;
    /* [lo, n) holds, in sorted order, every value from the last answer's
     * up; base is the weight below lo. */
    size_t lo = 0;
    double base = base0;
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

/* Large samples: one pass finds the bits all values share (their common
 * prefix), a second adds the weights by the 16-bit digit below it, and the
 * third gathers the few digits' values that hold the targets; selection
 * then runs on those alone.  Three reads of the sample and no swaps, where
 * selection on the whole sample partitions it two or three times. */
enum { WD = 16, WR = 1 << WD, WMAX = 16 };

void gs_order_wquantiles(double *v, float *w, size_t n, const double *need,
                         int nneed, double *out)
{
    if (n < 4 * (size_t)WR || nneed > WMAX) {
        wselect(v, w, n, 0, need, nneed, out);
        return;
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = bits(&v[i]);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    int sh = 0;
    while (sh < 64 - WD && (lo ^ hi) >> (sh + WD) != 0)
        sh++;
    double *hw = calloc(WR, sizeof *hw);
    size_t *hn = calloc(WR, sizeof *hn);
    int16_t *slot = malloc(WR * sizeof *slot);
    double *gv[WMAX] = { 0 };
    float *gw[WMAX] = { 0 };
    size_t gn[WMAX] = { 0 };
    int ok = hw && hn && slot;
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            size_t d = (bits(&v[i]) >> sh) & (WR - 1);
            hw[d] += w[i];
            hn[d]++;
        }
        for (size_t d = 0; d < WR; d++)
            slot[d] = -1;
    }
    /* each target's digit, the weight below it, and its share of need */
    size_t dk[WMAX];
    double below[WMAX];
    int nslots = 0;
    for (int k = 0; ok && k < nneed; k++) {
        double acc = 0;
        size_t d = 0, last = 0;
        for (; d < WR; d++) {
            if (hn[d] == 0)
                continue;
            last = d;
            if (acc + hw[d] >= need[k])
                break;
            acc += hw[d];
        }
        if (d == WR) {              /* beyond the total: the top digit */
            d = last;
            acc -= hw[d];
        }
        dk[k] = d;
        below[k] = acc;
        if (slot[d] < 0) {
            slot[d] = (int16_t)nslots;
            gv[nslots] = malloc(hn[d] * sizeof *gv[0]);
            gw[nslots] = malloc(hn[d] * sizeof *gw[0]);
            ok = gv[nslots] && gw[nslots];
            nslots++;
        }
    }
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            int g = slot[(bits(&v[i]) >> sh) & (WR - 1)];
            if (g >= 0) {
                gv[g][gn[g]] = v[i];
                gw[g][gn[g]++] = w[i];
            }
        }
        for (int k = 0; k < nneed; k++) {
            int g = slot[dk[k]];
            wselect(gv[g], gw[g], gn[g], below[k], &need[k], 1, &out[k]);
        }
    }
    for (int g = 0; g < nslots; g++) {
        free(gv[g]);
        free(gw[g]);
    }
    free(hw);
    free(hn);
    free(slot);
    if (!ok)                        /* no memory for the shortcut */
        wselect(v, w, n, 0, need, nneed, out);
}
