/* energy.h -- the fleet's energy, its cost and its carbon, as one model.
 *
 * See energy.c for the model (what draws power, how it is attributed to
 * jobs, tenants and the idle remainder, how tariffs and grid intensity by
 * hour are integrated) and docs/energy.md for the scenario keys.  The
 * model joins the simulation through its entry in the built-in models'
 * table (sim/setup/setup.c, model.h);
 * its figures reach every output through its hooks. */
#ifndef GS_ENERGY_H
#define GS_ENERGY_H

#include "../core/model.h"
#include "../spec/energycfg.h"

struct gs_sim;

extern const struct gs_model_ops gs_energy_model;

/* The run's energy figures (valid after the run; facility energy is the
 * IT energy -- GPU boards and their nodes' hosts -- times the region's
 * PUE).  it_kwh and host_kwh are IT energy, before PUE; kwh and idle_kwh
 * facility energy, after it -- the summary's energy_it_kwh and
 * energy_host_kwh, energy_kwh and energy_idle_kwh, and the same in a
 * pool's (gs_energy_pool, --json's energy_by.pool). */
struct gs_energysum {
    double it_kwh;              /* GPU boards and hosts, IT */
    double host_kwh;            /* of it_kwh: the hosts', IT */
    double kwh;                 /* facility: it_kwh x PUE */
    double idle_kwh;            /* of kwh: GPU slots up and not allocated
                                   (boards and their share of hosts) */
    double usd;                 /* energy cost, a part of the bill */
    double idle_usd;            /* of usd: the unallocated GPUs' */
    double gco2;                /* g CO2e */
    double idle_gco2;
    double span_h;              /* hours integrated */
};

/* The energy model of simulation s, NULL when it is not in the run. */
const struct gs_energysum *gs_sim_energy(const struct gs_sim *s);
/* The part of the run's energy figures booked to tenant t (index of
 * gs_sim_tenant_name): kWh, $ and g CO2e of its jobs. */
void gs_energy_tenant(const struct gs_sim *s, int t, double *kwh, double *usd,
                      double *gco2);
/* Pool i's energy (as --json's energy_by.pool) into *o: kwh (facility),
 * it_kwh and of it host_kwh (IT, before PUE), idle_kwh (facility, the
 * unallocated GPUs'), each with the fleet's meaning; the money, carbon
 * and span fields 0.  The pools add up to the fleet's figures.
 * GS_ENOTFOUND for no such pool. */
int gs_energy_pool(const struct gs_sim *s, int i, struct gs_energysum *o);
/* Region k's (index of $.energy.regions, 0 the default) facility kWh, $
 * and g CO2e.  GS_ENOTFOUND for no such region. */
int gs_energy_region(const struct gs_sim *s, int k, double *kwh, double *usd,
                     double *gco2);

/* The integral of an hourly series over [0, hours) of its own clock (hour
 * 0 is its first value; it repeats every h->n hours): value x hours.
 * What a tariff is priced by (tests check it by hand). */
double gs_hourly_integral(const struct gs_hourly *h, double hours);
/* The series' value at hour `hours` of its clock. */
double gs_hourly_at(const struct gs_hourly *h, double hours);

#endif
