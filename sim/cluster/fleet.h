/* fleet.h -- pools of GPU nodes, what is free on them, and how to find room.
 *
 * A fleet is a list of pools; a pool is nnodes nodes of one GPU model with
 * gpn GPUs each (an instance type with an hourly price per node).  Each GPU
 * has a free capacity in thousandths ("milli", 1000 = the whole GPU) and free
 * memory, so whole-GPU jobs and fractional jobs share one representation.
 *
 * An allocation is a pool plus parts; a part is one node, a mask of its GPUs
 * and the milli taken on each of them (1000 for whole GPUs).  A gang job
 * larger than a node takes whole nodes plus one part for the remainder.
 *
 * Finding room must not cost O(nodes): each pool keeps a segment tree over
 * its nodes whose every entry summarizes its range by
 *   fmask: bit v set if some up node in the range has exactly v fully free
 *          GPUs (v <= 63, so nodes have at most 63 GPUs);
 *   milli: the largest free milli of any one GPU on an up node;
 *   pmask: bit b set if some GPU is partly free with b = free*64/1000.
 * First-fit is a leftmost descent, best-fit a range OR to pick the tightest
 * value and then a descent, both O(log nodes) per query.  Down nodes (failed,
 * being provisioned, drained) summarize as empty and are never chosen.
 *
 * Two finer states serve the cloud models (cloud.h): a cordoned node is up
 * -- its jobs run on, its GPUs count as available -- but takes no new work
 * (it summarizes as empty); a dead GPU (failed in place) has no capacity at
 * all and does not count as available.
 *
 * Sharing (sharecfg.h, docs/sharing.md).  A pool's sharing mode decides
 * what a job's need means there -- its demand (gs_fleet_demand): whole
 * GPUs; a fraction of one GPU (plain fractions, a fractional pool's
 * guaranteed share, or one time-slicing replica of 1000/replicas milli with
 * no memory held, as there is no memory isolation); or one MIG instance,
 * kept by the pool's slot index (migslots.h), whose part records the
 * instance.  Every mode keeps the per-GPU free milli and MiB and the
 * segment tree exact, so whole-GPU, gang and fraction search are shared.
 *
 * Host resources.  Each node also has CPU (milli-cores) and host memory
 * (MiB) from its pool (gs_pool_host); a job's need names what it asks of
 * them, and a placement fits only when every part's node has room for the
 * part's share (gs_fleet_can_commit, checked by the core for every placer).
 * The GPU index does not see them: a search whose answer lacks CPU or
 * memory goes on node by node (gs_fleet_find), which costs O(nodes) only
 * when host resources, not GPUs, are what is short.
 *
 * A pool may have no GPUs (gpn 0: CPU-only nodes); only jobs that ask no
 * GPU run there (gs_need_host_only), and they may also run on GPU nodes.
 * Each pool keeps two more max trees over its nodes, of free CPU and free
 * memory, so finding a node for a CPU-only job is a descent that prunes
 * every range without room for either; they are built by the first such
 * search and kept from then on, so a run without CPU-only jobs never pays
 * for them.
 *
 * The trees are brought up to date when they are read, not when a node
 * changes: a change marks its node stale (and keeps the root's fully-free
 * mask, fmask[1], exact from a count of open nodes by fully free GPUs, so
 * a policy may read that one entry at any time); every search first
 * recomputes the stale leaves and their paths, each field climbing
 * towards the root only while its value changes.  A run whose placer
 * never searches the trees (the node classes of frag.h serve best-fit)
 * pays a mark per change; one that searches on every start pays what
 * keeping them current would, once per node however often it changed.
 *
 * Watchers (gs_fleet_watch) are told of every node whose state changed --
 * after each part of a commit or release, and when a node goes up or down
 * -- which is how the fragmentation measure and the placers' node classes
 * (frag.h) stay current without scanning the fleet. */
#ifndef GS_FLEET_H
#define GS_FLEET_H

#include "gpu.h"
#include "sharecfg.h"
#include "../base/bits.h"

#include <stddef.h>
#include <stdint.h>

#define GS_MAX_GPN 63
/* A node whose free CPU or memory is below these has exhausted it: its free
 * GPUs count as stranded (1 core, 1 GiB -- less than any GPU job asks). */
#define GS_STRAND_CPU 1000
#define GS_STRAND_MIB 1024
#define GS_NAME 64

