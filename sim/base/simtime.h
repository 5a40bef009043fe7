/* simtime.h -- the simulated clock's type and units.
 *
 * Time is a signed 64-bit count of milliseconds (engine.h says why), a
 * type every layer names -- a pool's reconfiguration time, a trace's
 * arrivals, the engine's queue -- so it lives at the bottom, with the
 * units to write durations in. */
#ifndef GS_SIMTIME_H
#define GS_SIMTIME_H

#include <stdint.h>

typedef int64_t gs_time;            /* simulated time in milliseconds */
#define GS_TIME_MAX INT64_MAX

#define GS_MS(x)   ((gs_time)(x))
#define GS_SEC     ((gs_time)1000)
#define GS_MIN     ((gs_time)60000)
#define GS_HOUR    ((gs_time)3600000)
#define GS_DAY     ((gs_time)86400000)

#endif
