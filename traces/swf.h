/* swf.h -- the Parallel Workloads Archive's Standard Workload Format (SWF),
 * plain or gzip-compressed.  The mapping rule is in swf.c. */
#ifndef GS_SWF_H
#define GS_SWF_H

#include "format.h"

/* The trace format plug-in "swf" (listed in formats.c). */
extern const struct gs_trace_format gs_swf_format;

#endif
