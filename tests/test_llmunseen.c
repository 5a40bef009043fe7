/* test_llmunseen.c -- the iteration model on LLMs no data set measured, on every catalog GPU: monotone, above the roofline floor, within a stated factor of it, sensible under TP.
 *
 * The kernel factors were fitted on Llama-2/3 and phi-2 layers (Vidur) and
 * the serving factors on Llama-2-70B and BLOOM-176B (Splitwise).  A user
 * declares other LLMs, and plans on GPUs no one profiled (L40S, H200 and
 * B200 take a measured GPU's factors with their datasheet's peaks).  Here
 * four shapes in neither data set -- Mistral-7B, Qwen-2-72B,
 * Llama-3.1-405B and a one-layer toy with a plain MLP -- are declared
 * field by field (not taken from the built-in list) and timed on every
 * GPU of the catalog at TP 1, 2, 4 and 8, checking what must hold for any
 * right model:
 * - monotone: an iteration never takes less time for more prompt tokens,
 *   more decoding sequences or a longer context;
 * - the floor: never faster than the datasheet allows, max(FLOPs / peak
 *   FLOP/s, bytes / peak bandwidth), with FLOPs and bytes counted here
 *   independently of the model (the weights' GEMMs and attention; the
 *   weights read once and the KV cache read once);
 * - the ceiling: the operators (the same iteration without attention)
 *   within UNSEEN_FACTOR of their floor (now with the activations each
 *   kernel reads and writes) plus the model's own stated fixed costs (per
 *   iteration and prefill, per layer, per kernel, per sequence, the two
 *   all-reduces per layer and the big ones' extra pass) -- the kernels
 *   run at no less than a stated
 *   share of the datasheet;
 * - attention's ceiling: within ATTN_FACTOR of its roofline, and a long
 *   prompt (8,192 tokens or more) less the fixed costs within
 *   LONG_FACTOR of its floor (below);
 * - TP: a prefill of 8,192 tokens gets faster with more GPUs, and never
 *   more than proportionally (TP t to 2t at most 2x).
 * docs/inference.md ("LLMs no data set measured") reports the ratios. */
#include "cutest.h"
#include "../sim/inference/llmops.h"
#include "../sim/cluster/gpu.h"

#include <math.h>
#include <string.h>

/* The ceiling's factor: (operators' time - fixed costs) / their floor,
 * measured at most 2.6 on the profiled GPUs and the ones derived from
 * them, 3.05 on the GPUs with default factors (K80, P100), over every
 * shape and TP below (docs/inference.md). */
#define UNSEEN_FACTOR 3.5
/* ... for iterations whose operators' floor is at least 100 us; below it
 * the launches and the fixed costs (measured, not derived) decide. */
#define CEILING_FROM 100e-6
/* Attention's ceiling: attention (the iteration less the same tokens
 * without attention) within ATTN_FACTOR of its roofline (4 d/t FLOPs per
 * query-key pair, the KV read once) in every iteration, and a single
 * prompt of LONG_FROM tokens or more, less the model's stated fixed
 * costs, within LONG_FACTOR of the iteration's roofline floor, on every
 * catalog GPU.  Measured: attention at most 5.2x (the H100's fitted
 * decode attention bandwidth, 19% of peak, which H200 and B200 take;
 * 12.8x when its fit gave 7.8%; 2.8x in prefill on the other fitted
 * GPUs, where prefill attention runs at half the GEMMs' compute
 * efficiency by rule; 10x on the default factors of K80, P100, V100,
 * T4, A10...), long prompts at most 2.4x on the GPUs with fitted or
 * derived serving factors (2.9x for the one-layer toy) and 9.95x on the
 * default factors (docs/inference.md).  Before
 * issue 24's serving model the H100's fitted prefill attention at 1.4% of
 * peak gave 71x (a 27,632-token prompt of Mistral-7B at TP 8: 1.99 s
 * against a 74 ms floor). */
#define ATTN_FACTOR 13.5
#define LONG_FROM 8192
#define LONG_FACTOR(fitted) ((fitted) ? 4.0 : 12.5)

