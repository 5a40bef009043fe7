/* test_bounds.c -- bounded input: every reader refuses what never ends or
 * would not fit before reading or allocating it -- devices, FIFOs and
 * folders where a regular file is needed (a scenario, a trace), a scenario
 * file over GS_SCENARIO_MAX, and (test_jsoncheck) JSON of more than
 * GS_JSON_MAX_VALUES values.  Each must exit 2 at once with a message that
 * names the file and what it is. */
#include "cutest.h"
#include "hostile.h"
#include "../sim/setup/scenario.h"
#include "../sim/io/jsoncheck.h"
#include "../traces/tread.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *dir;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run argv in dir: exit status 2 within 10 s, and the message holds want. */
static void refused(const char *const *argv, const char *want)
{
    double t0 = now();
    int rc = gs_hostile_run(dir, argv);
    double dt = now() - t0;
    char *msg = gs_hostile_take_log(dir);
    if (rc != 2 || strstr(msg, want) == NULL || dt > 10)
        printf("\n    %s %s: rc=%d in %.1f s: %s", argv[1], argv[2], rc, dt,
               msg);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT(dt < 10);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    free(msg);
}

static void test_not_files(void)
{
    char *fifo = NULL;
    CU_ASSERT_FATAL(asprintf(&fifo, "%s/fifo", dir) > 0);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    const char *a1[] = { "gpusim", "run", "/dev/zero", NULL };
    refused(a1, "/dev/zero: a scenario or JSON input must be a regular file, "
                "and this is a character device");
    const char *a2[] = { "gpusim", "run", "fifo", NULL };
    refused(a2, "fifo: a scenario or JSON input must be a regular file, and "
                "this is a pipe (FIFO)");
    const char *a3[] = { "gpusim", "run", ".", NULL };
    refused(a3, "this is a folder");
    const char *a4[] = { "gpusim", "trace", "stats", "/dev/zero", "--format",
                         "native", NULL };
    refused(a4, "/dev/zero: a trace must be a regular file, and this is a "
                "character device");
    const char *a5[] = { "gpusim", "trace", "stats", "fifo", "--format",
                         "native", NULL };
    refused(a5, "this is a pipe (FIFO)");
    const char *a6[] = { "gpusim", "trace", "stats", "/dev/zero", "--format",
                         "alibaba-gpu-2023", NULL };
    refused(a6, "a regular file");
    const char *a7[] = { "gpusim", "compare", "/dev/zero", "--no-plots",
                         NULL };
    refused(a7, "this is a character device");
    const char *a8[] = { "gpusim", "plan", "fifo", "--no-plots", NULL };
    refused(a8, "this is a pipe (FIFO)");
    unlink(fifo);
    free(fifo);
}

static void test_too_big(void)
{
    /* a sparse file one byte over the limit: refused by its size, so
     * nothing is read */
    char *big = NULL;
    CU_ASSERT_FATAL(asprintf(&big, "%s/big.json", dir) > 0);
    int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(ftruncate(fd, (off_t)GS_SCENARIO_MAX + 1), 0);
    close(fd);
    const char *a1[] = { "gpusim", "run", "big.json", NULL };
    refused(a1, "67108865 bytes, more than the 67108864 bytes a scenario or "
                "JSON input may have");
    /* exactly the limit is read (and then refused as JSON: NUL bytes) */
    CU_ASSERT_EQUAL(truncate(big, (off_t)GS_SCENARIO_MAX), 0);
    refused(a1, "not a text file");
    unlink(big);
    free(big);
}

