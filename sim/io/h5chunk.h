/* h5chunk.h -- a chunk of a table as HDF5's shuffle and deflate filters
 * store it (h5chunk.c says how, and why not through the filters). */
#ifndef GS_H5CHUNK_H
#define GS_H5CHUNK_H

#include <stddef.h>

/* The bytes HDF5 keeps for a chunk of nrows rows of es bytes each (the
 * file type's rows, packed, back to back at rows) under the filters
 * shuffle then deflate: a zlib stream of the shuffled rows.  *out is
 * malloc'd, the caller frees it; *outlen its length.  0, or GS_ENOMEM /
 * GS_EIO with nothing to free. */
int gs_h5chunk_encode(const void *rows, size_t nrows, size_t es,
                      unsigned char **out, size_t *outlen);

#endif
