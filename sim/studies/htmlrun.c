/* htmlrun.c -- the sections of `gpusim report` that a run's data gives.
 *
 * Over one run (a run file) the plots split by tier and by service; over
 * several (a comparison: each policy's first seed) each run is one series,
 * named after its policy.  A section is written only when the file holds
 * its data, and a plot only when a series has a point:
 *   utilization and queue  /timeseries (allocated_gpus, gpus_up,
 *                          queue_length against time_s)
 *   waits and JCT          /jobs (wait_s; end_s - arrival_s of the jobs
 *                          that ended) by tier (/tiers names the codes),
 *                          and the table /summary/tiers
 *   services               /requests (ttft_s, itl_s by service), the
 *                          per-service table /services/summary
 *                          (summary_columns), replicas over time
 *                          /services/NAME/replicas
 *   cost                   /cloud/pools and /cloud/cost_by_market, _tier,
 *                          _tenant, _model (name, cost_usd)
 * Times are shown in hours on time axes and seconds on latency axes. */
#include "htmlint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The headline measures, in the order shown, when the file has them. */
static const char *const headline[] = {
    "jobs", "jobs_done", "jobs_killed", "span_h", "utilization",
    "throughput_jobs_per_hour", "attainment", "cost_usd",
    "cost_per_hour_usd",
    "inference_sla_attainment", "inference_ttft_p99_s",
    "inference_itl_p99_s", NULL,
};

struct fields {
    char **name, **units, **desc;
    double *value;
    size_t n;
};

static void fields_free(struct fields *f)
{
    gs_h5in_strs_free(f->name, f->n);
    gs_h5in_strs_free(f->units, f->n);
    gs_h5in_strs_free(f->desc, f->n);
    free(f->value);
}

static int fields_read(struct gs_h5in *r, struct fields *f)
{
    memset(f, 0, sizeof *f);
    size_t n1 = 0, n2 = 0, n3 = 0, n4 = 0;
    const char *t = "/summary/fields";
    int rc = gs_h5in_column_strs(r, t, "name", &f->name, &n1);
    if (rc == 0)
        rc = gs_h5in_column(r, t, "value", &f->value, &n2);
    if (rc == 0)
        rc = gs_h5in_column_strs(r, t, "units", &f->units, &n3);
    if (rc == 0)
        rc = gs_h5in_column_strs(r, t, "description", &f->desc, &n4);
    f->n = n1;
    if (rc < 0 || n2 != n1 || n3 != n1 || n4 != n1) {
        gs_h5in_strs_free(f->name, n1);
        gs_h5in_strs_free(f->units, n3);
        gs_h5in_strs_free(f->desc, n4);
        free(f->value);
        memset(f, 0, sizeof *f);
        return rc < 0 ? rc : -1;
    }
    return 0;
}

static void field_row(struct gs_html *h, const struct fields *f, size_t i)
{
    fputs("<tr><td>", h->fp);
    gs_html_esc(h->fp, f->name[i]);
    fputs("</td><td class=num>", h->fp);
    gs_html_num(h->fp, f->value[i]);
    fputs("</td><td>", h->fp);
    gs_html_esc(h->fp, f->units[i]);
    fputs("</td><td>", h->fp);
    gs_html_esc(h->fp, f->desc[i]);
    fputs("</td></tr>\n", h->fp);
}

/* The headline's rows from /summary/tiers' "all" row: waits, JCTs. */
static void all_rows(struct gs_html *h)
{
    static const char *const col[][3] = {
        { "wait_mean_s", "s", "mean queueing delay, all jobs" },
        { "wait_p95_s", "s", "95th percentile of the queueing delay" },
        { "jct_mean_s", "s", "mean job completion time (arrival to end)" },
        { "sla_wait_violations", "1", "jobs that waited past their tier's "
          "limit" },
    };
    char **scope = NULL;
    size_t ns = 0, nv = 0;
    const char *t = "/summary/tiers";
    if (gs_h5in_column_strs(h->r, t, "scope", &scope, &ns) < 0)
        return;
    for (size_t i = 0; i < ns; i++) {
        if (strcmp(scope[i], "all") != 0)
            continue;
        for (size_t c = 0; c < sizeof col / sizeof *col; c++) {
            double *v = NULL;
            if (gs_h5in_column(h->r, t, col[c][0], &v, &nv) == 0 && nv == ns)
                fprintf(h->fp, "<tr><td>%s</td><td class=num>", col[c][0]);
            if (v && nv == ns) {
                gs_html_num(h->fp, v[i]);
                fprintf(h->fp, "</td><td>%s</td><td>%s</td></tr>\n",
                        col[c][1], col[c][2]);
            }
            free(v);
        }
        break;
    }
    gs_h5in_strs_free(scope, ns);
}

