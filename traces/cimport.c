/* cimport.c -- bounded reads, timestamps, GPU names and job lists for the
 * cluster importers (cimport.h).
 *
 * Dates are turned into days by Howard Hinnant's days_from_civil (the
 * proleptic Gregorian calendar, exact for every year gpusim will meet),
 * never by the C library's mktime in the process's own zone, so an import
 * gives the same times on every machine.  A named zone is the one place
 * the C library is asked: TZ is set to the name for the conversion and put
 * back, and the offset mktime finds is applied (a local time that occurs
 * twice when clocks go back takes the first, as Slurm writes it). */
#include "cimport.h"
#include "tread.h"

#include "../sim/base/membudget.h"
#include "../sim/base/params.h"
#include "../sim/io/jsonio.h"
#include "format.h"
#include "../sim/cluster/fleet.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

int gs_cimp_slurp(const char *path, long max, char **buf, size_t *len,
                  struct gs_diag *d)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return gs_diag_set(d, GS_EIO, path, "cannot open: %s",
                           strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return gs_diag_set(d, GS_EIO, path, "not a regular file (%s): save "
                           "the export to a file first",
                           S_ISDIR(st.st_mode) ? "a folder" :
                           S_ISFIFO(st.st_mode) ? "a pipe" :
                           S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                           ? "a device" : "not a file");
    }
    gzFile gz = gzdopen(fd, "rb");
    if (gz == NULL) {
        close(fd);
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    int rc = b ? 0 : gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    while (rc == 0) {
        if (n == cap) {
            if ((long)cap >= max) {
                rc = gs_diag_set(d, GS_ERANGE, path, "larger than %ld MiB; "
                                 "split the export into several files",
                                 max >> 20);
                break;
            }
            size_t nc = cap * 2 > (size_t)max ? (size_t)max : cap * 2;
            char *nb = realloc(b, nc + 1);
            if (nb == NULL) {
                rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                break;
            }
            b = nb;
            cap = nc;
        }
        unsigned want = cap - n > (1u << 30) ? 1u << 30 : (unsigned)(cap - n);
        int got = gzread(gz, b + n, want);
        if (got < 0) {
            int zerr = 0;
            const char *m = gzerror(gz, &zerr);
            rc = gs_diag_set(d, GS_EIO, path, "read error: %s",
                             zerr == Z_ERRNO ? strerror(errno) : m);
            break;
        }
        if (got == 0) {
            int zerr = 0;
            gzerror(gz, &zerr);
            if (zerr == Z_BUF_ERROR)
                rc = gs_diag_set(d, GS_EIO, path, "truncated gzip file");
            break;
        }
        n += (size_t)got;
    }
    gzclose(gz);
    if (rc == 0 && memchr(b, '\0', n) != NULL)
        rc = gs_diag_set(d, GS_EPARSE, path, "a NUL byte at offset %ld: "
                         "not a text export",
                         (long)((char *)memchr(b, '\0', n) - b));
    if (rc < 0) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

/* --- timestamps ------------------------------------------------------------- */

static int64_t days_from_civil(int64_t y, int m, int dd)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* "YYYY-MM-DD[T ]HH:MM:SS[.frac]": the fields and where parsing stopped. */
static const char *civil(const char *s, int64_t *secs, double *frac)
{
    int y, mo, dd, h, mi, se;
    if (digits(s, 4, &y) < 0 || s[4] != '-' || digits(s + 5, 2, &mo) < 0 ||
        s[7] != '-' || digits(s + 8, 2, &dd) < 0 ||
        (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        digits(s + 11, 2, &h) < 0 || s[13] != ':' ||
        digits(s + 14, 2, &mi) < 0 || s[16] != ':' ||
        digits(s + 17, 2, &se) < 0)
        return NULL;
    static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
                                   30, 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || dd < 1 || dd > mdays[mo - 1] ||
        (mo == 2 && dd == 29 && !leap) || h > 23 || mi > 59 || se > 60)
        return NULL;
    const char *p = s + 19;
    *frac = 0;
    if (*p == '.') {
        double scale = 0.1;
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        for (; isdigit((unsigned char)*p); p++, scale /= 10)
            *frac += (*p - '0') * scale;
    }
    *secs = days_from_civil(y, mo, dd) * 86400 + h * 3600 + mi * 60 + se;
    return p;
}

int gs_cimp_rfc3339(const char *s, int64_t *ms)
{
    int64_t secs;
    double frac;
    if (s == NULL || strlen(s) < 20)
        return -1;
    const char *p = civil(s, &secs, &frac);
    if (p == NULL)
        return -1;
    int off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (digits(p + 1, 2, &oh) < 0 || p[3] != ':' ||
            digits(p + 4, 2, &om) < 0 || oh > 23 || om > 59)
            return -1;
        off = (oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        return -1;
    }
    if (*p != '\0')
        return -1;
    *ms = (secs - off) * 1000 + (int64_t)floor(frac * 1000 + 1e-6);
    return 0;
}

int gs_cimp_tz_parse(const char *spec, struct gs_cimp_tz *tz,
                     struct gs_diag *d)
{
    memset(tz, 0, sizeof *tz);
    if (strcasecmp(spec, "UTC") == 0 || strcmp(spec, "Z") == 0)
        return 0;
    if (spec[0] == '+' || spec[0] == '-') {
        int oh, om;
        const char *m = spec[3] == ':' ? spec + 4 : spec + 3;
        if (digits(spec + 1, 2, &oh) == 0 && digits(m, 2, &om) == 0 &&
            m[2] == '\0' && oh <= 18 && om <= 59) {
            tz->offset_s = (oh * 3600 + om * 60) * (spec[0] == '-' ? -1 : 1);
            return 0;
        }
    } else if (strlen(spec) < sizeof tz->name && strstr(spec, "..") == NULL &&
               spec[0] != '/' && spec[0] != '\0') {
        int ok = 1;
        for (const char *c = spec; *c; c++)
            ok &= isalnum((unsigned char)*c) || strchr("/_-+", *c) != NULL;
        char zp[128];
        snprintf(zp, sizeof zp, "/usr/share/zoneinfo/%s", spec);
        struct stat st;
        if (ok && stat(zp, &st) == 0 && S_ISREG(st.st_mode)) {
            tz->named = 1;
            snprintf(tz->name, sizeof tz->name, "%s", spec);
            return 0;
        }
    }
    return gs_diag_set(d, GS_EINVAL, "--tz", "'%s' is not a zone: UTC, an "
                       "offset like +02:00, or a tz database name like "
                       "Europe/Berlin", spec);
}

int gs_cimp_localtime(const char *s, const struct gs_cimp_tz *tz,
                      int64_t *ms)
{
    int64_t secs;
    double frac;
    const char *p = civil(s, &secs, &frac);
    if (p == NULL || *p != '\0')
        return -1;
    int64_t off = tz->offset_s;
    if (tz->named) {
        /* mktime in the zone: TZ set for the call, then put back. */
        const char *old = getenv("TZ");
        char *saved = old ? strdup(old) : NULL;
        if (old && saved == NULL)
            return -1;
        setenv("TZ", tz->name, 1);
        tzset();
        /* the civil fields back from the zone-naive seconds */
        time_t t0 = (time_t)secs;
        struct tm g;
        gmtime_r(&t0, &g);
        g.tm_isdst = -1;
        time_t lt = mktime(&g);
        if (saved) {
            setenv("TZ", saved, 1);
            free(saved);
        } else {
            unsetenv("TZ");
        }
        tzset();
        if (lt == (time_t)-1)
            return -1;
        off = secs - (int64_t)lt;
    }
    *ms = (secs - off) * 1000 + (int64_t)floor(frac * 1000 + 1e-6);
    return 0;
}

void gs_cimp_fmt_utc(int64_t ms, char *buf, size_t n)
{
    time_t t = (time_t)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
    struct tm g;
    gmtime_r(&t, &g);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &g);
}

