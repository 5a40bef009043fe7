/* fairinit.c -- fair's rare paths: its state's teardown and a new
 * group's shape.
 *
 * Code a run enters once, or once per new group, kept apart from fair.c's
 * per-event code (and cold, fairint.h's FAIR_COLD) so that what fair runs
 * at every start, stop and pass packs into fewer instruction-cache lines;
 * fair.c's essay says what each index is for, fairint.h holds the state. */
#include "policy.h"
#include "fairint.h"

#include <stdlib.h>

void gs_fair_free(void *state)
{
    struct fair *s = state;
    for (int t = 0; t < s->nt; t++) {
        gs_lvec_free(&((struct ten *)gs_lvec_upd(&s->ten, t))->ne);
        free(((struct ten *)gs_lvec_upd(&s->ten, t))->vn);
        free(((struct ten *)gs_lvec_upd(&s->ten, t))->vb);
    }
    gs_lvec_free(&s->ten);
    gs_jgroups_free(&s->gs);
    gs_lvec_free(&s->late);
    free(s->rfail);
    gs_lvec_free(&s->dead);
    free(s->pe);
    free(s->maxg);
    free(s->mshort);
    free(s->maxg_at);
    gs_lvec_free(&s->vjob);
    gs_lvec_free(&s->vkey);
    free(s->nvic);
    free(s->node_rv);
    free(s->vsz);
    gs_fairlv_free(&s->lx);
    gs_lvec_free(&s->cand);
    free(s->vict);
    free(s->rm_pe);
    gs_lvec_free(&s->om);
    gs_lvec_free(&s->od);
    gs_lvec_free(&s->oh);
    for (long k = 0; k < gs_lvec_n(&s->sh); k++)
    {
        struct shape *p = gs_lvec_upd(&s->sh, k);
        gs_lvec_free(&p->h[0]);
        gs_lvec_free(&p->h[1]);
        gs_lvec_free(&p->o);
        gs_lvec_free(&p->oq);
    }
    gs_lvec_free(&s->osq);
    gs_lvec_free(&s->oss);
    free(s->oqpos);
    free(s->ohead);
    free(s->olast);
    gs_lvec_free(&s->sh);
    gs_lvec_free(&s->sq);
    gs_lvec_free(&s->smiss);
    gs_lvec_free(&s->lend);
    gs_jgroups_free(&s->shp);
    free(s->gsh);
    gs_lvec_free(&s->ol);
    free(s->olpos);
    free(s->nepos);
    free(s->gin);
    free(s->opos);
    free(s->gov);
    free(s);
}

/* New group g, made for j: its shape (made when new) and owner slot. */
void gs_fair_shape_of(struct fair *s, int g, const struct gs_job *j)
{
    long n0 = s->shp.n;
    int k = gs_jgroups_of(&s->shp, j);
    if (k == n0) {
        struct shape *p = gs_lvec_push(&s->sh);
        gs_lvec_init(&p->h[0], s->sim, sizeof(int));
        gs_lvec_init(&p->h[1], s->sim, sizeof(int));
        gs_lvec_init(&p->o, s->sim, sizeof(int));
        gs_lvec_init(&p->oq, s->sim, sizeof(int));
        p->sqpos = -1;
        p->osqpos = -1;
    }
    long cap = s->capgsh;
    s->gsh = gs_grow(s->gsh, &s->capgsh, g + 1, sizeof *s->gsh);
    long cap2 = cap, cap3 = cap, cap4 = cap, cap5 = cap, cap6 = cap,
         cap7 = cap, cap8 = cap;
    s->olpos = gs_grow(s->olpos, &cap, g + 1, sizeof *s->olpos);
    s->nepos = gs_grow(s->nepos, &cap2, g + 1, sizeof *s->nepos);
    s->gin = gs_grow(s->gin, &cap3, g + 1, sizeof *s->gin);
    s->opos = gs_grow(s->opos, &cap4, g + 1, sizeof *s->opos);
    s->gov = gs_grow(s->gov, &cap5, g + 1, sizeof *s->gov);
    s->ohead = gs_grow(s->ohead, &cap6, g + 1, sizeof *s->ohead);
    s->oqpos = gs_grow(s->oqpos, &cap7, g + 1, sizeof *s->oqpos);
    s->olast = gs_grow(s->olast, &cap8, g + 1, sizeof *s->olast);
    s->capolpos = cap;
    s->gsh[g] = k;
    s->olpos[g] = -1;
    s->nepos[g] = -1;
    s->gin[g] = 0;
    s->opos[g] = -1;
    s->gov[g] = 0;
    s->ohead[g] = -1;
    s->olast[g] = -1;
    s->oqpos[g] = -1;
}
