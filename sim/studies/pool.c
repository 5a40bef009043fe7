/* pool.c -- isolated worker processes with tasks handed out on demand
 * (pool.h).
 *
 * Each worker shares one Unix stream socket pair with the parent.  The
 * parent sends a task number (an int; -1 means "no more, exit"); the worker
 * runs it and sends back a record (task, rc, nout doubles, and the
 * diagnostic's code and string lengths); a failed task's record is followed
 * by its diagnostic's where and what, as long as they are.  The parent
 * polls every worker's socket, reassembles records (a record can arrive in
 * pieces), reads a failure's strings after it, and hands the worker its
 * next task.  A socket rather
 * than a pipe because send(MSG_NOSIGNAL) to a worker that just died gives
 * EPIPE instead of raising SIGPIPE in the parent, whose handler would take
 * it for a closed standard output.
 *
 * A worker that closes its socket while it holds a task has died: waitpid
 * says how, and the failure names the task.  Every worker closes the parent
 * sides of the workers forked before it, or a dead worker's socket would
 * stay open in its siblings and never read as closed.  Workers are
 * registered with cleanup.h between fork and the parent's next statement,
 * with the handled signals blocked, so a ^C at any moment stops them all. */
#include "pool.h"
#include "../base/cleanup.h"
#include "../base/membudget.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A record starts with a magic number and the size the parent expects, so
 * bytes a plug-in wrote into the worker's socket by mistake (it holds an
 * inherited descriptor) are told apart from a result and fail the task
 * with a message, never an assertion in the parent. */
#define REC_MAGIC 0x67737265u     /* "gsre" */
struct rec {
    unsigned magic, size;
    int task, rc;
    int code;                   /* the task's diagnostic, when rc < 0: */
    unsigned nwhere, nwhat;     /* its strings' lengths, sent after it */
};
/* A longer diagnostic is not one a task wrote (a garbled record). */
#define REC_TEXT_MAX (1u << 24)
/* The doubles follow the header at an 8-byte aligned offset. */
#define HDR ((sizeof(struct rec) + 7) & ~(size_t)7)

struct wk {
    pid_t pid;
    int fd;           /* parent's end; -1 once closed */
    int task;         /* the task it holds, -1 when idle */
    size_t got;       /* bytes of the current record received */
    double since;     /* when it was handed its task (monotonic s) */
};

static double task_timeout;     /* gs_pool_set_timeout; 0: none */

void gs_pool_set_timeout(double seconds)
{
    task_timeout = seconds > 0 ? seconds : 0;
}

