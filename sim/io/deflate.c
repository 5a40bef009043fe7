/* deflate.c -- a zlib stream of shuffled table planes, coded here.
 *
 * What HDF5's deflate filter reads is a zlib stream (RFC 1950: a 2-byte
 * header, deflate blocks, the Adler-32 of the data).  Any valid stream
 * inflates to the same bytes; which blocks a writer picks only changes
 * the file's size and the writer's time.  h5chunk.c hands over a chunk's
 * planes (byte b of every row, the shuffle filter's layout) one by one,
 * each marked stored or coded by its byte entropy.  A plane is:
 *
 *   - stored (RFC 1951, 3.2.4: BTYPE 00, up to 65,535 bytes a block), or
 *   - one dynamic-Huffman block (3.2.7) per 65,536 bytes, whose symbols
 *     are the bytes and runs: a byte followed by more of itself is coded
 *     as the byte then matches of distance 1 (lengths 3 to 258).  Shuffled
 *     numbers' repeats are runs -- a constant plane is a few hundred
 *     symbols -- and a plane of a few values is Huffman-coded bytes, so no
 *     other match is looked for.  This is what zlib's Z_RLE strategy codes
 *     (the earlier writer called zlib so); zlib spent about 50
 *     instructions a byte on it, here it is a pass to cut the plane into
 *     tokens and count them, and a pass to write their codes.  A coded
 *     block larger than the same bytes stored is stored instead.
 *
 * Huffman codes: the lengths of an optimal code (two queues over the
 * symbols sorted by count: Van Leeuwen's method), limited to 15 bits (7
 * for the code-length code) by clamping the deeper leaves and moving a
 * leaf one level down for each unit the Kraft sum is over (as zlib's
 * trees.c does), so every code is complete; a code with one symbol gets
 * a second, as inflate wants.  Codes are canonical (3.2.2), written bit
 * reversed since deflate packs bits from the least significant end.
 *
 * The bytes depend on the data alone -- not on zlib's version, as they
 * did before -- so the same table gives the same file.  test_outfile
 * inflates every kind of plane with zlib and gets the bytes back.
 */
#include "deflate.h"
#include "../base/err.h"

#include <string.h>

enum { BLOCK = 65536, STORED_MAX = 65535, NTOK = 515, NLIT = 286,
       NDIST = 30, NCL = 19, MAXBITS = 15, MAXCL = 7 };

size_t gs_deflate_bound(size_t n)
{
    /* each block of BLOCK bytes at worst stored in two pieces of 5 bytes'
     * framing (header bits padded to a byte, LEN, NLEN), plus the 8-byte
     * stores' slack */
    return n + 11 * (n / BLOCK + 1) + 16;
}

/* --- bits ------------------------------------------------------------- */

/* The 8 bytes of acc at p, the least significant first. */
static inline void store8(unsigned char *p, uint64_t acc)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &acc, 8);
#else
    for (int k = 0; k < 8; k++)
        p[k] = (unsigned char)(acc >> (8 * k));
#endif
}

/* Append the len (<= 32) low bits of v.  The 8 bytes at p are stored
 * whole, then p moves over the complete ones: at most 7 bits stay. */
static inline void put(struct gs_deflate *z, uint64_t v, unsigned len)
{
    z->acc |= v << z->nbits;
    z->nbits += len;
    store8(z->p, z->acc);
    z->p += z->nbits >> 3;
    z->acc >>= z->nbits & 56;
    z->nbits &= 7;
}

/* Pad to a byte boundary with zero bits. */
static void align(struct gs_deflate *z)
{
    if (z->nbits) {
        z->p++;
        z->acc = 0;
        z->nbits = 0;
    }
}

void gs_deflate_begin(struct gs_deflate *z, unsigned char *out,
                      uint16_t *tok)
{
    /* CMF 0x78: deflate, 32K window; FLG 0x01: no dictionary, level 0
     * flags, (0x78 << 8 | 0x01) a multiple of 31 */
    out[0] = 0x78;
    out[1] = 0x01;
    *z = (struct gs_deflate){ out, out + 2, 0, 0, tok };
}

size_t gs_deflate_end(struct gs_deflate *z, uint32_t adler)
{
    put(z, 1 | 1 << 1, 3);      /* BFINAL, BTYPE 01 (fixed codes) */
    put(z, 0, 7);               /* its end of block: code 256, 7 zeros */
    align(z);
    for (int k = 3; k >= 0; k--)
        *z->p++ = (unsigned char)(adler >> (8 * k));
    return (size_t)(z->p - z->out);
}

