/* test_llmops.c -- the operator model: GEMMs, elementwise kernels and all-reduce by hand, the kernel fit, profiles, leave-one-shape-out.
 *
 * The rules of llmops.c checked on small shapes computed by hand; a
 * profile written from known factors (through the mlp.csv reader) must
 * give every factor back; bad profiles are refused naming file, line and
 * column; on Vidur's measured profiles (skipped without ../shared), the
 * leave-one-shape-out errors stay within the bounds docs/inference.md
 * reports. */
#include "cutest.h"
#include "clitest.h"
#include "../sim/inference/llmprof.h"
#include "../sim/inference/llmcalib.h"
#include "../sim/cluster/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VIDUR "../shared/traces/vidur-profiling"

static struct gs_llm_hw toy(void)
{
    struct gs_llm_hw hw = { .tflops = 100, .bw_gbs = 1000, .mem_gb = 80 };
    hw.eff = (struct gs_gpu_llm){
        .compute_eff = 0.5, .bw_eff = 0.8, .gemm_us = 3, .attn_eff = 0.3,
        .attn_bw_eff = 0.7, .layer_us = 0, .iter_ms = 1, .seq_us = 2,
        .link_gbs = 100, .link_us = 5,
        .elem_eff = { 0.4, 0.5, 0.6, 0.7, 0.3 },
        .elem_us = { 1, 2, 3, 4, 5 },
    };
    return hw;
}

static void test_gemm_by_hand(void)
{
    struct gs_llm_hw hw = toy();
    /* 256 x 1024 x 512: full tiles, compute-bound:
     * 2 * 256 * 1024 * 512 / (0.5 * 100e12) = 5.36870912 us; its bytes
     * 2 * (256*1024 + 1024*512 + 256*512) / 0.8e12 = 2.29376 us */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_gemm_time(&hw, 256, 1024, 512),
                           5.36870912e-6 + 3e-6, 1e-15);
    /* one token: 16-row tiles, fill 1/16; memory-bound at
     * 2 * (1024 + 1024*512 + 512) / 0.8e12 = 1.31456 us */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_gemm_time(&hw, 1, 1024, 512),
                           1.31456e-6 + 3e-6, 1e-15);
    /* FP8 weights: the weights' bytes halve */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_gemm_time_w(&hw, 1, 1024, 512, 1),
                           (2 * (1024 + 512) + 1024 * 512.0) / 0.8e12 + 3e-6,
                           1e-15);
    /* 100 rows: a 128-row tile, 100/128 filled */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_gemm_wave(100, 512, 0), 100.0 / 128, 1e-15);
    /* counting waves, tiles 64 wide: 8 x 8 tiles on 108 SMs, one wave,
     * 64 of 108 busy (128 wide: 32 of 108) */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_gemm_wave(1024, 512, 108),
                           64.0 / 108, 1e-15);
    /* 3 rows: a 16-row tile; 218 tiles of a 13952-wide output on 108
     * SMs: three waves (128 wide: 109 tiles in two waves, 0.095) */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_gemm_wave(3, 109 * 128, 108),
                           3.0 / 16 * 218 / 324, 1e-15);
    /* 96 columns: two tiles of 64 x 128 rows, 9600 of 16384 filled */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_gemm_wave(100, 96, 108),
                           9600.0 / 16384 * 2 / 108, 1e-15);
    /* a tile's fixed work k0 = 64: 2 * 256 * (1024 + 64) * 512 / 50e12 */
    hw.eff.gemm_k0 = 64;
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_gemm_time(&hw, 256, 1024, 512),
                           5.70425344e-6 + 3e-6, 1e-15);
    hw.eff.gemm_k0 = 0;
    CU_ASSERT_EQUAL(gs_llm_gemm_time(&hw, 0, 1024, 512), 0);
}

static void test_op_shapes_by_hand(void)
{
    /* Llama-2-70B at TP 8: 64 heads of 128, 8 KV heads (1 per GPU) */
    struct gs_llm_shape s = { .heads = 64, .kv_heads = 8, .hidden = 8192,
                              .ffn = 28672, .vocab = 32000, .gated = 1,
                              .tp = 8 };
    double k, n, b;
    CU_ASSERT(gs_llm_op_gemm(&s, GS_OP_ATTN_PRE, &k, &n));
    CU_ASSERT(k == 8192 && n == (8 + 2 * 1) * 128);
    CU_ASSERT(gs_llm_op_gemm(&s, GS_OP_ATTN_POST, &k, &n));
    CU_ASSERT(k == 1024 && n == 8192);
    CU_ASSERT(gs_llm_op_gemm(&s, GS_OP_MLP_UP, &k, &n));
    CU_ASSERT(k == 8192 && n == 2 * 3584);
    CU_ASSERT(gs_llm_op_gemm(&s, GS_OP_MLP_DOWN, &k, &n));
    CU_ASSERT(k == 3584 && n == 8192);
    CU_ASSERT(!gs_llm_op_gemm(&s, GS_OP_ADD, &k, &n));
    /* elementwise bytes over 10 tokens (BF16) */
    CU_ASSERT_EQUAL(gs_llm_op_elem(&s, GS_OP_INPUT_NORM, 10, &b), GS_EK_NORM);
    CU_ASSERT_DOUBLE_EQUAL(b, 2 * 2 * 10 * 8192.0, 0);
    CU_ASSERT_EQUAL(gs_llm_op_elem(&s, GS_OP_ROPE, 10, &b), GS_EK_ROPE);
    CU_ASSERT_DOUBLE_EQUAL(b, 2 * 2 * 10 * (8 + 1) * 128.0, 0);
    CU_ASSERT_EQUAL(gs_llm_op_elem(&s, GS_OP_ACT, 10, &b), GS_EK_ACT);
    CU_ASSERT_DOUBLE_EQUAL(b, 2 * 3 * 10 * 3584.0, 0);
    CU_ASSERT_EQUAL(gs_llm_op_elem(&s, GS_OP_ADD, 10, &b), GS_EK_ADD);
    CU_ASSERT_DOUBLE_EQUAL(b, 2 * 3 * 10 * 8192.0, 0);
    CU_ASSERT_EQUAL(gs_llm_op_elem(&s, GS_OP_EMB, 10, &b), GS_EK_EMB);
    CU_ASSERT_EQUAL(gs_llm_op_elem(&s, GS_OP_MLP_UP, 10, &b), -1);
    s.gated = 0;        /* GELU: reads one, writes one */
    gs_llm_op_elem(&s, GS_OP_ACT, 10, &b);
    CU_ASSERT_DOUBLE_EQUAL(b, 2 * 2 * 10 * 3584.0, 0);
    /* an elementwise kernel: its fixed cost + bytes at its efficiency */
    struct gs_llm_hw hw = toy();
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_op_time(&hw, &s, GS_OP_ADD, 10),
                           4e-6 + 2 * 3 * 10 * 8192.0 / (0.7 * 1e12), 1e-15);
    CU_ASSERT_STRING_EQUAL(gs_llm_op_name(GS_OP_ATTN_PRE), "attn_pre_proj");
    CU_ASSERT_PTR_NULL(gs_llm_op_name(GS_OP_N));
}

