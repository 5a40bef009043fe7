/* question.c -- which question a run answers, and its steady-state
 * estimates.
 *
 * gs_question_of is the one rule every command follows (run, compare,
 * sweep and plan): the scenario's "question" key when it states one, or
 * else steady state when every arrival stream -- the jobs' and those the
 * models bring (model.h's arrivals hook: each service's requests) -- is
 * generated at a constant rate, and finite horizon when one is a trace or
 * has a cycle (day, week, hour).  This file names no model.
 *
 * A finite-horizon run (a trace, a day with its cycle) is summarized over
 * the whole run, as every summary field already is; its intervals come
 * from replications (`gpusim compare`, `sweep`).  A steady-state run
 * (arrivals generated at a constant rate, jobs or requests) asks what the
 * fleet settles at: each series a model gives through its hooks
 * (model.h: the services' is each service's TTFT over its finished
 * requests, in arrival order) has its MSER-5 warm-up deleted;
 * the p99 is the quantile of all retained requests pooled, with its
 * sectioning interval over 20 sections, and the mean has a 20-batch-means
 * interval (base/steady.c has the methods and their sources).  A job
 * workload without services gets the same for its jobs' waits in arrival
 * order (an M/M/c queue's mean wait is Erlang C's: tests/test_steady.c).
 * The whole-run summary fields stay as they are: the steady-state
 * estimates are reported beside them, never in their place. */
#include "question.h"
#include "../spec/scenario.h"
#include "../base/err.h"
#include "../core/sim.h"
#include "../core/model.h"
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The default question of sc from its arrival streams (sc->question not
 * stated): the first stream that is not a stationary generator makes it
 * finite horizon, and says why. */
static int question_of_load(const struct gs_scenario *sc, const char **why)
{
    if (sc->wl_kind == GS_WL_TRACE) {
        *why = "a job trace replayed";
        return GS_HORIZON_FINITE;
    }
    if (sc->wl_kind == GS_WL_GENERATE && !gs_gen_stationary(&sc->gen)) {
        *why = "a job arrival rate with a cycle";
        return GS_HORIZON_FINITE;
    }
    int streams = 0;
    for (int i = 0; gs_model_out(i); i++) {
        const struct gs_model_ops *m = gs_model_out(i);
        int n = m->arrivals ? m->arrivals(sc, why) : 0;
        if (n < 0)
            return GS_HORIZON_FINITE;
        streams += n;
    }
    if (sc->wl_kind != GS_WL_GENERATE && streams == 0) {
        *why = "no generated arrivals";
        return GS_HORIZON_FINITE;
    }
    *why = "arrivals generated at a constant rate";
    return GS_HORIZON_STEADY;
}

int gs_question_of(const struct gs_scenario *sc, const char **why)
{
    const char *w;
    int q;
    if (sc->question > 0) {
        q = sc->question == 2 ? GS_HORIZON_STEADY : GS_HORIZON_FINITE;
        w = "stated by the scenario";
    } else {
        q = question_of_load(sc, &w);
    }
    if (why)
        *why = w;
    return q;
}

int gs_question_names(const struct gs_scenario *sc,
                      char (*what)[GS_QUESTION_WHAT])
{
    int n = 0;
    for (int i = 0; gs_model_out(i); i++) {
        const struct gs_model_ops *m = gs_model_out(i);
        int ns = m->nseries ? m->nseries(sc) : 0;
        for (int j = 0; j < ns; j++) {
            char name[80];
            m->series_name(sc, j, name, sizeof name);
            for (int k = 0; k < 2 && n < GS_QUESTION_MAX; k++)
                snprintf(what[n++], GS_QUESTION_WHAT, "%s_%s", name,
                         k == 0 ? "p99_s" : "mean_s");
        }
    }
    if (sc->wl_kind != GS_WL_NONE)      /* the jobs' waits, beside the
                                           models' series if any */
        for (int k = 0; k < 2 && n < GS_QUESTION_MAX; k++)
            snprintf(what[n++], GS_QUESTION_WHAT, "wait_%s",
                     k == 0 ? "p99_s" : "mean_s");
    return n;
}

