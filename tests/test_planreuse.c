/* test_planreuse.c -- a plan's services simulated once per seed and
 * replayed (sim/inference/svcghost.c, sim/studies/planreuse.c).
 *
 * The replay's premise, tested: a chat service beside jobs on fleets that
 * leave it alone (different H100 counts and A100 spot shares) reports the
 * very same figures, to the bit, in full runs; a ghost run of one fleet
 * from another fleet's tape says it matched and gives that fleet's full
 * run's figures (the services' taken from the tape's run) -- the jobs'
 * waits, completions, records and bill exactly, the integrals the
 * services' iterations split within rounding.  Fleets that do touch the
 * service (its A100s all on spot, where its tier may not run; a spot
 * pool that takes its replica back) must make the ghost say it diverged.
 * A service with an autoscaler, or a tariff by the hour, cannot be
 * taped.  The scenario has a flat tariff and carbon intensity, which the
 * ghost books at once.  And the plan: the same
 * answer, every printed digit, with replays and with --full-runs, the
 * same bytes on 2 and 3 workers and on two MPI ranks, and the replays
 * counted on stderr. */
#include "cutest.h"
#include "clitest.h"
#include "../sim/inference/svcghost.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/setup.h"
#include "../sim/studies/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A day of mixed jobs beside a chat on A100s for its first half hour;
 * FLEET is the fleet array, SPOT the spot tiers. */
static const char *price = "0.12";

static char *scenario(const char *fleet, const char *spot, const char *svc)
{
    char *t = NULL;
    int n = asprintf(&t,
        "{\"name\": \"reuse\", \"seed\": 5, \"horizon\": \"2d\","
        " \"sample_step\": \"10m\", \"fleet\": %s,"
        " \"energy\": {\"pue\": 1.2, \"price_usd_per_kwh\": %s,"
        "  \"carbon_g_per_kwh\": 380},"
        " \"policy\": {\"name\": \"priority\", \"preempt\": true},"
        " \"placement\": \"best-fit\","
        " \"workload\": {\"generate\": {\"until\": \"1d\","
        "  \"rate_per_hour\": 30, \"diurnal_amplitude\": 0.5,"
        "  \"peak_hour\": 14, \"reference_gpu\": \"A100-80GB\","
        "  \"classes\": ["
        "   {\"name\": \"train\", \"tier\": \"training\", \"weight\": 0.6,"
        "    \"gpus\": {\"values\": [1, 2, 4, 8], \"weights\": [0.3, 0.3, 0.2,"
        "     0.2]}, \"duration\": {\"dist\": \"lognormal\", \"median\": "
        "     \"1h\", \"sigma\": 1.0, \"max\": \"1d\"},"
        "    \"checkpoint_interval\": \"30m\"},"
        "   {\"name\": \"nb\", \"tier\": \"interactive\", \"weight\": 0.4,"
        "    \"gpus\": {\"values\": [0.5, 1], \"weights\": [0.5, 0.5]},"
        "    \"duration\": {\"dist\": \"lognormal\", \"median\": \"20m\","
        "     \"sigma\": 0.8, \"max\": \"8h\"}}]}},"
        " \"spot\": {\"tiers\": %s, \"notice\": \"2m\"},"
        " \"services\": [{\"name\": \"chat\", \"tier\": \"inference\","
        "  \"model\": \"llama3-8b\", \"tp\": 1, \"gpu\": \"A100-80GB\","
        "  \"replicas\": 2%s, \"requests\": {\"generate\": {"
        "   \"rate_per_second\": 2, \"until\": \"30m\","
        "   \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 600,"
        "    \"sigma\": 0.7, \"max\": 4000},"
        "   \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 150,"
        "    \"sigma\": 0.6, \"max\": 1000}}}}]}",
        fleet, price, spot, svc);
    return n < 0 ? NULL : t;
}

