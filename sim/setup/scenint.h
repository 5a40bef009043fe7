/* scenint.h -- what the scenario parser's files share (not a public header).
 *
 * The parser is split by section: scenario.c reads the top level and the
 * files (gs_scenario_parse, gs_scenario_load, gs_genspec_load) and calls
 * scenario_fleet.c (GPU models, pools, sharing, node lists, tiers,
 * tenants, partitions, topology), scenario_cloud.c (prices, billing,
 * spot, failures, autoscaling, reaping), scenario_workload.c (policies,
 * the trace, the generator and its distributions) and scenario_svc.c
 * (inference services), scenario_energy.c ($.energy and a pool's
 * region and power cap); all of them use scenario_base.c (messages, GPU
 * names, prices, host resources, paths, distributions), which uses none.
 * The calls go one way: scenario.c -> sections -> scenario_base.c, and
 * scenario_fleet.c -> scenario_cloud.c and scenario_energy.c (a pool's cloud
 * and energy keys).  Each
 * section's key tables (keytab.h) sit beside
 * the code that reads them; gs_scenario_schema writes them all as one
 * JSON Schema.  Only these files see cJSON (with jsonio.c). */
#ifndef GS_SCENINT_H
#define GS_SCENINT_H

#include "../io/keytab.h"
#include "scenario.h"

#include <cjson/cJSON.h>

/* The parse in progress. */
struct gs_sc {
    const char *file;
    struct gs_diag *d;
    struct gs_scenario *s;
    const cJSON *root;
    int *first;                 /* $.fleet[i] made pools first[i] ..
                                   first[i+1]-1 */
};

/* A cJSON node as jsonio.h's opaque struct gs_json. */
#define GJ(o) ((const struct gs_json *)(const void *)(o))

static inline struct gs_jin gs_sc_jin(const struct gs_sc *c)
{
    return (struct gs_jin){ c->file, c->d };
}

/* "FILE: PATH: WHAT" into c->d; returns GS_EINVAL. */
int gs_sc_err(struct gs_sc *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* GS_ENOMEM with "out of memory" in c->d. */
int gs_sc_oom(struct gs_sc *c);

/* The table-driven getters (keytab.h) on a cJSON node. */
static inline int gs_sc_keys(struct gs_sc *c, const cJSON *o, const char *p,
                             const struct gs_kt_obj *t)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_keys(&in, GJ(o), p, t);
}

static inline int gs_sc_keys_only(struct gs_sc *c, const cJSON *o,
                                  const char *p, const struct gs_kt_obj *t,
                                  const char *only)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_keys_only(&in, GJ(o), p, t, only);
}

static inline int gs_sc_need(struct gs_sc *c, const cJSON *o, const char *p,
                             const char *key)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_need(&in, GJ(o), p, key);
}

static inline int gs_sc_num(struct gs_sc *c, const cJSON *o, const char *p,
                            const struct gs_kt_obj *t, const char *key,
                            double *out)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_num(&in, GJ(o), p, t, key, out);
}

static inline int gs_sc_int(struct gs_sc *c, const cJSON *o, const char *p,
                            const struct gs_kt_obj *t, const char *key,
                            long *out)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_int(&in, GJ(o), p, t, key, out);
}

static inline int gs_sc_str(struct gs_sc *c, const cJSON *o, const char *p,
                            const struct gs_kt_obj *t, const char *key,
                            char *out, size_t n)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_str(&in, GJ(o), p, t, key, out, n);
}

static inline int gs_sc_bool(struct gs_sc *c, const cJSON *o, const char *p,
                             const struct gs_kt_obj *t, const char *key,
                             int *out)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_bool(&in, GJ(o), p, t, key, out);
}

static inline int gs_sc_time(struct gs_sc *c, const cJSON *o, const char *p,
                             const struct gs_kt_obj *t, const char *key,
                             gs_time *out)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_time(&in, GJ(o), p, t, key, out);
}

/* "path.key" into buf. */
static inline void gs_sc_sub(char *buf, size_t n, const char *path,
                             const char *key)
{
    gs_json_path(buf, n, path, key);
}

/* Key-table entry helpers (designated initializers, in the tables). */
#define GS_K_STR(n, len, fl, d) \
    { .name = (n), .type = GS_KT_STR, .flags = (fl), .maxlen = (len), \
      .desc = (d) }
#define GS_K_NUM(n, l, h, fl, u, d) \
    { .name = (n), .type = GS_KT_NUM, .flags = (fl), .lo = (l), .hi = (h), \
      .unit = (u), .desc = (d) }
#define GS_K_INT(n, l, h, fl, u, d) \
    { .name = (n), .type = GS_KT_INT, .flags = (fl), .lo = (l), .hi = (h), \
      .unit = (u), .desc = (d) }
#define GS_K_BOOL(n, d) { .name = (n), .type = GS_KT_BOOL, .desc = (d) }
#define GS_K_DUR(n, fl, d) \
    { .name = (n), .type = GS_KT_DUR, .flags = (fl), .unit = "s", \
      .desc = (d) }
