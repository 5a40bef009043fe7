/* svgplot.c -- a plot as inline SVG, drawn by gnuplot from data files.
 *
 * See svgplot.h.  The script (SCRIPT below) is constant text.  Its
 * arguments: ARG1 the SVG to write, ARG2..ARG4 the data files of the
 * lines, the points and the marks (one block a series, blocks apart by
 * two blank lines), ARG5 numbers "NL NP NM XMIN XMAX YMIN YMAX LOGX",
 * ARG6 the titles of every series in that order, each after a unit
 * separator (0x1F: so the argument never starts with a title, which
 * gnuplot.h would refuse if it began with '<' or '|'), ARG7 and ARG8 the
 * axis labels.  A title is cut to
 * TITLE_MAX bytes (on a UTF-8 boundary), its control characters made
 * spaces and bytes that are not UTF-8 made '?', so that it is one string
 * gnuplot can show; the page prints the whole name, HTML-escaped, beside
 * the plot.  Numbers are written "%.9g", the same bytes for the same file.
 *
 * The ranges: x from the least to the greatest x over every series, y
 * likewise (from 0, or up to 1, when asked), widened when a range is one
 * value (by 1 either way, or by a factor 2 on a log axis) and by 5% at
 * the top of y so a line at its maximum stays visible; a plot of points
 * is widened by 5% on every side but the top's, so no point sits on an
 * axis. */
#include "svgplot.h"

#include "../base/err.h"
#include "../io/gnuplot.h"
#include "../io/jsonio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_MAX 60

struct series {
    char *title;
    enum gs_plot_style style;
    double *x, *y;
    size_t n;
};

struct gs_plot {
    char *xlabel, *ylabel;
    int logx, yfrom0, yto1;
    struct series *s;
    int n, cap;
};

static const char SCRIPT[] =
"# gpusim report: one plot; every string and path arrives as data\n"
"SEP = \"\\037\"\n"
"nth(s, i) = i <= 1 ? (strstrt(s, SEP) > 0 ? s[1:strstrt(s, SEP) - 1] : s)"
" : nth(s[strstrt(s, SEP) + 1:], i - 1)\n"
"set terminal svg size 760,380 font \"sans,11\" noenhanced "
"background \"#ffffff\"\n"
"set output ARG1\n"
"set datafile separator \"\\t\"\n"
"NL = int(word(ARG5, 1))\n"
"NP = int(word(ARG5, 2))\n"
"NM = int(word(ARG5, 3))\n"
"set xrange [real(word(ARG5, 4)):real(word(ARG5, 5))]\n"
"set yrange [real(word(ARG5, 6)):real(word(ARG5, 7))]\n"
"if (int(word(ARG5, 8))) set logscale x\n"
"set xlabel ARG7 noenhanced\n"
"set ylabel ARG8 noenhanced\n"
"set grid lc rgb \"#dddddd\"\n"
"set key outside below noenhanced\n"
"set border 3\n"
"set tics nomirror\n";

/* The plot command's clauses, one per style; the script plots the
 * non-empty ones (an empty file would make gnuplot warn). */
static const char *const CLAUSE[3] = {
    "for [i=1:NL] ARG2 index (i - 1) using 1:2 with lines lw 2 lc i "
    "title nth(ARG6, i + 1)",
    "for [i=1:NP] ARG3 index (i - 1) using 1:2 with points pt 7 ps 0.9 "
    "lc (NL + i) title nth(ARG6, NL + i + 1)",
    "for [i=1:NM] ARG4 index (i - 1) using 1:2 with points pt 6 ps 2.6 "
    "lw 2 lc rgb \"#d62728\" title nth(ARG6, NL + NP + i + 1)",
};

struct gs_plot *gs_plot_new(const char *xlabel, const char *ylabel,
                            int logx)
{
    struct gs_plot *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->xlabel = strdup(xlabel);
    p->ylabel = strdup(ylabel);
    p->logx = logx;
    if (p->xlabel == NULL || p->ylabel == NULL) {
        gs_plot_free(p);
        return NULL;
    }
    return p;
}