/* Numbers from text are decimal; token counts are counts. */
static void test_numbers(void)
{
    static const struct { const char *s; size_t len; } dl[] = {
        { "3", 1 }, { "-3", 2 }, { "3.5", 3 }, { ".5", 2 }, { "5.", 2 },
        { "1e3", 3 }, { "1E-3", 4 }, { "1e", 1 }, { "2h", 1 },
        { "0x10", 1 }, { "+3", 0 }, { " 3", 0 }, { "inf", 0 }, { "nan", 0 },
        { ".", 0 }, { "-", 0 }, { "", 0 },
    };
    for (size_t i = 0; i < sizeof dl / sizeof dl[0]; i++)
        CU_ASSERT_EQUAL(gs_decimal_len(dl[i].s), dl[i].len);
    double v;
    long long n;
    CU_ASSERT_EQUAL(gs_tnum(" 2.5 ", &v), 0);
    CU_ASSERT_DOUBLE_EQUAL(v, 2.5, 0);
    CU_ASSERT_EQUAL(gs_tnum("0x10", &v), -1);   /* strtod: 16 */
    CU_ASSERT_EQUAL(gs_tnum("+3", &v), -1);
    CU_ASSERT_EQUAL(gs_tnum("inf", &v), -1);
    CU_ASSERT_EQUAL(gs_tnum("1e3", &v), 0);
    CU_ASSERT_DOUBLE_EQUAL(v, 1000, 0);
    CU_ASSERT_EQUAL(gs_tint("+3", 0, 10, &n), -1);  /* strtoll: 3 */
    CU_ASSERT_EQUAL(gs_tint(" 7", 0, 10, &n), 0);
    CU_ASSERT_EQUAL(n, 7);
    gs_time t;
    CU_ASSERT_EQUAL(gs_parse_time("5m", &t), 0);
    CU_ASSERT_EQUAL(t, 300000);
    CU_ASSERT_EQUAL(gs_parse_time("0x10", &t), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_parse_time("+5m", &t), GS_EINVAL);
    /* a token count given as a duration: refused, naming the key */
    char *text = NULL;
    FILE *fp = fopen("scenarios/chat-and-training.json", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    int ch;
    while ((ch = fgetc(fp)) != EOF)
        fputc(ch, mf);
    fclose(mf);
    fclose(fp);
    char *at = strstr(text, "\"median\": 600");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memcpy(at, "\"median\":\"5m\"", 13);  /* as long as "median": 600 */
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT(gs_scenario_parse(text, "c.json", "scenarios", &sc, &d) < 0);
    if (strstr(d.where, "input_tokens.median") == NULL)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.where, "input_tokens.median"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "expected a number of tokens"));
    gs_scenario_free(sc);
    free(text);
    gs_diag_free(&d);
}

/* --out naming an input (the scenario, a trace it reads) is refused, and
 * the input is left as it was. */
static void test_out_is_input(void)
{
    char *sc = NULL, *tr = NULL;
    CU_ASSERT_FATAL(asprintf(&sc, "%s/in.json", dir) > 0);
    CU_ASSERT_FATAL(asprintf(&tr, "%s/tr.csv", dir) > 0);
    static const char scen[] =
        "{\"name\": \"t\", \"fleet\": [{\"name\": \"gpu\", \"gpu\": "
        "\"A100-80GB\", \"nodes\": 2, \"gpus_per_node\": 1}], \"policy\": "
        "\"fifo\", \"workload\": {\"trace\": {\"format\": \"native\", "
        "\"path\": \"tr.csv\"}}}\n";
    static const char csv[] = "job_id,submit_time,duration,num_gpu,tenant\n"
                              "1,0,3600,1,a\n";
    FILE *fp = fopen(sc, "w");
    fputs(scen, fp);
    fclose(fp);
    fp = fopen(tr, "w");
    fputs(csv, fp);
    fclose(fp);
    const char *a1[] = { "gpusim", "run", "in.json", "--out", "in.json", NULL };
    refused(a1, "in.json: is an input of this run");
    const char *a2[] = { "gpusim", "run", "in.json", "-o", "./tr.csv", NULL };
    refused(a2, "tr.csv: is an input of this run");
    const char *a3[] = { "gpusim", "compare", "in.json", "--policies", "fifo",
                         "--seeds", "1", "--no-plots", "--out", "in.json",
                         NULL };
    refused(a3, "is an input of this run");
    char buf[512] = "";
    fp = fopen(sc, "r");
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    CU_ASSERT_STRING_EQUAL(buf, scen);
    fp = fopen(tr, "r");
    n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    CU_ASSERT_STRING_EQUAL(buf, csv);
    free(sc);
    free(tr);
}

/* A misspelled trace column is an error naming it, with "did you mean"
 * (it would drop what the column holds: every pod's CPU demand). */
static void test_columns(void)
{
    char *p = NULL;
    CU_ASSERT_FATAL(asprintf(&p, "%s/ax.csv", dir) > 0);
    FILE *fp = fopen(p, "w");
    fputs("name,cpu_milliX,memory_mib,num_gpu,gpu_milli\np1,1000,100,1,1000\n",
          fp);
    fclose(fp);
    free(p);
    const char *a[] = { "gpusim", "trace", "stats", "ax.csv", "--format",
                        "alibaba-gpu-2023", NULL };
    refused(a, "ax.csv:1: unknown column 'cpu_milliX' in the header (did you "
               "mean 'cpu_milli'?)");
    CU_ASSERT_FATAL(asprintf(&p, "%s/nx.csv", dir) > 0);
    fp = fopen(p, "w");
    fputs("id,arrival,duraton,gpus\n1,0,3600,1\n", fp);
    fclose(fp);
    free(p);
    const char *b[] = { "gpusim", "trace", "stats", "nx.csv", "--format",
                        "native", NULL };
    refused(b, "unknown column 'duraton' in the header (did you mean "
               "'duration'?)");
}

