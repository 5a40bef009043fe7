/* rllite.c -- a small learned scoring policy whose weights the simulator
 * trains (`gpusim train`, sim/studies/train.c).
 *
 * At each pass every pending job (the oldest `depth`) gets a feature vector
 * phi(job, cluster state) and the score w . phi; jobs start greedily in
 * score order wherever they fit.  The model is linear on purpose: eight
 * weights are few enough for the cross-entropy method to fit with a few
 * hundred simulations, and readable -- a negative weight on log_runtime is
 * "shortest first", a positive one on urgency is "do not miss the SLA".
 * All-zero weights tie every job, and ties go in arrival order, so the
 * untrained policy is FIFO without head-of-line blocking.
 *
 * Features, each of order 1:
 *   log_runtime  ln(1 + estimated runtime in hours)
 *   gpus         GPUs asked / GPUs of the largest node
 *   log_wait     ln(1 + minutes waited so far)
 *   priority     tier priority / 100
 *   urgency      wait / the job's SLA wait limit, capped at 4 (0 if none)
 *   fit          1 - what the best-fit placement leaves free on its node
 *                (as in hps.c); 0 when the job fits nowhere now
 *   size_x_free  gpus feature x the fleet's free fraction
 *   tenant_share the job's tenant's share of the GPUs running now
 *
 * Parameters: weights (path to a JSON file, relative to the scenario's
 * folder; sim/io/jsonio.h gives its layout), w_FEATURE (a number each,
 * overriding the file or defaults), depth (default 256).
 *
 * Cost.  A pass must cost about what it starts, not the `depth` jobs it
 * may score (issue 10), and still make exactly the decisions of scoring
 * them all and trying them in score order:
 *   - the GPUs each tenant holds are running totals (integer milli-GPUs,
 *     booked on start and stop), not sums over the running jobs;
 *   - the window (the oldest `depth` pending jobs) is kept as jobs come
 *     and go (gs_jwin, jobgroup.h), its members in classes of alike jobs
 *     (gs_jgroups), with what never changes while a job waits -- its
 *     runtime feature, size, priority, tenant -- copied into a compact
 *     array;
 *   - fit is a function of the need and the fleet, so it is worked out
 *     once per class and pass, not once per job -- for whole GPUs on plain
 *     pools off the pools' free-GPU masks when no node has room (most
 *     classes of a saturated fleet) or the host cannot be what is short
 *     (the job and every part on the pool ask at most their GPUs' share
 *     of a node: gs_fleet_host_follows), the placer's search only
 *     otherwise (whole_fit); and when misses repeat
 *     (gs_sim_misses_repeat) a class that fits nowhere at the start of a
 *     pass cannot start a job in it (capacity only shrinks), so its members
 *     are not scored at all -- they would only be tried and missed;
 *   - log_wait is the one costly feature (a log1p per job and pass).  Each
 *     member keeps the value last computed, L0 at wait w0; log1p is
 *     increasing and concave, so now, at wait w0 + d, the feature lies in
 *     [L0, L0 + d / (1 min + w0)].  The score is linear in it, so every
 *     member gets an upper bound on its score for the price of a few
 *     multiplications (plus a margin far above the rounding of the sum).
 *     The candidates go into a max-heap on that bound; the top is scored
 *     exactly and put back, and once an exactly scored job is on top (ties
 *     with a bound go to the bound, ties between exact scores to the older
 *     job) it is the next in score order.  So only the jobs near the top
 *     pay for the logarithm, and jobs are taken in exactly the order the
 *     full sort gives, until the fleet is full;
 *   - when misses repeat, a class one of whose members found no room is
 *     out for the rest of the pass (its later members, asking the same
 *     GPUs and host resources, would miss too: capacity only shrinks),
 *     its candidates are dropped unscored, and the pass ends once every
 *     class that could start has missed;
 *   - a pass that ended that way is not run again while the fleet's epoch
 *     (gs_sim_epoch: capacity came back somewhere) stays put and no job
 *     joined the window: it would score the same members and miss them
 *     all again;
 *   - a tenant's share is read from its running total when a member is
 *     scored (what it held when the pass began: a start during the pass
 *     keeps the old value aside), O(1) a member instead of a table of
 *     every tenant made every pass (O(tenants) a pass).
 * The scores are computed with the same operations in the same order as
 * before, so they are bit for bit the same. */
