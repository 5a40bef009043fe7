/* bench_heap.c -- the event queues under the classic hold model.
 *
 * A queue of n events; each hold operation removes the earliest and inserts
 * one at that time plus an exponential increment (mean 1,000 s), so the size
 * stays n.  Two figures per size: pop + push (what the engine does for each
 * event) and re-keying the top in place (what a model that moves its own
 * pending event does).  Target: >= 20 million holds per second at n = 1e5
 * on one core.  The radix heap (the engine's) and the 4-ary heap (the
 * alternative) are both measured. */
#include "benchutil.h"
#include "../sim/radixq.h"
#include "../sim/heap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Exponential increments drawn before timing, as hold-model benchmarks do,
 * so the figures measure the queue and not log().  The mean, 1,000 s, is
 * large against the 1 ms clock so that equal times stay rare even at 10^6
 * events, as in the classic continuous-time hold model. */
#define MEAN_MS 1.0e6
#define NINC (1 << 20)
static gs_time inc[NINC];
static unsigned inc_i;

static void make_increments(void)
{
    uint64_t rs = 88172645463325252ULL;
    for (int i = 0; i < NINC; i++) {
        rs ^= rs << 13;
        rs ^= rs >> 7;
        rs ^= rs << 17;
        inc[i] = (gs_time)(-log((double)((rs >> 11) + 1) /
                                9007199254740993.0) * MEAN_MS);
    }
}

static inline gs_time expo(void)
{
    return inc[inc_i++ & (NINC - 1)];
}

static void run(size_t n, long holds, int replace)
{
    struct gs_heap h;
    gs_heap_init(&h);
    struct gs_hnode *nodes = malloc(n * sizeof *nodes);
    for (size_t i = 0; i < n; i++) {
        gs_hnode_init(&nodes[i]);
        gs_heap_push(&h, &nodes[i], expo());
    }
    double t0 = bench_now();
    gs_time sum = 0;
    for (long k = 0; k < holds; k++) {
        gs_time t = gs_heap_top_time(&h);
        if (replace) {
            struct gs_hnode *top = gs_heap_top(&h);
            gs_heap_update(&h, top, t + expo());
        } else {
            struct gs_hnode *top = gs_heap_pop(&h);
            gs_heap_push(&h, top, t + expo());
        }
        sum += t;
    }
    double dt = bench_now() - t0;
    printf("heap hold  n=%-8zu %-12s %8.2f M ops/s  (%ld ops, %.3f s)%s\n", n,
           replace ? "re-key top" : "pop+push", holds / dt / 1e6, holds, dt,
           sum == 42 ? "!" : "");
    gs_heap_clear(&h);
    free(nodes);
}

static void run_radix(size_t n, long holds)
{
    struct gs_radixq q;
    gs_radixq_init(&q);
    struct gs_hnode *nodes = malloc(n * sizeof *nodes);
    for (size_t i = 0; i < n; i++) {
        gs_hnode_init(&nodes[i]);
        gs_radixq_update(&q, &nodes[i], expo());
    }
    double t0 = bench_now();
    gs_time sum = 0;
    for (long k = 0; k < holds; k++) {
        struct gs_hnode *top = gs_radixq_pop(&q);
        gs_time t = top->time;
        gs_radixq_update(&q, top, t + expo());
        sum += t;
    }
    double dt = bench_now() - t0;
    printf("radix hold  n=%-8zu %-12s %8.2f M ops/s  (%ld ops, %.3f s)%s\n", n,
           "pop+push", holds / dt / 1e6, holds, dt, sum == 42 ? "!" : "");
    gs_radixq_clear(&q);
    free(nodes);
}

int main(void)
{
    make_increments();
    size_t sizes[] = { 1000, 100000, 1000000 };
    for (int i = 0; i < 3; i++)
        run_radix(sizes[i], 10000000);
    for (int i = 0; i < 3; i++) {
        run(sizes[i], 10000000, 0);
        run(sizes[i], 10000000, 1);
    }
    printf("peak RSS %.1f MiB\n", bench_peak_rss_mib());
    return 0;
}
