/* test_plan.c -- `gpusim plan` against queueing theory, its verdicts on
 * infeasible questions, its determinism and MPI = one process byte for
 * byte; the plan section's validation.
 *
 * The M/M/c checks: Poisson arrivals at rate lambda, exponential service at
 * rate mu per GPU, c single-GPU nodes, FIFO.  Erlang C (computed here from
 * its textbook form, independently of gpusim):
 *   C(c, a) = (a^c / c!) (c / (c - a)) / (sum_{k<c} a^k / k! + that),
 *   a = lambda / mu,   Wq = C / (c mu - lambda),
 *   P(Wq > t) = C exp(-(c mu - lambda) t)   (Gross & Harris, sec. 2.3),
 * so the waiting time's 95th percentile is ln(C / 0.05) / (c mu - lambda)
 * when C > 0.05 and 0 otherwise.  The planner must return exactly the
 * smallest c whose theoretical value meets the target; the scenarios put
 * the target well between neighbours (a factor of 1.6 or more), where 5
 * seeds of 20,000 jobs resolve them. */
#include "cutest.h"
#include "clitest.h"
#include "../sim/cloud/cloud.h"
#include "../sim/studies/plan.h"
#include "../sim/studies/planjson.h"
#include "../sim/studies/planint.h"
#include "../sim/io/h5out.h"
#include "../sim/io/h5in.h"
#include "../sim/setup/scenario.h"
#include "../sim/inference/service.h"
#include "../sim/setup/setup.h"
#include "../sim/base/steady.h"

#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double erlang_c(int c, double a)
{
    double term = 1, sum = 0;           /* a^k / k! */
    for (int k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a);
    return top / (sum + top);
}

static double wq_mean(int c, double lambda, double mu)
{
    return erlang_c(c, lambda / mu) / (c * mu - lambda);
}

static double wq_p95(int c, double lambda, double mu)
{
    double C = erlang_c(c, lambda / mu);
    return C > 0.05 ? log(C / 0.05) / (c * mu - lambda) : 0;
}

/* The node count the plan chose ("cheapest feasible plan: gpu.nodes=N"),
 * or -1. */
static int chosen_nodes(const char *out)
{
    const char *p = out ? strstr(out, "cheapest feasible plan: ") : NULL;
    if (p == NULL)
        return -1;
    p = strstr(p, "gpu.nodes=");
    return p ? atoi(p + strlen("gpu.nodes=")) : -1;
}

/* Write text to path (a /tmp/gs-test- name: gs_cli_tmp's folder). */
static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(gs_cli_tmp(path), "w");
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* text with the first occurrence of each from[i] replaced by to[i]
 * (n pairs), as a new string, or NULL when one is missing. */
static char *replaced(const char *text, const char *const *from,
                      const char *const *to, int n)
{
    char *cur = strdup(text);
    for (int i = 0; cur && i < n; i++) {
        char *at = strstr(cur, from[i]), *next = NULL;
        if (at == NULL ||
            asprintf(&next, "%.*s%s%s", (int)(at - cur), cur, to[i],
                     at + strlen(from[i])) < 0)
            next = NULL;
        free(cur);
        cur = next;
    }
    return cur;
}

/* The shipped scenario file with its first from[i] replaced by to[i] (n
 * pairs), as a new string, or NULL. */
static char *file_replaced(const char *file, const char *const *from,
                           const char *const *to, int n)
{
    char *text = gs_cli_slurp(file);
    char *mod = text ? replaced(text, from, to, n) : NULL;
    free(text);
    return mod;
}

/* `gpusim plan SCENARIO --no-plots ARGS --out H5`, SCENARIO
 * the text given (NULL: -1) written to a file of this process's own and
 * H5 beside it, both removed after; stdout into *out and stderr into
 * *err (NULL: discarded).  The exit status. */
static int plan_text(const char *text, const char *args, char **out,
                     char **err)
{
    static int k;
    char scen[64], cmd[512];
    snprintf(scen, sizeof scen, "/tmp/gs-test-plan-t%d.json", ++k);
    if (text == NULL || write_file(scen, text) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "plan %s --no-plots %s --out "
             "/tmp/gs-test-plan-t%d.h5", scen, args, k);
    int rc = gs_cli_run("", cmd, out, err);
    unlink(gs_cli_tmp(scen));
    snprintf(scen, sizeof scen, "/tmp/gs-test-plan-t%d.h5", k);
    unlink(gs_cli_tmp(scen));
    return rc;
}

static void test_erlang_formula(void)
{
    /* hand-worked: M/M/1 Wq = rho / (mu - lambda); M/M/2 at a = 1: 1/3 */
    CU_ASSERT_DOUBLE_EQUAL(wq_mean(1, 0.7, 1.0), 0.7 / 0.3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(wq_mean(2, 1.0, 1.0), 1.0 / 3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(erlang_c(1, 0.5), 0.5, 1e-12);
}

/* The plan file h5 (stdout out) records each candidate's length and runs:
 * every length a power of 2 up to the cap, runs at least the seeds of its
 * last length, their sum the header's run count, the chosen candidate
 * judged at length want_len and its warm-up deleted recorded. */
static void check_plan_lengths(const char *h5, const char *out, int want_len)
{
    struct gs_diag d = { 0 };
    double *len = NULL, *runs = NULL, *seeds = NULL, *pick = NULL;
    long n = 0, n2 = 0, n3 = 0, np = 0;
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5, "/plan/candidates/"
                                            "length_factor", &len, &n, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5, "/plan/candidates/runs",
                                            &runs, &n2, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5, "/plan/candidates/seeds_run",
                                            &seeds, &n3, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(h5, "/plan/chosen", &pick, &np,
                                            &d), 0);
    CU_ASSERT(n == n2 && n == n3 && n > 0 && np == 2);
    double total = 0;
    for (long i = 0; i < n && i < n2 && i < n3; i++) {
        int l = (int)len[i];
        CU_ASSERT(l >= 1 && l <= want_len && (l & (l - 1)) == 0);
        CU_ASSERT(runs[i] >= seeds[i]);
        CU_ASSERT(l > 1 || runs[i] == seeds[i]);
        total += runs[i];
    }
    const char *h = out ? strstr(out, " candidates, ") : NULL;
    CU_ASSERT_PTR_NOT_NULL(h);
    if (h)
        CU_ASSERT_EQUAL((long)total, atol(h + strlen(" candidates, ")));
    if (np == 2 && pick[0] >= 0 && pick[0] < n)
        CU_ASSERT_EQUAL((int)len[(long)pick[0]], want_len);
    char q[16];
    CU_ASSERT_EQUAL(gs_cli_h5_str(h5, "/plan/question", q, sizeof q), 0);
    CU_ASSERT_STRING_EQUAL(q, "steady");
    char first[256];
    CU_ASSERT_EQUAL(gs_h5_undescribed(h5, first, sizeof first), 0);
    free(len);
    free(runs);
    free(seeds);
    free(pick);
    gs_diag_free(&d);
}

/* The plan's metrics after the answer: those that apply, each once.
 * plan-erlang has one on-demand pool, one tier, no service, no failures:
 * cost_on_demand_usd and cost_on_demand_equiv_usd are cost_usd,
 * utilization_makespan is utilization, attainment is 1 - sla_share,
 * training.* repeat the overall metrics, availability is 1 in every run,
 * cost_per_hour_usd is the answer's, wait_mean_s the target's; no
 * inference or spot metric applies.  Each metric line names two. */
static void check_short_metrics(const char *out)
{
    const char *m = out ? strstr(out, "\n  other metrics (") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const char *end = strstr(m, "\n\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    char *sec = strndup(m, (size_t)(end - m));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    static const char *const shown[] = {
        " utilization ", " cost_usd ", " wait_p95_s ", " sla_share ",
        " cost_idle_usd ", " energy_kwh ",
    };
    static const char *const hidden[] = {
        "cost_on_demand_usd", "cost_on_demand_equiv_usd",
        "utilization_makespan", "throughput_makespan_jph", " attainment ",
        "training.", "availability", "cost_per_hour_usd",
        "cost_per_month_usd", " wait_mean_s ", "inference_", "spot_",
    };
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        if (!strstr(sec, shown[i]))
            printf("\n    not shown: %s", shown[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(sec, shown[i]));
    }
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
        if (strstr(sec, hidden[i]))
            printf("\n    shown: %s", hidden[i]);
        CU_ASSERT_PTR_NULL(strstr(sec, hidden[i]));
    }
    int lines = 0;
    for (const char *c = sec; *c; c++)
        lines += *c == '\n';
    CU_ASSERT(lines >= 4 && lines <= 16);
    /* the cost line says the price once */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  cost: $61.44 per hour, $44851 per "
                                  "month (730 h)\n"));
    free(sec);
}

