/* gnuplot.c -- run gnuplot on a script so that no user string becomes code.
 *
 * See gnuplot.h for why: user strings go in as gnuplot -c arguments, which
 * gnuplot keeps as string variables and never parses, and every path is
 * absolute so gnuplot cannot take it for a pipe ('<cmd', '|cmd').  The
 * child gets /dev/null as standard input; argv is built in allocated
 * memory, so no argument is ever cut. */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

char *gs_gnuplot_path(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char *cwd = getcwd(NULL, 0);
    if (cwd == NULL)
        return NULL;
    const char *rel = path;
    while (rel[0] == '.' && rel[1] == '/')
        rel += 2;
    char *out = NULL;
    int n = rel[0] == '\0' || strcmp(rel, ".") == 0
                ? asprintf(&out, "%s", cwd)
                : asprintf(&out, "%s%s%s", cwd,
                           cwd[strlen(cwd) - 1] == '/' ? "" : "/", rel);
    free(cwd);
    return n < 0 ? NULL : out;
}

int gs_gnuplot_run(const char *script, const char *const *args, int nargs)
{
    if (script[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    for (int i = 0; i < nargs; i++)
        if (args[i][0] == '<' || args[i][0] == '|') {
            errno = EINVAL;     /* the caller forgot gs_gnuplot_path */
            return -1;
        }
    char **argv = calloc((size_t)nargs + 4, sizeof *argv);
    if (argv == NULL)
        return -1;
    argv[0] = "gnuplot";
    argv[1] = "-c";
    argv[2] = (char *)script;
    for (int i = 0; i < nargs; i++)
        argv[3 + i] = (char *)args[i];
    posix_spawn_file_actions_t fa;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
                                              0);
    pid_t pid;
    if (rc == 0)
        rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -2;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -2;
}
