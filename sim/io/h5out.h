/* h5out.h -- the HDF5 result files: write a run, a comparison, a plan (h5in.h
 * reads them back).
 *
 * Layout (version GS_H5_LAYOUT, documented in the README):
 *   /                      attrs gpusim_version, layout_version,
 *                          schema_version (GS_H5_SCHEMA), scenario,
 *                          policy, placement, seed
 *   /scenario              the scenario JSON as given (string)
 *   /jobs                  compound table, one row per job (h5in.h: gs_h5_job)
 *   /tenants, /tiers, /models, /states, /kill_reasons
 *                          strings (every string of the file is
 *                          variable-length UTF-8); the integer columns of
 *                          /jobs index them
 *   /timeseries/time_s, allocated_gpus, queue_length, running_jobs,
 *              gpus_up, cost_rate_usd_per_h, fragmentation (FGD measure /
 *              capacity, frag.h), mig_slice_busy (busy / available MIG
 *              compute slices)                          1-D, one per step
 *   /timeseries_by_model/time_s, MODEL...  1-D, GPUs of each GPU model of
 *                          the fleet allocated (one series per model, named
 *                          after it; attr "models" in fleet order), so every
 *                          time-series group holds only 1-D series of one
 *                          length and reads as one DataFrame (layout 3)
 *   /summary               attrs: every scalar of the summary
 *   /summary/tiers         compound table: scope name + per-tier statistics
 *   /summary/models        compound table: model, gpus, utilization, GPU-hours
 *   /timeseries/nodes_in_service, nodes_billed, nodes_provisioning,
 *              nodes_in_repair, nodes_spare, gpus_failed, gpus_degraded,
 *              idle_cost_rate_usd_per_h         1-D, the cloud models'
 *   /cloud/cost_by_market, cost_by_tier, cost_by_tenant, cost_by_model
 *                          compound tables: name, cost_usd (tiers and
 *                          tenants: what their jobs were charged; the rest
 *                          of the bill is the "idle" row of each)
 *   /cloud/pools           compound table: pool, market, paid_usd, jobs_usd,
 *                          idle_usd, on_demand_equiv_usd, node_hours,
 *                          idle_node_hours
 *   /cloud/log             compound table: time_s, kind, pool, node, gpu,
 *                          jobs, value -- every spot notice and reclaim,
 *                          failure, repair, launch, removal (cloud.h);
 *                          /cloud/log_kinds names the kinds
 * The file is written under an exclusive temporary beside PATH and renamed
 * to PATH when complete (outfile.h), so a failed or interrupted run never
 * leaves a partial file at PATH.  Object time tracking is off and compound
 * tables are stored packed: the same scenario and seed give a
 * byte-identical file (compare them with cmp). */
#ifndef GS_H5OUT_H
#define GS_H5OUT_H

#include "../base/err.h"
#include "../core/sim.h"

#include <stdint.h>

int gs_h5_write(const char *path, const struct gs_sim *s, struct gs_diag *d);
/* The same with only an evenly spaced share `sample` (0, 1] of each
 * service's requests in /requests (`gpusim run --sample`), and /question
 * from q, the run's steady-state analysis when the caller has made it
 * (gpusim run prints it too), or made here when q is NULL. */
struct gs_question;
int gs_h5_write_sampled(const char *path, const struct gs_sim *s,
                        double sample, const struct gs_question *q,
                        struct gs_diag *d);

/* --- the writer calls of a model's h5 hook (model.h) ---------------------
 * A model writes its groups and datasets into the single-run file through
 * these, never through hdf5.h: every dataset gets its "units" and
 * "description" attributes as the rest of the file's do (by its name,
 * report.h gs_report_meta, or gs_h5w_describe), large ones are chunked and
 * compressed, compound tables are stored packed, and a failure is noted
 * once (the file is then not written).  Locations are HDF5 ids. */
