/* scenario_fleet.c -- the scenario's fleet: GPU models, pools, sharing,
 * node lists, tiers, tenants, partitions and topology.
 *
 * Each object's keys are in a table below (keytab.h), read through it:
 * the table is what refuses an unknown key, bounds a number and requires
 * a key, and what `gpusim scenario --schema` prints.  What no table says
 * stays here as code: a pool's price from its GPUs, a MIG layout that fits
 * its GPU, partitions that fit their pools.
 *
 * Defaults (documented in the README's scenario reference):
 *   tiers      inference:   priority 100, not preemptible, max wait 30 s
 *              training:    priority 50,  preemptible,     max wait 1 h
 *              interactive: priority 20,  preemptible,     max wait 5 min
 *              data:        priority 10,  preemptible,     max wait 1 h
 *   prices     per GPU-hour on demand (mid-2025 list prices): H100-80GB
 *              $6.88; A100-80GB $5.12 and A100-40GB $4.10 (AWS p4de/p4d
 *              hourly price / 8); other models $0 unless the pool says. */
#include "scenint.h"
#include "../base/datapath.h"
#include "../base/suggest.h"
#include "../../traces/nodelist.h"
#include "../../traces/queuelist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- GPU models ---------------------------------------------------------- */

static const struct gs_kt_key k_gpu_model[] = {
    GS_K_STR("name", GS_MODEL_NAME - 1, GS_KF_REQ, "the model's name "
             "(a built-in one's redefines it)"),
    GS_K_NUM("memory_gb", 1e-3, 1e6, GS_KF_REQ, "GB", "memory of one GPU"),
    GS_K_NUM("tflops", 1e-3, 1e7, GS_KF_REQ, "TFLOP/s",
             "dense BF16 throughput"),
    GS_K_NUM("bandwidth_gbs", 1e-3, 1e7, GS_KF_REQ, "GB/s",
             "memory bandwidth"),
    GS_K_NUM("power_w", 0, 1e5, 0, "W", "board power"),
    GS_K_BOOL("mig", "the model can be cut into MIG instances"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_gpu_model = {
    .id = "gpu_model", .desc = "a GPU model added to the catalog, or a "
    "built-in one redefined", .keys = k_gpu_model
};

int gs_sc_parse_models(struct gs_sc *c, const cJSON *a)
{
    const struct gs_kt_obj *t = &gs_sc_t_gpu_model;
    if (!cJSON_IsArray(a))
        return gs_sc_err(c, "$.gpu_models", "expected an array");
    int i = 0;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        GS_JSON_PATH(p);
        gs_json_path_at(&p, "$.gpu_models", i);
        int rc;
        struct gs_gpu_model m = { 0 };
        if ((rc = gs_sc_keys(c, o, p, t)) < 0 ||
            (rc = gs_sc_str(c, o, p, t, "name", m.name, sizeof m.name)) < 0 ||
            (rc = gs_sc_num(c, o, p, t, "memory_gb", &m.mem_gb)) < 0 ||
            (rc = gs_sc_num(c, o, p, t, "tflops", &m.tflops)) < 0 ||
            (rc = gs_sc_num(c, o, p, t, "bandwidth_gbs", &m.bw_gbs)) < 0 ||
            (rc = gs_sc_num(c, o, p, t, "power_w", &m.power_w)) < 0 ||
            (rc = gs_sc_bool(c, o, p, t, "mig", &m.mig)) < 0)
            return rc;
        if (gs_catalog_add(&c->s->cat, &m) < 0)
            return gs_sc_err(c, p, "too many GPU models (at most %d)",
                             GS_MAX_MODELS);
    }
    return 0;
}

static int parse_market(struct gs_sc *c, const char *p, const char *market,
                        int *out)
{
    *out = -1;
    for (int k = 0; k < GS_NMARKETS; k++)
        if (strcmp(market, gs_sc_market_names[k]) == 0)
            *out = k;
    if (*out >= 0)
        return 0;
    GS_JSON_PATH(pp);
    gs_json_path_key(&pp, p, "market");
    return gs_sc_err(c, pp, "unknown market '%s' (known: on-demand, "
                     "reserved, spot, capacity-block)", market);
}

/* --- sharing ------------------------------------------------------------- */

/* The keys of each sharing mode (docs/sharing.md); keys of another mode
 * are unknown keys. */
#define SHARE_NONE "mode"
#define SHARE_MIG "mode layout reconfigure reconfigure_time"
#define SHARE_TS "mode replicas switch_overhead max_overhead latency_from " \
                 "latency_min_ms latency_max_ms oom_victim"
#define SHARE_FRAC "mode reclaim"

static const char *const share_modes[] = {
    "none", "mig", "time-slicing", "fractional", NULL
};
static const char *const oom_victims[] = { "newest", "largest", NULL };
static const char *const reclaims[] = { "kill", "evict", NULL };

static const struct gs_kt_key k_sharing[] = {
    { .name = "mode", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 31,
      .names = share_modes, .desc = "how the GPUs of the pool are shared" },
    GS_K_STR("layout", 255, 0, "mig: the MIG layout of each GPU, \"full\" "
             "(the default) or profiles such as \"3g.40gb+2g.20gb\" "
             "(docs/sharing.md)"),
    GS_K_BOOL("reconfigure", "mig: GPUs may be re-cut to fit the queue"),
    GS_K_DUR("reconfigure_time", 0, "mig: how long a re-cut takes"),
    GS_K_INT("replicas", 1, GS_SHARE_MAX_REPLICAS, 0, NULL,
             "time-slicing: jobs a GPU holds at once (required)"),
    GS_K_NUM("switch_overhead", 0, 0.5, 0, NULL, "time-slicing: work lost "
             "to each context switch, a share"),
    GS_K_NUM("max_overhead", 0, 0.95, 0, NULL,
             "time-slicing: the largest total overhead, a share"),
    GS_K_INT("latency_from", 1, GS_SHARE_MAX_REPLICAS, 0, NULL,
             "time-slicing: the replicas from which latency grows"),
    GS_K_NUM("latency_min_ms", 0, 1e6, 0, "ms",
             "time-slicing: the least added latency"),
    GS_K_NUM("latency_max_ms", 0, 1e6, 0, "ms",
             "time-slicing: the most added latency"),
    { .name = "oom_victim", .type = GS_KT_STR, .maxlen = 31,
      .names = oom_victims, .desc = "time-slicing: which job an "
      "out-of-memory GPU kills" },
    { .name = "reclaim", .type = GS_KT_STR, .maxlen = 31, .names = reclaims,
      .desc = "fractional: what reclaiming a burst does to a job" },
    GS_K_END
};

static const struct gs_kt_rule r_sharing[] = {
    { .cond = GS_KC_IS, .key = "mode", .val = "none", .only = SHARE_NONE },
    { .cond = GS_KC_IS, .key = "mode", .val = "mig", .only = SHARE_MIG },
    { .cond = GS_KC_IS, .key = "mode", .val = "time-slicing",
      .only = SHARE_TS, .need = "replicas" },
    { .cond = GS_KC_IS, .key = "mode", .val = "fractional",
      .only = SHARE_FRAC },
    { 0 }
};

static const struct gs_kt_obj t_sharing = {
    .id = "sharing", .desc = "how a pool's GPUs are shared: MIG, "
    "time-slicing or fractions (docs/sharing.md)", .keys = k_sharing,
    .rules = r_sharing
};

/* The MIG table of catalog model m: the model's own, or for the export
 * variants the part they are cut from (A800-80GB = A100-80GB, H800-80GB =
 * H100-80GB silicon). */
static const struct gs_mig_gpu *mig_table(const struct gs_catalog *cat, int m)
{
    const char *name = cat->m[m].name;
    if (strcmp(name, "A800-80GB") == 0)
        name = "A100-80GB";
    else if (strcmp(name, "H800-80GB") == 0)
        name = "H100-80GB";
    return gs_mig_gpu_find(name);
}

static int share_mig(struct gs_sc *c, const cJSON *o, const char *p,
                     int model, struct gs_share_cfg *sc)
{
    const struct gs_kt_obj *t = &t_sharing;
    char layout[256] = "full";
    GS_JSON_PATH(q);
    int rc;
    sc->mode = GS_SHARE_MIG;
    sc->reconf_time = GS_SHARE_RECONF_TIME;
    if ((rc = gs_sc_keys_only(c, o, p, t, SHARE_MIG)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "layout", layout, sizeof layout)) < 0 ||
        (rc = gs_sc_bool(c, o, p, t, "reconfigure", &sc->reconfigure)) < 0 ||
        (rc = gs_sc_time(c, o, p, t, "reconfigure_time",
                         &sc->reconf_time)) < 0)
        return rc;
    sc->mig_gpu = mig_table(&c->s->cat, model);
    gs_json_path_key(&q, p, "mode");
    if (sc->mig_gpu == NULL)
        return gs_sc_err(c, q, "GPU model '%s' has no MIG profiles (MIG "
                         "pools need A100-40GB, A100-80GB, H100-80GB, "
                         "H200-141GB, A800-80GB or H800-80GB)",
                         c->s->cat.m[model].name);
    struct gs_diag ld = { 0 };
    if (gs_mig_layout_parse(sc->mig_gpu, layout, &sc->layout, &ld) < 0) {
        gs_json_path_key(&q, p, "layout");
        int err = gs_sc_err(c, q, "%s: %s", gs_diag_where(&ld),
                            gs_diag_what(&ld));
        gs_diag_free(&ld);
        return err;
    }
    return 0;
}

