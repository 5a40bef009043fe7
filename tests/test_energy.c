/* test_energy.c -- the energy model (sim/cloud/energy.c) and the power cap
 * (sim/cluster/power.c) against hand computation:
 *   - a fleet idle for 10 h at known idle watts and PUE: exactly that
 *     energy, cost and carbon;
 *   - a tariff that steps at an hour boundary splits the cost there;
 *   - one job at constant utilization: power x time x PUE, exactly (its
 *     board and its slot's share of its host);
 *   - hosts: a pool's own host power by hand, 0 W gives the boards alone,
 *     the published defaults;
 *   - two tenants and the idle remainder add up to the fleet (kWh, $, g),
 *     and the energy cost is a part of the bill;
 *   - a power cap slows a compute-bound job by the cube rule, a
 *     memory-bound one not at all, and its GPU draws no more than the cap;
 *     an LLM prefill slows, a decode step barely;
 *   - the planner minimizes carbon when asked: between two GPUs alike but
 *     for their power, the cheaper one under the cost objective, the
 *     frugal one under carbon_kg_per_month;
 *   - the run's energy reaches every output as the run holds it: the
 *     HDF5 file's /summary, /energy/by_tenant and /energy/jobs, compare's
 *     table, and a capped service's power series within [idle, cap];
 *   - bad energy keys name their JSON path. */
#include "cutest.h"
#include "simutil.h"
#include "clitest.h"
#include "../sim/cloud/energy.h"
#include "../sim/cluster/power.h"
#include "../sim/inference/llm.h"
#include "../sim/inference/llmcalib.h"
#include "../sim/inference/service.h"
#include "../sim/io/h5out.h"

#include <math.h>

#define H100_IDLE (700.0 * GS_POWER_IDLE)      /* W */
/* A GPU slot's share of its DGX H100 host (10.2 kW less 8 x 700 W, over
 * 8): busy, idle; a slot idle draws its board's and its host's idle. */
#define H100_HOST_BUSY ((10200.0 - 8 * 700) / 8)
#define H100_HOST_IDLE (H100_HOST_BUSY * GS_HOST_IDLE_SHARE)
#define H100_SLOT_IDLE (H100_IDLE + H100_HOST_IDLE)

static const char *fleet_json(const char *energy, const char *pool_extra)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"name\": \"e\", \"horizon\": \"10h\", %s"
             " \"fleet\": [{\"name\": \"p\", \"gpu\": \"H100-80GB\", "
             "\"nodes\": 2, \"gpus_per_node\": 8%s}],"
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%%s\"}}}", energy, pool_extra);
    return buf;
}

/* A CPU-only job keeps the run going; no GPU is ever allocated. */
#define IDLE_TRACE "id,arrival,gpus,duration\n1,0,0,60\n"

static void test_idle_fleet_by_hand(void)
{
    struct run r;
    run_text(&r, fleet_json("\"energy\": {\"pue\": 1.25, "
                            "\"price_usd_per_kwh\": 0.1, "
                            "\"carbon_g_per_kwh\": 400},", ""), IDLE_TRACE);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_energysum *e = gs_sim_energy(r.sim);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    double it = 16 * H100_SLOT_IDLE * 10 / 1000;       /* kWh */
    printf("\n    [16 idle H100s, 10 h: %.6f kWh IT, %.6f facility, $%.6f, "
           "%.6f kg]", e->it_kwh, e->kwh, e->usd, e->gco2 / 1000);
    CU_ASSERT_DOUBLE_EQUAL(e->it_kwh, it, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->host_kwh, 16 * H100_HOST_IDLE * 10 / 1000,
                           1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->kwh, it * 1.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->idle_kwh, it * 1.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->usd, it * 1.25 * 0.1, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->gco2, it * 1.25 * 400, 1e-6);
    /* the energy cost is a part of the bill */
    const struct gs_summary *su = gs_sim_summary(r.sim);
    struct run r0;
    run_text(&r0, fleet_json("", ""), IDLE_TRACE);
    CU_ASSERT_EQUAL_FATAL(r0.rc, 0);
    CU_ASSERT_DOUBLE_EQUAL(su->cost, gs_sim_summary(r0.sim)->cost + e->usd,
                           1e-6);
    /* no $.energy: PUE 1, no price, no carbon, the same kWh of boards */
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_energy(r0.sim)->kwh, it, 1e-9);
    CU_ASSERT_EQUAL(gs_sim_energy(r0.sim)->usd, 0);
    run_free(&r0);
    run_free(&r);
}

/* $0.10 until 12:00, $0.30 after; the run is 07:00-17:00: 5 h of each. */
static void test_tariff_step(void)
{
    char energy[600] = "\"energy\": {\"start_hour\": 7, \"price_usd_per_kwh\": [";
    for (int h = 0; h < 24; h++)
        snprintf(energy + strlen(energy), sizeof energy - strlen(energy),
                 "%s%s", h ? ", " : "", h < 12 ? "0.1" : "0.3");
    strcat(energy, "]},");
    struct run r;
    run_text(&r, fleet_json(energy, ""), IDLE_TRACE);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    double kw = 16 * H100_SLOT_IDLE / 1000;
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_energy(r.sim)->usd,
                           kw * (5 * 0.1 + 5 * 0.3), 1e-9);
    run_free(&r);
    /* the integral by hand, across a cycle's end */
    struct gs_hourly h = { .n = 3, .v = { 1, 2, 4 } };
    CU_ASSERT_DOUBLE_EQUAL(gs_hourly_integral(&h, 0.5), 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_hourly_integral(&h, 2.25), 1 + 2 + 1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_hourly_integral(&h, 7.5), 2 * 7 + 1 + 1,
                           1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_hourly_at(&h, 5.9), 4, 0);
}

/* One compute-bound 1-GPU job of 2 h (busy: the board limit and its
 * slot's host busy power) beside 15 idle GPUs; tenants a and b; the
 * parts add up to the fleet. */
