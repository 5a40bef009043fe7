/* hps.c -- the Hybrid Priority Scheduler: one score mixing priority,
 * efficiency, fairness by aging and fragmentation, with a reservation for
 * the job it saves from starving.
 *
 * Source: A. Mamirov, "Reducing Fragmentation and Starvation in GPU Clusters
 * through Dynamic Multi-Objective Scheduling", arXiv 2512.10980 (2025), and
 * its public scheduler code (github.com/akhmadmamirov/orca,
 * schedulers/hybrid_priority.py).  HPS ranks the waiting jobs by a score
 * mixing efficiency (short, small jobs raise jobs/hour), a penalty on GPUs
 * (one large job must not block many small ones) and aging (a job waiting
 * past 5 minutes is boosted, at most 2x, reached at 30 minutes), and counts
 * a job as starved when it waited over 30 minutes -- what falls from 156
 * to 12 jobs in the paper.  gpusim's form of it, each term in [0, 1]:
 *
 *   score(j) = w_priority  * P(j)     P = tier priority / highest priority
 *            + w_efficiency * E(j)    E = 1 / (1 + estimated GPU-hours):
 *                                         the code's 1/(1 + hours) and
 *                                         1/(1 + GPUs/4) in one term
 *            + w_aging     * A(j)     A = (wait - aging_after) / aging_scale
 *                                         between the two, 0 before, and
 *                                         0 again past the ramp (below)
 *            + w_fragmentation * (1 - F(j))
 *                                     F = what the tightest placement leaves
 *                                         free on its node, over GPUs per
 *                                         node (fractions: the free share
 *                                         of the GPU, +1 if it breaks a
 *                                         whole one, halved); 1 = no room
 *
 * With the defaults (weights 1, 1, 3, 0.5; the ramp from 5 minutes to the
 * 30-minute mark) the boost is gradual: a job that has waited 10 minutes
 * competes with fresh efficient work, and one near the mark outranks every
 * job that is not.
 *
 * Past the mark a job goes to the back (past_mark "back"): its boost is
 * withdrawn and it ranks as a fresh job.  That is Moore and Hodgson's rule
 * for the fewest late jobs (Management Science 15(1), 1968): a job that
 * will be late anyway gives way to those that can still be on time -- the
 * starved count does not care how late it is.  What keeps its wait bounded
 * is the reservation.  ("cap" keeps the full boost past the mark, as
 * before; "grow" lets it keep growing.)
 *
 * Starvation guard (block_aged, default true).  A job that does not fit
 * (or finds the fleet full) can get a reservation, node by node as in EASY
 * backfilling (resv.c): running jobs released in order of estimated end
 * until some node has room for it (a gang: until one pool has the whole
 * nodes it needs).  Those nodes and that time are the reservation.  Later
 * jobs still start in score order -- anywhere if they end by then, else
 * off the reserved nodes, or on a single reserved node in the GPUs the
 * held job will leave free there -- so its room is kept without idling the
 * rest of the cluster.  One job holds the reservation at a time.  A
 * reservation idles GPUs, so it goes where it saves a job from starving:
 *   1. to the first aged job tried (up to `tries`, 4, a pass, in score
 *      order) whose reservation starts it by the mark (starved_after, 30
 *      minutes after its arrival) -- taking it, if need be, from a holder
 *      it does not save (one of the holder's own class, whose reservation
 *      is the same, first);
 *   2. if none: to the job that has waited longest past the ramp, as
 *      EASY's goes to the oldest, so that no late job waits for ever;
 *   3. if none is late yet: to the first aged job tried.
 * A holder the reservation saves keeps it until it starts; it is worked
 * out again when its time passes (estimates were short, a node failed).
 * Jobs wanting a fraction of a GPU or a MIG instance get no reservation
 * (their room comes from single GPUs emptying).
 *
 * What was wrong before (measured on scenarios/hps-paper.json, 10 seeds;
 * docs/policies.md has the figures).  First aging jumped to a full boost 5
 * minutes after arrival and the reservation counted GPUs over a whole
 * pool: hps ran as a FIFO with a poor backfill.  Then, with a gradual
 * boost capped at the mark, jobs already late still outranked those that
 * could be saved, and a late job held the one reservation for hours while
 * 8-GPU jobs that a reservation would have saved starved behind it: 70
 * starved jobs a run against SBS's 50; with the two rules above, 31.
 *
 * Keeping the order incrementally.  The score changes with time only
 * through aging, and among jobs in the rising stage by the same amount
 * (w_aging * now / aging_scale).  So jobs are kept in heaps: per need class
 * (GPUs, memory, models, MIG profile, sharing terms, host asks and tier --
 * jobs of one class fit exactly where the others do; needtab.h), one heap
 * per aging stage -- fresh (key: the fixed part of the score), rising
 * (fixed part - w_aging * (arrival + aging_after) / aging_scale) and past
 * the ramp (fixed part, or + w_aging under "cap") -- a timer heap that
 * moves each job on when its wait passes a stage's end, and the jobs past
 * the ramp in a heap by arrival.  F is the same for a whole class and is
 * read from the pools' free-GPU masks (fleet.h) in O(1) per pool.  A pass
 * repeatedly takes the class whose best job scores highest and tries it;
 * a class whose best job does not fit is passed over for the rest of the
 * pass (its other jobs need the same room).  The reservation walks the
 * running jobs in a heap on estimated end, as far as it needs.
 *
 * What a pass costs.  Keyed by GPUs, host asks and tier, a generated
 * workload has tens of classes (16 in bench_tenants' 4 GPU counts x 4
 * tiers), and a pass used to scan them all, twice, for every class it
 * tried: 626 entries read per job there, 4.2-4.7x fifo's time.  Now a
 * pass reads each class's best job once, when it first needs them
 * (cands_make), keeps them by score, and works a class out again only
 * when it started a job (nothing else moves a class's heaps during a
 * pass); a pick looks down the scores only while a class could still win
 * (its score plus w_fragmentation reaches the best so far), and a class's
 * F is kept until the next try changes the fleet.  A class that cannot
 * fit anywhere -- no open node of its pools has its GPUs fully free, or
 * none off the reserved nodes (gs_needtab_sure_miss) -- is passed over
 * without a placement, which is what it would have met (so is a try on
 * the reserved node's spare GPUs, and the fallback's try of the late
 * job); and while a reservation saves its holder, a pass in which no
 * class can fit would only pass each over, so it is not made -- told
 * family by family from the pools' masks (gs_needtab_all_miss), reading
 * no class.  In a pass that does run while the reservation saves its
 * holder, a class of a family that must miss is not even read: no try can
 * take the reservation then, so its turn would only pass it over and
 * count against depth; it is counted instead, unless the pass could reach
 * depth (cands_make): 252 k of the 456 k class reads of bench_tenants'
 * 50 k-job cell (load 1.2), and 311 k of its 358 k picks were of classes
 * that must miss, most of them in such passes.  A
 * candidate keeps its best job, so a try does not look it up again.  The decisions are those of the
 * full scans, tie for tie (the earlier arrival, then the class earlier in
 * the live list).  So a pass costs O(classes) once, plus O(log n) and a
 * look at the few classes near the top per job it starts or class it
 * passes over, plus at most `tries` reservations, not O(queue).
 *
 * Parameters: w_priority, w_efficiency, w_aging, w_fragmentation (>= 0),
 * aging_after (duration, default 5 min), aging_scale (default 25 min),
 * past_mark ("back", "cap" or "grow"; default "back"), block_aged (bool),
 * starved_after (default 30 min), tries (default 4), depth (jobs tried per
 * pass, default 256), lean (default true; false reads every class every
 * pass, the classes that must miss too: the same decisions, for
 * checking). */
