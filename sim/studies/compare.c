/* compare.c -- `gpusim compare`: several policies x several seeds on one
 * scenario, with confidence intervals, one HDF5 file and gnuplot plots.
 *
 * Every (policy, seed) pair is an independent simulation: the pool
 * (pool.h) runs them in forked workers, each writing its single-run HDF5
 * file into a scratch folder beside the output and sending back the
 * metrics of COMPARE_METRICS.  The parent then computes, per policy and
 * metric, the mean over seeds and the 95% confidence interval of the mean,
 *     mean +- t(0.975, n-1) * s / sqrt(n)
 * with s the sample standard deviation and t Student's quantile from GSL
 * (the seeds are independent replications, the textbook setting for the t
 * interval: Law, "Simulation Modeling and Analysis", 5th ed., sec. 9.4.1),
 * prints the table, merges the run files into one comparison file
 * (layout in h5out.h) and draws the plots: it writes small data files and
 * runs gnuplot on the scripts in plots/ (utilization.gp, wait_cdf.gp,
 * cost_sla.gp, and latency_cdf.gp when the scenario has inference
 * services) as an external program.
 *
 * Seeds are the scenario's seed, seed + 1, ..., so seed k of every policy
 * sees the same workload (common random numbers), and the output does not
 * depend on --jobs.  The wall clock is read only by progress.c, for the
 * progress line and to tell on stderr how long the runs took. */
#include "compare.h"
#include "../io/gnuplot.h"
#include "../io/h5in.h"
#include "../io/h5out.h"
#include "../io/outfile.h"
#include "plugin.h"
#include "pool.h"
#include "progress.h"
#include "../io/report.h"
#include "../setup/scenario.h"
#include "../setup/setup.h"
#include "../core/model.h"
#include "../base/suggest.h"
#include "cmppair.h"
#include "cmpsteady.h"
#include "../base/steady.h"
#include "../io/question.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The metrics compared: every summary scalar (the core's and the
 * models', model.h), then the all-jobs waits, JCT and SLA violations, then
 * utilization and throughput up to each run's own end (compare keeps them
 * from before the billing window's extension; cmppair.c says why they,
 * not the billed ones, rank). */
static const char *const tail_names[] = {
    "wait_mean_s", "wait_p95_s", "wait_p99_s", "jct_mean_s",
    "sla_violations", "utilization_makespan", "throughput_makespan_jph",
};
#define NTAIL ((int)(sizeof tail_names / sizeof tail_names[0]))
#define NMETRICS (gs_summary_nfields() + NTAIL)

void gs_compare_metric_values(const struct gs_summary *su, double *v)
{
    gs_summary_values(su, v);
    int i = gs_summary_nfields();
    v[i++] = su->all.wait_mean;
    v[i++] = su->all.wait_p95;
    v[i++] = su->all.wait_p99;
    v[i++] = su->all.jct_mean;
    v[i++] = (double)(su->all.sla_wait + su->all.sla_deadline);
    v[i++] = su->util;              /* the run's own span: see same_window */
    v[i++] = su->throughput_jph;
    GS_ASSERT(i == NMETRICS);
}

int gs_compare_nmetrics(void)
{
    return NMETRICS;
}

/* The names, made again only when a model has joined since (each field's
 * name is a walk over the models in output order, and sweep, compare and
 * the planner ask for the table at every metric they name). */
const char *const *gs_compare_metric_names(void)
{
    static const char *names[GS_SUMMARY_NMAX + NTAIL];
    static int joined = -1;
    if (joined == gs_models_joined())
        return names;
    int n = gs_summary_nfields();
    for (int i = 0; i < n; i++)
        names[i] = gs_summary_field_name(i);
    for (int i = 0; i < NTAIL; i++)
        names[n + i] = tail_names[i];
    joined = gs_models_joined();
    return names;
}

static int metric_index(const char *name)
{
    const char *const *names = gs_compare_metric_names();
    for (int i = 0; i < NMETRICS; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

void gs_ci95(const double *x, int n, double *mean, double *sd, double *t,
             double *half)
{
    double m = 0, s2 = 0;
    for (int i = 0; i < n; i++)
        m += x[i];
    m = n > 0 ? m / n : 0;
    for (int i = 0; i < n; i++)
        s2 += (x[i] - m) * (x[i] - m);
    *mean = m;
    if (n < 2) {
        *sd = 0;
        *t = *half = NAN;
        return;
    }
    *sd = sqrt(s2 / (n - 1));
    *t = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1));
    *half = *t * *sd / sqrt((double)n);
}

static const char usage[] =
"usage: gpusim compare SCENARIO --policies A,B,... [options]\n"
"\n"
"Run every policy with every seed on SCENARIO (a JSON file, or\n"
"'quickstart') in parallel processes, and print each metric's mean over\n"
"the seeds with its 95% confidence interval (Student's t); then each\n"
"policy's difference from the baseline on the same seeds (paired t, 95%),\n"
"starred when significant after Holm's correction over all pairs, and a\n"
"ranking line a metric that claims only significant differences.\n"
"\n"
"options:\n"
"  -p, --policies LIST  comma-separated policy names (default:\n"
"                    fifo-backfill,fair,hps,rl-lite)\n"
"  -s, --seeds N     seeds per policy: the scenario's seed, +1, ... (5)\n"
"  -j, --jobs P      worker processes (default: the number of CPUs)\n"
"  --policy-lib SO   also load the policy plug-in SO; name it in --policies\n"
"  --placement NAME  override the scenario's placement\n"
"  -o, --out FILE    the comparison HDF5 file, replaced if it exists\n"
"                    (default: NAME-compare.h5, NAME the scenario file's\n"
"                    name, never replaced without --force)\n"
"  -f, --force       replace the default comparison file if it exists\n"
"  --plots DIR       folder for the plots (default NAME-compare-plots);\n"
"                    plots of an earlier compare there are replaced\n"
"  --plot-scripts D  folder of the gnuplot scripts (default: plots/ of\n"
"                    the source tree, or $GPUSIM_PLOTS)\n"
"  --no-plots        draw no plots\n"
"  --csv             print the table as CSV (every metric)\n"
"  --metrics A,B,..  the metrics to show, named as in run --json, or all\n"
"                    (default: those that differ between runs)\n"
"  --bill-until W    the window every run is billed over: longest (the\n"
"                    default: the longest run's span; runs that end\n"
"                    sooner go on, idle, until then), a duration such\n"
"                    as 48h from the first arrival, or own (each run\n"
"                    over its own span).  A scenario horizon is already\n"
"                    every run's window\n"
"  --baseline NAME   the policy the others are compared with, paired\n"
"                    by seed (default: the first of --policies)\n"
"  --csv-pairs       print the paired differences from the baseline as\n"
"                    CSV instead of the means\n"
"  --precision R     add seeds until every policy's 95% interval of the\n"
"                    target metrics (those of --metrics, else\n"
"                    utilization_makespan, throughput_makespan_jph and\n"
"                    wait_mean_s) is within R of its mean (0.05: 5%),\n"
"                    or --max-seeds is reached; the output says which\n"
"  --max-seeds N     the cap of --precision (default 200)\n"
"  -q, --quiet       print no table\n"
"\n"
"exit status: 0 done, 2 bad input or usage, 1 results not written\n";

