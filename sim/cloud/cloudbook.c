/* cloudbook.c -- the cloud's books, which every part of the cloud model
 * writes: node states, the event log, the jobs on a node and their
 * interruption, the draw of a delay, and the bill's getters.
 *
 * Every state change of a node goes through gs_cloud_node_set, which keeps
 * the fleet (up, cordoned) and the billed counts in step, and tells the
 * parts of the model that follow node states -- spot and failure timers
 * when a node enters or leaves service, the market's billing sessions, the
 * autoscaler's view -- through the hooks cloud.c wires (struct
 * gs_cloud_parts, cloudint.h).  The books name none of the parts, so the
 * parts can use the books without a circle: cloud.c ties them together,
 * the parts (market, spot, failure, autoscale, reaper) and the outputs
 * (cloudout.c) sit on the books. */
#include "cloudint.h"
#include "../base/rng.h"
#include "../io/gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const cev_names[GS_NCEV] = {
    "spot_notice", "spot_reclaim", "node_failure", "gpu_failure",
    "gpu_degraded", "repaired", "spare_in", "launch", "ready", "remove",
    "drain", "block_start", "block_end", "reaped",
};

const char *gs_cev_name(int kind)
{
    return kind >= 0 && kind < GS_NCEV ? cev_names[kind] : "?";
}

const char *gs_market_name(int market)
{
    static const char *const names[GS_NMARKETS] = {
        "on-demand", "reserved", "spot", "capacity-block" };
    return market >= 0 && market < GS_NMARKETS ? names[market] : "?";
}

gs_time gs_cloud_now(const struct gs_cloud *c)
{
    return gs_sim_now(c->sim);
}

void gs_cloud_log_event(struct gs_cloud *c, int kind, int node, int gpu,
                        int jobs, double value)
{
    if (c->nlog == c->caplog) {
        long cap = c->caplog ? c->caplog * 2 : 256;
        struct gs_cevent *l = realloc(c->log, (size_t)cap * sizeof *l);
        GS_OOM_IF(l == NULL);
        c->log = l;
        c->caplog = cap;
    }
    int pool = node >= 0 ? c->f->nodes[node].pool : -1;
    c->log[c->nlog++] = (struct gs_cevent){ gs_cloud_now(c), kind, pool, node,
                                            gpu, jobs, value };
}

gs_time gs_cloud_draw(gsl_rng *r, const struct gs_distspec *d)
{
    double x = gs_dist_draw(r, d);
    if (!(x >= 0))
        x = 0;
    if (x > 9.0e15)
        x = 9.0e15;
    return (gs_time)llround(x);
}

/* --- node states -------------------------------------------------------- */

void gs_cloud_node_set(struct gs_cloud *c, int node, int st)
{
    struct gs_cnode *n = &c->node[node];
    int old = n->state;
    if (old == st)
        return;
    const struct gs_node *fn = &c->f->nodes[node];
    struct gs_cpool *p = &c->pool[fn->pool];
    int was = gs_ns_serving(old), is = gs_ns_serving(st);
    int bold = gs_cloud_billed(p, old), bnew = gs_cloud_billed(p, st);
    if (was && !is) {
        GS_ASSERT(fn->njobs == 0);
        c->parts->serving_ends(c, node);
        gs_fleet_set_cordon(c->f, node, 0);
        gs_fleet_set_up(c->f, node, 0);
    }
    p->n[old]--;
    p->n[st]++;
    n->state = (int8_t)st;
    if (old == NS_REPAIR)
        c->gpus_failed -= p->spec->gpn;
    if (st == NS_REPAIR)
        c->gpus_failed += p->spec->gpn;
    if (bold != bnew) {
        int d = bnew ? 1 : -1;
        p->billed += d;
        if (p->billed > p->billed_max)
            p->billed_max = p->billed;
        if (fn->njobs == 0)
            p->billed_empty += d;
        if (bnew)
            c->parts->session_open(c, node);
        else
            c->parts->session_close(c, node, 0);
    }
    if (!was && is) {
        gs_fleet_set_up(c->f, node, 1);
        n->since = gs_cloud_now(c);
        c->parts->serving_starts(c, node);
    }
    gs_fleet_set_cordon(c->f, node, st == NS_NOTICE || st == NS_DRAIN);
    if (st != NS_BOOT && st != NS_REPAIR)
        gs_sim_cancel(c->sim, &c->t_life[node].ev);
    c->parts->node_changed(c, node);
}

