/* planint.h -- what the files of `gpusim plan` share: the candidates, the
 * combinations and the search state (plansearch.c), and the calls between
 * the search, its output (planout.c), the right-sizing advice
 * (planadvice.c) and the command (plan.c).  Nothing outside sim/studies/
 * includes it; plan.h is the command's public door.  plan.c's essay
 * explains the search. */
#ifndef GS_PLANINT_H
#define GS_PLANINT_H

#include "planjson.h"
#include "progress.h"

#include <stdio.h>

struct gs_scenario;
struct gs_sim;
struct gs_plan_reuse;

/* A candidate's verdict; gs_plan_status[] names them. */
enum { C_PENDING, C_FEASIBLE, C_INFEASIBLE, C_STOPPED, C_INVALID,
       C_UNDECIDED, C_PHYSICS };
/* Where a target stands on a candidate's interval. */
enum { T_MET, T_MISSED, T_ZONE, T_OPEN };
extern const char *const gs_plan_status[];
/* A combination's state along its bisected count. */
enum { K_TOP, K_BISECT, K_DONE, K_INFEASIBLE, K_PRUNED };

struct cand {
    int combo, idx;             /* grid index of the bisected count, or -1 */
    char *label;
    struct gs_scenario *sc;
    int nrun, status;
    double *v;                  /* [seeds][nm] */
    double *mean, *half;        /* [nm] over the seeds run */
    double *warm;               /* [seeds][nst]: requests deleted as warm-up
                                   (-(w + 1): MSER-5 at its limit where
                                   that decides the verdict) */
    double *drain;              /* [seeds][nst]: each run's drain share
                                   (plansteady.c; NaN: no service) */
    double *booted;             /* [seeds][npools][2]: the nodes each pool
                                   billed on average and at most (what an
                                   autoscaled pool booted) */
    double cost_h, nominal, gpus;
    double obj;                 /* the objective: cost per hour, or per
                                   million output tokens */
    long size;                  /* sum of the searched counts (ties) */
    char *why;                  /* refused by the scenario's validation */
    int at_cap;                 /* undecided because the cap was hit
                                   (1), or would not decide it (2:
                                   plan.futility) */
    int lenf;                   /* its runs' length, a factor of the
                                   scenario's (1, 2, 4, ...; steady state) */
    int transient;              /* steady state: the transient was not
                                   over (MSER-5's minimum at its limit or
                                   a drain share over plan.precision on
                                   some seed, or the estimate moved beyond
                                   its interval when the runs doubled) */
    int bounded;                /* steady state: at the cap, a request or
                                   job-wait target's estimate still moved
                                   beyond its interval, and its moves
                                   bound what is left of its bias on one
                                   side of the limit (gs_plan_cap_bounded) */
    double *prev;               /* [nst]: the steady-state estimates at
                                   half the length (lenf > 1) */
    double *pmove;              /* [nst]: how far each moved at the
                                   doubling before (prev less the
                                   estimate at a quarter of the length;
                                   NaN before two lengths) */
    int runs_before;            /* runs at the shorter lengths it had */
    double sim_before;          /* jobs and requests those runs simulated */
    int *cnt;                   /* [ncounts] its searched counts */
    int dear;                   /* stopped, undecided, because it costs
                                   more than a feasible plan */
    struct cand_tail *qt;       /* [seeds][nst]: for a steady percentile
                                   target, each seed's retained values
                                   beyond the quantile (plansteady.c),
                                   for the pooled quantile; freed with
                                   the verdict */
    int inexact;                /* a pooled percentile only bounded: some
                                   seed cut its tail above it */
    int have;                   /* seeds whose results it holds: nrun,
                                   and those run ahead of need (a round's
                                   idle workers; plansearch.c) */
    int ref;                    /* its services' references (planreuse.c):
                                   -2 not looked up yet, -1 none */
};

/* One seed's part in a pooled percentile (steady.h's gs_qtail, owning
 * its values). */
struct cand_tail {
    long n, k;
    double *v;
};

struct combo {
    int *ax;                    /* [naxes] value index */
    int *cnt;                   /* [ncounts] counts; the last is bisected */
    int L, H, state, cur;       /* bracket over grid indexes; cand in work */
    double *floor;              /* [grid]: the cost floor of each count
                                   (gs_plan_cost_floor; NAN: not built) */
    int started;                /* it has proposed a candidate */
    struct gs_scenario *top;    /* its top's scenario, built to order the
                                   combinations, until a candidate takes
                                   it (NULL) */
    int capped;                 /* its candidate in work was moved down to
                                   the dearest count whose floor is within
                                   the best plan's cost */
};

