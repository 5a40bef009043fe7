/* svcscale.c -- replica autoscaling for an inference service (see svcscale.h).
 *
 * This file re-states, in simulated time, what two controllers do in a real
 * cluster, so that a planner's replica timeline is the one production would
 * show:
 *
 *  - the Kubernetes Horizontal Pod Autoscaler (autoscaling/v2, the controller
 *    in k8s.io/kubernetes pkg/controller/podautoscaler: replica_calculator.go
 *    for the per-metric proposals, horizontal.go for stabilization and the
 *    scaling policies).  Every sync period (--horizontal-pod-autoscaler-sync-
 *    period, 15 s) it turns each metric into a proposal, takes the largest,
 *    stabilizes it against the proposals of the last window (records strictly
 *    newer than now - window count, as Go's time.After does), limits the step
 *    by the policies against the scale events of each policy's period
 *    (again strictly newer than now - period), and clamps to [min, max].
 *    The recommendation history starts with the replica count at creation,
 *    as the controller's maybeInitScaleDownStabilizationWindow does, so the
 *    first scale-down waits a full window.
 *  - KEDA (keda.sh, ScaledObject), which owns the 0 <-> 1 step: it polls its
 *    triggers every pollingInterval (30 s), scales 0 -> 1 when one is active
 *    (value > activationThreshold), and 1.. -> 0 when none has been active
 *    for cooldownPeriod (300 s).  Above zero it leaves the count to the HPA
 *    it created, whose floor is max(minReplicaCount, 1).  When both run at
 *    one instant, KEDA goes first and an HPA evaluation that would act on a
 *    count KEDA just changed is skipped (its sample predates the change).
 *
 * "current" is the count this module last asked for (the scale target's
 * spec.replicas); the caller keeps ready + starting equal to it, replacing
 * replicas it loses as a ReplicaSet would.  The sample's ready and starting
 * counts enter where the HPA uses pod counts (readiness, status.replicas).
 *
 * Predictive scaling feeds bucket averages of the request rate to a
 * Holt-Winters model (forecast.c) and proposes ceil(max forecast over
 * [now, now + lead] / capacity): the max over the whole look-ahead, because a
 * replica released now and needed again before now + lead could not be back
 * in time.  The proposal enters like an External AverageValue metric (same
 * tolerance rule) and, when min_replicas is 0, as a KEDA trigger.  Until the
 * model has a full season it does not vote (it is not an "invalid" metric,
 * which would freeze scale-down for a day).
 *
 * Bookkeeping is small and bounded: recommendation records within the
 * longest stabilization window, scale events within the longest policy
 * period, arrival counts within the longest rate window, one season of
 * forecast state. */
#include "svcscale.h"
#include "../io/jsonio.h"
#include "../io/keytab.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[GS_SCM_NKINDS + 1] = {
    [GS_SCM_GPU_UTIL] = "gpu_util",
    [GS_SCM_KV_CACHE] = "kv_cache",
    [GS_SCM_WAITING] = "waiting_requests",
    [GS_SCM_TTFT_P95] = "ttft_p95",
    [GS_SCM_RATE] = "request_rate",
};

const char *gs_svcscale_metric_name(int kind)
{
    return kind >= 0 && kind < GS_SCM_NKINDS ? metric_names[kind] : NULL;
}

static int is_gauge(int kind)
{
    return kind == GS_SCM_GPU_UTIL || kind == GS_SCM_KV_CACHE;
}

/* --- configuration -------------------------------------------------------- */

void gs_svcscale_cfg_default(struct gs_svcscale_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->min_replicas = 1;
    c->max_replicas = 100;
    c->sync_period = 15 * GS_SEC;
    c->tolerance = 0.1;
    c->polling_interval = 30 * GS_SEC;
    c->cooldown_period = 300 * GS_SEC;
    c->up = (struct gs_svcscale_rules){
        .tolerance = 0.1, .stabilization_window = 0, .select = GS_SCS_MAX, .npolicies = 2,
        .policy = { { GS_SCP_PERCENT, 100, 15 * GS_SEC },
                    { GS_SCP_PODS, 4, 15 * GS_SEC } } };
    c->down = (struct gs_svcscale_rules){
        .tolerance = 0.1, .stabilization_window = 300 * GS_SEC, .select = GS_SCS_MAX,
        .npolicies = 1, .policy = { { GS_SCP_PERCENT, 100, 15 * GS_SEC } } };
    c->predict.lead = 10 * GS_MIN;
    c->predict.step = 5 * GS_MIN;
    c->predict.season = GS_DAY;
    c->predict.fit = 1;
    gs_hw_cfg_default(&c->predict.hw);
}

gs_time gs_svcscale_ttft_window(const struct gs_svcscale_cfg *cfg)
{
    gs_time w = 0;
    for (int i = 0; i < cfg->nmetrics; i++)
        if (cfg->metric[i].kind == GS_SCM_TTFT_P95 && cfg->metric[i].window > w)
            w = cfg->metric[i].window;
    return w;
}

/* The key tables of the autoscaler object (io/keytab.h): the parser below
 * checks keys through them; `gpusim scenario --schema` prints them. */
static const char *const select_names[] = { "max", "min", "disabled", NULL };
static const char *const policy_names[] = { "pods", "percent", NULL };
static const char *const model_names[] = { "additive", "multiplicative",
                                           NULL };

static const struct gs_kt_key k_metric[] = {
    { .name = "metric", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 31,
      .names = metric_names, .desc = "what is measured" },
    { .name = "average_value", .type = GS_KT_NUM | GS_KT_DUR, .lo = 0,
      .hi = 1e12, .desc = "target per replica (gauges: gpu_util in "
      "percent, kv_cache a share; waiting_requests, request_rate)" },
    { .name = "value", .type = GS_KT_NUM | GS_KT_DUR, .lo = 0, .hi = 1e12,
      .desc = "target for the whole service (ttft_p95: a duration)" },
    { .name = "activation", .type = GS_KT_NUM | GS_KT_DUR, .lo = 0,
      .hi = 1e12, .desc = "KEDA's activation threshold" },
    { .name = "window", .type = GS_KT_DUR, .unit = "s", .desc = "ttft_p95 "
      "and request_rate: the window measured, 1 s to 1 d (default 60 s)" },
    { .name = NULL }
};

