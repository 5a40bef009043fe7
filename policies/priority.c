/* priority.c -- highest priority first, optionally preempting lower ones.
 *
 * Pending jobs are kept sorted by (priority descending, arrival, arrival
 * sequence).  Each pass starts every job, in that order, that fits; with
 * strict = true it stops at the first that does not (no overtaking).
 *
 * With preempt = true, a job that does not fit may evict running jobs that
 * are preemptible and of strictly lower priority, the way the Kubernetes
 * scheduler does: for each node of a pool the job may use, the GPUs it could
 * reclaim are its fully free GPUs plus the whole GPUs held by such victims
 * confined to that node; the job picks the node needing the fewest reclaimed
 * GPUs, then evicts the lowest-priority, most recently started victims there
 * until it fits.  Only single-node whole-GPU jobs preempt; fractional and
 * multi-node jobs wait.  Victims lose work since their last checkpoint.
 *
 * Cost.  Without preemption, when a miss repeats (gs_sim_misses_repeat: a
 * deterministic placer, no sharing model), jobs are kept in groups of the
 * same priority, tier and need, each a heap by record index (arrival
 * order), and the groups in an array sorted by their first jobs
 * (gs_gorder, jobgroup.h).  Within a pass capacity only shrinks, so once a
 * group's first job does not fit -- or wants more than is idle -- none of
 * the group's later jobs would: the pass takes groups' first jobs in queue
 * order and sets a group aside at its first miss, the cursor stepping past
 * it (until the ninth session a heap of groups, from which a group set
 * aside was popped and, after the pass, pushed back: 2 x 116 k heap
 * operations in a 50 k-job run under preemption).  It tries the same jobs
 * in the same order as the walk over the whole queue, but looks only at
 * the jobs it starts plus one per group.  With preemption the groups serve too (a group is set aside
 * only when its miss provably repeats: miss_repeats), and the victim
 * search asks an index of the nodes by the GPUs reclaimable below each
 * priority (victims.h) for the node the scan would choose, then looks only
 * at the victims there.  A grouped pass also ends as soon as nothing left
 * in it can act (nothing_left): on plain pools, when no open node has as
 * many GPUs fully free as the smallest waiting job asks and no node could
 * make room for that many from victims below the next group's priority --
 * on a saturated fleet most groups of a pass were read only to be set
 * aside (priority with preempt at load 1.2: 2.4 M of 3.2 M group visits
 * in 200 k jobs); it is asked again only when its answer may have moved,
 * after a start or a preemption or for a group of another priority.  With a placer that draws on a miss, or shared
 * GPUs, the sorted array is walked as described above and the victim
 * search scans every running job (make_room). */
#include "policy.h"
#include "needtab.h"
#include "jobgroup.h"
#include "victims.h"
#include "../sim/core/sim.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct prio {
    int fast;                   /* grouped mode (see the top) */
    struct gs_jgroups gs;
    struct gs_gorder go;        /* groups by first job */

    struct gs_lvec q;           /* the queue (struct gs_job *), in order */
    int preempt, strict;
    int *reclaim;               /* per node, scratch */
    int nnodes;
    int in_pass;                /* schedule() is walking q */
    struct gs_lvec late;        /* jobs requeued during a pass, merged
                                   after */

    /* Grouped mode with preemption: possible victims (running, preemptible,
     * whole GPUs on one node) listed by node, and the nodes indexed by the
     * GPUs they could free below each priority (victims.h). */
    struct vnode { struct gs_lvec v; } *vn;     /* per node: its jobs */
    struct gs_victims *vx;
    char *pe;                   /* per pool: eligible, this query */
    char *all;                  /* per pool: 1 */
    struct gs_job **vict;       /* scratch: victims on one node */
    long capvict;
    struct gs_lvec tried;       /* jobs failed in this pass, out of their
                                   groups */
    /* Grouped mode: the last pass started and preempted nothing, at epoch
     * qepoch, and no group got a new first job nor did a job stop since. */
    int quiet;
    uint64_t qepoch;
    /* Grouped mode: the waiting jobs (in groups or tried) that ask whole
     * GPUs on one node, by GPUs asked (sizes: a bit for each count above
     * 0), and the others; what nothing_left() reads. */
    long nsize[GS_MAX_GPN + 1];
    uint64_t sizes;
    long nother;
    int mingpn;                 /* the fewest GPUs a node of any GPU pool */
    int can_end;                /* plain GPU pools, no gang spreading */
};