static int share_ts(struct gs_sc *c, const cJSON *o, const char *p,
                    struct gs_share_cfg *sc)
{
    const struct gs_kt_obj *t = &t_sharing;
    char victim[32] = "newest";
    GS_JSON_PATH(q);
    long replicas = 0, from = GS_SHARE_LAT_FROM;
    int rc;
    sc->mode = GS_SHARE_TS;
    sc->switch_overhead = GS_SHARE_SWITCH;
    sc->max_overhead = GS_SHARE_MAX_OVERHEAD;
    sc->latency_min_ms = GS_SHARE_LAT_MIN_MS;
    sc->latency_max_ms = GS_SHARE_LAT_MAX_MS;
    if ((rc = gs_sc_keys_only(c, o, p, t, SHARE_TS)) < 0 ||
        (rc = gs_sc_need(c, o, p, "replicas")) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "replicas", &replicas)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "switch_overhead",
                        &sc->switch_overhead)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "max_overhead", &sc->max_overhead)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "latency_from", &from)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "latency_min_ms",
                        &sc->latency_min_ms)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "latency_max_ms",
                        &sc->latency_max_ms)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "oom_victim", victim,
                        sizeof victim)) < 0)
        return rc;
    sc->replicas = (int)replicas;
    sc->latency_from = (int)from;
    if (sc->latency_max_ms < sc->latency_min_ms) {
        gs_json_path_key(&q, p, "latency_max_ms");
        return gs_sc_err(c, q, "%g is below latency_min_ms %g",
                         sc->latency_max_ms, sc->latency_min_ms);
    }
    if (strcmp(victim, "newest") == 0)
        sc->oom_rule = GS_OOM_NEWEST;
    else if (strcmp(victim, "largest") == 0)
        sc->oom_rule = GS_OOM_LARGEST;
    else {
        gs_json_path_key(&q, p, "oom_victim");
        return gs_sc_err(c, q, "unknown rule '%s' (newest, largest)", victim);
    }
    return 0;
}