static const struct gs_kt_rule r_metric[] = {
    { .cond = GS_KC_ALWAYS, .one = "average_value value" },
    { .cond = GS_KC_IS, .key = "metric", .val = "ttft_p95",
      .forbid = "average_value" },
    { .cond = GS_KC_IS, .key = "metric", .val = "gpu_util",
      .forbid = "value window" },
    { .cond = GS_KC_IS, .key = "metric", .val = "kv_cache",
      .forbid = "value window" },
    { .cond = GS_KC_IS, .key = "metric", .val = "waiting_requests",
      .forbid = "window" },
    { 0 }
};

static const struct gs_kt_obj t_metric = {
    .id = "scale_metric", .desc = "a metric and its target",
    .keys = k_metric, .rules = r_metric
};

static const struct gs_kt_key k_policy[] = {
    { .name = "type", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 15,
      .names = policy_names, .desc = "replicas (pods) or a percentage" },
    { .name = "value", .type = GS_KT_INT, .flags = GS_KF_REQ, .lo = 1,
      .hi = 100000, .desc = "how many (or what percentage)" },
    { .name = "period", .type = GS_KT_DUR, .flags = GS_KF_REQ, .unit = "s",
      .desc = "per this period, 1 s to 1800 s" },
    { .name = NULL }
};

static const struct gs_kt_obj t_policy = {
    .id = "scale_policy", .desc = "a scaling policy (the HPA's)",
    .keys = k_policy
};

static const struct gs_kt_key k_rules[] = {
    { .name = "stabilization_window", .type = GS_KT_DUR, .unit = "s",
      .desc = "the HPA's stabilization window, at most 3600 s" },
    { .name = "select_policy", .type = GS_KT_STR, .maxlen = 15,
      .names = select_names, .desc = "which policy's change applies" },
    { .name = "policies", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .obj = &t_policy, .min_items = 1, .max_items = GS_SVCSCALE_MAX_POLICIES,
      .desc = "scaling policies" },
    { .name = "tolerance", .type = GS_KT_NUM, .lo = 0, .hi = 0.99,
      .desc = "change ignored below this share" },
    { .name = NULL }
};

static const struct gs_kt_obj t_rules = {
    .id = "scale_rules", .desc = "the HPA's behavior in one direction",
    .keys = k_rules
};

static const struct gs_kt_key k_behavior[] = {
    { .name = "scale_up", .type = GS_KT_OBJ, .obj = &t_rules,
      .desc = "rules for scaling up" },
    { .name = "scale_down", .type = GS_KT_OBJ, .obj = &t_rules,
      .desc = "rules for scaling down" },
    { .name = NULL }
};

static const struct gs_kt_obj t_behavior = {
    .id = "scale_behavior", .desc = "the HPA's behavior",
    .keys = k_behavior
};

static const struct gs_kt_key k_predict[] = {
    { .name = "lead", .type = GS_KT_DUR, .unit = "s",
      .desc = "how far ahead it scales (at most the season)" },
    { .name = "capacity", .type = GS_KT_NUM, .lo = 0, .hi = 1e12,
      .unit = "1/s", .desc = "requests/s one replica sustains (> 0)" },
    { .name = "step", .type = GS_KT_DUR, .unit = "s",
      .desc = "the forecast's step, a multiple of sync_period" },
    { .name = "season", .type = GS_KT_DUR, .unit = "s",
      .desc = "the season, 2 to 100000 steps" },
    { .name = "model", .type = GS_KT_STR, .maxlen = 31, .names = model_names,
      .desc = "Holt-Winters' seasonality" },
    { .name = "alpha", .type = GS_KT_NUM, .lo = 1e-9, .hi = 1,
      .desc = "level smoothing (absent with beta, gamma: fitted)" },
    { .name = "beta", .type = GS_KT_NUM, .lo = 0, .hi = 1,
      .desc = "trend smoothing" },
    { .name = "gamma", .type = GS_KT_NUM, .lo = 0, .hi = 1,
      .desc = "season smoothing" },
    { .name = "activation", .type = GS_KT_NUM, .lo = 0, .hi = 1e12,
      .desc = "activation threshold" },
    { .name = NULL }
};

static const struct gs_kt_obj t_predict = {
    .id = "scale_predictive", .desc = "scaling ahead of a Holt-Winters "
    "forecast", .keys = k_predict
};

static const struct gs_kt_key k_autoscaler[] = {
    { .name = "min_replicas", .type = GS_KT_INT, .lo = 0, .hi = 100000,
      .desc = "least replicas (0: scale to zero)" },
    { .name = "max_replicas", .type = GS_KT_INT, .lo = 1, .hi = 100000,
      .desc = "most replicas" },
    { .name = "sync_period", .type = GS_KT_DUR, .unit = "s",
      .desc = "the HPA's period, 1 s to 1 h" },
    { .name = "tolerance", .type = GS_KT_NUM, .lo = 0, .hi = 0.99,
      .desc = "change ignored below this share" },
    { .name = "polling_interval", .type = GS_KT_DUR, .unit = "s",
      .desc = "KEDA's polling interval, 1 s to 1 h" },
    { .name = "cooldown_period", .type = GS_KT_DUR, .unit = "s",
      .desc = "KEDA's wait before scaling to zero" },
    { .name = "metrics", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .obj = &t_metric, .max_items = GS_SVCSCALE_MAX_METRICS,
      .desc = "metrics and targets" },
    { .name = "behavior", .type = GS_KT_OBJ, .obj = &t_behavior,
      .desc = "stabilization windows and scaling policies" },
    { .name = "predictive", .type = GS_KT_OBJ, .obj = &t_predict,
      .desc = "scale ahead of a forecast" },
    { .name = NULL }
};

static const struct gs_kt_rule r_autoscaler[] = {
    { .cond = GS_KC_ALWAYS, .any = "metrics predictive" },
    { 0 }
};

