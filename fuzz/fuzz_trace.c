/* fuzz_trace.c -- every job trace reader (gs_trace_formats: native CSV,
 * alibaba-gpu-2023, philly-gavel, sia, swf, and the rest; the first byte
 * modulo their count picks one, the next multiple turns on skip_bad_rows), read the way a scenario's workload reads it: opened
 * through gs_source_open, every job pulled and checked for order; a
 * refusal naming a line names one the file has (fz_check_line). */
#include "fuzz.h"
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
    fz_read_workload(fmt, fz_file(data, size), skip,
                     strcmp(fmt, "philly-gavel") == 0
                         ? FZ_FIXTURES "/traces/thr.json" : NULL, data, size);
    return 0;
}
