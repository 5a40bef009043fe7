/* share.c -- the run-time model of shared GPUs: speeds, OOM kills, loans and
 * reclaims, MIG reconfiguration time, and the books behind the sharing
 * metrics.
 *
 * The model keeps, per GPU of a sharing pool, the list of jobs on it in the
 * order they started (an entry per job; a MIG gang has one on each of its
 * GPUs, the first of which keeps the job's books).  A job's rate is its
 * unshared rate (what gs_sim_start gave it: 1 / the model's time factor)
 * times a factor this model sets through gs_sim_set_rate:
 *
 *   MIG.  factor = compute slices of its instance / 7 (gs_mig_compute_share;
 *   1 for a whole GPU), or 0 while one of its GPUs is being reconfigured.
 *   The fleet changes a GPU's layout when a placement asks for it (the GPU
 *   must be empty; migslots.h); this model notices the change (the GPU's
 *   change counter moved) and makes the GPU ready reconf_time later, when
 *   the jobs placed on it start to progress.  The default of 60 s is an
 *   assumption -- NVIDIA documents that a layout change needs the GPU idle
 *   (MIG User Guide, "Partitioning"), not how long the orchestration around
 *   it takes; set the scenario's reconfigure_time from your measurements.
 *
 *   Time-slicing.  With n jobs on a GPU, duty cycles d_i (the fraction of
 *   time each keeps the GPU busy when alone) and D = sum d_i,
 *       factor = (1 - o(n)) * min(1, 1 / D),
 *       o(n)   = min(max_overhead, switch_overhead * (n - 1)):
 *   while the GPU has slack every job runs at full speed less the
 *   context-switch overhead, and oversubscribed the GPU's time is shared in
 *   proportion to demand, which slows every job by the same 1/D.  The
 *   defaults (1 % per extra context, at most 25 %) keep the overhead small
 *   at 4-8 replicas and let it grow with more; the p99 latency a context
 *   adds is reported, not applied to throughput: 0 below latency_from (12)
 *   contexts, then from latency_min_ms (5) to latency_max_ms (20) at 48,
 *   linearly -- the figures DESIGN.md cites for 12+ replicas.
 *   Memory is not isolated: a job uses its stated memory, or the GPU's
 *   memory / replicas when it states none.  When the jobs on a GPU use more
 *   than the GPU has, the victim rule picks who dies (GS_KILL_OOM), again
 *   until they fit: "newest" (default) kills the most recently started job
 *   -- the one whose allocation found the memory gone, as a CUDA
 *   cudaMalloc fails in the process that asks last; "largest" kills the
 *   job using the most memory (ties: the newest), like the Linux OOM
 *   killer's choice by size.
 *
 *   Fractional (Run:ai-style dynamic GPU fractions: a guaranteed Request and
 *   a Limit it may grow into when the capacity is not needed by others --
 *   NVIDIA Run:ai documentation, "Dynamic GPU Fractions").  The fleet holds
 *   each job's guarantee g; a job with a burst limit b > g borrows idle
 *   capacity (1000 - guarantees - loans) up to b - g.  Loans go to
 *   borrowers oldest first, whenever capacity is idle, and only grow: a
 *   borrower has grown into the memory it borrowed, so a loan cannot be
 *   taken back without the job losing it.  factor = (g + loan) / b: the
 *   job's work is measured at its limit.  When a newly placed owner's
 *   guarantee leaves the GPU over-lent (idle < 0), loans are reclaimed from
 *   the newest borrower backwards, one borrower at a time, until the owner
 *   is covered: each victim is killed (GS_KILL_RECLAIM, "reclaim": "kill",
 *   the default -- the GPU memory OOM killer) or evicted and requeued with
 *   its checkpointed work (GS_STOP_RECLAIMED, "reclaim": "evict").  So
 *   reclaim takes exactly the borrowers needed and no more; what a victim
 *   frees beyond the owner's need goes back to the remaining borrowers.
 *   An evicted borrower is requeued and may restart at the same instant,
 *   on its guarantee -- but it borrows nothing before the next instant (a
 *   relend event 1 ms later).  Without that rule evictions could chase one
 *   another through the fleet within one instant: the restarted job, now the
 *   newest borrower somewhere, reclaimed again.  With it, every job is
 *   evicted at most once per instant, so the chain ends.
 *
 * Kills and evictions never happen inside gs_sim_start (the policy is still
 * iterating its queue): an over-full GPU is flagged and an event at the same
 * instant enforces the rules, GPUs in the order they were flagged.
 *
 * Books: each job's wall time on shared GPUs and the unshared time that
 * work would have taken (sum of dt * factor); its slowdown is their ratio,
 * and the summary's mean is over jobs with both positive.  Invariants per
 * GPU: mib_used, guar_used and lent are the sums over its entries. */
