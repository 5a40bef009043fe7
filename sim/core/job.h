/* job.h -- a job as the workload describes it, and as the simulator runs it.
 *
 * A source (trace reader or generator) produces struct gs_jobspec values in
 * arrival order.  The simulator turns each into a struct gs_job while it is
 * pending or running, and keeps a compact struct gs_jobrec for every job
 * ever seen, which is what the per-job result table and the metrics read.
 *
 * Work is measured in milliseconds on the job's reference GPU model at full
 * speed.  On another model it takes gs_catalog_time_factor() times as long,
 * and on a share of a GPU (issue: sharing models) longer still; the job's
 * rate (reference-ms of work per wall-ms) captures both, and its finish event
 * moves whenever the rate changes. */
#ifndef GS_JOB_H
#define GS_JOB_H

#include "engine.h"
#include "../cluster/fleet.h"
#include "../spec/tier.h"

#include <stdint.h>


/* "inference", ... ; -1 for an unknown name. */
int gs_tier_parse(const char *name);
const char *gs_tier_name(int tier);

#define GS_MAX_PHASES 8

/* A job as a source hands it out (the simulator keeps a part of it in
 * struct gs_job: struct gs_jobkept). */
struct gs_jobspec {
    int64_t id;
    gs_time arrival;
    double work;            /* ms on ref_model at full speed */
    gs_time deadline;       /* after arrival, 0 = none */
    gs_time estimate;       /* user's runtime estimate, 0 = none */
    double cb;              /* compute-bound share of the work, 0..1 */
    int tier;
    int ref_model;          /* catalog index, -1 = the same on any model */
    int gpus;               /* whole GPUs; 0 with milli > 0 = a fraction */
    int milli;              /* fraction of one GPU in 1/1000 (gpus == 0) */
    char tenant[GS_TENANT_NAME];
    int tenant_key;         /* > 0: a number the source gives this tenant
                               name, the same for each of its jobs (the
                               generator's class and tenant), so that the
                               simulator looks the name up once; 0 = none */
    double mem_gb;          /* GPU memory per GPU; 0 = not stated */
    int32_t cpu_milli;      /* host CPU asked, milli-cores; 0 = not stated */
    int32_t mem_mib;        /* host memory asked, MiB; 0 = not stated */
    int priority;           /* INT32_MIN = the tier's default */
    int preemptible;        /* 0, 1, or -1 = the tier's default */
    uint64_t allowed;       /* GPU model mask, 0 = any */
    uint64_t tolerates;     /* node taints it tolerates: bits of the
                               scenario catalog's taints (taint.h); a pool
                               with another is closed to it; 0 = none */
    gs_time max_wait;       /* SLA wait limit, -1 = the tier's default */
    gs_time ckpt;           /* checkpoint interval in work-ms, 0 = none */
    long line;              /* trace line it came from, 0 if generated */
    /* Utilization profile: alternating busy and idle phases, in work-ms,
     * busy first, repeating until the job ends; 0 phases = always busy.
     * The idle reaper (reaper.h) reads it. */
    int nphases;            /* even, <= GS_MAX_PHASES */
    gs_time phase[GS_MAX_PHASES];
    /* GPU sharing (docs/sharing.md); 0 or "" = not stated. */
    char mig_profile[GS_MIG_PROFILE_NAME];  /* MIG profile asked, "1g.10gb" */
    double duty;            /* time-slicing duty cycle in (0, 1] */
    int guar_milli;         /* fractional pools: guaranteed share */
    int burst_milli;        /* fractional pools: burst limit */
    /* GPUs asked by attribute, as a Kubernetes DRA ResourceClaim's device
     * selectors (docs/sharing.md, "Resources"); 0 or "" = not stated.
     * They narrow `allowed` at admission (gs_jobspec_attr_models). */
    double gpu_mem_min;     /* the device (GPU or MIG instance) has at
                               least this much memory, GiB */
    char gpu_family[GS_GPU_FAMILY_NAME];    /* "H100", "A100|H100", ... */
    /* Topology: the share of its time a gang spends communicating when
     * consolidated, 0..1; -1 = the scenario's default ($.topology) */
    double comm_share;
};

