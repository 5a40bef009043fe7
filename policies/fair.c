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
 * What a pass looks at (issue 27: a pass costs about the same at 1 and at
 * 256 tenants).  The window's jobs are in groups by tenant and shape
 * (jobgroup.h), and the groups are indexed three ways, each kept as jobs
 * come, start and stop, never rebuilt by a pass:
 *   - the owner list: the groups with a job within its tenant's guarantee
 *     (owners() walks these, not every tenant's groups), and again per
 *     shape in a heap by first job (oq), so that when nothing can be
 *     reclaimed the owners' pass merges the shapes and leaves a shape
 *     that missed out whole (owners_quiet) instead of pushing every owner
 *     group into a heap each pass (work per job 195 at 16 tenants without
 *     reclaim, bench_tenants' full quotas; 41 since);
 *   - the shapes (a group's key without its tenant): each keeps its live
 *     groups in a heap by their tenant's dominant share, so the borrowers'
 *     next job -- the least-share tenant's first job that could start --
 *     is the least of the tops of the shapes listed in sq (a live group,
 *     no miss), and a tenant's share moving re-keys only its own groups,
 *     O(log T) each.  When misses repeat (gs_sim_misses_repeat), a
 *     placement that missed for one group's job misses for every group of
 *     its shape until capacity comes back (the fleet watch's epoch moves),
 *     so the shape leaves sq until then (a shape's key holds the host asks
 *     too, so its jobs ask alike);
 *   - non-preemptible groups beyond their guarantee are no borrowers when
 *     no capacity is unreserved (strict_ok), since start() would refuse
 *     them whatever the share order; when some is, a shape keeps them in
 *     a heap of their own (h[1], by share like the rest, h[0]) and again
 *     by the GPUs a job of theirs would hold beyond the guarantee (o,
 *     least first, gov): start() refuses one when that plus what such
 *     jobs hold already (np_over) passes the unreserved GPUs, so when it
 *     refuses o's first it refuses the whole heap, and the borrowers'
 *     pass leaves it unread (next_group).  Once the unreserved capacity
 *     is taken, a pass then reads no tenant past its guarantee, where it
 *     used to set every such tenant's groups aside one by one (work per
 *     job linear in T: 18,099 at 256 tenants, bench_tenants with
 *     borrowing off and half quotas).
 * Reclaim reads only the nodes that hold victims, by their fully free GPUs
 * most first (the level index, fairlv.h), each node's victims as compact
 * keys, and stops at the first node that can be cleared; a node found
 * short keeps a witness, a victim its tenant cannot lose, and is passed
 * over without reading its victims while the witness stands (an owner of
 * a whole node does not even visit it: fairlv.h), and so is a node whose
 * victims no larger than any margin, the owner's own aside, fall short
 * -- tested 64 nodes at a time on bit planes of the nodes' victim sums
 * (lv_next), so most such nodes are not visited at all; a
 * search that failed is not run again while nothing that could make it
 * succeed happened (rmiss_known), and a start no open node could hold is
 * not asked of the placer (sure_miss).  Each of these skips only what the
 * walk it replaces would have tried and seen fail, so the decisions are
 * the walk's (tests/refcheck.sh; result files byte-identical with the old
 * passes on the bench_tenants grid).
 *
 * What a pass reads is counted by the core (look.h): the tenants, the
 * owner list, the shapes and their heaps, the merge's heap and its
 * set-aside groups, the victim lists and the scratch lists of jobs are
 * counted containers (gs_lvec); a pass reads them with gs_lvec_at (ten_at
 * for a tenant), and upkeep for an entry a hook names -- a start or stop
 * booking its job to its tenant and node, a group's heap slot -- goes
 * through gs_lvec_upd.  The nodes' level index and per-node victim sums
 * are the fleet's side (nodes are not counted), the memos (rfail, rm,
 * maxg) copies of what was read.
 *
 * Parameters: reclaim (bool, true), depth (pending jobs looked at per pass,
 * 1000), walk (bool, false: the owners' pass walks every owner job in
 * pass order, as when misses do not repeat, and reclaim's search reads
 * every candidate node's victims -- the reference the indexed passes and
 * the lenders' sums must match, for tests).  Bookkeeping: a running job's pslot
 * holds F_RUN | F_BORROWED (and, when it could ever be a victim, F_VIC,
 * its index in its node's victim list shifted left by 8 and its node
 * shifted left by 16), its pnode.time the GPUs (in milli) it holds beyond
 * its tenant's guarantee when it is non-preemptible.  The state's layout (struct ten, shape and
 * fair) is in fairint.h. */
#include "policy.h"
#include "fairint.h"
#include "../sim/base/bits.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cand_before(const struct gs_job *x, const struct gs_job *y);

/* owners_quiet's heap entry: shape k by its first owner group's key. */
struct oskey {
    int64_t key;
    int k;
};

/* Tenant t's entry, kept up to date by a hook or an index's upkeep for
 * a job or group it holds (not counted). */
static struct ten *ten_upd(const struct fair *s, int t)
{
    return gs_lvec_upd(&s->ten, t);
}


static void win_add(void *ctx, struct gs_job *j);
static void win_drop(void *ctx, struct gs_job *j);


static FAIR_COLD int fair_init(struct gs_sim *sim, struct gs_params *p,
                               void **state, struct gs_diag *d)
{
    struct fair *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->reclaim = 1;
    s->depth = 1000;
    int rc;
    if ((rc = gs_params_bool(p, "reclaim", &s->reclaim, d)) < 0 ||
        (rc = gs_params_bool(p, "walk", &s->walk, d)) < 0 ||
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
    int maxgpn = 0;
    for (int i = 0; i < f->npools; i++)
        if (f->pools[i].s.gpn > maxgpn)
            maxgpn = f->pools[i].s.gpn;
    s->pe = calloc((size_t)f->npools + 1, 1);
    s->nvic = calloc((size_t)f->nnodes + 1, sizeof *s->nvic);
    s->node_rv = calloc((size_t)f->nnodes + 1, sizeof *s->node_rv);
    s->vict = calloc((size_t)maxgpn + 1, sizeof *s->vict);
    s->vszw = maxgpn + 1;
    s->nnodes = f->nnodes;
    s->vsz = calloc(((size_t)f->nnodes + 1) * (size_t)s->vszw,
                    sizeof *s->vsz);
    s->rm_pe = calloc((size_t)(GS_MAX_GPN + 1) * (size_t)f->npools + 1, 1);
    s->lv_stale = 1;
    int lvok = gs_fairlv_init(&s->lx, sim, f->nnodes, maxgpn) == 0;
    /* every node range fair books, one per pool, watched as a whole */
    struct gs_range *all = malloc((size_t)(f->npools + 1) * sizeof *all);
    int fw = -1;
    if (all != NULL && s->pe != NULL && s->nvic != NULL && s->vsz != NULL &&
        s->node_rv != NULL && s->vict != NULL && s->rm_pe != NULL && lvok) {
        for (int i = 0; i < f->npools; i++)
            all[i] = (struct gs_range){ i, 0, f->pools[i].s.nodes };
        fw = gs_sim_watch(sim, all, f->npools);
    }
    free(all);
    if (fw < 0) {
        free(s->pe);
        free(s->vsz);
        free(s->nvic);
        free(s->node_rv);
        free(s->vict);
        free(s->rm_pe);
        gs_fairlv_free(&s->lx);
        free(s);
        return GS_ENOMEM;
    }
    s->fw = fw;
    s->rep = gs_sim_misses_repeat(sim);
    gs_lvec_init(&s->ten, sim, sizeof(struct ten));
    gs_lvec_init(&s->vjob, sim, sizeof(struct gs_job *));
    gs_lvec_setn(&s->vjob, f->ngpus);
    gs_lvec_init(&s->vkey, sim, sizeof(int));
    gs_lvec_setn(&s->vkey, f->ngpus);
    gs_lvec_init(&s->late, sim, sizeof(struct gs_job *));
    gs_lvec_init(&s->cand, sim, sizeof(struct gs_job *));
    gs_lvec_init(&s->oh, sim, sizeof(struct gs_job *));
    gs_lvec_init(&s->dead, sim, sizeof(int));
    gs_lvec_init(&s->om, sim, sizeof(int));
    gs_lvec_init(&s->od, sim, sizeof(int));
    gs_lvec_init(&s->ol, sim, sizeof(int));
    gs_lvec_init(&s->sh, sim, sizeof(struct shape));
    gs_lvec_init(&s->sq, sim, sizeof(int));
    gs_lvec_init(&s->osq, sim, sizeof(int));
    gs_lvec_init(&s->oss, sim, sizeof(struct oskey));
    gs_lvec_init(&s->smiss, sim, sizeof(int));
    gs_lvec_init(&s->lend, sim, sizeof(int));
    gs_jgroups_init(&s->gs, sim, 1);
    gs_jgroups_init(&s->shp, sim, 0);
    s->sim = sim;
    s->win = (struct gs_jwin){ .depth = s->depth, .add = win_add,
                               .drop = win_drop, .ctx = s, .sim = sim };
    *state = s;
    return 0;
}


/* The GPUs a job asking gp would hold beyond tenant x's guarantee if it
 * started now: start()'s strict-rule sum (0 .. gp). */
static double over_at(double gpus, double quota, double gp)
{
    double over = gpus + gp - quota;
    if (over < 0)
        over = 0;
    if (over > gp)
        over = gp;
    return over;
}

static double over_of(const struct ten *x, double gp)
{
    return over_at(x->gpus, x->quota, gp);
}

/* Could a job of group g keep tenant t within its guarantee (owner_try's
 * quota test, the same sum: a group's jobs share their need)? */
static int within(const struct fair *s, int t, int g)
{
    const struct gs_need *n = &s->gs.g[g].need;
    double gp = n->gpus > 0 ? n->gpus : n->milli / 1000.0;
    const struct ten *x = ten_upd(s, t);
    return !(x->gpus + gp > x->quota + EPS);
}

/* GPU memory a running job holds, GB (what gs_fleet_commit takes). */
static double job_mem(struct gs_sim *sim, const struct gs_job *j)
{
    double full = gs_sim_scenario(sim)->cat.m[j->model].mem_gb;
    if (j->need.gpus > 0)
        return j->need.gpus * full;
    return j->need.mem_gb > 0 ? j->need.mem_gb : full * j->need.milli / 1000.0;
}


/* --- the shapes' heaps and the owner list ------------------------------ */

/* Shape heap order: tenant ta's key (dominant share) x before tb's y,
 * then the lower index. */
static int key_before(double x, int ta, double y, int tb)
{
    return x != y ? x < y : ta < tb;
}

/* The same order of groups a and b, in the heap's upkeep. */
static int sh_before(const struct fair *s, int a, int b)
{
    int ta = s->gs.g[a].tenant, tb = s->gs.g[b].tenant;
    return key_before(ten_upd(s, ta)->key, ta, ten_upd(s, tb)->key, tb);
}

static int64_t okey(const struct fair *s, int g);

/* The shapes' heaps: kind 0 a share heap (h[0] or h[1]; a group's slot
 * in its pos), kind 1 the o heap (least gov first, then the lower group;
 * its slot in opos), kind 2 the owner heap oq (least okey first; its slot
 * in oqpos). */
static int hp_before(const struct fair *s, int kind, int a, int b)
{
    if (kind == 0)
        return sh_before(s, a, b);
    if (kind == 2)
        return okey(s, a) < okey(s, b);
    return s->gov[a] != s->gov[b] ? s->gov[a] < s->gov[b] : a < b;
}

static int hp_get(const struct gs_lvec *h, long i)
{
    return *(const int *)gs_lvec_upd(h, i);
}

static void hp_set(struct fair *s, struct gs_lvec *h, int kind, long i, int g)
{
    *(int *)gs_lvec_upd(h, i) = g;
    if (kind == 0)
        s->gs.g[g].pos = (int)i;
    else if (kind == 1)
        s->opos[g] = (int)i;
    else
        s->oqpos[g] = (int)i;
}

/* hp_up and hp_down for a share heap (kind 0), the kind a tenant's share
 * moving sifts at nearly every start and stop (ten_fix): the same order,
 * the moving group's key read once and the slots written directly. */
static void sh_up(struct fair *s, struct gs_lvec *h, long i)
{
    int *a = gs_lvec_upd(h, 0);
    int g = a[i], t = s->gs.g[g].tenant;
    double k = ten_upd(s, t)->key;
    while (i > 0) {
        long p = (i - 1) / 2;
        int m = a[p], tm = s->gs.g[m].tenant;
        if (!key_before(k, t, ten_upd(s, tm)->key, tm))
            break;
        a[i] = m;
        s->gs.g[m].pos = (int)i;
        i = p;
    }
    a[i] = g;
    s->gs.g[g].pos = (int)i;
}

static void sh_down(struct fair *s, struct gs_lvec *h, long i)
{
    int *a = gs_lvec_upd(h, 0);
    long n = gs_lvec_n(h);
    int g = a[i], t = s->gs.g[g].tenant;
    double k = ten_upd(s, t)->key;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        int m = a[c], tm = s->gs.g[m].tenant;
        double km = ten_upd(s, tm)->key;
        if (c + 1 < n) {
            int m2 = a[c + 1], t2 = s->gs.g[m2].tenant;
            double k2 = ten_upd(s, t2)->key;
            if (key_before(k2, t2, km, tm)) {
                c++;
                m = m2;
                tm = t2;
                km = k2;
            }
        }
        if (!key_before(km, tm, k, t))
            break;
        a[i] = m;
        s->gs.g[m].pos = (int)i;
        i = c;
    }
    a[i] = g;
    s->gs.g[g].pos = (int)i;
}

static void hp_up(struct fair *s, struct gs_lvec *h, int kind, long i)
{
    if (kind == 0) {
        sh_up(s, h, i);
        return;
    }
    int g = hp_get(h, i);
    while (i > 0 && hp_before(s, kind, g, hp_get(h, (i - 1) / 2))) {
        hp_set(s, h, kind, i, hp_get(h, (i - 1) / 2));
        i = (i - 1) / 2;
    }
    hp_set(s, h, kind, i, g);
}

static void hp_down(struct fair *s, struct gs_lvec *h, int kind, long i)
{
    if (kind == 0) {
        sh_down(s, h, i);
        return;
    }
    int g = hp_get(h, i);
    long n = gs_lvec_n(h);
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && hp_before(s, kind, hp_get(h, c + 1), hp_get(h, c)))
            c++;
        if (!hp_before(s, kind, hp_get(h, c), g))
            break;
        hp_set(s, h, kind, i, hp_get(h, c));
        i = c;
    }
    hp_set(s, h, kind, i, g);
}