static void test_mmc_mean_wait(void)
{
    const double lambda = 8, mu = 1, target_h = 3.5 / 60;   /* the file's */
    int want = -1;
    for (int c = 9; c <= 40 && want < 0; c++)
        if (wq_mean(c, lambda, mu) <= target_h)
            want = c;
    CU_ASSERT_EQUAL(want, 12);
    /* the neighbours are well apart from the target */
    CU_ASSERT(wq_mean(want - 1, lambda, mu) > 1.3 * target_h);
    CU_ASSERT(wq_mean(want, lambda, mu) < 0.7 * target_h);
    char *out = NULL, *err = NULL;
    int rc = gs_cli_run("", "plan scenarios/plan-erlang.json --no-plots "
                        "--no-advice --out /tmp/gs-test-plan-erlang.h5",
                        &out, &err);
    CU_ASSERT_EQUAL(rc, 0);
    int got = chosen_nodes(out);
    if (got != want)
        printf("\n    plan chose %d, Erlang C says %d\n%s\n%s", got, want,
               out ? out : "", err ? err : "");
    CU_ASSERT_EQUAL(got, want);
    /* a job-wait target in a steady-state question (Poisson jobs at a
     * constant rate) is lengthened like a service's: at 20,000 jobs a run
     * 12 nodes read 125.0 +- 27 s over 5 seeds, wider than 5% of the
     * 210 s limit, so its runs double to the default cap of 8x (160,000
     * jobs), its warm-up deleted (MSER-5) */
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "runs 8x the scenario's "
                                  "length, warm-up deleted (MSER-5)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "of 160000 jobs a run"));
    /* the estimate at that length is Erlang C's within 10% (its 95%
     * interval is about +-10%), its interval less than half the 1x one */
    const char *w = out ? strstr(out, "wait_mean_s ") : NULL;
    CU_ASSERT_PTR_NOT_NULL(w);
    if (w) {
        double limit, mean, half;
        CU_ASSERT_EQUAL(sscanf(w, "wait_mean_s <= %lf %lf ± %lf", &limit,
                               &mean, &half), 3);
        CU_ASSERT_DOUBLE_EQUAL(limit, 210, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(mean, wq_mean(want, lambda, mu) * 3600,
                               0.1 * wq_mean(want, lambda, mu) * 3600);
        CU_ASSERT(half < 15);   /* 27 s at 1x: lengthening narrowed it */
        /* the answer says whether plan.precision (5%) was met: the 95%
         * half-width against the larger of the estimate and the 210 s
         * limit; at the 8x cap it may not be, and says what stopped it */
        const char *pl = strstr(out, "\n  precision: ");
        CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
        double r = half / fmax(mean, limit), pct = NAN;
        if (r > 0.0505) {
            CU_ASSERT_EQUAL(sscanf(pl, "\n  precision: NOT met -- "
                                   "wait_mean_s ±%lf%%", &pct), 1);
            CU_ASSERT_DOUBLE_EQUAL(pct / 100, r, 0.0006);
            CU_ASSERT_PTR_NOT_NULL(strstr(pl, "as long as "
                                          "plan.max_length_factor allows"));
        } else if (r < 0.0495) {
            CU_ASSERT_PTR_NOT_NULL(strstr(pl, "within ±5% of its estimate "
                                          "(or limit): met"));
        }
    }
    check_plan_lengths(gs_cli_tmp("/tmp/gs-test-plan-erlang.h5"), out, 8);
    check_short_metrics(out);
    free(out);
    free(err);
    unlink(gs_cli_tmp("/tmp/gs-test-plan-erlang.h5"));
}

/* The same question with the search range entirely below the answer
 * (1 to 5 nodes, Erlang C says 12): the closest candidate sits on the
 * range's top, so the planner widens it (6..10, then 11..20, the cap's
 * default of four times the top) and finds Erlang C's count, saying
 * so. */
static void test_mmc_widened(void)
{
    /* at the scenario's length (lengthening is test_mmc_mean_wait's) */
    const char *from[] = { "\"nodes\": [1, 40]", "\"min_seeds\": 3" };
    const char *to[] = { "\"nodes\": [1, 5]",
                         "\"min_seeds\": 3, \"max_length_factor\": 1" };
    char *text = file_replaced("scenarios/plan-erlang.json", from, to, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *out = NULL;
    CU_ASSERT_EQUAL(plan_text(text, "--no-advice", &out, NULL), 0);
    free(text);
    CU_ASSERT_EQUAL(chosen_nodes(out), 12);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "gpu nodes 1..5 -> searched "
                                              "6..10 too"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "searched 11..20 too"));
    free(out);
}

/* Run plan-erlang.json with its plan's target and verdict keys replaced;
 * stdout in *out.  The exit status. */
static int erlang_variant(const char *target, const char *keys, char **out)
{
    char t[64], k[256];
    snprintf(t, sizeof t, "\"targets\": {\"wait_mean\": \"%s\"}", target);
    snprintf(k, sizeof k, "\"seeds\": 5, \"min_seeds\": 3, %s", keys);
    const char *from[] = { "\"targets\": {\"wait_mean\": \"3.5m\"}",
                           "\"seeds\": 5, \"min_seeds\": 3" };
    const char *to[] = { t, k };
    char *mod = file_replaced("scenarios/plan-erlang.json", from, to, 2);
    int rc = plan_text(mod, "--no-advice", out, NULL);
    free(mod);
    return rc;
}

/* A target set on a candidate's true value: Erlang C puts the mean wait of
 * 12 nodes at 125.86 s, so against 126 s no number of seeds decides it.
 * The runs are kept at the scenario's length (max_length_factor 1: this
 * is about seeds, not length).  With an indifference zone of +-45% its
 * 5-seed interval (123.9 +- 28 s, the warm-up deleted) lies inside
 * 126 +- 56.7 s: undecided within the zone, at once, and the answer is 13
 * (54.7 s), listing 12 as cheaper but undecided.  With no zone, a cap
 * of 10 seeds and no futility rule, 12 runs 10 seeds (5 more runs) and
 * stops undecided at the cap; the answer is 13 again.  With the futility
 * rule (the default), 12 stops undecided at its 5 seeds: were 123.9 s the
 * true mean, 10 seeds would meet 126 s with a chance of 0.3% (the
 * interval's unfavourable end needs the mean below about 110 s), under
 * the rule's 2.5% -- the same answer and the same listing, 5 runs fewer.
 * Either verdict taken as feasible would answer 12; taken as infeasible,
 * it would not be listed. */
static void test_indifference_and_cap(void)
{
    CU_ASSERT_DOUBLE_EQUAL(wq_mean(12, 8, 1) * 3600, 126, 0.2);
    CU_ASSERT(wq_mean(13, 8, 1) * 3600 < 0.5 * 126);
    char *out = NULL;
    CU_ASSERT_EQUAL(erlang_variant("126s", "\"indifference\": 0.45, "
                                   "\"max_length_factor\": 1", &out), 0);
    CU_ASSERT_EQUAL(chosen_nodes(out), 13);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "gpu.nodes=12  $61.44/hour  "
                                              "wait_mean_s 123.863 ± 28.4 "
                                              "against 126: undecided "
                                              "within ±45%"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, ": 6 candidates, 28 runs "));
    free(out);
    out = NULL;
    CU_ASSERT_EQUAL(erlang_variant("126s", "\"indifference\": 0, "
                                   "\"max_seeds\": 10, \"futility\": false, "
                                   "\"max_length_factor\": 1", &out), 0);
    CU_ASSERT_EQUAL(chosen_nodes(out), 13);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "undecided at the cap of 10 "
                                              "seeds"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, ": 6 candidates, 33 runs (1 "
                                              "candidates stopped early, 1 "
                                              "ran more seeds, 1 undecided"));
    free(out);
    out = NULL;
    CU_ASSERT_EQUAL(erlang_variant("126s", "\"indifference\": 0, "
                                   "\"max_seeds\": 10, "
                                   "\"max_length_factor\": 1", &out), 0);
    CU_ASSERT_EQUAL(chosen_nodes(out), 13);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "gpu.nodes=12  $61.44/hour  "
                                              "wait_mean_s 123.863 ± 28.4 "
                                              "against 126 over 5 seeds: "
                                              "undecided, 10 (the cap) "
                                              "would not meet it"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, ": 6 candidates, 28 runs (1 "
                                              "candidates stopped early, 0 "
                                              "ran more seeds, 1 undecided"));
    free(out);
}

/* The same queue judged on the waiting time's 95th percentile, at the
 * scenario's length (lengthening a job-wait target is test_mmc_mean_wait's;
 * the p95 here is the quantile of the run's waits after MSER-5's warm-up). */
static const char p95_scenario[] =
"{\"name\": \"plan-p95\", \"seed\": 3,"
" \"fleet\": [{\"name\": \"gpu\", \"gpu\": \"A100-80GB\", \"nodes\": 1,"
"   \"gpus_per_node\": 1}],"
" \"policy\": \"fifo\", \"placement\": \"first-fit\","
" \"workload\": {\"generate\": {\"jobs\": 20000, \"rate_per_hour\": 8,"
"   \"reference_gpu\": \"A100-80GB\", \"classes\": [{\"name\": \"j\","
"   \"tier\": \"training\", \"weight\": 1, \"tenants\": 1, \"gpus\": 1,"
"   \"duration\": {\"dist\": \"exponential\", \"mean\": \"1h\"}}]}},"
" \"plan\": {\"targets\": {\"tiers\": {\"training\": {\"wait_p95\": \"10m\"}}},"
"   \"search\": {\"pools\": [{\"pool\": \"gpu\", \"nodes\": [9, 30]}]},"
"   \"seeds\": 5, \"max_length_factor\": 1}}\n";

static void test_mmc_wait_p95(void)
{
    const double lambda = 8, mu = 1, target_h = 10.0 / 60;
    int want = -1;
    for (int c = 9; c <= 30 && want < 0; c++)
        if (wq_p95(c, lambda, mu) <= target_h)
            want = c;
    CU_ASSERT_EQUAL(want, 13);
    CU_ASSERT(wq_p95(want - 1, lambda, mu) > 1.5 * target_h);
    CU_ASSERT(wq_p95(want, lambda, mu) < 0.6 * target_h);
    char *out = NULL;
    CU_ASSERT_EQUAL(plan_text(p95_scenario, "--no-advice", &out, NULL), 0);
    int got = chosen_nodes(out);
    if (got != want)
        printf("\n    plan chose %d, Erlang C says %d\n%s", got, want,
               out ? out : "");
    CU_ASSERT_EQUAL(got, want);
    free(out);
}

static void test_infeasible(void)
{
    /* at most 9 nodes: Erlang C's wait is 39 minutes there; the cap at
     * the range's top: no widening */
    const char *from[] = { "\"nodes\": [1, 40]" };
    const char *to[] = { "\"nodes\": [1, 9], \"cap\": 9" };
    char *mod = file_replaced("scenarios/plan-erlang.json", from, to, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mod);
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(plan_text(mod, "--no-advice", &out, &err), 3);
    free(mod);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "INFEASIBLE"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "closest candidate"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "gpu.nodes=9"));
    CU_ASSERT_PTR_NULL(out ? strstr(out, "cheapest feasible plan") : NULL);
    /* only the top of the range needed a verdict: one candidate */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, ": 1 candidates"));
    /* the bound that stops it is named */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "sits on the cap of gpu nodes "
                                              "(9)"));
    free(out);
    free(err);
}

/* One plan's bytes (its answer and its result file) are the same with
 * one worker, two and two MPI ranks.  make test plans a cheap variant of
 * plan-erlang (5,000 jobs a run, lengthened up to 2x: 33 runs, six
 * candidates, one undecided at the cap); make test-long the shipped
 * scenario as it is (8x, 160,000 jobs a run). */