enum gs_market { GS_MKT_ONDEMAND, GS_MKT_RESERVED, GS_MKT_SPOT, GS_MKT_BLOCK,
                 GS_NMARKETS };

struct gs_pool_spec {
    char name[GS_NAME];
    char instance[GS_NAME];     /* instance type, informative */
    int model;                  /* catalog index */
    int nodes, gpn;
    double price_hour;          /* per node-hour */
    int market;
    struct gs_share_cfg share;  /* how its GPUs are shared (mode 0: none) */
    int32_t cpu_milli;          /* CPU of one node, milli-cores (0: the
                                   model's default, gs_pool_host) */
    int32_t mem_mib;            /* host memory of one node, MiB (0: default) */
    double net_gbps;            /* network of one node, Gbit/s (0: the
                                   default, gs_pool_net) */
    double power_cap_w;         /* GPU power limit set below the board's,
                                   W (0: none; power.h says what it slows) */
    int region;                 /* its energy region (energycfg.h), 0 the
                                   default */
    uint64_t taints;            /* its nodes' taints, bits of the catalog's
                                   taints (taint.h): a job must tolerate
                                   each; 0 = none */
    double host_idle_w, host_busy_w;    /* a node's host power, W, where
                                   host_given says so (1 idle, 2 busy, 4
                                   idle from $.energy.host_idle_share;
                                   else power.h's default for its GPU) */
    int host_given;
};

struct gs_migslots;
struct gs_fleet;
struct gs_need;

/* A watcher: fn(arg, f, node, need, sign) runs after node's state changed:
 * sign +1 a commit of need's part on it, -1 a release, 0 the node went up
 * or down (need NULL). */
#define GS_FLEET_WATCHERS 4
typedef void gs_fleet_watch_fn(void *arg, const struct gs_fleet *f, int node,
                               const struct gs_need *need, int sign);

struct gs_pool {
    struct gs_pool_spec s;
    int node0;                  /* global index of the pool's first node */
    int tsize;                  /* leaves in the segment tree (power of 2) */
    uint64_t *fmask, *pmask;    /* 2*tsize entries, 1-indexed */
    int16_t *milli;
    int64_t gpus_up;            /* GPUs on up nodes */
    int64_t used_milli;         /* milli allocated on this pool */
    int32_t gpu_mib;            /* memory of one GPU, MiB */
    double gpu_gb;              /* memory of one GPU, GB (the catalog's) */
    uint64_t model_bit;         /* 1 << the catalog index (0 without GPUs) */
    int32_t host_cpu, host_mem; /* CPU and host memory of one node
                                   (gs_pool_host) */
    struct gs_migslots *mig;    /* MIG pools: the instances (owned) */
    int unit;                   /* time-slicing: milli per replica */
    int16_t *rmax;              /* fractional pools: the max free milli of a
                                   node counting lent capacity as free
                                   (2*tsize, like milli) */
    int32_t *hcpu, *hmem;       /* the most free CPU (milli-cores) and host
                                   memory (MiB) of an open node in each
                                   range, -1 when none is open (2*tsize):
                                   how jobs without GPUs find a node */
    int hidx;                   /* hcpu and hmem are kept (built by the
                                   first search for a job without GPUs;
                                   stale and unread before) */
    int *dirty, ndirty;         /* nodes whose leaves and paths wait for
                                   the next search (gs_fleet_index_sync) */
    int32_t ncount[GS_MAX_GPN + 1];   /* open nodes by fully free GPUs:
                                   what keeps fmask[1] exact */
    int64_t host_over;          /* parts held here that ask more CPU or host
                                   memory than their whole GPUs' share of a
                                   node (gs_fleet_host_follows) */
};

struct gs_node {
    int pool;
    int up;
    int nfull;                  /* fully free GPUs */
    int8_t fval;                /* nfull as the pool's ncount has it, -1
                                   when not counted (not open) */
    int8_t stale;               /* in its pool's dirty list */
    uint64_t fullmask;          /* which GPUs are fully free */
    int gpu0;                   /* index of its first GPU in fleet arrays */
    int njobs;                  /* jobs with a part on this node */
    int cordon;                 /* up but closed to new work */
    uint64_t deadmask;          /* GPUs failed in place */
};

