/* llmarch.c -- LLM architectures: the built-in table, checks of declared ones, sizes.
 *
 * A decoder-only transformer is described by the few integers the roofline
 * needs.  Per layer it holds the attention projections Q and O (d x d each)
 * and K and V (d x kv_heads * head_dim each, smaller under grouped-query
 * attention), and an FFN of 3 matrices d x ffn (SwiGLU: gate, up, down) or
 * 2 (GELU), once per expert for a mixture of experts plus a d x experts
 * router.  The embedding and the LM head are vocab x d each, one matrix when
 * tied (BLOOM).  `layernorm` says how a layer normalizes: BLOOM's
 * LayerNorm with biases (its stack launches 15 kernels per layer) or
 * Llama's RMSNorm fused with the residual add (12); `no_rotary` says the
 * positions are not rotary (BLOOM's ALiBi biases the attention scores
 * inside the attention kernel; GPT adds learned positions at the
 * embedding): no rotary kernel runs, one kernel fewer.  The host's cost of
 * a layer follows the count (llmperf.c).
 *
 * Figures are the models' published configurations (Hugging Face
 * config.json of each checkpoint):
 *   Llama-2 7B/13B/70B (Touvron et al. 2023): 32/40/80 layers, d = 4096/
 *     5120/8192, 32/40/64 heads, 32/40/8 KV heads, FFN 11008/13824/28672,
 *     vocab 32000;
 *   Llama-3 8B/70B (Meta 2024): 32/80 layers, d = 4096/8192, 32/64 heads,
 *     8 KV heads, FFN 14336/28672, vocab 128256;
 *   BLOOM-176B (BigScience 2022): 70 layers, d = 14336, 112 heads (MHA),
 *     FFN 4d = 57344 with GELU, vocab 250880;
 *   Mixtral-8x7B (Jiang et al. 2024): 32 layers, d = 4096, 32 heads, 8 KV
 *     heads, 8 experts of FFN 14336 with top-2 routing, vocab 32000.
 * The counts give 6.7, 13.0, 69.0, 8.0, 70.6, 176 and 46.7 billion
 * parameters, the published sizes.
 *
 * KV bytes per token, all layers: layers * 2 * kv_heads * head_dim * bytes
 * (Llama-2-70B in BF16: 80 * 2 * 8 * 128 * 2 = 320 KiB), which also sets
 * the disaggregated hand-off: Splitwise moves it over the nodes' link. */
#include "llm.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct gs_llm_arch builtin[] = {
    { "llama2-7b",  32,  4096,  32,  32, 11008, 1, 1, 1,  32000, 2, 0, 0, 0, 0 },
    { "llama2-13b", 40,  5120,  40,  40, 13824, 1, 1, 1,  32000, 2, 0, 0, 0, 0 },
    { "llama2-70b", 80,  8192,  64,   8, 28672, 1, 1, 1,  32000, 2, 0, 0, 0, 0 },
    { "llama3-8b",  32,  4096,  32,   8, 14336, 1, 1, 1, 128256, 2, 0, 0, 0, 0 },
    { "llama3-70b", 80,  8192,  64,   8, 28672, 1, 1, 1, 128256, 2, 0, 0, 0, 0 },
    { "bloom-176b", 70, 14336, 112, 112, 57344, 0, 1, 1, 250880, 2, 0, 1, 1, 1 },
    { "mixtral-8x7b", 32, 4096, 32,  8, 14336, 1, 8, 2,  32000, 2, 0, 0, 0, 0 },
};
#define NBUILTIN ((int)(sizeof builtin / sizeof builtin[0]))

static const char *const names[] = {
    "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b",
    "bloom-176b", "mixtral-8x7b", NULL
};

const char *const *gs_llm_arch_names(void)
{
    return names;
}

/* Case-insensitive Levenshtein distance, for "did you mean". */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int row[64];
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int ca = a[i - 1] | 0x20, cb = b[j - 1] | 0x20;
            int best = diag + (ca != cb);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

int gs_llm_arch_find(const char *name, struct gs_llm_arch *out,
                     const char *where, struct gs_diag *d)
{
    int best = -1, bestd = 1 << 30;
    for (int i = 0; i < NBUILTIN; i++) {
        if (strcasecmp(builtin[i].name, name) == 0) {
            *out = builtin[i];
            out->kv_bytes = out->bytes_per_param;
            return 0;
        }
        int dist = edit_distance(name, builtin[i].name);
        if (dist < bestd) {
            bestd = dist;
            best = i;
        }
    }
    if (best >= 0 && bestd <= 3)
        return gs_diag_set(d, GS_ENOTFOUND, where,
                           "unknown model '%s' (did you mean '%s'?)", name,
                           builtin[best].name);
    return gs_diag_set(d, GS_ENOTFOUND, where,
                       "unknown model '%s' (built-in: llama2-7b, llama2-13b, "
                       "llama2-70b, llama3-8b, llama3-70b, bloom-176b, "
                       "mixtral-8x7b; or declare layers, hidden, heads, ...)",
                       name);
}

