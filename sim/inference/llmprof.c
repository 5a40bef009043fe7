/* llmprof.c -- measured kernel profiles: reading Vidur's files, fitting a GPU's kernel factors, validating.
 *
 * Vidur's profiler (Agrawal et al., MLSys'24) times every operation of one
 * transformer layer on a real GPU at token counts 1..4,096 (and more) and
 * TP degrees 1..8, and writes one row per (tokens, TP) with the median of
 * each op and the model's shape (mlp.csv).  Its network profiles give the
 * time of an all-reduce by size and GPU count (all_reduce.csv).
 *
 * The fit: per GPU, the GEMM factors (compute and bandwidth efficiency, a
 * fixed cost) over every GEMM of every row at once, and each elementwise
 * kind's (bandwidth efficiency from HBM and from L2, fixed cost) over its
 * ops (the L2 one only when the catalog gives the GPU's L2), each minimizing
 * Cauchy's rho(r) = s^2 log(1 + r^2/s^2) of r = log(model / measured),
 * s = 0.03: least squares on relative error within a few percent, while a
 * row no smooth rule explains (a kernel switch, a noisy launch) cannot
 * drag the fit.  The roofline's max() makes the loss non-smooth, so the
 * minimizer is GSL's Nelder-Mead simplex, restarted from its best point and
 * from a few starts.  Efficiencies go through a logistic map (kept in
 * (0, 1)), costs through exp (kept positive).
 *
 * A file that measures no post_attention_layernorm is a parallel block
 * (phi-2, GPT-J, Falcon: attention and the MLP both read one norm's
 * output), and its add op is the residual of both branches, input +
 * attention + MLP: two adds.  Measured, phi-2's add moves 3.1 TB/s on the
 * H100 counted so and 1.6 TB/s counted as one, where Llama-2-7B's moves
 * 3.2 TB/s.
 *
 * Leave-one-shape-out: the rows are grouped by layer shape (Llama-2-70B
 * and Llama-3-70B share one: only their vocabularies differ), so a fit
 * that skips a group has seen no kernel of that shape. */
#include "llmprof.h"
#include "../../traces/tread.h"

#include <errno.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ROWS (1 << 22)
#define CAUCHY 0.03

void gs_llm_prof_free(struct gs_llm_prof *p)
{
    if (!p)
        return;
    free(p->r);
    memset(p, 0, sizeof *p);
}

/* The lines come from the trace readers' line reader (traces/tread.h): a
 * line of any length up to its 16 MiB (a longer one refused in words,
 * naming the line), gzip as well as plain text, a NUL byte, folder or
 * device refused; its fields are split as CSV, as many as the line has.
 * (Before, lines were read with fgets into 64 KiB and split into at most
 * 1,024 fields: a longer header was cut, its rest read as a data row, and
 * columns past the 1,024th were silently not there.) */
struct fields {
    char **f;
    int cap;
};

/* Split line at commas in place into fs; the number of fields, or -1 out
 * of memory.  A line of c commas has at most c + 1 fields. */
static int split(char *line, struct fields *fs)
{
    int need = 1;
    for (const char *c = line; (c = strchr(c, ',')) != NULL; c++)
        need++;
    if (need > fs->cap) {
        void *np = realloc(fs->f, (size_t)need * sizeof *fs->f);
        if (!np)
            return -1;
        fs->f = np;
        fs->cap = need;
    }
    return gs_tsplit(line, ',', fs->f, fs->cap);
}

static int blank(const char *line)
{
    return line[strspn(line, " \t\r")] == 0;
}

enum { S_HEAD, S_KV, S_EMBD, S_FFN, S_VOCAB, S_GATED, S_TOK, S_TP, S_N };
static const char *const shape_col[S_N] = {
    "n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size",
    "use_gated_mlp", "num_tokens", "num_tensor_parallel_workers",
};

struct header {
    int shape[S_N];
    int op[GS_OP_N];
    int nf;
};

