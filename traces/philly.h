/* philly.h -- Microsoft Philly-derived training jobs as published with Gavel
 * (stanford-futuredata/gavel): the .trace files plus
 * simulation_throughputs.json.  The duration rule is in philly.c. */
#ifndef GS_PHILLY_H
#define GS_PHILLY_H

#include "format.h"

/* The trace format plug-in "philly-gavel" (listed in formats.c). */
extern const struct gs_trace_format gs_philly_format;

#endif
