/* bench_tenants.c -- every policy against fifo as tenants and partitions
 * grow: the ratios side by side, and a check that none passes 2x.
 *
 * The fleet and workload of bench_overload.c (issue 10): 1,250 nodes of 8
 * H100s (10,000 GPUs), jobs of 1-8 GPUs (mean 2.5) with lognormal
 * durations (median 30 min, sigma 1), four tiers (inference 10%, training
 * 60%, interactive 20%, data 10%), at an offered load of 1.2 (the queue
 * grows by a fifth of the arrivals) and 0.95.  What changes is the number
 * of tenants T: the jobs are spread uniformly over T tenants, each with a
 * GPU quota (what fair uses), and T partitions up to 64 (what static
 * uses), partition i holding tenant i's jobs on 1,250 / P nodes (tenants
 * past the 64th share the nodes no partition took).  Two quota settings:
 * "full", quotas adding up to the fleet (10,000 / T each: a tenant borrows
 * only what others leave idle), and "half", quotas adding up to half of it
 * (the other half is only ever borrowed).
 *
 * For each (T, quota setting, load) every policy runs on the same
 * workload; a row gives its CPU seconds (parse, run, summary), its time
 * over fifo's in the same row, and the work counter per job
 * (gs_summary.policy_work: waiting or running jobs, groups and tenants a
 * pass read, counted by the core as its accessors and containers hand
 * them over, plus one per placement the core is asked for:
 * sim/core/look.h).  The policies are the
 * registry's,
 * plus the modes with paths of their own: priority+preempt (its victim
 * search) and fair-noreclaim (fair without preemption).
 *
 *     bench_tenants                         the check's matrix (200 k jobs,
 *                                           T = 1, 16, 256, both loads,
 *                                           both quota settings)
 *     bench_tenants --full                  T = 1, 4, 16, 64, 256 and
 *                                           200 k and 1 M jobs
 *     bench_tenants [--jobs N] [--tenants 1,16,...] [--loads 1.2,0.95]
 *                   [--quotas full,half] [--policies a,b] [--reps R]
 *
 * Each cell is the median of --reps runs (1 unless given).  The exit status
 * is 1 when any policy's ratio to fifo passes 2 (the check `make bench`
 * runs), or when a policy's work per job at the largest T passes its work
 * at T = 1 times 1 + log2(T) (work may grow at most logarithmically with
 * the tenants).  Times are CPU seconds of this process: on a shared
 * machine they move less than wall time, and only the ratios measured in
 * one run are to be compared. */
#include "benchutil.h"
#include "../policies/policy.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/setup.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Offered load 1.0 on 10,000 GPUs: 10,000 / 2.061 GPU-hours a job. */
#define RATE_AT_1 4852.0
#define NODES 1250
#define MAXPARTS 64
#define LIMIT 2.0

static const char shape[] =
" \"gpus\": {\"values\": [1, 2, 4, 8], \"weights\": [0.5, 0.2, 0.2, 0.1]},"
" \"duration\": {\"dist\": \"lognormal\", \"median\": \"30m\", \"sigma\": 1.0,"
"              \"max\": \"12h\"}";

/* A growing string. */
struct buf { char *s; size_t n, cap; };

static void put(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap * 2 + (size_t)(k > 0 ? k : 0) + 256;
        if ((b->s = realloc(b->s, b->cap)) == NULL) {
            fprintf(stderr, "bench_tenants: out of memory\n");
            exit(2);
        }
    }
}

