/* cimport.h -- what the importers of a team's own cluster share.
 *
 * kube.c (Kubernetes nodes and pods), slurm.c (sacct and scontrol) and
 * dcgm.c (Prometheus range queries of DCGM metrics) read whole documents,
 * not line streams, and turn them into a job list sorted after the fact.
 * The pieces they share:
 *   - a bounded whole-file read (plain or gzip; regular files only, capped
 *     at GS_CIMP_MAX_BYTES so a wrong path cannot make gpusim grow without
 *     bound);
 *   - timestamps: RFC 3339 ("2024-05-01T12:00:00.5Z", "+02:00") as the
 *     Kubernetes API and Prometheus write them, and Slurm's local times
 *     without a zone, read in a zone the user names ("UTC", "+02:00",
 *     "Europe/Berlin" -- the last through the system's tz database, so
 *     daylight saving moves the offset as it did on the cluster);
 *   - the GPU model a product name means (NVIDIA's GPU feature discovery
 *     labels, nvidia-smi names, Slurm gres types) on the catalog;
 *   - a job list: jobs appended in any order with their recorded start,
 *     sorted stably by arrival, handed out one at a time, and the
 *     recorded waits kept for `gpusim trace replay-check`.
 * Reports of rows left out use tread.h's struct gs_treport. */
#ifndef GS_CIMPORT_H
#define GS_CIMPORT_H

#include "../sim/base/err.h"
#include "../sim/cluster/gpu.h"
#include "../sim/core/job.h"

#include <stddef.h>
#include <stdint.h>

/* The largest document read whole (1 GiB). */
#define GS_CIMP_MAX_BYTES (1L << 30)

/* Read path whole into *buf (NUL-terminated, caller frees) of *len bytes.
 * Refuses anything but a regular file (a device, a FIFO, a folder) and
 * files over max bytes (after gzip decompression).  0 or a negative code
 * with d filled. */
int gs_cimp_slurp(const char *path, long max, char **buf, size_t *len,
                  struct gs_diag *d);

/* RFC 3339 date-time ("2024-05-01T12:00:00Z", fractional seconds, 'Z' or
 * "+HH:MM"/"-HH:MM"; 't'/'z' and a blank for 'T' accepted) to ms since the
 * Unix epoch.  0 or -1. */
int gs_cimp_rfc3339(const char *s, int64_t *ms);

/* A zone for local times: fixed offset, or a tz database name. */
struct gs_cimp_tz {
    int named;                  /* 1: name is a tz database zone */
    int offset_s;               /* fixed: seconds east of UTC */
    char name[64];
};
/* "UTC", "Z", "+HH:MM", "-HHMM", or a tz database name ("Europe/Berlin",
 * checked to exist under /usr/share/zoneinfo).  0 or GS_EINVAL with d. */
int gs_cimp_tz_parse(const char *spec, struct gs_cimp_tz *tz,
                     struct gs_diag *d);
/* "YYYY-MM-DDTHH:MM:SS" local to tz, to ms since the epoch.  0 or -1. */
int gs_cimp_localtime(const char *s, const struct gs_cimp_tz *tz,
                      int64_t *ms);
/* ms since the epoch as "YYYY-MM-DDTHH:MM:SSZ" into buf (>= 21 bytes). */
void gs_cimp_fmt_utc(int64_t ms, char *buf, size_t n);

/* The catalog model a product name means.  The name is cleaned of a
 * leading "NVIDIA"/"Tesla" and of feature discovery's "-SHARED" and
 * "-MIG-<profile>" suffixes; its family (A100, H100, H200, A800, H800,
 * V100, P100, T4, A10, A10G, K80, ...) picks the catalog models named so,
 * and among them the one whose memory is nearest mem_gb (or a "NNGB" part
 * of the name when mem_gb <= 0).  A product the catalog lacks is declared
 * as a custom model named after its family with mem_gb of memory (the
 * other figures those of the catalog model of nearest memory) and *warned
 * is set to 1.  The index, or GS_ENOTFOUND (no family and no memory to
 * declare it from) or GS_ERANGE (catalog full). */
int gs_cimp_gpu_model(struct gs_catalog *cat, const char *product,
                      double mem_gb, int *warned);