const struct gs_kt_obj gs_svcscale_table = {
    .id = "replica_autoscaler", .desc = "a service's replica autoscaler "
    "(the HPA's and KEDA's rules; docs/inference.md#autoscaling)",
    .keys = k_autoscaler, .rules = r_autoscaler
};

/* Which of s's names v is, or an error at path listing them. */
static int pick(const struct gs_jin *c, const char *path, const char *v,
                const char *const *names, int n, int *out)
{
    char list[256] = "";
    for (int i = 0; i < n; i++) {
        if (names[i] && strcmp(v, names[i]) == 0) {
            *out = i;
            return 0;
        }
        if (names[i]) {
            strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, names[i], sizeof list - strlen(list) - 1);
        }
    }
    return gs_json_err(c, path, "unknown value '%s' (known: %s)", v, list);
}

static int parse_metric(const struct gs_jin *c, const struct gs_json *o,
                        const char *p, struct gs_svcscale_metric_cfg *m)
{
    char name[32] = "";
    GS_JSON_PATH(q);
    int rc = gs_kt_keys(c, o, p, &t_metric);
    if (rc == 0)
        rc = gs_kt_str(c, o, p, &t_metric, "metric", name, sizeof name);
    gs_json_path_key(&q, p, "metric");
    if (rc == 0)
        rc = pick(c, q, name, metric_names, GS_SCM_NKINDS, &m->kind);
    if (rc < 0)
        return rc;
    int has_avg = gs_json_get(o, "average_value") != NULL;
    int has_val = gs_json_get(o, "value") != NULL;
    if (has_avg == has_val)
        return gs_json_err(c, p, "give exactly one of 'average_value' (per "
                           "replica) and 'value' (whole service)");
    m->target_type = has_avg ? GS_SCT_AVERAGE_VALUE : GS_SCT_VALUE;
    if (is_gauge(m->kind) && has_val) {
        gs_json_path_key(&q, p, "value");
        return gs_json_err(c, q, "%s is a per-replica gauge: its target is "
                           "an 'average_value'", name);
    }
    if (m->kind == GS_SCM_TTFT_P95 && has_avg) {
        gs_json_path_key(&q, p, "average_value");
        return gs_json_err(c, q, "ttft_p95 is a latency of the whole "
                           "service: its target is a 'value'");
    }
    const char *tk = has_avg ? "average_value" : "value";
    m->window = 60 * GS_SEC;
    if (m->kind == GS_SCM_TTFT_P95) {
        gs_time t = 0, a = 0;
        rc = gs_json_time(c, o, p, tk, 1, &t);
        if (rc == 0 && t <= 0) {
            gs_json_path_key(&q, p, tk);
            rc = gs_json_err(c, q, "must be > 0");
        }
        if (rc == 0)
            rc = gs_json_time(c, o, p, "activation", 0, &a);
        m->target = (double)t / 1000.0;
        m->activation = (double)a / 1000.0;
    } else {
        double hi = m->kind == GS_SCM_GPU_UTIL ? 100.0
                  : m->kind == GS_SCM_KV_CACHE ? 1.0 : 1e12;
        rc = gs_json_num(c, o, p, tk, 0, hi, 1, &m->target);
        if (rc == 0 && !(m->target > 0)) {
            gs_json_path_key(&q, p, tk);
            rc = gs_json_err(c, q, "must be > 0");
        }
        if (rc == 0)
            rc = gs_json_num(c, o, p, "activation", 0, 1e12, 0,
                             &m->activation);
    }
    if (rc == 0 && gs_json_get(o, "window")) {
        if (m->kind != GS_SCM_TTFT_P95 && m->kind != GS_SCM_RATE) {
            gs_json_path_key(&q, p, "window");
            return gs_json_err(c, q, "only ttft_p95 and request_rate take a "
                               "window");
        }
        rc = gs_json_time(c, o, p, "window", 0, &m->window);
        if (rc == 0 && (m->window < GS_SEC || m->window > GS_DAY)) {
            gs_json_path_key(&q, p, "window");
            rc = gs_json_err(c, q, "must be between 1 s and 1 d");
        }
    }
    return rc;
}

static int parse_rules(const struct gs_jin *c, const struct gs_json *o,
                       const char *p, struct gs_svcscale_rules *r)
{
    char sel[16] = "";
    GS_JSON_PATH(q);
    int rc = gs_kt_keys(c, o, p, &t_rules);
    if (rc == 0)
        rc = gs_kt_num(c, o, p, &t_rules, "tolerance", &r->tolerance);
    if (rc == 0)
        rc = gs_kt_time(c, o, p, &t_rules, "stabilization_window",
                        &r->stabilization_window);
    gs_json_path_key(&q, p, "stabilization_window");
    if (rc == 0 && r->stabilization_window > 3600 * GS_SEC)
        rc = gs_json_err(c, q, "at most 3600 s (as in the HPA's API)");
    if (rc == 0)
        rc = gs_kt_str(c, o, p, &t_rules, "select_policy", sel,
                       sizeof sel);
    gs_json_path_key(&q, p, "select_policy");
    if (rc == 0 && sel[0])
        rc = pick(c, q, sel, select_names, 3, &r->select);
    const struct gs_json *a = gs_json_get(o, "policies");
    if (rc < 0 || a == NULL)
        return rc;
    gs_json_path_key(&q, p, "policies");
    if (!gs_json_is_array(a) || gs_json_first(a) == NULL)
        return gs_json_err(c, q, "expected a non-empty array of "
                           "{\"type\", \"value\", \"period\"}");
    r->npolicies = 0;
    int i = 0;
    for (const struct gs_json *e = gs_json_first(a); e && rc == 0;
         e = gs_json_next(e), i++) {
        char ty[16] = "";
        GS_JSON_PATH(ep);
        GS_JSON_PATH(tq);
        gs_json_path_at(&ep, q, i);
        if (i >= GS_SVCSCALE_MAX_POLICIES)
            return gs_json_err(c, ep, "at most %d policies",
                               GS_SVCSCALE_MAX_POLICIES);
        struct gs_svcscale_policy *pol = &r->policy[i];
        long v = 0;
        pol->period = 0;
        rc = gs_kt_keys(c, e, ep, &t_policy);
        if (rc == 0)
            rc = gs_kt_str(c, e, ep, &t_policy, "type", ty, sizeof ty);
        gs_json_path_key(&tq, ep, "type");
        if (rc == 0)
            rc = pick(c, tq, ty, policy_names, 2, &pol->type);
        if (rc == 0)
            rc = gs_kt_int(c, e, ep, &t_policy, "value", &v);
        pol->value = (int)v;
        if (rc == 0)
            rc = gs_kt_time(c, e, ep, &t_policy, "period", &pol->period);
        gs_json_path_key(&tq, ep, "period");
        if (rc == 0 && (pol->period < GS_SEC || pol->period > 1800 * GS_SEC))
            rc = gs_json_err(c, tq, "must be between 1 s and 1800 s (as in "
                             "the HPA's API)");
        r->npolicies = i + 1;
    }
    return rc;
}

