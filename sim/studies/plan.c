/* plan.c -- `gpusim plan`: the cheapest fleet that meets the targets.
 *
 * The search space (planjson.h) is a product of discrete axes -- a pool's
 * GPU model and price, its market or spot share, a sharing layout, the
 * policy, any key's values -- and of node counts.  A "combo" fixes every
 * axis and every count but the last searched pool's; along that last count
 * SLA attainment is monotone in capacity (more nodes of the same kind never
 * lengthen a queue under a work-conserving policy), so the smallest count
 * that meets the targets is found by bisection: the top of the range is
 * tried first (infeasible there: the combo is infeasible), then the middle
 * of the bracket (L, H] until H - L is one step.
 *
 * Pruning by cost (issue 27): most of a search's runs would go to fleets
 * dearer than the answer, so none is run that cannot beat the cheapest
 * feasible plan found so far.  Each candidate has a cost floor known
 * without running it (planbound.c: the pools whose bill is fixed, nodes x
 * price; spot and autoscaled pools at 0), non-decreasing in the bisected
 * count.  A combination's probe is capped at the dearest count whose floor
 * is within the best plan's cost: not feasible there, it has no count that
 * could win (smaller ones are not feasible, larger ones cost more) and is
 * pruned; a combination whose least count's floor is above it is pruned
 * unrun.  A candidate whose simulated cost (the lower end of its interval)
 * already exceeds the best plan's stops, undecided, and the bisection
 * goes on below it as if it were feasible.  Combinations start in order,
 * two at a time, the cheapest largest fleet first, so that a cheap plan
 * is known early.  And a count that is not feasible raises the floor of
 * every combination with the same choices and no more of the other
 * searched pools (the monotonicity the bisection assumes, in every
 * count).  `--exhaustive`
 * turns all of it off: every combination started at once, bisected over
 * its whole range, nothing spread; the answer is the same (tests/
 * test_plan.c compares them), and its Pareto front has every dearer
 * combination's points, which the pruned search does not run.
 *
 * A candidate is judged on n seeds (common random numbers: seed k is the
 * same workload for every candidate, so candidates differ by the fleet,
 * not by noise; Law, "Simulation Modeling and Analysis", sec. 11.2).  Each
 * target's 95% confidence interval is compare.c's Student t interval of
 * the mean over seeds; a candidate is feasible when, after plan.seeds,
 * the unfavourable end of every interval meets its target (upper end <= a
 * limit, lower end >= a floor).  Sequential early stopping: a candidate
 * first runs min_seeds seeds, and if the favourable end of some interval
 * already misses its target it is declared infeasible without the
 * remaining seeds (a clear failure; the common case on the way up a
 * bisection, where most tried fleets are under-sized).  An interval that
 * straddles its target asks for more seeds (doubling, up to max_seeds);
 * inside the indifference zone (limit +- indifference x |limit|) or at the
 * cap the candidate is "undecided", which the answer reports and the
 * search treats as not feasible.  A steady-state question deletes each
 * run's warm-up from its service latency targets (plansteady.c); a GPU on
 * which a TTFT target's percentile prompt alone misses it is ruled out
 * without a run (planbound.c); a range the answer sits on the edge of is
 * widened (gs_plan_search_widen).
 *
 * The search advances in rounds: every live combo proposes its next
 * candidate (or the rest of its seeds), the round's runs go to
 * gs_dist_run (forked workers, MPI ranks) at once, and decisions are taken
 * on the gathered numbers in combo order -- so the path, the answer and
 * every printed digit depend only on the inputs, not on -np or --jobs.
 *
 * What comes out: the cheapest feasible candidate with cost per hour and
 * month and every metric with its interval; the Pareto front of cost
 * against SLA attainment over every evaluated candidate (table, HDF5,
 * gnuplot); the same search under load growth factors; right-sizing advice
 * per tier from one run of the chosen plan; or, if nothing is feasible,
 * the candidate that comes closest (least worst relative miss). */
#include "plan.h"
#include "planint.h"
#include "../base/suggest.h"
#include "../io/outfile.h"
#include "../io/question.h"
#include "mpirun.h"
#include "../setup/scenario.h"
#include "sweep.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- the command ------------------------------------------------------- */