/* Rotary positions are a kernel of their own: BLOOM (ALiBi, which biases
 * the scores inside attention) runs none, so attn_rope moves no bytes and
 * takes no time, its iteration's bytes lack exactly the layers' q and k,
 * and the host's kernel count holds one fewer: 15 for its LayerNorm
 * block, 16 for a LayerNorm block with rotary (Falcon), 12 and 11 for an
 * RMSNorm block with and without.  (Before, every architecture was timed
 * with a rotary kernel; the field did not exist.) */
static void test_no_rotary(void)
{
    struct gs_llm_arch bloom, rot, llama;
    CU_ASSERT_EQUAL_FATAL(gs_llm_arch_find("bloom-176b", &bloom, "$", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(gs_llm_arch_find("llama2-7b", &llama, "$", NULL), 0);
    CU_ASSERT(bloom.no_rotary == 1 && llama.no_rotary == 0);
    rot = bloom;
    rot.no_rotary = 0;
    CU_ASSERT_EQUAL(gs_llm_layer_kernels(&bloom), 15);
    CU_ASSERT_EQUAL(gs_llm_layer_kernels(&rot), 16);
    CU_ASSERT_EQUAL(gs_llm_layer_kernels(&llama), 12);
    llama.no_rotary = 1;
    CU_ASSERT_EQUAL(gs_llm_layer_kernels(&llama), 11);
    struct gs_llm_shape s;
    gs_llm_shape_from_arch(&bloom, 8, &s);
    double b = -1;
    CU_ASSERT_EQUAL(gs_llm_op_elem(&s, GS_OP_ROPE, 100, &b), GS_EK_ROPE);
    CU_ASSERT_EQUAL(b, 0);
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_llm_hw hw;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "H100-80GB"), &hw);
    CU_ASSERT_EQUAL(gs_llm_op_time(&hw, &s, GS_OP_ROPE, 100), 0);
    struct gs_llm_perf pb, pr;
    CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&pb, &bloom, &hw, 8, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&pr, &rot, &hw, 8, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(pr.host_layer_s / pb.host_layer_s, 16.0 / 15,
                           1e-12);
    for (int tok = 1; tok <= 4096; tok *= 8) {
        struct gs_llm_batch bt = { .prefill_tokens = tok,
            .prefill_attn = tok * (tok + 1) / 2.0, .prefill_ctx = tok,
            .sampled = 1, .seqs = 1 };
        struct gs_llm_work wb, wr;
        gs_llm_perf_work(&pb, &bt, &wb);
        gs_llm_perf_work(&pr, &bt, &wr);
        /* q and k of 112 / 8 heads each of 128, read and written, BF16 */
        CU_ASSERT_DOUBLE_EQUAL(wr.bytes - wb.bytes,
                               70 * 2 * 2.0 * tok * (14 + 14) * 128,
                               1e-6 * wr.bytes);
        CU_ASSERT(gs_llm_perf_time(&pr, &bt) > gs_llm_perf_time(&pb, &bt));
    }
}

/* The per-token kinds' waves and the L2 share, by hand. */
static void test_elementwise_rules_by_hand(void)
{
    struct gs_llm_hw hw = toy();
    hw.eff.sms = 100;           /* 200 tokens per wave */
    hw.eff.elem_wave_us = 0.5;
    /* a norm of 10 tokens: one wave, padded to 200 tokens' bytes */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_elem_time(&hw, GS_EK_NORM, 1000, 10),
                           1e-6 + 0.5e-6 + 1000 * 20 / (0.4 * 1e12), 1e-15);
    /* 201 tokens: two waves, 400 tokens' bytes */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_elem_time(&hw, GS_EK_ACT, 201e3, 201),
                           3e-6 + 1e-6 + 400e3 / (0.6 * 1e12), 1e-15);
    /* 400 tokens fill two waves exactly */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_elem_time(&hw, GS_EK_NORM, 4e5, 400),
                           1e-6 + 1e-6 + 4e5 / (0.4 * 1e12), 1e-15);
    /* the add is not per-token: no waves */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_elem_time(&hw, GS_EK_ADD, 1000, 10),
                           4e-6 + 1000 / (0.7 * 1e12), 1e-15);
    /* a gated MLP's activation (one block per token) over 201 tokens of
     * a 64-wide FFN at TP 1: two waves, 400 tokens' bytes (3 x 2 x 64
     * bytes a token); a plain MLP's (GELU, each element on its own): no
     * waves, no padding, 2 x 2 x 64 bytes a token, the kind's rate */
    struct gs_llm_shape s = { .heads = 4, .kv_heads = 4, .hidden = 32,
                              .ffn = 64, .vocab = 100, .gated = 1, .tp = 1 };
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_op_elem_time(&hw, &s, GS_OP_ACT, 201),
                           3e-6 + 1e-6 + 400 * 384.0 / (0.6 * 1e12), 1e-15);
    s.gated = 0;
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_op_elem_time(&hw, &s, GS_OP_ACT, 201),
                           3e-6 + 201 * 256.0 / (0.6 * 1e12), 1e-15);
    /* the plain shape's norm still runs in waves */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_op_elem_time(&hw, &s, GS_OP_INPUT_NORM,
                                               201),
                           1e-6 + 1e-6 + 400 * 128.0 / (0.4 * 1e12), 1e-15);
    /* L2 of 10 MB: all of it up to 5 MB, none from 15 MB, linear */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_l2_share(5e6, 10), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_l2_share(10e6, 10), 0.5, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_l2_share(15e6, 10), 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_l2_share(1e6, 0), 0, 0);
    hw.eff.l2_mb = 10;
    hw.eff.elem_l2[GS_EK_ADD] = 1.4;
    /* 12 MB: 0.3 from L2 at 1.4, 0.7 from HBM at 0.7 of 1 TB/s */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_elem_time(&hw, GS_EK_ADD, 12e6, 10),
                           4e-6 + 12e6 * (0.3 / 1.4 + 0.7 / 0.7) / 1e12,
                           1e-15);
    /* no L2 efficiency given: the HBM one */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_elem_time(&hw, GS_EK_EMB, 12e6, 10),
                           5e-6 + 12e6 / (0.3 * 1e12), 1e-15);
    /* a MIG slice of 3/7: its share of SMs (43) and of the L2 */
    gs_llm_hw_share(&hw, 3.0 / 7, 40);
    CU_ASSERT_EQUAL(hw.eff.sms, 43);
    CU_ASSERT_DOUBLE_EQUAL(hw.eff.l2_mb, 30.0 / 7, 1e-12);
}

