/* scenario.c -- parse and validate scenario JSON (cJSON, with jsonio.c).
 *
 * Every object is checked against the list of keys it may have, so a typo
 * is an error naming its JSON path.  Malformed JSON is reported with the
 * line and column where cJSON stopped.  Values are range-checked where they
 * are read; cross-checks (a partition's pool exists and has the nodes, a
 * generated job fits some pool) follow once everything is read.
 *
 * Defaults (documented in the README's scenario reference):
 *   tiers      inference:   priority 100, not preemptible, max wait 30 s
 *              training:    priority 50,  preemptible,     max wait 1 h
 *              interactive: priority 20,  preemptible,     max wait 5 min
 *              data:        priority 10,  preemptible,     max wait 1 h
 *   prices     per GPU-hour on demand (mid-2025 list prices): H100-80GB
 *              $6.88; A100-80GB $5.12 and A100-40GB $4.10 (AWS p4de/p4d
 *              hourly price / 8); other models $0 unless the pool says. */
#include "scenario.h"
#include "../base/datapath.h"
#include "../base/membudget.h"
#include "../base/path.h"
#include "jsonio.h"
#include "../base/suggest.h"
#include "../../traces/llmreq.h"
#include "../../traces/nodelist.h"
#include "../../traces/queuelist.h"
#include "../core/engine.h"
#include "jsoncheck.h"
#include "source.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct ctx {
    const char *file;
    struct gs_diag *d;
    struct gs_scenario *s;
    const cJSON *root;
    int *first;                 /* $.fleet[i] made pools first[i].. first[i+1]-1 */
};

static int err(struct ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The key-checked readers are jsonio.h's gs_json_* (one set of helpers
 * for every JSON file gpusim reads); these forward a ctx's file and
 * diagnostic to them.  Keys given twice were found by gs_jsoncheck before
 * the text was parsed. */
#define GJ(o) ((const struct gs_json *)(const void *)(o))

static struct gs_jin jin(const struct ctx *c)
{
    return (struct gs_jin){ c->file, c->d };
}

static int err(struct ctx *c, const char *path, const char *fmt, ...)
{
    struct gs_jin in = jin(c);
    va_list ap;
    va_start(ap, fmt);
    int rc = gs_json_verr(&in, path, fmt, ap);
    va_end(ap);
    return rc;
}

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int check_keys(struct ctx *c, const cJSON *o, const char *path,
                      const char *const *allowed)
{
    struct gs_jin in = jin(c);
    return gs_json_keys(&in, GJ(o), path, allowed);
}

static void sub(char *buf, size_t n, const char *path, const char *key)
{
    gs_json_path(buf, n, path, key);
}

/* Number at o[key] in [lo, hi]; absent: *out unchanged, or an error if req. */
static int num(struct ctx *c, const cJSON *o, const char *path,
               const char *key, double lo, double hi, int req, double *out)
{
    struct gs_jin in = jin(c);
    return gs_json_num(&in, GJ(o), path, key, lo, hi, req, out);
}

static int inum(struct ctx *c, const cJSON *o, const char *path,
                const char *key, long lo, long hi, int req, long *out)
{
    struct gs_jin in = jin(c);
    return gs_json_int(&in, GJ(o), path, key, lo, hi, req, out);
}

static int str(struct ctx *c, const cJSON *o, const char *path,
               const char *key, int req, char *out, size_t n)
{
    struct gs_jin in = jin(c);
    return gs_json_str(&in, GJ(o), path, key, req, out, n);
}

static int boolean(struct ctx *c, const cJSON *o, const char *path,
                   const char *key, int *out)
{
    struct gs_jin in = jin(c);
    return gs_json_bool(&in, GJ(o), path, key, out);
}

/* A duration: seconds as a number, or "250ms", "30s", "5m", "2h", "3d". */
static int duration(struct ctx *c, const cJSON *o, const char *path,
                    const char *key, int req, gs_time *out)
{
    struct gs_jin in = jin(c);
    return gs_json_time(&in, GJ(o), path, key, req, out);
}

static int model_ref(struct ctx *c, const cJSON *o, const char *path,
                     const char *key, int req, int *out)
{
    char name[GS_MODEL_NAME] = "";
    int rc = str(c, o, path, key, req, name, sizeof name);
    if (rc < 0 || name[0] == '\0')
        return rc;
    int m = gs_catalog_find(&c->s->cat, name);
    if (m < 0) {
        char p[512], list[768] = "";
        sub(p, sizeof p, path, key);
        const char *names[GS_MAX_MODELS + 1];
        for (int i = 0; i < c->s->cat.n; i++)
            names[i] = c->s->cat.m[i].name;
        names[c->s->cat.n] = NULL;
        const char *near = gs_suggest(name, names);
        if (near)
            return err(c, p, "unknown GPU model '%s' (did you mean '%s'? or "
                       "declare it under gpu_models)", name, near);
        for (int i = 0; i < c->s->cat.n; i++) {
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, c->s->cat.m[i].name, sizeof list - strlen(list) - 1);
        }
        return err(c, p, "unknown GPU model '%s' (known: %s; declare others "
                   "under gpu_models)", name, list);
    }
    *out = m;
    return 0;
}

/* --- sections ----------------------------------------------------------- */

static int parse_models(struct ctx *c, const cJSON *a)
{
    if (!cJSON_IsArray(a))
        return err(c, "$.gpu_models", "expected an array");
    int i = 0;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        char p[64];
        snprintf(p, sizeof p, "$.gpu_models[%d]", i);
        int rc;
        if ((rc = check_keys(c, o, p, KEYS("name", "memory_gb", "tflops",
                             "bandwidth_gbs", "power_w", "mig"))) < 0)
            return rc;
        struct gs_gpu_model m = { 0 };
        if ((rc = str(c, o, p, "name", 1, m.name, sizeof m.name)) < 0 ||
            (rc = num(c, o, p, "memory_gb", 1e-3, 1e6, 1, &m.mem_gb)) < 0 ||
            (rc = num(c, o, p, "tflops", 1e-3, 1e7, 1, &m.tflops)) < 0 ||
            (rc = num(c, o, p, "bandwidth_gbs", 1e-3, 1e7, 1, &m.bw_gbs)) < 0 ||
            (rc = num(c, o, p, "power_w", 0, 1e5, 0, &m.power_w)) < 0 ||
            (rc = boolean(c, o, p, "mig", &m.mig)) < 0)
            return rc;
        if (gs_catalog_add(&c->s->cat, &m) < 0)
            return err(c, p, "too many GPU models (at most %d)", GS_MAX_MODELS);
    }
    return 0;
}

static double default_gpu_price(const char *model);

/* The on-demand price of one node of ps when the scenario gives none: the
 * built-in per-GPU price times its GPUs; for nodes without GPUs,
 * m7i.16xlarge's price per vCPU (AWS us-east-1, 2025: $3.2256/h for 64
 * vCPUs and 256 GiB) times the node's vCPUs. */
static double default_node_price(const struct gs_scenario *s,
                                 const struct gs_pool_spec *ps)
{
    if (ps->gpn > 0)
        return default_gpu_price(s->cat.m[ps->model].name) * ps->gpn;
    int32_t hc, hm;
    gs_pool_host(&s->cat, ps, &hc, &hm);
    return 3.2256 / 64.0 * (double)hc / 1000.0;
}

/* Keys a pool without GPUs refuses: they are about GPUs, or their models
 * (autoscaler, failures, spot replacement) count capacity in GPUs. */
static const char *const cpu_pool_refused[] = {
    "price_per_gpu_hour", "sharing", "autoscale", "failures", "spot",
    "capacity_block", "spares", NULL
};

static double default_gpu_price(const char *model)
{
    if (strcmp(model, "H100-80GB") == 0)
        return 6.88;
    if (strcmp(model, "A100-80GB") == 0)
        return 5.12;
    if (strcmp(model, "A100-40GB") == 0)
        return 4.10;
    return 0.0;
}

static const char *const market_names[GS_NMARKETS] = {
    "on-demand", "reserved", "spot", "capacity-block"
};

static int parse_market(struct ctx *c, const char *p, const char *market,
                        int *out)
{
    *out = -1;
    for (int k = 0; k < GS_NMARKETS; k++)
        if (strcmp(market, market_names[k]) == 0)
            *out = k;
    if (*out >= 0)
        return 0;
    char pp[96];
    snprintf(pp, sizeof pp, "%s.market", p);
    return err(c, pp, "unknown market '%s' (known: on-demand, reserved, spot, "
               "capacity-block)", market);
}

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

/* A pool's "sharing" object (docs/sharing.md):
 *   {"mode": "none"}
 *   {"mode": "mig", "layout": L, "reconfigure": B, "reconfigure_time": D}
 *   {"mode": "time-slicing", "replicas": N, "switch_overhead": X,
 *    "max_overhead": X, "latency_from": N, "latency_min_ms": X,
 *    "latency_max_ms": X, "oom_victim": "newest"|"largest"}
 *   {"mode": "fractional", "reclaim": "kill"|"evict"}
 * Keys of another mode are unknown keys. */
static int parse_sharing(struct ctx *c, const cJSON *o, const char *p,
                         int model, struct gs_share_cfg *sc)
{
    char mode[32] = "", q[160];
    int rc;
    memset(sc, 0, sizeof *sc);
    if (!cJSON_IsObject(o))
        return err(c, p, "expected an object with \"mode\" (none, mig, "
                   "time-slicing, fractional)");
    if ((rc = str(c, o, p, "mode", 1, mode, sizeof mode)) < 0)
        return rc;
    snprintf(q, sizeof q, "%s.mode", p);
    if (strcmp(mode, "none") == 0)
        return check_keys(c, o, p, KEYS("mode"));
    if (strcmp(mode, "mig") == 0) {
        char layout[256] = "full";
        sc->mode = GS_SHARE_MIG;
        sc->reconf_time = GS_SHARE_RECONF_TIME;
        if ((rc = check_keys(c, o, p, KEYS("mode", "layout", "reconfigure",
                             "reconfigure_time"))) < 0 ||
            (rc = str(c, o, p, "layout", 0, layout, sizeof layout)) < 0 ||
            (rc = boolean(c, o, p, "reconfigure", &sc->reconfigure)) < 0 ||
            (rc = duration(c, o, p, "reconfigure_time", 0,
                           &sc->reconf_time)) < 0)
            return rc;
        sc->mig_gpu = mig_table(&c->s->cat, model);
        if (sc->mig_gpu == NULL)
            return err(c, q, "GPU model '%s' has no MIG profiles (MIG pools "
                       "need A100-40GB, A100-80GB, H100-80GB, H200-141GB, "
                       "A800-80GB or H800-80GB)", c->s->cat.m[model].name);
        struct gs_diag ld = { 0 };
        if (gs_mig_layout_parse(sc->mig_gpu, layout, &sc->layout, &ld) < 0) {
            snprintf(q, sizeof q, "%s.layout", p);
            return err(c, q, "%s: %s", ld.where, ld.what);
        }
        return 0;
    }
    if (strcmp(mode, "time-slicing") == 0) {
        char victim[32] = "newest";
        long replicas = 0, from = GS_SHARE_LAT_FROM;
        sc->mode = GS_SHARE_TS;
        sc->switch_overhead = GS_SHARE_SWITCH;
        sc->max_overhead = GS_SHARE_MAX_OVERHEAD;
        sc->latency_min_ms = GS_SHARE_LAT_MIN_MS;
        sc->latency_max_ms = GS_SHARE_LAT_MAX_MS;
        if ((rc = check_keys(c, o, p, KEYS("mode", "replicas",
                             "switch_overhead", "max_overhead", "latency_from",
                             "latency_min_ms", "latency_max_ms",
                             "oom_victim"))) < 0 ||
            (rc = inum(c, o, p, "replicas", 1, GS_SHARE_MAX_REPLICAS, 1,
                       &replicas)) < 0 ||
            (rc = num(c, o, p, "switch_overhead", 0, 0.5, 0,
                      &sc->switch_overhead)) < 0 ||
            (rc = num(c, o, p, "max_overhead", 0, 0.95, 0,
                      &sc->max_overhead)) < 0 ||
            (rc = inum(c, o, p, "latency_from", 1, GS_SHARE_MAX_REPLICAS, 0,
                       &from)) < 0 ||
            (rc = num(c, o, p, "latency_min_ms", 0, 1e6, 0,
                      &sc->latency_min_ms)) < 0 ||
            (rc = num(c, o, p, "latency_max_ms", 0, 1e6, 0,
                      &sc->latency_max_ms)) < 0 ||
            (rc = str(c, o, p, "oom_victim", 0, victim, sizeof victim)) < 0)
            return rc;
        sc->replicas = (int)replicas;
        sc->latency_from = (int)from;
        if (sc->latency_max_ms < sc->latency_min_ms) {
            snprintf(q, sizeof q, "%s.latency_max_ms", p);
            return err(c, q, "%g is below latency_min_ms %g",
                       sc->latency_max_ms, sc->latency_min_ms);
        }
        if (strcmp(victim, "newest") == 0)
            sc->oom_rule = GS_OOM_NEWEST;
        else if (strcmp(victim, "largest") == 0)
            sc->oom_rule = GS_OOM_LARGEST;
        else {
            snprintf(q, sizeof q, "%s.oom_victim", p);
            return err(c, q, "unknown rule '%s' (newest, largest)", victim);
        }
        return 0;
    }
    if (strcmp(mode, "fractional") == 0) {
        char reclaim[32] = "kill";
        sc->mode = GS_SHARE_FRAC;
        if ((rc = check_keys(c, o, p, KEYS("mode", "reclaim"))) < 0 ||
            (rc = str(c, o, p, "reclaim", 0, reclaim, sizeof reclaim)) < 0)
            return rc;
        if (strcmp(reclaim, "kill") == 0)
            sc->reclaim_kill = 1;
        else if (strcmp(reclaim, "evict") != 0) {
            snprintf(q, sizeof q, "%s.reclaim", p);
            return err(c, q, "unknown reclaim '%s' (kill, evict)", reclaim);
        }
        return 0;
    }
    return err(c, q, "unknown sharing mode '%s' (none, mig, time-slicing, "
               "fractional)", mode);
}

/* {"from_node_list": {"format": F, "path": P, "market": M,
 *  "price_per_gpu_hour": X, "name_prefix": S}}: the pools of a trace's node
 * list (traces/nodelist.h), one per (GPU model, GPUs per node). */
