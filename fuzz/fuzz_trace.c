/* fuzz_trace.c -- every job trace reader (gs_trace_formats: native CSV,
 * alibaba-gpu-2023, philly-gavel, sia, swf, and the rest; the first byte
 * modulo their count picks one, the next multiple turns on skip_bad_rows), read the way a scenario's workload reads it: opened
 * through gs_source_open, every job pulled and checked for order. */
#include "fuzz.h"
#include "../sim/io/scenario.h"
#include "../sim/io/source.h"
#include "../traces/alibaba.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE || size == 0)
        return 0;
    int nf = 0;
    while (gs_trace_formats[nf])
        nf++;
    int skip = (data[0] / nf) & 1;
    int k = fz_pick(&data, &size, nf);
    const char *fmt = gs_trace_formats[k]->name;
    struct gs_scenario *sc = calloc(1, sizeof *sc);
    if (sc == NULL)
        abort();
    gs_catalog_init(&sc->cat);
    gs_params_init(&sc->trace, "<fuzz>: $.workload.trace");
    gs_params_init(&sc->policy_params, "");
    gs_params_init(&sc->placer_params, "");
    sc->wl_kind = GS_WL_TRACE;
    gs_params_add_str(&sc->trace, "format", fmt);
    gs_params_add_str(&sc->trace, "path", fz_file(data, size));
    if (skip)
        gs_params_add_num(&sc->trace, "skip_bad_rows", 1);
    if (strcmp(fmt, "philly-gavel") == 0)
        gs_params_add_str(&sc->trace, "throughputs",
                          FZ_FIXTURES "/traces/thr.json");
    struct gs_source src;
    struct gs_diag d = { 0 };
    if (gs_source_open(sc, 1, &src, &d) == 0) {
        struct gs_jobspec j;
        for (long n = 0; n < FZ_MAX_ROWS && gs_source_next(&src, &j, &d) == 1;
             n++)
            ;
        gs_source_close(&src);
    }
    gs_params_free(&sc->trace);
    gs_params_free(&sc->policy_params);
    gs_params_free(&sc->placer_params);
    free(sc);
    return 0;
}
