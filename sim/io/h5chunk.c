/* h5chunk.c -- a chunk of a table as HDF5's shuffle and deflate filters
 * store it, made in a fraction of the CPU the filters take.
 *
 * h5out.c declares large tables chunked with the shuffle filter then
 * deflate, and writes each chunk's bytes itself (H5Dwrite_chunk), so any
 * HDF5 reader -- h5py, h5dump, gpusim's own h5in.c -- unshuffles and
 * inflates them as usual.  What is done here instead of the filters:
 *
 *   - Shuffle (HDF5's H5Z_FILTER_SHUFFLE): byte b of row i goes to
 *     b * rows + i, so each of the row's bytes makes a "plane" of the
 *     chunk's rows.  The filter's layout exactly; the rows are the file
 *     type's (packed, no padding).
 *   - Deflate, one zlib stream per chunk (RFC 1950/1951, as the filter's
 *     inflate reads), written by deflate.c plane by plane.  A request
 *     table's planes are of three kinds: constant or nearly (a service
 *     index, the high bytes of token counts), compressed to almost nothing
 *     by run-length coding; random (the low mantissa bytes of a time in
 *     seconds), which no coder shrinks; and skewed between.  A plane whose
 *     byte entropy, estimated from every 4th byte, is at least
 *     ENTROPY_STORED bits and whose bytes seldom repeat is stored; every
 *     other one is Huffman-coded
 *     bytes and runs (what zlib's Z_RLE strategy codes, which this file
 *     called zlib for until issue 27's tenth session: zlib spent about 50
 *     instructions a coded byte, a fifth of a million-request `gpusim run`
 *     with its file; deflate.c spends about 9).  On bench_service's
 *     requests the file is 5.3% smaller than zlib's Z_RLE made it, the
 *     planes of runs coded (docs/inference.md, Performance, has the
 *     figures).
 *
 * The choice depends on the bytes alone, so the same table gives the same
 * file (whatever the zlib).  The encoder never changes what a reader
 * gets back: test_outfile inflates and unshuffles chunks to their rows.
 *
 * Rows to planes.  The shuffle's input is the file's packed rows; a
 * table written from C structs (h5out.c) would pack its rows first (one
 * pass) and shuffle them byte by byte (another, 78 strided byte moves a
 * request row).  gs_h5chunk_encode_rows does both at once from the
 * memory rows, field by field: eight rows' values of a field of up to 8
 * bytes are read as eight 64-bit words, transposed as an 8 x 8 byte
 * matrix in registers (three rounds of masked shifts swapping 4-, 2- and
 * 1-byte blocks: Warren, Hacker's Delight, 7-3, for bytes instead of
 * bits), and word b is then the next eight bytes of plane (field's packed
 * offset + b).  The planes are the same bytes as packing and shuffling
 * give (test_outfile compares them); the buffers live from chunk to chunk
 * in a struct gs_h5chunk_buf, mapped (bigmem.h), so a table costs its
 * page faults once, not per chunk.
 */
#include "h5chunk.h"
#include "deflate.h"
#include "../base/bigmem.h"
#include "../base/err.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Bits per byte at and above which a plane is stored, not coded: Huffman
 * coding it would save at most 1 - 7.2/8 = 10% of it, for most of the
 * cost of coding it -- unless its bytes repeat: a plane where at least
 * half the sampled bytes equal the one before (a row counter's second
 * byte, 256 rows a value; the slow bytes of arrival times) is runs, which
 * deflate.c codes to a fraction of a bit a byte whatever the bytes'
 * entropy. */
#define ENTROPY_STORED 7.2

/* Whether plane p (n bytes) is stored: its byte entropy, estimated from
 * every 4th byte (all of them when there are few), at least
 * ENTROPY_STORED bits, and fewer than half of every 16th byte (all when
 * there are few) equal to the byte before. */
static int plane_stored(const unsigned char *p, size_t n)
{
    size_t step = n >= 4096 ? 4 : 1, cnt[256] = { 0 }, m = 0, i = 0;
    /* four tallies in turn, added up after: on a constant plane one
     * counter's increments would each wait for the last one's store */
    uint32_t part[4][256] = { { 0 } };
    for (; i + 3 * step < n; i += 4 * step, m += 4) {
        part[0][p[i]]++;
        part[1][p[i + step]]++;
        part[2][p[i + 2 * step]]++;
        part[3][p[i + 3 * step]]++;
    }
    for (; i < n; i += step, m++)
        cnt[p[i]]++;
    for (int b = 0; b < 256; b++)
        cnt[b] += (size_t)part[0][b] + part[1][b] + part[2][b] + part[3][b];
    double h = 0;
    for (int b = 0; b < 256; b++)
        if (cnt[b])
            h -= (double)cnt[b] * log2((double)cnt[b] / (double)m);
    if (m == 0 || h / (double)m < ENTROPY_STORED)
        return 0;
    size_t rep = 0, k = 0;
    for (i = 1; i < n; i += 4 * step, k++)
        rep += p[i] == p[i - 1];
    return 2 * rep < k;
}

