/* pai.h -- Alibaba PAI's 2020 GPU cluster trace (alibaba/clusterdata,
 * cluster-trace-gpu-v2020; Weng et al., "MLaaS in the Wild", NSDI'22):
 * pai_task_table rows become jobs, joined with pai_job_table for the
 * submit time and the user.  The mapping rule is in pai.c. */
#ifndef GS_PAI_H
#define GS_PAI_H

#include "format.h"

/* The trace format plug-in "alibaba-pai-2020" (listed in formats.c). */
extern const struct gs_trace_format gs_pai_format;

/* The catalog name of a PAI 2020 gpu_type (V100, V100M32, P100, T4, MISC),
 * or NULL for another name. */
const char *gs_pai_gpu_model(const char *gpu_type);

#endif
