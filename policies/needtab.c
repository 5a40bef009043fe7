/* needtab.c -- the distinct needs of a policy's waiting jobs (needtab.h
 * has the essay).  Entries are allocated one by one and never move; the
 * hash holds their indexes and is rebuilt at twice the size when half
 * full; the live list and the families' lists swap their last element
 * into a removed one's place.  A new need finds its family by a scan of
 * the families (a few: one per GPU count and set of pools). */
#include "needtab.h"
#include "../sim/base/err.h"
#include "../sim/core/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A new family of g GPUs on pools[0..npools): its index, or GS_ENOMEM. */
static int fam_new(struct gs_needtab *t, int g, const int *pools, int npools)
{
    if (t->nfam == t->capfam) {
        int cap = t->capfam ? 2 * t->capfam : 8;
        struct gs_needfam *v = realloc(t->fam, (size_t)cap * sizeof *v);
        if (v == NULL)
            return GS_ENOMEM;
        t->fam = v;
        t->capfam = cap;
    }
    struct gs_needfam *fm = &t->fam[t->nfam];
    *fm = (struct gs_needfam){ .g = g, .pools = pools, .npools = npools };
    for (int k = 0; k < 2; k++)
        gs_lvec_init(&fm->live[k], t->sim, sizeof(int));
    return t->nfam++;
}

void gs_needtab_init(struct gs_needtab *t, struct gs_sim *sim, size_t size)
{
    *t = (struct gs_needtab){ .size = size, .fleet = gs_sim_fleet(sim),
                              .sim = sim };
    t->repeat = gs_sim_misses_repeat(sim) &&
                gs_sim_scenario(sim)->topo.gang != GS_GANG_SPREAD;
    gs_lvec_init(&t->live, sim, sizeof(int));
    GS_OOM_IF(fam_new(t, 0, NULL, 0) < 0);
}

void gs_needtab_free(struct gs_needtab *t)
{
    if (t == NULL)
        return;
    for (int i = 0; i < t->n; i++) {
        free(((struct gs_needkey *)t->e[i])->pools);
        free(t->e[i]);
    }
    free(t->e);
    free(t->hash);
    gs_lvec_free(&t->live);
    free(t->pos);
    for (int f = 0; f < t->nfam; f++)
        for (int k = 0; k < 2; k++)
            gs_lvec_free(&t->fam[f].live[k]);
    free(t->fam);
    free(t->fpos);
    t->e = NULL;
    t->fam = NULL;
    t->pos = t->hash = t->fpos = NULL;
    t->n = t->cap = t->hcap = t->nfam = t->capfam = 0;
}

