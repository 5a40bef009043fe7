/* autoscale.c -- node autoscaling of pools, after the Kubernetes Cluster
 * Autoscaler.
 *
 * A pool with $.fleet[i].autoscale has between min_nodes and max_nodes
 * nodes (its size counts nodes booting, in service and in repair; nodes
 * draining out and spares do not).  A daily window may set other bounds
 * ("22:00" to "06:00": min 0, max 2).  The autoscaler looks at the cluster
 * in scans on a fixed grid (every $.autoscaler.scan_interval, 10 s like the
 * Cluster Autoscaler's --scan-interval, counted from the run's start), and
 * only when there may be something to do: jobs pending, a pool outside its
 * bounds, a node becoming removable, a window opening or closing.
 *
 * A scan, for each autoscaled pool:
 *  1. bounds: a pool above its maximum loses nodes booting, then empty
 *     nodes, then (gracefully) drains busy ones -- closed to new work,
 *     removed once empty; below its minimum it launches nodes;
 *  2. scale-up: every pending job (the oldest $.autoscaler.depth) that
 *     fits on no node now is packed, first-fit, onto the pool's booting
 *     nodes and then onto new ones, in the cheapest pool per GPU-hour that
 *     it may use and that has room to grow (the Cluster Autoscaler's
 *     "price" expander); each new node is launched and is ready after a
 *     provisioning time (uniform 3 to 8 minutes by default);
 *  3. scale-down (consolidation): a node in service whose allocated share
 *     has stayed below scale_down_utilization (0.5) for
 *     scale_down_after (10 min), and not within
 *     scale_down_delay_after_add (10 min) of the pool's last launch, is
 *     removed -- at once if empty; if not, when all its jobs are
 *     preemptible and the rest of the pool has room for them (a capacity
 *     check, not a trial placement), its jobs are evicted (work since the
 *     checkpoint lost, requeued) and it is removed; one such busy node per
 *     pool and scan, as the Cluster Autoscaler does.
 * min_nodes 0 lets a pool scale to zero.  The defaults are the Cluster
 * Autoscaler's (docs/cloud.md).
 *
 * "Pending to capacity": for each launched node, the time from when the
 * oldest job it was launched for began waiting to when the node was ready.
 *
 * Stream: "autoscale" (provisioning times). */
#include "cloudint.h"

#include <stdlib.h>
#include <string.h>

static int size_of(const struct gs_cpool *p)
{
    return p->n[NS_BOOT] + p->n[NS_UP] + p->n[NS_NOTICE] + p->n[NS_REPAIR];
}

static int minute_of_day(gs_time t)
{
    gs_time m = (t / GS_MIN) % (24 * 60);
    return (int)(m < 0 ? m + 24 * 60 : m);
}

static int in_window(const struct gs_window *w, int m)
{
    return w->from_min < w->to_min ? m >= w->from_min && m < w->to_min
                                   : m >= w->from_min || m < w->to_min;
}

static void bounds(struct gs_cpool *p, gs_time t)
{
    const struct gs_poolcloud *pc = p->cfg;
    p->min_eff = pc->min_nodes;
    p->max_eff = pc->max_nodes;
    int m = minute_of_day(t);
    for (int i = 0; i < pc->nwin; i++)
        if (in_window(&pc->win[i], m)) {
            p->min_eff = pc->win[i].min_nodes;
            p->max_eff = pc->win[i].max_nodes;
            break;
        }
}

/* The first grid time at or after t (not the scan just done). */
static gs_time grid(const struct gs_cloud *c, gs_time t)
{
    gs_time s = c->cfg->scan;
    gs_time g = c->t0 + (t - c->t0 + s - 1) / s * s;
    if (g == c->last_scan)
        g += s;
    return g;
}

static void arm(struct gs_cloud *c, gs_time t)
{
    struct gs_event *ev = &c->t_scan.ev;
    if (gs_event_pending(ev) && ev->hn.time <= t)
        return;
    gs_sim_at(c->sim, ev, t);
}

static double node_util(const struct gs_cloud *c, int node)
{
    const struct gs_node *nd = &c->f->nodes[node];
    int gpn = c->f->pools[nd->pool].s.gpn;
    long used = 0, alive = 0;
    for (int k = 0; k < gpn; k++) {
        if (nd->deadmask & (1ULL << k))
            continue;
        alive++;
        used += 1000 - c->f->free_milli[nd->gpu0 + k];
    }
    return alive ? (double)used / (double)(alive * 1000) : 0.0;
}