#include "policy.h"
#include "needtab.h"
#include "../sim/base/datapath.h"
#include "../sim/base/path.h"
#include "rllite.h"
#include "jobgroup.h"
#include "../sim/io/jsonio.h"
#include "../sim/core/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gs_rllite_features[GS_RLLITE_NF] = {
    "log_runtime", "gpus", "log_wait", "priority", "urgency", "fit",
    "size_x_free", "tenant_share",
};

/* Trained with `gpusim train quickstart --seeds 2 --iters 10 --pop 16
 * --elite 4 --seed 1` (the same numbers as policies/rllite-quickstart.json;
 * docs/policies.md reports how they do on workloads not trained on). */
const double gs_rllite_default_weights[GS_RLLITE_NF] = {
    -1.6703235617629799,
    -0.051418350137418051,
    -0.12029070345221946,
    3.3374392707023999,
    0.064126019191119057,
    -0.38224687724147388,
    -0.14780081130519651,
    -1.2878438455733188,
};

/* A window member: what scoring needs, copied when it joins. */
struct mem {
    struct gs_job *j;
    gs_time arrival, max_wait;
    gs_time t0;                 /* when L0 was computed */
    double phi0;                /* log_runtime (fixed while it waits) */
    double gn;                  /* gpus feature */
    double l0;                  /* log_wait at t0 */
    double fixed, fixmag;       /* the terms fixed while it waits
                                   (log_runtime, gpus, priority) summed,
                                   and their magnitudes: for the bound */
    uint32_t rec;
    int prio, tenant;
};

/* A class of alike window members (a gs_jgroups group): they share fit. */
struct cls {
    struct gs_lvec m;           /* its members (struct mem) */
    uint64_t pass;              /* fitv, fits worked out in this pass */
    double fitv;
    int fits;
    int missed;                 /* a member found no room this pass */
    long off, n;                /* its candidates this pass: a heap in
                                   the candidates' array at off */
};

/* A candidate of this pass: its key is an upper bound on its score until
 * exact is set, then the score. */
struct cand {
    double key;
    int exact;
    struct mem *m;              /* valid until the first start */
    struct gs_job *j;
    gs_time arrival;
    uint32_t rec;
    int g;                      /* its class */
};

#define BOOKED (-2L)            /* pslot of a running job booked here */

struct held {                   /* per tenant */
    int64_t milli;              /* milli-GPUs its running jobs hold, kept
                                   on start and stop */
    int64_t snap;               /* milli when pass spass began */
    uint64_t spass;
};

struct rl {
    double w[GS_RLLITE_NF];
    long depth;
    int maxgpn;
    struct gs_sim *sim;
    struct gs_jgroups gs;       /* classes of window members */
    struct gs_lvec cl;          /* per group (struct cls) */
    struct gs_jwin win;
    uint64_t pass;
    int blocked;                /* the last pass tried every class it could
                                   start and each missed, at epoch bepoch,
                                   and no member joined since */
    uint64_t bepoch;
    struct gs_lvec c;           /* a pass's candidates (struct cand), a
                                   max-heap per class; a top read counted */
    struct gs_lvec top;         /* the classes with candidates (int), a
                                   heap by their tops */
    struct gs_lvec held;        /* per tenant (struct held) */
    int64_t busy;               /* their sum */
};

static void win_add(void *ctx, struct gs_job *j);
static void win_drop(void *ctx, struct gs_job *j);

static int rl_init(struct gs_sim *sim, struct gs_params *p, void **state,
                   struct gs_diag *d)
{
    struct rl *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    memcpy(s->w, gs_rllite_default_weights, sizeof s->w);
    s->depth = 256;
    const char *path = NULL;
    int rc;
    if ((rc = gs_params_str(p, "weights", &path, d)) < 0 ||
        (rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d)) < 0)
        goto fail;
    if (path) {
        const struct gs_scenario *sc = gs_sim_scenario(sim);
        char *full = gs_data_path(sc->trace_dir, path);
        rc = full ? gs_weights_load(full, gs_rllite_features, GS_RLLITE_NF,
                                    s->w, d)
                  : gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        free(full);
        if (rc < 0)
            goto fail;
    }
    for (int i = 0; i < GS_RLLITE_NF; i++) {
        char key[64];
        snprintf(key, sizeof key, "w_%s", gs_rllite_features[i]);
        if ((rc = gs_params_num(p, key, -1e6, 1e6, &s->w[i], d)) < 0)
            goto fail;
    }
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (int i = 0; i < f->npools; i++)
        if (f->pools[i].s.gpn > s->maxgpn)
            s->maxgpn = f->pools[i].s.gpn;
    s->sim = sim;
    gs_jgroups_init(&s->gs, sim, 0);
    gs_lvec_init(&s->cl, sim, sizeof(struct cls));
    gs_lvec_init(&s->c, sim, sizeof(struct cand));
    gs_lvec_init(&s->top, sim, sizeof(int));
    gs_lvec_init(&s->held, sim, sizeof(struct held));
    s->win = (struct gs_jwin){ .depth = s->depth, .add = win_add,
                               .drop = win_drop, .ctx = s, .sim = sim };
    *state = s;
    return 0;
