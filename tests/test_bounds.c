/* test_bounds.c -- bounded input: every reader refuses what never ends or
 * would not fit before reading or allocating it -- devices, FIFOs and
 * folders where a regular file is needed (a scenario, a trace), a scenario
 * file over GS_SCENARIO_MAX, and (test_jsoncheck) JSON of more than
 * GS_JSON_MAX_VALUES values.  Each must exit 2 at once with a message that
 * names the file and what it is. */
#include "cutest.h"
#include "hostile.h"
#include "../sim/io/scenario.h"

#include <fcntl.h>
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

/* The log of the runs in dir (gs_hostile_run appends to it), as a string
 * (caller frees), and the log emptied. */
static char *take_log(void)
{
    char *log = NULL, *text = NULL;
    if (asprintf(&log, "%s.log", dir) < 0)
        return NULL;
    FILE *fp = fopen(log, "r");
    size_t n = 0;
    if (fp) {
        FILE *mf = open_memstream(&text, &n);
        int ch;
        while ((ch = fgetc(fp)) != EOF)
            fputc(ch, mf);
        fclose(mf);
        fclose(fp);
    }
    unlink(log);
    free(log);
    return text ? text : strdup("");
}

/* Run argv in dir: exit status 2 within 10 s, and the message holds want. */
static void refused(const char *const *argv, const char *want)
{
    double t0 = now();
    int rc = gs_hostile_run(dir, argv);
    double dt = now() - t0;
    char *msg = take_log();
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

static void test_cleanup(void)
{
    gs_hostile_rmdir(dir);
}

static CU_TestInfo tests[] = {
    { "devices, FIFOs and folders refused by kind", test_not_files },
    { "a scenario over GS_SCENARIO_MAX refused by its size", test_too_big },
    { "(cleanup)", test_cleanup },
    CU_TEST_INFO_NULL,
};

int main(void)
{
    if ((dir = gs_hostile_dir()) == NULL)
        return 2;
    return gs_test_run("bounds", tests);
}
