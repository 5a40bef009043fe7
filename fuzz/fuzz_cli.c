/* fuzz_cli.c -- the whole command line: every command's option parsing,
 * conflicts, usage messages and, when the arguments make sense, the
 * command itself (run, compare with its plots, sweep, plan, train, trace,
 * place-exp), through the same dispatcher as gpusim's main (cli.c is
 * included whole, its main renamed).
 *
 * The input is the argument list, one argument a line.  It runs in a
 * scratch folder of its own under /tmp, emptied every 64 inputs, holding a
 * tiny scenario t.json (20 jobs on 2 GPUs, a plan over 1..2 nodes) and a
 * tiny trace t.csv; '/' in an argument becomes '_', so every path an input
 * names is inside that folder, and standard input is /dev/null.  Inputs
 * that could name a plug-in library (--policy-lib and its abbreviations,
 * "lib", ".so") are skipped: loading
 * one runs its code, which is the plug-ins' own concern (docs/
 * reliability.md); so are those naming the built-in quickstart, whose
 * 144 GPUs and day of jobs take a minute under the sanitizers on a loaded
 * machine (libFuzzer would call that a hang), and those naming
 * --task-timeout: on run and place-exp it ends the process when it passes
 * (cleanup.h's deadline), which is its purpose, and here would end the
 * fuzzer (test_workers covers it).  So are inputs holding a
 * number above FZ_MAX_COUNT with fewer than 13 digits: such a number can
 * be a count of seeds, workers, jobs or requests ("--seeds 5000",
 * "trace gen --jobs 900000", "--set workload.generate.jobs=99999"), a
 * command that is legitimately slow in proportion (at 0.15-3 s a run under
 * the sanitizers, 5,000 seeds are hours), not a hang; a number of 13 digits
 * or more is past every count's range and is refused at once, so those
 * stay in, with the overflow paths of the number parsers.  A command's
 * exit status is not checked; what fails the target is a crash, a
 * sanitizer report, a leak or a hang. */
#include "fuzz.h"

int gs_cli_fuzz_unused_main(int argc, char **argv);
#define main gs_cli_fuzz_unused_main
#include "../sim/cli/cli.c"
#undef main

#include <dirent.h>
#include <fcntl.h>

#define FZ_MAX_ARGS 24
#define FZ_MAX_COUNT 64

/* Whether text holds a number that could make a command slow in
 * proportion (above FZ_MAX_COUNT, with fewer than 13 digits). */
static int fz_big_count(const char *text)
{
    for (const char *p = text; *p;) {
        if (*p < '0' || *p > '9') {
            p++;
            continue;
        }
        const char *q = p;
        while (*q == '0')
            q++;
        const char *e = q;
        while (*e >= '0' && *e <= '9')
            e++;
        if (e - q > 2 && e - q < 13)
            return 1;
        if (e - q == 2 && atoi(q) > FZ_MAX_COUNT)
            return 1;
        p = e;
    }
    return 0;
}

static char fz_dir[64];
static int fz_home = -1;        /* the folder libFuzzer was started in */

static void fz_write(const char *name, const char *text)
{
    FILE *fp = fopen(name, "w");
    if (fp == NULL)
        abort();
    fputs(text, fp);
    fclose(fp);
}

/* Empty the scratch folder (one level of subfolders) and put the tiny
 * inputs back. */
static void fz_reset(void)
{
    DIR *dp = opendir(".");
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (unlink(e->d_name) != 0) {
            DIR *sp = opendir(e->d_name);
            struct dirent *f;
            while (sp && (f = readdir(sp)) != NULL)
                unlinkat(dirfd(sp), f->d_name, 0);
            if (sp)
                closedir(sp);
            rmdir(e->d_name);
        }
    }
    if (dp)
        closedir(dp);
    fz_write("t.json",
             "{\"name\": \"t\", \"seed\": 1,\n"
             " \"fleet\": [{\"name\": \"gpu\", \"gpu\": \"A100-80GB\", "
             "\"nodes\": 2, \"gpus_per_node\": 1, \"price_per_gpu_hour\": 2}],\n"
             " \"policy\": \"fifo\",\n"
             " \"workload\": {\"generate\": {\"jobs\": 20, \"rate_per_hour\": 2,"
             " \"reference_gpu\": \"A100-80GB\", \"classes\": [{\"name\": \"j\","
             " \"tier\": \"training\", \"weight\": 1, \"tenants\": 2, "
             "\"gpus\": 1, \"duration\": {\"dist\": \"exponential\", "
             "\"mean\": \"1h\"}}]}},\n"
             " \"plan\": {\"targets\": {\"wait_mean\": \"30m\"}, \"search\": "
             "{\"pools\": [{\"pool\": \"gpu\", \"nodes\": [1, 2]}]}, "
             "\"seeds\": 2, \"min_seeds\": 2}}\n");
    fz_write("t.csv", "job_id,submit_time,duration,num_gpu,tenant\n"
                      "1,0,3600,1,a\n2,60,1800,2,b\n3,120,600,1,a\n");
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(fz_dir, sizeof fz_dir, "/tmp/gs-fuzz-cli-XXXXXX");
    fz_home = open(".", O_RDONLY | O_DIRECTORY);
    if (fz_home < 0 || mkdtemp(fz_dir) == NULL || chdir(fz_dir) != 0)
        abort();
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0)
        abort();
    gs_cleanup_install();
    setenv("GPUSIM_PLOTS", FZ_FIXTURES "/../../plots", 1);
    unsetenv("GS_PLUGIN_DIR");
    fz_reset();
    if (fchdir(fz_home) != 0)   /* libFuzzer's corpus paths are relative */
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static long calls;
    if (size > 4096)
        return 0;
    char *text = fz_text(data, size);
    char *argv[FZ_MAX_ARGS + 2] = { (char *)"gpusim" };
    int argc = 1;
    for (char *p = text; p && argc <= FZ_MAX_ARGS;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        argv[argc++] = p;
        p = nl ? nl + 1 : NULL;
    }
    argv[argc] = NULL;
    for (size_t i = 0; i < size; i++)
        if (text[i] == '/')
            text[i] = '_';
    for (int i = 1; i < argc; i++)
        if (fz_big_count(argv[i])) {
            free(text);
            return 0;
        }
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--policy-", 9) == 0 || strstr(argv[i], "lib") ||
            strstr(argv[i], "plugin") || strstr(argv[i], ".so") ||
            strstr(argv[i], "quickstart") || strstr(argv[i], "task-timeout")) {
            free(text);
            return 0;
        }
    if (chdir(fz_dir) != 0)
        abort();
    if (++calls % 64 == 0)
        fz_reset();
    fflush(stdout);
    dispatch(argc, argv);
    fflush(stdout);
    if (fchdir(fz_home) != 0)
        abort();
    free(text);
    return 0;
}
