/* sjf.c -- an example policy plug-in: shortest estimated job first.
 *
 * Built outside libgpusim as a shared object (`make plugins` puts it in
 * build/rel/plugins/sjf.so) and loaded with
 *     gpusim run SCENARIO --policy-lib build/rel/plugins/sjf.so
 * It includes only gpusim's headers and links against nothing of gpusim:
 * the gs_sim_* functions it calls are found in the gpusim executable, which
 * exports them (-rdynamic).  The one symbol gpusim looks up is
 * gs_policy_plugin; its abi must be GS_POLICY_ABI of the gpusim that loads
 * it (the test suite builds this file a second time with -DSJF_ABI=999 to
 * check that a mismatch is refused).
 *
 * The policy: each pass, sort the pending jobs (the oldest `depth`, default
 * 512) by estimated runtime, shortest first, ties in arrival order, and
 * start every one that fits.  Small jobs see short waits; long ones can
 * starve under load, which is what the aging of `hps` is for. */
#include "../policy.h"
#include "../../sim/sim.h"

#include <stdlib.h>

#ifndef SJF_ABI
#define SJF_ABI GS_POLICY_ABI
#endif

struct sjf {
    long depth;
    struct item { struct gs_job *j; gs_time est; } *v;
    long cap;
};

static int sjf_init(struct gs_sim *sim, struct gs_params *p, void **state,
                    struct gs_diag *d)
{
    (void)sim;
    struct sjf *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->depth = 512;
    int rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d);
    if (rc < 0) {
        free(s);
        return rc;
    }
    *state = s;
    return 0;
}

static void sjf_free(void *state)
{
    struct sjf *s = state;
    free(s->v);
    free(s);
}

static int by_est(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    if (a->est != b->est)
        return a->est < b->est ? -1 : 1;
    if (a->j->s.arrival != b->j->s.arrival)
        return a->j->s.arrival < b->j->s.arrival ? -1 : 1;
    return a->j->rec < b->j->rec ? -1 : a->j->rec > b->j->rec;
}

static void sjf_schedule(void *state, struct gs_sim *sim)
{
    struct sjf *s = state;
    long n = gs_sim_npending(sim);
    if (n > s->depth)
        n = s->depth;
    if (n > s->cap) {
        struct item *v = realloc(s->v, (size_t)n * sizeof *v);
        if (v == NULL)
            return;             /* try again at the next pass */
        s->v = v;
        s->cap = n;
    }
    long k = 0;
    for (struct gs_job *j = gs_sim_pending_head(sim); j && k < n; j = j->next)
        s->v[k++] = (struct item){ j, gs_sim_estimate(sim, j) };
    qsort(s->v, (size_t)k, sizeof *s->v, by_est);
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (long i = 0; i < k && f->used_milli < f->gpus_up * 1000; i++)
        gs_sim_try_start(sim, s->v[i].j, NULL, 0);
}

const struct gs_policy_ops gs_policy_plugin = {
    .abi = SJF_ABI,
    .name = "sjf",
    .summary = "example plug-in: shortest estimated job first",
    .init = sjf_init,
    .free = sjf_free,
    .schedule = sjf_schedule,
};
