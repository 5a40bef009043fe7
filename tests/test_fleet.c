/* test_fleet.c -- the placement index against brute force.
 *
 * Random allocate/release sequences on a fleet of mixed pools; after each
 * step, first-fit must return the lowest-numbered node with room, best-fit a
 * node with the least room left, and the index's answers must agree with a
 * linear scan for every request size, whole and fractional. */
#include "cutest.h"
#include "../sim/base/err.h"
#include "../sim/cluster/fleet.h"
#include "../sim/cluster/mig.h"

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
        { "a", "", gs_catalog_find(&cat, "H100-80GB"), 37, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "b", "", gs_catalog_find(&cat, "T4"), 20, 4, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
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
        struct gs_need n = { 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
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
                               4, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    struct gs_fleet *f = gs_fleet_new(&cat, &sp, 1);
    struct gs_range rg = { 0, 0, 4 };
    struct gs_need n = { 20, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };         /* 2 whole nodes + 4 */
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
    struct gs_need two = { 2, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
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
    struct gs_need one = { 1, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    struct gs_alloc b = { .pool = -1 };
    CU_ASSERT_EQUAL(gs_fleet_find(f, &rg, &one, GS_FIT_BEST, &b, NULL), 0);
    CU_ASSERT_EQUAL(b.one.node, 2);             /* the 4 free on node 2 */
    struct gs_need five = { 5, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    CU_ASSERT_EQUAL(gs_fleet_find(f, &rg, &five, GS_FIT_FIRST, &b, NULL),
                    GS_ENOFIT);
    CU_ASSERT_EQUAL(f->gpus_up, 24);
    gs_fleet_set_up(f, 3, 1);
    CU_ASSERT_EQUAL(gs_fleet_find(f, &rg, &five, GS_FIT_FIRST, &b, NULL), 0);
    CU_ASSERT_EQUAL(b.one.node, 3);
    /* Memory: a fraction with 50 GB fits an 80 GB GPU once, not twice. */
    struct gs_need m = { 0, 300, 50.0, 0, NULL, 0, 0, 0, 0, 0, 0 };
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

/* --- the index kept incrementally against one built from scratch ------ */

/* A from-scratch summary of one node (what its leaf must hold). */
struct leafref {
    uint64_t fm, pm;
    int milli, rmax;
    int32_t cpu, mem;
};

static struct leafref leaf_ref(const struct gs_fleet *f, int node)
{
    const struct gs_node *nd = &f->nodes[node];
    const struct gs_pool *p = &f->pools[nd->pool];
    struct leafref r = { 0, 0, 0, 0, -1, -1 };
    if (!nd->up || nd->cordon)
        return r;
    int nfull = 0;
    for (int g = 0; g < p->s.gpn; g++) {
        int fr = f->free_milli[nd->gpu0 + g];
        int v = fr - f->lent[nd->gpu0 + g];
        nfull += fr == 1000;
        if (v < 0)
            v = 0;
        if (v > r.milli)
            r.milli = v;
        if (v > 0 && v < 1000)
            r.pm |= 1ULL << (v * 64 / 1000);
        if (fr > r.rmax)
            r.rmax = fr;
    }
    r.fm = 1ULL << nfull;
    r.cpu = f->cpu_free[node];
    r.mem = f->mem_free[node];
    return r;
}

static int imax(int a, int b) { return a > b ? a : b; }

/* Every leaf of every pool's tree as leaf_ref has it, every inner entry the
 * OR or max of its children; the host maxima once they are kept.  Also the
 * per-node books the leaves come from, and the stranded total. */
static void check_index(const struct gs_fleet *f)
{
    int64_t stranded = 0;
    for (int n = 0; n < f->nnodes; n++) {
        const struct gs_node *nd = &f->nodes[n];
        const struct gs_pool *p = &f->pools[nd->pool];
        uint64_t full = 0;
        int64_t freem = 0;
        for (int g = 0; g < p->s.gpn; g++) {
            full |= (uint64_t)(f->free_milli[nd->gpu0 + g] == 1000) << g;
            if (!(nd->deadmask >> g & 1))
                freem += f->free_milli[nd->gpu0 + g];
        }
        CU_ASSERT_EQUAL_FATAL(nd->fullmask, full);
        CU_ASSERT_EQUAL_FATAL(nd->nfull, __builtin_popcountll(full));
        if (nd->up && (f->cpu_free[n] < GS_STRAND_CPU ||
                       f->mem_free[n] < GS_STRAND_MIB))
            stranded += freem;
    }
    CU_ASSERT_EQUAL_FATAL(f->stranded_milli, stranded);
    for (int pi = 0; pi < f->npools; pi++) {
        const struct gs_pool *p = &f->pools[pi];
        /* The root's fully-free mask is exact before any sync. */
        uint64_t root = 0;
        for (int k = 0; k < p->s.nodes; k++)
            root |= leaf_ref(f, p->node0 + k).fm;
        CU_ASSERT_EQUAL_FATAL(p->fmask[1], root);
        gs_fleet_index_sync(f, pi);
        CU_ASSERT_EQUAL_FATAL(p->ndirty, 0);
        for (int k = 0; k < p->tsize; k++) {
            int i = p->tsize + k;
            struct leafref r = { 0, 0, 0, 0, -1, -1 };
            if (k < p->s.nodes)
                r = leaf_ref(f, p->node0 + k);
            CU_ASSERT_EQUAL_FATAL(p->fmask[i], r.fm);
            CU_ASSERT_EQUAL_FATAL(p->pmask[i], r.pm);
            CU_ASSERT_EQUAL_FATAL(p->milli[i], r.milli);
            if (p->rmax)
                CU_ASSERT_EQUAL_FATAL(p->rmax[i], r.rmax);
            if (p->hidx) {
                CU_ASSERT_EQUAL_FATAL(p->hcpu[i], r.cpu);
                CU_ASSERT_EQUAL_FATAL(p->hmem[i], r.mem);
            }
        }
        for (int i = p->tsize - 1; i >= 1; i--) {
            CU_ASSERT_EQUAL_FATAL(p->fmask[i],
                                  p->fmask[2 * i] | p->fmask[2 * i + 1]);
            CU_ASSERT_EQUAL_FATAL(p->pmask[i],
                                  p->pmask[2 * i] | p->pmask[2 * i + 1]);
            CU_ASSERT_EQUAL_FATAL(p->milli[i], imax(p->milli[2 * i],
                                                    p->milli[2 * i + 1]));
            if (p->rmax)
                CU_ASSERT_EQUAL_FATAL(p->rmax[i], imax(p->rmax[2 * i],
                                                       p->rmax[2 * i + 1]));
            if (p->hidx) {
                CU_ASSERT_EQUAL_FATAL(p->hcpu[i], imax(p->hcpu[2 * i],
                                                       p->hcpu[2 * i + 1]));
                CU_ASSERT_EQUAL_FATAL(p->hmem[i], imax(p->hmem[2 * i],
                                                       p->hmem[2 * i + 1]));
            }
        }
    }
}

/* Brute force: the lowest open node of pool p with cpu and mem free. */
static int bf_host(const struct gs_fleet *f, int pool, int32_t cpu,
                   int32_t mem)
{
    const struct gs_pool *p = &f->pools[pool];
    for (int k = 0; k < p->s.nodes; k++) {
        const struct gs_node *nd = &f->nodes[p->node0 + k];
        if (nd->up && !nd->cordon && f->cpu_free[p->node0 + k] >= cpu &&
            f->mem_free[p->node0 + k] >= mem)
            return p->node0 + k;
    }
    return -1;
}

/* Random commits and releases of every kind of need (whole GPUs, gangs,
 * fractions, MIG instances with and without reconfiguration, time-slicing
 * replicas, guaranteed fractions with loans, CPU-only jobs, all with host
 * CPU and memory), nodes going down and up, cordons, dead GPUs: the root
 * mask is exact at every moment, and once synced (every search syncs its
 * pool; the others wait with several changes pending) the trees kept one
 * leaf at a time equal a rebuild. */
static void test_index_incremental(void)
{
    gs_catalog_init(&cat);
    int h100 = gs_catalog_find(&cat, "H100-80GB");
    int a100 = gs_catalog_find(&cat, "A100-80GB");
    struct gs_pool_spec sp[7] = {
        { "plain", "", h100, 37, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "t4", "", gs_catalog_find(&cat, "T4"), 20, 4, 0, 0, { 0 },
          32000, 100000, 0, 0, 0, 0, 0, 0, 0 },
        { "mig", "", h100, 9, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "migfix", "", a100, 5, 4, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "ts", "", a100, 11, 4, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "frac", "", h100, 13, 8, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { "cpu", "", -1, 6, 0, 0, 0, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    };
    struct gs_diag d = { 0 };
    sp[2].share.mode = GS_SHARE_MIG;
    sp[2].share.mig_gpu = gs_mig_gpu_find("H100-80GB");
    sp[2].share.reconfigure = 1;
    CU_ASSERT_EQUAL_FATAL(gs_mig_layout_parse(sp[2].share.mig_gpu, "balanced",
                                              &sp[2].share.layout, &d), 0);
    sp[3].share.mode = GS_SHARE_MIG;
    sp[3].share.mig_gpu = gs_mig_gpu_find("A100-80GB");
    CU_ASSERT_EQUAL_FATAL(gs_mig_layout_parse(sp[3].share.mig_gpu, "all-1g",
                                              &sp[3].share.layout, &d), 0);
    sp[4].share.mode = GS_SHARE_TS;
    sp[4].share.replicas = 4;
    sp[5].share.mode = GS_SHARE_FRAC;
    sp[6].model = h100;             /* a model is named; it has no GPUs */
    struct gs_fleet *f = gs_fleet_new(&cat, sp, 7);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int p = 0; p < f->npools; p++)
        CU_ASSERT_EQUAL(f->pools[p].hidx, 0);
    check_index(f);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    enum { H = 300 };
    static struct held h[H];
    static const char *const migprof[] = { "1g.10gb", "2g.20gb", "3g.40gb",
                                           "1g.20gb", "7g.80gb" };
    long kinds[8] = { 0 }, states = 0, hosts = 0;
    for (int step = 0; step < 12000; step++) {
        double u = gsl_rng_uniform(r);
        if (u < 0.06) {
            /* a node changes state: down/up when empty, a cordon, a dead
             * GPU (fully free) or a repaired one, a loan */
            int node = (int)gsl_rng_uniform_int(r, (unsigned long)f->nnodes);
            struct gs_node *nd = &f->nodes[node];
            const struct gs_pool *p = &f->pools[nd->pool];
            int what = (int)gsl_rng_uniform_int(r, 4);
            if (what == 0 && nd->njobs == 0)
                gs_fleet_set_up(f, node, !nd->up);
            else if (what == 1)
                gs_fleet_set_cordon(f, node, !nd->cordon);
            else if (what == 2 && p->s.gpn > 0 && p->mig == NULL) {
                int k = (int)gsl_rng_uniform_int(r, (unsigned long)p->s.gpn);
                if (nd->deadmask >> k & 1)
                    gs_fleet_set_gpu_dead(f, node, k, 0);
                else if (f->free_milli[nd->gpu0 + k] == 1000)
                    gs_fleet_set_gpu_dead(f, node, k, 1);
            } else if (what == 3 && p->rmax) {
                int k = (int)gsl_rng_uniform_int(r, (unsigned long)p->s.gpn);
                gs_fleet_set_lent(f, nd->gpu0 + k,
                                  (int)gsl_rng_uniform_int(r, 1001));
            }
            states++;
            if (gsl_rng_uniform(r) < 0.25)
                check_index(f);
            continue;
        }
        int i = (int)gsl_rng_uniform_int(r, H);
        if (h[i].live) {
            gs_fleet_release(f, &h[i].a, &h[i].n);
            gs_alloc_reset(&h[i].a);
            h[i].live = 0;
            if (gsl_rng_uniform(r) < 0.25)
                check_index(f);
            continue;
        }
        int pool = (int)gsl_rng_uniform_int(r, 7);
        const struct gs_pool *p = &f->pools[pool];
        struct gs_need n = { 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
        int kind = (int)gsl_rng_uniform_int(r, 4);
        if (kind == 0 || pool == 6) {
            kind = 0;               /* CPU only */
            n.cpu_milli = 500 * (1 + (int)gsl_rng_uniform_int(r, 40));
            n.mem_mib = 1024 * (1 + (int)gsl_rng_uniform_int(r, 200));
        } else if (p->mig) {
            n.profile = migprof[gsl_rng_uniform_int(r, 5)];
            if (kind == 3) {        /* by memory and compute, not a name */
                n.profile = NULL;
                n.milli = 100 * (1 + (int)gsl_rng_uniform_int(r, 5));
                n.mem_gb = 5.0 * (1 + (int)gsl_rng_uniform_int(r, 6));
            }
        } else if (kind == 1 || p->unit) {
            n.milli = 50 * (1 + (int)gsl_rng_uniform_int(r, 19));
            if (p->rmax && gsl_rng_uniform(r) < 0.5) {
                n.guar = n.milli;
                n.burst = 1000;
            }
        } else {
            n.gpus = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)
                                                  (p->s.gpn * 2));
        }
        if (kind != 0 && gsl_rng_uniform(r) < 0.5) {
            n.cpu_milli = 1000 * (int)gsl_rng_uniform_int(r, 30);
            n.mem_mib = 4096 * (int)gsl_rng_uniform_int(r, 60);
        }
        struct gs_range rg = { pool, 0, p->s.nodes };
        if (gsl_rng_uniform(r) < 0.3) {
            rg.lo = (int)gsl_rng_uniform_int(r, (unsigned long)p->s.nodes);
            rg.hi = rg.lo + 1 + (int)gsl_rng_uniform_int(
                         r, (unsigned long)(p->s.nodes - rg.lo));
        }
        int fit = gsl_rng_uniform(r) < 0.5 ? GS_FIT_FIRST : GS_FIT_BEST;
        struct gs_alloc a = { .pool = -1 };
        int rc = gs_fleet_find(f, &rg, &n, fit, &a, NULL);
        if (kind == 0) {
            /* the host maxima are built by the first such search */
            CU_ASSERT_EQUAL_FATAL(p->hidx, 1);
            int32_t c = n.cpu_milli, m = n.mem_mib;
            int want = -1;
            for (int k = rg.lo; k < rg.hi && want < 0; k++) {
                int node = p->node0 + k;
                const struct gs_node *nd = &f->nodes[node];
                if (nd->up && !nd->cordon && f->cpu_free[node] >= c &&
                    f->mem_free[node] >= m)
                    want = node;
            }
            CU_ASSERT_EQUAL_FATAL(rc == 0 ? a.one.node : -1, want);
            if (rg.lo == 0 && rg.hi == p->s.nodes)
                CU_ASSERT_EQUAL_FATAL(want, bf_host(f, pool, c, m));
            hosts++;
        }
        if (rc == 0) {
            CU_ASSERT_FATAL(gs_fleet_can_commit(f, &a, &n));
            gs_fleet_commit(f, &a, &n);
            h[i] = (struct held){ a, n, 1 };
            kinds[kind]++;
            kinds[4 + (p->mig != NULL) + 2 * (p->rmax != NULL)]++;
        } else {
            gs_alloc_reset(&a);
        }
        if (gsl_rng_uniform(r) < 0.25)
            check_index(f);      /* other pools' changes wait meanwhile */
    }
    /* Every kind of need and of pool was exercised. */
    for (int k = 0; k < 4; k++)
        CU_ASSERT(kinds[k] > 200);
    CU_ASSERT(kinds[5] > 100);      /* MIG instances */
    CU_ASSERT(kinds[6] > 100);      /* fractional pool */
    CU_ASSERT(states > 300);
    CU_ASSERT(hosts > 1000);
    CU_ASSERT(f->stranded_milli > 0 || f->cpu_used > 0);
    for (int k = 0; k < H; k++)
        if (h[k].live) {
            gs_fleet_release(f, &h[k].a, &h[k].n);
            gs_alloc_reset(&h[k].a);
            h[k].live = 0;
        }
    check_index(f);
    CU_ASSERT_EQUAL(f->used_milli, 0);
    CU_ASSERT_EQUAL(f->cpu_used, 0);
    CU_ASSERT_EQUAL(f->mem_used, 0);
    gs_fleet_free(f);
    gsl_rng_free(r);
    gs_diag_free(&d);
}


/* gs_fleet_host_follows: while every part held on a pool asks no more CPU
 * and host memory than its whole GPUs' share of a node, a node with k GPUs
 * fully free has room for any k-GPU job asking no more than its share, so
 * best-fit's answer is the pool's free-GPU mask's (rl-lite's fit feature
 * reads it so).  Random whole-GPU jobs, some asking more than their share
 * and a few CPU-only (they hold no GPU: always over), on 24 T4 nodes of 4
 * GPUs, 32 cores and 64 GiB (in every other stretch of steps, so that
 * they also drain away): after every step the pool's count of parts
 * over their share matches a count over the held jobs, and for every size
 * of a job within its share, when the pool says the host follows, the
 * search's best-fit leftover is the least fully free GPUs at least k less
 * k, on a node with that many free and room for the host asks.  The run
 * must also reach states where the host decides (a search answer the mask
 * would get wrong), or the test would not test the rule. */
static int over_share(const struct gs_pool *p, const struct gs_need *n)
{
    return (int64_t)n->cpu_milli * p->s.gpn > (int64_t)n->gpus * p->host_cpu ||
           (int64_t)n->mem_mib * p->s.gpn > (int64_t)n->gpus * p->host_mem;
}

static void test_host_follows(void)
{
    gs_catalog_init(&cat);
    struct gs_pool_spec sp = { "t4", "", gs_catalog_find(&cat, "T4"), 24, 4,
                               0, 0, { 0 }, 32000, 65536, 0, 0, 0, 0, 0,
                               0, 0 };
    struct gs_fleet *f = gs_fleet_new(&cat, &sp, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    const struct gs_pool *p = &f->pools[0];
    struct gs_range rg = { 0, 0, 24 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    enum { H = 120 };
    struct held h[H] = { 0 };
    long follows = 0, differs = 0, overs = 0;
    for (int step = 0; step < 20000; step++) {
        int k = (int)gsl_rng_uniform_int(r, H);
        if (h[k].live) {
            gs_fleet_release(f, &h[k].a, &h[k].n);
            gs_alloc_reset(&h[k].a);
            h[k].live = 0;
        } else {
            struct gs_need n = { 0 };
            /* in odd stretches of 2,000 steps only: the others drain
             * them, so both states come often */
            int kind = (step / 2000) % 2
                           ? (int)gsl_rng_uniform_int(r, 20) : 19;
            n.gpus = kind == 0 ? 0 : 1 + (int)gsl_rng_uniform_int(r, 4);
            int g = n.gpus ? n.gpus : 1;
            /* within the share (8 cores, 16 GiB a GPU), or over it */
            n.cpu_milli = (int32_t)(g * (kind < 3 ? 11000 : 8000) *
                                    gsl_rng_uniform(r));
            n.mem_mib = (int32_t)(g * (kind == 3 ? 30000 : 16384) *
                                  gsl_rng_uniform(r));
            if (n.gpus == 0 && n.cpu_milli == 0)
                n.cpu_milli = 1;
            h[k].n = n;
            h[k].a = (struct gs_alloc){ .pool = -1 };
            if (gs_fleet_find(f, &rg, &n, GS_FIT_BEST, &h[k].a, NULL) == 0) {
                gs_fleet_commit(f, &h[k].a, &h[k].n);
                h[k].live = 1;
            } else {
                gs_alloc_reset(&h[k].a);
            }
        }
        long over = 0;
        for (int i = 0; i < H; i++)
            over += h[i].live && over_share(p, &h[i].n);
        CU_ASSERT_EQUAL_FATAL(p->host_over, over);
        overs += over > 0;
        for (int g = 1; g <= 4; g++) {
            struct gs_need n = { 0 };
            n.gpus = g;
            n.cpu_milli = 8000 * g;
            n.mem_mib = 16384 * g;
            uint64_t m = p->fmask[1] & (~0ULL << g);
            struct gs_alloc a = { .pool = -1 };
            int sc = -1, rc = gs_fleet_find(f, &rg, &n, GS_FIT_BEST, &a, &sc);
            int mask_sc = m ? __builtin_ctzll(m) - g : -1;
            if (gs_fleet_host_follows(p, &n)) {
                follows++;
                CU_ASSERT_EQUAL_FATAL(rc == 0, m != 0);
                if (rc == 0) {
                    CU_ASSERT_EQUAL(sc, mask_sc);
                    CU_ASSERT_EQUAL(f->nodes[a.one.node].nfull, g + sc);
                }
            } else if ((rc == 0) != (m != 0) || (rc == 0 && sc != mask_sc)) {
                differs++;
            }
            gs_alloc_reset(&a);
        }
    }
    printf("\n    [host follows %ld times; the host decided %ld times, "
           "in %ld states with a part over its share]", follows, differs,
           overs);
    CU_ASSERT(follows > 1000);
    CU_ASSERT(differs > 100);
    for (int k = 0; k < H; k++)
        if (h[k].live) {
            gs_fleet_release(f, &h[k].a, &h[k].n);
            gs_alloc_reset(&h[k].a);
        }
    CU_ASSERT_EQUAL(p->host_over, 0);
    gs_fleet_free(f);
    gsl_rng_free(r);
}

static CU_TestInfo tests[] = {
    { "index answers match brute force", test_index_vs_bruteforce },
    { "gangs, down nodes, per-GPU memory", test_gang_and_down_nodes },
    { "speed on another GPU model", test_time_factor },
    { "index kept one leaf at a time matches a rebuild",
      test_index_incremental },
    { "the host follows the GPUs while parts ask their share",
      test_host_follows },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("fleet", tests)
