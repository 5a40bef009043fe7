/* energy.c -- the fleet's energy, its cost and its carbon: per job, tenant,
 * tier, pool, region and for the fleet (energy.h).
 *
 * What draws power.  Every GPU on a node that is up draws at least its
 * idle power, idle = limit x the curve's idle share (sim/cluster/power.h:
 * the board limit from the catalog, the shape fitted on Splitwise's A100
 * power).  A GPU a job holds draws more while the job is busy:
 *   - an inference replica's GPUs: what its engine's iterations draw
 *     above idle, from each iteration's compute and memory utilization,
 *     capped (sim/inference/service.c reports it per iteration through
 *     gs_sim_job_energy, the model hook job_energy);
 *   - any other job's GPUs: the curve at compute utilization cb and memory
 *     utilization 1 - cb (its compute-bound share), times the share of
 *     the time it is busy (its utilization profile's busy phases, and a
 *     time-slicing duty cycle), capped at the pool's power cap.  With the
 *     shipped shape a busy GPU draws its limit for any cb: jobs are
 *     billed their board limit while busy, their idle power while not.
 * A job holding a share of a GPU (a fraction, a time-slicing replica, a
 * MIG instance: gs_alloc_milli, the pool's unit) draws that share of the
 * GPU's idle and dynamic power.
 *
 * Hosts.  A node's host (CPUs, memory, NICs, fans: power.h's
 * gs_host_power_default from published DGX system figures, or the
 * pool's host_idle_w / host_busy_w) draws its idle power while the node
 * is up and its busy part in proportion to the node's GPUs allocated.
 * So each GPU slot carries 1/gpn of its host: its idle share with the
 * board's idle power (idle_w), its busy share (host_dyn_w) while
 * allocated, and a job holding s GPUs draws s x (idle_w + host_dyn_w)
 * besides its boards' dynamic power.  GPUs on nodes that are not up
 * (off, booting, failed) and CPU-only pools draw nothing here; the
 * facility's overhead is the region's PUE (facility energy = IT energy
 * x PUE; The Green Grid, "PUE: a comprehensive examination of the
 * metric", White Paper 49, 2012).
 *
 * Attribution.  A job's energy over a run is its share of its GPUs' idle
 * power and of their hosts' power plus its dynamic energy; the fleet's is
 * every up GPU slot's idle power, every allocated slot's host busy share
 * and every job's dynamic energy; the difference is the idle remainder,
 * the unallocated GPU slots' idle power (boards and hosts).  So, as with the bill: fleet = jobs +
 * idle, tenant by tenant, with nothing negative (tests/test_energy.c).
 *
 * Price and carbon.  A region has a tariff ($/kWh) and a grid intensity
 * (g CO2e/kWh), each by hour, repeating (energycfg.h); hour 0 of each is
 * the hour of day start_hour at time 0.  Power that is constant over
 * [t0, t1] is priced exactly: P x PUE x (C(t1) - C(t0)), C the series'
 * integral (piecewise linear between hours, kept as prefix sums), so a
 * tariff step at an hour boundary splits a job's cost at that instant.
 * A replica's reported energy is priced at the hour of the iteration's
 * end (iterations last milliseconds).  The energy cost is a part of the
 * bill: it is added to the run's cost, to each job's record cost, and
 * the planner's cost per hour includes it.
 *
 * The power series.  /timeseries/DCGM_FI_DEV_POWER_USAGE is the fleet's
 * GPU board power (every board: up GPUs' idle power, jobs' and replicas'
 * dynamic power; no host, no PUE), summed, the mean over the step that
 * ends at each sample time (0 at the first, which closes no step).  It is
 * kept as the energy each step drew, on the metrics' grid (from the first
 * advance, at the run's step; when the metrics halve their series at
 * GS_SERIES_MAX samples, two steps become one here too): the boards'
 * power between cuts is integrated and cut at every grid point; a
 * replica's iteration, drawn evenly over its span (gs_sim_job_energy),
 * is split over the steps it spans in proportion to the time it ran in
 * each, a step already closed amended.  Since the model may wait while
 * only a service's events fire (still), an iteration that ends past a
 * grid point not yet taken first takes the grid points before the clock,
 * at the boards' power now (nothing the cluster shows has changed since
 * the last cut).  So the steps' energy, plus what the last step has not
 * closed, is the boards' energy of the run: the IT energy less the
 * hosts' (tests/test_energy.c). */
#include "energy.h"
#include "../base/stepsplit.h"
#include "../cluster/power.h"
#include "../core/sim.h"
#include "../io/h5out.h"
#include "../io/report.h"
#include "../spec/scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define J_PER_KWH 3.6e6

/* An hourly series with its prefix sums: pre[k] = v[0] + ... + v[k-1]. */
struct eseries {
    const struct gs_hourly *h;
    double pre[GS_ENERGY_HOURS + 1];
};

struct eregion {
    double pue;
    struct eseries price, carbon;
    double p_w, idle_w, host_w; /* IT power now: all, unallocated, hosts' */
    double it_j, host_j, usd, g;        /* totals (host_j: of it_j) */
    /* of those, the jobs' booked energy (m_energy), kept apart until the
     * run closes: the core may cut the integrals before or after a
     * booking in the same millisecond (still.c) */
    double b_j, b_usd, b_g;
    double idle_j, idle_usd, idle_g;
    /* the price's and the intensity's integrals at hour at_h (NAN: none):
     * the clock's last move ended there, so the next one starts there */
    double at_h, price_at, carbon_at;
    double kw, ki;              /* p_w and idle_w in kW x PUE */
};

