/* fairrec.c -- fair's reclaim: the node an owner can be given, found
 * through the level index (fairlv.h) and the victims' sums, and the
 * preemptions that clear it.  policies/fair.c's essay says what the search
 * skips and why its answer is the scan's; fairint.h holds the state. */
#include "policy.h"
#include "fairint.h"

#include <stdlib.h>
#include <string.h>

void gs_fair_ten_grow(struct fair *s, struct gs_sim *sim, int t)
{
    while (t >= s->nt) {
        const struct gs_tenant *tc = gs_sim_tenant(sim, s->nt);
        struct ten *x = gs_lvec_push(&s->ten);
        *x = (struct ten){ .quota = tc ? tc->quota_gpus : 0.0,
                           .weight = tc ? tc->weight : 1.0, .key = -1,
                           .lpos = -1 };
        gs_lvec_init(&x->ne, sim, sizeof(int));
        x->margin = margin_of(x);
        ntm_move(s, -1, x->margin);
        s->nt++;
    }
    gs_fairlv_tenants(&s->lx, s->nt);
}

/* The level index built again (gs_fair_lv_sync). */
void gs_fair_lv_build(struct fair *s, struct gs_sim *sim)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (int n = 0; n < f->nnodes; n++)
        lv_fix(s, f, n);
    s->lv_stale = 0;
    s->lv_ep = gs_sim_epoch(sim);
}

/* Could v be preempted to give room to owner j?  Its tenant must keep at
 * least its own guarantee without it. */
static int is_victim(const struct fair *s, const struct gs_fleet *f,
                     const struct gs_job *v, const struct gs_job *j)
{
    if (!v->preemptible || v->alloc.n != 1 || v->need.gpus == 0 ||
        v->tenant == j->tenant || !(v->pslot & F_RUN) ||
        !gs_fleet_pool_eligible(f, v->alloc.pool, &j->need))
        return 0;
    const struct ten *x = ten_at(s, v->tenant);
    return x->gpus - job_gpus(v) >= x->quota - EPS;
}

/* Victims go largest first, then the most recently started (it loses the
 * least work), then the tenant furthest above its fair share. */