struct gs_fleet {
    const struct gs_catalog *cat;
    int npools, nnodes, ngpus;
    struct gs_pool *pools;
    struct gs_node *nodes;
    int16_t *free_milli;        /* per GPU */
    int32_t *free_mib;          /* per GPU, MiB (integers: no drift) */
    int16_t *lent;              /* per GPU: milli lent to bursting jobs
                                   (fractional pools, core/share.c); searches
                                   count it as taken, then as free only to
                                   reclaim it */
    int64_t used_milli;         /* over the fleet */
    int32_t *cpu_free;          /* per node: milli-cores not requested */
    int32_t *mem_free;          /* per node: host MiB not requested */
    int64_t cpu_cap, mem_cap;   /* over all nodes (up or not) */
    int64_t cpu_used, mem_used; /* requested by running jobs */
    int64_t stranded_milli;     /* free GPU milli on up nodes whose free CPU
                                   is below GS_STRAND_CPU or free memory
                                   below GS_STRAND_MIB: GPUs no job can use */
    int64_t gpus_up;
    int nwatch;
    gs_fleet_watch_fn *watch_fn[GS_FLEET_WATCHERS];
    void *watch_arg[GS_FLEET_WATCHERS];
};

struct gs_part {
    int node;                   /* global node index */
    int milli;                  /* per GPU in mask: 1000 whole, else fraction */
    uint64_t mask;
    int16_t inst;               /* MIG: instance index + 1 (0: no instance) */
    int8_t reconf;              /* MIG: the GPU is first reconfigured */
};

struct gs_alloc {
    int pool;                   /* -1 when empty */
    int n;
    struct gs_part one;
    struct gs_part *many;       /* used when n > 1 (owned) */
};

static inline struct gs_part *gs_alloc_parts(struct gs_alloc *a)
{
    return a->n > 1 ? a->many : &a->one;
}
void gs_alloc_reset(struct gs_alloc *a);    /* frees parts, pool = -1 */
/* The GPU capacity a holds in milli, in its pool's unit -- what commit adds
 * to used_milli: 1000 a whole GPU, the fraction, one time-slicing replica
 * (1000/N), or 125 x a MIG instance's memory slices.  0 when empty. */
int64_t gs_alloc_milli_parts(const struct gs_alloc *a);
static inline int64_t gs_alloc_milli(const struct gs_alloc *a)
{
    if (a->n == 1 && a->pool >= 0)
        return (int64_t)gs_popcount64(a->one.mask) * a->one.milli;
    return gs_alloc_milli_parts(a);
}
/* The part of a on node, or NULL. */
static inline const struct gs_part *gs_alloc_part_on(const struct gs_alloc *a,
                                                     int node)
{
    const struct gs_part *pt = a->n > 1 ? a->many : &a->one;
    for (int i = 0; i < a->n; i++)
        if (pt[i].node == node)
            return &pt[i];
    return NULL;
}

/* What a job asks of the fleet. */
struct gs_need {
    int gpus;                   /* whole GPUs, or 0 */
    int milli;                  /* with gpus == 0: fraction of one GPU */
    double mem_gb;              /* per GPU; 0 = no memory requirement */
    uint64_t allowed;           /* model mask; 0 = any */
    const char *profile;        /* MIG profile asked (borrowed), or NULL */
    int guar, burst;            /* fractional pools: milli, 0 = the request */
    int32_t cpu_milli, mem_mib; /* host CPU and memory of the whole job,
                                   shared among its parts by their GPUs
                                   (gs_part_host); 0 = none */
    double dev_gb;              /* the device must have this much memory,
                                   GiB (a DRA selector): the GPU's model
                                   (folded into allowed at admission) and,
                                   on MIG pools, the instance; 0 = any */
    uint64_t tolerates;         /* the catalog's taints it tolerates
                                   (taint.h); it fits no pool with another */
};

/* What a need means on one pool (its sharing mode). */
enum gs_demand_kind { GS_DEM_WHOLE, GS_DEM_FRAC, GS_DEM_MIG,
                      GS_DEM_HOST };     /* no GPU: CPU and memory only */

/* 1 if need asks for no GPU at all: a CPU-only job, which takes one node's
 * CPU and host memory (an allocation of one part with an empty GPU mask),
 * on any pool -- GPU pools of every sharing mode, and pools without GPUs
 * (gpn 0).  Its GPU model list and memory do not apply. */
static inline int gs_need_host_only(const struct gs_need *n)
{
    return n->gpus <= 0 && n->milli <= 0 && n->profile == NULL;
}

/* 1 if a and b ask the same of the fleet in every field but the MIG
 * profile, whose string each keeper of classes stores its own way. */
