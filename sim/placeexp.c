/* placeexp.c -- the FGD paper's placement experiment (placeexp.h).
 *
 * One run per (placer, seed): a fresh simulation of the scenario's fleet
 * under that placer; tasks drawn from the population are offered one by one
 * (gs_sim_offer) until the arrived GPU requests reach max_load x capacity,
 * and the curves are sampled at each multiple of step.  A task counts
 * towards the arrived workload whether or not it is placed, as in the
 * paper; a task no pool could ever take (a GPU model the fleet lacks)
 * counts as failed.  The population is read once, through the scenario's
 * workload (the trace-format registry for traces), and shared by all runs.
 *
 * Cost: a run offers about max_load x capacity / (mean request) tasks, each
 * one placement decision (O(live classes) for the class placers, O(log
 * nodes) for first-fit and best-fit) -- see docs/sharing.md for the
 * measured rates. */
#include "placeexp.h"
#include "compare.h"
#include "frag.h"
#include "h5out.h"
#include "rng.h"
#include "sim.h"
#include "../traces/tread.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gs_place_exp_free(struct gs_place_exp *x)
{
    if (x == NULL)
        return;
    free(x->placers);
    free(x->seeds);
    free(x->load);
    free(x->alloc);
    free(x->frag);
    free(x->failed);
    free(x->tasks);
    free(x->classes);
    memset(x, 0, sizeof *x);
}

static int request_milli(const struct gs_jobspec *j)
{
    return j->gpus > 0 ? 1000 * j->gpus : j->milli;
}

