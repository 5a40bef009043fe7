/* llmcalib.c -- fitting a GPU model's LLM serving factors to measured prompt and token times.
 *
 * Splitwise (Patel et al., ISCA'24) published the prompt (prefill) and token
 * (decode) times of Llama-2-70B and BLOOM-176B served on DGX A100 and H100
 * machines, at tensor parallelism 2, 4 and 8, across prompt sizes 128..8192,
 * batch sizes 1..64 and output lengths 128..8192, each repeated a few times.
 * Each configuration becomes one point: the median of its repeats.  A prompt
 * time is one prefill iteration of `batch` prompts; a token time is one
 * decode step of `batch` sequences at the mean context of the generation,
 * prompt + tokens / 2.
 *
 * The serving factors of struct gs_gpu_llm (decode attention's bandwidth
 * efficiency, the host's time per layer of 12 kernels, the per-sequence
 * cost, the host's extra time per layer in a prefill iteration, the
 * stack's extra pass over all-reduces of at least 64 MiB: what kernel
 * profiles do not hold) are fitted per hardware over every LLM and TP
 * degree at once, so that they describe the GPU and its serving stack,
 * not one model, with the kernel factors and the all-reduce curve held at the catalog's
 * (llmprof.c fits those): the efficiency through a logistic map, kept
 * below the GEMMs' bandwidth efficiency (decode attention streams the KV
 * cache no faster than the GEMMs stream their weights: unbounded, the
 * A100's went to the map's bound, 1.0 of peak, and the held-out medians
 * did not move when capped), costs and bandwidths through exp (kept
 * positive).  Two factors are set, not fitted, because two LLMs cannot
 * identify them: prefill attention's compute efficiency is GS_ATTN_CE_SHARE of the GEMMs' (its
 * FLOPs are a few percent of a prompt's below 8,192 tokens; fitted, it
 * took up the stack's step at 4,096 tokens and came out at 1-9% of peak),
 * and the fixed cost per iteration is 0 (fitted, it traded against the
 * host's layer cost, and a fold fitted on one LLM swung between them).  The loss is Cauchy's rho(r) = s^2 log(1 + r^2 / s^2) of the
 * log ratio r = log(model / measured) with s = 0.03: least squares on
 * relative error for points within a few percent, while measurements that no
 * smooth model explains (Splitwise's batch-64 prompt rows at TP 2 are
 * 8x faster than batch 32) cannot drag the fit.  The roofline's max() makes
 * the loss non-smooth, so the minimizer is GSL's Nelder-Mead simplex
 * (nmsimplex2), restarted from its best point and from several starts. */
#include "llmcalib.h"
#include "llmprof.h"
#include "../../traces/tread.h"
#include "../base/path.h"

#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gs_llm_calib_free(struct gs_llm_calib *c)
{
    if (!c)
        return;
    free(c->p);
    c->p = NULL;
    c->n = c->cap = 0;
}

/* Column indexes of the header. */
enum { C_MODEL, C_HW, C_PROMPT, C_BATCH, C_TOKENS, C_PT, C_TT, C_TP, NCOL };
static const char *const colname[NCOL] = {
    "model", "hardware", "prompt_size", "batch_size", "token_size",
    "prompt_time", "token_time", "tensor_parallel"
};

/* The most fields a row may have (Splitwise's have 11). */
#define MAXF 64

static int row_key_cmp(const void *a, const void *b)
{
    const struct gs_llm_calib_pt *x = a, *y = b;
    int c = strcmp(x->model, y->model);
    if (!c)
        c = strcmp(x->hw, y->hw);
    if (!c)
        c = (x->tp > y->tp) - (x->tp < y->tp);
    if (!c)
        c = (x->prompt > y->prompt) - (x->prompt < y->prompt);
    if (!c)
        c = (x->batch > y->batch) - (x->batch < y->batch);
    if (!c)
        c = (x->tokens > y->tokens) - (x->tokens < y->tokens);
    return c;
}

static int parse_int(const char *s, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < 1 || x > 1 << 24)
        return -1;
    *v = (int)x;
    return 0;
}

static int parse_pos(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end || !(x > 0) || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

static int parse_frac(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end || !(x >= 0 && x <= 10))
        return -1;
    *v = x;
    return 0;
}

