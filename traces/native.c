/* native.c -- read and write the native CSV trace format (see native.h).
 *
 * Reading streams: the file is fed to libcsv in 64 KiB chunks, and the rows
 * a chunk completes are converted and queued; gs_native_next() hands them
 * out one at a time, so memory does not grow with the trace.  libcsv's
 * parser type stays inside this file.
 *
 * Line numbers are the file's own: each chunk is fed to libcsv one line
 * (up to and with its '\n') at a time, and a row is numbered by the line
 * its first byte is on, so blank lines (which libcsv skips) and a quoted
 * field that spans lines leave the rows after them named at their lines. */
#include "native.h"
#include "../sim/base/suggest.h"
#include "tread.h"
#include "../sim/io/jsoncheck.h"
#include "../sim/base/membudget.h"
#include "../sim/base/path.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum col { C_ID, C_ARRIVAL, C_GPUS, C_DURATION, C_TENANT, C_TIER, C_MEM,
           C_REF, C_CB, C_EST, C_PRIO, C_PREEMPT, C_ALLOWED, C_MAXWAIT,
           C_DEADLINE, C_CKPT, C_PROFILE, C_MIG, C_DUTY, C_GUAR, C_BURST,
           C_CPU, C_HMEM, C_FAMILY, C_DEVMEM, C_COMM, NCOLS };

static const char *const colname[NCOLS] = {
    "id", "arrival", "gpus", "duration", "tenant", "tier", "memory_gb",
    "ref_gpu", "compute_bound", "estimate", "priority", "preemptible",
    "allowed_gpus", "max_wait", "deadline", "checkpoint", "idle_profile",
    "mig_profile", "duty_cycle", "gpu_guarantee", "gpu_burst", "cpu_milli",
    "mem_mib", "gpu_family", "gpu_mem_min_gib", "comm_share"
};

#define MAXF 32
#define FIELD 256

struct gs_native {
    FILE *fp;
    char *path;                 /* owned */
    int utf8_said;              /* a tenant that is not UTF-8 was reported */
    const struct gs_catalog *cat;
    struct csv_parser p;
    int map[MAXF];              /* column -> enum col, -1 = none */
    int ncols;
    int header_done;
    int bom_checked;
    long line;                  /* the line of the row last completed */
    long phys;                  /* '\n's fed to libcsv so far */
    long row_line;              /* the line the row in progress began on,
                                 * 0 between rows */
    char field[MAXF][FIELD];
    int nf;
    int overlong;
    struct gs_jobspec *q;       /* converted rows not yet handed out */
    long qn, qhead, qcap;
    gs_time last;
    long njobs;                 /* rows handed out */
    int eof, err;
    struct gs_diag d;
};

static void row_fail(struct gs_native *r, const char *col, const char *fmt,
                     const char *val)
{
    if (r->err)
        return;
    char *where = col ? gs_strf("%s:%ld: field '%s'", r->path, r->line, col)
                      : gs_strf("%s:%ld", r->path, r->line);
    r->err = GS_EPARSE;
    gs_diag_set_at(&r->d, GS_EPARSE, where, fmt, val);
}

static void on_field(void *s, size_t len, void *data)
{
    struct gs_native *r = data;
    if (r->nf < MAXF) {
        if (len >= FIELD) {
            r->overlong = 1;
            len = FIELD - 1;
        }
        memcpy(r->field[r->nf], s, len);
        r->field[r->nf][len] = '\0';
    }
    r->nf++;
}

/* Seconds (decimal) to ms; < 0 on error. */
static int parse_secs(const char *s, gs_time *out)
{
    double v;
    if (gs_tnum(s, &v) < 0 || v < 0 || v > 9.0e12)
        return -1;
    *out = (gs_time)llround(v * 1000.0);
    return 0;
}

