/* setup.h -- a run put together: the built-in tables handed to the core.
 *
 * The core (sim/core/) names no model, policy, placer or trace reader: they
 * all sit in layers above it (docs/layout.md).  This layer, just under the
 * tools, is where they meet.  gs_builtin is the one set of tables -- the
 * models in the order their hooks are called, the policies, the placers and
 * the workload reader (source.h, workshape.h) -- and gs_sim_new builds
 * a simulation on it.  Adding a built-in model is its files and one line in
 * gs_builtin_models[] (setup.c); a policy or placer joins in
 * policies/registry.c, whose tables are the ones passed here. */
#ifndef GS_SETUP_H
#define GS_SETUP_H

#include "../core/sim.h"
#include "../core/model.h"
#include "builtin.h"

/* The built-in models, in call order, NULL-terminated. */
extern const struct gs_model_ops *const gs_builtin_models[];
/* The built-in tables, as the core takes them (sim.h: gs_sim_env). */
extern const struct gs_sim_env gs_builtin;

/* Build a simulation of sc (which must outlive it) with the built-in
 * tables, once sc fits the memory budget (scenario.h:
 * gs_scenario_mem_check).  0 or a negative code with d filled (too big,
 * unknown policy, bad parameters, unreadable trace). */
int gs_sim_new(const struct gs_scenario *sc, const struct gs_sim_opts *o,
               struct gs_sim **out, struct gs_diag *d);

#endif