static int victim_cmp(const void *a, const void *b, void *arg)
{
    const struct fair *s = arg;
    const struct gs_job *x = *(struct gs_job *const *)a;
    const struct gs_job *y = *(struct gs_job *const *)b;
    if (x->need.gpus != y->need.gpus)
        return x->need.gpus > y->need.gpus ? -1 : 1;
    if (x->started != y->started)
        return x->started > y->started ? -1 : 1;
    double dx = dom_share(s, ten_at(s, x->tenant));
    double dy = dom_share(s, ten_at(s, y->tenant));
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* No node can be cleared for group grp's jobs: the search fails for the
 * group's next owner too until something starts or stops (s->ver). */
static FAIR_COLD void rfail_grow(struct fair *s, int grp)
{
    int cap = s->gs.cap > grp ? s->gs.cap : grp + 1;
    uint64_t *r = realloc(s->rfail, (size_t)cap * sizeof *r);
    GS_OOM_IF(r == NULL);
    memset(r + s->caprfail, 0, (size_t)(cap - s->caprfail) * sizeof *r);
    s->rfail = r;
    s->caprfail = cap;
}

static void remember_failure(struct fair *s, int grp)
{
    if (grp < 0)
        return;
    if (grp >= s->caprfail)
        rfail_grow(s, grp);
    s->rfail[grp] = s->ver;
}

/* The largest whole-GPU victim tenant t can lose and keep its guarantee
 * (is_victim's tenant test, the same comparison, for g = 1, 2, ...), as
 * it stood when this reclaim began (worked out before it preempts); 0 for
 * the owner's own tenant o. */
static void maxg_read(struct fair *s, int t)
{
    if (s->maxg_at[t] != s->nrecl) {
        const struct ten *x = ten_at(s, t);
        s->maxg[t] = x->margin;
        s->mshort[t] = x->quota - x->gpus;
        s->maxg_at[t] = s->nrecl;
    }
}

static int max_loss(struct fair *s, int t, int o)
{
    if (t == o)
        return 0;
    maxg_read(s, t);
    return s->maxg[t];
}

/* Can node n give back def GPUs to an owner of tenant o: do its victims
 * whose tenant can lose them (max_loss: each tenant read once a search),
 * on a pool the owner may use (s->pe), hold def GPUs?  The search comes
 * before any preemption, so a tenant's margin now is max_loss's.  When n's
 * witness (wit) still cannot be lost and the rest of its victims' GPUs
 * fall short of def, the answer is no without reading them; when n falls
 * short, the victim it cannot lose whose tenant must gain the most GPUs
 * before it could (mshort + its GPUs) becomes its witness: the one whose
 * witness stands longest, as margins move up and down (bench_tenants' 4
 * tenants, 200 k jobs: 1.28 M witnesses fell to margins growing, and
 * their nodes were read again, against 1.87 M with the victim least over
 * its tenant's margin). */
static int node_clears(struct fair *s, const struct gs_fleet *f, int n,
                       int o, int def)
{
    if (!s->pe[f->nodes[n].pool])
        return 0;
    int w = gs_fairlv_wit(&s->lx, n);
    if (w >= 0 && s->node_rv[n] - (w & 0xff) < def)
        return 0;
    int g0 = f->nodes[n].gpu0, r = 0, wg = 0;
    double gap = 0;
    int k1 = -1;
    for (int i = 0; i < s->nvic[n]; i++) {
        int k = gs_lvec_int(&s->vkey, g0 + i);
        int t = k >> 8, g = k & 0xff, m = max_loss(s, t, o);
        if (g <= m) {
            r += g;
            continue;
        }
        maxg_read(s, t);
        double d = s->mshort[t] + g;    /* GPUs t must gain to lose it */
        if (k1 < 0 || d > gap || (d == gap && g > wg)) {
            gap = d;            /* the one least soon lost */
            wg = g;
            k1 = k;
        }
    }
    if (r < def && w < 0)
        gs_fairlv_wit_set(&s->lx, n, k1);
    return r >= def;
}

/* Preempt victims on node best (those max_loss and s->pe allow) until it
 * has need whole GPUs free for j, or none is left. */
static void evict(struct fair *s, struct gs_sim *sim,
                  const struct gs_fleet *f, struct gs_job *j, int best,
                  int need)
{
    long nv = 0;
    const struct gs_node *nd = &f->nodes[best];
    for (int i = 0; i < s->nvic[best]; i++) {
        struct gs_job *v = gs_lvec_job(&s->vjob, nd->gpu0 + i);
        if (v->need.gpus <= max_loss(s, v->tenant, j->tenant))
            s->vict[nv++] = v;
    }
    qsort_r(s->vict, (size_t)nv, sizeof *s->vict, victim_cmp, s);
    /* Largest victims that do not overshoot the deficit ... */
    for (long i = 0; i < nv && nd->nfull < need; i++) {
        struct gs_job *v = s->vict[i];
        if (v && v->need.gpus <= need - nd->nfull && is_victim(s, f, v, j)) {
            gs_sim_preempt(sim, v);
            s->reclaimed += v->need.gpus;
            s->vict[i] = NULL;
        }
    }
    /* ... then the smallest one that covers the rest. */
    for (long i = nv - 1; i >= 0 && nd->nfull < need; i--) {
        struct gs_job *v = s->vict[i];
        if (v && v->need.gpus >= need - nd->nfull && is_victim(s, f, v, j)) {
            gs_sim_preempt(sim, v);
            s->reclaimed += v->need.gpus;
        }
    }
}

/* The GPUs node n can give back to the search's owner, when few tenants
 * lend (s->nls >= 0): node_clears' sum r, read off the lenders' per-node
 * sums of their victims no larger than their margins. */
static int ls_sum(const struct fair *s, int n)
{
    size_t i = (size_t)n * (size_t)s->vszw;
    int r = 0;
    for (int l = 0; l < s->nls; l++)
        r += s->lsv[l][i + (size_t)s->lsm[l]];
    return r;
}

/* The first node at or after n0 and before end in level set ix whose
 * victims of at most top GPUs but the owner's (own) hold def GPUs or more
 * (fewer, and node_clears would find it short: max_loss is at most top,
 * and 0 for the owner's own), or -1.  The level's words are read 64 nodes
 * at a time against the nodes' sums (gs_fairlv_ge), and, for a whole
 * node, against the owner's bits (ownb, or NULL): a node in lvu that
 * holds any victim of the owner's falls short, since all its GPUs not
 * free are victims' and must be freed (the sums' test would find so, a
 * node at a time: 617 k of its 835 k tests in the searches for whole
 * nodes at 4 tenants, 50 k jobs, bench_tenants' scenario). */
static int lv_next(const struct fair *s, const struct gs_bitidx *ix, int n0,
                   int end, int top, int def, const int8_t *own,
                   const uint64_t *ownb)
{
    while (n0 < end) {
        int n = gs_bitidx_next(ix, n0);
        if (n < 0 || n >= end)
            return -1;
        int w = n >> 6;
        uint64_t m = ix->lev[0][w] & (~0ULL << (n & 63)) &
                     gs_fairlv_ge(&s->lx, top, def, w);
        if (ownb != NULL)
            m &= ~ownb[w];
        while (m) {
            int k = w * 64 + __builtin_ctzll(m);
            if (k >= end)
                return -1;
            if (gs_fair_vic_upto(s, k, top, own) >= def &&
                (s->nls < 0 || ls_sum(s, k) >= def))
                return k;
            m &= m - 1;
        }
        n0 = (w + 1) * 64;
    }
    return -1;
}

/* The node reclaim clears for owner j (need whole GPUs): among the nodes
 * of the pools j may use with room for need, the one that needs the fewest
 * GPUs freed (need minus its fully free GPUs, > 0) and has that many to
 * give back, ties to the lower index; -1 if none.  The nodes with victims
 * are read by their fully free GPUs, most first (lv; when need is the
 * whole node lvu, those whose free and victim GPUs fill it -- none other
 * can be cleared -- and that no witness rules out), each level in index
 * order, and a pool's walk ends at its first node that can be cleared:
 * the rest need as many GPUs freed or more. */
static int reclaim_node(struct fair *s, struct gs_sim *sim, int need, int o)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int best = -1, best_def = 1 << 30;
    gs_fair_lv_sync(s, sim);
    const struct ten *ox = ten_at(s, o);
    const int8_t *own = ox->vn;         /* never o's to lose */
    /* Few lenders: each read once here, and a node short of def passed
     * over without node_clears (which would find the same sum, a victim
     * counting when no larger than its tenant's margin, 0 for the
     * owner's own). */
    s->nls = -1;
    if (s->nlender <= LS_MAX && !s->walk) {
        s->nls = 0;
        for (long i = 0; i < gs_lvec_n(&s->lend); i++) {
            int t = gs_lvec_int(&s->lend, i);
            if (t == o)
                continue;
            const struct ten *x = ten_at(s, t);
            s->lsv[s->nls] = x->vn;
            s->lsm[s->nls++] = x->margin < s->vszw - 1 ? x->margin
                                                       : s->vszw - 1;
        }
    }
    int top = s->vszw - 1;      /* the largest margin now (max_loss's), */
    if (s->ntm_hi == 0)         /* at most the largest node's GPUs */
        while (top > 0 && s->ntm[top] == 0)
            top--;
    for (int p = 0; p < f->npools && best_def > 1; p++) {
        const struct gs_pool *pl = &f->pools[p];
        if (!s->pe[p] || need > pl->s.gpn)
            continue;
        int whole = need == pl->s.gpn;
        const struct gs_bitidx *ix = whole ? s->lx.lvu : s->lx.lv;
        const uint64_t *ownb = whole ? ox->vb : NULL;
        int end = pl->node0 + pl->s.nodes;
        for (int v = need - 1; v >= 0 && need - v < best_def; v--) {
            int def = need - v, n = lv_next(s, &ix[v], pl->node0, end, top,
                                            def, own, ownb);
            for (; n >= 0;
                 n = lv_next(s, &ix[v], n + 1, end, top, def, own, ownb))
                if (node_clears(s, f, n, o, def)) {
                    best = n;
                    best_def = def;
                    break;
                }
        }
    }
    return best;
}