static const char usage[] =
"usage: gpusim plan SCENARIO [options]\n"
"\n"
"Find the cheapest fleet in the scenario's `plan` section search space\n"
"whose targets hold at the 95% confidence level, in parallel processes\n"
"(and MPI ranks under mpirun or srun).  Prints the plan first: its cost\n"
"per hour and month, its fleet, each target with its interval and margin,\n"
"the metrics that apply; then the search, the Pareto front of cost\n"
"against SLA attainment, the plan at each --growth factor and right-\n"
"sizing advice per tier and per service.  See docs/planning.md.\n"
"\n"
"options:\n"
"  -s, --seeds N     seeds per candidate (default: the plan's, else 5)\n"
"  --growth LIST     load factors to plan for too, e.g. 1.5,2,3\n"
"                    (every generated arrival rate is scaled: the\n"
"                    jobs' rate_per_hour, each service's request rate)\n"
"  -j, --jobs P      worker processes per rank (default: the CPUs; 1\n"
"                    under MPI)\n"
"  -o, --out FILE    the plan's HDF5 file, replaced if it exists (default:\n"
"                    the scenario file's name + -plan.h5, never replaced\n"
"                    without --force)\n"
"  -f, --force       replace the default plan file if it exists\n"
"  --plots DIR       folder for the Pareto plot (default: the scenario\n"
"                    file's name + -plan-plots)\n"
"  --no-plots        draw no plot\n"
"  --no-advice       skip the right-sizing run\n"
"  --exhaustive      no pruning by cost: every combination bisected over\n"
"                    its whole range (slower; the same answer, with every\n"
"                    dearer candidate's verdict for the Pareto front)\n"
"  --full-runs       simulate the services in every candidate's run, not\n"
"                    once per seed and replayed (slower; the same answer)\n"
"  -v, --verbose     print every metric of the plan, not only those\n"
"                    that apply to it\n"
"  -q, --quiet       print nothing on stdout\n"
"\n"
"exit status: 0 a feasible plan found, 3 none feasible (the closest is\n"
"shown), 2 bad input or usage, 1 results not written\n";

static int usage_error(const char *fmt, const char *arg)
{
    if (gs_dist_leader()) {
        fprintf(stderr, "gpusim: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n(see 'gpusim help plan')\n");
    }
    return 2;
}

/* How the search went: seeds, candidates, runs, what it saved. */
static void print_head(FILE *fp, const struct search *s)
{
    fprintf(fp, "gpusim plan  scenario %s  %d seeds per verdict (from %llu, "
            "common to all), early stop after %d, up to %d where an "
            "interval straddles a target (indifference zone ±%g%%)\n",
            s->base->name, s->pc->seeds, (unsigned long long)s->base->seed,
            s->pc->min_seeds, s->pc->max_seeds, 100 * s->pc->indifference);
    fprintf(fp, "searched %d combination%s: %d candidates, %ld runs (%ld "
            "candidates stopped early, %ld ran more seeds, %ld undecided, "
            "%ld of them dearer than a feasible plan, %ld combinations "
            "pruned as dominated, %ld ruled out by the engine model without "
            "a run)%s\n",
            s->ncombo + s->ncombo_more,
            s->ncombo + s->ncombo_more == 1 ? "" : "s", s->ncand, s->runs,
            s->stopped, s->extended, s->undecided, s->dear, s->pruned,
            s->physics, s->exhaustive ? "; --exhaustive: nothing pruned by "
            "cost" : "");
    const char *why;
    int q = gs_question_of(s->base, &why);
    if (s->nst > 0)
        fprintf(fp, "question: steady state (%s): each request latency and "
                "job-wait target deletes its run's warm-up (MSER-5) before "
                "its estimate (a percentile is the quantile of every seed's "
                "retained values pooled, its interval by sectioning over the "
                "seeds), the others are estimated over whole runs; %ld "
                "candidates' runs were lengthened (doubling, up to %dx the "
                "scenario's length) while the transient was not over, an "
                "estimate still moved or an interval was wider than ±%g%%\n",
                why, s->lengthened, s->pc->max_length,
                100 * s->pc->precision);
    else
        fprintf(fp, "question: %s (%s): targets are judged over whole "
                "runs\n", q == GS_HORIZON_STEADY ? "steady state, no target"
                : "finite horizon", why);
    if (s->note[0])
        fprintf(fp, "search ranges widened (doubling, up to each range's "
                "cap):\n%s", s->note);
}

static int plan_main(int argc, char **argv);