fail:
    free(s);
    return rc;
}

static void rl_free(void *state)
{
    struct rl *s = state;
    if (s == NULL)
        return;
    for (long i = 0; i < gs_lvec_n(&s->cl); i++)
        gs_lvec_free(&((struct cls *)gs_lvec_upd(&s->cl, i))->m);
    gs_lvec_free(&s->cl);
    gs_jgroups_free(&s->gs);
    gs_lvec_free(&s->c);
    gs_lvec_free(&s->top);
    gs_lvec_free(&s->held);
    free(s);
}

static int64_t job_milli(const struct gs_job *j)
{
    return j->need.gpus > 0 ? 1000LL * j->need.gpus : j->need.milli;
}

/* --- the window ------------------------------------------------------------ */

/* Class g, named by a job's pslot or a candidate (not a read of the class
 * table: the scan reads it through gs_lvec_at). */
static struct cls *cls_of(const struct rl *s, long g)
{
    return gs_lvec_upd(&s->cl, g);
}

static double gpus_feature(const struct rl *s, const struct gs_job *j)
{
    double g = j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
    return s->maxgpn > 0 ? g / s->maxgpn : g;
}

static void win_add(void *ctx, struct gs_job *j)
{
    struct rl *s = ctx;
    int g = gs_jgroups_of(&s->gs, j);
    while (gs_lvec_n(&s->cl) <= g)
        gs_lvec_init(&((struct cls *)gs_lvec_push(&s->cl))->m, s->sim,
                     sizeof(struct mem));
    struct cls *c = gs_lvec_upd(&s->cl, g);
    long n = gs_lvec_n(&c->m);
    gs_time now = gs_sim_now(s->sim);
    s->blocked = 0;
    struct mem *m = gs_lvec_push(&c->m);
    *m = (struct mem){
        .j = j, .arrival = j->s.arrival, .max_wait = j->max_wait, .t0 = now,
        .phi0 = log1p((double)gs_sim_estimate(s->sim, j) / GS_HOUR),
        .gn = gpus_feature(s, j),
        .l0 = log1p((double)(now - j->s.arrival) / GS_MIN),
        .rec = j->rec, .prio = j->prio, .tenant = j->tenant,
    };
    double t0 = s->w[0] * m->phi0, t1 = s->w[1] * m->gn,
           t3 = s->w[3] * (m->prio / 100.0);
    m->fixed = t0 + t1 + t3;
    m->fixmag = fabs(t0) + fabs(t1) + fabs(t3);
    j->pslot = (long)g << 32 | n;
}

static void win_drop(void *ctx, struct gs_job *j)
{
    struct rl *s = ctx;
    struct cls *c = gs_lvec_upd(&s->cl, j->pslot >> 32);
    long i = j->pslot & 0xffffffffL;
    gs_lvec_del(&c->m, i);
    if (i < gs_lvec_n(&c->m))
        ((struct mem *)gs_lvec_upd(&c->m, i))->j->pslot =
            (j->pslot & ~0xffffffffL) | i;
    j->pslot = -1;
}

static void rl_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    (void)sim;
    struct rl *s = state;
    j->pslot = -1;
    gs_jwin_arrive(&s->win, j);
}

/* Book a job this policy started to its tenant. */
/* Add dm milli-GPUs to tenant t's running total, keeping what it held
 * when the current pass began (the pass scores on that). */
static void hold(struct rl *s, int t, int64_t dm)
{
    if (t >= gs_lvec_n(&s->held))
        gs_lvec_setn(&s->held, t + 1L);
    struct held *h = gs_lvec_upd(&s->held, t);
    if (h->spass != s->pass) {
        h->snap = h->milli;
        h->spass = s->pass;
    }
    h->milli += dm;
    s->busy += dm;
}

