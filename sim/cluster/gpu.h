/* gpu.h -- the GPU model catalog and the speed of a job on another model.
 *
 * A catalog holds the built-in models (A100/H100/H200 and the older models
 * public traces use) plus custom models a scenario declares.  A model is
 * named by its index in the catalog; job masks of allowed models are 64-bit,
 * so a catalog holds at most GS_MAX_MODELS models. */
#ifndef GS_GPU_H
#define GS_GPU_H

#include "taint.h"

#include <stdint.h>

#define GS_MAX_MODELS 64
#define GS_MODEL_NAME 32

/* A measured all-reduce curve (NCCL on one machine): the median time of
 * an all-reduce of 2^(11+i) bytes over 2, 4 and 8 GPUs, microseconds; 0
 * where that GPU count was not measured.  Filled by `gpusim llm calibrate`
 * from Vidur's all_reduce.csv; interpolated by sim/inference/llmops.c. */
#define GS_AR_POINTS 16
#define GS_AR_WORKERS 3
struct gs_ar_curve {
    const char *name;               /* the measured setup, "a100_dgx" */
    double us[GS_AR_WORKERS][GS_AR_POINTS];
    double p2p_gbs;                 /* a send/receive of GS_AR_BIG_BYTES
                                     * between 2 of its GPUs (Vidur's
                                     * send_recv.csv), GB/s; 0: unmeasured */
};

/* Kinds of memory-bound (elementwise) kernels of a layer. */
enum { GS_EK_NORM, GS_EK_ROPE, GS_EK_ACT, GS_EK_ADD, GS_EK_EMB, GS_EK_N };

/* How an LLM serving engine achieves the model's peak: the operator model
 * of sim/inference/llmops.c.  The kernel factors (GEMMs, elementwise
 * kernels) are fitted to measured kernel times (Vidur's profiles), the
 * serving factors (attention, fixed costs) to measured prompt and token
 * times (Splitwise's), by `gpusim llm calibrate`; defaults in gpu.c.
 * Efficiencies are fractions of the datasheet peak. */
#define GS_AR_BIG_BYTES (64.0 * 1048576)

struct gs_gpu_llm {
    double compute_eff;     /* GEMM FLOP/s achieved / peak, full waves */
    double bw_eff;          /* GEMM bytes/s achieved / peak */
    double attn_eff;        /* prefill attention's FLOP/s / peak */
    double layer_us;        /* the host's time to issue one layer of 12
                             * kernels (scaled by a layer's own count),
                             * overlapping the GPU's (soft maximum),
                             * microseconds */
    double iter_ms;         /* fixed cost per iteration (scheduling,
                             * sampling), milliseconds */
    double prefill_us;      /* the host's extra time per layer of 12
                             * kernels (scaled like layer_us) in an
                             * iteration that prefills, not hidden by the
                             * GPU, microseconds */
    double ar_big_gbs;      /* the serving stack's all-reduces of at least
                             * GS_AR_BIG_BYTES take bytes x 2(n-1)/n / this
                             * more than the curve, GB/s (0: no more) */
    double seq_us;          /* cost per sequence in the batch per layer
                             * (per-sequence attention work), us */
    double link_gbs;        /* all-reduce bandwidth per GPU per direction
                             * where no curve is measured, GB/s */
    double link_us;         /* latency of one ring all-reduce step, us */
    double gemm_us;         /* fixed cost of one GEMM kernel, us */
    double attn_bw_eff;     /* decode attention's KV bytes/s / peak */
    double elem_eff[GS_EK_N];   /* elementwise kernels' bytes/s / peak */
    double elem_us[GS_EK_N];    /* their fixed cost, us */
    double elem_l2[GS_EK_N];    /* their bytes/s / peak when the tensors
                                 * they touch fit in L2 (0: elem_eff) */
    double elem_wave_us;    /* the per-token kinds' fixed cost of each
                             * wave of blocks, us */
    double l2_mb;           /* L2 cache, MB (datasheet; 0: no L2 rule) */
    int sms;                /* streaming multiprocessors (datasheet): the
                             * waves of per-token kernels, and of GEMMs
                             * when gemm_waves is set */
    int gemm_waves;         /* 1: the GEMM rule counts the idle SMs of a
                             * GEMM's last wave (as its factors were fitted) */
    double gemm_k0;         /* where gemm_waves is set: a GEMM tile's fixed
                             * work (pipeline fill, epilogue) in units of
                             * its k, fitted; 0 elsewhere */
    const struct gs_ar_curve *ar;   /* measured all-reduce, or NULL */
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
    struct gs_taints taints;    /* the fleet's node taints (taint.h): what
                                   pools' and jobs' taint masks index */
};

/* Fill c with the built-in models. */
void gs_catalog_init(struct gs_catalog *c);
/* The smallest model of c (by memory) with at least need_gb, or -1. */
int gs_catalog_smallest(const struct gs_catalog *c, double need_gb);
/* Index of the model called name (case-insensitive), or -1. */
int gs_catalog_find(const struct gs_catalog *c, const char *name);
/* Add or redefine a custom model (a new one takes the LLM factors, SMs,
 * L2 and interconnect of gs_catalog_nearest_measured; a redefined one
 * keeps its own).  Returns its index, GS_ERANGE when the
 * catalog is full, or GS_EINVAL when a figure is not positive. */
int gs_catalog_add(struct gs_catalog *c, const struct gs_gpu_model *m);

/* Set model i's LLM serving factors; zero fields take the defaults. */
void gs_catalog_set_llm(struct gs_catalog *c, int i, const struct gs_gpu_llm *e);
/* Defaults for unset factors: when compute_eff is not set (<= 0) all the
 * efficiencies and costs are the A100-80GB's (its link, SMs, L2 and curve
 * stay e's); a link_gbs <= 0 gets a PCIe-class link. */
void gs_gpu_llm_fill_defaults(struct gs_gpu_llm *e);
/* The name of the measured GPU (A100-80GB, H100-80GB, A40) nearest peaks
 * of tflops and bw_gbs: least (log F/F_m)^2 + (log B/B_m)^2 over the
 * built-in peaks.  A model gs_catalog_add declares takes its factors. */
const char *gs_catalog_nearest_measured(double tflops, double bw_gbs);

/* How long work that takes 1 ms on model ref takes on model m, for a job
 * whose time on ref is a fraction cb compute-bound and 1-cb memory-bound:
 *     cb * tflops(ref)/tflops(m) + (1-cb) * bw(ref)/bw(m).
 * A roofline-style split: each part scales with the resource that bounds it. */
double gs_catalog_time_factor(const struct gs_catalog *c, int ref, int m,
                              double cb);
/* The same on a GPU whose compute clock runs at `speed` of its top (a
 * power cap, power.h): the compute-bound part takes 1/speed as long, the
 * memory-bound part is unchanged; speed >= 1 is gs_catalog_time_factor. */
double gs_catalog_time_factor_at(const struct gs_catalog *c, int ref, int m,
                                 double cb, double speed);

#endif
