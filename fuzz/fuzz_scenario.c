/* fuzz_scenario.c -- the scenario JSON parser and validator, and the
 * workload generator its "generate" spec builds (the first FZ_MAX_ROWS
 * jobs are drawn), on arbitrary bytes. */
#include "fuzz.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE)
        return 0;
    char *text = fz_text(data, size);
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    /* Relative paths resolve in an empty folder: a trace the scenario names
     * is not found (the trace targets fuzz those readers). */
    if (gs_scenario_parse(text, "<fuzz>", "/nonexistent-gpusim-fuzz", &sc,
                          &d) == 0) {
        if (sc->wl_kind == GS_WL_GENERATE) {
            struct gs_source src;
            if (gs_source_open(sc, sc->seed, &src, &d) == 0) {
                struct gs_jobspec j;
                for (long n = 0; n < FZ_MAX_ROWS &&
                                 gs_source_next(&src, &j, &d) == 1; n++)
                    ;
                gs_source_close(&src);
            }
        }
        gs_scenario_free(sc);
    }
    free(text);
    gs_diag_free(&d);
    return 0;
}
