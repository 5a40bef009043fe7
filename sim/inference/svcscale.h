/* svcscale.h -- replica autoscaling for an inference service: Kubernetes HPA
 * and KEDA semantics, plus predictive scaling ahead of a Holt-Winters forecast.
 *
 * A self-contained library: it knows nothing of the simulation.  The caller
 * (the service model) owns the replicas; this module only says how many there
 * should be.  The protocol is
 *
 *     gs_svcscale_cfg_parse(obj, ...)         once, from the scenario object
 *     gs_svcscale_new(&cfg, start, ..., &st)  once, when the service starts
 *     loop:
 *         t = gs_svcscale_next(st)            schedule an event at t
 *         at t: fill a gs_svcscale_sample, n = gs_svcscale_observe(st, t, &s, &t2)
 *               start replicas while ready + starting < n,
 *               drain replicas while ready + starting > n (starting ones first,
 *               the caller's choice), schedule the next call at t2.
 *     gs_svcscale_free(st)
 *
 * The caller's contract: after each observe(), ready + starting equals the
 * count returned (the scale target's spec.replicas); a replica lost to a
 * preemption, spot reclaim or failure is replaced and counts as starting
 * again, as a ReplicaSet would do; draining replicas count in neither.
 * "current" below is that count.
 *
 * Evaluations happen on a fixed grid: HPA evaluations at start +
 * k * sync_period, KEDA activity checks at start + k * polling_interval (only
 * when min_replicas is 0).  An observe() at or after a due instant runs that
 * evaluation once with the sample given (instants the caller skipped are not
 * replayed) and moves on to the next grid instant after now; an observe()
 * between instants changes nothing and returns the last decision.  All
 * arithmetic is on the caller's numbers and integer milliseconds, so the
 * same samples give the same decisions.
 *
 * The rules (each default is the upstream one; docs/inference.md
 * "Autoscaling" gives sources and worked examples):
 *
 *  HPA (k8s.io/kubernetes pkg/controller/podautoscaler, autoscaling/v2):
 *   - per metric, a proposal.  Per-replica gauges (gpu_util, kv_cache:
 *     "Pods" metrics, target average_value) are averages over READY replicas;
 *     with r = metric / target, a change only outside the tolerance band
 *     1 - scale_down.tolerance <= r <= 1 + scale_up.tolerance (both the
 *     global `tolerance` unless set, as in Kubernetes 1.33),
 *     proposal = ceil(r * ready).  Starting replicas count as unready: when
 *     r > 1 they are assumed at 0 and r is recomputed over ready + starting;
 *     if that flips the direction or lands in the tolerance band, no change.
 *     Service-wide quantities (waiting_requests, request_rate, ttft_p95:
 *     "External" metrics) take average_value (per replica: r = total /
 *     (target * (ready + starting)), proposal = ceil(total / target)) or
 *     value (r = value / target, proposal = ceil(r * ready)).  Inside the
 *     tolerance band the proposal is the current count.
 *   - several metrics: the largest proposal.  A metric with no value (NaN in
 *     the sample, or no ready replica for a gauge) is invalid; if all are
 *     invalid, or some are and the rest propose a scale-down, nothing changes
 *     (HPA refuses to act on partial information when shrinking).
 *   - behavior: the recommendation is stabilized (scale-up: the minimum of
 *     the proposals of the last scale_up.stabilization_window; scale-down: the
 *     maximum over scale_down.stabilization_window), then rate-limited by the
 *     policies (pods: at most `value` replicas per `period`; percent: at most
 *     `value`% of the replicas at the period's start, scale-up rounded up,
 *     scale-down truncated), combined by select_policy max/min, or disabled.
 *     Defaults: scale_up window 0, policies percent 100 and pods 4 per 15 s,
 *     select max; scale_down window 300 s, percent 100 per 15 s, select max.
 *   - min_replicas / max_replicas clamp the result; a replica count outside
 *     them is brought inside at the next evaluation.
 *  KEDA (keda.sh ScaledObject; only when min_replicas is 0):
 *   - every polling_interval (default 30 s) each trigger (each metric, and
 *     the predictive forecast) is active when its service-wide value exceeds
 *     its `activation` (default 0).  Gauges cannot be active at 0 replicas.
 *   - at 0 replicas and any trigger active: scale to 1 (the caller boots it:
 *     GPUs, node, weights: the cold start).  While active, last_active = now.
 *   - at > 0 replicas and no trigger active for longer than cooldown_period
 *     (default 300 s; strictly: last_active + cooldown < now): scale to 0.
 *   - at 0 replicas the HPA part does nothing; above 0 it works with a floor
 *     of 1.
 *  Predictive (optional `predictive` object):
 *   - the request rate (from the cumulative `arrivals` counter) is averaged
 *     over buckets of `step` (default 5 min, a multiple of sync_period) and
 *     fed to a Holt-Winters model with a season of `season` (default 1 d);
 *     after one full season it forecasts.  Unless alpha, beta or gamma is
 *     configured, they are refitted at the end of every season from the
 *     second on (least squares on one-step forecasts over the last three
 *     seasons at most, gs_hw_fit) and the model is rebuilt from that
 *     history.  The predictive proposal is
 *     ceil(max forecast over [now, now + lead] / capacity), `capacity` being
 *     the requests/s one replica sustains; it joins the metric proposals
 *     (the max wins) as an External average_value metric would.
 *
 * Units: times are gs_time milliseconds; gpu_util percent 0..100 (as
 * DCGM_FI_DEV_GPU_UTIL), kv_cache a fraction 0..1 (as vLLM's
 * gpu_cache_usage_perc), ttft_p95 seconds, request_rate requests/s. */