/* The billing window: every run billed until the longest run's end (the
 * default), until a given time, or each over its own span. */
enum { BILL_LONGEST, BILL_FIXED, BILL_OWN };

struct cmp {
    struct gs_progress pr;          /* the progress line on stderr */
    int ntasks;                     /* runs in this pass */
    const int *task;                /* this pass's runs (NULL: 0..ntasks-1) */
    gs_time bill_until;             /* the runs' bill_until (0: none) */
    gs_time bill0;                  /* its value for a first run */
    char *show;                     /* [NMETRICS]: metrics in the table */
    int chosen;                     /* show came from --metrics */
    const struct gs_scenario *sc;
    int npol, nseeds;
    char **pol;
    unsigned long long *seeds;
    const struct gs_policy_ops *plugin;
    const char *placer;
    char **runfiles;
};

static int compare_main(int argc, char **argv);
static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpusim: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'gpusim help compare')\n");
    va_end(ap);
    return 2;
}

static int report(struct gs_diag *d, int status)
{
    gs_diag_print(stderr, "gpusim: ", d);
    gs_diag_free(d);
    return status;
}

static int load(const char *arg, struct gs_scenario **sc, struct gs_diag *d)
{
    struct stat st;
    if (strcmp(arg, "quickstart") == 0 && stat(arg, &st) != 0)
        return gs_scenario_parse(gs_scenario_quickstart(),
                                 "<built-in quickstart>", ".", sc, d);
    return gs_scenario_load(arg, sc, d);
}

static int run_task(int task, double *out, void *ctx, struct gs_diag *d)
{
    struct cmp *c = ctx;
    if (c->task)
        task = c->task[task];
    int p = task / c->nseeds, k = task % c->nseeds;
    struct gs_sim_opts o = { .seed = c->seeds[k], .set_seed = 1,
                             .placer = c->placer,
                             .bill_until = c->bill_until };
    if (c->plugin && strcmp(c->pol[p], c->plugin->name) == 0)
        o.policy_ops = c->plugin;
    else
        o.policy = c->pol[p];
    struct gs_sim *sim = NULL;
    int rc = gs_sim_new(c->sc, &o, &sim, d);
    if (rc == 0)
        rc = gs_sim_run(sim, d);
    if (rc == 0)
        rc = gs_h5_write(c->runfiles[task], sim, d);
    if (rc == 0)
        gs_compare_metric_values(gs_sim_summary(sim), out);
    gs_sim_free(sim);
    return rc;
}

/* One line on the terminal, updated in place as runs finish. */
static void progress(int task, int ndone, const double *out, void *ctx)
{
    (void)task;
    (void)out;
    struct cmp *c = ctx;
    gs_progress_count(&c->pr, ndone, c->ntasks, "runs");
}

static char *name_task(int task, void *ctx)
{
    const struct cmp *c = ctx;
    if (c->task)
        task = c->task[task];
    return gs_strf("policy %s, seed %llu", c->pol[task / c->nseeds],
                   c->seeds[task % c->nseeds]);
}