static const struct gs_llm_arch unseen[] = {
    /* name, layers, d, heads, kv, ffn, gated, experts, active, vocab,
     * bytes/param, kv bytes, tied, layernorm (public configs:
     * Mistral-7B-v0.1, Qwen2-72B, Llama-3.1-405B; the toy is GPT-like) */
    { "mistral-7b",   32,  4096,  32, 8, 14336, 1, 1, 1,  32000, 2, 0, 0, 0 },
    { "qwen2-72b",    80,  8192,  64, 8, 29568, 1, 1, 1, 152064, 2, 0, 0, 0 },
    { "llama3.1-405b", 126, 16384, 128, 8, 53248, 1, 1, 1, 128256, 2, 0, 0, 0 },
    { "toy-1-layer",   1,   256,   4, 4,  1024, 0, 1, 1,   1000, 2, 0, 0, 1 },
};

/* Parameters of one layer (attention and MLP weights). */
static double layer_params(const struct gs_llm_arch *a)
{
    double d = a->hidden, hd = d / a->heads;
    return d * (a->heads + 2.0 * a->kv_heads) * hd + a->heads * hd * d
           + (a->gated ? 3.0 : 2.0) * d * a->ffn;
}

/* BF16 activation bytes one token moves through one layer on one GPU of
 * TP t: each GEMM's input and output, each elementwise kernel's reads and
 * writes (two norms, rotary, activation, two residual adds). */
static double act_bytes(const struct gs_llm_arch *a, int t)
{
    double d = a->hidden, hd = d / a->heads, f = (double)a->ffn / t;
    double hq = (double)a->heads / t;
    double hkv = a->kv_heads >= t ? (double)a->kv_heads / t : 1.0;
    double gemm = d + (hq + 2 * hkv) * hd + hq * hd + d
                  + d + (a->gated ? 2 : 1) * f + f + d;
    double elem = 2 * 2 * d + 2 * (hq + hkv) * hd + (a->gated ? 3 : 2) * f
                  + 2 * 3 * d;
    return 2 * (gemm + elem);
}

/* The roofline floor of an iteration on one GPU of TP t: tok tokens
 * through every layer and the LM head over `sampled` sequences, pairs
 * query-key pairs of attention, ctx cached tokens read; the weights read
 * once, and with `acts` the activations each kernel moves too. */
static double floor_time(const struct gs_llm_arch *a, const struct gs_llm_hw *hw,
                         int t, double tok, double pairs, double ctx,
                         double sampled, int acts)
{
    double d = a->hidden, hd = d / a->heads, L = a->layers;
    double kvh = a->kv_heads >= t ? (double)a->kv_heads / t : 1.0;
    double w = (L * layer_params(a) + d * a->vocab) / t;
    double flops = 2 * tok * L * layer_params(a) / t
                   + 2 * sampled * d * a->vocab / t + 4 * d / t * pairs * L;
    double bytes = 2 * w + L * ctx * 2 * kvh * hd * 2
                   + (acts ? tok * L * act_bytes(a, t) : 0);
    double c = flops / (hw->tflops * 1e12), m = bytes / (hw->bw_gbs * 1e9);
    return c > m ? c : m;
}

/* The fixed costs the model states: per iteration (and per prefilling
 * iteration), per layer (the host's launch floor for the layer's kernel
 * count and each kernel's fixed cost: four GEMMs, seven elementwise
 * kernels with their waves), per sequence per layer, and the two
 * all-reduces per layer with the stack's extra pass over big ones. */
static double fixed_time(const struct gs_llm_arch *a,
                         const struct gs_llm_perf *p, double tok,
                         double seqs, int prefill)
{
    const struct gs_gpu_llm *e = &p->hw.eff;
    int t = p->tp;
    double bytes = 2.0 * a->hidden * tok;
    double ar = 2 * gs_llm_allreduce_time(e, bytes, t);
    if (t > 1 && e->ar_big_gbs > 0 && bytes >= GS_AR_BIG_BYTES)
        ar += 2 * bytes * 2 * (t - 1.0) / t / (e->ar_big_gbs * 1e9);
    double kern = (4 * e->gemm_us + 3 * e->elem_wave_us) * 1e-6;
    for (int k = 0; k < GS_EK_N; k++)
        kern += 2 * e->elem_us[k] * 1e-6;
    double layer = p->host_layer_s > kern ? p->host_layer_s : kern;
    return (e->iter_ms + (prefill ? e->prefill_ms : 0)) * 1e-3
           + e->gemm_us * 1e-6
           + a->layers * (layer + e->seq_us * 1e-6 * seqs + ar);
}

struct tally {
    double worst;           /* largest (operators - fixed) / their floor */
    double attn;            /* largest attention time / its floor */
    double pre_attn;        /* ... over prefill iterations only */
    double long_prompt;     /* largest prompt of >= LONG_FROM tokens /
                             * its roofline floor */
    double at_tok, at_time, at_lo;
    int at_t;
    long checks, bad_floor, bad_ceiling, bad_mono, bad_attn, bad_long;
};

