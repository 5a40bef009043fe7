/* scenario.h -- a validated scenario: fleet, tiers, tenants, policy, workload.
 *
 * The parser (scenario.c and its sections, scenint.h) is, with jsonio.c,
 * the only code that sees cJSON.  It parses a JSON file (or the built-in
 * quickstart text), checks every key against its object's key table
 * (keytab.h) -- an unknown key is an error, not silently ignored -- and
 * reports the first problem with the file, the line and column for
 * malformed JSON, and the JSON path ($.fleet[2].gpus_per_node) for a wrong
 * value.  What comes out is
 * plain C data the rest of gpusim reads. */
#ifndef GS_SCENARIO_H
#define GS_SCENARIO_H

#include "../cloud/cloudcfg.h"
#include "../cloud/energycfg.h"
#include "../inference/svccfg.h"
#include "../base/err.h"
#include "../cluster/fleet.h"
#include "gen.h"
#include "../cluster/gpu.h"
#include "../core/job.h"
#include "../core/params.h"

#include <stdint.h>
#include <stdio.h>

struct gs_plancfg;

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

/* Parse and validate the scenario in file.  On success *out owns a new
 * scenario (free with gs_scenario_free) and 0 is returned; otherwise d says
 * where and what, and a negative code is returned. */
int gs_scenario_load(const char *file, struct gs_scenario **out,
                     struct gs_diag *d);
/* The same from JSON text; name is used in messages in place of a file. */
int gs_scenario_parse(const char *text, const char *name, const char *dir,
                      struct gs_scenario **out, struct gs_diag *d);
void gs_scenario_free(struct gs_scenario *s);

/* Read a generator spec file for `gpusim trace gen`: an object with the
 * keys of a scenario's workload.generate plus optional "seed",
 * "gpu_models" (added to cat) and "description"; or a whole scenario whose
 * workload is generated (its generator, catalog and seed are taken).  cat
 * comes in with the models to start from and leaves with the spec's.  0 or
 * a negative code with d filled (file:line:col, or the JSON path). */
int gs_genspec_load(const char *file, struct gs_catalog *cat,
                    struct gs_genspec *spec, uint64_t *seed,
                    struct gs_diag *d);

/* A top-level section that a tool above this layer reads itself ($.plan:
 * `gpusim plan`, studies/planjson.c).  The parser lists the key, so every
 * command accepts a scenario that has it, and leaves the value to the
 * tool; the tool hands in its key table, for the schema, and its check,
 * for `gpusim scenario --check` (0, or a negative code with d filled;
 * nothing when s lacks the key).  io/ names neither. */
struct gs_kt_obj;
struct gs_sc_section {
    const char *key;
    const struct gs_kt_obj *table;
    int (*check)(const struct gs_scenario *s, struct gs_diag *d);
};

/* Write the JSON Schema (draft 2020-12) of scenario files to fp, made
 * from the parser's key tables (keytab.h) and the tools' sections (a
 * NULL-terminated list; each key must be one the root lists): the names of
 * the policies, placers and trace formats come from the caller
 * (NULL-terminated lists; those registries sit above this layer).  0 or
 * GS_EIO. */
#define GS_SCENARIO_SCHEMA_ID \
    "https://gpusim.invalid/scenarios/gpusim.schema.json"
int gs_scenario_schema(FILE *fp, const char *const *policies,
                       const char *const *placers,
                       const char *const *trace_formats,
                       const struct gs_sc_section *const *sections);

/* The built-in quickstart scenario, JSON text (static storage). */
const char *gs_scenario_quickstart(void);

/* 0 when a simulation of s fits the memory budget (base/membudget.h: its
 * nodes, GPUs and generated jobs), else GS_EINVAL with d saying how much
 * it would need.  gs_scenario_parse checks it (with the whole budget) and
 * gs_sim_new again (with a worker's share), before allocating. */
int gs_scenario_mem_check(const struct gs_scenario *s, struct gs_diag *d);

/* Largest pool capacity in GPUs (whole pool), for validating demands. */
int gs_scenario_max_gpus(const struct gs_scenario *s);

#endif
