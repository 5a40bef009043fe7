/* test_cli.c -- the gpusim binary end to end: exit statuses, stdout, no
 * result file left behind on bad input, HDF5 round trip, determinism.
 * The binary's path comes from $GPUSIM (set by `make test`). */
#include "cutest.h"
#include "simutil.h"
#include "../sim/h5out.h"

#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *bin(void)
{
    const char *b = getenv("GPUSIM");
    return b ? b : "./gpusim";
}

/* Run "gpusim ARGS" in /tmp; capture stdout and stderr; return the status. */
static int sh(const char *args, char **out, char **err)
{
    char cmd[2048], eo[] = "/tmp/gs-cli-err-XXXXXX";
    int fd = mkstemp(eo);
    close(fd);
    char absbin[1024];
    if (bin()[0] == '/')
        snprintf(absbin, sizeof absbin, "%s", bin());
    else
        snprintf(absbin, sizeof absbin, "%s/%s", getenv("PWD") ? getenv("PWD") : ".", bin());
    snprintf(cmd, sizeof cmd, "cd /tmp && %s %s 2>%s", absbin, args, eo);
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 >= cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = '\0';
    int st = pclose(p);
    FILE *fe = fopen(eo, "r");
    char *ebuf = calloc(1, 8192);
    if (fe) {
        size_t r = fread(ebuf, 1, 8191, fe);
        ebuf[r] = '\0';
        fclose(fe);
    }
    unlink(eo);
    if (out) *out = buf; else free(buf);
    if (err) *err = ebuf; else free(ebuf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Names under /tmp unique to this process (tests may run concurrently). */
static char out_h5[64], q_h5[64], qs_json[64];
static void names(void)
{
    snprintf(out_h5, sizeof out_h5, "gs-cli-out-%ld.h5", (long)getpid());
    snprintf(q_h5, sizeof q_h5, "gs-cli-q-%ld.h5", (long)getpid());
    snprintf(qs_json, sizeof qs_json, "gs-cli-qs-%ld.json", (long)getpid());
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void expect_bad(const char *args_fmt, const char *msg)
{
    char *err, args[512], path[128];
    snprintf(args, sizeof args, args_fmt, out_h5);
    snprintf(path, sizeof path, "/tmp/%s", out_h5);
    unlink(path);
    int rc = sh(args, NULL, &err);
    if (rc != 2 || !strstr(err, msg))
        printf("\n    %s -> %d: %s", args, rc, err);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "gpusim: "));
    CU_ASSERT_FALSE(exists(path));
    free(err);
}

static void test_bad_input(void)
{
    names();
    expect_bad("run /tmp/no-such-scenario.json --out %s",
               "no-such-scenario.json: cannot open");
    char path[64];
    write_temp("{\"fleet\": [", path);
    char args[256];
    snprintf(args, sizeof args, "run %s --out %%s", path);
    expect_bad(args, "malformed JSON");
    unlink(path);
    expect_bad("run quickstart --policy nope --out %s",
               "unknown policy 'nope'");
    expect_bad("run quickstart --seed x", "--seed takes");
    expect_bad("run", "which scenario");
    expect_bad("run quickstart --frobnicate", "unknown option");
    expect_bad("frobnicate", "unknown command 'frobnicate'");
    /* A malformed trace row met mid-run: no result file either. */
    char trace[64], scen[64];
    write_temp("id,arrival,gpus,duration\n1,0,1,10\n2,1,1,ten\n", trace);
    char json[512];
    snprintf(json, sizeof json,
             "{\"fleet\": [{\"gpu\": \"T4\", \"nodes\": 1}], \"workload\":"
             " {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}", trace);
    write_temp(json, scen);
    snprintf(args, sizeof args, "run %s --out %%s", scen);
    expect_bad(args, ":3: field 'duration'");
    unlink(trace);
    unlink(scen);
}

static void test_run_and_h5(void)
{
    char *out1, *out2, *err, cmd[256], h5[128];
    names();
    snprintf(h5, sizeof h5, "/tmp/%s", q_h5);
    unlink(h5);
    snprintf(cmd, sizeof cmd, "run quickstart --out %s --json", q_h5);
    CU_ASSERT_EQUAL_FATAL(sh(cmd, &out1, &err), 0);
    free(err);
    CU_ASSERT_PTR_NOT_NULL(strstr(out1, "\"policy\": \"fifo-backfill\""));
    CU_ASSERT_TRUE(exists(h5));
    /* byte-identical summaries for the same seed; no temp file left */
    CU_ASSERT_EQUAL(sh("run quickstart --no-out --json", &out2, NULL), 0);
    CU_ASSERT_STRING_EQUAL(out1, out2);
    free(out2);
    CU_ASSERT_EQUAL(sh("run quickstart --no-out --json --seed 43", &out2,
                       NULL), 0);
    CU_ASSERT_STRING_NOT_EQUAL(out1, out2);
    free(out2);

    /* The HDF5 file reads back equal to what the run produced. */
    struct gs_h5_job *rows = NULL;
    long n = 0;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_jobs(h5, &rows, &n, &d),
                          0);
    struct run r;
    run_text(&r, gs_scenario_quickstart(), NULL);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    long nr;
    const struct gs_jobrec *rec = gs_sim_records(r.sim, &nr);
    CU_ASSERT_EQUAL_FATAL(n, nr);
    long same = 0;
    for (long i = 0; i < n; i++) {
        same += rows[i].id == rec[i].id && rows[i].tier == rec[i].tier &&
                rows[i].state == rec[i].state &&
                rows[i].model == rec[i].model &&
                rows[i].tenant == rec[i].tenant &&
                rows[i].arrival_s == rec[i].arrival / 1000.0 &&
                rows[i].end_s == rec[i].end / 1000.0 &&
                rows[i].wait_s == (rec[i].start - rec[i].arrival) / 1000.0 &&
                rows[i].gpus == (double)rec[i].gpus &&
                rows[i].gpu_hours == (double)rec[i].gpu_hours;
    }
    CU_ASSERT_EQUAL(same, n);
    const struct gs_summary *su = gs_sim_summary(r.sim);
    double v;
    CU_ASSERT_EQUAL(gs_h5_read_summary(h5, "utilization",
                                       &v, &d), 0);
    CU_ASSERT_EQUAL(v, su->util);
    double *alloc;
    long ns;
    CU_ASSERT_EQUAL(gs_h5_read_series(h5,
                                      "/timeseries/allocated_gpus", &alloc,
                                      &ns, &d), 0);
    const struct gs_series *ts = &gs_sim_metrics(r.sim)->ts;
    CU_ASSERT_EQUAL_FATAL(ns, ts->n);
    CU_ASSERT(memcmp(alloc, ts->alloc, (size_t)ns * sizeof *alloc) == 0);
    free(alloc);
    free(rows);
    run_free(&r);
    free(out1);
    unlink(h5);
}

