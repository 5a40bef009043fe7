/* progress.h -- one progress line on a terminal: how far, how fast, how
 * long still.
 *
 * Long commands (`run`, `compare`, `place-exp`, `train`) draw one line on
 * stderr, rewritten in place ("\r" and erase-to-end-of-line), saying the
 * share done (of simulated time, jobs or runs), the rate and the time left
 * at that rate; it is erased when the work is done.  Nothing is drawn when
 * stderr is not a terminal (a pipe, a file, CI) or under --quiet, so logs
 * and captured output never hold it.
 *
 * This file and the CLI front ends are the only code under sim/ that reads
 * the wall clock (CLOCK_MONOTONIC): the simulation reports its state
 * through a hook (gs_sim_status in sim.h), and what is drawn never reaches
 * stdout or a result file, which stay byte-identical for the same inputs.
 * The line is redrawn at most 10 times a second; the first report draws at
 * once, so even a short task shows it. */
#ifndef GS_PROGRESS_H
#define GS_PROGRESS_H

#include "../core/sim.h"

struct gs_progress {
    const char *what;           /* "run", "compare", ... (static text) */
    int on;                     /* drawing (a terminal, not quiet) */
    int drawn;                  /* a line is on the screen */
    double t0, last;            /* wall-clock seconds: start, last drawn */
};

/* Start: p->on = !quiet && stderr is a terminal. */
void gs_progress_init(struct gs_progress *p, const char *what, int quiet);
/* done of total units ("runs", "seeds"); total <= 0: unknown, only done
 * and the rate are shown. */
void gs_progress_count(struct gs_progress *p, double done, double total,
                       const char *unit);
/* A simulation's status (gs_sim_status_fn; ctx is a struct gs_progress). */
void gs_progress_sim(void *ctx, const struct gs_sim_status *st);
/* Erase the line, if one was drawn. */
void gs_progress_end(struct gs_progress *p);
/* Wall-clock seconds since gs_progress_init. */
double gs_progress_elapsed(const struct gs_progress *p);

#endif
