/* llmops.c -- the time of one transformer operator on one GPU, from its shape.
 *
 * A layer of a decoder-only transformer under tensor parallelism of degree t
 * (Megatron-LM's split: QKV and up/gate split by columns, the output and
 * down projections by rows) runs, per GPU, over T tokens:
 *
 *   op               kind         shape (per GPU)
 *   input_layernorm  elementwise  reads and writes T x d
 *   attn_pre_proj    GEMM         T x d x (h + 2 h_kv) hd / t
 *   attn_rope        elementwise  reads and writes q and k: T (h + h_kv) hd / t
 *   attn_post_proj   GEMM         T x (h hd / t) x d
 *   post_att..._norm elementwise  as input_layernorm
 *   mlp_up_proj      GEMM         T x d x (2 if gated else 1) f / t
 *   mlp_act          elementwise  reads (2 or 1) T f / t, writes T f / t
 *   mlp_down_proj    GEMM         T x (f / t) x d
 *   add              elementwise  reads 2 T d, writes T d (a residual;
 *                                  a parallel block's add is two of them)
 *   emb              elementwise  gathers T rows of d, writes T x d
 *
 * (h_kv / t is at least 1: KV heads are replicated when fewer than t.)
 *
 * A GEMM of m x k x n in BF16 is bound by compute or by memory (the
 * roofline): max(2mkn / (F ce w), 2(mk + kn + mn) / (B be)) + a fixed cost.
 * w is the share of the GPU's work slots a GEMM fills, by the rule of a
 * tiled GEMM kernel (CUTLASS, cuBLAS): the output is cut into tiles of
 * tm x 128, one thread block each, run in waves of one tile per SM; tm is
 * the smallest power of two from 16 to 128 that covers m (small-M kernels
 * use short tiles).  w = (m n) / (ceil(m/tm) tm  ceil(n/128) 128) x
 * tiles / (waves x SMs): the padding of the last tile and the idle SMs of
 * the last wave.  Where the GPU's fit counts the waves (gemm_waves: the
 * A40 and the L40S), two more rules of a tiled kernel hold:
 * - the library has tiles 64 wide as well as 128 and takes the width
 *   that idles fewer SMs, which is always 64 (twice the tiles take at
 *   most twice the waves, and pad less): a narrow output, phi-2's 2,560
 *   columns, fills 20 tiles of 128 on the A40's 84 SMs, 40 of 64;
 * - each tile does fixed work besides its k loop (filling the pipeline,
 *   writing the output), as much as k0 more of k: the compute term counts
 *   2m(k + k0)n.  k0 is fitted with the GEMM factors (the A40's: 150); a
 *   short k (Llama-2-7B's output projection at TP 8, k = 512) then runs
 *   at the rate measured, 20% slower than k alone predicts.
 * Held out, the two took the A40's phi-2 output and down projections from
 * 11.0% and 12.6% to 9.3% and 7.1% (Llama-2-7B's from 8.1% and 6.5% to
 * 7.6% and 6.1%).  On the A100 and H100 they validated worse (k0 only:
 * H100 Llama-2-7B output projection 8.5% -> 10.9% at k0 = 64).  Nothing in
 * these rules names a model: the same rule for any shape.
 *
 * An elementwise kernel moves its bytes at a fitted share of the datasheet
 * bandwidth, per kind (norms, rotary embedding, activation, residual add,
 * embedding gather), after a fixed cost (launch and a short kernel's tail),
 * by two rules that hold for any shape:
 * - waves: the per-token kernels (norms and the activation: vLLM's
 *   kernels launch one thread block per token, of min(width, 1024)
 *   threads, so two blocks fit an SM) run in waves of 2 x SMs tokens, and
 *   a wave that is partly filled takes as long as a full one, and each
 *   wave has a fixed cost of its own (its blocks' start), the same for
 *   the three kinds.  Measured: the H100's RMSNorm holds 6 us up to 264
 *   tokens (2 x 132 SMs) and steps at 272, 536, 800; the A100's at 216
 *   (2 x 108); an activation of narrow rows (TP 8) moves its bytes at
 *   two thirds of the rate of wide ones.  A plain (not gated) MLP's
 *   activation is not one of them: with no gate to pair with its input,
 *   each element maps on its own (PyTorch's GELU, a flat elementwise
 *   kernel like the residual add), so it has no waves; it keeps the
 *   activation kind's bytes rate.  Measured, phi-2's GELU holds 1-2 us up
 *   to 64 tokens where the gated kernel of a like width holds 6-7 us;
 *   held out, the rule takes phi-2's activation from 35/30/10% to
 *   18/10/3.5% (A100/H100/A40).  (The rotary kernel's blocks
 *   are narrower and several share an SM: its waves are short, and
 *   counting them as two per SM validated worse, so it has no wave
 *   term.)  A LayerNorm (s->layernorm: a LayerNorm architecture, or a
 *   profile of a plain MLP, which Vidur pairs with PyTorch's LayerNorm)
 *   is not vLLM's block of up to 1,024 threads per token either:
 *   PyTorch's kernel runs blocks of 128 threads, 12 to an SM (phi-2's
 *   steps at 12 x SMs tokens on all three measured GPUs), so it has no
 *   waves of two tokens per SM; it takes the norm kind's rates and at
 *   least the norm's one wave.  No other profile measures a LayerNorm, so
 *   the norm kind is fitted on the RMSNorm's rows alone.  Held out,
 *   phi-2's norm 25.1/41.1/27.8% -> 13.6/17.7/12.4% (A100/H100/A40).
 * - L2: while the bytes a kernel touches fit in the L2 cache (datasheet
 *   size), they move at the kind's L2 efficiency; from half the L2 to one
 *   and a half its size the share served from L2 falls linearly to 0 and
 *   the rest moves at the HBM efficiency.  The profiler reruns a kernel on
 *   the same tensors, and in serving a kernel reads what the previous one
 *   just wrote: either way a small tensor sits in L2 (the H100's norms
 *   reach 1.65 TB/s at 33 MB and fall to 1.1 TB/s beyond 75 MB).
 *
 * All-reduce follows the measured NCCL curve of the GPU's machine when the
 * catalog has one (Vidur's all_reduce.csv on DGX A100 and H100):
 * piecewise log-log in bytes between the curve's powers of two, linear in
 * the GPU count between 2, 4 and 8.  Below the first size the first point
 * holds (latency-bound); above the last, the time grows in proportion to
 * the bytes (bandwidth-bound).  Without a curve it is the bandwidth-optimal
 * ring of Patarasuk and Yuan: 2(n-1)/n bytes / link + 2(n-1) latencies. */
