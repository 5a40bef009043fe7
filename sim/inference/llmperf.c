/* llmperf.c -- the iteration time of an LLM serving engine: the sum of a layer's operators.
 *
 * One iteration runs every layer once over all the tokens it batches
 * (prefill chunks and one token per running decode), then the LM head over
 * the sequences that emit a token.  A layer is the operators of llmops.c,
 * each timed from its shape on one GPU of the tensor-parallel group of
 * degree t: two norms, the QKV projection, rotary embedding, attention,
 * the output projection, the MLP's up (and gate) projection, activation
 * and down projection, two residual adds, and two all-reduces of the
 * T x d activations (after the output and the down projections,
 * Megatron-LM's split) from the measured curve; a LayerNorm block with
 * biases (BLOOM's) adds the two row-parallel projections' biases after
 * their all-reduces, two more elementwise kernels of T x d.  A mixture of experts
 * runs the GEMMs of the experts the batch reaches, each over its share of
 * the routed tokens, and reads only their weights, plus the router's
 * GEMM: T tokens that each pick k of E experts reach, routed uniformly,
 * x = E (1 - (1 - k/E)^T) of them on average (k for one token, all E for
 * a large batch), each over T k / x tokens (gs_llm_experts_hit), as one
 * grouped kernel for the up (and gate) projections and one for the down
 * (vLLM's fused MoE kernel): the experts' tiles share the waves and pay
 * one kernel's fixed cost (a launch per expert put a 128-token prompt of
 * a 60-expert model at 4 decode steps on the H100).  Reading
 * every expert's weights for any batch, as the model did before, made a
 * one-sequence decode step of a top-2-of-8 model read 4x the expert bytes
 * it needs (tests/test_llmunseen.c bounds it).  Routing imbalance is not
 * modeled: skewed routing reaches fewer experts, so x is the most a
 * batch reaches on average.
 *
 * Attention is not in the kernel profiles; it is two kernels of its own,
 * each bound by compute or by memory (the roofline):
 *   prefill  max(4 (d/t) Q / (F ae),  K Cp / (B abe))
 *   decode   max(4 (d/t) Cd / (F ae), K Cd / (B abe))
 * with Q the query-key pairs of the prefill chunks (a chunk of c tokens
 * after k cached ones has c (k + (c + 1) / 2): the quadratic term), Cp and
 * Cd the tokens whose K and V the prefill chunks and the decodes read, K
 * the KV bytes of one token of one layer on this GPU; abe is fitted to
 * Splitwise's prompt and token times (llmcalib.c; ae is set from the GEMMs'
 * compute efficiency there), with the serving stack's costs: the host's
 * time to issue a layer, which follows the layer's kernel count
 * (gs_llm_layer_kernels) and overlaps the GPU's only partly (a layer takes
 * the soft maximum of the two, gs_llm_overlap), per sequence per layer
 * (block tables, per-sequence attention work: measured decode steps slow
 * down with the batch before the roofline says so), per iteration, the
 * host's extra work per layer in an iteration that prefills (it adds to
 * the GPU's time even where the GPU is the bottleneck: Splitwise's
 * 512-token prompts of Llama-2-70B take the GEMMs' time plus about the
 * decode step's host floor at TP 2, 4 and 8 alike), and the stack's extra
 * pass over all-reduces of at least 64 MiB (ar_big).
 *
 * Everything depends on the batch only through sums (tokens, pairs,
 * contexts, sequences), which is what lets the engine keep its decode state
 * aggregated. */
#include "llmops.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void gs_llm_hw_from_catalog(const struct gs_catalog *c, int model,
                            struct gs_llm_hw *hw)
{
    const struct gs_gpu_model *m = &c->m[model];
    hw->tflops = m->tflops;
    hw->bw_gbs = m->bw_gbs;
    hw->mem_gb = m->mem_gb;
    hw->eff = c->llm[model];
    gs_gpu_llm_fill_defaults(&hw->eff);
}

