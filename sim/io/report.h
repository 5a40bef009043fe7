/* report.h -- the run summary as an aligned table, JSON or CSV.
 *
 * All three are printed from the same field tables (GS_TSTATS_FIELDS and the
 * scalar list in report.c), so they cannot disagree.  Output depends only on
 * the summary, never on wall time: the same scenario and seed print
 * byte-identical text. */
#ifndef GS_REPORT_H
#define GS_REPORT_H

#include "../core/sim.h"

#include <stdio.h>

/* Scalars of the summary: X(expr, name, printf format); expr reads su, a
 * const struct gs_summary *.  Every writer (table, JSON, CSV, the HDF5
 * /summary attributes, `gpusim compare`) iterates this one list. */
#define GS_SUMMARY_FIELDS(X)                                    \
    X(su->span_h, "span_h", "%.4f")                             \
    X(su->util, "utilization", "%.6f")                          \
    X(su->gpu_hours_used, "gpu_hours_used", "%.4f")             \
    X(su->gpu_hours_avail, "gpu_hours_available", "%.4f")       \
    X(su->cpu_util, "cpu_utilization", "%.6f")                  \
    X(su->mem_util, "memory_utilization", "%.6f")               \
    X(su->cpu_core_hours, "cpu_core_hours", "%.4f")             \
    X(su->stranded_gpu_hours, "stranded_gpu_hours", "%.4f")     \
    X(su->throughput_jph, "throughput_jobs_per_hour", "%.4f")   \
    X(su->cost, "cost_usd", "%.2f")                             \
    X(su->cost_per_used_gpu_hour, "cost_per_used_gpu_hour", "%.4f") \
    X((double)su->preemptions, "preemptions", "%.0f")           \
    X(su->fairness_var, "fairness_variance_min2", "%.4f")       \
    X((double)su->starved, "starved_jobs", "%.0f")              \
    X(su->fragmentation, "fragmentation", "%.6f")               \
    X(su->mig_slice_util, "mig_slice_utilization", "%.6f")      \
    X((double)su->mig_reconfigs, "mig_reconfigurations", "%.0f") \
    X((double)su->oom_kills, "oom_kills", "%.0f")               \
    X((double)su->reclaim_kills, "reclaim_kills", "%.0f")       \
    X((double)su->reclaim_evictions, "reclaim_evictions", "%.0f") \
    X(su->sharing_slowdown, "sharing_slowdown_mean", "%.6f")    \
    X(su->ts_p99_added_ms, "timeslice_p99_added_ms", "%.4f")    \
    GS_CLOUD_FIELDS(X)                                          \
    GS_INFER_FIELDS(X)

/* Inference services, all requests together (struct gs_infsum). */
#define GS_INFER_FIELDS(X)                                                  \
    X(su->inference.requests, "inference_requests", "%.0f")                 \
    X(su->inference.finished, "inference_finished", "%.0f")                 \
    X(su->inference.ttft_p50, "inference_ttft_p50_s", "%.6f")               \
    X(su->inference.ttft_p99, "inference_ttft_p99_s", "%.6f")               \
    X(su->inference.itl_p50, "inference_itl_p50_s", "%.6f")                 \
    X(su->inference.itl_p99, "inference_itl_p99_s", "%.6f")                 \
    X(su->inference.e2e_p99, "inference_e2e_p99_s", "%.6f")                 \
    X(su->inference.queue_p99, "inference_queue_p99_s", "%.6f")             \
    X(su->inference.attainment, "inference_sla_attainment", "%.6f")         \
    X(su->inference.goodput, "inference_goodput_rps", "%.6f")               \
    X(su->inference.tok_s_gpu, "inference_tokens_per_s_per_gpu", "%.4f")   \
    X(su->inference.cost_per_mtok, "inference_cost_per_mtok_usd", "%.6f")

