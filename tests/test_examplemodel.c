/* test_examplemodel.c -- a model built outside sim/ (tests/models/
 * gpuhours.c) joins every output through its hooks alone: one
 * gs_model_register call, no other file touched.  Its summary scalar is
 * in --json, CSV, the HDF5 /summary and compare's metrics; its dataset is
 * in the result file, described; its per-tier targets are plan and sweep
 * metrics.  Its figure is the integral of the GPUs running jobs hold, so it
 * must equal the core's gpu_hours_used (metrics.c integrates the fleet's
 * allocations): a hook called at the wrong time, or a value filed in the
 * wrong slot, breaks that equality. */
#include "cutest.h"
#include "simutil.h"
#include "models/gpuhours.h"
#include "../sim/core/model.h"
#include "../sim/io/h5in.h"
#include "../sim/io/h5out.h"
#include "../sim/studies/compare.h"
#include "../sim/studies/sweep.h"

#include <math.h>

/* quickstart under policy, with the example model in the run. */
static void run_quickstart(struct run *r, const char *policy)
{
    memset(r, 0, sizeof *r);
    r->rc = gs_scenario_parse(gs_scenario_quickstart(), "quickstart", "/",
                              &r->sc, &r->d);
    CU_ASSERT_EQUAL_FATAL(r->rc, 0);
    snprintf(r->sc->policy, sizeof r->sc->policy, "%s", policy);
    r->rc = gs_sim_new(r->sc, NULL, &r->sim, &r->d);
    if (r->rc == 0)
        r->rc = gs_sim_run(r->sim, &r->d);
    CU_ASSERT_EQUAL_FATAL(r->rc, 0);
}

static int field_index(const char *name)
{
    for (int i = 0; i < gs_summary_nfields(); i++)
        if (strcmp(gs_summary_field_name(i), name) == 0)
            return i;
    return -1;
}

static void test_register(void)
{
    /* compare's names and the run metrics' index, made before the model
     * joins, are made again after it (both are kept between calls) */
    int nc = gs_compare_nmetrics();
    CU_ASSERT_PTR_NOT_NULL(gs_compare_metric_names()[nc - 1]);
    CU_ASSERT_EQUAL(gs_run_metric_index("example_gpu_hours"), -1);
    CU_ASSERT_EQUAL(gs_model_register(&gs_example_model), 0);
    int f = gs_summary_nfields() - 1;
    CU_ASSERT_EQUAL(gs_compare_nmetrics(), nc + 1);
    CU_ASSERT_STRING_EQUAL(gs_compare_metric_names()[f], "example_gpu_hours");
    CU_ASSERT_EQUAL(gs_run_metric_index("example_gpu_hours"), f);
    CU_ASSERT_EQUAL(gs_run_metric_index(gs_run_metric_name(f + 1)), f + 1);
    CU_ASSERT_EQUAL(gs_model_register(&gs_example_model), GS_EINVAL);
    int n = 0, found = 0;
    for (; gs_model_at(n); n++)
        found += gs_model_at(n) == &gs_example_model;
    CU_ASSERT_EQUAL(found, 1);
    CU_ASSERT_PTR_EQUAL(gs_model_at(n - 1), &gs_example_model);
    /* last in output order too (rank 100), after the built-in fields */
    CU_ASSERT_EQUAL(field_index("example_gpu_hours"),
                    gs_summary_nfields() - 1);
}

