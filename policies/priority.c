/* priority.c -- highest priority first, optionally preempting lower ones.
 *
 * Pending jobs are kept sorted by (priority descending, arrival, arrival
 * sequence).  Each pass starts every job, in that order, that fits; with
 * strict = true it stops at the first that does not (no overtaking).
 *
 * With preempt = true, a job that does not fit may evict running jobs that
 * are preemptible and of strictly lower priority, the way the Kubernetes
 * scheduler does: for each node of a pool the job may use, the GPUs it could
 * reclaim are its fully free GPUs plus the whole GPUs held by such victims
 * confined to that node; the job picks the node needing the fewest reclaimed
 * GPUs, then evicts the lowest-priority, most recently started victims there
 * until it fits.  Only single-node whole-GPU jobs preempt; fractional and
 * multi-node jobs wait.  Victims lose work since their last checkpoint.
 *
 * Cost.  Without preemption, when a miss repeats (gs_sim_misses_repeat: a
 * deterministic placer, no sharing model), jobs are kept in groups of the
 * same priority, tier and need, each a heap by record index (arrival
 * order), and the groups in a heap by their first job.  Within a pass
 * capacity only shrinks, so once a group's first job does not fit -- or
 * wants more than is idle -- none of the group's later jobs would: the
 * pass takes groups' first jobs in queue order and sets a group aside at
 * its first miss.  It tries the same jobs in the same order as the walk
 * over the whole queue, but looks only at the jobs it starts plus one per
 * group.  With preemption, or a placer that draws on a miss, the sorted
 * array is walked as described above. */
#include "policy.h"
#include "jobgroup.h"
#include "../sim/sim.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct prio {
    int fast;                   /* grouped mode (see the top) */
    struct gs_jgroups gs;
    int *gh, ngh, capgh;        /* heap of groups by first job */
    int *aside, naside;         /* groups out for the rest of a pass */

    struct gs_job **q;
    long n, cap;
    int preempt, strict;
    int *reclaim;               /* per node, scratch */
    int nnodes;
    int in_pass;                /* schedule() is walking q */
    struct gs_job **late;       /* requeued during a pass, merged after */
    long nlate, caplate;
};

static int prio_init(struct gs_sim *sim, struct gs_params *p, void **state,
                     struct gs_diag *d)
{
    struct prio *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    int rc;
    if ((rc = gs_params_bool(p, "preempt", &s->preempt, d)) < 0 ||
        (rc = gs_params_bool(p, "strict", &s->strict, d)) < 0) {
        free(s);
        return rc;
    }
    s->nnodes = gs_sim_fleet(sim)->nnodes;
    s->reclaim = calloc((size_t)(s->nnodes + 1), sizeof *s->reclaim);
    if (s->reclaim == NULL) {
        free(s);
        return GS_ENOMEM;
    }
    s->fast = !s->preempt && gs_sim_misses_repeat(sim);
    gs_jgroups_init(&s->gs, 0);
    *state = s;
    return 0;
}

static void prio_free(void *state)
{
    struct prio *s = state;
    free(s->q);
    free(s->late);
    free(s->reclaim);
    gs_jgroups_free(&s->gs);
    free(s->gh);
    free(s->aside);
    free(s);
}

/* --- grouped mode ------------------------------------------------------- */

static int before(const struct gs_job *a, const struct gs_job *b);

static struct gs_job *ghead(const struct prio *s, int g)
{
    return gs_jgroup_head(&s->gs.g[g]);
}

/* Group a's first job goes before group b's. */
static int gbefore(const struct prio *s, int a, int b)
{
    return before(ghead(s, a), ghead(s, b));
}

static void gh_set(struct prio *s, int i, int g)
{
    s->gh[i] = g;
    s->gs.g[g].pos = i;
}

