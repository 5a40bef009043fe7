/* test_llmengine.c -- the LLM engine against hand calculation and queueing theory.
 *
 * Architectures against their published sizes; the roofline against a
 * calculation written out by hand; one request alone gets exactly the
 * modeled TTFT and ITL; batch size 1 with fixed lengths and Poisson arrivals
 * is an M/D/1 queue whose mean wait is Pollaczek-Khinchine's; throughput
 * under a KV-cache bound is the hand-computed concurrency over the cycle
 * time; preemption happens at the exact decode step blocks run out; prefix
 * hits skip their prefill and LRU evicts the coldest unit; every request is
 * accounted for and runs are identical. */
#include "cutest.h"
#include "../sim/inference/llmops.h"
#include "../sim/base/rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

/* ---- architectures ---------------------------------------------------------- */

static void test_arch_sizes(void)
{
    /* billions of parameters, as published */
    const struct { const char *name; double b; } pub[] = {
        { "llama2-7b", 6.74 }, { "llama2-13b", 13.0 }, { "llama2-70b", 69.0 },
        { "llama3-8b", 8.03 }, { "llama3-70b", 70.6 }, { "bloom-176b", 176.2 },
        { "mixtral-8x7b", 46.7 },
    };
    const char *const *names = gs_llm_arch_names();
    int n = 0;
    while (names[n])
        n++;
    CU_ASSERT_EQUAL(n, 7);
    for (int i = 0; i < 7; i++) {
        struct gs_llm_arch a;
        CU_ASSERT_EQUAL_FATAL(gs_llm_arch_find(pub[i].name, &a, "$", NULL), 0);
        CU_ASSERT_STRING_EQUAL(a.name, names[i]);
        double b = gs_llm_arch_params(&a) / 1e9;
        CU_ASSERT(fabs(b / pub[i].b - 1) < 0.01);
        CU_ASSERT_EQUAL(gs_llm_arch_check(&a, "$", NULL), 0);
    }
    struct gs_llm_arch a;
    gs_llm_arch_find("LLAMA2-70B", &a, "$", NULL);
    /* 80 layers * 2 * 8 KV heads * 128 * 2 bytes */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_arch_kv_bytes_per_token(&a), 327680, 1e-9);
    /* 1000 tokens over 100 GB/s plus 1 ms */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_kv_transfer_time(&a, 1000, 100, 1e-3),
                           327.68e6 / 100e9 + 1e-3, 1e-12);
    gs_llm_arch_find("mixtral-8x7b", &a, "$", NULL);
    /* top-2 of 8 experts: 12.9 B active */
    CU_ASSERT(fabs(gs_llm_arch_active_params(&a) / 12.9e9 - 1) < 0.01);
}

static void test_arch_errors(void)
{
    struct gs_llm_arch a;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_llm_arch_find("llama-2-70b", &a, "$.services[0].model",
                                     &d), GS_ENOTFOUND);
    CU_ASSERT_STRING_EQUAL(d.where, "$.services[0].model");
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "did you mean 'llama2-70b'"));
    struct gs_diag d2 = { 0 };
    CU_ASSERT_EQUAL(gs_llm_arch_find("gpt-4", &a, "$", &d2), GS_ENOTFOUND);
    CU_ASSERT_PTR_NULL(strstr(d2.what, "did you mean"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d2.what, "mixtral-8x7b"));
    gs_llm_arch_find("llama2-7b", &a, "$", NULL);
    a.kv_heads = 5;
    struct gs_diag d3 = { 0 };
    CU_ASSERT_EQUAL(gs_llm_arch_check(&a, "$.m", &d3), GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d3.what, "kv_heads"));
    a.kv_heads = 32;
    a.layers = 0;
    CU_ASSERT_EQUAL(gs_llm_arch_check(&a, "$.m", NULL), GS_EINVAL);
    gs_diag_free(&d);
    gs_diag_free(&d2);
    gs_diag_free(&d3);
}

/* The catalog: fitted factors on A100/H100 and their siblings, the default
 * set on a new model, kept when a scenario redefines a built-in. */
static void test_catalog_factors(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    int h100 = gs_catalog_find(&cat, "H100-80GB");
    int h200 = gs_catalog_find(&cat, "H200-141GB");
    int h800 = gs_catalog_find(&cat, "H800-80GB");
    CU_ASSERT_DOUBLE_EQUAL(cat.llm[h100].compute_eff,
                           cat.llm[h200].compute_eff, 0);
    CU_ASSERT_DOUBLE_EQUAL(cat.llm[h800].link_gbs,
                           cat.llm[h100].link_gbs * 400 / 900, 0.01);
    int t4 = gs_catalog_find(&cat, "T4");
    CU_ASSERT_DOUBLE_EQUAL(cat.llm[t4].link_gbs, 16, 0);
    CU_ASSERT(cat.llm[t4].compute_eff > 0 && cat.llm[t4].bw_eff > 0);
    struct gs_gpu_model m = { "MyGPU", 48, 200, 1000, 300, 0, 0 };
    int i = gs_catalog_add(&cat, &m);
    CU_ASSERT(i >= 0);
    CU_ASSERT(cat.llm[i].compute_eff > 0 && cat.llm[i].link_gbs > 0);
    struct gs_gpu_llm before = cat.llm[h100];
    struct gs_gpu_model h = cat.m[h100];
    h.mem_gb = 94;
    CU_ASSERT_EQUAL(gs_catalog_add(&cat, &h), h100);
    CU_ASSERT(memcmp(&before, &cat.llm[h100], sizeof before) == 0);
    struct gs_gpu_llm mine = { .compute_eff = 0.4, .link_gbs = 0 };
    gs_catalog_set_llm(&cat, i, &mine);
    CU_ASSERT_DOUBLE_EQUAL(cat.llm[i].compute_eff, 0.4, 0);
    CU_ASSERT_DOUBLE_EQUAL(cat.llm[i].link_gbs, 16, 0);
    struct gs_llm_hw hw;
    gs_llm_hw_from_catalog(&cat, h100, &hw);
    CU_ASSERT_DOUBLE_EQUAL(hw.tflops, 989, 0);
    CU_ASSERT_DOUBLE_EQUAL(hw.mem_gb, 94, 0);
}

/* ---- the roofline ------------------------------------------------------------ */

static struct gs_llm_hw a100(void)
{
    struct gs_llm_hw hw = { .tflops = 312, .bw_gbs = 2039, .mem_gb = 80 };
    hw.eff = (struct gs_gpu_llm){ .compute_eff = 0.5, .bw_eff = 0.8,
                                  .attn_eff = 0.25, .attn_bw_eff = 0.8,
                                  .layer_us = 0, .iter_ms = 2, .seq_us = 30,
                                  .link_gbs = 100, .link_us = 5,
                                  .elem_eff = { 0.5, 0.5, 0.5, 0.5, 0.5 } };
    return hw;
}

/* A memory-bound GEMM of m x k x n at 0.8 * 2039 GB/s. */
static double mem_gemm(double m, double k, double n)
{
    return 2 * (m * k + k * n + m * n) / (0.8 * 2039e9);
}

