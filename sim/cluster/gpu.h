/* gpu.h -- the GPU model catalog and the speed of a job on another model.
 *
 * A catalog holds the built-in models (A100/H100/H200 and the older models
 * public traces use) plus custom models a scenario declares.  A model is
 * named by its index in the catalog; job masks of allowed models are 64-bit,
 * so a catalog holds at most GS_MAX_MODELS models. */
#ifndef GS_GPU_H
#define GS_GPU_H

#include <stdint.h>

#define GS_MAX_MODELS 64
#define GS_MODEL_NAME 32

/* How an LLM serving engine achieves the model's peak (sim/inference/llm.h's roofline):
 * fitted to measured prompt and token times by llmcalib.c, defaults in
 * gpu.c.  Efficiencies are fractions of the datasheet peak. */
struct gs_gpu_llm {
    double compute_eff;     /* GEMM FLOP/s achieved / peak */
    double bw_eff;          /* HBM bytes/s achieved / peak */
    double attn_eff;        /* attention's query-key FLOP/s / peak */
    double layer_us;        /* fixed cost per layer per iteration (kernel
                             * launches), microseconds */
    double iter_ms;         /* fixed cost per iteration (scheduling,
                             * sampling), milliseconds */
    double seq_us;          /* cost per sequence in the batch per layer
                             * (per-sequence attention work), us */
    double link_gbs;        /* all-reduce bandwidth per GPU per direction,
                             * GB/s: fitted where measured, else NVLink's */
    double link_us;         /* latency of one ring all-reduce step, us */
};

struct gs_gpu_model {
    char name[GS_MODEL_NAME];
    double mem_gb;          /* HBM/GDDR capacity, GB */
    double tflops;          /* dense BF16 (FP16 where no BF16; FP32 for K80) */
    double bw_gbs;          /* memory bandwidth, GB/s */
    double power_w;         /* board power (TDP), W */
    int mig;                /* 1 if the model supports MIG */
    int custom;             /* declared by the scenario */
};

struct gs_catalog {
    int n;
    struct gs_gpu_model m[GS_MAX_MODELS];
    struct gs_gpu_llm llm[GS_MAX_MODELS];   /* LLM serving factors of m[i] */
};

/* Fill c with the built-in models. */
void gs_catalog_init(struct gs_catalog *c);
/* The smallest model of c (by memory) with at least need_gb, or -1. */
int gs_catalog_smallest(const struct gs_catalog *c, double need_gb);
/* Index of the model called name (case-insensitive), or -1. */
int gs_catalog_find(const struct gs_catalog *c, const char *name);
/* Add or redefine a custom model.  Returns its index, GS_ERANGE when the
 * catalog is full, or GS_EINVAL when a figure is not positive. */
int gs_catalog_add(struct gs_catalog *c, const struct gs_gpu_model *m);

/* Set model i's LLM serving factors; zero fields take the defaults. */
void gs_catalog_set_llm(struct gs_catalog *c, int i, const struct gs_gpu_llm *e);
/* Defaults for unfitted factors: when compute_eff is not set (<= 0) all the
 * efficiencies and costs (a typical serving engine's); a link_gbs <= 0 gets
 * a PCIe-class link. */
void gs_gpu_llm_fill_defaults(struct gs_gpu_llm *e);

/* How long work that takes 1 ms on model ref takes on model m, for a job
 * whose time on ref is a fraction cb compute-bound and 1-cb memory-bound:
 *     cb * tflops(ref)/tflops(m) + (1-cb) * bw(ref)/bw(m).
 * A roofline-style split: each part scales with the resource that bounds it. */
double gs_catalog_time_factor(const struct gs_catalog *c, int ref, int m,
                              double cb);

#endif