/* --- GPU names ---------------------------------------------------------------- */

/* Copy the product's family (the first '-'/'_'/' '-separated word after
 * an "NVIDIA"/"Tesla"/"GeForce" prefix) upper-cased into fam, and any
 * "NNGB" part's number into *gb (0 if none). */
static void product_family(const char *product, char *fam, size_t n,
                           double *gb)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", product);
    char *mig = strstr(buf, "-MIG-");
    if (mig)
        *mig = '\0';
    *gb = 0;
    fam[0] = '\0';
    char *save = NULL;
    for (char *w = strtok_r(buf, "-_ ", &save); w;
         w = strtok_r(NULL, "-_ ", &save)) {
        if (strcasecmp(w, "NVIDIA") == 0 || strcasecmp(w, "Tesla") == 0 ||
            strcasecmp(w, "GeForce") == 0)
            continue;
        size_t l = strlen(w);
        if (l > 2 && strcasecmp(w + l - 2, "GB") == 0 &&
            isdigit((unsigned char)w[0])) {
            char *e;
            double v = strtod(w, &e);
            if (e == w + l - 2 && *gb == 0)
                *gb = v;
            continue;
        }
        if (fam[0] == '\0') {
            size_t k = 0;
            for (; w[k] && k + 1 < n; k++)
                fam[k] = (char)toupper((unsigned char)w[k]);
            fam[k] = '\0';
        }
    }
}

