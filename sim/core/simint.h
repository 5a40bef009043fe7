/* simint.h -- what the files of the simulation loop share: struct gs_sim
 * itself, and the calls the loop (sim.c) makes to admission (admit.c),
 * which calls nothing back; placement (simplace.c) needs the struct only.
 * Nothing outside sim/core/ includes it; sim.h is the public door, and
 * sim.c's essay states the invariants. */
#ifndef GS_SIMINT_H
#define GS_SIMINT_H

#include "sim.h"
#include "model.h"

#include <stdint.h>

/* Room for the models of a run (the built-in ones and the registered). */
#define GS_MAXMODELS 16
/* Admission's table of job shapes (shape_answers): 64 entries. */
#define GS_SHAPE_BITS 6
/* The largest tenant key a source may give (struct gs_jobspec). */
#define GS_TENANT_KEYS (1 << 16)

struct gs_sim {
    struct gs_look look;        /* first: the policy's work (look.h),
                                   policy_work -- entries the policy read
                                   through look.h and sim.h, placements */
    const struct gs_scenario *sc;
    struct gs_engine eng;
    struct gs_fleet *fleet;
    uint64_t seed;

    const struct gs_policy_ops *pol;
    void *pst;
    struct gs_params pparams;
    const struct gs_placer_ops *plc;
    void *plst;
    struct gs_params lparams;

    const struct gs_sim_env *env;
    void *src;                  /* the workload's state (env->workload) */
    struct gs_jobspec next;
    int have_next;

    struct gs_job *phead, *ptail;
    long npending;
    /* Per block of 2^PBLK records, its last pending job (the list is in
     * record order, so a block's pending jobs are adjacent), and a bit per
     * block that has one: a requeued job finds its place in O(block) rather
     * than by walking the queue from its end. */
    struct gs_job **plast;
    uint64_t *pbits;
    long nblk;
    struct gs_job **run;
    long nrun, caprun;
    struct gs_job *freelist;

    struct gs_jobrec *rec;
    long nrec, caprec;
    /* The host asks' distinct pairs (hostv[0] = none), found by an open
     * addressing table of indices (hh, 0 = empty); the last one found is
     * remembered.  host: every record's pair, once more than
     * GS_JOBREC_HOSTS distinct ones came (NULL until then). */
    struct gs_jobhost *hostv;
    long nhostv, caphostv;
    uint32_t *hh;
    long hhcap;
    uint64_t hlast_key;
    uint32_t hlast;
    long host_pairs;            /* at most this many indexed */
    struct gs_jobhost *host;
    struct gs_jobredo *redo;    /* NULL until a job is requeued */
    struct gs_jobenergy *energy;/* NULL until a model books energy */
    long npreempt;              /* requeues, all jobs */

    char (*tnames)[GS_TENANT_NAME];
    int ntn, captn;
    int *thash;                 /* open addressing, -1 = empty */
    int thcap;
    int *tkey;                  /* a source's tenant key: index + 1, 0 */
    int ntkey;
    struct shape_memo *shapes;  /* 2^GS_SHAPE_BITS (shape_answers) */

    struct gs_range *ranges;    /* scratch: one per pool */
    struct gs_event tick;
    int dirty;
    gs_time t0;                 /* first arrival */
    int have_t0;
    int err;
    struct gs_diag errd;

