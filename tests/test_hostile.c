/* test_hostile.c -- no user string becomes code (io/gnuplot.h): compare and
 * plan run on scenario files, scenario names and plot folders named by
 * every name of hostile.h (quotes, backslashes, newlines, a leading '<' or
 * '|', $(...), backquotes, system(...), @ macros); each must exit 0 with
 * its plots drawn and no payload executed. */
#include "cutest.h"
#include "hostile.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *dir;

/* A small scenario (a few hundred generated jobs on 8 GPUs, a plan over
 * 4..8 nodes) in dir/NAME.json, its "name" NAME too. */
static int write_scenario(const char *name)
{
    char *path = NULL, *json = malloc(6 * strlen(name) + 1);
    if (json == NULL || asprintf(&path, "%s/%s.json", dir, name) < 0)
        return -1;
    gs_hostile_json(name, json);
    FILE *fp = fopen(path, "w");
    free(path);
    if (fp == NULL) {
        free(json);
        return -1;
    }
    fprintf(fp, "{\"name\": \"%s\", \"seed\": 1,\n"
            " \"fleet\": [{\"name\": \"gpu\", \"gpu\": \"A100-80GB\", "
            "\"nodes\": 8, \"gpus_per_node\": 1, \"price_per_gpu_hour\": 2}],\n"
            " \"policy\": \"fifo\", \"placement\": \"first-fit\",\n"
            " \"workload\": {\"generate\": {\"jobs\": 300, \"rate_per_hour\": 4,"
            " \"reference_gpu\": \"A100-80GB\", \"classes\": [{\"name\": \"j\","
            " \"tier\": \"training\", \"weight\": 1, \"tenants\": 1, "
            "\"gpus\": 1, \"duration\": {\"dist\": \"exponential\", "
            "\"mean\": \"1h\"}}]}},\n"
            " \"plan\": {\"targets\": {\"wait_mean\": \"10m\"}, \"search\": "
            "{\"pools\": [{\"pool\": \"gpu\", \"nodes\": [4, 8]}]}, "
            "\"seeds\": 2, \"min_seeds\": 2}}\n", json);
    free(json);
    return fclose(fp);
}

/* dir/NAME+suffix holds every file of want (NULL-terminated). */
static int drawn(const char *name, const char *suffix,
                 const char *const *want)
{
    char *sub = NULL;
    if (asprintf(&sub, "%s/%s%s", dir, name, suffix) < 0)
        return 0;
    int ok = 1;
    for (; *want && ok; want++)
        ok = gs_hostile_made(sub, *want);
    free(sub);
    return ok;
}

static void test_compare(void)
{
    static const char *const pngs[] = { "utilization.png", "wait_cdf.png",
                                        "cost_sla.png", NULL };
    for (int i = 0; i < GS_HOSTILE_N; i++) {
        const char *n = gs_hostile_names[i];
        char *file = NULL, *out = NULL;
        CU_ASSERT_EQUAL_FATAL(write_scenario(n), 0);
        CU_ASSERT_FATAL(asprintf(&file, "%s.json", n) > 0);
        CU_ASSERT_FATAL(asprintf(&out, "%s.h5", n) > 0);
        /* the plot folder named after the scenario file */
        const char *a1[] = { "gpusim", "compare", file, "--policies", "fifo",
                             "--seeds", "1", "--jobs", "1", "--quiet", NULL };
        CU_ASSERT_EQUAL(gs_hostile_run(dir, a1), 0);
        CU_ASSERT(drawn(n, "-compare-plots", pngs));
        /* and given as --plots (the same absolute folder reaches gnuplot,
         * so two names suffice here: the pipes) */
        if (n[0] == '<' || n[0] == '|') {
            const char *a2[] = { "gpusim", "compare", file, "--policies",
                                 "fifo", "--seeds", "1", "--jobs", "1",
                                 "--quiet", "--out", out, "--plots", n,
                                 NULL };
            CU_ASSERT_EQUAL(gs_hostile_run(dir, a2), 0);
            CU_ASSERT(drawn(n, "", pngs));
        }
        CU_ASSERT_FALSE(gs_hostile_canary(dir));
        if (gs_hostile_canary(dir))
            fprintf(stderr, "payload of name %d ran\n", i);
        free(file);
        free(out);
    }
}

