/* test_report.c -- the run's summary as --json (io/report.c): a number that
 * is not finite is written null, so the document stays JSON.
 *
 * printf writes NaN as "nan" or "-nan" and an infinity as "inf": no JSON
 * parser reads either, so one such value made the whole of --json
 * unreadable (a notebook's json.loads, jq, cJSON all refuse it).  Here a
 * run's summary, a tier's statistics, a GPU model's figures and a
 * service's are given NaN and infinities whatever could have made them,
 * and the text --json prints must parse, with null in exactly those
 * places and the other numbers as they were. */
#include "cutest.h"
#include "simutil.h"
#include "../sim/core/model.h"
#include "../sim/inference/service.h"

#include <cjson/cJSON.h>
#include <math.h>

/* What gs_report_json_num prints for v with fmt (caller frees). */
static char *num_text(const char *fmt, double v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    gs_report_json_num(fp, fmt, v);
    fclose(fp);
    return buf;
}

static void test_num(void)
{
    const double bad[] = { NAN, -NAN, INFINITY, -INFINITY };
    const char *fmts[] = { "%.6f", "%.10g", "%.0f", "%.17g" };
    for (int i = 0; i < 4; i++)
        for (int f = 0; f < 4; f++) {
            char *t = num_text(fmts[f], bad[i]);
            CU_ASSERT_STRING_EQUAL(t, "null");
            free(t);
        }
    char *t = num_text("%.6f", 1.5);
    CU_ASSERT_STRING_EQUAL(t, "1.500000");
    free(t);
    t = num_text("%.10g", -0.25);
    CU_ASSERT_STRING_EQUAL(t, "-0.25");
    free(t);
    t = num_text("%.0f", 1e300);        /* large, yet a number */
    CU_ASSERT(strlen(t) == 301 && t[0] == '1');
    free(t);
}

/* A run with jobs and an inference service on one H100 node: every
 * writer of --json has something to say. */
static const char scenario[] =
    "{\"name\": \"nonfinite\", \"fleet\": [{\"gpu\": \"H100-80GB\", "
    "\"nodes\": 2, \"gpus_per_node\": 8}], \"policy\": \"fifo\", "
    "\"workload\": {\"generate\": {\"jobs\": 40, \"rate_per_hour\": 60, "
    "\"classes\": [{\"gpus\": {\"values\": [1, 2, 4]}, \"duration\": "
    "{\"dist\": \"exponential\", \"mean\": \"40m\"}}]}}, "
    "\"services\": [{\"name\": \"s\", \"model\": \"llama2-7b\", "
    "\"gpu\": \"H100-80GB\", \"replicas\": 1, \"requests\": {\"trace\": "
    "{\"format\": \"requests\", \"path\": \"%s\"}}}]}";

static char *json_of(const struct gs_sim *sim)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    gs_report_json(fp, sim);
    fclose(fp);
    return buf;
}

static const cJSON *at(const cJSON *o, const char *a, const char *b,
                       const char *c)
{
    o = cJSON_GetObjectItemCaseSensitive(o, a);
    if (o && b)
        o = cJSON_GetObjectItemCaseSensitive(o, b);
    if (o && c)
        o = cJSON_GetObjectItemCaseSensitive(o, c);
    return o;
}

static void test_run(void)
{
    struct run r;
    run_text(&r, scenario, "id,arrival,input_tokens,output_tokens,"
             "prefix_blocks\n1,10,2000,40,\n2,12,500,20,\n");
    if (r.rc) {
        char m[512];
        gs_test_diag_text(&r.d, m, sizeof m);
        fprintf(stderr, "%s\n", m);
    }
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_nservices(r.sim), 1);
    /* as made: valid JSON, no null among the figures changed below */
    char *clean = json_of(r.sim);
    cJSON *j = cJSON_Parse(clean);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT(cJSON_IsNumber(at(j, "utilization", NULL, NULL)));
    CU_ASSERT(cJSON_IsNumber(at(j, "cost_usd", NULL, NULL)));
    CU_ASSERT(cJSON_IsNumber(at(j, "tiers", "all", "wait_mean_s")));
    CU_ASSERT(cJSON_IsNumber(at(j, "models", "H100-80GB", "utilization")));
    CU_ASSERT(cJSON_IsNumber(at(j, "services", "s", "ttft_mean_s")));
    CU_ASSERT(cJSON_IsObject(at(j, "cost_by", "market", NULL)));
    CU_ASSERT(cJSON_IsObject(at(j, "energy_by", "fleet", NULL)));
    double jobs = cJSON_GetNumberValue(at(j, "tiers", "all", "jobs"));
    double busy = cJSON_GetNumberValue(at(j, "models", "H100-80GB",
                                          "gpu_hours"));
    double ttft99 = cJSON_GetNumberValue(at(j, "services", "s",
                                            "ttft_p99_s"));
    CU_ASSERT_EQUAL(jobs, 41);          /* and the replica's */
    CU_ASSERT(ttft99 > 0);
    cJSON_Delete(j);
    /* whatever made them: NaN and infinities in each kind of figure */
    struct gs_summary *su = (struct gs_summary *)gs_sim_summary(r.sim);
    struct gs_svcsum *sv = (struct gs_svcsum *)gs_sim_service(r.sim, 0);
    CU_ASSERT_FATAL(su->nmodels == 1);
    su->util = NAN;
    su->cost = INFINITY;
    su->all.wait_mean = -NAN;
    su->all.jct_p99 = -INFINITY;
    su->model[0].util = NAN;
    sv->ttft_mean = NAN;
    sv->cost_per_mtok = INFINITY;
    char *text = json_of(r.sim);
    j = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT(cJSON_IsNull(at(j, "utilization", NULL, NULL)));
    CU_ASSERT(cJSON_IsNull(at(j, "cost_usd", NULL, NULL)));
    CU_ASSERT(cJSON_IsNull(at(j, "tiers", "all", "wait_mean_s")));
    CU_ASSERT(cJSON_IsNull(at(j, "tiers", "all", "jct_p99_s")));
    CU_ASSERT(cJSON_IsNull(at(j, "models", "H100-80GB", "utilization")));
    CU_ASSERT(cJSON_IsNull(at(j, "services", "s", "ttft_mean_s")));
    CU_ASSERT(cJSON_IsNull(at(j, "services", "s", "cost_per_mtok_usd")));
    /* the figures around them unchanged */
    CU_ASSERT_EQUAL(cJSON_GetNumberValue(at(j, "tiers", "all", "jobs")),
                    jobs);
    CU_ASSERT_EQUAL(cJSON_GetNumberValue(at(j, "models", "H100-80GB",
                                            "gpu_hours")), busy);
    CU_ASSERT_EQUAL(cJSON_GetNumberValue(at(j, "services", "s",
                                            "ttft_p99_s")), ttft99);
    /* exactly those seven nulls: none elsewhere */
    int nulls = 0;
    for (const char *p = text; (p = strstr(p, "null")) != NULL; p++)
        nulls++;
    CU_ASSERT_EQUAL(nulls, 7);
    cJSON_Delete(j);
    free(text);
    free(clean);
    run_free(&r);
}

static CU_TestInfo tests[] = {
    { "a number not finite is null, others as printf says", test_num },
    { "--json with NaN and infinities parses, null in their places",
      test_run },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("report", tests)
