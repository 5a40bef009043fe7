/* sweep.c -- `gpusim sweep`: scenario keys over lists of values x seeds.
 *
 * Each --set PATH=V1,V2,... is an axis; the points are the axes' product,
 * the first --set varying slowest.  Every point's scenario is the given
 * one edited at the key paths (jsonio.h) and validated in full before any
 * simulation starts, so a misspelt key stops the sweep at once with its
 * JSON path.  Point p with seed k is task p * N + k; the tasks go to
 * gs_dist_run (forked workers, MPI ranks), and the statistics are
 * compare.c's: the mean over seeds and the 95% confidence interval of the
 * mean by Student's t (gs_ci95).  Seeds are the point's scenario seed, +1,
 * ..., so seed k of every point sees the same arrivals and job sizes
 * (common random numbers: differences between points are not drowned in
 * workload noise; Law, "Simulation Modeling and Analysis", sec. 11.2).
 *
 * The result file holds every run's metrics and the table (layout in
 * docs/planning.md).  Only rank 0 prints and writes; wall times go to
 * stderr, so stdout and the file depend only on the inputs. */
#include "sweep.h"
#include "../base/steady.h"
#include "../base/suggest.h"
#include "../io/outfile.h"
#include "../io/question.h"
#include "compare.h"
#include "../io/h5out.h"
#include "mpirun.h"
#include "../io/jsonio.h"
#include "progress.h"
#include "../io/report.h"
#include "../setup/scenario.h"
#include "../core/model.h"
#include "../setup/setup.h"
#include "../../policies/policy.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- the metrics of a run ----------------------------------------------- */

static const char *const extra_names[] = {
    "sla_share", "attainment", "cost_per_hour_usd", "cost_per_month_usd",
};
#define NEXTRA 4
static const char *const tier_fields[] = {
    "jobs", "wait_mean_s", "wait_p95_s", "wait_p99_s", "sla_share",
};
#define NTF 5

static char tier_names[GS_NTIERS * NTF][48];

/* The models' targets bound to a scenario (model.h: ntargets), e.g. the
 * services' "service.NAME.FIELD": their names, made once per bind. */
#define MAXTARGETS 1024
static const struct gs_scenario *bound;
static int nmt;
static char mt_names[MAXTARGETS][160];

/* The run metrics' names in order, each with its index: what
 * gs_run_metric_index searches (sweep, compare and plan parsing name
 * metrics by the dozen, and a walk over every name made each one again).
 * Made on first use after a bind, and again when a model has joined. */
struct named {
    const char *name;
    int idx;
};
static struct named *byname;
static int nbyname, byname_joined = -1;

void gs_run_bind(const struct gs_scenario *sc)
{
    byname_joined = -1;
    bound = sc;
    nmt = 0;
    for (int k = 0; gs_model_out(k); k++) {
        const struct gs_model_ops *mo = gs_model_out(k);
        int n = mo->ntargets ? mo->ntargets(sc) : 0;
        GS_ASSERT(nmt + n <= MAXTARGETS);
        for (int i = 0; i < n; i++)
            mo->target_name(sc, i, mt_names[nmt++], sizeof mt_names[0]);
    }
}

int gs_run_target_check(const struct gs_scenario *sc, const char *metric,
                        char *why, size_t n)
{
    for (int k = 0; gs_model_out(k); k++) {
        const struct gs_model_ops *mo = gs_model_out(k);
        int r = mo->target_check ? mo->target_check(sc, metric, why, n) : 0;
        if (r != 0)
            return r;
    }
    return 0;
}

static int nstatic(void)
{
    return gs_compare_nmetrics() + NEXTRA + GS_NTIERS * NTF;
}

int gs_run_nmetrics(void)
{
    return nstatic() + nmt;
}

const char *gs_run_metric_name(int i)
{
    int nc = gs_compare_nmetrics();
    if (i < 0 || i >= gs_run_nmetrics())
        return NULL;
    if (i < nc)
        return gs_compare_metric_names()[i];
    i -= nc;
    if (i < NEXTRA)
        return extra_names[i];
    i -= NEXTRA;
    if (i >= GS_NTIERS * NTF)
        return mt_names[i - GS_NTIERS * NTF];
    if (tier_names[i][0] == '\0')
        snprintf(tier_names[i], sizeof tier_names[i], "%s.%s",
                 gs_tier_name(i / NTF), tier_fields[i % NTF]);
    return tier_names[i];
}

