/* formats.c -- the registry of trace formats a scenario can name.
 *
 * Each entry adapts one reader to struct gs_trace_format.  Paths in a
 * scenario are relative to the scenario file's folder. */
#include "../sim/scenario.h"
#include "../sim/source.h"
#include "native.h"

#include <stdio.h>

/* Resolve a trace path against the scenario's folder. */
static void resolve(const struct gs_scenario *sc, const char *path, char *out,
                    size_t n)
{
    if (path[0] == '/' || sc->trace_dir[0] == '\0')
        snprintf(out, n, "%s", path);
    else
        snprintf(out, n, "%s/%s", sc->trace_dir, path);
}

static int native_open(const struct gs_scenario *sc, struct gs_params *opts,
                       void **state, struct gs_diag *d)
{
    const char *path = NULL;
    int rc = gs_params_str(opts, "path", &path, d);
    if (rc < 0)
        return rc;
    if (path == NULL) {
        char where[600];
        snprintf(where, sizeof where, "%s", opts->where);
        return gs_diag_set(d, GS_EINVAL, where, "missing required key 'path'");
    }
    char full[1024];
    resolve(sc, path, full, sizeof full);
    return gs_native_open(full, &sc->cat, (struct gs_native **)state, d);
}

static int native_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    return gs_native_next(st, out, d);
}

static void native_close(void *st)
{
    gs_native_close(st);
}

static const struct gs_trace_format native_format = {
    .name = "native",
    .summary = "gpusim's CSV: id,arrival,gpus,duration[,tenant,tier,...]",
    .open = native_open,
    .next = native_next,
    .close = native_close,
};

const struct gs_trace_format *const gs_trace_formats[] = {
    &native_format,
    NULL,
};
