/* test_longpaths.c -- every output at PATH_MAX and NAME_MAX: the result
 * files of run (with --csv on standard output), compare, sweep, plan,
 * place-exp and train, gpusim report's page, the files of trace convert,
 * gen and fit, and replay-check's --jobs table, named in folders whose
 * paths reach PATH_MAX, and named by default after a scenario (or
 * result) file whose name is NAME_MAX long; and the figures of both
 * notebooks, run.ipynb and compare.ipynb (GPUSIM_NB_OUT), in such
 * folders.  Each write either lands exactly at its target or is refused
 * (gpusim: exit 2 naming the option and the limit, before anything is
 * simulated; a notebook: an error naming the file), and nothing appears
 * anywhere else in the tree: no shortened name, no stray temporary.
 * (--out for run and --plots have their own tests: test_outfile,
 * test_hostile.) */
#include "cutest.h"
#include "hostile.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *dir;

static int write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (fp == NULL)
        return -1;
    fputs(text, fp);
    return fclose(fp);
}

/* A tiny scenario: 20 jobs on 2 GPUs, a plan over 1..2 nodes. */
static const char tiny[] =
    "{\"name\": \"t\", \"seed\": 1, \"fleet\": [{\"name\": \"gpu\", \"gpu\":"
    " \"A100-80GB\", \"nodes\": 2, \"gpus_per_node\": 1, "
    "\"price_per_gpu_hour\": 2}], \"policy\": \"fifo\", \"workload\":"
    " {\"generate\": {\"jobs\": 20, \"rate_per_hour\": 2, \"reference_gpu\":"
    " \"A100-80GB\", \"classes\": [{\"name\": \"j\", \"tier\": \"training\","
    " \"weight\": 1, \"tenants\": 2, \"gpus\": 1, \"duration\": {\"dist\":"
    " \"exponential\", \"mean\": \"1h\"}}]}},"
    " \"plan\": {\"targets\": {\"wait_mean\": \"30m\"}, \"search\":"
    " {\"pools\": [{\"pool\": \"gpu\", \"nodes\": [1, 2]}]}, \"seeds\": 2,"
    " \"min_seeds\": 2}}\n";

/* The commands that write one file, argv after "gpusim" up to the option
 * that names it (--out; replay-check's --jobs); their inputs are made by
 * main and test_out_path_max (t.json, r.h5, tr.csv, sa.txt, rc.json). */
static const char *const cmds[][13] = {
    { "run", "t.json", "--csv", "--out", NULL },
    { "compare", "t.json", "--policies", "fifo", "--seeds", "2", "--jobs",
      "1", "--no-plots", "--quiet", "--out", NULL },
    { "sweep", "t.json", "--set", "seed=1,2", "--seeds", "2", "--jobs", "1",
      "--quiet", "--out", NULL },
    { "plan", "t.json", "--jobs", "1", "--no-advice", "--quiet", "--plots",
      "plan-plots", "--out", NULL },
    { "place-exp", "t.json", "--placers", "best-fit", "--seeds", "1",
      "--quiet", "--out", NULL },
    { "train", "t.json", "--iters", "1", "--pop", "2", "--elite", "1",
      "--jobs", "1", "--quiet", "--out", NULL },
    { "report", "r.h5", "--out", NULL },
    { "trace", "convert", "tr.csv", "--out", NULL },
    { "trace", "gen", "t.json", "--out", NULL },
    { "trace", "fit", "tr.csv", "--out", NULL },
    { "replay-check", "rc.json", "--jobs", NULL },
};
#define NCMDS ((int)(sizeof cmds / sizeof cmds[0]))

/* Run the command cmd (a row of cmds) with target (in dir); the outcome,
 * checked: exit 0 with the file exactly at target and one file more in
 * the tree under top, or exit 2 with a message naming the option and the
 * limit and nothing new anywhere.  Returns the exit status. */