/* 1 if catalog name is of family fam: fam, then the end or a '-'. */
static int of_family(const char *name, const char *fam)
{
    size_t l = strlen(fam);
    return l > 0 && strncasecmp(name, fam, l) == 0 &&
           (name[l] == '\0' || name[l] == '-');
}

int gs_cimp_gpu_model(struct gs_catalog *cat, const char *product,
                      double mem_gb, int *warned)
{
    char fam[48];
    double named_gb;
    product_family(product, fam, sizeof fam, &named_gb);
    double gb = mem_gb > 0 ? mem_gb : named_gb;
    int best = -1;
    double bestd = 1e30;
    for (int i = 0; i < cat->n; i++) {
        if (!of_family(cat->m[i].name, fam))
            continue;
        double dist = gb > 0 ? fabs(cat->m[i].mem_gb - gb) : 0;
        if (dist < bestd) {
            bestd = dist;
            best = i;
        }
    }
    /* A match within 10% of the memory (or any, when memory is unknown):
     * 80 GB parts report 79.6 GiB, a 141 GB H200 139.8. */
    if (best >= 0 && (gb <= 0 || bestd <= 0.1 * gb))
        return best;
    if (fam[0] == '\0' || gb <= 0)
        return GS_ENOTFOUND;
    struct gs_gpu_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "%.20s-%.0fGB", fam, gb);
    int have = gs_catalog_find(cat, m.name);
    if (have >= 0)
        return have;
    int near = 0;
    for (int i = 1; i < cat->n; i++)
        if (fabs(cat->m[i].mem_gb - gb) < fabs(cat->m[near].mem_gb - gb))
            near = i;
    m.mem_gb = gb;
    m.tflops = cat->m[near].tflops;
    m.bw_gbs = cat->m[near].bw_gbs;
    m.power_w = cat->m[near].power_w;
    m.custom = 1;
    *warned = 1;
    return gs_catalog_add(cat, &m);
}

int gs_cimp_tier_guess(const char *cls)
{
    static const struct { const char *part; int tier; } rule[] = {
        { "infer", GS_TIER_INFERENCE }, { "serv", GS_TIER_INFERENCE },
        { "online", GS_TIER_INFERENCE }, { "realtime", GS_TIER_INFERENCE },
        { "interactive", GS_TIER_INTERACTIVE },
        { "notebook", GS_TIER_INTERACTIVE }, { "dev", GS_TIER_INTERACTIVE },
        { "batch-cpu", GS_TIER_DATA }, { "data", GS_TIER_DATA },
        { "etl", GS_TIER_DATA },
    };
    if (cls == NULL)
        return GS_TIER_TRAINING;
    for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++)
        if (strcasestr(cls, rule[i].part))
            return rule[i].tier;
    return GS_TIER_TRAINING;
}

int gs_cimp_tiers_parse(const char *text, struct gs_cimp_tiers *t)
{
    memset(t, 0, sizeof *t);
    char buf[1024];
    if (strlen(text) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *it = strtok_r(buf, ",", &save); it;
         it = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(it, '=');
        if (eq == NULL || eq == it || t->n == GS_CIMP_TIERS ||
            eq - it >= (long)sizeof t->v[0].cls || gs_tier_parse(eq + 1) < 0)
            return -1;
        *eq = '\0';
        snprintf(t->v[t->n].cls, sizeof t->v[0].cls, "%s", it);
        t->v[t->n++].tier = gs_tier_parse(eq + 1);
    }
    return 0;
}

