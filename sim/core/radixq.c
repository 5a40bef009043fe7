/* radixq.c -- multi-level bucket queue (see radixq.h for the structure and
 * its sources).
 *
 * Invariants: an entry with key k sits in bucket (level(last, k),
 * digit(k, level)); a bucket's array a[head..n) is in the order the entries
 * were scheduled among equal times; `used` and `words` mark exactly the
 * non-empty buckets; an entry is live iff its seq equals its node's; `live`
 * counts the live ones and `n` all; `top`, when set, locates the live entry
 * of least (time, seq).  Only level-0 buckets have head > 0, and an empty
 * bucket has head == n == 0.
 *
 * The run: a bucket of level R = 1 or 2, when it is the lowest non-empty
 * one and level 0 and the run are empty, is not drained into the levels
 * below but sorted whole into the run (counting passes over its low
 * digits, stable; insertion below SMALL entries), and last moves to the
 * bucket's first possible key, as a drain would.  From then on last stays
 * inside that bucket's range while the run has entries (only pops from
 * level 0 and drains below level R move it), so every entry filed since
 * lands either below level R -- inside the run's range, scheduled after
 * every run entry, so it loses ties to them -- or at level R and above,
 * beyond the run's last key.  Popping the run's front does not move last:
 * an entry filed below R relative to an earlier last could otherwise end
 * up in a bucket of a level too high for the new one.  `bound` is at or
 * below the key of every entry filed below level R (exactly the least
 * after a slow pop, lowered by each such insert), so a run front at or
 * below it is the minimum without a look at the buckets: the common pop.
 *
 * Keys are the times with the sign bit flipped, so that signed times order
 * as unsigned keys. */
#include "radixq.h"
#include "../base/err.h"

#include <stdlib.h>
#include <string.h>

#define SIGN (UINT64_C(1) << 63)
/* An emptied bucket keeps an array of up to KEEP entries and frees a larger
 * one.  Keeping them all is slower, not only larger: the arrays of far
 * buckets are used once per pass, and writing into memory left cold since
 * the last pass costs more than growing a fresh array from memory the
 * allocator has just been given back (measured: 15 against 24 M holds/s at
 * 10^5 events). */
#define KEEP 256

/* A tombstone: peeking marks a stale entry it has looked at by pointing it
 * here, so the entry stays in place (order kept) and is never looked at
 * again.  Never written; its seq, 0, matches no entry's. */
static struct gs_hnode dead;

static inline uint64_t key_of(gs_time t)
{
    return (uint64_t)t ^ SIGN;
}

static inline int stale(const struct gs_hslot *s)
{
    return s->node->seq != s->seq;
}

/* Is the entry s possibly stale?  Only if some entry is: when none is (the
 * usual case in a run where events are rarely cancelled or moved), the
 * answer needs no read of the node, which is scattered in memory and
 * usually not in cache when it is about to become the minimum. */
static inline int maybe_stale(const struct gs_radixq *q,
                              const struct gs_hslot *s)
{
    return q->n != q->live && stale(s);
}

/* The level of key k against last: its highest bit differing from last,
 * in digits (0 when they are equal). */
static inline unsigned level_of(uint64_t last, uint64_t k)
{
    return (unsigned)(63 - __builtin_clzll((k ^ last) | 1)) / GS_RQ_BITS;
}

static inline unsigned digit_of(uint64_t k, unsigned level)
{
    return (unsigned)(k >> (level * GS_RQ_BITS)) & (GS_RQ_FAN - 1);
}

/* The lowest level with a non-empty bucket; GS_RQ_LEVELS if none. */
static inline unsigned lowest_level(const struct gs_radixq *q)
{
    return q->levels ? (unsigned)__builtin_ctz(q->levels) : GS_RQ_LEVELS;
}

/* The least key bucket (level, d) can hold, relative to last. */
static inline uint64_t base_of(const struct gs_radixq *q, unsigned level,
                               unsigned d)
{
    unsigned shift = (level + 1) * GS_RQ_BITS;
    uint64_t high = shift >= 64 ? 0 : ~UINT64_C(0) << shift;
    return (q->last & high) | (uint64_t)d << (level * GS_RQ_BITS);
}

/* The lowest non-empty bucket of a level known to have one. */
static inline unsigned first_digit(const struct gs_radixq *q, unsigned level)
{
    unsigned w = (unsigned)__builtin_ctz(q->words[level]);
    uint64_t bits = q->used[level * GS_RQ_WORDS + w];
    return w * 64 + (unsigned)__builtin_ctzll(bits);
}