#include "llmops.h"

#include <math.h>

static const char *const op_names[GS_OP_N] = {
    "emb", "input_layernorm", "attn_pre_proj", "attn_rope",
    "attn_post_proj", "post_attention_layernorm", "mlp_up_proj", "mlp_act",
    "mlp_down_proj", "add",
};

const char *gs_llm_op_name(int op)
{
    return op >= 0 && op < GS_OP_N ? op_names[op] : NULL;
}

void gs_llm_shape_from_arch(const struct gs_llm_arch *a, int tp,
                            struct gs_llm_shape *s)
{
    *s = (struct gs_llm_shape){
        .heads = a->heads, .kv_heads = a->kv_heads, .hidden = a->hidden,
        .ffn = a->ffn, .vocab = a->vocab, .gated = a->gated, .tp = tp,
        .layernorm = a->layernorm, .no_rotary = a->no_rotary,
    };
}

/* Query and KV heads on one GPU. */
static void heads_per_gpu(const struct gs_llm_shape *s, double *hq,
                          double *hkv)
{
    double t = s->tp;
    *hq = s->heads / t;
    *hkv = s->kv_heads >= s->tp ? s->kv_heads / t : 1.0;
}

int gs_llm_op_gemm(const struct gs_llm_shape *s, int op, double *k,
                   double *n)
{
    double d = s->hidden, hd = d / s->heads, t = s->tp, hq, hkv;
    heads_per_gpu(s, &hq, &hkv);
    switch (op) {
    case GS_OP_ATTN_PRE:
        *k = d;
        *n = (hq + 2 * hkv) * hd;
        return 1;
    case GS_OP_ATTN_POST:
        *k = hq * hd;
        *n = d;
        return 1;
    case GS_OP_MLP_UP:
        *k = d;
        *n = (s->gated ? 2.0 : 1.0) * s->ffn / t;
        return 1;
    case GS_OP_MLP_DOWN:
        *k = s->ffn / t;
        *n = d;
        return 1;
    default:
        return 0;
    }
}

