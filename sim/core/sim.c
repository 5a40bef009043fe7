/* sim.c -- the cluster simulation loop and the engine calls policies use.
 *
 * Ownership: the simulation owns its fleet, source, plug-in states, job
 * structs and records; the scenario is borrowed.  A job struct lives from
 * arrival to its end and is then recycled through a free list; its compact
 * record (struct gs_jobrec) stays for the results.
 *
 * Invariants:
 *  - a job is in exactly one of: the pending list (state PENDING), the
 *    running array (state RUNNING, alloc committed to the fleet, finish
 *    event scheduled unless rate is 0), or neither (ended, recycled);
 *  - job->done is the work done as of job->mark; while running, work
 *    progresses at job->rate reference-ms per ms;
 *  - the fleet's used capacity is exactly the sum of running jobs' allocs.
 * CPU-only jobs (no GPU asked) are jobs like any other: queued, started
 * by the policy, holding one node's CPU and host memory (fleet.h,
 * gs_need_host_only).  The core places them (simplace.c's host_place;
 * placers are asked only for jobs with GPUs): pools without GPUs first,
 * then GPU nodes, first fit.  gs_sim_place, the placement call, is
 * simplace.c's.  What admits an arriving job (its tenant, host asks,
 * eligible pools, record; the error when no pool may ever take it) is
 * admit.c's, called by arrive() here; the two share struct gs_sim through
 * simint.h. */
#include "simint.h"
#include "../base/bigmem.h"
#include "../cluster/frag.h"
#include "model.h"
#include "../base/rng.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* With no horizon, a run whose jobs can neither start nor end for this
 * long (pending jobs on capacity that never comes back) stops there. */
#define GS_STALL (365 * GS_DAY)

/* --- small helpers ---------------------------------------------------- */

/* Call hook h of every model in the run that has it, with arguments. */
#define MODELS_CALL(s, h, ...)                                          \
    do {                                                                \
        for (int mi_ = 0; mi_ < (s)->nmods; mi_++)                      \
            if ((s)->mods[mi_].ops->h)                                  \
                (s)->mods[mi_].ops->h((s)->mods[mi_].st, __VA_ARGS__);  \
    } while (0)

#define PBLK 4

static void pending_remove(struct gs_sim *s, struct gs_job *j)
{
    long b = (long)(j->rec >> PBLK);
    if (s->plast[b] == j) {
        if (j->prev && (long)(j->prev->rec >> PBLK) == b) {
            s->plast[b] = j->prev;
        } else {
            s->plast[b] = NULL;
            s->pbits[b >> 6] &= ~(1ULL << (b & 63));
        }
    }
    if (j->prev)
        j->prev->next = j->next;
    else
        s->phead = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        s->ptail = j->prev;
    /* j->next is left pointing at its successor, which a policy's
     * stopped(KILLED) hook may read (sim.h, gs_sim_pending_tail). */
    s->npending--;
}

/* a goes after b in the pending list */
static int pending_later(const struct gs_job *a, const struct gs_job *b)
{
    return a->s.arrival > b->s.arrival ||
           (a->s.arrival == b->s.arrival && a->rec > b->rec);
}

/* The pending job that j goes after: the last one of a lower record
 * (records are numbered in arrival order), found through the blocks. */
static struct gs_job *pending_pred(struct gs_sim *s, const struct gs_job *j)
{
    long b = (long)(j->rec >> PBLK);
    struct gs_job *a = s->plast[b];
    if (a) {
        while (a && a->rec > j->rec)
            a = a->prev;
        return a;
    }
    for (long w = b >> 6; w >= 0; w--) {
        uint64_t m = s->pbits[w];
        if (w == b >> 6)
            m &= (1ULL << (b & 63)) - 1;
        if (m)
            return s->plast[w * 64 + 63 - __builtin_clzll(m)];
    }
    return NULL;
}

/* The blocks' arrays grown to hold block b (doubling: rare). */
static GS_COLD void pending_grow(struct gs_sim *s, long b)
{
    long n = s->nblk ? s->nblk : 1024;
    while (n <= b)
        n *= 2;
    struct gs_job **l = realloc(s->plast, (size_t)n * sizeof *l);
    GS_OOM_IF(l == NULL);
    s->plast = l;
    uint64_t *m = realloc(s->pbits, (size_t)(n / 64) * sizeof *m);
    GS_OOM_IF(m == NULL);
    s->pbits = m;
    memset(l + s->nblk, 0, (size_t)(n - s->nblk) * sizeof *l);
    memset(m + s->nblk / 64, 0, (size_t)(n - s->nblk) / 64 * sizeof *m);
    s->nblk = n;
}

/* The pending job a requeued j goes after (NULL: first), j being neither
 * before the head nor after the tail: through the blocks, then the list's
 * own order decides (both loops end at once when records follow
 * arrivals, as they do).  Out of line: arrivals never come here. */
static __attribute__((noinline)) struct gs_job *
pending_between(struct gs_sim *s, const struct gs_job *j)
{
    struct gs_job *after = pending_pred(s, j);
    while (after && pending_later(after, j))
        after = after->prev;
    for (struct gs_job *nx; (nx = after ? after->next : s->phead) != NULL &&
                            !pending_later(nx, j);)
        after = nx;
    return after;
}

/* Insert in arrival order (a requeued job goes back to its place). */
static void pending_insert(struct gs_sim *s, struct gs_job *j)
{
    long b = (long)(j->rec >> PBLK);
    if (b >= s->nblk)
        pending_grow(s, b);
    /* A new arrival goes last: no pending job is later (the common case,
     * in O(1)); into an empty list, or before the head, it goes first (no
     * pending job goes before it then); a requeued one finds its place
     * through the blocks (a scan that stops at the head's block at the
     * latest -- without the head test an arrival into an empty list
     * scanned the bitmap of every block down to the first, O(jobs so
     * far)). */
    struct gs_job *after;
    if (s->phead == NULL || pending_later(s->phead, j))
        after = NULL;
    else if (!pending_later(s->ptail, j))
        after = s->ptail;
    else
        after = pending_between(s, j);
    j->prev = after;
    j->next = after ? after->next : s->phead;
    if (j->next)
        j->next->prev = j;
    else
        s->ptail = j;
    if (after)
        after->next = j;
    else
        s->phead = j;
    s->npending++;
    if (s->plast[b] == NULL || s->plast[b]->rec < j->rec)
        s->plast[b] = j;
    s->pbits[b >> 6] |= 1ULL << (b & 63);
}

