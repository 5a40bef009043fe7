/* bench_heap.c -- the event queues under the classic hold model.
 *
 * A queue of n events; each hold operation removes the earliest and inserts
 * it again at that time plus an exponential increment (mean 1,000 s), so the
 * size stays n.  For the 4-ary heap a second figure re-keys the top in
 * place (what a model that moves its own pending event does).  Target
 * (issue 27): >= 30 million holds per second at n = 1e5 on one core.
 *
 * Method: fill the queue, run max(2n, 10^6) holds to reach the steady state
 * (the first holds see the initial, not the stationary, distribution), then
 * time ROUNDS rounds of ROUND holds each and print the median, best and
 * worst round, in holds per CPU second of the thread (the wall figure
 * beside it follows the machine's load).  The process is pinned to the
 * core it started on.  A shared VM varies by +-10% from one minute to the
 * next: the median is the figure to quote.  The check make bench fails
 * on: the buckets at 10^5 against the 4-ary heap measured in the same
 * run, a ratio the machine's speed and load cancel out of. */
#include "benchutil.h"
#include "../sim/core/radixq.h"
#include "../sim/core/heap.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 5
#define ROUND 2000000L

/* Exponential increments drawn before timing, as hold-model benchmarks do,
 * so the figures measure the queue and not log().  The mean, 1,000 s, is
 * large against the 1 ms clock so that equal times stay rare even at 10^6
 * events, as in the classic continuous-time hold model. */
#define MEAN_MS 1.0e6
#define NINC (1 << 20)
static gs_time inc[NINC];
static unsigned inc_i;
static volatile gs_time sink;

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

typedef void holds_fn(void *q, long k);

static void radix_holds(void *arg, long k)
{
    struct gs_radixq *q = arg;
    gs_time sum = 0;
    while (k-- > 0) {
        struct gs_hnode *top = gs_radixq_pop(q);
        gs_radixq_update(q, top, top->time + expo());
        sum += top->time;
    }
    sink = sum;
}

static void heap_holds(void *arg, long k)
{
    struct gs_heap *h = arg;
    gs_time sum = 0;
    while (k-- > 0) {
        struct gs_hnode *top = gs_heap_pop(h);
        gs_heap_push(h, top, top->time + expo());
        sum += top->time;
    }
    sink = sum;
}

static void heap_rekeys(void *arg, long k)
{
    struct gs_heap *h = arg;
    gs_time sum = 0;
    while (k-- > 0) {
        struct gs_hnode *top = gs_heap_top(h);
        gs_heap_update(h, top, top->time + expo());
        sum += top->time;
    }
    sink = sum;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* CPU seconds of this thread: the figure a loaded machine does not
 * stretch (wall time also counts the neighbours' turns on the core). */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The median round's M holds per CPU second (wall beside it). */
static double measure(const char *name, size_t n, holds_fn *fn, void *q)
{
    fn(q, n * 2 > 1000000 ? (long)n * 2 : 1000000);
    double r[ROUNDS], w[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        double t0 = thread_cpu(), w0 = bench_now();
        fn(q, ROUND);
        r[i] = ROUND / (thread_cpu() - t0) / 1e6;
        w[i] = ROUND / (bench_now() - w0) / 1e6;
    }
    qsort(r, ROUNDS, sizeof *r, by_value);
    qsort(w, ROUNDS, sizeof *w, by_value);
    printf("%-22s n=%-8zu %6.2f M holds/CPU s median  (best %.2f, worst "
           "%.2f; wall %.2f; %d x %ld holds)\n", name, n, r[ROUNDS / 2],
           r[ROUNDS - 1], r[0], w[ROUNDS / 2], ROUNDS, ROUND);
    return r[ROUNDS / 2];
}

/* The regression check: the engine's queue against the 4-ary heap at
 * 10^5 events, a ratio measured side by side (3.6x when issue 27 was
 * filed; 7.7x idle and 10-13x under load since the sorted run of the
 * eleventh session); below 5x something slowed the buckets down. */
#define MIN_RATIO 5.0
#define TARGET_MHOLDS 30.0

int main(void)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one);
    make_increments();
    size_t sizes[] = { 1000, 100000, 1000000 };
    double radix5 = 0, heap5 = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = sizes[i];
        struct gs_hnode *nodes = malloc(n * sizeof *nodes);
        struct gs_radixq *q = malloc(sizeof *q);
        gs_radixq_init(q);
        for (size_t k = 0; k < n; k++) {
            gs_hnode_init(&nodes[k]);
            gs_radixq_update(q, &nodes[k], expo());
        }
        double rq = measure("radix (engine's)", n, radix_holds, q);
        gs_radixq_clear(q);
        free(q);

        struct gs_heap h;
        gs_heap_init(&h);
        for (size_t k = 0; k < n; k++) {
            gs_hnode_init(&nodes[k]);
            gs_heap_push(&h, &nodes[k], expo());
        }
        double hq = measure("4-ary heap pop+push", n, heap_holds, &h);
        measure("4-ary heap re-key top", n, heap_rekeys, &h);
        gs_heap_clear(&h);
        free(nodes);
        if (n == 100000) {
            radix5 = rq;
            heap5 = hq;
        }
    }
    printf("peak RSS %.1f MiB\n", bench_peak_rss_mib());
    double ratio = radix5 / heap5;
    printf("at n=1e5: %.2f M holds/CPU s (issue 27's target %.0f: %s), "
           "%.2fx the 4-ary heap (regression floor %.1fx)\n", radix5,
           TARGET_MHOLDS, radix5 >= TARGET_MHOLDS ? "met" : "not met",
           ratio, MIN_RATIO);
    if (ratio < MIN_RATIO) {
        printf("bench_heap: FAILED: the buckets fell to %.2fx the heap\n",
               ratio);
        return 1;
    }
    return 0;
}
