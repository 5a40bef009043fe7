/* scenint.h -- what the scenario parser's files share (not a public header).
 *
 * The parser is split by section: scenario.c reads the top level and the
 * files (gs_scenario_parse, gs_scenario_load, gs_genspec_load) and calls
 * scenario_fleet.c (GPU models, pools, sharing, node lists, tiers,
 * tenants, partitions, topology), scenario_cloud.c (prices, billing,
 * spot, failures, autoscaling, reaping), scenario_workload.c (policies,
 * the trace, the generator and its distributions) and scenario_energy.c
 * ($.energy and a pool's region and power cap); the models' own sections
 * (the inference model's $.services: inference/svcparse.c) through their
 * hooks (io/scsection.h, gs_builtin_sections in setup.h).  All of them
 * use io/scparse.c (messages, the getters, GPU names, prices, host
 * resources, paths, distributions), which uses none.  The calls go one
 * way: scenario.c -> sections -> scparse.c, and scenario_fleet.c ->
 * scenario_cloud.c and scenario_energy.c (a pool's cloud and energy
 * keys).  Each section's key tables (keytab.h) sit beside the code that
 * reads them; gs_scenario_schema writes them all as one JSON Schema. */
#ifndef GS_SCENINT_H
#define GS_SCENINT_H

#include "../io/scparse.h"
#include "scenario.h"

/* A seed: read as a number (up to 2^53, where doubles stop being whole),
 * then refused unless whole ("expected a whole number"). */
#define SEED_SCHEMA "\"type\": \"integer\", \"minimum\": 0, " \
                    "\"maximum\": 9007199254740991"

/* The sections' tables, for the root's and for gs_scenario_schema. */
extern const struct gs_kt_obj gs_sc_t_gpu_model, gs_sc_t_pool,
    gs_sc_t_tiers, gs_sc_t_tenant, gs_sc_t_partition, gs_sc_t_topology,
    gs_sc_t_prices, gs_sc_t_billing, gs_sc_t_failures, gs_sc_t_spot,
    gs_sc_t_reaper, gs_sc_t_autoscaler, gs_sc_t_autoscale,
    gs_sc_t_spot_globals, gs_sc_t_capacity_block, gs_sc_t_workload,
    gs_sc_t_policy, gs_sc_t_placement, gs_sc_t_generate, gs_sc_t_genspec,
    gs_sc_t_energy, gs_sc_t_energy_region;
/* Keys shared by several tables. */
extern const struct gs_kt_key gs_sc_k_pool_cloud[];    /* a pool's cloud keys */

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

#endif