/* Has the search for need whole GPUs, from the pools in s->pe, failed on
 * the state as it is (struct rmiss)?  Then it fails again, for an owner of
 * any tenant: a node can be cleared when its fully free GPUs, fewer than
 * need, and its victims whose tenant can lose them add up to need, and
 * since that search
 *   - no stop gave back GPUs or moved a margin down and up again, and no
 *     node came up, was uncordoned or lent (rgen and the epoch);
 *   - no tenant's margin grew (rgen), so no victim became one to take;
 *   - a start only took fully free GPUs from a node, and added at most as
 *     many victim GPUs there: a node it did not bring under need free
 *     (rmiss_start) can be cleared no sooner;
 * and the owner's tenant counts for nothing: an owner is within its
 * guarantee, so its own margin is 0 (max_loss leaves it out besides).
 * When misses repeat only: a shared pool lends and reclaims without the
 * epoch. */
static int rmiss_known(struct fair *s, struct gs_sim *sim, int need)
{
    if (need > GS_MAX_GPN || !s->rep)
        return 0;
    const struct rmiss *m = &s->rm[need];
    size_t np = (size_t)gs_sim_fleet(sim)->npools;
    if (!m->valid || m->rgen != s->rgen || m->ep != gs_sim_epoch(sim) ||
        memcmp(s->rm_pe + (size_t)need * np, s->pe, np) != 0)
        return 0;
    return 1;
}