/* Llama-2-7B on one A100 decoding one sequence at context c, by hand:
 * every GEMM at one token is memory-bound (its compute at tile fill 1/16
 * is 6x shorter), the elementwise kernels move their bytes at half of
 * 2039 GB/s (two norms 2 x 2 x 4096, rotary 2 x 2 x 64 x 128, the SwiGLU
 * 2 x 3 x 11008, two adds 2 x 3 x 4096), attention reads 2 x 32 x 128 x 2
 * bytes per token of context (c + 1 tokens); per iteration the embedding
 * and the final norm (2 x 2 x 4096 each), the LM head and 2 ms. */
static double hand_decode_7b(double c)
{
    double gemms = mem_gemm(1, 4096, 12288) + mem_gemm(1, 4096, 4096)
                   + mem_gemm(1, 4096, 22016) + mem_gemm(1, 11008, 4096);
    double elem = (2 * 16384.0 + 32768 + 66048 + 2 * 24576) / (0.5 * 2039e9);
    double att = 16384.0 * (c + 1) / (0.8 * 2039e9);
    double per_iter = 2 * 16384.0 / (0.5 * 2039e9)
                      + mem_gemm(1, 4096, 32000) + 2e-3;
    return 32 * (gemms + elem + att + 30e-6) + per_iter;
}

/* A prefill of m tokens: each GEMM compute-bound at 2 m k n / (0.5 x 312
 * TFLOP/s) over the share of its 128-row tiles m fills (the columns are
 * multiples of 128), the elementwise kernels by their bytes,
 * attention's 4 x 4096 FLOPs per query-key pair at 0.25 x 312. */
static double hand_prefill_7b(double m)
{
    double fill = m / (ceil(m / 128) * 128);    /* the last tile's rows */
    double gem = 2 * m * (4096.0 * 12288 + 4096.0 * 4096 + 4096.0 * 22016
                          + 11008.0 * 4096) / (0.5 * 312e12 * fill);
    double elem = m * (2 * 16384.0 + 32768 + 66048 + 2 * 24576)
                  / (0.5 * 2039e9);
    double att = 4 * 4096.0 * m * (m + 1) / 2 / (0.25 * 312e12);
    double per_iter = m * 2 * 16384.0 / (0.5 * 2039e9)
                      + mem_gemm(1, 4096, 32000) + 2e-3;
    return 32 * (gem + elem + att + 30e-6) + per_iter;
}

static void test_operators_by_hand(void)
{
    struct gs_llm_arch a;
    gs_llm_arch_find("llama2-7b", &a, "$", NULL);
    struct gs_llm_hw hw = a100();
    struct gs_llm_perf p;
    CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&p, &a, &hw, 1, NULL), 0);
    for (double c = 1; c < 5000; c *= 3.7)
        CU_ASSERT_DOUBLE_EQUAL(gs_llm_perf_decode(&p, 1, c),
                               hand_decode_7b(c), 1e-12);
    struct gs_llm_batch empty = { 0 };
    CU_ASSERT_EQUAL(gs_llm_perf_time(&p, &empty), 0);

    CU_ASSERT_DOUBLE_EQUAL(gs_llm_perf_prefill(&p, 1, 2048),
                           hand_prefill_7b(2048), 1e-12);

    /* TP 4 with no measured curve: two ring all-reduces per layer of
     * 2 x 4096 bytes per token: 2 x (6/4 x bytes / 100 GB/s + 6 x 5 us) */
    struct gs_llm_perf p4;
    gs_llm_perf_init(&p4, &a, &hw, 4, NULL);
    struct gs_llm_batch b = { .decode_tokens = 8, .decode_ctx = 8 * 100,
                              .sampled = 8, .seqs = 8 };
    struct gs_llm_batch b1 = b;
    double ar = 2 * (1.5 * 8 * 8192 / 100e9 + 6 * 5e-6);
    hw.eff.link_gbs = 1e300;
    hw.eff.link_us = 0;
    struct gs_llm_perf p4fast;
    gs_llm_perf_init(&p4fast, &a, &hw, 4, NULL);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_perf_time(&p4, &b) - gs_llm_perf_time(&p4fast, &b1),
                           32 * ar, 1e-12);

    /* a 3/7 MIG slice with 40 GB: 3/7 of compute and bandwidth */
    hw = a100();
    struct gs_llm_hw mig = hw;
    gs_llm_hw_share(&mig, 3.0 / 7, 40);
    CU_ASSERT_DOUBLE_EQUAL(mig.tflops, 312 * 3.0 / 7, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mig.bw_gbs, 2039 * 3.0 / 7, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mig.mem_gb, 40, 0);
    struct gs_llm_perf pmig;
    gs_llm_perf_init(&pmig, &a, &mig, 1, NULL);
    /* memory-bound parts scale by 7/3, fixed costs do not */
    double fixed = 32 * 30e-6 + 2e-3;
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_perf_decode(&pmig, 1, 100) - fixed,
                           (hand_decode_7b(100) - fixed) * 7 / 3, 1e-12);

    /* Mixtral decoding 8 tokens: their top-2 picks of 8 experts reach
     * x = 8 (1 - (6/8)^8) = 7.20 experts on average, each over 16 / x
     * tokens, and only their weights are read; a dense model of the same
     * shape reads one expert's.  One token reaches its 2, a large batch
     * all 8. */
    double x = 8 * (1 - pow(0.75, 8)), mt = 16 / x;
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_experts_hit(8, 2, 8), x, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_experts_hit(8, 2, 1), 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_experts_hit(8, 2, 4096), 8, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_experts_hit(1, 1, 5), 1, 0);
    struct gs_llm_arch mx, dense;
    gs_llm_arch_find("mixtral-8x7b", &mx, "$", NULL);
    dense = mx;
    dense.experts = dense.active_experts = 1;
    struct gs_llm_perf pm, pd;
    gs_llm_perf_init(&pm, &mx, &hw, 1, NULL);
    gs_llm_perf_init(&pd, &dense, &hw, 1, NULL);
    struct gs_llm_batch d8 = { .decode_tokens = 8, .decode_ctx = 8,
                               .sampled = 8, .seqs = 8 };
    double per_layer = (gs_llm_perf_time(&pm, &d8)
                        - gs_llm_perf_time(&pd, &d8)) / 32;
    double moe = x * (mem_gemm(mt, 4096, 2 * 14336)
                      + mem_gemm(mt, 14336, 4096))
                 + gs_llm_gemm_time(&hw, 8, 4096, 8) + 16 * 2 * 3 * 14336.0
                 / (0.5 * 2039e9);
    double dns = mem_gemm(8, 4096, 2 * 14336) + mem_gemm(8, 14336, 4096)
                 + 8 * 2 * 3 * 14336.0 / (0.5 * 2039e9);
    CU_ASSERT_DOUBLE_EQUAL(per_layer, moe - dns, 1e-12);
}

/* ---- engines ----------------------------------------------------------------- */

struct rec {
    double first, done;
    int nfirst, ndone, cached, preempted;
};

