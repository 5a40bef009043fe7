/* gpuhours.h -- the example model of tests/models (gpuhours.c). */
#ifndef GS_TEST_GPUHOURS_H
#define GS_TEST_GPUHOURS_H

#include "../../sim/core/model.h"

extern const struct gs_model_ops gs_example_model;

#endif
