/* llmengine.c -- one LLM serving replica: iteration-level continuous batching over a paged KV cache.
 *
 * The scheduler follows vLLM's (Kwon et al., SOSP'23; the v1 scheduler of
 * vllm/v1/core/sched/scheduler.py) and Sarathi-Serve's stall-free batching
 * (Agrawal et al., OSDI'24).  With chunked prefill on, each iteration has a
 * budget of max_batched_tokens: the running decodes come first, one token
 * each; then the running requests still prefilling, in admission order, a
 * chunk each (the rest of their prompt, cut to the budget left); then the
 * waiting requests in FIFO order while sequences (max_seqs), budget and KV
 * blocks last.  With chunked prefill off the scheduler is vLLM v0's
 * prefill-first: an iteration prefills whole prompts of waiting requests
 * when at least one can be admitted, and decodes otherwise.
 *
 * KV blocks (llmkv.c): a request holds ceil(context / block_size) blocks,
 * less the prefix units it shares.  Admission of a waiting request needs its
 * first chunk's blocks while 1% of the blocks stay free (vLLM v0's
 * watermark).  When the running decodes need more blocks than are free, the
 * most recently admitted running request is preempted by recomputation, as
 * vLLM does by default: its blocks are freed and it goes back to the front
 * of the waiting queue, to prefill its prompt and the tokens it generated
 * again (the next token comes out of that prefill); no waiting request is
 * admitted in a step that preempted (vLLM v1).  A running prefill that
 * finds no block waits; if then nothing at all can run, the newest running
 * request is preempted so that the engine always makes progress.
 *
 * Prefix caching: a request's Mooncake hash ids name its prompt's 512-token
 * units; at admission the longest run of leading units found in the cache is
 * shared and skipped (at least one prompt token is always computed, as vLLM
 * does), and when its prefill completes its full units are published.
 *
 * Aggregated decode state.  Every decoding request gets one token per decode
 * step, so its context at step s is c0 + (s - s0) for the step s0 it
 * started at.  The engine keeps the number of decoders and the sum of their
 * contexts; the step at which each finishes in a binary min-heap; and the
 * count of decoders by block phase (c0 - s0) mod block_size: at step s the
 * decoders whose phase is -s mod block_size start a new block, so the
 * blocks a step needs are one array read.  A step costs O(1) plus O(log n)
 * per request that starts, finishes or is preempted -- never O(batch).
 * Decode steps are counted apart from iterations, because a prefill-first
 * iteration (chunked prefill off) runs no decodes. */
#include "llm.h"
#include "llmkv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { R_FREE, R_WAITING, R_PREFILL, R_DECODE };

struct req {
    uint64_t id;
    const uint64_t *hash;
    int n_hash;
    int prompt, output;
    int state;
    int kv_ready;           /* arrives with its prompt's KV: a hand-off (decode
                             * role) or a prompt cached whole */
    int computed;           /* prefill progress: tokens with KV */
    int target;             /* tokens to prefill: prompt + generated */
    int generated;          /* output tokens produced */
    int cached;             /* prompt tokens served by the prefix cache */
    int nshared;            /* leading prefix units referenced */
    int *units;             /* their unit indexes (nshared of n_hash) */
    int first_sent;
    int preempts;
    int chunk;              /* tokens scheduled in the iteration in flight */
    long s0;                /* decode: first decode step */
    int c0;                 /* decode: context at s0 */
    long fin;               /* decode: last decode step */
    unsigned dgen;          /* decode entries so far (finish-heap tag) */
    int phase;              /* decode: (c0 - s0) mod block_size */
    int prev, next;         /* waiting queue or running list */
    int pprev, pnext;       /* prefilling list (R_PREFILL) */
};

struct list {
    int head, tail, n;
};

struct hent {
    long fin;
    int i;
    unsigned gen;           /* the slot's decode_enter count when pushed */
};

struct gs_llm_engine {
    struct gs_llm_engine_cfg cfg;
    struct gs_llm_perf perf;
    struct gs_llm_memo *memo;   /* the iterations' costs by token count */
    struct gs_llmkv kv;
    int bs, ub;             /* block size; blocks per prefix unit */
    int bshift;             /* log2 bs when bs is a power of two, else -1 */
    long watermark;

    struct req *r;
    int rcap, free_head;

    struct list waiting, running;   /* running: admission order */
    struct list prefilling; /* running requests still prefilling, in order */
    int *chunks;            /* requests with a prefill chunk in flight */
    int nchunks, ccap;
    int *preempted;         /* preempted while forming the iteration */
    int npre, pcap;
    int *firsts;            /* admitted with their KV and no token yet:
                             * their first decode step gives it */
    int nfirsts, fcap;

