/* steady.h -- output analysis of simulation runs: warm-up detection
 * (MSER-5), batch means, replication and quantile intervals, precision-
 * driven run length, and paired comparisons with Holm's correction.
 *
 * Pure statistics over arrays of doubles: nothing here knows a simulation,
 * so the planner, compare and run all call the same estimators and tests
 * check them against queueing theory (tests/test_steady.c).  The essay on
 * the methods and their sources is at the top of steady.c.
 *
 * Every interval is a struct gs_ci: a point estimate, its half-width at a
 * confidence level, and the number of independent (or nearly independent)
 * pieces behind it -- batches, sections or replications.  Functions return
 * 0 or a negative GS_E* code (err.h): GS_EINVAL for arguments out of their
 * domain, GS_ERANGE when there are too few observations for the method,
 * GS_ENOMEM. */
#ifndef GS_STEADY_H
#define GS_STEADY_H

/* Which question a run answers (docs/planning.md, "Steady state or finite
 * horizon"). */
enum gs_horizon {
    GS_HORIZON_FINITE = 0,  /* the whole run; intervals over replications */
    GS_HORIZON_STEADY = 1,  /* the long run: warm-up deleted, batch means */
};
/* "finite" or "steady". */
const char *gs_horizon_name(int h);

/* An interval estimate: est +- half at confidence level, from n pieces
 * (batches, sections or replications); half is NaN when n < 2. */
struct gs_ci {
    double est, half, level;
    int n;
};
/* The relative half-width |half / est| (NaN when est is 0 or half NaN). */
double gs_ci_rel(const struct gs_ci *ci);
/* 1 when the interval is at least as narrow as rel times |est| (rel > 0),
 * else 0 (also when half is NaN, or est 0 and half > 0). */
int gs_ci_precise(const struct gs_ci *ci, double rel);

/* Student's t interval of the mean of n independent values (replications):
 * est = the mean, half = t(1 - (1 - level)/2, n - 1) s / sqrt(n).  n >= 1;
 * level in (0, 1).  *sd (may be NULL) receives the sample deviation. */
int gs_ci_reps(const double *x, int n, double level, struct gs_ci *ci,
               double *sd);

/* MSER-5 (White 1997): the warm-up to delete from x[0..n), in
 * observations (a multiple of 5), the truncation point minimising the
 * MSER statistic of the batch means of 5, searched over the first half of
 * the batches.  *at_limit (may be NULL) is set to 1 when the minimum lies
 * on the last half-way point searched -- the transient may be longer than
 * half the run, which is then too short to tell.  n >= 10. */
int gs_mser5(const double *x, long n, long *warmup, int *at_limit);

/* Non-overlapping batch means of x[0..n): nb batches of floor(n / nb)
 * observations (the remainder, fewer than nb, dropped from the front),
 * est = their mean, half from Student's t with nb - 1 degrees of freedom.
 * nb >= 2 and n >= nb. */
int gs_batch_means(const double *x, long n, int nb, double level,
                   struct gs_ci *ci);

/* Lag-1 autocorrelation of the means of nb batches of x[0..n) (the
 * independence check of the batch means), or NaN when nb < 3, n < nb or
 * the batch means do not vary. */
double gs_batch_lag1(const double *x, long n, int nb);

/* Quantile p of x[0..n) (sorted copy; GSL's interpolated sample quantile)
 * pooled over all n values, with the sectioning interval: the p quantile of
 * each of ns contiguous sections, half = t(ns - 1) s / sqrt(ns) with s their
 * sample deviation, centred on the pooled quantile.  0 < p < 1, ns >= 2,
 * n >= ns. */
int gs_quantile_sections(const double *x, long n, double p, int ns,
                         double level, struct gs_ci *ci);

/* --- a quantile pooled over replications ----------------------------- */

/* One replication's part in a pooled quantile: of its n values (its
 * retained window), the k on the quantile's side -- the k largest when
 * p >= 0.5, the k smallest otherwise; k = n keeps them all -- in v[0..k),
 * any order.  Replications are separate processes, so each sends only
 * this tail back, not its whole series. */
struct gs_qtail {
    long n, k;
    const double *v;
};

/* How many of n values a replication keeps for the pooled p quantile:
 * min(n, ceil(10 min(p, 1 - p) n) + 256), ten times its share beyond the
 * quantile and a margin (a short run's busy period can hold several
 * times its share).  The pooled value is exact unless some replication
 * holds more than that beyond it (gs_quantile_pooled says). */
long gs_qtail_size(long n, double p);

/* The min(n, kmax) values of x[0..n) on p's side into v (selection, not a
 * sort; x is not changed); *k receives their count.  0 < p < 1, n >= 0,
 * kmax >= 0; GS_ENOMEM. */
int gs_qtail_keep(const double *x, long n, double p, long kmax, double *v,
                  long *k);

/* The p quantile of r replications' values pooled -- the value
 * gsl_stats_quantile_from_sorted_data gives on all sum(n) values sorted --
 * from their tails t[0..r).  Returns 1 when the kept values reach the
 * order statistics it needs, which is then exact (*lo = *q = *hi); 0 when
 * some replication cut its tail above them: [*lo, *hi] then bounds the
 * pooled value for sure (a missing value lies between its replication's
 * innermost kept value and the far end) and *q is its middle.  GS_EINVAL
 * (p outside (0, 1), r < 1), GS_ERANGE (no values), GS_ENOMEM. */
int gs_quantile_pooled(const struct gs_qtail *t, int r, double p, double *q,
                       double *lo, double *hi);

