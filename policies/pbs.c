/* pbs.c -- Predictive Backfill: EASY backfilling on runtimes predicted from
 * the jobs that have already run, learned online.
 *
 * The HPS paper (A. Mamirov, arXiv 2512.10980, 2025) names Predictive
 * Backfill (PBS) as its second dynamic scheduler: it looks ahead in the
 * queue for jobs that fill the GPUs left idle in front of a blocked job,
 * judged by predicted runtimes, and reaches 76.1% utilization against
 * HPS's 78.2%.  The paper does not give the predictor; this one is the
 * classic of backfilling with system-generated predictions (Tsafrir,
 * Etsion and Feitelson, "Backfilling using system-generated predictions
 * rather than user runtime estimates", IEEE TPDS 18(6), 2007): a job's
 * runtime is predicted, when it enters the queue, as the mean of the last two runtimes of completed
 * jobs of the same kind -- here the same tenant, tier and GPU request --
 * never more than the user's estimate when one is stated (the kill limit).
 * Without history it falls back on the user's estimate, then on the mean
 * runtime of every job completed so far, then on `prior` (default 1 h).
 * PBS never reads a job's true runtime.  A running job that outlives its
 * prediction is taken to end `prior` from now when its end is needed.
 *
 * Scheduling is EASY (Lifka 1995): jobs start in arrival order while they
 * fit; when the oldest does not, it gets a reservation -- the shadow time at
 * which, running jobs ending at their predicted ends, enough GPUs of the
 * pools it may use are free, and how many GPUs beyond its need are free
 * then (extra).  Later jobs, up to `depth` of them (the look-ahead, default
 * 32; the paper's code looks 5 ahead), start if they fit and either are predicted to end by the shadow
 * time or use no more than the extra GPUs.  GPUs are counted over the
 * pools as EASY counts processors; a prediction that is short can delay
 * the head, which is the price of predicting (Tsafrir et al. measured it
 * as small against the gain of tighter predictions).
 *
 * Cost: running jobs sit in a heap on predicted end (their pnode) and the
 * shadow time walks only as many as it needs; those past their predicted
 * end -- where nearly every reservation is found -- wait in a list in the
 * same order, read at one step a job (resv.c, gs_resv_walk); the kinds are
 * found by a hash of (tenant, tier, GPUs).  A pass looks at most `depth`
 * waiting jobs beyond the head, and stops when no GPU is free; jobs that no
 * node has room for -- the head included -- are passed over on a look at
 * the pools' free-GPU masks, without a placement search, and that look
 * (the most GPUs free on one node) is taken once and again only after a
 * start, not for every job.  A job that would outlive a node reservation
 * is tried off the reserved nodes, or on the one reserved node's spare
 * GPUs, only when some open node there has its GPUs fully free
 * (needtab.h: gs_sure_miss, gs_sure_miss_in; where misses repeat): the
 * search would miss, and a miss changes nothing.  It used to be asked
 * anyway -- 225 k searches in bench_tenants' 200 k jobs at one tenant,
 * every one a miss (tests/test_tenants.c counts them).  Under gang
 * spreading a job of several GPUs is always tried: the core may place its
 * GPUs on several nodes. */
#include "needtab.h"
#include "policy.h"
#include "resv.h"
#include "../sim/core/sim.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct kind {
    int tenant, tier, milli;
    gs_time last[2];            /* last two runtimes; 0 = none */
    int nlast;
    int used;
};

struct pbs {
    long depth;
    gs_time prior;
    struct kind *k;             /* open-addressed hash table */
    long capk, nk;
    double sum;                 /* runtimes of completed jobs */
    long ndone;
    struct gs_resv rv;          /* running jobs by predicted end, and the
                                   head's reservation (resv.c) */
    int *hp, *cp;               /* scratch: the head's and a job's pools */
    long started;               /* jobs this pass started */
    int quiet;                  /* the last pass started nothing, at epoch
                                   qepoch, and no job came within depth of
                                   the head nor stopped since */
    uint64_t qepoch;
    int qnodes;                 /* ... and it made no reservation by GPUs
                                   counted over pools (svisit's) */
};

