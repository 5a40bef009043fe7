/* calq.c -- calendar queue (see calq.h for the algorithm and its source).
 *
 * Invariants: every entry e sits in bucket (e.time / width) mod nb, each
 * bucket's entries a[head..n) ascend by (time, seq); no live entry is
 * earlier than the current day `day`, which starts at a multiple of width
 * and maps to bucket `cur`; an entry is live iff its seq equals its node's. */
#include "calq.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

#define MIN_BUCKETS 16

static inline int less(const struct gs_hslot *x, const struct gs_hslot *y)
{
    return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static inline int stale(const struct gs_hslot *s)
{
    return s->node->seq != s->seq;
}

static inline uint32_t bucket_of(const struct gs_calq *q, gs_time t)
{
    return (uint32_t)(((uint64_t)t >> q->shift) & (q->nb - 1));
}

static int alloc_buckets(struct gs_calq *q, uint32_t nb)
{
    struct gs_cbucket *b = calloc(nb, sizeof *b);
    if (b == NULL)
        return GS_ENOMEM;
    q->b = b;
    q->nb = nb;
    return 0;
}

int gs_calq_init(struct gs_calq *q)
{
    memset(q, 0, sizeof *q);
    q->shift = 10;
    q->width = (gs_time)1 << q->shift;
    return alloc_buckets(q, MIN_BUCKETS);
}

void gs_calq_clear(struct gs_calq *q)
{
    for (uint32_t i = 0; q->b && i < q->nb; i++) {
        struct gs_cbucket *b = &q->b[i];
        for (uint32_t k = b->head; k < b->n; k++)
            if (!stale(&b->a[k]))
                b->a[k].node->seq = 0;
        free(b->a);
    }
    free(q->b);
    memset(q, 0, sizeof *q);
}

/* Put slot s into its bucket, keeping the bucket sorted. */
static int put(struct gs_calq *q, struct gs_hslot s)
{
    struct gs_cbucket *b = &q->b[bucket_of(q, s.time)];
    /* Fast path: the new entry is the bucket's latest and there is room. */
    if (b->n < b->cap && (b->n == b->head || !less(&s, &b->a[b->n - 1]))) {
        b->a[b->n++] = s;
        q->n++;
        return 0;
    }
    if (b->n == b->cap) {
        if (b->head > 0) {              /* reuse the space before head */
            memmove(b->a, b->a + b->head,
                    (size_t)(b->n - b->head) * sizeof *b->a);
            b->n -= b->head;
            b->head = 0;
        }
        if (b->n == b->cap) {
            uint32_t cap = b->cap ? b->cap * 2 : 4;
            struct gs_hslot *a = realloc(b->a, (size_t)cap * sizeof *a);
            if (a == NULL)
                return GS_ENOMEM;
            b->a = a;
            b->cap = cap;
        }
    }
    uint32_t i = b->n;
    while (i > b->head && less(&s, &b->a[i - 1]))
        i--;
    if (i < b->n)
        memmove(&b->a[i + 1], &b->a[i], (size_t)(b->n - i) * sizeof *b->a);
    b->a[i] = s;
    b->n++;
    q->n++;
    return 0;
}

static void set_day(struct gs_calq *q, gs_time t)
{
    q->day = t & ~(q->width - 1);
    q->cur = bucket_of(q, t);
}

/* The bucket holding the earliest live entry, dropping stale heads on the
 * way; -1 if the queue is empty. */
static long find_min(struct gs_calq *q)
{
    if (q->live == 0)
        return -1;
    for (uint32_t k = 0; k < q->nb; k++) {
        struct gs_cbucket *b = &q->b[q->cur];
        /* Look at the owner (a random memory access) only for an entry
         * that is due today. */
        while (b->head < b->n && b->a[b->head].time < q->day + q->width) {
            if (!stale(&b->a[b->head]))
                return q->cur;
            b->head++;
            q->n--;
        }
        q->cur = (q->cur + 1) & (q->nb - 1);
        q->day += q->width;
    }
    /* A year without an entry: jump to the minimum directly. */
    long best = -1;
    for (uint32_t i = 0; i < q->nb; i++) {
        struct gs_cbucket *b = &q->b[i];
        while (b->head < b->n && stale(&b->a[b->head])) {
            b->head++;
            q->n--;
        }
        if (b->head < b->n &&
            (best < 0 || less(&b->a[b->head], &q->b[best].a[q->b[best].head])))
            best = i;
    }
    GS_ASSERT(best >= 0);
    set_day(q, q->b[best].a[q->b[best].head].time);
    return best;
}

/* Rebuild with nb buckets and a width estimated from the earliest entries. */
static void resize(struct gs_calq *q, uint32_t nb)
{
    /* Brown: sample up to 25 earliest live entries; width = 3 x the mean
     * gap, ignoring gaps over twice the first mean (outliers). */
    enum { K = 25 };
    gs_time t[K];
    int k = 0;
    q->resizing = 1;
    struct gs_hslot keep[K];
    while (k < K && q->live > 0) {
        long i = find_min(q);
        struct gs_cbucket *b = &q->b[i];
        keep[k] = b->a[b->head++];
        q->n--;
        q->live--;
        t[k] = keep[k].time;
        k++;
    }
    gs_time width = q->width;
    if (k >= 2) {
        double mean = (double)(t[k - 1] - t[0]) / (k - 1), sum = 0;
        int m = 0;
        for (int i = 1; i < k; i++)
            if ((double)(t[i] - t[i - 1]) <= 2 * mean) {
                sum += (double)(t[i] - t[i - 1]);
                m++;
            }
        double w = m > 0 ? 3.0 * sum / m : 3.0 * mean;
        width = w < 1 ? 1 : (gs_time)w;
    }
    /* Round to a power of two: a day index is then a shift, not a
     * division, in every insert and dequeue. */
    int shift = 0;
    while (shift < 40 && ((gs_time)1 << (shift + 1)) <= width)
        shift++;
    struct gs_cbucket *old = q->b;
    uint32_t oldnb = q->nb;
    if (alloc_buckets(q, nb) < 0) {     /* keep the old table */
        q->b = old;
        q->nb = oldnb;
    } else {
        q->shift = shift;
        q->width = (gs_time)1 << shift;
        q->n = 0;
        for (uint32_t i = 0; i < oldnb; i++) {
            for (uint32_t j = old[i].head; j < old[i].n; j++)
                if (!stale(&old[i].a[j]))
                    put(q, old[i].a[j]);
            free(old[i].a);
        }
        free(old);
    }
    for (int i = 0; i < k; i++) {
        put(q, keep[i]);
        q->live++;
    }
    if (q->live > 0) {
        set_day(q, t[0]);
    }
    q->resizing = 0;
}

int gs_calq_update(struct gs_calq *q, struct gs_hnode *node, gs_time time)
{
    GS_ASSERT(time >= 0);
    int fresh = node->seq == 0;
    struct gs_hslot s = { time, ++q->seq, node };
    if (put(q, s) < 0) {
        q->seq--;
        return GS_ENOMEM;
    }
    node->time = time;
    node->seq = s.seq;
    if (fresh)
        q->live++;
    if (q->live == 1 || time < q->day)
        set_day(q, time);
    if (!q->resizing && q->n > 2 * (size_t)q->nb && q->nb < (1u << 30))
        resize(q, q->nb * 2);
    return 0;
}

void gs_calq_remove(struct gs_calq *q, struct gs_hnode *node)
{
    if (node->seq == 0)
        return;
    node->seq = 0;
    q->live--;
    if (!q->resizing && q->nb > MIN_BUCKETS && q->live < q->nb / 4)
        resize(q, q->nb / 2);
}

struct gs_hnode *gs_calq_top(struct gs_calq *q)
{
    long i = find_min(q);
    return i < 0 ? NULL : q->b[i].a[q->b[i].head].node;
}

struct gs_hnode *gs_calq_pop(struct gs_calq *q)
{
    struct gs_cbucket *b = &q->b[q->cur];
    /* Fast path: the current day's bucket has a live entry due today. */
    if (!(b->head < b->n && b->a[b->head].time < q->day + q->width &&
          !stale(&b->a[b->head]))) {
        long i = find_min(q);
        if (i < 0)
            return NULL;
        b = &q->b[i];
    }
    struct gs_hnode *node = b->a[b->head++].node;
    if (b->head == b->n)
        b->head = b->n = 0;
    else    /* the next pop checks this owner: fetch it while the caller works */
        __builtin_prefetch(b->a[b->head].node);
    q->n--;
    node->seq = 0;
    q->live--;
    if (q->nb > MIN_BUCKETS && q->live < q->nb / 4)
        resize(q, q->nb / 2);
    return node;
}