static char *fleet(int h100, int a100, int a100_spot, const char *spot_cfg)
{
    char *t = NULL;
    int n = asprintf(&t,
        "[{\"name\": \"h100\", \"gpu\": \"H100-80GB\", \"nodes\": %d,"
        "  \"gpus_per_node\": 8, \"price_per_gpu_hour\": 6.88},"
        " {\"name\": \"a100\", \"gpu\": \"A100-80GB\", \"nodes\": %d,"
        "  \"gpus_per_node\": 8, \"price_per_gpu_hour\": 5.12},"
        " {\"name\": \"a100-spot\", \"gpu\": \"A100-80GB\", \"nodes\": %d,"
        "  \"gpus_per_node\": 8, \"instance_type\": \"p4de.24xlarge\","
        "  \"market\": \"spot\", \"discount\": 0.7, \"spot\": %s}]",
        h100, a100, a100_spot, spot_cfg);
    return n < 0 ? NULL : t;
}

static struct gs_scenario *load(int h100, int a100, int a100_spot,
                                const char *spot_tiers, const char *spot_cfg)
{
    char *f = fleet(h100, a100, a100_spot, spot_cfg);
    char *t = f ? scenario(f, spot_tiers, "") : NULL;
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    int rc = t ? gs_scenario_parse(t, "reuse.json", ".", &sc, &d) : -1;
    if (rc < 0)
        fprintf(stderr, "scenario: %s: %s\n", d.where, d.what);
    CU_ASSERT_EQUAL(rc, 0);
    free(f);
    free(t);
    gs_diag_free(&d);
    return sc;
}

/* One run of sc: its figures into v (gs_run_nmetrics), its tape into
 * tape (n doubles) when not NULL, replaying ghost when not NULL.  The
 * ghost's verdict (gs_svc_ghost_matched), or the tape's (gs_svc_tape_get)
 * for a full run. */
static int run(const struct gs_scenario *sc, double *v, double *tape, long n,
               const double *ghost)
{
    struct gs_sim_opts o = { .seed = 5, .set_seed = 1 };
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, &o, &sim, &d), 0);
    if (ghost)
        CU_ASSERT_EQUAL(gs_svc_ghost(sim, ghost), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    gs_run_metric_values(sim, v);
    int ok = ghost ? gs_svc_ghost_matched(sim)
                   : tape ? gs_svc_tape_get(sim, tape, n) : 0;
    gs_sim_free(sim);
    gs_diag_free(&d);
    return ok;
}

static int is_service(const char *name)
{
    return !strncmp(name, "service.", 8) || !strncmp(name, "inference_", 10);
}

/* Figures the replay may give within rounding: the energy above idle,
 * booked once per replica; every other figure (waits, completions,
 * counts, the bill from the records, and since the core's still moves
 * the integrals over time -- utilization, fragmentation, the running
 * cost -- which the services' iterations no longer cut: still.c)
 * exactly.  Before the still moves the integrals too differed in their
 * last bits, the full run cutting them at every iteration's millisecond. */
static int exact(const char *name)
{
    static const char *const pre[] = { "energy_", "power_", "carbon_",
                                       NULL };
    for (int i = 0; pre[i]; i++)
        if (!strncmp(name, pre[i], strlen(pre[i])))
            return 0;
    return 1;
}

/* The ghost tests' setup: three fleets of the day's scenario, fleet i
 * with nodes[i] = {H100, A100, A100 spot} nodes, spot tiers tiers[i] and
 * spot market cfg[i]; the first bound, run in full and taped. */
struct three {
    struct gs_scenario *sc[3];
    int nm;                     /* gs_run_nmetrics */
    long n;                     /* the tape's size */
    double *tape, *v;           /* the first fleet's tape and figures */
};