/* The shuffle filter's layout: byte b of row i of in (nrows rows of es
 * bytes) to out[b * nrows + i].  A tile of TILE rows at a time, so the
 * rows read stay in the cache while each plane gets TILE bytes in a row. */
static void shuffle(const unsigned char *in, size_t nrows, size_t es,
                    unsigned char *out)
{
    enum { TILE = 64 };
    for (size_t i0 = 0; i0 < nrows; i0 += TILE) {
        size_t m = nrows - i0 < TILE ? nrows - i0 : TILE;
        const unsigned char *t = in + i0 * es;
        for (size_t b = 0; b < es; b++) {
            unsigned char *p = out + b * nrows + i0;
            for (size_t i = 0; i < m; i++)
                p[i] = t[i * es + b];
        }
    }
}

/* Adler-32 (RFC 1950, 8.2) of p[0..n) continued from adler: zlib's
 * adler32() to the bit, 16 bytes a step.  For 16 bytes x[0..15], a grows
 * by their sum and b by 16 a (a before them) plus sum (16 - j) x[j]; over
 * a block's steps the a's before each step add up in vs, so b grows by 16
 * (steps a0 + vs) plus the weighted sums.  A block is at most 5,552 bytes
 * (zlib's NMAX), so no 32-bit lane overflows before the modulo. */
static uint32_t adler32_fast(uint32_t adler, const unsigned char *p, size_t n)
{
    enum { BASE = 65521, NMAX = 5552 };
    uint32_t a = adler & 0xffff, b = adler >> 16;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    const __m128i w_lo = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
    const __m128i w_hi = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
    while (n >= 16) {
        size_t blk = (n < NMAX ? n : NMAX) & ~(size_t)15;
        __m128i va = zero, vs = zero, vb = zero;
        for (size_t i = 0; i < blk; i += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(p + i));
            vs = _mm_add_epi32(vs, va);
            va = _mm_add_epi32(va, _mm_sad_epu8(x, zero));
            vb = _mm_add_epi32(vb, _mm_madd_epi16(_mm_unpacklo_epi8(x, zero),
                                                  w_lo));
            vb = _mm_add_epi32(vb, _mm_madd_epi16(_mm_unpackhi_epi8(x, zero),
                                                  w_hi));
        }
        uint32_t la[4], ls[4], lb[4];
        _mm_storeu_si128((__m128i *)la, va);
        _mm_storeu_si128((__m128i *)ls, vs);
        _mm_storeu_si128((__m128i *)lb, vb);
        uint64_t sa = (uint64_t)la[0] + la[1] + la[2] + la[3],
                 ss = (uint64_t)ls[0] + ls[1] + ls[2] + ls[3],
                 sb = (uint64_t)lb[0] + lb[1] + lb[2] + lb[3];
        b = (uint32_t)((b + 16 * ((uint64_t)a * (blk / 16) + ss) + sb) %
                       BASE);
        a = (uint32_t)((a + sa) % BASE);
        p += blk;
        n -= blk;
    }
#endif
    while (n > 0) {
        size_t blk = n < NMAX ? n : NMAX;
        for (size_t i = 0; i < blk; i++) {
            a += p[i];
            b += a;
        }
        a %= BASE;
        b %= BASE;
        p += blk;
        n -= blk;
    }
    return b << 16 | a;
}

/* The zlib stream of the shuffled chunk sh (es planes of nrows bytes)
 * into b->out: *outlen bytes, written by deflate.c, each plane stored or
 * coded by its byte entropy; the Adler-32 of the planes (adler32_fast)
 * ends it.  test_outfile inflates it. */
static int deflate_planes(struct gs_h5chunk_buf *b, const unsigned char *sh,
                          size_t nrows, size_t es, size_t *outlen)
{
    size_t cap = GS_DEFLATE_FRAME + es * gs_deflate_bound(nrows);
    if (cap > b->outcap) {
        unsigned char *q = gs_big_realloc(b->out, b->outcap, cap);
        if (q == NULL)
            return GS_ENOMEM;
        b->out = q;
        b->outcap = cap;
    }
    if (b->tok == NULL &&
        (b->tok = malloc(GS_DEFLATE_TOKENS * sizeof b->tok[0])) == NULL)
        return GS_ENOMEM;
    struct gs_deflate z;
    gs_deflate_begin(&z, b->out, b->tok);
    for (size_t p = 0; p < es; p++) {
        const unsigned char *pl = sh + p * nrows;
        gs_deflate_segment(&z, pl, nrows, plane_stored(pl, nrows));
    }
    *outlen = gs_deflate_end(&z, adler32_fast(1, sh, nrows * es));
    return 0;
}