/* n bytes as stored blocks. */
static void stored(struct gs_deflate *z, const unsigned char *p, size_t n)
{
    do {
        size_t m = n < STORED_MAX ? n : STORED_MAX;
        put(z, 0, 3);           /* not final, BTYPE 00 */
        align(z);
        z->p[0] = (unsigned char)m;
        z->p[1] = (unsigned char)(m >> 8);
        z->p[2] = (unsigned char)~m;
        z->p[3] = (unsigned char)(~m >> 8);
        memcpy(z->p + 4, p, m);
        z->p += 4 + m;
        p += m;
        n -= m;
    } while (n > 0);
}

/* --- Huffman codes ------------------------------------------------------ */

/* Sort k[0..n) ascending (Shell's sort, Ciura's gaps: a few hundred
 * keys, no call per comparison). */
static void sort_keys(uint64_t *k, int n)
{
    static const int gaps[] = { 132, 57, 23, 10, 4, 1 };
    for (int g = 0; g < 6; g++)
        for (int i = gaps[g]; i < n; i++) {
            uint64_t v = k[i];
            int j = i;
            for (; j >= gaps[g] && k[j - gaps[g]] > v; j -= gaps[g])
                k[j] = k[j - gaps[g]];
            k[j] = v;
        }
}

/* Lengths (at most limit bits) of a complete prefix code for the n
 * symbols counted in freq[] into len[] (0: no code).  At least two symbols
 * get one: a lone symbol is paired with the first unused one. */
static void huff_lengths(const uint32_t *freq, int n, int limit,
                         uint8_t *len)
{
    uint64_t key[NLIT];         /* count << 16 | symbol, sorted */
    uint32_t w[2 * NLIT];
    int par[2 * NLIT], m = 0;
    for (int s = 0; s < n; s++) {
        len[s] = 0;
        if (freq[s])
            key[m++] = (uint64_t)freq[s] << 16 | (unsigned)s;
    }
    for (int s = 0; m < 2 && s < n; s++)
        if (!freq[s])
            key[m++] = (unsigned)s;
    sort_keys(key, m);
    /* leaves 0 .. m - 1 in count order; internal nodes m .. 2m - 2 made
     * in order of weight, so each is taken from the front of one of two
     * sorted queues */
    for (int i = 0; i < m; i++)
        w[i] = (uint32_t)(key[i] >> 16);
    int leaf = 0, node = m;
    for (int k = m; k < 2 * m - 1; k++) {
        int pick[2];
        for (int c = 0; c < 2; c++)
            pick[c] = leaf < m && (node >= k || w[leaf] <= w[node])
                          ? leaf++ : node++;
        w[k] = w[pick[0]] + w[pick[1]];
        par[pick[0]] = par[pick[1]] = k;
    }
    /* depths: a node's is its parent's plus one (parents come later) */
    int depth[2 * NLIT], count[64] = { 0 };
    depth[2 * m - 2] = 0;
    for (int k = 2 * m - 3; k >= 0; k--)
        depth[k] = depth[par[k]] + 1;
    for (int i = 0; i < m; i++)
        count[depth[i] < limit ? depth[i] : limit]++;
    /* over the limit: the Kraft sum in units of 2^-limit exceeds
     * 2^limit; moving a leaf from the deepest level d < limit that has
     * one down to d + 1, with a clamped leaf beside it, takes one unit */
    long kraft = 0;
    for (int d = 1; d <= limit; d++)
        kraft += (long)count[d] << (limit - d);
    while (kraft > 1L << limit) {
        int d = limit - 1;
        while (count[d] == 0)
            d--;
        count[d]--;
        count[d + 1] += 2;
        count[limit]--;
        kraft--;
    }
    /* the longest codes to the rarest symbols */
    int i = 0;
    for (int d = limit; d >= 1; d--)
        for (int c = 0; c < count[d]; c++)
            len[key[i++] & 0xffff] = (uint8_t)d;
}

/* Canonical codes (RFC 1951, 3.2.2) of the lengths len[0..n), bit
 * reversed for writing. */
static void huff_codes(const uint8_t *len, int n, uint32_t *code)
{
    unsigned count[MAXBITS + 1] = { 0 }, next[MAXBITS + 1];
    for (int s = 0; s < n; s++)
        count[len[s]]++;
    count[0] = 0;
    unsigned c = 0;
    for (int b = 1; b <= MAXBITS; b++) {
        c = (c + count[b - 1]) << 1;
        next[b] = c;
    }
    for (int s = 0; s < n; s++) {
        if (!len[s]) {
            code[s] = 0;
            continue;
        }
        unsigned v = next[len[s]]++, r = 0;
        for (int b = 0; b < len[s]; b++, v >>= 1)
            r = r << 1 | (v & 1);
        code[s] = r;
    }
}