static void test_deterministic_and_mpi(void)
{
    char *o1 = NULL, *o2 = NULL, *o3 = NULL, *e3 = NULL;
    const char *scen = "scenarios/plan-erlang.json";
    if (!gs_test_long()) {
        const char *from[] = { "\"jobs\": 20000", "\"min_seeds\": 3" };
        const char *to[] = { "\"jobs\": 5000",
                             "\"min_seeds\": 3, \"max_length_factor\": 2" };
        char *mod = file_replaced(scen, from, to, 2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(mod);
        scen = "/tmp/gs-test-plan-det.json";
        CU_ASSERT_EQUAL_FATAL(write_file(scen, mod), 0);
        free(mod);
    }
    char common[256], a[512];
    snprintf(common, sizeof common, "plan %s --no-plots --seeds 3", scen);
    snprintf(a, sizeof a, "%s --jobs 1 --out /tmp/gs-test-plan-1.h5", common);
    CU_ASSERT_EQUAL(gs_cli_run("", a, &o1, NULL), 0);
    snprintf(a, sizeof a, "%s --jobs 2 --out /tmp/gs-test-plan-2.h5", common);
    CU_ASSERT_EQUAL(gs_cli_run("", a, &o2, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
    CU_ASSERT_STRING_EQUAL(o1, o2);
    CU_ASSERT(gs_cli_same_file("/tmp/gs-test-plan-1.h5",
                               "/tmp/gs-test-plan-2.h5"));
    snprintf(a, sizeof a, "%s --out /tmp/gs-test-plan-mpi.h5", common);
    int rc = gs_cli_run(GS_MPIRUN, a, &o3, &e3);
    if (rc != 0)
        printf("\n    mpirun: %d\n%s", rc, e3 ? e3 : "");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o3);
    CU_ASSERT_STRING_EQUAL(o1, o3);
    CU_ASSERT(gs_cli_same_file("/tmp/gs-test-plan-1.h5",
                               "/tmp/gs-test-plan-mpi.h5"));
    CU_ASSERT_PTR_NOT_NULL(e3 && strstr(e3, "2 ranks"));
    free(o1);
    free(o2);
    free(o3);
    free(e3);
    unlink(gs_cli_tmp("/tmp/gs-test-plan-1.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-plan-2.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-plan-mpi.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-plan-det.json"));
}

/* An inference service at a fixed request rate: the plan's replica count
 * R meets TTFT p95 <= 1 s at the upper end of its interval, and R - 1 does
 * not -- both checked by a separate simulation (gpusim sweep at R - 1 and
 * R, the same seeds). */
static void test_service_replicas(void)
{
    char *out = NULL, *sw = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", "plan scenarios/plan-service.json "
                                     "--no-plots --no-advice --out "
                                     "/tmp/gs-test-plan-svc.h5", &out, NULL),
                          0);
    const char *p = out ? strstr(out, "cheapest feasible plan: chat.replicas=")
                        : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    int r = atoi(p + strlen("cheapest feasible plan: chat.replicas="));
    CU_ASSERT(r > 1 && r < 16);
    /* a service's headline metrics, once: not the fleet-wide inference_*
     * beside one service, not its details, no job metric without jobs */
    const char *om = strstr(out, "\n  other metrics (");
    CU_ASSERT_PTR_NOT_NULL_FATAL(om);
    char *sec = strndup(om, (size_t)(strstr(om, "\n\n") ?
                                     strstr(om, "\n\n") - om : 0));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    CU_ASSERT_PTR_NOT_NULL(strstr(sec, " service.chat.ttft_p99_s "));
    CU_ASSERT_PTR_NOT_NULL(strstr(sec, " service.chat.sla_attainment "));
    CU_ASSERT_PTR_NOT_NULL(strstr(sec, " service.chat.cost_per_mtok_usd "));
    CU_ASSERT_PTR_NULL(strstr(sec, "service.chat.ttft_p95_s")); /* target */
    CU_ASSERT_PTR_NULL(strstr(sec, "service.chat.queue_p50_s"));
    CU_ASSERT_PTR_NULL(strstr(sec, "inference_"));
    CU_ASSERT_PTR_NULL(strstr(sec, "jct_mean_s"));
    CU_ASSERT_PTR_NULL(strstr(sec, "throughput_jobs_per_hour"));
    free(sec);
    /* the Pareto front holds the chosen plan, and along it (cost order)
     * each feasible row is better in attainment than the feasible rows
     * before it: none is dominated */
    char want[64];
    snprintf(want, sizeof want, " chat.replicas=%d\n", r);
    const char *front = strstr(out, "Pareto front");
    CU_ASSERT_PTR_NOT_NULL_FATAL(front);
    const char *end = strstr(front, "\n\n");
    const char *hit = strstr(front, want);
    CU_ASSERT(hit != NULL && (end == NULL || hit < end));
    const char *row = strchr(front, '\n');
    row = row ? strchr(row + 1, '\n') : NULL;      /* past the header */
    double prev = -1;
    int nrow = 0;
    while (row && (end == NULL || row < end) && row[1] == ' ') {
        double cost, month, att;
        if (sscanf(row + 1, "%lf %lf %lf", &cost, &month, &att) != 3)
            break;
        const char *eol = strchr(row + 1, '\n');
        const char *fe = strstr(row + 1, " feasible ");
        if (fe && (eol == NULL || fe < eol)) {
            CU_ASSERT(att > prev);
            prev = att;
        }
        nrow++;
        row = eol;
    }
    CU_ASSERT(nrow >= 1);
    char args[512];
    snprintf(args, sizeof args, "sweep scenarios/plan-service.json --set "
             "'services[0].replicas=%d,%d' --seeds 5 --csv --metrics "
             "service.chat.ttft_p95_s --out /tmp/gs-test-plan-svc-sweep.h5",
             r - 1, r);
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", args, &sw, NULL), 0);
    for (int k = 0; k < 2; k++) {
        char key[64];
        snprintf(key, sizeof key, "%d,\"%d\",service.chat.ttft_p95_s,5,",
                 k + 1, r - 1 + k);
        const char *l = sw ? strstr(sw, key) : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        double mean, sd, half;
        CU_ASSERT_EQUAL(sscanf(l + strlen(key), "%lf,%lf,%lf", &mean, &sd,
                               &half), 3);
        /* R - 1 misses, R meets */
        CU_ASSERT(k == 0 ? mean + half > 1.0 : mean + half <= 1.0);
    }
    free(out);
    free(sw);
    unlink(gs_cli_tmp("/tmp/gs-test-plan-svc.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-plan-svc-sweep.h5"));
}

/* A service's plan beyond its replica count: the Pareto front's attainment
 * counts the service's requests against the plan's TTFT target (the
 * service states no SLA, so before this it was 1 for every candidate); the
 * load growth scales the request rate (twice the load needs more replicas);
 * right-sizing reports the service's peak memory per GPU, which holds the
 * weights of Llama-3-8B (8.03 B parameters x 2 bytes = 16.1 GB) and fits
 * on the 80 GB A100 it runs on.  A service replaying a trace cannot be
 * grown: exit 2, naming it.  make test plans on 5-minute runs never
 * lengthened (its answers are the shipped runs': 8 replicas, 15 at x2),
 * make test-long on the scenario as shipped. */
static void test_service_growth_front(void)
{
    char dir[] = "/tmp/gs-plan-XXXXXX", args[1024], *out = NULL,
         *err = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    const char *from[] = { "\"until\": \"20m\"", "\"seeds\": 5" };
    const char *to[] = { "\"until\": \"5m\"",
                         "\"seeds\": 5, \"max_length_factor\": 1" };
    char *mod = file_replaced("scenarios/plan-service.json", from, to,
                              gs_test_long() ? 0 : 2);
    CU_ASSERT_EQUAL_FATAL(plan_text(mod, "--seeds 3 --growth 2", &out, NULL),
                          0);
    free(mod);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    const char *p = strstr(out, "cheapest feasible plan: chat.replicas=");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    int r = atoi(p + strlen("cheapest feasible plan: chat.replicas="));
    /* the front: every row's attainment is a share below 1 */
    const char *f = strstr(out, "Pareto front");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    f = strchr(f, '\n');
    f = f ? strchr(f + 1, '\n') : NULL;     /* past the header */
    int rows = 0;
    while (f && f[1] == ' ' && f[2] == ' ') {
        double cost, month, att;
        if (sscanf(f + 1, "%lf %lf %lf", &cost, &month, &att) != 3)
            break;
        /* the front holds cheaper infeasible candidates too; a feasible
         * one meets a 1 s TTFT p95, so most requests are within it */
        const char *eol = strchr(f + 1, '\n');
        const char *fe = strstr(f + 1, " feasible ");
        CU_ASSERT(att < 1.0);
        if (fe && (eol == NULL || fe < eol))
            CU_ASSERT(att > 0.5);
        rows++;
        f = strchr(f + 1, '\n');
    }
    CU_ASSERT(rows >= 1);
    const char *g = strstr(out, "  x2 ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    const char *gr = strstr(g, "chat.replicas=");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gr);
    CU_ASSERT(atoi(gr + strlen("chat.replicas=")) > r);
    const char *rs = strstr(out, "right-sizing per service");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
    rs = strstr(rs, "\n  chat ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
    const char *gb = strstr(rs, " GB ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gb);
    const char *num = gb;
    while (num > rs && num[-1] != ' ')
        num--;
    double mem = atof(num);
    CU_ASSERT(mem >= 16.0 && mem <= 80.0);
    free(out);
    out = NULL;
    /* a replayed request trace: refused */
    char path[700], cwd[512];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    snprintf(path, sizeof path, "%s/trace.json", dir);
    FILE *fp = fopen(gs_cli_tmp(path), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fprintf(fp, "{\"fleet\": [{\"name\": \"a100\", \"gpu\": \"A100-80GB\","
            " \"nodes\": 1, \"gpus_per_node\": 8}], \"services\": [{\"name\":"
            " \"code\", \"tier\": \"inference\", \"model\": \"llama2-7b\","
            " \"gpu\": \"A100-80GB\", \"replicas\": 1, \"requests\": "
            "{\"trace\": {\"format\": \"azure-llm\", \"path\": \"%s/tests/"
            "fixtures/traces/azure_ok.csv\"}}}], \"plan\": {\"targets\": "
            "{\"services\": {\"code\": {\"ttft_p99\": \"2s\"}}}, \"search\": "
            "{\"services\": [{\"service\": \"code\", \"replicas\": [1, 4]}]}}}\n",
            cwd);
    fclose(fp);
    snprintf(args, sizeof args, "plan %s --growth 2 --no-plots --out %s/t.h5",
             path, dir);
    CU_ASSERT_EQUAL(gs_cli_run("", args, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "services[0] (code) replays a "
                                              "trace"));
    snprintf(path, sizeof path, "%s/t.h5", dir);
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
    free(err);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(args), 0);
}

/* A bad plan section: exit 2, the JSON path named, no file left. */
static void expect_bad(const char *plan, const char *msg)
{
    char path[128], args[400], text[4096];
    snprintf(path, sizeof path, "/tmp/gs-test-plan-bad-%ld.json",
             (long)getpid());
    snprintf(text, sizeof text,
             "{\"fleet\": [{\"name\": \"gpu\", \"gpu\": \"A100-80GB\","
             " \"nodes\": 2}], \"workload\": {\"generate\": {\"jobs\": 10,"
             " \"rate_per_hour\": 8, \"classes\": [{\"name\": \"j\","
             " \"weight\": 1, \"gpus\": 1, \"duration\": {\"dist\":"
             " \"constant\", \"value\": \"1h\"}}]}}, \"plan\": %s}", plan);
    write_file(gs_cli_tmp(path), text);
    snprintf(args, sizeof args, "plan %s --out /tmp/gs-test-plan-bad.h5",
             path);
    char *err = NULL;
    int rc = gs_cli_run("", args, NULL, &err);
    if (rc != 2 || !err || !strstr(err, msg))
        printf("\n    %s -> %d: %s", plan, rc, err ? err : "");
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, msg));
    CU_ASSERT_EQUAL(access(gs_cli_tmp("/tmp/gs-test-plan-bad.h5"), F_OK), -1);
    free(err);
    unlink(gs_cli_tmp(path));
}

static void test_bad_plans(void)
{
    const char *search = "\"search\": {\"pools\": [{\"pool\": \"gpu\", "
                         "\"nodes\": [1, 4]}]}";
    char p[1024];
    snprintf(p, sizeof p, "{\"targets\": {\"wait_p96\": 1}, %s}", search);
    expect_bad(p, "$.plan.targets: unknown key 'wait_p96'");
    snprintf(p, sizeof p, "{\"targets\": {\"metrics\": {\"nope\": {\"max\": "
             "1}}}, %s}", search);
    expect_bad(p, "no metric 'nope'");
    snprintf(p, sizeof p, "{\"targets\": {\"sla_violations\": 2}, %s}",
             search);
    expect_bad(p, "$.plan.targets.sla_violations: expected a share");
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": {\"pools\": "
               "[{\"pool\": \"gpx\", \"nodes\": [1, 4]}]}}",
               "$.plan.search.pools[0].pool: no such pool");
    /* a policy or placer misspelled in the search: refused at parse time,
     * named by its place, with "did you mean" */
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": "
               "{\"policies\": [\"fifo\", \"fiar\"]}}",
               "$.plan.search.policies[1]: unknown policy 'fiar' (did you "
               "mean 'fair'?)");
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": "
               "{\"policies\": [{\"name\": \"hsp\"}]}}",
               "$.plan.search.policies[0]: unknown policy 'hsp' (did you "
               "mean 'hps'?)");
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": "
               "{\"choices\": [{\"key\": \"placement\", \"values\": "
               "[\"best-fit\", \"fdg\"]}]}}",
               "$.plan.search.choices[0].values[1]: unknown placement 'fdg' "
               "(did you mean 'fgd'?)");
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": {\"pools\": "
               "[{\"pool\": \"gpu\", \"nodes\": [5, 4]}]}}",
               "$.plan.search.pools[0].nodes");
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": {\"pools\": "
               "[{\"pool\": \"gpu\", \"gpu\": [\"A100-80GB\", \"B999\"]}]}}",
               "unknown GPU model 'B999'");
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": {\"choices\": "
               "[{\"key\": \"fleet[0].nodez\", \"values\": [1, 2]}]}}",
               "unknown key 'nodez'");
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": {}}",
               "an empty search space");
    expect_bad("{\"targets\": {\"wait_p95\": 60}, \"search\": {\"policies\":"
               " [\"fifo\"]}, \"seeds\": 1}", "$.plan.seeds");
}