static const struct option opts[] = {
    { "seeds", required_argument, NULL, 's' },
    { "jobs", required_argument, NULL, 'j' },
    { "growth", required_argument, NULL, 'g' },
    { "out", required_argument, NULL, 'o' },
    { "force", no_argument, NULL, 'f' },
    { "plots", required_argument, NULL, 'D' },
    { "no-plots", no_argument, NULL, 'n' },
    { "no-advice", no_argument, NULL, 'A' },
    { "exhaustive", no_argument, NULL, 'E' },
    { "full-runs", no_argument, NULL, 'R' },
    { "quiet", no_argument, NULL, 'q' },
    { "verbose", no_argument, NULL, 'v' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* argv holds the arguments after "plan" (tests and the bench call it so). */
int gs_plan_main(int argc, char **argv)
{
    return gs_cli_named("plan", argc, argv, plan_main);
}

/* What the command line asked for. */
struct plan_args {
    const char *file, *out, *plots, *glist;
    char *defout, *defplots;    /* owned: the default names */
    long jobs, seeds;
    int no_plots, quiet, no_advice, force, verbose, exhaustive, full_runs;
    struct gs_plancfg *plan;    /* the scenario's $.plan (owned) */
};

/* Read the options into a.  -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, struct plan_args *a)
{
    int ch;
    optind = 0;             /* 0: a full restart (suggest.h) */
    opterr = 0;
    while ((ch = gs_cli_getopt(argc, argv, "+:s:j:o:fqvh", opts, &a->file)) !=
           -1) {
        char *end;
        long v;
        switch (ch) {
        case GS_CLI_EXTRA:
            return usage_error("plan: more than one scenario: '%s'", optarg);
        case 's':
        case 'j':
            v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < (ch == 's' ? 2 : 1) ||
                v > 1000)
                return usage_error(ch == 's' ? "plan: --seeds takes a whole "
                                   "number from 2 to 1000, not '%s'"
                                   : "plan: --jobs takes a whole number "
                                   "from 1 to 1000, not '%s'", optarg);
            if (ch == 's')
                a->seeds = v;
            else
                a->jobs = v;
            break;
        case 'g': a->glist = optarg; break;
        case 'o': a->out = optarg; break;
        case 'f': a->force = 1; break;
        case 'D': a->plots = optarg; break;
        case 'n': a->no_plots = 1; break;
        case 'A': a->no_advice = 1; break;
        case 'E': a->exhaustive = 1; break;
        case 'R': a->full_runs = 1; break;
        case 'q': a->quiet = 1; break;
        case 'v': a->verbose = 1; break;
        case 'h':
            if (gs_dist_leader())
                fputs(usage, stdout);
            return 0;
        default:
            return gs_dist_leader()
                       ? gs_suggest_bad_option("plan", opts, argc, argv, ch)
                       : 2;
        }
    }
    if (a->plots && a->no_plots)
        return usage_error("%s", "plan: --plots and --no-plots contradict "
                           "each other; give one");
    if (a->file == NULL)
        return usage_error("%s", "plan: which scenario? (a JSON file with a "
                           "'plan' section)");
    return -1;
}

/* The command line's overrides of the plan section: --seeds, --growth.
 * -1 to go on, or the exit status. */
static int override(struct gs_plancfg *pc, const struct plan_args *a)
{
    if (a->seeds) {
        pc->seeds = (int)a->seeds;
        if (pc->min_seeds > pc->seeds)
            pc->min_seeds = pc->seeds;
    }
    if (pc->max_seeds == 0)
        pc->max_seeds = 2 * pc->seeds > 1000 ? 1000 : 2 * pc->seeds;
    if (pc->max_seeds < pc->seeds)
        pc->max_seeds = pc->seeds;
    if (a->glist == NULL)
        return -1;
    char **g;
    int n = gs_split_values(a->glist, &g);
    int bad = n < 1 || n > 16;
    for (int k = 0; k < (n > 0 ? n : 0); k++) {
        char *end;
        double f = strtod(g[k], &end);
        if (*end != '\0' || !(f > 0 && f <= 1000))
            bad = 1;
        else if (k < 16)
            pc->growth[k] = f;
        free(g[k]);
    }
    if (n > 0)
        free(g);
    if (bad)
        return usage_error("--growth wants up to 16 load factors in "
                           "(0, 1000] separated by commas, not '%s'",
                           a->glist);
    pc->ngrowth = n;
    return -1;
}

/* The plan at each load factor: the same search with every generated
 * arrival rate scaled. */
