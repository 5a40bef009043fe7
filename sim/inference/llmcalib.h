/* llmcalib.h -- fitting a GPU model's LLM serving factors to measured prompt and token times.
 *
 * Reads Splitwise's perf_model.csv (model, hardware, prompt_size,
 * batch_size, token_size, ..., prompt_time, token_time, ..., tensor_parallel;
 * times in ms), fits struct gs_gpu_llm per hardware and reports the error per
 * (LLM, GPU, TP).  Used by `gpusim trace calibrate` and the tests. */
#ifndef GS_LLMCALIB_H
#define GS_LLMCALIB_H

#include "llm.h"
#include "../cluster/power.h"

#include <stdio.h>

/* One measured configuration: the median of its repeated rows. */
struct gs_llm_calib_pt {
    char model[GS_LLM_NAME], hw[GS_LLM_NAME];
    int tp, prompt, batch, tokens;
    double prompt_ms, token_ms;
    double peak_pw, avg_pw; /* power / board limit; 0: not measured */
};

struct gs_llm_calib {
    int n, cap;
    struct gs_llm_calib_pt *p;
};

/* Read path into c (caller frees with gs_llm_calib_free).  GS_EIO or
 * GS_EPARSE with file:line in d. */
int gs_llm_calib_read(const char *path, struct gs_llm_calib *c,
                      struct gs_diag *d);
void gs_llm_calib_free(struct gs_llm_calib *c);

/* The peaks of hardware name `hw` from catalog cat ("a100-80gb" is
 * A100-80GB; a suffix such as "-pcap" names a variant of the base model,
 * which gets its own factors).  GS_ENOTFOUND when no model matches. */
int gs_llm_calib_hw(const struct gs_catalog *cat, const char *hw,
                    struct gs_llm_hw *out);

/* Fit the serving factors (attn_bw_eff, layer_us, seq_us, prefill_us;
 * attn_eff is set to half the GEMMs' compute efficiency, iter_ms to 0 and
 * ar_big_gbs to gs_llm_calib_ar_held) of hardware hw on the points of LLM
 * `model` (NULL: all LLMs) by minimizing a robust (Cauchy, scale 3%) loss
 * of the log ratio of modeled to measured time, Nelder-Mead from several
 * starts; base gives the peaks, the kernel factors and the all-reduce,
 * which *out keeps.  GS_ERANGE when base has no all-reduce bandwidth. */

/* The serving stack's extra pass over all-reduces of at least
 * GS_AR_BIG_BYTES is not a free factor of each GPU's fit: it runs at
 * GS_AR_BIG_SHARE of the machine's measured point-to-point bandwidth at
 * GS_AR_BIG_BYTES (gs_llm_calib_p2p: the curve's p2p_gbs, from Vidur's
 * send_recv.csv; the ring's link where none is measured).  The share is
 * one constant of the model, fitted on the H100's Splitwise rows
 * (gs_llm_calib_ar_share), where both LLMs give it alike; on the A100's
 * the loss is flat within 1.5% from 40 to 80 GB/s with two minima, so a
 * free fit there landed in either by the kernels' fourth decimal.  The
 * share of the H100 puts the A100's pass at its own best minimum (69 of
 * 69-71 GB/s); the all-reduce curves' bus bandwidth at 64 MiB, tried as
 * the measure, put it between the minima (52 GB/s). */
#define GS_AR_BIG_SHARE 0.2615
double gs_llm_calib_p2p(const struct gs_llm_hw *hw);
double gs_llm_calib_ar_held(const struct gs_llm_hw *hw);
/* The share the points of hardware hw give when the big pass's bandwidth
 * is fitted with the other serving factors: that bandwidth over
 * gs_llm_calib_p2p(base). */
int gs_llm_calib_ar_share(const struct gs_llm_calib *c, const char *hw,
                          const struct gs_llm_hw *base, double *share,
                          struct gs_diag *d);
