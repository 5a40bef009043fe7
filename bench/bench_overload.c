/* bench_overload.c -- every policy on a fleet that is too small.
 *
 * The setup of issue 10: 1,250 nodes of 8 H100s (10,000 GPUs), generated
 * jobs of 1-8 GPUs (mean 2.5) with lognormal durations (median 30 min,
 * sigma 1, so a mean of 49.5 min and 2.06 GPU-hours a job), in four tiers
 * (inference 10%, training 60%, interactive 20%, data 10%) spread over
 * eight tenants with 1,000 guaranteed GPUs each (what `fair` uses) and
 * three partitions by tier plus the rest (what `static` uses: 125, 750 and
 * 250 nodes, the data tier on the last 125).  At an offered load of 1.2 the
 * queue grows by a fifth of the arrivals: a million jobs leave some 100,000
 * waiting on average, so a policy whose pass looks at every waiting job
 * shows here at once.
 *
 * With no arguments, prints the overload table: for each policy the
 * seconds at 250 k, 500 k and 1 M jobs at load 1.2, the growth factor of
 * the time per job per doubling of the queue (1.0 = linear in the jobs, 2.0
 * = quadratic), the ratio to fifo's time on the 1 M run, and the policy's
 * work counter (entries read, counted by the core, gs_summary.policy_work)
 * per job.  Then 1 M jobs at load 0.95 for every policy.
 *     bench_overload POLICY JOBS LOAD    one run, for a profiler
 *     bench_overload --policies a,b     the table for some policies
 * POLICY may be NAME+PARAM, NAME with boolean PARAM true: the table ends
 * with priority+preempt (its victim search).
 * Times are CPU seconds of the process (parse, run, summary): on a shared
 * machine they move less than wall time, and the ratios measured in one
 * run are what to compare. */
#include "benchutil.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/setup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Offered load 1.0 on 10,000 GPUs: 10,000 / 2.061 GPU-hours a job. */
#define RATE_AT_1 4852.0

static const char scen[] =
"{\"name\": \"overload\", \"seed\": 1, \"sample_step\": \"5m\","
" \"fleet\": [{\"name\": \"h100\", \"gpu\": \"H100-80GB\", \"nodes\": 1250,"
"             \"gpus_per_node\": 8}],"
" \"tiers\": {\"training\": {\"checkpoint_interval\": \"20m\","
"                            \"restart_overhead\": \"1m\"}},"
" \"tenants\": [{\"name\": \"tenant1\", \"quota_gpus\": 1000},"
"   {\"name\": \"tenant2\", \"quota_gpus\": 1000},"
"   {\"name\": \"tenant3\", \"quota_gpus\": 1000},"
"   {\"name\": \"tenant4\", \"quota_gpus\": 1000},"
"   {\"name\": \"tenant5\", \"quota_gpus\": 1000},"
"   {\"name\": \"tenant6\", \"quota_gpus\": 1000},"
"   {\"name\": \"tenant7\", \"quota_gpus\": 1000},"
"   {\"name\": \"tenant8\", \"quota_gpus\": 1000}],"
" \"partitions\": ["
"   {\"name\": \"serve\", \"tier\": \"inference\", \"pool\": \"h100\","
"    \"nodes\": 125},"
"   {\"name\": \"train\", \"tier\": \"training\", \"pool\": \"h100\","
"    \"nodes\": 750},"
"   {\"name\": \"dev\", \"tier\": \"interactive\", \"pool\": \"h100\","
"    \"nodes\": 250}],"
" \"policy\": %s, \"placement\": \"best-fit\","
" \"workload\": {\"generate\": {\"jobs\": %ld, \"rate_per_hour\": %.3f,"
"   \"classes\": ["
"   {\"name\": \"serve\", \"tier\": \"inference\", \"weight\": 0.1, %s},"
"   {\"name\": \"train\", \"tier\": \"training\", \"weight\": 0.6, %s},"
"   {\"name\": \"dev\", \"tier\": \"interactive\", \"weight\": 0.2, %s},"
"   {\"name\": \"etl\", \"tier\": \"data\", \"weight\": 0.1, %s}]}}}";

static const char shape[] =
"\"tenants\": 8,"
" \"gpus\": {\"values\": [1, 2, 4, 8], \"weights\": [0.5, 0.2, 0.2, 0.1]},"
" \"duration\": {\"dist\": \"lognormal\", \"median\": \"30m\", \"sigma\": 1.0,"
"              \"max\": \"12h\"}";

struct run {
    double secs, work_per_job, util;
    long pending_end;
};

