/* train.c -- `gpusim train`: fit the rl-lite policy's weights with the
 * simulator as the environment, by the cross-entropy method.
 *
 * The cross-entropy method (Rubinstein 1999; de Boer, Kroese, Mannor and
 * Rubinstein, "A Tutorial on the Cross-Entropy Method", Ann. Oper. Res.
 * 134, 2005; used for policy search by Szita and Lorincz, "Learning Tetris
 * Using the Noisy Cross-Entropy Method", 2006) keeps a Gaussian over the
 * weight vector.  Each iteration draws `pop` weight vectors from it, runs
 * the scenario under rl-lite with each (on `seeds` workloads: the scenario's
 * seed, +1, ...), keeps the `elite` with the lowest objective and refits the
 * mean and per-weight standard deviation to them, plus a noise floor that
 * shrinks each iteration (Szita and Lorincz's "noisy" variant, which keeps
 * the search from collapsing early).  The best vector ever evaluated is the
 * result.  Every draw comes from one GSL stream ("train-cem") seeded by
 * --seed, and the simulations are deterministic, so a run is reproducible
 * whatever --jobs is.
 *
 * The objective, lower is better, for one run:
 *   J = wait * (queueing delay in minutes, mean over started jobs weighted
 *               by tier priority / 50: inference 2, training 1,
 *               interactive 0.4, data 0.2 with the default tiers)
 *     + sla  * (percent of jobs that violated their wait limit or deadline)
 *     + cost * (cost of the run in thousands of dollars)
 * averaged over the seeds; the weights come from --objective. */
#include "compare.h"
#include "../io/jsonio.h"
#include "../io/outfile.h"
#include "pool.h"
#include "progress.h"
#include "../base/rng.h"
#include "../setup/scenario.h"
#include "../base/suggest.h"
#include "../setup/setup.h"
#include "../../policies/rllite.h"

#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NF GS_RLLITE_NF

static const char usage[] =
"usage: gpusim train SCENARIO [options]\n"
"\n"
"Fit the rl-lite policy's weights on SCENARIO's workload by the\n"
"cross-entropy method, each candidate judged by simulating the scenario,\n"
"and save them as JSON for the policy's \"weights\" parameter.\n"
"\n"
"options:\n"
"  -o, --out FILE    weights file to write, replaced if it exists (default\n"
"                    rllite-weights.json, never replaced without --force)\n"
"  -f, --force       replace the default weights file if it exists\n"
"  --objective SPEC  wait=W,sla=S,cost=C: J = W * tier-weighted mean wait\n"
"                    (min) + S * SLA violations (% of jobs) + C * cost\n"
"                    (k$); default wait=1,sla=1,cost=0\n"
"  --iters K         iterations (default 8)\n"
"  --pop N           candidates per iteration (default 16)\n"
"  --elite E         candidates kept per iteration (default 4)\n"
"  --sigma S         initial standard deviation of each weight (default 1)\n"
"  -s, --seeds N     workloads per evaluation: the scenario's seed, +1, ...\n"
"                    (default 1)\n"
"  --seed X          seed of the search itself (default 1)\n"
"  --init FILE       start from these weights (default: all zero, i.e.\n"
"                    the untrained policy)\n"
"  -j, --jobs P      worker processes (default: the number of CPUs)\n"
"  -q, --quiet       no progress on stderr (on a terminal a progress line\n"
"                    shows the simulations done, rate and time left)\n"
"\n"
"exit status: 0 done, 2 bad input or usage, 1 weights not written\n";

struct obj {
    double wait, sla, cost;
};

struct tr {
    struct gs_scenario *sc;
    struct obj o;
    int nseeds;
    const double *cand;         /* [n][NF] */
    int baseline;               /* evaluate fifo-backfill instead */
    struct gs_progress pr;      /* simulations done of all the training's */
    int ndone, total;
};

double gs_train_objective(const struct gs_summary *su,
                          const struct gs_scenario *sc, double wait,
                          double sla, double cost)
{
    double num = 0, den = 0;
    for (int t = 0; t < GS_NTIERS; t++) {
        double w = sc->tiers[t].priority > 0 ? sc->tiers[t].priority / 50.0
                                             : 0.0;
        num += w * (double)su->tier[t].started * su->tier[t].wait_mean;
        den += w * (double)su->tier[t].started;
    }
    double wait_min = den > 0 ? num / den / 60.0 : 0;
    double viol = su->all.jobs > 0
                      ? 100.0 * (double)(su->all.sla_wait +
                                         su->all.sla_deadline) /
                            (double)su->all.jobs
                      : 0;
    return wait * wait_min + sla * viol + cost * su->cost / 1000.0;
}