static int same(const struct gs_needkey *k, const struct gs_need *n,
                int tier)
{
    return k->tier == tier && gs_need_same_asks(&k->need, n) &&
           strcmp(k->profile, n->profile ? n->profile : "") == 0;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

static uint64_t bits(double x)
{
    uint64_t b;
    x = x == 0 ? 0 : x;         /* -0 asks what 0 does */
    memcpy(&b, &x, sizeof b);
    return b;
}

/* A hash of what same() compares. */
static uint64_t hash_of(const struct gs_need *n, int tier)
{
    uint64_t h = mix((uint64_t)(uint32_t)n->gpus, (uint64_t)(uint32_t)n->milli);
    h = mix(h, bits(n->mem_gb));
    h = mix(h, n->allowed);
    h = mix(h, n->tolerates);
    h = mix(h, (uint64_t)(uint32_t)n->guar << 32 | (uint32_t)n->burst);
    h = mix(h, (uint64_t)(uint32_t)n->cpu_milli << 32 | (uint32_t)n->mem_mib);
    h = mix(h, bits(n->dev_gb));
    h = mix(h, (uint64_t)(uint32_t)tier);
    for (const char *p = n->profile ? n->profile : ""; *p; p++)
        h = mix(h, (unsigned char)*p);
    return h ^ h >> 32;
}

/* The slot of need and tier in the hash: its entry's, or the empty one
 * where it goes. */
static int slot_of(const struct gs_needtab *t, const struct gs_need *need,
                   int tier)
{
    int k = (int)(hash_of(need, tier) & (uint64_t)(t->hcap - 1));
    while (t->hash[k] >= 0 && !same(t->e[t->hash[k]], need, tier))
        k = (k + 1) & (t->hcap - 1);
    return k;
}

/* Hash every entry anew in a table of hcap slots (a power of two). */
static int rehash(struct gs_needtab *t, int hcap)
{
    int *h = malloc((size_t)hcap * sizeof *h);
    if (h == NULL)
        return GS_ENOMEM;
    for (int i = 0; i < hcap; i++)
        h[i] = -1;
    free(t->hash);
    t->hash = h;
    t->hcap = hcap;
    for (int i = 0; i < t->n; i++) {
        const struct gs_needkey *k = t->e[i];
        t->hash[slot_of(t, &k->need, k->tier)] = i;
    }
    return 0;
}

/* The pools a job of k's need may ever use. */
static int pools_of(const struct gs_needtab *t, struct gs_needkey *k)
{
    const struct gs_fleet *f = t->fleet;
    k->pools = malloc(((size_t)f->npools + 1) * sizeof *k->pools);
    if (k->pools == NULL)
        return GS_ENOMEM;
    for (int p = 0; p < f->npools; p++)
        if (gs_fleet_pool_eligible(f, p, &k->need))
            k->pools[k->npools++] = p;
    return 0;
}

/* k's family: 0 unless a miss of k can be foreseen from the pools' masks
 * (the cases gs_needtab_sure_miss tells), else the family of its GPU
 * count and pools, made if new; GS_ENOMEM when out of memory. */
static int family_of(struct gs_needtab *t, const struct gs_needkey *k)
{
    const struct gs_fleet *f = t->fleet;
    int g = k->need.gpus;
    if (!t->repeat || g <= 0 || k->need.profile || k->npools == 0)
        return 0;
    for (int i = 0; i < k->npools; i++) {
        const struct gs_pool *pl = &f->pools[k->pools[i]];
        if (pl->mig || pl->s.share.mode != GS_SHARE_NONE || g > pl->s.gpn)
            return 0;
    }
    for (int i = 1; i < t->nfam; i++)
        if (t->fam[i].g == g && t->fam[i].npools == k->npools &&
            memcmp(t->fam[i].pools, k->pools,
                   (size_t)k->npools * sizeof *k->pools) == 0)
            return i;
    return fam_new(t, g, k->pools, k->npools);
}

int gs_needtab_of(struct gs_needtab *t, const struct gs_need *need,
                  int tier, int *made)
{
    *made = 0;
    if (2 * (t->n + 1) > t->hcap &&
        rehash(t, t->hcap ? 2 * t->hcap : 32) < 0)
        return GS_ENOMEM;
    int slot = slot_of(t, need, tier);
    if (t->hash[slot] >= 0)
        return t->hash[slot];
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        void **e = realloc(t->e, (size_t)cap * sizeof *e);
        if (e)
            t->e = e;
        int *p = realloc(t->pos, (size_t)cap * sizeof *p);
        if (p)
            t->pos = p;
        int *fp = realloc(t->fpos, (size_t)cap * sizeof *fp);
        if (fp)
            t->fpos = fp;
        if (!e || !p || !fp)
            return GS_ENOMEM;
        gs_lvec_reserve(&t->live, cap);
        t->cap = cap;
    }
    struct gs_needkey *k = calloc(1, t->size);
    if (k == NULL)
        return GS_ENOMEM;
    k->need = *need;
    k->tier = tier;
    if (need->profile)
        snprintf(k->profile, sizeof k->profile, "%s", need->profile);
    k->need.profile = need->profile ? k->profile : NULL;
    if (pools_of(t, k) < 0 || (k->fam = family_of(t, k)) < 0) {
        free(k->pools);
        free(k);
        return GS_ENOMEM;
    }
    t->e[t->n] = k;
    t->pos[t->n] = -1;
    t->fpos[t->n] = -1;
    t->hash[slot] = t->n;
    *made = 1;
    return t->n++;
}

