/* test_policies.c -- fair, hps, rl-lite and its training, the plug-in
 * loader, and compare's confidence interval, on scripted cases worked by
 * hand.  Times in the traces are seconds; records hold milliseconds. */
#include "cutest.h"
#include "simutil.h"
#include "../sim/studies/compare.h"
#include "../sim/io/h5in.h"
#include "../sim/io/h5out.h"
#include "../sim/io/jsonio.h"
#include "../sim/studies/plugin.h"
#include "../policies/rllite.h"

#include <math.h>
#include <sys/wait.h>

#define S 1000

/* --- fair ---------------------------------------------------------------- */

/* One pool of `nodes` 8-GPU nodes, tenants A (quota qa) and B (quota qb). */
static void fair_run(struct run *r, int nodes, double qa, double qb,
                     const char *csv)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"name\": \"t\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": %d, \"gpus_per_node\": 8}],"
             " \"tenants\": [{\"name\": \"A\", \"quota_gpus\": %g},"
             " {\"name\": \"B\", \"quota_gpus\": %g}],"
             " \"policy\": \"fair\","
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%%s\"}}}", nodes, qa, qb);
    run_text(r, json, csv);
    CU_ASSERT_EQUAL_FATAL(r->rc, 0);
}

/* GPUs of the jobs preempted at least once. */
static double preempted_gpus(const struct run *r)
{
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r->sim, &n);
    double g = 0;
    for (long i = 0; i < n; i++)
        if (gs_sim_record_preemptions(r->sim, i) > 0)
            g += rec[i].gpus;
    return g;
}

/* B borrows the whole idle node (8 x 1 GPU); at 10 s A, whose quota is 4,
 * asks for 3 GPUs: exactly 3 of B's jobs are preempted and A starts at
 * once.  With 2-GPU and 1-GPU borrowers, a 3-GPU deficit takes one of each
 * (largest not above the deficit, then what covers the rest): 3 GPUs. */
static void test_fair_reclaim_exact(void)
{
    struct run r;
    fair_run(&r, 1, 4, 0,
             "id,arrival,gpus,duration,tenant,tier\n"
             "1,0,1,1000,B,training\n2,0,1,1000,B,training\n"
             "3,0,1,1000,B,training\n4,0,1,1000,B,training\n"
             "5,0,1,1000,B,training\n6,0,1,1000,B,training\n"
             "7,0,1,1000,B,training\n8,0,1,1000,B,training\n"
             "9,10,3,100,A,training\n");
    CU_ASSERT_EQUAL(rec_of(&r, 9)->start, 10 * S);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->preemptions, 3);
    CU_ASSERT_DOUBLE_EQUAL(preempted_gpus(&r), 3, 1e-9);
    run_free(&r);

    fair_run(&r, 1, 4, 0,
             "id,arrival,gpus,duration,tenant,tier\n"
             "1,0,2,1000,B,training\n2,0,2,1000,B,training\n"
             "3,0,1,1000,B,training\n4,0,1,1000,B,training\n"
             "5,0,1,1000,B,training\n6,0,1,1000,B,training\n"
             "7,10,3,100,A,training\n");
    CU_ASSERT_EQUAL(rec_of(&r, 7)->start, 10 * S);
    CU_ASSERT_DOUBLE_EQUAL(preempted_gpus(&r), 3, 1e-9);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->preemptions, 2);
    run_free(&r);

    /* B's quota is 6 and it holds 8: only its 2 borrowed GPUs can go, so A
     * (quota 2) gets exactly 2 and B keeps its guarantee. */
    fair_run(&r, 1, 2, 6,
             "id,arrival,gpus,duration,tenant,tier\n"
             "1,0,1,1000,B,training\n2,0,1,1000,B,training\n"
             "3,0,1,1000,B,training\n4,0,1,1000,B,training\n"
             "5,0,1,1000,B,training\n6,0,1,1000,B,training\n"
             "7,0,1,1000,B,training\n8,0,1,1000,B,training\n"
             "9,10,2,100,A,training\n10,20,1,100,A,training\n");
    CU_ASSERT_EQUAL(rec_of(&r, 9)->start, 10 * S);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->preemptions, 2);
    /* A's third GPU is beyond its quota: it borrows nothing (the fleet is
     * full) and waits for A's own job to end at 110 s. */
    CU_ASSERT_EQUAL(rec_of(&r, 10)->start, 110 * S);
    run_free(&r);
}

