/* fuzz_genspec.c -- the generator spec reader of `gpusim trace gen`
 * (gs_genspec_load: a spec object or a whole scenario), then the generator
 * it builds, drawing up to FZ_MAX_ROWS jobs. */
#include "fuzz.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/source.h"
#include "../traces/alibaba.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE)
        return 0;
    struct gs_scenario *sc = calloc(1, sizeof *sc);
    if (sc == NULL)
        abort();
    gs_catalog_init(&sc->cat);
    gs_params_init(&sc->trace, "--opt");
    gs_params_init(&sc->policy_params, "");
    gs_params_init(&sc->placer_params, "");
    sc->wl_kind = GS_WL_TRACE;
    uint64_t seed = 1;
    struct gs_diag d = { 0 };
    if (gs_genspec_load(fz_file(data, size), &sc->cat, &sc->gen, &seed,
                        &d) == 0) {
        sc->wl_kind = GS_WL_GENERATE;
        struct gs_source src;
        if (gs_source_open(sc, seed, &src, &d) == 0) {
            struct gs_jobspec j;
            for (long n = 0; n < FZ_MAX_ROWS &&
                             gs_source_next(&src, &j, &d) == 1; n++)
                ;
            gs_source_close(&src);
        }
    }
    gs_scenario_free(sc);
    gs_diag_free(&d);
    return 0;
}