void gs_llm_hw_share(struct gs_llm_hw *hw, double share, double mem_gb)
{
    hw->tflops *= share;
    hw->bw_gbs *= share;
    hw->mem_gb = mem_gb;
    /* a slice has its share of the SMs and of the L2 */
    if (hw->eff.sms > 0) {
        double sms = floor(hw->eff.sms * share + 0.5);
        hw->eff.sms = sms < 1 ? 1 : (int)sms;
    }
    hw->eff.l2_mb *= share;
}

int gs_llm_perf_init(struct gs_llm_perf *p, const struct gs_llm_arch *a,
                     const struct gs_llm_hw *hw, int tp, struct gs_diag *d)
{
    int rc = gs_llm_arch_check(a, a->name, d);
    if (rc)
        return rc;
    if (tp < 1 || tp > 64)
        return gs_diag_set(d, GS_EINVAL, a->name,
                           "tensor parallel degree must be in 1..64, not %d",
                           tp);
    const struct gs_gpu_llm *e = &hw->eff;
    int elem_ok = 1;
    for (int k = 0; k < GS_EK_N; k++)
        elem_ok &= e->elem_eff[k] > 0 && e->elem_us[k] >= 0;
    if (!(hw->tflops > 0 && hw->bw_gbs > 0 && e->compute_eff > 0
          && e->bw_eff > 0 && e->attn_eff > 0 && e->attn_bw_eff > 0
          && elem_ok && e->gemm_us >= 0 && e->layer_us >= 0
          && e->iter_ms >= 0 && e->link_us >= 0 && e->seq_us >= 0
          && e->prefill_us >= 0 && e->ar_big_gbs >= 0
          && (tp == 1 || e->ar || e->link_gbs > 0)))
        return gs_diag_set(d, GS_EINVAL, a->name,
                           "GPU figures and efficiency factors must be > 0");
    double t = tp, dm = a->hidden, hd = dm / a->heads;
    double kv_heads_gpu = a->kv_heads >= tp ? a->kv_heads / t : 1.0;
    double kvb = a->kv_bytes > 0 ? a->kv_bytes : a->bytes_per_param;

    memset(p, 0, sizeof *p);
    p->tp = tp;
    p->layers = a->layers;
    p->experts = a->experts;
    p->active = a->active_experts;
    p->hw = *hw;
    gs_llm_shape_from_arch(a, tp, &p->shape);
    p->attn_flops_pair = 4 * dm / t;
    p->kv_bytes_tok = 2 * kv_heads_gpu * hd * kvb;
    p->ar_bytes_tok = 2.0 * dm;     /* BF16 activations */
    p->head_n = (double)a->vocab / t;
    p->wbytes = a->bytes_per_param;
    double kernels = gs_llm_layer_kernels(a) / (double)GS_LLM_REF_KERNELS;
    p->host_layer_s = e->layer_us * 1e-6 * kernels;
    p->host_prefill_s = e->prefill_us * 1e-6 * kernels;
    return 0;
}

static double roof(double flops, double peak, double bytes, double bw)
{
    double c = flops / peak, m = bytes / bw;
    return c > m ? c : m;
}

/* A GEMM of the layer over m tokens, the weights read at their size, run
 * for `groups` experts as one grouped kernel. */
static double gemm_g(const struct gs_llm_perf *p, int op, double m,
                     double groups)
{
    double k, n;
    gs_llm_op_gemm(&p->shape, op, &k, &n);
    return gs_llm_gemm_group_time(&p->hw, m, k, n, p->wbytes, groups);
}

static double gemm(const struct gs_llm_perf *p, int op, double m)
{
    return gemm_g(p, op, m, 1);
}

double gs_llm_experts_hit(int experts, int active, double tok)
{
    if (experts <= 1)
        return 1;
    if (!(tok > 0))
        return 0;
    return experts * -expm1(tok * log1p(-(double)active / experts));
}

/* The MLP of one layer over tok tokens (dense, or experts: the experts
 * the batch reaches, each over its share of the routed tokens). */