struct growth {
    double cost[16];
    char *label[16];
    char line[16][4096];
};

/* Run the growth searches into g.  0 or a negative code with d filled. */
static int grow(const struct search *s, int jobs, struct growth *g,
                struct gs_diag *d)
{
    const struct gs_plancfg *pc = s->pc;
    for (int k = 0; k < pc->ngrowth; k++) {
        struct search sg = { .pc = pc, .base = s->base,
                             .growth = pc->growth[k], .nm = s->nm,
                             .nfleet = s->nfleet, .pr = s->pr,
                             .bound = INFINITY,
                             .exhaustive = s->exhaustive };
        gs_plan_attain_bind(&sg);
        gs_plan_steady_bind(&sg);
        gs_plan_physics_bind(&sg);
        g->cost[k] = NAN;
        if (gs_plan_reuse_new(&sg, s->ru != NULL, d) < 0 ||
            gs_plan_search_run(&sg, jobs, d) < 0 ||
            gs_plan_search_widen(&sg, jobs, d) < 0) {
            gs_plan_search_free(&sg);
            return d->code ? d->code : -1;
        }
        int b = gs_plan_best_feasible(&sg);
        if (b >= 0) {
            g->cost[k] = sg.cand[b].cost_h;
            g->label[k] = strdup(sg.cand[b].label);
            snprintf(g->line[k], sizeof g->line[k], "  x%-6g %10.2f %12.0f  "
                     "%s (%d candidates, %ld runs)\n", pc->growth[k],
                     g->cost[k], g->cost[k] * pc->hours_per_month,
                     sg.cand[b].label, sg.ncand, sg.runs);
        } else {
            int c = gs_plan_closest(&sg);
            g->label[k] = strdup("none feasible");
            snprintf(g->line[k], sizeof g->line[k], "  x%-6g %10s %12s  none "
                     "feasible; closest: %s\n", pc->growth[k], "-", "-",
                     c >= 0 ? sg.cand[c].label : "(none run)");
        }
        gs_plan_search_free(&sg);
    }
    return 0;
}

/* The candidates cheaper than the answer whose verdict stayed undecided
 * (inside the indifference zone, or at the cap): the answer is the
 * cheapest plan known to meet the targets, and these might too. */
static void print_undecided(FILE *fp, const struct search *s, int chosen)
{
    int n = 0;
    for (int i = 0; i < s->ncand; i++) {
        const struct cand *y = &s->cand[i];
        if (y->status != C_UNDECIDED ||
            (chosen >= 0 && gs_plan_cost_cmp(y, &s->cand[chosen]) > 0))
            continue;
        if (n++ == 0)
            fprintf(fp, "  cheaper, but undecided (its interval sits on a "
                    "target%s):\n", chosen >= 0 ? "; the plan above is the "
                    "cheapest known to meet them" : "");
        char w[160] = "";
        for (int k = 0; k < s->pc->ntargets && !w[0]; k++) {
            const struct gs_plan_target *t = &s->pc->t[k];
            int st = gs_plan_target_state(s, y, t);
            if (st != T_ZONE && st != T_OPEN)
                continue;
            int m = gs_plan_metric(t->metric);
            char c[80];
            gs_plan_cell(c, sizeof c, y->mean[m], y->half[m]);
            if (st == T_ZONE)
                snprintf(w, sizeof w, "%s %s against %g: undecided within "
                         "±%g%%", t->metric, c, t->limit,
                         100 * s->pc->indifference);
            else if (y->at_cap == 2)
                snprintf(w, sizeof w, "%s %s against %g over %d seeds: "
                         "undecided, %d (the cap) would not meet it",
                         t->metric, c, t->limit, y->nrun, s->pc->max_seeds);
            else
                snprintf(w, sizeof w, "%s %s against %g: undecided at the "
                         "cap of %d seeds", t->metric, c, t->limit, y->nrun);
        }
        if (y->transient)
            snprintf(w, sizeof w, "transient not over at the cap (runs %dx "
                     "the scenario's length)", y->lenf);
        fprintf(fp, "    %s  $%.2f/hour  %s\n", y->label, y->cost_h, w);
    }
}

/* The answer on fp, first: the plan (or INFEASIBLE and the closest
 * candidate) with its cost, each target with its margin, the metrics that
 * apply; then how the search went, the front, the growth table and the
 * advice.  0 or a negative code with d filled (the advice's run failed). */