/* The scenario: T tenants, quota share q of the fleet, policy pol (JSON). */
static char *scenario(int T, double q, const char *pol, long jobs,
                      double load)
{
    struct buf b = { NULL, 0, 0 };
    put(&b, "{\"name\": \"tenants\", \"seed\": 1, \"sample_step\": \"5m\","
        " \"fleet\": [{\"name\": \"h100\", \"gpu\": \"H100-80GB\", "
        "\"nodes\": %d, \"gpus_per_node\": 8}],"
        " \"tiers\": {\"training\": {\"checkpoint_interval\": \"20m\","
        " \"restart_overhead\": \"1m\"}}, \"tenants\": [", NODES);
    for (int i = 0; i < T; i++)
        put(&b, "%s{\"name\": \"tenant%d\", \"quota_gpus\": %.4f}",
            i ? ", " : "", i + 1, q * NODES * 8 / T);
    int P = T < MAXPARTS ? T : MAXPARTS;
    put(&b, "], \"partitions\": [");
    for (int i = 0; i < P; i++)
        put(&b, "%s{\"name\": \"p%d\", \"tenant\": \"tenant%d\", "
            "\"pool\": \"h100\", \"nodes\": %d}", i ? ", " : "", i + 1,
            i + 1, NODES / P);
    put(&b, "], \"policy\": %s, \"placement\": \"best-fit\","
        " \"workload\": {\"generate\": {\"jobs\": %ld, \"rate_per_hour\": "
        "%.3f, \"classes\": [", pol, jobs, load * RATE_AT_1);
    static const char *const tiers[4] = { "inference", "training",
                                          "interactive", "data" };
    static const double w[4] = { 0.1, 0.6, 0.2, 0.1 };
    for (int k = 0; k < 4; k++)
        put(&b, "%s{\"name\": \"c%d\", \"tier\": \"%s\", \"weight\": %g, "
            "\"tenants\": %d, %s}", k ? ", " : "", k, tiers[k], w[k], T,
            shape);
    put(&b, "]}}}");
    return b.s;
}

struct run { double secs, work_per_job; };

