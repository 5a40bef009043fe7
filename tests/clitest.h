/* clitest.h -- run the gpusim binary from a test (test_plan, test_sweep):
 * capture stdout and stderr, compare files byte for byte.  The binary's
 * path comes from $GPUSIM (set by `make test`); commands run in the
 * repository's root (scenarios/ relative), results go to /tmp. */
#ifndef GS_CLITEST_H
#define GS_CLITEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static inline const char *gs_cli_bin(void)
{
    const char *b = getenv("GPUSIM");
    return b ? b : "./gpusim";
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
    snprintf(cmd, sizeof cmd, "%s %s %s >%s 2>%s", prefix, gs_cli_bin(), args,
             oo, eo);
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
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
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

/* The environment mpirun needs here: running as root is refused unless
 * both variables are set; ASan's leak check is off for Open MPI's own
 * allocations at exit. */
#define GS_MPIRUN "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " \
                  "OMPI_MCA_btl_vader_single_copy_mechanism=none " \
                  "ASAN_OPTIONS=detect_leaks=0 mpirun -np 2 --oversubscribe"

#endif