static int before(const struct gs_job *a, const struct gs_job *b);

/* 1 if every pool with GPUs shares none (no MIG, fractions or time
 * slicing) and gangs are not spread over nodes: a whole-GPU job asking no
 * more than a node holds then starts only on one node with that many GPUs
 * fully free.  *mingpn: the fewest GPUs a node of those pools. */
static int plain_fleet(struct gs_sim *sim, int *mingpn)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    *mingpn = 0;
    if (gs_sim_scenario(sim)->topo.gang == GS_GANG_SPREAD)
        return 0;
    for (int p = 0; p < f->npools; p++) {
        const struct gs_pool *pl = &f->pools[p];
        if (pl->s.gpn <= 0)
            continue;
        if (pl->mig || pl->s.share.mode != GS_SHARE_NONE)
            return 0;
        if (*mingpn == 0 || pl->s.gpn < *mingpn)
            *mingpn = pl->s.gpn;
    }
    return *mingpn > 0;
}

static int prio_init(struct gs_sim *sim, struct gs_params *p, void **state,
                     struct gs_diag *d)
{
    struct prio *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    int rc;
    if ((rc = gs_params_bool(p, "preempt", &s->preempt, d)) < 0 ||
        (rc = gs_params_bool(p, "strict", &s->strict, d)) < 0) {
        free(s);
        return rc;
    }
    s->nnodes = gs_sim_fleet(sim)->nnodes;
    s->reclaim = calloc((size_t)(s->nnodes + 1), sizeof *s->reclaim);
    if (s->reclaim == NULL) {
        free(s);
        return GS_ENOMEM;
    }
    s->fast = gs_sim_misses_repeat(sim);
    s->can_end = plain_fleet(sim, &s->mingpn);
    if (s->fast && s->preempt) {
        /* The index watches the fleet (it only reads it; watching is the
         * one change it makes, to the fleet's list of watchers). */
        struct gs_fleet *f = (struct gs_fleet *)gs_sim_fleet(sim);
        s->vn = calloc((size_t)s->nnodes + 1, sizeof *s->vn);
        s->pe = calloc((size_t)f->npools + 1, 1);
        s->all = malloc((size_t)f->npools + 1);
        if (s->all)
            memset(s->all, 1, (size_t)f->npools + 1);
        rc = s->vn == NULL || s->pe == NULL || s->all == NULL ? GS_ENOMEM
                                             : gs_victims_new(f, &s->vx);
        if (rc < 0) {
            free(s->vn);
            free(s->pe);
            free(s->all);
            free(s->reclaim);
            free(s);
            return gs_diag_set(d, rc, "", "%s",
                               rc == GS_ENOMEM ? "out of memory"
                                               : "too many fleet watchers");
        }
    }
    if (s->vn)
        for (int n = 0; n < s->nnodes; n++)
            gs_lvec_init(&s->vn[n].v, sim, sizeof(struct gs_job *));
    gs_jgroups_init(&s->gs, sim, 0);
    gs_lvec_init(&s->q, sim, sizeof(struct gs_job *));
    gs_lvec_init(&s->late, sim, sizeof(struct gs_job *));
    gs_lvec_init(&s->tried, sim, sizeof(struct gs_job *));
    s->go.before = before;
    *state = s;
    return 0;
}

static void prio_free(void *state)
{
    struct prio *s = state;
    gs_lvec_free(&s->q);
    gs_lvec_free(&s->late);
    free(s->reclaim);
    gs_jgroups_free(&s->gs);
    gs_gorder_free(&s->go);
    if (s->vn)
        for (int n = 0; n < s->nnodes; n++)
            gs_lvec_free(&s->vn[n].v);
    free(s->vn);
    gs_victims_free(s->vx);
    free(s->pe);
    free(s->all);
    free(s->vict);
    gs_lvec_free(&s->tried);
    free(s);
}