static void test_allreduce_interpolation(void)
{
    static struct gs_ar_curve c = { .name = "toy" };
    for (int w = 0; w < GS_AR_WORKERS; w++)
        for (int i = 0; i < GS_AR_POINTS; i++)
            c.us[w][i] = (w + 1) * 10.0 * (i + 1);
    struct gs_gpu_llm e = { .link_gbs = 100, .link_us = 5, .ar = &c };
    /* on the grid */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048, 2), 10e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 8192, 4), 60e-6, 1e-15);
    /* between two sizes: log-log, the geometric mean halfway */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048 * M_SQRT2, 2),
                           sqrt(10.0 * 20.0) * 1e-6, 1e-15);
    /* below the first size: the first point; above the last: by bytes */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 100, 8), 30e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, exp2(28), 8),
                           480e-6 * 4, 1e-15);
    /* 3 GPUs: halfway between 2 and 4; 6: halfway between 4 and 8 */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048, 3), 15e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048, 6), 25e-6, 1e-15);
    /* 16: 8's scaled by the ring's (15/16) / (7/8) */
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048, 16),
                           30e-6 * (15.0 / 16) / (7.0 / 8), 1e-15);
    CU_ASSERT_EQUAL(gs_llm_allreduce_time(&e, 2048, 1), 0);
    /* 4 GPUs measured slower than 8: held to 8's time (and 2 to it) */
    double keep4 = c.us[1][0], keep2 = c.us[0][0];
    c.us[1][0] = 50;
    c.us[0][0] = 40;
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048, 4), 30e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048, 2), 30e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048, 8), 30e-6, 1e-15);
    c.us[1][0] = keep4;
    c.us[0][0] = keep2;
    /* 8 GPUs not measured: 8 from 4's, scaled */
    for (int i = 0; i < GS_AR_POINTS; i++)
        c.us[2][i] = 0;
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 2048, 8),
                           20e-6 * (7.0 / 8) / (3.0 / 4), 1e-15);
    /* no curve: the ring, 2 (n-1)/n bytes / link + 2 (n-1) latencies */
    e.ar = NULL;
    CU_ASSERT_DOUBLE_EQUAL(gs_llm_allreduce_time(&e, 1e6, 4),
                           1.5 * 1e6 / 100e9 + 6 * 5e-6, 1e-15);
}

/* A profile written from known factors: two layer shapes, TP 1 and 2,
 * tokens 1..4096, every op. */
static const char *write_profile(const struct gs_llm_hw *hw, int with_post)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/gs_llmops_%d.csv", (int)getpid());
    FILE *f = fopen(path, "w");
    for (int k = 0; k < GS_OP_N; k++) {
        if (k == GS_OP_POST_NORM && !with_post)
            continue;
        fprintf(f, "time_stats.%s.min,time_stats.%s.median,",
                gs_llm_op_name(k), gs_llm_op_name(k));
    }
    fprintf(f, "n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,"
            "use_gated_mlp,num_tokens,num_tensor_parallel_workers\n");
    static const int shapes[2][5] = { { 32, 8, 4096, 14336, 1 },
                                      { 40, 40, 5120, 13824, 0 } };
    for (int s = 0; s < 2; s++)
        for (int tp = 1; tp <= 2; tp++)
            for (int tok = 1; tok <= 4096; tok = tok < 8 ? tok + 1 : tok * 3 / 2) {
                struct gs_llm_shape sh = { shapes[s][0], shapes[s][1],
                    shapes[s][2], shapes[s][3], 32000, shapes[s][4], tp,
                    .parallel = !with_post,
                    /* Vidur's plain MLP comes with PyTorch's LayerNorm */
                    .layernorm = !shapes[s][4] };
                for (int k = 0; k < GS_OP_N; k++) {
                    if (k == GS_OP_POST_NORM && !with_post)
                        continue;
                    double t = 1e3 * gs_llm_op_time(hw, &sh, k, tok);
                    fprintf(f, "%.17g,%.17g,", t, t);
                }
                fprintf(f, "%d,%d,%d,%d,32000,%s,%d,%d\n", sh.heads,
                        sh.kv_heads, sh.hidden, sh.ffn,
                        sh.gated ? "True" : "False", tok, tp);
            }
    fclose(f);
    return path;
}

