/* bench_plan.c -- the realistic capacity question: scenarios/
 * plan-mixed-tier.json (a week of mixed-tier work, H100 / A100 / H200
 * pools, an A100 spot option, four SLA targets, 5 seeds per candidate),
 * and the M/M/c question of scenarios/plan-erlang.json.  Times the whole
 * `gpusim plan` (search, right-sizing run, result file) with 2 workers and
 * with 1, and reports the CPU time of the workers too: on a loaded machine
 * wall time follows the CPU share, CPU time does not.  Target: the
 * realistic question under one minute on a 2-core machine. */
#include "benchutil.h"
#include "../sim/studies/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_s(void)
{
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec +
                    b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
           (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec +
                    b.ru_utime.tv_usec + b.ru_stime.tv_usec) / 1e6;
}

static int bench(const char *scenario, const char *jobs)
{
    char out[128];
    snprintf(out, sizeof out, "/tmp/bench-plan-%ld.h5", (long)getpid());
    char *argv[] = { (char *)scenario, "--quiet", "--no-plots", "--jobs",
                     (char *)jobs, "--out", out, NULL };
    double c0 = cpu_s(), t0 = bench_now();
    int rc = gs_plan_main(7, argv);
    double dt = bench_now() - t0, dc = cpu_s() - c0;
    unlink(out);
    if (rc != 0) {
        fprintf(stderr, "bench_plan: %s exited %d\n", scenario, rc);
        return 1;
    }
    printf("plan %-32s %s worker%s: %6.2f s wall, %6.2f s CPU\n", scenario,
           jobs, strcmp(jobs, "1") ? "s" : " ", dt, dc);
    return 0;
}

int main(void)
{
    if (bench("scenarios/plan-erlang.json", "2") ||
        bench("scenarios/plan-mixed-tier.json", "2") ||
        bench("scenarios/plan-mixed-tier.json", "1"))
        return 1;
    return 0;
}
