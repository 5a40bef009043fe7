/* mig.h -- Multi-Instance GPU profile tables and the rules a MIG layout must obey.
 *
 * The model.  A MIG-capable GPU is cut into 8 memory slices (each 1/8 of the
 * memory capacity and bandwidth) and 7 compute (SM) slices (each 1/7 of the
 * SMs usable in MIG mode).  A GPU instance is created from a *profile* such as
 * "3g.40gb": it takes `compute_slices` of the 7 compute slices and a contiguous
 * run of `mem_slices` memory slices [start, start + mem_slices), where start
 * must be one of the profile's allowed placements (`start_mask`, bit i set =
 * may start at memory slice i).  This is the NVML notion of a placement
 * (nvmlGpuInstancePlacement_t: start = index of the first occupied memory
 * slice, size = number of memory slices occupied), and the starts are those
 * `nvidia-smi mig -lgipp` prints.
 *
 * A layout (struct gs_mig_layout) is a list of at most 7 instances.  It is
 * valid iff
 *   1. every instance's profile belongs to the layout's GPU and its start is
 *      one of the profile's allowed starts;
 *   2. no two instances' memory-slice ranges overlap;
 *   3. the instances use at most 7 compute slices in total (there are 8
 *      memory slices but only 7 compute slices: 3g profiles take 4 memory
 *      slices for 3 compute slices, and a 1g profile can never start at
 *      memory slice 7);
 *   4. no profile is used more often than its max_count (so at most one
 *      "+me" media-extension instance, at most one 4g, ...).
 * Consequences the tests pin down: 7g excludes everything else; two 4g never
 * fit (one start, max count 1); 4g and 3g cannot both start at slice 0 but
 * 4g@0 + 3g@4 is valid (the MIG User Guide notes it was refused only by
 * drivers before R510).
 *
 * Sources: NVIDIA Multi-Instance GPU User Guide (docs.nvidia.com/datacenter/
 * tesla/mig-user-guide, v580), "Supported MIG Profiles" Tables 6-8 (GPU
 * Instance Profiles on A100 / H100 / H200), "Concepts: Partitioning" Figures 7
 * and 8 (MIG Profiles on A100, Profile Placements on A100) and "Getting
 * Started: List GPU Instance Profiles" (the -lgipp placements).  sim/cluster/mig.c
 * gives the details, the guide's ambiguities and how each was resolved.
 *
 * Ownership: the GPU and profile tables are static and live for the whole
 * program; every pointer this module returns into them is borrowed, never
 * freed.  A gs_mig_layout is a plain caller-owned value (no heap), so it has
 * no _new/_free pair; gs_mig_layout_init() empties one.
 *
 * Fallible calls return 0 or a negative GS_E* code (sim/base/err.h) and, when given
 * a struct gs_diag, say which layout failed and why:
 *   GS_EINVAL    NULL argument, profile not of this GPU, start not allowed
 *   GS_ENOTFOUND unknown profile or layout name (message lists valid names)
 *   GS_EPARSE    malformed layout spec
 *   GS_ERANGE    count or index out of range
 *   GS_ENOFIT    overlap, too many compute slices, max count exceeded, or no
 *                placement exists for the requested profiles */
#ifndef GS_MIG_H
#define GS_MIG_H

#include "../base/err.h"

#define GS_MIG_MEM_SLICES     8   /* memory slices per GPU */
#define GS_MIG_COMPUTE_SLICES 7   /* compute (SM) slices per GPU */
#define GS_MIG_MAX_INSTANCES  7   /* GPU instances per GPU */

/* One GPU-instance profile, e.g. "1g.10gb" on an H100-80GB. */
struct gs_mig_profile {
    const char *name;       /* short profile name as nvidia-smi prints it, without "MIG " */
    int compute_slices;     /* of GS_MIG_COMPUTE_SLICES */
    int mem_slices;         /* contiguous memory slices occupied (placement size) */
    double mem_gb;          /* memory in GB, as in the profile name */
    int max_count;          /* "Number of Instances Available" in the guide */
    unsigned start_mask;    /* bit i set: may start at memory slice i */
    int media_ext;          /* 1 for the "+me" media-extension profile */
};

/* A MIG-capable GPU model and its profile table. */
struct gs_mig_gpu {
    const char *name;       /* "A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB" */
    double mem_gb;          /* total memory in GB */
    int nprofiles;
    const struct gs_mig_profile *profiles;
};

/* One placed (or, with start == -1, not yet placed) GPU instance. */
struct gs_mig_instance {
    const struct gs_mig_profile *profile;  /* borrowed from the GPU's table */
    int start;                             /* first memory slice, or -1 */
};

/* A set of GPU instances on one GPU.  Caller-owned; inst[0..n) are used. */
struct gs_mig_layout {
    const struct gs_mig_gpu *gpu;
    int n;
    struct gs_mig_instance inst[GS_MIG_MAX_INSTANCES];
};

/* Flags for gs_mig_enumerate_valid(). */
#define GS_MIG_ENUM_MAXIMAL 0x1u  /* only layouts to which no instance can be added */
#define GS_MIG_ENUM_NO_ME   0x2u  /* ignore the "+me" profiles entirely */

/* ---- tables ---------------------------------------------------------- */