struct log {
    struct rec *r;
    int n;
    long npre;
    double last_pre;
    uint64_t last_pre_id;
    int order_bad;
};

static void on_first(void *ctx, uint64_t id, double t)
{
    struct log *l = ctx;
    l->r[id].first = t;
    l->r[id].nfirst++;
}

static void on_done(void *ctx, uint64_t id, double t, int cached, int pre)
{
    struct log *l = ctx;
    if (!l->r[id].nfirst)
        l->order_bad = 1;
    l->r[id].done = t;
    l->r[id].ndone++;
    l->r[id].cached = cached;
    l->r[id].preempted = pre;
}

static void on_pre(void *ctx, uint64_t id, double t)
{
    struct log *l = ctx;
    l->npre++;
    l->last_pre = t;
    l->last_pre_id = id;
}

static const struct gs_llm_cb cbs = { on_first, on_done, on_pre };

/* Drive e over requests q[0..n) (sorted by arrival) until all are done;
 * returns the end time.  The tiny event loop: the next event is either the
 * next arrivals (all of one instant together) or the end of the iteration
 * in flight; an idle engine steps after each event.  Each iteration's
 * figures go to it[] (up to cap; it may be NULL with cap 0), their count
 * to *ni. */
static double drive_apart(struct gs_llm_engine *e, const struct gs_llm_req *q,
                          int n, struct log *l, struct gs_llm_iter *it,
                          long cap, long *ni)
{
    double now = 0, end = INFINITY;
    int next = 0;
    *ni = 0;
    for (;;) {
        double ta = next < n ? q[next].arrival : INFINITY;
        if (ta == INFINITY && end == INFINITY)
            break;
        if (ta <= end) {
            now = ta;
            while (next < n && q[next].arrival == now) {
                CU_ASSERT_EQUAL_FATAL(gs_llm_engine_add(e, &q[next]), 0);
                next++;
            }
        } else {
            now = end;
            gs_llm_engine_finish_iteration(e, &cbs, l);
            end = INFINITY;
        }
        if (end == INFINITY) {
            double d = gs_llm_engine_step(e, now);
            if (d > 0) {
                end = now + d;
                if (*ni < cap)
                    it[(*ni)++] = *gs_llm_engine_last(e);
            }
        }
    }
    return now;
}

static double drive(struct gs_llm_engine *e, const struct gs_llm_req *q, int n,
                    struct log *l)
{
    long ni;
    return drive_apart(e, q, n, l, NULL, 0, &ni);
}

static struct gs_llm_engine_cfg cfg_7b(void)
{
    struct gs_llm_engine_cfg c;
    gs_llm_engine_cfg_default(&c);
    gs_llm_arch_find("llama2-7b", &c.arch, "$", NULL);
    c.hw = a100();
    return c;
}

static void test_single_request(void)
{
    for (int chunked = 0; chunked < 2; chunked++) {
        struct gs_llm_engine_cfg c = cfg_7b();
        c.chunked_prefill = chunked;
        struct gs_llm_engine *e;
        CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
        struct gs_llm_req q = { .id = 0, .arrival = 1.5, .prompt = 2048,
                                .output = 40 };
        struct rec r[1] = { { 0 } };
        struct log l = { .r = r, .n = 1 };
        drive(e, &q, 1, &l);
        double ttft = hand_prefill_7b(2048);
        CU_ASSERT_DOUBLE_EQUAL(r[0].first - 1.5, ttft, 1e-12);
        double t = ttft;
        for (int j = 0; j < 39; j++)       /* contexts 2048 .. 2086 */
            t += hand_decode_7b(2048 + j);
        CU_ASSERT_DOUBLE_EQUAL(r[0].done - 1.5, t, 1e-9);
        CU_ASSERT_EQUAL(r[0].nfirst, 1);
        CU_ASSERT_EQUAL(r[0].ndone, 1);
        struct gs_llm_stats s;
        gs_llm_engine_stats(e, &s);
        CU_ASSERT_EQUAL(s.iterations, 40);
        CU_ASSERT_EQUAL(s.blocks_used, 0);
        CU_ASSERT_EQUAL(s.running + s.waiting, 0);
        CU_ASSERT_DOUBLE_EQUAL(s.prefill_tokens, 2048, 0);
        CU_ASSERT_DOUBLE_EQUAL(s.decode_tokens, 39, 0);
        gs_llm_engine_free(e);
    }
    /* a prompt longer than the token budget is chunked: 3 chunks of 2048
     * after 0, 2048 and 4096 cached tokens */
    struct gs_llm_engine_cfg c = cfg_7b();
    c.max_batched_tokens = 2048;
    struct gs_llm_engine *e;
    gs_llm_engine_new(&c, &e, NULL);
    struct gs_llm_req q = { .id = 0, .prompt = 6144, .output = 1 };
    struct rec r[1] = { { 0 } };
    struct log l = { .r = r, .n = 1 };
    drive(e, &q, 1, &l);
    double want = 0;
    for (int k = 0; k < 3; k++) {
        struct gs_llm_batch b = { .prefill_tokens = 2048,
                                  .prefill_attn = 2048.0 * (2048 * k + 2049.0 / 2),
                                  .prefill_ctx = 2048.0 * (k + 1),
                                  .sampled = k == 2, .seqs = 1 };
        want += gs_llm_perf_time(gs_llm_engine_perf(e), &b);
    }
    CU_ASSERT_DOUBLE_EQUAL(r[0].first, want, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[0].done, want, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_perf_ttft(gs_llm_engine_perf(e), 6144, 0,
                                            2048), want, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_perf_ttft(gs_llm_engine_perf(e), 2048, 0,
                                            0), hand_prefill_7b(2048), 1e-12);
    gs_llm_engine_free(e);
}

/* Poisson arrivals at rate lambda, one sequence at a time, fixed lengths:
 * deterministic service S, so M/D/1 and Wq = lambda S^2 / (2 (1 - rho)).
 * With 200,000 requests at rho = 0.6 the sample mean's standard error is
 * about 1% (waits are autocorrelated; measured over 12 seeds, the
 * deviations from P-K had a standard deviation of 0.95%), so the 3% bound
 * is three standard errors, and a service time 2% off already breaks it
 * (the mean wait grows as S^2). */
