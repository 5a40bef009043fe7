/* deflate.h -- a zlib stream (RFC 1950 around RFC 1951 deflate) written
 * segment by segment, each segment stored or coded as literals and runs
 * (deflate.c says how and why). */
#ifndef GS_DEFLATE_H
#define GS_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes a segment of n bytes takes at most, coded either way, with the
 * slack the writer's 8-byte stores need after it. */
size_t gs_deflate_bound(size_t n);
/* Bytes of the stream's header (2) and trailer (final block, Adler-32:
 * 6 at most) together. */
#define GS_DEFLATE_FRAME 8

/* Entries of the token scratch a writer needs (one block's tokens). */
#define GS_DEFLATE_TOKENS 65537

/* A stream being written.  The caller gives the output (room for
 * GS_DEFLATE_FRAME plus gs_deflate_bound of every segment, which the
 * writer never checks) and a scratch of GS_DEFLATE_TOKENS entries; both
 * stay the caller's. */
struct gs_deflate {
    unsigned char *out, *p;     /* the stream's start and write point */
    uint64_t acc;               /* bits not yet whole bytes at p */
    unsigned nbits;
    uint16_t *tok;
};

/* Start a stream at out (its 2-byte zlib header written). */
void gs_deflate_begin(struct gs_deflate *z, unsigned char *out,
                      uint16_t *tok);
/* Append the n bytes at p: as stored blocks when `stored`, else coded
 * (and stored after all where coding them would take more room). */
void gs_deflate_segment(struct gs_deflate *z, const unsigned char *p,
                        size_t n, int stored);
/* End the stream: its final block and adler, the Adler-32 of every byte
 * appended (RFC 1950).  Its length in bytes. */
size_t gs_deflate_end(struct gs_deflate *z, uint32_t adler);

#endif
