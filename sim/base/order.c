/* order.c -- exact order statistics of large samples (order.h).
 *
 * Sorting.  A non-negative IEEE-754 double orders as its 64-bit pattern
 * does, so a radix sort on those bits (Knuth, TAOCP vol. 3, 5.2.5) sorts
 * the values.  A first read finds the bits that vary at all (those where
 * the OR and the AND of all patterns differ): latencies of a few seconds
 * share their top bits, and floats widened to doubles their low 29.  A
 * large sample is then split once by its top 16 varying bits (one
 * counting read, one scatter into the scratch), and each bucket -- of a
 * million request latencies some 300 buckets of 3,000 values on average
 * and 35,000 at most, within the second cache level -- is
 * sorted back into place by the bits below, least significant 8-bit
 * digit first, a digit that is the same for the whole bucket skipped, and
 * a bucket of 32 or fewer by insertion.  The passes over the whole sample
 * are three (the varying bits, the counts, the scatter), of which one
 * scatters, where a sort by 11-bit digits from the bottom scattered five
 * or six times (16-bit digits from the bottom, tried first, spread
 * a pass's writes over 65536 places; from the top they meet only the
 * buckets the values fill).  A small sample keeps the sort by 11-bit
 * digits from the bottom.  Equal values have equal bits, so the sorted
 * array is exactly what any correct sort gives, and a mean taken over it
 * (as sim/inference/svcsum.c does) keeps its order of summation.
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
/* The large sort's top digit (bits) and the sample it starts at. */
enum { TOP = 16, MSD_MIN = 1 << 14 };

static uint64_t bits(const double *p)
{
    uint64_t k;
    memcpy(&k, p, sizeof k);
    return k;
}

/* Counts c[0..n) become each digit's first slot (an exclusive prefix sum). */
static void starts_of(size_t *c, size_t n)
{
    size_t sum = 0;
    for (size_t d = 0; d < n; d++) {
        size_t x = c[d];
        c[d] = sum;
        sum += x;
    }
}

/* LSD radix sort of v[0..n) on 11-bit digits, tmp scratch (a small
 * sample's whole sort). */
static int lsd_sort(double *v, double *tmp, size_t n)
{
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
        starts_of(c, RADIX);
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

/* One bucket of the top digit: a[0..n) (all alike above bit top) sorted
 * into out[0..n) on bits lo .. top - 1, by 8-bit digits from the lowest,
 * out and a taking turns as the scratch; cnt has room for the counts. */
static void bucket_sort(double *a, double *out, size_t n, int lo, int top,
                        size_t *cnt)
{
    if (n <= 32 || top <= lo) {
        memcpy(out, a, n * sizeof *a);
        for (size_t i = 1; i < n && top > lo; i++) {    /* insertion */
            double x = out[i];
            uint64_t k = bits(&x);
            size_t j = i;
            for (; j > 0 && bits(&out[j - 1]) > k; j--)
                out[j] = out[j - 1];
            out[j] = x;
        }
        return;
    }
    int np = (top - lo + 7) / 8;
    memset(cnt, 0, (size_t)np * 256 * sizeof *cnt);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = bits(&a[i]) >> lo;
        for (int p = 0; p < np; p++)
            cnt[p * 256 + ((k >> (8 * p)) & 255)]++;
    }
    double *src = a, *dst = out;
    uint64_t k0 = bits(&a[0]) >> lo;
    for (int p = 0; p < np; p++) {
        size_t *c = cnt + p * 256;
        int sh = lo + 8 * p;
        if (c[(k0 >> (8 * p)) & 255] == n)
            continue;
        starts_of(c, 256);
        for (size_t i = 0; i < n; i++)
            dst[c[(bits(&src[i]) >> sh) & 255]++] = src[i];
        double *t = src;
        src = dst;
        dst = t;
    }
    if (src != out)
        memcpy(out, src, n * sizeof *out);
}

int gs_order_sort(double *v, double *tmp, size_t n)
{
    if (n < 2)
        return 0;
    /* the bits that vary: those above hi and below lo are every value's */
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = bits(&v[i]);
        any |= k;
        all &= k;
    }
    uint64_t diff = any ^ all;
    if (diff == 0)
        return 0;                   /* all equal: nothing moves */
    if (n < MSD_MIN)
        return lsd_sort(v, tmp, n);
    int hi = 63 - __builtin_clzll(diff), lo = __builtin_ctzll(diff);
    int w = hi - lo + 1 < TOP ? hi - lo + 1 : TOP, s = hi - w + 1;
    size_t nb = (size_t)1 << w;
    size_t *cnt = calloc(nb + 8 * 256, sizeof *cnt);
    if (cnt == NULL)
        return GS_ENOMEM;
    size_t *local = cnt + nb;
    for (size_t i = 0; i < n; i++)
        cnt[(bits(&v[i]) >> s) & (nb - 1)]++;
    starts_of(cnt, nb);
    /* scatter by the top digit: cnt[d] ends at bucket d's end, which is
     * bucket d + 1's start */
    for (size_t i = 0; i < n; i++)
        tmp[cnt[(bits(&v[i]) >> s) & (nb - 1)]++] = v[i];
    size_t start = 0;
    for (size_t d = 0; d < nb; d++) {
        size_t end = cnt[d];
        if (end > start)
            bucket_sort(tmp + start, v + start, end - start, lo, s, local);
        start = end;
    }
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
