/* scenario_workload.c -- the scenario's policy, placement and job
 * workload: a trace, or the generator with its classes and distributions
 * (gen.h; docs/traces.md#generator-spec).
 *
 * A plug-in (policy, placer) and a trace take free parameters beside
 * their name or format: those objects are open (keytab.h), their other
 * keys numbers, booleans or strings that the plug-in or the trace reader
 * checks when it starts.  Every other object is closed.  Key tables as in
 * scenario_fleet.c. */
#include "scenint.h"
#include "source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- plug-ins and the trace ---------------------------------------------- */

static const struct gs_kt_key k_policy[] = {
    { .name = "name", .type = GS_KT_STR, .flags = GS_KF_REQ,
      .maxlen = GS_NAME - 1, .src = GS_KS_POLICY,
      .desc = "the scheduling policy" },
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_policy = {
    .id = "policy", .desc = "a policy with its parameters (docs/policies.md)",
    .keys = k_policy, .open = 1
};

static const struct gs_kt_key k_placement[] = {
    { .name = "name", .type = GS_KT_STR, .flags = GS_KF_REQ,
      .maxlen = GS_NAME - 1, .src = GS_KS_PLACER,
      .desc = "the placement plug-in" },
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_placement = {
    .id = "placement", .desc = "a placer with its parameters "
    "(docs/sharing.md)", .keys = k_placement, .open = 1
};

static const struct gs_kt_key k_trace[] = {
    { .name = "format", .type = GS_KT_STR, .flags = GS_KF_REQ,
      .maxlen = GS_NAME - 1, .src = GS_KS_TRACE_FORMAT,
      .desc = "the trace's format; its options are in docs/traces.md" },
    GS_K_STR("path", 0, 0, "the trace, relative to the scenario's folder"),
    GS_K_END
};

static const struct gs_kt_obj t_trace = {
    .id = "trace", .desc = "a job trace: format, path and the format's "
    "options (checked by the trace's reader)", .keys = k_trace, .open = 1
};

/* Flat parameters of an object: every key but skip, each a number, a
 * boolean (kept as 0/1) or a string. */
static int collect_params(struct gs_sc *c, const cJSON *v, const char *path,
                          const char *skip, struct gs_params *params)
{
    int rc = 0;
    for (const cJSON *it = v->child; it; it = it->next) {
        if (skip && strcmp(it->string, skip) == 0)
            continue;
        if (cJSON_IsNumber(it))
            rc = gs_params_add_num(params, it->string, it->valuedouble);
        else if (cJSON_IsBool(it))
            rc = gs_params_add_num(params, it->string, cJSON_IsTrue(it));
        else if (cJSON_IsString(it))
            rc = gs_params_add_str(params, it->string, it->valuestring);
        else {
            GS_JSON_PATH(p);
            gs_json_path_key(&p, path, it->string);
            return gs_sc_err(c, p, "expected a number, true/false or a "
                             "string");
        }
        if (rc < 0)
            return gs_sc_oom(c);
    }
    return 0;
}

static void params_where(struct gs_sc *c, const char *path,
                         struct gs_params *params)
{
    char *where = gs_strf("%s: %s", c->file, path);
    gs_params_free(params);
    gs_params_init(params, where);
    free(where);
}

/* A plug-in: "name" or {"name": ..., key: number|bool|string, ...}. */
int gs_sc_parse_plugin(struct gs_sc *c, const cJSON *v, const char *path,
                       char *name, size_t n, struct gs_params *params)
{
    params_where(c, path, params);
    if (cJSON_IsString(v)) {
        snprintf(name, n, "%s", v->valuestring);
        return 0;
    }
    if (!cJSON_IsObject(v))
        return gs_sc_err(c, path, "expected a name or an object with "
                         "\"name\"");
    const struct gs_kt_obj *t = strcmp(path, "$.policy") == 0
                                    ? &gs_sc_t_policy : &gs_sc_t_placement;
    int rc = gs_sc_str(c, v, path, t, "name", name, n);
    if (rc < 0)
        return rc;
    return collect_params(c, v, path, "name", params);
}

/* --- job classes --------------------------------------------------------- */

static const struct gs_kt_key k_idle[] = {
    { .name = "busy", .type = GS_KT_DUR | GS_KT_OBJ, .flags = GS_KF_REQ,
      .obj = &gs_sc_t_dist, .unit = "s", .desc = "busy phases: a duration "
      "or a distribution" },
    { .name = "idle", .type = GS_KT_DUR | GS_KT_OBJ, .flags = GS_KF_REQ,
      .obj = &gs_sc_t_dist, .unit = "s", .desc = "idle phases: a duration "
      "or a distribution" },
    GS_K_END
};

static const struct gs_kt_obj t_idle = {
    .id = "idle_profile", .desc = "busy and idle phases, for idle reaping",
    .keys = k_idle
};

#define WL_STR_(x) #x
#define WL_STR(x) WL_STR_(x)
#define GEN_MAX_VALUES WL_STR(GS_GEN_MAX_VALUES)

/* A GPU count: 0 (CPU-only), a fraction of one GPU in [0.001, 1], or a
 * whole number up to 100000 (class_gpus checks the same). */
#define GPU_COUNT "{\"anyOf\": [{\"type\": \"integer\", \"minimum\": 0, " \
    "\"maximum\": 100000}, {\"type\": \"number\", \"minimum\": 0.001, " \
    "\"maximum\": 1}]}"

static const struct gs_kt_key k_gpus[] = {
    { .name = "values", .type = GS_KT_ARR, .items = GS_KT_NUM,
      .flags = GS_KF_REQ, .lo = 0, .hi = 100000, .min_items = 1,
      .max_items = GS_GEN_MAX_VALUES, .schema = "\"type\": \"array\", "
      "\"minItems\": 1, \"maxItems\": " GEN_MAX_VALUES ", \"items\": "
      GPU_COUNT, .unit = "GPUs", .desc = "GPU counts: fractions in (0, 1], "
      "0 for CPU-only, or whole numbers" },
    { .name = "weights", .type = GS_KT_ARR, .items = GS_KT_NUM, .lo = 0,
      .hi = HUGE_VAL, .max_items = GS_GEN_MAX_VALUES, .desc = "their weights, "
      ">= 0, as many as values" },
    GS_K_END
};

static const struct gs_kt_obj t_gpus = {
    .id = "gpu_counts", .desc = "a discrete law of GPU counts",
    .keys = k_gpus
};

static const struct gs_kt_key k_class[] = {
    GS_K_STR("name", GS_NAME - 1, 0, "the class's name"),
    GS_K_NUM("weight", 0, 1e9, 0, NULL, "its share of the jobs (default 1)"),
    { .name = "tier", .type = GS_KT_STR, .maxlen = 31,
      .names = gs_sc_tier_names, .desc = "the jobs' tier (default "
      "training)" },
    { .name = "tenants", .type = GS_KT_INT | GS_KT_ARR, .items = GS_KT_STR,
      .lo = 1, .hi = GS_GEN_MAX_NUMBERED, .maxlen = GS_TENANT_NAME - 1,
      .max_items = GS_GEN_MAX_NUMBERED, .desc = "tenant names, or a count N "
      "for tenant1..tenantN" },
    { .name = "gpus", .type = GS_KT_NUM | GS_KT_OBJ, .obj = &t_gpus,
      .lo = 0, .hi = 100000, .schema = "\"anyOf\": [" GPU_COUNT ", "
      "{\"$ref\": \"#/$defs/gpu_counts\"}]", .unit = "GPUs",
      .desc = "GPUs a job asks (default 1): a number or a discrete law" },
    GS_K_OBJ("duration", &gs_sc_t_dist, GS_KF_REQ, "run time at full speed "
             "on the reference GPU"),
    GS_K_NUM("memory_gb", 0, 1e6, 0, "GB", "GPU memory per GPU"),
    GS_K_NUM("compute_bound", 0, 1, 0, NULL, "compute-bound share of the "
             "work (default 0.5)"),
    GS_K_DUR("deadline", 0, "deadline after arrival"),
    GS_K_DUR("checkpoint_interval", 0, "checkpoint interval"),
    GS_K_NUM("estimate_factor", 0, 1e6, 0, NULL, "the user's estimate as a "
             "multiple of the true duration"),
    { .name = "tenant_weights", .type = GS_KT_ARR, .items = GS_KT_NUM,
      .lo = 0, .hi = 1e12, .max_items = GS_GEN_MAX_NUMBERED,
      .desc = "weights of the tenants, one per tenant" },
    GS_K_OBJ("idle_profile", &t_idle, 0, "busy and idle phases"),
    GS_K_STR("mig_profile", GS_MIG_PROFILE_NAME - 1, 0, "the MIG profile a "
             "job asks, such as \"1g.10gb\""),
    GS_K_NUM("duty_cycle", 1e-6, 1, 0, NULL, "share of time a job uses its "
             "GPU (time-slicing)"),
    GS_K_NUM("gpu_guarantee", 1e-3, 1, 0, "GPUs", "guaranteed GPU fraction "
             "(fractional sharing)"),
    GS_K_NUM("gpu_burst", 1e-3, 1, 0, "GPUs", "GPU fraction it may burst to "
             "(fractional sharing; >= gpu_guarantee)"),
    { .name = "gpu_models", .type = GS_KT_ARR, .items = GS_KT_STR,
      .flags = GS_KF_CI, .src = GS_KS_GPU, .maxlen = GS_MODEL_NAME - 1,
      .min_items = 1, .desc = "GPU models a job may use" },
    GS_K_STR("gpu_family", GS_GPU_FAMILY_NAME - 1, 0, "GPU models by the "
             "start of their name, as H100 for H100-80GB; '|' separates "
             "several"),
    GS_K_NUM("gpu_mem_min_gib", 0, 1e6, 0, "GiB", "least memory of the GPU "
             "or MIG instance"),
    GS_K_NUM("comm_share", 0, 1, 0, NULL, "a gang's share of time in "
             "communication when consolidated"),
    GS_K_END
};

static const struct gs_kt_rule r_class[] = {
    { .cond = GS_KC_HAS, .key = "tenant_weights", .need = "tenants" },
    { 0 }
};

static const struct gs_kt_obj t_class = {
    .id = "job_class", .desc = "a class of generated jobs",
    .keys = k_class, .more = gs_sc_k_host, .rules = r_class
};

/* A class's sharing keys: mig_profile (a name), duty_cycle in (0, 1],
 * gpu_guarantee and gpu_burst fractions in (0, 1], guarantee <= burst. */
static int sharing_keys(struct gs_sc *c, const cJSON *o, const char *p,
                        struct gs_genclass *k)
{
    const struct gs_kt_obj *t = &t_class;
    double duty = 0, g = 0, b = 0;
    int rc;
    if ((rc = gs_sc_str(c, o, p, t, "mig_profile", k->mig_profile,
                        sizeof k->mig_profile)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "duty_cycle", &duty)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "gpu_guarantee", &g)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "gpu_burst", &b)) < 0)
        return rc;
    if (b > 0 && g > 0 && b < g) {
        GS_JSON_PATH(q);
        gs_json_path_key(&q, p, "gpu_burst");
        return gs_sc_err(c, q, "%g is below gpu_guarantee %g", b, g);
    }
    k->duty = duty;
    k->guar_milli = (int)lround(g * 1000);
    k->burst_milli = (int)lround(b * 1000);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "gpu_models");
    GS_JSON_PATH(q);
    gs_json_path_key(&q, p, "gpu_models");
    if (m && (!cJSON_IsArray(m) || cJSON_GetArraySize(m) == 0))
        return gs_sc_err(c, q, "expected a non-empty array of GPU model "
                         "names");
    for (const cJSON *e = m ? m->child : NULL; e; e = e->next) {
        int mi = cJSON_IsString(e) ? gs_catalog_find(&c->s->cat,
                                                     e->valuestring) : -1;
        if (mi < 0)
            return gs_sc_err(c, q, "unknown GPU model %s%s%s",
                             cJSON_IsString(e) ? "'" : "(not a string)",
                             cJSON_IsString(e) ? e->valuestring : "",
                             cJSON_IsString(e) ? "'" : "");
        k->allowed |= 1ULL << mi;
    }
    return 0;
}