/* b->sh holding at least n bytes. */
static int sh_room(struct gs_h5chunk_buf *b, size_t n)
{
    if (n <= b->shcap)
        return 0;
    unsigned char *q = gs_big_realloc(b->sh, b->shcap, n);
    if (q == NULL)
        return GS_ENOMEM;
    b->sh = q;
    b->shcap = n;
    return 0;
}

int gs_h5chunk_encode(const void *rows, size_t nrows, size_t es,
                      unsigned char **out, size_t *outlen)
{
    struct gs_h5chunk_buf b = { 0 };
    size_t n = nrows * es;
    int rc = sh_room(&b, n ? n : 1);
    if (rc == 0) {
        shuffle(rows, nrows, es, b.sh);
        rc = deflate_planes(&b, b.sh, nrows, es, outlen);
    }
    unsigned char *o = rc == 0 ? malloc(*outlen ? *outlen : 1) : NULL;
    if (rc == 0 && o == NULL)
        rc = GS_ENOMEM;
    if (rc == 0) {
        memcpy(o, b.out, *outlen);
        *out = o;
    }
    gs_h5chunk_buf_free(&b);
    return rc;
}

/* The 8 x 8 byte matrix x (row r: word x[r], byte c of it its (r, c)
 * entry, little-endian) transposed in place: word c then holds (r, c) at
 * byte r. */
static inline void transpose8(uint64_t x[8])
{
    static const uint64_t m4 = 0x00000000FFFFFFFFull,
                          m2 = 0x0000FFFF0000FFFFull,
                          m1 = 0x00FF00FF00FF00FFull;
    for (int r = 0; r < 4; r++) {
        uint64_t a = x[r], c = x[r + 4];
        x[r] = (a & m4) | (c << 32);
        x[r + 4] = (a >> 32) | (c & ~m4);
    }
    for (int r = 0; r < 8; r += (r & 1) ? 3 : 1) {
        uint64_t a = x[r], c = x[r + 2];
        x[r] = (a & m2) | ((c & m2) << 16);
        x[r + 2] = ((a >> 16) & m2) | (c & ~m2);
    }
    for (int r = 0; r < 8; r += 2) {
        uint64_t a = x[r], c = x[r + 1];
        x[r] = (a & m1) | ((c & m1) << 8);
        x[r + 1] = ((a >> 8) & m1) | (c & ~m1);
    }
}

/* Field f of memory rows i0 .. i0 + m - 1 (m <= 8) into its planes of sh
 * at i0. */
static void field_planes(const unsigned char *rows, size_t i0, size_t m,
                         const struct gs_h5chunk_layout *l, int f,
                         unsigned char *sh, size_t nrows)
{
    size_t sz = l->sz[f], mo = l->mo[f], po = l->po[f];
    const unsigned char *src = rows + i0 * l->ms + mo;
    unsigned char *dst = sh + po * nrows + i0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (m == 8 && (sz == 8 || sz == 4 || sz == 2 || sz == 1)) {
        uint64_t x[8];
        size_t ms = l->ms;
        for (int r = 0; r < 8; r++) {
            const unsigned char *p = src + (size_t)r * ms;
            uint32_t v4;
            uint16_t v2;
            switch (sz) {       /* fixed sizes: loads, not calls */
            case 8: memcpy(&x[r], p, 8); break;
            case 4: memcpy(&v4, p, 4); x[r] = v4; break;
            case 2: memcpy(&v2, p, 2); x[r] = v2; break;
            default: x[r] = *p; break;
            }
        }
        transpose8(x);
        for (size_t b = 0; b < sz; b++)
            memcpy(dst + b * nrows, &x[b], 8);
        return;
    }
#endif
    for (size_t r = 0; r < m; r++)
        for (size_t b = 0; b < sz; b++)
            dst[b * nrows + r] = src[r * l->ms + b];
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ROWS16 1
/* Field f, of sz = 8 or 4 bytes, of memory rows i0 .. i0 + 15 into its
 * planes of sh at i0: the 16 x sz byte matrix transposed in SSE2
 * registers by four rounds of interleaves -- bytes of row pairs, 2-byte
 * units of pair pairs, 4-byte units of quads, halves of octets -- leaving
 * the 16 rows' byte b in one register, one store a plane.  The same bytes
 * as field_planes (test_outfile).  Inlined with sz a constant, so the
 * rounds unroll into registers. */
static inline __attribute__((always_inline)) void
planes16(const unsigned char *src, size_t ms, size_t sz, unsigned char *dst,
         size_t nrows)
{
    __m128i x[16], a[8], c[8], d[8];
#pragma GCC unroll 16
    for (int r = 0; r < 16; r++) {
        const unsigned char *p = src + (size_t)r * ms;
        if (sz == 8) {
            x[r] = _mm_loadl_epi64((const __m128i *)(const void *)p);
        } else {
            int32_t v;
            memcpy(&v, p, 4);
            x[r] = _mm_cvtsi32_si128(v);
        }
    }
    /* a[k]: 2-byte unit j holds byte j of rows 2k, 2k + 1 */
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        a[k] = _mm_unpacklo_epi8(x[2 * k], x[2 * k + 1]);
    /* c[2q]: 4-byte unit j holds byte j of rows 4q .. 4q + 3; c[2q + 1]
     * byte j + 4 */
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        c[2 * q] = _mm_unpacklo_epi16(a[2 * q], a[2 * q + 1]);
        if (sz == 8)
            c[2 * q + 1] = _mm_unpackhi_epi16(a[2 * q], a[2 * q + 1]);
    }
    /* d[4h + g]: 8-byte unit j holds byte 2g + j of rows 8h .. 8h + 7 */
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        const __m128i *cq = c + 4 * h;  /* quads 2h and 2h + 1 */
        d[4 * h] = _mm_unpacklo_epi32(cq[0], cq[2]);
        d[4 * h + 1] = _mm_unpackhi_epi32(cq[0], cq[2]);
        if (sz == 8) {
            d[4 * h + 2] = _mm_unpacklo_epi32(cq[1], cq[3]);
            d[4 * h + 3] = _mm_unpackhi_epi32(cq[1], cq[3]);
        }
    }