#include "policy.h"
#include "jobgroup.h"
#include "needtab.h"
#include "resv.h"
#include "../sim/core/sim.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KSCALE 1e6              /* score units per heap-key unit */
#define CHUNK 1024
#define LATE_HEAP_ID ((uint64_t)1 << 23)

enum { PAST_BACK, PAST_CAP, PAST_GROW };

/* A class of jobs with the same need (an entry of the need table). */
struct cls {
    struct gs_needkey k;        /* first, as the table wants; k.pools:
                                   the pools it may ever use */
    int whole;                  /* whole GPUs on plain pools only */
    struct gs_lheap h[3];        /* by stage: fresh, aging, past the ramp */
    long n;                     /* jobs waiting */
    uint64_t blocked;           /* pass stamp when passed over */
};

/* A live class not yet passed over in a pass: its best job's score
 * without F and that job's arrival.  Worked out when the pass first needs
 * them, and again for a class that started a job: nothing else changes a
 * class's heaps during a pass (the clock stands still, and jobs arrive,
 * age and are killed between passes). */
struct cand {
    int ci;
    double sc;
    struct gs_job *j;           /* that job (a try takes it from here) */
    gs_time arrival;
    double tot;                 /* sc with the F term, */
    uint64_t totv;              /* as of this try of the pass (hps.tryv) */
};