void gs_radixq_init(struct gs_radixq *q)
{
    memset(q, 0, sizeof *q);
}

void gs_radixq_clear(struct gs_radixq *q)
{
    for (int i = 0; i < GS_RQ_LEVELS * GS_RQ_FAN; i++) {
        struct gs_rbucket *b = &q->b[i];
        for (uint32_t k = b->head; k < b->n; k++)
            if (!stale(&b->a[k]))
                b->a[k].node->seq = 0;
        free(b->a);
    }
    for (uint32_t k = q->run.head; k < q->run.n; k++)
        if (!stale(&q->run.a[k]))
            q->run.a[k].node->seq = 0;
    free(q->run.a);
    free(q->tmp);
    gs_radixq_init(q);
}

/* Bucket (level, d) has no entries left.  A large array is freed, so that
 * the memory held stays near the peak number of entries. */
static inline void empty(struct gs_radixq *q, unsigned level, unsigned d)
{
    unsigned i = level * GS_RQ_FAN + d;
    struct gs_rbucket *b = &q->b[i];
    b->head = b->n = 0;
    if (b->cap > KEEP) {
        free(b->a);
        b->a = NULL;
        b->cap = 0;
    }
    uint64_t *w = &q->used[i / 64];
    *w &= ~(UINT64_C(1) << (i % 64));
    if (*w == 0) {
        q->words[level] &= ~(UINT32_C(1) << (d / 64));
        if (q->words[level] == 0)
            q->levels &= ~(UINT32_C(1) << level);
    }
}

/* Room for one more entry at the end of b. */
static __attribute__((noinline)) int grow(struct gs_radixq *q, struct gs_rbucket *b)
{
    if (b->head > 0) {
        memmove(b->a, b->a + b->head, (size_t)(b->n - b->head) * sizeof *b->a);
        if (q->top == b)
            q->topi -= b->head;
        b->n -= b->head;
        b->head = 0;
        if (b->n < b->cap)
            return 0;
    }
    uint32_t cap = b->cap ? b->cap * 2 : 16;
    struct gs_hslot *a = realloc(b->a, (size_t)cap * sizeof *a);
    if (a == NULL)
        return GS_ENOMEM;
    b->a = a;
    b->cap = cap;
    return 0;
}

/* Bucket i of level, empty until now, gets an entry. */
static inline void mark(struct gs_radixq *q, unsigned level, unsigned i)
{
    q->used[i / 64] |= UINT64_C(1) << (i % 64);
    q->words[level] |= UINT32_C(1) << (i % GS_RQ_FAN / 64);
    q->levels |= UINT32_C(1) << level;
}

/* Append s to its bucket relative to last and return the bucket (NULL when
 * out of memory).  An entry filed at level 0 is
 * due within 2^GS_RQ_BITS ms of last and will be popped soon: its node is
 * fetched into cache now, so that the pop does not wait on memory (this
 * halves the time of a hold at 10^6 events). */
static inline struct gs_rbucket *file(struct gs_radixq *q,
                                      const struct gs_hslot *s)
{
    uint64_t k = key_of(s->time);
    unsigned level = level_of(q->last, k);
    unsigned i = level * GS_RQ_FAN + digit_of(k, level);
    struct gs_rbucket *b = &q->b[i];
    if (b->n == b->cap && grow(q, b) < 0)
        return NULL;
    if (level == 0)
        __builtin_prefetch(s->node);
    if (b->n == 0)
        mark(q, level, i);
    b->a[b->n++] = *s;
    return b;
}

/* Drop every stale entry, keeping the order of the rest; no entry changes
 * bucket, as last does not move. */
static __attribute__((noinline)) void compact(struct gs_radixq *q)
{
    for (unsigned i = 0; i < GS_RQ_LEVELS * GS_RQ_FAN; i++) {
        struct gs_rbucket *b = &q->b[i];
        if (b->n == b->head)
            continue;
        uint32_t j = 0;
        for (uint32_t k = b->head; k < b->n; k++)
            if (!stale(&b->a[k]))
                b->a[j++] = b->a[k];
        q->n -= b->n - b->head - j;
        b->head = 0;
        b->n = j;
        if (j == 0)
            empty(q, i / GS_RQ_FAN, i % GS_RQ_FAN);
    }
    struct gs_rbucket *r = &q->run;
    uint32_t j = 0;
    for (uint32_t k = r->head; k < r->n; k++)
        if (!stale(&r->a[k]))
            r->a[j++] = r->a[k];
    q->n -= r->n - r->head - j;
    r->head = 0;
    r->n = j;
    q->top = NULL;
}

