/* fleetnode.c -- what happens to a node outside allocation: it goes down
 * or comes back, is cordoned, loses or regains a GPU, lends free GPU milli
 * to bursting jobs (the sharing model); and who is told (watchers).
 *
 * Each call changes one node's state and then keeps fleet.c's invariants
 * the way allocation does: the fleet's stranded GPU milli is taken off
 * before the change and added back after, the GPUs counted up follow the
 * node's live GPUs, a MIG pool's instances are offered only on GPUs open to
 * new work, the placement index's leaf is updated (gs_fleet_leaf_update),
 * and every watcher is told (gs_fleet_notify).  A node goes down only when
 * it runs no job, and a GPU dies only when it is fully free: the caller
 * evicts first (both are asserted). */
#include "fleetint.h"
#include "../base/bits.h"
#include "../base/err.h"
#include "migslots.h"

void gs_fleet_set_lent(struct gs_fleet *f, int gpu, int lent)
{
    GS_ASSERT(lent >= 0 && lent <= 1000);
    if (f->lent[gpu] == lent)
        return;
    f->lent[gpu] = (int16_t)lent;
    int lo = 0, hi = f->nnodes;     /* the node of gpu: nodes are in order */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (f->nodes[mid].gpu0 <= gpu)
            lo = mid;
        else
            hi = mid;
    }
    /* Only fractional pools lend (they keep rmax); leaf_update reads the
     * loans of no other pool. */
    GS_ASSERT(lent == 0 || f->pools[f->nodes[lo].pool].rmax != NULL);
    gs_fleet_leaf_update(f, lo);
    gs_fleet_notify(f, lo, NULL, 0);
}

int gs_fleet_watch(struct gs_fleet *f, gs_fleet_watch_fn *fn, void *arg)
{
    if (f->nwatch == GS_FLEET_WATCHERS)
        return GS_ERANGE;
    f->watch_fn[f->nwatch] = fn;
    f->watch_arg[f->nwatch] = arg;
    f->nwatch++;
    return 0;
}

void gs_fleet_unwatch(struct gs_fleet *f, gs_fleet_watch_fn *fn, void *arg)
{
    for (int i = 0; i < f->nwatch; i++)
        if (f->watch_fn[i] == fn && f->watch_arg[i] == arg) {
            for (int k = i + 1; k < f->nwatch; k++) {
                f->watch_fn[k - 1] = f->watch_fn[k];
                f->watch_arg[k - 1] = f->watch_arg[k];
            }
            f->nwatch--;
            return;
        }
}

/* A MIG pool offers instances only on GPUs open to new work: up, not
 * cordoned, not dead. */
static void mig_open(struct gs_fleet *f, int node)
{
    const struct gs_node *nd = &f->nodes[node];
    struct gs_pool *p = &f->pools[nd->pool];
    if (p->mig == NULL)
        return;
    int g0 = (node - p->node0) * p->s.gpn;
    for (int k = 0; k < p->s.gpn; k++)
        gs_migslots_set_open(p->mig, g0 + k, nd->up && !nd->cordon &&
                                             !(nd->deadmask & (1ULL << k)));
}

void gs_fleet_set_up(struct gs_fleet *f, int node, int up)
{
    struct gs_node *nd = &f->nodes[node];
    struct gs_pool *p = &f->pools[nd->pool];
    if (nd->up == up)
        return;
    GS_ASSERT(up || nd->njobs == 0);
    f->stranded_milli -= gs_fleet_node_stranded(f, node);
    nd->up = up;
    f->stranded_milli += gs_fleet_node_stranded(f, node);
    int alive = p->s.gpn - gs_popcount64(nd->deadmask);
    int64_t d = up ? alive : -alive;
    p->gpus_up += d;
    f->gpus_up += d;
    mig_open(f, node);
    gs_fleet_leaf_update(f, node);
    gs_fleet_notify(f, node, NULL, 0);
}

void gs_fleet_set_cordon(struct gs_fleet *f, int node, int on)
{
    struct gs_node *nd = &f->nodes[node];
    if (nd->cordon == on)
        return;
    nd->cordon = on;
    mig_open(f, node);
    gs_fleet_leaf_update(f, node);
    gs_fleet_notify(f, node, NULL, 0);
}

void gs_fleet_set_gpu_dead(struct gs_fleet *f, int node, int k, int dead)
{
    struct gs_node *nd = &f->nodes[node];
    struct gs_pool *p = &f->pools[nd->pool];
    uint64_t bit = 1ULL << k;
    int g = nd->gpu0 + k;
    if (!!(nd->deadmask & bit) == !!dead)
        return;
    int d = dead ? -1 : 1;
    f->stranded_milli -= gs_fleet_node_stranded(f, node);
    if (dead) {
        GS_ASSERT(f->free_milli[g] == 1000);
        nd->deadmask |= bit;
        nd->fullmask &= ~bit;
        nd->nfull--;
        f->free_milli[g] = 0;
        f->free_mib[g] = 0;
    } else {
        nd->deadmask &= ~bit;
        nd->fullmask |= bit;
        nd->nfull++;
        f->free_milli[g] = 1000;
        f->free_mib[g] = gs_gb_to_mib(f->cat->m[p->s.model].mem_gb);
    }
    f->stranded_milli += gs_fleet_node_stranded(f, node);
    if (nd->up) {
        p->gpus_up += d;
        f->gpus_up += d;
    }
    mig_open(f, node);
    gs_fleet_leaf_update(f, node);
    gs_fleet_notify(f, node, NULL, 0);
}