/* Estimates q->est[*k] and the next (their names set): the p99 and the
 * mean of x[0..n), the series in arrival order. */
static void add_pair(struct gs_question *q, int *k, const double *x, long n)
{
    if (*k + 2 <= q->nest && n >= 10) {     /* the warm-up found once */
        struct gs_question_est *e = &q->est[*k];
        e[0].rc = gs_steady_pair(x, n, 0.99, 0, 0.95, &e[0].st, &e[1].st,
                                 &e[1].rc);
        *k += 2;
        return;
    }
    for (int j = 0; j < 2 && *k < q->nest; j++) {
        struct gs_question_est *e = &q->est[(*k)++];
        e->rc = n < 10 ? GS_ERANGE
                : j == 0 ? gs_steady_quantile(x, n, 0.99, 0, 0.95, &e->st)
                         : gs_steady_mean(x, n, 0, 0.95, &e->st);
    }
}

int gs_question_analyse(const struct gs_sim *s, struct gs_question *q)
{
    const struct gs_scenario *sc = gs_sim_scenario(s);
    memset(q, 0, sizeof *q);
    q->question = gs_question_of(sc, &q->why);
    if (q->question != GS_HORIZON_STEADY)
        return 0;
    char what[GS_QUESTION_MAX][GS_QUESTION_WHAT];
    q->nest = gs_question_names(sc, what);
    for (int i = 0; i < q->nest; i++)
        memcpy(q->est[i].what, what[i], GS_QUESTION_WHAT);
    int k = 0;
    for (int i = 0; gs_model_out(i); i++) {
        const struct gs_model_ops *m = gs_model_out(i);
        int ns = m->nseries ? m->nseries(sc) : 0;
        for (int j = 0; j < ns; j++) {
            double *x = NULL;
            long n = 0;
            int mine = m->series(s, gs_sim_model(s, m), j, &x, &n);
            if (mine < 0)
                return GS_ENOMEM;
            add_pair(q, &k, x, n);
            if (mine == 0)
                free(x);
        }
    }
    if (sc->wl_kind != GS_WL_NONE) {
        long n, m = 0;
        const struct gs_jobrec *r = gs_sim_records(s, &n);
        double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
        if (x == NULL)
            return GS_ENOMEM;
        for (long j = 0; j < n; j++)    /* records are in arrival order */
            if (r[j].start >= 0)
                x[m++] = (double)(r[j].start - r[j].arrival) / 1000.0;
        add_pair(q, &k, x, m);
        free(x);
    }
    return 0;
}

int gs_question_precise(const struct gs_question *q, double rel,
                        double *worst)
{
    int ok = 1;
    double w = 0;
    for (int i = 0; i < q->nest; i++) {
        const struct gs_question_est *e = &q->est[i];
        if (e->rc < 0) {
            ok = 0;
            w = NAN;
            continue;
        }
        double h = gs_ci_rel(&e->st.ci);
        if (!gs_ci_precise(&e->st.ci, rel) || !e->st.independent ||
            e->st.warmup_at_limit ||
            (i % 2 == 0 && e->st.tail < GS_QUANTILE_TAIL))
            ok = 0;
        if (isnan(h) || isnan(w))
            w = gs_ci_precise(&e->st.ci, 0) ? w : NAN;
        else if (h > w)
            w = h;
    }
    if (worst)
        *worst = w;
    return ok;
}

/* The arrivals the models' streams generate (-1: no model has a stream;
 * 0: one is a trace or limited only by time). */
static long models_length(const struct gs_scenario *sc)
{
    long n = -1;
    for (int i = 0; gs_model_out(i); i++) {
        const struct gs_model_ops *m = gs_model_out(i);
        long r = m->length ? m->length(sc) : -1;
        if (r == 0)
            return 0;
        if (r > 0)
            n = (n < 0 ? 0 : n) + r;
    }
    return n;
}