/* A pool's "sharing" object (docs/sharing.md):
 *   {"mode": "none"}
 *   {"mode": "mig", "layout": L, "reconfigure": B, "reconfigure_time": D}
 *   {"mode": "time-slicing", "replicas": N, "switch_overhead": X,
 *    "max_overhead": X, "latency_from": N, "latency_min_ms": X,
 *    "latency_max_ms": X, "oom_victim": "newest"|"largest"}
 *   {"mode": "fractional", "reclaim": "kill"|"evict"}
 * Keys of another mode are unknown keys. */
static int parse_sharing(struct gs_sc *c, const cJSON *o, const char *p,
                         int model, struct gs_share_cfg *sc)
{
    const struct gs_kt_obj *t = &t_sharing;
    char mode[32] = "";
    GS_JSON_PATH(q);
    int rc;
    memset(sc, 0, sizeof *sc);
    if (!cJSON_IsObject(o))
        return gs_sc_err(c, p, "expected an object with \"mode\" (none, mig, "
                         "time-slicing, fractional)");
    if ((rc = gs_sc_str(c, o, p, t, "mode", mode, sizeof mode)) < 0)
        return rc;
    gs_json_path_key(&q, p, "mode");
    if (strcmp(mode, "none") == 0)
        return gs_sc_keys_only(c, o, p, t, SHARE_NONE);
    if (strcmp(mode, "mig") == 0)
        return share_mig(c, o, p, model, sc);
    if (strcmp(mode, "time-slicing") == 0)
        return share_ts(c, o, p, sc);
    if (strcmp(mode, "fractional") == 0) {
        char reclaim[32] = "kill";
        sc->mode = GS_SHARE_FRAC;
        if ((rc = gs_sc_keys_only(c, o, p, t, SHARE_FRAC)) < 0 ||
            (rc = gs_sc_str(c, o, p, t, "reclaim", reclaim,
                            sizeof reclaim)) < 0)
            return rc;
        if (strcmp(reclaim, "kill") == 0)
            sc->reclaim_kill = 1;
        else if (strcmp(reclaim, "evict") != 0) {
            gs_json_path_key(&q, p, "reclaim");
            return gs_sc_err(c, q, "unknown reclaim '%s' (kill, evict)",
                             reclaim);
        }
        return 0;
    }
    return gs_sc_err(c, q, "unknown sharing mode '%s' (none, mig, "
                     "time-slicing, fractional)", mode);
}

/* --- pools --------------------------------------------------------------- */

static const struct gs_kt_key k_node_list[] = {
    { .name = "format", .type = GS_KT_STR, .flags = GS_KF_REQ,
      .maxlen = GS_NAME - 1, .src = GS_KS_NODE_FORMAT,
      .desc = "the node list's format (docs/traces.md, docs/import.md)" },
    GS_K_STR("path", 0, GS_KF_REQ, "the node list, relative to the "
             "scenario's folder"),
    { .name = "market", .type = GS_KT_STR, .maxlen = 31,
      .names = gs_sc_market_names, .desc = "the market of every pool "
      "(default: the list's own, else on-demand)" },
    GS_K_NUM("price_per_gpu_hour", 0, 1e6, 0, "$/GPU-h",
             "price per GPU-hour (default: the built-in list price)"),
    GS_K_STR("name_prefix", 31, 0, "put before each pool's name"),
    GS_K_END
};

static const struct gs_kt_obj t_node_list = {
    .id = "node_list", .desc = "pools read from a trace's or a cluster's "
    "node list, one per (GPU model, GPUs per node)", .keys = k_node_list
};

/* The keys a fleet entry made from a node list has. */
#define POOL_NODE_LIST "from_node_list sharing"
/* Keys a pool without GPUs refuses: they are about GPUs, or their models
 * (autoscaler, failures, spot replacement) count capacity in GPUs. */
#define CPU_POOL_REFUSED "price_per_gpu_hour sharing autoscale failures " \
                         "spot capacity_block spares power_cap_w " \
                         "host_idle_w host_busy_w"

static const struct gs_kt_key k_pool_a[] = {
    GS_K_STR("name", GS_NAME - 1, 0, "the pool's name (default poolN)"),
    { .name = "gpu", .type = GS_KT_STR, .maxlen = GS_MODEL_NAME - 1,
      .flags = GS_KF_CI, .src = GS_KS_GPU, .desc = "GPU model (required "
      "unless gpus_per_node is 0)" },
    GS_K_INT("nodes", 0, 10000000, 0, NULL, "nodes at the start "
             "(required)"),
    GS_K_INT("gpus_per_node", 0, GS_MAX_GPN, 0, NULL,
             "GPUs per node (default 8; 0: CPU-only nodes)"),
    GS_K_STR("instance_type", GS_NAME - 1, 0, "instance type, for prices "
             "($.prices) and the record"),
    GS_K_NUM("price_per_hour", 0, 1e7, 0, "$/node-h", "price per node-hour"),
    GS_K_NUM("price_per_gpu_hour", 0, 1e6, 0, "$/GPU-h",
             "price per GPU-hour"),
    { .name = "market", .type = GS_KT_STR, .maxlen = 31,
      .names = gs_sc_market_names, .desc = "the market the nodes are bought "
      "in (default on-demand; docs/cloud.md)" },
    GS_K_END
};

