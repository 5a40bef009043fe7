/* test_cli.c -- the gpusim binary end to end: exit statuses, stdout, no
 * result file left behind on bad input, HDF5 round trip, determinism.
 * The binary's path comes from $GPUSIM (set by `make test`). */
#include "cutest.h"
#include "simutil.h"
#include "../sim/io/h5in.h"
#include "../sim/io/h5out.h"
#include "../sim/base/version.h"
#include "../sim/base/suggest.h"

#include "../policies/policy.h"

#include <dirent.h>
#include <getopt.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *bin(void)
{
    return gs_test_gpusim();
}

/* This process's own folder under /tmp (mkdtemp), where commands run and
 * files go, so that test runs at the same time (other checkouts, make -j)
 * never share a name; removed at exit. */
static char work[64];

static void rm_work(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", work);
    if (system(cmd) != 0)
        fprintf(stderr, "test_cli: cannot remove %s\n", work);
}

static const char *wd(void)
{
    if (work[0] == '\0') {
        snprintf(work, sizeof work, "/tmp/gs-cli-XXXXXX");
        if (mkdtemp(work) == NULL)
            abort();
        atexit(rm_work);
    }
    return work;
}

/* name in the work folder (one of 4 rotating buffers). */
static const char *wp(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", wd(), name);
    return buf[k];
}

/* Run "gpusim ARGS" in the work folder; capture stdout and stderr; return
 * the status. */
static int sh(const char *args, char **out, char **err)
{
    char cmd[4096], eo[] = "/tmp/gs-cli-err-XXXXXX";
    int fd = mkstemp(eo);
    close(fd);
    char absbin[1024];
    if (bin()[0] == '/')
        snprintf(absbin, sizeof absbin, "%s", bin());
    else
        snprintf(absbin, sizeof absbin, "%s/%s", getenv("PWD") ? getenv("PWD") : ".", bin());
    char root[1024];
    if (getcwd(root, sizeof root) == NULL)
        snprintf(root, sizeof root, ".");
    snprintf(cmd, sizeof cmd, "cd %s && export GPUSIM_ABS=%s "
             "GPUSIM_ABS_ROOT=%s && %s %s 2>%s", wd(), absbin, root, absbin,
             args, eo);
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

/* Names in the work folder. */
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
    snprintf(path, sizeof path, "%s/%s", wd(), out_h5);
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
    snprintf(h5, sizeof h5, "%s/%s", wd(), q_h5);
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
    gs_diag_free(&d);
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
    snprintf(cmd, sizeof cmd, "%s/%s", wd(), qs_json);
    unlink(cmd);
}

/* An absolute path for a path relative to the source tree. */
static void abs_path(const char *rel, char *out, size_t n)
{
    const char *pwd = getenv("PWD");
    snprintf(out, n, "%s/%s", pwd ? pwd : ".", rel);
}

/* Every command that writes standard output checks it at close: into
 * /dev/full each says so and exits 1. */
static void test_stdout_full(void)
{
    char fix[512], stats[700];
    abs_path("tests/fixtures/traces/ali_ok.csv", fix, sizeof fix);
    snprintf(stats, sizeof stats, "trace stats %s > /dev/full", fix);
    const char *cmds[] = {
        "run quickstart --no-out --json > /dev/full",
        "run quickstart --no-out --csv > /dev/full",
        "run quickstart --no-out > /dev/full",
        "policies > /dev/full",
        "scenario quickstart > /dev/full",
        "help > /dev/full",
        "compare quickstart --seeds 2 --jobs 2 --no-plots "
        "--out gs-cli-full.h5 > /dev/full",
        stats,
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *err;
        int rc = sh(cmds[i], NULL, &err);
        if (rc != 1 || !strstr(err, "No space left on device"))
            printf("\n    %s -> %d: %s", cmds[i], rc, err);
        CU_ASSERT_EQUAL(rc, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "No space left on device"));
        free(err);
    }
    unlink(wp("gs-cli-full.h5"));
    /* a descriptor closed before the start is fine when nothing is written */
    CU_ASSERT_EQUAL(sh("run quickstart --no-out --quiet >&-", NULL, NULL), 0);
}

/* --out targets that are not regular files, empty names, and options that
 * name themselves in their errors. */
static void test_out_and_options(void)
{
    names();
    expect_bad("run quickstart --out /dev/full", "is a character device");
    expect_bad("run quickstart --out ''", "--out");
    expect_bad("run quickstart --out /tmp", "is a folder");
    char fifo[64], args[128];
    snprintf(fifo, sizeof fifo, "/tmp/gs-cli-fifo-%ld", (long)getpid());
    unlink(fifo);
    CU_ASSERT_EQUAL(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof args, "run quickstart --out %s", fifo);
    expect_bad(args, "is a FIFO");
    snprintf(args, sizeof args, "compare quickstart --out %s --no-plots", fifo);
    expect_bad(args, "is a FIFO");
    struct stat st;
    CU_ASSERT(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    unlink(fifo);
    expect_bad("compare quickstart --seeds 0", "--seeds");
    expect_bad("compare quickstart --jobs 0", "--jobs");
    expect_bad("compare quickstart --jobs x", "--jobs");
}

/* The same scenario and seed give byte-identical HDF5 files, a second
 * apart (HDF5 would stamp object headers with the time). */
static void test_h5_identical(void)
{
    char *a, *b;
    CU_ASSERT_EQUAL(sh("run quickstart --quiet --out gs-cli-same-a.h5", NULL,
                       NULL), 0);
    CU_ASSERT_EQUAL(sh("compare quickstart --seeds 2 --jobs 2 --no-plots "
                       "--quiet --out gs-cli-same-c.h5", NULL, NULL), 0);
    sleep(1);
    CU_ASSERT_EQUAL(sh("run quickstart --quiet --out gs-cli-same-b.h5", NULL,
                       NULL), 0);
    CU_ASSERT_EQUAL(sh("compare quickstart --seeds 2 --jobs 1 --no-plots "
                       "--quiet --out gs-cli-same-d.h5", NULL, NULL), 0);
    char cmp[600];
    snprintf(cmp, sizeof cmp, "cd %s && cmp -s gs-cli-same-a.h5 "
             "gs-cli-same-b.h5", wd());
    int rc1 = system(cmp);
    snprintf(cmp, sizeof cmp, "cd %s && cmp -s gs-cli-same-c.h5 "
             "gs-cli-same-d.h5", wd());
    int rc2 = system(cmp);
    CU_ASSERT_EQUAL(rc1, 0);
    CU_ASSERT_EQUAL(rc2, 0);
    (void)a;
    (void)b;
    unlink(wp("gs-cli-same-a.h5"));
    unlink(wp("gs-cli-same-b.h5"));
    unlink(wp("gs-cli-same-c.h5"));
    unlink(wp("gs-cli-same-d.h5"));
}

/* Entries of the work folder whose name starts with prefix. */
static int tmp_entries(const char *prefix)
{
    DIR *dp = opendir(wd());
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (dp)
        closedir(dp);
    return n;
}

/* Processes whose command line holds s. */
static int procs_with(const char *s)
{
    DIR *dp = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *fp = fopen(path, "r");
        if (fp == NULL)
            continue;
        size_t k = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        for (size_t i = 0; i < k; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[k] = '\0';
        char stat[300], st[512] = "";
        snprintf(stat, sizeof stat, "/proc/%s/stat", e->d_name);
        fp = fopen(stat, "r");
        if (fp) {
            size_t m = fread(st, 1, sizeof st - 1, fp);
            st[m] = '\0';
            fclose(fp);
        }
        char *rp = strrchr(st, ')');
        int zombie = rp && (rp[2] == 'Z' || rp[2] == 'X');
        n += strstr(buf, s) != NULL && !zombie;
    }
    if (dp)
        closedir(dp);
    return n;
}

/* compare interrupted while its workers run: it dies of the signal (the
 * shell shows 128 + signo), no worker outlives it, and no scratch folder
 * or temporary is left. */
static void test_compare_interrupted(void)
{
    static const int sigs[] = { SIGINT, SIGTERM };
    for (int i = 0; i < 2; i++) {
        char out[64], prefix[80];
        snprintf(out, sizeof out, "gs-cli-int-%ld-%d.h5", (long)getpid(), i);
        snprintf(prefix, sizeof prefix, ".%s.gpusim-tmp-", out);
        pid_t c = fork();
        if (c == 0) {
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            if (chdir(wd()) != 0)
                _exit(99);
            int nul = open("/dev/null", O_WRONLY);
            dup2(nul, 1);
            dup2(nul, 2);
            char abs[1024];
            if (bin()[0] == '/')
                snprintf(abs, sizeof abs, "%s", bin());
            else
                abs_path(bin(), abs, sizeof abs);
            execl(abs, "gpusim", "compare", "quickstart", "--seeds", "500",
                  "--jobs", "2", "--no-plots", "--out", out, (char *)NULL);
            _exit(98);
        }
        /* wait for the scratch folder: the workers are running */
        for (int k = 0; k < 500 && tmp_entries(prefix) == 0; k++)
            usleep(10000);
        usleep(200000);
        CU_ASSERT_EQUAL(tmp_entries(prefix), 1);
        kill(c, sigs[i]);
        int st;
        waitpid(c, &st, 0);
        CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i]);
        usleep(100000);
        CU_ASSERT_EQUAL(tmp_entries(prefix), 0);
        CU_ASSERT_EQUAL(procs_with(out), 0);
        char path[128];
        snprintf(path, sizeof path, "%s/%s", wd(), out);
        CU_ASSERT_FALSE(exists(path));
    }
}

