/* test_deflate.c -- deflate.c's zlib streams inflate (with zlib, as
 * HDF5's filter does) to the bytes that went in, for every kind of
 * segment: stored, constant, runs around the 258-byte match limit, few
 * values, every value (where coding loses and the block is stored
 * instead), counts skewed past the 15-bit code limit, and segments of one
 * byte, none and several blocks; the same bytes give the same stream; and
 * the coded sizes are what run-length and Huffman coding promise. */
#include "cutest.h"
#include "../sim/io/deflate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A segment: its bytes and whether it is marked stored. */
struct seg {
    unsigned char *p;
    size_t n;
    int stored;
};

/* The stream of segs[0..k) into a fresh buffer of the documented room;
 * its length in *len. */
static unsigned char *code(const struct seg *segs, int k, size_t *len)
{
    size_t cap = GS_DEFLATE_FRAME, total = 0;
    for (int i = 0; i < k; i++) {
        cap += gs_deflate_bound(segs[i].n);
        total += segs[i].n;
    }
    unsigned char *out = malloc(cap), *all = malloc(total + 1);
    uint16_t *tok = malloc(GS_DEFLATE_TOKENS * sizeof *tok);
    struct gs_deflate z;
    gs_deflate_begin(&z, out, tok);
    size_t at = 0;
    for (int i = 0; i < k; i++) {
        gs_deflate_segment(&z, segs[i].p, segs[i].n, segs[i].stored);
        if (segs[i].n > 0)              /* p may be NULL when empty */
            memcpy(all + at, segs[i].p, segs[i].n);
        at += segs[i].n;
    }
    *len = gs_deflate_end(&z, (uint32_t)adler32(1, all, (uInt)total));
    CU_ASSERT(*len <= cap);
    free(all);
    free(tok);
    return out;
}

/* 1 when the stream z (zn bytes) inflates to exactly segs' bytes. */
static int inflates_to(const unsigned char *z, size_t zn,
                       const struct seg *segs, int k)
{
    size_t total = 0;
    for (int i = 0; i < k; i++)
        total += segs[i].n;
    unsigned char *back = malloc(total + 16);
    uLongf len = (uLongf)(total + 16);
    int ok = uncompress(back, &len, z, (uLong)zn) == Z_OK && len == total;
    size_t at = 0;
    for (int i = 0; ok && i < k; i++) {
        ok = segs[i].n == 0 || memcmp(back + at, segs[i].p, segs[i].n) == 0;
        at += segs[i].n;
    }
    free(back);
    return ok;
}

/* The kinds of segment, n bytes each (kind 7's length its own). */
enum { NKINDS = 9 };

static struct seg make(int kind, size_t n)
{
    struct seg s = { malloc(n + 1), n, 0 };
    unsigned char *p = s.p;
    switch (kind) {
    case 0:                                 /* constant */
        memset(p, 0x5a, n);
        break;
    case 1: {                               /* runs of 1 .. 600 bytes */
        size_t i = 0;
        for (unsigned len = 1, v = 0; i < n; len = len % 600 + 1, v++)
            for (unsigned j = 0; j < len && i < n; j++)
                p[i++] = (unsigned char)(v % 7);
        break;
    }
    case 2:                                 /* runs at the match limit */
        for (size_t i = 0, len = 256, v = 0; i < n; len++, v++) {
            if (len > 262)
                len = 256;
            for (size_t j = 0; j < len && i < n; j++)
                p[i++] = (unsigned char)v;
        }
        break;
    case 3:                                 /* two values, no runs kept */
        for (size_t i = 0; i < n; i++)
            p[i] = (unsigned char)(next() >> 63);
        break;
    case 4:                                 /* every value: coding loses */
        for (size_t i = 0; i < n; i++)
            p[i] = (unsigned char)(next() >> 56);
        break;
    case 5: {                               /* Fibonacci counts: Huffman
                                             * depths to 21 without the
                                             * limit */
        size_t i = 0;
        uint32_t f0 = 1, f1 = 1;
        for (int v = 0; v < 22 && i < n; v++) {
            for (uint32_t j = 0; j < f0 && i < n; j++)
                p[i++] = (unsigned char)(v * 11);
            uint32_t f2 = f0 + f1;
            f0 = f1;
            f1 = f2;
        }
        for (; i < n; i++)
            p[i] = (unsigned char)(next() >> 60);
        /* shuffled, so the counts are the literals' (few runs) */
        for (size_t j = n; j > 1; j--) {
            size_t r = next() % j;
            unsigned char t = p[j - 1];
            p[j - 1] = p[r];
            p[r] = t;
        }
        break;
    }
    case 6:                                 /* random, marked stored */
        for (size_t i = 0; i < n; i++)
            p[i] = (unsigned char)(next() >> 40);
        s.stored = 1;
        break;
    case 7:                                 /* one byte */
        p[0] = 3;
        s.n = 1;
        break;
    default:                                /* none */
        s.n = 0;
        break;
    }
    return s;
}

