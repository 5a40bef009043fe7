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
 * starve under load, which is what the aging of `hps` is for.
 *
 * Its work is counted by the core (policy_work, sim/core/look.h): each
 * pending job it reads through gs_sim_pending_head/_next, each item it
 * reads back from its counted vector (gs_lvec_at), and each placement.  A
 * plug-in keeps the jobs it looks at in look.h's containers, not in plain
 * arrays, so that the count stays honest. */
#include "../policy.h"
#include "../../sim/sim.h"

#include <stdlib.h>

#ifndef SJF_ABI
#define SJF_ABI GS_POLICY_ABI
#endif

struct item {
    struct gs_job *j;
    gs_time est;
};

struct sjf {
    long depth;
    struct gs_lvec v;           /* a pass's items (struct item) */
};

static int sjf_init(struct gs_sim *sim, struct gs_params *p, void **state,
                    struct gs_diag *d)
{
    struct sjf *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->depth = 512;
    int rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d);
    if (rc < 0) {
        free(s);
        return rc;
    }
    gs_lvec_init(&s->v, sim, sizeof(struct item));
    *state = s;
    return 0;
}

static void sjf_free(void *state)
{
    struct sjf *s = state;
    gs_lvec_free(&s->v);
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
    gs_lvec_setn(&s->v, n);
    long k = 0;
    for (struct gs_job *j = gs_sim_pending_head(sim); j && k < n;
         j = k < n ? gs_sim_pending_next(sim, j) : NULL)
        *(struct item *)gs_lvec_upd(&s->v, k++) =
            (struct item){ j, gs_sim_estimate(sim, j) };
    qsort(s->v.a, (size_t)k, sizeof(struct item), by_est);
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (long i = 0; i < k && f->used_milli < f->gpus_up * 1000; i++)
        gs_sim_try_start(sim, ((struct item *)gs_lvec_at(&s->v, i))->j,
                         NULL, 0);
}

const struct gs_policy_ops gs_policy_plugin = {
    .abi = SJF_ABI,
    .name = "sjf",
    .summary = "example plug-in: shortest estimated job first",
    .init = sjf_init,
    .free = sjf_free,
    .schedule = sjf_schedule,
};
