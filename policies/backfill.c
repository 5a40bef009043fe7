/* backfill.c -- FIFO with EASY backfilling (Lifka 1995; Mu'alem and
 * Feitelson, IEEE TPDS 2001).
 *
 * Jobs start in arrival order while they fit.  When the head does not fit it
 * gets a reservation: the shadow time is the earliest moment at which,
 * running jobs ending at their estimated ends, the head would fit.  A later
 * job may start now (backfill) if it fits and either ends by the shadow
 * time or keeps off what the reservation holds, so the head is never
 * delayed -- with exact estimates.
 *
 * The reservation is made node by node when the head wants whole GPUs on
 * plain pools (no MIG, no sharing), the usual case for training gangs: the
 * running jobs are released in order of estimated end onto a scratch copy
 * of the free GPUs until some node has room for the head (or, for a gang
 * larger than a node, until one pool has the whole nodes plus the
 * remainder node it needs).  Those nodes are the reservation; a job that
 * would outlive the shadow time may start on other nodes, or on a reserved
 * node in whole GPUs it will have free at that time beyond the head's
 * need (fractions are kept off reserved nodes).  Counting
 * GPUs in aggregate instead (the classic EASY abstraction, from machines
 * without node boundaries) lets a backfilled job take the GPUs the head
 * was counting on: tests/test_sim.c has the case.  For a head that wants
 * a fraction or a MIG instance the aggregate count is kept: GPUs over the
 * pools the head may use (fractions counted as fractions), and a later job
 * that would outlive the shadow time may use only the GPUs left over at
 * that time beyond the head's need.  So is it for a gang the core spreads
 * ($.topology.gang_placement "spread": its GPUs one by one over any
 * nodes), which fits once its pool has that many GPUs fully free, not
 * that many on a node.
 *
 * Estimates: a job's stated estimate (e.g. the user's requested time in SWF
 * traces), else its true runtime (perfect estimates).  When no reservation
 * can be made (the running jobs will never free enough for the head, e.g.
 * its nodes are down), only jobs that fit in the aggregate leftover start.
 *
 * Cost: running jobs sit in a heap keyed by estimated end, and the shadow
 * time visits only as many of them as it needs (gs_lheap_walk).  The heap
 * is staged (heap.h): while no head waits -- most of a run below full load
 * -- a start appends to an array and an end marks its slot, and only the
 * few long-lived jobs go through the heap proper.  The backfill
 * scan looks at most `depth` pending jobs (parameter, default 1000, like
 * Slurm's bf_max_job_test) and stops when the fleet is full.  A pass that
 * would do what the last one did -- start nothing -- is not run at all
 * (same_as_last): in an overloaded queue most arrivals change nothing.
 * What a pass reads -- running jobs, classes, window entries, tree nodes
 * -- it reads from the core's counted containers (look.h), so policy_work
 * counts all of it. */
#include "policy.h"
#include "needtab.h"
#include "jobgroup.h"
#include "../sim/core/sim.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_NONE, MODE_SINGLE, MODE_GANG };

/* A class's window entry (j NULL once the job left). */
struct bent {
    uint32_t rec;
    gs_time est;
    struct gs_job *j;
};

/* A node of a class's trees: the least and the most estimate of the live
 * entries under it (none live: GS_TIME_MAX and INT64_MIN). */
struct tnode {
    gs_time mn, mx;
};

struct bclass {
    struct gs_lvec e;           /* struct bent, by record index */
    long dead;
    long lo;                    /* the entries before it are gone */
    long cur;                   /* the scan's place */
    uint32_t crec;              /* ... and its entry's record */
    int stale;                  /* cur to be moved on before it is read */
    int active;                 /* in the scan's active list */
    uint64_t seen;              /* the last scan that set it up */
    /* Over the entries, a tree of struct tnode (node x's children 2x and
     * 2x + 1, leaves from tcap), so the scan finds the next entry of a
     * kind in O(log n). */
    struct gs_lvec t;
    long tcap;                  /* leaves, a power of two */
    int tdirty;                 /* rebuild before use */
    double g;                   /* GPUs a job asks */
    uint64_t use;               /* the pools its jobs may use (usable()),
                                   when use_ok: alike jobs may use the same
                                   pools (their need and tier; fleets of
                                   up to 64 pools) */
    int use_ok;
    char out[2];                /* the scan: a job that would outlive the
                                   shadow time [1], or not [0], found no
                                   room; so will the class's later ones */
};

struct bf {
    struct gs_lheap run;        /* running jobs by estimated end */
    long depth;
    /* Scratch for node-by-node reservations, sized to the fleet. */
    int npools, nnodes, ngpus;
    int *freed;                 /* per GPU: milli released so far */
    int *gain;                  /* per node: GPUs become fully free */
    int *tgpu, *tnode;          /* which entries of freed / gain are set */
    int ntgpu, ntnode;
    char *mode;                 /* per pool: MODE_* for the head */
    int *whole, *remok;         /* per pool (gangs): whole nodes, and nodes
                                   with room for the remainder, by then */
    int *resv, nresv;           /* the reservation: nodes, ascending */
    int *rextra;                /* per reserved node: GPUs it will have
                                   free at the shadow time beyond the
                                   head's need (a later job may hold them) */
    struct gs_range *ranges;    /* npools + nodes reserved + 1 */
    int *most[2];               /* per pool: most fully free GPUs on a node,
                                   anywhere / off the reservation; -1 =
                                   not known since the last start */
    /* The scan's window (jobgroup.h): the head and the depth jobs after
     * it, in classes of alike jobs (a jobgroup each), each a counted
     * vector (look.h) by record index with the job's estimate.  A
     * member's pslot is its class + 1.  cls holds the classes (struct
     * bclass *, by jobgroup index), byg the same by GPUs asked, least
     * first; act, during a scan, those that may still start a job. */
    struct gs_jwin win;
    struct gs_jgroups shapes;
    struct gs_lvec cls, byg, act;
    uint64_t scans;             /* scans so far */
    double idle0;               /* idle GPUs as this scan began */
    struct gs_sim *sim;
    int scanning;               /* no compaction while a scan runs */
    long started;               /* jobs this pass started */
    int quiet;                  /* the last pass started nothing, at epoch
                                   qepoch, and no job joined the window
                                   nor stopped since */
    uint64_t qepoch;
    /* The last node-by-node reservation of a single-node head, kept while
     * every change of the fleet since provably leaves the walk's answer
     * as it was (see keep_resv). */
    struct kept {
        int valid;
        const struct gs_job *head;
        uint32_t rec;
        int k;
        gs_time t;              /* the walk's answer: the shadow time, */
        uint64_t seq;           /* the entry at which the node got k, */
        int node, rextra;       /* the node and its spare GPUs then */
        char *mode;             /* per pool: b->mode at the walk */
        const struct gs_need *rel;  /* a release not yet matched by a stop */
    } kept;
    struct gs_fleet *watching;  /* bf_watch watches it, or NULL */
    struct gs_job *starting;    /* start() is committing it */
    int start_on;               /* ... and touched the kept node */
};

