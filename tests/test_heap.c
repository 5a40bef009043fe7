/* test_heap.c -- both event queues (the 4-ary heap and the radix heap)
 * against a simple reference, under long random sequences of push, pop,
 * cancel and reschedule with many ties and with skewed time distributions;
 * tie order; the best-first walk; the engine's clock. */
#include "cutest.h"
#include "../sim/core/radixq.h"
#include "../sim/core/engine.h"
#include "../sim/core/heap.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#define N 2000

/* Reference: an unsorted array of (time, seq, id); min by linear scan. */
struct ref { gs_time t; uint64_t seq; int in; };

/* One interface over both queues. */
struct pq { int cal; struct gs_heap h; struct gs_radixq c; };
static int pq_update(struct pq *q, struct gs_hnode *n, gs_time t)
{
    return q->cal ? gs_radixq_update(&q->c, n, t) : gs_heap_update(&q->h, n, t);
}
static void pq_remove(struct pq *q, struct gs_hnode *n)
{
    if (q->cal)
        gs_radixq_remove(&q->c, n);
    else
        gs_heap_remove(&q->h, n);
}
static struct gs_hnode *pq_pop(struct pq *q)
{
    return q->cal ? gs_radixq_pop(&q->c) : gs_heap_pop(&q->h);
}
static struct gs_hnode *pq_top(struct pq *q)
{
    return q->cal ? gs_radixq_top(&q->c) : gs_heap_top(&q->h);
}
static size_t pq_size(struct pq *q)
{
    return q->cal ? gs_radixq_size(&q->c) : gs_heap_size(&q->h);
}

/* Random operations on queue kind cal: insert or re-key, remove, pop, and
 * peek (after which earlier times may still be inserted, as the simulator
 * does).  Times drawn by `spread`: 0 = many ties in [0, 50) ms, 1 =
 * exponential gaps with rare huge jumps (resizes, empty years), 2 = gaps
 * of every order of magnitude up to 2^61 ms from a negative start (the
 * clock crosses zero), so that every level of the radix queue is used; all
 * relative to the last popped time (monotone clock). */
static void random_ops_phased(int cal, int spread, long steps, int phased);
static void random_ops(int cal, int spread, long steps)
{
    random_ops_phased(cal, spread, steps, 0);
}

/* phased: in every other stretch of 5,000 operations nothing is removed or
 * re-keyed (only new nodes are inserted), so the stale entries left by the
 * stretch before drain out and the queue runs without any for a while: the
 * radix queue then skips looking at nodes to tell stale entries (radixq.c,
 * maybe_stale), and the change of regime in both directions is covered. */
