/* model.h -- how models join the simulation: one struct of hooks each.
 *
 * A model (GPU sharing, the cloud's markets, spot, failures and scaling,
 * inference services) is to the simulation what a policy is to scheduling:
 * a const struct of hooks, listed once in the table of built-in models
 * (gs_builtin_models, sim/setup/setup.c), which sim.c calls in one loop at fixed points of a run.  This is ROSS's "a
 * model is a struct of hooks" (Carothers et al., "ROSS: a high-performance,
 * low-memory, modular Time Warp system", JPDC 2002) applied to a sequential
 * engine.  No file outside a model names it: the loop, the writers (report,
 * HDF5), compare, sweep and plan reach every model through this table, so
 * adding a model is a file and a table line.
 *
 * THE HOOK API IN SHORT (for whoever writes a model):
 *
 *   const struct gs_model_ops my_model = {
 *       .name = "power", .rank = 40,
 *       .build = ..., .advance = ..., .close = ...,    -- the run
 *       .fields = my_fields, .nfields = N,             -- summary scalars
 *       .values = my_values,                           -- their values
 *       .report = ..., .json = ..., .csv = ...,        -- optional sections
 *       .h5 = my_h5,                                   -- datasets (h5out.h)
 *       .ntargets = ..., .target_name = ..., .target_values = ...,
 *   };
 *
 * then one line in gs_builtin_models[] (sim/setup/setup.c), or
 * gs_model_register(&my_model)
 * before the first simulation (tests, plug-ins).  Every output hook is
 * also called when the model is not in the run (st NULL), so that every
 * output has the same keys whatever the scenario: a model's scalars are 0
 * then, and a section hook writes its empty form or nothing.
 *
 * Life of a model in a run:
 *
 *   build        gs_sim_new, after the fleet, the policy, the placer and
 *                the metrics exist; *state = NULL means "not in this run"
 *                (no run hook of that model is called again, not even
 *                free; output hooks get st NULL);
 *   start        the first arrival's time is known (not called when the
 *                workload is empty, nor by placement experiments);
 *   pool_ok      a veto: may this job use this pool at all (the spot rule);
 *                asked in admission and placement, so it must be cheap and
 *                must not change with time; it may look at the pool and at
 *                the job's tier and need only (admission remembers its
 *                answers for alike jobs: sim.c, shape_answers).  Policies
 *                ask every model's veto through gs_sim_pool_ok (sim.h);
 *   job_started  a job has taken its allocation and runs at its unshared
 *                speed (a model may change its rate through sim.h);
 *   job_stopping a running job is about to give its allocation back
 *                (finish, preemption, interruption, kill);
 *   job_ran      the allocation is back in the fleet (or the books close
 *                with the job running): return the $ the model bills to
 *                that run, added to the job's record;
 *   job_ended    a job left the system for good or went back to the queue
 *                (why: GS_STOP_*, after the policy heard it);
 *   job_energy   a model that owns job j's work reported the energy its
 *                GPUs drew above idle, J, now, drawn evenly over
 *                [from_s, to_s] (exact seconds, to_s at or before now;
 *                gs_sim_job_energy: the inference replicas' iterations);
 *                the energy model books it, every other model may ignore
 *                it;
 *   advance      the clock is about to move to t (integrals over time);
 *   still        1 when what the model integrates moves only with the
 *                cluster (jobs, nodes: the core's calls) and the model's
 *                own events, never with time alone: its advance may then
 *                wait while only still events fire (gs_sim_still_event)
 *                and integrate the stretch in one piece; a model without
 *                it (or answering 0) is advanced at every move;
 *   after_schedule  the policy has just made a scheduling pass;
 *   close        the run ends at `end`: close the books;
 *   summarize    the core's summary is filled: the model closes its own
 *                (it may set the core's cost, which a billing model owns);
 *   alive        1 while the model has work to come that keeps a run with
 *                no horizon going (requests not yet arrived or in flight)
 *                even when no job waits or runs;
 *   pool_nodes   nodes of pool p billed on average and at most over the
 *                run (the planner sizes pools by it; gs_sim_pool_nodes);
 *   free         NULL-safe, after the event queue is gone (a model may own
 *                events embedded in its state).
 * Run hooks are called in table order; a model whose hook is NULL is
 * skipped.  Models act on jobs only through the engine calls of sim.h and
 * see each other only through what the fleet shows.
 *
 * Outputs (st is the model's state, NULL when it is not in the run; s the
 * finished simulation; all optional):
 *
 *   fields, nfields  the model's scalars of the summary: each is a --json
 *                key, a CSV "run" row, an HDF5 /summary attribute and
 *                /summary/fields row, a `compare` metric and a plan/sweep
 *                target, printed with fmt (a printf format of a double);
 *                units and desc are the HDF5 file's attributes (NULL:
 *                report.h derives them from the name);
 *   values       fill v[0..nfields) (st non-NULL; absent models print 0);
 *   report       lines of the text table after the core's run lines;
 *   report_tables  a table of its own after the tiers' table;
 *   json         members of the --json object after "models", each
 *                written as ",\n  \"key\": value";
 *   json_end     the same, after every model's json (the bill's
 *                breakdown closes the object);
 *   csv, csv_end rows "scope,metric,value" likewise;
 *   h5           its groups and datasets in a single-run result file,
 *                through h5out.h's writer calls (gs_h5w_*);
 *   ntargets, target_name, target_values
 *                plan and sweep metrics beyond the summary's fields that
 *                depend on the scenario (a service's TTFT by name):
 *                ntargets(sc) of them, named into buf, valued from a run
 *                (NaN where the run lacks it; st may be NULL);
 *   target_check a plan's target naming one of the model's: 1 when it is
 *                a target of sc, -1 with why when it looks like one of the
 *                model's but is not, 0 when it is not the model's;
 *   plan_report  after `gpusim plan`'s right-sizing, the model's own.
 *
 * The question (io/question.h: finite horizon or steady state, and a
 * steady run's estimates) asks a model that brings arrival streams of its
 * own (the services' requests) about them; the jobs' stream is the core's:
 *
 *   arrivals     the model's streams in sc: their count when every one is
 *                generated at a constant rate, or -1 with *why saying what
 *                is not ("a request trace replayed");
 *   length       the arrivals its streams generate in all: -1 when it has
 *                no stream, 0 when one is a trace or limited only by time;
 *   set_length   scale every stream's count by f (each at least 1);
 *   nseries, series_name, series
 *                the series a steady-state analysis estimates, in arrival
 *                order: nseries(sc) of them, named into buf ("chat ttft"),
 *                their values from a run into an array *x of *n: 0 when
 *                it is new (the caller frees it), 1 when it is the
 *                model's (valid until the run is freed), or GS_ENOMEM;
 *                st may be NULL.
 * rank orders the models' parts in every output (lowest first, ties in
 * table order); it never changes the order the run hooks are called in. */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include "engine.h"
