/* cleanup.h -- what an interrupted gpusim undoes: temporaries and workers.
 *
 * A process that writes results keeps a registry of what it must not leave
 * behind: temporary files, scratch folders (removed with the files directly
 * inside them) and worker processes (sent SIGTERM and reaped).  On SIGINT,
 * SIGTERM, SIGHUP or SIGPIPE the handler installed by gs_cleanup_install
 * undoes all of it, then dies of the same signal with the default action,
 * so the shell reports the conventional status 128 + signo (130 for ^C,
 * 141 for a closed pipe, 143 for kill) and a calling script sees that its
 * child was interrupted (the rule of the GNU coding standards and of bash's
 * "wait and cooperative exit").  A signal the process inherited as ignored
 * (nohup, a background job of a non-interactive shell) stays ignored.
 *
 * The handler only makes async-signal-safe calls: kill, waitpid, unlink,
 * rmdir, open, close and the raw getdents64 system call to list a scratch
 * folder (opendir may allocate).  The registry is changed with those
 * signals blocked, so the handler never sees it half-updated.
 *
 * A forked worker calls gs_cleanup_forked: it forgets its parent's
 * registry (the parent owns those), keeps handlers for its own temporaries,
 * and dies with SIGTERM when its parent dies (PR_SET_PDEATHSIG), so no
 * worker outlives an interrupted or killed gpusim. */
#ifndef GS_CLEANUP_H
#define GS_CLEANUP_H

#include <sys/types.h>

/* Install the handlers (idempotent).  The CLI calls it first thing. */
void gs_cleanup_install(void);

/* Register a temporary file, or a scratch folder (dir != 0) whose files
 * are removed with it.  The path is copied.  0, or -1 when out of memory
 * (the caller then treats the temporary as uncreatable). */
int gs_cleanup_add(const char *path, int dir);
/* Forget a registered path (it was renamed into place or removed). */
void gs_cleanup_forget(const char *path);

/* Register / forget a worker process to stop on a signal. */
int gs_cleanup_add_pid(pid_t pid);
/* How long stopped workers get to exit after SIGTERM before SIGKILL. */
#define GS_CLEANUP_GRACE_MS 2000
/* Stop the processes p[0..n-1] (0 entries skipped): SIGTERM and SIGCONT
 * (a stopped one wakes to die), up to grace_ms for them to exit, then
 * SIGKILL to those left; all reaped, their entries set to 0.
 * Async-signal-safe (the signal handler uses it). */
void gs_cleanup_stop_pids(pid_t *p, int n, int grace_ms);
void gs_cleanup_forget_pid(pid_t pid);

/* Block / unblock the handled signals (around fork and registry changes
 * a caller must keep together). */
void gs_cleanup_block(void);
void gs_cleanup_unblock(void);

/* In a freshly forked worker (signals still blocked by the parent's
 * gs_cleanup_block): drop the parent's registry, make the worker die when
 * parent_pid does, install the handlers, unblock. */
void gs_cleanup_forked(pid_t parent_pid);

/* --task-timeout for a command whose one task runs in this process (run,
 * place-exp, replay-check: they have no worker to kill): after `seconds`
 * of wall time, SIGALRM's handler writes "gpusim: TASK: still running
 * after --task-timeout S s; stopped, nothing written", stops the workers,
 * removes the temporaries and exits with status 1, whatever the process is
 * doing (a plug-in's hook that loops forever included).  seconds <= 0 or
 * task NULL disarms it (a command that ends in time disarms it before
 * returning).  0, or -1 out of memory or when the timer cannot be set. */
int gs_cleanup_deadline(double seconds, const char *task);

/* fork() with the child registered to be stopped on a signal: the handled
 * signals are blocked from before the fork until the parent has the pid in
 * its registry, so a ^C at any moment stops the child, and the child has
 * called gs_cleanup_forked when this returns 0 in it.  The child's pid in
 * the parent, 0 in the child, or -1 with errno set (ENOMEM: the child could
 * not be registered, and was killed and reaped).  Flush stdio first. */
pid_t gs_cleanup_fork(void);

/* Remove the files directly inside folder path, then the folder; the same
 * code the handler uses.  0, or -1 with errno set. */
int gs_cleanup_remove_dir(const char *path);

#endif