/* "candidate 3, seed 43" (or "fifo-backfill, seed 43": the baseline). */
static char *eval_name(int task, void *ctx)
{
    const struct tr *t = ctx;
    unsigned long long seed = t->sc->seed + (uint64_t)(task % t->nseeds);
    if (t->baseline)
        return gs_strf("fifo-backfill, seed %llu", seed);
    return gs_strf("candidate %d, seed %llu", task / t->nseeds + 1, seed);
}

static int eval_task(int task, double *out, void *ctx, struct gs_diag *d)
{
    struct tr *t = ctx;
    int c = task / t->nseeds, k = task % t->nseeds;
    struct gs_sim_opts o = { .seed = t->sc->seed + (uint64_t)k, .set_seed = 1 };
    if (t->baseline) {
        o.policy = "fifo-backfill";
    } else {
        struct gs_scenario *sc = t->sc;
        gs_params_free(&sc->policy_params);
        gs_params_init(&sc->policy_params, "gpusim train");
        snprintf(sc->policy, sizeof sc->policy, "rl-lite");
        for (int i = 0; i < NF; i++) {
            char key[64];
            snprintf(key, sizeof key, "w_%s", gs_rllite_features[i]);
            if (gs_params_add_num(&sc->policy_params, key,
                                  t->cand[c * NF + i]) < 0)
                return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        }
    }
    struct gs_sim *sim = NULL;
    int rc = gs_sim_new(t->sc, &o, &sim, d);
    if (rc == 0)
        rc = gs_sim_run(sim, d);
    if (rc == 0)
        out[0] = gs_train_objective(gs_sim_summary(sim), t->sc, t->o.wait,
                                    t->o.sla, t->o.cost);
    gs_sim_free(sim);
    return rc;
}

/* The progress line: simulations done of the whole training's. */
static void progress(int task, int ndone, const double *out, void *ctx)
{
    (void)task;
    (void)out;
    struct tr *t = ctx;
    gs_progress_count(&t->pr, t->ndone + ndone, t->total, "simulations");
}

/* Mean objective of each of n candidates over the seeds, into j[n]. */
static int evaluate(struct tr *t, const double *cand, int n, int jobs,
                    double *j, struct gs_diag *d)
{
    int ntasks = n * t->nseeds;
    double *r = malloc((size_t)ntasks * sizeof *r);
    if (r == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    t->cand = cand;
    struct gs_pool_tasks pool = { .ntasks = ntasks, .jobs = jobs, .nout = 1,
                                  .fn = eval_task, .name = eval_name,
                                  .done = progress,
                                  .ctx = t };
    int rc = gs_pool_exec(&pool, r, d);
    t->ndone += ntasks;
    for (int c = 0; c < n && rc == 0; c++) {
        double s = 0;
        for (int k = 0; k < t->nseeds; k++)
            s += r[c * t->nseeds + k];
        j[c] = s / t->nseeds;
    }
    free(r);
    return rc;
}

/* "wait=W,sla=S,cost=C" in buf (split in place) into *o.  0 or -1. */
static int objective(char *buf, struct obj *o)
{
    struct obj r = { 0, 0, 0 };
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            return -1;
        *eq = '\0';
        char *end;
        double v = strtod(eq + 1, &end);
        if (end == eq + 1 || *end != '\0' || !(v >= 0 && v < 1e9))
            return -1;
        if (strcmp(tok, "wait") == 0)
            r.wait = v;
        else if (strcmp(tok, "sla") == 0)
            r.sla = v;
        else if (strcmp(tok, "cost") == 0)
            r.cost = v;
        else
            return -1;
    }
    if (r.wait == 0 && r.sla == 0 && r.cost == 0)
        return -1;
    *o = r;
    return 0;
}

/* The spec whole, however long (it was cut to 255 bytes). */
static int parse_objective(const char *spec, struct obj *o)
{
    char *buf = strdup(spec);
    int rc = buf ? objective(buf, o) : -1;
    free(buf);
    return rc;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpusim: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'gpusim train --help')\n");
    return 2;
}

static const double *cmp_j;
static int by_j(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (cmp_j[x] != cmp_j[y])
        return cmp_j[x] < cmp_j[y] ? -1 : 1;
    return x - y;
}

static int train_main(int argc, char **argv);

/* argv holds the arguments after "train" (as the CLI and tests call it). */
int gs_train_main(int argc, char **argv)
{
    return gs_cli_named("train", argc, argv, train_main);
}

/* The options of `gpusim train`. */
struct train_args {
    const char *file, *out, *init, *objspec;
    long iters, pop, elite, nseeds, jobs;
    unsigned long long seed;
    double sigma;
    int quiet, force;
};