/* --- grouped mode ------------------------------------------------------- */

static struct gs_job *ghead(const struct prio *s, int g)
{
    return gs_jgroup_head(&s->gs.g[g]);
}

/* A waiting job joins (d = +1) or leaves (-1) the counts nothing_left()
 * reads. */
static void count_waiting(struct prio *s, const struct gs_job *j, int d)
{
    int g = j->need.gpus;
    if (g < 1 || g > s->mingpn || j->need.profile) {
        s->nother += d;
        return;
    }
    s->nsize[g] += d;
    if (s->nsize[g] > 0)
        s->sizes |= 1ULL << g;
    else
        s->sizes &= ~(1ULL << g);
}

/* A running job's pslot: listed in s->vn (a possible victim), or not,
 * with the group it started from -- a requeued job goes back to it
 * without the group table's hash (its need, tier and priority are the
 * same). */
#define LISTED(g) (-2L - (long)(g))
#define KEPT(g) (-(1L << 32) - (long)(g))
static int is_listed(long pslot)
{
    return pslot <= LISTED(0) && pslot > KEPT(0);
}

static void fast_arrive(struct prio *s, struct gs_job *j)
{
    count_waiting(s, j, +1);
    int g = j->pslot <= KEPT(0) ? (int)(KEPT(0) - j->pslot)
                                : gs_jgroups_of(&s->gs, j);
    j->pslot = g;
    gs_jgroup_add(&s->gs, g, j);
    const struct gs_job *h = ghead(s, g);
    if (h == j) {
        gs_gorder_fix(&s->go, &s->gs, g);
        s->quiet = 0;
    }
}

/* --- grouped mode with preemption: victims indexed by node and level --- */

static int could_be_victim(const struct gs_job *v)
{
    return v->preemptible && v->alloc.n == 1 && v->need.gpus > 0 &&
           v->alloc.pool >= 0;
}

/* A job of group g started: list it on its node if it could ever be a
 * victim. */
static void vict_add(struct prio *s, struct gs_job *j, int g)
{
    j->pslot = KEPT(g);
    if (s->vn == NULL || !could_be_victim(j))
        return;
    int n = j->alloc.one.node;
    gs_lvec_push_job(&s->vn[n].v, j);
    j->pnode.time = n;          /* its node, for vict_remove: the core
                                   clears a requeued job's alloc first */
    gs_victims_move(s->vx, n, j->prio, j->need.gpus, +1);
    j->pslot = LISTED(g);
}

/* A listed job stopped. */
static void vict_remove(struct prio *s, struct gs_job *j)
{
    int n = (int)j->pnode.time;
    struct gs_lvec *x = &s->vn[n].v;
    for (long i = 0; i < gs_lvec_n(x); i++)
        if (gs_lvec_job(x, i) == j) {
            gs_lvec_del(x, i);
            break;
        }
    gs_victims_move(s->vx, n, j->prio, j->need.gpus, -1);
    j->pslot = KEPT(LISTED(0) - j->pslot);
}

static int victim_cmp(const void *x, const void *y);

/* The pools that may hold the jobs of j's group, bit p for pool p (a
 * function of the need, which the group fixes): worked out once a group
 * on fleets of up to 63 pools; ALLPOOLS, to be asked pool by pool, on
 * larger fleets or for a job in no group. */
#define ALLPOOLS UINT64_MAX
static __attribute__((noinline, cold)) uint64_t
pools_work_out(const struct gs_fleet *f, const struct gs_job *j)
{
    uint64_t m = 1ULL << 63;            /* bit 63: worked out */
    for (int q = 0; q < f->npools; q++)
        if (gs_fleet_pool_eligible(f, q, &j->need))
            m |= 1ULL << q;
    return m;
}