/* An empty trace is refused alike in every format: no data rows at all
 * (a header alone, comments alone, nothing). */
static void test_empty_traces(void)
{
    static const struct { const char *name, *text, *fmt, *opt; } e[] = {
        { "e0.csv", "", "native", NULL },
        { "e1.csv", "id,arrival,gpus,duration\n", "native", NULL },
        { "e2.swf", "", "swf", "procs_per_gpu=1" },
        { "e3.swf", "; a comment, no job\n", "swf", "procs_per_gpu=1" },
        { "e4.csv", "name,num_gpu,gpu_milli\n", "alibaba-gpu-2023", NULL },
    };
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        char *p = NULL;
        CU_ASSERT_FATAL(asprintf(&p, "%s/%s", dir, e[i].name) > 0);
        FILE *fp = fopen(p, "w");
        fputs(e[i].text, fp);
        fclose(fp);
        free(p);
        const char *a[] = { "gpusim", "trace", "stats", e[i].name, "--format",
                            e[i].fmt, e[i].opt ? "--opt" : NULL, e[i].opt,
                            NULL };
        refused(a, ":1: empty trace: no ");
    }
}

/* dir/NAME: the fixture FROM (tests/fixtures/...) with its first OLD on
 * line `line` replaced by NEW. */
static int edited(const char *name, const char *from, int line,
                  const char *old, const char *new)
{
    FILE *in = fopen(from, "r");
    char *p = NULL;
    if (in == NULL || asprintf(&p, "%s/%s", dir, name) < 0)
        return -1;
    FILE *out = fopen(p, "w");
    free(p);
    char buf[8192];
    for (int n = 1; out && fgets(buf, sizeof buf, in); n++) {
        char *at = n == line ? strstr(buf, old) : NULL;
        if (at)
            fprintf(out, "%.*s%s%s", (int)(at - buf), buf, new,
                    at + strlen(old));
        else
            fputs(buf, out);
    }
    fclose(in);
    return out ? fclose(out) : -1;
}

/* How many times s holds w. */
static int count(const char *s, const char *w)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, w)) != NULL; p += strlen(w))
        n++;
    return n;
}

/* Run argv in dir: exit 0 with exactly one warning, holding want, and
 * output that is UTF-8 (holding U+FFFD where the bad byte was when the
 * name is printed: shown). */
static void said_once(const char *const *argv, const char *want, int shown)
{
    int rc = gs_hostile_run(dir, argv);
    char *msg = gs_hostile_take_log(dir);
    int n = count(msg, "gpusim: warning:");
    if (rc != 0 || n != 1 || strstr(msg, want) == NULL)
        printf("\n    %s %s: rc=%d, %d warnings: %s", argv[1], argv[2], rc, n,
               msg);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    CU_ASSERT_EQUAL(gs_utf8_bad(msg, strlen(msg)), SIZE_MAX);
    if (shown)
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "caf\xEF\xBF\xBD"));
    free(msg);
}

/* Names read from traces and node lists that are not UTF-8: each stray
 * byte is read as U+FFFD and said once per file -- once for compare's
 * four runs in two workers too -- naming the file, line and column (or
 * field); the output (--json included) is UTF-8.  JSON inputs (k8s) are
 * refused at the byte's line and column. */
