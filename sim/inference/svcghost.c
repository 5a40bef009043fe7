/* svcghost.c -- services taped as their replica jobs, and replayed
 * (svcghost.h).
 *
 * What the rest of a run sees of a service is its replica jobs: submitted
 * at its opening, started where the policy puts them, ended when the
 * service drains them; and the energy above idle that its iterations book
 * to them (gs_sim_job_energy).  The engine knows nothing of the fleet, its
 * request stream has its own random streams (gs_rng_stream of the seed
 * and the service's name), and the rest of what a replica's engine is
 * built from is its GPU model, its pool's power cap and its static power
 * (service.c, gs_svc_job_started_hook).  So two runs whose replica jobs
 * are submitted, start and end at the same milliseconds on like GPUs,
 * with no replica lost, simulate the same requests to the bit, and two
 * runs whose replica records (GPU-hours, cost, energy) agree report the
 * same service figures (svcsum.c reads those records).
 *
 * The tape (doubles, so that it travels between processes and MPI ranks
 * as a run's results do): [usable, services], then per service [done,
 * done at (ms), replicas], then per replica the TAPE_ROW fields below.
 * A run can be taped when every service finished its stream (done), lost
 * no replica and ended all of them; without an autoscaler, MIG profile,
 * or a price or carbon series that is not flat (the ghost books each
 * replica's iteration energy at once, at its start: with a flat series it
 * costs the same, to the last bits; the fleet's power series, which no
 * replay writes, would take it all in the step of its start).
 *
 * The ghost.  gs_svc_ghost takes over each service's event (its first is
 * already filed at the service's opening, where the full run's would be)
 * and, through svcmodel.c, the model's job hooks: at the opening it
 * submits the taped replicas with the jobs' very specification
 * (service.c's rep_submit), then wakes at each taped end and at the
 * taped done.  It diverges -- and the run must be run in full -- when a
 * replica is submitted or starts at another millisecond, on another GPU
 * model, power cap or static power, when the simulation stops one (a
 * preemption, a spot reclaim, a failure), when one has not started or
 * ended by the close, or when the replica records differ at the end
 * (GPU-hours and times exactly, cost and energy beyond rounding: the full
 * run books the iterations' energy one at a time).
 * Exactly as the full run: the replica jobs' records, every job's
 * record and what is computed from them (waits, completions, GPU-hours,
 * cost).  Not to the bit: the simulation's integrals (utilization,
 * fragmentation, the bill's running sum, the energy model's) add the
 * same piecewise-constant levels over fewer, longer steps, since the
 * services' iterations no longer move the clock, and the energy above
 * idle is added once per replica, not once per iteration: they agree to
 * rounding (tests/test_plan.c bounds the difference), and a question
 * that runs every candidate as a ghost compares them on equal terms. */
#include "svcghost.h"
#include "svcint.h"
#include "../cluster/power.h"
#include "../spec/scenario.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A replica's row: its pool, the job's arrival, start and end (ms), the
 * GPU model it ran on, its record's cost and GPU-hours and energy (kWh,
 * g CO2e), the energy above idle its iterations booked (J), and its
 * static power, power cap and PUE as the service computed them. */
enum { R_POOL, R_ARR, R_START, R_END, R_MODEL, R_COST, R_GH, R_KWH, R_G,
       R_DYN, R_STATIC, R_CAP, R_PUE, TAPE_ROW };
enum { S_DONE, S_DONE_MS, S_NREP, TAPE_SVC };

struct ghrep {
    struct svmodel *m;          /* first, as struct rep's: job->owner */
    struct gs_job *job;
    long rec;
    const double *row;
    int started, ended, ours;
};

struct ghsvc {
    const double *head;
    struct ghrep *rep;
    int nrep, opened, done;
};

struct svghost {
    struct ghsvc *sv;
    int n, diverged;
};

static int pool_ok(const struct gs_svcpool *p)
{
    return !p->autoscale && p->mig_profile[0] == '\0';
}

long gs_svc_tape_size(const struct gs_scenario *sc)
{
    if (sc->nsvcs == 0)
        return 0;
    for (int k = 0; k < sc->energy.nregions; k++)
        if (sc->energy.region[k].price.n != 1 ||
            sc->energy.region[k].carbon.n != 1)
            return 0;
    long n = 2;
    for (int i = 0; i < sc->nsvcs; i++) {
        n += TAPE_SVC;
        for (int p = 0; p < sc->svcs[i].npools; p++) {
            if (!pool_ok(&sc->svcs[i].pool[p]))
                return 0;
            n += (long)sc->svcs[i].pool[p].replicas * TAPE_ROW;
        }
    }
    return n;
}