#pragma GCC unroll 4
    for (int g = 0; g < (int)sz / 2; g++) {
        _mm_storeu_si128((__m128i *)(void *)(dst + (size_t)(2 * g) * nrows),
                         _mm_unpacklo_epi64(d[g], d[4 + g]));
        _mm_storeu_si128((__m128i *)(void *)(dst + (size_t)(2 * g + 1) *
                                             nrows),
                         _mm_unpackhi_epi64(d[g], d[4 + g]));
    }
}

/* Field f of memory rows i0 .. i0 + 15 into its planes of sh at i0 (0),
 * or -1 when its size has no 16-row path. */
static int field_planes16(const unsigned char *rows, size_t i0,
                          const struct gs_h5chunk_layout *l, int f,
                          unsigned char *sh, size_t nrows)
{
    size_t ms = l->ms;
    const unsigned char *src = rows + i0 * ms + l->mo[f];
    unsigned char *dst = sh + l->po[f] * nrows + i0;
    switch (l->sz[f]) {
    case 8:
        planes16(src, ms, 8, dst, nrows);
        return 0;
    case 4:
        planes16(src, ms, 4, dst, nrows);
        return 0;
    case 1:
#pragma GCC unroll 16
        for (int r = 0; r < 16; r++)
            dst[r] = src[(size_t)r * ms];
        return 0;
    default:
        return -1;
    }
}
#endif

int gs_h5chunk_encode_rows(struct gs_h5chunk_buf *b, const void *rows,
                           size_t k, size_t nrows,
                           const struct gs_h5chunk_layout *l,
                           const unsigned char **out, size_t *outlen)
{
    size_t n = nrows * l->es;
    int rc = sh_room(b, n ? n : 1);
    if (rc < 0)
        return rc;
    size_t i0 = 0;
#ifdef ROWS16
    for (; i0 + 16 <= k; i0 += 16)
        for (int f = 0; f < l->n; f++)
            if (field_planes16(rows, i0, l, f, b->sh, nrows) < 0) {
                field_planes(rows, i0, 8, l, f, b->sh, nrows);
                field_planes(rows, i0 + 8, 8, l, f, b->sh, nrows);
            }
#endif
    for (; i0 < k; i0 += 8) {
        size_t m = k - i0 < 8 ? k - i0 : 8;
        for (int f = 0; f < l->n; f++)
            field_planes(rows, i0, m, l, f, b->sh, nrows);
    }
    if (k < nrows)          /* the chunk's rows past the table: zeros */
        for (size_t p = 0; p < l->es; p++)
            memset(b->sh + p * nrows + k, 0, nrows - k);
    if ((rc = deflate_planes(b, b->sh, nrows, l->es, outlen)) < 0)
        return rc;
    *out = b->out;
    return 0;
}

void gs_h5chunk_buf_free(struct gs_h5chunk_buf *b)
{
    gs_big_free(b->sh, b->shcap);
    gs_big_free(b->out, b->outcap);
    free(b->tok);
    *b = (struct gs_h5chunk_buf){ 0 };
}