static void test_plan(void)
{
    static const char *const front[] = { "front.png", "front.dat",
                                         "candidates.dat", "front.gp", NULL };
    for (int i = 0; i < GS_HOSTILE_N; i++) {
        const char *n = gs_hostile_names[i];
        char *file = NULL, *out = NULL, *plots = NULL;
        CU_ASSERT_EQUAL_FATAL(write_scenario(n), 0);
        CU_ASSERT_FATAL(asprintf(&file, "%s.json", n) > 0);
        CU_ASSERT_FATAL(asprintf(&out, "%s.p.h5", n) > 0);
        CU_ASSERT_FATAL(asprintf(&plots, "%s.p", n) > 0);
        const char *a1[] = { "gpusim", "plan", file, "--no-advice", "--jobs",
                             "1", "--quiet", NULL };
        CU_ASSERT_EQUAL(gs_hostile_run(dir, a1), 0);
        CU_ASSERT(drawn(n, "-plan-plots", front));
        const char *a2[] = { "gpusim", "plan", file, "--no-advice", "--jobs",
                             "1", "--quiet", "--out", out, "--plots", plots,
                             NULL };
        CU_ASSERT_EQUAL(gs_hostile_run(dir, a2), 0);
        CU_ASSERT(drawn(n, ".p", front));
        CU_ASSERT_FALSE(gs_hostile_canary(dir));
        free(file);
        free(out);
        free(plots);
    }
}

/* The payloads would have run before io/gnuplot.h (a check that the
 * canary can fire at all): gnuplot given one of these strings as code,
 * the way compare once pasted its folder, runs it. */
static void test_canary_fires(void)
{
    char *code = NULL;
    CU_ASSERT_FATAL(asprintf(&code, "cd '%s'; datadir='%s'", dir,
                             gs_hostile_names[1]) > 0);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 2);
        execlp("gnuplot", "gnuplot", "-e", code, (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    free(code);
    CU_ASSERT(gs_hostile_canary(dir));
    char *c = NULL;
    CU_ASSERT_FATAL(asprintf(&c, "%s/CANARY1", dir) > 0);
    unlink(c);
    free(c);
    CU_ASSERT_FALSE(gs_hostile_canary(dir));
}

static char *make_deep(int k, size_t len)
{
    return gs_hostile_deep(dir, k, len);
}

/* --plots at and past PATH_MAX: compare's and plan's plot files are named
 * in memory, so a folder whose files would pass PATH_MAX gets none of them
 * (the write fails, said on stderr) and nothing lands beside it under a
 * shortened name (path[1400] and path[1200] once cut it onto another
 * file); one where the longest name (wait-fifo-interactive.dat, 25
 * characters) just fits gets all of them. */
static void test_long_plots(void)
{
    CU_ASSERT_EQUAL_FATAL(write_scenario("lp"), 0);
    for (int fits = 0; fits <= 1; fits++) {
        /* the plots folder "pp..." (20 characters) at a length where the
         * longest file name fits exactly, or where none does ("/front.gp"
         * is 9 characters) */
        size_t plen = fits ? PATH_MAX - 1 - 26 : PATH_MAX - 1 - 8;
        char *deep = make_deep(fits, plen - 21), *pl = NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
        CU_ASSERT_FATAL(asprintf(&pl, "%s/pppppppppppppppppppp", deep) > 0);
        CU_ASSERT_EQUAL(strlen(pl), plen);
        const char *a[] = { "gpusim", "compare", "lp.json", "--policies",
                            "fifo", "--seeds", "1", "--jobs", "1", "--quiet",
                            "--out", "lp.h5", "--plots", pl, NULL };
        gs_hostile_run(dir, a);
        const char *b[] = { "gpusim", "plan", "lp.json", "--no-advice",
                            "--jobs", "1", "--quiet", "--out", "lpp.h5",
                            "--plots", pl, NULL };
        gs_hostile_run(dir, b);
        /* only the plots folder itself appeared beside it, and no file
         * anywhere in the tree but in it */
        char *top = NULL;
        CU_ASSERT_FATAL(asprintf(&top, "%s/deep%d", dir, fits) > 0);
        CU_ASSERT_EQUAL(gs_hostile_entries(deep), 1);
        CU_ASSERT_EQUAL(gs_hostile_files(top), gs_hostile_entries(pl));
        free(top);
        static const char *const all[] = { "utilization.png", "wait_cdf.png",
                                           "cost_sla.png", "front.png",
                                           "front.dat", "candidates.dat",
                                           "wait-fifo-interactive.dat", NULL };
        if (fits) {
            CU_ASSERT(drawn("", pl + strlen(dir) + 1, all));
        } else {
            CU_ASSERT_EQUAL(gs_hostile_entries(pl), 0);    /* none fits: none written */
        }
        free(pl);
        free(deep);
    }
}

/* The log gs_hostile_run appends to, emptied; read back by log_text. */
static char *log_path(void)
{
    char *log = NULL;
    if (asprintf(&log, "%s.log", dir) < 0)
        return NULL;
    FILE *fp = fopen(log, "w");
    if (fp)
        fclose(fp);
    return log;
}

static char *log_text(const char *log)
{
    FILE *fp = fopen(log, "r");
    char *t = calloc(1, 1 << 16);
    if (fp && t)
        fread(t, 1, (1 << 16) - 1, fp);
    if (fp)
        fclose(fp);
    return t;
}

static int put(const char *folder, const char *name, const char *text)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", folder, name) < 0)
        return -1;
    FILE *fp = fopen(p, "w");
    free(p);
    if (fp == NULL)
        return -1;
    fputs(text, fp);
    return fclose(fp);
}

