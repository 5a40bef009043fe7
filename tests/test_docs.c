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

/* A kernel whose Python lacks h5py (here: the system Python without its
 * site packages, -S) gets a message naming its interpreter and the system
 * Python's packages, from the notebook's first code cell. */
static void test_notebook_import_check(void)
{
    FILE *fp = popen("/usr/bin/python3 -S -c \"import json; nb = json.load("
                     "open('plots/compare.ipynb')); c = [x for x in "
                     "nb['cells'] if x['cell_type'] == 'code'][0]['source']; "
                     "exec(''.join(c) if isinstance(c, list) else c)\" 2>&1",
                     "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, fp);
    out[n] = '\0';
    int rc = pclose(fp);
    if (!strstr(out, "h5py is missing from this kernel's Python "
                "(/usr/bin/python3)"))
        printf("\n    %s", out);
    CU_ASSERT_NOT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "h5py is missing from this kernel's "
                                  "Python (/usr/bin/python3)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "system Python"));
}

static CU_TestInfo tests[] = {
    { "README and docs commands run as written", test_docs_commands },
    { "the notebook names the system Python when h5py is missing",
      test_notebook_import_check },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("docs", tests)