#include "share.h"
#include "../cluster/migslots.h"
#include "sim.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct sent {
    struct gs_job *job;
    uint64_t seq;               /* start order: larger is newer */
    double base;                /* unshared rate */
    double factor;              /* current share of it */
    gs_time mark;               /* books kept up to here */
    int home;                   /* keeps the job's books */
    int32_t mib;                /* time-slicing: memory in use */
    double duty;                /* time-slicing: duty cycle */
    int guar, burst, loan;      /* fractional, milli */
    double cshare;              /* MIG: compute share of the instance */
};

struct sgpu {
    struct sent *v;             /* in start order */
    int n, cap;
    int pool;
    int64_t mib_used;
    int guar_used, lent;
    gs_time ready_at;           /* MIG: usable from */
    uint32_t seen;              /* MIG: layout changes accounted for */
    int flagged;
};

struct revent {
    struct gs_event ev;         /* first member */
    struct gs_share *sh;
    int gpu;
};

struct gs_share {
    struct gs_event enforce;    /* first member */
    struct gs_fleet *f;
    struct sgpu *g;             /* per fleet GPU */
    struct revent *rev;         /* per fleet GPU (MIG pools use them) */
    uint64_t seq;
    int *flag;
    int nflag, capflag;
    double *wall, *equiv;       /* per job record */
    gs_time *evicted;           /* per job record: last reclaim eviction */
    long nacc;
    struct relend {             /* lending deferred by the eviction rule */
        struct gs_event ev;     /* first member */
        struct gs_share *sh;
        int *gpu;
        int n, cap;
    } relend;
    long oom_kills, reclaim_kills, reclaim_evictions;
    double ts_lat_sum;
    long ts_busy;
};

#define CONTAINER(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static const struct gs_share_cfg *cfg_of(const struct gs_share *sh, int gpu)
{
    return &sh->f->pools[sh->g[gpu].pool].s.share;
}

static int32_t gpu_mib(const struct gs_fleet *f, int pool)
{
    return (int32_t)llround(f->cat->m[f->pools[pool].s.model].mem_gb * 1024.0);
}

double gs_share_ts_overhead(const struct gs_share_cfg *c, int n)
{
    double o = c->switch_overhead * (n > 1 ? n - 1 : 0);
    return o < c->max_overhead ? o : c->max_overhead;
}

double gs_share_ts_latency_ms(const struct gs_share_cfg *c, int n)
{
    if (n < c->latency_from)
        return 0.0;
    if (c->latency_from >= GS_SHARE_MAX_REPLICAS)
        return c->latency_min_ms;
    return c->latency_min_ms + (c->latency_max_ms - c->latency_min_ms) *
           (double)(n - c->latency_from) /
           (double)(GS_SHARE_MAX_REPLICAS - c->latency_from);
}

/* --- building ------------------------------------------------------------- */

static void on_enforce(struct gs_event *ev, void *ctx);
static void on_ready(struct gs_event *ev, void *ctx);
static void on_relend(struct gs_event *ev, void *ctx);

