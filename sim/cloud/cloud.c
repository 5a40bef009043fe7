/* cloud.c -- the cloud model put together: its parts wired, built and
 * started, and the hooks the simulation calls (cloud.h, model.h).
 *
 * The parts -- the markets and bills (market.c), spot reclaims (spot.c),
 * failures and repairs (failure.c), the node autoscaler (autoscale.c), the
 * reaper of idle jobs (reaper.c) -- decide when a node changes state,
 * never how: every change goes through the books (cloudbook.c,
 * gs_cloud_node_set), which tell the parts through the hooks wired here.
 * Changes a job's stop causes (a draining node that became empty) are not
 * made inside the stop but by a timer at the same instant, so no part ever
 * changes a node while another is in the middle of emptying it.
 *
 * Cost attribution (docs/cloud.md): a job running on g GPUs of a pool whose
 * nodes have G GPUs is charged g/G of a node's price for the time it runs;
 * the tenant and tier of the job carry that charge.  Whatever a pool costs
 * beyond what its jobs are charged -- empty GPUs, nodes booting, in repair
 * or held as spares, billing rounded up, reserved or block capacity nobody
 * used -- is idle cost.  So tenants + idle = the bill, exactly. */
#include "cloudint.h"
#include "../base/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- node timers ------------------------------------------------------- */

/* Provisioning or repair done. */
static void on_life(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_ctimer *tm = (struct gs_ctimer *)ev;
    struct gs_cloud *c = tm->c;
    int node = tm->idx;
    struct gs_cnode *n = &c->node[node];
    if (n->state == NS_BOOT) {
        gs_cloud_node_set(c, node, NS_UP);
        double ptc = -1;
        if (n->trigger >= 0) {
            ptc = (double)(gs_cloud_now(c) - n->trigger) / 1000.0;
            c->ptc_sum += ptc;
            c->ptc_n++;
            if (ptc > c->sum.pend_to_cap_max_s)
                c->sum.pend_to_cap_max_s = ptc;
            n->trigger = -1;
        }
        gs_cloud_log_event(c, GS_CEV_READY, node, -1, 0, ptc);
    } else if (n->state == NS_REPAIR) {
        gs_fail_repaired(c, node);
    }
    gs_sim_wake(c->sim);
}

/* A draining node may have become empty: take it away. */
static void on_drain(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_ctimer *tm = (struct gs_ctimer *)ev;
    struct gs_cloud *c = tm->c;
    int node = tm->idx;
    if (c->node[node].state == NS_DRAIN && c->f->nodes[node].njobs == 0) {
        gs_cloud_node_set(c, node, NS_OFF);
        c->sum.removed++;
        gs_cloud_log_event(c, GS_CEV_REMOVE, node, -1, 0, 0);
    }
}

/* --- capacity blocks -------------------------------------------------- */

static void on_block(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_ctimer *tm = (struct gs_ctimer *)ev;
    struct gs_cloud *c = tm->c;
    struct gs_cpool *p = &c->pool[tm->idx];
    int node0 = c->f->pools[tm->idx].node0, slots = p->spec->nodes;
    if (!p->block_open) {
        p->block_open = 1;
        p->billed = slots;
        p->billed_empty = slots;
        if (p->billed > p->billed_max)
            p->billed_max = p->billed;
        for (int i = 0; i < slots; i++)
            gs_cloud_node_set(c, node0 + i,
                              i < p->cfg->base ? NS_UP : NS_SPARE);
        gs_cloud_log_event(c, GS_CEV_BLOCK_START, -1, -1, 0, slots);
        c->log[c->nlog - 1].pool = tm->idx;
        gs_sim_at(c->sim, &p->t_block.ev, c->t0 + p->cfg->block_end);
    } else {
        long hit = 0;
        for (int i = 0; i < slots; i++) {
            long n = gs_cloud_jobs_on(c, node0 + i, -1);
            hit += n;
            gs_cloud_interrupt(c, n, GS_STOP_DRAINED);
            gs_cloud_node_set(c, node0 + i, NS_OFF);
        }
        c->sum.drain_restarts += hit;
        p->block_open = 0;
        p->billed = 0;
        p->billed_empty = 0;
        gs_cloud_log_event(c, GS_CEV_BLOCK_END, -1, -1, (int)hit, slots);
        c->log[c->nlog - 1].pool = tm->idx;
    }
    gs_sim_wake(c->sim);
}

/* --- the books' extra columns ------------------------------------------ */