static double mlp(const struct gs_llm_perf *p, double tok)
{
    double t = 0;
    if (p->experts > 1) {
        double x = gs_llm_experts_hit(p->experts, p->active, tok);
        double m = tok * p->active / x;
        t = gemm_g(p, GS_OP_MLP_UP, m, x) + gemm_g(p, GS_OP_MLP_DOWN, m, x)
            + gs_llm_gemm_time(&p->hw, tok, p->shape.hidden, p->experts);
        tok *= p->active;
    } else
        t = gemm(p, GS_OP_MLP_UP, tok) + gemm(p, GS_OP_MLP_DOWN, tok);
    return t + gs_llm_op_elem_time(&p->hw, &p->shape, GS_OP_ACT, tok);
}

static double elem(const struct gs_llm_perf *p, int op, double tok)
{
    return gs_llm_op_elem_time(&p->hw, &p->shape, op, tok);
}

/* What the serving stack's two all-reduces of tok tokens take beyond the
 * curve: nothing below GS_AR_BIG_BYTES, then a pass over the ring's bytes
 * per GPU at ar_big_gbs (Splitwise's cost per prompt token steps up there,
 * by d x 2(n-1)/n, for both LLMs on both machines). */
static double ar_big(const struct gs_llm_perf *p, double tok)
{
    double bytes = p->ar_bytes_tok * tok, n = p->tp;
    double bw = p->hw.eff.ar_big_gbs;
    if (p->tp < 2 || !(bw > 0) || bytes < GS_AR_BIG_BYTES)
        return 0;
    return 2 * bytes * 2 * (n - 1) / n / (bw * 1e9);
}

/* The bytes of a block's two row-parallel bias adds (a LayerNorm block
 * with biases: BLOOM's, GPT's) over tok tokens: each reads and writes
 * tok x d after its all-reduce (the kernels gs_llm_layer_kernels counts);
 * 0 for a block without biases. */
static double bias_bytes(const struct gs_llm_perf *p, double tok)
{
    return p->shape.layernorm ? 2.0 * 2 * tok * p->shape.hidden : 0;
}

/* One layer's operators over tok tokens, attention and fixed costs aside. */
static double layer_ops(const struct gs_llm_perf *p, double tok)
{
    double bias = bias_bytes(p, tok) > 0
        ? 2 * gs_llm_elem_time(&p->hw, GS_EK_ADD, bias_bytes(p, tok), tok)
        : 0;
    return 2 * elem(p, GS_OP_INPUT_NORM, tok) + gemm(p, GS_OP_ATTN_PRE, tok)
           + elem(p, GS_OP_ROPE, tok) + gemm(p, GS_OP_ATTN_POST, tok)
           + mlp(p, tok) + 2 * elem(p, GS_OP_ADD, tok) + bias
           + 2 * gs_llm_allreduce_time(&p->hw.eff, p->ar_bytes_tok * tok,
                                       p->tp) + ar_big(p, tok);
}

/* The LM head over n sampled sequences: its time and its work. */
static void head_cost(const struct gs_llm_perf *p, double n,
                      struct gs_llm_memo_head *h)
{
    double m = n, k = p->shape.hidden, nn = p->head_n, wb = p->wbytes;
    h->n = n;
    h->t = n > 0 ? gs_llm_gemm_time_w(&p->hw, n, k, nn, wb) : 0;
    h->f = 2 * m * k * nn;
    h->b = 2 * (m * k + m * nn) + wb * k * nn;
}

/* One layer's time from its GPU time and its host's: their soft maximum
 * (gpu^3 + host^3)^(1/3).  The hard maximum says the host's launches hide
 * entirely under the GPU's kernels or the kernels under the launches; they
 * overlap only partly (a layer's small kernels drain the launch queue and
 * its long ones let it fill), least where the two are equal (2^(1/3) =
 * 1.26 times either).  The exponent 3 is the one constant: Splitwise's
 * held-out medians stay within 9% for any exponent from 2 to 5, the hard
 * maximum misses (docs/inference.md, "Where it is weak"). */
