/* test_sweep.c -- key-path edits, value lists, `gpusim sweep` end to end:
 * validation naming the key, runs equal to `gpusim run` at the same point
 * and seed, the confidence interval, determinism and MPI = one process. */
#include "cutest.h"
#include "clitest.h"
#include "../sim/studies/compare.h"
#include "../sim/studies/planjson.h"
#include "../sim/studies/sweep.h"

#include <limits.h>
#include <math.h>

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void test_split(void)
{
    char **v;
    int n = gs_split_values("4,6,8", &v);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_STRING_EQUAL(v[2], "8");
    free_list(v, n);
    n = gs_split_values("{\"mode\":\"mig\",\"layout\":[1,2]},fair,\"a,b\"",
                        &v);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_STRING_EQUAL(v[0], "{\"mode\":\"mig\",\"layout\":[1,2]}");
    CU_ASSERT_STRING_EQUAL(v[1], "fair");
    CU_ASSERT_STRING_EQUAL(v[2], "\"a,b\"");
    free_list(v, n);
    CU_ASSERT_EQUAL(gs_split_values("a,,b", &v), -1);
    CU_ASSERT_EQUAL(gs_split_values("[1,2", &v), -1);
    CU_ASSERT_EQUAL(gs_split_values("1]", &v), -1);
    CU_ASSERT_EQUAL(gs_split_values("", &v), -1);
}

static void test_edit(void)
{
    const char *text = "{\"fleet\": [{\"name\": \"a\", \"nodes\": 2}], "
                       "\"policy\": \"fair\", \"w\": {\"rate\": 10}}";
    struct gs_edit e[4] = {
        { GS_EDIT_SET, "fleet[0].nodes", "7" },
        { GS_EDIT_SET, "$.policy.preempt", "true" },
        { GS_EDIT_SCALE, "w.rate", "1.5" },
        { GS_EDIT_CLONE, "fleet[0]", "{\"name\": \"a-spot\", \"nodes\": 0}" },
    };
    char *out = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_json_edit(text, e, 4, &out, "--set", &d), 0);
    CU_ASSERT_STRING_EQUAL(out, "{\"fleet\":[{\"name\":\"a\",\"nodes\":7},"
                           "{\"name\":\"a-spot\",\"nodes\":0}],\"policy\":"
                           "{\"name\":\"fair\",\"preempt\":true},\"w\":"
                           "{\"rate\":15}}");
    free(out);
    CU_ASSERT_EQUAL(gs_json_count(text, "fleet"), 1);
    CU_ASSERT_EQUAL(gs_json_count(text, "policy"), -1);
    /* errors name the key path and the problem */
    struct gs_edit bad[] = {
        { GS_EDIT_SET, "fleet[3].nodes", "1" },
        { GS_EDIT_SET, "fleet.nodes", "1" },
        { GS_EDIT_SET, "w.rate.x", "1" },
        { GS_EDIT_SET, "fleet[0]..nodes", "1" },
        { GS_EDIT_SCALE, "fleet[0].name", "2" },
    };
    const char *msg[] = { "$.fleet has 1 element; there is no [3]",
                          "$.fleet is not an object",
                          "$.w.rate is not an object",
                          "malformed key path",
                          "is not a number" };
    for (int i = 0; i < 5; i++) {
        struct gs_diag dd = { 0 };
        out = NULL;
        CU_ASSERT_EQUAL(gs_json_edit(text, &bad[i], 1, &out, "--set", &dd),
                        GS_EINVAL);
        CU_ASSERT_PTR_NULL(out);
        CU_ASSERT_PTR_NOT_NULL(strstr(dd.what, msg[i]));
        CU_ASSERT_PTR_NOT_NULL(strstr(dd.where, bad[i].path));
        gs_diag_free(&dd);
    }
    gs_diag_free(&d);
}

/* Key paths of any length: a 400-character key is walked and named whole
 * (gs_edit's path[256], the walk's key[128] and done[300] cut it, or
 * called it malformed). */
