/* outfile.h -- result files written safely: all or nothing, never beside
 * the point.
 *
 * A result (HDF5 file, weights, converted trace) is written into a
 * temporary file created exclusively (mkostemp, O_EXCL) in the folder of
 * its target and renamed over the target only when complete, so a failed
 * or interrupted run leaves the target as it was.  The temporary's name is
 *     FOLDER/.BASE.gpusim-tmp-PID-XXXXXX
 * (BASE cut so the name stays within NAME_MAX): hidden, recognizable, and
 * naming the process that writes it.  One left behind by a process that no
 * longer exists (killed with SIGKILL, a power cut) is removed the next time
 * the same target is written.  Names are built in allocated memory, never
 * cut to a buffer; a path whose temporary would exceed PATH_MAX, or whose
 * file name exceeds NAME_MAX, is refused with a message saying so.
 *
 * Targets: an existing target must be a regular file; a folder, FIFO,
 * device or socket is refused with a message naming what it is (writing
 * "results" into /dev/full or a FIFO by renaming over it would replace
 * the device node).  A symbolic link is followed: the file it leads to is
 * replaced (its temporary made in that file's folder) and the link is
 * kept; a link to a missing file is refused.
 *
 * The name "-" is standard output: the result is written whole into a
 * temporary in $TMPDIR (or /tmp) and copied to stdout at commit, so a
 * failure writes nothing there.  Checking "-" (gs_out_check) claims
 * stdout for the result: from then on what the command prints to stdout
 * goes to stderr instead, so the result's bytes are alone on stdout.  An
 * HDF5 file needs a file it can seek in: gs_out_check_seekable refuses
 * "-" unless stdout is a regular file (`> results.h5`), never a pipe or a
 * terminal. */
#ifndef GS_OUTFILE_H
#define GS_OUTFILE_H

#include "../base/err.h"

struct gs_out {
    char *target;   /* the file to replace: the path, symlinks resolved */
    char *tmp;      /* the temporary beside it */
    int fd;         /* open on tmp (write), -1 when closed */
};

/* 0 when path may receive a result (it is not empty; if it exists it is,
 * or leads to, a regular file), else GS_EINVAL with d naming the path and
 * what it is.  The CLI calls it before the simulation, so a bad --out
 * costs nothing. */
int gs_out_check(const char *path, struct gs_diag *d);

/* gs_out_check for a result that is written by seeking (HDF5): "-" is
 * refused unless standard output is a regular file. */
int gs_out_check_seekable(const char *path, struct gs_diag *d);

/* Check path, remove stale temporaries of the same target, create the
 * temporary (mode 0666 less the umask) and register it with cleanup.h.
 * 0, or a negative code with d filled (o then owns nothing). */
int gs_out_begin(struct gs_out *o, const char *path, struct gs_diag *d);

/* Close the descriptor (if open) and rename the temporary over the
 * target; on failure the temporary is removed.  Frees o's strings. */
int gs_out_commit(struct gs_out *o, struct gs_diag *d);

/* Remove the temporary and free o's strings (NULL-safe, idempotent). */
void gs_out_abort(struct gs_out *o);

/* A scratch folder beside path, named like a temporary (so a stale one is
 * removed the same way) and registered with cleanup.h; *dir is malloc'ed.
 * gs_out_scratch_remove removes its files and it, and frees *dir. */
int gs_out_scratch(const char *path, char **dir, struct gs_diag *d);
void gs_out_scratch_remove(char **dir);

/* The default result name for a scenario given as `arg` (a file path, a
 * built-in name such as "quickstart", or "-", standard input, named
 * "stdin"): the file's name without its
 * folder and its ".json", followed by suffix ("mine.json" -> "mine.h5" in
 * the current folder).  Malloc'ed, or NULL when out of memory. */
char *gs_out_default_name(const char *arg, const char *suffix);

/* 0 when a default-named result may be written at path: it does not
 * exist, or force is set.  Else GS_EINVAL with d saying to give --force or
 * --out (a result is never replaced silently). */
int gs_out_check_new(const char *path, int force, struct gs_diag *d);

#endif
