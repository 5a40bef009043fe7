/* migslots.h -- the MIG instances of a MIG pool as schedulable slots.
 *
 * The representation (the choice issue 4 asks to document).  A MIG pool's
 * GPUs stay ordinary GPUs of the fleet: per-GPU free milli and free MiB, the
 * node segment tree, whole-GPU and gang search all keep working.  What MIG
 * adds lives here, beside them:
 *   - a small table of layouts per pool: the scenario's layout (id 0), the
 *     single whole-GPU instance ("full"), and for every profile P the
 *     layout a reconfiguration for P installs -- as many P as fit, then the
 *     rest filled largest profile first (gs_migslots_new);
 *   - per GPU one byte naming its layout and one byte of busy instances;
 *   - per profile P two hierarchical bitmaps (bitidx.h) over the pool's
 *     GPUs: GPUs in use with a free P instance, and empty GPUs whose layout
 *     has one.  Finding a free instance is a next-set-bit query, O(log64 n),
 *     and claiming or releasing one touches a few bits.
 * A job on an instance holds, in the fleet, milli = 125 x the instance's
 * memory slices (8 slices = 1000) and that share of the GPU's memory, so a
 * GPU is fully free exactly when none of its instances is busy, and
 * allocated GPU-time counts the memory slices a job holds (a 7 x 1g layout
 * fully busy is 7/8 allocated: one slice is stranded by the geometry).
 *
 * Changing a GPU's layout needs the GPU empty; this module changes it when
 * told (a claim with a target layout, or a whole-GPU claim on a GPU whose
 * layout is not "full") and counts the change per GPU.  When the change
 * takes effect in simulated time is core/share.c's business.
 *
 * Owned by the fleet (fleet.c is the only caller); the layouts borrow the
 * static profile tables of mig.c. */
#ifndef GS_MIGSLOTS_H
#define GS_MIGSLOTS_H

#include "../base/bitidx.h"
#include "mig.h"
#include "sharecfg.h"

#include <stdint.h>

#define GS_MIGSLOTS_MAX_LAYOUTS 16
#define GS_MIGSLOTS_MAX_PROFILES 8

struct gs_migslots {
    const struct gs_mig_gpu *gpu;
    int reconfigure;
    int ngpus, gpn;
    int nprof;                                  /* gpu->nprofiles */
    int nlayouts;
    struct gs_mig_layout layouts[GS_MIGSLOTS_MAX_LAYOUTS];
    uint8_t inst_of[GS_MIGSLOTS_MAX_LAYOUTS][GS_MIGSLOTS_MAX_PROFILES];
                                                /* instances of profile k */
    int full;                                   /* id of the "full" layout */
    int homog[GS_MIGSLOTS_MAX_PROFILES];        /* reconfiguration target */
    uint8_t *lid;                               /* per GPU: layout id */
    uint8_t *busy;                              /* per GPU: busy instances */
    uint8_t *up;                                /* per GPU: open to new work */
    uint8_t *pm_part, *pm_empty;                /* profiles indexed now */
    uint32_t *nreconf;                          /* per GPU: layout changes */
    struct gs_bitidx part[GS_MIGSLOTS_MAX_PROFILES];
    struct gs_bitidx empty[GS_MIGSLOTS_MAX_PROFILES];
    long reconfigs;                             /* layout changes, all GPUs */
    long busy_compute;                          /* compute slices in use */
    long busy_inst;                             /* instances in use */
};

/* The slots of a pool of ngpus GPUs (gpn per node) shared as cfg says (mode
 * mig, cfg->layout placed and valid), all GPUs up and empty.  NULL when out
 * of memory. */
struct gs_migslots *gs_migslots_new(const struct gs_share_cfg *cfg,
                                    int ngpus, int gpn);
void gs_migslots_free(struct gs_migslots *m);

/* Index of profile p in the pool's table, or -1. */
int gs_migslots_profile_index(const struct gs_migslots *m,
                              const struct gs_mig_profile *p);
const struct gs_mig_profile *gs_migslots_profile(const struct gs_migslots *m,
                                                 int k);
/* 1 if layout lid has an instance of profile k. */
static inline int gs_migslots_layout_has(const struct gs_migslots *m, int lid,
                                         int k)
{
    return m->inst_of[lid][k] != 0;
}

/* The next GPU (pool-relative index >= from, < to) with a free instance of
 * profile k: in_use 1 = among GPUs with a busy instance, 0 = among empty
 * GPUs.  -1 if none. */
int gs_migslots_next(const struct gs_migslots *m, int k, int in_use,
                     int from, int to);
/* The lowest free instance of profile k on gpu (its current layout), -1. */
int gs_migslots_free_inst(const struct gs_migslots *m, int gpu, int k);
/* The instance a reconfiguration for profile k hands out first. */
int gs_migslots_target_inst(const struct gs_migslots *m, int k);
/* The profile of instance inst of gpu's current layout (or, with target
 * >= 0, of layout target). */
const struct gs_mig_profile *gs_migslots_inst_profile(
    const struct gs_migslots *m, int gpu, int inst, int target);

/* Take instance inst of gpu; with target >= 0 the (empty) GPU first gets
 * layout target (counted as a reconfiguration if it differs). */
void gs_migslots_claim(struct gs_migslots *m, int gpu, int inst, int target);
void gs_migslots_release(struct gs_migslots *m, int gpu, int inst);
/* A whole-GPU job takes the (empty) GPU: its layout becomes "full" (a
 * reconfiguration if it was not) and the one instance is busy. */
void gs_migslots_claim_whole(struct gs_migslots *m, int gpu);
void gs_migslots_release_whole(struct gs_migslots *m, int gpu);
/* 1 if gpu's current layout is the single whole-GPU instance. */
int gs_migslots_is_full(const struct gs_migslots *m, int gpu);
/* gpu is open to new instances or not (its node up and not cordoned, the
 * GPU not dead); busy instances stay busy either way. */
void gs_migslots_set_open(struct gs_migslots *m, int gpu, int open);

#endif