struct epool {
    int region;
    double idle_w;              /* one GPU slot, idle: its board and its
                                   share of its node's idle host */
    double host_idle_w;         /* of idle_w: the host's */
    double host_dyn_w;          /* one GPU slot allocated: its share of
                                   its host's busy power above idle */
    double busy_w;              /* one GPU busy (capped), jobs' own */
    double dyn_w;               /* running unowned jobs' dynamic power */
    double it_j, idle_j, host_j;        /* IT energy: all, unallocated,
                                   hosts' */
    double b_j;                 /* of it_j, booked (eregion's b_j) */
    /* what it drew over the last move (all, unallocated GPUs, hosts) and
     * the inputs that gave it: kept while they stay (m_advance) */
    double w, wi, hw;
    double bw;                  /* of w, the GPU boards' */
    int64_t at_up, at_used;
    double at_dyn;
};

struct etenant {
    double kwh, usd, g;
};

/* What a model reported for the run in progress of a job it owns (an
 * inference replica): booked to the job's record when the run ends.  Few
 * such jobs run at once, so a list. */
enum { OWN_HINTS = 64 };

struct owned {
    uint32_t rec;
    double kwh, usd, g;
};

struct energy {
    struct gs_sim *s;
    const struct gs_scenario *sc;
    const struct gs_fleet *f;
    double start_h;
    int np, nr;
    struct epool *p;
    struct eregion r[GS_ENERGY_REGIONS];
    gs_time first, last;        /* -1 before the first advance */
    double last_h;              /* hours_at(last) */
    int drawn;                  /* the pools' and regions' power is set */
    struct etenant *ten;        /* by tenant index, grown as they come */
    int nten;
    struct etenant tier[GS_NTIERS];
    struct owned *own;          /* runs in progress of jobs a model owns */
    int nown, capown;
    int own_at[OWN_HINTS];      /* by record: its last index in own */
    struct gs_energysum out;
    /* the boards' power series (above): J a step, on the metrics' grid */
    double *ser;                /* step k: (grid k - 1, grid k] */
    long nser, capser;
    gs_time s_t0, s_step, s_next;       /* the grid; its next point */
    gs_time s_last;             /* the series integrated up to here */
    double s_g, s_nx;           /* the last point taken (-inf: none) and
                                   the next, s */
    double s_acc;               /* J since the last point taken */
    double board_w;             /* the boards' W over the move (m_advance) */
};

/* --- hourly series ------------------------------------------------------- */

static void series_init(struct eseries *e, const struct gs_hourly *h)
{
    e->h = h;
    e->pre[0] = 0;
    for (int k = 0; k < h->n; k++)
        e->pre[k + 1] = e->pre[k] + h->v[k];
}

static double series_integral(const struct eseries *e, double hours)
{
    const struct gs_hourly *h = e->h;
    if (h->n == 1)
        return h->v[0] * hours;
    double cycles = floor(hours / h->n);
    double rem = hours - cycles * h->n;
    int k = (int)floor(rem);
    if (k >= h->n) {            /* rounding at a cycle's end */
        k = h->n - 1;
        rem = h->n;
    }
    return cycles * e->pre[h->n] + e->pre[k] + (rem - k) * h->v[k];
}

double gs_hourly_integral(const struct gs_hourly *h, double hours)
{
    struct eseries e;
    series_init(&e, h);
    return series_integral(&e, hours);
}

double gs_hourly_at(const struct gs_hourly *h, double hours)
{
    if (h->n == 1)              /* a flat series (fmod gives 0 or -0) */
        return h->v[0];
    double x = fmod(floor(hours), (double)h->n);
    if (x < 0)
        x += h->n;
    return h->v[(int)x];
}

/* Hours on the series' clock at simulation time t. */
static double hours_at(const struct energy *e, gs_time t)
{
    return (double)t / GS_HOUR + e->start_h;
}

/* --- attribution ---------------------------------------------------------- */

/* GPUs (in the pool's unit) job j holds. */
static double share(const struct gs_job *j)
{
    return (double)gs_alloc_milli(&j->alloc) / 1000.0;
}

/* Share of its running time job j is busy: its utilization profile's busy
 * phases (busy first, alternating), times a time-slicing duty cycle. */
static double busy_share(const struct gs_job *j)
{
    double b = 1;
    if (j->nphases >= 2) {
        double busy = 0, all = 0;
        for (int i = 0; i < j->nphases; i++) {
            all += (double)j->phase[i];
            if (i % 2 == 0)
                busy += (double)j->phase[i];
        }
        b = all > 0 ? busy / all : 1;
    }
    if (j->s.duty > 0 && j->s.duty < 1)
        b *= j->s.duty;
    return b;
}

/* Dynamic power of job j on pool pl, W (0 for a job a model owns: it
 * reports its own). */
static double dyn_w(const struct epool *pl, const struct gs_job *j)
{
    if (j->owner != NULL)
        return 0;
    double board_idle = pl->idle_w - pl->host_idle_w;
    return share(j) * busy_share(j) * (pl->busy_w - board_idle);
}

/* Room for tenant t (apart: the per-iteration booking stays small). */
static void __attribute__((noinline)) tenant_grow(struct energy *e, int t)
{
    int n = t + 16;
    struct etenant *g = realloc(e->ten, (size_t)n * sizeof *g);
    GS_OOM_IF(g == NULL);
    memset(g + e->nten, 0, (size_t)(n - e->nten) * sizeof *g);
    e->ten = g;
    e->nten = n;
}