static int by_name(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* byname current: 0, or GS_ENOMEM. */
static int index_names(void)
{
    if (byname_joined == gs_models_joined())
        return 0;
    int n = gs_run_nmetrics();
    struct named *v = realloc(byname, (size_t)n * sizeof *v);
    if (v == NULL)
        return GS_ENOMEM;
    for (int i = 0; i < n; i++)
        v[i] = (struct named){ gs_run_metric_name(i), i };
    qsort(v, (size_t)n, sizeof *v, by_name);
    byname = v;
    nbyname = n;
    byname_joined = gs_models_joined();
    return 0;
}

/* The first of equal names is the lowest index: what a walk in order
 * would find. */
int gs_run_metric_index(const char *name)
{
    if (index_names() < 0) {
        for (int i = 0, n = gs_run_nmetrics(); i < n; i++)
            if (strcmp(gs_run_metric_name(i), name) == 0)
                return i;
        return -1;
    }
    int lo = 0, hi = nbyname;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(byname[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nbyname && strcmp(byname[lo].name, name) == 0
               ? byname[lo].idx : -1;
}

static double share(long bad, long jobs)
{
    return jobs > 0 ? (double)bad / (double)jobs : 0;
}

void gs_run_metric_values(const struct gs_sim *sim, double *v)
{
    const struct gs_summary *su = gs_sim_summary(sim);
    gs_compare_metric_values(su, v);
    int i = gs_compare_nmetrics();
    double sla = share(su->all.sla_wait + su->all.sla_deadline, su->all.jobs);
    double rate = su->span_h > 0 ? su->cost / su->span_h : 0;
    v[i++] = sla;
    v[i++] = 1 - sla;
    v[i++] = rate;
    v[i++] = rate * 730;
    for (int t = 0; t < GS_NTIERS; t++) {
        const struct gs_tstats *ts = &su->tier[t];
        v[i++] = (double)ts->jobs;
        v[i++] = ts->wait_mean;
        v[i++] = ts->wait_p95;
        v[i++] = ts->wait_p99;
        v[i++] = share(ts->sla_wait + ts->sla_deadline, ts->jobs);
    }
    for (int k = 0; nmt > 0 && gs_model_out(k); k++) {
        const struct gs_model_ops *mo = gs_model_out(k);
        if (mo->ntargets == NULL)
            continue;
        mo->target_values(bound, sim, gs_sim_model(sim, mo), &v[i]);
        i += mo->ntargets(bound);
    }
    GS_ASSERT(i == gs_run_nmetrics());
}

int gs_run_scenario(const struct gs_scenario *sc, uint64_t seed, double *v,
                    struct gs_diag *d)
{
    struct gs_sim_opts o = { .seed = seed, .set_seed = 1 };
    struct gs_sim *sim = NULL;
    int rc = gs_sim_new(sc, &o, &sim, d);
    if (rc == 0)
        rc = gs_sim_run(sim, d);
    if (rc == 0)
        gs_run_metric_values(sim, v);
    gs_sim_free(sim);
    return rc;
}

int gs_load_scenario(const char *arg, struct gs_scenario **sc,
                     struct gs_diag *d)
{
    struct stat st;
    if (strcmp(arg, "quickstart") == 0 && stat(arg, &st) != 0)
        return gs_scenario_parse(gs_scenario_quickstart(),
                                 "<built-in quickstart>", ".", sc, d);
    return gs_scenario_load(arg, sc, d);
}

int gs_reparse(const struct gs_scenario *base, const char *text,
               struct gs_scenario **out, struct gs_diag *d)
{
    char *name = NULL;
    if (asprintf(&name, "%s (edited)", base->file) < 0)
        return gs_diag_set(d, GS_ENOMEM, base->file, "out of memory");
    int rc = gs_scenario_parse(text, name, base->trace_dir, out, d);
    free(name);
    return rc;
}

int gs_report_diag(struct gs_diag *d, int status)
{
    if (gs_dist_leader())
        gs_diag_print(stderr, "gpusim: ", d);
    gs_diag_free(d);
    return status;
}

int gs_check_names(const struct gs_scenario *sc, struct gs_diag *d)
{
    char list[512], hint[128];
    char *where;
    if (gs_policy_find(sc->policy) == NULL) {
        gs_names_join(list, sizeof list, (const void *const *)gs_policies,
                      offsetof(struct gs_policy_ops, name));
        gs_names_suggest(sc->policy, (const void *const *)gs_policies,
                         offsetof(struct gs_policy_ops, name), hint,
                         sizeof hint);
        where = gs_strf("%s: $.policy", sc->file);
        return gs_diag_set_at(d, GS_ENOTFOUND, where, "unknown policy '%s'%s "
                              "(known: %s)", sc->policy, hint, list);
    }
    if (gs_placer_find(sc->placer) == NULL) {
        gs_names_join(list, sizeof list, (const void *const *)gs_placers,
                      offsetof(struct gs_placer_ops, name));
        gs_names_suggest(sc->placer, (const void *const *)gs_placers,
                         offsetof(struct gs_placer_ops, name), hint,
                         sizeof hint);
        where = gs_strf("%s: $.placement", sc->file);
        return gs_diag_set_at(d, GS_ENOTFOUND, where, "unknown placement "
                              "'%s'%s (known: %s)", sc->placer, hint, list);
    }
    return 0;
}

/* --- the command ---------------------------------------------------------- */

static const char usage[] =
"usage: gpusim sweep SCENARIO --set KEY=V1,V2,... [--set ...] [options]\n"
"\n"
"Run SCENARIO (a JSON file, or 'quickstart') at every combination of the\n"
"--set values, each with several seeds, in parallel processes (and MPI\n"
"ranks under mpirun or srun); print each metric's mean over the seeds\n"
"with its 95% confidence interval (Student's t).\n"
"\n"
"  --set KEY=VALUES  KEY a scenario key path (fleet[0].nodes, policy.name,\n"
"                    workload.generate.rate_per_hour); VALUES separated by\n"
"                    commas, each JSON or a bare string.  Repeatable: the\n"
"                    points are every combination, the first --set slowest\n"
"\n"
"options:\n"
"  -s, --seeds N     seeds per point: the scenario's seed, +1, ... (5)\n"
"  -j, --jobs P      worker processes per rank (default: the CPUs; 1\n"
"                    under MPI)\n"
"  -o, --out FILE    the sweep's HDF5 file, replaced if it exists\n"
"                    (default: the scenario file's name + -sweep.h5,\n"
"                    never replaced without --force)\n"
"  -f, --force       replace the default sweep file if it exists\n"
"  --metrics LIST    metrics to print, comma-separated (default: all;\n"
"                    the file always has all)\n"
"  --list-metrics    print the metric names and exit\n"
"  --csv             print the table as CSV\n"
"  -q, --quiet       print no table\n"
"  --precision R     add seeds until every point's 95% interval of each\n"
"                    --metrics metric is within R of its mean (relative\n"
"                    half-width, e.g. 0.05), or --max-seeds; says which\n"
"  --max-seeds N     the cap of --precision (default 200)\n"
"\n"
"exit status: 0 done, 2 bad input or usage, 1 results not written\n";

static int usage_error(const char *fmt, const char *arg)
{
    if (gs_dist_leader()) {
        fprintf(stderr, "gpusim: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n(see 'gpusim help sweep')\n");
    }
    return 2;
}

#define MAXSET 16

struct sweep {
    int nset;
    char *key[MAXSET];          /* the --set keys, whole */
    char *arg[MAXSET];          /* the --set arguments as typed */
    int nval[MAXSET];
    char **val[MAXSET];
    int npoints, nseeds, nm;
    struct gs_scenario **sc;    /* [npoints] */
    char **label;               /* [npoints] "k=v k=v" */
    char **cell;                /* [npoints * nset] the values */
};

static int task(int t, double *out, void *ctx, struct gs_diag *d)
{
    struct sweep *s = ctx;
    const struct gs_scenario *sc = s->sc[t / s->nseeds];
    return gs_run_scenario(sc, sc->seed + (uint64_t)(t % s->nseeds), out, d);
}

/* "P3 seed=2, seed 43": the point's label and the task's seed. */
static char *task_name(int t, void *ctx)
{
    const struct sweep *s = ctx;
    int p = t / s->nseeds;
    return gs_strf("P%d %s, seed %llu", p + 1, s->label[p],
                   (unsigned long long)(s->sc[p]->seed +
                                        (uint64_t)(t % s->nseeds)));
}

static void free_sweep(struct sweep *s)
{
    for (int i = 0; i < s->nset; i++) {
        for (int k = 0; k < s->nval[i]; k++)
            free(s->val[i][k]);
        free(s->val[i]);
        free(s->arg[i]);
        free(s->key[i]);
    }
    for (int p = 0; s->sc && p < s->npoints; p++)
        gs_scenario_free(s->sc[p]);
    for (int p = 0; s->label && p < s->npoints; p++)
        free(s->label[p]);
    free(s->sc);
    free(s->label);
    free(s->cell);
}

/* A path without its leading "$." (or "$"): a --set key may have it. */
static const char *bare(const char *p)
{
    return p[0] == '$' ? p + (p[1] == '.' ? 2 : 1) : p;
}

/* 1 when JSON paths a and b lie on one branch: one is the other or an
 * object or array inside it ("$.fleet[0]" and "fleet[0].nodes"). */
static int same_branch(const char *a, const char *b)
{
    a = bare(a);
    b = bare(b);
    size_t la = strlen(a), lb = strlen(b);
    const char *lo = la <= lb ? a : b, *hi = la <= lb ? b : a;
    size_t n = la <= lb ? la : lb;
    return strncmp(lo, hi, n) == 0 &&
           (hi[n] == '\0' || hi[n] == '.' || hi[n] == '[');
}

/* An error in a point's edited scenario (its where "FILE (edited): $.PATH",
 * or "--set KEY" from the edit itself) told in the user's words: the
 * --set options whose key lies on the error's path, as typed ("--set
 * policy=fiar,fair: $.policy: unknown policy 'fiar' ..."); every --set of
 * the sweep, before the edited file's name, when none does (a check
 * across keys). */
static void blame(const struct sweep *s, const struct gs_scenario *base,
                  struct gs_diag *d)
{
    static const char mark[] = " (edited): ";
    char *jp = NULL, *who = NULL;
    if (d == NULL || d->code == 0)
        return;
    size_t lf = strlen(base->file);
    int edit = strncmp(d->where, "--set ", 6) == 0;   /* the edit failed */
    if (strncmp(d->where, base->file, lf) == 0 &&
        strncmp(d->where + lf, mark, sizeof mark - 1) == 0)
        jp = gs_strf("%s", d->where + lf + sizeof mark - 1);
    else if (edit)
        jp = gs_strf("$.%s", d->where + 6);
    if (jp == NULL)     /* not an edited point's, or out of memory */
        return;
    int hit = 0;
    for (int pass = 0; pass < 2 && !hit; pass++)
        for (int i = 0; i < s->nset; i++) {
            if (pass == 0 && !same_branch(jp, s->key[i]))
                continue;
            char *more = gs_strf("%s%s--set %s", who ? who : "",
                                 who ? " " : "", s->arg[i]);
            free(who);
            if ((who = more) == NULL) {
                free(jp);
                return;
            }
            hit += pass == 0;
        }
    const char *w = who ? who : "";
    gs_diag_reword(d, hit && edit ? gs_strf("%s", w)
                      : gs_strf("%s: %s", w, hit ? jp : d->where), NULL);
    free(who);
    free(jp);
}

/* Build and validate every point's scenario: an error names the --set
 * options it comes from (blame). */
static int build_points(struct sweep *s, const struct gs_scenario *base,
                        struct gs_diag *d)
{
    s->npoints = 1;
    for (int i = 0; i < s->nset; i++) {
        if (s->npoints > 100000 / s->nval[i])
            return gs_diag_set(d, GS_ERANGE, "--set", "more than 100000 "
                               "points");
        s->npoints *= s->nval[i];
    }
    s->sc = calloc((size_t)s->npoints, sizeof *s->sc);
    s->label = calloc((size_t)s->npoints, sizeof *s->label);
    s->cell = calloc((size_t)s->npoints * (size_t)(s->nset ? s->nset : 1),
                     sizeof *s->cell);
    if (!s->sc || !s->label || !s->cell)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    for (int p = 0; p < s->npoints; p++) {
        struct gs_edit e[MAXSET];
        int rest = p;
        for (int i = s->nset - 1; i >= 0; i--) {
            int k = rest % s->nval[i];
            rest /= s->nval[i];
            e[i].op = GS_EDIT_SET;
            e[i].path = s->key[i];
            e[i].value = s->val[i][k];
            s->cell[(size_t)p * s->nset + i] = s->val[i][k];
        }
        /* the point's label whole (2,048 bytes cut long values, and two
         * points could read alike) */
        char *label = NULL;
        size_t ll = 0;
        FILE *mf = s->nset ? open_memstream(&label, &ll) : NULL;
        for (int i = 0; mf && i < s->nset; i++)
            fprintf(mf, "%s%s=%s", i ? " " : "", s->key[i], e[i].value);
        if (mf == NULL || fclose(mf) != 0) {
            free(label);
            label = s->nset ? NULL : strdup("as given");
        }
        if ((s->label[p] = label) == NULL)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        char *text = NULL;
        int rc = gs_json_edit(base->text, e, s->nset, &text, "--set", d);
        if (rc == 0)
            rc = gs_reparse(base, text, &s->sc[p], d);
        if (rc == 0)
            rc = gs_check_names(s->sc[p], d);
        free(text);
        if (rc < 0) {
            blame(s, base, d);
            return rc;
        }
    }
    return 0;
}

static void print_table(FILE *fp, const struct sweep *s, const char *name,
                        const int *show, const double *mean,
                        const double *half)
{
    const struct gs_scenario *sc = s->sc[0];
    fprintf(fp, "gpusim sweep  scenario %s  %d point%s x %d seeds "
            "(%llu..%llu)  mean and 95%% confidence interval (Student t)\n\n",
            name, s->npoints, s->npoints == 1 ? "" : "s", s->nseeds,
            (unsigned long long)sc->seed,
            (unsigned long long)(sc->seed + (uint64_t)s->nseeds - 1));
    int steady = 0;
    for (int p = 0; p < s->npoints; p++) {
        const char *why;
        int q = gs_question_of(s->sc[p], &why);
        steady |= q == GS_HORIZON_STEADY;
        fprintf(fp, "  P%-3d %s  (%s: %s)\n", p + 1, s->label[p],
                q == GS_HORIZON_STEADY ? "steady state" : "finite horizon",
                why);
    }
    if (steady)
        fprintf(fp, "  steady-state points: the metrics are over whole "
                "runs, warm-up included; gpusim run and plan delete it "
                "(docs/planning.md)\n");
    fputc('\n', fp);
    fprintf(fp, "  %-30s", "metric");
    for (int p = 0; p < s->npoints; p++) {
        char h[16];
        snprintf(h, sizeof h, "P%d", p + 1);
        fprintf(fp, " %22s", h);
    }
    fputc('\n', fp);
    for (int m = 0; m < s->nm; m++) {
        if (!show[m])
            continue;
        fprintf(fp, "  %-30s", gs_run_metric_name(m));
        for (int p = 0; p < s->npoints; p++) {
            char c[64];
            size_t i = (size_t)p * s->nm + m;
            if (isnan(half[i]))
                snprintf(c, sizeof c, "%.5g", mean[i]);
            else
                snprintf(c, sizeof c, "%.5g ± %.2g", mean[i], half[i]);
            fprintf(fp, " %*s", isnan(half[i]) ? 22 : 23, c);
        }
        fputc('\n', fp);
    }
}

static void print_csv(FILE *fp, const struct sweep *s, const int *show,
                      const double *mean, const double *sd,
                      const double *half)
{
    fprintf(fp, "point");
    for (int i = 0; i < s->nset; i++) {
        fputs(",\"", fp);          /* a key may hold a quote: doubled */
        for (const char *c = s->key[i]; *c; c++) {
            if (*c == '"')
                fputc('"', fp);
            fputc(*c, fp);
        }
        fputc('"', fp);
    }
    fprintf(fp, ",metric,n,mean,std,half,ci_low,ci_high\n");
    for (int p = 0; p < s->npoints; p++)
        for (int m = 0; m < s->nm; m++) {
            if (!show[m])
                continue;
            size_t i = (size_t)p * s->nm + m;
            fprintf(fp, "%d", p + 1);
            for (int k = 0; k < s->nset; k++) {
                fputs(",\"", fp);
                for (const char *c = s->cell[(size_t)p * s->nset + k]; *c;
                     c++) {
                    if (*c == '"')
                        fputc('"', fp);
                    fputc(*c, fp);
                }
                fputc('"', fp);
            }
            fprintf(fp, ",%s,%d,%.10g,%.10g,%.10g,%.10g,%.10g\n",
                    gs_run_metric_name(m), s->nseeds, mean[i], sd[i],
                    half[i], mean[i] - half[i], mean[i] + half[i]);
        }
}

static int write_file(const char *out, const struct sweep *s,
                      const struct gs_scenario *base, const double *values,
                      const double *table, struct gs_diag *d)
{
    const char **keys = calloc((size_t)s->nset + 1, sizeof *keys);
    const char **names = calloc((size_t)s->nm, sizeof *names);
    const char **units = calloc((size_t)s->nm, sizeof *units);
    const char **cells = calloc((size_t)s->npoints * (size_t)s->nset + 1,
                                sizeof *cells);
    uint64_t *seeds = calloc((size_t)s->nseeds, sizeof *seeds);
    double *runp = calloc((size_t)s->npoints * (size_t)s->nseeds,
                          sizeof *runp);
    const char **q = calloc(2 * (size_t)s->npoints, sizeof *q);
    int rc;
    if (!keys || !names || !units || !cells || !seeds || !runp || !q) {
        rc = gs_diag_set(d, GS_ENOMEM, out, "out of memory");
        goto done;
    }
    for (int i = 0; i < s->nset; i++)
        keys[i] = s->key[i];
    for (int m = 0; m < s->nm; m++) {
        const char *desc;
        names[m] = gs_run_metric_name(m);
        gs_report_meta(names[m], &units[m], &desc);
    }
    for (size_t i = 0; i < (size_t)s->npoints * (size_t)s->nset; i++)
        cells[i] = s->cell[i];
    for (int k = 0; k < s->nseeds; k++)
        seeds[k] = s->sc[0]->seed + (uint64_t)k;
    for (int p = 0; p < s->npoints; p++)    /* a point may change it */
        q[p] = gs_horizon_name(gs_question_of(s->sc[p], &q[s->npoints + p]));
    static const char *const stat_names[] = { "n", "mean", "std", "t",
                                              "half", "ci_low", "ci_high" };
    long np = s->npoints, ns = s->nseeds, nm = s->nm;
    struct gs_h5_ds ds[] = {
        { "sweep/keys", GS_H5_STRING, 1, { s->nset }, keys,
          "the swept key paths, index K", NULL },
        { "sweep/points", GS_H5_STRING, 2, { np, s->nset }, cells,
          "[point, K] the value of key K at each point (JSON text)", NULL },
        { "sweep/labels", GS_H5_STRING, 1, { np }, (const void *)s->label,
          "each point as KEY=VALUE ...", NULL },
        { "sweep/seeds", GS_H5_U64, 1, { ns }, seeds, "seed of index S",
          "1" },
        { "sweep/metrics", GS_H5_STRING, 1, { nm }, names,
          "metric names, index M", NULL },
        { "sweep/metric_units", GS_H5_STRING, 1, { nm }, units,
          "the unit of each metric of /sweep/metrics, index M", NULL },
        { "sweep/values", GS_H5_DOUBLE, 3, { np, ns, nm }, values,
          "[point, seed, metric] every run's metrics",
          "per metric (/sweep/metric_units)" },
        { "sweep/question", GS_H5_STRING, 1, { np }, q, "the question "
          "each point answers (io/question.h, as run, compare and plan): "
          "steady or finite; the metrics are whole-run values either way",
          NULL },
        { "sweep/question_why", GS_H5_STRING, 1, { np }, q + np, "the rule "
          "that decided each point's question (the scenario's \"question\" "
          "key, or the workload)", NULL },
        { "sweep/stats", GS_H5_STRING, 1, { 7 }, stat_names,
          "columns of table: n, mean, std, Student t (0.975, n-1), half "
          "= t*std/sqrt(n), ci_low, ci_high", NULL },
        { "sweep/table", GS_H5_DOUBLE, 3, { np, nm, 7 }, table,
          "[point, metric, stat] mean over seeds and 95% interval (n and t "
          "are counts and quantiles, 1; the rest in the metric's unit)",
          "per metric (/sweep/metric_units)" },
    };
    rc = gs_h5_write_sets(out, "sweep", base->name, base->text, ds,
                          (int)(sizeof ds / sizeof ds[0]), d);
done:
    free(keys);
    free(names);
    free(units);
    free(cells);
    free(seeds);
    free(runp);
    free(q);
    return rc;
}

static int sweep_main(int argc, char **argv);

/* The progress line: runs done of the batch (this rank's share under
 * MPI). */
static void on_progress(int ndone, int ntasks, void *ctx)
{
    gs_progress_count(ctx, ndone, ntasks, "runs");
}

static const struct option opts[] = {
    { "set", required_argument, NULL, 'S' },
    { "seeds", required_argument, NULL, 's' },
    { "jobs", required_argument, NULL, 'j' },
    { "out", required_argument, NULL, 'o' },
    { "force", no_argument, NULL, 'f' },
    { "metrics", required_argument, NULL, 'm' },
    { "list-metrics", no_argument, NULL, 'l' },
    { "csv", no_argument, NULL, 'c' },
    { "quiet", no_argument, NULL, 'q' },
    { "precision", required_argument, NULL, 'R' },
    { "max-seeds", required_argument, NULL, 'X' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* argv holds the arguments after "sweep" (tests call it so too). */
int gs_sweep_main(int argc, char **argv)
{
    return gs_cli_named("sweep", argc, argv, sweep_main);
}

/* One --set KEY=V1,V2,...: 0, or the usage error's status. */
static int add_set(struct sweep *s, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (eq == NULL || eq == kv || eq[1] == '\0')
        return usage_error("--set wants KEY=V1,V2,..., not '%s'", kv);
    if (s->nset == MAXSET)
        return usage_error("at most 16 --set options (%s)", kv);
    /* the key whole, however long: the edit and the scenario name it */
    if ((s->key[s->nset] = strndup(kv, (size_t)(eq - kv))) == NULL)
        return usage_error("%s", "out of memory");
    s->nval[s->nset] = gs_split_values(eq + 1, &s->val[s->nset]);
    if (s->nval[s->nset] < 0) {
        s->nval[s->nset] = 0;
        free(s->key[s->nset]);
        s->key[s->nset] = NULL;
        return usage_error("--set: cannot split the values of '%s' (an empty "
                           "value or an unbalanced bracket)", kv);
    }
    /* kept for messages (blame); freed with the key and the values once
     * nset counts this one */
    if ((s->arg[s->nset] = strdup(kv)) == NULL) {
        for (int k = 0; k < s->nval[s->nset]; k++)
            free(s->val[s->nset][k]);
        free(s->val[s->nset]);
        s->nval[s->nset] = 0;
        free(s->key[s->nset]);
        s->key[s->nset] = NULL;
        return usage_error("%s", "out of memory");
    }
    for (int k = 0; k < s->nset; k++)
        if (strcmp(s->key[k], s->key[s->nset]) == 0) {
            s->nset++;
            return usage_error("--set: key '%s' given twice", kv);
        }
    s->nset++;
    return 0;
}

/* The worst relative half-width over the points and the shown metrics
 * (a metric the same on every seed counts as precise; NaN when one cannot
 * be told: a mean of 0 with a spread, or a metric with no value). */
static double worst_rel(const struct sweep *s, const double *values,
                        const int *show, double *col)
{
    double worst = 0;
    for (int p = 0; p < s->npoints; p++)
        for (int m = 0; m < s->nm; m++) {
            if (!show[m])
                continue;
            for (int k = 0; k < s->nseeds; k++)
                col[k] = values[((size_t)p * s->nseeds + k) * s->nm + m];
            struct gs_ci ci;
            gs_ci_reps(col, s->nseeds, 0.95, &ci, NULL);
            double h = gs_ci_rel(&ci);
            if (gs_ci_precise(&ci, 0) || (!isnan(h) && h <= worst))
                continue;
            worst = h;          /* NaN stays the worst */
        }
    return worst;
}

/* Which metrics --metrics shows (show[nm]: all when mlist is NULL).  0,
 * or the usage error's status. */
static int pick_metrics(const char *mlist, int nm, int *show)
{
    for (int m = 0; m < nm; m++)
        show[m] = mlist == NULL;
    if (mlist == NULL)
        return 0;
    char **ml;
    int n = gs_split_values(mlist, &ml);
    if (n < 0)
        return usage_error("--metrics: a bad list '%s'", mlist);
    int bad = -1;
    for (int k = 0; k < n; k++) {
        int m = gs_run_metric_index(ml[k]);
        if (m < 0 && bad < 0)
            bad = k;
        else if (m >= 0)
            show[m] = 1;
    }
    int status = bad < 0 ? 0
                 : usage_error("--metrics: no metric '%s' (see "
                               "--list-metrics)", ml[bad]);
    for (int k = 0; k < n; k++)
        free(ml[k]);
    free(ml);
    return status;
}

/* Each point's and metric's statistics over the seeds' values: mean, sd,
 * half-width of the 95% interval, and the table's row (n, mean, sd, t,
 * half, low, high); col is scratch for nseeds values. */
static void summarize(const struct sweep *s, const double *values,
                      double *col, double *mean, double *sd, double *half,
                      double *table)
{
    for (int p = 0; p < s->npoints; p++)
        for (int m = 0; m < s->nm; m++) {
            for (int k = 0; k < s->nseeds; k++)
                col[k] = values[((size_t)p * s->nseeds + k) * s->nm + m];
            size_t i = (size_t)p * s->nm + m;
            double t;
            gs_ci95(col, s->nseeds, &mean[i], &sd[i], &t, &half[i]);
            double *row = &table[i * 7];
            row[0] = s->nseeds;
            row[1] = mean[i];
            row[2] = sd[i];
            row[3] = t;
            row[4] = half[i];
            row[5] = mean[i] - half[i];
            row[6] = mean[i] + half[i];
        }
}

/* --precision: the relative half-width asked (0: none), the cap on
 * seeds, and what was reached. */
struct prec {
    double rel;
    long cap;
    double worst;
    int met;
};

/* Run every point with seeds seeds into *values (and *col, room for the
 * seeds); with p->rel, while some interval of a shown metric is wider than
 * asked, again with more seeds (gs_next_length; the seeds are the
 * scenario's seed + k, so the grown sweep is the one that many seeds give
 * from the start).  s->nseeds is the count run.  0, or the exit status
 * with the message printed. */
static int run_points(struct sweep *s, long seeds, long jobs, int silent,
                      const int *show, struct prec *p, double **values,
                      double **col, struct gs_diag *d)
{
    for (s->nseeds = (int)seeds;;) {
        int ntasks = s->npoints * s->nseeds;
        free(*values);
        free(*col);
        *values = calloc((size_t)ntasks * (size_t)s->nm, sizeof **values);
        *col = calloc((size_t)s->nseeds, sizeof **col);
        if (*values == NULL || *col == NULL) {
            fprintf(stderr, "gpusim: out of memory\n");
            return 2;
        }
        struct gs_progress pr;
        gs_progress_init(&pr, "sweep", silent || !gs_dist_leader());
        gs_dist_progress(on_progress, &pr);
        int drc = gs_dist_run_named(ntasks, (int)jobs, s->nm, task,
                                    task_name, s, *values, d);
        gs_dist_progress(NULL, NULL);
        gs_progress_end(&pr);
        if (drc < 0)
            return gs_report_diag(d, d->code == GS_EIO ? 1 : 2);
        if (p->rel <= 0)
            return 0;
        p->worst = worst_rel(s, *values, show, *col);
        p->met = !isnan(p->worst) && p->worst <= p->rel;
        if (p->met || s->nseeds >= p->cap)
            return 0;
        s->nseeds = (int)gs_next_length(s->nseeds, p->worst, p->rel, p->cap);
    }
}

/* --precision's line on standard error: met or not, with how many seeds
 * (nothing without --precision). */
static void prec_line(const struct prec *p, int nseeds)
{
    if (p->rel > 0)
        fprintf(stderr, "gpusim: --precision %g: %s with %d seeds (the worst "
                "relative half-width %.3g)\n", p->rel,
                p->met ? "met" : "not met at the --max-seeds cap", nseeds,
                p->worst);
}

/* The --precision and --max-seeds values ('R', 'X'): 0, or 2 after the
 * usage error. */
static int precision_opt(int ch, const char *arg, double *prec, long *cap)
{
    char *end;
    if (ch == 'R') {
        *prec = strtod(arg, &end);
        if (*arg == '\0' || *end != '\0' || !(*prec > 0 && *prec < 1))
            return usage_error("sweep: --precision takes a relative "
                               "half-width above 0 and below 1 (0.05), not "
                               "'%s'", arg);
        return 0;
    }
    *cap = strtol(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || *cap < 2 || *cap > 10000)
        return usage_error("sweep: --max-seeds takes a whole number from 2 "
                           "to 10000, not '%s'", arg);
    return 0;
}

/* --seeds ('s') or --jobs ('j'): 0 with *v set, or the usage error's
 * status. */
static int count_opt(int ch, const char *arg, long *v)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || n < 1 || n > 10000)
        return usage_error(ch == 's' ? "sweep: --seeds takes a whole number "
                           "from 1 to 10000, not '%s'"
                           : "sweep: --jobs takes a whole number from 1 to "
                           "10000, not '%s'", arg);
    *v = n;
    return 0;
}

/* --list-metrics: every metric a run gives, one a line (the leader). */
static void list_metrics(void)
{
    if (gs_dist_leader())
        for (int m = 0; m < gs_run_nmetrics(); m++)
            printf("%s\n", gs_run_metric_name(m));
}

/* Seconds from t0 to now (monotonic). */
static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) +
           (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The closing line on standard error: runs, time, ranks and workers, and
 * where the results went. */
static void done_line(const struct sweep *s, double secs, long jobs,
                      const char *out)
{
    fprintf(stderr, "gpusim: %d runs (%d points x %d seeds) in %.2f s "
            "with %d rank%s x %ld workers; results in %s\n",
            s->npoints * s->nseeds, s->npoints, s->nseeds, secs,
            gs_dist_size(), gs_dist_size() == 1 ? "" : "s", jobs, out);
}

static int sweep_main(int argc, char **argv)
{
    const char *file = NULL, *out = NULL, *mlist = NULL;
    long seeds = 5, jobs = gs_dist_default_jobs(), max_seeds = 200;
    double precision = 0;
    int csv = 0, quiet = 0, force = 0, list = 0, ch;
    struct sweep s = { 0 };
    int status = 2;
    char *defout = NULL;
    optind = 0;             /* 0: a full restart (suggest.h) */
    opterr = 0;
    while ((ch = gs_cli_getopt(argc, argv, "+:s:j:o:fqh", opts, &file)) !=
           -1) {
        switch (ch) {
        case GS_CLI_EXTRA:
            status = usage_error("sweep: more than one scenario: '%s'",
                                 optarg);
            goto done;
        case 'S':
            if ((status = add_set(&s, optarg)) != 0)
                goto done;
            status = 2;
            break;
        case 's':
        case 'j':
            if ((status = count_opt(ch, optarg, ch == 's' ? &seeds : &jobs)))
                goto done;
            status = 2;
            break;
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'm': mlist = optarg; break;
        case 'l': list = 1; break;
        case 'c': csv = 1; break;
        case 'q': quiet = 1; break;
        case 'R':
        case 'X':
            if ((status = precision_opt(ch, optarg, &precision,
                                        &max_seeds)) != 0)
                goto done;
            status = 2;
            break;
        case 'h':
            if (gs_dist_leader())
                fputs(usage, stdout);
            status = 0;
            goto done;
        default:
            status = gs_dist_leader()
                         ? gs_suggest_bad_option("sweep", opts, argc, argv, ch)
                         : 2;
            goto done;
        }
    }
    if (list) {
        list_metrics();
        status = 0;
        goto done;
    }
    if (csv && quiet) {
        status = usage_error("%s", "sweep: --csv and --quiet contradict each "
                             "other; give one");
        goto done;
    }
    if (file == NULL) {
        status = usage_error("%s", "sweep: which scenario? (a JSON file, or "
                             "'quickstart')");
        goto done;
    }
    if (precision > 0 && mlist == NULL) {
        status = usage_error("%s", "sweep: --precision needs --metrics: the "
                             "metrics whose intervals it narrows");
        goto done;
    }
    struct gs_diag d = { 0 };
    struct gs_scenario *base = NULL;
    double *values = NULL, *table = NULL, *mean = NULL, *sd = NULL,
           *half = NULL, *col = NULL;
    int *show = NULL;
    if (gs_load_scenario(file, &base, &d) < 0) {
        status = gs_report_diag(&d, 2);
        goto out;
    }
    /* named after the scenario file, never replaced silently; the leader
     * decides for every rank before any run */
    if (gs_dist_out_check(file, "-sweep.h5", force, &out, &defout, &d) < 0) {
        status = gs_report_diag(&d, 2);
        goto out;
    }
    gs_run_bind(base);
    s.nm = gs_run_nmetrics();
    show = calloc((size_t)s.nm, sizeof *show);
    if (show == NULL)
        goto out;
    if ((status = pick_metrics(mlist, s.nm, show)) != 0)
        goto out;
    status = 2;
    if (build_points(&s, base, &d) < 0) {
        status = gs_report_diag(&d, 2);
        goto out;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct prec pc = { .rel = precision, .cap = max_seeds, .worst = NAN };
    status = run_points(&s, seeds, jobs, quiet || csv, show, &pc, &values,
                        &col, &d);
    if (status != 0)
        goto out;
    status = 2;
    size_t cells = (size_t)s.npoints * (size_t)s.nm;
    table = calloc(cells * 7, sizeof *table);
    mean = calloc(cells, sizeof *mean);
    sd = calloc(cells, sizeof *sd);
    half = calloc(cells, sizeof *half);
    if (!table || !mean || !sd || !half) {
        fprintf(stderr, "gpusim: out of memory\n");
        goto out;
    }
    double secs = seconds_since(&t0);
    summarize(&s, values, col, mean, sd, half, table);
    status = 0;
    if (gs_dist_leader()) {
        if (write_file(out, &s, base, values, table, &d) < 0) {
            status = gs_report_diag(&d, 1);
            goto out;
        }
        if (!quiet) {
            if (csv)
                print_csv(stdout, &s, show, mean, sd, half);
            else
                print_table(stdout, &s, base->name, show, mean, half);
            fflush(stdout);
        }
        prec_line(&pc, s.nseeds);
        done_line(&s, secs, jobs, out);
    }
out:
    free(show);
    free(values);
    free(table);
    free(mean);
    free(sd);
    free(half);
    free(col);
    gs_scenario_free(base);
done:
    free_sweep(&s);
    free(defout);
    return status;
}
