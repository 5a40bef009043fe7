/* plan.h -- `gpusim plan`: the cheapest fleet that meets a scenario's
 * targets (the `plan` section, planjson.h), searched with bisection over
 * node counts, dominance pruning, sequential early stopping over seeds and
 * common random numbers (plan.c). */
#ifndef GS_PLAN_H
#define GS_PLAN_H

struct gs_scenario;

int gs_plan_main(int argc, char **argv);
/* The least any run of sc is billed per hour, known without running it
 * (planbound.c's essay says which pools count, and why it holds); 0 when
 * no pool's bill is fixed.  The search drops what this floor already
 * prices above a feasible plan. */
double gs_plan_cost_floor(const struct gs_scenario *sc);

#endif