static struct etenant *tenant(struct energy *e, int t)
{
    if (t >= e->nten)
        tenant_grow(e, t);
    return &e->ten[t];
}

/* The entry of job j's run in e->own, made when add (else NULL when
 * absent). */
static struct owned *owned(struct energy *e, const struct gs_job *j, int add)
{
    /* where the record was last found (entries move when one leaves) */
    int *hint = &e->own_at[j->rec % OWN_HINTS];
    if (*hint < e->nown && e->own[*hint].rec == j->rec)
        return &e->own[*hint];
    for (int i = e->nown - 1; i >= 0; i--)
        if (e->own[i].rec == j->rec) {
            *hint = i;
            return &e->own[i];
        }
    if (!add)
        return NULL;
    if (e->nown == e->capown) {
        int n = e->capown ? 2 * e->capown : 16;
        struct owned *g = realloc(e->own, (size_t)n * sizeof *g);
        GS_OOM_IF(g == NULL);
        e->own = g;
        e->capown = n;
    }
    e->own_at[j->rec % OWN_HINTS] = e->nown;
    struct owned *o = &e->own[e->nown++];
    *o = (struct owned){ j->rec, 0, 0, 0 };
    return o;
}

/* Book kwh (facility), usd and g to job j's tenant and tier. */
static void book(struct energy *e, const struct gs_job *j, double kwh,
                 double usd, double g)
{
    struct etenant *t = tenant(e, j->tenant);
    t->kwh += kwh;
    t->usd += usd;
    t->g += g;
    struct etenant *ti = &e->tier[j->s.tier];
    ti->kwh += kwh;
    ti->usd += usd;
    ti->g += g;
}

/* --- the boards' power series ---------------------------------------------- */

/* Take the grid point s_next: the step it closes drew s_acc. */
static void series_take(struct energy *e)
{
    if (e->nser == e->capser) {
        long cap = e->capser ? 2 * e->capser : 1024;
        double *g = realloc(e->ser, (size_t)cap * sizeof *g);
        GS_OOM_IF(g == NULL);
        e->ser = g;
        e->capser = cap;
    }
    e->ser[e->nser++] = e->s_acc;
    e->s_acc = 0;
    e->s_next += e->s_step;
    e->s_g = (double)(e->s_next - e->s_step) / 1000.0;
    e->s_nx = (double)e->s_next / 1000.0;
    if (e->nser >= GS_SERIES_MAX) {
        /* the metrics keep points 0, 2, 4, ... (metrics.c, coarsen):
         * step i joins the two that end at points 2i - 1 and 2i, and the
         * last one taken joins the step in progress */
        long n = e->nser / 2;
        for (long i = 1; i < n; i++)
            e->ser[i] = e->ser[2 * i - 1] + e->ser[2 * i];
        e->s_acc = e->ser[e->nser - 1];
        e->nser = n;
        e->s_step *= 2;
        e->s_next = e->s_t0 + (gs_time)n * e->s_step;
        e->s_g = (double)(e->s_next - e->s_step) / 1000.0;
        e->s_nx = (double)e->s_next / 1000.0;
    }
}

/* The boards drew w W from s_last to t: cut at each grid point before t
 * (the metrics' rule: a point is taken when the clock passes it). */
static void series_to(struct energy *e, gs_time t, double w)
{
    while (e->s_next < t) {
        e->s_acc += w * ((double)(e->s_next - e->s_last) / 1000.0);
        e->s_last = e->s_next;
        series_take(e);
    }
    if (t > e->s_last) {
        e->s_acc += w * ((double)(t - e->s_last) / 1000.0);
        e->s_last = t;
    }
}

/* The boards' power now, from the fleet as it is (m_advance's pools'
 * bw, for the state since the last cut). */
static double board_now(const struct energy *e)
{
    double w = 0;
    for (int i = 0; i < e->np; i++) {
        const struct gs_pool *fp = &e->f->pools[i];
        const struct epool *pl = &e->p[i];
        if (fp->s.gpn != 0)
            w += (double)fp->gpus_up * (pl->idle_w - pl->host_idle_w) +
                 pl->dyn_w;
    }
    return w;
}

/* j J drawn evenly over [a, b] (s): each closed step's share to it, the
 * rest to the step in progress (series_book's rare case, apart). */
static void __attribute__((noinline)) series_split(struct energy *e,
                                                   double j, double a,
                                                   double b)
{
    gs_time now = gs_sim_now(e->s);
    if (e->s_next < now)
        series_to(e, now, board_now(e));
    struct gs_stepsplit it;
    double f;
    long k;
    if (!gs_stepsplit_start(&it, a, b, e->s_g, e->s_next, e->s_step,
                            e->nser, 1, &f)) {
        e->s_acc += j;
        return;
    }
    if (f > 0)
        e->s_acc += j * f;
    while (gs_stepsplit_next(&it, &k, &f))
        e->ser[k] += j * f;
}

/* j J drawn evenly over [a, b] (s), b at or before the clock: all of it
 * in the step in progress when [a, b] lies between the last point taken
 * and the next. */
static inline void series_book(struct energy *e, double j, double a,
                               double b)
{
    if (a >= e->s_g && b <= e->s_nx)
        e->s_acc += j;
    else
        series_split(e, j, a, b);
}

/* --- the model's hooks ----------------------------------------------------- */