int gs_share_new(struct gs_fleet *f, struct gs_share **out)
{
    *out = NULL;
    int any = 0, mig = 0;
    for (int p = 0; p < f->npools; p++) {
        any |= f->pools[p].s.share.mode != GS_SHARE_NONE;
        mig |= f->pools[p].s.share.mode == GS_SHARE_MIG;
    }
    if (!any)
        return 0;
    struct gs_share *sh = calloc(1, sizeof *sh);
    if (sh == NULL)
        return GS_ENOMEM;
    sh->f = f;
    gs_event_init(&sh->enforce, on_enforce);
    gs_event_init(&sh->relend.ev, on_relend);
    sh->relend.sh = sh;
    size_t n = (size_t)(f->ngpus > 0 ? f->ngpus : 1);
    sh->g = calloc(n, sizeof *sh->g);
    if (mig)
        sh->rev = calloc(n, sizeof *sh->rev);
    if (sh->g == NULL || (mig && sh->rev == NULL)) {
        gs_share_free(sh);
        return GS_ENOMEM;
    }
    for (int p = 0; p < f->npools; p++) {
        const struct gs_pool *pl = &f->pools[p];
        if (pl->s.nodes == 0)
            continue;
        int g0 = f->nodes[pl->node0].gpu0;
        for (int g = g0; g < g0 + pl->s.nodes * pl->s.gpn; g++) {
            sh->g[g].pool = p;
            if (sh->rev) {
                gs_event_init(&sh->rev[g].ev, on_ready);
                sh->rev[g].sh = sh;
                sh->rev[g].gpu = g;
            }
        }
    }
    *out = sh;
    return 0;
}

void gs_share_free(struct gs_share *sh)
{
    if (sh == NULL)
        return;
    for (int g = 0; sh->g && g < sh->f->ngpus; g++)
        free(sh->g[g].v);
    free(sh->g);
    free(sh->rev);
    free(sh->flag);
    free(sh->wall);
    free(sh->equiv);
    free(sh->evicted);
    free(sh->relend.gpu);
    free(sh);
}

/* --- small helpers ----------------------------------------------------------- */

/* The fleet GPUs of j's allocation, in part and mask order, into gpus
 * (capacity cap); returns how many there are. */
static int job_gpus(const struct gs_fleet *f, const struct gs_job *j,
                    int *gpus, int cap)
{
    int n = 0;
    const struct gs_part *pt = j->alloc.n > 1 ? j->alloc.many : &j->alloc.one;
    for (int i = 0; i < j->alloc.n; i++)
        for (uint64_t m = pt[i].mask; m; m &= m - 1) {
            if (n < cap)
                gpus[n] = f->nodes[pt[i].node].gpu0 + __builtin_ctzll(m);
            n++;
        }
    return n;
}

static int grow_acc(struct gs_share *sh, long rec)
{
    if (rec < sh->nacc)
        return 0;
    long cap = sh->nacc ? sh->nacc : 1024;
    while (cap <= rec)
        cap *= 2;
    double *w = realloc(sh->wall, (size_t)cap * sizeof *w);
    if (w == NULL)
        return GS_ENOMEM;
    sh->wall = w;
    double *e = realloc(sh->equiv, (size_t)cap * sizeof *e);
    if (e == NULL)
        return GS_ENOMEM;
    sh->equiv = e;
    gs_time *v = realloc(sh->evicted, (size_t)cap * sizeof *v);
    if (v == NULL)
        return GS_ENOMEM;
    sh->evicted = v;
    for (long i = sh->nacc; i < cap; i++) {
        sh->wall[i] = sh->equiv[i] = 0;
        sh->evicted[i] = -1;
    }
    sh->nacc = cap;
    return 0;
}

/* Bring e's books up to now. */
static void account(struct gs_share *sh, struct sent *e, gs_time now)
{
    if (e->home && now > e->mark && (long)e->job->rec < sh->nacc) {
        double dt = (double)(now - e->mark);
        sh->wall[e->job->rec] += dt;
        sh->equiv[e->job->rec] += dt * e->factor;
    }
    e->mark = now;
}

/* Rates compose: another model (failure.c's degraded GPUs) may have scaled
 * the job's rate since, so the unshared rate is read back from the current
 * one whenever the factor is not 0. */