#ifndef GS_SVCSCALE_H
#define GS_SVCSCALE_H

#include "../core/engine.h"
#include "../base/err.h"
#include "../base/forecast.h"

struct gs_json;

/* The metrics a replica count can follow. */
enum gs_svcscale_metric {
    GS_SCM_GPU_UTIL,        /* "gpu_util": mean DCGM_FI_DEV_GPU_UTIL (%) over ready replicas */
    GS_SCM_KV_CACHE,        /* "kv_cache": mean KV-cache usage (0..1) over ready replicas */
    GS_SCM_WAITING,         /* "waiting_requests": requests queued, whole service */
    GS_SCM_TTFT_P95,        /* "ttft_p95": p95 TTFT (s) of requests whose first token came in the last `window` */
    GS_SCM_RATE,            /* "request_rate": arrivals/s over the last `window` (from `arrivals`) */
    GS_SCM_NKINDS
};

/* Name of a metric kind ("gpu_util", ...), or NULL. */
const char *gs_svcscale_metric_name(int kind);

enum gs_svcscale_target { GS_SCT_AVERAGE_VALUE, GS_SCT_VALUE };

#define GS_SVCSCALE_MAX_METRICS  8
#define GS_SVCSCALE_MAX_POLICIES 4

struct gs_svcscale_metric_cfg {
    int kind;                   /* enum gs_svcscale_metric */
    int target_type;            /* enum gs_svcscale_target; gauges: average_value only */
    double target;              /* > 0, in the metric's unit (ttft_p95: seconds) */
    double activation;          /* KEDA activationThreshold, default 0 */
    gs_time window;             /* ttft_p95, request_rate: look-back (default 1 min) */
};

enum gs_svcscale_policy_type { GS_SCP_PODS, GS_SCP_PERCENT };
enum gs_svcscale_select { GS_SCS_MAX, GS_SCS_MIN, GS_SCS_DISABLED };

struct gs_svcscale_policy {
    int type;                   /* enum gs_svcscale_policy_type */
    int value;                  /* replicas, or percent; > 0 */
    gs_time period;             /* > 0 */
};

struct gs_svcscale_rules {
    double tolerance;           /* the band on this side of 1 (the parser
                                   copies the global tolerance unless given) */
    gs_time stabilization_window;
    int select;                 /* enum gs_svcscale_select */
    int npolicies;
    struct gs_svcscale_policy policy[GS_SVCSCALE_MAX_POLICIES];
};

struct gs_svcscale_predict_cfg {
    int on;
    double capacity;            /* req/s one replica sustains; <= 0: the caller must set it */
    gs_time lead;               /* forecast look-ahead; cover boot + weight load */
    gs_time step;               /* bucket of the forecast series, multiple of sync_period */
    double activation;          /* KEDA trigger on the forecast rate, default 0 */
    struct gs_hw_cfg hw;        /* Holt-Winters parameters; hw.season is set from `season` / `step` */
    gs_time season;             /* default 1 d; a multiple of step */
    int fit;                    /* refit alpha, beta, gamma each season (on
                                   when none of them is configured) */
};

struct gs_svcscale_cfg {
    int min_replicas;           /* default 1 (HPA); 0 turns on KEDA's scale to zero */
    int max_replicas;           /* default 100 (KEDA's maxReplicaCount) */
    gs_time sync_period;        /* HPA's --horizontal-pod-autoscaler-sync-period, 15 s */
    double tolerance;           /* HPA's --horizontal-pod-autoscaler-tolerance, 0.1 */
    gs_time polling_interval;   /* KEDA pollingInterval, 30 s */
    gs_time cooldown_period;    /* KEDA cooldownPeriod, 300 s */
    int nmetrics;
    struct gs_svcscale_metric_cfg metric[GS_SVCSCALE_MAX_METRICS];
    struct gs_svcscale_rules up, down;
    struct gs_svcscale_predict_cfg predict;
};

/* Fill cfg with the defaults above (no metrics, no prediction). */
void gs_svcscale_cfg_default(struct gs_svcscale_cfg *cfg);

