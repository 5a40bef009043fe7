/* gpu.c -- built-in GPU models and cross-model speed conversion.
 *
 * Figures are the vendors' datasheet values per GPU (one die for K80):
 *   A100 40/80 GB SXM: 312 TFLOP/s dense BF16, 1,555 / 2,039 GB/s, 400 W
 *     (NVIDIA A100 Tensor Core GPU datasheet);
 *   H100 SXM 80 GB: 989 TFLOP/s dense BF16, 3,350 GB/s, 700 W;
 *   H200 SXM 141 GB: 989 TFLOP/s dense BF16, 4,800 GB/s, 700 W
 *     (NVIDIA H100 and H200 datasheets);
 *   A800/H800: the export variants of A100-80GB/H100 with the same compute
 *     and memory (only NVLink differs, which is not modeled);
 *   V100 SXM2 16/32 GB: 125 TFLOP/s FP16 tensor, 900 GB/s, 300 W;
 *   P100 SXM2: 21.2 TFLOP/s FP16, 732 GB/s, 300 W;
 *   T4: 65 TFLOP/s FP16 tensor, 320 GB/s, 70 W;
 *   A10: 125 TFLOP/s BF16 dense, 600 GB/s, 150 W;
 *   A10G (AWS G5's variant of the A10): the A10's 24 GB GDDR6 at 600 GB/s
 *     but 70 TFLOP/s dense BF16 tensor (Baseten, "NVIDIA A10 vs A10G for
 *     ML model inference"); NVIDIA publishes no A10G datasheet, so its
 *     power is taken as the A10's 150 W;
 *   K80 (per die): 4.37 TFLOP/s FP32 boost, 240 GB/s, 12 GB, 150 W.
 * Public traces also name models whose figures were never disclosed:
 * Alibaba's openb lists use the internal codes G1, G2 and G3, and its 2026
 * spot fleet GPU-series-1 and GPU-series-2.  They are built in, so that a
 * trace converted to the native format (which names them) reads back in
 * any scenario, with assumed figures: a V100-32GB's for G1-G3, an
 * A100-80GB's (that fleet's main model) for the series.
 * A scenario may redefine any of them or add its own.
 *
 *   A40: 149.7 TFLOP/s dense BF16, 696 GB/s GDDR6, 48 GB, 300 W, 84 SMs
 *     (NVIDIA A40 datasheet); L40S: 362.05 TFLOP/s dense BF16, 864 GB/s,
 *     48 GB, 350 W, 142 SMs (L40S datasheet); B200 (HGX): 2,250 TFLOP/s
 *     dense BF16, 8,000 GB/s, 180 GB HBM3e, 1,000 W, 148 SMs (HGX B200
 *     datasheet; its MIG profiles are not modeled).
 *
 * LLM serving efficiency (struct gs_gpu_llm, the operator model of
 * sim/inference/llmops.c): A100-80GB, H100-80GB and A40 carry kernel
 * factors fitted on Vidur's measured kernel profiles of that GPU, and
 * A100/H100 the serving factors fitted on Splitwise's measured prompt and
 * token times (`gpusim llm calibrate`, docs/inference.md), with the
 * measured NCCL all-reduce curves of DGX A100 and H100.  A100-40GB and
 * A800 share the A100's factors and H800 the H100's (same chips, other
 * memory); the export parts use the ring model with the link scaled by
 * their NVLink (400 GB/s against 600 and 900).  Every other GPU is not
 * measured: its serving model is derived from its datasheet (peaks, SMs,
 * L2, link) with the nearest measured GPU's efficiencies, kernel and
 * serving factors alike, nearest by the part's kind (its memory and its
 * board), which sets how much of the peak its kernels reach and how its
 * host issues them:
 * - HBM on an SXM board with NVLink, like the A100 and H100: H200 and
 *   B200 take the H100's (the choice); V100, P100 and the
 *   V100-like G1-G3 the A100's (the older HBM parts; by their peaks
 *   alone they lie nearer the A40, but their memory and board are the
 *   A100's kind); GPU-series-1/2, assumed A100-80GBs, the A100-80GB's
 *   with its curve;
 * - GDDR on a PCIe card, like the A40: L40S (the choice), A10 and
 *   A10G (the A40's own chip family, GA102), T4 and K80 the A40's, which
 *   the A40's serving factors make the A100's host costs.
 * The older parts' link per GPU and direction: V100 NVLink 150 GB/s,
 * P100 80, PCIe for the others (16-32).  A GPU a scenario declares
 * (gs_catalog_add) knows only its peaks: it takes the factors, SMs and L2
 * of the measured GPU nearest in log peak FLOP/s and log bandwidth
 * (gs_catalog_nearest_measured), and its interconnect (the DGX curve of
 * an A100 or H100, the A40's PCIe ring): a GPU on a 16 GB/s link made
 * tensor parallelism slow 8,192-token prefills down.  No GPU keeps the old unfitted default (14 ms
 * per iteration, no prefill cost): gs_gpu_llm_fill_defaults gives a set of
 * zeros the A100's factors. */