static void book(struct rl *s, struct gs_job *j)
{
    hold(s, j->tenant, job_milli(j));
    j->pslot = BOOKED;
}

static void rl_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                       int why)
{
    (void)sim;
    (void)why;
    struct rl *s = state;
    if (j->pslot == BOOKED) {
        hold(s, j->tenant, -job_milli(j));
    } else if (j->pslot >= 0) {         /* pending, in the window: killed */
        gs_jwin_leave(&s->win, j);
    } else {
        gs_jwin_killed_outside(&s->win, j);
    }
    j->pslot = -1;
}

/* --- scoring --------------------------------------------------------------- */

/* Best-fit for whole GPUs on one node of a plain pool, read off the
 * pool's free-GPU mask, which is always exact (fleet.h): no open node with
 * k GPUs fully free, no placement (0); else, when the host cannot decide
 * -- the job asks nothing of it, or no more than its GPUs' share of a node
 * and so does every part held on the pool (gs_fleet_host_follows) -- the
 * leftover is the fewest fully free GPUs, at least k, of any open node,
 * less k -- the search would pick a node with just that many (fleet.c
 * find_whole) -- into *score (1).  -1 when the search must decide (shared
 * pools, gangs, or CPU or memory the tightest node may lack). */
static int whole_fit(const struct gs_pool *pl, const struct gs_need *need,
                     int *score)
{
    int k = need->gpus;
    if (pl->mig || pl->s.share.mode != GS_SHARE_NONE || k < 1 ||
        k > pl->s.gpn)
        return -1;
    uint64_t m = pl->fmask[1] & (~0ULL << k);
    if (m == 0)
        return 0;
    if ((need->cpu_milli > 0 || need->mem_mib > 0) &&
        !gs_fleet_host_follows(pl, need))
        return -1;
    *score = __builtin_ctzll(m) - k;
    return 1;
}

/* 1 - the leftover of the tightest placement now; -1 if none. */
static double fit(struct gs_sim *sim, const struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double best = -1;
    struct gs_alloc a = { .pool = -1 };
    for (int p = 0; p < f->npools; p++) {
        if (!gs_fleet_pool_eligible(f, p, &j->need))
            continue;
        struct gs_range r = { p, 0, f->pools[p].s.nodes };
        int score, w = whole_fit(&f->pools[p], &j->need, &score);
        if (w == 0 || (w < 0 && gs_fleet_find(f, &r, &j->need, GS_FIT_BEST,
                                              &a, &score) < 0))
            continue;
        double x = 1.0 - (j->need.gpus > 0
                              ? (double)score / f->pools[p].s.gpn
                              : (double)score / 2000.0);
        if (x < 0)
            x = 0;
        if (x > best)
            best = x;
    }
    gs_alloc_reset(&a);
    return best;
}

/* What a pass knows of the cluster. */
struct passctx {
    gs_time now;
    double freefrac;
    const struct rl *s;         /* its tenants' holdings at the start */
    double busy;                /* GPUs held then */
    int nt;
};

/* Tenant t's share of the busy GPUs when the pass began (0 for a tenant
 * not known to the run): O(1), not a table made every pass. */
static double share_of(const struct passctx *x, int t)
{
    const struct rl *s = x->s;
    if (t >= x->nt)
        return 0;
    double g = 0;
    if (t < gs_lvec_n(&s->held)) {
        const struct held *h = gs_lvec_at(&s->held, t);
        g = (double)(h->spass == s->pass ? h->snap : h->milli) / 1000.0;
    }
    return x->busy > 0 ? g / x->busy : 0;
}

/* The features of member m now, with log_wait given: the same values, by
 * the same operations, as scoring each job from scratch. */
static void features(const struct mem *m, const struct cls *c,
                     const struct passctx *x, double logwait,
                     double phi[GS_RLLITE_NF])
{
    double wait = (double)(x->now - m->arrival);
    double urg = m->max_wait > 0 ? wait / (double)m->max_wait : 0;
    phi[0] = m->phi0;
    phi[1] = m->gn;
    phi[2] = logwait;
    phi[3] = m->prio / 100.0;
    phi[4] = urg > 4 ? 4 : urg;
    phi[5] = c->fitv;
    phi[6] = m->gn * x->freefrac;
    phi[7] = share_of(x, m->tenant);
}