/* A waiting job's bookkeeping (j->pslot points here while it waits). */
struct wait {
    struct gs_hnode timer;      /* in s->timers until its last stage */
    struct gs_job *j;
    int cls, stage;             /* 0 fresh, 1 aging, 2 past the ramp */
    double S;                   /* fixed part of the score */
    double b;                   /* base(): the score in its stage heap
                                   without the rising stage's now term,
                                   set as it is filed */
    struct wait *nextfree;      /* free list */
};

struct hps {
    double wp, we, wa, wf;
    gs_time after, scale, mark;
    long tries;
    int block;
    int lean;                   /* cands_make may skip classes that miss */
    int past;                   /* past the ramp: PAST_BACK, _CAP, _GROW */
    int last;                   /* last aging stage: 2, or 1 (grow) */
    long depth;
    double maxprio;
    struct gs_sim *sim;
    struct gs_needtab t;        /* the classes (struct cls); live: those
                                   with waiting jobs */
    struct gs_lheap timers;
    struct gs_lheap late;        /* jobs past the ramp, by arrival (their
                                   timer node, free once in stage 2) */
    struct wait **chunks, *freew;
    int nchunks;
    uint64_t stamp;
    /* Running jobs by estimated end, and the reservation. */
    struct gs_resv rv;
    /* The starved job holding the reservation. */
    struct gs_job *held;
    int saves;                  /* its reservation saves it */
    /* The pass's candidates (cands_make), best score first; ncand < 0
     * until the pass needs them. */
    struct cand *cand;
    int ncand;
    long capcand;
    uint64_t tryv;              /* tries so far: F holds between two */
};

static struct gs_job *job_of(struct gs_hnode *n)
{
    return (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode));
}

static struct cls *cls_at(const struct hps *s, int i)
{
    return gs_needtab_at(&s->t, i);
}

static struct wait *wait_of(const struct gs_job *j)
{
    return (struct wait *)(intptr_t)j->pslot;
}

static int hps_init(struct gs_sim *sim, struct gs_params *p, void **state,
                    struct gs_diag *d)
{
    struct hps *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    *s = (struct hps){ .wp = 1.0, .we = 1.0, .wa = 3.0, .wf = 0.5,
                       .after = 5 * GS_MIN, .scale = 25 * GS_MIN, .block = 1,
                       .mark = 30 * GS_MIN, .tries = 4,
                       .depth = 256, .lean = 1 };
    int rc;
    const char *past = "back";
    if ((rc = gs_params_num(p, "w_priority", 0, 1e6, &s->wp, d)) < 0 ||
        (rc = gs_params_num(p, "w_efficiency", 0, 1e6, &s->we, d)) < 0 ||
        (rc = gs_params_num(p, "w_aging", 0, 1e6, &s->wa, d)) < 0 ||
        (rc = gs_params_num(p, "w_fragmentation", 0, 1e6, &s->wf, d)) < 0 ||
        (rc = gs_params_time(p, "aging_after", &s->after, d)) < 0 ||
        (rc = gs_params_time(p, "aging_scale", &s->scale, d)) < 0 ||
        (rc = gs_params_bool(p, "block_aged", &s->block, d)) < 0 ||
        (rc = gs_params_str(p, "past_mark", &past, d)) < 0 ||
        (rc = gs_params_time(p, "starved_after", &s->mark, d)) < 0 ||
        (rc = gs_params_int(p, "tries", 1, 1000, &s->tries, d)) < 0 ||
        (rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d)) < 0 ||
        (rc = gs_params_bool(p, "lean", &s->lean, d)) < 0) {
        free(s);
        return rc;
    }
    if (s->scale <= 0) {
        free(s);
        return gs_diag_set(d, GS_EINVAL, p->where, "aging_scale must be > 0");
    }
    if (s->after < 0) {
        free(s);
        return gs_diag_set(d, GS_EINVAL, p->where, "aging_after must be >= 0");
    }
    static const char *const pasts[] = { "back", "cap", "grow" };
    s->past = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(past, pasts[i]) == 0)
            s->past = i;
    if (s->past < 0) {
        free(s);
        return gs_diag_set(d, GS_EINVAL, p->where,
                           "past_mark must be \"back\", \"cap\" or \"grow\"");
    }
    s->last = s->past == PAST_GROW ? 1 : 2;
    const struct gs_scenario *sc = gs_sim_scenario(sim);
    for (int t = 0; t < GS_NTIERS; t++)
        if (sc->tiers[t].priority > s->maxprio)
            s->maxprio = sc->tiers[t].priority;
    if (gs_resv_init(&s->rv, sim, 2) < 0) {
        free(s);
        return GS_ENOMEM;
    }
    s->sim = sim;
    gs_needtab_init(&s->t, sim, sizeof(struct cls));
    gs_lheap_init_apart(&s->timers, sim, 1);
    gs_lheap_init_apart(&s->late, sim, LATE_HEAP_ID);
    *state = s;
    return 0;
}

