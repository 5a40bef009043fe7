/* fairint.h -- the fair policy's state, shared by its files (fair.c).
 *
 * What fair keeps between passes: per tenant its GPUs, quota, margin and
 * groups (struct ten); per shape -- a group's key without its tenant --
 * its live groups in heaps (struct shape); and the policy's own state
 * (struct fair): the window of pending jobs in groups, the owner list,
 * the shapes in play, the victims by node with their level index
 * (fairlv.h) and the memos of failed searches.  policies/fair.c's essay
 * says what each index is for and which pass reads it; this header only
 * holds the layout, so that fair.c stays one file a reader can follow. */
#ifndef GS_FAIRINT_H
#define GS_FAIRINT_H

#include "fairlv.h"
#include "jobgroup.h"
#include "../sim/core/sim.h"

#include <stdint.h>

#define F_RUN 1L
#define F_BORROWED 2L
#define F_WIN 4L                /* pending, in the window; group << 8 */
#define F_VIC 8L                /* running, in rv; index << 8 */
#define F_ONE 16L               /* running on one node; node << 16 */
#define EPS 1e-9

/* Code a run enters rarely -- set-up, growth of an array, a new tenant or
 * shape, the reference passes -- kept out of the hot functions and away
 * from them (.text.unlikely), so that the per-event code fair runs at every
 * start, stop and pass packs into fewer instruction-cache lines (issue 27:
 * fair's time ran above its instruction ratio to fifo on the L1
 * instruction cache's misses). */
#define FAIR_COLD __attribute__((cold, noinline))

struct ten {
    double quota, weight;
    double gpus, mem;           /* held now */
    double fixg;                /* gpus at its last ten_fix: its groups
                                   with a job are in the owner list
                                   exactly when within() at fixg */
    struct gs_lvec ne;          /* its groups (int) with a job now (a
                                   group's nepos is its slot, -1 out) */
    int nlive;                  /* its groups in their shapes' heaps */
    int8_t *vn;                 /* per node and size: its victims' GPUs
                                   there (vsz's layout; NULL: none yet) */
    uint64_t *vb;               /* per node, a bit: it has a victim there
                                   (with vn; a whole-node search leaves
                                   such nodes out 64 at a time) */
    long nrv;                   /* its running jobs that could ever be
                                   victims (preemptible, whole GPUs on one
                                   node): in the nodes' victim lists */
    int lender;                 /* counted in nlender */
    int lpos;                   /* its slot in lend, -1 out */
    int margin;                 /* the largest whole-GPU victim it can
                                   lose and keep its guarantee (max_loss
                                   for another tenant's owner), now */
    double key;                 /* its dominant share while it has a live
                                   group (ten_fix) */
};

/* A shape: the groups alike but for their tenant (jobgroup.h's key without
 * the tenant), so that a placement that missed for one group's job misses
 * for every group's while no capacity comes back (the key holds what a
 * job asks of the host too, so a shape's jobs ask alike).  Its heap holds
 * its live groups -- a window job, not set aside -- one per tenant, least
 * dominant share first, ties to the lower tenant: the borrowers' next job
 * is the first job of the least of the shapes' tops. */
struct shape {
    struct gs_lvec h[2];        /* groups (int); a group's pos: its slot
                                   in h[gin]: h[1] the non-preemptible
                                   groups past their guarantee, h[0] the
                                   rest */
    struct gs_lvec o;           /* h[1]'s groups again, least gov first
                                   (opos: a group's slot) */
    struct gs_lvec oq;          /* its owner groups (in ol), by first job
                                   (okey(), least first; oqpos: a group's
                                   slot) */
    int osqpos;                 /* its slot in osq, -1 out */
    int sqpos;                  /* its slot in sq, -1 out */
    int inmiss;                 /* in smiss: it missed at the fleet watch's
                                   epoch sq_ep - 1, when misses repeat */
};