/* No live entries: forget the stale ones. */
static void drop_all(struct gs_radixq *q)
{
    unsigned l;
    while ((l = lowest_level(q)) < GS_RQ_LEVELS)
        empty(q, l, first_digit(q, l));
    q->run.head = q->run.n = 0;
    q->n = 0;
    q->top = NULL;
}

int gs_radixq_update(struct gs_radixq *q, struct gs_hnode *node, gs_time time)
{
    uint64_t k = key_of(time);
    GS_ASSERT(k >= q->last);
    if (q->n > 2 * q->live + 1024)
        compact(q);
    unsigned level = level_of(q->last, k);
    unsigned i = level * GS_RQ_FAN + digit_of(k, level);
    struct gs_rbucket *b = &q->b[i];
    if (b->n == b->cap && grow(q, b) < 0)
        return GS_ENOMEM;
    if (b->n == 0)
        mark(q, level, i);
    if (q->runmask >> level & 1 && k < q->bound)
        q->bound = k;
    uint64_t seq = ++q->seq;
    b->a[b->n++] = (struct gs_hslot){ time, seq, node };
    q->n++;
    q->live += node->seq == 0;
    node->time = time;
    node->seq = seq;
    /* The cached minimum: an earlier entry replaces it (it was below every
     * live entry, so this one is below them all), without a new search;
     * otherwise it goes only if it was this node's, now moved later. */
    if (q->top) {
        if (time < q->top->a[q->topi].time) {
            q->top = b;
            q->topi = b->n - 1;
        } else if (q->top->a[q->topi].node == node) {
            q->top = NULL;
        }
    }
    return 0;
}

void gs_radixq_remove(struct gs_radixq *q, struct gs_hnode *node)
{
    if (node->seq == 0)
        return;
    if (q->top && q->top->a[q->topi].node == node)
        q->top = NULL;
    node->seq = 0;
    q->live--;
}

/* Level 0's lowest bucket with a live entry at its front, stale entries
 * before it dropped; NULL if level 0 is empty. */
static inline struct gs_rbucket *front0(struct gs_radixq *q)
{
    while (q->words[0]) {
        unsigned d = first_digit(q, 0);
        struct gs_rbucket *b = &q->b[d];
        while (b->head < b->n && maybe_stale(q, &b->a[b->head])) {
            b->head++;
            q->n--;
        }
        if (b->head < b->n)
            return b;
        empty(q, 0, d);
    }
    return NULL;
}

/* The run's first live entry, stale entries before it dropped; NULL if it
 * has none. */
static inline struct gs_hslot *run_front(struct gs_radixq *q)
{
    struct gs_rbucket *r = &q->run;
    while (r->head < r->n) {
        struct gs_hslot *s = &r->a[r->head];
        if (!maybe_stale(q, s))
            return s;
        r->head++;
        q->n--;
    }
    return NULL;
}

/* Are there entries filed below the run's level (the only ones that can
 * come before the run's)? */
static inline int below_run(const struct gs_radixq *q)
{
    return (q->levels & q->runmask) != 0;
}

static inline struct gs_hnode *set_top(struct gs_radixq *q,
                                       struct gs_rbucket *b, uint32_t i)
{
    q->top = b;
    q->topi = i;
    return b->a[i].node;
}

/* The entry of least time in bucket (level, d) of a level above 0, first
 * in array order among equal times: 1 and its index in *at, or 0 when the
 * bucket held only stale entries (it is then emptied).  Without moving
 * last, so a stale candidate becomes a tombstone and the search goes on. */
static int bucket_min(struct gs_radixq *q, unsigned level, unsigned d,
                      uint32_t *at)
{
    struct gs_rbucket *b = &q->b[level * GS_RQ_FAN + d];
    for (;;) {
        uint32_t m = UINT32_MAX;
        for (uint32_t k = 0; k < b->n; k++)
            if (b->a[k].node != &dead &&
                (m == UINT32_MAX || b->a[k].time < b->a[m].time))
                m = k;
        if (m == UINT32_MAX) {
            q->n -= b->n;
            empty(q, level, d);
            return 0;
        }
        if (!maybe_stale(q, &b->a[m])) {
            *at = m;
            return 1;
        }
        b->a[m].node = &dead;
    }
}

/* The minimum is the least of the run's front, level 0's front and the
 * lowest bucket's least entry; the run's entries were all scheduled before
 * any entry filed since it was sorted, so the run wins ties. */
