/* fuzz_scenario.c -- the scenario JSON parser and validator, and the
 * workload generator its "generate" spec builds (the first FZ_MAX_ROWS
 * jobs are drawn), on arbitrary bytes; then, of a scenario that parses,
 * its plan section as `gpusim scenario --check` reads it (every value of
 * every choice applied and the scenario parsed again), and the key-path
 * edits of `sweep --set` with its "description" as the key path (set,
 * scaled, cloned), the edited text parsed again. */
#include "fuzz.h"
#include "../sim/io/jsonio.h"
#include "../sim/io/scsection.h"
#include "../sim/setup/builtin.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/source.h"
#include "../sim/studies/planjson.h"
#include "../sim/studies/sweep.h"

/* The three edits of a key path taken from the input, each parsed again
 * as a scenario when it applies. */
static void edits(const struct gs_scenario *sc)
{
    struct gs_json *doc = NULL;
    struct gs_diag d = { 0 };
    if (gs_json_parse(sc->text, "<fuzz>", &doc, &d) == 0) {
        const char *key = gs_json_string(gs_json_get(doc, "description"));
        static char one[] = "1", obj[] = "{\"name\": \"x\"}";
        struct gs_edit e[3] = { { GS_EDIT_SET, NULL, one },
                                { GS_EDIT_SCALE, NULL, one },
                                { GS_EDIT_CLONE, NULL, obj } };
        for (int i = 0; key && i < 3; i++) {
            char *out = NULL;
            struct gs_scenario *sc2 = NULL;
            e[i].path = (char *)key;
            if (gs_json_edit(sc->text, &e[i], 1, &out, "--set", &d) == 0 &&
                gs_reparse(sc, out, &sc2, &d) == 0)
                gs_scenario_free(sc2);
            free(out);
            gs_diag_free(&d);
        }
    }
    gs_json_free(doc);
    gs_diag_free(&d);
}

/* The built-in models, installed as the command line installs them: the
 * plan's targets ask them for their metrics. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (gs_builtin_install() < 0)
        abort();
    return 0;
}

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
        if (gs_plan_section.check(sc, &d) != 0)
            gs_diag_free(&d);
        edits(sc);
        gs_scenario_free(sc);
    }
    free(text);
    gs_diag_free(&d);
    return 0;
}