static inline int gs_need_same_asks(const struct gs_need *a,
                                    const struct gs_need *b)
{
    return a->gpus == b->gpus && a->milli == b->milli &&
           a->mem_gb == b->mem_gb && a->allowed == b->allowed &&
           a->tolerates == b->tolerates && a->guar == b->guar &&
           a->burst == b->burst && a->cpu_milli == b->cpu_milli &&
           a->mem_mib == b->mem_mib && a->dev_gb == b->dev_gb;
}

struct gs_demand {
    int kind;
    int gpus;                   /* WHOLE: GPUs */
    int milli;                  /* FRAC: milli of one GPU; MIG: 125 x memory
                                   slices of the profile */
    int32_t mib;                /* MiB held per GPU */
    int prof;                   /* MIG: profile index in the pool's table */
    int fit_up;                 /* MIG: a larger fitting instance will do */
};

/* Where a placement may look: a node range of one pool. */
struct gs_range {
    int pool, lo, hi;           /* nodes [lo, hi) of the pool, pool-relative */
};

/* The CPU (milli-cores) and host memory (MiB) of one node of ps: the
 * spec's own, or when 0 the default of a real instance of its GPU model,
 * per GPU: H100/H200 24 vCPU and 256 GiB (p5.48xlarge: 8 GPUs, 192 vCPUs,
 * 2 TiB), A100 and other 80 GB parts 12 vCPU and 144 GiB (p4d/p4de.24xlarge:
 * 96 vCPUs, 1,152 GiB), 32 GB parts 12 vCPU and 96 GiB (p3dn.24xlarge: 8
 * V100-32GB, 96 vCPUs, 768 GiB), smaller GPUs 8 vCPU and 61 GiB
 * (p3.16xlarge: 8 V100, 64 vCPUs, 488 GiB); a pool without GPUs 64 vCPU and
 * 256 GiB. */
void gs_pool_host(const struct gs_catalog *cat, const struct gs_pool_spec *ps,
                  int32_t *cpu_milli, int32_t *mem_mib);

/* The network bandwidth of one node of ps between nodes, Gbit/s: the
 * spec's own, or the instance its GPU model comes in: H100/H200 3,200
 * (p5.48xlarge, EFA), A100 and other 40-80 GB parts 400 (p4d.24xlarge),
 * 32 GB parts 100 (p3dn.24xlarge), smaller GPUs 25 (p3.16xlarge); nodes
 * without GPUs 25 (m7i.16xlarge). */
double gs_pool_net(const struct gs_catalog *cat, const struct gs_pool_spec *ps);

/* Build a fleet from pool specs; the fleet keeps its own copy.  All nodes up.
 * Returns NULL when out of memory. */
struct gs_fleet *gs_fleet_new(const struct gs_catalog *cat,
                              const struct gs_pool_spec *specs, int n);
void gs_fleet_free(struct gs_fleet *f);

/* 1 if a job with need could ever run on pool (model allowed, memory fits
 * one GPU, enough GPUs in the whole pool, the sharing mode takes it, a node
 * has the CPU and host memory for its share), else 0. */
int gs_fleet_pool_eligible(const struct gs_fleet *f, int pool,
                           const struct gs_need *need);
/* Fill out with need's demand on pool: 0, or GS_ENOFIT when the pool's
 * model or sharing mode can never take it (a MIG profile asked of a pool
 * without it, a multi-GPU job on a time-sliced pool, ...). */
int gs_fleet_demand(const struct gs_fleet *f, int pool,
                    const struct gs_need *need, struct gs_demand *out);

/* 1 when a node of pool with need->gpus (>= 1) whole GPUs fully free
 * surely has the CPU and host memory need asks, so the GPUs alone decide
 * where a whole-GPU job fits on one node: need asks no more of the host
 * than its GPUs' share of a node (host_cpu / gpn a GPU, memory alike), and
 * so does every part held on the pool (host_over is 0).  Then on any node
 * the parts hold at most (gpn - nfull) GPUs' share, leaving at least
 * nfull >= need->gpus GPUs' share free.  O(1). */
static inline int gs_fleet_host_follows(const struct gs_pool *p,
                                        const struct gs_need *need)
{
    return p->host_over == 0 && need->gpus >= 1 &&
           (int64_t)need->cpu_milli * p->s.gpn <=
               (int64_t)need->gpus * p->host_cpu &&
           (int64_t)need->mem_mib * p->s.gpn <=
               (int64_t)need->gpus * p->host_mem;
}

