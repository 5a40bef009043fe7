/* rng.h -- independent, reproducible random streams, one per model component.
 *
 * Every random draw in gpusim comes from a GSL generator made here.  A stream
 * is named ("arrivals", "durations", "spot", "failures", ...) and seeded from
 * the scenario seed mixed with a hash of the name, so turning on one model
 * never shifts the draws of another and the same seed replays exactly. */
#ifndef GS_RNG_H
#define GS_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* A new generator (MT19937) for component name under seed; the caller owns
 * it and frees it with gsl_rng_free.  NULL when out of memory. */
gsl_rng *gs_rng_stream(uint64_t seed, const char *name);

/* The 64-bit seed derived for (seed, name): splitmix64 of seed ^ FNV-1a(name). */
uint64_t gs_rng_derive(uint64_t seed, const char *name);

#endif
