/* fair.c -- guaranteed quotas, borrowing of idle capacity, reclaim, and
 * dominant-resource fairness between tenants.
 *
 * The model is the one of Kubernetes' capacity schedulers (Kueue's
 * ClusterQueue "nominalQuota" with borrowing, YARN's capacity scheduler,
 * Run:ai's "deserved quota" and over-quota) with the fairness of DRF
 * (Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple
 * Resource Types", NSDI 2011):
 *
 *   - each tenant of the scenario ("tenants": [{"name", "quota_gpus",
 *     "weight"}]) is guaranteed quota_gpus GPUs; a tenant the scenario does
 *     not list has no guarantee and weight 1;
 *   - a job that keeps its tenant within its guarantee is "owned": it starts
 *     first, and if the fleet has no room it reclaims capacity by
 *     preempting borrowers;
 *   - capacity nobody claims is lent: jobs beyond their tenant's guarantee
 *     start in DRF order -- the tenant with the lowest dominant share
 *     max(GPUs held / fleet GPUs, GPU memory held / fleet GPU memory),
 *     divided by its weight, goes next -- and become borrowers;
 *   - reclaim frees exactly what the owner needs: on the node that needs the
 *     fewest GPUs freed, it preempts borrowers (jobs of other tenants whose
 *     tenant stays at or above its own guarantee without them), largest
 *     first among those not exceeding the remaining deficit, then the
 *     smallest one that covers what is left; nothing else is touched.
 *     Preempted jobs keep their work up to their last checkpoint and pay
 *     their tier's restart overhead (sim.c).
 *
 * Tier rules (DESIGN.md): inference is strict and non-preemptible -- its
 * jobs go first in every pass and, since a non-preemptible borrower could
 * never be reclaimed, a non-preemptible job may exceed its tenant's
 * guarantee only into capacity no tenant is guaranteed (fleet GPUs minus the
 * sum of quotas); training (and data) are fair and burstable: they borrow
 * and are reclaimed; interactive jobs run on the GPU fractions they ask for,
 * packed onto shared GPUs by the placer, counted in the shares by fraction
 * and GPU memory, and borrow and are reclaimed like training.
 *
 * What reclaim does not do: make room for a gang larger than one node, or
 * free part of a shared GPU (a fractional owner reclaims one whole GPU).
 * Such owners wait for borrowers to end, as they would under Kueue.
 *
 * Tenants are kept in a heap by dominant share (the tenant heap: those
 * with a window job not set aside, least share first, ties to the lower
 * index), fixed at each start, stop and change of a tenant's groups: the
 * borrowers' next tenant is its top, and the owners' pass walks only the
 * tenants with jobs, not every tenant the run has seen, so a pass costs
 * O(log T) a change rather than O(T) a start.
 *
 * Parameters: reclaim (bool, true), depth (pending jobs looked at per pass,
 * 1000).  Bookkeeping: a running job's pslot holds F_RUN | F_BORROWED (and,
 * when it could ever be a victim, F_VIC and its index in the victim array
 * shifted left by 8), its
 * pnode.time the GPUs (in milli) it holds beyond its tenant's guarantee
 * when it is non-preemptible. */
#include "policy.h"
#include "jobgroup.h"
#include "../sim/core/sim.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define F_RUN 1L
#define F_BORROWED 2L
#define F_WIN 4L                /* pending, in the window; group << 8 */
#define F_VIC 8L                /* running, in rv; index << 8 */
#define EPS 1e-9

struct ten {
    double quota, weight;
    double gpus, mem;           /* held now */
    int *grp;                   /* its groups of window jobs */
    long ngrp, capgrp;
    struct gs_gheap gh;         /* those with a job, by first job (set
                                   aside ones out during borrowers()) */
    /* Its running jobs that could ever be victims (preemptible, whole
     * GPUs on one node), compact for reclaim's scan; jobs in rvj. */
    struct rv { int node, gpus, pool; } *rv;
    struct gs_job **rvj;
    long nrv, caprv;
    int lender;                 /* counted in nlender */
    int tpos;                   /* its place in the tenant heap, -1 out */
    double key;                 /* its dominant share there */
};

