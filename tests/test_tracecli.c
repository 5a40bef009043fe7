/* test_tracecli.c -- `gpusim trace` end to end (gs_trace_main), and the
 * statistics behind `trace stats`.
 *
 * Each command runs in-process with stdout and stderr captured to files, so
 * the tests check exit status, messages (file:line and field), what was
 * written, and that a failed command leaves no file behind -- neither the
 * output nor its temporary. */
#include "tracetest.h"
#include "../sim/io/gen.h"
#include "../traces/llmreq.h"
#include "../traces/native.h"
#include "../traces/tracecli.h"
#include "../traces/tstats.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>

static char dir[64];
static char out_text[1 << 16], err_text[1 << 16];

static void cleanup(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (dir[0] && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* The test folder, made on first use and removed at exit. */
static void ensure_dir(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof dir, "/tmp/gs_tracecli_XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
    atexit(cleanup);
}

static void slurp(const char *path, char *buf, size_t n)
{
    FILE *fp = fopen(path, "rb");
    size_t got = fp ? fread(buf, 1, n - 1, fp) : 0;
    buf[got] = '\0';
    if (fp)
        fclose(fp);
}

/* Run gpusim trace ARGS (NULL-terminated); capture stdout and stderr. */
static int run(const char *a0, ...)
{
    char *argv[64];
    int argc = 0;
    va_list ap;
    va_start(ap, a0);
    for (const char *a = a0; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    ensure_dir();
    char o[128], e[128];
    snprintf(o, sizeof o, "%s/stdout", dir);
    snprintf(e, sizeof e, "%s/stderr", dir);
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fo, 1);
    dup2(fe, 2);
    gs_trace_set_log(stderr);
    int rc = gs_trace_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    close(fo);
    close(fe);
    slurp(o, out_text, sizeof out_text);
    slurp(e, err_text, sizeof err_text);
    return rc;
}

static const char *tmp(const char *name)
{
    static char buf[4][256];
    static int k;
    ensure_dir();
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* No "*.tmp*" file left in the test folder. */
static int no_temp_files(void)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    int clean = 1;
    while ((e = readdir(dp)) != NULL)
        if (strstr(e->d_name, ".tmp"))
            clean = 0;
    closedir(dp);
    return clean;
}

static long read_native(const char *path, struct gs_jobspec **jobs)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    long n = tt_read("native", path, NULL, &j, &d);
    if (n < 0)
        printf("\n    %s: %s", d.where, d.what);
    *jobs = j;
    gs_diag_free(&d);
    return n;
}

static void expect(int rc, int want, const char *err_part)
{
    if (rc != want || (err_part && !strstr(err_text, err_part)))
        printf("\n    rc=%d (want %d); stderr: %s", rc, want, err_text);
    CU_ASSERT_EQUAL(rc, want);
    if (err_part)
        CU_ASSERT_PTR_NOT_NULL(strstr(err_text, err_part));
}

/* --- convert and its errors ------------------------------------------------------ */

static void test_convert(void)
{
    const char *out = tmp("ali.csv");
    int rc = run("convert", FIX "ali_ok.csv", "-o", out, NULL);
    expect(rc, 0, "wrote 4 jobs to");
    struct gs_jobspec *j;
    CU_ASSERT_EQUAL_FATAL(read_native(out, &j), 4);
    CU_ASSERT_EQUAL(j[0].id, 7);
    CU_ASSERT_EQUAL(j[0].milli, 250);
    CU_ASSERT_EQUAL(j[3].arrival, 35500);
    free(j);
    /* stdout when no -o */
    rc = run("convert", FIX "sia_ok.csv", "--opt", "gpu_hours_mine=2", NULL);
    expect(rc, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "7,300.000,4,1800.000,default,"
                                  "training"));
    CU_ASSERT(no_temp_files());
}

/* Whatever convert writes, a scenario reads: the models a converted trace
 * names (Alibaba's undisclosed G1-G3; Philly's allowed lists, which name
 * every model but the ones a job does not fit) are known to any scenario,
 * not only to the trace command's catalog. */