double gs_llm_overlap(double gpu, double host)
{
    if (!(host > 0))
        return gpu;
    return cbrt(gpu * gpu * gpu + host * host * host);
}

/* The iteration's seconds from its token-count terms c and its head h. */
static double time_of(const struct gs_llm_perf *p, const struct gs_llm_batch *b,
                      const struct gs_llm_memo_tok *c,
                      const struct gs_llm_memo_head *h)
{
    const struct gs_gpu_llm *e = &p->hw.eff;
    double F = p->hw.tflops * 1e12, B = p->hw.bw_gbs * 1e9;
    double att = 0;
    if (b->prefill_tokens > 0)
        att += roof(p->attn_flops_pair * b->prefill_attn, F * e->attn_eff,
                    p->kv_bytes_tok * b->prefill_ctx, B * e->attn_bw_eff);
    if (b->decode_tokens > 0)
        att += roof(p->attn_flops_pair * b->decode_ctx, F * e->attn_eff,
                    p->kv_bytes_tok * b->decode_ctx, B * e->attn_bw_eff);
    /* the host issues a layer's kernels in host_layer_s while the GPU runs
     * them (gs_llm_overlap); an iteration that prefills costs the host
     * host_prefill_s more per layer, which the GPU does not hide */
    double layer = gs_llm_overlap(c->layer + att, p->host_layer_s)
                   + e->seq_us * 1e-6 * b->seqs
                   + (b->prefill_tokens > 0 ? p->host_prefill_s : 0);
    double head = b->sampled > 0 ? h->t : 0;
    return p->layers * layer + c->emb + c->norm + head + e->iter_ms * 1e-3;
}

double gs_llm_perf_time(const struct gs_llm_perf *p,
                        const struct gs_llm_batch *b)
{
    double tok = b->prefill_tokens + b->decode_tokens;
    if (tok <= 0)
        return 0;
    struct gs_llm_memo_tok c = {
        .layer = layer_ops(p, tok),
        .emb = elem(p, GS_OP_EMB, tok),
        .norm = elem(p, GS_OP_INPUT_NORM, tok),
    };
    struct gs_llm_memo_head h = { .t = 0 };
    if (b->sampled > 0)
        h.t = gs_llm_gemm_time_w(&p->hw, b->sampled, p->shape.hidden,
                                 p->head_n, p->wbytes);
    return time_of(p, b, &c, &h);
}

/* The FLOPs and bytes of a GEMM of m x k x n with wb-byte weights. */
static void gemm_work(double m, double k, double n, double wb,
                      struct gs_llm_work *w)
{
    w->flops += 2 * m * k * n;
    w->bytes += 2 * (m * k + m * n) + wb * k * n;
}

static void op_work(const struct gs_llm_perf *p, int op, double m,
                    struct gs_llm_work *w)
{
    double k, n, bytes;
    if (gs_llm_op_gemm(&p->shape, op, &k, &n))
        gemm_work(m, k, n, p->wbytes, w);
    else if (gs_llm_op_elem(&p->shape, op, m, &bytes) >= 0)
        w->bytes += bytes;
}