/* Split a comma-separated list (copied).  Count, or -1 on an empty item. */
static int split(const char *list, char ***out)
{
    int n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    char **v = calloc((size_t)n, sizeof *v);
    char *dup = strdup(list);
    if (!v || !dup) {
        free(v);
        free(dup);
        return -1;
    }
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(dup, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        v[k++] = strdup(tok);
    free(dup);
    if (k != n) {
        for (int i = 0; i < k; i++)
            free(v[i]);
        free(v);
        return -1;
    }
    *out = v;
    return n;
}

/* in with every byte but [A-Za-z0-9._-] made '_': a new string of in's
 * length (a name cut to a buffer could make two policies' files one), or
 * NULL out of memory. */
static char *safe_name(const char *in)
{
    char *out = strdup(in);
    for (char *o = out; o && *o; o++) {
        char ch = *o;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
                 ch == '.';
        *o = ok ? ch : '_';
    }
    return out;
}

/* A string freed when its variable's scope ends (plot_data's returns). */
static void free_str(char **s)
{
    free(*s);
}

/* --- plots ------------------------------------------------------------- */

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Open the data file named by fmt for writing; its name is built in
 * memory (*path, freed and replaced on each call), never cut to a buffer. */
__attribute__((format(printf, 2, 3)))
static FILE *dat_open(char **path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(*path);
    if (vasprintf(path, fmt, ap) < 0)
        *path = NULL;
    va_end(ap);
    FILE *fp = *path ? fopen(*path, "w") : NULL;
    free(*path);
    *path = NULL;
    return fp;
}

/* Write the CDF of v (n values, sorted here; NaN left out) into the
 * data file fmt names: at most about 1,000 points and the last.  0 or -1. */
static int cdf_file(double *v, long n, char **path, const char *dir,
                    const char *what, const char *name, const char *pol)
{
    long k = 0;
    for (long i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[k++] = v[i];
    FILE *fp = dat_open(path, "%s/%s-%s.dat", dir, what, name);
    if (fp == NULL)
        return -1;
    fprintf(fp, "# %s_s cdf (%s, %ld requests, every service and seed)\n",
            what, pol, k);
    if (k == 0)
        fputs("0 0\n", fp);    /* none: a point at the left edge, never an
                                   empty file (gnuplot warns) */
    if (k > 0) {
        qsort(v, (size_t)k, sizeof *v, dbl_cmp);
        long stride = k > 1000 ? k / 1000 : 1;
        for (long i = 0; i < k; i += stride)
            fprintf(fp, "%.9g %.6f\n", v[i], (double)(i + 1) / (double)k);
        fprintf(fp, "%.9g 1\n", v[k - 1]);
    }
    return fclose(fp) == 0 ? 0 : -1;
}

/* The inference services' TTFT and ITL CDFs of policy p, pooled over the
 * seeds and services, into DIR/ttft-NAME.dat and itl-NAME.dat; bit 0 of
 * *any set when a request has a TTFT, bit 1 when one has an ITL.  0 or
 * -1. */
static int latency_data(const struct cmp *c, int p, const char *dir,
                        const char *name, int *any)
{
    static const char *const cols[2] = { "ttft_s", "itl_s" };
    static const char *const what[2] = { "ttft", "itl" };
    int rc = 0;
    for (int m = 0; m < 2 && rc == 0; m++) {
        double *all = NULL;
        long nall = 0;
        for (int k = 0; k < c->nseeds && rc == 0; k++) {
            double *v;
            long n;
            struct gs_diag d = { 0 };
            int none = gs_h5_read_column(c->runfiles[p * c->nseeds + k],
                                         "/requests", cols[m], &v, &n,
                                         &d) < 0;
            gs_diag_free(&d);
            if (none)
                continue;       /* a run without requests */
            double *nb = realloc(all, (size_t)(nall + n + 1) * sizeof *nb);
            if (nb == NULL) {
                rc = -1;
            } else {
                all = nb;
                memcpy(all + nall, v, (size_t)n * sizeof *v);
                nall += n;
            }
            free(v);
        }
        char *path = NULL;
        if (rc == 0)
            rc = cdf_file(all ? all : (double[1]){ 0 }, nall, &path, dir,
                          what[m], name, c->pol[p]);
        for (long i = 0; i < nall; i++)
            if (!isnan(all[i]))
                *any |= 1 << m;
        free(path);
        free(all);
    }
    return rc;
}

/* Write the plot data of every policy into dir; 0 or -1. */
static int plot_data(const struct cmp *c, const double *values,
                     const char *dir, int *tier_used, int *latency)
{
    int icost = metric_index("cost_usd"), isla = metric_index("sla_violations");
    int iwait = metric_index("wait_mean_s");
    for (int p = 0; p < c->npol; p++) {
        char *path = NULL;
        char *name __attribute__((cleanup(free_str))) = safe_name(c->pol[p]);
        if (name == NULL)
            return -1;
        /* utilization: mean over seeds at each sample step */
        double *sum = NULL, *tt = NULL;
        long *cnt = NULL, len = 0;
        for (int k = 0; k < c->nseeds; k++) {
            const char *f = c->runfiles[p * c->nseeds + k];
            double *t, *a, *u;
            long n1, n2, n3;
            struct gs_diag d = { 0 };
            if (gs_h5_read_series(f, "/timeseries/time_s", &t, &n1, &d) < 0) {
                gs_diag_free(&d);
                return -1;
            }
            gs_h5_read_series(f, "/timeseries/allocated_gpus", &a, &n2, &d);
            gs_h5_read_series(f, "/timeseries/gpus_up", &u, &n3, &d);
            int bad = d.code != 0;
            gs_diag_free(&d);
            if (bad || n1 != n2 || n1 != n3) {
                free(t);
                free(a);
                free(u);
                return -1;
            }
            if (n1 > len) {
                double *ns = realloc(sum, (size_t)n1 * sizeof *ns);
                double *nt = realloc(tt, (size_t)n1 * sizeof *nt);
                long *nc = realloc(cnt, (size_t)n1 * sizeof *nc);
                if (ns)
                    sum = ns;
                if (nt)
                    tt = nt;
                if (nc)
                    cnt = nc;
                if (!ns || !nt || !nc)
                    return -1;
                for (long i = len; i < n1; i++) {
                    sum[i] = 0;
                    cnt[i] = 0;
                    tt[i] = t[i];
                }
                len = n1;
            }
            for (long i = 0; i < n1; i++) {
                sum[i] += u[i] > 0 ? a[i] / u[i] : 0;
                cnt[i]++;
            }
            free(t);
            free(a);
            free(u);
        }
        FILE *fp = dat_open(&path, "%s/util-%s.dat", dir, name);
        if (fp == NULL)
            return -1;
        fprintf(fp, "# time_h utilization (mean over %d seeds)\n", c->nseeds);
        for (long i = 0; i < len; i++)
            fprintf(fp, "%.6f %.6f\n", tt[i] / 3600.0, sum[i] / cnt[i]);
        fclose(fp);
        free(sum);
        free(tt);
        free(cnt);

        /* queueing-delay CDF per tier, pooled over seeds */
        double *w[GS_NTIERS] = { 0 };
        long nw[GS_NTIERS] = { 0 }, cw[GS_NTIERS] = { 0 };
        for (int k = 0; k < c->nseeds; k++) {
            struct gs_h5_job *jobs;
            long n;
            struct gs_diag d = { 0 };
            int bad = gs_h5_read_jobs(c->runfiles[p * c->nseeds + k], &jobs,
                                      &n, &d) < 0;
            gs_diag_free(&d);
            if (bad)
                return -1;
            for (long i = 0; i < n; i++) {
                int t = jobs[i].tier;
                if (t < 0 || t >= GS_NTIERS || isnan(jobs[i].wait_s))
                    continue;
                if (nw[t] == cw[t]) {
                    cw[t] = cw[t] ? cw[t] * 2 : 1024;
                    double *nb = realloc(w[t], (size_t)cw[t] * sizeof *nb);
                    if (nb == NULL) {
                        free(jobs);
                        return -1;
                    }
                    w[t] = nb;
                }
                w[t][nw[t]++] = jobs[i].wait_s / 60.0;
            }
            free(jobs);
        }
        for (int t = 0; t < GS_NTIERS; t++) {
            fp = dat_open(&path, "%s/wait-%s-%s.dat", dir, name,
                          gs_tier_name(t));
            if (fp == NULL)
                return -1;
            fprintf(fp, "# wait_min cdf (%s, %s, %ld jobs)\n", c->pol[p],
                    gs_tier_name(t), nw[t]);
            if (nw[t] == 0)     /* none started: never an empty file */
                fputs("0 0\n", fp);
            if (nw[t] > 0) {
                tier_used[t] = 1;
                qsort(w[t], (size_t)nw[t], sizeof *w[t], dbl_cmp);
                long stride = nw[t] > 1000 ? nw[t] / 1000 : 1;
                for (long i = 0; i < nw[t]; i += stride)
                    fprintf(fp, "%.6f %.6f\n", w[t][i],
                            (double)(i + 1) / (double)nw[t]);
                fprintf(fp, "%.6f 1\n", w[t][nw[t] - 1]);
            }
            fclose(fp);
            free(w[t]);
        }

        if (c->sc->nsvcs > 0 && latency_data(c, p, dir, name, latency) < 0)
            return -1;
        fp = dat_open(&path, "%s/cost_sla-%s.dat", dir, name);
        if (fp == NULL)
            return -1;
        fprintf(fp, "# cost_usd sla_violations wait_mean_s (one line per "
                "seed)\n");
        for (int k = 0; k < c->nseeds; k++) {
            const double *v = &values[((size_t)p * c->nseeds + k) * NMETRICS];
            fprintf(fp, "%.4f %.0f %.6g\n", v[icost], v[isla], v[iwait]);
        }
        fclose(fp);
    }
    return 0;
}

/* Where the gnuplot scripts are: --plot-scripts, $GPUSIM_PLOTS, beside the
 * executable (./plots, ../../plots for build/rel/gpusim), or ./plots.  The
 * folder as an absolute path in memory the caller frees, or NULL. */
static char *find_scripts(const char *given)
{
    struct stat st;
    if (given)
        return gs_gnuplot_path(given);
    const char *env = getenv("GPUSIM_PLOTS");
    if (env && *env)
        return gs_gnuplot_path(env);
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe) {
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        const char *rel[] = { "plots", "../../plots", "../share/gpusim/plots" };
        for (int i = 0; i < 3; i++) {
            char *cand = NULL;
            if (asprintf(&cand, "%s/%s/utilization.gp", exe, rel[i]) < 0)
                break;
            int found = stat(cand, &st) == 0;
            free(cand);
            char *dir = NULL;
            if (found && asprintf(&dir, "%s/%s", exe, rel[i]) >= 0) {
                free(exe);
                return dir;
            }
        }
        free(exe);
    }
    if (stat("plots/utilization.gp", &st) == 0)
        return gs_gnuplot_path("plots");
    return NULL;
}

/* Run SCRIPT.gp of the folder scripts on args (gnuplot.h: arguments, never
 * code); 0, or -1 (message printed). */
static int gnuplot(const char *scripts, const char *name,
                   const char *const *args, int nargs)
{
    char *script = NULL;
    if (asprintf(&script, "%s/%s.gp", scripts, name) < 0) {
        fprintf(stderr, "gpusim: out of memory; plots skipped\n");
        return -1;
    }
    int rc = gs_gnuplot_run(script, args, nargs);
    if (rc == -1)
        fprintf(stderr, "gpusim: cannot run gnuplot (%s); plots skipped\n",
                strerror(errno));
    else if (rc < 0)
        fprintf(stderr, "gpusim: gnuplot failed on %s\n", script);
    free(script);
    return rc < 0 ? -1 : 0;
}

/* Remove what an earlier compare drew into dir (its data files and
 * plots, by name), so no stale policy's curve or file survives; other
 * files are the user's and stay. */
static void clear_plots(const char *dir)
{
    static const char *const ours[] = { "util-*.dat", "wait-*.dat",
                                        "cost_sla-*.dat", "ttft-*.dat",
                                        "itl-*.dat", "utilization.png",
                                        "wait_cdf.png", "cost_sla.png",
                                        "latency_cdf.png" };
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL)
        for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
            if (fnmatch(ours[i], e->d_name, 0) == 0) {
                unlinkat(dirfd(dp), e->d_name, 0);
                break;
            }
    closedir(dp);
}