static void random_ops_phased(int cal, int spread, long steps, int phased)
{
    long clean = 0;
    static struct gs_hnode node[N];
    static struct ref ref[N];
    struct pq q = { .cal = cal };
    gs_heap_init(&q.h);
    if (cal)
        gs_radixq_init(&q.c);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7 + spread);
    gs_time now = spread == 2 ? -((gs_time)1 << 24) : 0;
    uint64_t seq = 0;
    long pops = 0, ties = 0, peeks = 0;
    for (int i = 0; i < N; i++) {
        gs_hnode_init(&node[i]);
        ref[i].in = 0;
    }
    for (long step = 0; step < steps; step++) {
        int op = (int)gsl_rng_uniform_int(r, 5);
        int i = (int)gsl_rng_uniform_int(r, N);
        gs_time t;
        if (spread == 0)
            t = now + (gs_time)gsl_rng_uniform_int(r, 50);
        else if (spread == 2) {
            uint64_t u = (uint64_t)gsl_rng_get(r) << 32 | gsl_rng_get(r);
            gs_time d = (gs_time)(u >> (gsl_rng_uniform_int(r, 61) + 3));
            if (now >= (gs_time)1 << 61)
                d &= 0xffff;                /* no overflow */
            t = now + d;
        }
        else if (gsl_rng_uniform(r) < 0.001)
            t = now + (gs_time)gsl_rng_uniform_int(r, 1000000000);
        else
            t = now + (gs_time)(gsl_rng_uniform(r) < 0.5 ? 0 : 1000 *
                                -log(1 - gsl_rng_uniform(r)));
        if (phased && (step / 5000) % 2 == 0) {
            if ((op == 0 || op == 1) && ref[i].in)
                continue;           /* no re-key in this stretch */
            if (op == 2)
                op = 3;             /* nor removal: a pop instead */
            if (cal)
                clean += q.c.n == q.c.live;
        }
        if (op == 0 || op == 1) {
            CU_ASSERT_EQUAL_FATAL(pq_update(&q, &node[i], t), 0);
            ref[i] = (struct ref){ t, seq++, 1 };
        } else if (op == 2) {
            pq_remove(&q, &node[i]);
            ref[i].in = 0;
        } else {
            int best = -1;
            for (int k = 0; k < N; k++)
                if (ref[k].in && (best < 0 || ref[k].t < ref[best].t ||
                                  (ref[k].t == ref[best].t &&
                                   ref[k].seq < ref[best].seq)))
                    best = k;
            if (op == 4) {
                struct gs_hnode *top = pq_top(&q);
                if (best < 0) {
                    CU_ASSERT_PTR_NULL_FATAL(top);
                } else {
                    CU_ASSERT_PTR_EQUAL_FATAL(top, &node[best]);
                }
                peeks++;
                continue;
            }
            struct gs_hnode *got = pq_pop(&q);
            if (best < 0) {
                CU_ASSERT_PTR_NULL_FATAL(got);
                continue;
            }
            CU_ASSERT_PTR_EQUAL_FATAL(got, &node[best]);
            CU_ASSERT_EQUAL_FATAL(got->time, ref[best].t);
            ref[best].in = 0;
            now = ref[best].t;
            pops++;
            for (int k = 0; k < N && ties < 1000; k++)
                ties += ref[k].in && ref[k].t == now;
        }
        if ((step & 4095) == 0) {
            long inref = 0;
            for (int k = 0; k < N; k++)
                inref += ref[k].in;
            CU_ASSERT_EQUAL_FATAL((long)pq_size(&q), inref);
        }
    }
    CU_ASSERT(pops > steps / 8);
    CU_ASSERT(peeks > steps / 8);
    if (spread == 0)
        CU_ASSERT(ties >= 1000);    /* the test did exercise ties */
    if (phased && cal)
        CU_ASSERT(clean > (spread == 1 ? 1000 : steps / 8));    /* and
            stretches without stale entries (with spread 1 the far-ahead
            stale entries leave only after the rare long jumps) */
    gs_heap_clear(&q.h);
    if (cal)
        gs_radixq_clear(&q.c);
    gsl_rng_free(r);
}

/* Operations per random sequence: ten times as many under make test-long. */
static long steps(long quick)
{
    return gs_test_long() ? 10 * quick : quick;
}

static void test_heap_ties(void) { random_ops(0, 0, steps(300000)); }
static void test_heap_skewed(void) { random_ops(0, 1, steps(300000)); }
static void test_radix_ties(void) { random_ops(1, 0, steps(300000)); }
static void test_radix_skewed(void) { random_ops(1, 1, steps(300000)); }
static void test_heap_wide(void) { random_ops(0, 2, steps(300000)); }
static void test_radix_wide(void) { random_ops(1, 2, steps(300000)); }
static void test_radix_phased(void)
{
    for (int spread = 0; spread < 3; spread++)
        random_ops_phased(1, spread, steps(200000), 1);
}
static void test_heap_phased(void) { random_ops_phased(0, 1, steps(200000), 1); }

static void test_ties_fifo(void)
{
    struct gs_heap h;
    gs_heap_init(&h);
    struct gs_hnode n[10];
    for (int i = 0; i < 10; i++) {
        gs_hnode_init(&n[i]);
        gs_heap_push(&h, &n[i], 5);
    }
    gs_heap_update(&h, &n[3], 5);   /* re-keyed: goes to the back */
    int order[10], k = 0;
    struct gs_hnode *p;
    while ((p = gs_heap_pop(&h)) != NULL)
        order[k++] = (int)(p - n);
    int want[10] = { 0, 1, 2, 4, 5, 6, 7, 8, 9, 3 };
    for (int i = 0; i < 10; i++)
        CU_ASSERT_EQUAL(order[i], want[i]);
    gs_heap_clear(&h);
}

