/* source.c -- open the scenario's workload and hand out jobs in order.
 *
 * Wraps the generator and the trace-format plug-ins (traces/format.h)
 * behind one interface and checks the one promise every source makes:
 * arrivals never go back in time.  A trace format's open() reads its
 * options from the scenario's workload.trace object through the gs_params
 * getters; any key no reader took is reported as unknown.  The token
 * counts of generated inference requests are the service model's
 * (inference/svcgen.h). */
#include "source.h"
#include "../io/gen.h"
#include "../spec/scenario.h"
#include "../../traces/format.h"

#include <string.h>

int gs_source_open(const struct gs_scenario *sc, uint64_t seed,
                   struct gs_source *src, struct gs_diag *d)
{
    memset(src, 0, sizeof *src);
    if (sc->wl_kind == GS_WL_NONE)
        return 0;
    if (sc->wl_kind == GS_WL_GENERATE) {
        src->state = gs_gen_new(&sc->gen, seed);
        return src->state ? 0 : gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    /* The scenario is const; the params' used flags are bookkeeping. */
    struct gs_params *opts = (struct gs_params *)&sc->trace;
    for (int i = 0; i < opts->n; i++)
        opts->v[i].used = 0;
    const char *fmt = "";
    gs_params_str(opts, "format", &fmt, d);
    const struct gs_trace_format *f = NULL;
    char *where = gs_strf("%s.format", opts->where);
    int found = gs_trace_format_lookup(fmt, where, &f, d) == 0;
    free(where);
    if (!found)
        return GS_ENOTFOUND;
    int rc = f->open(sc, opts, &src->state, d);
    if (rc < 0)
        return rc;
    src->fmt = f;
    if ((rc = gs_params_check_used(opts, d)) < 0) {
        gs_source_close(src);
        return rc;
    }
    return 0;
}

int gs_source_next(struct gs_source *src, struct gs_jobspec *out,
                   struct gs_diag *d)
{
    if (src->state == NULL)
        return 0;
    int rc = src->fmt ? src->fmt->next(src->state, out, d)
                      : gs_gen_next(src->state, out);
    if (rc <= 0)
        return rc;
    GS_ASSERT(out->arrival >= src->last || src->count == 0);
    src->last = out->arrival;
    src->count++;
    return 1;
}

void gs_source_close(struct gs_source *src)
{
    if (src->state) {
        if (src->fmt)
            src->fmt->close(src->state);
        else
            gs_gen_free(src->state);
    }
    src->state = NULL;
}
