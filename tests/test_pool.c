/* test_pool.c -- the worker pool (pool.c) and the clean-up on signals
 * (cleanup.c): results in task order with any number of workers, a dead
 * worker named by its task, a failing task stopping the rest, workers
 * that die with their parent, and a signal that stops the workers, removes
 * the registered temporaries and kills the process with that signal. */
#include "cutest.h"
#include "../sim/base/cleanup.h"
#include "../sim/studies/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Task t gives t^2, t + 0.5 and the parity of t. */
static int square(int t, double *out, void *ctx, struct gs_diag *d)
{
    (void)ctx;
    (void)d;
    out[0] = (double)t * t;
    out[1] = t + 0.5;
    out[2] = t % 2;
    return 0;
}

/* A task with no outputs (nout 0): it must not write any. */
static int silent(int t, double *out, void *ctx, struct gs_diag *d)
{
    (void)t;
    (void)out;
    (void)ctx;
    (void)d;
    return 0;
}

static char *name(int t, void *ctx)
{
    (void)ctx;
    return gs_strf("T%d", t);
}

static int ndone_seen, last_ndone;
static void done(int t, int ndone, const double *out, void *ctx)
{
    (void)ctx;
    if (out[0] == (double)t * t)
        ndone_seen++;
    last_ndone = ndone;
}

static void test_order(void)
{
    enum { N = 37 };
    for (int jobs = 0; jobs <= 5; jobs++) {
        double r[N * 3];
        memset(r, 0xff, sizeof r);
        ndone_seen = last_ndone = 0;
        struct gs_pool_tasks p = { .ntasks = N, .jobs = jobs, .nout = 3,
                                   .fn = square, .name = name, .done = done };
        struct gs_diag d = { 0 };
        CU_ASSERT_EQUAL(gs_pool_exec(&p, r, &d), 0);
        int ok = 1;
        for (int t = 0; t < N; t++)
            ok &= r[3 * t] == (double)t * t && r[3 * t + 1] == t + 0.5 &&
                  r[3 * t + 2] == t % 2;
        CU_ASSERT(ok);
        CU_ASSERT_EQUAL(ndone_seen, N);
        CU_ASSERT_EQUAL(last_ndone, N);
        gs_diag_free(&d);
    }
    /* no tasks, no outputs */
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_pool_run(0, 4, 3, square, NULL, NULL, &d), 0);
    double one = 7;
    CU_ASSERT_EQUAL(gs_pool_run(1, 1, 0, silent, NULL, &one, &d), 0);
    CU_ASSERT_EQUAL(one, 7);
    gs_diag_free(&d);
}

/* Task 5 kills its own worker: with one worker or three, the pool reports
 * task 5 by name and the signal, and gpusim (this process) lives on. */
static int crash5(int t, double *out, void *ctx, struct gs_diag *d)
{
    if (t == 5)
        raise(SIGKILL);
    return square(t, out, ctx, d);
}

static void test_crash_named(void)
{
    for (int jobs = 1; jobs <= 3; jobs += 2) {
        double r[10 * 3];
        struct gs_pool_tasks p = { .ntasks = 10, .jobs = jobs, .nout = 3,
                                   .fn = crash5, .name = name };
        struct gs_diag d = { 0 };
        CU_ASSERT_EQUAL(gs_pool_exec(&p, r, &d), GS_EIO);
        CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "task 5 (T5)"));
        CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "killed by signal 9"));
        /* SIGKILL is what the kernel's out-of-memory killer sends */
        CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "out-of-memory killer"));
        if (!strstr(d.what, "task 5 (T5)"))
            printf("\n    %s", d.what);
        gs_diag_free(&d);
    }
}

static int exit7(int t, double *out, void *ctx, struct gs_diag *d)
{
    (void)t;
    (void)out;
    (void)ctx;
    (void)d;
    _exit(7);
}

static void test_exit_named(void)
{
    double r[2];
    struct gs_pool_tasks p = { .ntasks = 2, .jobs = 2, .nout = 1,
                               .fn = exit7 };
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_pool_exec(&p, r, &d), GS_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "exited with status 7"));
    gs_diag_free(&d);
}

/* Task 2 fails with a diagnostic; the others would sleep 20 s each.  The
 * pool returns the task's own code and message at once: the sleepers are
 * stopped, not waited for. */
static int fail2(int t, double *out, void *ctx, struct gs_diag *d)
{
    (void)ctx;
    out[0] = t;
    if (t == 2)
        return gs_diag_set(d, GS_EINVAL, "here", "task two is bad");
    if (t > 2)
        sleep(20);
    return 0;
}

