/* test_metrics.c -- conservation of GPU-hours and of the bill on every
 * scenario shipped in scenarios/: the jobs' GPU-hours (each job booked by
 * what it was granted, in its pool's unit: a time-slicing replica 1/N of a
 * GPU, a MIG instance its share of the memory slices) add up to the fleet's
 * allocated GPU-hours, allocated + idle = available, and the bill's idle
 * part is never negative; every job (CPU-only ones too) is accounted for,
 * and no sample holds more GPUs, CPU or memory than the fleet has.
 * Scenarios that read ../shared/traces are skipped
 * when it is absent. */
#include "cutest.h"
#include "../sim/err.h"
#include "../sim/scenario.h"
#include "../sim/sim.h"
#include "../sim/metrics.h"
#include "../sim/cloud.h"
#include "../traces/tread.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
    long n = 0;
    const struct gs_jobrec *r = gs_sim_records(sim, &n);
    double jobs = 0;
    for (long i = 0; i < n; i++) {
        CU_ASSERT(r[i].gpu_hours >= 0);
        jobs += r[i].gpu_hours;
    }
    double used = su->gpu_hours_used, avail = su->gpu_hours_avail;
    printf("\n    [%s: jobs %.1f, fleet %.1f of %.1f GPU-hours; idle $%.2f]",
           path, jobs, used, avail, su->cloud.cost_idle);
    /* float per-job sums: a relative tolerance of 1e-4 */
    CU_ASSERT(fabs(jobs - used) <= 1e-4 * (used + 1));
    CU_ASSERT(used <= avail * (1 + 1e-9) + 1e-9);
    CU_ASSERT(su->cloud.cost_idle >= -1e-6);
    CU_ASSERT(su->cloud.cost_jobs >= -1e-6);
    CU_ASSERT(fabs(su->cloud.cost_jobs + su->cloud.cost_idle - su->cost) <=
              1e-6 * (su->cost + 1));
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
}

static void test_shipped_scenarios(void)
{
    glob_t g;
    CU_ASSERT_EQUAL_FATAL(glob("scenarios/*.json", 0, NULL, &g), 0);
    CU_ASSERT(g.gl_pathc >= 7);
    for (size_t i = 0; i < g.gl_pathc; i++)
        check_one(g.gl_pathv[i]);
    globfree(&g);
}

static CU_TestInfo tests[] = {
    { "GPU-hours and bill conserved on every shipped scenario",
      test_shipped_scenarios },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("metrics", tests)