static int out_at(const char *const *cmd, const char *target,
                  const char *top)
{
    const char *a[24] = { "gpusim" };
    int n = 1;
    for (int i = 0; cmd[i]; i++)
        a[n++] = cmd[i];
    const char *opt = a[n - 1];
    a[n++] = target;
    a[n] = NULL;
    int before = gs_hostile_files(top);
    int rc = gs_hostile_run(dir, a);
    char *msg = gs_hostile_take_log(dir);
    struct stat st;
    if (rc == 0) {
        CU_ASSERT(stat(target, &st) == 0 && S_ISREG(st.st_mode) &&
                  st.st_size > 0);
        CU_ASSERT_EQUAL(gs_hostile_files(top), before + 1);
        if (cmd == cmds[0])     /* --csv on standard output */
            CU_ASSERT_PTR_NOT_NULL(strstr(msg, "scope,metric,value\n"));
    } else {
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, opt));
        CU_ASSERT(strstr(msg, "PATH_MAX") != NULL ||
                  strstr(msg, "NAME_MAX") != NULL);
        CU_ASSERT_EQUAL(gs_hostile_files(top), before);
    }
    if (rc != 0 && rc != 2)
        printf("\n    %s: rc=%d: %s", cmd[0], rc, msg);
    free(msg);
    return rc;
}

/* --out in a folder at three depths: the name fits with room (written
 * there), the path is PATH_MAX - 1 long (either, as the temporary beside
 * it allows), the path passes PATH_MAX (refused); for each command of
 * cmds and gpusim report's page. */
static void test_out_path_max(void)
{
    const char *mk[] = { "gpusim", "run", "t.json", "--out", "r.h5", "-q",
                         NULL };
    const char *mt[] = { "gpusim", "trace", "gen", "t.json", "--out",
                         "tr.csv", NULL };
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, mk), 0);
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, mt), 0);
    free(gs_hostile_take_log(dir));
    for (int c = 0; c < NCMDS; c++) {
        const char *const *cmd = cmds[c];
        static const int room[3] = { 64, 1, -1 };
        for (int k = 0; k < 3; k++) {
            size_t len = (size_t)(PATH_MAX - room[k]);  /* the target's */
            char *deep = gs_hostile_deep(dir, 10 * c + k, len - 3);
            CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
            char *target = NULL, *top = NULL;
            CU_ASSERT_FATAL(asprintf(&target, "%s/oo", deep) > 0);
            CU_ASSERT_FATAL(asprintf(&top, "%s/deep%d", dir, 10 * c + k) > 0);
            CU_ASSERT_EQUAL(strlen(target), len);
            int rc = out_at(cmd, target, top);
            if (k == 0)
                CU_ASSERT_EQUAL(rc, 0);
            if (k == 2)
                CU_ASSERT_EQUAL(rc, 2);
            gs_hostile_rmdir(top);
            free(target);
            free(top);
            free(deep);
        }
    }
}

/* Default names, after a scenario file whose name is NAME_MAX long: run's
 * NAME.h5 is shorter and is written; sweep's, plan's and place-exp's add
 * more than ".json" takes away, so they are refused before running,
 * naming NAME_MAX, and nothing is written. */
static void test_default_name_max(void)
{
    char name[NAME_MAX + 1], *path = NULL;
    memset(name, 'n', NAME_MAX - 5);
    memcpy(name + NAME_MAX - 5, ".json", 6);
    CU_ASSERT_FATAL(asprintf(&path, "%s/%s", dir, name) > 0);
    CU_ASSERT_EQUAL_FATAL(write_file(path, tiny), 0);
    int before = gs_hostile_entries(dir);
    const char *a[] = { "gpusim", "run", name, "--csv", NULL };
    CU_ASSERT_EQUAL(gs_hostile_run(dir, a), 0);
    free(gs_hostile_take_log(dir));
    char h5[NAME_MAX + 1];
    memcpy(h5, name, NAME_MAX - 5);
    memcpy(h5 + NAME_MAX - 5, ".h5", 4);
    CU_ASSERT(gs_hostile_made(dir, h5));
    CU_ASSERT_EQUAL(gs_hostile_entries(dir), before + 1);
    static const char *const verbs[] = { "sweep", "plan", "place-exp",
                                         "compare" };
    for (int i = 0; i < 4; i++) {
        const char *b[] = { "gpusim", verbs[i], name, "--quiet", NULL };
        int rc = gs_hostile_run(dir, b);
        char *msg = gs_hostile_take_log(dir);
        if (rc != 2 || strstr(msg, "NAME_MAX") == NULL)
            printf("\n    %s: rc=%d: %s", verbs[i], rc, msg);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "NAME_MAX"));
        CU_ASSERT_EQUAL(gs_hostile_entries(dir), before + 1);
        free(msg);
    }
    /* gpusim report of NAME.h5 (NAME_MAX long): its default page NAME.html
     * is two characters longer, refused; NAME.html one shorter is made */
    char *h5p = NULL;
    CU_ASSERT_FATAL(asprintf(&h5p, "%s/%s", dir, h5) > 0);
    for (int fits = 0; fits <= 1; fits++) {
        char rn[NAME_MAX + 1];
        size_t stem = fits ? NAME_MAX - 5 : NAME_MAX - 3;
        memset(rn, 'r', stem);
        memcpy(rn + stem, ".h5", 4);
        char *rp = NULL;
        CU_ASSERT_FATAL(asprintf(&rp, "%s/%s", dir, rn) > 0);
        CU_ASSERT_EQUAL_FATAL(rename(h5p, rp), 0);
        before = gs_hostile_entries(dir);
        const char *b[] = { "gpusim", "report", rn, NULL };
        int rc = gs_hostile_run(dir, b);
        char *msg = gs_hostile_take_log(dir);
        char page[NAME_MAX + 3];
        memcpy(page, rn, stem);
        memcpy(page + stem, ".html", 6);
        if (rc != (fits ? 0 : 2))
            printf("\n    report: rc=%d: %s", rc, msg);
        CU_ASSERT_EQUAL(rc, fits ? 0 : 2);
        if (fits) {
            CU_ASSERT(gs_hostile_made(dir, page));
            CU_ASSERT_EQUAL(gs_hostile_entries(dir), before + 1);
            char *pp = NULL;
            CU_ASSERT_FATAL(asprintf(&pp, "%s/%s", dir, page) > 0);
            unlink(pp);
            free(pp);
        } else {
            CU_ASSERT_PTR_NOT_NULL(strstr(msg, "NAME_MAX"));
            CU_ASSERT_EQUAL(gs_hostile_entries(dir), before);
        }
        CU_ASSERT_EQUAL_FATAL(rename(rp, h5p), 0);
        free(rp);
        free(msg);
    }
    free(h5p);
    free(path);
}

