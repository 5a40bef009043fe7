/* test_schema.c -- the scenario's key tables (io/keytab.h), the JSON Schema
 * made from them (`gpusim scenario --schema`) and `gpusim scenario --check`.
 *
 * The shipped schema (scenarios/gpusim.schema.json) is what the program
 * prints, byte for byte.  Every shipped scenario validates against it with
 * Debian's python3-jsonschema, and mutants of them (tests/schema_mutants.py:
 * a key dropped, an unknown key added, a type changed, a number out of
 * range, a name misspelled, at every level) are accepted or refused alike by
 * the schema and by the parser (tests/schema_agree.py), but for the checks
 * no JSON Schema can state (references between objects), which are counted
 * apart.  `make test` takes every 5th mutant; GS_TEST_LONG=1 all of them.
 * The table-driven readers keep the parser's messages: the JSON path, the
 * range, "did you mean". */
#include "cutest.h"
#include "clitest.h"
#include "simutil.h"

#include <string.h>

/* Parse text; expect failure code and both fragments in "where: what". */
static void bad(const char *text, const char *where, const char *what)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    int rc = gs_scenario_parse(text, "s.json", ".", &sc, &d);
    char msg[1200];
    gs_test_diag_text(&d, msg, sizeof msg);
    if (rc >= 0 || !strstr(msg, where) || !strstr(msg, what))
        printf("\n    got rc=%d: %s", rc, msg);
    CU_ASSERT(rc < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, what));
    CU_ASSERT_PTR_NULL(sc);
    gs_diag_free(&d);
}

#define FLEET "\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2}]"
#define CLASS "{\"duration\": {\"dist\": \"constant\", \"value\": 60}}"
#define GEN(cls) "\"workload\": {\"generate\": {\"jobs\": 10, " \
                 "\"rate_per_hour\": 5, \"classes\": [" cls "]}}"

/* The tables give each object its keys, ranges and required keys; the
 * messages are the parser's own. */
static void test_tables_in_the_parser(void)
{
    /* an unknown key at depth, with the nearest one of its table */
    bad("{" FLEET ", " GEN("{\"duraton\": {\"dist\": \"constant\", "
        "\"value\": 60}}") "}", "$.workload.generate.classes[0]",
        "unknown key 'duraton' (did you mean 'duration'?)");
    /* a range from the class table */
    bad("{" FLEET ", " GEN("{\"comm_share\": 2, \"duration\": {\"dist\": "
        "\"constant\", \"value\": 60}}") "}",
        "$.workload.generate.classes[0].comm_share",
        "2 is outside the allowed range [0, 1]");
    /* a key one sharing mode requires, and one of another mode */
    bad("{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2, \"sharing\": "
        "{\"mode\": \"time-slicing\"}}], " GEN(CLASS) "}",
        "$.fleet[0].sharing", "missing required key 'replicas'");
    bad("{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2, \"sharing\": "
        "{\"mode\": \"mig\", \"replicas\": 2}}], " GEN(CLASS) "}",
        "$.fleet[0].sharing", "unknown key 'replicas' (allowed: mode, "
        "layout, reconfigure, reconfigure_time)");
    /* a string's length from its entry */
    char text[600];
    snprintf(text, sizeof text, "{\"fleet\": [{\"gpu\": \"H100-80GB\", "
             "\"nodes\": 2, \"name\": \"%070d\"}], " GEN(CLASS) "}", 0);
    bad(text, "$.fleet[0].name", "longer than 63 characters");
    /* the trace's format is checked where it is read */
    bad("{" FLEET ", \"workload\": {\"trace\": {\"format\": \"natve\", "
        "\"path\": \"x.csv\"}}}", "s.json: $.workload.trace.format",
        "unknown trace format 'natve' (did you mean 'native'?)");
    /* "$schema" is a key of the top level, for editors, and ignored */
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_scenario_parse("{\"$schema\": \"gpusim.schema.json\", "
                                      FLEET ", " GEN(CLASS) "}", "s.json",
                                      ".", &sc, &d), 0);
    CU_ASSERT_PTR_NOT_NULL(sc);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* The shipped schema is the one the program prints. */
