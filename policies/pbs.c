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
 * runtime is predicted as the mean of the last two runtimes of completed
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
 * 256), start if they fit and either are predicted to end by the shadow
 * time or use no more than the extra GPUs.  GPUs are counted over the
 * pools as EASY counts processors; a prediction that is short can delay
 * the head, which is the price of predicting (Tsafrir et al. measured it
 * as small against the gain of tighter predictions).
 *
 * Cost: running jobs sit in a heap on predicted end (their pnode) and the
 * shadow time walks only as many as it needs (gs_heap_walk); the kinds are
 * found by a hash of (tenant, tier, GPUs).  A pass looks at most `depth`
 * waiting jobs. */
#include "policy.h"
#include "../sim/sim.h"

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
    struct gs_heap run;         /* running jobs by predicted end */
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
    (void)sim;
    struct pbs *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->depth = 256;
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
    gs_heap_init(&s->run);
    *state = s;
    return 0;
}

static void pbs_free(void *state)
{
    struct pbs *s = state;
    if (s == NULL)
        return;
    free(s->k);
    gs_heap_clear(&s->run);
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
        GS_ASSERT(n != NULL);
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

/* The predicted runtime of a waiting job, in ms. */
static gs_time predict(struct pbs *s, const struct gs_job *j)
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
    /* what remains of it, for a job that ran before (preempted) */
    gs_time left = p - (gs_time)j->done;
    return left > 1 ? left : 1;
}

static void pbs_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                        int why)
{
    struct pbs *s = state;
    gs_heap_remove(&s->run, &j->pnode);
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

static void pbs_schedule(void *state, struct gs_sim *sim)
{
    struct pbs *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    gs_time now = gs_sim_now(sim);
    struct gs_job *j = gs_sim_pending_head(sim), *next;
    /* arrival order while jobs fit */
    for (; j; j = next) {
        next = j->next;
        if (gs_sim_try_start(sim, j, NULL, 0) < 0)
            break;
        GS_ASSERT(gs_heap_push(&s->run, &j->pnode, now + predict(s, j)) == 0);
    }
    if (j == NULL || f->used_milli >= f->gpus_up * 1000)
        return;
    /* the head's reservation, on predicted ends */
    struct shadow w = { sim, j, 0, gpus_of(j), GS_TIME_MAX, now, s->prior };
    for (int p = 0; p < f->npools; p++)
        if (gs_fleet_pool_eligible(f, p, &j->need))
            w.avail += (double)f->pools[p].gpus_up -
                       (double)f->pools[p].used_milli / 1000.0;
    if (w.avail >= w.need - 1e-9)
        w.t = now;              /* enough GPUs, not on one node yet */
    else
        GS_ASSERT(gs_heap_walk(&s->run, svisit, &w) == 0);
    double extra = w.avail - w.need;
    const struct gs_job *h = j;
    long looked = 0;
    for (j = h->next; j && looked < s->depth; j = next, looked++) {
        next = j->next;
        if (f->used_milli >= f->gpus_up * 1000)
            break;
        gs_time p = predict(s, j);
        int ends_first = now + p <= w.t;
        double g = gpus_of(j);
        if (!ends_first && g > extra + 1e-9)
            continue;
        if (gs_sim_try_start(sim, j, NULL, 0) < 0)
            continue;
        GS_ASSERT(gs_heap_push(&s->run, &j->pnode, now + p) == 0);
        if (!ends_first && gs_fleet_pool_eligible(f, j->alloc.pool,
                                                  &h->need))
            extra -= g;
    }
}

const struct gs_policy_ops gs_policy_pbs = {
    .abi = GS_POLICY_ABI,
    .name = "pbs",
    .summary = "Predictive Backfill: EASY on runtimes predicted online from "
               "completed jobs (arXiv 2512.10980)",
    .init = pbs_init,
    .free = pbs_free,
    .stopped = pbs_stopped,
    .schedule = pbs_schedule,
};
