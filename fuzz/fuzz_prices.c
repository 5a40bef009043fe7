/* fuzz_prices.c -- the time-varying price file reader (a pool's
 * price_file, and the other piecewise-constant series read the same way:
 * gs_pwc_load), read through the trace readers' line reader since the
 * tenth session: a refusal naming a line names one the file has. */
#include "fuzz.h"
#include "../sim/cloud/cloudint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE)
        return 0;
    struct gs_pwc s;
    memset(&s, 0, sizeof s);
    struct gs_diag d = { 0 };
    const char *path = fz_file(data, size);
    if (gs_pwc_load(&s, path, 0, 1e7, &d) == 0)
        gs_pwc_free(&s);
    fz_check_line(&d, path, data, size);
    gs_diag_free(&d);
    return 0;
}
