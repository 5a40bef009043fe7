/* fairlv.h -- fair's reclaim index: the nodes that hold victims, by their
 * fully free GPUs, and witnesses that a node cannot be cleared.
 *
 * fair's reclaim (fair.c) looks for the node that needs the fewest GPUs
 * freed for an owner of `need` whole GPUs and can give them back: among
 * the nodes with fewer than `need` fully free GPUs, whose victims (the
 * preemptible jobs there that their tenant can lose and keep its
 * guarantee) hold the rest.  The index keeps the nodes with a victim by
 * their fully free GPUs v: lv[v], and lvf[v] for those whose free and
 * victim GPUs make up the whole node (the only ones an owner of a whole
 * node can have).  lvl[n] is n's v (-1: no victim), lvfull[n] whether it
 * is in lvf.  The owner (fair.c) calls gs_fairlv_fix at each start and
 * stop on a node and builds it again when capacity came back in a way no
 * stop told of.
 *
 * Witnesses.  Whether a victim can be lost depends on its tenant's margin
 * over its guarantee, which moves at every start and stop; listing and
 * unlisting every victim as margins move costs more than the search.  A
 * search that finds node n short instead keeps one of n's victims that its
 * tenant cannot lose now as n's witness (its key, tenant << 8 | GPUs, + 1
 * in wit[n]; 0: none).  While it stands n can give back at most its
 * victim GPUs minus the witness's, and a node in lvf none of what it needs
 * -- so lvu[v], lvf[v] without the witnessed nodes, is all a search for a
 * whole node reads.  A witness stands until a victim leaves n
 * (gs_fairlv_wit_drop, by the owner) or its tenant's margin grows to its
 * GPUs (gs_fairlv_margin: the nodes a tenant witnesses are listed by GPUs,
 * whead[t * 64 + g], linked through wnext/wprev), which is exactly when
 * it could be lost again; a margin only grows at a start.  The witnesses
 * are read in a pass (counted, look.h); the rest is the fleet's side. */
#ifndef GS_FAIRLV_H
#define GS_FAIRLV_H

#include "../sim/base/bitidx.h"
#include "../sim/cluster/fleet.h"
#include "../sim/core/look.h"

#include <stdint.h>

struct gs_fairlv {
    struct gs_bitidx *lv, *lvf, *lvu;
    /* The nodes' victim GPUs of at most g GPUs (fair.c's vsz), bit-sliced:
     * bit n of plane (g, b) is bit b of node n's sum, so that a search
     * tests 64 nodes at once for a sum of at least c (gs_fairlv_ge).
     * Word w of plane (g, b) at (w * (nlv + 1) + g) * nbit + b, g = 0 ..
     * nlv: a node's words for every size and bit side by side, so that a
     * start or stop, which moves its sums of every size from its victim's
     * up, writes 4-5 cache lines (with 8 GPUs a node), not one a plane
     * (up to 32); a search's test of a word reads one line where it read
     * nbit, though no longer in the same lines as the next word's (the
     * planes' first-level data misses, bench_tenants' scenario at 4
     * tenants, 50 k jobs: upkeep 704 k -> 252 k, searches 61 k -> 146 k). */
    uint64_t *vp;
    int nbit, nw;
    int nlv;                    /* levels: the largest node's GPUs */
    int8_t *lvl, *lvfull;       /* per node */
    struct gs_lvec wit;         /* per node: witness key + 1, or 0 */
    int *wnext, *wprev;         /* per node: its witness list's links */
    int *whead;                 /* per tenant and GPUs: first node, -1 */
    long capwhead;
};

/* An empty index over nnodes nodes of at most maxgpn GPUs: 0 or
 * GS_ENOMEM (x then freed). */
int gs_fairlv_init(struct gs_fairlv *x, struct gs_sim *sim, int nnodes,
                   int maxgpn) __attribute__((cold));
void gs_fairlv_free(struct gs_fairlv *x) __attribute__((cold));
/* Room for the witness lists of tenants 0 .. nt - 1 (at a new tenant). */
void gs_fairlv_tenants(struct gs_fairlv *x, int nt) __attribute__((cold));
/* Node n in the index as it is now: nvic victims holding rv GPUs. */
void gs_fairlv_fix(struct gs_fairlv *x, const struct gs_fleet *f, int n,
                   int nvic, int rv);
/* Victim key k, which its tenant cannot lose now, witnesses node n. */
void gs_fairlv_wit_set(struct gs_fairlv *x, int n, int k);
/* Node n's witness, if any, no longer stands. */
void gs_fairlv_wit_drop(struct gs_fairlv *x, int n);
/* Tenant t's margin grew from m0 to m1. */
void gs_fairlv_margin(struct gs_fairlv *x, int t, int m0, int m1);
/* Node n's victim GPUs of at most g GPUs went from a to b. */
static inline void gs_fairlv_vsz(struct gs_fairlv *x, int n, int g, int a,
                                 int b)
{
    uint64_t *p = x->vp + ((size_t)(n >> 6) * (size_t)(x->nlv + 1) +
                           (size_t)g) * (size_t)x->nbit;
    for (int d = a ^ b, k = 0; d != 0; d >>= 1, k++)
        if (d & 1)
            p[k] ^= 1ULL << (n & 63);
}
/* The nodes 64 * w .. 64 * w + 63 whose victim GPUs of at most g GPUs
 * add up to c or more, as a mask (c >= 1). */
static inline uint64_t gs_fairlv_ge(const struct gs_fairlv *x, int g, int c,
                                    int w)
{
    const uint64_t *p = x->vp + ((size_t)w * (size_t)(x->nlv + 1) +
                                 (size_t)g) * (size_t)x->nbit;
    uint64_t gt = 0, eq = ~0ULL;
    for (int b = x->nbit - 1; b >= 0; b--) {
        uint64_t pb = p[b];
        if (c >> b & 1)
            eq &= pb;
        else {
            gt |= eq & pb;
            eq &= ~pb;
        }
    }
    return c >> x->nbit ? 0 : gt | eq;
}

/* Node n's witness key, or -1 (read in a pass: counted). */
static inline int gs_fairlv_wit(const struct gs_fairlv *x, int n)
{
    return gs_lvec_int(&x->wit, n) - 1;
}

#endif
