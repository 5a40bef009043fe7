/* llmops.h -- the time of one transformer operator on one GPU, from its shape.
 *
 * The operator model under the engine's iteration time (llmperf.c), the
 * profile validation and the calibration (llmprof.c): a GEMM from
 * (tokens x in x out) with a compute and a memory term, elementwise kernels
 * from the bytes they move, all-reduce from a measured curve.  The rules
 * are in llmops.c. */
#ifndef GS_LLMOPS_H
#define GS_LLMOPS_H

#include "llm.h"

/* The operations of one layer, named as Vidur's mlp.csv names them. */
enum gs_llm_op {
    GS_OP_EMB, GS_OP_INPUT_NORM, GS_OP_ATTN_PRE, GS_OP_ROPE,
    GS_OP_ATTN_POST, GS_OP_POST_NORM, GS_OP_MLP_UP, GS_OP_ACT,
    GS_OP_MLP_DOWN, GS_OP_ADD, GS_OP_N
};
/* "attn_pre_proj", ...; NULL for an unknown op. */
const char *gs_llm_op_name(int op);

/* struct gs_llm_shape (llm.h): a layer's shape, the columns of a profile
 * row, enough for every op. */
void gs_llm_shape_from_arch(const struct gs_llm_arch *a, int tp,
                            struct gs_llm_shape *s);

/* The GEMM an op is, for one GPU of the TP group: k (in) and n (out);
 * returns 1, or 0 when op is not a GEMM. */
int gs_llm_op_gemm(const struct gs_llm_shape *s, int op, double *k,
                   double *n);
/* The elementwise kind (GS_EK_*) of a non-GEMM op and the bytes it moves
 * over `tokens` tokens; -1 for a GEMM. */
int gs_llm_op_elem(const struct gs_llm_shape *s, int op, double tokens,
                   double *bytes);

/* Seconds of an m x k x n GEMM (m tokens) in BF16 on hw:
 *   max(2 m (k + k0) n / (F ce w), 2 (m k + k n + m n) / (B be)) + gemm_us
 * with w the tile efficiency of llmops.c's rule (and the wave's, when the
 * GPU's gemm_waves is set; k0 is the GPU's gemm_k0, 0 unless fitted). */
double gs_llm_gemm_time(const struct gs_llm_hw *hw, double m, double k,
                        double n);
/* The same with weights of wbytes bytes each (1 for FP8). */
double gs_llm_gemm_time_w(const struct gs_llm_hw *hw, double m, double k,
                          double n, double wbytes);
/* A grouped GEMM, one kernel over `groups` GEMMs of m x k x n (a mixture
 * of experts' experts, vLLM's fused MoE kernel): their FLOPs and bytes
 * summed, their tiles sharing the waves, one fixed cost; groups 1 is
 * gs_llm_gemm_time_w. */
double gs_llm_gemm_group_time(const struct gs_llm_hw *hw, double m, double k,
                              double n, double wbytes, double groups);
/* The wave and tile efficiency w of an m x n GEMM on `sms` SMs, (0, 1]
 * (sms 0: tiles 128 wide, no waves; sms > 0: tiles 64 wide, which idle
 * no more SMs than 128, waves counted). */
double gs_llm_gemm_wave(double m, double n, int sms);
/* Seconds of an elementwise kernel of kind moving `bytes` over `tokens`
 * tokens (the per-token kinds run in waves of 2 x SMs tokens, each with
 * the GPU's wave cost; bytes that fit in L2 move at the kind's L2
 * efficiency). */
double gs_llm_elem_time(const struct gs_llm_hw *hw, int kind, double bytes,
                        double tokens);
/* 1 for the per-token kinds (norm, activation: a block per token, run in
 * waves), 0 for the others. */
int gs_llm_elem_per_token(int kind);
/* The share of `bytes` a kernel finds in an L2 of l2_mb MB: 1 up to half
 * its size, 0 from one and a half, linear between; 0 without an L2. */
double gs_llm_l2_share(double bytes, double l2_mb);
/* Seconds of the elementwise op over `tokens` tokens: its kind's time,
 * with no waves for a plain MLP's activation and two adds for a parallel
 * block's residual.  The engine and the profile validation share it. */
double gs_llm_op_elem_time(const struct gs_llm_hw *hw,
                           const struct gs_llm_shape *s, int op, double tokens);
/* Seconds of op over `tokens` tokens (GEMM or elementwise). */
double gs_llm_op_time(const struct gs_llm_hw *hw, const struct gs_llm_shape *s,
                      int op, double tokens);
/* Seconds of one all-reduce of `bytes` over `workers` GPUs: the measured
 * curve, log-log interpolated in size and linear in GPU count (beyond 8
 * GPUs, 8's scaled by the ring's 2(n-1)/n); without a curve, the ring
 * model 2(n-1)/n bytes / link + 2(n-1) link latency. */
double gs_llm_allreduce_time(const struct gs_gpu_llm *e, double bytes,
                             int workers);

#endif
