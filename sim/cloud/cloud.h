/* cloud.h -- the fleet as a cloud: markets and bills, spot reclaims,
 * hardware failures, node autoscaling and idle reaping.
 *
 * One struct gs_cloud per simulation owns the life of every node and ties
 * five models together, each in its own file:
 *   market.c    prices per pool and market, billing sessions with their
 *               granularity, and the ledger (by market, pool, GPU model,
 *               tenant, tier, and the idle remainder);
 *   spot.c      each spot node's interruption process, the notice to the
 *               policy, the reclaim and the replacement;
 *   failure.c   GPU and node failure processes (exponential, Weibull with a
 *               burn-in), repairs, degraded GPUs, spares, fail-in-place,
 *               denial after too many failure restarts;
 *   autoscale.c scale-up for pending work that fits nowhere, consolidation
 *               of underutilized nodes, minimum and maximum sizes, daily
 *               windows, scale-to-zero;
 *   reaper.c    jobs idle longer than a threshold are terminated.
 * The node life cycle they share (cloud.c):
 *
 *     OFF --launch--> BOOT --ready--> UP <--> NOTICE / DRAIN (cordoned)
 *      ^                               |  \
 *      +------ reclaim, remove --------+   fail --> REPAIR --> UP or SPARE
 *                                                   SPARE --swap in--> UP
 *
 * UP, NOTICE and DRAIN nodes are "in service": up in the fleet, running
 * jobs, exposed to spot reclaims and failures.  Everything but OFF is paid
 * for on on-demand and spot pools; reserved pools are paid in full for the
 * whole run, capacity blocks for their whole window.
 *
 * The simulation calls in through the cloud's entry in the models table
 * (model.h, gs_cloud_model) at a few points only: to build and start
 * the models, to ask whether a job's tier may use a pool, when a job starts
 * and when it stops running (cost attribution), as the clock advances (the
 * integrals), after each scheduling pass (the autoscaler looks at what
 * still waits), and at the end.  The models act on jobs only through the
 * engine calls of sim.h (gs_sim_interrupt, gs_sim_kill, gs_sim_set_rate,
 * gs_sim_at), never on the policy's state. */
#ifndef GS_CLOUD_H
#define GS_CLOUD_H

#include "../spec/cloudcfg.h"
#include "../base/err.h"
#include "../cluster/fleet.h"
#include "../core/job.h"
#include "../core/metrics.h"
#include "../core/model.h"

#include <stdint.h>

struct gs_sim;
struct gs_scenario;
struct gs_cloud;

/* What happened to nodes, in order: the cloud event log (HDF5 /cloud/log).
 * value: the component's age in s (failures, degradations: time since its
 * node entered service), the provisioning delay in s (launch), the
 * pending-to-capacity time in s or -1 (ready), the GPU-hours of work lost
 * (reclaim), the time to the reclaim in s (notice), 1 if the node became a
 * spare (repaired), the nodes (block start, end), the job id (reaped). */
enum gs_cev { GS_CEV_NOTICE, GS_CEV_RECLAIM, GS_CEV_NODE_FAIL, GS_CEV_GPU_FAIL,
              GS_CEV_DEGRADE, GS_CEV_REPAIRED, GS_CEV_SPARE_IN, GS_CEV_LAUNCH,
              GS_CEV_READY, GS_CEV_REMOVE, GS_CEV_DRAIN, GS_CEV_BLOCK_START,
              GS_CEV_BLOCK_END, GS_CEV_REAP, GS_NCEV };

struct gs_cevent {
    gs_time t;
    int kind;                   /* enum gs_cev */
    int pool, node, gpu;        /* gpu: index within the node, or -1 */
    int jobs;                   /* jobs it interrupted or killed */
    double value;
};

const char *gs_cev_name(int kind);