#include "gpu.h"
#include "../base/err.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct gs_gpu_model builtin[] = {
    { "A100-40GB",  40.0, 312.0, 1555.0, 400.0, 1, 0 },
    { "A100-80GB",  80.0, 312.0, 2039.0, 400.0, 1, 0 },
    { "H100-80GB",  80.0, 989.0, 3350.0, 700.0, 1, 0 },
    { "H200-141GB", 141.0, 989.0, 4800.0, 700.0, 1, 0 },
    { "A800-80GB",  80.0, 312.0, 2039.0, 400.0, 1, 0 },
    { "H800-80GB",  80.0, 989.0, 3350.0, 700.0, 1, 0 },
    { "V100-16GB",  16.0, 125.0,  900.0, 300.0, 0, 0 },
    { "V100-32GB",  32.0, 125.0,  900.0, 300.0, 0, 0 },
    { "P100-16GB",  16.0,  21.2,  732.0, 300.0, 0, 0 },
    { "T4",         16.0,  65.0,  320.0,  70.0, 0, 0 },
    { "A10",        24.0, 125.0,  600.0, 150.0, 0, 0 },
    { "K80",        12.0,   4.37, 240.0, 150.0, 0, 0 },
    /* Undisclosed models that public traces name (traces/alibaba.c): the
     * figures are assumed, not published. */
    { "G1",         32.0, 125.0,  900.0, 300.0, 0, 0 },
    { "G2",         32.0, 125.0,  900.0, 300.0, 0, 0 },
    { "G3",         32.0, 125.0,  900.0, 300.0, 0, 0 },
    { "GPU-series-1", 80.0, 312.0, 2039.0, 400.0, 0, 0 },
    { "GPU-series-2", 80.0, 312.0, 2039.0, 400.0, 0, 0 },
    /* Added after the undisclosed ones, so earlier models keep their
     * catalog indexes. */
    { "A10G",       24.0,  70.0,  600.0, 150.0, 0, 0 },
    { "A40",        48.0, 149.7,  696.0, 300.0, 0, 0 },
    { "L40S",       48.0, 362.05, 864.0, 350.0, 0, 0 },
    { "B200-180GB", 180.0, 2250.0, 8000.0, 1000.0, 1, 0 },
};

/* Measured all-reduce (NCCL, one DGX machine; Vidur's all_reduce.csv) and
 * a send/receive of 64 MiB between two of its GPUs (send_recv.csv):
 * `gpusim llm calibrate --all-reduce FILE --send-recv FILE` prints them. */
static const struct gs_ar_curve ar_a100_dgx = { "a100_dgx", {
    { 10.0, 21.4, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0, 54.0, 58.0, 58.0, 66.0,
      97.0, 133.5, 254.0, 382.0 },
    { 16.0, 16.0, 16.0, 18.0, 21.0, 21.0, 25.0, 25.0, 25.0, 57.0, 57.0, 90.0,
      133.0, 196.0, 338.0, 518.0 },
    { 25.0, 25.0, 25.0, 26.0, 31.0, 36.0, 36.0, 36.0, 36.0, 63.0, 72.0, 101.0,
      158.0, 250.5, 420.0, 617.0 } }, .p2p_gbs = 265.3 };
static const struct gs_ar_curve ar_h100_dgx = { "h100_dgx", {
    { 7.0, 7.0, 7.0, 11.0, 16.0, 16.0, 16.0, 38.0, 41.0, 41.0, 42.0, 43.0,
      47.0, 69.0, 141.0, 215.0 },
    { 38.0, 38.0, 38.0, 38.0, 39.0, 39.0, 39.0, 39.0, 39.0, 39.0, 39.0, 45.0,
      62.0, 87.0, 178.0, 274.0 },
    { 23.0, 23.0, 23.0, 23.0, 23.0, 23.0, 27.0, 31.0, 31.0, 32.0, 44.0, 56.0,
      84.0, 111.0, 207.0, 303.5 } }, .p2p_gbs = 404.3 };