static void test_edit_long_keys(void)
{
    char k1[401], k2[401];
    memset(k1, 'a', 400);
    memset(k2, 'b', 400);
    k1[400] = k2[400] = '\0';
    const char *text = "{\"w\": {\"rate\": 10}}";
    char *path = NULL, *want = NULL, *out = NULL;
    CU_ASSERT_FATAL(asprintf(&path, "w.%s.%s[0]", k1, k2) > 0);
    CU_ASSERT_FATAL(asprintf(&want, "$.w.%s.%s is not an array", k1, k2) > 0);
    struct gs_edit e = { GS_EDIT_SET, path, "1" };
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_json_edit(text, &e, 1, &out, "--set", &d), GS_EINVAL);
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_STRING_EQUAL(gs_diag_what(&d), want);
    CU_ASSERT_PTR_NOT_NULL(strstr(gs_diag_where(&d), path));
    gs_diag_free(&d);
    /* set whole: the new keys are the given ones */
    e.path[strlen(e.path) - 3] = '\0';             /* drop "[0]" */
    CU_ASSERT_EQUAL_FATAL(gs_json_edit(text, &e, 1, &out, "--set", &d), 0);
    free(want);
    CU_ASSERT_FATAL(asprintf(&want, "{\"w\":{\"rate\":10,\"%s\":{\"%s\":1}}}",
                             k1, k2) > 0);
    CU_ASSERT_STRING_EQUAL(out, want);
    CU_ASSERT_EQUAL(gs_json_has(out, path), 1);
    free(out);
    free(want);
    free(path);
}

/* --csv quotes a key as it quotes a value: a quote in it doubled (RFC
 * 4180), so the header has as many fields as the rows (an instance type
 * under $.prices may hold one; the header wrote it raw). */
static void test_csv_key_quoted(void)
{
    char *out = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", "sweep scenarios/small-tenants.json "
                                     "--set 'prices.a\"b.spot=1,2' --csv -s 2 "
                                     "--metrics utilization --out "
                                     "/tmp/gs-test-sweep-csvkey.h5", &out,
                                     NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strncmp(out, "point,\"prices.a\"\"b.spot\","
                                               "metric,", 30) == 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\n2,\"2\",utilization,2,"));
    free(out);
    unlink(gs_cli_tmp("/tmp/gs-test-sweep-csvkey.h5"));
}

static void test_metric_list(void)
{
    int n = gs_run_nmetrics();
    CU_ASSERT(n > gs_compare_nmetrics());
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(gs_run_metric_index(gs_run_metric_name(i)), i);
        for (int j = 0; j < i; j++)
            CU_ASSERT(strcmp(gs_run_metric_name(i), gs_run_metric_name(j)));
    }
    CU_ASSERT(gs_run_metric_index("training.wait_p95_s") >= 0);
    CU_ASSERT(gs_run_metric_index("attainment") >= 0);
    CU_ASSERT_EQUAL(gs_run_metric_index("no_such_metric"), -1);
}

static void expect_bad(const char *args, const char *msg)
{
    char *err = NULL, full[1024];
    snprintf(full, sizeof full, "sweep %s --out /tmp/gs-test-sweep-bad.h5",
             args);
    int rc = gs_cli_run("", full, NULL, &err);
    if (rc != 2 || !err || !strstr(err, msg))
        printf("\n    %s -> %d: %s", args, rc, err ? err : "");
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, msg));
    CU_ASSERT_EQUAL(access(gs_cli_tmp("/tmp/gs-test-sweep-bad.h5"), F_OK), -1);
    free(err);
}

/* A bad --set is told in the user's words: the option and its argument
 * as typed, then the JSON path and the problem -- never the edited
 * scenario's name, which no file on disk has -- and before any run. */
