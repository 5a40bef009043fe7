/* scenario_cloud.c -- the scenario's cloud keys: prices, billing, spot,
 * failures, node autoscaling and idle reaping (cloudcfg.h; defaults and
 * sources in docs/cloud.md).
 *
 * The top-level objects ($.prices, $.billing, $.failures, $.spot,
 * $.reaper, $.autoscaler) give every pool its defaults; a pool's own
 * billing, failures, spot, capacity_block and autoscale keys override
 * them once the fleet is read.  Key tables as in scenario_fleet.c. */
#include "scenint.h"
#include "../base/datapath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- failures ------------------------------------------------------------ */

static const struct gs_kt_key k_failproc[] = {
    GS_K_DUR("mtbf", 0, "mean time between failures (exponential), or the "
             "rate after burn_in (Weibull)"),
    GS_K_NUM("shape", 0.01, 100, 0, NULL, "Weibull shape"),
    GS_K_DUR("scale", 0, "Weibull scale"),
    GS_K_DUR("burn_in", 0, "how long the Weibull process lasts before the "
             "mtbf rate"),
    GS_K_END
};

static const struct gs_kt_rule r_failproc[] = {
    { .cond = GS_KC_HAS, .key = "shape", .need = "scale" },
    { .cond = GS_KC_HAS, .key = "scale", .need = "shape" },
    { .cond = GS_KC_ALWAYS, .any = "mtbf shape" },
    { .cond = GS_KC_HAS, .key = "burn_in", .need = "shape" },
    { .cond = GS_KC_HAS, .key = "shape", .cond2 = GS_KC_HAS, .key2 = "mtbf",
      .need = "burn_in" },
    { 0 }
};

static const struct gs_kt_obj t_failproc = {
    .id = "failure_process", .desc = "a failure process: exponential "
    "(mtbf) or Weibull (shape, scale)", .keys = k_failproc,
    .rules = r_failproc
};

static const struct gs_kt_key k_degraded[] = {
    GS_K_NUM("fraction", 0, 1, GS_KF_REQ, NULL, "share of GPU failures that "
             "degrade instead of stopping"),
    GS_K_NUM("speed", 0.01, 1, 0, NULL, "a degraded GPU's speed (default "
             "0.5)"),
    GS_K_END
};

static const struct gs_kt_obj t_degraded = {
    .id = "degraded", .desc = "GPUs that slow down instead of failing",
    .keys = k_degraded
};

static const struct gs_kt_key k_failures[] = {
    GS_K_OBJ("gpu", &t_failproc, 0, "failures of single GPUs"),
    GS_K_OBJ("node", &t_failproc, 0, "failures of whole nodes"),
    { .name = "repair", .type = GS_KT_DUR | GS_KT_OBJ, .obj = &gs_sc_t_dist,
      .unit = "s", .desc = "time to repair: a duration or a distribution "
      "(default exponential, mean 12 min)" },
    GS_K_OBJ("degraded", &t_degraded, 0, "degraded GPUs (with \"gpu\")"),
    GS_K_BOOL("fail_in_place", "a failed job keeps its place instead of "
              "going back to the queue"),
    GS_K_INT("max_restarts", -1, 1000000, 0, NULL, "restarts before a job "
             "is given up (default 6; -1: no limit)"),
    GS_K_END
};

static const struct gs_kt_rule r_failures[] = {
    { .cond = GS_KC_HAS, .key = "degraded", .need = "gpu" },
    { 0 }
};

const struct gs_kt_obj gs_sc_t_failures = {
    .id = "failures", .desc = "GPU and node failures and repairs "
    "(docs/cloud.md)", .keys = k_failures, .rules = r_failures
};

