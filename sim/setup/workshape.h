/* workshape.h -- the workload's distribution of job shapes (workshape.c),
 * which the fragmentation measure weighs (cluster/frag.h, struct
 * gs_shape). */
#ifndef GS_WORKSHAPE_H
#define GS_WORKSHAPE_H

#include "scenario.h"
#include "../cluster/frag.h"

#include <stdint.h>

/* The workload distribution of sc under seed: *shapes is a new array (the
 * caller frees it) of *n shapes, most popular first.  A trace is read once;
 * a trace that cannot be read gives what was read before the problem (the
 * run itself reports it).  Jobs asking CPU or memory and no GPU are
 * CPU-only shapes.  0 or GS_ENOMEM. */
int gs_workload_shapes(const struct gs_scenario *sc, uint64_t seed,
                       struct gs_shape **shapes, int *n);

#endif