static inline uint64_t pools_of(struct prio *s, const struct gs_fleet *f,
                                const struct gs_job *j)
{
    long g = j->pslot;
    if (f->npools > 63 || g < 0 || g >= s->gs.n)
        return ALLPOOLS;
    uint64_t *m = &s->gs.g[g].pools;
    if (__builtin_expect(!(*m >> 63), 0))
        *m = pools_work_out(f, j);
    return *m;
}

/* Pool p may hold j (m: pools_of(j)). */
static int eligible(const struct gs_fleet *f, const struct gs_job *j,
                    uint64_t m, int p)
{
    return m == ALLPOOLS ? gs_fleet_pool_eligible(f, p, &j->need)
                         : (int)(m >> p & 1);
}

/* The victims on one node in the order they go: lower priority first,
 * then the most recently started (victim_cmp; an insertion sort, as a
 * node holds at most its GPUs' count of them). */
static void sort_victims(struct gs_job **v, long n)
{
    for (long i = 1; i < n; i++) {
        struct gs_job *x = v[i];
        long k = i;
        for (; k > 0 && victim_cmp(&x, &v[k - 1]) < 0; k--)
            v[k] = v[k - 1];
        v[k] = x;
    }
}

/* make_room() over the index: the same node and victims, looking only at
 * the victims on the node chosen.  0 if j started; *preempted says whether
 * anything was preempted. */
static int make_room_fast(struct prio *s, struct gs_sim *sim,
                          struct gs_job *j, int *preempted)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    *preempted = 0;
    if (j->need.gpus == 0)
        return -1;
    int need = j->need.gpus;
    uint64_t m = pools_of(s, f, j);
    for (int p = 0; p < f->npools; p++)
        s->pe[p] = (char)eligible(f, j, m, p);
    int best = gs_victims_best(s->vx, j->prio, need, s->pe);
    if (best < 0)
        return -1;
    const struct gs_lvec *v = &s->vn[best].v;
    long n = gs_lvec_n(v);
    if (n > s->capvict)
        s->vict = gs_grow(s->vict, &s->capvict, n, sizeof *s->vict);
    long nv = 0;
    for (long k = 0; k < n; k++) {
        struct gs_job *x = gs_lvec_job(v, k);
        if (x->prio < j->prio)
            s->vict[nv++] = x;
    }
    sort_victims(s->vict, nv);
    const struct gs_node *nd = &f->nodes[best];
    struct gs_range r = { nd->pool, best - f->pools[nd->pool].node0,
                          best - f->pools[nd->pool].node0 + 1 };
    for (long i = 0; i < nv && nd->nfull < need; i++) {
        gs_sim_preempt(sim, s->vict[i]);
        *preempted = 1;
    }
    if (nd->nfull >= need && gs_sim_try_start(sim, j, &r, 1) == 0)
        return 0;
    return -1;
}

/* After j (pending, whole GPUs) found no room and no victims, and nothing
 * was preempted for it: will every later job of its group fail too in
 * this pass?  Yes when it can only go on one node and no open node it may
 * use has its GPUs free (its miss was for want of GPUs): within its
 * priority, starts only take GPUs and preemptions free no more than the
 * lower-priority GPUs each node already counted for it; jobs of lower
 * priority come after the whole group (the queue's order).  Not for a job
 * of several GPUs under gang spreading (as fair's sure_miss): the core
 * may place its GPUs on several nodes, and what preemptions for other
 * jobs leave free on each adds up (test_resources has a case). */
static int miss_repeats(struct prio *s, const struct gs_sim *sim,
                        const struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (j->need.gpus == 0 ||
        (j->need.gpus > 1 &&
         gs_sim_scenario(sim)->topo.gang == GS_GANG_SPREAD))
        return 0;
    uint64_t m = pools_of(s, f, j);
    for (int p = 0; p < f->npools; p++) {
        if (!eligible(f, j, m, p))
            continue;
        if (j->need.gpus > f->pools[p].s.gpn)
            return 0;
        struct gs_range r = { p, 0, f->pools[p].s.nodes };
        if (gs_fleet_most_free(f, &r) >= j->need.gpus)
            return 0;
    }
    return 1;
}

