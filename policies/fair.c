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
 * Parameters: reclaim (bool, true), depth (pending jobs looked at per pass,
 * 1000).  Bookkeeping: a running job's pslot holds F_RUN | F_BORROWED, its
 * pnode.time the GPUs (in milli) it holds beyond its tenant's guarantee
 * when it is non-preemptible. */
#include "policy.h"
#include "../sim/sim.h"

#include <stdlib.h>
#include <string.h>

#define F_RUN 1L
#define F_BORROWED 2L
#define EPS 1e-9

struct ten {
    double quota, weight;
    double gpus, mem;           /* held now */
};

struct fair {
    struct ten *t;
    int nt, capt;
    double fleet_gpus, fleet_mem;
    double unreserved;          /* fleet GPUs no tenant is guaranteed */
    double np_over;             /* non-preemptible GPUs held beyond quotas */
    int reclaim;
    long depth;
    struct gs_job **cand;       /* scratch: this pass's pending jobs */
    long ncand, capcand;
    long *nxt;                  /* scratch: per-tenant chains, then heads */
    long capnxt;
    int *recl;                  /* scratch: reclaimable GPUs per node */
    struct gs_job **vict;       /* scratch: victims on one node */
    long capvict;
    long reclaims, reclaimed;   /* counters, for tests */
};

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
        s->t[s->nt] = (struct ten){ tc ? tc->quota_gpus : 0.0,
                                    tc ? tc->weight : 1.0, 0, 0 };
        s->nt++;
    }
}

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
    if (s->recl == NULL) {
        free(s);
        return GS_ENOMEM;
    }
    *state = s;
    return 0;
}

static void fair_free(void *state)
{
    struct fair *s = state;
    free(s->t);
    free(s->cand);
    free(s->nxt);
    free(s->recl);
    free(s->vict);
    free(s);
}

static double job_gpus(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
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
    x->gpus += g;
    x->mem += job_mem(sim, j);
    j->pslot = F_RUN | (over > EPS ? F_BORROWED : 0);
    j->pnode.time = 0;
    if (!j->preemptible && over > EPS) {
        j->pnode.time = (gs_time)(over * 1000.0 + 0.5);
        s->np_over += over;
    }
    return 0;
}