/* The radix queue's peek leaves `last` alone: after a peek that had to
 * search a far bucket, an earlier time can still be inserted and comes out
 * first.  Equal times far ahead come out in schedule order through the
 * moves between levels, also when the first of them went stale and peek
 * had to pass over it. */
static void test_radix_peek(void)
{
    struct gs_radixq q;
    gs_radixq_init(&q);
    struct gs_hnode a, b, n[10];
    gs_hnode_init(&a);
    gs_hnode_init(&b);
    gs_radixq_update(&q, &a, 5000000);
    CU_ASSERT_PTR_EQUAL(gs_radixq_top(&q), &a);
    gs_radixq_update(&q, &b, 10);
    CU_ASSERT_PTR_EQUAL(gs_radixq_top(&q), &b);
    CU_ASSERT_PTR_EQUAL(gs_radixq_pop(&q), &b);
    CU_ASSERT_PTR_EQUAL(gs_radixq_top(&q), &a);
    gs_radixq_update(&q, &b, 10);       /* == last: still allowed */
    CU_ASSERT_PTR_EQUAL(gs_radixq_pop(&q), &b);
    for (int i = 0; i < 10; i++) {
        gs_hnode_init(&n[i]);
        gs_radixq_update(&q, &n[i], 5000000);
    }
    gs_radixq_update(&q, &a, 5000000);  /* re-keyed: behind n[9] */
    gs_radixq_update(&q, &n[0], 5000000);
    CU_ASSERT_PTR_EQUAL(gs_radixq_top(&q), &n[1]);
    int want[11] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, 0 };
    for (int i = 0; i < 11; i++) {
        struct gs_hnode *p = gs_radixq_pop(&q);
        CU_ASSERT_PTR_EQUAL(p, want[i] < 0 ? &a : &n[want[i]]);
        CU_ASSERT_EQUAL(p->time, 5000000);
    }
    CU_ASSERT_PTR_NULL(gs_radixq_top(&q));
    CU_ASSERT_EQUAL(q.n, 0);
    gs_radixq_clear(&q);
}

/* The hold model at the size the queue is benchmarked at, against the
 * 4-ary heap (checked against the reference above), pop by pop: the radix
 * queue sorts whole buckets into a run and compares what is filed later
 * with the run's front, so this is where a slip in that order shows.
 * Increments: mostly exponential with mean 1,000 s (buckets of thousands,
 * sorted by counting passes), some of mean 100 ms or 0 (ties, level 0 and
 * level-1 buckets of every size around the insertion-sort cut), some
 * integral multiples of 2^16 ms (buckets whose times share a digit);
 * stretches in which nodes are also re-keyed, removed and
 * peeked at, after which earlier times are inserted, alternate with
 * stretches of plain holds (no stale entries). */
