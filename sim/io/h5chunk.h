/* h5chunk.h -- a chunk of a table as HDF5's shuffle and deflate filters
 * store it (h5chunk.c says how, and why not through the filters). */
#ifndef GS_H5CHUNK_H
#define GS_H5CHUNK_H

#include <stddef.h>
#include <stdint.h>

/* The bytes HDF5 keeps for a chunk of nrows rows of es bytes each (the
 * file type's rows, packed, back to back at rows) under the filters
 * shuffle then deflate: a zlib stream of the shuffled rows.  *out is
 * malloc'd, the caller frees it; *outlen its length.  0, or GS_ENOMEM /
 * GS_EIO with nothing to free. */
int gs_h5chunk_encode(const void *rows, size_t nrows, size_t es,
                      unsigned char **out, size_t *outlen);

/* How memory rows (ms bytes each, a C struct) pack into the file's rows
 * (es bytes, no padding): field f's sz[f] bytes (1 to 8) at memory offset
 * mo[f] go to packed offset po[f]; the n fields cover the es bytes. */
struct gs_h5chunk_layout {
    int n;
    size_t ms, es;
    const size_t *mo, *po, *sz;
};

/* A table's buffers, kept from chunk to chunk: zero-initialise, free with
 * gs_h5chunk_buf_free. */
struct gs_h5chunk_buf {
    unsigned char *sh, *out;
    size_t shcap, outcap;
    uint16_t *tok;              /* deflate.c's token scratch */
};

/* gs_h5chunk_encode of the chunk whose first k rows are the memory rows
 * at rows, packed by l, and whose other nrows - k rows are zeros (as HDF5
 * fills a table's last chunk): the same bytes, without the packed copy.
 * *out points into b, valid until its next use.  0, GS_ENOMEM or
 * GS_EIO. */
int gs_h5chunk_encode_rows(struct gs_h5chunk_buf *b, const void *rows,
                           size_t k, size_t nrows,
                           const struct gs_h5chunk_layout *l,
                           const unsigned char **out, size_t *outlen);
void gs_h5chunk_buf_free(struct gs_h5chunk_buf *b);

#endif