/* A scenario dir/NAME.json reading a spot pool's price_file and
 * hazard_file, its workload trace and a service's request trace from
 * folder `in`. */
static int input_scenario(const char *name, const char *in)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s.json", dir, name) < 0)
        return -1;
    FILE *fp = fopen(p, "w");
    free(p);
    if (fp == NULL)
        return -1;
    fprintf(fp, "{\"name\": \"in\", \"horizon\": \"2h\", \"fleet\": [\n"
            " {\"name\": \"h\", \"gpu\": \"H100-80GB\", \"nodes\": 1,"
            " \"gpus_per_node\": 8},\n"
            " {\"name\": \"sp\", \"gpu\": \"A100-80GB\", \"nodes\": 1,"
            " \"market\": \"spot\", \"price_per_hour\": 12, \"spot\":"
            " {\"hazard_file\": \"%s/hazard.csv\", \"price_file\":"
            " \"%s/price.csv\", \"replace_after\": false}}],\n"
            " \"policy\": \"fifo\",\n"
            " \"workload\": {\"trace\": {\"format\": \"native\", \"path\":"
            " \"%s/jobs.csv\"}},\n"
            " \"services\": [{\"name\": \"s\", \"model\": \"llama2-7b\","
            " \"gpu\": \"H100-80GB\", \"replicas\": 1, \"requests\":"
            " {\"trace\": {\"format\": \"requests\", \"path\":"
            " \"%s/req.csv\"}}}]}\n", in, in, in, in);
    return fclose(fp);
}

/* Paths read from a scenario (a pool's price_file and hazard_file, the
 * workload's trace, a service's request trace) are held in memory, not in
 * fixed fields (512 bytes for the first three; the workload's path was cut
 * at 255 bytes and opened another file): at about 3,000 bytes they are
 * read and the run gives what it gives from a short folder; past PATH_MAX
 * the scenario is refused, exit 2, naming the key and the limit. */