static void gh_up(struct prio *s, int i)
{
    int g = s->gh[i];
    while (i > 0 && gbefore(s, g, s->gh[(i - 1) / 2])) {
        gh_set(s, i, s->gh[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    gh_set(s, i, g);
}

static void gh_down(struct prio *s, int i)
{
    int g = s->gh[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= s->ngh)
            break;
        if (c + 1 < s->ngh && gbefore(s, s->gh[c + 1], s->gh[c]))
            c++;
        if (!gbefore(s, s->gh[c], g))
            break;
        gh_set(s, i, s->gh[c]);
        i = c;
    }
    gh_set(s, i, g);
}

/* Take the group at heap index i out of the heap. */
static void gh_out(struct prio *s, int i)
{
    s->gs.g[s->gh[i]].pos = -1;
    int last = s->gh[--s->ngh];
    if (i < s->ngh) {
        gh_set(s, i, last);
        gh_up(s, i);
        gh_down(s, s->gs.g[last].pos);
    }
}

/* Put group g where its first job says: in, out, or moved. */
static void gh_fix(struct prio *s, int g)
{
    int i = s->gs.g[g].pos;
    if (gs_jgroup_size(&s->gs.g[g]) == 0) {
        if (i >= 0)
            gh_out(s, i);
        return;
    }
    if (i < 0) {
        i = s->ngh++;
        gh_set(s, i, g);
    }
    gh_up(s, i);
    gh_down(s, s->gs.g[g].pos);
}

static void fast_arrive(struct prio *s, struct gs_job *j)
{
    int g = gs_jgroups_of(&s->gs, j);
    if (s->gs.n > s->capgh) {
        int cap = s->gs.cap;
        int *gh = realloc(s->gh, (size_t)cap * sizeof *gh);
        GS_OOM_IF(gh == NULL);
        s->gh = gh;
        int *as = realloc(s->aside, (size_t)cap * sizeof *as);
        GS_OOM_IF(as == NULL);
        s->aside = as;
        s->capgh = cap;
    }
    j->pslot = g;
    gs_jgroup_add(&s->gs, g, j);
    if (ghead(s, g) == j)
        gh_fix(s, g);
}

static void fast_schedule(struct prio *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    s->naside = 0;
    while (s->ngh > 0) {
        int g = s->gh[0];
        struct gs_job *j = ghead(s, g);
        int64_t idle = f->gpus_up * 1000 - f->used_milli;
        int64_t want = j->need.gpus > 0 ? 1000LL * j->need.gpus
                                        : j->need.milli;
        gs_sim_examine(sim, 1);
        if (want <= idle && gs_sim_try_start(sim, j, NULL, 0) == 0) {
            gs_jgroup_remove(&s->gs.g[g], j);
            gh_fix(s, g);
            continue;
        }
        if (s->strict)
            break;
        s->aside[s->naside++] = g;      /* out for the rest of the pass */
        gh_out(s, 0);
    }
    for (int i = 0; i < s->naside; i++)
        gh_fix(s, s->aside[i]);
}


/* a goes before b */
static int before(const struct gs_job *a, const struct gs_job *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->s.arrival != b->s.arrival)
        return a->s.arrival < b->s.arrival;
    return a->rec < b->rec;
}

static void prio_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    (void)sim;
    struct prio *s = state;
    if (s->fast) {
        fast_arrive(s, j);
        return;
    }
    if (s->in_pass) {
        if (s->nlate == s->caplate) {
            long cap = s->caplate ? s->caplate * 2 : 64;
            struct gs_job **l = realloc(s->late, (size_t)cap * sizeof *l);
            GS_OOM_IF(l == NULL);
            s->late = l;
            s->caplate = cap;
        }
        s->late[s->nlate++] = j;
        return;
    }
    if (s->n == s->cap) {
        long cap = s->cap ? s->cap * 2 : 256;
        struct gs_job **q = realloc(s->q, (size_t)cap * sizeof *q);
        GS_OOM_IF(q == NULL);
        s->q = q;
        s->cap = cap;
    }
    long lo = 0, hi = s->n;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (before(s->q[mid], j))
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&s->q[lo + 1], &s->q[lo], (size_t)(s->n - lo) * sizeof *s->q);
    s->q[lo] = j;
    s->n++;
}

/* Victim order: lower priority first, then the most recently started. */
static int victim_cmp(const void *x, const void *y)
{
    const struct gs_job *a = *(struct gs_job *const *)x;
    const struct gs_job *b = *(struct gs_job *const *)y;
    if (a->prio != b->prio)
        return a->prio < b->prio ? -1 : 1;
    if (a->started != b->started)
        return a->started > b->started ? -1 : 1;
    return a->rec < b->rec ? -1 : a->rec > b->rec;
}

static int is_victim(const struct gs_fleet *f, const struct gs_job *v,
                     const struct gs_job *j)
{
    return v->preemptible && v->prio < j->prio && v->alloc.n == 1 &&
           v->need.gpus > 0 && gs_fleet_pool_eligible(f, v->alloc.pool,
                                                      &j->need);
}

