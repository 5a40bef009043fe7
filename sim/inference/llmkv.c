/* llmkv.c -- a replica's KV cache: block accounting and the LRU prefix cache.
 *
 * vLLM's paged attention (Kwon et al., SOSP'23) stores each sequence's K and
 * V in fixed-size blocks; its automatic prefix caching keeps the blocks of a
 * finished request under the hash of their token prefix, shares them with
 * later requests that start with the same tokens, and evicts unreferenced
 * ones least recently used first.  Here a cached unit is one Mooncake hash
 * id (Qin et al., FAST'25: 512-token blocks whose ids chain over the
 * prefix, so equal ids mean equal prefixes), i.e. unit_blocks engine blocks.
 *
 * The table is open addressing with linear probing and backward-shift
 * deletion (Knuth 6.4, Algorithm R), sized to a power of two at least twice
 * the most units the blocks can hold, so probes stay short and nothing is
 * ever rehashed.  Every operation is O(1) expected. */
#include "llmkv.h"
#include "../base/err.h"

#include <stdlib.h>

static uint32_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

int gs_llmkv_init(struct gs_llmkv *kv, long total, int unit_blocks,
                  long units_max)
{
    *kv = (struct gs_llmkv){ .total = total, .unit_blocks = unit_blocks,
                             .lru_head = -1, .lru_tail = -1,
                             .free_head = -1 };
    if (units_max <= 0)
        return 0;
    if (units_max > (1L << 28))
        units_max = 1L << 28;
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)units_max)
        cap <<= 1;
    kv->slot = malloc(cap * sizeof *kv->slot);
    kv->u = malloc((size_t)units_max * sizeof *kv->u);
    if (!kv->slot || !kv->u) {
        gs_llmkv_release(kv);
        return GS_ENOMEM;
    }
    for (uint32_t i = 0; i < cap; i++)
        kv->slot[i] = -1;
    kv->mask = cap - 1;
    kv->ucap = (int)units_max;
    for (int i = kv->ucap - 1; i >= 0; i--) {
        kv->u[i].next = kv->free_head;
        kv->free_head = i;
    }
    return 0;
}

void gs_llmkv_release(struct gs_llmkv *kv)
{
    if (!kv)
        return;
    free(kv->slot);
    free(kv->u);
    kv->slot = NULL;
    kv->u = NULL;
}

int gs_llmkv_find(const struct gs_llmkv *kv, uint64_t hash)
{
    if (!kv->slot)
        return -1;
    for (uint32_t s = mix(hash) & kv->mask;; s = (s + 1) & kv->mask) {
        int i = kv->slot[s];
        if (i < 0)
            return -1;
        if (kv->u[i].hash == hash)
            return i;
    }
}

static void lru_unlink(struct gs_llmkv *kv, int i)
{
    struct gs_llmkv_unit *u = &kv->u[i];
    if (u->prev >= 0)
        kv->u[u->prev].next = u->next;
    else
        kv->lru_head = u->next;
    if (u->next >= 0)
        kv->u[u->next].prev = u->prev;
    else
        kv->lru_tail = u->prev;
}

static void lru_push_warm(struct gs_llmkv *kv, int i)
{
    struct gs_llmkv_unit *u = &kv->u[i];
    u->next = -1;
    u->prev = kv->lru_tail;
    if (kv->lru_tail >= 0)
        kv->u[kv->lru_tail].next = i;
    else
        kv->lru_head = i;
    kv->lru_tail = i;
}

/* Remove unit i (unreferenced) from the table and return it to the pool. */
static void evict(struct gs_llmkv *kv, int i)
{
    lru_unlink(kv, i);
    uint32_t s = mix(kv->u[i].hash) & kv->mask;
    while (kv->slot[s] != i)
        s = (s + 1) & kv->mask;
    /* backward-shift: pull later members of the probe run into the hole */
    for (uint32_t j = (s + 1) & kv->mask;; j = (j + 1) & kv->mask) {
        int k = kv->slot[j];
        if (k < 0)
            break;
        uint32_t home = mix(kv->u[k].hash) & kv->mask;
        /* k may move to s when s lies cyclically in [home, j) */
        if (((j - home) & kv->mask) >= ((j - s) & kv->mask)) {
            kv->slot[s] = k;
            s = j;
        }
    }
    kv->slot[s] = -1;
    kv->u[i].next = kv->free_head;
    kv->free_head = i;
    kv->units--;
    kv->idle_units--;
    kv->evictions++;
}

int gs_llmkv_alloc(struct gs_llmkv *kv, long n)
{
    if (gs_llmkv_available(kv) < n)
        return -1;
    while (kv->total - gs_llmkv_used(kv) < n) {
        GS_ASSERT(kv->lru_head >= 0);
        evict(kv, kv->lru_head);
    }
    kv->priv += n;
    return 0;
}

void gs_llmkv_ref(struct gs_llmkv *kv, int i)
{
    if (kv->u[i].ref++ == 0) {
        lru_unlink(kv, i);
        kv->idle_units--;
    }
}

void gs_llmkv_unref(struct gs_llmkv *kv, int i)
{
    GS_ASSERT(kv->u[i].ref > 0);
    if (--kv->u[i].ref == 0) {
        lru_push_warm(kv, i);
        kv->idle_units++;
    }
}

int gs_llmkv_publish(struct gs_llmkv *kv, uint64_t hash, int *unit)
{
    int i = gs_llmkv_find(kv, hash);
    if (i >= 0) {
        gs_llmkv_ref(kv, i);
        kv->priv -= kv->unit_blocks;
        *unit = i;
        return 1;
    }
    if (kv->free_head < 0)
        return -1;
    i = kv->free_head;
    kv->free_head = kv->u[i].next;
    kv->u[i] = (struct gs_llmkv_unit){ .hash = hash, .ref = 1,
                                       .prev = -1, .next = -1 };
    uint32_t s = mix(hash) & kv->mask;
    while (kv->slot[s] >= 0)
        s = (s + 1) & kv->mask;
    kv->slot[s] = i;
    kv->units++;
    kv->priv -= kv->unit_blocks;
    *unit = i;
    return 0;
}