static int m_build(struct gs_sim *s, const struct gs_scenario *sc,
                   struct gs_fleet *f, struct gs_metrics *m, uint64_t seed,
                   void **state, struct gs_diag *d)
{
    (void)seed;
    struct energy *e = calloc(1, sizeof *e);
    if (e == NULL || (e->p = calloc((size_t)f->npools + 1,
                                    sizeof *e->p)) == NULL) {
        free(e);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    e->s = s;
    e->sc = sc;
    e->f = f;
    e->s_step = m->step;
    e->s_g = -INFINITY;
    e->np = f->npools;
    e->first = e->last = -1;
    e->start_h = sc->energy.start_hour;
    e->nr = sc->energy.nregions;
    for (int k = 0; k < e->nr; k++) {
        const struct gs_energy_region *g = &sc->energy.region[k];
        e->r[k].pue = g->pue;
        series_init(&e->r[k].price, &g->price);
        series_init(&e->r[k].carbon, &g->carbon);
        e->r[k].at_h = NAN;
    }
    for (int i = 0; i < e->np; i++) {
        const struct gs_pool_spec *ps = &f->pools[i].s;
        struct epool *pl = &e->p[i];
        pl->region = ps->region;
        if (ps->gpn == 0)
            continue;
        double limit = sc->cat.m[ps->model].power_w;
        struct gs_slot_power sp = gs_power_slot(&sc->cat.m[ps->model], ps);
        pl->host_idle_w = sp.host_idle_w;
        pl->host_dyn_w = sp.host_dyn_w;
        pl->idle_w = sp.board_idle_w + sp.host_idle_w;
        pl->busy_w = limit;     /* the curve at (cb, 1 - cb), set per job */
        if (ps->power_cap_w > 0 && ps->power_cap_w < limit)
            pl->busy_w = ps->power_cap_w;
    }
    *state = e;
    return 0;
}

static void m_free(void *st)
{
    struct energy *e = st;
    if (e == NULL)
        return;
    free(e->p);
    free(e->ten);
    free(e->own);
    free(e->ser);
    free(e);
}

/* Busy power of one GPU of pool pl for job j: the curve at (cb, 1 - cb),
 * capped. */
static double job_busy_w(const struct energy *e, int pool,
                         const struct gs_job *j)
{
    const struct gs_pool_spec *ps = &e->f->pools[pool].s;
    double limit = e->sc->cat.m[ps->model].power_w;
    return gs_power_watts(&gs_power_default, limit, j->s.cb, 1 - j->s.cb,
                          ps->power_cap_w);
}

static double job_dyn_w(const struct energy *e, const struct gs_job *j)
{
    int p = j->alloc.pool;
    if (p < 0 || e->f->pools[p].s.gpn == 0)
        return 0;
    struct epool pl = e->p[p];
    pl.busy_w = job_busy_w(e, p, j);
    return dyn_w(&pl, j);
}

static void m_started(void *st, struct gs_job *j)
{
    struct energy *e = st;
    if (j->alloc.pool >= 0)
        e->p[j->alloc.pool].dyn_w += job_dyn_w(e, j);
}

static void m_stopping(void *st, struct gs_job *j)
{
    struct energy *e = st;
    if (j->alloc.pool >= 0)
        e->p[j->alloc.pool].dyn_w -= job_dyn_w(e, j);
}

/* A run of job j ended now (or the books close with it running): book its
 * share of idle power and its own dynamic power over the run, and return
 * the run's $ (its reported energy's included) for its record. */
static double m_ran(void *st, const struct gs_job *j)
{
    struct energy *e = st;
    int p = j->alloc.pool;
    double usd = 0;
    if (p >= 0 && e->f->pools[p].s.gpn > 0) {
        const struct epool *pl = &e->p[p];
        const struct eregion *r = &e->r[pl->region];
        gs_time now = gs_sim_now(e->s);
        double w = share(j) * (pl->idle_w + pl->host_dyn_w) +
                   job_dyn_w(e, j);
        double h0 = hours_at(e, j->started), h1 = hours_at(e, now);
        double kw = w / 1000.0 * r->pue;
        double kwh = kw * (double)(now - j->started) / GS_HOUR;
        double cost = kw * (series_integral(&r->price, h1) -
                            series_integral(&r->price, h0));
        double g = kw * (series_integral(&r->carbon, h1) -
                         series_integral(&r->carbon, h0));
        book(e, j, kwh, cost, g);
        usd = cost;
        struct owned *o = j->owner ? owned(e, j, 0) : NULL;
        if (o) {
            kwh += o->kwh;
            g += o->g;
            usd += o->usd;
            *o = e->own[--e->nown];
        }
        gs_sim_record_add_energy(e->s, (long)j->rec, kwh, g);
    }
    return usd;
}

/* A model reported energy above idle that job j's GPUs drew: book it at
 * this hour's price and intensity, to the job and to its pool's region. */
static void m_energy(void *st, struct gs_job *j, double joules,
                     double from_s, double to_s)
{
    struct energy *e = st;
    int p = j->alloc.pool;
    if (p < 0 || !(joules > 0))
        return;
    if (e->last >= 0)
        series_book(e, joules, from_s, to_s);
    struct epool *pl = &e->p[p];
    struct eregion *r = &e->r[pl->region];
    double kwh = joules / J_PER_KWH * r->pue, usd, g;
    if (r->price.h->n == 1 && r->carbon.h->n == 1) {
        usd = kwh * r->price.h->v[0];   /* flat: the hour is not read */
        g = kwh * r->carbon.h->v[0];
    } else {
        double h = hours_at(e, gs_sim_now(e->s));
        usd = kwh * gs_hourly_at(r->price.h, h);
        g = kwh * gs_hourly_at(r->carbon.h, h);
    }
    pl->b_j += joules;
    r->b_j += joules;
    r->b_usd += usd;
    r->b_g += g;
    book(e, j, kwh, usd, g);
    struct owned *o = owned(e, j, 1);
    o->kwh += kwh;
    o->usd += usd;
    o->g += g;
}

/* Pool i's power over a move (W): its up GPU slots' idle board and host
 * power, its allocated slots' host busy share, its jobs' dynamic power;
 * wi of it the unallocated slots'.  Recomputed only when an input moved:
 * the same expressions on the same inputs give the same bits. */
static int pool_draw(struct energy *e, int i)
{
    const struct gs_pool *fp = &e->f->pools[i];
    struct epool *pl = &e->p[i];
    if (e->drawn && fp->gpus_up == pl->at_up &&
        fp->used_milli == pl->at_used && pl->dyn_w == pl->at_dyn)
        return 0;
    pl->at_up = fp->gpus_up;
    pl->at_used = fp->used_milli;
    pl->at_dyn = pl->dyn_w;
    double up = (double)fp->gpus_up;
    double used = (double)fp->used_milli / 1000.0;
    double freeg = up - used;
    if (freeg < 0)
        freeg = 0;
    pl->hw = up * pl->host_idle_w + used * pl->host_dyn_w;
    pl->w = up * (pl->idle_w - pl->host_idle_w) + pl->hw + pl->dyn_w;
    pl->bw = up * (pl->idle_w - pl->host_idle_w) + pl->dyn_w;
    pl->wi = freeg * pl->idle_w;
    return 1;
}

/* The clock moves to t: every region's board power, constant since the
 * last move, integrated with its price and intensity.  Between moves
 * where no pool's power changed (a service's iterations, each its own
 * move) the regions' sums are the last move's. */
static void m_advance(void *st, gs_time t)
{
    struct energy *e = st;
    if (e->last < 0) {
        e->first = e->last = t;
        e->last_h = hours_at(e, t);
        e->s_t0 = e->s_next = e->s_last = t;
        e->s_nx = (double)t / 1000.0;
        return;
    }
    if (t <= e->last)
        return;
    double dt_s = (double)(t - e->last) / 1000.0;
    int moved = 0;
    for (int i = 0; i < e->np; i++)
        if (e->f->pools[i].s.gpn != 0)
            moved |= pool_draw(e, i);
    if (moved || !e->drawn) {
        for (int k = 0; k < e->nr; k++)
            e->r[k].p_w = e->r[k].idle_w = e->r[k].host_w = 0;
        e->board_w = 0;
        for (int i = 0; i < e->np; i++) {
            const struct epool *pl = &e->p[i];
            if (e->f->pools[i].s.gpn == 0)
                continue;
            e->board_w += pl->bw;
            e->r[pl->region].p_w += pl->w;
            e->r[pl->region].idle_w += pl->wi;
            e->r[pl->region].host_w += pl->hw;
        }
        for (int k = 0; k < e->nr; k++) {
            struct eregion *r = &e->r[k];
            r->kw = r->p_w / 1000.0 * r->pue;
            r->ki = r->idle_w / 1000.0 * r->pue;
        }
        e->drawn = 1;
    }
    for (int i = 0; i < e->np; i++) {
        struct epool *pl = &e->p[i];
        if (e->f->pools[i].s.gpn == 0)
            continue;
        pl->it_j += pl->w * dt_s;
        pl->idle_j += pl->wi * dt_s;
        pl->host_j += pl->hw * dt_s;
    }
    double h0 = e->last_h, h1 = hours_at(e, t);
    for (int k = 0; k < e->nr; k++) {
        struct eregion *r = &e->r[k];
        if (r->p_w == 0 && r->idle_w == 0)
            continue;
        double p1 = series_integral(&r->price, h1);
        double c1 = series_integral(&r->carbon, h1);
        double dp = p1 - (r->at_h == h0 ? r->price_at
                                        : series_integral(&r->price, h0));
        double dc = c1 - (r->at_h == h0 ? r->carbon_at
                                        : series_integral(&r->carbon, h0));
        r->at_h = h1;
        r->price_at = p1;
        r->carbon_at = c1;
        double kw = r->kw, ki = r->ki;
        r->it_j += r->p_w * dt_s;
        r->host_j += r->host_w * dt_s;
        r->usd += kw * dp;
        r->g += kw * dc;
        r->idle_j += r->idle_w * dt_s;
        r->idle_usd += ki * dp;
        r->idle_g += ki * dc;
    }
    series_to(e, t, e->board_w);
    e->last = t;
    e->last_h = h1;
}

/* The run ends: the booked energy joins the integrals (once). */
static void m_close(void *st, gs_time end)
{
    struct energy *e = st;
    (void)end;
    for (int i = 0; i < e->np; i++) {
        e->p[i].it_j += e->p[i].b_j;
        e->p[i].b_j = 0;
    }
    for (int k = 0; k < e->nr; k++) {
        struct eregion *r = &e->r[k];
        r->it_j += r->b_j;
        r->usd += r->b_usd;
        r->g += r->b_g;
        r->b_j = r->b_usd = r->b_g = 0;
    }
}

/* What it integrates -- pools' power, regions' prices and intensities by
 * the hour, exactly -- moves only with the cluster (model.h's still). */
static int m_still(const void *st)
{
    (void)st;
    return 1;
}

static void m_summarize(void *st, struct gs_summary *su)
{
    struct energy *e = st;
    struct gs_energysum *o = &e->out;
    memset(o, 0, sizeof *o);
    for (int k = 0; k < e->nr; k++) {
        const struct eregion *r = &e->r[k];
        o->it_kwh += r->it_j / J_PER_KWH;
        o->host_kwh += r->host_j / J_PER_KWH;
        o->kwh += r->it_j / J_PER_KWH * r->pue;
        o->idle_kwh += r->idle_j / J_PER_KWH * r->pue;
        o->usd += r->usd;
        o->idle_usd += r->idle_usd;
        o->gco2 += r->g;
        o->idle_gco2 += r->idle_g;
    }
    o->span_h = e->last > e->first ? (double)(e->last - e->first) / GS_HOUR
                                   : 0;
    /* the energy bill is a part of the run's (the cloud's is set) */
    su->cost += o->usd;
    su->cost_per_used_gpu_hour = su->gpu_hours_used > 0
                                     ? su->cost / su->gpu_hours_used : 0;
}

/* --- outputs ------------------------------------------------------------- */

static const struct gs_field fields[] = {
    { "energy_kwh", "%.4f", "kWh",
      "facility energy of the GPU nodes: IT energy (GPU boards and hosts) "
      "x PUE" },
    { "energy_it_kwh", "%.4f", "kWh",
      "IT energy of the GPU nodes (boards and hosts), before PUE" },
    { "energy_host_kwh", "%.4f", "kWh",
      "of energy_it_kwh: the nodes' hosts (CPUs, memory, NICs, fans)" },
    { "energy_idle_kwh", "%.4f", "kWh",
      "of energy_kwh: GPUs up and allocated to no job, at idle power, with "
      "their share of their hosts' idle power" },
    { "energy_cost_usd", "%.2f", "USD",
      "energy cost at the tariffs by hour: a part of cost_usd" },
    { "carbon_kg", "%.4f", "kg",
      "CO2e of energy_kwh at the grid intensity by hour" },
    { "power_mean_kw", "%.4f", "kW",
      "mean facility power of the GPUs over the run" },
    { "carbon_kg_per_hour", "%.6f", "kg/h",
      "carbon_kg per hour of the run" },
    { "energy_cost_usd_per_hour", "%.6f", "USD/h",
      "energy_cost_usd per hour of the run" },
};
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))