/* The roofline floor of attention alone: pairs query-key pairs, ctx
 * cached tokens read. */
static double attn_floor(const struct gs_llm_arch *a, const struct gs_llm_hw *hw,
                         int t, double pairs, double ctx)
{
    double d = a->hidden, hd = d / a->heads;
    double kvh = a->kv_heads >= t ? (double)a->kv_heads / t : 1.0;
    double c = 4 * d / t * pairs * a->layers / (hw->tflops * 1e12);
    double m = a->layers * ctx * 2 * kvh * hd * 2 / (hw->bw_gbs * 1e9);
    return c > m ? c : m;
}

/* One iteration b of tok tokens: the whole iteration above its floor; its
 * operators (the same tokens with no attention) within the ceiling. */
static void check_one(const struct gs_llm_arch *a, const struct gs_llm_perf *p,
                      struct gs_llm_batch b, double tok, struct tally *y)
{
    const struct gs_llm_hw *hw = &p->hw;
    int t = p->tp;
    double pairs = b.prefill_attn + b.decode_ctx;
    double ctx = b.prefill_ctx + b.decode_ctx;
    double full = gs_llm_perf_time(p, &b);
    b.prefill_attn = b.prefill_ctx = b.decode_ctx = 0;
    double ops = gs_llm_perf_time(p, &b);
    double lo = floor_time(a, hw, t, tok, pairs, ctx, b.sampled, 0);
    double olo = floor_time(a, hw, t, tok, 0, 0, b.sampled, 1);
    double r = (ops - fixed_time(a, p, tok, b.seqs, b.prefill_tokens > 0))
               / olo;
    double ar = (full - ops) / attn_floor(a, hw, t, pairs, ctx);
    y->checks++;
    y->bad_floor += !(full >= lo) || !isfinite(full);
    if (ar > y->attn)
        y->attn = ar;
    y->bad_attn += !(ar <= ATTN_FACTOR);
    if (b.prefill_tokens > 0) {
        double lr = (full - fixed_time(a, p, tok, b.seqs, 1)) / lo;
        y->pre_attn = fmax(y->pre_attn, ar);
        if (tok >= LONG_FROM)
            y->long_prompt = fmax(y->long_prompt, lr);
        int fitted = p->hw.eff.prefill_ms > 0;  /* Splitwise's factors */
        y->bad_long += tok >= LONG_FROM && !(lr <= LONG_FACTOR(fitted));
    }
    if (olo < CEILING_FROM)
        return;             /* launch-bound: the fixed costs decide */
    y->bad_ceiling += !(r <= UNSEEN_FACTOR);
    if (r > y->worst) {
        y->worst = r;
        y->at_tok = tok;
        y->at_t = t;
        y->at_time = ops;
        y->at_lo = olo;
    }
}

static void check_arch(const struct gs_llm_arch *a, const struct gs_llm_hw *hw,
                       int t, struct tally *y)
{
    struct gs_llm_perf p;
    CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&p, a, hw, t, NULL), 0);
    /* prefill of one prompt, 1..32,768 tokens */
    double prev = 0;
    for (double n = 1; n <= 32768; n = n < 16 ? n + 1 : ceil(n * 1.19)) {
        double s = gs_llm_perf_prefill(&p, 1, n);
        y->bad_mono += s < prev;
        prev = s;
        struct gs_llm_batch b = { .prefill_tokens = n,
            .prefill_attn = n * (n + 1) / 2, .prefill_ctx = n,
            .sampled = 1, .seqs = 1 };
        check_one(a, &p, b, n, y);
    }
    /* decode: batch 1..512 at context 2,048, and context 16..32,768 at
     * batch 32 */
    prev = 0;
    for (double n = 1; n <= 512; n = n < 16 ? n + 1 : ceil(n * 1.19)) {
        double s = gs_llm_perf_decode(&p, n, 2048);
        y->bad_mono += s < prev;
        prev = s;
        struct gs_llm_batch b = { .decode_tokens = n,
            .decode_ctx = n * 2049, .sampled = n, .seqs = n };
        check_one(a, &p, b, n, y);
    }
    prev = 0;
    for (double c = 16; c <= 32768; c = ceil(c * 1.19)) {
        double s = gs_llm_perf_decode(&p, 32, c);
        y->bad_mono += s < prev;
        prev = s;
        struct gs_llm_batch b = { .decode_tokens = 32,
            .decode_ctx = 32 * (c + 1), .sampled = 32, .seqs = 32 };
        check_one(a, &p, b, 32, y);
    }
}

