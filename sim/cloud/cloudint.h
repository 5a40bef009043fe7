/* cloudint.h -- the cloud models' shared state (internal to cloud.c,
 * market.c, spot.c, failure.c, autoscale.c and reaper.c).
 *
 * Invariants kept by gs_cloud_node_set(), the one place a node changes
 * state:
 *  - a node is up in the fleet iff it is in service (UP, NOTICE, DRAIN),
 *    and cordoned iff NOTICE or DRAIN;
 *  - a node leaves service only empty (callers interrupt its jobs first);
 *  - the spot and failure timers of a node are queued only while it is in
 *    service; its life timer only while BOOT or REPAIR;
 *  - pool->n[st] counts the pool's nodes in state st; pool->billed counts
 *    the nodes being paid for, pool->billed_empty those of them with no
 *    job; an on-demand or spot node's billing session is open iff it is
 *    not OFF. */
#ifndef GS_CLOUDINT_H
#define GS_CLOUDINT_H

#include "cloud.h"
#include "../spec/scenario.h"
#include "../core/sim.h"

#include <gsl/gsl_rng.h>

enum gs_nstate { NS_OFF, NS_BOOT, NS_UP, NS_NOTICE, NS_DRAIN, NS_REPAIR,
                 NS_SPARE, NS_N };

static inline int gs_ns_serving(int st)
{
    return st == NS_UP || st == NS_NOTICE || st == NS_DRAIN;
}

struct gs_cloud;

/* A model's timer: the event first, so the callback can cast back. */
struct gs_ctimer {
    struct gs_event ev;
    struct gs_cloud *c;
    int idx;                    /* node, global GPU, or pool */
};

/* A piecewise-constant series read from a file: value v[i] from t[i]
 * (ms after the run's start) until t[i+1]; v[0] before t[0], v[n-1] after
 * the last row. */
struct gs_pwc {
    long n;
    gs_time *t;
    double *v;
};

struct gs_cnode {
    int8_t state;
    gs_time sess;               /* billing session start, -1 = none */
    gs_time since;              /* entered service (age 0) */
    gs_time unneeded;           /* autoscaler: underutilized since, -1 */
    gs_time trigger;            /* autoscaler: pending since (launch), -1 */
    gs_time reclaim_at;         /* spot: when the notice says it goes */
};

struct gs_cpool {
    const struct gs_pool_spec *spec;
    const struct gs_poolcloud *cfg;
    int market;
    int n[NS_N];
    int billed, billed_empty;
    int billed_max;             /* the most billed at once (autoscaling) */
    int block_open;
    struct gs_pwc price, hazard;
    /* ledger */
    double paid, jobs, od_equiv;
    double node_ms, idle_node_ms, exposure_ms;
    /* autoscaler */
    int min_eff, max_eff;
    gs_time last_add;
    int nunneeded;
    struct gs_ctimer t_win, t_block;
};

/* What a node's change of state tells the parts of the cloud model:
 * called by the books (cloudbook.c: gs_cloud_node_set), which name none of
 * them; cloud.c wires them to spot, failure, the market and the
 * autoscaler. */
struct gs_cloud_parts {
    void (*serving_ends)(struct gs_cloud *c, int node);
    void (*serving_starts)(struct gs_cloud *c, int node);
    void (*session_open)(struct gs_cloud *c, int node);
    void (*session_close)(struct gs_cloud *c, int node, int final);
    void (*node_changed)(struct gs_cloud *c, int node);
};

struct gs_cloud {
    struct gs_sim *sim;
    const struct gs_scenario *sc;
    const struct gs_cloudcfg *cfg;
    struct gs_fleet *f;
    gs_time t0, last;
    int started;
    struct gs_cpool *pool;
    struct gs_cnode *node;
    /* per node: boot/repair, spot notice, spot reclaim, node failure,
     * "drained, maybe empty" */
    struct gs_ctimer *t_life, *t_notice, *t_reclaim, *t_nfail, *t_drain;
    struct gs_ctimer *t_gfail;  /* per GPU */
    float *speed;               /* per GPU: 1 healthy, < 1 degraded */
    gsl_rng *r_spot, *r_replace, *r_gpu, *r_node, *r_degrade, *r_repair,
        *r_prov;
    int any_spot, any_fail, any_autoscale;
    struct gs_ctimer t_scan;
    gs_time last_scan;
    struct gs_ctimer t_reap;
    /* books */
    double cost_tier[GS_NTIERS];
    double *cost_tenant;
    int ntenant;
    double gpu_ms_usable, gpu_ms_failed;
    long gpus_failed;           /* GPUs of nodes in repair + dead GPUs */
    long gpus_degraded;
    int16_t *fails;             /* failure restarts, by job record */
    long nfails;
    double ptc_sum;             /* pending-to-capacity, s */
    long ptc_n;
    struct gs_cloudsum sum;     /* counters as they happen */
    struct gs_cloudsum out;     /* the summary at the end */
    struct gs_cevent *log;
    long nlog, caplog;
    struct gs_job **scratch;
    long capscratch;
    const struct gs_cloud_parts *parts;     /* cloud.c's wiring */
};