/* A plug-in that crashes with seed 43: with one worker or two, compare
 * exits 1 naming the task, and leaves nothing behind. */
static void test_compare_plugin_crash(void)
{
    const char *dir = getenv("GS_PLUGIN_DIR");
    if (dir == NULL) {
        printf("\n    [GS_PLUGIN_DIR unset: run through make test]");
        CU_FAIL("GS_PLUGIN_DIR unset");
        return;
    }
    char so[1024], rel[600];
    snprintf(rel, sizeof rel, "%s/../testplugins/crash.so", dir);
    if (rel[0] == '/')
        snprintf(so, sizeof so, "%s", rel);
    else
        abs_path(rel, so, sizeof so);
    for (int jobs = 1; jobs <= 2; jobs++) {
        char args[1400], *err;
        snprintf(args, sizeof args, "compare quickstart --policy-lib %s "
                 "--policies fifo,crash --seeds 2 --jobs %d --no-plots "
                 "--out gs-cli-crash.h5", so, jobs);
        int rc = sh(args, NULL, &err);
        CU_ASSERT_EQUAL(rc, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "task 3 (policy crash, seed 43)"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "worker process"));
        if (!strstr(err, "policy crash, seed 43"))
            printf("\n    %s", err);
        free(err);
        CU_ASSERT_FALSE(exists(wp("gs-cli-crash.h5")));
        CU_ASSERT_EQUAL(tmp_entries(".gs-cli-crash.h5.gpusim-tmp-"), 0);
    }
}

/* docs/policies.md quotes the ABI this binary has. */
static void test_docs_abi(void)
{
    FILE *fp = fopen("docs/policies.md", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    static char buf[1 << 17];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    char want[64];
    snprintf(want, sizeof want, "this gpusim has ABI %d;", GS_POLICY_ABI);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
}

/* getopt_long conventions, conflicts and suggestions. */
static void test_conventions(void)
{
    char *a, *b, *err;
    CU_ASSERT_EQUAL(sh("run quickstart --no-out --json --seed 7", &a, NULL), 0);
    CU_ASSERT_EQUAL(sh("run --seed=7 --json --no-out -- quickstart", &b,
                       NULL), 0);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(b);
    CU_ASSERT_EQUAL(sh("run -s 7 --no-out --json quickstart", &b, NULL), 0);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(b);
    /* the scenario from standard input */
    CU_ASSERT_EQUAL(sh("scenario quickstart | $GPUSIM_ABS run - --seed 7 "
                       "--no-out --json", &b, NULL), 0);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(b);
    free(a);
    names();
    expect_bad("run quickstart --json --csv", "--json and --csv");
    expect_bad("run quickstart --out x.h5 --no-out", "--no-out");
    expect_bad("run quickstart --jsno", "did you mean '--json'?");
    expect_bad("run quickstart --seed", "--seed needs a value");
    expect_bad("rnu quickstart", "did you mean 'run'?");
    expect_bad("help comapre", "did you mean 'compare'?");
    expect_bad("compare quickstart --polices fifo", "did you mean "
               "'--policies'?");
    expect_bad("compare quickstart --policies fifo,hsp", "did you mean 'hps'?");
    expect_bad("run quickstart --seed x", "(see 'gpusim help run')");
    CU_ASSERT_EQUAL(sh("help help", &a, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "usage: gpusim help"));
    free(a);
    free(err);
    CU_ASSERT_EQUAL(sh("-V", &a, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "gpusim "));
    free(a);
}

/* The scenario among a command's options (gs_cli_getopt, shared by place-exp,
 * train, sweep and plan): before, between or after them, "--" ending the
 * options, and one scenario too many named. */
static int scan(const char *line, const char **file, const char **extra,
                int *quiet, int *seeds)
{
    static const struct option o[] = {
        { "quiet", no_argument, NULL, 'q' },
        { "seeds", required_argument, NULL, 's' },
        { NULL, 0, NULL, 0 },
    };
    char buf[256], *argv[16];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok(buf, " "); t && argc < 15; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    static char got[2][64];
    *file = *extra = NULL;
    *quiet = *seeds = 0;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = gs_cli_getopt(argc, argv, "+:qs:", o, file)) != -1) {
        if (ch == GS_CLI_EXTRA) {
            snprintf(got[1], sizeof got[1], "%s", optarg);
            *extra = got[1];
            break;
        }
        if (ch == 'q')
            *quiet = 1;
        else if (ch == 's')
            *seeds = atoi(optarg);
        else
            return ch;
    }
    if (*file) {
        snprintf(got[0], sizeof got[0], "%s", *file);
        *file = got[0];
    }
    return 0;
}

static void test_scenario_operand(void)
{
    static const struct {
        const char *line, *file, *extra;
        int quiet, seeds;
    } c[] = {
        { "cmd a.json -q -s 3", "a.json", NULL, 1, 3 },
        { "cmd -q a.json --seeds=3", "a.json", NULL, 1, 3 },
        { "cmd -s 3 -q a.json", "a.json", NULL, 1, 3 },
        { "cmd -q -- -a.json", "-a.json", NULL, 1, 0 },
        { "cmd -- a.json -q", NULL, "-q", 0, 0 },
        { "cmd a.json -- -q", "a.json", "-q", 0, 0 },
        { "cmd a.json b.json -q", "a.json", "b.json", 0, 0 },
        { "cmd -q a.json -s 2 b.json", "a.json", "b.json", 1, 2 },
        { "cmd -q", NULL, NULL, 1, 0 },
        { "cmd --", NULL, NULL, 0, 0 },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *file, *extra;
        int quiet, seeds;
        CU_ASSERT_EQUAL(scan(c[i].line, &file, &extra, &quiet, &seeds), 0);
        int ok = (c[i].file ? file && strcmp(file, c[i].file) == 0 : !file) &&
                 (c[i].extra ? extra && strcmp(extra, c[i].extra) == 0
                             : !extra) &&
                 quiet == c[i].quiet && seeds == c[i].seeds;
        if (!ok)
            printf("\n    '%s': file %s, extra %s, quiet %d, seeds %d",
                   c[i].line, file ? file : "-", extra ? extra : "-", quiet,
                   seeds);
        CU_ASSERT(ok);
    }
    const char *file, *extra;
    int quiet, seeds;
    CU_ASSERT_EQUAL(scan("cmd a.json --sedes 2", &file, &extra, &quiet,
                         &seeds), '?');
    CU_ASSERT_EQUAL(scan("cmd a.json -s", &file, &extra, &quiet, &seeds),
                    ':');
    names();
    /* each command's own message for it */
    expect_bad("place-exp quickstart other.json --no-out",
               "more than one scenario: 'other.json'");
    expect_bad("train -q quickstart -- other.json",
               "train: more than one scenario: 'other.json'");
    expect_bad("sweep quickstart --set policy.name=fifo x.json",
               "sweep: more than one scenario: 'x.json'");
    expect_bad("plan scenarios/plan-erlang.json x.json",
               "plan: more than one scenario: 'x.json'");
}