/* Would this pass do what the last did -- nothing?  Yes when the last
 * started and preempted nothing, no capacity came back since (the fleet's
 * epoch) and no job stopped, and no group has a new first job: the pass is
 * a function of the fleet, the running jobs and the groups (not of the
 * clock), so it would try the same jobs and miss them all again.  A job
 * that joined a group behind its first would be tried only if the group
 * was not set aside, and then fails as the group's first did (the same
 * need, host asks included, tier and priority: the same victims). */
static int same_as_last(const struct prio *s, uint64_t epoch)
{
    return s->quiet && epoch == s->qepoch;
}

/* Can the rest of this pass start or preempt anything, the next group to
 * try being of priority prio?  No when every waiting job asks whole GPUs
 * on one node, plain pools (plain_fleet), at least smin of them, and no
 * open node has smin GPUs fully free -- so no start can succeed, and no
 * attempt changes anything -- and, with preemption, no node could make
 * room for smin GPUs from victims below prio: a job asking g >= smin
 * would need a node with nfull < g <= nfull + R, and nfull < smin there,
 * so nfull + R >= smin, which the index just denied (later groups have
 * priority prio or lower: fewer victims).  The pass may then stop: the
 * groups it would still take would each miss, and set aside or tried,
 * all go back as they were. */
static int nothing_left(const struct prio *s, const struct gs_fleet *f,
                        int prio)
{
    if (!s->can_end || s->nother > 0 || s->sizes == 0)
        return 0;
    int smin = __builtin_ctzll(s->sizes);
    for (int p = 0; p < f->npools; p++)
        if (f->pools[p].s.gpn > 0 && (f->pools[p].fmask[1] >> smin) != 0)
            return 0;           /* a node with smin GPUs fully free */
    return !s->preempt || !gs_victims_any(s->vx, prio, smin, s->all);
}

static void fast_schedule(struct prio *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    uint64_t epoch = gs_sim_epoch(sim);
    if (same_as_last(s, epoch))
        return;
    int acted = 0;
    gs_lvec_setn(&s->tried, 0);
    s->in_pass = 1;
    gs_gorder_begin(&s->go);
    int g;
    /* nothing_left() is asked again only when its answer may have moved:
     * after a start or a preemption, or for another priority (a miss set
     * aside or tried changes neither the fleet nor the waiting counts). */
    int known = 0, known_prio = 0;
    while ((g = gs_gorder_next(&s->go, &s->gs)) >= 0) {
        int gp = s->gs.g[g].prio;
        if (!known || (gp != known_prio && s->preempt)) {
            if (nothing_left(s, f, gp))
                break;
            known = 1;
            known_prio = gp;
        }
        struct gs_job *j = ghead(s, g);
        int64_t idle = f->gpus_up * 1000 - f->used_milli;
        int64_t want = j->need.gpus > 0 ? 1000LL * j->need.gpus
                                        : j->need.milli;
        int preempted = 0;
        if ((want <= idle && !gs_job_sure_miss(sim, j, NULL, 0) &&
             gs_sim_try_start(sim, j, NULL, 0) == 0) ||
            (s->preempt && make_room_fast(s, sim, j, &preempted) == 0)) {
            gs_jgroup_remove(&s->gs.g[g], j);
            gs_gorder_fix(&s->go, &s->gs, g);
            count_waiting(s, j, -1);
            vict_add(s, j, g);
            acted = 1;
            known = 0;
            continue;
        }
        acted |= preempted;
        if (preempted)
            known = 0;
        if (s->strict)
            break;
        if (!s->preempt || (!preempted && miss_repeats(s, sim, j))) {
            gs_gorder_aside(&s->go, &s->gs, g);  /* out for the pass */
        } else {
            /* the group's next job is tried as the walk would */
            gs_lvec_push_job(&s->tried, j);
            gs_jgroup_remove(&s->gs.g[g], j);
            gs_gorder_fix(&s->go, &s->gs, g);
        }
    }
    for (long i = 0; i < gs_lvec_n(&s->tried); i++) {
        struct gs_job *t = gs_lvec_job(&s->tried, i);
        int tg = (int)t->pslot;
        gs_jgroup_add(&s->gs, tg, t);
        gs_gorder_fix(&s->go, &s->gs, tg);
    }
    gs_lvec_setn(&s->tried, 0);
    s->in_pass = 0;
    s->quiet = !acted;
    s->qepoch = epoch;
    for (long i = 0; i < gs_lvec_n(&s->late); i++)
        fast_arrive(s, gs_lvec_job(&s->late, i));
    gs_lvec_setn(&s->late, 0);
}