    /* aggregated decode state */
    long step;              /* decode steps done */
    int smod;               /* step % block size (no division per step) */
    int ndec;
    double sum_ctx;         /* sum of decoders' contexts before this step */
    int *phase;             /* decoders per block phase, bs entries */
    struct hent *heap;      /* decoders by fin, keys cached (libev) */
    int hn, hcap;

    int busy, step_dec;     /* in flight; it runs a decode step */
    long dec_blocks;        /* blocks the decode step allocated */
    struct gs_llm_iter last;
    int64_t next_done;      /* a request the iteration in flight ends, -1 */
    struct gs_llm_stats st;
};

void gs_llm_engine_cfg_default(struct gs_llm_engine_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->tp = 1;
    c->max_seqs = 256;
    c->max_batched_tokens = 8192;
    c->block_size = 16;
    c->chunked_prefill = 1;
    c->prefix_caching = 0;
    c->prefix_block_tokens = 512;
    c->gpu_mem_util = 0.9;
    c->reserve_gb = 1.0;
    c->role = GS_LLM_BOTH;
}

/* ---- lists and the heap ------------------------------------------------------ */

static void list_push_back(struct gs_llm_engine *e, struct list *l, int i)
{
    e->r[i].prev = l->tail;
    e->r[i].next = -1;
    if (l->tail >= 0)
        e->r[l->tail].next = i;
    else
        l->head = i;
    l->tail = i;
    l->n++;
}

static void list_push_front(struct gs_llm_engine *e, struct list *l, int i)
{
    e->r[i].next = l->head;
    e->r[i].prev = -1;
    if (l->head >= 0)
        e->r[l->head].prev = i;
    else
        l->tail = i;
    l->head = i;
    l->n++;
}

static void list_unlink(struct gs_llm_engine *e, struct list *l, int i)
{
    struct req *q = &e->r[i];
    if (q->prev >= 0)
        e->r[q->prev].next = q->next;
    else
        l->head = q->next;
    if (q->next >= 0)
        e->r[q->next].prev = q->prev;
    else
        l->tail = q->prev;
    l->n--;
}

static void pf_push(struct gs_llm_engine *e, int i)
{
    struct list *l = &e->prefilling;
    e->r[i].pprev = l->tail;
    e->r[i].pnext = -1;
    if (l->tail >= 0)
        e->r[l->tail].pnext = i;
    else
        l->head = i;
    l->tail = i;
    l->n++;
}

static void pf_unlink(struct gs_llm_engine *e, int i)
{
    struct list *l = &e->prefilling;
    struct req *q = &e->r[i];
    if (q->pprev >= 0)
        e->r[q->pprev].pnext = q->pnext;
    else
        l->head = q->pnext;
    if (q->pnext >= 0)
        e->r[q->pnext].pprev = q->pprev;
    else
        l->tail = q->pprev;
    l->n--;
}

/* (fin, i) ordered; without branches (& and |, not && and ||): in a sift
 * the comparison's outcome is a coin toss the predictor loses half the
 * time, so the choice of a child is arithmetic instead. */
static int hent_less(struct hent a, struct hent b)
{
    return (a.fin < b.fin) | ((a.fin == b.fin) & (a.i < b.i));
}

/* The finish heap keeps no position in the requests' slots: a preempted
 * decoder's entry is left behind, stale (its slot no longer decodes under
 * that tag), and dropped when it reaches the top.  Sifting then touches
 * the heap alone, not the slots of the requests it moves -- in overload
 * the slots of thousands of queued requests. */
static int hent_live(const struct gs_llm_engine *e, struct hent h)
{
    const struct req *r = &e->r[h.i];
    return r->state == R_DECODE && r->dgen == h.gen;
}

static void heap_up(struct gs_llm_engine *e, int pos)
{
    struct hent h = e->heap[pos];
    while (pos > 0) {
        int parent = (pos - 1) / 2;
        if (!hent_less(h, e->heap[parent]))
            break;
        e->heap[pos] = e->heap[parent];
        pos = parent;
    }
    e->heap[pos] = h;
}

static void heap_down(struct gs_llm_engine *e, int pos)
{
    struct hent h = e->heap[pos], *a = e->heap;
    int n = e->hn;
    for (;;) {
        int c = 2 * pos + 1;
        if (c + 1 < n)
            c += hent_less(a[c + 1], a[c]);    /* the lesser child */
        else if (c >= n)
            break;
        if (!hent_less(a[c], h))
            break;
        a[pos] = a[c];
        pos = c;
    }
    a[pos] = h;
}