void gs_plot_free(struct gs_plot *p)
{
    if (p == NULL)
        return;
    for (int i = 0; i < p->n; i++) {
        free(p->s[i].title);
        free(p->s[i].x);
        free(p->s[i].y);
    }
    free(p->s);
    free(p->xlabel);
    free(p->ylabel);
    free(p);
}

void gs_plot_yfrom0(struct gs_plot *p) { p->yfrom0 = 1; }
void gs_plot_yto1(struct gs_plot *p) { p->yto1 = 1; }
int gs_plot_nseries(const struct gs_plot *p) { return p->n; }

/* UTF-8 sequence length at s (at most n bytes left), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2
             : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4
             : 0;
    if (k == 0 || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return k;
}

/* The title as gnuplot is given it (see the essay); malloc'ed. */
static char *clean_title(const char *t)
{
    size_t n = strlen(t), o = 0, i = 0;
    char *out = malloc(TITLE_MAX + 8);
    if (out == NULL)
        return NULL;
    while (i < n && o < TITLE_MAX) {
        const unsigned char *u = (const unsigned char *)t + i;
        size_t k = utf8_len(u, n - i);
        if (k == 0) {
            out[o++] = '?';
            i++;
        } else if (k == 1) {
            out[o++] = u[0] < 0x20 || u[0] == 0x7F ? ' ' : (char)u[0];
            i++;
        } else {
            if (o + k > TITLE_MAX)
                break;
            memcpy(out + o, u, k);
            o += k;
            i += k;
        }
    }
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    if (o == 0)
        out[o++] = '-';
    out[o] = '\0';
    return out;
}

static int keep(const struct gs_plot *p, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!p->logx || x > 0);
}

int gs_plot_add(struct gs_plot *p, const char *title,
                enum gs_plot_style style, const double *x, const double *y,
                size_t n)
{
    size_t good = 0;
    for (size_t i = 0; i < n; i++)
        good += keep(p, x[i], y[i]);
    if (good == 0)
        return 0;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        struct series *ns = realloc(p->s, (size_t)cap * sizeof *ns);
        if (ns == NULL)
            return GS_ENOMEM;
        p->s = ns;
        p->cap = cap;
    }
    size_t m = good < GS_PLOT_MAXPTS ? good : GS_PLOT_MAXPTS;
    struct series *s = &p->s[p->n];
    s->title = clean_title(title);
    s->style = style;
    s->x = malloc(m * sizeof *s->x);
    s->y = malloc(m * sizeof *s->y);
    s->n = m;
    if (s->title == NULL || s->x == NULL || s->y == NULL) {
        free(s->title);
        free(s->x);
        free(s->y);
        return GS_ENOMEM;
    }
    /* keep good point j when it is the first at or past slot k * good / m
     * (so the first and the last good points are always kept) */
    size_t j = 0, k = 0;
    for (size_t i = 0; i < n && k < m; i++) {
        if (!keep(p, x[i], y[i]))
            continue;
        size_t want = m == 1 ? good - 1
                             : (size_t)((double)k * (double)(good - 1) /
                                        (double)(m - 1) + 0.5);
        if (j >= want) {
            s->x[k] = x[i];
            s->y[k] = y[i];
            k++;
        }
        j++;
    }
    s->n = k;
    p->n++;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int gs_plot_add_cdf(struct gs_plot *p, const char *title, const double *v,
                    size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof *x), *y = NULL;
    if (x == NULL)
        return GS_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            x[k++] = v[i];
    qsort(x, k, sizeof *x, cmp_double);
    /* one point per distinct value: (value, share of values <= it) */
    y = malloc((k ? k : 1) * sizeof *y);
    if (y == NULL) {
        free(x);
        return GS_ENOMEM;
    }
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (i + 1 < k && x[i + 1] == x[i])
            continue;
        x[m] = x[i];
        y[m++] = (double)(i + 1) / (double)k;
    }
    int rc = gs_plot_add(p, title, GS_PLOT_LINES, x, y, m);
    free(x);
    free(y);
    return rc;
}