/* Group g into heap h of kind kind, or out of it from slot i. */
static void hp_in(struct fair *s, struct gs_lvec *h, int kind, int g)
{
    gs_lvec_push(h);
    hp_set(s, h, kind, gs_lvec_n(h) - 1, g);
    hp_up(s, h, kind, gs_lvec_n(h) - 1);
}

static void hp_out(struct fair *s, struct gs_lvec *h, int kind, long i)
{
    long last = gs_lvec_n(h) - 1;
    if (i != last) {
        hp_set(s, h, kind, i, hp_get(h, last));
        gs_lvec_setn(h, last);
        hp_up(s, h, kind, i);
        int m = hp_get(h, i);
        hp_down(s, h, kind, kind == 0   ? s->gs.g[m].pos
                            : kind == 1 ? s->opos[m]
                                        : s->oqpos[m]);
    } else {
        gs_lvec_setn(h, last);
    }
}

/* Group g's shape, read with the group (not counted: a field of the
 * group's key) or kept up to date. */
static struct shape *shape_upd(const struct fair *s, int g)
{
    return gs_lvec_upd(&s->sh, s->gsh[g]);
}

/* Shape k in sq exactly when it has a live group (in either share heap)
 * and has not missed. */
static void sq_fix(struct fair *s, int k)
{
    struct shape *p = gs_lvec_upd(&s->sh, k);
    int in = gs_lvec_n(&p->h[0]) + gs_lvec_n(&p->h[1]) > 0 && !p->inmiss;
    if (in == (p->sqpos >= 0))
        return;
    if (in) {
        p->sqpos = (int)gs_lvec_n(&s->sq);
        gs_lvec_push_int(&s->sq, k);
    } else {
        long last = gs_lvec_n(&s->sq) - 1;
        int m = *(int *)gs_lvec_upd(&s->sq, last);
        gs_lvec_del(&s->sq, p->sqpos);
        ((struct shape *)gs_lvec_upd(&s->sh, m))->sqpos = p->sqpos;
        p->sqpos = -1;
    }
}

