/* replay.c -- recorded against replayed waits (replay.h).
 *
 * The KS statistic is computed exactly by walking both sorted samples
 * together (ties advance both), so D is one of the finitely many values
 * |i/n1 - j/n2|.  Its p-value is asymptotic (Numerical Recipes, 3rd ed.,
 * section 14.3.3): lambda = (sqrt(ne) + 0.12 + 0.11/sqrt(ne)) D with
 * ne = n1 n2 / (n1 + n2), p = Q_KS(lambda); fine above a handful of jobs,
 * conservative below.  Quantiles are GSL's (interpolated, of sorted data). */
#include "replay.h"
#include "pool.h"
#include "../setup/setup.h"
#include "../io/outfile.h"
#include "../setup/scenario.h"
#include "../../traces/cimport.h"
#include "../../traces/dcgm.h"

#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double gs_ks_q(double lambda)
{
    if (lambda < 1e-3)
        return 1.0;
    double sum = 0, sign = 1, a2 = -2.0 * lambda * lambda;
    for (int j = 1; j <= 100; j++) {
        double term = sign * exp(a2 * j * j);
        sum += term;
        if (fabs(term) < 1e-12 * fabs(sum))
            break;
        sign = -sign;
    }
    double q = 2.0 * sum;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

int gs_ks_two_sample(const double *a, long na, const double *b, long nb,
                     struct gs_ks *out)
{
    memset(out, 0, sizeof *out);
    if (na < 1 || nb < 1)
        return GS_EINVAL;
    double *x = malloc((size_t)na * sizeof *x);
    double *y = malloc((size_t)nb * sizeof *y);
    if (x == NULL || y == NULL) {
        free(x);
        free(y);
        return GS_ENOMEM;
    }
    memcpy(x, a, (size_t)na * sizeof *x);
    memcpy(y, b, (size_t)nb * sizeof *y);
    gsl_sort(x, 1, (size_t)na);
    gsl_sort(y, 1, (size_t)nb);
    long i = 0, j = 0;
    double d = 0;
    while (i < na && j < nb) {
        double v = x[i] < y[j] ? x[i] : y[j];
        while (i < na && x[i] == v)
            i++;
        while (j < nb && y[j] == v)
            j++;
        double diff = fabs((double)i / na - (double)j / nb);
        if (diff > d)
            d = diff;
    }
    free(x);
    free(y);
    double ne = (double)na * nb / (double)(na + nb), s = sqrt(ne);
    out->d = d;
    out->p = gs_ks_q((s + 0.12 + 0.11 / s) * d);
    out->n1 = na;
    out->n2 = nb;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const struct gs_jobrec *x = *(const struct gs_jobrec *const *)a;
    const struct gs_jobrec *y = *(const struct gs_jobrec *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* The differences' summary, over r->v. */
static int replay_stats(struct gs_replay *r)
{
    long n = r->n;
    double *rec = malloc((size_t)n * sizeof *rec);
    double *sim = malloc((size_t)n * sizeof *sim);
    double *dif = malloc((size_t)n * sizeof *dif);
    double *ad = malloc((size_t)n * sizeof *ad);
    int rc = rec && sim && dif && ad ? 0 : GS_ENOMEM;
    for (long i = 0; rc == 0 && i < n; i++) {
        rec[i] = r->v[i].recorded_s;
        sim[i] = r->v[i].simulated_s;
        dif[i] = sim[i] - rec[i];
        ad[i] = fabs(dif[i]);
        r->within_1m += ad[i] <= 60.0;
        r->within_10m += ad[i] <= 600.0;
    }
    if (rc == 0)
        rc = gs_ks_two_sample(rec, n, sim, n, &r->ks);
    if (rc == 0) {
        r->within_1m /= (double)n;
        r->within_10m /= (double)n;
        r->diff_mean = gsl_stats_mean(dif, 1, (size_t)n);
        r->absdiff_mean = gsl_stats_mean(ad, 1, (size_t)n);
        gsl_sort(dif, 1, (size_t)n);
        gsl_sort(ad, 1, (size_t)n);
        r->diff_median = gsl_stats_quantile_from_sorted_data(dif, 1,
                                                             (size_t)n, 0.5);
        r->absdiff_p90 = gsl_stats_quantile_from_sorted_data(ad, 1, (size_t)n,
                                                             0.9);
    }
    free(rec);
    free(sim);
    free(dif);
    free(ad);
    return rc;
}

int gs_replay_compare(const int64_t *id, const int64_t *wait_ms, long n,
                      const struct gs_jobrec *rec, long nrec,
                      struct gs_replay *out)
{
    memset(out, 0, sizeof *out);
    out->recorded = n;
    const struct gs_jobrec **idx = malloc((size_t)(nrec ? nrec : 1) *
                                          sizeof *idx);
    out->v = malloc((size_t)(n ? n : 1) * sizeof *out->v);
    if (idx == NULL || out->v == NULL) {
        free(idx);
        gs_replay_free(out);
        return GS_ENOMEM;
    }
    for (long i = 0; i < nrec; i++)
        idx[i] = &rec[i];
    qsort(idx, (size_t)nrec, sizeof *idx, by_id);
    for (long i = 0; i < n; i++) {
        struct gs_jobrec key = { .id = id[i] };
        const struct gs_jobrec *kp = &key;
        const struct gs_jobrec **hit = bsearch(&kp, idx, (size_t)nrec,
                                               sizeof *idx, by_id);
        if (hit == NULL)
            continue;
        out->matched++;
        if ((*hit)->start < 0) {
            out->unstarted++;
            continue;
        }
        struct gs_replay_job *j = &out->v[out->n++];
        j->id = id[i];
        j->arrival_s = (double)(*hit)->arrival / 1000.0;
        j->recorded_s = (double)wait_ms[i] / 1000.0;
        j->simulated_s = (double)((*hit)->start - (*hit)->arrival) / 1000.0;
    }
    free(idx);
    if (out->n == 0) {
        gs_replay_free(out);
        return GS_EINVAL;
    }
    int rc = replay_stats(out);
    if (rc < 0)
        gs_replay_free(out);
    return rc;
}

void gs_replay_free(struct gs_replay *r)
{
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

/* One line of a wait distribution. */
static void dist_line(FILE *fp, const char *name, double *x, long n)
{
    gsl_sort(x, 1, (size_t)n);
    static const double q[] = { 0.1, 0.25, 0.5, 0.75, 0.9, 0.99 };
    fprintf(fp, "  %-10s %9.1f", name, gsl_stats_mean(x, 1, (size_t)n));
    for (int i = 0; i < 6; i++)
        fprintf(fp, " %9.1f", gsl_stats_quantile_from_sorted_data(
                    x, 1, (size_t)n, q[i]));
    fprintf(fp, " %9.1f\n", x[n - 1]);
}

static int by_absdiff(const void *a, const void *b)
{
    const struct gs_replay_job *x = a, *y = b;
    double dx = fabs(x->simulated_s - x->recorded_s);
    double dy = fabs(y->simulated_s - y->recorded_s);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

void gs_replay_print(FILE *fp, const struct gs_replay *r, int k)
{
    long n = r->n;
    fprintf(fp, "  jobs        %ld recorded with a start; %ld in the replay, "
            "%ld of them started (%ld never started: not in the "
            "distributions)\n", r->recorded, r->matched, n, r->unstarted);
    double *x = malloc((size_t)n * sizeof *x);
    struct gs_replay_job *s = malloc((size_t)n * sizeof *s);
    if (x == NULL || s == NULL) {
        free(x);
        free(s);
        fprintf(fp, "  (out of memory for the table)\n");
        return;
    }
    fprintf(fp, "\n  wait (s)        mean       p10       p25       p50       "
            "p75       p90       p99       max\n");
    for (long i = 0; i < n; i++)
        x[i] = r->v[i].recorded_s;
    dist_line(fp, "recorded", x, n);
    for (long i = 0; i < n; i++)
        x[i] = r->v[i].simulated_s;
    dist_line(fp, "replayed", x, n);
    fprintf(fp, "\n  KS          D = %.4f (two-sample, n = %ld), p = %.4g%s\n",
            r->ks.d, n, r->ks.p, r->ks.p < 0.05 ? "  -- the replay's waits "
            "differ from the cluster's (5% level)" : "");
    fprintf(fp, "  per job     replayed - recorded: mean %+.1f s, median "
            "%+.1f s; |difference| mean %.1f s, p90 %.1f s; within 1 min "
            "%.1f %%, within 10 min %.1f %%\n", r->diff_mean, r->diff_median,
            r->absdiff_mean, r->absdiff_p90, 100 * r->within_1m,
            100 * r->within_10m);
    memcpy(s, r->v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, by_absdiff);
    fprintf(fp, "\n  largest differences\n  %10s %12s %12s %12s %12s\n", "job",
            "arrival s", "recorded s", "replayed s", "difference");
    for (long i = 0; i < n && i < k; i++)
        fprintf(fp, "  %10lld %12.1f %12.1f %12.1f %+12.1f\n",
                (long long)s[i].id, s[i].arrival_s, s[i].recorded_s,
                s[i].simulated_s, s[i].simulated_s - s[i].recorded_s);
    free(x);
    free(s);
}

/* --- the command ------------------------------------------------------------ */

static const char usage_replay[] =
"usage: gpusim replay-check SCENARIO [options]\n"
"\n"
"Replay a scenario whose workload is a cluster's own history (k8s-pods or\n"
"slurm-sacct) and report how far the replay's waits are from the waits the\n"
"cluster recorded: both distributions, the two-sample Kolmogorov-Smirnov\n"
"statistic and its p-value, per-job differences and the largest ones.\n"
"Run it under a policy like the cluster's (fifo for the default Kubernetes\n"
"scheduler without queueing; priority or fifo-backfill for Slurm) before\n"
"trusting a what-if on that history.\n"
"\n"
"options:\n"
"  -p, --policy P        the policy (default: the scenario's)\n"
"      --placement P     the placement plug-in\n"
"  -s, --seed N          the seed\n"
"      --dcgm FILE       DCGM range-query exports of the same period (any\n"
"                        number of --dcgm): GPUs allocated by the hour,\n"
"                        measured against replayed\n"
"      --jobs FILE       write the per-job table (CSV: id, arrival_s,\n"
"                        recorded_wait_s, replayed_wait_s, difference_s)\n"
"      --top K           list the K largest differences (default 10)\n"
"      --max-ks D        exit 1 when the KS statistic exceeds D (for CI)\n"
"  -h, --help            this text\n"
"\n"
"exit status: 0 done, 1 --max-ks exceeded or output not written, 2 bad\n"
"usage or bad input\n";

static const struct option replay_opts[] = {
    { "policy", required_argument, NULL, 'p' },
    { "placement", required_argument, NULL, 'P' },
    { "seed", required_argument, NULL, 's' },
    { "dcgm", required_argument, NULL, 'D' },
    { "jobs", required_argument, NULL, 'J' },
    { "top", required_argument, NULL, 'k' },
    { "max-ks", required_argument, NULL, 'K' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

struct rargs {
    const char *file, *jobs;
    const char *dcgm[64];
    int ndcgm, top;
    double max_ks;
    struct gs_sim_opts o;
};

static int rusage(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpusim: replay-check: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'gpusim help replay-check')\n");
    return 2;
}

static int replay_args(struct rargs *a, int argc, char **argv)
{
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:p:s:h", replay_opts, NULL)) != -1 ||
           optind < argc) {
        char *end;
        if (c == -1) {
            if (a->file != NULL)
                return rusage("more than one scenario: '%s'", argv[optind]);
            a->file = argv[optind++];
            continue;
        }
        switch (c) {
        case 'p': a->o.policy = optarg; break;
        case 'P': a->o.placer = optarg; break;
        case 's':
            a->o.seed = strtoull(optarg, &end, 10);
            if (*optarg == '\0' || *optarg == '-' || *end != '\0')
                return rusage("--seed takes a whole number, not '%s'", optarg);
            a->o.set_seed = 1;
            break;
        case 'D':
            if (a->ndcgm == 64)
                return rusage("%s", "at most 64 --dcgm files");
            a->dcgm[a->ndcgm++] = optarg;
            break;
        case 'J': a->jobs = optarg; break;
        case 'k':
            a->top = (int)strtol(optarg, &end, 10);
            if (*end != '\0' || a->top < 0 || a->top > 1000000)
                return rusage("--top takes a count, not '%s'", optarg);
            break;
        case 'K':
            a->max_ks = strtod(optarg, &end);
            if (*end != '\0' || !(a->max_ks >= 0 && a->max_ks <= 1))
                return rusage("--max-ks takes a statistic in [0, 1], not '%s'",
                              optarg);
            break;
        case 'h':
            fputs(usage_replay, stdout);
            return 1;
        default:
            return rusage("unknown or incomplete option '%s'",
                          argv[optind - 1]);
        }
    }
    if (a->file == NULL)
        return rusage("%s", "which scenario?");
    /* a table that cannot be written (past PATH_MAX, a folder, a device)
     * is bad usage, said before the replay */
    struct gs_diag d = { 0 };
    if (a->jobs && gs_out_check(a->jobs, &d) < 0) {
        char *msg = gs_diag_message(&d);
        gs_diag_free(&d);
        int rc = rusage("--jobs: %s", msg ? msg : gs_strerror(GS_ENOMEM));
        free(msg);
        return rc;
    }
    return 0;
}

/* The per-job CSV, written whole or not at all. */
static int write_jobs(const char *path, const struct gs_replay *r,
                      struct gs_diag *d)
{
    struct gs_out out;
    int rc = gs_out_begin(&out, path, d);
    if (rc < 0)
        return rc;
    FILE *fp = fdopen(out.fd, "w");
    if (fp == NULL) {
        gs_out_abort(&out);
        return gs_diag_set(d, GS_EIO, path, "cannot write");
    }
    out.fd = -1;
    fprintf(fp, "id,arrival_s,recorded_wait_s,replayed_wait_s,"
            "difference_s\n");
    for (long i = 0; i < r->n; i++)
        fprintf(fp, "%lld,%.3f,%.3f,%.3f,%.3f\n", (long long)r->v[i].id,
                r->v[i].arrival_s, r->v[i].recorded_s, r->v[i].simulated_s,
                r->v[i].simulated_s - r->v[i].recorded_s);
    if (fclose(fp) != 0) {
        gs_out_abort(&out);
        return gs_diag_set(d, GS_EIO, path, "write error");
    }
    return gs_out_commit(&out, d);
}

int gs_replay_main(int argc, char **argv)
{
    struct rargs a = { .top = 10, .max_ks = -1 };
    int rc = replay_args(&a, argc, argv);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    struct gs_diag d = { 0 };
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_replay r = { 0 };
    if (gs_pool_deadline("replay-check", a.file) < 0) {
        fprintf(stderr, "gpusim: out of memory\n");
        return 2;
    }
    gs_cimp_history_clear();
    if ((rc = gs_scenario_load(a.file, &sc, &d)) == 0 &&
        (rc = gs_sim_new(sc, &a.o, &sim, &d)) == 0)
        rc = gs_sim_run(sim, &d);
    const struct gs_cimp_history *h = gs_cimp_history();
    if (rc == 0 && h->n == 0)
        rc = gs_diag_set(&d, GS_EINVAL, a.file, "the workload recorded no "
                         "start: replay-check needs a cluster's history "
                         "(workload.trace format k8s-pods or slurm-sacct)");
    long nrec = 0;
    const struct gs_jobrec *rec = rc == 0 ? gs_sim_records(sim, &nrec) : NULL;
    if (rc == 0 && (rc = gs_replay_compare(h->id, h->wait, h->n, rec, nrec,
                                           &r)) < 0)
        gs_diag_set(&d, rc, a.file, rc == GS_ENOMEM ? "out of memory"
                    : "no recorded job started in the replay");
    if (rc == 0) {
        printf("gpusim replay-check  scenario %s  policy %s  seed %llu\n\n",
               sc->name, a.o.policy ? a.o.policy : sc->policy,
               (unsigned long long)(a.o.set_seed ? a.o.seed : sc->seed));
        printf("  recorded    a wait is %s\n", h->basis[0] ? h->basis
               : "start - arrival");
        printf("  replayed    a wait is placement - arrival: the time in the "
               "queue (the replay models no start-up latency)\n");
        gs_replay_print(stdout, &r, a.top);
        if (a.ndcgm)
            rc = gs_replay_util_print(stdout, a.dcgm, a.ndcgm, sim,
                                      h->origin_ms, &d);
    }
    if (rc == 0 && a.jobs && write_jobs(a.jobs, &r, &d) < 0)
        rc = 1;
    int exceeded = rc == 0 && a.max_ks >= 0 && r.ks.d > a.max_ks;
    if (exceeded)
        fprintf(stderr, "gpusim: replay-check: KS statistic %.4f exceeds "
                "--max-ks %g\n", r.ks.d, a.max_ks);
    if (rc != 0)
        gs_diag_print(stderr, "gpusim: ", &d);
    gs_diag_free(&d);
    gs_replay_free(&r);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_cimp_history_clear();
    gs_pool_deadline(NULL, NULL);
    return rc == 1 ? 1 : rc < 0 ? 2 : exceeded ? 1 : 0;
}