int gs_cimp_tier(const struct gs_cimp_tiers *t, const char *cls)
{
    for (int i = 0; cls && i < t->n; i++)
        if (strcmp(t->v[i].cls, cls) == 0)
            return t->v[i].tier;
    return gs_cimp_tier_guess(cls);
}

int gs_cimp_gpu_family(const struct gs_catalog *cat, const char *name,
                       char *out, size_t n)
{
    char fam[48];
    double gb;
    product_family(name, fam, sizeof fam, &gb);
    for (int i = 0; i < cat->n; i++)
        if (of_family(cat->m[i].name, fam)) {
            snprintf(out, n, "%s", fam);
            return 0;
        }
    return -1;
}

/* A failure at FILE: PATH, or FILE: PATH[k] when k >= 0. */
static int pfail(struct gs_diag *d, const char *file, const char *path, int k,
                 const char *what)
{
    char *where = k < 0 ? gs_strf("%s: %s", file, path)
                        : gs_strf("%s: %s[%d]", file, path, k);
    return gs_diag_set_at(d, GS_EPARSE, where, "%s", what);
}

int gs_cimp_prom_file(const char *file, gs_cimp_series_fn *fn, void *ctx,
                      struct gs_diag *d)
{
    char *buf;
    size_t len;
    struct gs_json *root = NULL;
    int rc = gs_cimp_slurp(file, GS_CIMP_MAX_BYTES, &buf, &len, d);
    if (rc < 0)
        return rc;
    rc = gs_json_parse(buf, file, &root, d);
    free(buf);
    if (rc < 0)
        return rc;
    const char *st = gs_json_string(gs_json_get(root, "status"));
    const struct gs_json *data = gs_json_get(root, "data");
    const char *rt = gs_json_string(gs_json_get(data, "resultType"));
    const struct gs_json *res = gs_json_get(data, "result");
    if (st == NULL || strcmp(st, "success") != 0)
        rc = pfail(d, file, "$.status", -1, "not \"success\": the query "
                   "failed (see its \"error\")");
    else if (rt == NULL || strcmp(rt, "matrix") != 0)
        rc = pfail(d, file, "$.data.resultType", -1, "not \"matrix\": export "
                   "a range query (/api/v1/query_range)");
    else if (!gs_json_is_array(res))
        rc = pfail(d, file, "$.data.result", -1, "expected an array of "
                   "series");
    int i = 0;
    for (const struct gs_json *s = gs_json_first(res); rc == 0 && s;
         s = gs_json_next(s), i++) {
        char path[96];
        const struct gs_json *metric = gs_json_get(s, "metric");
        const struct gs_json *vals = gs_json_get(s, "values");
        snprintf(path, sizeof path, "$.data.result[%d].%s", i,
                 gs_json_is_object(metric) ? "values" : "metric");
        if (!gs_json_is_object(metric))
            rc = pfail(d, file, path, -1, "expected an object of labels");
        else if (!gs_json_is_array(vals))
            rc = pfail(d, file, path, -1, "expected \"values\": [[time, "
                       "\"value\"], ...] (a range query's matrix)");
        else
            rc = fn(ctx, file, i, metric, vals, d);
    }
    gs_json_free(root);
    return rc;
}

int gs_cimp_prom_sample(const char *file, const char *path,
                        const struct gs_json *p, int k, int64_t *t_ms,
                        double *v, struct gs_diag *d)
{
    double t = gs_json_number(gs_json_item(p, 0));
    const char *s = gs_json_string(gs_json_item(p, 1));
    if (gs_json_size(p) != 2 || !isfinite(t) || t < 0 || t > 1e11 ||
        s == NULL)
        return pfail(d, file, path, k, "expected [unix seconds, \"value\"]");
    if (strcmp(s, "NaN") == 0)
        return 0;
    if (gs_tnum(s, v) < 0 || !isfinite(*v) || *v < 0 || *v > 1e18)
        return pfail(d, file, path, k, "the value is not a number >= 0");
    *t_ms = (int64_t)llround(t * 1000.0);
    return 1;
}