static int read_header(char **f, int nf, const char *path, struct header *h,
                       struct gs_diag *d)
{
    char *where;
    h->nf = nf;
    for (int k = 0; k < S_N; k++)
        h->shape[k] = -1;
    for (int k = 0; k < GS_OP_N; k++)
        h->op[k] = -1;
    int any = 0;
    for (int i = 0; i < h->nf; i++) {
        for (int k = 0; k < S_N; k++)
            if (strcmp(f[i], shape_col[k]) == 0)
                h->shape[k] = i;
        for (int k = 0; k < GS_OP_N; k++) {
            char name[64];
            snprintf(name, sizeof name, "time_stats.%s.median",
                     gs_llm_op_name(k));
            if (strcmp(f[i], name) == 0) {
                h->op[k] = i;
                any = 1;
            }
        }
    }
    for (int k = 0; k < S_N; k++)
        if (h->shape[k] < 0) {
            where = gs_strf("%s:1", path);
            return gs_diag_set_at(d, GS_EPARSE, where, "no column '%s'",
                                  shape_col[k]);
        }
    if (!any) {
        where = gs_strf("%s:1", path);
        return gs_diag_set_at(d, GS_EPARSE, where, "no column "
                              "time_stats.OP.median for any known op "
                              "(attn_pre_proj, mlp_up_proj, ...)");
    }
    return 0;
}

static int int_field(const char *s, long lo, long hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

/* Parse one data row, line lineno of path. */
static int read_row(char **f, int nf, const struct header *h,
                    const char *path, long lineno, struct gs_llm_prof_row *r,
                    struct gs_diag *d)
{
    char *at;
    if (nf != h->nf) {
        at = gs_strf("%s:%ld:%d", path, lineno, nf < h->nf ? nf : h->nf + 1);
        return gs_diag_set_at(d, GS_EPARSE, at, "%d fields, the header has %d",
                              nf, h->nf);
    }
    int v[S_N];
    for (int k = 0; k < S_N; k++) {
        const char *s = f[h->shape[k]];
        int bad;
        if (k == S_GATED) {
            bad = 0;
            if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0)
                v[k] = 1;
            else if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0)
                v[k] = 0;
            else
                bad = 1;
        } else
            bad = int_field(s, 1, 1 << 24, &v[k]);
        if (bad) {
            at = gs_strf("%s:%ld:%d", path, lineno, h->shape[k] + 1);
            return gs_diag_set_at(d, GS_EPARSE, at, "%s: '%.40s' is not %s",
                                  shape_col[k], s, k == S_GATED
                                  ? "True or False" : "an integer in 1..2^24");
        }
    }
    r->s = (struct gs_llm_shape){ .heads = v[S_HEAD], .kv_heads = v[S_KV],
        .hidden = v[S_EMBD], .ffn = v[S_FFN], .vocab = v[S_VOCAB],
        .gated = v[S_GATED], .tp = v[S_TP],
        .parallel = h->op[GS_OP_POST_NORM] < 0, .layernorm = !v[S_GATED] };
    r->tokens = v[S_TOK];
    const char *why = NULL;
    int col = h->shape[S_HEAD];
    if (r->s.hidden % r->s.heads)
        why = "n_embd must be a multiple of n_head", col = h->shape[S_EMBD];
    else if (r->s.heads % r->s.kv_heads)
        why = "n_kv_head must divide n_head", col = h->shape[S_KV];
    else if (r->s.heads % r->s.tp || r->s.ffn % r->s.tp)
        why = "num_tensor_parallel_workers must divide n_head and "
              "n_expanded_embd", col = h->shape[S_TP];
    if (why) {
        at = gs_strf("%s:%ld:%d", path, lineno, col + 1);
        return gs_diag_set_at(d, GS_EPARSE, at, "%s", why);
    }
    for (int k = 0; k < GS_OP_N; k++) {
        r->t[k] = -1;
        if (h->op[k] < 0)
            continue;
        char *end;
        const char *s = f[h->op[k]];
        double x = strtod(s, &end);
        if (end == s || *end || !(x > 0) || !isfinite(x)) {
            at = gs_strf("%s:%ld:%d", path, lineno, h->op[k] + 1);
            return gs_diag_set_at(d, GS_EPARSE, at, "time_stats.%s.median: "
                                  "'%.40s' is not a positive time in ms",
                                  gs_llm_op_name(k), s);
        }
        r->t[k] = x * 1e-3;
    }
    return 0;
}