/* Write the series of one style into path, one block each. */
static int write_data(const struct gs_plot *p, enum gs_plot_style st,
                      const char *path, int *count)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return GS_EIO;
    *count = 0;
    for (int i = 0; i < p->n; i++) {
        if (p->s[i].style != st)
            continue;
        if ((*count)++ > 0)
            fputs("\n\n", f);
        for (size_t k = 0; k < p->s[i].n; k++)
            fprintf(f, "%.9g\t%.9g\n", p->s[i].x[k], p->s[i].y[k]);
    }
    return fclose(f) == 0 ? 0 : GS_EIO;
}

/* "NL NP NM XMIN XMAX YMIN YMAX LOGX" (see the essay). */
static void ranges(const struct gs_plot *p, const int cnt[3], char *buf,
                   size_t len)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int i = 0; i < p->n; i++)
        for (size_t k = 0; k < p->s[i].n; k++) {
            x0 = fmin(x0, p->s[i].x[k]);
            x1 = fmax(x1, p->s[i].x[k]);
            y0 = fmin(y0, p->s[i].y[k]);
            y1 = fmax(y1, p->s[i].y[k]);
        }
    int pts = cnt[1] + cnt[2] > 0;
    if (pts && !p->logx && x1 > x0) {       /* points off the axes */
        double w = x1 - x0;
        x0 -= 0.05 * w;
        x1 += 0.05 * w;
    }
    if (pts && y1 > y0)
        y0 -= 0.05 * (y1 - y0);
    if (p->yfrom0)
        y0 = fmin(y0, 0);
    if (p->yto1)
        y1 = fmax(y1, 1);
    if (x1 <= x0) {
        x0 = p->logx ? x0 / 2 : x0 - 1;
        x1 = p->logx ? x1 * 2 : x1 + 1;
    }
    if (y1 <= y0) {
        y0 -= 1;
        y1 += 1;
    }
    y1 += 0.05 * (y1 - y0);
    snprintf(buf, len, "%d %d %d %.9g %.9g %.9g %.9g %d", cnt[0], cnt[1],
             cnt[2], x0, x1, y0, y1, p->logx);
}

/* Every title, in the order lines, points, marks, each after 0x1F. */
static char *titles(const struct gs_plot *p)
{
    size_t len = 1;
    for (int i = 0; i < p->n; i++)
        len += strlen(p->s[i].title) + 1;
    char *t = malloc(len), *o = t;
    if (t == NULL)
        return NULL;
    for (int st = GS_PLOT_LINES; st <= GS_PLOT_MARK; st++)
        for (int i = 0; i < p->n; i++)
            if ((int)p->s[i].style == st) {
                *o++ = '\037';
                size_t k = strlen(p->s[i].title);
                memcpy(o, p->s[i].title, k);
                o += k;
            }
    *o = '\0';
    return t;
}

/* Copy gnuplot's SVG from "<svg" on into fp: text outside tags has '>'
 * escaped; inside tags, id='X' becomes id='pID-X' and references to #X
 * (href, url()) follow. */
static void svg_inline(FILE *fp, const char *svg, int id)
{
    const char *s = strstr(svg, "<svg");
    int intag = 0;
    for (; s && *s; s++) {
        if (!intag && *s == '>') {
            fputs("&gt;", fp);
            continue;
        }
        if (*s == '<')
            intag = 1;
        else if (*s == '>')
            intag = 0;
        fputc(*s, fp);
        if (!intag)
            continue;
        if ((strncmp(s, "id=", 3) == 0 && (s == svg || s[-1] == ' ')) &&
            (s[3] == '\'' || s[3] == '"')) {
            fprintf(fp, "d=%cp%d-", s[3], id);
            s += 3;
        } else if (*s == '#' &&
                   ((s - svg >= 6 && strncmp(s - 6, "href=", 5) == 0 &&
                     (s[-1] == '\'' || s[-1] == '"')) ||
                    (s - svg >= 4 && strncmp(s - 4, "url(", 4) == 0))) {
            fprintf(fp, "p%d-", id);
        }
    }
}