static void heap_pop(struct gs_llm_engine *e)
{
    e->heap[0] = e->heap[--e->hn];
    if (e->hn > 0)
        heap_down(e, 0);
}

/* Drop every stale entry and restore the heap (Floyd's bottom-up build). */
static void heap_purge(struct gs_llm_engine *e)
{
    int n = 0;
    for (int k = 0; k < e->hn; k++)
        if (hent_live(e, e->heap[k]))
            e->heap[n++] = e->heap[k];
    e->hn = n;
    for (int k = n / 2 - 1; k >= 0; k--)
        heap_down(e, k);
}

/* ---- creation ----------------------------------------------------------------- */

/* The blocks of tokens at e's block size, ceil(tokens / bs): a shift
 * where bs is a power of two (the same quotient for a numerator >= 0; a
 * request's few calls were a 64-bit division each) */
static long eblocks(const struct gs_llm_engine *e, long tokens)
{
    long t = tokens + e->bs - 1;
    return e->bshift >= 0 && t >= 0 ? t >> e->bshift : t / e->bs;
}

int gs_llm_engine_new(const struct gs_llm_engine_cfg *c,
                      struct gs_llm_engine **out, struct gs_diag *d)
{
    *out = NULL;
    const char *w = c->arch.name[0] ? c->arch.name : "engine";
    if (c->max_seqs < 1 || c->max_batched_tokens < c->max_seqs)
        return gs_diag_set(d, GS_EINVAL, w, "max_seqs (%d) must be >= 1 and "
                           "<= max_batched_tokens (%d)", c->max_seqs,
                           c->max_batched_tokens);
    if (c->block_size < 1 || c->block_size > 4096)
        return gs_diag_set(d, GS_EINVAL, w, "block_size must be in 1..4096, "
                           "not %d", c->block_size);
    if (c->prefix_caching
        && (c->prefix_block_tokens < c->block_size
            || c->prefix_block_tokens % c->block_size))
        return gs_diag_set(d, GS_EINVAL, w, "prefix_block_tokens (%d) must "
                           "be a multiple of block_size (%d)",
                           c->prefix_block_tokens, c->block_size);
    if (!(c->gpu_mem_util > 0 && c->gpu_mem_util <= 1) || !(c->reserve_gb >= 0))
        return gs_diag_set(d, GS_EINVAL, w, "gpu_mem_util must be in (0, 1] "
                           "and reserve_gb >= 0");
    if (c->role < GS_LLM_BOTH || c->role > GS_LLM_DECODE)
        return gs_diag_set(d, GS_EINVAL, w, "unknown engine role %d", c->role);
    struct gs_llm_perf perf;
    int rc = gs_llm_perf_init(&perf, &c->arch, &c->hw, c->tp, d);
    if (rc)
        return rc;
    /* KV capacity per GPU: memory (GiB, as GPUs are sold) times the
     * utilization, less this GPU's share of weights and the reserve. */
    const double gib = 1073741824.0;
    double room = c->hw.mem_gb * gib * c->gpu_mem_util
                  - gs_llm_arch_weight_bytes(&c->arch) / c->tp
                  - c->reserve_gb * gib;
    double per_block = perf.kv_bytes_tok * perf.layers * c->block_size;
    double nb = room > 0 ? floor(room / per_block) : 0;
    if (nb < 1)
        return gs_diag_set(d, GS_ENOFIT, w, "the weights (%.1f GB per GPU at "
                           "TP %d) leave no room for the KV cache in %.0f GB",
                           gs_llm_arch_weight_bytes(&c->arch) / c->tp / 1e9,
                           c->tp, c->hw.mem_gb);
    if (nb > 1e12)
        nb = 1e12;
    struct gs_llm_engine *e = calloc(1, sizeof *e);
    if (!e)
        return gs_diag_set(d, GS_ENOMEM, w, "out of memory");
    e->cfg = *c;
    e->perf = perf;
    e->bs = c->block_size;
    e->bshift = -1;
    for (int k = 0; k < 13; k++)
        if (c->block_size == 1 << k)
            e->bshift = k;
    e->ub = c->prefix_caching ? c->prefix_block_tokens / c->block_size : 1;
    e->watermark = (long)(0.01 * nb);
    e->waiting = e->running = e->prefilling = (struct list){ -1, -1, 0 };
    e->free_head = -1;
    e->phase = calloc((size_t)e->bs, sizeof *e->phase);
    e->memo = gs_llm_memo_get(c->memo, &perf, c->max_batched_tokens,
                              c->max_seqs);
    e->cfg.memo = NULL;
    long units = c->prefix_caching ? (long)nb / e->ub : 0;
    if (!e->phase || !e->memo || gs_llmkv_init(&e->kv, (long)nb, e->ub, units)) {
        gs_llm_engine_free(e);
        return gs_diag_set(d, GS_ENOMEM, w, "out of memory");
    }
    e->st.blocks_total = (long)nb;
    *out = e;
    return 0;
}

