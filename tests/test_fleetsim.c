/* test_fleetsim.c -- inference-fleet-sim's question posed to `gpusim plan`
 * (scenarios/plan-fleet-sim*.json, docs/planning.md "Against
 * inference-fleet-sim"):
 *   - the reduced form (plan-fleet-sim-small.json, two length-routed pools)
 *     is answered by a replica count per pool that a separate simulation
 *     confirms: one replica fewer in the short pool misses its TTFT p99,
 *     one fewer in the long pool misses its own or sits on it (the plan left
 *     it undecided, never feasible), the answer meets both;
 *   - the headline question is infeasible on A100s, and the reason is the
 *     hardware: a lone prompt of 4,640 tokens (the short pool's 99th
 *     percentile) already takes more than 500 ms to its first token;
 *   - every shipped plan-fleet-sim scenario conserves jobs, requests and
 *     GPU-hours, and its cost is its replicas' GPUs at the scenario's
 *     price. */
#include "cutest.h"
#include "clitest.h"
#include "../sim/studies/planjson.h"
#include "../sim/cloud/cloud.h"
#include "../sim/inference/llm.h"
#include "../sim/setup/scenario.h"
#include "../sim/inference/service.h"
#include "../sim/setup/setup.h"
#include "../sim/setup/source.h"
#include "../sim/inference/svcgen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL "scenarios/plan-fleet-sim-small.json"

/* The upper end (mean + half-width) of metric at sweep point k from
 * `sweep --csv` output, or NAN. */
static double upper(const char *csv, int point, const char *metric)
{
    char key[160];
    snprintf(key, sizeof key, "\n%d,", point);
    for (const char *l = csv ? strstr(csv, key) : NULL; l;
         l = strstr(l + 1, key)) {
        const char *m = strstr(l, metric);
        const char *eol = strchr(l + 1, '\n');
        if (m == NULL || (eol && m > eol))
            continue;
        int n;
        double mean, sd, half;
        if (sscanf(m + strlen(metric), ",%d,%lf,%lf,%lf", &n, &mean, &sd,
                   &half) == 4)
            return mean + half;
    }
    return NAN;
}