#define GS_K_OBJ(n, o, fl, d) \
    { .name = (n), .type = GS_KT_OBJ, .flags = (fl), .obj = (o), .desc = (d) }
#define GS_K_OBJS(n, o, fl, d) \
    { .name = (n), .type = GS_KT_ARR, .items = GS_KT_OBJ, .flags = (fl), \
      .obj = (o), .desc = (d) }
#define GS_K_END { .name = NULL }

/* A seed: read as a number (up to 2^53, where doubles stop being whole),
 * then refused unless whole ("expected a whole number"). */
#define SEED_SCHEMA "\"type\": \"integer\", \"minimum\": 0, " \
                    "\"maximum\": 9007199254740991"

/* The sections' tables, for the root's and for gs_scenario_schema. */
extern const struct gs_kt_obj gs_sc_t_gpu_model, gs_sc_t_pool,
    gs_sc_t_tiers, gs_sc_t_tenant, gs_sc_t_partition, gs_sc_t_topology,
    gs_sc_t_prices, gs_sc_t_billing, gs_sc_t_failures, gs_sc_t_spot,
    gs_sc_t_reaper, gs_sc_t_autoscaler, gs_sc_t_autoscale,
    gs_sc_t_spot_globals, gs_sc_t_capacity_block, gs_sc_t_workload, gs_sc_t_policy,
    gs_sc_t_placement, gs_sc_t_service, gs_sc_t_dist, gs_sc_t_counts,
    gs_sc_t_generate, gs_sc_t_genspec, gs_sc_t_energy,
    gs_sc_t_energy_region;
/* Keys shared by several tables. */
extern const struct gs_kt_key gs_sc_k_host[];          /* tiers, classes */
extern const struct gs_kt_key gs_sc_k_pool_cloud[];    /* a pool's cloud keys */
extern const char *const gs_sc_tier_names[];
extern const char *const gs_sc_market_names[];

/* --- scenario_base.c ----------------------------------------------------- */
int gs_sc_model_ref(struct gs_sc *c, const cJSON *o, const char *path,
                    const char *key, int req, int *out);
double gs_sc_default_gpu_price(const char *model);
double gs_sc_default_node_price(const struct gs_scenario *s,
                                const struct gs_pool_spec *ps);
int gs_sc_host_keys(struct gs_sc *c, const cJSON *o, const char *p,
                    int32_t *cpu_gpu, int32_t *mem_gpu, int32_t *cpu,
                    int32_t *mem);
/* A path relative to the scenario's folder, malloc'ed into *out (NULL
 * when the key is absent or empty). */
int gs_sc_file_path(struct gs_sc *c, const cJSON *o, const char *path,
                    const char *key, char **out);
int gs_sc_parse_dist(struct gs_sc *c, const cJSON *o, const char *path,
                     struct gs_distspec *d);
/* A duration or a distribution of durations at o[key]; absent: unchanged. */
int gs_sc_dist_or_time(struct gs_sc *c, const cJSON *o, const char *path,
                       const char *key, struct gs_distspec *out);
/* The whole of file as a string (and its folder, when dir is not NULL). */
int gs_sc_read_text(const char *file, char **text, char **dir,
                    struct gs_diag *d);

/* --- scenario_fleet.c ---------------------------------------------------- */
int gs_sc_parse_models(struct gs_sc *c, const cJSON *a);
int gs_sc_parse_fleet(struct gs_sc *c, const cJSON *a);
void gs_sc_tier_defaults(struct gs_scenario *s);
int gs_sc_parse_topology(struct gs_sc *c, const cJSON *root);
int gs_sc_parse_tiers(struct gs_sc *c, const cJSON *o);
int gs_sc_parse_tenants(struct gs_sc *c, const cJSON *a);
int gs_sc_parse_partitions(struct gs_sc *c, const cJSON *a);

/* --- scenario_cloud.c ---------------------------------------------------- */
int gs_sc_parse_cloud_globals(struct gs_sc *c, const cJSON *root);
int gs_sc_parse_fleet_cloud(struct gs_sc *c, const cJSON *a);

/* --- scenario_energy.c --------------------------------------------------- */
/* $.energy (before the fleet, so a pool's region resolves). */
int gs_sc_parse_energy(struct gs_sc *c, const cJSON *root);
/* A pool's "region" and "power_cap_w" (its model already read), by the
 * pool's table t (scenario_fleet.c's, passed down: the calls go one way). */
int gs_sc_pool_energy(struct gs_sc *c, const cJSON *o, const char *p,
                      const struct gs_kt_obj *t, struct gs_pool_spec *ps);

/* --- scenario_workload.c ------------------------------------------------- */
int gs_sc_parse_plugin(struct gs_sc *c, const cJSON *v, const char *path,
                       char *name, size_t n, struct gs_params *params);
int gs_sc_parse_generate(struct gs_sc *c, const cJSON *o, const char *p,
                         int standalone);
int gs_sc_parse_workload(struct gs_sc *c, const cJSON *o);

/* --- scenario_svc.c ------------------------------------------------------ */
int gs_sc_parse_services(struct gs_sc *c, const cJSON *a);

#endif
