/* planjson.c -- sweep values and the `plan` section of a scenario.
 *
 * Editing works on the scenario's text, not on the parsed C structures
 * (gs_json_edit, in jsonio.c with the rest of the cJSON code): the text is
 * parsed, each edit walks its key path (creating missing objects on the
 * way), the tree is printed back and the caller parses the result as a
 * scenario.  So every key a user can write in a
 * scenario can be swept or searched, and every edited scenario passes the
 * same validation a hand-written one does -- an unknown key is refused by
 * scenario.c with its JSON path, not silently added.
 *
 * The plan section (README, "Planning"; docs/planning.md) is read here into
 * struct gs_plancfg: targets become (metric, limit, direction) triples over
 * the metric list of sweep.h; the search space becomes discrete axes (each
 * value a list of edits: a pool's GPU model and price, its market, its
 * sharing layout, the policy, any key's values) and pools whose node count
 * is searched by bisection (plan.c). */
#include "planjson.h"
#include "../base/params.h"
#include "../../policies/policy.h"
#include "../io/keytab.h"
#include "../setup/scenario.h"
#include "sweep.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the plan section's key tables (keytab.h) ------------------------------
 * What `gpusim scenario --schema` says of $.plan and what the readers below
 * accept, in one place: the readers take each object's keys from its table
 * (gs_kt_keys); the ranges a value's code checks are the table's.  The
 * CLI hands gs_plan_section to the schema and to `gpusim scenario
 * --check` (io/scsection.h: struct gs_sc_section), so the parser never
 * names them.
 * What no schema can say -- a pool or service named in $.fleet or
 * $.services, a metric that exists, min <= max, a cap above the range --
 * the readers check alone. */

#define PK_DUR(n, d) { .name = (n), .type = GS_KT_DUR, .unit = "s", .desc = (d) }
#define PK_SHARE(n, d) { .name = (n), .type = GS_KT_NUM, .lo = 0, .hi = 1, \
                         .desc = (d) }
#define PK_END { .name = NULL }

/* wait targets of a scope: all jobs, or one tier's */
static const struct gs_kt_key k_scope[] = {
    PK_DUR("wait_mean", "the mean wait must be at most this"),
    PK_DUR("wait_p95", "the 95th percentile of waits must be at most this"),
    PK_DUR("wait_p99", "the 99th percentile of waits must be at most this"),
    PK_SHARE("sla_violations", "the share of jobs past their wait limit or "
             "deadline must be at most this"),
    PK_END
};

static const struct gs_kt_rule r_scope[] = {
    { .cond = GS_KC_ALWAYS,
      .any = "wait_mean wait_p95 wait_p99 sla_violations" },
    { 0 }
};

static const struct gs_kt_obj t_scope = {
    .id = "plan_scope", .desc = "targets on one tier's jobs",
    .keys = k_scope, .rules = r_scope
};

static const struct gs_kt_key k_tiers[] = {
    { .name = "inference", .type = GS_KT_OBJ, .obj = &t_scope,
      .desc = "the inference tier's jobs" },
    { .name = "training", .type = GS_KT_OBJ, .obj = &t_scope,
      .desc = "the training tier's jobs" },
    { .name = "interactive", .type = GS_KT_OBJ, .obj = &t_scope,
      .desc = "the interactive tier's jobs" },
    { .name = "data", .type = GS_KT_OBJ, .obj = &t_scope,
      .desc = "the data-processing tier's jobs" },
    PK_END
};

static const struct gs_kt_rule r_tiers[] = {
    { .cond = GS_KC_ALWAYS, .any = "inference training interactive data" },
    { 0 }
};

static const struct gs_kt_obj t_tiers = {
    .id = "plan_tiers", .desc = "targets per tier", .keys = k_tiers,
    .rules = r_tiers
};

static const struct gs_kt_key k_svc_targets[] = {
    PK_DUR("ttft_mean", "mean time to first token, at most"),
    PK_DUR("ttft_p50", "median time to first token, at most"),
    PK_DUR("ttft_p95", "95th percentile of the time to first token, at "
           "most"),
    PK_DUR("ttft_p99", "99th percentile of the time to first token, at "
           "most"),
    PK_DUR("itl_mean", "mean inter-token latency, at most"),
    PK_DUR("itl_p50", "median inter-token latency, at most"),
    PK_DUR("itl_p95", "95th percentile of the inter-token latency, at most"),
    PK_DUR("itl_p99", "99th percentile of the inter-token latency, at most"),
    PK_DUR("e2e_mean", "mean request latency, at most"),
    PK_DUR("e2e_p50", "median request latency, at most"),
    PK_DUR("e2e_p95", "95th percentile of the request latency, at most"),
    PK_DUR("e2e_p99", "99th percentile of the request latency, at most"),
    PK_SHARE("attainment", "the share of requests within the service's SLA "
             "must be at least this"),
    PK_END
};

static const struct gs_kt_rule r_svc_targets[] = {
    { .cond = GS_KC_ALWAYS, .any = "ttft_mean ttft_p50 ttft_p95 ttft_p99 "
      "itl_mean itl_p50 itl_p95 itl_p99 e2e_mean e2e_p50 e2e_p95 e2e_p99 "
      "attainment" },
    { 0 }
};

static const struct gs_kt_obj t_svc_targets = {
    .id = "plan_service_targets", .desc = "a service's latency targets",
    .keys = k_svc_targets, .rules = r_svc_targets
};

static const struct gs_kt_key k_none[] = { PK_END };

static const struct gs_kt_obj t_svc_map = {
    .id = "plan_services", .desc = "service name (of $.services) -> its "
    "targets", .keys = k_none, .map = &t_svc_targets
};

static const struct gs_kt_key k_bound[] = {
    { .name = "max", .type = GS_KT_NUM, .desc = "the metric must be at most "
      "this" },
    { .name = "min", .type = GS_KT_NUM, .desc = "the metric must be at least "
      "this" },
    PK_END
};

static const struct gs_kt_rule r_bound[] = {
    { .cond = GS_KC_ALWAYS, .any = "max min" },
    { 0 }
};

static const struct gs_kt_obj t_bound = {
    .id = "plan_metric_bound", .desc = "bounds on one metric",
    .keys = k_bound, .rules = r_bound
};

static const struct gs_kt_obj t_metric_map = {
    .id = "plan_metrics", .desc = "metric name (`gpusim sweep "
    "--list-metrics`) -> its bounds", .keys = k_none, .map = &t_bound
};

static const struct gs_kt_key k_targets[] = {
    PK_SHARE("availability", "the share of GPU time up must be at least "
             "this"),
    { .name = "tiers", .type = GS_KT_OBJ, .obj = &t_tiers,
      .desc = "targets per tier" },
    { .name = "services", .type = GS_KT_OBJ, .obj = &t_svc_map,
      .desc = "targets per inference service" },
    { .name = "metrics", .type = GS_KT_OBJ, .obj = &t_metric_map,
      .desc = "bounds on any metric of a run" },
    PK_END
};

static const struct gs_kt_rule r_targets[] = {
    { .cond = GS_KC_ALWAYS, .any = "wait_mean wait_p95 wait_p99 "
      "sla_violations availability tiers services metrics" },
    { 0 }
};

static const struct gs_kt_obj t_targets = {
    .id = "plan_targets", .desc = "what the plan must meet, each at the "
    "unfavourable end of its 95% interval (docs/planning.md)",
    .keys = k_scope, .more = k_targets, .rules = r_targets
};

