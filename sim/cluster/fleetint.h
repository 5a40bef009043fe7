/* fleetint.h -- what the files of the fleet share: the calls fleet.c's
 * allocation state and placement index offer the node events of
 * fleetnode.c.  Nothing outside sim/cluster/ includes it; fleet.h is the
 * fleet's public door, and fleet.c's essay states the invariants every
 * call here keeps. */
#ifndef GS_FLEETINT_H
#define GS_FLEETINT_H

#include "fleet.h"

#include <math.h>
#include <stdint.h>

/* GB to MiB, rounded: a GPU's or a need's memory in the fleet's unit. */
static inline int32_t gs_gb_to_mib(double gb)
{
    return (int32_t)llround(gb * 1024.0);
}

/* Node's state changed: keep the placement index's root exact (fleet.c). */
void gs_fleet_leaf_update(struct gs_fleet *f, int node);
/* Tell every watcher that node changed (need NULL and sign 0 unless a job
 * took or gave back room). */
void gs_fleet_notify(const struct gs_fleet *f, int node,
                     const struct gs_need *need, int sign);
/* Free GPU milli of node if its CPU or memory is exhausted, else 0. */
int64_t gs_fleet_node_stranded(const struct gs_fleet *f, int node);

#endif