static long scenario_reads(const char *trace)
{
    const char *sj = tmp("conv.json");
    FILE *fp = fopen(sj, "w");
    fprintf(fp, "{\"name\": \"c\", \"fleet\": ["
            "{\"name\": \"g2\", \"gpu\": \"G2\", \"nodes\": 1},"
            "{\"name\": \"v\", \"gpu\": \"V100-16GB\", \"nodes\": 1}],"
            " \"workload\": {\"trace\": {\"format\": \"native\","
            " \"path\": \"%s\"}}}", trace);
    fclose(fp);
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    long n = -1;
    if (gs_scenario_load(sj, &sc, &d) == 0) {
        struct gs_source src;
        if (gs_source_open(sc, 1, &src, &d) == 0) {
            struct gs_jobspec j;
            int rc;
            n = 0;
            while ((rc = gs_source_next(&src, &j, &d)) == 1)
                n++;
            if (rc < 0)
                n = -1;
            gs_source_close(&src);
        }
    }
    if (n < 0)
        printf("\n    %s: %s", d.where, d.what);
    gs_scenario_free(sc);
    gs_diag_free(&d);
    return n;
}

static void test_convert_then_run(void)
{
    const char *ali = tmp("ali_run.csv"), *ph = tmp("philly_run.csv");
    int rc = run("convert", FIX "ali_ok.csv", "--opt", "pending=keep", "-o",
                 ali, NULL);
    expect(rc, 0, "wrote 5 jobs to");
    char text[4096];
    slurp(ali, text, sizeof text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",G2,"));
    CU_ASSERT_EQUAL(scenario_reads(ali), 5);
    rc = run("convert", FIX "philly_ok.trace", "--opt",
             "throughputs=" FIX "thr.json", "-o", ph, NULL);
    expect(rc, 0, "wrote 4 jobs to");
    slurp(ph, text, sizeof text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "|G1|G2|G3|"));
    CU_ASSERT_EQUAL(scenario_reads(ph), 4);
}

static void test_convert_errors(void)
{
    const char *out = tmp("bad.csv");
    int rc = run("convert", FIX "ali_bad_num_gpu.csv", "-o", out, NULL);
    expect(rc, 2, "gpusim: " FIX "ali_bad_num_gpu.csv:3: field 'num_gpu': "
           "'two' is not a GPU count");
    CU_ASSERT(!exists(out));
    CU_ASSERT(no_temp_files());

    /* A bad row late in the file, after good rows were written: the old
     * output stays as it was. */
    FILE *fp = fopen(out, "w");
    fputs("previous\n", fp);
    fclose(fp);
    rc = run("convert", FIX "swf_bad_status.swf", "--opt", "procs_per_gpu=8",
             "-o", out, NULL);
    expect(rc, 2, FIX "swf_bad_status.swf:3: field 'status'");
    char buf[64];
    slurp(out, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "previous\n");
    CU_ASSERT(no_temp_files());

    rc = run("convert", FIX "swf_trunc.swf.gz", "--opt", "procs_per_gpu=8",
             "-o", out, NULL);
    expect(rc, 2, "truncated gzip file");
    rc = run("convert", FIX "swf_ok.swf", "-o", out, NULL);
    expect(rc, 2, "--opt: missing required key 'procs_per_gpu'");
    rc = run("convert", FIX "swf_ok.swf", "--opt", "procs_per_gpu=8",
             "--opt", "colour=red", "-o", out, NULL);
    expect(rc, 2, "--opt.colour: unknown key 'colour'");
    rc = run("convert", FIX "ali_ok.csv", "-o", "/nonexistent/dir/x.csv",
             NULL);
    /* a file that cannot be made is bad usage, said before the work, as
     * run's --out is (exit 1 stays for a write that fails later) */
    expect(rc, 2, "--out: /nonexistent/dir/x.csv: cannot write");
    rc = run("convert", FIX "no_such.csv", "-o", out, NULL);
    expect(rc, 2, "no_such.csv: cannot open");
    rc = run("convert", FIX "thr.json", "-o", out, NULL);
    expect(rc, 2, "thr.json: $");
    CU_ASSERT(no_temp_files());
}