/* A 400-character key wherever the plan section reads one is named whole
 * in the message, exit 2, no file: the plan's paths were cut by fixed
 * buffers (p[300] for a metric's target, p[200] a service's), an edit's
 * key path by gs_edit's path[256] and the walk's key[128] ("malformed key
 * path"), a variant's pool key by key[128]. */
static void test_long_keys(void)
{
    char k[401], p[1500], m[1500];
    memset(k, 'k', 400);
    k[400] = '\0';
    const char *search = "\"search\": {\"pools\": [{\"pool\": \"gpu\", "
                         "\"nodes\": [1, 4]}]}";
    snprintf(p, sizeof p, "{\"targets\": {\"metrics\": {\"%s\": {\"max\": "
             "1}}}, %s}", k, search);
    snprintf(m, sizeof m, ": $.plan.targets.metrics.%s.max: no metric '%s' "
             "(", k, k);
    expect_bad(p, m);
    snprintf(p, sizeof p, "{\"targets\": {\"services\": {\"%s\": "
             "{\"ttft_p99\": 1}}}, %s}", k, search);
    snprintf(m, sizeof m, ": $.plan.targets.services.%s: service name too "
             "long", k);
    expect_bad(p, m);
    /* a choice's key path, edited whole: the scenario refuses the key */
    snprintf(p, sizeof p, "{\"targets\": {\"wait_p95\": 60}, \"search\": "
             "{\"choices\": [{\"key\": \"fleet[0].%s\", \"values\": [1, "
             "2]}]}}", k);
    snprintf(m, sizeof m, "$.fleet[0]: unknown key '%s' (allowed: ", k);
    expect_bad(p, m);
    /* ... and walked whole: the part walked is named */
    snprintf(p, sizeof p, "{\"targets\": {\"wait_p95\": 60}, \"search\": "
             "{\"choices\": [{\"key\": \"fleet[0].%s.%s[3]\", \"values\": "
             "[1, 2]}]}}", k, k);
    snprintf(m, sizeof m, ": $.fleet[0].%s.%s is not an array", k, k);
    expect_bad(p, m);
    snprintf(p, sizeof p, "{\"targets\": {\"wait_p95\": 60}, \"search\": "
             "{\"pools\": [{\"pool\": \"gpu\", \"variants\": [{\"%s\": "
             "1}]}]}}", k);
    snprintf(m, sizeof m, "$.fleet[0]: unknown key '%s' (allowed: ", k);
    expect_bad(p, m);
    /* an unknown key with a control byte: escaped, as duplicates are */
    snprintf(p, sizeof p, "{\"targets\": {\"wait_p95\": 60, \"w\\u0007x\": "
             "1}, %s}", search);
    expect_bad(p, "$.plan.targets: unknown key 'w\\u0007x' (allowed: ");
}

/* Conservation on the shipped plan scenarios, as given: every job
 * accounted for, nothing allocated beyond what is up, jobs' GPU-hours +
 * idle GPU-hours = the fleet's, the bill's parts add up, none negative. */
static void test_conservation(void)
{
    static const char *const files[] = { "scenarios/plan-erlang.json",
                                         "scenarios/plan-mixed-tier.json",
                                         "scenarios/plan-service.json" };
    for (int f = 0; f < 3; f++) {
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
        long n;
        const struct gs_jobrec *rec = gs_sim_records(sim, &n);
        const struct gs_summary *su = gs_sim_summary(sim);
        const struct gs_cloudsum *cs = gs_cloud_summary(gs_sim_cloud(sim));
        CU_ASSERT_EQUAL(su->all.jobs, n);
        for (int i = 0; i < gs_sim_nservices(sim); i++) {
            const struct gs_svcsum *v = gs_sim_service(sim, i);
            CU_ASSERT_EQUAL(v->arrived, v->finished + v->dropped + v->inflight);
        }
        CU_ASSERT_EQUAL(su->all.done + su->all.killed + su->all.unfinished,
                        n);
        double gh = 0;
        for (long i = 0; i < n; i++)
            gh += rec[i].gpu_hours;
        CU_ASSERT_DOUBLE_EQUAL(gh, su->gpu_hours_used,
                               1e-4 * su->gpu_hours_used);
        CU_ASSERT(su->gpu_hours_used <= su->gpu_hours_avail + 1e-6);
        const struct gs_series *ts = &gs_sim_metrics(sim)->ts;
        for (long i = 0; i < ts->n; i++)
            CU_ASSERT_FATAL(ts->alloc[i] <= ts->gpus_up[i] + 1e-9);
        CU_ASSERT(cs->cost_jobs >= 0 && cs->cost_idle >= 0);
        CU_ASSERT_DOUBLE_EQUAL(cs->cost_jobs + cs->cost_idle,
                               su->cost, 1e-6 * su->cost + 1e-6);
        double markets = 0;
        for (int m = 0; m < 4; m++) {
            CU_ASSERT(cs->cost_market[m] >= 0);
            markets += cs->cost_market[m];
        }
        CU_ASSERT_DOUBLE_EQUAL(markets, su->cost, 1e-6 * su->cost + 1e-6);
        gs_sim_free(sim);
        gs_scenario_free(sc);
        gs_diag_free(&d);
    }
}

/* Run plan-service.json with its 20-minute runs cut to `until`, its seed
 * `seed` (0: as shipped) and the plan keys `keys` added; stdout in *out.
 * The exit status. */
static int service_seeded(const char *until, int seed, const char *keys,
                          char **out)
{
    char u[64], k[256], sd[64];
    snprintf(u, sizeof u, "\"until\": \"%s\"", until);
    snprintf(k, sizeof k, "\"seeds\": 5%s", keys);
    snprintf(sd, sizeof sd, "\"seed\": %d,", seed);
    const char *from[] = { "\"until\": \"20m\"", "\"seeds\": 5",
                           "\"seed\": 5," };
    const char *to[] = { u, k, sd };
    char *mod = file_replaced("scenarios/plan-service.json", from, to,
                              seed > 0 ? 3 : 2);
    int rc = plan_text(mod, "--no-advice", out, NULL);
    free(mod);
    return rc;
}

static int service_variant(const char *until, const char *keys, char **out)
{
    return service_seeded(until, 0, keys, out);
}

static int chosen_replicas(const char *out)
{
    const char *p = out ? strstr(out, "cheapest feasible plan: "
                                      "chat.replicas=") : NULL;
    return p ? atoi(p + strlen("cheapest feasible plan: chat.replicas="))
             : -1;
}

/* The Pareto front's row of chat.replicas=C in out, up to its candidate
 * label, into line[n]: 0, or -1 without a row. */
static int front_row(const char *out, int c, char *line, size_t n)
{
    char row[32];
    snprintf(row, sizeof row, "  chat.replicas=%d\n", c);
    const char *r = out ? strstr(out, row) : NULL;
    if (r == NULL)
        return -1;
    const char *b = r;
    while (b > out && b[-1] != '\n')
        b--;
    snprintf(line, n, "%.*s", (int)(r - b), b);
    return 0;
}

/* That row's status: 1 when a miss (infeasible, stopped early), 0
 * otherwise, -1 without a row. */
static int front_missed(const char *out, int c)
{
    char line[256];
    if (front_row(out, c, line, sizeof line) < 0)
        return -1;
    return strstr(line, "stopped early") || strstr(line, "infeasible");
}

/* That row's status: 1 when "feasible", 0 otherwise, -1 without a row. */
static int front_feasible(const char *out, int c)
{
    char line[256];
    if (front_row(out, c, line, sizeof line) < 0)
        return -1;
    return strstr(line, " feasible ") != NULL;
}

