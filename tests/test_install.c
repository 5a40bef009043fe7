/* test_install.c -- `make install` and `make uninstall` into a scratch
 * DESTDIR: the binary, a man page made from the help texts, bash
 * completion that completes commands, options, policies, placers and
 * formats, plot scripts the installed binary finds without flags, example
 * scenarios, only the public plug-in headers (enough to compile a plug-in
 * through gpusim.pc), and nothing left after uninstall.
 *
 * It runs make on the build the suite was built in: $GPUSIM (set by
 * `make test`, else this program's own build's: cutest.h) names that
 * build's binary, so its folder is make's B. */
#include "cutest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64], bdir[512];
/* make's B and SANITIZER for that build: a sanitizer build's objects
 * rebuilt without the sanitizer would not link with the rest */
#ifndef GS_TEST_SANITIZER
#define GS_TEST_SANITIZER ""
#endif
static char build[700];

static int sh(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    int rc = system(cmd);
    return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* The output of cmd (first 64 KiB), or "" on failure. */
static const char *capture(const char *cmd)
{
    static char buf[1 << 16];
    buf[0] = '\0';
    FILE *fp = popen(cmd, "r");
    if (fp == NULL)
        return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    pclose(fp);
    return buf;
}

static int exists(const char *rel)
{
    char p[1024];
    struct stat st;
    snprintf(p, sizeof p, "%s%s", root, rel);
    return stat(p, &st) == 0;
}

#define MAKE "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory"

static void setup_dirs(void)
{
    snprintf(bdir, sizeof bdir, "%s", gs_test_gpusim());
    char *slash = strrchr(bdir, '/');
    if (slash)
        *slash = '\0';
    /* relative to here when below it: the .d files' targets are, so only
     * then do make's header dependencies apply */
    char cwd[4096];
    size_t n = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (n > 0 && strncmp(bdir, cwd, n) == 0 && bdir[n] == '/')
        memmove(bdir, bdir + n + 1, strlen(bdir + n + 1) + 1);
    snprintf(build, sizeof build, "B=%s SANITIZER=%s", bdir,
             GS_TEST_SANITIZER);
    snprintf(root, sizeof root, "/tmp/gs_installXXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
}

static void test_install(void)
{
    setup_dirs();
    char args[1024];
    snprintf(args, sizeof args, "%s PREFIX=/usr DESTDIR=%s", build, root);
    CU_ASSERT_EQUAL_FATAL(sh(MAKE " install %s >%s/make.log 2>&1", args,
                             root), 0);
    CU_ASSERT_TRUE(exists("/usr/bin/gpusim"));
    CU_ASSERT_TRUE(exists("/usr/share/bash-completion/completions/gpusim"));
    CU_ASSERT_TRUE(exists("/usr/share/gpusim/plots/utilization.gp"));
    CU_ASSERT_TRUE(exists("/usr/share/gpusim/plots/compare.ipynb"));
    CU_ASSERT_TRUE(exists("/usr/share/gpusim/scenarios/small-tenants.json"));
    /* the scenarios' JSON Schema, for editors (README, Scenario reference) */
    CU_ASSERT_TRUE(exists("/usr/share/gpusim/scenarios/gpusim.schema.json"));
    CU_ASSERT_TRUE(exists("/usr/lib/pkgconfig/gpusim.pc"));
    /* Public headers only: what a plug-in includes, not the writers. */
    CU_ASSERT_TRUE(exists("/usr/include/gpusim/policies/policy.h"));
    CU_ASSERT_TRUE(exists("/usr/include/gpusim/sim/sim.h"));
    CU_ASSERT_TRUE(exists("/usr/include/gpusim/sim/core/sim.h"));
    CU_ASSERT_FALSE(exists("/usr/include/gpusim/sim/io/h5out.h"));
    CU_ASSERT_FALSE(exists("/usr/include/gpusim/sim/studies/compare.h"));
    CU_ASSERT_FALSE(exists("/usr/include/gpusim/traces/native.h"));

    /* The man page: every command's own help, from the program. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cat %s/usr/share/man/man1/gpusim.1", root);
    const char *man = capture(cmd);
    CU_ASSERT_PTR_NOT_NULL(strstr(man, ".TH GPUSIM \"1\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(man, ".SS run"));
    CU_ASSERT_PTR_NOT_NULL(strstr(man, ".SS trace"));
    CU_ASSERT_PTR_NOT_NULL(strstr(man, ".SS place-exp"));
    CU_ASSERT_PTR_NOT_NULL(strstr(man, "--skip-bad-rows"));
    CU_ASSERT_PTR_NOT_NULL(strstr(man, ".SH SYNOPSIS"));
    CU_ASSERT_PTR_NOT_NULL(strstr(man, "gpusim trace stats INPUT|SCENARIO"));
    CU_ASSERT_PTR_NOT_NULL(strstr(man, ".SH \"EXIT STATUS\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(man, "GPUSIM_DATA_PATH"));
    /* The documents the man page points to. */
    CU_ASSERT_TRUE(exists("/usr/share/doc/gpusim/README.md"));
    CU_ASSERT_TRUE(exists("/usr/share/doc/gpusim/traces.md"));
    CU_ASSERT_TRUE(exists("/usr/share/doc/gpusim/reliability.md"));

    /* The installed binary finds its plot scripts from anywhere. */
    snprintf(cmd, sizeof cmd, "cd %s && env -u GPUSIM_PLOTS "
             "%s/usr/bin/gpusim compare quickstart --policies fifo,priority "
             "--seeds 1 --jobs 1 --out c.h5 --plots p --quiet "
             ">cmp.log 2>&1", root, root);
    CU_ASSERT_EQUAL(sh("%s%s", cmd, ""), 0);
    CU_ASSERT_TRUE(exists("/p/utilization.png"));
    CU_ASSERT_TRUE(exists("/p/wait_cdf.png"));

    /* A plug-in compiles against the installed headers via gpusim.pc. */
    snprintf(cmd, sizeof cmd, "cd %s && printf '%%s\\n' "
             "'#include \"policies/policy.h\"' '#include \"sim/sim.h\"' "
             "'static void s(void *st, struct gs_sim *sim) { (void)st; "
             "gs_sim_try_start(sim, gs_sim_pending_head(sim), NULL, 0); }' "
             "'const struct gs_policy_ops gs_policy_plugin = { .abi = "
             "GS_POLICY_ABI, .name = \"mine\", .schedule = s };' >mine.c && "
             "PKG_CONFIG_SYSROOT_DIR=%s PKG_CONFIG_PATH=%s/usr/lib/pkgconfig "
             "cc -std=c11 -Wall -Werror -fPIC -shared "
             "$(PKG_CONFIG_SYSROOT_DIR=%s PKG_CONFIG_PATH=%s/usr/lib/pkgconfig "
             "pkg-config --cflags gpusim) -o mine.so mine.c >cc.log 2>&1",
             root, root, root, root, root);
    int rc = system(cmd);
    if (rc != 0)
        printf("\n    %s", capture("cat /tmp/gs_install*/cc.log"));
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(exists("/mine.so"));

    /* Completion: commands, options, policies, placers, formats. */
    static const struct { const char *words, *want; } comp[] = {
        { "gpusim co", "compare" },
        { "gpusim run x.json --pol", "--policy" },
        { "gpusim run x.json --policy fi", "fifo-backfill" },
        { "gpusim run x.json --placement f", "fgd" },
        { "gpusim compare x.json --policies fifo,h", "fifo,hps" },
        { "gpusim trace convert x --format al", "alibaba-gpu-2023" },
        { "gpusim trace st", "stats" },
    };
    for (size_t i = 0; i < sizeof comp / sizeof comp[0]; i++) {
        snprintf(cmd, sizeof cmd, "PATH=%s/usr/bin:$PATH bash -c 'source "
                 "%s/usr/share/bash-completion/completions/gpusim; "
                 "COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                 "_gpusim; echo \"${COMPREPLY[*]}\"'", root, root,
                 comp[i].words);
        const char *got = capture(cmd);
        if (!strstr(got, comp[i].want))
            printf("\n    %s -> %s", comp[i].words, got);
        CU_ASSERT_PTR_NOT_NULL(strstr(got, comp[i].want));
    }

    /* Uninstall leaves no file of ours. */
    CU_ASSERT_EQUAL(sh(MAKE " uninstall %s >%s/make.log 2>&1", args, root),
                    0);
    snprintf(cmd, sizeof cmd, "find %s/usr -type f | wc -l", root);
    CU_ASSERT_EQUAL(atoi(capture(cmd)), 0);
    CU_ASSERT_EQUAL(sh("rm -rf %s%s", root, ""), 0);
}

/* make clean also removes what make run wrote. */
static void test_clean_lists_run_outputs(void)
{
    const char *n = capture(MAKE " -n clean");
    CU_ASSERT_PTR_NOT_NULL(strstr(n, "quickstart.h5"));
    CU_ASSERT_PTR_NOT_NULL(strstr(n, "quickstart-compare.h5"));
    CU_ASSERT_PTR_NOT_NULL(strstr(n, "quickstart-compare-plots"));
}

/* The README's way, into a real PREFIX (no DESTDIR) after an install
 * elsewhere: gpusim.pc names this PREFIX, a plug-in builds with the
 * README's command and runs under the installed gpusim; an installed
 * scenario finds a file beside it, and one that replays a public trace
 * finds it through GPUSIM_DATA_PATH. */
static void test_install_prefix(void)
{
    setup_dirs();
    char pfx[600], args[2048], cmd[4096];
    snprintf(pfx, sizeof pfx, "%s/pfx", root);
    snprintf(args, sizeof args, "%s PREFIX=/usr DESTDIR=%s/other", build,
             root);
    CU_ASSERT_EQUAL_FATAL(sh(MAKE " install %s >%s/make.log 2>&1", args,
                             root), 0);
    snprintf(args, sizeof args, "%s PREFIX=%s", build, pfx);
    CU_ASSERT_EQUAL_FATAL(sh(MAKE " install %s >%s/make.log 2>&1", args,
                             root), 0);
    snprintf(cmd, sizeof cmd, "grep '^prefix=' %s/lib/pkgconfig/gpusim.pc",
             pfx);
    char want[700];
    snprintf(want, sizeof want, "prefix=%s\n", pfx);
    CU_ASSERT_STRING_EQUAL(capture(cmd), want);
    snprintf(cmd, sizeof cmd, "cd %s && printf '%%s\n' "
             "'#include \"policies/policy.h\"' '#include \"sim/sim.h\"' "
             "'static void s(void *st, struct gs_sim *sim) { (void)st; "
             "struct gs_job *j; while ((j = gs_sim_pending_head(sim)) && "
             "gs_sim_try_start(sim, j, NULL, 0) == 0) {} }' "
             "'const struct gs_policy_ops gs_policy_plugin = { .abi = "
             "GS_POLICY_ABI, .name = \"mine\", .schedule = s };' >mine.c && "
             "export PKG_CONFIG_PATH=%s/lib/pkgconfig && "
             "cc -fPIC -shared $(pkg-config --cflags gpusim) -o mine.so "
             "mine.c >cc.log 2>&1 && %s/bin/gpusim run quickstart "
             "--policy-lib ./mine.so --no-out | head -1", root, pfx, pfx);
    const char *got = capture(cmd);
    if (!strstr(got, "policy mine"))
        printf("\n    %s", capture("cat /tmp/gs_install*/cc.log"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "scenario quickstart  policy mine"));
    /* cloud-mixed.json reads cloud-spot-price.csv beside it */
    snprintf(cmd, sizeof cmd, "cd %s && %s/bin/gpusim run "
             "%s/share/gpusim/scenarios/cloud-mixed.json --no-out "
             "2>&1 | head -1", root, pfx, pfx);
    CU_ASSERT_PTR_NOT_NULL(strstr(capture(cmd), "scenario cloud-mixed"));
    const char *traces = getenv("GS_TRACES") ? getenv("GS_TRACES")
                                             : "../shared/traces";
    char abs[1024];
    if (realpath(traces, abs) == NULL) {
        printf("\n    [skipped: %s missing]", traces);
    } else {
        snprintf(cmd, sizeof cmd, "cd %s && %s/bin/gpusim run "
                 "%s/share/gpusim/scenarios/philly-training.json --no-out "
                 "2>&1 | head -1; GPUSIM_DATA_PATH=/nonexistent:%s "
                 "%s/bin/gpusim run %s/share/gpusim/scenarios/"
                 "philly-training.json --no-out | head -1", root, pfx, pfx,
                 abs, pfx, pfx);
        got = capture(cmd);
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "shared/traces/philly-gavel/"));
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "No such file"));
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "scenario philly-training  "
                                      "policy"));
    }
    snprintf(args, sizeof args, "%s PREFIX=%s", build, pfx);
    CU_ASSERT_EQUAL(sh(MAKE " uninstall %s >%s/make.log 2>&1", args, root),
                    0);
    snprintf(cmd, sizeof cmd, "find %s -type f | wc -l", pfx);
    CU_ASSERT_EQUAL(atoi(capture(cmd)), 0);
    CU_ASSERT_EQUAL(sh("rm -rf %s%s", root, ""), 0);
}