/* Idle capacity is lent: B (quota 0) runs on an empty fleet at once; the
 * borrowers preempted at 100 s restart when A's job ends, from their last
 * checkpoint (none: from scratch). */
static void test_fair_borrow(void)
{
    struct run r;
    fair_run(&r, 1, 8, 0,
             "id,arrival,gpus,duration,tenant,tier\n"
             "1,0,4,500,B,training\n2,0,4,500,B,training\n"
             "3,100,8,50,A,training\n");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->start, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->start, 100 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->end, 150 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 650 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 650 * S);
    run_free(&r);
}

/* Inference is strict and non-preemptible: it may not borrow capacity that
 * a quota guarantees (it could never be given back), only the capacity no
 * tenant is guaranteed. */
static void test_fair_inference_strict(void)
{
    struct run r;
    fair_run(&r, 1, 8, 0,
             "id,arrival,gpus,duration,tenant,tier\n"
             "1,0,1,100,B,inference\n2,0,1,100,A,training\n");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->start, -1);     /* never: all owned */
    CU_ASSERT_EQUAL(rec_of(&r, 2)->start, 0);
    run_free(&r);
    fair_run(&r, 1, 6, 0,
             "id,arrival,gpus,duration,tenant,tier\n"
             "1,0,2,100,B,inference\n2,0,1,100,B,inference\n");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->start, 0);      /* the 2 unowned GPUs */
    CU_ASSERT_EQUAL(rec_of(&r, 2)->start, 100 * S);    /* when they free */
    run_free(&r);
}

/* The guarantee, checked after every scheduling pass of a busy run: no
 * tenant is left with a pending 1-GPU job while it holds less than its
 * quota minus that GPU.  A wrapper policy runs fair's schedule and then
 * looks. */
static const struct gs_policy_ops *fair_ops;
static long g_violations, g_checked;

static void checked_schedule(void *st, struct gs_sim *sim)
{
    fair_ops->schedule(st, sim);
    double held[8] = { 0 };
    int want[8] = { 0 };
    long nrun;
    struct gs_job *const *run = gs_sim_running(sim, &nrun);
    for (long i = 0; i < nrun; i++)
        if (run[i]->tenant < 8)
            held[run[i]->tenant] += run[i]->need.gpus;
    for (struct gs_job *j = gs_sim_pending_head(sim); j; j = j->next)
        if (j->tenant < 8)
            want[j->tenant] = 1;
    for (int t = 0; t < gs_sim_ntenants(sim) && t < 8; t++) {
        const struct gs_tenant *tc = gs_sim_tenant(sim, t);
        if (!want[t] || tc == NULL)
            continue;
        g_checked++;
        if (held[t] + 1 <= tc->quota_gpus + 1e-9)
            g_violations++;
    }
}