/* a goes before b */
static int before(const struct gs_job *a, const struct gs_job *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->s.arrival != b->s.arrival)
        return a->s.arrival < b->s.arrival;
    return a->rec < b->rec;
}

static void prio_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    (void)sim;
    struct prio *s = state;
    if (s->fast && !s->in_pass) {
        fast_arrive(s, j);
        return;
    }
    if (s->in_pass) {
        gs_lvec_push_job(&s->late, j);
        return;
    }
    long n = gs_lvec_n(&s->q), lo = 0, hi = n;
    while (lo < hi) {           /* a binary search reads log n entries */
        long mid = (lo + hi) / 2;
        if (before(gs_lvec_job(&s->q, mid), j))
            lo = mid + 1;
        else
            hi = mid;
    }
    gs_lvec_setn(&s->q, n + 1);
    memmove(gs_lvec_upd(&s->q, lo + 1), gs_lvec_upd(&s->q, lo),
            (size_t)(n - lo) * sizeof j);
    *(struct gs_job **)gs_lvec_upd(&s->q, lo) = j;
}

/* Victim order: lower priority first, then the most recently started. */
static int victim_cmp(const void *x, const void *y)
{
    const struct gs_job *a = *(struct gs_job *const *)x;
    const struct gs_job *b = *(struct gs_job *const *)y;
    if (a->prio != b->prio)
        return a->prio < b->prio ? -1 : 1;
    if (a->started != b->started)
        return a->started > b->started ? -1 : 1;
    return a->rec < b->rec ? -1 : a->rec > b->rec;
}

static int is_victim(const struct gs_fleet *f, const struct gs_job *v,
                     const struct gs_job *j)
{
    return v->preemptible && v->prio < j->prio && v->alloc.n == 1 &&
           v->need.gpus > 0 && gs_fleet_pool_eligible(f, v->alloc.pool,
                                                      &j->need);
}

/* Try to make room for j by preemption.  0 if j started. */
static int make_room(struct prio *s, struct gs_sim *sim, struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (j->need.gpus == 0)
        return -1;
    long nrun = gs_sim_nrunning(sim);
    for (long i = 0; i < nrun; i++) {
        const struct gs_job *r = gs_sim_running_at(sim, i);
        if (is_victim(f, r, j))
            s->reclaim[r->alloc.one.node] += r->need.gpus;
    }
    int best = -1, best_need = 1 << 30;
    for (long i = 0; i < nrun; i++) {
        const struct gs_job *r = gs_sim_running_at(sim, i);
        if (!is_victim(f, r, j))
            continue;
        int node = r->alloc.one.node;
        const struct gs_node *nd = &f->nodes[node];
        if (j->need.gpus > f->pools[nd->pool].s.gpn)
            continue;
        int deficit = j->need.gpus - nd->nfull;
        if (deficit > 0 && nd->nfull + s->reclaim[node] >= j->need.gpus &&
            (deficit < best_need || (deficit == best_need && node < best))) {
            best = node;
            best_need = deficit;
        }
    }
    long nv = 0;
    struct gs_job **v = NULL;
    if (best >= 0) {
        v = malloc((size_t)nrun * sizeof *v);
        GS_OOM_IF(v == NULL);
        for (long i = 0; i < nrun; i++) {
            struct gs_job *r = gs_sim_running_at(sim, i);
            if (is_victim(f, r, j) && r->alloc.one.node == best)
                v[nv++] = r;
        }
        qsort(v, (size_t)nv, sizeof *v, victim_cmp);
    }
    for (long i = 0; i < nrun; i++) {
        const struct gs_job *r = gs_sim_running_at(sim, i);
        if (r->alloc.pool >= 0 && r->alloc.n == 1)
            s->reclaim[r->alloc.one.node] = 0;
    }
    if (best < 0)
        return -1;
    const struct gs_node *nd = &f->nodes[best];
    struct gs_range r = { nd->pool, best - f->pools[nd->pool].node0,
                          best - f->pools[nd->pool].node0 + 1 };
    int rc = -1;
    for (long i = 0; i < nv && nd->nfull < j->need.gpus; i++)
        gs_sim_preempt(sim, v[i]);
    if (nd->nfull >= j->need.gpus)
        rc = gs_sim_try_start(sim, j, &r, 1);
    free(v);
    return rc;
}