#define RANGE_SCHEMA(lo) \
    "\"type\": \"array\", \"minItems\": 2, \"maxItems\": 2, \"items\": " \
    "{\"type\": \"integer\", \"minimum\": " #lo ", \"maximum\": 100000}"

static const struct gs_kt_key k_pool[] = {
    { .name = "pool", .type = GS_KT_STR | GS_KT_INT, .flags = GS_KF_REQ,
      .lo = 0, .hi = 100000, .maxlen = 63, .desc = "the pool of $.fleet: its "
      "name or its index" },
    { .name = "nodes", .type = GS_KT_ARR, .schema = RANGE_SCHEMA(0),
      .desc = "[min, max]: its node count, searched by bisection" },
    { .name = "step", .type = GS_KT_INT, .lo = 1, .hi = 100000,
      .desc = "node counts tried are min, min + step, ... (default 1)" },
    { .name = "cap", .type = GS_KT_INT, .lo = 0, .hi = 100000,
      .desc = "the most a range the answer touches may widen to, from max "
      "(no widening) to 100000 (default 4 x max)" },
    { .name = "gpu", .type = GS_KT_ARR, .items = GS_KT_STR, .flags = GS_KF_CI,
      .src = GS_KS_GPU, .maxlen = GS_MODEL_NAME - 1, .min_items = 1,
      .desc = "GPU models to try (an axis)" },
    { .name = "price_per_gpu_hour", .type = GS_KT_OBJ, .unit = "$/GPU-hour",
      .schema = "\"type\": \"object\", \"additionalProperties\": "
      "{\"type\": \"number\", \"minimum\": 0}",
      .desc = "GPU model -> its price, one for each model of gpu" },
    { .name = "market", .type = GS_KT_ARR, .min_items = 1,
      .schema = "\"type\": \"array\", \"minItems\": 1, \"items\": "
      "{\"$ref\": \"#/$defs/pool/properties/market\"}",
      .desc = "markets to try (an axis)" },
    { .name = "sharing", .type = GS_KT_ARR, .min_items = 1,
      .schema = "\"type\": \"array\", \"minItems\": 1, \"items\": "
      "{\"$ref\": \"#/$defs/sharing\"}",
      .desc = "sharing modes to try (an axis)" },
    { .name = "variants", .type = GS_KT_ARR, .min_items = 1,
      .schema = "\"type\": \"array\", \"minItems\": 1, \"items\": "
      "{\"type\": \"object\"}",
      .desc = "sets of the pool's keys to try, each set at once (an axis)" },
    { .name = "spot_share", .type = GS_KT_ARR, .items = GS_KT_NUM, .lo = 0,
      .hi = 1, .min_items = 1, .desc = "shares of the searched node count "
      "bought as spot (an axis)" },
    { .name = "spot_discount", .type = GS_KT_NUM,
      .schema = "\"type\": \"number\", \"minimum\": 0, "
      "\"exclusiveMaximum\": 1",
      .desc = "the spot price is (1 - this) x the pool's (default 0.7)" },
    { .name = "spot", .type = GS_KT_OBJ,
      .schema = "\"$ref\": \"#/$defs/spot\"",
      .desc = "the spot nodes' interruptions (default: the pool's own)" },
    PK_END
};

static const struct gs_kt_rule r_pool[] = {
    { .cond = GS_KC_HAS, .key = "price_per_gpu_hour", .need = "gpu" },
    { .cond = GS_KC_HAS, .key = "spot_share", .need = "nodes" },
    { .cond = GS_KC_LACKS, .key = "spot_share",
      .forbid = "spot_discount spot" },
    { 0 }
};

static const struct gs_kt_obj t_pool = {
    .id = "plan_pool", .desc = "a pool of $.fleet and what of it is "
    "searched", .keys = k_pool, .rules = r_pool
};

static const struct gs_kt_key k_svc[] = {
    { .name = "service", .type = GS_KT_STR, .flags = GS_KF_REQ,
      .maxlen = 63, .desc = "the service of $.services" },
    { .name = "replicas", .type = GS_KT_ARR, .schema = RANGE_SCHEMA(1),
      .desc = "[min, max]: its replica count, searched by bisection" },
    { .name = "cap", .type = GS_KT_INT, .lo = 1, .hi = 100000,
      .desc = "the most a range the answer touches may widen to (default "
      "4 x max)" },
    { .name = "tp", .type = GS_KT_ARR, .items = GS_KT_INT, .lo = 1, .hi = 64,
      .min_items = 1, .desc = "tensor-parallel degrees to try (an axis)" },
    { .name = "gpu", .type = GS_KT_ARR, .items = GS_KT_STR, .flags = GS_KF_CI,
      .src = GS_KS_GPU, .maxlen = GS_MODEL_NAME - 1, .min_items = 1,
      .desc = "GPU models to try (an axis)" },
    PK_END
};

static const struct gs_kt_obj t_svc = {
    .id = "plan_service", .desc = "a service of $.services and what of it "
    "is searched", .keys = k_svc
};

static const struct gs_kt_key k_choice[] = {
    { .name = "key", .type = GS_KT_STR, .flags = GS_KF_REQ,
      .desc = "a scenario key path (fleet[0].sharing, policy.name)" },
    { .name = "values", .type = GS_KT_ARR, .flags = GS_KF_REQ,
      .min_items = 1, .schema = "\"type\": \"array\", \"minItems\": 1",
      .desc = "the key's values to try (an axis)" },
    PK_END
};

static const struct gs_kt_obj t_choice = {
    .id = "plan_choice", .desc = "any scenario key and its values",
    .keys = k_choice
};

static const struct gs_kt_key k_search[] = {
    { .name = "pools", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .obj = &t_pool, .desc = "pools searched" },
    { .name = "services", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .obj = &t_svc, .desc = "inference services searched" },
    { .name = "policies", .type = GS_KT_ARR, .min_items = 1,
      .schema = "\"type\": \"array\", \"minItems\": 1, \"items\": "
      "{\"$ref\": \"#/properties/policy\"}",
      .desc = "scheduling policies to try (an axis)" },
    { .name = "choices", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .obj = &t_choice, .desc = "other keys to try" },
    PK_END
};

static const struct gs_kt_obj t_search = {
    .id = "plan_search", .desc = "the fleets tried: counts bisected, the "
    "rest axes of choices", .keys = k_search
};

static const char *const objectives[] = {
    "cost_per_month", "cost_per_million_tokens", "energy_kwh_per_month",
    "carbon_kg_per_month", "energy_cost_per_month", NULL
};

