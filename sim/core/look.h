/* look.h -- what a policy looks at, counted: the core's containers for a
 * policy's indexes, and the run's work counter they add to.
 *
 * policy_work (gs_summary, `gpusim run --json`) is a deterministic measure
 * of a policy's work: every waiting or running job, group or tenant entry
 * a policy reads while it decides.  The policy does not report it; the
 * core counts it, because every such entry reaches the policy through a
 * core accessor that adds one as it hands the entry over:
 *  - the pending list: gs_sim_pending_head, _tail, _next, _prev (sim.h);
 *  - the running jobs: gs_sim_running_at (sim.h);
 *  - a policy's own indexes, kept in the containers below: a heap's top,
 *    pop and every node a walk visits (gs_lheap), a vector's entry read by
 *    gs_lvec_at;
 *  - and one for every placement the policy asks of the core
 *    (gs_sim_place, gs_sim_try_start), which looks at the job once more.
 * What does not count: the job a hook is handed (arrive, stopped: one a
 * job, never a scan), keeping an index up to date through an entry the
 * policy already holds (push, update, remove; gs_lvec_upd to change the
 * entry a hook names), sizes, and the fleet's own structures (nodes and
 * GPUs are the placer's and the fleet's work, not a queue's).
 *
 * So the count is honest as long as a policy keeps its waiting or running
 * jobs, groups and tenants only in these containers and the core's lists:
 * an index a policy keeps outside them (a plain array of jobs it scans, a
 * heap of its own) would hide its work.  tests/check_layers.py refuses the
 * plain forms it can see in policies/ -- gs_heap_* calls, a job's ->next
 * or ->prev, gs_sim_running's array, a policy adding to the counter
 * itself -- and README's "Adding a policy" states the rule for the rest.
 *
 * Each container holds a pointer to its run's counter (given at init by
 * the simulation: gs_sim_look_counter), so the accessors are inline and
 * cost one increment over the container they wrap: the heap is heap.h's,
 * its entries and their order unchanged; a vector is a plain array of
 * fixed-size entries. */
#ifndef GS_LOOK_H
#define GS_LOOK_H

#include "heap.h"
#include "../base/err.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct gs_sim;

/* The run's work counter.  It is the first member of struct gs_sim
 * (simint.h), so the inline accessors here and in sim.h reach it without
 * a call; for the containers below (a policy never adds to it itself). */
struct gs_look {
    uint64_t work;
};
static inline uint64_t *gs_sim_look_counter(struct gs_sim *s)
{
    return &((struct gs_look *)(void *)s)->work;
}

/* --- a counted heap: heap.h's, bound to a run ------------------------- */
struct gs_lheap {
    struct gs_heap h;
    uint64_t *work;
};

static inline void gs_lheap_init(struct gs_lheap *q, struct gs_sim *sim)
{
    gs_heap_init(&q->h);
    q->work = gs_sim_look_counter(sim);
}
/* Initialize q to number its entries from id << 40: a node moving between
 * the heaps of one policy can never take a sequence number its old heap
 * still holds (heap.h removes lazily). */