static void test_bad_input(void)
{
    /* a 400-character key: edited, refused and named whole, never cut
     * (gpusim refused a key over 255 characters as a usage error) */
    char k[401], a[1024], m[1024];
    memset(k, 'k', 400);
    k[400] = '\0';
    snprintf(a, sizeof a, "scenarios/small-tenants.json --set "
             "'fleet[0].%s=2,4'", k);
    snprintf(m, sizeof m, "gpusim: --set fleet[0].%s=2,4: $.fleet[0]: "
             "unknown key '%s' (", k, k);
    expect_bad(a, m);
    snprintf(a, sizeof a, "scenarios/small-tenants.json --set "
             "'fleet[0].%s[2]=1'", k);
    snprintf(m, sizeof m, "gpusim: --set fleet[0].%s[2]=1: $.fleet[0].%s "
             "is not an array", k, k);
    expect_bad(a, m);
    expect_bad("scenarios/small-tenants.json --set 'fleet[0].nodez=2,4'",
               "gpusim: --set fleet[0].nodez=2,4: $.fleet[0]: unknown key "
               "'nodez' (did you mean 'nodes'?)");
    expect_bad("scenarios/small-tenants.json --set 'fleet[9].nodes=2'",
               "gpusim: --set fleet[9].nodes=2: $.fleet has 2 elements");
    expect_bad("scenarios/small-tenants.json --set 'fleet[0].nodes=2,,4'",
               "cannot split the values");
    expect_bad("scenarios/small-tenants.json --set 'policy.name=nope'",
               "gpusim: --set policy.name=nope: $.policy");
    expect_bad("scenarios/small-tenants.json --set 'fleet[0].nodes=-1'",
               "gpusim: --set fleet[0].nodes=-1: $.fleet[0].nodes: -1 is "
               "outside the allowed range");
    /* a registry's name: refused while the points are built, with the
     * suggestion; the other --set is not blamed */
    expect_bad("scenarios/small-tenants.json --set 'fleet[0].nodes=2,3' "
               "--set policy=fifo,fiar", "gpusim: --set policy=fifo,fiar: "
               "$.policy: unknown policy 'fiar' (did you mean 'fair'?)");
    expect_bad("scenarios/small-tenants.json --set placement=frist-fit",
               "gpusim: --set placement=frist-fit: $.placement: unknown "
               "placement 'frist-fit' (did you mean 'first-fit'?)");
    /* a check across keys: every --set, then the edited scenario's path */
    expect_bad("scenarios/hps-paper.json --set 'fleet[0].nodes=0'",
               "gpusim: --set fleet[0].nodes=0: scenarios/hps-paper.json "
               "(edited): $.workload.generate.classes[0].gpus: a job of 1 "
               "GPUs is larger than any pool");
    char *err = NULL;
    gs_cli_run("", "sweep scenarios/small-tenants.json --set policy=fiar "
               "--out /tmp/gs-test-sweep-bad.h5", NULL, &err);
    CU_ASSERT_PTR_NULL(err ? strstr(err, "(edited)") : NULL);
    CU_ASSERT_PTR_NULL(err ? strstr(err, "seed") : NULL);     /* no run */
    free(err);
    expect_bad("scenarios/small-tenants.json --set nodes", "--set wants KEY=");
    expect_bad("scenarios/small-tenants.json --set a=1 --set a=2",
               "given twice");
    expect_bad("scenarios/small-tenants.json --metrics nope", "no metric");
}

