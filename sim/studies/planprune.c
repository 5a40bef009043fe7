/* planprune.c -- the search's pruning by cost (plan.c's essay): each
 * combination's cost floor by count, the cap it puts on a probe, the
 * order the combinations start in, and a miss spread to the combinations
 * with less of the other searched pools.  plansearch.c calls them. */
#include "plan.h"
#include "planint.h"
#include "../setup/scenario.h"

#include <math.h>
#include <stdlib.h>

/* The cost floor of combination ci's candidate at idx (its scenario
 * built, not run; a count the scenario refuses floors at 0), remembered.
 * Non-decreasing in idx: only the bisected pool's nodes grow. */
static double combo_floor(const struct search *s, int ci, int idx)
{
    struct combo *c = &s->combo[ci];
    if (isnan(c->floor[idx])) {
        struct gs_scenario *sc = NULL;
        struct gs_diag d = { 0 };
        c->floor[idx] = gs_plan_cand_build(s, c, s->pc->ncounts ? idx : -1, 1, &sc,
                                   &d) == 0 ? gs_plan_cost_floor(sc) : 0;
        gs_scenario_free(sc);
        gs_diag_free(&d);
    }
    return c->floor[idx];
}

/* The dearest count of combination ci in (L, top] whose floor is within
 * best (the cost order's tolerance: an equal cost may still win on GPUs);
 * L when none is. */
int gs_plan_cap_index(const struct search *s, int ci, double best, int top)
{
    const struct combo *c = &s->combo[ci];
    double lim = best * (1 + 1e-9) + 1e-9;
    int lo = c->L, hi = top;
    if (hi <= lo)
        return lo;
    if (combo_floor(s, ci, hi) <= lim)
        return hi;
    while (hi - lo > 1) {           /* floor(lo) within, floor(hi) not */
        int mid = lo + (hi - lo) / 2;
        if (combo_floor(s, ci, mid) <= lim)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The count combination ci tries next while a plan costing best is known
 * (pruning by cost), or -1 when no count left can beat it: its bisection's
 * next count (the top, then the bracket's middle), capped at the dearest
 * count whose floor is within best.  c->capped: the cap bit, so every
 * count above the one returned costs more than the plan, and a miss there
 * prunes the combination.  (Trying the capped count first at every step,
 * a descent by cost, took 221 runs on plan-mixed-tier against the capped
 * bisection's 203.) */
int gs_plan_next_idx(const struct search *s, int ci, double best)
{
    struct combo *c = &s->combo[ci];
    int idx = c->state == K_TOP ? c->H : (c->L + c->H) / 2;
    int cap = gs_plan_cap_index(s, ci, best, idx);
    c->capped = cap < idx;
    return cap > c->L ? cap : -1;
}

struct keyed {
    double key;
    int i;
};

/* Cheaper first, then the enumeration's order. */
static int key_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

#define ORDER_BUILDS 512      /* more combinations start in enumeration
                                  order: a scenario built and held for
                                  each would cost more than the order
                                  saves */

/* The order the combinations start in: the cheapest at the top of its
 * range first (the price of its largest fleet): a plan it finds is cheap,
 * and caps the ranges of the dearer ones started after it.  A heuristic
 * for speed only: the answer does not depend on it (the cap is sound
 * whatever the order; plan-mixed-tier took 203 runs in this order, more
 * than 233 with the dearest fixed part first).  Each top's scenario is
 * kept for its first candidate (new_cand), so nothing is built twice. */
int gs_plan_order_combos(struct search *s, struct gs_diag *d)
{
    s->order = malloc((size_t)(s->ncombo + 1) * sizeof *s->order);
    struct keyed *k = malloc((size_t)(s->ncombo + 1) * sizeof *k);
    if (s->order == NULL || k == NULL) {
        free(k);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    for (int i = 0; i < s->ncombo; i++) {
        struct gs_scenario *sc = NULL;
        struct gs_diag dd = { 0 };
        k[i] = (struct keyed){ 0, i };
        struct combo *c = &s->combo[i];
        if (s->exhaustive || s->ncombo > ORDER_BUILDS ||
            gs_plan_cand_build(s, c, s->pc->ncounts ? c->H : -1, 1, &sc, &dd) < 0) {
            gs_scenario_free(sc);
            gs_diag_free(&dd);
            continue;
        }
        for (int p = 0; p < sc->npools; p++)
            k[i].key += sc->pools[p].price_hour * sc->pools[p].nodes;
        c->floor[c->H] = gs_plan_cost_floor(sc);
        c->top = sc;                /* its first candidate's scenario */
    }
    qsort(k, (size_t)s->ncombo, sizeof *k, key_cmp);
    for (int i = 0; i < s->ncombo; i++)
        s->order[i] = k[i].i;
    free(k);
    return 0;
}

/* Feasibility is monotone in every searched count, not only the bisected
 * one (plan.c's essay: more nodes or replicas of a pool never lengthen a
 * queue; the bisection assumes it of its count, and which count is
 * bisected is only the order the scenario lists them in).  So x, not
 * feasible at count idx of combination ci, says that no combination with
 * the same choices and at most ci's counts in every other searched pool
 * is feasible at idx or below: their brackets' floors rise to idx.  A
 * combination whose whole range is below is done (not feasible); one in
 * work keeps its candidate, and advance takes the higher floor.  Not with
 * --exhaustive, whose search assumes only the bisection's monotonicity. */
void gs_plan_spread_miss(struct search *s, int ci, const struct cand *x)
{
    const struct gs_plancfg *pc = s->pc;
    if (s->exhaustive || pc->ncounts < 2 || x->idx < 0 || x->dear ||
        x->status == C_FEASIBLE || x->status == C_PHYSICS)
        return;
    const struct combo *c = &s->combo[ci];
    for (int j = 0; j < s->ncombo; j++) {
        struct combo *o = &s->combo[j];
        if (j == ci || (o->state != K_TOP && o->state != K_BISECT) ||
            x->idx <= o->L)
            continue;
        int below = 1;
        for (int a = 0; a < pc->naxes && below; a++)
            below = o->ax[a] == c->ax[a];
        for (int q = 0; q + 1 < pc->ncounts && below; q++)
            below = o->cnt[q] <= c->cnt[q];
        if (!below)
            continue;
        o->L = x->idx;
        s->spread++;
        if (o->cur >= 0)
            continue;
        if (o->state == K_TOP && o->L >= o->H)
            o->state = K_INFEASIBLE;
        else if (o->state == K_BISECT && o->H - o->L <= 1)
            o->state = K_DONE;
    }
}