/* Precision-driven length.  plan-service's question with 20-second runs
 * (800 requests from an empty fleet) is all transient.  Independent
 * 20-minute runs (48,000 requests, 5 seeds; the serving model of issue 24
 * with host and GPU overlapping and the prefill's host cost per layer) say
 * 6 replicas miss the TTFT p95 target of 1 s by far (127 s: the replicas
 * are saturated) and 7 meet it (0.610 +- 0.020 s).  (Under the serving
 * model as first landed, with a fixed 20.6 ms prefill cost per iteration,
 * the boundary was 8 / 9 / 10.)  6 replicas saturate only once their
 * batches fill up, about a minute in (requests last 20-50 s): a 20-second
 * run's TTFT after its boot transient is flat at 0.4-1.0 s for 6 as for
 * 7, and MSER-5 finds nothing to fault.  What shows it is the drain share
 * (plansteady.c): 30-60% of the kept requests' time in the system comes
 * after the last arrival, over plan.precision (5%), so at 1x every count
 * is "transient not over at the cap" and nothing is called feasible (the
 * rule before answered 6).  With lengthening (a cap of 16x) the runs
 * double until the transient is over: 6 is a decided miss (infeasible at
 * 4x) and the answer is 7, judged at 16x, where its drain share is 2-4%
 * (measured: at the default 8x, 7 is still 5-6% and undecided, the answer
 * 8).  With a cap of 2x the transient is still not over at the cap:
 * undecided, never feasible below 7. */
static void test_lengthened_verdict(void)
{
    char *sw = NULL, *out = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", "sweep scenarios/plan-service.json "
                                     "--set 'services[0].replicas=6,7' "
                                     "--seeds 5 --csv --metrics "
                                     "service.chat.ttft_p95_s --out "
                                     "/tmp/gs-test-plan-len-sweep.h5", &sw,
                                     NULL), 0);
    for (int k = 0; k < 2; k++) {
        char key[64];
        snprintf(key, sizeof key, "%d,\"%d\",service.chat.ttft_p95_s,5,",
                 k + 1, 6 + k);
        const char *l = sw ? strstr(sw, key) : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        double mean, sd, half;
        CU_ASSERT_EQUAL(sscanf(l + strlen(key), "%lf,%lf,%lf", &mean, &sd,
                               &half), 3);
        /* the long run: 6 misses beyond its interval, 7 meets */
        CU_ASSERT(k == 0 ? mean - half > 1.0 : mean + half <= 1.0);
    }
    free(sw);
    unlink(gs_cli_tmp("/tmp/gs-test-plan-len-sweep.h5"));
    /* short runs, never lengthened: shorter than their requests'
     * sojourns, undecided at the cap, said so; never feasible below 7 */
    int rc = service_variant("20s", ", \"max_length_factor\": 1", &out);
    CU_ASSERT(rc == 0 || rc == 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "transient not over at "
                                  "the cap (runs 1x the scenario's length"));
    int got = chosen_replicas(out);
    if (got >= 0 && got < 7)
        printf("\n    20-second plan chose %d, the long runs say 7\n%s",
               got, out ? out : "");
    CU_ASSERT(got < 0 || got >= 7);
    free(out);
    out = NULL;
    /* lengthened (a cap of 16x): the long runs' answer, on longer runs,
     * 6 decided, none left undecided */
    CU_ASSERT_EQUAL(service_variant("20s", ", \"max_length_factor\": 16",
                                    &out), 0);
    got = chosen_replicas(out);
    if (got != 7)
        printf("\n    lengthened plan chose %d, the long runs say 7\n%s",
               got, out ? out : "");
    CU_ASSERT_EQUAL(got, 7);
    CU_ASSERT_PTR_NULL(strstr(out ? out : "", "transient not over"));
    CU_ASSERT_EQUAL(front_missed(out, 6), 1);
    const char *rl = strstr(out ? out : "", "steady state: runs ");
    int f = 0;
    CU_ASSERT(rl && sscanf(rl, "steady state: runs %dx", &f) == 1 &&
              f >= 2 && f <= 16);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "up to 16x the "
                                  "scenario's length"));
    free(out);
    out = NULL;
    /* the default cap (8x, 160-second runs): 6 a decided miss, never
     * feasible below 7.  7 meets by far there (TTFT p95 0.57-0.60 s a
     * seed), but four of its five seeds (5-9) keep a drain share over 5%
     * (0.050, 0.061, 0.057, 0.059, 0.068): its runs are not yet 1 /
     * plan.precision mean residual sojourns long, so it is "transient not
     * over at the cap" and the answer is 8, one above the long runs'. */
    rc = service_variant("20s", "", &out);
    CU_ASSERT_EQUAL(rc, 0);
    got = chosen_replicas(out);
    if (got < 7 || got > 8)
        printf("\n    default-cap plan chose %d, the long runs say 7\n%s",
               got, out ? out : "");
    CU_ASSERT(got == 7 || got == 8);
    CU_ASSERT_EQUAL(front_missed(out, 6), 1);
    CU_ASSERT(got == 7 ||
              strstr(out ? out : "", "chat.replicas=7  $81.92/hour  "
                     "transient not over at the cap (runs 8x") != NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "up to 8x the "
                                  "scenario's length"));
    free(out);
    out = NULL;
    /* seed 404's seeds (404-408): 8 replicas' TTFT p95 reads 0.4611 and
     * 0.4357 +- 0.0177 s at 4x and 8x, a fall beyond its interval, and
     * 10 replicas' 0.3669 and 0.3555 +- 0.0051 s: the rule before left
     * both undecided at the cap and answered 11 (7 was never tried); at
     * a cap of 16, 7 read 0.5893, 0.5849 and 0.5998 +- 0.0113 s at 4x,
     * 8x and 16x, a rise beyond its interval, and the answer was 8.
     * Judged at the cap on their moves (plansteady.c,
     * gs_plan_cap_bounded; 0.4 s and more inside the limit) 8 is met at
     * 8x and the answer is 8, with 7 undecided for its drain shares
     * (5-8%); at 16x, 7, as 32-minute runs say (0.599 s). */
    rc = service_seeded("20s", 404, "", &out);
    CU_ASSERT_EQUAL(rc, 0);
    got = chosen_replicas(out);
    if (got != 8)
        printf("\n    seed 404, default cap: chose %d, expected 8\n%s", got,
               out ? out : "");
    CU_ASSERT_EQUAL(got, 8);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "chat.replicas=7  "
                                  "$81.92/hour  transient not over at the "
                                  "cap (runs 8x"));
    free(out);
    out = NULL;
    rc = service_seeded("20s", 404, ", \"max_length_factor\": 16", &out);
    CU_ASSERT_EQUAL(rc, 0);
    got = chosen_replicas(out);
    if (got != 7)
        printf("\n    seed 404, cap 16: chose %d, the long runs say 7\n%s",
               got, out ? out : "");
    CU_ASSERT_EQUAL(got, 7);
    free(out);
    out = NULL;
    /* a cap too low: undecided, said so; never feasible below 7 */
    rc = service_variant("20s", ", \"max_length_factor\": 2", &out);
    CU_ASSERT(rc == 0 || rc == 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "transient not over at "
                                  "the cap (runs 2x"));
    got = chosen_replicas(out);
    CU_ASSERT(got < 0 || got >= 7);
    free(out);
}

/* gs_plan_whole_settled on estimates made by hand: a steady value th, a
 * limit, and whole-run estimates at 1/4, 1/2 and 1 of the longest length
 * L.  *settled, and the verdict the widened interval gives (1 met). */
static int whole_verdict(double e4, double e2, double e1, double half,
                         double limit, int upper, int *settled)
{
    static struct gs_plancfg pc;
    memset(&pc, 0, sizeof pc);
    pc.ntargets = 1;
    pc.t[0].limit = limit;
    pc.t[0].upper = upper;
    pc.indifference = 0.01;
    struct gs_plan_st st = { .target = 0, .metric = 0, .svc = -1,
                             .what = GS_PLAN_SQ_WHOLE, .p = NAN };
    struct search s = { .pc = &pc, .st = &st, .nst = 1 };
    double mean = e1, hw = half, prev = e2, pmove = e2 - e4;
    struct cand x = { .mean = &mean, .half = &hw, .prev = &prev,
                      .pmove = &pmove };
    *settled = gs_plan_whole_settled(&s, &x, 0);
    return upper ? e1 <= limit : e1 >= limit;
}

/* The whole-run rule against its theory (plansteady.c).  A run from an
 * empty fleet whose transient is over by L / 2 has e(L) = th + B / L and
 * e(L / 2) = th + 2B / L, whatever e(L / 4) was: a settled verdict is th's
 * for every B, every e(L / 4) and every limit (soundness, no noise).  In
 * the 1 / L regime (e(L / 4) = th + 4B / L) every verdict with th
 * farther from the limit than 2|B| / L and the interval is settled
 * (decisiveness; widening by the last two moves both ways, 4|B| / L, is
 * not).  A transient still building up towards the limit (moves growing
 * that way) settles nothing, one growing away from it may; one doubling
 * settles nothing; plan-service's ITL p95 at 16 replicas
 * (falls 0.0040, 0.0116, 0.0118 s: not shrinking) is met against 0.07 s,
 * as 32-minute runs say (0.0475 s), where the rule before answered
 * undecided. */