static int parse_predict(const struct gs_jin *c, const struct gs_json *o,
                         const char *p, struct gs_svcscale_predict_cfg *pr)
{
    char model[32] = "";
    GS_JSON_PATH(q);
    pr->on = 1;
    int rc = gs_kt_keys(c, o, p, &t_predict);
    if (rc == 0)
        rc = gs_kt_time(c, o, p, &t_predict, "lead", &pr->lead);
    if (rc == 0)
        rc = gs_kt_num(c, o, p, &t_predict, "capacity", &pr->capacity);
    if (rc == 0 && gs_json_get(o, "capacity") && !(pr->capacity > 0)) {
        gs_json_path_key(&q, p, "capacity");
        rc = gs_json_err(c, q, "must be > 0 (requests/s one replica "
                         "sustains)");
    }
    if (rc == 0)
        rc = gs_kt_time(c, o, p, &t_predict, "step", &pr->step);
    if (rc == 0)
        rc = gs_kt_time(c, o, p, &t_predict, "season", &pr->season);
    if (rc == 0)
        rc = gs_kt_str(c, o, p, &t_predict, "model", model, sizeof model);
    gs_json_path_key(&q, p, "model");
    if (rc == 0 && model[0])
        rc = pick(c, q, model, model_names, 2, &pr->hw.kind);
    if (rc == 0)
        rc = gs_kt_num(c, o, p, &t_predict, "alpha", &pr->hw.alpha);
    if (rc == 0)
        rc = gs_kt_num(c, o, p, &t_predict, "beta", &pr->hw.beta);
    if (rc == 0)
        rc = gs_kt_num(c, o, p, &t_predict, "gamma", &pr->hw.gamma);
    if (rc == 0)
        rc = gs_kt_num(c, o, p, &t_predict, "activation", &pr->activation);
    pr->fit = !gs_json_get(o, "alpha") && !gs_json_get(o, "beta") &&
              !gs_json_get(o, "gamma");
    return rc;
}

/* Checks across keys; the messages name the key at fault. */
static int validate(const struct gs_jin *c, const char *p,
                    struct gs_svcscale_cfg *cfg)
{
    GS_JSON_PATH(q);
    if (cfg->max_replicas < cfg->min_replicas || cfg->max_replicas < 1) {
        gs_json_path_key(&q, p, "max_replicas");
        return gs_json_err(c, q, "must be >= min_replicas and >= 1");
    }
    if (cfg->nmetrics == 0 && !cfg->predict.on) {
        gs_json_path_key(&q, p, "metrics");
        return gs_json_err(c, q, "an autoscaler needs at least one metric "
                           "or a 'predictive' object");
    }
    if (!cfg->predict.on)
        return 0;
    struct gs_svcscale_predict_cfg *pr = &cfg->predict;
    gs_json_path_key(&q, p, "predictive");
    GS_JSON_PATH(k);
    if (pr->step < cfg->sync_period || pr->step % cfg->sync_period != 0) {
        gs_json_path_key(&k, q, "step");
        return gs_json_err(c, k, "must be a multiple of sync_period");
    }
    if (pr->season % pr->step != 0 || pr->season / pr->step < 2 ||
        pr->season / pr->step > 100000) {
        gs_json_path_key(&k, q, "season");
        return gs_json_err(c, k, "must be 2 to 100000 steps, a whole "
                           "number of them");
    }
    if (pr->lead > pr->season) {
        gs_json_path_key(&k, q, "lead");
        return gs_json_err(c, k, "must not exceed the season");
    }
    pr->hw.season = (int)(pr->season / pr->step);
    return 0;
}

