/* llmperf.c -- the iteration time of an LLM serving engine: a per-layer roofline.
 *
 * One iteration runs every layer once over all the tokens it batches (prefill
 * chunks and one token per running decode).  Each layer is two kinds of
 * kernels, each bound by compute or by memory (Williams et al.'s roofline,
 * as Vidur and LLMCompass apply it to LLM inference):
 *
 *   linear  max(2 * P_active * T / (F * ce),  (W + A * T) / (B * be))
 *   attn    max(4 * d * Q / (F * ae),         K * C / (B * be))
 *
 * per GPU of a tensor-parallel group of degree t: P_active and W the layer's
 * active parameters and weight bytes over t (a mixture of experts computes
 * with its top-k experts but reads all of them), T the batch's tokens, A the
 * activation bytes one token moves, Q the query-key pairs (a prefill chunk of
 * c tokens after k cached ones has c * (k + (c + 1) / 2): the quadratic
 * term; a decode token has its context), C the tokens whose K and V are read
 * and K the KV bytes of one token on this GPU.  F and B are the datasheet
 * peaks; ce, be and ae the efficiencies fitted per GPU model (llmcalib.c),
 * attention separately because its kernels reach a smaller share of peak
 * than GEMMs do.  Each layer adds two ring all-reduces of the T x d
 * activations: 2 (t - 1) / t * bytes / link + 2 (t - 1) * link latency
 * (Patarasuk and Yuan's bandwidth-optimal ring), and a fixed per-layer cost
 * (kernel launches).  The iteration adds the LM head over the sequences that
 * emit a token and a fixed per-iteration cost; each layer also pays a cost
 * per sequence in the batch (per-sequence attention work and block-table
 * handling: measured decode steps slow down with the batch well before the
 * roofline says they should).  The all-reduce bandwidth is fitted too where measurements
 * exist: what NCCL achieves is well below NVLink's datasheet figure.
 *
 * Everything depends on the batch only through sums (tokens, pairs, context),
 * which is what lets the engine keep its decode state aggregated. */
#include "llm.h"

#include <math.h>

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
    if (!(hw->tflops > 0 && hw->bw_gbs > 0 && e->compute_eff > 0
          && e->bw_eff > 0 && e->attn_eff > 0 && e->layer_us >= 0
          && e->iter_ms >= 0 && e->link_us >= 0
          && (tp == 1 || e->link_gbs > 0)))
        return gs_diag_set(d, GS_EINVAL, a->name,
                           "GPU figures and efficiency factors must be > 0");
    double t = tp, dm = a->hidden, hd = dm / a->heads;
    double kvd = a->kv_heads * hd;
    double kv_heads_gpu = a->kv_heads >= tp ? a->kv_heads / t : 1.0;
    double expert = (a->gated ? 3.0 : 2.0) * dm * a->ffn;
    double router = a->experts > 1 ? dm * a->experts : 0;
    double attn = 2 * dm * dm + 2 * dm * kvd;
    double kvb = a->kv_bytes > 0 ? a->kv_bytes : a->bytes_per_param;
    const double act = 2.0;     /* activations in BF16 */

    p->tp = tp;
    p->layers = a->layers;
    p->peak_flops = hw->tflops * 1e12;
    p->bw = hw->bw_gbs * 1e9;
    p->link_bw = e->link_gbs * 1e9;
    p->link_lat = e->link_us * 1e-6;
    p->ce = e->compute_eff;
    p->be = e->bw_eff;
    p->ae = e->attn_eff;
    p->layer_s = e->layer_us * 1e-6;
    p->iter_s = e->iter_ms * 1e-3;
    p->seq_s = e->seq_us * 1e-6;
    p->lin_flops_tok = 2 * (attn + a->active_experts * expert + router) / t;
    p->attn_flops_pair = 4 * dm / t;
    p->w_bytes_layer = (attn + a->experts * expert + router)
                       * a->bytes_per_param / t;
    p->kv_bytes_tok = 2 * kv_heads_gpu * hd * kvb;
    /* Each matmul's input read and output written once: the residual
     * stream, QKV, attention output, FFN up/gate and down. */
    p->act_bytes_tok = act * (4 * dm + (dm + 2 * kvd) / t
                              + (a->gated ? 3.0 : 2.0) * a->active_experts
                                * a->ffn / t);
    p->ar_bytes_tok = act * dm;
    p->head_flops_row = 2.0 * a->vocab * dm / t;
    p->head_bytes = (double)a->vocab * dm * a->bytes_per_param / t;
    return 0;
}

static double roof(double flops, double peak, double bytes, double bw)
{
    double c = flops / peak, m = bytes / bw;
    return c > m ? c : m;
}

double gs_llm_perf_time(const struct gs_llm_perf *p,
                        const struct gs_llm_batch *b)
{
    double tok = b->prefill_tokens + b->decode_tokens;
    if (tok <= 0)
        return 0;
    double lin = roof(p->lin_flops_tok * tok, p->peak_flops * p->ce,
                      p->w_bytes_layer + p->act_bytes_tok * tok,
                      p->bw * p->be);
    double att = roof(p->attn_flops_pair * (b->prefill_attn + b->decode_ctx),
                      p->peak_flops * p->ae,
                      p->kv_bytes_tok * (b->prefill_ctx + b->decode_ctx),
                      p->bw * p->be);
    double ar = 0;
    if (p->tp > 1) {
        double steps = 2.0 * (p->tp - 1);
        ar = 2 * (steps / p->tp * p->ar_bytes_tok * tok / p->link_bw
                  + steps * p->link_lat);
    }
    double head = b->sampled > 0
        ? roof(p->head_flops_row * b->sampled, p->peak_flops * p->ce,
               p->head_bytes, p->bw * p->be)
        : 0;
    return p->layers * (lin + att + ar + p->layer_s + p->seq_s * b->seqs)
           + head + p->iter_s;
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