/* --- the kept reservation ---------------------------------------------------
 *
 * The walk to a single-node head's shadow time reads the fleet's free GPUs
 * and the running jobs in order of (estimated end, sequence): call that
 * order's entries E1 < E2 < ..., and a node's count at Ei the GPUs it has
 * fully free once E1..Ei have ended.  The answer is the first entry E* at
 * which a GPU of some node becomes fully free while that node's count is
 * at least k (that node, its time t), and the node's count once every
 * entry ending at t has ended (its spare GPUs).  When no node had k GPUs
 * free at the walk (the head missed for want of GPUs), every count before
 * E* is below k, and the answer is kept for the next scan with the same
 * head while every change since is one of these:
 *   - a start of job J (by this policy) whose entry comes before E*: every
 *     count before J's entry is lower (J holds its GPUs until then), every
 *     count from it on as it was, so J's own entry finds its node below k,
 *     no node reaches k sooner, and the same node reaches it at E*, with
 *     the same spare GPUs at t;
 *   - a start of J on another node than the kept one, whenever it ends:
 *     counts only fall there, the kept node's are untouched;
 *   - the end of J whose entry comes before E* and before every entry left
 *     (with estimates that hold, the job ending is the first entry): the
 *     entries left are those after J's, where every count is as it was
 *     (and below k before E*, so no node has k free when the next walk
 *     starts).
 * Anything else -- a start on the kept node ending at t or later (the
 * leftover GPUs of start_on_leftover), an end out of order, a commit or
 * release by anyone else, a node going up or down, cordoned or losing a
 * GPU -- drops it, and the next scan walks.  (A head that missed for want
 * of CPU or memory with its GPUs free somewhere is not kept: that node
 * takes it at its first entry, and a start adds entries.)  The fleet tells
 * of every change (gs_fleet_watch) with the need of the job that made it;
 * the policy's own starts and stops say which job that was. */
static void bf_watch(void *arg, const struct gs_fleet *f, int node,
                     const struct gs_need *need, int sign)
{
    (void)f;
    struct bf *b = arg;
    struct kept *kp = &b->kept;
    if (!kp->valid)
        return;
    if (sign > 0 && b->starting && need == &b->starting->need) {
        b->start_on |= node == kp->node;
        return;
    }
    if (sign < 0 && need && (kp->rel == NULL || kp->rel == need)) {
        kp->rel = need;         /* bf_stopped says whose */
        return;
    }
    kp->valid = 0;
}

/* j, which this policy started, committed its GPUs (start_on: on the kept
 * node); j->pnode holds its entry. */
static void kept_started(struct bf *b, const struct gs_job *j, int start_on)
{
    struct kept *kp = &b->kept;
    if (kp->valid && start_on &&
        !(j->pnode.time < kp->t ||
          (j->pnode.time == kp->t && j->pnode.seq < kp->seq)))
        kp->valid = 0;
}

/* j stopped; its release (if it held anything) came just before. */
static void kept_stopped(struct bf *b, struct gs_job *j)
{
    struct kept *kp = &b->kept;
    if (!kp->valid || kp->rel == NULL)
        return;
    gs_time t = j->pnode.time;
    uint64_t q = j->pnode.seq;
    if (kp->rel != &j->need || q == 0 ||
        !(t < kp->t || (t == kp->t && q < kp->seq))) {
        kp->valid = 0;
        return;
    }
    kp->rel = NULL;
    gs_lheap_remove(&b->run, &j->pnode);
    const struct gs_hnode *top = gs_lheap_top(&b->run);
    if (top && (top->time < t || (top->time == t && top->seq < q)))
        kp->valid = 0;          /* an entry left comes before j's */
}

/* Class k, or entry i of class c, as a hook names it (not counted: the
 * scan reads them through gs_lvec_at). */
static struct bclass *cls_of(const struct bf *b, long k)
{
    return *(struct bclass **)gs_lvec_upd(&b->cls, k);
}

static struct bent *ent(const struct bclass *c, long i)
{
    return gs_lvec_upd(&c->e, i);
}

static void bf_free(void *state)
{
    struct bf *b = state;
    gs_lheap_clear(&b->run);
    free(b->freed);
    free(b->gain);
    free(b->tgpu);
    free(b->tnode);
    free(b->mode);
    free(b->whole);
    free(b->remok);
    free(b->resv);
    free(b->rextra);
    free(b->ranges);
    for (long i = 0; i < gs_lvec_n(&b->cls); i++) {
        struct bclass *c = cls_of(b, i);
        gs_lvec_free(&c->e);
        gs_lvec_free(&c->t);
        free(c);
    }
    gs_lvec_free(&b->cls);
    gs_lvec_free(&b->byg);
    gs_lvec_free(&b->act);
    gs_jgroups_free(&b->shapes);
    free(b->most[0]);
    free(b->most[1]);
    free(b->kept.mode);
    if (b->watching)
        gs_fleet_unwatch(b->watching, bf_watch, b);
    free(b);
}

/* --- the window, in classes ----------------------------------------------- */

static double job_gpus(const struct gs_job *j);

/* The first entry of c at or after rec (a hook's upkeep: not counted, as
 * a heap's sift is not). */
