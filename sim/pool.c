/* pool.c -- forked workers with results through pipes (see pool.h).
 *
 * A record on a worker's pipe is (task, rc, diag, nout doubles), written
 * with one write() each; the parent reads each pipe to its end in turn (a
 * worker blocked on a full pipe just waits for its turn), then reaps every
 * worker.  A worker that dies without reporting all its tasks is an error
 * naming the first task it lost. */
#include "pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct rec {
    int task, rc;
    struct gs_diag d;
};
/* The doubles follow the header at an 8-byte aligned offset. */
#define HDR ((sizeof(struct rec) + 7) & ~(size_t)7)

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

static void worker(int w, int jobs, int ntasks, int nout, gs_pool_fn *fn,
                   void *ctx, int fd)
{
    size_t sz = HDR + (size_t)nout * sizeof(double);
    char *buf = calloc(1, sz);
    if (buf == NULL)
        _exit(3);
    for (int t = w; t < ntasks; t += jobs) {
        struct rec *r = (struct rec *)buf;
        memset(buf, 0, sz);
        r->task = t;
        r->rc = fn(t, (double *)(buf + HDR), ctx, &r->d);
        if (write_all(fd, buf, sz) < 0)
            _exit(4);
    }
    free(buf);
    close(fd);
    _exit(0);
}

int gs_pool_run(int ntasks, int jobs, int nout, gs_pool_fn *fn, void *ctx,
                double *results, struct gs_diag *d)
{
    if (jobs > ntasks)
        jobs = ntasks;
    if (jobs <= 1) {
        for (int t = 0; t < ntasks; t++) {
            int rc = fn(t, results + (size_t)t * nout, ctx, d);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    int *fds = calloc((size_t)jobs, sizeof *fds);
    pid_t *pids = calloc((size_t)jobs, sizeof *pids);
    char *done = calloc((size_t)ntasks, 1);
    size_t sz = HDR + (size_t)nout * sizeof(double);
    char *buf = malloc(sz);
    if (!fds || !pids || !done || !buf) {
        free(fds);
        free(pids);
        free(done);
        free(buf);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    fflush(stdout);
    fflush(stderr);
    int started = 0, rc = 0;
    for (int w = 0; w < jobs; w++) {
        int p[2];
        if (pipe(p) < 0) {
            rc = gs_diag_set(d, GS_EIO, "", "cannot create a pipe: %s",
                             strerror(errno));
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            close(p[0]);
            close(p[1]);
            rc = gs_diag_set(d, GS_EIO, "", "cannot fork a worker: %s",
                             strerror(errno));
            break;
        }
        if (pid == 0) {
            close(p[0]);
            for (int k = 0; k < w; k++)
                close(fds[k]);
            worker(w, jobs, ntasks, nout, fn, ctx, p[1]);
        }
        close(p[1]);
        fds[w] = p[0];
        pids[w] = pid;
        started++;
    }
    for (int w = 0; w < started; w++) {
        int got;
        while ((got = read_all(fds[w], buf, sz)) == 1) {
            const struct rec *r = (const struct rec *)buf;
            if (r->task < 0 || r->task >= ntasks)
                continue;
            done[r->task] = 1;
            memcpy(results + (size_t)r->task * nout, buf + HDR,
                   (size_t)nout * sizeof(double));
            if (r->rc < 0 && rc == 0) {
                rc = r->rc;
                if (d && !d->code)
                    *d = r->d;
            }
        }
        close(fds[w]);
    }
    for (int w = 0; w < started; w++) {
        int st;
        while (waitpid(pids[w], &st, 0) < 0 && errno == EINTR)
            ;
    }
    for (int t = 0; t < ntasks && rc == 0 && started == jobs; t++)
        if (!done[t])
            rc = gs_diag_set(d, GS_EIO, "", "a worker process died before "
                             "reporting task %d", t);
    free(fds);
    free(pids);
    free(done);
    free(buf);
    return rc;
}