static struct gs_job *job_of(struct gs_hnode *n)
{
    return (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode));
}

static long milli(const struct gs_job *j)
{
    return j->need.gpus > 0 ? (long)j->need.gpus * 1000 : j->need.milli;
}

static int pbs_init(struct gs_sim *sim, struct gs_params *p, void **state,
                    struct gs_diag *d)
{
    struct pbs *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->depth = 32;
    s->prior = GS_HOUR;
    int rc;
    if ((rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d)) < 0 ||
        (rc = gs_params_time(p, "prior", &s->prior, d)) < 0) {
        free(s);
        return rc;
    }
    if (s->prior <= 0) {
        free(s);
        return gs_diag_set(d, GS_EINVAL, p->where, "prior must be > 0");
    }
    s->capk = 64;
    s->k = calloc((size_t)s->capk, sizeof *s->k);
    if (s->k == NULL) {
        free(s);
        return GS_ENOMEM;
    }
    const struct gs_fleet *f = gs_sim_fleet(sim);
    s->hp = malloc(((size_t)f->npools + 1) * sizeof *s->hp);
    s->cp = malloc(((size_t)f->npools + 1) * sizeof *s->cp);
    if (!s->hp || !s->cp || gs_resv_init(&s->rv, sim, 1) < 0) {
        free(s->hp);
        free(s->cp);
        free(s->k);
        free(s);
        return GS_ENOMEM;
    }
    *state = s;
    return 0;
}

static void pbs_free(void *state)
{
    struct pbs *s = state;
    if (s == NULL)
        return;
    free(s->k);
    free(s->hp);
    free(s->cp);
    gs_resv_free(&s->rv);
    free(s);
}

static uint64_t khash(int tenant, int tier, int m)
{
    uint64_t h = (uint64_t)(uint32_t)tenant * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)tier << 32 | (uint32_t)m) * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 29);
}

/* The job's kind, added if new and add is set; NULL if absent. */
static struct kind *kind_of(struct pbs *s, const struct gs_job *j, int add)
{
    if (add && 2 * (s->nk + 1) > s->capk) {
        long cap = 2 * s->capk;
        struct kind *n = calloc((size_t)cap, sizeof *n);
        GS_OOM_IF(n == NULL);
        for (long i = 0; i < s->capk; i++) {
            if (!s->k[i].used)
                continue;
            uint64_t h = khash(s->k[i].tenant, s->k[i].tier, s->k[i].milli);
            long x = (long)(h & (uint64_t)(cap - 1));
            while (n[x].used)
                x = (x + 1) & (cap - 1);
            n[x] = s->k[i];
        }
        free(s->k);
        s->k = n;
        s->capk = cap;
    }
    int m = (int)milli(j);
    uint64_t h = khash(j->tenant, j->s.tier, m);
    long x = (long)(h & (uint64_t)(s->capk - 1));
    while (s->k[x].used) {
        struct kind *k = &s->k[x];
        if (k->tenant == j->tenant && k->tier == j->s.tier && k->milli == m)
            return k;
        x = (x + 1) & (s->capk - 1);
    }
    if (!add)
        return NULL;
    s->k[x] = (struct kind){ .tenant = j->tenant, .tier = j->s.tier,
                             .milli = m, .used = 1 };
    s->nk++;
    return &s->k[x];
}

/* The predicted runtime of a job entering the queue, in ms. */
static gs_time predict_now(struct pbs *s, const struct gs_job *j)
{
    struct kind *k = kind_of(s, j, 0);
    gs_time p;
    if (k && k->nlast > 0)
        p = k->nlast == 1 ? k->last[0] : (k->last[0] + k->last[1]) / 2;
    else if (j->s.estimate > 0)
        p = j->s.estimate;
    else if (s->ndone > 0)
        p = (gs_time)(s->sum / (double)s->ndone);
    else
        p = s->prior;
    if (j->s.estimate > 0 && p > j->s.estimate)
        p = j->s.estimate;
    return p;
}

