/* plugin.h -- scheduling policies loaded from shared objects (--policy-lib).
 *
 * A plug-in is a shared object that exports one symbol,
 *     const struct gs_policy_ops gs_policy_plugin = { .abi = GS_POLICY_ABI,
 *                                                     .name = ..., ... };
 * built against this gpusim's policies/policy.h and linked against nothing
 * of gpusim: the gs_sim_* calls it makes resolve to the gpusim executable,
 * which is linked with -rdynamic for that.  policies/examples/ holds one,
 * and docs/policies.md says how to build it.
 *
 * Checks, in order, each a clear error (exit status 2 at the CLI): the file
 * loads; it exports gs_policy_plugin; its abi -- the struct's first member,
 * so it can be read whatever the rest of the layout -- equals GS_POLICY_ABI;
 * it has a name that no built-in policy has, and a schedule hook. */
#ifndef GS_PLUGIN_H
#define GS_PLUGIN_H

#include "../base/err.h"
#include "../../policies/policy.h"

#define GS_PLUGIN_SYMBOL "gs_policy_plugin"

struct gs_plugin;

/* Load path.  0 with *out (free with gs_plugin_close), or a negative code
 * with d filled: GS_EIO (cannot load), GS_ENOTFOUND (no symbol), GS_EABI
 * (version mismatch), GS_EINVAL (incomplete or clashing policy). */
int gs_plugin_open(const char *path, struct gs_plugin **out,
                   struct gs_diag *d);
/* The policy it exports (valid until gs_plugin_close). */
const struct gs_policy_ops *gs_plugin_policy(const struct gs_plugin *p);
void gs_plugin_close(struct gs_plugin *p);

#endif