int gs_llm_layer_kernels(const struct gs_llm_arch *a)
{
    /* an RMSNorm block's 12 holds the rotary kernel, a LayerNorm block's
     * 15 (BLOOM's) does not; the rotary kernel counts one */
    return a->layernorm ? 15 + !a->no_rotary
                        : GS_LLM_REF_KERNELS - !!a->no_rotary;
}

int gs_llm_arch_check(const struct gs_llm_arch *a, const char *where,
                      struct gs_diag *d)
{
    const struct { const char *key; int v; } pos[] = {
        { "layers", a->layers }, { "hidden", a->hidden },
        { "heads", a->heads }, { "kv_heads", a->kv_heads },
        { "ffn", a->ffn }, { "experts", a->experts },
        { "active_experts", a->active_experts }, { "vocab", a->vocab },
    };
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        if (pos[i].v <= 0)
            return gs_diag_set(d, GS_EINVAL, where, "%s must be > 0, not %d",
                               pos[i].key, pos[i].v);
    if (a->hidden % a->heads)
        return gs_diag_set(d, GS_EINVAL, where,
                           "hidden (%d) must be a multiple of heads (%d)",
                           a->hidden, a->heads);
    if (a->heads % a->kv_heads)
        return gs_diag_set(d, GS_EINVAL, where,
                           "kv_heads (%d) must divide heads (%d)",
                           a->kv_heads, a->heads);
    if (a->active_experts > a->experts)
        return gs_diag_set(d, GS_EINVAL, where,
                           "active_experts (%d) exceeds experts (%d)",
                           a->active_experts, a->experts);
    if (!(a->bytes_per_param > 0 && a->bytes_per_param <= 8))
        return gs_diag_set(d, GS_EINVAL, where,
                           "bytes_per_param must be in (0, 8], not %g",
                           a->bytes_per_param);
    if (!(a->kv_bytes >= 0 && a->kv_bytes <= 8))
        return gs_diag_set(d, GS_EINVAL, where,
                           "kv_bytes must be in [0, 8], not %g", a->kv_bytes);
    return 0;
}

static double head_dim(const struct gs_llm_arch *a)
{
    return (double)a->hidden / a->heads;
}

/* Attention weights of one layer: Q, O (d x d) and K, V (d x kv dims). */
static double attn_params(const struct gs_llm_arch *a)
{
    double d = a->hidden, kv = a->kv_heads * head_dim(a);
    return 2 * d * d + 2 * d * kv;
}

static double expert_params(const struct gs_llm_arch *a)
{
    return (a->gated ? 3.0 : 2.0) * a->hidden * (double)a->ffn;
}

double gs_llm_arch_params(const struct gs_llm_arch *a)
{
    double router = a->experts > 1 ? (double)a->hidden * a->experts : 0;
    double layer = attn_params(a) + a->experts * expert_params(a) + router;
    return a->layers * layer + (a->tied ? 1.0 : 2.0) * a->vocab * a->hidden;
}

double gs_llm_arch_active_params(const struct gs_llm_arch *a)
{
    double router = a->experts > 1 ? (double)a->hidden * a->experts : 0;
    double layer = attn_params(a) + a->active_experts * expert_params(a)
                   + router;
    return a->layers * layer + (a->tied ? 1.0 : 2.0) * a->vocab * a->hidden;
}

double gs_llm_arch_weight_bytes(const struct gs_llm_arch *a)
{
    return gs_llm_arch_params(a) * a->bytes_per_param;
}

double gs_llm_arch_kv_bytes_per_token(const struct gs_llm_arch *a)
{
    double kvb = a->kv_bytes > 0 ? a->kv_bytes : a->bytes_per_param;
    return a->layers * 2.0 * a->kv_heads * head_dim(a) * kvb;
}

double gs_llm_kv_transfer_time(const struct gs_llm_arch *a, double tokens,
                               double link_gbs, double latency_s)
{
    if (tokens <= 0)
        return 0;
    return tokens * gs_llm_arch_kv_bytes_per_token(a) / (link_gbs * 1e9)
           + latency_s;
}