void gs_as_node_changed(struct gs_cloud *c, int node)
{
    struct gs_cpool *p = &c->pool[c->f->nodes[node].pool];
    struct gs_cnode *n = &c->node[node];
    if (!p->cfg->autoscale || !c->started)
        return;
    int unneeded = n->state == NS_UP && node_util(c, node) < p->cfg->down_util;
    if (unneeded && n->unneeded < 0) {
        n->unneeded = gs_cloud_now(c);
        p->nunneeded++;
        gs_time due = n->unneeded + p->cfg->down_after;
        if (p->last_add >= 0 && p->last_add + p->cfg->down_delay > due)
            due = p->last_add + p->cfg->down_delay;
        arm(c, grid(c, due));
    } else if (!unneeded && n->unneeded >= 0) {
        n->unneeded = -1;
        p->nunneeded--;
    }
}

/* --- packing pending work onto virtual nodes ------------------------------ */

struct bins {
    int gpn, n, cap;
    int16_t *free;              /* n x gpn, milli free per GPU */
};

static int bin_full_free(const struct bins *b, int i)
{
    for (int k = 0; k < b->gpn; k++)
        if (b->free[i * b->gpn + k] != 1000)
            return 0;
    return 1;
}

static int bin_nfree(const struct bins *b, int i)
{
    int n = 0;
    for (int k = 0; k < b->gpn; k++)
        n += b->free[i * b->gpn + k] == 1000;
    return n;
}

static void bin_add(struct bins *b)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->free = realloc(b->free, (size_t)b->cap * b->gpn * sizeof *b->free);
        GS_OOM_IF(b->free == NULL);
    }
    for (int k = 0; k < b->gpn; k++)
        b->free[b->n * b->gpn + k] = 1000;
    b->n++;
}

static void take_whole(struct bins *b, int i, int g)
{
    for (int k = 0; k < b->gpn && g > 0; k++)
        if (b->free[i * b->gpn + k] == 1000) {
            b->free[i * b->gpn + k] = 0;
            g--;
        }
}

/* Pack need into b, adding at most room new bins.  Returns the bins added,
 * or -1 if it does not fit (b unchanged). */
static int pack(struct bins *b, const struct gs_need *need, int room)
{
    int gpn = b->gpn, n0 = b->n;
    if (need->gpus == 0) {
        for (int i = 0; i < b->n; i++)
            for (int k = 0; k < gpn; k++)
                if (b->free[i * gpn + k] >= need->milli) {
                    b->free[i * gpn + k] =
                        (int16_t)(b->free[i * gpn + k] - need->milli);
                    return 0;
                }
        if (room < 1)
            return -1;
        bin_add(b);
        b->free[n0 * gpn] = (int16_t)(1000 - need->milli);
        return 1;
    }
    int whole = need->gpus / gpn, rem = need->gpus % gpn;
    /* count what the existing bins offer */
    int full = 0, remfit = rem == 0;
    for (int i = 0; i < b->n; i++) {
        if (bin_full_free(b, i) && full < whole)
            full++;
        else if (!remfit && bin_nfree(b, i) >= rem)
            remfit = 1;
    }
    int add = (whole - full) + (remfit ? 0 : 1);
    if (add > room)
        return -1;
    for (int i = 0; i < add; i++)
        bin_add(b);
    int left = whole;
    for (int i = 0; i < b->n && left > 0; i++)
        if (bin_full_free(b, i)) {
            take_whole(b, i, gpn);
            left--;
        }
    for (int i = 0; rem > 0 && i < b->n; i++)
        if (bin_nfree(b, i) >= rem) {
            take_whole(b, i, rem);
            break;
        }
    return b->n - n0;
}

/* Would j fit somewhere in the fleet right now? */
static int fits_now(struct gs_cloud *c, const struct gs_job *j)
{
    struct gs_alloc a = { .pool = -1 };
    int ok = 0;
    for (int p = 0; p < c->f->npools && !ok; p++) {
        if (!gs_cloud_pool_ok(c, p, j))
            continue;
        struct gs_range r = { p, 0, c->f->pools[p].s.nodes };
        ok = gs_fleet_find(c->f, &r, &j->need, GS_FIT_FIRST, &a, NULL) == 0;
        gs_alloc_reset(&a);
    }
    return ok;
}

/* --- the scan ---------------------------------------------------------------- */

static void remove_node(struct gs_cloud *c, int node, int jobs)
{
    gs_cloud_node_set(c, node, NS_OFF);
    c->sum.removed++;
    gs_cloud_log_event(c, GS_CEV_REMOVE, node, -1, jobs, 0);
}

static void launch(struct gs_cloud *c, int pool, int count, gs_time trigger)
{
    struct gs_cpool *p = &c->pool[pool];
    int node0 = c->f->pools[pool].node0;
    for (int k = 0; k < p->spec->nodes && count > 0; k++)
        if (c->node[node0 + k].state == NS_OFF) {
            gs_cloud_launch(c, node0 + k,
                            gs_cloud_draw(c->r_prov, &p->cfg->provision),
                            trigger);
            count--;
        }
    p->last_add = gs_cloud_now(c);
}