static void test_fit_recovers_every_factor(void)
{
    struct gs_llm_hw truth = toy();
    truth.eff.sms = 108;
    truth.eff.gemm_waves = 1;
    truth.eff.gemm_k0 = 100;
    truth.eff.elem_wave_us = 0.7;
    truth.eff.l2_mb = 20;
    for (int k = 0; k < GS_EK_N; k++)
        truth.eff.elem_l2[k] = truth.eff.elem_eff[k] * (1.2 + 0.1 * k);
    const char *path = write_profile(&truth, 1);
    struct gs_llm_prof p = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_llm_prof_read(path, &p, NULL), 0);
    CU_ASSERT_EQUAL(gs_llm_prof_groups(&p), 2);
    struct gs_llm_hw fit = truth;
    fit.eff.compute_eff = 0.9;
    fit.eff.bw_eff = 0.3;
    fit.eff.gemm_us = 20;
    fit.eff.gemm_k0 = 5;
    fit.eff.elem_wave_us = 3;
    for (int k = 0; k < GS_EK_N; k++) {
        fit.eff.elem_eff[k] = 0.9;
        fit.eff.elem_us[k] = 0.5;
        fit.eff.elem_l2[k] = 0.2;
    }
    CU_ASSERT_EQUAL_FATAL(gs_llm_prof_fit(&p, -1, &fit, NULL), 0);
    const struct gs_gpu_llm *f = &fit.eff, *t = &truth.eff;
    CU_ASSERT(fabs(f->compute_eff / t->compute_eff - 1) < 0.01);
    CU_ASSERT(fabs(f->bw_eff / t->bw_eff - 1) < 0.01);
    CU_ASSERT(fabs(f->gemm_us / t->gemm_us - 1) < 0.01);
    CU_ASSERT(fabs(f->gemm_k0 / t->gemm_k0 - 1) < 0.01);
    CU_ASSERT(fabs(f->elem_wave_us / t->elem_wave_us - 1) < 0.01);
    for (int k = 0; k < GS_EK_N; k++) {
        CU_ASSERT(fabs(f->elem_eff[k] / t->elem_eff[k] - 1) < 0.01);
        CU_ASSERT(fabs(f->elem_us[k] / t->elem_us[k] - 1) < 0.01);
        CU_ASSERT(fabs(f->elem_l2[k] / t->elem_l2[k] - 1) < 0.01);
    }
    struct gs_llm_validation v;
    CU_ASSERT_EQUAL(gs_llm_prof_validate(&p, -1, &fit, &v, NULL), 0);
    CU_ASSERT(v.layer.n == p.n && v.layer.p90 < 0.005);
    for (int k = 0; k < GS_OP_N; k++)
        CU_ASSERT(v.op[k].n == p.n && v.op[k].p90 < 0.01);
    /* the starting factors were far off: the check can fail */
    struct gs_llm_hw bad = toy();
    bad.eff.compute_eff = 0.9;
    CU_ASSERT_EQUAL(gs_llm_prof_validate(&p, -1, &bad, &v, NULL), 0);
    CU_ASSERT(v.op[GS_OP_MLP_UP].p90 > 0.2);
    gs_llm_prof_free(&p);
    unlink(path);
}

/* The times' resolution (gpusim llm ... --resolution): an error counts
 * only beyond it, by hand on one row, for an op and for the layer's sum
 * (one allowance, not one per op); 0 is the plain relative error. */
static void test_resolution_allowance(void)
{
    struct gs_llm_hw hw = toy();
    struct gs_llm_prof_row r = { .s = { .heads = 32, .kv_heads = 32,
        .hidden = 4096, .ffn = 11008, .vocab = 32000, .gated = 1, .tp = 1 },
        .tokens = 64 };
    for (int k = 0; k < GS_OP_N; k++)
        r.t[k] = -1;
    double add = gs_llm_op_time(&hw, &r.s, GS_OP_ADD, 64);
    double norm = gs_llm_op_time(&hw, &r.s, GS_OP_INPUT_NORM, 64);
    CU_ASSERT_FATAL(add > 1e-6 && norm > 1e-6);
    struct gs_llm_prof p = { .n = 1, .cap = 1, .r = &r };
    double e[1];
    r.t[GS_OP_ADD] = add + 2e-6;        /* measured 2 us above the model */
    CU_ASSERT_EQUAL(gs_llm_prof_errors(&p, -1, GS_OP_ADD, &hw, e), 1);
    CU_ASSERT_DOUBLE_EQUAL(e[0], 2e-6 / (add + 2e-6), 1e-12);
    p.res_s = 0.5e-6;
    CU_ASSERT_EQUAL(gs_llm_prof_errors(&p, -1, GS_OP_ADD, &hw, e), 1);
    CU_ASSERT_DOUBLE_EQUAL(e[0], 1.5e-6 / (add + 2e-6), 1e-12);
    r.t[GS_OP_ADD] = add - 0.4e-6;      /* within the resolution: 0 */
    CU_ASSERT_EQUAL(gs_llm_prof_errors(&p, -1, GS_OP_ADD, &hw, e), 1);
    CU_ASSERT_DOUBLE_EQUAL(e[0], 0, 0);
    r.t[GS_OP_INPUT_NORM] = norm - 0.4e-6;  /* the layer: 0.8 us off */
    CU_ASSERT_EQUAL(gs_llm_prof_errors(&p, -1, GS_OP_N, &hw, e), 1);
    CU_ASSERT_DOUBLE_EQUAL(e[0], 0.3e-6 / (add + norm - 0.8e-6), 1e-12);
    p.res_s = 0;
    CU_ASSERT_EQUAL(gs_llm_prof_errors(&p, -1, GS_OP_N, &hw, e), 1);
    CU_ASSERT_DOUBLE_EQUAL(e[0], 0.8e-6 / (add + norm - 0.8e-6), 1e-12);
    /* the CLI: a bad value, or one for serving times, is exit 2 */
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(gs_cli_run("", "llm validate --gpu A40 --profile x.csv "
                               "--resolution -1", NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "--resolution: '-1'"));
    free(err);
    CU_ASSERT_EQUAL(gs_cli_run("", "llm validate --gpu A40 --splitwise "
                               "x.csv --resolution 0.5", NULL, NULL), 2);
    struct gs_llm_hw a100;
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "A100-80GB"), &a100);
    const char *path = write_profile(&a100, 0);
    char args[600];
    snprintf(args, sizeof args, "llm validate --profile %s --gpu A100-80GB "
             "--resolution 0.5 --json", path);
    CU_ASSERT_EQUAL(gs_cli_run("", args, &out, NULL), 0);
    /* the catalog's factors wrote the file: every error within 0.5 us */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"layer\": {\"n\": "));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"median\": 0, \"p90\": 0}"));
    CU_ASSERT_PTR_NULL(out && strstr(out, "\"median\": 0."));
    CU_ASSERT_PTR_NULL(out && strstr(out, "\"p90\": 0."));
    CU_ASSERT_PTR_NULL(out && strstr(out, "e-"));
    free(out);
    unlink(path);
}

