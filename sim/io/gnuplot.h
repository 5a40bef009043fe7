/* gnuplot.h -- run gnuplot on a script so that no user string becomes code.
 *
 * Plots are drawn by gnuplot, which is a programming language with a shell
 * escape (system(), backquotes) and which treats a file name starting with
 * '<' and an output starting with '|' as shell pipes.  So a folder or a
 * scenario named by a user must never be pasted into gnuplot code, and
 * quoting is not enough.  The one door here runs
 *     gnuplot -c SCRIPT ARG1 ARG2 ...
 * where SCRIPT is a fixed file (a plots/ script, or one gpusim writes from
 * constant text) and the user's strings arrive as ARG1.. : gnuplot stores
 * them as string variables verbatim, never parsing them (checked in
 * tests/test_hostile.c with quotes, backslashes, newlines, $(...), `...`,
 * system(...) and @ macros).  Every path handed over is made absolute
 * first (gs_gnuplot_path), so it starts with '/' and can never begin with
 * '<' or '|'.  gnuplot reads nothing from gpusim's standard input (it gets
 * /dev/null) and prints its complaints on the standard error. */
#ifndef GS_GNUPLOT_H
#define GS_GNUPLOT_H

/* path made absolute (the current folder joined in front of a relative
 * one; nothing resolved or required to exist), in memory the caller frees;
 * NULL when out of memory or when the current folder cannot be named. */
char *gs_gnuplot_path(const char *path);

/* Run gnuplot -c script args[0..nargs-1] and wait for it.  script must be
 * absolute (gs_gnuplot_path).  0 when gnuplot ran and succeeded; -1 when
 * it could not be started (errno set, nothing printed), -2 when it failed
 * (its own message is on stderr). */
int gs_gnuplot_run(const char *script, const char *const *args, int nargs);

#endif