static long class_find(const struct bclass *c, uint32_t rec)
{
    long lo = 0, hi = gs_lvec_n(&c->e);
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (ent(c, mid)->rec < rec)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* --- each class's entries by estimate --------------------------------------- */

static struct tnode *tn(const struct bclass *c, long x)
{
    return gs_lvec_upd(&c->t, x);
}

/* Leaf i from entry e (NULL: past the entries). */
static void tree_leaf(struct bclass *c, long i, const struct bent *e)
{
    int live = e != NULL && e->j != NULL;
    *tn(c, c->tcap + i) = (struct tnode){ live ? e->est : GS_TIME_MAX,
                                          live ? e->est : INT64_MIN };
}

static void tree_pull(struct bclass *c, long x)
{
    const struct tnode *l = tn(c, 2 * x), *r = tn(c, 2 * x + 1);
    *tn(c, x) = (struct tnode){ l->mn < r->mn ? l->mn : r->mn,
                                l->mx > r->mx ? l->mx : r->mx };
}

/* Rebuild the trees: every entry read (counted). */
static void tree_build(struct bclass *c)
{
    long n = gs_lvec_n(&c->e);
    if (c->tcap < n || gs_lvec_n(&c->t) == 0) {
        long cap = 16;
        while (cap < n)
            cap *= 2;
        gs_lvec_setn(&c->t, 2 * cap);
        c->tcap = cap;
    }
    for (long i = 0; i < c->tcap; i++)
        tree_leaf(c, i, i < n ? gs_lvec_at(&c->e, i) : NULL);
    for (long x = c->tcap - 1; x >= 1; x--)
        tree_pull(c, x);
    c->tdirty = 0;
}

/* Entry i changed (joined at the end, or left). */
static void tree_set(struct bclass *c, long i)
{
    if (c->tdirty || i >= c->tcap) {
        c->tdirty = 1;
        return;
    }
    tree_leaf(c, i, ent(c, i));
    for (long x = (c->tcap + i) / 2; x >= 1; x /= 2)
        tree_pull(c, x);
}

enum { WANT_SHORT, WANT_LONG, WANT_ANY };   /* est <= x, est > x, live */

/* Does node x hold an entry of the kind wanted?  (A read: counted.) */
static int tree_has(const struct bclass *c, long x, int want, gs_time lim)
{
    const struct tnode *t = gs_lvec_at(&c->t, x);
    return want == WANT_SHORT ? t->mn <= lim
         : want == WANT_LONG  ? t->mx > lim
                              : t->mx != INT64_MIN;
}

/* The first entry at or after lo that is live and of the kind wanted,
 * or -1: up from lo's leaf to the first subtree to its right holding
 * one, then down to that subtree's first (O(log of the distance)). */
static long tree_next(const struct bclass *c, long lo, int want, gs_time lim)
{
    if (lo >= c->tcap)
        return -1;
    long x = c->tcap + lo;
    if (tree_has(c, x, want, lim))
        return lo;
    do {
        while (x & 1)           /* a right child: its parent's next */
            if ((x >>= 1) == 0)
                return -1;
        x++;                    /* the sibling to the right */
    } while (!tree_has(c, x, want, lim));
    while (x < c->tcap)
        x = tree_has(c, 2 * x, want, lim) ? 2 * x : 2 * x + 1;
    return x - c->tcap;
}

/* The scan's next entry of class c from its place on: live, not the head,
 * and of a kind that may still find room (out[1]: those that would
 * outlive the shadow time t -- every one when t is GS_TIME_MAX -- found
 * none; out[0]: those that end by it). */
static long class_next(struct bclass *c, const struct gs_job *head,
                       gs_time now, gs_time t)
{
    long i = c->cur < c->lo ? c->lo : c->cur, n = gs_lvec_n(&c->e);
    int want;
    if (t == GS_TIME_MAX)
        want = c->out[1] ? -1 : WANT_ANY;
    else if (c->out[0] && c->out[1])
        want = -1;
    else
        want = c->out[0] ? WANT_LONG : c->out[1] ? WANT_SHORT : WANT_ANY;
    if (want < 0)
        return n;
    while (i < n) {
        const struct bent *e = gs_lvec_at(&c->e, i);
        if (e->j && e->j != head &&
            !c->out[t == GS_TIME_MAX || now + e->est > t])
            return i;           /* the usual case: the next one will do */
        if (c->tdirty)          /* the window took a job during the scan */
            tree_build(c);
        long r = tree_next(c, i + 1, want, t - now);
        if (r < 0 || r >= n)
            return n;
        i = r;                  /* live and of the kind; the head? */
    }
    return n;
}

/* Drop the entries of jobs gone: every entry read (counted). */
static void class_compact(struct bclass *c)
{
    long w = 0, n = gs_lvec_n(&c->e);
    for (long i = 0; i < n; i++) {
        const struct bent *e = gs_lvec_at(&c->e, i);
        if (e->j)
            *ent(c, w++) = *e;
    }
    gs_lvec_setn(&c->e, w);
    c->dead = c->lo = 0;
    c->tdirty = 1;
}

/* Class c's place moved to cur: note its record; during a scan, a class
 * whose place holds an entry is on the active list. */
static void class_placed(struct bf *b, struct bclass *c)
{
    if (c->cur >= gs_lvec_n(&c->e))
        return;
    c->crec = ent(c, c->cur)->rec;
    if (!c->active) {
        *(struct bclass **)gs_lvec_push(&b->act) = c;
        c->active = 1;
    }
}

/* A new class: in cls, and in byg by the GPUs its jobs ask (least first;
 * kept in order as classes come, which is rare: one a shape). */
static struct bclass *class_new(struct bf *b, const struct gs_job *j)
{
    struct bclass *c = calloc(1, sizeof *c);
    GS_OOM_IF(c == NULL);
    c->g = job_gpus(j);
    gs_lvec_init(&c->e, b->sim, sizeof(struct bent));
    gs_lvec_init(&c->t, b->sim, sizeof(struct tnode));
    *(struct bclass **)gs_lvec_push(&b->cls) = c;
    long at = gs_lvec_n(&b->byg);
    gs_lvec_push(&b->byg);
    struct bclass **v = gs_lvec_upd(&b->byg, 0);
    while (at > 0 && v[at - 1]->g > c->g) {
        v[at] = v[at - 1];
        at--;
    }
    v[at] = c;
    return c;
}

static void win_add(void *ctx, struct gs_job *j)
{
    struct bf *b = ctx;
    int k = gs_jgroups_of(&b->shapes, j);
    while (k >= gs_lvec_n(&b->cls)) {
        struct bclass *nc = class_new(b, j);
        if (b->scanning && nc->g <= b->idle0 + 1e-9)
            nc->seen = b->scans;        /* as if set up when the scan began */
    }
    struct bclass *c = cls_of(b, k);
    b->quiet = 0;
    long n = gs_lvec_n(&c->e);
    if (n == c->e.cap && c->dead > n / 2 && !b->scanning) {
        class_compact(c);
        n = gs_lvec_n(&c->e);
    }
    long at = n > 0 && ent(c, n - 1)->rec > j->rec ? class_find(c, j->rec)
                                                   : n;
    gs_lvec_setn(&c->e, n + 1);
    memmove(ent(c, at + 1), ent(c, at), (size_t)(n - at) * sizeof(struct bent));
    *ent(c, at) = (struct bent){ j->rec, gs_sim_estimate(b->sim, j), j };
    if (at < c->lo)
        c->lo = at;
    if (at == n)
        tree_set(c, at);
    else
        c->tdirty = 1;
    j->pslot = k + 1;
    if (b->scanning && c->seen == b->scans && !c->stale)
        class_placed(b, c);     /* its place may hold another entry now */
}

static void win_drop(void *ctx, struct gs_job *j)
{
    struct bf *b = ctx;
    struct bclass *c = cls_of(b, j->pslot - 1);
    long at = class_find(c, j->rec), n = gs_lvec_n(&c->e);
    while (at < n && ent(c, at)->j != j)   /* past its own gone entries */
        at++;
    GS_ASSERT(at < n && ent(c, at)->rec == j->rec);
    ent(c, at)->j = NULL;
    c->dead++;
    tree_set(c, at);
    if (at == c->lo)            /* the first live one left: find the next */
        while (++c->lo < n && ((const struct bent *)gs_lvec_at(&c->e,
                                                              c->lo))->j == NULL)
            ;
    j->pslot = 0;
    if (!b->scanning && c->dead > 64 && c->dead > n / 2)
        class_compact(c);
}

static int bf_init(struct gs_sim *sim, struct gs_params *p, void **state,
                   struct gs_diag *d)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    struct bf *b = calloc(1, sizeof *b);
    if (b == NULL)
        return GS_ENOMEM;
    gs_lheap_init(&b->run, sim);
    gs_lvec_init(&b->cls, sim, sizeof(struct bclass *));
    gs_lvec_init(&b->byg, sim, sizeof(struct bclass *));
    gs_lvec_init(&b->act, sim, sizeof(struct bclass *));
    if (gs_lheap_stage(&b->run) < 0) {
        free(b);
        return GS_ENOMEM;
    }
    b->depth = 1000;
    int keep = 1;
    int rc = gs_params_int(p, "depth", 1, 100000000, &b->depth, d);
    if (rc == 0)
        rc = gs_params_bool(p, "keep", &keep, d);
    if (rc < 0) {
        bf_free(b);
        return rc;
    }
    b->win = (struct gs_jwin){ .depth = b->depth + 1, .add = win_add,
                               .drop = win_drop, .ctx = b, .sim = sim };
    gs_jgroups_init(&b->shapes, sim, 0);
    b->sim = sim;
    b->npools = f->npools;
    b->nnodes = f->nnodes;
    b->ngpus = f->ngpus;
    size_t np = (size_t)f->npools, nn = (size_t)f->nnodes;
    b->freed = calloc((size_t)f->ngpus, sizeof *b->freed);
    b->gain = calloc(nn, sizeof *b->gain);
    b->tgpu = malloc((size_t)f->ngpus * sizeof *b->tgpu);
    b->tnode = malloc(nn * sizeof *b->tnode);
    b->mode = calloc(np, 1);
    b->whole = calloc(np, sizeof *b->whole);
    b->remok = calloc(np, sizeof *b->remok);
    b->resv = malloc(nn * sizeof *b->resv);
    b->rextra = malloc(nn * sizeof *b->rextra);
    b->ranges = malloc((np + nn + 1) * sizeof *b->ranges);
    b->most[0] = malloc(np * sizeof *b->most[0]);
    b->most[1] = malloc(np * sizeof *b->most[1]);
    b->kept.mode = calloc(np + 1, 1);
    if (!b->freed || !b->gain || !b->tgpu || !b->tnode || !b->mode ||
        !b->whole || !b->remok || !b->resv || !b->rextra || !b->ranges ||
        !b->most[0] || !b->most[1] || !b->kept.mode) {
        bf_free(b);
        return GS_ENOMEM;
    }
    /* Without sharing (no loans the watchers miss) the walk's answer may
     * be kept; with every watcher taken, it is worked out every time. */
    struct gs_fleet *wf = (struct gs_fleet *)f;
    if (keep && gs_sim_misses_repeat(sim) &&
        gs_fleet_watch(wf, bf_watch, b) == 0)
        b->watching = wf;
    *state = b;
    return 0;
}