static void three_load(struct three *t, const int nodes[3][3],
                       const char *const tiers[3], const char *const cfg[3])
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < 3; i++) {
        t->sc[i] = load(nodes[i][0], nodes[i][1], nodes[i][2], tiers[i],
                        cfg[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t->sc[i]);
    }
    gs_run_bind(t->sc[0]);
    t->nm = gs_run_nmetrics();
    t->n = gs_svc_tape_size(t->sc[0]);
    CU_ASSERT(t->n > 0);
    t->tape = calloc((size_t)t->n + 1, sizeof *t->tape);
    t->v = calloc((size_t)t->nm, sizeof *t->v);
    CU_ASSERT_FATAL(t->tape != NULL && t->v != NULL);
    CU_ASSERT_EQUAL_FATAL(run(t->sc[0], t->v, t->tape, t->n, NULL), 1);
}

static void three_free(struct three *t)
{
    free(t->tape);
    free(t->v);
    for (int i = 0; i < 3; i++)
        gs_scenario_free(t->sc[i]);
}

static void test_ghost_is_full_run(void)
{
    const char *spot = "{\"interruptions_per_hour\": 0.2}";
    static const int nodes[3][3] = { { 2, 2, 0 }, { 0, 1, 2 }, { 3, 3, 1 } };
    const char *const tiers[3] = { "[\"training\"]", "[\"training\"]",
                                   "[\"training\"]" };
    const char *const cfg[3] = { spot, spot, spot };
    struct three t;
    three_load(&t, nodes, tiers, cfg);
    int nm = t.nm;
    long n = t.n;
    const double *va = t.v, *tape = t.tape;
    CU_ASSERT_EQUAL(gs_svc_tape_size(t.sc[1]), n);
    double *vf = calloc((size_t)nm, sizeof *vf);
    double *vg = calloc((size_t)nm, sizeof *vg);
    const struct gs_scenario *other[2] = { t.sc[1], t.sc[2] };
    for (int f = 0; f < 2; f++) {
        CU_ASSERT_EQUAL(run(other[f], vf, NULL, 0, NULL), 0);
        CU_ASSERT_EQUAL(run(other[f], vg, NULL, 0, tape), 1);
        int nsvc = 0, nexact = 0;
        double worst = 0;
        for (int m = 0; m < nm; m++) {
            const char *name = gs_run_metric_name(m);
            if (is_service(name)) {
                /* the premise: the fleets leave the service alone */
                if (va[m] != vf[m] && !(isnan(va[m]) && isnan(vf[m])))
                    fprintf(stderr, "  %s: %.17g vs %.17g\n", name, va[m],
                            vf[m]);
                CU_ASSERT(va[m] == vf[m] || (isnan(va[m]) && isnan(vf[m])));
                nsvc++;
                continue;
            }
            if (isnan(vf[m])) {
                CU_ASSERT(isnan(vg[m]));
                continue;
            }
            double rel = fabs(vg[m] - vf[m]) / fmax(1.0, fabs(vf[m]));
            if (exact(name)) {
                if (vg[m] != vf[m])
                    fprintf(stderr, "  %s: %.17g vs %.17g\n", name, vg[m],
                            vf[m]);
                CU_ASSERT_EQUAL(vg[m], vf[m]);
                nexact++;
            } else if (rel > worst) {
                worst = rel;
            }

        }
        fprintf(stderr, " [%d service figures, %d exact, the rest within "
                "%.2g] ", nsvc, nexact, worst);
        CU_ASSERT(nsvc >= 20);
        CU_ASSERT(nexact >= 75);
        CU_ASSERT(worst <= 1e-9);
    }
    free(vf);
    free(vg);
    three_free(&t);
}

/* Fleets that touch the service: the ghost must not match.  The second
 * has its A100s all on spot, where inference may not run: no replica.
 * The third allows inference on spot, has only spot A100s, reclaimed
 * often: the replicas start as taped, then are taken back. */
