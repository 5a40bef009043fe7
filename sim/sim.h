/* sim.h -- the path plug-ins built outside the tree include: the public
 * engine interface now lives in sim/core/sim.h (the tree's map is in the
 * README's "Layout and development").  Kept so that code written against
 * `#include "sim/sim.h"` under include/gpusim/ builds unchanged. */
#include "core/sim.h"