static void test_job_and_tenants(void)
{
    struct run r;
    run_text(&r, fleet_json("\"energy\": {\"pue\": 1.5, "
                            "\"price_usd_per_kwh\": [0.2, 0.05], "
                            "\"carbon_g_per_kwh\": 300},", ""),
             "id,arrival,gpus,duration,tenant,compute_bound\n"
             "1,0,1,7200,a,1\n3,0,0,60,b,0.5\n2,3600,2,1800,b,0.5\n");
    if (r.rc)
        printf("\n    %s: %s", r.d.where, r.d.what);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r.sim, &n);
    const struct gs_jobrec *j1 = rec_of(&r, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j1);
    struct gs_jobenergy je = gs_sim_record_energy(r.sim, j1 - rec);
    /* (700 + 575) W x 2 h x 1.5: power x time x PUE; half its hours at
     * $0.20, half at $0.05; the record keeps floats (sim.h): 1e-6
     * relative */
    double jk = (700 + H100_HOST_BUSY) / 1000 * 2 * 1.5;
    CU_ASSERT_DOUBLE_EQUAL(je.kwh, jk, jk * 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(je.gco2, jk * 300, jk * 300 * 1e-6);
    const struct gs_energysum *e = gs_sim_energy(r.sim);
    double kwh = 0, usd = 0, g = 0;
    for (int t = 0; t < gs_sim_ntenants(r.sim); t++) {
        double k, u, c;
        gs_energy_tenant(r.sim, t, &k, &u, &c);
        CU_ASSERT(k >= 0 && u >= 0 && c >= 0);
        kwh += k;
        usd += u;
        g += c;
    }
    printf("\n    [tenants %.6f + idle %.6f = %.6f kWh; $%.6f + $%.6f = "
           "$%.6f]", kwh, e->idle_kwh, e->kwh, usd, e->idle_usd, e->usd);
    CU_ASSERT_DOUBLE_EQUAL(kwh + e->idle_kwh, e->kwh, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(usd + e->idle_usd, e->usd, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(g + e->idle_gco2, e->gco2, 1e-6);
    /* the fleet by hand: 16 GPU slots idle 10 h, plus 1 GPU x 2 h and 2
     * GPUs x 0.5 h at the limit and the host's busy share above idle */
    double it = (16 * H100_SLOT_IDLE * 10 + (700 - H100_IDLE + H100_HOST_BUSY
                                             - H100_HOST_IDLE) *
                 (2 + 2 * 0.5)) / 1000;
    CU_ASSERT_DOUBLE_EQUAL(e->it_kwh, it, 1e-9);
    /* job records' energy adds up to the tenants' */
    double rk = 0;
    for (long i = 0; i < n; i++)
        rk += gs_sim_record_energy(r.sim, i).kwh;
    CU_ASSERT_DOUBLE_EQUAL(rk, kwh, kwh * 1e-6);
    run_free(&r);
}

/* A power cap: the cube rule by hand, a compute-bound job slowed by it, a
 * memory-bound one not, the capped GPU at the cap and never above. */
static void test_power_cap(void)
{
    double speed = gs_power_cap_speed(&gs_power_default, 700, 400);
    double want = cbrt((400 - H100_IDLE) / (700 - H100_IDLE));
    CU_ASSERT_DOUBLE_EQUAL(speed, want, 1e-12);
    CU_ASSERT_EQUAL(gs_power_cap_speed(&gs_power_default, 700, 0), 1.0);
    CU_ASSERT_EQUAL(gs_power_cap_speed(&gs_power_default, 700, 700), 1.0);
    /* Splitwise's capped H100: prompts 1.30x, tokens 1.00x; the rule puts
     * that cap at 59% of the limit */
    double cap13 = 700 * (GS_POWER_IDLE + (1 - GS_POWER_IDLE) / (1.3 * 1.3 *
                                                                 1.3));
    CU_ASSERT_DOUBLE_EQUAL(1 / gs_power_cap_speed(&gs_power_default, 700,
                                                  cap13), 1.3, 1e-12);
    struct run r;
    run_text(&r, fleet_json("", ", \"power_cap_w\": 400"),
             "id,arrival,gpus,duration,compute_bound,ref_gpu\n"
             "1,0,1,3600,1,H100-80GB\n2,0,1,3600,0,H100-80GB\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_jobrec *c = rec_of(&r, 1), *m = rec_of(&r, 2);
    double tc = (double)(c->end - c->start) / 1000, tm =
        (double)(m->end - m->start) / 1000;
    printf("\n    [cap 400 W on 700 W: clock %.4f; compute-bound 3600 s -> "
           "%.1f s, memory-bound %.1f s]", speed, tc, tm);
    CU_ASSERT(fabs(tc - 3600 / speed) <= 1.0);
    CU_ASSERT_DOUBLE_EQUAL(tm, 3600, 1e-9);
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r.sim, &n);
    /* the capped job's GPU draws exactly the cap: energy / time, less its
     * slot's host busy power */
    double kwh = gs_sim_record_energy(r.sim, c - rec).kwh;
    double board = kwh / (tc / 3600) * 1000 - H100_HOST_BUSY;
    CU_ASSERT(board <= 400 * (1 + 1e-6));
    CU_ASSERT_DOUBLE_EQUAL(board, 400, 400 * 1e-6);
    run_free(&r);
    /* the curve never above the cap */
    for (double u = 0; u <= 1.0001; u += 0.05)
        CU_ASSERT(gs_power_watts(&gs_power_default, 700, u, 1 - u, 400)
                  <= 400);
}

/* The LLM engine on a capped H100: a prefill (compute-bound) slows by
 * nearly 1/speed, a decode step (memory-bound) by far less. */
static void test_llm_cap(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_llm_hw hw, capped;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "H100-80GB"), &hw);
    capped = hw;
    double speed = gs_power_cap_speed(&gs_power_default, 700, 400);
    capped.tflops *= speed;
    struct gs_llm_arch a;
    CU_ASSERT_EQUAL_FATAL(gs_llm_arch_find("llama2-70b", &a, "$", NULL), 0);
    struct gs_llm_perf p0, p1;
    gs_llm_perf_init(&p0, &a, &hw, 4, NULL);
    gs_llm_perf_init(&p1, &a, &capped, 4, NULL);
    struct gs_llm_batch pre = { .prefill_tokens = 2048,
        .prefill_attn = 2048.0 * 2049 / 2, .prefill_ctx = 2048, .sampled = 1,
        .seqs = 1 };
    struct gs_llm_batch dec = { .decode_tokens = 8, .decode_ctx = 8 * 1024,
        .sampled = 8, .seqs = 8 };
    double sp = gs_llm_perf_time(&p1, &pre) / gs_llm_perf_time(&p0, &pre);
    double sd = gs_llm_perf_time(&p1, &dec) / gs_llm_perf_time(&p0, &dec);
    printf("\n    [llama2-70b TP4 on H100 capped at 400 W: prefill %.3fx, "
           "decode %.3fx; 1/clock %.3f]", sp, sd, 1 / speed);
    CU_ASSERT(sp > 1.15 && sp <= 1 / speed + 1e-9);
    CU_ASSERT(sd >= 1 && sd < 1.05);
}

/* Splitwise's power-capped H100 (perf_model.csv, "h100-80gb-pcap"): no
 * measurement of a capped GPU.  Its rows are its H100 rows with every
 * prompt time x 1.30 and the token and end-to-end times copied (e2e is
 * not even recomputed), the cap unstated: checked first.  Then the cap
 * model at the cap the cube rule puts at 1/1.30 of the clock, on each
 * configuration's prompt and decode batch through the shipped H100
 * model: |modeled capped / uncapped ratio / listed ratio - 1|, median
 * and max, for the model (compute terms at the capped clock, memory
 * terms not) and three wrong ones: no slowdown, the whole iteration
 * slowed (memory too), and the compute clock linear in power at the same
 * cap.  What the 1.30 can test is the split, not the cube law (the cap
 * is inferred from it). */
#define PERF "../shared/traces/splitwise/perf_model.csv"

static void cap_ratio(const struct gs_llm_calib_pt *p,
                      const struct gs_llm_hw *hw, double fc, double fm,
                      double *rp, double *rd)
{
    struct gs_llm_arch a;
    struct gs_llm_perf p0, p1;
    struct gs_llm_hw h1 = *hw;
    h1.tflops *= fc;
    h1.bw_gbs *= fm;
    CU_ASSERT_EQUAL_FATAL(gs_llm_arch_find(p->model, &a, "$", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&p0, &a, hw, p->tp, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&p1, &a, &h1, p->tp, NULL), 0);
    double b = p->batch, pr = p->prompt, ctx = pr + p->tokens / 2.0;
    struct gs_llm_batch pb = {
        .prefill_tokens = b * pr, .prefill_attn = b * pr * (pr + 1) / 2,
        .prefill_ctx = b * pr, .sampled = b, .seqs = b,
    };
    struct gs_llm_batch db = {
        .decode_tokens = b, .decode_ctx = b * (ctx + 1), .sampled = b,
        .seqs = b,
    };
    *rp = gs_llm_perf_time(&p1, &pb) / gs_llm_perf_time(&p0, &pb);
    *rd = gs_llm_perf_time(&p1, &db) / gs_llm_perf_time(&p0, &db);
}