/* Fitted by `gpusim llm calibrate` (docs/inference.md has the commands):
 * the kernel factors on Vidur's profiles of the GPU, the serving factors
 * (attention, fixed costs) on Splitwise's prompt and token times; the big
 * all-reduce pass is GS_AR_BIG_SHARE (llmcalib.h) of the machine's
 * measured send/receive bandwidth at 64 MiB (the curves' p2p_gbs). */
#define GS_LLM_A100_SERVING .attn_eff = 0.3658, .attn_bw_eff = 0.7784, \
    .layer_us = 488.43, .iter_ms = 0, .seq_us = 4.571, .prefill_us = 197.953, \
    .ar_big_gbs = 69.4
#define GS_LLM_A100 .compute_eff = 0.7315, .bw_eff = 0.7784, \
    .gemm_us = 7.480, GS_LLM_A100_SERVING, \
    .elem_eff = { 0.3770, 0.4268, 0.5368, 0.8711, 0.1479 }, \
    .elem_us = { 1.361, 2.652, 0.639, 1.872, 2.542 }, \
    .elem_l2 = { 0.5767, 0.5032, 0.6557, 1.3567, 0.1599 }, \
    .elem_wave_us = 0.624, .link_us = 5.0
#define GS_LLM_H100 GS_LLM_H100_CHIP, .ar_big_gbs = GS_H100_AR_BIG
#define GS_H100_AR_BIG 105.7
#define GS_LLM_H100_CHIP .compute_eff = 0.7188, .bw_eff = 0.9444, \
    .gemm_us = 7.987, .attn_eff = 0.3594, .attn_bw_eff = 0.2969, \
    .layer_us = 368.01, .iter_ms = 0, .seq_us = 3.446, .prefill_us = 195.000, \
    .elem_eff = { 0.3799, 0.4817, 0.6583, 1.0000, 0.1799 }, \
    .elem_us = { 1.266, 1.906, 0.523, 1.200, 2.365 }, \
    .elem_l2 = { 0.6079, 0.5404, 0.7554, 1.3207, 0.1866 }, \
    .elem_wave_us = 0.610, .link_us = 5.0
/* A40: kernel factors fitted on its own profiles; Splitwise did not
 * measure it, so its serving factors are the A100's (nearest measured). */
#define GS_LLM_A40 A40_KERNELS, GS_LLM_A100_SERVING
#define A40_KERNELS .compute_eff = 0.8189, .bw_eff = 0.7340, \
    .gemm_us = 1.813, .gemm_k0 = 149.6, \
    .elem_eff = { 0.6519, 0.7829, 0.8445, 0.8402, 0.5052 }, \
    .elem_us = { 0.385, 1.855, 0.074, 0.948, 1.937 }, \
    .elem_l2 = { 1.3263, 1.4804, 1.5662, 2.1181, 0.5460 }, \
    .elem_wave_us = 0.662, .link_us = 10.0

/* SM counts and L2 sizes are the datasheets' (B200's L2 as Chips and
 * Cheese measured it, L40S's the AD102 whitepaper's): the per-token
 * elementwise kernels run in waves of 2 x SMs tokens and small tensors
 * move at L2 speed (llmops.c).  The GEMM rule counts the last wave's idle
 * SMs only where the fit used it (gemm_waves): the A40's GEMM factors
 * were fitted with it (with the tile width that idles fewer SMs and the
 * tiles' fixed work gemm_k0, fitted); the A100's and H100's without it,
 * which validated better there (leave-one-shape-out layer medians 2.4-5.6%
 * against up to 9.1% with it).
 * L40S, B200 and H200 are not measured: their datasheet peaks, SMs and L2
 * with the nearest measured GPU's efficiencies (L40S: the A40's, another
 * PCIe card with GDDR; B200 and H200: the H100's), the H100's all-reduce
 * curve for both (B200's NVLink 5 is twice as fast: this is
 * conservative), but the stack's extra pass over big all-reduces at twice
 * the H100's rate, as its link (at the H100's, an 8,192-token prefill of
 * a 7B model took longer at TP 2 than at TP 1). */
#define A100_CHIP .sms = 108, .l2_mb = 40.0
#define H100_CHIP .sms = 132, .l2_mb = 50.0
/* The A40's kernel factors were fitted counting the GEMMs' waves: a GPU
 * that takes them counts them too. */