static void bf_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                       int why)
{
    (void)sim;
    struct bf *b = state;
    kept_stopped(b, j);
    gs_lheap_remove(&b->run, &j->pnode);
    b->quiet = 0;
    if (why == GS_STOP_KILLED && j->state == GS_JOB_PENDING) {
        if (j->pslot > 0)
            gs_jwin_leave(&b->win, j);
        else
            gs_jwin_killed_outside(&b->win, j);
    }
}

static void bf_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    (void)sim;
    struct bf *b = state;
    j->pslot = 0;
    gs_jwin_arrive(&b->win, j);
}

static struct gs_job *job_of(struct gs_hnode *n)
{
    return (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode));
}

static double job_gpus(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

/* May j run on pool p: its models and memory, and the spot rule. */
static int usable(struct gs_sim *sim, int p, const struct gs_job *j)
{
    return gs_fleet_pool_eligible(gs_sim_fleet(sim), p, &j->need) &&
           gs_sim_pool_ok(sim, p, j);
}

/* --- the aggregate reservation ------------------------------------------ */

/* Free GPUs now in the pools j may use. */
static double free_for(struct gs_sim *sim, const struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double fr = 0;
    for (int p = 0; p < f->npools; p++)
        if (usable(sim, p, j))
            fr += (double)f->pools[p].gpus_up -
                  (double)f->pools[p].used_milli / 1000.0;
    return fr;
}

struct shadow {
    struct gs_sim *sim;
    const struct gs_job *head;
    double avail, need;
    gs_time t;
};

static int shadow_visit(struct gs_hnode *n, void *arg)
{
    struct shadow *sh = arg;
    struct gs_job *j = job_of(n);
    if (j->alloc.pool >= 0 && usable(sh->sim, j->alloc.pool, sh->head)) {
        sh->avail += job_gpus(j);
        if (sh->avail >= sh->need - 1e-9) {
            sh->t = n->time;
            return 1;
        }
    }
    return 0;
}

/* --- the node-by-node reservation --------------------------------------- */

struct nwalk {
    struct bf *b;
    const struct gs_fleet *f;
    int k;                      /* whole GPUs the head wants */
    int pool, node;             /* where it fits: node (-1 for a gang) */
    gs_time t;
    uint64_t seq;               /* the entry that made it fit */
};

/* Does the core place j's GPUs one by one over any nodes?  Under
 * $.topology.gang_placement "spread" it does for a gang of whole GPUs
 * (sim.c spread_place): j then fits once a pool has that many GPUs fully
 * free, on whatever nodes. */
static int spreads(struct gs_sim *sim, const struct gs_job *j)
{
    return j->need.gpus > 1 && j->need.profile == NULL &&
           gs_sim_scenario(sim)->topo.gang == GS_GANG_SPREAD;
}

/* Does the head fit on plain pools only, in whole GPUs, and on nodes it
 * can be given (not spread)?  Sets b->mode for every pool (MODE_NONE where
 * the head may not go) and *k.  A spread head gets the aggregate
 * reservation: what it needs is k GPUs, not k on a node. */
static int whole_head(struct bf *b, struct gs_sim *sim,
                      const struct gs_job *head, int *k)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int any = 0;
    for (int p = 0; p < f->npools; p++) {
        b->mode[p] = MODE_NONE;
        if (!usable(sim, p, head))
            continue;
        const struct gs_pool *pl = &f->pools[p];
        struct gs_demand dm;
        if (pl->mig || pl->s.share.mode != GS_SHARE_NONE ||
            gs_fleet_demand(f, p, &head->need, &dm) < 0 ||
            dm.kind != GS_DEM_WHOLE)
            return 0;
        *k = dm.gpus;
        b->mode[p] = dm.gpus <= pl->s.gpn ? MODE_SINGLE : MODE_GANG;
        any = 1;
    }
    return any && !spreads(sim, head);
}

