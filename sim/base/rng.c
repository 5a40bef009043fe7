/* rng.c -- named random streams derived from one scenario seed.
 *
 * Derivation: FNV-1a (64-bit) hashes the component name; splitmix64 (Steele,
 * Lea and Flood, "Fast splittable pseudorandom number generators", 2014)
 * scrambles seed ^ hash so that neighbouring seeds give unrelated streams.
 * MT19937 takes an unsigned long seed; its sequences for different seeds are
 * independent for simulation purposes. */
#include "rng.h"

uint64_t gs_rng_derive(uint64_t seed, const char *name)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    uint64_t z = seed ^ h;
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

gsl_rng *gs_rng_stream(uint64_t seed, const char *name)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r == NULL)
        return NULL;
    uint64_t s = gs_rng_derive(seed, name);
    /* gsl_rng_set treats 0 as its default seed; avoid the collision. */
    gsl_rng_set(r, (unsigned long)(s ? s : 1));
    return r;
}
