/* svcseries.c -- a service's time series: what the replicas amount to between the clock's moves, and the /services samples.
 *
 * The simulation calls the model's advance hook each time its clock moves
 * to t (sim/core/sim.c), before anything due at t happens.  Between two
 * moves nothing about a service changes but time, so its integrals -- GPUs
 * serving (the utilization's denominator), the idle power of the serving
 * replicas' GPUs, and replicas x ms -- grow by the state's value times the
 * interval; iterations add their busy time and board energy as they end
 * (service.c).  At each multiple of the run's sample step the integrals
 * are cut there and one row of the /services series is taken: replicas
 * serving and starting, requests queued (at the router and in the
 * engines) and running, mean KV use, GPU utilization and board power over
 * the step (the DCGM fields' meaning), frame-buffer use and the arrival
 * rate, the columns named below.  svcout.c writes the rows; service.c's
 * essay has the model.
 *
 * An iteration is booked when it ends, but it drew its power over its
 * whole length: when it began before the last sample, the part before
 * each sample boundary belongs to the step that boundary closed.  Each
 * row keeps what its step integrated (GPU-s up, GPU-s busy, board J), and
 * an iteration's busy time and energy are split over the steps it spans
 * in proportion to the time it ran in each, the rows already taken
 * amended (gs_svc_series_iter); so is the sliver of a replica's up time
 * between its exact start and the millisecond the integrals were cut at
 * (gs_svc_series_up).  A step's power is then the mean of what the
 * replicas' GPUs drew in it, each at most its cap at every instant: the
 * mean is never above the cap but by rounding, and the rows' energy
 * plus what the last row has not closed add up to the service's. */
#include "svcint.h"
#include "../base/stepsplit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The /services series' columns (service.h's enum gs_svcol). */
static const struct {
    const char *name, *unit, *desc;
} cols[GS_NSVCOLS] = {
    { "replicas", "1", "replicas serving (draining included)" },
    { "starting", "1", "replicas asked for and not yet serving: waiting "
                       "for GPUs or a node, or loading weights" },
    { "queue", "1", "requests waiting: at the router and in the engines' "
                    "queues" },
    { "running", "1", "requests in the engines' running batches" },
    { "kv_usage", "1", "KV-cache blocks used / total, mean over serving "
                       "replicas" },
    { "DCGM_FI_DEV_GPU_UTIL", "%", "share of time the replicas' GPUs ran an "
                                   "iteration over the last step" },
    { "DCGM_FI_DEV_FB_USED", "MiB", "GPU memory used per replica GPU, mean: "
                                    "weights and KV blocks in use" },
    { "DCGM_FI_DEV_POWER_USAGE", "W", "board power per replica GPU, mean "
                                      "over the step: idle + the dynamic "
                                      "part of each iteration's compute and "
                                      "memory utilization, capped at the "
                                      "board limit (sim/cluster/power.h)" },
    { "request_rate", "1/s", "arrivals per second over the last step" },
};

const char *gs_svcol_name(int c) { return cols[c].name; }
const char *gs_svcol_unit(int c) { return cols[c].unit; }
const char *gs_svcol_desc(int c) { return cols[c].desc; }

/* Row k's utilization and power from what its step integrated. */
static void row_power(struct svc *sv, long k)
{
    double *row = sv->ser + k * GS_NSVCOLS;
    const double *acc = sv->ser_acc + 3 * k;
    double dup = acc[0];
    double util = dup > 0 ? acc[1] / dup : 0;
    if (util > 1)               /* rounding */
        util = 1;
    row[GS_SVC_GPU_UTIL] = 100.0 * util;
    row[GS_SVC_POWER] = dup > 0 ? acc[2] / dup : 0;
}

