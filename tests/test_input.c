/* test_input.c -- every kind of bad input gets one clear message saying
 * where (file, line:column or JSON path) and what; good input parses. */
#include "cutest.h"
#include "simutil.h"
#include "../sim/setup/source.h"
#include "../traces/native.h"

#include <string.h>

/* Parse text; expect failure code and both fragments in "where: what". */
static void bad(const char *text, int code, const char *where,
                const char *what)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    int rc = gs_scenario_parse(text, "s.json", ".", &sc, &d);
    char msg[1200];
    gs_test_diag_text(&d, msg, sizeof msg);
    if (rc != code || !strstr(msg, where) || !strstr(msg, what))
        printf("\n    got rc=%d: %s", rc, msg);
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, what));
    CU_ASSERT_PTR_NULL(sc);
    gs_diag_free(&d);
}

#define FLEET "\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2}]"
#define GEN "\"workload\": {\"generate\": {\"jobs\": 10, \"rate_per_hour\": 5," \
            " \"classes\": [{\"duration\": {\"dist\": \"constant\"," \
            " \"value\": 60}}]}}"

static void test_scenario_errors(void)
{
    bad("{\"fleet\": [}", GS_EPARSE, "s.json:1:12", "malformed JSON");
    bad("{\n  \"seed\": 1,\n  \"fleet\": x\n}", GS_EPARSE, "s.json:3:", "JSON");
    bad("{" FLEET ", " GEN ", \"polcy\": \"fifo\"}", GS_EINVAL, "s.json: $",
        "unknown key 'polcy'");
    bad("{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": -1}], " GEN "}",
        GS_EINVAL, "$.fleet[0].nodes", "outside the allowed range");
    bad("{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": \"2\"}], " GEN "}",
        GS_EINVAL, "$.fleet[0].nodes", "expected a number");
    bad("{\"fleet\": [{\"gpu\": \"B200\", \"nodes\": 2}], " GEN "}",
        GS_EINVAL, "$.fleet[0].gpu", "unknown GPU model 'B200'");
    bad("{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2, \"gpus_per_node\":"
        " 2.5}], " GEN "}", GS_EINVAL, "$.fleet[0].gpus_per_node",
        "whole number");
    bad("{" FLEET "}", GS_EINVAL, "s.json: $", "missing required key "
        "'workload'");
    bad("{" GEN "}", GS_EINVAL, "s.json: $", "missing required key 'fleet'");
    bad("{" FLEET ", \"workload\": {\"generate\": {\"jobs\": 1,"
        " \"rate_per_hour\": 5, \"classes\": [{\"gpus\": 17, \"duration\":"
        " {\"dist\": \"constant\", \"value\": 60}}]}}}", GS_EINVAL,
        "$.workload.generate.classes[0].gpus", "larger than any pool");
    bad("{" FLEET ", \"workload\": {\"generate\": {\"jobs\": 1,"
        " \"rate_per_hour\": 5, \"classes\": [{\"duration\": {\"dist\":"
        " \"gamma\"}}]}}}", GS_EINVAL,
        "$.workload.generate.classes[0].duration.dist",
        "unknown distribution 'gamma'");
    bad("{" FLEET ", " GEN ", \"tiers\": {\"batch\": {}}}", GS_EINVAL,
        "$.tiers", "unknown key 'batch'");
    bad("{" FLEET ", " GEN ", \"tiers\": {\"training\": {\"max_wait\":"
        " \"5 parsecs\"}}}", GS_EINVAL, "$.tiers.training.max_wait",
        "expected a duration");
    bad("{" FLEET ", " GEN ", \"partitions\": [{\"pool\": \"nope\","
        " \"nodes\": 1}]}", GS_EINVAL, "$.partitions[0]",
        "no pool named 'nope'");
    bad("{" FLEET ", " GEN ", \"partitions\": [{\"pool\": \"pool0\","
        " \"nodes\": 3}]}", GS_EINVAL, "$.partitions[0]", "has 2 nodes");
    bad("{" FLEET ", \"workload\": {}}", GS_EINVAL, "$.workload",
        "exactly one of");
    bad("{" FLEET ", \"workload\": {\"trace\": {\"path\": \"x\"}}}",
        GS_EINVAL, "$.workload.trace", "missing required key 'format'");
    bad("{" FLEET ", " GEN ", \"seed\": 1.5}", GS_EINVAL, "$.seed",
        "whole number");
}