struct gs_hnode *gs_radixq_top(struct gs_radixq *q)
{
    if (q->top)
        return q->top->a[q->topi].node;
    if (q->live == 0) {
        drop_all(q);
        return NULL;
    }
    for (;;) {
        struct gs_hslot *s = run_front(q);
        struct gs_rbucket *b = front0(q);
        if (b && (s == NULL || b->a[b->head].time < s->time))
            return set_top(q, b, b->head);
        if (s && (b || !below_run(q)))
            return set_top(q, &q->run, q->run.head);
        /* Level 0 is empty; the lowest bucket is below the run's level if
         * the run has entries. */
        unsigned l = lowest_level(q);
        unsigned d = first_digit(q, l);
        if (s && key_of(s->time) < base_of(q, l, d))
            return set_top(q, &q->run, q->run.head);
        uint32_t m;
        if (!bucket_min(q, l, d, &m))
            continue;
        b = &q->b[l * GS_RQ_FAN + d];
        if (s && !(b->a[m].time < s->time))
            return set_top(q, &q->run, q->run.head);
        return set_top(q, b, m);
    }
}

/* Empty bucket (level, d), the lowest non-empty one, into the levels below,
 * around its first possible key.  That key is above last and at or below
 * every entry, so the other buckets stay where they are. */
static void drain(struct gs_radixq *q, unsigned level, unsigned d)
{
    q->last = base_of(q, level, d);
    struct gs_rbucket *b = &q->b[level * GS_RQ_FAN + d];
    for (uint32_t k = 0; k < b->n; k++)
        /* A lower bucket may have to grow; running out of memory halfway
         * through a move cannot be undone, so the run stops there. */
        GS_OOM_IF(file(q, &b->a[k]) == NULL);
    empty(q, level, d);
}

/* Room for m entries in *a, which holds nothing worth keeping. */
static int reserve(struct gs_hslot **a, uint32_t *cap, uint32_t m)
{
    if (*cap >= m)
        return 0;
    uint32_t c = *cap ? *cap : 64;
    while (c < m)
        c = c > UINT32_MAX / 2 ? m : c * 2;
    free(*a);
    *a = malloc((size_t)c * sizeof **a);
    *cap = *a ? c : 0;
    return *a ? 0 : GS_ENOMEM;
}

/* Buckets of fewer entries are sorted by insertion, more by counting. */
#define SMALL 32
/* The highest level whose buckets are sorted into the run; a bucket above
 * it is drained into the levels below. */
#define SORT_LEVEL 2

/* One stable counting pass: src's m entries into dst by the digit at
 * shift, cnt holding how many entries have each digit. */
static void scatter(struct gs_hslot *restrict dst,
                    const struct gs_hslot *restrict src, uint32_t m,
                    const uint32_t *cnt, unsigned shift)
{
    uint32_t pos[GS_RQ_FAN], sum = 0;
    for (unsigned v = 0; v < GS_RQ_FAN; v++) {
        pos[v] = sum;
        sum += cnt[v];
    }
    for (uint32_t i = 0; i < m; i++)
        dst[pos[(uint64_t)src[i].time >> shift & (GS_RQ_FAN - 1)]++] = src[i];
}

/* Sort bucket (level, d), the lowest non-empty one while level 0 and the
 * run are empty, into the run: stable, by the digits below level (the
 * digits above are the bucket's own), so equal times keep their order.
 * (A key's digits below level 7 are its time's: the sign flip is in the
 * top bit.) */
