/* htmlpage.c -- the pieces every section of `gpusim report` writes with:
 * escaping, numbers, paths, sections and plots (htmlint.h).
 *
 * gs_html_esc is the one door for a string read from the file into the
 * page: the five characters HTML gives meaning to become entities, and a
 * byte that is not part of valid UTF-8 (RFC 3629: no overlong forms,
 * nothing past U+10FFFF) or a control character other than newline and
 * tab becomes U+FFFD, so the page is valid UTF-8 whatever the file held.
 * gs_html_plot draws a plot through svgplot.h into a <figure>, numbered in
 * the order drawn (its id prefixes the SVG's ids, so two plots' never
 * clash); when gnuplot fails the figure says so, stderr too, and the
 * command's exit status becomes 1. */
#include "htmlint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gs_html_esc(FILE *fp, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2
                 : (c & 0xF0) == 0xE0 ? 3
                 : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4 : 0;
        for (size_t j = 1; j < k; j++)
            if (i + j >= n || (u[i + j] & 0xC0) != 0x80)
                k = 0;
        if (k == 0 || (k == 1 && ((c < 0x20 && c != '\n' && c != '\t') ||
                                  c == 0x7F))) {
            fputs("\xEF\xBF\xBD", fp);      /* U+FFFD */
            i++;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default: fwrite(u + i, 1, k, fp);
        }
        i += k;
    }
}

void gs_html_num(FILE *fp, double v)
{
    if (!isfinite(v))
        fputs("-", fp);
    else if (fabs(v) >= 1e4 && fabs(v) < 1e15)
        fprintf(fp, "%.0f", v);
    else
        fprintf(fp, "%.4g", v);
}

char *gs_html_path(const char *prefix, const char *rest)
{
    char *p = NULL;
    return asprintf(&p, "%s%s", prefix, rest) < 0 ? NULL : p;
}

void gs_html_section(struct gs_html *h, const char *id, const char *title)
{
    fprintf(h->fp, "<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

void gs_html_section_end(struct gs_html *h)
{
    fputs("</section>\n", h->fp);
}

void gs_html_plot(struct gs_html *h, struct gs_plot *p, const char *caption)
{
    if (p == NULL || gs_plot_nseries(p) == 0) {
        gs_plot_free(p);
        return;
    }
    char *svg = NULL;
    int id = ++h->nplots;
    int rc = gs_plot_svg(p, h->dir, id, &svg);
    gs_plot_free(p);
    fprintf(h->fp, "<figure id=\"fig%d\">\n", id);
    if (rc == 0) {
        fputs(svg, h->fp);
    } else {
        h->nfailed++;
        fprintf(stderr, "gpusim: report: gnuplot could not draw figure %d "
                "(%s)\n", id, gs_strerror(rc));
        fputs("<p>(gnuplot could not draw this plot)</p>", h->fp);
    }
    fprintf(h->fp, "\n<figcaption>Figure %d. %s</figcaption>\n</figure>\n",
            id, caption);
    free(svg);
}
