/* bitidx.h -- a set of small integers with "next member at or after i".
 *
 * A hierarchical bitmap: level 0 has one bit per element, and each higher
 * level one bit per 64-bit word of the level below, set when that word is
 * not zero.  Setting and clearing touch one word per level; finding the
 * next member climbs until a level has a set bit at or after the position
 * and descends along the lowest set bits.  With 64-way levels, six levels
 * cover 2^31 elements, so every operation is O(log64 n) -- three words for
 * a 100,000-GPU fleet.  The MIG slot index (migslots.c) and the placers'
 * per-shape node sets (frag.c) use it.  A leaf container: includes nothing
 * of the simulator but err.h. */
#ifndef GS_BITIDX_H
#define GS_BITIDX_H

#include <stdint.h>

#define GS_BITIDX_LEVELS 6

struct gs_bitidx {
    int n;                              /* elements 0..n-1 */
    int nlev;
    int words[GS_BITIDX_LEVELS];
    uint64_t *lev[GS_BITIDX_LEVELS];    /* owned */
};

/* An empty set over 0..n-1 (n >= 0).  0 or GS_ENOMEM. */
int gs_bitidx_init(struct gs_bitidx *b, int n);
void gs_bitidx_free(struct gs_bitidx *b);       /* NULL-safe, re-usable */

void gs_bitidx_set(struct gs_bitidx *b, int i);
void gs_bitidx_clear(struct gs_bitidx *b, int i);

static inline int gs_bitidx_has(const struct gs_bitidx *b, int i)
{
    return (int)((b->lev[0][i >> 6] >> (i & 63)) & 1u);
}

/* The smallest member >= i, or -1 if there is none. */
int gs_bitidx_next(const struct gs_bitidx *b, int i);

#endif