/* A gang of k on pool p fits once it has q whole nodes and, if k is not a
 * multiple of the node size, one more node with room for the remainder. */
static int gang_fits(const struct bf *b, const struct gs_pool *pl, int p,
                     int k)
{
    int q = k / pl->s.gpn, rem = k % pl->s.gpn;
    return b->whole[p] >= q + (rem > 0) ||
           (b->whole[p] >= q && (rem == 0 || b->remok[p] > 0));
}

/* Count pool p's whole and remainder-ready nodes as they are now. */
static void gang_count(struct bf *b, const struct gs_fleet *f, int p, int k)
{
    const struct gs_pool *pl = &f->pools[p];
    int rem = k % pl->s.gpn;
    b->whole[p] = b->remok[p] = 0;
    for (int i = 0; i < pl->s.nodes; i++) {
        const struct gs_node *nd = &f->nodes[pl->node0 + i];
        if (!nd->up || nd->cordon)
            continue;
        if (nd->nfull == pl->s.gpn)
            b->whole[p]++;
        else if (rem > 0 && nd->nfull >= rem)
            b->remok[p]++;
    }
}

/* A GPU of node became fully free in the walk: count it; does the head
 * fit now (for the first time)? */
static int gpu_freed(struct nwalk *w, int node)
{
    struct bf *b = w->b;
    const struct gs_node *nd = &w->f->nodes[node];
    const struct gs_pool *pl = &w->f->pools[nd->pool];
    if (b->gain[node]++ == 0)
        b->tnode[b->ntnode++] = node;
    int full = nd->nfull + b->gain[node];
    if (b->mode[nd->pool] == MODE_SINGLE) {
        if (full < w->k || w->t != GS_TIME_MAX)
            return 0;
        w->pool = nd->pool;
        w->node = node;
        return 1;
    }
    int rem = w->k % pl->s.gpn, was = full - 1;
    if (full == pl->s.gpn) {
        b->whole[nd->pool]++;
        if (rem > 0 && was >= rem)
            b->remok[nd->pool]--;
    } else if (rem > 0 && full == rem) {
        b->remok[nd->pool]++;
    }
    if (w->t != GS_TIME_MAX || !gang_fits(b, pl, nd->pool, w->k))
        return 0;
    w->pool = nd->pool;
    w->node = -1;
    return 1;
}

static int node_visit(struct gs_hnode *n, void *arg)
{
    struct nwalk *w = arg;
    struct bf *b = w->b;
    const struct gs_fleet *f = w->f;
    struct gs_job *j = job_of(n);
    if (w->t != GS_TIME_MAX && n->time > w->t)
        return 1;                   /* found, and all that end then counted */
    if (j->alloc.pool < 0 || b->mode[j->alloc.pool] == MODE_NONE)
        return 0;
    const struct gs_part *pt = gs_alloc_parts(&j->alloc);
    for (int i = 0; i < j->alloc.n; i++) {
        const struct gs_node *nd = &f->nodes[pt[i].node];
        if (!nd->up || nd->cordon)
            continue;
        for (uint64_t m = pt[i].mask & ~nd->deadmask; m; m &= m - 1) {
            int g = nd->gpu0 + __builtin_ctzll(m);
            if (b->freed[g] == 0)
                b->tgpu[b->ntgpu++] = g;
            b->freed[g] += pt[i].milli;
            if (f->free_milli[g] + b->freed[g] == 1000 &&
                gpu_freed(w, pt[i].node) && w->t == GS_TIME_MAX) {
                w->t = n->time;
                w->seq = n->seq;
            }
        }
    }
    return 0;
}