int gs_llm_op_elem(const struct gs_llm_shape *s, int op, double tokens,
                   double *bytes)
{
    const double b = 2.0;       /* BF16 activations */
    double d = s->hidden, hd = d / s->heads, f = s->ffn / (double)s->tp;
    double hq, hkv;
    heads_per_gpu(s, &hq, &hkv);
    switch (op) {
    case GS_OP_INPUT_NORM:
    case GS_OP_POST_NORM:
        *bytes = b * 2 * tokens * d;
        return GS_EK_NORM;
    case GS_OP_ROPE:     /* none without rotary positions (ALiBi) */
        *bytes = s->no_rotary ? 0 : b * 2 * tokens * (hq + hkv) * hd;
        return GS_EK_ROPE;
    case GS_OP_ACT:
        *bytes = b * (s->gated ? 3.0 : 2.0) * tokens * f;
        return GS_EK_ACT;
    case GS_OP_ADD:
        *bytes = b * 3 * tokens * d;
        return GS_EK_ADD;
    case GS_OP_EMB:
        *bytes = b * 2 * tokens * d;
        return GS_EK_EMB;
    default:
        *bytes = 0;
        return -1;
    }
}

/* w of `groups` outputs of m x n, one kernel, cut into tiles tn wide
 * (see the essay). */
static double tile_wave(double m, double n, int sms, double tn,
                        double groups)
{
    double tm = 16;
    while (tm < 128 && tm < m)
        tm *= 2;
    double rows = ceil(m / tm), cols = ceil(n / tn);
    double fill = m * n / (rows * tm * cols * tn);
    if (sms <= 0)
        return fill;
    double tiles = rows * cols * groups, waves = ceil(tiles / sms);
    return fill * tiles / (waves * sms);
}

double gs_llm_gemm_wave(double m, double n, int sms)
{
    if (m <= 0 || n <= 0)
        return 1;
    /* counting waves, tiles 64 wide: never fewer busy SMs than 128 */
    return tile_wave(m, n, sms, sms > 0 ? 64 : 128, 1);
}

double gs_llm_gemm_time(const struct gs_llm_hw *hw, double m, double k,
                        double n)
{
    return gs_llm_gemm_time_w(hw, m, k, n, 2.0);
}

double gs_llm_gemm_time_w(const struct gs_llm_hw *hw, double m, double k,
                          double n, double wbytes)
{
    return gs_llm_gemm_group_time(hw, m, k, n, wbytes, 1);
}

double gs_llm_gemm_group_time(const struct gs_llm_hw *hw, double m, double k,
                              double n, double wbytes, double groups)
{
    if (m <= 0 || groups <= 0)
        return 0;
    const struct gs_gpu_llm *e = &hw->eff;
    int sms = e->gemm_waves ? e->sms : 0;
    double w = tile_wave(m, n, sms, sms > 0 ? 64 : 128, groups);
    double tc = groups * 2 * m * (k + e->gemm_k0) * n
                / (hw->tflops * 1e12 * e->compute_eff * w);
    double tmem = groups * (2 * (m * k + m * n) + wbytes * k * n)
                  / (hw->bw_gbs * 1e9 * e->bw_eff);
    return (tc > tmem ? tc : tmem) + e->gemm_us * 1e-6;
}

/* Tokens per wave of a per-token kernel: two blocks per SM. */
#define ROW_BLOCKS_PER_SM 2

int gs_llm_elem_per_token(int kind)
{
    return kind == GS_EK_NORM || kind == GS_EK_ACT;
}

double gs_llm_l2_share(double bytes, double l2_mb)
{
    if (!(l2_mb > 0) || !(bytes > 0))
        return 0;
    double h = 1.5 - bytes / (l2_mb * 1e6);
    return h < 0 ? 0 : h > 1 ? 1 : h;
}

double gs_llm_elem_time(const struct gs_llm_hw *hw, int kind, double bytes,
                        double tokens)
{
    if (kind < 0 || kind >= GS_EK_N || bytes <= 0)
        return 0;
    const struct gs_gpu_llm *e = &hw->eff;
    double pad = 1, waves = 0;
    if (gs_llm_elem_per_token(kind) && e->sms > 0 && tokens > 0) {
        double per = ROW_BLOCKS_PER_SM * (double)e->sms;
        waves = ceil(tokens / per);
        pad = waves * per / tokens;
    }
    double h = gs_llm_l2_share(bytes, e->l2_mb);
    double l2 = e->elem_l2[kind] > 0 ? e->elem_l2[kind] : e->elem_eff[kind];
    double inv = h / l2 + (1 - h) / e->elem_eff[kind];
    return (e->elem_us[kind] + waves * e->elem_wave_us) * 1e-6
           + pad * bytes * inv / (hw->bw_gbs * 1e9);
}