static void test_fair_guarantee(void)
{
    fair_ops = gs_policy_find("fair");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fair_ops);
    struct gs_policy_ops chk = *fair_ops;
    chk.name = "fair-checked";
    chk.schedule = checked_schedule;
    const char *json =
        "{\"name\": \"g\", \"seed\": 3, \"fleet\": [{\"gpu\": \"A100-80GB\","
        " \"nodes\": 4, \"gpus_per_node\": 8}],"
        " \"tenants\": [{\"name\": \"A\", \"quota_gpus\": 16},"
        " {\"name\": \"B\", \"quota_gpus\": 12}, {\"name\": \"C\", "
        "\"quota_gpus\": 4}],"
        " \"workload\": {\"generate\": {\"jobs\": 1500, \"rate_per_hour\": "
        "60, \"classes\": [{\"tier\": \"training\", \"tenants\": [\"A\", "
        "\"B\", \"C\"], \"gpus\": 1, \"duration\": {\"dist\": "
        "\"exponential\", \"mean\": \"40m\"}}]}}}";
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(json, "g.json", ".", &sc, &d), 0);
    struct gs_sim_opts o = { .policy_ops = &chk };
    g_violations = g_checked = 0;
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, &o, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    CU_ASSERT_EQUAL(g_violations, 0);
    CU_ASSERT(g_checked > 1000);            /* tenants did wait, often */
    CU_ASSERT(gs_sim_summary(sim)->preemptions > 0);    /* reclaim ran */
    CU_ASSERT_EQUAL(gs_sim_summary(sim)->all.done, 1500);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* --- hps ----------------------------------------------------------------- */

/* One 8-GPU node.  1-GPU jobs of 480 s arrive every 60 s for two hours
 * (120 of them), keeping all 8 GPUs busy; an 8-GPU job arrives at 30 s.
 * With aging, it passes the 5-minute threshold at 330 s; at the 360 s pass
 * the small job arriving then still outranks it and starts, then the big
 * one takes the reservation and small jobs stop starting: the jobs then
 * running end by 360 + 480 = 840 s, when it starts.  Without aging every
 * GPU that frees is taken by the small job arriving at the same instant,
 * and the big job waits for the whole stream: the last small job starts at
 * 7140 s and ends at 7620 s. */
static void hps_run(struct run *r, const char *params)
{
    char *csv = malloc(16384);
    size_t len = (size_t)snprintf(csv, 16384, "id,arrival,gpus,duration\n");
    for (int i = 0; i < 120; i++) {
        len += (size_t)snprintf(csv + len, 16384 - len, "%d,%d,1,480\n",
                                100 + i, 60 * i);
        if (i == 0)
            len += (size_t)snprintf(csv + len, 16384 - len, "1,30,8,600\n");
    }
    char json[1024];
    snprintf(json, sizeof json,
             "{\"name\": \"h\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}],"
             " \"policy\": {\"name\": \"hps\"%s},"
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%%s\"}}}", params);
    run_text(r, json, csv);
    free(csv);
    if (r->rc)
        fprintf(stderr, "%s: %s\n", r->d.where, r->d.what);
    CU_ASSERT_EQUAL_FATAL(r->rc, 0);
}

static void test_hps_aging(void)
{
    struct run r;
    hps_run(&r, "");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->start, 840 * S);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->all.done, 121);
    run_free(&r);
    hps_run(&r, ", \"w_aging\": 0");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->start, 7620 * S);
    run_free(&r);
    /* a later threshold delays the lift by as much: aged at the 960 s
     * pass, then the small jobs started by 960 s end by 1440 s */
    hps_run(&r, ", \"aging_after\": \"15m\"");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->start, 1440 * S);
    run_free(&r);
}

/* Unknown or wrong parameters are errors naming the key. */
static void test_params(void)
{
    struct run r;
    run_text(&r, "{\"name\": \"p\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1}], \"policy\": {\"name\": \"hps\", \"w_agin\": 1},"
             " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": "
             "\"%s\"}}}", "id,arrival,gpus,duration\n1,0,1,1\n");
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.what, "w_agin"));
    run_free(&r);
    run_text(&r, "{\"name\": \"p\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1}], \"policy\": {\"name\": \"rl-lite\", "
             "\"weights\": \"/nonexistent/w.json\"},"
             " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": "
             "\"%s\"}}}", "id,arrival,gpus,duration\n1,0,1,1\n");
    CU_ASSERT_EQUAL(r.rc, GS_EIO);
    run_free(&r);
}

/* --- rl-lite and training ------------------------------------------------ */