/* SCRIPT, then one plot command for each set of non-empty styles, under
 * the condition that exactly those are non-empty. */
static int write_script(FILE *g)
{
    static const char *const count[3] = { "NL", "NP", "NM" };
    fputs(SCRIPT, g);
    for (int mask = 1; mask < 8; mask++) {
        fputs("if (", g);
        for (int k = 0; k < 3; k++)
            fprintf(g, "%s%s %s 0", k ? " && " : "", count[k],
                    mask & (1 << k) ? ">" : "==");
        fputs(") {\n    plot ", g);
        for (int k = 0, first = 1; k < 3; k++)
            if (mask & (1 << k)) {
                fprintf(g, "%s%s", first ? "" : ", \\\n         ", CLAUSE[k]);
                first = 0;
            }
        fputs("\n}\n", g);
    }
    return ferror(g) ? GS_EIO : 0;
}

/* The four data and output paths of plot id in dir; malloc'ed. */
static int plot_paths(const char *dir, int id, char *path[5])
{
    static const char *const suf[5] = { "svg", "lines", "points", "marks",
                                        "gp" };
    for (int i = 0; i < 5; i++)
        if (asprintf(&path[i], "%s/plot%d.%s", dir, id, suf[i]) < 0) {
            while (i-- > 0)
                free(path[i]);
            return GS_ENOMEM;
        }
    return 0;
}

int gs_plot_svg(const struct gs_plot *p, const char *dir, int id,
                char **svg)
{
    *svg = NULL;
    if (p->n == 0)
        return GS_ENOTFOUND;
    char *path[5], nums[256];
    if (plot_paths(dir, id, path) < 0)
        return GS_ENOMEM;
    int cnt[3] = { 0, 0, 0 }, rc = 0;
    for (int st = 0; st < 3 && rc == 0; st++)
        rc = write_data(p, (enum gs_plot_style)st, path[1 + st], &cnt[st]);
    FILE *g = rc == 0 ? fopen(path[4], "w") : NULL;
    if (rc == 0 && (g == NULL || write_script(g) < 0))
        rc = GS_EIO;
    if (g && fclose(g) != 0)
        rc = GS_EIO;
    char *t = rc == 0 ? titles(p) : NULL;
    if (rc == 0 && t == NULL)
        rc = GS_ENOMEM;
    if (rc == 0) {
        ranges(p, cnt, nums, sizeof nums);
        const char *args[8] = { path[0], path[1], path[2], path[3], nums, t,
                                p->xlabel, p->ylabel };
        if (gs_gnuplot_run(path[4], args, 8) != 0)
            rc = GS_EIO;
    }
    char *raw = NULL;
    FILE *in = rc == 0 ? fopen(path[0], "rb") : NULL;
    if (in) {
        int err;
        raw = gs_read_all(in, 0, &err);
        fclose(in);
    }
    if (rc == 0 && (raw == NULL || strstr(raw, "<svg") == NULL))
        rc = GS_EIO;
    size_t len = 0;
    FILE *m = rc == 0 ? open_memstream(svg, &len) : NULL;
    if (rc == 0 && m == NULL)
        rc = GS_ENOMEM;
    if (m) {
        svg_inline(m, raw, id);
        if (fclose(m) != 0)
            rc = GS_ENOMEM;
    }
    free(raw);
    free(t);
    for (int i = 0; i < 5; i++) {
        remove(path[i]);
        free(path[i]);
    }
    if (rc < 0) {
        free(*svg);
        *svg = NULL;
    }
    return rc;
}
