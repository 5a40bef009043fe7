/* llm.h -- one LLM serving replica: architecture, iteration time, KV cache, continuous batching.
 *
 * This is a library the service model (sim/service*.c, owned by the
 * llm-service work) drives; it knows nothing of sim.c, the fleet or the
 * event queue.  Who owns what:
 *   - llmarch.c   (this header's gs_llm_arch_*): the built-in architectures
 *                 and declared ones, sizes derived from them (weights, KV
 *                 bytes per token, KV transfer time for disaggregation);
 *   - llmperf.c   (gs_llm_perf_*): an iteration's aggregate shape into
 *                 seconds, the sum of its layers' operators;
 *   - llmops.c    (llmops.h): one operator's time from its shape and the
 *                 GPU model's factors (sim/cluster/gpu.h, struct gs_gpu_llm);
 *   - llmprof.c   (llmprof.h): measured kernel profiles (Vidur's), the
 *                 kernel factors' fit and the validation;
 *   - llmcalib.c  (gs_llm_calib_*): fitting the serving factors to measured
 *                 prompt and token times (Splitwise's perf_model.csv);
 *   - llmkv.c     (internal, sim/inference/llmkv.h): KV blocks and the prefix cache;
 *   - llmengine.c (gs_llm_engine_*): iteration-level continuous batching.
 *
 * How a caller drives an engine (one iteration = one event):
 *     gs_llm_engine_add(e, &req)            as requests arrive;
 *     d = gs_llm_engine_step(e, now)        when the engine is not busy:
 *                                           forms the next iteration and
 *                                           returns its duration in seconds
 *                                           (0: nothing to run, stay idle);
 *     ... schedule an event at now + d ...
 *     gs_llm_engine_finish_iteration(e, &cb, ctx)
 *                                           at that event: reports first
 *                                           tokens, finished and preempted
 *                                           requests through the callbacks,
 *                                           all stamped with the iteration's
 *                                           end time; then call step again.
 * Requests are named by the caller's 64-bit id; the caller keeps its own
 * per-request records (arrival, TTFT, ...) and the engine keeps only what it
 * needs to schedule.  Times are seconds on the caller's clock.
 *
 * The engine's decode state is aggregated (sums of contexts, counts of
 * requests by KV-block phase, a heap of finishing iterations), so one
 * iteration costs O(requests that change state), not O(batch). */
#ifndef GS_LLM_H
#define GS_LLM_H

#include "../base/err.h"
#include "../cluster/gpu.h"

#include <stdint.h>

/* ---- architectures (llmarch.c) ------------------------------------------ */

#define GS_LLM_NAME 32

/* A decoder-only transformer.  Built-ins: llama2-7b, llama2-13b, llama2-70b,
 * llama3-8b, llama3-70b, bloom-176b, mixtral-8x7b; a scenario may declare its
 * own (every count > 0, kv_heads divides heads, hidden divisible by heads). */
struct gs_llm_arch {
    char name[GS_LLM_NAME];
    int layers;
    int hidden;             /* model dimension d */
    int heads;              /* query heads; head_dim = hidden / heads */
    int kv_heads;           /* key/value heads (GQA: < heads) */
    int ffn;                /* FFN inner size of one expert */
    int gated;              /* 1: SwiGLU (3 FFN matrices), 0: GELU (2) */
    int experts;            /* 1 for dense models */
    int active_experts;     /* experts each token uses (top-k) */
    int vocab;
    double bytes_per_param; /* weights: 2 for BF16/FP16, 1 for FP8/INT8 */
    double kv_bytes;        /* bytes per cached K or V element (0: as weights) */
    int tied;               /* 1: the LM head is the embedding matrix */
    int layernorm;          /* 1: LayerNorm with biases, residual and bias
                             * adds apart (BLOOM, GPT); 0: RMSNorm fused
                             * with the residual add (Llama) */
    int no_rotary;          /* 1: no rotary position kernel (ALiBi: BLOOM;
                             * learned positions: GPT); 0: rotary (Llama,
                             * Falcon, phi-2, the default) */
};
/* Kernels the serving stack launches per layer: 12 for an RMSNorm block
 * with rotary positions (two fused add-norms, QKV, rotary, KV-cache write,
 * attention, output, all-reduce, gate-up, activation, down, all-reduce), 15
 * for a LayerNorm block without them (BLOOM's: two norms, two residual
 * adds and two row-parallel bias adds apart, no rotary); the rotary kernel
 * counts one: 11 and 16 for the other two. */