/* Errors found when the simulation is built or run. */
static void bad_run(const char *json, const char *csv, const char *where,
                    const char *what, int code)
{
    struct run r;
    run_text(&r, json, csv);
    char msg[1200];
    gs_test_diag_text(&r.d, msg, sizeof msg);
    if (r.rc != code || !strstr(msg, where) || !strstr(msg, what))
        printf("\n    got rc=%d: %s", r.rc, msg);
    CU_ASSERT_EQUAL(r.rc, code);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, what));
    run_free(&r);
}

#define TR(extra) "{" FLEET ", " extra " \"workload\": {\"trace\": " \
                  "{\"format\": \"native\", \"path\": \"%s\"}}}"

static void test_run_errors(void)
{
    bad_run("{" FLEET ", " GEN ", \"policy\": \"sjf\"}", NULL, "$.policy",
            "unknown policy 'sjf'", GS_ENOTFOUND);
    bad_run("{" FLEET ", " GEN ", \"placement\": \"worst-fit\"}", NULL,
            "test.json: $.placement", "unknown placement 'worst-fit'",
            GS_ENOTFOUND);
    bad_run("{" FLEET ", " GEN ", \"policy\": {\"name\": \"priority\","
            " \"preemt\": true}}", NULL, "$.policy.preemt",
            "unknown key 'preemt'", GS_EINVAL);
    bad_run("{" FLEET ", " GEN ", \"policy\": {\"name\": \"priority\","
            " \"preempt\": 3}}", NULL, "$.policy.preempt",
            "expected true or false", GS_EINVAL);
    bad_run("{" FLEET ", " GEN ", \"policy\": \"static\"}", NULL, "$.policy",
            "needs \"partitions\"", GS_EINVAL);
    bad_run("{" FLEET ", \"workload\": {\"trace\": {\"format\": \"native\","
            " \"path\": \"/nonexistent/t.csv\"}}}", NULL, "/nonexistent/t.csv",
            "cannot open", GS_EIO);
    bad_run("{" FLEET ", \"workload\": {\"trace\": {\"format\": \"nativ\","
            " \"path\": \"x\"}}}", NULL, "$.workload.trace.format",
            "unknown trace format 'nativ'", GS_ENOTFOUND);
    bad_run("{" FLEET ", \"workload\": {\"trace\": {\"format\": \"native\","
            " \"path\": \"%s\", \"sep\": \";\"}}}", "id,arrival,gpus,duration\n",
            "$.workload.trace.sep", "unknown key 'sep'", GS_EINVAL);
    /* Trace rows: file:line and the field. */
    bad_run(TR(""), "id,arrival,gpus,duration\n1,0,1,10\n2,5,x,10\n",
            ":3: field 'gpus'", "'x' is not a GPU count", GS_EPARSE);
    bad_run(TR(""), "id,arrival,gpus,duration\n1,0,1,10\n2,-5,1,10\n",
            ":3: field 'arrival'", "not a time", GS_EPARSE);
    bad_run(TR(""), "id,arrival,gpus,duration\n1,10,1,10\n2,5,1,10\n",
            ":3: field 'arrival'", "before the previous row", GS_EPARSE);
    bad_run(TR(""), "id,arrival,gpus,duration\n1,0,1\n", ":2",
            "3 fields where the header has 4", GS_EPARSE);
    bad_run(TR(""), "id,arrival,gpu,duration\n1,0,1,10\n", ":1",
            "unknown column 'gpu'", GS_EPARSE);
    bad_run(TR(""), "id,arrival,duration\n1,0,10\n", ":1",
            "lacks the required column 'gpus'", GS_EPARSE);
    bad_run(TR(""), "", ":1", "empty trace", GS_EPARSE);
    bad_run(TR(""), "id,arrival,gpus,duration,tier\n1,0,1,10,batch\n",
            ":2: field 'tier'", "unknown tier 'batch'", GS_EPARSE);
    bad_run(TR(""), "id,arrival,gpus,duration,ref_gpu\n1,0,1,10,B300\n",
            ":2: field 'ref_gpu'", "unknown GPU model 'B300'", GS_EPARSE);
    bad_run(TR(""), "id,arrival,gpus,duration,allowed_gpus\n"
            "1,0,1,10,T4|V100-16GB\n", "job 1 (trace line 2)",
            "no pool it may use", GS_EINVAL);
    bad_run(TR(""), "id,arrival,gpus,duration\n1,0,17,10\n",
            "job 1 (trace line 2)", "asks for 17 GPUs", GS_EINVAL);
    bad_run(TR(""), "id,arrival,gpus,duration\n1,0,1.5,10\n",
            ":2: field 'gpus'", "not a GPU count", GS_EPARSE);
    bad_run(TR(""), "id,arrival,gpus,duration\n1,0,1,10\n\"2,5,1,10\n",
            ":3", "", GS_EPARSE);
}