/* What pool p's jobs paid, as booked in the bill.  The jobs' part is
 * summed job by job and the paid part node by node, so on a pool its jobs
 * kept full the two differ by rounding only, and the jobs' sum can come
 * out a few ulps above what was paid: idle (paid - jobs) would be -1e-13.
 * Within that rounding the jobs' part is what was paid, so idle is 0 and
 * the parts still add up exactly; a larger excess is a bug and shows. */
static inline double gs_cloud_jobs_paid(const struct gs_cpool *p)
{
    double over = p->jobs - p->paid;
    return over > 0 && over <= 1e-9 * p->paid ? p->paid : p->jobs;
}

/* Is a node of pool p in state st billed: reserved always, a capacity
 * block while open, others unless off. */
static inline int gs_cloud_billed(const struct gs_cpool *p, int st)
{
    switch (p->market) {
    case GS_MKT_RESERVED: return 1;
    case GS_MKT_BLOCK: return p->block_open;
    default: return st != NS_OFF;
    }
}

/* cloud.c */
void gs_cloud_node_set(struct gs_cloud *c, int node, int st);
void gs_cloud_log_event(struct gs_cloud *c, int kind, int node, int gpu,
                        int jobs, double value);
gs_time gs_cloud_now(const struct gs_cloud *c);
/* c->scratch holds at least n job pointers (grown as needed). */
void gs_cloud_scratch(struct gs_cloud *c, long n);
/* Running jobs with a part on node (and, if gpu >= 0, on that GPU of it),
 * copied to c->scratch: the array stays valid while they are interrupted.
 * Returns how many. */
long gs_cloud_jobs_on(struct gs_cloud *c, int node, int gpu);
/* Interrupt the n jobs of c->scratch for why; returns the GPU-hours of work
 * they lost.  Failure restarts beyond the limit become denials. */
double gs_cloud_interrupt(struct gs_cloud *c, long n, int why);
/* Draw a duration (ms) from d with r, at least 0. */
gs_time gs_cloud_draw(gsl_rng *r, const struct gs_distspec *d);
/* Launch OFF node: BOOT now, ready after delay; trigger is when the work
 * it was launched for began waiting (-1: none). */
void gs_cloud_launch(struct gs_cloud *c, int node, gs_time delay,
                     gs_time trigger);

/* market.c */
int gs_pwc_load(struct gs_pwc *s, const char *path, double lo, double hi,
                struct gs_diag *d);
void gs_pwc_free(struct gs_pwc *s);
double gs_pwc_at(const struct gs_pwc *s, gs_time t);
double gs_pwc_integral(const struct gs_pwc *s, gs_time a, gs_time b);
gs_time gs_pwc_invert(const struct gs_pwc *s, gs_time a, double target);
int gs_market_init(struct gs_cloud *c, struct gs_diag *d);
double gs_market_price(const struct gs_cloud *c, int pool, gs_time t);
/* $ per node over [a, b) at the pool's price. */
double gs_market_charge(const struct gs_cloud *c, int pool, gs_time a,
                        gs_time b);
void gs_market_session_open(struct gs_cloud *c, int node);
void gs_market_session_close(struct gs_cloud *c, int node, int final);
void gs_market_close(struct gs_cloud *c, gs_time end);
double gs_market_rate(const struct gs_cloud *c, gs_time t);

/* spot.c */
int gs_spot_init(struct gs_cloud *c, struct gs_diag *d);
void gs_spot_enter(struct gs_cloud *c, int node);
void gs_spot_leave(struct gs_cloud *c, int node);

/* failure.c */
void gs_fail_init(struct gs_cloud *c);
void gs_fail_enter(struct gs_cloud *c, int node);
void gs_fail_leave(struct gs_cloud *c, int node);
double gs_fail_job_speed(const struct gs_cloud *c, const struct gs_job *j);
void gs_fail_repaired(struct gs_cloud *c, int node);

/* autoscale.c */
void gs_as_init(struct gs_cloud *c);
void gs_as_start(struct gs_cloud *c);
void gs_as_touch(struct gs_cloud *c);
void gs_as_node_changed(struct gs_cloud *c, int node);

/* reaper.c */
void gs_reap_init(struct gs_cloud *c);
void gs_reap_started(struct gs_cloud *c, const struct gs_job *j);
void gs_reap_rescan(struct gs_cloud *c);

/* The cloud's outputs (cloudout.c; model.h's output hooks). */
#define GS_CLOUD_NFIELDS 28
extern const struct gs_field gs_cloud_fields[];
void gs_cloud_values(const void *st, double *v);
void gs_cloud_report(const struct gs_sim *s, const void *st, FILE *fp);
void gs_cloud_json(const struct gs_sim *s, const void *st, FILE *fp);
void gs_cloud_csv(const struct gs_sim *s, const void *st, FILE *fp);
void gs_cloud_h5(const struct gs_sim *s, const void *st, struct gs_h5w *w);

#endif
