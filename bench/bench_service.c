/* bench_service.c -- inference services end to end: simulated requests per
 * CPU second, and the Azure code trace replayed on 8 replicas.
 *
 * 1. One service of Llama-3-8B on 16 H100 replicas, 1,000,000 generated
 *    requests (lognormal prompts, median 300 tokens, and outputs, median
 *    100), Poisson arrivals at 60% and at 120% of what the replicas
 *    sustain.  Saturated, they serve about 365 requests/s (3,092 output
 *    tokens/s per GPU on 16 GPUs over a mean output of 135 tokens,
 *    measured at 600 requests/s offered; 362/s at 440) under issue 24's
 *    serving model with a prefilling iteration's host cost per layer (the
 *    fixed 20.6 ms per iteration before it gave about 213/s and the rates
 *    128 and 256; the model before that 475/s and 285 and 570), so the
 *    rates are 220 and 440 requests/s.  At 120% the engines' queues grow all
 *    run long (to tens of thousands of requests
 *    waiting), which must not make a request cost more to simulate.  The
 *    whole simulation (scenario parse, run, summary with its exact
 *    percentiles) is timed.  Target: >= 1,000,000 requests/s on one core.
 * 2. The one-hour Azure LLM code trace (8,819 requests,
 *    ../shared/traces; skipped when absent) on 8 Llama-2-7B replicas.
 *    Target: under 0.1 s.
 * 3. Case 1 at 60% through `gpusim run` as a user runs it (the binary
 *    $GPUSIM, which make bench sets), its HDF5 result file written: CPU
 *    seconds of the child process.  Target (issue 27): >= 1 M requests/s.
 * Each figure is the median of 5 runs (of 7 pairs for case 1 at 60%,
 * each a run in this process beside a `gpusim run`: cli_bench), in CPU
 * seconds of the process (the wall time, which a loaded machine
 * stretches, is printed beside it). */
#include "benchutil.h"
#include "../sim/setup/scenario.h"
#include "../sim/inference/service.h"
#include "../sim/setup/setup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define AZURE "../shared/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv"

static const char gen[] =
"{\"name\": \"bench-service\", \"seed\": 1, \"sample_step\": \"5m\","
" \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2, \"gpus_per_node\": 8}],"
" \"services\": [{\"name\": \"chat\", \"model\": \"llama3-8b\","
"   \"gpu\": \"H100-80GB\", \"replicas\": 16, \"load_bandwidth_gbs\": 5,"
"   \"requests\": {\"generate\": {\"rate_per_second\": %d, \"requests\": %ld,"
"     \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 300,"
"        \"sigma\": 0.8, \"max\": 4000},"
"     \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 100,"
"        \"sigma\": 0.8, \"max\": 1000}}}}]}";

static const char azure[] =
"{\"name\": \"bench-azure\", \"seed\": 1,"
" \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1, \"gpus_per_node\": 8}],"
" \"services\": [{\"name\": \"code\", \"model\": \"llama2-7b\","
"   \"gpu\": \"H100-80GB\", \"replicas\": 8,"
"   \"requests\": {\"trace\": {\"format\": \"azure-llm\", \"path\": \"%s\"}}}]}";

/* CPU seconds of this process: on a shared machine the wall clock also
 * counts other processes' turns. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double last_wall;

/* CPU seconds to parse and run text (wall seconds in last_wall); the
 * service's summary in *out. */
