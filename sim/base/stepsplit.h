/* stepsplit.h -- a quantity drawn evenly over a span, cut by a series'
 * steps.
 *
 * A series of rows, one a grid point, books what was drawn over [a, b]
 * (seconds) when the span ends, which may be after points already
 * taken: the service's power series (inference/svcseries.c) and the
 * fleet's (cloud/energy.c).  With n rows taken, the last at g s, the next
 * point due at `next` ms and steps of `step` ms, row k's step began at
 * next - (n - k + 1) step.  gs_stepsplit_start gives the fraction past g
 * (the step in progress); gs_stepsplit_next then each earlier row's
 * fraction, from the last row back to row `first`. */
#ifndef GS_STEPSPLIT_H
#define GS_STEPSPLIT_H

#include "simtime.h"

struct gs_stepsplit {
    double a, len, hi;
    gs_time next, step;
    long n, k, first;
};

/* 0 when the whole span lies past g (or is empty): it all goes to the
 * step in progress.  Else 1, and *after is the fraction past g. */
static inline int gs_stepsplit_start(struct gs_stepsplit *it, double a,
                                     double b, double g, gs_time next,
                                     gs_time step, long n, long first,
                                     double *after)
{
    double len = b - a;
    if (!(a < g) || !(len > 0))
        return 0;
    *after = b > g ? (b - g) / len : 0;
    *it = (struct gs_stepsplit){ a, len, b < g ? b : g, next, step, n,
                                 n - 1, first };
    return 1;
}

/* The next row back that the span reaches, *k, and its fraction *f;
 * 0 when none is left. */
static inline int gs_stepsplit_next(struct gs_stepsplit *it, long *k,
                                    double *f)
{
    while (it->k >= it->first && it->hi > it->a) {
        long r = it->k--;
        double lo = (double)(it->next - (it->n - r + 1) * it->step) / 1000.0;
        double x = lo > it->a ? lo : it->a;
        double hi = it->hi;
        it->hi = x;
        if (hi > x) {
            *k = r;
            *f = (hi - x) / it->len;
            return 1;
        }
    }
    return 0;
}

#endif