/* Length symbols 257 .. 285: the first length of each, its extra bits. */
static const uint16_t len_base[29] = {
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51,
    59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
    5, 5, 5, 5, 0 };

/* The length symbol (0 .. 28, for 257 .. 285) of a match of length l. */
static int len_sym(int l)
{
    int c = 28;
    if (l < 258)
        for (c = 27; len_base[c] > l; c--)
            ;
    return c;
}

/* Code-length code symbols 0 .. 18 in the order their lengths are sent. */
static const uint8_t cl_order[NCL] = {
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };

/* --- one coded block ---------------------------------------------------- */

/* The block's tokens: byte values 0 .. 255, 256 the end of block, 256 + l
 * a run of length l (3 .. 258) at distance 1.  tf[] counts them; the
 * number of tokens is returned. */
static size_t tokens(const unsigned char *p, size_t n, uint16_t *tok,
                     uint32_t *tf)
{
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i++];
        tok[k++] = (uint16_t)c;
        tf[c]++;
        if (i == n || p[i] != c)
            continue;
        /* a run: how far c repeats, eight bytes at a time first */
        size_t j = i + 1;
        uint64_t w8 = 0x0101010101010101ull * c, v;
        while (j + 8 <= n && (memcpy(&v, p + j, 8), v == w8))
            j += 8;
        while (j < n && p[j] == c)
            j++;
        size_t r = j - i;
        for (; r >= 3;) {
            size_t l = r < 258 ? r : 258;
            tok[k++] = (uint16_t)(256 + l);
            tf[256 + l]++;
            r -= l;
        }
        for (; r > 0; r--) {
            tok[k++] = (uint16_t)c;
            tf[c]++;
        }
        i = j;
    }
    tok[k++] = 256;
    tf[256]++;
    return k;
}

/* The code lengths of a block as sent: HLIT + HDIST lengths as code-length
 * symbols (item: symbol | extra << 8) with 16 (repeat the last 3-6
 * times), 17 (3-10 zeros) and 18 (11-138 zeros).  The number of items. */
static int cl_items(const uint8_t *lens, int n, uint16_t *item,
                    uint32_t *cf)
{
    int k = 0;
    for (int i = 0; i < n;) {
        int v = lens[i], r = 1;
        while (i + r < n && lens[i + r] == v)
            r++;
        i += r;
        if (v == 0) {
            for (; r >= 11; ) {
                int m = r < 138 ? r : 138;
                item[k++] = (uint16_t)(18 | (m - 11) << 8);
                r -= m;
            }
            if (r >= 3) {
                item[k++] = (uint16_t)(17 | (r - 3) << 8);
                r = 0;
            }
        } else {
            item[k++] = (uint16_t)v;
            r--;
            for (; r >= 3; ) {
                int m = r < 6 ? r : 6;
                item[k++] = (uint16_t)(16 | (m - 3) << 8);
                r -= m;
            }
        }
        for (; r > 0; r--)
            item[k++] = (uint16_t)v;
    }
    for (int j = 0; j < k; j++)
        cf[item[j] & 0xff]++;
    return k;
}

/* A block's codes: each token's bits, and the header that sends them. */
struct block {
    uint32_t bits[NTOK];        /* token t's code (and extra bits, and the
                                 * distance's code after a length) */
    uint8_t nb[NTOK];
    uint8_t ll[NLIT + NDIST];   /* literal/length then distance lengths */
    int hlit, hdist, hclen, nitem;
    uint16_t item[NLIT + NDIST];
    uint8_t cl[NCL];
    uint32_t clc[NCL];
};

