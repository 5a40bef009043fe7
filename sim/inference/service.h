/* service.h -- inference services on the cluster: replicas as jobs,
 * requests through routers to per-replica engines.
 *
 * The service model (service.c; its table of hooks is svcmodel.c's) is
 * one entry of the models table (model.h).  For each service of $.services it
 *   - submits one cluster job per replica (gs_sim_submit): the policy places
 *     it like any job of the service's tier, the node autoscaler may boot a
 *     node for it, and when it starts the replica loads its weights
 *     (weights per GPU / load bandwidth) before it serves;
 *   - feeds the request stream (a request trace through traces/llmreq.h, or
 *     a generator with a daily cycle) to the router as the clock reaches
 *     each arrival, and the router to the replicas' engines (llm.h);
 *   - drives each engine one iteration at a time, each iteration one event;
 *   - scales the replica count with the autoscaler (svcscale.h);
 *   - gives a preempted or killed replica's requests back to the router;
 *   - keeps one record per request and the /services time series.
 * Replica jobs carry the service's tenant and tier, so their GPU-hours and
 * cost land in the bill like any job's and conservation holds unchanged. */
#ifndef GS_SERVICE_H
#define GS_SERVICE_H

#include "../core/model.h"
#include "svccfg.h"

#include <stdint.h>

struct gs_sim;

extern const struct gs_model_ops gs_service_model;
/* The model's section of the scenario, $.services (svcparse.c; the
 * parser calls it through io/scsection.h's hooks). */
struct gs_sc_section;
extern const struct gs_sc_section gs_svc_section;

/* What a run says of one service (seconds, unless named otherwise). */
struct gs_svcsum {
    char name[64];
    long arrived, finished, dropped, inflight;  /* arrived = the other three */
    long restarted;             /* requests that lost their replica */
    double ttft[3], itl[3], e2e[3], queue[3];   /* p50, p95, p99 */
    double ttft_mean, itl_mean, e2e_mean, queue_mean;
    double ttft_at, itl_at;     /* at the SLA's percentiles */
    int sla_met;                /* -1: no targets; else both percentiles in */
    double sla_ttft_s, sla_itl_s;       /* the targets (0: none) */
    double sla_ttft_pct, sla_itl_pct;   /* and their percentiles */
    double attainment;          /* finished requests meeting every target /
                                   arrived */
    double goodput;             /* such requests per second of the span */
    double tokens_out, tokens_in;
    double tok_s_gpu;           /* output tokens / s / replica GPU */
    double gpu_hours;           /* replica jobs' allocated GPU-hours */
    double cost;                /* $ attributed to the replica jobs */
    double cost_per_mtok;       /* $ per million output tokens */
    double energy_kwh;          /* replica jobs' facility energy (energy.h) */
    double kwh_per_1k;          /* of it, per 1,000 finished requests */
    double carbon_kg;           /* their kg CO2e */
    double idle_kwh;            /* of energy_kwh: in no request (service.c:
                                   "Energy per request"); the requests'
                                   energy_j add up to the rest */
    double replicas_mean, replicas_max;
    long replica_starts, replica_losses;
    long engine_preemptions;
    double span_s;
};

/* Inference services, all services' requests together: the summary's
 * inference_* scalars (svcout.c). */
struct gs_infsum {
    double requests, finished;
    double ttft_p50, ttft_p99, itl_p50, itl_p99, e2e_p99, queue_p99;  /* s */
    double attainment;          /* requests meeting every target / arrived */
    double goodput;             /* such requests per second */
    double tok_s_gpu;           /* output tokens per replica GPU-second */
    double cost_per_mtok;       /* $ per million output tokens */
    double kwh_per_1k;          /* replicas' facility kWh per 1,000
                                   finished requests */
};

/* The summary's fields, for every writer: X(expression on `v`, name,
 * printf format, unit). */
