/* bench_trace.c -- how fast traces parse, and what memory it takes.
 *
 * Targets (issue 3): parse at least 1 million native-CSV rows per second;
 * importers' memory proportional to the jobs -- flat for a sorted trace,
 * which streams, and about one job spec per row for an unsorted one, which
 * is loaded and sorted.
 *
 * The benchmark writes its inputs to a temporary folder first (1.5 million
 * native rows; 1 million Alibaba pod rows, sorted and unsorted), then runs
 * each parse in a forked child, so each figure's peak RSS (getrusage
 * ru_maxrss of that child) is its own.  A child that only opens nothing
 * gives the baseline RSS of the process. */
#include "benchutil.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/source.h"
#include "../traces/alibaba.h"
#include "../traces/native.h"
#include "../traces/tread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NATIVE_ROWS 1500000L
#define POD_ROWS 1000000L

static char dir[64];

static void write_native(const char *path, const struct gs_catalog *cat)
{
    FILE *fp = fopen(path, "w");
    gs_native_write_header(fp);
    static const int gpus[5] = { 1, 2, 4, 8, 0 };
    uint64_t x = 88172645463325252ULL;
    gs_time t = 0;
    for (long i = 0; i < NATIVE_ROWS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        struct gs_jobspec j;
        gs_jobspec_init(&j);
        j.id = i + 1;
        t += (gs_time)(x % 4000);
        j.arrival = t;
        j.gpus = gpus[x % 5];
        if (j.gpus == 0)
            j.milli = 250 + (int)(x % 3) * 250;
        j.work = (double)(60000 + x % 36000000);
        snprintf(j.tenant, sizeof j.tenant, "team%d", (int)(x % 40));
        j.tier = (int)((x >> 8) % GS_NTIERS);
        j.cb = (double)(x % 1000) / 1000.0;
        gs_native_write_row(fp, &j, cat);
    }
    fclose(fp);
}

/* An openb-style pod list; unsorted swaps neighbouring blocks of 1,000. */
static void write_pods(const char *path, int unsorted)
{
    FILE *fp = fopen(path, "w");
    fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
          "pod_phase,creation_time,deletion_time,scheduled_time\n", fp);
    static const char *const qos[4] = { "LS", "BE", "Burstable", "Guaranteed" };
    for (long k = 0; k < POD_ROWS; k++) {
        long i = k;
        if (unsorted)
            i = (k / 1000 % 2 == 0 && k / 1000 + 1 < POD_ROWS / 1000)
                ? k + 1000 : (k / 1000 % 2 == 1 ? k - 1000 : k);
        long t = i * 13;
        int ng = (int)(i % 7 == 0 ? 0 : i % 11 == 0 ? 8 : 1);
        int milli = ng == 0 ? 0 : ng == 1 && i % 3 == 0 ? 460 : 1000;
        fprintf(fp, "openb-pod-%07ld,4000,8192,%d,%d,,%s,Running,%ld,%ld,%ld\n",
                i, ng, milli, qos[i % 4], t, t + 600 + i % 5000, t + i % 7);
    }
    fclose(fp);
}

struct result {
    long rows;
    double secs;
};

/* Parse in a child; returns rows, seconds and the child's peak RSS (MiB). */
static double measure(const char *fmt, const char *path, struct result *r)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        struct result res = { 0, 0 };
        gs_trace_set_log(NULL);
        if (fmt) {
            struct gs_scenario *sc = calloc(1, sizeof *sc);
            gs_catalog_init(&sc->cat);
            gs_params_init(&sc->trace, "bench");
            sc->wl_kind = GS_WL_TRACE;
            gs_params_add_str(&sc->trace, "format", fmt);
            gs_params_add_str(&sc->trace, "path", path);
            struct gs_source src;
            struct gs_diag d = { 0 };
            double t0 = bench_now();
            if (gs_source_open(sc, 1, &src, &d) == 0) {
                struct gs_jobspec j;
                while (gs_source_next(&src, &j, &d) == 1)
                    res.rows++;
                gs_source_close(&src);
            }
            res.secs = bench_now() - t0;
            if (d.code)
                fprintf(stderr, "bench_trace: %s: %s\n", d.where, d.what);
        }
        if (write(fds[1], &res, sizeof res) != (ssize_t)sizeof res)
            _exit(1);
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], r, sizeof *r) != (ssize_t)sizeof *r)
        r->rows = -1;
    close(fds[0]);
    int st;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
    return ru.ru_maxrss / 1024.0;
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/gs_bench_trace_XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    char native[128], sorted[128], unsorted[128];
    snprintf(native, sizeof native, "%s/native.csv", dir);
    snprintf(sorted, sizeof sorted, "%s/pods_sorted.csv", dir);
    snprintf(unsorted, sizeof unsorted, "%s/pods_unsorted.csv", dir);
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    double t0 = bench_now();
    write_native(native, &cat);
    write_pods(sorted, 0);
    write_pods(unsorted, 1);
    printf("bench_trace: inputs written in %.1f s to %s\n", bench_now() - t0,
           dir);

    struct result r;
    double base = measure(NULL, NULL, &r);
    printf("  %-34s %10s %8s %12s %10s\n", "parse", "rows", "s", "rows/s",
           "peak RSS");
    printf("  %-34s %10s %8s %12s %7.1f MiB\n", "(baseline: process only)", "",
           "", "", base);
    static const struct { const char *label, *fmt; const char *path; } runs[] = {
        { "native CSV (streams)", "native", NULL },
        { "alibaba pods, sorted (streams)", "alibaba-gpu-2023", NULL },
        { "alibaba pods, unsorted (loads+sorts)", "alibaba-gpu-2023", NULL },
    };
    const char *paths[3] = { native, sorted, unsorted };
    double native_rate = 0;
    for (int i = 0; i < 3; i++) {
        double rss = measure(runs[i].fmt, paths[i], &r);
        double rate = r.secs > 0 ? (double)r.rows / r.secs : 0;
        if (i == 0)
            native_rate = rate;
        printf("  %-34s %10ld %8.2f %12.0f %7.1f MiB (+%.1f)\n",
               runs[i].label, r.rows, r.secs, rate, rss, rss - base);
    }
    printf("  target: >= 1,000,000 native rows/s: %s\n",
           native_rate >= 1e6 ? "met" : "BELOW TARGET");
    printf("  memory: a streamed trace stays near the baseline; a loaded one "
           "costs about %zu bytes a job\n", sizeof(struct gs_jobspec));
    unlink(native);
    unlink(sorted);
    unlink(unsorted);
    rmdir(dir);
    return 0;
}