static int running_add(struct gs_sim *s, struct gs_job *j)
{
    if (s->nrun == s->caprun) {
        long cap = s->caprun ? s->caprun * 2 : 256;
        struct gs_job **r = realloc(s->run, (size_t)cap * sizeof *r);
        if (r == NULL)
            return GS_ENOMEM;
        s->run = r;
        s->caprun = cap;
    }
    j->rslot = s->nrun;
    s->run[s->nrun++] = j;
    return 0;
}

/* Swap-remove: the last running job takes j's slot. */
static void running_remove(struct gs_sim *s, struct gs_job *j)
{
    GS_ASSERT(j->rslot >= 0 && j->rslot < s->nrun && s->run[j->rslot] == j);
    struct gs_job *last = s->run[--s->nrun];
    s->run[j->rslot] = last;
    last->rslot = j->rslot;
    j->rslot = -1;
}

static double job_total(const struct gs_job *j)
{
    return j->s.work + j->extra;
}

static void job_sync(struct gs_sim *s, struct gs_job *j)
{
    gs_time now = s->eng.now;
    if (j->state == GS_JOB_RUNNING && now > j->mark) {
        j->done += (double)(now - j->mark) * j->rate;
        if (j->done > job_total(j))
            j->done = job_total(j);
    }
    j->mark = now;
}

static gs_time finish_time(const struct gs_sim *s, const struct gs_job *j)
{
    double left = job_total(j) - j->done;
    if (left <= 0)
        return s->eng.now;
    double dt = ceil(left / j->rate - 1e-9);
    if (dt > 9.0e15)
        return GS_TIME_MAX / 2;
    return s->eng.now + (gs_time)dt;
}

/* r->gpus is sim_alloc_gpus(j) as start_job set it: the allocation does not
 * change while the job runs. */
static void account_run(struct gs_sim *s, struct gs_job *j)
{
    struct gs_jobrec *r = &s->rec[j->rec];
    r->gpu_hours += (float)((double)(s->eng.now - j->started) / GS_HOUR *
                            r->gpus);
    for (int i = 0; i < s->nmods; i++)
        if (s->mods[i].ops->job_ran)
            r->cost += s->mods[i].ops->job_ran(s->mods[i].st, j);
    s->last_change = s->eng.now;
}

static void job_recycle(struct gs_sim *s, struct gs_job *j)
{
    gs_alloc_reset(&j->alloc);
    j->next = s->freelist;
    s->freelist = j;
}

/* --- events ------------------------------------------------------------ */

/* Give back j's allocation; the models see it go first. */
static void release(struct gs_sim *s, struct gs_job *j)
{
    MODELS_CALL(s, job_stopping, j);
    gs_fleet_release(s->fleet, &j->alloc, &j->need);
}


/* The job whose finish comes next has usually sat untouched since it
 * started, hours of simulated time and thousands of events ago.  When a
 * finish fires, ask for the next one's struct (its first four lines: struct
 * gs_job's layout) at once, and for its record at the end, when the line
 * holding the record's index has come; those misses then overlap with the
 * work until it fires (the policy's heaps read the same struct) instead of
 * following one another.  A hint only: the event may yet move. */
static void on_finish(struct gs_event *ev, void *ctx);

static const struct gs_job *next_finish(struct gs_sim *s)
{
    struct gs_event *nx = gs_engine_top(&s->eng);
    return nx && nx->fire == on_finish ? (const struct gs_job *)nx : NULL;
}

static void prefetch_job(const struct gs_job *j)
{
    for (int i = 0; i < 4; i++)
        __builtin_prefetch((const char *)j + 64 * i, 1);
}

static void on_finish(struct gs_event *ev, void *ctx)
{
    struct gs_sim *s = ctx;
    struct gs_job *j = (struct gs_job *)ev;
    const struct gs_job *nx = next_finish(s);
    if (nx)
        prefetch_job(nx);
    struct gs_jobrec *r = &s->rec[j->rec];
    j->done = job_total(j);
    if (j->alloc.n > 0)
        release(s, j);
    running_remove(s, j);
    account_run(s, j);
    j->state = GS_JOB_DONE;
    r->state = GS_JOB_DONE;
    r->end = s->eng.now;
    r->sla_deadline = (int8_t)(j->s.deadline > 0 &&
                               r->end > j->s.arrival + j->s.deadline);
    if (j->alloc.n > 0 && s->pol->stopped)
        s->pol->stopped(s->pst, s, j, GS_STOP_DONE);
    MODELS_CALL(s, job_ended, j, GS_STOP_DONE);
    job_recycle(s, j);
    s->dirty = 1;
    if ((nx = next_finish(s)) != NULL)
        __builtin_prefetch(&s->rec[nx->rec], 1);
}

static int sim_alive(const struct gs_sim *s)
{
    if (s->have_next || s->npending > 0 || s->nrun > 0)
        return 1;
    for (int i = 0; i < s->nmods; i++)
        if (s->mods[i].ops->alive && s->mods[i].ops->alive(s->mods[i].st))
            return 1;
    return 0;
}

static void on_tick(struct gs_event *ev, void *ctx)
{
    struct gs_sim *s = ctx;
    if (s->pol->tick)
        s->pol->tick(s->pst, s);
    s->dirty = 1;
    if (sim_alive(s))
        gs_engine_at(&s->eng, ev, s->eng.now + s->pol->tick_ms);
}

/* --- arrival ---------------------------------------------------------- */

/* Fill a job's struct from its spec: zero but for what few jobs have (a
 * MIG profile's name, phases: job.h), which is written only when the job
 * has it -- so a recycled struct's lines that a plain job never reads are
 * not touched. */
static void job_fill(struct gs_job *j, const struct gs_jobspec *sp)
{
    memset(j, 0, offsetof(struct gs_job, mig_profile));
    gs_event_init(&j->fin, on_finish);
    gs_hnode_init(&j->pnode);
    j->alloc.pool = -1;
    j->s = (struct gs_jobkept){ .arrival = sp->arrival, .work = sp->work,
                                .deadline = sp->deadline, .tier = sp->tier,
                                .ref_model = sp->ref_model, .id = sp->id,
                                .estimate = sp->estimate, .cb = sp->cb,
                                .duty = sp->duty,
                                .comm_share = sp->comm_share };
    GS_ASSERT(sp->nphases >= 0 && sp->nphases <= GS_MAX_PHASES);
    j->nphases = sp->nphases;
    for (int i = 0; i < sp->nphases; i++)
        j->phase[i] = sp->phase[i];
    if (sp->mig_profile[0])
        memcpy(j->mig_profile, sp->mig_profile, sizeof j->mig_profile);
    else
        j->mig_profile[0] = '\0';
}