long gs_question_length(const struct gs_scenario *sc)
{
    if (sc->wl_kind == GS_WL_GENERATE && sc->gen.jobs <= 0)
        return 0;                       /* the jobs limited only by time */
    long n = models_length(sc);
    if (n < 0)                          /* jobs alone */
        return sc->wl_kind == GS_WL_GENERATE ? (long)sc->gen.jobs : 0;
    return n;
}

void gs_question_set_length(struct gs_scenario *sc, long n)
{
    long now = gs_question_length(sc);
    if (now <= 0 || n <= 0)
        return;
    double f = (double)n / (double)now;
    if (models_length(sc) < 0) {
        sc->gen.jobs = n;
        return;
    }
    if (sc->wl_kind == GS_WL_GENERATE) {    /* jobs beside the models' */
        long j = (long)llround((double)sc->gen.jobs * f);
        sc->gen.jobs = j > 0 ? j : 1;
    }
    for (int i = 0; gs_model_out(i); i++)
        if (gs_model_out(i)->set_length)
            gs_model_out(i)->set_length(sc, f);
}

const char *gs_question_method(int k)
{
    return k % 2 == 0 ? "pooled quantile, sectioning interval"
                      : "batch means";
}

void gs_question_table(FILE *fp, const struct gs_question *q)
{
    fprintf(fp, "\n  question     %s (%s)%s\n",
            q->question == GS_HORIZON_STEADY ? "steady state" : "finite horizon",
            q->why, q->question == GS_HORIZON_STEADY
            ? ": warm-up deleted (MSER-5), estimates from the rest"
            : ": estimates over the whole run; intervals over replications "
              "(compare, sweep)");
    for (int i = 0; i < q->nest; i++) {
        const struct gs_question_est *e = &q->est[i];
        if (e->rc < 0) {
            fprintf(fp, "  %-24s too few values for a steady-state "
                    "estimate\n", e->what);
            continue;
        }
        fprintf(fp, "  %-24s %.6g ± %.2g (95%%, %d %s; %s), warm-up %ld of "
                "%ld deleted%s%s\n", e->what, e->st.ci.est, e->st.ci.half,
                e->st.batches, i % 2 == 0 ? "sections" : "batches",
                gs_question_method(i), e->st.warmup, e->st.n,
                e->st.warmup_at_limit ? "; warm-up may be longer than half "
                "the run" : "",
                !e->st.independent ? "; batches correlated: run longer"
                : i % 2 == 0 && e->st.tail < GS_QUANTILE_TAIL
                ? "; too few values beyond the quantile: run longer" : "");
    }
}

/* s as a JSON string. */
static void jstr(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(fp, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(fp, "\\u%04x", ch);
        else
            fputc(ch, fp);
    }
    fputc('"', fp);
}

static void num(FILE *fp, const char *name, double v)
{
    if (isfinite(v))
        fprintf(fp, "\"%s\": %.10g", name, v);
    else
        fprintf(fp, "\"%s\": null", name);
}

void gs_question_json(FILE *fp, const struct gs_question *q)
{
    fprintf(fp, ",\n  \"question\": {\"kind\": \"%s\", \"why\": \"%s\", "
            "\"estimates\": {", gs_horizon_name(q->question), q->why);
    for (int i = 0; i < q->nest; i++) {
        const struct gs_question_est *e = &q->est[i];
        fprintf(fp, "%s\n    ", i ? "," : "");
        jstr(fp, e->what);
        fputs(": {", fp);
        if (e->rc < 0) {
            fprintf(fp, "\"error\": \"too few values\"}");
            continue;
        }
        num(fp, "estimate", e->st.ci.est);
        fputs(", ", fp);
        num(fp, "half_width", e->st.ci.half);
        fprintf(fp, ", \"level\": 0.95, \"method\": \"%s\", \"batches\": %d, "
                "\"warmup_deleted\": %ld, \"observations\": %ld, "
                "\"warmup_at_limit\": %d, \"batches_independent\": %d}",
                gs_question_method(i), e->st.batches, e->st.warmup, e->st.n,
                e->st.warmup_at_limit, e->st.independent);
    }
    fprintf(fp, "%s}}", q->nest ? "\n  " : "");
}