void gs_llm_engine_free(struct gs_llm_engine *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->rcap; i++)
        free(e->r[i].units);
    free(e->r);
    free(e->chunks);
    free(e->preempted);
    free(e->firsts);
    free(e->phase);
    gs_llm_memo_free(e->memo);
    free(e->heap);
    gs_llmkv_release(&e->kv);
    free(e);
}

static int grow(void *pp, int *cap, size_t size, int need)
{
    if (need <= *cap)
        return 0;
    int ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *np = realloc(*(void **)pp, (size_t)ncap * size);
    if (!np)
        return GS_ENOMEM;
    *(void **)pp = np;
    *cap = ncap;
    return 0;
}

int gs_llm_engine_add(struct gs_llm_engine *e, const struct gs_llm_req *q)
{
    int handoff = e->cfg.role == GS_LLM_DECODE && q->kv_ready;
    if (q->prompt < 1 || q->output < 1 || q->n_hash < 0
        || (long)q->prompt + q->output > 1L << 30
        || (q->n_hash > 0 && !q->hash_ids))
        return GS_EINVAL;
    if (handoff && q->output == 1) {
        /* the prefill side made its only token: nothing to do here */
        e->st.finished++;
        return GS_LLM_DONE;
    }
    if (eblocks(e, (long)q->prompt + q->output)
        > e->kv.total - e->watermark)
        return GS_ENOFIT;
    if (e->free_head < 0) {
        int old = e->rcap;
        if (grow(&e->r, &e->rcap, sizeof *e->r, old + 1))
            return GS_ENOMEM;
        for (int i = e->rcap - 1; i >= old; i--) {
            e->r[i] = (struct req){ .state = R_FREE, .next = e->free_head };
            e->free_head = i;
        }
        /* per-request arrays sized with the pool: no failure mid-step */
        if (grow(&e->heap, &e->hcap, sizeof *e->heap, e->rcap)
            || grow(&e->chunks, &e->ccap, sizeof *e->chunks, e->rcap)
            || grow(&e->preempted, &e->pcap, sizeof *e->preempted, e->rcap)
            || grow(&e->firsts, &e->fcap, sizeof *e->firsts, e->rcap))
            return GS_ENOMEM;
    }
    int i = e->free_head;
    struct req *r = &e->r[i];
    int n_hash = e->cfg.prefix_caching && e->cfg.role != GS_LLM_DECODE
                 ? q->n_hash : 0;
    int full = q->prompt / e->cfg.prefix_block_tokens;
    if (n_hash > full)
        n_hash = full;
    int *units = r->units;
    if (n_hash > 0) {
        /* units[] is sized at its first use by a slot and kept */
        int *nu = realloc(units, (size_t)n_hash * sizeof *nu);
        if (!nu)
            return GS_ENOMEM;
        units = nu;
    }
    e->free_head = r->next;
    *r = (struct req){
        .id = q->id, .hash = q->hash_ids, .n_hash = n_hash,
        .prompt = q->prompt, .output = q->output, .state = R_WAITING,
        .kv_ready = q->kv_ready != 0,
        .target = q->prompt, .units = units, .dgen = r->dgen,
    };
    if (handoff) {              /* the prefill pool gave its first token */
        r->generated = 1;
        r->first_sent = 1;
    } else if (r->kv_ready) {   /* its whole prompt is cached */
        r->cached = q->prompt;
    }
    list_push_back(e, &e->waiting, i);
    return 0;
}

/* ---- state changes ----------------------------------------------------------- */

static long private_blocks(const struct gs_llm_engine *e, const struct req *r,
                           long ctx)
{
    return eblocks(e, ctx) - (long)r->nshared * e->ub;
}

static void drop_shared(struct gs_llm_engine *e, struct req *r)
{
    for (int k = 0; k < r->nshared; k++)
        gs_llmkv_unref(&e->kv, r->units[k]);
    r->nshared = 0;
}

