/* bits.h -- counting the set bits of a 64-bit word, inline and branch-free.
 *
 * GCC's __builtin_popcountll is one instruction only where the target has
 * POPCNT; Debian's baseline x86-64 (the -O2 build, no -march) has not, so
 * there it is a call into libgcc (__popcountdi2, about 21 instructions with
 * the call, on every job start and requeue through gs_alloc_milli).  This
 * is the same sum done in the registers (Hacker's Delight, 5-2): pairs,
 * then nibbles, then bytes, the bytes added by one multiply -- 15-19
 * instructions with the constants' loads, no call, no branch, no table.  Built with POPCNT
 * (-mpopcnt, -march=x86-64-v2 and up) it is the instruction.  A leaf:
 * includes nothing of the simulator. */
#ifndef GS_BITS_H
#define GS_BITS_H

#include <stdint.h>

/* The number of bits set in x, 0..64. */
static inline int gs_popcount64(uint64_t x)
{
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

#endif