#include "../base/err.h"
#include "../cluster/fleet.h"
#include "job.h"
#include "metrics.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gs_sim;
struct gs_scenario;
struct gs_h5w;

/* One scalar of a model's part of the summary (see above). */
struct gs_field {
    const char *name;           /* --json key, compare metric, ... */
    const char *fmt;            /* printf format of its value, a double */
    const char *units, *desc;   /* HDF5 attributes; NULL: by the name */
};

struct gs_model_ops {
    const char *name;
    int (*build)(struct gs_sim *s, const struct gs_scenario *sc,
                 struct gs_fleet *f, struct gs_metrics *m, uint64_t seed,
                 void **state, struct gs_diag *d);
    void (*free)(void *st);
    int (*start)(void *st, gs_time t0);
    int (*pool_ok)(const void *st, int pool, const struct gs_job *j);
    void (*job_started)(void *st, struct gs_job *j);
    void (*job_stopping)(void *st, struct gs_job *j);
    double (*job_ran)(void *st, const struct gs_job *j);
    void (*job_ended)(void *st, struct gs_job *j, int why);
    void (*job_energy)(void *st, struct gs_job *j, double joules,
                       double from_s, double to_s);
    void (*advance)(void *st, gs_time t);
    int (*still)(const void *st);
    void (*after_schedule)(void *st);
    void (*close)(void *st, gs_time end);
    void (*summarize)(void *st, struct gs_summary *su);
    int (*alive)(const void *st);
    void (*pool_nodes)(const void *st, int pool, double *mean, double *peak);
    /* outputs */
    int rank;
    const struct gs_field *fields;
    int nfields;
    void (*values)(const void *st, double *v);
    void (*report)(const struct gs_sim *s, const void *st, FILE *fp);
    void (*report_tables)(const struct gs_sim *s, const void *st, FILE *fp);
    void (*json)(const struct gs_sim *s, const void *st, FILE *fp);
    void (*json_end)(const struct gs_sim *s, const void *st, FILE *fp);
    void (*csv)(const struct gs_sim *s, const void *st, FILE *fp);
    void (*csv_end)(const struct gs_sim *s, const void *st, FILE *fp);
    void (*h5)(const struct gs_sim *s, const void *st, struct gs_h5w *w);
    int (*ntargets)(const struct gs_scenario *sc);
    void (*target_name)(const struct gs_scenario *sc, int i, char *buf,
                        size_t n);
    void (*target_values)(const struct gs_scenario *sc,
                          const struct gs_sim *s, const void *st, double *v);
    int (*target_check)(const struct gs_scenario *sc, const char *metric,
                        char *why, size_t n);
    void (*plan_report)(const struct gs_sim *s, const void *st, FILE *fp);
    /* the question */
    int (*arrivals)(const struct gs_scenario *sc, const char **why);
    long (*length)(const struct gs_scenario *sc);
    void (*set_length)(struct gs_scenario *sc, double f);
    int (*nseries)(const struct gs_scenario *sc);
    void (*series_name)(const struct gs_scenario *sc, int i, char *buf,
                        size_t n);
    int (*series)(const struct gs_sim *s, const void *st, int i, double **x,
                  long *n);
};

