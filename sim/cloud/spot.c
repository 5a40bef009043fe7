/* spot.c -- spot interruptions: notice, reclaim, replacement.
 *
 * Model: every node of a spot pool, while in service, is reclaimed by the
 * provider at the first event of a Poisson process -- a constant rate per
 * node-hour ($.fleet[i].spot.interruptions_per_hour), or a time-varying
 * rate h(t) read from a hazard file, drawn exactly by inverting the
 * cumulative hazard: the reclaim comes at the first R with
 * integral_{since}^{R} h = E, E ~ Exp(1).  So the number of reclaims over
 * a run is Poisson with mean rate x node-hours in service (tests/test_cloud.c
 * checks it).
 *
 * A notice reaches the node $.spot.notice (2 minutes, as EC2 gives) before
 * the reclaim: the node is cordoned and the policy's spot_notice hook runs
 * (sim.c holds the default: jobs that can checkpoint do so).  At the
 * reclaim every job still on the node is interrupted -- work since its last
 * checkpoint is lost, it pays its tier's restart overhead and is requeued
 * -- and the node goes away.  An autoscaled pool leaves the replacing to
 * the autoscaler; any other spot pool launches a replacement at once that
 * is ready after $.fleet[i].spot.replace_after (3-8 minutes by default,
 * like any node), unless replace_after is false.
 *
 * Streams: "spot" (reclaim times), "spot.replace" (replacement delays). */
#include "cloudint.h"

#include <gsl/gsl_randist.h>
#include <math.h>

static void on_notice(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_ctimer *tm = (struct gs_ctimer *)ev;
    struct gs_cloud *c = tm->c;
    int node = tm->idx;
    struct gs_cnode *n = &c->node[node];
    if (!gs_ns_serving(n->state))
        return;
    gs_cloud_node_set(c, node, NS_NOTICE);
    c->sum.spot_notices++;
    gs_cloud_log_event(c, GS_CEV_NOTICE, node, -1,
                       c->f->nodes[node].njobs,
                       (double)(n->reclaim_at - gs_cloud_now(c)) / 1000.0);
    gs_sim_spot_notice(c->sim, node, n->reclaim_at);
}

static void on_reclaim(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_ctimer *tm = (struct gs_ctimer *)ev;
    struct gs_cloud *c = tm->c;
    int node = tm->idx;
    if (!gs_ns_serving(c->node[node].state))
        return;
    const struct gs_poolcloud *pc = c->pool[c->f->nodes[node].pool].cfg;
    long n = gs_cloud_jobs_on(c, node, -1);
    double lost = gs_cloud_interrupt(c, n, GS_STOP_SPOT);
    c->sum.spot_reclaims++;
    c->sum.spot_restarts += n;
    c->sum.spot_lost_gpu_h += lost;
    gs_cloud_log_event(c, GS_CEV_RECLAIM, node, -1, (int)n, lost);
    gs_cloud_node_set(c, node, NS_OFF);
    if (!pc->autoscale && pc->replace)
        gs_cloud_launch(c, node, gs_cloud_draw(c->r_replace,
                                               &pc->replace_delay), -1);
    gs_sim_wake(c->sim);
}

int gs_spot_init(struct gs_cloud *c, struct gs_diag *d)
{
    for (int i = 0; i < c->f->nnodes; i++) {
        gs_event_init(&c->t_notice[i].ev, on_notice);
        c->t_notice[i].c = c;
        c->t_notice[i].idx = i;
        gs_event_init(&c->t_reclaim[i].ev, on_reclaim);
        c->t_reclaim[i].c = c;
        c->t_reclaim[i].idx = i;
    }
    for (int i = 0; i < c->f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        if (p->cfg->hazard_file) {
            int rc = gs_pwc_load(&p->hazard, p->cfg->hazard_file, 0, 1e6, d);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

void gs_spot_enter(struct gs_cloud *c, int node)
{
    struct gs_cpool *p = &c->pool[c->f->nodes[node].pool];
    if (p->market != GS_MKT_SPOT)
        return;
    gs_time now = gs_cloud_now(c), at;
    if (p->hazard.n) {
        double e = gsl_ran_exponential(c->r_spot, 1.0);
        gs_time rel = gs_pwc_invert(&p->hazard, now - c->t0, e * GS_HOUR);
        at = rel == GS_TIME_MAX ? GS_TIME_MAX : c->t0 + rel;
    } else if (p->cfg->spot_rate > 0) {
        double dt = gsl_ran_exponential(c->r_spot,
                                        (double)GS_HOUR / p->cfg->spot_rate);
        at = dt > 9.0e15 ? GS_TIME_MAX : now + (gs_time)ceil(dt);
    } else {
        return;
    }
    if (at == GS_TIME_MAX || at > GS_TIME_MAX / 2)
        return;
    c->node[node].reclaim_at = at;
    gs_time notice = at - c->cfg->notice;
    gs_sim_at(c->sim, &c->t_notice[node].ev, notice > now ? notice : now);
    gs_sim_at(c->sim, &c->t_reclaim[node].ev, at);
}

void gs_spot_leave(struct gs_cloud *c, int node)
{
    gs_sim_cancel(c->sim, &c->t_notice[node].ev);
    gs_sim_cancel(c->sim, &c->t_reclaim[node].ev);
}