/* The catalog models a job's attributes admit: those whose name is one of
 * the '|'-separated families of family (a family matches a model whose
 * name starts with it, case-insensitively, followed by the end or a
 * character other than a letter or digit -- "H100" matches H100-80GB,
 * "A10" does not match A100-80GB; a leading "NVIDIA " is ignored) and
 * whose memory is at least mem_min GiB.  "" and 0 admit everything. */
uint64_t gs_jobspec_attr_models(const struct gs_catalog *cat,
                                const char *family, double mem_min);
/* 1 if family names at least one catalog model, else 0 (bad names are
 * refused where they are read). */
int gs_gpu_family_known(const struct gs_catalog *cat, const char *family);

void gs_jobspec_init(struct gs_jobspec *s);   /* defaults: "not stated" */

enum gs_jstate { GS_JOB_PENDING, GS_JOB_RUNNING, GS_JOB_DONE, GS_JOB_KILLED,
                 GS_JOB_UNFINISHED };
const char *gs_jstate_name(int state);

/* Why a job was killed (GS_JOB_KILLED), or 0. */
enum gs_kill { GS_KILL_NONE, GS_KILL_UNPLACEABLE, GS_KILL_OOM,
               GS_KILL_RECLAIM, GS_KILL_REAPED, GS_KILL_DENIED,
               GS_KILL_WITHDRAWN,   /* its model took it back (a replica
                                       no longer needed before it ran) */
               GS_NKILL };

/* A job's record, 64 bytes -- one cache line: a million jobs keep 64 MB
 * of them.  The 8-byte fields come first, then the 4-byte ones; the tenant
 * and the model share one word, and the small codes share another with
 * the index of the job's host asks, so nothing is padding.  What a record
 * keeps apart is read through sim.h's accessors:
 *  - the host CPU and memory it asked (gs_sim_record_host): most jobs of a
 *    run ask one of a few pairs (a tier's default per GPU times 1, 2, 4 or
 *    8 GPUs), so a record holds the index of its pair in a table of the
 *    distinct ones (0 = none asked); past 2^21 distinct pairs the run
 *    keeps them in a side array of 8 bytes a job instead;
 *  - the work lost to restarts and the number of preemptions
 *    (gs_sim_record_lost, gs_sim_record_preemptions): a side array that
 *    exists once some job has been requeued.
 * tests/test_sim.c holds the size to this; a run has at most 2^24 tenants
 * and a catalog at most 64 models (gpu.h), which the widths hold. */
struct gs_jobrec {
    int64_t id;
    gs_time arrival, start, end;    /* start = first start; -1 if never */
    double work;                    /* reference work, ms */
    double cost;                    /* $ attributed to it (cloud.h) */
    float gpus;                     /* GPUs (fraction for shared jobs) */
    float gpu_hours;                /* allocated GPU-hours consumed */
    unsigned tenant : 24;           /* index in the run's tenants */
    signed int model : 8;           /* model it last ran on, -1 if never */
    unsigned tier : 3;              /* enum gs_tier */
    unsigned state : 3;             /* enum gs_jstate */
    unsigned kill : 3;              /* enum gs_kill */
    unsigned sla_wait : 1;          /* 1 if violated */
    unsigned sla_deadline : 1;
    unsigned host : 21;             /* its host asks' pair (see above) */
};

#define GS_JOBREC_BYTES 64
#define GS_MAX_TENANTS (1L << 24)   /* a record's tenant field */
#define GS_JOBREC_HOSTS ((1L << 21) - 1)    /* distinct pairs indexed */

/* Host CPU and memory a job asked for (0 = not stated). */
struct gs_jobhost {
    int32_t cpu_milli, mem_mib;
};