static void hps_free(void *state)
{
    struct hps *s = state;
    if (s == NULL)
        return;
    for (int i = 0; i < s->t.n; i++) {
        for (int k = 0; k < 3; k++)
            gs_lheap_clear(&cls_at(s, i)->h[k]);
    }
    gs_needtab_free(&s->t);
    for (int i = 0; i < s->nchunks; i++)
        free(s->chunks[i]);
    free(s->chunks);
    gs_lheap_clear(&s->timers);
    gs_lheap_clear(&s->late);
    gs_resv_free(&s->rv);
    free(s->cand);
    free(s);
}

/* The class of j's need and tier, made if new; -1 when out of memory. */
static int class_of(struct hps *s, const struct gs_fleet *f,
                    const struct gs_job *j)
{
    const struct gs_need *n = &j->need;
    int made, ci = gs_needtab_of(&s->t, n, j->s.tier, &made);
    if (ci < 0 || !made)
        return ci;
    struct cls *c = cls_at(s, ci);
    c->whole = n->gpus > 0;
    for (int i = 0; i < c->k.npools; i++) {
        struct gs_demand dm;
        if (gs_fleet_demand(f, c->k.pools[i], n, &dm) < 0 ||
            dm.kind != GS_DEM_WHOLE)
            c->whole = 0;
    }
    for (int k = 0; k < 3; k++)
        gs_lheap_init_apart(&c->h[k], s->sim,
                            3 + 3 * (uint64_t)ci + (uint64_t)k);
    return ci;
}

static struct wait *wait_new(struct hps *s)
{
    if (s->freew == NULL) {
        struct wait **ch = realloc(s->chunks,
                                   (size_t)(s->nchunks + 1) * sizeof *ch);
        GS_OOM_IF(ch == NULL);
        s->chunks = ch;
        struct wait *w = calloc(CHUNK, sizeof *w);
        GS_OOM_IF(w == NULL);
        s->chunks[s->nchunks++] = w;
        for (int i = 0; i < CHUNK; i++) {
            w[i].nextfree = s->freew;
            s->freew = &w[i];
        }
    }
    struct wait *w = s->freew;
    s->freew = w->nextfree;
    memset(w, 0, sizeof *w);
    return w;
}

static double clampkey(double k)
{
    return k > 9e18 ? 9e18 : k < -9e18 ? -9e18 : k;
}

/* Heap keys are smallest first; scores are largest first.  In stage 1 the
 * key leaves out w_aging * now / aging_scale, which all of them share. */
static double base(const struct hps *s, const struct wait *w)
{
    switch (w->stage) {
    case 0:
        return w->S;
    case 1:
        return w->S - s->wa * (double)(w->j->s.arrival + s->after) /
                          (double)s->scale;
    default:
        return w->S + (s->past == PAST_CAP ? s->wa : 0);
    }
}

static gs_time key(const struct wait *w)
{
    return (gs_time)clampkey(-w->b * KSCALE);
}

/* What the rising stage adds to its jobs' base at now. */
static double rising(const struct hps *s, gs_time now)
{
    return s->wa * (double)now / (double)s->scale;
}

/* The score of a waiting job, without F, given rising(s, now). */
static double score(const struct wait *w, double up)
{
    return w->b + (w->stage == 1 ? up : 0);
}

/* When a job in stage k moves on. */
static gs_time next_stage(const struct hps *s, const struct wait *w)
{
    return w->j->s.arrival + s->after + (w->stage == 0 ? 0 : s->scale);
}

/* File w in its class's heap for its stage at now, and in the timers. */
static void file(struct hps *s, struct wait *w, gs_time now)
{
    struct cls *c = cls_at(s, w->cls);
    w->stage = 0;
    if (s->wa > 0)
        while (w->stage < s->last && next_stage(s, w) < now)
            w->stage++;
    w->b = base(s, w);
    GS_ASSERT(gs_lheap_push(&c->h[w->stage], &w->j->pnode, key(w)) == 0);
    if (s->wa > 0 && w->stage < s->last)
        GS_ASSERT(gs_lheap_push(&s->timers, &w->timer, next_stage(s, w)) == 0);
    else if (w->stage == 2)
        GS_ASSERT(gs_lheap_push(&s->late, &w->timer, w->j->s.arrival) == 0);
}