int gs_llm_layer_kernels(const struct gs_llm_arch *a);
#define GS_LLM_REF_KERNELS 12

/* Fill *out with the built-in architecture called name (case-insensitive).
 * GS_ENOTFOUND with "unknown model 'x' (did you mean 'y'?)" in d otherwise;
 * where names the place (JSON path) for the message. */
int gs_llm_arch_find(const char *name, struct gs_llm_arch *out,
                     const char *where, struct gs_diag *d);
/* Check a declared architecture; GS_EINVAL naming the field in d. */
int gs_llm_arch_check(const struct gs_llm_arch *a, const char *where,
                      struct gs_diag *d);
/* NULL-terminated list of the built-in names (for help and tests). */
const char *const *gs_llm_arch_names(void);

double gs_llm_arch_params(const struct gs_llm_arch *a);        /* all weights */
double gs_llm_arch_active_params(const struct gs_llm_arch *a); /* per token */
double gs_llm_arch_weight_bytes(const struct gs_llm_arch *a);
/* Bytes of K and V one token keeps in the cache, all layers:
 * layers * 2 * kv_heads * head_dim * kv_bytes. */
double gs_llm_arch_kv_bytes_per_token(const struct gs_llm_arch *a);
/* Seconds to move the KV cache of `tokens` tokens from a prefill replica to a
 * decode replica (Splitwise/DistServe): bytes / (link_gbs * 1e9) + latency_s. */
double gs_llm_kv_transfer_time(const struct gs_llm_arch *a, double tokens,
                               double link_gbs, double latency_s);

/* ---- iteration time (llmperf.c) ------------------------------------------ */

/* The hardware of one replica: per-GPU figures (a MIG slice passes its share
 * of compute and bandwidth and its memory) and the GPU model's efficiency
 * factors.  gs_llm_hw_from_catalog fills it from a catalog entry. */
struct gs_llm_hw {
    double tflops;          /* peak dense BF16, TFLOP/s per GPU */
    double bw_gbs;          /* HBM bandwidth, GB/s per GPU */
    double mem_gb;          /* memory per GPU */
    struct gs_gpu_llm eff;  /* efficiency factors, link bandwidth/latency */
};
void gs_llm_hw_from_catalog(const struct gs_catalog *c, int model,
                            struct gs_llm_hw *hw);
/* A MIG profile or fraction: share of compute and bandwidth, its memory. */
void gs_llm_hw_share(struct gs_llm_hw *hw, double share, double mem_gb);

/* The aggregate shape of one iteration, all the roofline needs. */
struct gs_llm_batch {
    double prefill_tokens;  /* tokens of prefill chunks */
    double prefill_attn;    /* sum over chunks of c * (k + (c + 1) / 2):
                             * query-key pairs, c chunk tokens after k cached */
    double prefill_ctx;     /* sum over chunks of k + c (KV read by a chunk) */
    double decode_tokens;   /* running decodes, one token each */
    double decode_ctx;      /* sum of the contexts they read (KV tokens
                             * before the step + 1 each) */
    double sampled;         /* sequences that emit a token (LM head rows) */
    double seqs;            /* sequences in the batch */
};

/* Shape of a layer, for the operator model (sim/inference/llmops.h). */
struct gs_llm_shape {
    int heads, kv_heads, hidden, ffn, vocab, gated, tp;
    int parallel;           /* 1: a parallel block (attention and MLP read
                             * one norm's output; the residual adds both
                             * branches: two adds) */
    int no_rotary;          /* 1: no rotary kernel (ALiBi, learned
                             * positions): attn_rope takes no time */
    int layernorm;          /* 1: its norms are PyTorch's LayerNorm (not a
                             * block of up to 1,024 threads per token: no
                             * per-token waves) */
};