/* The family a GPU name names ("a100" -> "A100", "tesla_v100" -> "V100"),
 * as a job's gpu_family, into out: 0, or -1 when no catalog model is of
 * that family. */
int gs_cimp_gpu_family(const struct gs_catalog *cat, const char *name,
                       char *out, size_t n);

/* The tier a class name (a priorityClassName, a QOS) suggests when no
 * mapping names it: one containing "infer", "serv", "online" or
 * "realtime" is inference; "interactive", "notebook" or "dev"
 * interactive; "batch-cpu", "data" or "etl" data; anything else (and
 * NULL or "") training. */
int gs_cimp_tier_guess(const char *cls);

/* A mapping option "class=tier,class=tier" (at most GS_CIMP_TIERS pairs). */
#define GS_CIMP_TIERS 16
struct gs_cimp_tiers {
    int n;
    struct { char cls[96]; int tier; } v[GS_CIMP_TIERS];
};
/* 0, or -1 when text is not such a list. */
int gs_cimp_tiers_parse(const char *text, struct gs_cimp_tiers *t);
/* The mapped tier of cls, else gs_cimp_tier_guess(cls). */
int gs_cimp_tier(const struct gs_cimp_tiers *t, const char *cls);

/* --- Prometheus range-query exports ------------------------------------------ */

struct gs_json;
/* Called for each series of a range query's matrix: i its index in
 * $.data.result, metric its labels (an object), values its samples. */
typedef int gs_cimp_series_fn(void *ctx, const char *file, int i,
                              const struct gs_json *metric,
                              const struct gs_json *values,
                              struct gs_diag *d);
/* Read one export (the JSON of /api/v1/query_range) and call fn on each
 * series.  0 or a negative code with d filled ("FILE: $.status: ..."). */
int gs_cimp_prom_file(const char *file, gs_cimp_series_fn *fn, void *ctx,
                      struct gs_diag *d);
/* Sample k of values: 1 with *t_ms and *v, 0 for "NaN", or GS_EPARSE
 * naming path[k]. */
int gs_cimp_prom_sample(const char *file, const char *path,
                        const struct gs_json *sample, int k, int64_t *t_ms,
                        double *v, struct gs_diag *d);

/* --- options the importers share -------------------------------------------- */

struct gs_params;
/* GS_EINVAL with d: where = "OPTS-WHERE.KEY", what as given. */
int gs_cimp_opt_fail(struct gs_params *o, const char *key, struct gs_diag *d,
                     const char *what);
/* Option running: "end" (default; *drop = 0) or "drop" (*drop = 1). */
int gs_cimp_opt_running(struct gs_params *o, int *drop, struct gs_diag *d);

/* --- the job list ---------------------------------------------------------- */

struct gs_cimp_job {
    struct gs_jobspec s;
    int64_t start;              /* recorded start, ms after the origin;
                                   -1 never started */
    long seq;                   /* order appended (stable sort) */
};

struct gs_jlist {
    struct gs_cimp_job *v;
    long n, cap, next;
};

/* Append a job (its recorded start, -1 if none).  0 or GS_ENOMEM. */
int gs_jlist_add(struct gs_jlist *l, const struct gs_jobspec *s,
                 int64_t start);
/* Sort by (arrival, order appended). */
void gs_jlist_sort(struct gs_jlist *l);
/* 1 with *out (the next in order), 0 at the end. */
int gs_jlist_next(struct gs_jlist *l, struct gs_jobspec *out);
void gs_jlist_free(struct gs_jlist *l);

/* --- what was left out, by reason ------------------------------------------- */

#define GS_CIMP_REASONS 16

struct gs_cimp_left {
    long n;                     /* objects left out in all */
    int nr;
    struct {
        char why[112];
        char first[160];        /* the first object left out for it */
        long n;
    } r[GS_CIMP_REASONS];
};
/* Count one object (named first, "Pod ns/name") left out for why. */
void gs_cimp_leave(struct gs_cimp_left *l, const char *why,
                   const char *first);
/* "gpusim: PATH: left out N WHAT: K REASON (first: NAME); ..." lines on
 * gs_trace_log(); nothing when nothing was left out. */
void gs_cimp_left_print(const char *path, const char *what,
                        const struct gs_cimp_left *l);

/* --- recorded history, for replay-check ------------------------------------- */

