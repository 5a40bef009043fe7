/* test_metrics.c -- conservation of GPU-hours and of the bill on every
 * scenario shipped in scenarios/: the jobs' GPU-hours (each job booked by
 * what it was granted, in its pool's unit: a time-slicing replica 1/N of a
 * GPU, a MIG instance its share of the memory slices) add up to the fleet's
 * allocated GPU-hours, allocated + idle = available, and the bill's idle
 * part is never negative, and with the energy cost adds up to the run's
 * cost; energy, its cost and carbon: jobs + idle = fleet; every job (CPU-only ones too) is accounted for,
 * and no sample holds more GPUs, CPU or memory than the fleet has.
 * Scenarios that read ../shared/traces are skipped
 * when it is absent. */
#include "cutest.h"
#include "../sim/base/err.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/setup.h"
#include "../sim/core/metrics.h"
#include "../sim/cloud/cloud.h"
#include "../sim/cloud/energy.h"
#include "../sim/cluster/power.h"
#include "../sim/cluster/gpu.h"
#include "../sim/inference/service.h"
#include "../sim/io/report.h"
#include "../traces/tread.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <glob.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Energy's other partitions, each booked by its own code path, on a run
 * of scenario sc: the regions add up to the fleet (kWh, $, CO2e), the
 * pools to the fleet in each of its figures -- facility kWh and idle
 * kWh, IT kWh and the hosts' IT kWh, one meaning at both levels (a pool's
 * host_kwh was once facility energy beside the summary's IT
 * energy_host_kwh: the sums caught it in any region whose PUE is not 1);
 * and the IT energy's
 * two parts against the metrics' GPU-hours (an independent integral):
 * the hosts' is every up GPU slot's share of its host's idle power plus
 * every allocated slot's share of its busy part above idle -- exactly,
 * when every GPU pool's slot has the same figures, else between the
 * pools' least and greatest -- and the boards' (IT - hosts) is at least
 * every up GPU's idle power and at most that plus each allocated GPU at
 * its board limit. */