/* After the pool's cloud keys (gs_sc_k_pool_cloud, scenario_cloud.c). */
static const struct gs_kt_key k_pool_b[] = {
    GS_K_OBJ("from_node_list", &t_node_list, 0, "read the pools from a node "
             "list (then only \"sharing\" may be beside it)"),
    GS_K_OBJ("sharing", &t_sharing, 0, "GPU sharing"),
    GS_K_INT("cpu_milli", 1, 2000000000, 0, "millicores",
             "host CPU of a node"),
    GS_K_INT("mem_mib", 1, 2000000000, 0, "MiB", "host memory of a node"),
    GS_K_NUM("network_gbps", 0.001, 1e6, 0, "Gbit/s",
             "a node's bandwidth to other nodes"),
    GS_K_STR("region", GS_NAME - 1, 0, "the $.energy region whose PUE, "
             "tariff and carbon intensity the pool's energy takes (default "
             "\"default\")"),
    GS_K_NUM("power_cap_w", 1, 1e5, 0, "W", "a cap on each GPU's board "
             "power: above its idle draw, at most its limit; compute-bound "
             "work slows (docs/energy.md)"),
    GS_K_NUM("host_idle_w", 0, 1e6, 0, "W", "a node's host power (CPUs, "
             "memory, NICs, fans) with no GPU allocated (default: 40% of "
             "host_busy_w; docs/energy.md)"),
    GS_K_NUM("host_busy_w", 0, 1e6, 0, "W", "a node's host power with "
             "every GPU allocated; it scales with the share allocated "
             "(default: the GPU's published 8-GPU system less its boards, x "
             "gpus_per_node / 8; docs/energy.md)"),
    GS_K_END
};

static const struct gs_kt_rule r_pool[] = {
    { .cond = GS_KC_HAS, .key = "from_node_list", .only = POOL_NODE_LIST },
    { .cond = GS_KC_LACKS, .key = "from_node_list", .need = "nodes" },
    { .cond = GS_KC_LACKS, .key = "from_node_list",
      .cond2 = GS_KC_NONZERO, .key2 = "gpus_per_node", .need = "gpu" },
    { .cond = GS_KC_ZERO, .key = "gpus_per_node",
      .forbid = "gpu " CPU_POOL_REFUSED },
    { .cond = GS_KC_ALWAYS, .excl = "price_per_hour price_per_gpu_hour" },
    { .cond = GS_KC_ALWAYS, .excl = "price_per_hour discount" },
    { .cond = GS_KC_ALWAYS, .excl = "price_per_gpu_hour discount" },
    { .cond = GS_KC_IS, .key = "market", .val = "spot", .need = "spot" },
    { .cond = GS_KC_ISNT, .key = "market", .val = "spot", .forbid = "spot" },
    { .cond = GS_KC_IS, .key = "market", .val = "capacity-block",
      .need = "capacity_block", .forbid = "autoscale" },
    { .cond = GS_KC_ISNT, .key = "market", .val = "capacity-block",
      .forbid = "capacity_block" },
    { .cond = GS_KC_IS, .key = "market", .val = "reserved",
      .forbid = "autoscale" },
    { 0 }
};

const struct gs_kt_obj gs_sc_t_pool = {
    .id = "pool", .desc = "a pool of identical nodes, or {\"from_node_list\": "
    "...}", .keys = k_pool_a, .more = gs_sc_k_pool_cloud,
    .more2 = k_pool_b, .rules = r_pool
};

/* The "path" of the list object n (at q), resolved against the
 * scenario's folder into *full (malloc'ed): any length the system can
 * open, an empty one refused. */
static int list_path(struct gs_sc *c, const cJSON *n, const char *q,
                     char **full)
{
    int rc = gs_sc_file_path(c, n, q, "path", full);
    if (rc < 0)
        return rc;
    if (*full == NULL) {
        GS_JSON_PATH(pq);
        gs_json_path_key(&pq, q, "path");
        return gs_sc_err(c, pq, "an empty path");
    }
    return 0;
}

/* {"from_node_list": {"format": F, "path": P, "market": M,
 *  "price_per_gpu_hour": X, "name_prefix": S}}: the pools of a trace's node
 * list (traces/nodelist.h), one per (GPU model, GPUs per node). */
static int node_list_read(struct gs_sc *c, const cJSON *o, const char *p,
                          int *mk, double *gprice, char *prefix,
                          struct gs_pool_spec **np, int *nn)
{
    const struct gs_kt_obj *t = &t_node_list;
    int rc;
    char fmt[GS_NAME] = "";
    GS_JSON_PATH(q);
    char market[32] = "on-demand";
    gs_json_path_key(&q, p, "from_node_list");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "from_node_list");
    if ((rc = gs_sc_keys_only(c, o, p, &gs_sc_t_pool, POOL_NODE_LIST)) < 0 ||
        (rc = gs_sc_keys(c, n, q, t)) < 0 ||
        (rc = gs_sc_str(c, n, q, t, "format", fmt, sizeof fmt)) < 0 ||
        (rc = gs_sc_str(c, n, q, t, "market", market, sizeof market)) < 0 ||
        (rc = gs_sc_str(c, n, q, t, "name_prefix", prefix, 32)) < 0 ||
        (rc = gs_sc_num(c, n, q, t, "price_per_gpu_hour", gprice)) < 0)
        return rc;
    int known = 0;
    for (int i = 0; gs_node_list_formats[i]; i++)
        known |= strcmp(gs_node_list_formats[i]->name, fmt) == 0;
    if (!known) {
        char list[256] = "";
        GS_JSON_PATH(fq);
        for (int i = 0; gs_node_list_formats[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     i ? ", " : "", gs_node_list_formats[i]->name);
        gs_json_path_key(&fq, q, "format");
        return gs_sc_err(c, fq, "unknown node-list format '%s' (known: %s)",
                         fmt, list);
    }
    if ((rc = parse_market(c, q, market, mk)) < 0)
        return rc;
    char *full;
    if ((rc = list_path(c, n, q, &full)) < 0)
        return rc;
    rc = gs_node_list_read(fmt, full, &c->s->cat, np, nn, c->d);
    free(full);
    return rc;
}