/* Modes with a path of their own, after the registry's policies:
 * NAME+PARAM is NAME with PARAM true. */
static const char *const variants[] = { "priority+preempt", NULL };

static int one(const char *policy, long jobs, double load, struct run *out)
{
    char text[4096], pol[160];
    const char *plus = strchr(policy, '+');
    if (plus)
        snprintf(pol, sizeof pol, "{\"name\": \"%.*s\", \"%s\": true}",
                 (int)(plus - policy), policy, plus + 1);
    else
        snprintf(pol, sizeof pol, "\"%s\"", policy);
    snprintf(text, sizeof text, scen, pol, jobs, load * RATE_AT_1, shape,
             shape, shape, shape);
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    double t0 = bench_cpu_now();
    if (gs_scenario_parse(text, "overload", ".", &sc, &d) < 0 ||
        gs_sim_new(sc, NULL, &sim, &d) < 0 || gs_sim_run(sim, &d) < 0) {
        char *m = gs_diag_message(&d);
        fprintf(stderr, "bench_overload: %s: %s\n", policy, m ? m : "");
        free(m);
        gs_diag_free(&d);
        gs_sim_free(sim);
        gs_scenario_free(sc);
        return 1;
    }
    const struct gs_summary *su = gs_sim_summary(sim);
    out->secs = bench_cpu_now() - t0;
    out->work_per_job = (double)su->policy_work / (double)jobs;
    out->util = su->util;
    out->pending_end = su->all.unfinished;
    gs_sim_free(sim);
    gs_scenario_free(sc);
    return 0;
}

int main(int argc, char **argv)
{
    struct run r;
    if (argc == 4) {
        if (one(argv[1], atol(argv[2]), atof(argv[3]), &r))
            return 1;
        printf("%s %s jobs at load %s: %.2f s, %.1f examined a job, "
               "util %.3f\n", argv[1], argv[2], argv[3], r.secs,
               r.work_per_job, r.util);
        return 0;
    }
    const char *only = NULL;
    if (argc == 3 && strcmp(argv[1], "--policies") == 0)
        only = argv[2];
    else if (argc != 1) {
        fprintf(stderr, "usage: bench_overload [POLICY JOBS LOAD | "
                "--policies a,b]\n");
        return 2;
    }
    static const long sizes[3] = { 250000, 500000, 1000000 };
    double fifo_1m = 0;
    printf("overload: 10,000 GPUs, load 1.2; CPU seconds, growth of time per "
           "job per doubling,\n          x fifo at 1 M, jobs examined per "
           "job at 250 k / 1 M\n");
    printf("%-14s %8s %8s %8s %7s %7s %9s %9s\n", "policy", "250k", "500k",
           "1M", "growth", "x fifo", "work/job", "work/job");
    int nreg = 0;
    while (gs_policies[nreg])
        nreg++;
    for (int i = 0; i < nreg || variants[i - nreg]; i++) {
        const char *name = i < nreg ? gs_policies[i]->name
                                    : variants[i - nreg];
        if (!bench_listed(only, name))
            continue;
        double t[3], w[3];
        for (int k = 0; k < 3; k++) {
            if (one(name, sizes[k], 1.2, &r))
                return 1;
            t[k] = r.secs;
            w[k] = r.work_per_job;
        }
        if (strcmp(name, "fifo") == 0)
            fifo_1m = t[2];
        /* time per job at 1 M over that at 250 k: two doublings */
        double growth = t[0] > 0 ? sqrt((t[2] / sizes[2]) /
                                        (t[0] / sizes[0])) : 0;
        printf("%-14s %8.2f %8.2f %8.2f %7.2f %7.2f %9.1f %9.1f\n", name,
               t[0], t[1], t[2], growth, fifo_1m > 0 ? t[2] / fifo_1m : 0,
               w[0], w[2]);
        fflush(stdout);
    }
    printf("\noverload: 1 M jobs at load 0.95\n%-14s %8s %7s\n", "policy",
           "1M", "x fifo");
    double base = 0;
    for (int i = 0; i < nreg || variants[i - nreg]; i++) {
        const char *name = i < nreg ? gs_policies[i]->name
                                    : variants[i - nreg];
        if (!bench_listed(only, name))
            continue;
        if (one(name, 1000000, 0.95, &r))
            return 1;
        if (strcmp(name, "fifo") == 0)
            base = r.secs;
        printf("%-14s %8.2f %7.2f\n", name, r.secs,
               base > 0 ? r.secs / base : 0);
        fflush(stdout);
    }
    return 0;
}