/* Predictions are made as a job enters the queue (Tsafrir et al. predict at
 * submission) and kept in its pslot. */
static void pbs_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    struct pbs *s = state;
    j->pslot = (long)predict_now(s, j);
    if (gs_sim_npending(sim) <= s->depth + 1 || j != gs_sim_pending_tail(sim))
        s->quiet = 0;           /* within the head's look-ahead */
}

/* What remains of a waiting job's predicted runtime (a job that ran before
 * and was preempted has done part of it). */
static gs_time predict(const struct gs_job *j)
{
    gs_time left = (gs_time)j->pslot - (gs_time)j->done;
    return left > 1 ? left : 1;
}

static void pbs_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                        int why)
{
    struct pbs *s = state;
    gs_resv_stopped(&s->rv, j);
    s->quiet = 0;
    if (why != GS_STOP_DONE || j->started > gs_sim_now(sim))
        return;
    gs_time rt = gs_sim_now(sim) - j->started;
    struct kind *k = kind_of(s, j, 1);
    k->last[1] = k->last[0];
    k->last[0] = rt;
    if (k->nlast < 2)
        k->nlast++;
    s->sum += (double)rt;
    s->ndone++;
}

struct shadow {
    struct gs_sim *sim;
    const struct gs_job *h;
    double avail, need;
    gs_time t, now, prior;
};

static double gpus_of(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

static int svisit(struct gs_hnode *n, void *arg)
{
    struct shadow *w = arg;
    struct gs_job *r = job_of(n);
    const struct gs_fleet *f = gs_sim_fleet(w->sim);
    if (r->alloc.pool < 0 || !gs_fleet_pool_eligible(f, r->alloc.pool,
                                                     &w->h->need))
        return 0;
    w->avail += gpus_of(r);
    if (w->avail < w->need - 1e-9)
        return 0;
    w->t = n->time > w->now ? n->time : w->now + w->prior;
    return 1;
}

/* j started, expected to end at end. */
static void started(struct pbs *s, struct gs_job *j, gs_time end)
{
    GS_ASSERT(gs_resv_started(&s->rv, j, end) == 0);
    s->started++;
}

/* What a look-ahead reads of the fleet, worked out again only after a
 * start (nothing else changes the fleet during a pass): the most GPUs
 * fully free on one open node of any pool (SHARED when some pool shares
 * GPUs: the placer judges those), and the fewest GPUs a node of a pool
 * with GPUs has. */
#define SHARED 64
struct look {
    int most, mingpn;
    int spread;                 /* gangs spread over nodes (sim.c) */
};

static void look_at(struct gs_sim *sim, struct look *l)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    l->spread = gs_sim_scenario(sim)->topo.gang == GS_GANG_SPREAD;
    l->most = 0;
    l->mingpn = 0;
    for (int p = 0; p < f->npools; p++) {
        const struct gs_pool *pl = &f->pools[p];
        int top = pl->fmask[1] ? 63 - __builtin_clzll(pl->fmask[1]) : 0;
        if (pl->mig || pl->unit || pl->rmax)
            l->most = SHARED;
        else if (top > l->most)
            l->most = top;
        if (pl->s.gpn > 0 && (l->mingpn == 0 || pl->s.gpn < l->mingpn))
            l->mingpn = pl->s.gpn;
    }
}

/* 0 if no node of any pool the job may use has as many fully free GPUs as
 * it wants on one node (whole-GPU jobs; others are always tried, and so
 * are jobs of several GPUs when gangs are spread: the core may place
 * their GPUs on several nodes): a look at each pool's free-GPU mask
 * (fleet.h), no placement search; at once when it wants more than any
 * node has free (a pool of gpn GPUs a node asks min(gpus, gpn) of one
 * node). */
static int could_fit_pools(const struct gs_fleet *f, const struct gs_job *j);

