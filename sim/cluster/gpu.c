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
 * LLM serving efficiency (struct gs_gpu_llm): A100-80GB and H100-80GB carry
 * the factors llmcalib.c fits to Splitwise's measured prompt and token times
 * (`gpusim trace calibrate`, docs/inference.md), all-reduce bandwidth
 * included; A100-40GB and A800 share the A100's and H200 and H800 the
 * H100's (same chips, other memory), the export parts with the fitted link
 * scaled by their NVLink (400 GB/s against 600 and 900).  The older models
 * get unfitted defaults and their link per GPU and direction: V100 NVLink
 * 150 GB/s, P100 80, PCIe for the others (16-32). */
#include "gpu.h"
#include "../base/err.h"

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
};

/* Fitted by `gpusim trace calibrate` (llmcalib.c); see docs/inference.md. */
#define GS_LLM_A100(link) { 0.6895, 1.0, 0.7321, 273.75, 0.0, 4.740, link, 5.711 }
#define GS_LLM_H100(link) { 0.5844, 0.9361, 0.0763, 167.75, 0.0, 3.084, link, 5.074 }

static const struct { const char *name; struct gs_gpu_llm llm; } llm_eff[] = {
    { "A100-40GB",  GS_LLM_A100(118.26) },
    { "A100-80GB",  GS_LLM_A100(118.26) },
    { "A800-80GB",  GS_LLM_A100(78.84) },
    { "H100-80GB",  GS_LLM_H100(209.06) },
    { "H200-141GB", GS_LLM_H100(209.06) },
    { "H800-80GB",  GS_LLM_H100(92.92) },
    { "V100-16GB",  { 0, 0, 0, 0, 0, 0, 150.0, 0 } },
    { "V100-32GB",  { 0, 0, 0, 0, 0, 0, 150.0, 0 } },
    { "P100-16GB",  { 0, 0, 0, 0, 0, 0, 80.0, 0 } },
    { "T4",         { 0, 0, 0, 0, 0, 0, 16.0, 0 } },
    { "A10",        { 0, 0, 0, 0, 0, 0, 32.0, 0 } },
    { "A10G",       { 0, 0, 0, 0, 0, 0, 32.0, 0 } },
    { "K80",        { 0, 0, 0, 0, 0, 0, 16.0, 0 } },
};

/* Unfitted models: the fitted GPUs' typical efficiencies and fixed costs
 * (between the A100's and the H100's), a PCIe-class link. */
void gs_gpu_llm_fill_defaults(struct gs_gpu_llm *e)
{
    if (e->compute_eff <= 0) {
        double link = e->link_gbs;
        *e = (struct gs_gpu_llm){ 0.6, 0.95, 0.2, 200.0, 0.0, 4.0, link,
                                  5.0 };
    }
    if (e->link_gbs <= 0)
        e->link_gbs = 16.0;
}

void gs_catalog_init(struct gs_catalog *c)
{
    c->n = (int)(sizeof builtin / sizeof builtin[0]);
    memcpy(c->m, builtin, sizeof builtin);
    memset(c->llm, 0, sizeof c->llm);
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
        /* a new model gets the defaults; a redefined one keeps its factors */
        memset(&c->llm[i], 0, sizeof c->llm[i]);
        gs_gpu_llm_fill_defaults(&c->llm[i]);
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

int gs_catalog_smallest(const struct gs_catalog *c, double need_gb)
{
    int bm = -1;
    for (int m = 0; m < c->n; m++)
        if (c->m[m].mem_gb >= need_gb &&
            (bm < 0 || c->m[m].mem_gb < c->m[bm].mem_gb))
            bm = m;
    return bm;
}
