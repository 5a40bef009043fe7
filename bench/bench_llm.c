/* bench_llm.c -- simulated requests per second of the LLM engine, alone and as 8 replicas.
 *
 * Llama-3-8B on one H100 (catalog factors), vLLM's defaults (256 sequences,
 * 8192 tokens per iteration, chunked prefill, 16-token blocks), a Poisson
 * stream of chat-like requests: prompts uniform on 64..2048 tokens, outputs
 * uniform on 16..512.  A pilot run with every request queued at time 0
 * measures the saturated throughput; the timed runs offer 85% of it, so
 * batches are large and queues stable.  Requests are drawn before timing;
 * the figure is requests handled per second of wall time, everything in
 * the loop included (adding, iterations, callbacks).  Target: >= 3 M/s for
 * one engine on one core, so that a service model around it keeps 1 M/s.
 *
 * The replica loop routes round-robin to 8 engines and advances whichever
 * event is next: an arrival or the earliest iteration end. */
#include "benchutil.h"
#include "../sim/inference/llm.h"
#include "../sim/base/rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NREQ 2000000
#define NREP 8

struct tally {
    long first, done, pre;
    double ttft_sum;
};

static double *arrival_of;

/* CPU time of this process: on a shared machine the figure that does not
 * depend on how many other jobs run (wall time is printed too). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void on_first(void *ctx, uint64_t id, double t)
{
    struct tally *s = ctx;
    s->first++;
    s->ttft_sum += t - arrival_of[id];
}

static void on_done(void *ctx, uint64_t id, double t, int cached, int pre)
{
    (void)id;
    (void)t;
    (void)cached;
    (void)pre;
    ((struct tally *)ctx)->done++;
}

static void on_pre(void *ctx, uint64_t id, double t)
{
    (void)id;
    (void)t;
    ((struct tally *)ctx)->pre++;
}

static const struct gs_llm_cb cbs = { on_first, on_done, on_pre };

static void draw(struct gs_llm_req *q, int n, double rate, uint64_t seed)
{
    gsl_rng *g = gs_rng_stream(seed, "bench-llm");
    double t = 0;
    for (int i = 0; i < n; i++) {
        if (rate > 0)
            t += gsl_ran_exponential(g, 1 / rate);
        q[i] = (struct gs_llm_req){
            .id = (uint64_t)i, .arrival = t,
            .prompt = 64 + (int)gsl_rng_uniform_int(g, 1985),
            .output = 16 + (int)gsl_rng_uniform_int(g, 497),
        };
        arrival_of[i] = t;
    }
    gsl_rng_free(g);
}

static struct gs_llm_engine *make(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_llm_engine_cfg c;
    gs_llm_engine_cfg_default(&c);
    gs_llm_arch_find("llama3-8b", &c.arch, "bench", NULL);
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "H100-80GB"), &c.hw);
    struct gs_llm_engine *e = NULL;
    struct gs_diag d = { 0 };
    if (gs_llm_engine_new(&c, &e, &d)) {
        fprintf(stderr, "bench_llm: %s\n", d.what);
        exit(1);
    }
    return e;
}

/* n requests through engines e[0..k): returns the simulated end time. */
static double run(struct gs_llm_engine **e, int k, const struct gs_llm_req *q,
                  int n, struct tally *s)
{
    double end[NREP];
    for (int j = 0; j < k; j++)
        end[j] = INFINITY;
    double now = 0;
    int next = 0, rr = 0;
    for (;;) {
        int jmin = 0;
        for (int j = 1; j < k; j++)
            if (end[j] < end[jmin])
                jmin = j;
        double ta = next < n ? q[next].arrival : INFINITY;
        if (ta == INFINITY && end[jmin] == INFINITY)
            break;
        int j;
        if (ta <= end[jmin]) {
            now = ta;
            j = rr;
            rr = rr + 1 == k ? 0 : rr + 1;
            if (gs_llm_engine_add(e[j], &q[next++]))
                exit(1);
            if (end[j] != INFINITY)
                continue;
        } else {
            now = end[jmin];
            j = jmin;
            gs_llm_engine_finish_iteration(e[j], &cbs, s);
            end[j] = INFINITY;
        }
        double d = gs_llm_engine_step(e[j], now);
        if (d > 0)
            end[j] = now + d;
    }
    return now;
}

static void report(const char *what, struct gs_llm_engine **e, int k, int n,
                   double wall, double cpu, double simt,
                   const struct tally *s)
{
    long it = 0;
    double dec = 0;
    for (int j = 0; j < k; j++) {
        struct gs_llm_stats st;
        gs_llm_engine_stats(e[j], &st);
        it += st.iterations;
        dec += st.decode_tokens;
    }
    printf("%-12s %d requests in %.3f s CPU (%.3f s wall): %.2f M "
           "requests/s, %.1f M iterations/s per CPU second; simulated %.0f s, "
           "mean decode batch %.0f, mean TTFT %.3f s, %ld preemptions%s\n",
           what, n, cpu, wall, n / cpu / 1e6, it / cpu / 1e6, simt,
           dec / (double)it, s->ttft_sum / n, s->pre,
           s->done == n ? "" : " (NOT ALL DONE)");
}

int main(void)
{
    struct gs_llm_req *q = malloc(NREQ * sizeof *q);
    arrival_of = malloc(NREQ * sizeof *arrival_of);
    if (!q || !arrival_of)
        return 1;
    /* pilot: saturated throughput of one engine */
    const int pilot = 20000;
    draw(q, pilot, 0, 1);
    struct gs_llm_engine *e[NREP];
    e[0] = make();
    struct tally s = { 0 };
    double sat = pilot / run(e, 1, q, pilot, &s);
    gs_llm_engine_free(e[0]);
    printf("saturated throughput of one engine: %.1f requests/s simulated\n",
           sat);

    draw(q, NREQ, 0.85 * sat, 2);
    e[0] = make();
    s = (struct tally){ 0 };
    double t0 = bench_now(), c0 = cpu_now();
    double simt = run(e, 1, q, NREQ, &s);
    double wall = bench_now() - t0, cpu = cpu_now() - c0;
    report("1 engine:", e, 1, NREQ, wall, cpu, simt, &s);
    gs_llm_engine_free(e[0]);

    draw(q, NREQ, 0.85 * sat * NREP, 3);
    for (int j = 0; j < NREP; j++)
        e[j] = make();
    s = (struct tally){ 0 };
    t0 = bench_now();
    c0 = cpu_now();
    simt = run(e, NREP, q, NREQ, &s);
    wall = bench_now() - t0;
    cpu = cpu_now() - c0;
    report("8 replicas:", e, NREP, NREQ, wall, cpu, simt, &s);
    for (int j = 0; j < NREP; j++)
        gs_llm_engine_free(e[j]);
    printf("peak RSS %.0f MiB\n", bench_peak_rss_mib());
    free(q);
    free(arrival_of);
    return 0;
}
