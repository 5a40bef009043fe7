/* placeexp.h -- the placement experiment of the FGD paper, and its CLI.
 *
 * Weng et al., "Beware of Fragmentation" (USENIX ATC'23), section 6: tasks
 * drawn from a trace arrive one after another and never leave; each is
 * placed at once where the placer says, or fails.  Arrivals go on until the
 * requested GPUs reach a share of the cluster's capacity (the "arrived
 * workload", up to 130 % there), and the experiment records how much of the
 * capacity is allocated -- the GPU allocation ratio -- against the arrived
 * workload, per placer and seed.
 *
 * Here: the task population is the scenario's workload (a trace read
 * through the trace-format registry, or a finite generated workload); tasks
 * are drawn uniformly with replacement from its jobs that ask for GPUs, by
 * the GSL stream "place-exp.tasks" seeded with the run's seed (seed k of
 * every placer sees the same task sequence: common random numbers).  Each
 * task goes through gs_sim_offer() on a fresh simulation of the scenario's
 * fleet.  The curves are sampled each time the arrived workload crosses a
 * multiple of step: allocation ratio, fragmentation ratio (frag.h) and the
 * share of arrived GPU requests that failed.
 *
 * gs_place_exp_run is deterministic and reads no clock; the CLI front end
 * gs_place_exp_main prints a table and writes the HDF5 file
 * (gs_h5_write_place_exp).  `gpusim compare` can run the same experiment by
 * calling gs_place_exp_run with its placers and seeds. */
#ifndef GS_PLACEEXP_H
#define GS_PLACEEXP_H

#include "err.h"
#include "scenario.h"

#include <stdint.h>

struct gs_place_exp_opts {
    const char *const *placers;         /* registry names */
    int nplacers;
    int nseeds;                         /* seeds: the scenario's, +1, ... */
    double max_load;                    /* arrived workload to reach, 0..1.3+ */
    double step;                        /* sampling step of the curves */
};

struct gs_place_exp {
    int nplacers, nseeds, npoints;
    char (*placers)[64];                /* [nplacers] */
    uint64_t *seeds;                    /* [nseeds] */
    double *load;                       /* [npoints]: step, 2 step, ... */
    /* [placer][seed][point]: */
    double *alloc;                      /* allocated / capacity */
    double *frag;                       /* fragmentation / capacity */
    double *failed;                     /* failed GPU requests / capacity */
    long *tasks;                        /* [placer][seed]: tasks offered */
    long *classes;                      /* [placer][seed]: node states
                                           (frag.h classes) met */
    double capacity_gpus;
    long population;                    /* jobs asking for GPUs */
};

/* Run the experiment on sc.  0 with *out filled (free with
 * gs_place_exp_free), or a negative code with d filled (unknown placer,
 * unreadable trace, an empty population). */
int gs_place_exp_run(const struct gs_scenario *sc,
                     const struct gs_place_exp_opts *o,
                     struct gs_place_exp *out, struct gs_diag *d);
void gs_place_exp_free(struct gs_place_exp *x);

/* `gpusim place-exp SCENARIO [options]`; returns the exit status. */
int gs_place_exp_main(int argc, char **argv);

#endif