/* A class's "tenants" (names or a count) and "tenant_weights". */
static int class_tenants(struct gs_sc *c, const cJSON *o, const char *p,
                         struct gs_genclass *k)
{
    GS_JSON_PATH(pp);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "tenants");
    gs_json_path_key(&pp, p, "tenants");
    if (cJSON_IsNumber(t)) {
        if (!(t->valuedouble >= 1 && t->valuedouble <= GS_GEN_MAX_NUMBERED) ||
            t->valuedouble != floor(t->valuedouble))
            return gs_sc_err(c, pp, "expected a whole number from 1 to %d",
                             GS_GEN_MAX_NUMBERED);
        k->ntenants = (int)t->valuedouble;
        k->numbered = 1;            /* tenant1 .. tenantN (gen.h) */
    } else if (cJSON_IsArray(t)) {
        int n = cJSON_GetArraySize(t);
        if (n > GS_GEN_MAX_NUMBERED)
            return gs_sc_err(c, pp, "at most %d tenants (a run's limit)",
                             GS_GEN_MAX_NUMBERED);
        if (n > 0 && (k->tenants = calloc((size_t)n,
                                          sizeof *k->tenants)) == NULL)
            return gs_sc_oom(c);
        for (const cJSON *e = t->child; e; e = e->next) {
            if (!cJSON_IsString(e) || !e->valuestring[0] ||
                strlen(e->valuestring) >= GS_TENANT_NAME)
                return gs_sc_err(c, pp, "expected tenant names (non-empty "
                                 "strings under %d characters)",
                                 GS_TENANT_NAME);
            snprintf(k->tenants[k->ntenants++], GS_TENANT_NAME, "%s",
                     e->valuestring);
        }
    } else if (t != NULL) {
        return gs_sc_err(c, pp, "expected a count or an array of names");
    }
    const cJSON *tw = cJSON_GetObjectItemCaseSensitive(o, "tenant_weights");
    if (tw == NULL)
        return 0;
    gs_json_path_key(&pp, p, "tenant_weights");
    if (!cJSON_IsArray(tw) || k->ntenants == 0 ||
        cJSON_GetArraySize(tw) != k->ntenants)
        return gs_sc_err(c, pp, "expected an array of weights, one per "
                         "tenant (%d)", k->ntenants);
    if ((k->tenant_w = calloc((size_t)k->ntenants,
                              sizeof *k->tenant_w)) == NULL)
        return gs_sc_oom(c);
    double sum = 0;
    int i = 0;
    for (const cJSON *e = tw->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) ||
            e->valuedouble > 1e12)
            return gs_sc_err(c, pp, "weights must be numbers >= 0");
        k->tenant_w[i] = e->valuedouble;
        sum += e->valuedouble;
    }
    if (sum <= 0)
        return gs_sc_err(c, pp, "the weights must not all be 0");
    return 0;
}

