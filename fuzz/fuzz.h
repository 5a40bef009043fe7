/* fuzz.h -- helpers shared by the libFuzzer targets in fuzz/.
 *
 * Each target is one file, fuzz_NAME.c, defining LLVMFuzzerTestOneInput
 * over one of gpusim's parsers.  Parsers that read files get the input
 * through a memfd (an in-memory, seekable file named /proc/self/fd/N), so
 * no fuzz run touches the disk.  Targets that cover several formats take
 * the first input byte as the format's index (fz_pick); the seed corpora
 * (fuzz/seed.sh) put that byte in front of each fixture.  Inputs are
 * capped at 1 MiB and every target stops reading after FZ_MAX_ROWS rows,
 * so an input can be slow only if the parser itself is. */
#ifndef GS_FUZZ_H
#define GS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../sim/setup/scenario.h"
#include "../sim/setup/source.h"

#define FZ_MAX_ROWS 200000
#define FZ_MAX_SIZE (1 << 20)

#ifndef FZ_FIXTURES
#define FZ_FIXTURES "tests/fixtures"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Put data into the memfd and return its path (static storage). */
static inline const char *fz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("gpusim-fuzz", 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
        abort();
    for (size_t off = 0; off < size;) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
    return path;
}

/* A NUL-terminated copy of data (caller frees). */
static inline char *fz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Split off the selector byte: index into a table of n entries. */
static inline int fz_pick(const uint8_t **data, size_t *size, int n)
{
    if (*size == 0)
        return -1;
    int k = (*data)[0] % n;
    (*data)++;
    (*size)--;
    return k;
}


/* When d names a line of the file at path ("PATH:LINE..."), that line is
 * one the text has: 1 to its newlines + 1 (the one after the last, where a
 * file that ends early is named).  Else the reader counted something other
 * than the file's lines (the tenth session's fix: native CSV named rows,
 * not lines).  gzip'ed input is numbered by its text: not checked. */
static inline void fz_check_line(const struct gs_diag *d, const char *path,
                                 const uint8_t *data, size_t size)
{
    if (d->code >= 0 || d->where == NULL)
        return;
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
        return;
    size_t lp = strlen(path);
    if (strncmp(d->where, path, lp) != 0 || d->where[lp] != ':')
        return;
    const char *at = d->where + lp + 1;
    char *end;
    long ln = strtol(at, &end, 10);
    if (end == at)
        return;
    long lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (ln < 1 || ln > lines) {
        fprintf(stderr, "fuzz: %s: %s names line %ld of a text of %ld\n",
                d->where, d->what ? d->what : "", ln, lines);
        abort();
    }
}

/* Read the trace at path in format fmt the way a scenario's workload reads
 * it: opened through gs_source_open on a scenario holding only that trace
 * (skip_bad_rows when skip; a philly-gavel throughputs file when
 * throughputs is not NULL), every job pulled (the source checks order), up
 * to FZ_MAX_ROWS.  A refusal that names a line of it names one it has
 * (fz_check_line: data, size are its bytes). */
static inline void fz_read_workload(const char *fmt, const char *path,
                                    int skip, const char *throughputs,
                                    const uint8_t *data, size_t size)
{
    struct gs_scenario *sc = calloc(1, sizeof *sc);
    if (sc == NULL)
        abort();
    gs_catalog_init(&sc->cat);
    gs_params_init(&sc->trace, "<fuzz>: $.workload.trace");
    gs_params_init(&sc->policy_params, "");
    gs_params_init(&sc->placer_params, "");
    sc->wl_kind = GS_WL_TRACE;
    gs_params_add_str(&sc->trace, "format", fmt);
    gs_params_add_str(&sc->trace, "path", path);
    if (skip)
        gs_params_add_num(&sc->trace, "skip_bad_rows", 1);
    if (throughputs)
        gs_params_add_str(&sc->trace, "throughputs", throughputs);
    struct gs_source src;
    struct gs_diag d = { 0 };
    if (gs_source_open(sc, 1, &src, &d) == 0) {
        struct gs_jobspec j;
        for (long n = 0; n < FZ_MAX_ROWS && gs_source_next(&src, &j, &d) == 1;
             n++)
            ;
        gs_source_close(&src);
    }
    fz_check_line(&d, path, data, size);
    gs_diag_free(&d);
    gs_params_free(&sc->trace);
    gs_params_free(&sc->policy_params);
    gs_params_free(&sc->placer_params);
    free(sc);
}

#endif