/* The jobs of sc's workload that ask for GPUs. */
static int read_population(const struct gs_scenario *sc,
                           struct gs_jobspec **out, long *n,
                           struct gs_diag *d)
{
    struct gs_source src;
    int rc = gs_source_open(sc, sc->seed, &src, d);
    *out = NULL;
    *n = 0;
    if (rc < 0)
        return rc;
    long cap = 0;
    struct gs_jobspec j;
    while ((rc = gs_source_next(&src, &j, d)) == 1) {
        if (request_milli(&j) <= 0)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 4096;
            struct gs_jobspec *v = realloc(*out, (size_t)cap * sizeof *v);
            if (v == NULL) {
                rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
                break;
            }
            *out = v;
        }
        (*out)[(*n)++] = j;
    }
    gs_source_close(&src);
    if (rc == 0 && *n == 0)
        rc = gs_diag_set(d, GS_EINVAL, sc->file, "the workload has no job "
                         "that asks for a GPU: nothing to place");
    if (rc < 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* One (placer, seed) run; fills the point arrays of length np. */
static int run_one(const struct gs_scenario *sc, const char *placer,
                   uint64_t seed, const struct gs_jobspec *pop, long npop,
                   const double *load, int np, double *alloc, double *frag,
                   double *failed, long *tasks, long *classes,
                   struct gs_diag *d)
{
    struct gs_sim_opts so = { .seed = seed, .set_seed = 1, .placer = placer };
    struct gs_sim *sim = NULL;
    FILE *log = gs_trace_log();
    gs_trace_set_log(NULL);     /* the population's reading said it all */
    int rc = gs_sim_new(sc, &so, &sim, d);
    gs_trace_set_log(log);
    if (rc < 0)
        return rc;
    gsl_rng *rng = gs_rng_stream(seed, "place-exp.tasks");
    if (rng == NULL) {
        gs_sim_free(sim);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double cap = 1000.0 * (double)f->ngpus, arrived = 0, lost = 0;
    long t = 0;
    for (int p = 0; p < np && rc == 0;) {
        struct gs_jobspec j = pop[gsl_rng_uniform_int(rng,
                                                      (unsigned long)npop)];
        j.id = t++;
        j.arrival = 0;
        int placed = 0;
        if ((rc = gs_sim_offer(sim, &j, &placed, d)) < 0)
            break;
        arrived += request_milli(&j);
        if (!placed)
            lost += request_milli(&j);
        while (p < np && arrived >= load[p] * cap - 1e-6) {
            double fr, fc;
            gs_frag_levels(gs_sim_frag(sim), &fr, &fc);
            alloc[p] = (double)f->used_milli / cap;
            frag[p] = fr / cap;
            failed[p] = lost / cap;
            p++;
        }
    }
    *tasks = t;
    *classes = gs_frag_nclasses(gs_sim_frag(sim));
    gsl_rng_free(rng);
    gs_sim_free(sim);
    return rc;
}

int gs_place_exp_run(const struct gs_scenario *sc,
                     const struct gs_place_exp_opts *o,
                     struct gs_place_exp *x, struct gs_diag *d)
{
    memset(x, 0, sizeof *x);
    if (o->nplacers < 1 || o->nseeds < 1 || !(o->step > 0) ||
        !(o->max_load >= o->step))
        return gs_diag_set(d, GS_EUSAGE, "place-exp", "need at least one "
                           "placer and seed, and 0 < step <= max load");
    for (int i = 0; i < o->nplacers; i++)
        if (gs_placer_find(o->placers[i]) == NULL)
            return gs_diag_set(d, GS_ENOTFOUND, "--placers", "unknown "
                               "placement '%s' (see 'gpusim policies')",
                               o->placers[i]);
    struct gs_jobspec *pop = NULL;
    long npop = 0;
    int rc = read_population(sc, &pop, &npop, d);
    if (rc < 0)
        return rc;
    int np = (int)floor(o->max_load / o->step + 1e-9);
    size_t cells = (size_t)o->nplacers * (size_t)o->nseeds;
    x->nplacers = o->nplacers;
    x->nseeds = o->nseeds;
    x->npoints = np;
    x->population = npop;
    x->placers = calloc((size_t)o->nplacers, sizeof *x->placers);
    x->seeds = calloc((size_t)o->nseeds, sizeof *x->seeds);
    x->load = calloc((size_t)np, sizeof *x->load);
    x->alloc = calloc(cells * (size_t)np, sizeof *x->alloc);
    x->frag = calloc(cells * (size_t)np, sizeof *x->frag);
    x->failed = calloc(cells * (size_t)np, sizeof *x->failed);
    x->tasks = calloc(cells, sizeof *x->tasks);
    x->classes = calloc(cells, sizeof *x->classes);
    if (!x->placers || !x->seeds || !x->load || !x->alloc || !x->frag ||
        !x->failed || !x->tasks || !x->classes) {
        free(pop);
        gs_place_exp_free(x);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    for (int i = 0; i < o->nplacers; i++)
        snprintf(x->placers[i], sizeof x->placers[i], "%s", o->placers[i]);
    for (int k = 0; k < o->nseeds; k++)
        x->seeds[k] = sc->seed + (uint64_t)k;
    for (int p = 0; p < np; p++)
        x->load[p] = o->step * (p + 1);
    for (int i = 0; i < sc->npools; i++)
        x->capacity_gpus += (double)sc->pools[i].nodes * sc->pools[i].gpn;
    for (int i = 0; i < o->nplacers && rc == 0; i++)
        for (int k = 0; k < o->nseeds && rc == 0; k++) {
            size_t c = (size_t)i * (size_t)o->nseeds + (size_t)k;
            rc = run_one(sc, o->placers[i], x->seeds[k], pop, npop, x->load,
                         np, x->alloc + c * (size_t)np,
                         x->frag + c * (size_t)np, x->failed + c * (size_t)np,
                         &x->tasks[c], &x->classes[c], d);
        }
    free(pop);
    if (rc < 0)
        gs_place_exp_free(x);
    return rc;
}

/* --- the command line ---------------------------------------------------------- */

static const char usage[] =
"usage: gpusim place-exp SCENARIO [options]\n"
"\n"
"The FGD paper's placement experiment: tasks drawn from SCENARIO's workload\n"
"(with replacement) arrive and never leave, each placed at once or failed,\n"
"until the requested GPUs reach --max-load of the fleet's capacity.  Prints\n"
"the GPU allocation ratio against the arrived workload per placer (mean and\n"
"95% interval over the seeds) and writes the curves to an HDF5 file.\n"
"\n"
"options:\n"
"  --placers A,B,..  placement plug-ins (default: random,best-fit,fgd)\n"
"  --seeds N         seeds: the scenario's, +1, ... (default 5)\n"
"  --max-load X      arrived workload to reach, share of capacity (default\n"
"                    1.3)\n"
"  --step X          sampling step of the curves (default 0.01)\n"
"  --out FILE        HDF5 file (default: NAME-place.h5)\n"
"  --no-out          write no file\n"
"  --quiet           print no table\n"
"\n"
"exit status: 0 done, 2 bad input or usage, 1 result file not written\n";

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpusim: place-exp: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'gpusim help place-exp')\n");
    return 2;
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* The value of x at load L by the curve's points (nearest point at or
 * below; NAN when L is below the first). */
static int point_at(const struct gs_place_exp *x, double L)
{
    int best = -1;
    for (int p = 0; p < x->npoints; p++)
        if (x->load[p] <= L + 1e-9)
            best = p;
    return best;
}

static void print_table(FILE *fp, const char *name,
                        const struct gs_place_exp *x, double max_load)
{
    double marks[4] = { 0.5, 0.8, 1.0, max_load };
    int pts[4];
    fprintf(fp, "gpusim place-exp  scenario %s  %.0f GPUs  %ld tasks in the "
            "population  %d seeds\n\n", name, x->capacity_gpus, x->population,
            x->nseeds);
    fprintf(fp, "  GPU allocation ratio at arrived workload (mean +- 95%% "
            "interval over seeds)\n  %-14s", "placer");
    for (int m = 0; m < 4; m++) {
        pts[m] = point_at(x, marks[m]);
        if (m == 3 || marks[m] < max_load - 1e-9)
            fprintf(fp, "  %13.0f%%", 100 * marks[m]);
    }
    fprintf(fp, "  %12s\n", "frag at end");
    double *v = malloc((size_t)x->nseeds * sizeof *v);
    if (v == NULL)
        return;
    for (int i = 0; i < x->nplacers; i++) {
        fprintf(fp, "  %-14s", x->placers[i]);
        for (int m = 0; m < 4; m++) {
            if (!(m == 3 || marks[m] < max_load - 1e-9))
                continue;
            if (pts[m] < 0) {
                fprintf(fp, "  %14s", "-");
                continue;
            }
            for (int k = 0; k < x->nseeds; k++)
                v[k] = x->alloc[((size_t)i * x->nseeds + k) * x->npoints +
                                pts[m]];
            double mean, sd, t, half;
            gs_ci95(v, x->nseeds, &mean, &sd, &t, &half);
            if (x->nseeds > 1)
                fprintf(fp, "  %6.2f +- %4.2f", 100 * mean, 100 * half);
            else
                fprintf(fp, "  %14.2f", 100 * mean);
        }
        for (int k = 0; k < x->nseeds; k++)
            v[k] = x->frag[((size_t)i * x->nseeds + k) * x->npoints +
                           x->npoints - 1];
        double mean, sd, t, half;
        gs_ci95(v, x->nseeds, &mean, &sd, &t, &half);
        fprintf(fp, "  %11.2f%%\n", 100 * mean);
    }
    free(v);
}

int gs_place_exp_main(int argc, char **argv)
{
    const char *file = NULL, *out = NULL, *list = "random,best-fit,fgd";
    double seeds = 5, max_load = 1.3, step = 0.01;
    int quiet = 0, no_out = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--placers") == 0 && more) {
            list = argv[++i];
        } else if (strcmp(a, "--seeds") == 0 && more) {
            if (parse_num(argv[++i], 1, 1000, &seeds) < 0 ||
                seeds != floor(seeds))
                return bad_usage("--seeds takes a whole number from 1 to "
                                 "1000, not '%s'", argv[i]);
        } else if (strcmp(a, "--max-load") == 0 && more) {
            if (parse_num(argv[++i], 0.001, 10, &max_load) < 0)
                return bad_usage("--max-load takes a share of capacity in "
                                 "(0, 10], not '%s'", argv[i]);
        } else if (strcmp(a, "--step") == 0 && more) {
            if (parse_num(argv[++i], 0.0001, 1, &step) < 0)
                return bad_usage("--step takes a number in (0, 1], not '%s'",
                                 argv[i]);
        } else if (strcmp(a, "--out") == 0 && more) {
            out = argv[++i];
        } else if (strcmp(a, "--no-out") == 0) {
            no_out = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return bad_usage("unknown option or missing value: '%s'", a);
        } else if (file == NULL) {
            file = a;
        } else {
            return bad_usage("more than one scenario: '%s'", a);
        }
    }
    if (file == NULL)
        return bad_usage("%s", "which scenario? (a JSON file)");
    if (step > max_load)
        return bad_usage("--step %s is larger than --max-load", "given");
    char names[1024];
    snprintf(names, sizeof names, "%s", list);
    const char *pl[64];
    int npl = 0;
    for (char *s = names, *c; s && *s; s = c) {
        c = strchr(s, ',');
        if (c)
            *c++ = '\0';
        if (*s == '\0' || npl == 64)
            return bad_usage("--placers: empty name or more than 64 in '%s'",
                             list);
        pl[npl++] = s;
    }
    struct gs_diag d = { 0 };
    struct gs_scenario *sc = NULL;
    char buf[1200];
    if (gs_scenario_load(file, &sc, &d) < 0) {
        gs_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "gpusim: %s\n", buf);
        return 2;
    }
    struct gs_place_exp_opts o = { pl, npl, (int)seeds, max_load, step };
    struct gs_place_exp x;
    if (gs_place_exp_run(sc, &o, &x, &d) < 0) {
        gs_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "gpusim: %s\n", buf);
        gs_scenario_free(sc);
        return 2;
    }
    int rc = 0;
    char defout[600];
    if (!no_out) {
        if (out == NULL) {
            snprintf(defout, sizeof defout, "%s-place.h5", sc->name);
            out = defout;
        }
        if (gs_h5_write_place_exp(out, sc->name, sc->text, &x, &d) < 0) {
            gs_diag_format(&d, buf, sizeof buf);
            fprintf(stderr, "gpusim: %s\n", buf);
            rc = 1;
        }
    }
    if (!quiet)
        print_table(stdout, sc->name, &x, max_load);
    fflush(stdout);
    if (rc == 0 && !no_out && !quiet)
        fprintf(stderr, "gpusim: curves written to %s\n", out);
    gs_place_exp_free(&x);
    gs_scenario_free(sc);
    return rc;
}