/* Whether Python has what the notebooks need. */
static int have_python(void)
{
    return system("/usr/bin/python3 -c 'import h5py, pandas, matplotlib' "
                  ">/dev/null 2>&1") == 0;
}

/* The code cells of plots/NB (run.ipynb, compare.ipynb) on dir/H5 with
 * GPUSIM_NB_OUT out: its exit status, its output into *msg. */
static int notebook(const char *name, const char *h5, const char *out,
                    char **msg)
{
    char *nb = NULL, *plots = realpath("plots", NULL), *cmd = NULL;
    if (asprintf(&nb, "plots/%s", name) > 0) {
        char *abs = realpath(nb, NULL);
        free(nb);
        nb = abs;
    }
    if (nb == NULL || plots == NULL ||
        asprintf(&cmd, "cd '%s' && GPUSIM_H5=%s GPUSIM_NB_OUT='%s' "
                 "GPUSIM_PLOTS='%s' MPLBACKEND=Agg /usr/bin/python3 -c "
                 "'import json; nb = json.load(open(\"%s\")); display = "
                 "print; exec(\"\\n\".join(\"\".join(c[\"source\"]) for c in "
                 "nb[\"cells\"] if c[\"cell_type\"] == \"code\"))' 2>&1",
                 dir, h5, out, plots, nb) < 0) {
        free(nb);
        free(plots);
        return -1;
    }
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    FILE *mf = open_memstream(msg, &n);
    int ch;
    while (p && (ch = fgetc(p)) != EOF)
        fputc(ch, mf);
    fclose(mf);
    int st = p ? pclose(p) : -1;
    free(cmd);
    free(nb);
    free(plots);
    return st;
}

/* A notebook's figures in a folder where its longest name (figs[0])
 * just fits: all of figs there, nothing elsewhere; in a folder where none
 * fits: an error naming figs[0] (File name too long), the first it
 * writes, and nothing anywhere.  h5 is made first by argv mk. */