/* What make would do for this build after a change (make -n -W FILE):
 * an object is compiled as the suite's were (with its sanitizer, or
 * none), and a test program that loads the example plug-in brings it up
 * to date after a header change -- its .so rule's headers come from the
 * .d that -MMD writes beside it, which names them as the plug-in's source
 * includes them (-W matches names, not files). */
static void test_make_as_built(void)
{
    setup_dirs();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, MAKE " -n -W sim/base/err.c %s %s/gpusim "
             "2>&1 | grep -e '-c sim/base/err.c'", build, bdir);
    const char *got = capture(cmd);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "sim/base/err.c"));
    int san = strstr(got, "-fsanitize=") != NULL;
    if (san != (GS_TEST_SANITIZER[0] != '\0'))
        printf("\n    built with SANITIZER='%s', make would compile: %s",
               GS_TEST_SANITIZER, got);
    CU_ASSERT_EQUAL(san, GS_TEST_SANITIZER[0] != '\0');
    snprintf(cmd, sizeof cmd, MAKE " -n -W policies/examples/../policy.h %s "
             "%s/tests/test_policies 2>&1 | grep -e '-o %s/plugins/sjf'",
             build, bdir, bdir);
    got = capture(cmd);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "plugins/sjf.so "));
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "plugins/sjf-badabi.so "));
    CU_ASSERT_EQUAL(sh("rm -rf %s%s", root, ""), 0);
}