/* Constants of (architecture, hardware, TP) precomputed for speed. */
struct gs_llm_perf {
    int tp, layers, experts, active;
    struct gs_llm_hw hw;
    struct gs_llm_shape shape;
    double attn_flops_pair; /* per layer per query-key pair, per GPU */
    double kv_bytes_tok;    /* KV bytes per token per layer, per GPU */
    double ar_bytes_tok;    /* all-reduce payload per token */
    double head_n;          /* LM head's outputs per GPU (vocab / t) */
    double wbytes;          /* bytes per weight (BF16 2, FP8 1) */
    double host_layer_s;    /* the host's time to issue one layer */
    double host_prefill_s;  /* its extra time per layer, not hidden by the
                             * GPU, when the iteration prefills */
};
/* A layer's seconds from its GPU's and its host's: their soft maximum
 * (gpu^3 + host^3)^(1/3), gpu when host is 0 (llmperf.c). */
double gs_llm_overlap(double gpu, double host);
/* Experts a batch of tok tokens reaches when each token picks `active` of
 * `experts`, routed uniformly: experts (1 - (1 - active/experts)^tok),
 * `active` for one token (1 for a dense model). */
double gs_llm_experts_hit(int experts, int active, double tok);
int gs_llm_perf_init(struct gs_llm_perf *p, const struct gs_llm_arch *a,
                     const struct gs_llm_hw *hw, int tp, struct gs_diag *d);
/* Seconds one iteration of shape b takes (0 for an empty batch). */
double gs_llm_perf_time(const struct gs_llm_perf *p,
                        const struct gs_llm_batch *b);
/* The work of an iteration on one GPU: FLOPs and bytes moved to and from
 * memory (GEMMs, elementwise kernels, attention, the LM head). */
struct gs_llm_work {
    double flops, bytes;
};
void gs_llm_perf_work(const struct gs_llm_perf *p,
                      const struct gs_llm_batch *b, struct gs_llm_work *w);
/* Compute and memory utilization of an iteration of shape b that takes
 * dur seconds: its FLOPs / (peak x dur) and bytes / (bandwidth x dur),
 * each in [0, 1] (0 for dur <= 0).  What the power model reads. */
void gs_llm_perf_util(const struct gs_llm_perf *p, const struct gs_llm_batch *b,
                      double dur, double *uc, double *um);
/* What an engine's iterations repeat, remembered by token count: the
 * terms of gs_llm_perf_time and gs_llm_perf_work that depend on the batch
 * only through its tokens (the layer's operators, the embedding, the final
 * norm) or the sequences it samples (the LM head).  Direct-mapped: a count
 * has one slot (the count modulo the slots, a power of two), and another
 * count found there is replaced.  Zeroed slots are empty (no batch has 0
 * tokens; a head of 0 is not looked up).  Sized by gs_llm_memo_new to hold
 * every count an engine of that token budget and sequence cap forms (the
 * budget bounds a chunked iteration's tokens, the cap its sampled
 * sequences), so that after its first iterations an engine finds nearly
 * every count; engines of identical performance figures may share one
 * (gs_llm_engine_cfg.memo), which then fills once for all of them. */
#define GS_LLM_MEMO 256         /* the least slots of either table */
struct gs_llm_memo_tok {
    double tok, layer, emb, norm;   /* the count; seconds */
    double wf, wb, emb_b, norm_b;   /* layer FLOPs, bytes; tail bytes */
};
struct gs_llm_memo_head {
    double n, t, f, b;              /* sequences; seconds, FLOPs, bytes */
};
struct gs_llm_memo {
    unsigned long ntok, nhead;      /* slots of each table (powers of 2) */
    int refs;                       /* engines that use it */
    struct gs_llm_perf perf;        /* the figures it holds costs of */
    struct gs_llm_memo_tok *tok;
    struct gs_llm_memo_head *head;
    void *raw;                      /* the block both tables are in */
};
/* A memo for iterations of figures p of up to max_tokens tokens and
 * max_seqs sampled sequences (each table at least GS_LLM_MEMO slots;
 * larger counts still work, sharing slots): `like` with one more reference
 * when it was made for the same figures (equal bytes) and sizes, else a
 * new empty one holding one; NULL when out of memory.  gs_llm_memo_free
 * drops a reference and frees the memo with the last. */