int gs_cimp_opt_fail(struct gs_params *o, const char *key, struct gs_diag *d,
                     const char *what)
{
    char *where;
    where = gs_strf("%s.%s", o->where, key);
    return gs_diag_set_at(d, GS_EINVAL, where, "%s", what);
}

int gs_cimp_opt_running(struct gs_params *o, int *drop, struct gs_diag *d)
{
    const char *run = NULL;
    int rc = gs_params_str(o, "running", &run, d);
    *drop = 0;
    if (rc < 0 || run == NULL || strcmp(run, "end") == 0)
        return rc;
    if (strcmp(run, "drop") != 0)
        return gs_cimp_opt_fail(o, "running", d, "expected \"end\" (end at "
                                "the export time) or \"drop\"");
    *drop = 1;
    return 0;
}

/* --- the job list -------------------------------------------------------------- */

int gs_jlist_add(struct gs_jlist *l, const struct gs_jobspec *s,
                 int64_t start)
{
    if (l->n == l->cap) {
        long nc = l->cap ? l->cap * 2 : 256;
        struct gs_cimp_job *nv = realloc(l->v, (size_t)nc * sizeof *nv);
        if (nv == NULL)
            return GS_ENOMEM;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n].s = *s;
    l->v[l->n].start = start;
    l->v[l->n].seq = l->n;
    l->n++;
    return 0;
}

static int by_arrival(const void *a, const void *b)
{
    const struct gs_cimp_job *x = a, *y = b;
    if (x->s.arrival != y->s.arrival)
        return x->s.arrival < y->s.arrival ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

void gs_jlist_sort(struct gs_jlist *l)
{
    if (l->n > 1)
        qsort(l->v, (size_t)l->n, sizeof *l->v, by_arrival);
    l->next = 0;
}

int gs_jlist_next(struct gs_jlist *l, struct gs_jobspec *out)
{
    if (l->next >= l->n)
        return 0;
    *out = l->v[l->next++].s;
    return 1;
}

void gs_jlist_free(struct gs_jlist *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* --- what was left out ---------------------------------------------------------- */

void gs_cimp_leave(struct gs_cimp_left *l, const char *why,
                   const char *first)
{
    l->n++;
    for (int i = 0; i < l->nr; i++)
        if (strcmp(l->r[i].why, why) == 0) {
            l->r[i].n++;
            return;
        }
    int i = l->nr < GS_CIMP_REASONS ? l->nr++ : GS_CIMP_REASONS - 1;
    if (i == GS_CIMP_REASONS - 1 && l->r[i].n > 0) {
        snprintf(l->r[i].why, sizeof l->r[i].why, "other reasons");
        l->r[i].n++;
        return;
    }
    snprintf(l->r[i].why, sizeof l->r[i].why, "%s", why);
    snprintf(l->r[i].first, sizeof l->r[i].first, "%s", first);
    l->r[i].n = 1;
}

void gs_cimp_left_print(const char *path, const char *what,
                        const struct gs_cimp_left *l)
{
    FILE *fp = gs_trace_log();
    if (fp == NULL || l->n == 0)
        return;
    fprintf(fp, "gpusim: %s: left out %ld %s:\n", path, l->n, what);
    for (int i = 0; i < l->nr; i++)
        fprintf(fp, "gpusim:   %ld %s (first: %s)\n", l->r[i].n,
                l->r[i].why, l->r[i].first);
}

/* --- recorded history ---------------------------------------------------------- */

static struct gs_cimp_history hist;

void gs_cimp_history_clear(void)
{
    free(hist.id);
    free(hist.wait);
    memset(&hist, 0, sizeof hist);
}

int gs_cimp_publish(const struct gs_jlist *l, int64_t origin_ms,
                    const char *basis)
{
    gs_cimp_history_clear();
    hist.origin_ms = origin_ms;
    snprintf(hist.basis, sizeof hist.basis, "%s", basis ? basis : "");
    long n = 0;
    for (long i = 0; i < l->n; i++)
        n += l->v[i].start >= 0;
    if (n == 0)
        return 0;
    hist.id = malloc((size_t)n * sizeof *hist.id);
    hist.wait = malloc((size_t)n * sizeof *hist.wait);
    if (hist.id == NULL || hist.wait == NULL) {
        gs_cimp_history_clear();
        return GS_ENOMEM;
    }
    for (long i = 0; i < l->n; i++)
        if (l->v[i].start >= 0) {
            hist.id[hist.n] = l->v[i].s.id;
            hist.wait[hist.n] = l->v[i].start - l->v[i].s.arrival;
            hist.n++;
        }
    return 0;
}

const struct gs_cimp_history *gs_cimp_history(void)
{
    return &hist;
}

/* --- a history importer's common part --------------------------------------- */

int gs_cimp_hist_options(struct gs_cimp_hist *h, const struct gs_scenario *sc,
                         struct gs_params *o, const char *cpu_key,
                         const char *what, char **nodes,
                         struct gs_diag *d)
{
    const char *tiers = NULL;
    int rc, found = 0;
    if ((rc = gs_topt_skip(o, &h->skip, d)) < 0 ||
        (rc = gs_cimp_opt_running(o, &h->running_drop, d)) < 0 ||
        (rc = gs_params_bool(o, cpu_key, &h->keep_cpu, d)) < 0 ||
        (rc = gs_topt_path(sc, o, "nodes", 0, nodes, &found, d)) < 0 ||
        (rc = gs_params_str(o, "tiers", &tiers, d)) < 0)
        return rc;
    if (tiers && gs_cimp_tiers_parse(tiers, &h->tiers) < 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "expected up to 16 %s=tier pairs, tier one "
                 "of inference, training, interactive, data", what);
        return gs_cimp_opt_fail(o, "tiers", d, msg);
    }
    return 0;
}

int gs_cimp_hist_finish(struct gs_cimp_hist *h, const char *path,
                        const char *what, int64_t origin_ms,
                        const char *detail, const char *basis,
                        struct gs_diag *d)
{
    gs_jlist_sort(&h->jobs);
    for (long i = 0; i < h->jobs.n; i++)
        h->jobs.v[i].s.id = i + 1;
    char when[32];
    gs_cimp_fmt_utc(origin_ms, when, sizeof when);
    if (gs_trace_log())
        fprintf(gs_trace_log(), "gpusim: %s: %ld jobs%s; time 0 is %s\n", path,
                h->jobs.n, detail, when);
    gs_cimp_left_print(path, what, &h->left);
    return gs_cimp_publish(&h->jobs, origin_ms, basis) < 0
           ? gs_diag_set(d, GS_ENOMEM, path, "out of memory") : 0;
}

int gs_cimp_hist_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    (void)d;
    struct gs_cimp_hist *h = st;
    return gs_jlist_next(&h->jobs, out);
}