/* How a steady-state target is estimated (plansteady.c): a service's
 * requests' TTFT, end-to-end or queueing delay, or the jobs' waits, with
 * the run's warm-up deleted; or over the whole run (ITL, attainment,
 * utilization, cost, any other metric). */
enum { GS_PLAN_SQ_TTFT, GS_PLAN_SQ_E2E, GS_PLAN_SQ_QUEUE, GS_PLAN_SQ_WAIT,
       GS_PLAN_SQ_WHOLE };

/* A target of a steady-state question (plansteady.c): every target is
 * one, and every one is lengthened on (plansearch.c: wants_longer). */
struct gs_plan_st {
    int target, metric;         /* the target, its metric */
    int svc;                    /* its service; for job waits its tier
                                   (-1: every job) */
    int what;                   /* GS_PLAN_SQ_* */
    double p;                   /* the quantile, or -1 for the mean */
};

struct search {
    const struct gs_plancfg *pc;
    const struct gs_scenario *base;
    double growth;              /* load factor (1 = as given) */
    int nm, nfleet;
    int npb;                    /* pools a task reports booted nodes of in
                                   this round's batch (the most any has) */
    int ncombo;
    struct combo *combo;
    int ncand, capcand;
    struct cand *cand;
    long runs, stopped, pruned;
    long dear;                  /* candidates stopped because they cost
                                   more than the plan known */
    long spread;                /* combinations whose floor a smaller
                                   fleet's miss raised (spread_miss) */
    int ncombo_more;            /* combinations of the widened ranges */
    long lengthened;            /* candidates whose runs were lengthened */
    long extended, undecided, physics;  /* ... and combinations the
                                   engine model's bound ruled out */   /* candidates that ran past plan.seeds;
                                   that ended undecided */
    double bound;               /* the cost of a plan found by an earlier
                                   pass (INFINITY: none), for pruning */
    int exhaustive;             /* no pruning by cost: every combination
                                   started at once and bisected over its
                                   whole range (--exhaustive) */
    int *order;                 /* [ncombo]: the order combinations start */
    char note[2048];            /* how the ranges were widened */
    double est_rest;            /* runs the search may still take (an
                                   estimate, for the progress line) */
    int nst;                    /* targets of a steady-state question (all
                                   of them; 0: a finite-horizon question) */
    struct gs_plan_st *st;      /* [nst] */
    long *qk;                   /* [nst]: this round's room for each seed's
                                   tail of a steady percentile target (0:
                                   not one); a task sends 2 + qk doubles
                                   for it (count, kept, values) */
    long nqt;                   /* the sum of those, per task */
    int *phys;                  /* [ntargets]: a TTFT target's percentile
                                   prompt (tokens), or -1 (planbound.c) */
    int natt, *att;             /* the attainment metrics: jobs', then each
                                   service's */
    char **svc_sla;             /* [nsvcs]: the plan's targets as the
                                   service's SLA, when it states none */
    struct gs_progress *pr;     /* the progress line, or NULL */
    int lenient;                /* a candidate that fails validation is
                                   infeasible (after the up-front check) */
    /* the round's tasks */
    long nout;                  /* doubles a task sends (the last: 1 when
                                   its services were replayed) */
    int ntask;
    int *tcand, *tseed;
    int nround;                 /* the round's candidates, in the order
                                   they are decided */
    int *rcand, *rto;           /* [nround]: each, and the seeds the rules
                                   ask of it */
    int nwait, *rwait;          /* candidates whose seeds wait for a
                                   cheaper one's (defers) */
    long asked;                 /* the round's runs the rules asked for */
    long ahead, ahead_used;     /* runs made ahead of need on idle
                                   workers, and those the rules asked for
                                   later (stderr only) */
    struct gs_plan_reuse *ru;   /* the services' reference runs
                                   (planreuse.c), or NULL: every run full */
    int ru_own;                 /* ru is this search's (a widened range's
                                   search shares its parent's) */
};

/* --- plansearch.c: candidates, verdicts, the search ---------------------- */

/* The index of a run metric that must exist (gs_run_bind was called);
 * sweep.h's gs_run_metric_index gives -1 for one that does not. */
int gs_plan_metric(const char *name);
/* The grid of a searched count: values lo, lo+step, ... <= hi. */
int gs_plan_grid_n(const struct gs_plan_count *k);
/* Load growth scales generated load only: 0, or GS_EINVAL naming the
 * source that is a trace. */