static const char *write_text(const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/gs_llmops_bad_%d.csv", (int)getpid());
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

#define HDR "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd," \
            "vocab_size,use_gated_mlp,num_tokens,num_tensor_parallel_workers\n"

static void test_profile_errors(void)
{
    static const struct { const char *text, *where, *what; } bad[] = {
        { "n_head,n_kv_head\n1,1\n", ":1", "n_embd" },
        { HDR "0.1,32,8,4096,14336,32000,True,4,1\n"
              "0.1,32,8,4096,14336,32000,maybe,4,1\n", ":3:7", "True or False" },
        { HDR "0.1,32,8,4096,14336,32000,True,4,1\n"
              "-1,32,8,4096,14336,32000,True,4,1\n", ":3:1", "positive" },
        { HDR "0.1,32,8,4096,14336,32000,True,4\n", ":2:", "fields" },
        { HDR "0.1,32,7,4096,14336,32000,True,4,1\n", ":2:3", "divide" },
        { HDR "0.1,32,8,4096,14336,32000,True,4,3\n", ":2:9", "divide" },
        { "n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,"
          "use_gated_mlp,num_tokens,num_tensor_parallel_workers\n", ":1",
          "any known op" },
        { HDR, "", "no rows" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = write_text(bad[i].text);
        struct gs_llm_prof p = { 0 };
        struct gs_diag d = { 0 };
        CU_ASSERT(gs_llm_prof_read(path, &p, &d) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(d.where, path));
        if (!strstr(d.where, bad[i].where) || !strstr(d.what, bad[i].what))
            printf("\n    case %zu: %s: %s", i, d.where, d.what);
        CU_ASSERT_PTR_NOT_NULL(strstr(d.where, bad[i].where));
        CU_ASSERT_PTR_NOT_NULL(strstr(d.what, bad[i].what));
        gs_llm_prof_free(&p);
        unlink(path);
        gs_diag_free(&d);
    }
    struct gs_llm_prof p = { 0 };
    CU_ASSERT_EQUAL(gs_llm_prof_read("/nonexistent/x.csv", &p, NULL), GS_EIO);
}

/* Lines of any length up to the trace reader's 16 MiB: a header of 20,000
 * columns (about 200 KB, the shape and time columns after all of them) and
 * its rows are read whole, in mlp.csv and all_reduce.csv alike; a longer
 * line is refused naming it.  The reader before (fgets into 64 KiB, at most
 * 1,024 fields) cut the header and said "no column 'n_head'". */
static void test_profile_long_lines(void)
{
    enum { PAD = 20000 };
    const char *path = write_text("");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int i = 0; i < PAD; i++)
        fprintf(f, "pad_%05d,", i);
    fputs(HDR, f);
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < PAD; i++)
            fputs("7,", f);
        fprintf(f, "0.%d,32,8,4096,14336,32000,True,%d,1\n", r + 1, 4 << r);
    }
    fclose(f);
    struct gs_llm_prof p = { 0 };
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_llm_prof_read(path, &p, &d), 0);
    if (gs_diag_what(&d)[0])
        printf("\n    %s: %s", gs_diag_where(&d), gs_diag_what(&d));
    CU_ASSERT_EQUAL(p.n, 2);
    if (p.n == 2) {
        CU_ASSERT(p.r[0].s.heads == 32 && p.r[0].s.kv_heads == 8
                  && p.r[0].s.hidden == 4096 && p.r[0].s.ffn == 14336
                  && p.r[0].s.gated == 1 && p.r[0].s.tp == 1);
        CU_ASSERT(p.r[0].tokens == 4 && p.r[1].tokens == 8);
        CU_ASSERT_DOUBLE_EQUAL(p.r[0].t[GS_OP_ADD], 0.1e-3, 1e-15);
        CU_ASSERT_DOUBLE_EQUAL(p.r[1].t[GS_OP_ADD], 0.2e-3, 1e-15);
    }
    gs_llm_prof_free(&p);
    gs_diag_free(&d);

    /* all_reduce.csv: the same header padding; 2 GPUs at 2 KiB, 50 us */
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int i = 0; i < PAD; i++)
        fprintf(f, "pad_%05d,", i);
    fputs("time_stats.all_reduce.median,num_workers,size,devices_per_node\n",
          f);
    for (int i = 0; i < PAD; i++)
        fputs("7,", f);
    fputs("0.05,2,2048,2\n", f);
    fclose(f);
    struct gs_ar_curve c;
    memset(&c, 0, sizeof c);
    CU_ASSERT_EQUAL(gs_llm_ar_read(path, &c, &d), 0);
    CU_ASSERT_DOUBLE_EQUAL(c.us[0][0], 50, 1e-9);
    gs_diag_free(&d);

    /* a row of 17 MiB: refused in words, naming its line */
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(HDR, f);
    for (int i = 0; i < 17 << 19; i++)
        fputs(" ,", f);
    fputs("\n", f);
    fclose(f);
    p = (struct gs_llm_prof){ 0 };
    CU_ASSERT_EQUAL(gs_llm_prof_read(path, &p, &d), GS_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(gs_diag_where(&d), path));
    CU_ASSERT_PTR_NOT_NULL(strstr(gs_diag_where(&d), ":2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(gs_diag_what(&d), "longer than 16 MiB"));
    gs_llm_prof_free(&p);
    gs_diag_free(&d);
    unlink(path);
}

/* `gpusim llm validate --json`: exactly the keys the README promises; a
 * bad file is exit 2 naming file, line and column. */
/* A file without post_attention_layernorm is a parallel block: its add
 * is two residual adds (input + attention + MLP), by hand, and its rows
 * say so; a file with that norm is a sequential block. */
static void test_parallel_block_add(void)
{
    struct gs_llm_hw hw;
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "H100-80GB"), &hw);
    struct gs_llm_shape seq = { .heads = 32, .kv_heads = 32, .hidden = 2560,
                                .ffn = 10240, .vocab = 51200, .tp = 1 };
    struct gs_llm_shape par = seq;
    par.parallel = 1;
    for (int tok = 1; tok <= 4096; tok *= 4) {
        double one = gs_llm_elem_time(&hw, GS_EK_ADD, 2.0 * 3 * tok * 2560,
                                      tok);
        CU_ASSERT_DOUBLE_EQUAL(gs_llm_op_time(&hw, &seq, GS_OP_ADD, tok), one,
                               1e-15);
        CU_ASSERT_DOUBLE_EQUAL(gs_llm_op_time(&hw, &par, GS_OP_ADD, tok),
                               2 * one, 1e-15);
        /* the other ops do not change */
        CU_ASSERT_DOUBLE_EQUAL(gs_llm_op_time(&hw, &par, GS_OP_INPUT_NORM, tok),
                               gs_llm_op_time(&hw, &seq, GS_OP_INPUT_NORM, tok),
                               0);
    }
    for (int with_post = 0; with_post <= 1; with_post++) {
        struct gs_llm_prof p = { 0 };
        const char *path = write_profile(&hw, with_post);
        CU_ASSERT_EQUAL_FATAL(gs_llm_prof_read(path, &p, NULL), 0);
        int n = 0;
        for (int r = 0; r < p.n; r++)
            n += p.r[r].s.parallel;
        CU_ASSERT(p.n > 0);
        CU_ASSERT_EQUAL(n, with_post ? 0 : p.n);
        gs_llm_prof_free(&p);
        unlink(path);
    }
}

