/* test_docs.c -- every command README.md and docs' pages show runs as
 * written: tests/docs_commands.sh extracts them and runs each (see there
 * for which are skipped and why); this program runs that script and fails
 * with its report when any command fails.  And the README's reference is
 * complete: every option --help gives and every scenario key the schema
 * has (tests/docs_reference.py). */
#include "cutest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs cmd; its output (the first n - 1 bytes) in out, its status. */
static int capture(const char *cmd, char *out, size_t n)
{
    FILE *fp = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    size_t got = fread(out, 1, n - 1, fp);
    out[got] = '\0';
    return pclose(fp);
}

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


/* Each notebook refuses the other kind of file with a message saying what
 * it is and which notebook reads it (their first code cell, run by the
 * system Python on files gpusim writes). */
static void test_notebook_kind_check(void)
{
    const char *g = gs_test_gpusim();
    char dir[] = "/tmp/gs_nbkindXXXXXX", cmd[4096];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "%s run quickstart -q -o %s/r.h5 && %s compare "
             "quickstart -p fifo,fair --seeds 2 --no-plots -q -o %s/c.h5",
             g, dir, g, dir);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    static const struct { const char *nb, *file, *msg; } cases[] = {
        { "compare", "r.h5", "r.h5 is one run's file, not a comparison: this "
          "notebook reads what 'gpusim compare' writes" },
        { "run", "c.h5", "c.h5 is a compare file; this notebook reads one "
          "run" },
    };
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "cd plots && GPUSIM_H5=%s/%s "
                 "/usr/bin/python3 -c \"import json; nb = json.load(open("
                 "'%s.ipynb')); c = [x for x in nb['cells'] if "
                 "x['cell_type'] == 'code'][0]['source']; exec(''.join(c) "
                 "if isinstance(c, list) else c)\" 2>&1", dir, cases[i].file,
                 cases[i].nb);
        FILE *fp = popen(cmd, "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        char out[8192];
        size_t n = fread(out, 1, sizeof out - 1, fp);
        out[n] = '\0';
        int rc = pclose(fp);
        if (!strstr(out, cases[i].msg))
            printf("\n    %s", out);
        CU_ASSERT_NOT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].msg));
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* docs/hdf5.md is what the writer writes now: tests/hdf5doc.sh has the
 * shipped scenarios write a run, a comparison, a plan, a sweep and a
 * placement experiment and plots/h5doc.py reads every dataset's and
 * column's type, units and description back; the committed page must be
 * that, byte for byte (make docs/hdf5.md rewrites it). */
static void test_hdf5_doc_current(void)
{
    const char *g = gs_test_gpusim();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sh tests/hdf5doc.sh '%s' --check 2>&1", g);
    char out[8192];
    int rc = capture(cmd, out, sizeof out);
    if (rc != 0)
        printf("\n    %s", out);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "docs/hdf5.md is up to date"));
}

/* The README names every option each command's --help gives, in that
 * command's reference block, and every key of the scenarios' JSON Schema
 * in a code span or block of its own or of a docs page it links
 * (tests/docs_reference.py).  Then the check is shown to fail: a copy of
 * the README without place-exp's --ties and sweep's --list-metrics (its
 * docs/ beside it) has those two gaps. */
static void test_reference_complete(void)
{
    const char *g = gs_test_gpusim();
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 tests/docs_reference.py '%s' 2>&1",
             g);
    static char out[1 << 16];
    int rc = capture(cmd, out, sizeof out);
    if (rc != 0)
        printf("\n    %s", out);
    CU_ASSERT_EQUAL(rc, 0);
    int keys = 0, blocks = 0, gaps = -1;
    const char *l = strstr(out, "docs_reference: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_EQUAL(sscanf(l, "docs_reference: %d schema keys, %d command "
                           "blocks; %d gaps", &keys, &blocks, &gaps), 3);
    CU_ASSERT_EQUAL(gaps, 0);
    CU_ASSERT(keys > 200);          /* the schema's keys were read */
    CU_ASSERT(blocks > 20);         /* and the README's blocks found */
    char dir[] = "/tmp/gs-docref-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "ln -s \"$PWD/docs\" %s/docs && "
             "sed -e 's/--ties//g' -e 's/--list-metrics//g' README.md "
             ">%s/README.md && python3 tests/docs_reference.py '%s' "
             "%s/README.md 2>&1; r=$?; rm -rf %s; exit $r", dir, dir, g,
             dir, dir);
    rc = capture(cmd, out, sizeof out);
    CU_ASSERT_NOT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "gpusim place-exp: --ties"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "gpusim sweep: --list-metrics"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "; 2 gaps"));
}

static CU_TestInfo tests[] = {
    { "README and docs commands run as written", test_docs_commands },
    { "the notebook names the system Python when h5py is missing",
      test_notebook_import_check },
    { "each notebook refuses the other kind of file", test_notebook_kind_check },
    { "docs/hdf5.md is generated from what the writer writes",
      test_hdf5_doc_current },
    { "the README names every --help option and every schema key",
      test_reference_complete },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("docs", tests)