int gs_plan_growth_check(const struct gs_scenario *sc, struct gs_diag *d);
/* The unfavourable (worst = 1) or favourable end of target t's interval. */
double gs_plan_end_of(const struct cand *x, const struct gs_plan_target *t,
                      int worst);
int gs_plan_meets(double v, const struct gs_plan_target *t);
/* T_MET, T_MISSED, T_ZONE or T_OPEN for target t on x's interval. */
int gs_plan_target_state(const struct search *s, const struct cand *x,
                         const struct gs_plan_target *t);
/* How far x's worst end misses its worst target, relative to the limit
 * (<= 0: meets them all). */
double gs_plan_miss(const struct search *s, const struct cand *x);
/* The planner's cost order (objective, then GPUs, then counts): <0, 0, >0. */
int gs_plan_cost_cmp(const struct cand *x, const struct cand *y);
/* The cheapest feasible candidate in that order (equals: the first found),
 * or -1. */
int gs_plan_best_feasible(const struct search *s);
/* The candidate whose worst target misses least, or -1. */
int gs_plan_closest(const struct search *s);
/* A candidate's SLA attainment (the least over jobs and services); *half,
 * if not NULL, the interval of the least. */
double gs_plan_attain(const struct search *s, const struct cand *x,
                      double *half);
/* Bind the attainment metrics and the services' SLAs from the targets. */
void gs_plan_attain_bind(struct search *s);
/* The jobs and requests x's runs simulated, at every length it had. */
double gs_plan_simulated(const struct search *s, const struct cand *x);
/* Run the search s (pc, base, growth, nm, nfleet, pr set) on jobs
 * workers a rank.  0 or a negative code with d filled. */
int gs_plan_search_run(struct search *s, int jobs, struct gs_diag *d);
void gs_plan_search_free(struct search *s);
/* After gs_plan_search_run: while the cheapest feasible candidate, or the
 * closest one when none is, sits on a bound of a searched range that can
 * move (not the floor, below the cap), search the range beyond it (twice
 * as wide) and merge; s->note says what was widened.  0 or a negative
 * code with d filled. */
int gs_plan_search_widen(struct search *s, int jobs, struct gs_diag *d);

/* The scenario of candidate (combination c, count index idx) with runs
 * lenf times as long, parsed and validated (plancand.c).  0 or a
 * negative code with d filled. */
int gs_plan_cand_build(const struct search *s, const struct combo *c,
                       int idx, int lenf, struct gs_scenario **sc,
                       struct gs_diag *d);

/* --- planreuse.c: the services simulated once per seed ------------------ */

/* s->ru for search s (base, nm, nst, pc set): NULL unless on and its
 * services can be taped.  0 or GS_ENOMEM. */
int gs_plan_reuse_new(struct search *s, int on, struct gs_diag *d);
void gs_plan_reuse_free(struct search *s);
/* Before a round's runs: the reference runs its seeds need.  0 or a
 * negative code with d filled. */
int gs_plan_reuse_prepare(struct search *s, int jobs, struct gs_diag *d);
/* Candidate x's run on seed k into *sim (run; the caller frees it) and
 * its figures into out: 1 replayed from the reference of seed k, 0 run in
 * full, or a negative code with d filled. */
int gs_plan_reuse_run(const struct search *s, const struct cand *x, int k,
                      struct gs_sim **sim, double *out, struct gs_diag *d);
/* Count the round's replayed and full runs (each task's last slot). */
void gs_plan_reuse_count(struct search *s, const double *res, size_t nout);
/* The line saying how the services were run (stderr). */
void gs_plan_reuse_note(FILE *fp, const struct search *s);

/* --- planprune.c: pruning by cost ---------------------------------------- */

/* The dearest count of combination ci in (L, top] whose floor is within
 * best; L when none is. */
int gs_plan_cap_index(const struct search *s, int ci, double best, int top);
/* Combination ci's next count, capped by best (c->capped set), or -1. */
int gs_plan_next_idx(const struct search *s, int ci, double best);
/* s->order: the order the combinations start in.  0 or GS_ENOMEM. */
int gs_plan_order_combos(struct search *s, struct gs_diag *d);
/* x, not feasible, raises the floor of every combination with the same
 * choices and no more of the other searched pools. */
void gs_plan_spread_miss(struct search *s, int ci, const struct cand *x);

/* --- plansteady.c: steady-state estimates ------------------------------ */

/* In a steady-state question (io/question.h's gs_question_of, the rule
 * of every command), every target as s->st: how each is
 * estimated (its warm-up deleted, or over the whole run). */
