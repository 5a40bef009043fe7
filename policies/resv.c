/* resv.c -- node-by-node reservations for a blocked job.
 *
 * EASY backfilling (Lifka 1995) gives the job at the head of the queue a
 * reservation: the time at which, running jobs ending when expected, it
 * will fit.  Made over GPUs counted in aggregate -- the abstraction of
 * machines without node boundaries -- it lets a later job take the GPUs the
 * head was counting on, or, when the GPUs are there in total but not on one
 * node, dates the reservation "now" and stops nearly everything.  So here
 * it is made node by node, as backfill.c does for whole-GPU heads on plain
 * pools: the running jobs, kept in a heap by expected end, are released in
 * that order onto a scratch count of each node's free GPUs until some node
 * has room for the job (a gang larger than a node: until one pool has the
 * whole nodes it needs; the remainder is reserved as a whole node too).
 * Those nodes and that time are the reservation.  A job that would outlive
 * it must keep off those nodes, or, when one node is reserved, use only the
 * GPUs it will have free then beyond the job's need (extra).
 *
 * Only the running jobs the walk needs are visited, each counted in
 * policy_work, and the scratch is reset where it was touched, so a
 * reservation costs what it looks at, not the fleet.  The jobs a walk
 * visits first are those whose expected end has passed (a prediction too
 * short: under pbs nearly every reservation is found among them, nine
 * jobs on average at load 1.2), read again at every pass; so as a
 * reservation is made, the jobs whose end has passed leave the heap for a
 * list in the same order (look.h gs_llist: they never change order again,
 * and the clock only adds more behind them), which the walk reads first
 * at one step a job, then the heap (gs_lheap_walk, O(k log k) for k
 * visited).  The order of the visits, hence every reservation, is the
 * heap's own.  Fractional parts of
 * GPUs never count as freeing a GPU (the GPU frees when its last sharer
 * ends): a reservation may be later than needed, never earlier. */
#include "resv.h"
#include "../sim/core/sim.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static struct gs_job *job_of(struct gs_hnode *n)
{
    return (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode));
}

int gs_resv_init(struct gs_resv *r, struct gs_sim *sim, uint64_t heap_id)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    *r = (struct gs_resv){ 0 };
    gs_lheap_init_apart(&r->run, sim, heap_id);
    /* its own sequence numbers: far above any the heap will give */
    gs_llist_init_apart(&r->late, sim, heap_id);
    r->late.base += (uint64_t)1 << 39;
    r->cut = INT64_MIN;
    if (gs_lheap_stage(&r->run) < 0)
        return GS_ENOMEM;
    r->nodes = malloc(((size_t)f->nnodes + 1) * sizeof *r->nodes);
    r->gain = calloc((size_t)f->nnodes + 1, sizeof *r->gain);
    r->touched = malloc(((size_t)f->nnodes + 1) * sizeof *r->touched);
    r->full = calloc((size_t)f->npools + 1, sizeof *r->full);
    if (!r->nodes || !r->gain || !r->touched || !r->full) {
        gs_resv_free(r);
        return GS_ENOMEM;
    }
    return 0;
}

void gs_resv_free(struct gs_resv *r)
{
    if (r == NULL)
        return;
    gs_lheap_clear(&r->run);
    gs_llist_free(&r->late);
    free(r->nodes);
    free(r->gain);
    free(r->touched);
    free(r->full);
    free(r->ranges);
    *r = (struct gs_resv){ 0 };
}

int gs_resv_started(struct gs_resv *r, struct gs_job *j, gs_time end)
{
    if (gs_llist_has(&r->late, &j->pnode))
        gs_llist_remove(&r->late, &j->pnode);
    if (end < r->cut) {         /* already past the list's line */
        gs_lheap_remove(&r->run, &j->pnode);
        return gs_llist_insert(&r->late, &j->pnode, end);
    }
    return gs_lheap_push(&r->run, &j->pnode, end);
}

void gs_resv_stopped(struct gs_resv *r, struct gs_job *j)
{
    if (gs_llist_has(&r->late, &j->pnode))
        gs_llist_remove(&r->late, &j->pnode);
    else
        gs_lheap_remove(&r->run, &j->pnode);
}

void gs_resv_walk(const struct gs_resv *r,
                  int (*visit)(struct gs_hnode *node, void *arg), void *arg)
{
    if (gs_llist_walk(&r->late, visit, arg) == 0)
        GS_ASSERT(gs_lheap_walk(&r->run, visit, arg) == 0);
}

gs_time gs_resv_first_end(const struct gs_resv *r)
{
    return gs_llist_n(&r->late) > 0 ? gs_llist_first_time(&r->late)
                                    : gs_lheap_top_time(&r->run);
}

int gs_resv_whole(const struct gs_fleet *f, const struct gs_need *need,
                  const int *pools, int npools)
{
    if (need->gpus <= 0 || need->profile || npools == 0)
        return 0;
    for (int i = 0; i < npools; i++) {
        struct gs_demand dm;
        if (gs_fleet_demand(f, pools[i], need, &dm) < 0 ||
            dm.kind != GS_DEM_WHOLE)
            return 0;
    }
    return 1;
}

struct walk {
    struct gs_resv *r;
    const struct gs_fleet *f;
    const struct gs_need *need;
    const int *pools;
    int npools;
    gs_time t;
    int found;
};

static int in_pools(const struct walk *w, int pool)
{
    for (int i = 0; i < w->npools; i++)
        if (w->pools[i] == pool)
            return 1;
    return 0;
}

