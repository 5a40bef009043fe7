/* test_victims.c -- the preemption index against the scan it replaces.
 *
 * Random sequences of starts, stops and preemptions on a real fleet of
 * three pools (8, 4 and 2 GPUs a node; the last one node, a tree that is a
 * single leaf), with failed and repaired GPUs, nodes taken down and brought
 * back and fractional jobs in between -- everything that moves a node's
 * fully free GPUs, which the index follows by watching the fleet.  Victims
 * come with priorities in an order that inserts levels below, between and
 * above the ones already there.  After every step a random query (priority,
 * GPUs, allowed pools) must give exactly the node the scan over every
 * running job gives (priority.c's make_room: fewest GPUs to reclaim, then
 * the lowest node), and a preemption on it, evicting victims until the job
 * fits, must always succeed; gs_victims_any must say whether there is one.
 * Now and then a burst of starts and stops comes with no query between
 * (the index brings the nodes they touched up to date lazily, at the next
 * query).  Run twice: with priorities a few apart, whose levels the index
 * finds in a table, and a hundred times wider, where it searches. */
#include "cutest.h"
#include "../policies/victims.h"
#include "../sim/base/err.h"
#include "../sim/cluster/fleet.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct gs_catalog cat;

struct held {
    struct gs_alloc a;
    struct gs_need n;
    int live, victim, prio;
};

enum { H = 600 };
static struct held h[H];

/* The scan: over every running victim of priority below prio in an
 * allowed pool, the reclaimable GPUs per node, then the node needing the
 * fewest reclaimed (ties: the lowest). */
static int scan_best(const struct gs_fleet *f, int prio, int need,
                     const char *ok, int *reclaim)
{
    for (int n = 0; n < f->nnodes; n++)
        reclaim[n] = 0;
    for (int i = 0; i < H; i++)
        if (h[i].live && h[i].victim && h[i].prio < prio &&
            ok[h[i].a.pool])
            reclaim[h[i].a.one.node] += h[i].n.gpus;
    int best = -1, best_need = 1 << 30;
    for (int i = 0; i < H; i++) {
        if (!h[i].live || !h[i].victim || h[i].prio >= prio ||
            !ok[h[i].a.pool])
            continue;
        int node = h[i].a.one.node;
        const struct gs_node *nd = &f->nodes[node];
        if (need > f->pools[nd->pool].s.gpn)
            continue;
        int deficit = need - nd->nfull;
        if (deficit > 0 && nd->nfull + reclaim[node] >= need &&
            (deficit < best_need || (deficit == best_need && node < best))) {
            best = node;
            best_need = deficit;
        }
    }
    return best;
}

static int by_prio(const void *x, const void *y)
{
    const struct held *a = &h[*(const int *)x], *b = &h[*(const int *)y];
    return (a->prio > b->prio) - (a->prio < b->prio);
}

static int free_slot(void)
{
    for (int i = 0; i < H; i++)
        if (!h[i].live)
            return i;
    return -1;
}

static void stop(struct gs_fleet *f, struct gs_victims *v, int i)
{
    gs_fleet_release(f, &h[i].a, &h[i].n);
    if (h[i].victim)
        gs_victims_move(v, h[i].a.one.node, h[i].prio, h[i].n.gpus, -1);
    gs_alloc_reset(&h[i].a);
    h[i].live = 0;
}

/* Start job i of need n in range rg; a victim is indexed.  1 if placed. */
static int start(struct gs_fleet *f, struct gs_victims *v, int i,
                 const struct gs_range *rg, struct gs_need n, int victim,
                 int prio, enum gs_fit fit)
{
    struct gs_alloc a = { .pool = -1 };
    if (gs_fleet_find(f, rg, &n, fit, &a, NULL) < 0) {
        gs_alloc_reset(&a);
        return 0;
    }
    gs_fleet_commit(f, &a, &n);
    h[i] = (struct held){ a, n, 1, victim && a.n == 1 && n.gpus > 0, prio };
    if (h[i].victim)
        gs_victims_move(v, a.one.node, prio, n.gpus, +1);
    return 1;
}

/* The random sequence of the top; priorities are the base ones times
 * scale (1: five to a hundred, which the index looks up in a table; 100:
 * too far apart for it, so by a search). */