/* A class's "gpus": a number, or {"values": [...], "weights": [...]}. */
static int class_gpus(struct gs_sc *c, const cJSON *o, const char *p,
                      struct gs_genclass *k)
{
    GS_JSON_PATH(pp);
    int rc;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "gpus");
    gs_json_path_key(&pp, p, "gpus");
    if (g == NULL || cJSON_IsNumber(g)) {
        k->nvalues = 1;
        k->gpus[0] = g ? g->valuedouble : 1.0;
        k->gpu_w[0] = 1.0;
    } else if (cJSON_IsObject(g)) {
        if ((rc = gs_sc_keys(c, g, pp, &t_gpus)) < 0)
            return rc;
        const cJSON *vs = cJSON_GetObjectItemCaseSensitive(g, "values");
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(g, "weights");
        int n = cJSON_GetArraySize(vs);
        if (!cJSON_IsArray(vs) || n < 1 || n > GS_GEN_MAX_VALUES)
            return gs_sc_err(c, pp, "\"values\" must be an array of 1 to %d "
                             "numbers", GS_GEN_MAX_VALUES);
        if (ws && (!cJSON_IsArray(ws) || cJSON_GetArraySize(ws) != n))
            return gs_sc_err(c, pp, "\"weights\" must be an array as long as "
                             "\"values\"");
        k->nvalues = n;
        double wsum = 0;
        for (int i = 0; i < n; i++) {
            const cJSON *v = cJSON_GetArrayItem(vs, i);
            const cJSON *w = ws ? cJSON_GetArrayItem(ws, i) : NULL;
            if (!cJSON_IsNumber(v) || (ws && !cJSON_IsNumber(w)) ||
                (w && w->valuedouble < 0))
                return gs_sc_err(c, pp, "values and weights must be numbers, "
                                 "weights >= 0");
            k->gpus[i] = v->valuedouble;
            k->gpu_w[i] = w ? w->valuedouble : 1.0;
            wsum += k->gpu_w[i];
        }
        if (wsum <= 0)
            return gs_sc_err(c, pp, "the weights must not all be 0");
    } else {
        return gs_sc_err(c, pp, "expected a number or {\"values\": [...], "
                         "\"weights\": [...]}");
    }
    for (int i = 0; i < k->nvalues; i++) {
        double v = k->gpus[i];
        if (!(v >= 0 && v <= 100000) || (v > 1 && v != floor(v)) ||
            (v > 0 && v < 0.001))
            return gs_sc_err(c, pp, "GPU count %g must be a fraction in "
                             "(0, 1], 0 for CPU-only, or a whole number", v);
    }
    return 0;
}

