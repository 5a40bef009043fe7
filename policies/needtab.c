/* needtab.c -- the distinct needs of a policy's waiting jobs (needtab.h
 * has the essay).  Entries are allocated one by one and never move; the
 * live list swaps its last element into a removed one's place. */
#include "needtab.h"
#include "../sim/base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gs_needtab_init(struct gs_needtab *t, struct gs_sim *sim, size_t size)
{
    *t = (struct gs_needtab){ .size = size };
    gs_lvec_init(&t->live, sim, sizeof(int));
}

void gs_needtab_free(struct gs_needtab *t)
{
    if (t == NULL)
        return;
    for (int i = 0; i < t->n; i++)
        free(t->e[i]);
    free(t->e);
    gs_lvec_free(&t->live);
    free(t->pos);
    t->e = NULL;
    t->pos = NULL;
    t->n = t->cap = 0;
}

static int same(const struct gs_needkey *k, const struct gs_need *n,
                int tier)
{
    return k->tier == tier && gs_need_same_asks(&k->need, n) &&
           strcmp(k->profile, n->profile ? n->profile : "") == 0;
}

int gs_needtab_of(struct gs_needtab *t, const struct gs_need *need,
                  int tier, int *made)
{
    *made = 0;
    for (int i = 0; i < t->n; i++)
        if (same(t->e[i], need, tier))
            return i;
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        void **e = realloc(t->e, (size_t)cap * sizeof *e);
        if (e)
            t->e = e;
        int *p = realloc(t->pos, (size_t)cap * sizeof *p);
        if (p)
            t->pos = p;
        if (!e || !p)
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
    t->e[t->n] = k;
    t->pos[t->n] = -1;
    *made = 1;
    return t->n++;
}

void gs_needtab_live(struct gs_needtab *t, int i, int on)
{
    if (on && t->pos[i] < 0) {
        t->pos[i] = (int)gs_lvec_n(&t->live);
        *(int *)gs_lvec_push(&t->live) = i;
    } else if (!on && t->pos[i] >= 0) {
        long n = gs_lvec_n(&t->live);
        int last = *(int *)gs_lvec_upd(&t->live, n - 1);
        gs_lvec_del(&t->live, t->pos[i]);
        t->pos[last] = t->pos[i];
        t->pos[i] = -1;
    }
}
