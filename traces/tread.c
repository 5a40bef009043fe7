/* tread.c -- lines, fields, row diagnostics and the two-pass row engine.
 *
 * Reading goes through zlib's gzFile for every file: gzread passes a file
 * that is not gzip through unchanged, so one code path reads both.  zlib
 * reports a gzip stream that ends early only through gzerror(): when gzread
 * returns 0 at the end of the input, an error code of Z_BUF_ERROR means the
 * input stopped in the middle of a stream.  That case, and any other zlib
 * error, is a read error here ("truncated gzip file"), so a cut-off trace
 * never passes for a short one.
 *
 * Lines are assembled in a buffer that grows to the longest line (a JSON
 * line of the Mooncake trace runs to tens of kilobytes) up to 16 MiB.
 *
 * The row engine (see tread.h) makes two passes over a trace.  The first
 * validates every row, counts what it keeps, leaves out and skips, and checks
 * whether arrivals are sorted.  If they are, the second pass re-reads and
 * hands out the rows one at a time, so memory does not grow with the trace;
 * if not, it loads every kept row and sorts them by (arrival, line number) --
 * a stable order -- and says so on the trace log.  Validating everything up
 * front means a bad row stops a run before it starts. */
#include "tread.h"
#include "../sim/base/path.h"
#include "../sim/base/datapath.h"
#include "../sim/base/membudget.h"
#include "../sim/base/once.h"
#include "../sim/io/jsoncheck.h"
#include "../sim/spec/scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#define LINE_MAX_BYTES (16L << 20)
#define CHUNK 65536
#define MAXF 64

struct gs_tread {
    gzFile gz;
    char *path;                 /* owned */
    int utf8_said;              /* a line that is not UTF-8 was reported */
    char buf[CHUNK];
    int pos, len;
    int eof;
    char *line;
    size_t cap;
    long lineno;
};

static FILE *log_fp;
static int log_set;

FILE *gs_trace_log(void)
{
    return log_set ? log_fp : stderr;
}

void gs_trace_set_log(FILE *fp)
{
    log_fp = fp;
    log_set = 1;
}

int gs_tread_open(const char *path, struct gs_tread **out, struct gs_diag *d)
{
    *out = NULL;
    /* without waiting: opening a FIFO would wait for a writer */
    int pfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *probe = pfd < 0 ? NULL : fdopen(pfd, "rb");
    if (probe == NULL) {
        int e = errno;
        if (pfd >= 0)
            close(pfd);
        return gs_diag_set(d, GS_EIO, path, "cannot open trace: %s",
                           strerror(e));
    }
    /* The row engine reads a trace twice (validate, then replay), so it
     * must be a file: a pipe (/dev/stdin fed by a command) would be empty
     * the second time. */
    struct stat st;
    int isreg = fstat(fileno(probe), &st) == 0 && S_ISREG(st.st_mode);
    if (isreg)
        gs_input_note(fileno(probe));
    fclose(probe);
    if (!isreg)
        return gs_diag_set(d, GS_EIO, path, "a trace must be a regular file, "
                           "and this is %s: gpusim reads a trace twice "
                           "(checks every row, then replays it), so save "
                           "the data to a file first",
                           S_ISDIR(st.st_mode) ? "a folder" :
                           S_ISFIFO(st.st_mode) ? "a pipe (FIFO)" :
                           S_ISCHR(st.st_mode) ? "a character device" :
                           S_ISSOCK(st.st_mode) ? "a socket" :
                           "not a regular file");
    struct gs_tread *t = calloc(1, sizeof *t);
    if (t == NULL || (t->path = strdup(path)) == NULL) {
        free(t);
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    t->gz = gzopen(path, "rb");
    if (t->gz == NULL) {
        free(t->path);
        free(t);
        return gs_diag_set(d, GS_EIO, path, "cannot open trace: %s",
                           errno ? strerror(errno) : "out of memory");
    }
    gzbuffer(t->gz, 1 << 17);
    *out = t;
    return 0;
}

int gs_tread_open_as(const char *path, const char *what,
                     struct gs_tread **out, struct gs_diag *d)
{
    *out = NULL;
    FILE *probe;
    int rc = gs_fopen_regular(path, what, 0, &probe, d);
    if (rc < 0)
        return rc;
    fclose(probe);
    return gs_tread_open(path, out, d);
}

const char *gs_tread_path(const struct gs_tread *t)
{
    return t->path;
}

long gs_tread_lineno(const struct gs_tread *t)
{
    return t->lineno;
}

static int fill(struct gs_tread *t, struct gs_diag *d)
{
    int n = gzread(t->gz, t->buf, sizeof t->buf);
    int zerr = Z_OK;
    const char *msg = gzerror(t->gz, &zerr);
    if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
        if (zerr == Z_BUF_ERROR)
            return gs_diag_set(d, GS_EIO, t->path, "truncated gzip file: the "
                               "compressed stream ends early (after line %ld)",
                               t->lineno);
        if (zerr == Z_ERRNO)
            return gs_diag_set(d, GS_EIO, t->path, "read error after line "
                               "%ld: %s", t->lineno, strerror(errno));
        return gs_diag_set(d, GS_EIO, t->path, "corrupt gzip file after line "
                           "%ld: %s", t->lineno, msg ? msg : "zlib error");
    }
    t->pos = 0;
    t->len = n;
    if (n == 0)
        t->eof = 1;
    return 0;
}

