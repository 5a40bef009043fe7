/* test_fleet.c -- the placement index against brute force.
 *
 * Random allocate/release sequences on a fleet of mixed pools; after each
 * step, first-fit must return the lowest-numbered node with room, best-fit a
 * node with the least room left, and the index's answers must agree with a
 * linear scan for every request size, whole and fractional. */
#include "cutest.h"
#include "../sim/err.h"
#include "../sim/fleet.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>

static struct gs_catalog cat;

/* Brute force: lowest node in [lo,hi) with >= k fully free GPUs. */
static int bf_first_whole(const struct gs_fleet *f, const struct gs_range *r,
                          int k)
{
    const struct gs_pool *p = &f->pools[r->pool];
    for (int i = r->lo; i < r->hi; i++) {
        const struct gs_node *nd = &f->nodes[p->node0 + i];
        if (nd->up && nd->nfull >= k)
            return p->node0 + i;
    }
    return -1;
}

/* Brute force: least nfull >= k (-1 if none). */
static int bf_best_left(const struct gs_fleet *f, const struct gs_range *r,
                        int k)
{
    const struct gs_pool *p = &f->pools[r->pool];
    int best = -1;
    for (int i = r->lo; i < r->hi; i++) {
        const struct gs_node *nd = &f->nodes[p->node0 + i];
        if (nd->up && nd->nfull >= k && (best < 0 || nd->nfull - k < best))
            best = nd->nfull - k;
    }
    return best;
}

/* Brute force: lowest node with a GPU having >= m milli free. */
static int bf_first_frac(const struct gs_fleet *f, const struct gs_range *r,
                         int m)
{
    const struct gs_pool *p = &f->pools[r->pool];
    for (int i = r->lo; i < r->hi; i++) {
        const struct gs_node *nd = &f->nodes[p->node0 + i];
        for (int g = 0; nd->up && g < p->s.gpn; g++)
            if (f->free_milli[nd->gpu0 + g] >= m)
                return p->node0 + i;
    }
    return -1;
}

/* Brute force best fractional leftover: tightest partly used GPU, else a
 * whole GPU broken (+1000). */
static int bf_best_frac(const struct gs_fleet *f, const struct gs_range *r,
                        int m)
{
    const struct gs_pool *p = &f->pools[r->pool];
    int best = -1, any_full = -1;
    for (int i = r->lo; i < r->hi; i++) {
        const struct gs_node *nd = &f->nodes[p->node0 + i];
        for (int g = 0; nd->up && g < p->s.gpn; g++) {
            int fr = f->free_milli[nd->gpu0 + g];
            if (fr == 1000)
                any_full = 1000 - m;
            else if (fr >= m && (best < 0 || fr - m < best))
                best = fr - m;
        }
    }
    return best >= 0 ? best : any_full >= 0 ? any_full + 1000 : -1;
}

struct held { struct gs_alloc a; struct gs_need n; int live; };