static int fleet_from_node_list(struct ctx *c, const cJSON *o, const char *p,
                                int *cap)
{
    struct gs_scenario *s = c->s;
    int rc;
    char q[96], fmt[GS_NAME] = "", path[512] = "", prefix[32] = "";
    char market[32] = "on-demand";
    double gprice = -1;
    snprintf(q, sizeof q, "%s.from_node_list", p);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "from_node_list");
    if ((rc = check_keys(c, o, p, KEYS("from_node_list", "sharing"))) < 0 ||
        (rc = check_keys(c, n, q, KEYS("format", "path", "market",
                         "price_per_gpu_hour", "name_prefix"))) < 0 ||
        (rc = str(c, n, q, "format", 1, fmt, sizeof fmt)) < 0 ||
        (rc = str(c, n, q, "path", 1, path, sizeof path)) < 0 ||
        (rc = str(c, n, q, "market", 0, market, sizeof market)) < 0 ||
        (rc = str(c, n, q, "name_prefix", 0, prefix, sizeof prefix)) < 0 ||
        (rc = num(c, n, q, "price_per_gpu_hour", 0, 1e6, 0, &gprice)) < 0)
        return rc;
    int known = 0;
    for (int i = 0; gs_node_list_formats[i]; i++)
        known |= strcmp(gs_node_list_formats[i]->name, fmt) == 0;
    if (!known) {
        char list[256] = "", fq[128];
        for (int i = 0; gs_node_list_formats[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     i ? ", " : "", gs_node_list_formats[i]->name);
        snprintf(fq, sizeof fq, "%s.format", q);
        return err(c, fq, "unknown node-list format '%s' (known: %s)", fmt,
                   list);
    }
    int mk;
    if ((rc = parse_market(c, q, market, &mk)) < 0)
        return rc;
    char *full = gs_data_path(s->trace_dir, path);
    if (full == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    struct gs_pool_spec *np = NULL;
    int nn = 0;
    rc = gs_node_list_read(fmt, full, &s->cat, &np, &nn, c->d);
    free(full);
    if (rc < 0)
        return rc;
    if (s->npools + nn > *cap) {
        int ncap = s->npools + nn;
        struct gs_pool_spec *grown = realloc(s->pools,
                                             (size_t)ncap * sizeof *grown);
        if (grown == NULL) {
            free(np);
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        }
        s->pools = grown;
        *cap = ncap;
    }
    for (int k = 0; k < nn; k++) {
        struct gs_pool_spec *ps = &s->pools[s->npools++];
        *ps = np[k];
        char name[2 * GS_NAME];
        snprintf(name, sizeof name, "%s%s", prefix, np[k].name);
        if (strlen(name) >= sizeof ps->name) {
            free(np);
            return err(c, q, "pool name '%s' is longer than %d characters",
                       name, GS_NAME - 1);
        }
        memcpy(ps->name, name, strlen(name) + 1);
        if (cJSON_GetObjectItemCaseSensitive(n, "market"))
            ps->market = mk;    /* else the node list's own (k8s-nodes) */
        ps->price_hour = ps->gpn == 0 ? default_node_price(s, ps)
                         : (gprice >= 0 ? gprice
                            : default_gpu_price(s->cat.m[ps->model].name)) *
                           (double)ps->gpn;
        const cJSON *sh = ps->gpn > 0  /* CPU-only nodes share no GPU */
                              ? cJSON_GetObjectItemCaseSensitive(o, "sharing")
                              : NULL;
        char sp[160];
        snprintf(sp, sizeof sp, "%s.sharing", p);
        if (sh && (rc = parse_sharing(c, sh, sp, ps->model, &ps->share)) < 0) {
            free(np);
            return rc;
        }
        for (int m = 0; m < s->npools - 1; m++)
            if (strcmp(s->pools[m].name, ps->name) == 0) {
                free(np);
                return err(c, q, "duplicate pool name '%s'", ps->name);
            }
    }
    free(np);
    return 0;
}

static int parse_fleet_cloud(struct ctx *c, const cJSON *a);

static int parse_fleet(struct ctx *c, const cJSON *a)
{
    struct gs_scenario *s = c->s;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return err(c, "$.fleet", "expected a non-empty array of pools");
    int cap = cJSON_GetArraySize(a);
    s->npools = 0;
    s->pools = calloc((size_t)cap, sizeof *s->pools);
    c->first = calloc((size_t)cap + 1, sizeof *c->first);
    if (s->pools == NULL || c->first == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    int i = 0;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        char p[64];
        snprintf(p, sizeof p, "$.fleet[%d]", i);
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
                return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
            s->pools = grown;
            cap++;
        }
        struct gs_pool_spec *ps = &s->pools[s->npools++];
        memset(ps, 0, sizeof *ps);
        if ((rc = check_keys(c, o, p, KEYS("name", "gpu", "nodes",
                             "gpus_per_node", "instance_type", "price_per_hour",
                             "price_per_gpu_hour", "market", "discount",
                             "spares", "billing", "spot", "capacity_block",
                             "autoscale", "failures", "from_node_list",
                             "sharing", "cpu_milli", "mem_mib",
                             "network_gbps"))) < 0)
            return rc;
        if ((rc = num(c, o, p, "network_gbps", 0.001, 1e6, 0,
                      &ps->net_gbps)) < 0)
            return rc;
        long nodes = 0, gpn = 8, cpum = 0, memm = 0;
        double price = -1, gprice = -1;
        char market[32] = "on-demand";
        snprintf(ps->name, sizeof ps->name, "pool%d", i);
        if ((rc = inum(c, o, p, "gpus_per_node", 0, GS_MAX_GPN, 0,
                       &gpn)) < 0)
            return rc;
        if (gpn == 0 && cJSON_GetObjectItemCaseSensitive(o, "gpu"))
            return err(c, p, "a pool without GPUs (gpus_per_node 0) names no "
                       "GPU model: leave out \"gpu\"");
        for (int k = 0; gpn == 0 && cpu_pool_refused[k]; k++)
            if (cJSON_GetObjectItemCaseSensitive(o, cpu_pool_refused[k]))
                return err(c, p, "'%s' does not apply to a pool without GPUs "
                           "(gpus_per_node 0)", cpu_pool_refused[k]);
        if ((rc = str(c, o, p, "name", 0, ps->name, sizeof ps->name)) < 0 ||
            (rc = model_ref(c, o, p, "gpu", gpn > 0, &ps->model)) < 0 ||
            (rc = inum(c, o, p, "nodes", 0, 10000000, 1, &nodes)) < 0 ||
            (rc = str(c, o, p, "instance_type", 0, ps->instance,
                      sizeof ps->instance)) < 0 ||
            (rc = num(c, o, p, "price_per_hour", 0, 1e7, 0, &price)) < 0 ||
            (rc = num(c, o, p, "price_per_gpu_hour", 0, 1e6, 0, &gprice)) < 0 ||
            (rc = str(c, o, p, "market", 0, market, sizeof market)) < 0 ||
            (rc = inum(c, o, p, "cpu_milli", 1, 2000000000, 0, &cpum)) < 0 ||
            (rc = inum(c, o, p, "mem_mib", 1, 2000000000, 0, &memm)) < 0)
            return rc;
        ps->cpu_milli = (int32_t)cpum;
        ps->mem_mib = (int32_t)memm;
        if (price >= 0 && gprice >= 0)
            return err(c, p, "give price_per_hour (per node) or "
                       "price_per_gpu_hour, not both");
        ps->nodes = (int)nodes;
        ps->gpn = (int)gpn;
        if (price < 0)
            price = gprice >= 0 ? gprice * (double)gpn
                                : default_node_price(s, ps);
        ps->price_hour = price;
        if ((rc = parse_market(c, p, market, &ps->market)) < 0)
            return rc;
        const cJSON *sh = cJSON_GetObjectItemCaseSensitive(o, "sharing");
        char sp[160];
        snprintf(sp, sizeof sp, "%s.sharing", p);
        if (sh && (rc = parse_sharing(c, sh, sp, ps->model, &ps->share)) < 0)
            return rc;
        for (int k = 0; k < s->npools - 1; k++)
            if (strcmp(s->pools[k].name, ps->name) == 0)
                return err(c, p, "duplicate pool name '%s'", ps->name);
    }
    c->first[i] = s->npools;
    return parse_fleet_cloud(c, a);
}

/* The host-resource keys of a tier or a generator class: CPU (milli-cores)
 * and memory (MiB) per GPU asked, and for a job asking no GPU. */
#define HOST_KEYS "cpu_milli_per_gpu", "mem_mib_per_gpu", "cpu_milli", \
                  "mem_mib"

static int host_keys(struct ctx *c, const cJSON *o, const char *p,
                     int32_t *cpu_gpu, int32_t *mem_gpu, int32_t *cpu,
                     int32_t *mem)
{
    long v[4] = { *cpu_gpu, *mem_gpu, *cpu, *mem };
    static const char *const k[4] = { "cpu_milli_per_gpu", "mem_mib_per_gpu",
                                       "cpu_milli", "mem_mib" };
    for (int i = 0; i < 4; i++) {
        int rc = inum(c, o, p, k[i], 0, 2000000000, 0, &v[i]);
        if (rc < 0)
            return rc;
    }
    *cpu_gpu = (int32_t)v[0];
    *mem_gpu = (int32_t)v[1];
    *cpu = (int32_t)v[2];
    *mem = (int32_t)v[3];
    return 0;
}

static void tier_defaults(struct gs_scenario *s)
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

/* $.topology: {"gang_placement": "consolidate" | "spread",
 * "comm_share": 0..1, "per_hop_slowdown": >= 0}.  Defaults: consolidate,
 * 0.1 (see sim.c, topo_factor), derived. */
static int parse_topology(struct ctx *c, const cJSON *root)
{
    struct gs_topocfg *t = &c->s->topo;
    t->gang = GS_GANG_CONSOLIDATE;
    t->comm_share = 0.1;
    t->per_hop = -1;
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "topology");
    if (o == NULL)
        return 0;
    char gang[32] = "consolidate";
    int rc;
    if ((rc = check_keys(c, o, "$.topology", KEYS("gang_placement",
                         "comm_share", "per_hop_slowdown"))) < 0 ||
        (rc = str(c, o, "$.topology", "gang_placement", 0, gang,
                  sizeof gang)) < 0 ||
        (rc = num(c, o, "$.topology", "comm_share", 0, 1, 0,
                  &t->comm_share)) < 0 ||
        (rc = num(c, o, "$.topology", "per_hop_slowdown", 0, 1000, 0,
                  &t->per_hop)) < 0)
        return rc;
    if (strcmp(gang, "consolidate") == 0)
        t->gang = GS_GANG_CONSOLIDATE;
    else if (strcmp(gang, "spread") == 0)
        t->gang = GS_GANG_SPREAD;
    else
        return err(c, "$.topology.gang_placement", "unknown placement '%s' "
                   "(consolidate, spread)", gang);
    return 0;
}

static int parse_tiers(struct ctx *c, const cJSON *o)
{
    int rc;
    if ((rc = check_keys(c, o, "$.tiers", KEYS("inference", "training",
                         "interactive", "data"))) < 0)
        return rc;
    for (const cJSON *t = o->child; t; t = t->next) {
        char p[64];
        snprintf(p, sizeof p, "$.tiers.%s", t->string);
        struct gs_tiercfg *tc = &c->s->tiers[gs_tier_parse(t->string)];
        long prio = tc->priority;
        if ((rc = check_keys(c, t, p, KEYS("priority", "preemptible",
                             "max_wait", "checkpoint_interval",
                             "restart_overhead", HOST_KEYS))) < 0 ||
            (rc = host_keys(c, t, p, &tc->cpu_per_gpu, &tc->mem_per_gpu,
                            &tc->cpu_only, &tc->mem_only)) < 0 ||
            (rc = inum(c, t, p, "priority", -1000000, 1000000, 0, &prio)) < 0 ||
            (rc = boolean(c, t, p, "preemptible", &tc->preemptible)) < 0 ||
            (rc = duration(c, t, p, "max_wait", 0, &tc->max_wait)) < 0 ||
            (rc = duration(c, t, p, "checkpoint_interval", 0, &tc->ckpt)) < 0 ||
            (rc = duration(c, t, p, "restart_overhead", 0, &tc->restart)) < 0)
            return rc;
        tc->priority = (int)prio;
    }
    return 0;
}

/* {"from_queues": {"format": F, "path": P}}: the tenants of a cluster's
 * queue objects (traces/queuelist.h), appended to s->tenants (room for
 * *cap). */
static int tenants_from_queues(struct ctx *c, const cJSON *o, const char *p,
                               int *cap)
{
    struct gs_scenario *s = c->s;
    char q[96], fmt[GS_NAME] = "", path[512] = "";
    snprintf(q, sizeof q, "%s.from_queues", p);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "from_queues");
    int rc;
    if ((rc = check_keys(c, o, p, KEYS("from_queues"))) < 0 ||
        (rc = check_keys(c, n, q, KEYS("format", "path"))) < 0 ||
        (rc = str(c, n, q, "format", 1, fmt, sizeof fmt)) < 0 ||
        (rc = str(c, n, q, "path", 1, path, sizeof path)) < 0)
        return rc;
    int known = 0;
    for (int i = 0; gs_queue_list_formats[i]; i++)
        known |= strcmp(gs_queue_list_formats[i]->name, fmt) == 0;
    if (!known) {
        char fq[128];
        snprintf(fq, sizeof fq, "%s.format", q);
        return err(c, fq, "unknown queue-list format '%s' (known: kueue)",
                   fmt);
    }
    char *full = gs_data_path(s->trace_dir, path);
    if (full == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
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
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        }
        s->tenants = grown;
        *cap = ncap;
    }
    memcpy(s->tenants + s->ntenants, v, (size_t)nv * sizeof *v);
    s->ntenants += nv;
    free(v);
    return 0;
}

static int parse_tenants(struct ctx *c, const cJSON *a)
{
    struct gs_scenario *s = c->s;
    if (!cJSON_IsArray(a))
        return err(c, "$.tenants", "expected an array");
    int cap = cJSON_GetArraySize(a) + 1;
    s->ntenants = 0;
    s->tenants = calloc((size_t)cap, sizeof *s->tenants);
    if (s->tenants == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    int i = 0, rc;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        char p[64];
        snprintf(p, sizeof p, "$.tenants[%d]", i);
        int first = s->ntenants;
        if (cJSON_GetObjectItemCaseSensitive(o, "from_queues")) {
            if ((rc = tenants_from_queues(c, o, p, &cap)) < 0)
                return rc;
        } else {
            struct gs_tenant *t = &s->tenants[s->ntenants];
            memset(t, 0, sizeof *t);
            t->weight = 1.0;
            if ((rc = check_keys(c, o, p, KEYS("name", "quota_gpus",
                                               "weight"))) < 0 ||
                (rc = str(c, o, p, "name", 1, t->name, sizeof t->name)) < 0 ||
                (rc = num(c, o, p, "quota_gpus", 0, 1e9, 0,
                          &t->quota_gpus)) < 0 ||
                (rc = num(c, o, p, "weight", 1e-9, 1e9, 0, &t->weight)) < 0)
                return rc;
            s->ntenants++;
        }
        for (int t = first; t < s->ntenants; t++)
            for (int k = 0; k < t; k++)
                if (strcmp(s->tenants[k].name, s->tenants[t].name) == 0)
                    return err(c, p, "duplicate tenant '%s'",
                               s->tenants[t].name);
    }
    return 0;
}

static int find_pool(const struct gs_scenario *s, const char *name)
{
    for (int i = 0; i < s->npools; i++)
        if (strcmp(s->pools[i].name, name) == 0)
            return i;
    return -1;
}