/* A job of spec sp arrives: a job struct (the free list's first, or a
 * new one), filled, admitted (admit.c: record, tenant, host asks, pools)
 * and queued, the policy told.  0, or a negative code with the run failed
 * (gs_sim_fail). */
static int arrive(struct gs_sim *s, const struct gs_jobspec *sp)
{
    gs_sim_settle(s);
    struct gs_job *j = s->freelist;
    if (j)
        s->freelist = j->next;
    else if ((j = malloc(sizeof *j)) == NULL)
        return gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
    job_fill(j, sp);
    int rc = gs_sim_admit(s, j, sp);    /* j freed when it fails */
    if (rc < 0)
        return rc;
    j->state = GS_JOB_PENDING;
    pending_insert(s, j);
    if (s->pol->arrive && !s->offering)
        s->pol->arrive(s->pst, s, j);
    s->dirty = 1;
    return 0;
}

/* --- the policy's calls ------------------------------------------------ */

gs_time gs_sim_now(const struct gs_sim *s) { return s->eng.now; }
const struct gs_fleet *gs_sim_fleet(const struct gs_sim *s) { return s->fleet; }
struct gs_job *gs_sim_pending_head(struct gs_sim *s)
{
    s->look.work += s->phead != NULL;
    return s->phead;
}
struct gs_job *gs_sim_pending_tail(struct gs_sim *s)
{
    s->look.work += s->ptail != NULL;
    return s->ptail;
}
struct gs_job *gs_sim_backlog_head(const struct gs_sim *s) { return s->phead; }
long gs_sim_nrunning(const struct gs_sim *s) { return s->nrun; }
struct gs_job *gs_sim_running_at(struct gs_sim *s, long i)
{
    s->look.work++;
    return s->run[i];
}
long gs_sim_npending(const struct gs_sim *s) { return s->npending; }
int gs_sim_ntenants(const struct gs_sim *s) { return s->ntn; }
const char *gs_sim_tenant_name(const struct gs_sim *s, int t)
{
    return t >= 0 && t < s->ntn ? s->tnames[t] : "?";
}

struct gs_job *const *gs_sim_running(const struct gs_sim *s, long *n)
{
    *n = s->nrun;
    return s->run;
}

const struct gs_tenant *gs_sim_tenant(const struct gs_sim *s, int tenant)
{
    const char *name = gs_sim_tenant_name(s, tenant);
    for (int i = 0; i < s->sc->ntenants; i++)
        if (strcmp(s->sc->tenants[i].name, name) == 0)
            return &s->sc->tenants[i];
    return NULL;
}

gs_time gs_sim_runtime_on(const struct gs_sim *s, const struct gs_job *j,
                          int model)
{
    double f = gs_need_host_only(&j->need)
                   ? 1.0 : gs_catalog_time_factor(&s->sc->cat, j->s.ref_model,
                                                  model, j->s.cb);
    return (gs_time)ceil((job_total(j) - j->done) * f);
}

/* The minimum over pools of gs_sim_runtime_on: ceil is monotone, so it is
 * the runtime at the least factor, exactly. */
gs_time gs_sim_estimate(const struct gs_sim *s, const struct gs_job *j)
{
    (void)s;
    if (j->s.estimate > 0) {
        gs_time e = j->s.estimate - (gs_time)j->done;
        return e > 0 ? e : 0;
    }
    if (j->efactor < 0)
        return GS_TIME_MAX;
    return (gs_time)ceil((job_total(j) - j->done) * j->efactor);
}

static void on_fleet_change(void *arg, const struct gs_fleet *f, int node,
                            const struct gs_need *need, int sign)
{
    (void)f;
    (void)need;
    struct gs_sim *s = arg;
    if (sign <= 0) {
        s->epoch++;
        gs_rwatch_release(s->rw, node, s->epoch);
    }
}

uint64_t gs_sim_work(const struct gs_sim *s) { return s->look.work; }
uint64_t gs_sim_epoch(const struct gs_sim *s) { return s->epoch; }

/* Topology (docs/sharing.md, "Topology").  A gang of g whole GPUs on a
 * pool of gpn GPUs a node needs kmin = ceil(g / gpn) nodes; placed on
 * k > kmin, it runs slower by the factor
 *     F = 1 + p * (h(k) - h(kmin)),  h(k) = k if k >= 2 else 0,
 * h being the hops of its all-reduce ring that cross the network (a ring
 * over k nodes crosses k node boundaries, one over a single node none).
 * p, the slowdown per network hop, is $.topology.per_hop_slowdown when
 * given, else derived from the job's communication share c (its share of
 * time in all-reduce when consolidated) and the bandwidths: a hop moves
 * 1/g of the ring's traffic, at the GPU's NVLink rate B_nvl (the catalog's
 * all-reduce bandwidth per GPU) inside a node and at the node's network
 * rate shared by its GPUs, B_net = network_gbps / 8 / gpn GB/s, between
 * nodes, so turning one NVLink hop into a network hop multiplies 1/g of
 * the communication time by B_nvl / B_net:
 *     p = c * (B_nvl / B_net - 1) / g     (0 when the network is faster).
 * Jobs without gangs (one GPU, fractions, CPU-only) and gangs on as few
 * nodes as they need run at full speed. */
static __attribute__((noinline)) double
gang_factor(const struct gs_sim *s, const struct gs_job *j)
{
    int g = j->need.gpus, k = j->alloc.n;
    const struct gs_pool_spec *ps = &s->fleet->pools[j->alloc.pool].s;
    int kmin = (g + ps->gpn - 1) / ps->gpn;
    int hk = k, hmin = kmin >= 2 ? kmin : 0;
    if (hk <= hmin)
        return 1.0;
    double p = s->sc->topo.per_hop;
    if (p < 0) {
        double c = j->s.comm_share >= 0 ? j->s.comm_share
                                        : s->sc->topo.comm_share;
        double nvl = s->sc->cat.llm[ps->model].link_gbs;
        double net = gs_pool_net(&s->sc->cat, ps) / 8.0 / ps->gpn;
        p = net > 0 && nvl > net ? c * (nvl / net - 1.0) / g : 0.0;
    }
    return 1.0 + p * (double)(hk - hmin);
}

/* The factor above; a job on one node (most) needs no look at its gang. */
static inline double topo_factor(const struct gs_sim *s,
                                 const struct gs_job *j)
{
    if (j->need.gpus < 2 || j->alloc.n < 2 || j->alloc.pool < 0)
        return 1.0;
    return gang_factor(s, j);
}

/* Start j on a.  checked: gs_sim_place has just found a free to take for
 * j (nothing changed the fleet since), so the check of a plug-in's
 * allocation is not made twice; an allocation a policy built itself is
 * always checked. */
