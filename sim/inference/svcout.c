/* svcout.c -- the inference services' part of every output: the
 * summary's inference_* scalars, the services' table in the text report,
 * "services" in --json and CSV, /requests and /services in the HDF5 file,
 * the service.NAME.FIELD targets of plan and sweep, and the plan's
 * right-sizing per service (model.h's output hooks; h5out.h's writer
 * calls).  Nothing outside inference/ names these: the writers and tools
 * call the hooks. */
#include "service.h"
#include "../cluster/mig.h"
#include "../io/h5out.h"
#include "../io/report.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const struct gs_field gs_svc_fields[] = {
    { "inference_requests", "%.0f", NULL, NULL },
    { "inference_finished", "%.0f", NULL, NULL },
    { "inference_ttft_p50_s", "%.6f", NULL, NULL },
    { "inference_ttft_p99_s", "%.6f", NULL, NULL },
    { "inference_itl_p50_s", "%.6f", NULL, NULL },
    { "inference_itl_p99_s", "%.6f", NULL, NULL },
    { "inference_e2e_p99_s", "%.6f", NULL, NULL },
    { "inference_queue_p99_s", "%.6f", NULL, NULL },
    { "inference_sla_attainment", "%.6f", NULL, NULL },
    { "inference_goodput_rps", "%.6f", NULL, NULL },
    { "inference_tokens_per_s_per_gpu", "%.4f", NULL, NULL },
    { "inference_cost_per_mtok_usd", "%.6f", NULL, NULL },
    { "inference_kwh_per_1k_requests", "%.6f", "kWh",
      "the services' replicas' facility energy per 1,000 finished "
      "requests" },
};
_Static_assert(sizeof gs_svc_fields / sizeof gs_svc_fields[0] ==
               GS_SVC_NFIELDS, "GS_SVC_NFIELDS");

void gs_svc_infsum_values(const struct gs_infsum *o, double *v)
{
    const double x[GS_SVC_NFIELDS] = {
        o->requests, o->finished, o->ttft_p50, o->ttft_p99, o->itl_p50,
        o->itl_p99, o->e2e_p99, o->queue_p99, o->attainment, o->goodput,
        o->tok_s_gpu, o->cost_per_mtok, o->kwh_per_1k,
    };
    memcpy(v, x, sizeof x);
}

/* The verdict at the end of a service's second line: "; SLA met", or
 * "; SLA missed:" and each part that misses it (a percentile above its
 * target, requests dropped or left in flight), so the summary says why. */
static void sla_verdict(const struct gs_svcsum *v, char *buf, size_t n)
{
    buf[0] = 0;
    if (v->sla_met < 0)
        return;
    if (v->sla_met) {
        snprintf(buf, n, "; SLA met");
        return;
    }
    size_t k = (size_t)snprintf(buf, n, "; SLA missed:");
    const char *sep = " ";
    if (v->sla_ttft_s > 0 && v->ttft_at > v->sla_ttft_s && k < n) {
        k += (size_t)snprintf(buf + k, n - k, "%sTTFT p%g %.3fs > %.3fs",
                              sep, v->sla_ttft_pct, v->ttft_at,
                              v->sla_ttft_s);
        sep = ", ";
    }
    if (v->sla_itl_s > 0 && v->itl_at > v->sla_itl_s && k < n) {
        k += (size_t)snprintf(buf + k, n - k, "%sITL p%g %.1fms > %.1fms",
                              sep, v->sla_itl_pct, 1e3 * v->itl_at,
                              1e3 * v->sla_itl_s);
        sep = ", ";
    }
    if (v->dropped + v->inflight > 0 && k < n)
        snprintf(buf + k, n - k, "%s%ld requests dropped or in flight", sep,
                 v->dropped + v->inflight);
}