static void test_index_vs_bruteforce(void)
{
    gs_catalog_init(&cat);
    struct gs_pool_spec sp[2] = {
        { "a", "", gs_catalog_find(&cat, "H100-80GB"), 37, 8, 0, 0, { 0 }, 0, 0, 0 },
        { "b", "", gs_catalog_find(&cat, "T4"), 20, 4, 0, 0, { 0 }, 0, 0, 0 },
    };
    struct gs_fleet *f = gs_fleet_new(&cat, sp, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->ngpus, 37 * 8 + 20 * 4);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    enum { H = 400 };
    static struct held h[H];
    long checks = 0, placed = 0, frac = 0, gangs = 0;
    for (int step = 0; step < 20000; step++) {
        int i = (int)gsl_rng_uniform_int(r, H);
        int pool = (int)gsl_rng_uniform_int(r, 2);
        struct gs_range rg = { pool, 0, sp[pool].nodes };
        if (gsl_rng_uniform(r) < 0.3) {     /* a sub-range */
            rg.lo = (int)gsl_rng_uniform_int(r, (unsigned long)sp[pool].nodes);
            rg.hi = rg.lo + 1 + (int)gsl_rng_uniform_int(
                         r, (unsigned long)(sp[pool].nodes - rg.lo));
        }
        if (h[i].live) {
            gs_fleet_release(f, &h[i].a, &h[i].n);
            gs_alloc_reset(&h[i].a);
            h[i].live = 0;
            continue;
        }
        struct gs_need n = { 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0 };
        double u = gsl_rng_uniform(r);
        if (u < 0.4) {
            n.milli = 50 * (1 + (int)gsl_rng_uniform_int(r, 19));
        } else if (u < 0.95) {
            n.gpus = 1 + (int)gsl_rng_uniform_int(r,
                                                  (unsigned long)sp[pool].gpn);
        } else {
            n.gpus = sp[pool].gpn + 1 + (int)gsl_rng_uniform_int(r, 12);
        }
        int fit = gsl_rng_uniform(r) < 0.5 ? GS_FIT_FIRST : GS_FIT_BEST;
        struct gs_alloc a = { .pool = -1 };
        int score = -7;
        int rc = gs_fleet_find(f, &rg, &n, fit, &a, &score);
        checks++;
        if (n.gpus > 0 && n.gpus <= sp[pool].gpn) {
            /* most_free is the largest k that first-fit finds room for */
            int most = gs_fleet_most_free(f, &rg);
            CU_ASSERT_FATAL(most == 0 || bf_first_whole(f, &rg, most) >= 0);
            CU_ASSERT_FATAL(bf_first_whole(f, &rg, most + 1) < 0);
            if (fit == GS_FIT_FIRST) {
                int want = bf_first_whole(f, &rg, n.gpus);
                CU_ASSERT_EQUAL_FATAL(rc == 0 ? a.one.node : -1, want);
            } else {
                int want = bf_best_left(f, &rg, n.gpus);
                CU_ASSERT_EQUAL_FATAL(rc == 0 ? score : -1, want);
            }
        } else if (n.gpus == 0) {
            if (fit == GS_FIT_FIRST) {
                int want = bf_first_frac(f, &rg, n.milli);
                CU_ASSERT_EQUAL_FATAL(rc == 0 ? a.one.node : -1, want);
            } else {
                int want = bf_best_frac(f, &rg, n.milli);
                CU_ASSERT_EQUAL_FATAL(rc == 0 ? score : -1, want);
            }
        }
        if (rc == 0) {
            CU_ASSERT_FATAL(gs_fleet_can_commit(f, &a, &n));
            gs_fleet_commit(f, &a, &n);
            /* Now it is taken: the same alloc is no longer free. */
            CU_ASSERT_FATAL(!gs_fleet_can_commit(f, &a, &n) || n.milli > 0);
            h[i] = (struct held){ a, n, 1 };
            placed++;
            frac += n.gpus == 0;
            gangs += a.n > 1;
        } else {
            gs_alloc_reset(&a);
        }
        /* Used capacity equals the sum of what is held. */
        if ((step & 255) == 0) {
            int64_t sum = 0;
            for (int k = 0; k < H; k++)
                if (h[k].live)
                    sum += h[k].n.gpus > 0 ? 1000LL * h[k].n.gpus
                                           : h[k].n.milli;
            CU_ASSERT_EQUAL_FATAL(sum, f->used_milli);
        }
    }
    CU_ASSERT(placed > 5000);
    CU_ASSERT(frac > 1000);
    CU_ASSERT(gangs > 20);
    for (int k = 0; k < H; k++)
        if (h[k].live) {
            gs_fleet_release(f, &h[k].a, &h[k].n);
            gs_alloc_reset(&h[k].a);
        }
    CU_ASSERT_EQUAL(f->used_milli, 0);
    for (int i = 0; i < f->nnodes; i++)
        CU_ASSERT_EQUAL(f->nodes[i].nfull, f->pools[f->nodes[i].pool].s.gpn);
    gs_fleet_free(f);
    gsl_rng_free(r);
}

