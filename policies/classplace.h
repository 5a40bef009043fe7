/* classplace.h -- placement by scoring node classes (frag.h), shared by the
 * fgd, packing, dot-product and random placers.
 *
 * A placer supplies one function: the score of putting a task on a node in
 * a given state -- its GPUs, free CPU and host memory (and affinity tags
 * for clustering) -- (lower is better, INFINITY = it does not fit) and,
 * for a fraction of a GPU, which of the node's GPUs (a rank in the class's
 * sorted vector).  The engine scores every live class of the eligible
 * pools -- each score computed once per (class, need) and cached, since a
 * class's state never changes -- picks the best, and turns the choice into
 * an allocation on the class's first member.  Ties are broken
 * as kube-scheduler's patched simulator in the FGD artifact breaks them
 * (kplace.h): by a node order drawn once per run from the seeded stream
 * "placer.ties" (gs_frag_set_order), the first node of that order winning.
 * Per decision: O(live classes) plus, the first time a class meets a
 * need, the score itself.
 *
 * Pools the classes do not cover (MIG, time-slicing) and gangs larger than
 * a node are placed best-fit (gs_fleet_find), and only when no classed
 * range fits, so the scoring never mixes incomparable scales. */
#ifndef GS_CLASSPLACE_H
#define GS_CLASSPLACE_H

#include "policy.h"
#include "../sim/cluster/frag.h"

#include <gsl/gsl_rng.h>

struct gs_classplace;

/* Score a task of demand dm (its need: need) on a node of class c (pool
 * c->pool): lower is better, INFINITY if it cannot go there.  *pick: for
 * GS_DEM_FRAC, the rank (index into c->milli/c->mib) of the GPU to use. */
typedef double gs_class_score_fn(const struct gs_classplace *cp,
                                 const struct gs_frag *fr,
                                 const struct gs_fclass *c,
                                 const struct gs_demand *dm,
                                 const struct gs_need *need, int *pick);

struct gs_cpneed;
struct gs_cprow;
struct gs_cpdemand;

struct gs_classplace {
    gs_class_score_fn *score;
    double cmax, gmax;          /* the largest classed node's CPU and GPU
                                   milli (the scores' normalization) */
    int nshapes;
    struct gs_cpneed *needs;    /* the needs met so far, interned: a score
                                   is cached per (class, need) */
    int nneeds, capneeds, maxneeds;
    int *nhash;                 /* need ids by key, -1 empty */
    int nhcap;
    struct gs_cpdemand *dms;    /* per need id and pool: its demand */
    int npools;
    struct gs_cprow *rows;      /* per class id: scores per need id */
    int cap;
    gsl_rng *rng;               /* random placement only */
};

/* 0 or GS_ENOMEM; rng_name non-NULL makes a seeded stream for random
 * placement (gs_rng_stream(seed, rng_name)). */
int gs_classplace_init(struct gs_classplace *cp, struct gs_sim *sim,
                       gs_class_score_fn *score, const char *rng_name);
void gs_classplace_free(struct gs_classplace *cp);

/* A class placer's ops in one call each: init (a new engine for score as
 * *state; rng_name as above; 0 or GS_ENOMEM with d set), free, place. */
int gs_classplace_ops_init(struct gs_sim *sim, gs_class_score_fn *score,
                           const char *rng_name, void **state,
                           struct gs_diag *d);
void gs_classplace_ops_free(void *state);
int gs_classplace_ops_place(void *state, struct gs_sim *sim,
                            const struct gs_job *job, const struct gs_range *r,
                            int n, struct gs_alloc *out);

/* The placer's place(): the best-scoring node, or uniformly at random among
 * the nodes that fit when cp->rng is set. */
int gs_classplace_place(struct gs_classplace *cp, struct gs_sim *sim,
                        const struct gs_job *job, const struct gs_range *r,
                        int n, struct gs_alloc *out);

/* Helpers for score functions: the first rank whose GPU takes dm, the
 * smallest such (best fit), and how many GPUs of c are fully free; whether
 * the node's free CPU and memory take need (on one node); the free GPU
 * milli of c in all. */
int gs_classplace_host_fits(const struct gs_fclass *c,
                            const struct gs_need *need);
int64_t gs_classplace_free_milli(const struct gs_fclass *c);
int gs_classplace_fits(const struct gs_fclass *c, const struct gs_demand *dm);
int gs_classplace_tightest(const struct gs_fclass *c,
                           const struct gs_demand *dm);
int gs_classplace_nfull(const struct gs_fclass *c);

/* An allocation for demand dm on node: the GPU of the given rank's state
 * (FRAC; rank -1 = the tightest GPU that fits) or the lowest fully free GPUs
 * (WHOLE).  0 or GS_ENOFIT. */
int gs_classplace_on_node(const struct gs_fleet *f, int node,
                          const struct gs_demand *dm, int rank_milli,
                          int rank_mib, struct gs_alloc *out);

#endif