/* The services' table of the text report. */
void gs_svc_report(const struct gs_sim *s, const void *st, FILE *fp)
{
    (void)st;
    int nsv = gs_sim_nservices(s);
    if (nsv > 0)
        fprintf(fp, "\n  %-12s %8s %8s %15s %15s %9s %7s %9s %8s %8s\n",
                "service", "requests", "done", "TTFT p50/p99", "ITL p50/p99",
                "e2e p99", "SLA", "goodput", "tok/s/GPU", "$/Mtok");
    for (int i = 0; i < nsv; i++) {
        const struct gs_svcsum *v = gs_sim_service(s, i);
        char ttft[32], itl[32], sla[16], verdict[160];
        sla_verdict(v, verdict, sizeof verdict);
        snprintf(ttft, sizeof ttft, "%.3f/%.3fs", v->ttft[0], v->ttft[2]);
        snprintf(itl, sizeof itl, "%.1f/%.1fms", 1e3 * v->itl[0],
                 1e3 * v->itl[2]);
        if (v->sla_met < 0)
            snprintf(sla, sizeof sla, "-");
        else
            snprintf(sla, sizeof sla, "%.1f%%", 100 * v->attainment);
        fprintf(fp, "  %-12s %8ld %8ld %15s %15s %8.2fs %7s %7.2f/s %8.0f "
                "%8.3f\n", v->name, v->arrived, v->finished, ttft, itl,
                v->e2e[2], sla, v->goodput, v->tok_s_gpu, v->cost_per_mtok);
        fprintf(fp, "  %-12s queue p99 %.3fs; %ld dropped, %ld in flight, %ld "
                "restarted; replicas %.2f mean, %.0f max, %ld started, %ld "
                "lost; %.2f GPU-hours, $%.2f; %.2f kWh (%.4f per 1k "
                "requests), %.2f kg CO2e%s\n", "", v->queue[2],
                v->dropped, v->inflight, v->restarted, v->replicas_mean,
                v->replicas_max, v->replica_starts, v->replica_losses,
                v->gpu_hours, v->cost, v->energy_kwh, v->kwh_per_1k,
                v->carbon_kg, verdict);
    }
}

void gs_svc_json(const struct gs_sim *s, const void *st, FILE *fp)
{
    (void)st;
    fprintf(fp, ",\n  \"services\": {");
    for (int i = 0; i < gs_sim_nservices(s); i++) {
        const struct gs_svcsum *v = gs_sim_service(s, i);
        fprintf(fp, "%s\n    ", i ? "," : "");
        gs_report_json_str(fp, v->name);
        fprintf(fp, ": {");
        const char *sep = "";
#define V(E, N, F, U) \
        fprintf(fp, "%s\"" N "\": ", sep); \
        gs_report_json_num(fp, F, (double)(E)); sep = ", ";
        GS_SVCSUM_FIELDS(V)
#undef V
        fputc('}', fp);
    }
    fprintf(fp, "\n  }");
}

void gs_svc_csv(const struct gs_sim *s, const void *st, FILE *fp)
{
    (void)st;
    for (int i = 0; i < gs_sim_nservices(s); i++) {
        const struct gs_svcsum *v = gs_sim_service(s, i);
#define V(E, N, F, U) \
        fprintf(fp, "service:%s," N "," F "\n", v->name, (double)(E));
        GS_SVCSUM_FIELDS(V)
#undef V
    }
}

/* --- the HDF5 file's /requests and /services (layout: README) ----------- */

struct req_row {
    int32_t service;
    int64_t index;
    double arrival_s, ttft_s, itl_s, e2e_s, queue_s;
    int32_t input_tokens, output_tokens, cached_tokens, replica;
    int8_t state, restarts;
    double energy_kwh;
};

#define RC(f, ty) { #f, ty, offsetof(struct req_row, f), NULL, NULL }
static const struct gs_h5col req_cols[] = {
    RC(service, GS_H5_I32), RC(index, GS_H5_I64), RC(arrival_s, GS_H5_F64),
    RC(ttft_s, GS_H5_F64), RC(itl_s, GS_H5_F64), RC(e2e_s, GS_H5_F64),
    RC(queue_s, GS_H5_F64), RC(input_tokens, GS_H5_I32),
    RC(output_tokens, GS_H5_I32), RC(cached_tokens, GS_H5_I32),
    RC(replica, GS_H5_I32), RC(state, GS_H5_I8), RC(restarts, GS_H5_I8),
    RC(energy_kwh, GS_H5_F64),
};
#undef RC

/* Every request, or an evenly spaced share `rate` of them: j of each
 * service's is kept unless rate < 1 and j and j + 1 fall in the same
 * whole of j * rate. */
static int req_kept(long j, double rate)
{
    return rate >= 1 || floor((double)(j + 1) * rate) !=
                        floor((double)j * rate);
}

