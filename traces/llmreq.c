/* llmreq.c -- read, validate and write LLM request tables (see llmreq.h).
 *
 * Sources: Azure LLM inference trace 2023 (Azure/AzurePublicDataset,
 * CC-BY-4.0; the Splitwise paper, ISCA'24), Mooncake's request traces
 * (kvcache-ai/Mooncake, FAST'25; hash_ids name 512-token prefix blocks),
 * splitwise-sim's request CSV (Mutinifni/splitwise-sim).
 *
 * A table is loaded whole: it is what the inference model replays, and its
 * memory is proportional to its requests (40 bytes each plus 8 per prefix
 * block).  Rows are read through tread.c (plain or gzip), each checked field
 * by field; a bad row is an error naming file, line and field, or with
 * skip_bad a counted skip.  Rows out of arrival order are sorted by
 * (arrival, line), a stable order, and the count is reported.
 *
 * Azure timestamps are wall-clock times with 100 ns digits; they are read
 * as UTC (the trace gives no zone), rounded to the millisecond, and made
 * relative to the earliest request.  Mooncake's timestamps are already ms
 * from the trace start; splitwise's are seconds.
 *
 * Mooncake lines are JSON, read with jsonio.h's helpers (a line is one
 * value; a syntax error is reported at its column).  Keys other than the
 * four are ignored, so the conversation and tool-agent traces read too. */
#include "llmreq.h"

#include "../sim/base/membudget.h"
#include "../sim/io/jsonio.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const gs_request_formats[] = {
    "azure-llm", "mooncake", "splitwise", "requests", NULL
};

enum { F_AZURE, F_MOONCAKE, F_SPLITWISE, F_NATIVE };

int gs_request_format_known(const char *name)
{
    for (int i = 0; gs_request_formats[i]; i++)
        if (strcmp(gs_request_formats[i], name) == 0)
            return 1;
    return 0;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int gs_parse_datetime_ms(const char *s, int64_t *ms)
{
    int y, mo, d, h, mi, sec, n = 0;
    while (*s == ' ')
        s++;
    if (sscanf(s, "%4d-%2d-%2d%*[ T]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec,
               &n) != 6 || n < 19)
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
        sec > 60 || h < 0 || mi < 0 || sec < 0)
        return -1;
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30,
                                 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap))
        return -1;
    const char *p = s + n;
    double frac = 0;
    if (*p == '.') {
        double scale = 0.1;
        p++;
        if (*p < '0' || *p > '9')
            return -1;
        while (*p >= '0' && *p <= '9') {
            frac += (*p - '0') * scale;
            scale /= 10;
            p++;
        }
    }
    while (*p == ' ')
        p++;
    if (*p != '\0')
        return -1;
    int64_t days = days_from_civil(y, mo, d);
    int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec;
    *ms = secs * 1000 + (int64_t)llround(frac * 1000.0);
    return 0;
}

/* --- building the table -------------------------------------------------------- */

static int push(struct gs_reqtable *t, const struct gs_request *q,
                const int64_t *blocks, struct gs_diag *d)
{
    if (t->n == t->cap) {
        long cap = t->cap ? t->cap * 2 : 1024;
        /* checked as it grows: the table, then the service's record of
         * each request */
        int rc = gs_mem_check_items((uint64_t)cap, sizeof *t->r +
                                    GS_MEM_PER_REQUEST, "trace requests",
                                    t->path, d);
        if (rc < 0)
            return rc;
        struct gs_request *nr = realloc(t->r, (size_t)cap * sizeof *nr);
        if (nr == NULL)
            return gs_diag_set(d, GS_ENOMEM, t->path, "out of memory");
        t->r = nr;
        t->cap = cap;
    }
    if (t->nblocks + q->nblocks > t->capb) {
        uint64_t cap = t->capb ? t->capb : 4096;
        while (cap < t->nblocks + q->nblocks)
            cap *= 2;
        int64_t *nb = realloc(t->blocks, (size_t)cap * sizeof *nb);
        if (nb == NULL)
            return gs_diag_set(d, GS_ENOMEM, t->path, "out of memory");
        t->blocks = nb;
        t->capb = cap;
    }
    struct gs_request *r = &t->r[t->n++];
    *r = *q;
    r->block0 = t->nblocks;
    if (q->nblocks)
        memcpy(t->blocks + t->nblocks, blocks, q->nblocks * sizeof *blocks);
    t->nblocks += q->nblocks;
    return 0;
}