static void test_radix_hold(void)
{
    enum { NH = 20000 };
    static struct gs_hnode a[NH], h[NH];
    struct gs_radixq q;
    struct gs_heap hp;
    gs_radixq_init(&q);
    gs_heap_init(&hp);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 27);
    for (int i = 0; i < NH; i++) {
        gs_hnode_init(&a[i]);
        gs_hnode_init(&h[i]);
        gs_time t = (gs_time)(1e6 * -log(1 - gsl_rng_uniform(r)));
        CU_ASSERT_EQUAL_FATAL(gs_radixq_update(&q, &a[i], t), 0);
        CU_ASSERT_EQUAL_FATAL(gs_heap_update(&hp, &h[i], t), 0);
    }
    gs_time now = 0;
    long pops = 0, ties = 0, sorted = 0, mixed = 0, peeks = 0;
    gs_time prev = -1;
    long steps = gs_test_long() ? 4000000 : 600000;
    for (long step = 0; step < steps; step++) {
        int busy = (step / 50000) % 2;
        double u = gsl_rng_uniform(r);
        if (busy && u < 0.15) {
            int i = (int)gsl_rng_uniform_int(r, NH);
            if (u < 0.05) {
                gs_radixq_remove(&q, &a[i]);
                gs_heap_remove(&hp, &h[i]);
                continue;
            }
            if (u < 0.10) {
                struct gs_hnode *x = gs_radixq_top(&q), *y = gs_heap_top(&hp);
                CU_ASSERT_EQUAL_FATAL(x ? x - a : -1, y ? y - h : -1);
                peeks++;
                if (y == NULL || y->time == now)
                    continue;
                /* earlier than the minimum seen, not than the clock */
                gs_time t = now + (gs_time)gsl_rng_uniform_int(
                                      r, (unsigned long)(y->time - now));
                CU_ASSERT_EQUAL_FATAL(gs_radixq_update(&q, &a[i], t), 0);
                CU_ASSERT_EQUAL_FATAL(gs_heap_update(&hp, &h[i], t), 0);
                continue;
            }
            gs_time t = now + (gs_time)(1e6 * -log(1 - gsl_rng_uniform(r)));
            CU_ASSERT_EQUAL_FATAL(gs_radixq_update(&q, &a[i], t), 0);
            CU_ASSERT_EQUAL_FATAL(gs_heap_update(&hp, &h[i], t), 0);
            continue;
        }
        struct gs_hnode *x = gs_radixq_pop(&q), *y = gs_heap_pop(&hp);
        CU_ASSERT_EQUAL_FATAL(x ? x - a : -1, y ? y - h : -1);
        if (y == NULL)
            break;
        CU_ASSERT_EQUAL_FATAL(x->time, y->time);
        ties += y->time == prev;
        prev = now = y->time;
        pops++;
        double v = gsl_rng_uniform(r);
        gs_time d;
        if (v < 0.80)
            d = (gs_time)(1e6 * -log(1 - gsl_rng_uniform(r)));
        else if (v < 0.90)
            d = (gs_time)(100 * -log(1 - gsl_rng_uniform(r)));
        else if (v < 0.95)
            d = 0;
        else
            d = (gs_time)gsl_rng_uniform_int(r, 40) << 16;
        int k = (int)(y - h);
        CU_ASSERT_EQUAL_FATAL(gs_radixq_update(&q, &a[k], now + d), 0);
        CU_ASSERT_EQUAL_FATAL(gs_heap_update(&hp, &h[k], now + d), 0);
        sorted += q.run.n == 0;
        mixed += (q.levels & q.runmask) != 0 && q.run.head < q.run.n;
    }
    CU_ASSERT_EQUAL(gs_radixq_size(&q), gs_heap_size(&hp));
    CU_ASSERT(pops > steps / 2);
    CU_ASSERT(ties > 1000);
    CU_ASSERT(peeks > 1000);
    CU_ASSERT(mixed > pops / 4);    /* entries filed below the run's level
                                       while it had entries, often */
    (void)sorted;
    gs_radixq_clear(&q);
    gs_heap_clear(&hp);
    gsl_rng_free(r);
}

/* A bucket of equal times large enough to be sorted by counting (every
 * digit shared: copied as it is), one of them re-keyed to the same time
 * and one removed: schedule order, the re-keyed one last. */
static void test_radix_equal_run(void)
{
    struct gs_radixq q;
    gs_radixq_init(&q);
    struct gs_hnode n[40], first;
    gs_hnode_init(&first);
    gs_radixq_update(&q, &first, 10);
    for (int i = 0; i < 40; i++) {
        gs_hnode_init(&n[i]);
        gs_radixq_update(&q, &n[i], 5000000);
    }
    gs_radixq_update(&q, &n[3], 5000000);
    gs_radixq_remove(&q, &n[7]);
    CU_ASSERT_PTR_EQUAL(gs_radixq_pop(&q), &first);
    for (int i = 0; i < 40; i++) {
        if (i == 3 || i == 7)
            continue;
        CU_ASSERT_PTR_EQUAL(gs_radixq_pop(&q), &n[i]);
        if (i == 20)    /* a new entry at the same time goes behind */
            gs_radixq_update(&q, &n[7], 5000000);
    }
    CU_ASSERT_PTR_EQUAL(gs_radixq_pop(&q), &n[3]);
    CU_ASSERT_PTR_EQUAL(gs_radixq_pop(&q), &n[7]);
    CU_ASSERT_PTR_NULL(gs_radixq_pop(&q));
    gs_radixq_clear(&q);
}

struct walk_ctx { gs_time last; int count, stop_at; };

static int walk_visit(struct gs_hnode *n, void *arg)
{
    struct walk_ctx *c = arg;
    CU_ASSERT(n->time >= c->last);
    c->last = n->time;
    return ++c->count == c->stop_at;
}