static const char *const xnames[] = {
    "nodes_in_service", "nodes_billed", "nodes_provisioning",
    "nodes_in_repair", "nodes_spare", "gpus_failed", "gpus_degraded",
    "idle_cost_rate_usd_per_h",
};
#define NX ((int)(sizeof xnames / sizeof xnames[0]))

static double rate_cb(void *ctx, gs_time t)
{
    return gs_market_rate(ctx, t);
}

/* A job's share of a node of a pool without GPUs, which is what it is
 * billed: the mean of its CPU and host-memory shares (the shares of the
 * node's jobs add up to at most 1, so the idle part is never negative). */
static double host_part(const struct gs_fleet *f, int pool, int32_t cpu,
                        int32_t mem)
{
    int32_t nc, nm;
    gs_pool_host(f->cat, &f->pools[pool].s, &nc, &nm);
    return 0.5 * ((nc > 0 ? (double)cpu / nc : 0) +
                  (nm > 0 ? (double)mem / nm : 0));
}

/* What the jobs on pool's nodes (a pool without GPUs) hold, in nodes. */
static double host_share(const struct gs_cloud *c, int pool)
{
    const struct gs_pool *p = &c->f->pools[pool];
    int32_t nc, nm;
    gs_pool_host(c->f->cat, &p->s, &nc, &nm);
    double sh = 0;
    for (int k = 0; k < p->s.nodes; k++) {
        int node = p->node0 + k;
        sh += host_part(c->f, pool, nc - c->f->cpu_free[node],
                        nm - c->f->mem_free[node]);
    }
    return sh;
}

static void fill_cb(void *ctx, gs_time t, double *row)
{
    const struct gs_cloud *c = ctx;
    for (int k = 0; k < NX; k++)
        row[k] = 0;
    for (int i = 0; i < c->f->npools; i++) {
        const struct gs_cpool *p = &c->pool[i];
        row[0] += p->n[NS_UP] + p->n[NS_NOTICE] + p->n[NS_DRAIN];
        row[1] += p->billed;
        row[2] += p->n[NS_BOOT];
        row[3] += p->n[NS_REPAIR];
        row[4] += p->n[NS_SPARE];
        int gpn = p->spec->gpn;
        if (gpn == 0) {         /* CPU-only nodes: their jobs' host share */
            row[7] += gs_market_price(c, i, t) *
                      ((double)p->billed - host_share(c, i));
            continue;
        }
        double used = (double)c->f->pools[i].used_milli / 1000.0;
        row[7] += gs_market_price(c, i, t) / gpn *
                  ((double)p->billed * gpn - used);
    }
    row[5] = (double)c->gpus_failed;
    row[6] = (double)c->gpus_degraded;
}

/* --- the parts a node's state change tells (cloudbook.c) ---------------- */

static void serving_ends(struct gs_cloud *c, int node)
{
    gs_spot_leave(c, node);
    gs_fail_leave(c, node);
}

static void serving_starts(struct gs_cloud *c, int node)
{
    gs_spot_enter(c, node);
    gs_fail_enter(c, node);
}

static const struct gs_cloud_parts parts = {
    .serving_ends = serving_ends,
    .serving_starts = serving_starts,
    .session_open = gs_market_session_open,
    .session_close = gs_market_session_close,
    .node_changed = gs_as_node_changed,
};

/* --- building ----------------------------------------------------------- */

static void timer_init(struct gs_ctimer *t, struct gs_cloud *c, int idx,
                       gs_event_fn *fn)
{
    gs_event_init(&t->ev, fn);
    t->c = c;
    t->idx = idx;
}