/* Bring pool's trees up to date (searches do it themselves): for code
 * that reads the entries directly, other than the always exact fmask[1]. */
void gs_fleet_index_sync(const struct gs_fleet *f, int pool);

/* Search strategies the placers build on: fill out (reset first) with room
 * for need inside r and return 0, or GS_ENOFIT.  If score is not NULL it
 * receives the leftover that best-fit minimizes: free GPUs left on the node
 * for whole-GPU jobs (free GPUs left on the remainder node for gangs), free
 * milli left on the GPU for fractional jobs plus 1000 if a whole GPU had to
 * be broken. */
/* The most fully free GPUs on one open node (up, not cordoned) of r, 0 if
 * none: a whole-GPU job wanting more cannot start on one node there. */
int gs_fleet_most_free(const struct gs_fleet *f, const struct gs_range *r);

/* SPREAD (whole GPUs only): kube-scheduler's LeastAllocated scoring of
 * each GPU of a gang as its own pod -- one at a time to the open node with
 * the most fully free GPUs left (ties: the lowest), so a gang is spread
 * over as many nodes as it can be; O(nodes) per search.  score: the parts.
 * Other needs are searched as FIRST. */
enum gs_fit { GS_FIT_FIRST, GS_FIT_BEST, GS_FIT_SPREAD };
int gs_fleet_find(const struct gs_fleet *f, const struct gs_range *r,
                  const struct gs_need *need, enum gs_fit fit,
                  struct gs_alloc *out, int *score);

/* The CPU and memory part i of a holds on its node: need's, shared among
 * the parts in proportion to their GPUs (the last part takes the rounding
 * remainder). */
void gs_part_host_split(const struct gs_alloc *a, int i,
                        const struct gs_need *need, int32_t *cpu,
                        int32_t *mem);
static inline void gs_part_host(const struct gs_alloc *a, int i,
                                const struct gs_need *need, int32_t *cpu,
                                int32_t *mem)
{
    if (a->n > 1) {
        gs_part_host_split(a, i, need, cpu, mem);
        return;
    }
    *cpu = need->cpu_milli;     /* one part holds it all */
    *mem = need->mem_mib;
}

/* 1 if alloc is free to take for need (the engine's check of a plug-in's
 * decision: every resource fits, as Kubernetes' NodeResourcesFit has it --
 * the GPUs, and the CPU and host memory of each part's node), else 0. */
int gs_fleet_can_commit(const struct gs_fleet *f, const struct gs_alloc *a,
                        const struct gs_need *need);
/* Take or give back what a holds.  Memory taken per GPU: all of it for
 * whole GPUs; for a fraction, need->mem_gb, or the same fraction of the
 * GPU's memory when the job states none. */
void gs_fleet_commit(struct gs_fleet *f, const struct gs_alloc *a,
                     const struct gs_need *need);
void gs_fleet_release(struct gs_fleet *f, const struct gs_alloc *a,
                      const struct gs_need *need);
/* Copy src into dst (dst is reset first).  0 or GS_ENOMEM. */
int gs_alloc_copy(struct gs_alloc *dst, const struct gs_alloc *src);

/* Bring a node up or down (capacity changes).  A node must be empty to go
 * down; callers evict its jobs first. */
void gs_fleet_set_up(struct gs_fleet *f, int node, int up);
/* Close an up node to new work (its jobs run on), or open it again. */
void gs_fleet_set_cordon(struct gs_fleet *f, int node, int on);
/* Take GPU k of node out of service for good (it must be fully free), or
 * put it back (a repaired node).  A dead GPU is neither free nor available. */
void gs_fleet_set_gpu_dead(struct gs_fleet *f, int node, int k, int dead);

/* The sharing model lends lent milli of gpu's free capacity to bursting
 * jobs (fractional pools): the index then counts it as taken. */
void gs_fleet_set_lent(struct gs_fleet *f, int gpu, int lent);

/* Watchers (see gs_fleet_watch_fn above).  0 or GS_ERANGE when there are
 * GS_FLEET_WATCHERS already. */
int gs_fleet_watch(struct gs_fleet *f, gs_fleet_watch_fn *fn, void *arg);
void gs_fleet_unwatch(struct gs_fleet *f, gs_fleet_watch_fn *fn, void *arg);

/* Allocated GPUs as a real count (milli / 1000). */
static inline double gs_fleet_used_gpus(const struct gs_fleet *f)
{
    return (double)f->used_milli / 1000.0;
}

#endif
