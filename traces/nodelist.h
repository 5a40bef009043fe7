/* nodelist.h -- fleets read from a trace's node list.
 *
 * A scenario's fleet may include {"from_node_list": {"format": F, "path":
 * P}}: the node list is read by the format's reader (registered in
 * formats.c) and becomes pools, one per (GPU model, GPUs per node, and
 * what else the format tells apart: node pool, zone, market, sharing).  A
 * reader may add custom models to the catalog for GPU names a trace does not
 * disclose. */
#ifndef GS_NODELIST_H
#define GS_NODELIST_H

#include "../sim/base/err.h"
#include "../sim/cluster/fleet.h"
#include "../sim/cluster/gpu.h"

struct gs_node_list_format {
    const char *name;
    const char *summary;
    /* Read path (the contract of gs_node_list_read below). */
    int (*read)(const char *format, const char *path, struct gs_catalog *cat,
                struct gs_pool_spec **pools, int *npools, struct gs_diag *d);
};

/* NULL-terminated; names are unique. */
extern const struct gs_node_list_format *const gs_node_list_formats[];

/* Read the node list at path in the named format.  On success *pools is a
 * new array (the caller frees it) of *npools pool specs with price 0 and
 * market on-demand (or the one the node list states); custom models may have been added to cat.  0 or a
 * negative code with d filled. */
int gs_node_list_read(const char *format, const char *path,
                      struct gs_catalog *cat, struct gs_pool_spec **pools,
                      int *npools, struct gs_diag *d);

#endif