static double run(const char *text, struct gs_svcsum *out)
{
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    double w0 = bench_now(), t0 = cpu_now();
    if (gs_scenario_parse(text, "bench", ".", &sc, &d) < 0 ||
        gs_sim_new(sc, NULL, &sim, &d) < 0 || gs_sim_run(sim, &d) < 0) {
        gs_diag_print(stderr, "bench: ", &d);
        exit(1);
    }
    double dt = cpu_now() - t0;
    last_wall = bench_now() - w0;
    *out = *gs_sim_service(sim, 0);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    return dt;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median5(const char *text, struct gs_svcsum *out)
{
    double t[5];
    for (int i = 0; i < 5; i++)
        t[i] = run(text, out);
    qsort(t, 5, sizeof t[0], cmp);
    return t[2];
}

/* CPU seconds (user + system) of one `gpusim run FILE -o OUT` (the binary
 * named by $GPUSIM), or NAN when it fails. */
static double cli_run(const char *gpusim, const char *file, const char *out)
{
    fflush(stdout);     /* else the child's freopen writes our buffer again */
    pid_t pid = fork();
    if (pid < 0)
        return NAN;
    if (pid == 0) {
        if (freopen("/dev/null", "w", stdout) == NULL ||
            freopen("/dev/null", "w", stderr) == NULL)
            _exit(127);
        execl(gpusim, gpusim, "run", file, "-o", out, (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0)
        return NAN;
    unlink(out);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Issue 27: request-level simulation in `gpusim run`, result file written,
 * at >= 1 M requests per CPU second.  Regression check: the command's CPU
 * over the simulation's alone -- what the summary, its steady-state
 * analysis and the HDF5 file add -- stays under MAX_CLI_RATIO: 1.33x
 * measured when the tables' chunks were first coded by h5chunk.c, 2.15x
 * with zlib level 1 through HDF5's filters and the steady state analysed
 * twice (the two binaries in one sitting); 1.17-1.40x with the chunks
 * coded through zlib's Z_RLE, 0.94-1.01x with gpusim's own deflate.c
 * (tenth session, main 5d53030 against 1a7f4f3 alternating, load 15-17).
 *
 * On a shared machine the load moves between one minute and the next, so
 * the two are measured in CLI_PAIRS pairs, a run of the simulation in
 * this process next to one `gpusim run`, the order alternating pair by
 * pair, and the ratio checked is the median of the pairs' ratios: a burst
 * of load slows both runs of a pair, where two medians of 5 taken a
 * minute apart (the check before the eleventh session) could each catch a
 * different load and failed once in three at 1.0x measured.  The ceiling
 * and what it bounds are unchanged; a ratio over it needs more than half
 * of the pairs over it. */
#define MAX_CLI_RATIO 1.4
#define CLI_PAIRS 7

static int cli_bench(const char *text, long n, double *in_sim,
                     struct gs_svcsum *v)
{
    const char *gpusim = getenv("GPUSIM");
    if (gpusim == NULL || access(gpusim, X_OK) != 0) {
        printf("service gpusim run with its result file: skipped ($GPUSIM, "
               "the binary, not set; make bench sets it)\n");
        *in_sim = median5(text, v);
        return 0;
    }
    char file[64], out[64];
    snprintf(file, sizeof file, "/tmp/bench-svc-%ld.json", (long)getpid());
    snprintf(out, sizeof out, "/tmp/bench-svc-%ld.h5", (long)getpid());
    FILE *fp = fopen(file, "w");
    if (fp == NULL || fputs(text, fp) < 0 || fclose(fp) != 0) {
        printf("bench_service: cannot write %s\n", file);
        return 1;
    }
    double ts[CLI_PAIRS], tc[CLI_PAIRS], ratio[CLI_PAIRS], wall[CLI_PAIRS];
    for (int i = 0; i < CLI_PAIRS; i++) {
        if (i % 2)
            tc[i] = cli_run(gpusim, file, out);
        ts[i] = run(text, v);
        wall[i] = last_wall;
        if (i % 2 == 0)
            tc[i] = cli_run(gpusim, file, out);
        ratio[i] = tc[i] / ts[i];
    }
    unlink(file);
    for (int i = 0; i < CLI_PAIRS; i++)
        if (isnan(tc[i])) {
            printf("bench_service: %s run failed\n", gpusim);
            return 1;
        }
    qsort(ts, CLI_PAIRS, sizeof ts[0], cmp);
    qsort(tc, CLI_PAIRS, sizeof tc[0], cmp);
    qsort(ratio, CLI_PAIRS, sizeof ratio[0], cmp);
    qsort(wall, CLI_PAIRS, sizeof wall[0], cmp);
    *in_sim = ts[CLI_PAIRS / 2];
    last_wall = wall[CLI_PAIRS / 2];
    double tm = tc[CLI_PAIRS / 2], rm = ratio[CLI_PAIRS / 2];
    printf("service gpusim run, %ld requests, result file written: %.3f s "
           "CPU, %.2f M requests/s (target 1: %s); %.2fx the simulation "
           "alone, median of %d pairs (%.2f-%.2fx; regression ceiling "
           "%.1fx)\n", n, tm, n / tm / 1e6,
           n / tm >= 1e6 ? "met" : "not met", rm, CLI_PAIRS, ratio[0],
           ratio[CLI_PAIRS - 1], MAX_CLI_RATIO);
    if (rm > MAX_CLI_RATIO) {
        printf("bench_service: FAILED: the run's outputs cost %.2fx the "
               "simulation\n", rm);
        return 1;
    }
    return 0;
}

int main(void)
{
    static char text[4096];
    struct gs_svcsum v;
    long n = 1000000;
    static const int load[2] = { 60, 120 }, rate[2] = { 220, 440 };
    int bad = 0;
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof text, gen, rate[i], n);
        /* at 60%, the simulation's runs are those paired with the
         * command's (cli_bench) */
        double dt = 0;
        if (i == 0)
            bad |= cli_bench(text, n, &dt, &v);
        if (!(dt > 0))
            dt = median5(text, &v);
        printf("service %ld generated requests, 16 replicas, %d%% load (%d "
               "requests/s): %.3f s CPU (%.3f s wall), %.2f M requests/s; "
               "TTFT p99 %.3f s, ITL p50 %.1f ms, %.0f tokens/s/GPU, peak "
               "RSS %.0f MiB\n", n, load[i], rate[i], dt, last_wall,
               n / dt / 1e6, v.ttft[2], 1e3 * v.itl[0], v.tok_s_gpu,
               bench_peak_rss_mib());
    }
    char *path = realpath(AZURE, NULL);
    if (path == NULL) {
        printf("service azure code trace: skipped (%s missing)\n", AZURE);
        return bad;
    }
    int tn = snprintf(text, sizeof text, azure, path);
    free(path);
    if (tn < 0 || (size_t)tn >= sizeof text) {     /* never a cut scenario */
        printf("service azure code trace: skipped (its path is too long)\n");
        return bad;
    }
    double dt = median5(text, &v);
    printf("service azure code trace (%ld requests, 1 h) on 8 replicas: "
           "%.4f s CPU (%.4f s wall); TTFT p99 %.3f s, ITL p50 %.1f ms\n",
           v.arrived, dt, last_wall,
           v.ttft[2], 1e3 * v.itl[0]);
    return bad;
}