static int parse_partitions(struct ctx *c, const cJSON *a)
{
    struct gs_scenario *s = c->s;
    if (!cJSON_IsArray(a))
        return err(c, "$.partitions", "expected an array");
    s->nparts = cJSON_GetArraySize(a);
    s->parts = calloc((size_t)(s->nparts + 1), sizeof *s->parts);
    if (s->parts == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    int *used = calloc((size_t)s->npools, sizeof *used);
    if (used == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    int i = 0, rc = 0;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        char p[64], pool[GS_NAME] = "", tier[32] = "";
        snprintf(p, sizeof p, "$.partitions[%d]", i);
        struct gs_partition *pt = &s->parts[i];
        long nodes = 0;
        snprintf(pt->name, sizeof pt->name, "part%d", i);
        if ((rc = check_keys(c, o, p, KEYS("name", "tenant", "tier", "pool",
                             "nodes"))) < 0 ||
            (rc = str(c, o, p, "name", 0, pt->name, sizeof pt->name)) < 0 ||
            (rc = str(c, o, p, "tenant", 0, pt->tenant, sizeof pt->tenant)) < 0 ||
            (rc = str(c, o, p, "tier", 0, tier, sizeof tier)) < 0 ||
            (rc = str(c, o, p, "pool", 1, pool, sizeof pool)) < 0 ||
            (rc = inum(c, o, p, "nodes", 1, 10000000, 1, &nodes)) < 0)
            break;
        pt->tier = -1;
        if (tier[0] && (pt->tier = gs_tier_parse(tier)) < 0) {
            rc = err(c, p, "unknown tier '%s' (known: inference, training, "
                     "interactive, data)", tier);
            break;
        }
        if ((pt->pool = find_pool(s, pool)) < 0) {
            rc = err(c, p, "no pool named '%s' in $.fleet", pool);
            break;
        }
        pt->nodes = (int)nodes;
        pt->lo = used[pt->pool];
        pt->hi = pt->lo + pt->nodes;
        used[pt->pool] = pt->hi;
        if (pt->hi > s->pools[pt->pool].nodes) {
            rc = err(c, p, "pool '%s' has %d nodes; its partitions ask for %d",
                     pool, s->pools[pt->pool].nodes, pt->hi);
            break;
        }
    }
    free(used);
    return rc;
}

/* Flat parameters of an object: every key but skip, each a number, a
 * boolean (kept as 0/1) or a string. */
static int collect_params(struct ctx *c, const cJSON *v, const char *path,
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
            char p[600];
            sub(p, sizeof p, path, it->string);
            return err(c, p, "expected a number, true/false or a string");
        }
        if (rc < 0)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    }
    return 0;
}

static void params_where(struct ctx *c, const char *path,
                         struct gs_params *params)
{
    char where[600];
    snprintf(where, sizeof where, "%s: %s", c->file, path);
    gs_params_free(params);
    gs_params_init(params, where);
}

/* A plug-in: "name" or {"name": ..., key: number|bool|string, ...}. */
static int parse_plugin(struct ctx *c, const cJSON *v, const char *path,
                        char *name, size_t n, struct gs_params *params)
{
    params_where(c, path, params);
    if (cJSON_IsString(v)) {
        snprintf(name, n, "%s", v->valuestring);
        return 0;
    }
    if (!cJSON_IsObject(v))
        return err(c, path, "expected a name or an object with \"name\"");
    int rc = str(c, v, path, "name", 1, name, n);
    if (rc < 0)
        return rc;
    return collect_params(c, v, path, "name", params);
}

static int parse_dist(struct ctx *c, const cJSON *o, const char *path,
                      struct gs_distspec *d)
{
    char kind[32] = "";
    int rc;
    if ((rc = check_keys(c, o, path, KEYS("dist", "mean", "median", "sigma",
                         "value", "min", "max", "alpha", "scale", "shape",
                         "quantiles"))) < 0 ||
        (rc = str(c, o, path, "dist", 1, kind, sizeof kind)) < 0)
        return rc;
    gs_time mean = 0, median = 0, value = 0, mn = 0, mx = 0, scale = 0;
    double sigma = -1, alpha = -1, shape = -1;
    if ((rc = duration(c, o, path, "mean", 0, &mean)) < 0 ||
        (rc = duration(c, o, path, "median", 0, &median)) < 0 ||
        (rc = duration(c, o, path, "value", 0, &value)) < 0 ||
        (rc = duration(c, o, path, "min", 0, &mn)) < 0 ||
        (rc = duration(c, o, path, "max", 0, &mx)) < 0 ||
        (rc = duration(c, o, path, "scale", 0, &scale)) < 0 ||
        (rc = num(c, o, path, "sigma", 0, 20, 0, &sigma)) < 0 ||
        (rc = num(c, o, path, "alpha", 1e-6, 1e3, 0, &alpha)) < 0 ||
        (rc = num(c, o, path, "shape", 1e-6, 1e3, 0, &shape)) < 0)
        return rc;
    d->max = (double)mx;
    if (strcmp(kind, "constant") == 0) {
        if (value <= 0)
            return err(c, path, "constant needs \"value\" > 0");
        *d = (struct gs_distspec){ .kind = GS_DIST_CONSTANT,
                                   .a = (double)value };
    } else if (strcmp(kind, "exponential") == 0) {
        if (mean <= 0)
            return err(c, path, "exponential needs \"mean\" > 0");
        *d = (struct gs_distspec){ .kind = GS_DIST_EXPONENTIAL,
                                   .a = (double)mean, .max = (double)mx };
    } else if (strcmp(kind, "lognormal") == 0) {
        if (sigma < 0 || (median <= 0 && mean <= 0))
            return err(c, path, "lognormal needs \"sigma\" and \"median\" "
                       "(or \"mean\")");
        double mu = median > 0 ? log((double)median)
                               : log((double)mean) - sigma * sigma / 2;
        *d = (struct gs_distspec){ .kind = GS_DIST_LOGNORMAL, .a = mu,
                                   .b = sigma, .max = (double)mx };
    } else if (strcmp(kind, "pareto") == 0) {
        if (mn <= 0 || alpha <= 0)
            return err(c, path, "pareto needs \"min\" > 0 and \"alpha\"");
        *d = (struct gs_distspec){ .kind = GS_DIST_PARETO, .a = (double)mn,
                                   .b = alpha, .max = (double)mx };
    } else if (strcmp(kind, "uniform") == 0) {
        if (mx <= mn)
            return err(c, path, "uniform needs \"min\" < \"max\"");
        *d = (struct gs_distspec){ .kind = GS_DIST_UNIFORM,
                                   .a = (double)mn, .b = (double)mx };
    } else if (strcmp(kind, "weibull") == 0) {
        if (scale <= 0 || shape <= 0)
            return err(c, path, "weibull needs \"scale\" and \"shape\"");
        *d = (struct gs_distspec){ .kind = GS_DIST_WEIBULL,
                                   .a = (double)scale, .b = shape,
                                   .max = (double)mx };
    } else if (strcmp(kind, "empirical") == 0) {
        /* Quantiles at probabilities 0, 1/(n-1), ..., 1. */
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "quantiles");
        char qp[600];
        sub(qp, sizeof qp, path, "quantiles");
        int n = cJSON_GetArraySize(q);
        if (!cJSON_IsArray(q) || n < 2 || n > GS_GEN_MAX_POINTS)
            return err(c, q ? qp : path, "empirical needs \"quantiles\": 2 to "
                       "%d durations at equally spaced probabilities from 0 "
                       "to 1", GS_GEN_MAX_POINTS);
        *d = (struct gs_distspec){ .kind = GS_DIST_EMPIRICAL,
                                   .max = (double)mx, .npoints = n };
        int i = 0;
        for (const cJSON *e = q->child; e; e = e->next, i++) {
            gs_time t = 0;
            if (cJSON_IsNumber(e) && e->valuedouble >= 0 &&
                e->valuedouble < 9.0e12)
                t = (gs_time)llround(e->valuedouble * 1000.0);
            else if (!cJSON_IsString(e) ||
                     gs_parse_time(e->valuestring, &t) < 0)
                return err(c, qp, "element %d is not a duration", i);
            if (i > 0 && (double)t < d->pts[i - 1])
                return err(c, qp, "element %d is below the one before: "
                           "quantiles must not decrease", i);
            d->pts[i] = (double)t;
        }
        if (d->pts[n - 1] <= 0)
            return err(c, qp, "the largest quantile must be above 0");
    } else {
        char p[600];
        sub(p, sizeof p, path, "dist");
        return err(c, p, "unknown distribution '%s' (known: constant, "
                   "exponential, lognormal, pareto, uniform, weibull, "
                   "empirical)", kind);
    }
    return 0;
}

/* A class's sharing keys: mig_profile (a name), duty_cycle in (0, 1],
 * gpu_guarantee and gpu_burst fractions in (0, 1], guarantee <= burst. */
static int sharing_keys(struct ctx *c, const cJSON *o, const char *p,
                        struct gs_genclass *k)
{
    double duty = 0, g = 0, b = 0;
    int rc;
    if ((rc = str(c, o, p, "mig_profile", 0, k->mig_profile,
                  sizeof k->mig_profile)) < 0 ||
        (rc = num(c, o, p, "duty_cycle", 1e-6, 1, 0, &duty)) < 0 ||
        (rc = num(c, o, p, "gpu_guarantee", 1e-3, 1, 0, &g)) < 0 ||
        (rc = num(c, o, p, "gpu_burst", 1e-3, 1, 0, &b)) < 0)
        return rc;
    if (b > 0 && g > 0 && b < g) {
        char q[600];
        sub(q, sizeof q, p, "gpu_burst");
        return err(c, q, "%g is below gpu_guarantee %g", b, g);
    }
    k->duty = duty;
    k->guar_milli = (int)lround(g * 1000);
    k->burst_milli = (int)lround(b * 1000);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "gpu_models");
    char q[600];
    sub(q, sizeof q, p, "gpu_models");
    if (m && (!cJSON_IsArray(m) || cJSON_GetArraySize(m) == 0))
        return err(c, q, "expected a non-empty array of GPU model names");
    for (const cJSON *e = m ? m->child : NULL; e; e = e->next) {
        int mi = cJSON_IsString(e) ? gs_catalog_find(&c->s->cat,
                                                     e->valuestring) : -1;
        if (mi < 0)
            return err(c, q, "unknown GPU model %s%s%s", cJSON_IsString(e)
                       ? "'" : "(not a string)", cJSON_IsString(e)
                       ? e->valuestring : "", cJSON_IsString(e) ? "'" : "");
        k->allowed |= 1ULL << mi;
    }
    return 0;
}

/* --- markets, faults and scaling (cloudcfg.h; defaults in docs/cloud.md) - */

/* An array of tier names at o[key] as a bit mask; absent: *mask unchanged. */
static int tier_list(struct ctx *c, const cJSON *o, const char *path,
                     const char *key, int *mask)
{
    char p[600];
    sub(p, sizeof p, path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v == NULL)
        return 0;
    if (!cJSON_IsArray(v))
        return err(c, p, "expected an array of tier names");
    int m = 0;
    for (const cJSON *e = v->child; e; e = e->next) {
        int t = cJSON_IsString(e) ? gs_tier_parse(e->valuestring) : -1;
        if (t < 0)
            return err(c, p, "unknown tier %s%s%s (known: inference, "
                       "training, interactive, data)",
                       cJSON_IsString(e) ? "'" : "",
                       cJSON_IsString(e) ? e->valuestring : "(not a string)",
                       cJSON_IsString(e) ? "'" : "");
        m |= 1 << t;
    }
    *mask = m;
    return 0;
}

/* A duration or a distribution of durations at o[key]; absent: unchanged. */
static int dist_or_time(struct ctx *c, const cJSON *o, const char *path,
                        const char *key, struct gs_distspec *out)
{
    char p[600];
    sub(p, sizeof p, path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v == NULL)
        return 0;
    if (cJSON_IsObject(v))
        return parse_dist(c, v, p, out);
    gs_time t = 0;
    int rc = duration(c, o, path, key, 1, &t);
    if (rc < 0)
        return rc;
    *out = (struct gs_distspec){ .kind = GS_DIST_CONSTANT, .a = (double)t };
    return 0;
}

/* A path relative to the scenario's folder: *out is malloc'ed (the
 * caller owns it; the scenario's fields are freed by gs_scenario_free), or
 * NULL when the key is absent or empty.  A path the system could not open
 * (PATH_MAX or more bytes once resolved) is refused here, naming the key. */