static void enforce_bounds(struct gs_cloud *c, int pool)
{
    struct gs_cpool *p = &c->pool[pool];
    int node0 = c->f->pools[pool].node0, slots = p->spec->nodes;
    int excess = size_of(p) - p->max_eff;
    for (int pass = 0; pass < 3 && excess > 0; pass++)
        for (int k = slots - 1; k >= 0 && excess > 0; k--) {
            int node = node0 + k, st = c->node[node].state;
            if (pass == 0 && st == NS_BOOT) {
                remove_node(c, node, 0);
                excess--;
            } else if (pass == 1 && st == NS_UP &&
                       c->f->nodes[node].njobs == 0) {
                remove_node(c, node, 0);
                excess--;
            } else if (pass == 2 && st == NS_UP) {
                gs_cloud_node_set(c, node, NS_DRAIN);
                gs_cloud_log_event(c, GS_CEV_DRAIN, node, -1,
                                   c->f->nodes[node].njobs, 0);
                excess--;
            }
        }
    int deficit = p->min_eff - size_of(p);
    if (deficit > 0)
        launch(c, pool, deficit, -1);
}

static gs_time pending_since(const struct gs_job *j)
{
    return j->mark > j->s.arrival ? j->mark : j->s.arrival;
}

static void scale_up(struct gs_cloud *c)
{
    int np = c->f->npools;
    struct bins *b = calloc((size_t)np, sizeof *b);
    int *add = calloc((size_t)np, sizeof *add);
    gs_time *trig = malloc((size_t)np * sizeof *trig);
    int *order = malloc((size_t)np * sizeof *order);
    GS_ASSERT(b && add && trig && order);
    gs_time now = gs_cloud_now(c);
    int no = 0;
    for (int i = 0; i < np; i++) {
        trig[i] = GS_TIME_MAX;
        if (!c->pool[i].cfg->autoscale)
            continue;
        b[i].gpn = c->pool[i].spec->gpn;
        for (int k = 0; k < c->pool[i].n[NS_BOOT]; k++)
            bin_add(&b[i]);
        /* cheapest per GPU-hour first; ties in scenario order */
        double pr = gs_market_price(c, i, now) / b[i].gpn;
        int at = no;
        while (at > 0 && gs_market_price(c, order[at - 1], now) /
                             c->pool[order[at - 1]].spec->gpn > pr) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
        no++;
    }
    long looked = 0;
    for (struct gs_job *j = gs_sim_backlog_head(c->sim);
         j && looked < c->cfg->scan_depth; j = j->next, looked++) {
        if (fits_now(c, j))
            continue;
        for (int o = 0; o < no; o++) {
            int i = order[o];
            struct gs_cpool *p = &c->pool[i];
            if (!gs_fleet_pool_eligible(c->f, i, &j->need) ||
                !gs_cloud_pool_ok(c, i, j))
                continue;
            int room = p->max_eff - size_of(p) - add[i];
            int got = pack(&b[i], &j->need, room < 0 ? 0 : room);
            if (got < 0)
                continue;
            add[i] += got;
            if (got > 0 && pending_since(j) < trig[i])
                trig[i] = pending_since(j);
            break;
        }
    }
    for (int i = 0; i < np; i++) {
        if (add[i] > 0)
            launch(c, i, add[i], trig[i]);
        free(b[i].free);
    }
    free(b);
    free(add);
    free(trig);
    free(order);
}

/* May the busy node's jobs be evicted to consolidate? */
static int movable(struct gs_cloud *c, int pool, int node)
{
    long n = gs_cloud_jobs_on(c, node, -1);
    long need = 0;
    for (long i = 0; i < n; i++) {
        const struct gs_job *j = c->scratch[i];
        if (!j->preemptible)
            return 0;
        need += j->need.gpus > 0 ? (long)j->need.gpus * 1000 : j->need.milli;
    }
    long room = 0;
    int node0 = c->f->pools[pool].node0;
    for (int k = 0; k < c->pool[pool].spec->nodes; k++) {
        int o = node0 + k;
        const struct gs_node *nd = &c->f->nodes[o];
        if (o == node || !nd->up || nd->cordon)
            continue;
        for (int g = 0; g < c->f->pools[pool].s.gpn; g++)
            room += c->f->free_milli[nd->gpu0 + g];
    }
    return need <= room;
}

