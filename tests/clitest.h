/* clitest.h -- run the gpusim binary from a test (test_plan, test_sweep):
 * capture stdout and stderr, compare files byte for byte.  The binary's
 * path comes from $GPUSIM (set by `make test`, else found beside the test
 * program: cutest.h, gs_test_gpusim); commands run in the
 * repository's root (scenarios/ relative), results go to a folder of this
 * process's own under /tmp (gs_cli_tmp). */
#ifndef GS_CLITEST_H
#define GS_CLITEST_H

#include "cutest.h"
#include "../sim/io/h5in.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* This process's own folder for the files tests name /tmp/gs-test-NAME:
 * gs_cli_run and gs_cli_same_file, and tests through gs_cli_tmp, put them
 * in a fresh mkdtemp folder instead, so that runs at the same time (other
 * checkouts, make -j) never share a file.  Removed at exit. */
static char gs_cli_dir[64];

static inline void gs_cli_rmdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", gs_cli_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", gs_cli_dir);
}

/* s with every "/tmp/gs-test-" made "DIR/gs-test-", DIR this process's
 * folder (one of 8 rotating buffers; s may be one of them). */
static inline const char *gs_cli_tmp(const char *s)
{
    static char buf[8][4096];
    static int k;
    if (gs_cli_dir[0] == '\0') {
        snprintf(gs_cli_dir, sizeof gs_cli_dir, "/tmp/gs-t-XXXXXX");
        if (mkdtemp(gs_cli_dir) == NULL)
            abort();
        atexit(gs_cli_rmdir);
    }
    char tmp[4096];
    size_t n = 0;
    const char *pat = "/tmp/gs-test-";
    for (const char *p = s; *p && n + 80 < sizeof tmp;) {
        if (strncmp(p, pat, strlen(pat)) == 0) {
            n += (size_t)snprintf(tmp + n, sizeof tmp - n, "%s/gs-test-",
                                  gs_cli_dir);
            p += strlen(pat);
        } else {
            tmp[n++] = *p++;
        }
    }
    tmp[n] = '\0';
    k = (k + 1) % 8;
    memcpy(buf[k], tmp, n + 1);
    return buf[k];
}

static inline const char *gs_cli_bin(void)
{
    return gs_test_gpusim();
}

static inline char *gs_cli_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Run "[ENV] gpusim ARGS" (prefix = "" or "VAR=x mpirun -np 2 ..."); out
 * and err receive stdout and stderr (malloc'ed; NULL: discarded).  The exit
 * status, or -1. */
static inline int gs_cli_run(const char *prefix, const char *args, char **out,
                             char **err)
{
    char eo[] = "/tmp/gs-clitest-err-XXXXXX", oo[] = "/tmp/gs-clitest-out-XXXXXX";
    int fe = mkstemp(eo), fo = mkstemp(oo);
    if (fe >= 0)
        close(fe);
    if (fo >= 0)
        close(fo);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s %s >%s 2>%s", prefix, gs_cli_bin(),
             gs_cli_tmp(args), oo, eo);
    int st = system(cmd);
    if (out)
        *out = gs_cli_slurp(oo);
    if (err)
        *err = gs_cli_slurp(eo);
    unlink(oo);
    unlink(eo);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* 1 if the two files have the same bytes. */
static inline int gs_cli_same_file(const char *a, const char *b)
{
    FILE *fa = fopen(gs_cli_tmp(a), "rb"), *fb = fopen(gs_cli_tmp(b), "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* The first string of the string dataset path in the result file h5,
 * into buf (n bytes): 0, or -1 when it is missing or longer than buf. */
static inline int gs_cli_h5_str(const char *h5, const char *path, char *buf,
                                size_t n)
{
    struct gs_h5in *r = NULL;
    struct gs_diag d = { 0 };
    char **v = NULL;
    size_t k = 0;
    int rc = -1;
    if (gs_h5in_open(h5, &r, &d) == 0 && gs_h5in_strings(r, path, &v, &k) == 0
        && k >= 1 && strlen(v[0]) < n) {
        memcpy(buf, v[0], strlen(v[0]) + 1);
        rc = 0;
    }
    gs_h5in_strs_free(v, k);
    gs_h5in_close(r);
    gs_diag_free(&d);
    return rc;
}

/* The environment mpirun needs here: running as root is refused unless
 * both variables are set; ASan's leak check is off for Open MPI's own
 * allocations at exit. */
#define GS_MPIRUN "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " \
                  "OMPI_MCA_btl_vader_single_copy_mechanism=none " \
                  "ASAN_OPTIONS=detect_leaks=0 mpirun -np 2 --oversubscribe"

#endif