/* Try to make room for j by preemption.  0 if j started. */
static int make_room(struct prio *s, struct gs_sim *sim, struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (j->need.gpus == 0)
        return -1;
    long nrun;
    struct gs_job *const *run = gs_sim_running(sim, &nrun);
    gs_sim_examine(sim, nrun);
    for (long i = 0; i < nrun; i++)
        if (is_victim(f, run[i], j))
            s->reclaim[run[i]->alloc.one.node] += run[i]->need.gpus;
    int best = -1, best_need = 1 << 30;
    for (long i = 0; i < nrun; i++) {
        if (!is_victim(f, run[i], j))
            continue;
        int node = run[i]->alloc.one.node;
        const struct gs_node *nd = &f->nodes[node];
        if (j->need.gpus > f->pools[nd->pool].s.gpn)
            continue;
        int deficit = j->need.gpus - nd->nfull;
        if (deficit > 0 && nd->nfull + s->reclaim[node] >= j->need.gpus &&
            (deficit < best_need || (deficit == best_need && node < best))) {
            best = node;
            best_need = deficit;
        }
    }
    long nv = 0;
    struct gs_job **v = NULL;
    if (best >= 0) {
        v = malloc((size_t)nrun * sizeof *v);
        GS_OOM_IF(v == NULL);
        for (long i = 0; i < nrun; i++)
            if (is_victim(f, run[i], j) && run[i]->alloc.one.node == best)
                v[nv++] = run[i];
        qsort(v, (size_t)nv, sizeof *v, victim_cmp);
    }
    for (long i = 0; i < nrun; i++)
        if (run[i]->alloc.pool >= 0 && run[i]->alloc.n == 1)
            s->reclaim[run[i]->alloc.one.node] = 0;
    if (best < 0)
        return -1;
    const struct gs_node *nd = &f->nodes[best];
    struct gs_range r = { nd->pool, best - f->pools[nd->pool].node0,
                          best - f->pools[nd->pool].node0 + 1 };
    int rc = -1;
    for (long i = 0; i < nv && nd->nfull < j->need.gpus; i++)
        gs_sim_preempt(sim, v[i]);
    if (nd->nfull >= j->need.gpus)
        rc = gs_sim_try_start(sim, j, &r, 1);
    free(v);
    return rc;
}

static void prio_schedule(void *state, struct gs_sim *sim)
{
    struct prio *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    long w = 0, i;
    if (s->fast) {
        fast_schedule(s, sim);
        return;
    }
    /* Preemption requeues victims through arrive(); they wait in s->late
     * until the walk over s->q is done. */
    s->in_pass = 1;
    for (i = 0; i < s->n; i++) {
        struct gs_job *j = s->q[i];
        int started = 0;
        gs_sim_examine(sim, 1);
        int64_t idle = f->gpus_up * 1000 - f->used_milli;
        int64_t want = j->need.gpus > 0 ? 1000LL * j->need.gpus : j->need.milli;
        if (want <= idle && gs_sim_try_start(sim, j, NULL, 0) == 0)
            started = 1;
        else if (s->preempt && make_room(s, sim, j) == 0)
            started = 1;
        if (started)
            continue;
        s->q[w++] = j;
        if (s->strict)
            break;
    }
    for (; i < s->n; i++)
        if (s->q[i]->state == GS_JOB_PENDING)
            s->q[w++] = s->q[i];
    s->n = w;
    s->in_pass = 0;
    for (i = 0; i < s->nlate; i++)
        prio_arrive(s, sim, s->late[i]);
    s->nlate = 0;
}

/* A pending job killed while waiting leaves the queue. */
static void prio_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                         int why)
{
    (void)sim;
    struct prio *s = state;
    if (why != GS_STOP_KILLED)
        return;
    if (s->fast) {
        if (j->state == GS_JOB_PENDING && j->pslot >= 0 &&
            j->pslot < s->gs.n) {
            gs_jgroup_remove(&s->gs.g[j->pslot], j);
            gh_fix(s, (int)j->pslot);
        }
        return;
    }
    for (long i = 0; i < s->n; i++)
        if (s->q[i] == j) {
            memmove(&s->q[i], &s->q[i + 1],
                    (size_t)(s->n - i - 1) * sizeof *s->q);
            s->n--;
            return;
        }
}

const struct gs_policy_ops gs_policy_priority = {
    .abi = GS_POLICY_ABI,
    .name = "priority",
    .summary = "highest tier priority first; preempt = true evicts lower "
               "priority preemptible jobs",
    .init = prio_init,
    .free = prio_free,
    .arrive = prio_arrive,
    .stopped = prio_stopped,
    .schedule = prio_schedule,
};