static void test_validate_cli(void)
{
    struct gs_llm_hw truth;
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "A100-80GB"), &truth);
    const char *path = write_profile(&truth, 0);
    char args[600], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "llm validate --profile %s --gpu A100-80GB "
             "--json", path);
    CU_ASSERT_EQUAL(gs_cli_run("", args, &out, &err), 0);
    /* the catalog's own factors wrote the file: errors are rounding only */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "{\"ops\": {\"emb\": {\"n\": "));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "}, \"layer\": {\"n\": "));
    CU_ASSERT_PTR_NULL(out && strstr(out, "post_attention_layernorm"));
    CU_ASSERT_PTR_NULL(out && strstr(out, "e-0"));  /* no error >= 1e-9... */
    free(out);
    free(err);
    unlink(path);
    path = write_text(HDR "0.1,32,8,4096,14336,32000,True,x,1\n");
    snprintf(args, sizeof args, "llm validate --profile %s --gpu A100-80GB",
             path);
    CU_ASSERT_EQUAL(gs_cli_run("", args, &out, &err), 2);
    char where[300];
    snprintf(where, sizeof where, "%s:2:8", path);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, where));
    CU_ASSERT(out && out[0] == 0);
    free(out);
    free(err);
    unlink(path);
    CU_ASSERT_EQUAL(gs_cli_run("", "llm validate --gpu NoSuchGPU --profile "
                               "x.csv", NULL, NULL), 2);
    CU_ASSERT_EQUAL(gs_cli_run("", "llm validate --gpu A40", NULL, NULL), 2);
}

/* Each held-out shape's medians as docs/inference.md reports them (%, per
 * op in enum order: emb, input_layernorm, attn_pre_proj, attn_rope,
 * attn_post_proj, post_attention_layernorm, mlp_up_proj, mlp_act,
 * mlp_down_proj, add; then the layer; -1: not measured).  Each is held
 * 1.5 points above its figure, and never above the targets (10%
 * an op, 8% the layer) unless the figure already is: a regression of any
 * cell fails.  The misses are phi-2's (the one plain-MLP shape): its
 * LayerNorm and GELU are other kernels than any gated model's, and its
 * rotary on the H100 and A40 (docs/inference.md says why). */
static const struct {
    const char *dir;
    int hidden, ffn;
    double op[GS_OP_N], layer;
} measured[] = {
    { "a100", 8192, 28672, { 6.9, 3.8, 5.0, 5.3, 5.3, 4.1, 4.2, 3.8, 3.9,
                             4.2 }, 2.7 },
    { "a100", 4096, 11008, { 3.8, 5.7, 6.1, 7.1, 4.6, 6.0, 5.7, 5.7, 7.7,
                             5.9 }, 4.2 },
    { "a100", 4096, 14336, { 5.1, 4.0, 6.2, 7.0, 6.3, 3.8, 3.4, 3.1, 4.6,
                             4.4 }, 2.4 },
    { "a100", 2560, 10240, { 5.1, 13.6, 5.1, 5.1, 6.0, -1, 4.0, 17.9, 6.9,
                             9.7 }, 3.0 },
    { "h100", 8192, 28672, { 6.6, 9.3, 8.9, 5.9, 7.1, 5.6, 4.8, 4.3, 8.6,
                             3.8 }, 5.0 },
    { "h100", 4096, 11008, { 4.0, 3.9, 7.0, 6.3, 8.5, 5.9, 7.0, 5.7, 9.7,
                             5.8 }, 3.9 },
    { "h100", 2560, 10240, { 4.5, 17.7, 9.1, 20.4, 6.4, -1, 8.3, 10.3, 8.0,
                             6.6 }, 6.0 },
    { "a40", 8192, 28672, { 3.0, 5.8, 6.0, 5.9, 5.0, 5.7, 3.4, 3.5, 4.0,
                            2.7 }, 2.7 },
    { "a40", 4096, 11008, { 5.5, 6.1, 6.9, 4.0, 7.6, 6.0, 6.2, 5.3, 6.1,
                            4.0 }, 3.2 },
    { "a40", 2560, 10240, { 8.8, 12.4, 5.7, 16.1, 9.3, -1, 3.7, 3.5, 7.1,
                            3.3 }, 3.3 },
};

static double held(double figure, double target)
{
    double b = (figure + 1.5) / 100;
    return figure / 100 <= target && b > target ? target : b;
}

static void check_shape(const struct gs_llm_prof *p, int group,
                        const char *dir, const struct gs_llm_validation *v)
{
    const struct gs_llm_shape *s = NULL;
    for (int r = 0; r < p->n && !s; r++)
        if (p->r[r].group == group)
            s = &p->r[r].s;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    int row = -1;
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
        if (strcmp(measured[i].dir, dir) == 0
            && measured[i].hidden == s->hidden && measured[i].ffn == s->ffn)
            row = (int)i;
    CU_ASSERT_FATAL(row >= 0);
    for (int k = 0; k < GS_OP_N; k++) {
        double f = measured[row].op[k], b = held(f, 0.10);
        CU_ASSERT_EQUAL(v->op[k].n > 0, f >= 0);
        if (v->op[k].n > 0 && !(v->op[k].median <= b))
            printf("\n    %s %d/%d %s: %.1f%% > %.1f%%", dir, s->hidden,
                   s->ffn, gs_llm_op_name(k), 100 * v->op[k].median,
                   100 * b);
        CU_ASSERT(v->op[k].n == 0 || v->op[k].median <= b);
    }
    double b = held(measured[row].layer, 0.08);
    if (!(v->layer.median <= b))
        printf("\n    %s %d/%d layer: %.1f%% > %.1f%%", dir, s->hidden,
               s->ffn, 100 * v->layer.median, 100 * b);
    CU_ASSERT(v->layer.median <= b);
}