/* Install the built-in models, in the order their hooks are called
 * (NULL-terminated, at most 8; it must outlive every use): the layer above
 * the models does it (sim/setup/setup.h: gs_builtin_install, gs_sim_new)
 * before the first simulation and the first output.  0, also when the same
 * table is installed already; GS_EINVAL for another table or one too long.
 * Asking for a model (gs_model_at, and so every summary field) before any
 * table is installed is a bug, and aborts. */
int gs_models_install(const struct gs_model_ops *const *table);

/* Add a model after the built-in ones (a test's, a plug-in's), before the
 * first simulation and the first output: 0, or GS_EINVAL when the table is
 * full or ops is there already. */
int gs_model_register(const struct gs_model_ops *ops);
/* How many models have joined (installed table and registered ones): it
 * only grows, so a table built from the models' fields (the summary's
 * names, the run metrics' index) is current while this is unchanged. */
int gs_models_joined(void);
/* Model i in call order, NULL past the last. */
const struct gs_model_ops *gs_model_at(int i);
/* Model i in output order (rank, then table order), NULL past the last. */
const struct gs_model_ops *gs_model_out(int i);

/* The summary's scalars: the core's (GS_SUMMARY_FIELDS, metrics.h) then
 * every model's in output order; values in that order into v. */
int gs_summary_nfields(void);
const char *gs_summary_field_name(int i);
const char *gs_summary_field_fmt(int i);
/* Units and description of field i: NULL when the model gave none. */
void gs_summary_field_meta(int i, const char **units, const char **desc);
/* Where model ops's values start in struct gs_summary's mx[]. */
int gs_summary_model_base(const struct gs_model_ops *ops);
void gs_summary_values(const struct gs_summary *su, double *v);

/* The state model ops has in simulation s, NULL if it is not in the run. */
void *gs_sim_model(const struct gs_sim *s, const struct gs_model_ops *ops);
/* The same by the model's name (ops->name): for a model's own files that
 * do not hold its table. */
void *gs_sim_model_named(const struct gs_sim *s, const char *name);

#endif
