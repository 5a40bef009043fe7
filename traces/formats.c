/* formats.c -- the registry of trace formats a scenario can name.
 *
 * Each entry adapts one reader to struct gs_trace_format.  Paths in a
 * scenario are relative to the scenario file's folder. */
#include "../sim/base/path.h"
#include "../sim/base/datapath.h"
#include "../sim/base/suggest.h"
#include "../sim/spec/scenario.h"
#include "format.h"
#include "alibaba.h"
#include "kube.h"
#include "native.h"
#include "nodelist.h"
#include "queuelist.h"
#include "pai.h"
#include "philly.h"
#include "sia.h"
#include "slurm.h"
#include "swf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int native_open(const struct gs_scenario *sc, struct gs_params *opts,
                       void **state, struct gs_diag *d)
{
    const char *path = NULL;
    int rc = gs_params_str(opts, "path", &path, d);
    if (rc < 0)
        return rc;
    if (path == NULL) {
        char *where;
        where = gs_strf("%s", opts->where);
        return gs_diag_set_at(d, GS_EINVAL, where, "missing required key "
                              "'path'");
    }
    char *full = gs_data_path(sc->trace_dir, path);
    if (full == NULL)
        return gs_diag_set(d, GS_ENOMEM, opts->where, "out of memory");
    rc = gs_native_open(full, &sc->cat, (struct gs_native **)state, d);
    free(full);
    return rc;
}

static int native_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    return gs_native_next(st, out, d);
}

static void native_close(void *st)
{
    gs_native_close(st);
}

static const struct gs_trace_format native_format = {
    .name = "native",
    .summary = "gpusim's CSV: id,arrival,gpus,duration[,tenant,tier,...]",
    .open = native_open,
    .next = native_next,
    .close = native_close,
};

const struct gs_trace_format *const gs_trace_formats[] = {
    &native_format,
    &gs_alibaba_format,
    &gs_philly_format,
    &gs_sia_format,
    &gs_swf_format,
    &gs_pai_format,
    &gs_kube_pods_format,
    &gs_kube_ksm_format,
    &gs_slurm_sacct_format,
    NULL,
};

int gs_trace_format_lookup(const char *fmt, const char *where,
                           const struct gs_trace_format **out,
                           struct gs_diag *d)
{
    *out = gs_trace_format_find(fmt);
    if (*out)
        return 0;
    char list[512];
    gs_names_join(list, sizeof list, (const void *const *)gs_trace_formats,
                  offsetof(struct gs_trace_format, name));
    const char *near = gs_trace_format_suggest(fmt);
    if (near)
        return gs_diag_set(d, GS_ENOTFOUND, where, "unknown trace format "
                           "'%s' (did you mean '%s'?)", fmt, near);
    return gs_diag_set(d, GS_ENOTFOUND, where,
                       "unknown trace format '%s' (known: %s)", fmt, list);
}

const char *gs_trace_format_suggest(const char *fmt)
{
    const char *names[64];
    int nn = 0;
    for (int i = 0; gs_trace_formats[i] && nn < 63; i++)
        names[nn++] = gs_trace_formats[i]->name;
    names[nn] = NULL;
    return gs_suggest(fmt, names);
}

const struct gs_trace_format *gs_trace_format_find(const char *name)
{
    for (int i = 0; gs_trace_formats[i]; i++)
        if (strcmp(gs_trace_formats[i]->name, name) == 0)
            return gs_trace_formats[i];
    return NULL;
}

/* Node lists a scenario's fleet can be read from (nodelist.h). */
static const struct gs_node_list_format ali2023_nodes = {
    .name = "alibaba-gpu-2023",
    .summary = "openb_node_list_*.csv: sn,cpu_milli,memory_mib,gpu,model",
    .read = gs_alibaba_node_list,
};

static const struct gs_node_list_format ali2026_nodes = {
    .name = "alibaba-spot-gpu-2026",
    .summary = "node_info_df.csv: gpu_model,gpu_capacity_num,cpu_num,"
               "node_name",
    .read = gs_alibaba_node_list,
};

static const struct gs_node_list_format pai2020_nodes = {
    .name = "alibaba-pai-2020",
    .summary = "pai_machine_spec.csv (no header): machine,gpu_type,cap_cpu,"
               "cap_mem,cap_gpu",
    .read = gs_alibaba_node_list,
};

static int k8s_read(const char *format, const char *path,
                    struct gs_catalog *cat, struct gs_pool_spec **pools,
                    int *npools, struct gs_diag *d)
{
    (void)format;
    return gs_kube_node_list(path, cat, pools, npools, d);
}

static const struct gs_node_list_format k8s_nodes = {
    .name = "k8s-nodes",
    .summary = "kubectl get nodes -o json: allocatable, GPU feature "
               "discovery labels, taints",
    .read = k8s_read,
};

static int slurm_read(const char *format, const char *path,
                      struct gs_catalog *cat, struct gs_pool_spec **pools,
                      int *npools, struct gs_diag *d)
{
    (void)format;
    return gs_slurm_node_list(path, cat, pools, npools, d);
}

static const struct gs_node_list_format slurm_nodes = {
    .name = "slurm-nodes",
    .summary = "scontrol show nodes --oneliner: NodeName, CPUTot, "
               "RealMemory, Gres, Partitions, State",
    .read = slurm_read,
};

const struct gs_node_list_format *const gs_node_list_formats[] = {
    &ali2023_nodes,
    &ali2026_nodes,
    &pai2020_nodes,
    &k8s_nodes,
    &slurm_nodes,
    NULL,
};

int gs_node_list_read(const char *format, const char *path,
                      struct gs_catalog *cat, struct gs_pool_spec **pools,
                      int *npools, struct gs_diag *d)
{
    *pools = NULL;
    *npools = 0;
    for (int i = 0; gs_node_list_formats[i]; i++)
        if (strcmp(gs_node_list_formats[i]->name, format) == 0)
            return gs_node_list_formats[i]->read(format, path, cat, pools,
                                                 npools, d);
    char list[256] = "";
    for (int i = 0; gs_node_list_formats[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, gs_node_list_formats[i]->name,
                sizeof list - strlen(list) - 1);
    }
    return gs_diag_set(d, GS_ENOTFOUND, path, "unknown node-list format '%s' "
                       "(known: %s)", format, list);
}

static const struct gs_queue_list_format kueue_queues = {
    .name = "kueue",
    .summary = "kubectl get clusterqueues -o json: nominal GPU quota and "
               "fair-sharing weight per ClusterQueue",
    .read = gs_kube_kueue_read,
};

const struct gs_queue_list_format *const gs_queue_list_formats[] = {
    &kueue_queues,
    NULL,
};

int gs_queue_list_read(const char *format, const char *path,
                       struct gs_tenant **out, int *n, struct gs_diag *d)
{
    *out = NULL;
    *n = 0;
    for (int i = 0; gs_queue_list_formats[i]; i++)
        if (strcmp(gs_queue_list_formats[i]->name, format) == 0)
            return gs_queue_list_formats[i]->read(path, out, n, d);
    char list[256] = "";
    for (int i = 0; gs_queue_list_formats[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, gs_queue_list_formats[i]->name,
                sizeof list - strlen(list) - 1);
    }
    return gs_diag_set(d, GS_ENOTFOUND, path, "unknown queue-list format '%s' "
                       "(known: %s)", format, list);
}