/* The summary's value of "NAME": in the --json text j, or NAN. */
static double json_num(const char *j, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", name);
    const char *p = strstr(j, key);
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* --json's energy_by.pool adds up to the summary's energy figures, each
 * key with the summary's meaning: kwh energy_kwh (facility), it_kwh
 * energy_it_kwh and host_kwh energy_host_kwh (IT, before PUE), idle_kwh
 * energy_idle_kwh (facility); within the printed digits. */
static void energy_json_pools(const struct gs_sim *sim, int npools)
{
    char *j = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&j, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    gs_report_json(fp, sim);
    fclose(fp);
    static const char *const sum[] = { "energy_kwh", "energy_it_kwh",
                                       "energy_host_kwh", "energy_idle_kwh" };
    double got[4] = { 0, 0, 0, 0 };
    const char *p = strstr(j, "\"pool\": {");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    int seen = 0;
    while ((p = strstr(p, "\": {\"kwh\": ")) != NULL) {
        double v[4];
        CU_ASSERT_EQUAL_FATAL(sscanf(p, "\": {\"kwh\": %lf, \"it_kwh\": %lf, "
                                     "\"host_kwh\": %lf, \"idle_kwh\": %lf}",
                                     &v[0], &v[1], &v[2], &v[3]), 4);
        for (int k = 0; k < 4; k++)
            got[k] += v[k];
        seen++;
        p++;
    }
    CU_ASSERT_EQUAL(seen, npools);
    for (int k = 0; k < 4; k++) {
        double want = json_num(j, sum[k]);
        if (!(fabs(got[k] - want) <= 6e-5 + 1e-6 * npools))
            printf("\n    pools' %s %.6f, the summary's %.4f", sum[k],
                   got[k], want);
        CU_ASSERT(fabs(got[k] - want) <= 6e-5 + 1e-6 * npools);
    }
    free(j);
}

static void energy_parts(const struct gs_sim *sim,
                         const struct gs_scenario *sc, const char *path)
{
    const struct gs_energysum *es = gs_sim_energy(sim);
    const struct gs_summary *su = gs_sim_summary(sim);
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double rk = 0, ru = 0, rg = 0, k, u, g;
    struct gs_energysum pools = { 0 }, one;
    for (int r = 0; gs_energy_region(sim, r, &k, &u, &g) == 0; r++) {
        rk += k;
        ru += u;
        rg += g;
    }
    CU_ASSERT(fabs(rk - es->kwh) <= 1e-9 * (es->kwh + 1));
    CU_ASSERT(fabs(ru - es->usd) <= 1e-9 * (es->usd + 1));
    CU_ASSERT(fabs(rg - es->gco2) <= 1e-9 * (es->gco2 + 1));
    /* slot figures over the GPU pools: least and greatest */
    double lo[4] = { INFINITY, INFINITY, INFINITY, INFINITY };
    double hi[4] = { 0, 0, 0, 0 };
    for (int i = 0; i < f->npools; i++) {
        CU_ASSERT_EQUAL_FATAL(gs_energy_pool(sim, i, &one), 0);
        CU_ASSERT(one.host_kwh >= 0 && one.host_kwh <= one.it_kwh &&
                  one.it_kwh <= one.kwh && one.idle_kwh <= one.kwh);
        pools.kwh += one.kwh;
        pools.it_kwh += one.it_kwh;
        pools.host_kwh += one.host_kwh;
        pools.idle_kwh += one.idle_kwh;
        const struct gs_pool_spec *ps = &f->pools[i].s;
        if (ps->gpn <= 0)
            continue;
        const struct gs_gpu_model *m = &sc->cat.m[ps->model];
        struct gs_slot_power sp = gs_power_slot(m, ps);
        double top = ps->power_cap_w > 0 && ps->power_cap_w < m->power_w
                         ? ps->power_cap_w : m->power_w;
        double x[4] = { sp.host_idle_w, sp.host_dyn_w, sp.board_idle_w,
                        top - sp.board_idle_w };
        for (int j = 0; j < 4; j++) {
            lo[j] = fmin(lo[j], x[j]);
            hi[j] = fmax(hi[j], x[j]);
        }
    }
    CU_ASSERT_EQUAL(gs_energy_pool(sim, f->npools, &one), GS_ENOTFOUND);
    CU_ASSERT(fabs(pools.kwh - es->kwh) <= 1e-9 * (es->kwh + 1));
    CU_ASSERT(fabs(pools.it_kwh - es->it_kwh) <= 1e-9 * (es->it_kwh + 1));
    CU_ASSERT(fabs(pools.host_kwh - es->host_kwh) <=
              1e-9 * (es->host_kwh + 1));
    CU_ASSERT(fabs(pools.idle_kwh - es->idle_kwh) <=
              1e-9 * (es->idle_kwh + 1));
    energy_json_pools(sim, f->npools);
    if (!(hi[0] > 0 || hi[2] > 0))
        return;     /* no GPU pool */
    double av = su->gpu_hours_avail, used = su->gpu_hours_used;
    double host = es->host_kwh, board = es->it_kwh - es->host_kwh;
    double hlo = (lo[0] * av + lo[1] * used) / 1000;
    double hhi = (hi[0] * av + hi[1] * used) / 1000;
    double blo = lo[2] * av / 1000, bhi = (hi[2] * av + hi[3] * used) / 1000;
    printf("\n    [%s: hosts %.3f in [%.3f, %.3f], boards %.3f in [%.3f, "
           "%.3f] kWh IT]", path, host, hlo, hhi, board, blo, bhi);
    CU_ASSERT(host >= hlo * (1 - 1e-6) - 1e-9);
    CU_ASSERT(host <= hhi * (1 + 1e-6) + 1e-9);
    CU_ASSERT(board >= blo * (1 - 1e-6) - 1e-9);
    CU_ASSERT(board <= bhi * (1 + 1e-6) + 1e-9);
}

static void check_one(const char *path)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    if (gs_scenario_load(path, &sc, &d) < 0) {
        if (strstr(d.where, "shared/traces") || strstr(d.what, "shared/traces")
            || access("../shared/traces", R_OK) != 0) {
            printf("\n    [skipped %s: %s]", path, d.what);
            return;
        }
        printf("\n    %s: %s: %s", path, d.where, d.what);
        CU_FAIL("a shipped scenario does not load");
        return;
    }
    if (strstr(sc->text, "shared/traces") &&
        access("../shared/traces", R_OK) != 0) {
        printf("\n    [skipped %s: ../shared/traces is missing]", path);
        gs_scenario_free(sc);
        return;
    }
    struct gs_sim *sim = NULL;
    FILE *log = gs_trace_log();
    gs_trace_set_log(NULL);
    int rc = gs_sim_new(sc, NULL, &sim, &d);
    if (rc == 0)
        rc = gs_sim_run(sim, &d);
    gs_trace_set_log(log);
    if (rc < 0) {
        printf("\n    %s: %s: %s", path, d.where, d.what);
        CU_FAIL("a shipped scenario does not run");
        gs_sim_free(sim);
        gs_scenario_free(sc);
        return;
    }
    const struct gs_summary *su = gs_sim_summary(sim);
    const struct gs_cloudsum *cs = gs_cloud_summary(gs_sim_cloud(sim));
    long n = 0;
    const struct gs_jobrec *r = gs_sim_records(sim, &n);
    double jobs = 0;
    for (long i = 0; i < n; i++) {
        CU_ASSERT(r[i].gpu_hours >= 0);
        jobs += r[i].gpu_hours;
    }
    double used = su->gpu_hours_used, avail = su->gpu_hours_avail;
    printf("\n    [%s: jobs %.1f, fleet %.1f of %.1f GPU-hours; idle $%.2f]",
           path, jobs, used, avail, cs->cost_idle);
    /* float per-job sums: a relative tolerance of 1e-4 */
    CU_ASSERT(fabs(jobs - used) <= 1e-4 * (used + 1));
    CU_ASSERT(used <= avail * (1 + 1e-9) + 1e-9);
    CU_ASSERT(cs->cost_idle >= -1e-6);
    CU_ASSERT(cs->cost_jobs >= -1e-6);
    /* the bill: the cloud's parts and the energy cost, none negative */
    const struct gs_energysum *es = gs_sim_energy(sim);
    CU_ASSERT_PTR_NOT_NULL_FATAL(es);
    CU_ASSERT(es->usd >= 0 && es->idle_usd >= -1e-9 &&
              es->idle_usd <= es->usd + 1e-9);
    CU_ASSERT(fabs(cs->cost_jobs + cs->cost_idle + es->usd - su->cost) <=
              1e-6 * (su->cost + 1));
    /* energy: the jobs' records and the idle remainder add up to the
     * fleet, kWh, $ and carbon; tenants too */
    double ek = 0, eg = 0, tk = 0, tu = 0, tg = 0;
    for (long i = 0; i < n; i++) {
        struct gs_jobenergy je = gs_sim_record_energy(sim, i);
        CU_ASSERT(je.kwh >= 0 && je.gco2 >= 0);
        ek += je.kwh;
        eg += je.gco2;
    }
    for (int t = 0; t < gs_sim_ntenants(sim); t++) {
        double k, u, g;
        gs_energy_tenant(sim, t, &k, &u, &g);
        tk += k;
        tu += u;
        tg += g;
    }
    printf("\n    [%s: energy jobs %.3f + idle %.3f of %.3f kWh]", path, ek,
           es->idle_kwh, es->kwh);
    CU_ASSERT(es->idle_kwh >= -1e-9);
    CU_ASSERT(fabs(ek + es->idle_kwh - es->kwh) <= 1e-6 * (es->kwh + 1));
    CU_ASSERT(fabs(tk - ek) <= 1e-6 * (es->kwh + 1));
    CU_ASSERT(fabs(tu + es->idle_usd - es->usd) <= 1e-6 * (es->usd + 1));
    CU_ASSERT(fabs(eg + es->idle_gco2 - es->gco2) <= 1e-6 * (es->gco2 + 1));
    CU_ASSERT(fabs(tg - eg) <= 1e-6 * (es->gco2 + 1));
    energy_parts(sim, sc, path);
    /* each service: its requests' energies and its idle energy add up to
     * its replicas' records (floats: 1e-5 relative), none negative */
    for (int i = 0; i < gs_sim_nservices(sim); i++) {
        const struct gs_svcsum *v = gs_sim_service(sim, i);
        long nq;
        const struct gs_reqrec *q = gs_sim_service_requests(sim, i, &nq);
        double rk = 0;
        for (long k = 0; k < nq; k++) {
            CU_ASSERT(q[k].energy_j >= -1e-6);
            rk += q[k].energy_j / 3.6e6;
        }
        printf("\n    [%s: service %s: requests %.4f + idle %.4f of %.4f "
               "kWh]", path, v->name, rk, v->idle_kwh, v->energy_kwh);
        CU_ASSERT(v->idle_kwh >= -1e-9);
        CU_ASSERT(fabs(rk + v->idle_kwh - v->energy_kwh) <=
                  1e-5 * v->energy_kwh + 1e-9);
    }
    /* every job accounted for, CPU-only jobs included; nothing allocated
     * beyond capacity, GPUs, CPU or memory, at any sample */
    CU_ASSERT_EQUAL(su->all.jobs, n);
    CU_ASSERT_EQUAL(su->all.done + su->all.killed + su->all.unfinished, n);
    const struct gs_series *ts = &gs_sim_metrics(sim)->ts;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (long i = 0; i < ts->n; i++) {
        CU_ASSERT(ts->alloc[i] <= ts->gpus_up[i] + 1e-9);
        CU_ASSERT(ts->cpu_alloc[i] * 1000 <= (double)f->cpu_cap + 1e-6);
        CU_ASSERT(ts->mem_alloc[i] * 1024 <= (double)f->mem_cap + 1e-6);
        CU_ASSERT(ts->stranded[i] >= 0 && ts->stranded[i] <= ts->gpus_up[i]);
    }
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

static void test_shipped_scenarios(void)
{
    glob_t g;
    CU_ASSERT_EQUAL_FATAL(glob("scenarios/*.json", 0, NULL, &g), 0);
    CU_ASSERT(g.gl_pathc >= 7);
    for (size_t i = 0; i < g.gl_pathc; i++)
        if (!strstr(g.gl_pathv[i], ".schema.json"))    /* not a scenario */
            check_one(g.gl_pathv[i]);
    globfree(&g);
}

/* The reference: GSL on the sorted seconds of the selected durations. */
static void reference(const struct gs_jobrec *r, long n, int tier, int jct,
                      double out[5])
{
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    size_t k = 0;
    for (long i = 0; i < n; i++) {
        if (tier >= 0 && (int)r[i].tier != tier)
            continue;
        if (!jct && r[i].start >= 0)
            v[k++] = (double)(r[i].start - r[i].arrival) / 1000.0;
        if (jct && r[i].state == GS_JOB_DONE)
            v[k++] = (double)(r[i].end - r[i].arrival) / 1000.0;
    }
    memset(out, 0, 5 * sizeof *out);
    if (k) {
        gsl_sort(v, 1, k);
        out[0] = gsl_stats_mean(v, 1, k);
        out[1] = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.50);
        out[2] = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.95);
        out[3] = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.99);
        out[4] = v[k - 1];
    }
    free(v);
}