static void live_add(struct hps *s, int ci)
{
    if (cls_at(s, ci)->n++ == 0)
        gs_needtab_live(&s->t, ci, 1);
}

static void live_drop(struct hps *s, int ci)
{
    if (--cls_at(s, ci)->n == 0)
        gs_needtab_live(&s->t, ci, 0);
}

static void hps_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    struct hps *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int ci = class_of(s, f, j);
    GS_ASSERT(ci >= 0);
    struct wait *w = wait_new(s);
    w->j = j;
    w->cls = ci;
    double p = s->maxprio > 0 ? j->prio / s->maxprio : 0;
    p = p < 0 ? 0 : p > 1 ? 1 : p;
    double gpus = j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
    double e = 1.0 / (1.0 + (double)gs_sim_estimate(sim, j) / GS_HOUR * gpus);
    w->S = s->wp * p + s->we * e;
    j->pslot = (long)(intptr_t)w;
    file(s, w, gs_sim_now(sim));
    live_add(s, ci);
}

/* Take a waiting job out of the queue (it started, or was killed). */
static void unqueue(struct hps *s, struct gs_job *j)
{
    struct wait *w = wait_of(j);
    gs_lheap_remove(&cls_at(s, w->cls)->h[w->stage], &j->pnode);
    gs_lheap_remove(w->stage == 2 ? &s->late : &s->timers, &w->timer);
    live_drop(s, w->cls);
    j->pslot = 0;
    w->nextfree = s->freew;
    s->freew = w;
}

static void hps_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                        int why)
{
    (void)sim;
    (void)why;
    struct hps *s = state;
    if (j->pslot != 0)
        unqueue(s, j);          /* killed while waiting */
    else
        gs_resv_stopped(&s->rv, j);
    if (j == s->held)
        s->held = NULL;
}

/* Move the jobs whose wait passed a stage's end on to the next stage. */
static void age(struct hps *s, gs_time now)
{
    while (gs_lheap_top_time(&s->timers) < now) {
        struct wait *w = (struct wait *)gs_lheap_pop(&s->timers);
        gs_lheap_remove(&cls_at(s, w->cls)->h[w->stage], &w->j->pnode);
        file(s, w, now);
    }
}

/* The class's best waiting job and its score without F, or NULL; up is
 * rising(s, now). */
static struct gs_job *class_top(const struct cls *c, double up, double *sc)
{
    struct gs_job *best = NULL;
    for (int k = 0; k < 3; k++) {
        struct gs_hnode *n = gs_lheap_top(&c->h[k]);
        if (n == NULL)
            continue;
        struct gs_job *j = job_of(n);
        double x = score(wait_of(j), up);
        if (best == NULL || x > *sc ||
            (x == *sc && j->s.arrival < best->s.arrival)) {
            best = j;
            *sc = x;
        }
    }
    return best;
}

/* F of a class: what the tightest placement leaves free, in [0, 1]. */
static double frag(const struct gs_fleet *f, const struct cls *c)
{
    double best = 1.0;
    if (c->whole) {
        for (int i = 0; i < c->k.npools; i++) {
            const struct gs_pool *p = &f->pools[c->k.pools[i]];
            int gpn = p->s.gpn;
            int g = c->k.need.gpus > gpn ? c->k.need.gpus % gpn : c->k.need.gpus;
            if (c->k.need.gpus > gpn && !((p->fmask[1] >> gpn) & 1))
                continue;       /* no whole node free for the gang */
            if (g == 0) {
                best = 0;
                break;
            }
            uint64_t m = p->fmask[1] >> g;
            if (m == 0)
                continue;
            double x = (double)__builtin_ctzll(m) / gpn;
            if (x < best)
                best = x;
        }
        return best;
    }
    struct gs_alloc a = { .pool = -1 };
    for (int i = 0; i < c->k.npools; i++) {
        int p = c->k.pools[i];
        struct gs_range r = { p, 0, f->pools[p].s.nodes };
        int score;
        if (gs_fleet_find(f, &r, &c->k.need, GS_FIT_BEST, &a, &score) < 0)
            continue;
        double x = c->k.need.gpus > 0 ? (double)score / f->pools[p].s.gpn
                                    : (double)score / 2000.0;
        if (x > 1)
            x = 1;
        if (x < best)
            best = x;
    }
    gs_alloc_reset(&a);
    return best;
}

/* --- the reservation (resv.c) ------------------------------------------ */