static int file_path(struct ctx *c, const cJSON *o, const char *path,
                     const char *key, char **out)
{
    char *name = NULL;
    struct gs_jin in = jin(c);
    int rc = gs_json_strdup(&in, GJ(o), path, key, 0, &name);
    *out = NULL;
    if (rc < 0 || name == NULL || name[0] == '\0') {
        free(name);
        return rc;
    }
    char *full = gs_data_path(c->s->trace_dir, name);
    free(name);
    if (full == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    if (strlen(full) >= PATH_MAX) {
        char p[600];
        sub(p, sizeof p, path, key);
        free(full);
        return err(c, p, "the path is %d bytes or longer once resolved "
                   "(PATH_MAX)", PATH_MAX);
    }
    *out = full;
    return 0;
}

static int parse_failproc(struct ctx *c, const cJSON *o, const char *path,
                          struct gs_failproc *fp)
{
    int rc;
    gs_time mtbf = 0, scale = 0;
    double shape = 0;
    memset(fp, 0, sizeof *fp);
    if ((rc = check_keys(c, o, path, KEYS("mtbf", "shape", "scale",
                         "burn_in"))) < 0 ||
        (rc = duration(c, o, path, "mtbf", 0, &mtbf)) < 0 ||
        (rc = num(c, o, path, "shape", 0.01, 100, 0, &shape)) < 0 ||
        (rc = duration(c, o, path, "scale", 0, &scale)) < 0 ||
        (rc = duration(c, o, path, "burn_in", 0, &fp->burn_in)) < 0)
        return rc;
    if ((shape > 0) != (scale > 0))
        return err(c, path, "a Weibull process needs both \"shape\" and "
                   "\"scale\" (> 0)");
    if (shape == 0 && fp->burn_in > 0)
        return err(c, path, "\"burn_in\" applies to a Weibull process "
                   "(give \"shape\" and \"scale\")");
    if (shape == 0 && mtbf <= 0)
        return err(c, path, "give \"mtbf\" (exponential), or \"shape\" and "
                   "\"scale\" (Weibull)");
    if (shape > 0 && fp->burn_in == 0 && mtbf > 0)
        return err(c, path, "\"mtbf\" with a Weibull process is the rate "
                   "after its \"burn_in\"; give \"burn_in\" too");
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

static int parse_failures(struct ctx *c, const cJSON *o, const char *path,
                          struct gs_failcfg *fc)
{
    int rc;
    char p[600];
    fail_defaults(fc);
    if ((rc = check_keys(c, o, path, KEYS("gpu", "node", "repair", "degraded",
                         "fail_in_place", "max_restarts"))) < 0 ||
        (rc = dist_or_time(c, o, path, "repair", &fc->repair)) < 0 ||
        (rc = boolean(c, o, path, "fail_in_place", &fc->fail_in_place)) < 0)
        return rc;
    long mr = fc->max_restarts;
    if ((rc = inum(c, o, path, "max_restarts", -1, 1000000, 0, &mr)) < 0)
        return rc;
    fc->max_restarts = (int)mr;
    const char *const comp[2] = { "gpu", "node" };
    struct gs_failproc *fp[2] = { &fc->gpu, &fc->node };
    for (int k = 0; k < 2; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, comp[k]);
        sub(p, sizeof p, path, comp[k]);
        if (v && (rc = parse_failproc(c, v, p, fp[k])) < 0)
            return rc;
    }
    const cJSON *dg = cJSON_GetObjectItemCaseSensitive(o, "degraded");
    if (dg) {
        sub(p, sizeof p, path, "degraded");
        if ((rc = check_keys(c, dg, p, KEYS("fraction", "speed"))) < 0 ||
            (rc = num(c, dg, p, "fraction", 0, 1, 1, &fc->degrade_frac)) < 0 ||
            (rc = num(c, dg, p, "speed", 0.01, 1, 0, &fc->degrade_speed)) < 0)
            return rc;
        if (!fc->gpu.on)
            return err(c, p, "degraded GPUs need a GPU failure process "
                       "(\"gpu\")");
    }
    fc->on = fc->gpu.on || fc->node.on;
    return 0;
}

static int parse_billing(struct ctx *c, const cJSON *o, const char *path,
                         gs_time *gran, gs_time *minimum)
{
    int rc;
    if ((rc = check_keys(c, o, path, KEYS("granularity", "minimum"))) < 0 ||
        (rc = duration(c, o, path, "granularity", 0, gran)) < 0 ||
        (rc = duration(c, o, path, "minimum", 0, minimum)) < 0)
        return rc;
    if (*gran < 1) {
        char p[600];
        sub(p, sizeof p, path, "granularity");
        return err(c, p, "must be at least 1 ms");
    }
    return 0;
}

/* "HH:MM" -> minutes after midnight. */
static int clock_time(struct ctx *c, const cJSON *o, const char *path,
                      const char *key, int *out)
{
    char v[16] = "", p[600];
    int rc = str(c, o, path, key, 1, v, sizeof v);
    if (rc < 0)
        return rc;
    int h, m;
    char extra;
    if (sscanf(v, "%d:%d%c", &h, &m, &extra) != 2 || h < 0 || h > 23 ||
        m < 0 || m > 59) {
        sub(p, sizeof p, path, key);
        return err(c, p, "expected a time of day \"HH:MM\", got '%s'", v);
    }
    *out = h * 60 + m;
    return 0;
}

static int parse_autoscale(struct ctx *c, const cJSON *o, const char *path,
                           struct gs_poolcloud *pc, long nodes)
{
    int rc;
    long mn = 0, mx = -1;
    pc->provision = (struct gs_distspec){ .kind = GS_DIST_UNIFORM,
                                          .a = 3.0 * GS_MIN, .b = 8.0 * GS_MIN };
    pc->down_after = 10 * GS_MIN;
    pc->down_delay = 10 * GS_MIN;
    pc->down_util = 0.5;
    if ((rc = check_keys(c, o, path, KEYS("min_nodes", "max_nodes",
                         "provision_time", "scale_down_after",
                         "scale_down_delay_after_add",
                         "scale_down_utilization", "schedule"))) < 0 ||
        (rc = inum(c, o, path, "min_nodes", 0, 10000000, 0, &mn)) < 0 ||
        (rc = inum(c, o, path, "max_nodes", 0, 10000000, 1, &mx)) < 0 ||
        (rc = dist_or_time(c, o, path, "provision_time", &pc->provision)) < 0 ||
        (rc = duration(c, o, path, "scale_down_after", 0,
                       &pc->down_after)) < 0 ||
        (rc = duration(c, o, path, "scale_down_delay_after_add", 0,
                       &pc->down_delay)) < 0 ||
        (rc = num(c, o, path, "scale_down_utilization", 0, 1, 0,
                  &pc->down_util)) < 0)
        return rc;
    if (mn > mx)
        return err(c, path, "min_nodes %ld is above max_nodes %ld", mn, mx);
    if (nodes < mn || nodes > mx)
        return err(c, path, "the pool's \"nodes\" (%ld, its size at the "
                   "start) must lie within [min_nodes, max_nodes] = "
                   "[%ld, %ld]", nodes, mn, mx);
    pc->autoscale = 1;
    pc->min_nodes = (int)mn;
    pc->max_nodes = (int)mx;
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(o, "schedule");
    char p[600];
    sub(p, sizeof p, path, "schedule");
    if (sch == NULL)
        return 0;
    if (!cJSON_IsArray(sch) || cJSON_GetArraySize(sch) > GS_MAX_WINDOWS)
        return err(c, p, "expected an array of at most %d windows",
                   GS_MAX_WINDOWS);
    int i = 0;
    for (const cJSON *w = sch->child; w; w = w->next, i++) {
        char pw[640];
        snprintf(pw, sizeof pw, "%s[%d]", p, i);
        struct gs_window *win = &pc->win[i];
        long wmn = mn, wmx = mx;
        if ((rc = check_keys(c, w, pw, KEYS("from", "to", "min_nodes",
                             "max_nodes"))) < 0 ||
            (rc = clock_time(c, w, pw, "from", &win->from_min)) < 0 ||
            (rc = clock_time(c, w, pw, "to", &win->to_min)) < 0 ||
            (rc = inum(c, w, pw, "min_nodes", 0, mx, 0, &wmn)) < 0 ||
            (rc = inum(c, w, pw, "max_nodes", 0, mx, 0, &wmx)) < 0)
            return rc;
        if (win->from_min == win->to_min)
            return err(c, pw, "\"from\" and \"to\" must differ");
        if (wmn > wmx)
            return err(c, pw, "min_nodes %ld is above max_nodes %ld", wmn,
                       wmx);
        win->min_nodes = (int)wmn;
        win->max_nodes = (int)wmx;
    }
    pc->nwin = i;
    return 0;
}

/* A price from $.prices for the pool's instance type and market, or -1. */
static double table_price(struct ctx *c, const char *instance, int market)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c->root, "prices");
    const cJSON *it = instance[0] ? cJSON_GetObjectItemCaseSensitive(t, instance)
                                  : NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, market_names[market]);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static int parse_prices(struct ctx *c, const cJSON *o)
{
    int rc;
    if (!cJSON_IsObject(o))
        return err(c, "$.prices", "expected an object: instance type -> "
                   "{market: $ per node-hour}");
    for (const cJSON *it = o->child; it; it = it->next) {
        char p[600];
        sub(p, sizeof p, "$.prices", it->string);
        if ((rc = check_keys(c, it, p, KEYS("on-demand", "reserved", "spot",
                             "capacity-block"))) < 0)
            return rc;
        for (int m = 0; m < GS_NMARKETS; m++) {
            double v = 0;
            if ((rc = num(c, it, p, market_names[m], 0, 1e7, 0, &v)) < 0)
                return rc;
        }
    }
    return 0;
}

/* What pool i has when its entry says nothing (or the pool came from a
 * node list): its starting nodes, no spares, the global billing and
 * failure defaults, replacement of reclaimed spot nodes after 3-8 min. */
static void pool_cloud_defaults(struct ctx *c, int i)
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
    pc->od_price = default_gpu_price(s->cat.m[ps->model].name) * ps->gpn;
}

/* The cloud keys of pool i (its JSON object o at path p), after the pool's
 * own keys are read. */
static int parse_pool_cloud(struct ctx *c, const cJSON *o, const char *p,
                            int i)
{
    struct gs_scenario *s = c->s;
    struct gs_pool_spec *ps = &s->pools[i];
    struct gs_poolcloud *pc = &s->cloud.pool[i];
    char pp[600];
    int rc;
    long spares = 0;
    double discount = -1;
    pool_cloud_defaults(c, i);
    if ((rc = inum(c, o, p, "spares", 0, 1000000, 0, &spares)) < 0 ||
        (rc = num(c, o, p, "discount", 0, 0.999999, 0, &discount)) < 0)
        return rc;
    pc->spares = (int)spares;
    /* Prices: the pool's own, else $.prices, else a discount off the
     * on-demand price (the table's, else the built-in per-GPU list). */
    int own = cJSON_GetObjectItemCaseSensitive(o, "price_per_hour") ||
                   cJSON_GetObjectItemCaseSensitive(o, "price_per_gpu_hour");
    double od = table_price(c, ps->instance, GS_MKT_ONDEMAND);
    if (od < 0)
        od = ps->market == GS_MKT_ONDEMAND && own
                 ? ps->price_hour
                 : default_node_price(s, ps);
    pc->od_price = od;
    if (own && discount >= 0)
        return err(c, p, "give a price or a discount, not both");
    if (!own) {
        double tp = table_price(c, ps->instance, ps->market);
        if (tp >= 0 && discount >= 0)
            return err(c, p, "$.prices has a %s price for '%s'; a discount "
                       "does not apply", market_names[ps->market],
                       ps->instance);
        if (tp >= 0)
            ps->price_hour = tp;
        else if (discount >= 0)
            ps->price_hour = od * (1 - discount);
        else if (ps->market == GS_MKT_SPOT)
            ps->price_hour = od * (1 - 0.7);
        else if (ps->market != GS_MKT_ONDEMAND)
            return err(c, p, "a %s pool needs its price: price_per_hour, "
                       "price_per_gpu_hour, a discount off on-demand, or "
                       "$.prices[\"%s\"][\"%s\"]", market_names[ps->market],
                       ps->instance[0] ? ps->instance : "INSTANCE-TYPE",
                       market_names[ps->market]);
        else
            ps->price_hour = od;
    }
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "billing"))) {
        sub(pp, sizeof pp, p, "billing");
        if ((rc = parse_billing(c, v, pp, &pc->gran, &pc->minimum)) < 0)
            return rc;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "failures"))) {
        sub(pp, sizeof pp, p, "failures");
        if ((rc = parse_failures(c, v, pp, &pc->fail)) < 0)
            return rc;
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "spot");
    sub(pp, sizeof pp, p, "spot");
    if (v && ps->market != GS_MKT_SPOT)
        return err(c, pp, "only a pool in the spot market has a spot "
                   "interruption process");
    if (ps->market == GS_MKT_SPOT) {
        if (v == NULL)
            return err(c, p, "a spot pool needs \"spot\": "
                       "{\"interruptions_per_hour\": ...} or "
                       "{\"hazard_file\": ...}");
        if ((rc = check_keys(c, v, pp, KEYS("interruptions_per_hour",
                             "hazard_file", "price_file",
                             "replace_after"))) < 0 ||
            (rc = num(c, v, pp, "interruptions_per_hour", 0, 1e6, 0,
                      &pc->spot_rate)) < 0 ||
            (rc = file_path(c, v, pp, "hazard_file", &pc->hazard_file)) < 0 ||
            (rc = file_path(c, v, pp, "price_file", &pc->price_file)) < 0)
            return rc;
        int has_rate = cJSON_GetObjectItemCaseSensitive(
                           v, "interruptions_per_hour") != NULL;
        if (has_rate == (pc->hazard_file != NULL))
            return err(c, pp, "give exactly one of \"interruptions_per_hour\" "
                       "and \"hazard_file\"");
        const cJSON *ra = cJSON_GetObjectItemCaseSensitive(v, "replace_after");
        if (cJSON_IsFalse(ra))
            pc->replace = 0;
        else if ((rc = dist_or_time(c, v, pp, "replace_after",
                                    &pc->replace_delay)) < 0)
            return rc;
        if (ra && cJSON_GetObjectItemCaseSensitive(o, "autoscale"))
            return err(c, pp, "replace_after does not apply to an autoscaled "
                       "pool: its autoscaler replaces lost nodes");
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "capacity_block");
    sub(pp, sizeof pp, p, "capacity_block");
    if ((v != NULL) != (ps->market == GS_MKT_BLOCK))
        return err(c, v ? pp : p, v ? "only a capacity-block pool has a "
                   "block window" : "a capacity-block pool needs "
                   "\"capacity_block\": {\"start\": ..., \"end\": ...}");
    if (v) {
        if ((rc = check_keys(c, v, pp, KEYS("start", "end"))) < 0 ||
            (rc = duration(c, v, pp, "start", 0, &pc->block_start)) < 0 ||
            (rc = duration(c, v, pp, "end", 1, &pc->block_end)) < 0)
            return rc;
        if (pc->block_end <= pc->block_start)
            return err(c, pp, "\"end\" must come after \"start\"");
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "autoscale");
    sub(pp, sizeof pp, p, "autoscale");
    if (v && ps->market != GS_MKT_ONDEMAND && ps->market != GS_MKT_SPOT)
        return err(c, pp, "autoscaling applies to on-demand and spot pools "
                   "(a %s pool is paid for whole)", market_names[ps->market]);
    if (v && (rc = parse_autoscale(c, v, pp, pc, ps->nodes)) < 0)
        return rc;
    long slots = (long)(pc->autoscale ? pc->max_nodes : ps->nodes) + spares;
    if (slots > 10000000)
        return err(c, p, "more than 10000000 nodes with spares");
    ps->nodes = (int)slots;
    return 0;
}

/* The cloud side of every pool, once $.fleet is read: its entry's keys,
 * or the defaults for pools read from a node list (which have no spot
 * interruption process and cannot be capacity blocks). */
static int parse_fleet_cloud(struct ctx *c, const cJSON *a)
{
    struct gs_scenario *s = c->s;
    s->cloud.pool = calloc((size_t)(s->npools ? s->npools : 1),
                           sizeof *s->cloud.pool);
    if (s->cloud.pool == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    int i = 0, rc;
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        char p[64];
        snprintf(p, sizeof p, "$.fleet[%d]", i);
        int listed = cJSON_GetObjectItemCaseSensitive(o, "from_node_list") != 0;
        for (int k = c->first[i]; k < c->first[i + 1]; k++) {
            if (!listed) {
                if ((rc = parse_pool_cloud(c, o, p, k)) < 0)
                    return rc;
                continue;
            }
            if (s->pools[k].market == GS_MKT_BLOCK)
                return err(c, p, "a capacity-block pool needs its window: "
                           "list the pool itself with \"capacity_block\"");
            pool_cloud_defaults(c, k);
        }
    }
    return 0;
}

/* The top-level cloud keys that pools take defaults from. */
static int parse_cloud_globals(struct ctx *c, const cJSON *root)
{
    struct gs_scenario *s = c->s;
    struct gs_cloudcfg *cc = &s->cloud;
    int rc;
    const cJSON *v;
    cc->gran = GS_SEC;              /* AWS: per second ... */
    cc->minimum = GS_MIN;           /* ... with a 60 s minimum */
    fail_defaults(&cc->fail);
    cc->spot_tiers = (1 << GS_TIER_TRAINING) | (1 << GS_TIER_INTERACTIVE) |
                     (1 << GS_TIER_DATA);
    cc->notice = 2 * GS_MIN;
    cc->reap_after = GS_HOUR;
    cc->scan = 10 * GS_SEC;
    cc->scan_depth = 1000;
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
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "spot")) &&
        ((rc = check_keys(c, v, "$.spot", KEYS("tiers", "notice"))) < 0 ||
         (rc = tier_list(c, v, "$.spot", "tiers", &cc->spot_tiers)) < 0 ||
         (rc = duration(c, v, "$.spot", "notice", 0, &cc->notice)) < 0))
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "reaper"))) {
        cc->reap_tiers = 1 << GS_TIER_INTERACTIVE;
        if ((rc = check_keys(c, v, "$.reaper", KEYS("idle_after",
                             "tiers"))) < 0 ||
            (rc = duration(c, v, "$.reaper", "idle_after", 0,
                           &cc->reap_after)) < 0 ||
            (rc = tier_list(c, v, "$.reaper", "tiers", &cc->reap_tiers)) < 0)
            return rc;
        if (cc->reap_after < GS_SEC)
            return err(c, "$.reaper.idle_after", "must be at least 1 s");
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "autoscaler"))) {
        if ((rc = check_keys(c, v, "$.autoscaler", KEYS("scan_interval",
                             "depth"))) < 0 ||
            (rc = duration(c, v, "$.autoscaler", "scan_interval", 0,
                           &cc->scan)) < 0 ||
            (rc = inum(c, v, "$.autoscaler", "depth", 1, 100000000, 0,
                       &cc->scan_depth)) < 0)
            return rc;
        if (cc->scan < 1)
            return err(c, "$.autoscaler.scan_interval", "must be at least "
                       "1 ms");
    }
    return 0;
}