int gs_llm_prof_read(const char *path, struct gs_llm_prof *p,
                     struct gs_diag *d)
{
    struct gs_tread *t;
    int rc = gs_tread_open_as(path, "a kernel profile", &t, d);
    if (rc < 0)
        return rc;
    struct fields fs = { NULL, 0 };
    struct header h;
    char *line;
    int nf;
    if ((rc = gs_tread_line(t, &line, d)) <= 0) {
        if (rc == 0)
            rc = gs_diag_set(d, GS_EPARSE, path, "empty file");
        goto out;
    }
    if ((nf = split(line, &fs)) < 0) {
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        goto out;
    }
    if ((rc = read_header(fs.f, nf, path, &h, d)))
        goto out;
    for (int k = 0; k < GS_OP_N; k++)
        if (h.op[k] >= 0)
            p->has[k] = 1;
    while ((rc = gs_tread_line(t, &line, d)) > 0) {
        long lineno = gs_tread_lineno(t);
        if (blank(line))
            continue;
        if (p->n == MAX_ROWS) {
            rc = gs_diag_set_line(d, GS_ERANGE, path, lineno, "more than %d "
                                  "rows", MAX_ROWS);
            goto out;
        }
        if (p->n == p->cap) {
            int cap = p->cap ? 2 * p->cap : 1024;
            void *np = realloc(p->r, (size_t)cap * sizeof *p->r);
            if (!np) {
                rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                goto out;
            }
            p->r = np;
            p->cap = cap;
        }
        if ((nf = split(line, &fs)) < 0) {
            rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
            goto out;
        }
        if ((rc = read_row(fs.f, nf, &h, path, lineno, &p->r[p->n], d)))
            goto out;
        p->n++;
    }
    if (rc == 0 && p->n == 0)
        rc = gs_diag_set(d, GS_EPARSE, path, "no rows");
out:
    free(fs.f);
    gs_tread_close(t);
    return rc < 0 ? rc : 0;
}

static int same_layer(const struct gs_llm_shape *a,
                      const struct gs_llm_shape *b)
{
    return a->heads == b->heads && a->kv_heads == b->kv_heads
           && a->hidden == b->hidden && a->ffn == b->ffn
           && a->gated == b->gated;
}

int gs_llm_prof_groups(struct gs_llm_prof *p)
{
    int ng = 0;
    for (int i = 0; i < p->n; i++) {
        int g = -1;
        for (int j = 0; j < i && g < 0; j++)
            if (same_layer(&p->r[j].s, &p->r[i].s))
                g = p->r[j].group;
        p->r[i].group = g >= 0 ? g : ng++;
    }
    return ng;
}

/* ---- all-reduce curves ---------------------------------------------------- */

enum { A_MED, A_WORKERS, A_SIZE, A_DPN, A_N };
static const char *const ar_col[A_N] = {
    "time_stats.all_reduce.median", "num_workers", "size",
    "devices_per_node",
};
/* send_recv.csv names its time column so; the others are the same */
static const char *const p2p_med = "time_stats.send_recv.median";

static int ar_point_cmp(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Bin the (bytes, us) points of one GPU count into c->us[col]. */
static void ar_bin(double (*pt)[2], int n, double *us)
{
    double *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof *buf);
    GS_ASSERT(buf);
    if (n > 1)                  /* pt is NULL when no row was kept */
        qsort(pt, (size_t)n, sizeof *pt, ar_point_cmp);
    for (int i = 0; i < GS_AR_POINTS; i++) {
        double s = exp2(11 + i), lo = s / M_SQRT2, hi = s * M_SQRT2;
        int m = 0;
        for (int k = 0; k < n; k++)
            if (pt[k][0] >= lo && pt[k][0] < hi)
                buf[m++] = pt[k][1];
        if (m == 0) {
            us[i] = 0;
            continue;
        }
        gsl_sort(buf, 1, (size_t)m);
        us[i] = gsl_stats_median_from_sorted_data(buf, 1, (size_t)m);
    }
    /* a power of two between measured sizes: log-log between its
     * neighbours; before the first, the first */
    int first = -1;
    for (int i = 0; i < GS_AR_POINTS && first < 0; i++)
        if (us[i] > 0)
            first = i;
    for (int i = 0; first >= 0 && i < first; i++)
        us[i] = us[first];
    for (int i = first + 1; first >= 0 && i < GS_AR_POINTS; i++) {
        if (us[i] > 0)
            continue;
        int j = i + 1;
        while (j < GS_AR_POINTS && !(us[j] > 0))
            j++;
        if (j == GS_AR_POINTS)
            break;          /* beyond the last measured size: left 0 */
        double f = 1.0 / (j - i + 1);
        us[i] = exp(log(us[i - 1]) * (1 - f) + log(us[j]) * f);
    }
    /* a larger message never takes less time: the running minimum from
     * the right (measured small sizes are noisy) */
    for (int i = GS_AR_POINTS - 2; i >= 0; i--)
        if (us[i] > 0 && us[i + 1] > 0 && us[i] > us[i + 1])
            us[i] = us[i + 1];
    free(buf);
}