/* Free GPUs of node n at the time being walked; -1 if it takes no work. */
static int free_at(const struct gs_resv *r, const struct gs_fleet *f, int n)
{
    const struct gs_node *nd = &f->nodes[n];
    if (!nd->up || nd->cordon)
        return -1;
    return nd->nfull + r->gain[n];
}

/* Gangs: the first pool with k = ceil(gpus / gpn) nodes fully free. */
static int gang_found(struct walk *w)
{
    struct gs_resv *r = w->r;
    for (int i = 0; i < w->npools; i++) {
        const struct gs_pool *pl = &w->f->pools[w->pools[i]];
        int k = (w->need->gpus + pl->s.gpn - 1) / pl->s.gpn;
        if (r->full[w->pools[i]] < k)
            continue;
        r->n = 0;
        for (int n = pl->node0; n < pl->node0 + pl->s.nodes && k > 0; n++)
            if (free_at(r, w->f, n) == pl->s.gpn) {
                r->nodes[r->n++] = n;
                k--;
            }
        return 1;
    }
    return 0;
}

static int visit(struct gs_hnode *node, void *arg)
{
    struct walk *w = arg;
    struct gs_resv *r = w->r;
    struct gs_job *j = job_of(node);
    if (j->alloc.pool < 0 || !in_pools(w, j->alloc.pool))
        return 0;
    const struct gs_part *pt = gs_alloc_parts(&j->alloc);
    int gpn = w->f->pools[j->alloc.pool].s.gpn;
    int gang = w->need->gpus > gpn;
    for (int i = 0; i < j->alloc.n; i++) {
        if (pt[i].milli != 1000 || pt[i].inst)
            continue;
        int n = pt[i].node, before = free_at(r, w->f, n);
        if (before < 0)
            continue;
        int add = __builtin_popcountll(pt[i].mask);
        if (r->gain[n] == 0)
            r->touched[r->ntouched++] = n;
        r->gain[n] += add;
        if (before < gpn && before + add >= gpn)
            r->full[j->alloc.pool]++;
        if (!gang && !w->found && before + add >= w->need->gpus) {
            r->nodes[0] = n;
            r->n = 1;
            r->extra = before + add - w->need->gpus;
            w->found = 1;
        }
    }
    if (gang && gang_found(w))
        w->found = 1;
    if (w->found)
        w->t = node->time;
    return w->found;
}

int gs_resv_make(struct gs_resv *r, const struct gs_fleet *f,
                 const struct gs_need *need, const int *pools, int npools,
                 gs_time now)
{
    struct walk w = { r, f, need, pools, npools, GS_TIME_MAX, 0 };
    r->n = 0;
    r->extra = 0;
    if (!gs_resv_whole(f, need, pools, npools))
        return -1;
    int gang = 0;
    for (int i = 0; i < npools; i++) {
        const struct gs_pool *p = &f->pools[pools[i]];
        r->full[pools[i]] = 0;
        if (need->gpus <= p->s.gpn)
            continue;
        gang = 1;
        for (int n = p->node0; n < p->node0 + p->s.nodes; n++)
            if (free_at(r, f, n) == p->s.gpn)
                r->full[pools[i]]++;
    }
    if (gang && gang_found(&w)) {
        w.found = 1;
        w.t = now;
    } else {
        if (now > r->cut)
            r->cut = now;
        GS_ASSERT(gs_lheap_move_below(&r->run, r->cut, &r->late) == 0);
        gs_resv_walk(r, visit, &w);
    }
    for (int i = 0; i < r->ntouched; i++)
        r->gain[r->touched[i]] = 0;
    r->ntouched = 0;
    if (!w.found) {
        r->n = 0;
        return -1;
    }
    r->t = w.t > now ? w.t : now;
    for (int i = 1; i < r->n; i++)      /* ascending, for gs_resv_off */
        for (int k = i; k > 0 && r->nodes[k - 1] > r->nodes[k]; k--) {
            int t = r->nodes[k];
            r->nodes[k] = r->nodes[k - 1];
            r->nodes[k - 1] = t;
        }
    return 0;
}

int gs_resv_off(struct gs_resv *r, const struct gs_fleet *f,
                const int *pools, int npools)
{
    int need = npools + r->n + 1;
    if (need > r->capranges) {
        free(r->ranges);
        r->ranges = malloc((size_t)need * sizeof *r->ranges);
        GS_OOM_IF(r->ranges == NULL);
        r->capranges = need;
    }
    int n = 0;
    for (int i = 0; i < npools; i++) {
        int p = pools[i];
        const struct gs_pool *pl = &f->pools[p];
        int lo = 0;
        for (int k = 0; k < r->n; k++) {
            int x = r->nodes[k] - pl->node0;
            if (x < 0 || x >= pl->s.nodes)
                continue;
            if (x > lo)
                r->ranges[n++] = (struct gs_range){ p, lo, x };
            lo = x + 1;
        }
        if (lo < pl->s.nodes)
            r->ranges[n++] = (struct gs_range){ p, lo, pl->s.nodes };
    }
    return n;
}

int gs_resv_spare(const struct gs_resv *r, const struct gs_fleet *f,
                  int gpus, const int *pools, int npools,
                  struct gs_range *out)
{
    if (r->n != 1 || gpus <= 0 || gpus > r->extra)
        return 0;
    int node = r->nodes[0], pool = f->nodes[node].pool;
    for (int i = 0; i < npools; i++)
        if (pools[i] == pool) {
            int x = node - f->pools[pool].node0;
            *out = (struct gs_range){ pool, x, x + 1 };
            return 1;
        }
    return 0;
}
