/* datapath.c -- a scenario's files beside it, else on the data search
 * path (datapath.h).
 *
 * The lookup is a pure function of the file system and the search path:
 * the same files give the same answer, so results stay reproducible.  Each
 * candidate is tested with access(F_OK); a file that vanishes between this
 * test and its reader's open is reported by the reader, naming it. */
#include "datapath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *search;            /* gs_data_path_set's copy, or NULL */

int gs_data_path_set(const char *list)
{
    free(search);
    search = NULL;
    if (list == NULL || list[0] == '\0')
        return 0;
    search = strdup(list);
    return search ? 0 : -1;
}

static int put(char *out, size_t n, const char *a, size_t alen,
               const char *b)
{
    int w = alen ? snprintf(out, n, "%.*s/%s", (int)alen, a, b)
                 : snprintf(out, n, "%s", b);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

static int exists(const char *p)
{
    return access(p, F_OK) == 0;
}

/* Look path up in the folder d (dlen bytes): path, then its tails. */
static int in_folder(const char *d, size_t dlen, const char *path, char *out,
                     size_t n)
{
    const char *tail = path;
    while (strncmp(tail, "../", 3) == 0 || strncmp(tail, "./", 2) == 0)
        tail += tail[1] == '/' ? 2 : 3;
    if (tail != path && put(out, n, d, dlen, path) == 0 && exists(out))
        return 0;
    for (;;) {
        if (put(out, n, d, dlen, tail) == 0 && exists(out))
            return 0;
        const char *slash = strchr(tail, '/');
        if (slash == NULL)
            return -1;
        tail = slash + 1;
    }
}

int gs_data_path(const char *dir, const char *path, char *out, size_t n)
{
    if (path[0] == '/' || dir == NULL || dir[0] == '\0')
        return put(out, n, "", 0, path);
    if (put(out, n, dir, strlen(dir), path) < 0)
        return -1;
    if (exists(out))
        return 0;
    const char *list = search ? search : getenv("GPUSIM_DATA_PATH");
    for (const char *d = list; d && *d;) {
        size_t len = strcspn(d, ":");
        if (len > 0 && in_folder(d, len, path, out, n) == 0)
            return 0;
        d += len + (d[len] == ':');
    }
    return put(out, n, dir, strlen(dir), path);
}