/* Work out the held job's reservation: 0, or -1 if none can be made. */
static int reserve(struct hps *s, struct gs_sim *sim)
{
    const struct cls *c = cls_at(s, wait_of(s->held)->cls);
    return gs_resv_make(&s->rv, gs_sim_fleet(sim), &c->k.need, c->k.pools,
                        c->k.npools, gs_sim_now(sim));
}

/* --- the pass ------------------------------------------------------------ */

static void started(struct hps *s, struct gs_job *j)
{
    unqueue(s, j);
    GS_ASSERT(gs_resv_started(&s->rv, j, j->est_end) == 0);
}

static int cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    return x->sc > y->sc ? -1 : x->sc < y->sc ? 1 : (x->ci > y->ci) - (x->ci < y->ci);
}

/* Class ci as the pass's last candidate, its best job read (counted),
 * unless it was passed over. */
static void cand_add(struct hps *s, int ci, uint64_t stamp, double up)
{
    const struct cls *c = cls_at(s, ci);
    double sc;
    struct gs_job *j;
    if (c->blocked != stamp && (j = class_top(c, up, &sc)) != NULL)
        s->cand[s->ncand++] = (struct cand){ ci, sc, j, j->s.arrival,
                                             0, UINT64_MAX };
}

/* Family f's live classes as candidates. */
static void cands_fam(struct hps *s, int f, uint64_t stamp, double up)
{
    for (int loud = 0; loud < 2; loud++)
        for (long i = 0, n = gs_needtab_fam_n(&s->t, f, loud); i < n; i++)
            cand_add(s, gs_needtab_fam_at(&s->t, f, loud, i), stamp, up);
}

/* The GPUs fully free on open nodes: what starts of whole GPUs can take. */
static long free_gpus(const struct gs_fleet *f)
{
    long n = 0;
    for (int p = 0; p < f->npools; p++)
        for (int v = 1; v <= f->pools[p].s.gpn; v++)
            n += (long)v * f->pools[p].ncount[v];
    return n;
}

/* The pass's candidates: every live class not passed over, by score.
 *
 * Lean (no try of this pass can take the reservation: it saves its
 * holder, or block_aged is off), a class of a family that surely misses
 * (needtab.h) would only be picked once in its turn, passed over and
 * counted against depth: nothing else.  Its turn does not move the
 * others' -- its try changes neither the fleet nor tryv, and picks are by
 * the best score with F, each candidate's own -- so such classes are
 * left unread, when the pass cannot reach depth even with them: when
 * the candidates read, plus the starts the idle GPUs allow (each start
 * takes at least the least ask of a candidate), plus the skipped classes
 * are at most depth, every pick is made either way and depth never cuts
 * the pass.  Otherwise they are read as well.  The families' misses hold
 * for the whole pass: its starts only take GPUs. */
static void cands_make(struct hps *s, uint64_t stamp, gs_time now,
                       const struct gs_fleet *f, int lean, long depth)
{
    long nlive = gs_needtab_nlive(&s->t);
    s->cand = gs_grow(s->cand, &s->capcand, nlive, sizeof *s->cand);
    s->ncand = 0;
    double up = rising(s, now);
    if (!lean) {
        for (long i = 0; i < nlive; i++)
            cand_add(s, gs_needtab_live_at(&s->t, i), stamp, up);
    } else {
        long nskip = 0;
        for (int fi = 0; fi < s->t.nfam; fi++) {
            if (!gs_needtab_fam_misses(&s->t, fi))
                cands_fam(s, fi, stamp, up);
            else
                nskip += gs_needtab_fam_n(&s->t, fi, 0) +
                         gs_needtab_fam_n(&s->t, fi, 1);
        }
        if (s->held && gs_needtab_fam_misses(&s->t,
                                             cls_at(s, wait_of(s->held)->cls)->k.fam))
            nskip--;                    /* the holder's class is out */
        int least = INT_MAX;            /* GPUs a start takes at least
                                           (0: fractions, or not told) */
        for (int i = 0; i < s->ncand; i++) {
            const struct cls *c = cls_at(s, s->cand[i].ci);
            int g = c->whole ? c->k.need.gpus : 0;
            if (g < least)
                least = g;
        }
        if (nskip > 0 &&
            (least <= 0 ||
             free_gpus(f) / least + s->ncand + nskip > depth))
            for (int fi = 0; fi < s->t.nfam; fi++)  /* depth might cut */
                if (gs_needtab_fam_misses(&s->t, fi))
                    cands_fam(s, fi, stamp, up);
    }
    if (s->ncand > 32) {
        qsort(s->cand, (size_t)s->ncand, sizeof *s->cand, cand_cmp);
        return;
    }
    for (int i = 1; i < s->ncand; i++) {
        struct cand x = s->cand[i];
        int k = i;
        for (; k > 0 && cand_cmp(&s->cand[k - 1], &x) > 0; k--)
            s->cand[k] = s->cand[k - 1];
        s->cand[k] = x;
    }
}