/* Capacity came back since smiss's shapes missed: back in sq (counted),
 * but those whose jobs ask more GPUs than are idle, which would miss at
 * once (next_group's test): idle GPUs only shrink until the fleet watch's
 * epoch moves again.  smiss holds shapes only when misses repeat. */
static void sq_sync(struct fair *s, struct gs_sim *sim)
{
    uint64_t ep = 1 + gs_sim_watch_epoch(sim, s->fw);
    if (ep == s->sq_ep)
        return;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double idle = (double)f->gpus_up - (double)f->used_milli / 1000.0;
    long keep = 0;
    for (long i = 0; i < gs_lvec_n(&s->smiss); i++) {
        int k = gs_lvec_int(&s->smiss, i);
        const struct gs_need *nd = &s->shp.g[k].need;   /* its groups' */
        if ((nd->gpus > 0 ? nd->gpus : nd->milli / 1000.0) > idle + EPS) {
            *(int *)gs_lvec_upd(&s->smiss, keep++) = k;   /* inmiss */
            continue;
        }
        ((struct shape *)gs_lvec_upd(&s->sh, k))->inmiss = 0;
        sq_fix(s, k);
    }
    gs_lvec_setn(&s->smiss, keep);
    s->sq_ep = ep;
}

/* Group g's key in its shape's oq: higher priority first, then the lower
 * first record (cand_before's order of the groups' first jobs: records are
 * numbered in arrival order, see grp_before). */
static int64_t okey(const struct fair *s, int g)
{
    int prio = s->gs.g[g].prio;
    GS_ASSERT(prio > -(1 << 30) && prio < (1 << 30) && s->ohead[g] >= 0);
    return (int64_t)((1 << 30) - prio) << 32 | s->ohead[g];
}

/* Group g into its shape's oq (in: it joined ol), or out of it. */
static void oq_fix(struct fair *s, int g, int in)
{
    struct shape *p = shape_upd(s, g);
    if (in) {
        hp_in(s, &p->oq, 2, g);
    } else {
        hp_out(s, &p->oq, 2, s->oqpos[g]);
        s->oqpos[g] = -1;
    }
    int any = gs_lvec_n(&p->oq) > 0;
    if (any == (p->osqpos >= 0))
        return;
    if (any) {
        p->osqpos = (int)gs_lvec_n(&s->osq);
        gs_lvec_push_int(&s->osq, s->gsh[g]);
    } else {
        long last = gs_lvec_n(&s->osq) - 1;
        int m = *(int *)gs_lvec_upd(&s->osq, last);
        gs_lvec_del(&s->osq, p->osqpos);
        ((struct shape *)gs_lvec_upd(&s->sh, m))->osqpos = p->osqpos;
        p->osqpos = -1;
    }
}

static void gfix(struct fair *s, int t, int g);

/* Pending job j joins group g, or leaves it: its first job's record
 * (ohead) follows -- j's own when it comes first, the heap's top (read:
 * counted) when the first leaves -- and so does its key in oq while it is
 * an owner group.  The group's place in the other indexes (gfix) hangs on
 * whether it has a job, not on which: it is looked at again only when it
 * gains its first or loses its last (tenant t). */
static void grp_add(struct fair *s, int t, int g, struct gs_job *j)
{
    gs_jgroup_add(&s->gs, g, j);
    if ((int64_t)j->rec > s->olast[g])
        s->olast[g] = (int64_t)j->rec;
    int first = s->ohead[g] < 0;
    if (first || (int64_t)j->rec < s->ohead[g]) {
        s->ohead[g] = (int64_t)j->rec;
        if (s->oqpos[g] >= 0)   /* earlier: up */
            hp_up(s, &shape_upd(s, g)->oq, 2, s->oqpos[g]);
    }
    if (first)
        gfix(s, t, g);
}

static void grp_remove(struct fair *s, int t, int g, struct gs_job *j)
{
    gs_jgroup_remove(&s->gs.g[g], j);
    if (s->ohead[g] != (int64_t)j->rec)
        return;
    if (gs_jgroup_size(&s->gs.g[g]) == 0) {
        s->ohead[g] = -1;
        s->olast[g] = -1;
        gfix(s, t, g);          /* out of ol, oq and the rest */
        return;
    }
    s->ohead[g] = (int64_t)gs_lheap_top_time(&s->gs.g[g].q);
    if (s->oqpos[g] >= 0)       /* later: down */
        hp_down(s, &shape_upd(s, g)->oq, 2, s->oqpos[g]);
}