static int start_job(struct gs_sim *s, struct gs_job *j, struct gs_alloc *a,
                     int checked)
{
    if (j->state != GS_JOB_PENDING)
        return GS_ESTATE;
    if ((!checked && !gs_fleet_can_commit(s->fleet, a, &j->need)) ||
        !sim_pool_ok(s, a->pool, j))
        return GS_ENOFIT;
    gs_sim_settle(s);
    if (running_add(s, j) < 0)
        return gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
    gs_fleet_commit(s->fleet, a, &j->need);
    j->alloc = *a;              /* take over the parts */
    a->n = 0;
    a->many = NULL;
    a->pool = -1;
    pending_remove(s, j);
    j->state = GS_JOB_RUNNING;
    j->model = s->fleet->pools[j->alloc.pool].s.model;
    j->rate = gs_need_host_only(&j->need)
                  ? 1.0 : 1.0 / (gs_sim_pool_factor(s, j, j->alloc.pool) *
                                 topo_factor(s, j));
    j->mark = j->started = s->eng.now;
    gs_time end = finish_time(s, j);
    j->est_end = s->eng.now + gs_sim_estimate(s, j);
    if (j->s.estimate <= 0)
        j->est_end = end;
    struct gs_jobrec *r = &s->rec[j->rec];
    if (r->start < 0)
        r->start = s->eng.now;
    r->state = GS_JOB_RUNNING;
    r->model = gs_need_host_only(&j->need) ? -1 : j->model;
    r->gpus = sim_alloc_gpus(j);
    if (gs_engine_at(&s->eng, &j->fin, end) < 0)
        return gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
    s->last_change = s->eng.now;
    MODELS_CALL(s, job_started, j);
    return 0;
}

int gs_sim_start(struct gs_sim *s, struct gs_job *j, struct gs_alloc *a)
{
    return start_job(s, j, a, 0);
}

int gs_sim_try_start(struct gs_sim *s, struct gs_job *j,
                     const struct gs_range *ranges, int nranges)
{
    struct gs_alloc a = { .pool = -1 };
    int rc = gs_sim_place(s, j, ranges, nranges, &a);
    if (rc < 0)
        return rc;
    rc = start_job(s, j, &a, 1);
    gs_alloc_reset(&a);
    return rc;
}

/* Stop running job j and requeue it, keeping work up to its checkpoint. */
static void requeue(struct gs_sim *s, struct gs_job *j, int why)
{
    gs_sim_settle(s);
    job_sync(s, j);
    double kept = j->ckpt > 0 ? floor(j->done / (double)j->ckpt) *
                                (double)j->ckpt : 0.0;
    if (j->saved > kept)
        kept = j->saved;
    struct gs_jobrec *r = &s->rec[j->rec];
    if (s->redo == NULL)
        GS_OOM_IF(gs_sim_side_grow((void **)&s->redo, sizeof *s->redo, 0,
                                   s->caprec) < 0);
    struct gs_jobredo *rd = &s->redo[j->rec];
    if (j->done > kept) {
        /* wall time the lost work took, at the speed it ran */
        double rate = j->rate > 0 ? j->rate
                      : 1.0 / gs_catalog_time_factor(&s->sc->cat,
                                                     j->s.ref_model, j->model,
                                                     j->s.cb);
        rd->lost_gpu_hours += (float)((j->done - kept) / rate / GS_HOUR *
                                      sim_alloc_gpus(j));
    }
    j->done = kept;
    j->extra += (double)s->sc->tiers[j->s.tier].restart;
    gs_engine_cancel(&s->eng, &j->fin);
    release(s, j);
    running_remove(s, j);
    account_run(s, j);
    gs_alloc_reset(&j->alloc);
    j->state = GS_JOB_PENDING;
    j->rate = 0;
    j->npreempt++;
    rd->preemptions++;
    s->npreempt++;
    r->state = GS_JOB_PENDING;
    pending_insert(s, j);
    if (s->pol->stopped)
        s->pol->stopped(s->pst, s, j, why);
    MODELS_CALL(s, job_ended, j, why);
    if (s->pol->arrive)
        s->pol->arrive(s->pst, s, j);
    s->dirty = 1;
}

int gs_sim_preempt(struct gs_sim *s, struct gs_job *j)
{
    if (j->state != GS_JOB_RUNNING || !j->preemptible || j->alloc.n == 0)
        return GS_ESTATE;
    requeue(s, j, GS_STOP_PREEMPTED);
    return 0;
}

int gs_sim_interrupt(struct gs_sim *s, struct gs_job *j, int why)
{
    if (j->state != GS_JOB_RUNNING || j->alloc.n == 0)
        return GS_ESTATE;
    requeue(s, j, why);
    return 0;
}

int gs_sim_checkpoint(struct gs_sim *s, struct gs_job *j)
{
    if (j->state != GS_JOB_RUNNING || j->ckpt <= 0)
        return GS_ESTATE;
    job_sync(s, j);
    j->saved = j->done;
    return 0;
}

void gs_sim_spot_notice(struct gs_sim *s, int node, gs_time at)
{
    if (s->pol->spot_notice) {
        s->pol->spot_notice(s->pst, s, node, at);
        return;
    }
    /* The default: whatever can checkpoint does, and runs on. */
    for (long i = 0; i < s->nrun; i++)
        if (s->run[i]->ckpt > 0 && gs_alloc_part_on(&s->run[i]->alloc, node))
            gs_sim_checkpoint(s, s->run[i]);
}

void gs_sim_wake(struct gs_sim *s)
{
    s->dirty = 1;
}

int gs_sim_pool_ok(const struct gs_sim *s, int pool, const struct gs_job *j)
{
    return sim_pool_ok(s, pool, j);
}

void gs_sim_pool_nodes(const struct gs_sim *s, int pool, double *mean,
                       double *peak)
{
    *mean = *peak = 0;
    for (int i = 0; i < s->nmods; i++)
        if (s->mods[i].ops->pool_nodes) {
            s->mods[i].ops->pool_nodes(s->mods[i].st, pool, mean, peak);
            return;
        }
}

void *gs_sim_model(const struct gs_sim *s, const struct gs_model_ops *ops)
{
    for (int i = 0; i < s->nmods; i++)
        if (s->mods[i].ops == ops)
            return s->mods[i].st;
    return NULL;
}

void *gs_sim_model_named(const struct gs_sim *s, const char *name)
{
    for (int i = 0; i < s->nmods; i++)
        if (strcmp(s->mods[i].ops->name, name) == 0)
            return s->mods[i].st;
    return NULL;
}

