/* placeexp.c -- the FGD paper's placement experiment (placeexp.h).
 *
 * The population -- every job of the scenario's workload, CPU-only ones and
 * (for openb pod lists) Pending pods included -- is read once and shared by
 * all runs.  One run per (placer, seed): the GSL stream "place-exp.tasks"
 * seeded with the seed shuffles the population, then tunes it to
 * max_load x capacity of GPU requests as the artifact's workload tuning
 * does: while the list asks for less, pods drawn with replacement are
 * appended until the next one would pass the target; while it asks for
 * more, random pods are removed.  The pods are
 * offered in that order to a Kubernetes-faithful cluster (kplace.h) of the
 * scenario's nodes, with their CPU and memory; the node order that breaks
 * ties (kplace.h), uniform ties when asked, and random choices use the
 * stream "place-exp.ties".
 *
 * The measure is the artifact's (experiments/analysis/merge_alloc_discrete
 * .py): after every decision, the arrived GPU requests as a whole percent
 * of capacity (rounded half to even) and the allocation as a percent of
 * capacity rounded to 2 decimals; the figure at X % is the mean allocation
 * over the decisions whose arrived percent is X (or X-1..X+1 when none is),
 * rounded to 2 decimals.  Failed GPU requests and stranded GPUs (free GPU
 * milli on nodes whose free CPU or memory is below the least any GPU pod of
 * the population asks) are sampled after the last decision of each
 * percent. */
#include "placeexp.h"
#include "compare.h"
#include "../cluster/fleet.h"
#include "../io/h5out.h"
#include "../cluster/kplace.h"
#include "../io/outfile.h"
#include "../base/suggest.h"
#include "pool.h"
#include "progress.h"
#include "../base/rng.h"
#include "../setup/source.h"
#include "../../traces/tread.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void gs_place_exp_free(struct gs_place_exp *x)
{
    if (x == NULL)
        return;
    free(x->placers);
    free(x->seeds);
    free(x->load);
    free(x->alloc);
    free(x->stranded);
    free(x->failed);
    free(x->tasks);
    free(x->classes);
    free(x->cpu_use);
    memset(x, 0, sizeof *x);
}

int gs_place_exp_write(const char *path, const struct gs_scenario *sc,
                       const struct gs_place_exp *x, struct gs_diag *d)
{
    const char **names = calloc((size_t)x->nplacers + 1, sizeof *names);
    if (names == NULL)
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    for (int i = 0; i < x->nplacers; i++)
        names[i] = x->placers[i];
    struct gs_h5_place_exp v = {
        .capacity_gpus = x->capacity_gpus, .population = x->population,
        .population_gpu = x->population_gpu, .nplacers = x->nplacers,
        .nseeds = x->nseeds, .npoints = x->npoints, .placers = names,
        .seeds = x->seeds, .load = x->load, .alloc = x->alloc,
        .stranded = x->stranded, .cpu_use = x->cpu_use, .failed = x->failed,
        .tasks = x->tasks,
    };
    int rc = gs_h5_write_place_exp(path, sc->name, sc->text, &v, d);
    free(names);
    return rc;
}

static int64_t pod_milli(const struct gs_kp_pod *p)
{
    return (int64_t)p->gpus * p->milli;
}

/* The scenario's trace options, with pending="keep" added for an openb pod
 * list that does not say (placement needs only the requests). */
static int all_pods_params(const struct gs_scenario *sc, struct gs_params *o)
{
    gs_params_init(o, sc->trace.where);
    int openb = 0, said = 0;
    for (int i = 0; i < sc->trace.n; i++) {
        const struct gs_param *v = &sc->trace.v[i];
        int rc = v->is_num ? gs_params_add_num(o, v->key, v->num)
                           : gs_params_add_str(o, v->key, v->str);
        if (rc < 0)
            return rc;
        if (strcmp(v->key, "format") == 0 &&
            strcmp(v->str, "alibaba-gpu-2023") == 0)
            openb = 1;
        if (strcmp(v->key, "pending") == 0)
            said = 1;
    }
    return openb && !said ? gs_params_add_str(o, "pending", "keep") : 0;
}

