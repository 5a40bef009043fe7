/* test_fairlv.c -- fair's reclaim index (policies/fairlv.c) against the
 * brute force it stands for.
 *
 * A real fleet of two pools (8- and 4-GPU nodes, so that a whole node is
 * 8 GPUs on one and 4 on the other) carries victims -- jobs of whole GPUs
 * on one node, each of one of five tenants -- and the tenants' margins
 * (the largest victim each can lose) walk up and down.  The test drives
 * the index as fair.c does: a start or stop on a node fixes it, a stop
 * drops the node's witness, a margin growth is told; and it searches as
 * fair.c's reclaim_node and node_clears do (levels from need - 1 down,
 * the whole-node levels without witnessed nodes, a node passed over when
 * its witness stands and its other victims fall short, a witness set on a
 * node found short).  After every step:
 *   - lv[v], lvf[v] and lvu[v] hold exactly the nodes with a victim and v
 *     GPUs fully free (v below the node's GPUs), lvf those whose free and
 *     victim GPUs fill the node, lvu those of lvf without a witness;
 *   - every witness is a victim on its node that its tenant cannot lose
 *     now (what the skip relies on), listed once, under its key;
 *   - the search finds the node the scan of every victim finds;
 *   - reading a witness counts one in the run's work counter. */
#include "cutest.h"
#include "../policies/fairlv.h"
#include "../sim/base/err.h"
#include "../sim/cluster/fleet.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>

enum { H = 500, NT = 5 };

struct vic {
    struct gs_alloc a;
    struct gs_need n;
    int live, tenant;
};

static struct vic vs[H];
static int margin[NT];
static struct gs_look counter;  /* the work counter a run would hold */
static int *rv;                 /* per node: victim GPUs */

static struct gs_sim *fake_sim(void)
{
    return (struct gs_sim *)(void *)&counter;   /* look.h: its first member */
}

static int key_of(const struct vic *v)
{
    return v->tenant << 8 | v->n.gpus;
}

/* Node n's victims: how many, and the GPUs of those that can be lost. */
static int losable(int n, int *nvic)
{
    int r = 0, c = 0;
    for (int i = 0; i < H; i++)
        if (vs[i].live && vs[i].a.one.node == n) {
            c++;
            if (vs[i].n.gpus <= margin[vs[i].tenant])
                r += vs[i].n.gpus;
        }
    if (nvic)
        *nvic = c;
    return r;
}

static void fix(struct gs_fairlv *x, const struct gs_fleet *f, int n)
{
    int nv;
    losable(n, &nv);
    gs_fairlv_fix(x, f, n, nv, rv[n]);
}

/* fair.c's node_clears: can node n give back def GPUs? */
static int node_clears(struct gs_fairlv *x, int n, int def, long *reads)
{
    int w = gs_fairlv_wit(x, n);
    if (w >= 0 && rv[n] - (w & 0xff) < def)
        return 0;
    ++*reads;
    int r = 0, gap = 0, wg = 0, k1 = -1;
    for (int i = 0; i < H; i++) {
        if (!vs[i].live || vs[i].a.one.node != n)
            continue;
        int g = vs[i].n.gpus, m = margin[vs[i].tenant];
        if (g <= m)
            r += g;
        else if (g - m > gap || (g - m == gap && g > wg)) {
            gap = g - m;
            wg = g;
            k1 = key_of(&vs[i]);
        }
    }
    if (r < def && w < 0)
        gs_fairlv_wit_set(x, n, k1);
    return r >= def;
}

/* fair.c's reclaim_node over the index, and the scan of every node: the
 * node needing the fewest GPUs freed for need, then the lowest. */
