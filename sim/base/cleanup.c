/* cleanup.c -- remove temporaries and stop workers on a signal (cleanup.h).
 *
 * Two small arrays, changed only with the handled signals blocked: paths
 * (each a malloc'ed copy with a folder flag) and worker pids.  The handler
 * reads them as they stand.  It first stops the workers (SIGTERM and
 * SIGCONT, so a stopped worker wakes to die; then waitpid, so a worker
 * that is renaming its own temporary has finished or removed it before its
 * folder goes; a worker still alive after GS_CLEANUP_GRACE_MS -- a hook
 * that ignores SIGTERM or loops with it blocked -- gets SIGKILL), then
 * removes the paths newest first
 * (files inside a scratch folder are registered after the folder), then
 * restores the default action and re-raises the signal. */
#include "cleanup.h"
#include "once.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NSIGS ((int)(sizeof sigs / sizeof sigs[0]))

/* gs_cleanup_deadline's message, written by its SIGALRM handler. */
static char *deadline_msg;
static size_t deadline_len;

struct ent {
    char *path;
    int dir;
};

static struct ent *ents;
static int nents, capents;
static pid_t *pids;
static int npids, cappids;
static int installed;

/* The handled signals, SIGALRM (the deadline) among them. */
static void handled(sigset_t *s)
{
    sigemptyset(s);
    for (int i = 0; i < NSIGS; i++)
        sigaddset(s, sigs[i]);
    sigaddset(s, SIGALRM);
}

void gs_cleanup_block(void)
{
    sigset_t s;
    handled(&s);
    sigprocmask(SIG_BLOCK, &s, NULL);
}

void gs_cleanup_unblock(void)
{
    sigset_t s;
    handled(&s);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
}

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Async-signal-safe: unlink every non-folder entry of path, rmdir it. */
int gs_cleanup_remove_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    for (int pass = 0; pass < 8; pass++) {
        int removed = 0;
        char buf[4096] __attribute__((aligned(8)));
        long n;
        lseek(fd, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + off);
                off += e->d_reclen;
                const char *nm = e->d_name;
                if (nm[0] == '.' && (nm[1] == '\0' ||
                                     (nm[1] == '.' && nm[2] == '\0')))
                    continue;
                if (unlinkat(fd, nm, 0) == 0)
                    removed++;
            }
        }
        if (!removed)
            break;
    }
    close(fd);
    return rmdir(path);
}