static const struct gs_kt_key k_plan[] = {
    { .name = "targets", .type = GS_KT_OBJ, .flags = GS_KF_REQ,
      .obj = &t_targets, .desc = "what the plan must meet" },
    { .name = "search", .type = GS_KT_OBJ, .flags = GS_KF_REQ,
      .obj = &t_search, .desc = "the fleets tried" },
    { .name = "objective", .type = GS_KT_STR, .maxlen = 31,
      .names = objectives, .desc = "what the plan minimizes (default "
      "cost_per_month)" },
    { .name = "seeds", .type = GS_KT_INT, .lo = 2, .hi = 1000,
      .desc = "seeds every verdict needs (default 5)" },
    { .name = "min_seeds", .type = GS_KT_INT, .lo = 2, .hi = 1000,
      .desc = "seeds run before a clear miss stops a candidate (default 3)" },
    { .name = "max_seeds", .type = GS_KT_INT, .lo = 2, .hi = 1000,
      .desc = "the most seeds a straddling interval may take (default "
      "2 x seeds)" },
    { .name = "indifference", .type = GS_KT_NUM,
      .schema = "\"type\": \"number\", \"minimum\": 0, "
      "\"exclusiveMaximum\": 0.5",
      .desc = "a target's indifference zone, a share of it (default 0.01)" },
    { .name = "futility", .type = GS_KT_BOOL,
      .desc = "stop a straddling candidate, undecided, when max_seeds "
      "seeds would meet its targets with a chance below 2.5% (default "
      "true)" },
    { .name = "horizon", .type = GS_KT_STR, .maxlen = 15,
      .schema = "\"not\": {}",
      .desc = "refused: the question is the scenario's $.question, the same "
      "for every command (this key of an earlier release names it)" },
    { .name = "precision", .type = GS_KT_NUM,
      .schema = "\"type\": \"number\", \"exclusiveMinimum\": 0, "
      "\"exclusiveMaximum\": 1",
      .desc = "steady state: each target's relative half-width asked "
      "(default 0.05)" },
    { .name = "max_length_factor", .type = GS_KT_INT, .lo = 1, .hi = 1024,
      .desc = "steady state: the longest run, a factor of the scenario's "
      "(default 8)" },
    { .name = "growth", .type = GS_KT_ARR, .max_items = 16,
      .schema = "\"type\": \"array\", \"maxItems\": 16, \"items\": "
      "{\"type\": \"number\", \"exclusiveMinimum\": 0, \"maximum\": 1000}",
      .desc = "load factors the chosen plan is tried at" },
    PK_END
};

static const struct gs_kt_obj t_plan = {
    .id = "plan", .desc = "the question `gpusim plan` answers: the cheapest "
    "fleet that meets the targets (docs/planning.md)", .keys = k_plan
};

/* --- the plan section ---------------------------------------------------- */

struct pctx {
    const char *file;
    struct gs_diag *d;
    const struct gs_scenario *s;
    const struct gs_json *fleet;         /* $.fleet */
    struct gs_plancfg *p;
};

static int perr(struct pctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(struct pctx *c, const char *path, const char *fmt, ...)
{
    struct gs_jin in = { c->file, c->d };
    va_list ap;
    va_start(ap, fmt);
    int rc = gs_json_verr(&in, path, fmt, ap);
    va_end(ap);
    return rc;
}

/* o (at path) must be an object with only t's keys, and at least one of
 * them when t's rule asks for one ("any"). */
static int keys(struct pctx *c, const struct gs_json *o, const char *path,
                const struct gs_kt_obj *t)
{
    struct gs_jin in = { c->file, c->d };
    int rc = gs_kt_keys(&in, o, path, t);
    if (rc < 0 || t->rules == NULL || t->rules[0].any == NULL)
        return rc;
    char list[400] = "";
    for (const char *w = t->rules[0].any; *w;) {
        char k[64];
        size_t n = strcspn(w, " ");
        snprintf(k, sizeof k, "%.*s", (int)n, w);
        if (gs_json_get(o, k) != NULL)
            return 0;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 list[0] ? ", " : "", k);
        w += n + (w[n] == ' ');
    }
    return perr(c, path, "give at least one of %s", list);
}