/* Vidur's measured kernels: leave-one-shape-out per GPU, pooled over the
 * held-out rows; the bounds docs/inference.md reports.  `make test` checks
 * the H100 alone (3 shapes, about 2 s; its norms are the weakest bound);
 * `make test-long` (GS_TEST_LONG=1) every GPU, the A100's five LLMs too. */
static void test_leave_one_shape_out(void)
{
    if (access(VIDUR, R_OK) != 0) {
        printf("\n    [skipped: %s is missing]", VIDUR);
        return;
    }
    static const struct { const char *dir, *gpu, *models[5]; } g[] = {
        { "a100", "A100-80GB", { "meta-llama/Llama-2-7b-hf",
          "meta-llama/Llama-2-70b-hf", "meta-llama/Meta-Llama-3-8B",
          "meta-llama/Meta-Llama-3-70B", "microsoft/phi-2" } },
        { "h100", "H100-80GB", { "meta-llama/Llama-2-7b-hf",
          "meta-llama/Llama-2-70b-hf", "microsoft/phi-2" } },
        { "a40", "A40", { "meta-llama/Llama-2-7b-hf",
          "meta-llama/Llama-2-70b-hf", "microsoft/phi-2" } },
    };
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        if (!gs_test_long() && strcmp(g[i].dir, "h100") != 0)
            continue;
        struct gs_llm_prof p = { 0 };
        for (int m = 0; m < 5 && g[i].models[m]; m++) {
            char path[300];
            snprintf(path, sizeof path, VIDUR "/compute/%s/%s/mlp.csv",
                     g[i].dir, g[i].models[m]);
            CU_ASSERT_EQUAL_FATAL(gs_llm_prof_read(path, &p, NULL), 0);
        }
        struct gs_llm_hw hw;
        gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, g[i].gpu), &hw);
        struct gs_llm_validation v, per[8];
        int ng = gs_llm_prof_loso(&p, &hw, &v, per, 8, NULL);
        CU_ASSERT(ng >= 2 && ng <= 8);
        for (int gi = 0; gi < ng && gi < 8; gi++)
            check_shape(&p, gi, g[i].dir, &per[gi]);
        printf("\n    %s: layer %.1f%%, ops", g[i].gpu, 100 * v.layer.median);
        for (int k = 0; k < GS_OP_N; k++) {
            printf(" %.1f", 100 * v.op[k].median);
            /* the target, pooled: every op within 10%
             * (measured: the GEMMs 4.2-8.9%, the elementwise kinds
             * 4.0-7.1%); per shape, check_shape */
            CU_ASSERT(v.op[k].median <= 0.10);
        }
        CU_ASSERT(v.layer.median <= 0.08);
        gs_llm_prof_free(&p);
    }
}

/* The power curve by hand, and never above the limit or the cap. */
static void test_power_by_hand(void)
{
    struct gs_power_shape sh = { .idle = 0.25, .a = 2.0, .b = 1.0 };
    CU_ASSERT_DOUBLE_EQUAL(gs_power_watts(&sh, 400, 0, 0, 0), 100, 1e-12);
    /* 0.25 + 0.75 x (2 x 0.1 + 0.3) = 0.625 of 400 W */
    CU_ASSERT_DOUBLE_EQUAL(gs_power_watts(&sh, 400, 0.1, 0.3, 0), 250, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_power_watts(&sh, 400, 0.9, 0.9, 0), 400, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_power_watts(&sh, 400, 0.1, 0.3, 200), 200, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_power_watts(&sh, 400, -1, -1, 0), 100, 1e-12);
    for (int i = 0; i <= 20; i++)
        for (int j = 0; j <= 20; j++) {
            double w = gs_power_watts(&gs_power_default, 700, i / 20.0,
                                      j / 20.0, 0);
            double c = gs_power_watts(&gs_power_default, 700, i / 20.0,
                                      j / 20.0, 350);
            CU_ASSERT(w <= 700 && w >= 700 * gs_power_default.idle);
            CU_ASSERT(c <= 350 && c <= w);
        }
}

/* Power measured from a known shape on Splitwise's grid (A100, Llama-2-70B
 * and BLOOM): the fit gives the shape back. */