/* A result is never replaced silently: the default name follows the
 * scenario file, an existing default needs --force, -o replaces. */
static void test_no_silent_replace(void)
{
    char dir[96], cmd[512], *err, path[160];
    snprintf(dir, sizeof dir, "%s/rep", wd());
    mkdir(dir, 0700);
    snprintf(cmd, sizeof cmd, "scenario quickstart > %s/mine.json", dir);
    CU_ASSERT_EQUAL(sh(cmd, NULL, NULL), 0);
    snprintf(cmd, sizeof cmd, "run %s/mine.json -q", dir);
    /* runs in the work folder: the file is mine.h5, not quickstart.h5 */
    unlink(wp("mine.h5"));
    CU_ASSERT_EQUAL(sh(cmd, NULL, &err), 0);
    CU_ASSERT(exists(wp("mine.h5")));
    free(err);
    struct stat st1, st2;
    stat(wp("mine.h5"), &st1);
    CU_ASSERT_EQUAL(sh(cmd, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--force"));
    free(err);
    stat(wp("mine.h5"), &st2);
    CU_ASSERT_EQUAL(st1.st_ino, st2.st_ino);        /* untouched */
    snprintf(cmd, sizeof cmd, "run %s/mine.json -q -f", dir);
    CU_ASSERT_EQUAL(sh(cmd, NULL, NULL), 0);
    snprintf(cmd, sizeof cmd, "run %s/mine.json --seed 3 --json -o mine.h5",
             dir);
    CU_ASSERT_EQUAL(sh(cmd, NULL, &err), 0);        /* -o names it */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "results written to mine.h5"));
    free(err);
    unlink(wp("mine.h5"));
    /* compare's plot folder holds no stale policy after a second run */
    snprintf(cmd, sizeof cmd, "compare %s/mine.json -p fifo,hps -s 2 -q "
             "-o %s/c.h5 --plots %s/plots", dir, dir, dir);
    CU_ASSERT_EQUAL(sh(cmd, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s/plots/util-hps.dat", dir);
    CU_ASSERT(exists(path));
    snprintf(cmd, sizeof cmd, "compare %s/mine.json -p fifo -s 2 -q "
             "-o %s/c.h5 --plots %s/plots", dir, dir, dir);
    CU_ASSERT_EQUAL(sh(cmd, NULL, NULL), 0);
    CU_ASSERT_FALSE(exists(path));
    snprintf(path, sizeof path, "%s/plots/util-fifo.dat", dir);
    CU_ASSERT(exists(path));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* 1 when Debian's system Python with h5py and pandas is there (make
 * installs them); else the test is skipped with a notice. */
static int have_pandas(const char *test)
{
    if (access("/usr/bin/python3", X_OK) == 0 &&
        system("/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null") == 0)
        return 1;
    printf("\n    [skipped %s: /usr/bin/python3 with h5py and pandas is "
           "missing]", test);
    return 0;
}

/* Every dataset of a run's and a comparison's file says its units and
 * what it is; codes carry their labels; integers are integers. */
static void test_h5_described(void)
{
    CU_ASSERT_EQUAL(sh("run quickstart -q -o gs-cli-desc.h5", NULL, NULL), 0);
    CU_ASSERT_EQUAL(sh("compare quickstart -p fifo,hps -s 2 -q --no-plots "
                       "-o gs-cli-desc-c.h5", NULL, NULL), 0);
    char f0[256], f1[256];
    snprintf(f0, sizeof f0, "%s", wp("gs-cli-desc.h5"));
    snprintf(f1, sizeof f1, "%s", wp("gs-cli-desc-c.h5"));
    const char *files[] = { f0, f1 };
    for (int i = 0; i < 2; i++) {
        double sv = 0;
        struct gs_diag d0 = { 0 };
        CU_ASSERT_EQUAL(gs_h5_read_attr_num(files[i], "/", "schema_version",
                                            &sv, &d0), 0);
        CU_ASSERT_EQUAL(sv, GS_H5_SCHEMA);
        char first[256];
        long n = gs_h5_undescribed(files[i], first, sizeof first);
        if (n != 0)
            printf("\n    %s: %ld undescribed, first %s", files[i], n, first);
        CU_ASSERT_EQUAL(n, 0);
        gs_diag_free(&d0);
    }
    char buf[256];
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_h5_read_attr_str(files[0], "/timeseries/time_s",
                                        "units", buf, sizeof buf, &d), 0);
    CU_ASSERT_STRING_EQUAL(buf, "s");
    CU_ASSERT_EQUAL(gs_h5_read_attr_str(files[0], "/summary/fields",
                                        "description", buf, sizeof buf, &d),
                    0);
    double v;
    CU_ASSERT_EQUAL(gs_h5_read_summary(files[0], "utilization", &v, &d), 0);
    /* counts are integers: a job count reads back whole, through the
     * attribute's own type */
    CU_ASSERT_EQUAL(gs_h5_read_attr_num(files[0], "/summary", "jobs", &v,
                                        &d), 0);
    CU_ASSERT_EQUAL(v, floor(v));
    unlink(files[0]);
    unlink(files[1]);
    /* the check itself: a placeholder unit, a description pointing at the
     * README, a number without a unit and text with one are each caught;
     * a described number and text are not */
    static const double x[2] = { 1, 2 };
    static const char *const t[2] = { "a", "b" };
    const struct gs_h5_ds ds[] = {
        { "g/ok", GS_H5_DOUBLE, 1, { 2 }, x, "two numbers", "s" },
        { "g/oktext", GS_H5_STRING, 1, { 2 }, t, "two names", "" },
        { "g/placeholder", GS_H5_DOUBLE, 1, { 2 }, x, "two numbers",
          "see /elsewhere" },
        { "g/readme", GS_H5_DOUBLE, 1, { 2 }, x, "see the README's Results "
          "section", "s" },
        { "g/nounit", GS_H5_DOUBLE, 1, { 2 }, x, "two numbers", "" },
        { "g/textunit", GS_H5_STRING, 1, { 2 }, t, "two names", "s" },
    };
    const char *f2 = wp("gs-cli-desc-bad.h5");
    CU_ASSERT_EQUAL_FATAL(gs_h5_write_sets(f2, "sweep", "x", "{}", ds, 6, &d),
                          0);
    char first[256];
    CU_ASSERT_EQUAL(gs_h5_undescribed(f2, first, sizeof first), 4);
    CU_ASSERT_STRING_EQUAL(first, "/g/nounit");
    unlink(f2);
    gs_diag_free(&d);
}

/* plots/gpusim_h5.py reads a run's and a comparison's file into labelled
 * DataFrames that agree with what gpusim printed. */
static void test_python_reader(void)
{
    if (!have_pandas("python reader"))
        return;
    CU_ASSERT_EQUAL_FATAL(sh("run quickstart -o gs-cli-py.h5 --csv > "
                             "gs-cli-py.csv", NULL, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(sh("compare quickstart -p fifo,hps -s 2 -q "
                             "--no-plots -o gs-cli-py-c.h5", NULL, NULL), 0);
    char plots[1024], cmd[4096];
    abs_path("plots", plots, sizeof plots);
    snprintf(cmd, sizeof cmd,
             "cd %s && /usr/bin/python3 -c '\n"
             "import csv, gpusim_h5 as g\n"
             "want = {r[0] + \"/\" + r[1]: float(r[2]) for r in "
             "csv.reader(open(\"%s/gs-cli-py.csv\")) if r[0] != \"scope\"}\n"
             "f = g.open(\"%s/gs-cli-py.h5\")\n"
             "j = g.jobs(f)\n"
             "assert len(j) == want[\"tier:all/jobs\"], len(j)\n"
             "assert set(j.tier.cat.categories) == {\"inference\", "
             "\"training\", \"interactive\", \"data\"}\n"
             "assert (j.tier == \"training\").sum() == want[\"tier:training/jobs\"]\n"
             "s = g.summary(f)\n"
             "assert abs(s.loc[\"utilization\", \"value\"] - "
             "want[\"run/utilization\"]) < 1e-6\n"
             "assert s.loc[\"cost_usd\", \"units\"] == \"USD\"\n"
             "ts = g.timeseries(f)\n"
             "assert ts.index.name == \"time_s\" and \"queue_length\" in ts\n"
             "import h5py, pandas as pd\n"
             "h = h5py.File(\"%s/gs-cli-py.h5\", \"r\")\n"
             "assert h.attrs[\"layout_version\"] == 4\n"
             "for grp in [\"timeseries\", \"timeseries_by_model\", "
             "\"services/assistant\"]:\n"
             "    d = pd.DataFrame({k: v[()] for k, v in h[grp].items()})\n"
             "    assert len(d) == len(ts) and \"time_s\" in d, grp\n"
             "assert len(pd.DataFrame(h[\"jobs\"][()])) == len(j)\n"
             "b = g.by_model(f)\n"
             "assert list(b.columns) == [\"H100-80GB\", \"A100-80GB\", "
             "\"H200-141GB\"], list(b.columns)\n"
             "assert (b.sum(axis=1) == ts.allocated_gpus).all()\n"
             "sv = g.services(f)\n"
             "assert sv.loc[\"assistant\", \"requests_finished\"] == "
             "want[\"service:assistant/requests_finished\"], sv\n"
             "rq = g.requests(f)\n"
             "assert (rq.state == \"done\").sum() == "
             "want[\"service:assistant/requests_finished\"]\n"
             "c = g.cost(f)\n"
             "assert abs(c.sum() - want[\"run/cost_usd\"]) < 1e-6 * "
             "want[\"run/cost_usd\"]\n"
             "c = g.open(\"%s/gs-cli-py-c.h5\")\n"
             "r = g.runs(c)\n"
             "assert [(p, s) for p, s, _ in r] == [(\"fifo\", 42), (\"fifo\", 43), "
             "(\"hps\", 42), (\"hps\", 43)], r\n"
             "t = g.compare_table(c)\n"
             "m = sum(g.summary(x).loc[\"utilization\", \"value\"] for p, s, x "
             "in r if p == \"hps\") / 2\n"
             "assert abs(t.loc[(\"hps\", \"utilization\"), \"mean\"] - m) < 1e-12\n"
             "print(\"ok\")' 2>&1", plots, wd(), wd(), wd(), wd());
    FILE *p = popen(cmd, "r");
    char buf[2048] = "";
    size_t n = p ? fread(buf, 1, sizeof buf - 1, p) : 0;
    buf[n] = '\0';
    int st = p ? pclose(p) : -1;
    if (st != 0)
        printf("\n    python: %s", buf);
    CU_ASSERT_EQUAL(st, 0);
    CU_ASSERT_STRING_EQUAL(buf, "ok\n");
    unlink(wp("gs-cli-py.h5"));
    unlink(wp("gs-cli-py.csv"));
    unlink(wp("gs-cli-py-c.h5"));
}

/* JSON that cJSON would take wrongly or explain badly. */
static void test_json_input(void)
{
    static const struct { const char *json, *msg; } cases[] = {
        { "{\"name\": \"x\", \"seed\": 1, \"seed\": 2}",
          ":1:26: duplicate key 'seed' in $ (first at line 1, column 15)" },
        { "{\"name\": \"x\", // a note\n \"seed\": 1}",
          ":1:15: a comment, but JSON has no comments" },
        { "{\"name\": \"x\",\n  /* a note */ \"seed\": 1}",
          "JSON has no comments" },
        { "{\"name\": \"x\", \"sede\": 1}",
          "unknown key 'sede' (did you mean 'seed'?)" },
    };
    names();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[64], args[256];
        write_temp(cases[i].json, path);
        snprintf(args, sizeof args, "run %s --out %%s", path);
        expect_bad(args, cases[i].msg);
        unlink(path);
    }
}

/* compare's table: by default the metrics that differ between runs;
 * --metrics chooses, by run --json's names; the CSV has every metric. */
static void test_compare_metrics(void)
{
    char *out;
    CU_ASSERT_EQUAL(sh("compare quickstart -p fifo,hps -s 2 --no-plots "
                       "-o gs-cli-m.h5", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  wait_mean_s "));
    CU_ASSERT_PTR_NULL(strstr(out, "spot_interruptions"));   /* all 0 */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "metrics the same in every run not "
                                  "shown"));
    free(out);
    CU_ASSERT_EQUAL(sh("compare quickstart -p fifo,hps -s 2 --no-plots -f "
                       "-o gs-cli-m.h5 --metrics utilization,spot_interruptions",
                       &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  utilization "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  spot_interruptions "));
    CU_ASSERT_PTR_NULL(strstr(out, "wait_mean_s"));
    free(out);
    CU_ASSERT_EQUAL(sh("compare quickstart -p fifo,hps -s 2 --no-plots -f "
                       "-o gs-cli-m.h5 --csv", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "fifo,spot_interruptions,2,"));
    free(out);
    names();
    expect_bad("compare quickstart -s 2 --no-plots --metrics wait_mean",
               "did you mean 'wait_mean_s'?");
    unlink(wp("gs-cli-m.h5"));
}

/* A UTF-8 byte-order mark before a CSV trace's header is skipped. */
static void test_csv_bom(void)
{
    char trace[64], scen[64], json[256], args[128], *out;
    write_temp("\xEF\xBB\xBFid,arrival,gpus,duration\n1,0,1,60\n2,5,2,120\n",
               trace);
    snprintf(json, sizeof json, "{\"fleet\": [{\"gpu\": \"T4\", \"nodes\": "
             "1, \"gpus_per_node\": 4}], \"workload\": {\"trace\": "
             "{\"format\": \"native\", \"path\": \"%s\"}}}", trace);
    write_temp(json, scen);
    snprintf(args, sizeof args, "run %s --no-out --csv", scen);
    CU_ASSERT_EQUAL(sh(args, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "tier:all,jobs,2\n"));
    free(out);
    unlink(trace);
    unlink(scen);
}

/* The mean and std of metric for policy in compare's CSV; -1 when absent. */
static int csv_stat(const char *csv, const char *policy, const char *metric,
                    double *mean, double *sd)
{
    char key[128];
    snprintf(key, sizeof key, "\n%s,%s,", policy, metric);
    const char *p = strstr(csv, key);
    int n;
    if (p == NULL || sscanf(p + strlen(key), "%d,%lf,%lf", &n, mean, sd) != 3)
        return -1;
    return 0;
}

/* Fair billing windows: every run of a comparison is billed over the same
 * window.  A static fleet of 16 H100s at $2 per GPU-hour (billed by the
 * second) costs exactly 32 $/h whatever runs on it, so over a window of W
 * hours the bill is 32 W for every policy and seed: by default W is the
 * longest run's span, and every run's span is W; --bill-until 100h bills
 * 3200 $; --bill-until own bills each run over its own span, 32 x its span
 * (the seeds' spans differ). */
static void test_compare_bill_window(void)
{
    char dir[] = "/tmp/gs-cli-bill-XXXXXX", path[128], args[512], *out;
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bill.json", dir);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\"name\": \"bill\", \"seed\": 3, \"fleet\": [{\"name\": \"g\", "
          "\"gpu\": \"H100-80GB\", \"nodes\": 2, \"gpus_per_node\": 8, "
          "\"price_per_gpu_hour\": 2.0}], \"workload\": {\"generate\": "
          "{\"jobs\": 150, \"rate_per_hour\": 12, \"classes\": [{\"name\": "
          "\"t\", \"tier\": \"training\", \"weight\": 1, \"gpus\": "
          "{\"values\": [1, 2, 4, 8], \"weights\": [1, 1, 1, 1]}, "
          "\"duration\": {\"dist\": \"exponential\", \"mean\": \"1h\"}}]}}}",
          fp);
    fclose(fp);
    const char *pols[] = { "fifo", "smallest" };
    double span, sd, cost, csd, w = 0, own_u[2], own_t[2], u, t;
    /* own: each run billed over its own span */
    snprintf(args, sizeof args, "compare %s -p fifo,smallest -s 3 "
             "--no-plots --csv -o %s/own.h5 --bill-until own", path, dir);
    CU_ASSERT_EQUAL_FATAL(sh(args, &out, NULL), 0);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "span_h", &span, &sd), 0);
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "cost_usd", &cost,
                                       &csd), 0);
        CU_ASSERT(sd > 0);                  /* the seeds' spans differ */
        CU_ASSERT(fabs(cost - 32 * span) < 0.05);
        CU_ASSERT(fabs(csd - 32 * sd) < 0.05);
        /* own span: the makespan measures are the billed ones */
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "utilization", &own_u[i],
                                       &sd), 0);
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "utilization_makespan",
                                       &u, &sd), 0);
        CU_ASSERT_EQUAL(u, own_u[i]);
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i],
                                       "throughput_jobs_per_hour", &own_t[i],
                                       &sd), 0);
    }
    free(out);
    /* the default: the longest span of all runs, the same for every run */
    snprintf(args, sizeof args, "compare %s -p fifo,smallest -s 3 "
             "--no-plots --csv -o %s/longest.h5", path, dir);
    CU_ASSERT_EQUAL_FATAL(sh(args, &out, NULL), 0);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "span_h", &span, &sd), 0);
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "cost_usd", &cost,
                                       &csd), 0);
        CU_ASSERT_EQUAL(sd, 0);
        CU_ASSERT_EQUAL(csd, 0);
        if (i == 0)
            w = span;
        CU_ASSERT_EQUAL(span, w);           /* one window for all */
        CU_ASSERT(fabs(cost - 32 * w) < 0.05);
        /* the makespan measures are still each run's own, and the billed
         * throughput is the workload's: 150 jobs over the common window */
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "utilization_makespan",
                                       &u, &sd), 0);
        CU_ASSERT_EQUAL(u, own_u[i]);
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i],
                                       "throughput_makespan_jph", &t, &sd), 0);
        CU_ASSERT_EQUAL(t, own_t[i]);
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i],
                                       "throughput_jobs_per_hour", &t, &sd),
                              0);
        CU_ASSERT(fabs(t - 150 / w) < 1e-6);
    }
    free(out);
    /* paired differences under that window: the billed cost and throughput
     * differ by exactly 0 and are not significant */
    snprintf(args, sizeof args, "compare %s -p fifo,smallest -s 3 "
             "--no-plots --csv-pairs -o %s/pairs.h5 --baseline smallest",
             path, dir);
    CU_ASSERT_EQUAL_FATAL(sh(args, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "policy,metric,baseline,diff,half,"
                                  "ci_low,ci_high,significant_holm\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nfifo,cost_usd,smallest,0,0,0,0,"
                                  "0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nfifo,throughput_jobs_per_hour,"
                                  "smallest,0,0,0,0,0\n"));
    free(out);
    snprintf(args, sizeof args, "compare %s -p fifo,smallest -s 3 "
             "--no-plots -o %s/pairs.h5 -f --baseline fair", path, dir);
    CU_ASSERT_EQUAL(sh(args, &out, NULL), 2);
    free(out);
    snprintf(args, sizeof args, "%s/longest.h5", dir);
    struct gs_diag d = { 0 };
    double bw = NAN;
    CU_ASSERT_EQUAL(gs_h5_read_attr_num(args, "/compare", "bill_window_s",
                                        &bw, &d), 0);
    CU_ASSERT(fabs(bw - w * 3600) < 0.01);
    /* a fixed window */
    snprintf(args, sizeof args, "compare %s -p fifo,smallest -s 3 "
             "--no-plots --csv -o %s/fixed.h5 --bill-until 100h", path, dir);
    CU_ASSERT_EQUAL_FATAL(sh(args, &out, NULL), 0);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "span_h", &span, &sd), 0);
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "cost_usd", &cost,
                                       &csd), 0);
        CU_ASSERT_EQUAL(span, 100);
        CU_ASSERT(fabs(cost - 3200) < 1e-6);
        CU_ASSERT_EQUAL_FATAL(csv_stat(out, pols[i], "utilization_makespan",
                                       &u, &sd), 0);
        CU_ASSERT_EQUAL(u, own_u[i]);
    }
    free(out);
    snprintf(args, sizeof args, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(args), 0);
    gs_diag_free(&d);
}