/* Group g in the owner list exactly when it has a job within its tenant's
 * guarantee. */
static void ol_fix(struct fair *s, int g)
{
    int t = s->gs.g[g].tenant;
    int in = gs_jgroup_size(&s->gs.g[g]) > 0 && within(s, t, g);
    int pos = s->olpos[g];
    if (in == (pos >= 0))
        return;
    if (in) {
        s->olpos[g] = (int)gs_lvec_n(&s->ol);
        gs_lvec_push_int(&s->ol, g);
    } else {
        int last = *(int *)gs_lvec_upd(&s->ol, gs_lvec_n(&s->ol) - 1);
        gs_lvec_del(&s->ol, pos);
        if (last != g)
            s->olpos[last] = pos;
        s->olpos[g] = -1;
    }
    oq_fix(s, g, in);
}

/* Could a job of group g start under the strict rule as things stand?
 * Always for preemptible jobs; for the others, when they stay within
 * their tenant's guarantee (start()'s test, the same sum) or some
 * capacity is unreserved.  With none unreserved (the quotas add up to the
 * fleet or more), a non-preemptible job beyond its guarantee can never
 * start, so its group is no borrower at all: np_over + over >= over > EPS
 * >= unreserved + EPS. */
static int strict_ok(const struct fair *s, int t, int g)
{
    const struct gs_jgroup *gr = &s->gs.g[g];
    if (gr->preemptible || s->unreserved > 0)
        return 1;
    double gp = gr->need.gpus > 0 ? gr->need.gpus : gr->need.milli / 1000.0;
    return !(over_of(ten_upd(s, t), gp) > EPS);
}

/* Group g of tenant t gained or lost jobs, was set aside or back, or its
 * tenant's GPUs moved: live -- in one of its shape's share heaps -- when it
 * has a job, is not set aside and strict_ok(), in h[1] and o (keyed by
 * gov) when start() could refuse its jobs (non-preemptible, some GPUs
 * past the guarantee), in h[0] otherwise; in the owner list when
 * within(). */
static void gfix(struct fair *s, int t, int g)
{
    struct ten *x = ten_upd(s, t);
    int ne = gs_jgroup_size(&s->gs.g[g]) > 0;
    if (ne != (s->nepos[g] >= 0)) {
        if (ne) {
            s->nepos[g] = (int)gs_lvec_n(&x->ne);
            gs_lvec_push_int(&x->ne, g);
        } else {
            int last = *(int *)gs_lvec_upd(&x->ne, gs_lvec_n(&x->ne) - 1);
            gs_lvec_del(&x->ne, s->nepos[g]);
            s->nepos[last] = s->nepos[g];
            s->nepos[g] = -1;
        }
    }
    int in = ne && !s->gs.g[g].mark && strict_ok(s, t, g);
    const struct gs_jgroup *gr = &s->gs.g[g];
    double ov = 0;
    if (in && !gr->preemptible)
        ov = over_of(x, gr->need.gpus > 0 ? gr->need.gpus
                                          : gr->need.milli / 1000.0);
    int b = ov > EPS;           /* start() may refuse it: h[1] */
    struct shape *p = shape_upd(s, g);
    int was = s->gs.g[g].pos >= 0;
    if (was && (!in || b != s->gin[g])) {       /* out, or to the other */
        hp_out(s, &p->h[(int)s->gin[g]], 0, s->gs.g[g].pos);
        s->gs.g[g].pos = -1;
        if (s->opos[g] >= 0) {
            hp_out(s, &p->o, 1, s->opos[g]);
            s->opos[g] = -1;
        }
    }
    if (in && s->gs.g[g].pos < 0) {
        if (x->nlive == 0 && !was)
            x->key = dom_share(s, x);   /* it joins at its share */
        s->gin[g] = (char)b;
        s->gov[g] = ov;
        hp_in(s, &p->h[b], 0, g);
        if (b)
            hp_in(s, &p->o, 1, g);
    } else if (in && b && ov != s->gov[g]) {    /* its o key moved */
        int up = ov < s->gov[g];
        s->gov[g] = ov;
        if (up)
            hp_up(s, &p->o, 1, s->opos[g]);
        else
            hp_down(s, &p->o, 1, s->opos[g]);
    }
    if (in != was) {
        sq_fix(s, s->gsh[g]);
        x->nlive += in ? 1 : -1;
    }
    ol_fix(s, g);
}

/* Tenant t's GPUs changed: its key (dominant share) follows and its live
 * groups move with it in their shapes' heaps; which of its groups are
 * live and owners is looked at again (gfix), each read from its list
 * (counted: the tenant's groups with a job, bounded by the shapes, not by
 * the tenants).  A tenant with no live group keeps a stale key, set
 * afresh when one of its groups comes in (gfix); an empty group is in no
 * index and stays out. */
static void ten_fix(struct fair *s, int t)
{
    struct ten *x = ten_upd(s, t);
    double q = x->quota + EPS, g0 = x->fixg, g1 = x->gpus;
    int moved = 0, up = 0;
    if (x->nlive > 0) {
        double k = dom_share(s, x);
        moved = k != x->key;
        up = k < x->key;        /* its groups move up their heaps */
        x->key = k;
    }
    for (long i = 0; i < gs_lvec_n(&x->ne); i++) {  /* gfix keeps them */
        int g = gs_lvec_int(&x->ne, i);
        if (moved && s->gs.g[g].pos >= 0) {
            struct gs_lvec *h = &shape_upd(s, g)->h[(int)s->gin[g]];
            if (up)
                hp_up(s, h, 0, s->gs.g[g].pos);
            else
                hp_down(s, h, 0, s->gs.g[g].pos);
        }
        const struct gs_jgroup *gr = &s->gs.g[g];
        double gp = gr->need.gpus > 0 ? gr->need.gpus
                                      : gr->need.milli / 1000.0;
        int cross = !(g0 + gp > q) != !(g1 + gp > q);
        if (gr->preemptible) {  /* gfix's rest does not read the GPUs:
                                   strict_ok and h[0] for these; and
                                   within() moves only for a group whose
                                   GPUs cross the guarantee's room */
            if (cross)
                ol_fix(s, g);
        } else if (cross || over_at(g0, x->quota, gp) !=
                                over_at(g1, x->quota, gp)) {
            gfix(s, t, g);      /* the rest reads the GPUs through
                                   over_of (strict_ok, h[1], gov) and
                                   within() only: a tenant well under
                                   or over its guarantee leaves both */
        }
    }
    x->fixg = g1;
}

/* Keep tenant t's (x's) place in nlender and lend right after its GPUs
 * or rv changed. */
static void lender_fix(struct fair *s, int t, struct ten *x)
{
    int l = x->nrv > 0 && x->gpus - 1.0 >= x->quota - EPS;
    if (l == x->lender)
        return;
    s->nlender += l - x->lender;
    x->lender = l;
    if (l) {
        x->lpos = (int)gs_lvec_n(&s->lend);
        gs_lvec_push_int(&s->lend, t);
    } else {
        long last = gs_lvec_n(&s->lend) - 1;
        int m = *(int *)gs_lvec_upd(&s->lend, last);
        gs_lvec_del(&s->lend, x->lpos);
        if (m != t)
            ten_upd(s, m)->lpos = x->lpos;
        x->lpos = -1;
    }
}