/* Pool ps (of the node list's entry o at p) named, priced and shared. */
static int node_list_pool(struct gs_sc *c, const cJSON *o, const char *p,
                          struct gs_pool_spec *ps, const char *prefix,
                          int mk, double gprice)
{
    struct gs_scenario *s = c->s;
    char name[2 * GS_NAME];
    GS_JSON_PATH(q);
    gs_json_path_key(&q, p, "from_node_list");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "from_node_list");
    snprintf(name, sizeof name, "%s%s", prefix, ps->name);
    if (strlen(name) >= sizeof ps->name)
        return gs_sc_err(c, q, "pool name '%s' is longer than %d characters",
                         name, GS_NAME - 1);
    memcpy(ps->name, name, strlen(name) + 1);
    if (cJSON_GetObjectItemCaseSensitive(n, "market"))
        ps->market = mk;        /* else the node list's own (k8s-nodes) */
    ps->price_hour = ps->gpn == 0 ? gs_sc_default_node_price(s, ps)
                     : (gprice >= 0 ? gprice
                        : gs_sc_default_gpu_price(s->cat.m[ps->model].name)) *
                       (double)ps->gpn;
    const cJSON *sh = ps->gpn > 0  /* CPU-only nodes share no GPU */
                          ? cJSON_GetObjectItemCaseSensitive(o, "sharing")
                          : NULL;
    GS_JSON_PATH(sp);
    gs_json_path_key(&sp, p, "sharing");
    int rc;
    if (sh && (rc = parse_sharing(c, sh, sp, ps->model, &ps->share)) < 0)
        return rc;
    for (int m = 0; m < s->npools - 1; m++)
        if (strcmp(s->pools[m].name, ps->name) == 0)
            return gs_sc_err(c, q, "duplicate pool name '%s'", ps->name);
    return 0;
}

static int fleet_from_node_list(struct gs_sc *c, const cJSON *o, const char *p,
                                int *cap)
{
    struct gs_scenario *s = c->s;
    char prefix[32] = "";
    double gprice = -1;
    int mk = 0;
    struct gs_pool_spec *np = NULL;
    int nn = 0;
    int rc = node_list_read(c, o, p, &mk, &gprice, prefix, &np, &nn);
    if (rc < 0)
        return rc;
    if (s->npools + nn > *cap) {
        int ncap = s->npools + nn;
        struct gs_pool_spec *grown = realloc(s->pools,
                                             (size_t)ncap * sizeof *grown);
        if (grown == NULL) {
            free(np);
            return gs_sc_oom(c);
        }
        s->pools = grown;
        *cap = ncap;
    }
    for (int k = 0; k < nn; k++) {
        struct gs_pool_spec *ps = &s->pools[s->npools++];
        *ps = np[k];
        if ((rc = node_list_pool(c, o, p, ps, prefix, mk, gprice)) < 0) {
            free(np);
            return rc;
        }
    }
    free(np);
    return 0;
}

/* One pool of the fleet from its entry o at p. */
static int parse_pool(struct gs_sc *c, const cJSON *o, const char *p, int i,
                      struct gs_pool_spec *ps)
{
    const struct gs_kt_obj *t = &gs_sc_t_pool;
    struct gs_scenario *s = c->s;
    int rc;
    memset(ps, 0, sizeof *ps);
    if ((rc = gs_sc_keys(c, o, p, t)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "network_gbps", &ps->net_gbps)) < 0)
        return rc;
    long nodes = 0, gpn = 8, cpum = 0, memm = 0;
    double price = -1, gprice = -1;
    char market[32] = "on-demand";
    snprintf(ps->name, sizeof ps->name, "pool%d", i);
    if ((rc = gs_sc_int(c, o, p, t, "gpus_per_node", &gpn)) < 0)
        return rc;
    if (gpn == 0 && cJSON_GetObjectItemCaseSensitive(o, "gpu"))
        return gs_sc_err(c, p, "a pool without GPUs (gpus_per_node 0) names "
                         "no GPU model: leave out \"gpu\"");
    static const char *const refused[] = {
        "price_per_gpu_hour", "sharing", "autoscale", "failures", "spot",
        "capacity_block", "spares", "power_cap_w", "host_idle_w",
        "host_busy_w", NULL
    };
    for (int k = 0; gpn == 0 && refused[k]; k++)
        if (cJSON_GetObjectItemCaseSensitive(o, refused[k]))
            return gs_sc_err(c, p, "'%s' does not apply to a pool without "
                             "GPUs (gpus_per_node 0)", refused[k]);
    if ((rc = gs_sc_str(c, o, p, t, "name", ps->name, sizeof ps->name)) < 0 ||
        (rc = gs_sc_model_ref(c, o, p, "gpu", gpn > 0, &ps->model)) < 0 ||
        (rc = gs_sc_need(c, o, p, "nodes")) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "nodes", &nodes)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "instance_type", ps->instance,
                        sizeof ps->instance)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "price_per_hour", &price)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "price_per_gpu_hour", &gprice)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "market", market, sizeof market)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "cpu_milli", &cpum)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "mem_mib", &memm)) < 0)
        return rc;
    ps->cpu_milli = (int32_t)cpum;
    ps->mem_mib = (int32_t)memm;
    if (price >= 0 && gprice >= 0)
        return gs_sc_err(c, p, "give price_per_hour (per node) or "
                         "price_per_gpu_hour, not both");
    ps->nodes = (int)nodes;
    ps->gpn = (int)gpn;
    if (price < 0)
        price = gprice >= 0 ? gprice * (double)gpn
                            : gs_sc_default_node_price(s, ps);
    ps->price_hour = price;
    if ((rc = parse_market(c, p, market, &ps->market)) < 0)
        return rc;
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(o, "sharing");
    GS_JSON_PATH(sp);
    gs_json_path_key(&sp, p, "sharing");
    if (sh && (rc = parse_sharing(c, sh, sp, ps->model, &ps->share)) < 0)
        return rc;
    if ((rc = gs_sc_pool_energy(c, o, p, t, ps)) < 0)
        return rc;
    for (int k = 0; k < s->npools - 1; k++)
        if (strcmp(s->pools[k].name, ps->name) == 0)
            return gs_sc_err(c, p, "duplicate pool name '%s'", ps->name);
    return 0;
}