#define GS_LLM_FROM_A40 GS_LLM_A40, .gemm_waves = 1
/* V100 (and the V100-like G1-G3): 80 SMs, 6 MB L2, NVLink 2. */
#define V100_LLM { GS_LLM_A100, .link_gbs = 150.0, .sms = 80, .l2_mb = 6.0 }
/* GPU-series-1/2: assumed A100-80GBs (its figures, its factors). */
#define A100_80_LLM { GS_LLM_A100, .link_gbs = 118.26, A100_CHIP, \
                      .ar = &ar_a100_dgx }
static const struct { const char *name; struct gs_gpu_llm llm; } llm_eff[] = {
    { "A100-40GB",  A100_80_LLM },
    { "A100-80GB",  A100_80_LLM },
    { "A800-80GB",  { GS_LLM_A100, .link_gbs = 78.84, A100_CHIP } },
    { "H100-80GB",  { GS_LLM_H100, .link_gbs = 209.06, H100_CHIP,
                      .ar = &ar_h100_dgx } },
    { "H200-141GB", { GS_LLM_H100, .link_gbs = 209.06, H100_CHIP,
                      .ar = &ar_h100_dgx } },
    { "H800-80GB",  { GS_LLM_H100, .link_gbs = 92.92, H100_CHIP } },
    { "B200-180GB", { GS_LLM_H100_CHIP, .ar_big_gbs = 2 * GS_H100_AR_BIG,
                      .link_gbs = 418.12, .sms = 148,
                      .l2_mb = 126.0,
                      .ar = &ar_h100_dgx } },
    { "A40",        { GS_LLM_FROM_A40, .link_gbs = 25.0, .sms = 84,
                      .l2_mb = 6.0 } },
    { "L40S",       { GS_LLM_FROM_A40, .link_gbs = 25.0, .sms = 142,
                      .l2_mb = 96.0 } },
    /* Derived, not measured (datasheets' SMs and L2: V100 and P100
     * whitepapers, T4 (TU104) 4 MB, A10/A10G (GA102) 6 MB, K80's GK210
     * die 1.5 MB). */
    { "V100-16GB",  V100_LLM },
    { "V100-32GB",  V100_LLM },
    { "G1",         V100_LLM },
    { "G2",         V100_LLM },
    { "G3",         V100_LLM },
    { "P100-16GB",  { GS_LLM_A100, .link_gbs = 80.0, .sms = 56,
                      .l2_mb = 4.0 } },
    { "GPU-series-1", A100_80_LLM },
    { "GPU-series-2", A100_80_LLM },
    { "T4",         { GS_LLM_FROM_A40, .link_gbs = 16.0, .sms = 40,
                      .l2_mb = 4.0 } },
    { "A10",        { GS_LLM_FROM_A40, .link_gbs = 32.0, .sms = 72,
                      .l2_mb = 6.0 } },
    { "A10G",       { GS_LLM_FROM_A40, .link_gbs = 32.0, .sms = 80,
                      .l2_mb = 6.0 } },
    { "K80",        { GS_LLM_FROM_A40, .link_gbs = 16.0, .sms = 13,
                      .l2_mb = 1.5 } },
};

/* The GPUs whose factors were measured (kernels, and for the A100 and
 * H100 serving too): the templates of a declared GPU. */
static const char *const measured[] = { "A100-80GB", "H100-80GB", "A40" };
#define NMEASURED (int)(sizeof measured / sizeof measured[0])

static const struct gs_gpu_llm *llm_of(const char *name)
{
    for (size_t k = 0; k < sizeof llm_eff / sizeof llm_eff[0]; k++)
        if (strcmp(llm_eff[k].name, name) == 0)
            return &llm_eff[k].llm;
    return NULL;
}

static const struct gs_gpu_model *builtin_of(const char *name)
{
    for (size_t k = 0; k < sizeof builtin / sizeof builtin[0]; k++)
        if (strcmp(builtin[k].name, name) == 0)
            return &builtin[k];
    return NULL;
}

const char *gs_catalog_nearest_measured(double tflops, double bw_gbs)
{
    const char *best = measured[0];
    double bd = INFINITY;
    for (int k = 0; k < NMEASURED; k++) {
        const struct gs_gpu_model *g = builtin_of(measured[k]);
        double dc = log(tflops / g->tflops), dm = log(bw_gbs / g->bw_gbs);
        double dist = dc * dc + dm * dm;
        if (dist < bd) {    /* a tie keeps the earlier (listed first) */
            bd = dist;
            best = measured[k];
        }
    }
    return best;
}

