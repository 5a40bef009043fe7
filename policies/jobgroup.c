/* jobgroup.c -- pending jobs grouped by what placement sees of them.
 *
 * See jobgroup.h.  The hash multiplies every keyed field by an odd
 * constant and folds the products (the constants of splitmix64 and
 * MurmurHash3's finalizer); equality then compares them all, the MIG
 * profile by name since a job's need points into its own spec. */
#include "jobgroup.h"
#include "../sim/base/err.h"
#include "../sim/core/sim.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *gs_grow(void *p, long *cap, long need, size_t size)
{
    if (need <= *cap)
        return p;
    long n = *cap > 0 ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(p, (size_t)n * size);
    GS_OOM_IF(q == NULL);
    *cap = n;
    return q;
}

void gs_jgroups_init(struct gs_jgroups *gs, struct gs_sim *sim,
                     int by_tenant)
{
    memset(gs, 0, sizeof *gs);
    gs->by_tenant = by_tenant;
    gs->sim = sim;
}

void gs_jgroups_free(struct gs_jgroups *gs)
{
    if (gs == NULL)
        return;
    for (int i = 0; i < gs->n; i++)
        gs_lheap_clear(&gs->g[i].q);
    free(gs->g);
    free(gs->slot);
    memset(gs, 0, sizeof *gs);
}

/* A product of each word with an odd constant, folded: the words are
 * mixed side by side instead of one after the other, so the hash costs a
 * few cycles, not a chain of dependent multiplies.  Only lookups use it:
 * groups are numbered in order of first use whatever it is. */
static uint32_t job_hash(const struct gs_jgroups *gs, const struct gs_job *j)
{
    uint64_t m;
    memcpy(&m, &j->need.mem_gb, sizeof m);
    uint64_t a = (uint64_t)(uint32_t)j->prio |
                 (uint64_t)(uint32_t)j->s.tier << 32;
    uint64_t b = (uint64_t)(uint32_t)j->preemptible |
                 (uint64_t)(uint32_t)(gs->by_tenant ? j->tenant : 0) << 32;
    uint64_t c = (uint64_t)(uint32_t)j->need.gpus << 32 |
                 (uint64_t)(uint32_t)j->need.milli;
    uint64_t d = (uint64_t)(uint32_t)j->need.guar << 32 |
                 (uint64_t)(uint32_t)j->need.burst;
    uint64_t e = (uint64_t)(uint32_t)j->need.cpu_milli << 32 |
                 (uint64_t)(uint32_t)j->need.mem_mib, v;
    memcpy(&v, &j->need.dev_gb, sizeof v);
    uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ b * 0xbf58476d1ce4e5b9ULL ^
                 c * 0x94d049bb133111ebULL ^ d * 0xd6e8feb86659fd93ULL ^
                 e * 0xff51afd7ed558ccdULL ^
                 (m ^ j->need.allowed * 0xff51afd7ed558ccdULL ^
                  j->need.tolerates * 0x9e3779b97f4a7c15ULL ^
                  v * 0xbf58476d1ce4e5b9ULL) *
                 0xc4ceb9fe1a85ec53ULL;
    if (j->need.profile)
        for (const char *p = j->need.profile; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return (uint32_t)(h >> 32);
}

static int alike(const struct gs_jgroups *gs, const struct gs_jgroup *g,
                 const struct gs_job *j)
{
    const struct gs_need *a = &g->need, *b = &j->need;
    return g->prio == j->prio && g->tier == j->s.tier &&
           g->preemptible == j->preemptible &&
           g->tenant == (gs->by_tenant ? j->tenant : -1) &&
           gs_need_same_asks(a, b) &&
           (b->profile ? strcmp(g->prof, b->profile) == 0
                       : g->prof[0] == '\0');
}

/* The hash table at twice the size (it is kept at most half full).  Out
 * of line, as is making a group: a lookup runs at every arrival, these
 * once per shape, and their code would sit in its cache lines. */
static __attribute__((noinline, cold)) void slots_grow(struct gs_jgroups *gs)
{
    int cap = gs->nslot ? gs->nslot * 2 : 64;
    int *h = malloc((size_t)cap * sizeof *h);
    GS_OOM_IF(h == NULL);
    for (int i = 0; i < cap; i++)
        h[i] = -1;
    for (int i = 0; i < gs->n; i++) {
        uint32_t k = gs->g[i].hash & (uint32_t)(cap - 1);
        while (h[k] >= 0)
            k = (k + 1) & (uint32_t)(cap - 1);
        h[k] = i;
    }
    free(gs->slot);
    gs->slot = h;
    gs->nslot = cap;
}

/* A new group for j's shape, of hash hash, at the empty slot k. */
static __attribute__((noinline, cold)) int
group_new(struct gs_jgroups *gs, const struct gs_job *j, uint32_t hash,
          uint32_t k)
{
    if (gs->n == gs->cap) {
        int cap = gs->cap ? gs->cap * 2 : 16;
        struct gs_jgroup *g = realloc(gs->g, (size_t)cap * sizeof *g);
        GS_OOM_IF(g == NULL);
        gs->g = g;
        gs->cap = cap;
    }
    struct gs_jgroup *g = &gs->g[gs->n];
    memset(g, 0, sizeof *g);
    g->prio = j->prio;
    g->tier = j->s.tier;
    g->preemptible = j->preemptible;
    g->tenant = gs->by_tenant ? j->tenant : -1;
    g->need = j->need;
    g->need.profile = NULL;
    if (j->need.profile)
        snprintf(g->prof, sizeof g->prof, "%s", j->need.profile);
    g->hash = hash;
    gs_lheap_init(&g->q, gs->sim);
    g->pos = -1;
    gs->slot[k] = gs->n;
    return gs->n++;
}

int gs_jgroups_of(struct gs_jgroups *gs, const struct gs_job *j)
{
    if (__builtin_expect(gs->n * 2 >= gs->nslot, 0))
        slots_grow(gs);
    uint32_t hash = job_hash(gs, j);
    uint32_t k = hash & (uint32_t)(gs->nslot - 1);
    for (; gs->slot[k] >= 0; k = (k + 1) & (uint32_t)(gs->nslot - 1)) {
        const struct gs_jgroup *g = &gs->g[gs->slot[k]];
        if (g->hash == hash && alike(gs, g, j))
            return gs->slot[k];
    }
    return group_new(gs, j, hash, k);
}

void gs_jgroup_add(struct gs_jgroups *gs, int g, struct gs_job *j)
{
    struct gs_lheap *q = &gs->g[g].q;
    q->h.seq = gs->seq;
    GS_OOM_IF(gs_lheap_push(q, &j->pnode, (gs_time)j->rec) < 0);
    gs->seq = q->h.seq;
}

void gs_jgroup_remove(struct gs_jgroup *g, struct gs_job *j)
{
    gs_lheap_remove(&g->q, &j->pnode);
}

struct gs_job *gs_jgroup_head(const struct gs_jgroup *g)
{
    struct gs_hnode *n = gs_lheap_top(&g->q);
    return n ? (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode))
             : NULL;
}

