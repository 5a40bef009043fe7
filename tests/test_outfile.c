/* test_outfile.c -- result files written safely (outfile.c): targets that
 * are not regular files refused by kind, symlinks followed, stale
 * temporaries of dead processes removed (live ones kept), and names at and
 * around NAME_MAX and PATH_MAX either written whole or refused with a
 * message, never cut short onto another file; and the chunks of large
 * HDF5 tables (h5chunk.c) inflate and unshuffle back to their rows. */
#include "cutest.h"
#include "../sim/io/outfile.h"
#include "../sim/io/h5chunk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>
#include <zlib.h>

static char dir[64];

static void fresh_dir(void)
{
    /* fixed width: test_path_max's name lengths must not move with the
     * number of the process id's digits (a 3-digit id pushed a file name
     * past NAME_MAX, refused for that and not for PATH_MAX: a failure
     * that came and went with the machine's process ids) */
    snprintf(dir, sizeof dir, "/tmp/gs-outfile-%07ld", (long)getpid());
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return;
    mkdir(dir, 0700);
}

/* Entries of folder d, "." and ".." aside. */
static int count(const char *d)
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

/* Write "data" to path through gs_out; the code. */
static int put(const char *path, const char *data, struct gs_diag *d)
{
    struct gs_out o;
    int rc = gs_out_begin(&o, path, d);
    if (rc < 0)
        return rc;
    if (write(o.fd, data, strlen(data)) != (ssize_t)strlen(data)) {
        gs_out_abort(&o);
        return -99;
    }
    return gs_out_commit(&o, d);
}

static int holds(const char *path, const char *data)
{
    char buf[256] = "";
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return strcmp(buf, data) == 0;
}

static void expect_refused(const char *path, const char *msg)
{
    struct gs_diag d = { 0 };
    int rc = gs_out_check(path, &d);
    CU_ASSERT(rc < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, msg));
    if (!strstr(d.what, msg))
        printf("\n    %s: %s", path, d.what);
    struct gs_diag d2 = { 0 };
    CU_ASSERT(put(path, "x", &d2) < 0);
    gs_diag_free(&d);
    gs_diag_free(&d2);
}

static void test_kinds(void)
{
    fresh_dir();
    char p[128];
    expect_refused("", "empty");
    expect_refused("/dev/null", "character device");
    expect_refused(dir, "a folder");
    snprintf(p, sizeof p, "%s/", dir);
    expect_refused(p, "ends with '/'");
    snprintf(p, sizeof p, "%s/fifo", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(p, 0600), 0);
    expect_refused(p, "FIFO");
    snprintf(p, sizeof p, "%s/missing/x.h5", dir);
    expect_refused(p, "folder");
    /* a link to a missing file is refused; the dangling link stays */
    snprintf(p, sizeof p, "%s/dangling", dir);
    CU_ASSERT_EQUAL(symlink("nowhere.h5", p), 0);
    expect_refused(p, "symbolic link to a missing file");
    CU_ASSERT_EQUAL(count(dir), 2);     /* fifo, dangling */
}

static void test_write_and_symlink(void)
{
    fresh_dir();
    char p[128], real[128], link[128];
    struct gs_diag d = { 0 };
    snprintf(p, sizeof p, "%s/r.h5", dir);
    CU_ASSERT_EQUAL(put(p, "one", &d), 0);
    CU_ASSERT(holds(p, "one"));
    CU_ASSERT_EQUAL(put(p, "two", &d), 0);     /* replaced whole */
    CU_ASSERT(holds(p, "two"));
    struct stat st;
    CU_ASSERT_EQUAL(stat(p, &st), 0);
    mode_t um = umask(0);
    umask(um);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0666 & ~um);
    /* a link: the file it leads to is replaced, the link kept */
    snprintf(real, sizeof real, "%s/sub", dir);
    mkdir(real, 0700);
    snprintf(real, sizeof real, "%s/sub/real.h5", dir);
    CU_ASSERT_EQUAL(put(real, "old", &d), 0);
    snprintf(link, sizeof link, "%s/latest.h5", dir);
    CU_ASSERT_EQUAL(symlink("sub/real.h5", link), 0);
    CU_ASSERT_EQUAL(put(link, "new", &d), 0);
    CU_ASSERT_EQUAL(lstat(link, &st), 0);
    CU_ASSERT(S_ISLNK(st.st_mode));
    CU_ASSERT(holds(real, "new"));
    CU_ASSERT_EQUAL(count(dir), 3);     /* r.h5, sub, latest.h5 */
    snprintf(real, sizeof real, "%s/sub", dir);
    CU_ASSERT_EQUAL(count(real), 1);
    /* an abort leaves nothing */
    struct gs_out o;
    snprintf(p, sizeof p, "%s/aborted.h5", dir);
    CU_ASSERT_EQUAL(gs_out_begin(&o, p, &d), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.tmp, "/.aborted.h5.gpusim-tmp-"));
    CU_ASSERT_EQUAL(count(dir), 4);
    gs_out_abort(&o);
    gs_out_abort(&o);                   /* idempotent */
    CU_ASSERT_EQUAL(count(dir), 3);
    gs_diag_free(&d);
}