static int parse_class(struct ctx *c, const cJSON *o, const char *p,
                       struct gs_genclass *k)
{
    int rc;
    char tier[32] = "training", pp[600];
    k->weight = 1.0;
    k->cb = 0.5;
    k->comm_share = -1;
    if ((rc = check_keys(c, o, p, KEYS("name", "weight", "tier", "tenants",
                         "gpus", "duration", "memory_gb", "compute_bound",
                         "deadline", "checkpoint_interval",
                         "estimate_factor", "tenant_weights",
                         "idle_profile", "mig_profile", "duty_cycle",
                         "gpu_guarantee", "gpu_burst", "gpu_models",
                         "gpu_family", "gpu_mem_min_gib", "comm_share",
                         HOST_KEYS))) < 0 ||
        (rc = num(c, o, p, "comm_share", 0, 1, 0, &k->comm_share)) < 0 ||
        (rc = str(c, o, p, "gpu_family", 0, k->gpu_family,
                  sizeof k->gpu_family)) < 0 ||
        (rc = num(c, o, p, "gpu_mem_min_gib", 0, 1e6, 0, &k->gpu_mem_min)) < 0 ||
        (rc = host_keys(c, o, p, &k->cpu_per_gpu, &k->mem_per_gpu,
                        &k->cpu_only, &k->mem_only)) < 0 ||
        (rc = str(c, o, p, "name", 0, k->name, sizeof k->name)) < 0 ||
        (rc = num(c, o, p, "weight", 0, 1e9, 0, &k->weight)) < 0 ||
        (rc = str(c, o, p, "tier", 0, tier, sizeof tier)) < 0 ||
        (rc = num(c, o, p, "memory_gb", 0, 1e6, 0, &k->mem_gb)) < 0 ||
        (rc = num(c, o, p, "compute_bound", 0, 1, 0, &k->cb)) < 0 ||
        (rc = duration(c, o, p, "deadline", 0, &k->deadline)) < 0 ||
        (rc = duration(c, o, p, "checkpoint_interval", 0, &k->ckpt)) < 0 ||
        (rc = num(c, o, p, "estimate_factor", 0, 1e6, 0,
                  &k->estimate_factor)) < 0 ||
        (rc = sharing_keys(c, o, p, k)) < 0)
        return rc;
    if (k->gpu_family[0] && !gs_gpu_family_known(&c->s->cat, k->gpu_family)) {
        sub(pp, sizeof pp, p, "gpu_family");
        return err(c, pp, "'%s' names no GPU model of the catalog (a family "
                   "is the start of a model name, as H100 for H100-80GB; '|' "
                   "separates several)", k->gpu_family);
    }
    if ((k->tier = gs_tier_parse(tier)) < 0)
        return err(c, p, "unknown tier '%s' (known: inference, training, "
                   "interactive, data)", tier);
    const cJSON *ip = cJSON_GetObjectItemCaseSensitive(o, "idle_profile");
    if (ip) {
        sub(pp, sizeof pp, p, "idle_profile");
        if ((rc = check_keys(c, ip, pp, KEYS("busy", "idle"))) < 0)
            return rc;
        if (!cJSON_GetObjectItemCaseSensitive(ip, "busy") ||
            !cJSON_GetObjectItemCaseSensitive(ip, "idle"))
            return err(c, pp, "give \"busy\" and \"idle\" (durations or "
                       "distributions)");
        if ((rc = dist_or_time(c, ip, pp, "busy", &k->busy)) < 0 ||
            (rc = dist_or_time(c, ip, pp, "idle", &k->idle)) < 0)
            return rc;
        k->idle_prof = 1;
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "tenants");
    sub(pp, sizeof pp, p, "tenants");
    if (cJSON_IsNumber(t)) {
        if (!(t->valuedouble >= 1 && t->valuedouble <= GS_GEN_MAX_NUMBERED) ||
            t->valuedouble != floor(t->valuedouble))
            return err(c, pp, "expected a whole number from 1 to %d",
                       GS_GEN_MAX_NUMBERED);
        k->ntenants = (int)t->valuedouble;
        k->numbered = 1;            /* tenant1 .. tenantN (gen.h) */
    } else if (cJSON_IsArray(t)) {
        for (const cJSON *e = t->child; e; e = e->next) {
            if (!cJSON_IsString(e) || !e->valuestring[0] ||
                strlen(e->valuestring) >= GS_TENANT_NAME)
                return err(c, pp, "expected tenant names (non-empty strings "
                           "under %d characters)", GS_TENANT_NAME);
            if (k->ntenants == GS_GEN_MAX_TENANTS)
                return err(c, pp, "at most %d tenants by name (a number "
                           "of tenants, \"tenants\": N, has no such limit)",
                           GS_GEN_MAX_TENANTS);
            snprintf(k->tenants[k->ntenants++], GS_TENANT_NAME, "%s",
                     e->valuestring);
        }
    } else if (t != NULL) {
        return err(c, pp, "expected a count or an array of names");
    }
    const cJSON *tw = cJSON_GetObjectItemCaseSensitive(o, "tenant_weights");
    if (tw != NULL) {
        sub(pp, sizeof pp, p, "tenant_weights");
        if (k->ntenants > GS_GEN_MAX_TENANTS)
            return err(c, pp, "weights for at most %d tenants (this class "
                       "has %d)", GS_GEN_MAX_TENANTS, k->ntenants);
        if (!cJSON_IsArray(tw) || k->ntenants == 0 ||
            cJSON_GetArraySize(tw) != k->ntenants)
            return err(c, pp, "expected an array of weights, one per tenant "
                       "(%d)", k->ntenants);
        double sum = 0;
        int i = 0;
        for (const cJSON *e = tw->child; e; e = e->next, i++) {
            if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) ||
                e->valuedouble > 1e12)
                return err(c, pp, "weights must be numbers >= 0");
            k->tenant_w[i] = e->valuedouble;
            sum += e->valuedouble;
        }
        if (sum <= 0)
            return err(c, pp, "the weights must not all be 0");
    }
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "gpus");
    sub(pp, sizeof pp, p, "gpus");
    if (g == NULL || cJSON_IsNumber(g)) {
        k->nvalues = 1;
        k->gpus[0] = g ? g->valuedouble : 1.0;
        k->gpu_w[0] = 1.0;
    } else if (cJSON_IsObject(g)) {
        if ((rc = check_keys(c, g, pp, KEYS("values", "weights"))) < 0)
            return rc;
        const cJSON *vs = cJSON_GetObjectItemCaseSensitive(g, "values");
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(g, "weights");
        int n = cJSON_GetArraySize(vs);
        if (!cJSON_IsArray(vs) || n < 1 || n > GS_GEN_MAX_VALUES)
            return err(c, pp, "\"values\" must be an array of 1 to %d numbers",
                       GS_GEN_MAX_VALUES);
        if (ws && (!cJSON_IsArray(ws) || cJSON_GetArraySize(ws) != n))
            return err(c, pp, "\"weights\" must be an array as long as "
                       "\"values\"");
        k->nvalues = n;
        double wsum = 0;
        for (int i = 0; i < n; i++) {
            const cJSON *v = cJSON_GetArrayItem(vs, i);
            const cJSON *w = ws ? cJSON_GetArrayItem(ws, i) : NULL;
            if (!cJSON_IsNumber(v) || (ws && !cJSON_IsNumber(w)) ||
                (w && w->valuedouble < 0))
                return err(c, pp, "values and weights must be numbers, "
                           "weights >= 0");
            k->gpus[i] = v->valuedouble;
            k->gpu_w[i] = w ? w->valuedouble : 1.0;
            wsum += k->gpu_w[i];
        }
        if (wsum <= 0)
            return err(c, pp, "the weights must not all be 0");
    } else {
        return err(c, pp, "expected a number or {\"values\": [...], "
                   "\"weights\": [...]}");
    }
    for (int i = 0; i < k->nvalues; i++) {
        double v = k->gpus[i];
        if (!(v >= 0 && v <= 100000) || (v > 1 && v != floor(v)) ||
            (v > 0 && v < 0.001))
            return err(c, pp, "GPU count %g must be a fraction in (0, 1], 0 "
                       "for CPU-only, or a whole number", v);
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "duration");
    sub(pp, sizeof pp, p, "duration");
    if (d == NULL)
        return err(c, p, "missing required key 'duration'");
    return parse_dist(c, d, pp, &k->duration);
}

/* Bursts: {"states": [{"rate_factor": f, "mean_sojourn": d}, ...]}. */
static int parse_burst(struct ctx *c, const cJSON *b, const char *p,
                       struct gs_genspec *g)
{
    int rc;
    if ((rc = check_keys(c, b, p, KEYS("states"))) < 0)
        return rc;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(b, "states");
    int n = cJSON_GetArraySize(st);
    if (!cJSON_IsArray(st) || n < 2 || n > GS_GEN_MAX_BURST)
        return err(c, p, "\"states\" must be an array of 2 to %d burst states",
                   GS_GEN_MAX_BURST);
    double fsum = 0;
    for (int i = 0; i < n; i++) {
        char q[200];
        snprintf(q, sizeof q, "%.160s.states[%d]", p, i);
        const cJSON *e = cJSON_GetArrayItem(st, i);
        double f = 0;
        gs_time so = 0;
        if ((rc = check_keys(c, e, q, KEYS("rate_factor", "mean_sojourn"))) < 0 ||
            (rc = num(c, e, q, "rate_factor", 0, 1e6, 1, &f)) < 0 ||
            (rc = duration(c, e, q, "mean_sojourn", 1, &so)) < 0)
            return rc;
        if (so <= 0)
            return err(c, q, "mean_sojourn must be above 0");
        g->burst_factor[i] = f;
        g->burst_sojourn[i] = so;
        fsum += f;
    }
    if (fsum <= 0)
        return err(c, p, "the rate factors must not all be 0");
    g->nburst = n;
    return 0;
}

/* The generator: workload.generate of a scenario, or (standalone) a
 * generator spec file's top level, which may also hold "seed",
 * "gpu_models" and "description" (read by gs_genspec_load). */
static int parse_generate(struct ctx *c, const cJSON *o, const char *p,
                          int standalone)
{
    struct gs_genspec *g = &c->s->gen;
    int rc;
    long jobs = 0;
    g->peak_hour = 14;
    g->ref_model = -1;
    if ((rc = check_keys(c, o, p, standalone
                         ? KEYS("jobs", "until", "rate_per_hour",
                                "diurnal_amplitude", "peak_hour", "weekend_dip",
                                "hourly_profile", "burst", "reference_gpu",
                                "classes", "seed", "gpu_models", "description")
                         : KEYS("jobs", "until", "rate_per_hour",
                                "diurnal_amplitude", "peak_hour", "weekend_dip",
                                "hourly_profile", "burst", "reference_gpu",
                                "classes"))) < 0 ||
        (rc = inum(c, o, p, "jobs", 0, 1000000000L, 0, &jobs)) < 0 ||
        (rc = duration(c, o, p, "until", 0, &g->until)) < 0 ||
        (rc = num(c, o, p, "rate_per_hour", 1e-9, 1e12, 1,
                  &g->rate_per_hour)) < 0 ||
        (rc = num(c, o, p, "diurnal_amplitude", 0, 1, 0, &g->diurnal)) < 0 ||
        (rc = num(c, o, p, "peak_hour", 0, 24, 0, &g->peak_hour)) < 0 ||
        (rc = num(c, o, p, "weekend_dip", 0, 1, 0, &g->weekly)) < 0 ||
        (rc = model_ref(c, o, p, "reference_gpu", 0, &g->ref_model)) < 0)
        return rc;
    g->jobs = jobs;
    if (g->jobs == 0 && g->until == 0)
        return err(c, p, "give \"jobs\" (how many) or \"until\" (a duration), "
                   "or both");
    char pp[160];
    const cJSON *hp = cJSON_GetObjectItemCaseSensitive(o, "hourly_profile");
    if (hp != NULL) {
        sub(pp, sizeof pp, p, "hourly_profile");
        if (!cJSON_IsArray(hp) || cJSON_GetArraySize(hp) != 24)
            return err(c, pp, "expected 24 numbers >= 0, one per hour of day");
        double sum = 0;
        int h = 0;
        for (const cJSON *e = hp->child; e; e = e->next, h++) {
            if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) ||
                e->valuedouble > 1e12)
                return err(c, pp, "element %d is not a number >= 0", h);
            g->hourly[h] = e->valuedouble;
            sum += e->valuedouble;
        }
        if (sum <= 0)
            return err(c, pp, "the profile must not be all 0");
    }
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "burst");
    if (b != NULL) {
        sub(pp, sizeof pp, p, "burst");
        if ((rc = parse_burst(c, b, pp, g)) < 0)
            return rc;
    }
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(o, "classes");
    int n = cJSON_GetArraySize(cl);
    if (!cJSON_IsArray(cl) || n < 1 || n > GS_GEN_MAX_CLASSES)
        return err(c, p, "\"classes\" must be an array of 1 to %d job classes",
                   GS_GEN_MAX_CLASSES);
    g->nclasses = n;
    double wsum = 0;
    for (int i = 0; i < n; i++) {
        snprintf(pp, sizeof pp, "%s.classes[%d]", p, i);
        if ((rc = parse_class(c, cJSON_GetArrayItem(cl, i), pp,
                              &g->cls[i])) < 0)
            return rc;
        wsum += g->cls[i].weight;
    }
    if (wsum <= 0)
        return err(c, p, "the class weights must not all be 0");
    return 0;
}

static int parse_workload(struct ctx *c, const cJSON *o)
{
    int rc;
    if ((rc = check_keys(c, o, "$.workload", KEYS("trace", "generate"))) < 0)
        return rc;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "trace");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "generate");
    if ((t == NULL) == (g == NULL))
        return err(c, "$.workload", "give exactly one of \"trace\" and "
                   "\"generate\"");
    if (g) {
        c->s->wl_kind = GS_WL_GENERATE;
        return parse_generate(c, g, "$.workload.generate", 0);
    }
    c->s->wl_kind = GS_WL_TRACE;
    char fmt[GS_NAME];
    if (!cJSON_IsObject(t))
        return err(c, "$.workload.trace", "expected an object with \"format\" "
                   "and \"path\"");
    if ((rc = str(c, t, "$.workload.trace", "format", 1, fmt, sizeof fmt)) < 0)
        return rc;
    /* The trace reader reads (and so checks) every key, format included. */
    params_where(c, "$.workload.trace", &c->s->trace);
    return collect_params(c, t, "$.workload.trace", NULL, &c->s->trace);
}

/* --- inference services ($.services; svccfg.h, docs/inference.md) -------- */

/* A token-count law: the keys of a duration law, numbers read as counts.
 * parse_dist reads numbers as seconds (x 1000 ms), so every value is scaled
 * back by 1/1000 (the lognormal's mu by -ln 1000). */
static int parse_tokens(struct ctx *c, const cJSON *o, const char *path,
                        struct gs_distspec *d)
{
    /* a count is a number: parse_dist would take "5m" for 300 s */
    for (const cJSON *k = cJSON_IsObject(o) ? o->child : NULL; k; k = k->next) {
        int bad = cJSON_IsString(k) && strcmp(k->string, "dist") != 0;
        for (const cJSON *e = cJSON_IsArray(k) ? k->child : NULL; e && !bad;
             e = e->next)
            bad = cJSON_IsString(e);
        if (bad) {
            char p[800];
            sub(p, sizeof p, path, k->string);
            return err(c, p, "expected a number of tokens (a count, not a "
                       "duration or a string)");
        }
    }
    int rc = parse_dist(c, o, path, d);
    if (rc < 0)
        return rc;
    const double k = 1e-3;
    d->max *= k;
    switch (d->kind) {
    case GS_DIST_LOGNORMAL:
        d->a += log(k);
        break;
    case GS_DIST_PARETO:
    case GS_DIST_WEIBULL:
        d->a *= k;
        break;
    case GS_DIST_EMPIRICAL:
        for (int i = 0; i < d->npoints; i++)
            d->pts[i] *= k;
        break;
    default:
        d->a *= k;
        d->b *= k;
        break;
    }
    return 0;
}

