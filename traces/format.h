/* format.h -- the trace formats a scenario's workload can name: the
 * interface a job-trace reader implements, and their registry.
 *
 * A format is a const struct of hooks (open, next, close) listed once in
 * gs_trace_formats[] (formats.c) and chosen by the scenario's
 * workload.trace.format.  A reader yields job specs in nondecreasing
 * arrival order, one at a time, so a long trace is never held in memory
 * whole; the workload source (setup/source.h) wraps it with the generator
 * behind one interface.  Node lists (nodelist.h), queue lists
 * (queuelist.h) and request traces (llmreq.h) have registries of their
 * own. */
#ifndef GS_TRACE_FORMAT_H
#define GS_TRACE_FORMAT_H

#include "../sim/base/err.h"
#include "../sim/base/params.h"
#include "../sim/core/job.h"

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

/* NULL-terminated; names are unique. */
extern const struct gs_trace_format *const gs_trace_formats[];
const struct gs_trace_format *gs_trace_format_find(const char *name);
/* The same, or GS_ENOTFOUND with d saying so at where ("did you mean", or
 * the known names); the scenario parser and gs_source_open use it. */
int gs_trace_format_lookup(const char *fmt, const char *where,
                           const struct gs_trace_format **out,
                           struct gs_diag *d);

#endif