static void test_other_commands(void)
{
    char *out;
    CU_ASSERT_EQUAL(sh("--version", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "gpusim "));
    free(out);
    CU_ASSERT_EQUAL(sh("policies", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "fifo-backfill"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "best-fit"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "native"));
    free(out);
    CU_ASSERT_EQUAL(sh("help run", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--seed"));
    free(out);
    /* The printed built-in scenario is valid input and gives the same run. */
    names();
    char cmd[256], *a, *b;
    snprintf(cmd, sizeof cmd, "scenario quickstart > %s", qs_json);
    CU_ASSERT_EQUAL(sh(cmd, NULL, NULL), 0);
    snprintf(cmd, sizeof cmd, "run %s --no-out --csv", qs_json);
    CU_ASSERT_EQUAL(sh(cmd, &a, NULL), 0);
    CU_ASSERT_EQUAL(sh("run quickstart --no-out --csv", &b, NULL), 0);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "scope,metric,value\n"));
    free(a);
    free(b);
    snprintf(cmd, sizeof cmd, "/tmp/%s", qs_json);
    unlink(cmd);
}

static CU_TestInfo tests[] = {
    { "bad input: exit 2, message, no result file", test_bad_input },
    { "run: deterministic stdout; HDF5 reads back equal", test_run_and_h5 },
    { "version, policies, help, scenario", test_other_commands },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("cli", tests)
