/* bigmem.c -- arrays that grow to hundreds of megabytes (bigmem.h).
 *
 * Sizes are rounded up to whole pages (the mapping's own unit), so a
 * request to grow within the last page costs nothing.  Huge pages are
 * asked for over the whole mapping after every change: the kernel backs
 * each aligned 2 MiB stretch of it with one huge page at its first touch
 * when it can, and with small pages otherwise -- the contents are the same
 * either way, only the number of faults differs.  Fresh pages, of a new
 * mapping or of one grown by mremap, read as zero; the realloc path
 * zeroes what it adds to match. */
#include "bigmem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GS_BIG_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GS_BIG_ASAN 1
#endif

#if defined(MAP_ANONYMOUS) && defined(MREMAP_MAYMOVE) && !defined(GS_BIG_ASAN)
#define GS_BIG_MAP 1
#else
#define GS_BIG_MAP 0
#endif

#if GS_BIG_MAP
static size_t pages(size_t bytes)
{
    static size_t pg;
    if (pg == 0) {
        long s = sysconf(_SC_PAGESIZE);
        pg = s > 0 ? (size_t)s : 4096;
    }
    return (bytes + pg - 1) / pg * pg;
}

static void advise(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}
#endif

void *gs_big_realloc(void *p, size_t old, size_t bytes)
{
#if GS_BIG_MAP
    size_t nl = pages(bytes);
    void *q;
    if (p == NULL) {
        q = mmap(NULL, nl, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        size_t ol = pages(old);
        if (ol == nl)
            return p;
        q = mremap(p, ol, nl, MREMAP_MAYMOVE);
    }
    if (q == MAP_FAILED)
        return NULL;
    advise(q, nl);
    return q;
#else
    char *q = realloc(p, bytes);
    if (q && bytes > old)
        memset(q + old, 0, bytes - old);    /* as fresh pages are */
    return q;
#endif
}

void gs_big_free(void *p, size_t bytes)
{
    if (p == NULL)
        return;
#if GS_BIG_MAP
    munmap(p, pages(bytes));
#else
    (void)bytes;
    free(p);
#endif
}
