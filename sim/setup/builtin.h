/* builtin.h -- the one call a program makes before anything asks for a
 * model: install the built-in models (setup.h has the rest of the layer).
 * It names no type, so that a program -- the test runner, tests/cutest.h --
 * may include it beside headers of its own. */
#ifndef GS_BUILTIN_H
#define GS_BUILTIN_H

/* Install the built-in models (core/model.h: gs_models_install) so that
 * the summary's fields and the models' plan targets are known before the
 * first simulation: the command line and the test runner call it first.
 * 0, or GS_EINVAL if another table was installed. */
int gs_builtin_install(void);

#endif