static int grow(struct gs_tread *t, size_t need, struct gs_diag *d)
{
    if (need <= t->cap)
        return 0;
    if (need > (size_t)LINE_MAX_BYTES) {
        char *where;
        where = gs_strf("%s:%ld", t->path, t->lineno + 1);
        return gs_diag_set_at(d, GS_EPARSE, where, "line longer than %ld MiB",
                              LINE_MAX_BYTES >> 20);
    }
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < need)
        cap *= 2;
    char *nl = realloc(t->line, cap);
    if (nl == NULL)
        return gs_diag_set(d, GS_ENOMEM, t->path, "out of memory");
    t->line = nl;
    t->cap = cap;
    return 0;
}

int gs_tread_line(struct gs_tread *t, char **line, struct gs_diag *d)
{
    size_t len = 0;
    int got = 0, rc = 0;
    for (;;) {
        if (t->pos == t->len) {
            if (!t->eof && (rc = fill(t, d)) < 0)
                return rc;
            if (t->eof)
                break;
        }
        char *s = t->buf + t->pos;
        int avail = t->len - t->pos;
        char *nl = memchr(s, '\n', (size_t)avail);
        int take = nl ? (int)(nl - s) : avail;
        if ((rc = grow(t, len + (size_t)take + 1, d)) < 0)
            return rc;
        memcpy(t->line + len, s, (size_t)take);
        len += (size_t)take;
        got = 1;
        t->pos += take + (nl != NULL);
        if (nl)
            break;
    }
    if (!got) {
        rc = grow(t, 1, d);
        return rc < 0 ? rc : 0;
    }
    t->lineno++;
    if (memchr(t->line, '\0', len)) {
        char *where;
        where = gs_strf("%s:%ld", t->path, t->lineno);
        return gs_diag_set_at(d, GS_EPARSE, where, "not a text file (NUL "
                              "byte)");
    }
    if (len > 0 && t->line[len - 1] == '\r')
        len--;
    t->line[len] = '\0';
    size_t bad = gs_utf8_bad(t->line, len);
    if (bad != SIZE_MAX) {
        /* Names (tenants, pools, nodes) must be UTF-8 for --json and the
         * result file: each stray byte becomes U+FFFD, said once a file;
         * a number with one in it stays no number, and is refused. */
        size_t n;
        char *fixed = gs_utf8_repair(t->line, len, &n);
        if (fixed == NULL || (rc = grow(t, n + 1, d)) < 0) {
            free(fixed);
            return fixed ? rc : gs_diag_set(d, GS_ENOMEM, t->path,
                                            "out of memory");
        }
        if (!t->utf8_said) {
            char *where = NULL;
            if (asprintf(&where, "%s:%ld:%zu", t->path, t->lineno,
                         bad + 1) >= 0)
                t->utf8_said = gs_utf8_warn(t->path, where,
                                            (unsigned char)t->line[bad]);
            free(where);
        }
        memcpy(t->line, fixed, n + 1);
        free(fixed);
        len = n;
    }
    /* A UTF-8 byte-order mark before the first line is not data. */
    if (t->lineno == 1 && len >= 3 && memcmp(t->line, "\xEF\xBB\xBF", 3) == 0)
        memmove(t->line, t->line + 3, len - 3 + 1);
    *line = t->line;
    /* A UTF-8 byte-order mark (spreadsheets write one) is not data. */
    if (t->lineno == 1 && len >= 3 && memcmp(t->line, "\xEF\xBB\xBF", 3) == 0)
        *line = t->line + 3;
    return 1;
}

