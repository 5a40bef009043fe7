/* source.h -- where jobs come from: a trace reader or the generator.
 *
 * A source yields job specs in nondecreasing arrival order, one at a time,
 * so a long trace is never held in memory whole.  Trace formats are plug-ins
 * (struct gs_trace_format, listed in traces/formats.c) chosen by the
 * scenario's workload.trace.format; the generator (gen.h) is wrapped as a
 * source too. */
#ifndef GS_SOURCE_H
#define GS_SOURCE_H

#include "err.h"
#include "job.h"
#include "params.h"

#include <stdint.h>

struct gs_scenario;

struct gs_trace_format {
    const char *name;
    const char *summary;
    /* Open the trace described by opts (path and format options; read them
     * with the gs_params getters so unknown keys are caught). */
    int (*open)(const struct gs_scenario *sc, struct gs_params *opts,
                void **state, struct gs_diag *d);
    /* 1 and *out filled, 0 at the end, or a negative code with d filled
     * (file:line and the field at fault). */
    int (*next)(void *state, struct gs_jobspec *out, struct gs_diag *d);
    void (*close)(void *state);
};

extern const struct gs_trace_format *const gs_trace_formats[];
const struct gs_trace_format *gs_trace_format_find(const char *name);

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