/* The GPU named exactly gpu_name, or NULL when it has no MIG support in
 * this table (e.g. "V100-32GB", "T4") or gpu_name is NULL. */
const struct gs_mig_gpu *gs_mig_gpu_find(const char *gpu_name);

/* The i-th MIG GPU of the table, or NULL when i is out of range; lets
 * callers list the supported GPUs. */
const struct gs_mig_gpu *gs_mig_gpu_at(int i);

/* g's profile called profile_name ("3g.40gb"; the guide's full name
 * "MIG 3g.40gb" is accepted too), or NULL. */
const struct gs_mig_profile *gs_mig_profile_find(const struct gs_mig_gpu *g,
                                                 const char *profile_name);

/* compute_slices / 7.0: the fraction of the GPU's MIG SMs; 0 for NULL. */
double gs_mig_compute_share(const struct gs_mig_profile *p);

/* The non-"+me" profile with the fewest compute slices (then least memory)
 * that has at least mem_gb of memory and at least compute_fraction * 7
 * compute slices; NULL if none does or an argument is NULL/NaN. */
/* The smallest MIG profile over the known MIG GPUs with need_gb of memory
 * and frac of the compute slices (smallest memory, then fewest slices);
 * *on names its GPU.  NULL if none fits. */
const struct gs_mig_profile *gs_mig_smallest_any(double need_gb, double frac,
                                                 const struct gs_mig_gpu **on);
const struct gs_mig_profile *gs_mig_smallest_fit(const struct gs_mig_gpu *g,
                                                 double mem_gb,
                                                 double compute_fraction);

/* ---- layouts --------------------------------------------------------- */

/* Empty l and bind it to g. */
void gs_mig_layout_init(struct gs_mig_layout *l, const struct gs_mig_gpu *g);

/* 0 if every instance is placed and l obeys rules 1-4 above; otherwise the
 * first broken rule, described in d. */
int gs_mig_layout_check(const struct gs_mig_layout *l, struct gs_diag *d);

/* Choose starts for the instances whose start is -1, keeping the others
 * where they are.  Deterministic backtracking: larger profiles are placed
 * first, each at its lowest free allowed start.  On GS_ENOFIT (no placement
 * exists) the message names the layout, and l is left unchanged. */
int gs_mig_layout_place(struct gs_mig_layout *l, struct gs_diag *d);

/* Parse spec into a placed, checked layout on g.  A spec is either a named
 * layout or items joined by '+' (or ','):
 *   item := [N 'x' | N '*'] PROFILE ['*' N] ['@' START]
 * e.g. "3g.40gb+2g.20gb+1g.10gb+1g.10gb", "7x1g.10gb", "1g.10gb*7",
 * "1g.10gb+me+3g.40gb@4".  Items without '@' are placed by
 * gs_mig_layout_place().  Named layouts (for any GPU of the table):
 *   "full"      one 7g instance (the whole GPU);
 *   "all-1g"    seven of the smallest 1g profile (1 memory slice, no +me);
 *   "all-2g"    three 2g instances;
 *   "all-3g"    two 3g instances;
 *   "halves"    same as "all-3g": two equal halves of the memory, each
 *               with 3 of the 7 compute slices (one compute slice idle);
 *               write "4g.40gb+3g.40gb" for the unequal 4+3 split;
 *   "balanced"  2 x smallest 1g + 1 x 2g + 1 x 3g (mig-parted's
 *               "all-balanced").
 * On failure *out is emptied and d says what went wrong. */
int gs_mig_layout_parse(const struct gs_mig_gpu *g, const char *spec,
                        struct gs_mig_layout *out, struct gs_diag *d);

/* Write l as a spec ("3g.40gb@0+2g.20gb@4+1g.10gb@6"; "@" is omitted for
 * unplaced instances, "" for an empty layout) into buf.  GS_ERANGE if buf
 * is too small (the text is cut but NUL-terminated), GS_EINVAL on NULL. */
int gs_mig_layout_format(const struct gs_mig_layout *l, char *buf, size_t len);

/* Add one instance of p to the valid, fully placed layout l at the lowest
 * free allowed start, for run-time reconfiguration.  *start_out (if not
 * NULL) receives the start.  GS_ENOFIT if it does not fit. */
int gs_mig_add(struct gs_mig_layout *l, const struct gs_mig_profile *p,
               int *start_out);

/* Remove instance `index`, keeping the order of the others.  GS_ERANGE for
 * a bad index. */
int gs_mig_remove(struct gs_mig_layout *l, int index);

/* Compute slices used by l's instances. */
int gs_mig_layout_compute_slices(const struct gs_mig_layout *l);

/* Memory slices occupied by l's placed instances, bit i = slice i. */
unsigned gs_mig_layout_mem_mask(const struct gs_mig_layout *l);

/* Call cb (which may be NULL) once for every distinct non-empty valid
 * layout of g, each given as a set of placed instances ordered by profile
 * table order then start, and return how many there were (or a negative
 * GS_E* code).  flags: GS_MIG_ENUM_MAXIMAL, GS_MIG_ENUM_NO_ME.  The layout
 * passed to cb is only valid during the call. */
int gs_mig_enumerate_valid(const struct gs_mig_gpu *g, unsigned flags,
                           void (*cb)(const struct gs_mig_layout *, void *),
                           void *arg);

#endif