int gs_sc_parse_fleet(struct gs_sc *c, const cJSON *a)
{
    struct gs_scenario *s = c->s;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return gs_sc_err(c, "$.fleet", "expected a non-empty array of pools");
    int cap = cJSON_GetArraySize(a);
    s->npools = 0;
    s->pools = calloc((size_t)cap, sizeof *s->pools);
    c->first = calloc((size_t)cap + 1, sizeof *c->first);
    if (s->pools == NULL || c->first == NULL)
        return gs_sc_oom(c);
    int i = 0;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        GS_JSON_PATH(p);
        gs_json_path_at(&p, "$.fleet", i);
        int rc;
        c->first[i] = s->npools;
        if (cJSON_IsObject(o) &&
            cJSON_GetObjectItemCaseSensitive(o, "from_node_list")) {
            if ((rc = fleet_from_node_list(c, o, p, &cap)) < 0)
                return rc;
            continue;
        }
        if (s->npools == cap) {
            struct gs_pool_spec *grown = realloc(s->pools, (size_t)(cap + 1) *
                                                 sizeof *grown);
            if (grown == NULL)
                return gs_sc_oom(c);
            s->pools = grown;
            cap++;
        }
        if ((rc = parse_pool(c, o, p, i, &s->pools[s->npools++])) < 0)
            return rc;
    }
    c->first[i] = s->npools;
    return gs_sc_parse_fleet_cloud(c, a);
}

/* --- tiers, tenants, partitions, topology -------------------------------- */

void gs_sc_tier_defaults(struct gs_scenario *s)
{
    /* Host resources (docs/sharing.md, "Resources"): the medians of the
     * Alibaba openb pod list (cluster-trace-gpu-v2023, 8,152 pods) per GPU
     * by QoS class -- LS (latency-sensitive: inference) 11.4 cores and
     * 48 GiB, Burstable (interactive) 12 cores and 24 GiB, BE (best
     * effort: training, data) 3.15 cores and 5.5 GiB -- capped at the
     * per-GPU share of the smallest built-in node (p3.16xlarge: 8 vCPUs
     * and 61 GiB a GPU), so a default alone never strands a built-in
     * node's GPUs; a job asking no GPU: the CPU-only pods' medians, 12.5
     * cores and 50 GiB. */
#define GS_HOST(c, m) .cpu_per_gpu = (c), .mem_per_gpu = (m), \
                      .cpu_only = 12500, .mem_only = 51200
    static const struct gs_tiercfg def[GS_NTIERS] = {
        [GS_TIER_INFERENCE] = { 100, 0, 30 * GS_SEC, 0, 0,
                                GS_HOST(8000, 48 * 1024) },
        [GS_TIER_TRAINING] = { 50, 1, GS_HOUR, 0, 0, GS_HOST(3150, 5632) },
        [GS_TIER_INTERACTIVE] = { 20, 1, 5 * GS_MIN, 0, 0,
                                  GS_HOST(8000, 24 * 1024) },
        [GS_TIER_DATA] = { 10, 1, GS_HOUR, 0, 0, GS_HOST(3150, 5632) },
    };
#undef GS_HOST
    memcpy(s->tiers, def, sizeof def);
}

static const char *const gangs[] = { "consolidate", "spread", NULL };

static const struct gs_kt_key k_topology[] = {
    { .name = "gang_placement", .type = GS_KT_STR, .maxlen = 31,
      .names = gangs, .desc = "gangs on as few nodes as fit them "
      "(consolidate, the default) or spread over nodes" },
    GS_K_NUM("comm_share", 0, 1, 0, NULL, "a job's default share of time "
             "in communication when consolidated (default 0.1)"),
    GS_K_NUM("per_hop_slowdown", 0, 1000, 0, NULL, "slowdown per network "
             "hop added (default: from the bandwidths)"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_topology = {
    .id = "topology", .desc = "how gangs are placed and what spreading one "
    "costs (docs/sharing.md#topology)", .keys = k_topology
};

/* $.topology: {"gang_placement": "consolidate" | "spread",
 * "comm_share": 0..1, "per_hop_slowdown": >= 0}.  Defaults: consolidate,
 * 0.1 (see sim.c, topo_factor), derived. */
int gs_sc_parse_topology(struct gs_sc *c, const cJSON *root)
{
    const struct gs_kt_obj *t = &gs_sc_t_topology;
    struct gs_topocfg *tc = &c->s->topo;
    tc->gang = GS_GANG_CONSOLIDATE;
    tc->comm_share = 0.1;
    tc->per_hop = -1;
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "topology");
    if (o == NULL)
        return 0;
    char gang[32] = "consolidate";
    const char *p = "$.topology";
    int rc;
    if ((rc = gs_sc_keys(c, o, p, t)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "gang_placement", gang,
                        sizeof gang)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "comm_share", &tc->comm_share)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "per_hop_slowdown", &tc->per_hop)) < 0)
        return rc;
    if (strcmp(gang, "consolidate") == 0)
        tc->gang = GS_GANG_CONSOLIDATE;
    else if (strcmp(gang, "spread") == 0)
        tc->gang = GS_GANG_SPREAD;
    else
        return gs_sc_err(c, "$.topology.gang_placement", "unknown placement "
                         "'%s' (consolidate, spread)", gang);
    return 0;
}

static const struct gs_kt_key k_tier[] = {
    GS_K_INT("priority", -1000000, 1000000, 0, NULL,
             "higher runs first (policies that use priorities)"),
    GS_K_BOOL("preemptible", "a job of the tier may be preempted"),
    GS_K_DUR("max_wait", 0, "the SLA: the longest acceptable wait"),
    GS_K_DUR("checkpoint_interval", 0, "default checkpoint interval"),
    GS_K_DUR("restart_overhead", 0, "work redone on each restart"),
    GS_K_END
};