/* Waits and completion times: the summary's radix-sorted, merged figures
 * equal GSL's on the sorted seconds bit for bit, per tier and for all,
 * with ties, empty tiers, and durations past 2^32 ms (the 8-byte path). */
static void test_duration_stats(void)
{
    for (int c = 0; c < 3; c++) {
        long n = c == 0 ? 5 : 30000;
        struct gs_jobrec *r = calloc((size_t)n, sizeof *r);
        uint64_t x = 88172645463325252ULL + (uint64_t)c;
        for (long i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            r[i].arrival = (gs_time)(x % 1000000);
            r[i].tier = c == 1 ? (x >> 20) % 2 * 2 : (x >> 20) % GS_NTIERS;
            uint64_t span = c == 2 ? (1ULL << 34) : (x >> 30) % 4 ? 600000 : 50;
            gs_time w = (gs_time)((x >> 8) % span);
            r[i].start = (x >> 40) % 7 == 0 ? -1 : r[i].arrival + w;
            r[i].state = r[i].start < 0 ? GS_JOB_UNFINISHED
                         : (x >> 44) % 5 == 0 ? GS_JOB_KILLED : GS_JOB_DONE;
            r[i].end = r[i].start < 0 ? -1
                       : r[i].start + (gs_time)((x >> 12) % span);
        }
        struct gs_metrics m;
        memset(&m, 0, sizeof m);
        m.last = 2000000;
        struct gs_scenario *sc = calloc(1, sizeof *sc);
        struct gs_summary su;
        gs_metrics_summarize(&m, NULL, sc, r, n, &su);
        for (int t = -1; t < GS_NTIERS; t++) {
            const struct gs_tstats *ts = t < 0 ? &su.all : &su.tier[t];
            double w[5], j[5];
            reference(r, n, t, 0, w);
            reference(r, n, t, 1, j);
            CU_ASSERT(ts->wait_mean == w[0] && ts->wait_p50 == w[1] &&
                      ts->wait_p95 == w[2] && ts->wait_p99 == w[3] &&
                      ts->wait_max == w[4]);
            CU_ASSERT(ts->jct_mean == j[0] && ts->jct_p50 == j[1] &&
                      ts->jct_p95 == j[2] && ts->jct_p99 == j[3]);
            if (c == 1 && t >= 0 && t % 2)
                CU_ASSERT_EQUAL(ts->jobs, 0);
        }
        CU_ASSERT_EQUAL(su.all.jobs, n);
        free(sc);
        free(r);
    }
}

static CU_TestInfo tests[] = {
    { "waits and completion times equal GSL's on the sorted data",
      test_duration_stats },
    { "GPU-hours and bill conserved on every shipped scenario",
      test_shipped_scenarios },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("metrics", tests)
