/* test_progress.c -- the progress line of long commands (studies/progress.h).
 *
 * The line is drawn on standard error only when it is a terminal, so the
 * test gives it one: a pseudo-terminal (posix_openpt) whose far end becomes
 * fd 2 for the calls, and whose near end is read back.  What `plan`,
 * `sweep` and `compare` report -- runs done of a total -- must say the
 * total, the share done and, once a rate is known, the time left at that
 * rate; nothing at all is drawn when stderr is not a terminal. */
#include "cutest.h"
#include "../sim/studies/progress.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What was written to the terminal whose near end is fd m (no wait past
 * 1 s), NUL-terminated, into buf. */
static void drain(int m, char *buf, size_t n)
{
    size_t k = 0;
    struct pollfd p = { .fd = m, .events = POLLIN };
    while (k + 1 < n && poll(&p, 1, 1000) > 0) {
        ssize_t r = read(m, buf + k, n - 1 - k);
        if (r <= 0)
            break;
        k += (size_t)r;
        p.revents = 0;
        if (poll(&p, 1, 50) <= 0)
            break;
    }
    buf[k] = '\0';
}

/* Run fn with stderr the far end of a new pseudo-terminal (tty = 1) or
 * /dev/null (tty = 0); what it drew into buf. */
static void with_stderr(int tty, void (*fn)(void), char *buf, size_t n)
{
    buf[0] = '\0';
    int m = tty ? posix_openpt(O_RDWR | O_NOCTTY) : -1;
    if (tty) {
        CU_ASSERT_FATAL(m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0);
    }
    int s = tty ? open(ptsname(m), O_RDWR | O_NOCTTY)
                : open("/dev/null", O_WRONLY);
    CU_ASSERT_FATAL(s >= 0);
    fflush(stderr);
    int saved = dup(2);
    CU_ASSERT_FATAL(saved >= 0 && dup2(s, 2) == 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(s);
    if (tty) {
        drain(m, buf, n);
        close(m);
    }
}

/* 3 of 12 runs, then 6 of 12 a quarter second later, then done. */
static void count_runs(void)
{
    struct gs_progress p;
    gs_progress_init(&p, "plan", 0);
    gs_progress_count(&p, 3, 12, "runs");
    usleep(250000);
    gs_progress_count(&p, 6, 12, "runs");
    gs_progress_end(&p);
}

static void test_total_share_eta(void)
{
    char out[4096];
    with_stderr(1, count_runs, out, sizeof out);
    /* the first line: the total and the share, no time left yet */
    const char *a = strstr(out, "gpusim: plan: 3/12 runs (25%), ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    const char *b = strstr(a, "gpusim: plan: 6/12 runs (50%), ");
    if (b == NULL)
        printf("\n    drawn: %s", out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NULL(strstr(a, "left") < b ? strstr(a, "left") : NULL);
    /* the second: the rate, and at it the time the other half takes --
     * as long as the first half took (a quarter second at least) */
    double rate = 0, secs = -1;
    CU_ASSERT_EQUAL(sscanf(b, "gpusim: plan: 6/12 runs (50%%), %lf runs/s, "
                           "about %lf s left", &rate, &secs), 2);
    CU_ASSERT(rate > 0 && rate <= 6 / 0.25 + 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(secs, 6 / rate, 0.5 + 1e-9);
    /* rewritten in place, and erased at the end */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\r"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "\r\033[K"));
}

/* stderr not a terminal: not on, nothing drawn. */
static void count_off(void)
{
    struct gs_progress p;
    gs_progress_init(&p, "plan", 0);
    CU_ASSERT_EQUAL(p.on, 0);
    gs_progress_count(&p, 3, 12, "runs");
    CU_ASSERT_EQUAL(p.drawn, 0);
}

/* --quiet on a terminal: the same. */
static void count_quiet(void)
{
    struct gs_progress p;
    gs_progress_init(&p, "plan", 1);
    gs_progress_count(&p, 3, 12, "runs");
    gs_progress_end(&p);
}

static void test_not_a_terminal(void)
{
    char out[256];
    with_stderr(0, count_off, out, sizeof out);
    with_stderr(1, count_quiet, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "");
}

static CU_TestInfo tests[] = {
    { "runs done of a total: share and time left", test_total_share_eta },
    { "no line off a terminal or under --quiet", test_not_a_terminal },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("progress", tests)