static void test_walk_order(void)
{
    struct gs_heap h;
    gs_heap_init(&h);
    static struct gs_hnode n[5000];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int i = 0; i < 5000; i++) {
        gs_hnode_init(&n[i]);
        gs_heap_push(&h, &n[i], (gs_time)gsl_rng_uniform_int(r, 100000));
    }
    struct walk_ctx c = { -1, 0, 0 };
    CU_ASSERT_EQUAL(gs_heap_walk(&h, walk_visit, &c), 0);
    CU_ASSERT_EQUAL(c.count, 5000);
    /* Stopping early visits exactly the k smallest; the heap is unchanged. */
    struct walk_ctx c2 = { -1, 0, 10 };
    gs_heap_walk(&h, walk_visit, &c2);
    CU_ASSERT_EQUAL(c2.count, 10);
    CU_ASSERT_EQUAL(h.n, 5000);
    gs_time tenth = 0;
    for (int i = 0; i < 10; i++)
        tenth = gs_heap_pop(&h)->time;
    CU_ASSERT_EQUAL(tenth, c2.last);
    gs_heap_clear(&h);
    gsl_rng_free(r);
}

/* Re-keying and removing leave stale entries that must never surface,
 * even after many re-keys of the same nodes (compaction). */
static void test_rekey_stale(void)
{
    struct gs_heap h;
    gs_heap_init(&h);
    struct gs_hnode a, b, c;
    gs_hnode_init(&a);
    gs_hnode_init(&b);
    gs_hnode_init(&c);
    gs_heap_push(&h, &a, 10);
    gs_heap_push(&h, &b, 20);
    gs_heap_push(&h, &c, 30);
    for (int i = 0; i < 10000; i++)
        gs_heap_update(&h, &a, 40 + i % 7);     /* a moves behind c */
    gs_heap_remove(&h, &b);
    gs_heap_remove(&h, &b);                     /* twice: no-op */
    CU_ASSERT_EQUAL(gs_heap_size(&h), 2);
    CU_ASSERT(h.n < 200);                       /* compacted */
    CU_ASSERT_EQUAL(gs_heap_top_time(&h), 30);
    CU_ASSERT_PTR_EQUAL(gs_heap_pop(&h), &c);
    CU_ASSERT_PTR_EQUAL(gs_heap_pop(&h), &a);
    CU_ASSERT_EQUAL(a.time, 40 + 9999 % 7);
    CU_ASSERT_PTR_NULL(gs_heap_pop(&h));
    CU_ASSERT_FALSE(gs_hnode_queued(&a));
    gs_heap_clear(&h);

    /* The radix heap: the same, and re-keying far ahead (buckets >= 1)
     * many times must trigger compaction. */
    struct gs_radixq q;
    gs_radixq_init(&q);
    gs_radixq_update(&q, &b, 20);
    gs_radixq_update(&q, &c, 30);
    for (int i = 0; i < 10000; i++)
        gs_radixq_update(&q, &a, 1000000 + i % 7);
    gs_radixq_remove(&q, &b);
    CU_ASSERT_EQUAL(gs_radixq_size(&q), 2);
    CU_ASSERT(q.n < 1100);                      /* compacted */
    CU_ASSERT_EQUAL(gs_radixq_top(&q)->time, 30);
    CU_ASSERT_PTR_EQUAL(gs_radixq_pop(&q), &c);
    CU_ASSERT_PTR_EQUAL(gs_radixq_pop(&q), &a);
    CU_ASSERT_EQUAL(a.time, 1000000 + 9999 % 7);
    CU_ASSERT_PTR_NULL(gs_radixq_pop(&q));
    gs_radixq_clear(&q);
}

static int fired[8], nfired;
static void fire(struct gs_event *ev, void *ctx)
{
    (void)ctx;
    fired[nfired++] = (int)(ev->hn.time);
}

