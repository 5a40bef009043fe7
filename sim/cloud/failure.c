/* failure.c -- hardware failures: processes, repairs, degraded GPUs, spares.
 *
 * Each GPU and each node in service runs its own failure process, drawn
 * when it enters service (a node entering service -- launched, repaired,
 * swapped in -- is as good as new: every clock starts at age 0).  Time to
 * failure T (struct gs_failproc):
 *   exponential     T ~ Exp(mtbf), the constant hazard of random failures;
 *   Weibull         T ~ Weibull(scale, shape), shape < 1 giving the
 *                   falling hazard of infant mortality;
 *   with a burn-in  Weibull while the age is below burn_in, exponential
 *                   after: draw W ~ Weibull; if W < burn_in, T = W, else
 *                   T = burn_in + Exp(mtbf) -- exact for that piecewise
 *                   hazard, since the exponential forgets the age.
 *
 * A node failure, and a GPU failure unless the pool fails in place, takes
 * the node down: its jobs are interrupted (work since the checkpoint lost,
 * requeued), the node is repaired for a time drawn from $.failures.repair
 * (exponential with a 12-minute mean by default: AWS's figure for H100
 * nodes), and a hot spare of the pool, if any, enters service at once in
 * its place; the repaired node becomes a spare again if the pool is short
 * of its spares, else it returns to service.  With fail_in_place a failed
 * GPU is retired where it is: only the jobs on that GPU are interrupted,
 * the node serves on with the rest until it next leaves service.
 *
 * A GPU fault is, with probability degraded.fraction, a degradation
 * instead: the GPU runs at degraded.speed until its node leaves service,
 * and every job using it runs at the pace of its slowest GPU (a gang
 * synchronizes), through gs_sim_set_rate.  The degradation is that GPU's
 * fault for the node's life: its clock stops until the node comes back
 * from repair, replacement or relaunch.
 *
 * A job whose hardware failed under it more than max_restarts times (6 by
 * default, the default backoffLimit of a Kubernetes Job) is not restarted:
 * it is killed as denied.
 *
 * Streams: "failures.gpu", "failures.node" (times to failure),
 * "failures.degrade" (failure or degradation), "repair". */
#include "cloudint.h"

#include <gsl/gsl_randist.h>
#include <math.h>

static gs_time fail_draw(gsl_rng *r, const struct gs_failproc *p)
{
    double t = INFINITY;
    if (p->shape > 0) {
        double w = gsl_ran_weibull(r, p->scale, p->shape);
        if (p->burn_in <= 0 || w < (double)p->burn_in)
            t = w;
        else if (p->mtbf > 0)
            t = (double)p->burn_in + gsl_ran_exponential(r, p->mtbf);
    } else if (p->mtbf > 0) {
        t = gsl_ran_exponential(r, p->mtbf);
    }
    if (!(t < 9.0e15))
        return GS_TIME_MAX;
    return (gs_time)ceil(t);
}

static const struct gs_failcfg *cfg_of(const struct gs_cloud *c, int node)
{
    return &c->pool[c->f->nodes[node].pool].cfg->fail;
}

static void arm(struct gs_cloud *c, struct gs_event *ev, gsl_rng *r,
                const struct gs_failproc *p)
{
    gs_time dt = fail_draw(r, p);
    if (dt != GS_TIME_MAX)
        gs_sim_at(c->sim, ev, gs_cloud_now(c) + dt);
}

/* Interrupt the node's jobs, send it to repair, swap a spare in. */
static void node_down(struct gs_cloud *c, int node, int kind, int gpu,
                      double age)
{
    const struct gs_failcfg *fc = cfg_of(c, node);
    int pool = c->f->nodes[node].pool;
    long n = gs_cloud_jobs_on(c, node, -1);
    double lost = gs_cloud_interrupt(c, n, GS_STOP_FAILED);
    c->sum.fail_restarts += n;
    c->sum.fail_lost_gpu_h += lost;
    gs_cloud_log_event(c, kind, node, gpu, (int)n, age);
    gs_cloud_node_set(c, node, NS_REPAIR);
    gs_sim_at(c->sim, &c->t_life[node].ev,
              gs_cloud_now(c) + gs_cloud_draw(c->r_repair, &fc->repair));
    if (c->pool[pool].n[NS_SPARE] > 0) {
        int node0 = c->f->pools[pool].node0;
        for (int k = 0; k < c->pool[pool].spec->nodes; k++)
            if (c->node[node0 + k].state == NS_SPARE) {
                gs_cloud_node_set(c, node0 + k, NS_UP);
                c->sum.spare_swaps++;
                gs_cloud_log_event(c, GS_CEV_SPARE_IN, node0 + k, -1, 0, 0);
                break;
            }
    }
    gs_sim_wake(c->sim);
}

static void on_node_fail(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_ctimer *tm = (struct gs_ctimer *)ev;
    struct gs_cloud *c = tm->c;
    int node = tm->idx;
    if (!gs_ns_serving(c->node[node].state))
        return;
    c->sum.node_failures++;
    node_down(c, node, GS_CEV_NODE_FAIL, -1,
              (double)(gs_cloud_now(c) - c->node[node].since) / 1000.0);
}