static int dcmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void test_cap_splitwise(void)
{
    if (access(PERF, R_OK) != 0) {
        printf("\n    [skipped: %s is missing]", PERF);
        return;
    }
    struct gs_llm_calib c;
    CU_ASSERT_EQUAL_FATAL(gs_llm_calib_read(PERF, &c, NULL), 0);
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_llm_hw hw;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "H100-80GB"), &hw);
    double f = 1 / 1.3;                 /* the listed prompt slowdown */
    double cap = 700 * (GS_POWER_IDLE + (1 - GS_POWER_IDLE) * f * f * f);
    CU_ASSERT_DOUBLE_EQUAL(gs_power_cap_speed(&gs_power_default, 700, cap),
                           f, 1e-12);
    static const char *const name[4] = { "cube, compute only", "no slowdown",
                                         "whole iteration", "linear clock" };
    const double fc[4] = { f, 1, f, f * f * f }, fm[4] = { 1, 1, f, 1 };
    double ep[4][256], ed[4][256];
    int n = 0;
    for (int i = 0; i < c.n && n < 256; i++) {
        const struct gs_llm_calib_pt *q = &c.p[i], *b = NULL;
        if (strcmp(q->hw, "h100-80gb-pcap"))
            continue;
        for (int k = 0; k < c.n && !b; k++)
            if (!strcmp(c.p[k].hw, "h100-80gb") &&
                !strcmp(c.p[k].model, q->model) && c.p[k].tp == q->tp &&
                c.p[k].prompt == q->prompt && c.p[k].batch == q->batch &&
                c.p[k].tokens == q->tokens)
                b = &c.p[k];
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        double lp = q->prompt_ms / b->prompt_ms, ld = q->token_ms / b->token_ms;
        CU_ASSERT_DOUBLE_EQUAL(lp, 1.3, 1e-9);  /* the table's own rule */
        CU_ASSERT_DOUBLE_EQUAL(ld, 1.0, 1e-9);
        for (int m = 0; m < 4; m++) {
            double rp, rd;
            cap_ratio(q, &hw, fc[m], fm[m], &rp, &rd);
            ep[m][n] = fabs(rp / lp - 1);
            ed[m][n] = fabs(rd / ld - 1);
        }
        n++;
    }
    gs_llm_calib_free(&c);
    CU_ASSERT_FATAL(n >= 50);
    double med[4][2], mx[4][2];
    for (int m = 0; m < 4; m++) {
        qsort(ep[m], (size_t)n, sizeof ep[m][0], dcmp);
        qsort(ed[m], (size_t)n, sizeof ed[m][0], dcmp);
        med[m][0] = ep[m][n / 2];
        med[m][1] = ed[m][n / 2];
        mx[m][0] = ep[m][n - 1];
        mx[m][1] = ed[m][n - 1];
        printf("\n    [%d configurations, cap %.0f W (%.0f%%), %-18s prompt "
               "ratio error median %.1f%% max %.1f%%, token %.1f%% / %.1f%%]",
               n, cap, cap / 7, name[m], 100 * med[m][0], 100 * mx[m][0],
               100 * med[m][1], 100 * mx[m][1]);
    }
    /* the bound: prompts within 15% (median) and 25% (max: a model that
     * slows nothing misses by 1 - 1/1.3 = 23.1%), every token within 1%;
     * each wrong model breaks one of them (a host-bound decode step hides
     * a slowed memory from the token median, not from the max) */
    for (int m = 0; m < 4; m++)
        CU_ASSERT_EQUAL(med[m][0] <= 0.15 && mx[m][0] <= 0.25
                        && mx[m][1] <= 0.01, m == 0);
}

static void test_bad_keys(void)
{
    static const struct { const char *energy, *pool, *where, *what; } bad[] = {
        { "\"energy\": {\"pue\": 0.9},", "", "$.energy.pue", "" },
        { "\"energy\": {\"price_usd_per_kwh\": []},", "",
          "$.energy.price_usd_per_kwh", "1 to 168" },
        { "\"energy\": {\"carbon_g_per_kwh\": [1, -2]},", "",
          "$.energy.carbon_g_per_kwh", "item 1" },
        { "\"energy\": {\"watts\": 1},", "", "$.energy", "watts" },
        { "", ", \"region\": \"eu\"", "$.fleet[0].region", "unknown region" },
        { "", ", \"power_cap_w\": 100", "$.fleet[0].power_cap_w",
          "idle power" },
        { "", ", \"power_cap_w\": 800", "$.fleet[0].power_cap_w",
          "board limit" },
        { "\"energy\": {\"regions\": [{\"name\": \"default\"}]},", "",
          "$.energy.regions[0]", "duplicate" },
        { "", ", \"host_idle_w\": 3000, \"host_busy_w\": 2000",
          "$.fleet[0].host_idle_w", "exceeds" },
        { "", ", \"host_idle_w\": 5000", "$.fleet[0].host_idle_w",
          "exceeds" },
        { "", ", \"host_busy_w\": -1", "$.fleet[0].host_busy_w", "" },
        { "\"energy\": {\"host_idle_share\": 1.5},", "",
          "$.energy.host_idle_share", "" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct run r;
        run_text(&r, fleet_json(bad[i].energy, bad[i].pool), IDLE_TRACE);
        if (r.rc == 0 || !strstr(r.d.where, bad[i].where) ||
            !strstr(r.d.what, bad[i].what))
            printf("\n    case %zu: %s: %s", i, r.d.where, r.d.what);
        CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.d.where, bad[i].where));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.d.what, bad[i].what));
        run_free(&r);
    }
    /* two regions, pools in each: the regions add up to the fleet */
    struct run r;
    run_text(&r, "{\"name\": \"e\", \"horizon\": \"2h\", \"energy\": "
             "{\"pue\": 1.1, \"price_usd_per_kwh\": 0.1, \"regions\": "
             "[{\"name\": \"north\", \"pue\": 1.05, \"carbon_g_per_kwh\": "
             "20}]}, \"fleet\": [{\"name\": \"a\", \"gpu\": \"A100-80GB\", "
             "\"nodes\": 1}, {\"name\": \"b\", \"gpu\": \"H100-80GB\", "
             "\"nodes\": 1, \"region\": \"north\"}], \"workload\": "
             "{\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
             IDLE_TRACE);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_energysum *e = gs_sim_energy(r.sim);
    double a = (8 * 400 * GS_POWER_IDLE + (6500 - 8 * 400) *
                GS_HOST_IDLE_SHARE) * 2 / 1000;
    double b = 8 * H100_SLOT_IDLE * 2 / 1000;
    CU_ASSERT_DOUBLE_EQUAL(e->kwh, a * 1.1 + b * 1.05, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->usd, (a * 1.1 + b * 1.05) * 0.1, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->gco2, b * 1.05 * 20, 1e-9);
    run_free(&r);
}

/* Hosts by hand: a pool's own host_idle_w / host_busy_w (1,000 W and
 * 3,000 W a node: 125 W and 250 W a GPU slot), a 4-GPU job for 1 h of
 * the 10 h; hosts at 0 W give the GPU boards alone; a GPU without a
 * published system takes the PCIe rule, a node of 4 GPUs half a host. */
