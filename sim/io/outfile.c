/* outfile.c -- exclusive temporaries renamed into place (outfile.h).
 *
 * The stem of a target's temporaries, ".BASE.gpusim-tmp-", depends only
 * on the target's file name, so the next write of the same target finds
 * the stale ones: each is ".STEM" + PID + "-" + six characters, and is
 * removed when kill(PID, 0) says no such process.  A live PID (ours, or a
 * concurrent gpusim writing the same file) is left alone.  PID reuse can
 * only make us keep a stale temporary a while longer, never remove a live
 * one. */
#include "outfile.h"
#include "../base/path.h"
#include "../base/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_TAG ".gpusim-tmp-"

/* Where a result named "-" goes: standard output as it was when the
 * command claimed it (gs_out_check), or -1 before that. */
static int stdout_fd = -1;

static int is_stdout(const char *path)
{
    return strcmp(path, "-") == 0;
}

/* The folder of "-"'s temporary: $TMPDIR, or /tmp. */
static const char *tmp_dir(void)
{
    const char *t = getenv("TMPDIR");
    return t && t[0] == '/' ? t : "/tmp";
}

/* Take standard output for the result: what the command prints from now
 * on goes to stderr, so the result's bytes reach stdout alone. */
static int claim_stdout(struct gs_diag *d)
{
    if (stdout_fd >= 0)
        return 0;
    fflush(stdout);
    int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return gs_diag_set(d, GS_EIO, "-", "cannot use the standard output: "
                           "%s", strerror(errno));
    if (dup2(2, 1) < 0) {
        int e = errno;
        close(fd);
        return gs_diag_set(d, GS_EIO, "-", "cannot use the standard output: "
                           "%s", strerror(e));
    }
    stdout_fd = fd;
    return 0;
}

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* Where a name's folder part ends: the byte after the last '/', or 0. */
static size_t base_at(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? (size_t)(s - p) + 1 : 0;
}

static char *stem_of(const char *target);

int gs_out_check(const char *path, struct gs_diag *d)
{
    if (path == NULL || path[0] == '\0')
        return gs_diag_set(d, GS_EINVAL, "(empty name)", "the result file "
                           "name is empty");
    if (is_stdout(path))
        return claim_stdout(d);
    size_t len = strlen(path), b = base_at(path);
    if (len >= PATH_MAX)
        return gs_diag_set(d, GS_EINVAL, "(long path)", "the result path is "
                           "%zu characters long; the limit is %d (PATH_MAX)",
                           len, PATH_MAX - 1);
    if (path[b] == '\0')
        return gs_diag_set(d, GS_EINVAL, path, "names a folder (it ends "
                           "with '/'), not a file");
    if (len - b > NAME_MAX)
        return gs_diag_set(d, GS_EINVAL, path, "the file name is %zu "
                           "characters long; the limit is %d (NAME_MAX)",
                           len - b, NAME_MAX);
    /* the temporary beside it (gs_out_begin) must fit too: refused now,
     * as bad input, rather than after the simulation */
    char *stem = is_stdout(path) ? NULL : stem_of(path), pid[24];
    snprintf(pid, sizeof pid, "%ld-XXXXXX", (long)getpid());
    size_t tn = stem ? b + strlen(stem) + strlen(pid) + 1 : 0;
    free(stem);
    if (tn > PATH_MAX)
        return gs_diag_set(d, GS_EINVAL, path, "the path is too long to "
                           "write safely: a temporary file beside it would "
                           "have %zu characters, over the limit of %d "
                           "(PATH_MAX)", tn - 1, PATH_MAX - 1);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
            return gs_diag_set(d, GS_EINVAL, path, "is a symbolic link to a "
                               "missing file (%s); gpusim writes through "
                               "links only to existing files",
                               strerror(errno));
        if (!S_ISREG(st.st_mode))
            return gs_diag_set(d, GS_EINVAL, path, "is %s, not a regular "
                               "file; name a file to write the results to",
                               kind_of(st.st_mode));
        if (gs_input_is(path))
            return gs_diag_set(d, GS_EINVAL, path, "is an input of this run "
                               "(the scenario or a file it reads); writing "
                               "the results there would replace it: name "
                               "another file");
        return 0;
    }
    if (errno != ENOENT)
        return gs_diag_set(d, GS_EIO, path, "cannot write: %s",
                           strerror(errno));
    if (b > 0) {
        char *dir = strndup(path, b);
        if (dir == NULL)
            return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        int ok = stat(dir, &st) == 0, e = errno;
        free(dir);
        if (!ok)
            return gs_diag_set(d, GS_EIO, path, "cannot write into its "
                               "folder: %s", strerror(e));
        if (!S_ISDIR(st.st_mode))
            return gs_diag_set(d, GS_EIO, path, "cannot write: a part of "
                               "the path is not a folder");
    }
    return 0;
}