static void decode_leave(struct gs_llm_engine *e, int i, long ctx)
{
    struct req *r = &e->r[i];
    e->ndec--;
    e->sum_ctx -= ctx;
    e->phase[r->phase]--;
}

static void release(struct gs_llm_engine *e, int i)
{
    struct req *r = &e->r[i];
    r->state = R_FREE;
    r->hash = NULL;
    r->next = e->free_head;
    e->free_head = i;
}

/* Preempt the newest running request (recomputation). */
static void preempt_tail(struct gs_llm_engine *e)
{
    int i = e->running.tail;
    GS_ASSERT(i >= 0);
    struct req *r = &e->r[i];
    list_unlink(e, &e->running, i);
    long ctx = r->computed;
    if (r->state == R_DECODE) {
        ctx = r->c0 + (e->step - r->s0);
        r->generated += (int)(e->step - r->s0);
        decode_leave(e, i, ctx);
    } else {
        pf_unlink(e, i);
    }
    gs_llmkv_free(&e->kv, private_blocks(e, r, ctx));
    drop_shared(e, r);
    r->state = R_WAITING;
    r->kv_ready = 0;
    r->computed = 0;
    r->chunk = 0;
    r->target = r->prompt + r->generated;
    r->preempts++;
    e->st.preemptions++;
    list_push_front(e, &e->waiting, i);
    GS_ASSERT(e->npre < e->pcap);
    e->preempted[e->npre++] = i;
}

static void decode_enter(struct gs_llm_engine *e, int i, long s0)
{
    struct req *r = &e->r[i];
    r->state = R_DECODE;
    r->s0 = s0;
    r->c0 = r->computed;
    r->fin = e->cfg.role == GS_LLM_PREFILL && !r->first_sent
             ? s0 : s0 + (r->output - r->generated) - 1;
    e->ndec++;
    e->sum_ctx += r->c0;
    /* (c0 - s0) mod bs in 0..bs-1: for a power of two, the low bits (two's
     * complement), without two divisions */
    long ph = r->c0 - r->s0;
    r->phase = (int)(e->bshift >= 0 ? ph & (e->bs - 1)
                                    : (ph % e->bs + e->bs) % e->bs);
    e->phase[r->phase]++;
    r->dgen++;
    if (e->hn == e->hcap)
        heap_purge(e);      /* the live entries always fit (hcap = rcap) */
    GS_ASSERT(e->hn < e->hcap);
    e->heap[e->hn++] = (struct hent){ r->fin, i, r->dgen };
    heap_up(e, e->hn - 1);
}

/* Prefix units of waiting request r found in the cache. */
static int prefix_hits(const struct gs_llm_engine *e, const struct req *r)
{
    int h = 0;
    while (h < r->n_hash && gs_llmkv_find(&e->kv, r->hash[h]) >= 0)
        h++;
    int unit = e->cfg.prefix_block_tokens;
    if ((long)h * unit >= r->target)        /* compute one token at least */
        h = (r->target - 1) / unit;
    return h;
}

static void add_chunk(struct gs_llm_engine *e, int i)
{
    GS_ASSERT(e->nchunks < e->ccap);
    e->chunks[e->nchunks++] = i;
}

/* Try to admit the waiting head with at most `budget` tokens (-1: whole
 * prompt regardless).  Returns its chunk, 0 when it cannot be admitted. */
static int admit_head(struct gs_llm_engine *e, int budget)
{
    int i = e->waiting.head;
    struct req *r = &e->r[i];
    if (r->kv_ready) {
        long need = eblocks(e, r->prompt);
        if (gs_llmkv_available(&e->kv) - need < e->watermark
            || gs_llmkv_alloc(&e->kv, need))
            return 0;
        list_unlink(e, &e->waiting, i);
        list_push_back(e, &e->running, i);
        r->computed = r->prompt;
        decode_enter(e, i, e->step);
        if (!r->first_sent) {
            e->st.cached_tokens += r->prompt;
            GS_ASSERT(e->nfirsts < e->fcap);
            e->firsts[e->nfirsts++] = i;
        }
        return -1;
    }
    int h = prefix_hits(e, r);
    int unit = e->cfg.prefix_block_tokens;
    int start = h * unit, left = r->target - start;
    int chunk = left;
    if (budget >= 0 && chunk > budget) {
        if (!e->cfg.chunked_prefill)
            return 0;
        chunk = budget;
    }
    if (chunk <= 0)
        return 0;
    long need = eblocks(e, start + chunk) - (long)h * e->ub;
    /* shared units that are idle come off the evictable list */
    long idle_hits = 0;
    for (int k = 0; k < h; k++)
        idle_hits += e->kv.u[gs_llmkv_find(&e->kv, r->hash[k])].ref == 0;
    if (gs_llmkv_available(&e->kv) - idle_hits * e->ub - need < e->watermark)
        return 0;
    for (int k = 0; k < h; k++) {
        r->units[k] = gs_llmkv_find(&e->kv, r->hash[k]);
        gs_llmkv_ref(&e->kv, r->units[k]);
    }
    r->nshared = h;
    if (gs_llmkv_alloc(&e->kv, need)) {
        drop_shared(e, r);
        return 0;
    }
    if (r->generated == 0)
        r->cached = start;
    e->st.cached_tokens += start;
    list_unlink(e, &e->waiting, i);
    list_push_back(e, &e->running, i);
    pf_push(e, i);
    r->state = R_PREFILL;
    r->computed = start;
    r->chunk = chunk;
    add_chunk(e, i);
    return chunk;
}