static void test_hosts_by_hand(void)
{
    const char *trace = "id,arrival,gpus,duration,compute_bound\n"
                        "1,0,4,3600,1\n2,0,0,60,0\n";
    struct run r;
    run_text(&r, fleet_json("\"energy\": {\"pue\": 1.2},",
                            ", \"host_idle_w\": 1000, \"host_busy_w\": 3000"),
             trace);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_energysum *e = gs_sim_energy(r.sim);
    double host = (2 * 1000.0 * 10 + 4 * 250.0 * 1) / 1000;
    double it = (16 * (H100_IDLE + 125) * 10 +
                 4 * (700 - H100_IDLE + 250) * 1) / 1000;
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r.sim, &n);
    double jk = gs_sim_record_energy(r.sim, rec_of(&r, 1) - rec).kwh;
    double want = 4 * (700 + 125 + 250) / 1000.0 * 1 * 1.2;
    printf("\n    [hosts %.4f kWh of %.4f IT; the job %.4f kWh]", e->host_kwh,
           e->it_kwh, jk);
    CU_ASSERT_DOUBLE_EQUAL(e->host_kwh, host, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->it_kwh, it, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->kwh, it * 1.2, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(jk, want, want * 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(e->idle_kwh, e->kwh - want, 1e-6);
    run_free(&r);
    run_text(&r, fleet_json("", ", \"host_idle_w\": 0, \"host_busy_w\": 0"),
             trace);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_energy(r.sim)->it_kwh,
                           (16 * H100_IDLE * 10 + 4 * (700 - H100_IDLE)) /
                           1000, 1e-9);
    CU_ASSERT_EQUAL(gs_sim_energy(r.sim)->host_kwh, 0);
    run_free(&r);
    /* only busy given: idle is its 40% */
    run_text(&r, fleet_json("", ", \"host_busy_w\": 2000"), IDLE_TRACE);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_energy(r.sim)->host_kwh,
                           2 * 2000 * GS_HOST_IDLE_SHARE * 10 / 1000, 1e-9);
    run_free(&r);
    /* $.energy.host_idle_share: every pool's host idle at that share of
     * its busy power (default or own), a pool's own host_idle_w first */
    run_text(&r, fleet_json("\"energy\": {\"host_idle_share\": 0.15},", ""),
             IDLE_TRACE);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_energy(r.sim)->host_kwh,
                           2 * 4600 * 0.15 * 10 / 1000, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_energy(r.sim)->it_kwh,
                           (16 * H100_IDLE + 2 * 4600 * 0.15) * 10 / 1000,
                           1e-9);
    run_free(&r);
    run_text(&r, fleet_json("\"energy\": {\"host_idle_share\": 0},",
                            ", \"host_busy_w\": 2000"), IDLE_TRACE);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(gs_sim_energy(r.sim)->host_kwh, 0);
    run_free(&r);
    run_text(&r, fleet_json("\"energy\": {\"host_idle_share\": 0.9},",
                            ", \"host_idle_w\": 500"), IDLE_TRACE);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_energy(r.sim)->host_kwh,
                           2 * 500 * 10 / 1000.0, 1e-9);
    run_free(&r);
    struct gs_host_power h = gs_host_power_default("H100-80GB", 8);
    CU_ASSERT_DOUBLE_EQUAL(h.busy_w, 4600, 1e-9);
    h = gs_host_power_default("A100-80GB", 4);
    CU_ASSERT_DOUBLE_EQUAL(h.busy_w, 3300 / 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(h.idle_w, 3300 / 2.0 * GS_HOST_IDLE_SHARE, 1e-9);
    h = gs_host_power_default("T4", 8);
    CU_ASSERT_DOUBLE_EQUAL(h.busy_w, 1100, 1e-9);
}

/* Energy per request by hand: one Llama-3-8B replica on one H100 (PUE
 * 1.5), requests rare enough to run alone.  A request alone on the
 * replica gets every iteration from its arrival to its end, back to back:
 * its energy lies between the replica's static power (board idle, the
 * slot's host share, x PUE: 1.5 x (175 + 575) W) and that plus the
 * board's dynamic limit (1.5 x 525 W), times its end-to-end time.  The
 * requests and the service's idle energy add up to its energy. */
static void test_request_energy(void)
{
    static const char scen[] =
        "{\"name\": \"re\", \"seed\": 3, \"horizon\": \"1h\","
        " \"energy\": {\"pue\": 1.5},"
        " \"fleet\": [{\"name\": \"p\", \"gpu\": \"H100-80GB\", \"nodes\": 1,"
        " \"gpus_per_node\": 1}],"
        " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}},"
        " \"services\": [{\"name\": \"chat\", \"model\": \"llama3-8b\","
        " \"tp\": 1, \"gpu\": \"H100-80GB\", \"replicas\": 1,"
        " \"requests\": {\"generate\": {\"rate_per_second\": 0.02,"
        " \"until\": \"1h\", \"input_tokens\": {\"dist\": \"lognormal\","
        " \"median\": 600, \"sigma\": 0.5, \"max\": 4000},"
        " \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 200,"
        " \"sigma\": 0.5, \"max\": 1000}}}}]}";
    struct run r;
    run_text(&r, scen, IDLE_TRACE);
    if (r.rc)
        printf("\n    %s: %s", r.d.where, r.d.what);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    long n;
    const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    double st = 1.5 * (H100_IDLE + H100_HOST_BUSY), dyn = 1.5 * (700 -
                                                                 H100_IDLE);
    int alone = 0, ok = 0;
    double sum = 0, worst = 0;
    for (long i = 0; i < n; i++) {
        sum += q[i].energy_j / 3.6e6;
        if (q[i].state != GS_REQ_DONE || q[i].restarts ||
            (i > 0 && q[i - 1].end > q[i].arrival) ||
            (i + 1 < n && q[i + 1].arrival < q[i].end))
            continue;
        double e2e = q[i].end - q[i].arrival, w = q[i].energy_j / e2e;
        alone++;
        ok += w >= st * (1 - 1e-9) && w <= (st + dyn) * (1 + 1e-9);
        if (w / st > worst)
            worst = w / st;
    }
    printf("\n    [%ld requests, %d alone, their power within [static, "
           "static + dynamic]: %d, at most %.3f x static; requests %.4f + "
           "idle %.4f of %.4f kWh]", n, alone, ok, worst, sum, v->idle_kwh,
           v->energy_kwh);
    CU_ASSERT(alone >= 20);
    CU_ASSERT_EQUAL(ok, alone);
    CU_ASSERT(worst > 1.01);            /* the dynamic part is there */
    CU_ASSERT_DOUBLE_EQUAL(sum + v->idle_kwh, v->energy_kwh,
                           1e-5 * v->energy_kwh);
    /* the idle part: the replica's static power outside its iterations */
    CU_ASSERT(v->idle_kwh > 0 && v->idle_kwh < v->energy_kwh);
    run_free(&r);
}

/* M/M/c on 1-GPU nodes of two models of the same speed: "A100-hot"
 * draws twice the power at a lower price.  The same node count meets the
 * wait target on either; cost picks the hot one, carbon and energy cost
 * (energy_cost_per_month) the A100. */
