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
#include "fleet.h"

#include <stdint.h>

#define GS_MIG_PROFILE_NAME 24

enum gs_tier { GS_TIER_INFERENCE, GS_TIER_TRAINING, GS_TIER_INTERACTIVE,
               GS_TIER_DATA, GS_NTIERS };

/* "inference", ... ; -1 for an unknown name. */
int gs_tier_parse(const char *name);
const char *gs_tier_name(int tier);

#define GS_TENANT_NAME 48
#define GS_MAX_PHASES 8

/* The fields a job's start and end read come first (one cache line of a
 * struct gs_job), the tenant's name and the rarely read ones after. */
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
    double mem_gb;          /* GPU memory per GPU; 0 = not stated */
    int32_t cpu_milli;      /* host CPU asked, milli-cores; 0 = not stated */
    int32_t mem_mib;        /* host memory asked, MiB; 0 = not stated */
    int priority;           /* INT32_MIN = the tier's default */
    int preemptible;        /* 0, 1, or -1 = the tier's default */
    uint64_t allowed;       /* GPU model mask, 0 = any */
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
};

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

/* A job's record, 72 bytes: a million jobs keep 72 MB of them.  The 8-byte
 * fields come first, then the 4- and 2-byte ones, and the small codes share
 * one 16-bit word, so nothing is padding.  What few jobs ask for -- host
 * CPU and memory -- lives apart (struct gs_jobhost, gs_sim_records_host),
 * allocated only once some job asks for it.  tests/test_sim.c holds the
 * size to this. */
struct gs_jobrec {
    int64_t id;
    gs_time arrival, start, end;    /* start = first start; -1 if never */
    double work;                    /* reference work, ms */
    double cost;                    /* $ attributed to it (cloud.h) */
    float gpus;                     /* GPUs (fraction for shared jobs) */
    float gpu_hours;                /* allocated GPU-hours consumed */
    float lost_gpu_hours;           /* GPU-time of work lost to restarts */
    int32_t tenant;
    int16_t model;                  /* model it last ran on, -1 if never */
    int16_t preemptions;
    unsigned tier : 3;              /* enum gs_tier */
    unsigned state : 3;             /* enum gs_jstate */
    unsigned kill : 3;              /* enum gs_kill */
    unsigned sla_wait : 1;          /* 1 if violated */
    unsigned sla_deadline : 1;
};

#define GS_JOBREC_BYTES 72

/* Host CPU and memory a job asked for (0 = not stated). */
struct gs_jobhost {
    int32_t cpu_milli, mem_mib;
};

/* Laid out for the finish of a job, the simulator's most frequent event,
 * whose job has often sat unread since it started: what on_finish, the
 * books and the fleet's release read lies in the first four cache lines
 * (the spec's first fields among them), so one miss brings its neighbour
 * rather than seven misses; the spec's rest and the rarely read follow. */
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
    struct gs_job *prev, *next;     /* pending list, arrival order */
    struct gs_jobspec s;
    int prio;                       /* effective priority */
    int preemptible;                /* effective */
    gs_time max_wait;               /* effective SLA wait limit */
    gs_time ckpt;                   /* effective checkpoint interval */
    int npreempt;
    double saved;                   /* work kept by gs_sim_checkpoint() */
    double efactor;                 /* least time factor over the pools it
                                       may use (gs_sim_estimate) */
    void *owner;                    /* the model state that submitted it
                                       (gs_sim_submit), NULL for the
                                       workload's jobs */
};

#endif
