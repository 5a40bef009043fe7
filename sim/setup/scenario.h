/* scenario.h -- a validated scenario: fleet, tiers, tenants, policy, workload.
 *
 * The parser (scenario.c and its sections, scenint.h; the models' own
 * sections through io/scsection.h) is, with jsonio.c, the only code that
 * sees cJSON.  It parses a JSON file (or the built-in
 * quickstart text), checks every key against its object's key table
 * (keytab.h) -- an unknown key is an error, not silently ignored -- and
 * reports the first problem with the file, the line and column for
 * malformed JSON, and the JSON path ($.fleet[2].gpus_per_node) for a wrong
 * value.  What comes out is plain C data the rest of gpusim reads (its
 * types: spec/scenario.h). */
#ifndef GS_SCENARIO_H
#define GS_SCENARIO_H

#include "../spec/scenario.h"
#include "../io/scsection.h"
#include "../inference/svccfg.h"     /* sc->svcs, for the tools */
#include "../base/err.h"
#include "../io/gen.h"
#include "../core/job.h"

#include <stdint.h>
#include <stdio.h>

/* Parse and validate the scenario in file.  On success *out owns a new
 * scenario (free with gs_scenario_free) and 0 is returned; otherwise d says
 * where and what, and a negative code is returned. */
int gs_scenario_load(const char *file, struct gs_scenario **out,
                     struct gs_diag *d);
/* The same from JSON text; name is used in messages in place of a file. */
int gs_scenario_parse(const char *text, const char *name, const char *dir,
                      struct gs_scenario **out, struct gs_diag *d);
void gs_scenario_free(struct gs_scenario *s);

/* Read a generator spec file for `gpusim trace gen`: an object with the
 * keys of a scenario's workload.generate plus optional "seed",
 * "gpu_models" (added to cat) and "description"; or a whole scenario whose
 * workload is generated (its generator, catalog and seed are taken).  cat
 * comes in with the models to start from and leaves with the spec's.  0 or
 * a negative code with d filled (file:line:col, or the JSON path).  spec
 * is overwritten; on success its classes' tenant arrays are the caller's
 * (gs_genspec_release, io/gen.h, or gs_scenario_free for a scenario's). */
int gs_genspec_load(const char *file, struct gs_catalog *cat,
                    struct gs_genspec *spec, uint64_t *seed,
                    struct gs_diag *d);

/* Write the JSON Schema (draft 2020-12) of scenario files to fp, made
 * from the parser's key tables (keytab.h), the models' sections
 * (gs_builtin_sections) and the tools' sections (io/scsection.h: a
 * NULL-terminated list; each key must be one the root lists): the names of
 * the policies, placers and trace formats come from the caller
 * (NULL-terminated lists; those registries sit above this layer).  0 or
 * GS_EIO. */
#define GS_SCENARIO_SCHEMA_ID \
    "https://gpusim.invalid/scenarios/gpusim.schema.json"
int gs_scenario_schema(FILE *fp, const char *const *policies,
                       const char *const *placers,
                       const char *const *trace_formats,
                       const struct gs_sc_section *const *sections);

/* The built-in quickstart scenario, JSON text (static storage). */
const char *gs_scenario_quickstart(void);

/* 0 when a simulation of s fits the memory budget (base/membudget.h: its
 * nodes, GPUs and generated jobs), else GS_EINVAL with d saying how much
 * it would need.  gs_scenario_parse checks it (with the whole budget) and
 * gs_sim_new again (with a worker's share), before allocating. */
int gs_scenario_mem_check(const struct gs_scenario *s, struct gs_diag *d);

/* Largest pool capacity in GPUs (whole pool), for validating demands. */
int gs_scenario_max_gpus(const struct gs_scenario *s);

#endif