static void test_plan_objective(void)
{
    static const char scen[] =
        "{\"name\": \"pe\", \"seed\": 1,"
        " \"gpu_models\": [{\"name\": \"A100-hot\", \"memory_gb\": 80,"
        " \"tflops\": 312, \"bandwidth_gbs\": 2039, \"power_w\": 800}],"
        " \"energy\": {\"pue\": 1.2, \"carbon_g_per_kwh\": 400,"
        " \"price_usd_per_kwh\": 0.15},"
        " \"fleet\": [{\"name\": \"gpu\", \"gpu\": \"A100-80GB\","
        " \"nodes\": 16, \"gpus_per_node\": 1}],"
        " \"policy\": \"fifo\", \"placement\": \"first-fit\","
        " \"workload\": {\"generate\": {\"jobs\": 2000,"
        " \"rate_per_hour\": 8, \"reference_gpu\": \"A100-80GB\","
        " \"classes\": [{\"name\": \"job\", \"tier\": \"training\","
        " \"weight\": 1, \"tenants\": 1, \"gpus\": 1, \"duration\":"
        " {\"dist\": \"exponential\", \"mean\": \"1h\"}}]}},"
        " \"plan\": {\"targets\": {\"wait_mean\": \"3.5m\"}, %s"
        " \"search\": {\"pools\": [{\"pool\": \"gpu\", \"nodes\":"
        " [12, 14], \"gpu\": [\"A100-80GB\", \"A100-hot\"],"
        " \"price_per_gpu_hour\": {\"A100-80GB\": 5.12,"
        " \"A100-hot\": 4.0}}]}, \"seeds\": 3, \"min_seeds\": 2}}";
    const char *obj[3] = { "", "\"objective\": \"carbon_kg_per_month\",",
                           "\"objective\": \"energy_cost_per_month\"," };
    const char *want[3] = { "gpu.gpu=A100-hot", "gpu.gpu=A100-80GB",
                            "gpu.gpu=A100-80GB" };
    static const char *const what[3] = { "cost", "carbon", "energy cost" };
    for (int k = 0; k < 3; k++) {
        char path[96], h5[96], args[300], text[4096];
        snprintf(path, sizeof path, "/tmp/gs-test-energy-plan-%ld.json",
                 (long)getpid());
        snprintf(h5, sizeof h5, "/tmp/gs-test-energy-plan-%ld.h5",
                 (long)getpid());
        snprintf(text, sizeof text, scen, obj[k]);
        FILE *f = fopen(gs_cli_tmp(path), "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(text, f);
        fclose(f);
        snprintf(args, sizeof args, "plan %s --no-plots --no-advice --out %s",
                 path, h5);
        char *out = NULL;
        CU_ASSERT_EQUAL(gs_cli_run("", args, &out, NULL), 0);
        const char *line = out ? strstr(out, "feasible plan") : NULL;
        printf("\n    [%s: %.70s]", what[k], line ? line : "(none)");
        CU_ASSERT_PTR_NOT_NULL(line && strstr(line, want[k]) &&
                               strstr(line, want[k]) < strchr(line, '\n'));
        free(out);
        unlink(gs_cli_tmp(path));
        unlink(gs_cli_tmp(h5));
    }
}

/* scenarios/energy.json at seed 7 (refcheck's) runs to its end with every
 * request done.  It spun without end at one millisecond once the refitted
 * power curve moved a capped replica's iteration end a hair past the
 * service's wake time (sim/inference/service.c, on_wake): the run never
 * returned, so this test hung. */
static void test_capped_service_ends(void)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load("scenarios/energy.json", &sc, &d),
                          0);
    sc->seed = 7;
    struct gs_sim *sim = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL(gs_sim_run(sim, &d), 0);
    const struct gs_svcsum *v = gs_sim_service(sim, 0);
    printf("\n    [seed 7: %ld of %ld requests done]", v->finished,
           v->arrived);
    CU_ASSERT(v->arrived > 500000);
    CU_ASSERT_EQUAL(v->finished, v->arrived);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* Every energy figure of a run finite and >= 0, the summary's JSON
 * without a NaN or an infinity; tenants + idle = fleet. */
static void all_finite(const struct run *r)
{
    const struct gs_energysum *e = gs_sim_energy(r->sim);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    const double f[] = { e->kwh, e->it_kwh, e->host_kwh, e->idle_kwh,
                         e->usd, e->idle_usd, e->gco2, e->idle_gco2,
                         e->span_h };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        CU_ASSERT(isfinite(f[i]) && f[i] >= 0);
    double kwh = 0;
    for (int t = 0; t < gs_sim_ntenants(r->sim); t++) {
        double k, u, c;
        gs_energy_tenant(r->sim, t, &k, &u, &c);
        CU_ASSERT(isfinite(k) && isfinite(u) && isfinite(c));
        kwh += k;
    }
    CU_ASSERT_DOUBLE_EQUAL(kwh + e->idle_kwh, e->kwh, 1e-12);
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r->sim, &n);
    (void)rec;
    for (long i = 0; i < n; i++) {
        struct gs_jobenergy je = gs_sim_record_energy(r->sim, i);
        CU_ASSERT(isfinite(je.kwh) && je.kwh >= 0 && isfinite(je.gco2));
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    gs_report_json(fp, r->sim);
    fclose(fp);
    /* a value that printf wrote as nan or inf: after ':' ',' '[' or '-' */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"carbon_kg_per_hour\": "));
    for (const char *b = buf; (b = strpbrk(b, "ni")) != NULL; b++) {
        if (strncmp(b, "nan", 3) != 0 && strncmp(b, "inf", 3) != 0)
            continue;
        const char *a = b;
        while (a > buf && (a[-1] == ' ' || a[-1] == '-'))
            a--;
        int bad = a > buf && strchr(":,[", a[-1]) != NULL;
        if (bad)
            printf("\n    not a number: %.60s", a - 1);
        CU_ASSERT_FALSE(bad);
    }
    free(buf);
}

/* The energy model's divisions (sim/cloud/energy.c) on what input can
 * make zero: jobs of zero duration and of zero GPUs, a run whose span is
 * zero (the per-hour rates divide by it), a GPU model of 0 W (idle and
 * busy power 0), a utilization profile whose busy phases are 0 s, and a
 * zero-length power cap window.  Each is guarded; the figures are exact. */
static void test_zero_divisors(void)
{
    struct run r;
    /* one CPU-only job of 0 s at time 0: the shortest run there is (a
     * job of 0 s holds its place for 1 ms; a span of 0, which the
     * per-hour rates would divide by, is guarded but no input found
     * reaches it: a generated duration of 0 is refused, "horizon": "0s"
     * is no horizon) */
    run_text(&r, "{\"name\": \"e\", \"energy\": {\"pue\": 1.25, "
             "\"price_usd_per_kwh\": [0.1, 0.2], \"carbon_g_per_kwh\": 400},"
             " \"fleet\": [{\"name\": \"p\", \"gpu\": \"H100-80GB\", "
             "\"nodes\": 2, \"gpus_per_node\": 8}],"
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%s\"}}}", "id,arrival,gpus,duration\n1,0,0,0\n");
    if (r.rc)
        printf("\n    %s: %s", r.d.where, r.d.what);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_energysum *e = gs_sim_energy(r.sim);
    printf("\n    [0 s run: span %g h, %g kWh]", e->span_h, e->kwh);
    CU_ASSERT_EQUAL(e->span_h, 1.0 / GS_HOUR);
    double k0 = 16 * H100_SLOT_IDLE / 1000 / GS_HOUR * 1.25;
    CU_ASSERT_DOUBLE_EQUAL(e->kwh, k0, k0 * 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(e->usd, k0 * 0.1, k0 * 1e-12);
    all_finite(&r);
    run_free(&r);
    /* jobs of 0 s on 1, 0 and 2 GPUs, and one of 60 s whose profile is
     * 0 s busy, 30 s idle: it draws its slot's idle board and busy host
     * and no dynamic board power */
    run_text(&r, fleet_json("\"energy\": {\"pue\": 1.25, "
                            "\"carbon_g_per_kwh\": 400},", ""),
             "id,arrival,gpus,duration,idle_profile\n"
             "1,0,1,0,\n2,0,0,0,\n3,0,2,0,\n4,0,1,60,0:30\n");
    if (r.rc)
        printf("\n    %s: %s", r.d.where, r.d.what);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    all_finite(&r);
    const struct gs_jobrec *j4 = rec_of(&r, 4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j4);
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r.sim, &n);
    struct gs_jobenergy je = gs_sim_record_energy(r.sim, j4 - rec);
    double k4 = (H100_IDLE + H100_HOST_BUSY) * 60 / 3600 / 1000 * 1.25;
    printf("\n    [0 s busy of 60 s: %.9f kWh, by hand %.9f]", je.kwh, k4);
    CU_ASSERT_DOUBLE_EQUAL(je.kwh, k4, k4 * 1e-6);
    for (int id = 1; id <= 3; id++) {
        const struct gs_jobrec *jr = rec_of(&r, id);
        CU_ASSERT_PTR_NOT_NULL_FATAL(jr);
        struct gs_jobenergy z = gs_sim_record_energy(r.sim, jr - rec);
        CU_ASSERT(z.kwh >= 0 && z.kwh < 1e-6);
    }
    run_free(&r);
    /* a GPU model that draws 0 W, with a host of 0 W: every figure 0 */
    run_text(&r, "{\"name\": \"e\", \"horizon\": \"2h\","
             " \"gpu_models\": [{\"name\": \"Z\", \"memory_gb\": 80,"
             " \"tflops\": 100, \"bandwidth_gbs\": 1000, \"power_w\": 0}],"
             " \"energy\": {\"price_usd_per_kwh\": 0.1},"
             " \"fleet\": [{\"name\": \"p\", \"gpu\": \"Z\", \"nodes\": 1,"
             " \"gpus_per_node\": 8, \"host_busy_w\": 0}],"
             " \"workload\": {\"trace\": {\"format\": \"native\","
             " \"path\": \"%s\"}}}",
             "id,arrival,gpus,duration\n1,0,8,3600\n2,0,0,0\n");
    if (r.rc)
        printf("\n    %s: %s", r.d.where, r.d.what);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    e = gs_sim_energy(r.sim);
    CU_ASSERT_EQUAL(e->kwh, 0);
    CU_ASSERT_EQUAL(e->usd, 0);
    CU_ASSERT(e->span_h > 0);
    all_finite(&r);
    run_free(&r);
}