static double objective_of(const char *policy_json)
{
    char text[16384];
    const char *q = gs_scenario_quickstart();
    const char *at = strstr(q, "\"policy\": \"fifo-backfill\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    size_t head = (size_t)(at - q);
    snprintf(text, sizeof text, "%.*s\"policy\": %s%s", (int)head, q,
             policy_json, at + strlen("\"policy\": \"fifo-backfill\""));
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    double j = NAN;
    if (gs_scenario_parse(text, "q.json", "/", &sc, &d) == 0 &&
        gs_sim_new(sc, NULL, &sim, &d) == 0 && gs_sim_run(sim, &d) == 0)
        j = gs_train_objective(gs_sim_summary(sim), sc, 1, 1, 0);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
    return j;
}

static int run_train(const char *out, const char *seed)
{
    char *argv[] = { "quickstart", "--out", (char *)out, "--iters", "3",
                     "--pop", "8", "--elite", "2", "--jobs", "1", "--seed",
                     (char *)seed, "--quiet", NULL };
    FILE *keep = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = gs_train_main(14, argv);
    fclose(stdout);
    stdout = keep;
    return rc;
}

static void test_train(void)
{
    char w1[64], w2[64];
    write_temp("", w1);
    write_temp("", w2);
    CU_ASSERT_EQUAL_FATAL(run_train(w1, "5"), 0);
    CU_ASSERT_EQUAL_FATAL(run_train(w2, "5"), 0);
    /* deterministic for a seed: the same weights */
    double a[GS_RLLITE_NF], b[GS_RLLITE_NF];
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_weights_load(w1, gs_rllite_features,
                                          GS_RLLITE_NF, a, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_weights_load(w2, gs_rllite_features,
                                          GS_RLLITE_NF, b, &d), 0);
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof a), 0);
    /* the trained weights, loaded by the policy from the file, do better
     * than the untrained (all-zero) ones, and than fifo-backfill, on the
     * workload trained on */
    char pol[256];
    snprintf(pol, sizeof pol, "{\"name\": \"rl-lite\", \"weights\": \"%s\"}",
             w1);
    double trained = objective_of(pol);
    double untrained = objective_of(
        "{\"name\": \"rl-lite\", \"w_log_runtime\": 0, \"w_gpus\": 0,"
        " \"w_log_wait\": 0, \"w_priority\": 0, \"w_urgency\": 0,"
        " \"w_fit\": 0, \"w_size_x_free\": 0, \"w_tenant_share\": 0}");
    double backfill = objective_of("\"fifo-backfill\"");
    CU_ASSERT(isfinite(trained) && isfinite(untrained));
    CU_ASSERT(trained < untrained);
    CU_ASSERT(trained < backfill);
    /* a file for another feature set is refused */
    const char *names[GS_RLLITE_NF];
    for (int i = 0; i < GS_RLLITE_NF; i++)
        names[i] = gs_rllite_features[i];
    names[3] = "something_else";
    CU_ASSERT_EQUAL(gs_weights_load(w1, names, GS_RLLITE_NF, a, &d),
                    GS_EINVAL);
    unlink(w1);
    unlink(w2);
    gs_diag_free(&d);
}

/* --- plug-ins ------------------------------------------------------------ */

static void plugin_path(char *buf, size_t n, const char *name)
{
    const char *dir = getenv("GS_PLUGIN_DIR");
    snprintf(buf, n, "%s/%s", dir ? dir : "build/rel/plugins", name);
}

