/* radixq.c -- radix heap (see radixq.h for the algorithm and its source).
 *
 * Invariants: every entry e sits in bucket idx(last, e.time), where idx is 0
 * for equal times and otherwise the 1-based position of the highest differing
 * bit; bucket 0 entries a[head..n) ascend by seq; an entry is live iff its
 * seq equals its node's; live counts them; topb/topi, when topb >= 0, locate
 * the live entry with the least (time, seq). */
#include "radixq.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

static inline int less(const struct gs_hslot *x, const struct gs_hslot *y)
{
    return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static inline int stale(const struct gs_hslot *s)
{
    return s->node->seq != s->seq;
}

static inline int idx(gs_time last, gs_time t)
{
    uint64_t x = (uint64_t)(t ^ last);
    return x ? 64 - __builtin_clzll(x) : 0;
}

void gs_radixq_init(struct gs_radixq *q)
{
    memset(q, 0, sizeof *q);
    q->topb = -1;
}

void gs_radixq_clear(struct gs_radixq *q)
{
    for (int i = 0; i < 65; i++) {
        struct gs_rbucket *b = &q->b[i];
        for (uint32_t k = b->head; k < b->n; k++)
            if (!stale(&b->a[k]))
                b->a[k].node->seq = 0;
        free(b->a);
    }
    gs_radixq_init(q);
}

static int append(struct gs_rbucket *b, struct gs_hslot s)
{
    if (b->n == b->cap) {
        if (b->head > 0) {
            memmove(b->a, b->a + b->head,
                    (size_t)(b->n - b->head) * sizeof *b->a);
            b->n -= b->head;
            b->head = 0;
        }
        if (b->n == b->cap) {
            uint32_t cap = b->cap ? b->cap * 2 : 16;
            struct gs_hslot *a = realloc(b->a, (size_t)cap * sizeof *a);
            if (a == NULL)
                return GS_ENOMEM;
            b->a = a;
            b->cap = cap;
        }
    }
    b->a[b->n++] = s;
    return 0;
}

static int by_seq(const void *x, const void *y)
{
    const struct gs_hslot *a = x, *b = y;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Drop every stale entry and rebuild the buckets around last. */
static int compact(struct gs_radixq *q)
{
    struct gs_rbucket old[65];
    memcpy(old, q->b, sizeof old);
    memset(q->b, 0, sizeof q->b);
    int rc = 0;
    q->n = 0;
    for (int i = 0; i < 65; i++) {
        for (uint32_t k = old[i].head; k < old[i].n && rc == 0; k++)
            if (!stale(&old[i].a[k])) {
                rc = append(&q->b[idx(q->last, old[i].a[k].time)],
                            old[i].a[k]);
                q->n++;
            }
        free(old[i].a);
    }
    struct gs_rbucket *z = &q->b[0];
    if (z->n > 1)
        qsort(z->a, z->n, sizeof *z->a, by_seq);
    q->topb = -1;
    return rc;
}

int gs_radixq_update(struct gs_radixq *q, struct gs_hnode *node, gs_time time)
{
    GS_ASSERT(time >= q->last);
    if (q->n > 2 * q->live + 1024 && compact(q) < 0)
        return GS_ENOMEM;
    struct gs_hslot s = { time, q->seq + 1, node };
    if (append(&q->b[idx(q->last, time)], s) < 0)
        return GS_ENOMEM;
    q->seq++;
    q->n++;
    if (node->seq == 0)
        q->live++;
    else if (q->topb >= 0 && q->b[q->topb].a[q->topi].node == node)
        q->topb = -1;                   /* the cached minimum moved */
    node->time = time;
    node->seq = s.seq;
    if (q->topb >= 0 && less(&s, &q->b[q->topb].a[q->topi]))
        q->topb = -1;
    return 0;
}

void gs_radixq_remove(struct gs_radixq *q, struct gs_hnode *node)
{
    if (node->seq == 0)
        return;
    if (q->topb >= 0 && q->b[q->topb].a[q->topi].node == node)
        q->topb = -1;
    node->seq = 0;
    q->live--;
}

/* Find (and cache) the live minimum without moving last. */
static int find_top(struct gs_radixq *q)
{
    if (q->topb >= 0)
        return 1;
    if (q->live == 0)
        return 0;
    struct gs_rbucket *z = &q->b[0];
    while (z->head < z->n && stale(&z->a[z->head])) {
        z->head++;
        q->n--;
    }
    if (z->head == z->n)
        z->head = z->n = 0;
    if (z->n > 0) {
        q->topb = 0;
        q->topi = z->head;
        return 1;
    }
    for (int i = 1; i < 65; i++) {
        struct gs_rbucket *b = &q->b[i];
        while (b->n > b->head) {
            /* The least key; look at the node only for that candidate. */
            uint32_t m = b->head;
            for (uint32_t k = b->head + 1; k < b->n; k++)
                if (less(&b->a[k], &b->a[m]))
                    m = k;
            if (!stale(&b->a[m])) {
                q->topb = i;
                q->topi = m;
                return 1;
            }
            b->a[m] = b->a[--b->n];     /* unordered: drop it in place */
            q->n--;
        }
    }
    GS_ASSERT(!"live entries but no bucket holds one");
    return 0;
}

struct gs_hnode *gs_radixq_top(struct gs_radixq *q)
{
    return find_top(q) ? q->b[q->topb].a[q->topi].node : NULL;
}

struct gs_hnode *gs_radixq_pop(struct gs_radixq *q)
{
    if (!find_top(q))
        return NULL;
    struct gs_rbucket *z = &q->b[0];
    if (q->topb > 0) {
        /* Bucket 0 is empty: redistribute the minimum's bucket around it. */
        struct gs_rbucket *b = &q->b[q->topb];
        q->last = b->a[q->topi].time;
        uint32_t n = b->n;
        b->n = b->head = 0;
        for (uint32_t k = 0; k < n; k++) {
            struct gs_hslot s = b->a[k];
            /* A lower bucket may have to grow; running out of memory
             * halfway through a move cannot be undone, so it aborts. */
            if (append(&q->b[idx(q->last, s.time)], s) < 0)
                GS_ASSERT(!"out of memory redistributing a bucket");
        }
        if (z->n > 1)
            qsort(z->a, z->n, sizeof *z->a, by_seq);
        while (stale(&z->a[z->head]))
            z->head++, q->n--;
    }
    struct gs_hnode *node = z->a[z->head++].node;
    q->n--;
    if (z->head == z->n)
        z->head = z->n = 0;
    else
        __builtin_prefetch(z->a[z->head].node);
    q->topb = -1;
    node->seq = 0;
    q->live--;
    return node;
}