static void test_md1(void)
{
    struct gs_llm_engine_cfg c = cfg_7b();
    c.max_seqs = 1;
    struct gs_llm_engine *e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
    const int n = 200000, P = 512, O = 8;
    double S = hand_prefill_7b(P);
    for (int j = 0; j < O - 1; j++)
        S += hand_decode_7b(P + j);
    const double rho = 0.6, lambda = rho / S;
    struct gs_llm_req *q = calloc((size_t)n, sizeof *q);
    struct rec *r = calloc((size_t)n, sizeof *r);
    gsl_rng *g = gs_rng_stream(7, "md1");
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += gsl_ran_exponential(g, 1 / lambda);
        q[i] = (struct gs_llm_req){ .id = (uint64_t)i, .arrival = t,
                                    .prompt = P, .output = O };
    }
    struct log l = { .r = r, .n = n };
    drive(e, q, n, &l);
    double wsum = 0, smax = 0;
    for (int i = 0; i < n; i++) {
        double soj = r[i].done - q[i].arrival;
        wsum += soj - S;
        smax = fmax(smax, fabs(r[i].first - r[i].done + S
                               - hand_prefill_7b(P)));
    }
    double wq = wsum / n, pk = lambda * S * S / (2 * (1 - rho));
    CU_ASSERT(fabs(wq / pk - 1) < 0.03);
    CU_ASSERT(smax < 1e-9);     /* every service took exactly S */
    printf("\n    M/D/1: Wq %.6f s, Pollaczek-Khinchine %.6f s",
           wq, pk);
    gsl_rng_free(g);
    free(q);
    free(r);
    gs_llm_engine_free(e);
}

/* An engine whose KV cache holds exactly `blocks` 16-token blocks of
 * Llama-2-7B (8 MiB each) on an A100 with 15 GB of weights' headroom. */
static struct gs_llm_engine_cfg cfg_blocks(long blocks, double *mem)
{
    struct gs_llm_engine_cfg c = cfg_7b();
    c.gpu_mem_util = 1;
    c.reserve_gb = 0;
    double w = gs_llm_arch_weight_bytes(&c.arch);
    c.hw.mem_gb = (w + (blocks + 0.5) * 8388608.0) / GIB;
    *mem = c.hw.mem_gb;
    return c;
}

/* A backlog of 10 N requests whose KV never grows past 63 blocks (prompt
 * 1000, 9 tokens out: 1008 = 63 * 16).  Prefill-first batching admits
 * N = (B - floor(B / 100)) / 63 at once, decodes them together and starts
 * the next wave when they finish: throughput N / cycle exactly. */
static void test_kv_bound(void)
{
    double mem;
    struct gs_llm_engine_cfg c = cfg_blocks(1000, &mem);
    c.chunked_prefill = 0;
    c.max_batched_tokens = 100000;
    struct gs_llm_engine *e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
    struct gs_llm_stats s;
    gs_llm_engine_stats(e, &s);
    CU_ASSERT_EQUAL_FATAL(s.blocks_total, 1000);
    const int N = (1000 - 10) / 63;         /* 15 */
    const int n = 10 * N;
    struct gs_llm_req *q = calloc((size_t)n, sizeof *q);
    struct rec *r = calloc((size_t)n, sizeof *r);
    for (int i = 0; i < n; i++)
        q[i] = (struct gs_llm_req){ .id = (uint64_t)i, .prompt = 1000,
                                    .output = 9 };
    struct log l = { .r = r, .n = n };
    double end = drive(e, q, n, &l);
    const struct gs_llm_perf *p = gs_llm_engine_perf(e);
    double cycle = gs_llm_perf_prefill(p, N, 1000);
    for (int j = 0; j < 8; j++)
        cycle += gs_llm_perf_decode(p, N, 1000 + j);
    CU_ASSERT_DOUBLE_EQUAL(end, 10 * cycle, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n / end, N / cycle, 1e-9);
    /* the first wave is N requests, all done at one cycle */
    int first_wave = 0;
    for (int i = 0; i < n; i++)
        first_wave += fabs(r[i].done - cycle) < 1e-9;
    CU_ASSERT_EQUAL(first_wave, N);
    CU_ASSERT_EQUAL(l.npre, 0);
    free(q);
    free(r);
    gs_llm_engine_free(e);
}

/* Two requests of 160-token prompts (10 blocks each) decode in a cache of
 * 27 blocks (watermark 0): 7 free after admission.  Both start a block at
 * decode steps 0, 16, 32, 48: 7 -> 5 -> 3 -> 1, and at step 48 the newest
 * is preempted -- not one step earlier. */
static void test_preemption_point(void)
{
    double mem;
    struct gs_llm_engine_cfg c = cfg_blocks(27, &mem);
    struct gs_llm_engine *e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
    struct gs_llm_req q[2] = {
        { .id = 0, .prompt = 160, .output = 100 },
        { .id = 1, .prompt = 160, .output = 100 },
    };
    struct rec r[2] = { { 0 } };
    struct log l = { .r = r, .n = 2 };
    gs_llm_engine_add(e, &q[0]);
    gs_llm_engine_add(e, &q[1]);
    double now = 0;
    /* iteration 0: both prefills; then decode steps 0.. */
    for (int it = 0; it < 50; it++) {
        double d = gs_llm_engine_step(e, now);
        CU_ASSERT_FATAL(d > 0);
        struct gs_llm_stats s;
        gs_llm_engine_stats(e, &s);
        if (it >= 1) {
            int step = it - 1;
            CU_ASSERT_EQUAL(gs_llm_engine_last(e)->decode_tokens,
                            step < 48 ? 2 : 1);
            CU_ASSERT_EQUAL(s.preemptions, step < 48 ? 0 : 1);
            if (step == 32)
                CU_ASSERT_EQUAL(s.blocks_used, 26);
        }
        now += d;
        gs_llm_engine_finish_iteration(e, &cbs, &l);
    }
    CU_ASSERT_EQUAL(l.npre, 1);
    CU_ASSERT_EQUAL(l.last_pre_id, 1);
    /* finish: the preempted one recomputes 160 + 48 tokens and completes */
    double end = now, t;
    for (;;) {
        t = gs_llm_engine_step(e, end);
        if (t <= 0)
            break;
        end += t;
        gs_llm_engine_finish_iteration(e, &cbs, &l);
    }
    CU_ASSERT_EQUAL(r[0].ndone, 1);
    CU_ASSERT_EQUAL(r[1].ndone, 1);
    CU_ASSERT_EQUAL(r[1].nfirst, 1);
    CU_ASSERT_EQUAL(r[1].preempted, 1);
    struct gs_llm_stats s;
    gs_llm_engine_stats(e, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.decode_tokens, 2 * 99 - 1, 0);
    /* the recomputation: 160 prompt + 49 generated tokens */
    CU_ASSERT_DOUBLE_EQUAL(s.prefill_tokens, 160 + 160 + 209, 0);
    CU_ASSERT_EQUAL(s.blocks_used, 0);
    gs_llm_engine_free(e);
}

/* The second request shares 3 of its 4 units with the first: its prefill is
 * the 1000 tokens after 1536 cached ones. */