static double exact_score(const struct rl *s, struct mem *m,
                          const struct cls *c, const struct passctx *x)
{
    double phi[GS_RLLITE_NF];
    double lw = log1p((double)(x->now - m->arrival) / GS_MIN);
    m->l0 = lw;                         /* a tighter bound next time */
    m->t0 = x->now;
    features(m, c, x, lw, phi);
    double sc = 0;
    for (int i = 0; i < GS_RLLITE_NF; i++)
        sc += s->w[i] * phi[i];
    return sc;
}

/* An upper bound on exact_score(): log_wait is at least l0 and at most
 * l0 + d / (1 min + w0) (log1p is increasing and concave).  The terms fixed
 * while the job waits come summed from when it joined, and those of the
 * class (fit, size_x_free) from the pass (cterm, cmag), so a bound costs a
 * few operations; summed in another order than the exact score, it is off
 * by a few roundings of the terms' magnitudes, and the margin, 1e-9 of
 * them, covers that many times over. */
static double bound_score(const struct rl *s, const struct mem *m,
                          double cterm, double cmag,
                          const struct passctx *x)
{
    double w0 = (double)(m->t0 - m->arrival);
    double lw = m->l0;
    if (s->w[2] >= 0)
        lw += (double)(x->now - m->t0) / ((double)GS_MIN + w0);
    double wait = (double)(x->now - m->arrival);
    double urg = m->max_wait > 0 ? wait / (double)m->max_wait : 0;
    double t2 = s->w[2] * lw, t4 = s->w[4] * (urg > 4 ? 4 : urg),
           t6 = s->w[6] * (m->gn * x->freefrac),
           t7 = s->w[7] * share_of(x, m->tenant);
    double mag = 1 + m->fixmag + cmag + fabs(t2) + fabs(t4) + fabs(t6) +
                 fabs(t7);
    return m->fixed + cterm + t2 + t4 + t6 + t7 + 1e-9 * mag;
}

/* Candidate a goes before b in the heap: the higher key; on a tie a bound
 * before an exact score (it may turn out equal and older); two exact
 * scores as the full sort has them (arrival, then record). */
static int cbefore(const struct cand *a, const struct cand *b)
{
    if (a->key != b->key)
        return a->key > b->key;
    if (a->exact != b->exact)
        return !a->exact;
    if (a->arrival != b->arrival)
        return a->arrival < b->arrival;
    return a->rec < b->rec;
}

static void sift_down(struct cand *h, long n, long i)
{
    struct cand x = h[i];
    for (;;) {
        long k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && cbefore(&h[k + 1], &h[k]))
            k++;
        if (!cbefore(&h[k], &x))
            break;
        h[i] = h[k];
        i = k;
    }
    h[i] = x;
}

/* The classes' heap (top: the classes with candidates, ordered by their
 * top candidates under cbefore), with the candidates' array h and the
 * classes' table cl (raw: the pass reads the top through a counted read). */
static int tbefore(const struct cand *h, const struct cls *cl, int a, int b)
{
    return cbefore(&h[cl[a].off], &h[cl[b].off]);
}

static void top_down(int *t, long n, long i, const struct cand *h,
                     const struct cls *cl)
{
    int x = t[i];
    for (;;) {
        long k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && tbefore(h, cl, t[k + 1], t[k]))
            k++;
        if (!tbefore(h, cl, t[k], x))
            break;
        t[i] = t[k];
        i = k;
    }
    t[i] = x;
}