static void nb_path_max(const char *name, const char *const *mk,
                        const char *h5, const char *const *figs, int id)
{
    if (!have_python()) {
        printf("[skipped: python3 without h5py, pandas or matplotlib] ");
        return;
    }
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, mk), 0);
    free(gs_hostile_take_log(dir));
    size_t longest = strlen(figs[0]);
    for (int fits = 1; fits >= 0; fits--) {
        /* the folder, "/" and the name: PATH_MAX - 2 (one to spare), or
         * past PATH_MAX - 1 by 8 bytes for the shortest name */
        size_t len = fits ? PATH_MAX - 2 - 1 - longest : PATH_MAX - 1 - 10;
        char *deep = gs_hostile_deep(dir, id + fits, len), *top = NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
        CU_ASSERT_FATAL(asprintf(&top, "%s/deep%d", dir, id + fits) > 0);
        int before = gs_hostile_entries(dir);
        char *msg = NULL;
        int st = notebook(name, h5, deep, &msg);
        if (fits) {
            if (st != 0)
                printf("\n    %s: %s", name, msg);
            CU_ASSERT_EQUAL(st, 0);
            for (int i = 0; figs[i]; i++)
                CU_ASSERT(gs_hostile_made(deep, figs[i]));
            CU_ASSERT_EQUAL(gs_hostile_files(top), gs_hostile_entries(deep));
        } else {
            CU_ASSERT_NOT_EQUAL(st, 0);
            CU_ASSERT_PTR_NOT_NULL(strstr(msg, "File name too long"));
            CU_ASSERT_PTR_NOT_NULL(strstr(msg, figs[0]));
            CU_ASSERT_EQUAL(gs_hostile_files(top), 0);
        }
        CU_ASSERT_EQUAL(gs_hostile_entries(dir), before);
        gs_hostile_rmdir(top);
        free(msg);
        free(top);
        free(deep);
    }
}

/* plots/run.ipynb on a run's file (t-nb_run_utilization.png, 24
 * characters, the longest of its figures and the first it writes). */
static void test_notebook_path_max(void)
{
    const char *mk[] = { "gpusim", "run", "t.json", "--out", "t.h5", "-q",
                         NULL };
    static const char *const figs[] = { "t-nb_run_utilization.png",
                                        "t-nb_run_wait_cdf.png", NULL };
    nb_path_max("run.ipynb", mk, "t.h5", figs, 90);
}

/* plots/compare.ipynb on a comparison's file: c-nb_utilization.png (20
 * characters, the longest, written first), the wait CDFs and cost
 * against SLA (no latency figure: the scenario has no service). */
static void test_compare_notebook_path_max(void)
{
    const char *mk[] = { "gpusim", "compare", "t.json", "--policies",
                         "fifo,fair", "--seeds", "2", "--jobs", "1",
                         "--no-plots", "--quiet", "--out", "c.h5", NULL };
    static const char *const figs[] = { "c-nb_utilization.png",
                                        "c-nb_wait_cdf.png",
                                        "c-nb_cost_sla.png", NULL };
    nb_path_max("compare.ipynb", mk, "c.h5", figs, 92);
}

/* train's weights file says which scenario it was trained on by the path
 * given, whole: 1,500 characters of "./" before t.json (the metadata held
 * it in 256 bytes and cut it to its first 255). */