struct gs_llm_memo *gs_llm_memo_get(struct gs_llm_memo *like,
                                    const struct gs_llm_perf *p,
                                    int max_tokens, int max_seqs);
void gs_llm_memo_free(struct gs_llm_memo *m);
/* gs_llm_perf_time of b, with gs_llm_perf_util's *uc and *um, through the
 * memo m: the same doubles, to the bit, as the two calls give. */
double gs_llm_perf_step(const struct gs_llm_perf *p, struct gs_llm_memo *m,
                        const struct gs_llm_batch *b, double *uc, double *um);
/* Convenience for tests and the calibration: one prefill of `batch`
 * prompts of `prompt` tokens, and one decode step of `batch` sequences
 * with `ctx` tokens in the KV cache (attention reads ctx + 1). */
double gs_llm_perf_prefill(const struct gs_llm_perf *p, double batch,
                           double prompt);
double gs_llm_perf_decode(const struct gs_llm_perf *p, double batch,
                          double ctx);
/* The time to first token of one request alone in an engine: its prompt
 * after `cached` prefix tokens, in chunks of at most `budget` tokens
 * (budget <= 0: one chunk), exactly as the engine forms those iterations. */
double gs_llm_perf_ttft(const struct gs_llm_perf *p, int prompt, int cached,
                        int budget);

/* ---- the engine (llmengine.c) -------------------------------------------- */

enum gs_llm_role {
    GS_LLM_BOTH = 0,        /* prefill and decode on one replica */
    GS_LLM_PREFILL,         /* prefill only: a request finishes with its
                             * first token, its KV to be handed off */
    GS_LLM_DECODE           /* decode only: requests arrive with their
                             * prompt's KV and first token (kv_ready) */
};

struct gs_llm_engine_cfg {
    struct gs_llm_arch arch;
    struct gs_llm_hw hw;
    int tp;                 /* tensor-parallel degree (GPUs per replica) */
    int max_seqs;           /* running sequences (vLLM max_num_seqs: 256) */
    int max_batched_tokens; /* tokens per iteration (8192) */
    int block_size;         /* KV tokens per block (16) */
    int chunked_prefill;    /* 1: Sarathi/vLLM v1 chunks; 0: whole prompts,
                             * prefill-first (vLLM v0) */
    int prefix_caching;     /* reuse cached prefix blocks (needs hash ids) */
    int prefix_block_tokens;/* tokens per hash id (Mooncake: 512); a
                             * multiple of block_size */
    double gpu_mem_util;    /* fraction of GPU memory the engine may use
                             * (vLLM gpu_memory_utilization: 0.9) */
    double reserve_gb;      /* per GPU, for activations and CUDA graphs */
    int role;               /* enum gs_llm_role */
    struct gs_llm_memo *memo;   /* another engine's memo of iteration costs
                                 * (gs_llm_engine_memo) to share when it was
                                 * made for the same figures and sizes;
                                 * NULL, or one that differs: its own */
};
/* vLLM-like defaults for everything but arch and hw. */
void gs_llm_engine_cfg_default(struct gs_llm_engine_cfg *c);

/* A request handed to an engine.  hash_ids (may be NULL) is the caller's
 * array of prefix-block hashes and must stay valid until the request
 * finishes; the engine does not copy it. */
struct gs_llm_req {
    uint64_t id;
    double arrival;
    int prompt;             /* prompt tokens, >= 1 */
    int output;             /* tokens to generate, >= 1 */
    const uint64_t *hash_ids;
    int n_hash;
    int kv_ready;           /* the prompt's KV is here when it arrives.
                             * Decode role: a hand-off, whose first token
                             * the prefill side made (output 1: done at
                             * once, see gs_llm_engine_add).  Other roles:
                             * the prompt is cached whole (a KV store's
                             * hit); it decodes at once and its first
                             * token ends its first iteration. */
};