static inline void gs_lheap_init_apart(struct gs_lheap *q, struct gs_sim *sim,
                                       uint64_t id)
{
    gs_lheap_init(q, sim);
    q->h.seq = id << 40;
}
/* Frees the array; nodes unqueued (heap.h gs_heap_clear). */
static inline void gs_lheap_clear(struct gs_lheap *q)
{
    gs_heap_clear(&q->h);
}
static inline int gs_lheap_stage(struct gs_lheap *q)
{
    return gs_heap_stage(&q->h);
}
/* Insert node, or re-key it: 0 or GS_ENOMEM (not counted). */
static inline int gs_lheap_update(struct gs_lheap *q, struct gs_hnode *node,
                                  gs_time time)
{
    return gs_heap_update(&q->h, node, time);
}
static inline int gs_lheap_push(struct gs_lheap *q, struct gs_hnode *node,
                                gs_time time)
{
    return gs_heap_update(&q->h, node, time);
}
static inline void gs_lheap_remove(struct gs_lheap *q, struct gs_hnode *node)
{
    gs_heap_remove(&q->h, node);
}
static inline size_t gs_lheap_size(const struct gs_lheap *q)
{
    return gs_heap_size(&q->h);
}
/* The minimum (counted), or NULL. */
static inline struct gs_hnode *gs_lheap_top(const struct gs_lheap *q)
{
    struct gs_hnode *n = gs_heap_top(&q->h);
    *q->work += n != NULL;
    return n;
}
/* The minimum's key (counted), GS_TIME_MAX when empty. */
static inline gs_time gs_lheap_top_time(const struct gs_lheap *q)
{
    gs_time t = gs_heap_top_time(&q->h);
    *q->work += q->h.n > 0;
    return t;
}
/* Remove and return the minimum (counted), or NULL. */
static inline struct gs_hnode *gs_lheap_pop(struct gs_lheap *q)
{
    struct gs_hnode *n = gs_heap_pop(&q->h);
    *q->work += n != NULL;
    return n;
}
/* heap.h's walk in key order, counting every node visited. */
int gs_lheap_walk(const struct gs_lheap *q,
                  int (*visit)(struct gs_hnode *node, void *arg), void *arg);

/* --- a counted list in key order --------------------------------------- */
/* Heap nodes (heap.h) in order of their keys, for entries that leave a heap
 * and never change order again: a running job past its expected end, say,
 * which a reservation's walk reads again and again, first of all.  A heap's
 * walk pays a logarithm an entry it hands over (its best-first search over
 * the tree) and steps over the entries removed lazily; the list pays one
 * step, and a removal unlinks at once.  Entries go in after every entry of
 * no greater key (in order of arrival among equal keys, as a heap orders
 * them by sequence number); gs_lheap_move_below moves a heap's front into
 * the list, which then needs no search.  A listed node's seq names its slot
 * (base + slot + 1), from the list's own range (init_apart) so it never
 * takes a number a heap of the policy still holds for it. */
struct gs_lslot {
    struct gs_hnode *node;      /* NULL: free */
    long prev, next;            /* slots, -1 at the ends; free list: next */
};
struct gs_llist {
    struct gs_lslot *a;
    long cap, n, head, tail, free;
    uint64_t base;
    uint64_t *work;
};

/* An empty list whose sequence numbers start above id << 40. */
void gs_llist_init_apart(struct gs_llist *l, struct gs_sim *sim, uint64_t id);
void gs_llist_free(struct gs_llist *l);         /* NULL-safe; nodes unqueued */
static inline long gs_llist_n(const struct gs_llist *l)
{
    return l->n;
}
/* 1 if node is in l. */
static inline int gs_llist_has(const struct gs_llist *l,
                               const struct gs_hnode *node)
{
    return node->seq > l->base && node->seq <= l->base + (uint64_t)l->cap &&
           l->a[node->seq - l->base - 1].node == node;
}
/* Put node in with key time, after every entry of no greater key: 0 or
 * GS_ENOMEM (upkeep, not counted).  node must be in no heap or list. */
int gs_llist_insert(struct gs_llist *l, struct gs_hnode *node, gs_time time);
/* Take node out (not counted; it must be in l). */
void gs_llist_remove(struct gs_llist *l, struct gs_hnode *node);
/* The first key (counted), GS_TIME_MAX when empty. */
static inline gs_time gs_llist_first_time(const struct gs_llist *l)
{
    if (l->head < 0)
        return GS_TIME_MAX;
    ++*l->work;
    return l->a[l->head].node->time;
}
/* Visit the nodes in order, counting each, until visit returns non-zero
 * (it must not change the list); that value, or 0. */
int gs_llist_walk(const struct gs_llist *l,
                  int (*visit)(struct gs_hnode *node, void *arg), void *arg);