/* A build whose B is an absolute path elsewhere (a scratch folder here,
 * one object in it): make's header dependencies apply to it (make read
 * only ./build's .d files, and a header change rebuilt nothing there),
 * `make plugins` makes every plug-in the tests load, the bad-ABI build
 * too, and `make bench-policies` compiles with -Werror. */
static void test_make_absolute(void)
{
    setup_dirs();
    char *cmd = NULL;
    CU_ASSERT_FATAL(asprintf(&cmd, MAKE " B=%s/b SANITIZER=%s %s/b/sim/base/"
                             "err.o >%s/make.log 2>&1", root,
                             GS_TEST_SANITIZER, root, root) > 0);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    free(cmd);
    CU_ASSERT_FATAL(asprintf(&cmd, MAKE " -n -W sim/base/err.h B=%s/b "
                             "SANITIZER=%s %s/b/sim/base/err.o 2>&1 | grep "
                             "-e '-c sim/base/err.c'", root,
                             GS_TEST_SANITIZER, root) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(capture(cmd), "sim/base/err.c"));
    free(cmd);
    CU_ASSERT_FATAL(asprintf(&cmd, MAKE " -n -W policies/examples/sjf.c "
                             "B=%s/b SANITIZER=%s plugins 2>&1 | grep -e "
                             "'-o %s/b/plugins/sjf'", root, GS_TEST_SANITIZER,
                             root) > 0);
    const char *got = capture(cmd);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "plugins/sjf.so "));
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "plugins/sjf-badabi.so "));
    free(cmd);
    /* make bench-policies compiles as make WERROR=1 test does, warnings
     * as errors, without being asked (a plain build's objects were taken
     * as they were by the next WERROR=1 build) */
    CU_ASSERT_FATAL(asprintf(&cmd, MAKE " -n B=%s/b SANITIZER=%s "
                             "bench-policies 2>&1 | grep -e "
                             "'-c bench/bench_policies.c'", root,
                             GS_TEST_SANITIZER) > 0);
    got = capture(cmd);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "bench/bench_policies.c"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got, " -Werror "));
    free(cmd);
    CU_ASSERT_EQUAL(sh("rm -rf %s%s", root, ""), 0);
}

static CU_TestInfo tests[] = {
    { "make install, the installed tool, make uninstall", test_install },
    { "install into a PREFIX: gpusim.pc, a plug-in, scenarios' data",
      test_install_prefix },
    { "make clean removes make run's outputs", test_clean_lists_run_outputs },
    { "make from a test: the suite's sanitizer, plug-ins after headers",
      test_make_as_built },
    { "make with an absolute B: header dependencies, make plugins, "
      "bench-policies with -Werror",
      test_make_absolute },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("install", tests)