static void test_gang_and_down_nodes(void)
{
    gs_catalog_init(&cat);
    struct gs_pool_spec sp = { "a", "", gs_catalog_find(&cat, "H100-80GB"),
                               4, 8, 0, 0, { 0 }, 0, 0, 0 };
    struct gs_fleet *f = gs_fleet_new(&cat, &sp, 1);
    struct gs_range rg = { 0, 0, 4 };
    struct gs_need n = { 20, 0, 0, 0, NULL, 0, 0, 0, 0, 0 };         /* 2 whole nodes + 4 */
    struct gs_alloc a = { .pool = -1 };
    CU_ASSERT_EQUAL(gs_fleet_find(f, &rg, &n, GS_FIT_FIRST, &a, NULL), 0);
    CU_ASSERT_EQUAL(a.n, 3);
    CU_ASSERT_EQUAL(a.many[0].node, 0);
    CU_ASSERT_EQUAL(a.many[1].node, 1);
    CU_ASSERT_EQUAL(a.many[2].node, 2);
    CU_ASSERT_EQUAL(__builtin_popcountll(a.many[2].mask), 4);
    /* 2 GPUs fit on one node, but a spreading placement may take two
     * nodes (it then runs slower: sim.c's topology factor); GPUs on one
     * node twice are refused. */
    struct gs_need two = { 2, 0, 0, 0, NULL, 0, 0, 0, 0, 0 };
    struct gs_part split[2] = { { 0, 1000, 1, 0, 0 }, { 1, 1000, 1, 0, 0 } };
    struct gs_alloc s2 = { .pool = 0, .n = 2, .many = split };
    CU_ASSERT_TRUE(gs_fleet_can_commit(f, &s2, &two));
    split[1].node = 0;
    CU_ASSERT_FALSE(gs_fleet_can_commit(f, &s2, &two));
    split[0].mask = 3;
    s2.n = 1;
    s2.one = split[0];
    CU_ASSERT_TRUE(gs_fleet_can_commit(f, &s2, &two));
    CU_ASSERT_TRUE(gs_fleet_can_commit(f, &a, &n));
    CU_ASSERT_EQUAL(gs_fleet_most_free(f, &rg), 8);
    gs_fleet_commit(f, &a, &n);
    CU_ASSERT_EQUAL(f->used_milli, 20000);
    CU_ASSERT_EQUAL(gs_fleet_most_free(f, &rg), 8);     /* node 3 */
    CU_ASSERT_EQUAL(gs_fleet_most_free(f, &(struct gs_range){ 0, 0, 3 }), 4);
    /* A node going down is never chosen; 8 GPUs remain on node 3 only. */
    gs_fleet_set_up(f, 3, 0);
    struct gs_need one = { 1, 0, 0, 0, NULL, 0, 0, 0, 0, 0 };
    struct gs_alloc b = { .pool = -1 };
    CU_ASSERT_EQUAL(gs_fleet_find(f, &rg, &one, GS_FIT_BEST, &b, NULL), 0);
    CU_ASSERT_EQUAL(b.one.node, 2);             /* the 4 free on node 2 */
    struct gs_need five = { 5, 0, 0, 0, NULL, 0, 0, 0, 0, 0 };
    CU_ASSERT_EQUAL(gs_fleet_find(f, &rg, &five, GS_FIT_FIRST, &b, NULL),
                    GS_ENOFIT);
    CU_ASSERT_EQUAL(f->gpus_up, 24);
    gs_fleet_set_up(f, 3, 1);
    CU_ASSERT_EQUAL(gs_fleet_find(f, &rg, &five, GS_FIT_FIRST, &b, NULL), 0);
    CU_ASSERT_EQUAL(b.one.node, 3);
    /* Memory: a fraction with 50 GB fits an 80 GB GPU once, not twice. */
    struct gs_need m = { 0, 300, 50.0, 0, NULL, 0, 0, 0, 0, 0 };
    struct gs_range r3 = { 0, 3, 4 };
    struct gs_alloc c1 = { .pool = -1 }, c2 = { .pool = -1 };
    CU_ASSERT_EQUAL_FATAL(gs_fleet_find(f, &r3, &m, GS_FIT_BEST, &c1, NULL), 0);
    gs_fleet_commit(f, &c1, &m);
    CU_ASSERT_EQUAL_FATAL(gs_fleet_find(f, &r3, &m, GS_FIT_BEST, &c2, NULL), 0);
    CU_ASSERT_NOT_EQUAL(c2.one.mask, c1.one.mask);   /* another GPU */
    gs_fleet_release(f, &c1, &m);
    gs_fleet_release(f, &a, &n);
    CU_ASSERT_EQUAL(f->used_milli, 0);
    gs_alloc_reset(&a);
    gs_alloc_reset(&b);
    gs_alloc_reset(&c1);
    gs_alloc_reset(&c2);
    gs_fleet_free(f);
}

static void test_time_factor(void)
{
    gs_catalog_init(&cat);
    int a100 = gs_catalog_find(&cat, "A100-80GB");
    int h100 = gs_catalog_find(&cat, "h100-80gb");   /* case-insensitive */
    CU_ASSERT(a100 >= 0 && h100 >= 0);
    /* Fully compute-bound: the TFLOP/s ratio; fully memory-bound: bandwidth. */
    CU_ASSERT_DOUBLE_EQUAL(gs_catalog_time_factor(&cat, a100, h100, 1.0),
                           312.0 / 989.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_catalog_time_factor(&cat, a100, h100, 0.0),
                           2039.0 / 3350.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_catalog_time_factor(&cat, a100, h100, 0.5),
                           0.5 * 312.0 / 989.0 + 0.5 * 2039.0 / 3350.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_catalog_time_factor(&cat, -1, h100, 0.3), 1.0,
                           0);
}

static CU_TestInfo tests[] = {
    { "index answers match brute force", test_index_vs_bruteforce },
    { "gangs, down nodes, per-GPU memory", test_gang_and_down_nodes },
    { "speed on another GPU model", test_time_factor },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("fleet", tests)