static void prio_schedule(void *state, struct gs_sim *sim)
{
    struct prio *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    long w = 0, i;
    if (s->fast) {
        fast_schedule(s, sim);
        return;
    }
    /* Preemption requeues victims through arrive(); they wait in s->late
     * until the walk over s->q is done. */
    s->in_pass = 1;
    long n = gs_lvec_n(&s->q);
    struct gs_job **q = gs_lvec_upd(&s->q, 0);  /* compacted in place */
    for (i = 0; i < n; i++) {
        struct gs_job *j = gs_lvec_job(&s->q, i);
        int started = 0;
        int64_t idle = f->gpus_up * 1000 - f->used_milli;
        int64_t want = j->need.gpus > 0 ? 1000LL * j->need.gpus : j->need.milli;
        if (want <= idle && gs_sim_try_start(sim, j, NULL, 0) == 0)
            started = 1;
        else if (s->preempt && make_room(s, sim, j) == 0)
            started = 1;
        if (started)
            continue;
        q[w++] = j;
        if (s->strict) {
            i++;                /* j is kept; the rest follow it */
            break;
        }
    }
    for (; i < n; i++) {
        struct gs_job *j = gs_lvec_job(&s->q, i);
        if (j->state == GS_JOB_PENDING)
            q[w++] = j;
    }
    gs_lvec_setn(&s->q, w);
    s->in_pass = 0;
    for (i = 0; i < gs_lvec_n(&s->late); i++)
        prio_arrive(s, sim, gs_lvec_job(&s->late, i));
    gs_lvec_setn(&s->late, 0);
}

/* A pending job killed while waiting leaves the queue. */
static void prio_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                         int why)
{
    (void)sim;
    struct prio *s = state;
    s->quiet = 0;
    if (s->fast && is_listed(j->pslot)) {
        vict_remove(s, j);
        return;
    }
    if (why != GS_STOP_KILLED)
        return;
    if (s->fast) {
        for (long i = 0; i < gs_lvec_n(&s->tried); i++)
            if (gs_lvec_job(&s->tried, i) == j) {   /* out of its group */
                gs_lvec_del(&s->tried, i);
                count_waiting(s, j, -1);
                return;
            }
        if (j->state == GS_JOB_PENDING && j->pslot >= 0 &&
            j->pslot < s->gs.n) {
            gs_jgroup_remove(&s->gs.g[j->pslot], j);
            gs_gorder_fix(&s->go, &s->gs, (int)j->pslot);
            count_waiting(s, j, -1);
        }
        return;
    }
    long n = gs_lvec_n(&s->q);
    for (long i = 0; i < n; i++)
        if (gs_lvec_job(&s->q, i) == j) {
            memmove(gs_lvec_upd(&s->q, i), gs_lvec_upd(&s->q, i + 1),
                    (size_t)(n - i - 1) * sizeof j);
            gs_lvec_setn(&s->q, n - 1);
            return;
        }
}

const struct gs_policy_ops gs_policy_priority = {
    .abi = GS_POLICY_ABI,
    .name = "priority",
    .summary = "highest tier priority first; preempt = true evicts lower "
               "priority preemptible jobs",
    .init = prio_init,
    .free = prio_free,
    .arrive = prio_arrive,
    .stopped = prio_stopped,
    .schedule = prio_schedule,
};