int gs_llm_calib_fit(const struct gs_llm_calib *c, const char *hw,
                     const char *model, const struct gs_llm_hw *base,
                     struct gs_gpu_llm *out, struct gs_diag *d);

/* Decode attention's bandwidth, weakly identified, is settled by a
 * stated rule (llmcalib.c, docs/inference.md "Calibration"): the loss is
 * profiled over GS_ATTN_GRID shares of the GEMMs' bandwidth efficiency
 * (gs_llm_calib_attn_grid), and of the profile's local minima within
 * GS_ATTN_TIE of the least (Cauchy scale^2: one standard error, a change
 * of 1 in chi-square) the one of the highest bandwidth is the answer. */
#define GS_ATTN_GRID 8
#define GS_ATTN_TIE (0.03 * 0.03)
const double *gs_llm_calib_attn_grid(void);
/* The index the rule picks among n losses in order of bandwidth: the
 * highest local minimum within tie of the least. */
int gs_llm_calib_attn_pick(const double *loss, int n, double tie);

/* Absolute relative errors over the points of (model, hw, tp), NULL or 0
 * meaning all; n = 0 when no point matches. */
struct gs_llm_calib_err {
    int n;
    double prompt_med, prompt_max, token_med, token_max;
    double prompt_p90, token_p90;
};
int gs_llm_calib_eval(const struct gs_llm_calib *c, const char *model,
                      const char *hw, int tp, const struct gs_llm_hw *fit,
                      struct gs_llm_calib_err *e, struct gs_diag *d);

/* Leave LLM `model` out: the kernel factors refitted on the profiles p
 * (grouped, gs_llm_prof_groups) without the group of the LLM's layer
 * shape (none when no profile has it), the serving factors on the other
 * LLMs' points of hardware hw; the errors on the LLM's own points into *e
 * (e->n = 0 when it has none, or when no other LLM is left to fit on:
 * GS_ENOTFOUND). */
struct gs_llm_prof;
int gs_llm_calib_leave_out(const struct gs_llm_calib *c,
                           const struct gs_llm_prof *p, const char *hw,
                           const char *model, const struct gs_llm_hw *base,
                           struct gs_llm_calib_err *e, struct gs_diag *d);

/* Fit the power curve's shape (sim/cluster/power.h) on the points of
 * hardware hw that carry power (peak_pw, avg_pw > 0), fit giving the
 * serving model's times and utilizations: a configuration's peak is its
 * prefill's power, its average the time-weighted mean of the prefill and
 * `tokens` decode steps.  Absolute relative errors of the peaks and the
 * averages into *e (prompt_*: peak, token_*: average).  GS_ENOTFOUND when
 * no point carries power. */
int gs_llm_power_fit(const struct gs_llm_calib *c, const char *hw,
                     const struct gs_llm_hw *fit, struct gs_power_shape *out,
                     struct gs_llm_calib_err *e, struct gs_diag *d);

/* What `gpusim trace calibrate` fits for the power curve of hardware hw:
 * the serving factors refitted on all LLMs' points of hw with catalog
 * cat's kernel factors (gs_llm_calib_fit), then the shape on them
 * (gs_llm_power_fit).  The shipped GS_POWER_* are this fit on Splitwise's
 * A100 rows (tests/test_llmcalib.c holds them to it). */
int gs_llm_calib_power(const struct gs_llm_calib *c,
                       const struct gs_catalog *cat, const char *hw,
                       struct gs_power_shape *out, struct gs_llm_calib_err *e,
                       struct gs_diag *d);

/* Fit every hardware in the file, print the serving factors, the power
 * curve of each hardware that carries power, the error table per (LLM,
 * GPU, TP) and the cross-validation between LLMs to out. */
int gs_llm_calib_report(FILE *out, const char *path,
                        const struct gs_catalog *cat, struct gs_diag *d);

#endif