static void test_whole_rule(void)
{
    long wrong = 0, settled_n = 0, undecided_far = 0, cases = 0;
    for (int up = 0; up < 2; up++)
        for (double th = 0.5; th <= 1.5; th += 0.05)
            for (double b = -0.4; b <= 0.4; b += 0.05)
                for (double r = -1; r <= 1.001; r += 0.25) {
                    double lim = 1, hw = 0.005, L = 4;
                    double e1 = th + b / L, e2 = th + 2 * b / L;
                    double e4 = th + 4 * b * r / L;    /* B(L/4) = rB */
                    int st, v = whole_verdict(e4, e2, e1, hw, lim, up, &st);
                    int truth = up ? th <= lim : th >= lim;
                    cases++;
                    settled_n += st;
                    wrong += st && v != truth;
                    if (r == 1 && fabs(th - lim) > 2 * fabs(b) / L + hw + 1e-9)
                        undecided_far += !st;
                }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(undecided_far, 0);
    CU_ASSERT(settled_n > cases / 4);   /* not by settling nothing */
    int st;
    /* the 16-replica trajectory (1, 2, 4, 8 minutes): met */
    CU_ASSERT_EQUAL(whole_verdict(0.0797767, 0.0681337, 0.0563659, 0.000724,
                                  0.07, 1, &st), 1);
    CU_ASSERT_EQUAL(st, 1);
    /* an attainment falling faster at each doubling (a queue filling):
     * not settled, however far from the limit the interval is */
    whole_verdict(0.99, 0.985, 0.97, 0.002, 0.9, 0, &st);
    CU_ASSERT_EQUAL(st, 0);
    /* moves that change direction: up by the rise, down by the fall */
    CU_ASSERT_EQUAL(whole_verdict(0.07, 0.06, 0.065, 0.002, 0.075, 1, &st),
                    1);
    CU_ASSERT_EQUAL(st, 1);         /* 0.065 + 0.002 + 0.005 <= 0.075 */
    whole_verdict(0.07, 0.06, 0.065, 0.002, 0.07, 1, &st);
    CU_ASSERT_EQUAL(st, 0);         /* ... > 0.07 > 0.065 - 0.002 - 0.01 */
    CU_ASSERT_EQUAL(whole_verdict(0.07, 0.06, 0.065, 0.002, 0.05, 1, &st),
                    0);
    CU_ASSERT_EQUAL(st, 1);         /* 0.065 - 0.012 > 0.05: missed */
    /* a rising estimate (optimistic start) against an upper limit: the
     * rises count against it */
    whole_verdict(0.05, 0.06, 0.065, 0.001, 0.075, 1, &st);
    CU_ASSERT_EQUAL(st, 0);         /* 0.065 + 0.001 + 0.015 > 0.075 */
    /* one doubling (no move before): not settled */
    whole_verdict(NAN, 0.06, 0.05, 0.001, 0.1, 1, &st);
    CU_ASSERT_EQUAL(st, 0);
    /* falls growing away from an upper limit (a pessimistic start still
     * clearing): met.  14 replicas at 40 requests/s, seeds 101-105, 2, 4
     * and 8 minutes; the rule before asked every last change to be no
     * larger than the one before, and left it undecided */
    CU_ASSERT_EQUAL(whole_verdict(0.0815312, 0.0745635, 0.0661496, 0.000221,
                                  0.07, 1, &st), 1);
    CU_ASSERT_EQUAL(st, 1);
    /* the same falls towards a limit below: a transient still growing
     * that way bounds nothing: no miss (widened, 0.0505 > 0.05) */
    whole_verdict(0.0815312, 0.0745635, 0.0661496, 0.000221, 0.05, 1, &st);
    CU_ASSERT_EQUAL(st, 0);
    /* and mirrored for a lower limit: rises growing away from it, met;
     * towards it, not settled */
    CU_ASSERT_EQUAL(whole_verdict(0.90, 0.91, 0.935, 0.002, 0.9, 0, &st), 1);
    CU_ASSERT_EQUAL(st, 1);
    whole_verdict(0.90, 0.91, 0.935, 0.002, 0.98, 0, &st);
    CU_ASSERT_EQUAL(st, 0);
}

/* gs_plan_cap_bounded on estimates made by hand, as whole_verdict: a
 * TTFT percentile target (its warm-up deleted) at 1/4, 1/2 and 1 of the
 * longest length, seed 0's drain share `drain` and warm-up `warm` (< 0:
 * MSER-5 at its limit).  *bounded, and the verdict the estimate gives. */
static int cap_verdict(double e4, double e2, double e1, double half,
                       double limit, int upper, double drain, double warm,
                       int *bounded)
{
    static struct gs_plancfg pc;
    memset(&pc, 0, sizeof pc);
    pc.ntargets = 1;
    pc.t[0].limit = limit;
    pc.t[0].upper = upper;
    pc.indifference = 0.01;
    pc.precision = 0.05;
    struct gs_plan_st st = { .target = 0, .metric = 0, .svc = 0,
                             .what = GS_PLAN_SQ_TTFT, .p = 0.95 };
    struct search s = { .pc = &pc, .st = &st, .nst = 1 };
    double mean = e1, hw = half, prev = e2, pmove = e2 - e4;
    double dr[2] = { drain, 0.01 }, wm[2] = { warm, 100 };
    struct cand x = { .mean = &mean, .half = &hw, .prev = &prev,
                      .pmove = &pmove, .drain = dr, .warm = wm, .nrun = 2 };
    *bounded = gs_plan_cap_bounded(&s, &x, 0);
    return upper ? e1 <= limit : e1 >= limit;
}

/* The rule at the cap for a request target (plansteady.c,
 * gs_plan_cap_bounded): an estimate that moved by more than its interval
 * at the last doubling is judged on its interval widened by its last two
 * moves, as a whole-run one is.  Sound on the whole-run rule's grid of
 * transients over by L / 2 (no bounded verdict wrong).  plan-service's 8
 * replicas under llmops-wip's A100 refit (TTFT p95 0.4551, 0.4382, 0.4245
 * +- 0.0089 s at 4x, 8x, 16x; 32-minute runs 0.4265 s) are met against
 * 1 s, where the rule before left them undecided and the plan answered
 * 9; not against 0.43 (the widened interval straddles it).  A seed's
 * drain share over plan.precision or MSER-5 at its limit still vetoes;
 * so do rises growing towards the limit and a single doubling. */
static void test_cap_rule(void)
{
    long wrong = 0, bounded_n = 0, cases = 0;
    for (int up = 0; up < 2; up++)
        for (double th = 0.5; th <= 1.5; th += 0.05)
            for (double b = -0.4; b <= 0.4; b += 0.05)
                for (double r = -1; r <= 1.001; r += 0.25) {
                    double lim = 1, hw = 0.005, L = 4;
                    double e1 = th + b / L, e2 = th + 2 * b / L;
                    double e4 = th + 4 * b * r / L;
                    int bd, v = cap_verdict(e4, e2, e1, hw, lim, up, 0.01,
                                            100, &bd);
                    int truth = up ? th <= lim : th >= lim;
                    cases++;
                    bounded_n += bd;
                    wrong += bd && v != truth;
                }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT(bounded_n > cases / 4);
    int bd;
    CU_ASSERT_EQUAL(cap_verdict(0.4551, 0.4382, 0.4245, 0.0089, 1, 1, 0.03,
                                330, &bd), 1);
    CU_ASSERT_EQUAL(bd, 1);
    cap_verdict(0.4551, 0.4382, 0.4245, 0.0089, 0.43, 1, 0.03, 330, &bd);
    CU_ASSERT_EQUAL(bd, 0);         /* 0.4245 - 0.0395 < 0.43 < 0.4334 */
    /* a drain share over 5% on one seed, MSER-5 at its limit: vetoes */
    cap_verdict(0.4551, 0.4382, 0.4245, 0.0089, 1, 1, 0.051, 330, &bd);
    CU_ASSERT_EQUAL(bd, 0);
    cap_verdict(0.4551, 0.4382, 0.4245, 0.0089, 1, 1, 0.03, -331, &bd);
    CU_ASSERT_EQUAL(bd, 0);
    /* rises growing towards the limit (a queue filling): 0.10 > 0.05 +
     * 0.01 */
    cap_verdict(0.40, 0.45, 0.55, 0.005, 1, 1, 0.03, 330, &bd);
    CU_ASSERT_EQUAL(bd, 0);
    /* one doubling: nothing to bound it with */
    cap_verdict(NAN, 0.45, 0.42, 0.005, 1, 1, 0.03, 330, &bd);
    CU_ASSERT_EQUAL(bd, 0);
}

/* Lengthening on a target estimated over the whole run: plan-service with
 * an ITL p95 target of 100 ms and 1-minute runs, searching 12..16
 * replicas.  ITL is token-weighted over iterations, with no per-request
 * series to truncate, and the first minute is pessimistic (requests queue
 * while the replicas start).  Independent 20-minute runs (5 seeds; the
 * serving model of issue 24 with host and GPU overlapping and the
 * prefill's host cost per layer) read 10 replicas 0.1024 +- 0.0035 s (a
 * miss), 11 0.0864 +- 0.0004, 12 0.0764 +- 0.0005 and 13 0.0673 +- 0.0005
 * (under the serving model as first landed 12 read 0.1091, 13 0.0934).
 * With lengthening (the default cap, 8x) a whole-run verdict stands when
 * the interval widened by the last two moves lies on one side
 * (plansteady.c, gs_plan_whole_settled), so it needs two doublings (4x at
 * least), and a count the long runs say meets is never infeasible, one
 * they say misses never feasible.  Measured (the range widened down to
 * 6..11): 12 and 11 met at 4x (11: 0.0940 +- 0.0031 s), 10
 * undecided at 8x, 8 a miss at 8x: the answer 11.  The first rule over
 * moves (the last move alone, and only when smaller than the one before)
 * left 16 undecided and answered infeasible.  On the 1-minute runs alone (max_length_factor 1)
 * the whole-run estimate is pessimistic: measured, 13 undecided and the
 * answer 14 (under the serving model as first landed every count
 * missed); never a count the long runs say misses. */
static void test_lengthened_itl(void)
{
    const char *from[] = { "\"until\": \"20m\"", "\"ttft_p95\": \"1s\"",
                           "\"replicas\": [1, 16]", "\"min_seeds\": 3" };
    const char *to[2][4] = {
        { "\"until\": \"1m\"", "\"itl_p95\": \"100ms\"",
          "\"replicas\": [12, 16]", "\"min_seeds\": 3" },
        { "\"until\": \"1m\"", "\"itl_p95\": \"100ms\"",
          "\"replicas\": [12, 16]",
          "\"min_seeds\": 3, \"max_length_factor\": 1" } };
    for (int v = 0; v < 2; v++) {
        char *mod = file_replaced("scenarios/plan-service.json", from, to[v],
                                  4);
        CU_ASSERT_PTR_NOT_NULL_FATAL(mod);
        char *out = NULL;
        int rc = plan_text(mod, "--no-advice", &out, NULL);
        free(mod);
        int got = chosen_replicas(out);
        if (v == 0) {
            /* decided: a count the long runs say meets */
            CU_ASSERT_EQUAL(rc, 0);
            if (got < 11 || got > 16)
                printf("\n    lengthened ITL plan chose %d, the long runs "
                       "say 11 to 16 meet\n%s", got, out ? out : "");
            CU_ASSERT(got >= 11 && got <= 16);
            /* judged after two doublings at least, up to the cap */
            const char *rl = strstr(out ? out : "", "steady state: runs ");
            int f = 0;
            CU_ASSERT(rl && sscanf(rl, "steady state: runs %dx", &f) == 1 &&
                      f >= 4 && f <= 8);
            CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "x the scenario's "
                                          "length, estimated over the whole "
                                          "run"));
            /* the Pareto front's rows: 11 to 16 never a miss, 10 never
             * feasible (above) */
            for (int c = 11; c <= 16; c++)
                CU_ASSERT(front_missed(out, c) != 1);
            CU_ASSERT(front_feasible(out, 10) != 1);
        } else {
            /* pessimistic, never optimistic: no answer below 11 */
            CU_ASSERT(rc == 0 || rc == 3);
            CU_ASSERT(got < 0 || got >= 11);
            CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "runs 1x the "
                                          "scenario's length"));
        }
        free(out);
    }
    if (!gs_test_long())
        return;
    /* make test-long: the 20-minute runs the comment above quotes */
    char *sw = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", "sweep scenarios/plan-service.json "
                                     "--set 'services[0].replicas=10,11,12' "
                                     "--seeds 5 --csv --metrics "
                                     "service.chat.itl_p95_s --out "
                                     "/tmp/gs-test-plan-itl-sweep.h5", &sw,
                                     NULL), 0);
    for (int k = 0; k < 3; k++) {
        char key[64];
        snprintf(key, sizeof key, "%d,\"%d\",service.chat.itl_p95_s,5,",
                 k + 1, 10 + k);
        const char *l = sw ? strstr(sw, key) : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        double mean, sd, half;
        CU_ASSERT_EQUAL(sscanf(l + strlen(key), "%lf,%lf,%lf", &mean, &sd,
                               &half), 3);
        CU_ASSERT(k == 0 ? mean > 0.1 : mean + half <= 0.1);
    }
    free(sw);
    unlink(gs_cli_tmp("/tmp/gs-test-plan-itl-sweep.h5"));
}