/* What only a requeued job has: GPU-time of work lost to restarts (the
 * wall time the lost work took at the speed it ran, times its GPUs), and
 * how many times it was stopped and put back in the queue. */
struct gs_jobredo {
    float lost_gpu_hours;
    int32_t preemptions;
};

/* The energy booked to a job over its runs (sim.h, gs_sim_record_energy):
 * facility kWh (PUE included) and g CO2e.  Floats: one addition a run
 * (6e-8 relative each), 8 bytes a job. */
struct gs_jobenergy {
    float kwh, gco2;
};

/* What a job keeps of its spec while it lives (struct gs_job's s), named
 * as in struct gs_jobspec: what the engine, the models and the policies
 * read.  The rest of a spec stays with the source: the tenant's name (the
 * job's tenant indexes it, gs_sim_tenant_name), the trace line, and what
 * admission turns into the job's need and its effective priority,
 * preemptibility, wait limit and checkpoint interval.  The arrival, work
 * and deadline come first: the finish reads them. */
struct gs_jobkept {
    gs_time arrival;
    double work;            /* ms on ref_model at full speed */
    gs_time deadline;       /* after arrival, 0 = none */
    int tier;
    int ref_model;          /* catalog index, -1 = the same on any model */
    int64_t id;
    gs_time estimate;       /* user's runtime estimate, 0 = none */
    double cb;              /* compute-bound share of the work, 0..1 */
    double duty;            /* time-slicing duty cycle in (0, 1], 0 = none */
    double comm_share;      /* topology; -1 = the scenario's default */
};

/* Laid out for the finish of a job, the simulator's most frequent event,
 * whose job has often sat unread since it started: what on_finish, the
 * books and the fleet's release read lies in the first four cache lines
 * (the kept spec's first fields among them), so one miss brings its
 * neighbour.  The rarely read follow, and last what few jobs have -- a MIG
 * profile's name, a utilization profile's phases -- which admission writes
 * only for a job that has them (phase[i] for i < nphases, the name when
 * there is one): a plain job's struct is six lines written, of seven. */
struct gs_job {
    struct gs_event fin;            /* finish event; first member */
    uint32_t rec;                   /* index of its gs_jobrec */
    int state;
    int tenant;                     /* index in the simulator's tenants */
    int model;                      /* running on, -1 */
    double done;                    /* reference work done, as of mark */
    double extra;                   /* restart overhead added to the work */
    double rate;                    /* reference-ms per ms; 0 while pending */
    gs_time mark;                   /* when done was last brought up to date */
    gs_time started;                /* start of the current run */
    gs_time est_end;                /* estimated end of the current run */
    long rslot;                     /* index in the running array */
    struct gs_hnode pnode;          /* free for the policy's own use */
    long pslot;                     /* free for the policy's own use */
    struct gs_alloc alloc;
    struct gs_need need;
    struct gs_jobkept s;
    struct gs_job *prev, *next;     /* pending list, arrival order */
    int prio;                       /* effective priority */
    int preemptible;                /* effective */
    gs_time max_wait;               /* effective SLA wait limit */
    gs_time ckpt;                   /* effective checkpoint interval */
    int npreempt;
    /* Utilization profile: alternating busy and idle phases, in work-ms,
     * busy first, repeating until the job ends; 0 phases = always busy.
     * The idle reaper (reaper.h) reads it. */
    int nphases;                    /* even, <= GS_MAX_PHASES */
    double saved;                   /* work kept by gs_sim_checkpoint() */
    double efactor;                 /* least time factor over the pools it
                                       may use (gs_sim_estimate) */
    void *owner;                    /* the model state that submitted it
                                       (gs_sim_submit), NULL for the
                                       workload's jobs */
    char mig_profile[GS_MIG_PROFILE_NAME];  /* MIG profile asked, or "" */
    gs_time phase[GS_MAX_PHASES];   /* the first nphases are set */
};

#define GS_JOB_BYTES 448

#endif