static void set_factor(struct gs_share *sh, struct gs_sim *s, struct sent *e,
                       double f)
{
    account(sh, e, gs_sim_now(s));
    if (f == e->factor)
        return;
    if (e->factor > 0 && e->job->rate > 0)
        e->base = e->job->rate / e->factor;
    e->factor = f;
    gs_sim_set_rate(s, e->job, e->base * f);
}

static struct sent *find_entry(struct sgpu *sg, const struct gs_job *j)
{
    for (int i = 0; i < sg->n; i++)
        if (sg->v[i].job == j)
            return &sg->v[i];
    return NULL;
}

static void flag_gpu(struct gs_share *sh, struct gs_sim *s, int g)
{
    if (sh->g[g].flagged)
        return;
    if (sh->nflag == sh->capflag) {
        int cap = sh->capflag ? sh->capflag * 2 : 16;
        int *nf = realloc(sh->flag, (size_t)cap * sizeof *nf);
        if (nf == NULL)
            return;     /* enforced at the next start on this GPU */
        sh->flag = nf;
        sh->capflag = cap;
    }
    sh->flag[sh->nflag++] = g;
    sh->g[g].flagged = 1;
    if (!gs_event_pending(&sh->enforce))
        gs_sim_at(s, &sh->enforce, gs_sim_now(s));
}

/* --- time-slicing ------------------------------------------------------------- */

static void ts_count(struct gs_share *sh, int g, int n0, int n1)
{
    const struct gs_share_cfg *c = cfg_of(sh, g);
    if (n0 > 0) {
        sh->ts_lat_sum -= gs_share_ts_latency_ms(c, n0);
        sh->ts_busy--;
    }
    if (n1 > 0) {
        sh->ts_lat_sum += gs_share_ts_latency_ms(c, n1);
        sh->ts_busy++;
    }
}

static void ts_rates(struct gs_share *sh, struct gs_sim *s, int g)
{
    struct sgpu *sg = &sh->g[g];
    double dsum = 0;
    for (int i = 0; i < sg->n; i++)
        dsum += sg->v[i].duty;
    double f = 1.0 - gs_share_ts_overhead(cfg_of(sh, g), sg->n);
    if (dsum > 1.0)
        f /= dsum;
    for (int i = 0; i < sg->n; i++)
        set_factor(sh, s, &sg->v[i], f);
}

/* --- fractional ------------------------------------------------------------------ */

/* Lending on g waits for the next instant (an evicted borrower). */
static void defer_lend(struct gs_share *sh, struct gs_sim *s, int g)
{
    struct relend *r = &sh->relend;
    for (int i = 0; i < r->n; i++)
        if (r->gpu[i] == g)
            return;
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        int *v = realloc(r->gpu, (size_t)cap * sizeof *v);
        if (v == NULL)
            return;     /* lent at the next start or stop on g */
        r->gpu = v;
        r->cap = cap;
    }
    r->gpu[r->n++] = g;
    if (!gs_event_pending(&r->ev))
        gs_sim_at(s, &r->ev, gs_sim_now(s) + 1);
}

/* Lend idle capacity to borrowers, oldest first, and set every factor. */
static void frac_lend(struct gs_share *sh, struct gs_sim *s, int g)
{
    struct sgpu *sg = &sh->g[g];
    int idle = 1000 - sg->guar_used - sg->lent;
    gs_time now = gs_sim_now(s);
    for (int i = 0; i < sg->n && idle > 0; i++) {
        struct sent *e = &sg->v[i];
        int want = e->burst - e->guar - e->loan;
        int give = want < idle ? want : idle;
        if (give <= 0)
            continue;
        if (sh->evicted[e->job->rec] == now) {
            defer_lend(sh, s, g);
            continue;
        }
        e->loan += give;
        sg->lent += give;
        idle -= give;
    }
    gs_fleet_set_lent(sh->f, g, sg->lent);
    for (int i = 0; i < sg->n; i++) {
        struct sent *e = &sg->v[i];
        set_factor(sh, s, e, (double)(e->guar + e->loan) / (double)e->burst);
    }
}

