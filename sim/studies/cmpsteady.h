/* cmpsteady.h -- compare's steady-state section: each policy's
 * steady-state estimates over its seeds (a percentile pooled over the
 * seeds' retained values, sectioning interval; a mean, t over the seeds)
 * and their paired differences from a baseline, Holm-corrected, with a
 * ranking.  cmpsteady.c's essay has the methods and their sources. */
#ifndef GS_CMPSTEADY_H
#define GS_CMPSTEADY_H

#include <stdio.h>

struct gs_scenario;

/* One steady-state comparison: run files [p * nseeds + k] of policy p on
 * seed k (each with its /question analysis), the policies' names. */
struct gs_cmp_steady {
    const struct gs_scenario *sc;
    const char *const *runfiles;
    const char *const *pol;
    int npol, nseeds, baseline;
};

/* Print the section on fp: the estimates table, then (2 policies and 2
 * seeds or more) the paired differences from the baseline with their
 * ranking.  0, or -1 when a run's file cannot be read or out of memory. */
int gs_cmp_steady_print(FILE *fp, const struct gs_cmp_steady *in);

#endif