static void test_trained_on_whole(void)
{
    size_t reps = 750;
    char *path = malloc(2 * reps + 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(path);
    for (size_t i = 0; i < reps; i++)
        memcpy(path + 2 * i, "./", 2);
    strcpy(path + 2 * reps, "t.json");
    const char *a[] = { "gpusim", "train", path, "--iters", "1", "--pop",
                        "2", "--elite", "1", "--jobs", "1", "--quiet",
                        "--out", "w-long.json", NULL };
    int rc = gs_hostile_run(dir, a);
    char *msg = gs_hostile_take_log(dir);
    if (rc != 0)
        printf("\n    train: rc=%d: %s", rc, msg);
    free(msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *wf = NULL, *want = NULL;
    CU_ASSERT_FATAL(asprintf(&wf, "%s/w-long.json", dir) > 0);
    CU_ASSERT_FATAL(asprintf(&want, "\"trained_on\":\t\"t (%s), ", path) > 0);
    FILE *fp = fopen(wf, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char *text = calloc(1, 1 << 16);
    size_t got = fread(text, 1, (1 << 16) - 1, fp);
    fclose(fp);
    CU_ASSERT(got > 2 * reps);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
    unlink(wf);
    free(text);
    free(want);
    free(wf);
    free(path);
}

/* The value of "key": in the weights file dir/name, or NAN. */
static double weights_num(const char *name, const char *key)
{
    char *wf = NULL, *k = NULL;
    double v = NAN;
    if (asprintf(&wf, "%s/%s", dir, name) < 0 ||
        asprintf(&k, "\"%s\":", key) < 0)
        return v;
    FILE *fp = fopen(wf, "r");
    char *text = calloc(1, 1 << 16);
    if (fp && text) {
        size_t got = fread(text, 1, (1 << 16) - 1, fp);
        text[got] = 0;
        char *at = strstr(text, k);
        if (at)
            v = strtod(at + strlen(k), NULL);
    }
    if (fp)
        fclose(fp);
    free(text);
    free(k);
    free(wf);
    return v;
}

/* train's --objective is read whole: "sla=1,wait=0...01" with 300 zeros
 * weighs the mean wait by 1, as "sla=1,wait=1" does (cut to 255 bytes it
 * read wait=0 and said nothing). */
static void test_objective_whole(void)
{
    char spec[400];
    snprintf(spec, sizeof spec, "sla=1,wait=%0300d1", 0);
    const char *a[] = { "gpusim", "train", "t.json", "--iters", "1", "--pop",
                        "2", "--elite", "1", "--jobs", "1", "--quiet",
                        "--objective", spec, "--out", "w-long-obj.json",
                        NULL };
    const char *b[] = { "gpusim", "train", "t.json", "--iters", "1", "--pop",
                        "2", "--elite", "1", "--jobs", "1", "--quiet",
                        "--objective", "sla=1,wait=1", "--out",
                        "w-short-obj.json", NULL };
    const char *c[] = { "gpusim", "train", "t.json", "--iters", "1", "--pop",
                        "2", "--elite", "1", "--jobs", "1", "--quiet",
                        "--objective", "sla=1,wait=0", "--out",
                        "w-zero-obj.json", NULL };
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, a), 0);
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, b), 0);
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, c), 0);
    free(gs_hostile_take_log(dir));
    double jl = weights_num("w-long-obj.json", "objective_untrained");
    double js = weights_num("w-short-obj.json", "objective_untrained");
    double jz = weights_num("w-zero-obj.json", "objective_untrained");
    CU_ASSERT(isfinite(jl) && isfinite(jz));
    CU_ASSERT_EQUAL(jl, js);
    CU_ASSERT(jz < js);         /* the waits weigh: the test can tell */
}

static void test_cleanup(void)
{
    gs_hostile_rmdir(dir);
}

static CU_TestInfo tests[] = {
    { "--out of run --csv, compare, sweep, plan, place-exp, train, report, "
      "trace convert, gen, fit; replay-check --jobs at PATH_MAX: exactly "
      "there or refused", test_out_path_max },
    { "default names after a NAME_MAX scenario name: written or refused",
      test_default_name_max },
    { "run.ipynb's figures at PATH_MAX (GPUSIM_NB_OUT): there or an error",
      test_notebook_path_max },
    { "compare.ipynb's figures at PATH_MAX (GPUSIM_NB_OUT): there or an "
      "error", test_compare_notebook_path_max },
    { "train's weights name the scenario's path whole",
      test_trained_on_whole },
    { "train's --objective read whole", test_objective_whole },
    { "(cleanup)", test_cleanup },
    CU_TEST_INFO_NULL,
};

/* A two-job Slurm history and a scenario that replays it. */
static const char sacct[] =
    "JobID|Submit|Start|End|Partition|Account|QOS|State|AllocTRES|ReqTRES|"
    "Timelimit|NNodes\n"
    "1|2024-03-31T01:00:00|2024-03-31T01:05:00|2024-03-31T03:05:00|gpu|a|"
    "normal|COMPLETED|gres/gpu=1|gres/gpu=1|04:00:00|1\n"
    "2|2024-03-31T01:10:00|2024-03-31T03:05:00|2024-03-31T04:05:00|gpu|a|"
    "normal|COMPLETED|gres/gpu=1|gres/gpu=1|04:00:00|1\n";
static const char replay[] =
    "{\"name\": \"rc\", \"fleet\": [{\"name\": \"g\", \"gpu\": "
    "\"H100-80GB\", \"nodes\": 1, \"gpus_per_node\": 1}], \"policy\": "
    "\"fifo\", \"workload\": {\"trace\": {\"format\": \"slurm-sacct\", "
    "\"path\": \"sa.txt\", \"tz\": \"UTC\"}}}\n";

int main(void)
{
    static const char *const files[][2] = { { "t.json", tiny },
                                            { "sa.txt", sacct },
                                            { "rc.json", replay } };
    if ((dir = gs_hostile_dir()) == NULL)
        return 2;
    for (int i = 0; i < 3; i++) {
        char *p = NULL;
        if (asprintf(&p, "%s/%s", dir, files[i][0]) < 0 ||
            write_file(p, files[i][1]) != 0)
            return 2;
        free(p);
    }
    return gs_test_run("longpaths", tests);
}