static void test_long_inputs(void)
{
    char *deep = make_deep(7, 3000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
    static const char *const files[][2] = {
        { "hazard.csv", "time_s,rate\n0,0\n1000,1000000\n1001,0\n" },
        { "price.csv", "time_s,price\n0,3.6\n1800,7.2\n" },
        { "req.csv", "id,arrival,input_tokens,output_tokens,prefix_blocks\n"
                     "1,100,4000,400,\n2,1000,4000,3000,\n" },
        { "jobs.csv", "id,arrival,gpus,duration\n1,0,4,3600\n2,60,8,600\n" },
    };
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL_FATAL(put(deep, files[i][0], files[i][1]), 0);
        CU_ASSERT_EQUAL_FATAL(put(dir, files[i][0], files[i][1]), 0);
    }
    CU_ASSERT_EQUAL_FATAL(input_scenario("longin", deep), 0);
    CU_ASSERT_EQUAL_FATAL(input_scenario("shortin", dir), 0);
    char *log = log_path(), *got[2];
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    const char *names[2] = { "longin.json", "shortin.json" };
    for (int k = 0; k < 2; k++) {
        const char *a[] = { "gpusim", "run", names[k], "--no-out", "--json",
                            NULL };
        CU_ASSERT_EQUAL(gs_hostile_run(dir, a), 0);
        got[k] = log_text(log);
        fclose(fopen(log, "w"));
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(got[0]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got[1]);
    CU_ASSERT_PTR_NOT_NULL(strstr(got[0], "\"training\": {\"jobs\": 2,"));
    CU_ASSERT_STRING_EQUAL(got[0], got[1]);
    /* past PATH_MAX */
    char *far = NULL;
    CU_ASSERT_FATAL(asprintf(&far, "%s/%s", deep, deep + 1) > 0);
    CU_ASSERT_FATAL(strlen(far) > PATH_MAX);
    CU_ASSERT_EQUAL_FATAL(input_scenario("farin", far), 0);
    const char *a[] = { "gpusim", "run", "farin.json", "--no-out", NULL };
    CU_ASSERT_EQUAL(gs_hostile_run(dir, a), 2);
    char *msg = log_text(log);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "farin.json: $.fleet[1].spot."
                                  "hazard_file: the path is 4096 bytes or "
                                  "longer once resolved (PATH_MAX)"));
    free(msg);
    free(far);
    free(got[0]);
    free(got[1]);
    free(log);
    free(deep);
}

/* text with every from replaced by to (caller frees). */
static char *replaced(const char *text, const char *from, const char *to)
{
    char *out = NULL;
    size_t n = 0, lf = strlen(from);
    FILE *mf = open_memstream(&out, &n);
    if (mf == NULL)
        return NULL;
    for (const char *p = text, *q; *p; p = q + lf) {
        if ((q = strstr(p, from)) == NULL) {
            fputs(p, mf);
            break;
        }
        fwrite(p, 1, (size_t)(q - p), mf);
        fputs(to, mf);
    }
    fclose(mf);
    return out;
}

/* Three bad scenarios -- malformed JSON, an unknown policy, a trace with a
 * bad row -- in folder in, and the jobs.csv traces they read. */
static int bad_scenarios(const char *in)
{
    static const char *const body =
        "{\"name\": \"e\", \"seed\": 1,\n"
        " \"fleet\": [{\"name\": \"gpu\", \"gpu\": \"A100-80GB\", "
        "\"nodes\": 2, \"gpus_per_node\": 1}],\n"
        " \"policy\": \"%s\", \"placement\": \"first-fit\",\n"
        " \"workload\": {\"trace\": {\"format\": \"native\", "
        "\"path\": \"%s\"}}}\n";
    char *pol = NULL, *row = NULL;
    int rc = asprintf(&pol, body, "fiffo", "good.csv") < 0 ||
             asprintf(&row, body, "fifo", "bad.csv") < 0 ||
             put(in, "syntax.json", "{\"name\": \"e\",\n \"seed\": }\n") ||
             put(in, "policy.json", pol) || put(in, "row.json", row) ||
             put(in, "good.csv", "id,arrival,gpus,duration\n1,0,1,60\n") ||
             put(in, "bad.csv", "id,arrival,gpus,duration\n1,0,x,60\n")
             ? -1 : 0;
    free(pol);
    free(row);
    return rc;
}

