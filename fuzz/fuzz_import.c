/* fuzz_import.c -- the importers of a team's own cluster: the first byte
 * picks one of k8s-pods, slurm-sacct, k8s-ksm (read the way a scenario's workload
 * reads them, every job pulled and checked for order; the selector's
 * second bit turns on skip_bad_rows), k8s-nodes, slurm-nodes (as a fleet's
 * from_node_list), Kueue ClusterQueues (as `gpusim trace kueue`) and
 * Prometheus range queries of DCGM metrics (as `gpusim trace dcgm`). */
#include "fuzz.h"
#include "../traces/dcgm.h"
#include "../traces/kube.h"
#include "../traces/nodelist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE || size == 0)
        return 0;
    int skip = (data[0] / 7) & 1;
    int k = fz_pick(&data, &size, 7);
    const char *path = fz_file(data, size);
    struct gs_diag d = { 0 };
    if (k == 0 || k == 1 || k == 6) {
        fz_read_workload(k == 0 ? "k8s-pods" : k == 1 ? "slurm-sacct"
                                                      : "k8s-ksm",
                         path, skip, NULL, data, size);
    } else if (k == 2 || k == 3) {
        static struct gs_catalog cat;
        gs_catalog_init(&cat);
        struct gs_pool_spec *pools = NULL;
        int np = 0;
        if (gs_node_list_read(k == 2 ? "k8s-nodes" : "slurm-nodes", path,
                              &cat, &pools, &np, &d) == 0)
            free(pools);
        fz_check_line(&d, path, data, size);
    } else if (k == 5) {
        const char *const f[] = { path };
        struct gs_dcgm_opts o = { .idle = 0.05 };
        struct gs_dcgm *m = NULL;
        if (gs_dcgm_load(f, 1, &o, &m, &d) == 0) {
            FILE *fp = fopen("/dev/null", "w");
            if (fp == NULL)
                abort();
            gs_dcgm_print(fp, m);
            fclose(fp);
        }
        gs_dcgm_free(m);
    } else {
        FILE *fp = fopen("/dev/null", "w");
        if (fp == NULL)
            abort();
        gs_kube_kueue_tenants(path, fp, &d);
        fclose(fp);
    }
    gs_diag_free(&d);
    return 0;
}