static void test_ghost_diverges(void)
{
    const char *calm = "{\"interruptions_per_hour\": 0.2}";
    static const int nodes[3][3] = { { 2, 2, 0 }, { 2, 0, 2 }, { 2, 0, 2 } };
    const char *const tiers[3] = { "[\"training\"]", "[\"training\"]",
                                   "[\"training\", \"inference\"]" };
    const char *const cfg[3] = { calm, calm,
                                 "{\"interruptions_per_hour\": 6}" };
    struct three t;
    three_load(&t, nodes, tiers, cfg);
    CU_ASSERT_EQUAL(run(t.sc[1], t.v, NULL, 0, t.tape), 0);
    CU_ASSERT_EQUAL(run(t.sc[2], t.v, NULL, 0, t.tape), 0);
    /* and a run that lost replicas cannot be taped */
    double *t2 = calloc((size_t)t.n, sizeof *t2);
    CU_ASSERT_EQUAL(run(t.sc[2], t.v, t2, t.n, NULL), 0);
    CU_ASSERT_EQUAL(t2[0], 0);
    free(t2);
    three_free(&t);
}

static void test_autoscaled_not_taped(void)
{
    char *f = fleet(1, 2, 0, "{\"interruptions_per_hour\": 0.05}");
    char *t = scenario(f, "[\"training\"]", ", \"autoscaler\": {\"min_replicas\": 1, "
                       "\"max_replicas\": 3, \"metrics\": [{\"metric\": "
                       "\"waiting_requests\", \"average_value\": 8}]}");
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    int rc = gs_scenario_parse(t, "reuse.json", ".", &sc, &d);
    if (rc < 0)
        fprintf(stderr, "scenario: %s: %s\n", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(gs_svc_tape_size(sc), 0);
    gs_scenario_free(sc);
    free(t);
    /* a time-of-use tariff: the ghost could not book the iterations'
     * energy at their hours */
    price = "[0.1, 0.2, 0.3]";
    t = scenario(f, "[\"training\"]", "");
    price = "0.12";
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(t, "reuse.json", ".", &sc, &d), 0);
    CU_ASSERT_EQUAL(gs_svc_tape_size(sc), 0);
    gs_scenario_free(sc);
    free(f);
    free(t);
    gs_diag_free(&d);
}

/* The plan question on this scenario, written to PATH: the H100 and A100
 * node counts searched, or (replicas) the chat's replicas. */
