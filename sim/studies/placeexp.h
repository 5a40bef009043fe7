/* placeexp.h -- the placement experiment of the FGD paper, and its CLI.
 *
 * Weng et al., "Beware of Fragmentation" (USENIX ATC'23), section 6, as its
 * artifact (hkust-adsl/kubernetes-scheduler-simulator) runs it: all pods of
 * a trace, CPU-only and never-scheduled ones included, shuffled per seed
 * and tuned to a target load (up to 130 % of the cluster's GPU capacity);
 * each pod is placed at once on a node with room for its CPU, memory and
 * GPUs, or fails; pods never leave.  The experiment records the GPU
 * allocation ratio against the arrived workload (requested GPUs over
 * capacity) per placer and seed -- the figure at X % being the mean over
 * the decisions whose arrived load rounds to X % -- with the share of
 * requests that failed and the GPUs stranded by exhausted CPU or memory.
 * The placers are the paper's six (kplace.h); placeexp.c says how the
 * population is read and the figure computed.
 *
 * gs_place_exp_run is deterministic and reads no clock; the CLI front end
 * gs_place_exp_main prints a table and writes the HDF5 file
 * (gs_place_exp_write). */
#ifndef GS_PLACEEXP_H
#define GS_PLACEEXP_H

#include "../base/err.h"
#include "../setup/scenario.h"

#include <stdint.h>

struct gs_place_exp_opts {
    const char *const *placers;         /* kplace.h policy names */
    int nplacers;
    int nseeds;                         /* seeds: the scenario's, +1, ... */
    double max_load;                    /* target arrived workload, 0..10 */
    double typical;                     /* FGD's typical pods cover this
                                           share of pods; 0 = 1 (all) */
    int ties;                           /* enum gs_kp_ties (kplace.h):
                                           0, the artifact's order */
};

struct gs_place_exp {
    int nplacers, nseeds, npoints;
    char (*placers)[64];                /* [nplacers] */
    uint64_t *seeds;                    /* [nseeds] */
    double *load;                       /* [npoints]: 0, 0.01, 0.02, ... */
    /* [placer][seed][point]; NAN where no decision was made: */
    double *alloc;                      /* allocated / capacity: the mean
                                           over the point's decisions */
    double *stranded;                   /* stranded GPU milli / capacity */
    double *failed;                     /* failed GPU requests / capacity */
    double *cpu_use;                    /* CPU allocated / CPU capacity */
    long *tasks;                        /* [placer][seed]: pods offered */
    long *classes;                      /* [placer][seed]: node states met */
    double capacity_gpus;
    long population;                    /* pods */
    long population_gpu;                /* pods asking for GPUs */
    int typical;                        /* typical pods (kplace.h) */
};

/* Run the experiment on sc.  0 with *out filled (free with
 * gs_place_exp_free), or a negative code with d filled (unknown placer,
 * unreadable trace, an empty population). */
int gs_place_exp_run(const struct gs_scenario *sc,
                     const struct gs_place_exp_opts *o,
                     struct gs_place_exp *out, struct gs_diag *d);
/* The same, calling done(ctx, ndone, total) after each (placer, seed) run
 * (a progress line); done may be NULL. */
int gs_place_exp_run_cb(const struct gs_scenario *sc,
                        const struct gs_place_exp_opts *o,
                        void (*done)(void *ctx, int ndone, int total),
                        void *ctx, struct gs_place_exp *out,
                        struct gs_diag *d);
void gs_place_exp_free(struct gs_place_exp *x);
/* Write x as the HDF5 file of `gpusim place-exp` (the layout of
 * gs_h5_write_place_exp, h5out.h) for scenario sc.  0, or a negative code
 * with d filled. */
int gs_place_exp_write(const char *path, const struct gs_scenario *sc,
                       const struct gs_place_exp *x, struct gs_diag *d);

/* `gpusim place-exp SCENARIO [options]`; returns the exit status. */
int gs_place_exp_main(int argc, char **argv);

#endif