/* The waits the cluster recorded: job ids and their recorded wait (start -
 * arrival, ms) for the jobs that started.  Each importer that knows starts
 * publishes the last list it loaded here; `gpusim trace replay-check`
 * reads it after the simulation's source has been opened. */
struct gs_cimp_history {
    int64_t origin_ms;          /* time 0 of the import, ms since the epoch */
    long n;
    int64_t *id;
    int64_t *wait;
    char basis[320];            /* what a recorded wait measures, from when
                                   to when ("" not said) */
};
/* Copy l's started jobs into the published history (replacing it);
 * origin_ms is the import's time 0; basis says what a wait measures
 * (copied, truncated to fit). */
int gs_cimp_publish(const struct gs_jlist *l, int64_t origin_ms,
                    const char *basis);
/* The published history (n = 0 when none), owned here. */
const struct gs_cimp_history *gs_cimp_history(void);
void gs_cimp_history_clear(void);

/* --- a history importer's common part --------------------------------------- */

/* What the importers of a cluster's history (k8s-pods, k8s-ksm,
 * slurm-sacct) share: their common options, what they left out, and the
 * jobs they built.  A reader's state begins with it, so gs_cimp_hist_next
 * serves as every such format's next hook. */
struct gs_cimp_hist {
    int skip;                   /* skip_bad_rows */
    int running_drop;           /* running "drop" */
    int keep_cpu;               /* the option named cpu_key: keep CPU jobs */
    struct gs_cimp_tiers tiers;
    struct gs_cimp_left left;
    struct gs_jlist jobs;
};
struct gs_scenario;
/* Read skip_bad_rows, running, tiers ("CLASS=tier,...", what names the
 * classes in the message: "priorityClassName", "QOS"), the boolean option
 * cpu_key and the path option nodes (resolved like the trace's, into
 * *nodes, which the caller frees; NULL when absent).  0 or a negative code with d filled. */
int gs_cimp_hist_options(struct gs_cimp_hist *h, const struct gs_scenario *sc,
                         struct gs_params *o, const char *cpu_key,
                         const char *what, char **nodes,
                         struct gs_diag *d);
/* The jobs built: sort them by arrival and number them 1..N, log "PATH: N
 * jobs DETAIL; time 0 is ..." and what was left out (of WHAT: "pods",
 * "rows"), and publish the history with its basis.  0 or GS_ENOMEM with d
 * filled. */
int gs_cimp_hist_finish(struct gs_cimp_hist *h, const char *path,
                        const char *what, int64_t origin_ms,
                        const char *detail, const char *basis,
                        struct gs_diag *d);
/* The trace format's next hook for a state that begins with a struct
 * gs_cimp_hist. */
int gs_cimp_hist_next(void *st, struct gs_jobspec *out, struct gs_diag *d);
/* A node of cpu milli-cores and mem MiB added to pool p (its first when
 * p->nodes is 0): a pool of a node list takes its smallest node's CPU and
 * memory, so that what fits the pool fits each of its nodes. */
struct gs_pool_spec;
void gs_cimp_pool_node(struct gs_pool_spec *p, int32_t cpu, int32_t mem);

/* Room for element n of the array *pv (a pointer to the array's pointer)
 * of *cap elements of size bytes: doubled (from 64) when n reaches *cap.
 * 0, or GS_ENOMEM with the array as it was. */
int gs_cimp_grow(void *pv, long *cap, long n, size_t size);
/* gs_cimp_grow for a list that grows with the trace (pods, sacct rows,
 * KSM series): before it grows, its new capacity is counted against the
 * memory budget (membudget.h) at `each` bytes an element -- for a job,
 * gs_cimp_job_bytes(size) -- so an export too large for the budget is
 * refused naming path (where) and the budget before it is held.  0,
 * GS_EINVAL (over the budget) or GS_ENOMEM, with d filled. */
int gs_cimp_grow_counted(void *pv, long *cap, long n, size_t size,
                         uint64_t each, const char *what, const char *path,
                         struct gs_diag *d);
/* What one job read by an importer into rows of size bytes costs until the
 * run ends: its row, its copy in the job list, its recorded wait in the
 * published history and the simulation's record of it. */
uint64_t gs_cimp_job_bytes(size_t size);
/* NULL-safe; frees what h holds, not h. */
void gs_cimp_hist_free(struct gs_cimp_hist *h);

#endif
