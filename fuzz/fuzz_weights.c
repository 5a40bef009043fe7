/* fuzz_weights.c -- the rl-lite weights file reader (gs_weights_load, the
 * JSON `gpusim train` writes and the policy's "weights" parameter reads). */
#include "fuzz.h"
#include "../policies/rllite.h"
#include "../sim/io/jsonio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE)
        return 0;
    double w[GS_RLLITE_NF];
    struct gs_diag d = { 0 };
    gs_weights_load(fz_file(data, size), gs_rllite_features, GS_RLLITE_NF, w,
                    &d);
    gs_diag_free(&d);
    return 0;
}