static const struct gs_kt_obj t_tier = {
    .id = "tier", .desc = "a tier's defaults", .keys = k_tier,
    .more = gs_sc_k_host
};

static const struct gs_kt_key k_tiers[] = {
    GS_K_OBJ("inference", &t_tier, 0, "defaults of the inference tier"),
    GS_K_OBJ("training", &t_tier, 0, "defaults of the training tier"),
    GS_K_OBJ("interactive", &t_tier, 0, "defaults of the interactive tier"),
    GS_K_OBJ("data", &t_tier, 0, "defaults of the data tier"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_tiers = {
    .id = "tiers", .desc = "per-tier defaults", .keys = k_tiers
};

int gs_sc_parse_tiers(struct gs_sc *c, const cJSON *o)
{
    int rc;
    if ((rc = gs_sc_keys(c, o, "$.tiers", &gs_sc_t_tiers)) < 0)
        return rc;
    const struct gs_kt_obj *t = &t_tier;
    for (const cJSON *e = o->child; e; e = e->next) {
        GS_JSON_PATH(p);
        gs_json_path_key(&p, "$.tiers", e->string);
        struct gs_tiercfg *tc = &c->s->tiers[gs_tier_parse(e->string)];
        long prio = tc->priority;
        if ((rc = gs_sc_keys(c, e, p, t)) < 0 ||
            (rc = gs_sc_host_keys(c, e, p, &tc->cpu_per_gpu, &tc->mem_per_gpu,
                                  &tc->cpu_only, &tc->mem_only)) < 0 ||
            (rc = gs_sc_int(c, e, p, t, "priority", &prio)) < 0 ||
            (rc = gs_sc_bool(c, e, p, t, "preemptible",
                             &tc->preemptible)) < 0 ||
            (rc = gs_sc_time(c, e, p, t, "max_wait", &tc->max_wait)) < 0 ||
            (rc = gs_sc_time(c, e, p, t, "checkpoint_interval",
                             &tc->ckpt)) < 0 ||
            (rc = gs_sc_time(c, e, p, t, "restart_overhead",
                             &tc->restart)) < 0)
            return rc;
        tc->priority = (int)prio;
    }
    return 0;
}

static const struct gs_kt_key k_queues[] = {
    { .name = "format", .type = GS_KT_STR, .flags = GS_KF_REQ,
      .maxlen = GS_NAME - 1, .src = GS_KS_QUEUE_FORMAT,
      .desc = "the queue objects' format (docs/import.md)" },
    GS_K_STR("path", 0, GS_KF_REQ, "the queue objects, relative to the "
             "scenario's folder"),
    GS_K_END
};

static const struct gs_kt_obj t_queues = {
    .id = "queue_list", .desc = "tenants read from a cluster's queue "
    "objects (Kueue ClusterQueues): nominal GPU quota and fair-sharing "
    "weight", .keys = k_queues
};

/* The keys of a tenant given by hand. */
#define TENANT_OWN "name quota_gpus weight"

static const struct gs_kt_key k_tenant[] = {
    { .name = "name", .type = GS_KT_STR, .flags = GS_KF_NONEMPTY,
      .maxlen = GS_TENANT_NAME - 1, .desc = "the tenant's name (required "
      "unless from_queues)" },
    GS_K_NUM("quota_gpus", 0, 1e9, 0, "GPUs", "guaranteed GPUs (fair, "
             "static)"),
    GS_K_NUM("weight", 1e-9, 1e9, 0, NULL, "share weight (default 1)"),
    GS_K_OBJ("from_queues", &t_queues, 0, "read tenants from queue objects "
             "(alone in its entry)"),
    GS_K_END
};

static const struct gs_kt_rule r_tenant[] = {
    { .cond = GS_KC_HAS, .key = "from_queues", .only = "from_queues" },
    { .cond = GS_KC_LACKS, .key = "from_queues", .need = "name" },
    { 0 }
};

const struct gs_kt_obj gs_sc_t_tenant = {
    .id = "tenant", .desc = "a tenant with its quota, or {\"from_queues\": "
    "...}", .keys = k_tenant, .rules = r_tenant
};

/* {"from_queues": {"format": F, "path": P}}: the tenants of a cluster's
 * queue objects (traces/queuelist.h), appended to s->tenants (room for
 * *cap). */
static int tenants_from_queues(struct gs_sc *c, const cJSON *o, const char *p,
                               int *cap)
{
    const struct gs_kt_obj *t = &t_queues;
    struct gs_scenario *s = c->s;
    char fmt[GS_NAME] = "";
    GS_JSON_PATH(q);
    gs_json_path_key(&q, p, "from_queues");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "from_queues");
    int rc;
    if ((rc = gs_sc_keys_only(c, o, p, &gs_sc_t_tenant, "from_queues")) < 0 ||
        (rc = gs_sc_keys(c, n, q, t)) < 0 ||
        (rc = gs_sc_str(c, n, q, t, "format", fmt, sizeof fmt)) < 0)
        return rc;
    int known = 0;
    for (int i = 0; gs_queue_list_formats[i]; i++)
        known |= strcmp(gs_queue_list_formats[i]->name, fmt) == 0;
    if (!known) {
        GS_JSON_PATH(fq);
        gs_json_path_key(&fq, q, "format");
        return gs_sc_err(c, fq, "unknown queue-list format '%s' (known: "
                         "kueue)", fmt);
    }
    char *full;
    if ((rc = list_path(c, n, q, &full)) < 0)
        return rc;
    struct gs_tenant *v = NULL;
    int nv = 0;
    rc = gs_queue_list_read(fmt, full, &v, &nv, c->d);
    free(full);
    if (rc < 0)
        return rc;
    if (s->ntenants + nv + 1 > *cap) {
        int ncap = s->ntenants + nv + 1;
        struct gs_tenant *grown = realloc(s->tenants,
                                          (size_t)ncap * sizeof *grown);
        if (grown == NULL) {
            free(v);
            return gs_sc_oom(c);
        }
        s->tenants = grown;
        *cap = ncap;
    }
    memcpy(s->tenants + s->ntenants, v, (size_t)nv * sizeof *v);
    s->ntenants += nv;
    free(v);
    return 0;
}

/* A tenant given by hand, o at p. */
static int tenant_own(struct gs_sc *c, const cJSON *o, const char *p)
{
    const struct gs_kt_obj *tt = &gs_sc_t_tenant;
    struct gs_tenant *t = &c->s->tenants[c->s->ntenants];
    int rc;
    memset(t, 0, sizeof *t);
    t->weight = 1.0;
    if ((rc = gs_sc_keys_only(c, o, p, tt, TENANT_OWN)) < 0 ||
        (rc = gs_sc_need(c, o, p, "name")) < 0 ||
        (rc = gs_sc_str(c, o, p, tt, "name", t->name, sizeof t->name)) < 0 ||
        (rc = gs_sc_num(c, o, p, tt, "quota_gpus", &t->quota_gpus)) < 0 ||
        (rc = gs_sc_num(c, o, p, tt, "weight", &t->weight)) < 0)
        return rc;
    c->s->ntenants++;
    return 0;
}

int gs_sc_parse_tenants(struct gs_sc *c, const cJSON *a)
{
    struct gs_scenario *s = c->s;
    if (!cJSON_IsArray(a))
        return gs_sc_err(c, "$.tenants", "expected an array");
    int cap = cJSON_GetArraySize(a) + 1;
    s->ntenants = 0;
    s->tenants = calloc((size_t)cap, sizeof *s->tenants);
    if (s->tenants == NULL)
        return gs_sc_oom(c);
    int i = 0, rc;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        GS_JSON_PATH(p);
        gs_json_path_at(&p, "$.tenants", i);
        int first = s->ntenants;
        rc = cJSON_GetObjectItemCaseSensitive(o, "from_queues")
                 ? tenants_from_queues(c, o, p, &cap)
                 : tenant_own(c, o, p);
        if (rc < 0)
            return rc;
        for (int t = first; t < s->ntenants; t++)
            for (int k = 0; k < t; k++)
                if (strcmp(s->tenants[k].name, s->tenants[t].name) == 0)
                    return gs_sc_err(c, p, "duplicate tenant '%s'",
                                     s->tenants[t].name);
    }
    return 0;
}

