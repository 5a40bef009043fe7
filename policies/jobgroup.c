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

int gs_jgroups_of(struct gs_jgroups *gs, const struct gs_job *j)
{
    if (gs->n * 2 >= gs->nslot) {
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
    uint32_t hash = job_hash(gs, j);
    uint32_t k = hash & (uint32_t)(gs->nslot - 1);
    for (; gs->slot[k] >= 0; k = (k + 1) & (uint32_t)(gs->nslot - 1)) {
        const struct gs_jgroup *g = &gs->g[gs->slot[k]];
        if (g->hash == hash && alike(gs, g, j))
            return gs->slot[k];
    }
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

void gs_gheap_free(struct gs_gheap *h)
{
    if (h == NULL)
        return;
    free(h->h);
    h->h = NULL;
    h->n = h->cap = 0;
}

static int gh_before(const struct gs_gheap *h, const struct gs_jgroups *gs,
                     int a, int b)
{
    return h->before(gs_jgroup_head(&gs->g[a]), gs_jgroup_head(&gs->g[b]));
}

static void gh_set(struct gs_gheap *h, struct gs_jgroups *gs, long i, int g)
{
    h->h[i] = g;
    gs->g[g].pos = (int)i;
}

static void gh_up(struct gs_gheap *h, struct gs_jgroups *gs, long i)
{
    int g = h->h[i];
    while (i > 0 && gh_before(h, gs, g, h->h[(i - 1) / 2])) {
        gh_set(h, gs, i, h->h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    gh_set(h, gs, i, g);
}

static void gh_down(struct gs_gheap *h, struct gs_jgroups *gs, long i)
{
    int g = h->h[i];
    for (;;) {
        long c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && gh_before(h, gs, h->h[c + 1], h->h[c]))
            c++;
        if (!gh_before(h, gs, h->h[c], g))
            break;
        gh_set(h, gs, i, h->h[c]);
        i = c;
    }
    gh_set(h, gs, i, g);
}

/* Take the group at heap index i out. */
static void gh_out(struct gs_gheap *h, struct gs_jgroups *gs, long i)
{
    gs->g[h->h[i]].pos = -1;
    int last = h->h[--h->n];
    if (i < h->n) {
        gh_set(h, gs, i, last);
        gh_up(h, gs, i);
        gh_down(h, gs, gs->g[last].pos);
    }
}

void gs_gheap_fix(struct gs_gheap *h, struct gs_jgroups *gs, int g)
{
    long i = gs->g[g].pos;
    if (gs_jgroup_size(&gs->g[g]) == 0) {
        if (i >= 0)
            gh_out(h, gs, i);
        return;
    }
    if (i < 0) {
        if (h->n == h->cap)
            h->h = gs_grow(h->h, &h->cap, h->n + 1, sizeof *h->h);
        i = h->n++;
        gh_set(h, gs, i, g);
    }
    gh_up(h, gs, i);
    gh_down(h, gs, gs->g[g].pos);
}

void gs_gheap_pop(struct gs_gheap *h, struct gs_jgroups *gs)
{
    if (h->n > 0)
        gh_out(h, gs, 0);
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