static void fair_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                         int why)
{
    (void)why;
    struct fair *s = state;
    if (!(j->pslot & F_RUN))
        return;                 /* a pending job killed while waiting */
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

/* Preempt borrowers so that owner j fits on one node, then start it there.
 * 0 if j started. */
static int reclaim(struct fair *s, struct gs_sim *sim, struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int need = j->need.gpus > 0 ? j->need.gpus : 1;
    long nrun;
    struct gs_job *const *run = gs_sim_running(sim, &nrun);
    for (long i = 0; i < nrun; i++)
        ten_ensure(s, sim, run[i]->tenant);
    for (long i = 0; i < nrun; i++)
        if (is_victim(s, f, run[i], j))
            s->recl[run[i]->alloc.one.node] += run[i]->need.gpus;
    int best = -1, best_def = 1 << 30;
    for (long i = 0; i < nrun; i++) {
        if (!is_victim(s, f, run[i], j))
            continue;
        int node = run[i]->alloc.one.node;
        const struct gs_node *nd = &f->nodes[node];
        int def = need - nd->nfull;
        if (need <= f->pools[nd->pool].s.gpn && def > 0 &&
            nd->nfull + s->recl[node] >= need &&
            (def < best_def || (def == best_def && node < best))) {
            best = node;
            best_def = def;
        }
    }
    long nv = 0;
    if (best >= 0) {
        if (s->capvict < nrun) {
            free(s->vict);
            s->vict = malloc((size_t)nrun * sizeof *s->vict);
            GS_ASSERT(s->vict != NULL);
            s->capvict = nrun;
        }
        for (long i = 0; i < nrun; i++)
            if (is_victim(s, f, run[i], j) && run[i]->alloc.one.node == best)
                s->vict[nv++] = run[i];
    }
    for (long i = 0; i < nrun; i++)
        if (run[i]->alloc.n == 1)
            s->recl[run[i]->alloc.one.node] = 0;
    if (best < 0)
        return -1;
    qsort_r(s->vict, (size_t)nv, sizeof *s->vict, victim_cmp, s);
    const struct gs_node *nd = &f->nodes[best];
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
    s->reclaims++;
    if (nd->nfull < need)
        return -1;
    struct gs_range r = { nd->pool, best - f->pools[nd->pool].node0,
                          best - f->pools[nd->pool].node0 + 1 };
    return start(s, sim, j, &r, 1);
}

/* Pass order: higher tier priority first, then arrival. */
static int cand_cmp(const void *a, const void *b)
{
    const struct gs_job *x = *(struct gs_job *const *)a;
    const struct gs_job *y = *(struct gs_job *const *)b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    if (x->s.arrival != y->s.arrival)
        return x->s.arrival < y->s.arrival ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int fleet_full(const struct gs_fleet *f)
{
    return f->used_milli >= f->gpus_up * 1000;
}

static void fair_schedule(void *state, struct gs_sim *sim)
{
    struct fair *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    long np = gs_sim_npending(sim);
    if (np > s->depth)
        np = s->depth;
    if (np > s->capcand) {
        free(s->cand);
        s->cand = malloc((size_t)np * sizeof *s->cand);
        GS_OOM_IF(s->cand == NULL);
        s->capcand = np;
    }
    s->ncand = 0;
    for (struct gs_job *j = gs_sim_pending_head(sim); j && s->ncand < np;
         j = j->next) {
        ten_ensure(s, sim, j->tenant);
        s->cand[s->ncand++] = j;
    }
    qsort(s->cand, (size_t)s->ncand, sizeof *s->cand, cand_cmp);

    /* 1. Owners: jobs within their tenant's guarantee, reclaiming room. */
    for (long i = 0; i < s->ncand; i++) {
        struct gs_job *j = s->cand[i];
        const struct ten *x = &s->t[j->tenant];
        if (x->gpus + job_gpus(j) > x->quota + EPS)
            continue;
        int ok = (!fleet_full(f) && start(s, sim, j, NULL, 0) == 0) ||
                 (s->reclaim && reclaim(s, sim, j) == 0);
        if (ok)
            s->cand[i] = NULL;
    }
    /* 2. Borrowers: the rest, tenant of lowest dominant share first; each
     * tenant's jobs in pass order, chained through nxt. */
    if (s->capnxt < s->ncand + s->nt + 1) {
        free(s->nxt);
        s->capnxt = s->ncand + s->nt + 1;
        s->nxt = malloc((size_t)s->capnxt * sizeof *s->nxt);
        GS_OOM_IF(s->nxt == NULL);
    }
    long *head = s->nxt + s->ncand;
    for (int t = 0; t < s->nt; t++)
        head[t] = -1;
    for (long i = s->ncand - 1; i >= 0; i--)
        if (s->cand[i]) {
            int t = s->cand[i]->tenant;
            s->nxt[i] = head[t];
            head[t] = i;
        }
    while (!fleet_full(f)) {
        int bt = -1;
        double best = 0;
        for (int t = 0; t < s->nt; t++) {
            if (head[t] < 0)
                continue;
            double d = dom_share(s, t);
            if (bt < 0 || d < best) {
                bt = t;
                best = d;
            }
        }
        if (bt < 0)
            break;
        long i = head[bt];
        head[bt] = s->nxt[i];
        start(s, sim, s->cand[i], NULL, 0);
    }
}

const struct gs_policy_ops gs_policy_fair = {
    .abi = GS_POLICY_ABI,
    .name = "fair",
    .summary = "tenant quotas with borrowing of idle GPUs, reclaim by "
               "preemption, DRF over GPUs and memory",
    .init = fair_init,
    .free = fair_free,
    .stopped = fair_stopped,
    .schedule = fair_schedule,
};