/* Candidate k started a job: its class's best is worked out again and
 * moved to its place, or the class leaves when it has no more. */
static void cand_redo(struct hps *s, int k, gs_time now)
{
    struct cand x = s->cand[k];
    double sc;
    struct gs_job *j = class_top(cls_at(s, x.ci), rising(s, now), &sc);
    memmove(&s->cand[k], &s->cand[k + 1],
            (size_t)(s->ncand - k - 1) * sizeof *s->cand);
    s->ncand--;
    if (j == NULL)
        return;
    x.sc = sc;
    x.j = j;
    x.arrival = j->s.arrival;
    x.totv = UINT64_MAX;
    int at = s->ncand;
    while (at > 0 && cand_cmp(&s->cand[at - 1], &x) > 0)
        at--;
    memmove(&s->cand[at + 1], &s->cand[at],
            (size_t)(s->ncand - at) * sizeof *s->cand);
    s->cand[at] = x;
    s->ncand++;
}

/* The candidate to try next, or -1: the class whose best job scores
 * highest with its F term, among those whose score without F is within
 * w_fragmentation of the top (F is looked at only where it could change
 * the winner); ties to the earlier arrival, then to the class earlier in
 * the live list.  Candidates are by score, so the look stops at the
 * first that can no longer win. */
static int cand_pick(struct hps *s, const struct gs_fleet *f)
{
    if (s->ncand <= 0)
        return -1;
    double top = s->cand[0].sc, best = -1e300;
    int k = -1;
    for (int i = 0; i < s->ncand; i++) {
        struct cand *x = &s->cand[i];
        if (x->sc + s->wf < top || x->sc + s->wf < best)
            break;
        if (x->totv != s->tryv) {       /* the fleet changed since */
            x->tot = x->sc + (s->wf > 0 ? s->wf * (1.0 - frag(f, cls_at(s, x->ci)))
                                        : 0);
            x->totv = s->tryv;
        }
        double tot = x->tot;
        if (k < 0 || tot > best ||
            (tot == best &&
             (x->arrival < s->cand[k].arrival ||
              (x->arrival == s->cand[k].arrival &&
               s->t.pos[x->ci] < s->t.pos[s->cand[k].ci])))) {
            best = tot;
            k = i;
        }
    }
    return k;
}

/* Try job j of class c: 0 when it started, else a negative code.  With a
 * reservation, a job that would outlive it keeps off the reserved nodes,
 * or uses the GPUs the held job leaves on its one node. */
static int try_job(struct hps *s, struct gs_sim *sim, struct gs_job *j,
                   const struct cls *c)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (gs_needtab_sure_miss(&s->t, &c->k, NULL, 0))
        return GS_ENOFIT;
    s->tryv++;                  /* a try may change the fleet */
    if (!s->held || gs_sim_now(sim) + gs_sim_estimate(sim, j) <= s->rv.t)
        return gs_sim_try_start(sim, j, NULL, 0);
    int rc = GS_ENOFIT;
    if (!gs_needtab_sure_miss(&s->t, &c->k, s->rv.nodes, s->rv.n)) {
        int n = gs_resv_off(&s->rv, f, c->k.pools, c->k.npools);
        rc = n > 0 ? gs_sim_try_start(sim, j, s->rv.ranges, n) : GS_ENOFIT;
    }
    struct gs_range r;
    if (rc < 0 && c->whole &&
        gs_resv_spare(&s->rv, f, c->k.need.gpus, c->k.pools, c->k.npools, &r) &&
        !(s->t.repeat && gs_sure_miss_in(f, &c->k.need, &r, 1)) &&
        (rc = gs_sim_try_start(sim, j, &r, 1)) == 0)
        gs_resv_took(&s->rv, c->k.need.gpus);
    return rc;
}

/* The pass's first step: the held job starts if it fits; its reservation
 * is worked out again when its time passed; a holder it does not save
 * gives it to the best aged job of its class that it saves. */