/* ---- one iteration -------------------------------------------------------- */

/* The slot of the finish heap's top, asked for at the iteration's
 * forming: whether it finishes is read when the iteration ends, and in a
 * busy simulation the other replicas' work in between has pushed it out
 * of the cache (the heap does not change while an iteration forms). */
static void prefetch_top(const struct gs_llm_engine *e)
{
    if (e->hn > 0) {
        const char *p = (const char *)&e->r[e->heap[0].i];
        __builtin_prefetch(p);
        __builtin_prefetch(p + sizeof(struct req) - 1);
    }
}

double gs_llm_engine_step(struct gs_llm_engine *e, double now)
{
    GS_ASSERT(!e->busy);
    prefetch_top(e);
    const struct gs_llm_engine_cfg *c = &e->cfg;
    e->npre = 0;
    int retried = 0;
again:
    e->nchunks = 0;
    e->dec_blocks = 0;
    int budget = c->max_batched_tokens;
    int prefill_first = 0;

    /* Decode-role arrivals join the running decodes before they step. */
    while (e->waiting.n && e->r[e->waiting.head].kv_ready
           && e->running.n < c->max_seqs && admit_head(e, budget) < 0)
        ;
    if (!c->chunked_prefill && e->waiting.n && e->running.n < c->max_seqs
        && !e->r[e->waiting.head].kv_ready) {
        /* vLLM v0: prefill-first when the waiting head can be admitted */
        int chunk = admit_head(e, -1);
        if (chunk > 0) {
            prefill_first = 1;
            budget -= chunk;
            while (budget > 0 && e->waiting.n && e->running.n < c->max_seqs
                   && !e->r[e->waiting.head].kv_ready
                   && (chunk = admit_head(e, budget)) > 0)
                budget -= chunk;
        }
    }
    for (;;) {
        if (!prefill_first && e->ndec > 0) {
            /* the decoders starting a block at this step */
            long need = e->phase[e->smod ? e->bs - e->smod : 0];
            while (gs_llmkv_available(&e->kv) < need) {
                int t = e->running.tail;
                struct req *r = &e->r[t];
                if (r->state == R_DECODE
                    && ((r->c0 + (e->step - r->s0)) % e->bs) == 0)
                    need--;
                preempt_tail(e);
            }
            if (need > 0 && gs_llmkv_alloc(&e->kv, need) == 0)
                e->dec_blocks = need;
            budget -= e->ndec;
        }
        if (prefill_first)
            break;
        /* running prefills continue, in admission order */
        for (int i = e->prefilling.head; i >= 0 && budget > 0;
             i = e->r[i].pnext) {
            struct req *r = &e->r[i];
            if (r->chunk)
                continue;
            int chunk = r->target - r->computed;
            if (chunk > budget)
                chunk = budget;
            long need = eblocks(e, r->computed + chunk)
                        - eblocks(e, r->computed);
            if (gs_llmkv_alloc(&e->kv, need))
                continue;
            r->chunk = chunk;
            budget -= chunk;
            add_chunk(e, i);
        }
        /* then the waiting, FIFO (prefill-first admits them only alone);
         * none after a preemption in this step while something else runs,
         * as vLLM v1 does */
        int chunk;
        int hold = e->npre > 0 && (e->ndec > 0 || e->nchunks > 0);
        while (c->chunked_prefill && !hold && budget > 0 && e->waiting.n && e->running.n < c->max_seqs
               && !e->r[e->waiting.head].kv_ready
               && (chunk = admit_head(e, budget)) > 0)
            budget -= chunk;
        if (e->ndec > 0 || e->nchunks > 0 || e->running.n == 0)
            break;
        /* running prefills hold every block and none can grow */
        preempt_tail(e);
    }

    struct gs_llm_batch b = { 0 };
    int sampled = 0;
    for (int k = 0; k < e->nchunks; k++) {
        const struct req *r = &e->r[e->chunks[k]];
        double cc = r->chunk, kk = r->computed;
        b.prefill_tokens += cc;
        b.prefill_attn += cc * (kk + (cc + 1) / 2);
        b.prefill_ctx += kk + cc;
        sampled += r->computed + r->chunk == r->target;
    }
    e->step_dec = !prefill_first && e->ndec > 0;
    if (e->step_dec) {
        b.decode_tokens = e->ndec;
        b.decode_ctx = e->sum_ctx + e->ndec;
    }
    b.sampled = sampled + b.decode_tokens;
    b.seqs = e->nchunks + b.decode_tokens;
    if (b.prefill_tokens + b.decode_tokens <= 0 && e->npre > 0
        && e->waiting.n > 0 && !retried) {
        retried = 1;    /* prefill-first: the preempted are admitted anew */
        goto again;
    }
    double uc, um;
    double dur = gs_llm_perf_step(&e->perf, e->memo, &b, &uc, &um);
    e->last = (struct gs_llm_iter){
        .start = now, .duration = dur, .prefill_tokens = (int)b.prefill_tokens,
        .decode_tokens = (int)b.decode_tokens, .seqs = (int)b.seqs,
        .compute_util = uc, .mem_util = um,
    };
    /* preemption happens only for decoders, and then something runs */
    GS_ASSERT(dur > 0 || e->npre == 0);
    e->busy = dur > 0;
    e->next_done = -1;
    if (e->step_dec && e->hn > 0 && e->heap[0].fin == e->step
        && hent_live(e, e->heap[0]))
        e->next_done = (int64_t)e->r[e->heap[0].i].id;
    return dur;
}