static void m_values(const void *st, double *v)
{
    const struct gs_energysum *o = &((const struct energy *)st)->out;
    v[0] = o->kwh;
    v[1] = o->it_kwh;
    v[2] = o->host_kwh;
    v[3] = o->idle_kwh;
    v[4] = o->usd;
    v[5] = o->gco2 / 1000.0;
    v[6] = o->span_h > 0 ? o->kwh / o->span_h : 0;
    v[7] = o->span_h > 0 ? o->gco2 / 1000.0 / o->span_h : 0;
    v[8] = o->span_h > 0 ? o->usd / o->span_h : 0;
}

static void m_report(const struct gs_sim *s, const void *st, FILE *fp)
{
    (void)s;
    if (st == NULL)
        return;
    const struct energy *e = st;
    const struct gs_energysum *o = &e->out;
    if (o->it_kwh <= 0)
        return;
    fprintf(fp, "  energy        %.1f kWh (%.1f kWh IT: %.1f GPU boards, "
            "%.1f hosts", o->kwh, o->it_kwh, o->it_kwh - o->host_kwh,
            o->host_kwh);
    if (e->nr == 1)
        fprintf(fp, "; PUE %.2f", e->r[0].pue);
    fprintf(fp, "; %.1f kWh idle GPUs), $%.2f of the bill, %.1f kg CO2e\n",
            o->idle_kwh, o->usd, o->gco2 / 1000.0);
}