static void test_not_utf8(void)
{
    char *p = NULL;
    CU_ASSERT_FATAL(asprintf(&p, "%s/u.csv", dir) > 0);
    FILE *fp = fopen(p, "w");
    fputs("id,arrival,gpus,duration,tenant\n1,0,1,60,caf\xE9\n"
          "2,10,1,60,b\xFFx\n", fp);
    fclose(fp);
    free(p);
    CU_ASSERT_FATAL(asprintf(&p, "%s/u.json", dir) > 0);
    fp = fopen(p, "w");
    fputs("{\"name\": \"u\", \"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1,"
          " \"gpus_per_node\": 1}], \"policy\": \"fifo\", \"workload\":"
          " {\"trace\": {\"format\": \"native\", \"path\": \"u.csv\"}}}\n", fp);
    fclose(fp);
    free(p);
    const char *a[] = { "gpusim", "run", "u.json", "--no-out", "--json", NULL };
    said_once(a, "u.csv:2: field 'tenant': not UTF-8 (byte 0xE9); such bytes "
                 "are read as U+FFFD", 1);
    const char *b[] = { "gpusim", "compare", "u.json", "--policies",
                        "fifo,fair", "--seeds", "2", "--jobs", "2",
                        "--no-plots", "--csv", "--out", "uc.h5", NULL };
    int rc = gs_hostile_run(dir, b);
    char *msg = gs_hostile_take_log(dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(count(msg, "gpusim: warning:"), 1);
    free(msg);
    static const char fx[] = "tests/fixtures";  /* make test runs in the tree */
    char *f = NULL;
    CU_ASSERT_FATAL(asprintf(&f, "%s/traces/ali_ok.csv", fx) > 0);
    CU_ASSERT_EQUAL_FATAL(edited("ua.csv", f, 2, "pod-0007", "pod-\xE9"), 0);
    free(f);
    const char *c[] = { "gpusim", "trace", "stats", "ua.csv", "--format",
                        "alibaba-gpu-2023", NULL };
    said_once(c, "ua.csv:2:11: not UTF-8 (byte 0xE9)", 0);
    CU_ASSERT_FATAL(asprintf(&f, "%s/traces/nodes_ok.csv", fx) > 0);
    CU_ASSERT_EQUAL_FATAL(edited("un.csv", f, 2, "n0", "n\xE9" "0"), 0);
    free(f);
    const char *e[] = { "gpusim", "trace", "stats", "un.csv", "--format",
                        "alibaba-gpu-2023", NULL };
    said_once(e, "un.csv:2:2: not UTF-8 (byte 0xE9)", 0);
    CU_ASSERT_FATAL(asprintf(&f, "%s/import/scontrol-nodes.txt", fx) > 0);
    CU_ASSERT_EQUAL_FATAL(edited("us.txt", f, 1, "gpu01", "gpu\xE9" "01"), 0);
    free(f);
    const char *g[] = { "gpusim", "trace", "stats", "us.txt", "--format",
                        "slurm-nodes", NULL };
    said_once(g, "us.txt:1:13: not UTF-8 (byte 0xE9)", 0);
    CU_ASSERT_FATAL(asprintf(&f, "%s/import/k8s-nodes.json", fx) > 0);
    CU_ASSERT_EQUAL_FATAL(edited("uk.json", f, 5, "\"", "\"\xE9"), 0);
    free(f);
    const char *h[] = { "gpusim", "trace", "stats", "uk.json", "--format",
                        "k8s-nodes", NULL };
    refused(h, "uk.json:5:");
}

/* Tenant names longer than a tenant name's 47 bytes (a Slurm account, a
 * Kubernetes namespace can be 63): two that share their first 47 bytes
 * were cut to one tenant; now each keeps its start and a hash of the
 * whole, two tenants, said once. */
static void test_long_tenants(void)
{
    char l[64], a[80], b[80];
    memset(l, 't', 60);
    l[60] = '\0';
    snprintf(a, sizeof a, "%sa", l);
    snprintf(b, sizeof b, "%sb", l);
    CU_ASSERT_EQUAL_FATAL(edited("sl0.txt", "tests/fixtures/import/sacct.txt",
                                 2, "ml-team", a), 0);
    char *p = NULL, *mid = NULL;
    CU_ASSERT_FATAL(asprintf(&p, "%s/sl0.txt", dir) > 0);
    CU_ASSERT_FATAL(asprintf(&mid, "|%s|", b) > 0);
    CU_ASSERT_EQUAL_FATAL(edited("sl.txt", p, 6, "|vision|", mid), 0);
    free(p);
    free(mid);
    const char *c[] = { "gpusim", "trace", "stats", "sl.txt", "--format",
                        "slurm-sacct", NULL };
    int rc = gs_hostile_run(dir, c);
    char *msg = gs_hostile_take_log(dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(count(msg, "gpusim: warning:"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "sl.txt:2: a tenant name of 61 bytes "
                                  "is longer than 47: kept as 'tttttttttttt"
                                  "tttttttttttttttttttttttttt~"));
    /* two tenants, both shown with their hashes */
    CU_ASSERT_EQUAL(count(msg, "tttttttttttttttttttttttttttttttttttttt~"), 3);
    free(msg);
}

static void test_cleanup(void)
{
    gs_hostile_rmdir(dir);
}

static CU_TestInfo tests[] = {
    { "devices, FIFOs and folders refused by kind", test_not_files },
    { "a scenario over GS_SCENARIO_MAX refused by its size", test_too_big },
    { "numbers decimal, token counts counts", test_numbers },
    { "--out naming an input refused", test_out_is_input },
    { "misspelled trace columns: did you mean", test_columns },
    { "empty traces refused alike in every format", test_empty_traces },
    { "names not UTF-8 in traces and node lists: U+FFFD, said once",
      test_not_utf8 },
    { "long tenant names stay apart, said once", test_long_tenants },
    { "(cleanup)", test_cleanup },
    CU_TEST_INFO_NULL,
};

int main(void)
{
    if ((dir = gs_hostile_dir()) == NULL)
        return 2;
    return gs_test_run("bounds", tests);
}
