/* static.c -- fixed partitions, no borrowing: the allocation the seeds
 * criticize, kept as the baseline it is.
 *
 * The scenario's "partitions" carve node ranges out of pools, in order; a
 * partition serves the jobs of its tenant and/or tier.  A job goes to the
 * first partition that matches it (a job may match only one: the first
 * wins); a job no partition matches may use the nodes no partition took.
 * Each partition is its own FIFO queue with head-of-line blocking: when the
 * oldest job of a partition does not fit, that partition starts nothing more
 * this pass, while others go on.  Idle GPUs of one partition are never lent
 * to another.  A job that cannot fit its partition even when it is empty is
 * killed at arrival (reason "unplaceable") rather than blocking it forever.
 *
 * Cost: each partition keeps its own queue, a heap keyed by the job's
 * record index (records are numbered in arrival order, and a requeued job
 * keeps its number, so this is the pending list's order).  A pass merges
 * the heads of the partitions not blocked, oldest first -- the same
 * sequence of attempts as walking the whole pending list and skipping
 * blocked partitions, but it looks only at the jobs it tries: one per start
 * plus one per partition that blocks.  The heads are merged through a heap
 * of the partitions that may start a job, keyed by their first job and
 * kept from pass to pass (O(log P) a change; both heaps are the core's
 * counted ones, look.h), and a job's partition is found once per tenant
 * and tier, not by comparing names with every partition at each
 * arrival.
 *
 * A partition whose first job found no room is not tried again until that
 * can change: each partition's ranges are a watch of the core's
 * (gs_sim_watch), whose epoch moves only when capacity comes back on its
 * nodes.  While the same job is first and the epoch is the one of its
 * miss, the attempt would miss again (when misses repeat:
 * gs_sim_misses_repeat), so the partition is left out of the pass as if it
 * had blocked -- the same decisions, without a placement per blocked
 * partition per pass (64 partitions made a pass 64 placements).  Such a
 * partition stays out of the heap of partitions until its first job
 * changes or the core reports its watch among the moved ones
 * (gs_sim_watch_moved) at an epoch other than its miss's: a pass reads
 * only the partitions whose state changed, not all P of them (which made
 * its work grow with P once the core counted it). */
#include "policy.h"
#include "needtab.h"
#include "../sim/core/sim.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct part {
    struct gs_hnode hn;     /* in the heap of partitions (first member) */
    int blocked;            /* out of that heap until its miss is stale */
    struct gs_range *r;
    int n;
    double gpus;            /* capacity, for the fit check */
    int maxnode;            /* largest node, GPUs */
    struct gs_lheap q;      /* its pending jobs by record index */
    int watch;              /* its ranges' watch (gs_sim_watch) */
    long fail_rec;          /* the first job that last found no room, -1 */
    uint64_t fail_ep;       /* the watch's epoch then */
};

struct st {
    const struct gs_scenario *sc;
    int np;                 /* scenario partitions; index np = the rest */
    struct part *p;
    uint64_t seq;
    struct gs_lheap ready;  /* partitions with a first job that may start,
                               by its record index */
    struct gs_lvec aside;   /* partitions (int) that missed this pass */
    int *of_watch;          /* watch id -> partition */
    int nwatch;
    int repeat;             /* gs_sim_misses_repeat (fixed for a run) */
    int *pmatch;            /* per tenant * GS_NTIERS + tier: partition + 1,
                               0 when not looked up yet */
    long npmatch;
};

