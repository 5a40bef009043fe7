/* once.h -- say a thing once per gpusim, workers included.
 *
 * A warning about an input (a trace whose bytes are not UTF-8) is found by
 * whoever reads the input, and under compare, sweep, plan or train that is
 * every worker process, each reading the same trace: without a shared
 * memory of what was said, ten tasks print the same warning ten times.
 * gs_once remembers keys in a small table in a shared anonymous mapping
 * made by gs_once_init before any worker is forked (gs_cleanup_install
 * calls it; the pool's workers inherit it), claimed slot by slot with an
 * atomic compare-and-swap, so exactly one process of the tree says it.
 * Keys are stored as 64-bit FNV-1a hashes (a collision would silence a
 * second warning, never cause one); when the table cannot be made or is
 * full, everything is said (once per process at worst). */
#ifndef GS_ONCE_H
#define GS_ONCE_H

/* Make the shared table (idempotent; without it gs_once keeps a private
 * one). */
void gs_once_init(void);
/* 1 the first time key is seen in this process tree, else 0. */
int gs_once(const char *key);

#endif