static void engine_clock(int kind)
{
    struct gs_engine e;
    nfired = 0;
    CU_ASSERT_EQUAL_FATAL(gs_engine_init(&e, NULL, kind), 0);
    struct gs_event ev[4];
    for (int i = 0; i < 4; i++)
        gs_event_init(&ev[i], fire);
    gs_engine_at(&e, &ev[0], 300);
    gs_engine_at(&e, &ev[1], 100);
    gs_engine_at(&e, &ev[2], 200);
    gs_engine_at(&e, &ev[3], 50);
    gs_engine_cancel(&e, &ev[3]);
    gs_engine_at(&e, &ev[0], 150);          /* moved earlier */
    CU_ASSERT_EQUAL(gs_engine_next_time(&e), 100);
    while (gs_engine_step(&e))
        ;
    CU_ASSERT_EQUAL(nfired, 3);
    CU_ASSERT_EQUAL(fired[0], 100);
    CU_ASSERT_EQUAL(fired[1], 150);
    CU_ASSERT_EQUAL(fired[2], 200);
    CU_ASSERT_EQUAL(e.now, 200);
    CU_ASSERT_EQUAL(e.fired, 3);
    CU_ASSERT_FALSE(gs_event_pending(&ev[3]));
    /* 150 days in ms keeps millisecond resolution. */
    gs_engine_at(&e, &ev[1], 150 * GS_DAY + 1);
    gs_engine_at(&e, &ev[2], 150 * GS_DAY);
    gs_engine_step(&e);
    CU_ASSERT_EQUAL(e.now, 150 * GS_DAY);
    gs_engine_step(&e);
    CU_ASSERT_EQUAL(e.now, 150 * GS_DAY + 1);
    gs_engine_free(&e);
}

static void test_engine_clock(void)
{
    engine_clock(GS_QUEUE_RADIX);
    engine_clock(GS_QUEUE_HEAP);
}

/* A staged heap (heap.h) against the reference: long stretches of pushes,
 * re-keys and removals alone (the staging area fills, chunks die, sparse
 * ones move into the heap), then walks that stop early, peeks and pops
 * (everything staged moves in first), and now and then a counter moved by
 * its owner between pushes.  Keys are not monotone.  The staging area
 * stays within its bound: a complete chunk is kept only while more than an
 * eighth of it is live. */
struct swalk { const struct gs_hnode *base; const struct ref *ref;
               int *want; int k, stop_at, bad; };

static int staged_visit(struct gs_hnode *n, void *arg)
{
    struct swalk *w = arg;
    if (w->want[w->k] != (int)(n - w->base))
        w->bad++;
    return ++w->k == w->stop_at;
}

static int ref_cmp_ctx(const struct ref *ref, int a, int b)
{
    if (ref[a].t != ref[b].t)
        return ref[a].t < ref[b].t ? -1 : 1;
    return ref[a].seq < ref[b].seq ? -1 : ref[a].seq > ref[b].seq;
}

/* The `keep` smallest live entries of ref in order into want (an
 * insertion sort that keeps only the first `keep`); the number live. */
static int ref_smallest(const struct ref *ref, int *want, int keep)
{
    int nw = 0, have = 0;
    for (int k = 0; k < N; k++) {
        if (!ref[k].in)
            continue;
        nw++;
        if (have == keep && ref_cmp_ctx(ref, want[keep - 1], k) <= 0)
            continue;
        int at = have < keep ? have++ : keep - 1;
        while (at > 0 && ref_cmp_ctx(ref, want[at - 1], k) > 0) {
            want[at] = want[at - 1];
            at--;
        }
        want[at] = k;
    }
    return nw;
}