int gs_sure_miss(const struct gs_fleet *f, const struct gs_need *need,
                 const int *pools, int npools, const int *skip, int nskip)
{
    int g = need->gpus;
    if (g <= 0 || need->profile || npools == 0)
        return 0;
    long room = 0;              /* open nodes with g GPUs fully free */
    for (int i = 0; i < npools; i++) {
        const struct gs_pool *pl = &f->pools[pools[i]];
        if (pl->mig || pl->s.share.mode != GS_SHARE_NONE || g > pl->s.gpn)
            return 0;
        if ((pl->fmask[1] >> g) == 0)
            continue;           /* the root's mask: no such node */
        if (nskip == 0)
            return 0;
        for (int v = g; v <= pl->s.gpn; v++)
            room += pl->ncount[v];
    }
    for (int i = 0; i < nskip && room > 0; i++) {
        const struct gs_node *nd = &f->nodes[skip[i]];
        if (nd->fval < g)
            continue;           /* not counted, or too little free */
        for (int p = 0; p < npools; p++)
            if (pools[p] == nd->pool)
                room--;
    }
    return room == 0;
}

int gs_sure_miss_in(const struct gs_fleet *f, const struct gs_need *need,
                    const struct gs_range *r, int n)
{
    int g = need->gpus;
    if (g <= 0 || need->profile)
        return 0;
    for (int i = 0; i < n; i++) {
        const struct gs_pool *pl = &f->pools[r[i].pool];
        if (pl->mig || pl->s.share.mode != GS_SHARE_NONE || g > pl->s.gpn ||
            gs_fleet_most_free(f, &r[i]) >= g)
            return 0;
    }
    return 1;
}

int gs_job_sure_miss(struct gs_sim *sim, const struct gs_job *j,
                     const struct gs_range *r, int n)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int g = j->need.gpus;
    if (g <= 0 || j->need.profile || !gs_sim_misses_repeat(sim) ||
        (g > 1 && gs_sim_scenario(sim)->topo.gang == GS_GANG_SPREAD))
        return 0;
    if (r != NULL)
        return gs_sure_miss_in(f, &j->need, r, n);
    for (int p = 0; p < f->npools; p++) {
        const struct gs_pool *pl = &f->pools[p];
        if (!pl->mig && pl->s.share.mode == GS_SHARE_NONE &&
            g <= pl->s.gpn && (pl->fmask[1] >> g) == 0)
            continue;           /* no open node of it has g GPUs free */
        if (gs_fleet_pool_eligible(f, p, &j->need) &&
            gs_sim_pool_ok(sim, p, j))
            return 0;
    }
    return 1;
}

int gs_needtab_all_miss(const struct gs_needtab *t)
{
    for (int f = 0; f < t->nfam; f++)
        if ((gs_needtab_fam_n(t, f, 0) > 0 || gs_needtab_fam_n(t, f, 1) > 0) &&
            !gs_needtab_fam_misses(t, f))
            return 0;
    return 1;
}

/* Put entry i into list v (its index at *pos), or take it out. */
static void list_put(struct gs_lvec *v, int *pos, int i, int on)
{
    if (on) {
        pos[i] = (int)gs_lvec_n(v);
        *(int *)gs_lvec_push(v) = i;
    } else {
        long n = gs_lvec_n(v);
        int last = *(int *)gs_lvec_upd(v, n - 1);
        gs_lvec_del(v, pos[i]);
        pos[last] = pos[i];
        pos[i] = -1;
    }
}

static struct gs_lvec *fam_list(struct gs_needtab *t, int i)
{
    const struct gs_needkey *k = t->e[i];
    return &t->fam[k->fam].live[k->loud];
}

void gs_needtab_live(struct gs_needtab *t, int i, int on)
{
    if ((t->pos[i] >= 0) == (on != 0))
        return;
    list_put(&t->live, t->pos, i, on);
    list_put(fam_list(t, i), t->fpos, i, on);
}

void gs_needtab_loud(struct gs_needtab *t, int i, int on)
{
    struct gs_needkey *k = t->e[i];
    if (k->loud == (on != 0))
        return;
    int live = t->pos[i] >= 0;
    if (live)
        list_put(fam_list(t, i), t->fpos, i, 0);
    k->loud = on != 0;
    if (live)
        list_put(fam_list(t, i), t->fpos, i, 1);
}