static void on_relend(struct gs_event *ev, void *ctx)
{
    struct relend *r = (struct relend *)ev;
    int n = r->n;
    r->n = 0;
    for (int i = 0; i < n; i++)
        frac_lend(r->sh, ctx, r->gpu[i]);
}

/* --- MIG -------------------------------------------------------------------------- */

/* j runs at its instance's share once all its GPUs are ready, else waits. */
static void mig_refresh(struct gs_share *sh, struct gs_sim *s,
                        struct gs_job *j)
{
    int gpus[GS_MAX_GPN + 1];
    int n = job_gpus(sh->f, j, gpus, GS_MAX_GPN + 1);
    gs_time now = gs_sim_now(s);
    struct sent *home = NULL;
    int ready = 1;
    for (int i = 0; i < n && i <= GS_MAX_GPN; i++) {
        struct sgpu *sg = &sh->g[gpus[i]];
        if (sg->ready_at > now)
            ready = 0;
        struct sent *e = find_entry(sg, j);
        if (e && e->home)
            home = e;
    }
    if (home)
        set_factor(sh, s, home, ready ? home->cshare : 0.0);
}

static void on_ready(struct gs_event *ev, void *ctx)
{
    struct revent *r = (struct revent *)ev;
    struct gs_share *sh = r->sh;
    struct sgpu *sg = &sh->g[r->gpu];
    for (int i = 0; i < sg->n; i++)
        mig_refresh(sh, ctx, sg->v[i].job);
}

/* --- hooks --------------------------------------------------------------------------- */

