/* test_llmunseen.c -- the iteration model on LLMs no data set measured, on every catalog GPU and on declared ones: monotone, above the roofline floor, within a stated factor of it, sensible under TP.
 *
 * The kernel factors were fitted on Llama-2/3 and phi-2 layers (Vidur) and
 * the serving factors on Llama-2-70B and BLOOM-176B (Splitwise).  A user
 * declares other LLMs, and plans on GPUs no one profiled (every catalog
 * GPU but the A100, H100 and A40 takes a measured GPU's factors with its
 * datasheet's peaks, and so does a GPU a scenario declares).  Here nine
 * shapes in neither data set, from public configurations -- Mistral-7B
 * (GQA), Qwen-2-72B and Qwen-2-7B (a 152,064-token vocabulary; the 7B's
 * LM head is a tenth of its weights), Llama-3.1-405B, Falcon-7B
 * (multi-query attention, 71 heads, a plain GELU MLP, LayerNorm),
 * Falcon-40B (GQA with a plain MLP), Mixtral-8x22B (8 experts, top 2),
 * a Qwen-MoE-like 60 experts top 4, and a one-layer toy with a plain MLP
 * -- are declared field by field (not taken from the built-in list) and
 * timed on every GPU of the catalog and two declared ones, at TP 1, 2, 4
 * and 8 (those that divide the heads), checking what must hold for any
 * right model:
 * - monotone: an iteration never takes less time for more prompt tokens,
 *   more decoding sequences or a longer context;
 * - the floor: never faster than the datasheet allows, max(FLOPs / peak
 *   FLOP/s, bytes / peak bandwidth), with FLOPs and bytes counted here
 *   independently of the model (the weights' GEMMs and attention; the
 *   weights read once -- of a mixture of experts, the k experts one token
 *   needs at least -- and the KV cache read once);
 * - the ceiling: the operators (the same iteration without attention)
 *   within UNSEEN_FACTOR of their floor (now with the activations each
 *   kernel reads and writes, and a mixture's experts that a batch reaches
 *   on average, uniformly routed) plus the model's own stated fixed costs
 *   (per iteration and prefill, per layer, per kernel, per sequence, the
 *   two all-reduces per layer and the big ones' extra pass) -- the
 *   kernels run at no less than a stated share of the datasheet;
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
 * measured at most 2.9 over every shape, TP and GPU below (3.3 for the
 * one-layer toy on the K80; docs/inference.md). */
#define UNSEEN_FACTOR 3.5
/* ... for iterations whose operators' floor is at least 100 us; below it
 * the launches and the fixed costs (measured, not derived) decide. */
#define CEILING_FROM 100e-6
/* Attention's ceiling: attention (the iteration less the same tokens
 * without attention) within ATTN_FACTOR of its roofline (4 d/t FLOPs per
 * query-key pair, the KV read once) in every iteration, and a single
 * prompt of LONG_FROM tokens or more, less the model's stated fixed
 * costs, within LONG_FACTOR of the iteration's roofline floor, on every
 * GPU (every one has serving factors fitted on Splitwise or derived from
 * a fitted GPU's).  Measured: attention at most 3.4x (prefill attention
 * at half the GEMMs' compute efficiency by rule; decode attention's
 * fitted bandwidth 29% of peak on the H100, which H200 and B200 take, and
 * the A100's at its cap, the GEMMs' 0.78), long prompts at most 2.4x
 * (3.4x for the one-layer toy; docs/inference.md).  The GPUs without a
 * measured GPU's factors took 10x and 9.25x (the default factors before
 * issue 24's derivation).  The hard maximum of host and GPU put the
 * H100's decode attention at 7.8% of peak, 12.8x its roofline: the test
 * checks that it breaks the bound, and that the prefill attention of the
 * fit before issue 24's serving model (1.4% of peak, 71x: a 27,632-token
 * prompt of Mistral-7B at TP 8, 1.99 s against a 74 ms floor) breaks
 * both. */
#define ATTN_FACTOR 4.0
#define LONG_FROM 8192
#define LONG_FACTOR 4.0

