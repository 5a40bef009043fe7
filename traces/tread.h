/* tread.h -- the machinery every text trace importer shares.
 *
 * Four pieces, used by the importers in traces/ (alibaba.c, philly.c, sia.c,
 * swf.c, llmreq.c):
 *   - a line reader over plain or gzip-compressed files (zlib; a truncated
 *     gzip stream is an error, never a silently short trace);
 *   - field splitting and strict number parsing;
 *   - row diagnostics in one style, "FILE:LINE: field 'NAME'", plus a
 *     report of rows skipped (skip_bad_rows), rows left out by an
 *     importer's documented rule, and rows that had to be sorted;
 *   - a row engine (struct gs_rows) that turns an importer's row callback
 *     into a job stream: a first pass validates every row, counts and checks
 *     the arrival order; a sorted file is then streamed in a second pass in
 *     constant memory, an unsorted one is loaded and sorted stably by
 *     (arrival, line) -- memory proportional to its jobs -- and reported.
 *
 * zlib's gzFile stays inside tread.c. */
#ifndef GS_TREAD_H
#define GS_TREAD_H

#include "../sim/base/err.h"
#include "../sim/core/job.h"
#include "../sim/base/params.h"

#include <stdio.h>

struct gs_scenario;

/* --- lines ---------------------------------------------------------------- */

struct gs_tread;

/* Open path (plain text or gzip, told apart by content).  0 or a negative
 * code with d filled.  The reader owns its buffers; free with close. */
int gs_tread_open(const char *path, struct gs_tread **out, struct gs_diag *d);
/* The same for a file that is not a trace: a folder, device or FIFO is
 * refused as gs_fopen_regular words it, with what naming the file. */
int gs_tread_open_as(const char *path, const char *what,
                     struct gs_tread **out, struct gs_diag *d);
/* 1 with *line (NUL-terminated, without the line ending; valid until the
 * next call; the caller may modify it), 0 at the end, or a negative code
 * with d filled (read error, truncated gzip, a NUL byte). */
int gs_tread_line(struct gs_tread *t, char **line, struct gs_diag *d);
/* A line that is not UTF-8 is returned with each byte that begins no
 * UTF-8 character replaced by U+FFFD, and the first such line of a file
 * is reported on the trace log (gs_utf8_warn), once: names read from a
 * trace are then UTF-8, as --json and the result file need. */
/* Number of the line last returned (1 = first). */
long gs_tread_lineno(const struct gs_tread *t);
const char *gs_tread_path(const struct gs_tread *t);
/* Back to the first line.  0 or a negative code with d filled. */
int gs_tread_rewind(struct gs_tread *t, struct gs_diag *d);
void gs_tread_close(struct gs_tread *t);

/* A copy of s[0..len) with every byte that begins no UTF-8 character
 * replaced by U+FFFD (malloc'ed, NUL-terminated, its length in *outlen),
 * or NULL out of memory. */
char *gs_utf8_repair(const char *s, size_t len, size_t *outlen);
/* The warning for the first text of file path that is not UTF-8:
 * "gpusim: warning: WHERE: not UTF-8 (byte 0xNN); ... read as U+FFFD" on
 * the trace log, WHERE "PATH:LINE:COLUMN" or "PATH:LINE: field 'NAME'";
 * said once per file in gpusim and its workers (once.h).  1 when the trace
 * log was on (said now or before), 0 when it was off (say it next time). */
int gs_utf8_warn(const char *path, const char *where, unsigned char byte);

/* A tenant name read from a trace (a namespace, an account, a user) into
 * out, GS_TENANT_NAME bytes: one that does not fit keeps its start (whole
 * UTF-8 characters) and "~" and 8 hex digits of a hash of the whole name,
 * so two long names stay two tenants, and the first of file path is said
 * once on the trace log, at where. */
void gs_tenant_name(char *out, const char *name, const char *path,
                    const char *where);

/* --- fields and numbers ---------------------------------------------------- */

/* Split line in place.  delim ',' or '\t' separates fields (with ',' a field
 * may be double-quoted, "" standing for one quote); ' ' splits at runs of
 * blanks and ignores leading and trailing ones.  Stores up to max field
 * pointers in f and returns the number of fields found (which may exceed
 * max). */
int gs_tsplit(char *line, char delim, char **f, int max);

/* Strict parses of a whole field (surrounding blanks allowed): 0 or -1. */
int gs_tnum(const char *s, double *out);
int gs_tint(const char *s, long long lo, long long hi, long long *out);

/* --- rows, diagnostics, reports -------------------------------------------- */