struct fair {
    struct gs_lvec ten;         /* per tenant (struct ten) */
    int nt;
    double fleet_gpus, fleet_mem;
    double unreserved;          /* fleet GPUs no tenant is guaranteed */
    double np_over;             /* non-preemptible GPUs held beyond quotas */
    int reclaim;
    int walk;                   /* the reference passes (tests): owners()
                                   walks every owner job, reclaim reads
                                   every candidate's victims */
    int rep;                    /* gs_sim_misses_repeat, fixed for the run
                                   (the core's miss memo reads it once) */
    long depth;
    /* The window (jobgroup.h): the first `depth` pending jobs, in groups
     * by tenant and shape. */
    struct gs_jgroups gs;
    struct gs_jwin win;
    struct gs_sim *sim;
    int in_pass;
    struct gs_lvec late;        /* jobs requeued during a pass, placed
                                   after it */
    uint64_t ver;               /* moves on every start, stop and pass */
    uint64_t *rfail;            /* per group: ver of its last failed
                                   reclaim search */
    int caprfail;
    struct gs_lvec dead;        /* scratch: groups (int) out for the pass */
    struct gs_lvec cand;        /* scratch: owners to try, jobs put aside */
    char *pe;                   /* scratch: pools eligible, per reclaim */
    int *maxg;                  /* scratch: per tenant, the largest victim
                                   it can lose and keep its guarantee, */
    double *mshort;             /* and its quota less its GPUs (what it
                                   must gain to lose a victim of g GPUs:
                                   mshort + g), */
    uint64_t *maxg_at;          /* worked out in the reclaim of this
                                   number (nrecl) */
    uint64_t nrecl;
    int capmaxg;
    /* The running jobs that could ever be victims, listed by node: node
     * n's in vjob's entries gpu0 .. gpu0 + nvic[n] (gpu0 its first GPU:
     * each holds a whole GPU there, so they fit), their keys beside them
     * in vkey (tenant << 8 | GPUs, so that the search reads no job), their
     * GPUs in node_rv[n]; a job's pslot holds its index in its node's
     * list.  The nodes with any are indexed by their fully free GPUs, with
     * witnesses that a node cannot be cleared (fairlv.h), so that reclaim
     * reads the nodes that need the fewest GPUs freed first.  Kept at each
     * start and stop on a node (a job on one node keeps its node in
     * pslot); anything else that gives capacity back moves the fleet's
     * epoch past lv_ep, and the index is built again before a search. */
    struct gs_fairlv lx;
    int lv_stale;
    uint64_t lv_ep;
    struct gs_lvec vjob, vkey;  /* per GPU: jobs, ints; see above */
    int *nvic, *node_rv;
    /* node_rv by the victims' size: node n's victims of at most g GPUs
     * hold vsz[n * vszw + g] (vszw: the largest node's GPUs + 1), each
     * tenant's own in its vn alike; and the tenants by margin, ntm[m] of
     * them at m.  No tenant's margin passes the largest m with ntm[m] > 0,
     * so a victim larger than that is no one's to lose, nor is the
     * owner's own: a node whose other victims hold too few GPUs is passed
     * over by reclaim's search unread, 64 nodes at a time against the
     * sums' bit planes (fairlv.h, lv_next), for part of a node or a whole
     * one (such a node gets no witness, but passing it over again costs a
     * word operation, not a visit). */
    int8_t *vsz;                /* bytes, as vn: a node's sums are at
                                   most its GPUs (GS_MAX_GPN), and the
                                   search reads them at scattered nodes --
                                   11 KB at 1,250 nodes, not 45 KB */
    int vszw;
    int ntm[GS_MAX_GPN + 1];
    int ntm_hi;                 /* of them, those at vszw - 1 or more */
    int nnodes;
    struct gs_job **vict;       /* scratch: victims on one node */
    long reclaims, reclaimed;   /* counters, for tests */
    /* Reclaim's failed searches, one per need (whole GPUs): the search
     * for need k with pools pe found no node at rgen and the fleet epoch
     * ep, and finds none again while they stay put and no start could have
     * opened a node (rmiss_start); see reclaim().  rgen moves on every
     * stop and on every start that raises a tenant's margin. */
    struct rmiss { uint64_t rgen, ep; int valid; } rm[GS_MAX_GPN + 1];
    char *rm_pe;                /* per need: its pe, npools bytes */
    uint64_t rgen;
    /* Tenants that could lose a victim to another tenant's owner: at least
     * one GPU above their guarantee (is_victim's test for the smallest
     * victim) with a job in rv.  None, and reclaim cannot find a victim:
     * a pass on a full fleet then has nothing to do for owners. */
    int nlender;
    /* The lenders again, in no order (ints; a tenant's lpos its slot),
     * and a search's copy of the few others than the owner's: when there
     * are at most LS_MAX, the GPUs a node can give back (node_clears'
     * sum: each lender's victims no larger than its margin) are read off
     * their per-node sums (vn, margin at most vszw - 1), nls of them, -1:
     * too many lenders, not used. */
    struct gs_lvec lend;
#define LS_MAX 4
    const int8_t *lsv[LS_MAX];
    int lsm[LS_MAX];
    int nls;
    /* owners_merge()'s scratch: groups in play by first job (om), groups
     * set aside until something changes (od), jobs taken out of their
     * groups for the pass (oh, put back at its end). */
    struct gs_lvec om, od;      /* groups (int) */
    struct gs_lvec oh;          /* jobs */
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
    /* Shapes (struct shape): shp maps a job to its shape's index; gsh
     * gives each group's shape. */
    struct gs_jgroups shp;
    struct gs_lvec sh;          /* struct shape */
    int *gsh;
    long capgsh;
    /* The shapes with a live group and no miss since capacity came back,
     * in no order; those that missed (shape's inmiss) wait in smiss. */
    struct gs_lvec sq, smiss;   /* shapes (int) */
    uint64_t sq_ep;
    /* The owner groups: those with a window job that keeps its tenant
     * within its guarantee (within()), in no order, so that owners() looks
     * at them and not at every group; olpos is each group's slot, -1 out. */
    struct gs_lvec ol;          /* groups (int) */
    int *olpos, *nepos;
    long capolpos;
    /* The owner groups again, by shape: each shape's oq holds its groups
     * of ol by first job (priority, then record: okey), kept as a group
     * joins or leaves ol and as its first job changes (ohead, the first
     * job's record or -1, kept at every add and remove); osq lists the
     * shapes with any.  The owners' pass when nothing can be reclaimed
     * (owners_quiet) merges the shapes by their first groups, so that a
     * shape that missed is left out whole and a pass reads the shapes
     * and the groups it tries, not every owner group. */
    int64_t *ohead;
    int64_t *olast;             /* per group: at least its last job's
                                   record (the greatest added since it was
                                   last empty), -1 empty: revive() lets a
                                   group whose jobs all come before the
                                   job that changed something go without
                                   taking them out one by one */
    int *oqpos;
    struct gs_lvec osq;         /* shapes (int) */
    struct gs_lvec oss;         /* owners_quiet's heap: struct oskey */
    /* Per group, for its shape's heaps: gin, which share heap holds it
     * (h[1]: non-preemptible, past its tenant's guarantee); opos, its slot
     * in the shape's o heap (-1 out); gov, the GPUs a job of it would hold
     * beyond the guarantee (over_of), as its tenant stands. */
    char *gin;
    int *opos;
    double *gov;
};