int64_t gs_llm_engine_next_done(const struct gs_llm_engine *e)
{
    return e->next_done;
}

/* A request that produced its last token (or, in a prefill-only engine, its
 * first) leaves. */
static void finish_req(struct gs_llm_engine *e, int i, double t, long ctx,
                       const struct gs_llm_cb *cb, void *ctxp)
{
    struct req *r = &e->r[i];
    list_unlink(e, &e->running, i);
    gs_llmkv_free(&e->kv, private_blocks(e, r, ctx));
    drop_shared(e, r);
    e->st.finished++;
    if (cb && cb->finished)
        cb->finished(ctxp, r->id, t, r->cached, r->preempts);
    release(e, i);
}

int gs_llm_engine_finish_iteration(struct gs_llm_engine *e,
                                   const struct gs_llm_cb *cb, void *ctx)
{
    GS_ASSERT(e->busy);
    double t = e->last.start + e->last.duration;
    int done = 0;
    e->busy = 0;
    e->st.iterations++;
    for (int k = 0; k < e->npre; k++)
        if (cb && cb->preempted)
            cb->preempted(ctx, e->r[e->preempted[k]].id, e->last.start);
    if (e->step_dec && e->nfirsts > 0) {
        /* requests that came with their KV got their first token now
         * (those preempted since went back to prefill their prompt) */
        for (int k = 0; k < e->nfirsts; k++) {
            struct req *r = &e->r[e->firsts[k]];
            if (r->state != R_DECODE || r->first_sent)
                continue;
            r->first_sent = 1;
            if (cb && cb->first_token)
                cb->first_token(ctx, r->id, t);
        }
    }
    if (e->step_dec) {
        e->st.decode_tokens += e->ndec;
        e->sum_ctx += e->ndec;
        while (e->hn > 0) {
            struct hent h = e->heap[0];
            /* no live entry is due before this step: a later top ends
             * the search without reading its slot (a cache miss in a
             * busy simulation); a stale one waits its turn */
            if (h.fin > e->step)
                break;
            if (!hent_live(e, h)) {
                heap_pop(e);        /* left behind by a preemption */
                continue;
            }
            heap_pop(e);
            int i = h.i;
            struct req *r = &e->r[i];
            long c = r->c0 + (e->step - r->s0) + 1;
            decode_leave(e, i, c);
            r->generated = r->output;
            finish_req(e, i, t, c, cb, ctx);
            done++;
        }
        e->step++;
        if (++e->smod == e->bs)
            e->smod = 0;
    }
    for (int k = 0; k < e->nchunks; k++) {
        int i = e->chunks[k];
        struct req *r = &e->r[i];
        r->computed += r->chunk;
        e->st.prefill_tokens += r->chunk;
        r->chunk = 0;
        if (r->computed < r->target)
            continue;
        pf_unlink(e, i);
        /* publish the full prompt units this request computed */
        while (r->nshared < r->n_hash) {
            int u;
            if (gs_llmkv_publish(&e->kv, r->hash[r->nshared], &u) < 0)
                break;
            r->units[r->nshared++] = u;
        }
        r->generated++;
        if (!r->first_sent) {
            r->first_sent = 1;
            if (cb && cb->first_token)
                cb->first_token(ctx, r->id, t);
        }
        if (r->generated >= r->output || e->cfg.role == GS_LLM_PREFILL) {
            finish_req(e, i, t, r->computed, cb, ctx);
            done++;
        } else {
            decode_enter(e, i, e->step);
        }
    }
    /* keep only those still waiting for their first decode step */
    int nf = 0;
    for (int k = 0; k < e->nfirsts; k++) {
        const struct req *r = &e->r[e->firsts[k]];
        if (r->state == R_DECODE && !r->first_sent)
            e->firsts[nf++] = e->firsts[k];
    }
    e->nfirsts = nf;
    e->nchunks = 0;
    e->npre = 0;
    return done;
}