/* The rows of /requests, made in order: the next request is index j of
 * service i. */
struct reqrows {
    const struct gs_sim *s;
    double rate;
    int i;
    long j;
};

static void req_rows(void *ctx, size_t first, size_t k, void *buf)
{
    struct reqrows *c = ctx;
    struct req_row *rows = buf;
    (void)first;
    for (size_t m = 0; m < k;) {
        long n;
        GS_ASSERT(c->i < gs_sim_nservices(c->s));
        const struct gs_reqrec *q = gs_sim_service_requests(c->s, c->i, &n);
        for (; c->j < n && m < k; c->j++) {
            long j = c->j;
            if (!req_kept(j, c->rate))
                continue;
            double ttft = q[j].first >= 0 ? q[j].first - q[j].arrival : NAN;
            double e2e = q[j].end >= 0 && q[j].state == GS_REQ_DONE
                             ? q[j].end - q[j].arrival : NAN;
            double itl = q[j].state == GS_REQ_DONE && q[j].out > 1
                             ? (q[j].end - q[j].first) / (q[j].out - 1) : NAN;
            rows[m++] = (struct req_row){
                .service = c->i, .index = j, .arrival_s = q[j].arrival,
                .ttft_s = ttft, .itl_s = itl, .e2e_s = e2e,
                .queue_s = q[j].first >= 0 ? q[j].queue : NAN,
                .input_tokens = q[j].in, .output_tokens = q[j].out,
                .cached_tokens = q[j].cached, .replica = q[j].replica,
                .state = q[j].state, .restarts = (int8_t)q[j].restarts,
                .energy_kwh = q[j].energy_j / 3.6e6 };
        }
        if (c->j == n) {
            c->i++;
            c->j = 0;
        }
    }
}

static void write_requests(struct gs_h5w *w, const struct gs_sim *s,
                           double rate)
{
    int nsv = gs_sim_nservices(s);
    size_t total = 0;
    for (int i = 0; i < nsv; i++) {
        long n;
        gs_sim_service_requests(s, i, &n);
        for (long j = 0; j < n; j++)
            total += (size_t)req_kept(j, rate);
    }
    struct reqrows c = { s, rate, 0, 0 };
    gs_h5loc root = gs_h5w_root(w);
    gs_h5w_table_rows(w, root, "requests", req_cols,
                      (int)(sizeof req_cols / sizeof req_cols[0]),
                      sizeof(struct req_row), total, req_rows, &c);
    gs_h5w_describe(w, root, "requests", "",
             "one row per request (an evenly spaced share sample_rate of "
             "them): service (index in /services/names), index (arrival "
             "order within its service), arrival, time to first token, mean "
             "inter-token latency, end-to-end time, queueing (TTFT less the "
             "unloaded prefill time), prompt, output and prefix-cached "
             "tokens, last replica, state (/services/request_states), "
             "restarts after a lost replica; NaN where not reached");
    gs_h5w_attr_num(w, root, "requests", "sample_rate", rate);
}

/* What each field of GS_SVCSUM_FIELDS measures, in its order. */
static const char *const svc_desc[] = {
    "requests that arrived",
    "requests that finished (every output token sent)",
    "requests dropped: prompt and output can never fit a replica's KV "
    "cache",
    "requests still in flight at the end of the run",
    "requests restarted after their replica was lost",
    "mean time to first token",
    "median time to first token",
    "95th percentile of the time to first token",
    "99th percentile of the time to first token",
    "mean inter-token latency, weighted by tokens",
    "median inter-token latency, weighted by tokens",
    "95th percentile of the inter-token latency, weighted by tokens",
    "99th percentile of the inter-token latency, weighted by tokens",
    "mean end-to-end time (arrival to the last token)",
    "median end-to-end time",
    "95th percentile of the end-to-end time",
    "99th percentile of the end-to-end time",
    "mean queueing time (TTFT less the unloaded prefill time)",
    "median queueing time",
    "95th percentile of the queueing time",
    "99th percentile of the queueing time",
    "1 when the service met its SLA (TTFT and ITL percentiles within "
    "their targets, no request dropped or in flight), 0 when not, -1 "
    "without targets",
    "requests meeting every SLA target / requests arrived",
    "requests meeting every SLA target per second of the run",
    "output tokens sent",
    "output tokens per replica GPU-second",
    "GPU-hours the service's replicas held",
    "what the service's replicas cost",
    "cost per million output tokens",
    "the replicas' facility energy: their GPUs' idle power and their "
    "share of their hosts' power while allocated, and their iterations' "
    "dynamic power, x PUE (docs/energy.md)",
    "energy_kwh per 1,000 finished requests",
    "CO2e of energy_kwh at the grid intensity by hour",
    "of energy_kwh: in no request (loading weights, idle between "
    "iterations); /requests energy_kwh adds up to the rest",
    "time-mean number of replicas",
    "most replicas at once",
    "replicas started",
    "replicas lost (spot reclaim, failure)",
    "requests the engines preempted (recomputed) for KV cache space",
};