static int print_answer(FILE *fp, const struct search *s, int chosen,
                        int near, const int *fr, int nf,
                        const struct growth *g, const struct plan_args *a,
                        struct gs_diag *d)
{
    const struct gs_plancfg *pc = s->pc;
    const struct cand *x = &s->cand[chosen >= 0 ? chosen : near];
    if (chosen >= 0 && pc->objective >= 2) {
        static const char *const what[] = { "energy", "carbon",
                                            "energy cost" };
        static const char *const unit[] = { "kWh", "kg CO2e", "USD" };
        int o = pc->objective - 2;
        fprintf(fp, "feasible plan with the least %s: %s\n", what[o],
                x->label);
        fprintf(fp, "  %s: %.1f %s per month (730 h)\n", what[o], x->obj,
                unit[o]);
    } else if (chosen >= 0) {
        fprintf(fp, "cheapest feasible plan: %s\n", x->label);
    } else {
        fprintf(fp, "INFEASIBLE: no candidate in the search space "
                "meets every target.\n");
        if (near >= 0)
            fprintf(fp, "closest candidate (least relative miss of "
                    "its worst target, %.1f%%): %s\n",
                    100 * gs_plan_miss(s, x), x->label);
        gs_plan_print_physics(fp, s);
    }
    if (chosen >= 0 || near >= 0) {
        /* the runs' own cost per hour, where it is not the fleet's
         * price (autoscaled pools, spot interruptions, energy) */
        int im = gs_plan_metric("cost_per_hour_usd");
        char c[80] = "";
        if (fabs(x->mean[im] - x->cost_h) > 0.005 ||
            (x->half[im] > 0 && !isnan(x->half[im]))) {
            snprintf(c, sizeof c, "; as run: $");
            gs_plan_cell(c + strlen(c), sizeof c - strlen(c), x->mean[im],
                         x->half[im]);
            snprintf(c + strlen(c), sizeof c - strlen(c), " per hour");
        }
        fprintf(fp, "  cost: $%.2f per hour, $%.0f per month (%g h)%s\n",
                x->cost_h, x->cost_h * pc->hours_per_month,
                pc->hours_per_month, c);
        gs_plan_print_fleet(fp, x);
        gs_plan_print_targets(fp, s, x);
    }
    print_undecided(fp, s, chosen);
    if (chosen >= 0 || near >= 0)
        gs_plan_print_metrics(fp, s, x, a->verbose);
    fputc('\n', fp);
    print_head(fp, s);
    gs_plan_print_front(fp, s, fr, nf, pc->hours_per_month);
    if (pc->ngrowth) {
        fprintf(fp, "\nload growth (the same search with "
                "every generated arrival rate scaled):\n  %-7s %10s %12s  %s\n",
                "factor", "$/hour", "$/month", "plan");
        for (int k = 0; k < pc->ngrowth; k++)
            fputs(g->line[k], fp);
    }
    int rc = 0;
    if (!a->no_advice && (chosen >= 0 || near >= 0))
        rc = gs_plan_rightsize(fp, x->sc, d);
    fflush(fp);
    return rc;
}

/* Write the answer's file and plot (the leader's part).  The exit status
 * so far. */
static int write_results(const struct plan_args *a, const struct search *s,
                         int chosen, int near, const int *fr, int nf,
                         const struct growth *g, double secs,
                         struct gs_diag *d)
{
    const struct gs_plancfg *pc = s->pc;
    if (gs_plan_write_h5(a->out, s, fr, nf, chosen, near, g->cost,
                         (const char *const *)g->label, pc->growth,
                         pc->ngrowth, d) < 0)
        return gs_report_diag(d, 1);
    if (!a->no_plots) {
        if (gs_plan_plot_front(a->plots, s, fr, nf, chosen) == 0)
            fprintf(stderr, "gpusim: Pareto plot in %s/front.png\n",
                    a->plots);
        else
            fprintf(stderr, "gpusim: could not draw the plot (gnuplot); "
                    "its data is in %s/\n", a->plots);
    }
    double simd = 0;
    for (int i = 0; i < s->ncand; i++)
        simd += gs_plan_simulated(s, &s->cand[i]);
    fprintf(stderr, "gpusim: plan searched in %.2f s (%d rank%s x %ld "
            "workers): %ld runs, %.0f jobs and requests simulated (and %ld "
            "run ahead on idle workers, %ld of them used); results in %s\n",
            secs, gs_dist_size(), gs_dist_size() == 1 ? "" : "s", a->jobs,
            s->runs, simd, s->ahead, s->ahead_used, a->out);
    gs_plan_reuse_note(stderr, s);
    return 0;
}