static const struct gs_llm_arch unseen[] = {
    /* name, layers, d, heads, kv, ffn, gated, experts, active, vocab,
     * bytes/param, kv bytes, tied, layernorm, no rotary (public configs:
     * Mistral-7B-v0.1, Qwen2-72B, Llama-3.1-405B, Qwen2-7B, Falcon-7B,
     * Falcon-40B, Mixtral-8x22B-v0.1, Qwen1.5-MoE-A2.7B's 60 routed
     * experts (its shared expert left out); the toy is GPT-like: learned
     * positions, no rotary kernel) */
    { "mistral-7b", 32,  4096,  32, 8, 14336, 1, 1, 1,  32000, 2, 0, 0, 0, 0 },
    { "qwen2-72b", 80,  8192,  64, 8, 29568, 1, 1, 1, 152064, 2, 0, 0, 0, 0 },
    { "llama3.1-405b", 126, 16384, 128, 8, 53248, 1, 1, 1, 128256, 2, 0, 0, 0, 0 },
    { "qwen2-7b",  28,  3584,  28, 4, 18944, 1, 1, 1, 152064, 2, 0, 0, 0, 0 },
    { "falcon-7b", 32,  4544,  71, 1, 18176, 0, 1, 1,  65024, 2, 0, 1, 1, 0 },
    { "falcon-40b", 60,  8192, 128, 8, 32768, 0, 1, 1,  65024, 2, 0, 1, 1, 0 },
    { "mixtral-8x22b", 56, 6144,  48, 8, 16384, 1, 8, 2,  32768, 2, 0, 0, 0, 0 },
    { "qwen-moe-60", 24,  2048,  16, 16, 1408, 1, 60, 4, 151936, 2, 0, 0, 0, 0 },
    { "toy-1-layer", 1,   256,   4, 4,  1024, 0, 1, 1,   1000, 2, 0, 0, 1, 1 },
};
#define NUNSEEN (int)(sizeof unseen / sizeof unseen[0])
#define NREAL (NUNSEEN - 1)     /* the real LLMs: all but the toy */

/* Experts a batch of tok tokens reaches on average, each token picking k
 * of E uniformly: E (1 - (1 - k/E)^tok); with min_only the least any
 * batch reaches, k. */
static double reached(const struct gs_llm_arch *a, double tok, int min_only)
{
    if (a->experts <= 1)
        return 1;
    if (min_only)
        return a->active_experts;
    return a->experts * (1 - pow(1 - (double)a->active_experts / a->experts,
                                 tok));
}

/* Parameters of one layer's attention and of one expert (or the MLP). */
static double attn_params(const struct gs_llm_arch *a)
{
    double d = a->hidden, hd = d / a->heads;
    return d * (a->heads + 2.0 * a->kv_heads) * hd + a->heads * hd * d;
}

static double expert_params(const struct gs_llm_arch *a)
{
    return (a->gated ? 3.0 : 2.0) * a->hidden * a->ffn;
}

/* Parameters one token runs through in one layer (attention, k experts,
 * the router). */
static double layer_params(const struct gs_llm_arch *a)
{
    double router = a->experts > 1 ? (double)a->hidden * a->experts : 0;
    return attn_params(a) + a->active_experts * expert_params(a) + router;
}

/* Weights one layer reads for tok tokens: attention's and the experts'
 * reached (min_only: the least). */
static double layer_weights(const struct gs_llm_arch *a, double tok,
                            int min_only)
{
    double router = a->experts > 1 ? (double)a->hidden * a->experts : 0;
    return attn_params(a) + reached(a, tok, min_only) * expert_params(a)
           + router;
}

/* BF16 activation bytes one token moves through one layer on one GPU of
 * TP t: each GEMM's input and output, each elementwise kernel's reads and
 * writes (two norms, rotary, activation, two residual adds). */
static double act_bytes(const struct gs_llm_arch *a, int t)
{
    double d = a->hidden, hd = d / a->heads, f = (double)a->ffn / t;
    double hq = (double)a->heads / t;
    double hkv = a->kv_heads >= t ? (double)a->kv_heads / t : 1.0;
    double k = a->active_experts;      /* a token's MLP runs k times */
    double gemm = d + (hq + 2 * hkv) * hd + hq * hd + d
                  + k * (d + (a->gated ? 2 : 1) * f + f + d);
    double elem = 2 * 2 * d + 2 * (hq + hkv) * hd
                  + k * (a->gated ? 3 : 2) * f + 2 * 3 * d;
    return 2 * (gemm + elem);
}

/* The roofline floor of an iteration on one GPU of TP t: tok tokens
 * through every layer and the LM head over `sampled` sequences, pairs
 * query-key pairs of attention, ctx cached tokens read; the weights read
 * once, and with `acts` the activations each kernel moves too and the
 * experts a batch reaches on average (without, the least it reaches). */
