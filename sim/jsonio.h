/* jsonio.h -- the JSON files gpusim reads besides scenarios: rl-lite weights
 * and policy benchmark baselines.
 *
 * jsonio.c is, with scenario.c, the only file that sees cJSON; what comes
 * out is plain C data.  Every problem is reported with the file and the
 * JSON path, like the scenario parser's.
 *
 * Weights file (written by `gpusim train`, read by the rl-lite policy):
 *   {"gpusim_weights": 1, "policy": "rl-lite", "model": "linear",
 *    "features": ["log_runtime", ...], "weights": [w0, ...],
 *    "trained_on": "...", "objective": "...", "seed": N, "iterations": N,
 *    "objective_untrained": x, "objective_trained": y}
 * The feature names must be exactly the policy's, in its order, so a file
 * trained for another feature set is refused instead of misread.
 *
 * Baselines file (bench/baselines.json, written by bench_policies --update):
 *   {"gpusim_baselines": 1,
 *    "tolerances": {"default": {"rel": r, "abs": a}, "METRIC": {...}, ...},
 *    "runs": [{"scenario": S, "policy": P, "metrics": {"NAME": v, ...}}]} */
#ifndef GS_JSONIO_H
#define GS_JSONIO_H

#include "err.h"

/* cJSON_ParseWithOpts (NUL-terminated text, nothing after the value),
 * with running out of memory told apart from malformed text: cJSON reports
 * both as NULL, so its allocations go through a hook here that notes a
 * failure.  NULL with *oom = 1 when memory ran out, NULL with *oom = 0 and
 * *end at the fault when the text is malformed. */
struct cJSON;
struct cJSON *gs_json_parse(const char *text, const char **end, int *oom);

#define GS_JSON_NAME 64

struct gs_weights_meta {
    char trained_on[256];
    char objective[256];
    unsigned long long seed;
    int iterations;
    double untrained, trained;      /* objective before and after */
};

/* Read n weights for features names[0..n-1] from path into w.  0 or a
 * negative code with d filled. */
int gs_weights_load(const char *path, const char *const *names, int n,
                    double *w, struct gs_diag *d);
/* Write them (meta may be NULL).  0 or GS_EIO with d filled. */
int gs_weights_save(const char *path, const char *const *names, int n,
                    const double *w, const struct gs_weights_meta *meta,
                    struct gs_diag *d);

struct gs_bl_tol {
    char metric[GS_JSON_NAME];
    double rel, abs;
};

struct gs_bl_run {
    char scenario[GS_JSON_NAME], policy[GS_JSON_NAME];
    int n;
    char (*names)[GS_JSON_NAME];
    double *v;
};

struct gs_baselines {
    struct gs_bl_tol def;           /* "default" tolerance */
    int ntol;
    struct gs_bl_tol *tol;
    int nrun;
    struct gs_bl_run *run;
};

/* Read a baselines file; *out is filled (free with gs_baselines_free).
 * 0 or a negative code with d filled. */
int gs_baselines_load(const char *path, struct gs_baselines *out,
                      struct gs_diag *d);
void gs_baselines_free(struct gs_baselines *b);
/* The tolerance for metric (its own, or the default). */
const struct gs_bl_tol *gs_baselines_tol(const struct gs_baselines *b,
                                         const char *metric);

#endif