/* The common iteration at moderate load: a decode step that finishes no
 * request, with nothing waiting, prefilling, preempted or owed a first
 * token, is followed by the same decoders' next step.  Its end and the
 * next step's forming are what finish_iteration and step do on that
 * state -- the same counters, the same blocks, the same batch and so the
 * same duration, to the bit -- without their general paths; any other
 * iteration (and a next step short of blocks) goes through them. */
double gs_llm_engine_next(struct gs_llm_engine *e, const struct gs_llm_cb *cb,
                          void *ctx, int *done)
{
    GS_ASSERT(e->busy);
    double t = e->last.start + e->last.duration;
    if (!(e->step_dec && e->npre == 0 && e->nchunks == 0 &&
          e->nfirsts == 0 && e->waiting.n == 0 && e->prefilling.n == 0 &&
          (e->hn == 0 || e->heap[0].fin > e->step))) {
        *done = gs_llm_engine_finish_iteration(e, cb, ctx);
        return gs_llm_engine_step(e, t);
    }
    *done = 0;
    e->busy = 0;
    e->st.iterations++;
    e->st.decode_tokens += e->ndec;
    e->sum_ctx += e->ndec;
    e->step++;
    if (++e->smod == e->bs)
        e->smod = 0;
    /* the decoders starting a block at this step */
    long need = e->phase[e->smod ? e->bs - e->smod : 0];
    if (gs_llmkv_available(&e->kv) < need)
        return gs_llm_engine_step(e, t);    /* a preemption: the general way */
    prefetch_top(e);
    e->dec_blocks = 0;
    if (need > 0 && gs_llmkv_alloc(&e->kv, need) == 0)
        e->dec_blocks = need;
    struct gs_llm_batch b = { 0 };
    b.decode_tokens = e->ndec;
    b.decode_ctx = e->sum_ctx + e->ndec;
    b.sampled = b.decode_tokens;
    b.seqs = b.decode_tokens;
    double uc, um;
    double dur = gs_llm_perf_step(&e->perf, e->memo, &b, &uc, &um);
    e->last = (struct gs_llm_iter){
        .start = t, .duration = dur, .decode_tokens = e->ndec,
        .seqs = e->ndec, .compute_util = uc, .mem_util = um,
    };
    e->busy = dur > 0;
    e->next_done = -1;
    if (e->hn > 0 && e->heap[0].fin == e->step && hent_live(e, e->heap[0]))
        e->next_done = (int64_t)e->r[e->heap[0].i].id;
    return dur;
}

void gs_llm_engine_stats(const struct gs_llm_engine *e,
                         struct gs_llm_stats *s)
{
    *s = e->st;
    s->waiting = e->waiting.n;
    s->running = e->running.n;
    s->blocks_used = gs_llmkv_used(&e->kv);
    s->blocks_cached = e->kv.units * e->kv.unit_blocks;
    s->busy = e->busy;
}

const struct gs_llm_iter *gs_llm_engine_last(const struct gs_llm_engine *e)
{
    return &e->last;
}

const struct gs_llm_perf *gs_llm_engine_perf(const struct gs_llm_engine *e)
{
    return &e->perf;
}

struct gs_llm_memo *gs_llm_engine_memo(const struct gs_llm_engine *e)
{
    return e->memo;
}
