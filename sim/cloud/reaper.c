/* reaper.c -- the idle GPU job reaper.
 *
 * A job's utilization profile (struct gs_job: phase[]) alternates busy
 * and idle phases along its work, busy first, repeating until it ends; the
 * native trace's idle_profile column and the generator's idle_profile give
 * it.  A job of a tier the scenario names ($.reaper.tiers, interactive by
 * default) that holds its GPUs through an idle phase is terminated -- killed
 * with reason "reaped" -- the moment it has been idle for $.reaper.idle_after
 * (1 hour by default) of wall time, if that phase lasts longer.  Idle time
 * counts from the start of the phase or of the job's current run, whichever
 * is later; at the job's current speed, a phase of w work-ms takes w / rate
 * ms.
 *
 * The reaper keeps one timer at the earliest time any running job would
 * cross the threshold.  A job that starts may move it earlier; when it
 * fires, every running job is looked at again (so a job that sped up or
 * slowed down since -- a degraded GPU -- is judged at its present speed). */
#include "cloudint.h"

#include <math.h>
#include <stdlib.h>

/* When j, running, will have been idle for the threshold: GS_TIME_MAX if
 * never (not reaped, no long enough idle phase before it ends). */
static gs_time crossing(const struct gs_cloud *c, const struct gs_job *j,
                        gs_time now)
{
    int n = j->nphases;
    if (!(c->cfg->reap_tiers >> j->s.tier & 1) || n < 2 || j->rate <= 0 ||
        j->state != GS_JOB_RUNNING)
        return GS_TIME_MAX;
    double total = j->s.work + j->extra, r = j->rate;
    double done = j->done + (double)(now - j->mark) * r;
    if (done > total)
        done = total;
    double len = 0;
    for (int i = 0; i < n; i++)
        len += (double)j->phase[i];
    if (len <= 0)
        return GS_TIME_MAX;
    double T = (double)c->cfg->reap_after;
    double cyc = floor(done / len) * len, x = done - cyc, a = 0;
    int i = 0;
    while (i < n && x >= a + (double)j->phase[i]) {
        a += (double)j->phase[i];
        i++;
    }
    if (i == n) {
        cyc += len;
        x = a = 0;
        i = 0;
    }
    double end = cyc + a + (double)j->phase[i];   /* work at phase end */
    double ahead = (end - done) / r;                /* wall ms to it */
    if (i % 2 == 1) {
        double w = (done - (cyc + a)) / r;
        if (w > (double)(now - j->started))
            w = (double)(now - j->started);
        double wait = T - w > 0 ? T - w : 0;
        if (w + ahead > T) {
            if (done + wait * r >= total)
                return GS_TIME_MAX;
            return now + (gs_time)ceil(wait - 1e-6);
        }
    }
    double pos = end;
    for (int step = 1; step <= n && pos < total; step++) {
        int k = (i + step) % n;
        double ph = (double)j->phase[k];
        if (k % 2 == 1 && ph / r > T) {
            if (pos + T * r >= total)
                return GS_TIME_MAX;
            return now + (gs_time)ceil(ahead + T - 1e-6);
        }
        ahead += ph / r;
        pos += ph;
    }
    return GS_TIME_MAX;
}

static void arm(struct gs_cloud *c, gs_time t)
{
    struct gs_event *ev = &c->t_reap.ev;
    if (t == GS_TIME_MAX || (gs_event_pending(ev) && ev->hn.time <= t))
        return;
    gs_sim_at(c->sim, ev, t);
}

static void on_reap(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_cloud *c = ((struct gs_ctimer *)ev)->c;
    gs_time now = gs_cloud_now(c), next = GS_TIME_MAX;
    long nrun, k = 0;
    struct gs_job *const *run = gs_sim_running(c->sim, &nrun);
    gs_cloud_scratch(c, nrun);
    for (long i = 0; i < nrun; i++) {
        gs_time t = crossing(c, run[i], now);
        if (t <= now)
            c->scratch[k++] = run[i];
        else if (t < next)
            next = t;
    }
    for (long i = 0; i < k; i++) {
        struct gs_job *j = c->scratch[i];
        int node = j->alloc.n > 0 ? gs_alloc_parts(&j->alloc)[0].node : -1;
        double id = (double)j->s.id;
        if (gs_sim_kill(c->sim, j, GS_KILL_REAPED) == 0) {
            c->sum.reaped++;
            gs_cloud_log_event(c, GS_CEV_REAP, node, -1, 1, id);
        }
    }
    arm(c, next);
}

void gs_reap_init(struct gs_cloud *c)
{
    gs_event_init(&c->t_reap.ev, on_reap);
    c->t_reap.c = c;
    c->t_reap.idx = -1;
}

void gs_reap_started(struct gs_cloud *c, const struct gs_job *j)
{
    if (c->cfg->reap_tiers)
        arm(c, crossing(c, j, gs_cloud_now(c)));
}

void gs_reap_rescan(struct gs_cloud *c)
{
    if (c->cfg->reap_tiers)
        arm(c, gs_cloud_now(c));
}
