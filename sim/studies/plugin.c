/* plugin.c -- dlopen a user's policy and check it (see plugin.h).
 *
 * The object is opened RTLD_NOW | RTLD_LOCAL: every symbol it needs must
 * resolve at load time (a plug-in calling a gs_sim_* function this gpusim
 * does not have is refused now, not at its first call), and its own symbols
 * stay out of the global namespace, so two plug-ins never collide. */
#include "plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gs_plugin {
    void *handle;
    const struct gs_policy_ops *ops;
};

int gs_plugin_open(const char *path, struct gs_plugin **out,
                   struct gs_diag *d)
{
    *out = NULL;
    /* dlopen searches the library path for a bare name; a user means the
     * file they named. */
    char full[1100];
    if (strchr(path, '/') == NULL)
        snprintf(full, sizeof full, "./%s", path);
    else
        snprintf(full, sizeof full, "%s", path);
    void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        return gs_diag_set(d, GS_EIO, path, "cannot load the policy "
                           "plug-in: %s", e ? e : "unknown error");
    }
    dlerror();
    const struct gs_policy_ops *ops = dlsym(h, GS_PLUGIN_SYMBOL);
    int rc = 0;
    if (ops == NULL) {
        rc = gs_diag_set(d, GS_ENOTFOUND, path, "the plug-in does not "
                         "export 'const struct gs_policy_ops %s'",
                         GS_PLUGIN_SYMBOL);
    } else if (ops->abi != GS_POLICY_ABI) {
        rc = gs_diag_set(d, GS_EABI, path, "the plug-in was built for policy "
                         "ABI %d, but this gpusim has ABI %d; rebuild it "
                         "against this gpusim's policies/policy.h", ops->abi,
                         GS_POLICY_ABI);
    } else if (ops->name == NULL || ops->name[0] == '\0' ||
               ops->schedule == NULL) {
        rc = gs_diag_set(d, GS_EINVAL, path, "the plug-in's policy needs a "
                         "name and a schedule hook");
    } else if (gs_policy_find(ops->name) != NULL) {
        rc = gs_diag_set(d, GS_EINVAL, path, "a built-in policy is already "
                         "called '%s'; give the plug-in another name",
                         ops->name);
    }
    struct gs_plugin *p = rc == 0 ? malloc(sizeof *p) : NULL;
    if (rc == 0 && p == NULL)
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    if (rc < 0) {
        dlclose(h);
        return rc;
    }
    p->handle = h;
    p->ops = ops;
    *out = p;
    return 0;
}

const struct gs_policy_ops *gs_plugin_policy(const struct gs_plugin *p)
{
    return p->ops;
}

void gs_plugin_close(struct gs_plugin *p)
{
    if (p == NULL)
        return;
    dlclose(p->handle);
    free(p);
}