static double floor_time(const struct gs_llm_arch *a, const struct gs_llm_hw *hw,
                         int t, double tok, double pairs, double ctx,
                         double sampled, int acts)
{
    double d = a->hidden, hd = d / a->heads, L = a->layers;
    double kvh = a->kv_heads >= t ? (double)a->kv_heads / t : 1.0;
    double w = (L * layer_weights(a, tok, !acts) + d * a->vocab) / t;
    double flops = 2 * tok * L * layer_params(a) / t
                   + 2 * sampled * d * a->vocab / t + 4 * d / t * pairs * L;
    double bytes = 2 * w + L * ctx * 2 * kvh * hd * 2
                   + (acts ? tok * L * act_bytes(a, t) : 0);
    double c = flops / (hw->tflops * 1e12), m = bytes / (hw->bw_gbs * 1e9);
    return c > m ? c : m;
}

/* One layer's two all-reduces of tok tokens, with the stack's extra pass
 * over big ones. */
static double layer_allreduces(const struct gs_llm_arch *a,
                               const struct gs_llm_perf *p, double tok)
{
    const struct gs_gpu_llm *e = &p->hw.eff;
    int t = p->tp;
    double bytes = 2.0 * a->hidden * tok;
    double ar = 2 * gs_llm_allreduce_time(e, bytes, t);
    if (t > 1 && e->ar_big_gbs > 0 && bytes >= GS_AR_BIG_BYTES)
        ar += 2 * bytes * 2 * (t - 1.0) / t / (e->ar_big_gbs * 1e9);
    return ar;
}

/* The fixed costs the model states: per iteration, per layer (the host's
 * launch floor for the layer's kernel count overlapping each kernel's
 * fixed cost: four GEMMs, seven elementwise kernels with their waves; the
 * host's extra time in a prefilling iteration), per sequence per layer,
 * and the two
 * all-reduces per layer with the stack's extra pass over big ones. */
static double fixed_time(const struct gs_llm_arch *a,
                         const struct gs_llm_perf *p, double tok,
                         double seqs, int prefill)
{
    const struct gs_gpu_llm *e = &p->hw.eff;
    double ar = layer_allreduces(a, p, tok);
    /* four GEMMs; a mixture's experts run as two grouped ones, and the
     * router's */
    double gemms = a->experts > 1 ? 5 : 4;
    double kern = (gemms * e->gemm_us + 3 * e->elem_wave_us) * 1e-6;
    for (int k = 0; k < GS_EK_N; k++)
        kern += 2 * e->elem_us[k] * 1e-6;
    double layer = gs_llm_overlap(kern, p->host_layer_s)
                   + (prefill ? p->host_prefill_s : 0);
    return e->iter_ms * 1e-3 + e->gemm_us * 1e-6
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
        y->bad_long += tok >= LONG_FROM && !(lr <= LONG_FACTOR);
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

/* Two GPUs a scenario declares (only their peaks): one HBM-like, one
 * GDDR-like. */
static void declare_two(struct gs_catalog *cat)
{
    struct gs_gpu_model hbm = { "declared-hbm", 96.0, 500.0, 3000.0, 600.0,
                                0, 0 };
    struct gs_gpu_model gddr = { "declared-gddr", 24.0, 90.0, 448.0, 200.0,
                                 0, 0 };
    CU_ASSERT_FATAL(gs_catalog_add(cat, &hbm) >= 0);
    CU_ASSERT_FATAL(gs_catalog_add(cat, &gddr) >= 0);
}

static void test_unseen_llms_every_gpu(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    declare_two(&cat);
    int gpus = 0;
    for (int g = 0; g < cat.n; g++) {
        struct gs_llm_hw hw;
        gs_llm_hw_from_catalog(&cat, g, &hw);
        gpus++;
        for (int i = 0; i < NUNSEEN; i++) {
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
     * before issue 24's serving model (1.4% of peak) breaks both bounds,
     * and with the decode attention the hard maximum's fit gave (7.8% of
     * peak) the attention bound (check_arch counts, it does not assert) */
    struct gs_llm_hw slow;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "H100-80GB"), &slow);
    struct gs_llm_hw slow_kv = slow;
    slow.eff.attn_eff = 0.0141;
    struct tally ys = { 0 };
    check_arch(&unseen[0], &slow, 8, &ys);
    CU_ASSERT(ys.bad_attn > 0 && ys.bad_long > 0);
    slow_kv.eff.attn_bw_eff = 0.0782;
    struct tally yk = { 0 };
    check_arch(&unseen[0], &slow_kv, 1, &yk);
    CU_ASSERT(yk.bad_attn > 0);
    /* ... and reading every expert's weights for any batch (the rule
     * before) puts a one-sequence decode step of Mixtral-8x22B above the
     * ceiling: 6 more experts' weights a layer */
    const struct gs_llm_arch *mx = &unseen[6];
    struct gs_llm_hw a100;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "A100-80GB"), &a100);
    struct gs_llm_perf pm;
    CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&pm, mx, &a100, 1, NULL), 0);
    struct gs_llm_batch one = { .decode_tokens = 1, .sampled = 1, .seqs = 1 };
    double ops = gs_llm_perf_time(&pm, &one);
    double all = ops + mx->layers * (mx->experts - mx->active_experts)
                       * expert_params(mx) * 2
                       / (a100.bw_gbs * 1e9 * a100.eff.bw_eff);
    double olo = floor_time(mx, &a100, 1, 1, 0, 0, 1, 1);
    double fx = fixed_time(mx, &pm, 1, 1, 0);
    printf("\n    Mixtral-8x22B decoding one sequence on the A100: %.2f x "
           "its floor, %.2f reading every expert", (ops - fx) / olo,
           (all - fx) / olo);
    CU_ASSERT((ops - fx) / olo <= UNSEEN_FACTOR);
    CU_ASSERT((all - fx) / olo > UNSEEN_FACTOR);
    /* the GPUs users plan with that no one profiled are in the catalog */
    CU_ASSERT(gs_catalog_find(&cat, "L40S") >= 0);
    CU_ASSERT(gs_catalog_find(&cat, "B200-180GB") >= 0);
    CU_ASSERT(gs_catalog_find(&cat, "H200-141GB") >= 0);
    CU_ASSERT(gpus >= 23);
}

