/* sections.c -- the models' own sections of the scenario: the table the
 * parser (scenario.c) calls through io/scsection.h's hooks.
 *
 * Beside gs_builtin_models[] (setup.c), the other place a model joins: a
 * model that reads a top-level key of its own (the inference model's
 * $.services) is one line here, and the parser names none of them.  A
 * file of its own, so that the parser, which setup.c calls, does not call
 * setup.c back. */
#include "setup.h"
#include "../inference/service.h"
#include "../io/scsection.h"

#include <stddef.h>

const struct gs_sc_section *const gs_builtin_sections[] = {
    &gs_svc_section,
    NULL,
};