/* The cost floor the search prunes by (gs_plan_cost_floor) is at most
 * what a run is billed per hour: exactly the bill for a fixed on-demand
 * fleet without a cloud model (plan-erlang: 16 nodes x $5.12) and for the
 * mixed-tier fleet (on-demand pools, a spot-free base), and below it
 * where a reserved pool with a spare, failures, autoscaled and spot pools
 * and a price file are billed (cloud-mixed.json: the floor is the
 * reserved pool's 3 nodes alone). */
static void test_cost_floor(void)
{
    static const struct {
        const char *file;
        double floor;               /* the floor by hand, $/hour */
        int exact;                  /* the bill is the floor */
    } cases[] = {
        { "scenarios/plan-erlang.json", 16 * 5.12, 1 },
        { "scenarios/plan-mixed-tier.json",
          8 * 8 * 6.88 + 8 * 8 * 5.12 + 4 * 8 * 7.91, 1 },
        { "scenarios/cloud-mixed.json", -1, 0 },
    };
    for (size_t f = 0; f < sizeof cases / sizeof cases[0]; f++) {
        struct gs_scenario *sc = NULL;
        struct gs_sim *sim = NULL;
        struct gs_diag d = { 0 };
        CU_ASSERT_EQUAL_FATAL(gs_scenario_load(cases[f].file, &sc, &d), 0);
        double floor = gs_plan_cost_floor(sc);
        /* cloud-mixed: its reserved pool's 3 nodes, and no more */
        double want = cases[f].floor >= 0 ? cases[f].floor
                                          : 3 * sc->pools[0].price_hour;
        CU_ASSERT_DOUBLE_EQUAL(floor, want, 1e-9 * want);
        CU_ASSERT(floor > 0);
        for (uint64_t seed = 1; seed <= 2; seed++) {
            struct gs_sim_opts o = { .seed = seed, .set_seed = 1 };
            CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, &o, &sim, &d), 0);
            CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
            const struct gs_summary *su = gs_sim_summary(sim);
            double rate = su->cost / su->span_h;
            CU_ASSERT(rate >= floor * (1 - 1e-9));
            /* exact where fixed; well above where it is only a floor */
            CU_ASSERT(cases[f].exact ? fabs(rate - floor) <= 1e-6 * floor
                                     : rate > 1.2 * floor);
            gs_sim_free(sim);
        }
        gs_scenario_free(sc);
        gs_diag_free(&d);
    }
}

/* Pruning by cost never hides the answer.  An M/M/c queue (8 jobs/hour
 * of one hour, mean wait at most 3.5 minutes: Erlang C says 12 servers)
 * served by two pools of the same single-GPU nodes at different prices,
 * a at $5.12 and b at $3.00 per hour, a in 0..16 by 4 and b in 1..24:
 * every combination with a + b >= 12 is feasible, and the cheapest is
 * a = 0, b = 12 ($36/hour).  The pruned search and --exhaustive (every
 * combination bisected over its whole range) give the same answer,
 * Erlang C's, the pruned one with fewer runs (37 and 127 when written).
 * Then b as a spot pool (0.02 reclaims per node-hour, the jobs restart
 * from 30-minute checkpoints): its cost floor is 0, so the search caps
 * its probes by the bill its runs showed; the same answer both ways
 * again (43 runs and 127).  Runs of 3,000 jobs in make test, 6,000 in
 * make test-long: the same answers and run counts at both lengths. */
static const char two_pool_scenario[] =
"{\"name\": \"plan-two-pools\", \"seed\": 5, \"question\": \"finite\","
" \"fleet\": [{\"name\": \"a\", \"gpu\": \"A100-80GB\", \"nodes\": 1,"
"   \"gpus_per_node\": 1, \"price_per_gpu_hour\": 5.12},"
"  {\"name\": \"b\", \"gpu\": \"A100-80GB\", \"nodes\": 1,"
"   \"gpus_per_node\": 1, \"price_per_gpu_hour\": 3%s}],%s"
" \"policy\": \"fifo\", \"placement\": \"first-fit\","
" \"workload\": {\"generate\": {\"jobs\": %d, \"rate_per_hour\": 8,"
"   \"reference_gpu\": \"A100-80GB\", \"classes\": [{\"name\": \"j\","
"   \"tier\": \"training\", \"weight\": 1, \"tenants\": 1, \"gpus\": 1,"
"   %s\"duration\": {\"dist\": \"exponential\", \"mean\": \"1h\"}}]}},"
" \"plan\": {\"targets\": {\"wait_mean\": \"3.5m\"},"
"   \"search\": {\"pools\": [{\"pool\": \"a\", \"nodes\": [0, 16], \"step\": 4},"
"     {\"pool\": \"b\", \"nodes\": [1, 24]}]},"
"   \"seeds\": 5, \"min_seeds\": 3}}\n";

/* "N runs" of the plan's header line, or -1. */
static long plan_runs(const char *out)
{
    const char *p = out ? strstr(out, " candidates, ") : NULL;
    return p ? strtol(p + strlen(" candidates, "), NULL, 10) : -1;
}

/* The two-pool question (b on spot when spot), pruned and --exhaustive. */
static void two_pools(int spot)
{
    char *text = NULL;
    CU_ASSERT_FATAL(asprintf(&text, two_pool_scenario,
                             spot ? ", \"market\": \"spot\", \"spot\": "
                                    "{\"interruptions_per_hour\": 0.02}" : "",
                             spot ? " \"spot\": {\"tiers\": [\"training\"], "
                                    "\"notice\": \"2m\"}," : "",
                             gs_test_long() ? 6000 : 3000,
                             spot ? "\"checkpoint_interval\": \"30m\", "
                                  : "") > 0);
    char *out[2] = { NULL, NULL };
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(plan_text(text, k ? "--no-advice --exhaustive"
                                        : "--no-advice", &out[k], NULL), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out[k]);
    }
    free(text);
    const char *want = "cheapest feasible plan: a.nodes=0 b.nodes=12\n"
                       "  cost: $36.00 per hour";
    for (int k = 0; k < 2; k++)
        if (strncmp(out[k], want, strlen(want)) != 0)
            printf("\n    %s:\n%s", k ? "exhaustive" : "pruned", out[k]);
    CU_ASSERT_NSTRING_EQUAL(out[0], want, strlen(want));
    CU_ASSERT_NSTRING_EQUAL(out[1], want, strlen(want));
    /* the answer's own lines (cost, fleet, targets) are the same bytes */
    const char *e0 = strstr(out[0], "\n\n"), *e1 = strstr(out[1], "\n\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e1);
    CU_ASSERT_EQUAL(e0 - out[0], e1 - out[1]);
    CU_ASSERT_NSTRING_EQUAL(out[0], out[1], (size_t)(e0 - out[0]));
    long r0 = plan_runs(out[0]), r1 = plan_runs(out[1]);
    CU_ASSERT(r0 > 0 && r1 > 0);
    CU_ASSERT(2 * r0 < r1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out[1], "--exhaustive: nothing pruned"));
    CU_ASSERT_PTR_NULL(strstr(out[0], "--exhaustive"));
    free(out[0]);
    free(out[1]);
}

static void test_pruned_is_exhaustive(void)
{
    two_pools(0);
    two_pools(1);
}

/* "K run ahead on idle workers" of the plan's stderr line, or -1. */
static long runs_ahead(const char *err)
{
    const char *p = err ? strstr(err, "simulated (and ") : NULL;
    return p ? strtol(p + strlen("simulated (and "), NULL, 10) : -1;
}

/* Runs ahead of need (plansearch.c, run_ahead): a round whose runs leave
 * workers idle at its end fills them with the next seeds the rules may
 * ask for, and a result is read only when they do.  The two-pool
 * question (finite horizon, five combinations, straddling intervals, so
 * deferred seeds too) on 1 worker (nothing run ahead) and on 3 (rounds
 * filled to a multiple of 3): the same answer, the same run count, the
 * same bytes on stdout and in the result file, and runs were made ahead
 * on 3 workers -- a wrong seed read, or a verdict taken on a seed run
 * ahead, would move the intervals printed. */
static void test_run_ahead(void)
{
    char *text = NULL, scen[96], h5[2][96], cmd[512];
    CU_ASSERT_FATAL(asprintf(&text, two_pool_scenario, "", "", 3000, "") >
                    0);
    snprintf(scen, sizeof scen, "/tmp/gs-test-plan-ahead-%ld.json",
             (long)getpid());
    CU_ASSERT_EQUAL_FATAL(write_file(scen, text), 0);
    free(text);
    char *out[2] = { NULL, NULL }, *err[2] = { NULL, NULL };
    static const char *const jobs[2] = { "1", "3" };
    for (int k = 0; k < 2; k++) {
        snprintf(h5[k], sizeof h5[k], "/tmp/gs-test-plan-ahead-%ld-%d.h5",
                 (long)getpid(), k);
        snprintf(cmd, sizeof cmd, "plan %s --no-plots --no-advice --jobs %s "
                 "--out %s", scen, jobs[k], h5[k]);
        CU_ASSERT_EQUAL(gs_cli_run("", cmd, &out[k], &err[k]), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out[k]);
    }
    const char *want = "cheapest feasible plan: a.nodes=0 b.nodes=12\n";
    CU_ASSERT_NSTRING_EQUAL(out[0], want, strlen(want));
    CU_ASSERT_STRING_EQUAL(out[0], out[1]);
    CU_ASSERT(gs_cli_same_file(h5[0], h5[1]));
    CU_ASSERT_EQUAL(runs_ahead(err[0]), 0);
    CU_ASSERT(runs_ahead(err[1]) > 0);
    if (runs_ahead(err[1]) <= 0)
        printf("\n    --jobs 3: %s", err[1] ? err[1] : "(no stderr)");
    for (int k = 0; k < 2; k++) {
        free(out[k]);
        free(err[k]);
        unlink(gs_cli_tmp(h5[k]));
    }
    unlink(gs_cli_tmp(scen));
}