int gs_tread_rewind(struct gs_tread *t, struct gs_diag *d)
{
    if (gzrewind(t->gz) != 0)
        return gs_diag_set(d, GS_EIO, t->path, "cannot go back to the start");
    t->pos = t->len = 0;
    t->eof = 0;
    t->lineno = 0;
    return 0;
}

void gs_tread_close(struct gs_tread *t)
{
    if (t == NULL)
        return;
    gzclose_r(t->gz);
    free(t->line);
    free(t->path);
    free(t);
}

char *gs_utf8_repair(const char *s, size_t len, size_t *outlen)
{
    char *o = malloc(3 * len + 1);
    if (o == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        size_t bad = gs_utf8_bad(s + i, len - i);
        size_t good = bad == SIZE_MAX ? len - i : bad;
        memcpy(o + n, s + i, good);
        n += good;
        i += good;
        if (i < len) {                  /* one byte that begins nothing */
            memcpy(o + n, "\xEF\xBF\xBD", 3);
            n += 3;
            i++;
        }
    }
    o[n] = '\0';
    if (outlen)
        *outlen = n;
    return o;
}

void gs_tenant_name(char *out, const char *name, const char *path,
                    const char *where)
{
    size_t len = strlen(name);
    if (len < GS_TENANT_NAME) {
        memcpy(out, name, len + 1);
        return;
    }
    uint32_t h = 2166136261u;                   /* FNV-1a of the whole */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    size_t keep = GS_TENANT_NAME - 1 - 9;       /* "~" and 8 hex digits */
    while (keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80)
        keep--;                                 /* a whole UTF-8 character */
    snprintf(out, GS_TENANT_NAME, "%.*s~%08x", (int)keep, name, (unsigned)h);
    FILE *fp = gs_trace_log();
    char *key = NULL;
    if (fp && asprintf(&key, "tname:%s", path) >= 0 && gs_once(key))
        fprintf(fp, "gpusim: warning: %s: a tenant name of %zu bytes is "
                "longer than %d: kept as '%s' (its start and a hash of the "
                "whole, so long names stay apart; said once)\n", where, len,
                GS_TENANT_NAME - 1, out);
    free(key);
}

int gs_utf8_warn(const char *path, const char *where, unsigned char byte)
{
    FILE *fp = gs_trace_log();
    char *key = NULL;
    if (fp == NULL || asprintf(&key, "utf8:%s", path) < 0)
        return 0;
    int say = gs_once(key);     /* once a file, across workers too */
    free(key);
    if (say)
        fprintf(fp, "gpusim: warning: %s: not UTF-8 (byte 0x%02X); such "
                "bytes are read as U+FFFD here and in the rest of the file "
                "(said once); convert it, e.g. iconv -f LATIN1 -t UTF-8\n",
                where, byte);
    return 1;
}

/* --- fields and numbers ------------------------------------------------------ */