/* The nodes the head will take at the shadow time: its node, or for a gang
 * the first whole nodes of its pool and the first remainder node. */
static void pick_nodes(struct bf *b, const struct gs_fleet *f,
                       const struct nwalk *w)
{
    b->nresv = 0;
    if (w->node >= 0) {
        b->rextra[0] = f->nodes[w->node].nfull + b->gain[w->node] - w->k;
        b->resv[b->nresv++] = w->node;
        return;
    }
    const struct gs_pool *pl = &f->pools[w->pool];
    int q = w->k / pl->s.gpn, rem = w->k % pl->s.gpn, rnode = -1;
    for (int i = 0; i < pl->s.nodes && q > 0; i++) {
        int node = pl->node0 + i;
        const struct gs_node *nd = &f->nodes[node];
        if (!nd->up || nd->cordon)
            continue;
        int full = nd->nfull + b->gain[node];
        if (full == pl->s.gpn) {
            b->rextra[b->nresv] = 0;
            b->resv[b->nresv++] = node;
            q--;
        }
    }
    if (rem > 0) {
        for (int i = 0; rnode < 0 && i < pl->s.nodes; i++) {
            int node = pl->node0 + i, taken = 0;
            const struct gs_node *nd = &f->nodes[node];
            for (int r = 0; r < b->nresv; r++)
                taken |= b->resv[r] == node;
            if (!taken && nd->up && !nd->cordon &&
                nd->nfull + b->gain[node] >= rem)
                rnode = node;
        }
        /* Keep the list ascending. */
        int at = b->nresv;
        while (at > 0 && b->resv[at - 1] > rnode) {
            b->resv[at] = b->resv[at - 1];
            b->rextra[at] = b->rextra[at - 1];
            at--;
        }
        b->resv[at] = rnode;
        b->rextra[at] = f->nodes[rnode].nfull + b->gain[rnode] - rem;
        b->nresv++;
    }
}

/* May the kept reservation serve head (k GPUs on one node)? */
static int kept_serves(const struct bf *b, const struct gs_job *head, int k)
{
    const struct kept *kp = &b->kept;
    return kp->valid && kp->rel == NULL && kp->head == head &&
           kp->rec == head->rec && kp->k == k &&
           memcmp(kp->mode, b->mode, (size_t)b->npools) == 0;
}

/* Walk the running jobs to the head's shadow time and pick its nodes;
 * GS_TIME_MAX if the head would never fit.  A single-node head's answer
 * is kept while it provably holds (the kept reservation, above). */
static gs_time reserve_nodes(struct bf *b, const struct gs_fleet *f,
                             const struct gs_job *head, int k, gs_time now)
{
    struct kept *kp = &b->kept;
    int single = b->watching != NULL;
    for (int p = 0; p < f->npools; p++)
        single &= b->mode[p] != MODE_GANG;
    if (single && kept_serves(b, head, k)) {
        b->nresv = 1;
        b->resv[0] = kp->node;
        b->rextra[0] = kp->rextra;
#ifndef GS_BF_CHECK_KEPT
        return kp->t;
#endif
    }
#ifdef GS_BF_CHECK_KEPT
    int was = single && kept_serves(b, head, k);
    struct kept old = *kp;
#endif
    kp->valid = 0;
    struct nwalk w = { b, f, k, -1, -1, GS_TIME_MAX, 0 };
    b->ntgpu = b->ntnode = 0;
    for (int p = 0; p < f->npools; p++)
        if (b->mode[p] == MODE_GANG) {
            gang_count(b, f, p, k);
            if (gang_fits(b, &f->pools[p], p, k) && w.pool < 0) {
                w.pool = p;         /* fits already (other rules kept it
                                       out): hold those nodes from now */
                w.t = now;
            }
        }
    if (w.pool < 0)
        GS_OOM_IF(gs_lheap_walk(&b->run, node_visit, &w) < 0);
    b->nresv = 0;
    if (w.pool >= 0)
        pick_nodes(b, f, &w);
    for (int i = 0; i < b->ntgpu; i++)
        b->freed[b->tgpu[i]] = 0;
    for (int i = 0; i < b->ntnode; i++)
        b->gain[b->tnode[i]] = 0;
#ifdef GS_BF_CHECK_KEPT
    if (was)
        GS_ASSERT(w.t == old.t && w.node == old.node && b->nresv == 1 &&
                  b->rextra[0] == old.rextra);
#endif
    for (int p = 0; single && p < f->npools; p++)
        single = b->mode[p] == MODE_NONE ||
                 gs_fleet_most_free(f, &(struct gs_range){ p, 0,
                                        f->pools[p].s.nodes }) < k;
    if (single && w.pool >= 0 && w.node >= 0) {
        char *mode = kp->mode;
        *kp = (struct kept){ .valid = 1, .head = head, .rec = head->rec,
                             .k = k, .t = w.t, .seq = w.seq, .node = w.node,
                             .rextra = b->rextra[0], .mode = mode };
        memcpy(kp->mode, b->mode, (size_t)b->npools);
    }
    return w.t;
}

static int class_usable(struct bf *b, struct gs_sim *sim, struct bclass *c,
                        int p, const struct gs_job *j);

/* The pools j, of class c, may use, minus the reserved nodes: ranges in
 * b->ranges. */
static int ranges_around(struct bf *b, struct gs_sim *sim, struct bclass *c,
                         const struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int n = 0, r = 0;
    for (int p = 0; p < f->npools; p++) {
        const struct gs_pool *pl = &f->pools[p];
        int lo = 0;
        if (class_usable(b, sim, c, p, j)) {
            for (; r < b->nresv && f->nodes[b->resv[r]].pool == p; r++) {
                int at = b->resv[r] - pl->node0;
                if (at > lo)
                    b->ranges[n++] = (struct gs_range){ p, lo, at };
                lo = at + 1;
            }
            if (lo < pl->s.nodes)
                b->ranges[n++] = (struct gs_range){ p, lo, pl->s.nodes };
        }
        while (r < b->nresv && f->nodes[b->resv[r]].pool == p)
            r++;
    }
    return n;
}

