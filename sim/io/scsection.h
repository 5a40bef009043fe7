/* scsection.h -- a top-level section of the scenario that its owner reads:
 * a model's (the inference model's $.services) or a tool's ($.plan).
 *
 * The parser (setup/scenario.h) lists each section's key in the root's
 * key table, so every command accepts a scenario that has it, and calls
 * the owner's hooks; it names neither the model nor the tool.  A model's
 * section is read with the parse (parse: after the fleet, the tiers, the
 * tenants and the policy, before the workload, which a scenario of
 * services alone may lack), is freed with the scenario (free) and gives
 * the schema its names (names: the routers, the LLMs); the models'
 * sections are setup's table (gs_builtin_sections, setup/setup.h).  A
 * tool's section is left to the tool, which reads it itself (planjson.h),
 * and hands in its key table, for the schema, and its check, for
 * `gpusim scenario --check` (0, or a negative code with d filled; nothing
 * when s lacks the key). */
#ifndef GS_SCSECTION_H
#define GS_SCSECTION_H

#include "../base/err.h"

struct gs_sc;
struct gs_json;
struct gs_kt_obj;
struct gs_kt_names;
struct gs_scenario;

struct gs_sc_section {
    const char *key;
    const struct gs_kt_obj *table;  /* the value's table (an array's items') */
    int max_items;                  /* an array's most items, 0 no limit */
    /* a model's */
    int (*parse)(struct gs_sc *c, const struct gs_json *v);
    void (*free)(struct gs_scenario *s);
    void (*names)(struct gs_kt_names *names);
    /* a tool's */
    int (*check)(const struct gs_scenario *s, struct gs_diag *d);
};

#endif
