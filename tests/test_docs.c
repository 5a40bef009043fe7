/* test_docs.c -- every command README.md and docs' pages show runs as
 * written: tests/docs_commands.sh extracts them and runs each (see there
 * for which are skipped and why); this program runs that script and fails
 * with its report when any command fails. */
#include "cutest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_docs_commands(void)
{
    FILE *fp = popen("sh tests/docs_commands.sh 2>&1", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[4096];
    int ran = -1, failed = -1, skipped = -1, noshared = 0;
    while (fgets(line, sizeof line, fp)) {
        if (strstr(line, "FAILED") || strncmp(line, "    ", 4) == 0)
            printf("\n    %s", line);
        else if (strstr(line, "skipped (needs ../shared"))
            noshared++;
        sscanf(line, "docs ran=%d failed=%d skipped=%d", &ran, &failed,
               &skipped);
    }
    int rc = pclose(fp);
    if (noshared)
        printf("\n    [skipped %d commands of the docs: ../shared/traces is "
               "missing]", noshared);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT_TRUE(ran >= 10);      /* the extraction found the commands */
}

static CU_TestInfo tests[] = {
    { "README and docs commands run as written", test_docs_commands },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("docs", tests)
