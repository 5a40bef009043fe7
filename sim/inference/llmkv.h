/* llmkv.h -- a replica's KV cache: block accounting and the prefix cache (internal to the engine).
 *
 * Blocks are counted, not tracked one by one: the engine knows how many
 * private blocks each request holds.  The prefix cache holds units of
 * unit_blocks blocks (one Mooncake hash id = 512 tokens), each keyed by its
 * 64-bit hash, with a reference count; unreferenced units stay cached in
 * least-recently-released order and are evicted from the cold end when
 * blocks run short.  Invariant: priv + cached_units * unit_blocks <= total. */
#ifndef GS_LLMKV_H
#define GS_LLMKV_H

#include <stdint.h>

struct gs_llmkv_unit {
    uint64_t hash;
    int ref;
    int prev, next;         /* LRU list of unreferenced units (-1 ends) */
};

struct gs_llmkv {
    long total;             /* blocks */
    long priv;              /* blocks held privately by requests */
    int unit_blocks;        /* blocks per prefix unit */
    long units;             /* units cached (referenced or not) */
    long idle_units;        /* of which unreferenced (evictable) */
    /* prefix cache: open addressing, linear probing, backward-shift delete */
    int *slot;              /* unit index or -1; cap entries */
    uint32_t mask;
    struct gs_llmkv_unit *u;
    int ucap, free_head;    /* units pool; free list through next */
    int lru_head, lru_tail; /* head: least recently released */
    long evictions;
};

/* 0 or GS_ENOMEM.  units_max bounds the prefix cache (0: no cache). */
int gs_llmkv_init(struct gs_llmkv *kv, long total, int unit_blocks,
                  long units_max);
void gs_llmkv_release(struct gs_llmkv *kv);

/* Blocks not held by requests or referenced units (evictable ones count). */
static inline long gs_llmkv_available(const struct gs_llmkv *kv)
{
    return kv->total - kv->priv
           - (kv->units - kv->idle_units) * kv->unit_blocks;
}
static inline long gs_llmkv_used(const struct gs_llmkv *kv)
{
    return kv->priv + kv->units * kv->unit_blocks;
}

/* Take n private blocks, evicting idle units as needed; -1 (nothing
 * changed) when gs_llmkv_available is short of n. */
int gs_llmkv_alloc(struct gs_llmkv *kv, long n);
static inline void gs_llmkv_free(struct gs_llmkv *kv, long n)
{
    kv->priv -= n;
}

/* The unit cached under hash, or -1. */
int gs_llmkv_find(const struct gs_llmkv *kv, uint64_t hash);
/* Reference unit i (taking it off the LRU list on its first reference). */
void gs_llmkv_ref(struct gs_llmkv *kv, int i);
/* Drop a reference; an unreferenced unit goes to the warm end of the LRU. */
void gs_llmkv_unref(struct gs_llmkv *kv, int i);
/* Register hash for a request that computed it: an existing unit gains a
 * reference and the request's unit_blocks private blocks are freed (1);
 * otherwise they move from private to a new unit with one reference (0);
 * -1 when the unit pool is full (the blocks stay private). */
int gs_llmkv_publish(struct gs_llmkv *kv, uint64_t hash, int *unit);

#endif