/* --- groups in order of their first jobs ---------------------------------- */

void gs_gorder_free(struct gs_gorder *o)
{
    if (o == NULL)
        return;
    free(o->a);
    o->a = NULL;
    o->n = o->cap = 0;
}

/* Entries lo..hi know their places again. */
static void go_renumber(struct gs_gorder *o, struct gs_jgroups *gs, long lo,
                        long hi)
{
    for (long i = lo; i <= hi && i < o->n; i++)
        gs->g[o->a[i]].pos = (int)i;
}

/* The group being placed: its first job, read (counted) when a comparison
 * first needs it -- a group alone in the array is placed without one. */
struct go_key {
    const struct gs_jgroup *g;
    const struct gs_job *h;
};

/* The group at index k goes before the one being placed. */
static int go_before(const struct gs_gorder *o, const struct gs_jgroups *gs,
                     struct go_key *x, long k)
{
    if (x->h == NULL)
        x->h = gs_jgroup_head(x->g);
    return o->before(gs_jgroup_head(&gs->g[o->a[k]]), x->h);
}

/* The first index in [lo, hi) whose group does not go before the one
 * being placed (hi if none); the groups there are sorted, so a binary
 * search. */
static long go_search(const struct gs_gorder *o, const struct gs_jgroups *gs,
                      struct go_key *x, long lo, long hi)
{
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (go_before(o, gs, x, mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The group at index i: the index it belongs at once taken out of the
 * array.  Its first job changed, so it moves some way either side; the
 * search gallops from where it is (reads O(log distance)).  A group
 * coming in has i = n, the end, where the newest jobs go. */
static long go_place(const struct gs_gorder *o, const struct gs_jgroups *gs,
                     struct go_key *x, long i)
{
    long n = o->n;
    if (i + 1 < n && go_before(o, gs, x, i + 1)) {      /* to the right */
        long last = i + 1, k, step = 1;
        for (;;) {
            k = last + step;
            if (k >= n) {
                k = n;
                break;
            }
            if (!go_before(o, gs, x, k))
                break;
            last = k;
            step *= 2;
        }
        return go_search(o, gs, x, last + 1, k) - 1;
    }
    if (i > 0 && !go_before(o, gs, x, i - 1)) {         /* to the left */
        long last = i - 1, k, step = 1;
        for (;;) {
            k = last - step;
            if (k < 0) {
                k = -1;
                break;
            }
            if (go_before(o, gs, x, k))
                break;
            last = k;
            step *= 2;
        }
        return go_search(o, gs, x, k + 1, last);
    }
    return i;
}

void gs_gorder_fix(struct gs_gorder *o, struct gs_jgroups *gs, int g)
{
    struct gs_jgroup *gr = &gs->g[g];
    long i = gr->pos, j;
    if (gs_jgroup_size(gr) == 0) {
        if (i < 0)
            return;
        memmove(&o->a[i], &o->a[i + 1], (size_t)(o->n - i - 1) * sizeof *o->a);
        o->n--;
        gr->pos = -1;
        if (i < o->cur)
            o->cur--;
        go_renumber(o, gs, i, o->n - 1);
        return;
    }
    struct go_key x = { gr, NULL };
    if (i < 0) {                                /* in */
        j = go_place(o, gs, &x, o->n);
        if (o->n == o->cap)
            o->a = gs_grow(o->a, &o->cap, o->n + 1, sizeof *o->a);
        memmove(&o->a[j + 1], &o->a[j], (size_t)(o->n - j) * sizeof *o->a);
        o->a[j] = g;
        o->n++;
        go_renumber(o, gs, j, o->n - 1);
    } else {                                    /* moved */
        j = go_place(o, gs, &x, i);
        if (j > i)
            memmove(&o->a[i], &o->a[i + 1], (size_t)(j - i) * sizeof *o->a);
        else if (j < i)
            memmove(&o->a[j + 1], &o->a[j], (size_t)(i - j) * sizeof *o->a);
        o->a[j] = g;
        go_renumber(o, gs, j < i ? j : i, j < i ? i : j);
        if (i < o->cur)
            o->cur--;
    }
    if (gr->aside == o->pass)
        gr->aside = 0;                          /* in the pass again */
    if (j < o->cur)                     /* every group before j is aside */
        o->cur = j;
}

int gs_gorder_next(struct gs_gorder *o, const struct gs_jgroups *gs)
{
    while (o->cur < o->n && gs->g[o->a[o->cur]].aside == o->pass)
        o->cur++;
    return o->cur < o->n ? o->a[o->cur] : -1;
}

void gs_gorder_aside(struct gs_gorder *o, struct gs_jgroups *gs, int g)
{
    GS_ASSERT(o->cur < o->n && o->a[o->cur] == g);
    gs->g[g].aside = o->pass;
    o->cur++;
}

/* --- the window ------------------------------------------------------------ */

static void win_join(struct gs_jwin *w, struct gs_job *j)
{
    w->add(w->ctx, j);
    w->n++;
}

void gs_jwin_leave(struct gs_jwin *w, struct gs_job *j)
{
    w->drop(w->ctx, j);
    w->n--;
}

void gs_jwin_arrive(struct gs_jwin *w, struct gs_job *j)
{
    if (w->nextout == NULL ? w->n < w->depth ||
                                 gs_sim_pending_next(w->sim, j) != NULL
                           : j->rec < w->nextout->rec)
        win_join(w, j);
    else if (w->nextout == NULL)
        w->nextout = j;
}

void gs_jwin_killed_outside(struct gs_jwin *w, struct gs_job *j)
{
    if (j == w->nextout)
        w->nextout = gs_sim_pending_next(w->sim, j);
}

void gs_jwin_settle(struct gs_jwin *w, struct gs_sim *sim)
{
    while (w->n > w->depth) {
        struct gs_job *last = w->nextout ? gs_sim_pending_prev(sim, w->nextout)
                                         : gs_sim_pending_tail(sim);
        gs_jwin_leave(w, last);
        w->nextout = last;
    }
    while (w->n < w->depth && w->nextout) {
        struct gs_job *j = w->nextout;
        w->nextout = gs_sim_pending_next(sim, j);
        win_join(w, j);
    }
}