static void test_failure_stops_others(void)
{
    double r[6];
    struct gs_pool_tasks p = { .ntasks = 6, .jobs = 3, .nout = 1,
                               .fn = fail2 };
    struct gs_diag d = { 0 };
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    CU_ASSERT_EQUAL(gs_pool_exec(&p, r, &d), GS_EINVAL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    CU_ASSERT_STRING_EQUAL(d.what, "task two is bad");
    CU_ASSERT_STRING_EQUAL(d.where, "here");
    CU_ASSERT(b.tv_sec - a.tv_sec < 10);
    gs_diag_free(&d);
}

/* --- workers and signals -------------------------------------------------- */

static char pidfile[64];

/* Append this worker's pid to pidfile, then sleep. */
static int sleeper(int t, double *out, void *ctx, struct gs_diag *d)
{
    (void)t;
    (void)out;
    (void)ctx;
    (void)d;
    int fd = open(pidfile, O_WRONLY | O_APPEND | O_CREAT, 0600);
    char line[32];
    int n = snprintf(line, sizeof line, "%ld\n", (long)getpid());
    if (write(fd, line, (size_t)n) != n)
        _exit(9);
    close(fd);
    sleep(30);
    return 0;
}

/* Read up to n pids from pidfile, waiting up to 5 s for n of them. */
static int read_pids(pid_t *p, int n)
{
    int got = 0;
    for (int i = 0; i < 500 && got < n; i++) {
        got = 0;
        FILE *fp = fopen(pidfile, "r");
        long v;
        while (fp && got < n && fscanf(fp, "%ld", &v) == 1)
            p[got++] = (pid_t)v;
        if (fp)
            fclose(fp);
        if (got < n)
            usleep(10000);
    }
    return got;
}

/* 1 when pid is gone (or a zombie nobody reaps), within 3 s. */
static int gone(pid_t pid)
{
    for (int i = 0; i < 300; i++) {
        char path[64], st[256];
        snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
        FILE *fp = fopen(path, "r");
        if (fp == NULL)
            return 1;
        size_t n = fread(st, 1, sizeof st - 1, fp);
        fclose(fp);
        st[n] = '\0';
        char *rp = strrchr(st, ')');
        if (rp && (rp[2] == 'Z' || rp[2] == 'X'))
            return 1;
        usleep(10000);
    }
    return 0;
}

/* A child runs a pool of two sleeping workers with a registered scratch
 * folder; then it gets sig.  Returns the child's wait status. */
static int pool_child(int sig, int install, const char *scratch,
                      pid_t *workers)
{
    snprintf(pidfile, sizeof pidfile, "/tmp/gs-pool-pids-%ld",
             (long)getpid());
    unlink(pidfile);
    pid_t c = fork();
    if (c == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (install)
            gs_cleanup_install();
        if (scratch) {
            mkdir(scratch, 0700);
            char f[256];
            snprintf(f, sizeof f, "%s/run-0.h5", scratch);
            close(open(f, O_WRONLY | O_CREAT, 0600));
            gs_cleanup_add(scratch, 1);
        }
        double r[2];
        struct gs_diag d = { 0 };
        gs_pool_run(2, 2, 1, sleeper, NULL, r, &d);
        _exit(0);
        gs_diag_free(&d);
    }
    int n = read_pids(workers, 2);
    CU_ASSERT_EQUAL(n, 2);
    kill(c, sig);
    int st = 0;
    waitpid(c, &st, 0);
    unlink(pidfile);
    return st;
}

static void test_workers_die_with_parent(void)
{
    pid_t w[2] = { 0, 0 };
    int st = pool_child(SIGKILL, 0, NULL, w);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CU_ASSERT(w[0] > 0 && gone(w[0]));
    CU_ASSERT(w[1] > 0 && gone(w[1]));
}

static void test_signal_cleans_up(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGPIPE };
    for (int i = 0; i < 3; i++) {
        char scratch[64];
        snprintf(scratch, sizeof scratch, "/tmp/gs-pool-scratch-%ld-%d",
                 (long)getpid(), i);
        pid_t w[2] = { 0, 0 };
        int st = pool_child(sigs[i], 1, scratch, w);
        /* died of the same signal: the shell shows 128 + signo */
        CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i]);
        CU_ASSERT(w[0] > 0 && gone(w[0]));
        CU_ASSERT(w[1] > 0 && gone(w[1]));
        struct stat sb;
        CU_ASSERT_EQUAL(stat(scratch, &sb), -1);
        CU_ASSERT_EQUAL(errno, ENOENT);
    }
}

/* A signal ignored when gpusim starts (nohup) stays ignored. */
static void test_ignored_stays_ignored(void)
{
    pid_t c = fork();
    if (c == 0) {
        signal(SIGHUP, SIG_IGN);
        gs_cleanup_install();
        raise(SIGHUP);
        _exit(42);
    }
    int st;
    waitpid(c, &st, 0);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 42);
}

/* gs_cleanup_remove_dir removes a folder of many files (more than one
 * getdents buffer) and the folder. */
static void test_remove_dir(void)
{
    char dir[64], f[128];
    snprintf(dir, sizeof dir, "/tmp/gs-pool-rm-%ld", (long)getpid());
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
    for (int i = 0; i < 400; i++) {
        snprintf(f, sizeof f, "%s/a-rather-long-file-name-%04d.h5", dir, i);
        close(open(f, O_WRONLY | O_CREAT, 0600));
    }
    CU_ASSERT_EQUAL(gs_cleanup_remove_dir(dir), 0);
    struct stat sb;
    CU_ASSERT_EQUAL(stat(dir, &sb), -1);
}

static CU_TestInfo tests[] = {
    { "results in task order with 0..5 workers", test_order },
    { "a killed worker is named by its task", test_crash_named },
    { "a worker's exit status is named", test_exit_named },
    { "a failing task stops the others", test_failure_stops_others },
    { "workers die with their parent", test_workers_die_with_parent },
    { "SIGINT/SIGTERM/SIGPIPE: workers stopped, temporaries removed",
      test_signal_cleans_up },
    { "an ignored signal stays ignored", test_ignored_stays_ignored },
    { "scratch folder removal", test_remove_dir },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("pool", tests)