/* One row of /services/summary: the service, then every field of
 * GS_SVCSUM_FIELDS, counts as integers. */
union svc_cell { int64_t i; double d; };
struct svc_row {
    const char *service;
    union svc_cell c[sizeof svc_desc / sizeof svc_desc[0]];
};

static void write_svc_summary(struct gs_h5w *w, gs_h5loc g,
                              const struct gs_sim *s)
{
    enum { NF = sizeof svc_desc / sizeof svc_desc[0] };
    static const struct { const char *name, *fmt, *unit; } f[] = {
#define V(E, N, F, U) { N, F, U },
        GS_SVCSUM_FIELDS(V)
#undef V
    };
    _Static_assert(sizeof f / sizeof f[0] == NF,
                   "svc_desc: one description per GS_SVCSUM_FIELDS field");
    struct gs_h5col cols[NF + 1];
    cols[0] = (struct gs_h5col){ "service", GS_H5_STR,
                                 offsetof(struct svc_row, service), "",
                                 "the service's name (/services/names)" };
    for (int k = 0; k < NF; k++)
        cols[k + 1] = (struct gs_h5col){
            f[k].name, strcmp(f[k].fmt, "%.0f") == 0 ? GS_H5_I64 : GS_H5_F64,
            offsetof(struct svc_row, c) + (size_t)k * sizeof(union svc_cell),
            f[k].unit, svc_desc[k] };
    int nsv = gs_sim_nservices(s);
    struct svc_row *rows = calloc((size_t)(nsv ? nsv : 1), sizeof *rows);
    if (rows == NULL) {
        gs_h5w_fail(w, "/services/summary");
        return;
    }
    for (int i = 0; i < nsv; i++) {
        const struct gs_svcsum *v = gs_sim_service(s, i);
        int k = 0;
        rows[i].service = v->name;
#define V(E, N, F, U)                                                     \
        if (cols[k + 1].type == GS_H5_I64)                                \
            rows[i].c[k++].i = llround((double)(E));                      \
        else                                                              \
            rows[i].c[k++].d = (double)(E);
        GS_SVCSUM_FIELDS(V)
#undef V
    }
    gs_h5w_table(w, g, "summary", cols, NF + 1, sizeof(struct svc_row), rows,
                 (size_t)nsv);
    free(rows);
    gs_h5w_describe(w, g, "summary", "",
             "one row per service: request counts, TTFT, ITL (token-weighted),"
             " end-to-end and queueing percentiles, SLA attainment, goodput, "
             "tokens/s per GPU, GPU-hours, cost; each column's unit in "
             "column_units");
}