/* The codes for the token counts tf; the block's size in bits. */
static uint64_t plan(struct block *b, const uint32_t *tf)
{
    uint32_t lf[NLIT] = { 0 }, df[NDIST] = { 0 }, cf[NCL] = { 0 };
    uint32_t lc[NLIT], dc[NDIST];
    memcpy(lf, tf, 257 * sizeof lf[0]);
    for (int l = 3; l <= 258; l++) {
        lf[257 + len_sym(l)] += tf[256 + l];
        df[0] += tf[256 + l];
    }
    uint8_t *dl = b->ll + NLIT;
    huff_lengths(lf, NLIT, MAXBITS, b->ll);
    huff_lengths(df, NDIST, MAXBITS, dl);
    huff_codes(b->ll, NLIT, lc);
    huff_codes(dl, NDIST, dc);
    for (b->hlit = NLIT; b->ll[b->hlit - 1] == 0; b->hlit--)
        ;
    for (b->hdist = NDIST; dl[b->hdist - 1] == 0; b->hdist--)
        ;
    /* the lengths sent back to back (the run codes may cross from one
     * table into the other) */
    uint8_t seq[NLIT + NDIST];
    memcpy(seq, b->ll, (size_t)b->hlit);
    memcpy(seq + b->hlit, dl, (size_t)b->hdist);
    b->nitem = cl_items(seq, b->hlit + b->hdist, b->item, cf);
    huff_lengths(cf, NCL, MAXCL, b->cl);
    huff_codes(b->cl, NCL, b->clc);
    for (b->hclen = NCL; b->cl[cl_order[b->hclen - 1]] == 0; b->hclen--)
        ;
    if (b->hclen < 4)
        b->hclen = 4;
    uint64_t size = 3 + 5 + 5 + 4 + 3 * (uint64_t)b->hclen;
    static const uint8_t cl_extra[3] = { 2, 3, 7 };
    for (int j = 0; j < b->nitem; j++) {
        int s = b->item[j] & 0xff;
        size += b->cl[s] + (s >= 16 ? cl_extra[s - 16] : 0);
    }
    for (int t = 0; t <= 256; t++) {
        b->bits[t] = lc[t];
        b->nb[t] = b->ll[t];
        size += (uint64_t)tf[t] * b->ll[t];
    }
    for (int l = 3; l <= 258; l++) {
        int c = len_sym(l), s = 257 + c;
        unsigned n1 = b->ll[s], n2 = n1 + len_extra[c];
        b->bits[256 + l] = lc[s] | (uint32_t)(l - len_base[c]) << n1 |
                           dc[0] << n2;
        b->nb[256 + l] = (uint8_t)(n2 + dl[0]);
        size += (uint64_t)tf[256 + l] * b->nb[256 + l];
    }
    return size;
}

/* Write the block planned in b: header, code lengths, the k tokens. */
static void emit(struct gs_deflate *z, const struct block *b,
                 const uint16_t *tok, size_t k)
{
    put(z, 0 | 2 << 1, 3);      /* not final, BTYPE 10 (dynamic codes) */
    put(z, (uint64_t)(b->hlit - 257) | (uint64_t)(b->hdist - 1) << 5 |
               (uint64_t)(b->hclen - 4) << 10, 14);
    for (int j = 0; j < b->hclen; j++)
        put(z, b->cl[cl_order[j]], 3);
    static const uint8_t cl_extra[3] = { 2, 3, 7 };
    for (int j = 0; j < b->nitem; j++) {
        int s = b->item[j] & 0xff;
        put(z, b->clc[s], b->cl[s]);
        if (s >= 16)
            put(z, (unsigned)b->item[j] >> 8, cl_extra[s - 16]);
    }
    /* the tokens two at a time (at most 7 + 2 x 21 bits: one 8-byte
     * store), through locals (stores through z->p could alias *z) */
    uint64_t acc = z->acc;
    unsigned nbits = z->nbits;
    unsigned char *p = z->p;
    size_t i = 0;
    for (; i + 2 <= k; i += 2) {
        unsigned t0 = tok[i], t1 = tok[i + 1];
        acc |= (uint64_t)b->bits[t0] << nbits;
        nbits += b->nb[t0];
        acc |= (uint64_t)b->bits[t1] << nbits;
        nbits += b->nb[t1];
        store8(p, acc);
        p += nbits >> 3;
        acc >>= nbits & 56;
        nbits &= 7;
    }
    z->acc = acc;
    z->nbits = nbits;
    z->p = p;
    if (i < k)
        put(z, b->bits[tok[i]], b->nb[tok[i]]);
}

void gs_deflate_segment(struct gs_deflate *z, const unsigned char *p,
                        size_t n, int st)
{
    if (st) {
        if (n > 0)
            stored(z, p, n);
        return;
    }
    for (size_t i = 0; i < n; i += BLOCK) {
        size_t m = n - i < BLOCK ? n - i : BLOCK;
        uint32_t tf[NTOK] = { 0 };
        struct block b;
        size_t k = tokens(p + i, m, z->tok, tf);
        uint64_t bits = plan(&b, tf);
        uint64_t pieces = (m + STORED_MAX - 1) / STORED_MAX;
        if (bits >= 8 * (m + 5 * pieces))
            stored(z, p + i, m);
        else
            emit(z, &b, z->tok, k);
    }
}