static int ar_parse(struct gs_tread *t, const char *path, double (**pts)[2],
                    int *npts, int *wk, const char *med, struct gs_diag *d)
{
    struct fields fs = { NULL, 0 };
    char *where, *line;
    int col[A_N], cap = 0, rc, nf;
    if ((rc = gs_tread_line(t, &line, d)) <= 0)
        return rc < 0 ? rc : gs_diag_set(d, GS_EPARSE, path, "empty file");
    if ((nf = split(line, &fs)) < 0) {
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        goto out;
    }
    for (int k = 0; k < A_N; k++) {
        col[k] = -1;
        const char *name = k == A_MED ? med : ar_col[k];
        for (int i = 0; i < nf; i++)
            if (strcmp(fs.f[i], name) == 0)
                col[k] = i;
        if (col[k] < 0) {
            where = gs_strf("%s:1", path);
            rc = gs_diag_set_at(d, GS_EPARSE, where, "no column '%s'", name);
            goto out;
        }
    }
    while ((rc = gs_tread_line(t, &line, d)) > 0) {
        long lineno = gs_tread_lineno(t);
        if (blank(line))
            continue;
        int n = split(line, &fs);
        if (n < 0) {
            rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
            goto out;
        }
        double v[2] = { 0, 0 }, w = 0, dpn = 0;     /* counts: compared,
                                                     * never cast */
        for (int k = 0; k < A_N; k++) {
            char *end;
            const char *s = col[k] < n ? fs.f[col[k]] : "";
            double x = strtod(s, &end);
            if (end == s || *end || !(x > 0) || !isfinite(x)) {
                where = gs_strf("%s:%ld:%d", path, lineno, col[k] + 1);
                rc = gs_diag_set_at(d, GS_EPARSE, where, "%s: '%.40s' is "
                                    "not a positive number",
                                    k == A_MED ? med : ar_col[k], s);
                goto out;
            }
            if (k == A_MED)
                v[1] = x * 1e3;
            else if (k == A_SIZE)
                v[0] = x;
            else if (k == A_WORKERS)
                w = x;
            else
                dpn = x;
        }
        int wi = w == 2 ? 0 : w == 4 ? 1 : w == 8 ? 2 : -1;
        if (wi < 0 || dpn != w)     /* one machine, 2, 4 or 8 GPUs */
            continue;
        if (npts[wi] == cap) {
            cap = cap ? 2 * cap : 1024;
            for (int j = 0; j < GS_AR_WORKERS; j++) {
                void *np = realloc(pts[j], (size_t)cap * sizeof *pts[j]);
                if (!np) {
                    rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                    goto out;
                }
                pts[j] = np;
            }
        }
        pts[wi][npts[wi]][0] = v[0];
        pts[wi][npts[wi]++][1] = v[1];
        *wk = 1;
    }
out:
    free(fs.f);
    return rc < 0 ? rc : 0;
}

/* Open path and read its points (ar_parse) with med as the time column. */
static int ar_load(const char *path, double (**pts)[2], int *npts, int *any,
                   const char *med, struct gs_diag *d)
{
    struct gs_tread *t;
    int rc = gs_tread_open_as(path, med == p2p_med ? "a send/receive profile"
                              : "an all-reduce profile", &t, d);
    if (rc < 0)
        return rc;
    rc = ar_parse(t, path, pts, npts, any, med, d);
    gs_tread_close(t);
    return rc;
}