/* A philly-gavel job's compute-bound share from throughputs at the edge
 * of a double: a P100 redefined at half a V100's compute and bandwidth
 * (F = B = 2) measured at 1e-320 steps/s against the V100's 1e10 made
 * (F - B) x (ratio - B) = 0 x inf, a NaN share, and every energy figure,
 * the run's cost and its --json read -nan (traces/philly.c: a ratio that
 * is not finite says nothing, and a share that is NaN stays 0.5). */
static void test_nan_share(void)
{
    char thr[64], json[2048];
    write_temp("{\"k80\": {\"('A', 1)\": {\"null\": 1.0}},"
               " \"p100\": {\"('A', 1)\": {\"null\": 1e-320}},"
               " \"v100\": {\"('A', 1)\": {\"null\": 1e10}}}", thr);
    snprintf(json, sizeof json, "{\"name\": \"ph\", \"gpu_models\": [{\"name\":"
             " \"P100-16GB\", \"memory_gb\": 16, \"tflops\": 62.5,"
             " \"bandwidth_gbs\": 450, \"power_w\": 300}],"
             " \"fleet\": [{\"name\": \"v\", \"gpu\": \"V100-16GB\", \"nodes\": 1,"
             " \"gpus_per_node\": 4}, {\"name\": \"p\", \"gpu\": \"P100-16GB\","
             " \"nodes\": 1, \"gpus_per_node\": 4}, {\"name\": \"k\", \"gpu\":"
             " \"K80\", \"nodes\": 1, \"gpus_per_node\": 4}],"
             " \"workload\": {\"trace\": {\"format\": \"philly-gavel\","
             " \"path\": \"%%s\", \"throughputs\": \"%s\"}}}", thr);
    struct run r;
    run_text(&r, json, "A\tpython3 train.py\t-step\t1\t400\t0.000000\t1\n"
             "A\tpython3 train.py\t-step\t1\t1200\t5.5\t1\n");
    if (r.rc)
        printf("\n    %s: %s", r.d.where, r.d.what);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_energysum *e = gs_sim_energy(r.sim);
    printf("\n    [%g kWh, cost $%g]", e->kwh, gs_sim_summary(r.sim)->cost);
    CU_ASSERT(isfinite(gs_sim_summary(r.sim)->cost));
    all_finite(&r);
    run_free(&r);
    unlink(thr);
}

/* The run's energy figures as its outputs carry them (issue 24: "in the
 * summary, --json, compare, HDF5 and the bill's parts"): the jobs of
 * test_job_and_tenants under an hourly tariff and carbon curve, written
 * to HDF5 -- /summary's energy attributes, /energy/by_tenant (each
 * tenant's row, then idle) and /energy/jobs (each job's record) equal
 * what the run holds -- and compared (`gpusim compare ... --csv`): the
 * fifo column's energy figures are the same run's.  Then a capped
 * Llama-3-8B replica, busy, uncapped and capped at 300 W: its
 * /services/chat/DCGM_FI_DEV_POWER_USAGE stays within [the board's idle
 * power, the cap] while it is up (to rounding: an iteration over a step
 * boundary is split between the steps) and comes near the cap, which
 * binds; the fleet's /timeseries/DCGM_FI_DEV_POWER_USAGE (its one GPU)
 * reads the same in every step the replica served whole, and its steps'
 * energy plus the last, idle stretch is the boards' energy of the run. */
#define JOBS3 "id,arrival,gpus,duration,tenant,compute_bound\n" \
              "1,0,1,7200,a,1\n3,0,0,60,b,0.5\n2,3600,2,1800,b,0.5\n"
#define ENERGY_HOURLY "\"policy\": \"fifo\", \"energy\": {\"pue\": 1.5, " \
    "\"price_usd_per_kwh\": [0.2, 0.05], \"carbon_g_per_kwh\": [300, 100]},"

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-9 * fabs(want) + 1e-12;
}