static void test_schema_file_is_generated(void)
{
    char *out = NULL, *err = NULL;
    int rc = gs_cli_run("", "scenario --schema", &out, &err);
    CU_ASSERT_EQUAL(rc, 0);
    char *file = gs_cli_slurp("scenarios/gpusim.schema.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(file);
    int same = strcmp(out, file) == 0;
    if (!same)
        printf("\n    scenarios/gpusim.schema.json differs from `gpusim "
               "scenario --schema`: regenerate it (make schema)");
    CU_ASSERT(same);
    /* a closed object, a registry's names, a range, the GPU rule */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"additionalProperties\": false"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"fifo-backfill\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"maximum\": 63"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "[hH]100-80[gG][bB]"));
    free(out);
    free(err);
    free(file);
}

/* scenario --check: ok, a bad value, an unknown policy; exit 2 when any
 * file is invalid. */
static void test_check_command(void)
{
    char *out = NULL, *err = NULL;
    int rc = gs_cli_run("", "scenario --check scenarios/hps-paper.json",
                        &out, &err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "scenarios/hps-paper.json: ok"));
    free(out);
    free(err);
    FILE *f = fopen(gs_cli_tmp("/tmp/gs-test-pol.json"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{" FLEET ", \"policy\": \"fiar\", " GEN(CLASS) "}", f);
    fclose(f);
    f = fopen(gs_cli_tmp("/tmp/gs-test-neg.json"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": -2}], "
          GEN(CLASS) "}", f);
    fclose(f);
    rc = gs_cli_run("", "scenario --check /tmp/gs-test-pol.json "
                    "scenarios/topology.json /tmp/gs-test-neg.json", &out,
                    &err);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "scenarios/topology.json: ok"));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "gs-test-pol.json: $.policy: "
                                         "unknown policy 'fiar' (did you "
                                         "mean 'fair'?)"));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "gs-test-neg.json: "
                                         "$.fleet[0].nodes: -2 is outside "
                                         "the allowed range"));
    free(out);
    free(err);
    rc = gs_cli_run("", "scenario --check", NULL, NULL);
    CU_ASSERT_EQUAL(rc, 2);
}

/* $.plan has its tables (the planner's, handed in by the CLI): the schema
 * describes and closes it, and --check reads it as `gpusim plan` does,
 * each choice's values applied to the scenario, naming the plan's path. */