int gs_svcscale_cfg_parse(const struct gs_json *o, const char *file,
                          const char *path, struct gs_svcscale_cfg *cfg,
                          struct gs_diag *d)
{
    const struct gs_jin c = { file, d };
    gs_svcscale_cfg_default(cfg);
    GS_JSON_PATH(q);
    long mn = cfg->min_replicas, mx = cfg->max_replicas;
    int rc = gs_kt_keys(&c, o, path, &gs_svcscale_table);
    if (rc == 0)
        rc = gs_kt_int(&c, o, path, &gs_svcscale_table, "min_replicas",
                       &mn);
    if (rc == 0)
        rc = gs_kt_int(&c, o, path, &gs_svcscale_table, "max_replicas",
                       &mx);
    cfg->min_replicas = (int)mn;
    cfg->max_replicas = (int)mx;
    if (rc == 0)
        rc = gs_kt_num(&c, o, path, &gs_svcscale_table, "tolerance",
                       &cfg->tolerance);
    cfg->up.tolerance = cfg->down.tolerance = cfg->tolerance;
    static const char *const per[] = { "sync_period", "polling_interval" };
    gs_time *pv[] = { &cfg->sync_period, &cfg->polling_interval };
    for (int i = 0; i < 2 && rc == 0; i++) {
        rc = gs_kt_time(&c, o, path, &gs_svcscale_table, per[i], pv[i]);
        gs_json_path_key(&q, path, per[i]);
        if (rc == 0 && (*pv[i] < GS_SEC || *pv[i] > GS_HOUR))
            rc = gs_json_err(&c, q, "must be between 1 s and 1 h");
    }
    if (rc == 0)
        rc = gs_kt_time(&c, o, path, &gs_svcscale_table,
                        "cooldown_period", &cfg->cooldown_period);
    const struct gs_json *ms = gs_json_get(o, "metrics");
    gs_json_path_key(&q, path, "metrics");
    if (rc == 0 && ms && !gs_json_is_array(ms))
        rc = gs_json_err(&c, q, "expected an array of {\"metric\", "
                         "\"average_value\" | \"value\"}");
    int i = 0;
    for (const struct gs_json *e = gs_json_first(ms); e && rc == 0;
         e = gs_json_next(e), i++) {
        GS_JSON_PATH(ep);
        gs_json_path_at(&ep, q, i);
        if (i >= GS_SVCSCALE_MAX_METRICS)
            return gs_json_err(&c, ep, "at most %d metrics",
                               GS_SVCSCALE_MAX_METRICS);
        rc = parse_metric(&c, e, ep, &cfg->metric[i]);
        cfg->nmetrics = i + 1;
    }
    const struct gs_json *b = gs_json_get(o, "behavior");
    gs_json_path_key(&q, path, "behavior");
    if (rc == 0 && b)
        rc = gs_kt_keys(&c, b, q, &t_behavior);
    static const char *const dir[] = { "scale_up", "scale_down" };
    struct gs_svcscale_rules *rules[] = { &cfg->up, &cfg->down };
    for (int k = 0; k < 2 && rc == 0 && b; k++) {
        const struct gs_json *r = gs_json_get(b, dir[k]);
        GS_JSON_PATH(rp);
        gs_json_path_key(&rp, q, dir[k]);
        if (r)
            rc = parse_rules(&c, r, rp, rules[k]);
    }
    const struct gs_json *pr = gs_json_get(o, "predictive");
    gs_json_path_key(&q, path, "predictive");
    if (rc == 0 && pr)
        rc = parse_predict(&c, pr, q, &cfg->predict);
    if (rc == 0)
        rc = validate(&c, path, cfg);
    return rc;
}

/* --- state ---------------------------------------------------------------- */

struct stamp {
    gs_time t;
    int v;
};

struct stamps {
    int n, cap;
    struct stamp *a;
};

struct count {
    gs_time t;
    double a;
};

struct gs_svcscale {
    struct gs_svcscale_cfg c;
    gs_time start, next_hpa, next_keda, prev_now;
    int spec;                   /* the count last asked for */
    struct stamps rec;          /* unstabilized recommendations */
    struct stamps up, down;     /* scale events: replicas added / removed */
    gs_time keep_rec, keep_ev;  /* how far back each is needed */
    struct count *hist;         /* arrivals at past HPA ticks, a ring */
    int nhist, hhist, caphist;
    struct gs_hw *hw;
    double *series;             /* the last (up to) 3 seasons fed, a ring */
    long nser, hser, capser;
    gs_time bucket_t;           /* start of the open forecast bucket */
    double bucket_a;            /* arrivals at its start; NaN before the first */
    gs_time last_active;
    struct gs_svcscale_status st;
};

/* Room for every record a window of `keep` can hold at one per period
 * (evaluations stay on the sync grid), plus the ones made at creation. */
static int reserve(struct stamps *s, gs_time keep, gs_time period)
{
    s->cap = (int)(keep / period) + 3;
    s->a = calloc((size_t)s->cap, sizeof *s->a);
    return s->a ? 0 : GS_ENOMEM;
}

static void push(struct stamps *s, gs_time t, int v)
{
    GS_ASSERT(s->n < s->cap);
    s->a[s->n++] = (struct stamp){ t, v };
}

/* Drop the records at or before cutoff (they are in time order). */
static void prune(struct stamps *s, gs_time cutoff)
{
    int k = 0;
    while (k < s->n && s->a[k].t <= cutoff)
        k++;
    if (k) {
        memmove(s->a, s->a + k, (size_t)(s->n - k) * sizeof *s->a);
        s->n -= k;
    }
}

int gs_svcscale_new(const struct gs_svcscale_cfg *cfg, gs_time start,
                    int replicas, struct gs_svcscale **out,
                    struct gs_diag *d)
{
    *out = NULL;
    if (cfg->predict.on && !(cfg->predict.capacity > 0))
        return gs_diag_set(d, GS_EINVAL, "autoscaler.predictive.capacity",
                           "predictive scaling needs the requests/s one "
                           "replica sustains (configure it, or the service "
                           "model sets it)");
    if (replicas < 0 || cfg->max_replicas < 1 || cfg->sync_period <= 0 ||
        cfg->polling_interval <= 0 || (cfg->predict.on &&
        (cfg->predict.hw.season < 2 || cfg->predict.step <= 0)))
        return gs_diag_set(d, GS_EINVAL, "autoscaler", "inconsistent "
                           "configuration");
    struct gs_svcscale *st = calloc(1, sizeof *st);
    if (st == NULL)
        return gs_diag_set(d, GS_ENOMEM, "autoscaler", "out of memory");
    st->c = *cfg;
    st->start = st->next_hpa = st->next_keda = st->prev_now = start;
    st->spec = replicas;
    st->last_active = -1;
    st->bucket_a = NAN;
    st->keep_rec = cfg->up.stabilization_window >
        cfg->down.stabilization_window ? cfg->up.stabilization_window
                                       : cfg->down.stabilization_window;
    for (int k = 0; k < 2; k++) {
        const struct gs_svcscale_rules *r = k ? &cfg->down : &cfg->up;
        for (int i = 0; i < r->npolicies; i++)
            if (r->policy[i].period > st->keep_ev)
                st->keep_ev = r->policy[i].period;
    }
    gs_time w = 0;
    for (int i = 0; i < cfg->nmetrics; i++)
        if (cfg->metric[i].kind == GS_SCM_RATE && cfg->metric[i].window > w)
            w = cfg->metric[i].window;
    st->caphist = (int)(w / cfg->sync_period) + 2;
    st->hist = calloc((size_t)st->caphist, sizeof *st->hist);
    int rc = st->hist ? 0 : GS_ENOMEM;
    if (rc == 0)
        rc = reserve(&st->rec, st->keep_rec, cfg->sync_period);
    if (rc == 0)
        rc = reserve(&st->up, st->keep_ev, cfg->sync_period);
    if (rc == 0)
        rc = reserve(&st->down, st->keep_ev, cfg->sync_period);
    if (rc == 0)
        push(&st->rec, start, replicas);
    if (rc == 0 && cfg->predict.on) {
        st->hw = gs_hw_new(&cfg->predict.hw);
        st->capser = 3L * cfg->predict.hw.season;
        st->series = cfg->predict.fit
            ? calloc((size_t)st->capser, sizeof *st->series) : NULL;
        if (st->hw == NULL || (cfg->predict.fit && st->series == NULL))
            rc = GS_ENOMEM;
    }
    if (rc < 0) {
        gs_svcscale_free(st);
        return gs_diag_set(d, rc, "autoscaler", "out of memory");
    }
    st->st.desired = replicas;
    st->st.reason = GS_SCR_NONE;
    st->st.proposal = st->st.predicted = -1;
    for (int i = 0; i < GS_SVCSCALE_MAX_METRICS; i++)
        st->st.metric_proposal[i] = -1;
    st->st.forecast = st->st.rate = NAN;
    st->st.last_active = -1;
    st->st.alpha = cfg->predict.hw.alpha;
    st->st.beta = cfg->predict.hw.beta;
    st->st.gamma = cfg->predict.hw.gamma;
    *out = st;
    return 0;
}