static void rl_schedule(void *state, struct gs_sim *sim)
{
    struct rl *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (f->used_milli >= f->gpus_up * 1000)
        return;
    gs_jwin_settle(&s->win, sim);
    if (s->win.n == 0)
        return;
    uint64_t epoch = gs_sim_epoch(sim);
    if (s->blocked && epoch == s->bepoch)
        return;                 /* the same members would miss again */
    s->pass++;
    gs_lvec_setn(&s->c, s->win.n);
    struct cand *h = (struct cand *)s->c.a;     /* the heap's own array */
    struct passctx x = {
        .now = gs_sim_now(sim),
        .freefrac = f->gpus_up > 0 ? 1.0 - (double)f->used_milli /
                                               (1000.0 * (double)f->gpus_up)
                                   : 0,
        .s = s,
        .busy = (double)s->busy / 1000.0,
        .nt = gs_sim_ntenants(sim),
    };
    /* Candidates: the members of every class that fits somewhere (all of
     * them when a miss may not be foreseen), keyed by a bound, in a heap
     * per class; the classes in a heap by their tops.  A class that missed
     * leaves with all its candidates at once. */
    int skip = gs_sim_misses_repeat(sim);
    long k = 0, live = 0, ncl = gs_lvec_n(&s->cl);
    gs_lvec_setn(&s->top, ncl);
    int *top = (int *)s->top.a;
    long nt = 0;
    for (int g = 0; g < s->gs.n && g < ncl; g++) {
        struct cls *c = gs_lvec_at(&s->cl, g);
        long n = gs_lvec_n(&c->m);
        if (n == 0)
            continue;
        if (c->pass != s->pass) {
            c->pass = s->pass;
            double v = skip || s->w[5] != 0
                           ? fit(sim, ((struct mem *)gs_lvec_at(&c->m, 0))->j)
                           : 0;
            c->fits = !skip || v >= 0;
            c->fitv = s->w[5] != 0 && v > 0 ? v : 0;
            c->missed = 0;
        }
        if (!c->fits)
            continue;
        live++;
        double ct = s->w[5] * c->fitv, cm = fabs(ct);
        c->off = k;
        for (long i = 0; i < n; i++) {
            struct mem *m = gs_lvec_at(&c->m, i);
            h[k++] = (struct cand){ bound_score(s, m, ct, cm, &x), 0, m,
                                    m->j, m->arrival, m->rec, g };
        }
        c->n = n;
        for (long i = n / 2 - 1; i >= 0; i--)
            sift_down(h + c->off, n, i);
        top[nt++] = g;
    }
    struct cls *cl = (struct cls *)s->cl.a;
    for (long i = nt / 2 - 1; i >= 0; i--)
        top_down(top, nt, i, h, cl);
    /* Refine the top until an exact score is on top; take it. */
    int started = 0;
    while (nt > 0 && live > 0) {
        struct cls *tc = &cl[top[0]];
        struct cand *t = gs_lvec_at(&s->c, tc->off);
        if (tc->missed) {       /* its jobs would miss too: drop them */
            top[0] = top[--nt];
            top_down(top, nt, 0, h, cl);
            continue;
        }
        if (!t->exact) {
            /* members move once a job starts (the window changes): before
             * that, m is the job's */
            struct mem *m = t->m;
            int gone = 0;
            if (started) {
                struct gs_job *j = t->j;
                if (j->pslot < 0) {     /* a model ended it meanwhile */
                    gone = 1;
                } else {
                    m = gs_lvec_upd(&cls_of(s, j->pslot >> 32)->m,
                                    j->pslot & 0xffffffffL);
                }
            }
            if (gone) {
                h[tc->off] = h[tc->off + --tc->n];
            } else {
                t->key = exact_score(s, m, cls_of(s, m->j->pslot >> 32),
                                     &x);
                t->exact = 1;
            }
            sift_down(h + tc->off, tc->n, 0);
            if (tc->n == 0)
                top[0] = top[--nt];
            top_down(top, nt, 0, h, cl);
            continue;
        }
        if (f->used_milli >= f->gpus_up * 1000)
            break;
        struct gs_job *j = t->j;
        h[tc->off] = h[tc->off + --tc->n];
        sift_down(h + tc->off, tc->n, 0);
        if (tc->n == 0)
            top[0] = top[--nt];
        top_down(top, nt, 0, h, cl);
        if (!gs_job_sure_miss(sim, j, NULL, 0) &&
            gs_sim_try_start(sim, j, NULL, 0) == 0) {
            gs_jwin_leave(&s->win, j);
            book(s, j);
            started = 1;
        } else if (skip && j->pslot >= 0) {
            cls_of(s, j->pslot >> 32)->missed = 1;
            live--;
        }
        cl = (struct cls *)s->cl.a;     /* a job that joined moved it */
    }
    s->blocked = skip && live == 0;
    s->bepoch = epoch;
}

const struct gs_policy_ops gs_policy_rllite = {
    .abi = GS_POLICY_ABI,
    .name = "rl-lite",
    .summary = "learned linear score over job and cluster features "
               "(weights from `gpusim train`)",
    .init = rl_init,
    .free = rl_free,
    .arrive = rl_arrive,
    .stopped = rl_stopped,
    .schedule = rl_schedule,
};
