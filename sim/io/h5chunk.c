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
 *     inflate reads), its parameters chosen plane by plane.  A request
 *     table's planes are of three kinds: constant or nearly (a service
 *     index, the high bytes of token counts), compressed to almost nothing
 *     by run-length coding; random (the low mantissa bytes of a time in
 *     seconds), which no coder shrinks; and skewed between.  zlib's level 1
 *     spends most of its time looking for matches in the random planes
 *     (about 30% of a million-request `gpusim run`, issue 27).  Here a
 *     plane whose byte entropy, estimated from every 4th byte, is at least
 *     ENTROPY_STORED bits is copied as stored blocks (level 0), and every
 *     other plane is coded with Z_RLE (Huffman codes of bytes and runs of
 *     one byte; the matches shuffled numbers have are runs).  On
 *     bench_service's million requests the file is within 1% of level 1's
 *     size, at a fifth of its CPU (docs/overload.md has the figures).
 *
 * The choice depends on the bytes alone, so the same table gives the same
 * file (with the same zlib).  The encoder never changes what a reader
 * gets back: test_outfile inflates and unshuffles chunks to their rows. */
#include "h5chunk.h"
#include "../base/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Bits per byte at and above which a plane is stored, not coded: Huffman
 * coding it would save at most 1 - 7.2/8 = 10% of it, for most of the
 * cost of coding it. */
#define ENTROPY_STORED 7.2

/* The byte entropy of plane p (n bytes) in bits, estimated from every 4th
 * byte (all of them when there are few). */
static double plane_entropy(const unsigned char *p, size_t n)
{
    size_t step = n >= 4096 ? 4 : 1, cnt[256] = { 0 }, m = 0;
    for (size_t i = 0; i < n; i += step, m++)
        cnt[p[i]]++;
    double h = 0;
    for (int b = 0; b < 256; b++)
        if (cnt[b])
            h -= (double)cnt[b] * log2((double)cnt[b] / (double)m);
    return m ? h / (double)m : 0;
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

/* Deflate in[0..n) into *out, grown as needed (*cap bytes, *len used). */
static int deflate_all(z_stream *z, const unsigned char *in, size_t n,
                       int flush, unsigned char **out, size_t *cap,
                       size_t *len)
{
    z->next_in = (unsigned char *)in;
    z->avail_in = (uInt)n;
    for (;;) {
        if (*len == *cap) {
            size_t nc = *cap * 2;
            unsigned char *o = realloc(*out, nc);
            if (o == NULL)
                return GS_ENOMEM;
            *out = o;
            *cap = nc;
        }
        z->next_out = *out + *len;
        z->avail_out = (uInt)(*cap - *len);
        int rc = deflate(z, flush);
        *len = *cap - z->avail_out;
        if (rc == Z_STREAM_END || (flush != Z_FINISH && z->avail_in == 0 &&
                                   z->avail_out > 0))
            return 0;
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return GS_EIO;
    }
}

/* Set the coding for the next plane: stored or run-length.  deflateParams
 * first codes what it holds with the old setting, into *out. */
static int set_coding(z_stream *z, int stored, int *cur, unsigned char **out,
                      size_t *cap, size_t *len)
{
    if (stored == *cur)
        return 0;
    for (;;) {
        if (*cap - *len < 64) {
            unsigned char *o = realloc(*out, *cap * 2);
            if (o == NULL)
                return GS_ENOMEM;
            *out = o;
            *cap *= 2;
        }
        z->next_in = NULL;
        z->avail_in = 0;
        z->next_out = *out + *len;
        z->avail_out = (uInt)(*cap - *len);
        int rc = stored ? deflateParams(z, 0, Z_DEFAULT_STRATEGY)
                        : deflateParams(z, 1, Z_RLE);
        *len = *cap - z->avail_out;
        if (rc == Z_OK)
            break;
        if (rc != Z_BUF_ERROR || z->avail_out > 0)
            return GS_EIO;
    }
    *cur = stored;
    return 0;
}

int gs_h5chunk_encode(const void *rows, size_t nrows, size_t es,
                      unsigned char **out, size_t *outlen)
{
    size_t n = nrows * es;
    unsigned char *sh = malloc(n ? n : 1);
    size_t cap = n / 2 + 1024, len = 0;
    unsigned char *o = malloc(cap);
    z_stream z = { 0 };
    int rc = sh && o ? 0 : GS_ENOMEM;
    if (rc == 0 && deflateInit2(&z, 1, Z_DEFLATED, 15, 8, Z_RLE) != Z_OK)
        rc = GS_ENOMEM;
    else if (rc == 0) {
        shuffle(rows, nrows, es, sh);
        int cur = 0;
        for (size_t b = 0; rc == 0 && b < es; b++) {
            const unsigned char *p = sh + b * nrows;
            int stored = plane_entropy(p, nrows) >= ENTROPY_STORED;
            if ((rc = set_coding(&z, stored, &cur, &o, &cap, &len)) == 0)
                rc = deflate_all(&z, p, nrows, Z_NO_FLUSH, &o, &cap, &len);
        }
        if (rc == 0)
            rc = deflate_all(&z, NULL, 0, Z_FINISH, &o, &cap, &len);
        deflateEnd(&z);
    }
    free(sh);
    if (rc < 0) {
        free(o);
        return rc;
    }
    *out = o;
    *outlen = len;
    return 0;
}
