/* inject.c -- allocation-failure injection for gpusim-allocfail, the test
 * build that tests/test_allocfail.c drives (in the manner of Lua's and
 * SQLite's test allocators).
 *
 * The binary is linked with -Wl,--wrap for malloc, calloc, realloc,
 * strdup, strndup, asprintf and realpath, and for mmap and mremap (the
 * large arrays of bigmem.c and the job records grow as anonymous mappings),
 * so every allocation gpusim's own code asks for goes through a counter
 * here -- cJSON's too, since gpusim
 * gives cJSON an allocation hook in jsonio.c, which is linked wrapped.  With GS_ALLOC_FAIL=N in
 * the environment the Nth counted allocation fails (returns NULL, errno
 * ENOMEM), once; every other allocation succeeds.  At exit the binary
 * writes the number of allocations it counted to the file named by
 * GS_ALLOC_COUNT, so the driver knows how far to go.
 *
 * The boundary: allocations made inside HDF5, GSL, zlib, libcsv and the C
 * library itself (stdio buffers, dlopen) are not counted and never fail
 * here -- those libraries handle their own failures and report them as
 * errors gpusim already checks.  A forked worker inherits the counter; the
 * driver's scenarios are run with --jobs where it matters. */
#include "../../sim/base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
char *__real_realpath(const char *p, char *resolved);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
char *__wrap_realpath(const char *p, char *resolved);
int __wrap_asprintf(char **out, const char *fmt, ...);
void *__real_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off);
void *__real_mremap(void *p, size_t old, size_t n, int flags, ...);
void *__wrap_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off);
void *__wrap_mremap(void *p, size_t old, size_t n, int flags, ...);

static long fail_at = -1, count;

/* 1 when this allocation is the one to fail. */
static int fails(void)
{
    if (++count == fail_at) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    return fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return fails() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fails() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return fails() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
    return fails() ? NULL : __real_strndup(s, n);
}

char *__wrap_realpath(const char *p, char *resolved)
{
    if (resolved == NULL && fails())
        return NULL;
    return __real_realpath(p, resolved);
}

int __wrap_asprintf(char **out, const char *fmt, ...)
{
    if (fails()) {
        *out = NULL;
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(out, fmt, ap);
    va_end(ap);
    return n;
}

void *__wrap_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
    return fails() ? MAP_FAILED : __real_mmap(a, n, prot, flags, fd, off);
}

/* gpusim never moves a mapping to an address of its choosing
 * (MREMAP_FIXED), so the optional fifth argument is not passed on. */
void *__wrap_mremap(void *p, size_t old, size_t n, int flags, ...)
{
    return fails() ? MAP_FAILED : __real_mremap(p, old, n, flags);
}

static void report(void)
{
    const char *f = getenv("GS_ALLOC_COUNT");
    if (f == NULL || *f == '\0')
        return;
    FILE *fp = fopen(f, "w");
    if (fp) {
        fprintf(fp, "%ld\n", count);
        fclose(fp);
    }
}

__attribute__((constructor)) static void inject_init(void)
{
    const char *s = getenv("GS_ALLOC_FAIL");
    if (s && *s)
        fail_at = strtol(s, NULL, 10);
    atexit(report);
}