/* The speed a job gets from its GPUs: that of the slowest. */
double gs_fail_job_speed(const struct gs_cloud *c, const struct gs_job *j)
{
    double s = 1.0;
    const struct gs_part *pt = j->alloc.n > 1 ? j->alloc.many : &j->alloc.one;
    for (int i = 0; i < j->alloc.n; i++) {
        int g0 = c->f->nodes[pt[i].node].gpu0;
        for (uint64_t m = pt[i].mask; m; m &= m - 1) {
            double v = c->speed[g0 + __builtin_ctzll(m)];
            if (v < s)
                s = v;
        }
    }
    return s;
}

static void degrade(struct gs_cloud *c, int node, int k, double age)
{
    const struct gs_failcfg *fc = cfg_of(c, node);
    int g = c->f->nodes[node].gpu0 + k;
    long n = gs_cloud_jobs_on(c, node, k);
    double *before = malloc((size_t)(n ? n : 1) * sizeof *before);
    GS_OOM_IF(before == NULL);
    for (long i = 0; i < n; i++)
        before[i] = gs_fail_job_speed(c, c->scratch[i]);
    c->speed[g] = (float)fc->degrade_speed;
    c->gpus_degraded++;
    for (long i = 0; i < n; i++) {
        struct gs_job *j = c->scratch[i];
        double after = gs_fail_job_speed(c, j);
        if (after != before[i] && before[i] > 0)
            gs_sim_set_rate(c->sim, j, j->rate * after / before[i]);
    }
    free(before);
    c->sum.degradations++;
    gs_cloud_log_event(c, GS_CEV_DEGRADE, node, k, (int)n, age);
    gs_reap_rescan(c);
}

static void on_gpu_fail(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_ctimer *tm = (struct gs_ctimer *)ev;
    struct gs_cloud *c = tm->c;
    int g = tm->idx;
    /* GPUs are numbered node by node: find the node by bisection. */
    int lo = 0, hi = c->f->nnodes - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (c->f->nodes[mid].gpu0 <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    int node = lo, k = g - c->f->nodes[node].gpu0;
    if (!gs_ns_serving(c->node[node].state))
        return;
    const struct gs_failcfg *fc = cfg_of(c, node);
    double age = (double)(gs_cloud_now(c) - c->node[node].since) / 1000.0;
    double u = gsl_rng_uniform(c->r_degrade);
    if (u < fc->degrade_frac) {
        degrade(c, node, k, age);
        return;
    }
    c->sum.gpu_failures++;
    if (!fc->fail_in_place) {
        node_down(c, node, GS_CEV_GPU_FAIL, k, age);
        return;
    }
    long n = gs_cloud_jobs_on(c, node, k);
    double lost = gs_cloud_interrupt(c, n, GS_STOP_FAILED);
    c->sum.fail_restarts += n;
    c->sum.fail_lost_gpu_h += lost;
    gs_cloud_log_event(c, GS_CEV_GPU_FAIL, node, k, (int)n, age);
    gs_fleet_set_gpu_dead(c->f, node, k, 1);
    c->gpus_failed++;
    gs_sim_wake(c->sim);
}

void gs_fail_init(struct gs_cloud *c)
{
    for (int i = 0; i < c->f->nnodes; i++) {
        gs_event_init(&c->t_nfail[i].ev, on_node_fail);
        c->t_nfail[i].c = c;
        c->t_nfail[i].idx = i;
    }
    for (int g = 0; g < c->f->ngpus; g++) {
        gs_event_init(&c->t_gfail[g].ev, on_gpu_fail);
        c->t_gfail[g].c = c;
        c->t_gfail[g].idx = g;
    }
}

void gs_fail_enter(struct gs_cloud *c, int node)
{
    const struct gs_failcfg *fc = cfg_of(c, node);
    if (!fc->on)
        return;
    if (fc->node.on)
        arm(c, &c->t_nfail[node].ev, c->r_node, &fc->node);
    if (fc->gpu.on) {
        const struct gs_node *nd = &c->f->nodes[node];
        int gpn = c->f->pools[nd->pool].s.gpn;
        for (int k = 0; k < gpn; k++)
            arm(c, &c->t_gfail[nd->gpu0 + k].ev, c->r_gpu, &fc->gpu);
    }
}

/* The node leaves service: stop its clocks; retired GPUs come back and
 * degraded ones heal with the node's next life. */
void gs_fail_leave(struct gs_cloud *c, int node)
{
    const struct gs_node *nd = &c->f->nodes[node];
    int gpn = c->f->pools[nd->pool].s.gpn;
    gs_sim_cancel(c->sim, &c->t_nfail[node].ev);
    for (int k = 0; k < gpn; k++) {
        int g = nd->gpu0 + k;
        gs_sim_cancel(c->sim, &c->t_gfail[g].ev);
        if (c->speed[g] < 1.0f) {
            c->speed[g] = 1.0f;
            c->gpus_degraded--;
        }
        if (nd->deadmask & (1ULL << k)) {
            gs_fleet_set_gpu_dead(c->f, node, k, 0);
            c->gpus_failed--;
        }
    }
}

void gs_fail_repaired(struct gs_cloud *c, int node)
{
    int pool = c->f->nodes[node].pool;
    struct gs_cpool *p = &c->pool[pool];
    int spare = p->n[NS_SPARE] < p->cfg->spares;
    gs_cloud_node_set(c, node, spare ? NS_SPARE : NS_UP);
    gs_cloud_log_event(c, GS_CEV_REPAIRED, node, -1, 0, spare);
}