static void test_plan_section(void)
{
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(gs_cli_run("", "scenario --schema", &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    /* the root's plan refers to the planner's table, and that is closed */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"$ref\": \"#/$defs/plan\""));
    const char *defs = strstr(out, "\n  \"$defs\": {");
    CU_ASSERT_PTR_NOT_NULL_FATAL(defs);
    const char *t = strstr(defs, "\n    \"plan_targets\": {");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"ttft_p99\""));
    const char *pl = strstr(defs, "\n    \"plan\": {");
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    const char *end = strstr(pl + 1, "\n    \"");
    const char *closed = strstr(pl, "\"additionalProperties\": false");
    CU_ASSERT(closed != NULL && (end == NULL || closed < end));
    CU_ASSERT_PTR_NOT_NULL(strstr(pl, "\"cost_per_million_tokens\""));
    free(out);
    free(err);
    static const struct { const char *plan, *msg; } bad[] = {
        { "{\"targets\": {\"wait_p95\": 60}, \"search\": {\"pools\": "
          "[{\"pool\": \"gpu\", \"nodez\": [1, 4]}]}}",
          "$.plan.search.pools[0]: unknown key 'nodez' (did you mean "
          "'nodes'?)" },
        { "{\"targets\": {\"wait_p95\": 60, \"tiers\": {\"training\": "
          "{}}}, \"search\": {\"pools\": [{\"pool\": \"gpu\", \"nodes\": "
          "[1, 4]}]}}", "$.plan.targets.tiers.training: give at least one "
          "of wait_mean, wait_p95" },
        { "{\"targets\": {\"wait_p95\": 60}, \"search\": {\"pools\": "
          "[{\"pool\": \"gpu\", \"nodes\": [1, 4], \"market\": "
          "[\"on-demand\", \"spto\"]}]}}",
          "$.plan.search.pools[0].market[1]: makes the scenario invalid: "
          "$.fleet[0].market: unknown market 'spto'" },
        { "{\"targets\": {\"wait_p95\": 60}, \"search\": {\"policies\": "
          "[\"fifo\", {\"name\": \"fair\", \"nope\": [1]}]}}",
          "$.plan.search.policies[1]: makes the scenario invalid: $.policy" },
        { "{\"targets\": {\"wait_p95\": 60}, \"search\": {\"pools\": "
          "[{\"pool\": \"gpu\", \"nodes\": [4, 1]}]}}",
          "$.plan.search.pools[0].nodes: min 4 is above max 1" },
        { "{\"targets\": {\"wait_p95\": 1e300}, \"search\": {\"pools\": "
          "[{\"pool\": \"gpu\", \"nodes\": [1, 4]}]}}",
          "$.plan.targets.wait_p95: expected a duration" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(gs_cli_tmp("/tmp/gs-test-plan.json"), "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fprintf(f, "{\"fleet\": [{\"name\": \"gpu\", \"gpu\": "
                "\"H100-80GB\", \"nodes\": 2}], " GEN(CLASS) ", \"plan\": "
                "%s}", bad[i].plan);
        fclose(f);
        int rc = gs_cli_run("", "scenario --check /tmp/gs-test-plan.json",
                            &out, &err);
        if (rc != 2 || !err || !strstr(err, bad[i].msg))
            printf("\n    %s -> %d: %s", bad[i].plan, rc, err ? err : "");
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_PTR_NOT_NULL(err && strstr(err, bad[i].msg));
        free(out);
        free(err);
    }
    /* every shipped plan passes */
    CU_ASSERT_EQUAL(gs_cli_run("", "scenario --check scenarios/plan-erlang"
                               ".json scenarios/plan-mixed-tier.json "
                               "scenarios/plan-service.json", &out, &err), 0);
    free(out);
    free(err);
}

/* The parser and the schema agree on the shipped scenarios and their
 * mutants ($.plan's too). */
static void test_schema_and_parser_agree(void)
{
    if (system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0) {
        printf("\n    /usr/bin/python3 has no jsonschema: install Debian's "
               "python3-jsonschema (make deps)");
        CU_FAIL("python3-jsonschema missing");
        return;
    }
    const char *dir = gs_cli_tmp("/tmp/gs-test-mutants");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 tests/schema_mutants.py --every %d %s "
             "scenarios/*.json scenarios/import/*-replay.json >/dev/null && "
             "/usr/bin/python3 tests/schema_agree.py %s "
             "scenarios/gpusim.schema.json %s >%s/agree.txt 2>&1",
             gs_test_long() ? 1 : 5, dir, gs_cli_bin(), dir, dir);
    int rc = system(cmd);
    char path[600];
    snprintf(path, sizeof path, "%s/agree.txt", dir);
    char *out = gs_cli_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    if (out == NULL)   /* gcc -O1 cannot see that _FATAL does not return */
        return;
    printf("\n%s", out);
    CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    const char *line = strstr(out, "agree on ");
    long agree = 0, total = 0, acc = 0, ref = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT_EQUAL(sscanf(line, "agree on %ld of %ld", &agree, &total), 2);
    const char *b = strstr(line, "both accept ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(sscanf(b, "both accept %ld, both refuse %ld", &acc,
                           &ref), 2);
    /* a sample that can fail: hundreds of mutants (fewer when scenarios
     * were skipped for want of traces), both answers seen */
    CU_ASSERT(total >= (strstr(out, "[skipped") ? 300 : 1000));
    CU_ASSERT(acc >= 50 && ref >= 200);
    CU_ASSERT(agree <= total);
    free(out);
}

static CU_TestInfo tests[] = {
    { "the key tables in the parser: paths, ranges, did you mean",
      test_tables_in_the_parser },
    { "scenarios/gpusim.schema.json is `gpusim scenario --schema`",
      test_schema_file_is_generated },
    { "scenario --check: ok, bad values, unknown policy", test_check_command },
    { "$.plan: its tables in the schema, checked by --check",
      test_plan_section },
    { "schema and parser accept and refuse the same mutants",
      test_schema_and_parser_agree },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("schema", tests)