double gs_llm_op_elem_time(const struct gs_llm_hw *hw,
                           const struct gs_llm_shape *s, int op, double tokens)
{
    double bytes;
    int kind = gs_llm_op_elem(s, op, tokens, &bytes);
    /* a parallel block's residual: input + attention + MLP, two adds */
    int adds = op == GS_OP_ADD && s->parallel ? 2 : 1;
    /* a plain MLP's activation maps each element on its own (no block
     * per token): no waves */
    double rows = op == GS_OP_ACT && !s->gated ? 0 : tokens;
    if ((op == GS_OP_INPUT_NORM || op == GS_OP_POST_NORM) && s->layernorm) {
        /* a LayerNorm: no waves of two tokens per SM, the norm kind's
         * rates, and at least the norm's one wave */
        double one, flat = gs_llm_elem_time(hw, kind, bytes, 0);
        gs_llm_op_elem(s, op, 1, &one);
        one = gs_llm_elem_time(hw, kind, one, 1);
        return flat > one ? flat : one;
    }
    return adds * gs_llm_elem_time(hw, kind, bytes, rows);
}

double gs_llm_op_time(const struct gs_llm_hw *hw, const struct gs_llm_shape *s,
                      int op, double tokens)
{
    double k, n;
    if (gs_llm_op_gemm(s, op, &k, &n))
        return gs_llm_gemm_time(hw, tokens, k, n);
    return gs_llm_op_elem_time(hw, s, op, tokens);
}

/* The measured curve of `col` (workers 2, 4, 8 = 0, 1, 2) at bytes, us;
 * < 0 when that count was not measured. */
static double curve_at(const struct gs_ar_curve *c, int col, double bytes)
{
    const double *u = c->us[col];
    if (!(u[0] > 0))
        return -1;
    double x = log2(bytes) - 11;
    if (x <= 0)
        return u[0];
    int last = GS_AR_POINTS - 1;
    while (last > 0 && !(u[last] > 0))
        last--;
    if (x >= last)
        return u[last] * exp2(x - last);
    int i = (int)x;
    double f = x - i;
    return exp(log(u[i]) * (1 - f) + log(u[i + 1]) * f);
}

static double ring(double bytes, int n, double link_gbs, double link_us)
{
    double steps = 2.0 * (n - 1);
    return steps / n * bytes / (link_gbs * 1e9) + steps * link_us * 1e-6;
}

double gs_llm_allreduce_time(const struct gs_gpu_llm *e, double bytes,
                             int workers)
{
    if (workers <= 1 || bytes <= 0)
        return 0;
    const struct gs_ar_curve *c = e->ar;
    if (!c)
        return ring(bytes, workers, e->link_gbs, e->link_us);
    static const int wk[GS_AR_WORKERS] = { 2, 4, 8 };
    int lo = -1, hi = -1;
    for (int i = 0; i < GS_AR_WORKERS; i++) {
        if (curve_at(c, i, bytes) < 0)
            continue;
        if (wk[i] <= workers)
            lo = i;
        if (wk[i] >= workers && hi < 0)
            hi = i;
    }
    if (lo < 0 && hi < 0)
        return ring(bytes, workers, e->link_gbs, e->link_us);
    if (lo < 0 || hi < 0) {
        /* beyond the measured counts: the nearest, scaled by the ring's
         * bytes per GPU 2(n-1)/n */
        int i = lo >= 0 ? lo : hi;
        double n = workers, m = wk[i];
        return 1e-6 * curve_at(c, i, bytes) * ((n - 1) / n) / ((m - 1) / m);
    }
    double a = curve_at(c, lo, bytes), b = curve_at(c, hi, bytes);
    /* more GPUs never finish the same all-reduce sooner (the ring's
     * bytes and steps grow with n): a count measured slower than a larger
     * one is held to that one's time */
    for (int i = hi + 1; i < GS_AR_WORKERS; i++) {
        double x = curve_at(c, i, bytes);
        if (x >= 0 && x < b)
            b = x;
    }
    if (b < a)
        a = b;
    if (lo == hi)
        return 1e-6 * a;
    double f = (double)(workers - wk[lo]) / (wk[hi] - wk[lo]);
    return 1e-6 * (a * (1 - f) + b * f);
}