static void test_prefix_hits(void)
{
    struct gs_llm_engine_cfg c = cfg_7b();
    c.prefix_caching = 1;
    struct gs_llm_engine *e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
    static const uint64_t h1[] = { 11, 12, 13, 14, 15 };
    static const uint64_t h2[] = { 11, 12, 13, 99, 98 };
    struct gs_llm_req q[2] = {
        { .id = 0, .arrival = 0, .prompt = 2536, .output = 4,
          .hash_ids = h1, .n_hash = 5 },
        { .id = 1, .arrival = 10, .prompt = 2536, .output = 4,
          .hash_ids = h2, .n_hash = 5 },
    };
    struct rec r[2] = { { 0 } };
    struct log l = { .r = r, .n = 2 };
    drive(e, q, 2, &l);
    CU_ASSERT_DOUBLE_EQUAL(r[0].first, hand_prefill_7b(2536), 1e-12);
    CU_ASSERT_EQUAL(r[0].cached, 0);
    CU_ASSERT_EQUAL(r[1].cached, 1536);
    struct gs_llm_batch b = { .prefill_tokens = 1000,
                              .prefill_attn = 1000 * (1536 + 1001.0 / 2),
                              .prefill_ctx = 2536, .sampled = 1, .seqs = 1 };
    CU_ASSERT_DOUBLE_EQUAL(r[1].first - 10,
                           gs_llm_perf_time(gs_llm_engine_perf(e), &b), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[1].first - 10,
                           gs_llm_perf_ttft(gs_llm_engine_perf(e), 2536, 1536,
                                            8192), 1e-12);
    struct gs_llm_stats s;
    gs_llm_engine_stats(e, &s);
    /* cached units: 11..14 and 99 (4 full units each), 32 blocks each */
    CU_ASSERT_EQUAL(s.blocks_cached, 5 * 32);
    CU_ASSERT_EQUAL(s.blocks_used, 5 * 32);
    CU_ASSERT_DOUBLE_EQUAL(s.cached_tokens, 1536, 0);
    gs_llm_engine_free(e);
}

/* A cache of 100 blocks (watermark 1): a running request of 600 tokens
 * holds 38 blocks, so two cached 32-block units fit beside it; the third
 * distinct prefix evicts the least recently released unit. */
static void test_prefix_lru(void)
{
    double mem;
    struct gs_llm_engine_cfg c = cfg_blocks(100, &mem);
    c.prefix_caching = 1;
    struct gs_llm_engine *e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
    static const uint64_t h[4][1] = { { 1 }, { 2 }, { 3 }, { 4 } };
    struct gs_llm_req q[6];
    for (int i = 0; i < 4; i++)
        q[i] = (struct gs_llm_req){ .id = (uint64_t)i, .arrival = 10.0 * i,
                                    .prompt = 600, .output = 2,
                                    .hash_ids = h[i], .n_hash = 1 };
    /* then unit 1 (evicted: no hit) and unit 3 (kept: hit) */
    q[4] = (struct gs_llm_req){ .id = 4, .arrival = 50, .prompt = 600,
                                .output = 2, .hash_ids = h[2], .n_hash = 1 };
    q[5] = (struct gs_llm_req){ .id = 5, .arrival = 60, .prompt = 600,
                                .output = 2, .hash_ids = h[0], .n_hash = 1 };
    struct rec r[6] = { { 0 } };
    struct log l = { .r = r, .n = 6 };
    drive(e, q, 6, &l);
    CU_ASSERT_EQUAL(r[4].cached, 512);
    CU_ASSERT_EQUAL(r[5].cached, 0);
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(r[i].ndone, 1);
    gs_llm_engine_free(e);
}

/* A random workload with shared prefixes in a small cache: every request
 * gets one first token and one finish, in that order; the blocks left are
 * exactly the cached units; two runs agree to the bit. */
static double run_mixed(int chunked, int prefix, long *pre, int *bad)
{
    double mem;
    struct gs_llm_engine_cfg c = cfg_blocks(400, &mem);
    c.chunked_prefill = chunked;
    c.prefix_caching = prefix;
    c.max_batched_tokens = 2048;
    c.max_seqs = 64;
    struct gs_llm_engine *e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
    const int n = 3000;
    struct gs_llm_req *q = calloc((size_t)n, sizeof *q);
    struct rec *r = calloc((size_t)n, sizeof *r);
    uint64_t *hs = calloc((size_t)n * 8, sizeof *hs);
    gsl_rng *g = gs_rng_stream(3, "mixed");
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += gsl_ran_exponential(g, 0.05);
        int p = 1 + (int)gsl_rng_uniform_int(g, 3000);
        int o = 1 + (int)gsl_rng_uniform_int(g, 400);
        int nh = (int)gsl_rng_uniform_int(g, 7);
        uint64_t root = gsl_rng_uniform_int(g, 4);
        for (int k = 0; k < nh; k++)
            hs[8 * i + k] = k < 2 ? root * 1000 + (uint64_t)k
                                  : (1ULL << 40) + (uint64_t)i * 8 + k;
        q[i] = (struct gs_llm_req){ .id = (uint64_t)i, .arrival = t,
                                    .prompt = p, .output = o,
                                    .hash_ids = hs + 8 * i, .n_hash = nh };
    }
    struct log l = { .r = r, .n = n };
    double end = drive(e, q, n, &l);
    double sum = end;
    for (int i = 0; i < n; i++) {
        if (r[i].nfirst != 1 || r[i].ndone != 1 || r[i].first > r[i].done
            || r[i].first <= q[i].arrival)
            (*bad)++;
        sum += r[i].first * 1e-3 + r[i].done * 1e-6;
    }
    *bad += l.order_bad;
    struct gs_llm_stats s;
    gs_llm_engine_stats(e, &s);
    if (s.blocks_used != s.blocks_cached || s.running || s.waiting
        || s.finished != n || s.preemptions != l.npre)
        (*bad)++;
    *pre = l.npre;
    gsl_rng_free(g);
    free(q);
    free(r);
    free(hs);
    gs_llm_engine_free(e);
    return sum;
}

/* Engines alike share one memo of iteration costs, engines that differ
 * do not, and a shared memo (filled by another engine's iterations)
 * changes no result: the run is the same to the bit. */
static void test_shared_memo(void)
{
    double mem;
    struct gs_llm_engine_cfg c = cfg_blocks(400, &mem);
    c.max_batched_tokens = 2048;
    c.max_seqs = 64;
    struct gs_llm_engine *warm, *other, *slow, *wide;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &warm, NULL), 0);
    struct gs_llm_engine_cfg cl = c;
    cl.memo = gs_llm_engine_memo(warm);
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&cl, &other, NULL), 0);
    CU_ASSERT_PTR_EQUAL(gs_llm_engine_memo(other), gs_llm_engine_memo(warm));
    struct gs_llm_engine_cfg cs = cl;
    cs.hw.tflops *= 0.9;            /* a power-capped GPU: other figures */
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&cs, &slow, NULL), 0);
    CU_ASSERT_PTR_NOT_EQUAL(gs_llm_engine_memo(slow),
                            gs_llm_engine_memo(warm));
    cs = cl;
    cs.max_batched_tokens = 8192;   /* another budget: another size */
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&cs, &wide, NULL), 0);
    CU_ASSERT_PTR_NOT_EQUAL(gs_llm_engine_memo(wide),
                            gs_llm_engine_memo(warm));
    /* warm's memo fills over a run of warm's own */
    enum { N = 400 };
    static struct gs_llm_req q[N];
    static struct rec r1[N], r2[N];
    gsl_rng *g = gs_rng_stream(9, "memo");
    double t = 0;
    for (int i = 0; i < N; i++) {
        t += gsl_ran_exponential(g, 0.02);
        q[i] = (struct gs_llm_req){ .id = (uint64_t)i, .arrival = t,
                .prompt = 1 + (int)gsl_rng_uniform_int(g, 2000),
                .output = 1 + (int)gsl_rng_uniform_int(g, 300) };
    }
    struct log l1 = { .r = r1, .n = N }, l2 = { .r = r2, .n = N };
    drive(warm, q, N, &l1);
    gs_llm_engine_free(warm);       /* other still holds the memo */
    struct gs_llm_engine *fresh;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &fresh, NULL), 0);
    memset(r1, 0, sizeof r1);
    l1 = (struct log){ .r = r1, .n = N };
    double a = drive(other, q, N, &l1), b = drive(fresh, q, N, &l2);
    CU_ASSERT(memcmp(&a, &b, sizeof a) == 0);
    CU_ASSERT(memcmp(r1, r2, sizeof r1) == 0);
    CU_ASSERT_EQUAL(l1.npre, l2.npre);
    gsl_rng_free(g);
    gs_llm_engine_free(other);
    gs_llm_engine_free(fresh);
    gs_llm_engine_free(slow);
    gs_llm_engine_free(wide);
}