/* The two all-reduces of tok tokens a layer, and the stack's extra pass
 * over big ones, over all layers. */
static double allreduces(const struct gs_llm_arch *a,
                         const struct gs_llm_perf *p, double tok)
{
    return a->layers * layer_allreduces(a, p, tok);
}

/* TP: a long prefill, less its all-reduces, gets faster with more GPUs
 * (with them it may not: over a PCIe link, Qwen-MoE-like's 8,192-token
 * prefill on the L40S takes 176 ms at TP 2 and 180 at TP 4), never
 * superlinearly. */
static void test_unseen_tp_scaling(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    declare_two(&cat);
    double lo = INFINITY, hi = 0;
    for (int g = 0; g < cat.n; g++) {
        struct gs_llm_hw hw;
        gs_llm_hw_from_catalog(&cat, g, &hw);
        for (int i = 0; i < NREAL; i++) {
            double prev = 0, prev_c = 0;
            for (int t = 1; t <= 8 && unseen[i].heads % t == 0; t *= 2) {
                struct gs_llm_perf p;
                CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&p, &unseen[i], &hw, t,
                                                       NULL), 0);
                double s = gs_llm_perf_prefill(&p, 1, 8192);
                double c = s - allreduces(&unseen[i], &p, 8192);
                if (t > 1) {
                    if (!(c < prev_c && prev <= 2 * s))
                        printf("\n    %s %s TP %d: %.1f ms, TP %d %.1f ms "
                               "(less all-reduces %.1f, %.1f)",
                               cat.m[g].name, unseen[i].name, t / 2,
                               prev * 1e3, t, s * 1e3, prev_c * 1e3, c * 1e3);
                    CU_ASSERT(c < prev_c);
                    CU_ASSERT(prev <= 2 * s);
                    lo = fmin(lo, prev / s);
                    hi = fmax(hi, prev / s);
                }
                prev = s;
                prev_c = c;
            }
        }
    }
    printf("\n    doubling TP speeds an 8,192-token prefill %.2f-%.2fx", lo,
           hi);
}