/* The plots into dir; *latency set when latency_cdf.png was drawn (the
 * scenario has services and a request reached its first token).  0 or
 * -1 (said on stderr). */
static int draw(const struct cmp *c, const double *values, const char *dir,
                const char *scripts_given, int *latency_drawn)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
        fprintf(stderr, "gpusim: cannot create the plot folder %s: %s\n",
                dir, strerror(errno));
        return -1;
    }
    clear_plots(dir);
    int tier_used[GS_NTIERS] = { 0 }, latency = 0;
    if (plot_data(c, values, dir, tier_used, &latency) < 0) {
        fprintf(stderr, "gpusim: cannot write plot data into %s\n", dir);
        return -1;
    }
    char *scripts = find_scripts(scripts_given);
    if (scripts == NULL) {
        fprintf(stderr, "gpusim: gnuplot scripts not found (give "
                "--plot-scripts or set GPUSIM_PLOTS); plot data left in "
                "%s\n", dir);
        return -1;
    }
    /* gnuplot gets the folder absolute (gnuplot.h) and the names as
     * arguments; the policy and scenario names are made file-name safe
     * (safe_name) because the scripts split the policy list into words
     * and build file names from them. */
    char *adir = gs_gnuplot_path(dir), *pols = NULL, *out = NULL;
    size_t npols = 0;
    FILE *pf = open_memstream(&pols, &npols);
    char tiers[128] = "";
    int named = 1;
    for (int p = 0; pf && p < c->npol; p++) {
        char *name = safe_name(c->pol[p]);
        named &= name != NULL;
        fprintf(pf, "%s%s", p ? " " : "", name ? name : "");
        free(name);
    }
    char *scen __attribute__((cleanup(free_str))) = safe_name(c->sc->name);
    if (pf == NULL || fclose(pf) != 0 || adir == NULL || !named ||
        scen == NULL) {
        fprintf(stderr, "gpusim: out of memory; plots skipped\n");
        free(adir);
        free(scripts);
        free(pols);
        return -1;
    }
    for (int t = 0; t < GS_NTIERS; t++)
        if (tier_used[t]) {
            strncat(tiers, tiers[0] ? " " : "", sizeof tiers - strlen(tiers) - 1);
            strncat(tiers, gs_tier_name(t), sizeof tiers - strlen(tiers) - 1);
        }
    static const char *const names[] = { "utilization", "wait_cdf",
                                         "cost_sla", "latency_cdf" };
    int rc = 0;
    /* latency_cdf.gp's panels: TTFT, and ITL when a request had one */
    const char *panels = latency & 2 ? "ttft itl" : "ttft";
    for (int i = 0; i < 3 + (latency != 0) && rc == 0; i++) {
        if (asprintf(&out, "%s/%s.png", adir, names[i]) < 0) {
            fprintf(stderr, "gpusim: out of memory; plots skipped\n");
            rc = -1;
            break;
        }
        const char *args[] = { adir, pols, i == 3 ? panels : tiers, scen,
                               out };
        rc = gnuplot(scripts, names[i], args, 5);
        free(out);
    }
    free(adir);
    free(scripts);
    free(pols);
    *latency_drawn = rc == 0 && latency != 0;
    return rc;
}

/* --- the table --------------------------------------------------------- */

static void print_table(FILE *fp, const struct cmp *c, const double *mean,
                        const double *half)
{
    fprintf(fp, "gpusim compare  scenario %s  %d seed%s (%llu..%llu)  mean "
            "and 95%% confidence interval (Student t)\n\n", c->sc->name,
            c->nseeds, c->nseeds == 1 ? "" : "s", c->seeds[0],
            c->seeds[c->nseeds - 1]);
    const char *why;
    int q = gs_question_of(c->sc, &why);
    fprintf(fp, "  question: %s (%s)%s\n\n", q == GS_HORIZON_STEADY
            ? "steady state" : "finite horizon", why, q == GS_HORIZON_STEADY
            ? "; the metrics below are over whole runs, the steady-state "
              "estimates (warm-up deleted) after them" : "");
    fprintf(fp, "  %-26s", "metric");
    for (int p = 0; p < c->npol; p++)
        fprintf(fp, " %24s", c->pol[p]);
    fputc('\n', fp);
    int hidden = 0;
    for (int m = 0; m < NMETRICS; m++) {
        if (!c->show[m]) {
            hidden++;
            continue;
        }
        fprintf(fp, "  %-26s", gs_compare_metric_names()[m]);
        for (int p = 0; p < c->npol; p++) {
            char cell[64];
            size_t i = (size_t)p * NMETRICS + m;
            if (isnan(half[i]))
                snprintf(cell, sizeof cell, "%.5g", mean[i]);
            else
                snprintf(cell, sizeof cell, "%.5g ± %.2g", mean[i], half[i]);
            /* "±" is two bytes but one column */
            fprintf(fp, " %*s", isnan(half[i]) ? 24 : 25, cell);
        }
        fputc('\n', fp);
    }
    if (hidden && !c->chosen)
        fprintf(fp, "\n  (%d metrics the same in every run not shown; "
                "--metrics all shows them)\n", hidden);
}