/* What the writer writes, the reader reads back identically. */
static void test_native_roundtrip(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    char path[64];
    write_temp("", path);
    FILE *fp = fopen(path, "w");
    gs_native_write_header(fp);
    struct gs_jobspec in[3];
    for (int i = 0; i < 3; i++) {
        gs_jobspec_init(&in[i]);
        in[i].id = 10 + i;
        in[i].arrival = 1234567 * (i + 1) + i;
        in[i].work = 3600001.0 + i;
    }
    in[0].gpus = 8;
    in[0].allowed = (1ULL << 2) | (1ULL << 3);
    in[0].ckpt = 1800000;
    in[0].deadline = 7200000;
    in[1].milli = 250;
    in[1].mem_gb = 12.5;
    in[1].tier = GS_TIER_INTERACTIVE;
    snprintf(in[1].tenant, sizeof in[1].tenant, "team-x");
    in[1].priority = -3;
    in[1].preemptible = 0;
    in[2].gpus = 1;
    in[2].ref_model = 1;
    in[2].cb = 0.25;
    in[2].estimate = 5000;
    in[2].max_wait = 0;
    for (int i = 0; i < 3; i++)
        gs_native_write_row(fp, &in[i], &cat);
    fclose(fp);
    struct gs_native *r = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_native_open(path, &cat, &r, &d), 0);
    struct gs_jobspec out;
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL_FATAL(gs_native_next(r, &out, &d), 1);
        in[i].line = i + 2;
        CU_ASSERT(memcmp(&in[i], &out, sizeof out) == 0);
    }
    CU_ASSERT_EQUAL(gs_native_next(r, &out, &d), 0);
    gs_native_close(r);
    unlink(path);
    gs_diag_free(&d);
}

static void test_registry_unique(void)
{
    for (int i = 0; gs_policies[i]; i++) {
        CU_ASSERT_EQUAL(gs_policies[i]->abi, GS_POLICY_ABI);
        CU_ASSERT_PTR_NOT_NULL(gs_policies[i]->schedule);
        CU_ASSERT_PTR_EQUAL(gs_policy_find(gs_policies[i]->name),
                            gs_policies[i]);
        for (int k = 0; k < i; k++)
            CU_ASSERT_STRING_NOT_EQUAL(gs_policies[i]->name,
                                       gs_policies[k]->name);
    }
    for (int i = 0; gs_placers[i]; i++)
        for (int k = 0; k < i; k++)
            CU_ASSERT_STRING_NOT_EQUAL(gs_placers[i]->name,
                                       gs_placers[k]->name);
    for (int i = 0; gs_trace_formats[i]; i++)
        for (int k = 0; k < i; k++)
            CU_ASSERT_STRING_NOT_EQUAL(gs_trace_formats[i]->name,
                                       gs_trace_formats[k]->name);
    CU_ASSERT_PTR_NULL(gs_policy_find("no-such-policy"));
    CU_ASSERT_PTR_NOT_NULL(gs_policy_find("fifo-backfill"));
}

static void test_durations(void)
{
    gs_time t = -1;
    CU_ASSERT_EQUAL(gs_parse_time("90", &t), 0);
    CU_ASSERT_EQUAL(t, 90000);
    CU_ASSERT_EQUAL(gs_parse_time("250ms", &t), 0);
    CU_ASSERT_EQUAL(t, 250);
    CU_ASSERT_EQUAL(gs_parse_time("1.5h", &t), 0);
    CU_ASSERT_EQUAL(t, 5400000);
    CU_ASSERT_EQUAL(gs_parse_time("2d", &t), 0);
    CU_ASSERT_EQUAL(t, 2 * 86400000LL);
    CU_ASSERT_EQUAL(gs_parse_time("5 m", &t), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_parse_time("-1s", &t), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_parse_time("h", &t), GS_EINVAL);
}

static CU_TestInfo tests[] = {
    { "scenario errors name the place", test_scenario_errors },
    { "run-time errors: policy, trace rows", test_run_errors },
    { "native trace: write then read is identical", test_native_roundtrip },
    { "registries: unique names, ABI", test_registry_unique },
    { "duration strings", test_durations },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("input", tests)