static void scale_down(struct gs_cloud *c, int pool)
{
    struct gs_cpool *p = &c->pool[pool];
    gs_time now = gs_cloud_now(c);
    if (p->nunneeded == 0 ||
        (p->last_add >= 0 && now < p->last_add + p->cfg->down_delay))
        return;
    int node0 = c->f->pools[pool].node0, busy_done = 0;
    for (int k = p->spec->nodes - 1; k >= 0; k--) {
        int node = node0 + k;
        const struct gs_cnode *n = &c->node[node];
        if (size_of(p) <= p->min_eff)
            break;
        if (n->state != NS_UP || n->unneeded < 0 ||
            now < n->unneeded + p->cfg->down_after)
            continue;
        if (c->f->nodes[node].njobs == 0) {
            remove_node(c, node, 0);
        } else if (!busy_done && movable(c, pool, node)) {
            long nj = gs_cloud_jobs_on(c, node, -1);
            gs_cloud_interrupt(c, nj, GS_STOP_DRAINED);
            c->sum.drain_restarts += nj;
            remove_node(c, node, (int)nj);
            busy_done = 1;
        }
    }
}

/* The next time a node becomes removable, or GS_TIME_MAX. */
static gs_time next_due(const struct gs_cloud *c)
{
    gs_time now = gs_cloud_now(c), best = GS_TIME_MAX;
    for (int i = 0; i < c->f->npools; i++) {
        const struct gs_cpool *p = &c->pool[i];
        if (!p->cfg->autoscale || p->nunneeded == 0)
            continue;
        int node0 = c->f->pools[i].node0;
        for (int k = 0; k < p->spec->nodes; k++) {
            const struct gs_cnode *n = &c->node[node0 + k];
            if (n->unneeded < 0)
                continue;
            gs_time due = n->unneeded + p->cfg->down_after;
            if (p->last_add >= 0 && p->last_add + p->cfg->down_delay > due)
                due = p->last_add + p->cfg->down_delay;
            if (due > now && due < best)
                best = due;
        }
    }
    return best;
}

static void on_scan(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_cloud *c = ((struct gs_ctimer *)ev)->c;
    gs_time now = gs_cloud_now(c);
    c->last_scan = now;
    for (int i = 0; i < c->f->npools; i++)
        if (c->pool[i].cfg->autoscale) {
            bounds(&c->pool[i], now);
            enforce_bounds(c, i);
        }
    if (gs_sim_npending(c->sim) > 0)
        scale_up(c);
    for (int i = 0; i < c->f->npools; i++)
        if (c->pool[i].cfg->autoscale)
            scale_down(c, i);
    /* No wake-up: new nodes are not ready yet, and evictions requeue
     * their jobs, which wakes the policy by itself. */
    gs_time due = next_due(c);
    if (due != GS_TIME_MAX)
        arm(c, grid(c, due));
}

/* The next window boundary after t for pool p, or GS_TIME_MAX. */
static gs_time next_boundary(const struct gs_poolcloud *pc, gs_time t)
{
    gs_time best = GS_TIME_MAX, day = t - t % GS_DAY;
    for (int i = 0; i < pc->nwin; i++) {
        int b[2] = { pc->win[i].from_min, pc->win[i].to_min };
        for (int e = 0; e < 2; e++) {
            gs_time x = day + (gs_time)b[e] * GS_MIN;
            if (x <= t)
                x += GS_DAY;
            if (x < best)
                best = x;
        }
    }
    return best;
}

static void on_window(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    struct gs_ctimer *tm = (struct gs_ctimer *)ev;
    struct gs_cloud *c = tm->c;
    gs_time now = gs_cloud_now(c);
    arm(c, now);
    gs_sim_at(c->sim, ev, next_boundary(c->pool[tm->idx].cfg, now));
}

void gs_as_init(struct gs_cloud *c)
{
    gs_event_init(&c->t_scan.ev, on_scan);
    c->t_scan.c = c;
    c->t_scan.idx = -1;
    c->last_scan = -1;
    for (int i = 0; i < c->f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        gs_event_init(&p->t_win.ev, on_window);
        p->t_win.c = c;
        p->t_win.idx = i;
        p->last_add = -1;
    }
}

void gs_as_start(struct gs_cloud *c)
{
    if (!c->any_autoscale)
        return;
    gs_time now = gs_cloud_now(c);
    for (int i = 0; i < c->f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        if (!p->cfg->autoscale)
            continue;
        bounds(p, now);
        int node0 = c->f->pools[i].node0;
        for (int k = 0; k < p->spec->nodes; k++)
            gs_as_node_changed(c, node0 + k);
        if (p->cfg->nwin > 0)
            gs_sim_at(c->sim, &p->t_win.ev, next_boundary(p->cfg, now));
    }
    arm(c, now);
}

void gs_as_touch(struct gs_cloud *c)
{
    gs_time now = gs_cloud_now(c);
    long pending = gs_sim_npending(c->sim);
    for (int i = 0; i < c->f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        if (!p->cfg->autoscale)
            continue;
        bounds(p, now);
        int size = size_of(p);
        if (size > p->max_eff || size < p->min_eff ||
            (pending > 0 && size < p->max_eff)) {
            arm(c, grid(c, now));
            return;
        }
    }
}