/* A class's "idle_profile": busy and idle phases. */
static int class_idle(struct gs_sc *c, const cJSON *ip, const char *p,
                      struct gs_genclass *k)
{
    GS_JSON_PATH(pp);
    int rc;
    gs_json_path_key(&pp, p, "idle_profile");
    if ((rc = gs_sc_keys(c, ip, pp, &t_idle)) < 0)
        return rc;
    if (!cJSON_GetObjectItemCaseSensitive(ip, "busy") ||
        !cJSON_GetObjectItemCaseSensitive(ip, "idle"))
        return gs_sc_err(c, pp, "give \"busy\" and \"idle\" (durations or "
                         "distributions)");
    if ((rc = gs_sc_dist_or_time(c, ip, pp, "busy", &k->busy)) < 0 ||
        (rc = gs_sc_dist_or_time(c, ip, pp, "idle", &k->idle)) < 0)
        return rc;
    k->idle_prof = 1;
    return 0;
}

static int parse_class(struct gs_sc *c, const cJSON *o, const char *p,
                       struct gs_genclass *k)
{
    const struct gs_kt_obj *t = &t_class;
    int rc;
    char tier[32] = "training";
    GS_JSON_PATH(pp);
    k->weight = 1.0;
    k->cb = 0.5;
    k->comm_share = -1;
    if ((rc = gs_sc_keys(c, o, p, t)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "comm_share", &k->comm_share)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "gpu_family", k->gpu_family,
                        sizeof k->gpu_family)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "gpu_mem_min_gib", &k->gpu_mem_min)) < 0 ||
        (rc = gs_sc_host_keys(c, o, p, &k->cpu_per_gpu, &k->mem_per_gpu,
                              &k->cpu_only, &k->mem_only)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "name", k->name, sizeof k->name)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "weight", &k->weight)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "tier", tier, sizeof tier)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "memory_gb", &k->mem_gb)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "compute_bound", &k->cb)) < 0 ||
        (rc = gs_sc_time(c, o, p, t, "deadline", &k->deadline)) < 0 ||
        (rc = gs_sc_time(c, o, p, t, "checkpoint_interval", &k->ckpt)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "estimate_factor",
                        &k->estimate_factor)) < 0 ||
        (rc = sharing_keys(c, o, p, k)) < 0)
        return rc;
    if (k->gpu_family[0] && !gs_gpu_family_known(&c->s->cat, k->gpu_family)) {
        gs_json_path_key(&pp, p, "gpu_family");
        return gs_sc_err(c, pp, "'%s' names no GPU model of the catalog (a "
                         "family is the start of a model name, as H100 for "
                         "H100-80GB; '|' separates several)", k->gpu_family);
    }
    if ((k->tier = gs_tier_parse(tier)) < 0)
        return gs_sc_err(c, p, "unknown tier '%s' (known: inference, "
                         "training, interactive, data)", tier);
    const cJSON *ip = cJSON_GetObjectItemCaseSensitive(o, "idle_profile");
    if ((ip && (rc = class_idle(c, ip, p, k)) < 0) ||
        (rc = class_tenants(c, o, p, k)) < 0 ||
        (rc = class_gpus(c, o, p, k)) < 0)
        return rc;
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "duration");
    gs_json_path_key(&pp, p, "duration");
    if (d == NULL)
        return gs_sc_err(c, p, "missing required key 'duration'");
    return gs_sc_parse_dist(c, d, pp, &k->duration);
}