/* Load the scenario and name the outputs.  -1 to go on, or the exit
 * status with the message printed. */
static int prepare(struct plan_args *a, struct gs_scenario **base,
                   struct gs_diag *d)
{
    if (gs_load_scenario(a->file, base, d) < 0 ||
        gs_plancfg_load(*base, &a->plan, d) < 0)
        return gs_report_diag(d, 2);
    if (a->plan == NULL) {
        gs_diag_set(d, GS_EINVAL, (*base)->file, "no 'plan' section: "
                    "nothing to plan (docs/planning.md)");
        return gs_report_diag(d, 2);
    }
    /* The result file is named after the scenario file and never replaced
     * silently; the leader decides, before any run, for every rank. */
    if (a->plots == NULL) {
        a->defplots = gs_out_default_name(a->file, "-plan-plots");
        GS_OOM_IF(a->defplots == NULL);
        a->plots = a->defplots;
    }
    if (gs_dist_out_check(a->file, "-plan.h5", a->force, &a->out,
                          &a->defout, d) < 0) {
        if (gs_dist_leader())
            gs_report_diag(d, 2);
        return 2;
    }
    return -1;
}

static int plan_main(int argc, char **argv)
{
    struct plan_args a = { .jobs = gs_dist_default_jobs() };
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    struct gs_diag d = { 0 };
    struct gs_scenario *base = NULL;
    struct gs_plancfg pc;
    struct gs_progress pr;
    struct search s = { 0 };
    struct growth g = { .label = { 0 } };
    int *fr = NULL;
    if ((status = prepare(&a, &base, &d)) >= 0)
        goto end;
    gs_run_bind(base);
    pc = *a.plan;                       /* shallow: overrides only */
    if ((status = override(&pc, &a)) >= 0)
        goto end;
    status = 0;
    if (pc.ngrowth > 0 && gs_plan_growth_check(base, &d) < 0) {
        status = gs_report_diag(&d, 2);
        goto end;
    }
    gs_progress_init(&pr, "plan", a.quiet || !gs_dist_leader());
    s = (struct search){ .pc = &pc, .base = base, .growth = 1,
                         .nm = gs_run_nmetrics(), .pr = &pr,
                         .bound = INFINITY, .exhaustive = a.exhaustive };
    gs_plan_attain_bind(&s);
    gs_plan_steady_bind(&s);
    gs_plan_physics_bind(&s);
    if (gs_plan_reuse_new(&s, !a.full_runs, &d) < 0) {
        status = gs_report_diag(&d, 2);
        goto end;
    }
    /* spot clones are appended after the $.fleet entries */
    s.nfleet = gs_json_count(base->text, "fleet");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (gs_plan_search_run(&s, (int)a.jobs, &d) < 0 ||
        gs_plan_search_widen(&s, (int)a.jobs, &d) < 0 ||
        grow(&s, (int)a.jobs, &g, &d) < 0) {
        gs_progress_end(&pr);
        status = gs_report_diag(&d, d.code == GS_EIO ? 1 : 2);
        goto end;
    }
    int chosen = gs_plan_best_feasible(&s);
    int near = chosen < 0 ? gs_plan_closest(&s) : -1;
    fr = calloc((size_t)s.ncand + 1, sizeof *fr);
    int nf = fr ? gs_plan_pareto(&s, fr) : 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    gs_progress_end(&pr);
    if (gs_dist_leader()) {
        if (!a.quiet && print_answer(stdout, &s, chosen, near, fr, nf, &g,
                                     &a, &d) < 0) {
            status = gs_report_diag(&d, 2);
            goto end;
        }
        status = write_results(&a, &s, chosen, near, fr, nf, &g,
                               (double)(t1.tv_sec - t0.tv_sec) +
                                   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
                               &d);
    }
    if (status == 0 && chosen < 0)
        status = 3;
end:
    gs_diag_free(&d);
    for (int k = 0; k < 16; k++)
        free(g.label[k]);
    free(fr);
    gs_plan_search_free(&s);
    gs_scenario_free(base);
    gs_plancfg_free(a.plan);
    free(a.defout);
    free(a.defplots);
    return status;
}