/* j has just started: a node whose fully free GPUs covered need k before
 * (skipped by reclaim's search: nothing to free) may lack them now and be
 * cleared with j among its victims, so the failed searches for those k
 * are forgotten -- k up to the node's fully free GPUs before the start,
 * at most its fully free GPUs now plus the GPUs j took there. */
static void rmiss_start(struct fair *s, const struct gs_fleet *f,
                        const struct gs_job *j)
{
    int hi = GS_MAX_GPN;
    if (j->alloc.n == 1)
        hi = f->nodes[j->alloc.one.node].nfull +
             gs_popcount64(j->alloc.one.mask);
    for (int k = 1; k <= hi && k <= GS_MAX_GPN; k++)
        s->rm[k].valid = 0;
}

/* Would a placement of j anywhere miss for want of GPUs?  Only a
 * necessary condition of a fit, for whole GPUs on one node of plain pools
 * (backfill.c's may_fit): some open node of a pool j may use must have
 * that many GPUs fully free, whatever the placer -- the pool counts its
 * open nodes by fully free GPUs.  Not under gang spreading (the core then
 * spreads a job's GPUs over nodes), and only when misses repeat: the miss
 * it spares would have changed nothing. */
static int sure_miss(const struct fair *s, struct gs_sim *sim,
                     const struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int g = j->need.gpus;
    if (g <= 0 || !s->rep ||
        gs_sim_scenario(sim)->topo.gang == GS_GANG_SPREAD)
        return 0;
    /* A pool answers no for j when j may not use it, or it is plain with
     * no node that many GPUs free: the counts first, which read no job,
     * and j's eligibility only for a pool they leave open. */
    for (int p = 0; p < f->npools; p++) {
        const struct gs_pool *pl = &f->pools[p];
        if (!pl->mig && pl->s.share.mode == GS_SHARE_NONE && g <= pl->s.gpn) {
            int v = g;
            while (v <= pl->s.gpn && pl->ncount[v] == 0)
                v++;
            if (v > pl->s.gpn)
                continue;       /* no room, whoever asks */
        }
        if (gs_fleet_pool_eligible(f, p, &j->need) &&
            gs_sim_pool_ok(sim, p, j))
            return 0;
    }
    return 1;
}

/* Tenant x's per-node victim sums and bits, at its first victim. */
static FAIR_COLD void vn_new(const struct fair *s, struct ten *x)
{
    GS_OOM_IF((x->vn = calloc((size_t)s->nnodes * (size_t)s->vszw,
                              sizeof *x->vn)) == NULL);
    GS_OOM_IF((x->vb = calloc((size_t)s->nnodes / 64 + 1,
                              sizeof *x->vb)) == NULL);
}

/* Start j (anywhere, or within r) and book it to its tenant: 0, -1 when
 * the placement missed, -2 when the strict rule forbids it. */
static int start(struct fair *s, struct gs_sim *sim, struct gs_job *j,
                 const struct gs_range *r, int nr)
{
    gs_fair_ten_ensure(s, sim, j->tenant);
    struct ten *x = ten_upd(s, j->tenant);
    double g = job_gpus(j);
    double over = over_of(x, g);
    if (!j->preemptible && over > EPS && s->np_over + over > s->unreserved + EPS)
        return -2;              /* strict: never borrow what others own */
    if ((r == NULL && sure_miss(s, sim, j)) || gs_sim_try_start(sim, j, r, nr) < 0)
        return -1;
    if (j->pslot & F_WIN)
        gs_jwin_leave(&s->win, j);
    s->ver++;
    x->gpus += g;
    x->mem += job_mem(sim, j);
    int m0 = x->margin;
    x->margin = margin_of(x);
    ntm_move(s, m0, x->margin);
    if (x->margin > m0) {
        s->rgen++;              /* more of its victims may be taken */
        gs_fairlv_margin(&s->lx, j->tenant, m0, x->margin);
    }
    rmiss_start(s, gs_sim_fleet(sim), j);
    j->pslot = F_RUN | (over > EPS ? F_BORROWED : 0);
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (j->alloc.n == 1)
        j->pslot |= F_ONE | (long)j->alloc.one.node << 16;
    if (j->preemptible && j->alloc.n == 1 && j->need.gpus > 0) {
        int n = j->alloc.one.node;
        long at = f->nodes[n].gpu0 + s->nvic[n];
        *(struct gs_job **)gs_lvec_upd(&s->vjob, at) = j;
        *(int *)gs_lvec_upd(&s->vkey, at) = j->tenant << 8 | j->need.gpus;
        j->pslot |= F_VIC | (long)s->nvic[n]++ << 8;
        x->nrv++;
        s->node_rv[n] += j->need.gpus;
        if (x->vn == NULL)      /* its first victim */
            vn_new(s, x);
        gs_fair_vic_add(s, x, n, j->need.gpus, j->need.gpus);
    }
    for (int i = 0; i < j->alloc.n; i++)
        lv_fix(s, f, j->alloc.n > 1 ? j->alloc.many[i].node
                                    : j->alloc.one.node);
    j->pnode.time = 0;
    if (!j->preemptible && over > EPS) {
        j->pnode.time = (gs_time)(over * 1000.0 + 0.5);
        s->np_over += over;
    }
    lender_fix(s, j->tenant, x);
    ten_fix(s, j->tenant);
    return 0;
}

/* A pending job killed while waiting. */
static FAIR_COLD void killed_waiting(struct fair *s, struct gs_job *j)
{
    if (j->pslot & F_WIN)
        gs_jwin_leave(&s->win, j);
    else
        gs_jwin_killed_outside(&s->win, j);
}

static void fair_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                         int why)
{
    (void)why;
    struct fair *s = state;
    if (!(j->pslot & F_RUN)) {
        killed_waiting(s, j);
        return;
    }
    s->ver++;
    gs_fair_ten_ensure(s, sim, j->tenant);
    struct ten *x = ten_upd(s, j->tenant);
    x->gpus -= job_gpus(j);
    x->mem -= job_mem(sim, j);
    if (x->gpus < EPS)          /* no rounding residue once idle */
        x->gpus = 0;
    if (x->mem < EPS)
        x->mem = 0;
    int m0 = x->margin;
    x->margin = margin_of(x);
    ntm_move(s, m0, x->margin);
    s->rgen++;                  /* GPUs came back */
    s->np_over -= (double)j->pnode.time / 1000.0;
    j->pnode.time = 0;
    if (j->pslot & F_VIC) {     /* swap-remove from its node's list */
        int n = (int)(j->pslot >> 16);  /* its alloc is gone by now */
        int g0 = gs_sim_fleet(sim)->nodes[n].gpu0;
        long i = j->pslot >> 8 & 0xff, last = --s->nvic[n];
        x->nrv--;
        s->node_rv[n] -= j->need.gpus;
        gs_fair_vic_add(s, x, n, j->need.gpus, -j->need.gpus);
        if (i != last) {
            struct gs_job **l = gs_lvec_upd(&s->vjob, g0 + i);
            *l = *(struct gs_job **)gs_lvec_upd(&s->vjob, g0 + last);
            *(int *)gs_lvec_upd(&s->vkey, g0 + i) =
                *(int *)gs_lvec_upd(&s->vkey, g0 + last);
            (*l)->pslot = ((*l)->pslot & ~0xff00L) | i << 8;
        }
        gs_fairlv_wit_drop(&s->lx, n);  /* it may have been j */
    }
    /* Its release moved the epoch once per node it held: a job on one
     * node is told of here, any other change leaves the index stale. */
    if ((j->pslot & F_ONE) && gs_sim_epoch(sim) == s->lv_ep + 1)
        s->lv_ep++;
    else
        s->lv_stale = 1;
    if (j->pslot & F_ONE)
        lv_fix(s, gs_sim_fleet(sim), (int)(j->pslot >> 16));
    lender_fix(s, j->tenant, x);
    ten_fix(s, j->tenant);
    j->pslot = 0;
}