/* A declared GPU's factors: the nearest measured GPU's, with its SMs, L2
 * and interconnect (as if it sat in that GPU's machine). */
static void derive_declared(const struct gs_gpu_model *m, struct gs_gpu_llm *e)
{
    *e = *llm_of(gs_catalog_nearest_measured(m->tflops, m->bw_gbs));
}

/* A set with no factors (compute_eff not set) takes the A100-80GB's,
 * keeping its own link, SMs and curve; a link_gbs <= 0 gets a PCIe-class
 * link. */
void gs_gpu_llm_fill_defaults(struct gs_gpu_llm *e)
{
    if (e->compute_eff <= 0) {
        struct gs_gpu_llm k = *e;
        *e = *llm_of("A100-80GB");
        e->link_gbs = k.link_gbs;
        e->sms = k.sms;
        e->l2_mb = k.l2_mb;
        e->ar = k.ar;
    }
    if (e->gemm_us <= 0)
        e->gemm_us = 8.0;
    if (e->attn_bw_eff <= 0)
        e->attn_bw_eff = e->bw_eff;
    for (int k = 0; k < GS_EK_N; k++)
        if (e->elem_eff[k] <= 0) {  /* a fitted cost may well be 0 */
            e->elem_eff[k] = 0.5;
            e->elem_us[k] = 5.0;
        }
    if (e->link_gbs <= 0)
        e->link_gbs = 16.0;
}

void gs_catalog_init(struct gs_catalog *c)
{
    c->n = (int)(sizeof builtin / sizeof builtin[0]);
    memcpy(c->m, builtin, sizeof builtin);
    memset(c->llm, 0, sizeof c->llm);
    c->taints.n = 0;
    for (int i = 0; i < c->n; i++) {
        for (size_t k = 0; k < sizeof llm_eff / sizeof llm_eff[0]; k++)
            if (strcmp(llm_eff[k].name, c->m[i].name) == 0)
                c->llm[i] = llm_eff[k].llm;
        gs_gpu_llm_fill_defaults(&c->llm[i]);
    }
}

void gs_catalog_set_llm(struct gs_catalog *c, int i, const struct gs_gpu_llm *e)
{
    GS_ASSERT(i >= 0 && i < c->n);
    c->llm[i] = *e;
    gs_gpu_llm_fill_defaults(&c->llm[i]);
}

int gs_catalog_find(const struct gs_catalog *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcasecmp(c->m[i].name, name) == 0)
            return i;
    return -1;
}

int gs_catalog_add(struct gs_catalog *c, const struct gs_gpu_model *m)
{
    if (!(m->mem_gb > 0 && m->tflops > 0 && m->bw_gbs > 0 && m->power_w >= 0))
        return GS_EINVAL;
    int i = gs_catalog_find(c, m->name);
    if (i < 0) {
        if (c->n == GS_MAX_MODELS)
            return GS_ERANGE;
        i = c->n++;
        /* a new model takes the nearest measured GPU's factors; a
         * redefined one keeps its own */
        derive_declared(m, &c->llm[i]);
    }
    c->m[i] = *m;
    c->m[i].custom = 1;
    return i;
}

double gs_catalog_time_factor(const struct gs_catalog *c, int ref, int m,
                              double cb)
{
    if (ref == m || ref < 0)
        return 1.0;
    const struct gs_gpu_model *r = &c->m[ref], *g = &c->m[m];
    return cb * r->tflops / g->tflops + (1.0 - cb) * r->bw_gbs / g->bw_gbs;
}

double gs_catalog_time_factor_at(const struct gs_catalog *c, int ref, int m,
                                 double cb, double speed)
{
    if (speed >= 1)
        return gs_catalog_time_factor(c, ref, m, cb);
    double fc = 1, fm = 1;
    if (ref >= 0 && ref != m) {
        fc = c->m[ref].tflops / c->m[m].tflops;
        fm = c->m[ref].bw_gbs / c->m[m].bw_gbs;
    }
    return cb * fc / speed + (1.0 - cb) * fm;
}

int gs_catalog_smallest(const struct gs_catalog *c, double need_gb)
{
    int bm = -1;
    for (int m = 0; m < c->n; m++)
        if (c->m[m].mem_gb >= need_gb &&
            (bm < 0 || c->m[m].mem_gb < c->m[bm].mem_gb))
            bm = m;
    return bm;
}