struct fair {
    struct ten *t;
    int nt, capt;
    double fleet_gpus, fleet_mem;
    double unreserved;          /* fleet GPUs no tenant is guaranteed */
    double np_over;             /* non-preemptible GPUs held beyond quotas */
    int reclaim;
    long depth;
    /* The window (jobgroup.h): the first `depth` pending jobs, in groups
     * by tenant and shape. */
    struct gs_jgroups gs;
    struct gs_jwin win;
    struct gs_sim *sim;
    int in_pass;
    struct gs_job **late;       /* requeued during a pass, placed after */
    long nlate, caplate;
    uint64_t ver;               /* moves on every start, stop and pass */
    uint64_t *rfail;            /* per group: ver of its last failed
                                   reclaim search */
    int caprfail;
    int *dead, capdead;         /* scratch: groups out for the pass */
    struct gs_job **cand;       /* scratch: owners to try, jobs put aside */
    long ncand, capcand;
    char *pe;                   /* scratch: pools eligible, per reclaim */
    int *maxg;                  /* scratch: per tenant, the largest victim
                                   it can lose and keep its guarantee */
    int capmaxg;
    long nrv;                   /* such jobs, over all tenants */
    int *node_rv;               /* per node: their GPUs there */
    int *own;                   /* scratch: per node, the owner's GPUs */
    int maxgpn;
    int *recl;                  /* scratch: reclaimable GPUs per node */
    struct gs_job **vict;       /* scratch: victims on one node */
    long capvict;
    long reclaims, reclaimed;   /* counters, for tests */
    /* Tenants that could lose a victim to another tenant's owner: at least
     * one GPU above their guarantee (is_victim's test for the smallest
     * victim) with a job in rv.  None, and reclaim cannot find a victim:
     * a pass on a full fleet then has nothing to do for owners. */
    int nlender;
    /* owners_merge()'s scratch: groups in play by first job (om), groups
     * set aside until something changes (od), jobs taken out of their
     * groups for the pass (oh, put back at its end). */
    int *om, *od;
    long nom, nod, capom, capod;
    struct gs_job **oh;
    long noh, capoh;
    /* The tenant heap: the tenants with a group in their gh (a window job
     * not set aside), least dominant share first, ties to the lower index
     * -- borrowers()' choice, and owners()' list of tenants with jobs --
     * kept as shares and groups change (tfix), O(log T) a change. */
    int *th;
    int nth, capth;
    /* A pass that changed nothing is not run again on the same state:
     * idle says the last one started and preempted nothing (ver moved by
     * its own ++ only) while misses repeat; the next is skipped while ver,
     * the window (wchg counts its joins and leaves) and the fleet's
     * capacity (fw, a watch of every node: gs_sim_watch) stay as that pass
     * left them. */
    int fw;
    uint64_t wchg;
    int idle;
    uint64_t idle_ver, idle_wchg, idle_ep;
};

static int cand_before(const struct gs_job *x, const struct gs_job *y);

static void ten_ensure(struct fair *s, struct gs_sim *sim, int t)
{
    while (t >= s->nt) {
        if (s->nt == s->capt) {
            int cap = s->capt ? s->capt * 2 : 16;
            struct ten *n = realloc(s->t, (size_t)cap * sizeof *n);
            GS_OOM_IF(n == NULL);
            s->t = n;
            s->capt = cap;
        }
        const struct gs_tenant *tc = gs_sim_tenant(sim, s->nt);
        s->t[s->nt] = (struct ten){ .quota = tc ? tc->quota_gpus : 0.0,
                                    .weight = tc ? tc->weight : 1.0,
                                    .gh.before = cand_before,
                                    .tpos = -1 };
        s->nt++;
    }
}

static void win_add(void *ctx, struct gs_job *j);
static void win_drop(void *ctx, struct gs_job *j);

static int fair_init(struct gs_sim *sim, struct gs_params *p, void **state,
                     struct gs_diag *d)
{
    struct fair *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->reclaim = 1;
    s->depth = 1000;
    int rc;
    if ((rc = gs_params_bool(p, "reclaim", &s->reclaim, d)) < 0 ||
        (rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d)) < 0) {
        free(s);
        return rc;
    }
    const struct gs_fleet *f = gs_sim_fleet(sim);
    const struct gs_scenario *sc = gs_sim_scenario(sim);
    for (int i = 0; i < f->npools; i++) {
        double g = (double)f->pools[i].s.nodes * f->pools[i].s.gpn;
        s->fleet_gpus += g;
        s->fleet_mem += g * sc->cat.m[f->pools[i].s.model].mem_gb;
    }
    double quotas = 0;
    for (int i = 0; i < sc->ntenants; i++)
        quotas += sc->tenants[i].quota_gpus;
    s->unreserved = s->fleet_gpus - quotas;
    s->recl = calloc((size_t)f->nnodes + 1, sizeof *s->recl);
    s->pe = calloc((size_t)f->npools + 1, 1);
    s->node_rv = calloc((size_t)f->nnodes + 1, sizeof *s->node_rv);
    s->own = calloc((size_t)f->nnodes + 1, sizeof *s->own);
    for (int i = 0; i < f->npools; i++)
        if (f->pools[i].s.gpn > s->maxgpn)
            s->maxgpn = f->pools[i].s.gpn;
    /* every node range fair books, one per pool, watched as a whole */
    struct gs_range *all = malloc((size_t)(f->npools + 1) * sizeof *all);
    int fw = -1;
    if (all != NULL && s->recl != NULL && s->pe != NULL &&
        s->node_rv != NULL && s->own != NULL) {
        for (int i = 0; i < f->npools; i++)
            all[i] = (struct gs_range){ i, 0, f->pools[i].s.nodes };
        fw = gs_sim_watch(sim, all, f->npools);
    }
    free(all);
    if (fw < 0) {
        free(s->recl);
        free(s->pe);
        free(s->node_rv);
        free(s->own);
        free(s);
        return GS_ENOMEM;
    }
    s->fw = fw;
    gs_jgroups_init(&s->gs, 1);
    s->sim = sim;
    s->win = (struct gs_jwin){ .depth = s->depth, .add = win_add,
                               .drop = win_drop, .ctx = s };
    *state = s;
    return 0;
}