static int parse_models(const struct gs_catalog *cat, const char *s,
                        uint64_t *mask, const char **bad)
{
    static char name[FIELD];
    *mask = 0;
    while (*s) {
        const char *bar = strchr(s, '|');
        size_t n = bar ? (size_t)(bar - s) : strlen(s);
        snprintf(name, sizeof name, "%.*s", (int)n, s);
        int m = gs_catalog_find(cat, name);
        if (m < 0) {
            *bad = name;
            return -1;
        }
        *mask |= 1ULL << m;
        s += n + (bar != NULL);
    }
    return 0;
}

/* "busy:idle[:busy:idle...]" in seconds (work on the reference model). */
static int parse_profile(const char *s, struct gs_jobspec *j)
{
    char buf[FIELD];
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *p = buf, *tok; (tok = strsep(&p, ":")) != NULL;) {
        gs_time t;
        if (n == GS_MAX_PHASES || parse_secs(tok, &t) < 0)
            return -1;
        j->phase[n++] = t;
    }
    if (n < 2 || n % 2 != 0)
        return -1;
    gs_time sum = 0;
    for (int i = 0; i < n; i++)
        sum += j->phase[i];
    if (sum <= 0)
        return -1;
    j->nphases = n;
    return 0;
}

/* The tenant column into j: a byte that begins no UTF-8 character is
 * read as U+FFFD (said once a file); too long is refused.  -1 after
 * row_fail. */
static int tenant(struct gs_native *r, const char *s, struct gs_jobspec *j)
{
    size_t len = strlen(s), bad = gs_utf8_bad(s, len);
    char *fixed = bad == SIZE_MAX ? NULL : gs_utf8_repair(s, len, &len);
    if (bad != SIZE_MAX && fixed == NULL) {
        row_fail(r, "tenant", "%s", "out of memory");
        return -1;
    }
    if (fixed && !r->utf8_said) {
        char *where = NULL;
        if (asprintf(&where, "%s:%ld: field 'tenant'", r->path, r->line) >= 0)
            r->utf8_said = gs_utf8_warn(r->path, where,
                                        (unsigned char)s[bad]);
        free(where);
    }
    int ok = len < GS_TENANT_NAME;
    if (ok)
        memcpy(j->tenant, fixed ? fixed : s, len + 1);
    else
        row_fail(r, "tenant", "'%s' is too long for a tenant name",
                 fixed ? fixed : s);
    free(fixed);
    return ok ? 0 : -1;
}

/* The optional columns of what a job asks for: tenant, tier, memory, CPU,
 * host memory, GPU family and memory, communication share, reference
 * model, compute-bound share.  Fails the row through row_fail. */