/* Each kind alone and all kinds in one stream, at a block's size, one
 * byte over and several blocks, inflate to their bytes; coding twice gives
 * the same stream. */
static void test_roundtrip(void)
{
    static const size_t sizes[] = { 65536, 65537, 200001 };
    for (size_t z = 0; z < 3; z++) {
        struct seg segs[NKINDS];
        int bad = 0;
        for (int k = 0; k < NKINDS; k++) {
            segs[k] = make(k, sizes[z]);
            size_t n1, n2;
            unsigned char *a = code(&segs[k], 1, &n1);
            unsigned char *b = code(&segs[k], 1, &n2);
            bad += !inflates_to(a, n1, &segs[k], 1);
            bad += n1 != n2 || memcmp(a, b, n1) != 0;
            free(a);
            free(b);
        }
        CU_ASSERT_EQUAL(bad, 0);
        size_t n;
        unsigned char *all = code(segs, NKINDS, &n);
        CU_ASSERT(inflates_to(all, n, segs, NKINDS));
        free(all);
        for (int k = 0; k < NKINDS; k++)
            free(segs[k].p);
    }
    struct seg none = { NULL, 0, 0 };
    size_t n;
    unsigned char *z = code(&none, 1, &n);
    CU_ASSERT_EQUAL(n, 2 + 2 + 4);  /* header, the final empty block,
                                     * Adler-32 */
    CU_ASSERT(inflates_to(z, n, &none, 1));
    free(z);
}

/* The size of zlib's stream of s at level 1 with its Z_RLE strategy (the
 * coding the writer called zlib for before). */
static size_t zlib_rle(const struct seg *s)
{
    uLong cap = compressBound((uLong)s->n);
    unsigned char *out = malloc(cap);
    z_stream z = { 0 };
    size_t n = 0;
    if (deflateInit2(&z, 1, Z_DEFLATED, 15, 8, Z_RLE) == Z_OK) {
        z.next_in = s->p;
        z.avail_in = (uInt)s->n;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) == Z_STREAM_END)
            n = z.total_out;
        deflateEnd(&z);
    }
    free(out);
    return n;
}

/* Sizes: a constant block is a few hundred symbols' bits; two random
 * values code at over their entropy (a bit a byte) and under 1.5 bits;
 * every value is stored (coding would take more than the bytes) with 5
 * bytes of framing per 65,535; runs of 256-262 bytes are two symbols
 * each; and runs, two values and the Fibonacci counts take no more than
 * zlib's Z_RLE stream of the same bytes (within 0.5%). */
static void test_sizes(void)
{
    enum { N = 65536 };
    size_t n;
    struct seg s = make(0, N);
    unsigned char *z = code(&s, 1, &n);
    CU_ASSERT(n < 120);
    free(z);
    free(s.p);
    s = make(4, N);
    z = code(&s, 1, &n);
    CU_ASSERT_EQUAL(n, 2 + N + 2 * 5 + 2 + 4);
    free(z);
    free(s.p);
    s = make(2, N);
    z = code(&s, 1, &n);
    CU_ASSERT(n < N / 259 * 4 + 200);
    free(z);
    free(s.p);
    static const int kinds[] = { 1, 3, 5 };
    for (int k = 0; k < 3; k++) {
        s = make(kinds[k], N);
        z = code(&s, 1, &n);
        size_t zl = zlib_rle(&s);
        CU_ASSERT(zl > 0 && n <= zl + zl / 200);
        if (kinds[k] == 3)
            CU_ASSERT(n > N / 8 && n < N * 3 / 16);
        free(z);
        free(s.p);
    }
}

static CU_TestInfo tests[] = {
    { "every kind of segment inflates back, the same each time",
      test_roundtrip },
    { "coded sizes: runs, two values, every value stored", test_sizes },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("deflate", tests)
