/* order.h -- exact order statistics of large samples: a radix sort of non-negative doubles and weighted selection.
 *
 * The services' results (sim/inference/service.c) take percentiles and means of a
 * million request latencies and of several million token-weighted
 * iteration durations at the end of a run.  Both functions here give
 * exactly what a full comparison sort would give -- the same sorted array,
 * the same selected value -- in less time and without extra memory beyond
 * what the caller passes.  Values must be >= 0 and not NaN (their IEEE-754
 * bit patterns then order as the values do). */
#ifndef GS_ORDER_H
#define GS_ORDER_H

#include <stddef.h>

/* Sort v[0..n-1] ascending in place; tmp is scratch room for n doubles
 * (the caller's, so that one buffer serves several sorts).  A radix sort:
 * a large sample split by its top 16 varying bits, each bucket then
 * sorted in cache from its lowest varying bits (order.c); equal values
 * have equal bits, so the result equals any correct sort's.  Returns 0,
 * or GS_ENOMEM for its counters (at most 528 KiB). */
int gs_order_sort(double *v, double *tmp, size_t n);

/* Token-weighted quantiles: for each need[k] (ascending, in units of
 * weight) the smallest value x of v[0..n-1] whose weight at or below x,
 * sum of w[i] over v[i] <= x, reaches need[k]; the largest value when none
 * does.  Weights are >= 0 and whole numbers (their sums then exact in a
 * double, so no order of summation changes a result).  Permutes v and w
 * together (in place, a three-way quickselect: expected O(n) for all
 * quantiles together); out[k] gets the answers, 0 each when n is 0. */
void gs_order_wquantiles(double *v, float *w, size_t n, const double *need,
                         int nneed, double *out);

#endif