/* The row of replica r, ended, from its job's record. */
static void tape_row(const struct gs_sim *s, const struct rep *r, double *w)
{
    long nrec;
    const struct gs_jobrec *rec = gs_sim_records(s, &nrec);
    const struct gs_jobrec *jr = &rec[r->rec];
    struct gs_jobenergy je = gs_sim_record_energy(s, r->rec);
    w[R_POOL] = r->pool;
    w[R_ARR] = (double)jr->arrival;
    w[R_START] = (double)jr->start;
    w[R_END] = (double)jr->end;
    w[R_MODEL] = jr->model;
    w[R_COST] = jr->cost;
    w[R_GH] = jr->gpu_hours;
    w[R_KWH] = je.kwh;
    w[R_G] = je.gco2;
    w[R_DYN] = r->dyn_j;
    w[R_STATIC] = r->static_w;
    w[R_CAP] = r->cap_w;
    w[R_PUE] = r->pue;
}

int gs_svc_tape_get(const struct gs_sim *s, double *tape, long n)
{
    const struct svmodel *m = gs_sim_model_named(s, GS_SVC_MODEL);
    memset(tape, 0, (size_t)n * sizeof *tape);
    if (m == NULL || m->ghost || gs_svc_tape_size(m->sc) != n)
        return 0;
    long nrec, k = 2;
    (void)gs_sim_records(s, &nrec);
    for (int i = 0; i < m->n; i++) {
        const struct svc *sv = &m->sv[i];
        if (!sv->done || sv->losses > 0 || sv->restarted > 0 ||
            k + TAPE_SVC + (long)sv->nrep * TAPE_ROW > n)
            return 0;
        tape[k + S_DONE] = 1;
        tape[k + S_DONE_MS] = (double)llround(sv->done_s * 1000.0);
        tape[k + S_NREP] = sv->nrep;
        k += TAPE_SVC;
        for (int j = 0; j < sv->nrep; j++) {
            const struct rep *r = sv->rep[j];
            if (r->state != RS_GONE || r->rec >= nrec)
                return 0;
            tape_row(s, r, &tape[k]);
            if (tape[k + R_START] < 0 || tape[k + R_END] < tape[k + R_START])
                return 0;
            k += TAPE_ROW;
        }
    }
    tape[1] = m->n;
    tape[0] = 1;
    return 1;
}

/* --- the ghost ------------------------------------------------------------ */

static struct ghrep *ghost_of(const struct svmodel *m, const struct gs_job *j)
{
    struct ghrep *g = j->owner;
    return g && g->m == m ? g : NULL;
}

/* Submit taped replica g of service sv as rep_submit does. */
static void ghost_submit(struct svc *sv, struct ghrep *g, int id)
{
    const struct gs_svcpool *pc = &sv->cfg->pool[(int)g->row[R_POOL]];
    struct gs_jobspec sp;
    gs_svc_replica_spec(sv, pc, id, &sp);
    g->m = sv->m;
    int rc = gs_sim_submit(sv->m->s, &sp, g, &g->job);
    GS_OOM_IF(rc == GS_ENOMEM);
    if (rc < 0 || (double)sp.arrival != g->row[R_ARR]) {
        sv->m->ghost->diverged = 1;     /* refused: no pool can hold it */
        g->job = NULL;
        g->ended = 1;
        return;
    }
    g->rec = (long)g->job->rec;
}

/* The ghost's event: the opening, then each taped end and the done. */
static void ghost_wake(struct gs_event *ev, void *ctx)
{
    struct svc *sv = (struct svc *)ev;
    (void)ctx;
    struct svghost *gh = sv->m->ghost;
    struct ghsvc *g = &gh->sv[sv->idx];
    gs_time now = gs_sim_now(sv->m->s), next = GS_TIME_MAX;
    if (!g->opened) {
        g->opened = 1;
        for (int j = 0; j < g->nrep; j++)
            ghost_submit(sv, &g->rep[j], j);
    }
    for (int j = 0; j < g->nrep; j++) {
        struct ghrep *r = &g->rep[j];
        gs_time end = (gs_time)r->row[R_END];
        if (r->ended)
            continue;
        if (end > now) {
            next = end < next ? end : next;
            continue;
        }
        if (!r->started) {
            gh->diverged = 1;
            continue;
        }
        r->ended = r->ours = 1;
        GS_OOM_IF(gs_sim_complete(sv->m->s, r->job) == GS_ENOMEM);
        r->job = NULL;
    }
    gs_time done = (gs_time)g->head[S_DONE_MS];
    if (done <= now)
        g->done = 1;
    else if (done < next)
        next = done;
    if (next != GS_TIME_MAX)
        GS_OOM_IF(gs_sim_at(sv->m->s, &sv->ev, next) < 0);
}