static void test_accounting_and_determinism(void)
{
    for (int chunked = 0; chunked < 2; chunked++)
        for (int prefix = 0; prefix < 2; prefix++) {
            long pre = 0, pre2 = 0;
            int bad = 0;
            double a = run_mixed(chunked, prefix, &pre, &bad);
            double b = run_mixed(chunked, prefix, &pre2, &bad);
            CU_ASSERT_EQUAL(bad, 0);
            CU_ASSERT(memcmp(&a, &b, sizeof a) == 0);
            CU_ASSERT(pre > 0);         /* the small cache forces some */
            CU_ASSERT_EQUAL(pre, pre2);
        }
}

/* Random configurations (roles, block and prefix sizes, budgets, chunking,
 * TP, KV room) under random streams with shared prefixes and hand-offs:
 * every accepted request finishes once, has one first token unless it came
 * with its KV, and the engine ends empty with only cached units held. */
static void test_random_configs(void)
{
    gsl_rng *g = gs_rng_stream(5, "fuzz");
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    int engines = 0, bad = 0;
    long preempted = 0;
    enum { N = 300 };
    for (int trial = 0; trial < 200; trial++) {
        struct gs_llm_engine_cfg c;
        gs_llm_engine_cfg_default(&c);
        gs_llm_arch_find(gsl_rng_uniform_int(g, 2) ? "llama2-7b"
                                                   : "mixtral-8x7b",
                         &c.arch, "$", NULL);
        gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "A100-80GB"),
                               &c.hw);
        c.tp = 1 << gsl_rng_uniform_int(g, 3);
        c.block_size = 1 << gsl_rng_uniform_int(g, 6);
        c.max_seqs = 1 + (int)gsl_rng_uniform_int(g, 64);
        c.max_batched_tokens = c.max_seqs + (int)gsl_rng_uniform_int(g, 4096);
        c.chunked_prefill = (int)gsl_rng_uniform_int(g, 2);
        c.prefix_caching = (int)gsl_rng_uniform_int(g, 2);
        c.prefix_block_tokens = c.block_size
                                * (1 + (int)gsl_rng_uniform_int(g, 8));
        c.role = (int)gsl_rng_uniform_int(g, 3);
        c.gpu_mem_util = 1;
        c.reserve_gb = 0;
        c.hw.mem_gb = (gs_llm_arch_weight_bytes(&c.arch) / c.tp
                       + (double)(300 + gsl_rng_uniform_int(g, 2000))
                         * gs_llm_arch_kv_bytes_per_token(&c.arch) / c.tp
                         * c.block_size) / GIB;
        struct gs_llm_engine *e;
        if (gs_llm_engine_new(&c, &e, NULL))
            continue;
        engines++;
        static struct gs_llm_req q[N];
        static struct rec r[N];
        static uint64_t hs[N][6];
        static int want_first[N];
        int n = 0;
        double t = 0;
        for (int i = 0; i < N; i++) {
            t += gsl_rng_uniform_int(g, 100) * 1e-3;
            int nh = (int)gsl_rng_uniform_int(g, 6);
            for (int k = 0; k < nh; k++)
                hs[n][k] = k < 2 ? gsl_rng_uniform_int(g, 3) * 10 + (uint64_t)k
                                 : 1000 + 8 * (uint64_t)i + (uint64_t)k;
            q[n] = (struct gs_llm_req){
                .id = (uint64_t)n, .arrival = t,
                .prompt = 1 + (int)gsl_rng_uniform_int(g, 3000),
                .output = 1 + (int)gsl_rng_uniform_int(g, 300),
                .hash_ids = hs[n], .n_hash = nh,
                .kv_ready = (int)gsl_rng_uniform_int(g, 2),
            };
            /* keep the requests the engine accepts (drive asserts) */
            struct gs_llm_engine *probe;
            gs_llm_engine_new(&c, &probe, NULL);
            int ok = gs_llm_engine_add(probe, &q[n]) == 0;
            gs_llm_engine_free(probe);
            if (ok) {
                want_first[n] = !(c.role == GS_LLM_DECODE && q[n].kv_ready);
                n++;
            }
        }
        memset(r, 0, sizeof r);
        struct log l = { .r = r, .n = n };
        drive(e, q, n, &l);
        for (int i = 0; i < n; i++)
            bad += r[i].ndone != 1 || r[i].nfirst != want_first[i];
        struct gs_llm_stats s;
        gs_llm_engine_stats(e, &s);
        bad += s.finished != n || s.running || s.waiting
               || s.blocks_used != s.blocks_cached;
        preempted += s.preemptions;
        gs_llm_engine_free(e);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(engines > 100);
    CU_ASSERT(preempted > 100);
    gsl_rng_free(g);
}

/* drive_apart, with each iteration's end and the next one's forming in
 * one gs_llm_engine_next call (what the service does); returns the number
 * of iterations. */
static long drive_next(struct gs_llm_engine *e, const struct gs_llm_req *q,
                       int n, struct log *l, struct gs_llm_iter *it, long cap)
{
    double now = 0, end = INFINITY;
    int next = 0;
    long ni = 0;
    for (;;) {
        double ta = next < n ? q[next].arrival : INFINITY;
        if (ta == INFINITY && end == INFINITY)
            break;
        double d = 0;
        if (ta <= end) {
            now = ta;
            while (next < n && q[next].arrival == now) {
                CU_ASSERT_EQUAL_FATAL(gs_llm_engine_add(e, &q[next]), 0);
                next++;
            }
            if (end == INFINITY)
                d = gs_llm_engine_step(e, now);
        } else {
            int done;
            now = end;
            end = INFINITY;
            d = gs_llm_engine_next(e, &cbs, l, &done);
        }
        if (d > 0) {
            end = now + d;
            if (ni < cap)
                it[ni++] = *gs_llm_engine_last(e);
        }
    }
    return ni;
}