/* A prefill's host cost follows the model: a lone 128-token prompt takes
 * at most SHORT_PROMPT_FACTOR times the longer of a decode step of one
 * sequence at that context and the prompt's GPU work: its GEMM FLOPs at
 * the GPU's GEMM efficiency and its all-reduces (where 128 tokens are
 * compute-bound, as on the P100 or with default factors, or the
 * all-reduces cross PCIe, these set the prompt's time), for the unseen LLMs
 * (and the prompt's weights where the experts it reaches outweigh a
 * decode step's) at TP 1..8 on every catalog GPU and the two declared
 * ones.  Splitwise measured 1.30-1.95 on its
 * nine configurations (Llama-2-70B at TP 2, 4, 8 and BLOOM-176B at TP 8
 * on the A100 and H100 machines, where the decode step is the longer;
 * 1.95 the H100's TP 8, whose 256-token prompt takes 1.73).  The host's extra
 * work is per layer, scaled like the layer's kernels, and does not hide
 * under the GPU (llmperf.c); the model before it charged a fixed 20.6 ms
 * per prefilling iteration on the H100, fitted on 70B and 176B models,
 * which gives Mistral-7B on an H100 about 2.6 decode steps at any TP: the
 * test checks that it breaks the bound.  The bound is 2.1, not 2: the
 * K80's 128-token prompts of Mixtral-8x22B take 2.00-2.05, because the
 * GEMM term here counts neither the tile waves on its 13 SMs nor the
 * A40's fitted per-tile work k0, which its factors carry (without them,
 * 1.96 at most). */
#define SHORT_PROMPT_FACTOR 2.1
static void test_unseen_short_prompt(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    declare_two(&cat);
    double hi = 0;
    for (int g = 0; g < cat.n; g++) {
        struct gs_llm_hw hw;
        gs_llm_hw_from_catalog(&cat, g, &hw);
        for (int i = 0; i < NREAL; i++) {
            for (int t = 1; t <= 8 && unseen[i].heads % t == 0; t *= 2) {
                struct gs_llm_perf p;
                CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&p, &unseen[i], &hw, t,
                                                       NULL), 0);
                const struct gs_llm_arch *a = &unseen[i];
                double flops = 2 * 128 * a->layers * layer_params(a) / t;
                double wread = 2 * a->layers * layer_weights(a, 128, 0) / t;
                double gemm = fmax(flops / (hw.tflops * 1e12
                                            * hw.eff.compute_eff),
                                   wread / (hw.bw_gbs * 1e9 * hw.eff.bw_eff))
                              + 2 * a->layers * gs_llm_allreduce_time(
                                  &p.hw.eff, 2.0 * 128 * a->hidden, t);
                double r = gs_llm_perf_prefill(&p, 1, 128)
                           / fmax(gs_llm_perf_decode(&p, 1, 128), gemm);
                if (!(r >= 1 && r <= SHORT_PROMPT_FACTOR))
                    printf("\n    %s %s TP %d: a 128-token prompt takes %.2f "
                           "decode steps or GEMM times", cat.m[g].name,
                           unseen[i].name, t, r);
                CU_ASSERT(r >= 1 && r <= SHORT_PROMPT_FACTOR);
                hi = fmax(hi, r);
                /* the old charge, 20.6 ms per prefilling iteration in
                 * place of the per-layer one, breaks the bound on the
                 * H100 for the 7B model at every TP */
                if (i == 0 && strcmp(cat.m[g].name, "H100-80GB") == 0) {
                    double old = gs_llm_perf_prefill(&p, 1, 128)
                                 - unseen[i].layers * p.host_prefill_s
                                 + 20.6e-3;
                    CU_ASSERT(old / fmax(gs_llm_perf_decode(&p, 1, 128),
                                         gemm) > SHORT_PROMPT_FACTOR);
                }
            }
        }
    }
    printf("\n    a 128-token prompt takes at most %.2f decode steps or "
           "GEMM times", hi);
}

/* Every GPU's serving model is a measured GPU's: the catalog's unmeasured
 * GPUs take the template gpu.c names for their kind (HBM on an SXM board:
 * the A100's or H100's; GDDR on a PCIe card: the A40's), a declared GPU
 * the nearest measured one by its peaks.  None keeps the old unfitted
 * default (14 ms per iteration, no prefill cost). */
static void same_factors(const struct gs_gpu_llm *x, const struct gs_gpu_llm *y)
{
    CU_ASSERT_DOUBLE_EQUAL(x->compute_eff, y->compute_eff, 0);
    CU_ASSERT_DOUBLE_EQUAL(x->bw_eff, y->bw_eff, 0);
    CU_ASSERT_DOUBLE_EQUAL(x->attn_bw_eff, y->attn_bw_eff, 0);
    CU_ASSERT_DOUBLE_EQUAL(x->layer_us, y->layer_us, 0);
    CU_ASSERT_DOUBLE_EQUAL(x->prefill_us, y->prefill_us, 0);
    CU_ASSERT_DOUBLE_EQUAL(x->gemm_k0, y->gemm_k0, 0);
    CU_ASSERT_EQUAL(x->gemm_waves, y->gemm_waves);
    for (int k = 0; k < GS_EK_N; k++)
        CU_ASSERT_DOUBLE_EQUAL(x->elem_eff[k], y->elem_eff[k], 0);
}