/* Median of the repeats in p[lo, hi) into p[lo] (times and power). */
static void median_group(struct gs_llm_calib_pt *p, int lo, int hi,
                         double *buf)
{
    int n = hi - lo;
    for (int i = 0; i < n; i++)
        buf[i] = p[lo + i].prompt_ms;
    gsl_sort(buf, 1, (size_t)n);
    double pm = gsl_stats_median_from_sorted_data(buf, 1, (size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = p[lo + i].token_ms;
    gsl_sort(buf, 1, (size_t)n);
    p[lo].token_ms = gsl_stats_median_from_sorted_data(buf, 1, (size_t)n);
    p[lo].prompt_ms = pm;
    for (int i = 0; i < n; i++)
        buf[i] = p[lo + i].peak_pw;
    gsl_sort(buf, 1, (size_t)n);
    double pk = gsl_stats_median_from_sorted_data(buf, 1, (size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = p[lo + i].avg_pw;
    gsl_sort(buf, 1, (size_t)n);
    p[lo].avg_pw = gsl_stats_median_from_sorted_data(buf, 1, (size_t)n);
    p[lo].peak_pw = pk;
}

/* Find the columns of the header in fields f[0..nf).  0 or GS_EPARSE. */
static int read_header(const char *path, char **f, int nf, int *col,
                       int *cpk, int *cav, struct gs_diag *d)
{
    *cpk = *cav = -1;
    for (int i = 0; i < nf; i++) {     /* optional: power */
        if (strcmp(f[i], "peak_power") == 0)
            *cpk = i;
        if (strcmp(f[i], "average_power") == 0)
            *cav = i;
    }
    for (int k = 0; k < NCOL; k++) {
        col[k] = -1;
        for (int i = 0; i < nf; i++)
            if (strcmp(f[i], colname[k]) == 0)
                col[k] = i;
        if (col[k] < 0)
            return gs_diag_set_at(d, GS_EPARSE, gs_strf("%s:1", path),
                                  "no column '%s'", colname[k]);
    }
    return 0;
}

/* One data row (fields f[0..nf), line lineno) into *p.  0 or GS_EPARSE. */
static int read_row(const char *path, long lineno, char **f, int nf,
                    const int *col, int cpk, int cav,
                    struct gs_llm_calib_pt *p, struct gs_diag *d)
{
    for (int k = 0; k < NCOL; k++)
        if (col[k] >= nf)
            return gs_diag_set_line(d, GS_EPARSE, path, lineno, "%d fields, "
                                    "expected a '%s' column", nf, colname[k]);
    if (strlen(f[col[C_MODEL]]) >= GS_LLM_NAME
        || strlen(f[col[C_HW]]) >= GS_LLM_NAME
        || !f[col[C_MODEL]][0] || !f[col[C_HW]][0])
        return gs_diag_set_line(d, GS_EPARSE, path, lineno, "model or "
                                "hardware name empty or longer than %d",
                                GS_LLM_NAME - 1);
    strcpy(p->model, f[col[C_MODEL]]);
    strcpy(p->hw, f[col[C_HW]]);
    const int ik[4] = { C_PROMPT, C_BATCH, C_TOKENS, C_TP };
    int *iv[4] = { &p->prompt, &p->batch, &p->tokens, &p->tp };
    for (int k = 0; k < 4; k++)
        if (parse_int(f[col[ik[k]]], iv[k]))
            return gs_diag_set_line(d, GS_EPARSE, path, lineno, "%s: '%s' "
                                    "is not a positive integer",
                                    colname[ik[k]], f[col[ik[k]]]);
    if (parse_pos(f[col[C_PT]], &p->prompt_ms)
        || parse_pos(f[col[C_TT]], &p->token_ms))
        return gs_diag_set_line(d, GS_EPARSE, path, lineno, "prompt_time "
                                "and token_time must be positive numbers");
    if ((cpk >= 0 && cpk < nf && parse_frac(f[cpk], &p->peak_pw))
        || (cav >= 0 && cav < nf && parse_frac(f[cav], &p->avg_pw)))
        return gs_diag_set_line(d, GS_EPARSE, path, lineno, "peak_power and "
                                "average_power must be numbers in [0, 10] "
                                "(fractions of the board limit)");
    return 0;
}

/* The lines come from the trace readers' line reader (traces/tread.h): a
 * line of any length up to its 16 MiB, numbered as the file numbers them
 * (a blank line counts), gzip read as well as plain text, a NUL byte or
 * a device refused; fields split as CSV (a quoted field may hold a
 * comma). */
int gs_llm_calib_read(const char *path, struct gs_llm_calib *c,
                      struct gs_diag *d)
{
    memset(c, 0, sizeof *c);
    struct gs_tread *t;             /* a device or FIFO refused as such */
    int rc = gs_tread_open_as(path, "a serving-time file", &t, d);
    if (rc < 0)
        return rc;
    char *line, *fld[MAXF];
    int col[NCOL], cpk, cav;
    double *buf = NULL;
    if ((rc = gs_tread_line(t, &line, d)) <= 0) {
        if (rc == 0)
            rc = gs_diag_set(d, GS_EPARSE, path, "empty file");
        goto out;
    }
    int nf = gs_tsplit(line, ',', fld, MAXF);
    if (nf > MAXF) {
        rc = gs_diag_set_line(d, GS_EPARSE, path, 1, "%d columns, more than "
                              "%d", nf, MAXF);
        goto out;
    }
    if ((rc = read_header(path, fld, nf, col, &cpk, &cav, d)) < 0)
        goto out;
    while ((rc = gs_tread_line(t, &line, d)) > 0) {
        long lineno = gs_tread_lineno(t);
        if (line[strspn(line, " \t\r")] == 0)
            continue;
        nf = gs_tsplit(line, ',', fld, MAXF);
        if (nf > MAXF) {
            rc = gs_diag_set_line(d, GS_EPARSE, path, lineno, "%d fields, "
                                  "more than %d", nf, MAXF);
            goto out;
        }
        struct gs_llm_calib_pt p = { 0 };
        if ((rc = read_row(path, lineno, fld, nf, col, cpk, cav, &p, d)) < 0)
            goto out;
        if (c->n == c->cap) {
            int cap = c->cap ? 2 * c->cap : 256;
            void *np = realloc(c->p, (size_t)cap * sizeof *c->p);
            if (!np) {
                rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                goto out;
            }
            c->p = np;
            c->cap = cap;
        }
        c->p[c->n++] = p;
    }
    if (rc < 0)
        goto out;
    if (c->n == 0) {
        rc = gs_diag_set(d, GS_EPARSE, path, "no measurements");
        goto out;
    }
    /* One point per configuration: the median of its repeats. */
    qsort(c->p, (size_t)c->n, sizeof *c->p, row_key_cmp);
    buf = malloc((size_t)c->n * sizeof *buf);
    if (!buf) {
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        goto out;
    }
    int m = 0;
    for (int lo = 0; lo < c->n;) {
        int hi = lo + 1;
        while (hi < c->n && row_key_cmp(&c->p[lo], &c->p[hi]) == 0)
            hi++;
        median_group(c->p, lo, hi, buf);
        c->p[m++] = c->p[lo];
        lo = hi;
    }
    c->n = m;
out:
    free(buf);
    gs_tread_close(t);
    if (rc)
        gs_llm_calib_free(c);
    return rc;
}

int gs_llm_calib_hw(const struct gs_catalog *cat, const char *hw,
                    struct gs_llm_hw *out)
{
    char name[GS_LLM_NAME];
    snprintf(name, sizeof name, "%s", hw);
    for (;;) {
        int i = gs_catalog_find(cat, name);
        if (i >= 0) {
            gs_llm_hw_from_catalog(cat, i, out);
            return 0;
        }
        char *dash = strrchr(name, '-');
        if (!dash)
            return GS_ENOTFOUND;
        *dash = 0;
    }
}

/* ---- the fit --------------------------------------------------------------- */

#define NPAR 5
#define GS_ATTN_CE_SHARE 0.5
#define CAUCHY 0.03

struct fitctx {
    const struct gs_llm_calib *c;
    const char *hw, *model;
    const struct gs_llm_hw *base;
    struct gs_llm_arch arch[8];     /* per distinct LLM among the points */
    char archname[8][GS_LLM_NAME];
    int narch;
    int *idx;                       /* selected points */
    int *ai;                        /* their architecture */
    int n;
    int np;                         /* coordinates fitted: NPAR, or
                                     * NPAR - 1 with ar_big held */
    double ar_big;                  /* the big pass's GB/s when held */
};

static double logistic(double u)
{
    return 1.0 / (1.0 + exp(-u));
}

/* The serving factors from the minimizer's coordinates; the kernel
 * factors and the all-reduce stay base's. */
static void unpack(const double *u, const struct fitctx *f,
                   struct gs_llm_hw *hw)
{
    const struct gs_llm_hw *base = f->base;
    *hw = *base;
    hw->eff.attn_eff = GS_ATTN_CE_SHARE * base->eff.compute_eff;
    hw->eff.attn_bw_eff = base->eff.bw_eff * logistic(u[0]);
    hw->eff.layer_us = exp(u[1]);
    hw->eff.iter_ms = 0;
    hw->eff.seq_us = exp(u[2]);
    hw->eff.prefill_us = exp(u[3]);
    hw->eff.ar_big_gbs = f->np == NPAR ? exp(u[4]) : f->ar_big;
}

/* Modeled prompt and token times (ms) of point p. */
static int model_times(const struct gs_llm_calib_pt *p,
                       const struct gs_llm_arch *a, const struct gs_llm_hw *hw,
                       double *pt, double *tt)
{
    struct gs_llm_perf perf;
    int rc = gs_llm_perf_init(&perf, a, hw, p->tp, NULL);
    if (rc)
        return rc;
    *pt = 1e3 * gs_llm_perf_prefill(&perf, p->batch, p->prompt);
    *tt = 1e3 * gs_llm_perf_decode(&perf, p->batch,
                                   p->prompt + p->tokens / 2.0);
    return 0;
}

static double rho(double r)
{
    return CAUCHY * CAUCHY * log1p(r * r / (CAUCHY * CAUCHY));
}

static double loss(const gsl_vector *v, void *arg)
{
    const struct fitctx *f = arg;
    double u[NPAR] = { 0 };
    for (int k = 0; k < f->np; k++)
        u[k] = gsl_vector_get(v, (size_t)k);
    if (!(fabs(u[1]) < 30 && fabs(u[2]) < 30 && fabs(u[3]) < 30
          && fabs(u[4]) < 30))
        return INFINITY;
    struct gs_llm_hw hw;
    unpack(u, f, &hw);
    double s = 0;
    for (int i = 0; i < f->n; i++) {
        const struct gs_llm_calib_pt *p = &f->c->p[f->idx[i]];
        double pt, tt;
        if (model_times(p, &f->arch[f->ai[i]], &hw, &pt, &tt))
            return INFINITY;
        s += rho(log(pt / p->prompt_ms)) + rho(log(tt / p->token_ms));
    }
    return s;
}

static int matches(const struct gs_llm_calib_pt *p, const char *model,
                   const char *hw, int tp)
{
    return (!model || strcasecmp(p->model, model) == 0)
           && (!hw || strcasecmp(p->hw, hw) == 0) && (tp <= 0 || p->tp == tp);
}

/* Select the points and resolve their architectures. */
static int fit_select(struct fitctx *f, const char *model, const char *hw,
                      int tp, struct gs_diag *d)
{
    f->n = 0;
    f->narch = 0;
    f->idx = malloc((size_t)f->c->n * sizeof *f->idx);
    f->ai = malloc((size_t)f->c->n * sizeof *f->ai);
    if (!f->idx || !f->ai)
        return gs_diag_set(d, GS_ENOMEM, "calibration", "out of memory");
    for (int i = 0; i < f->c->n; i++) {
        const struct gs_llm_calib_pt *p = &f->c->p[i];
        if (!matches(p, model, hw, tp))
            continue;
        int a = 0;
        while (a < f->narch && strcmp(f->archname[a], p->model))
            a++;
        if (a == f->narch) {
            if (a == 8)
                return gs_diag_set(d, GS_ERANGE, "calibration",
                                   "more than 8 LLMs");
            int rc = gs_llm_arch_find(p->model, &f->arch[a], p->model, d);
            if (rc)
                return rc;
            strcpy(f->archname[a], p->model);
            f->narch++;
        }
        f->idx[f->n] = i;
        f->ai[f->n] = a;
        f->n++;
    }
    return 0;
}

static void fit_release(struct fitctx *f)
{
    free(f->idx);
    free(f->ai);
}

static double logit(double p)
{
    return log(p / (1 - p));
}

/* ---- decode attention's bandwidth: the profile rule ------------------------ */

/* The grid of decode attention's bandwidth, as shares of the GEMMs'
 * (its cap), on which the loss is profiled: x 1.6 from 4% to the cap. */
static const double attn_grid[GS_ATTN_GRID] = {
    0.04, 0.064, 0.1024, 0.1638, 0.2621, 0.4194, 0.6711, 0.999,
};

const double *gs_llm_calib_attn_grid(void)
{
    return attn_grid;
}

int gs_llm_calib_attn_pick(const double *loss, int n, double tie)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (loss[i] < loss[best])
            best = i;
    int pick = best;
    for (int i = 0; i < n; i++) {
        int local = (i == 0 || loss[i] <= loss[i - 1])
                    && (i == n - 1 || loss[i] <= loss[i + 1]);
        if (local && loss[i] <= loss[best] + tie && i > pick)
            pick = i;
    }
    return pick;
}

struct attnctx {
    const struct fitctx *f;
    double u0;
    double lo, hi;          /* bounds of the share's coordinate (polish) */
};

/* The loss with the share's coordinate kept within [lo, hi]. */
static double loss_within(const gsl_vector *v, void *arg)
{
    const struct attnctx *a = arg;
    double u0 = gsl_vector_get(v, 0);
    if (!(u0 >= a->lo && u0 <= a->hi))
        return INFINITY;
    return loss(v, (void *)a->f);
}

/* The loss with decode attention's coordinate held at u0. */
static double loss_at(const gsl_vector *v, void *arg)
{
    const struct attnctx *a = arg;
    double u[NPAR] = { a->u0 };
    for (int k = 1; k < a->f->np; k++)
        u[k] = gsl_vector_get(v, (size_t)(k - 1));
    gsl_vector_view w = gsl_vector_view_array(u, (size_t)a->f->np);
    return loss(&w.vector, (void *)a->f);
}

/* The profile of the loss over attn_grid (each point's other factors
 * refitted from ub's) with the fit ub put in its place by its share:
 * shares and losses into sh[] and lv[] (GS_ATTN_GRID + 1), the other
 * factors of each into uo[][NPAR]; returns the index of ub's entry. */
static int attn_profile(const struct fitctx *f, const double *ub, double lb,
                        double *sh, double *lv, double (*uo)[NPAR])
{
    double s0 = logistic(ub[0]);
    int n = 0, at = -1;
    for (int g = 0; g <= GS_ATTN_GRID; g++) {
        if (at < 0 && (g == GS_ATTN_GRID || attn_grid[g] > s0)) {
            at = n;
            sh[n] = s0;
            lv[n] = lb;
            memcpy(uo[n], ub, sizeof uo[n]);
            n++;
        }
        if (g == GS_ATTN_GRID)
            break;
        struct attnctx a = { f, logit(attn_grid[g]), 0, 0 };
        double u[NPAR - 1];
        memcpy(u, ub + 1, sizeof u);
        sh[n] = attn_grid[g];
        lv[n] = gs_llm_nm_minimize(loss_at, &a, f->np - 1, u, 0.3);
        uo[n][0] = a.u0;
        memcpy(uo[n] + 1, u, sizeof u);
        n++;
    }
    return at;
}

/* Decode attention's bandwidth is identified weakly (Splitwise's two LLMs
 * move the loss by a few percent from a quarter of the GEMMs' rate to all
 * of it), and the loss over it has had two minima, so which one the
 * starts' best landed in moved with small changes of the kernel factors
 * (0.078, 0.19, 0.29, 0.075 of the H100's peak across four of them).
 * The rule: the candidates are the minima the starts found and the local
 * minima of the loss profiled over a fixed grid of the share (the other
 * factors refitted at each, from the best); of those whose loss is within
 * GS_ATTN_TIE of the least, the answer is the one of the highest
 * bandwidth (nearest the rate the GEMMs stream their weights at).  A grid
 * point chosen is polished within its basin (the share kept between the
 * grid points beside it, every factor free).  A minimum alone, or one
 * clearly best, is kept as found: on the shipped fits the rule changes
 * nothing. */
static void attn_rule(const struct fitctx *f, double *ub, double lb,
                      double (*us)[NPAR], const double *vs, int ns)
{
    double sh[GS_ATTN_GRID + 1], lv[GS_ATTN_GRID + 1];
    double uo[GS_ATTN_GRID + 1][NPAR];
    int n = GS_ATTN_GRID + 1;
    int at = attn_profile(f, ub, lb, sh, lv, uo);
    int pick = gs_llm_calib_attn_pick(lv, n, GS_ATTN_TIE);
    double least = lv[0];
    for (int i = 1; i < n; i++)
        least = fmin(least, lv[i]);
    /* the starts' minima: the highest bandwidth within the tie */
    int from = -1;
    double top = pick == at ? logistic(ub[0]) : sh[pick];
    for (int s = 0; s < ns; s++)
        if (vs[s] <= least + GS_ATTN_TIE && logistic(us[s][0]) > top) {
            top = logistic(us[s][0]);
            from = s;
        }
    if (from >= 0) {
        memcpy(ub, us[from], sizeof us[from]);
        return;
    }
    if (pick == at)
        return;
    double u[NPAR];
    memcpy(u, uo[pick], sizeof u);
    struct attnctx a = { f, u[0], logit(sh[pick > 0 ? pick - 1 : 0] * 0.999),
                         pick < n - 1 ? logit(sh[pick + 1]) : 30 };
    double v = gs_llm_nm_minimize(loss_within, &a, f->np, u, 0.1);
    memcpy(ub, v <= lv[pick] ? u : uo[pick], sizeof u);
}

double gs_llm_calib_p2p(const struct gs_llm_hw *hw)
{
    const struct gs_ar_curve *c = hw->eff.ar;
    if (c && c->p2p_gbs > 0)
        return c->p2p_gbs;
    return hw->eff.link_gbs > 0 ? hw->eff.link_gbs : 0;
}

double gs_llm_calib_ar_held(const struct gs_llm_hw *hw)
{
    return GS_AR_BIG_SHARE * gs_llm_calib_p2p(hw);
}

/* The serving fit; the big all-reduce's bandwidth fitted with the others
 * when free_ar, else held at gs_llm_calib_ar_held. */
static int fit_serving(const struct gs_llm_calib *c, const char *hw,
                       const char *model, const struct gs_llm_hw *base,
                       int free_ar, struct gs_gpu_llm *out, struct gs_diag *d)
{
    struct fitctx f = { .c = c, .hw = hw, .model = model, .base = base,
                        .np = free_ar ? NPAR : NPAR - 1,
                        .ar_big = gs_llm_calib_ar_held(base) };
    int rc = fit_select(&f, model, hw, 0, d);
    if (!rc && f.n == 0)
        rc = gs_diag_set(d, GS_ENOTFOUND, "calibration",
                         "no points for hardware '%s'%s%s", hw,
                         model ? " and model " : "", model ? model : "");
    if (!rc && !free_ar && !(f.ar_big > 0))
        rc = gs_diag_set(d, GS_ERANGE, "calibration", "hardware '%s' has "
                         "no all-reduce bandwidth to hold the big pass at",
                         hw);
    if (rc) {
        fit_release(&f);
        return rc;
    }
    /* Starts (attention bandwidth, host us per layer, us per sequence,
     * prefill us per layer, big all-reduce GB/s when fitted): cheap and
     * costly fixed parts, slow and fast passes; the best result wins. */
    static const double starts[][NPAR] = {
        { 0.8, 20, 3, 60, 100 }, { 0.5, 100, 10, 120, 300 },
        { 0.9, 5, 1, 25, 50 }, { 0.9, 500, 2, 200, 1000 },
        { 0.6, 250, 5, 60, 150 }, { 0.6, 1000, 5, 12, 80 },
    };
    enum { NSTART = sizeof starts / sizeof starts[0] };
    double best = INFINITY, ub[NPAR] = { 0 };
    double us[NSTART][NPAR], vs[NSTART];
    for (int s = 0; s < NSTART; s++) {
        double u[NPAR] = {
            logit(starts[s][0]), log(starts[s][1]), log(starts[s][2]),
            log(starts[s][3]), free_ar ? log(starts[s][4]) : 0,
        };
        double v = gs_llm_nm_minimize(loss, &f, f.np, u, 0.7);
        memcpy(us[s], u, sizeof u);
        vs[s] = v;
        if (v < best) {
            best = v;
            memcpy(ub, u, sizeof ub);
        }
    }
    attn_rule(&f, ub, best, us, vs, NSTART);
    struct gs_llm_hw h;
    unpack(ub, &f, &h);
    *out = h.eff;
    fit_release(&f);
    return 0;
}

int gs_llm_calib_fit(const struct gs_llm_calib *c, const char *hw,
                     const char *model, const struct gs_llm_hw *base,
                     struct gs_gpu_llm *out, struct gs_diag *d)
{
    return fit_serving(c, hw, model, base, 0, out, d);
}

int gs_llm_calib_ar_share(const struct gs_llm_calib *c, const char *hw,
                          const struct gs_llm_hw *base, double *share,
                          struct gs_diag *d)
{
    struct gs_gpu_llm e;
    double bus = gs_llm_calib_p2p(base);
    int rc = fit_serving(c, hw, NULL, base, 1, &e, d);
    *share = !rc && bus > 0 ? e.ar_big_gbs / bus : 0;
    return rc;
}

/* ---- the power curve -------------------------------------------------------- */

/* A configuration's phases: durations and utilizations of its prefill and
 * of one decode step, and the measured power. */
struct pwpt {
    double tp_s, up_c, up_m, td_s, ud_c, ud_m, tokens, peak, avg;
};

struct pwfit {
    const struct pwpt *q;
    int n;
};

static void pw_model(const struct gs_power_shape *sh, const struct pwpt *q,
                     double *peak, double *avg)
{
    double pp = gs_power_watts(sh, 1.0, q->up_c, q->up_m, 0);
    double pd = gs_power_watts(sh, 1.0, q->ud_c, q->ud_m, 0);
    *peak = pp > pd ? pp : pd;
    *avg = (q->tp_s * pp + q->tokens * q->td_s * pd)
           / (q->tp_s + q->tokens * q->td_s);
}

static void pw_unpack(const double *u, struct gs_power_shape *sh)
{
    sh->idle = logistic(u[0]);
    sh->a = exp(u[1]);
    sh->b = exp(u[2]);
}

static double pw_loss(const gsl_vector *v, void *arg)
{
    const struct pwfit *f = arg;
    double u[3];
    for (int k = 0; k < 3; k++)
        u[k] = gsl_vector_get(v, (size_t)k);
    if (!(fabs(u[1]) < 20 && fabs(u[2]) < 20))
        return INFINITY;
    struct gs_power_shape sh;
    pw_unpack(u, &sh);
    double s = 0;
    for (int i = 0; i < f->n; i++) {
        double pk, av;
        pw_model(&sh, &f->q[i], &pk, &av);
        s += rho(log(pk / f->q[i].peak)) + rho(log(av / f->q[i].avg));
    }
    return s;
}

/* The phases of every point of hw that carries power; *n of them. */
static int pw_points(const struct gs_llm_calib *c, const char *hw,
                     const struct gs_llm_hw *fit, struct pwpt *q, int *n,
                     struct gs_diag *d)
{
    *n = 0;
    for (int i = 0; i < c->n; i++) {
        const struct gs_llm_calib_pt *p = &c->p[i];
        if (strcasecmp(p->hw, hw) || !(p->peak_pw > 0 && p->avg_pw > 0))
            continue;
        struct gs_llm_arch a;
        struct gs_llm_perf perf;
        int rc = gs_llm_arch_find(p->model, &a, p->model, d);
        if (!rc)
            rc = gs_llm_perf_init(&perf, &a, fit, p->tp, d);
        if (rc)
            return rc;
        double b = p->batch, pr = p->prompt, ctx = pr + p->tokens / 2.0;
        struct gs_llm_batch pb = {
            .prefill_tokens = b * pr, .prefill_attn = b * pr * (pr + 1) / 2,
            .prefill_ctx = b * pr, .sampled = b, .seqs = b,
        };
        struct gs_llm_batch db = {
            .decode_tokens = b, .decode_ctx = b * (ctx + 1), .sampled = b,
            .seqs = b,
        };
        struct pwpt *x = &q[(*n)++];
        x->tp_s = gs_llm_perf_time(&perf, &pb);
        x->td_s = gs_llm_perf_time(&perf, &db);
        gs_llm_perf_util(&perf, &pb, x->tp_s, &x->up_c, &x->up_m);
        gs_llm_perf_util(&perf, &db, x->td_s, &x->ud_c, &x->ud_m);
        x->tokens = p->tokens;
        x->peak = p->peak_pw;
        x->avg = p->avg_pw;
    }
    return 0;
}

int gs_llm_power_fit(const struct gs_llm_calib *c, const char *hw,
                     const struct gs_llm_hw *fit, struct gs_power_shape *out,
                     struct gs_llm_calib_err *e, struct gs_diag *d)
{
    memset(e, 0, sizeof *e);
    struct pwpt *q = malloc((size_t)(c->n > 0 ? c->n : 1) * sizeof *q);
    double *pe = malloc((size_t)(c->n > 0 ? c->n : 1) * 2 * sizeof *pe);
    int n = 0, rc = 0;
    if (!q || !pe)
        rc = gs_diag_set(d, GS_ENOMEM, "calibration", "out of memory");
    if (!rc)
        rc = pw_points(c, hw, fit, q, &n, d);
    if (!rc && n == 0)
        rc = gs_diag_set(d, GS_ENOTFOUND, "calibration", "no power "
                         "measurements for hardware '%s'", hw);
    if (!rc) {
        struct pwfit f = { q, n };
        static const double starts[][3] = {
            { 0.15, 1.0, 1.0 }, { 0.3, 0.5, 2.0 }, { 0.1, 3.0, 0.5 },
        };
        double best = INFINITY, ub[3] = { 0 };
        for (int s = 0; s < 3; s++) {
            double u[3] = { logit(starts[s][0]), log(starts[s][1]),
                            log(starts[s][2]) };
            double v = gs_llm_nm_minimize(pw_loss, &f, 3, u, 0.5);
            if (v < best) {
                best = v;
                memcpy(ub, u, sizeof ub);
            }
        }
        pw_unpack(ub, out);
        for (int i = 0; i < n; i++) {
            double pk, av;
            pw_model(out, &q[i], &pk, &av);
            pe[i] = fabs(pk / q[i].peak - 1);
            pe[n + i] = fabs(av / q[i].avg - 1);
        }
        struct gs_llm_err ep, ea;
        gs_llm_err_of(pe, n, &ep);
        e->prompt_max = pe[n - 1];
        gs_llm_err_of(pe + n, n, &ea);
        e->token_max = pe[2 * n - 1];
        e->n = n;
        e->prompt_med = ep.median;
        e->prompt_p90 = ep.p90;
        e->token_med = ea.median;
        e->token_p90 = ea.p90;
    }
    free(q);
    free(pe);
    return rc;
}

int gs_llm_calib_eval(const struct gs_llm_calib *c, const char *model,
                      const char *hw, int tp, const struct gs_llm_hw *fit,
                      struct gs_llm_calib_err *e, struct gs_diag *d)
{
    struct fitctx f = { .c = c };
    memset(e, 0, sizeof *e);
    int rc = fit_select(&f, model, hw, tp, d);
    double *pe = NULL, *te = NULL;
    if (!rc && f.n > 0) {
        pe = malloc((size_t)f.n * sizeof *pe);
        te = malloc((size_t)f.n * sizeof *te);
        if (!pe || !te)
            rc = gs_diag_set(d, GS_ENOMEM, "calibration", "out of memory");
    }
    for (int i = 0; !rc && i < f.n; i++) {
        const struct gs_llm_calib_pt *p = &c->p[f.idx[i]];
        double pt, tt;
        rc = model_times(p, &f.arch[f.ai[i]], fit, &pt, &tt);
        if (rc)
            break;
        pe[i] = fabs(pt / p->prompt_ms - 1);
        te[i] = fabs(tt / p->token_ms - 1);
    }
    if (!rc && f.n > 0) {
        size_t n = (size_t)f.n;
        gsl_sort(pe, 1, n);
        gsl_sort(te, 1, n);
        e->n = f.n;
        e->prompt_med = gsl_stats_median_from_sorted_data(pe, 1, n);
        e->prompt_max = pe[n - 1];
        e->prompt_p90 = gsl_stats_quantile_from_sorted_data(pe, 1, n, 0.9);
        e->token_p90 = gsl_stats_quantile_from_sorted_data(te, 1, n, 0.9);
        e->token_med = gsl_stats_median_from_sorted_data(te, 1, n);
        e->token_max = te[n - 1];
    }
    free(pe);
    free(te);
    fit_release(&f);
    return rc;
}

int gs_llm_calib_leave_out(const struct gs_llm_calib *c,
                           const struct gs_llm_prof *p, const char *hw,
                           const char *model, const struct gs_llm_hw *base,
                           struct gs_llm_calib_err *e, struct gs_diag *d)
{
    struct gs_llm_arch a;
    struct gs_llm_shape s;
    memset(e, 0, sizeof *e);
    int rc = gs_llm_arch_find(model, &a, "calibration", d);
    if (rc)
        return rc;
    gs_llm_shape_from_arch(&a, 1, &s);
    int skip = -1;      /* the profiles' group of the LLM's layer shape */
    for (int r = 0; r < p->n && skip < 0; r++) {
        const struct gs_llm_shape *q = &p->r[r].s;
        if (q->heads == s.heads && q->kv_heads == s.kv_heads
            && q->hidden == s.hidden && q->ffn == s.ffn
            && q->gated == s.gated)
            skip = p->r[r].group;
    }
    struct gs_llm_hw h = *base;
    if ((rc = gs_llm_prof_fit(p, skip, &h, d)))
        return rc;
    struct gs_llm_calib rest = { 0 };
    rest.p = malloc((size_t)(c->n > 0 ? c->n : 1) * sizeof *rest.p);
    if (!rest.p)
        return gs_diag_set(d, GS_ENOMEM, "calibration", "out of memory");
    for (int r = 0; r < c->n; r++)
        if (strcasecmp(c->p[r].model, model))
            rest.p[rest.n++] = c->p[r];
    rc = gs_llm_calib_fit(&rest, hw, NULL, &h, &h.eff, d);
    if (!rc)
        rc = gs_llm_calib_eval(c, model, hw, 0, &h, e, d);
    free(rest.p);
    return rc;
}

/* ---- the report ------------------------------------------------------------ */

/* Distinct values of a string field in order of first appearance. */
static int distinct(const struct gs_llm_calib *c, int hwfield,
                    char (*out)[GS_LLM_NAME], int max)
{
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        const char *s = hwfield ? c->p[i].hw : c->p[i].model;
        int k = 0;
        while (k < n && strcmp(out[k], s))
            k++;
        if (k == n && n < max)
            strcpy(out[n++], s);
    }
    return n;
}

static void print_err(FILE *out, const char *model, const char *hw,
                      const char *tp, const struct gs_llm_calib_err *e)
{
    fprintf(out, "| %-12s | %-15s | %-3s | %3d | %5.1f%% | %6.1f%% | %5.1f%% "
            "| %6.1f%% |\n", model, hw, tp, e->n, 100 * e->prompt_med,
            100 * e->prompt_max, 100 * e->token_med, 100 * e->token_max);
}

int gs_llm_calib_power(const struct gs_llm_calib *c,
                       const struct gs_catalog *cat, const char *hw,
                       struct gs_power_shape *out, struct gs_llm_calib_err *e,
                       struct gs_diag *d)
{
    struct gs_llm_hw base, fit;
    if (gs_llm_calib_hw(cat, hw, &base))
        return gs_diag_set(d, GS_ENOTFOUND, "calibration", "hardware '%s' "
                           "matches no GPU model", hw);
    fit = base;
    int rc = gs_llm_calib_fit(c, hw, NULL, &base, &fit.eff, d);
    return rc ? rc : gs_llm_power_fit(c, hw, &fit, out, e, d);
}

/* The power curve of every hardware whose points carry power, on the
 * serving factors just fitted (fit[h]), as power.h's constants. */
static void report_power(FILE *out, const struct gs_llm_calib *c,
                         char (*hws)[GS_LLM_NAME], int nh,
                         const struct gs_llm_hw *fit)
{
    for (int h = 0; h < nh; h++) {
        struct gs_power_shape sh;
        struct gs_llm_calib_err e;
        struct gs_diag d2 = { 0 };
        int none = gs_llm_power_fit(c, hws[h], &fit[h], &sh, &e, &d2) != 0;
        gs_diag_free(&d2);
        if (none)
            continue;   /* no power measured on this hardware */
        fprintf(out, "\nPower curve of %s on the serving factors above "
                "(sim/cluster/power.h; fraction of the board limit)\n\n"
                "    #define GS_POWER_IDLE %.4f\n    #define GS_POWER_A "
                "%.4f\n    #define GS_POWER_B %.4f\n\n"
                "%d configurations: peak median %.1f%% (p90 %.1f%%), "
                "average median %.1f%% (p90 %.1f%%)\n", hws[h], sh.idle,
                sh.a, sh.b, e.n, 100 * e.prompt_med, 100 * e.prompt_p90,
                100 * e.token_med, 100 * e.token_p90);
    }
}

int gs_llm_calib_report(FILE *out, const char *path,
                        const struct gs_catalog *cat, struct gs_diag *d)
{
    struct gs_llm_calib c;
    int rc = gs_llm_calib_read(path, &c, d);
    if (rc)
        return rc;
    char hws[16][GS_LLM_NAME], models[8][GS_LLM_NAME];
    int nh = distinct(&c, 1, hws, 16), nm = distinct(&c, 0, models, 8);
    struct gs_llm_hw fit[16];
    fprintf(out, "Fitted LLM serving factors (%d configurations, %s; the "
            "kernel factors are the catalog's)\n\n"
            "| hardware        | attention | attention bw | host layer us "
            "| sequence us | prefill us | big all-reduce GB/s |\n"
            "|-----------------|-----------|--------------|---------------"
            "|-------------|------------|---------------------|\n", c.n,
            path);
    for (int h = 0; h < nh && !rc; h++) {
        struct gs_llm_hw base;
        if (gs_llm_calib_hw(cat, hws[h], &base)) {
            rc = gs_diag_set(d, GS_ENOTFOUND, path, "hardware '%s' matches "
                             "no GPU model", hws[h]);
            break;
        }
        fit[h] = base;
        rc = gs_llm_calib_fit(&c, hws[h], NULL, &base, &fit[h].eff, d);
        if (!rc) {
            const struct gs_gpu_llm *e = &fit[h].eff;
            fprintf(out, "| %-15s | %9.4f | %12.4f | %13.2f | %11.3f "
                    "| %10.3f | %19.1f |\n", hws[h], e->attn_eff,
                    e->attn_bw_eff, e->layer_us, e->seq_us, e->prefill_us,
                    e->ar_big_gbs);
        }
    }
    if (!rc)
        report_power(out, &c, hws, nh, fit);
    if (!rc)
        fprintf(out, "\nAbsolute relative error per (LLM, GPU, TP), fit on "
                "all LLMs\n\n"
                "| LLM          | GPU             | TP  |   n | prompt "
                "median | worst | token median | worst |\n"
                "|--------------|-----------------|-----|-----|--------"
                "|---------|--------|---------|\n");
    for (int m = 0; m < nm && !rc; m++)
        for (int h = 0; h < nh && !rc; h++)
            for (int tp = 1; tp <= 64 && !rc; tp *= 2) {
                struct gs_llm_calib_err e;
                rc = gs_llm_calib_eval(&c, models[m], hws[h], tp, &fit[h],
                                       &e, d);
                if (!rc && e.n) {
                    char t[16];
                    snprintf(t, sizeof t, "%d", tp);
                    print_err(out, models[m], hws[h], t, &e);
                }
            }
    if (!rc && nm > 1)
        fprintf(out, "\nCross-validation: fit on one LLM, error on the "
                "other (all TP degrees)\n\n"
                "| held out     | GPU             | fit on       |   n | "
                "prompt median | worst | token median | worst |\n"
                "|--------------|-----------------|--------------|-----|"
                "--------|---------|--------|---------|\n");
    for (int m = 0; m < nm && nm > 1 && !rc; m++)
        for (int h = 0; h < nh && !rc; h++)
            for (int o = 0; o < nm && !rc; o++) {
                if (o == m)
                    continue;
                struct gs_llm_hw cv = fit[h];
                rc = gs_llm_calib_fit(&c, hws[h], models[o], &fit[h],
                                      &cv.eff, d);
                struct gs_llm_calib_err e;
                if (!rc)
                    rc = gs_llm_calib_eval(&c, models[m], hws[h], 0, &cv, &e,
                                           d);
                if (!rc && e.n)
                    print_err(out, models[m], hws[h], models[o], &e);
            }
    gs_llm_calib_free(&c);
    return rc;
}