static void test_heap_staged(void)
{
    static struct gs_hnode node[N];
    static struct ref ref[N];
    static int want[N];
    struct gs_heap h;
    gs_heap_init(&h);
    CU_ASSERT_EQUAL_FATAL(gs_heap_stage(&h), 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    for (int i = 0; i < N; i++) {
        gs_hnode_init(&node[i]);
        ref[i].in = 0;
    }
    long walks = 0, pops = 0, moved = 0, peak_staged = 0, bound_bad = 0;
    for (long step = 0, end = steps(400000); step < end; step++) {
        int quiet = (step / 20000) % 2 == 0;   /* writes only */
        int op = (int)gsl_rng_uniform_int(r, quiet ? 3 : 6);
        int i = (int)gsl_rng_uniform_int(r, N);
        /* a few long-lived nodes: removed rarely */
        if (i < N / 16 && op == 2 && gsl_rng_uniform(r) < 0.99)
            op = 0;
        if (op == 0 || op == 1) {
            if (gsl_rng_uniform(r) < 0.0005) {
                h.seq += 1000;              /* the owner moves the counter */
                moved++;
            }
            gs_time t = (gs_time)gsl_rng_uniform_int(r, quiet ? 1000000 : 50);
            CU_ASSERT_EQUAL_FATAL(gs_heap_update(&h, &node[i], t), 0);
            ref[i] = (struct ref){ t, h.seq, 1 };
        } else if (op == 2) {
            gs_heap_remove(&h, &node[i]);
            ref[i].in = 0;
        } else {
            /* The reference order: only its first `keep` entries are
             * looked at (a walk stops after at most 40, a peek or pop
             * takes one), so only those are sorted. */
            int stop_at = op == 3 ? 1 + (int)gsl_rng_uniform_int(r, 40) : 1;
            int nw = ref_smallest(ref, want, stop_at);
            if (op == 3) {
                struct swalk w = { node, ref, want, 0, stop_at, 0 };
                CU_ASSERT_EQUAL_FATAL(gs_heap_walk(&h, staged_visit, &w), 0);
                CU_ASSERT_EQUAL_FATAL(w.bad, 0);
                CU_ASSERT_EQUAL_FATAL(w.k, nw < w.stop_at ? nw : w.stop_at);
                walks++;
            } else if (op == 4) {
                struct gs_hnode *top = gs_heap_top(&h);
                CU_ASSERT_PTR_EQUAL_FATAL(top, nw ? &node[want[0]] : NULL);
            } else {
                struct gs_hnode *got = gs_heap_pop(&h);
                CU_ASSERT_PTR_EQUAL_FATAL(got, nw ? &node[want[0]] : NULL);
                if (got) {
                    ref[want[0]].in = 0;
                    pops++;
                }
            }
            CU_ASSERT_EQUAL_FATAL(gs_heap_staged(&h, NULL), 0);
        }
        if (quiet && step % 20000 == 19999) {
            /* only the long-lived are left: chunks they alone keep must
             * have moved them on */
            for (int k = N / 16; k < N; k++) {
                gs_heap_remove(&h, &node[k]);
                ref[k].in = 0;
            }
        }
        size_t slots, staged = gs_heap_staged(&h, &slots);
        CU_ASSERT_FATAL(staged <= gs_heap_size(&h));
        if ((long)staged > peak_staged)
            peak_staged = (long)staged;
        bound_bad += slots > GS_HSTAGE_CHUNK *
                             (staged / (GS_HSTAGE_CHUNK / 8 + 1) + 1);
        if ((step & 1023) == 0) {
            long inref = 0;
            for (int k = 0; k < N; k++)
                inref += ref[k].in;
            CU_ASSERT_EQUAL_FATAL((long)gs_heap_size(&h), inref);
        }
    }
    CU_ASSERT_EQUAL(bound_bad, 0);
    CU_ASSERT(walks > 10000 && pops > 10000 && moved > 20);
    CU_ASSERT(peak_staged > N / 2);     /* the staging area was used */
    gs_heap_clear(&h);
    for (int i = 0; i < N; i++)
        CU_ASSERT_FALSE(gs_hnode_queued(&node[i]));
    gsl_rng_free(r);
}

static CU_TestInfo tests[] = {
    { "staged heap: stretches of writes, then walks, peeks, pops",
      test_heap_staged },
    { "heap: monotone clock, ties", test_heap_ties },
    { "heap: monotone clock, skewed gaps", test_heap_skewed },
    { "radix heap: monotone clock, ties", test_radix_ties },
    { "radix heap: skewed gaps, far jumps", test_radix_skewed },
    { "heap: gaps of every size, negative times", test_heap_wide },
    { "radix heap: gaps of every size, negative times", test_radix_wide },
    { "radix heap: stretches with and without stale entries",
      test_radix_phased },
    { "heap: stretches with and without stale entries", test_heap_phased },
    { "radix heap: peek, then earlier; ties far ahead", test_radix_peek },
    { "radix heap: hold model against the 4-ary heap", test_radix_hold },
    { "radix heap: a large bucket of equal times", test_radix_equal_run },
    { "equal times pop in schedule order", test_ties_fifo },
    { "best-first walk visits in key order", test_walk_order },
    { "re-key and remove leave nothing stale behind", test_rekey_stale },
    { "engine clock, cancel and move", test_engine_clock },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("heap", tests)