static int st_init(struct gs_sim *sim, struct gs_params *params, void **state,
                   struct gs_diag *d)
{
    const struct gs_scenario *sc = gs_sim_scenario(sim);
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (sc->nparts == 0)
        return gs_diag_set(d, GS_EINVAL, params->where,
                           "policy 'static' needs \"partitions\" in the "
                           "scenario");
    struct st *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->sc = sc;
    s->np = sc->nparts;
    s->p = calloc((size_t)s->np + 1, sizeof *s->p);
    int *used = calloc((size_t)f->npools, sizeof *used);
    if (!s->p || !used)
        goto nomem;
    s->repeat = gs_sim_misses_repeat(sim);
    gs_lheap_init(&s->ready, sim);
    gs_lvec_init(&s->aside, sim, sizeof(int));
    for (int i = 0; i <= s->np; i++)
        gs_lheap_init(&s->p[i].q, sim);
    for (int i = 0; i < s->np; i++) {
        const struct gs_partition *pt = &sc->parts[i];
        if (!(s->p[i].r = malloc(sizeof *s->p[i].r)))
            goto nomem;
        s->p[i].r[0] = (struct gs_range){ pt->pool, pt->lo, pt->hi };
        s->p[i].n = 1;
        s->p[i].gpus = (double)pt->nodes * f->pools[pt->pool].s.gpn;
        s->p[i].maxnode = f->pools[pt->pool].s.gpn;
        if (pt->hi > used[pt->pool])
            used[pt->pool] = pt->hi;
    }
    struct part *rest = &s->p[s->np];
    if (!(rest->r = malloc((size_t)f->npools * sizeof *rest->r)))
        goto nomem;
    for (int p = 0; p < f->npools; p++)
        if (used[p] < f->pools[p].s.nodes) {
            rest->r[rest->n++] = (struct gs_range){ p, used[p],
                                                    f->pools[p].s.nodes };
            rest->gpus += (double)(f->pools[p].s.nodes - used[p]) *
                          f->pools[p].s.gpn;
            if (f->pools[p].s.gpn > rest->maxnode)
                rest->maxnode = f->pools[p].s.gpn;
        }
    free(used);
    for (int i = 0; i <= s->np; i++) {
        s->p[i].fail_rec = -1;
        if ((s->p[i].watch = gs_sim_watch(sim, s->p[i].r, s->p[i].n)) < 0)
            goto nomem;
        if (s->p[i].watch >= s->nwatch)
            s->nwatch = s->p[i].watch + 1;
    }
    if ((s->of_watch = malloc((size_t)s->nwatch * sizeof *s->of_watch)) ==
        NULL)
        goto nomem;
    for (int i = 0; i < s->nwatch; i++)
        s->of_watch[i] = -1;
    for (int i = 0; i <= s->np; i++)
        s->of_watch[s->p[i].watch] = i;
    *state = s;
    return 0;
nomem:
    free(used);
    if (s->p)
        for (int i = 0; i <= s->np; i++)
            free(s->p[i].r);
    free(s->p);
    free(s->of_watch);
    free(s);
    return GS_ENOMEM;
}

static void st_free(void *state)
{
    struct st *s = state;
    for (int i = 0; i <= s->np; i++) {
        free(s->p[i].r);
        gs_lheap_clear(&s->p[i].q);
    }
    free(s->p);
    gs_lheap_clear(&s->ready);
    gs_lvec_free(&s->aside);
    free(s->of_watch);
    free(s->pmatch);
    free(s);
}

static int match_scan(const struct st *s, struct gs_sim *sim,
                      const struct gs_job *j)
{
    const char *tenant = gs_sim_tenant_name(sim, j->tenant);
    for (int i = 0; i < s->np; i++) {
        const struct gs_partition *pt = &s->sc->parts[i];
        if ((pt->tenant[0] == '\0' || strcmp(pt->tenant, tenant) == 0) &&
            (pt->tier < 0 || pt->tier == j->s.tier))
            return i;
    }
    return s->np;
}

/* j's partition: match_scan's answer, kept per tenant and tier (a run's
 * tenants are numbered densely from 0). */
static int match(struct st *s, struct gs_sim *sim, const struct gs_job *j)
{
    long k = (long)j->tenant * GS_NTIERS + j->s.tier;
    if (j->tenant < 0 || j->s.tier < 0 || j->s.tier >= GS_NTIERS)
        return match_scan(s, sim, j);
    if (k >= s->npmatch) {
        long n = s->npmatch ? s->npmatch : 64;
        while (n <= k)
            n *= 2;
        int *m = realloc(s->pmatch, (size_t)n * sizeof *m);
        GS_OOM_IF(m == NULL);
        memset(m + s->npmatch, 0, (size_t)(n - s->npmatch) * sizeof *m);
        s->pmatch = m;
        s->npmatch = n;
    }
    if (s->pmatch[k] == 0)
        s->pmatch[k] = match_scan(s, sim, j) + 1;
    return s->pmatch[k] - 1;
}

/* Could j ever run in partition p (empty)? */
static int could_fit(const struct gs_sim *sim, const struct part *p,
                     const struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (int i = 0; i < p->n; i++) {
        const struct gs_range *r = &p->r[i];
        if (!gs_fleet_pool_eligible(f, r->pool, &j->need))
            continue;
        if (j->need.gpus <= (r->hi - r->lo) * f->pools[r->pool].s.gpn)
            return 1;
    }
    return 0;
}