/* Read the options into a.  -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, struct train_args *a)
{
    static const struct option opts[] = {
        { "out", required_argument, NULL, 'o' },
        { "force", no_argument, NULL, 'f' },
        { "objective", required_argument, NULL, 'O' },
        { "iters", required_argument, NULL, 'i' },
        { "pop", required_argument, NULL, 'n' },
        { "elite", required_argument, NULL, 'e' },
        { "sigma", required_argument, NULL, 'S' },
        { "seeds", required_argument, NULL, 's' },
        { "seed", required_argument, NULL, 'r' },
        { "init", required_argument, NULL, 'I' },
        { "jobs", required_argument, NULL, 'j' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int status = -1, ch;
    optind = 0;             /* 0: a full restart (suggest.h) */
    opterr = 0;
    while (status < 0 && (ch = gs_cli_getopt(argc, argv, "+:o:fs:j:qh",
                                             opts, &a->file)) != -1) {
        if (ch == GS_CLI_EXTRA) {
            status = usage_error("train: more than one scenario: '%s'",
                                 optarg);
            break;
        }
        char *end;
        long *lp = ch == 'i' ? &a->iters : ch == 'n' ? &a->pop
                 : ch == 'e' ? &a->elite : ch == 's' ? &a->nseeds
                 : ch == 'j' ? &a->jobs : NULL;
        if (lp) {
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 1 || v > 100000)
                status = usage_error("train: expected a whole number from 1 "
                                     "to 100000, not '%s'", optarg);
            *lp = v;
            continue;
        }
        switch (ch) {
        case 'r':
            a->seed = strtoull(optarg, &end, 10);
            if (*optarg == '\0' || *optarg == '-' || *end != '\0')
                status = usage_error("train: --seed takes a whole number "
                                     ">= 0, not '%s'", optarg);
            break;
        case 'S':
            a->sigma = strtod(optarg, &end);
            if (*end != '\0' || !(a->sigma > 0 && a->sigma < 1e6))
                status = usage_error("train: --sigma takes a number > 0, not "
                                     "'%s'", optarg);
            break;
        case 'O': a->objspec = optarg; break;
        case 'o': a->out = optarg; break;
        case 'f': a->force = 1; break;
        case 'I': a->init = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'h':
            fputs(usage, stdout);
            status = 0;
            break;
        default:
            status = gs_suggest_bad_option("train", opts, argc, argv, ch);
        }
    }
    if (status >= 0)
        return status;
    if (a->file == NULL)
        return usage_error("%s", "train: which scenario? (a JSON file, or "
                           "'quickstart')");
    if (a->elite > a->pop)
        return usage_error("%s", "train: --elite must not exceed --pop");
    return -1;
}

/* One step of the cross-entropy method: the elite of the pop candidates
 * (idx sorted by objective j) becomes the new mean and deviation, with
 * decaying extra noise (sigma / 4 / (it + 1)) so it does not collapse. */
static void cem_step(const double *cand, const int *idx, long elite,
                     double sigma, long it, double *mu, double *sd)
{
    double noise = sigma * 0.25 / (double)(it + 1);
    for (int i = 0; i < NF; i++) {
        double m = 0, v = 0;
        for (long e = 0; e < elite; e++)
            m += cand[idx[e] * NF + i];
        m /= (double)elite;
        for (long e = 0; e < elite; e++) {
            double x = cand[idx[e] * NF + i] - m;
            v += x * x;
        }
        mu[i] = m;
        sd[i] = sqrt(v / (double)elite + noise * noise);
    }
}