static void test_plugin(void)
{
    char good[512], bad[512];
    plugin_path(good, sizeof good, "sjf.so");
    plugin_path(bad, sizeof bad, "sjf-badabi.so");
    struct gs_plugin *p = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_plugin_open(bad, &p, &d), GS_EABI);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "ABI 999"));
    gs_diag_free(&d);
    CU_ASSERT_EQUAL(gs_plugin_open("/nonexistent/x.so", &p, &d), GS_EIO);
    gs_diag_free(&d);
    CU_ASSERT_EQUAL_FATAL(gs_plugin_open(good, &p, &d), 0);
    const struct gs_policy_ops *ops = gs_plugin_policy(p);
    CU_ASSERT_STRING_EQUAL(ops->name, "sjf");
    /* shortest first: of the three waiting behind job 1, the 10 s job goes
     * first, then 20 s, then 30 s */
    struct run r;
    memset(&r, 0, sizeof r);
    write_temp("id,arrival,gpus,duration\n1,0,1,100\n2,1,1,30\n"
               "3,2,1,10\n4,3,1,20\n", r.trace);
    char json[512];
    snprintf(json, sizeof json, "{\"name\": \"s\", \"fleet\": [{\"gpu\": "
             "\"A100-80GB\", \"nodes\": 1, \"gpus_per_node\": 1}], "
             "\"workload\": {\"trace\": {\"format\": \"native\", \"path\": "
             "\"%s\"}}}", r.trace);
    struct gs_sim_opts o = { .policy_ops = ops };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(json, "s.json", "/", &r.sc, &d),
                          0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(r.sc, &o, &r.sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(r.sim, &d), 0);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->start, 100 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 4)->start, 110 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->start, 130 * S);
    run_free(&r);
    gs_plugin_close(p);
    /* the CLI refuses the mismatch with exit status 2 */
    const char *gpusim = gs_test_gpusim();
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s run quickstart --no-out --quiet "
             "--policy-lib %s 2>/dev/null", gpusim, bad);
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(cmd, sizeof cmd, "%s run quickstart --no-out --quiet "
             "--policy-lib %s", gpusim, good);
    st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    gs_diag_free(&d);
}

/* --- compare's statistics ------------------------------------------------ */

/* 1..5: mean 3, s = sqrt(2.5), t(0.975, 4) = 2.776445105 (any t table),
 * half-width 2.776445105 * sqrt(2.5) / sqrt(5) = 1.963243161.
 * {0, 1}: t(0.975, 1) = 12.70620474, half = 12.70620474 * 0.5 = 6.35310237. */