int gs_out_check_seekable(const char *path, struct gs_diag *d)
{
    struct stat st;
    if (path && is_stdout(path) && stdout_fd < 0 &&
        (fstat(1, &st) != 0 || !S_ISREG(st.st_mode)))
        return gs_diag_set(d, GS_EINVAL, "-", "an HDF5 file needs a file it "
                           "can seek in, and the standard output is %s; "
                           "redirect it to a file (> results.h5) or give "
                           "--out FILE", fstat(1, &st) != 0 ? "closed" :
                           kind_of(st.st_mode));
    return gs_out_check(path, d);
}

/* ".BASE" + TMP_TAG for target's file name, BASE cut so that STEM + PID +
 * "-XXXXXX" fits NAME_MAX.  Malloc'ed, or NULL. */
static char *stem_of(const char *target)
{
    const char *base = is_stdout(target) ? "stdout" : target + base_at(target);
    size_t room = NAME_MAX - 1 - strlen(TMP_TAG) - 10 - 7;
    size_t n = strlen(base);
    if (n > room)
        n = room;
    char *s = malloc(1 + n + strlen(TMP_TAG) + 1);
    if (s == NULL)
        return NULL;
    s[0] = '.';
    memcpy(s + 1, base, n);
    strcpy(s + 1 + n, TMP_TAG);
    return s;
}

/* Remove name (a file, or a scratch folder) in dir when it is a
 * temporary of stem whose process is gone. */