static void test_energy_outputs(void)
{
    struct run r;
    run_text(&r, fleet_json(ENERGY_HOURLY, ""), JOBS3);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_energysum *e = gs_sim_energy(r.sim);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    char h5[256];
    snprintf(h5, sizeof h5, "%s", gs_cli_tmp("/tmp/gs-test-energy-out.h5"));
    CU_ASSERT_EQUAL_FATAL(gs_h5_write(h5, r.sim, &r.d), 0);
    /* /summary */
    const char *const sname[6] = { "energy_kwh", "energy_it_kwh",
                                   "energy_host_kwh", "energy_idle_kwh",
                                   "energy_cost_usd", "carbon_kg" };
    const double swant[6] = { e->kwh, e->it_kwh, e->host_kwh, e->idle_kwh,
                              e->usd, e->gco2 / 1000 };
    for (int k = 0; k < 6; k++) {
        double v = NAN;
        CU_ASSERT_EQUAL(gs_h5_read_summary(h5, sname[k], &v, &r.d), 0);
        if (!near(v, swant[k]))
            printf("\n    /summary %s: %.9g, the run %.9g", sname[k], v,
                   swant[k]);
        CU_ASSERT(near(v, swant[k]));
    }
    /* /energy/by_tenant: the tenants' rows, then idle; they add up */
    struct gs_h5in *in = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_h5in_open(h5, &in, &r.d), 0);
    double *bt = NULL, *bj = NULL;
    size_t dt[3], dj[3], nn = 0;
    char **names = NULL;
    int nt = gs_sim_ntenants(r.sim);
    CU_ASSERT_EQUAL_FATAL(gs_h5in_doubles(in, "/energy/by_tenant", &bt, dt),
                          2);
    CU_ASSERT_EQUAL_FATAL(gs_h5in_strings(in, "/energy/tenants", &names,
                                          &nn), 0);
    CU_ASSERT_FATAL(dt[0] == (size_t)nt + 1 && dt[1] == 3 &&
                    nn == (size_t)nt + 1);
    double sum[3] = { 0, 0, 0 };
    for (int t = 0; t <= nt; t++) {
        double want[3];
        if (t < nt) {
            gs_energy_tenant(r.sim, t, &want[0], &want[1], &want[2]);
            CU_ASSERT_STRING_EQUAL(names[t], gs_sim_tenant_name(r.sim, t));
        } else {
            want[0] = e->idle_kwh;
            want[1] = e->idle_usd;
            want[2] = e->idle_gco2;
            CU_ASSERT_STRING_EQUAL(names[t], "idle");
        }
        want[2] /= 1000;
        for (int c = 0; c < 3; c++) {
            CU_ASSERT(near(bt[3 * t + c], want[c]));
            sum[c] += bt[3 * t + c];
        }
    }
    printf("\n    [/energy/by_tenant: %d tenants + idle = %.6f kWh, $%.6f, "
           "%.6f kg; the run %.6f, $%.6f, %.6f]", nt, sum[0], sum[1], sum[2],
           e->kwh, e->usd, e->gco2 / 1000);
    CU_ASSERT_DOUBLE_EQUAL(sum[0], e->kwh, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(sum[1], e->usd, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(sum[2], e->gco2 / 1000, 1e-9);
    /* /energy/jobs, in /jobs' (the records') order */
    long n;
    gs_sim_records(r.sim, &n);
    CU_ASSERT_EQUAL_FATAL(gs_h5in_doubles(in, "/energy/jobs", &bj, dj), 2);
    CU_ASSERT_FATAL(dj[0] == (size_t)n && dj[1] == 2);
    int jobs_ok = 0;
    for (long i = 0; i < n; i++) {
        /* the record keeps floats (sim.h): 1e-6 relative */
        struct gs_jobenergy je = gs_sim_record_energy(r.sim, i);
        jobs_ok += fabs(bj[2 * i] - je.kwh) <= 1e-6 * je.kwh &&
                   fabs(bj[2 * i + 1] - je.gco2 / 1000.0) <=
                   1e-6 * je.gco2 / 1000.0;
    }
    CU_ASSERT_EQUAL(jobs_ok, n);
    CU_ASSERT(n == 3 && bj[0] > 0);
    free(bt);
    free(bj);
    gs_h5in_strs_free(names, nn);
    gs_h5in_close(in);
    unlink(h5);

    /* compare: the same scenario from a file; the fifo column */
    char path[256], text[4096], args[1024];
    snprintf(path, sizeof path, "%s",
             gs_cli_tmp("/tmp/gs-test-energy-cmp.json"));
    snprintf(text, sizeof text, fleet_json(ENERGY_HOURLY, ""), r.trace);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    snprintf(args, sizeof args, "compare %s -p fifo,priority -s 1 -j 1 --csv "
             "--no-plots -o /tmp/gs-test-energy-cmp.h5", path);
    char *out = NULL;
    CU_ASSERT_EQUAL(gs_cli_run("", args, &out, NULL), 0);
    const char *const cname[4] = { "energy_kwh", "energy_idle_kwh",
                                   "energy_cost_usd", "carbon_kg" };
    const double cwant[4] = { e->kwh, e->idle_kwh, e->usd, e->gco2 / 1000 };
    for (int k = 0; k < 4; k++) {
        char key[64];
        snprintf(key, sizeof key, "\nfifo,%s,1,", cname[k]);
        const char *l = out ? strstr(out, key) : NULL;
        double v = NAN;
        if (l)
            v = strtod(l + strlen(key), NULL);
        if (!(fabs(v - cwant[k]) <= 1e-6 * fabs(cwant[k])))
            printf("\n    compare's fifo %s: %.9g, the run %.9g", cname[k], v,
                   cwant[k]);
        CU_ASSERT(fabs(v - cwant[k]) <= 1e-6 * fabs(cwant[k]));
    }
    free(out);
    unlink(path);
    unlink(gs_cli_tmp("/tmp/gs-test-energy-cmp.h5"));
    run_free(&r);

    /* a busy Llama-3-8B replica on one H100, uncapped (its series reads
     * 400-415 W) and capped at 300 W */
    static const char scen[] =
        "{\"name\": \"pw\", \"seed\": 3, \"horizon\": \"20m\","
        " \"fleet\": [{\"name\": \"p\", \"gpu\": \"H100-80GB\", \"nodes\": 1,"
        " \"gpus_per_node\": 1%s}],"
        " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%%s\"}},"
        " \"services\": [{\"name\": \"chat\", \"model\": \"llama3-8b\","
        " \"tp\": 1, \"gpu\": \"H100-80GB\", \"replicas\": 1,"
        " \"requests\": {\"generate\": {\"rate_per_second\": 4,"
        " \"until\": \"15m\", \"input_tokens\": {\"dist\": \"lognormal\","
        " \"median\": 600, \"sigma\": 0.5, \"max\": 4000},"
        " \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 200,"
        " \"sigma\": 0.5, \"max\": 1000}}}}]}";
    double hi[2] = { 0, 0 };
    for (int capped = 0; capped < 2; capped++) {
        double cap = capped ? 300 : 700;
        snprintf(text, sizeof text, scen,
                 capped ? ", \"power_cap_w\": 300" : "");
        run_text(&r, text, IDLE_TRACE);
        if (r.rc)
            printf("\n    %s: %s", r.d.where, r.d.what);
        CU_ASSERT_EQUAL_FATAL(r.rc, 0);
        snprintf(h5, sizeof h5, "%s",
                 gs_cli_tmp("/tmp/gs-test-energy-pw.h5"));
        CU_ASSERT_EQUAL_FATAL(gs_h5_write(h5, r.sim, &r.d), 0);
        double *pw = NULL, *rep = NULL;
        long np = 0, nr = 0;
        CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5,
                              "/services/chat/DCGM_FI_DEV_POWER_USAGE", &pw,
                              &np, &r.d), 0);
        CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5, "/services/chat/replicas",
                                                &rep, &nr, &r.d), 0);
        CU_ASSERT_FATAL(np == nr && np > 5);
        int up = 0, within = 0;
        double lo = INFINITY, psum = 0;
        for (long i = 0; i < np; i++) {
            if (!(rep[i] > 0))
                continue;
            up++;
            /* an iteration that spans a step boundary is split over the
             * two steps (svcseries.c), so a step's mean power is never
             * above the cap but by rounding (booked whole in the step it
             * ended in, it read up to 300.07 W of 300 here) */
            within += pw[i] >= H100_IDLE * (1 - 1e-12) &&
                      pw[i] <= cap * (1 + 1e-12);
            if (!(pw[i] >= H100_IDLE * (1 - 1e-12) &&
                  pw[i] <= cap * (1 + 1e-12)))
                printf("\n    row %ld: %.17g W", i, pw[i]);
            psum += pw[i];
            lo = fmin(lo, pw[i]);
            hi[capped] = fmax(hi[capped], pw[i]);
        }
        printf("\n    [%s: %d of %ld samples with the replica up, %.6f-%.6f W"
               " (mean %.2f), idle %.1f W]",
               capped ? "capped at 300 W" : "uncapped", up, np, lo,
               hi[capped], up ? psum / up : 0, H100_IDLE);
        CU_ASSERT(up >= 5);
        CU_ASSERT_EQUAL(within, up);
        CU_ASSERT(up > 0 && psum / up <= cap * (1 + 1e-12));
        /* the fleet's series, on the same grid: its one GPU is the
         * replica's in every step the replica served whole */
        double *fp = NULL, *ft = NULL, *st = NULL;
        long nf = 0, nts = 0, ns = 0;
        CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5,
                              "/timeseries/DCGM_FI_DEV_POWER_USAGE", &fp,
                              &nf, &r.d), 0);
        CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5, "/timeseries/time_s",
                                                &ft, &nts, &r.d), 0);
        CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5, "/services/chat/time_s",
                                                &st, &ns, &r.d), 0);
        /* the metrics' last point is before the end, the services' at it */
        CU_ASSERT_FATAL(nf == nts && nts + 1 == np && nts > 5);
        int same = 0, whole = 0;
        for (long i = 1; i < nts; i++) {
            CU_ASSERT_EQUAL(ft[i], st[i]);
            if (!(rep[i] > 0 && rep[i - 1] > 0))
                continue;
            whole++;
            same += fabs(fp[i] - pw[i]) <= 1e-9 * pw[i];
            if (fabs(fp[i] - pw[i]) > 1e-9 * pw[i])
                printf("\n    step %ld: fleet %.12g W, service %.12g W", i,
                       fp[i], pw[i]);
        }
        CU_ASSERT(whole >= 5);
        CU_ASSERT_EQUAL(same, whole);
        /* its integral: every step, then the last stretch (the stream
         * ended at 15 minutes: the GPU idles) is the boards' energy, IT
         * less hosts (0.2473 x 700 W a GPU idle) */
        const struct gs_energysum *es = gs_sim_energy(r.sim);
        double step = ft[1] - ft[0], fsum = 0;
        for (long i = 0; i < nf; i++)
            fsum += fp[i] * step;
        CU_ASSERT_EQUAL(fp[0], 0);
        double tail = es->span_h * 3600 - (ft[nf - 1] - ft[0]);
        double board = (es->it_kwh - es->host_kwh) * 3.6e6;
        printf("\n    [fleet: %ld steps + %.0f s idle = %.6f kJ; boards' "
               "energy %.6f kJ]", nf - 1, tail,
               (fsum + tail * H100_IDLE) / 1000, board / 1000);
        CU_ASSERT(tail > 0 && tail <= step);
        CU_ASSERT(fabs(fp[nf - 1] - H100_IDLE) <= 1e-9 * H100_IDLE);
        CU_ASSERT(fabs(fsum + tail * H100_IDLE - board) <= 1e-9 * board);
        free(fp);
        free(ft);
        free(st);
        free(pw);
        free(rep);
        unlink(h5);
        run_free(&r);
    }
    /* the cap binds: uncapped the replica draws more, capped it draws
     * near the cap */
    CU_ASSERT(hi[0] > 300 * 1.2);
    CU_ASSERT(hi[1] >= 300 * 0.95);
}