static void read_resources(struct gs_native *r, const char *const *v,
                           struct gs_jobspec *j)
{
    double x;
    if (v[C_TENANT] && v[C_TENANT][0] && tenant(r, v[C_TENANT], j) < 0)
        return;
    if (v[C_TIER] && v[C_TIER][0] && (j->tier = gs_tier_parse(v[C_TIER])) < 0)
        return row_fail(r, "tier", "unknown tier '%s' (inference, training, "
                        "interactive, data)", v[C_TIER]);
    if (v[C_MEM] && v[C_MEM][0] &&
        (gs_tnum(v[C_MEM], &j->mem_gb) < 0 || j->mem_gb < 0))
        return row_fail(r, "memory_gb", "'%s' is not a size in GB", v[C_MEM]);
    if (v[C_CPU] && v[C_CPU][0]) {
        if (gs_tnum(v[C_CPU], &x) < 0 || x < 0 || x > 2e9 || x != floor(x))
            return row_fail(r, "cpu_milli", "'%s' is not a CPU request in "
                            "milli-cores", v[C_CPU]);
        j->cpu_milli = (int32_t)x;
    }
    if (v[C_HMEM] && v[C_HMEM][0]) {
        if (gs_tnum(v[C_HMEM], &x) < 0 || x < 0 || x > 2e9 || x != floor(x))
            return row_fail(r, "mem_mib", "'%s' is not a host memory request "
                            "in MiB", v[C_HMEM]);
        j->mem_mib = (int32_t)x;
    }
    if (v[C_FAMILY] && v[C_FAMILY][0]) {
        if (strlen(v[C_FAMILY]) >= sizeof j->gpu_family)
            return row_fail(r, "gpu_family", "'%s' is too long", v[C_FAMILY]);
        if (!gs_gpu_family_known(r->cat, v[C_FAMILY]))
            return row_fail(r, "gpu_family", "'%s' names no GPU model of the "
                            "catalog (a family is the start of a model name, "
                            "as H100 for H100-80GB; '|' separates several)",
                            v[C_FAMILY]);
        snprintf(j->gpu_family, sizeof j->gpu_family, "%s", v[C_FAMILY]);
    }
    if (v[C_DEVMEM] && v[C_DEVMEM][0] &&
        (gs_tnum(v[C_DEVMEM], &j->gpu_mem_min) < 0 ||
         !(j->gpu_mem_min >= 0 && j->gpu_mem_min <= 1e6)))
        return row_fail(r, "gpu_mem_min_gib", "'%s' is not a memory size in "
                        "GiB", v[C_DEVMEM]);
    if (v[C_COMM] && v[C_COMM][0] &&
        (gs_tnum(v[C_COMM], &j->comm_share) < 0 ||
         !(j->comm_share >= 0 && j->comm_share <= 1)))
        return row_fail(r, "comm_share", "'%s' is not a share in [0, 1]",
                        v[C_COMM]);
    if (v[C_REF] && v[C_REF][0] &&
        (j->ref_model = gs_catalog_find(r->cat, v[C_REF])) < 0)
        return row_fail(r, "ref_gpu", "unknown GPU model '%s'", v[C_REF]);
    if (v[C_CB] && v[C_CB][0] &&
        (gs_tnum(v[C_CB], &j->cb) < 0 || j->cb < 0 || j->cb > 1))
        return row_fail(r, "compute_bound", "'%s' is not in [0, 1]", v[C_CB]);
}

/* The optional columns the scheduler reads: estimate, priority,
 * preemptible, allowed GPUs, maximum wait, deadline, checkpoint interval,
 * idle profile. */
static void read_scheduling(struct gs_native *r, const char *const *v,
                            struct gs_jobspec *j)
{
    double x;
    if (v[C_EST] && v[C_EST][0] && parse_secs(v[C_EST], &j->estimate) < 0)
        return row_fail(r, "estimate", "'%s' is not a duration", v[C_EST]);
    if (v[C_PRIO] && v[C_PRIO][0]) {
        if (gs_tnum(v[C_PRIO], &x) < 0 || x != floor(x) || fabs(x) > 1e6)
            return row_fail(r, "priority", "'%s' is not a whole number",
                            v[C_PRIO]);
        j->priority = (int)x;
    }
    if (v[C_PREEMPT] && v[C_PREEMPT][0]) {
        const char *p = v[C_PREEMPT];
        if (!strcmp(p, "1") || !strcasecmp(p, "true"))
            j->preemptible = 1;
        else if (!strcmp(p, "0") || !strcasecmp(p, "false"))
            j->preemptible = 0;
        else
            return row_fail(r, "preemptible", "'%s' is not 0/1/true/false", p);
    }
    if (v[C_ALLOWED] && v[C_ALLOWED][0]) {
        const char *bad = "";
        if (parse_models(r->cat, v[C_ALLOWED], &j->allowed, &bad) < 0)
            return row_fail(r, "allowed_gpus", "unknown GPU model '%s'", bad);
    }
    if (v[C_MAXWAIT] && v[C_MAXWAIT][0] &&
        parse_secs(v[C_MAXWAIT], &j->max_wait) < 0)
        return row_fail(r, "max_wait", "'%s' is not a duration", v[C_MAXWAIT]);
    if (v[C_DEADLINE] && v[C_DEADLINE][0] &&
        parse_secs(v[C_DEADLINE], &j->deadline) < 0)
        return row_fail(r, "deadline", "'%s' is not a duration", v[C_DEADLINE]);
    if (v[C_CKPT] && v[C_CKPT][0] && parse_secs(v[C_CKPT], &j->ckpt) < 0)
        return row_fail(r, "checkpoint", "'%s' is not a duration", v[C_CKPT]);
    if (v[C_PROFILE] && v[C_PROFILE][0] && parse_profile(v[C_PROFILE], j) < 0)
        return row_fail(r, "idle_profile", "'%s' is not a profile: busy and "
                        "idle seconds alternating, busy first, 1 to 4 pairs "
                        "(\"600:3600\")", v[C_PROFILE]);
}

