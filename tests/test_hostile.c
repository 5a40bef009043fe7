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

/* Entries directly in folder d. */
static int entries(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (dp)
        closedir(dp);
    return n;
}

/* --plots at and past PATH_MAX: compare's and plan's plot files are named
 * in memory, so a folder whose files would pass PATH_MAX gets none of them
 * (the write fails, said on stderr) and nothing lands beside it under a
 * shortened name (path[1400] and path[1200] once cut it onto another
 * file); one that fits gets all of them. */
/* Regular files anywhere under folder d. */
static int files_under(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *sub = NULL;
        if (e->d_type == DT_DIR && asprintf(&sub, "%s/%s", d, e->d_name) >= 0)
            n += files_under(sub);
        else
            n += e->d_type == DT_REG;
        free(sub);
    }
    if (dp)
        closedir(dp);
    return n;
}

/* A new folder whose path is exactly len characters: dir/deepK/ddd.../d,
 * components at most NAME_MAX long (caller frees). */
static char *make_deep(int k, size_t len)
{
    char *deep = NULL;
    if (asprintf(&deep, "%s/deep%d", dir, k) < 0 || mkdir(deep, 0700) != 0)
        return NULL;
    while (strlen(deep) < len) {
        size_t left = len - strlen(deep) - 1;       /* after the '/' */
        size_t c = left > NAME_MAX ? NAME_MAX : left;
        if (left > NAME_MAX && left - NAME_MAX < 2)
            c = NAME_MAX - 2;       /* leave room for one more "/d" */
        char *next = NULL;
        if (asprintf(&next, "%s/%.*s", deep, (int)c,
                     "dddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
                     "dddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
                     "dddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
                     "dddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
                     "dddddddddddddddddddddddddddddddddddddddddddddddddddddddd")
            < 0 || mkdir(next, 0700) != 0) {
            free(next);
            free(deep);
            return NULL;
        }
        free(deep);
        deep = next;
    }
    return deep;
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
        CU_ASSERT_EQUAL(entries(deep), 1);
        CU_ASSERT_EQUAL(files_under(top), entries(pl));
        free(top);
        static const char *const all[] = { "utilization.png", "wait_cdf.png",
                                           "cost_sla.png", "front.png",
                                           "front.dat", "candidates.dat",
                                           "wait-fifo-interactive.dat", NULL };
        if (fits) {
            CU_ASSERT(drawn("", pl + strlen(dir) + 1, all));
        } else {
            CU_ASSERT_EQUAL(entries(pl), 0);    /* none fits: none written */
        }
        free(pl);
        free(deep);
    }
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
    { "(cleanup)", test_cleanup },
    CU_TEST_INFO_NULL,
};

int main(void)
{
    setup();
    return gs_test_run("hostile", tests);
}