/* run --precision: a steady-state run grows by 1.5x a round (10,000,
 * 15,000, then the cap of 20,000 requests) while its batch means are
 * correlated, and says it stopped at the cap; the summary is the last
 * run's; a finite-horizon run is not grown. */
static void test_run_precision(void)
{
    char *out, *err;
    CU_ASSERT_EQUAL_FATAL(sh("run $GPUSIM_ABS_ROOT/scenarios/plan-fleet-sim-"
                             "single.json --no-out --json --precision 0.5 "
                             "--max-length 20000", &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--precision 0.5: NOT met at "
                                  "--max-length with 20000 generated "
                                  "requests after 3 runs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"kind\": \"steady\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"observations\": 20000"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"inference_requests\": 20000"));
    free(out);
    free(err);
    CU_ASSERT_EQUAL_FATAL(sh("run quickstart --no-out --precision 0.05",
                             &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "a finite-horizon run is not made "
                                  "longer"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "question     finite horizon "
                                  "(a job arrival rate with a cycle)"));
    free(out);
    free(err);
    expect_bad("run quickstart --precision 2", "--precision");
    expect_bad("run quickstart --max-length x", "--max-length");
}

/* --precision: a loose target is met by the seeds given; a tight one adds
 * seeds up to --max-seeds and says it was not met; the grown comparison
 * is exactly the one run with that many seeds from the start (the same
 * seeds: common random numbers). */
