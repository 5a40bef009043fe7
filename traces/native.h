/* native.h -- gpusim's own CSV trace format: reader (libcsv) and writer.
 *
 * One job a row; a header row names the fields, in any order:
 *   required  id, arrival (s), gpus (0 = CPU-only, 0<g<1 = fraction, else
 *             whole GPUs), duration (s on ref_gpu at full speed)
 *   optional  tenant, tier, memory_gb, ref_gpu, compute_bound, estimate (s),
 *             priority, preemptible (0/1/true/false), allowed_gpus
 *             (model names separated by '|'), max_wait (s), deadline (s),
 *             checkpoint (s), idle_profile (busy and idle phases of its
 *             work, in s, alternating, busy first, repeating:
 *             "600:3600" or up to four pairs "b:i:b:i:b:i:b:i"); for GPU sharing (docs/sharing.md)
 *             mig_profile ("1g.10gb"), duty_cycle (0, 1], gpu_guarantee and
 *             gpu_burst (fractions of a GPU, guarantee <= burst);
 *             cpu_milli (host CPU, milli-cores) and mem_mib (host memory,
 *             MiB) the job asks of its node; GPUs by attribute (Kubernetes
 *             DRA selectors, job.h): gpu_family ("H100", "A100|H100") and
 *             gpu_mem_min_gib (the GPU or MIG instance has at least this);
 *             comm_share (a gang's communication share, [0, 1])
 * An empty optional field means "not stated".  Rows must be sorted by
 * arrival.  Every problem names file:line and the field. */
#ifndef GS_NATIVE_H
#define GS_NATIVE_H

#include "../sim/base/err.h"
#include "../sim/cluster/gpu.h"
#include "../sim/core/job.h"

#include <stdio.h>

struct gs_native;

/* Open path for reading against catalog cat (borrowed; it must outlive the
 * reader).  0 or a negative code with d filled. */
int gs_native_open(const char *path, const struct gs_catalog *cat,
                   struct gs_native **out, struct gs_diag *d);
/* 1 with *out, 0 at the end, or a negative code with d filled. */
int gs_native_next(struct gs_native *r, struct gs_jobspec *out,
                   struct gs_diag *d);
void gs_native_close(struct gs_native *r);

/* Write the header, then one row per job.  Times print with millisecond
 * precision, so what is written reads back identical. */
void gs_native_write_header(FILE *fp);
void gs_native_write_row(FILE *fp, const struct gs_jobspec *j,
                         const struct gs_catalog *cat);

#endif