static void maybe_stale(const char *dir, const char *name, const char *stem)
{
    size_t sl = strlen(stem);
    if (strncmp(name, stem, sl) != 0)
        return;
    const char *p = name + sl;
    char *end;
    errno = 0;
    long pid = strtol(p, &end, 10);
    if (end == p || errno || pid <= 0 || *end != '-' || strlen(end) != 7)
        return;
    if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
        return;
    size_t n = strlen(dir) + strlen(name) + 2;
    char *full = malloc(n);
    if (full == NULL)
        return;
    snprintf(full, n, "%s/%s", dir, name);
    struct stat st;
    if (lstat(full, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            gs_cleanup_remove_dir(full);
        else if (S_ISREG(st.st_mode))
            unlink(full);
    }
    free(full);
}

static void remove_stale(const char *target, const char *stem)
{
    size_t b = base_at(target);
    char *dir = is_stdout(target) ? strdup(tmp_dir())
                : b ? strndup(target, b) : strdup(".");
    DIR *dp = dir ? opendir(dir) : NULL;
    if (dp) {
        struct dirent *e;
        while ((e = readdir(dp)) != NULL)
            maybe_stale(dir, e->d_name, stem);
        closedir(dp);
    }
    free(dir);
}

/* The target (symlinks resolved) and the template of its temporary. */
static int names(const char *path, char **target, char **tmpl,
                 struct gs_diag *d)
{
    *target = *tmpl = NULL;
    int rc = gs_out_check(path, d);
    if (rc < 0)
        return rc;
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        *target = realpath(path, NULL);
        if (*target == NULL)
            return gs_diag_set(d, GS_EIO, path, "cannot resolve the "
                               "symbolic link: %s", strerror(errno));
    } else {
        *target = strdup(path);
    }
    char *stem = *target ? stem_of(*target) : NULL;
    if (stem == NULL) {
        free(*target);
        free(stem);
        *target = NULL;
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    remove_stale(*target, stem);
    /* "-": the temporary is in $TMPDIR, copied to stdout at commit */
    const char *dir = is_stdout(*target) ? tmp_dir() : *target;
    size_t b = is_stdout(*target) ? strlen(dir) + 1 : base_at(*target);
    char pid[24];
    snprintf(pid, sizeof pid, "%ld-XXXXXX", (long)getpid());
    size_t n = b + strlen(stem) + strlen(pid) + 1;
    if (n > PATH_MAX) {
        free(stem);
        free(*target);
        *target = NULL;
        return gs_diag_set(d, GS_EINVAL, path, "the path is too long to "
                           "write safely: a temporary file beside it would "
                           "have %zu characters, over the limit of %d "
                           "(PATH_MAX)", n - 1, PATH_MAX - 1);
    }
    *tmpl = malloc(n);
    if (*tmpl == NULL) {
        free(stem);
        free(*target);
        *target = NULL;
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    memcpy(*tmpl, dir, b);
    if (is_stdout(*target))
        (*tmpl)[b - 1] = '/';
    snprintf(*tmpl + b, n - b, "%s%s", stem, pid);
    free(stem);
    return 0;
}

int gs_out_begin(struct gs_out *o, const char *path, struct gs_diag *d)
{
    o->target = o->tmp = NULL;
    o->fd = -1;
    char *target, *tmpl;
    int rc = names(path, &target, &tmpl, d);
    if (rc < 0)
        return rc;
    gs_cleanup_block();
    int fd = mkostemp(tmpl, O_CLOEXEC);
    int e = errno;
    if (fd >= 0 && gs_cleanup_add(tmpl, 0) < 0) {
        close(fd);
        unlink(tmpl);
        fd = -1;
        e = ENOMEM;
    }
    gs_cleanup_unblock();
    if (fd < 0) {
        free(tmpl);
        free(target);
        return gs_diag_set(d, e == ENOMEM ? GS_ENOMEM : GS_EIO, path,
                           "cannot create a file in its folder: %s",
                           strerror(e));
    }
    /* a file replaced keeps its permissions (a result kept 0600 stays
     * private); a new one gets 0666 less the umask, as open() would */
    struct stat ts;
    if (stat(target, &ts) == 0 && S_ISREG(ts.st_mode)) {
        fchmod(fd, ts.st_mode & 07777);
    } else {
        mode_t um = umask(0);
        umask(um);
        fchmod(fd, 0666 & ~um);
    }
    o->target = target;
    o->tmp = tmpl;
    o->fd = fd;
    return 0;
}

static void release(struct gs_out *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->tmp)
        gs_cleanup_forget(o->tmp);
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
}

/* Copy the finished temporary to the claimed standard output. */
static int copy_out(const char *tmp, struct gs_diag *d)
{
    int in = open(tmp, O_RDONLY | O_CLOEXEC), rc = 0;
    if (in < 0)
        return gs_diag_set(d, GS_EIO, "-", "cannot read back %s: %s", tmp,
                           strerror(errno));
    int out = stdout_fd >= 0 ? stdout_fd : 1;
    char buf[65536];
    ssize_t got;
    while (rc == 0 && (got = read(in, buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno != EINTR)
                rc = gs_diag_set(d, GS_EIO, "-", "cannot read back %s: %s",
                                 tmp, strerror(errno));
            continue;
        }
        for (ssize_t at = 0; rc == 0 && at < got;) {
            ssize_t put = write(out, buf + at, (size_t)(got - at));
            if (put < 0 && errno == EINTR)
                continue;
            if (put <= 0)
                rc = gs_diag_set(d, GS_EIO, "-", "cannot write the standard "
                                 "output: %s", strerror(errno));
            else
                at += put;
        }
    }
    close(in);
    return rc;
}

int gs_out_commit(struct gs_out *o, struct gs_diag *d)
{
    int rc = 0;
    if (o->fd >= 0 && close(o->fd) != 0)
        rc = gs_diag_set(d, GS_EIO, o->target, "cannot write: %s",
                         strerror(errno));
    o->fd = -1;
    if (rc == 0 && is_stdout(o->target)) {
        rc = copy_out(o->tmp, d);
        unlink(o->tmp);
        release(o);
        return rc;
    }
    if (rc == 0 && rename(o->tmp, o->target) != 0)
        rc = gs_diag_set(d, GS_EIO, o->target, "cannot move the finished "
                         "file into place (from %s): %s", o->tmp,
                         strerror(errno));
    if (rc < 0)
        unlink(o->tmp);
    release(o);
    return rc;
}

void gs_out_abort(struct gs_out *o)
{
    if (o == NULL)
        return;
    if (o->tmp)
        unlink(o->tmp);
    release(o);
}

int gs_out_scratch(const char *path, char **dir, struct gs_diag *d)
{
    *dir = NULL;
    char *target, *tmpl;
    int rc = names(path, &target, &tmpl, d);
    if (rc < 0)
        return rc;
    free(target);
    gs_cleanup_block();
    int ok = mkdtemp(tmpl) != NULL;
    int e = errno;
    if (ok && gs_cleanup_add(tmpl, 1) < 0) {
        rmdir(tmpl);
        ok = 0;
        e = ENOMEM;
    }
    gs_cleanup_unblock();
    if (!ok) {
        free(tmpl);
        return gs_diag_set(d, e == ENOMEM ? GS_ENOMEM : GS_EIO, path,
                           "cannot create a scratch folder beside it: %s",
                           strerror(e));
    }
    *dir = tmpl;
    return 0;
}

void gs_out_scratch_remove(char **dir)
{
    if (dir == NULL || *dir == NULL)
        return;
    gs_cleanup_remove_dir(*dir);
    gs_cleanup_forget(*dir);
    free(*dir);
    *dir = NULL;
}

char *gs_out_default_name(const char *arg, const char *suffix)
{
    const char *base = is_stdout(arg) ? "stdin" : arg + base_at(arg);
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    if (n == 0) {
        base = "gpusim";
        n = strlen(base);
    }
    char *s = malloc(n + strlen(suffix) + 1);
    if (s == NULL)
        return NULL;
    memcpy(s, base, n);
    strcpy(s + n, suffix);
    return s;
}

int gs_out_check_new(const char *path, int force, struct gs_diag *d)
{
    struct stat st;
    if (force || lstat(path, &st) != 0)
        return 0;
    return gs_diag_set(d, GS_EINVAL, path, "exists, and gpusim does not "
                       "replace a result silently: give --force to replace "
                       "it, or --out FILE to name another");
}