static int index_best(struct gs_fairlv *x, const struct gs_fleet *f,
                      int need, long *reads)
{
    int best = -1, bd = 1 << 30;
    for (int p = 0; p < f->npools && bd > 1; p++) {
        const struct gs_pool *pl = &f->pools[p];
        if (need > pl->s.gpn)
            continue;
        const struct gs_bitidx *ix = need == pl->s.gpn ? x->lvu : x->lv;
        int end = pl->node0 + pl->s.nodes;
        for (int v = need - 1; v >= 0 && need - v < bd; v--)
            for (int n = gs_bitidx_next(&ix[v], pl->node0); n >= 0 && n < end;
                 n = gs_bitidx_next(&ix[v], n + 1)) {
                if (rv[n] < need - v || !node_clears(x, n, need - v, reads))
                    continue;
                best = n;
                bd = need - v;
                break;
            }
    }
    return best;
}

static int scan_best(const struct gs_fleet *f, int need)
{
    int best = -1, bd = 1 << 30;
    for (int n = 0; n < f->nnodes; n++) {
        const struct gs_node *nd = &f->nodes[n];
        int nv, r = losable(n, &nv), d = need - nd->nfull;
        if (nv == 0 || need > f->pools[nd->pool].s.gpn || d <= 0)
            continue;
        if (r >= d && d < bd) {
            best = n;
            bd = d;
        }
    }
    return best;
}

static void stop(struct gs_fleet *f, struct gs_fairlv *x, int i)
{
    int n = vs[i].a.one.node;
    gs_fleet_release(f, &vs[i].a, &vs[i].n);
    rv[n] -= vs[i].n.gpus;
    gs_alloc_reset(&vs[i].a);
    vs[i].live = 0;
    gs_fairlv_wit_drop(x, n);
    fix(x, f, n);
}

/* Every node as the brute force has it; *nwit: the nodes witnessed. */
static void check(struct gs_fairlv *x, const struct gs_fleet *f, long *nwit)
{
    int listed = 0;
    for (long k = 0; k < x->capwhead; k++)
        for (int n = x->whead[k]; n >= 0; n = x->wnext[n]) {
            int w = *(int *)gs_lvec_upd(&x->wit, n) - 1;
            CU_ASSERT_EQUAL_FATAL((w >> 8) * 64 + (w & 0xff), k);
            listed++;
        }
    int witnessed = 0;
    for (int n = 0; n < f->nnodes; n++) {
        const struct gs_node *nd = &f->nodes[n];
        int gpn = f->pools[nd->pool].s.gpn, nv, sum = 0;
        losable(n, &nv);
        int w = *(int *)gs_lvec_upd(&x->wit, n) - 1, seen = 0;
        for (int i = 0; i < H; i++)
            if (vs[i].live && vs[i].a.one.node == n) {
                sum += vs[i].n.gpus;
                seen |= key_of(&vs[i]) == w &&
                        vs[i].n.gpus > margin[vs[i].tenant];
            }
        CU_ASSERT_EQUAL_FATAL(rv[n], sum);
        if (w >= 0) {
            CU_ASSERT_FATAL(seen);      /* a victim it cannot lose */
            witnessed++;
        }
        int v = nv > 0 && nd->nfull < gpn ? nd->nfull : -1;
        int full = v >= 0 && v + sum >= gpn;
        for (int k = 0; k < gpn; k++) {
            CU_ASSERT_EQUAL_FATAL(gs_bitidx_has(&x->lv[k], n), k == v);
            CU_ASSERT_EQUAL_FATAL(gs_bitidx_has(&x->lvf[k], n),
                                  k == v && full);
            CU_ASSERT_EQUAL_FATAL(gs_bitidx_has(&x->lvu[k], n),
                                  k == v && full && w < 0);
        }
    }
    CU_ASSERT_EQUAL_FATAL(listed, witnessed);
    *nwit += witnessed;
}