struct gs_h5w;
typedef int64_t gs_h5loc;
enum gs_h5type { GS_H5_F64, GS_H5_I8, GS_H5_I32, GS_H5_I64, GS_H5_STR };
/* A column of a table of C structs: its type and its offset in the
 * struct (a GS_H5_STR column is a `const char *` field, stored as a
 * variable-length UTF-8 string); units and desc, when both set, are the
 * column's "column_units" and "column_descriptions" entries (else derived
 * from the table's path and the column's name). */
struct gs_h5col {
    const char *name;
    enum gs_h5type type;
    size_t offset;
    const char *units, *desc;
};
/* The rows first .. first + k - 1 of a table into buf. */
typedef void gs_h5w_fill_fn(void *ctx, size_t first, size_t k, void *buf);

gs_h5loc gs_h5w_root(const struct gs_h5w *w);
/* The share (0, 1] of requests `gpusim run --sample` keeps. */
double gs_h5w_sample(const struct gs_h5w *w);
/* A new group; < 0 on failure (noted).  Close it with gs_h5w_close. */
gs_h5loc gs_h5w_group(struct gs_h5w *w, gs_h5loc loc, const char *name);
/* A group the file has already (the core's /timeseries, written before
 * the models' hooks: a model adds a series of the same length there);
 * < 0 on failure (noted).  Close it with gs_h5w_close. */
gs_h5loc gs_h5w_open(struct gs_h5w *w, gs_h5loc loc, const char *name);
void gs_h5w_close(gs_h5loc g);
/* A 1-D table of n rows of rowsize bytes described by cols. */
void gs_h5w_table(struct gs_h5w *w, gs_h5loc loc, const char *name,
                  const struct gs_h5col *cols, int ncols, size_t rowsize,
                  const void *rows, size_t n);
/* The same, made a piece at a time by fill (a table too large to hold). */
void gs_h5w_table_rows(struct gs_h5w *w, gs_h5loc loc, const char *name,
                       const struct gs_h5col *cols, int ncols,
                       size_t rowsize, size_t n, gs_h5w_fill_fn *fill,
                       void *ctx);
/* An array of doubles of rank 1 to 3. */
void gs_h5w_doubles(struct gs_h5w *w, gs_h5loc loc, const char *name,
                    int rank, const size_t *dims, const double *v);
/* n strings (variable-length UTF-8). */
void gs_h5w_strings(struct gs_h5w *w, gs_h5loc loc, const char *name,
                    const char *const *v, size_t n);
/* Replace the units and description dataset name got from its name. */
void gs_h5w_describe(struct gs_h5w *w, gs_h5loc loc, const char *name,
                     const char *units, const char *desc);
/* A numeric attribute on dataset name. */
void gs_h5w_attr_num(struct gs_h5w *w, gs_h5loc loc, const char *name,
                     const char *attr, double v);
/* Note a failure to write what (the first one is reported). */
int gs_h5w_fail(struct gs_h5w *w, const char *what);

/* A comparison (`gpusim compare`): every run, and the statistics.
 * Layout (same GS_H5_LAYOUT):
 *   /                      attrs gpusim_version, layout_version,
 *                          kind = "compare", scenario
 *   /scenario              the scenario JSON as given
 *   /runs/POLICY/seedK     each run's single-run file (jobs, names,
 *                          timeseries, summary), copied whole; attrs policy,
 *                          seed
 *   /compare               attr bill_window_s: the window every run was
 *                          billed over (its span), NaN when each run was
 *                          billed over its own (--bill-until own)
 *   /compare/policies, /compare/metrics     names (strings)
 *   /compare/seeds         the seeds (uint64), index K of seedK
 *   /compare/values        [policy, seed, metric] every run's metrics
 *   /compare/question      the scenario's question (steady or finite),
 *   /compare/question_why  and why; each run's own analysis is in
 *                          /runs/POLICY/seedK/question
 *   /compare/interval_method   how /compare/table's intervals are made
 *   /compare/table         one row per (policy, metric): n, mean, std,
 *                          t (Student's t, 97.5% quantile, n-1 d.o.f.),
 *                          half (t * std / sqrt(n)), ci_low, ci_high */
