/* fuzz_nodelist.c -- every node-list reader a scenario's fleet can use
 * (from_node_list; the first byte picks the format). */
#include "fuzz.h"
#include "../sim/cluster/gpu.h"
#include "../sim/setup/scenario.h"
#include "../traces/nodelist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE || size == 0)
        return 0;
    int nf = 0;
    while (gs_node_list_formats[nf])
        nf++;
    int k = fz_pick(&data, &size, nf);
    static struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec *pools = NULL;
    int np = 0;
    struct gs_diag d = { 0 };
    if (gs_node_list_read(gs_node_list_formats[k]->name, fz_file(data, size),
                          &cat, &pools, &np, &d) == 0)
        free(pools);
    gs_diag_free(&d);
    return 0;
}