static void test_skip_bad_rows(void)
{
    const char *out = tmp("mixed.csv");
    int rc = run("convert", FIX "ali_mixed.csv", "-o", out, NULL);
    expect(rc, 2, FIX "ali_mixed.csv:3: field 'num_gpu'");
    rc = run("convert", FIX "ali_mixed.csv", "--skip-bad-rows", "-o", out,
             NULL);
    expect(rc, 0, "skipped 3 bad rows (skip_bad_rows):\n  2 x field "
           "'num_gpu', first at line 3");
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "wrote 3 jobs"));
    struct gs_jobspec *j;
    CU_ASSERT_EQUAL(read_native(out, &j), 3);
    free(j);
    /* through a scenario: the flag reaches its trace */
    const char *sc = tmp("skip.json");
    char cwd[512];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    FILE *fp = fopen(sc, "w");
    fprintf(fp, "{\"fleet\": [{\"gpu\": \"T4\", \"nodes\": 1}], \"workload\": "
            "{\"trace\": {\"format\": \"alibaba-gpu-2023\", \"path\": "
            "\"%s/" FIX "ali_mixed.csv\"}}}\n", cwd);
    fclose(fp);
    rc = run("stats", sc, NULL);
    expect(rc, 2, "ali_mixed.csv:3: field 'num_gpu'");
    rc = run("stats", sc, "--skip-bad-rows", NULL);
    expect(rc, 0, "skipped 3 bad rows");
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "jobs       3\n"));
    rc = run("stats", FIX "mooncake_bad_hash.jsonl", "--skip-bad-rows", NULL);
    expect(rc, 0, "1 x field 'hash_ids'");
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "count      1"));

    /* Every row bad: an error, not an empty workload with exit 0. */
    const char *allbad = tmp("allbad.csv"), *o2 = tmp("allbad_out.csv");
    fp = fopen(allbad, "w");
    fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
          "pod_phase,creation_time,deletion_time,scheduled_time\n"
          "openb-pod-0001,4000,8192,two,1000,,LS,Running,5,50,5\n"
          "openb-pod-0002,4000,8192,1,1000,,Gold,Running,6,50,6\n", fp);
    fclose(fp);
    rc = run("convert", allbad, "--format", "alibaba-gpu-2023",
             "--skip-bad-rows", "-o", o2, NULL);
    expect(rc, 2, "every row is bad: all 2 were skipped (skip_bad_rows), "
           "which leaves no workload; the first, line 2, field 'num_gpu'");
    CU_ASSERT(!exists(o2));
    const char *reqbad = tmp("allbad.jsonl");
    fp = fopen(reqbad, "w");
    fputs("{\"timestamp\": 0, \"input_length\": \"x\", "
          "\"output_length\": 5}\n", fp);
    fclose(fp);
    rc = run("stats", reqbad, "--format", "mooncake", "--skip-bad-rows", NULL);
    expect(rc, 2, "every row is bad: all 1 were skipped");
}