/* One run; policy is NAME, NAME+PARAM (PARAM true) or fair-noreclaim. */
static int one(const char *policy, int T, double q, long jobs, double load,
               struct run *out)
{
    char pol[160];
    const char *plus = strchr(policy, '+');
    if (strcmp(policy, "fair-noreclaim") == 0)
        snprintf(pol, sizeof pol, "{\"name\": \"fair\", \"reclaim\": false}");
    else if (plus)
        snprintf(pol, sizeof pol, "{\"name\": \"%.*s\", \"%s\": true}",
                 (int)(plus - policy), policy, plus + 1);
    else
        snprintf(pol, sizeof pol, "\"%s\"", policy);
    char *text = scenario(T, q, pol, jobs, load);
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    double t0 = bench_cpu_now();
    int rc = 0;
    if (gs_scenario_parse(text, "tenants", ".", &sc, &d) < 0 ||
        gs_sim_new(sc, NULL, &sim, &d) < 0 || gs_sim_run(sim, &d) < 0) {
        char m[1200];
        gs_diag_format(&d, m, sizeof m);
        fprintf(stderr, "bench_tenants: %s, %d tenants: %s\n", policy, T, m);
        rc = 1;
    } else {
        const struct gs_summary *su = gs_sim_summary(sim);
        out->secs = bench_cpu_now() - t0;
        out->work_per_job = (double)su->policy_work / (double)jobs;
    }
    gs_sim_free(sim);
    gs_scenario_free(sc);
    free(text);
    return rc;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int median(const char *policy, int T, double q, long jobs,
                  double load, int reps, struct run *out)
{
    double t[16];
    for (int r = 0; r < reps; r++) {
        if (one(policy, T, q, jobs, load, out))
            return 1;
        t[r] = out->secs;
    }
    qsort(t, (size_t)reps, sizeof *t, by_value);
    out->secs = t[reps / 2];
    return 0;
}

/* Comma-separated numbers into v (at most max); their count. */
static int numbers(const char *s, double *v, int max)
{
    int n = 0;
    while (s && *s && n < max) {
        char *end;
        v[n++] = strtod(s, &end);
        s = *end == ',' ? end + 1 : end + strlen(end);
    }
    return n;
}

#define MAXPOL 64

int main(int argc, char **argv)
{
    double tenants[8] = { 1, 16, 256 }, loads[4] = { 1.2, 0.95 };
    double sizes[4] = { 200000 };
    int nt = 3, nl = 2, ns = 1, reps = 1;
    const char *only = NULL, *quotas = "full,half";
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--full") == 0) {
            nt = numbers("1,4,16,64,256", tenants, 8);
            ns = numbers("200000,1000000", sizes, 4);
        } else if (strcmp(argv[i], "--jobs") == 0 && v) {
            ns = numbers(v, sizes, 4), i++;
        } else if (strcmp(argv[i], "--tenants") == 0 && v) {
            nt = numbers(v, tenants, 8), i++;
        } else if (strcmp(argv[i], "--loads") == 0 && v) {
            nl = numbers(v, loads, 4), i++;
        } else if (strcmp(argv[i], "--quotas") == 0 && v) {
            quotas = v, i++;
        } else if (strcmp(argv[i], "--policies") == 0 && v) {
            only = v, i++;
        } else if (strcmp(argv[i], "--reps") == 0 && v) {
            reps = atoi(v), i++;
        } else {
            fprintf(stderr, "usage: bench_tenants [--full] [--jobs N,...] "
                    "[--tenants T,...] [--loads L,...] [--quotas full,half] "
                    "[--policies a,b] [--reps R]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 15 || nt < 1 || nl < 1 || ns < 1) {
        fprintf(stderr, "bench_tenants: --reps 1 to 15, and a value for "
                "each list\n");
        return 2;
    }
    const char *pols[MAXPOL];
    int np = 0;
    pols[np++] = "fifo";
    for (int i = 0; gs_policies[i] && np < MAXPOL - 2; i++)
        if (strcmp(gs_policies[i]->name, "fifo") != 0 &&
            bench_listed(only, gs_policies[i]->name))
            pols[np++] = gs_policies[i]->name;
    if (bench_listed(only, "priority+preempt"))
        pols[np++] = "priority+preempt";
    if (bench_listed(only, "fair-noreclaim"))
        pols[np++] = "fair-noreclaim";
    printf("tenants: 10,000 GPUs; CPU seconds and x fifo (same row); work "
           "per job in brackets;\n         median of %d; T tenants with "
           "quotas, min(T, 64) static partitions\n", reps);
    int bad = 0;
    static double w1[MAXPOL][4][2][4];     /* work/job at the first T */
    for (int s = 0; s < ns; s++)
    for (int qi = 0; qi < 2; qi++) {
        const char *qname = qi == 0 ? "full" : "half";
        if (!bench_listed(quotas, qname))
            continue;
        for (int l = 0; l < nl; l++) {
            printf("\n%.0f jobs, load %.2f, quotas %s\n%-17s", sizes[s],
                   loads[l], qname, "T");
            for (int p = 0; p < np; p++)
                printf(" %16s", pols[p]);
            printf("\n");
            for (int t = 0; t < nt; t++) {
                int T = (int)tenants[t];
                printf("%-17d", T);
                double base = 0;
                for (int p = 0; p < np; p++) {
                    struct run r;
                    if (median(pols[p], T, qi == 0 ? 1.0 : 0.5,
                               (long)sizes[s], loads[l], reps, &r))
                        return 1;
                    if (p == 0)
                        base = r.secs;
                    double x = base > 0 ? r.secs / base : 0;
                    if (t == 0)
                        w1[p][s][qi][l] = r.work_per_job;
                    double wl = w1[p][s][qi][l] * (1 + log2(T)) + 1;
                    int over = x > LIMIT, wover = r.work_per_job > wl;
                    bad += over + wover;
                    char cell[64];
                    snprintf(cell, sizeof cell, "%.2f %4.2fx%s[%.0f%s]",
                             r.secs, x, over ? "!" : "", r.work_per_job,
                             wover ? "!" : "");
                    printf(" %16s", cell);
                    fflush(stdout);
                }
                printf("\n");
            }
        }
    }
    if (bad)
        printf("\ntenants: %d cells past %.0fx fifo or past logarithmic "
               "work growth (marked !)\n", bad, LIMIT);
    else
        printf("\ntenants: every policy within %.0fx fifo, work growing at "
               "most logarithmically with tenants\n", LIMIT);
    return bad ? 1 : 0;
}
