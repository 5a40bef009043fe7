/* datapath.c -- a scenario's files beside it, else on the data search
 * path (datapath.h).
 *
 * The lookup is a pure function of the file system and the search path:
 * the same files give the same answer, so results stay reproducible.  Each
 * candidate is tested with access(F_OK); a file that vanishes between this
 * test and its reader's open is reported by the reader, naming it. */
#include "datapath.h"
#include "path.h"

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

static int exists(const char *p)
{
    return access(p, F_OK) == 0;
}

/* "d/tail" (d of dlen bytes) when that file exists, else NULL (and NULL
 * with *oom set when out of memory). */
static char *try_at(const char *d, size_t dlen, const char *tail, int *oom)
{
    char *p = NULL;
    if (asprintf(&p, "%.*s/%s", (int)dlen, d, tail) < 0) {
        *oom = 1;
        return NULL;
    }
    if (exists(p))
        return p;
    free(p);
    return NULL;
}

/* Look path up in the folder d (dlen bytes): path, then its tails. */
static char *in_folder(const char *d, size_t dlen, const char *path, int *oom)
{
    const char *tail = path;
    while (strncmp(tail, "../", 3) == 0 || strncmp(tail, "./", 2) == 0)
        tail += tail[1] == '/' ? 2 : 3;
    char *p = tail != path ? try_at(d, dlen, path, oom) : NULL;
    while (p == NULL && !*oom) {
        if ((p = try_at(d, dlen, tail, oom)) != NULL || *oom)
            break;
        const char *slash = strchr(tail, '/');
        if (slash == NULL)
            return NULL;
        tail = slash + 1;
    }
    return p;
}

char *gs_data_path(const char *dir, const char *path)
{
    char *beside = gs_path_join(dir, path);
    if (beside == NULL || path[0] == '/' || dir == NULL || dir[0] == '\0' ||
        exists(beside))
        return beside;
    const char *list = search ? search : getenv("GPUSIM_DATA_PATH");
    int oom = 0;
    for (const char *d = list; d && *d && !oom;) {
        size_t len = strcspn(d, ":");
        char *p = len > 0 ? in_folder(d, len, path, &oom) : NULL;
        if (p) {
            free(beside);
            return p;
        }
        d += len + (d[len] == ':');
    }
    if (oom) {
        free(beside);
        return NULL;
    }
    return beside;
}