void gs_html_run_answer(struct gs_html *h)
{
    struct fields f;
    if (fields_read(h->r, &f) < 0)
        return;
    gs_html_section(h, "answer", "The run in brief");
    fputs("<table class=kv><tr><th>measure</th><th>value</th><th>unit</th>"
          "<th>what it is</th></tr>\n", h->fp);
    for (int k = 0; headline[k]; k++)
        for (size_t i = 0; i < f.n; i++)
            if (strcmp(f.name[i], headline[k]) == 0)
                field_row(h, &f, i);
    all_rows(h);
    fputs("</table>\n<details><summary>every measure of the summary "
          "</summary>\n<table class=kv><tr><th>measure</th><th>value</th>"
          "<th>unit</th><th>what it is</th></tr>\n", h->fp);
    for (size_t i = 0; i < f.n; i++)
        field_row(h, &f, i);
    fputs("</table></details>\n", h->fp);
    gs_html_section_end(h);
    fields_free(&f);
}

/* The series named of run's /timeseries against hours into p, titled
 * title; 1 when added. */
static int add_series(struct gs_html *h, struct gs_plot *p,
                      const char *prefix, const char *group,
                      const char *name, const char *title)
{
    char *pt = NULL, *pv = NULL;
    if (asprintf(&pt, "%s%s/time_s", prefix, group) < 0)
        return 0;
    if (asprintf(&pv, "%s%s/%s", prefix, group, name) < 0) {
        free(pt);
        return 0;
    }
    double *t = NULL, *v = NULL;
    size_t dt[3], dv[3];
    int ok = gs_h5in_doubles(h->r, pt, &t, dt) == 1 &&
             gs_h5in_doubles(h->r, pv, &v, dv) == 1 && dt[0] == dv[0];
    if (ok) {
        for (size_t i = 0; i < dt[0]; i++)
            t[i] /= 3600;
        ok = gs_plot_add(p, title, GS_PLOT_LINES, t, v, dt[0]) == 0;
    }
    free(t);
    free(v);
    free(pt);
    free(pv);
    return ok;
}

static void sec_timeseries(struct gs_html *h, const struct gs_html_run *r,
                           int n)
{
    char *probe = gs_html_path(r[0].prefix, "/timeseries/time_s");
    int has = probe && gs_h5in_has(h->r, probe);
    free(probe);
    if (!has)
        return;
    gs_html_section(h, "utilization", "Utilization and queue over time");
    struct gs_plot *u = gs_plot_new("time (h)", "GPUs", 0);
    struct gs_plot *q = gs_plot_new("time (h)", "jobs waiting", 0);
    if (u && q) {
        gs_plot_yfrom0(u);
        gs_plot_yfrom0(q);
        for (int i = 0; i < n; i++) {
            const char *l = n == 1 ? "GPUs allocated" : r[i].label;
            add_series(h, u, r[i].prefix, "/timeseries", "allocated_gpus",
                       l);
            if (n == 1)
                add_series(h, u, r[i].prefix, "/timeseries", "gpus_up",
                           "GPUs up");
            add_series(h, q, r[i].prefix, "/timeseries", "queue_length",
                       n == 1 ? "queue length" : r[i].label);
        }
    }
    gs_html_plot(h, u, n == 1 ? "GPUs allocated and GPUs up (in service) "
                               "over time"
                             : "GPUs allocated over time, by policy");
    gs_html_plot(h, q, n == 1 ? "Jobs waiting in the queue over time"
                             : "Jobs waiting over time, by policy");
    gs_html_section_end(h);
}

/* The labels of a code column (/tiers, /services/names); NULL if none. */
static char **labels(struct gs_html *h, const char *prefix,
                     const char *name, size_t *n)
{
    char *p = gs_html_path(prefix, name);
    char **v = NULL;
    *n = 0;
    if (p && gs_h5in_strings(h->r, p, &v, n) < 0)
        v = NULL;
    free(p);
    return v;
}