static void forget_most(struct bf *b)
{
    for (int p = 0; p < b->npools; p++)
        b->most[0][p] = b->most[1][p] = -1;
}

/* The most fully free GPUs on an open node of pool p, anywhere or off
 * the reservation (cached until the next start): the fleet keeps the
 * pool's open nodes by fully free GPUs (ncount, and the root's mask of
 * the counts held), so the reserved nodes are taken out of those. */
static int most_free(struct bf *b, const struct gs_fleet *f, int p, int off)
{
    if (b->most[off][p] >= 0)
        return b->most[off][p];
    const struct gs_pool *pl = &f->pools[p];
    uint64_t fm = pl->fmask[1];
    int32_t held[GS_MAX_GPN + 1];
    for (int r = 0; off && r < b->nresv; r++) {
        const struct gs_node *nd = &f->nodes[b->resv[r]];
        if (nd->pool == p && nd->fval >= 0)
            held[nd->fval] = 0;
    }
    for (int r = 0; off && r < b->nresv; r++) {
        const struct gs_node *nd = &f->nodes[b->resv[r]];
        if (nd->pool == p && nd->fval >= 0 &&
            ++held[nd->fval] >= pl->ncount[nd->fval])
            fm &= ~(1ULL << nd->fval);
    }
    return b->most[off][p] = fm ? 63 - __builtin_clzll(fm) : 0;
}

/* The fully free GPUs on open nodes of pool p, anywhere or off the
 * reservation (from the pool's count of open nodes by fully free GPUs). */
static int whole_free(const struct bf *b, const struct gs_fleet *f, int p,
                      int off)
{
    const struct gs_pool *pl = &f->pools[p];
    int n = 0;
    for (int v = 1; v <= pl->s.gpn && v <= GS_MAX_GPN; v++)
        n += v * pl->ncount[v];
    for (int r = 0; off && r < b->nresv; r++) {
        const struct gs_node *nd = &f->nodes[b->resv[r]];
        if (nd->pool == p && nd->fval > 0)
            n -= nd->fval;
    }
    return n;
}

/* May j, of class c, use pool p?  usable() asked once a class and pool
 * (the model's veto and the pool's eligibility look at the need and the
 * tier only, and do not change with time: model.h), not for every job a
 * scan looks at. */
static int class_usable(struct bf *b, struct gs_sim *sim, struct bclass *c,
                        int p, const struct gs_job *j)
{
    if (b->npools > 64)
        return usable(sim, p, j);
    if (!c->use_ok) {
        c->use = 0;
        for (int q = 0; q < b->npools; q++)
            if (usable(sim, q, j))
                c->use |= 1ULL << q;
        c->use_ok = 1;
    }
    return (int)(c->use >> p & 1);
}

/* Could j, of class c, start now (off the reservation if off)?  Only a
 * necessary condition, and only for whole GPUs on plain pools: one node
 * there must have that many fully free, whatever the placer -- or, for a
 * gang the core spreads, the pool must have that many fully free on its
 * nodes together -- but it spares a placement search for most jobs of an
 * overloaded queue. */
static int may_fit(struct bf *b, struct gs_sim *sim, struct bclass *c,
                   const struct gs_job *j, int off)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (j->need.gpus <= 0)
        return 1;
    int spread = spreads(sim, j);
    for (int p = 0; p < f->npools; p++) {
        const struct gs_pool *pl = &f->pools[p];
        if (!class_usable(b, sim, c, p, j))
            continue;
        if (pl->mig || pl->s.share.mode != GS_SHARE_NONE)
            return 1;
        if (spread ? j->need.gpus <= whole_free(b, f, p, off)
                   : j->need.gpus > pl->s.gpn ||
                     j->need.gpus <= most_free(b, f, p, off))
            return 1;
    }
    return 0;
}

static int start(struct bf *b, struct gs_sim *sim, struct gs_job *j,
                 const struct gs_range *ranges, int nranges);

/* A job that would outlive the shadow time and found no room off the
 * reservation may still take whole GPUs a reserved node will not need. */
static void start_on_leftover(struct bf *b, struct gs_sim *sim,
                              struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int k = j->need.gpus;
    if (k <= 0)
        return;                 /* fractions: not counted, kept off */
    for (int r = 0; r < b->nresv; r++) {
        const struct gs_node *nd = &f->nodes[b->resv[r]];
        const struct gs_pool *pl = &f->pools[nd->pool];
        if (b->rextra[r] < k || nd->nfull < k || k > pl->s.gpn ||
            pl->mig || pl->s.share.mode != GS_SHARE_NONE ||
            !usable(sim, nd->pool, j))
            continue;
        int at = b->resv[r] - pl->node0;
        if (start(b, sim, j, &(struct gs_range){ nd->pool, at, at + 1 },
                  1) == 0) {
            b->rextra[r] -= k;
            return;
        }
    }
}

/* --- the policy ------------------------------------------------------------ */

static int start(struct bf *b, struct gs_sim *sim, struct gs_job *j,
                 const struct gs_range *ranges, int nranges)
{
    b->starting = j;
    b->start_on = 0;
    int rc = gs_sim_try_start(sim, j, ranges, nranges);
    b->starting = NULL;
    if (rc < 0)
        return -1;
    b->started++;
    if (j->pslot > 0)
        gs_jwin_leave(&b->win, j);
    if (j->alloc.n > 0)
        GS_OOM_IF(gs_lheap_push(&b->run, &j->pnode, j->est_end) < 0);
    kept_started(b, j, b->start_on);
    forget_most(b);
    return 0;
}

/* Would this pass do exactly what the last one did -- nothing?  Yes when
 * the last started nothing, no capacity came back since (the fleet's
 * epoch), no job joined the window or stopped, and misses repeat: every
 * job it tried would miss again.  Time alone changes one thing, which of
 * the window's jobs end by the shadow time; that set only shrinks as
 * time goes on (the shadow time is fixed while no running job has passed
 * its estimated end -- the heap's top is later than now -- and a job that
 * would end by it may start anywhere, one that would not only off the
 * reservation or on its spare GPUs), so no job gains a place to start. */