void gs_svcscale_free(struct gs_svcscale *st)
{
    if (st == NULL)
        return;
    free(st->rec.a);
    free(st->up.a);
    free(st->down.a);
    free(st->hist);
    free(st->series);
    gs_hw_free(st->hw);
    free(st);
}

gs_time gs_svcscale_next(const struct gs_svcscale *st)
{
    if (st->c.min_replicas == 0 && st->next_keda < st->next_hpa)
        return st->next_keda;
    return st->next_hpa;
}

void gs_svcscale_status(const struct gs_svcscale *st,
                        struct gs_svcscale_status *out)
{
    *out = st->st;
}

/* --- measurements ----------------------------------------------------------- */

/* Arrivals per second over the last `window`, from the counts kept at past
 * ticks: the oldest count no older than now - window.  NaN with no past
 * count. */
static double rate_over(const struct gs_svcscale *st, gs_time now,
                        gs_time window, double arrivals)
{
    for (int k = st->nhist; k > 0; k--) {
        const struct count *h = &st->hist[(st->hhist + st->nhist - k) %
                                          st->caphist];
        if (h->t >= now - window && h->t < now)
            return (arrivals - h->a) * 1000.0 / (double)(now - h->t);
    }
    return NAN;
}

static void remember_count(struct gs_svcscale *st, gs_time now, double a)
{
    int at = (st->hhist + st->nhist) % st->caphist;
    if (st->nhist == st->caphist) {
        st->hhist = (st->hhist + 1) % st->caphist;
        st->nhist--;
    }
    st->hist[at] = (struct count){ now, a };
    st->nhist++;
}

/* Refit the smoothing factors to the kept history and rebuild the model
 * from it.  Out of memory: the model goes on with the factors it has. */
static void refit(struct gs_svcscale *st)
{
    double *y = malloc((size_t)st->nser * sizeof *y);
    if (y == NULL)
        return;
    for (long i = 0; i < st->nser; i++)
        y[i] = st->series[(st->hser + i) % st->capser];
    struct gs_hw_cfg c = st->c.predict.hw;
    struct gs_hw *hw = NULL;
    if (gs_hw_fit(y, st->nser, &c, NULL) == 0 && (hw = gs_hw_new(&c))) {
        for (long i = 0; i < st->nser; i++)
            gs_hw_feed(hw, y[i]);
        gs_hw_free(st->hw);
        st->hw = hw;
        st->c.predict.hw = c;
        st->st.alpha = c.alpha;
        st->st.beta = c.beta;
        st->st.gamma = c.gamma;
    }
    free(y);
}

/* One bucket's mean rate into the model (and the history it is refitted
 * to, at the end of each season from the second on). */
static void feed_one(struct gs_svcscale *st, double r)
{
    gs_hw_feed(st->hw, r);
    if (!st->c.predict.fit)
        return;
    st->series[(st->hser + st->nser) % st->capser] = r;
    if (st->nser == st->capser)
        st->hser = (st->hser + 1) % st->capser;
    else
        st->nser++;
    long m = st->c.predict.hw.season, n = gs_hw_count(st->hw);
    if (n % m == 0 && n >= 2 * m)
        refit(st);
}

/* Close the forecast buckets that ended by now. */
static void feed_buckets(struct gs_svcscale *st, gs_time now, double a)
{
    gs_time step = st->c.predict.step;
    if (isnan(st->bucket_a)) {              /* the first tick opens one */
        st->bucket_t = now;
        st->bucket_a = a;
        return;
    }
    if (now < st->bucket_t + step)
        return;
    /* Normally one bucket ends exactly now; a caller that skipped ticks
     * gets the mean rate of the gap spread over the buckets it spans. */
    long k = (long)((now - st->bucket_t) / step);
    double r = (a - st->bucket_a) * 1000.0 / (double)(now - st->bucket_t);
    for (long i = 0; i < k; i++)
        feed_one(st, r);
    gs_time end = st->bucket_t + k * step;
    st->bucket_a = a - r * (double)(now - end) / 1000.0;
    st->bucket_t = end;
}

/* Max forecast rate over [now, now + lead] (>= 0), or NaN. */
static double forecast_max(const struct gs_svcscale *st, gs_time now)
{
    if (st->hw == NULL || !gs_hw_ready(st->hw))
        return NAN;
    gs_time step = st->c.predict.step;
    /* the last bucket fed is [bucket_t - step, bucket_t): its index is the
     * count - 1; bucket b (from bucket_t) is h = b + 1 steps ahead. */
    long b0 = (long)((now - st->bucket_t) / step);
    long b1 = (long)((now + st->c.predict.lead - st->bucket_t) / step);
    double m = 0;
    for (long b = b0; b <= b1; b++) {
        double f = gs_hw_forecast(st->hw, b + 1);
        if (f > m)
            m = f;
    }
    return m;
}

/* --- the HPA ---------------------------------------------------------------- */