int gs_sim_set_rate(struct gs_sim *s, struct gs_job *j, double rate)
{
    if (j->state != GS_JOB_RUNNING || !(rate >= 0))
        return GS_ESTATE;
    gs_sim_settle(s);
    job_sync(s, j);
    j->rate = rate;
    if (rate == 0) {
        gs_engine_cancel(&s->eng, &j->fin);
        return 0;
    }
    return gs_engine_at(&s->eng, &j->fin, finish_time(s, j)) < 0
               ? gs_sim_fail(s, GS_ENOMEM, "", "out of memory") : 0;
}

int gs_sim_at(struct gs_sim *s, struct gs_event *ev, gs_time t)
{
    return gs_engine_at(&s->eng, ev, t);
}

void gs_sim_cancel(struct gs_sim *s, struct gs_event *ev)
{
    gs_engine_cancel(&s->eng, ev);
}

int gs_sim_kill(struct gs_sim *s, struct gs_job *j, int reason)
{
    gs_sim_settle(s);
    struct gs_jobrec *r = &s->rec[j->rec];
    if (j->state == GS_JOB_PENDING) {
        pending_remove(s, j);
        if (s->pol->stopped && !s->offering)
            s->pol->stopped(s->pst, s, j, GS_STOP_KILLED);
    } else if (j->state == GS_JOB_RUNNING) {
        job_sync(s, j);
        gs_engine_cancel(&s->eng, &j->fin);
        if (j->alloc.n > 0)
            release(s, j);
        running_remove(s, j);
        account_run(s, j);
        if (s->pol->stopped)
            s->pol->stopped(s->pst, s, j, GS_STOP_KILLED);
    } else {
        return GS_ESTATE;
    }
    j->state = GS_JOB_KILLED;
    r->state = GS_JOB_KILLED;
    r->kill = (int8_t)reason;
    r->end = s->eng.now;
    r->sla_deadline = (int8_t)(j->s.deadline > 0);
    MODELS_CALL(s, job_ended, j, GS_STOP_KILLED);
    job_recycle(s, j);
    s->dirty = 1;
    return 0;
}

int gs_sim_submit(struct gs_sim *s, const struct gs_jobspec *sp, void *owner,
                  struct gs_job **out)
{
    *out = NULL;
    struct gs_job probe;
    memset(&probe, 0, sizeof probe);
    job_fill(&probe, sp);
    probe.need = (struct gs_need){ .gpus = sp->gpus,
                                   .milli = sp->gpus > 0 ? 0 : sp->milli,
                                   .mem_gb = sp->mem_gb,
                                   .allowed = sp->allowed,
                                   .tolerates = sp->tolerates,
                                   .profile = sp->mig_profile[0]
                                                  ? sp->mig_profile : NULL };
    if ((sp->gpus == 0 && sp->milli == 0) || !gs_sim_any_pool_fits(s, &probe))
        return GS_EINVAL;
    long before = s->nrec;
    int rc = arrive(s, sp);
    if (rc < 0)
        return rc;
    GS_ASSERT(s->nrec == before + 1 && s->ptail != NULL &&
              s->ptail->rec == (uint32_t)before);
    s->ptail->owner = owner;
    *out = s->ptail;
    return 0;
}

int gs_sim_complete(struct gs_sim *s, struct gs_job *j)
{
    if (j->state == GS_JOB_PENDING)
        return gs_sim_kill(s, j, GS_KILL_WITHDRAWN);
    if (j->state != GS_JOB_RUNNING)
        return GS_ESTATE;
    gs_sim_settle(s);
    gs_engine_cancel(&s->eng, &j->fin);
    on_finish(&j->fin, s);
    return 0;
}

int gs_sim_offer(struct gs_sim *s, const struct gs_jobspec *sp, int *placed,
                 struct gs_diag *d)
{
    *placed = 0;
    struct gs_need need = { .gpus = sp->gpus,
                            .milli = sp->gpus > 0 ? 0 : sp->milli,
                            .mem_gb = sp->mem_gb, .allowed = sp->allowed,
                            .tolerates = sp->tolerates,
                            .profile = sp->mig_profile[0] ? sp->mig_profile
                                                          : NULL,
                            .guar = sp->guar_milli, .burst = sp->burst_milli,
                            .cpu_milli = sp->cpu_milli,
                            .mem_mib = sp->mem_mib };
    struct gs_job probe;
    memset(&probe, 0, sizeof probe);
    job_fill(&probe, sp);
    probe.need = need;
    if ((sp->gpus == 0 && sp->milli == 0) || !gs_sim_any_pool_fits(s, &probe))
        return 0;
    s->offering = 1;
    int rc = arrive(s, sp);
    struct gs_job *j = s->ptail;
    if (rc == 0) {
        rc = gs_sim_try_start(s, j, NULL, 0);
        if (rc == 0)
            *placed = 1;
        else if (rc == GS_ENOFIT)
            rc = gs_sim_kill(s, j, GS_KILL_UNPLACEABLE);
    }
    s->offering = 0;
    if (s->err) {
        gs_diag_set(d, s->errd.code, s->errd.where, "%s", s->errd.what);
        return s->err;
    }
    return rc < 0 ? gs_diag_set(d, rc, "", "%s", gs_strerror(rc)) : 0;
}

/* --- building and running ------------------------------------------------ */

/* The entry of a NULL-terminated table of ops whose name (a const char *
 * at offset off) is name: a policy or placer of the env's tables; NULL if
 * none. */
static const void *find_named(const void *const *table, size_t off,
                              const char *name)
{
    for (int i = 0; table[i]; i++)
        if (strcmp(*(const char *const *)((const char *)table[i] + off),
                   name) == 0)
            return table[i];
    return NULL;
}

