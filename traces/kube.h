/* kube.h -- a Kubernetes cluster as a fleet and a workload: `kubectl get
 * nodes -o json` (node-list format "k8s-nodes"), `kubectl get pods -A -o
 * json` snapshots (trace format "k8s-pods"), and Kueue ClusterQueues as
 * tenant quotas.  The mapping rules are in kube.c's opening comment and in
 * docs/import.md. */
#ifndef GS_KUBE_H
#define GS_KUBE_H

#include "../sim/base/err.h"
#include "../sim/cluster/fleet.h"
#include "../sim/cluster/gpu.h"
#include "format.h"

#include <stdint.h>
#include <stdio.h>

/* A Kubernetes quantity ("64", "63500m", "515716Mi", "1.5Gi", "129e6",
 * "2k", ...) in base units (cores, bytes, counts).  0 or -1. */
int gs_kube_quantity(const char *s, double *out);

/* The node list at path (a List of Node, or one Node) as pools.  On
 * success *pools is a new array of *npools specs (the caller frees it),
 * with price 0 and the market the nodes' capacity-type label gives;
 * products the catalog lacks are added to cat (with a warning).  0 or a
 * negative code with d filled ("FILE: items[3] (Node gpu-7):
 * status.allocatable.cpu"). */
int gs_kube_node_list(const char *path, struct gs_catalog *cat,
                      struct gs_pool_spec **pools, int *npools,
                      struct gs_diag *d);

/* The trace format plug-ins "k8s-pods" and "k8s-ksm" (kube-state-metrics
 * through Prometheus; listed in formats.c). */
extern const struct gs_trace_format gs_kube_pods_format;
extern const struct gs_trace_format gs_kube_ksm_format;

/* Kueue ClusterQueues (a List from `kubectl get clusterqueues -o json`) as
 * the scenario's "tenants" array, written to fp: one tenant per
 * ClusterQueue, quota_gpus its nominal quota of nvidia.com/gpu summed over
 * flavors, weight its fairSharing.weight (1 when absent).  0 or a negative
 * code with d filled. */
int gs_kube_kueue_tenants(const char *path, FILE *fp, struct gs_diag *d);
/* The same as tenants: *out a new array of *n (the caller frees it).  0
 * or a negative code with d filled. */
struct gs_tenant;
int gs_kube_kueue_read(const char *path, struct gs_tenant **out, int *n,
                       struct gs_diag *d);

#endif