int gs_llm_ar_read(const char *path, struct gs_ar_curve *c,
                   struct gs_diag *d)
{
    double (*pts[GS_AR_WORKERS])[2] = { NULL, NULL, NULL };
    int npts[GS_AR_WORKERS] = { 0 }, any = 0;
    int rc = ar_load(path, pts, npts, &any, ar_col[A_MED], d);
    if (!rc && !any)
        rc = gs_diag_set(d, GS_EPARSE, path, "no all-reduce on one machine "
                         "of 2, 4 or 8 GPUs");
    for (int j = 0; !rc && j < GS_AR_WORKERS; j++)
        ar_bin(pts[j], npts[j], c->us[j]);
    for (int j = 0; j < GS_AR_WORKERS; j++)
        free(pts[j]);
    return rc;
}

int gs_llm_p2p_read(const char *path, double *gbs, struct gs_diag *d)
{
    *gbs = 0;
    double (*pts[GS_AR_WORKERS])[2] = { NULL, NULL, NULL };
    int npts[GS_AR_WORKERS] = { 0 }, any = 0;
    int rc = ar_load(path, pts, npts, &any, p2p_med, d);
    double us[GS_AR_POINTS];
    if (!rc) {
        ar_bin(pts[0], npts[0], us);
        if (!(us[GS_AR_POINTS - 1] > 0))
            rc = gs_diag_set(d, GS_EPARSE, path, "no send/receive of about "
                             "%.0f MiB between 2 GPUs of one machine",
                             GS_AR_BIG_BYTES / 1048576);
        else
            *gbs = GS_AR_BIG_BYTES / (us[GS_AR_POINTS - 1] * 1e-6) / 1e9;
    }
    for (int j = 0; j < GS_AR_WORKERS; j++)
        free(pts[j]);
    return rc;
}

/* ---- errors ---------------------------------------------------------------- */

void gs_llm_err_of(double *e, int n, struct gs_llm_err *out)
{
    out->n = n;
    out->median = out->p90 = 0;
    if (n <= 0)
        return;
    gsl_sort(e, 1, (size_t)n);
    out->median = gsl_stats_median_from_sorted_data(e, 1, (size_t)n);
    out->p90 = gsl_stats_quantile_from_sorted_data(e, 1, (size_t)n, 0.9);
}

int gs_llm_prof_errors(const struct gs_llm_prof *p, int only, int op,
                       const struct gs_llm_hw *hw, double *e)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) {
        const struct gs_llm_prof_row *r = &p->r[i];
        if (only >= 0 && r->group != only)
            continue;
        double meas = 0, model = 0;
        for (int o = 0; o < GS_OP_N; o++)
            if ((op == GS_OP_N || o == op) && r->t[o] > 0) {
                meas += r->t[o];
                model += gs_llm_op_time(hw, &r->s, o, r->tokens);
            }
        if (!(meas > 0))
            continue;
        if (p->res_s > 0) {
            double off = fabs(model - meas) - p->res_s;
            e[n++] = off > 0 ? off / meas : 0;
        } else
            e[n++] = fabs(model / meas - 1);
    }
    return n;
}

int gs_llm_prof_validate(const struct gs_llm_prof *p, int only,
                         const struct gs_llm_hw *hw,
                         struct gs_llm_validation *v, struct gs_diag *d)
{
    memset(v, 0, sizeof *v);
    double *e = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *e);
    if (!e)
        return gs_diag_set(d, GS_ENOMEM, "validation", "out of memory");
    for (int k = 0; k <= GS_OP_N; k++) {
        int n = gs_llm_prof_errors(p, only, k, hw, e);
        gs_llm_err_of(e, n, k == GS_OP_N ? &v->layer : &v->op[k]);
    }
    free(e);
    return 0;
}

/* ---- the fit ---------------------------------------------------------------- */

static double rho(double r)
{
    return CAUCHY * CAUCHY * log1p(r * r / (CAUCHY * CAUCHY));
}

static double logistic(double u)
{
    return 1.0 / (1.0 + exp(-u));
}

static double logit(double x)
{
    return log(x / (1 - x));
}

/* What one loss evaluation needs: the rows, the group left out, the ops
 * fitted (GEMMs, or one elementwise kind) and the parameters' layout. */