/* --- the generator ------------------------------------------------------- */

static const struct gs_kt_key k_state[] = {
    GS_K_NUM("rate_factor", 0, 1e6, GS_KF_REQ, NULL, "the arrival rate's "
             "multiple in this state"),
    GS_K_DUR("mean_sojourn", GS_KF_REQ, "mean time in the state (> 0)"),
    GS_K_END
};

static const struct gs_kt_obj t_state = {
    .id = "burst_state", .desc = "a state of the Markov-modulated arrivals",
    .keys = k_state
};

static const struct gs_kt_key k_burst[] = {
    { .name = "states", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .flags = GS_KF_REQ, .obj = &t_state, .min_items = 2,
      .max_items = GS_GEN_MAX_BURST, .desc = "the burst states" },
    GS_K_END
};

static const struct gs_kt_obj t_burst = {
    .id = "burst", .desc = "Markov-modulated bursts of arrivals",
    .keys = k_burst
};

/* Bursts: {"states": [{"rate_factor": f, "mean_sojourn": d}, ...]}. */
static int parse_burst(struct gs_sc *c, const cJSON *b, const char *p,
                       struct gs_genspec *g)
{
    int rc;
    if ((rc = gs_sc_keys(c, b, p, &t_burst)) < 0)
        return rc;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(b, "states");
    int n = cJSON_GetArraySize(st);
    if (!cJSON_IsArray(st) || n < 2 || n > GS_GEN_MAX_BURST)
        return gs_sc_err(c, p, "\"states\" must be an array of 2 to %d burst "
                         "states", GS_GEN_MAX_BURST);
    double fsum = 0;
    for (int i = 0; i < n; i++) {
        GS_JSON_PATH(q);
        gs_json_path_at(&q, gs_json_path_key(&q, p, "states"), i);
        const cJSON *e = cJSON_GetArrayItem(st, i);
        double f = 0;
        gs_time so = 0;
        if ((rc = gs_sc_keys(c, e, q, &t_state)) < 0 ||
            (rc = gs_sc_num(c, e, q, &t_state, "rate_factor", &f)) < 0 ||
            (rc = gs_sc_time(c, e, q, &t_state, "mean_sojourn", &so)) < 0)
            return rc;
        if (so <= 0)
            return gs_sc_err(c, q, "mean_sojourn must be above 0");
        g->burst_factor[i] = f;
        g->burst_sojourn[i] = so;
        fsum += f;
    }
    if (fsum <= 0)
        return gs_sc_err(c, p, "the rate factors must not all be 0");
    g->nburst = n;
    return 0;
}