/* gs_llm_engine_next against finish_iteration + step: random
 * configurations (KV room tight enough to preempt, block sizes from 1 to
 * 32, both batching modes, prefix caching, the three roles) and streams
 * whose requests come in bursts and lulls, so that long runs of unchanged
 * decode steps (its short way) alternate with arrivals, finishes and
 * preemptions; every iteration's figures, every callback and the final
 * stats equal to the bit. */
static void test_next_equals_apart(void)
{
    gsl_rng *g = gs_rng_stream(11, "next");
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    enum { N = 200, CAP = 20000 };
    static struct gs_llm_iter ia[CAP], ib[CAP];
    static struct gs_llm_req q[N];
    static struct rec ra[N], rb[N];
    int engines = 0, bad = 0;
    long iters = 0, preempted = 0;
    for (int trial = 0; trial < 80; trial++) {
        struct gs_llm_engine_cfg c;
        gs_llm_engine_cfg_default(&c);
        gs_llm_arch_find("llama2-7b", &c.arch, "$", NULL);
        gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "A100-80GB"),
                               &c.hw);
        c.block_size = 1 << gsl_rng_uniform_int(g, 6);
        c.max_seqs = 1 + (int)gsl_rng_uniform_int(g, 64);
        c.max_batched_tokens = c.max_seqs + (int)gsl_rng_uniform_int(g, 4096);
        c.chunked_prefill = (int)gsl_rng_uniform_int(g, 2);
        c.role = (int)gsl_rng_uniform_int(g, 3);
        c.gpu_mem_util = 1;
        c.reserve_gb = 0;
        c.hw.mem_gb = (gs_llm_arch_weight_bytes(&c.arch)
                       + (double)(400 + gsl_rng_uniform_int(g, 3000))
                         * gs_llm_arch_kv_bytes_per_token(&c.arch)
                         * c.block_size) / GIB;
        struct gs_llm_engine *a, *b;
        if (gs_llm_engine_new(&c, &a, NULL))
            continue;
        gs_llm_engine_new(&c, &b, NULL);
        engines++;
        int n = 0;
        double t = 0;
        for (int i = 0; i < N; i++) {
            /* bursts of a few requests, then a lull of up to 3 s */
            t += gsl_rng_uniform_int(g, 5) ? gsl_rng_uniform_int(g, 20) * 1e-3
                                           : gsl_rng_uniform(g) * 3;
            q[n] = (struct gs_llm_req){
                .id = (uint64_t)n, .arrival = t,
                .prompt = 1 + (int)gsl_rng_uniform_int(g, 2000),
                .output = 1 + (int)gsl_rng_uniform_int(g, 400),
                .kv_ready = (int)gsl_rng_uniform_int(g, 2),
            };
            struct gs_llm_engine *probe;
            gs_llm_engine_new(&c, &probe, NULL);
            n += gs_llm_engine_add(probe, &q[n]) == 0;
            gs_llm_engine_free(probe);
        }
        memset(ra, 0, sizeof ra);
        memset(rb, 0, sizeof rb);
        struct log la = { .r = ra, .n = n }, lb = { .r = rb, .n = n };
        long na;
        drive_apart(a, q, n, &la, ia, CAP, &na);
        long nb = drive_next(b, q, n, &lb, ib, CAP);
        struct gs_llm_stats sa, sb;
        gs_llm_engine_stats(a, &sa);
        gs_llm_engine_stats(b, &sb);
        bad += na != nb || memcmp(ia, ib, (size_t)na * sizeof *ia) != 0 ||
               memcmp(ra, rb, sizeof ra) != 0 || la.npre != lb.npre ||
               memcmp(&sa, &sb, sizeof sa) != 0 || sa.finished != n;
        iters += na;
        preempted += sa.preemptions;
        gs_llm_engine_free(a);
        gs_llm_engine_free(b);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(engines > 60);
    CU_ASSERT(iters > 100000);
    CU_ASSERT(preempted > 100);
    gsl_rng_free(g);
}

/* Splitwise-style hand-off: a prefill-only engine finishes a request with
 * its first token; a decode-only engine takes it with its KV and needs
 * output - 1 decode steps, no prefill. */
static void test_disaggregated(void)
{
    struct gs_llm_engine_cfg c = cfg_7b();
    c.role = GS_LLM_PREFILL;
    struct gs_llm_engine *pe, *de;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &pe, NULL), 0);
    c.role = GS_LLM_DECODE;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &de, NULL), 0);
    struct gs_llm_req q = { .id = 0, .prompt = 1024, .output = 10 };
    struct rec r[1] = { { 0 } };
    struct log l = { .r = r, .n = 1 };
    drive(pe, &q, 1, &l);
    CU_ASSERT_DOUBLE_EQUAL(r[0].first, hand_prefill_7b(1024), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[0].done, r[0].first, 0);
    double xfer = gs_llm_kv_transfer_time(&c.arch, 1024, 50, 0);
    CU_ASSERT_DOUBLE_EQUAL(xfer, 1024 * 524288.0 / 50e9, 1e-15);
    struct gs_llm_req q2 = q;
    q2.arrival = r[0].done + xfer;
    q2.kv_ready = 1;
    struct rec r2[1] = { { 0 } };
    struct log l2 = { .r = r2, .n = 1 };
    drive(de, &q2, 1, &l2);
    double t = 0;
    for (int j = 0; j < 9; j++)
        t += hand_decode_7b(1024 + j);
    CU_ASSERT_DOUBLE_EQUAL(r2[0].done - q2.arrival, t, 1e-9);
    struct gs_llm_stats s;
    gs_llm_engine_stats(de, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.prefill_tokens, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.decode_tokens, 9, 0);
    gs_llm_engine_free(pe);
    gs_llm_engine_free(de);
}

/* A hand-off of one output token: the prefill side made its only token,
 * so the decode-only engine finishes it on arrival -- no blocks, no
 * iteration, no callback -- and a later hand-off runs as if it had never
 * come. */
static void test_handoff_one_token(void)
{
    struct gs_llm_engine_cfg c = cfg_7b();
    c.role = GS_LLM_DECODE;
    struct gs_llm_engine *e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
    struct gs_llm_req h = { .id = 0, .arrival = 2, .prompt = 700,
                            .output = 1, .kv_ready = 1 };
    CU_ASSERT_EQUAL(gs_llm_engine_add(e, &h), GS_LLM_DONE);
    struct gs_llm_stats s;
    gs_llm_engine_stats(e, &s);
    CU_ASSERT_EQUAL(s.finished, 1);
    CU_ASSERT_EQUAL(s.waiting + s.running, 0);
    CU_ASSERT_EQUAL(s.blocks_used, 0);
    CU_ASSERT_EQUAL(gs_llm_engine_step(e, 2), 0);      /* stays idle */
    /* the next hand-off (3 tokens: 2 decode steps) as on a fresh engine */
    struct gs_llm_req q = { .id = 0, .arrival = 3, .prompt = 700,
                            .output = 3, .kv_ready = 1 };
    struct rec r[1] = { { 0 } };
    struct log l = { .r = r, .n = 1 };
    drive(e, &q, 1, &l);
    CU_ASSERT_EQUAL(r[0].nfirst, 0);    /* the prefill side reported it */
    CU_ASSERT_EQUAL(r[0].ndone, 1);
    CU_ASSERT_DOUBLE_EQUAL(r[0].done - 3,
                           hand_decode_7b(700) + hand_decode_7b(701), 1e-12);
    gs_llm_engine_stats(e, &s);
    CU_ASSERT_EQUAL(s.finished, 2);
    CU_ASSERT_EQUAL(s.iterations, 2);
    gs_llm_engine_free(e);
}