/* Reclaim for owner j (fairrec.c clears a node), then start it there: 0
 * if it started. */
static int reclaim(struct fair *s, struct gs_sim *sim, struct gs_job *j)
{
    int best = gs_fair_reclaim(s, sim, j);
    if (best < 0)
        return -1;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    const struct gs_node *nd = &f->nodes[best];
    if (nd->nfull < (j->need.gpus > 0 ? j->need.gpus : 1))
        return -1;
    struct gs_range r = { nd->pool, best - f->pools[nd->pool].node0,
                          best - f->pools[nd->pool].node0 + 1 };
    return start(s, sim, j, &r, 1);
}

/* --- the window: the first `depth` pending jobs ------------------------ */


/* Has group g's shape missed since capacity last came back (so that its
 * jobs miss again)? */
static int shape_missed(const struct fair *s, struct gs_sim *sim, int g)
{
    return shape_upd(s, g)->inmiss &&
           s->sq_ep == 1 + gs_sim_watch_epoch(sim, s->fw);
}

/* A placement for a job of shape k missed: so does every job of it until
 * capacity comes back (when misses repeat); missed_synced when smiss is
 * known to be as of the fleet watch's epoch now (sq_sync) and misses
 * repeat. */
static void missed_synced(struct fair *s, int k)
{
    struct shape *p = gs_lvec_upd(&s->sh, k);
    if (!p->inmiss) {
        p->inmiss = 1;
        gs_lvec_push_int(&s->smiss, k);
        sq_fix(s, k);
    }
}

static void missed(struct fair *s, struct gs_sim *sim, int k)
{
    if (!s->rep)
        return;
    sq_sync(s, sim);
    missed_synced(s, k);
}


/* Window members are indexed in groups by tenant and shape. */
static void win_add(void *ctx, struct gs_job *j)
{
    struct fair *s = ctx;
    s->wchg++;
    gs_fair_ten_ensure(s, s->sim, j->tenant);
    int n0 = s->gs.n;
    int g = gs_jgroups_of(&s->gs, j);
    if (g == n0)            /* new: give it its shape */
        gs_fair_shape_of(s, g, j);
    j->pslot = F_WIN | (long)g << 8;
    grp_add(s, j->tenant, g, j);
}

static void win_drop(void *ctx, struct gs_job *j)
{
    struct fair *s = ctx;
    s->wchg++;
    int g = (int)(j->pslot >> 8);
    grp_remove(s, j->tenant, g, j);
    j->pslot = 0;
}