/* Which metrics the table shows: those named in list ("all": every one),
 * or by default those that differ between runs (a metric that is the
 * same in every run, such as a count of spot interruptions without spot
 * nodes, says nothing about the policies).  0, or 2 after a message. */
static int choose_metrics(struct cmp *c, const char *list, const double *v)
{
    int ntasks = c->npol * c->nseeds;
    c->chosen = list != NULL;
    if (list == NULL || strcmp(list, "all") == 0) {
        for (int m = 0; m < NMETRICS; m++) {
            int varies = list != NULL;
            for (int t = 1; t < ntasks && !varies; t++)
                varies = v[(size_t)t * NMETRICS + m] != v[m];
            c->show[m] = (char)varies;
        }
        return 0;
    }
    memset(c->show, 0, NMETRICS);
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), p);
        int m = metric_index(name);
        if (m < 0) {
            const char *cands[NMETRICS + 1];
            memcpy(cands, gs_compare_metric_names(),
                   (size_t)NMETRICS * sizeof cands[0]);
            cands[NMETRICS] = NULL;     /* gs_suggest wants the end marked */
            const char *near = gs_suggest(name, cands);
            fprintf(stderr, "gpusim: compare: --metrics: no metric '%s'%s%s%s"
                    "\n(the names are those of run --json; see 'gpusim help "
                    "compare')\n", name, near ? " (did you mean '" : "",
                    near ? near : "", near ? "'?)" : "");
            return 2;
        }
        c->show[m] = 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static void print_csv(FILE *fp, const struct cmp *c, const double *mean,
                      const double *sd, const double *half)
{
    fprintf(fp, "policy,metric,n,mean,std,half,ci_low,ci_high\n");
    for (int p = 0; p < c->npol; p++)
        for (int m = 0; m < NMETRICS; m++) {
            if (!c->show[m])
                continue;
            size_t i = (size_t)p * NMETRICS + m;
            fprintf(fp, "%s,%s,%d,%.10g,%.10g,%.10g,%.10g,%.10g\n", c->pol[p],
                    gs_compare_metric_names()[m], c->nseeds, mean[i], sd[i],
                    half[i], mean[i] - half[i], mean[i] + half[i]);
        }
}

static void cleanup_runs(struct cmp *c, char **tmpdir)
{
    if (c->runfiles) {
        for (int i = 0; i < c->npol * c->nseeds; i++) {
            if (c->runfiles[i])
                unlink(c->runfiles[i]);
            free(c->runfiles[i]);
        }
        free(c->runfiles);
        c->runfiles = NULL;
    }
    gs_out_scratch_remove(tmpdir);
}