static void json_triple(FILE *fp, double kwh, double usd, double g)
{
    fprintf(fp, "{\"kwh\": ");
    gs_report_json_num(fp, "%.6f", kwh);
    fprintf(fp, ", \"cost_usd\": ");
    gs_report_json_num(fp, "%.6f", usd);
    fprintf(fp, ", \"carbon_kg\": ");
    gs_report_json_num(fp, "%.6f", g / 1000.0);
    fputc('}', fp);
}

/* Pool i's figures, with the fleet's meanings (energy.h). */
static void pool_sum(const struct energy *e, int i, struct gs_energysum *o)
{
    const struct epool *pl = &e->p[i];
    double pue = e->r[pl->region].pue;
    memset(o, 0, sizeof *o);
    o->it_kwh = pl->it_j / J_PER_KWH;
    o->host_kwh = pl->host_j / J_PER_KWH;
    o->kwh = pl->it_j / J_PER_KWH * pue;
    o->idle_kwh = pl->idle_j / J_PER_KWH * pue;
}

static void m_json(const struct gs_sim *s, const void *st, FILE *fp)
{
    if (st == NULL)
        return;
    const struct energy *e = st;
    const struct gs_energysum *o = &e->out;
    fprintf(fp, ",\n  \"energy_by\": {\n    \"fleet\": ");
    json_triple(fp, o->kwh, o->usd, o->gco2);
    fprintf(fp, ",\n    \"idle\": ");
    json_triple(fp, o->idle_kwh, o->idle_usd, o->idle_gco2);
    fprintf(fp, ",\n    \"tenant\": {");
    for (int t = 0; t < gs_sim_ntenants(s); t++) {
        fprintf(fp, "%s", t ? ", " : "");
        gs_report_json_str(fp, gs_sim_tenant_name(s, t));
        fprintf(fp, ": ");
        const struct etenant *x = t < e->nten ? &e->ten[t] : NULL;
        json_triple(fp, x ? x->kwh : 0, x ? x->usd : 0, x ? x->g : 0);
    }
    fprintf(fp, "},\n    \"tier\": {");
    for (int t = 0; t < GS_NTIERS; t++) {
        fprintf(fp, "%s\"%s\": ", t ? ", " : "", gs_tier_name(t));
        json_triple(fp, e->tier[t].kwh, e->tier[t].usd, e->tier[t].g);
    }
    fprintf(fp, "},\n    \"region\": {");
    for (int k = 0; k < e->nr; k++) {
        const struct eregion *r = &e->r[k];
        fprintf(fp, "%s", k ? ", " : "");
        gs_report_json_str(fp, e->sc->energy.region[k].name);
        fprintf(fp, ": ");
        json_triple(fp, r->it_j / J_PER_KWH * r->pue, r->usd, r->g);
    }
    fprintf(fp, "},\n    \"pool\": {");
    for (int i = 0; i < e->np; i++) {
        struct gs_energysum pe;
        pool_sum(e, i, &pe);
        fprintf(fp, "%s", i ? ", " : "");
        gs_report_json_str(fp, e->sc->pools[i].name);
        const char *name[] = { "kwh", "it_kwh", "host_kwh", "idle_kwh" };
        double v[] = { pe.kwh, pe.it_kwh, pe.host_kwh, pe.idle_kwh };
        for (int k = 0; k < 4; k++) {
            fprintf(fp, "%s\"%s\": ", k ? ", " : ": {", name[k]);
            gs_report_json_num(fp, "%.6f", v[k]);
        }
        fputc('}', fp);
    }
    fprintf(fp, "}\n  }");
}