static void rmiss_note(struct fair *s, struct gs_sim *sim, int need)
{
    if (need > GS_MAX_GPN || !s->rep)
        return;
    size_t np = (size_t)gs_sim_fleet(sim)->npools;
    s->rm[need] = (struct rmiss){ .rgen = s->rgen, .ep = gs_sim_epoch(sim),
                                  .valid = 1 };
    memcpy(s->rm_pe + (size_t)need * np, s->pe, np);
}

/* Room in the per-tenant memos of a search for every tenant known. */
static FAIR_COLD void maxg_grow(struct fair *s)
{
    s->maxg = realloc(s->maxg, (size_t)s->nt * sizeof *s->maxg);
    s->maxg_at = realloc(s->maxg_at, (size_t)s->nt * sizeof *s->maxg_at);
    s->mshort = realloc(s->mshort, (size_t)s->nt * sizeof *s->mshort);
    GS_OOM_IF(s->maxg == NULL || s->maxg_at == NULL || s->mshort == NULL);
    memset(s->maxg_at + s->capmaxg, 0,
           (size_t)(s->nt - s->capmaxg) * sizeof *s->maxg_at);
    s->capmaxg = s->nt;
}

/* Preempt borrowers so that owner j fits on one node, then start it there.
 * 0 if j started. */
int gs_fair_reclaim(struct fair *s, struct gs_sim *sim, struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    int need = j->need.gpus > 0 ? j->need.gpus : 1;
    /* A search that found no node fails again for the group's next owner
     * until something starts or stops (ver). */
    int grp = j->pslot & F_WIN ? (int)(j->pslot >> 8) : -1;
    if (grp >= 0 && grp < s->caprfail && s->rfail[grp] == s->ver)
        return -1;
    gs_fair_ten_ensure(s, sim, j->tenant);      /* running jobs' are, by start() */
    if (s->capmaxg < s->nt)
        maxg_grow(s);
    s->nrecl++;
    /* A victim's tenant is a lender (at least one GPU above its guarantee,
     * with victims): none but j's own, and no node can be cleared. */
    int best = -1;
    if (s->nlender - ten_at(s, j->tenant)->lender > 0) {
        for (int p = 0; p < f->npools; p++)
            s->pe[p] = (char)gs_fleet_pool_eligible(f, p, &j->need);
        if (!rmiss_known(s, sim, need)) {
            best = reclaim_node(s, sim, need, j->tenant);
            if (best < 0)
                rmiss_note(s, sim, need);
        }
    }
    if (best < 0) {
        remember_failure(s, grp);
        return -1;
    }
    evict(s, sim, f, j, best, need);
    s->reclaims++;
    return best;
}