static void write_plan(const char *path, int replicas)
{
    char *f = fleet(0, 2, 0, "{\"interruptions_per_hour\": 0.05}");
    char *t = scenario(f, "[\"training\"]", "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* the plan section goes before the closing brace */
    size_t n = strlen(t);
    FILE *fp = fopen(gs_cli_tmp(path), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fprintf(fp, "%.*s, \"plan\": {\"targets\": {\"sla_violations\": 0.05,"
            " \"tiers\": {\"training\": {\"wait_p95\": \"1h\"}},"
            " \"services\": {\"chat\": {\"ttft_p99\": \"2s\"}}},"
            " \"search\": %s, \"seeds\": 3, \"min_seeds\": 3}}\n", (int)n - 1,
            t, replicas ? "{\"services\": [{\"service\": \"chat\", "
                          "\"replicas\": [2, 2]}]}"
                        : "{\"pools\": [{\"pool\": \"h100\", \"nodes\": "
                          "[0, 4], \"step\": 4}, {\"pool\": \"a100\", "
                          "\"nodes\": [1, 8]}]}");
    fclose(fp);
    free(f);
    free(t);
}

static void test_plan_same_answer(void)
{
    const char *scen = "/tmp/gs-test-reuse-plan.json";
    write_plan(scen, 0);
    char cmd[1024], *o1 = NULL, *o2 = NULL, *o3 = NULL, *e1 = NULL;
    snprintf(cmd, sizeof cmd, "plan %s --no-plots --no-advice -f -j 2 -o "
             "/tmp/gs-test-reuse-1.h5", scen);
    int r1 = gs_cli_run("", cmd, &o1, &e1);
    snprintf(cmd, sizeof cmd, "plan %s --no-plots --no-advice -f -j 2 -o "
             "/tmp/gs-test-reuse-2.h5 --full-runs", scen);
    int r2 = gs_cli_run("", cmd, &o2, NULL);
    snprintf(cmd, sizeof cmd, "plan %s --no-plots --no-advice -f -j 3 -o "
             "/tmp/gs-test-reuse-3.h5", scen);
    int r3 = gs_cli_run("", cmd, &o3, NULL);
    if (r1 != 0 && r1 != 3)
        fprintf(stderr, "plan: exit %d: %s\n", r1, e1 ? e1 : "");
    CU_ASSERT(r1 == 0 || r1 == 3);
    CU_ASSERT_EQUAL(r2, r1);
    CU_ASSERT_EQUAL(r3, r1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o3);
    CU_ASSERT_STRING_EQUAL(o1, o2);
    CU_ASSERT_STRING_EQUAL(o1, o3);
    CU_ASSERT(gs_cli_same_file("/tmp/gs-test-reuse-1.h5",
                               "/tmp/gs-test-reuse-3.h5"));
    /* two MPI ranks: the reference runs reach every rank */
    char *o4 = NULL, *e4 = NULL;
    snprintf(cmd, sizeof cmd, "plan %s --no-plots --no-advice -f -o "
             "/tmp/gs-test-reuse-4.h5", scen);
    int r4 = gs_cli_run(GS_MPIRUN, cmd, &o4, &e4);
    if (r4 != r1)
        printf("\n    mpirun: %d\n%s", r4, e4 ? e4 : "");
    CU_ASSERT_EQUAL(r4, r1);
    CU_ASSERT_STRING_EQUAL(o4 ? o4 : "", o1);
    CU_ASSERT(gs_cli_same_file("/tmp/gs-test-reuse-1.h5",
                               "/tmp/gs-test-reuse-4.h5"));
    CU_ASSERT_PTR_NOT_NULL(e4 && strstr(e4, "2 ranks"));
    free(o4);
    free(e4);
    const char *line = e1 ? strstr(e1, "the services: ") : NULL;
    CU_ASSERT_PTR_NOT_NULL(line);
    long refs = 0, ghosts = 0;
    if (line)
        sscanf(line, "the services: %ld reference run%*s replayed in %ld",
               &refs, &ghosts);
    CU_ASSERT(refs >= 3 && refs <= 10);
    CU_ASSERT(ghosts >= 6);
    free(o1);
    free(o2);
    free(o3);
    free(e1);
    unlink(gs_cli_tmp(scen));
    for (int i = 1; i <= 4; i++) {
        snprintf(cmd, sizeof cmd, "/tmp/gs-test-reuse-%d.h5", i);
        unlink(gs_cli_tmp(cmd));
    }
}

/* A search over the chat's replicas (the scenario's own 2, so a tape
 * would fit): every candidate's services are its own, so nothing is
 * replayed (a reference run each would only add runs). */
static void test_plan_replicas_full(void)
{
    const char *scen = "/tmp/gs-test-reuse-rep.json";
    write_plan(scen, 1);
    char cmd[1024], *e = NULL;
    snprintf(cmd, sizeof cmd, "plan %s --no-plots --no-advice -f -j 2 -o "
             "/tmp/gs-test-reuse-rep.h5", scen);
    int rc = gs_cli_run("", cmd, NULL, &e);
    CU_ASSERT(rc == 0 || rc == 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "plan searched in"));
    CU_ASSERT_PTR_NULL(strstr(e, "the services: "));
    free(e);
    unlink(gs_cli_tmp(scen));
    unlink(gs_cli_tmp("/tmp/gs-test-reuse-rep.h5"));
}

static CU_TestInfo tests[] = {
    { "ghost of another fleet's tape = that fleet's full run",
      test_ghost_is_full_run },
    { "fleets that touch the service: the ghost diverges",
      test_ghost_diverges },
    { "an autoscaled service, a time-of-use tariff: not taped",
      test_autoscaled_not_taped },
    { "plan: replayed = --full-runs, any --jobs, same bytes",
      test_plan_same_answer },
    { "plan over the service's replicas: nothing replayed",
      test_plan_replicas_full },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("planreuse", tests)