static void test_index_vs_scan(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec sp[2] = {
        { "a", "", gs_catalog_find(&cat, "H100-80GB"), 30, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "b", "", gs_catalog_find(&cat, "T4"), 20, 4, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    };
    struct gs_fleet *f = gs_fleet_new(&cat, sp, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    struct gs_fairlv x;
    CU_ASSERT_EQUAL_FATAL(gs_fairlv_init(&x, fake_sim(), f->nnodes, 8), 0);
    gs_fairlv_tenants(&x, NT);
    rv = calloc((size_t)f->nnodes, sizeof *rv);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 27);
    long found = 0, none = 0, grows = 0, drops = 0, nwit = 0, reads = 0;
    long skipped = 0, dead = 0, whole = 0;
    int steps = gs_test_long() ? 60000 : 12000;
    for (int step = 0; step < steps; step++) {
        double u = gsl_rng_uniform(r);
        int i = (int)gsl_rng_uniform_int(r, H);
        if (u < 0.40) {                         /* a victim starts */
            if (vs[i].live) {
                stop(f, &x, i);
                continue;
            }
            int pool = (int)gsl_rng_uniform_int(r, 2);
            struct gs_range all = { pool, 0, sp[pool].nodes };
            struct gs_need n = { 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
            n.gpus = 1 + (int)gsl_rng_uniform_int(r, (unsigned)sp[pool].gpn);
            struct gs_alloc a = { .pool = -1 };
            if (gs_fleet_find(f, &all, &n, gsl_rng_uniform(r) < 0.5 ?
                              GS_FIT_FIRST : GS_FIT_BEST, &a, NULL) < 0) {
                gs_alloc_reset(&a);
                continue;
            }
            gs_fleet_commit(f, &a, &n);
            vs[i] = (struct vic){ a, n, 1, (int)gsl_rng_uniform_int(r, NT) };
            rv[a.one.node] += n.gpus;
            fix(&x, f, a.one.node);
        } else if (u < 0.65) {                  /* a victim stops */
            if (vs[i].live)
                stop(f, &x, i);
        } else if (u < 0.80) {                  /* a margin moves */
            int t = (int)gsl_rng_uniform_int(r, NT);
            int m1 = (int)gsl_rng_uniform_int(r, 9);
            if (m1 > margin[t]) {
                gs_fairlv_margin(&x, t, margin[t], m1);
                grows++;
            } else if (m1 < margin[t]) {
                drops++;
            }
            margin[t] = m1;
        } else if (u < 0.82) {                  /* a GPU fails or heals */
            int n = (int)gsl_rng_uniform_int(r, (unsigned)f->nnodes);
            const struct gs_node *nd = &f->nodes[n];
            int k = (int)gsl_rng_uniform_int(
                r, (unsigned)f->pools[nd->pool].s.gpn);
            if (nd->deadmask >> k & 1)
                gs_fleet_set_gpu_dead(f, n, k, 0);
            else if (nd->fullmask >> k & 1) {
                gs_fleet_set_gpu_dead(f, n, k, 1);
                dead++;
            }
            fix(&x, f, n);
        } else {                                /* a search */
            int need = 1 + (int)gsl_rng_uniform_int(r, 8);
            long r0 = reads;
            uint64_t w0 = counter.work;
            int got = index_best(&x, f, need, &reads);
            CU_ASSERT_EQUAL_FATAL(got, scan_best(f, need));
            got < 0 ? none++ : found++;
            whole += need == 4 || need == 8;
            long visits = (long)(counter.work - w0); /* one a witness read */
            CU_ASSERT_FATAL(visits >= reads - r0);
            skipped += visits - (reads - r0);
        }
        check(&x, f, &nwit);
    }
    if (getenv("GS_TEST_VERBOSE"))
        printf("\n    found %ld none %ld grows %ld drops %ld witnessed %ld "
               "reads %ld skipped %ld dead %ld whole %ld", found, none,
               grows, drops, nwit, reads, skipped, dead, whole);
    /* the walk reached what matters, and witnesses spared reads */
    CU_ASSERT(found > steps / 40);
    CU_ASSERT(none > 10);
    CU_ASSERT(grows > steps / 40);
    CU_ASSERT(drops > steps / 40);
    CU_ASSERT(nwit > steps);
    CU_ASSERT(dead > 20);
    CU_ASSERT(whole > steps / 100);
    CU_ASSERT(skipped > reads / 10);
    for (int k = 0; k < H; k++)
        if (vs[k].live)
            stop(f, &x, k);
    for (int n = 0; n < f->nnodes; n++) {
        CU_ASSERT_EQUAL(rv[n], 0);
        CU_ASSERT_EQUAL(x.lvl[n], -1);
        CU_ASSERT_EQUAL(gs_fairlv_wit(&x, n), -1);
    }
    for (long k = 0; k < x.capwhead; k++)
        CU_ASSERT_EQUAL(x.whead[k], -1);        /* no list left behind */
    gsl_rng_free(r);
    free(rv);
    rv = NULL;
    gs_fairlv_free(&x);
    gs_fleet_free(f);
}

/* Worked by hand on two 8-GPU nodes.  Node 0 holds 2 GPUs free and
 * victims of 6 GPUs: full, so in lvf[2] and lvu[2].  A witness of tenant
 * 1's 4-GPU victim takes it out of lvu only; tenant 1's margin growing to
 * 3 keeps the witness, to 4 drops it (back in lvu) and empties the list.
 * A start of 2 more GPUs there (level 0, victims 6: not full) moves it to
 * lv[0], out of lvf; node 1 is never listed. */
static void test_by_hand(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec sp[1] = {
        { "a", "", gs_catalog_find(&cat, "H100-80GB"), 2, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    };
    struct gs_fleet *f = gs_fleet_new(&cat, sp, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    struct gs_fairlv x;
    CU_ASSERT_EQUAL_FATAL(gs_fairlv_init(&x, fake_sim(), f->nnodes, 8), 0);
    gs_fairlv_tenants(&x, 2);
    struct gs_range n0 = { 0, 0, 1 };
    struct gs_need six = { 6, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    struct gs_need two = { 2, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    struct gs_alloc a = { .pool = -1 }, b = { .pool = -1 };
    CU_ASSERT_EQUAL_FATAL(gs_fleet_find(f, &n0, &six, GS_FIT_FIRST, &a,
                                        NULL), 0);
    gs_fleet_commit(f, &a, &six);
    gs_fairlv_fix(&x, f, 0, 2, 6);
    gs_fairlv_fix(&x, f, 1, 0, 0);
    CU_ASSERT(gs_bitidx_has(&x.lv[2], 0));
    CU_ASSERT(gs_bitidx_has(&x.lvf[2], 0));
    CU_ASSERT(gs_bitidx_has(&x.lvu[2], 0));
    CU_ASSERT_EQUAL(x.lvl[1], -1);
    uint64_t w0 = counter.work;
    CU_ASSERT_EQUAL(gs_fairlv_wit(&x, 0), -1);
    CU_ASSERT_EQUAL(counter.work, w0 + 1);      /* a read counts one */
    gs_fairlv_wit_set(&x, 0, 1 << 8 | 4);
    CU_ASSERT_EQUAL(gs_fairlv_wit(&x, 0), 1 << 8 | 4);
    CU_ASSERT(gs_bitidx_has(&x.lvf[2], 0));
    CU_ASSERT(!gs_bitidx_has(&x.lvu[2], 0));
    CU_ASSERT_EQUAL(x.whead[1 * 64 + 4], 0);
    gs_fairlv_margin(&x, 0, 0, 8);              /* another tenant */
    gs_fairlv_margin(&x, 1, 0, 3);
    CU_ASSERT_EQUAL(gs_fairlv_wit(&x, 0), 1 << 8 | 4);
    gs_fairlv_margin(&x, 1, 3, 4);
    CU_ASSERT_EQUAL(gs_fairlv_wit(&x, 0), -1);
    CU_ASSERT(gs_bitidx_has(&x.lvu[2], 0));
    CU_ASSERT_EQUAL(x.whead[1 * 64 + 4], -1);
    CU_ASSERT_EQUAL_FATAL(gs_fleet_find(f, &n0, &two, GS_FIT_FIRST, &b,
                                        NULL), 0);
    gs_fleet_commit(f, &b, &two);               /* not a victim */
    gs_fairlv_fix(&x, f, 0, 2, 6);
    CU_ASSERT(gs_bitidx_has(&x.lv[0], 0));
    CU_ASSERT(!gs_bitidx_has(&x.lv[2], 0));
    CU_ASSERT(!gs_bitidx_has(&x.lvf[0], 0));
    CU_ASSERT(!gs_bitidx_has(&x.lvf[2], 0));
    CU_ASSERT(!gs_bitidx_has(&x.lvu[2], 0));
    gs_fairlv_wit_set(&x, 0, 0 << 8 | 2);
    gs_fairlv_wit_drop(&x, 0);
    gs_fairlv_wit_drop(&x, 0);                  /* none: no-op */
    CU_ASSERT_EQUAL(x.whead[0 * 64 + 2], -1);
    gs_alloc_reset(&a);
    gs_alloc_reset(&b);
    gs_fairlv_free(&x);
    gs_fairlv_free(&x);                         /* safe twice */
    gs_fleet_free(f);
}

/* The nodes' victim sums, bit-sliced (gs_fairlv_vsz, gs_fairlv_ge),
 * against the sums themselves: 200 nodes (four words) of at most 8 GPUs
 * each, victims of 1-8 GPUs coming and going as fair.c books them (a
 * victim of k GPUs adds k to the node's sums of at most g for g >= k);
 * after each change every node's bit in every mask is sum >= c, for c
 * past the largest sum too. */
static void test_planes(void)
{
    enum { NN = 200, G = 8, NV = 600 };
    static int sum[NN][G + 1], vn[NV], vk[NV];
    struct gs_fairlv x;
    CU_ASSERT_EQUAL_FATAL(gs_fairlv_init(&x, fake_sim(), NN, G), 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 10);
    long ones = 0, zeros = 0;
    for (int step = 0; step < 4000; step++) {
        int i = (int)gsl_rng_uniform_int(r, NV), d;
        if (vk[i] == 0) {                       /* a victim starts */
            int n = (int)gsl_rng_uniform_int(r, NN);
            int k = 1 + (int)gsl_rng_uniform_int(r, G);
            if (sum[n][G] + k > G)
                continue;                       /* no room on n */
            vn[i] = n;
            vk[i] = k;
            d = k;
        } else {                                /* it stops */
            d = -vk[i];
        }
        int n = vn[i], k = vk[i];
        for (int g = k; g <= G; g++) {
            gs_fairlv_vsz(&x, n, g, sum[n][g], sum[n][g] + d);
            sum[n][g] += d;
        }
        if (d < 0)
            vk[i] = 0;
        for (int m = 0; m < NN; m++)
            for (int g = 0; g <= G; g++)
                for (int c = 1; c <= 16; c++) {
                    int bit = (int)(gs_fairlv_ge(&x, g, c, m >> 6) >>
                                    (m & 63) & 1);
                    CU_ASSERT_EQUAL_FATAL(bit, sum[m][g] >= c);
                    bit ? ones++ : zeros++;
                }
    }
    CU_ASSERT(ones > 1000000 && zeros > 1000000);
    gsl_rng_free(r);
    gs_fairlv_free(&x);
}

static CU_TestInfo tests[] = {
    { "fairlv: the index against the brute force", test_index_vs_scan },
    { "fairlv: levels and witnesses worked by hand", test_by_hand },
    { "fairlv: the victim sums' masks against the sums", test_planes },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("fairlv", tests)