static void pass_held(struct hps *s, struct gs_sim *sim, gs_time now)
{
    if (s->held) {
        if (!gs_needtab_sure_miss(&s->t, &cls_at(s, wait_of(s->held)->cls)->k,
                                  NULL, 0) &&
            gs_sim_try_start(sim, s->held, NULL, 0) == 0) {
            started(s, s->held);
            s->held = NULL;
        } else if (now >= s->rv.t) {
            /* its time passed: estimates were short, or a node failed */
            if (reserve(s, sim) < 0)
                s->held = NULL;
            else
                s->saves = s->rv.t - s->held->s.arrival <= s->mark;
        }
    }
    if (s->held && !s->saves) {
        /* A job of its class needs the same room, so has the same
         * reservation: the best aged one it still saves takes it. */
        struct gs_hnode *n = gs_lheap_top(&cls_at(s, wait_of(s->held)->cls)->h[1]);
        if (n && s->rv.t - job_of(n)->s.arrival <= s->mark) {
            s->held = job_of(n);
            s->saves = 1;
        }
    }
}

/* No reservation saves a job from starving: it goes to the job that has
 * waited longest past the ramp, as EASY's goes to the oldest, so every
 * late job's wait stays bounded; without one, to the first aged job
 * tried (fallback). */
static void pass_fallback(struct hps *s, struct gs_sim *sim,
                          struct gs_job *fallback)
{
    struct gs_hnode *late = gs_lheap_top(&s->late);
    if (!s->held && (fallback || late) && s->block && s->wa > 0) {
        s->held = late ? ((struct wait *)late)->j : fallback;
        s->saves = 0;
        if (!gs_needtab_sure_miss(&s->t, &cls_at(s, wait_of(s->held)->cls)->k,
                                  NULL, 0) &&
            gs_sim_try_start(sim, s->held, NULL, 0) == 0) {
            started(s, s->held);
            s->held = NULL;
        } else if (reserve(s, sim) < 0) {
            s->held = NULL;
        }
    }
}

static void hps_schedule(void *state, struct gs_sim *sim)
{
    struct hps *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    gs_time now = gs_sim_now(sim);
    age(s, now);
    pass_held(s, sim, now);
    uint64_t stamp = ++s->stamp;
    if (s->held)
        cls_at(s, wait_of(s->held)->cls)->blocked = stamp;
    struct gs_job *fallback = NULL;
    long tries = 0;
    s->ncand = -1;
    /* With a reservation that saves its holder, a pass only starts jobs:
     * when none can, it would pass every class over and change nothing. */
    long depth = s->held && s->saves &&
                 f->used_milli < f->gpus_up * 1000 &&
                 gs_needtab_all_miss(&s->t)
                     ? 0 : s->depth;
    for (long tried = 0; tried < depth; tried++) {
        /* A full fleet starts nothing, but the best-ranked aged job still
         * gets its reservation now, before GPUs free up. */
        int full = f->used_milli >= f->gpus_up * 1000;
        if (full && ((s->held && s->saves) || !s->block || s->wa <= 0 ||
                     tries >= s->tries))
            break;
        if (s->ncand < 0)
            cands_make(s, stamp, now, f,
                       s->lean && ((s->held && s->saves) || !s->block ||
                                   s->wa <= 0),
                       depth);
        int k = cand_pick(s, f);
        if (k < 0)
            break;
        struct cls *c = cls_at(s, s->cand[k].ci);
        struct gs_job *j = s->cand[k].j;
        if (!full && try_job(s, sim, j, c) == 0) {
            started(s, j);
            cand_redo(s, k, now);
            continue;
        }
        c->blocked = stamp;
        memmove(&s->cand[k], &s->cand[k + 1],
                (size_t)(s->ncand - k - 1) * sizeof *s->cand);
        s->ncand--;
        if ((!s->held || !s->saves) && s->block && s->wa > 0 &&
            wait_of(j)->stage > 0 && tries < s->tries) {
            /* The first aged job that a reservation saves from starving
             * gets it, from a holder it does not save if need be. */
            tries++;
            struct gs_job *prev = s->held;
            s->held = j;
            int ok = reserve(s, sim) == 0;
            if (ok && s->rv.t - j->s.arrival <= s->mark) {
                s->saves = 1;
            } else {
                if (ok && fallback == NULL)
                    fallback = j;
                s->held = prev;
                if (prev && reserve(s, sim) < 0)
                    s->held = NULL;
            }
        }
    }
    pass_fallback(s, sim, fallback);
}

const struct gs_policy_ops gs_policy_hps = {
    .abi = GS_POLICY_ABI,
    .name = "hps",
    .summary = "Hybrid Priority Scheduler: priority + efficiency + aging + "
               "fragmentation score (arXiv 2512.10980)",
    .init = hps_init,
    .free = hps_free,
    .arrive = hps_arrive,
    .stopped = hps_stopped,
    .schedule = hps_schedule,
};