static const struct option opts[] = {
    { "policies", required_argument, NULL, 'p' },
    { "seeds", required_argument, NULL, 's' },
    { "jobs", required_argument, NULL, 'j' },
    { "policy-lib", required_argument, NULL, 'L' },
    { "placement", required_argument, NULL, 'P' },
    { "out", required_argument, NULL, 'o' },
    { "force", no_argument, NULL, 'f' },
    { "plots", required_argument, NULL, 'D' },
    { "plot-scripts", required_argument, NULL, 'S' },
    { "no-plots", no_argument, NULL, 'n' },
    { "csv", no_argument, NULL, 'c' },
    { "metrics", required_argument, NULL, 'm' },
    { "bill-until", required_argument, NULL, 'B' },
    { "baseline", required_argument, NULL, 'b' },
    { "csv-pairs", no_argument, NULL, 'C' },
    { "precision", required_argument, NULL, 'R' },
    { "max-seeds", required_argument, NULL, 'M' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* Bill every run over the same window: W = the longest span of the runs
 * (and at least the scenario's bill_until), or the fixed window given
 * (fixed = W); each run that ended sooner is run again with bill_until =
 * W, which keeps it going -- the fleet billed, the models acting -- until W
 * (sim.h).  A run's events before its own end are the same both times, so
 * only the window's tail is new; its utilization and throughput up to its
 * own end (the *_makespan metrics) are kept from the first run.  0, or an
 * exit status with the message printed. */
static int same_window(struct cmp *c, double *values, int jobs, int quiet,
                       gs_time fixed, struct gs_diag *d)
{
    int n = c->npol * c->nseeds, ms = metric_index("span_h");
    int mu = metric_index("utilization_makespan");
    int mt = metric_index("throughput_makespan_jph");
    GS_ASSERT(ms >= 0 && mu >= 0 && mt >= 0);
    gs_time w = fixed > 0 ? fixed : c->bill_until;
    for (int t = 0; t < n && fixed == 0; t++) {
        gs_time span = (gs_time)llround(values[(size_t)t * NMETRICS + ms] *
                                        (double)GS_HOUR);
        if (span > w)
            w = span;
    }
    int *again = malloc((size_t)n * sizeof *again), na = 0;
    double *v = malloc((size_t)n * NMETRICS * sizeof *v);
    if (again == NULL || v == NULL) {
        free(again);
        free(v);
        fprintf(stderr, "gpusim: out of memory\n");
        return 1;
    }
    for (int t = 0; t < n; t++)
        if ((gs_time)llround(values[(size_t)t * NMETRICS + ms] *
                             (double)GS_HOUR) < w)
            again[na++] = t;
    c->bill_until = w;
    int rc = 0;
    if (na > 0) {
        c->task = again;
        c->ntasks = na;
        gs_progress_init(&c->pr, "compare: billing window", quiet);
        struct gs_pool_tasks pool = { .ntasks = na, .jobs = jobs,
                                      .nout = NMETRICS, .fn = run_task,
                                      .name = name_task, .done = progress,
                                      .ctx = c };
        rc = gs_pool_exec(&pool, v, d);
        gs_progress_end(&c->pr);
        c->task = NULL;
        for (int i = 0; rc == 0 && i < na; i++) {
            double *row = values + (size_t)again[i] * NMETRICS;
            double u = row[mu], th = row[mt];
            memcpy(row, v + (size_t)i * NMETRICS, NMETRICS * sizeof *v);
            row[mu] = u;
            row[mt] = th;
        }
    }
    if (rc == 0 && !quiet)
        fprintf(stderr, "gpusim: every run billed over %.2f h, %s (%d of %d "
                "runs kept going until then; --bill-until own bills each "
                "over its own)\n", (double)w / GS_HOUR,
                fixed > 0 ? "the window given" : "the longest run's span",
                na, n);
    free(again);
    free(v);
    return rc < 0 ? report(d, d->code == GS_EIO ? 1 : 2) : 0;
}

/* The worst relative half-width of the target metrics (those chosen with
 * --metrics, else the ranking measures and the mean wait) over every
 * policy; NaN when one is not defined (a mean of 0 with spread). */
static double worst_rel(const struct cmp *c, const double *values,
                        int chosen)
{
    static const char *const deflt[] = { "utilization_makespan",
                                         "throughput_makespan_jph",
                                         "wait_mean_s" };
    double worst = 0, *col = malloc((size_t)c->nseeds * sizeof *col);
    if (col == NULL)
        return NAN;
    for (int m = 0; m < NMETRICS; m++) {
        int target = chosen ? c->show[m] != 0 : 0;
        for (int i = 0; !chosen && i < 3; i++)
            target |= strcmp(gs_compare_metric_names()[m], deflt[i]) == 0;
        for (int p = 0; target && p < c->npol; p++) {
            for (int k = 0; k < c->nseeds; k++)
                col[k] = values[((size_t)p * c->nseeds + k) * NMETRICS + m];
            struct gs_ci ci;
            gs_ci_reps(col, c->nseeds, 0.95, &ci, NULL);
            double h = gs_ci_rel(&ci);
            if (gs_ci_precise(&ci, 0) || (!isnan(h) && h <= worst))
                continue;
            worst = h;          /* NaN stays the worst */
        }
    }
    free(col);
    return worst;
}

/* Grow the comparison to n seeds: the runs made keep their values and
 * files, the new seeds (the scenario's seed + k) run for every policy.  0,
 * or an exit status with the message printed. */
static int more_seeds(struct cmp *c, double **values, const char *tmpdir,
                      int n, int jobs, int quiet, struct gs_diag *d)
{
    int old = c->nseeds, np = c->npol, na = np * (n - old);
    c->bill_until = c->bill0;   /* each new run first ends on its own */
    unsigned long long *seeds = calloc((size_t)n, sizeof *seeds);
    char **files = calloc((size_t)np * n, sizeof *files);
    double *v = calloc((size_t)np * n * NMETRICS, sizeof *v);
    int *task = malloc((size_t)na * sizeof *task), rc = 0;
    if (!seeds || !files || !v || !task) {
        free(seeds);
        free(files);
        free(v);
        free(task);
        fprintf(stderr, "gpusim: out of memory\n");
        return 1;
    }
    for (int k = 0; k < n; k++)
        seeds[k] = k < old ? c->seeds[k]
                   : (unsigned long long)c->sc->seed + (unsigned long long)k;
    for (int p = 0, t = 0; p < np; p++)
        for (int k = 0; k < n; k++) {
            size_t to = (size_t)p * n + k, from = (size_t)p * old + k;
            if (k < old) {
                files[to] = c->runfiles[from];
                memcpy(v + to * NMETRICS, *values + from * NMETRICS,
                       NMETRICS * sizeof *v);
            } else {
                task[t++] = (int)to;
                if (asprintf(&files[to], "%s/run-%d-%d.h5", tmpdir, p, k) < 0)
                    files[to] = NULL, rc = 1;
            }
        }
    free(c->seeds);
    free(c->runfiles);
    free(*values);
    c->seeds = seeds;
    c->runfiles = files;
    *values = v;
    c->nseeds = n;
    if (rc != 0) {
        fprintf(stderr, "gpusim: out of memory\n");
        free(task);
        return 1;
    }
    double *out = malloc((size_t)na * NMETRICS * sizeof *out);
    if (out == NULL) {
        free(task);
        fprintf(stderr, "gpusim: out of memory\n");
        return 1;
    }
    c->task = task;
    c->ntasks = na;
    gs_progress_init(&c->pr, "compare: more seeds", quiet);
    struct gs_pool_tasks pool = { .ntasks = na, .jobs = jobs,
                                  .nout = NMETRICS, .fn = run_task,
                                  .name = name_task, .done = progress,
                                  .ctx = c };
    rc = gs_pool_exec(&pool, out, d);
    gs_progress_end(&c->pr);
    c->task = NULL;
    for (int i = 0; rc == 0 && i < na; i++)
        memcpy(v + (size_t)task[i] * NMETRICS, out + (size_t)i * NMETRICS,
               NMETRICS * sizeof *out);
    free(task);
    free(out);
    return rc < 0 ? report(d, d->code == GS_EIO ? 1 : 2) : 0;
}

/* argv holds the arguments after "compare" (tests call it so too). */
int gs_compare_main(int argc, char **argv)
{
    return gs_cli_named("compare", argc, argv, compare_main);
}

/* What the command line asked for; the default names and the scratch
 * folder made from it are owned here. */
struct cmp_args {
    const char *file, *out, *plots, *scripts, *list, *lib, *mlist;
    const char *baseline;           /* --baseline (NULL: the first) */
    int base;                       /* its index in --policies */
    int csv_pairs;
    double precision;               /* --precision (0: none) */
    long max_seeds;                 /* --max-seeds */
    int prec_met;                   /* the precision was met */
    double prec_worst;              /* the worst relative half-width */
    char *defout, *defplots, *tmpdir;
    long seeds, jobs;
    int no_plots, csv, quiet, force, bill;
};

/* The runs' metrics and, per policy and metric, their statistics. */
struct cmp_res {
    double *values, *mean, *sd, *tq, *half;
};

/* Read the options into a, and the placer and billing window into c.  -1
 * to go on, or the exit status (0 after --help). */
static int parse_args(int argc, char **argv, struct cmp_args *a,
                      struct cmp *c)
{
    int ch;
    optind = 0;             /* 0: a full restart (suggest.h) */
    opterr = 0;
    while ((ch = gs_cli_getopt(argc, argv, "+:p:s:j:o:fqh", opts,
                               &a->file)) != -1) {
        if (ch == GS_CLI_EXTRA)
            return usage_error("compare: more than one scenario: '%s'",
                               optarg);
        char *end;
        long v;
        switch (ch) {
        case 'p': a->list = optarg; break;
        case 's':
        case 'j':
            v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 1 || v > 10000)
                return usage_error("compare: %s takes a whole number from 1 "
                                   "to 10000, not '%s'",
                                   ch == 's' ? "--seeds" : "--jobs", optarg);
            if (ch == 's')
                a->seeds = v;
            else
                a->jobs = v;
            break;
        case 'L': a->lib = optarg; break;
        case 'P': c->placer = optarg; break;
        case 'o': a->out = optarg; break;
        case 'f': a->force = 1; break;
        case 'D': a->plots = optarg; break;
        case 'S': a->scripts = optarg; break;
        case 'n': a->no_plots = 1; break;
        case 'c': a->csv = 1; break;
        case 'm': a->mlist = optarg; break;
        case 'b': a->baseline = optarg; break;
        case 'C': a->csv_pairs = 1; break;
        case 'R':
            a->precision = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || !(a->precision > 0) ||
                !(a->precision < 1))
                return usage_error("compare: --precision takes a relative "
                                   "half-width between 0 and 1 such as "
                                   "0.05, not '%s'", optarg);
            break;
        case 'M':
            v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 2 || v > 10000)
                return usage_error("compare: --max-seeds takes a whole "
                                   "number from 2 to 10000, not '%s'",
                                   optarg);
            a->max_seeds = v;
            break;
        case 'B':
            if (strcmp(optarg, "longest") == 0)
                a->bill = BILL_LONGEST;
            else if (strcmp(optarg, "own") == 0)
                a->bill = BILL_OWN;
            else if (gs_parse_time(optarg, &c->bill_until) == 0 &&
                     c->bill_until > 0)
                a->bill = BILL_FIXED;
            else
                return usage_error("compare: --bill-until takes longest, own "
                                   "or a duration such as 48h, not '%s'",
                                   optarg);
            break;
        case 'q': a->quiet = 1; break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            return gs_suggest_bad_option("compare", opts, argc, argv, ch);
        }
    }
    return -1;
}