void gs_svc_ghost_started(struct svmodel *m, struct gs_job *j)
{
    struct ghrep *g = ghost_of(m, j);
    if (g == NULL)
        return;
    const struct gs_scenario *sc = m->sc;
    const struct gs_pool_spec *ps = &sc->pools[j->alloc.pool];
    struct gs_slot_power slot = gs_power_slot(&sc->cat.m[ps->model], ps);
    double pue = sc->energy.region[ps->region].pue;
    double static_w = (double)gs_alloc_milli(&j->alloc) / 1000.0 * pue *
                      (slot.board_idle_w + slot.host_idle_w + slot.host_dyn_w);
    if (g->started || (double)gs_sim_now(m->s) != g->row[R_START] ||
        (double)j->model != g->row[R_MODEL] ||
        ps->power_cap_w != g->row[R_CAP] || pue != g->row[R_PUE] ||
        static_w != g->row[R_STATIC])
        m->ghost->diverged = 1;
    g->started = 1;
    double now = (double)gs_sim_now(m->s) / 1000.0;
    gs_sim_job_energy(m->s, j, g->row[R_DYN], now, now);
}

void gs_svc_ghost_ended(struct svmodel *m, struct gs_job *j, int why)
{
    struct ghrep *g = ghost_of(m, j);
    (void)why;
    if (g != NULL && !g->ours)
        m->ghost->diverged = 1;     /* the simulation stopped it */
}

int gs_svc_ghost_alive(const struct svmodel *m)
{
    for (int i = 0; i < m->n; i++)
        if (!m->ghost->sv[i].done)
            return 1;
    return 0;
}

int gs_svc_ghost(struct gs_sim *s, const double *tape)
{
    struct svmodel *m = gs_sim_model_named(s, GS_SVC_MODEL);
    if (m == NULL || tape[0] != 1 || tape[1] != m->n ||
        gs_svc_tape_size(m->sc) == 0)
        return 1;
    struct svghost *gh = calloc(1, sizeof *gh);
    GS_OOM_IF(gh == NULL);
    gh->sv = calloc((size_t)m->n, sizeof *gh->sv);
    GS_OOM_IF(gh->sv == NULL);
    gh->n = m->n;
    long k = 2;
    for (int i = 0; i < m->n; i++) {
        struct ghsvc *g = &gh->sv[i];
        g->head = &tape[k];
        g->nrep = (int)tape[k + S_NREP];
        k += TAPE_SVC;
        int want = 0;
        for (int p = 0; p < m->sc->svcs[i].npools; p++)
            want += m->sc->svcs[i].pool[p].replicas;
        for (int j = 0; j < g->nrep; j++)
            if (tape[k + j * TAPE_ROW + R_POOL] >= m->sc->svcs[i].npools)
                want = -1;
        if (g->nrep != want) {
            m->ghost = gh;
            gs_svc_ghost_free(m);
            return 1;
        }
        g->rep = calloc((size_t)g->nrep + 1, sizeof *g->rep);
        GS_OOM_IF(g->rep == NULL);
        for (int j = 0; j < g->nrep; j++, k += TAPE_ROW)
            g->rep[j].row = &tape[k];
    }
    m->ghost = gh;
    for (int i = 0; i < m->n; i++)
        m->sv[i].ev.fire = ghost_wake;
    return 0;
}

void gs_svc_ghost_free(struct svmodel *m)
{
    if (m->ghost == NULL)
        return;
    for (int i = 0; i < m->ghost->n; i++)
        free(m->ghost->sv[i].rep);
    free(m->ghost->sv);
    free(m->ghost);
    m->ghost = NULL;
}

/* The replica's cost and energy as the tape's run booked them: the full
 * run adds its iterations' energy (and at a flat price its cost) one
 * iteration at a time, the ghost all at once, so they agree to rounding;
 * a replica on another pool, price or time differs by far more. */
static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

int gs_svc_ghost_matched(const struct gs_sim *s)
{
    const struct svmodel *m = gs_sim_model_named(s, GS_SVC_MODEL);
    if (m == NULL || m->ghost == NULL || m->ghost->diverged)
        return 0;
    long nrec;
    const struct gs_jobrec *rec = gs_sim_records(s, &nrec);
    for (int i = 0; i < m->n; i++) {
        const struct ghsvc *g = &m->ghost->sv[i];
        if (!g->done)
            return 0;
        for (int j = 0; j < g->nrep; j++) {
            const struct ghrep *r = &g->rep[j];
            if (!r->ended || !r->ours || r->rec >= nrec)
                return 0;
            const struct gs_jobrec *jr = &rec[r->rec];
            struct gs_jobenergy je = gs_sim_record_energy(s, r->rec);
            if ((double)jr->end != r->row[R_END] ||
                (double)jr->start != r->row[R_START] ||
                (double)jr->gpu_hours != r->row[R_GH] ||
                !near(jr->cost, r->row[R_COST]) ||
                !near(je.kwh, r->row[R_KWH]) || !near(je.gco2, r->row[R_G]))
                return 0;
        }
    }
    return 1;
}