static void fair_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    (void)sim;
    struct fair *s = state;
    j->pslot = 0;
    if (s->in_pass) {                   /* a victim: after the pass */
        gs_lvec_push_job(&s->late, j);
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

/* cand_before for the first jobs of nonempty groups a and b, read off the
 * groups (counted, as gs_jgroup_head): a group's jobs share their
 * priority, and records are numbered in arrival order (the pending list
 * finds a requeued job's place by its record alone: sim.c), so the first
 * job's record, its key in the group's heap, orders arrivals -- and the
 * jobs themselves are not read. */
static int grp_before(const struct fair *s, int a, int b)
{
    const struct gs_jgroup *x = &s->gs.g[a], *y = &s->gs.g[b];
    gs_time ra = gs_lheap_top_time(&x->q), rb = gs_lheap_top_time(&y->q);
    if (x->prio != y->prio)
        return x->prio > y->prio;
    return ra < rb;
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
    gs_lvec_push_job(&s->cand, (struct gs_job *)((char *)n -
                                                 offsetof(struct gs_job,
                                                          pnode)));
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
    return grp_before(s, a, b);
}

/* om's slot i, in its upkeep (the comparisons read the groups' first
 * jobs, counted). */
static int *om_slot(const struct fair *s, long i)
{
    return gs_lvec_upd(&s->om, i);
}

static void om_push(struct fair *s, int g)
{
    long i = gs_lvec_n(&s->om);
    gs_lvec_push(&s->om);
    while (i > 0 && om_before(s, g, *om_slot(s, (i - 1) / 2))) {
        *om_slot(s, i) = *om_slot(s, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    *om_slot(s, i) = g;
}

/* The group of the first job in pass order, taken out of om (read:
 * counted). */
static int om_pop(struct fair *s)
{
    long n = gs_lvec_n(&s->om) - 1, i = 0;
    int top = gs_lvec_int(&s->om, 0), last = *om_slot(s, n);
    gs_lvec_setn(&s->om, n);
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && om_before(s, *om_slot(s, c + 1), *om_slot(s, c)))
            c++;
        if (!om_before(s, *om_slot(s, c), last))
            break;
        *om_slot(s, i) = *om_slot(s, c);
        i = c;
    }
    if (n > 0)
        *om_slot(s, i) = last;
    return top;
}

/* Take j, waiting, out of group g for the rest of the pass (oh): 1, or 0
 * when j is its last job, left in place: emptied, the group would leave
 * every index (gfix) to rejoin them when j comes back.  The caller leaves
 * it out of om as an empty one; only om's and od's groups are tried, so
 * no one reads its jobs before the pass ends. */
static int hold(struct fair *s, int g, struct gs_job *j)
{
    if (gs_jgroup_size(&s->gs.g[g]) == 1)
        return 0;
    grp_remove(s, j->tenant, g, j);
    gs_lvec_push_job(&s->oh, j);
    return 1;
}

/* Something changed at job cur: the groups set aside come back, past
 * their jobs before cur. */
static void revive(struct fair *s, const struct gs_job *cur)
{
    long keep = 0;
    int quiet = !s->reclaim || s->nlender == 0;
    for (long i = 0; i < gs_lvec_n(&s->od); i++) {
        int g = gs_lvec_int(&s->od, i);
        if (quiet && shape_missed(s, s->sim, g)) {
            *(int *)gs_lvec_upd(&s->od, keep++) = g;   /* would change
                                                          nothing yet */
            continue;
        }
        /* Every job of it before cur (olast bounds its records; a
         * group's jobs share their priority, and records are numbered in
         * arrival order): each would be held and the group left out of
         * om, empty until the pass ends.  It is left out as it is: no
         * one reads it before then -- only om's and od's groups are
         * tried, and the indexes it stays in (the owner list, its
         * shape's heaps, its tenant's ne) are read by the borrowers'
         * pass, after every held job is back -- so the holds are not
         * made. */
        const struct gs_jgroup *gr = &s->gs.g[g];
        if (gr->prio > cur->prio ||
            (gr->prio == cur->prio && s->olast[g] < (int64_t)cur->rec))
            continue;
        struct gs_job *h;
        while ((h = gs_jgroup_head(&s->gs.g[g])) != NULL &&
               cand_before(h, cur))
            if (!hold(s, g, h)) {
                h = NULL;       /* its last job, left in place */
                break;
            }
        if (h != NULL)
            om_push(s, g);
    }
    gs_lvec_setn(&s->od, keep);
}

/* One owner: what owners() does with j; 1 if it changed anything. */
static int owner_try(struct fair *s, struct gs_sim *sim,
                     const struct gs_fleet *f, struct gs_job *j)
{
    uint64_t v = s->ver;
    const struct ten *x = ten_at(s, j->tenant);
    if (x->gpus + job_gpus(j) > x->quota + EPS)
        return 0;
    int g = (int)(j->pslot >> 8);
    /* its shape missed since capacity came back: so would it (an owner is
     * never refused by the strict rule first) */
    if (!fleet_full(f) && !shape_missed(s, sim, g)) {
        int rc = start(s, sim, j, NULL, 0);
        if (rc == 0)
            return 1;
        if (rc == -1)
            missed(s, sim, s->gsh[g]);
    }
    if (s->reclaim)
        reclaim(s, sim, j);
    return s->ver != v;
}

static void owners_merge(struct fair *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    gs_lvec_setn(&s->om, 0);
    gs_lvec_setn(&s->od, 0);
    gs_lvec_setn(&s->oh, 0);
    for (long i = 0; i < gs_lvec_n(&s->ol); i++)
        om_push(s, gs_lvec_int(&s->ol, i));
    while (gs_lvec_n(&s->om) > 0) {
        int g = om_pop(s);
        struct gs_job *j = gs_jgroup_head(&s->gs.g[g]);
        /* Its shape missed earlier in this pass (or since capacity came
         * back) and no reclaim can follow: trying it would change nothing. */
        int changed = (s->reclaim && s->nlender > 0) ||
                      !shape_missed(s, sim, g)
                          ? owner_try(s, sim, f, j) : 0;
        if (!changed) {
            /* set aside with j still its first job: revive() takes j (and
             * whatever else came before the job that changed something)
             * out of it, as passed over, before the group comes back */
            gs_lvec_push_int(&s->od, g);
            continue;
        }
        int more = 1;
        if (gs_jgroup_head(&s->gs.g[g]) == j)      /* still waiting */
            more = hold(s, g, j);
        revive(s, j);
        if (more && gs_jgroup_size(&s->gs.g[g]) > 0)
            om_push(s, g);
    }
    /* back into their groups, in the order they came out */
    for (long i = 0; i < gs_lvec_n(&s->oh); i++) {
        struct gs_job *j = gs_lvec_job(&s->oh, i);
        int g = (int)(j->pslot >> 8);
        grp_add(s, j->tenant, g, j);
    }
    gs_lvec_setn(&s->oh, 0);
}

/* owners_quiet's heap of shapes (oss), least key first. */
static void oss_push(struct fair *s, int64_t key, int k)
{
    long i = gs_lvec_n(&s->oss);
    gs_lvec_push(&s->oss);
    struct oskey *a = gs_lvec_upd(&s->oss, 0);
    while (i > 0 && key < a[(i - 1) / 2].key) {
        a[i] = a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    a[i] = (struct oskey){ key, k };
}

/* The shape of least key, taken out (read: counted). */
static int oss_pop(struct fair *s)
{
    long n = gs_lvec_n(&s->oss) - 1, i = 0;
    int top = ((const struct oskey *)gs_lvec_at(&s->oss, 0))->k;
    struct oskey *a = gs_lvec_upd(&s->oss, 0), last = a[n];
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && a[c + 1].key < a[c].key)
            c++;
        if (!(a[c].key < last.key))
            break;
        a[i] = a[c];
        i = c;
    }
    if (n > 0)
        a[i] = last;
    gs_lvec_setn(&s->oss, n);
    return top;
}

/* Shape k's first owner group (its oq's top: read, counted), or -1. */
static int oq_first(const struct fair *s, int k)
{
    const struct shape *p = gs_lvec_upd(&s->sh, k);
    return gs_lvec_n(&p->oq) > 0 ? gs_lvec_int(&p->oq, 0) : -1;
}

/* Owners when nothing can be reclaimed (no reclaim, or no tenant lends):
 * owners_merge's pass, with what it would find fixed in advance.  An owner
 * passes its quota test (it is in ol: within(), the same sum) and is
 * never refused by the strict rule (it holds nothing beyond its
 * guarantee), so it either starts or misses -- or, on a full fleet, is
 * not tried, and nothing is left to change.  A miss sets its shape aside
 * for the pass and until capacity comes back, when misses repeat: every
 * group of the shape would be tried and skipped.  A start only takes
 * capacity, so nothing set aside comes back (revive() keeps every group
 * of a shape that missed).  So the pass takes the owner groups in
 * owners_merge's order -- the shapes merged by their first owner groups
 * (oq), each shape's in order -- and leaves a shape out whole once it has
 * missed, and the pass at once when the fleet is full; a shape asking
 * more GPUs than are idle has missed before it starts (the first of its
 * groups tried would find so: next_group's test for borrowers).  It reads
 * the shapes with an owner group and the groups it tries, not every
 * owner group (owners_merge pushed every one into its heap each pass). */
static void owners_quiet(struct fair *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double idle = (double)f->gpus_up - (double)f->used_milli / 1000.0;
    gs_lvec_setn(&s->oss, 0);
    for (long i = 0; i < gs_lvec_n(&s->osq); i++) {
        int k = gs_lvec_int(&s->osq, i);
        const struct gs_need *nd = &s->shp.g[k].need;
        if ((nd->gpus > 0 ? nd->gpus : nd->milli / 1000.0) > idle + EPS)
            missed(s, sim, k);
        int g = oq_first(s, k);
        if (!shape_missed(s, sim, g))
            oss_push(s, okey(s, g), k);
    }
    uint64_t ep = gs_sim_watch_epoch(sim, s->fw);
    while (gs_lvec_n(&s->oss) > 0 && !fleet_full(f)) {
        int64_t key = ((const struct oskey *)gs_lvec_at(&s->oss, 0))->key;
        int k = oss_pop(s);
        int g = oq_first(s, k);
        if (g < 0)
            continue;           /* its owner groups left ol (a start) */
        if (okey(s, g) != key) {        /* its first group left: later */
            oss_push(s, okey(s, g), k);
            continue;
        }
        struct gs_job *j = gs_jgroup_head(&s->gs.g[g]);
        if (owner_try(s, sim, f, j)) {
            GS_ASSERT(gs_sim_watch_epoch(sim, s->fw) == ep);
            if ((g = oq_first(s, k)) >= 0)
                oss_push(s, okey(s, g), k);
        } else {
            GS_ASSERT(fleet_full(f) || shape_missed(s, sim, g));
        }
    }
}