static void test_unseen_llms_every_gpu(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    int gpus = 0;
    for (int g = 0; g < cat.n; g++) {
        struct gs_llm_hw hw;
        gs_llm_hw_from_catalog(&cat, g, &hw);
        gpus++;
        for (size_t i = 0; i < sizeof unseen / sizeof unseen[0]; i++) {
            const struct gs_llm_arch *a = &unseen[i];
            struct tally y = { 0 };
            for (int t = 1; t <= 8 && a->heads % t == 0; t *= 2)
                check_arch(a, &hw, t, &y);
            if (y.bad_floor || y.bad_ceiling || y.bad_mono)
                printf("\n    %s %s: %ld below the floor, %ld above the "
                       "ceiling (worst %.2f), %ld not monotone",
                       cat.m[g].name, a->name, y.bad_floor, y.bad_ceiling,
                       y.worst, y.bad_mono);
            if (getenv("GS_TEST_VERBOSE") || y.bad_attn || y.bad_long)
                printf("\n    %s %s: operators %.2f at TP %d, %g tokens "
                       "(%.3f ms, floor %.3f ms); attention %.1f, in "
                       "prefill %.1f; long prompts %.2f x their floor",
                       cat.m[g].name, a->name, y.worst, y.at_t, y.at_tok,
                       y.at_time * 1e3, y.at_lo * 1e3, y.attn, y.pre_attn,
                       y.long_prompt);
            CU_ASSERT_EQUAL(y.bad_attn, 0);
            CU_ASSERT_EQUAL(y.bad_long, 0);
            CU_ASSERT(y.checks > 0);
            CU_ASSERT_EQUAL(y.bad_floor, 0);
            CU_ASSERT_EQUAL(y.bad_ceiling, 0);
            CU_ASSERT_EQUAL(y.bad_mono, 0);
        }
    }
    /* the ceiling bites: the H100 with the prefill attention the fit gave
     * before issue 24's serving model (1.4% of peak) breaks both bounds
     * (check_arch counts, it does not assert) */
    struct gs_llm_hw slow;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "H100-80GB"), &slow);
    slow.eff.attn_eff = 0.0141;
    struct tally ys = { 0 };
    check_arch(&unseen[0], &slow, 8, &ys);
    CU_ASSERT(ys.bad_attn > 0 && ys.bad_long > 0);
    /* the GPUs users plan with that no one profiled are in the catalog */
    CU_ASSERT(gs_catalog_find(&cat, "L40S") >= 0);
    CU_ASSERT(gs_catalog_find(&cat, "B200-180GB") >= 0);
    CU_ASSERT(gs_catalog_find(&cat, "H200-141GB") >= 0);
    CU_ASSERT(gpus >= 10);
}

/* TP: a long prefill gets faster with more GPUs, never superlinearly. */
static void test_unseen_tp_scaling(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    double lo = INFINITY, hi = 0;
    for (int g = 0; g < cat.n; g++) {
        struct gs_llm_hw hw;
        gs_llm_hw_from_catalog(&cat, g, &hw);
        for (size_t i = 0; i < 3; i++) {    /* the three real LLMs */
            double prev = 0;
            for (int t = 1; t <= 8; t *= 2) {
                struct gs_llm_perf p;
                CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&p, &unseen[i], &hw, t,
                                                       NULL), 0);
                double s = gs_llm_perf_prefill(&p, 1, 8192);
                if (t > 1) {
                    if (!(s < prev && prev <= 2 * s))
                        printf("\n    %s %s TP %d: %.1f ms, TP %d %.1f ms",
                               cat.m[g].name, unseen[i].name, t / 2,
                               prev * 1e3, t, s * 1e3);
                    CU_ASSERT(s < prev);
                    CU_ASSERT(prev <= 2 * s);
                    lo = fmin(lo, prev / s);
                    hi = fmax(hi, prev / s);
                }
                prev = s;
            }
        }
    }
    printf("\n    doubling TP speeds an 8,192-token prefill %.2f-%.2fx", lo,
           hi);
}

static CU_TestInfo tests[] = {
    { "unseen LLMs on every GPU: monotone, floor, ceiling",
      test_unseen_llms_every_gpu },
    { "unseen LLMs: TP speeds a long prefill, never superlinearly",
      test_unseen_tp_scaling },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("llmunseen", tests)