static inline int could_fit(const struct gs_fleet *f, const struct gs_job *j,
                            const struct look *l)
{
    if (j->need.gpus <= 0 || j->need.profile ||
        (l->spread && j->need.gpus > 1))
        return 1;
    if (l->most < SHARED &&
        (j->need.gpus < l->mingpn ? j->need.gpus : l->mingpn) > l->most)
        return 0;               /* the common case, at once */
    return could_fit_pools(f, j);
}

/* could_fit's look at each pool the job may use. */
static int could_fit_pools(const struct gs_fleet *f, const struct gs_job *j)
{
    for (int p = 0; p < f->npools; p++) {
        const struct gs_pool *pl = &f->pools[p];
        if (pl->mig || pl->unit || pl->rmax)
            return 1;           /* shared pools: let the placer judge */
        int g = j->need.gpus > pl->s.gpn ? pl->s.gpn : j->need.gpus;
        if ((pl->fmask[1] >> g) != 0 &&
            gs_fleet_pool_eligible(f, p, &j->need))
            return 1;
    }
    return 0;
}

/* 1 if some GPU could still take a job: a node with a fully free GPU, or
 * any shared pool (the placer judges those). */
static int room(const struct look *l)
{
    return l->most > 0;
}

/* The pools need may use, into out; their count. */
static int pools_of(const struct gs_fleet *f, const struct gs_need *need,
                    int *out)
{
    int n = 0;
    for (int p = 0; p < f->npools; p++)
        if (gs_fleet_pool_eligible(f, p, need))
            out[n++] = p;
    return n;
}

/* Backfill behind head h holding a node reservation: a job predicted to
 * end by its time may start anywhere; one that would outlive it keeps off
 * the reserved nodes, or takes the GPUs a single reserved node will have
 * to spare. */
static void backfill_nodes(struct pbs *s, struct gs_sim *sim,
                           const struct gs_job *h)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    gs_time now = gs_sim_now(sim);
    long looked = 0;
    struct gs_job *j;
    struct look l;
    look_at(sim, &l);
    int repeat = gs_sim_misses_repeat(sim) && !l.spread;
    for (const struct gs_job *at = h;
         looked < s->depth && (j = gs_sim_pending_next(sim, at)) != NULL;
         looked++, at = j) {
        if (!room(&l))
            break;
        if (!could_fit(f, j, &l))
            continue;
        gs_time p = predict(j);
        int rc;
        if (now + p <= s->rv.t) {
            rc = gs_sim_try_start(sim, j, NULL, 0);
        } else {
            int nc = pools_of(f, &j->need, s->cp);
            int whole = gs_resv_whole(f, &j->need, s->cp, nc);
            /* no node off the reserved ones with its GPUs free: the try
             * there would miss, and misses repeat (needtab.h) */
            int n = repeat && whole &&
                    gs_sure_miss(f, &j->need, s->cp, nc, s->rv.nodes,
                                 s->rv.n)
                        ? 0 : gs_resv_off(&s->rv, f, s->cp, nc);
            rc = n > 0 ? gs_sim_try_start(sim, j, s->rv.ranges, n)
                       : GS_ENOFIT;
            struct gs_range r;
            if (rc < 0 && whole &&
                gs_resv_spare(&s->rv, f, j->need.gpus, s->cp, nc, &r) &&
                !(repeat && gs_sure_miss_in(f, &j->need, &r, 1)) &&
                (rc = gs_sim_try_start(sim, j, &r, 1)) == 0)
                gs_resv_took(&s->rv, j->need.gpus);
        }
        if (rc == 0) {
            started(s, j, now + p);
            look_at(sim, &l);
        }
    }
}

/* Would this pass do what the last did -- nothing?  As in backfill.c's
 * same_as_last: the last started nothing, no capacity came back, no job
 * came within the look-ahead or stopped, misses repeat; and the jobs that
 * end by the shadow time can only be fewer.  A reservation by GPUs counted
 * over pools (svisit) takes a running job past its predicted end to end
 * `prior` from now, which moves its shadow time with the clock: it is the
 * same pass only while no running job has passed its predicted end.  A
 * node-by-node one (resv.c) is the same walk over the same running jobs
 * in the same order on the same fleet, so the same nodes at the same
 * time t (a job past its end counts as ending at its predicted end), and
 * its shadow time is max(t, now): fixed while now <= t, and now itself
 * after, when no job ends by it (a prediction is at least 1 ms).  That is
 * nearly every pass at load 1.2, where predictions run short: 119 k of
 * 399 k passes in bench_tenants' 200 k-job cell at 256 tenants were made
 * again only because a running job was past its end. */
