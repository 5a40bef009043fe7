/* bigmem.h -- arrays that grow to hundreds of megabytes: mapped memory, moved not copied, on huge pages.
 *
 * A million-request service run keeps a record per request and a sample
 * per engine iteration: arrays that double many times and end at tens of
 * MB each.  Through realloc they are copied at each doubling below glibc's
 * mmap threshold and touched one 4 KiB page at a time; on a virtual
 * machine a page fault costs about as much as simulating an engine
 * iteration, and these faults and copies took a third of such a run.
 * Here an array is an anonymous mapping: it grows with mremap (the kernel
 * moves the page tables; nothing is copied or touched again) and asks for
 * transparent huge pages (Linux's "madvise" mode), 512 times fewer faults.
 * Where mremap or mmap is missing, and under AddressSanitizer (which
 * watches malloc's blocks, not mappings, so an overrun is caught), plain
 * realloc/free.  The simulator's job records live here too (sim.c).
 *
 * The caller keeps each array's size in bytes (its capacity) and frees
 * with gs_big_free; memory from here never goes to free(). */
#ifndef GS_BIGMEM_H
#define GS_BIGMEM_H

#include <stddef.h>

/* p (NULL or from here, `old` bytes) resized to `bytes` > 0, contents
 * kept up to the smaller size, the bytes past `old` zero; NULL when out
 * of memory (p is then still valid). */
void *gs_big_realloc(void *p, size_t old, size_t bytes);
/* NULL-safe. */
void gs_big_free(void *p, size_t bytes);

#endif