#define GS_SVCSUM_FIELDS(X)                                                 \
    X(v->arrived, "requests_arrived", "%.0f", "1")                          \
    X(v->finished, "requests_finished", "%.0f", "1")                        \
    X(v->dropped, "requests_dropped", "%.0f", "1")                          \
    X(v->inflight, "requests_in_flight", "%.0f", "1")                       \
    X(v->restarted, "requests_restarted", "%.0f", "1")                      \
    X(v->ttft_mean, "ttft_mean_s", "%.6f", "s")                             \
    X(v->ttft[0], "ttft_p50_s", "%.6f", "s")                                \
    X(v->ttft[1], "ttft_p95_s", "%.6f", "s")                                \
    X(v->ttft[2], "ttft_p99_s", "%.6f", "s")                                \
    X(v->itl_mean, "itl_mean_s", "%.6f", "s")                               \
    X(v->itl[0], "itl_p50_s", "%.6f", "s")                                  \
    X(v->itl[1], "itl_p95_s", "%.6f", "s")                                  \
    X(v->itl[2], "itl_p99_s", "%.6f", "s")                                  \
    X(v->e2e_mean, "e2e_mean_s", "%.6f", "s")                               \
    X(v->e2e[0], "e2e_p50_s", "%.6f", "s")                                  \
    X(v->e2e[1], "e2e_p95_s", "%.6f", "s")                                  \
    X(v->e2e[2], "e2e_p99_s", "%.6f", "s")                                  \
    X(v->queue_mean, "queue_mean_s", "%.6f", "s")                           \
    X(v->queue[0], "queue_p50_s", "%.6f", "s")                              \
    X(v->queue[1], "queue_p95_s", "%.6f", "s")                              \
    X(v->queue[2], "queue_p99_s", "%.6f", "s")                              \
    X(v->sla_met, "sla_met", "%.0f", "1")                                   \
    X(v->attainment, "sla_attainment", "%.6f", "1")                         \
    X(v->goodput, "goodput_rps", "%.6f", "1/s")                             \
    X(v->tokens_out, "output_tokens", "%.0f", "1")                          \
    X(v->tok_s_gpu, "tokens_per_s_per_gpu", "%.4f", "1/s")                  \
    X(v->gpu_hours, "gpu_hours", "%.6f", "h")                               \
    X(v->cost, "cost_usd", "%.6f", "USD")                                   \
    X(v->cost_per_mtok, "cost_per_mtok_usd", "%.6f", "USD")                 \
    X(v->energy_kwh, "energy_kwh", "%.6f", "kWh")                           \
    X(v->kwh_per_1k, "kwh_per_1k_requests", "%.6f", "kWh")                  \
    X(v->carbon_kg, "carbon_kg", "%.6f", "kg")                              \
    X(v->idle_kwh, "energy_idle_kwh", "%.6f", "kWh")                        \
    X(v->replicas_mean, "replicas_mean", "%.4f", "1")                       \
    X(v->replicas_max, "replicas_max", "%.0f", "1")                         \
    X(v->replica_starts, "replica_starts", "%.0f", "1")                     \
    X(v->replica_losses, "replica_losses", "%.0f", "1")                     \
    X(v->engine_preemptions, "engine_preemptions", "%.0f", "1")

/* One request's record (HDF5 /requests). */
struct gs_reqrec {
    double arrival;             /* s, simulation clock */
    double first, end;          /* s, -1 if not reached */
    float queue;                /* s: TTFT less the unloaded prefill time */
    int32_t in, out;            /* tokens */
    int32_t cached;             /* prompt tokens from the prefix cache */
    int32_t replica;            /* last replica, -1 if none */
    int8_t state;               /* enum gs_reqstate */
    uint8_t restarts;
    int8_t egrp;                /* on a replica: its energy group (1
                                 * prefill, 2 decode; 0 none) */
    double energy_j;            /* facility J: its shares of its replicas'
                                 * iterations (service.c); while on a
                                 * replica, less that group's running
                                 * share per request */
};

enum gs_reqstate { GS_REQ_WAITING, GS_REQ_RUNNING, GS_REQ_TRANSFER,
                   GS_REQ_DONE, GS_REQ_DROPPED, GS_NREQSTATES };
const char *gs_reqstate_name(int st);

/* The /services time series: one row per sample per service. */
enum gs_svcol { GS_SVC_REPLICAS, GS_SVC_STARTING, GS_SVC_QUEUE,
                GS_SVC_RUNNING, GS_SVC_KV, GS_SVC_GPU_UTIL, GS_SVC_FB_USED,
                GS_SVC_POWER, GS_SVC_RATE, GS_NSVCOLS };
/* Column name, unit and description. */
const char *gs_svcol_name(int col);
const char *gs_svcol_unit(int col);
const char *gs_svcol_desc(int col);

/* The services' outputs (svcout.c; model.h's output hooks). */
#define GS_SVC_NFIELDS 13
extern const struct gs_field gs_svc_fields[];
void gs_svc_infsum_values(const struct gs_infsum *o, double *v);
void gs_svc_report(const struct gs_sim *s, const void *st, FILE *fp);
void gs_svc_json(const struct gs_sim *s, const void *st, FILE *fp);
void gs_svc_csv(const struct gs_sim *s, const void *st, FILE *fp);
void gs_svc_h5(const struct gs_sim *s, const void *st, struct gs_h5w *w);
int gs_svc_ntargets(const struct gs_scenario *sc);
void gs_svc_target_name(const struct gs_scenario *sc, int i, char *buf,
                        size_t n);
void gs_svc_target_values(const struct gs_scenario *sc,
                          const struct gs_sim *s, const void *st, double *v);
int gs_svc_target_check(const struct gs_scenario *sc, const char *metric,
                        char *why, size_t n);
void gs_svc_plan_report(const struct gs_sim *sim, const void *st, FILE *fp);
/* All services' requests together in run s (after it). */
const struct gs_infsum *gs_sim_services_all(const struct gs_sim *s);

/* --- results, valid after gs_sim_run -------------------------------------- */
int gs_sim_nservices(const struct gs_sim *s);
const struct gs_svcsum *gs_sim_service(const struct gs_sim *s, int i);
/* Service i's requests in arrival order (n of them). */
const struct gs_reqrec *gs_sim_service_requests(const struct gs_sim *s, int i,
                                                long *n);
/* Service i's samples: n rows at times t[] (s), GS_NSVCOLS values each. */
const double *gs_sim_service_series(const struct gs_sim *s, int i, long *n,
                                    const double **t);

#endif