/* The optional columns of GPU sharing: a MIG profile, a duty cycle, a
 * guaranteed fraction and a burst limit (jobs of at most one GPU). */
static void read_sharing(struct gs_native *r, const char *const *v,
                         struct gs_jobspec *j)
{
    if (v[C_MIG] && v[C_MIG][0]) {
        if (strlen(v[C_MIG]) >= sizeof j->mig_profile)
            return row_fail(r, "mig_profile", "'%s' is too long", v[C_MIG]);
        if (j->gpus > 1)
            return row_fail(r, "mig_profile", "'%s' with more than one GPU "
                            "(a job takes one MIG instance)", v[C_MIG]);
        snprintf(j->mig_profile, sizeof j->mig_profile, "%s", v[C_MIG]);
    }
    if (v[C_DUTY] && v[C_DUTY][0] &&
        (gs_tnum(v[C_DUTY], &j->duty) < 0 || !(j->duty > 0 && j->duty <= 1)))
        return row_fail(r, "duty_cycle", "'%s' is not in (0, 1]", v[C_DUTY]);
    double g = 0, b = 0;
    if (v[C_GUAR] && v[C_GUAR][0] &&
        (gs_tnum(v[C_GUAR], &g) < 0 || !(g >= 0.001 && g <= 1)))
        return row_fail(r, "gpu_guarantee", "'%s' is not a GPU fraction in "
                        "[0.001, 1]", v[C_GUAR]);
    if (v[C_BURST] && v[C_BURST][0] &&
        (gs_tnum(v[C_BURST], &b) < 0 || !(b >= 0.001 && b <= 1)))
        return row_fail(r, "gpu_burst", "'%s' is not a GPU fraction in "
                        "[0.001, 1]", v[C_BURST]);
    j->guar_milli = (int)lround(g * 1000);
    j->burst_milli = (int)lround(b * 1000);
    if (j->burst_milli > 0 && j->burst_milli < j->guar_milli)
        return row_fail(r, "gpu_burst", "'%s' is below gpu_guarantee",
                        v[C_BURST]);
    if ((j->guar_milli || j->burst_milli) && j->gpus > 1)
        return row_fail(r, "gpu_guarantee", "%s", "a guaranteed fraction or "
                        "burst limit is for jobs of at most one GPU");
}

static void convert_row(struct gs_native *r)
{
    struct gs_jobspec j;
    gs_jobspec_init(&j);
    j.line = r->line;
    const char *v[NCOLS] = { 0 };
    for (int i = 0; i < r->ncols; i++)
        if (r->map[i] >= 0)
            v[r->map[i]] = r->field[i];
    double x;
    gs_time t;
    if (gs_tnum(v[C_ID], &x) < 0 || x != floor(x) || fabs(x) > 9.0e15)
        return row_fail(r, "id", "'%s' is not a whole number", v[C_ID]);
    j.id = (int64_t)x;
    if (parse_secs(v[C_ARRIVAL], &j.arrival) < 0)
        return row_fail(r, "arrival", "'%s' is not a time in seconds >= 0",
                        v[C_ARRIVAL]);
    if (gs_tnum(v[C_GPUS], &x) < 0 || x < 0 || x > 1e6 ||
        (x > 1 && x != floor(x)) || (x > 0 && x < 0.001))
        return row_fail(r, "gpus", "'%s' is not a GPU count (0, a fraction "
                        "in (0,1], or a whole number)", v[C_GPUS]);
    if (x >= 1) {
        j.gpus = (int)x;
    } else {
        j.milli = (int)lround(x * 1000);
    }
    if (parse_secs(v[C_DURATION], &t) < 0)
        return row_fail(r, "duration", "'%s' is not a duration in seconds",
                        v[C_DURATION]);
    j.work = (double)(t > 0 ? t : 1);
    read_resources(r, v, &j);
    if (!r->err)
        read_scheduling(r, v, &j);
    if (!r->err)
        read_sharing(r, v, &j);
    if (r->err)
        return;
    if (j.arrival < r->last) {
        char msg[160];
        snprintf(msg, sizeof msg, "%.3f s is before the previous row's "
                 "%.3f s (rows must be sorted by arrival)",
                 (double)j.arrival / 1000.0, (double)r->last / 1000.0);
        return row_fail(r, "arrival", "%s", msg);
    }
    r->last = j.arrival;
    if (r->qn == r->qcap) {
        long cap = r->qcap ? r->qcap * 2 : 256;
        struct gs_jobspec *q = realloc(r->q, (size_t)cap * sizeof *q);
        if (q == NULL) {
            r->err = GS_ENOMEM;
            gs_diag_set(&r->d, GS_ENOMEM, r->path, "out of memory");
            return;
        }
        r->q = q;
        r->qcap = cap;
    }
    r->q[r->qn++] = j;
}