struct pfit {
    const struct gs_llm_prof *p;
    int skip, kind;             /* kind -1: the GEMMs */
    int np;                     /* parameters */
    int l2;                     /* 1: an elementwise kind's L2 factor is
                                 * fitted (u[2]) */
    struct gs_llm_hw hw;
};

/* The weight of the prior that an elementwise kind gains nothing in L2
 * (log of the L2 over the HBM efficiency is 0): small against one row's
 * loss, it only decides where the rows leave the ratio free (a GPU whose
 * L2 holds none of the measured tensors). */
#define L2_PRIOR 1e-4

static void unpack(struct pfit *f, const double *u)
{
    struct gs_gpu_llm *e = &f->hw.eff;
    if (f->kind < 0) {
        e->compute_eff = logistic(u[0]);
        e->bw_eff = logistic(u[1]);
        e->gemm_us = exp(u[2]);
        if (f->np > 3)
            e->gemm_k0 = exp(u[3]);
    } else {
        e->elem_eff[f->kind] = logistic(u[0]);
        e->elem_us[f->kind] = exp(u[1]);
        e->elem_l2[f->kind] = e->elem_eff[f->kind]
                              * (f->l2 ? exp(u[2]) : 1.0);
        if (f->np > 2 + f->l2)
            e->elem_wave_us = exp(u[2 + f->l2]);
    }
}

static int fitted_op(const struct pfit *f, const struct gs_llm_shape *s,
                     int op)
{
    double k, n, bytes;
    if (f->kind < 0)
        return gs_llm_op_gemm(s, op, &k, &n);
    /* a LayerNorm's rows do not tell the RMSNorm's rates and waves */
    if (s->layernorm && (op == GS_OP_INPUT_NORM || op == GS_OP_POST_NORM))
        return 0;
    return gs_llm_op_elem(s, op, 1, &bytes) == f->kind;
}

static double pfit_loss(const gsl_vector *x, void *arg)
{
    struct pfit *f = arg;
    double u[4];
    for (size_t k = 0; k < x->size; k++)
        u[k] = gsl_vector_get(x, k);
    if (f->kind >= 0 && f->l2 && !(fabs(u[2]) < 4))
        return INFINITY;
    unpack(f, u);
    double s = f->kind >= 0 && f->l2 ? L2_PRIOR * u[2] * u[2] : 0;
    for (int i = 0; i < f->p->n; i++) {
        const struct gs_llm_prof_row *r = &f->p->r[i];
        if (r->group == f->skip)
            continue;
        for (int o = 0; o < GS_OP_N; o++)
            if (r->t[o] > 0 && fitted_op(f, &r->s, o))
                s += rho(log(gs_llm_op_time(&f->hw, &r->s, o, r->tokens)
                             / r->t[o]));
    }
    return s;
}

double gs_llm_nm_minimize(double (*fn)(const gsl_vector *, void *),
                          void *arg, int n, double *u, double step)
{
    gsl_multimin_function mf = { .n = (size_t)n, .f = fn, .params = arg };
    gsl_vector *x = gsl_vector_alloc((size_t)n);
    gsl_vector *st = gsl_vector_alloc((size_t)n);
    gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(
        gsl_multimin_fminimizer_nmsimplex2, (size_t)n);
    GS_ASSERT(x && st && m);
    double best = INFINITY;
    for (int round = 0; round < 6; round++) {
        for (int k = 0; k < n; k++) {
            gsl_vector_set(x, (size_t)k, u[k]);
            gsl_vector_set(st, (size_t)k, step);
        }
        gsl_multimin_fminimizer_set(m, &mf, x, st);
        for (int it = 0; it < 3000; it++) {
            if (gsl_multimin_fminimizer_iterate(m))
                break;
            if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m),
                                       1e-6) == GSL_SUCCESS)
                break;
        }
        double v = gsl_multimin_fminimizer_minimum(m);
        const gsl_vector *xb = gsl_multimin_fminimizer_x(m);
        if (v < best) {
            for (int k = 0; k < n; k++)
                u[k] = gsl_vector_get(xb, (size_t)k);
        }
        if (!(v < best - 1e-9 * (1 + fabs(best)))) {
            best = v < best ? v : best;
            break;
        }
        best = v;
    }
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(x);
    gsl_vector_free(st);
    return best;
}

