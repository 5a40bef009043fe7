/* test_allocfail.c -- every allocation failing in turn (Lua's and SQLite's
 * way of testing out-of-memory paths).
 *
 * gpusim-allocfail is gpusim linked with an allocator that fails the Nth
 * allocation (tests/allocfail/inject.c; what it covers and what it cannot
 * is said there).  For a scenario read from a file, with a generated
 * workload, with a trace and with an inference service, it runs `run
 * SCENARIO --out FILE --json` for N = 1, 2, ... up to one past the number
 * of allocations (mappings included) a clean run makes, and checks each
 * run: it exits (no signal, no sanitizer report:
 * ASan and LSan are given exit codes of their own), with 0, 1 or 2; a
 * failed run says what on stderr ("gpusim: ...") and leaves no result file
 * and no temporary; a run that coped with the failure prints exactly the
 * clean run's summary and writes its file.  `make asan` runs the same
 * under AddressSanitizer, which adds the leak check on every path. */
#include "cutest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char bin[2200], dir[64];

/* gpusim-allocfail beside $GPUSIM, as an absolute path. */
static int find_bin(void)
{
    char rel[1100];
    snprintf(rel, sizeof rel, "%.1000s", gs_test_gpusim());
    char *slash = strrchr(rel, '/');
    if (slash)
        slash[1] = '\0';
    else
        rel[0] = '\0';
    const char *pwd = getenv("PWD");
    if (rel[0] == '/')
        snprintf(bin, sizeof bin, "%sgpusim-allocfail", rel);
    else
        snprintf(bin, sizeof bin, "%.1000s/%sgpusim-allocfail",
                 pwd ? pwd : ".", rel);
    return access(bin, X_OK) == 0;
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return calloc(1, 1);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    char *s = calloc(1, (size_t)n + 1);
    if (fread(s, 1, (size_t)n, fp) != (size_t)n)
        s[0] = '\0';
    fclose(fp);
    return s;
}

/* Entries of dir besides the inputs and the captured streams: the result
 * file and any temporary. */
static int leftovers(void)
{
    static const char *const keep[] = { ".", "..", "s.json", "t.csv",
                                        "stdout", "stderr", "count" };
    DIR *dp = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL) {
        int k = 0;
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
            k |= strcmp(e->d_name, keep[i]) == 0;
        n += !k;
    }
    if (dp)
        closedir(dp);
    return n;
}

/* Run with GS_ALLOC_FAIL=n (0: none); the wait status. */
static int run(long n)
{
    char cmd[2600];
    snprintf(cmd, sizeof cmd,
             "cd %s && GS_ALLOC_FAIL=%ld GS_ALLOC_COUNT=count "
             "ASAN_OPTIONS=exitcode=99:detect_leaks=1 LSAN_OPTIONS=exitcode=98 "
             "UBSAN_OPTIONS=halt_on_error=1:exitcode=97 "
             "%s run s.json --out r.h5 --json >stdout 2>stderr", dir, n, bin);
    return system(cmd);
}