static const struct gs_kt_key k_generate[] = {
    GS_K_INT("jobs", 0, 1000000000L, 0, NULL, "how many jobs"),
    GS_K_DUR("until", 0, "arrivals stop at this time"),
    GS_K_NUM("rate_per_hour", 1e-9, 1e12, GS_KF_REQ, "1/h",
             "mean arrival rate"),
    GS_K_NUM("diurnal_amplitude", 0, 1, 0, NULL, "daily swing of the rate"),
    GS_K_NUM("peak_hour", 0, 24, 0, "h", "hour of the daily peak (default "
             "14)"),
    GS_K_NUM("weekend_dip", 0, 1, 0, NULL, "share of the rate lost on days "
             "5 and 6"),
    { .name = "hourly_profile", .type = GS_KT_ARR, .items = GS_KT_NUM,
      .lo = 0, .hi = 1e12, .min_items = 24, .max_items = 24,
      .desc = "24 rate multiples, one per hour of day" },
    GS_K_OBJ("burst", &t_burst, 0, "Markov-modulated bursts"),
    { .name = "reference_gpu", .type = GS_KT_STR, .flags = GS_KF_CI,
      .src = GS_KS_GPU, .maxlen = GS_MODEL_NAME - 1,
      .desc = "the GPU durations are measured on" },
    { .name = "classes", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .flags = GS_KF_REQ, .obj = &t_class, .min_items = 1,
      .max_items = GS_GEN_MAX_CLASSES, .desc = "the job classes" },
    GS_K_END
};