static void on_row(int c, void *data)
{
    struct gs_native *r = data;
    (void)c;
    /* a row begun without a '\n' before it (CR-only line ends): this line */
    r->line = r->row_line ? r->row_line : r->phys + 1;
    r->row_line = 0;
    int nf = r->nf;
    r->nf = 0;
    if (r->err)
        return;
    if (r->overlong) {
        r->overlong = 0;
        return row_fail(r, NULL, "%s", "a field is longer than 255 characters");
    }
    if (!r->header_done) {
        if (nf > MAXF)
            return row_fail(r, NULL, "%s", "too many columns in the header");
        r->ncols = nf;
        int seen[NCOLS] = { 0 };
        for (int i = 0; i < nf; i++) {
            r->map[i] = -1;
            for (int k = 0; k < NCOLS; k++)
                if (strcmp(r->field[i], colname[k]) == 0)
                    r->map[i] = k;
            if (r->map[i] < 0) {
                const char *cands[NCOLS + 1];
                char hint[128], what[300];
                for (int k = 0; k < NCOLS; k++)
                    cands[k] = colname[k];
                cands[NCOLS] = NULL;
                gs_suggest_fmt(r->field[i], cands, hint, sizeof hint);
                snprintf(what, sizeof what, "unknown column '%%s' in the "
                         "header%s (see the README's native trace format)",
                         hint);
                return row_fail(r, NULL, what, r->field[i]);
            }
            if (seen[r->map[i]]++)
                return row_fail(r, NULL, "column '%s' appears twice",
                                r->field[i]);
        }
        for (int k = 0; k < 4; k++)
            if (!seen[k])
                return row_fail(r, NULL, "the header lacks the required "
                                "column '%s'", colname[k]);
        r->header_done = 1;
        return;
    }
    if (nf == 1 && r->field[0][0] == '\0')
        return;     /* a blank line */
    if (nf != r->ncols) {
        char msg[96];
        snprintf(msg, sizeof msg, "%d fields where the header has %d", nf,
                 r->ncols);
        return row_fail(r, NULL, "%s", msg);
    }
    convert_row(r);
}

/* Lines in the open file fp, which is rewound: an upper bound on the jobs
 * it holds, counted in constant memory before any is read; up to a NUL
 * byte (no text: the reader stops there, so a sparse file is not read). */