static void test_transforms(void)
{
    const char *out = tmp("x.csv");
    struct gs_jobspec *j;
    /* arrivals 10,20,20,50,50 s (ids 4,2,5,1,3) */
    CU_ASSERT_EQUAL(run("convert", FIX "ali_unsorted.csv", "--scale-rate",
                        "2", "-o", out, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(read_native(out, &j), 5);
    CU_ASSERT_EQUAL(j[0].arrival, 5000);
    CU_ASSERT_EQUAL(j[4].arrival, 25000);
    CU_ASSERT_EQUAL(j[4].work, 20000.0);    /* durations unchanged */
    free(j);
    CU_ASSERT_EQUAL(run("convert", FIX "ali_unsorted.csv", "--from", "15",
                        "--to", "50s", "-o", out, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(read_native(out, &j), 2);
    CU_ASSERT_EQUAL(j[0].id, 2);
    CU_ASSERT_EQUAL(j[0].arrival, 5000);
    CU_ASSERT_EQUAL(j[1].id, 5);
    free(j);
    CU_ASSERT_EQUAL(run("transform", FIX "swf_ok.swf", "--opt",
                        "procs_per_gpu=8", "--tenants", "user3,user5", "-o",
                        out, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(read_native(out, &j), 2);
    CU_ASSERT_EQUAL(j[0].id, 1);
    CU_ASSERT_EQUAL(j[1].id, 5);
    free(j);
    CU_ASSERT_EQUAL(run("convert", FIX "ali_unsorted.csv", "--limit", "2",
                        "-o", out, NULL), 0);
    CU_ASSERT_EQUAL(read_native(out, &j), 2);
    free(j);

    /* A generated all-training workload of 10,000 jobs for the random
     * transforms. */
    const char *spec = tmp("spec.json");
    FILE *fp = fopen(spec, "w");
    fputs("{\"jobs\": 10000, \"rate_per_hour\": 600, \"classes\": [{\"tier\": "
          "\"training\", \"gpus\": 2, \"duration\": {\"dist\": \"exponential\","
          " \"mean\": \"10m\"}}]}\n", fp);
    fclose(fp);
    const char *gen = tmp("gen.csv");
    CU_ASSERT_EQUAL_FATAL(run("gen", spec, "-o", gen, NULL), 0);
    /* --sample 0.5: Binomial(10000, 0.5), sd 50 */
    CU_ASSERT_EQUAL(run("convert", gen, "--sample", "0.5", "--seed", "3",
                        "-o", out, NULL), 0);
    long n = read_native(out, &j);
    CU_ASSERT(n > 5000 - 225 && n < 5000 + 225);
    free(j);
    /* the same seed gives the same sample */
    const char *out2 = tmp("x2.csv");
    CU_ASSERT_EQUAL(run("convert", gen, "--sample", "0.5", "--seed", "3",
                        "-o", out2, NULL), 0);
    char a[1 << 15], b[1 << 15];
    slurp(out, a, sizeof a);
    slurp(out2, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(a, b);
    /* --tier-mix: 30% inference in expectation (sd 0.0046); the rest stays
     * training; moved jobs take the tier defaults */
    CU_ASSERT_EQUAL(run("convert", gen, "--tier-mix",
                        "inference=3,training=7", "-o", out, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(read_native(out, &j), 10000);
    long inf = 0, other = 0;
    for (long i = 0; i < 10000; i++) {
        inf += j[i].tier == GS_TIER_INFERENCE;
        other += j[i].tier != GS_TIER_INFERENCE &&
                 j[i].tier != GS_TIER_TRAINING;
        CU_ASSERT(j[i].priority == INT_MIN);
    }
    CU_ASSERT(fabs(inf / 10000.0 - 0.3) < 0.02);
    CU_ASSERT_EQUAL(other, 0);
    /* the argument is read whole: "inference=0...03" with 300 zeros is
     * 3, and every job's tier comes out as above (cut to 255 bytes it read
     * inference=0: no job moved, said nowhere) */
    char *mix = malloc(400);
    snprintf(mix, 400, "training=7,inference=%0300d3", 0);
    struct gs_jobspec *j2;
    CU_ASSERT_EQUAL(run("convert", gen, "--tier-mix", mix, "-o", out, NULL),
                    0);
    CU_ASSERT_EQUAL_FATAL(read_native(out, &j2), 10000);
    long same = 0;
    for (long i = 0; i < 10000; i++)
        same += j2[i].tier == j[i].tier;
    CU_ASSERT_EQUAL(same, 10000);
    free(j2);
    free(mix);
    free(j);
    CU_ASSERT(no_temp_files());

    CU_ASSERT_EQUAL(run("convert", gen, "--scale-rate", "0", "-o", out, NULL),
                    2);
    CU_ASSERT_EQUAL(run("convert", gen, "--tier-mix", "gold=1", "-o", out,
                        NULL), 2);
    CU_ASSERT_EQUAL(run("convert", gen, "--from", "2h", "--to", "1h", "-o",
                        out, NULL), 2);
}

/* --- stats ------------------------------------------------------------------------ */

static void test_stats_numbers(void)
{
    struct gs_tstats s;
    gs_tstats_init(&s);
    /* Ten jobs: arrivals at 0.5 h steps from 23:00 on day 0, durations 1..10
     * min, GPUs 1, 2, 0.5, 0 in turn; tenants t0/t1 alternate. */
    for (int i = 0; i < 10; i++) {
        struct gs_jobspec j;
        gs_jobspec_init(&j);
        j.arrival = 23 * GS_HOUR + i * GS_HOUR / 2;
        j.work = (i + 1) * 60000.0;
        static const double g[4] = { 1, 2, 0.5, 0 };
        if (g[i % 4] >= 1)
            j.gpus = (int)g[i % 4];
        else
            j.milli = (int)(g[i % 4] * 1000);
        snprintf(j.tenant, sizeof j.tenant, "t%d", i % 2);
        j.tier = i < 3 ? GS_TIER_INFERENCE : GS_TIER_TRAINING;
        CU_ASSERT_EQUAL(gs_tstats_add(&s, &j), 0);
    }
    CU_ASSERT_EQUAL(s.n, 10);
    /* nearest rank: p50 = 5th of 1..10 min, p90 = 9th, p99 = 10th */
    CU_ASSERT_EQUAL(gs_tstats_pct(&s, 50), 300.0);
    CU_ASSERT_EQUAL(gs_tstats_pct(&s, 90), 540.0);
    CU_ASSERT_EQUAL(gs_tstats_pct(&s, 99), 600.0);
    /* hour 23 holds arrivals 23:00, 23:30; span 23:00..03:30 (4.5 h) */
    CU_ASSERT_EQUAL(s.by_hour[23], 2);
    CU_ASSERT_DOUBLE_EQUAL(gs_tstats_hour_rate(&s, 23), 2.0, 1e-12);
    /* hour 3 holds 03:00 and 03:30, but the span covers only 0.5 h of it */
    CU_ASSERT_EQUAL(s.by_hour[3], 2);
    CU_ASSERT_DOUBLE_EQUAL(gs_tstats_hour_rate(&s, 3), 2.0 / 0.5, 1e-12);
    /* GPU-hours: sum g_i * (i+1)/60 = (1*1 + 2*2 + 0.5*3 + 0 + 1*5 + 2*6 +
     * 0.5*7 + 0 + 1*9 + 2*10)/60 = 56/60 */
    CU_ASSERT_DOUBLE_EQUAL(s.gpu_hours, 56.0 / 60.0, 1e-12);
    CU_ASSERT_EQUAL(s.bins[gs_tstats_bin(0)], 2);
    CU_ASSERT_EQUAL(s.bins[gs_tstats_bin(0.5)], 2);
    CU_ASSERT_EQUAL(s.bins[gs_tstats_bin(1)], 3);
    CU_ASSERT_EQUAL(s.bins[gs_tstats_bin(2)], 3);
    CU_ASSERT_EQUAL(s.tier_n[GS_TIER_INFERENCE], 3);
    CU_ASSERT_EQUAL(s.ntenants, 2);
    /* Jobs never overlap except i=9 (10 min from 03:30)... each lasts at
     * most 10 min and they are 30 min apart: the peak is the largest single
     * demand, 2 GPUs. */
    CU_ASSERT_DOUBLE_EQUAL(gs_tstats_peak_demand(&s), 2.0, 1e-12);
    CU_ASSERT_STRING_EQUAL(gs_tstats_bin_name(gs_tstats_bin(3)), "3-4");
    CU_ASSERT_STRING_EQUAL(gs_tstats_bin_name(gs_tstats_bin(64)), "33-64");
    gs_tstats_free(&s);

    /* Overlapping jobs: 3 jobs of 1, 2, 4 GPUs all running at t = 1 h. */
    gs_tstats_init(&s);
    for (int i = 0; i < 3; i++) {
        struct gs_jobspec j;
        gs_jobspec_init(&j);
        j.arrival = i * GS_MIN;
        j.work = 2.0 * GS_HOUR;
        j.gpus = 1 << i;
        gs_tstats_add(&s, &j);
    }
    /* a fourth starts exactly when the first ends: ends count first */
    struct gs_jobspec j;
    gs_jobspec_init(&j);
    j.arrival = 2 * GS_HOUR;
    j.work = 1000;
    j.gpus = 1;
    gs_tstats_add(&s, &j);
    CU_ASSERT_DOUBLE_EQUAL(gs_tstats_peak_demand(&s), 7.0, 1e-12);
    gs_tstats_free(&s);
}

static void test_stats_command(void)
{
    /* ali_ok: GPU-seconds 0.25*98 + 2*30 + 0 + 1*60 = 144.5 over a span of
     * 25.5 s = 5.667 GPUs busy; on 10 GPUs, 56.7% */
    int rc = run("stats", FIX "ali_ok.csv", "--gpus", "10", NULL);
    expect(rc, 0, "left out 1 row");
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "jobs       4\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "GPUs busy on average"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "5.67 GPUs busy"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "offered load 56.7%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "fraction"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "inference"));
    /* mooncake fixture: blocks [0,1], [3], [0,1,2] in arrival order: 2 of
     * 6 seen before, 1 request of 3 reuses */
    rc = run("stats", FIX "mooncake_ok.jsonl", NULL);
    expect(rc, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "count      3\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "blocks 6, distinct 4; 33.3% of "
                                  "blocks seen before"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "1 requests (33.3%) reuse"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "input  tokens  total 2800"));
    rc = run("stats", FIX "azure_ok.csv", "--format", "azure-llm", NULL);
    expect(rc, 0, "2 rows arrived before");
    /* 4 requests in the 1.75 s from 10:00:00.25 UTC */
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "  10           4       2.286"));

    /* a scenario: its generator and its fleet (16 GPUs) */
    const char *sc = tmp("sc.json");
    FILE *fp = fopen(sc, "w");
    fputs("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 2}],\n"
          " \"workload\": {\"generate\": {\"jobs\": 50, \"rate_per_hour\": 10,"
          " \"classes\": [{\"gpus\": 1, \"duration\": {\"dist\": "
          "\"constant\", \"value\": \"1h\"}}]}}}\n", fp);
    fclose(fp);
    rc = run("stats", sc, NULL);
    expect(rc, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "jobs       50\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "16 GPUs (fleet of"));
    rc = run("stats", FIX "ali_ok.csv", "--fleet", sc, NULL);
    expect(rc, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "offered load 35.4%"));
    rc = run("stats", FIX "ali_ok.csv", "--opt", "pending=maybe", NULL);
    expect(rc, 2, "--opt.pending: 'maybe' is neither");
}

/* --- gen and fit ------------------------------------------------------------------- */

static void test_gen_and_fit(void)
{
    const char *spec = tmp("g.json");
    FILE *fp = fopen(spec, "w");
    fputs("{\"seed\": 5, \"until\": \"14d\", \"rate_per_hour\": 40,\n"
          " \"diurnal_amplitude\": 0.5, \"peak_hour\": 10,\n"
          " \"classes\": [\n"
          "  {\"tier\": \"training\", \"weight\": 2, \"tenants\": [\"a\", \"b\"],"
          "   \"gpus\": {\"values\": [1, 8], \"weights\": [3, 1]},\n"
          "   \"duration\": {\"dist\": \"lognormal\", \"median\": \"30m\", "
          "\"sigma\": 1}},\n"
          "  {\"tier\": \"interactive\", \"weight\": 1, \"gpus\": 0.5,\n"
          "   \"duration\": {\"dist\": \"exponential\", \"mean\": \"10m\"}}]}\n",
          fp);
    fclose(fp);
    const char *g1 = tmp("g1.csv"), *g2 = tmp("g2.csv"), *g3 = tmp("g3.csv");
    int rc = run("gen", spec, "-o", g1, NULL);
    expect(rc, 0, "(seed 5)");
    CU_ASSERT_EQUAL(run("gen", spec, "-o", g2, NULL), 0);
    CU_ASSERT_EQUAL(run("gen", spec, "--seed", "6", "-o", g3, NULL), 0);
    static char a[1 << 20], b[1 << 20];
    slurp(g1, a, sizeof a);
    slurp(g2, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(a, b);
    slurp(g3, b, sizeof b);
    CU_ASSERT(strcmp(a, b) != 0);
    struct gs_jobspec *j;
    long n = read_native(g1, &j);
    /* 40/h for 14 days = 13,440 expected, sd 116 */
    CU_ASSERT(n > 13440 - 600 && n < 13440 + 600);
    CU_ASSERT(j[n - 1].arrival < 14 * GS_DAY);
    free(j);
    CU_ASSERT_EQUAL(run("gen", spec, "--jobs", "100", "-o", g3, NULL), 0);
    CU_ASSERT_EQUAL(read_native(g3, &j), 100);
    free(j);

    const char *fitted = tmp("fitted.json");
    rc = run("fit", g1, "-o", fitted, NULL);
    expect(rc, 0, "wrote the generator spec");
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "KS distance of time-rescaled"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "class training"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "class interactive"));
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_genspec sp;
    uint64_t seed;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_genspec_load(fitted, &cat, &sp, &seed, &d), 0);
    CU_ASSERT(fabs(sp.rate_per_hour / 40 - 1) < 0.05);
    CU_ASSERT(fabs(sp.diurnal - 0.5) < 0.05);
    CU_ASSERT(fabs(sp.peak_hour - 10) < 0.5);
    CU_ASSERT_EQUAL(sp.weekly, 0);          /* 14 days: no weekend fitted */
    CU_ASSERT_EQUAL(sp.nclasses, 2);
    gs_genspec_release(&sp);
    /* ... and gen accepts it */
    CU_ASSERT_EQUAL(run("gen", fitted, "--scale-rate", "2", "-o", g3, NULL), 0);
    CU_ASSERT_EQUAL(read_native(g3, &j), (long)sp.jobs);
    free(j);

    /* A request trace is fitted to a service's request source
     * (test_reqfit.c checks the figures). */
    rc = run("fit", FIX "mooncake_ok.jsonl", NULL);
    expect(rc, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "requests 3 over 0.2 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "\"requests\": {\"generate\": {"));
    rc = run("fit", FIX "mooncake_ok.jsonl", "--tier-mix", "training=1",
             NULL);
    expect(rc, 2, "apply to jobs, not requests");
    rc = run("fit", FIX "ali_ok.csv", "--durations", "gamma", NULL);
    expect(rc, 2, "--durations takes");
    fp = fopen(spec, "w");
    fputs("{\"jobs\": 10, \"rate_per_hour\": 5, \"classes\": [{\"duration\": "
          "{\"dist\": \"lognormal\", \"sigma\": 1}}]}\n", fp);
    fclose(fp);
    rc = run("gen", spec, "-o", g3, NULL);
    expect(rc, 2, "$.classes[0].duration: lognormal needs");
    CU_ASSERT(no_temp_files());
    gs_diag_free(&d);
}

static void test_requests_convert(void)
{
    const char *out = tmp("req.csv");
    int rc = run("convert", FIX "mooncake_ok.jsonl", "--scale-rate", "2", "-o",
                 out, NULL);
    expect(rc, 0, "wrote 3 requests");
    struct gs_reqtable *t;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("requests", out, 0, &t, &d), 0);
    CU_ASSERT_EQUAL(t->n, 3);
    CU_ASSERT_EQUAL(t->r[1].arrival, 50);
    CU_ASSERT_EQUAL(t->r[2].arrival, 125);
    CU_ASSERT_EQUAL(t->nblocks, 6);
    gs_reqtable_free(t);
    rc = run("convert", FIX "mooncake_ok.jsonl", "--tenants", "a", "-o", out,
             NULL);
    expect(rc, 2, "apply to jobs, not requests");
    rc = run("convert", FIX "mooncake_bad_json.jsonl", "-o", out, NULL);
    expect(rc, 2, FIX "mooncake_bad_json.jsonl:2: malformed JSON");
    gs_diag_free(&d);
}

static void test_usage(void)
{
    CU_ASSERT_EQUAL(run("help", NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "gpusim trace help COMMAND"));
    CU_ASSERT_EQUAL(run("help", "convert", NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "--scale-rate K"));
    CU_ASSERT_EQUAL(run("formats", NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "alibaba-gpu-2023"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "mooncake"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "alibaba-spot-gpu-2026"));
    expect(run("frobnicate", NULL), 2, "unknown command 'frobnicate'");
    expect(run("convert", NULL), 2, "which input?");
    expect(run("convert", FIX "ali_ok.csv", "--frob", NULL), 2,
           "unknown option");
    expect(run("stats", FIX "ali_ok.csv", "-o", "x", NULL), 2,
           "unknown option");
    expect(run("gen", FIX "ali_ok.csv", "--tenants", "a", NULL), 2,
           "--tenants: this command does not take it");
    /* getopt_long's forms: a misspelled option gets "did you mean";
     * --name=value is --name value; "--" ends the options */
    expect(run("convert", FIX "ali_ok.csv", "--sampel", "0.5", NULL), 2,
           "unknown option '--sampel' (did you mean '--sample'?)");
    CU_ASSERT_EQUAL(run("stats", FIX "ali_ok.csv", "--gpus", "8", NULL), 0);
    static char plain[sizeof out_text];
    memcpy(plain, out_text, sizeof plain);
    CU_ASSERT_EQUAL(run("stats", "--gpus=8", "--", FIX "ali_ok.csv", NULL), 0);
    CU_ASSERT_STRING_EQUAL(out_text, plain);
    expect(run("stats", "--", FIX "ali_ok.csv", "--gpus", NULL), 2,
           "more than one input: '--gpus'");
    expect(run("convert", FIX "ali_ok.csv", "--format", "parquet", NULL), 2,
           "unknown format 'parquet'");
    expect(run("convert", FIX "thr_bad.json", "--format", "sia", "--opt",
               "x", NULL), 2, "--opt takes KEY=VALUE");
    expect(run(NULL), 2, "usage: gpusim trace COMMAND");
}

static void test_real_traces_cli(void)
{
    if (!have_traces("test_real_traces_cli"))
        return;
    const char *out = tmp("openb.csv");
    int rc = run("convert", SHARED "alibaba-gpu-v2023/openb_pod_list_default.csv",
                 "--opt", "pending=keep", "-o", out, NULL);
    expect(rc, 0, "wrote 8152 jobs");
    rc = run("stats", SHARED "swf/NASA-iPSC-1993-3.1-cln.swf.gz", "--opt",
             "procs_per_gpu=8", NULL);
    expect(rc, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "jobs       18239\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "17150.3 GPU-hours"));
    rc = run("stats", SHARED "azure-llm-2023/AzureLLMInferenceTrace_code.csv",
             NULL);
    expect(rc, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "count      8819\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "total 18059974"));
    rc = run("fit", SHARED "philly-gavel/0e4a51.trace", NULL);
    expect(rc, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "arrivals   1181 jobs"));
}

/* Every importer of a team's cluster through trace stats and trace
 * convert: what it understood, and what it left out by reason. */
static void test_importers_cli(void)
{
#define IMPF "tests/fixtures/import/"
    static const struct {
        const char *path, *format, *out, *err;
    } c[] = {
        { IMPF "k8s-snaps", NULL, "jobs       4",
          "1 Pending when last seen (never started)" },
        { IMPF "ksm", "k8s-ksm", "jobs       3", "left out 2 pods" },
        { IMPF "sacct.txt", "slurm-sacct", "jobs       3",
          "1 PENDING (never started)" },
        { IMPF "slurm-mig/sacct.txt", "slurm-sacct", "jobs       3",
          "1 asks for more than one MIG instance" },
        { IMPF "taints/nodes.json", "k8s-nodes",
          "gpu-taint-dedicated, taints dedicated=ml:NoSchedule", "" },
        { IMPF "slurm-mig/nodes.txt", "slurm-nodes",
          "gpu-mig, MIG 1g.10gb@0+1g.10gb@1", "has 4 whole GPUs and 2 cut" },
        { IMPF "k8s-nodes.json", "k8s-nodes", "time-slicing x4",
          "1 cordoned (spec.unschedulable)" },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int rc = c[i].format ? run("stats", c[i].path, "--format",
                                   c[i].format, NULL)
                             : run("stats", c[i].path, NULL);
        if (rc != 0 || !strstr(out_text, c[i].out) ||
            !strstr(err_text, c[i].err))
            printf("\n    %s: rc %d, stdout:\n%s\nstderr:\n%s", c[i].path,
                   rc, out_text, err_text);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out_text, c[i].out));
        CU_ASSERT_PTR_NOT_NULL(strstr(err_text, c[i].err));
    }
    /* convert: the MIG job keeps its profile; a pod file's left out
     * reasons are said on the way */
    const char *csv = tmp("mig.csv");
    CU_ASSERT_EQUAL(run("convert", IMPF "slurm-mig/sacct.txt", "--format",
                        "slurm-sacct", "-o", csv, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "wrote 3 jobs"));
    char text[4096];
    slurp(csv, text, sizeof text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1g.10gb"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "3g.40gb"));
    unlink(csv);
    CU_ASSERT_EQUAL(run("convert", IMPF "k8s-snaps", "-o", tmp("p.csv"),
                        NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "1 owned by a DaemonSet"));
    unlink(tmp("p.csv"));
#undef IMPF
}

static CU_TestInfo tests[] = {
    { "convert", test_convert },
    { "convert errors leave no file", test_convert_errors },
    { "what convert writes, a scenario reads", test_convert_then_run },
    { "--skip-bad-rows", test_skip_bad_rows },
    { "transforms", test_transforms },
    { "stats numbers", test_stats_numbers },
    { "stats command", test_stats_command },
    { "gen and fit", test_gen_and_fit },
    { "request traces", test_requests_convert },
    { "usage", test_usage },
    { "real traces through the CLI", test_real_traces_cli },
    { "cluster importers: stats and convert", test_importers_cli },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("tracecli", tests)