static void every_allocation(const char *json, const char *trace)
{
    snprintf(dir, sizeof dir, "/tmp/gs-allocfail-%ld", (long)getpid());
    char path[128];
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/s.json", dir);
    FILE *fp = fopen(path, "w");
    fputs(json, fp);
    fclose(fp);
    if (trace) {
        snprintf(path, sizeof path, "%s/t.csv", dir);
        fp = fopen(path, "w");
        fputs(trace, fp);
        fclose(fp);
    }
    char out[128], err[128], res[128], cnt[128];
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(res, sizeof res, "%s/r.h5", dir);
    snprintf(cnt, sizeof cnt, "%s/count", dir);
    int st = run(0);
    CU_ASSERT_FATAL(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char *clean = slurp(out), *c = slurp(cnt);
    long total = atol(c);
    free(c);
    CU_ASSERT(total > 50);
    CU_ASSERT(strstr(clean, "\"utilization\"") != NULL);
    unlink(res);
    long failed = 0, coped = 0, bad = 0;
    for (long n = 1; n <= total + 1; n++) {
        st = run(n);
        int ok = WIFEXITED(st);
        int rc = ok ? WEXITSTATUS(st) : -1;
        char *e = slurp(err), *o = slurp(out);
        struct stat sb;
        int have = stat(res, &sb) == 0;
        if (rc == 0) {
            coped++;
            ok = have && strcmp(o, clean) == 0 && leftovers() == 1;
        } else {
            failed++;
            ok = ok && (rc == 1 || rc == 2) && strncmp(e, "gpusim: ", 8) == 0
                 && !have && leftovers() == 0 && o[0] == '\0';
        }
        if (!ok && bad++ < 5)
            printf("\n    allocation %ld: status %d, result file %s: %s", n,
                   rc, have ? "left" : "absent", e);
        CU_ASSERT(ok);
        unlink(res);
        free(e);
        free(o);
    }
    /* the last run failed nothing: it is the clean run */
    CU_ASSERT(coped >= 1);
    CU_ASSERT(failed >= total / 2);
    printf("\n    %ld allocations: %ld runs failed cleanly, %ld coped", total,
           failed, coped);
    free(clean);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_generated(void)
{
    if (!find_bin()) {
        CU_FAIL("gpusim-allocfail not built (make test builds it)");
        return;
    }
    every_allocation(
        "{\"name\": \"af\", \"seed\": 5, \"fleet\": [{\"gpu\": \"A100-80GB\","
        " \"nodes\": 2, \"gpus_per_node\": 4}], \"workload\": {\"generate\":"
        " {\"jobs\": 30, \"rate_per_hour\": 20, \"classes\": [{\"gpus\": "
        "{\"values\": [1, 2, 4]}, \"duration\": {\"dist\": \"exponential\", "
        "\"mean\": \"40m\"}}]}}}", NULL);
}

static void test_trace(void)
{
    if (!find_bin()) {
        CU_FAIL("gpusim-allocfail not built (make test builds it)");
        return;
    }
    every_allocation(
        "{\"name\": \"aft\", \"policy\": \"fair\", \"tenants\": [{\"name\": "
        "\"a\", \"quota_gpus\": 4}, {\"name\": \"b\", \"quota_gpus\": 4}], "
        "\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2, "
        "\"gpus_per_node\": 4}], \"workload\": {\"trace\": {\"format\": "
        "\"native\", \"path\": \"t.csv\"}}}",
        "id,arrival,gpus,duration,tenant,tier\n"
        "1,0,4,3600,a,training\n2,10,2,600,b,interactive\n"
        "3,20,8,1800,a,training\n4,30,1,7200,b,inference\n"
        "5,40,0.5,900,a,interactive\n6,50,0,300,b,data\n");
}

/* An inference service whose request stream has no known length, so its
 * records grow while the simulation runs (a failure there once dropped a
 * request silently and the run went on, different), with the engine, the
 * router, the service's samples and its summary allocating on the way. */
static void test_service(void)
{
    if (!find_bin()) {
        CU_FAIL("gpusim-allocfail not built (make test builds it)");
        return;
    }
    every_allocation(
        "{\"name\": \"afs\", \"seed\": 3, \"fleet\": [{\"gpu\": "
        "\"A100-80GB\", \"nodes\": 1, \"gpus_per_node\": 2}], "
        "\"services\": [{\"name\": \"s\", \"model\": \"llama2-13b\", "
        "\"gpu\": \"A100-80GB\", \"requests\": {\"generate\": "
        "{\"rate_per_second\": 0.05, \"until\": \"5m\", \"input_tokens\": "
        "{\"dist\": \"constant\", \"value\": 100}, \"output_tokens\": "
        "{\"dist\": \"constant\", \"value\": 20}}}}]}", NULL);
}

static CU_TestInfo tests[] = {
    { "every allocation fails in turn: generated workload", test_generated },
    { "every allocation fails in turn: trace, fair policy", test_trace },
    { "every allocation fails in turn: an inference service", test_service },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("allocfail", tests)
