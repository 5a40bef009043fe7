/* path.h -- file paths built in memory, never cut to a buffer.
 *
 * A path joined into a fixed array is silently shortened when it does not
 * fit, and the shortened name is another file: a read of the wrong trace,
 * a write onto an unrelated file.  Every path gpusim builds from a user's
 * folder and file names goes through here, allocated to its length; the
 * operating system alone decides what is too long (ENAMETOOLONG). */
#ifndef GS_PATH_H
#define GS_PATH_H

#include <stdio.h>

/* path resolved against the folder dir: path itself when it is absolute or
 * dir is NULL or empty, else "dir/path".  In memory the caller frees; NULL
 * when out of memory. */
char *gs_path_join(const char *dir, const char *path);

/* The folder part of file ("." when it has none, "/" for "/x"), in memory
 * the caller frees; NULL when out of memory. */
char *gs_path_dir(const char *file);

/* Open path for reading (*out) when it is a regular file of at most max
 * bytes (max 0: any size); 0, or a negative code with *out NULL.  A device (/dev/zero never ends), a FIFO (opening one
 * would wait for a writer: it is opened without waiting, then refused), a
 * folder or a socket is refused by kind, a larger file by its size; d then
 * names path, says what it is and that what (e.g. "a trace") must be a
 * regular file. */
struct gs_diag;
int gs_fopen_regular(const char *path, const char *what, long long max,
                     FILE **out, struct gs_diag *d);

/* Inputs: every file gs_fopen_regular opens is noted (device and inode),
 * so a result about to be written over one is refused (outfile.c): --out
 * naming the scenario or a trace would replace the input with HDF5. */
void gs_input_note(int fd);
/* Forget the inputs noted: a command starts (gs_cli_getopt, run, trace),
 * and a process that runs several (the tests) must not refuse an output
 * because an earlier command read it. */
void gs_input_reset(void);
/* 1 when path exists and is a file noted as an input, else 0. */
int gs_input_is(const char *path);

#endif