/* The pid of a process that has exited and been reaped. */
static pid_t dead_pid(void)
{
    pid_t c = fork();
    if (c == 0)
        _exit(0);
    waitpid(c, NULL, 0);
    return c;
}

static void test_stale(void)
{
    fresh_dir();
    char stale[160], live[160], other[160], sdir[160], sfile[200], p[128];
    pid_t dead = dead_pid();
    snprintf(stale, sizeof stale, "%s/.r.h5.gpusim-tmp-%ld-AbC123", dir,
             (long)dead);
    snprintf(live, sizeof live, "%s/.r.h5.gpusim-tmp-%ld-AbC123", dir,
             (long)getppid());
    snprintf(other, sizeof other, "%s/.q.h5.gpusim-tmp-%ld-AbC123", dir,
             (long)dead);
    snprintf(sdir, sizeof sdir, "%s/.r.h5.gpusim-tmp-%ld-XyZ789", dir,
             (long)dead);
    snprintf(sfile, sizeof sfile, "%s/run-3.h5", sdir);
    close(open(stale, O_WRONLY | O_CREAT, 0600));
    close(open(live, O_WRONLY | O_CREAT, 0600));
    close(open(other, O_WRONLY | O_CREAT, 0600));
    mkdir(sdir, 0700);
    close(open(sfile, O_WRONLY | O_CREAT, 0600));
    snprintf(p, sizeof p, "%s/r.h5", dir);
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(put(p, "x", &d), 0);
    CU_ASSERT_NOT_EQUAL(access(stale, F_OK), 0);   /* dead: removed */
    CU_ASSERT_NOT_EQUAL(access(sdir, F_OK), 0);    /* with its files */
    CU_ASSERT_EQUAL(access(live, F_OK), 0);        /* live: kept */
    CU_ASSERT_EQUAL(access(other, F_OK), 0);       /* another target's */
    CU_ASSERT_EQUAL(count(dir), 3);
    /* scratch folders are named and removed the same way */
    char *s = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_out_scratch(p, &s, &d), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "/.r.h5.gpusim-tmp-"));
    snprintf(sfile, sizeof sfile, "%s/run-0.h5", s);
    close(open(sfile, O_WRONLY | O_CREAT, 0600));
    gs_out_scratch_remove(&s);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(count(dir), 3);
    gs_diag_free(&d);
}

/* File names of NAME_MAX - 1, NAME_MAX and NAME_MAX + 1 characters. */
static void test_name_max(void)
{
    fresh_dir();
    for (int len = NAME_MAX - 1; len <= NAME_MAX + 1; len++) {
        char p[512];
        int n = snprintf(p, sizeof p, "%s/", dir);
        memset(p + n, 'n', (size_t)len);
        p[n + len] = '\0';
        struct gs_diag d = { 0 };
        int rc = put(p, "v", &d);
        if (len <= NAME_MAX) {
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT(holds(p, "v"));
            unlink(p);
        } else {
            CU_ASSERT_EQUAL(rc, GS_EINVAL);
            CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "NAME_MAX"));
        }
        CU_ASSERT_EQUAL(count(dir), 0);
        gs_diag_free(&d);
    }
}

/* Paths of every length from PATH_MAX - 40 to PATH_MAX + 1 in a deep
 * folder: each is written whole at its own name or refused with a
 * message; the folder then holds exactly the file or nothing (no
 * temporary left, no name cut short onto another file). */
static void test_path_max(void)
{
    fresh_dir();
    char *deep = malloc(PATH_MAX + 64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
    int n = snprintf(deep, PATH_MAX, "%s", dir);
    /* folders of 200 characters until within 300 of PATH_MAX */
    while (n < PATH_MAX - 300) {
        deep[n++] = '/';
        memset(deep + n, 'd', 200);
        n += 200;
        deep[n] = '\0';
        CU_ASSERT_EQUAL_FATAL(mkdir(deep, 0700), 0);
    }
    deep[n++] = '/';
    int ok = 0, refused = 0;
    for (int len = PATH_MAX - 40; len <= PATH_MAX + 1; len++) {
        int base = len - n;
        memset(deep + n, 'f', (size_t)base);
        deep[len] = '\0';
        struct gs_diag d = { 0 };
        int rc = put(deep, "v", &d);
        deep[n - 1] = '\0';
        int entries = count(deep);
        deep[n - 1] = '/';
        if (rc == 0) {
            ok++;
            CU_ASSERT(holds(deep, "v"));
            CU_ASSERT_EQUAL(entries, 1);
            unlink(deep);
        } else {
            refused++;
            CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "PATH_MAX"));
            CU_ASSERT_EQUAL(entries, 0);
        }
        gs_diag_free(&d);
    }
    /* short enough ones are written; the longest are refused */
    CU_ASSERT(ok > 0);
    CU_ASSERT(refused > 0);
    free(deep);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* A replaced file keeps its permissions; a new one gets 0666 less the
 * umask. */
