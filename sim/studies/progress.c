/* progress.c -- the progress line of long commands (see progress.h).
 *
 * The time left is the elapsed time scaled by what is still to do:
 * elapsed * (1 - f) / f for a share f done, the estimate of a constant
 * rate.  It is shown from the second redraw on (the first has no rate to
 * go by).  Only this file reads the wall clock for it. */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void gs_progress_init(struct gs_progress *p, const char *what, int quiet)
{
    p->what = what;
    p->on = !quiet && isatty(2);
    p->drawn = 0;
    p->t0 = p->last = now_s();
}

double gs_progress_elapsed(const struct gs_progress *p)
{
    return now_s() - p->t0;
}

/* 1 when the line is due: the first time, then every 0.1 s. */
static int due(struct gs_progress *p, double *el)
{
    if (!p->on)
        return 0;
    double t = now_s();
    if (p->drawn && t - p->last < 0.1)
        return 0;
    p->last = t;
    *el = t - p->t0;
    return 1;
}

/* ", about N s left" for share f done after el seconds, into buf. */
static void left(char *buf, size_t n, double f, double el, int first)
{
    buf[0] = '\0';
    if (first || !(f > 0 && f < 1) || el <= 0)
        return;
    double s = el * (1 - f) / f;
    if (s < 90)
        snprintf(buf, n, ", about %.0f s left", s);
    else if (s < 5400)
        snprintf(buf, n, ", about %.0f min left", s / 60);
    else
        snprintf(buf, n, ", about %.1f h left", s / 3600);
}

static void draw(struct gs_progress *p, const char *text)
{
    fprintf(stderr, "\rgpusim: %s: %s\033[K", p->what, text);
    fflush(stderr);
    p->drawn = 1;
}

void gs_progress_count(struct gs_progress *p, double done, double total,
                       const char *unit)
{
    double el;
    int first = !p->drawn;
    if (!due(p, &el))
        return;
    char text[256], eta[64];
    double rate = el > 0 ? done / el : 0;
    if (total > 0) {
        left(eta, sizeof eta, done / total, el, first);
        snprintf(text, sizeof text, "%.0f/%.0f %s (%.0f%%), %.3g %s/s%s",
                 done, total, unit, 100 * done / total, rate, unit, eta);
    } else {
        snprintf(text, sizeof text, "%.0f %s, %.3g %s/s", done, unit, rate,
                 unit);
    }
    draw(p, text);
}

void gs_progress_sim(void *ctx, const struct gs_sim_status *st)
{
    struct gs_progress *p = ctx;
    double el;
    int first = !p->drawn;
    if (!due(p, &el))
        return;
    char text[256], eta[64];
    double rate = el > 0 ? st->sim_h / el : 0;
    if (st->frac >= 0) {
        left(eta, sizeof eta, st->frac, el, first);
        snprintf(text, sizeof text, "%.0f%% (%.1f simulated h, %ld jobs "
                 "ended), %.3g simulated h/s%s", 100 * st->frac, st->sim_h,
                 st->jobs_ended, rate, eta);
    } else {
        snprintf(text, sizeof text, "%.1f simulated h, %ld jobs ended, %ld "
                 "waiting, %ld running, %.3g simulated h/s", st->sim_h,
                 st->jobs_ended, st->pending, st->running, rate);
    }
    draw(p, text);
}

void gs_progress_end(struct gs_progress *p)
{
    if (p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->drawn = 0;
}