static int tokens(struct gs_trow *r, const char *field, const char *s,
                  int32_t *out)
{
    long long v;
    if (gs_tint(s, 0, 100000000, &v) < 0)
        return gs_trow_fail(r, field, "'%s' is not a token count (a whole "
                            "number from 0 to 100000000)", s);
    *out = (int32_t)v;
    return 0;
}

static int secs_field(struct gs_trow *r, const char *field, const char *s,
                      int64_t *ms)
{
    double v;
    if (gs_tnum(s, &v) < 0 || v < 0 || v > 9.0e12)
        return gs_trow_fail(r, field, "'%s' is not a time in seconds >= 0", s);
    *ms = (int64_t)llround(v * 1000.0);
    return 0;
}

/* Column lookup for the CSV formats. */
struct cols {
    int n;
    const char *const *names;
    int idx[8];
    int ncols;
};

static int header(struct cols *c, struct gs_trow *r, const char *what)
{
    for (int k = 0; k < c->n; k++)
        c->idx[k] = -1;
    for (int i = 0; i < r->nf; i++)
        for (int k = 0; k < c->n; k++)
            if (strcmp(r->f[i], c->names[k]) == 0)
                c->idx[k] = i;
    for (int k = 0; k < c->n; k++)
        if (c->idx[k] < 0)
            return gs_trow_fail(r, NULL, "the header lacks the column '%s' "
                                "(%s)", c->names[k], what);
    c->ncols = r->nf;
    return 0;
}

static const char *const azure_cols[] = { "TIMESTAMP", "ContextTokens",
                                          "GeneratedTokens" };
static const char *const split_cols[] = { "request_id", "arrival_timestamp",
                                          "prompt_size", "token_size" };
static const char *const native_cols[] = { "id", "arrival", "input_tokens",
                                           "output_tokens", "prefix_blocks" };

/* Block ids separated by '|' into the scratch array. */
static int parse_blocks(struct gs_trow *r, const char *field, char *s,
                        int64_t **buf, size_t *cap, uint32_t *n)
{
    *n = 0;
    if (*s == '\0')
        return 0;
    for (char *p = s, *bar; p; p = bar) {
        bar = strchr(p, '|');
        if (bar)
            *bar++ = '\0';
        long long v;
        if (gs_tint(p, 0, INT64_MAX, &v) < 0)
            return gs_trow_fail(r, field, "'%s' is not a block id (a whole "
                                "number >= 0)", p);
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            int64_t *nb = realloc(*buf, nc * sizeof *nb);
            if (nb == NULL)
                return gs_diag_set(r->d, GS_ENOMEM, r->path, "out of memory");
            *buf = nb;
            *cap = nc;
        }
        (*buf)[(*n)++] = v;
    }
    return 0;
}

/* A whole number of tokens or a time: v a number in [0, hi] (whole when
 * whole is set). */
static int count_ok(const struct gs_json *v, double hi, int whole)
{
    double x = gs_json_number(v);
    return x >= 0 && x <= hi && (!whole || x == floor(x));
}

static int mooncake_row(struct gs_trow *r, char *line, struct gs_request *q,
                        int64_t **buf, size_t *cap)
{
    struct gs_json *o;
    long col;
    int rc = gs_json_parse_line(line, &o, &col);
    if (rc == GS_ENOMEM)
        return gs_diag_set(r->d, GS_ENOMEM, r->path, "out of memory");
    if (rc < 0)
        return gs_trow_fail(r, NULL, "malformed JSON at column %ld", col);
    const struct gs_json *ts = gs_json_get(o, "timestamp");
    const struct gs_json *in = gs_json_get(o, "input_length");
    const struct gs_json *out = gs_json_get(o, "output_length");
    const struct gs_json *h = gs_json_get(o, "hash_ids");
    if (!gs_json_is_object(o))
        rc = gs_trow_fail(r, NULL, "expected a JSON object");
    else if (!count_ok(ts, 9.0e15, 0))
        rc = gs_trow_fail(r, "timestamp", "%s", ts ? "expected a time in ms "
                          ">= 0" : "missing");
    else if (!count_ok(in, 1e8, 1))
        rc = gs_trow_fail(r, "input_length", "%s", in ? "expected a token "
                          "count (a whole number from 0 to 100000000)" :
                          "missing");
    else if (!count_ok(out, 1e8, 1))
        rc = gs_trow_fail(r, "output_length", "%s", out ? "expected a token "
                          "count (a whole number from 0 to 100000000)" :
                          "missing");
    else if (h != NULL && !gs_json_is_array(h))
        rc = gs_trow_fail(r, "hash_ids", "expected an array of block ids");
    if (rc < 0) {
        gs_json_free(o);
        return rc;
    }
    q->arrival = (gs_time)llround(gs_json_number(ts));
    q->input_tokens = (int32_t)gs_json_number(in);
    q->output_tokens = (int32_t)gs_json_number(out);
    q->nblocks = 0;
    int k = 0;
    for (const struct gs_json *e = gs_json_first(h); e;
         e = gs_json_next(e), k++) {
        if (!count_ok(e, 9.0e15, 1)) {
            rc = gs_trow_fail(r, "hash_ids", "element %d is not a block id "
                              "(a whole number >= 0)", k);
            break;
        }
        if (q->nblocks == *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            int64_t *nb = realloc(*buf, nc * sizeof *nb);
            if (nb == NULL) {
                rc = gs_diag_set(r->d, GS_ENOMEM, r->path, "out of memory");
                break;
            }
            *buf = nb;
            *cap = nc;
        }
        (*buf)[q->nblocks++] = (int64_t)gs_json_number(e);
    }
    gs_json_free(o);
    return rc;
}

