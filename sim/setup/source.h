/* source.h -- where a run's jobs come from: a trace reader or the
 * generator.
 *
 * A source yields job specs in nondecreasing arrival order, one at a time,
 * so a long trace is never held in memory whole.  Trace formats are plug-ins
 * (traces/format.h, listed in traces/formats.c) chosen by the
 * scenario's workload.trace.format; the generator (gen.h) is wrapped as a
 * source too. */
#ifndef GS_SOURCE_H
#define GS_SOURCE_H

#include "../base/err.h"
#include "../core/job.h"
#include "../base/params.h"
#include "../../traces/format.h"

#include <stdint.h>

struct gs_scenario;

struct gs_source {
    const struct gs_trace_format *fmt;  /* NULL for the generator */
    void *state;
    gs_time last;                       /* last arrival handed out */
    long count;
};

/* Open the scenario's workload.  0 or a negative code with d filled. */
int gs_source_open(const struct gs_scenario *sc, uint64_t seed,
                   struct gs_source *src, struct gs_diag *d);
/* 1 with *out, 0 at the end, negative on error (d filled).  Checks order. */
int gs_source_next(struct gs_source *src, struct gs_jobspec *out,
                   struct gs_diag *d);
void gs_source_close(struct gs_source *src);

#endif
