/* scenario_energy.c -- the scenario's $.energy and a pool's energy keys.
 *
 * $.energy gives the facility's PUE, its electricity tariff and the grid's
 * carbon intensity (docs/energy.md): each a number (every hour the same)
 * or an array of hourly values repeating from start_hour (24 a day, up to
 * 168 a week).  Its own keys make region 0 ("default"); each entry of
 * $.energy.regions starts from region 0 and overrides what it gives.  A
 * pool names its region ("region") and may cap its GPUs' board power
 * ("power_cap_w": above the GPU's idle draw, at most its board limit).
 * $.energy is read before the fleet, so a pool's region resolves. */
#include "scenint.h"
#include "../cluster/power.h"

#include <stdio.h>
#include <string.h>

/* The keys of a region, $.energy's own and each of $.energy.regions'. */
#define HOURLY(n, h, u, d) \
    { .name = (n), .type = GS_KT_NUM | GS_KT_ARR, .items = GS_KT_NUM, \
      .lo = 0, .hi = (h), .min_items = 1, .max_items = GS_ENERGY_HOURS, \
      .unit = (u), .desc = (d) }

static const struct gs_kt_key k_region_common[] = {
    GS_K_NUM("pue", 1, 10, 0, NULL, "power usage effectiveness: facility "
             "energy over IT energy (default 1)"),
    HOURLY("price_usd_per_kwh", 1e4, "$/kWh", "electricity tariff: a "
           "number, or one value an hour repeating (default 0)"),
    HOURLY("carbon_g_per_kwh", 1e5, "gCO2e/kWh", "grid carbon intensity: "
           "a number, or one value an hour repeating (default 0)"),
    GS_K_END
};

static const struct gs_kt_key k_region[] = {
    GS_K_STR("name", GS_NAME - 1, GS_KF_REQ, "the region's name, which "
             "pools give as \"region\""),
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_energy_region = {
    .id = "energy_region", .desc = "a region's PUE, tariff and carbon "
    "intensity (what it omits, $.energy's own)", .keys = k_region,
    .more = k_region_common
};

static const struct gs_kt_key k_energy[] = {
    GS_K_NUM("start_hour", 0, 23.999999, 0, "h", "the hour of day the run "
             "starts at, for the hourly series (default 0)"),
    GS_K_NUM("host_idle_share", 0, 1, 0, NULL, "a node's host idle power "
             "as a share of its busy power, for every pool that gives no "
             "host_idle_w (default 0.40, an assumption: docs/energy.md)"),
    { .name = "regions", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .obj = &gs_sc_t_energy_region, .min_items = 1,
      .max_items = GS_ENERGY_REGIONS - 1, .desc = "further regions" },
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_energy = {
    .id = "energy", .desc = "PUE, tariff and carbon intensity (region "
    "\"default\"), and further regions (docs/energy.md)",
    .keys = k_region_common, .more = k_energy
};

/* o[key]: a number or an array of 1 to GS_ENERGY_HOURS numbers, each in
 * [0, the entry's hi]; absent: *h unchanged. */
static int hourly(struct gs_sc *c, const cJSON *o, const char *p,
                  const char *key, struct gs_hourly *h)
{
    const struct gs_kt_key *k = gs_kt_find(&gs_sc_t_energy_region, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    GS_JSON_PATH(q);
    gs_json_path_key(&q, p, key);
    if (v == NULL)
        return 0;
    if (cJSON_IsNumber(v)) {
        if (!(v->valuedouble >= 0 && v->valuedouble <= k->hi))
            return gs_sc_err(c, q, "expected a number from 0 to %g", k->hi);
        h->n = 1;
        h->v[0] = v->valuedouble;
        return 0;
    }
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    if (n < 1 || n > GS_ENERGY_HOURS)
        return gs_sc_err(c, q, "expected a number, or an array of 1 to %d "
                         "numbers (one an hour, repeating: 24 a day, 168 a "
                         "week)", GS_ENERGY_HOURS);
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0 &&
                                    e->valuedouble <= k->hi))
            return gs_sc_err(c, q, "item %d: expected a number from 0 to %g",
                             i, k->hi);
        h->v[i] = e->valuedouble;
    }
    h->n = n;
    return 0;
}

static int region_keys(struct gs_sc *c, const cJSON *o, const char *p,
                       const struct gs_kt_obj *t, struct gs_energy_region *r)
{
    int rc;
    if ((rc = gs_sc_num(c, o, p, t, "pue", &r->pue)) < 0 ||
        (rc = hourly(c, o, p, "price_usd_per_kwh", &r->price)) < 0 ||
        (rc = hourly(c, o, p, "carbon_g_per_kwh", &r->carbon)) < 0)
        return rc;
    return 0;
}

