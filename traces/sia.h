/* sia.h -- the Sia/Pollux Philly-derived elastic-training workloads
 * (siasosp23/artifacts): name,time,application,num_replicas,batch_size.
 * The duration rule is in sia.c. */
#ifndef GS_SIA_H
#define GS_SIA_H

#include "format.h"

/* The trace format plug-in "sia" (listed in formats.c). */
extern const struct gs_trace_format gs_sia_format;

/* The default GPU-hours of an application's job (see sia.c), or -1 for an
 * application the table does not know. */
double gs_sia_gpu_hours(const char *application);

#endif