/* The planner's steady-state percentile is the quantile of every seed's
 * retained waits pooled, with the sectioning interval over the seeds.
 * M/M/12 at 8 jobs an hour of one hour each: the waiting time's p99 is
 * exactly ln(C / 0.01) / (c mu - lambda) = 2374.1 s.  On a set of
 * seeds (three sets in make test-long), the plan's interval for 12 nodes
 * holds it, and its estimate is what pooling gives when done here from
 * the runs themselves (the same seeds; MSER-5 deleting each run's
 * warm-up; GSL's quantile of all the rest), not the mean of the seeds'
 * own p99s. */
static const char p99_scenario[] =
"{\"name\": \"plan-p99\", \"seed\": %d,"
" \"fleet\": [{\"name\": \"gpu\", \"gpu\": \"A100-80GB\", \"nodes\": 12,"
"   \"gpus_per_node\": 1}],"
" \"policy\": \"fifo\", \"placement\": \"first-fit\","
" \"workload\": {\"generate\": {\"jobs\": 20000, \"rate_per_hour\": 8,"
"   \"reference_gpu\": \"A100-80GB\", \"classes\": [{\"name\": \"j\","
"   \"tier\": \"training\", \"weight\": 1, \"tenants\": 1, \"gpus\": 1,"
"   \"duration\": {\"dist\": \"exponential\", \"mean\": \"1h\"}}]}},"
" \"plan\": {\"targets\": {\"wait_p99\": \"1h\"},"
"   \"search\": {\"pools\": [{\"pool\": \"gpu\", \"nodes\": [11, 12]}]},"
"   \"seeds\": 5, \"max_length_factor\": 1}}\n";

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Pool seeds seed0 .. seed0 + nseeds - 1 of scenario file path by hand:
 * *pooled the p99 of all retained waits, *mean the mean of each seed's. */
static void pool_by_hand(const char *path, int nseeds, double *pooled,
                         double *mean)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load(path, &sc, &d), 0);
    double *all = NULL;
    long nall = 0;
    *mean = 0;
    for (int k = 0; k < nseeds; k++) {
        struct gs_sim_opts o = { .seed = sc->seed + (uint64_t)k,
                                 .set_seed = 1 };
        struct gs_sim *sim = NULL;
        CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, &o, &sim, &d), 0);
        CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
        long n, m = 0, w = 0;
        const struct gs_jobrec *r = gs_sim_records(sim, &n);
        double *x = malloc((size_t)n * sizeof *x);
        for (long j = 0; j < n; j++)
            if (r[j].start >= 0)
                x[m++] = (double)(r[j].start - r[j].arrival) / 1000.0;
        CU_ASSERT_EQUAL(gs_mser5(x, m, &w, NULL), 0);
        all = realloc(all, (size_t)(nall + m - w) * sizeof *all);
        memcpy(all + nall, x + w, (size_t)(m - w) * sizeof *all);
        nall += m - w;
        qsort(x + w, (size_t)(m - w), sizeof *x, dcmp);
        *mean += gsl_stats_quantile_from_sorted_data(x + w, 1,
                                                     (size_t)(m - w), 0.99);
        free(x);
        gs_sim_free(sim);
    }
    *mean /= nseeds;
    qsort(all, (size_t)nall, sizeof *all, dcmp);
    *pooled = gsl_stats_quantile_from_sorted_data(all, 1, (size_t)nall, 0.99);
    free(all);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

static void test_mmc_pooled_p99(void)
{
    const double lambda = 8, mu = 1;
    double C = wq_mean(12, lambda, mu) * (12 * mu - lambda);
    double w99 = log(C / 0.01) / (12 * mu - lambda) * 3600;
    CU_ASSERT_DOUBLE_EQUAL(w99, 2374.1, 0.1);
    static const int seeds[] = { 1, 101, 201 };
    for (int i = 0; i < (gs_test_long() ? 3 : 1); i++) {
        const char *path = "/tmp/gs-test-plan-p99.json";
        char *text = NULL, *out = NULL;
        CU_ASSERT_FATAL(asprintf(&text, p99_scenario, seeds[i]) > 0);
        CU_ASSERT_EQUAL(plan_text(text, "--no-advice", &out, NULL), 0);
        CU_ASSERT_EQUAL(write_file(path, text), 0);   /* pool_by_hand's */
        free(text);
        CU_ASSERT_EQUAL(chosen_nodes(out), 12);
        const char *t = out ? strstr(out, "targets (95% interval over ") : NULL;
        const char *w = out ? strstr(out, "wait_p99_s ") : NULL;
        double limit = 0, est = NAN, half = NAN, pooled, mean;
        int ns = 0;
        CU_ASSERT(t && sscanf(t, "targets (95%% interval over %d", &ns) == 1);
        CU_ASSERT(w && sscanf(w, "wait_p99_s <= %lf %lf ± %lf", &limit,
                              &est, &half) == 3);
        CU_ASSERT(fabs(est - w99) <= half);
        pool_by_hand(gs_cli_tmp(path), ns, &pooled, &mean);
        printf("\n    seed %d, %d seeds: plan %.6g ± %.3g; pooled by hand "
               "%.6g, mean of p99s %.6g; exact %.1f", seeds[i], ns, est,
               half, pooled, mean, w99);
        CU_ASSERT_DOUBLE_EQUAL(est, pooled, 1e-5 * pooled);
        CU_ASSERT(fabs(mean - pooled) > 1e-4 * pooled);
        free(out);
        unlink(gs_cli_tmp(path));
    }
}

/* A fleet that serves none of a service's requests has no latency to
 * meet a target with.  One A100 node with half of it on spot rounds to a
 * lone spot node, where the inference tier may not run: the replica is
 * never placed, and the summary's TTFT p99 over no request reads 0.  The
 * planner reads such a service's latencies as +inf (every request's lies
 * beyond the run), so 1 node stops early as a miss and the answer is 2
 * (one on demand, one spot).  Before, 1 node was "feasible" with TTFT 0,
 * sat on the bottom of its range, and widening it to 0 nodes ended the
 * plan with an input error (exit 2). */
static void test_unserved_service(void)
{
    static const char scenario[] =
        "{\"name\": \"unserved\", \"seed\": 3, \"question\": \"finite\",\n"
        " \"fleet\": [{\"name\": \"a100\", \"gpu\": \"A100-80GB\", "
        "\"nodes\": 2, \"gpus_per_node\": 8, \"price_per_gpu_hour\": 5.12}],\n"
        " \"spot\": {\"tiers\": [\"training\"], \"notice\": \"2m\"},\n"
        " \"services\": [{\"name\": \"chat\", \"tier\": \"inference\", "
        "\"model\": \"llama3-8b\", \"tp\": 1, \"gpu\": \"A100-80GB\", "
        "\"replicas\": 1, \"requests\": {\"generate\": {\"rate_per_second\": "
        "2, \"until\": \"1m\", \"input_tokens\": {\"dist\": \"lognormal\", "
        "\"median\": 400, \"sigma\": 0.5, \"max\": 2000}, \"output_tokens\": "
        "{\"dist\": \"lognormal\", \"median\": 50, \"sigma\": 0.5, \"max\": "
        "200}}}}],\n"
        " \"plan\": {\"targets\": {\"services\": {\"chat\": {\"ttft_p99\": "
        "\"10s\"}}}, \"search\": {\"pools\": [{\"pool\": \"a100\", \"nodes\": "
        "[1, 3], \"cap\": 3, \"spot_share\": [0.5], \"spot\": "
        "{\"interruptions_per_hour\": 0.05}}]}, \"seeds\": 3, \"min_seeds\": "
        "2}}\n";
    char path[128], args[512];
    char *out = NULL;
    snprintf(path, sizeof path, "/tmp/gs-test-plan-unserved-%ld.json",
             (long)getpid());
    CU_ASSERT_EQUAL_FATAL(write_file(path, scenario), 0);
    snprintf(args, sizeof args, "plan %s --no-plots --no-advice --out "
             "/tmp/gs-test-plan-unserved-%ld.h5", path, (long)getpid());
    CU_ASSERT_EQUAL(gs_cli_run("", args, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "cheapest feasible plan: "
                                              "a100.spot_share=0.5 "
                                              "a100.nodes=2\n"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "stopped early   "
                                              "a100.spot_share=0.5 "
                                              "a100.nodes=1\n"));
    free(out);
    unlink(gs_cli_tmp(path));
    snprintf(path, sizeof path, "/tmp/gs-test-plan-unserved-%ld.h5",
             (long)getpid());
    unlink(gs_cli_tmp(path));
}

static CU_TestInfo tests[] = {
    { "shipped plan scenarios: conservation", test_conservation },
    { "Erlang C formula on hand-worked cases", test_erlang_formula },
    { "cost floor: at most every run's bill, the bill when fixed",
      test_cost_floor },
    { "two pools, M/M/c: pruned search = --exhaustive = Erlang C",
      test_pruned_is_exhaustive },
    { "M/M/c mean wait: the smallest c Erlang C allows", test_mmc_mean_wait },
    { "M/M/c wait p95: the smallest c Erlang C allows", test_mmc_wait_p95 },
    { "M/M/c wait p99: pooled over seeds, exact law inside",
      test_mmc_pooled_p99 },
    { "M/M/c, range below the answer: widened to Erlang C's c",
      test_mmc_widened },
    { "M/M/c, target on the true value: indifference zone, cap",
      test_indifference_and_cap },
    { "infeasible question: said so, closest candidate", test_infeasible },
    { "service replicas: TTFT p95 met at R, missed at R - 1",
      test_service_replicas },
    { "whole-run rule: sound past the transient, decisive at 1 / L",
      test_whole_rule },
    { "request target at the cap: an estimate still moving, bounded",
      test_cap_rule },
    { "ITL target, whole-run estimate: lengthened, misses confirmed",
      test_lengthened_itl },
    { "all-transient short runs: lengthened to the long run's verdict",
      test_lengthened_verdict },
    { "same seeds, any --jobs, mpirun -np 2: same bytes",
      test_deterministic_and_mpi },
    { "runs ahead on idle workers: --jobs 1 and 3, same bytes",
      test_run_ahead },
    { "bad plan sections: the JSON path, exit 2, no file", test_bad_plans },
    { "400-character keys: named whole, exit 2, no file", test_long_keys },
    { "service plan: front attainment, load growth, right-sizing",
      test_service_growth_front },
    { "a service served no request: its latency misses, not 0",
      test_unserved_service },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("plan", tests)