/* The value of metric in CSV line "P,VALUES...,metric,n,mean,..." */
static double csv_mean(const char *csv, int point, const char *metric)
{
    char key[128];
    snprintf(key, sizeof key, ",%s,", metric);
    for (const char *l = csv; l && *l;) {
        const char *nl = strchr(l, '\n');
        if (atoi(l) == point) {
            const char *k = strstr(l, key);
            if (k && (!nl || k < nl)) {
                int n;
                double mean;
                if (sscanf(k + strlen(key), "%d,%lf", &n, &mean) == 2)
                    return mean;
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    return NAN;
}

static double run_value(const char *args, const char *key)
{
    char *out = NULL;
    double v = NAN;
    if (gs_cli_run("", args, &out, NULL) == 0 && out) {
        const char *k = strstr(out, key);
        if (k)
            v = strtod(k + strlen(key), NULL);
    }
    free(out);
    return v;
}

static void test_points_are_runs(void)
{
    /* one seed: each point's mean is exactly `gpusim run` at that point */
    char *out = NULL;
    int rc = gs_cli_run("", "sweep scenarios/small-tenants.json --set "
                        "policy.name=fifo,fair --seeds 1 --csv --jobs 2 "
                        "--out /tmp/gs-test-sweep-1.h5", &out, NULL);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    double fifo = run_value("run scenarios/small-tenants.json --policy fifo "
                            "--csv --no-out", "tier:all,wait_mean_s,");
    double fair = run_value("run scenarios/small-tenants.json --policy fair "
                            "--csv --no-out", "tier:all,wait_mean_s,");
    CU_ASSERT(!isnan(fifo) && !isnan(fair));
    CU_ASSERT_DOUBLE_EQUAL(csv_mean(out, 1, "wait_mean_s"), fifo,
                           1e-6 * (1 + fabs(fifo)));
    CU_ASSERT_DOUBLE_EQUAL(csv_mean(out, 2, "wait_mean_s"), fair,
                           1e-6 * (1 + fabs(fair)));
    CU_ASSERT(fabs(fifo - fair) > 1e-3);    /* the key did change the run */
    free(out);
    unlink(gs_cli_tmp("/tmp/gs-test-sweep-1.h5"));
}

static void test_interval(void)
{
    /* three seeds: mean and half-width are the t interval of the three
     * single runs */
    char *out = NULL;
    int rc = gs_cli_run("", "sweep scenarios/small-tenants.json --set "
                        "'fleet[0].nodes=3' --seeds 3 --csv --metrics "
                        "utilization --out /tmp/gs-test-sweep-3.h5", &out,
                        NULL);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *sc = gs_cli_slurp("scenarios/small-tenants.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
    const char *s = strstr(sc, "\"seed\":");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    long seed0 = strtol(s + 7, NULL, 10);
    free(sc);
    double x[3];
    for (int k = 0; k < 3; k++) {
        char a[512];
        snprintf(a, sizeof a, "sweep scenarios/small-tenants.json --set "
                 "'fleet[0].nodes=3' --set seed=%ld --seeds 1 --csv "
                 "--metrics utilization --out /tmp/gs-test-sweep-s.h5",
                 seed0 + k);
        char *o = NULL;
        CU_ASSERT_EQUAL(gs_cli_run("", a, &o, NULL), 0);
        x[k] = o ? csv_mean(o, 1, "utilization") : NAN;
        free(o);
    }
    double mean, sd, t, half;
    gs_ci95(x, 3, &mean, &sd, &t, &half);
    CU_ASSERT_DOUBLE_EQUAL(csv_mean(out, 1, "utilization"), mean, 1e-8);
    const char *l = strstr(out, ",utilization,3,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    double m2, sd2, h2;
    CU_ASSERT_EQUAL(sscanf(l, ",utilization,3,%lf,%lf,%lf", &m2, &sd2, &h2),
                    3);
    CU_ASSERT_DOUBLE_EQUAL(h2, 4.302652729749464 * sd / sqrt(3.0), 1e-8);
    free(out);
    unlink(gs_cli_tmp("/tmp/gs-test-sweep-3.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-sweep-s.h5"));
}

/* --precision R: seeds are added until every point's interval of the
 * --metrics metrics is within R of its mean, and the grown sweep is the
 * sweep that many seeds give from the start (same CSV); without
 * --metrics, or with R out of (0, 1), a usage error. */
static void test_precision(void)
{
    char *out = NULL, *err = NULL;
    const char *base = "sweep scenarios/small-tenants.json --set "
                       "'fleet[0].nodes=3,4' --csv --metrics utilization "
                       "--out /tmp/gs-test-sweep-p.h5";
    char a[512];
    snprintf(a, sizeof a, "%s --seeds 2 --precision 0.05 --max-seeds 60",
             base);
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", a, &out, &err), 0);
    const char *m = err ? strstr(err, "--precision 0.05: met with ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    int n = atoi(m + strlen("--precision 0.05: met with "));
    CU_ASSERT(n > 2 && n < 60);
    for (int p = 1; p <= 2; p++) {
        char key[64];
        snprintf(key, sizeof key, "%d,\"%d\",utilization,%d,", p, p + 2, n);
        const char *l = out ? strstr(out, key) : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        double mean, sd, half;
        CU_ASSERT_EQUAL(sscanf(l + strlen(key), "%lf,%lf,%lf", &mean, &sd,
                               &half), 3);
        CU_ASSERT(half <= 0.05 * mean);
    }
    /* the grown sweep is the sweep with n seeds from the start: the same
     * table */
    char *same = NULL;
    snprintf(a, sizeof a, "%s --seeds %d", base, n);
    CU_ASSERT_EQUAL(gs_cli_run("", a, &same, NULL), 0);
    CU_ASSERT_STRING_EQUAL(out ? out : "", same ? same : "-");
    free(same);
    free(out);
    free(err);
    err = NULL;
    snprintf(a, sizeof a, "sweep scenarios/small-tenants.json --set "
             "'fleet[0].nodes=3' --precision 0.05 --out "
             "/tmp/gs-test-sweep-p.h5");
    CU_ASSERT_EQUAL(gs_cli_run("", a, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "--precision needs --metrics"));
    free(err);
    err = NULL;
    snprintf(a, sizeof a, "%s --precision 1.5", base);
    CU_ASSERT_EQUAL(gs_cli_run("", a, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "not '1.5'"));
    free(err);
    unlink(gs_cli_tmp("/tmp/gs-test-sweep-p.h5"));
}

static void test_same_bytes_and_mpi(void)
{
    const char *args = "sweep scenarios/small-tenants.json --set "
                       "'fleet[0].nodes=2,4' --set policy.name=fair,hps "
                       "--seeds 2";
    char a[512];
    char *o1 = NULL, *o2 = NULL, *o3 = NULL;
    snprintf(a, sizeof a, "%s --jobs 1 --out /tmp/gs-test-sweep-a.h5", args);
    CU_ASSERT_EQUAL(gs_cli_run("", a, &o1, NULL), 0);
    snprintf(a, sizeof a, "%s --jobs 2 --out /tmp/gs-test-sweep-b.h5", args);
    CU_ASSERT_EQUAL(gs_cli_run("", a, &o2, NULL), 0);
    snprintf(a, sizeof a, "%s --out /tmp/gs-test-sweep-c.h5", args);
    CU_ASSERT_EQUAL(gs_cli_run(GS_MPIRUN, a, &o3, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o3);
    CU_ASSERT_PTR_NOT_NULL(strstr(o1, "P4   fleet[0].nodes=4 policy.name=hps"));
    CU_ASSERT_STRING_EQUAL(o1, o2);
    CU_ASSERT_STRING_EQUAL(o1, o3);
    CU_ASSERT(gs_cli_same_file("/tmp/gs-test-sweep-a.h5",
                               "/tmp/gs-test-sweep-b.h5"));
    CU_ASSERT(gs_cli_same_file("/tmp/gs-test-sweep-a.h5",
                               "/tmp/gs-test-sweep-c.h5"));
    free(o1);
    free(o2);
    free(o3);
    unlink(gs_cli_tmp("/tmp/gs-test-sweep-a.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-sweep-b.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-sweep-c.h5"));
}

/* compare is a sweep over policies: `compare --policies a,b --bill-until
 * own` and `sweep --set policy=a,b` (the whole policy replaced, as
 * compare's override does) give the same mean for every metric of
 * compare's list (a sweep bills each run over its own span). */
static void test_compare_is_a_sweep(void)
{
    char *c = NULL, *s = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", "compare scenarios/small-tenants.json "
                                     "--policies fifo,fair --seeds 2 --csv "
                                     "--bill-until own --no-plots "
                                     "--out /tmp/gs-test-cmp.h5",
                                     &c, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(gs_cli_run("", "sweep scenarios/small-tenants.json "
                                     "--set policy=fifo,fair --seeds 2 --csv "
                                     "--out /tmp/gs-test-cmp-sweep.h5", &s,
                                     NULL), 0);
    const char *const *names = gs_compare_metric_names();
    int checked = 0;
    for (int p = 0; p < 2; p++)
        for (int m = 0; m < gs_compare_nmetrics(); m++) {
            char key[160];
            snprintf(key, sizeof key, "%s,%s,2,", p ? "fair" : "fifo",
                     names[m]);
            const char *l = c ? strstr(c, key) : NULL;
            CU_ASSERT_PTR_NOT_NULL_FATAL(l);
            double want = strtod(l + strlen(key), NULL);
            double got = csv_mean(s, p + 1, names[m]);
            if (!(fabs(got - want) <= 1e-9 * (1 + fabs(want))))
                printf("\n    %s %s: compare %.10g, sweep %.10g",
                       p ? "fair" : "fifo", names[m], want, got);
            CU_ASSERT_DOUBLE_EQUAL(got, want, 1e-9 * (1 + fabs(want)));
            checked++;
        }
    CU_ASSERT_EQUAL(checked, 2 * gs_compare_nmetrics());
    free(c);
    free(s);
    unlink(gs_cli_tmp("/tmp/gs-test-cmp.h5"));
    unlink(gs_cli_tmp("/tmp/gs-test-cmp-sweep.h5"));
}

/* The command line as every gpusim command has it: the result named after
 * the scenario file in the current folder, never replaced without
 * --force; getopt_long forms (--seeds=1, short -s/-q/-f); a misspelled
 * option gets "did you mean".  `plan` refuses an existing default file
 * before it runs anything, and under mpirun both commands refuse once, on
 * every rank; a folder is never a result file. */
static void test_conventions(void)
{
    char dir[] = "/tmp/gs-sweep-XXXXXX", bin[PATH_MAX], cwd[1024],
         pre[1100], args[1400], path[1200];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(gs_cli_bin(), bin));
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    char *old = getenv("GPUSIM") ? strdup(getenv("GPUSIM")) : NULL;
    setenv("GPUSIM", bin, 1);
    snprintf(pre, sizeof pre, "cd '%s' &&", dir);
    snprintf(path, sizeof path, "%s/small-tenants-sweep.h5", dir);
    snprintf(args, sizeof args, "sweep %s/scenarios/small-tenants.json --set "
             "policy.name=fifo -s 1 -q", cwd);
    char *err = NULL;
    CU_ASSERT_EQUAL(gs_cli_run(pre, args, NULL, NULL), 0);
    CU_ASSERT_EQUAL(access(path, F_OK), 0);
    CU_ASSERT_EQUAL(gs_cli_run(pre, args, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "small-tenants-sweep.h5: "
                                              "exists") &&
                           strstr(err, "--force"));
    free(err);
    err = NULL;
    snprintf(args, sizeof args, "sweep %s/scenarios/small-tenants.json "
             "--set=policy.name=fifo --seeds=1 --quiet --force", cwd);
    CU_ASSERT_EQUAL(gs_cli_run(pre, args, NULL, NULL), 0);
    /* a point's label is whole: after a value of 2,040 characters the
     * second --set still tells the points apart (the label was cut at
     * 2,047 bytes, and both read alike) */
    char *big = NULL, *out = NULL;
    CU_ASSERT_FATAL(asprintf(&big, "sweep %s/scenarios/small-tenants.json "
                             "--set 'description=\"%02040d\"' --set seed=1,2"
                             " -s 1 -f", cwd, 0) > 0);
    CU_ASSERT_EQUAL(gs_cli_run(pre, big, &out, NULL), 0);
    for (int k = 1; k <= 2; k++) {
        char *want = NULL;
        CU_ASSERT_FATAL(asprintf(&want, "  P%d   description=\"%02040d\" "
                                 "seed=%d  (", k, 0, k) > 0);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
        free(want);
    }
    free(out);
    free(big);
    /* a long key is edited whole, never cut onto another (it was refused
     * past 255 characters): the policy names it whole */
    snprintf(args, sizeof args, "sweep %s/scenarios/small-tenants.json --set "
             "policy.name%0300d=fifo -s 1 -q -f", cwd, 0);
    CU_ASSERT_EQUAL(gs_cli_run(pre, args, NULL, &err), 2);
    char want[700];
    snprintf(want, sizeof want, "$.policy.name%0300d: unknown key "
             "'name%0300d'\n", 0, 0);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
    free(err);
    err = NULL;
    snprintf(args, sizeof args, "sweep %s/scenarios/small-tenants.json --set "
             "policy.name=fifo --sedes 1", cwd);
    CU_ASSERT_EQUAL(gs_cli_run(pre, args, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "did you mean '--seeds'"));
    free(err);
    err = NULL;
    /* plan: an existing default file stops it before any run */
    snprintf(path, sizeof path, "%s/plan-erlang-plan.h5", dir);
    FILE *f = fopen(gs_cli_tmp(path), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("mine\n", f);
    fclose(f);
    snprintf(args, sizeof args, "plan %s/scenarios/plan-erlang.json -s 2 "
             "--no-plots", cwd);
    CU_ASSERT_EQUAL(gs_cli_run(pre, args, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "plan-erlang-plan.h5: exists"));
    char *kept = gs_cli_slurp(path);
    CU_ASSERT_PTR_NOT_NULL(kept && strcmp(kept, "mine\n") == 0);
    free(kept);
    free(err);
    err = NULL;
    /* under mpirun the leader decides for both ranks: one message, both
     * stop (a second rank running on would hang in the first batch) */
    char mpre[1400];
    snprintf(mpre, sizeof mpre, "cd '%s' && %s", dir, GS_MPIRUN);
    CU_ASSERT_EQUAL(gs_cli_run(mpre, args, NULL, &err), 2);
    const char *hit = err ? strstr(err, "plan-erlang-plan.h5: exists") : NULL;
    CU_ASSERT_PTR_NOT_NULL(hit);
    CU_ASSERT_PTR_NULL(hit ? strstr(hit + 1, "plan-erlang-plan.h5: exists")
                           : NULL);
    free(err);
    err = NULL;
    snprintf(args, sizeof args, "sweep %s/scenarios/small-tenants.json --set "
             "policy.name=fifo -s 1 -q", cwd);
    CU_ASSERT_EQUAL(gs_cli_run(mpre, args, NULL, &err), 2);
    hit = err ? strstr(err, "small-tenants-sweep.h5: exists") : NULL;
    CU_ASSERT_PTR_NOT_NULL(hit);
    CU_ASSERT_PTR_NULL(hit ? strstr(hit + 1, "small-tenants-sweep.h5: "
                                         "exists") : NULL);
    free(err);
    err = NULL;
    /* --out naming a folder: refused by both, whatever --force says */
    snprintf(args, sizeof args, "sweep %s/scenarios/small-tenants.json --set "
             "policy.name=fifo -s 1 -q -f --out .", cwd);
    CU_ASSERT_EQUAL(gs_cli_run(pre, args, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "folder"));
    free(err);
    err = NULL;
    snprintf(args, sizeof args, "plan %s/scenarios/plan-erlang.json -s 2 "
             "--no-plots -f --out .", cwd);
    CU_ASSERT_EQUAL(gs_cli_run(pre, args, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "folder"));
    free(err);
    if (old) {
        setenv("GPUSIM", old, 1);
        free(old);
    } else {
        unsetenv("GPUSIM");
    }
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(args), 0);
}

static CU_TestInfo tests[] = {
    { "value lists split at top-level commas", test_split },
    { "key-path edits: set, objects from strings, scale, clone, errors",
      test_edit },
    { "key-path edits: 400-character keys walked and named whole",
      test_edit_long_keys },
    { "run metrics: unique names, index round trip", test_metric_list },
    { "--csv: a key's quote doubled in the header", test_csv_key_quoted },
    { "bad --set and --metrics: the key named, exit 2, no file",
      test_bad_input },
    { "a point with one seed is `gpusim run` there", test_points_are_runs },
    { "mean and 95% interval over seeds (Student t, n = 3)", test_interval },
    { "--precision adds seeds until the intervals are as narrow as asked",
      test_precision },
    { "same bytes with any --jobs and under mpirun -np 2",
      test_same_bytes_and_mpi },
    { "compare --policies a,b = sweep --set policy=a,b",
      test_compare_is_a_sweep },
    { "default file named after the scenario, --force, getopt forms",
      test_conventions },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("sweep", tests)