/* Every job of sc's workload as a pod. */
static int read_population(const struct gs_scenario *sc,
                           struct gs_kp_pod **out, long *n, struct gs_diag *d)
{
    *out = NULL;
    *n = 0;
    struct gs_scenario tmp = *sc;
    int rc = all_pods_params(sc, &tmp.trace);
    struct gs_source src;
    if (rc < 0 || (rc = gs_source_open(&tmp, sc->seed, &src, d)) < 0) {
        gs_params_free(&tmp.trace);
        return rc < 0 ? gs_diag_set(d, rc, "", "cannot open the workload")
                      : rc;
    }
    long cap = 0;
    struct gs_jobspec j;
    while ((rc = gs_source_next(&src, &j, d)) == 1) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 4096;
            struct gs_kp_pod *v = realloc(*out, (size_t)cap * sizeof *v);
            if (v == NULL) {
                rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
                break;
            }
            *out = v;
        }
        struct gs_kp_pod *p = &(*out)[(*n)++];
        memset(p, 0, sizeof *p);
        p->cpu = j.cpu_milli;
        p->mem = j.mem_mib;
        p->allowed = j.allowed;
        if (j.gpus > 0) {
            p->gpus = (int16_t)(j.gpus < 32000 ? j.gpus : 32000);
            p->milli = 1000;
        } else if (j.milli > 0) {
            p->gpus = 1;
            p->milli = (int16_t)j.milli;
        }
    }
    gs_source_close(&src);
    gs_params_free(&tmp.trace);
    if (rc == 0 && *n == 0)
        rc = gs_diag_set(d, GS_EINVAL, sc->file, "the workload has no job: "
                         "nothing to place");
    if (rc == 0 && (rc = gs_kp_intern(*out, *n)) > 0)
        rc = 0;
    else if (rc == 0)
        rc = gs_diag_set(d, rc, "", "too many distinct requests");
    if (rc < 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* What one run needs besides its placer and seed. */
struct exp_in {
    const struct gs_kp_pool *pools;
    int npools;
    const struct gs_kp_pod *pop;
    long npop;
    const struct gs_kp_pod *typ;
    const double *freq;
    int ntyp;
    int32_t cpu_min, mem_min;
    double max_load;
    int ties;                   /* enum gs_kp_ties */
    int np;                     /* points: percents 0 .. np-1 */
};

/* Shuffle pop into *order and tune it to target GPU milli. */
static int tune(const struct exp_in *in, gsl_rng *rng, int64_t target,
                long **order, long *n)
{
    long cap = in->npop + 16, m = in->npop;
    long *o = malloc((size_t)cap * sizeof *o);
    if (o == NULL)
        return GS_ENOMEM;
    int64_t total = 0;
    for (long i = 0; i < m; i++) {
        o[i] = i;
        total += pod_milli(&in->pop[i]);
    }
    for (long i = m - 1; i > 0; i--) {
        long j = (long)gsl_rng_uniform_int(rng, (unsigned long)i + 1);
        long t = o[i];
        o[i] = o[j];
        o[j] = t;
    }
    int any_gpu = 0;
    for (long i = 0; i < m && !any_gpu; i++)
        any_gpu = pod_milli(&in->pop[i]) > 0;
    while (any_gpu) {
        long j = (long)gsl_rng_uniform_int(rng, (unsigned long)in->npop);
        if (total + pod_milli(&in->pop[j]) > target)
            break;
        if (m == cap) {
            cap *= 2;
            long *v = realloc(o, (size_t)cap * sizeof *v);
            if (v == NULL) {
                free(o);
                return GS_ENOMEM;
            }
            o = v;
        }
        o[m++] = j;
        total += pod_milli(&in->pop[j]);
    }
    while (total > target && m > 0) {
        long j = (long)gsl_rng_uniform_int(rng, (unsigned long)m);
        total -= pod_milli(&in->pop[o[j]]);
        memmove(o + j, o + j + 1, (size_t)(m - j - 1) * sizeof *o);
        m--;
    }
    *order = o;
    *n = m;
    return 0;
}

/* One (placer, seed) run; fills the np points of alloc, stranded, failed. */
static int run_one(const struct exp_in *in, int policy, uint64_t seed,
                   double *alloc, double *stranded, double *failed,
                   double *cpu_use, long *tasks, long *classes,
                   struct gs_diag *d)
{
    gsl_rng *tr = gs_rng_stream(seed, "place-exp.tasks");
    gsl_rng *ties = gs_rng_stream(seed, "place-exp.ties");
    struct gs_kp *k = NULL;
    long *order = NULL, n = 0;
    double *sum = calloc((size_t)in->np, sizeof *sum);
    long *cnt = calloc((size_t)in->np, sizeof *cnt);
    int rc = tr && ties && sum && cnt ? 0 : GS_ENOMEM;
    if (rc == 0)
        rc = gs_kp_new(in->pools, in->npools, policy, in->typ, in->freq,
                       in->ntyp, ties, &k);
    if (rc == 0)
        gs_kp_set_ties(k, in->ties);
    int64_t cap = rc == 0 ? gs_kp_capacity_milli(k) : 0;
    if (rc == 0 && cap <= 0)
        rc = GS_EINVAL;
    if (rc == 0)
        rc = tune(in, tr, (int64_t)floor(in->max_load * (double)cap + 1e-9),
                  &order, &n);
    if (rc == 0)
        gs_kp_set_strand_limits(k, in->cpu_min, in->mem_min);
    for (int p = 0; p < in->np; p++)
        alloc[p] = stranded[p] = failed[p] = NAN;
    int64_t arrived = 0, lost = 0;
    for (long t = 0; t < n && rc == 0; t++) {
        const struct gs_kp_pod *pod = &in->pop[order[t]];
        int node = gs_kp_place(k, pod);
        if (node < -1) {
            rc = node;
            break;
        }
        arrived += pod_milli(pod);
        if (node < 0)
            lost += pod_milli(pod);

        double pct = rint((double)arrived * 100.0 / (double)cap);
        int x = pct < 0 ? 0 : (int)pct;
        if (x >= in->np)
            continue;
        double al = rint((double)gs_kp_used_milli(k) * 10000.0 /
                         (double)cap) / 100.0;
        sum[x] += al;
        cnt[x]++;
        stranded[x] = (double)gs_kp_stranded_milli(k) / (double)cap;
        failed[x] = (double)lost / (double)cap;
        double cu, mu;
        gs_kp_host_use(k, &cu, &mu);
        cpu_use[x] = cu;
    }
    for (int x = 0; x < in->np && rc == 0; x++) {
        double s = sum[x];
        long c = cnt[x];
        if (c == 0) {
            for (int y = x - 1; y <= x + 1; y++)
                if (y >= 0 && y < in->np) {
                    s += sum[y];
                    c += cnt[y];
                }
        }
        alloc[x] = c > 0 ? rint(s / (double)c * 100.0) / 10000.0 : NAN;
        if (x > 0 && isnan(failed[x])) {
            failed[x] = failed[x - 1];
            stranded[x] = stranded[x - 1];
            cpu_use[x] = cpu_use[x - 1];
        }
    }
    *tasks = n;
    *classes = k ? gs_kp_nclasses(k) : 0;
    if (rc < 0)
        gs_diag_set(d, rc, "place-exp", "%s", gs_strerror(rc));
    gs_kp_free(k);
    free(order);
    free(sum);
    free(cnt);
    if (tr)
        gsl_rng_free(tr);
    if (ties)
        gsl_rng_free(ties);
    return rc;
}

int gs_place_exp_run(const struct gs_scenario *sc,
                     const struct gs_place_exp_opts *o,
                     struct gs_place_exp *x, struct gs_diag *d)
{
    return gs_place_exp_run_cb(sc, o, NULL, NULL, x, d);
}

int gs_place_exp_run_cb(const struct gs_scenario *sc,
                        const struct gs_place_exp_opts *o,
                        void (*done)(void *ctx, int ndone, int total),
                        void *ctx, struct gs_place_exp *x,
                        struct gs_diag *d)
{
    memset(x, 0, sizeof *x);
    if (o->nplacers < 1 || o->nseeds < 1 || !(o->max_load > 0) ||
        o->max_load > 10)
        return gs_diag_set(d, GS_EUSAGE, "place-exp", "need at least one "
                           "placer and seed, and 0 < max load <= 10");
    int *pol = calloc((size_t)o->nplacers, sizeof *pol);
    if (pol == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    for (int i = 0; i < o->nplacers; i++)
        if ((pol[i] = gs_kp_policy_find(o->placers[i])) < 0) {
            const char *names[GS_KP_N + 1];
            for (int k = 0; k < GS_KP_N; k++)
                names[k] = gs_kp_policy_name(k);
            names[GS_KP_N] = NULL;
            char hint[128];
            gs_suggest_fmt(o->placers[i], names, hint, sizeof hint);
            free(pol);
            return gs_diag_set(d, GS_ENOTFOUND, "--placers", "unknown "
                               "placement '%s'%s (the experiment has random, "
                               "best-fit, dot-product, clustering, packing, "
                               "fgd)", o->placers[i], hint);
        }
    struct exp_in in = { .max_load = o->max_load, .ties = o->ties };
    struct gs_kp_pod *pop = NULL;
    long npop = 0;
    int rc = read_population(sc, &pop, &npop, d);
    struct gs_kp_pool *pools = calloc((size_t)(sc->npools ? sc->npools : 1),
                                      sizeof *pools);
    struct gs_kp_pod *typ = NULL;
    double *freq = NULL;
    int ntyp = 0;
    if (rc == 0 && pools == NULL)
        rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    if (rc == 0 && gs_kp_typical(pop, npop, o->typical > 0 ? o->typical : 1.0,
                                &typ, &freq, &ntyp) < 0)
        rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    if (rc < 0) {
        free(pol);
        free(pop);
        free(pools);
        return rc;
    }
    for (int i = 0; i < sc->npools; i++) {
        pools[i].nodes = sc->pools[i].nodes;
        pools[i].gpn = sc->pools[i].gpn;
        pools[i].model = sc->pools[i].model;
        gs_pool_host(&sc->cat, &sc->pools[i], &pools[i].cpu, &pools[i].mem);
        x->capacity_gpus += (double)sc->pools[i].nodes * sc->pools[i].gpn;
    }
    in.pools = pools;
    in.npools = sc->npools;
    in.pop = pop;
    in.npop = npop;
    in.typ = typ;
    in.freq = freq;
    in.ntyp = ntyp;
    in.cpu_min = INT32_MAX;
    in.mem_min = INT32_MAX;
    for (long i = 0; i < npop; i++)
        if (pop[i].gpus > 0) {
            x->population_gpu++;
            if (pop[i].cpu < in.cpu_min)
                in.cpu_min = pop[i].cpu;
            if (pop[i].mem < in.mem_min)
                in.mem_min = pop[i].mem;
        }
    if (x->population_gpu == 0)
        in.cpu_min = in.mem_min = 0;
    int np = (int)floor(o->max_load * 100 + 1e-9) + 1;
    in.np = np;
    size_t cells = (size_t)o->nplacers * (size_t)o->nseeds;
    x->nplacers = o->nplacers;
    x->nseeds = o->nseeds;
    x->npoints = np;
    x->population = npop;
    x->typical = ntyp;
    x->placers = calloc((size_t)o->nplacers, sizeof *x->placers);
    x->seeds = calloc((size_t)o->nseeds, sizeof *x->seeds);
    x->load = calloc((size_t)np, sizeof *x->load);
    x->alloc = calloc(cells * (size_t)np, sizeof *x->alloc);
    x->stranded = calloc(cells * (size_t)np, sizeof *x->stranded);
    x->failed = calloc(cells * (size_t)np, sizeof *x->failed);
    x->cpu_use = calloc(cells * (size_t)np, sizeof *x->cpu_use);
    x->tasks = calloc(cells, sizeof *x->tasks);
    x->classes = calloc(cells, sizeof *x->classes);
    if (!x->placers || !x->seeds || !x->load || !x->alloc || !x->stranded ||
        !x->failed || !x->cpu_use || !x->tasks || !x->classes)
        rc = gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    for (int i = 0; i < o->nplacers && rc == 0; i++)
        snprintf(x->placers[i], sizeof x->placers[i], "%s", o->placers[i]);
    for (int k = 0; k < o->nseeds && rc == 0; k++)
        x->seeds[k] = sc->seed + (uint64_t)k;
    for (int p = 0; p < np && rc == 0; p++)
        x->load[p] = p / 100.0;
    for (int i = 0; i < o->nplacers && rc == 0; i++)
        for (int k = 0; k < o->nseeds && rc == 0; k++) {
            size_t c = (size_t)i * (size_t)o->nseeds + (size_t)k;
            rc = run_one(&in, pol[i], x->seeds[k],
                         x->alloc + c * (size_t)np,
                         x->stranded + c * (size_t)np,
                         x->failed + c * (size_t)np,
                         x->cpu_use + c * (size_t)np, &x->tasks[c],
                         &x->classes[c], d);
            if (rc == 0 && done)
                done(ctx, (int)c + 1, (int)cells);
        }
    free(pol);
    free(pop);
    free(pools);
    free(typ);
    free(freq);
    if (rc < 0)
        gs_place_exp_free(x);
    return rc;
}

/* --- the command line ---------------------------------------------------------- */

static const char usage[] =
"usage: gpusim place-exp SCENARIO [options]   (a JSON file, or quickstart)\n"
"\n"
"The FGD paper's placement experiment: every pod of SCENARIO's workload\n"
"(CPU-only and never-scheduled ones too) is shuffled per seed, the list\n"
"tuned to --max-load of the fleet's GPU capacity, and the pods offered one\n"
"by one to the scenario's nodes (CPU, memory and GPUs) under each placer;\n"
"pods never leave.  Prints the GPU allocation ratio at arrived workload per\n"
"placer (mean and 95% interval over the seeds; the figure at X% is the mean\n"
"over the decisions where arrived load rounds to X%), failed requests and\n"
"stranded GPUs, and writes the curves to an HDF5 file.\n"
"\n"
"options:\n"
"  --placers A,B,..  of random, best-fit, dot-product, clustering, packing,\n"
"                    fgd (default: all six)\n"
"  -s, --seeds N     seeds: the scenario's, +1, ... (default 10)\n"
"  --max-load X      arrived workload to reach, share of capacity (default\n"
"                    1.3)\n"
"  --typical X       FGD's typical pods: the most frequent requests\n"
"                    covering this share of pods (default 1: the whole\n"
"                    distribution, as the paper defines it; the artifact\n"
"                    ships 0.95)\n"
"  --ties MODE       how equal scores are broken: ordered (default: the\n"
"                    first node of a per-seed random node order, as the\n"
"                    artifact's scheduler does) or uniform (upstream\n"
"                    kube-scheduler's uniform choice)\n"
"  --pods FILE       another pod list in the scenario's trace format\n"
"                    (e.g. openb_pod_list_cpu050.csv)\n"
"  -o, --out FILE    HDF5 file, replaced if it exists (default: the\n"
"                    scenario file's name with -place.h5, in the current\n"
"                    folder; never replaced without --force)\n"
"  -f, --force       replace the default file if it exists\n"
"      --no-out      write no file\n"
"  -q, --quiet       print no table and no progress line (one is drawn\n"
"                    on stderr when it is a terminal)\n"
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

static void mean_ci(const double *v, int n, double *mean, double *half)
{
    double sd, t;
    gs_ci95(v, n, mean, &sd, &t, half);
}

static void print_table(FILE *fp, const char *name,
                        const struct gs_place_exp *x, double max_load)
{
    int marks[4] = { 50, 80, 100, x->npoints - 1 };
    fprintf(fp, "gpusim place-exp  scenario %s  %.0f GPUs  %ld pods in the "
            "population (%ld ask for GPUs, %d typical)  %d seeds\n\n", name,
            x->capacity_gpus, x->population, x->population_gpu, x->typical,
            x->nseeds);
    fprintf(fp, "  GPU allocation %% at arrived workload (mean +- 95%% "
            "interval over seeds)\n  %-12s", "placer");
    for (int m = 0; m < 4; m++)
        if (m == 3 || marks[m] < x->npoints - 1)
            fprintf(fp, "  %13d%%", marks[m]);
    fprintf(fp, "  %8s  %8s  %8s\n", "failed", "stranded", "CPU used");
    double *v = malloc((size_t)x->nseeds * sizeof *v);
    if (v == NULL)
        return;
    for (int i = 0; i < x->nplacers; i++) {
        fprintf(fp, "  %-12s", x->placers[i]);
        for (int m = 0; m < 4; m++) {
            if (!(m == 3 || marks[m] < x->npoints - 1))
                continue;
            int ok = 1;
            for (int k = 0; k < x->nseeds; k++) {
                v[k] = x->alloc[((size_t)i * x->nseeds + k) * x->npoints +
                                marks[m]];
                ok &= !isnan(v[k]);
            }
            double mean, half;
            mean_ci(v, x->nseeds, &mean, &half);
            if (!ok)
                fprintf(fp, "  %14s", "-");
            else if (x->nseeds > 1)
                fprintf(fp, "  %6.2f +- %4.2f", 100 * mean, 100 * half);
            else
                fprintf(fp, "  %14.2f", 100 * mean);
        }
        const double *series[3] = { x->failed, x->stranded, x->cpu_use };
        for (int s = 0; s < 3; s++) {
            for (int k = 0; k < x->nseeds; k++)
                v[k] = series[s][((size_t)i * x->nseeds + k) * x->npoints +
                                 x->npoints - 1];
            double mean, half;
            mean_ci(v, x->nseeds, &mean, &half);
            fprintf(fp, "  %7.2f%%", 100 * mean);
        }
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n  failed: GPU requests that found no node; stranded: free "
            "GPUs on nodes whose CPU or\n  memory is exhausted; both and CPU "
            "used as shares of capacity at %.0f%% arrived.\n",
            100 * max_load);
    free(v);
}

/* The progress line: runs (placer x seed) done. */
static void progress(void *ctx, int ndone, int total)
{
    gs_progress_count(ctx, ndone, total, "runs");
}

static int place_exp_main(int argc, char **argv);

/* argv holds the arguments after "place-exp" (as the CLI and tests call
 * it). */
int gs_place_exp_main(int argc, char **argv)
{
    int rc = gs_cli_named("place-exp", argc, argv, place_exp_main);
    gs_pool_deadline(NULL, NULL);   /* armed once the scenario is known */
    return rc;
}

/* Split --placers' list (names, cut in place at the commas) into pl[64]:
 * the count, or -1 on an empty name or more than 64. */
static int split_placers(char *names, const char **pl)
{
    int npl = 0;
    for (char *s = names, *c; s && *s; s = c) {
        c = strchr(s, ',');
        if (c)
            *c++ = '\0';
        if (*s == '\0' || npl == 64)
            return -1;
        pl[npl++] = s;
    }
    return npl;
}

/* Load the scenario (a file, or the built-in quickstart), its trace file
 * replaced by pods when given (another pod list of the same format).  0
 * with *sc set, or the exit status (2) after the message. */
static int load_scenario(const char *file, const char *pods,
                         struct gs_scenario **sc)
{
    struct gs_diag d = { 0 };
    struct gs_scenario *s = NULL;
    struct stat st;
    int builtin = strcmp(file, "quickstart") == 0 && stat(file, &st) != 0;
    if ((builtin ? gs_scenario_parse(gs_scenario_quickstart(),
                                     "<built-in quickstart>", ".", &s, &d)
                 : gs_scenario_load(file, &s, &d)) < 0) {
        gs_diag_print(stderr, "gpusim: ", &d);
        gs_diag_free(&d);
        return 2;
    }
    if (pods != NULL) {
        /* another pod list of the scenario's trace format */
        char *abs = realpath(pods, NULL);
        int found = 0;
        if (abs == NULL) {
            fprintf(stderr, "gpusim: %s: cannot open (%s)\n", pods,
                    strerror(errno));
            gs_scenario_free(s);
            return 2;
        }
        for (int i = 0; i < s->trace.n && !found; i++)
            if (strcmp(s->trace.v[i].key, "path") == 0 &&
                !s->trace.v[i].is_num) {
                free(s->trace.v[i].str);    /* the scenario owns abs now */
                s->trace.v[i].str = abs;
                found = 1;
            }
        if (!found) {
            free(abs);
            gs_scenario_free(s);
            return bad_usage("--pods needs a scenario whose workload is a "
                             "trace file (not '%s')", file);
        }
    }
    *sc = s;
    return 0;
}

static int place_exp_main(int argc, char **argv)
{
    const char *file = NULL, *out = NULL, *pods = NULL;
    const char *list = "random,dot-product,clustering,packing,best-fit,fgd";
    double seeds = 10, max_load = 1.3, typical = 1.0;
    int quiet = 0, no_out = 0, force = 0, ties = GS_KP_TIES_ORDERED, ch;
    static const struct option opts[] = {
        { "placers", required_argument, NULL, 'p' },
        { "seeds", required_argument, NULL, 's' },
        { "max-load", required_argument, NULL, 'm' },
        { "typical", required_argument, NULL, 't' },
        { "ties", required_argument, NULL, 'T' },
        { "pods", required_argument, NULL, 'P' },
        { "out", required_argument, NULL, 'o' },
        { "no-out", no_argument, NULL, 'N' },
        { "force", no_argument, NULL, 'f' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int status = -1;
    optind = 0;             /* 0: a full restart (suggest.h) */
    opterr = 0;
    while (status < 0 && (ch = gs_cli_getopt(argc, argv, "+:s:o:fqh", opts,
                                             &file)) != -1) {
        switch (ch) {
        case GS_CLI_EXTRA:
            status = bad_usage("more than one scenario: '%s'", optarg);
            break;
        case 'p': list = optarg; break;
        case 's':
            if (parse_num(optarg, 1, 1000, &seeds) < 0 ||
                seeds != floor(seeds))
                status = bad_usage("--seeds takes a whole number from 1 to "
                                   "1000, not '%s'", optarg);
            break;
        case 'm':
            if (parse_num(optarg, 0.001, 10, &max_load) < 0)
                status = bad_usage("--max-load takes a share of capacity in "
                                   "(0, 10], not '%s'", optarg);
            break;
        case 't':
            if (parse_num(optarg, 0.01, 1, &typical) < 0)
                status = bad_usage("--typical takes a share of pods in "
                                   "(0, 1], not '%s'", optarg);
            break;
        case 'T':
            if (strcmp(optarg, "ordered") == 0)
                ties = GS_KP_TIES_ORDERED;
            else if (strcmp(optarg, "uniform") == 0)
                ties = GS_KP_TIES_UNIFORM;
            else
                status = bad_usage("--ties takes ordered or uniform, not "
                                   "'%s'", optarg);
            break;
        case 'P': pods = optarg; break;
        case 'o': out = optarg; break;
        case 'N': no_out = 1; break;
        case 'f': force = 1; break;
        case 'q': quiet = 1; break;
        case 'h':
            fputs(usage, stdout);
            status = 0;
            break;
        default:
            status = gs_suggest_bad_option("place-exp", opts, argc, argv,
                                           ch);
        }
    }
    if (status >= 0)
        return status;
    if (out && no_out)
        return bad_usage("%s", "--out and --no-out contradict each other; "
                         "give one");
    if (file == NULL)
        return bad_usage("%s", "which scenario? (a JSON file, or "
                         "'quickstart')");
    if (gs_pool_deadline("place-exp", file) < 0) {
        fprintf(stderr, "gpusim: out of memory\n");
        return 2;
    }
    char names[1024];
    snprintf(names, sizeof names, "%s", list);
    const char *pl[64];
    int npl = split_placers(names, pl);
    if (npl < 0)
        return bad_usage("--placers: empty name or more than 64 in '%s'",
                         list);
    struct gs_diag d = { 0 };
    struct gs_scenario *sc = NULL;
    int lrc = load_scenario(file, pods, &sc);
    if (lrc != 0)
        return lrc;
    /* the default file is named after the scenario file and never
     * replaces an existing one without --force; --out names it */
    char *defout = NULL;
    if (!no_out && out == NULL) {
        if ((defout = gs_out_default_name(file, "-place.h5")) == NULL ||
            gs_out_check_new(defout, force, &d) < 0) {
            if (defout == NULL)
                gs_diag_set(&d, GS_ENOMEM, file, "out of memory");
            gs_diag_print(stderr, "gpusim: ", &d);
            gs_diag_free(&d);
            free(defout);
            gs_scenario_free(sc);
            return 2;
        }
        out = defout;
    }
    if (out && !no_out && gs_out_check_seekable(out, &d) < 0) {
        gs_diag_print(stderr, "gpusim: --out: ", &d);
        gs_diag_free(&d);
        free(defout);
        gs_scenario_free(sc);
        return 2;
    }
    struct gs_progress pr;
    gs_progress_init(&pr, "place-exp", quiet);
    struct gs_place_exp_opts o = { pl, npl, (int)seeds, max_load, typical,
                                   ties };
    struct gs_place_exp x;
    int xrc = gs_place_exp_run_cb(sc, &o, pr.on ? progress : NULL, &pr, &x,
                                  &d);
    gs_progress_end(&pr);
    if (xrc < 0) {
        gs_diag_print(stderr, "gpusim: ", &d);
        gs_diag_free(&d);
        free(defout);
        gs_scenario_free(sc);
        return 2;
    }
    int rc = 0;
    if (!no_out) {
        if (gs_place_exp_write(out, sc, &x, &d) < 0) {
            gs_diag_print(stderr, "gpusim: ", &d);
            gs_diag_free(&d);
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
    free(defout);
    return rc;
}