void gs_cleanup_stop_pids(pid_t *p, int n, int grace_ms)
{
    for (int i = 0; i < n; i++)
        if (p[i] > 0) {
            kill(p[i], SIGTERM);    /* queued: acted on once continued */
            kill(p[i], SIGCONT);    /* a stopped worker (^Z, SIGSTOP) */
        }
    int left = 0;
    for (int ms = 0;; ms += 10) {
        left = 0;
        for (int i = 0; i < n; i++)
            if (p[i] > 0) {
                pid_t r = waitpid(p[i], NULL, WNOHANG);
                if (r == 0)
                    left++;
                else if (r == p[i] || (r < 0 && errno == ECHILD))
                    p[i] = 0;           /* reaped: its id may be reused */
            }
        if (left == 0 || ms >= grace_ms)
            break;
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (left == 0)
        return;
    for (int i = 0; i < n; i++)
        if (p[i] > 0 && kill(p[i], SIGKILL) == 0)
            while (waitpid(p[i], NULL, 0) < 0 && errno == EINTR)
                ;
}

/* Async-signal-safe: stop the workers, remove the temporaries. */
static void undo(void)
{
    gs_cleanup_stop_pids(pids, npids, GS_CLEANUP_GRACE_MS);
    for (int i = nents - 1; i >= 0; i--) {
        if (ents[i].dir)
            gs_cleanup_remove_dir(ents[i].path);
        else
            unlink(ents[i].path);
    }
}

static void on_signal(int sig)
{
    undo();
    signal(sig, SIG_DFL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* The deadline passed: say which task, undo, exit 1 (a task that failed,
 * as a worker's task past --task-timeout fails a compare). */
static void on_deadline(int sig)
{
    (void)sig;
    if (deadline_msg && write(2, deadline_msg, deadline_len) < 0)
        deadline_len = 0;
    undo();
    _exit(1);
}

int gs_cleanup_deadline(double seconds, const char *task)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);      /* disarmed first */
    gs_cleanup_block();
    free(deadline_msg);
    deadline_msg = NULL;
    deadline_len = 0;
    gs_cleanup_unblock();
    if (seconds <= 0 || task == NULL)
        return 0;
    char *msg = NULL;
    int n = asprintf(&msg, "gpusim: %s: still running after --task-timeout "
                     "%g s; stopped, nothing written\n", task, seconds);
    if (n < 0)
        return -1;
    gs_cleanup_block();
    deadline_msg = msg;
    deadline_len = (size_t)n;
    gs_cleanup_unblock();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_deadline;
    handled(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds)
                                        * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        it.it_value.tv_usec = 1;
    return setitimer(ITIMER_REAL, &it, NULL);
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSIGS; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    for (int i = 0; i < NSIGS; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
    installed = 1;
}

void gs_cleanup_install(void)
{
    if (!installed)
        install_handlers();
    gs_once_init();     /* before any worker is forked (once.h) */
}

int gs_cleanup_add(const char *path, int dir)
{
    char *p = strdup(path);
    if (p == NULL)
        return -1;
    gs_cleanup_block();
    if (nents == capents) {
        int nc = capents ? 2 * capents : 16;
        struct ent *ne = realloc(ents, (size_t)nc * sizeof *ne);
        if (ne == NULL) {
            gs_cleanup_unblock();
            free(p);
            return -1;
        }
        ents = ne;
        capents = nc;
    }
    ents[nents].path = p;
    ents[nents].dir = dir;
    nents++;
    gs_cleanup_unblock();
    return 0;
}

void gs_cleanup_forget(const char *path)
{
    char *gone = NULL;
    gs_cleanup_block();
    for (int i = nents - 1; i >= 0; i--)
        if (strcmp(ents[i].path, path) == 0) {
            gone = ents[i].path;
            memmove(&ents[i], &ents[i + 1],
                    (size_t)(nents - i - 1) * sizeof *ents);
            nents--;
            break;
        }
    if (nents == 0) {
        free(ents);
        ents = NULL;
        capents = 0;
    }
    gs_cleanup_unblock();
    free(gone);
}

int gs_cleanup_add_pid(pid_t pid)
{
    gs_cleanup_block();
    if (npids == cappids) {
        int nc = cappids ? 2 * cappids : 16;
        pid_t *np = realloc(pids, (size_t)nc * sizeof *np);
        if (np == NULL) {
            gs_cleanup_unblock();
            return -1;
        }
        pids = np;
        cappids = nc;
    }
    pids[npids++] = pid;
    gs_cleanup_unblock();
    return 0;
}

void gs_cleanup_forget_pid(pid_t pid)
{
    gs_cleanup_block();
    for (int i = 0; i < npids; i++)
        if (pids[i] == pid) {
            pids[i] = pids[--npids];
            break;
        }
    if (npids == 0) {
        free(pids);
        pids = NULL;
        cappids = 0;
    }
    gs_cleanup_unblock();
}

void gs_cleanup_forked(pid_t parent_pid)
{
    free(deadline_msg);     /* the parent's deadline (its timer is not */
    deadline_msg = NULL;    /* inherited: fork clears it) */
    deadline_len = 0;
    signal(SIGALRM, SIG_DFL);
    for (int i = 0; i < nents; i++)
        free(ents[i].path);
    free(ents);
    ents = NULL;
    nents = capents = 0;
    free(pids);
    pids = NULL;
    npids = cappids = 0;
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    install_handlers();
    gs_cleanup_unblock();
    if (getppid() != parent_pid)    /* the parent died before prctl */
        raise(SIGTERM);
}

pid_t gs_cleanup_fork(void)
{
    pid_t parent = getpid();
    gs_cleanup_block();
    pid_t pid = fork();
    if (pid == 0) {
        gs_cleanup_forked(parent);
        return 0;
    }
    int e = errno;
    if (pid > 0 && gs_cleanup_add_pid(pid) < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        pid = -1;
        e = ENOMEM;
    }
    gs_cleanup_unblock();
    errno = e;
    return pid;
}