/* A request whose prompt's KV is all there on arrival (a KV store's hit)
 * decodes at once: its first token ends its first iteration, by hand one
 * decode step over its 1024 tokens (+1), and its last the tenth; in a
 * prefill-only engine it leaves with that first token.  Beside a prompt
 * being prefilled (queued after it: the queue is FIFO), it shares that
 * prompt's first iteration and gets its first token at the same instant. */
static void test_kv_present_first_token(void)
{
    for (int role = GS_LLM_BOTH; role <= GS_LLM_PREFILL; role++) {
        struct gs_llm_engine_cfg c = cfg_7b();
        c.role = role;
        struct gs_llm_engine *e;
        CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
        struct gs_llm_req q = { .id = 0, .arrival = 0.5, .prompt = 1024,
                                .output = 10, .kv_ready = 1 };
        struct rec r[1] = { { 0 } };
        struct log l = { .r = r, .n = 1 };
        drive(e, &q, 1, &l);
        CU_ASSERT_EQUAL(r[0].nfirst, 1);
        CU_ASSERT_EQUAL(r[0].ndone, 1);
        CU_ASSERT_EQUAL(r[0].cached, 1024);
        CU_ASSERT_DOUBLE_EQUAL(r[0].first - 0.5, hand_decode_7b(1024), 1e-12);
        double t = 0;
        for (int j = 0; j < (role == GS_LLM_PREFILL ? 1 : 10); j++)
            t += hand_decode_7b(1024 + j);
        CU_ASSERT_DOUBLE_EQUAL(r[0].done - 0.5, t, 1e-9);
        struct gs_llm_stats s;
        gs_llm_engine_stats(e, &s);
        CU_ASSERT_DOUBLE_EQUAL(s.prefill_tokens, 0, 0);
        CU_ASSERT_DOUBLE_EQUAL(s.cached_tokens, 1024, 0);
        CU_ASSERT_EQUAL(s.blocks_used, 0);
        gs_llm_engine_free(e);
    }
    struct gs_llm_engine_cfg c = cfg_7b();
    struct gs_llm_engine *e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, NULL), 0);
    struct gs_llm_req q[2] = {      /* FIFO: the cached one first */
        { .id = 0, .arrival = 1, .prompt = 900, .output = 4, .kv_ready = 1 },
        { .id = 1, .arrival = 1, .prompt = 600, .output = 4 },
    };
    struct rec r[2] = { { 0 } };
    struct log l = { .r = r, .n = 2 };
    drive(e, q, 2, &l);
    struct gs_llm_batch b = {
        .prefill_tokens = 600, .prefill_attn = 600 * 601 / 2.0,
        .prefill_ctx = 600, .decode_tokens = 1, .decode_ctx = 901,
        .sampled = 2, .seqs = 2,
    };
    double it1 = gs_llm_perf_time(gs_llm_engine_perf(e), &b);
    CU_ASSERT_DOUBLE_EQUAL(r[0].first - 1, it1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r[1].first - 1, it1, 1e-12);
    CU_ASSERT_EQUAL(r[0].nfirst + r[1].nfirst, 2);
    gs_llm_engine_free(e);
}

static void test_bad_config(void)
{
    struct gs_llm_engine_cfg c = cfg_7b();
    struct gs_llm_engine *e = NULL;
    struct gs_diag d = { 0 };
    gs_llm_arch_find("llama2-70b", &c.arch, "$", NULL);
    CU_ASSERT_EQUAL(gs_llm_engine_new(&c, &e, &d), GS_ENOFIT);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "no room"));
    c.tp = 4;                       /* 35 GB per GPU fits */
    CU_ASSERT_EQUAL(gs_llm_engine_new(&c, &e, NULL), 0);
    struct gs_llm_req q = { .id = 1, .prompt = 0, .output = 1 };
    CU_ASSERT_EQUAL(gs_llm_engine_add(e, &q), GS_EINVAL);
    q.prompt = 100000000;
    CU_ASSERT_EQUAL(gs_llm_engine_add(e, &q), GS_ENOFIT);
    CU_ASSERT_EQUAL(gs_llm_engine_step(e, 0), 0);     /* idle */
    gs_llm_engine_free(e);
    /* a hand-off still needs sound lengths */
    c.role = GS_LLM_DECODE;
    CU_ASSERT_EQUAL(gs_llm_engine_new(&c, &e, NULL), 0);
    struct gs_llm_req h = { .id = 2, .prompt = 100, .output = 0,
                            .kv_ready = 1 };
    CU_ASSERT_EQUAL(gs_llm_engine_add(e, &h), GS_EINVAL);
    h.output = 2;
    CU_ASSERT_EQUAL(gs_llm_engine_add(e, &h), 0);
    gs_llm_engine_free(e);
    gs_llm_engine_free(NULL);
    c = cfg_7b();
    c.max_batched_tokens = 10;
    CU_ASSERT_EQUAL(gs_llm_engine_new(&c, &e, NULL), GS_EINVAL);
    c = cfg_7b();
    c.prefix_caching = 1;
    c.prefix_block_tokens = 500;
    CU_ASSERT_EQUAL(gs_llm_engine_new(&c, &e, NULL), GS_EINVAL);
    gs_diag_free(&d);
}

static CU_TestInfo tests[] = {
    { "architectures match published sizes", test_arch_sizes },
    { "architecture errors name the place", test_arch_errors },
    { "GPU catalog carries the LLM factors", test_catalog_factors },
    { "roofline equals the hand calculation", test_operators_by_hand },
    { "one request alone: exact TTFT and ITL", test_single_request },
    { "batch 1 is M/D/1 (Pollaczek-Khinchine)", test_md1 },
    { "throughput at the KV-cache bound", test_kv_bound },
    { "preemption exactly when blocks run out", test_preemption_point },
    { "prefix hits skip their prefill", test_prefix_hits },
    { "prefix cache evicts least recently used", test_prefix_lru },
    { "every request accounted, runs identical",
      test_accounting_and_determinism },
    { "engines alike share an exact memo", test_shared_memo },
    { "random configurations: all accounted", test_random_configs },
    { "one call for an end and the next step: the same to the bit",
      test_next_equals_apart },
    { "disaggregated prefill and decode", test_disaggregated },
    { "hand-off of one token finishes on arrival", test_handoff_one_token },
    { "KV present on arrival: first token after one iteration",
      test_kv_present_first_token },
    { "bad configurations and requests", test_bad_config },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("llmengine", tests)