/* The cloud's part of the summary (its scalars: cloudout.c). */
struct gs_cloudsum {
    double cost_market[4];      /* by enum gs_market */
    double cost_idle;           /* paid, no job held it */
    double cost_jobs;           /* attributed to jobs */
    double cost_ondemand_equiv; /* the same node-time at on-demand prices */
    double spot_savings;        /* on spot pools: on-demand equiv - paid */
    long spot_reclaims, spot_notices, spot_restarts;
    double spot_lost_gpu_h, spot_exposure_node_h;
    long gpu_failures, node_failures, degradations, fail_restarts, denials,
        spare_swaps;
    double fail_lost_gpu_h;
    double availability;        /* usable / (usable + failed) GPU-time */
    double node_hours, idle_node_hours;
    long launched, removed, drain_restarts;
    double pend_to_cap_mean_s, pend_to_cap_max_s;
    long reaped;
};

/* The cloud as one model of the simulation (model.h): its hooks are thin
 * adapters over the calls below. */
extern const struct gs_model_ops gs_cloud_model;
/* The cloud models of simulation s (cost breakdowns, the event log). */
struct gs_cloud *gs_sim_cloud(const struct gs_sim *s);

/* Build the models for sim (its scenario sc and fleet f; both outlive the
 * cloud), set every node's starting state and hook the cost rate and the
 * cloud columns into m.  0, or a negative code with d filled (an unreadable
 * price or hazard file: file:line). */
int gs_cloud_new(struct gs_sim *sim, const struct gs_scenario *sc,
                 struct gs_fleet *f, struct gs_metrics *m, uint64_t seed,
                 struct gs_cloud **out, struct gs_diag *d);
void gs_cloud_free(struct gs_cloud *c);
/* The run starts at t0 (its first arrival): start the processes. */
int gs_cloud_start(struct gs_cloud *c, gs_time t0);

/* 1 if job may be placed on pool (the spot rule), else 0. */
int gs_cloud_pool_ok(const struct gs_cloud *c, int pool,
                     const struct gs_job *job);
/* job has just started on its alloc. */
void gs_cloud_job_started(struct gs_cloud *c, struct gs_job *job);
/* job has stopped running (its alloc already released, not yet reset), or
 * the books close with it running.  Returns the $ attributed to the run
 * that ended: its GPUs' share of their nodes' price over the run. */
double gs_cloud_job_ran(struct gs_cloud *c, const struct gs_job *job);
/* The clock moves to t: integrate node-hours, availability, exposure. */
void gs_cloud_advance(struct gs_cloud *c, gs_time t);
/* The policy has scheduled: the autoscaler may want to look. */
void gs_cloud_after_schedule(struct gs_cloud *c);
/* End of the run at end: close the bills. */
void gs_cloud_close(struct gs_cloud *c, gs_time end);
/* Close the cloud's summary, and set su->cost from the bills. */
void gs_cloud_summarize(struct gs_cloud *c, struct gs_summary *su);
/* The cloud's summary (after the run). */
const struct gs_cloudsum *gs_cloud_summary(const struct gs_cloud *c);

/* --- results (valid after the run) ------------------------------------ */
const struct gs_cevent *gs_cloud_log(const struct gs_cloud *c, long *n);
/* Cost attributed to tenant t (index of gs_sim_tenant_name), to tier t. */
double gs_cloud_cost_tenant(const struct gs_cloud *c, int tenant);
double gs_cloud_cost_tier(const struct gs_cloud *c, int tier);
/* Per pool: paid, attributed to jobs, on-demand equivalent ($), billed
 * node-hours and node-hours with no job; the nodes billed on average over
 * the run and the most billed at once (what an autoscaled pool booted). */
struct gs_cloud_poolbill {
    double paid, jobs, od_equiv, node_h, idle_node_h;
    double nodes_mean;
    int nodes_peak;
};
void gs_cloud_pool_bill(const struct gs_cloud *c, int pool,
                        struct gs_cloud_poolbill *out);
/* Market names: "on-demand", "reserved", "spot", "capacity-block". */
const char *gs_market_name(int market);

#endif