static int same_as_last(struct pbs *s, struct gs_sim *sim, uint64_t epoch)
{
    return s->quiet && epoch == s->qepoch &&
           (s->qnodes || gs_resv_first_end(&s->rv) > gs_sim_now(sim));
}

static int pass(struct pbs *s, struct gs_sim *sim);

static void pbs_schedule(void *state, struct gs_sim *sim)
{
    struct pbs *s = state;
    uint64_t epoch = gs_sim_epoch(sim);
    if (same_as_last(s, sim, epoch))
        return;
    s->started = 0;
    s->qnodes = pass(s, sim);
    s->quiet = s->started == 0 && gs_sim_misses_repeat(sim);
    s->qepoch = epoch;
}

/* One pass; 0 when it made a reservation by GPUs counted over pools, else
 * 1 (a node-by-node one, or none). */
static int pass(struct pbs *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    gs_time now = gs_sim_now(sim);
    struct gs_job *j = gs_sim_pending_head(sim);
    struct look l;
    look_at(sim, &l);
    /* arrival order while jobs fit (a job started keeps its successor:
     * sim.h); a job no node has room for misses without a search */
    for (; j; j = gs_sim_pending_next(sim, j)) {
        if (!could_fit(f, j, &l) || gs_sim_try_start(sim, j, NULL, 0) < 0)
            break;
        started(s, j, now + predict(j));
        look_at(sim, &l);
    }
    if (j == NULL || f->used_milli >= f->gpus_up * 1000)
        return 1;
    /* the head's reservation, on predicted ends: node by node for a
     * whole-GPU head (resv.c), else by GPUs counted over its pools */
    const struct gs_job *h = j;
    int nh = pools_of(f, &h->need, s->hp);
    int made = gs_resv_make(&s->rv, f, &h->need, s->hp, nh, now);
    if (made == 0) {
        backfill_nodes(s, sim, h);
        return 1;
    }
    struct shadow w = { sim, j, 0, gpus_of(j), GS_TIME_MAX, now, s->prior };
    for (int p = 0; p < f->npools; p++)
        if (gs_fleet_pool_eligible(f, p, &j->need))
            w.avail += (double)f->pools[p].gpus_up -
                       (double)f->pools[p].used_milli / 1000.0;
    if (w.avail >= w.need - 1e-9)
        w.t = now;              /* enough GPUs, not on one node yet */
    else
        gs_resv_walk(&s->rv, svisit, &w);
    double extra = w.avail - w.need;
    long looked = 0;
    for (const struct gs_job *at = h;
         looked < s->depth && (j = gs_sim_pending_next(sim, at)) != NULL;
         looked++, at = j) {
        if (!room(&l))
            break;
        gs_time p = predict(j);
        int ends_first = now + p <= w.t;
        double g = gpus_of(j);
        if (!ends_first && g > extra + 1e-9)
            continue;
        if (!could_fit(f, j, &l) || gs_sim_try_start(sim, j, NULL, 0) < 0)
            continue;
        started(s, j, now + p);
        look_at(sim, &l);
        if (!ends_first && gs_fleet_pool_eligible(f, j->alloc.pool,
                                                  &h->need))
            extra -= g;
    }
    return 0;
}

const struct gs_policy_ops gs_policy_pbs = {
    .abi = GS_POLICY_ABI,
    .name = "pbs",
    .summary = "Predictive Backfill: EASY on runtimes predicted online from "
               "completed jobs (arXiv 2512.10980)",
    .init = pbs_init,
    .free = pbs_free,
    .arrive = pbs_arrive,
    .stopped = pbs_stopped,
    .schedule = pbs_schedule,
};