static void m_csv(const struct gs_sim *s, const void *st, FILE *fp)
{
    if (st == NULL)
        return;
    const struct energy *e = st;
    const struct gs_energysum *o = &e->out;
    fprintf(fp, "energy:fleet,kwh,%.6f\nenergy:fleet,usd,%.6f\n"
            "energy:fleet,carbon_kg,%.6f\n", o->kwh, o->usd, o->gco2 / 1000);
    fprintf(fp, "energy:idle,kwh,%.6f\nenergy:idle,usd,%.6f\n"
            "energy:idle,carbon_kg,%.6f\n", o->idle_kwh, o->idle_usd,
            o->idle_gco2 / 1000);
    for (int t = 0; t < gs_sim_ntenants(s) && t < e->nten; t++)
        fprintf(fp, "energy:tenant:%s,kwh,%.6f\nenergy:tenant:%s,usd,%.6f\n"
                "energy:tenant:%s,carbon_kg,%.6f\n",
                gs_sim_tenant_name(s, t), e->ten[t].kwh,
                gs_sim_tenant_name(s, t), e->ten[t].usd,
                gs_sim_tenant_name(s, t), e->ten[t].g / 1000);
}

/* --- the HDF5 file's /energy ---------------------------------------------- */

/* names (n of them) and an [n, 3] table of kWh, $ and kg CO2e beside it:
 * plain arrays, each with its units and description. */
static void etable(struct gs_h5w *w, gs_h5loc g, const char *names_ds,
                   const char *const *names, const char *name,
                   const double *v, size_t n, const char *what)
{
    gs_h5w_strings(w, g, names_ds, names, n);
    char d[300];
    snprintf(d, sizeof d, "the rows of /energy/%s: %s", name, what);
    gs_h5w_describe(w, g, names_ds, "", d);
    size_t dims[2] = { n, 3 };
    gs_h5w_doubles(w, g, name, 2, dims, v);
    snprintf(d, sizeof d, "[%s, 3]: facility energy (kWh), its cost (USD) "
             "and its carbon (kg CO2e), by %s", names_ds, what);
    gs_h5w_describe(w, g, name, "kWh, USD, kg", d);
}

static void by_tenant(struct gs_h5w *w, gs_h5loc g, const struct gs_sim *s,
                      const struct energy *e)
{
    int nt = gs_sim_ntenants(s);
    const char **names = calloc((size_t)nt + 1, sizeof *names);
    double *v = calloc(3 * ((size_t)nt + 1), sizeof *v);
    if (names == NULL || v == NULL) {
        gs_h5w_fail(w, "/energy/by_tenant");
    } else {
        for (int t = 0; t < nt; t++) {
            names[t] = gs_sim_tenant_name(s, t);
            if (t < e->nten) {
                v[3 * t] = e->ten[t].kwh;
                v[3 * t + 1] = e->ten[t].usd;
                v[3 * t + 2] = e->ten[t].g / 1000;
            }
        }
        names[nt] = "idle";
        v[3 * nt] = e->out.idle_kwh;
        v[3 * nt + 1] = e->out.idle_usd;
        v[3 * nt + 2] = e->out.idle_gco2 / 1000;
        etable(w, g, "tenants", names, "by_tenant", v, (size_t)nt + 1,
               "tenant, then the unallocated GPUs (idle); the rows add up "
               "to the fleet's");
    }
    free(names);
    free(v);
}