static int copy_params(struct gs_params *dst, const struct gs_params *src)
{
    gs_params_free(dst);
    gs_params_init(dst, src->where);
    for (int i = 0; i < src->n; i++) {
        int rc = src->v[i].is_num
                     ? gs_params_add_num(dst, src->v[i].key, src->v[i].num)
                     : gs_params_add_str(dst, src->v[i].key, src->v[i].str);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gs_sim_build(const struct gs_sim_env *env, const struct gs_scenario *sc,
                 const struct gs_sim_opts *o, struct gs_sim **out,
                 struct gs_diag *d)
{
    static const struct gs_sim_opts none;
    if (o == NULL)
        o = &none;
    *out = NULL;
    if (gs_models_install(env->models) < 0)
        return gs_diag_set(d, GS_EINVAL, "",
                           "another table of built-in models is installed");
    struct gs_sim *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    s->sc = sc;
    s->env = env;
    s->seed = o->set_seed ? o->seed : sc->seed;
    s->status = o->status;
    s->status_ctx = o->status_ctx;
    s->host_pairs = o->host_pairs > 0 && o->host_pairs < GS_JOBREC_HOSTS
                        ? o->host_pairs : GS_JOBREC_HOSTS;
    s->bill_until = o->bill_until > 0 ? o->bill_until : sc->bill_until;
    if (gs_engine_init(&s->eng, s, sc->queue) < 0) {
        free(s);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    gs_event_init(&s->tick, on_tick);
    gs_params_init(&s->pparams, "");
    gs_params_init(&s->lparams, "");
    int rc;
    s->fleet = gs_fleet_new(&sc->cat, sc->pools, sc->npools);
    s->ranges = malloc((size_t)(sc->npools + 1) * sizeof *s->ranges);
    s->shapes = gs_sim_shapes_new();
    if (s->fleet == NULL || s->ranges == NULL || s->shapes == NULL) {
        rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        goto fail;
    }
    struct gs_shape *shapes = NULL;
    int nshapes = 0;
    if (env->workload->shapes(sc, s->seed, &shapes, &nshapes) < 0 ||
        gs_frag_new(s->fleet, shapes, nshapes, &s->frag) < 0) {
        free(shapes);
        rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        goto fail;
    }
    free(shapes);
    s->epoch = 1;
    if (gs_fleet_watch(s->fleet, on_fleet_change, s) < 0) {
        rc = gs_diag_set(d, GS_ENOMEM, "", "too many fleet watchers");
        goto fail;
    }

    const char *pname = o->policy ? o->policy : sc->policy;
    s->pol = o->policy_ops ? o->policy_ops
                           : find_named((const void *const *)env->policies,
                                        offsetof(struct gs_policy_ops, name),
                                        pname);
    if (s->pol == NULL) {
        char list[512], hint[128];
        gs_names_join(list, sizeof list, (const void *const *)env->policies,
                      offsetof(struct gs_policy_ops, name));
        gs_names_suggest(pname, (const void *const *)env->policies,
                         offsetof(struct gs_policy_ops, name), hint,
                         sizeof hint);
        rc = gs_diag_set_at(d, GS_ENOTFOUND, o->policy ? gs_strf("--policy")
                            : gs_strf("%s: $.policy", sc->file),
                            "unknown policy '%s'%s (known: %s)", pname, hint,
                            list);
        goto fail;
    }
    if (s->pol->abi != GS_POLICY_ABI) {
        rc = gs_diag_set(d, GS_EABI, s->pol->name,
                         "policy ABI version %d, this gpusim expects %d",
                         s->pol->abi, GS_POLICY_ABI);
        goto fail;
    }
    const char *lname = o->placer ? o->placer : sc->placer;
    s->plc = find_named((const void *const *)env->placers,
                        offsetof(struct gs_placer_ops, name), lname);
    if (s->plc == NULL) {
        char list[512], hint[128];
        gs_names_join(list, sizeof list, (const void *const *)env->placers,
                      offsetof(struct gs_placer_ops, name));
        gs_names_suggest(lname, (const void *const *)env->placers,
                         offsetof(struct gs_placer_ops, name), hint,
                         sizeof hint);
        rc = gs_diag_set_at(d, GS_ENOTFOUND, o->placer
                            ? gs_strf("--placement")
                            : gs_strf("%s: $.placement", sc->file),
                            "unknown placement '%s'%s (known: %s)", lname,
                            hint, list);
        goto fail;
    }
    /* Parameters written for the scenario's policy do not apply to another
     * one chosen on the command line. */
    int same = o->policy_ops == NULL && strcmp(s->pol->name, sc->policy) == 0;
    if (same && (rc = copy_params(&s->pparams, &sc->policy_params)) < 0)
        goto nomem;
    if (strcmp(s->plc->name, sc->placer) == 0 &&
        (rc = copy_params(&s->lparams, &sc->placer_params)) < 0)
        goto nomem;
    s->memo_ok = gs_sim_misses_repeat(s);
    if (s->pol->init && (rc = s->pol->init(s, &s->pparams, &s->pst, d)) < 0)
        goto fail;
    if ((rc = gs_params_check_used(&s->pparams, d)) < 0)
        goto fail;
    if (s->plc->init && (rc = s->plc->init(s, &s->lparams, &s->plst, d)) < 0)
        goto fail;
    if ((rc = gs_params_check_used(&s->lparams, d)) < 0)
        goto fail;
    if ((rc = gs_metrics_init(&s->m, s->fleet, sc->step)) < 0)
        goto nomem;
    s->m.frag = s->frag;
    for (int i = 0; gs_model_at(i); i++) {
        const struct gs_model_ops *mo = gs_model_at(i);
        void *st = NULL;
        GS_ASSERT(s->nmods < GS_MAXMODELS);
        if ((rc = mo->build(s, sc, s->fleet, &s->m, s->seed, &st, d)) < 0) {
            if (st && mo->free)
                mo->free(st);
            goto fail;
        }
        if (st == NULL)
            continue;
        s->mods[s->nmods++] = (struct simmod){ mo, st };
        if (mo->pool_ok)
            s->veto[s->nveto++] = (struct simmod){ mo, st };
        if (mo->advance) {
            s->adv[s->nadv++] = (struct simmod){ mo, st };
            if (mo->still && mo->still(st))
                s->lazy[s->nlazy++] = (struct simmod){ mo, st };
            else
                s->eager[s->neager++] = (struct simmod){ mo, st };
            if (mo->still && !mo->still(st))
                s->no_wait = 1;     /* the metrics read its rates */
        }
        if (mo->job_energy)
            s->jen[s->njen++] = (struct simmod){ mo, st };
    }
    if ((rc = env->workload->open(sc, s->seed, &s->src, d)) < 0)
        goto fail;
    *out = s;
    return 0;
nomem:
    rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
fail:
    gs_sim_free(s);
    return rc;
}

void gs_sim_free(struct gs_sim *s)
{
    if (s == NULL)
        return;
    if (s->pol && s->pol->free && s->pst)
        s->pol->free(s->pst);
    if (s->plc && s->plc->free && s->plst)
        s->plc->free(s->plst);
    if (s->env && s->src)
        s->env->workload->close(s->src);
    /* The queue holds events embedded in jobs: clear it before freeing them. */
    gs_engine_free(&s->eng);
    gs_frag_free(s->frag);
    gs_rwatch_free(s->rw);
    for (struct gs_job *j = s->phead, *n; j; j = n) {
        n = j->next;
        gs_alloc_reset(&j->alloc);
        free(j);
    }
    for (long i = 0; i < s->nrun; i++) {
        gs_alloc_reset(&s->run[i]->alloc);
        free(s->run[i]);
    }
    for (struct gs_job *j = s->freelist, *n; j; j = n) {
        n = j->next;
        free(j);
    }
    free(s->plast);
    free(s->pbits);
    /* After the queue: models hold events in their states. */
    for (int i = s->nmods - 1; i >= 0; i--)
        if (s->mods[i].ops->free)
            s->mods[i].ops->free(s->mods[i].st);
    gs_fleet_free(s->fleet);
    gs_metrics_free(&s->m);
    gs_params_free(&s->pparams);
    gs_params_free(&s->lparams);
    gs_diag_free(&s->errd);
    free(s->run);
    gs_big_free(s->rec, (size_t)s->caprec * sizeof *s->rec);
    gs_big_free(s->host, (size_t)s->caprec * sizeof *s->host);
    gs_big_free(s->redo, (size_t)s->caprec * sizeof *s->redo);
    gs_big_free(s->energy, (size_t)s->caprec * sizeof *s->energy);
    free(s->hostv);
    free(s->hh);
    free(s->tnames);
    free(s->thash);
    free(s->tkey);
    free(s->shapes);
    free(s->ranges);
    free(s->still);
    free(s);
}

static int pull(struct gs_sim *s, struct gs_diag *d)
{
    int rc = s->env->workload->next(s->src, &s->next, d);
    if (rc < 0)
        return rc;
    s->have_next = rc;
    return 0;
}

/* Close the books at time end: what still waits or runs is unfinished. */
static GS_COLD void close_books(struct gs_sim *s, gs_time end)
{
    s->eng.now = end;
    for (struct gs_job *j = s->phead; j; j = j->next) {
        s->rec[j->rec].state = GS_JOB_UNFINISHED;
        s->rec[j->rec].sla_deadline = (int8_t)(j->s.deadline > 0 &&
                                       end > j->s.arrival + j->s.deadline);
    }
    for (long i = 0; i < s->nrun; i++) {
        struct gs_job *j = s->run[i];
        account_run(s, j);
        s->rec[j->rec].state = GS_JOB_UNFINISHED;
        s->rec[j->rec].sla_deadline = (int8_t)(j->s.deadline > 0 &&
                                       end > j->s.arrival + j->s.deadline);
    }
}

/* Tell the progress hook how far the run has got: the share of the
 * horizon, or of a generated workload's jobs (ended) or span, when one is
 * known. */
static GS_COLD void report_status(const struct gs_sim *s, gs_time t,
                                  gs_time horizon)
{
    const struct gs_scenario *sc = s->sc;
    struct gs_sim_status st = {
        .sim_h = t > s->t0 ? (double)(t - s->t0) / GS_HOUR : 0, .frac = -1,
        .jobs_ended = s->nrec - s->npending - s->nrun,
        .pending = s->npending, .running = s->nrun,
    };
    if (t < s->t0)
        st.frac = 0;        /* a service's events before the first job */
    else if (horizon != GS_TIME_MAX && horizon > s->t0)
        st.frac = (double)(t - s->t0) / (double)(horizon - s->t0);
    else if (sc->wl_kind == GS_WL_GENERATE && sc->gen.jobs > 0)
        st.frac = (double)st.jobs_ended / (double)sc->gen.jobs;
    else if (sc->wl_kind == GS_WL_GENERATE && sc->gen.until > 0)
        st.frac = (double)(t - s->t0) / (double)sc->gen.until;
    if (st.frac > 0.999)
        st.frac = 0.999;
    s->status(s->status_ctx, &st);
}

/* The loop's stop for want of anything to do at t, with no horizon (see
 * gs_sim_run): nothing is alive, or nothing has started or ended for
 * GS_STALL and no arrival is left. */
static int sim_stalls(const struct gs_sim *s, gs_time t)
{
    return !sim_alive(s) || (!s->have_next && t - s->last_change > GS_STALL);
}

/* Move the clock to t: every model's integrals, then the metrics'; for
 * a still event alone (still), only the eager models' (still.c). */
static int move_clock(struct gs_sim *s, gs_time t, int still)
{
    if (still && !s->no_wait) {
        for (int i = 0; i < s->neager; i++)
            s->eager[i].ops->advance(s->eager[i].st, t);
        s->waiting = 1;
        s->eng.now = t;
        return 0;
    }
    s->waiting = 0;
    for (int i = 0; i < s->nadv; i++)
        s->adv[i].ops->advance(s->adv[i].st, t);
    int rc = gs_metrics_advance(&s->m, s->fleet, s->npending, s->nrun, t);
    s->eng.now = t;
    return rc;
}

int gs_sim_move_clock(struct gs_sim *s, gs_time t)
{
    /* what the loop does for a wake-up at t holding the caller's event
     * alone: no other event at or before t (the caller's would be filed
     * after any at t), no arrival, no pass pending now, within the
     * horizon, and not a point where the loop stops or extends the run */
    if (s->no_move || t <= s->eng.now || s->err || s->dirty ||
        t > s->horizon ||
        gs_engine_next_time(&s->eng) <= t ||
        (s->have_next && s->next.arrival <= t) ||
        (s->horizon == GS_TIME_MAX && sim_stalls(s, t)))
        return 0;
    if (move_clock(s, t, gs_sim_is_still(s, s->firing)) < 0) {
        gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
        return 0;
    }
    s->eng.fired++;             /* the caller's event, as if it had fired */
    if (s->status && (++s->steps & 0xfff) == 0)
        report_status(s, t, s->horizon);
    return 1;
}

void gs_sim_set_move_clock(struct gs_sim *s, int on) { s->no_move = !on; }

int gs_sim_run(struct gs_sim *s, struct gs_diag *d)
{
    int rc = pull(s, d);
    if (rc < 0)
        return rc;
    /* Models may have scheduled events before the first arrival (a service
     * opening), or be all there is. */
    gs_time first = gs_engine_next_time(&s->eng);
    int started = s->have_next || first != GS_TIME_MAX;
    if (started) {
        s->t0 = s->have_next ? s->next.arrival : first;
        s->eng.now = s->last_change = first < s->t0 ? first : s->t0;
        s->start = s->eng.now;
        for (int i = 0; i < s->nmods; i++)
            if (s->mods[i].ops->start &&
                (rc = s->mods[i].ops->start(s->mods[i].st, s->eng.now)) < 0)
                return gs_diag_set(d, rc, "", "out of memory");
    }
    gs_time horizon = s->sc->horizon > 0 ? s->t0 + s->sc->horizon
                                         : GS_TIME_MAX;
    s->horizon = horizon;
    if (s->pol->tick_ms > 0 && started)
        gs_engine_at(&s->eng, &s->tick, s->t0 + s->pol->tick_ms);
    for (;;) {
        gs_time te = gs_engine_next_time(&s->eng);
        gs_time ta = s->have_next ? s->next.arrival : GS_TIME_MAX;
        gs_time t = te < ta ? te : ta;
        if (t == GS_TIME_MAX || t > horizon)
            break;
        if (s->pol->tick_ms > 0 && te == t && !sim_alive(s) &&
            gs_engine_top(&s->eng) == &s->tick)
            break;      /* only the tick is left */
        /* Without a horizon the run ends with its last job; the models'
         * processes (spot, failures) would otherwise go on for ever.  Under
         * bill_until a run that is done sooner goes on until then, as if
         * that were its horizon: the fleet is billed and the models act
         * (an autoscaler may shrink it) over the same window for every
         * policy. */
        if (horizon == GS_TIME_MAX && sim_stalls(s, t)) {
            if (s->bill_until > 0 && t <= s->start + s->bill_until)
                s->horizon = horizon = s->start + s->bill_until;
            else
                break;
        }
        /* a move for still events alone leaves the integrals waiting
         * (settle cuts them before anything else) */
        int still = te == t && !(s->have_next && s->next.arrival == t) &&
                    gs_sim_is_still(s, gs_engine_top(&s->eng));
        if ((rc = move_clock(s, t, still)) < 0)
            return gs_diag_set(d, rc, "", "out of memory");
        while (gs_engine_next_time(&s->eng) == t && !s->err) {
            s->firing = gs_engine_top(&s->eng);
            if (s->waiting && !gs_sim_is_still(s, s->firing))
                gs_sim_settle(s);
            gs_engine_step(&s->eng);
        }
        s->firing = NULL;
        while (s->have_next && s->next.arrival == t && !s->err) {
            if (arrive(s, &s->next) < 0)
                break;
            if ((rc = pull(s, d)) < 0)
                return rc;
        }
        if (s->dirty && !s->err) {
            gs_sim_settle(s);
            s->dirty = 0;
            s->pol->schedule(s->pst, s);
            for (int i = 0; i < s->nmods; i++)
                if (s->mods[i].ops->after_schedule)
                    s->mods[i].ops->after_schedule(s->mods[i].st);
        }
        if (s->err)
            break;
        if (s->status && (++s->steps & 0xfff) == 0)
            report_status(s, s->eng.now, horizon);
    }
    if (s->err) {
        gs_diag_set(d, s->errd.code, s->errd.where, "%s", s->errd.what);
        return s->err;
    }
    gs_time end = horizon != GS_TIME_MAX ? horizon : s->eng.now;
    if (started && s->bill_until > 0 && end < s->start + s->bill_until)
        end = s->start + s->bill_until;     /* nothing was left to happen */
    s->waiting = 0;         /* every integral is cut at the end */
    MODELS_CALL(s, advance, end);
    if ((rc = gs_metrics_advance(&s->m, s->fleet, s->npending, s->nrun,
                                 end)) < 0)
        return gs_diag_set(d, rc, "", "out of memory");
    close_books(s, end);
    MODELS_CALL(s, close, end);
    gs_metrics_summarize(&s->m, s->fleet, s->sc, s->rec, s->nrec, &s->sum);
    s->sum.preemptions = s->npreempt;
    MODELS_CALL(s, summarize, &s->sum);
    for (int i = 0; i < s->nmods; i++)
        if (s->mods[i].ops->values)
            s->mods[i].ops->values(s->mods[i].st, s->sum.mx +
                                   gs_summary_model_base(s->mods[i].ops));
    s->sum.policy_work = s->look.work;
    return 0;
}

const struct gs_summary *gs_sim_summary(const struct gs_sim *s) { return &s->sum; }
struct gs_frag *gs_sim_frag(struct gs_sim *s) { return s->frag; }
const struct gs_metrics *gs_sim_metrics(const struct gs_sim *s) { return &s->m; }
const struct gs_scenario *gs_sim_scenario(const struct gs_sim *s) { return s->sc; }
const char *gs_sim_policy_name(const struct gs_sim *s) { return s->pol->name; }
const char *gs_sim_placer_name(const struct gs_sim *s) { return s->plc->name; }
uint64_t gs_sim_seed(const struct gs_sim *s) { return s->seed; }
uint64_t gs_sim_events(const struct gs_sim *s) { return s->eng.fired; }

const struct gs_jobrec *gs_sim_records(const struct gs_sim *s, long *n)
{
    *n = s->nrec;
    return s->rec;
}

struct gs_jobhost gs_sim_record_host(const struct gs_sim *s, long i)
{
    GS_ASSERT(i >= 0 && i < s->nrec);
    if (s->host)
        return s->host[i];
    unsigned k = s->rec[i].host;
    return k ? s->hostv[k] : (struct gs_jobhost){ 0, 0 };
}

double gs_sim_record_lost(const struct gs_sim *s, long i)
{
    GS_ASSERT(i >= 0 && i < s->nrec);
    return s->redo ? s->redo[i].lost_gpu_hours : 0.0;
}

int gs_sim_record_preemptions(const struct gs_sim *s, long i)
{
    GS_ASSERT(i >= 0 && i < s->nrec);
    return s->redo ? s->redo[i].preemptions : 0;
}

void gs_sim_job_energy(struct gs_sim *s, struct gs_job *j, double joules,
                       double from_s, double to_s)
{
    for (int i = 0; i < s->njen; i++)
        s->jen[i].ops->job_energy(s->jen[i].st, j, joules, from_s, to_s);
}

void gs_sim_record_add_energy(struct gs_sim *s, long i, double kwh,
                              double gco2)
{
    GS_ASSERT(i >= 0 && i < s->nrec);
    if (s->energy == NULL)
        GS_OOM_IF(gs_sim_side_grow((void **)&s->energy, sizeof *s->energy, 0,
                                   s->caprec) < 0);
    s->energy[i].kwh = (float)(s->energy[i].kwh + kwh);
    s->energy[i].gco2 = (float)(s->energy[i].gco2 + gco2);
}

struct gs_jobenergy gs_sim_record_energy(const struct gs_sim *s, long i)
{
    GS_ASSERT(i >= 0 && i < s->nrec);
    return s->energy ? s->energy[i] : (struct gs_jobenergy){ 0, 0 };
}

size_t gs_sim_record_bytes(const struct gs_sim *s)
{
    return (size_t)s->nrec * (sizeof *s->rec +
                              (s->host ? sizeof *s->host : 0) +
                              (s->redo ? sizeof *s->redo : 0) +
                              (s->energy ? sizeof *s->energy : 0)) +
           (size_t)s->caphostv * sizeof *s->hostv +
           (size_t)s->hhcap * sizeof *s->hh;
}