/* owners() as a walk of every owner job in pass order: the reference
 * (walk), and the pass when misses do not repeat. */
static FAIR_COLD void owners_walk(struct fair *s, struct gs_sim *sim,
                                  const struct gs_fleet *f)
{
    gs_lvec_setn(&s->cand, 0);
    for (long i = 0; i < gs_lvec_n(&s->ol); i++)
        GS_OOM_IF(gs_lheap_walk(&s->gs.g[gs_lvec_int(&s->ol, i)].q, collect,
                                s) < 0);
    long n = gs_lvec_n(&s->cand);
    if (n == 0)
        return;
    qsort(gs_lvec_upd(&s->cand, 0), (size_t)n, sizeof(struct gs_job *),
          cand_cmp);
    for (long i = 0; i < n; i++) {
        struct gs_job *j = gs_lvec_job(&s->cand, i);
        const struct ten *x = ten_at(s, j->tenant);
        if (x->gpus + job_gpus(j) > x->quota + EPS)
            continue;
        if (!fleet_full(f) && start(s, sim, j, NULL, 0) == 0)
            continue;
        if (s->reclaim)
            reclaim(s, sim, j);
    }
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
    if (s->rep && !s->walk) {
        if (!s->reclaim || s->nlender == 0)
            owners_quiet(s, sim);
        else
            owners_merge(s, sim);
        return;
    }
    owners_walk(s, sim, f);
}

/* The borrowers' next group: the first job of the tenant of least
 * dominant share (ties to the lower index) among the live groups whose
 * shape has not missed, or -1.  One look per shape in sq.  When misses
 * repeat, a shape whose jobs ask more GPUs than are idle misses now (the
 * borrowers' pass would find it so whenever its first group came up) and
 * leaves sq unread. */
static int next_group(struct fair *s, struct gs_sim *sim)
{
    sq_sync(s, sim);
    int best = -1, bt = -1;
    double bkey = 0;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double idle = (double)f->gpus_up - (double)f->used_milli / 1000.0;
    int whole = s->rep;
    for (long i = 0; i < gs_lvec_n(&s->sq); i++) {
        int k = gs_lvec_int(&s->sq, i);
        const struct shape *p = gs_lvec_upd(&s->sh, k);
        const struct gs_need *nd = &s->shp.g[k].need;   /* its groups' */
        if (whole && (nd->gpus > 0 ? nd->gpus : nd->milli / 1000.0) >
                         idle + EPS) {
            missed_synced(s, k);        /* k leaves slot i (synced
                                           above, misses repeat) */
            i--;
            continue;
        }
        for (int b = 0; b < 2; b++) {
            if (gs_lvec_n(&p->h[b]) == 0)
                continue;
            /* h[1]: start() refuses every group when it refuses the one
             * with the least GPUs beyond its guarantee (none when it would
             * take a whole job's GPUs: no job holds more beyond it) */
            if (b && s->np_over + (nd->gpus > 0 ? nd->gpus
                                                : nd->milli / 1000.0) >
                         s->unreserved + EPS &&
                s->np_over + s->gov[gs_lvec_int(&p->o, 0)] >
                    s->unreserved + EPS)
                continue;
            int g = gs_lvec_int(&p->h[b], 0);
            int t = s->gs.g[g].tenant;
            double key = ten_at(s, t)->key;
            if (best < 0 ||
                (t == bt ? grp_before(s, g, best)
                         : key_before(key, t, bkey, bt))) {
                best = g;
                bt = t;
                bkey = key;
            }
        }
    }
    return best;
}

/* Set group g aside for the rest of the pass. */
static void set_aside(struct fair *s, int g)
{
    s->gs.g[g].mark = 1;
    gs_lvec_push_int(&s->dead, g);
    gfix(s, s->gs.g[g].tenant, g);
}

/* 2. Borrowers: the rest, tenant of lowest dominant share first, each
 * tenant's jobs in pass order.  A job that does not start drops out for
 * the pass.  When misses repeat, so do all its group's later jobs
 * (capacity only shrinks here and its tenant's share only grows): a
 * group refused by the strict rule is set aside whole, and when the
 * placement missed, every group of its shape is left out (missed(): they
 * miss alike, until capacity comes back -- in a later pass too).
 * Otherwise the job alone is put aside.  This is the order of a walk of
 * the tenants by share that tries each one's groups by first job: the
 * tenants and groups it would pass over are those whose jobs would not
 * start. */
static void borrowers(struct fair *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int whole = s->rep;
    gs_lvec_setn(&s->dead, 0);
    gs_lvec_setn(&s->cand, 0);
    while (!fleet_full(f)) {
        int g = next_group(s, sim);
        if (g < 0)
            break;
        struct gs_job *j = gs_jgroup_head(&s->gs.g[g]);
        /* More GPUs than are idle: start() could not place it (a miss
         * that, when misses repeat, need not be tried). */
        double idle = (double)f->gpus_up - (double)f->used_milli / 1000.0;
        int rc = whole && job_gpus(j) > idle + EPS ? -1
                                                   : start(s, sim, j, NULL, 0);
        if (rc == 0)
            continue;
        if (whole) {
            if (rc == -1)
                missed(s, sim, s->gsh[g]);
            else
                set_aside(s, g);
        } else {
            grp_remove(s, s->gs.g[g].tenant, g, j);
            gs_lvec_push_job(&s->cand, j);
        }
    }
    for (long i = 0; i < gs_lvec_n(&s->dead); i++) {
        int g = gs_lvec_int(&s->dead, i);
        s->gs.g[g].mark = 0;
        gfix(s, s->gs.g[g].tenant, g);
    }
    for (long i = 0; i < gs_lvec_n(&s->cand); i++) {
        struct gs_job *j = gs_lvec_job(&s->cand, i);
        int g = (int)(j->pslot >> 8);
        grp_add(s, s->gs.g[g].tenant, g, j);
    }
}

static void fair_schedule(void *state, struct gs_sim *sim)
{
    struct fair *s = state;
    gs_jwin_settle(&s->win, sim);
    if (s->idle && s->ver == s->idle_ver && s->wchg == s->idle_wchg &&
        gs_sim_watch_epoch(sim, s->fw) == s->idle_ep)
        return;                 /* the state the last pass left alone */
    s->in_pass = 1;
    uint64_t v0 = ++s->ver;             /* reclaim misses are per pass */
    owners(s, sim);
    borrowers(s, sim);
    s->in_pass = 0;
    long nlate = gs_lvec_n(&s->late);
    s->idle = s->ver == v0 && nlate == 0 && s->rep;
    for (long i = 0; i < nlate; i++)
        gs_jwin_arrive(&s->win, gs_lvec_job(&s->late, i));
    gs_lvec_setn(&s->late, 0);
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
    .free = gs_fair_free,
    .arrive = fair_arrive,
    .stopped = fair_stopped,
    .schedule = fair_schedule,
};
