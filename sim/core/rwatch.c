/* rwatch.c -- watched node ranges: for a policy, the epoch of the last
 * capacity that came back on a set of node ranges.
 *
 * The core's miss memo (sim.c, gs_sim_place anywhere) knows that a
 * placement that found no room finds none again until capacity comes back
 * somewhere in the fleet (its epoch moves on every release, node up or
 * down, or loan the fleet tells of).  A policy that places within ranges of
 * its own -- static's partitions -- needs the same fact per set of ranges:
 * with one fleet-wide epoch, a job ending in partition 3 would send every
 * blocked partition's first job to the placer again.  So a policy registers
 * each set of ranges once (gs_sim_watch) and reads its epoch
 * (gs_sim_watch_epoch): it moves only when capacity comes back on one of
 * the set's nodes.
 *
 * Model: per node, a list of the watches covering it (links in one array;
 * a node may be in several).  On a release at a node (the fleet watcher in
 * sim.c, after the global epoch moved) every watch on the node takes the
 * global epoch: O(watches on the node), nothing when none.  A watch's
 * epoch never goes back, and equals the global epoch of its last release;
 * 0 means none since it was made.  Reading is O(1).  A watch whose epoch
 * moved also joins a list of moved watches (once until it is taken), so a
 * policy learns which of its sets got capacity back by taking that list
 * (gs_sim_watch_moved) instead of reading every watch's epoch at every
 * pass: the list is entries the core hands over, each counted in the
 * policy's work (look.h).
 *
 * Invariant: whenever capacity comes back on a node of watch w, w's epoch
 * changes.  A policy that remembers the epoch at which a placement within
 * w's ranges missed may skip the same placement (same need and tier) while
 * the epoch is unchanged, exactly when gs_sim_misses_repeat() holds. */
#include "simint.h"

#include <stdlib.h>

struct wlink { int watch, next; };

struct gs_rwatch {
    int *head;                  /* per node: first link, -1 none */
    int nnodes;
    struct wlink *l;
    int nl, capl;
    uint64_t *ep;               /* per watch */
    char *queued;               /* per watch: in moved */
    int *moved, nmoved;         /* watches whose epoch moved, untaken */
    int nw, capw;
};

void gs_rwatch_free(struct gs_rwatch *w)
{
    if (w == NULL)
        return;
    free(w->head);
    free(w->l);
    free(w->ep);
    free(w->queued);
    free(w->moved);
    free(w);
}

static int link_node(struct gs_rwatch *w, int node, int id)
{
    if (w->nl == w->capl) {
        int cap = w->capl ? w->capl * 2 : 256;
        struct wlink *l = realloc(w->l, (size_t)cap * sizeof *l);
        if (l == NULL)
            return GS_ENOMEM;
        w->l = l;
        w->capl = cap;
    }
    w->l[w->nl] = (struct wlink){ id, w->head[node] };
    w->head[node] = w->nl++;
    return 0;
}

int gs_sim_watch(struct gs_sim *s, const struct gs_range *r, int n)
{
    const struct gs_fleet *f = s->fleet;
    if (s->rw == NULL) {
        struct gs_rwatch *w = calloc(1, sizeof *w);
        if (w == NULL || (w->head = malloc((size_t)(f->nnodes + 1) *
                                           sizeof *w->head)) == NULL) {
            free(w);
            return GS_ENOMEM;
        }
        for (int i = 0; i <= f->nnodes; i++)
            w->head[i] = -1;
        w->nnodes = f->nnodes;
        s->rw = w;
    }
    struct gs_rwatch *w = s->rw;
    if (w->nw == w->capw) {
        int cap = w->capw ? w->capw * 2 : 16;
        uint64_t *e = realloc(w->ep, (size_t)cap * sizeof *e);
        if (e == NULL)
            return GS_ENOMEM;
        w->ep = e;
        char *q = realloc(w->queued, (size_t)cap);
        if (q == NULL)
            return GS_ENOMEM;
        w->queued = q;
        int *m = realloc(w->moved, (size_t)cap * sizeof *m);
        if (m == NULL)
            return GS_ENOMEM;
        w->moved = m;
        w->capw = cap;
    }
    int id = w->nw++;
    w->ep[id] = 0;
    w->queued[id] = 0;
    for (int i = 0; i < n; i++) {
        if (r[i].pool < 0 || r[i].pool >= f->npools)
            continue;
        const struct gs_pool *p = &f->pools[r[i].pool];
        int lo = r[i].lo < 0 ? 0 : r[i].lo;
        int hi = r[i].hi > p->s.nodes ? p->s.nodes : r[i].hi;
        for (int k = lo; k < hi; k++)
            if (link_node(w, p->node0 + k, id) < 0)
                return GS_ENOMEM;
    }
    return id;
}

uint64_t gs_sim_watch_epoch(const struct gs_sim *s, int id)
{
    return s->rw && id >= 0 && id < s->rw->nw ? s->rw->ep[id] : 0;
}

void gs_rwatch_release(struct gs_rwatch *w, int node, uint64_t epoch)
{
    if (w == NULL || node < 0 || node >= w->nnodes)
        return;
    for (int i = w->head[node]; i >= 0; i = w->l[i].next) {
        int id = w->l[i].watch;
        w->ep[id] = epoch;
        if (!w->queued[id]) {
            w->queued[id] = 1;
            w->moved[w->nmoved++] = id;
        }
    }
}

int gs_sim_watch_moved(struct gs_sim *s)
{
    struct gs_rwatch *w = s->rw;
    if (w == NULL || w->nmoved == 0)
        return -1;
    int id = w->moved[--w->nmoved];
    w->queued[id] = 0;
    s->look.work++;
    return id;
}