struct gs_h5_compare {
    double bill_window_s;               /* every run's span (s), NaN: own */
    const char *scenario, *text;
    int npol, nseeds, nmetrics;
    const char *const *policies;        /* npol */
    const unsigned long long *seeds;    /* nseeds */
    const char *const *metrics;         /* nmetrics */
    const double *values;               /* [npol][nseeds][nmetrics] */
    const double *mean, *sd, *t, *half; /* [npol][nmetrics] */
    const char *const *runfiles;        /* [npol][nseeds] single-run files */
    const char *question, *question_why;/* the scenario's question (steady,
                                           finite) and the rule that said so */
};

int gs_h5_write_compare(const char *path, const struct gs_h5_compare *c,
                        struct gs_diag *d);

/* A placement experiment (`gpusim place-exp`, placeexp.h).  Layout (same
 * GS_H5_LAYOUT):
 *   /                      attrs gpusim_version, layout_version,
 *                          kind = "place-exp", scenario
 *   /scenario              the scenario JSON as given
 *   /place_exp             attrs capacity_gpus, population (jobs asking
 *                          for GPUs in the workload)
 *   /place_exp/placers     names (strings), index P
 *   /place_exp/seeds       the seeds (uint64), index S
 *   /place_exp/arrived_load    [K] arrived GPU requests / capacity
 *   /place_exp/alloc_ratio     [P, S, K] allocated GPUs / capacity
 *   /place_exp/stranded_ratio  [P, S, K] GPUs free on nodes out of CPU or
 *                              memory / capacity
 *   /place_exp/cpu_alloc_ratio [P, S, K] CPU allocated / CPU capacity
 *   /place_exp/failed_ratio    [P, S, K] failed GPU requests / capacity
 *   /place_exp/mean_alloc_ratio [P, K] the mean over seeds
 *   /place_exp/tasks           [P, S] tasks offered */
struct gs_h5_place_exp {
    double capacity_gpus;
    long population, population_gpu;   /* pods; pods asking for GPUs */
    int nplacers, nseeds, npoints;      /* P, S, K */
    const char *const *placers;         /* P names, under 64 bytes */
    const uint64_t *seeds;              /* S */
    const double *load;                 /* K */
    const double *alloc, *stranded, *cpu_use, *failed;  /* [P][S][K] */
    const long *tasks;                  /* [P][S] */
};
int gs_h5_write_place_exp(const char *path, const char *scenario,
                          const char *text, const struct gs_h5_place_exp *x,
                          struct gs_diag *d);

/* Sweeps and plans (`gpusim sweep`, `gpusim plan`; layouts in
 * docs/planning.md): a file of named datasets.  Each gs_h5_ds is a dataset
 * at `name` (groups on the way are created), of doubles, strings, uint64
 * or int64, rank 1 to 3, with "description" and "units" attributes from
 * desc and units when set (else derived from the leaf's name).  Same begin and end as every gpusim file: root attributes
 * gpusim_version, layout_version, kind, scenario; /scenario; written under
 * PATH.tmp-PID and renamed when complete. */
enum gs_h5_dkind { GS_H5_DOUBLE, GS_H5_STRING, GS_H5_U64, GS_H5_INT64 };
struct gs_h5_ds {
    const char *name;
    int kind, rank;
    long dims[3];
    const void *data;       /* double *, const char *const *, uint64_t *,
                               int64_t * */
    const char *desc;
    const char *units;      /* NULL: derived from the name (report.h) */
};
int gs_h5_write_sets(const char *path, const char *kind, const char *scenario,
                     const char *text, const struct gs_h5_ds *ds, int n,
                     struct gs_diag *d);

#endif