int gs_llm_prof_fit(const struct gs_llm_prof *p, int skip,
                    struct gs_llm_hw *hw, struct gs_diag *d)
{
    int left = 0;
    for (int i = 0; i < p->n; i++)
        left += p->r[i].group != skip;
    if (left == 0 || !p->has[GS_OP_ATTN_PRE])
        return gs_diag_set(d, GS_ENOTFOUND, "calibration", "no kernel "
                           "profile left to fit the GEMMs on");
    /* where the rule counts a GEMM's waves, its tiles' fixed work k0 too */
    int np = hw->eff.gemm_waves && hw->eff.sms > 0 ? 4 : 3;
    struct pfit f = { .p = p, .skip = skip, .kind = -1, .np = np,
                      .hw = *hw };
    static const double gs[][4] = {
        { 0.7, 0.8, 8, 64 }, { 0.5, 0.6, 3, 16 }, { 0.85, 0.9, 15, 256 },
    };
    double best = INFINITY, ub[4] = { 0 };
    for (size_t s = 0; s < sizeof gs / sizeof gs[0]; s++) {
        double u[4] = { logit(gs[s][0]), logit(gs[s][1]), log(gs[s][2]),
                        log(gs[s][3]) };
        double v = gs_llm_nm_minimize(pfit_loss, &f, np, u, 0.5);
        if (v < best) {
            best = v;
            memcpy(ub, u, sizeof ub);
        }
    }
    unpack(&f, ub);
    /* The activation first: its rows' width varies with TP (f / t), which
     * tells the per-wave cost from the bytes; the other per-token kinds
     * keep that cost (a norm's width d does not vary within one LLM). */
    static const int order[GS_EK_N] = { GS_EK_ACT, GS_EK_NORM, GS_EK_ROPE,
                                        GS_EK_ADD, GS_EK_EMB };
    int wave_free = hw->eff.sms > 0;
    for (int i = 0; i < GS_EK_N; i++) {
        int k = order[i], any = 0;
        for (int o = 0; o < GS_OP_N; o++) {
            double bytes;
            any |= p->has[o] && gs_llm_op_elem(&p->r[0].s, o, 1, &bytes) == k;
        }
        if (!any)
            continue;       /* not measured: the catalog's value stays */
        f.kind = k;
        f.l2 = hw->eff.l2_mb > 0;
        int wave = wave_free && gs_llm_elem_per_token(k);
        f.np = 2 + f.l2 + wave;
        double u[4] = { logit(0.6), log(2), 0, 0 };
        if (wave)
            u[2 + f.l2] = log(0.5);
        gs_llm_nm_minimize(pfit_loss, &f, f.np, u, 0.5);
        unpack(&f, u);
        wave_free &= !wave;
    }
    hw->eff = f.hw.eff;
    return 0;
}

int gs_llm_prof_loso(struct gs_llm_prof *p, const struct gs_llm_hw *hw,
                     struct gs_llm_validation *pooled,
                     struct gs_llm_validation *per_group, int max_groups,
                     struct gs_diag *d)
{
    int ng = gs_llm_prof_groups(p), rc = 0;
    memset(pooled, 0, sizeof *pooled);
    if (ng < 2)
        return ng;
    size_t cap = (size_t)p->n;
    double *all = malloc((GS_OP_N + 1) * cap * sizeof *all);
    int cnt[GS_OP_N + 1] = { 0 };
    if (!all)
        return gs_diag_set(d, GS_ENOMEM, "calibration", "out of memory");
    for (int g = 0; g < ng && !rc; g++) {
        struct gs_llm_hw h = *hw;
        if ((rc = gs_llm_prof_fit(p, g, &h, d)))
            break;
        for (int k = 0; k <= GS_OP_N; k++)
            cnt[k] += gs_llm_prof_errors(p, g, k, &h,
                                         all + (size_t)k * cap + cnt[k]);
        if (per_group && g < max_groups)
            rc = gs_llm_prof_validate(p, g, &h, &per_group[g], d);
    }
    for (int k = 0; !rc && k <= GS_OP_N; k++)
        gs_llm_err_of(all + (size_t)k * cap, cnt[k],
                      k == GS_OP_N ? &pooled->layer : &pooled->op[k]);
    free(all);
    return rc ? rc : ng;
}
