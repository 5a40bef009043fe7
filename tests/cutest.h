/* cutest.h -- the one runner every CUnit test program shares.
 *
 * A test file lists its tests in a CU_TestInfo table and ends with
 * GS_TEST_MAIN("name", table).  The program runs the suite, prints CUnit's
 * verbose report and a last line "gs-test: NAME ran=N failed=M" that
 * tests/run.sh adds up, and exits non-zero on any failure.
 *
 * gs_test_long() says whether GS_TEST_LONG=1 is set (`make test-long`): a
 * test with a slow exhaustive variant (more steps, more jobs, a tighter
 * bound) runs it then, and its quick form otherwise.  `make test-long` runs
 * every test program whose source names gs_test_long or GS_TEST_LONG.
 *
 * Like gpusim's own command line, the runner installs the built-in models
 * first (sim/setup/builtin.h: gs_builtin_install), so that a test may ask
 * for the summary's fields or a plan's targets before any simulation. */
#ifndef GS_CUTEST_H
#define GS_CUTEST_H

#include "../sim/setup/builtin.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int gs_test_long(void)
{
    const char *v = getenv("GS_TEST_LONG");
    return v != NULL && strcmp(v, "1") == 0;
}

static inline int gs_test_run(const char *name, CU_TestInfo *tests)
{
    if (gs_builtin_install() < 0 || CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_SuiteInfo suites[] = { { (char *)name, NULL, NULL, NULL, NULL, tests },
                              CU_SUITE_INFO_NULL };
    if (CU_register_suites(suites) != CUE_SUCCESS)
        return 2;
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (gs_test_long())
        printf("%s: the long variants (GS_TEST_LONG=1)\n", name);
    CU_basic_run_tests();
    unsigned ran = CU_get_number_of_tests_run();
    unsigned failed = CU_get_number_of_tests_failed();
    printf("gs-test: %s ran=%u failed=%u\n", name, ran, failed);
    CU_cleanup_registry();
    return failed ? 1 : 0;
}

#define GS_TEST_MAIN(name, table) \
    int main(void) { return gs_test_run(name, table); }

#endif