static int parse_arch(struct ctx *c, const cJSON *v, const char *p,
                      struct gs_llm_arch *a)
{
    int rc;
    if (cJSON_IsString(v))
    {
        if (gs_llm_arch_find(v->valuestring, a, p, c->d) == 0)
            return 0;
        char what[512];
        snprintf(what, sizeof what, "%s", c->d->what);
        return err(c, p, "%s", what);
    }
    if ((rc = check_keys(c, v, p, KEYS("name", "layers", "hidden", "heads",
                         "kv_heads", "ffn", "gated", "experts",
                         "active_experts", "vocab", "bytes_per_param",
                         "kv_bytes", "tied_embeddings"))) < 0)
        return rc;
    memset(a, 0, sizeof *a);
    long layers = 0, hidden = 0, heads = 0, kvh = 0, ffn = 0, experts = 1,
         act = 1, vocab = 32000;
    a->gated = 1;
    a->bytes_per_param = 2;
    if ((rc = str(c, v, p, "name", 1, a->name, sizeof a->name)) < 0 ||
        (rc = inum(c, v, p, "layers", 1, 100000, 1, &layers)) < 0 ||
        (rc = inum(c, v, p, "hidden", 1, 10000000, 1, &hidden)) < 0 ||
        (rc = inum(c, v, p, "heads", 1, 100000, 1, &heads)) < 0 ||
        (rc = inum(c, v, p, "kv_heads", 1, 100000, 0, &kvh)) < 0 ||
        (rc = inum(c, v, p, "ffn", 1, 100000000, 1, &ffn)) < 0 ||
        (rc = boolean(c, v, p, "gated", &a->gated)) < 0 ||
        (rc = inum(c, v, p, "experts", 1, 100000, 0, &experts)) < 0 ||
        (rc = inum(c, v, p, "active_experts", 1, 100000, 0, &act)) < 0 ||
        (rc = inum(c, v, p, "vocab", 1, 100000000, 0, &vocab)) < 0 ||
        (rc = num(c, v, p, "bytes_per_param", 0.125, 8, 0,
                  &a->bytes_per_param)) < 0 ||
        (rc = num(c, v, p, "kv_bytes", 0.125, 8, 0, &a->kv_bytes)) < 0 ||
        (rc = boolean(c, v, p, "tied_embeddings", &a->tied)) < 0)
        return rc;
    a->layers = (int)layers;
    a->hidden = (int)hidden;
    a->heads = (int)heads;
    a->kv_heads = (int)(kvh ? kvh : heads);
    a->ffn = (int)ffn;
    a->experts = (int)experts;
    a->active_experts = (int)act;
    a->vocab = (int)vocab;
    if (gs_llm_arch_check(a, p, c->d) == 0)
        return 0;
    char what[512], where[512];
    snprintf(what, sizeof what, "%s", c->d->what);
    snprintf(where, sizeof where, "%s", c->d->where);
    return err(c, where, "%s", what);
}

#define SVC_POOL_KEYS "gpu", "mig_profile", "tp", "replicas", \
                      "min_replicas", "max_replicas", "autoscaler"

/* The keys of one pool of replicas, read from o over the defaults in *pl. */
static int parse_svcpool(struct ctx *c, const cJSON *o, const char *p,
                         struct gs_svcpool *pl)
{
    int rc;
    char gpu[GS_MODEL_NAME] = "";
    long tp = pl->tp, reps = pl->replicas, mn = pl->min_replicas,
         mx = pl->max_replicas;
    if ((rc = str(c, o, p, "gpu", 0, gpu, sizeof gpu)) < 0 ||
        (rc = str(c, o, p, "mig_profile", 0, pl->mig_profile,
                  sizeof pl->mig_profile)) < 0 ||
        (rc = inum(c, o, p, "tp", 1, 64, 0, &tp)) < 0 ||
        (rc = inum(c, o, p, "replicas", 0, 100000, 0, &reps)) < 0 ||
        (rc = inum(c, o, p, "min_replicas", 0, 100000, 0, &mn)) < 0 ||
        (rc = inum(c, o, p, "max_replicas", 1, 100000, 0, &mx)) < 0)
        return rc;
    if (gpu[0]) {
        char pp[600];
        sub(pp, sizeof pp, p, "gpu");
        if ((pl->gpu_model = gs_catalog_find(&c->s->cat, gpu)) < 0)
            return err(c, pp, "unknown GPU model '%s'", gpu);
    }
    pl->tp = (int)tp;
    pl->replicas = (int)reps;
    pl->min_replicas = (int)mn;
    pl->max_replicas = (int)mx;
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(o, "autoscaler");
    if (as) {
        char pp[600];
        sub(pp, sizeof pp, p, "autoscaler");
        if ((rc = gs_svcscale_cfg_parse((const struct gs_json *)as, c->file,
                                        pp, &pl->as, c->d)) < 0)
            return rc;
        pl->autoscale = 1;
        pl->min_replicas = pl->as.min_replicas;
        pl->max_replicas = pl->as.max_replicas;
    }
    if (pl->gpu_model < 0)
        return err(c, p, "missing required key 'gpu'");
    if (pl->mig_profile[0] && pl->tp != 1)
        return err(c, p, "a replica on a MIG profile has tp 1");
    if (pl->min_replicas > pl->max_replicas)
        return err(c, p, "min_replicas %d is above max_replicas %d",
                   pl->min_replicas, pl->max_replicas);
    if (pl->replicas < pl->min_replicas)
        pl->replicas = pl->min_replicas;
    if (pl->replicas > pl->max_replicas)
        pl->replicas = pl->max_replicas;
    return 0;
}

/* requests.stream and requests.route of a service (source.h): the stream
 * it shares with other pools and the totals it takes. */
static int parse_stream_route(struct ctx *c, const cJSON *rq, const char *p,
                              struct gs_svccfg *sv)
{
    int rc;
    if ((rc = str(c, rq, p, "stream", 0, sv->stream, sizeof sv->stream)) < 0)
        return rc;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(rq, "route");
    if (r == NULL)
        return 0;
    char rp[700];
    sub(rp, sizeof rp, p, "route");
    long lo = 0, hi = -1;           /* -1: no upper bound */
    if ((rc = check_keys(c, r, rp, KEYS("min_total_tokens",
                                        "max_total_tokens"))) < 0 ||
        (rc = inum(c, r, rp, "min_total_tokens", 0, 1000000000L, 0,
                   &lo)) < 0 ||
        (rc = inum(c, r, rp, "max_total_tokens", 1, 1000000000L, 0,
                   &hi)) < 0)
        return rc;
    if (lo == 0 && hi < 0)
        return err(c, rp, "give \"min_total_tokens\", \"max_total_tokens\" "
                   "or both");
    if (hi < 0)
        hi = LONG_MAX;
    if (hi < lo)
        return err(c, rp, "max_total_tokens %ld is below min_total_tokens "
                   "%ld", hi, lo);
    sv->route = (struct gs_lenroute){ .on = 1, .lo = lo, .hi = hi };
    return 0;
}

static int read_text(const char *file, char **text, char **dir,
                     struct gs_diag *d);

/* [[tokens, p], ...] or {"cdf": [...]} into a CDF. */
static int cdf_points(struct ctx *c, const cJSON *v, const char *p,
                      struct gs_tokcdf *t)
{
    const cJSON *l = cJSON_IsObject(v)
                     ? cJSON_GetObjectItemCaseSensitive(v, "cdf") : v;
    if (!cJSON_IsArray(l))
        return err(c, p, "expected a list of [tokens, cumulative "
                   "probability] pairs (or {\"cdf\": [...]})");
    int n = 0;
    for (const cJSON *it = l->child; it; it = it->next, n++) {
        char ip[760];
        snprintf(ip, sizeof ip, "%s[%d]", p, n);
        if (n >= GS_TOKCDF_MAX)
            return err(c, p, "more than %d points", GS_TOKCDF_MAX);
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 ||
            !cJSON_IsNumber(it->child) || !cJSON_IsNumber(it->child->next))
            return err(c, ip, "expected [tokens, cumulative probability]");
        t->x[n] = it->child->valuedouble;
        t->p[n] = it->child->next->valuedouble;
    }
    t->n = n;
    return 0;
}

/* A CDF file's points into t: a regular file under 1 MiB holding
 * [[tokens, p], ...] or {"cdf": [...]}. */
static int cdf_file(struct ctx *c, const char *path, struct gs_tokcdf *t)
{
    char *text = NULL;
    struct stat st;
    int rc;
    /* A CDF is a few hundred points: refuse what no CDF file is (a
     * device, a huge file) before reading it. */
    if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) ||
                                 st.st_size > (1 << 20)))
        return gs_diag_set(c->d, GS_EINVAL, path, "not a CDF file: "
                           "expected a regular file under 1 MiB");
    if ((rc = read_text(path, &text, NULL, c->d)) < 0)
        return rc;
    const char *end = NULL;
    int oom = 0;
    cJSON *doc = gs_json_parse_raw(text, &end, &oom);
    free(text);
    if (doc == NULL)
        return oom ? gs_diag_set(c->d, GS_ENOMEM, path, "out of memory")
                   : gs_diag_set(c->d, GS_EPARSE, path, "not valid JSON "
                                 "(a CDF file holds [[tokens, p], ...] "
                                 "or {\"cdf\": [...]})");
    struct ctx fc = *c;
    fc.file = path;
    rc = cdf_points(&fc, doc, "$", t);
    cJSON_Delete(doc);
    return rc;
}

/* generate.total_tokens: {"dist": "cdf", "points": [...]} or {"dist":
 * "cdf", "file": PATH}, split by generate.input_share (0.8).  The input
 * and output laws then hold the means as constants (for capacity
 * estimates); the draws come from the CDF (source.h). */
static int parse_total_tokens(struct ctx *c, const cJSON *gn, const char *q,
                              struct gs_svcgen *g)
{
    const cJSON *tt = cJSON_GetObjectItemCaseSensitive(gn, "total_tokens");
    int rc;
    if (tt == NULL) {
        if (cJSON_GetObjectItemCaseSensitive(gn, "input_share")) {
            char sp[760];
            sub(sp, sizeof sp, q, "input_share");
            return err(c, sp, "input_share splits \"total_tokens\", which is "
                       "not given");
        }
        return 0;
    }
    char tp[760];
    sub(tp, sizeof tp, q, "total_tokens");
    if (cJSON_GetObjectItemCaseSensitive(gn, "input_tokens") ||
        cJSON_GetObjectItemCaseSensitive(gn, "output_tokens"))
        return err(c, q, "give either \"total_tokens\" (with input_share) "
                   "or \"input_tokens\" and \"output_tokens\"");
    char dist[16] = "", *path = NULL;
    g->total.in_share = 0.8;
    if ((rc = check_keys(c, tt, tp, KEYS("dist", "points", "file"))) < 0 ||
        (rc = str(c, tt, tp, "dist", 1, dist, sizeof dist)) < 0 ||
        (rc = num(c, gn, q, "input_share", 1e-6, 1 - 1e-6, 0,
                  &g->total.in_share)) < 0 ||
        (rc = file_path(c, tt, tp, "file", &path)) < 0)
        return rc;
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(tt, "points");
    char pp[800];
    if (strcmp(dist, "cdf") != 0) {
        sub(pp, sizeof pp, tp, "dist");
        rc = err(c, pp, "total_tokens takes dist \"cdf\" (an empirical "
                 "CDF); for other laws give input_tokens and "
                 "output_tokens");
    } else if ((pts == NULL) == (path == NULL)) {
        rc = err(c, tp, "give exactly one of \"points\" and \"file\"");
    } else if (pts) {
        sub(pp, sizeof pp, tp, "points");
        rc = cdf_points(c, pts, pp, &g->total);
    } else {
        rc = cdf_file(c, path, &g->total);
        snprintf(pp, sizeof pp, "%s", tp);
    }
    free(path);
    if (rc < 0)
        return rc;
    char where[900];
    snprintf(where, sizeof where, "%s: %s", c->file, pp);
    if ((rc = gs_tokcdf_check(&g->total, where, c->d)) < 0)
        return rc;
    double m = gs_tokcdf_mean(&g->total);
    g->input = (struct gs_distspec){ .kind = GS_DIST_CONSTANT,
                                     .a = m * g->total.in_share };
    g->output = (struct gs_distspec){ .kind = GS_DIST_CONSTANT,
                                      .a = m * (1 - g->total.in_share) };
    return 0;
}

/* A service's "engine": the serving engine's limits (llm.h). */
static int parse_svc_engine(struct ctx *c, const cJSON *o, const char *p,
                            struct gs_svccfg *sv)
{
    int rc;
    char pp[600];
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "engine");
    if (e) {
        struct gs_llm_engine_cfg *ec = &sv->eng;
        long seqs = ec->max_seqs, tok = ec->max_batched_tokens,
             bs = ec->block_size, pbt = ec->prefix_block_tokens;
        sub(pp, sizeof pp, p, "engine");
        if ((rc = check_keys(c, e, pp, KEYS("max_seqs", "max_batched_tokens",
                             "block_size", "chunked_prefill",
                             "prefix_caching", "prefix_block_tokens",
                             "gpu_memory_utilization", "reserve_gb"))) < 0 ||
            (rc = inum(c, e, pp, "max_seqs", 1, 1000000, 0, &seqs)) < 0 ||
            (rc = inum(c, e, pp, "max_batched_tokens", 1, 100000000, 0,
                       &tok)) < 0 ||
            (rc = inum(c, e, pp, "block_size", 1, 4096, 0, &bs)) < 0 ||
            (rc = boolean(c, e, pp, "chunked_prefill",
                          &ec->chunked_prefill)) < 0 ||
            (rc = boolean(c, e, pp, "prefix_caching",
                          &ec->prefix_caching)) < 0 ||
            (rc = inum(c, e, pp, "prefix_block_tokens", 1, 1 << 20, 0,
                       &pbt)) < 0 ||
            (rc = num(c, e, pp, "gpu_memory_utilization", 0.01, 1, 0,
                      &ec->gpu_mem_util)) < 0 ||
            (rc = num(c, e, pp, "reserve_gb", 0, 1e4, 0,
                      &ec->reserve_gb)) < 0)
            return rc;
        ec->max_seqs = (int)seqs;
        ec->max_batched_tokens = (int)tok;
        ec->block_size = (int)bs;
        ec->prefix_block_tokens = (int)pbt;
        if (ec->prefix_block_tokens % ec->block_size != 0)
            return err(c, pp, "prefix_block_tokens (%d) must be a multiple "
                       "of block_size (%d)", ec->prefix_block_tokens,
                       ec->block_size);
    }
    return 0;
}

/* A service's replica pools: one, or a prefill and a decode pool
 * ("disaggregated"). */
