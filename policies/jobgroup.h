/* jobgroup.h -- pending jobs grouped by what placement sees of them.
 *
 * Two pending jobs with the same need (GPUs or fraction, memory, allowed
 * models, MIG profile, guaranteed and burst share, and what they ask of the
 * host: CPU, memory and least device memory), tier, priority and
 * preemptibility -- and, when the policy asks, tenant -- are alike: a
 * placement anywhere that misses for one misses for the other (the core's
 * miss memo, sim.c, keys misses by the same need and tier), and while a
 * pass only starts jobs (capacity only shrinks) it keeps missing
 * (gs_sim_misses_repeat).  A policy that keeps its queue as groups can then
 * set a whole group aside at its first miss and look at one job per group
 * instead of every waiting job.
 *
 * Each group holds its jobs in a heap keyed by record index -- records are
 * numbered in arrival order and a requeued job keeps its number, so the
 * heap's order is the pending list's -- through the job's pnode, which the
 * policy gives up to it.  Groups are made on first use and kept for the
 * run (there are as many as distinct shapes, not jobs); a hash finds them.
 * The heaps are the core's counted ones (look.h): every job read from a
 * group (gs_jgroup_head) is counted in policy_work, the reads a gorder's
 * comparisons make among them, and the pending jobs a window steps
 * over. */
#ifndef GS_JOBGROUP_H
#define GS_JOBGROUP_H

#include "../sim/core/job.h"
#include "../sim/core/look.h"

#include <stdint.h>

/* Grow the array p of *cap elements of size bytes to hold at least need:
 * doubling, at least 16; *cap is updated, new elements are not cleared.
 * Returns the array (perhaps moved); aborts when out of memory. */
void *gs_grow(void *p, long *cap, long need, size_t size);

struct gs_jgroup {
    int prio, tier, preemptible, tenant;   /* tenant -1 when not keyed */
    struct gs_need need;                    /* profile: see prof */
    char prof[GS_MIG_PROFILE_NAME];
    uint32_t hash;
    struct gs_lheap q;          /* its jobs, by record index */
    int pos;                    /* free for the policy (a heap index) */
    int mark;                   /* free for the policy (set aside, ...) */
    uint64_t aside;             /* a gorder's pass that set it aside */
    uint64_t pools;             /* free for the policy (0 when made) */
};

struct gs_jgroups {
    struct gs_jgroup *g;
    int n, cap;
    int *slot, nslot;           /* open addressing over g, -1 empty */
    int by_tenant;
    uint64_t seq;               /* one sequence for all the groups' heaps */
    struct gs_sim *sim;         /* whose work the heaps count */
};

void gs_jgroups_init(struct gs_jgroups *gs, struct gs_sim *sim,
                     int by_tenant);
void gs_jgroups_free(struct gs_jgroups *gs);
/* The index of j's group, made if new (pos -1, mark 0).  Indexes are
 * stable; the array may move.  Aborts when out of memory. */
int gs_jgroups_of(struct gs_jgroups *gs, const struct gs_job *j);
/* Add the pending job j to group g (j->pnode is used).  The groups' heaps
 * draw their entries' sequence numbers from one counter: a removed job
 * leaves a stale entry behind (heap.h), and its struct, recycled for a
 * later job in another group, must never match it again. */
void gs_jgroup_add(struct gs_jgroups *gs, int g, struct gs_job *j);
/* Take j out of its group (no-op if it is not in one). */
void gs_jgroup_remove(struct gs_jgroup *g, struct gs_job *j);
/* The group's oldest job (counted), or NULL. */
struct gs_job *gs_jgroup_head(const struct gs_jgroup *g);
static inline size_t gs_jgroup_size(const struct gs_jgroup *g)
{
    return gs_lheap_size(&g->q);
}

/* --- groups in order of their first jobs ---------------------------------
 *
 * The nonempty groups sorted by their oldest jobs under the policy's order
 * (before(a, b): job a goes first), for a pass that takes the first job of
 * the first group again and again.  A group's pos is its index in the
 * array (-1: out), so a policy that uses a gorder leaves pos to it.
 * gs_gorder_fix() puts a group where its first job says -- in, out when
 * it is empty, or moved: a binary search reading the first jobs of the
 * groups it probes (counted) and a shift of the indexes after it -- and
 * is called after every change of a group's first job.
 *
 * A pass walks the array with a cursor (gs_gorder_begin, _next): the group
 * it gives is the first in order of those not set aside in this pass
 * (gs_gorder_aside marks the one at the cursor and steps past it), as a
 * heap's top would be with the set-aside groups popped -- without the pop
 * nor the push back after the pass.  While a pass only starts or removes
 * its groups' first jobs, a group it fixes moves back, never before the
 * cursor (its new first job comes after its old); a group set aside whose
 * first job changes is in the pass again (its mark is cleared and the
 * cursor goes back to it), as a heap would take it back. */
struct gs_gorder {
    int *a;
    long n, cap;
    long cur;                   /* the pass's cursor */
    uint64_t pass;              /* the current pass (marks: jgroup aside) */
    int (*before)(const struct gs_job *a, const struct gs_job *b);
};

void gs_gorder_free(struct gs_gorder *o);
void gs_gorder_fix(struct gs_gorder *o, struct gs_jgroups *gs, int g);
/* Start a pass: nothing set aside. */
static inline void gs_gorder_begin(struct gs_gorder *o)
{
    o->pass++;
    o->cur = 0;
}
/* The first group in order not set aside in this pass, or -1. */
int gs_gorder_next(struct gs_gorder *o, const struct gs_jgroups *gs);
/* Set the group gs_gorder_next() gave aside for the rest of the pass. */
void gs_gorder_aside(struct gs_gorder *o, struct gs_jgroups *gs, int g);

/* --- a window: the first `depth` pending jobs --------------------------
 *
 * Policies that look at most `depth` waiting jobs a pass (fair,
 * fifo-backfill) keep those jobs indexed as they come and go instead of
 * walking the pending list every pass.  The window holds the pending jobs
 * before nextout, the first one outside it (NULL: it holds them all);
 * between passes it may hold more than depth, and gs_jwin_settle() trims
 * or fills it to exactly the first min(depth, pending) -- O(1) a change.
 * The policy indexes the members its own way through add and drop, and
 * tells the window of every change (arrive, a member starting, a pending
 * job killed). */
struct gs_jwin {
    long n, depth;
    struct gs_job *nextout;
    void (*add)(void *ctx, struct gs_job *j);   /* j joins: index it */
    void (*drop)(void *ctx, struct gs_job *j);  /* j leaves: unindex it */
    void *ctx;
    struct gs_sim *sim;         /* its pending list (read counted) */
};

/* j entered the pending list (new at its end, or requeued at its place). */
void gs_jwin_arrive(struct gs_jwin *w, struct gs_job *j);
/* Member j leaves (it starts, or is killed): drop is called. */
void gs_jwin_leave(struct gs_jwin *w, struct gs_job *j);
/* j, pending but not a member, was killed (it still knows its successor:
 * sim.h gs_sim_pending_next). */
void gs_jwin_killed_outside(struct gs_jwin *w, struct gs_job *j);
/* Make the window the first min(depth, pending) jobs. */
void gs_jwin_settle(struct gs_jwin *w, struct gs_sim *sim);

#endif