static void test_compare_precision(void)
{
    char *out, *out6;
    CU_ASSERT_EQUAL_FATAL(sh("compare quickstart -p fifo,hps -s 3 "
                             "--no-plots -f -o gs-cli-prec.h5 --precision 0.9 "
                             "--metrics utilization_makespan",
                             &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "precision: every target within 0.9 "
                                  "relative half-width (95%) met with 3 "
                                  "seeds"));
    free(out);
    CU_ASSERT_EQUAL_FATAL(sh("compare quickstart -p fifo,hps -s 3 --csv "
                             "--no-plots -f -o gs-cli-prec.h5 --precision "
                             "0.0001 --max-seeds 6", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "precision: NOT every target within "
                                  "0.0001 relative half-width (95%) at the "
                                  "--max-seeds cap with 6 seeds"));
    CU_ASSERT_EQUAL_FATAL(sh("compare quickstart -p fifo,hps -s 6 --csv "
                             "--no-plots -f -o gs-cli-prec.h5", &out6, NULL),
                          0);
    const char *a = strstr(out, "policy,metric"), *b = strstr(out6,
                                                             "policy,metric");
    CU_ASSERT(a && b && strcmp(a, b) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out6, "\nfifo,utilization_makespan,6,"));
    free(out);
    free(out6);
    expect_bad("compare quickstart --precision 0", "--precision");
    expect_bad("compare quickstart --precision 5%", "--precision");
    expect_bad("compare quickstart --max-seeds 1", "--max-seeds");
    unlink(wp("gs-cli-prec.h5"));
}

/* Run "cd DIR && gpusim ARGS" with stderr (and stdout) on a terminal:
 * script(1) gives it a pseudo-terminal; what the terminal showed, malloc'ed,
 * or NULL when script is missing. */