static int parse_failproc(struct gs_sc *c, const cJSON *o, const char *path,
                          struct gs_failproc *fp)
{
    const struct gs_kt_obj *t = &t_failproc;
    int rc;
    gs_time mtbf = 0, scale = 0;
    double shape = 0;
    memset(fp, 0, sizeof *fp);
    if ((rc = gs_sc_keys(c, o, path, t)) < 0 ||
        (rc = gs_sc_time(c, o, path, t, "mtbf", &mtbf)) < 0 ||
        (rc = gs_sc_num(c, o, path, t, "shape", &shape)) < 0 ||
        (rc = gs_sc_time(c, o, path, t, "scale", &scale)) < 0 ||
        (rc = gs_sc_time(c, o, path, t, "burn_in", &fp->burn_in)) < 0)
        return rc;
    if ((shape > 0) != (scale > 0))
        return gs_sc_err(c, path, "a Weibull process needs both \"shape\" "
                         "and \"scale\" (> 0)");
    if (shape == 0 && fp->burn_in > 0)
        return gs_sc_err(c, path, "\"burn_in\" applies to a Weibull process "
                         "(give \"shape\" and \"scale\")");
    if (shape == 0 && mtbf <= 0)
        return gs_sc_err(c, path, "give \"mtbf\" (exponential), or \"shape\" "
                         "and \"scale\" (Weibull)");
    if (shape > 0 && fp->burn_in == 0 && mtbf > 0)
        return gs_sc_err(c, path, "\"mtbf\" with a Weibull process is the "
                         "rate after its \"burn_in\"; give \"burn_in\" too");
    fp->on = 1;
    fp->shape = shape;
    fp->scale = (double)scale;
    fp->mtbf = (double)mtbf;
    return 0;
}

static void fail_defaults(struct gs_failcfg *fc)
{
    memset(fc, 0, sizeof *fc);
    /* AWS: a failed H100 node is back in 12 minutes on average. */
    fc->repair = (struct gs_distspec){ .kind = GS_DIST_EXPONENTIAL,
                                       .a = 12.0 * GS_MIN };
    fc->degrade_speed = 0.5;
    fc->max_restarts = 6;       /* Kubernetes Job backoffLimit */
}

static int parse_failures(struct gs_sc *c, const cJSON *o, const char *path,
                          struct gs_failcfg *fc)
{
    const struct gs_kt_obj *t = &gs_sc_t_failures;
    int rc;
    GS_JSON_PATH(p);
    fail_defaults(fc);
    if ((rc = gs_sc_keys(c, o, path, t)) < 0 ||
        (rc = gs_sc_dist_or_time(c, o, path, "repair", &fc->repair)) < 0 ||
        (rc = gs_sc_bool(c, o, path, t, "fail_in_place",
                         &fc->fail_in_place)) < 0)
        return rc;
    long mr = fc->max_restarts;
    if ((rc = gs_sc_int(c, o, path, t, "max_restarts", &mr)) < 0)
        return rc;
    fc->max_restarts = (int)mr;
    const char *const comp[2] = { "gpu", "node" };
    struct gs_failproc *fp[2] = { &fc->gpu, &fc->node };
    for (int k = 0; k < 2; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, comp[k]);
        gs_json_path_key(&p, path, comp[k]);
        if (v && (rc = parse_failproc(c, v, p, fp[k])) < 0)
            return rc;
    }
    const cJSON *dg = cJSON_GetObjectItemCaseSensitive(o, "degraded");
    if (dg) {
        const struct gs_kt_obj *td = &t_degraded;
        gs_json_path_key(&p, path, "degraded");
        if ((rc = gs_sc_keys(c, dg, p, td)) < 0 ||
            (rc = gs_sc_num(c, dg, p, td, "fraction",
                            &fc->degrade_frac)) < 0 ||
            (rc = gs_sc_num(c, dg, p, td, "speed", &fc->degrade_speed)) < 0)
            return rc;
        if (!fc->gpu.on)
            return gs_sc_err(c, p, "degraded GPUs need a GPU failure process "
                             "(\"gpu\")");
    }
    fc->on = fc->gpu.on || fc->node.on;
    return 0;
}

/* --- billing, spot, reaper, autoscaler ----------------------------------- */