int gs_cloud_new(struct gs_sim *sim, const struct gs_scenario *sc,
                 struct gs_fleet *f, struct gs_metrics *m, uint64_t seed,
                 struct gs_cloud **out, struct gs_diag *d)
{
    *out = NULL;
    struct gs_cloud *c = calloc(1, sizeof *c);
    if (c == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    c->sim = sim;
    c->parts = &parts;
    c->sc = sc;
    c->cfg = &sc->cloud;
    c->f = f;
    size_t nn = (size_t)(f->nnodes ? f->nnodes : 1);
    size_t ng = (size_t)(f->ngpus ? f->ngpus : 1);
    c->pool = calloc((size_t)(f->npools ? f->npools : 1), sizeof *c->pool);
    c->node = calloc(nn, sizeof *c->node);
    c->t_life = calloc(nn, sizeof *c->t_life);
    c->t_notice = calloc(nn, sizeof *c->t_notice);
    c->t_reclaim = calloc(nn, sizeof *c->t_reclaim);
    c->t_nfail = calloc(nn, sizeof *c->t_nfail);
    c->t_drain = calloc(nn, sizeof *c->t_drain);
    c->t_gfail = calloc(ng, sizeof *c->t_gfail);
    c->speed = malloc(ng * sizeof *c->speed);
    c->r_spot = gs_rng_stream(seed, "spot");
    c->r_replace = gs_rng_stream(seed, "spot.replace");
    c->r_gpu = gs_rng_stream(seed, "failures.gpu");
    c->r_node = gs_rng_stream(seed, "failures.node");
    c->r_degrade = gs_rng_stream(seed, "failures.degrade");
    c->r_repair = gs_rng_stream(seed, "repair");
    c->r_prov = gs_rng_stream(seed, "autoscale");
    if (!c->pool || !c->node || !c->t_life || !c->t_notice || !c->t_reclaim ||
        !c->t_nfail || !c->t_drain || !c->t_gfail || !c->speed || !c->r_spot ||
        !c->r_replace || !c->r_gpu || !c->r_node || !c->r_degrade ||
        !c->r_repair || !c->r_prov) {
        gs_cloud_free(c);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    for (size_t g = 0; g < ng; g++)
        c->speed[g] = 1.0f;
    for (int i = 0; i < f->nnodes; i++) {
        timer_init(&c->t_life[i], c, i, on_life);
        timer_init(&c->t_drain[i], c, i, on_drain);
        c->node[i].sess = -1;
        c->node[i].unneeded = -1;
        c->node[i].trigger = -1;
    }
    for (int i = 0; i < f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        p->spec = &f->pools[i].s;
        p->cfg = &sc->cloud.pool[i];
        p->market = p->spec->market;
        p->n[NS_OFF] = p->spec->nodes;
        timer_init(&p->t_block, c, i, on_block);
        if (p->market == GS_MKT_SPOT)
            c->any_spot = 1;
        if (p->cfg->fail.on)
            c->any_fail = 1;
        if (p->cfg->autoscale)
            c->any_autoscale = 1;
    }
    int rc;
    if ((rc = gs_market_init(c, d)) < 0 || (rc = gs_spot_init(c, d)) < 0) {
        gs_cloud_free(c);
        return rc;
    }
    gs_fail_init(c);
    gs_as_init(c);
    gs_reap_init(c);
    /* Starting states, quietly: the run has not begun, nothing is billed
     * or exposed yet (gs_cloud_start opens all that at t0). */
    for (int i = 0; i < f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        int node0 = f->pools[i].node0;
        for (int k = 0; k < p->spec->nodes; k++) {
            int st = NS_OFF;
            if (p->market != GS_MKT_BLOCK)
                st = k < p->cfg->base ? NS_UP
                     : k < p->cfg->base + p->cfg->spares ? NS_SPARE : NS_OFF;
            c->node[node0 + k].state = (int8_t)st;
            p->n[NS_OFF]--;
            p->n[st]++;
            if (!gs_ns_serving(st))
                gs_fleet_set_up(f, node0 + k, 0);
        }
    }
    struct gs_metrics_hook h = { rate_cb, fill_cb, NX, xnames, c };
    gs_metrics_set_hook(m, &h);
    *out = c;
    return 0;
}

void gs_cloud_free(struct gs_cloud *c)
{
    if (c == NULL)
        return;
    for (int i = 0; c->pool && i < c->f->npools; i++) {
        gs_pwc_free(&c->pool[i].price);
        gs_pwc_free(&c->pool[i].hazard);
    }
    free(c->pool);
    free(c->node);
    free(c->t_life);
    free(c->t_notice);
    free(c->t_reclaim);
    free(c->t_nfail);
    free(c->t_drain);
    free(c->t_gfail);
    free(c->speed);
    gsl_rng *rs[] = { c->r_spot, c->r_replace, c->r_gpu, c->r_node,
                      c->r_degrade, c->r_repair, c->r_prov };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        if (rs[i])
            gsl_rng_free(rs[i]);
    free(c->cost_tenant);
    free(c->fails);
    free(c->log);
    free(c->scratch);
    free(c);
}

int gs_cloud_start(struct gs_cloud *c, gs_time t0)
{
    c->t0 = c->last = t0;
    c->started = 1;
    for (int i = 0; i < c->f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        int node0 = c->f->pools[i].node0;
        for (int k = 0; k < p->spec->nodes; k++) {
            int node = node0 + k, st = c->node[node].state;
            if (gs_cloud_billed(p, st)) {
                p->billed++;
                p->billed_max = p->billed;
                p->billed_empty++;
                gs_market_session_open(c, node);
            }
            if (gs_ns_serving(st)) {
                c->node[node].since = t0;
                gs_spot_enter(c, node);
                gs_fail_enter(c, node);
            }
        }
        if (p->market == GS_MKT_BLOCK)
            gs_sim_at(c->sim, &p->t_block.ev, t0 + p->cfg->block_start);
    }
    gs_as_start(c);
    return 0;
}

/* --- the simulation's hooks --------------------------------------------- */

void gs_cloud_job_started(struct gs_cloud *c, struct gs_job *j)
{
    if (j->alloc.n == 0)
        return;
    struct gs_cpool *p = &c->pool[j->alloc.pool];
    const struct gs_part *pt = gs_alloc_parts(&j->alloc);
    for (int i = 0; i < j->alloc.n; i++) {
        int node = pt[i].node;
        if (c->f->nodes[node].njobs == 1 && gs_cloud_billed(p, c->node[node].state))
            p->billed_empty--;
        gs_as_node_changed(c, node);
    }
    if (c->any_fail) {
        double sp = gs_fail_job_speed(c, j);
        if (sp < 1.0)
            gs_sim_set_rate(c->sim, j, j->rate * sp);
    }
    gs_reap_started(c, j);
}

double gs_cloud_job_ran(struct gs_cloud *c, const struct gs_job *j)
{
    if (j->alloc.n == 0 || j->alloc.pool < 0)
        return 0;
    int pool = j->alloc.pool;
    struct gs_cpool *p = &c->pool[pool];
    gs_time now = gs_cloud_now(c);
    double gpus = (double)gs_alloc_milli(&j->alloc) / 1000.0;
    /* On GPU nodes the node's price is the GPUs' (per GPU-hour), so a job
     * pays for the GPUs it holds and a CPU-only job there pays nothing; on
     * nodes without GPUs a job pays its host share (host_part). */
    double share = p->spec->gpn > 0
                       ? gpus / p->spec->gpn
                       : host_part(c->f, pool, j->need.cpu_milli,
                                   j->need.mem_mib);
    double cost = share * gs_market_charge(c, pool, j->started, now);
    p->jobs += cost;
    c->cost_tier[j->s.tier] += cost;
    if (j->tenant >= c->ntenant) {
        int cap = j->tenant * 2 + 16;
        double *t = realloc(c->cost_tenant, (size_t)cap * sizeof *t);
        GS_OOM_IF(t == NULL);
        memset(t + c->ntenant, 0, (size_t)(cap - c->ntenant) * sizeof *t);
        c->cost_tenant = t;
        c->ntenant = cap;
    }
    c->cost_tenant[j->tenant] += cost;
    const struct gs_part *pt = j->alloc.n > 1 ? j->alloc.many : &j->alloc.one;
    for (int i = 0; i < j->alloc.n; i++) {
        int node = pt[i].node;
        if (c->f->nodes[node].njobs != 0)
            continue;
        if (gs_cloud_billed(p, c->node[node].state))
            p->billed_empty++;
        if (c->node[node].state == NS_DRAIN)
            gs_sim_at(c->sim, &c->t_drain[node].ev, now);
        gs_as_node_changed(c, node);
    }
    return cost;
}

void gs_cloud_advance(struct gs_cloud *c, gs_time t)
{
    if (!c->started || t <= c->last)
        return;
    double dt = (double)(t - c->last);
    for (int i = 0; i < c->f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        p->node_ms += dt * p->billed;
        p->idle_node_ms += dt * p->billed_empty;
        if (p->market == GS_MKT_SPOT)
            p->exposure_ms += dt * (p->n[NS_UP] + p->n[NS_NOTICE] +
                                    p->n[NS_DRAIN]);
    }
    c->gpu_ms_usable += dt * (double)c->f->gpus_up;
    c->gpu_ms_failed += dt * (double)c->gpus_failed;
    c->last = t;
}

void gs_cloud_after_schedule(struct gs_cloud *c)
{
    if (c->started && c->any_autoscale)
        gs_as_touch(c);
}

void gs_cloud_close(struct gs_cloud *c, gs_time end)
{
    if (!c->started)
        return;
    gs_cloud_advance(c, end);
    gs_market_close(c, end);
}

void gs_cloud_summarize(struct gs_cloud *c, struct gs_summary *su)
{
    struct gs_cloudsum *o = &c->out;
    *o = c->sum;
    double paid = 0, jobs = 0, od = 0;
    for (int i = 0; i < c->f->npools; i++) {
        const struct gs_cpool *p = &c->pool[i];
        o->cost_market[p->market] += p->paid;
        paid += p->paid;
        jobs += gs_cloud_jobs_paid(p);
        od += p->od_equiv;
        if (p->market == GS_MKT_SPOT) {
            o->spot_savings += p->od_equiv - p->paid;
            o->spot_exposure_node_h += p->exposure_ms / GS_HOUR;
        }
        o->node_hours += p->node_ms / GS_HOUR;
        o->idle_node_hours += p->idle_node_ms / GS_HOUR;
    }
    o->cost_jobs = jobs;
    o->cost_idle = paid - jobs;
    o->cost_ondemand_equiv = od;
    double den = c->gpu_ms_usable + c->gpu_ms_failed;
    o->availability = den > 0 ? c->gpu_ms_usable / den : 1.0;
    o->pend_to_cap_mean_s = c->ptc_n > 0 ? c->ptc_sum / (double)c->ptc_n : 0;
    su->cost = paid;
    su->cost_per_used_gpu_hour = su->gpu_hours_used > 0
                                     ? paid / su->gpu_hours_used : 0;
}

/* --- the hooks table entry (model.h) ------------------------------------ */

static int m_build(struct gs_sim *s, const struct gs_scenario *sc,
                   struct gs_fleet *f, struct gs_metrics *m, uint64_t seed,
                   void **st, struct gs_diag *d)
{
    struct gs_cloud *c = NULL;
    int rc = gs_cloud_new(s, sc, f, m, seed, &c, d);
    *st = c;
    return rc;
}

static void m_free(void *st) { gs_cloud_free(st); }
static int m_start(void *st, gs_time t0) { return gs_cloud_start(st, t0); }
static int m_pool_ok(const void *st, int pool, const struct gs_job *j)
{
    return gs_cloud_pool_ok(st, pool, j);
}
static void m_started(void *st, struct gs_job *j) { gs_cloud_job_started(st, j); }
static double m_ran(void *st, const struct gs_job *j) { return gs_cloud_job_ran(st, j); }
static void m_advance(void *st, gs_time t) { gs_cloud_advance(st, t); }
/* Still (model.h) unless a pool's price follows a series: the metrics
 * integrate the cost rate at each piece's start, so every move must cut
 * it then. */
static int m_still(const void *st)
{
    const struct gs_cloud *c = st;
    for (int i = 0; i < c->f->npools; i++)
        if (c->pool[i].price.n)
            return 0;
    return 1;
}
static void m_after(void *st) { gs_cloud_after_schedule(st); }
static void m_close(void *st, gs_time end) { gs_cloud_close(st, end); }
static void m_pool_nodes(const void *st, int pool, double *mean,
                         double *peak)
{
    struct gs_cloud_poolbill b;
    gs_cloud_pool_bill(st, pool, &b);
    *mean = b.nodes_mean;
    *peak = b.nodes_peak;
}
static void m_summarize(void *st, struct gs_summary *su)
{
    gs_cloud_summarize(st, su);
}

const struct gs_model_ops gs_cloud_model = {
    .name = "cloud",
    .build = m_build,
    .free = m_free,
    .start = m_start,
    .pool_ok = m_pool_ok,
    .job_started = m_started,
    .job_ran = m_ran,
    .advance = m_advance,
    .still = m_still,
    .after_schedule = m_after,
    .close = m_close,
    .summarize = m_summarize,
    .pool_nodes = m_pool_nodes,
    .rank = 20,
    .fields = gs_cloud_fields,
    .nfields = GS_CLOUD_NFIELDS,
    .values = gs_cloud_values,
    .report = gs_cloud_report,
    .json_end = gs_cloud_json,
    .csv_end = gs_cloud_csv,
    .h5 = gs_cloud_h5,
};

const struct gs_cloudsum *gs_cloud_summary(const struct gs_cloud *c)
{
    return &c->out;
}

struct gs_cloud *gs_sim_cloud(const struct gs_sim *s)
{
    return gs_sim_model(s, &gs_cloud_model);
}