/* The cloud models' scalars (struct gs_cloudsum, docs/cloud.md). */
#define GS_CLOUD_FIELDS(X)                                              \
    X(su->cloud.cost_market[0], "cost_on_demand_usd", "%.2f")           \
    X(su->cloud.cost_market[1], "cost_reserved_usd", "%.2f")            \
    X(su->cloud.cost_market[2], "cost_spot_usd", "%.2f")                \
    X(su->cloud.cost_market[3], "cost_capacity_block_usd", "%.2f")      \
    X(su->cloud.cost_jobs, "cost_jobs_usd", "%.2f")                     \
    X(su->cloud.cost_idle, "cost_idle_usd", "%.2f")                     \
    X(su->cloud.cost_ondemand_equiv, "cost_on_demand_equiv_usd", "%.2f") \
    X(su->cloud.spot_savings, "spot_savings_usd", "%.2f")               \
    X((double)su->cloud.spot_reclaims, "spot_interruptions", "%.0f")    \
    X((double)su->cloud.spot_restarts, "spot_restarts", "%.0f")         \
    X(su->cloud.spot_lost_gpu_h, "spot_lost_gpu_hours", "%.4f")         \
    X(su->cloud.spot_exposure_node_h, "spot_node_hours", "%.4f")        \
    X((double)su->cloud.gpu_failures, "gpu_failures", "%.0f")           \
    X((double)su->cloud.node_failures, "node_failures", "%.0f")         \
    X((double)su->cloud.degradations, "gpu_degradations", "%.0f")       \
    X((double)su->cloud.fail_restarts, "failure_restarts", "%.0f")      \
    X(su->cloud.fail_lost_gpu_h, "failure_lost_gpu_hours", "%.4f")      \
    X((double)su->cloud.denials, "job_denials", "%.0f")                 \
    X((double)su->cloud.spare_swaps, "spare_swaps", "%.0f")             \
    X(su->cloud.availability, "availability", "%.6f")                   \
    X(su->cloud.node_hours, "node_hours", "%.4f")                       \
    X(su->cloud.idle_node_hours, "idle_node_hours", "%.4f")             \
    X((double)su->cloud.launched, "nodes_launched", "%.0f")             \
    X((double)su->cloud.removed, "nodes_removed", "%.0f")               \
    X((double)su->cloud.drain_restarts, "drain_restarts", "%.0f")       \
    X(su->cloud.pend_to_cap_mean_s, "pending_to_capacity_mean_s", "%.3f") \
    X(su->cloud.pend_to_cap_max_s, "pending_to_capacity_max_s", "%.3f") \
    X((double)su->cloud.reaped, "jobs_reaped", "%.0f")

/* The per-tier statistics, in print order: X(field, label, unit). */
#define GS_TSTATS_FIELDS(X)                     \
    X(jobs, "jobs", "")                         \
    X(started, "started", "")                   \
    X(done, "done", "")                         \
    X(killed, "killed", "")                     \
    X(unfinished, "unfinished", "")             \
    X(wait_mean, "wait_mean_s", "s")            \
    X(wait_p50, "wait_p50_s", "s")              \
    X(wait_p95, "wait_p95_s", "s")              \
    X(wait_p99, "wait_p99_s", "s")              \
    X(wait_max, "wait_max_s", "s")              \
    X(jct_mean, "jct_mean_s", "s")              \
    X(jct_p50, "jct_p50_s", "s")                \
    X(jct_p95, "jct_p95_s", "s")                \
    X(jct_p99, "jct_p99_s", "s")                \
    X(sla_wait, "sla_wait_violations", "")      \
    X(sla_deadline, "deadline_misses", "")

/* Units and a one-line description of a result field or dataset column by
 * its name (a summary scalar, a per-tier statistic, a /jobs column, a
 * /timeseries series...): what the HDF5 file's "units" and "description"
 * attributes say.  Units follow UDUNITS spelling ("s", "h", "USD", "1" for
 * a dimensionless ratio or count).  0 when the name is known; -1 with
 * units derived from the name's suffix and a generic description
 * otherwise (never NULL). */
int gs_report_meta(const char *name, const char **units, const char **desc);

/* The summary as a table or JSON, ending with the question the run
 * answers (io/question.h; left out when its analysis runs out of memory).
 * The _q forms take that analysis made beforehand (q may be NULL), so a
 * caller can fail cleanly before it writes anything. */
struct gs_question;
void gs_report_table(FILE *fp, const struct gs_sim *s);
void gs_report_json(FILE *fp, const struct gs_sim *s);
void gs_report_table_q(FILE *fp, const struct gs_sim *s,
                       const struct gs_question *q);
void gs_report_json_q(FILE *fp, const struct gs_sim *s,
                      const struct gs_question *q);
void gs_report_csv(FILE *fp, const struct gs_sim *s);

#endif
