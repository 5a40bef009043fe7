/* hostile.h -- names a hostile user might give gpusim, and running the
 * binary on them with argv (never through a shell), for tests that check
 * no string of a user becomes code (test_hostile.c: compare's and plan's
 * plots; a new writer that hands strings to gnuplot or a shell adds its
 * command line there).
 *
 * Every name carries a payload that, if anything ever executed it, would
 * create a file whose name starts with CANARY in the folder the command
 * runs in: a shell's $(...) and backquotes, gnuplot's system() after a
 * closing quote, gnuplot's '<cmd' input pipe and '|cmd' output pipe, an @
 * macro, a newline that would end a gnuplot command.  gs_hostile_canary()
 * says whether one appeared.  The names are file names (no '/'), each
 * shorter than NAME_MAX with room for the suffixes gpusim adds. */
#ifndef GS_HOSTILE_H
#define GS_HOSTILE_H

#include "cutest.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const gs_hostile_names[] = {
    "it's",
    "x';system('touch CANARY1');a='",
    "x\";system(\"touch CANARY2\");a=\"",
    "$(touch CANARY3)`touch CANARY4`",
    "back\\slash\\'; system('touch CANARY5') #",
    "new\nline'\nsystem('touch CANARY6')\n",
    "<touch CANARY7",
    "|touch CANARY8",
    "@ARG1 @datadir `touch CANARY9`",
    "  -leading space and dash",
};
#define GS_HOSTILE_N ((int)(sizeof gs_hostile_names / sizeof *gs_hostile_names))

/* A fresh folder /tmp/gs-hostile-XXXXXX (static storage; NULL on error). */
static inline const char *gs_hostile_dir(void)
{
    static char d[64];
    snprintf(d, sizeof d, "/tmp/gs-hostile-XXXXXX");
    return mkdtemp(d);
}

static inline void gs_hostile_rmdir(const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", "--", dir, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
}

/* Run the gpusim binary (gs_test_gpusim, cutest.h) with argv (argv[0] is
 * ignored; NULL-terminated) in folder dir, standard output and error
 * appended to dir/../NAME.log where NAME is dir's last part; the exit
 * status, 128 + the signal when killed, -1 when it could not run. */
static inline int gs_hostile_run(const char *dir, const char *const *argv)
{
    char *bin = realpath(gs_test_gpusim(), NULL);
    if (bin == NULL)
        return -1;
    char *log = NULL;
    if (asprintf(&log, "%s.log", dir) < 0) {
        free(bin);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd < 0 || chdir(dir) != 0)
            _exit(126);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    free(bin);
    free(log);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* What gs_hostile_run wrote to dir's log so far (malloc'ed), and the log
 * removed, so the next run's messages stand alone. */
static inline char *gs_hostile_take_log(const char *dir)
{
    char *log = NULL, *text = NULL;
    size_t n = 0;
    if (asprintf(&log, "%s.log", dir) < 0)
        return strdup("");
    FILE *fp = fopen(log, "r"), *mf = open_memstream(&text, &n);
    if (mf == NULL) {
        if (fp)
            fclose(fp);
        free(log);
        return strdup("");
    }
    int ch;
    while (fp && (ch = fgetc(fp)) != EOF)
        fputc(ch, mf);
    fclose(mf);
    if (fp)
        fclose(fp);
    unlink(log);
    free(log);
    return text;
}

/* 1 when a file whose name starts with CANARY exists in dir (or in any
 * folder below it), else 0. */
static inline int gs_hostile_canary(const char *dir)
{
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(dp)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (strncmp(e->d_name, "CANARY", 6) == 0) {
            found = 1;
            break;
        }
        char *sub = NULL;
        if (e->d_type == DT_DIR && asprintf(&sub, "%s/%s", dir, e->d_name) >= 0)
            found = gs_hostile_canary(sub);
        free(sub);
    }
    closedir(dp);
    return found;
}

/* 1 when dir/name exists and is a non-empty regular file. */
static inline int gs_hostile_made(const char *dir, const char *name)
{
    char *p = NULL;
    struct stat st;
    int ok = asprintf(&p, "%s/%s", dir, name) >= 0 && stat(p, &st) == 0 &&
             S_ISREG(st.st_mode) && st.st_size > 0;
    free(p);
    return ok;
}

/* Entries directly in folder d. */
static inline int gs_hostile_entries(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (dp)
        closedir(dp);
    return n;
}

/* Regular files anywhere under folder d. */
static inline int gs_hostile_files(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *sub = NULL;
        if (e->d_type == DT_DIR && asprintf(&sub, "%s/%s", d, e->d_name) >= 0)
            n += gs_hostile_files(sub);
        else
            n += e->d_type == DT_REG;
        free(sub);
    }
    if (dp)
        closedir(dp);
    return n;
}

/* A new folder whose path is exactly len characters: base/deepK/ddd.../d,
 * components at most NAME_MAX long (caller frees; NULL on error). */
static inline char *gs_hostile_deep(const char *base, int k, size_t len)
{
    char *deep = NULL;
    if (asprintf(&deep, "%s/deep%d", base, k) < 0 || mkdir(deep, 0700) != 0)
        return NULL;
    char ds[NAME_MAX + 1];
    memset(ds, 'd', NAME_MAX);
    ds[NAME_MAX] = '\0';
    while (strlen(deep) < len) {
        size_t left = len - strlen(deep) - 1;       /* after the '/' */
        size_t c = left > NAME_MAX ? NAME_MAX : left;
        if (left > NAME_MAX && left - NAME_MAX < 2)
            c = NAME_MAX - 2;       /* leave room for one more "/d" */
        char *next = NULL;
        if (asprintf(&next, "%s/%.*s", deep, (int)c, ds) < 0 ||
            mkdir(next, 0700) != 0) {
            free(next);
            free(deep);
            return NULL;
        }
        free(deep);
        deep = next;
    }
    return deep;
}

/* name as a JSON string's contents (quotes, backslashes and control
 * characters escaped), into out (at least 6 * strlen(name) + 1 bytes). */
static inline void gs_hostile_json(const char *name, char *out)
{
    for (; *name; name++) {
        unsigned char c = (unsigned char)*name;
        if (c == '"' || c == '\\')
            out += sprintf(out, "\\%c", c);
        else if (c < 0x20)
            out += sprintf(out, "\\u%04x", c);
        else
            *out++ = (char)c;
    }
    *out = '\0';
}

#endif