static int add_target(struct pctx *c, const char *path, const char *metric,
                      double limit, int upper)
{
    struct gs_plancfg *p = c->p;
    if (p->ntargets == GS_PLAN_MAX_TARGETS)
        return perr(c, path, "more than %d targets", GS_PLAN_MAX_TARGETS);
    char why[200];
    int own = gs_run_target_check(c->s, metric, why, sizeof why);
    if (own < 0)
        return perr(c, path, "%s", why);
    if (own == 0 && gs_run_metric_index(metric) < 0)
        return perr(c, path, "no metric '%s' (see `gpusim sweep "
                    "--list-metrics`)", metric);
    struct gs_plan_target *t = &p->t[p->ntargets];
    if ((t->path = strdup(path)) == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    p->ntargets++;
    snprintf(t->metric, sizeof t->metric, "%s", metric);
    t->limit = limit;
    t->upper = upper;
    return 0;
}

/* A duration target (seconds, or "30s"), in seconds. */
static int dur_value(struct pctx *c, const struct gs_json *v, const char *path,
                     double *out)
{
    gs_time t;
    if (gs_json_is_number(v) && gs_json_number(v) >= 0 &&
        gs_json_number(v) < 9.0e12) {
        *out = gs_json_number(v);
        return 0;
    }
    if (gs_json_is_string(v) && gs_parse_time(gs_json_string(v), &t) == 0) {
        *out = (double)t / 1000.0;
        return 0;
    }
    return perr(c, path, "expected a duration: seconds, or a string such as "
                "\"30s\", \"5m\"");
}

static int share_value(struct pctx *c, const struct gs_json *v, const char *path,
                       double *out)
{
    if (!gs_json_is_number(v) || !(gs_json_number(v) >= 0 && gs_json_number(v) <= 1))
        return perr(c, path, "expected a share from 0 to 1");
    *out = gs_json_number(v);
    return 0;
}

/* The targets of one scope (prefix "" for all jobs, "inference." ...). */
static int scope_targets(struct pctx *c, const struct gs_json *o, const char *path,
                         const char *prefix)
{
    static const struct { const char *key, *metric; int dur; } kt[] = {
        { "wait_mean", "wait_mean_s", 1 }, { "wait_p95", "wait_p95_s", 1 },
        { "wait_p99", "wait_p99_s", 1 }, { "sla_violations", "sla_share", 0 },
    };
    GS_JSON_PATH(p);
    for (const struct gs_json *it = gs_json_first(o); it; it = gs_json_next(it)) {
        char m[GS_PLAN_NAME];
        gs_json_path_key(&p, path, gs_json_key(it));
        for (size_t k = 0; k < sizeof kt / sizeof kt[0]; k++) {
            if (strcmp(gs_json_key(it), kt[k].key) != 0)
                continue;
            double v = 0;
            int rc = kt[k].dur ? dur_value(c, it, p, &v)
                               : share_value(c, it, p, &v);
            snprintf(m, sizeof m, "%s%s", prefix, kt[k].metric);
            if (rc < 0 || (rc = add_target(c, p, m, v, 1)) < 0)
                return rc;
        }
    }
    return 0;
}

static int parse_targets(struct pctx *c, const struct gs_json *o)
{
    const char *path = "$.plan.targets";
    int rc;
    if ((rc = keys(c, o, path, &t_targets)) < 0 ||
        (rc = scope_targets(c, o, path, "")) < 0)
        return rc;
    const struct gs_json *v = gs_json_get(o, "availability");
    double a = 0;
    if (v && ((rc = share_value(c, v, "$.plan.targets.availability", &a)) < 0 ||
              (rc = add_target(c, "$.plan.targets.availability",
                               "availability", a, 0)) < 0))
        return rc;
    const struct gs_json *tiers = gs_json_get(o, "tiers");
    if (tiers) {
        if ((rc = keys(c, tiers, "$.plan.targets.tiers", &t_tiers)) < 0)
            return rc;
        GS_JSON_PATH(p);
        for (const struct gs_json *t = gs_json_first(tiers); t; t = gs_json_next(t)) {
            char prefix[64];        /* a tier's name: keys() checked it */
            gs_json_path_key(&p, "$.plan.targets.tiers", gs_json_key(t));
            snprintf(prefix, sizeof prefix, "%s.", gs_json_key(t));
            if ((rc = keys(c, t, p, &t_scope)) < 0 ||
                (rc = scope_targets(c, t, p, prefix)) < 0)
                return rc;
        }
    }
    const struct gs_json *sv = gs_json_get(o, "services");
    if (sv) {
        if (!gs_json_is_object(sv))
            return perr(c, "$.plan.targets.services", "expected an object "
                        "{\"SERVICE\": {\"ttft_p99\": \"500ms\", ...}}");
        GS_JSON_PATH(p);
        GS_JSON_PATH(pk);
        for (const struct gs_json *t = gs_json_first(sv); t; t = gs_json_next(t)) {
            gs_json_path_key(&p, "$.plan.targets.services", gs_json_key(t));
            if ((rc = keys(c, t, p, &t_svc_targets)) < 0)
                return rc;
            for (const struct gs_json *k = gs_json_first(t); k; k = gs_json_next(k)) {
                char m[GS_PLAN_NAME * 2];
                double val = 0;
                gs_json_path_key(&pk, p, gs_json_key(k));
                int att = strcmp(gs_json_key(k), "attainment") == 0;
                snprintf(m, sizeof m, "service.%s.%s%s", gs_json_key(t),
                         att ? "sla_attainment" : gs_json_key(k), att ? "" : "_s");
                if (strlen(m) >= GS_PLAN_NAME)
                    return perr(c, p, "service name too long");
                if ((rc = att ? share_value(c, k, pk, &val)
                              : dur_value(c, k, pk, &val)) < 0 ||
                    (rc = add_target(c, pk, m, val, !att)) < 0)
                    return rc;
            }
        }
    }
    const struct gs_json *ms = gs_json_get(o, "metrics");
    if (ms) {
        if (!gs_json_is_object(ms))
            return perr(c, "$.plan.targets.metrics", "expected an object");
        GS_JSON_PATH(p);
        GS_JSON_PATH(pb);
        for (const struct gs_json *m = gs_json_first(ms); m; m = gs_json_next(m)) {
            gs_json_path_key(&p, "$.plan.targets.metrics", gs_json_key(m));
            if ((rc = keys(c, m, p, &t_bound)) < 0)
                return rc;
            for (const struct gs_json *b = gs_json_first(m); b; b = gs_json_next(b)) {
                gs_json_path_key(&pb, p, gs_json_key(b));
                if (!gs_json_is_number(b))
                    return perr(c, pb, "expected a number");
                if ((rc = add_target(c, pb, gs_json_key(m), gs_json_number(b),
                                     strcmp(gs_json_key(b), "max") == 0)) < 0)
                    return rc;
            }
        }
    }
    if (c->p->ntargets == 0)
        return perr(c, path, "no target: give at least one (wait_p95, "
                    "sla_violations, availability, tiers, metrics)");
    return 0;
}

/* A new axis with n values (edits allocated per value later). */
static struct gs_plan_axis *new_axis(struct pctx *c, const char *path,
                                     const char *label, int n)
{
    struct gs_plancfg *p = c->p;
    if (p->naxes == GS_PLAN_MAX_AXES) {
        perr(c, path, "more than %d choices in the search space",
             GS_PLAN_MAX_AXES);
        return NULL;
    }
    if (n < 1) {
        perr(c, path, "expected a non-empty list");
        return NULL;
    }
    struct gs_plan_axis *a = &p->ax[p->naxes++];
    memset(a, 0, sizeof *a);
    a->label = strdup(label);
    a->path = strdup(path);
    a->nvalues = n;
    a->spot_pool = -1;
    a->names = calloc((size_t)n, sizeof *a->names);
    a->nedits = calloc((size_t)n, sizeof *a->nedits);
    a->edits = calloc((size_t)n, sizeof *a->edits);
    a->share = calloc((size_t)n, sizeof *a->share);
    if (!a->label || !a->path || !a->names || !a->nedits || !a->edits ||
        !a->share) {
        gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        return NULL;
    }
    return a;
}

/* Add edit (op, path, value) to value v of axis a. */
static int add_edit(struct pctx *c, struct gs_plan_axis *a, int v, int op,
                    const char *path, const char *value)
{
    struct gs_edit *ne = realloc(a->edits[v], (size_t)(a->nedits[v] + 1) *
                                 sizeof *ne);
    if (ne == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    a->edits[v] = ne;
    struct gs_edit *e = &ne[a->nedits[v]++];
    e->op = op;
    e->path = strdup(path);
    e->value = strdup(value);
    if (e->path == NULL || e->value == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    return 0;
}

/* Short display text of a JSON value (strings without quotes). */
static void show(const struct gs_json *v, char *out, size_t n)
{
    if (gs_json_is_string(v)) {
        snprintf(out, n, "%s", gs_json_string(v));
        return;
    }
    char *s = gs_json_print(v);
    snprintf(out, n, "%s", s ? s : "?");
    free(s);
}

/* An axis setting key (a path in the scenario) to each of list's values. */
/* A value of an axis that sets "policy" or "placement" (a name, or an
 * object with "name") must name a registered policy or placer: else an
 * error at path with "did you mean" and the known names, before any run
 * (a candidate would otherwise fail at its first run, naming only the
 * edited scenario's $.policy). */
static int check_named(struct pctx *c, const struct gs_json *v,
                       const char *path, const char *key)
{
    int pol = strcmp(key, "policy") == 0;
    if (!pol && strcmp(key, "placement") != 0)
        return 0;
    const struct gs_json *nm = gs_json_is_string(v) ? v
                               : gs_json_get(v, "name");
    if (!gs_json_is_string(nm))
        return 0;               /* the scenario's own check says what */
    const char *name = gs_json_string(nm);
    if (pol ? gs_policy_find(name) != NULL : gs_placer_find(name) != NULL)
        return 0;
    const void *const *tab = pol ? (const void *const *)gs_policies
                                 : (const void *const *)gs_placers;
    size_t off = pol ? offsetof(struct gs_policy_ops, name)
                     : offsetof(struct gs_placer_ops, name);
    char list[512], hint[128];
    gs_names_join(list, sizeof list, tab, off);
    gs_names_suggest(name, tab, off, hint, sizeof hint);
    return perr(c, path, "unknown %s '%s'%s (known: %s)",
                pol ? "policy" : "placement", name, hint, list);
}

static int key_axis(struct pctx *c, const struct gs_json *list, const char *path,
                    const char *label, const char *key)
{
    if (!gs_json_is_array(list))
        return perr(c, path, "expected a list of values");
    struct gs_plan_axis *a = new_axis(c, path, label,
                                      gs_json_size(list));
    if (a == NULL)
        return c->d->code ? c->d->code : GS_EINVAL;
    int v = 0, rc;
    GS_JSON_PATH(ip);
    for (const struct gs_json *it = gs_json_first(list); it; it = gs_json_next(it), v++) {
        gs_json_path_at(&ip, path, v);
        if ((rc = check_named(c, it, ip, key)) < 0)
            return rc;
        char *txt = gs_json_print(it);
        if (txt == NULL)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        show(it, a->names[v], sizeof a->names[v]);
        rc = add_edit(c, a, v, GS_EDIT_SET, key, txt);
        free(txt);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The index in $.fleet of a pool given by name or index. */
static int pool_ref(struct pctx *c, const struct gs_json *v, const char *path)
{
    int n = gs_json_size(c->fleet);
    if (gs_json_is_number(v) && gs_json_number(v) == floor(gs_json_number(v)) &&
        gs_json_number(v) >= 0 && gs_json_number(v) < n)
        return (int)gs_json_number(v);
    if (gs_json_is_string(v)) {
        int i = 0;
        for (const struct gs_json *f = gs_json_first(c->fleet); f; f = gs_json_next(f), i++) {
            const struct gs_json *nm = gs_json_get(f, "name");
            char def[32];
            snprintf(def, sizeof def, "pool%d", i);
            if ((gs_json_is_string(nm) && strcmp(gs_json_string(nm),
                                              gs_json_string(v)) == 0) ||
                (!nm && strcmp(def, gs_json_string(v)) == 0))
                return i;
        }
    }
    return perr(c, path, "no such pool in $.fleet (give its name or its "
                "index 0..%d)", n - 1);
}

/* "cap": the most nodes or replicas a widened range may reach (default
 * four times the range's top; the top itself turns widening off). */
static int parse_cap(struct pctx *c, const struct gs_json *o,
                     const char *path, struct gs_plan_count *k)
{
    const struct gs_json *v = gs_json_get(o, "cap");
    k->cap = 4 * k->hi > 100000 ? 100000 : 4 * k->hi;
    if (v == NULL)
        return 0;
    GS_JSON_PATH(cp);
    gs_json_path_key(&cp, path, "cap");
    if (!gs_json_is_number(v) || gs_json_number(v) != floor(gs_json_number(v))
        || gs_json_number(v) < k->hi || gs_json_number(v) > 100000)
        return perr(c, cp, "expected a whole number from the range's top "
                    "(%d) to 100000", k->hi);
    k->cap = (int)gs_json_number(v);
    return 0;
}

/* A searched pool's entry being read: the entry o at path, its pool's
 * index in $.fleet and $.fleet entry fe, its name, and the key path
 * "fleet[N]" its edits go to. */
struct pref {
    const struct gs_json *o, *fe;
    const char *path;
    int pool;
    char pname[GS_PLAN_NAME];
    char fpath[64];
};

/* "nodes": [min, max] (with "step", "cap"): the pool's node count,
 * searched. */
static int pool_nodes(struct pctx *c, const struct pref *r)
{
    int rc;
    const struct gs_json *nodes = gs_json_get(r->o, "nodes");
    if (nodes) {
        GS_JSON_PATH(np);
        gs_json_path_key(&np, r->path, "nodes");
        double lo, hi, step = 1;
        if (gs_json_is_array(nodes) && gs_json_size(nodes) == 2 &&
            gs_json_is_number(gs_json_first(nodes)) && gs_json_is_number(gs_json_next(gs_json_first(nodes)))) {
            lo = gs_json_number(gs_json_first(nodes));
            hi = gs_json_number(gs_json_next(gs_json_first(nodes)));
        } else {
            return perr(c, np, "expected [min, max] node counts");
        }
        const struct gs_json *st = gs_json_get(r->o, "step");
        if (st) {
            if (!gs_json_is_number(st) || gs_json_number(st) < 1 ||
                gs_json_number(st) > 100000 ||
                gs_json_number(st) != floor(gs_json_number(st)))
                return perr(c, r->path, "step: expected a whole number from "
                            "1 to 100000");
            step = gs_json_number(st);
        }
        if (lo != floor(lo) || hi != floor(hi) || lo < 0 || hi > 100000)
            return perr(c, np, "expected whole numbers from 0 to 100000");
        if (hi < lo)
            return perr(c, np, "min %g is above max %g", lo, hi);
        for (int k = 0; k < c->p->ncounts; k++)
            if (c->p->counts[k].pool == r->pool)
                return perr(c, np, "pool '%s' is searched twice", r->pname);
        if (c->p->ncounts && c->p->counts[c->p->ncounts - 1].pool < 0)
            return perr(c, np, "list the searched pools before the "
                        "services");
        struct gs_plan_count *nc = realloc(c->p->counts,
                                           (size_t)(c->p->ncounts + 1) *
                                           sizeof *nc);
        if (nc == NULL)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        c->p->counts = nc;
        struct gs_plan_count *k = &nc[c->p->ncounts++];
        k->pool = r->pool;
        snprintf(k->key, sizeof k->key, "fleet[%d].nodes", r->pool);
        snprintf(k->name, sizeof k->name, "%s", r->pname);
        k->lo = (int)lo;
        k->hi = (int)hi;
        k->step = (int)step;
        k->floor = 0;
        if ((rc = parse_cap(c, r->o, r->path, k)) < 0)
            return rc;
    }

    return 0;
}

/* "gpu": a list of GPU models (with "price_per_gpu_hour" per model): an
 * axis. */
static int pool_gpu(struct pctx *c, const struct pref *r)
{
    int rc;
    char key[128], label[GS_PLAN_NAME + 32];    /* "fleet[N].KEY", "POOL.gpu" */
    const struct gs_json *gpu = gs_json_get(r->o, "gpu");
    const struct gs_json *prices = gs_json_get(r->o,
                                                           "price_per_gpu_hour");
    if (prices && !gpu)
        return perr(c, r->path, "price_per_gpu_hour (a price per GPU model) "
                    "goes with a 'gpu' list");
    if (gpu) {
        GS_JSON_PATH(gp);
        GS_JSON_PATH(gi);
        gs_json_path_key(&gp, r->path, "gpu");
        if (!gs_json_is_array(gpu))
            return perr(c, gp, "expected a list of GPU model names");
        if (prices && !gs_json_is_object(prices))
            return perr(c, r->path, "price_per_gpu_hour: expected an object "
                        "{\"MODEL\": price, ...}");
        int priced = gs_json_get(r->fe, "price_per_gpu_hour")
                     || gs_json_get(r->fe, "price_per_hour");
        if (priced && !prices && gs_json_size(gpu) > 1)
            return perr(c, gp, "pool '%s' sets its own price: give "
                        "price_per_gpu_hour per model beside the gpu list",
                        r->pname);
        snprintf(label, sizeof label, "%s.gpu", r->pname);
        struct gs_plan_axis *a = new_axis(c, gp, label,
                                          gs_json_size(gpu));
        if (a == NULL)
            return c->d->code ? c->d->code : GS_EINVAL;
        int v = 0;
        for (const struct gs_json *g = gs_json_first(gpu); g; g = gs_json_next(g), v++) {
            char val[200];          /* a catalog model's name, quoted */
            gs_json_path_at(&gi, gp, v);
            if (!gs_json_is_string(g))
                return perr(c, gi, "expected a GPU model name");
            if (gs_catalog_find(&c->s->cat, gs_json_string(g)) < 0)
                return perr(c, gi, "unknown GPU model '%s'", gs_json_string(g));
            snprintf(a->names[v], sizeof a->names[v], "%s", gs_json_string(g));
            snprintf(key, sizeof key, "%s.gpu", r->fpath);
            snprintf(val, sizeof val, "\"%s\"", gs_json_string(g));
            if ((rc = add_edit(c, a, v, GS_EDIT_SET, key, val)) < 0)
                return rc;
            if (prices) {
                const struct gs_json *pr = gs_json_get(
                    prices, gs_json_string(g));
                if (!gs_json_is_number(pr) || gs_json_number(pr) < 0)
                    return perr(c, r->path, "price_per_gpu_hour: no price for "
                                "'%s'", gs_json_string(g));
                snprintf(val, sizeof val, "%.17g", gs_json_number(pr));
                snprintf(key, sizeof key, "%s.price_per_gpu_hour", r->fpath);
                if ((rc = add_edit(c, a, v, GS_EDIT_SET, key, val)) < 0)
                    return rc;
            }
        }
    }
    return 0;
}

/* "market", "sharing": lists of values of the pool's keys, one axis
 * each. */
static int pool_listed(struct pctx *c, const struct pref *r)
{
    int rc;
    char key[128], label[GS_PLAN_NAME + 32];
    static const char *const listed[] = { "market", "sharing", NULL };
    for (int i = 0; listed[i]; i++) {
        const struct gs_json *l = gs_json_get(r->o, listed[i]);
        if (l == NULL)
            continue;
        GS_JSON_PATH(lp);
        gs_json_path_key(&lp, r->path, listed[i]);
        snprintf(label, sizeof label, "%s.%s", r->pname, listed[i]);
        snprintf(key, sizeof key, "%s.%s", r->fpath, listed[i]);
        if ((rc = key_axis(c, l, lp, label, key)) < 0)
            return rc;
    }
    return 0;
}

/* "variants": a list of objects of pool keys, set together: an axis. */
static int pool_variants(struct pctx *c, const struct pref *r)
{
    int rc;
    char label[GS_PLAN_NAME + 32];
    const struct gs_json *var = gs_json_get(r->o, "variants");
    if (var) {
        GS_JSON_PATH(vp);
        GS_JSON_PATH(ip);
        gs_json_path_key(&vp, r->path, "variants");
        if (!gs_json_is_array(var))
            return perr(c, vp, "expected a list of objects of pool keys");
        snprintf(label, sizeof label, "%s.variant", r->pname);
        struct gs_plan_axis *a = new_axis(c, vp, label,
                                          gs_json_size(var));
        if (a == NULL)
            return c->d->code ? c->d->code : GS_EINVAL;
        int v = 0;
        for (const struct gs_json *it = gs_json_first(var); it; it = gs_json_next(it), v++) {
            gs_json_path_at(&ip, vp, v);
            if (!gs_json_is_object(it))
                return perr(c, ip, "expected an object of pool keys");
            show(it, a->names[v], sizeof a->names[v]);
            for (const struct gs_json *kv = gs_json_first(it); kv; kv = gs_json_next(kv)) {
                /* the pool's key whole, however long (the scenario then
                 * names it if it is none of a pool's) */
                char *txt = gs_json_print(kv);
                char *key = gs_strf("%s.%s", r->fpath, gs_json_key(kv));
                rc = txt && key ? add_edit(c, a, v, GS_EDIT_SET, key, txt)
                     : gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
                free(key);
                free(txt);
                if (rc < 0)
                    return rc;
            }
        }
    }
    return 0;
}

/* "spot_share" (with "spot_discount", "spot"): the shares of the searched
 * node count bought as spot: an axis. */
static int pool_spot(struct pctx *c, const struct pref *r)
{
    int rc;
    char label[GS_PLAN_NAME + 32];
    const struct gs_json *spot = gs_json_get(r->o, "spot_share");
    if (!spot && (gs_json_get(r->o, "spot_discount") ||
                  gs_json_get(r->o, "spot")))
        return perr(c, r->path, "spot_discount and spot go with spot_share");
    if (spot) {
        GS_JSON_PATH(sp);
        GS_JSON_PATH(ip);
        gs_json_path_key(&sp, r->path, "spot_share");
        if (!gs_json_get(r->o, "nodes"))
            return perr(c, sp, "a spot share splits a searched node count: "
                        "give 'nodes' too");
        if (!gs_json_is_array(spot))
            return perr(c, sp, "expected a list of shares from 0 to 1");
        snprintf(label, sizeof label, "%s.spot_share", r->pname);
        struct gs_plan_axis *a = new_axis(c, sp, label,
                                          gs_json_size(spot));
        if (a == NULL)
            return c->d->code ? c->d->code : GS_EINVAL;
        a->spot_pool = r->pool;
        a->spot_discount = 0.7;
        const struct gs_json *dsc = gs_json_get(r->o,
                                                            "spot_discount");
        if (dsc && (!gs_json_is_number(dsc) || !(gs_json_number(dsc) >= 0 &&
                                               gs_json_number(dsc) < 1)))
            return perr(c, r->path, "spot_discount: expected a fraction in "
                        "[0, 1)");
        if (dsc)
            a->spot_discount = gs_json_number(dsc);
        const struct gs_json *scfg = gs_json_get(r->o, "spot");
        if (scfg == NULL)
            scfg = gs_json_get(r->fe, "spot");
        if (!gs_json_is_object(scfg))
            return perr(c, r->path, "spot_share needs the spot pool's \"spot\" "
                        "object (e.g. {\"interruptions_per_hour\": 0.05}; "
                        "docs/cloud.md)");
        if ((a->spot_cfg = gs_json_print(scfg)) == NULL)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        if (gs_json_get(r->o, "gpu") &&
            gs_json_get(r->o, "price_per_gpu_hour"))
            snprintf(a->spot_key, sizeof a->spot_key, "price_per_gpu_hour");
        else if (gs_json_get(r->fe, "price_per_gpu_hour"))
            snprintf(a->spot_key, sizeof a->spot_key, "price_per_gpu_hour");
        else if (gs_json_get(r->fe, "price_per_hour"))
            snprintf(a->spot_key, sizeof a->spot_key, "price_per_hour");
        int v = 0;
        for (const struct gs_json *it = gs_json_first(spot); it; it = gs_json_next(it), v++) {
            gs_json_path_at(&ip, sp, v);
            if ((rc = share_value(c, it, ip, &a->share[v])) < 0)
                return rc;
            snprintf(a->names[v], sizeof a->names[v], "%g", a->share[v]);
        }
    }
    return 0;
}

/* search.pools[]: a pool of $.fleet by name or index, and what of it is
 * searched (sections below). */
static int parse_pool(struct pctx *c, const struct gs_json *o, const char *path)
{
    int rc;
    if ((rc = keys(c, o, path, &t_pool)) < 0)
        return rc;
    GS_JSON_PATH(pp);
    gs_json_path_key(&pp, path, "pool");
    const struct gs_json *pv = gs_json_get(o, "pool");
    if (pv == NULL)
        return perr(c, path, "missing required key 'pool'");
    int pool = pool_ref(c, pv, pp);
    if (pool < 0)
        return pool;
    const struct gs_json *fe = gs_json_item(c->fleet, pool);
    if (gs_json_get(fe, "from_node_list"))
        return perr(c, pp, "a pool read from a node list cannot be searched");
    struct pref r = { .o = o, .fe = fe, .path = path, .pool = pool };
    const struct gs_json *nm = gs_json_get(fe, "name");
    if (gs_json_is_string(nm))
        snprintf(r.pname, sizeof r.pname, "%s", gs_json_string(nm));
    else
        snprintf(r.pname, sizeof r.pname, "pool%d", pool);
    snprintf(r.fpath, sizeof r.fpath, "fleet[%d]", pool);
    if ((rc = pool_nodes(c, &r)) < 0 || (rc = pool_gpu(c, &r)) < 0 ||
        (rc = pool_listed(c, &r)) < 0 || (rc = pool_variants(c, &r)) < 0 ||
        (rc = pool_spot(c, &r)) < 0)
        return rc;
    return 0;
}

/* search.services[]: {"service": NAME, "replicas": [min, max], "tp": [..],
 * "gpu": [..]} -- the replica count is bisected, the rest are axes. */
static int parse_service(struct pctx *c, const struct gs_json *o, const char *path)
{
    int rc;
    if ((rc = keys(c, o, path, &t_svc)) < 0)
        return rc;
    const struct gs_json *nm = gs_json_get(o, "service");
    int si = -1;
    for (int i = 0; gs_json_is_string(nm) && i < c->s->nsvcs; i++)
        if (strcmp(c->s->svcs[i].name, gs_json_string(nm)) == 0)
            si = i;
    if (si < 0)
        return perr(c, path, "'service' must name a service of $.services");
    char key[96], label[GS_PLAN_NAME + 16];   /* "services[N].KEY" */
    GS_JSON_PATH(lp);
    const struct gs_json *r = gs_json_get(o, "replicas");
    if (r) {
        gs_json_path_key(&lp, path, "replicas");
        if (!gs_json_is_array(r) || gs_json_size(r) != 2 ||
            !gs_json_is_number(gs_json_first(r)) || !gs_json_is_number(gs_json_next(gs_json_first(r))))
            return perr(c, lp, "expected [min, max] replica counts");
        double lo = gs_json_number(gs_json_first(r)), hi = gs_json_number(gs_json_next(gs_json_first(r)));
        if (lo != floor(lo) || hi != floor(hi) || lo < 1 || hi > 100000)
            return perr(c, lp, "expected whole numbers from 1 to 100000");
        if (hi < lo)
            return perr(c, lp, "min %g is above max %g", lo, hi);
        struct gs_plan_count *nc = realloc(c->p->counts,
                                           (size_t)(c->p->ncounts + 1) *
                                           sizeof *nc);
        if (nc == NULL)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        c->p->counts = nc;
        struct gs_plan_count *k = &nc[c->p->ncounts++];
        k->pool = -1;
        snprintf(k->key, sizeof k->key, "services[%d].replicas", si);
        snprintf(k->name, sizeof k->name, "%.80s", gs_json_string(nm));
        k->lo = (int)lo;
        k->hi = (int)hi;
        k->step = 1;
        k->floor = 1;
        if ((rc = parse_cap(c, o, path, k)) < 0)
            return rc;
    }
    static const char *const listed[] = { "tp", "gpu", NULL };
    for (int i = 0; listed[i]; i++) {
        const struct gs_json *l = gs_json_get(o, listed[i]);
        if (l == NULL)
            continue;
        gs_json_path_key(&lp, path, listed[i]);
        snprintf(label, sizeof label, "%.80s.%s", gs_json_string(nm), listed[i]);
        snprintf(key, sizeof key, "services[%d].%s", si, listed[i]);
        if ((rc = key_axis(c, l, lp, label, key)) < 0)
            return rc;
    }
    return 0;
}

/* $.plan.search.KEY, when given: a list whose items fn parses, each with
 * its own path. */
static int parse_list(struct pctx *c, const struct gs_json *o, const char *key,
                      int (*fn)(struct pctx *, const struct gs_json *, const char *))
{
    const struct gs_json *l = gs_json_get(o, key);
    if (l == NULL)
        return 0;
    char p[64];
    snprintf(p, sizeof p, "$.plan.search.%s", key);
    if (!gs_json_is_array(l))
        return perr(c, p, "expected a list");
    int i = 0, rc;
    for (const struct gs_json *it = gs_json_first(l); it; it = gs_json_next(it), i++) {
        snprintf(p, sizeof p, "$.plan.search.%s[%d]", key, i);
        if ((rc = fn(c, it, p)) < 0)
            return rc;
    }
    return 0;
}

static int parse_search(struct pctx *c, const struct gs_json *o)
{
    const char *path = "$.plan.search";
    int rc;
    if ((rc = keys(c, o, path, &t_search)) < 0)
        return rc;
    if ((rc = parse_list(c, o, "pools", parse_pool)) < 0 ||
        (rc = parse_list(c, o, "services", parse_service)) < 0)
        return rc;
    const struct gs_json *pol = gs_json_get(o, "policies");
    if (pol && (rc = key_axis(c, pol, "$.plan.search.policies", "policy",
                              "policy")) < 0)
        return rc;
    const struct gs_json *ch = gs_json_get(o, "choices");
    if (ch) {
        if (!gs_json_is_array(ch))
            return perr(c, "$.plan.search.choices", "expected a list");
        int i = 0;
        for (const struct gs_json *it = gs_json_first(ch); it; it = gs_json_next(it), i++) {
            char p[64], vp[80];
            snprintf(p, sizeof p, "$.plan.search.choices[%d]", i);
            snprintf(vp, sizeof vp, "%s.values", p);
            if ((rc = keys(c, it, p, &t_choice)) < 0)
                return rc;
            const struct gs_json *k = gs_json_get(it, "key");
            const struct gs_json *v = gs_json_get(it, "values");
            if (!gs_json_is_string(k) || v == NULL)
                return perr(c, p, "expected {\"key\": \"a.key[0].path\", "
                            "\"values\": [...]}");
            if ((rc = key_axis(c, v, vp, gs_json_string(k), gs_json_string(k))) < 0)
                return rc;
        }
    }
    if (c->p->ncounts == 0 && c->p->naxes == 0)
        return perr(c, path, "an empty search space: give pools with node "
                    "ranges, policies or choices");
    return 0;
}

int gs_plancfg_parse(const struct gs_json *o, const struct gs_json *root,
                     const char *file, const struct gs_scenario *s,
                     struct gs_plancfg **out, struct gs_diag *d)
{
    struct gs_plancfg *p = calloc(1, sizeof *p);
    if (p == NULL)
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    p->seeds = 5;
    p->min_seeds = 3;
    p->hours_per_month = 730;
    struct pctx c = { file, d, s, gs_json_get(root,
                                                                  "fleet"), p };
    int rc;
    if ((rc = keys(&c, o, "$.plan", &t_plan)) < 0)
        goto fail;
    const struct gs_json *t = gs_json_get(o, "targets");
    const struct gs_json *se = gs_json_get(o, "search");
    if (t == NULL) {
        rc = perr(&c, "$.plan", "missing required key 'targets'");
        goto fail;
    }
    if (se == NULL) {
        rc = perr(&c, "$.plan", "missing required key 'search'");
        goto fail;
    }
    if ((rc = parse_targets(&c, t)) < 0 || (rc = parse_search(&c, se)) < 0)
        goto fail;
    const struct gs_json *v = gs_json_get(o, "objective");
    p->objective = -1;
    for (int k = 0; k < 5; k++)
        if (v == NULL ? k == 0 : gs_json_is_string(v) &&
                                 strcmp(gs_json_string(v), objectives[k]) == 0)
            p->objective = k;
    if (p->objective < 0) {
        rc = perr(&c, "$.plan.objective", "unknown objective (known: "
                  "cost_per_month, cost_per_million_tokens, "
                  "energy_kwh_per_month, carbon_kg_per_month, "
                  "energy_cost_per_month)");
        goto fail;
    }
    if (p->objective == 1 && s->nsvcs == 0) {
        rc = perr(&c, "$.plan.objective", "cost per million tokens needs "
                  "inference services ($.services)");
        goto fail;
    }
    static const char *const ints[] = { "seeds", "min_seeds", "max_seeds" };
    int *slot[] = { &p->seeds, &p->min_seeds, &p->max_seeds };
    for (int i = 0; i < 3; i++) {
        v = gs_json_get(o, ints[i]);
        if (v == NULL)
            continue;
        if (!gs_json_is_number(v) || gs_json_number(v) != floor(gs_json_number(v)) ||
            gs_json_number(v) < 2 || gs_json_number(v) > 1000) {
            char p2[64];
            snprintf(p2, sizeof p2, "$.plan.%s", ints[i]);
            rc = perr(&c, p2, "expected a whole number from 2 to 1000 (a "
                      "confidence interval needs two seeds)");
            goto fail;
        }
        *slot[i] = (int)gs_json_number(v);
    }
    if (p->min_seeds > p->seeds)
        p->min_seeds = p->seeds;
    if (p->max_seeds != 0 && p->max_seeds < p->seeds) {
        rc = perr(&c, "$.plan.max_seeds", "the cap on seeds (%d) is below "
                  "plan.seeds (%d)", p->max_seeds, p->seeds);
        goto fail;
    }
    v = gs_json_get(o, "indifference");
    if (v && (!gs_json_is_number(v) || !(gs_json_number(v) >= 0 &&
                                         gs_json_number(v) < 0.5))) {
        rc = perr(&c, "$.plan.indifference", "expected the indifference "
                  "zone as a share of each target, from 0 to below 0.5 "
                  "(0.01: within +-1%% of the target)");
        goto fail;
    }
    p->indifference = v ? gs_json_number(v) : 0.01;
    p->futility = 1;
    {
        struct gs_jin in = { c.file, c.d };
        if ((rc = gs_json_bool(&in, o, "$.plan", "futility",
                               &p->futility)) < 0)
            goto fail;
    }
    if (gs_json_get(o, "horizon")) {    /* the key of an earlier release */
        rc = perr(&c, "$.plan.horizon", "the question is the scenario's, "
                  "the same for every command: state it as $.question "
                  "(\"steady\" or \"finite\"), not in $.plan");
        goto fail;
    }
    v = gs_json_get(o, "precision");
    if (v && (!gs_json_is_number(v) || !(gs_json_number(v) > 0 &&
                                         gs_json_number(v) < 1))) {
        rc = perr(&c, "$.plan.precision", "expected the relative half-width "
                  "asked of each steady-state target, above 0 and below 1 "
                  "(0.05: +-5%% at 95%%)");
        goto fail;
    }
    p->precision = v ? gs_json_number(v) : 0.05;
    v = gs_json_get(o, "max_length_factor");
    if (v && (!gs_json_is_number(v) ||
              gs_json_number(v) != floor(gs_json_number(v)) ||
              gs_json_number(v) < 1 || gs_json_number(v) > 1024)) {
        rc = perr(&c, "$.plan.max_length_factor", "expected a whole number "
                  "from 1 to 1024 (the longest run, as a factor of the "
                  "scenario's request count or horizon; 1: never lengthen)");
        goto fail;
    }
    p->max_length = v ? (int)gs_json_number(v) : 8;
    v = gs_json_get(o, "growth");
    if (v) {
        if (!gs_json_is_array(v) || gs_json_size(v) > 16) {
            rc = perr(&c, "$.plan.growth", "expected a list of up to 16 load "
                      "factors");
            goto fail;
        }
        for (const struct gs_json *g = gs_json_first(v); g; g = gs_json_next(g)) {
            if (!gs_json_is_number(g) || !(gs_json_number(g) > 0 &&
                                        gs_json_number(g) <= 1000)) {
                rc = perr(&c, "$.plan.growth", "a load factor must be a "
                          "number in (0, 1000]");
                goto fail;
            }
            p->growth[p->ngrowth++] = gs_json_number(g);
        }
    }
    *out = p;
    return 0;
fail:
    gs_plancfg_free(p);
    return rc;
}

void gs_plancfg_free(struct gs_plancfg *p)
{
    if (p == NULL)
        return;
    for (int a = 0; a < p->naxes; a++) {
        struct gs_plan_axis *ax = &p->ax[a];
        for (int v = 0; v < ax->nvalues && ax->edits; v++) {
            for (int e = 0; ax->nedits && e < ax->nedits[v]; e++) {
                free(ax->edits[v][e].path);
                free(ax->edits[v][e].value);
            }
            free(ax->edits[v]);
        }
        free(ax->label);
        free(ax->path);
        free(ax->edits);
        free(ax->nedits);
        free(ax->names);
        free(ax->share);
        free(ax->spot_cfg);
    }
    for (int t = 0; t < p->ntargets; t++)
        free(p->t[t].path);
    free(p->counts);
    free(p);
}

int gs_plancfg_load(const struct gs_scenario *s, struct gs_plancfg **out,
                    struct gs_diag *d)
{
    *out = NULL;
    struct gs_json *doc = NULL;
    int rc = gs_json_parse(s->text, s->file, &doc, d);
    if (rc < 0)
        return rc;
    const struct gs_json *v = gs_json_get(doc, "plan");
    if (v != NULL)
        rc = gs_plancfg_parse(v, doc, s->file, s, out, d);
    gs_json_free(doc);
    return rc;
}

/* --- `gpusim scenario --check` ------------------------------------------ */

/* Value v of axis a (spot axes: the spot pool it makes, v unused) applied
 * to s alone: 0, or the scenario's complaint in d, placed at the value. */
static int check_value(const struct gs_scenario *s,
                       const struct gs_plan_axis *a, int v, struct gs_diag *d)
{
    struct gs_edit spot[2];
    char k0[64], k1[64];
    const struct gs_edit *e = a->spot_pool >= 0 ? spot : a->edits[v];
    int n = a->spot_pool >= 0 ? 2 : a->nedits[v];
    if (a->spot_pool >= 0) {
        snprintf(k0, sizeof k0, "fleet[%d].market", a->spot_pool);
        snprintf(k1, sizeof k1, "fleet[%d].spot", a->spot_pool);
        spot[0] = (struct gs_edit){ .op = GS_EDIT_SET, .path = k0,
                                    .value = "\"spot\"" };
        spot[1] = (struct gs_edit){ .op = GS_EDIT_SET, .path = k1,
                                    .value = a->spot_cfg };
    }
    struct gs_diag dd = { 0 };
    struct gs_scenario *sc = NULL;
    char *text = NULL;
    int rc = gs_json_edit(s->text, e, n, &text, "$.plan", &dd);
    if (rc == 0)
        rc = gs_reparse(s, text, &sc, &dd);
    if (rc == 0)
        rc = gs_check_names(sc, &dd);
    free(text);
    gs_scenario_free(sc);
    if (rc == 0)
        return 0;
    /* "FILE (edited): $.fleet[0].market" -> "$.fleet[0].market" */
    const char *in = strstr(gs_diag_where(&dd), " (edited): ");
    char *where = a->spot_pool >= 0 ? gs_strf("%s: %s", s->file, a->path)
                  : gs_strf("%s: %s[%d]", s->file, a->path, v);
    rc = gs_diag_set_at(d, rc, where, "makes the scenario invalid: %s: %s",
                        in ? in + 11 : gs_diag_where(&dd), gs_diag_what(&dd));
    gs_diag_free(&dd);
    return rc;
}

static int plan_check(const struct gs_scenario *s, struct gs_diag *d)
{
    struct gs_plancfg *p = NULL;
    int rc = gs_plancfg_load(s, &p, d);
    for (int a = 0; rc == 0 && p && a < p->naxes; a++) {
        const struct gs_plan_axis *ax = &p->ax[a];
        int nv = ax->spot_pool >= 0 ? 1 : ax->nvalues;
        for (int v = 0; rc == 0 && v < nv; v++)
            rc = check_value(s, ax, v, d);
    }
    gs_plancfg_free(p);
    return rc;
}

const struct gs_sc_section gs_plan_section = {
    .key = "plan", .table = &t_plan, .check = plan_check,
};