static int cmp_req(const void *a, const void *b)
{
    const struct gs_request *x = a, *y = b;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

int gs_reqtable_load(const char *format, const char *path, int skip_bad,
                     struct gs_reqtable **out, struct gs_diag *d)
{
    *out = NULL;
    int fmt = -1;
    for (int i = 0; gs_request_formats[i]; i++)
        if (strcmp(gs_request_formats[i], format) == 0)
            fmt = i;
    if (fmt < 0)
        return gs_diag_set(d, GS_ENOTFOUND, path, "unknown request format "
                           "'%s' (known: azure-llm, mooncake, splitwise, "
                           "requests)", format);
    struct gs_reqtable *t = calloc(1, sizeof *t);
    if (t == NULL || (t->path = strdup(path)) == NULL) {
        free(t);
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    snprintf(t->format, sizeof t->format, "%s", format);
    struct gs_tread *rd = NULL;
    int rc = gs_tread_open(path, &rd, d);
    struct cols c = { 0 };
    if (fmt == F_AZURE)
        c = (struct cols){ 3, azure_cols, { 0 }, 0 };
    else if (fmt == F_SPLITWISE)
        c = (struct cols){ 4, split_cols, { 0 }, 0 };
    else if (fmt == F_NATIVE)
        c = (struct cols){ 5, native_cols, { 0 }, 0 };
    int need_header = fmt != F_MOONCAKE, got_header = 0;
    int64_t *bbuf = NULL, minabs = INT64_MAX;
    size_t bcap = 0;
    char *line, *f[64];
    while (rc == 0 && (rc = gs_tread_line(rd, &line, d)) == 1) {
        rc = 0;
        if (line[strspn(line, " \t")] == '\0')
            continue;
        struct gs_diag rdg = { 0 };
        struct gs_trow r = { .path = path, .line = gs_tread_lineno(rd),
                             .f = f, .d = &rdg };
        struct gs_request q = { .line = r.line };
        int bad = 0;
        if (fmt != F_MOONCAKE) {
            r.nf = gs_tsplit(line, ',', f, 64);
            if (r.nf > 64) {
                rc = gs_trow_fail(&r, NULL, "too many fields (%d)", r.nf);
                gs_diag_move(d, &rdg);
                break;
            }
            if (need_header && !got_header) {
                if ((rc = header(&c, &r, fmt == F_AZURE
                                 ? "TIMESTAMP,ContextTokens,GeneratedTokens"
                                 : fmt == F_SPLITWISE ? "a splitwise-sim "
                                 "request trace" : "id,arrival,input_tokens,"
                                 "output_tokens,prefix_blocks")) < 0) {
                    gs_diag_move(d, &rdg);
                    break;
                }
                got_header = 1;
                continue;
            }
        }
        t->rep.rows++;
        if (fmt != F_MOONCAKE && r.nf != c.ncols) {
            bad = gs_trow_fail(&r, NULL, "%d fields where the header has %d",
                               r.nf, c.ncols);
        } else if (fmt == F_AZURE) {
            int64_t ms;
            const char *ts = f[c.idx[0]];
            if (gs_parse_datetime_ms(ts, &ms) < 0)
                bad = gs_trow_fail(&r, "TIMESTAMP", "'%s' is not a time "
                                   "YYYY-MM-DD HH:MM:SS[.fraction]", ts);
            else if ((bad = tokens(&r, "ContextTokens", f[c.idx[1]],
                                   &q.input_tokens)) == 0)
                bad = tokens(&r, "GeneratedTokens", f[c.idx[2]],
                             &q.output_tokens);
            q.arrival = ms;
            q.id = t->rep.items + 1;
        } else if (fmt == F_SPLITWISE) {
            long long id;
            if (gs_tint(f[c.idx[0]], 0, INT64_MAX, &id) < 0)
                bad = gs_trow_fail(&r, "request_id", "'%s' is not a whole "
                                   "number >= 0", f[c.idx[0]]);
            else if ((bad = secs_field(&r, "arrival_timestamp", f[c.idx[1]],
                                       &q.arrival)) == 0 &&
                     (bad = tokens(&r, "prompt_size", f[c.idx[2]],
                                   &q.input_tokens)) == 0)
                bad = tokens(&r, "token_size", f[c.idx[3]], &q.output_tokens);
            q.id = id;
        } else if (fmt == F_NATIVE) {
            long long id;
            if (gs_tint(f[c.idx[0]], INT64_MIN, INT64_MAX, &id) < 0)
                bad = gs_trow_fail(&r, "id", "'%s' is not a whole number",
                                   f[c.idx[0]]);
            else if ((bad = secs_field(&r, "arrival", f[c.idx[1]],
                                       &q.arrival)) == 0 &&
                     (bad = tokens(&r, "input_tokens", f[c.idx[2]],
                                   &q.input_tokens)) == 0 &&
                     (bad = tokens(&r, "output_tokens", f[c.idx[3]],
                                   &q.output_tokens)) == 0)
                bad = parse_blocks(&r, "prefix_blocks", f[c.idx[4]], &bbuf,
                                   &bcap, &q.nblocks);
            q.id = id;
        } else {
            bad = mooncake_row(&r, line, &q, &bbuf, &bcap);
            q.id = t->rep.items + 1;
        }
        if (bad < 0) {
            if (bad == GS_ENOMEM || !skip_bad) {
                gs_diag_move(d, &rdg);
                rc = bad;
                break;
            }
            gs_treport_bad(&t->rep, &r);
            gs_diag_free(&rdg);
            continue;
        }
        if (t->n > 0 && q.arrival < t->r[t->n - 1].arrival)
            t->rep.unsorted++;
        if (q.arrival < minabs)
            minabs = q.arrival;
        if ((rc = push(t, &q, bbuf, d)) < 0)
            break;
        t->rep.items++;
    }
    free(bbuf);
    gs_tread_close(rd);
    if (rc == 0 && need_header && !got_header) {
        char *where;
        where = gs_strf("%s:1", path);
        rc = gs_diag_set_at(d, GS_EPARSE, where, "empty trace: no header row");
    }
    if (rc == 0)
        rc = gs_treport_all_bad(path, &t->rep, d);
    if (rc < 0) {
        gs_reqtable_free(t);
        return rc;
    }
    if (fmt == F_AZURE && t->n > 0) {
        t->origin_ms = minabs;
        for (long i = 0; i < t->n; i++)
            t->r[i].arrival -= minabs;
    }
    if (t->rep.unsorted > 0) {
        if (t->n > 1)   /* qsort's base may not be NULL, even for 0 */
            qsort(t->r, (size_t)t->n, sizeof *t->r, cmp_req);
        t->rep.sorted = 1;
    }
    gs_treport_print(gs_trace_log(), path, &t->rep);
    *out = t;
    return 0;
}

void gs_reqtable_free(struct gs_reqtable *t)
{
    if (t == NULL)
        return;
    free(t->r);
    free(t->blocks);
    free(t->path);
    free(t);
}

void gs_reqtable_write(FILE *fp, const struct gs_reqtable *t)
{
    fputs("id,arrival,input_tokens,output_tokens,prefix_blocks\n", fp);
    for (long i = 0; i < t->n; i++) {
        const struct gs_request *r = &t->r[i];
        fprintf(fp, "%" PRId64 ",%" PRId64 ".%03d,%d,%d,", r->id,
                r->arrival / 1000, (int)(r->arrival % 1000), r->input_tokens,
                r->output_tokens);
        const int64_t *b = gs_request_blocks(t, r);
        for (uint32_t k = 0; k < r->nblocks; k++)
            fprintf(fp, "%s%" PRId64, k ? "|" : "", b[k]);
        fputc('\n', fp);
    }
}