/* Column col of table prefix+table; NULL (and *n 0) when absent. */
static double *column(struct gs_html *h, const char *prefix,
                      const char *table, const char *col, size_t *n)
{
    char *p = gs_html_path(prefix, table);
    double *v = NULL;
    *n = 0;
    if (p && gs_h5in_column(h->r, p, col, &v, n) < 0)
        v = NULL;
    free(p);
    return v;
}

/* The values of v whose code is k (k < 0: all) into out; their count. */
static size_t select_code(const double *code, const double *v, size_t n,
                          int k, double *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((k < 0 || code[i] == k) && isfinite(v[i]))
            out[m++] = v[i];
    return m;
}

/* Add run's CDFs of per-row values v by code (codes named by names[nn],
 * title prefix pre) or all of them as one titled pre. */
static void add_cdfs(struct gs_plot *p, const double *code, const double *v,
                     size_t n, char **names, size_t nn, const char *pre,
                     int split)
{
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (buf == NULL)
        return;
    for (int k = split ? 0 : -1; k < (split ? (int)nn : 0); k++) {
        size_t m = select_code(code, v, n, k, buf);
        char *t = NULL;
        if (k < 0)
            t = strdup(pre);
        else if (asprintf(&t, "%s%s%s", pre, pre[0] ? " / " : "",
                          names[k]) < 0)
            t = NULL;
        if (m > 0 && t)
            gs_plot_add_cdf(p, t, buf, m);
        free(t);
    }
    free(buf);
}

static void tier_table(struct gs_html *h, const char *prefix)
{
    static const char *const cols[] = {
        "jobs", "done", "wait_mean_s", "wait_p95_s", "wait_p99_s",
        "jct_mean_s", "jct_p95_s", "sla_wait_violations", "deadline_misses",
    };
    enum { NC = sizeof cols / sizeof *cols };
    char **scope = NULL;
    size_t ns = 0, nv;
    char *p = gs_html_path(prefix, "/summary/tiers");
    if (p == NULL || gs_h5in_column_strs(h->r, p, "scope", &scope, &ns) < 0) {
        free(p);
        return;
    }
    double *v[NC];
    fputs("<table><tr><th>tier</th>", h->fp);
    for (int c = 0; c < NC; c++) {
        if (gs_h5in_column(h->r, p, cols[c], &v[c], &nv) < 0 || nv != ns) {
            free(v[c]);
            v[c] = NULL;
        }
        if (v[c])
            fprintf(h->fp, "<th>%s</th>", cols[c]);
    }
    fputs("</tr>\n", h->fp);
    for (size_t i = 0; i < ns; i++) {
        fputs("<tr><td>", h->fp);
        gs_html_esc(h->fp, scope[i]);
        fputs("</td>", h->fp);
        for (int c = 0; c < NC; c++)
            if (v[c]) {
                fputs("<td class=num>", h->fp);
                gs_html_num(h->fp, v[c][i]);
                fputs("</td>", h->fp);
            }
        fputs("</tr>\n", h->fp);
    }
    fputs("</table>\n", h->fp);
    for (int c = 0; c < NC; c++)
        free(v[c]);
    gs_h5in_strs_free(scope, ns);
    free(p);
}