static struct sent *push(struct sgpu *sg)
{
    if (sg->n == sg->cap) {
        int cap = sg->cap ? sg->cap * 2 : 4;
        struct sent *v = realloc(sg->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return NULL;
        sg->v = v;
        sg->cap = cap;
    }
    struct sent *e = &sg->v[sg->n++];
    memset(e, 0, sizeof *e);
    return e;
}

void gs_share_started(struct gs_share *sh, struct gs_sim *s, struct gs_job *j)
{
    struct gs_fleet *f = sh->f;
    int pool = j->alloc.pool;
    const struct gs_pool *p = &f->pools[pool];
    int mode = p->s.share.mode;
    if (mode == GS_SHARE_NONE)
        return;
    struct gs_demand dm;
    if (gs_fleet_demand(f, pool, &j->need, &dm) < 0)
        return;
    if (mode == GS_SHARE_FRAC && dm.kind != GS_DEM_FRAC)
        return;                 /* whole GPUs: exclusive, nothing to share */
    if (grow_acc(sh, j->rec) < 0)
        return;
    gs_time now = gs_sim_now(s);
    uint64_t seq = ++sh->seq;
    int gpus[GS_MAX_GPN + 1];
    int n = job_gpus(f, j, gpus, GS_MAX_GPN + 1);
    if (n > GS_MAX_GPN + 1)
        n = GS_MAX_GPN + 1;
    const struct gs_share_cfg *c = &p->s.share;
    for (int i = 0; i < n; i++) {
        int g = gpus[i];
        struct sgpu *sg = &sh->g[g];
        struct sent *e = push(sg);
        if (e == NULL)
            continue;
        e->job = j;
        e->seq = seq;
        e->base = j->rate;
        e->factor = 1.0;
        e->mark = now;
        e->home = i == 0;
        if (mode == GS_SHARE_MIG) {
            int mg = g - f->nodes[p->node0].gpu0;
            if (p->mig->nreconf[mg] != sg->seen) {
                sg->seen = p->mig->nreconf[mg];
                sg->ready_at = now + c->reconf_time;
                if (c->reconf_time > 0)
                    gs_sim_at(s, &sh->rev[g].ev, sg->ready_at);
            }
            e->cshare = 1.0;
            if (j->alloc.one.inst > 0)
                e->cshare = gs_mig_compute_share(gs_migslots_inst_profile(
                    p->mig, mg, j->alloc.one.inst - 1, -1));
        } else if (mode == GS_SHARE_TS) {
            e->mib = j->need.mem_gb > 0
                         ? (int32_t)llround(j->need.mem_gb * 1024.0)
                         : gpu_mib(f, pool) / c->replicas;
            e->duty = j->s.duty > 0 ? j->s.duty : 1.0;
            sg->mib_used += e->mib;
            ts_count(sh, g, sg->n - 1, sg->n);
            if (sg->mib_used > gpu_mib(f, pool))
                flag_gpu(sh, s, g);
            ts_rates(sh, s, g);
        } else {
            e->guar = dm.milli;
            e->burst = j->need.burst > e->guar ? j->need.burst : e->guar;
            sg->guar_used += e->guar;
            if (1000 - sg->guar_used - sg->lent < 0)
                flag_gpu(sh, s, g);
            frac_lend(sh, s, g);
        }
    }
    if (mode == GS_SHARE_MIG)
        mig_refresh(sh, s, j);
}

void gs_share_stopping(struct gs_share *sh, struct gs_sim *s, struct gs_job *j)
{
    int pool = j->alloc.pool;
    if (pool < 0 || sh->f->pools[pool].s.share.mode == GS_SHARE_NONE)
        return;
    int mode = sh->f->pools[pool].s.share.mode;
    gs_time now = gs_sim_now(s);
    int gpus[GS_MAX_GPN + 1];
    int n = job_gpus(sh->f, j, gpus, GS_MAX_GPN + 1);
    for (int i = 0; i < n && i <= GS_MAX_GPN; i++) {
        int g = gpus[i];
        struct sgpu *sg = &sh->g[g];
        struct sent *e = find_entry(sg, j);
        if (e == NULL)
            continue;
        account(sh, e, now);
        struct sent gone = *e;
        int k = (int)(e - sg->v);
        memmove(&sg->v[k], &sg->v[k + 1], (size_t)(sg->n - k - 1) * sizeof *e);
        sg->n--;
        if (mode == GS_SHARE_TS) {
            sg->mib_used -= gone.mib;
            ts_count(sh, g, sg->n + 1, sg->n);
            ts_rates(sh, s, g);
        } else if (mode == GS_SHARE_FRAC) {
            sg->guar_used -= gone.guar;
            sg->lent -= gone.loan;
            frac_lend(sh, s, g);
        }
    }
}

/* The victim of the out-of-memory rule on sg. */
static struct sent *oom_victim(struct sgpu *sg, int rule)
{
    struct sent *v = NULL;
    for (int i = 0; i < sg->n; i++) {
        struct sent *e = &sg->v[i];
        if (v == NULL || (rule == GS_OOM_LARGEST && e->mib > v->mib) ||
            ((rule == GS_OOM_NEWEST || e->mib == v->mib) && e->seq > v->seq))
            v = e;
    }
    return v;
}

static void on_enforce(struct gs_event *ev, void *ctx)
{
    struct gs_share *sh = (struct gs_share *)ev;
    struct gs_sim *s = ctx;
    for (int i = 0; i < sh->nflag; i++) {
        int g = sh->flag[i];
        struct sgpu *sg = &sh->g[g];
        const struct gs_share_cfg *c = cfg_of(sh, g);
        sg->flagged = 0;
        if (c->mode == GS_SHARE_TS) {
            int32_t cap = gpu_mib(sh->f, sg->pool);
            while (sg->mib_used > cap && sg->n > 0) {
                struct sent *v = oom_victim(sg, c->oom_rule);
                sh->oom_kills++;
                if (gs_sim_kill(s, v->job, GS_KILL_OOM) < 0)
                    break;
            }
        } else if (c->mode == GS_SHARE_FRAC) {
            while (1000 - sg->guar_used - sg->lent < 0) {
                struct sent *v = NULL;
                for (int k = sg->n - 1; k >= 0 && v == NULL; k--)
                    if (sg->v[k].loan > 0)
                        v = &sg->v[k];
                GS_ASSERT(v != NULL);
                int rc;
                if (c->reclaim_kill) {
                    sh->reclaim_kills++;
                    rc = gs_sim_kill(s, v->job, GS_KILL_RECLAIM);
                } else {
                    sh->reclaim_evictions++;
                    sh->evicted[v->job->rec] = gs_sim_now(s);
                    rc = gs_sim_interrupt(s, v->job, GS_STOP_RECLAIMED);
                }
                if (rc < 0)
                    break;
            }
        }
    }
    sh->nflag = 0;
}

void gs_share_finish(struct gs_share *sh, gs_time now)
{
    for (int g = 0; g < sh->f->ngpus; g++)
        for (int i = 0; i < sh->g[g].n; i++)
            account(sh, &sh->g[g].v[i], now);
}

void gs_share_levels(const struct gs_share *sh, struct gs_share_levels *o)
{
    memset(o, 0, sizeof *o);
    if (sh == NULL)
        return;
    for (int p = 0; p < sh->f->npools; p++) {
        const struct gs_pool *pl = &sh->f->pools[p];
        if (pl->mig) {
            o->mig_busy_slices += (double)pl->mig->busy_compute;
            o->mig_slices_up += (double)GS_MIG_COMPUTE_SLICES *
                                (double)pl->gpus_up;
        }
    }
    o->ts_latency_ms = sh->ts_lat_sum;
    o->ts_busy_gpus = (double)sh->ts_busy;
}

void gs_share_stats(const struct gs_share *sh, struct gs_share_stats *o)
{
    memset(o, 0, sizeof *o);
    if (sh == NULL)
        return;
    o->oom_kills = sh->oom_kills;
    o->reclaim_kills = sh->reclaim_kills;
    o->reclaim_evictions = sh->reclaim_evictions;
    for (int p = 0; p < sh->f->npools; p++)
        if (sh->f->pools[p].mig)
            o->reconfigurations += sh->f->pools[p].mig->reconfigs;
    double sum = 0;
    for (long r = 0; r < sh->nacc; r++)
        if (sh->wall[r] > 0 && sh->equiv[r] > 0) {
            sum += sh->wall[r] / sh->equiv[r];
            o->slowed_jobs++;
        }
    o->slowdown_mean = o->slowed_jobs ? sum / (double)o->slowed_jobs : 0.0;
}

/* --- the hooks table entry (model.h) ------------------------------------ */

/* What the metrics read (struct gs_metrics: share_levels, share_stats). */
static void levels_of(const void *sh, struct gs_share_levels *o)
{
    gs_share_levels(sh, o);
}

static void stats_of(const void *sh, struct gs_share_stats *o)
{
    gs_share_stats(sh, o);
}

struct share_model {
    struct gs_share *sh;
    struct gs_sim *s;
};

static int m_build(struct gs_sim *s, const struct gs_scenario *sc,
                   struct gs_fleet *f, struct gs_metrics *m, uint64_t seed,
                   void **st, struct gs_diag *d)
{
    (void)sc;
    (void)seed;
    *st = NULL;
    struct gs_share *sh = NULL;
    struct share_model *sm = NULL;
    if (gs_share_new(f, &sh) < 0)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    if (sh == NULL)
        return 0;
    if ((sm = malloc(sizeof *sm)) == NULL) {
        gs_share_free(sh);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    sm->sh = sh;
    sm->s = s;
    m->share = sh;
    m->share_levels = levels_of;
    m->share_stats = stats_of;
    *st = sm;
    return 0;
}

static void m_free(void *st)
{
    struct share_model *sm = st;
    if (sm == NULL)
        return;
    gs_share_free(sm->sh);
    free(sm);
}

static void m_started(void *st, struct gs_job *j)
{
    struct share_model *sm = st;
    gs_share_started(sm->sh, sm->s, j);
}

static void m_stopping(void *st, struct gs_job *j)
{
    struct share_model *sm = st;
    gs_share_stopping(sm->sh, sm->s, j);
}

static void m_close(void *st, gs_time end)
{
    struct share_model *sm = st;
    gs_share_finish(sm->sh, end);
}

const struct gs_model_ops gs_share_model = {
    .name = "sharing",
    .build = m_build,
    .free = m_free,
    .job_started = m_started,
    .job_stopping = m_stopping,
    .close = m_close,
};
