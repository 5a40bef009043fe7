/* svgplot.h -- a plot as inline SVG, drawn by gnuplot from data files.
 *
 * `gpusim report` collects each plot's series here (lines, points, and
 * marked points: the plan chosen on a front) and gs_plot_svg draws it
 * with gnuplot's svg terminal.  gnuplot runs on a constant script that
 * gpusim writes into a scratch folder; everything else reaches it as data
 * (io/gnuplot.h): the series as numbers in tab-separated files, the
 * titles and axis labels as `gnuplot -c` arguments (string variables,
 * never parsed as code), every path absolute.  The axis ranges are
 * computed here, so gnuplot never meets an empty range (and never warns).
 * Its SVG is then made fit to inline in a page: the XML prolog dropped,
 * every id given the plot's own prefix (so two plots' ids never clash),
 * and '>' in text escaped too (gnuplot escapes '<' and '&'; "]]>" in a
 * title stays text).
 *
 * A series keeps at most GS_PLOT_MAXPTS points (evenly thinned, the
 * last one kept); points with a non-finite coordinate (or x <= 0 on a log
 * x axis) are dropped, and a series left with none is not added. */
#ifndef GS_SVGPLOT_H
#define GS_SVGPLOT_H

#include <stddef.h>

#define GS_PLOT_MAXPTS 600

enum gs_plot_style { GS_PLOT_LINES, GS_PLOT_POINTS, GS_PLOT_MARK };

struct gs_plot;

/* A new plot (NULL when out of memory); labels are copied. */
struct gs_plot *gs_plot_new(const char *xlabel, const char *ylabel,
                            int logx);
void gs_plot_free(struct gs_plot *p);

/* Add a series (title and points copied).  0, or GS_ENOMEM. */
int gs_plot_add(struct gs_plot *p, const char *title,
                enum gs_plot_style style, const double *x, const double *y,
                size_t n);
/* Add the empirical CDF of v[0..n) as a line: P(X <= x) over all n
 * values (a value <= 0 on a log axis counts but is not drawn). */
int gs_plot_add_cdf(struct gs_plot *p, const char *title, const double *v,
                    size_t n);
/* Make the y axis start at 0 (counts, GPUs) or end at 1 (shares). */
void gs_plot_yfrom0(struct gs_plot *p);
void gs_plot_yto1(struct gs_plot *p);

/* Series holding at least one point. */
int gs_plot_nseries(const struct gs_plot *p);

/* Draw p as SVG with gnuplot, its files in the scratch folder dir
 * (absolute), ids prefixed "pID-".  *svg is malloc'ed.  0; GS_ENOTFOUND
 * when p has no series; GS_EIO when gnuplot could not run or failed;
 * GS_ENOMEM. */
int gs_plot_svg(const struct gs_plot *p, const char *dir, int id,
                char **svg);

#endif
