/* llmprof.h -- measured kernel profiles: reading Vidur's files, fitting a GPU's kernel factors, validating.
 *
 * Used by `gpusim llm validate|calibrate` and the tests.  See llmprof.c. */
#ifndef GS_LLMPROF_H
#define GS_LLMPROF_H

#include "llmops.h"

#include <gsl/gsl_vector.h>
#include <stdio.h>

/* One row of an mlp.csv: a layer shape, a token count and the measured
 * median of each op in seconds (< 0: the file does not measure it). */
struct gs_llm_prof_row {
    struct gs_llm_shape s;
    int tokens;
    double t[GS_OP_N];
    int group;              /* layer-shape group (gs_llm_prof_groups) */
};

struct gs_llm_prof {
    int n, cap;
    struct gs_llm_prof_row *r;
    int has[GS_OP_N];       /* the file(s) measure this op */
    double res_s;           /* the times' resolution, seconds: an error
                             * counts only beyond it (0: every bit; set
                             * by the caller, e.g. 0.5e-6 for Vidur's
                             * medians of whole microseconds) */
};

/* Append the rows of the mlp.csv at path to p (p zeroed before the first
 * call; free with gs_llm_prof_free).  Columns: time_stats.<op>.median for
 * the ops it measures (other time_stats columns and unknown ops are
 * ignored), n_head, n_kv_head, n_embd, n_expanded_embd, vocab_size,
 * use_gated_mlp, num_tokens, num_tensor_parallel_workers.  GS_EIO,
 * GS_EPARSE with "file:line:column" in d. */
int gs_llm_prof_read(const char *path, struct gs_llm_prof *p,
                     struct gs_diag *d);
void gs_llm_prof_free(struct gs_llm_prof *p);
/* Number the distinct layer shapes (heads, KV heads, hidden, FFN, gated:
 * the vocabulary does not change a layer) 0.. into each row's group;
 * returns how many there are. */
int gs_llm_prof_groups(struct gs_llm_prof *p);

/* Read Vidur's all_reduce.csv (size, num_workers, devices_per_node,
 * time_stats.all_reduce.median) into c: per GPU count 2, 4, 8 on one
 * machine, the median time of the sizes within a factor sqrt 2 of each
 * power of two, made non-decreasing in size.  c->name is set by the
 * caller. */
int gs_llm_ar_read(const char *path, struct gs_ar_curve *c,
                   struct gs_diag *d);

/* Read Vidur's send_recv.csv (the same columns, time_stats.send_recv.median)
 * into *gbs: the bandwidth of a transfer between 2 GPUs of one machine at
 * GS_AR_BIG_BYTES, the median time of the sizes within a factor sqrt 2 of
 * it (c->p2p_gbs, which sets the big all-reduce pass: llmcalib.h).
 * GS_EPARSE when no such transfer was measured. */
int gs_llm_p2p_read(const char *path, double *gbs, struct gs_diag *d);

/* Fit hw->eff's kernel factors (compute_eff, bw_eff, gemm_us, elem_eff[],
 * elem_us[]) to the rows of p whose group is not `skip` (-1: all), by a
 * robust (Cauchy, scale 3%) loss of log(model / measured), GSL's
 * Nelder-Mead.  hw gives the peaks and SMs.  GS_ENOTFOUND when no row
 * is left for the GEMMs. */
int gs_llm_prof_fit(const struct gs_llm_prof *p, int skip,
                    struct gs_llm_hw *hw, struct gs_diag *d);

/* Absolute relative error of the model against the measured medians. */
struct gs_llm_err {
    int n;
    double median, p90;
};
struct gs_llm_validation {
    struct gs_llm_err op[GS_OP_N];
    struct gs_llm_err layer;    /* the sum of the ops each row measures */
};
/* The absolute relative errors of op (GS_OP_N: the layer, the sum of the
 * ops each row measures) over the rows of p in group `only` (-1: all)
 * into e (room for p->n); returns how many.  With p->res_s > 0 an error
 * is max(0, |model - measured| - res_s) / measured (the layer's sum too,
 * with one resolution, not one per op: the smaller allowance). */
int gs_llm_prof_errors(const struct gs_llm_prof *p, int only, int op,
                       const struct gs_llm_hw *hw, double *e);
/* n, median and p90 of every op and the layer over the rows of p in group
 * `only` (-1: all). */
int gs_llm_prof_validate(const struct gs_llm_prof *p, int only,
                         const struct gs_llm_hw *hw,
                         struct gs_llm_validation *v, struct gs_diag *d);

/* Nelder-Mead (GSL's nmsimplex2) on fn from u (n parameters, first step
 * `step`), restarted from its best point until it stops improving; u gets
 * the minimum, the loss there is returned.  Shared by the calibrations. */
double gs_llm_nm_minimize(double (*fn)(const gsl_vector *, void *),
                          void *arg, int n, double *u, double step);

/* Leave-one-shape-out: for each layer-shape group, fit without it and
 * measure on it; the errors of all groups pooled into *pooled, each
 * group's into per_group[g] (may be NULL; at most max_groups).  Returns
 * the number of groups (< 2: nothing left out, *pooled empty) or a
 * negative code. */
int gs_llm_prof_loso(struct gs_llm_prof *p, const struct gs_llm_hw *hw,
                     struct gs_llm_validation *pooled,
                     struct gs_llm_validation *per_group, int max_groups,
                     struct gs_diag *d);

/* Median and 90th percentile of n errors (sorted in place). */
void gs_llm_err_of(double *e, int n, struct gs_llm_err *out);

#endif