/* Move every entry of q keyed below t, in q's order, to the end of l
 * (every key in l must be below the first moved): 0 or GS_ENOMEM.  Upkeep
 * of the policy's indexes, not counted, as a push or a removal is not. */
int gs_lheap_move_below(struct gs_lheap *q, gs_time t, struct gs_llist *l);

/* --- a counted vector of fixed-size entries ---------------------------- */
struct gs_lvec {
    char *a;
    long n, cap;
    size_t size;                /* bytes an entry */
    uint64_t *work;
};

static inline void gs_lvec_init(struct gs_lvec *v, struct gs_sim *sim,
                                size_t size)
{
    v->a = NULL;
    v->n = v->cap = 0;
    v->size = size;
    v->work = gs_sim_look_counter(sim);
}
void gs_lvec_free(struct gs_lvec *v);           /* NULL-safe */
/* Room for at least n entries (the new ones zeroed); aborts when out of
 * memory.  Entries may move. */
void gs_lvec_reserve(struct gs_lvec *v, long n);
static inline long gs_lvec_n(const struct gs_lvec *v)
{
    return v->n;
}
/* Entry i, read in a pass (counted). */
static inline void *gs_lvec_at(const struct gs_lvec *v, long i)
{
    ++*v->work;
    return v->a + (size_t)i * v->size;
}
/* Entry i, to change in a hook that named it (not counted: not a read of
 * the index, the way push and remove are not). */
static inline void *gs_lvec_upd(const struct gs_lvec *v, long i)
{
    return v->a + (size_t)i * v->size;
}
/* Append a zeroed entry and return it (not counted). */
static inline void *gs_lvec_push(struct gs_lvec *v)
{
    if (v->n == v->cap)
        gs_lvec_reserve(v, v->n + 1);
    void *e = v->a + (size_t)v->n++ * v->size;
    memset(e, 0, v->size);
    return e;
}
/* Move the last entry into slot i and drop the last (not counted).  The
 * common entries (an int, a pointer) are copied as such: a memcpy of a
 * size known only at run time is a call into the C library, and the
 * policies' passes remove entries at almost every start and stop. */
static inline void gs_lvec_del(struct gs_lvec *v, long i)
{
    if (i == --v->n)
        return;
    if (v->size == sizeof(int))
        ((int *)(void *)v->a)[i] = ((int *)(void *)v->a)[v->n];
    else if (v->size == sizeof(void *))
        ((void **)(void *)v->a)[i] = ((void **)(void *)v->a)[v->n];
    else
        memcpy(v->a + (size_t)i * v->size, v->a + (size_t)v->n * v->size,
               v->size);
}
/* Make the vector n entries long: new ones zeroed (not counted). */
static inline void gs_lvec_setn(struct gs_lvec *v, long n)
{
    if (n > v->cap)
        gs_lvec_reserve(v, n);
    if (n > v->n)
        memset(v->a + (size_t)v->n * v->size, 0,
               (size_t)(n - v->n) * v->size);
    v->n = n;
}

/* The common entries: a job, an index (of a group, a tenant, a class). */
struct gs_job;
static inline struct gs_job *gs_lvec_job(const struct gs_lvec *v, long i)
{
    return *(struct gs_job **)gs_lvec_at(v, i);
}
/* Append j (an entry of a job pointer's size, not counted): written whole,
 * without gs_lvec_push's zeroing (a call into the C library). */
static inline void gs_lvec_push_job(struct gs_lvec *v, struct gs_job *j)
{
    if (v->n == v->cap)
        gs_lvec_reserve(v, v->n + 1);
    ((struct gs_job **)(void *)v->a)[v->n++] = j;
}
static inline int gs_lvec_int(const struct gs_lvec *v, long i)
{
    return *(const int *)gs_lvec_at(v, i);
}
static inline void gs_lvec_push_int(struct gs_lvec *v, int x)
{
    if (v->n == v->cap)
        gs_lvec_reserve(v, v->n + 1);
    ((int *)(void *)v->a)[v->n++] = x;
}

#endif
