/* test_bits.c -- gs_popcount64 (sim/base/bits.h) against the count by
 * definition, one bit at a time: every word of one and of two set bits,
 * runs of low and high ones, and 200,000 words of every density drawn
 * from splitmix64; plus values worked by hand. */
#include "cutest.h"
#include "../sim/base/bits.h"

#include <stdint.h>

/* The definition: look at each of the 64 bits. */
static int count_by_bit(uint64_t x)
{
    int n = 0;
    for (int b = 0; b < 64; b++)
        n += (int)((x >> b) & 1u);
    return n;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void test_by_hand(void)
{
    CU_ASSERT_EQUAL(gs_popcount64(0), 0);
    CU_ASSERT_EQUAL(gs_popcount64(1), 1);
    CU_ASSERT_EQUAL(gs_popcount64(0xffULL), 8);           /* a node of 8 */
    CU_ASSERT_EQUAL(gs_popcount64(0xa5ULL), 4);
    CU_ASSERT_EQUAL(gs_popcount64(0x8000000000000000ULL), 1);
    CU_ASSERT_EQUAL(gs_popcount64(0xffffffffffffffffULL), 64);
    CU_ASSERT_EQUAL(gs_popcount64(0x5555555555555555ULL), 32);
    CU_ASSERT_EQUAL(gs_popcount64(0xf0f0f0f0f0f0f0f0ULL), 32);
    CU_ASSERT_EQUAL(gs_popcount64(0x0123456789abcdefULL), 32);
    CU_ASSERT_EQUAL(gs_popcount64(0xfffffffffffffffeULL), 63);
}

static void test_equals_definition(void)
{
    long bad = 0, cases = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t one = 1ULL << i;
        bad += gs_popcount64(one) != 1;
        /* runs of ones from the bottom and from the top */
        uint64_t low = i == 63 ? ~0ULL : (one << 1) - 1;
        bad += gs_popcount64(low) != i + 1;
        bad += gs_popcount64(~0ULL << i) != 64 - i;
        cases += 3;
        for (int j = i + 1; j < 64; j++, cases++)
            bad += gs_popcount64(one | 1ULL << j) != 2;
    }
    uint64_t s = 1;
    for (int k = 0; k < 200000; k++, cases++) {
        uint64_t x = splitmix64(&s);
        /* sparse, dense and even: one, and, or of two draws */
        if (k % 3 == 1)
            x &= splitmix64(&s) & splitmix64(&s);
        else if (k % 3 == 2)
            x |= splitmix64(&s) | splitmix64(&s);
        bad += gs_popcount64(x) != count_by_bit(x);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(cases, 3 * 64 + 64 * 63 / 2 + 200000);
}

static CU_TestInfo tests[] = {
    { "values by hand", test_by_hand },
    { "equals the count bit by bit", test_equals_definition },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("bits", tests)