static void index_vs_scan(int scale)
{
    gs_catalog_init(&cat);
    struct gs_pool_spec sp[3] = {
        { "a", "", gs_catalog_find(&cat, "H100-80GB"), 37, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "b", "", gs_catalog_find(&cat, "T4"), 20, 4, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "c", "", gs_catalog_find(&cat, "A10"), 1, 2, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    };
    struct gs_fleet *f = gs_fleet_new(&cat, sp, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    struct gs_victims *v = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_victims_new(f, &v), 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    /* priorities in an order that inserts levels in the middle */
    static const int base[] = { 50, 10, 100, 30, 70, 20, 5, 90 };
    int prios[8];
    for (int k = 0; k < 8; k++)
        prios[k] = base[k] * scale;
    int *reclaim = malloc((size_t)f->nnodes * sizeof *reclaim);
    long found = 0, none = 0, preempted = 0, deep = 0, dead = 0, downs = 0;
    long sweeps = 0, bursts = 0;
    for (int step = 0; step < 40000; step++) {
        double u = gsl_rng_uniform(r);
        int i = (int)gsl_rng_uniform_int(r, H);
        int pool = (int)gsl_rng_uniform_int(r, 3);
        int gpn = sp[pool].gpn;
        struct gs_range all = { pool, 0, sp[pool].nodes };
        int nprio = 2 + step / 4000;            /* levels appear over time */
        if (nprio > 8)
            nprio = 8;
        if (step % 500 == 250) {
            /* a burst of starts and stops with no query between: the
             * index brings the nodes they touched (some several times)
             * up to date at the next query, all at once */
            for (int b = 0; b < 150; b++) {
                int k = (int)gsl_rng_uniform_int(r, H);
                int bp = (int)gsl_rng_uniform_int(r, 3);
                struct gs_range ball = { bp, 0, sp[bp].nodes };
                struct gs_need bn = { 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
                bn.gpus = 1 + (int)gsl_rng_uniform_int(r,
                                                      (unsigned)sp[bp].gpn);
                if (h[k].live)
                    stop(f, v, k);
                else
                    start(f, v, k, &ball, bn, gsl_rng_uniform(r) < 0.8,
                          prios[gsl_rng_uniform_int(r, (unsigned)nprio)],
                          GS_FIT_BEST);
                bursts++;
            }
        }
        if (u < 0.45) {                         /* a start */
            if (h[i].live) {
                stop(f, v, i);
                continue;
            }
            struct gs_need n = { 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
            double w = gsl_rng_uniform(r);
            if (w < 0.1)
                n.milli = 100 * (1 + (int)gsl_rng_uniform_int(r, 9));
            else if (w < 0.13)
                n.gpus = gpn + 1 + (int)gsl_rng_uniform_int(r, (unsigned)gpn);
            else
                n.gpus = 1 + (int)gsl_rng_uniform_int(r, (unsigned)gpn);
            int prio = prios[gsl_rng_uniform_int(r, (unsigned)nprio)];
            start(f, v, i, &all, n, gsl_rng_uniform(r) < 0.8, prio,
                  gsl_rng_uniform(r) < 0.5 ? GS_FIT_FIRST : GS_FIT_BEST);
        } else if (u < 0.75) {                  /* a stop */
            if (h[i].live)
                stop(f, v, i);
        } else if (u < 0.78) {                  /* a GPU fails or is repaired */
            int node = (int)gsl_rng_uniform_int(r, (unsigned)f->nnodes);
            const struct gs_node *nd = &f->nodes[node];
            int k = (int)gsl_rng_uniform_int(
                r, (unsigned)f->pools[nd->pool].s.gpn);
            if (nd->deadmask >> k & 1)
                gs_fleet_set_gpu_dead(f, node, k, 0);
            else if (nd->fullmask >> k & 1) {
                gs_fleet_set_gpu_dead(f, node, k, 1);
                dead++;
            }
        } else if (u < 0.80) {                  /* an empty node down or up */
            for (int t = 0; t < 10; t++) {
                int node = (int)gsl_rng_uniform_int(r, (unsigned)f->nnodes);
                if (!f->nodes[node].up) {
                    gs_fleet_set_up(f, node, 1);
                    break;
                }
                if (f->nodes[node].njobs == 0) {
                    gs_fleet_set_up(f, node, 0);
                    downs++;
                    break;
                }
            }
        }
        /* now and then every query, priorities about each level */
        if (step % 40 == 0) {
            /* all pools, and each alone (its answer not hidden by a
             * lower node of another pool) */
            static const char masks[4][3] = { { 1, 1, 1 }, { 1, 0, 0 },
                                              { 0, 1, 0 }, { 0, 0, 1 } };
            for (int mi = 0; mi < 4; mi++)
                for (int pi = 0; pi < 8; pi++)
                    for (int d = -1; d <= 2; d++)
                        for (int need = 1; need <= 8; need++) {
                            int p = prios[pi] + d;
                            int want = scan_best(f, p, need, masks[mi],
                                                 reclaim);
                            CU_ASSERT_EQUAL_FATAL(
                                gs_victims_best(v, p, need, masks[mi]),
                                want);
                            CU_ASSERT_EQUAL_FATAL(
                                gs_victims_any(v, p, need, masks[mi]),
                                want >= 0);
                            sweeps++;
                        }
        }
        /* a query, checked against the scan */
        char ok[3];
        for (int q = 0; q < 3; q++)
            ok[q] = gsl_rng_uniform(r) < 0.8;
        int prio = prios[gsl_rng_uniform_int(r, 8)] + 2 -
                   (int)gsl_rng_uniform_int(r, 4);
        int need = 1 + (int)gsl_rng_uniform_int(r, 8);
        int want = scan_best(f, prio, need, ok, reclaim);
        int got = gs_victims_best(v, prio, need, ok);
        CU_ASSERT_EQUAL_FATAL(got, want);
        CU_ASSERT_EQUAL_FATAL(gs_victims_any(v, prio, need, ok), want >= 0);
        int node = (int)gsl_rng_uniform_int(r, (unsigned)f->nnodes);
        int rsum = 0;
        for (int k = 0; k < H; k++)
            if (h[k].live && h[k].victim && h[k].prio < prio &&
                h[k].a.one.node == node)
                rsum += h[k].n.gpus;
        CU_ASSERT_EQUAL_FATAL(gs_victims_reclaimable(v, node, prio), rsum);
        if (got < 0) {
            none++;
            continue;
        }
        found++;
        deep += need - f->nodes[got].nfull > 1;
        if (gsl_rng_uniform(r) < 0.5)
            continue;
        /* preempt there, lowest priority first, until the job fits */
        const struct gs_node *nd = &f->nodes[got];
        int vs[H], nv = 0;
        for (int k = 0; k < H; k++)
            if (h[k].live && h[k].victim && h[k].prio < prio &&
                ok[h[k].a.pool] && h[k].a.one.node == got)
                vs[nv++] = k;
        qsort(vs, (size_t)nv, sizeof *vs, by_prio);
        for (int k = 0; k < nv && nd->nfull < need; k++)
            stop(f, v, vs[k]);
        CU_ASSERT_FATAL(nd->nfull >= need);
        int slot = free_slot();
        if (slot < 0)
            continue;
        struct gs_range one = { nd->pool, got - f->pools[nd->pool].node0,
                                got - f->pools[nd->pool].node0 + 1 };
        struct gs_need n = { need, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
        if (nd->up)
            CU_ASSERT_FATAL(start(f, v, slot, &one, n, 1, prio,
                                  GS_FIT_FIRST));
        preempted++;
    }
    if (getenv("GS_TEST_VERBOSE"))
        printf("\n    found %ld none %ld preempted %ld deep %ld dead %ld downs %ld", found, none, preempted, deep, dead, downs);
    /* the sequence reached the cases that matter */
    CU_ASSERT(found > 5000);
    CU_ASSERT(none > 5000);
    CU_ASSERT(preempted > 2000);
    CU_ASSERT(deep > 1000);
    CU_ASSERT(dead > 50);
    CU_ASSERT(downs > 50);
    CU_ASSERT(sweeps > 500L * 4 * 8 * 4 * 8);
    CU_ASSERT(bursts == 80 * 150);
    for (int k = 0; k < H; k++)
        if (h[k].live)
            stop(f, v, k);
    for (int n = 0; n < f->nnodes; n++)
        CU_ASSERT_EQUAL(gs_victims_reclaimable(v, n, 1000 * scale), 0);
    char ok[3] = { 1, 1, 1 };
    CU_ASSERT_EQUAL(gs_victims_best(v, 1000 * scale, 1, ok), -1);
    gs_victims_free(v);
    free(reclaim);
    gs_fleet_free(f);
    gsl_rng_free(r);
}

static void test_index_vs_scan(void)
{
    index_vs_scan(1);
}

static void test_index_vs_scan_wide(void)
{
    index_vs_scan(100);
}

/* Small cases worked by hand: a node of 8 GPUs with 5 free and victims of
 * priorities 10 (2 GPUs) and 50 (1 GPU). */
static void test_by_hand(void)
{
    gs_catalog_init(&cat);
    struct gs_pool_spec sp = { "a", "", gs_catalog_find(&cat, "H100-80GB"),
                               3, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    struct gs_fleet *f = gs_fleet_new(&cat, &sp, 1);
    struct gs_victims *v = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_victims_new(f, &v), 0);
    struct gs_range node1 = { 0, 1, 2 }, node2 = { 0, 2, 3 };
    struct gs_need two = { 2, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    struct gs_need one = { 1, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    start(f, v, 0, &node1, two, 1, 10, GS_FIT_FIRST);
    start(f, v, 1, &node1, one, 1, 50, GS_FIT_FIRST);
    char ok[1] = { 1 };
    /* node 1 has 5 free: 6 GPUs at priority 20 reclaims the 2 of level 10
     * (deficit 1); 8 GPUs needs level 50 too; 6 at priority 10 has none */
    CU_ASSERT_EQUAL(gs_victims_best(v, 20, 6, ok), 1);
    CU_ASSERT_EQUAL(gs_victims_best(v, 20, 8, ok), -1);
    CU_ASSERT_EQUAL(gs_victims_best(v, 51, 8, ok), 1);
    CU_ASSERT_EQUAL(gs_victims_best(v, 10, 6, ok), -1);
    CU_ASSERT_EQUAL(gs_victims_best(v, 20, 5, ok), -1);    /* it fits */
    CU_ASSERT_EQUAL(gs_victims_reclaimable(v, 1, 51), 3);
    CU_ASSERT_EQUAL(gs_victims_reclaimable(v, 1, 50), 2);
    /* node 2 with 6 free and a victim of 2 at level 30 (a new level
     * between): 7 GPUs at priority 40 -- deficit 1 on node 2, 2 on 1 */
    struct gs_need six = { 6, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    start(f, v, 2, &node2, two, 1, 30, GS_FIT_FIRST);
    CU_ASSERT_EQUAL(gs_victims_best(v, 40, 7, ok), 2);
    CU_ASSERT_EQUAL(gs_victims_best(v, 20, 7, ok), 1);     /* 2 from 10 */
    /* a tie on deficit goes to the lower node */
    start(f, v, 3, &node2, one, 0, 0, GS_FIT_FIRST);       /* not a victim */
    CU_ASSERT_EQUAL(gs_victims_best(v, 40, 7, ok), 1);
    /* the fleet moves nfull under the index: node 1's 5 free GPUs are
     * taken, so only node 2 (deficit 2) is left */
    CU_ASSERT_EQUAL(start(f, v, 4, &node1, six, 0, 0, GS_FIT_FIRST), 0);
    struct gs_need five = { 5, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    CU_ASSERT_EQUAL(start(f, v, 4, &node1, five, 0, 0, GS_FIT_FIRST), 1);
    CU_ASSERT_EQUAL(f->nodes[1].nfull, 0);
    CU_ASSERT_EQUAL(gs_victims_best(v, 40, 7, ok), 2);
    stop(f, v, 4);                              /* and given back */
    CU_ASSERT_EQUAL(gs_victims_best(v, 40, 7, ok), 1);
    ok[0] = 0;
    CU_ASSERT_EQUAL(gs_victims_best(v, 40, 7, ok), -1);     /* pool not ok */
    gs_victims_free(v);
    gs_fleet_free(f);
}

/* A pool of 9,000 nodes of 2 GPUs: a set's bitset spans 141 words under
 * three summary words, so the lowest node is found past the first 4,096.
 * Jobs of 1 and 2 GPUs, half of them victims, land on random nodes (in
 * the second half of the run past the first 4,096 only); every query
 * agrees with the scan. */
static void test_large_pool(void)
{
    gs_catalog_init(&cat);
    struct gs_pool_spec sp = { "a", "", gs_catalog_find(&cat, "T4"), 9000,
                               2, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    struct gs_fleet *f = gs_fleet_new(&cat, &sp, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    struct gs_victims *v = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_victims_new(f, &v), 0);
    memset(h, 0, sizeof h);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    int *reclaim = malloc((size_t)f->nnodes * sizeof *reclaim);
    char ok[1] = { 1 };
    long found = 0, high = 0;
    for (int step = 0; step < 6000; step++) {
        int i = (int)gsl_rng_uniform_int(r, H);
        if (step == 3000)               /* the second half: high nodes */
            for (int k = 0; k < H; k++)
                if (h[k].live && h[k].a.one.node < 4096)
                    stop(f, v, k);
        if (h[i].live) {
            stop(f, v, i);
        } else {
            int lo = step < 3000 ? (int)gsl_rng_uniform_int(r, 9000)
                                 : 4096 + (int)gsl_rng_uniform_int(r, 4904);
            struct gs_range one = { 0, lo, lo + 1 };
            struct gs_need n = { 1 + (int)gsl_rng_uniform_int(r, 2), 0, 0, 0,
                                 NULL, 0, 0, 0, 0, 0, 0 };
            start(f, v, i, &one, n, gsl_rng_uniform(r) < 0.5,
                  10 * (1 + (int)gsl_rng_uniform_int(r, 3)), GS_FIT_FIRST);
        }
        for (int prio = 15; prio <= 45; prio += 10)
            for (int need = 1; need <= 2; need++) {
                int want = scan_best(f, prio, need, ok, reclaim);
                CU_ASSERT_EQUAL_FATAL(gs_victims_best(v, prio, need, ok),
                                      want);
                found += want >= 0;
                high += want >= 4096;
            }
    }
    CU_ASSERT(found > 10000);
    CU_ASSERT(high > 1000);
    for (int k = 0; k < H; k++)
        if (h[k].live)
            stop(f, v, k);
    CU_ASSERT_EQUAL(gs_victims_best(v, 1000, 1, ok), -1);
    gs_victims_free(v);
    free(reclaim);
    gs_fleet_free(f);
    gsl_rng_free(r);
}

/* The index needs a fleet watcher slot: with none left it says so. */
static void test_no_watcher_slot(void)
{
    gs_catalog_init(&cat);
    struct gs_pool_spec sp = { "a", "", gs_catalog_find(&cat, "H100-80GB"),
                               2, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    struct gs_fleet *f = gs_fleet_new(&cat, &sp, 1);
    struct gs_victims *v[GS_FLEET_WATCHERS + 1];
    for (int i = 0; i < GS_FLEET_WATCHERS; i++)
        CU_ASSERT_EQUAL_FATAL(gs_victims_new(f, &v[i]), 0);
    CU_ASSERT_EQUAL(gs_victims_new(f, &v[GS_FLEET_WATCHERS]), GS_ERANGE);
    CU_ASSERT_PTR_NULL(v[GS_FLEET_WATCHERS]);
    for (int i = 0; i < GS_FLEET_WATCHERS; i++)
        gs_victims_free(v[i]);
    CU_ASSERT_EQUAL(f->nwatch, 0);
    gs_victims_free(NULL);
    gs_fleet_free(f);
}

static CU_TestInfo tests[] = {
    { "the index chooses the node the scan chooses", test_index_vs_scan },
    { "the same with priorities too far apart for the level table",
      test_index_vs_scan_wide },
    { "worked cases", test_by_hand },
    { "a pool of 9,000 nodes", test_large_pool },
    { "no watcher slot left", test_no_watcher_slot },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("victims", tests)