/* The summary, --json, CSV and compare's metrics. */
static void test_summary(void)
{
    const char *pols[] = { "fifo", "fifo-backfill", "hps" };
    for (int p = 0; p < 3; p++) {
        struct run r;
        run_quickstart(&r, pols[p]);
        const struct gs_summary *su = gs_sim_summary(r.sim);
        int k = field_index("example_gpu_hours");
        CU_ASSERT_FATAL(k >= 0);
        double v[GS_SUMMARY_NMAX];
        gs_summary_values(su, v);
        CU_ASSERT(su->gpu_hours_used > 100);
        CU_ASSERT(fabs(v[k] - su->gpu_hours_used) <=
                  1e-9 * su->gpu_hours_used);
        /* --json and CSV print it with its format */
        char *buf = NULL, want[96];
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        gs_report_json(fp, r.sim);
        fclose(fp);
        snprintf(want, sizeof want, "\"example_gpu_hours\": %.4f", v[k]);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
        free(buf);
        fp = open_memstream(&buf, &len);
        gs_report_csv(fp, r.sim);
        fclose(fp);
        snprintf(want, sizeof want, "run,example_gpu_hours,%.4f\n", v[k]);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
        free(buf);
        /* compare's metrics */
        double *cv = calloc((size_t)gs_compare_nmetrics(), sizeof *cv);
        gs_compare_metric_values(su, cv);
        int ci = -1;
        for (int i = 0; i < gs_compare_nmetrics(); i++)
            if (strcmp(gs_compare_metric_names()[i], "example_gpu_hours") == 0)
                ci = i;
        CU_ASSERT(ci >= 0 && cv[ci] == v[k]);
        free(cv);
        run_free(&r);
    }
}

/* The HDF5 file: the /summary attribute and the dataset, described. */
static void test_h5(void)
{
    struct run r;
    run_quickstart(&r, "fifo-backfill");
    char dir[] = "/tmp/gs-exmodel-XXXXXX", path[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r.h5", dir);
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_h5_write(path, r.sim, &d), 0);
    double total = -1;
    CU_ASSERT_EQUAL(gs_h5_read_summary(path, "example_gpu_hours", &total,
                                       &d), 0);
    double *by = NULL;
    long n = 0;
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(path,
                          "/example/gpu_hours_by_tier", &by, &n, &d), 0);
    CU_ASSERT_EQUAL(n, GS_NTIERS);
    double sum = 0;
    for (long i = 0; i < n; i++)
        sum += by[i];
    CU_ASSERT(fabs(sum - total) <= 1e-9 * total);
    CU_ASSERT(fabs(total - gs_sim_summary(r.sim)->gpu_hours_used) <=
              1e-9 * total);
    char first[256] = "";
    CU_ASSERT_EQUAL(gs_h5_undescribed(path, first, sizeof first), 0);
    free(by);
    unlink(path);
    rmdir(dir);
    run_free(&r);
    gs_diag_free(&d);
}

/* Plan and sweep targets: bound, named, valued, checked. */
static void test_targets(void)
{
    struct run r;
    run_quickstart(&r, "fifo");
    gs_run_bind(r.sc);
    double *v = calloc((size_t)gs_run_nmetrics(), sizeof *v);
    gs_run_metric_values(r.sim, v);
    double sum = 0;
    for (int t = 0; t < GS_NTIERS; t++) {
        char name[64], why[128];
        snprintf(name, sizeof name, "example.%s.gpu_hours", gs_tier_name(t));
        int i = gs_run_metric_index(name);
        CU_ASSERT_FATAL(i >= 0);
        CU_ASSERT(v[i] >= 0);
        sum += v[i];
        CU_ASSERT_EQUAL(gs_run_target_check(r.sc, name, why, sizeof why), 1);
    }
    const struct gs_summary *su = gs_sim_summary(r.sim);
    CU_ASSERT(fabs(sum - su->gpu_hours_used) <= 1e-9 * su->gpu_hours_used);
    char why[128] = "";
    CU_ASSERT_EQUAL(gs_run_target_check(r.sc, "example.nope", why,
                                        sizeof why), -1);
    CU_ASSERT_STRING_EQUAL(why, "no example metric 'example.nope'");
    CU_ASSERT_EQUAL(gs_run_target_check(r.sc, "utilization", why,
                                        sizeof why), 0);
    free(v);
    run_free(&r);
}

static CU_TestInfo tests[] = {
    { "register: after the built-ins, fields last", test_register },
    { "summary, --json, CSV, compare: = gpu_hours_used", test_summary },
    { "HDF5: /summary attribute and /example dataset", test_h5 },
    { "plan and sweep targets per tier", test_targets },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("examplemodel", tests)