static void sec_waits(struct gs_html *h, const struct gs_html_run *r, int n)
{
    struct gs_plot *w = gs_plot_new("queueing delay (s, log scale)",
                                    "share of jobs", 1);
    struct gs_plot *j = gs_plot_new("job completion time (s, log scale)",
                                    "share of ended jobs", 1);
    for (int i = 0; i < n && w && j; i++) {
        size_t nt = 0, n1, n2, n3, n4;
        char **tiers = labels(h, r[i].prefix, "/tiers", &nt);
        double *tier = column(h, r[i].prefix, "/jobs", "tier", &n1);
        double *wait = column(h, r[i].prefix, "/jobs", "wait_s", &n2);
        double *arr = column(h, r[i].prefix, "/jobs", "arrival_s", &n3);
        double *end = column(h, r[i].prefix, "/jobs", "end_s", &n4);
        if (tier && wait && n1 == n2 && (n == 1 ? tiers != NULL : 1)) {
            add_cdfs(w, tier, wait, n1, tiers, nt, r[i].label, n == 1);
            if (arr && end && n3 == n1 && n4 == n1) {
                for (size_t k = 0; k < n1; k++)
                    end[k] -= arr[k];
                add_cdfs(j, tier, end, n1, tiers, nt, r[i].label, n == 1);
            }
        }
        gs_h5in_strs_free(tiers, nt);
        free(tier);
        free(wait);
        free(arr);
        free(end);
    }
    if (w && j && gs_plot_nseries(w) + gs_plot_nseries(j) > 0) {
        gs_plot_yto1(w);
        gs_plot_yto1(j);
        gs_plot_yfrom0(w);
        gs_plot_yfrom0(j);
        gs_html_section(h, "waits", n == 1 ? "Waits and job completion "
                                             "times by tier"
                                           : "Waits and job completion "
                                             "times by policy");
        fputs("<p>Empirical CDFs; a curve starts at the share of jobs "
              "whose value is 0 (not drawn on the log axis).</p>\n", h->fp);
        gs_html_plot(h, w, "Queueing delay (arrival to start)");
        gs_html_plot(h, j, "Job completion time (arrival to end)");
        w = j = NULL;
        if (n == 1)
            tier_table(h, r[0].prefix);
        gs_html_section_end(h);
    }
    gs_plot_free(w);
    gs_plot_free(j);
}

/* The per-service table: a row per measure of /services/summary, a
 * column per service.  The table is compound (a column "service", then a
 * column per measure); files before schema 3 held it as a [service,
 * measure] array named by /services/summary_columns. */
static double *service_values(struct gs_html *h, const char *path,
                              size_t ns, char ***cols, size_t *nc)
{
    char *pc = gs_html_path(path, "_columns");
    size_t d[3], rows = 0;
    double *v = NULL;
    if (pc && gs_h5in_strings(h->r, pc, cols, nc) == 0) {       /* old */
        if (gs_h5in_doubles(h->r, path, &v, d) != 2 || d[0] != ns ||
            d[1] != *nc) {
            free(v);
            v = NULL;
        }
    } else if (gs_h5in_columns(h->r, path, cols, nc) == 0) {
        v = calloc(ns * *nc + 1, sizeof *v);
        for (size_t c = 0; v && c < *nc; c++) {
            double *col = NULL;
            for (size_t s = 0; s < ns; s++)
                v[s * *nc + c] = NAN;
            if (gs_h5in_column(h->r, path, (*cols)[c], &col, &rows) == 0 &&
                rows == ns)
                for (size_t s = 0; s < ns; s++)
                    v[s * *nc + c] = col[s];
            free(col);
        }
    }
    free(pc);
    return v;
}

static void service_table(struct gs_html *h, const char *prefix,
                          char **names, size_t ns)
{
    char *pv = gs_html_path(prefix, "/services/summary");
    char **cols = NULL;
    size_t nc = 0;
    double *v = pv ? service_values(h, pv, ns, &cols, &nc) : NULL;
    if (v) {
        fputs("<table><tr><th>measure</th>", h->fp);
        for (size_t s = 0; s < ns; s++) {
            fputs("<th>", h->fp);
            gs_html_esc(h->fp, names[s]);
            fputs("</th>", h->fp);
        }
        fputs("</tr>\n", h->fp);
        for (size_t c = 0; c < nc; c++) {
            if (strcmp(cols[c], "service") == 0)
                continue;
            fputs("<tr><td>", h->fp);
            gs_html_esc(h->fp, cols[c]);
            fputs("</td>", h->fp);
            for (size_t s = 0; s < ns; s++) {
                fputs("<td class=num>", h->fp);
                gs_html_num(h->fp, v[s * nc + c]);
                fputs("</td>", h->fp);
            }
            fputs("</tr>\n", h->fp);
        }
        fputs("</table>\n", h->fp);
    }
    gs_h5in_strs_free(cols, nc);
    free(v);
    free(pv);
}