static int train_main(int argc, char **argv)
{
    struct train_args a = { .objspec = "wait=1,sla=1,cost=0", .iters = 8,
                            .pop = 16, .elite = 4, .nseeds = 1,
                            .jobs = sysconf(_SC_NPROCESSORS_ONLN), .seed = 1,
                            .sigma = 1.0 };
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    const char *file = a.file, *out = a.out, *init = a.init;
    const char *objspec = a.objspec;
    long iters = a.iters, pop = a.pop, elite = a.elite, jobs = a.jobs;
    unsigned long long seed = a.seed;
    double sigma = a.sigma;
    int quiet = a.quiet, force = a.force;
    struct gs_diag d = { 0 };
    if (out != NULL && gs_out_check(out, &d) < 0) {    /* "-": stdout */
        gs_diag_print(stderr, "gpusim: --out: ", &d);
        gs_diag_free(&d);
        return 2;
    }
    if (out == NULL) {      /* the default is never replaced silently */
        out = "rllite-weights.json";
        if (gs_out_check_new(out, force, &d) < 0) {
            gs_diag_print(stderr, "gpusim: ", &d);
            gs_diag_free(&d);
            return 2;
        }
    }
    struct tr t = { 0 };
    if (parse_objective(objspec, &t.o) < 0)
        return usage_error("train: --objective wants wait=W,sla=S,cost=C "
                           "(numbers >= 0, not all 0), not '%s'", objspec);
    t.nseeds = (int)a.nseeds;

    struct stat st;
    int rc;
    if (strcmp(file, "quickstart") == 0 && stat(file, &st) != 0)
        rc = gs_scenario_parse(gs_scenario_quickstart(),
                               "<built-in quickstart>", ".", &t.sc, &d);
    else
        rc = gs_scenario_load(file, &t.sc, &d);
    double mu[NF] = { 0 }, sd[NF], best[NF];
    if (rc == 0 && init)
        rc = gs_weights_load(init, gs_rllite_features, NF, mu, &d);
    if (rc < 0) {
        gs_diag_print(stderr, "gpusim: ", &d);
        gs_diag_free(&d);
        gs_scenario_free(t.sc);
        return 2;
    }
    gsl_rng *r = gs_rng_stream(seed, "train-cem");
    double *cand = malloc((size_t)pop * NF * sizeof *cand);
    double *j = malloc((size_t)pop * sizeof *j);
    int *idx = malloc((size_t)pop * sizeof *idx);
    status = 2;
    if (!r || !cand || !j || !idx) {
        fprintf(stderr, "gpusim: out of memory\n");
        goto done;
    }
    double jbase, juntrained, jbest;
    gs_progress_init(&t.pr, "train", quiet);
    t.total = (int)((2 + iters * pop) * t.nseeds);
    t.baseline = 1;
    if ((rc = evaluate(&t, mu, 1, (int)jobs, &jbase, &d)) < 0)
        goto fail;
    t.baseline = 0;
    if ((rc = evaluate(&t, mu, 1, (int)jobs, &juntrained, &d)) < 0)
        goto fail;
    memcpy(best, mu, sizeof best);
    jbest = juntrained;
    for (int i = 0; i < NF; i++)
        sd[i] = sigma;
    gs_progress_end(&t.pr);     /* the log line goes above it */
    if (!quiet)
        fprintf(stderr, "gpusim train: objective fifo-backfill %.4f, "
                "untrained rl-lite %.4f\n", jbase, juntrained);
    for (long it = 0; it < iters; it++) {
        for (long c = 0; c < pop; c++)
            for (int i = 0; i < NF; i++)
                cand[c * NF + i] = mu[i] + sd[i] * gsl_ran_gaussian(r, 1.0);
        if ((rc = evaluate(&t, cand, (int)pop, (int)jobs, j, &d)) < 0)
            goto fail;
        for (long c = 0; c < pop; c++)
            idx[c] = (int)c;
        cmp_j = j;
        qsort(idx, (size_t)pop, sizeof *idx, by_j);
        if (j[idx[0]] < jbest) {
            jbest = j[idx[0]];
            memcpy(best, &cand[idx[0] * NF], sizeof best);
        }
        cem_step(cand, idx, elite, sigma, it, mu, sd);
        gs_progress_end(&t.pr);
        if (!quiet)
            fprintf(stderr, "gpusim train: iteration %ld/%ld: best of "
                    "iteration %.4f, best so far %.4f\n", it + 1, iters,
                    j[idx[0]], jbest);
    }
    struct gs_weights_meta meta = { .seed = seed, .iterations = (int)iters,
                                    .untrained = juntrained, .trained = jbest,
                                    .objective = objspec };
    /* the scenario's path whole, however long (was cut to 255 bytes) */
    char *on = gs_strf("%s (%s), %d seed%s from %llu", t.sc->name, file,
                       t.nseeds, t.nseeds == 1 ? "" : "s",
                       (unsigned long long)t.sc->seed);
    if (on == NULL) {
        rc = gs_diag_set(&d, GS_ENOMEM, out, "out of memory");
        status = 1;
        goto fail;
    }
    meta.trained_on = on;
    rc = gs_weights_save(out, gs_rllite_features, NF, best, &meta, &d);
    free(on);
    if (rc < 0) {
        status = 1;
        goto fail;
    }
    printf("gpusim train  scenario %s  %d seed%s  objective %s\n\n",
           t.sc->name, t.nseeds, t.nseeds == 1 ? "" : "s", objspec);
    printf("  %-22s %12s\n", "policy", "objective");
    printf("  %-22s %12.4f\n", "fifo-backfill", jbase);
    printf("  %-22s %12.4f\n", "rl-lite (untrained)", juntrained);
    printf("  %-22s %12.4f\n\n", "rl-lite (trained)", jbest);
    printf("  weights:");
    for (int i = 0; i < NF; i++)
        printf(" %s=%.4f", gs_rllite_features[i], best[i]);
    printf("\n  written to %s\n", out);
    status = 0;
    goto done;
fail:
    gs_progress_end(&t.pr);
    if (d.code == GS_EIO)       /* a worker failed (pool.h), not the input */
        status = 1;
    gs_diag_print(stderr, "gpusim: ", &d);
done:
    gs_diag_free(&d);
    gsl_rng_free(r);
    free(cand);
    free(j);
    free(idx);
    gs_scenario_free(t.sc);
    return status;
}