/* Every name in --policies is a known policy (or the plug-in's), listed
 * once; 0, or -1 with the message printed. */
static int check_policies(const struct cmp *c)
{
    for (int p = 0; p < c->npol; p++) {
        if (gs_policy_find(c->pol[p]) == NULL &&
            !(c->plugin && strcmp(c->pol[p], c->plugin->name) == 0)) {
            char known[1024] = "";
            for (int i = 0; gs_policies[i]; i++) {
                strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, gs_policies[i]->name,
                        sizeof known - strlen(known) - 1);
            }
            if (c->plugin) {
                strncat(known, ", ", sizeof known - strlen(known) - 1);
                strncat(known, c->plugin->name,
                        sizeof known - strlen(known) - 1);
            }
            const char *names[64];
            int nn = 0;
            for (int i = 0; gs_policies[i] && nn < 62; i++)
                names[nn++] = gs_policies[i]->name;
            if (c->plugin)
                names[nn++] = c->plugin->name;
            names[nn] = NULL;
            const char *near = gs_suggest(c->pol[p], names);
            if (near)
                fprintf(stderr, "gpusim: --policies: unknown policy '%s' "
                        "(did you mean '%s'?)\n", c->pol[p], near);
            else
                fprintf(stderr, "gpusim: --policies: unknown policy '%s' "
                        "(known: %s)\n", c->pol[p], known);
            return -1;
        }
        for (int q = 0; q < p; q++)
            if (strcmp(c->pol[p], c->pol[q]) == 0) {
                fprintf(stderr, "gpusim: --policies: '%s' is listed twice\n",
                        c->pol[p]);
                return -1;
            }
    }
    return 0;
}

/* Name the comparison file and the plots' folder (the defaults follow the
 * scenario file's name), make the scratch folder and name each run's file
 * in it.  -1 to go on, or the exit status with the message printed. */
static int prepare_files(struct cmp_args *a, struct cmp *c, int ntasks,
                         struct gs_diag *d)
{
    if (a->out == NULL) {
        if ((a->defout = gs_out_default_name(a->file, "-compare.h5")) ==
            NULL) {
            fprintf(stderr, "gpusim: out of memory\n");
            return 2;
        }
        a->out = a->defout;
        if (gs_out_check_new(a->out, a->force, d) < 0)
            return report(d, 2);
    }
    if (a->plots == NULL) {
        if ((a->defplots = gs_out_default_name(a->file, "-compare-plots")) ==
            NULL) {
            fprintf(stderr, "gpusim: out of memory\n");
            return 2;
        }
        a->plots = a->defplots;
    }
    if (gs_out_check_seekable(a->out, d) < 0) {
        gs_diag_prefix(d, "--out");
        return report(d, 2);
    }
    if (gs_out_scratch(a->out, &a->tmpdir, d) < 0)
        return report(d, 1);
    for (int t = 0; t < ntasks; t++) {
        if (asprintf(&c->runfiles[t], "%s/run-%d.h5", a->tmpdir, t) < 0) {
            c->runfiles[t] = NULL;
            fprintf(stderr, "gpusim: out of memory\n");
            return 2;
        }
    }
    return -1;
}

/* Per policy and metric, the mean over seeds and its 95% interval; then
 * the comparison file, the table and the plots.  The exit status. */
static int finish(struct cmp_args *a, struct cmp *c, struct cmp_res *r,
                  double elapsed, struct gs_diag *d)
{
    const struct gs_scenario *sc = c->sc;
    int ntasks = c->npol * c->nseeds;
    double *col = malloc((size_t)c->nseeds * sizeof *col);
    if (col == NULL) {
        fprintf(stderr, "gpusim: out of memory\n");
        return 1;
    }
    for (int p = 0; p < c->npol; p++)
        for (int m = 0; m < NMETRICS; m++) {
            for (int k = 0; k < c->nseeds; k++)
                col[k] = r->values[((size_t)p * c->nseeds + k) * NMETRICS + m];
            size_t i = (size_t)p * NMETRICS + m;
            gs_ci95(col, c->nseeds, &r->mean[i], &r->sd[i], &r->tq[i],
                    &r->half[i]);
        }
    free(col);

    struct gs_h5_compare hc = {
        .bill_window_s = a->bill == BILL_OWN ? NAN
                         : sc->horizon > 0 ? (double)sc->horizon / 1000.0
                                           : (double)c->bill_until / 1000.0,
        .scenario = sc->name, .text = sc->text, .npol = c->npol,
        .nseeds = c->nseeds, .nmetrics = NMETRICS,
        .policies = (const char *const *)c->pol, .seeds = c->seeds,
        .metrics = gs_compare_metric_names(), .values = r->values, .mean = r->mean,
        .sd = r->sd, .t = r->tq, .half = r->half,
        .runfiles = (const char *const *)c->runfiles,
    };
    hc.question = gs_horizon_name(gs_question_of(sc, &hc.question_why));
    if (gs_h5_write_compare(a->out, &hc, d) < 0)
        return report(d, 1);
    /* a CSV has every metric unless --metrics chooses */
    choose_metrics(c, a->mlist ? a->mlist : a->csv || a->csv_pairs ? "all"
                   : NULL,
                   r->values);
    struct gs_cmp_runs runs = {
        .npol = c->npol, .nseeds = c->nseeds, .nmetrics = NMETRICS,
        .pol = (const char *const *)c->pol,
        .metrics = gs_compare_metric_names(),
        .values = r->values,
    };
    int prc = 0;
    if (a->precision > 0)
        fprintf(a->quiet ? stderr : stdout, "precision: %s %.3g relative "
                "half-width (95%%) %s with %d seeds (worst %.3g)\n\n",
                a->prec_met ? "every target within" : "NOT every target "
                "within", a->precision, a->prec_met ? "met"
                : "at the --max-seeds cap", c->nseeds, a->prec_worst);
    if (!a->quiet) {
        if (a->csv_pairs)
            prc = gs_cmp_print_pairs_csv(stdout, &runs, c->show, a->base);
        else if (a->csv)
            print_csv(stdout, c, r->mean, r->sd, r->half);
        else {
            print_table(stdout, c, r->mean, r->half);
            struct gs_cmp_steady cs = {
                .sc = sc, .runfiles = (const char *const *)c->runfiles,
                .pol = (const char *const *)c->pol, .npol = c->npol,
                .nseeds = c->nseeds, .baseline = a->base };
            if (gs_question_of(sc, NULL) == GS_HORIZON_STEADY &&
                gs_cmp_steady_print(stdout, &cs) < 0)
                fprintf(stderr, "gpusim: the runs' steady-state estimates "
                        "could not be read back (out of memory, or a run "
                        "file unreadable)\n");
            prc = gs_cmp_print_pairs(stdout, &runs, c->show, a->base);
        }
        fflush(stdout);
    }
    if (prc < 0) {
        fprintf(stderr, "gpusim: out of memory\n");
        return 1;
    }
    int latency = 0;
    if (!a->no_plots &&
        draw(c, r->values, a->plots, a->scripts, &latency) == 0)
        fprintf(stderr, "gpusim: plots in %s/ (utilization.png, "
                "wait_cdf.png, cost_sla.png%s)\n", a->plots,
                latency ? ", latency_cdf.png" : "");
    fprintf(stderr, "gpusim: %d runs (%d policies x %d seeds) in %.2f s with "
            "%ld workers; results in %s\n", ntasks, c->npol, c->nseeds,
            elapsed,
            a->jobs < ntasks ? a->jobs : (long)ntasks, a->out);
    return 0;
}