static int parse_svc_pools(struct ctx *c, const cJSON *o, const char *p,
                           struct gs_svccfg *sv)
{
    int rc;
    char pp[600];
    /* The pool keys at the top level make the one pool, or the defaults of
     * the prefill and decode pools. */
    struct gs_svcpool base = { .gpu_model = -1, .tp = 1, .replicas = 1,
                               .min_replicas = 1, .max_replicas = 100 };
    gs_svcscale_cfg_default(&base.as);
    const cJSON *dg = cJSON_GetObjectItemCaseSensitive(o, "disaggregated");
    struct gs_svcpool top = base;
    if (dg == NULL) {
        if ((rc = parse_svcpool(c, o, p, &top)) < 0)
            return rc;
        sv->npools = 1;
        sv->pool[0] = top;
    } else {
        /* Only the GPU keys are shared defaults; counts and scalers are
         * each half's own. */
        for (const char *const *k = KEYS("replicas", "min_replicas",
                                         "max_replicas", "autoscaler");
             *k; k++)
            if (cJSON_GetObjectItemCaseSensitive(o, *k)) {
                sub(pp, sizeof pp, p, *k);
                return err(c, pp, "with \"disaggregated\", give it in its "
                           "\"prefill\" and \"decode\" objects");
            }
        char gpu[GS_MODEL_NAME] = "";
        long tp = 1;
        if ((rc = str(c, o, p, "gpu", 0, gpu, sizeof gpu)) < 0 ||
            (rc = str(c, o, p, "mig_profile", 0, top.mig_profile,
                      sizeof top.mig_profile)) < 0 ||
            (rc = inum(c, o, p, "tp", 1, 64, 0, &tp)) < 0)
            return rc;
        top.tp = (int)tp;
        if (gpu[0] && (top.gpu_model = gs_catalog_find(&c->s->cat, gpu)) < 0) {
            sub(pp, sizeof pp, p, "gpu");
            return err(c, pp, "unknown GPU model '%s'", gpu);
        }
        sub(pp, sizeof pp, p, "disaggregated");
        sv->disagg = 1;
        sv->npools = 2;
        sv->kv_link_gbs = 50;           /* 400 Gb/s InfiniBand per GPU */
        gs_time lat = 0;
        if ((rc = check_keys(c, dg, pp, KEYS("prefill", "decode",
                             "kv_link_gbs", "kv_link_latency"))) < 0 ||
            (rc = num(c, dg, pp, "kv_link_gbs", 1e-3, 1e6, 0,
                      &sv->kv_link_gbs)) < 0 ||
            (rc = duration(c, dg, pp, "kv_link_latency", 0, &lat)) < 0)
            return rc;
        sv->kv_link_lat_s = (double)lat / 1000.0;
        static const char *const half[2] = { "prefill", "decode" };
        for (int i = 0; i < 2; i++) {
            char hp[700];
            sub(hp, sizeof hp, pp, half[i]);
            const cJSON *h = cJSON_GetObjectItemCaseSensitive(dg, half[i]);
            if (h == NULL)
                return err(c, pp, "missing required key '%s'", half[i]);
            if ((rc = check_keys(c, h, hp, KEYS(SVC_POOL_KEYS))) < 0)
                return rc;
            sv->pool[i] = top;
            if ((rc = parse_svcpool(c, h, hp, &sv->pool[i])) < 0)
                return rc;
        }
    }
    return 0;
}

/* A service's "requests": a trace, or a generator. */
static int parse_svc_requests(struct ctx *c, const cJSON *o, const char *p,
                              struct gs_svccfg *sv)
{
    int rc;
    char pp[600];
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(o, "requests");
    sub(pp, sizeof pp, p, "requests");
    if (rq == NULL)
        return err(c, p, "missing required key 'requests'");
    if ((rc = check_keys(c, rq, pp, KEYS("trace", "generate", "stream",
                                         "route"))) < 0 ||
        (rc = parse_stream_route(c, rq, pp, sv)) < 0)
        return rc;
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(rq, "trace");
    const cJSON *gn = cJSON_GetObjectItemCaseSensitive(rq, "generate");
    if ((tr == NULL) == (gn == NULL))
        return err(c, pp, "give exactly one of \"trace\" and \"generate\"");
    char q[700];
    if (tr) {
        sv->src = GS_SVCSRC_TRACE;
        sub(q, sizeof q, pp, "trace");
        if ((rc = check_keys(c, tr, q, KEYS("format", "path"))) < 0 ||
            (rc = str(c, tr, q, "format", 1, sv->format,
                      sizeof sv->format)) < 0 ||
            (rc = file_path(c, tr, q, "path", &sv->path)) < 0)
            return rc;
        if (sv->path == NULL)
            return err(c, q, "missing required key 'path'");
        if (!gs_request_format_known(sv->format)) {
            char fq[800];
            sub(fq, sizeof fq, q, "format");
            return err(c, fq, "unknown request trace format '%s' (known: "
                       "azure-llm, mooncake, splitwise, requests)",
                       sv->format);
        }
    } else {
        struct gs_svcgen *g = &sv->gen;
        sv->src = GS_SVCSRC_GENERATE;
        sub(q, sizeof q, pp, "generate");
        g->rate.peak_hour = 14;
        if ((rc = check_keys(c, gn, q, KEYS("requests", "until",
                             "rate_per_hour", "rate_per_second",
                             "diurnal_amplitude", "peak_hour", "weekend_dip",
                             "input_tokens", "output_tokens", "total_tokens",
                             "input_share"))) < 0 ||
            (rc = inum(c, gn, q, "requests", 0, 4000000000L, 0,
                       &g->requests)) < 0 ||
            (rc = duration(c, gn, q, "until", 0, &g->until)) < 0 ||
            (rc = num(c, gn, q, "rate_per_hour", 1e-9, 1e15, 0,
                      &g->rate.rate_per_hour)) < 0)
            return rc;
        double rps = 0;
        if ((rc = num(c, gn, q, "rate_per_second", 1e-12, 1e12, 0, &rps)) < 0 ||
            (rc = num(c, gn, q, "diurnal_amplitude", 0, 1, 0,
                      &g->rate.diurnal)) < 0 ||
            (rc = num(c, gn, q, "peak_hour", 0, 24, 0,
                      &g->rate.peak_hour)) < 0 ||
            (rc = num(c, gn, q, "weekend_dip", 0, 1, 0, &g->rate.weekly)) < 0)
            return rc;
        if (rps > 0)
            g->rate.rate_per_hour = rps * 3600.0;
        if (g->rate.rate_per_hour <= 0)
            return err(c, q, "give \"rate_per_second\" or \"rate_per_hour\"");
        if (g->requests == 0 && g->until == 0)
            return err(c, q, "give \"requests\" (how many) or \"until\" (a "
                       "duration), or both");
        static const char *const law[2] = { "input_tokens", "output_tokens" };
        struct gs_distspec *ds[2] = { &g->input, &g->output };
        if ((rc = parse_total_tokens(c, gn, q, g)) < 0)
            return rc;
        for (int i = 0; i < 2 && g->total.n == 0; i++) {
            char lq[800];
            sub(lq, sizeof lq, q, law[i]);
            const cJSON *l = cJSON_GetObjectItemCaseSensitive(gn, law[i]);
            if (l == NULL)
                return err(c, q, "missing required key '%s'", law[i]);
            if ((rc = parse_tokens(c, l, lq, ds[i])) < 0)
                return rc;
        }
    }
    return 0;
}

/* A service's "sla": latency targets and their percentiles. */
static int parse_svc_sla(struct ctx *c, const cJSON *o, const char *p,
                         struct gs_svccfg *sv)
{
    int rc;
    char pp[600];
    const cJSON *sla = cJSON_GetObjectItemCaseSensitive(o, "sla");
    if (sla) {
        gs_time ttft = 0, itl = 0, e2e = 0;
        double pct = 99;
        sub(pp, sizeof pp, p, "sla");
        if ((rc = check_keys(c, sla, pp, KEYS("ttft", "itl", "e2e",
                             "percentile", "ttft_percentile",
                             "itl_percentile"))) < 0 ||
            (rc = duration(c, sla, pp, "ttft", 0, &ttft)) < 0 ||
            (rc = duration(c, sla, pp, "itl", 0, &itl)) < 0 ||
            (rc = duration(c, sla, pp, "e2e", 0, &e2e)) < 0 ||
            (rc = num(c, sla, pp, "percentile", 1, 100, 0, &pct)) < 0)
            return rc;
        sv->ttft_pct = sv->itl_pct = pct;
        if ((rc = num(c, sla, pp, "ttft_percentile", 1, 100, 0,
                      &sv->ttft_pct)) < 0 ||
            (rc = num(c, sla, pp, "itl_percentile", 1, 100, 0,
                      &sv->itl_pct)) < 0)
            return rc;
        sv->ttft_s = (double)ttft / 1000.0;
        sv->itl_s = (double)itl / 1000.0;
        sv->e2e_s = (double)e2e / 1000.0;
    }
    return 0;
}

static int parse_service(struct ctx *c, const cJSON *o, const char *p,
                         struct gs_svccfg *sv)
{
    int rc;
    char pp[600], tier[32] = "inference", router[32] = "least-outstanding";
    if ((rc = check_keys(c, o, p, KEYS("name", "model", "engine", "router",
                         "requests", "tier", "tenant", "sla",
                         "load_bandwidth_gbs", "start", "disaggregated",
                         SVC_POOL_KEYS))) < 0)
        return rc;
    memset(sv, 0, sizeof *sv);
    gs_llm_engine_cfg_default(&sv->eng);
    sv->load_gbs = 2.0;
    sv->ttft_pct = sv->itl_pct = 99;
    if ((rc = str(c, o, p, "name", 1, sv->name, sizeof sv->name)) < 0 ||
        (rc = str(c, o, p, "tier", 0, tier, sizeof tier)) < 0 ||
        (rc = str(c, o, p, "router", 0, router, sizeof router)) < 0 ||
        (rc = num(c, o, p, "load_bandwidth_gbs", 1e-3, 1e6, 0,
                  &sv->load_gbs)) < 0 ||
        (rc = duration(c, o, p, "start", 0, &sv->start)) < 0)
        return rc;
    static const char *const reserved[] = { GS_SVC_RESERVED_NAMES };
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(sv->name, reserved[i]) == 0) {
            sub(pp, sizeof pp, p, "name");
            return err(c, pp, "'%s' is the name of a table in the result "
                       "file's /services; give the service another name",
                       sv->name);
        }
    if (strchr(sv->name, '/') || strcmp(sv->name, ".") == 0) {
        sub(pp, sizeof pp, p, "name");
        return err(c, pp, "'%s': a service's name may not contain '/' or "
                   "be '.' (it names a group of the result file)", sv->name);
    }
    snprintf(sv->tenant, sizeof sv->tenant, "%.47s", sv->name);
    if ((rc = str(c, o, p, "tenant", 0, sv->tenant, sizeof sv->tenant)) < 0)
        return rc;
    if ((sv->tier = gs_tier_parse(tier)) < 0) {
        sub(pp, sizeof pp, p, "tier");
        return err(c, pp, "unknown tier '%s'", tier);
    }
    if ((sv->router = gs_router_parse(router)) < 0) {
        sub(pp, sizeof pp, p, "router");
        return err(c, pp, "unknown router '%s' (known: round-robin, "
                   "least-outstanding, least-kv, prefix-affinity)", router);
    }
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "model");
    sub(pp, sizeof pp, p, "model");
    if (m == NULL)
        return err(c, p, "missing required key 'model'");
    if ((rc = parse_arch(c, m, pp, &sv->eng.arch)) < 0)
        return rc;
    if ((rc = parse_svc_engine(c, o, p, sv)) < 0 ||
        (rc = parse_svc_pools(c, o, p, sv)) < 0 ||
        (rc = parse_svc_requests(c, o, p, sv)) < 0 ||
        (rc = parse_svc_sla(c, o, p, sv)) < 0)
        return rc;
    return 0;
}

