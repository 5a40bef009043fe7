/* htmlint.h -- the parts of `gpusim report` (htmlrep.c) shared by its
 * sections: the page being written, escaping, numbers, plots.
 *
 * htmlrep.c owns the command and the page's frame; htmlpage.c these
 * shared pieces (escaping, numbers, sections, plots); htmlrun.c the
 * sections a run's data gives (over one run, or one run per policy of a
 * comparison); htmlcmp.c a comparison's answer; htmlplan.c a plan's. Every
 * string that came from the file is written through gs_html_esc. */
#ifndef GS_HTMLINT_H
#define GS_HTMLINT_H

#include "../io/h5in.h"
#include "svgplot.h"

#include <stdio.h>

struct gs_html {
    FILE *fp;               /* the page (memory) */
    struct gs_h5in *r;      /* the file read */
    const char *dir;        /* scratch folder for gnuplot, absolute */
    int nplots;             /* plots drawn, the next one's id */
    int nfailed;            /* plots gnuplot could not draw */
};

/* One run of the file: its group ("" for a run file's root, else e.g.
 * "/runs/fifo/seed0") and what to call it in legends ("" for the only
 * run). */
struct gs_html_run {
    char *prefix, *label;
};

/* s HTML-escaped (& < > " ' as entities, bytes that are not UTF-8 and
 * control characters other than newline and tab as U+FFFD). */
void gs_html_esc(FILE *fp, const char *s);
/* v as "%.4g", whole from 10^4 up (28420, not 2.842e+04), "-" when not
 * finite. */
void gs_html_num(FILE *fp, double v);
/* prefix + rest, malloc'ed (NULL when out of memory). */
char *gs_html_path(const char *prefix, const char *rest);
/* <section id=ID><h2>TITLE</h2> and its end. */
void gs_html_section(struct gs_html *h, const char *id, const char *title);
void gs_html_section_end(struct gs_html *h);
/* Draw p (then freed) as an inline SVG figure with caption (constant
 * text); nothing when p holds no series; a note when gnuplot failed. */
void gs_html_plot(struct gs_html *h, struct gs_plot *p, const char *caption);

/* htmlrun.c: a run's headline and every section its data gives, for the
 * n runs given (one: per tier, per service; several: one series each). */
void gs_html_run_answer(struct gs_html *h);
void gs_html_run_sections(struct gs_html *h, const struct gs_html_run *runs,
                          int n);
/* htmlcmp.c: a comparison's ranking and paired differences; the runs
 * shown (each policy's first seed) into *runs (freed by
 * gs_html_runs_free). */
void gs_html_compare_answer(struct gs_html *h);
int gs_html_compare_runs(struct gs_html *h, struct gs_html_run **runs);
void gs_html_runs_free(struct gs_html_run *runs, int n);
/* htmlplan.c: a plan's answer, targets and Pareto front. */
void gs_html_plan(struct gs_html *h);

#endif
