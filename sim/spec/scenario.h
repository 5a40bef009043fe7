/* scenario.h (spec) -- a scenario as plain data: fleet, tiers, tenants,
 * partitions, policy, workload and every model's configuration.
 *
 * The types alone, below the core: the core runs on them, each model reads
 * its own part (cloudcfg.h, energycfg.h; the services' configuration,
 * inference/svccfg.h, is reached through a pointer the core never follows),
 * and the parser (setup/scenario.h: load, parse, free, schema) fills them.
 * Nothing here runs. */
#ifndef GS_SPEC_SCENARIO_H
#define GS_SPEC_SCENARIO_H

#include "../base/params.h"
#include "../base/simtime.h"
#include "../cluster/fleet.h"
#include "../cluster/gpu.h"
#include "cloudcfg.h"
#include "energycfg.h"
#include "genspec.h"
#include "tier.h"

#include <stdint.h>

struct gs_svccfg;

struct gs_tiercfg {
    int priority;
    int preemptible;
    gs_time max_wait;           /* SLA: longest acceptable queueing delay */
    gs_time ckpt;               /* default checkpoint interval, 0 = none */
    gs_time restart;            /* work redone on each restart (overhead) */
    /* Host resources a job of the tier asks when its trace or class states
     * none (gs_sim: admission): per GPU asked (fractions pro rata), and
     * for a job asking no GPU.  Milli-cores and MiB. */
    int32_t cpu_per_gpu, mem_per_gpu;
    int32_t cpu_only, mem_only;
};

struct gs_tenant {
    char name[GS_TENANT_NAME];
    double quota_gpus;          /* guaranteed GPUs (fair, static) */
    double weight;
};

struct gs_partition {
    char name[GS_NAME];
    char tenant[GS_TENANT_NAME];/* "" = any tenant */
    int tier;                   /* -1 = any tier */
    int pool;
    int nodes;
    int lo, hi;                 /* pool-relative node range, assigned in order */
};

enum gs_wl_kind { GS_WL_TRACE, GS_WL_GENERATE,
                  GS_WL_NONE     /* services only: no job workload */ };

/* Topology (docs/sharing.md, "Topology"): how gangs are placed and what
 * spreading one over more nodes than it needs costs. */
enum gs_gang_place { GS_GANG_CONSOLIDATE, GS_GANG_SPREAD };
struct gs_topocfg {
    int gang;                   /* enum gs_gang_place */
    double comm_share;          /* a job's default communication share */
    double per_hop;             /* slowdown per network hop added, < 0 =
                                   derived from the bandwidths */
};

struct gs_scenario {
    char *file;                 /* where it came from ("<built-in quickstart>");
                                   owned, never NULL once parsed */
    char name[GS_NAME];
    char *text;                 /* the JSON as given (owned) */
    uint64_t seed;
    gs_time horizon;            /* 0 = run until every job has ended */
    gs_time bill_until;         /* 0, or a run whose span would be shorter
                                   goes on (billed, models running) until
                                   its span is this */
    gs_time step;               /* time-series sampling step */
    int queue;                  /* event queue: enum gs_queue_kind */
    int question;               /* $.question: 0 not stated (io/question.h
                                   decides), 1 finite, 2 steady */
    struct gs_catalog cat;
    int npools;
    struct gs_pool_spec *pools;
    struct gs_tiercfg tiers[GS_NTIERS];
    struct gs_topocfg topo;
    int ntenants;
    struct gs_tenant *tenants;
    int nparts;
    struct gs_partition *parts;
    char policy[GS_NAME];
    struct gs_params policy_params;
    char placer[GS_NAME];
    struct gs_params placer_params;
    int wl_kind;
    struct gs_params trace;     /* workload.trace: format, path, options */
    char *trace_dir;            /* directory of the scenario, for relative
                                   paths (owned; NULL or "": none) */
    struct gs_genspec gen;      /* workload.generate */
    struct gs_cloudcfg cloud;   /* prices, spot, failures, autoscaling,
                                   reaping ($.prices ... $.autoscaler and
                                   the pools' cloud keys) */
    struct gs_energycfg energy; /* PUE, tariffs, carbon ($.energy) */
    int nsvcs;                  /* inference services ($.services) */
    struct gs_svccfg *svcs;
};

/* The most bytes a scenario file may have (standard input too): far more
 * than any hand-written fleet and workload, far less than would exhaust
 * memory once parsed (cJSON takes about 20 times the text). */
#define GS_SCENARIO_MAX (64 << 20)

#endif