void gs_cloud_launch(struct gs_cloud *c, int node, gs_time delay,
                     gs_time trigger)
{
    GS_ASSERT(c->node[node].state == NS_OFF);
    gs_cloud_node_set(c, node, NS_BOOT);
    c->node[node].trigger = trigger;
    gs_sim_at(c->sim, &c->t_life[node].ev, gs_cloud_now(c) + delay);
    c->sum.launched++;
    gs_cloud_log_event(c, GS_CEV_LAUNCH, node, -1, 0, (double)delay / 1000.0);
}

/* --- jobs on nodes ---------------------------------------------------- */

void gs_cloud_scratch(struct gs_cloud *c, long n)
{
    if (c->capscratch < n) {
        long cap = n + 64;
        struct gs_job **s = realloc(c->scratch, (size_t)cap * sizeof *s);
        GS_OOM_IF(s == NULL);
        c->scratch = s;
        c->capscratch = cap;
    }
}

long gs_cloud_jobs_on(struct gs_cloud *c, int node, int gpu)
{
    long nrun, k = 0;
    struct gs_job *const *run = gs_sim_running(c->sim, &nrun);
    gs_cloud_scratch(c, nrun);
    for (long i = 0; i < nrun; i++) {
        const struct gs_part *pt = gs_alloc_part_on(&run[i]->alloc, node);
        if (pt && (gpu < 0 || (pt->mask & (1ULL << gpu))))
            c->scratch[k++] = run[i];
    }
    return k;
}

double gs_cloud_interrupt(struct gs_cloud *c, long n, int why)
{
    double lost = 0;
    for (long i = 0; i < n; i++) {
        struct gs_job *j = c->scratch[i];
        double before = gs_sim_record_lost(c->sim, j->rec);
        const struct gs_failcfg *fc =
            &c->pool[j->alloc.pool].cfg->fail;
        if (gs_sim_interrupt(c->sim, j, why) < 0)
            continue;
        lost += gs_sim_record_lost(c->sim, j->rec) - before;
        if (why != GS_STOP_FAILED)
            continue;
        if (j->rec >= c->nfails) {
            long cap = (long)j->rec * 2 + 1024;
            int16_t *f = realloc(c->fails, (size_t)cap * sizeof *f);
            GS_OOM_IF(f == NULL);
            memset(f + c->nfails, 0, (size_t)(cap - c->nfails) * sizeof *f);
            c->fails = f;
            c->nfails = cap;
        }
        if (c->fails[j->rec] < INT16_MAX)
            c->fails[j->rec]++;
        if (fc->max_restarts >= 0 && c->fails[j->rec] > fc->max_restarts &&
            gs_sim_kill(c->sim, j, GS_KILL_DENIED) == 0)
            c->sum.denials++;
    }
    return lost;
}

int gs_cloud_pool_ok(const struct gs_cloud *c, int pool,
                     const struct gs_job *j)
{
    if (pool < 0 || pool >= c->f->npools)
        return 1;
    return c->pool[pool].market != GS_MKT_SPOT ||
           (c->cfg->spot_tiers >> j->s.tier & 1);
}

/* --- the bill's getters --------------------------------------------------- */

const struct gs_cevent *gs_cloud_log(const struct gs_cloud *c, long *n)
{
    *n = c->nlog;
    return c->log;
}

double gs_cloud_cost_tenant(const struct gs_cloud *c, int tenant)
{
    return tenant >= 0 && tenant < c->ntenant ? c->cost_tenant[tenant] : 0;
}

double gs_cloud_cost_tier(const struct gs_cloud *c, int tier)
{
    return tier >= 0 && tier < GS_NTIERS ? c->cost_tier[tier] : 0;
}

void gs_cloud_pool_bill(const struct gs_cloud *c, int pool,
                        struct gs_cloud_poolbill *o)
{
    const struct gs_cpool *p = &c->pool[pool];
    gs_time span = c->last - c->t0;
    *o = (struct gs_cloud_poolbill){ p->paid, gs_cloud_jobs_paid(p),
                                     p->od_equiv,
                                     p->node_ms / GS_HOUR,
                                     p->idle_node_ms / GS_HOUR,
                                     span > 0 ? p->node_ms / (double)span : 0,
                                     p->billed_max };
}