/* One row as an importer's callback sees it. */
struct gs_trow {
    const char *path;
    long line;
    char **f;                   /* fields */
    int nf;
    const char *why;            /* out: reason a row is left out (return 0) */
    char field[48];             /* out: the field at fault (set by fail) */
    struct gs_diag *d;          /* out: the problem (set by fail) */
};

/* Record a bad row: d->where = "PATH:LINE: field 'NAME'" (or "PATH:LINE"
 * when field is NULL), d->what from fmt.  Returns GS_EPARSE. */
int gs_trow_fail(struct gs_trow *r, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define GS_TREASONS 8

struct gs_treason {
    char key[64];               /* field name, or the rule */
    char example[400];          /* the first occurrence's message */
    long first_line;
    long n;
};

struct gs_treport {
    long rows;                  /* data rows read */
    long items;                 /* rows turned into jobs / requests */
    long skipped;               /* bad rows skipped (skip_bad_rows) */
    long filtered;              /* rows left out by a documented rule */
    long unsorted;              /* rows whose arrival was before the previous */
    int sorted;                 /* 1 if the rows were loaded and sorted */
    int nbad, nfilt;
    struct gs_treason bad[GS_TREASONS], filt[GS_TREASONS];
};

void gs_treport_bad(struct gs_treport *rep, const struct gs_trow *r);
void gs_treport_filter(struct gs_treport *rep, const struct gs_trow *r);
/* Print what is worth telling (skips, rules, sorting) as "gpusim: PATH: ..."
 * lines; nothing when the file was clean and sorted. */
void gs_treport_print(FILE *fp, const char *path, const struct gs_treport *rep);

/* An error when every data row was bad and skipped (skip_bad_rows): an
 * empty workload is not what a run of a trace means.  GS_EPARSE with d
 * naming the file, the count and the first row's problem, else 0. */
int gs_treport_all_bad(const char *path, const struct gs_treport *rep,
                       struct gs_diag *d);

/* Where importers print their reports: stderr unless set (NULL = silent). */
FILE *gs_trace_log(void);
void gs_trace_set_log(FILE *fp);

/* --- the row engine ---------------------------------------------------------- */

struct gs_rows_ops {
    char delim;                 /* ',', '\t' or ' ' (blank-separated) */
    char comment;               /* a line starting with it is skipped; 0 none */
    int has_header;             /* the first data line is a header */
    /* Read the header (r->f, r->nf).  0 or GS_EPARSE via gs_trow_fail.
     * Called again before the second pass: must be repeatable. */
    int (*header)(void *st, struct gs_trow *r);
    /* Convert a row: 1 with *out, 0 to leave it out (set r->why), or
     * GS_EPARSE via gs_trow_fail.  Must depend only on the row and st. */
    int (*row)(void *st, struct gs_trow *r, struct gs_jobspec *out);
};

struct gs_rows;

/* Open path and run the first pass.  With skip_bad 0 the first bad row is
 * the error returned here; with 1 bad rows are counted and left out.  The
 * report is printed to gs_trace_log().  st (borrowed) is handed to the
 * callbacks and must outlive the reader. */
int gs_rows_open(const char *path, const struct gs_rows_ops *ops, void *st,
                 int skip_bad, struct gs_rows **out, struct gs_diag *d);
/* 1 with *out, 0 at the end, negative with d filled. */
int gs_rows_next(struct gs_rows *r, struct gs_jobspec *out, struct gs_diag *d);
const struct gs_treport *gs_rows_report(const struct gs_rows *r);
void gs_rows_close(struct gs_rows *r);

/* --- options shared by the trace formats ------------------------------------ */

/* A path option resolved against the scenario's folder (absolute paths and
 * an empty folder leave it as given) into *out, in memory the caller frees
 * (never cut to a buffer); one of PATH_MAX bytes or more, which no system
 * call opens, is refused naming the key.  *out = NULL and *found = 0 when
 * absent (or empty), unless required, which makes absence an error. */
int gs_topt_path(const struct gs_scenario *sc, struct gs_params *opts,
                 const char *key, int required, char **out, int *found,
                 struct gs_diag *d);
/* The option "skip_bad_rows" (true/false, default false). */
int gs_topt_skip(struct gs_params *opts, int *skip, struct gs_diag *d);
/* A tenant name option (at most GS_TENANT_NAME-1 characters). */
int gs_topt_tenant(struct gs_params *opts, const char *key, char *out,
                   struct gs_diag *d);

/* The file name of path without folder and without its last extension
 * (".gz" is dropped first), e.g. "a/b/0e4a51.trace" -> "0e4a51". */
void gs_tbasename(const char *path, char *out, size_t n);

#endif