static const struct gs_kt_key k_billing[] = {
    GS_K_DUR("granularity", 0, "billing step, at least 1 ms (default 1 s)"),
    GS_K_DUR("minimum", 0, "least time billed for a node (default 60 s)"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_billing = {
    .id = "billing", .desc = "how node time is billed", .keys = k_billing
};

static int parse_billing(struct gs_sc *c, const cJSON *o, const char *path,
                         gs_time *gran, gs_time *minimum)
{
    const struct gs_kt_obj *t = &gs_sc_t_billing;
    int rc;
    if ((rc = gs_sc_keys(c, o, path, t)) < 0 ||
        (rc = gs_sc_time(c, o, path, t, "granularity", gran)) < 0 ||
        (rc = gs_sc_time(c, o, path, t, "minimum", minimum)) < 0)
        return rc;
    if (*gran < 1) {
        GS_JSON_PATH(p);
        gs_json_path_key(&p, path, "granularity");
        return gs_sc_err(c, p, "must be at least 1 ms");
    }
    return 0;
}

#define TIER_LIST(n, d) \
    { .name = (n), .type = GS_KT_ARR, .items = GS_KT_STR, .maxlen = 31, \
      .names = gs_sc_tier_names, .desc = (d) }

static const struct gs_kt_key k_spot_globals[] = {
    TIER_LIST("tiers", "tiers whose jobs may run on spot nodes (default "
              "training, interactive, data)"),
    GS_K_DUR("notice", 0, "warning before a spot node is reclaimed "
             "(default 2 min)"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_spot_globals = {
    .id = "spot_globals", .desc = "who may run on spot nodes, and their "
    "notice", .keys = k_spot_globals
};

static const struct gs_kt_key k_reaper[] = {
    GS_K_DUR("idle_after", 0, "idle time after which a job is reaped, at "
             "least 1 s (default 1 h)"),
    TIER_LIST("tiers", "tiers reaped (default interactive)"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_reaper = {
    .id = "reaper", .desc = "ends idle jobs", .keys = k_reaper
};

static const struct gs_kt_key k_autoscaler[] = {
    GS_K_DUR("scan_interval", 0, "how often the node autoscaler looks, at "
             "least 1 ms (default 10 s)"),
    GS_K_INT("depth", 1, 100000000, 0, NULL, "pending jobs it looks at "
             "(default 1000)"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_autoscaler = {
    .id = "autoscaler", .desc = "the node autoscaler's scan",
    .keys = k_autoscaler
};

/* An array of tier names at o[key] as a bit mask; absent: *mask unchanged. */
static int tier_list(struct gs_sc *c, const cJSON *o, const char *path,
                     const char *key, int *mask)
{
    GS_JSON_PATH(p);
    gs_json_path_key(&p, path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v == NULL)
        return 0;
    if (!cJSON_IsArray(v))
        return gs_sc_err(c, p, "expected an array of tier names");
    int m = 0;
    for (const cJSON *e = v->child; e; e = e->next) {
        int t = cJSON_IsString(e) ? gs_tier_parse(e->valuestring) : -1;
        if (t < 0)
            return gs_sc_err(c, p, "unknown tier %s%s%s (known: inference, "
                             "training, interactive, data)",
                             cJSON_IsString(e) ? "'" : "",
                             cJSON_IsString(e) ? e->valuestring
                                               : "(not a string)",
                             cJSON_IsString(e) ? "'" : "");
        m |= 1 << t;
    }
    *mask = m;
    return 0;
}

/* --- a pool's autoscaler, spot process and capacity block ---------------- */

static const struct gs_kt_key k_window[] = {
    { .name = "from", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 15,
      .schema = "\"type\": \"string\", \"pattern\": "
      "\"^(?:[01]?[0-9]|2[0-3]):[0-5]?[0-9]$\"",
      .desc = "start, a time of day \"HH:MM\"" },
    { .name = "to", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 15,
      .schema = "\"type\": \"string\", \"pattern\": "
      "\"^(?:[01]?[0-9]|2[0-3]):[0-5]?[0-9]$\"",
      .desc = "end, a time of day \"HH:MM\"" },
    GS_K_INT("min_nodes", 0, 10000000, 0, NULL, "least nodes in the window "
             "(at most the pool's max_nodes)"),
    GS_K_INT("max_nodes", 0, 10000000, 0, NULL, "most nodes in the window "
             "(at most the pool's max_nodes)"),
    GS_K_END
};

static const struct gs_kt_obj t_window = {
    .id = "window", .desc = "node bounds over a daily window",
    .keys = k_window
};

static const struct gs_kt_key k_autoscale[] = {
    GS_K_INT("min_nodes", 0, 10000000, 0, NULL, "least nodes (default 0)"),
    GS_K_INT("max_nodes", 0, 10000000, GS_KF_REQ, NULL, "most nodes"),
    { .name = "provision_time", .type = GS_KT_DUR | GS_KT_OBJ,
      .obj = &gs_sc_t_dist, .unit = "s", .desc = "how long a node takes to "
      "boot: a duration or a distribution (default uniform 3-8 min)" },
    GS_K_DUR("scale_down_after", 0, "idle time before a node is removed "
             "(default 10 min)"),
    GS_K_DUR("scale_down_delay_after_add", 0, "no removal this long after "
             "an addition (default 10 min)"),
    GS_K_NUM("scale_down_utilization", 0, 1, 0, NULL, "a node below this "
             "use may be removed (default 0.5)"),
    { .name = "schedule", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .obj = &t_window, .max_items = GS_MAX_WINDOWS,
      .desc = "daily windows with their own bounds" },
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_autoscale = {
    .id = "pool_autoscale", .desc = "the pool's node autoscaler "
    "(Kubernetes cluster-autoscaler's rules; docs/cloud.md)",
    .keys = k_autoscale
};

static const struct gs_kt_key k_spot[] = {
    GS_K_NUM("interruptions_per_hour", 0, 1e6, 0, "1/h", "reclaims per "
             "node-hour"),
    GS_K_STR("hazard_file", 0, 0, "a CSV of the reclaim hazard "
             "over time"),
    GS_K_STR("price_file", 0, 0, "a CSV of the spot price over "
             "time"),
    { .name = "replace_after", .type = GS_KT_DUR | GS_KT_OBJ | GS_KT_BOOL,
      .obj = &gs_sc_t_dist, .unit = "s", .desc = "when a reclaimed node is "
      "replaced: a duration or a distribution (default uniform 3-8 min); "
      "false: never" },
    GS_K_END
};

static const struct gs_kt_rule r_spot[] = {
    { .cond = GS_KC_ALWAYS, .one = "interruptions_per_hour hazard_file" },
    { 0 }
};

const struct gs_kt_obj gs_sc_t_spot = {
    .id = "spot", .desc = "the spot interruption process of a spot pool",
    .keys = k_spot, .rules = r_spot
};

static const struct gs_kt_key k_capacity_block[] = {
    GS_K_DUR("start", 0, "when the block starts (default 0)"),
    GS_K_DUR("end", GS_KF_REQ, "when it ends"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_capacity_block = {
    .id = "capacity_block", .desc = "a capacity block's window",
    .keys = k_capacity_block
};

/* "HH:MM" -> minutes after midnight. */
static int clock_time(struct gs_sc *c, const cJSON *o, const char *path,
                      const char *key, int *out)
{
    char v[16] = "";
    GS_JSON_PATH(p);
    int rc = gs_sc_str(c, o, path, &t_window, key, v, sizeof v);
    if (rc < 0)
        return rc;
    int h, m;
    char extra;
    if (sscanf(v, "%d:%d%c", &h, &m, &extra) != 2 || h < 0 || h > 23 ||
        m < 0 || m > 59) {
        gs_json_path_key(&p, path, key);
        return gs_sc_err(c, p, "expected a time of day \"HH:MM\", got '%s'",
                         v);
    }
    *out = h * 60 + m;
    return 0;
}

static int parse_schedule(struct gs_sc *c, const cJSON *sch, const char *p,
                          struct gs_poolcloud *pc, long mn, long mx)
{
    const struct gs_kt_obj *t = &t_window;
    int rc;
    if (!cJSON_IsArray(sch) || cJSON_GetArraySize(sch) > GS_MAX_WINDOWS)
        return gs_sc_err(c, p, "expected an array of at most %d windows",
                         GS_MAX_WINDOWS);
    struct gs_jin in = gs_sc_jin(c);
    int i = 0;
    for (const cJSON *w = sch->child; w; w = w->next, i++) {
        GS_JSON_PATH(pw);
        gs_json_path_at(&pw, p, i);
        struct gs_window *win = &pc->win[i];
        long wmn = mn, wmx = mx;
        /* the bounds lie within the pool's own */
        if ((rc = gs_sc_keys(c, w, pw, t)) < 0 ||
            (rc = clock_time(c, w, pw, "from", &win->from_min)) < 0 ||
            (rc = clock_time(c, w, pw, "to", &win->to_min)) < 0 ||
            (rc = gs_json_int(&in, GJ(w), pw, "min_nodes", 0, mx, 0,
                              &wmn)) < 0 ||
            (rc = gs_json_int(&in, GJ(w), pw, "max_nodes", 0, mx, 0,
                              &wmx)) < 0)
            return rc;
        if (win->from_min == win->to_min)
            return gs_sc_err(c, pw, "\"from\" and \"to\" must differ");
        if (wmn > wmx)
            return gs_sc_err(c, pw, "min_nodes %ld is above max_nodes %ld",
                             wmn, wmx);
        win->min_nodes = (int)wmn;
        win->max_nodes = (int)wmx;
    }
    pc->nwin = i;
    return 0;
}

static int parse_autoscale(struct gs_sc *c, const cJSON *o, const char *path,
                           struct gs_poolcloud *pc, long nodes)
{
    const struct gs_kt_obj *t = &gs_sc_t_autoscale;
    int rc;
    long mn = 0, mx = -1;
    pc->provision = (struct gs_distspec){ .kind = GS_DIST_UNIFORM,
                                          .a = 3.0 * GS_MIN,
                                          .b = 8.0 * GS_MIN };
    pc->down_after = 10 * GS_MIN;
    pc->down_delay = 10 * GS_MIN;
    pc->down_util = 0.5;
    if ((rc = gs_sc_keys(c, o, path, t)) < 0 ||
        (rc = gs_sc_int(c, o, path, t, "min_nodes", &mn)) < 0 ||
        (rc = gs_sc_int(c, o, path, t, "max_nodes", &mx)) < 0 ||
        (rc = gs_sc_dist_or_time(c, o, path, "provision_time",
                                 &pc->provision)) < 0 ||
        (rc = gs_sc_time(c, o, path, t, "scale_down_after",
                         &pc->down_after)) < 0 ||
        (rc = gs_sc_time(c, o, path, t, "scale_down_delay_after_add",
                         &pc->down_delay)) < 0 ||
        (rc = gs_sc_num(c, o, path, t, "scale_down_utilization",
                        &pc->down_util)) < 0)
        return rc;
    if (mn > mx)
        return gs_sc_err(c, path, "min_nodes %ld is above max_nodes %ld", mn,
                         mx);
    if (nodes < mn || nodes > mx)
        return gs_sc_err(c, path, "the pool's \"nodes\" (%ld, its size at the "
                         "start) must lie within [min_nodes, max_nodes] = "
                         "[%ld, %ld]", nodes, mn, mx);
    pc->autoscale = 1;
    pc->min_nodes = (int)mn;
    pc->max_nodes = (int)mx;
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(o, "schedule");
    GS_JSON_PATH(p);
    gs_json_path_key(&p, path, "schedule");
    if (sch == NULL)
        return 0;
    return parse_schedule(c, sch, p, pc, mn, mx);
}

/* The cloud keys of a pool (between its market and from_node_list in
 * the pool's table, scenario_fleet.c). */
const struct gs_kt_key gs_sc_k_pool_cloud[] = {
    GS_K_NUM("discount", 0, 0.999999, 0, NULL, "a share off the on-demand "
             "price"),
    GS_K_INT("spares", 0, 1000000, 0, NULL, "standby nodes that replace "
             "failed ones"),
    GS_K_OBJ("billing", &gs_sc_t_billing, 0, "the pool's own billing"),
    GS_K_OBJ("spot", &gs_sc_t_spot, 0, "spot interruptions (spot pools)"),
    GS_K_OBJ("capacity_block", &gs_sc_t_capacity_block, 0, "the block's "
             "window (capacity-block pools)"),
    GS_K_OBJ("autoscale", &gs_sc_t_autoscale, 0, "the node autoscaler of "
             "the pool (on-demand and spot pools)"),
    GS_K_OBJ("failures", &gs_sc_t_failures, 0, "the pool's own failure "
             "processes"),
    GS_K_END
};

static const struct gs_kt_obj t_pool_cloud = {
    .id = "pool_cloud", .keys = gs_sc_k_pool_cloud
};

/* --- prices -------------------------------------------------------------- */

static const struct gs_kt_key k_price[] = {
    GS_K_NUM("on-demand", 0, 1e7, 0, "$/node-h", "on-demand price"),
    GS_K_NUM("reserved", 0, 1e7, 0, "$/node-h", "reserved price"),
    GS_K_NUM("spot", 0, 1e7, 0, "$/node-h", "spot price"),
    GS_K_NUM("capacity-block", 0, 1e7, 0, "$/node-h",
             "capacity-block price"),
    GS_K_END
};

static const struct gs_kt_obj t_price = {
    .id = "instance_prices", .desc = "an instance type's price in each "
    "market", .keys = k_price
};

const struct gs_kt_obj gs_sc_t_prices = {
    .id = "prices", .desc = "instance type -> {market: $ per node-hour}",
    .map = &t_price
};

/* A price from $.prices for the pool's instance type and market, or -1. */
static double table_price(struct gs_sc *c, const char *instance, int market)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c->root, "prices");
    const cJSON *it = instance[0]
                          ? cJSON_GetObjectItemCaseSensitive(t, instance)
                          : NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
                         it, gs_sc_market_names[market]);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static int parse_prices(struct gs_sc *c, const cJSON *o)
{
    int rc;
    if (!cJSON_IsObject(o))
        return gs_sc_err(c, "$.prices", "expected an object: instance type -> "
                         "{market: $ per node-hour}");
    for (const cJSON *it = o->child; it; it = it->next) {
        GS_JSON_PATH(p);
        gs_json_path_key(&p, "$.prices", it->string);
        if ((rc = gs_sc_keys(c, it, p, &t_price)) < 0)
            return rc;
        for (int m = 0; m < GS_NMARKETS; m++) {
            double v = 0;
            if ((rc = gs_sc_num(c, it, p, &t_price, gs_sc_market_names[m],
                                &v)) < 0)
                return rc;
        }
    }
    return 0;
}

/* --- a pool's cloud keys ------------------------------------------------- */

/* What pool i has when its entry says nothing (or the pool came from a
 * node list): its starting nodes, no spares, the global billing and
 * failure defaults, replacement of reclaimed spot nodes after 3-8 min. */
static void pool_cloud_defaults(struct gs_sc *c, int i)
{
    struct gs_scenario *s = c->s;
    struct gs_pool_spec *ps = &s->pools[i];
    struct gs_poolcloud *pc = &s->cloud.pool[i];
    pc->base = ps->nodes;
    pc->gran = s->cloud.gran;
    pc->minimum = s->cloud.minimum;
    pc->fail = s->cloud.fail;
    pc->replace = 1;
    pc->replace_delay = (struct gs_distspec){ .kind = GS_DIST_UNIFORM,
                                              .a = 3.0 * GS_MIN,
                                              .b = 8.0 * GS_MIN };
    pc->od_price = gs_sc_default_gpu_price(s->cat.m[ps->model].name) * ps->gpn;
}

/* The pool's price: its own, else $.prices, else a discount off the
 * on-demand price (the table's, else the built-in per-GPU list). */
static int pool_price(struct gs_sc *c, const cJSON *o, const char *p, int i,
                      double discount)
{
    struct gs_scenario *s = c->s;
    struct gs_pool_spec *ps = &s->pools[i];
    struct gs_poolcloud *pc = &s->cloud.pool[i];
    int own = cJSON_GetObjectItemCaseSensitive(o, "price_per_hour") ||
                   cJSON_GetObjectItemCaseSensitive(o, "price_per_gpu_hour");
    double od = table_price(c, ps->instance, GS_MKT_ONDEMAND);
    if (od < 0)
        od = ps->market == GS_MKT_ONDEMAND && own
                 ? ps->price_hour
                 : gs_sc_default_node_price(s, ps);
    pc->od_price = od;
    if (own && discount >= 0)
        return gs_sc_err(c, p, "give a price or a discount, not both");
    if (own)
        return 0;
    const char *mk = gs_sc_market_names[ps->market];
    double tp = table_price(c, ps->instance, ps->market);
    if (tp >= 0 && discount >= 0)
        return gs_sc_err(c, p, "$.prices has a %s price for '%s'; a discount "
                         "does not apply", mk, ps->instance);
    if (tp >= 0)
        ps->price_hour = tp;
    else if (discount >= 0)
        ps->price_hour = od * (1 - discount);
    else if (ps->market == GS_MKT_SPOT)
        ps->price_hour = od * (1 - 0.7);
    else if (ps->market != GS_MKT_ONDEMAND)
        return gs_sc_err(c, p, "a %s pool needs its price: price_per_hour, "
                         "price_per_gpu_hour, a discount off on-demand, or "
                         "$.prices[\"%s\"][\"%s\"]", mk,
                         ps->instance[0] ? ps->instance : "INSTANCE-TYPE", mk);
    else
        ps->price_hour = od;
    return 0;
}

/* A spot pool's "spot" object v (at pp), of its entry o at p. */
static int pool_spot(struct gs_sc *c, const cJSON *o, const char *p,
                     const cJSON *v, const char *pp, struct gs_poolcloud *pc)
{
    const struct gs_kt_obj *t = &gs_sc_t_spot;
    int rc;
    if (v == NULL)
        return gs_sc_err(c, p, "a spot pool needs \"spot\": "
                         "{\"interruptions_per_hour\": ...} or "
                         "{\"hazard_file\": ...}");
    if ((rc = gs_sc_keys(c, v, pp, t)) < 0 ||
        (rc = gs_sc_num(c, v, pp, t, "interruptions_per_hour",
                        &pc->spot_rate)) < 0 ||
        (rc = gs_sc_file_path(c, v, pp, "hazard_file",
                              &pc->hazard_file)) < 0 ||
        (rc = gs_sc_file_path(c, v, pp, "price_file", &pc->price_file)) < 0)
        return rc;
    int has_rate = cJSON_GetObjectItemCaseSensitive(
                       v, "interruptions_per_hour") != NULL;
    if (has_rate == (pc->hazard_file != NULL))
        return gs_sc_err(c, pp, "give exactly one of "
                         "\"interruptions_per_hour\" and \"hazard_file\"");
    const cJSON *ra = cJSON_GetObjectItemCaseSensitive(v, "replace_after");
    if (cJSON_IsFalse(ra))
        pc->replace = 0;
    else if ((rc = gs_sc_dist_or_time(c, v, pp, "replace_after",
                                      &pc->replace_delay)) < 0)
        return rc;
    if (ra && cJSON_GetObjectItemCaseSensitive(o, "autoscale"))
        return gs_sc_err(c, pp, "replace_after does not apply to an "
                         "autoscaled pool: its autoscaler replaces lost "
                         "nodes");
    return 0;
}

/* A pool's billing, failures, spot process and capacity block. */
static int pool_models(struct gs_sc *c, const cJSON *o, const char *p,
                       struct gs_pool_spec *ps, struct gs_poolcloud *pc)
{
    GS_JSON_PATH(pp);
    int rc;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "billing"))) {
        gs_json_path_key(&pp, p, "billing");
        if ((rc = parse_billing(c, v, pp, &pc->gran, &pc->minimum)) < 0)
            return rc;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "failures"))) {
        gs_json_path_key(&pp, p, "failures");
        if ((rc = parse_failures(c, v, pp, &pc->fail)) < 0)
            return rc;
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "spot");
    gs_json_path_key(&pp, p, "spot");
    if (v && ps->market != GS_MKT_SPOT)
        return gs_sc_err(c, pp, "only a pool in the spot market has a spot "
                         "interruption process");
    if (ps->market == GS_MKT_SPOT &&
        (rc = pool_spot(c, o, p, v, pp, pc)) < 0)
        return rc;
    v = cJSON_GetObjectItemCaseSensitive(o, "capacity_block");
    gs_json_path_key(&pp, p, "capacity_block");
    if ((v != NULL) != (ps->market == GS_MKT_BLOCK))
        return gs_sc_err(c, v ? pp : p, v ? "only a capacity-block pool has "
                         "a block window" : "a capacity-block pool needs "
                         "\"capacity_block\": {\"start\": ..., \"end\": "
                         "...}");
    if (v) {
        const struct gs_kt_obj *t = &gs_sc_t_capacity_block;
        if ((rc = gs_sc_keys(c, v, pp, t)) < 0 ||
            (rc = gs_sc_time(c, v, pp, t, "start", &pc->block_start)) < 0 ||
            (rc = gs_sc_time(c, v, pp, t, "end", &pc->block_end)) < 0)
            return rc;
        if (pc->block_end <= pc->block_start)
            return gs_sc_err(c, pp, "\"end\" must come after \"start\"");
    }
    return 0;
}

/* The cloud keys of pool i (its JSON object o at path p), after the pool's
 * own keys are read. */
static int parse_pool_cloud(struct gs_sc *c, const cJSON *o, const char *p,
                            int i)
{
    const struct gs_kt_obj *t = &t_pool_cloud;
    struct gs_scenario *s = c->s;
    struct gs_pool_spec *ps = &s->pools[i];
    struct gs_poolcloud *pc = &s->cloud.pool[i];
    GS_JSON_PATH(pp);
    int rc;
    long spares = 0;
    double discount = -1;
    pool_cloud_defaults(c, i);
    if ((rc = gs_sc_int(c, o, p, t, "spares", &spares)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "discount", &discount)) < 0)
        return rc;
    pc->spares = (int)spares;
    if ((rc = pool_price(c, o, p, i, discount)) < 0 ||
        (rc = pool_models(c, o, p, ps, pc)) < 0)
        return rc;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "autoscale");
    gs_json_path_key(&pp, p, "autoscale");
    if (v && ps->market != GS_MKT_ONDEMAND && ps->market != GS_MKT_SPOT)
        return gs_sc_err(c, pp, "autoscaling applies to on-demand and spot "
                         "pools (a %s pool is paid for whole)",
                         gs_sc_market_names[ps->market]);
    if (v && (rc = parse_autoscale(c, v, pp, pc, ps->nodes)) < 0)
        return rc;
    long slots = (long)(pc->autoscale ? pc->max_nodes : ps->nodes) + spares;
    if (slots > 10000000)
        return gs_sc_err(c, p, "more than 10000000 nodes with spares");
    ps->nodes = (int)slots;
    return 0;
}

/* The cloud side of every pool, once $.fleet is read: its entry's keys,
 * or the defaults for pools read from a node list (which have no spot
 * interruption process and cannot be capacity blocks). */
int gs_sc_parse_fleet_cloud(struct gs_sc *c, const cJSON *a)
{
    struct gs_scenario *s = c->s;
    s->cloud.pool = calloc((size_t)(s->npools ? s->npools : 1),
                           sizeof *s->cloud.pool);
    if (s->cloud.pool == NULL)
        return gs_sc_oom(c);
    int i = 0, rc;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        GS_JSON_PATH(p);
        gs_json_path_at(&p, "$.fleet", i);
        int listed = cJSON_GetObjectItemCaseSensitive(o, "from_node_list") != 0;
        for (int k = c->first[i]; k < c->first[i + 1]; k++) {
            if (!listed) {
                if ((rc = parse_pool_cloud(c, o, p, k)) < 0)
                    return rc;
                continue;
            }
            if (s->pools[k].market == GS_MKT_BLOCK)
                return gs_sc_err(c, p, "a capacity-block pool needs its "
                                 "window: list the pool itself with "
                                 "\"capacity_block\"");
            pool_cloud_defaults(c, k);
        }
    }
    return 0;
}

/* --- the top-level cloud keys that pools take defaults from -------------- */

static void cloud_defaults(struct gs_cloudcfg *cc)
{
    cc->gran = GS_SEC;              /* AWS: per second ... */
    cc->minimum = GS_MIN;           /* ... with a 60 s minimum */
    fail_defaults(&cc->fail);
    cc->spot_tiers = (1 << GS_TIER_TRAINING) | (1 << GS_TIER_INTERACTIVE) |
                     (1 << GS_TIER_DATA);
    cc->notice = 2 * GS_MIN;
    cc->reap_after = GS_HOUR;
    cc->scan = 10 * GS_SEC;
    cc->scan_depth = 1000;
}

static int parse_reaper(struct gs_sc *c, const cJSON *v, struct gs_cloudcfg *cc)
{
    const struct gs_kt_obj *t = &gs_sc_t_reaper;
    int rc;
    cc->reap_tiers = 1 << GS_TIER_INTERACTIVE;
    if ((rc = gs_sc_keys(c, v, "$.reaper", t)) < 0 ||
        (rc = gs_sc_time(c, v, "$.reaper", t, "idle_after",
                         &cc->reap_after)) < 0 ||
        (rc = tier_list(c, v, "$.reaper", "tiers", &cc->reap_tiers)) < 0)
        return rc;
    if (cc->reap_after < GS_SEC)
        return gs_sc_err(c, "$.reaper.idle_after", "must be at least 1 s");
    return 0;
}

int gs_sc_parse_cloud_globals(struct gs_sc *c, const cJSON *root)
{
    struct gs_cloudcfg *cc = &c->s->cloud;
    int rc;
    const cJSON *v;
    cloud_defaults(cc);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "prices")) &&
        (rc = parse_prices(c, v)) < 0)
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "billing")) &&
        (rc = parse_billing(c, v, "$.billing", &cc->gran,
                            &cc->minimum)) < 0)
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "failures")) &&
        (rc = parse_failures(c, v, "$.failures", &cc->fail)) < 0)
        return rc;
    const struct gs_kt_obj *ts = &gs_sc_t_spot_globals;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "spot")) &&
        ((rc = gs_sc_keys(c, v, "$.spot", ts)) < 0 ||
         (rc = tier_list(c, v, "$.spot", "tiers", &cc->spot_tiers)) < 0 ||
         (rc = gs_sc_time(c, v, "$.spot", ts, "notice", &cc->notice)) < 0))
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "reaper")) &&
        (rc = parse_reaper(c, v, cc)) < 0)
        return rc;
    const struct gs_kt_obj *ta = &gs_sc_t_autoscaler;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "autoscaler"))) {
        if ((rc = gs_sc_keys(c, v, "$.autoscaler", ta)) < 0 ||
            (rc = gs_sc_time(c, v, "$.autoscaler", ta, "scan_interval",
                             &cc->scan)) < 0 ||
            (rc = gs_sc_int(c, v, "$.autoscaler", ta, "depth",
                            &cc->scan_depth)) < 0)
            return rc;
        if (cc->scan < 1)
            return gs_sc_err(c, "$.autoscaler.scan_interval", "must be at "
                             "least 1 ms");
    }
    return 0;
}