/* Parse an autoscaler object into cfg (defaults first).  `file` and `path`
 * name it in messages ("scen.json", "$.services[0].autoscaler").  Keys:
 *   min_replicas, max_replicas, sync_period, tolerance, polling_interval,
 *   cooldown_period,
 *   metrics: [{metric, average_value | value, activation, window}],
 *   behavior: {scale_up | scale_down: {stabilization_window, tolerance,
 *              select_policy: "max"|"min"|"disabled",
 *              policies: [{type: "pods"|"percent", value, period}]}},
 *   predictive: {lead, capacity, step, season, model: "additive" |
 *                "multiplicative", alpha, beta, gamma, activation}.
 * Durations are seconds or strings ("15s", "5m").  Unknown keys and wrong
 * values are GS_EINVAL with d naming the JSON path.  Validation that needs
 * no caller input happens here (e.g. step a multiple of sync_period). */
/* The autoscaler object's key table (io/keytab.h), which the parser reads
 * through and the scenario's JSON Schema prints. */
struct gs_kt_obj;
extern const struct gs_kt_obj gs_svcscale_table;

int gs_svcscale_cfg_parse(const struct gs_json *obj, const char *file,
                          const char *path, struct gs_svcscale_cfg *cfg,
                          struct gs_diag *d);

/* What the caller measured, at the evaluation instant. */
struct gs_svcscale_sample {
    int ready;                  /* replicas serving */
    int starting;               /* replicas asked for and not yet serving
                                   (waiting for GPUs, a node, or loading weights) */
    double gpu_util;            /* mean DCGM_FI_DEV_GPU_UTIL over ready replicas
                                   (%, the share of the last sample period a
                                   kernel ran); NaN if none is ready */
    double kv_cache;            /* mean KV blocks used / blocks, over ready
                                   replicas, 0..1; NaN if none is ready */
    double waiting;             /* requests arrived and not yet admitted to a
                                   batch: the router's queue plus every
                                   replica's waiting queue (vLLM's
                                   num_requests_waiting, summed) */
    double ttft_p95;            /* s, p95 TTFT of the requests whose first token
                                   came in the last gs_svcscale_ttft_window();
                                   NaN when there was none */
    double arrivals;            /* requests arrived since the start, cumulative;
                                   NaN or a value below the previous one gives
                                   no request rate at this instant */
};

struct gs_svcscale;

/* A scaler starting at `start` (the first evaluation is at start) with
 * `replicas` replicas.  0, or GS_EINVAL (with d) when cfg is inconsistent,
 * e.g. predictive on and capacity not > 0, or GS_ENOMEM.  cfg is copied. */
int gs_svcscale_new(const struct gs_svcscale_cfg *cfg, gs_time start,
                    int replicas, struct gs_svcscale **out, struct gs_diag *d);
void gs_svcscale_free(struct gs_svcscale *st);

/* When the next evaluation is due. */
gs_time gs_svcscale_next(const struct gs_svcscale *st);

/* Run the evaluations due at or before now with sample s (its values are
 * taken as current at now); return the desired replica count, in
 * [0, max_replicas], and set *next (may be NULL) to the next due time.
 * now must not go backwards. */
int gs_svcscale_observe(struct gs_svcscale *st, gs_time now,
                        const struct gs_svcscale_sample *s, gs_time *next);

/* Why the last evaluation decided what it did (for time series and logs). */
enum gs_svcscale_reason {
    GS_SCR_NONE,            /* no evaluation yet */
    GS_SCR_STEADY,          /* proposal equals the current count */
    GS_SCR_TOLERANCE,       /* every valid metric within tolerance */
    GS_SCR_INVALID,         /* missing metrics: no change */
    GS_SCR_SCALE,           /* scaled to the stabilized proposal */
    GS_SCR_STABILIZED,      /* a stabilization window held the count */
    GS_SCR_LIMITED,         /* a scaling policy or min/max capped the step */
    GS_SCR_ACTIVATE,        /* KEDA: 0 -> 1 */
    GS_SCR_TO_ZERO,         /* KEDA: -> 0 after the cooldown */
    GS_SCR_IDLE             /* KEDA: at 0, no trigger active */
};

struct gs_svcscale_status {
    int desired;                /* the last decision */
    int reason;                 /* enum gs_svcscale_reason */
    int proposal;               /* max over metric proposals (-1: none valid) */
    int metric_proposal[GS_SVCSCALE_MAX_METRICS];   /* -1: invalid */
    int predicted;              /* predictive proposal, -1 when none */
    double forecast;            /* max forecast rate over the lead, NaN when none */
    double rate;                /* measured request rate used, NaN when none */
    gs_time last_active;        /* KEDA; -1 when never */
    double alpha, beta, gamma;  /* the forecast's smoothing factors in use */
};

void gs_svcscale_status(const struct gs_svcscale *st,
                        struct gs_svcscale_status *out);

/* For the caller: the configured look-back of ttft_p95 (0 when unused). */
gs_time gs_svcscale_ttft_window(const struct gs_svcscale_cfg *cfg);

#endif