static const struct gs_kt_key k_partition[] = {
    GS_K_STR("name", GS_NAME - 1, 0, "the partition's name (default partN)"),
    GS_K_STR("tenant", GS_TENANT_NAME - 1, 0, "the tenant it serves (empty: "
             "any)"),
    { .name = "tier", .type = GS_KT_STR, .maxlen = 31,
      .names = gs_sc_tier_names, .desc = "the tier it serves (absent: any)" },
    GS_K_STR("pool", GS_NAME - 1, GS_KF_REQ, "the pool it carves nodes "
             "from"),
    GS_K_INT("nodes", 1, 10000000, GS_KF_REQ, NULL, "its nodes"),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_partition = {
    .id = "partition", .desc = "a fixed range of a pool's nodes",
    .keys = k_partition
};

static int find_pool(const struct gs_scenario *s, const char *name)
{
    for (int i = 0; i < s->npools; i++)
        if (strcmp(s->pools[i].name, name) == 0)
            return i;
    return -1;
}

/* Partition i from o at p, its nodes after used[] of its pool. */
static int parse_partition(struct gs_sc *c, const cJSON *o, const char *p,
                           int i, int *used)
{
    const struct gs_kt_obj *t = &gs_sc_t_partition;
    struct gs_scenario *s = c->s;
    char pool[GS_NAME] = "", tier[32] = "";
    struct gs_partition *pt = &s->parts[i];
    long nodes = 0;
    int rc;
    snprintf(pt->name, sizeof pt->name, "part%d", i);
    if ((rc = gs_sc_keys(c, o, p, t)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "name", pt->name, sizeof pt->name)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "tenant", pt->tenant,
                        sizeof pt->tenant)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "tier", tier, sizeof tier)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "pool", pool, sizeof pool)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "nodes", &nodes)) < 0)
        return rc;
    pt->tier = -1;
    if (tier[0] && (pt->tier = gs_tier_parse(tier)) < 0)
        return gs_sc_err(c, p, "unknown tier '%s' (known: inference, "
                         "training, interactive, data)", tier);
    if ((pt->pool = find_pool(s, pool)) < 0)
        return gs_sc_err(c, p, "no pool named '%s' in $.fleet", pool);
    pt->nodes = (int)nodes;
    pt->lo = used[pt->pool];
    pt->hi = pt->lo + pt->nodes;
    used[pt->pool] = pt->hi;
    if (pt->hi > s->pools[pt->pool].nodes)
        return gs_sc_err(c, p, "pool '%s' has %d nodes; its partitions ask "
                         "for %d", pool, s->pools[pt->pool].nodes, pt->hi);
    return 0;
}

int gs_sc_parse_partitions(struct gs_sc *c, const cJSON *a)
{
    struct gs_scenario *s = c->s;
    if (!cJSON_IsArray(a))
        return gs_sc_err(c, "$.partitions", "expected an array");
    s->nparts = cJSON_GetArraySize(a);
    s->parts = calloc((size_t)(s->nparts + 1), sizeof *s->parts);
    if (s->parts == NULL)
        return gs_sc_oom(c);
    int *used = calloc((size_t)s->npools, sizeof *used);
    if (used == NULL)
        return gs_sc_oom(c);
    int i = 0, rc = 0;
    for (const cJSON *o = a->child; o && rc == 0; o = o->next, i++) {
        GS_JSON_PATH(p);
        gs_json_path_at(&p, "$.partitions", i);
        rc = parse_partition(c, o, p, i, used);
    }
    free(used);
    return rc;
}