/* ceil, forgiving a relative rounding error of 1e-9: a forecast of 100.0
 * req/s that comes out as 100.00000000000001 asks for 10 replicas of 10
 * req/s, not 11. */
static int ceil_int(double x)
{
    double c = ceil(x - 1e-9 * (fabs(x) > 1 ? fabs(x) : 1));
    return c > (double)INT_MAX / 2 ? INT_MAX / 2 : (int)c;
}

/* Inside the tolerance band: 1 - down tolerance <= r <= 1 + up tolerance
 * (one tolerance both ways unless a direction sets its own, as
 * HPAScalingRules.tolerance does from Kubernetes 1.33). */
static int within(const struct gs_svcscale *st, double r)
{
    return r >= 1.0 - st->c.down.tolerance && r <= 1.0 + st->c.up.tolerance;
}

/* A Pods metric (average over ready replicas) against an average target:
 * replica_calculator.go's calcPlainMetricReplicas with the starting replicas
 * as unready pods.  *tol set when the answer came from the tolerance band. */
static int pods_proposal(const struct gs_svcscale *st,
                         const struct gs_svcscale_sample *s, double v,
                         double target, int *tol)
{
    int spec = st->spec;
    double r = v / target;
    if (!(s->starting > 0 && r > 1.0)) {
        if (within(st, r)) {
            *tol = 1;
            return spec;
        }
        return ceil_int(r * s->ready);
    }
    int n = s->ready + s->starting;
    double nr = v * s->ready / (target * n);
    if (within(st, nr) || nr < 1.0) {
        *tol = 1;
        return spec;
    }
    int p = ceil_int(nr * n);
    return p < spec ? spec : p;
}

/* An External metric: AverageValue (GetExternalPerPodMetricReplicas) or
 * Value (GetExternalMetricReplicas). */
static int external_proposal(const struct gs_svcscale *st,
                             const struct gs_svcscale_sample *s, double u,
                             double target, int type, int *tol)
{
    if (type == GS_SCT_AVERAGE_VALUE) {
        int status = s->ready + s->starting;
        if (status == 0)
            return ceil_int(u / target);
        double r = u / (target * status);
        if (within(st, r)) {
            *tol = 1;
            return status;
        }
        return ceil_int(u / target);
    }
    double r = u / target;
    if (within(st, r)) {
        *tol = 1;
        return st->spec;
    }
    return ceil_int(r * s->ready);
}

static double metric_value(const struct gs_svcscale_sample *s, int kind,
                           double rate)
{
    switch (kind) {
    case GS_SCM_GPU_UTIL: return s->ready > 0 ? s->gpu_util : NAN;
    case GS_SCM_KV_CACHE: return s->ready > 0 ? s->kv_cache : NAN;
    case GS_SCM_WAITING:  return s->waiting;
    case GS_SCM_TTFT_P95: return s->ttft_p95;
    default:              return rate;
    }
}

/* computeReplicasForMetrics: the largest proposal, or -1 when the metrics
 * do not allow a decision.  *all_tol: every valid proposal was a tolerance
 * answer. */
static int propose(struct gs_svcscale *st, const struct gs_svcscale_sample *s,
                   const double *rate, double fmax, int *all_tol)
{
    int best = -1, invalid = 0, ntol = 0, nvalid = 0;
    for (int i = 0; i < st->c.nmetrics; i++) {
        const struct gs_svcscale_metric_cfg *m = &st->c.metric[i];
        double v = metric_value(s, m->kind, rate[i]);
        int tol = 0, p = -1;
        if (isnan(v))
            invalid++;
        else if (is_gauge(m->kind))
            p = pods_proposal(st, s, v, m->target, &tol);
        else
            p = external_proposal(st, s, v, m->target, m->target_type, &tol);
        st->st.metric_proposal[i] = p;
        if (p >= 0) {
            nvalid++;
            ntol += tol;
            if (p > best)
                best = p;
        }
    }
    st->st.predicted = -1;
    if (!isnan(fmax)) {
        int tol = 0;
        int p = external_proposal(st, s, fmax, st->c.predict.capacity,
                                  GS_SCT_AVERAGE_VALUE, &tol);
        st->st.predicted = p;
        nvalid++;
        ntol += tol;
        if (p > best)
            best = p;
    }
    *all_tol = nvalid > 0 && ntol == nvalid;
    if (nvalid == 0 || (invalid > 0 && best < st->spec))
        return -1;
    return best;
}

/* Replicas added (k = 0) or removed (k = 1) within (now - period, now]. */
static int changed_within(const struct stamps *ev, gs_time now, gs_time period)
{
    int sum = 0;
    for (int i = 0; i < ev->n; i++)
        if (ev->a[i].t > now - period)
            sum += ev->a[i].v;
    return sum;
}

/* calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWith...:
 * the furthest the count may move this period. */
static int step_limit(const struct gs_svcscale *st, gs_time now, int down)
{
    const struct gs_svcscale_rules *r = down ? &st->c.down : &st->c.up;
    int cur = st->spec;
    if (r->select == GS_SCS_DISABLED)
        return cur;
    /* scale-up: max picks the largest limit; scale-down: max picks the
     * lowest (the biggest change); min the reverse */
    int want_high = (r->select == GS_SCS_MAX) != down;
    long res = want_high ? LONG_MIN : LONG_MAX;
    for (int i = 0; i < r->npolicies; i++) {
        const struct gs_svcscale_policy *p = &r->policy[i];
        int added = changed_within(&st->up, now, p->period);
        int removed = changed_within(&st->down, now, p->period);
        long base = (long)cur - added + removed, prop;
        if (!down)
            prop = p->type == GS_SCP_PODS ? base + p->value
                 : (long)ceil((double)base * (1.0 + p->value / 100.0));
        else
            prop = p->type == GS_SCP_PODS ? base - p->value
                 : (long)((double)base * (1.0 - p->value / 100.0));
        if (want_high ? prop > res : prop < res)
            res = prop;
    }
    if (res > INT_MAX / 2)
        res = INT_MAX / 2;
    if (res < INT_MIN / 2)
        res = INT_MIN / 2;
    return (int)res;
}

