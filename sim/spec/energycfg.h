/* energycfg.h -- what a scenario says about energy: PUE, tariffs and grid
 * carbon intensity, by region.
 *
 * Plain data, filled by scenario.c ($.energy and the pools' "region") and
 * read by the energy model (energy.h).  Hourly series repeat: 24 values
 * are a day (a time-of-use tariff, a typical day's grid mix), 168 a week;
 * hour 0 of a series is the hour of day start_hour at time 0 of the run's
 * clock.  docs/energy.md has the keys, their defaults and the sources. */
#ifndef GS_ENERGYCFG_H
#define GS_ENERGYCFG_H

#include "../cluster/fleet.h"

#define GS_ENERGY_REGIONS 8
#define GS_ENERGY_HOURS 168

/* A value by hour, repeating every n hours (n >= 1). */
struct gs_hourly {
    int n;
    double v[GS_ENERGY_HOURS];
};

struct gs_energy_region {
    char name[GS_NAME];
    double pue;                 /* facility energy / IT energy, >= 1 */
    struct gs_hourly price;     /* $ per kWh of facility energy */
    struct gs_hourly carbon;    /* g CO2e per kWh of facility energy */
};

struct gs_energycfg {
    int nregions;               /* >= 1: region 0 is $.energy's own keys */
    struct gs_energy_region region[GS_ENERGY_REGIONS];
    double start_hour;          /* hour of day at time 0, [0, 24) */
    double host_idle_share;     /* a host's idle power / its busy power,
                                   for pools that give no host_idle_w;
                                   < 0: not given (power.h's
                                   GS_HOST_IDLE_SHARE) */
};

#endif