static void write_services(struct gs_h5w *w, const struct gs_sim *s)
{
    int nsv = gs_sim_nservices(s);
    gs_h5loc g = gs_h5w_group(w, gs_h5w_root(w), "services");
    if (g < 0)
        return;
    /* Beside the per-service groups: the tables GS_SVC_RESERVED_NAMES
     * lists (svccfg.h), which the scenario refuses as service names. */
    const char *names[GS_SVC_MAX];
    for (int i = 0; i < nsv; i++)
        names[i] = gs_sim_service(s, i)->name;
    gs_h5w_strings(w, g, "names", names, (size_t)nsv);
    const char *st[GS_NREQSTATES];
    for (int i = 0; i < GS_NREQSTATES; i++)
        st[i] = gs_reqstate_name(i);
    gs_h5w_strings(w, g, "request_states", st, GS_NREQSTATES);
    write_svc_summary(w, g, s);
    /* Time series: /services/NAME/COLUMN, sampled on the run's step. */
    for (int i = 0; i < nsv; i++) {
        long n;
        const double *t;
        const double *ser = gs_sim_service_series(s, i, &n, &t);
        gs_h5loc sg = gs_h5w_group(w, g, names[i]);
        if (sg < 0)
            continue;
        size_t dim = (size_t)n;
        gs_h5w_doubles(w, sg, "time_s", 1, &dim, t);
        gs_h5w_describe(w, sg, "time_s", "s", "sample times (the run's step)");
        double *col = malloc((size_t)(n ? n : 1) * sizeof *col);
        for (int c = 0; col && c < GS_NSVCOLS; c++) {
            for (long r = 0; r < n; r++)
                col[r] = ser[r * GS_NSVCOLS + c];
            gs_h5w_doubles(w, sg, gs_svcol_name(c), 1, &dim, col);
            gs_h5w_describe(w, sg, gs_svcol_name(c), gs_svcol_unit(c),
                     gs_svcol_desc(c));
        }
        if (col == NULL)
            gs_h5w_fail(w, names[i]);
        free(col);
        gs_h5w_close(sg);
    }
    gs_h5w_close(g);
}


void gs_svc_h5(const struct gs_sim *s, const void *st, struct gs_h5w *w)
{
    if (st == NULL || gs_sim_nservices(s) == 0)
        return;
    write_requests(w, s, gs_h5w_sample(w));
    write_services(w, s);
}

/* --- plan and sweep: service.NAME.FIELD targets, right-sizing ---------- */

/* A service's summary fields, as targets "service.NAME.FIELD". */
#define SVC_NAME(expr, name, fmt, unit) name,
static const char *const svc_fields[] = { GS_SVCSUM_FIELDS(SVC_NAME) };
#undef SVC_NAME
#define NSF ((int)(sizeof svc_fields / sizeof svc_fields[0]))
#define MAXSVC 16

static int nbound(const struct gs_scenario *sc)
{
    return sc->nsvcs < MAXSVC ? sc->nsvcs : MAXSVC;
}

int gs_svc_ntargets(const struct gs_scenario *sc)
{
    return nbound(sc) * NSF;
}

void gs_svc_target_name(const struct gs_scenario *sc, int i, char *buf,
                        size_t n)
{
    /* the name whole (at most 63 bytes: the parser refuses longer), as
     * the plan's targets name it; cut to 60 it named no metric, and a
     * plan with a target on it stopped at an assertion */
    snprintf(buf, n, "service.%s.%s", sc->svcs[i / NSF].name,
             svc_fields[i % NSF]);
}

/* A service's summary fields in GS_SVCSUM_FIELDS order. */
static void svc_values(const struct gs_svcsum *v, double *out)
{
    int t = 0;
#define SVC_VAL(expr, name, fmt, unit) out[t++] = (double)(expr);
    GS_SVCSUM_FIELDS(SVC_VAL)
#undef SVC_VAL
    GS_ASSERT(t == NSF);
}

/* The values of the targets bound to sc (its services, by name) in run s:
 * NaN for a service the run lacks. */
void gs_svc_target_values(const struct gs_scenario *sc,
                          const struct gs_sim *s, const void *st, double *v)
{
    (void)st;
    for (int k = 0; k < nbound(sc); k++) {
        char name[64];
        snprintf(name, sizeof name, "%s", sc->svcs[k].name);
        const struct gs_svcsum *sv = NULL;
        for (int j = 0; j < gs_sim_nservices(s); j++)
            if (strcmp(gs_sim_service(s, j)->name, name) == 0)
                sv = gs_sim_service(s, j);
        if (sv != NULL) {
            svc_values(sv, v + k * NSF);
        } else {
            for (int f = 0; f < NSF; f++)
                v[k * NSF + f] = NAN;
        }
    }
}

/* Is metric a service target of sc: 0 when not "service.*", 1 when it
 * names a service of sc and a field, -1 otherwise (why filled). */