/* Partition i's queue changed, or its miss went stale: put it in the
 * heap of partitions by its first job, out when empty or blocked. */
static void part_fix(struct st *s, int i)
{
    struct part *p = &s->p[i];
    gs_time first = gs_lheap_top_time(&p->q);
    if (p->blocked && first != p->fail_rec)
        p->blocked = 0;         /* a new first job: its miss says nothing */
    if (first == GS_TIME_MAX || p->blocked)
        gs_lheap_remove(&s->ready, &p->hn);
    else if (!gs_hnode_queued(&p->hn) || p->hn.time != first)
        GS_ASSERT(gs_lheap_update(&s->ready, &p->hn, first) == 0);
}

static void st_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    struct st *s = state;
    j->pslot = match(s, sim, j);
    if (!could_fit(sim, &s->p[j->pslot], j))
        gs_sim_kill(sim, j, GS_KILL_UNPLACEABLE);
    else {
        /* one sequence over the partitions' heaps (jobgroup.h says why) */
        struct gs_lheap *q = &s->p[j->pslot].q;
        q->h.seq = s->seq;
        GS_ASSERT(gs_lheap_push(q, &j->pnode, (gs_time)j->rec) == 0);
        s->seq = q->h.seq;
        part_fix(s, (int)j->pslot);
    }
}

/* A pending job killed while waiting leaves its partition's queue. */
static void st_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                       int why)
{
    (void)sim;
    struct st *s = state;
    if (why == GS_STOP_KILLED && j->pslot >= 0 && j->pslot <= s->np &&
        gs_hnode_queued(&j->pnode)) {
        gs_lheap_remove(&s->p[j->pslot].q, &j->pnode);
        part_fix(s, (int)j->pslot);
    }
}

static struct gs_job *head_of(const struct part *p)
{
    struct gs_hnode *n = gs_lheap_top(&p->q);
    return n ? (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode))
             : NULL;
}

static void st_schedule(void *state, struct gs_sim *sim)
{
    struct st *s = state;
    /* Partitions that got capacity back since their first job missed are
     * back in the heap: the top is the one a scan for the oldest head
     * among those not blocked would pick.  One whose first job would miss
     * again stays out (its attempt would change nothing). */
    int w;
    while ((w = gs_sim_watch_moved(sim)) >= 0) {
        int i = w < s->nwatch ? s->of_watch[w] : -1;
        if (i >= 0 && s->p[i].blocked &&
            gs_sim_watch_epoch(sim, s->p[i].watch) != s->p[i].fail_ep) {
            s->p[i].blocked = 0;
            part_fix(s, i);
        }
    }
    struct gs_hnode *n;
    while ((n = gs_lheap_top(&s->ready)) != NULL) {
        int bp = (int)((struct part *)n - s->p);
        struct part *p = &s->p[bp];
        struct gs_job *j = head_of(p);
        if (gs_job_sure_miss(sim, j, p->r, p->n) ||
            gs_sim_try_start(sim, j, p->r, p->n) < 0) {        /* blocked */
            p->fail_rec = j->rec;
            p->fail_ep = gs_sim_watch_epoch(sim, p->watch);
            p->blocked = 1;
            gs_lheap_remove(&s->ready, n);
            gs_lvec_push_int(&s->aside, bp);
        } else {
            gs_lheap_remove(&p->q, &j->pnode);
            part_fix(s, bp);
        }
    }
    /* Without repeating misses a partition that blocked is tried again at
     * the next pass. */
    if (!s->repeat)
        for (long i = 0; i < gs_lvec_n(&s->aside); i++) {
            int bp = gs_lvec_int(&s->aside, i);
            s->p[bp].blocked = 0;
            part_fix(s, bp);
        }
    gs_lvec_setn(&s->aside, 0);
}

const struct gs_policy_ops gs_policy_static = {
    .abi = GS_POLICY_ABI,
    .name = "static",
    .summary = "fixed node partitions per tenant or tier, FIFO in each, "
               "no borrowing",
    .init = st_init,
    .free = st_free,
    .arrive = st_arrive,
    .stopped = st_stopped,
    .schedule = st_schedule,
};