static void sample(struct svc *sv, gs_time t)
{
    if (sv->nser == sv->capser) {
        long cap = sv->capser ? sv->capser * 2 : 256;
        double *a = realloc(sv->ser_t, (size_t)cap * sizeof *a);
        GS_OOM_IF(a == NULL);
        sv->ser_t = a;
        double *b = realloc(sv->ser, (size_t)cap * GS_NSVCOLS * sizeof *b);
        GS_OOM_IF(b == NULL);
        sv->ser = b;
        double *c = realloc(sv->ser_acc, (size_t)cap * 3 * sizeof *c);
        GS_OOM_IF(c == NULL);
        sv->ser_acc = c;
        sv->capser = cap;
    }
    double *row = sv->ser + sv->nser * GS_NSVCOLS;
    memset(row, 0, GS_NSVCOLS * sizeof *row);
    int up = 0;
    double kv = 0, fb = 0;
    for (int p = 0; p < sv->npools; p++)
        row[GS_SVC_QUEUE] += (double)sv->pool[p].qlen;
    for (int i = 0; i < sv->nrep; i++) {
        struct rep *r = sv->rep[i];
        if (r->state == RS_UP) {
            struct gs_llm_stats st;
            gs_llm_engine_stats(r->e, &st);
            up++;
            row[GS_SVC_QUEUE] += st.waiting;
            row[GS_SVC_RUNNING] += st.running;
            kv += st.blocks_total > 0 ? (double)st.blocks_used /
                                        (double)st.blocks_total : 0;
            const struct gs_llm_engine_cfg *ec = &sv->pool[r->pool].ecfg;
            double blk = gs_llm_arch_kv_bytes_per_token(&ec->arch) *
                         ec->block_size / r->gpus;
            fb += r->fb_base_mib + (double)st.blocks_used * blk /
                                   (1024.0 * 1024.0);
        } else if (r->state == RS_WAIT || r->state == RS_LOAD) {
            row[GS_SVC_STARTING] += 1;
        }
    }
    row[GS_SVC_REPLICAS] = up;
    row[GS_SVC_KV] = up ? kv / up : 0;
    row[GS_SVC_FB_USED] = up ? fb / up : 0;
    double *acc = sv->ser_acc + 3 * sv->nser;
    acc[0] = sv->up_total;
    acc[1] = sv->busy_total;
    acc[2] = sv->energy_j;
    row_power(sv, sv->nser);
    double span = sv->nser > 0 ? (double)(t - (gs_time)(sv->ser_t[sv->nser - 1] *
                                                         1000.0)) / 1000.0
                               : (double)sv->step / 1000.0;
    row[GS_SVC_RATE] = span > 0 ? (double)(sv->nreq - sv->last_arrived) / span
                                : 0;
    sv->up_total = sv->busy_total = sv->energy_j = 0;
    sv->ser_last_s = (double)t / 1000.0;
    sv->last_arrived = sv->nreq;
    sv->ser_t[sv->nser++] = (double)t / 1000.0;
}

/* Up GPU-s, busy GPU-s and board J drawn evenly over [a, b] (s): each
 * step's share to its row, the rest to the integrals. */
void gs_svc_series_split(struct svc *sv, double a, double b, double up,
                         double busy, double j)
{
    struct gs_stepsplit it;
    double f;
    long k;
    /* from the last sample's time back, a step a row */
    if (!gs_stepsplit_start(&it, a, b, sv->ser_last_s, sv->next_sample,
                            sv->step, sv->nser, 0, &f)) {
        sv->up_total += up;
        sv->busy_total += busy;
        sv->energy_j += j;
        return;
    }
    if (f > 0) {
        sv->up_total += up * f;
        sv->busy_total += busy * f;
        sv->energy_j += j * f;
    }
    while (gs_stepsplit_next(&it, &k, &f)) {
        double *acc = sv->ser_acc + 3 * k;
        acc[0] += up * f;
        acc[1] += busy * f;
        acc[2] += j * f;
        row_power(sv, k);
    }
}

void gs_svc_series_up(struct svc *sv, double t, int gpus, double idle_w)
{
    double cut = (double)sv->last_adv / 1000.0;
    if (cut > t)
        gs_svc_series_split(sv, t, cut, gpus * (cut - t), 0,
                            idle_w * (cut - t));
}

void gs_svc_advance_hook(void *st, gs_time t)
{
    struct svmodel *m = st;
    for (int i = 0; i < m->n; i++) {
        struct svc *sv = &m->sv[i];
        if (t <= sv->last_adv)
            continue;
        int gpus = sv->up_gpus, n = sv->up_n;
        while (sv->next_sample <= t) {
            /* integrate up to the sample, then take it */
            gs_time ts = sv->next_sample;
            double dt = (double)(ts - sv->last_adv) / 1000.0;
            sv->up_total += dt * gpus;
            sv->energy_j += dt * sv->idle_w;
            sv->rep_ms += dt * 1000.0 * n;
            sv->last_adv = ts;
            sample(sv, ts);
            sv->next_sample += sv->step;
        }
        if (n > sv->rep_max)
            sv->rep_max = n;
        double dt = (double)(t - sv->last_adv) / 1000.0;
        sv->up_total += dt * gpus;
        sv->energy_j += dt * sv->idle_w;
        sv->rep_ms += dt * 1000.0 * n;
        sv->last_adv = t;
    }
}