void gs_cimp_hist_free(struct gs_cimp_hist *h)
{
    if (h)
        gs_jlist_free(&h->jobs);
}

int gs_cimp_grow(void *pv, long *cap, long n, size_t size)
{
    if (n < *cap)
        return 0;
    long nc = *cap ? 2 * *cap : 64;
    while (nc <= n)
        nc *= 2;
    void *old;
    memcpy(&old, pv, sizeof old);
    void *nv = realloc(old, (size_t)nc * size);
    if (nv == NULL)
        return GS_ENOMEM;
    memcpy(pv, &nv, sizeof nv);
    *cap = nc;
    return 0;
}

uint64_t gs_cimp_job_bytes(size_t size)
{
    return (uint64_t)size + sizeof(struct gs_cimp_job) +
           2 * sizeof(int64_t) + GS_MEM_PER_JOB;
}

int gs_cimp_grow_counted(void *pv, long *cap, long n, size_t size,
                         uint64_t each, const char *what, const char *path,
                         struct gs_diag *d)
{
    if (n < *cap)
        return 0;
    long nc = *cap ? 2 * *cap : 64;     /* as gs_cimp_grow will */
    while (nc <= n)
        nc *= 2;
    int rc = gs_mem_check_items((uint64_t)nc, each, what, path, d);
    if (rc < 0)
        return rc;
    if (gs_cimp_grow(pv, cap, n, size) < 0)
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    return 0;
}

void gs_cimp_pool_node(struct gs_pool_spec *p, int32_t cpu, int32_t mem)
{
    if (p->nodes == 0 || cpu < p->cpu_milli)
        p->cpu_milli = cpu;
    if (p->nodes == 0 || mem < p->mem_mib)
        p->mem_mib = mem;
    p->nodes++;
}