/* Sectioning over replications (each a section): the interval of the
 * pooled quantile, centred on it, half = t(r - 1) s / sqrt(r) with s the
 * sample deviation of the replications' own quantiles qr[0..r).  When the
 * pooled value is only bounded (lo < hi) the centre is their middle and
 * the half-width grows by half their distance, so the interval holds
 * every value the bounds allow.  r >= 1 (half NaN when r = 1). */
int gs_quantile_reps(double lo, double hi, const double *qr, int r,
                     double level, struct gs_ci *ci);

/* --- steady-state analysis of one output series ---------------------- */

/* How a steady-state estimate was made (all fields set by gs_steady_*). */
struct gs_steady {
    long n;             /* observations given */
    long warmup;        /* deleted from the front by MSER-5 */
    int warmup_at_limit;/* MSER-5's minimum at the half-way bound */
    int batches;        /* batches (or sections) of the interval */
    double lag1;        /* lag-1 autocorrelation of 2 x batches batch means */
    int independent;    /* lag1 below the check's bound (see steady.c) */
    double tail;        /* quantiles: values beyond the quantile in each
                           section, (n - warmup) / batches * min(p, 1 - p);
                           the interval wants >= GS_QUANTILE_TAIL */
    struct gs_ci ci;    /* the estimate and its interval */
};

/* Default batch count: 20 (Schmeiser 1982: 10 to 30). */
#define GS_STEADY_BATCHES 20
/* Values beyond a quantile each section needs for its interval. */
#define GS_QUANTILE_TAIL 100

/* The steady-state mean of the series x[0..n) in its observation order
 * (e.g. each request's TTFT in arrival order): MSER-5's warm-up deleted,
 * nb batch means of the rest (0: GS_STEADY_BATCHES), and their lag-1
 * correlation checked on 2 nb batches.  n >= 10 and n - warm-up >= 2 nb. */
int gs_steady_mean(const double *x, long n, int nb, double level,
                   struct gs_steady *st);

/* The steady-state p quantile of the same series: MSER-5's warm-up (of the
 * mean) deleted, the quantile pooled over every retained value, and its
 * sectioning interval over nb sections (0: GS_STEADY_BATCHES). */
int gs_steady_quantile(const double *x, long n, double p, int nb,
                       double level, struct gs_steady *st);

/* gs_steady_quantile into *q (its code returned) and gs_steady_mean into
 * *m (its code in *mrc) of the same series, the warm-up and the
 * independence check made once for both: the same results as the two
 * calls. */
int gs_steady_pair(const double *x, long n, double p, int nb, double level,
                   struct gs_steady *q, struct gs_steady *m, int *mrc);

/* --- precision-driven length ------------------------------------------ */

/* Relative half-width asked of a target metric by default (5% at 95%). */
#define GS_PRECISION_REL 0.05
#define GS_PRECISION_LEVEL 0.95

/* The next length (observations, requests or replications) after a run of
 * length n whose worst relative half-width was rel_now, when rel is asked:
 * n (rel_now / rel)^2 -- half-widths shrink as 1 / sqrt(length) -- grown by
 * at least 1.5x and at most 4x, rounded up, and never above cap.  Returns
 * n when n >= cap (the caller stops). */
long gs_next_length(long n, double rel_now, double rel, long cap);

/* Measure a candidate at a length: run it (or its replications) at
 * `length` and fill ci[0..nci) with the intervals of its target metrics;
 * 0 or a negative code, which stops the growth and is returned. */
typedef int (*gs_measure_fn)(void *ctx, long length, struct gs_ci *ci,
                             int nci);

struct gs_grow {
    long start;     /* first length (> 0) */
    long cap;       /* largest length (>= start) */
    double rel;     /* relative half-width asked (0: GS_PRECISION_REL) */
};

/* What the growth ended with. */
struct gs_grow_result {
    long length;    /* the length of the last measurement */
    int rounds;     /* measurements made */
    int met;        /* 1: every interval is as narrow as asked; 0: cap hit */
    double rel;     /* the worst relative half-width at the end */
};

/* Measure at g->start, then at gs_next_length(...) until every one of the
 * nci intervals meets g->rel or the length reached g->cap.  ci holds the
 * last measurement's intervals.  Deterministic: the lengths depend only on
 * the measurements, so with common random numbers (the same seeds for
 * every candidate) candidates are measured alike. */
int gs_grow_until_precise(const struct gs_grow *g, int nci, gs_measure_fn fn,
                          void *ctx, struct gs_ci *ci,
                          struct gs_grow_result *r);

/* --- paired comparisons ------------------------------------------------ */

/* The paired difference b - a over n common-random-number replications
 * (b[k] and a[k] ran on the same seed): its mean and t interval at level,
 * and *p the two-sided p-value of "mean difference = 0" (Student's paired
 * t test; 1 when every difference is 0, 0 when they are all equal and not
 * 0).  n >= 2. */
int gs_paired(const double *a, const double *b, int n, double level,
              struct gs_ci *ci, double *p);

/* Holm's step-down correction (Holm 1979) of m p-values at family-wise
 * level alpha: sig[i] = 1 when hypothesis i is rejected.  Returns 0, or
 * GS_ENOMEM. */
int gs_holm(const double *p, int m, double alpha, int *sig);

/* A ranking that claims only significant differences.  k items with
 * their means mean[k] and sig[i * k + j] = 1 when the difference between
 * items i and j is significant (symmetric; every pair tested, corrected).
 * order[k] receives the items from best to worst (higher first when
 * higher_better, else lower; ties by index), and tier[k] each ordered
 * item's group: a new group starts after position r exactly when every
 * item up to r differs significantly from every item after it, so items in
 * different groups differ significantly and nothing else is claimed.
 * Returns the number of groups (1: no significant difference), or a
 * negative code. */
int gs_rank_groups(const double *mean, const int *sig, int k,
                   int higher_better, int *order, int *tier);

#endif
