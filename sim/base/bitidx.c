/* bitidx.c -- the hierarchical bitmap of bitidx.h.
 *
 * Invariant: bit w of level k+1 is set iff word w of level k is not zero;
 * bits at or beyond n on level 0 are never set. */
#include "bitidx.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

int gs_bitidx_init(struct gs_bitidx *b, int n)
{
    memset(b, 0, sizeof *b);
    GS_ASSERT(n >= 0);
    b->n = n;
    long w = ((long)n + 63) / 64;
    if (w == 0)
        w = 1;
    for (;;) {
        GS_ASSERT(b->nlev < GS_BITIDX_LEVELS);
        b->words[b->nlev] = (int)w;
        b->lev[b->nlev] = calloc((size_t)w, sizeof(uint64_t));
        if (b->lev[b->nlev] == NULL) {
            gs_bitidx_free(b);
            return GS_ENOMEM;
        }
        b->nlev++;
        if (w == 1)
            break;
        w = (w + 63) / 64;
    }
    return 0;
}

void gs_bitidx_free(struct gs_bitidx *b)
{
    if (b == NULL)
        return;
    for (int k = 0; k < GS_BITIDX_LEVELS; k++)
        free(b->lev[k]);
    memset(b, 0, sizeof *b);
}

void gs_bitidx_set(struct gs_bitidx *b, int i)
{
    GS_ASSERT(i >= 0 && i < b->n);
    long pos = i;
    for (int k = 0; k < b->nlev; k++) {
        uint64_t *w = &b->lev[k][pos >> 6];
        int was = *w != 0;
        *w |= 1ULL << (pos & 63);
        if (was)
            break;
        pos >>= 6;
    }
}

void gs_bitidx_clear(struct gs_bitidx *b, int i)
{
    GS_ASSERT(i >= 0 && i < b->n);
    long pos = i;
    for (int k = 0; k < b->nlev; k++) {
        uint64_t *w = &b->lev[k][pos >> 6];
        *w &= ~(1ULL << (pos & 63));
        if (*w)
            break;
        pos >>= 6;
    }
}

int gs_bitidx_next(const struct gs_bitidx *b, int i)
{
    if (i < 0)
        i = 0;
    if (i >= b->n)
        return -1;
    int k = 0;
    long pos = i;
    for (;;) {
        if (k == b->nlev)
            return -1;
        long w = pos >> 6;
        if (w >= b->words[k])
            return -1;
        uint64_t m = b->lev[k][w] & (~0ULL << (pos & 63));
        if (m) {
            pos = (w << 6) + __builtin_ctzll(m);
            break;
        }
        pos = w + 1;
        k++;
    }
    while (k > 0) {
        k--;
        pos = (pos << 6) + __builtin_ctzll(b->lev[k][pos]);
    }
    return (int)pos;
}
