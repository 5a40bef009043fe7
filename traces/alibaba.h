/* alibaba.h -- the Alibaba PAI GPU cluster traces: openb pod lists (jobs)
 * and node lists (fleets).
 *
 * Trace format "alibaba-gpu-2023" reads cluster-trace-gpu-v2023's
 * openb_pod_list_*.csv; the node lists (openb_node_list_*.csv, and the
 * 2026 spot trace's node_info_df.csv) become pools of a fleet.  The mapping
 * rules are in alibaba.c's opening comment and in docs/traces.md. */
#ifndef GS_ALIBABA_H
#define GS_ALIBABA_H

#include "../sim/base/err.h"
#include "../sim/cluster/fleet.h"
#include "../sim/cluster/gpu.h"
#include "format.h"

/* The trace format plug-in (listed in formats.c). */
extern const struct gs_trace_format gs_alibaba_format;

/* Node-list formats: "alibaba-gpu-2023" (sn,cpu_milli,memory_mib,gpu,model)
 * and "alibaba-spot-gpu-2026" (gpu_model,gpu_capacity_num,cpu_num,
 * node_name).  Nodes are grouped into one pool per (GPU model, GPUs per
 * node), named MODEL-xN ("T4-x2"), in order of first appearance; nodes
 * without GPUs are left out.  Trace model names are mapped onto catalog
 * names, the undisclosed models (G1-G3, GPU-series-1/2) are built into the
 * catalog (sim/cluster/gpu.c).  On
 * success *pools is a new array of *npools specs (the caller frees it);
 * their prices are 0 and market on-demand.  0 or a negative code with d
 * filled ("FILE:LINE: field 'gpu'"). */
int gs_alibaba_node_list(const char *format, const char *path,
                         struct gs_catalog *cat, struct gs_pool_spec **pools,
                         int *npools, struct gs_diag *d);

#endif