static int parse_services(struct ctx *c, const cJSON *a)
{
    int n = cJSON_GetArraySize(a);
    if (!cJSON_IsArray(a) || n > GS_SVC_MAX)
        return err(c, "$.services", "expected an array of at most %d "
                   "services", GS_SVC_MAX);
    struct gs_scenario *s = c->s;
    if (n == 0)
        return 0;
    if ((s->svcs = calloc((size_t)n, sizeof *s->svcs)) == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    for (int i = 0; i < n; i++) {
        char p[64];
        snprintf(p, sizeof p, "$.services[%d]", i);
        s->nsvcs = i + 1;       /* counted first: a half-read one is freed */
        int rc = parse_service(c, cJSON_GetArrayItem(a, i), p, &s->svcs[i]);
        if (rc < 0)
            return rc;
        for (int k = 0; k < i; k++)
            if (strcmp(s->svcs[k].name, s->svcs[i].name) == 0) {
                snprintf(p, sizeof p, "$.services[%d].name", i);
                return err(c, p, "service '%s' is already declared",
                           s->svcs[i].name);
            }
    }
    return gs_svc_streams_check(s->svcs, n, c->file, c->d);
}

/* --- the whole file ----------------------------------------------------- */

/* 1 when cJSON stopped at a comment (after white space): JSON has none. */
static int at_comment(const char *text, const char *end)
{
    if (end == NULL)
        return 0;
    if (end > text && end[-1] == '/' && (end[0] == '/' || end[0] == '*'))
        return 1;               /* cJSON stops after the first '/' */
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    return end[0] == '/' && (end[1] == '/' || end[1] == '*');
}

static void line_col(const char *text, const char *at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && *p; p++) {
        if (*p == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static int validate(struct ctx *c)
{
    struct gs_scenario *s = c->s;
    if (s->wl_kind == GS_WL_GENERATE) {
        int maxg = gs_scenario_max_gpus(s);
        for (int i = 0; i < s->gen.nclasses; i++)
            for (int v = 0; v < s->gen.cls[i].nvalues; v++)
                if (s->gen.cls[i].gpus[v] > maxg) {
                    char p[96];
                    snprintf(p, sizeof p, "$.workload.generate.classes[%d].gpus",
                             i);
                    return err(c, p, "a job of %g GPUs is larger than any "
                               "pool (the largest has %d GPUs)",
                               s->gen.cls[i].gpus[v], maxg);
                }
        for (int i = 0; i < s->gen.nclasses; i++) {
            const char *prof = s->gen.cls[i].mig_profile;
            int ok = prof[0] == '\0';
            for (int k = 0; !ok && k < s->npools; k++)
                ok = s->pools[k].share.mode == GS_SHARE_MIG &&
                     gs_mig_profile_find(s->pools[k].share.mig_gpu, prof);
            if (!ok) {
                char p[96];
                snprintf(p, sizeof p,
                         "$.workload.generate.classes[%d].mig_profile", i);
                return err(c, p, "no MIG pool of the fleet has profile '%s'",
                           prof);
            }
        }
    }
    return 0;
}

int gs_scenario_max_gpus(const struct gs_scenario *s)
{
    int m = 0;
    for (int i = 0; i < s->npools; i++)
        if (s->pools[i].nodes * s->pools[i].gpn > m)
            m = s->pools[i].nodes * s->pools[i].gpn;
    return m;
}

int gs_scenario_mem_check(const struct gs_scenario *s, struct gs_diag *d)
{
    uint64_t nodes = 0, gpus = 0;
    for (int i = 0; i < s->npools; i++) {
        nodes += (uint64_t)s->pools[i].nodes;
        gpus += (uint64_t)s->pools[i].nodes * (uint64_t)s->pools[i].gpn;
    }
    uint64_t jobs = s->wl_kind == GS_WL_GENERATE && s->gen.jobs > 0
                        ? (uint64_t)s->gen.jobs : 0;
    return gs_mem_check(nodes, gpus, jobs, s->file, d);
}

int gs_scenario_parse(const char *text, const char *name, const char *dir,
                      struct gs_scenario **out, struct gs_diag *d)
{
    *out = NULL;
    struct gs_scenario *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, name, "out of memory");
    s->file = strdup(name);
    s->trace_dir = strdup(dir ? dir : ".");
    s->text = strdup(text);
    if (s->file == NULL || s->trace_dir == NULL) {
        gs_scenario_free(s);
        return gs_diag_set(d, GS_ENOMEM, name, "out of memory");
    }
    gs_catalog_init(&s->cat);
    tier_defaults(s);
    snprintf(s->name, sizeof s->name, "scenario");
    snprintf(s->policy, sizeof s->policy, "fifo-backfill");
    snprintf(s->placer, sizeof s->placer, "best-fit-gpu");
    s->seed = 1;
    s->step = GS_MIN;
    gs_params_init(&s->policy_params, "");
    gs_params_init(&s->placer_params, "");
    gs_params_init(&s->trace, "");
    struct ctx c = { .file = s->file, .d = d, .s = s };
    int rc = 0;
    if ((rc = gs_jsoncheck(text, name, d)) < 0)   /* duplicates, comments */
        goto fail;
    if (s->text == NULL) {
        rc = gs_diag_set(d, GS_ENOMEM, name, "out of memory");
        goto fail;
    }
    const char *end = NULL;
    int oom;
    cJSON *root = gs_json_parse_raw(text, &end, &oom);
    if (root == NULL && oom) {
        rc = gs_diag_set(d, GS_ENOMEM, name, "out of memory");
        goto fail;
    }
    if (root == NULL) {
        int line, col;
        line_col(text, end ? end : text, &line, &col);
        char where[600];
        snprintf(where, sizeof where, "%s:%d:%d", name, line, col);
        if (at_comment(text, end)) {
            rc = gs_diag_set(d, GS_EPARSE, where, "JSON has no comments; "
                             "remove this one (or move it into a "
                             "\"description\" string)");
            goto fail;
        }
        rc = gs_diag_set(d, GS_EPARSE, where, "malformed JSON here");
        goto fail;
    }
    const cJSON *v;
    c.root = root;
    if ((rc = check_keys(&c, root, "$", KEYS("name", "description", "seed",
                         "horizon", "bill_until", "sample_step", "event_queue", "gpu_models", "fleet",
                         "tiers", "tenants", "partitions", "policy",
                         "placement", "workload", "prices", "billing",
                         "spot", "failures", "reaper", "autoscaler",
                         "services", "plan", "topology", "question"))) < 0)
        goto done;
    if ((rc = parse_topology(&c, root)) < 0)
        goto done;
    double seed = 1;
    char desc[4096];
    if ((rc = str(&c, root, "$", "name", 0, s->name, sizeof s->name)) < 0 ||
        (rc = str(&c, root, "$", "description", 0, desc, sizeof desc)) < 0 ||
        (rc = num(&c, root, "$", "seed", 0, 9007199254740991.0, 0, &seed)) < 0 ||
        (rc = duration(&c, root, "$", "horizon", 0, &s->horizon)) < 0 ||
        (rc = duration(&c, root, "$", "bill_until", 0, &s->bill_until)) < 0 ||
        (rc = duration(&c, root, "$", "sample_step", 0, &s->step)) < 0)
        goto done;
    if (s->horizon > 0 && s->bill_until > 0) {
        rc = err(&c, "$.bill_until", "give horizon or bill_until, not both: "
                 "horizon ends the run at that time, bill_until only keeps "
                 "a run that ended sooner going (billed) until then");
        goto done;
    }
    if (seed != floor(seed)) {
        rc = err(&c, "$.seed", "expected a whole number");
        goto done;
    }
    s->seed = (uint64_t)seed;
    char queue[16] = "radix";
    if ((rc = str(&c, root, "$", "event_queue", 0, queue, sizeof queue)) < 0)
        goto done;
    if (strcmp(queue, "radix") == 0) {
        s->queue = GS_QUEUE_RADIX;
    } else if (strcmp(queue, "heap") == 0) {
        s->queue = GS_QUEUE_HEAP;
    } else {
        rc = err(&c, "$.event_queue", "unknown event queue '%s' (radix, "
                 "heap)", queue);
        goto done;
    }
    if (s->step < GS_SEC) {
        rc = err(&c, "$.sample_step", "must be at least 1 s");
        goto done;
    }
    char question[16] = "";
    if ((rc = str(&c, root, "$", "question", 0, question,
                  sizeof question)) < 0)
        goto done;
    if (question[0] == '\0') {
        s->question = 0;                /* follows from the workload */
    } else if (strcmp(question, "finite") == 0) {
        s->question = 1;
    } else if (strcmp(question, "steady") == 0) {
        s->question = 2;
    } else {
        rc = err(&c, "$.question", "unknown question '%s' (finite: the "
                 "whole run, intervals over replications; steady: the long "
                 "run, warm-up deleted)", question);
        goto done;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "gpu_models")) &&
        (rc = parse_models(&c, v)) < 0)
        goto done;
    if ((rc = parse_cloud_globals(&c, root)) < 0)
        goto done;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "fleet")) == NULL) {
        rc = err(&c, "$", "missing required key 'fleet'");
        goto done;
    }
    if ((rc = parse_fleet(&c, v)) < 0)
        goto done;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "tiers")) &&
        (rc = parse_tiers(&c, v)) < 0)
        goto done;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "tenants")) &&
        (rc = parse_tenants(&c, v)) < 0)
        goto done;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "partitions")) &&
        (rc = parse_partitions(&c, v)) < 0)
        goto done;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "policy")) &&
        (rc = parse_plugin(&c, v, "$.policy", s->policy, sizeof s->policy,
                           &s->policy_params)) < 0)
        goto done;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "placement")) &&
        (rc = parse_plugin(&c, v, "$.placement", s->placer, sizeof s->placer,
                           &s->placer_params)) < 0)
        goto done;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "services")) &&
        (rc = parse_services(&c, v)) < 0)
        goto done;
    /* A scenario of services alone needs no job workload. */
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "workload")) == NULL) {
        if (s->nsvcs == 0) {
            rc = err(&c, "$", "missing required key 'workload'");
            goto done;
        }
        s->wl_kind = GS_WL_NONE;
    } else if ((rc = parse_workload(&c, v)) < 0) {
        goto done;
    }
    rc = validate(&c);
    if (rc == 0)
        rc = gs_scenario_mem_check(s, d);
    /* $.plan is `gpusim plan`'s: it reads it (planjson.h gs_plancfg_load);
     * the parser depends on no tool. */
done:
    cJSON_Delete(root);
    free(c.first);
    if (rc == 0) {
        *out = s;
        return 0;
    }
fail:
    gs_scenario_free(s);
    return rc < 0 ? rc : GS_EINVAL;
}

/* The whole of file as a NUL-terminated string (caller frees), and its
 * folder (caller frees; dir may be NULL when not wanted).  file must be a
 * regular file (a device such as /dev/zero or a FIFO never ends, and is
 * refused by kind before anything is read) of at most GS_SCENARIO_MAX
 * bytes, checked before reading and again while reading (a file that
 * grows).  0 or a negative code with d filled. */
static int read_text(const char *file, char **text, char **dir,
                     struct gs_diag *d)
{
    *text = NULL;
    if (dir)
        *dir = NULL;
    FILE *fp;
    int rc = gs_fopen_regular(file, "a scenario or JSON input",
                              GS_SCENARIO_MAX, &fp, d);
    if (rc < 0)
        return rc;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 131072;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(fp);
                return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, 65536, fp);
        len += got;
        if (got == 0)
            break;
        if (len > GS_SCENARIO_MAX) {
            free(buf);
            fclose(fp);
            return gs_diag_set(d, GS_EINVAL, file, "over the %d MiB a "
                               "scenario may have", GS_SCENARIO_MAX >> 20);
        }
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return gs_diag_set(d, GS_EIO, file, "read error");
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        return gs_diag_set(d, GS_EPARSE, file, "not a text file (NUL byte)");
    }
    if (dir && (*dir = gs_path_dir(file)) == NULL) {
        free(buf);
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    }
    *text = buf;
    return 0;
}

int gs_scenario_load(const char *file, struct gs_scenario **out,
                     struct gs_diag *d)
{
    *out = NULL;
    char *buf, *dir;
    int rc = read_text(file, &buf, &dir, d);
    if (rc < 0)
        return rc;
    rc = gs_scenario_parse(buf, file, dir, out, d);
    free(buf);
    free(dir);
    return rc;
}

int gs_genspec_load(const char *file, struct gs_catalog *cat,
                    struct gs_genspec *spec, uint64_t *seed,
                    struct gs_diag *d)
{
    char *text;
    int rc = read_text(file, &text, NULL, d);
    if (rc == 0 && (rc = gs_jsoncheck(text, file, d)) < 0)
        free(text);
    if (rc < 0)
        return rc;
    const char *end = NULL;
    int oom;
    cJSON *root = gs_json_parse_raw(text, &end, &oom);
    if (root == NULL && oom) {
        free(text);
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    }
    if (root == NULL) {
        int line, col;
        line_col(text, end ? end : text, &line, &col);
        char where[600];
        snprintf(where, sizeof where, "%s:%d:%d", file, line, col);
        if (at_comment(text, end)) {
            free(text);
            return gs_diag_set(d, GS_EPARSE, where, "JSON has no comments; "
                               "remove this one (or move it into a "
                               "\"description\" string)");
        }
        free(text);
        return gs_diag_set(d, GS_EPARSE, where, "malformed JSON here");
    }
    if (cJSON_IsObject(root) &&
        cJSON_GetObjectItemCaseSensitive(root, "workload")) {
        /* A whole scenario: its generator, catalog and seed. */
        cJSON_Delete(root);
        struct gs_scenario *sc;
        char *dir = gs_path_dir(file);
        rc = dir ? gs_scenario_parse(text, file, dir, &sc, d)
                 : gs_diag_set(d, GS_ENOMEM, file, "out of memory");
        free(dir);
        free(text);
        if (rc < 0)
            return rc;
        if (sc->wl_kind != GS_WL_GENERATE) {
            char where[600];
            snprintf(where, sizeof where, "%s: $.workload", file);
            gs_scenario_free(sc);
            return gs_diag_set(d, GS_EINVAL, where, "the scenario replays a "
                               "trace; a generator spec needs "
                               "\"generate\"");
        }
        *spec = sc->gen;
        *cat = sc->cat;
        *seed = sc->seed;
        gs_scenario_free(sc);
        return 0;
    }
    free(text);
    struct gs_scenario *s = calloc(1, sizeof *s);
    if (s == NULL) {
        cJSON_Delete(root);
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    }
    if ((s->file = strdup(file)) == NULL) {
        free(s);
        cJSON_Delete(root);
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    }
    s->cat = *cat;
    struct ctx c = { .file = s->file, .d = d, .s = s };
    double sd = 1;
    char desc[4096];
    const cJSON *v;
    if (!cJSON_IsObject(root))
        rc = err(&c, "$", "expected an object: a generator spec");
    else if ((rc = num(&c, root, "$", "seed", 0, 9007199254740991.0, 0,
                       &sd)) == 0 &&
             (rc = str(&c, root, "$", "description", 0, desc,
                       sizeof desc)) == 0 &&
             sd != floor(sd))
        rc = err(&c, "$.seed", "expected a whole number");
    if (rc == 0 && (v = cJSON_GetObjectItemCaseSensitive(root, "gpu_models")))
        rc = parse_models(&c, v);
    if (rc == 0)
        rc = parse_generate(&c, root, "$", 1);
    if (rc == 0) {
        *spec = s->gen;
        *cat = s->cat;
        *seed = (uint64_t)sd;
    }
    cJSON_Delete(root);
    free(s->file);
    free(s);
    return rc;
}

void gs_scenario_free(struct gs_scenario *s)
{
    if (s == NULL)
        return;
    free(s->file);
    free(s->trace_dir);
    free(s->text);
    free(s->pools);
    for (int i = 0; s->cloud.pool && i < s->npools; i++) {
        free(s->cloud.pool[i].price_file);
        free(s->cloud.pool[i].hazard_file);
    }
    free(s->cloud.pool);
    free(s->tenants);
    free(s->parts);
    for (int i = 0; s->svcs && i < s->nsvcs; i++)
        free(s->svcs[i].path);
    free(s->svcs);
    gs_params_free(&s->policy_params);
    gs_params_free(&s->placer_params);
    gs_params_free(&s->trace);
    free(s);
}

/* The built-in quickstart: a mixed A100/H100/H200 fleet of 144 GPUs and a
 * day of generated mixed-tier work at roughly 70% offered load, beside a
 * small chat service (two Llama-3-8B replicas) so that the first run shows
 * TTFT and ITL. */
static const char quickstart[] =
"{\n"
"  \"name\": \"quickstart\",\n"
"  \"description\": \"Mixed-tier day on a small A100/H100/H200 fleet\",\n"
"  \"seed\": 42,\n"
"  \"sample_step\": \"5m\",\n"
"  \"fleet\": [\n"
"    {\"name\": \"h100\", \"gpu\": \"H100-80GB\", \"nodes\": 8, \"gpus_per_node\": 8,\n"
"     \"instance_type\": \"p5.48xlarge\", \"price_per_hour\": 55.04},\n"
"    {\"name\": \"a100\", \"gpu\": \"A100-80GB\", \"nodes\": 8, \"gpus_per_node\": 8,\n"
"     \"instance_type\": \"p4de.24xlarge\", \"price_per_hour\": 40.97},\n"
"    {\"name\": \"h200\", \"gpu\": \"H200-141GB\", \"nodes\": 2, \"gpus_per_node\": 8,\n"
"     \"instance_type\": \"p5e.48xlarge\", \"price_per_gpu_hour\": 7.91}\n"
"  ],\n"
"  \"policy\": \"fifo-backfill\",\n"
"  \"placement\": \"best-fit\",\n"
"  \"workload\": {\"generate\": {\n"
"    \"jobs\": 2000, \"rate_per_hour\": 55, \"diurnal_amplitude\": 0.4,\n"
"    \"peak_hour\": 14, \"reference_gpu\": \"A100-80GB\",\n"
"    \"classes\": [\n"
"      {\"name\": \"serve\", \"tier\": \"inference\", \"weight\": 0.25,\n"
"       \"tenants\": [\"search\", \"chat\"],\n"
"       \"gpus\": {\"values\": [1, 2, 4], \"weights\": [0.6, 0.3, 0.1]},\n"
"       \"duration\": {\"dist\": \"lognormal\", \"median\": \"40m\", \"sigma\": 0.8},\n"
"       \"compute_bound\": 0.3},\n"
"      {\"name\": \"train\", \"tier\": \"training\", \"weight\": 0.35,\n"
"       \"tenants\": [\"research\", \"ranking\"],\n"
"       \"gpus\": {\"values\": [1, 2, 4, 8, 16], \"weights\": [0.3, 0.2, 0.2, 0.2, 0.1]},\n"
"       \"duration\": {\"dist\": \"lognormal\", \"median\": \"1h\", \"sigma\": 1.0, \"max\": \"2d\"},\n"
"       \"compute_bound\": 0.8, \"checkpoint_interval\": \"30m\"},\n"
"      {\"name\": \"notebook\", \"tier\": \"interactive\", \"weight\": 0.3,\n"
"       \"tenants\": [\"research\", \"ranking\", \"chat\"],\n"
"       \"gpus\": {\"values\": [0.25, 0.5, 1], \"weights\": [0.4, 0.4, 0.2]},\n"
"       \"duration\": {\"dist\": \"exponential\", \"mean\": \"45m\"}},\n"
"      {\"name\": \"etl\", \"tier\": \"data\", \"weight\": 0.1,\n"
"       \"tenants\": [\"data\"],\n"
"       \"gpus\": {\"values\": [0, 1], \"weights\": [0.7, 0.3]},\n"
"       \"duration\": {\"dist\": \"exponential\", \"mean\": \"20m\"}}\n"
"    ]\n"
"  }},\n"
"  \"services\": [\n"
"    {\"name\": \"assistant\", \"tenant\": \"chat\", \"model\": \"llama3-8b\",\n"
"     \"gpu\": \"H100-80GB\", \"replicas\": 2,\n"
"     \"requests\": {\"generate\": {\"rate_per_second\": 0.2, \"until\": \"8h\",\n"
"       \"diurnal_amplitude\": 0.4, \"peak_hour\": 14,\n"
"       \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 500, \"sigma\": 0.9,\n"
"                        \"max\": 8000},\n"
"       \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 100, \"sigma\": 0.8,\n"
"                         \"max\": 2000}}},\n"
"     \"sla\": {\"ttft\": \"1s\", \"itl\": \"50ms\"}}\n"
"  ]\n"
"}\n";

const char *gs_scenario_quickstart(void)
{
    return quickstart;
}
