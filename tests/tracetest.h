/* tracetest.h -- helpers shared by the trace tests (test_traces.c,
 * test_tracegen.c, test_tracecli.c): open a trace format the way a scenario
 * does, read every job, check an error's place and message, and find the
 * public traces (../shared/traces), whose tests are skipped with a notice
 * when the folder is missing. */
#ifndef GS_TRACETEST_H
#define GS_TRACETEST_H

#include "cutest.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/source.h"
#include "../traces/alibaba.h"
#include "../traces/tread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHARED "../shared/traces/"
#define FIX "tests/fixtures/traces/"

/* 1 if the public traces are there; else prints a notice naming the test. */
static inline int have_traces(const char *test)
{
    if (access(SHARED "SOURCES.md", R_OK) == 0)
        return 1;
    printf("\n    [skipped %s: %s is missing]", test, SHARED);
    return 0;
}

/* A scenario shell for opening trace formats: the built-in catalog (which
 * has the Alibaba traces' undisclosed models), paths relative to the
 * current folder. */
static inline struct gs_scenario *tt_scenario(void)
{
    struct gs_scenario *sc = calloc(1, sizeof *sc);
    gs_catalog_init(&sc->cat);
    gs_params_init(&sc->trace, "t: $.workload.trace");
    gs_params_init(&sc->policy_params, "");
    gs_params_init(&sc->placer_params, "");
    sc->wl_kind = GS_WL_TRACE;
    return sc;
}

/* Add "key=value" options: a number, true/false, or a string. */
static inline void tt_opts(struct gs_params *p, const char *const *opts)
{
    for (int i = 0; opts && opts[i]; i++) {
        const char *eq = strchr(opts[i], '=');
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(eq - opts[i]), opts[i]);
        char *end;
        double v = strtod(eq + 1, &end);
        if (eq[1] && *end == '\0')
            gs_params_add_num(p, key, v);
        else if (strcmp(eq + 1, "true") == 0)
            gs_params_add_num(p, key, 1);
        else if (strcmp(eq + 1, "false") == 0)
            gs_params_add_num(p, key, 0);
        else
            gs_params_add_str(p, key, eq + 1);
    }
}

/* Read every job of a trace into *jobs (malloc'd).  Returns the count, or
 * a negative code with d filled. */
static inline long tt_read(const char *fmt, const char *path,
                           const char *const *opts, struct gs_jobspec **jobs,
                           struct gs_diag *d)
{
    struct gs_scenario *sc = tt_scenario();
    gs_params_add_str(&sc->trace, "format", fmt);
    gs_params_add_str(&sc->trace, "path", path);
    tt_opts(&sc->trace, opts);
    struct gs_source src;
    *jobs = NULL;
    long n = 0, cap = 0;
    int rc = gs_source_open(sc, 1, &src, d);
    if (rc == 0) {
        struct gs_jobspec j;
        while ((rc = gs_source_next(&src, &j, d)) == 1) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                *jobs = realloc(*jobs, (size_t)cap * sizeof **jobs);
            }
            (*jobs)[n++] = j;
        }
        gs_source_close(&src);
    }
    gs_scenario_free(sc);
    if (rc < 0) {
        free(*jobs);
        *jobs = NULL;
        return rc;
    }
    return n;
}

/* Expect reading to fail with d->where == where and what containing what. */
static inline void tt_bad(const char *fmt, const char *path,
                          const char *const *opts, const char *where,
                          const char *what)
{
    struct gs_jobspec *jobs;
    struct gs_diag d = { 0 };
    long n = tt_read(fmt, path, opts, &jobs, &d);
    if (n >= 0 || strcmp(d.where, where) != 0 || !strstr(d.what, what))
        printf("\n    %s: got n=%ld where='%s' what='%s'", path, n, d.where,
               d.what);
    CU_ASSERT(n < 0);
    CU_ASSERT_STRING_EQUAL(d.where, where);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, what));
    free(jobs);
    gs_diag_free(&d);
}

/* The trace log captured in a temporary file; tt_log_text returns what was
 * written since tt_log_start (static buffer). */
static FILE *tt_logfp;

static inline void tt_log_start(void)
{
    if (tt_logfp)
        fclose(tt_logfp);
    tt_logfp = tmpfile();
    gs_trace_set_log(tt_logfp);
}

static inline const char *tt_log_text(void)
{
    static char buf[8192];
    size_t n = 0;
    if (tt_logfp) {
        fflush(tt_logfp);
        rewind(tt_logfp);
        n = fread(buf, 1, sizeof buf - 1, tt_logfp);
    }
    buf[n] = '\0';
    return buf;
}

static inline double tt_gpus(const struct gs_jobspec *j)
{
    return j->gpus > 0 ? j->gpus : j->milli / 1000.0;
}

#endif