void gs_plan_steady_bind(struct search *s);
/* Replace out[]'s request and job-wait targets by their warm-up-deleted
 * estimates from sim's requests and jobs; warm[nst] the requests or jobs
 * deleted (0 for a target judged over the whole run); for each pooled
 * target k, tails receives [retained count, kept, s->qk[k] values] (the
 * kept ones beyond the quantile, steady.h's gs_qtail_keep). */
void gs_plan_steady_apply(const struct search *s, const struct gs_sim *sim,
                          double *out, double *warm, double *drain,
                          double *tails);
/* Steady state: seed k's run of x says target j's transient is not over
 * (MSER-5's minimum at its limit where it decides the verdict, or a
 * drain share over plan.precision). */
int gs_plan_seed_transient(const struct search *s, const struct cand *x,
                           int k, int j);
/* Steady state: target j of x, estimated over the whole run, has
 * settled on one side of its limit -- its moves since the runs were
 * doubled bound the start-up bias left (plansteady.c tells how). */
int gs_plan_whole_settled(const struct search *s, const struct cand *x,
                          int j);
/* Steady state, at plan.max_length_factor: target j of x, a request or
 * job-wait target whose warm-up was deleted, still moved by more than its
 * interval when the runs last doubled, and yet its moves bound what is
 * left of its bias on one side of the limit, as gs_plan_whole_settled's
 * do; never when a seed flags its transient (gs_plan_seed_transient). */
int gs_plan_cap_bounded(const struct search *s, const struct cand *x,
                        int j);
/* Target j's interval on x widened upwards by the rises among its last
 * two moves and downwards by the falls, into [*lo, *hi]: 1, or 0 before
 * two doublings. */
int gs_plan_moves_widened(const struct search *s, const struct cand *x,
                          int j, double *lo, double *hi);
/* Steady state: target j of x says its transient is not over -- some
 * seed's run does (gs_plan_seed_transient), or its estimate still moved
 * when the runs doubled (plansearch.c). */
int gs_plan_target_transient(const struct search *s, const struct cand *x,
                             int j);
/* Target t is a percentile pooled over the seeds' retained windows (a
 * service's TTFT, end-to-end or queueing percentile, a job-wait one). */
int gs_plan_steady_pooled(const struct gs_plan_st *t);
/* The room a seed of candidate scenario sc needs for target t's tail
 * (gs_qtail_size of an upper estimate of its values; 0: not pooled). */
long gs_plan_steady_tail_size(const struct gs_plan_st *t,
                              const struct gs_scenario *sc);

/* --- planbound.c: what stops a plan, without simulation ---------------- */

/* For each service TTFT percentile target: every GPU and degree the
 * candidates tried on which the target's percentile prompt alone already
 * takes longer than the target, printed on fp.  How many were printed. */
int gs_plan_print_physics(FILE *fp, const struct search *s);
/* The percentile prompt of each TTFT target (s->phys). */
void gs_plan_physics_bind(struct search *s);
/* 1 when x's GPU and degree cannot meet some TTFT target whatever its
 * replica count (its percentile prompt alone takes longer). */
int gs_plan_physics_stops(const struct search *s, const struct cand *x);

/* --- planout.c: what the answer looks like -------------------------------- */

void gs_plan_cell(char *buf, size_t n, double mean, double half);
void gs_plan_print_fleet(FILE *fp, const struct cand *x);
void gs_plan_print_targets(FILE *fp, const struct search *s,
                           const struct cand *x);
/* The metrics that apply to x (every one with verbose). */
void gs_plan_print_metrics(FILE *fp, const struct search *s,
                           const struct cand *x, int verbose);
/* The Pareto front into idx (room for s->ncand); the count. */
int gs_plan_pareto(const struct search *s, int *idx);
void gs_plan_print_front(FILE *fp, const struct search *s, const int *fr,
                         int nf, double hpm);
/* DIR/front.png by gnuplot; 0 or -1. */
int gs_plan_plot_front(const char *dir, const struct search *s,
                       const int *fr, int nf, int chosen);
int gs_plan_write_h5(const char *out, const struct search *s, const int *fr,
                     int nf, int chosen, int near, const double *gcost,
                     const char *const *glabel, const double *gfac, int ng,
                     struct gs_diag *d);

/* --- planadvice.c: right-sizing ------------------------------------------- */

/* Right-sizing per tier and per service from one run of sc (its first
 * seed), printed on fp.  0 or a negative code with d filled. */
int gs_plan_rightsize(FILE *fp, const struct gs_scenario *sc,
                      struct gs_diag *d);

#endif