static void test_small_neighbours(void)
{
    char *out = NULL, *sw = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", "plan " SMALL " --no-plots "
                                     "--no-advice --out "
                                     "/tmp/gs-test-fleetsim.h5", &out, NULL),
                          0);
    const char *p = out ? strstr(out, "cheapest feasible plan: long.replicas=")
                        : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    int L = 0, S = 0;
    CU_ASSERT_EQUAL_FATAL(sscanf(p, "cheapest feasible plan: long.replicas=%d "
                                 "short.replicas=%d", &L, &S), 2);
    /* the long range 1..3 may be widened (to 4..6): the runs are
     * lengthened in steady state, and the long pool's p99 over a longer
     * run needs more replicas than over the shipped 4,000 requests */
    CU_ASSERT(L >= 1 && L <= 6 && S > 4 && S <= 16);
    /* the length the verdict was judged at: the neighbours are checked at
     * that length too */
    int f = 0;
    const char *rl = strstr(p, "steady state: runs ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rl);
    CU_ASSERT_EQUAL_FATAL(sscanf(rl, "steady state: runs %dx", &f), 1);
    CU_ASSERT_FATAL(f >= 1 && f <= 8);
    /* Its cost is its GPUs at $2.21 (one GPU a replica). */
    char cost[64];
    snprintf(cost, sizeof cost, "cost: $%.2f per hour", 2.21 * (L + S));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, cost));
    /* The autoscaled pool is shown at its most nodes, then at the nodes
     * the replicas booted, which the cost is for: one node a replica from
     * the start (provisioning takes no time) to the end. */
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "pool a100             64 nodes x 1 "
                                     "A100-80GB    on-demand      "
                                     "$2.21/node-hour (autoscaled: at "
                                     "most)\n"));
    snprintf(cost, sizeof cost, "booted %d.0 nodes on average, %d at most",
             L + S, L + S);
    CU_ASSERT_PTR_NOT_NULL(strstr(p, cost));
    /* Points: (L, S-1), (L, S), and (L-1, S) when L > 1, on the seeds
     * the plan's verdict took (more than plan.seeds where an interval
     * straddled a target). */
    int ns = 0;
    const char *tg = strstr(p, "targets (95% interval over ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(tg);
    CU_ASSERT_EQUAL_FATAL(sscanf(tg, "targets (95%% interval over %d", &ns),
                          1);
    CU_ASSERT(ns >= 4 && ns <= 16);
    char args[768];
    snprintf(args, sizeof args, "sweep " SMALL " --set "
             "'services[1].replicas=%d,%d' --set 'services[0].replicas=%d,%d'"
             " --set 'services[0].requests.generate.requests=%d' --set "
             "'services[1].requests.generate.requests=%d'"
             " --seeds %d --csv --metrics service.short.ttft_p99_s,"
             "service.long.ttft_p99_s --out /tmp/gs-test-fleetsim-sweep.h5",
             L > 1 ? L - 1 : L, L, S - 1, S, 4000 * f, 4000 * f, ns);
    free(sw);
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", args, &sw, NULL), 0);
    /* Points in order: (L-1|L, S-1) = 1, (L-1|L, S) = 2, (L, S-1) = 3,
     * (L, S) = 4. */
    double s_miss = upper(sw, 3, "service.short.ttft_p99_s");
    double s_ok = upper(sw, 4, "service.short.ttft_p99_s");
    double l_ok = upper(sw, 4, "service.long.ttft_p99_s");
    /* the sweep estimates over whole runs, the plan with the warm-up
     * deleted: the answer meets its targets up to the plan's
     * indifference zone (1%) */
    CU_ASSERT(s_miss > 0.8);
    CU_ASSERT(s_ok <= 0.8 * 1.01);
    CU_ASSERT(l_ok <= 2.0 * 1.01);
    /* one long replica fewer misses, or sits on the target: the plan
     * left it undecided (a verdict that could flip within its interval is
     * none), never feasible -- before the tenth session's rule at the cap
     * the plan left 2 long replicas undecided at 8x (its long pool keeps
     * about 100 requests a run after the warm-up), where whole 8x runs
     * read 1.22 +- 0.12 s, and answered 3; since, it judges 2 met on the
     * interval widened by its last moves and answers 2, so 1 is checked
     * (docs/planning.md) */
    if (L > 1) {
        char und[64];
        snprintf(und, sizeof und, "undecided           8x  long.replicas=%d",
                 L - 1);
        CU_ASSERT(upper(sw, 2, "service.long.ttft_p99_s") > 2.0
                  || strstr(out, und) != NULL);
    }
    if (!(s_miss > 0.8 && s_ok <= 0.8 * 1.01 && l_ok <= 2.0 * 1.01))
        printf("\n    L=%d S=%d: short p99 upper %g at S-1, %g at S; long %g\n",
               L, S, s_miss, s_ok, l_ok);
    free(out);
    free(sw);
    unlink(gs_cli_tmp("/tmp/gs-test-fleetsim.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-fleetsim-sweep.h5"));
}

/* The headline: INFEASIBLE (exit 3).  Why: the model's own unloaded
 * prefill of the short pool's p99 prompt on a Llama-3-70B TP 8 A100
 * replica. */
static void test_headline_infeasible(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(gs_cli_run("", "plan scenarios/plan-fleet-sim.json "
                               "--no-plots --no-advice --jobs 1 --out "
                               "/tmp/gs-test-fleetsim-h.h5", &out, NULL), 3);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "INFEASIBLE"));
    free(out);
    unlink(gs_cli_tmp("/tmp/gs-test-fleetsim-h.h5"));

    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_llm_engine_cfg c;
    gs_llm_engine_cfg_default(&c);
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_llm_arch_find("llama3-70b", &c.arch, "", &d), 0);
    c.tp = 8;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "A100-80GB"), &c.hw);
    struct gs_llm_engine *e = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, &d), 0);
    /* The short pool's totals are the CDF below 6,144; its 99th percentile
     * is the CDF's quantile at 0.99 x 0.9758. */
    struct gs_scenario *sc = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load("scenarios/plan-fleet-sim.json",
                                           &sc, &d), 0);
    const struct gs_tokcdf *cdf = &sc->svcs[0].gen.total;
    long tot = gs_tokcdf_total(cdf, 0.99 * 0.9758027319496186);
    int in, o;
    gs_tokcdf_split(cdf, tot, &in, &o);
    CU_ASSERT(in > 4500 && in < 4800);
    const struct gs_llm_perf *pf = gs_llm_engine_perf(e);
    /* Its chunks at the 8,192-token budget: one iteration. */
    double t = gs_llm_perf_prefill(pf, 1, in);
    CU_ASSERT(t > 0.5);
    gs_llm_engine_free(e);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* Every shipped plan-fleet-sim scenario, as given: requests and jobs
 * accounted for, the replicas' GPU-hours are the run's, the bill adds up,
 * and the cost per hour is the replicas' GPUs at the pool's price. */