static void test_mode_kept(void)
{
    fresh_dir();
    char p[128];
    snprintf(p, sizeof p, "%s/m.h5", dir);
    struct gs_diag d = { 0 };
    mode_t um = umask(022);
    CU_ASSERT_EQUAL(put(p, "a", &d), 0);
    struct stat st;
    CU_ASSERT_EQUAL(stat(p, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0644);
    CU_ASSERT_EQUAL(chmod(p, 0600), 0);
    CU_ASSERT_EQUAL(put(p, "b", &d), 0);
    CU_ASSERT_EQUAL(stat(p, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
    CU_ASSERT(holds(p, "b"));
    CU_ASSERT_EQUAL(chmod(p, 0755), 0);
    CU_ASSERT_EQUAL(put(p, "c", &d), 0);
    CU_ASSERT_EQUAL(stat(p, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0755);
    umask(um);
    gs_diag_free(&d);
}


/* Rows of ES bytes: a constant field, a counter, random bytes and skewed
 * ones -- the plane kinds h5chunk.c codes apart. */
enum { ES = 13 };

static void chunk_rows(unsigned char *r, size_t n, uint64_t seed)
{
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = r + i * ES;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[0] = 7;                                       /* constant */
        p[1] = p[2] = 0;
        memcpy(p + 3, &(uint32_t){ (uint32_t)i }, 4);   /* a counter */
        memcpy(p + 7, &x, 4);                           /* random */
        p[11] = (unsigned char)(x >> 40) % 3;           /* skewed */
        p[12] = (unsigned char)(x >> 48);               /* random */
    }
}

/* What HDF5's readers do with a chunk: inflate, then unshuffle. */
static int chunk_back(const unsigned char *z, size_t zn, size_t n,
                      unsigned char *rows)
{
    unsigned char *sh = malloc(n * ES);
    uLongf len = (uLongf)(n * ES);
    int rc = uncompress(sh, &len, z, (uLong)zn);
    if (rc == Z_OK && len == n * ES)
        for (size_t b = 0; b < ES; b++)
            for (size_t i = 0; i < n; i++)
                rows[i * ES + b] = sh[b * n + i];
    free(sh);
    return rc == Z_OK && len == n * ES ? 0 : -1;
}

/* A chunk of each size (one row, a few, fewer than the tile, a full
 * chunk's 65,536 and an odd count) comes back as it went in; the same rows
 * give the same bytes; constant planes shrink to almost nothing and random
 * ones are stored at about their size (so the whole is near 7 of 13). */
static void test_chunk_roundtrip(void)
{
    static const size_t sizes[] = { 1, 5, 63, 65536, 70001 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        unsigned char *r = malloc(n * ES), *back = malloc(n * ES);
        unsigned char *z1, *z2;
        size_t n1, n2;
        chunk_rows(r, n, 88172645463325252ULL + k);
        CU_ASSERT_EQUAL_FATAL(gs_h5chunk_encode(r, n, ES, &z1, &n1), 0);
        CU_ASSERT_EQUAL_FATAL(gs_h5chunk_encode(r, n, ES, &z2, &n2), 0);
        CU_ASSERT(n1 == n2 && memcmp(z1, z2, n1) == 0);
        CU_ASSERT_EQUAL(chunk_back(z1, n1, n, back), 0);
        CU_ASSERT(memcmp(r, back, n * ES) == 0);
        if (n >= 65536) {
            /* 5 random planes of 13, 1 skewed (log2 3 bits), the counter's
             * low byte random-looking, the rest near nothing */
            CU_ASSERT(n1 < n * 8);
            CU_ASSERT(n1 > n * 6);
        }
        free(z1);
        free(z2);
        free(r);
        free(back);
    }
}

/* A plane of every byte value in runs -- the high byte of a 16-bit row
 * counter, 256 rows a value -- is coded, not stored for its 8 bits of
 * byte entropy: the chunk of 65,536 counters is its stored low bytes and
 * a few hundred bytes more (both planes stored took 131,000). */
static void test_chunk_runs_coded(void)
{
    enum { N = 65536 };
    uint16_t *r = malloc(N * sizeof *r);
    unsigned char *back = malloc(N * 2), *z;
    size_t n;
    for (size_t i = 0; i < N; i++)
        r[i] = (uint16_t)i;
    CU_ASSERT_EQUAL_FATAL(gs_h5chunk_encode(r, N, 2, &z, &n), 0);
    CU_ASSERT(n > N && n < N + 1500);
    uLongf len = N * 2;
    CU_ASSERT_EQUAL(uncompress(back, &len, z, (uLong)n), Z_OK);
    int ok = len == N * 2;
    for (size_t i = 0; ok && i < N; i++)    /* unshuffle: planes lo, hi */
        ok = back[i] == (unsigned char)i && back[N + i] == (unsigned char)(i >> 8);
    CU_ASSERT(ok);
    free(z);
    free(r);
    free(back);
}

/* A C struct's rows (padding between fields, fields of 8, 4, 2 and 1
 * bytes out of order) give, packed and shuffled in one pass by
 * gs_h5chunk_encode_rows, the very bytes of packing them by hand then
 * gs_h5chunk_encode -- for every count of rows around the 8-row blocks,
 * a full chunk and a table's last, partial chunk (the rest zeros), with
 * one buffer reused from chunk to chunk. */
struct crow {
    uint8_t a;
    double b;
    uint16_t c;
    int32_t d;
    uint8_t e;
    int64_t f;
};

static void test_chunk_rows_packed(void)
{
    static const size_t mo[] = { offsetof(struct crow, b),
                                 offsetof(struct crow, a),
                                 offsetof(struct crow, d),
                                 offsetof(struct crow, c),
                                 offsetof(struct crow, f),
                                 offsetof(struct crow, e) };
    static const size_t sz[] = { 8, 1, 4, 2, 8, 1 };
    static const size_t po[] = { 0, 8, 9, 13, 15, 23 };
    enum { FS = 24 };
    const struct gs_h5chunk_layout l = { 6, sizeof(struct crow), FS, mo, po,
                                         sz };
    static const size_t ks[] = { 1, 7, 8, 9, 63, 64, 65, 4099 };
    struct gs_h5chunk_buf b = { 0 };
    int bad = 0;
    for (size_t t = 0; t < sizeof ks / sizeof ks[0] + 2; t++) {
        /* the last two: a full chunk of 65,536 rows, and 70,001 rows in a
         * chunk of 70,016 */
        size_t k = t < sizeof ks / sizeof ks[0] ? ks[t] : t == 8 ? 65536
                                                                 : 70001;
        size_t nrows = t == 9 ? 70016 : k + (t % 3 == 1 ? 5 : 0);
        struct crow *r = calloc(k, sizeof *r);
        unsigned char *packed = calloc(nrows, FS);
        uint64_t x = 0x9E3779B97F4A7C15ULL + t;
        for (size_t i = 0; i < k; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            memset(&r[i], 0xA5, sizeof r[i]);   /* padding: never read */
            r[i].a = (uint8_t)(i % 3);
            r[i].b = (double)(x >> 11) * 0x1p-53 * 50;
            r[i].c = (uint16_t)(x >> 20);
            r[i].d = (int32_t)i - 7;
            r[i].e = 9;
            r[i].f = (int64_t)(x ^ (x >> 29));
            for (int f = 0; f < 6; f++)
                memcpy(packed + i * FS + po[f],
                       (const unsigned char *)&r[i] + mo[f], sz[f]);
        }
        unsigned char *z1;
        const unsigned char *z2;
        size_t n1, n2;
        CU_ASSERT_EQUAL_FATAL(gs_h5chunk_encode(packed, nrows, FS, &z1, &n1),
                              0);
        CU_ASSERT_EQUAL_FATAL(gs_h5chunk_encode_rows(&b, r, k, nrows, &l,
                                                     &z2, &n2), 0);
        bad += n1 != n2 || memcmp(z1, z2, n1) != 0;
        free(z1);
        free(r);
        free(packed);
    }
    CU_ASSERT_EQUAL(bad, 0);
    gs_h5chunk_buf_free(&b);
}

static CU_TestInfo tests[] = {
    { "targets that are not regular files are refused by kind", test_kinds },
    { "written whole, replaced whole, symlinks followed",
      test_write_and_symlink },
    { "stale temporaries of dead processes removed", test_stale },
    { "file names at and around NAME_MAX", test_name_max },
    { "paths at and around PATH_MAX", test_path_max },
    { "a replaced file keeps its mode", test_mode_kept },
    { "a table's chunk inflates and unshuffles back to its rows",
      test_chunk_roundtrip },
    { "a plane of runs is coded whatever its byte entropy",
      test_chunk_runs_coded },
    { "a chunk packed and shuffled from C structs in one pass is the same",
      test_chunk_rows_packed },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("outfile", tests)
