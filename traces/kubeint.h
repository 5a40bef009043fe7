/* kubeint.h -- what kube.c (nodes, Kueue, the JSON helpers) and
 * kubepods.c (pods, kube-state-metrics) share; not a public header. */
#ifndef GS_KUBEINT_H
#define GS_KUBEINT_H

#include "cimport.h"
#include "../sim/cluster/fleet.h"
#include "../sim/cluster/gpu.h"
#include "../sim/cluster/sharecfg.h"
#include "../sim/core/job.h"

struct gs_json;

/* Where a message points: "FILE: items[I] (KIND NAME): FIELD". */
struct gs_kctx {
    const char *file;
    char obj[200];
    struct gs_diag *d;
};

/* GS_EPARSE with d: where "FILE: OBJ: FIELD" (FIELD may be NULL). */
int gs_kube_fail(const struct gs_kctx *k, const char *field, const char *fmt,
                 ...) __attribute__((format(printf, 3, 4)));
/* o[key] when o is an object, else NULL; a string member; a label. */
const struct gs_json *gs_kube_get(const struct gs_json *o, const char *key);
const char *gs_kube_str(const struct gs_json *o, const char *key);
const char *gs_kube_label(const struct gs_json *meta, const char *key);
/* A quantity member of a resource list: 0 with *v (0 when absent), or
 * the error naming field.key. */
int gs_kube_qty(const struct gs_kctx *k, const struct gs_json *list,
                const char *field, const char *key, double *v);
/* The items of a List, or the document itself when it is one KIND. */
int gs_kube_items(const struct gs_json *root, const char *file,
                  const char *kind, const struct gs_json **first,
                  struct gs_diag *d);
/* Read and parse a JSON export (bounded: gs_cimp_slurp). */
int gs_kube_load_json(const char *path, struct gs_json **root,
                      struct gs_diag *d);

/* A node as kube.c reads it. */
struct gs_knode {
    char name[GS_NAME];
    char mig[GS_MIG_PROFILE_NAME];  /* MIG single strategy's profile */
    char pool[GS_NAME];         /* node pool / instance type ("" none) */
    char zone[GS_NAME];
    char taint[GS_NAME];         /* the first taint's key ("" none) */
    uint64_t taints;            /* its taints, bits of the catalog's */
    char instance[GS_NAME];
    int market;
    int model, gpn;
    struct gs_share_cfg share;
    int32_t cpu_milli, mem_mib;
};

/* Read the Nodes of path: the kept ones into *out (caller frees), those
 * left out counted in left.  0 or a negative code with d filled. */
int gs_kube_nodes_load(const char *path, struct gs_catalog *cat,
                       struct gs_knode **out, int *nout,
                       struct gs_cimp_left *left, struct gs_diag *d);

#endif