static void jobs_energy(struct gs_h5w *w, gs_h5loc g, const struct gs_sim *s)
{
    long n;
    gs_sim_records(s, &n);
    double *v = malloc((size_t)(n ? n : 1) * 2 * sizeof *v);
    if (v == NULL) {
        gs_h5w_fail(w, "/energy/jobs");
        return;
    }
    for (long i = 0; i < n; i++) {
        struct gs_jobenergy je = gs_sim_record_energy(s, i);
        v[2 * i] = je.kwh;
        v[2 * i + 1] = je.gco2 / 1000;
    }
    size_t dims[2] = { (size_t)n, 2 };
    gs_h5w_doubles(w, g, "jobs", 2, dims, v);
    gs_h5w_describe(w, g, "jobs", "kWh, kg", "per job, in /jobs' row order: "
                    "facility energy (its share of its GPUs' idle power "
                    "and its own dynamic power, x PUE) and kg CO2e");
    free(v);
}

/* /timeseries/DCGM_FI_DEV_POWER_USAGE: each step's energy over the step,
 * W, one row a sample of the metrics' series (the same grid: see the
 * essay). */
static void series_h5(const struct gs_sim *s, const struct energy *e,
                      struct gs_h5w *w)
{
    const struct gs_metrics *m = gs_sim_metrics(s);
    GS_ASSERT(e->nser == m->ts.n && (e->nser == 0 || e->s_step == m->step));
    double *v = malloc((size_t)(e->nser ? e->nser : 1) * sizeof *v);
    if (v == NULL) {
        gs_h5w_fail(w, "/timeseries/DCGM_FI_DEV_POWER_USAGE");
        return;
    }
    double step_s = (double)e->s_step / 1000.0;
    for (long k = 0; k < e->nser; k++)
        v[k] = e->ser[k] / step_s;
    gs_h5loc g = gs_h5w_open(w, gs_h5w_root(w), "timeseries");
    if (g >= 0) {
        size_t n = (size_t)e->nser;
        gs_h5w_doubles(w, g, "DCGM_FI_DEV_POWER_USAGE", 1, &n, v);
        gs_h5w_describe(w, g, "DCGM_FI_DEV_POWER_USAGE", "W",
                        "board power of all the fleet's GPUs, summed, mean "
                        "over the step ending at time_s (0 at the first): "
                        "idle power of the GPUs up, jobs' and inference "
                        "replicas' dynamic power; no hosts, no PUE");
        gs_h5w_close(g);
    }
    free(v);
}

static void m_h5(const struct gs_sim *s, const void *st, struct gs_h5w *w)
{
    if (st == NULL)
        return;
    const struct energy *e = st;
    series_h5(s, e, w);
    gs_h5loc g = gs_h5w_group(w, gs_h5w_root(w), "energy");
    if (g < 0)
        return;
    by_tenant(w, g, s, e);
    const char *names[GS_ENERGY_REGIONS];
    double v[3 * GS_ENERGY_REGIONS];
    for (int k = 0; k < e->nr; k++) {
        const struct eregion *r = &e->r[k];
        names[k] = e->sc->energy.region[k].name;
        v[3 * k] = r->it_j / J_PER_KWH * r->pue;
        v[3 * k + 1] = r->usd;
        v[3 * k + 2] = r->g / 1000;
    }
    etable(w, g, "regions", names, "by_region", v, (size_t)e->nr,
           "energy region ($.energy.regions; default: $.energy's own "
           "keys)");
    jobs_energy(w, g, s);
    gs_h5w_close(g);
}

const struct gs_model_ops gs_energy_model = {
    .name = "energy",
    .build = m_build,
    .free = m_free,
    .job_started = m_started,
    .job_stopping = m_stopping,
    .job_ran = m_ran,
    .job_energy = m_energy,
    .advance = m_advance,
    .still = m_still,
    .close = m_close,
    .summarize = m_summarize,
    .rank = 25,
    .fields = fields,
    .nfields = NFIELDS,
    .values = m_values,
    .report = m_report,
    .json = m_json,
    .csv = m_csv,
    .h5 = m_h5,
};

const struct gs_energysum *gs_sim_energy(const struct gs_sim *s)
{
    const struct energy *e = gs_sim_model(s, &gs_energy_model);
    return e ? &e->out : NULL;
}

void gs_energy_tenant(const struct gs_sim *s, int t, double *kwh, double *usd,
                      double *gco2)
{
    const struct energy *e = gs_sim_model(s, &gs_energy_model);
    int in = e && t >= 0 && t < e->nten;
    *kwh = in ? e->ten[t].kwh : 0;
    *usd = in ? e->ten[t].usd : 0;
    *gco2 = in ? e->ten[t].g : 0;
}

int gs_energy_pool(const struct gs_sim *s, int i, struct gs_energysum *o)
{
    const struct energy *e = gs_sim_model(s, &gs_energy_model);
    if (!e || i < 0 || i >= e->np)
        return GS_ENOTFOUND;
    pool_sum(e, i, o);
    return 0;
}

int gs_energy_region(const struct gs_sim *s, int k, double *kwh, double *usd,
                     double *gco2)
{
    const struct energy *e = gs_sim_model(s, &gs_energy_model);
    if (!e || k < 0 || k >= e->nr)
        return GS_ENOTFOUND;
    const struct eregion *r = &e->r[k];
    *kwh = r->it_j / J_PER_KWH * r->pue;
    *usd = r->usd;
    *gco2 = r->g;
    return 0;
}