/* The work of one layer's operators over tok tokens, attention aside. */
static void layer_work(const struct gs_llm_perf *p, double tok,
                       struct gs_llm_work *out)
{
    struct gs_llm_work w = { 0, 0 };
    op_work(p, GS_OP_INPUT_NORM, 2 * tok, &w);
    op_work(p, GS_OP_ATTN_PRE, tok, &w);
    op_work(p, GS_OP_ROPE, tok, &w);
    op_work(p, GS_OP_ATTN_POST, tok, &w);
    if (p->experts > 1) {
        double x = gs_llm_experts_hit(p->experts, p->active, tok);
        double m = tok * p->active / x;
        struct gs_llm_work e = { 0, 0 };
        op_work(p, GS_OP_MLP_UP, m, &e);
        op_work(p, GS_OP_MLP_DOWN, m, &e);
        w.flops += x * e.flops;
        w.bytes += x * e.bytes;
        gemm_work(tok, p->shape.hidden, p->experts, 2, &w);
        op_work(p, GS_OP_ACT, tok * p->active, &w);
    } else {
        op_work(p, GS_OP_MLP_UP, tok, &w);
        op_work(p, GS_OP_MLP_DOWN, tok, &w);
        op_work(p, GS_OP_ACT, tok, &w);
    }
    op_work(p, GS_OP_ADD, 2 * tok, &w);
    w.bytes += 2 * bias_bytes(p, tok);
    *out = w;
}

/* The iteration's work from its token-count terms c and its head h. */
static void work_of(const struct gs_llm_perf *p, const struct gs_llm_batch *b,
                    const struct gs_llm_memo_tok *c,
                    const struct gs_llm_memo_head *h, struct gs_llm_work *out)
{
    struct gs_llm_work w = { c->wf, c->wb };
    w.flops += p->attn_flops_pair * (b->prefill_attn + b->decode_ctx);
    w.bytes += p->kv_bytes_tok * (b->prefill_ctx + b->decode_ctx);
    w.flops *= p->layers;
    w.bytes *= p->layers;
    w.bytes += c->emb_b;
    w.bytes += c->norm_b;
    if (b->sampled > 0) {
        w.flops += h->f;
        w.bytes += h->b;
    }
    *out = w;
}

/* Fill c with every term of a tok-token iteration that depends on tok. */
static void tok_cost(const struct gs_llm_perf *p, double tok,
                     struct gs_llm_memo_tok *c)
{
    struct gs_llm_work w;
    c->tok = tok;
    c->layer = layer_ops(p, tok);
    c->emb = elem(p, GS_OP_EMB, tok);
    c->norm = elem(p, GS_OP_INPUT_NORM, tok);
    layer_work(p, tok, &w);
    c->wf = w.flops;
    c->wb = w.bytes;
    gs_llm_op_elem(&p->shape, GS_OP_EMB, tok, &c->emb_b);
    gs_llm_op_elem(&p->shape, GS_OP_INPUT_NORM, tok, &c->norm_b);
}

void gs_llm_perf_work(const struct gs_llm_perf *p,
                      const struct gs_llm_batch *b, struct gs_llm_work *out)
{
    double tok = b->prefill_tokens + b->decode_tokens;
    struct gs_llm_work w = { 0, 0 };
    if (tok > 0) {
        struct gs_llm_memo_tok c;
        struct gs_llm_memo_head h;
        tok_cost(p, tok, &c);
        head_cost(p, b->sampled, &h);
        work_of(p, b, &c, &h, &w);
    }
    *out = w;
}

static void util_of(const struct gs_llm_perf *p, const struct gs_llm_work *w,
                    double dur, double *uc, double *um)
{
    *uc = *um = 0;
    if (!(dur > 0))
        return;
    /* fmin(1, x) for the x there are (>= 0, or NaN: 1), without a call
     * per iteration */
    double c = w->flops / (p->hw.tflops * 1e12 * dur);
    double m = w->bytes / (p->hw.bw_gbs * 1e9 * dur);
    *uc = c < 1.0 ? c : 1.0;
    *um = m < 1.0 ? m : 1.0;
}

void gs_llm_perf_util(const struct gs_llm_perf *p, const struct gs_llm_batch *b,
                      double dur, double *uc, double *um)
{
    struct gs_llm_work w;
    *uc = *um = 0;
    if (!(dur > 0))
        return;
    gs_llm_perf_work(p, b, &w);
    util_of(p, &w, dur, uc, um);
}

/* The least power of two >= n and >= GS_LLM_MEMO (n capped at 2^20). */
static unsigned long memo_slots(int n)
{
    unsigned long k = GS_LLM_MEMO;
    while (k < (unsigned long)n && k < 1UL << 20)
        k *= 2;
    return k;
}