int gs_tsplit(char *line, char delim, char **f, int max)
{
    int n = 0;
    char *p = line;
    if (delim == ' ') {
        for (;;) {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '\0')
                return n;
            if (n < max)
                f[n] = p;
            n++;
            while (*p && *p != ' ' && *p != '\t')
                p++;
            if (*p == '\0')
                return n;
            *p++ = '\0';
        }
    }
    for (;;) {
        char *start = p;
        if (delim == ',' && *p == '"') {
            /* Quoted: copy in place, "" becomes ". */
            char *w = p;
            p++;
            for (;;) {
                if (*p == '\0')
                    break;
                if (*p == '"') {
                    if (p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *w++ = *p++;
            }
            /* Anything between the closing quote and the delimiter is kept. */
            while (*p && *p != delim)
                *w++ = *p++;
            char *end = p;
            int last = (*p == '\0');
            *w = '\0';
            if (n < max)
                f[n] = start;
            n++;
            if (last)
                return n;
            p = end + 1;
            continue;
        }
        while (*p && *p != delim)
            p++;
        int last = (*p == '\0');
        *p = '\0';
        if (n < max)
            f[n] = start;
        n++;
        if (last)
            return n;
        p++;
    }
}

int gs_tnum(const char *s, double *out)
{
    while (*s == ' ')
        s++;
    if (*s == '\0')
        return -1;
    char *end;
    errno = 0;
    size_t len = gs_decimal_len(s);     /* no 0x10, +3, inf */
    double v = strtod(s, &end);
    if (end != s + len)
        return -1;
    while (*end == ' ')
        end++;
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int gs_tint(const char *s, long long lo, long long hi, long long *out)
{
    while (*s == ' ')
        s++;
    if (*s == '\0')
        return -1;
    char *end;
    errno = 0;
    if (s[0] == '+')        /* strtoll takes "+3" */
        return -1;
    long long v = strtoll(s, &end, 10);
    while (*end == ' ')
        end++;
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* --- diagnostics and reports ---------------------------------------------------- */

int gs_trow_fail(struct gs_trow *r, const char *field, const char *fmt, ...)
{
    char *where = field ? gs_strf("%s:%ld: field '%s'", r->path, r->line,
                                  field)
                        : gs_strf("%s:%ld", r->path, r->line);
    snprintf(r->field, sizeof r->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    int rc = gs_diag_vset_at(r->d, GS_EPARSE, where, fmt, ap);
    va_end(ap);
    return rc;
}

static void add_reason(struct gs_treason *v, int *n, const char *key,
                       const char *example, long line)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(v[i].key, key) == 0) {
            v[i].n++;
            return;
        }
    /* The last slot collects whatever does not fit. */
    int i = *n < GS_TREASONS ? (*n)++ : GS_TREASONS - 1;
    if (i == GS_TREASONS - 1 && v[i].n > 0) {
        snprintf(v[i].key, sizeof v[i].key, "%s", "other reasons");
        v[i].n++;
        return;
    }
    snprintf(v[i].key, sizeof v[i].key, "%s", key);
    snprintf(v[i].example, sizeof v[i].example, "%s", example);
    v[i].first_line = line;
    v[i].n = 1;
}

void gs_treport_bad(struct gs_treport *rep, const struct gs_trow *r)
{
    char key[64], ex[400];
    if (r->field[0])
        snprintf(key, sizeof key, "field '%s'", r->field);
    else
        snprintf(key, sizeof key, "%s", "row shape");
    snprintf(ex, sizeof ex, "%.*s", (int)sizeof ex - 1, gs_diag_what(r->d));
    rep->skipped++;
    add_reason(rep->bad, &rep->nbad, key, ex, r->line);
}

void gs_treport_filter(struct gs_treport *rep, const struct gs_trow *r)
{
    rep->filtered++;
    add_reason(rep->filt, &rep->nfilt, r->why ? r->why : "left out",
               "", r->line);
}

int gs_treport_all_bad(const char *path, const struct gs_treport *rep,
                       struct gs_diag *d)
{
    if (rep->items > 0 || rep->skipped == 0)
        return 0;
    const struct gs_treason *b = &rep->bad[0];
    return gs_diag_set(d, GS_EPARSE, path, "every row is bad: all %ld were "
                       "skipped (skip_bad_rows), which leaves no workload; "
                       "the first, line %ld, %s: %s", rep->skipped,
                       b->first_line, b->key, b->example);
}

void gs_treport_print(FILE *fp, const char *path, const struct gs_treport *rep)
{
    if (fp == NULL)
        return;
    if (rep->skipped > 0) {
        fprintf(fp, "gpusim: %s: skipped %ld bad row%s (skip_bad_rows):\n",
                path, rep->skipped, rep->skipped == 1 ? "" : "s");
        for (int i = 0; i < rep->nbad; i++)
            fprintf(fp, "  %ld x %s, first at line %ld: %s\n", rep->bad[i].n,
                    rep->bad[i].key, rep->bad[i].first_line,
                    rep->bad[i].example);
    }
    if (rep->filtered > 0) {
        fprintf(fp, "gpusim: %s: left out %ld row%s by the importer's rules:\n",
                path, rep->filtered, rep->filtered == 1 ? "" : "s");
        for (int i = 0; i < rep->nfilt; i++)
            fprintf(fp, "  %ld x %s (first at line %ld)\n", rep->filt[i].n,
                    rep->filt[i].key, rep->filt[i].first_line);
    }
    if (rep->unsorted > 0)
        fprintf(fp, "gpusim: %s: %ld row%s arrived before the row above; "
                "sorted all %ld by arrival (stable)\n", path, rep->unsorted,
                rep->unsorted == 1 ? "" : "s", rep->items);
}

/* --- the row engine --------------------------------------------------------------- */

struct gs_rows {
    struct gs_tread *t;
    const struct gs_rows_ops *ops;
    void *st;
    int skip_bad;
    int header_done;
    struct gs_treport rep;
    struct gs_jobspec *jobs;    /* loaded and sorted (unsorted input) */
    long njobs, head;
};

/* Read on to the next kept row.  count: first pass (fill the report). */
static int step(struct gs_rows *rs, struct gs_jobspec *out, int count,
                struct gs_diag *d)
{
    char *f[MAXF];
    for (;;) {
        char *line;
        int rc = gs_tread_line(rs->t, &line, d);
        if (rc <= 0)
            return rc;
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || (rs->ops->comment && *p == rs->ops->comment))
            continue;
        struct gs_diag rd = { 0 };
        struct gs_trow r = { .path = gs_tread_path(rs->t),
                             .line = gs_tread_lineno(rs->t), .f = f, .d = &rd };
        r.nf = gs_tsplit(line, rs->ops->delim, f, MAXF);
        int wide = r.nf > MAXF;
        if (wide)
            gs_trow_fail(&r, NULL, "%d fields; no format here has more than "
                         "%d", r.nf, MAXF);
        if (wide && (!rs->skip_bad ||
                     (rs->ops->has_header && !rs->header_done))) {
            gs_diag_move(d, &rd);
            return GS_EPARSE;
        }
        if (wide) {
            if (count) {
                rs->rep.rows++;
                gs_treport_bad(&rs->rep, &r);
            }
            gs_diag_free(&rd);
            continue;
        }
        if (rs->ops->has_header && !rs->header_done) {
            if (rs->ops->header(rs->st, &r) < 0) {
                gs_diag_move(d, &rd);
                return GS_EPARSE;
            }
            rs->header_done = 1;
            continue;
        }
        if (count)
            rs->rep.rows++;
        gs_jobspec_init(out);
        out->line = r.line;
        rc = rs->ops->row(rs->st, &r, out);
        if (rc == 1)
            return 1;
        if (rc == 0) {
            if (count)
                gs_treport_filter(&rs->rep, &r);
            continue;
        }
        if (!rs->skip_bad) {
            gs_diag_move(d, &rd);
            return rc < 0 ? rc : GS_EPARSE;
        }
        if (count)
            gs_treport_bad(&rs->rep, &r);
        gs_diag_free(&rd);
    }
}

static int cmp_job(const void *a, const void *b)
{
    const struct gs_jobspec *x = a, *y = b;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

int gs_rows_open(const char *path, const struct gs_rows_ops *ops, void *st,
                 int skip_bad, struct gs_rows **out, struct gs_diag *d)
{
    *out = NULL;
    struct gs_rows *rs = calloc(1, sizeof *rs);
    if (rs == NULL)
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    rs->ops = ops;
    rs->st = st;
    rs->skip_bad = skip_bad;
    int rc = gs_tread_open(path, &rs->t, d);
    if (rc < 0) {
        free(rs);
        return rc;
    }
    struct gs_jobspec j;
    gs_time last = 0;
    while ((rc = step(rs, &j, 1, d)) == 1) {
        if (rs->rep.items > 0 && j.arrival < last)
            rs->rep.unsorted++;
        last = j.arrival;
        rs->rep.items++;
    }
    if (rc == 0 && ops->has_header && !rs->header_done) {
        char *where;
        where = gs_strf("%s:1", path);
        rc = gs_diag_set_at(d, GS_EPARSE, where, "empty trace: no header row");
    }
    if (rc == 0)
        rc = gs_treport_all_bad(path, &rs->rep, d);
    if (rc == 0 && rs->rep.rows == 0) {    /* alike in every format */
        char *where;
        where = gs_strf("%s:1", path);
        rc = gs_diag_set_at(d, GS_EPARSE, where, "empty trace: no job rows");
    }
    /* the rows are counted, none is held yet: the simulation will keep a
     * record of each job, and an unsorted file is loaded whole first */
    if (rc == 0)
        rc = gs_mem_check_items((uint64_t)rs->rep.items, GS_MEM_PER_JOB +
                                (rs->rep.unsorted ? sizeof *rs->jobs : 0),
                                "trace jobs", path, d);
    if (rc == 0)
        rc = gs_tread_rewind(rs->t, d);
    rs->header_done = 0;
    if (rc == 0 && rs->rep.unsorted > 0) {
        rs->jobs = malloc((size_t)(rs->rep.items ? rs->rep.items : 1) *
                          sizeof *rs->jobs);
        if (rs->jobs == NULL)
            rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        while (rc == 0) {
            if ((rc = step(rs, &j, 0, d)) != 1)
                break;
            rc = 0;
            if (rs->njobs == rs->rep.items) {
                rc = gs_diag_set(d, GS_EIO, path, "the file changed while "
                                 "being read");
                break;
            }
            rs->jobs[rs->njobs++] = j;
        }
        if (rc == 0) {
            if (rs->njobs > 1)  /* qsort's base may not be NULL */
                qsort(rs->jobs, (size_t)rs->njobs, sizeof *rs->jobs,
                      cmp_job);
            rs->rep.sorted = 1;
        }
    }
    if (rc < 0) {
        gs_rows_close(rs);
        return rc;
    }
    gs_treport_print(gs_trace_log(), path, &rs->rep);
    *out = rs;
    return 0;
}

int gs_rows_next(struct gs_rows *rs, struct gs_jobspec *out, struct gs_diag *d)
{
    if (rs->rep.sorted) {
        if (rs->head == rs->njobs)
            return 0;
        *out = rs->jobs[rs->head++];
        return 1;
    }
    return step(rs, out, 0, d);
}

const struct gs_treport *gs_rows_report(const struct gs_rows *rs)
{
    return &rs->rep;
}

void gs_rows_close(struct gs_rows *rs)
{
    if (rs == NULL)
        return;
    gs_tread_close(rs->t);
    free(rs->jobs);
    free(rs);
}

/* --- options ------------------------------------------------------------------------- */

int gs_topt_path(const struct gs_scenario *sc, struct gs_params *opts,
                 const char *key, int required, char **out, int *found,
                 struct gs_diag *d)
{
    *out = NULL;
    if (found)
        *found = 0;
    const char *p = NULL;
    int rc = gs_params_str(opts, key, &p, d);
    if (rc < 0)
        return rc;
    if (p == NULL || p[0] == '\0') {
        if (!required)
            return 0;
        return gs_diag_set(d, GS_EINVAL, opts->where,
                           "missing required key '%s'", key);
    }
    char *full = gs_data_path(sc && sc->trace_dir ? sc->trace_dir : "", p);
    if (full == NULL)
        return gs_diag_set(d, GS_ENOMEM, opts->where, "out of memory");
    if (strlen(full) >= PATH_MAX) {     /* open() would refuse it */
        free(full);
        return gs_diag_set(d, GS_EINVAL, opts->where, "'%s': the path is "
                           "longer than the %d bytes a path may have",
                           key, PATH_MAX - 1);
    }
    *out = full;
    if (found)
        *found = 1;
    return 0;
}

int gs_topt_skip(struct gs_params *opts, int *skip, struct gs_diag *d)
{
    *skip = 0;
    return gs_params_bool(opts, "skip_bad_rows", skip, d);
}

int gs_topt_tenant(struct gs_params *opts, const char *key, char *out,
                   struct gs_diag *d)
{
    const char *s = NULL;
    int rc = gs_params_str(opts, key, &s, d);
    if (rc < 0 || s == NULL)
        return rc;
    if (s[0] == '\0' || strlen(s) >= GS_TENANT_NAME) {
        char *where;
        where = gs_strf("%s.%s", opts->where, key);
        return gs_diag_set_at(d, GS_EINVAL, where, "a tenant name of 1 to %d "
                              "characters", GS_TENANT_NAME - 1);
    }
    snprintf(out, GS_TENANT_NAME, "%s", s);
    return 0;
}

void gs_tbasename(const char *path, char *out, size_t n)
{
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    snprintf(out, n, "%s", s);
    size_t len = strlen(out);
    if (len > 3 && strcmp(out + len - 3, ".gz") == 0)
        out[len -= 3] = '\0';
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}