static void fair_free(void *state)
{
    struct fair *s = state;
    for (int t = 0; t < s->nt; t++) {
        free(s->t[t].grp);
        gs_gheap_free(&s->t[t].gh);
        free(s->t[t].rv);
        free(s->t[t].rvj);
    }
    free(s->t);
    gs_jgroups_free(&s->gs);
    free(s->late);
    free(s->rfail);
    free(s->dead);
    free(s->pe);
    free(s->maxg);
    free(s->node_rv);
    free(s->own);
    free(s->cand);
    free(s->recl);
    free(s->vict);
    free(s->om);
    free(s->od);
    free(s->oh);
    free(s->th);
    free(s);
}

static double job_gpus(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

/* Could a job of group g keep tenant t within its guarantee (owner_try's
 * quota test, the same sum: a group's jobs share their need)? */
static int within(const struct fair *s, int t, int g)
{
    const struct gs_need *n = &s->gs.g[g].need;
    double gp = n->gpus > 0 ? n->gpus : n->milli / 1000.0;
    return !(s->t[t].gpus + gp > s->t[t].quota + EPS);
}

/* GPU memory a running job holds, GB (what gs_fleet_commit takes). */
static double job_mem(struct gs_sim *sim, const struct gs_job *j)
{
    double full = gs_sim_scenario(sim)->cat.m[j->model].mem_gb;
    if (j->need.gpus > 0)
        return j->need.gpus * full;
    return j->need.mem_gb > 0 ? j->need.mem_gb : full * j->need.milli / 1000.0;
}

static double dom_share(const struct fair *s, int t)
{
    const struct ten *x = &s->t[t];
    double g = s->fleet_gpus > 0 ? x->gpus / s->fleet_gpus : 0;
    double m = s->fleet_mem > 0 ? x->mem / s->fleet_mem : 0;
    return (g > m ? g : m) / x->weight;
}

/* --- the tenant heap ----------------------------------------------------- */

static int th_before(const struct fair *s, int a, int b)
{
    double x = s->t[a].key, y = s->t[b].key;
    return x != y ? x < y : a < b;
}

static void th_set(struct fair *s, long i, int t)
{
    s->th[i] = t;
    s->t[t].tpos = (int)i;
}

static void th_up(struct fair *s, long i)
{
    int t = s->th[i];
    while (i > 0 && th_before(s, t, s->th[(i - 1) / 2])) {
        th_set(s, i, s->th[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    th_set(s, i, t);
}

static void th_down(struct fair *s, long i)
{
    int t = s->th[i];
    for (;;) {
        long c = 2 * i + 1;
        if (c >= s->nth)
            break;
        if (c + 1 < s->nth && th_before(s, s->th[c + 1], s->th[c]))
            c++;
        if (!th_before(s, s->th[c], t))
            break;
        th_set(s, i, s->th[c]);
        i = c;
    }
    th_set(s, i, t);
}

/* Put tenant t where its groups and share say: in the heap when its gh
 * holds a group, at the key dom_share(t).  Called after every change of
 * either. */
static void tfix(struct fair *s, int t)
{
    struct ten *x = &s->t[t];
    int in = x->gh.n > 0;
    if (!in) {
        if (x->tpos >= 0) {
            long i = x->tpos, last = --s->nth;
            x->tpos = -1;
            if (i != last) {
                th_set(s, i, s->th[last]);
                th_up(s, i);
                th_down(s, s->t[s->th[i]].tpos);
            }
        }
        return;
    }
    double k = dom_share(s, t);
    if (x->tpos >= 0 && k == x->key)
        return;
    x->key = k;
    if (x->tpos < 0) {
        if (s->nth == s->capth) {
            int cap = s->capth ? s->capth * 2 : 64;
            int *h = realloc(s->th, (size_t)cap * sizeof *h);
            GS_OOM_IF(h == NULL);
            s->th = h;
            s->capth = cap;
        }
        th_set(s, s->nth++, t);
        th_up(s, x->tpos);
    } else {
        th_up(s, x->tpos);
        th_down(s, x->tpos);
    }
}

/* gs_gheap_fix / gs_gheap_pop on tenant t's gh, keeping the tenant heap. */
static void gfix(struct fair *s, int t, int g)
{
    gs_gheap_fix(&s->t[t].gh, &s->gs, g);
    if ((s->t[t].gh.n > 0) != (s->t[t].tpos >= 0))    /* the share stays */
        tfix(s, t);
}

/* Keep tenant x's place in nlender right after its GPUs or rv changed. */
static void lender_fix(struct fair *s, struct ten *x)
{
    int l = x->nrv > 0 && x->gpus - 1.0 >= x->quota - EPS;
    s->nlender += l - x->lender;
    x->lender = l;
}

/* Start j (anywhere, or within r) and book it to its tenant. */
static int start(struct fair *s, struct gs_sim *sim, struct gs_job *j,
                 const struct gs_range *r, int nr)
{
    ten_ensure(s, sim, j->tenant);
    struct ten *x = &s->t[j->tenant];
    double g = job_gpus(j);
    double over = x->gpus + g - x->quota;
    if (over < 0)
        over = 0;
    if (over > g)
        over = g;
    if (!j->preemptible && over > EPS && s->np_over + over > s->unreserved + EPS)
        return -1;              /* strict: never borrow what others own */
    if (gs_sim_try_start(sim, j, r, nr) < 0)
        return -1;
    if (j->pslot & F_WIN)
        gs_jwin_leave(&s->win, j);
    s->ver++;
    x->gpus += g;
    x->mem += job_mem(sim, j);
    j->pslot = F_RUN | (over > EPS ? F_BORROWED : 0);
    if (j->preemptible && j->alloc.n == 1 && j->need.gpus > 0) {
        if (x->nrv == x->caprv) {
            long cap = x->caprv ? x->caprv * 2 : 64;
            struct rv *v = realloc(x->rv, (size_t)cap * sizeof *v);
            GS_OOM_IF(v == NULL);
            x->rv = v;
            struct gs_job **vj = realloc(x->rvj, (size_t)cap * sizeof *vj);
            GS_OOM_IF(vj == NULL);
            x->rvj = vj;
            x->caprv = cap;
        }
        x->rv[x->nrv] = (struct rv){ j->alloc.one.node, j->need.gpus,
                                     j->alloc.pool };
        x->rvj[x->nrv] = j;
        j->pslot |= F_VIC | x->nrv << 8;
        x->nrv++;
        s->nrv++;
        s->node_rv[j->alloc.one.node] += j->need.gpus;
    }
    j->pnode.time = 0;
    if (!j->preemptible && over > EPS) {
        j->pnode.time = (gs_time)(over * 1000.0 + 0.5);
        s->np_over += over;
    }
    lender_fix(s, x);
    tfix(s, j->tenant);
    return 0;
}

static void fair_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                         int why)
{
    (void)why;
    struct fair *s = state;
    if (!(j->pslot & F_RUN)) {  /* a pending job killed while waiting */
        if (j->pslot & F_WIN)
            gs_jwin_leave(&s->win, j);
        else
            gs_jwin_killed_outside(&s->win, j);
        return;
    }
    s->ver++;
    ten_ensure(s, sim, j->tenant);
    struct ten *x = &s->t[j->tenant];
    x->gpus -= job_gpus(j);
    x->mem -= job_mem(sim, j);
    if (x->gpus < EPS)          /* no rounding residue once idle */
        x->gpus = 0;
    if (x->mem < EPS)
        x->mem = 0;
    s->np_over -= (double)j->pnode.time / 1000.0;
    j->pnode.time = 0;
    if (j->pslot & F_VIC) {             /* swap-remove from rv */
        long i = j->pslot >> 8, last = --x->nrv;
        s->nrv--;
        s->node_rv[x->rv[i].node] -= x->rv[i].gpus;
        if (i != last) {
            x->rv[i] = x->rv[last];
            x->rvj[i] = x->rvj[last];
            x->rvj[i]->pslot = (x->rvj[i]->pslot & 0xff) | i << 8;
        }
    }
    lender_fix(s, x);
    tfix(s, j->tenant);
    j->pslot = 0;
}

/* Could v be preempted to give room to owner j?  Its tenant must keep at
 * least its own guarantee without it. */
static int is_victim(const struct fair *s, const struct gs_fleet *f,
                     const struct gs_job *v, const struct gs_job *j)
{
    if (!v->preemptible || v->alloc.n != 1 || v->need.gpus == 0 ||
        v->tenant == j->tenant || !(v->pslot & F_RUN) ||
        !gs_fleet_pool_eligible(f, v->alloc.pool, &j->need))
        return 0;
    const struct ten *x = &s->t[v->tenant];
    return x->gpus - job_gpus(v) >= x->quota - EPS;
}

/* Victims go largest first, then the most recently started (it loses the
 * least work), then the tenant furthest above its fair share. */
static int victim_cmp(const void *a, const void *b, void *arg)
{
    const struct fair *s = arg;
    const struct gs_job *x = *(struct gs_job *const *)a;
    const struct gs_job *y = *(struct gs_job *const *)b;
    if (x->need.gpus != y->need.gpus)
        return x->need.gpus > y->need.gpus ? -1 : 1;
    if (x->started != y->started)
        return x->started > y->started ? -1 : 1;
    double dx = dom_share(s, x->tenant), dy = dom_share(s, y->tenant);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* No node can be cleared for group grp's jobs: the search fails for the
 * group's next owner too until something starts or stops (s->ver). */
static void remember_failure(struct fair *s, int grp)
{
    if (grp < 0)
        return;
    if (grp >= s->caprfail) {
        int cap = s->gs.cap > grp ? s->gs.cap : grp + 1;
        uint64_t *r = realloc(s->rfail, (size_t)cap * sizeof *r);
        GS_OOM_IF(r == NULL);
        memset(r + s->caprfail, 0, (size_t)(cap - s->caprfail) * sizeof *r);
        s->rfail = r;
        s->caprfail = cap;
    }
    s->rfail[grp] = s->ver;
}

/* Preempt victims on node best (those s->maxg and s->pe allow) until it
 * has need whole GPUs free for j, or none is left. */
static void evict(struct fair *s, struct gs_sim *sim,
                  const struct gs_fleet *f, struct gs_job *j, int best,
                  int need)
{
    long nv = 0;
    const struct gs_node *nd = &f->nodes[best];
    if (s->capvict < s->nrv) {
        free(s->vict);
        s->vict = malloc((size_t)s->nrv * sizeof *s->vict);
        GS_OOM_IF(s->vict == NULL);
        s->capvict = s->nrv;
    }
    for (int t = 0; t < s->nt; t++) {
        const struct ten *x = &s->t[t];
        for (long i = 0; i < x->nrv; i++)
            if (x->rv[i].node == best && x->rv[i].gpus <= s->maxg[t] &&
                s->pe[x->rv[i].pool])
                s->vict[nv++] = x->rvj[i];
    }
    qsort_r(s->vict, (size_t)nv, sizeof *s->vict, victim_cmp, s);
    /* Largest victims that do not overshoot the deficit ... */
    for (long i = 0; i < nv && nd->nfull < need; i++) {
        struct gs_job *v = s->vict[i];
        if (v && v->need.gpus <= need - nd->nfull && is_victim(s, f, v, j)) {
            gs_sim_preempt(sim, v);
            s->reclaimed += v->need.gpus;
            s->vict[i] = NULL;
        }
    }
    /* ... then the smallest one that covers the rest. */
    for (long i = nv - 1; i >= 0 && nd->nfull < need; i--) {
        struct gs_job *v = s->vict[i];
        if (v && v->need.gpus >= need - nd->nfull && is_victim(s, f, v, j)) {
            gs_sim_preempt(sim, v);
            s->reclaimed += v->need.gpus;
        }
    }
}

/* Preempt borrowers so that owner j fits on one node, then start it there.
 * 0 if j started. */
static int reclaim(struct fair *s, struct gs_sim *sim, struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int need = j->need.gpus > 0 ? j->need.gpus : 1;
    /* A search that found no node fails again for the group's next owner
     * until something starts or stops (ver). */
    int grp = j->pslot & F_WIN ? (int)(j->pslot >> 8) : -1;
    if (grp >= 0 && grp < s->caprfail && s->rfail[grp] == s->ver)
        return -1;
    ten_ensure(s, sim, j->tenant);      /* running jobs' are, by start() */
    if (s->capmaxg < s->nt) {
        free(s->maxg);
        s->maxg = malloc((size_t)s->nt * sizeof *s->maxg);
        GS_OOM_IF(s->maxg == NULL);
        s->capmaxg = s->nt;
    }
    /* is_victim's tenant test, as the largest whole-GPU victim each tenant
     * can lose (the same comparison, for g = 1, 2, ...): none anywhere
     * means no search. */
    int any = 0;
    for (int t = 0; t < s->nt; t++) {
        const struct ten *x = &s->t[t];
        int g = 0;
        while (t != j->tenant && g < GS_MAX_GPN &&
               x->gpus - (double)(g + 1) >= x->quota - EPS)
            g++;
        s->maxg[t] = g;
        any |= g > 0;
    }
    int best = -1, best_def = 1 << 30;
    int every = 1;              /* every other tenant can lose any victim */
    for (int t = 0; t < s->nt; t++)
        if (t != j->tenant && s->maxg[t] < s->maxgpn)
            every = 0;
    if (any)
        for (int p = 0; p < f->npools; p++)
            s->pe[p] = (char)gs_fleet_pool_eligible(f, p, &j->need);
    if (any && every) {
        /* What a node could give back is all its possible victims' GPUs
         * but the owner's own: walk the nodes of the pools j may use. */
        const struct ten *o = &s->t[j->tenant];
        gs_sim_examine(sim, o->nrv + f->nnodes);
        for (long i = 0; i < o->nrv; i++)
            s->own[o->rv[i].node] += o->rv[i].gpus;
        for (int p = 0; p < f->npools; p++) {
            const struct gs_pool *pl = &f->pools[p];
            if (!s->pe[p] || need > pl->s.gpn)
                continue;
            for (int n = pl->node0; n < pl->node0 + pl->s.nodes; n++) {
                const struct gs_node *nd = &f->nodes[n];
                int def = need - nd->nfull;
                int r = s->node_rv[n] - s->own[n];
                if (def > 0 && r > 0 && nd->nfull + r >= need &&
                    def < best_def) {
                    best = n;
                    best_def = def;
                }
            }
        }
        for (long i = 0; i < o->nrv; i++)
            s->own[o->rv[i].node] = 0;
    } else if (any) {
        /* One scan of the tenants' compact victim arrays gathers the
         * victims and what each node could give back. */
        gs_sim_examine(sim, s->nrv);
        for (int t = 0; t < s->nt; t++) {
            const struct ten *x = &s->t[t];
            if (s->maxg[t] == 0)
                continue;
            for (long i = 0; i < x->nrv; i++) {
                const struct rv *v = &x->rv[i];
                if (v->gpus > s->maxg[t] || !s->pe[v->pool])
                    continue;
                s->recl[v->node] += v->gpus;
            }
        }
        for (int t = 0; t < s->nt; t++) {
            const struct ten *x = &s->t[t];
            if (s->maxg[t] == 0)
                continue;
            for (long i = 0; i < x->nrv; i++) {
                const struct rv *v = &x->rv[i];
                if (v->gpus > s->maxg[t] || !s->pe[v->pool])
                    continue;
                int node = v->node;
                const struct gs_node *nd = &f->nodes[node];
                int def = need - nd->nfull;
                if (need <= f->pools[nd->pool].s.gpn && def > 0 &&
                    nd->nfull + s->recl[node] >= need &&
                    (def < best_def || (def == best_def && node < best))) {
                    best = node;
                    best_def = def;
                }
            }
        }
        for (int t = 0; t < s->nt; t++)
            for (long i = 0; i < s->t[t].nrv; i++)
                s->recl[s->t[t].rv[i].node] = 0;
    }
    if (best < 0) {
        remember_failure(s, grp);
        return -1;
    }
    const struct gs_node *nd = &f->nodes[best];
    evict(s, sim, f, j, best, need);
    s->reclaims++;
    if (nd->nfull < need)
        return -1;
    struct gs_range r = { nd->pool, best - f->pools[nd->pool].node0,
                          best - f->pools[nd->pool].node0 + 1 };
    return start(s, sim, j, &r, 1);
}

/* --- the window: the first `depth` pending jobs ------------------------ */

/* Window members are indexed in groups by tenant and shape. */
static void win_add(void *ctx, struct gs_job *j)
{
    struct fair *s = ctx;
    s->wchg++;
    ten_ensure(s, s->sim, j->tenant);
    struct ten *x = &s->t[j->tenant];
    int n0 = s->gs.n;
    int g = gs_jgroups_of(&s->gs, j);
    if (g == n0) {                      /* new: list it under its tenant */
        if (x->ngrp == x->capgrp)
            x->grp = gs_grow(x->grp, &x->capgrp, x->ngrp + 1,
                             sizeof *x->grp);
        x->grp[x->ngrp++] = g;
    }
    gs_jgroup_add(&s->gs, g, j);
    j->pslot = F_WIN | (long)g << 8;
    if (!s->gs.g[g].mark && gs_jgroup_head(&s->gs.g[g]) == j)
        gfix(s, j->tenant, g);
}

static void win_drop(void *ctx, struct gs_job *j)
{
    struct fair *s = ctx;
    s->wchg++;
    int g = (int)(j->pslot >> 8);
    int head = gs_jgroup_head(&s->gs.g[g]) == j;
    gs_jgroup_remove(&s->gs.g[g], j);
    j->pslot = 0;
    if (head && !s->gs.g[g].mark)
        gfix(s, j->tenant, g);
}

static void fair_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    (void)sim;
    struct fair *s = state;
    j->pslot = 0;
    if (s->in_pass) {                   /* a victim: after the pass */
        if (s->nlate == s->caplate)
            s->late = gs_grow(s->late, &s->caplate, s->nlate + 1,
                              sizeof *s->late);
        s->late[s->nlate++] = j;
        return;
    }
    gs_jwin_arrive(&s->win, j);
}

/* Pass order: higher tier priority first, then arrival (record order). */
static int cand_before(const struct gs_job *x, const struct gs_job *y)
{
    if (x->prio != y->prio)
        return x->prio > y->prio;
    if (x->s.arrival != y->s.arrival)
        return x->s.arrival < y->s.arrival;
    return x->rec < y->rec;
}

static int cand_cmp(const void *a, const void *b)
{
    const struct gs_job *x = *(struct gs_job *const *)a;
    const struct gs_job *y = *(struct gs_job *const *)b;
    return cand_before(x, y) ? -1 : cand_before(y, x);
}

static int fleet_full(const struct gs_fleet *f)
{
    return f->used_milli >= f->gpus_up * 1000;
}

static int collect(struct gs_hnode *n, void *arg)
{
    struct fair *s = arg;
    s->cand[s->ncand++] = (struct gs_job *)((char *)n -
                                            offsetof(struct gs_job, pnode));
    return 0;
}

/* --- owners in pass order without gathering them ------------------------
 *
 * The window's jobs in pass order are the merge of its groups' jobs (a
 * group's jobs share priority, and its heap's record order is their arrival
 * order).  owners_merge() takes them one at a time from a heap of groups
 * (om) keyed by first job, taking each job it leaves waiting out of its
 * group for the pass (oh) so that the group's next job comes up.  When a
 * job changes nothing (ver did not move: passed over for its quota, no
 * room, no reclaim), its group's later jobs would change nothing either as
 * long as nothing changes -- they have its shape and tenant, the quota test
 * and start see the same state (misses repeat: gs_sim_misses_repeat) and
 * reclaim the same cached miss (rfail) -- so the group is set aside (od).
 * When something changes, the groups set aside come back, past their jobs
 * that come before the job that changed it (those would have been passed
 * over before the change).  So the pass tries exactly the jobs owners()
 * would, in its order, with the same outcomes, and looks at the others not
 * at all. */

static int om_before(const struct fair *s, int a, int b)
{
    return cand_before(gs_jgroup_head(&s->gs.g[a]),
                       gs_jgroup_head(&s->gs.g[b]));
}

static void om_push(struct fair *s, int g)
{
    if (s->nom == s->capom)
        s->om = gs_grow(s->om, &s->capom, s->nom + 1, sizeof *s->om);
    long i = s->nom++;
    while (i > 0 && om_before(s, g, s->om[(i - 1) / 2])) {
        s->om[i] = s->om[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->om[i] = g;
}

static int om_pop(struct fair *s)
{
    int top = s->om[0], last = s->om[--s->nom];
    long i = 0, n = s->nom;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && om_before(s, s->om[c + 1], s->om[c]))
            c++;
        if (!om_before(s, s->om[c], last))
            break;
        s->om[i] = s->om[c];
        i = c;
    }
    if (n > 0)
        s->om[i] = last;
    return top;
}

/* Take j, waiting, out of group g for the rest of the pass. */
static void hold(struct fair *s, int g, struct gs_job *j)
{
    gs_jgroup_remove(&s->gs.g[g], j);
    gfix(s, j->tenant, g);
    if (s->noh == s->capoh)
        s->oh = gs_grow(s->oh, &s->capoh, s->noh + 1, sizeof *s->oh);
    s->oh[s->noh++] = j;
}

/* Something changed at job cur: the groups set aside come back, past
 * their jobs before cur. */
static void revive(struct fair *s, const struct gs_job *cur)
{
    for (long i = 0; i < s->nod; i++) {
        int g = s->od[i];
        struct gs_job *h;
        while ((h = gs_jgroup_head(&s->gs.g[g])) != NULL &&
               cand_before(h, cur))
            hold(s, g, h);
        if (h != NULL)
            om_push(s, g);
    }
    s->nod = 0;
}

/* One owner: what owners() does with j; 1 if it changed anything. */
static int owner_try(struct fair *s, struct gs_sim *sim,
                     const struct gs_fleet *f, struct gs_job *j)
{
    uint64_t v = s->ver;
    const struct ten *x = &s->t[j->tenant];
    gs_sim_examine(sim, 1);
    if (x->gpus + job_gpus(j) > x->quota + EPS)
        return 0;
    if (!fleet_full(f) && start(s, sim, j, NULL, 0) == 0)
        return 1;
    if (s->reclaim)
        reclaim(s, sim, j);
    return s->ver != v;
}

static void owners_merge(struct fair *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    s->nom = s->nod = s->noh = 0;
    for (int i = 0; i < s->nth; i++) {
        int t = s->th[i];
        if (s->t[t].gpus <= s->t[t].quota + EPS)
            for (int k = 0; k < s->t[t].ngrp; k++)
                if (gs_jgroup_size(&s->gs.g[s->t[t].grp[k]]) > 0 &&
                    within(s, t, s->t[t].grp[k]))
                    om_push(s, s->t[t].grp[k]);
    }
    gs_sim_examine(sim, s->nom);
    while (s->nom > 0) {
        int g = om_pop(s);
        struct gs_job *j = gs_jgroup_head(&s->gs.g[g]);
        int changed = owner_try(s, sim, f, j);
        if (gs_jgroup_head(&s->gs.g[g]) == j)      /* still waiting */
            hold(s, g, j);
        if (changed)
            revive(s, j);
        if (gs_jgroup_size(&s->gs.g[g]) == 0)
            continue;
        if (changed) {
            om_push(s, g);
        } else {
            if (s->nod == s->capod)
                s->od = gs_grow(s->od, &s->capod, s->nod + 1, sizeof *s->od);
            s->od[s->nod++] = g;
        }
    }
    /* back into their groups, in the order they came out */
    for (long i = 0; i < s->noh; i++) {
        struct gs_job *j = s->oh[i];
        int g = (int)(j->pslot >> 8);
        gs_jgroup_add(&s->gs, g, j);
        gfix(s, j->tenant, g);
    }
    s->noh = 0;
}

/* 1. Owners: the window's jobs within their tenant's guarantee, in pass
 * order, reclaiming room.  Only tenants at or under their guarantee can
 * have any (a tenant above it stays above: reclaim leaves victims' tenants
 * at their guarantee), so only their jobs are gathered. */
static void owners(struct fair *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    /* A full fleet and no reclaim, or no tenant to reclaim from: every
     * candidate would be passed over (start is not tried on a full fleet,
     * reclaim finds no victim), and nothing would change. */
    if (fleet_full(f) && (!s->reclaim || s->nlender == 0))
        return;
    if (gs_sim_misses_repeat(sim)) {
        owners_merge(s, sim);
        return;
    }
    long n = 0;
    for (int i = 0; i < s->nth; i++) {
        int t = s->th[i];
        if (s->t[t].gpus <= s->t[t].quota + EPS)
            for (int k = 0; k < s->t[t].ngrp; k++)
                if (within(s, t, s->t[t].grp[k]))
                    n += (long)gs_jgroup_size(&s->gs.g[s->t[t].grp[k]]);
    }
    if (n == 0)
        return;
    if (n > s->capcand) {
        free(s->cand);
        s->cand = malloc((size_t)n * sizeof *s->cand);
        GS_OOM_IF(s->cand == NULL);
        s->capcand = n;
    }
    s->ncand = 0;
    for (int i = 0; i < s->nth; i++) {
        int t = s->th[i];
        if (s->t[t].gpus <= s->t[t].quota + EPS)
            for (int k = 0; k < s->t[t].ngrp; k++)
                if (within(s, t, s->t[t].grp[k]))
                    GS_OOM_IF(gs_heap_walk(&s->gs.g[s->t[t].grp[k]].q,
                                           collect, s) < 0);
    }
    gs_sim_examine(sim, s->ncand);
    qsort(s->cand, (size_t)s->ncand, sizeof *s->cand, cand_cmp);
    for (long i = 0; i < s->ncand; i++) {
        struct gs_job *j = s->cand[i];
        const struct ten *x = &s->t[j->tenant];
        if (x->gpus + job_gpus(j) > x->quota + EPS)
            continue;
        if (!fleet_full(f) && start(s, sim, j, NULL, 0) == 0)
            continue;
        if (s->reclaim)
            reclaim(s, sim, j);
    }
}

/* The first job in pass order among t's groups still in play, or NULL. */
static struct gs_job *tenant_next(struct fair *s, struct gs_sim *sim, int t,
                                  int *grp)
{
    int g = gs_gheap_top(&s->t[t].gh);
    if (g < 0)
        return NULL;
    gs_sim_examine(sim, 1);
    *grp = g;
    return gs_jgroup_head(&s->gs.g[g]);
}

/* Set group g (tenant t's first) aside for the rest of the pass. */
static void set_aside(struct fair *s, int t, int g, int *ndead)
{
    s->gs.g[g].mark = 1;
    s->dead[(*ndead)++] = g;
    gs_gheap_pop(&s->t[t].gh, &s->gs);
    if (s->t[t].gh.n == 0)
        tfix(s, t);
}

/* 2. Borrowers: the rest, tenant of lowest dominant share first, each
 * tenant's jobs in pass order.  A job that does not start drops out for
 * the pass; when misses repeat, so do all its group's later jobs (capacity
 * only shrinks here and its tenant's share only grows), and the group is
 * set aside whole.  Otherwise the job alone is put aside. */
static void borrowers(struct fair *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int whole = gs_sim_misses_repeat(sim);
    long nout = 0;
    int ndead = 0;
    int bt = -1;                /* the tenant picked, kept while no job
                                   starts (the shares stay as they are) */
    while (!fleet_full(f)) {
        int g = -1;
        if (bt < 0 || s->t[bt].tpos < 0) {
            if (s->nth == 0)    /* no tenant with a job left */
                break;
            bt = s->th[0];      /* the least dominant share */
        }
        struct gs_job *j = tenant_next(s, sim, bt, &g);
        /* More GPUs than are idle: start() could not place it (a miss
         * that, when misses repeat, need not be tried). */
        double idle = (double)f->gpus_up - (double)f->used_milli / 1000.0;
        if (whole && job_gpus(j) > idle + EPS) {
            set_aside(s, bt, g, &ndead);
            continue;
        }
        if (start(s, sim, j, NULL, 0) == 0) {
            bt = -1;
            continue;
        }
        if (whole) {
            set_aside(s, bt, g, &ndead);
        } else {
            gs_jgroup_remove(&s->gs.g[g], j);
            gfix(s, bt, g);
            s->cand[nout++] = j;
        }
    }
    for (int i = 0; i < ndead; i++) {
        int g = s->dead[i];
        s->gs.g[g].mark = 0;
        gfix(s, s->gs.g[g].tenant, g);
    }
    for (long i = 0; i < nout; i++) {
        int g = (int)(s->cand[i]->pslot >> 8);
        gs_jgroup_add(&s->gs, g, s->cand[i]);
        gfix(s, s->gs.g[g].tenant, g);
    }
}

static void fair_schedule(void *state, struct gs_sim *sim)
{
    struct fair *s = state;
    gs_jwin_settle(&s->win, sim);
    if (s->idle && s->ver == s->idle_ver && s->wchg == s->idle_wchg &&
        gs_sim_watch_epoch(sim, s->fw) == s->idle_ep)
        return;                 /* the state the last pass left alone */
    gs_sim_examine(sim, 1);
    s->in_pass = 1;
    uint64_t v0 = ++s->ver;             /* reclaim misses are per pass */
    owners(s, sim);
    /* sizes for borrowers(): an entry per group, and the window's jobs
     * put aside */
    if (s->capdead < s->gs.n) {
        free(s->dead);
        s->capdead = s->gs.n;
        s->dead = malloc((size_t)s->capdead * sizeof *s->dead);
        GS_OOM_IF(s->dead == NULL);
    }
    if (s->capcand < s->win.n) {
        free(s->cand);
        s->cand = malloc((size_t)s->win.n * sizeof *s->cand);
        GS_OOM_IF(s->cand == NULL);
        s->capcand = s->win.n;
    }
    borrowers(s, sim);
    s->in_pass = 0;
    s->idle = s->ver == v0 && s->nlate == 0 && gs_sim_misses_repeat(sim);
    for (long i = 0; i < s->nlate; i++)
        gs_jwin_arrive(&s->win, s->late[i]);
    s->nlate = 0;
    s->idle_ver = s->ver;
    s->idle_wchg = s->wchg;
    s->idle_ep = gs_sim_watch_epoch(sim, s->fw);
}

const struct gs_policy_ops gs_policy_fair = {
    .abi = GS_POLICY_ABI,
    .name = "fair",
    .summary = "tenant quotas with borrowing of idle GPUs, reclaim by "
               "preemption, DRF over GPUs and memory",
    .init = fair_init,
    .free = fair_free,
    .arrive = fair_arrive,
    .stopped = fair_stopped,
    .schedule = fair_schedule,
};