static void sort_run(struct gs_radixq *q, unsigned level, unsigned d)
{
    q->last = base_of(q, level, d);
    struct gs_rbucket *b = &q->b[level * GS_RQ_FAN + d];
    struct gs_rbucket *r = &q->run;
    uint32_t m = b->n;
    GS_OOM_IF(reserve(&r->a, &r->cap, m) < 0);
    const struct gs_hslot *src = b->a;
    struct gs_hslot *out = r->a;
    if (m < SMALL) {
        for (uint32_t i = 0; i < m; i++) {
            struct gs_hslot x = src[i];
            uint32_t j = i;
            for (; j > 0 && out[j - 1].time > x.time; j--)
                out[j] = out[j - 1];
            out[j] = x;
        }
    } else if (level == 1) {
        uint32_t cnt[GS_RQ_FAN] = { 0 };
        for (uint32_t i = 0; i < m; i++)
            cnt[(uint64_t)src[i].time & (GS_RQ_FAN - 1)]++;
        scatter(out, src, m, cnt, 0);
    } else {
        uint32_t c0[GS_RQ_FAN] = { 0 }, c1[GS_RQ_FAN] = { 0 };
        for (uint32_t i = 0; i < m; i++) {
            uint64_t t = (uint64_t)src[i].time;
            c0[t & (GS_RQ_FAN - 1)]++;
            c1[t >> GS_RQ_BITS & (GS_RQ_FAN - 1)]++;
        }
        /* A digit all entries share needs no pass. */
        uint64_t t = (uint64_t)src[0].time;
        int p0 = c0[t & (GS_RQ_FAN - 1)] != m;
        int p1 = c1[t >> GS_RQ_BITS & (GS_RQ_FAN - 1)] != m;
        if (p0 && p1) {
            GS_OOM_IF(reserve(&q->tmp, &q->tmpcap, m) < 0);
            scatter(q->tmp, src, m, c0, 0);
            scatter(out, q->tmp, m, c1, GS_RQ_BITS);
        } else if (p0 || p1) {
            scatter(out, src, m, p0 ? c0 : c1, p0 ? 0 : GS_RQ_BITS);
        } else {
            memcpy(out, src, (size_t)m * sizeof *src);
        }
    }
    r->head = 0;
    r->n = m;
    q->runmask = (UINT32_C(1) << level) - 1;
    q->bound = UINT64_MAX;
    empty(q, level, d);
}

/* How many pops ahead take_run fetches a node. */
#define AHEAD 8

/* Take the run's front, the minimum.  last stays: moving it could leave
 * an entry filed below the run's level in a bucket of a level too high
 * for the new last (all its keys are at or above the run's front, but
 * its bucket may reach below it). */
static inline struct gs_hnode *take_run(struct gs_radixq *q)
{
    struct gs_rbucket *r = &q->run;
    struct gs_hslot *s = &r->a[r->head++];
    /* The node a few pops ahead is fetched now, so that its pop does not
     * wait on memory. */
    if (r->head + AHEAD < r->n)
        __builtin_prefetch(r->a[r->head + AHEAD].node);
    struct gs_hnode *node = s->node;
    q->n--;
    node->seq = 0;
    q->live--;
    return node;
}

/* Take the front of level-0 bucket b, the minimum. */
static inline struct gs_hnode *take0(struct gs_radixq *q, struct gs_rbucket *b)
{
    struct gs_hslot *s = &b->a[b->head++];
    struct gs_hnode *node = s->node;
    q->last = key_of(s->time);
    q->n--;
    if (b->head == b->n)
        empty(q, 0, digit_of(q->last, 0));
    node->seq = 0;
    q->live--;
    return node;
}

static __attribute__((noinline)) struct gs_hnode *
pop_slow(struct gs_radixq *q)
{
    struct gs_rbucket *t = q->top;
    q->top = NULL;
    if (t == &q->run && q->topi == t->head)
        return take_run(q);
    if (t && t != &q->run && t < q->b + GS_RQ_FAN && q->topi == t->head)
        return take0(q, t);
    if (q->live == 0) {
        drop_all(q);
        return NULL;
    }
    for (;;) {
        struct gs_hslot *s = run_front(q);
        if (s) {
            /* bound becomes the least key below the run's level: level
             * 0's front, else the lowest bucket's least possible key. */
            struct gs_rbucket *b = front0(q);
            if (b) {
                q->bound = key_of(b->a[b->head].time);
                return b->a[b->head].time < s->time ? take0(q, b)
                                                     : take_run(q);
            }
            if (!below_run(q)) {
                q->bound = UINT64_MAX;
                return take_run(q);
            }
            unsigned l = lowest_level(q);
            unsigned d = first_digit(q, l);
            q->bound = base_of(q, l, d);
            if (key_of(s->time) < q->bound)
                return take_run(q);
            drain(q, l, d);
            continue;
        }
        struct gs_rbucket *b = front0(q);
        if (b)
            return take0(q, b);
        unsigned l = lowest_level(q);
        unsigned d = first_digit(q, l);
        if (l <= SORT_LEVEL)
            sort_run(q, l, d);
        else
            drain(q, l, d);
    }
}

struct gs_hnode *gs_radixq_pop(struct gs_radixq *q)
{
    /* The usual case: the run's front is live and at or below bound, so
     * it is the minimum (the run wins ties). */
    struct gs_rbucket *r = &q->run;
    if (r->head < r->n && key_of(r->a[r->head].time) <= q->bound &&
        !maybe_stale(q, &r->a[r->head])) {
        q->top = NULL;
        return take_run(q);
    }
    return pop_slow(q);
}