/* What finish_iteration reports: first tokens and finishes at the
 * iteration's end time, preemptions at its start. */
struct gs_llm_cb {
    void (*first_token)(void *ctx, uint64_t id, double t);
    /* cached: prompt tokens served from the prefix cache; preempted: times */
    void (*finished)(void *ctx, uint64_t id, double t, int cached,
                     int preempted);
    void (*preempted)(void *ctx, uint64_t id, double t);
};

/* The last iteration formed by step: for token-weighted ITL (each of the
 * decode_tokens got its next token after `duration`) and DCGM-style
 * utilization. */
struct gs_llm_iter {
    double start, duration;
    int prefill_tokens, decode_tokens, seqs;
    double compute_util, mem_util;  /* gs_llm_perf_util of the iteration */
};

struct gs_llm_stats {
    int waiting, running;           /* requests */
    long blocks_used, blocks_total; /* KV blocks, cached prefixes included */
    long blocks_cached;             /* of blocks_used: prefix cache entries */
    int busy;                       /* an iteration is in flight */
    double prefill_tokens, decode_tokens;   /* processed so far */
    double cached_tokens;           /* prompt tokens served by the cache */
    long preemptions, finished, iterations;
};

struct gs_llm_engine;

/* A new engine; *out is owned by the caller (gs_llm_engine_free).
 * GS_ENOFIT when the weights leave no room for one request's KV cache. */
int gs_llm_engine_new(const struct gs_llm_engine_cfg *c,
                      struct gs_llm_engine **out, struct gs_diag *d);
void gs_llm_engine_free(struct gs_llm_engine *e);
/* gs_llm_engine_add's answer for a request with nothing left to run. */
enum { GS_LLM_DONE = 1 };

/* Queue a request (FIFO): 0.  GS_LLM_DONE (> 0) when it is finished on
 * arrival -- a hand-off of one output token to a decode-only engine, whose
 * token the prefill side made: counted as finished, no callback, the
 * caller ends it at its hand-off time.  GS_EINVAL for bad lengths (< 1, or
 * prompt + output over 2^30); GS_ENOFIT when its prompt + output could
 * never fit the KV cache (the caller rejects it). */
int gs_llm_engine_add(struct gs_llm_engine *e, const struct gs_llm_req *r);
/* Form the next iteration at time now; its duration in seconds, 0 when
 * there is nothing to run.  Calling it while busy is a bug (GS_ASSERT). */
double gs_llm_engine_step(struct gs_llm_engine *e, double now);
/* Complete the iteration in flight and report through cb (any pointer in
 * it may be NULL).  Returns the number of requests that finished. */
int gs_llm_engine_finish_iteration(struct gs_llm_engine *e,
                                   const struct gs_llm_cb *cb, void *ctx);
/* finish_iteration (its count of finished requests in *done) and then
 * step at the iteration's end, in one call: the next iteration's duration
 * (0: nothing to run).  The same state and figures, to the bit, as the two
 * calls; a decode step that changes nothing about the batch is ended and
 * followed without their general paths. */
double gs_llm_engine_next(struct gs_llm_engine *e, const struct gs_llm_cb *cb,
                          void *ctx, int *done);
void gs_llm_engine_stats(const struct gs_llm_engine *e,
                         struct gs_llm_stats *s);
const struct gs_llm_iter *gs_llm_engine_last(const struct gs_llm_engine *e);
const struct gs_llm_perf *gs_llm_engine_perf(const struct gs_llm_engine *e);
/* The id of a request the iteration in flight finishes (the first whose
 * last decode step it is), -1 when it finishes none or runs no decode
 * step: a hint, for a caller to fetch that request's own records into the
 * cache before the iteration ends. */
int64_t gs_llm_engine_next_done(const struct gs_llm_engine *e);
/* e's memo of iteration costs, to hand to another engine's cfg.memo. */
struct gs_llm_memo *gs_llm_engine_memo(const struct gs_llm_engine *e);

#endif
