/* question.h -- which question a run answers (finite horizon or steady
 * state) and, for a steady-state run, its estimates from the retained
 * window: each service's TTFT p99 and mean, and the jobs' wait p99 and
 * mean, with the warm-up deleted, the batch count and the interval method.
 *
 * docs/planning.md ("Steady state or finite horizon") says what a user
 * should choose and why; the statistics are base/steady.h's. */
#ifndef GS_QUESTION_H
#define GS_QUESTION_H

#include "../base/steady.h"

#include <stdio.h>

struct gs_sim;
struct gs_scenario;

/* The question of a scenario, the one rule of run, compare, sweep and
 * plan: its "question" key, or by default steady state when every arrival
 * stream (the jobs', each service's requests) is generated at a constant
 * rate (no day cycle, weekly dip or hourly profile; MMPP bursts are
 * stationary), and finite horizon otherwise (a trace, a cycle, no
 * generated arrivals).  *why (may be NULL) says which rule decided. */
int gs_question_of(const struct gs_scenario *sc, const char **why);

#define GS_QUESTION_MAX 16
#define GS_QUESTION_WHAT 96

/* One steady-state estimate. */
struct gs_question_est {
    char what[GS_QUESTION_WHAT];    /* "chat ttft_p99_s", "wait_mean_s" */
    int rc;                 /* 0, or GS_ERANGE: too few values to tell */
    struct gs_steady st;
};

struct gs_question {
    int question;           /* enum gs_horizon */
    const char *why;
    int nest;
    struct gs_question_est est[GS_QUESTION_MAX];
};

/* The names of the estimates a steady-state analysis of sc gives, in
 * its order, into what[GS_QUESTION_MAX]: each service's "NAME ttft_p99_s"
 * and "NAME ttft_mean_s", then, with a job workload, "wait_p99_s" and
 * "wait_mean_s".  Their count. */
int gs_question_names(const struct gs_scenario *sc,
                      char (*what)[GS_QUESTION_WHAT]);

/* Analyse a finished run: the question, and for steady state the
 * estimates (0, or GS_ENOMEM). */
int gs_question_analyse(const struct gs_sim *s, struct gs_question *q);

/* Precision of a steady-state analysis: 1 when every estimate's 95%
 * interval is within rel of it (relative half-width), its batches pass the
 * independence check, its warm-up is not at the half-way bound and (p99)
 * each section holds GS_QUANTILE_TAIL values beyond the quantile; *worst
 * receives the largest relative half-width (NaN when one is undefined).
 * A finite-horizon analysis is 1 (its intervals are compare's). */
int gs_question_precise(const struct gs_question *q, double rel,
                        double *worst);

/* Requests (jobs, without services) a steady-state run of sc generates;
 * 0 when a stream is limited only by time.  gs_question_set_length scales
 * generated jobs beside services by the requests' factor. */
long gs_question_length(const struct gs_scenario *sc);

/* Make every generated stream of sc n long (requests, or jobs): each
 * service's count scaled by n / gs_question_length(sc), at least 1. */
void gs_question_set_length(struct gs_scenario *sc, long n);

/* The summary's lines, and its --json member (",\n  \"question\": {...}",
 * to follow another member). */
void gs_question_table(FILE *fp, const struct gs_question *q);
void gs_question_json(FILE *fp, const struct gs_question *q);

/* The interval method of estimate k: the pooled quantile's sectioning
 * (even k, each service's or the jobs' p99) or batch means (odd k, the
 * mean).  h5out.c writes the analysis into the result file's /question
 * group (kind, why, estimates). */
const char *gs_question_method(int k);

#endif
