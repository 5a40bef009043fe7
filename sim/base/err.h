/* err.h -- error codes, diagnostics and the assertion macro shared by all of gpusim.
 *
 * Every fallible function returns 0 or a negative GS_E* code.  The codes and
 * their messages are defined once, in the GS_ERRORS X-macro table, so that a
 * code can never lack a message.  Parsers additionally fill a struct gs_diag
 * that says where (file, line, column or JSON path) and what went wrong; the
 * CLI prints it as "gpusim: WHERE: WHAT" and exits with status 2.
 *
 * Broken invariants (bugs, never bad input) abort through GS_ASSERT, which
 * names the file and line. */
#ifndef GS_ERR_H
#define GS_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define GS_ERRORS(X)                                              \
    X(OK,       0,  "success")                                    \
    X(NOMEM,   -1,  "out of memory")                              \
    X(IO,      -2,  "cannot read or write file")                  \
    X(PARSE,   -3,  "malformed input")                            \
    X(INVAL,   -4,  "invalid value")                              \
    X(NOTFOUND,-5,  "unknown name")                               \
    X(RANGE,   -6,  "value out of range")                         \
    X(NOFIT,   -7,  "does not fit")                               \
    X(ABI,     -8,  "plug-in ABI version mismatch")               \
    X(STATE,   -9,  "operation not allowed in this state")        \
    X(USAGE,   -10, "bad command-line usage")

enum gs_err {
#define GS_ERR_ENUM(name, code, msg) GS_E##name = code,
    GS_ERRORS(GS_ERR_ENUM)
#undef GS_ERR_ENUM
};

/* Message for an error code; never NULL. */
const char *gs_strerror(int code);

/* Where and what: filled by parsers and validators.  Both strings are in
 * memory sized to what they hold (a scenario's path has no length limit
 * here: the operating system alone says what is too long), owned by the
 * diagnostic and released by gs_diag_free.  While code is 0 both are NULL;
 * once a failure is recorded neither is (an empty string when there is
 * nothing to say, or when memory ran out). */
struct gs_diag {
    int code;           /* the GS_E* code, 0 while nothing failed */
    char *where;        /* "file:line:col", "file: $.fleet[2].gpus", ... */
    char *what;         /* human-readable problem */
};

/* d's where and what, "" while it holds no failure (d may be NULL). */
const char *gs_diag_where(const struct gs_diag *d);
const char *gs_diag_what(const struct gs_diag *d);

/* Record a failure in d (which may be NULL) and return code, so callers can
 * write `return gs_diag_set(d, GS_EINVAL, where, "gpus must be > 0");`.
 * The first failure recorded wins: later calls do not overwrite it.  When
 * memory runs out, d holds GS_ENOMEM (its message, "out of memory") and
 * that code is returned. */
int gs_diag_set(struct gs_diag *d, int code, const char *where,
                const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

/* gs_diag_set with a where built in memory (gs_strf), which this call
 * takes and frees:
 *     where = gs_strf("%s: %s", file, jp);
 *     return gs_diag_set_at(d, GS_EINVAL, where, "gpus must be > 0");
 * A NULL where (gs_strf out of memory) records the failure without a
 * place.  gs_diag_vset_at takes the message's arguments as a va_list. */
int gs_diag_set_at(struct gs_diag *d, int code, char *where,
                   const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

int gs_diag_vset_at(struct gs_diag *d, int code, char *where,
                    const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0), cold));

/* gs_diag_set with the where "FILE:LINE": a row of a text file. */
int gs_diag_set_line(struct gs_diag *d, int code, const char *file, long line,
                     const char *fmt, ...)
    __attribute__((format(printf, 5, 6), cold));

/* Put "PREFIX: " before d's where (the option that named it, "--out");
 * nothing when d holds no failure. */
void gs_diag_prefix(struct gs_diag *d, const char *prefix);

/* Reword d's failure: where and what, when not NULL, replace d's, which
 * takes them (strings from gs_strf; NULL, also gs_strf out of memory,
 * keeps d's own).  Nothing when d holds no failure (they are freed). */
void gs_diag_reword(struct gs_diag *d, char *where, char *what);

/* Move src's failure into dst when dst holds none (the first failure wins)
 * and empty src either way; src's strings go with it, or are freed. */
void gs_diag_move(struct gs_diag *dst, struct gs_diag *src);

/* Release d's strings and empty it (code 0): a diagnostic that is dropped
 * or reused.  NULL-safe. */
void gs_diag_free(struct gs_diag *d);

/* "WHERE: WHAT" (or the bare code message) in memory the caller frees;
 * NULL when out of memory. */
char *gs_diag_message(const struct gs_diag *d);

/* Print "PREFIXWHERE: WHAT" and a newline on fp, the message "out of
 * memory" when it cannot be made: gs_diag_print(stderr, "gpusim: ", d). */
void gs_diag_print(FILE *fp, const char *prefix, const struct gs_diag *d);

/* printf into memory sized to the result, which the caller frees; NULL
 * when out of memory. */
char *gs_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *gs_vstrf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

void gs_assert_fail(const char *expr, const char *file, int line)
    __attribute__((noreturn, cold));

#define GS_ASSERT(e) ((e) ? (void)0 : gs_assert_fail(#e, __FILE__, __LINE__))

/* A function on a rare path (set-up, growth, an error's message, a case
 * few runs meet), kept out of line and apart from the per-event code, so
 * that the lines the first-level instruction cache holds for a hot
 * function hold its common path only (docs/overload.md, "The core's
 * per-event footprint").  The failure calls above (gs_diag_set and its
 * kin, gs_assert_fail, gs_oom_fail) are cold for the same reason: a
 * branch to one is moved out of its function's hot lines. */
#define GS_COLD __attribute__((cold, noinline))

/* Out of memory where a simulation cannot step back (an event bucket half
 * moved, a class table half updated): say so, naming file and line, and
 * exit with status 1 -- a clear error, never an abort, and nothing has
 * been written yet (results are written after the simulation). */
void gs_oom_fail(const char *file, int line)
    __attribute__((noreturn, cold));
#define GS_OOM_IF(e) ((e) ? gs_oom_fail(__FILE__, __LINE__) : (void)0)

#endif