int gs_svc_target_check(const struct gs_scenario *sc, const char *metric,
                        char *why, size_t n)
{
    if (strncmp(metric, "service.", 8) != 0)
        return 0;
    const char *dot = strrchr(metric, '.');
    int known = 0;
    for (int i = 0; i < sc->nsvcs; i++)
        known |= strlen(sc->svcs[i].name) == (size_t)(dot - metric - 8) &&
                 strncmp(sc->svcs[i].name, metric + 8,
                         (size_t)(dot - metric - 8)) == 0;
    if (!known) {
        snprintf(why, n, "no service '%.*s' in $.services",
                 (int)(dot - metric - 8), metric + 8);
        return -1;
    }
    for (int f = 0; f < NSF; f++)
        if (strcmp(svc_fields[f], dot + 1) == 0)
            return 1;
    snprintf(why, n, "no service metric '%s'", dot + 1);
    return -1;
}

/* Right-sizing per service, from the same run's /services samples: the
 * replicas it used, its GPUs' utilization (DCGM_FI_DEV_GPU_UTIL), and the
 * peak memory per replica GPU (weights + KV blocks in use,
 * DCGM_FI_DEV_FB_USED; the peak of the mean over serving replicas).  The
 * fit is the smallest GPU with that memory + 20% at the service's TP; for a
 * one-GPU replica also the smallest MIG profile with that memory and at
 * least the peak utilization's share of the compute slices (a slice that
 * was busy u of the time on a whole GPU needs about u of its SMs). */
void gs_svc_plan_report(const struct gs_sim *sim, const void *st, FILE *fp)
{
    const struct gs_scenario *sc = gs_sim_scenario(sim);
    (void)st;
    int nsv = gs_sim_nservices(sim);
    if (nsv == 0)
        return;
    fprintf(fp, "\nright-sizing per service (same run; memory per replica "
            "GPU = weights + KV in use, peak; fit = smallest GPU, or MIG "
            "profile for a one-GPU replica, with the peak memory + 20%%):\n");
    fprintf(fp, "  %-12s %4s %13s %9s %9s %12s  %s\n", "service", "TP",
            "replicas mean", "util mean", "util peak", "peak mem/GPU",
            "fits");
    for (int i = 0; i < nsv && i < sc->nsvcs; i++) {
        const struct gs_svcsum *v = gs_sim_service(sim, i);
        const struct gs_svcpool *pl = &sc->svcs[i].pool[0];
        long ns = 0;
        const double *t = NULL;
        const double *row = gs_sim_service_series(sim, i, &ns, &t);
        double fb = 0, usum = 0, upk = 0;
        long nup = 0;
        for (long r = 0; row && r < ns; r++) {
            const double *x = row + r * GS_NSVCOLS;
            if (x[GS_SVC_REPLICAS] <= 0)
                continue;
            nup++;
            usum += x[GS_SVC_GPU_UTIL];
            if (x[GS_SVC_GPU_UTIL] > upk)
                upk = x[GS_SVC_GPU_UTIL];
            if (x[GS_SVC_FB_USED] > fb)
                fb = x[GS_SVC_FB_USED];
        }
        char rep[40], um[16] = "-", up[16] = "-", mem[32] = "-",
             fit[160] = "(no samples: set sample_step)";
        snprintf(rep, sizeof rep, "%.2f (max %.0f)", v->replicas_mean,
                 v->replicas_max);
        if (nup > 0) {
            double need = fb * 1.2 * 1048576.0 / 1e9;   /* MiB -> GB */
            int bm = gs_catalog_smallest(&sc->cat, need);
            snprintf(um, sizeof um, "%.1f%%", usum / (double)nup);
            snprintf(up, sizeof up, "%.1f%%", upk);
            snprintf(mem, sizeof mem, "%.1f GB", fb * 1048576.0 / 1e9);
            snprintf(fit, sizeof fit, "%s", bm >= 0 ? sc->cat.m[bm].name
                                                    : "no single GPU");
            const struct gs_mig_gpu *on = NULL;
            const struct gs_mig_profile *p =
                pl->tp == 1 ? gs_mig_smallest_any(need, upk / 100.0, &on)
                            : NULL;
            if (p)
                snprintf(fit + strlen(fit), sizeof fit - strlen(fit),
                         "; MIG %s on %s", p->name, on->name);
        }
        fprintf(fp, "  %-12s %4d %13s %9s %9s %12s  %s\n", sc->svcs[i].name,
                pl->tp, rep, um, up, mem, fit);
    }
}
