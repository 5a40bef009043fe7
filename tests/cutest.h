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
 * for the summary's fields or a plan's targets before any simulation.
 *
 * The gpusim binary a test runs is $GPUSIM (`make test` sets it); run by
 * hand without it, a test program finds the binary of its own build --
 * BUILD/tests/test_X runs BUILD/gpusim, and BUILD/plugins is its
 * GS_PLUGIN_DIR -- and sets both in its environment for the commands it
 * starts, so that no stale ./gpusim answers.  A test that needs the binary
 * when there is none says so and ends the program (gs_test_gpusim). */
#ifndef GS_CUTEST_H
#define GS_CUTEST_H

#include "../sim/base/err.h"
#include "../sim/setup/builtin.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* d's message, "WHERE: WHAT" (gs_diag_message), into buf (n bytes) for a
 * test to look into. */
static inline void gs_test_diag_text(const struct gs_diag *d, char *buf,
                                     size_t n)
{
    char *m = gs_diag_message(d);
    snprintf(buf, n, "%s", m ? m : "");
    free(m);
}

static inline int gs_test_long(void)
{
    const char *v = getenv("GS_TEST_LONG");
    return v != NULL && strcmp(v, "1") == 0;
}

/* BUILD of this program, BUILD/tests/test_X, with `leaf` after it, into
 * buf (n bytes): 0, or -1 when the path is unknown or too long. */
static inline int gs_test_build_path(const char *leaf, char *buf, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", buf, n - 1);
    if (k <= 0 || (size_t)k >= n - 1)
        return -1;
    buf[k] = '\0';
    for (int up = 0; up < 2; up++) {    /* drop "/test_X", then "/tests" */
        char *slash = strrchr(buf, '/');
        if (slash == NULL)
            return -1;
        *slash = '\0';
    }
    size_t len = strlen(buf);
    if (len + 1 + strlen(leaf) + 1 > n)
        return -1;
    snprintf(buf + len, n - len, "/%s", leaf);
    return 0;
}

/* Unless set, GPUSIM := BUILD/gpusim and GS_PLUGIN_DIR := BUILD/plugins
 * when they are there. */
static inline void gs_test_find_gpusim(void)
{
    char p[4096];
    if (getenv("GPUSIM") == NULL &&
        gs_test_build_path("gpusim", p, sizeof p) == 0 &&
        access(p, X_OK) == 0)
        setenv("GPUSIM", p, 1);
    if (getenv("GS_PLUGIN_DIR") == NULL &&
        gs_test_build_path("plugins", p, sizeof p) == 0 &&
        access(p, R_OK | X_OK) == 0)
        setenv("GS_PLUGIN_DIR", p, 1);
}

/* The gpusim binary to run ($GPUSIM, set by make test or found by
 * gs_test_find_gpusim); when there is none, a message that says what to
 * do, and the program ends with status 2 (tests/run.sh reports it). */
static inline const char *gs_test_gpusim(void)
{
    const char *b = getenv("GPUSIM");
    if (b != NULL && b[0] != '\0')
        return b;
    char p[4096];
    if (gs_test_build_path("gpusim", p, sizeof p) != 0)
        snprintf(p, sizeof p, "BUILD/gpusim");
    fprintf(stderr, "\ngs-test: no gpusim binary to run: GPUSIM is unset "
            "and %s is not there; build it (make %s) or set GPUSIM\n", p,
            strstr(p, "/build/") ? strstr(p, "/build/") + 1 : "gpusim");
    fflush(stdout);
    exit(2);
}

static inline int gs_test_run(const char *name, CU_TestInfo *tests)
{
    gs_test_find_gpusim();
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