static void test_power_fit_recovers_shape(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_llm_hw hw;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "A100-80GB"), &hw);
    const struct gs_power_shape truth = { .idle = 0.2, .a = 1.5, .b = 0.9 };
    struct gs_llm_calib c = { 0 };
    c.cap = 256;
    c.p = calloc((size_t)c.cap, sizeof *c.p);
    static const int sizes[] = { 128, 512, 2048, 8192 };
    static const int batches[] = { 1, 4, 16, 64 };
    const char *models[] = { "llama2-70b", "bloom-176b" };
    for (int m = 0; m < 2; m++)
        for (int tp = 2; tp <= 8; tp *= 2)
            for (int i = 0; i < 4; i++)
                for (int k = 0; k < 4; k++) {
                    struct gs_llm_calib_pt *p = &c.p[c.n++];
                    snprintf(p->model, sizeof p->model, "%s", models[m]);
                    snprintf(p->hw, sizeof p->hw, "a100-80gb");
                    p->tp = tp;
                    p->prompt = sizes[i];
                    p->batch = batches[k];
                    p->tokens = 128;
                    struct gs_llm_arch a;
                    struct gs_llm_perf pf;
                    gs_llm_arch_find(p->model, &a, "$", NULL);
                    gs_llm_perf_init(&pf, &a, &hw, tp, NULL);
                    double b = p->batch, pr = p->prompt, ctx = pr + 64;
                    struct gs_llm_batch pb = { .prefill_tokens = b * pr,
                        .prefill_attn = b * pr * (pr + 1) / 2,
                        .prefill_ctx = b * pr, .sampled = b, .seqs = b };
                    struct gs_llm_batch db = { .decode_tokens = b,
                        .decode_ctx = b * (ctx + 1), .sampled = b, .seqs = b };
                    double tp_s = gs_llm_perf_time(&pf, &pb);
                    double td_s = gs_llm_perf_time(&pf, &db);
                    double uc, um, vc, vm;
                    gs_llm_perf_util(&pf, &pb, tp_s, &uc, &um);
                    gs_llm_perf_util(&pf, &db, td_s, &vc, &vm);
                    double pp = gs_power_watts(&truth, 1, uc, um, 0);
                    double pd = gs_power_watts(&truth, 1, vc, vm, 0);
                    p->peak_pw = pp > pd ? pp : pd;
                    p->avg_pw = (tp_s * pp + 128 * td_s * pd)
                                / (tp_s + 128 * td_s);
                    p->prompt_ms = 1e3 * tp_s;
                    p->token_ms = 1e3 * td_s;
                }
    struct gs_power_shape fit;
    struct gs_llm_calib_err e;
    CU_ASSERT_EQUAL_FATAL(gs_llm_power_fit(&c, "a100-80gb", &hw, &fit, &e,
                                           NULL), 0);
    printf("\n    fitted idle %.4f a %.4f b %.4f", fit.idle, fit.a, fit.b);
    CU_ASSERT(fabs(fit.idle / truth.idle - 1) < 0.02);
    CU_ASSERT(fabs(fit.a / truth.a - 1) < 0.02);
    CU_ASSERT(fabs(fit.b / truth.b - 1) < 0.02);
    CU_ASSERT(e.n == c.n && e.prompt_max < 0.005 && e.token_max < 0.005);
    /* no power measured: refused */
    CU_ASSERT_EQUAL(gs_llm_power_fit(&c, "h100-80gb", &hw, &fit, &e, NULL),
                    GS_ENOTFOUND);
    gs_llm_calib_free(&c);
}

/* The engine's memo (gs_llm_perf_step) gives gs_llm_perf_time's and
 * gs_llm_perf_util's doubles to the bit, on every batch shape: prefill
 * chunks, decodes, both, no sampled sequence, a MoE layer, and counts that
 * share a slot (tok and tok + 512 replace each other in a memo of 512
 * slots). */
static void test_memo_is_exact(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_llm_hw hw;
    gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "H100-80GB"), &hw);
    static const char *models[] = { "llama3-8b", "llama3-70b",
                                    "mixtral-8x7b" };
    static const int tps[] = { 1, 8, 2 };
    struct gs_llm_memo *m = NULL;
    uint64_t rs = 12345;
    long same = 0, n = 0;
    for (int k = 0; k < 3; k++) {
        struct gs_llm_arch a;
        struct gs_llm_perf pf;
        CU_ASSERT_EQUAL_FATAL(gs_llm_arch_find(models[k], &a, "$", NULL), 0);
        CU_ASSERT_EQUAL_FATAL(gs_llm_perf_init(&pf, &a, &hw, tps[k], NULL), 0);
        gs_llm_memo_free(m);
        m = gs_llm_memo_get(NULL, &pf, 500, 200);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        CU_ASSERT(m->ntok == 512 && m->nhead == 256);
        for (int i = 0; i < 20000; i++, n++) {
            rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
            int kind = (int)(rs >> 60) % 3, dec = (int)(rs >> 33) % 300;
            int pre = kind == 1 ? 0 : (int)(rs >> 20) % 700;
            if (kind == 0)
                dec = 0;
            struct gs_llm_batch b = {
                .prefill_tokens = pre, .prefill_attn = pre * (pre + 1) / 2.0,
                .prefill_ctx = pre, .decode_tokens = dec,
                .decode_ctx = dec * 900.0 + (double)(rs & 1023),
                .sampled = (rs >> 8) % 5 == 0 ? 0 : dec + (pre > 0),
                .seqs = dec + (pre > 0),
            };
            double uc, um, vc, vm;
            double t = gs_llm_perf_time(&pf, &b);
            gs_llm_perf_util(&pf, &b, t, &uc, &um);
            double s = gs_llm_perf_step(&pf, m, &b, &vc, &vm);
            same += memcmp(&t, &s, sizeof t) == 0
                    && memcmp(&uc, &vc, sizeof uc) == 0
                    && memcmp(&um, &vm, sizeof um) == 0;
        }
    }
    CU_ASSERT_EQUAL(same, n);
    /* an empty batch costs nothing and no utilization */
    struct gs_llm_batch z = { 0 };
    double vc = 1, vm = 1;
    struct gs_llm_arch a;
    struct gs_llm_perf pf;
    gs_llm_arch_find("llama3-8b", &a, "$", NULL);
    gs_llm_perf_init(&pf, &a, &hw, 1, NULL);
    CU_ASSERT_EQUAL(gs_llm_perf_step(&pf, m, &z, &vc, &vm), 0);
    CU_ASSERT(vc == 0 && vm == 0);
    gs_llm_memo_free(m);
}

static CU_TestInfo tests[] = {
    { "a GEMM's time by hand", test_gemm_by_hand },
    { "op shapes and bytes by hand", test_op_shapes_by_hand },
    { "no rotary kernel without rotary positions", test_no_rotary },
    { "all-reduce interpolation by hand", test_allreduce_interpolation },
    { "kernel fit recovers every factor", test_fit_recovers_every_factor },
    { "bad profiles name file, line and column", test_profile_errors },
    { "profile lines of any length, or refused", test_profile_long_lines },
    { "llm validate: JSON and errors", test_validate_cli },
    { "elementwise waves and L2 by hand", test_elementwise_rules_by_hand },
    { "a parallel block's add is two adds", test_parallel_block_add },
    { "errors beyond the times' resolution", test_resolution_allowance },
    { "Vidur: leave-one-shape-out bounds", test_leave_one_shape_out },
    { "power by hand, never above limit or cap", test_power_by_hand },
    { "power fit recovers a known shape", test_power_fit_recovers_shape },
    { "the iteration memo is exact to the bit", test_memo_is_exact },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("llmops", tests)