static char *on_tty(const char *dir, const char *args)
{
    if (access("/usr/bin/script", X_OK) != 0)
        return NULL;
    char absbin[1024], cmd[4096], log[1100];
    if (bin()[0] == '/')
        snprintf(absbin, sizeof absbin, "%s", bin());
    else
        snprintf(absbin, sizeof absbin, "%s/%s",
                 getenv("PWD") ? getenv("PWD") : ".", bin());
    snprintf(log, sizeof log, "%s/tty.log", dir);
    snprintf(cmd, sizeof cmd, "cd %s && script -qec '%s %s' /dev/null "
             "> %s 2>&1 < /dev/null", dir, absbin, args, log);
    if (system(cmd) != 0)
        return strdup("(failed)");
    FILE *f = fopen(log, "r");
    char *buf = calloc(1, 1 << 16);
    if (f && buf)
        buf[fread(buf, 1, (1 << 16) - 1, f)] = '\0';
    if (f)
        fclose(f);
    return buf;
}

/* run, compare, place-exp, train, sweep and plan draw a progress line
 * (share done or count, rate)
 * when stderr is a terminal, updated in place and erased at the end; none
 * under --quiet, none when stderr is not a terminal. */
static void test_progress_line(void)
{
    char dir[] = "/tmp/gs-cli-tty-XXXXXX", args[512], quiet[600];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    static const struct { const char *fmt, *want; } cases[] = {
        { "run quickstart --no-out", "gpusim: run: " },
        { "compare quickstart -p fifo,hps -s 2 --no-plots -f -o %s/c.h5",
          "gpusim: compare: " },
        { "place-exp quickstart --seeds 2 --placers fgd,best-fit --no-out",
          "gpusim: place-exp: " },
        { "train quickstart --iters 1 --pop 2 --elite 1 --out %s/w.json",
          "gpusim: train: " },
        { "sweep quickstart --set policy.name=fifo,hps -s 2 -f -o %s/s.h5",
          "gpusim: sweep: " },
        { "plan %s/plan-erlang.json -s 2 --no-plots -f -o %s/p.h5",
          "gpusim: plan: " },
    };
    snprintf(args, sizeof args, "cp scenarios/plan-erlang.json %s/", dir);
    CU_ASSERT_EQUAL_FATAL(system(args), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(args, sizeof args, cases[i].fmt, dir, dir);
        char *tty = on_tty(dir, args);
        if (tty == NULL) {
            printf("\n    [skipped progress line: script(1) is missing]");
            break;
        }
        char want[64];
        snprintf(want, sizeof want, "\r%s", cases[i].want);
        const char *p = strstr(tty, want);
        if (p == NULL)
            printf("\n    %s on a terminal: %.300s", args, tty);
        CU_ASSERT_PTR_NOT_NULL(p);
        CU_ASSERT_PTR_NOT_NULL(p ? strstr(p, "/s") : NULL);    /* a rate */
        CU_ASSERT_PTR_NOT_NULL(strstr(tty, "\r\033[K"));       /* erased */
        if (i == 0)     /* the share of a generated workload's jobs */
            CU_ASSERT_PTR_NOT_NULL(p ? strstr(p, "% (") : NULL);
        free(tty);
        /* --quiet: nothing drawn */
        snprintf(quiet, sizeof quiet, "%s --quiet", args);
        tty = on_tty(dir, quiet);
        CU_ASSERT_PTR_NOT_NULL(tty);
        CU_ASSERT_PTR_NULL(tty ? strstr(tty, cases[i].want) : NULL);
        free(tty);
        /* stderr not a terminal (a file): nothing drawn */
        char *err = NULL;
        CU_ASSERT_EQUAL(sh(args, NULL, &err), 0);
        CU_ASSERT_PTR_NULL(strstr(err, cases[i].want));
        free(err);
    }
    snprintf(args, sizeof args, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(args), 0);
}

/* plots/run.ipynb runs as written on the quickstart's result, with a
 * relative GPUSIM_H5 taken from the folder the command ran in: executed by
 * nbconvert when Debian's jupyter-nbconvert is there, else its code cells
 * run as one script by the system Python.  Its checks (per-model series
 * adding up to the total, per-tier counts and SLA against gpusim's table,
 * every bill breakdown adding up to cost_usd, requests against the
 * service summary) are asserts inside it; its figures are written. */
static void test_run_notebook(void)
{
    if (!have_pandas("run notebook"))
        return;
    CU_ASSERT_EQUAL_FATAL(sh("run quickstart -q -o nbq.h5", NULL, NULL), 0);
    char nb[1024], plots[1024], cmd[4096];
    abs_path("plots/run.ipynb", nb, sizeof nb);
    abs_path("plots", plots, sizeof plots);
    int nbc = system("PATH=/usr/bin:$PATH command -v jupyter-nbconvert "
                     ">/dev/null 2>&1") == 0;
    if (nbc)
        snprintf(cmd, sizeof cmd, "cd %s && GPUSIM_H5=nbq.h5 "
                 "PYDEVD_DISABLE_FILE_VALIDATION=1 PATH=/usr/bin:$PATH "
                 "jupyter-nbconvert --to notebook --execute %s --output-dir "
                 "%s --ExecutePreprocessor.timeout=300 --log-level=WARN "
                 "2>&1", wd(), nb, wd());
    else
        snprintf(cmd, sizeof cmd, "cd %s && GPUSIM_H5=nbq.h5 GPUSIM_PLOTS=%s "
                 "/usr/bin/python3 -c 'import json; nb = json.load(open("
                 "\"%s\")); display = print; exec(\"\\n\".join(\"\".join("
                 "c[\"source\"]) for c in nb[\"cells\"] if c[\"cell_type\"] "
                 "== \"code\"))' 2>&1", wd(), plots, nb);
    FILE *p = popen(cmd, "r");
    char buf[4096] = "";
    size_t n = p ? fread(buf, 1, sizeof buf - 1, p) : 0;
    buf[n] = '\0';
    int st = p ? pclose(p) : -1;
    if (st != 0)
        printf("\n    %s: %s", nbc ? "nbconvert" : "python3", buf);
    CU_ASSERT_EQUAL(st, 0);
    static const char *const figs[] = { "nbq-nb_run_utilization.png",
        "nbq-nb_run_wait_cdf.png", "nbq-nb_run_sla.png", "nbq-nb_run_cost.png",
        "nbq-nb_run_services.png" };
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        CU_ASSERT(exists(wp(figs[i])));
}

