/* slurm.h -- a Slurm cluster as a workload and a fleet: `sacct
 * --parsable2` (trace format "slurm-sacct") and `scontrol show nodes
 * --oneliner` (node-list format "slurm-nodes").  The mapping rules are in
 * slurm.c's opening comment and in docs/import.md. */
#ifndef GS_SLURM_H
#define GS_SLURM_H

#include "../sim/base/err.h"
#include "../sim/cluster/fleet.h"
#include "../sim/cluster/gpu.h"
#include "format.h"

/* The trace format plug-in "slurm-sacct" (listed in formats.c). */
extern const struct gs_trace_format gs_slurm_sacct_format;

/* The nodes of `scontrol show nodes --oneliner` as pools (one per
 * partitions list, GPU model and GPUs per node).  On success *pools is a
 * new array of *npools specs (the caller frees it), price 0, market
 * on-demand.  0 or a negative code with d filled ("FILE:LINE: field
 * 'Gres'"). */
int gs_slurm_node_list(const char *path, struct gs_catalog *cat,
                       struct gs_pool_spec **pools, int *npools,
                       struct gs_diag *d);

/* A Slurm time limit ("UNLIMITED", "30", "30:00", "2:00:00",
 * "1-00:00:00", "1-12", "1-12:30") in ms; 0 for unlimited or a partition
 * limit.  0 or -1. */
int gs_slurm_timelimit(const char *s, int64_t *ms);

/* The GPUs a TRES string states ("cpu=8,mem=64G,gres/gpu=4,
 * gres/gpu:a100=4"): the untyped gres/gpu total when present, else the
 * typed counts summed -- never both; the first type into type (n bytes,
 * "" none); cpu (count) and mem (MiB) too.  0 or -1 (a malformed
 * entry). */
int gs_slurm_tres(const char *s, long *gpus, char *type, size_t n,
                  long *cpu, long *mem_mib);

#endif
