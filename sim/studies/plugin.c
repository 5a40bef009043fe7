/* plugin.c -- dlopen a user's policy and check it (see plugin.h).
 *
 * The object is opened RTLD_NOW | RTLD_LOCAL: every symbol it needs must
 * resolve at load time (a plug-in calling a gs_sim_* function this gpusim
 * does not have is refused now, not at its first call), and its own symbols
 * stay out of the global namespace, so two plug-ins never collide.
 *
 * A plug-in is trusted code, like a kernel module (docs/reliability.md):
 * gpusim does not sandbox it, but keeps its failures from looking like
 * gpusim's.  Before it is loaded here it is probed in a child process,
 * which loads it (running its constructors) and checks its ABI: a plug-in
 * that crashes or hangs while loading is refused, naming it, and gpusim
 * itself never runs the code that crashed.  Its hooks later run in worker
 * processes (pool.h) for compare and the studies. */
#include "plugin.h"
#include "../base/cleanup.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long a plug-in may take to load in the probe. */
#define PROBE_MS 10000

/* Load full in a child and look at its ABI; 0 when the child came back
 * (whatever it found: the load in this process then says what), or a
 * negative code when it crashed or hung. */
/* The probe's exit status when the library loaded but is not a plug-in
 * of this ABI (the load here then says what); any other status but 0 is
 * a crash a handler turned into an exit (a sanitizer's exits 1). */
#define PROBE_OTHER 42

static int probe(const char *full, const char *path, struct gs_diag *d)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = gs_cleanup_fork();
    if (pid == 0) {
        void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
        const struct gs_policy_ops *ops = h ? dlsym(h, GS_PLUGIN_SYMBOL) : NULL;
        _exit(ops && ops->abi == GS_POLICY_ABI ? 0 : PROBE_OTHER);
    }
    if (pid < 0)
        return gs_diag_set(d, GS_EIO, path, "cannot start a process to "
                           "probe the plug-in: %s", strerror(errno));
    int st = 0, ms = 0;
    pid_t r;
    while ((r = waitpid(pid, &st, WNOHANG)) == 0 && ms < PROBE_MS) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        ms += 10;
    }
    if (r == 0) {
        pid_t p = pid;
        gs_cleanup_stop_pids(&p, 1, 0);
    }
    gs_cleanup_forget_pid(pid);
    if (r == 0)
        return gs_diag_set(d, GS_EIO, path, "the plug-in did not finish "
                           "loading within %d s (a constructor that hangs?); "
                           "not loaded", PROBE_MS / 1000);
    if (r > 0 && WIFSIGNALED(st))
        return gs_diag_set(d, GS_EIO, path, "the plug-in crashed while "
                           "loading (signal %d, %s: in its constructor or a "
                           "library it needs); not loaded", WTERMSIG(st),
                           strsignal(WTERMSIG(st)));
    if (r > 0 && WIFEXITED(st) && WEXITSTATUS(st) != 0 &&
        WEXITSTATUS(st) != PROBE_OTHER)
        return gs_diag_set(d, GS_EIO, path, "the plug-in crashed while "
                           "loading (its probe exited with status %d: a "
                           "constructor that exits, or a crash a handler "
                           "caught); not loaded", WEXITSTATUS(st));
    return 0;
}

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
    char *full = NULL;
    if (asprintf(&full, "%s%s", strchr(path, '/') ? "" : "./", path) < 0)
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    int prc = probe(full, path, d);
    if (prc < 0) {
        free(full);
        return prc;
    }
    void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    free(full);
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