int gs_pool_deadline(const char *verb, const char *file)
{
    if (verb == NULL || task_timeout <= 0)
        return gs_cleanup_deadline(0, NULL);
    char *task = NULL;
    if (asprintf(&task, "%s of %s", verb, file) < 0)
        return -1;
    int rc = gs_cleanup_deadline(task_timeout, task);
    free(task);
    return rc;
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 1 when n bytes were read, 0 at a clean end, -1 on error or a cut. */
static int recv_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, p + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return got == 0 && r == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

static void worker(const struct gs_pool_tasks *p, int fd)
{
    size_t sz = HDR + (size_t)p->nout * sizeof(double);
    char *buf = malloc(sz);
    if (buf == NULL)
        _exit(3);
    int t;
    while (recv_all(fd, &t, sizeof t) == 1 && t >= 0 && t < p->ntasks) {
        struct rec *r = (struct rec *)buf;
        memset(buf, 0, sz);
        r->magic = REC_MAGIC;
        r->size = (unsigned)sz;
        r->task = t;
        struct gs_diag d = { 0 };
        r->rc = p->fn(t, (double *)(buf + HDR), p->ctx, &d);
        if (r->rc < 0 && d.code) {
            r->code = d.code;
            r->nwhere = (unsigned)strnlen(d.where, REC_TEXT_MAX);
            r->nwhat = (unsigned)strnlen(d.what, REC_TEXT_MAX);
        }
        if (send_all(fd, buf, sz) < 0 ||
            (r->code && (send_all(fd, d.where, r->nwhere) < 0 ||
                         send_all(fd, d.what, r->nwhat) < 0)))
            _exit(4);
        gs_diag_free(&d);
    }
    _exit(0);
}

/* " (NAME)" for task t's messages, or "" with no name: a new string
 * (free it), or NULL out of memory, which gs_diag_set's "%s" never sees:
 * callers pass it through NAMED(). */
static char *name_task(const struct gs_pool_tasks *p, int t)
{
    char *nm = p->name ? p->name(t, p->ctx) : NULL;
    char *out = nm && nm[0] ? gs_strf(" (%s)", nm) : strdup("");
    free(nm);
    return out;
}

#define NAMED(s) ((s) ? (s) : "")

/* The failure of worker w, which died holding task t. */
static int died(const struct gs_pool_tasks *p, struct wk *w, struct gs_diag *d)
{
    int st = 0;
    pid_t r;
    while ((r = waitpid(w->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    gs_cleanup_forget_pid(w->pid);
    w->pid = 0;
    char how[160];
    char *name = name_task(p, w->task);
    if (r < 0)
        snprintf(how, sizeof how, "vanished");
    else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
        snprintf(how, sizeof how, "was killed by signal 9 (Killed: most "
                 "often the kernel's out-of-memory killer; see --max-memory)");
    else if (WIFSIGNALED(st))
        snprintf(how, sizeof how, "was killed by signal %d (%s)",
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
        snprintf(how, sizeof how, "ran out of memory");
    else
        snprintf(how, sizeof how, "exited with status %d",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    int rc = gs_diag_set(d, GS_EIO, "", "task %d%s: its worker process %s "
                         "before reporting", w->task, NAMED(name), how);
    free(name);
    return rc;
}

/* Worker w held its task past the time limit: killed, reaped, named. */
static int timed_out(const struct gs_pool_tasks *p, struct wk *w,
                     struct gs_diag *d)
{
    pid_t pid = w->pid;
    gs_cleanup_stop_pids(&w->pid, 1, 0);
    gs_cleanup_forget_pid(pid);
    w->pid = 0;
    char *name = name_task(p, w->task);
    int rc = gs_diag_set(d, GS_EIO, "", "task %d%s: still running after "
                         "--task-timeout %g s; its worker was stopped",
                         w->task, NAMED(name), task_timeout);
    free(name);
    return rc;
}

/* A record that is not one (a stray write into the socket, a worker that
 * lost track): the task fails, naming it. */
static int garbled(const struct gs_pool_tasks *p, const struct wk *w,
                   struct gs_diag *d)
{
    char *name = name_task(p, w->task);
    int rc = gs_diag_set(d, GS_EIO, "", "task %d%s: its worker sent a "
                         "message that is not a result (did a plug-in write "
                         "to a descriptor it inherited?)", w->task,
                         NAMED(name));
    free(name);
    return rc;
}

/* A task's failure: its own diagnostic, or when it filled none (a bare
 * code from deep inside), the code's message naming the task. */
static int task_failed(const struct gs_pool_tasks *p, int task, int rc,
                       struct gs_diag *td, struct gs_diag *d)
{
    if (td->code) {
        gs_diag_move(d, td);
        return rc;
    }
    char *name = name_task(p, task);
    rc = gs_diag_set(d, rc, "", "task %d%s: %s", task, NAMED(name),
                     gs_strerror(rc));
    free(name);
    return rc;
}

/* The strings of worker w's failed task rr, sent after its record, into
 * *td.  0, or a negative code with d filled. */
static int receive_diag(const struct gs_pool_tasks *p, struct wk *w,
                        const struct rec *rr, struct gs_diag *td,
                        struct gs_diag *d)
{
    if (rr->code == 0)
        return 0;
    if (rr->code > 0 || rr->nwhere > REC_TEXT_MAX || rr->nwhat > REC_TEXT_MAX)
        return garbled(p, w, d);
    size_t nw = rr->nwhere, nt = rr->nwhat;
    char *s = malloc(nw + nt + 2);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    int got = recv_all(w->fd, s, nw);
    if (got == 1)
        got = recv_all(w->fd, s + nw + 1, nt);
    if (got != 1 && nw + nt > 0) {
        free(s);
        return died(p, w, d);
    }
    s[nw] = s[nw + 1 + nt] = '\0';
    gs_diag_set(td, rr->code, s, "%s", s + nw + 1);
    free(s);
    return 0;
}

static int in_process(const struct gs_pool_tasks *p, double *results,
                      struct gs_diag *d)
{
    for (int t = 0; t < p->ntasks; t++) {
        double *out = results + (size_t)t * (size_t)p->nout;
        struct gs_diag td = { 0 };
        int rc = p->fn(t, out, p->ctx, &td);
        if (rc < 0)
            return task_failed(p, t, rc, &td, d);
        gs_diag_free(&td);
        if (p->done)
            p->done(t, t + 1, out, p->ctx);
    }
    return 0;
}

/* Hand worker w its next task, or tell it to exit.  0 or -1. */
static int feed(struct wk *w, int *next, int ntasks)
{
    int t = *next < ntasks ? (*next)++ : -1;
    w->task = t;
    w->got = 0;
    w->since = mono_now();
    return send_all(w->fd, &t, sizeof t);
}

/* One gs_pool_exec: the workers, their poll entries and receive buffers
 * (sz bytes each: a record), and the count of tasks handed out and done. */
struct run {
    const struct gs_pool_tasks *p;
    double *results;
    struct wk *wk;
    struct pollfd *pf;
    char *buf;
    size_t sz;
    int jobs, started, next, ndone;
};

/* Fork the workers, each handed its first task.  0, or a negative code
 * with d filled (r->started workers were started). */
static int start_workers(struct run *r, struct gs_diag *d)
{
    const struct gs_pool_tasks *p = r->p;
    struct wk *wk = r->wk;
    for (int i = 0; i < r->jobs; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
            return gs_diag_set(d, GS_EIO, "", "cannot create a socket pair "
                               "for a worker: %s", strerror(errno));
        pid_t pid = gs_cleanup_fork();
        if (pid == 0) {
            close(sv[0]);
            for (int k = 0; k < i; k++)
                close(wk[k].fd);
            worker(p, sv[1]);
        }
        int e = errno;
        close(sv[1]);
        if (pid < 0) {
            close(sv[0]);
            return gs_diag_set(d, GS_EIO, "", "cannot start a worker "
                               "process: %s", strerror(e));
        }
        wk[i] = (struct wk){ .pid = pid, .fd = sv[0], .task = -1 };
        r->started++;
        if (feed(&wk[i], &r->next, p->ntasks) < 0)
            return died(p, &wk[i], d);
    }
    return 0;
}

/* With a --task-timeout, fail a worker past it, else *wait_ms is how long
 * poll may wait for the next one to run out (-1: no limit). */
static int check_timeouts(struct run *r, int *wait_ms, struct gs_diag *d)
{
    *wait_ms = -1;
    if (task_timeout <= 0)
        return 0;
    double t = mono_now(), soonest = 1e300;
    for (int i = 0; i < r->started; i++) {
        struct wk *w = &r->wk[i];
        if (w->fd < 0 || w->task < 0)
            continue;
        double left = w->since + task_timeout - t;
        if (left <= 0)
            return timed_out(r->p, w, d);
        if (left < soonest)
            soonest = left;
    }
    *wait_ms = (int)(soonest * 1000) + 1;
    return 0;
}

/* Read what worker i sent; on a whole record store its results, count it
 * done and hand the worker its next task.  0, or a negative code with d
 * filled (the worker died, garbled its record, or its task failed). */
static int receive(struct run *r, int i, struct gs_diag *d)
{
    const struct gs_pool_tasks *p = r->p;
    struct wk *w = &r->wk[i];
    size_t sz = r->sz;
    char *b = r->buf + (size_t)i * sz;
    ssize_t n = recv(w->fd, b + w->got, sz - w->got, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n <= 0)
        return died(p, w, d);
    w->got += (size_t)n;
    const struct rec *rr = (const struct rec *)b;
    if (w->got >= 2 * sizeof(unsigned) &&
        (rr->magic != REC_MAGIC || rr->size != sz))
        return garbled(p, w, d);
    if (w->got < sz)
        return 0;
    if (rr->task != w->task || rr->rc > 0)
        return garbled(p, w, d);
    double *out = r->results + (size_t)rr->task * (size_t)p->nout;
    memcpy(out, b + HDR, (size_t)p->nout * sizeof(double));
    if (rr->rc < 0) {
        struct gs_diag td = { 0 };
        int rc = receive_diag(p, w, rr, &td, d);
        return rc < 0 ? rc : task_failed(p, rr->task, rr->rc, &td, d);
    }
    r->ndone++;
    if (p->done)
        p->done(rr->task, r->ndone, out, p->ctx);
    if (feed(w, &r->next, p->ntasks) < 0 && w->task >= 0)
        return died(p, w, d);
    return 0;
}

/* Receive until every worker is idle and told to exit, or a failure. */
static int serve(struct run *r, struct gs_diag *d)
{
    struct pollfd *pf = r->pf;
    for (;;) {
        int n = 0;
        for (int i = 0; i < r->started; i++)
            if (r->wk[i].fd >= 0 && r->wk[i].task >= 0) {
                pf[n].fd = r->wk[i].fd;
                pf[n].events = POLLIN;
                pf[n].revents = 0;
                n++;
            }
        if (n == 0)
            return 0;
        int wait_ms, rc = check_timeouts(r, &wait_ms, d);
        if (rc < 0)
            return rc;
        if (poll(pf, (nfds_t)n, wait_ms) < 0) {
            if (errno == EINTR)
                continue;
            return gs_diag_set(d, GS_EIO, "", "poll: %s", strerror(errno));
        }
        for (int j = 0, i = 0; j < n; j++) {
            if (!pf[j].revents)
                continue;
            while (r->wk[i].fd != pf[j].fd)
                i++;
            if ((rc = receive(r, i, d)) < 0)
                return rc;
        }
    }
}

/* Stop: idle workers were told to exit; on a failure (rc < 0) the rest are
 * terminated (SIGTERM, SIGKILL after a grace: cleanup.h), so a worker that
 * is stopped or ignores SIGTERM cannot hang gpusim.  Reap them all. */
static void stop_workers(struct run *r, int rc)
{
    struct wk *wk = r->wk;
    for (int i = 0; i < r->started; i++) {
        if (wk[i].pid <= 0)
            continue;
        close(wk[i].fd);
        wk[i].fd = -1;
        pid_t pid = wk[i].pid;
        if (rc < 0) {
            gs_cleanup_stop_pids(&wk[i].pid, 1, GS_CLEANUP_GRACE_MS);
        } else {
            int st;
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        }
        gs_cleanup_forget_pid(pid);
    }
    for (int i = 0; i < r->started; i++)
        if (wk[i].fd >= 0)
            close(wk[i].fd);
}

int gs_pool_exec(const struct gs_pool_tasks *p, double *results, struct gs_diag *d)
{
    if (p->ntasks <= 0)
        return 0;
    if (p->jobs <= 0)
        return in_process(p, results, d);
    struct run r = { .p = p, .results = results,
                     .jobs = p->jobs < p->ntasks ? p->jobs : p->ntasks,
                     .sz = HDR + (size_t)p->nout * sizeof(double) };
    r.wk = calloc((size_t)r.jobs, sizeof *r.wk);
    r.pf = calloc((size_t)r.jobs, sizeof *r.pf);
    r.buf = malloc((size_t)r.jobs * r.sz);
    if (!r.wk || !r.pf || !r.buf) {
        free(r.wk);
        free(r.pf);
        free(r.buf);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    fflush(stdout);
    fflush(stderr);
    gs_mem_set_workers(r.jobs);     /* they share the memory budget */
    int rc = start_workers(&r, d);
    if (rc == 0)
        rc = serve(&r, d);
    stop_workers(&r, rc);
    gs_mem_set_workers(1);
    free(r.wk);
    free(r.pf);
    free(r.buf);
    return rc;
}

int gs_pool_run(int ntasks, int jobs, int nout, gs_pool_fn *fn, void *ctx,
                double *results, struct gs_diag *d)
{
    struct gs_pool_tasks p = { .ntasks = ntasks, .jobs = jobs, .nout = nout,
                         .fn = fn, .ctx = ctx };
    return gs_pool_exec(&p, results, d);
}