/* gpusim run in/NAME --no-out: its exit status and messages (*msg). */
static int run_bad(const char *in, const char *name, char **msg)
{
    char *file = NULL;
    if (asprintf(&file, "%s/%s", in, name) < 0)
        return -1;
    const char *a[] = { "gpusim", "run", file, "--no-out", NULL };
    int st = gs_hostile_run(dir, a);
    *msg = gs_hostile_take_log(dir);
    free(file);
    return st;
}

/* An error's place is its scenario's or trace's whole path, however long
 * (struct gs_diag held it in 512 bytes, the messages' own buffers in 600
 * to 900: under a folder 3,900 characters deep the place came out cut to
 * its first 511).  Each bad scenario exits 2 with the message it gives in
 * a short folder, the long folder in the short one's place; a scenario
 * named past PATH_MAX (5,000 characters, it cannot be opened) exits 2
 * naming the whole of it. */
static void test_long_error_paths(void)
{
    char *deep = make_deep(8, 3900), *near = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
    CU_ASSERT_FATAL(asprintf(&near, "%s/near", dir) > 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(near, 0700), 0);
    CU_ASSERT_EQUAL_FATAL(bad_scenarios(deep), 0);
    CU_ASSERT_EQUAL_FATAL(bad_scenarios(near), 0);
    free(gs_hostile_take_log(dir));     /* the tests' before */
    static const char *const names[] = { "syntax.json", "policy.json",
                                         "row.json" };
    static const char *const says[] = { "malformed JSON here",
                                        "unknown policy 'fiffo'",
                                        "bad.csv:2: field 'gpus'" };
    for (int i = 0; i < 3; i++) {
        char *got = NULL, *want = NULL, *head = NULL;
        CU_ASSERT_EQUAL(run_bad(deep, names[i], &got), 2);
        CU_ASSERT_EQUAL(run_bad(near, names[i], &want), 2);
        CU_ASSERT_FATAL(asprintf(&head, "gpusim: %s/", deep) > 0);
        CU_ASSERT_EQUAL(strncmp(got, head, strlen(head)), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(want, says[i]));
        char *back = replaced(got, deep, near);
        CU_ASSERT_PTR_NOT_NULL_FATAL(back);
        CU_ASSERT_STRING_EQUAL(back, want);
        free(back);
        free(head);
        free(got);
        free(want);
    }
    char *far = NULL, *got = NULL, *want = NULL;
    CU_ASSERT_FATAL(asprintf(&far, "%s/%.1099s", deep, deep + 1) > 0);
    CU_ASSERT_EQUAL_FATAL(strlen(far), 5000);
    CU_ASSERT_EQUAL(run_bad(far, "syntax.json", &got), 2);
    CU_ASSERT_FATAL(asprintf(&want, "gpusim: %s/syntax.json: cannot open",
                             far) > 0);
    CU_ASSERT_EQUAL(strncmp(got, want, strlen(want)), 0);
    free(far);
    free(got);
    free(want);
    free(near);
    free(deep);
}

static void test_cleanup(void)
{
    gs_hostile_rmdir(dir);
    char *log = NULL;
    if (asprintf(&log, "%s.log", dir) >= 0)
        unlink(log);
    free(log);
}

static void setup(void)
{
    dir = gs_hostile_dir();
    if (dir == NULL)
        abort();
}

static CU_TestInfo tests[] = {
    { "a hostile name given to gnuplot as code runs (the canary works)",
      test_canary_fires },
    { "compare: hostile file, scenario and --plots names run nothing",
      test_compare },
    { "plan: hostile file, scenario and --plots names run nothing",
      test_plan },
    { "--plots at and past PATH_MAX: whole files or none",
      test_long_plots },
    { "price_file, hazard_file, traces: long paths read, past "
      "PATH_MAX refused", test_long_inputs },
    { "an error's place is its scenario's or trace's whole path, however "
      "long", test_long_error_paths },
    { "(cleanup)", test_cleanup },
    CU_TEST_INFO_NULL,
};

int main(void)
{
    setup();
    return gs_test_run("hostile", tests);
}