static int compare_main(int argc, char **argv)
{
    struct cmp_args a = { .list = "fifo-backfill,fair,hps,rl-lite",
                          .seeds = 5, .jobs = sysconf(_SC_NPROCESSORS_ONLN),
                          .bill = BILL_LONGEST, .max_seeds = 200 };
    struct cmp c = { 0 };
    int st = parse_args(argc, argv, &a, &c);
    if (st >= 0)
        return st;
    if (a.plots && a.no_plots)
        return usage_error("%s", "compare: --plots and --no-plots contradict "
                           "each other; give one");
    /* --metrics is checked now, not after the runs */
    char show[NMETRICS];
    c.show = show;
    if (a.mlist && strcmp(a.mlist, "all") != 0 &&
        choose_metrics(&c, a.mlist, NULL) != 0)
        return 2;
    if (a.file == NULL)
        return usage_error("%s", "compare: which scenario? (a JSON file, or "
                           "'quickstart')");
    if (a.jobs < 1)
        a.jobs = 1;
    c.npol = split(a.list, &c.pol);
    if (c.npol < 0)
        return usage_error("compare: --policies wants names separated by "
                           "single commas, not '%s'", a.list);

    struct gs_diag d = { 0 };
    struct gs_scenario *sc = NULL;
    struct gs_plugin *plug = NULL;
    int status = 2;
    struct cmp_res r = { 0 };
    if (a.lib) {
        if (gs_plugin_open(a.lib, &plug, &d) < 0) {
            status = report(&d, 2);
            goto done;
        }
        c.plugin = gs_plugin_policy(plug);
    }
    if (check_policies(&c) < 0)
        goto done;
    for (a.base = 0; a.baseline && a.base < c.npol; a.base++)
        if (strcmp(c.pol[a.base], a.baseline) == 0)
            break;
    if (a.base == c.npol) {
        fprintf(stderr, "gpusim: --baseline: '%s' is not one of --policies "
                "(%s)\n", a.baseline, a.list);
        goto done;
    }
    if (load(a.file, &sc, &d) < 0) {
        status = report(&d, 2);
        goto done;
    }
    if (sc->horizon > 0 && a.bill != BILL_LONGEST) {
        fprintf(stderr, "gpusim: --bill-until: the scenario has a horizon, "
                "which is already every run's billing window\n");
        goto done;
    }
    /* the first runs end on their own (or at the scenario's bill_until);
     * same_window then bills them over the window asked */
    gs_time fixed = a.bill == BILL_FIXED ? c.bill_until : 0;
    c.bill_until = a.bill == BILL_LONGEST ? sc->bill_until : 0;
    c.bill0 = c.bill_until;
    c.sc = sc;
    c.nseeds = (int)a.seeds;
    c.seeds = calloc((size_t)a.seeds, sizeof *c.seeds);
    int ntasks = c.npol * c.nseeds;
    c.runfiles = calloc((size_t)ntasks, sizeof *c.runfiles);
    r.values = calloc((size_t)ntasks * NMETRICS, sizeof *r.values);
    size_t ns = (size_t)c.npol * NMETRICS;
    r.mean = calloc(ns, sizeof *r.mean);
    r.sd = calloc(ns, sizeof *r.sd);
    r.tq = calloc(ns, sizeof *r.tq);
    r.half = calloc(ns, sizeof *r.half);
    if (!c.seeds || !c.runfiles || !r.values || !r.mean || !r.sd || !r.tq ||
        !r.half) {
        fprintf(stderr, "gpusim: out of memory\n");
        goto done;
    }
    for (int k = 0; k < c.nseeds; k++)
        c.seeds[k] = (unsigned long long)sc->seed + (unsigned long long)k;
    if ((st = prepare_files(&a, &c, ntasks, &d)) >= 0) {
        status = st;
        goto done;
    }

    gs_progress_init(&c.pr, "compare", a.quiet);
    c.ntasks = ntasks;
    struct gs_pool_tasks pool = { .ntasks = ntasks, .jobs = (int)a.jobs,
                            .nout = NMETRICS, .fn = run_task,
                            .name = name_task, .done = progress, .ctx = &c };
    int prc = gs_pool_exec(&pool, r.values, &d);
    gs_progress_end(&c.pr);
    if (prc < 0) {
        status = report(&d, d.code == GS_EIO ? 1 : 2);
        goto done;
    }
    for (;;) {
        if (a.bill != BILL_OWN && sc->horizon == 0 &&
            (status = same_window(&c, r.values, (int)a.jobs, a.quiet, fixed,
                                  &d)) != 0)
            goto done;
        if (a.precision <= 0)
            break;
        a.prec_worst = worst_rel(&c, r.values, a.mlist != NULL &&
                                 strcmp(a.mlist, "all") != 0);
        a.prec_met = !isnan(a.prec_worst) && a.prec_worst <= a.precision;
        if (a.prec_met || c.nseeds >= a.max_seeds)
            break;
        long n = gs_next_length(c.nseeds, a.prec_worst, a.precision,
                                a.max_seeds);
        if ((status = more_seeds(&c, &r.values, a.tmpdir, (int)n,
                                 (int)a.jobs, a.quiet, &d)) != 0)
            goto done;
    }
    status = finish(&a, &c, &r, gs_progress_elapsed(&c.pr), &d);
done:
    gs_diag_free(&d);
    cleanup_runs(&c, &a.tmpdir);
    free(a.defout);
    free(a.defplots);
    for (int p = 0; p < c.npol; p++)
        free(c.pol[p]);
    free(c.pol);
    free(c.seeds);
    free(r.values);
    free(r.mean);
    free(r.sd);
    free(r.tq);
    free(r.half);
    gs_scenario_free(sc);
    gs_plugin_close(plug);
    return status;
}