static const struct gs_kt_rule r_generate[] = {
    { .cond = GS_KC_ALWAYS, .any = "jobs until" },
    { 0 }
};

const struct gs_kt_obj gs_sc_t_generate = {
    .id = "generate", .desc = "generated jobs: Poisson arrivals with a "
    "daily cycle, drawn by class", .keys = k_generate, .rules = r_generate
};

static const struct gs_kt_key k_genspec_more[] = {
    { .name = "seed", .type = GS_KT_NUM, .lo = 0, .hi = 9007199254740991.0,
      .schema = SEED_SCHEMA, .desc = "the random seed (a whole number)" },
    GS_K_OBJS("gpu_models", &gs_sc_t_gpu_model, 0, "GPU models added to "
              "the catalog"),
    GS_K_STR("description", 4095, 0, "free text"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_genspec = {
    .id = "genspec", .desc = "a generator spec file (gpusim trace gen)",
    .keys = k_generate, .more = k_genspec_more, .rules = r_generate
};

/* A generator's hourly profile hp at p. */
static int hourly(struct gs_sc *c, const cJSON *hp, const char *p,
                  struct gs_genspec *g)
{
    GS_JSON_PATH(pp);
    gs_json_path_key(&pp, p, "hourly_profile");
    if (!cJSON_IsArray(hp) || cJSON_GetArraySize(hp) != 24)
        return gs_sc_err(c, pp, "expected 24 numbers >= 0, one per hour of "
                         "day");
    double sum = 0;
    int h = 0;
    for (const cJSON *e = hp->child; e; e = e->next, h++) {
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) ||
            e->valuedouble > 1e12)
            return gs_sc_err(c, pp, "element %d is not a number >= 0", h);
        g->hourly[h] = e->valuedouble;
        sum += e->valuedouble;
    }
    if (sum <= 0)
        return gs_sc_err(c, pp, "the profile must not be all 0");
    return 0;
}

/* The generator: workload.generate of a scenario, or (standalone) a
 * generator spec file's top level, which may also hold "seed",
 * "gpu_models" and "description" (read by gs_genspec_load). */