    gs_sim_status_fn *status;   /* the progress line's hook, or NULL */
    void *status_ctx;
    gs_time bill_until;         /* 0, or the least span */
    gs_time start;              /* the run's start: t0, or a model's first
                                   event when sooner (the span's start) */
    struct gs_metrics m;
    struct gs_summary sum;
    struct gs_frag *frag;       /* fragmentation measure, node classes */
    int offering;               /* in gs_sim_offer: no policy hooks */
    struct simmod {             /* the models in this run (model.h) */
        const struct gs_model_ops *ops;
        void *st;
    } mods[GS_MAXMODELS], veto[GS_MAXMODELS], adv[GS_MAXMODELS],
      jen[GS_MAXMODELS], eager[GS_MAXMODELS], lazy[GS_MAXMODELS];
    int nmods, nveto;           /* veto: those with a pool_ok hook */
    int nadv, njen;             /* adv, jen: those with an advance, a
                                   job_energy hook (called once a wake-up,
                                   once an iteration), in mods' order */
    int neager, nlazy;          /* adv split: advanced at every move, or
                                   left to wait over still moves (the
                                   still hook; still.c) */
    struct gs_event **still;    /* events whose handlers leave the cluster
                                   still (gs_sim_still_event) */
    int nstill, capstill;
    int no_wait;                /* a model said it is not still: every
                                   move is whole */
    int waiting;                /* the lazy models and the metrics wait
                                   at their last cut; the clock is on */
    struct gs_event *firing;    /* the event the loop fires now */
    gs_time last_change;        /* a job last started or stopped */
    gs_time horizon;            /* the run's end so far (gs_sim_run), or
                                   GS_TIME_MAX */
    uint64_t steps;             /* the loop's wake-ups, for the progress
                                   hook */
    int no_move;                /* gs_sim_set_move_clock(s, 0) */
    /* Misses remembered (gs_sim_place anywhere): a need and tier that found
     * no room stays without room until capacity comes back, which the
     * fleet tells (a release, a node up or down, a loan): epoch moves. */
    uint64_t epoch;
    int memo_ok;                /* gs_sim_misses_repeat() */
    struct miss {
        struct gs_need need;
        int tier;
        uint64_t epoch;         /* 0: empty */
        char prof[GS_MIG_PROFILE_NAME];
    } miss[64];
    struct gs_rwatch *rw;       /* watched node ranges (rwatch.c), or NULL */
};

/* May job j use pool p: every model's veto passes. */
static inline int sim_pool_ok(const struct gs_sim *s, int p,
                              const struct gs_job *j)
{
    for (int i = 0; i < s->nveto; i++)
        if (!s->veto[i].ops->pool_ok(s->veto[i].st, p, j))
            return 0;
    return 1;
}

/* The GPUs j holds, booked in its pool's unit -- what the fleet's used
 * capacity counts for it (fleet.h): whole GPUs, a fraction, one
 * time-slicing replica (1/N of a GPU), or a MIG instance's share of the
 * memory slices.  Before it runs: what it asks. */
static inline float sim_alloc_gpus(const struct gs_job *j)
{
    if (gs_need_host_only(&j->need))
        return 0.0f;
    if (j->alloc.pool >= 0 && j->alloc.n > 0)
        return (float)((double)gs_alloc_milli(&j->alloc) / 1000.0);
    if (j->need.gpus > 0)
        return (float)j->need.gpus;
    return (float)j->need.milli / 1000.0f;
}

/* Still moves (still.c): whether ev is a still event; cut the waiting
 * integrals at the clock (a no-op when none wait). */
int gs_sim_is_still(const struct gs_sim *s, const struct gs_event *ev);
void gs_sim_settle(struct gs_sim *s);

/* Record an error of the run (the first one wins); code. */
static inline int gs_sim_fail(struct gs_sim *s, int code,
                              const char *where, const char *what)
{
    if (!s->err) {
        s->err = code;
        gs_diag_set(&s->errd, code, where, "%s", what);
    }
    return code;
}

/* rwatch.c: capacity came back on node at the global epoch (every watch
 * covering it takes it); the watches' free (NULL-safe). */
struct gs_rwatch;
void gs_rwatch_release(struct gs_rwatch *w, int node, uint64_t epoch);
void gs_rwatch_free(struct gs_rwatch *w);

/* admit.c: admit job j (filled from spec sp, not yet queued): its tenant,
 * host asks with the tier's defaults, the models it may use, its record; 0,
 * or a negative code with the run failed (gs_sim_fail) and j freed -- a
 * job no pool may ever take fails the run with the reason. */
int gs_sim_admit(struct gs_sim *s, struct gs_job *j,
                 const struct gs_jobspec *sp);
/* admit.c: may any pool take j (its need and every model's veto). */
int gs_sim_any_pool_fits(const struct gs_sim *s, const struct gs_job *j);
/* admit.c: grow a side array of the records from old to cap entries of
 * each bytes (bigmem.h); 0 or GS_ENOMEM. */
int gs_sim_side_grow(void **p, size_t each, long old, long cap);
/* admit.c: how long 1 ms of j's reference work takes on pool p: its GPU model's
 * time factor at the compute clock the pool's power cap leaves (power.h). */
double gs_sim_pool_factor(const struct gs_sim *s, const struct gs_job *j,
                          int p);
/* admit.c: admission's table of job shapes, 2^GS_SHAPE_BITS entries
 * zeroed (free with free()), or NULL. */
struct shape_memo *gs_sim_shapes_new(void);

#endif
