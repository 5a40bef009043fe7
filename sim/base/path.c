/* path.c -- file paths built in memory, never cut to a buffer (path.h). */
#include "path.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *gs_path_join(const char *dir, const char *path)
{
    char *out = NULL;
    if (path[0] == '/' || dir == NULL || dir[0] == '\0')
        return strdup(path);
    return asprintf(&out, "%s/%s", dir, path) < 0 ? NULL : out;
}

char *gs_path_dir(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (slash == NULL)
        return strdup(".");
    if (slash == file)
        return strdup("/");
    return strndup(file, (size_t)(slash - file));
}

static struct { dev_t dev; ino_t ino; } inputs[64];
static int ninputs;

void gs_input_note(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return;
    for (int i = 0; i < ninputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
            return;
    int k = ninputs < 64 ? ninputs++ : 63;  /* the newest kept */
    inputs[k].dev = st.st_dev;
    inputs[k].ino = st.st_ino;
}

void gs_input_reset(void)
{
    ninputs = 0;
}

int gs_input_is(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    for (int i = 0; i < ninputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
            return 1;
    return 0;
}

int gs_fopen_regular(const char *path, const char *what, long long max,
                     FILE **out, struct gs_diag *d)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return gs_diag_set(d, GS_EIO, path, "cannot open: %s",
                           strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return gs_diag_set(d, GS_EINVAL, path, "%s must be a regular file, "
                           "and this is %s", what,
                           S_ISDIR(st.st_mode) ? "a folder"
                           : S_ISFIFO(st.st_mode) ? "a pipe (FIFO)"
                           : S_ISCHR(st.st_mode) ? "a character device"
                           : S_ISBLK(st.st_mode) ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
    }
    if (max > 0 && st.st_size > max) {
        close(fd);
        return gs_diag_set(d, GS_EINVAL, path, "%lld bytes, more than the "
                           "%lld bytes %s may have", (long long)st.st_size, max,
                           what);
    }
    gs_input_note(fd);
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ||
        (*out = fdopen(fd, "rb")) == NULL) {
        int e = errno;
        close(fd);
        return gs_diag_set(d, e == ENOMEM ? GS_ENOMEM : GS_EIO, path,
                           "cannot open: %s", strerror(e));
    }
    return 0;
}