static void test_ci(void)
{
    double x[] = { 1, 2, 3, 4, 5 }, m, sd, t, h;
    gs_ci95(x, 5, &m, &sd, &t, &h);
    CU_ASSERT_DOUBLE_EQUAL(m, 3.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(sd, sqrt(2.5), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(t, 2.776445105, 1e-8);
    CU_ASSERT_DOUBLE_EQUAL(h, 1.963243161, 1e-8);
    double y[] = { 0, 1 };
    gs_ci95(y, 2, &m, &sd, &t, &h);
    CU_ASSERT_DOUBLE_EQUAL(m, 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(t, 12.70620474, 1e-7);
    CU_ASSERT_DOUBLE_EQUAL(h, 6.35310237, 1e-7);
    gs_ci95(x, 1, &m, &sd, &t, &h);
    CU_ASSERT_DOUBLE_EQUAL(m, 1.0, 1e-12);
    CU_ASSERT(isnan(h));
}

/* The HPS paper's measures on a worked case: waits 0, 99, 0, 197 s (the
 * EASY case of test_sim.c) in minutes: mean 296/240, variance
 * E[x^2] - mean^2; no job waited over 30 min.  Then one that did. */
static void test_hps_measures(void)
{
    struct run r;
    run_text(&r, "{\"name\": \"m\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1, \"gpus_per_node\": 4}], \"policy\": "
             "\"fifo-backfill\", \"workload\": {\"trace\": {\"format\": "
             "\"native\", \"path\": \"%s\"}}}",
             "id,arrival,gpus,duration\n1,0,3,100\n2,1,4,100\n3,2,1,50\n"
             "4,3,1,150\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    double w[] = { 0, 99 / 60.0, 0, 197 / 60.0 }, mean = 0, sq = 0;
    for (int i = 0; i < 4; i++) {
        mean += w[i] / 4;
        sq += w[i] * w[i] / 4;
    }
    const struct gs_summary *su = gs_sim_summary(r.sim);
    CU_ASSERT_DOUBLE_EQUAL(su->fairness_var, sq - mean * mean, 1e-9);
    CU_ASSERT_EQUAL(su->starved, 0);
    run_free(&r);
    run_text(&r, "{\"name\": \"m\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1, \"gpus_per_node\": 1}], \"policy\": \"fifo\", "
             "\"workload\": {\"trace\": {\"format\": \"native\", \"path\": "
             "\"%s\"}}}",
             "id,arrival,gpus,duration\n1,0,1,1801\n2,0,1,10\n3,1,1,10\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    /* waits 0, 1801, 1810 s: two starved */
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->starved, 2);
    run_free(&r);
}

/* compare writes every run under /runs/POLICY/seedK, and run K is exactly
 * the single run with seed + K, whatever the number of workers (each run
 * billed over its own span, as a single run is). */
static void test_compare_file(void)
{
    const char *json =
        "{\"name\": \"c\", \"seed\": 11, \"fleet\": [{\"gpu\": "
        "\"A100-80GB\", \"nodes\": 2, \"gpus_per_node\": 4}],"
        " \"workload\": {\"generate\": {\"jobs\": 150, \"rate_per_hour\": "
        "20, \"classes\": [{\"gpus\": {\"values\": [1, 2, 4]}, "
        "\"duration\": {\"dist\": \"exponential\", \"mean\": \"40m\"}}]}}}";
    char scen[64], out[80];
    write_temp(json, scen);
    snprintf(out, sizeof out, "%s.h5", scen);
    char *argv[] = { scen, "--policies", "fifo,hps", "--seeds", "2",
                     "--jobs", "2", "--no-plots", "--quiet", "--out", out,
                     "--bill-until", "own", NULL };
    FILE *keep = stderr;
    stderr = fopen("/dev/null", "w");
    int rc = gs_compare_main(13, argv);
    fclose(stderr);
    stderr = keep;
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    double *seeds = NULL, *got = NULL;
    long n = 0, ng = 0;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_h5_read_series(out, "/compare/seeds", &seeds, &n, &d),
                    0);
    CU_ASSERT_EQUAL(n, 2);
    if (n == 2) {
        CU_ASSERT_DOUBLE_EQUAL(seeds[0], 11, 0);
        CU_ASSERT_DOUBLE_EQUAL(seeds[1], 12, 0);
    }
    CU_ASSERT_EQUAL(gs_h5_read_series(out, "/runs/hps/seed1/timeseries/"
                                      "allocated_gpus", &got, &ng, &d), 0);
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load(scen, &sc, &d), 0);
    struct gs_sim_opts o = { .seed = 12, .set_seed = 1, .policy = "hps" };
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, &o, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    const struct gs_series *ts = &gs_sim_metrics(sim)->ts;
    CU_ASSERT_EQUAL(ng, ts->n);
    int same = ng == ts->n && ng > 10;
    for (long i = 0; same && i < ng; i++)
        same = got[i] == ts->alloc[i];
    CU_ASSERT(same);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    free(seeds);
    free(got);
    unlink(scen);
    unlink(out);
    gs_diag_free(&d);
}

static CU_TestInfo tests[] = {
    { "fair: reclaim frees exactly what is needed", test_fair_reclaim_exact },
    { "fair: idle capacity is lent and taken back", test_fair_borrow },
    { "fair: inference never borrows owned GPUs", test_fair_inference_strict },
    { "fair: no tenant below its guarantee after a pass",
      test_fair_guarantee },
    { "hps: aging lifts a starved job", test_hps_aging },
    { "policy parameters are checked", test_params },
    { "train: improves on untrained weights, deterministic", test_train },
    { "plug-in: loads, runs, refuses an ABI mismatch", test_plugin },
    { "compare: Student-t confidence interval", test_ci },
    { "compare: one file, runs identical to single runs", test_compare_file },
    { "summary: fairness variance and starved jobs", test_hps_measures },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("policies", tests)