struct gs_llm_memo *gs_llm_memo_get(struct gs_llm_memo *like,
                                    const struct gs_llm_perf *p,
                                    int max_tokens, int max_seqs)
{
    unsigned long nt = memo_slots(max_tokens), nh = memo_slots(max_seqs);
    /* equal bytes are equal figures (padding that differed would only
     * keep two memos apart) */
    if (like && like->ntok == nt && like->nhead == nh
        && memcmp(&like->perf, p, sizeof *p) == 0) {
        like->refs++;
        return like;
    }
    struct gs_llm_memo *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->perf = *p;
    m->ntok = nt;
    m->nhead = nh;
    m->refs = 1;
    /* one zeroed block (calloc: a large one is mapped, its pages touched
     * only as counts come), the tables on cache lines: a lookup reads one */
    size_t bt = nt * sizeof *m->tok, bh = nh * sizeof *m->head;
    m->raw = calloc(1, bt + bh + 64);
    if (m->raw == NULL) {
        free(m);
        return NULL;
    }
    uintptr_t a = ((uintptr_t)m->raw + 63) & ~(uintptr_t)63;
    m->tok = (struct gs_llm_memo_tok *)a;
    m->head = (struct gs_llm_memo_head *)(a + bt);
    return m;
}

void gs_llm_memo_free(struct gs_llm_memo *m)
{
    if (m == NULL || --m->refs > 0)
        return;
    free(m->raw);
    free(m);
}

double gs_llm_perf_step(const struct gs_llm_perf *p, struct gs_llm_memo *m,
                        const struct gs_llm_batch *b, double *uc, double *um)
{
    double tok = b->prefill_tokens + b->decode_tokens;
    *uc = *um = 0;
    if (tok <= 0)
        return 0;
    struct gs_llm_memo_tok *c = &m->tok[(unsigned long)tok & (m->ntok - 1)];
    if (c->tok != tok)
        tok_cost(p, tok, c);
    struct gs_llm_memo_head hz = { .t = 0 }, *h = &hz;
    if (b->sampled > 0) {
        h = &m->head[(unsigned long)b->sampled & (m->nhead - 1)];
        if (h->n != b->sampled)
            head_cost(p, b->sampled, h);
    }
    double dur = time_of(p, b, c, h);
    struct gs_llm_work w;
    work_of(p, b, c, h, &w);
    util_of(p, &w, dur, uc, um);
    return dur;
}

double gs_llm_perf_prefill(const struct gs_llm_perf *p, double batch,
                           double prompt)
{
    struct gs_llm_batch b = {
        .prefill_tokens = batch * prompt,
        .prefill_attn = batch * prompt * (prompt + 1) / 2,
        .prefill_ctx = batch * prompt,
        .sampled = batch,
        .seqs = batch,
    };
    return gs_llm_perf_time(p, &b);
}

double gs_llm_perf_decode(const struct gs_llm_perf *p, double batch,
                          double ctx)
{
    struct gs_llm_batch b = {
        .decode_tokens = batch,
        .decode_ctx = batch * (ctx + 1),   /* the new token's KV too */
        .sampled = batch,
        .seqs = batch,
    };
    return gs_llm_perf_time(p, &b);
}

double gs_llm_perf_ttft(const struct gs_llm_perf *p, int prompt, int cached,
                        int budget)
{
    double t = 0, k = cached < prompt ? cached : prompt - 1;
    if (k < 0)
        k = 0;
    for (double left = prompt - k; left > 0;) {
        double c = budget > 0 && left > budget ? budget : left;
        struct gs_llm_batch b = {
            .prefill_tokens = c,
            .prefill_attn = c * (k + (c + 1) / 2),
            .prefill_ctx = k + c,
            .sampled = c == left,
            .seqs = 1,
        };
        t += gs_llm_perf_time(p, &b);
        k += c;
        left -= c;
    }
    return t;
}