/* Replicas of each service of run r over time into p. */
static void add_replicas(struct gs_html *h, struct gs_plot *p,
                         const struct gs_html_run *r, char **names,
                         size_t ns, int many)
{
    for (size_t s = 0; s < ns; s++) {
        char *g = NULL, *t = NULL;
        if (asprintf(&g, "/services/%s", names[s]) < 0)
            continue;
        if (many ? asprintf(&t, "%s / %s", r->label, names[s]) < 0
                 : (t = strdup(names[s])) == NULL) {
            free(g);
            continue;
        }
        /* a name holding '/' or '.' is no group of the file: skipped */
        if (strchr(names[s], '/') == NULL && strcmp(names[s], ".") != 0)
            add_series(h, p, r->prefix, g, "replicas", t);
        free(g);
        free(t);
    }
}

static void sec_services(struct gs_html *h, const struct gs_html_run *r,
                         int n)
{
    struct gs_plot *tt = gs_plot_new("time to first token (s, log scale)",
                                     "share of requests", 1);
    struct gs_plot *it = gs_plot_new("mean inter-token latency (s, log "
                                     "scale)", "share of requests", 1);
    struct gs_plot *rp = gs_plot_new("time (h)", "replicas", 0);
    char **names0 = NULL;
    size_t ns0 = 0;
    for (int i = 0; i < n && tt && it && rp; i++) {
        size_t ns = 0, n1, n2, n3;
        char **names = labels(h, r[i].prefix, "/services/names", &ns);
        double *svc = column(h, r[i].prefix, "/requests", "service", &n1);
        double *ttft = column(h, r[i].prefix, "/requests", "ttft_s", &n2);
        double *itl = column(h, r[i].prefix, "/requests", "itl_s", &n3);
        int many = n > 1 && ns > 1, split = n == 1 || ns > 1;
        char **lab = names;
        if (names && svc && ttft && itl && n1 == n2 && n1 == n3) {
            add_cdfs(tt, svc, ttft, n1, lab, ns, many || !split
                     ? r[i].label : "", split);
            add_cdfs(it, svc, itl, n1, lab, ns, many || !split
                     ? r[i].label : "", split);
        }
        if (names)
            add_replicas(h, rp, &r[i], names, ns, n > 1);
        free(svc);
        free(ttft);
        free(itl);
        if (i == 0) {
            names0 = names;
            ns0 = ns;
        } else {
            gs_h5in_strs_free(names, ns);
        }
    }
    if (names0 && tt && it && rp) {
        gs_plot_yto1(tt);
        gs_plot_yto1(it);
        gs_plot_yfrom0(tt);
        gs_plot_yfrom0(it);
        gs_plot_yfrom0(rp);
        gs_html_section(h, "services", "Inference services");
        gs_html_plot(h, tt, "Time to first token (TTFT), empirical CDF");
        gs_html_plot(h, it, "Inter-token latency (ITL), empirical CDF");
        tt = it = NULL;
        if (n == 1) {
            fputs("<h3>SLA attainment and latency per service</h3>\n",
                  h->fp);
            service_table(h, r[0].prefix, names0, ns0);
        }
        fputs("<h3>Replicas over time</h3>\n", h->fp);
        gs_html_plot(h, rp, "Replicas serving (draining included) over time");
        rp = NULL;
        gs_html_section_end(h);
    }
    gs_h5in_strs_free(names0, ns0);
    gs_plot_free(tt);
    gs_plot_free(it);
    gs_plot_free(rp);
}

/* One cost table: rows the names of table (column namecol) over the n
 * runs (union, in order of first appearance), a column per run of
 * valcol; a bar shows each row's share of the first run's total. */
struct costtab {
    char **name;
    double *v;          /* [row * n + run] */
    size_t rows, cap;
};

static long cost_row(struct costtab *c, const char *name, int n)
{
    for (size_t i = 0; i < c->rows; i++)
        if (strcmp(c->name[i], name) == 0)
            return (long)i;
    if (c->rows == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        char **nn = realloc(c->name, cap * sizeof *nn);
        if (nn == NULL)
            return -1;
        c->name = nn;
        double *nv = realloc(c->v, cap * (size_t)n * sizeof *nv);
        if (nv == NULL)
            return -1;
        c->v = nv;
        c->cap = cap;
    }
    if ((c->name[c->rows] = strdup(name)) == NULL)
        return -1;
    for (int k = 0; k < n; k++)
        c->v[c->rows * (size_t)n + (size_t)k] = NAN;
    return (long)c->rows++;
}