static void test_derived_gpus(void)
{
    static const char *const like[][2] = {
        { "V100-16GB", "A100-80GB" }, { "V100-32GB", "A100-80GB" },
        { "P100-16GB", "A100-80GB" }, { "G1", "A100-80GB" },
        { "GPU-series-1", "A100-80GB" }, { "H200-141GB", "H100-80GB" },
        { "B200-180GB", "H100-80GB" }, { "T4", "A40" }, { "A10", "A40" },
        { "A10G", "A40" }, { "K80", "A40" }, { "L40S", "A40" },
    };
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    for (size_t k = 0; k < sizeof like / sizeof like[0]; k++) {
        int g = gs_catalog_find(&cat, like[k][0]);
        int m = gs_catalog_find(&cat, like[k][1]);
        CU_ASSERT_FATAL(g >= 0 && m >= 0);
        same_factors(&cat.llm[g], &cat.llm[m]);
    }
    int n = cat.n;
    for (int g = 0; g < n; g++) {
        const struct gs_gpu_llm *e = &cat.llm[g];
        if (!(e->iter_ms == 0 && e->prefill_us > 0 && e->sms > 0
              && e->l2_mb > 0))
            printf("\n    %s: not a measured GPU's serving model",
                   cat.m[g].name);
        CU_ASSERT(e->iter_ms == 0 && e->prefill_us > 0);
        CU_ASSERT(e->sms > 0 && e->l2_mb > 0);
    }
    /* the nearest measured GPU by log peaks, by hand: (500, 3000) is
     * 0.47^2 + 0.39^2 = 0.37 from the A100-80GB (312, 2039) and 0.68^2 +
     * 0.11^2 = 0.48 from the H100 (989, 3350); (90, 448) is nearest the
     * A40 (149.7, 696); by its peaks alone a V100 (125, 900) is too */
    CU_ASSERT_STRING_EQUAL(gs_catalog_nearest_measured(500, 3000),
                           "A100-80GB");
    CU_ASSERT_STRING_EQUAL(gs_catalog_nearest_measured(900, 4000),
                           "H100-80GB");
    CU_ASSERT_STRING_EQUAL(gs_catalog_nearest_measured(90, 448), "A40");
    CU_ASSERT_STRING_EQUAL(gs_catalog_nearest_measured(125, 900), "A40");
    declare_two(&cat);
    int h = gs_catalog_find(&cat, "declared-hbm");
    int d = gs_catalog_find(&cat, "declared-gddr");
    same_factors(&cat.llm[h], &cat.llm[gs_catalog_find(&cat, "A100-80GB")]);
    same_factors(&cat.llm[d], &cat.llm[gs_catalog_find(&cat, "A40")]);
    /* its own link is unknown: the template's machine's */
    CU_ASSERT(cat.llm[h].ar == cat.llm[gs_catalog_find(&cat, "A100-80GB")].ar);
    CU_ASSERT_EQUAL(cat.llm[h].sms, 108);
    CU_ASSERT(cat.llm[d].ar == NULL && cat.llm[d].link_gbs == 25.0);
    /* a built-in redefined keeps its own factors */
    struct gs_gpu_model t4 = { "T4", 16.0, 70.0, 300.0, 70.0, 0, 0 };
    int i = gs_catalog_add(&cat, &t4);
    CU_ASSERT_EQUAL(i, gs_catalog_find(&cat, "T4"));
    CU_ASSERT_EQUAL(cat.llm[i].sms, 40);
    CU_ASSERT_DOUBLE_EQUAL(cat.llm[i].link_gbs, 16.0, 0);
}

static CU_TestInfo tests[] = {
    { "every GPU takes a measured GPU's serving model", test_derived_gpus },
    { "unseen LLMs on every GPU: monotone, floor, ceiling",
      test_unseen_llms_every_gpu },
    { "unseen LLMs: TP speeds a long prefill, never superlinearly",
      test_unseen_tp_scaling },
    { "unseen LLMs: a short prompt's host cost follows the model",
      test_unseen_short_prompt },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("llmunseen", tests)