/* Tenant t's entry, read in a pass (counted: look.h). */
static inline const struct ten *ten_at(const struct fair *s, int t)
{
    return gs_lvec_at(&s->ten, t);
}

/* The GPUs a job holds (a fraction for a shared GPU). */
static inline double job_gpus(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

/* Tenant x's dominant share over its weight. */
static inline double dom_share(const struct fair *s, const struct ten *x)
{
    double g = s->fleet_gpus > 0 ? x->gpus / s->fleet_gpus : 0;
    double m = s->fleet_mem > 0 ? x->mem / s->fleet_mem : 0;
    return (g > m ? g : m) / x->weight;
}

/* Tenant x's margin: the largest whole-GPU victim it can lose and keep
 * its guarantee (is_victim's tenant test, the same comparison, for
 * g = 1, 2, ...). */
static inline int margin_lost_ok(const struct ten *x, int g)
{
    return x->gpus - (double)(g + 1) >= x->quota - EPS;
}

static inline int margin_of(const struct ten *x)
{
    /* The count of g = 0 .. GS_MAX_GPN - 1 passing the test, which holds
     * up to some g and not past it: guessed from the GPUs over the
     * guarantee and moved to where the test itself turns (a tenant far
     * over its guarantee made the test's walk 63 steps at every start
     * and stop). */
    double d = x->gpus - x->quota + EPS;
    int g = d >= GS_MAX_GPN ? GS_MAX_GPN : d >= 1 ? (int)d : 0;
    while (g > 0 && !margin_lost_ok(x, g - 1))
        g--;
    while (g < GS_MAX_GPN && margin_lost_ok(x, g))
        g++;
    return g;
}

/* A tenant's margin moved from m0 to m1 (-1: a new tenant). */
static inline void ntm_move(struct fair *s, int m0, int m1)
{
    if (m0 >= 0) {
        s->ntm[m0]--;
        s->ntm_hi -= m0 >= s->vszw - 1;
    }
    s->ntm[m1]++;
    s->ntm_hi += m1 >= s->vszw - 1;
}

/* Node n in the level index as it is now. */
static inline void lv_fix(struct fair *s, const struct gs_fleet *f, int n)
{
    gs_fairlv_fix(&s->lx, f, n, s->nvic[n], s->node_rv[n]);
}

/* fairinit.c: the state freed (the policy's free hook); new group g's
 * shape, made for job j (its shape made when new) and its owner slots. */
void gs_fair_free(void *state) FAIR_COLD;
void gs_fair_shape_of(struct fair *s, int g, const struct gs_job *j) FAIR_COLD;

/* fairrec.c: reclaim for owner j -- the node it cleared (preempting its
 * victims there; fair.c starts j on it) or -1; a tenant's entry made when
 * new; the level index built again when capacity came back untold. */
int gs_fair_reclaim(struct fair *s, struct gs_sim *sim, struct gs_job *j);
void gs_fair_ten_grow(struct fair *s, struct gs_sim *sim, int t) FAIR_COLD;
void gs_fair_lv_build(struct fair *s, struct gs_sim *sim) FAIR_COLD;

/* Before a search: the index is built again when capacity came back in a
 * way no stop told of (a node up, a loan, a job on several nodes). */
static inline void gs_fair_lv_sync(struct fair *s, struct gs_sim *sim)
{
    if (s->lv_stale || s->lv_ep != gs_sim_epoch(sim))
        gs_fair_lv_build(s, sim);
}

/* Tenant t's entry made if new (gs_fair_ten_grow: every tenant up to t). */
static inline void gs_fair_ten_ensure(struct fair *s, struct gs_sim *sim,
                                      int t)
{
    if (t >= s->nt)
        gs_fair_ten_grow(s, sim, t);
}

/* The GPUs node n's victims of at most top GPUs hold but those of a
 * tenant whose per-node sums are own (fleet-side sums, like node_rv: no
 * job read). */
static inline int gs_fair_vic_upto(const struct fair *s, int n, int top,
                                   const int8_t *own)
{
    size_t i = (size_t)n * (size_t)s->vszw + (size_t)top;
    return s->vsz[i] - (own ? own[i] : 0);
}

/* A victim of k GPUs on node n comes (d = k) or goes (d = -k), of tenant
 * x (its sums vn and bits vb). */
static inline void gs_fair_vic_add(struct fair *s, struct ten *x, int n,
                                   int k, int d)
{
    size_t i = (size_t)n * (size_t)s->vszw;
    int8_t *own = x->vn;
    for (int g = k; g < s->vszw; g++) {
        gs_fairlv_vsz(&s->lx, n, g, s->vsz[i + (size_t)g],
                      s->vsz[i + (size_t)g] + d);
        s->vsz[i + (size_t)g] = (int8_t)(s->vsz[i + (size_t)g] + d);
        own[i + (size_t)g] = (int8_t)(own[i + (size_t)g] + d);
    }
    /* its victims of any size there: the last sum */
    uint64_t b = 1ULL << (n & 63), *w = &x->vb[n >> 6];
    if ((own[i + (size_t)s->vszw - 1] > 0) != ((*w & b) != 0))
        *w ^= b;
}

#endif
