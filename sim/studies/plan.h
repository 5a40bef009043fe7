/* plan.h -- `gpusim plan`: the cheapest fleet that meets a scenario's
 * targets (the `plan` section, planjson.h), searched with bisection over
 * node counts, dominance pruning, sequential early stopping over seeds and
 * common random numbers (plan.c). */
#ifndef GS_PLAN_H
#define GS_PLAN_H

int gs_plan_main(int argc, char **argv);

#endif
