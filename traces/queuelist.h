/* queuelist.h -- tenants read from a cluster's queue objects.
 *
 * A scenario's "tenants" array may include {"from_queues": {"format": F,
 * "path": P}}: the queue list is read by the format's reader (registered
 * in formats.c) and becomes tenants with their GPU quotas and weights,
 * which the fair and quota policies use like tenants written out by hand.
 * "kueue" reads Kueue ClusterQueues (`kubectl get clusterqueues -o json`;
 * traces/kube.c). */
#ifndef GS_QUEUELIST_H
#define GS_QUEUELIST_H

#include "../sim/base/err.h"

struct gs_tenant;

struct gs_queue_list_format {
    const char *name;
    const char *summary;
    /* Read path (the contract of gs_queue_list_read below). */
    int (*read)(const char *path, struct gs_tenant **out, int *n,
                struct gs_diag *d);
};

/* NULL-terminated; names are unique. */
extern const struct gs_queue_list_format *const gs_queue_list_formats[];

/* Read the queue list at path in the named format: *out a new array (the
 * caller frees it) of *n tenants.  0 or a negative code with d filled
 * (GS_ENOTFOUND for an unknown format, naming the known ones). */
int gs_queue_list_read(const char *format, const char *path,
                       struct gs_tenant **out, int *n, struct gs_diag *d);

#endif