int gs_sc_parse_generate(struct gs_sc *c, const cJSON *o, const char *p,
                         int standalone)
{
    const struct gs_kt_obj *t = &gs_sc_t_generate;
    struct gs_genspec *g = &c->s->gen;
    int rc;
    long jobs = 0;
    g->peak_hour = 14;
    g->ref_model = -1;
    if ((rc = gs_sc_keys(c, o, p, standalone ? &gs_sc_t_genspec : t)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "jobs", &jobs)) < 0 ||
        (rc = gs_sc_time(c, o, p, t, "until", &g->until)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "rate_per_hour", &g->rate_per_hour)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "diurnal_amplitude", &g->diurnal)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "peak_hour", &g->peak_hour)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "weekend_dip", &g->weekly)) < 0 ||
        (rc = gs_sc_model_ref(c, o, p, "reference_gpu", 0, &g->ref_model)) < 0)
        return rc;
    g->jobs = jobs;
    if (g->jobs == 0 && g->until == 0)
        return gs_sc_err(c, p, "give \"jobs\" (how many) or \"until\" (a "
                         "duration), or both");
    GS_JSON_PATH(pp);
    const cJSON *hp = cJSON_GetObjectItemCaseSensitive(o, "hourly_profile");
    if (hp != NULL && (rc = hourly(c, hp, p, g)) < 0)
        return rc;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "burst");
    if (b != NULL) {
        gs_json_path_key(&pp, p, "burst");
        if ((rc = parse_burst(c, b, pp, g)) < 0)
            return rc;
    }
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(o, "classes");
    int n = cJSON_GetArraySize(cl);
    if (!cJSON_IsArray(cl) || n < 1 || n > GS_GEN_MAX_CLASSES)
        return gs_sc_err(c, p, "\"classes\" must be an array of 1 to %d job "
                         "classes", GS_GEN_MAX_CLASSES);
    g->nclasses = n;
    double wsum = 0;
    for (int i = 0; i < n; i++) {
        gs_json_path_at(&pp, gs_json_path_key(&pp, p, "classes"), i);
        if ((rc = parse_class(c, cJSON_GetArrayItem(cl, i), pp,
                              &g->cls[i])) < 0)
            return rc;
        wsum += g->cls[i].weight;
    }
    if (wsum <= 0)
        return gs_sc_err(c, p, "the class weights must not all be 0");
    return 0;
}

/* --- the workload -------------------------------------------------------- */

static const struct gs_kt_key k_workload[] = {
    GS_K_OBJ("trace", &t_trace, 0, "replay a job trace"),
    GS_K_OBJ("generate", &gs_sc_t_generate, 0, "generate jobs"),
    GS_K_END
};

static const struct gs_kt_rule r_workload[] = {
    { .cond = GS_KC_ALWAYS, .one = "trace generate" },
    { 0 }
};

const struct gs_kt_obj gs_sc_t_workload = {
    .id = "workload", .desc = "the jobs: a trace, or a generator",
    .keys = k_workload, .rules = r_workload
};

int gs_sc_parse_workload(struct gs_sc *c, const cJSON *o)
{
    int rc;
    if ((rc = gs_sc_keys(c, o, "$.workload", &gs_sc_t_workload)) < 0)
        return rc;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "trace");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "generate");
    if ((t == NULL) == (g == NULL))
        return gs_sc_err(c, "$.workload", "give exactly one of \"trace\" and "
                         "\"generate\"");
    if (g) {
        c->s->wl_kind = GS_WL_GENERATE;
        return gs_sc_parse_generate(c, g, "$.workload.generate", 0);
    }
    c->s->wl_kind = GS_WL_TRACE;
    char fmt[GS_NAME];
    if (!cJSON_IsObject(t))
        return gs_sc_err(c, "$.workload.trace", "expected an object with "
                         "\"format\" and \"path\"");
    if ((rc = gs_sc_str(c, t, "$.workload.trace", &t_trace, "format", fmt,
                        sizeof fmt)) < 0)
        return rc;
    const struct gs_trace_format *f;
    char *where = gs_strf("%s: $.workload.trace.format", c->file);
    rc = gs_trace_format_lookup(fmt, where, &f, c->d);
    free(where);
    if (rc < 0)
        return rc;
    /* The trace reader reads (and so checks) every key, format included. */
    params_where(c, "$.workload.trace", &c->s->trace);
    return collect_params(c, t, "$.workload.trace", NULL, &c->s->trace);
}