static int hpa_min(const struct gs_svcscale *st)
{
    return st->c.min_replicas > 0 ? st->c.min_replicas : 1;
}

static void record_event(struct gs_svcscale *st, gs_time now, int to)
{
    if (to > st->spec)
        push(&st->up, now, to - st->spec);
    else if (to < st->spec)
        push(&st->down, now, st->spec - to);
    st->spec = to;
}

static void hpa_eval(struct gs_svcscale *st, gs_time now,
                     const struct gs_svcscale_sample *s, const double *rate,
                     double fmax)
{
    int cur = st->spec, lo = hpa_min(st), hi = st->c.max_replicas;
    prune(&st->up, now - st->keep_ev);
    prune(&st->down, now - st->keep_ev);
    if (cur == 0 && st->c.min_replicas == 0) {  /* KEDA's business */
        st->st.reason = GS_SCR_IDLE;
        return;
    }
    if (cur > hi || cur < lo) {
        st->st.reason = GS_SCR_LIMITED;
        record_event(st, now, cur > hi ? hi : lo);
        return;
    }
    int all_tol = 0;
    int p = propose(st, s, rate, fmax, &all_tol);
    st->st.proposal = p;
    if (p < 0) {
        st->st.reason = GS_SCR_INVALID;
        return;
    }
    /* stabilizeRecommendationWithBehaviors */
    int up = p, dn = p;
    for (int i = 0; i < st->rec.n; i++) {
        const struct stamp *r = &st->rec.a[i];
        if (r->t > now - st->c.up.stabilization_window && r->v < up)
            up = r->v;
        if (r->t > now - st->c.down.stabilization_window && r->v > dn)
            dn = r->v;
    }
    prune(&st->rec, now - st->keep_rec);
    push(&st->rec, now, p);
    int rec = cur;
    if (rec < up)
        rec = up;
    if (rec > dn)
        rec = dn;
    /* convertDesiredReplicasWithBehaviorRate */
    int want = rec;
    if (rec > cur) {
        int lim = step_limit(st, now, 0);
        if (lim < cur)
            lim = cur;
        int top = hi < lim ? hi : lim;
        if (want > top)
            want = top;
    } else if (rec < cur) {
        int lim = step_limit(st, now, 1);
        if (lim > cur)
            lim = cur;
        int bottom = lo > lim ? lo : lim;
        if (want < bottom)
            want = bottom;
    }
    st->st.reason = want != rec ? GS_SCR_LIMITED
                  : rec != p ? GS_SCR_STABILIZED
                  : want != cur ? GS_SCR_SCALE
                  : all_tol ? GS_SCR_TOLERANCE : GS_SCR_STEADY;
    record_event(st, now, want);
}

/* --- KEDA ------------------------------------------------------------------- */

/* 1 when a trigger is active; 0 when none is. */
static int keda_active(const struct gs_svcscale *st,
                       const struct gs_svcscale_sample *s, const double *rate,
                       double fmax)
{
    for (int i = 0; i < st->c.nmetrics; i++) {
        const struct gs_svcscale_metric_cfg *m = &st->c.metric[i];
        double v = metric_value(s, m->kind, rate[i]);
        if (v > m->activation)          /* false for NaN */
            return 1;
    }
    return fmax > st->c.predict.activation;
}

/* Returns 1 when it changed the count. */
static int keda_eval(struct gs_svcscale *st, gs_time now,
                     const struct gs_svcscale_sample *s, const double *rate,
                     double fmax)
{
    if (keda_active(st, s, rate, fmax)) {
        st->last_active = now;
        if (st->spec == 0) {
            st->spec = hpa_min(st);
            st->st.reason = GS_SCR_ACTIVATE;
            return 1;
        }
        return 0;
    }
    if (st->spec > 0 && (st->last_active < 0 ||
                         st->last_active + st->c.cooldown_period < now)) {
        st->spec = 0;
        st->st.reason = GS_SCR_TO_ZERO;
        return 1;
    }
    if (st->spec == 0)
        st->st.reason = GS_SCR_IDLE;
    return 0;
}

/* --- the loop ---------------------------------------------------------------- */

/* The first grid point start + k * period after now. */
static gs_time after(gs_time start, gs_time period, gs_time now)
{
    return start + ((now - start) / period + 1) * period;
}

int gs_svcscale_observe(struct gs_svcscale *st, gs_time now,
                        const struct gs_svcscale_sample *s, gs_time *next)
{
    GS_ASSERT(now >= st->prev_now);
    st->prev_now = now;
    int hpa_due = now >= st->next_hpa;
    int keda_due = st->c.min_replicas == 0 && now >= st->next_keda;
    if (hpa_due || keda_due) {
        /* a counter that is missing or runs backwards gives no rate and
         * feeds nothing (the bucket stays open until it is sane again) */
        int counted = s->arrivals >= 0 && isfinite(s->arrivals) &&
                      (st->nhist == 0 || s->arrivals >= st->hist[
                          (st->hhist + st->nhist - 1) % st->caphist].a);
        double rate[GS_SVCSCALE_MAX_METRICS];
        st->st.rate = NAN;
        for (int i = 0; i < st->c.nmetrics; i++) {
            rate[i] = NAN;
            if (st->c.metric[i].kind == GS_SCM_RATE && counted) {
                rate[i] = rate_over(st, now, st->c.metric[i].window,
                                    s->arrivals);
                st->st.rate = rate[i];
            }
        }
        if (hpa_due && st->hw && counted)
            feed_buckets(st, now, s->arrivals);
        double fmax = forecast_max(st, now);
        st->st.forecast = fmax;
        int moved = 0;
        if (keda_due) {
            moved = keda_eval(st, now, s, rate, fmax);
            st->next_keda = after(st->start, st->c.polling_interval, now);
        }
        if (hpa_due) {
            if (!moved)
                hpa_eval(st, now, s, rate, fmax);
            if (counted)
                remember_count(st, now, s->arrivals);
            st->next_hpa = after(st->start, st->c.sync_period, now);
        }
        st->st.desired = st->spec;
        st->st.last_active = st->last_active;
    }
    if (next)
        *next = gs_svcscale_next(st);
    return st->spec;
}