/* The fleet's power series over 100 hours at a 1 s step: 360,000 points
 * are more than the metrics keep (GS_SERIES_MAX), so they halve theirs
 * once; the power series halves with them (two steps' energy become one
 * step's), and its steps' energy plus the last, idle stretch is still the
 * boards' energy.  A step inside job 1's run reads 16 idle boards and 4 at
 * their limit (a busy job draws its board's limit: energy.c); the 2 s
 * step job 2 starts in, half a second in, has its 8 boards busy for 1.5 s
 * of it (a step of the halved series is the two it joined, not one of
 * them twice). */
#define JOBS_LONG "id,arrival,gpus,duration,tenant,compute_bound\n" \
                  "1,0,4,7200,a,1\n2,5000.5,8,36000.25,b,0.5\n" \
                  "3,200000,2,50000,a,1\n"

static void test_fleet_series(void)
{
    struct run r;
    run_text(&r, "{\"name\": \"e\", \"horizon\": \"100h\", "
                 "\"sample_step\": \"1s\", \"fleet\": [{\"name\": \"p\", "
                 "\"gpu\": \"H100-80GB\", \"nodes\": 2, \"gpus_per_node\": 8}],"
                 " \"workload\": {\"trace\": {\"format\": \"native\", "
                 "\"path\": \"%s\"}}}", JOBS_LONG);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    char h5[256];
    snprintf(h5, sizeof h5, "%s", gs_cli_tmp("/tmp/gs-test-energy-fs.h5"));
    CU_ASSERT_EQUAL_FATAL(gs_h5_write(h5, r.sim, &r.d), 0);
    double *fp = NULL, *ft = NULL;
    long nf = 0, nt = 0;
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5,
                          "/timeseries/DCGM_FI_DEV_POWER_USAGE", &fp, &nf,
                          &r.d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5, "/timeseries/time_s", &ft,
                                            &nt, &r.d), 0);
    CU_ASSERT_FATAL(nf == nt && nt > 100);
    double step = ft[1] - ft[0];
    const struct gs_energysum *es = gs_sim_energy(r.sim);
    double sum = 0;
    for (long i = 0; i < nf; i++)
        sum += fp[i] * step;
    double tail = es->span_h * 3600 - (ft[nf - 1] - ft[0]);
    double board = (es->it_kwh - es->host_kwh) * 3.6e6;
    double idle16 = 16 * H100_IDLE;
    printf("\n    [%ld points at %.0f s; %.6f MJ + %.0f s idle, boards' "
           "energy %.6f MJ; at 100 s %.4f W]", nf, step, sum / 1e6, tail,
           board / 1e6, fp[50]);
    CU_ASSERT_EQUAL(nf, 180000);
    CU_ASSERT_EQUAL(step, 2);
    CU_ASSERT(tail > 0 && tail <= step);
    CU_ASSERT(fabs(fp[nf - 1] - idle16) <= 1e-9 * idle16);
    CU_ASSERT(fabs(sum + tail * idle16 - board) <= 1e-9 * board);
    double want = idle16 + 4 * (700 - H100_IDLE);
    CU_ASSERT(fabs(fp[50] - want) <= 1e-9 * want);
    CU_ASSERT_EQUAL(ft[2501], 5002);
    want += 8 * (700 - H100_IDLE) * 1.5 / 2;
    printf("\n    [5000-5002 s: %.6f W, by hand %.6f]", fp[2501], want);
    CU_ASSERT(fabs(fp[2501] - want) <= 1e-9 * want);
    CU_ASSERT_EQUAL(fp[0], 0);
    free(fp);
    free(ft);
    unlink(h5);
    run_free(&r);
}

static CU_TestInfo tests[] = {
    { "idle fleet 10 h by hand: energy, cost, carbon", test_idle_fleet_by_hand },
    { "a tariff step at an hour boundary", test_tariff_step },
    { "a job by hand; tenants + idle = fleet", test_job_and_tenants },
    { "power cap slows compute, never above the cap", test_power_cap },
    { "hosts by hand: keys, defaults, GPU boards alone", test_hosts_by_hand },
    { "energy.json at seed 7: a capped service runs to its end",
      test_capped_service_ends },
    { "energy per request by hand; requests + idle = service",
      test_request_energy },
    { "power cap on the LLM engine", test_llm_cap },
    { "power cap against Splitwise's capped H100 rows", test_cap_splitwise },
    { "bad keys; regions by hand", test_bad_keys },
    { "plan: carbon objective picks the frugal GPU", test_plan_objective },
    { "zero divisors: 0 s jobs and run, 0 GPUs, 0 W, 0 s busy",
      test_zero_divisors },
    { "a philly-gavel share that was NaN", test_nan_share },
    { "energy in HDF5 and compare as the run holds it; power series within "
      "[idle, cap]", test_energy_outputs },
    { "the fleet's power series: halved with the metrics, integral = the "
      "boards' energy", test_fleet_series },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("energy", tests)
