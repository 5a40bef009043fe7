/* fuzz_requests.c -- every LLM request trace reader (azure, mooncake,
 * splitwise, requests; the first byte picks one, its next bit turns on
 * skipping bad rows), loading the whole table. */
#include "fuzz.h"
#include "../traces/llmreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE || size == 0)
        return 0;
    int nf = 0;
    while (gs_request_formats[nf])
        nf++;
    int skip = (data[0] / nf) & 1;
    int k = fz_pick(&data, &size, nf);
    struct gs_reqtable *t = NULL;
    struct gs_diag d = { 0 };
    if (gs_reqtable_load(gs_request_formats[k], fz_file(data, size), skip, &t,
                         &d) == 0)
        gs_reqtable_free(t);
    gs_diag_free(&d);
    return 0;
}