/* $.energy.regions[] after region 0. */
static int parse_regions(struct gs_sc *c, const cJSON *a)
{
    struct gs_energycfg *e = &c->s->energy;
    const struct gs_kt_obj *t = &gs_sc_t_energy_region;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
        cJSON_GetArraySize(a) >= GS_ENERGY_REGIONS)
        return gs_sc_err(c, "$.energy.regions", "expected an array of 1 to "
                         "%d regions", GS_ENERGY_REGIONS - 1);
    int i = 0, rc;
    for (const cJSON *ro = a->child; ro; ro = ro->next, i++) {
        GS_JSON_PATH(p);
        gs_json_path_at(&p, "$.energy.regions", i);
        struct gs_energy_region *r = &e->region[e->nregions];
        *r = e->region[0];
        if ((rc = gs_sc_keys(c, ro, p, t)) < 0 ||
            (rc = gs_sc_str(c, ro, p, t, "name", r->name,
                            sizeof r->name)) < 0 ||
            (rc = region_keys(c, ro, p, t, r)) < 0)
            return rc;
        for (int k = 0; k < e->nregions; k++)
            if (strcmp(e->region[k].name, r->name) == 0)
                return gs_sc_err(c, p, "duplicate region name '%s'%s",
                                 r->name, k == 0 ? " (\"default\" is "
                                 "$.energy's own)" : "");
        e->nregions++;
    }
    return 0;
}

int gs_sc_parse_energy(struct gs_sc *c, const cJSON *root)
{
    struct gs_energycfg *e = &c->s->energy;
    const struct gs_kt_obj *t = &gs_sc_t_energy;
    memset(e, 0, sizeof *e);
    e->nregions = 1;
    struct gs_energy_region *r0 = &e->region[0];
    snprintf(r0->name, sizeof r0->name, "default");
    r0->pue = 1;
    r0->price.n = r0->carbon.n = 1;
    e->host_idle_share = -1;
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "energy");
    if (o == NULL)
        return 0;
    int rc;
    if ((rc = gs_sc_keys(c, o, "$.energy", t)) < 0 ||
        (rc = region_keys(c, o, "$.energy", t, r0)) < 0 ||
        (rc = gs_sc_num(c, o, "$.energy", t, "start_hour",
                        &e->start_hour)) < 0 ||
        (rc = gs_sc_num(c, o, "$.energy", t, "host_idle_share",
                        &e->host_idle_share)) < 0)
        return rc;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "regions");
    return a ? parse_regions(c, a) : 0;
}

/* A pool's host_idle_w and host_busy_w: each alone takes the other's
 * default (power.h; idle as $.energy.host_idle_share of busy, when
 * given), and idle may not exceed busy. */
static int pool_host(struct gs_sc *c, const cJSON *o, const char *p,
                     const struct gs_kt_obj *t, struct gs_pool_spec *ps)
{
    int rc;
    double idle = -1, busy = -1, share = c->s->energy.host_idle_share;
    if ((rc = gs_sc_num(c, o, p, t, "host_idle_w", &idle)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "host_busy_w", &busy)) < 0)
        return rc;
    if (idle < 0 && busy < 0 && share < 0)
        return 0;
    struct gs_host_power d = gs_host_power_default(
        c->s->cat.m[ps->model].name, ps->gpn);
    ps->host_given = (idle >= 0) | (busy >= 0) << 1 | (share >= 0) << 2;
    ps->host_busy_w = busy >= 0 ? busy : d.busy_w;
    ps->host_idle_w = idle >= 0 ? idle
                                : ps->host_busy_w * (share >= 0
                                                     ? share
                                                     : GS_HOST_IDLE_SHARE);
    if (ps->host_idle_w > ps->host_busy_w) {
        GS_JSON_PATH(q);
        gs_json_path_key(&q, p, idle >= 0 ? "host_idle_w" : "host_busy_w");
        return gs_sc_err(c, q, "a node's host idle power (%g W) exceeds its "
                         "busy power (%g W)", ps->host_idle_w,
                         ps->host_busy_w);
    }
    return 0;
}

int gs_sc_pool_energy(struct gs_sc *c, const cJSON *o, const char *p,
                      const struct gs_kt_obj *t, struct gs_pool_spec *ps)
{
    char name[GS_NAME] = "";
    GS_JSON_PATH(q);
    int rc;
    if ((rc = gs_sc_str(c, o, p, t, "region", name, sizeof name)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "power_cap_w", &ps->power_cap_w)) < 0 ||
        (rc = pool_host(c, o, p, t, ps)) < 0)
        return rc;
    const struct gs_energycfg *e = &c->s->energy;
    if (name[0]) {
        ps->region = -1;
        for (int k = 0; k < e->nregions; k++)
            if (strcmp(e->region[k].name, name) == 0)
                ps->region = k;
        if (ps->region < 0) {
            gs_json_path_key(&q, p, "region");
            return gs_sc_err(c, q, "unknown region '%s' (declare it in "
                             "$.energy.regions)", name);
        }
    }
    if (ps->power_cap_w > 0) {
        const struct gs_gpu_model *m = &c->s->cat.m[ps->model];
        double idle = m->power_w * gs_power_default.idle;
        gs_json_path_key(&q, p, "power_cap_w");
        if (!(ps->power_cap_w > idle && ps->power_cap_w <= m->power_w))
            return gs_sc_err(c, q, "%g W is outside what %s allows: above "
                             "its idle power (%g W) and at most its board "
                             "limit (%g W)", ps->power_cap_w, m->name, idle,
                             m->power_w);
    }
    return 0;
}