/* A misspelled GPU model or trace format gets "did you mean". */
static void test_did_you_mean_names(void)
{
    static const struct { const char *from, *to, *msg; } cases[] = {
        { "\"gpu\": \"H100-80GB\"", "\"gpu\": \"H100-80G\"",
          "unknown GPU model 'H100-80G' (did you mean 'H100-80GB'?" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1024], *err = NULL;
        snprintf(args, sizeof args, "scenario quickstart | sed 's/%s/%s/' | "
                 "\"$GPUSIM_ABS\" run - --no-out", cases[i].from, cases[i].to);
        int rc = sh(args, NULL, &err);
        if (rc != 2 || !strstr(err, cases[i].msg))
            printf("\n    %d: %s", rc, err);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].msg));
        free(err);
    }
    char path[64], args[128], *err = NULL;
    write_temp("{\"fleet\": [{\"gpu\": \"T4\", \"nodes\": 1}], "
               "\"workload\": {\"trace\": {\"format\": \"natve\", "
               "\"path\": \"x.csv\"}}}", path);
    snprintf(args, sizeof args, "run %s --no-out", path);
    CU_ASSERT_EQUAL(sh(args, NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown trace format 'natve' (did "
                                  "you mean 'native'?)"));
    free(err);
    unlink(path);
    CU_ASSERT_EQUAL(sh("trace stats x.csv --format alibaba-gpu-2032", NULL,
                       &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean 'alibaba-gpu-2023'?"));
    free(err);
}


/* The whole file at path (malloc'ed; "" when missing). */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s = calloc(1, 1 << 16);
    if (f && s) {
        size_t n = fread(s, 1, (1 << 16) - 1, f);
        s[n] = '\0';
    }
    if (f)
        fclose(f);
    return s;
}

/* -o -: CSV and JSON to stdout; HDF5 only into a regular file; the
 * summary then goes to stderr; `run -` names its default file stdin.h5. */
static void test_out_stdout(void)
{
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(sh("trace gen $GPUSIM_ABS_ROOT/scenarios/small-tenants.json "
                       "--jobs 5 -o -", &out, &err), 0);
    CU_ASSERT_EQUAL(strncmp(out, "id,arrival,gpus,duration", 24), 0);
    int lines = 0;
    for (char *p = out; *p; p++)
        lines += *p == '\n';
    CU_ASSERT_EQUAL(lines, 6);
    CU_ASSERT_FALSE(exists(wp("-")));
    free(out);
    free(err);
    /* HDF5 into a regular file through stdout: the file's signature,
     * byte-identical to --out FILE, and the summary on stderr */
    CU_ASSERT_EQUAL(sh("run quickstart -o - > dash.h5 2> dash.err && "
                       "\"$GPUSIM_ABS\" run quickstart -o file.h5 -q && "
                       "cmp dash.h5 file.h5 && head -c 8 dash.h5 | od -c",
                       &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "211   H   D   F  \\r  \\n 032  \\n"));
    err = read_all(wp("dash.err"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "  span          46.10 h"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "written to the standard output"));
    CU_ASSERT_FALSE(exists(wp("-")));
    free(out);
    free(err);
    /* into a pipe: refused before the run, nothing written */
    CU_ASSERT_EQUAL(sh("run quickstart -o - 2> pipe.err | wc -c", &out,
                       NULL), 0);
    err = read_all(wp("pipe.err"));
    CU_ASSERT_EQUAL(atoi(out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "an HDF5 file needs a file it can "
                                  "seek in, and the standard output is a "
                                  "FIFO"));
    CU_ASSERT_FALSE(exists(wp("-")));
    free(out);
    free(err);
    CU_ASSERT_EQUAL(sh("compare quickstart -p fifo --seeds 1 -o - "
                       "2> pipe.err | cat", NULL, NULL), 0);
    err = read_all(wp("pipe.err"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs a file it can seek in"));
    free(err);
    /* a scenario on stdin: stdin.h5, never "-.h5" */
    unlink(wp("stdin.h5"));
    CU_ASSERT_EQUAL(sh("scenario quickstart | \"$GPUSIM_ABS\" run - -q",
                       NULL, NULL), 0);
    CU_ASSERT_TRUE(exists(wp("stdin.h5")));
    CU_ASSERT_FALSE(exists(wp("-.h5")));
}

/* "did you mean" for policies and placers from the command line and from
 * the scenario; trace stats on a node list; per-command trace help; the
 * bill by tenant in the text summary adds up to the bill less idle. */
static void test_names_and_help(void)
{
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(sh("run quickstart --policy fiar --no-out", NULL, &err),
                    2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown policy 'fiar' (did you mean "
                                  "'fair'?)"));
    free(err);
    CU_ASSERT_EQUAL(sh("run quickstart --placement bset-fit --no-out", NULL,
                       &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown placement 'bset-fit' (did "
                                  "you mean 'best-fit'?)"));
    free(err);
    CU_ASSERT_EQUAL(sh("scenario quickstart | sed 's/\"fifo-backfill\"/"
                       "\"fifo-bakfill\"/' | \"$GPUSIM_ABS\" run - --no-out",
                       NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "$.policy: unknown policy "
                                  "'fifo-bakfill' (did you mean "
                                  "'fifo-backfill'?)"));
    free(err);
    CU_ASSERT_EQUAL(sh("place-exp quickstart --placers best-fti,fgd -q -o "
                       "gs-cli-px.h5", NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown placement 'best-fti' (did "
                                  "you mean 'best-fit'?)"));
    CU_ASSERT(!exists(wp("gs-cli-px.h5")));
    free(err);
    CU_ASSERT_EQUAL(sh("sweep quickstart --set policy=fifo,fiar -q -o "
                       "gs-cli-sw.h5", NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown policy 'fiar' (did you mean "
                                  "'fair'?)"));
    free(err);
    CU_ASSERT_EQUAL(sh("trace stats --format alibaba-gpu-2023 "
                       "$GPUSIM_ABS_ROOT/tests/fixtures/traces/nodes_ok.csv",
                       &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  V100-32GB                  1    "
                                  "     4       4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  all                        6    "
                                  "            24"));
    free(out);
    CU_ASSERT_EQUAL(sh("trace stats --format alibaba-gpu-2023 "
                       "$GPUSIM_ABS_ROOT/tests/fixtures/traces/"
                       "nodes_bad_gpu.csv", NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nodes_bad_gpu.csv:3: field 'gpu'"));
    free(err);
    static const char *const sub[] = { "stats", "gen", "fit", "convert",
                                       "formats", "calibrate" };
    for (int i = 0; i < 6; i++) {
        char args[128], want[64];
        snprintf(args, sizeof args, "trace help %s; \"$GPUSIM_ABS\" help "
                 "trace %s; \"$GPUSIM_ABS\" trace %s --help", sub[i], sub[i],
                 sub[i]);
        snprintf(want, sizeof want, "usage: gpusim trace %s", sub[i]);
        CU_ASSERT_EQUAL(sh(args, &out, NULL), 0);
        int n = 0;
        for (char *p = out; (p = strstr(p, want)) != NULL; p++)
            n++;
        CU_ASSERT_EQUAL(n, 3);
        if (i == 3)
            CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: gpusim trace "
                                          "convert|transform"));
        free(out);
    }
    CU_ASSERT_EQUAL(sh("trace help stat", NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean 'stats'?"));
    free(err);
    CU_ASSERT_EQUAL(sh("run quickstart --no-out", &out, NULL), 0);
    double cost = 0, idle = 0, share = 0, sum = 0;
    char *p = strstr(out, "  cost          $");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    cost = atof(p + 17);
    p = strstr(out, "; idle $");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    idle = atof(p + 8);
    p = strstr(out, "  by tenant     ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char *end = strchr(p, '\n');
    for (char *q = p; (q = strchr(q, '$')) != NULL && q < end; q++) {
        if (q > p + 8 && strncmp(q - 13, "(jobs' share ", 13) == 0)
            share = atof(q + 1);
        else
            sum += atof(q + 1);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "by tenant     research $10278.14, "));
    CU_ASSERT_DOUBLE_EQUAL(sum, share, 0.05);
    CU_ASSERT_DOUBLE_EQUAL(share + idle, cost, 0.02);
    free(out);
}


/* A scenario's relative paths: beside the scenario first, then on the
 * data search path (--data-path, else $GPUSIM_DATA_PATH), the path's
 * leading folders dropped one at a time (datapath.h). */
static void test_data_path(void)
{
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(sh("--version >/dev/null && mkdir -p dp/a/b dp/d/data "
                       "&& printf 'id,arrival,gpus,"
                       "duration\n1,0,1,60\n2,10,1,60\n' >dp/d/data/t.csv && "
                       "printf '{\"fleet\": [{\"gpu\": \"A100-80GB\", "
                       "\"nodes\": 1}], \"workload\": {\"trace\": {\"format\":"
                       " \"native\", \"path\": \"../../data/t.csv\"}}}' "
                       ">dp/a/b/s.json", NULL, NULL), 0);
    CU_ASSERT_EQUAL(sh("run dp/a/b/s.json --no-out", NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "dp/a/b/../../data/t.csv"));
    free(err);
    CU_ASSERT_EQUAL(sh("--data-path /nonexistent:dp/d run dp/a/b/s.json "
                       "--no-out --json", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"jobs\": 2"));
    free(out);
    CU_ASSERT_EQUAL(sh("--data-path=dp/d/data run dp/a/b/s.json --no-out "
                       "--json", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"jobs\": 2"));
    free(out);
    CU_ASSERT_EQUAL(sh("run dp/a/b/s.json --no-out --json", NULL, NULL), 2);
    CU_ASSERT_EQUAL(sh("trace formats >/dev/null; GPUSIM_DATA_PATH=dp/d "
                       "\"$GPUSIM_ABS\" run dp/a/b/s.json --no-out --json",
                       &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"jobs\": 2"));
    free(out);
    /* beside the scenario wins over the search path */
    CU_ASSERT_EQUAL(sh("--version >/dev/null && mkdir -p dp/data && "
                       "printf 'id,arrival,gpus,"
                       "duration\n1,0,1,60\n' >dp/data/t.csv && "
                       "GPUSIM_DATA_PATH=dp/d \"$GPUSIM_ABS\" run "
                       "dp/a/b/s.json --no-out --json", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"jobs\": 1"));
    free(out);
    CU_ASSERT_EQUAL(sh("--data-path run x", NULL, &err), 2);
    free(err);
}


/* Every file a shipped scenario writes (run, compare, plan, sweep and
 * place-exp) describes every dataset and column (gs_h5_undescribed: no
 * missing, empty or placeholder description, a unit on every number and
 * none on text); the ones that replay ../shared/traces are skipped without
 * it. */
static void test_h5_shipped_described(void)
{
    char root[1024], cmd[2048];
    if (getcwd(root, sizeof root) == NULL)
        return;
    static const char *const sc[] = {
        "chat-and-training", "cloud-mixed", "hps-paper", "mixed-tier-generated",
        "sharing", "small-tenants", "topology", "openb-default",
        "philly-training",
    };
    struct stat st;
    int shared = stat("../shared/traces", &st) == 0;
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        if (!shared && i >= 7) {
            printf("\n    [skipped %s: ../shared/traces missing]", sc[i]);
            continue;
        }
        snprintf(cmd, sizeof cmd, "run %s/scenarios/%s.json -q -f -o "
                 "shipped-%zu.h5", root, sc[i], i);
        CU_ASSERT_EQUAL(sh(cmd, NULL, NULL), 0);
        char name[64], first[256] = "";
        snprintf(name, sizeof name, "shipped-%zu.h5", i);
        long n = gs_h5_undescribed(wp(name), first, sizeof first);
        if (n != 0)
            printf("\n    %s: %ld undescribed, first %s", sc[i], n, first);
        CU_ASSERT_EQUAL(n, 0);
        unlink(wp(name));
    }
    static const char *const other[] = {
        "plan scenarios/plan-erlang.json --seeds 2 --no-plots --no-advice -q "
        "-o x.h5",
        "sweep scenarios/small-tenants.json --set 'fleet[0].nodes=2,3' "
        "--seeds 2 -q -o x.h5",
        "compare scenarios/small-tenants.json -p fifo,fair -s 2 -q "
        "--no-plots -o x.h5",
        "compare quickstart -p fifo,hps -s 1 -q --no-plots -o x.h5",
        "place-exp quickstart --seeds 1 -q -o x.h5",
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        snprintf(cmd, sizeof cmd, "--version >/dev/null && cd %s && "
                 "\"$GPUSIM_ABS\" %s -f && mv x.h5 \"$OLDPWD\"/", root,
                 other[i]);
        int rc = sh(cmd, NULL, NULL);
        CU_ASSERT(rc == 0 || rc == 3);
        char first[256] = "";
        long n = gs_h5_undescribed(wp("x.h5"), first, sizeof first);
        if (n != 0)
            printf("\n    %.40s: %ld undescribed, first %s", other[i], n,
                   first);
        CU_ASSERT_EQUAL(n, 0);
        unlink(wp("x.h5"));
    }
}

/* The data rows ("# ..." lines aside) of file path, each up to 4 numbers
 * into v[row][0..3]; the row count (at most max). */
static int data_rows(const char *path, double v[][4], int max)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[512];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f))
        if (line[0] != '#' &&
            sscanf(line, "%lf %lf %lf %lf", &v[n][0], &v[n][1], &v[n][2],
                   &v[n][3]) >= 2)
            n++;
    fclose(f);
    return n;
}

/* compare's plots carry information when every run costs the same
 * (quickstart's fleet is fixed): cost_sla then plots each seed's SLA
 * violations and mean wait by policy, not one vertical line of costs; the
 * services' TTFT and ITL CDFs are drawn; and gnuplot's own warnings
 * ("empty x range") never reach the user. */
static void test_compare_plots(void)
{
    char *err = NULL;
    CU_ASSERT_EQUAL_FATAL(sh("compare quickstart -p fifo,hps -s 2 -q "
                             "--plots gs-cli-cp -o gs-cli-cp.h5", NULL, &err),
                          0);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "(utilization.png, "
                                         "wait_cdf.png, cost_sla.png, "
                                         "latency_cdf.png)"));
    CU_ASSERT_PTR_NULL(err ? strcasestr(err, "warning") : NULL);
    if (err && strcasestr(err, "warning"))
        printf("\n    %s", err);
    free(err);
    double v[64][4];
    for (int p = 0; p < 2; p++) {
        char path[300];
        snprintf(path, sizeof path, "gs-cli-cp/cost_sla-%s.dat",
                 p ? "hps" : "fifo");
        /* one row a seed: the same cost, SLA violations and waits that
         * tell the seeds apart */
        CU_ASSERT_EQUAL(data_rows(wp(path), v, 64), 2);
        CU_ASSERT_DOUBLE_EQUAL(v[0][0], v[1][0], 1e-6);
        CU_ASSERT(v[0][1] != v[1][1] || v[0][2] != v[1][2]);
        CU_ASSERT(v[0][2] > 0 && v[1][2] > 0);
        /* the latency CDFs: many points, rising to 1 */
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "gs-cli-cp/%s-%s.dat",
                     k ? "itl" : "ttft", p ? "hps" : "fifo");
            int n = data_rows(wp(path), v, 64);
            CU_ASSERT(n >= 64);
            CU_ASSERT(v[0][0] > 0 && v[0][1] > 0 && v[0][1] <= 1);
        }
    }
    static const char *const png[] = { "utilization", "wait_cdf",
                                       "cost_sla", "latency_cdf" };
    for (int i = 0; i < 4; i++) {
        char path[300];
        struct stat st;
        snprintf(path, sizeof path, "gs-cli-cp/%s.png", png[i]);
        CU_ASSERT(stat(wp(path), &st) == 0 && st.st_size > 2000);
    }
}