static long count_lines(FILE *fp)
{
    char buf[65536];
    long n = 0;
    size_t got;
    int last = '\n';
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0 &&
           memchr(buf, '\0', got) == NULL) {
        for (const char *p = buf, *e = buf + got;
             (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
            n++;
        last = buf[got - 1];
    }
    rewind(fp);
    return n + (last != '\n');
}

int gs_native_open(const char *path, const struct gs_catalog *cat,
                   struct gs_native **out, struct gs_diag *d)
{
    *out = NULL;
    struct gs_native *r = calloc(1, sizeof *r);
    if (r == NULL || (r->path = strdup(path)) == NULL) {
        free(r);
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    r->cat = cat;
    if (csv_init(&r->p, CSV_APPEND_NULL) != 0) {
        free(r->path);
        free(r);
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    int rc = gs_fopen_regular(path, "a trace", 0, &r->fp, d);
    /* the simulation keeps a record of each job: refuse a trace whose rows
     * would not fit before reading them (the file is streamed) */
    if (rc == 0)
        rc = gs_mem_check_items((uint64_t)count_lines(r->fp), GS_MEM_PER_JOB,
                                "trace jobs (lines)", path, d);
    if (rc < 0) {
        if (r->fp)
            fclose(r->fp);
        csv_free(&r->p);
        free(r->path);
        free(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* Feed buf[0, n) to libcsv a line at a time, noting where rows begin.
 * 0, or -1 when libcsv refused it (r->err is then set). */
static int feed(struct gs_native *r, const char *buf, size_t n)
{
    for (size_t at = 0; at < n && !r->err;) {
        const char *nl = memchr(buf + at, '\n', n - at);
        size_t len = nl ? (size_t)(nl - (buf + at)) + 1 : n - at;
        if (r->row_line == 0) {         /* libcsv skips blank lines */
            for (size_t i = at; i < at + len; i++)
                if (!strchr(" \t\r\n", buf[i])) {
                    r->row_line = r->phys + 1;
                    break;
                }
        }
        if (csv_parse(&r->p, buf + at, len, on_field, on_row, r) != len) {
            r->err = GS_EPARSE;
            gs_diag_set_line(&r->d, GS_EPARSE, r->path, r->phys + 1, "%s",
                             csv_strerror(csv_error(&r->p)));
            return -1;
        }
        if (nl)
            r->phys++;
        at += len;
    }
    return 0;
}

/* Parse chunks until a row is queued, the file ends, or an error. */
static int fill(struct gs_native *r)
{
    char buf[65536];
    r->qn = r->qhead = 0;
    while (r->qn == 0 && !r->eof && !r->err) {
        size_t n = fread(buf, 1, sizeof buf, r->fp), skip = 0;
        const char *nul = memchr(buf, '\0', n);
        if (nul) {                      /* a binary or sparse file: at once */
            long ln = r->phys + 1;
            for (const char *q = buf; (q = memchr(q, '\n', (size_t)(nul - q)));
                 q++)
                ln++;
            r->err = GS_EPARSE;
            gs_diag_set_line(&r->d, GS_EPARSE, r->path, ln,
                             "not a text file (NUL byte)");
            break;
        }
        /* A UTF-8 byte-order mark (spreadsheets write one) is not data. */
        if (!r->bom_checked) {
            r->bom_checked = 1;
            if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
                skip = 3;
        }
        if (n > skip)
            feed(r, buf + skip, n - skip);
        if (n < sizeof buf) {
            if (ferror(r->fp)) {
                r->err = GS_EIO;
                gs_diag_set(&r->d, GS_EIO, r->path, "read error");
            }
            r->eof = 1;
            if (!r->err)
                csv_fini(&r->p, on_field, on_row, r);
        }
    }
    return r->err;
}

int gs_native_next(struct gs_native *r, struct gs_jobspec *out,
                   struct gs_diag *d)
{
    if (r->qhead == r->qn) {
        if (r->eof && !r->err) {
            if (!r->header_done || r->njobs == 0) {
                char *where;
                where = gs_strf("%s:1", r->path);
                return gs_diag_set_at(d, GS_EPARSE, where, !r->header_done
                                      ? "empty trace: no header row"
                                      : "empty trace: no job rows");
            }
            return 0;
        }
        fill(r);
    }
    /* Rows converted before an error in the same chunk are still valid,
     * but a run must not go on past a bad row: report it now. */
    if (r->err) {
        gs_diag_set(d, r->d.code, r->d.where, "%s", r->d.what);
        return r->err;
    }
    if (r->qhead == r->qn)
        return gs_native_next(r, out, d);
    *out = r->q[r->qhead++];
    r->njobs++;
    return 1;
}

void gs_native_close(struct gs_native *r)
{
    if (r == NULL)
        return;
    csv_free(&r->p);
    if (r->fp)
        fclose(r->fp);
    free(r->q);
    free(r->path);
    gs_diag_free(&r->d);
    free(r);
}

void gs_native_write_header(FILE *fp)
{
    fputs("id,arrival,gpus,duration,tenant,tier,memory_gb,ref_gpu,"
          "compute_bound,estimate,priority,preemptible,allowed_gpus,"
          "max_wait,deadline,checkpoint,idle_profile,mig_profile,duty_cycle,"
          "gpu_guarantee,gpu_burst,cpu_milli,mem_mib,gpu_family,"
          "gpu_mem_min_gib,comm_share\n", fp);
}

/* The shortest decimal that reads back as exactly v (0.3, not
 * 0.29999999999999999): cheaper to parse, and what a person would write. */
static void put_double(FILE *fp, double v)
{
    char buf[32];
    for (int prec = 6; prec < 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) {
            fputs(buf, fp);
            return;
        }
    }
    fprintf(fp, "%.17g", v);
}

static void put_secs(FILE *fp, gs_time t)
{
    fprintf(fp, "%" PRId64 ".%03d", t / 1000, (int)(t % 1000));
}

void gs_native_write_row(FILE *fp, const struct gs_jobspec *j,
                         const struct gs_catalog *cat)
{
    fprintf(fp, "%" PRId64 ",", j->id);
    put_secs(fp, j->arrival);
    if (j->gpus > 0)
        fprintf(fp, ",%d,", j->gpus);
    else
        fprintf(fp, ",%d.%03d,", j->milli / 1000, j->milli % 1000);
    put_secs(fp, (gs_time)llround(j->work));
    fprintf(fp, ",%s,%s,", j->tenant, gs_tier_name(j->tier));
    if (j->mem_gb > 0)
        put_double(fp, j->mem_gb);
    fprintf(fp, ",%s,", j->ref_model >= 0 ? cat->m[j->ref_model].name : "");
    put_double(fp, j->cb);
    fputc(',', fp);
    if (j->estimate > 0)
        put_secs(fp, j->estimate);
    fputc(',', fp);
    if (j->priority != INT_MIN)
        fprintf(fp, "%d", j->priority);
    fprintf(fp, ",%s,", j->preemptible < 0 ? "" : j->preemptible ? "1" : "0");
    int first = 1;
    for (int m = 0; m < cat->n; m++)
        if (j->allowed & (1ULL << m)) {
            fprintf(fp, "%s%s", first ? "" : "|", cat->m[m].name);
            first = 0;
        }
    fputc(',', fp);
    if (j->max_wait >= 0)
        put_secs(fp, j->max_wait);
    fputc(',', fp);
    if (j->deadline > 0)
        put_secs(fp, j->deadline);
    fputc(',', fp);
    if (j->ckpt > 0)
        put_secs(fp, j->ckpt);
    fputc(',', fp);
    for (int i = 0; i < j->nphases; i++) {
        if (i)
            fputc(':', fp);
        put_secs(fp, j->phase[i]);
    }
    fprintf(fp, ",%s,", j->mig_profile);
    if (j->duty > 0)
        put_double(fp, j->duty);
    fputc(',', fp);
    if (j->guar_milli > 0)
        fprintf(fp, "%d.%03d", j->guar_milli / 1000, j->guar_milli % 1000);
    fputc(',', fp);
    if (j->burst_milli > 0)
        fprintf(fp, "%d.%03d", j->burst_milli / 1000, j->burst_milli % 1000);
    fputc(',', fp);
    if (j->cpu_milli > 0)
        fprintf(fp, "%d", (int)j->cpu_milli);
    fputc(',', fp);
    if (j->mem_mib > 0)
        fprintf(fp, "%d", (int)j->mem_mib);
    fprintf(fp, ",%s,", j->gpu_family);
    if (j->gpu_mem_min > 0)
        put_double(fp, j->gpu_mem_min);
    fputc(',', fp);
    if (j->comm_share >= 0)
        put_double(fp, j->comm_share);
    fputc('\n', fp);
}