static void cost_print(struct gs_html *h, const struct costtab *c,
                       const struct gs_html_run *r, int n,
                       const char *what)
{
    double tot = 0;
    for (size_t i = 0; i < c->rows; i++)
        if (isfinite(c->v[i * (size_t)n]) && c->v[i * (size_t)n] > 0)
            tot += c->v[i * (size_t)n];
    fprintf(h->fp, "<h3>By %s</h3>\n<table><tr><th>%s</th>", what, what);
    for (int k = 0; k < n; k++) {
        fputs("<th>", h->fp);
        gs_html_esc(h->fp, n == 1 ? "cost (USD)" : r[k].label);
        fputs("</th>", h->fp);
    }
    fputs("<th>share</th></tr>\n", h->fp);
    for (size_t i = 0; i < c->rows; i++) {
        fputs("<tr><td>", h->fp);
        gs_html_esc(h->fp, c->name[i]);
        fputs("</td>", h->fp);
        for (int k = 0; k < n; k++) {
            fputs("<td class=num>", h->fp);
            gs_html_num(h->fp, c->v[i * (size_t)n + (size_t)k]);
            fputs("</td>", h->fp);
        }
        double v = c->v[i * (size_t)n], sh = tot > 0 && v > 0 ? v / tot : 0;
        fprintf(h->fp, "<td><span class=bar style=\"width:%.0fpx\"></span> "
                "%.1f%%</td></tr>\n", 120 * sh, 100 * sh);
    }
    fputs("</table>\n", h->fp);
}

/* The table of table's namecol and valcol over the runs; 1 if shown. */
static int cost_table(struct gs_html *h, const struct gs_html_run *r, int n,
                      const char *table, const char *namecol,
                      const char *valcol, const char *what)
{
    struct costtab c = { 0 };
    int ok = 1;
    for (int k = 0; k < n && ok; k++) {
        char *p = gs_html_path(r[k].prefix, table);
        char **names = NULL;
        double *v = NULL;
        size_t nn = 0, nv = 0;
        if (p && gs_h5in_column_strs(h->r, p, namecol, &names, &nn) == 0 &&
            gs_h5in_column(h->r, p, valcol, &v, &nv) == 0 && nn == nv) {
            for (size_t i = 0; i < nn && ok; i++) {
                long row = cost_row(&c, names[i], n);
                ok = row >= 0;
                if (ok)
                    c.v[(size_t)row * (size_t)n + (size_t)k] = v[i];
            }
        }
        gs_h5in_strs_free(names, nn);
        free(v);
        free(p);
    }
    int shown = ok && c.rows > 0;
    if (shown)
        cost_print(h, &c, r, n, what);
    gs_h5in_strs_free(c.name, c.rows);
    free(c.v);
    return shown;
}

static void sec_cost(struct gs_html *h, const struct gs_html_run *r, int n)
{
    char *probe = gs_html_path(r[0].prefix, "/cloud");
    int has = probe && gs_h5in_has(h->r, probe);
    free(probe);
    if (!has)
        return;
    gs_html_section(h, "cost", "Cost");
    fputs("<p>What the fleet was billed (USD), broken down; the jobs' "
          "shares of tiers and tenants leave the rest of the bill in the "
          "<q>idle</q> row.", h->fp);
    if (n > 1)
        fputs(" One run per policy (its first seed).", h->fp);
    fputs("</p>\n", h->fp);
    cost_table(h, r, n, "/cloud/pools", "pool", "paid_usd", "pool");
    cost_table(h, r, n, "/cloud/cost_by_market", "name", "cost_usd",
               "market");
    cost_table(h, r, n, "/cloud/cost_by_tier", "name", "cost_usd", "tier");
    cost_table(h, r, n, "/cloud/cost_by_tenant", "name", "cost_usd",
               "tenant");
    cost_table(h, r, n, "/cloud/cost_by_model", "name", "cost_usd",
               "GPU model");
    gs_html_section_end(h);
}

void gs_html_run_sections(struct gs_html *h, const struct gs_html_run *runs,
                          int n)
{
    if (n <= 0)
        return;
    sec_timeseries(h, runs, n);
    sec_waits(h, runs, n);
    sec_services(h, runs, n);
    sec_cost(h, runs, n);
}