static int same_as_last(struct bf *b, struct gs_sim *sim, uint64_t epoch)
{
    if (!b->quiet || epoch != b->qepoch)
        return 0;
    gs_jwin_settle(&b->win, sim);       /* a job may join the window */
    return b->quiet && (gs_lheap_size(&b->run) == 0 ||
                        gs_lheap_top_time(&b->run) > gs_sim_now(sim));
}

static void scan(struct bf *b, struct gs_sim *sim, struct gs_job *head);

static void bf_schedule(void *state, struct gs_sim *sim)
{
    struct bf *b = state;
    uint64_t epoch = gs_sim_epoch(sim);
    if (same_as_last(b, sim, epoch))
        return;
    b->started = 0;
    struct gs_job *head;
    while ((head = gs_sim_pending_head(sim)) != NULL)
        if (gs_job_sure_miss(sim, head, NULL, 0) ||
            start(b, sim, head, NULL, 0) < 0)
            break;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (head != NULL && f->used_milli < f->gpus_up * 1000)
        scan(b, sim, head);
    b->quiet = b->started == 0 && gs_sim_misses_repeat(sim);
    b->qepoch = epoch;
}

/* The head does not fit: reserve for it and backfill behind it. */
static void scan(struct bf *b, struct gs_sim *sim, struct gs_job *head)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    gs_time now = gs_sim_now(sim);

    /* Reservation for the head: nodes, or an aggregate leftover. */
    int k = 0, by_node = whole_head(b, sim, head, &k);
    struct shadow sh = { sim, head, free_for(sim, head), job_gpus(head),
                         GS_TIME_MAX };
    if (by_node) {
        sh.t = reserve_nodes(b, f, head, k, now);
        if (sh.t != GS_TIME_MAX && sh.t < now)
            sh.t = now;
    } else if (sh.avail < sh.need - 1e-9) {
        GS_OOM_IF(gs_lheap_walk(&b->run, shadow_visit, &sh) < 0);
    } else {
        sh.t = now;                 /* enough GPUs, but not on one node */
    }
    double extra = sh.avail - sh.need;
    forget_most(b);

    /* The scan: the depth jobs after the head, in order, passing over
     * those that want more GPUs than are idle.  Idle GPUs only go down
     * during the scan, so a class of jobs that wants too many is out for
     * the rest of it: the window's classes are merged by record index,
     * and a job is looked at only if its class still could fit.  Only the
     * classes that ask no more than the idle GPUs are set up (byg: least
     * first) and merged (act: each step takes the least record among
     * them and drops those that can start nothing more). */
    gs_jwin_settle(&b->win, sim);
    int repeat = gs_sim_misses_repeat(sim);
    double idle = (double)f->gpus_up - (double)f->used_milli / 1000.0;
    b->scans++;
    b->idle0 = idle;
    gs_lvec_setn(&b->act, 0);
    for (long ci = 0; idle > 0 && ci < gs_lvec_n(&b->byg); ci++) {
        struct bclass *c = *(struct bclass **)gs_lvec_at(&b->byg, ci);
        if (c->g > idle + 1e-9)
            break;
        if (c->dead > 64 && c->dead > gs_lvec_n(&c->e) / 2)
            class_compact(c);
        if (c->tdirty || gs_lvec_n(&c->t) == 0)
            tree_build(c);
        c->seen = b->scans;
        c->cur = 0;
        c->out[0] = c->out[1] = 0;
        c->stale = c->active = 0;
        c->cur = class_next(c, head, now, sh.t);
        class_placed(b, c);
    }
    b->scanning = 1;
    for (;;) {
        idle = (double)f->gpus_up - (double)f->used_milli / 1000.0;
        if (idle <= 0)
            break;
        struct bclass *jc = NULL;
        for (long i = 0; i < gs_lvec_n(&b->act);) {
            struct bclass *c = *(struct bclass **)gs_lvec_at(&b->act, i);
            if (c->g > idle + 1e-9 || (c->out[0] && c->out[1]) ||
                c->cur >= gs_lvec_n(&c->e)) {
                c->cur = gs_lvec_n(&c->e);  /* nothing more of it starts */
                c->active = 0;
                gs_lvec_del(&b->act, i);
                continue;
            }
            if (jc == NULL || c->crec < jc->crec)
                jc = c;
            i++;
        }
        if (jc == NULL)
            break;
        const struct bent *je = gs_lvec_at(&jc->e, jc->cur);
        struct gs_job *j = je->j;
        gs_time est = je->est;
        jc->cur++;
        jc->stale = 1;          /* its place moves on after the try */
        double g = jc->g;
        int by_shadow = sh.t != GS_TIME_MAX && now + est <= sh.t;
        if (by_shadow) {
            if (may_fit(b, sim, jc, j, 0))
                start(b, sim, j, NULL, 0);
        } else if (by_node && sh.t != GS_TIME_MAX) {
            int n = may_fit(b, sim, jc, j, 1) ? ranges_around(b, sim, jc, j)
                                               : 0;
            if (n == 0 || start(b, sim, j, b->ranges, n) < 0)
                start_on_leftover(b, sim, j);
        } else if (g <= extra + 1e-9 && may_fit(b, sim, jc, j, 0) &&
                   start(b, sim, j, NULL, 0) == 0 &&
                   j->alloc.pool >= 0 && usable(sim, j->alloc.pool, head)) {
            extra -= g;
        }
        /* Capacity, the leftover on reserved nodes and extra only shrink
         * during the scan: a job that found no room leaves its class's
         * later jobs of the same kind none either. */
        if (j->state == GS_JOB_PENDING && repeat)
            jc->out[!by_shadow] = 1;
        /* pass over the gone, the head, and the jobs of a kind already
         * known to find no room: only this class has changed (a start
         * drops only the job it starts) */
        jc->cur = class_next(jc, head, now, sh.t);
        jc->stale = 0;
        class_placed(b, jc);
    }
    b->scanning = 0;
}

const struct gs_policy_ops gs_policy_fifo_backfill = {
    .abi = GS_POLICY_ABI,
    .name = "fifo-backfill",
    .summary = "arrival order with EASY backfilling on estimated runtimes",
    .init = bf_init,
    .free = bf_free,
    .arrive = bf_arrive,
    .stopped = bf_stopped,
    .schedule = bf_schedule,
};
