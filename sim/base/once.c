/* once.c -- say a thing once per gpusim, workers included (once.h).
 *
 * An open-addressed table of GS_ONCE_SLOTS 64-bit hashes (0 = free) in a
 * MAP_SHARED anonymous mapping; a key is claimed by the first process to
 * swap its hash into a free slot on its probe sequence. */
#include "once.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#define GS_ONCE_SLOTS 1024

static uint64_t *tab;

void gs_once_init(void)
{
    if (tab)
        return;
    void *p = mmap(NULL, GS_ONCE_SLOTS * sizeof *tab, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    tab = p == MAP_FAILED ? NULL : p;
}

int gs_once(const char *key)
{
    uint64_t h = 1469598103934665603ull;        /* FNV-1a */
    for (const unsigned char *s = (const unsigned char *)key; *s; s++)
        h = (h ^ *s) * 1099511628211ull;
    h |= 1;                                     /* never 0, the free mark */
    gs_once_init();
    if (tab == NULL)
        return 1;
    for (size_t i = 0; i < GS_ONCE_SLOTS; i++) {
        uint64_t *slot = &tab[(h + i) % GS_ONCE_SLOTS], free_mark = 0;
        if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) == h)
            return 0;
        if (__atomic_compare_exchange_n(slot, &free_mark, h, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return 1;
        if (free_mark == h)                     /* another took it first */
            return 0;
    }
    return 1;
}