static CU_TestInfo tests[] = {
    { "compare's plots: equal costs, TTFT/ITL, no gnuplot warnings",
      test_compare_plots },
    { "bad input: exit 2, message, no result file", test_bad_input },
    { "run: deterministic stdout; HDF5 reads back equal", test_run_and_h5 },
    { "version, policies, help, scenario", test_other_commands },
    { "standard output checked at close (/dev/full)", test_stdout_full },
    { "--out targets and option errors", test_out_and_options },
    { "same scenario and seed: byte-identical .h5", test_h5_identical },
    { "compare interrupted: no orphans, no temporaries",
      test_compare_interrupted },
    { "compare survives a crashing plug-in and names the task",
      test_compare_plugin_crash },
    { "docs/policies.md quotes this ABI", test_docs_abi },
    { "getopt_long conventions, conflicts, did you mean", test_conventions },
    { "the scenario among the options, --, one too many",
      test_scenario_operand },
    { "results never replaced silently", test_no_silent_replace },
    { "every dataset has units and a description", test_h5_described },
    { "shipped scenarios' files: every dataset and column described",
      test_h5_shipped_described },
    { "plots/gpusim_h5.py reads runs and comparisons", test_python_reader },
    { "JSON: duplicate keys, comments, misspelled keys", test_json_input },
    { "compare: the metrics that differ, --metrics", test_compare_metrics },
    { "a UTF-8 BOM before a CSV header is skipped", test_csv_bom },
    { "compare bills every run over the same window", test_compare_bill_window },
    { "progress line on a terminal only", test_progress_line },
    { "plots/run.ipynb runs on a run's file", test_run_notebook },
    { "did you mean: GPU models, trace formats", test_did_you_mean_names },
    { "-o -: stdout for CSV and JSON, HDF5 into a file", test_out_stdout },
    { "policy names, trace stats on node lists, trace help, tenants",
      test_names_and_help },
    { "compare --precision adds seeds up to the cap", test_compare_precision },
    { "run --precision grows a steady-state run", test_run_precision },
    { "scenario files: beside it, then the data search path",
      test_data_path },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("cli", tests)