static void test_conservation(void)
{
    static const char *const files[] = {
        "scenarios/plan-fleet-sim.json", "scenarios/plan-fleet-sim-gpus.json",
        "scenarios/plan-fleet-sim-single.json", SMALL };
    for (int f = 0; f < 4; f++) {
        struct gs_scenario *sc = NULL;
        struct gs_sim *sim = NULL;
        struct gs_diag d = { 0 };
        CU_ASSERT_EQUAL_FATAL(gs_scenario_load(files[f], &sc, &d), 0);
        struct gs_plancfg *pc = NULL;
        CU_ASSERT_EQUAL(gs_plancfg_load(sc, &pc, &d), 0);
        CU_ASSERT_PTR_NOT_NULL(pc);
        gs_plancfg_free(pc);
        CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
        CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
        long n, arrived = 0, stream = 0;
        const struct gs_jobrec *rec = gs_sim_records(sim, &n);
        const struct gs_summary *su = gs_sim_summary(sim);
        const struct gs_cloudsum *cs = gs_cloud_summary(gs_sim_cloud(sim));
        CU_ASSERT_EQUAL(su->all.jobs, n);
        CU_ASSERT_EQUAL(su->all.done + su->all.killed + su->all.unfinished,
                        n);
        double rep_gpus = 0;
        for (int i = 0; i < gs_sim_nservices(sim); i++) {
            const struct gs_svcsum *v = gs_sim_service(sim, i);
            CU_ASSERT_EQUAL(v->arrived, v->finished + v->dropped + v->inflight);
            CU_ASSERT_EQUAL(v->inflight, 0);
            arrived += v->arrived;
            stream = sc->svcs[i].gen.requests;
            rep_gpus += v->replicas_max * sc->svcs[i].pool[0].tp;
        }
        /* The pools split one stream: together they got all of it. */
        CU_ASSERT_EQUAL(arrived, stream);
        double gh = 0;
        for (long i = 0; i < n; i++)
            gh += rec[i].gpu_hours;
        CU_ASSERT_DOUBLE_EQUAL(gh, su->gpu_hours_used,
                               1e-4 * su->gpu_hours_used);
        CU_ASSERT(su->gpu_hours_used <= su->gpu_hours_avail + 1e-6);
        CU_ASSERT(cs->cost_jobs >= 0 && cs->cost_idle >= 0);
        CU_ASSERT_DOUBLE_EQUAL(cs->cost_jobs + cs->cost_idle,
                               su->cost, 1e-6 * su->cost + 1e-6);
        /* Nodes boot at once for the replicas and stay to the end: the
         * cost per hour is their GPUs at the price. */
        double price = 0;
        for (int k = 0; k < sc->npools; k++)
            if (sc->pools[k].model == sc->svcs[0].pool[0].gpu_model)
                price = sc->pools[k].price_hour / sc->pools[k].gpn;
        double span_h = su->span_h;
        CU_ASSERT_DOUBLE_EQUAL(su->cost / span_h, rep_gpus * price,
                               1e-3 * rep_gpus * price);
        gs_sim_free(sim);
        gs_scenario_free(sc);
        gs_diag_free(&d);
    }
}

static CU_TestInfo tests[] = {
    { "reduced question, neighbours", test_small_neighbours },
    { "headline infeasible on A100", test_headline_infeasible },
    { "conservation", test_conservation },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("fleetsim", tests)
