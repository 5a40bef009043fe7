/* bench_e2e.c -- one million generated jobs on 10,000 GPUs, fifo-backfill.
 *
 * 1,250 nodes of 8 H100s; jobs of 1-8 GPUs with lognormal durations
 * (median 30 min, sigma 1) at about 85% offered load.  Times the whole
 * simulation (scenario parse, run, summary) and, separately, writing the
 * HDF5 result file.  Targets: under 5 s and 1 GiB peak on one core.
 * Peak RSS is the process's so far, so later lines include earlier runs'. */
#include "benchutil.h"
#include "../sim/h5out.h"
#include "../sim/scenario.h"
#include "../sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char scen[] =
"{\"name\": \"bench-e2e\", \"seed\": 1, \"sample_step\": \"5m\","
" \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1250, \"gpus_per_node\": 8}],"
" \"policy\": \"%s\", \"placement\": \"%s\","
" \"workload\": {\"generate\": {\"jobs\": %ld, \"rate_per_hour\": %g,"
"   \"classes\": [{\"tenants\": 20,"
"     \"gpus\": {\"values\": [1, 2, 4, 8], \"weights\": [0.5, 0.2, 0.2, 0.1]},"
"     \"duration\": {\"dist\": \"lognormal\", \"median\": \"30m\","
"                    \"sigma\": 1.0, \"max\": \"12h\"}}]}}}";

static int bench(const char *policy, const char *placer, long jobs,
                 double rate, int h5)
{
    char text[2048];
    snprintf(text, sizeof text, scen, policy, placer, jobs, rate);
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    double t0 = bench_now();
    if (gs_scenario_parse(text, "bench", ".", &sc, &d) < 0 ||
        gs_sim_new(sc, NULL, &sim, &d) < 0 || gs_sim_run(sim, &d) < 0) {
        char m[1200];
        gs_diag_format(&d, m, sizeof m);
        fprintf(stderr, "bench: %s\n", m);
        return 1;
    }
    double dt = bench_now() - t0;
    const struct gs_summary *su = gs_sim_summary(sim);
    uint64_t ev = gs_sim_events(sim);
    printf("e2e %-14s %-9s %ld jobs, load %.2f: %.2f s wall, "
           "%.2f M events/s, %.0f k jobs/s, util %.1f%%, mean wait %.0f s, "
           "peak RSS %.0f MiB\n", policy, placer, jobs, rate / 4126 * 0.85,
           dt, ev / dt / 1e6, jobs / dt / 1e3, 100 * su->util,
           su->all.wait_mean, bench_peak_rss_mib());
    if (h5) {
        char path[] = "/tmp/gs-bench-XXXXXX.h5";
        int fd = mkstemps(path, 3);
        close(fd);
        t0 = bench_now();
        if (gs_h5_write(path, sim, &d) == 0)
            printf("    writing the HDF5 result (%ld job rows): %.2f s\n",
                   jobs, bench_now() - t0);
        unlink(path);
    }
    gs_sim_free(sim);
    gs_scenario_free(sc);
    return 0;
}

int main(void)
{
    int rc = bench("fifo-backfill", "best-fit", 1000000, 4126, 1);
    rc |= bench("fifo-backfill", "first-fit", 1000000, 4126, 0);
    rc |= bench("fifo", "best-fit", 1000000, 4126, 0);
    rc |= bench("priority", "best-fit", 1000000, 4126, 0);
    /* Overloaded (110%): the queue grows all run long; a scan that looked at
     * every pending job for every event would show here. */
    rc |= bench("fifo-backfill", "best-fit", 200000, 4126 * 1.1 / 0.85, 0);
    return rc;
}
